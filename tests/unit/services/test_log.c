/* Unit tests of services/common/log.c: format checking, the line written
 * for an event, and level filtering (captured from standard error). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"

#define LOG_MODULE "unit"

/* Runs fn with standard error captured; returns what it wrote. */
static const char *capture(void (*fn)(void))
{
    static char buf[16384];
    char path[] = "/tmp/mars-log-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    fn();
    dup2(saved, STDERR_FILENO);
    close(saved);
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    return buf;
}

static void apply(const char *format, log_level_t level)
{
    log_settings_t s;
    char err[256];
    log_settings_init(&s);
    snprintf(s.format, sizeof s.format, "%s", format);
    s.level = level;
    if (log_apply(&s, err, sizeof err)) fail_msg("%s", err);
}

static void emit(void)
{
    log_debug("hidden %d", 1);
    log_info("two\nlines and a \x01");
    log_warning("pct %d%%", 50);
    log_write(LOGL_ERROR, "other", "from %s", "elsewhere");
}

static void test_text_format(void **state)
{
    apply("[%(levelname)-7s] %(name)6s|%(message)s|%%", LOGL_INFO);
    assert_string_equal(capture(emit), "[INFO   ]   unit|two\\nlines and a \\x01|%\n"
                                       "[WARNING]   unit|pct 50%|%\n"
                                       "[ERROR  ]  other|from elsewhere|%\n");
}

static void test_asctime_pid(void **state)
{
    apply("%(asctime)s %(process)d %(message)s", LOGL_WARNING);
    const char *out = capture(emit);
    char date[32], msg[64];
    int pid;
    assert_int_equal(sscanf(out, "%31s %d %63[^\n]", date, &pid, msg), 3);
    assert_int_equal(pid, (int)getpid());
    assert_string_equal(msg, "pct 50%");
    /* RFC 3339, UTC, milliseconds: 2025-01-02T03:04:05.678Z */
    assert_int_equal(strlen(date), 24);
    assert_true(date[4] == '-' && date[10] == 'T' && date[19] == '.' && date[23] == 'Z');
}

static void test_json_format(void **state)
{
    apply("json", LOGL_ERROR);
    const char *out = capture(emit);
    assert_non_null(strstr(out, "\"level\":\"ERROR\",\"logger\":\"other\""));
    assert_non_null(strstr(out, "\"message\":\"from elsewhere\"}\n"));
    assert_null(strstr(out, "WARNING"));
}

static void test_per_logger_level(void **state)
{
    log_settings_t s;
    char err[256];
    log_settings_init(&s);
    snprintf(s.format, sizeof s.format, "%%(name)s %%(message)s");
    s.level = LOGL_ERROR;
    s.n_loggers = 1;
    snprintf(s.loggers[0].name, sizeof s.loggers[0].name, "unit");
    s.loggers[0].level = LOGL_DEBUG;
    assert_int_equal(log_apply(&s, err, sizeof err), 0);
    assert_string_equal(capture(emit), "unit hidden 1\nunit two\\nlines and a \\x01\nunit pct 50%\n"
                                       "other from elsewhere\n");
    assert_true(log_enabled("unit", LOGL_DEBUG));
    assert_false(log_enabled("else", LOGL_WARNING));
}

static void test_check_format(void **state)
{
    char err[256];
    const char *good[] = {"",
                          "plain",
                          "%(message)s",
                          "%(created)f %(thread)d %(process)s",
                          "%%",
                          "json",
                          "%(name)-12s %(levelname)8s"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        if (log_check_format(good[i], err, sizeof err)) fail_msg("'%s' rejected: %s", good[i], err);
    }
    const char *bad[] = {"%",           "%d",           "%(message", "%(nope)s",
                         "%(message)d", "%(levelname)", "50% done",  "%(name)999s"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (!log_check_format(bad[i], err, sizeof err)) fail_msg("'%s' accepted", bad[i]);
    }
    log_level_t l;
    assert_int_equal(log_parse_level("Warn", &l, err, sizeof err), 0);
    assert_int_equal(l, LOGL_WARNING);
    assert_int_equal(log_parse_level("trace", &l, err, sizeof err), -1);
}

static void long_line(void)
{
    char big[10000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    log_error("%s", big);
}

static void test_long_message(void **state)
{
    apply("%(message)s", LOGL_INFO);
    const char *out = capture(long_line);
    /* One write of at most 4096 bytes, still one line. */
    assert_int_equal(strlen(out), 4096);
    assert_int_equal(out[4095], '\n');
    assert_null(memchr(out, '\n', 4095));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_format),  cmocka_unit_test(test_asctime_pid),
        cmocka_unit_test(test_json_format),  cmocka_unit_test(test_per_logger_level),
        cmocka_unit_test(test_check_format), cmocka_unit_test(test_long_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
