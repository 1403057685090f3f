/* Unit tests of services/common/config.c: SIZE values, endpoint lists, the
 * command line, the configuration file, environment fallbacks, defaults. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"

static int64_t size_ok(const char *s, int64_t total)
{
    int64_t v = -42;
    char err[256] = "";
    int rc = cfg_parse_size(s, total, &v, err, sizeof err);
    if (rc != 0) fail_msg("'%s' rejected: %s", s, err);
    return v;
}

static void size_bad(const char *s, int64_t total, const char *needle)
{
    int64_t v = -42;
    char err[256] = "";
    if (cfg_parse_size(s, total, &v, err, sizeof err) == 0)
        fail_msg("'%s' accepted as %lld", s, (long long)v);
    assert_int_equal(v, -42);
    if (needle && !strstr(err, needle)) fail_msg("'%s': message '%s' lacks '%s'", s, err, needle);
}

static void test_size_suffixes(void **state)
{
    assert_int_equal(size_ok("0", 0), 0);
    assert_int_equal(size_ok("4096", 0), 4096);
    assert_int_equal(size_ok("1k", 0), 1024);
    assert_int_equal(size_ok("1K", 0), 1024);
    assert_int_equal(size_ok("1kb", 0), 1024);
    assert_int_equal(size_ok("512b", 0), 512);
    assert_int_equal(size_ok("128m", 0), 128LL << 20);
    assert_int_equal(size_ok("2G", 0), 2LL << 30);
    assert_int_equal(size_ok("1t", 0), 1LL << 40);
    assert_int_equal(size_ok("1.5g", 0), 3LL << 29);
    assert_int_equal(size_ok("0.5k", 0), 512);
    assert_int_equal(size_ok(".25m", 0), 256LL << 10);
    assert_int_equal(size_ok("007k", 0), 7 * 1024);
    /* Fractions of a byte round down. */
    assert_int_equal(size_ok("1.9", 0), 1);
    assert_int_equal(size_ok("0.001k", 0), 1);
}

static void test_size_percent(void **state)
{
    assert_int_equal(size_ok("80%", 1000), 800);
    assert_int_equal(size_ok("12.5%", 1000), 125);
    assert_int_equal(size_ok("100%", 1000), 1000);
    assert_int_equal(size_ok("0%", 1000), 0);
    assert_int_equal(size_ok("33.3%", 1000), 333);
    assert_int_equal(size_ok("50%", INT64_MAX), INT64_MAX / 2);
    assert_int_equal(size_ok("100%", INT64_MAX), INT64_MAX);
    size_bad("101%", 1000, "100%");
    size_bad("100.001%", 1000, "100%");
    size_bad("%", 1000, NULL);
    size_bad("50%%", 1000, NULL);
    size_bad("50%k", 1000, NULL);
}

static void test_size_overflow(void **state)
{
    assert_int_equal(size_ok("9223372036854775807", 0), INT64_MAX);
    assert_int_equal(size_ok("8388607t", 0), (int64_t)8388607 << 40);
    size_bad("9223372036854775808", 0, "overflows");
    size_bad("8388608t", 0, "overflows");
    size_bad("8796093022208m", 0, "overflows");
    size_bad("99999999999999999999", 0, "digits");
    size_bad("1.0000000001k", 0, "digits");
}

static void test_size_garbage(void **state)
{
    const char *bad[] = {"",    "k",   "-1",  "+1",   "1x",   "1.2.3", "1.",  ".",   " 1",  "1 ",
                         "1 k", "1kk", "1bb", "1kbb", "0x10", "1e3",   "nan", "inf", "1,5g"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        size_bad(bad[i], 1000, "SIZE");
}

static void test_endpoints(void **state)
{
    cfg_endpoint_t e[4];
    int n = -1;
    char err[256];
    assert_int_equal(cfg_parse_endpoints("a:1,b.example.com:7103", e, 4, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(e[0].host, "a");
    assert_int_equal(e[0].port, 1);
    assert_string_equal(e[1].host, "b.example.com");
    assert_int_equal(e[1].port, 7103);
    assert_int_equal(cfg_parse_endpoints("[::1]:7000", e, 4, &n, err, sizeof err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(e[0].host, "::1");
    assert_int_equal(e[0].port, 7000);
    const char *bad[] = {"",        "a",       "a:",    ":1",       "a:0",
                         "a:65536", "a:1,",    ",a:1",  "a:1,,b:2", "::1:80",
                         "[::1]",   "[::1]80", "a b:1", "a:1x",     "a:-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (cfg_parse_endpoints(bad[i], e, 4, &n, err, sizeof err) == 0)
            fail_msg("endpoint list '%s' accepted", bad[i]);
    }
    assert_int_not_equal(cfg_parse_endpoints("a:1,a:2,a:3,a:4,a:5", e, 4, &n, err, sizeof err), 0);
    assert_non_null(strstr(err, "more than 4"));
}

/* cfg_parse over a NULL-terminated argument list, with fixed machine facts. */
static int parse(cfg_t *c, cfg_service_t svc, char *err, size_t errlen, ...)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = (char *)"prog";
    va_list ap;
    va_start(ap, errlen);
    for (char *a; (a = va_arg(ap, char *));)
        argv[argc++] = a;
    va_end(ap);
    cfg_init(c, svc);
    c->total_mem = 4LL << 30;
    c->cpu_count = 3;
    err[0] = '\0';
    return cfg_parse(c, argc, argv, err, errlen);
}

static cfg_t g_cfg; /* large: off the stack */

static void test_worker_flags(void **state)
{
    char err[512];
    cfg_t *c = &g_cfg;
    int rc = parse(c, CFG_WORKER, err, sizeof err, "-H", "127.0.0.1", "-p", "7200", "-s",
                   "127.0.0.1:7100", "--n-cpu", "4", "--n-io-process=2", "--cuda-devices", "1,0",
                   "--phy-mem", "50%", "--cache-mem", "512m", "--min-mem", "1g", "--spill-dirs",
                   "/tmp/a:/tmp/b", "--log-level", "DEBUG", NULL);
    if (rc) fail_msg("%s", err);
    assert_string_equal(c->host, "127.0.0.1");
    assert_string_equal(c->advertise, "127.0.0.1");
    assert_int_equal(c->port, 7200);
    assert_int_equal(c->n_supervisors, 1);
    assert_int_equal(c->supervisors[0].port, 7100);
    assert_int_equal(c->n_cpu, 4);
    assert_int_equal(c->n_io, 2);
    assert_int_equal(c->n_cuda, 2);
    assert_int_equal(c->cuda[0], 1);
    assert_int_equal(c->cuda[1], 0);
    assert_int_equal(c->phy_mem, 2LL << 30);
    assert_int_equal(c->cache_mem, 512LL << 20);
    assert_true(c->phy_mem_given);
    assert_true(c->cache_mem_given);
    assert_int_equal(c->min_mem, 1LL << 30);
    assert_int_equal(c->n_spill, 2);
    assert_string_equal(c->spill[1], "/tmp/b");
    assert_int_equal(c->log.level, LOGL_DEBUG);
    assert_false(c->has_pg_dsn);
}

static void test_worker_defaults(void **state)
{
    char err[512];
    cfg_t *c = &g_cfg;
    unsetenv("MARS_PG_DSN");
    unsetenv("MARS_REDIS_URL");
    if (parse(c, CFG_WORKER, err, sizeof err, "-s", "sup:7100", "--cuda-devices", "", NULL))
        fail_msg("%s", err);
    assert_int_equal(c->n_cpu, 3);
    assert_int_equal(c->n_io, 1);
    assert_int_equal(c->n_cuda, 0);
    assert_int_equal(c->phy_mem, 4LL << 30);
    assert_int_equal(c->cache_mem, (4LL << 30) / 10 * 4);
    /* Not given: the worker's memguard takes the host share instead. */
    assert_false(c->phy_mem_given);
    assert_false(c->cache_mem_given);
    assert_int_equal(c->min_mem, 128LL << 20);
    assert_int_equal(c->port, 0);
    assert_int_equal(c->web_port, -1);
    /* No token: loopback only (docs/security.md). */
    assert_string_equal(c->host, "127.0.0.1");
    assert_string_equal(c->advertise, "127.0.0.1");
    assert_string_equal(c->token, "");
    assert_int_equal(c->log.level, LOGL_INFO);
}

/* A token (file or MARS_TOKEN) makes the default bind 0.0.0.0; -H still wins. */
static void test_token(void **state)
{
    char err[512];
    cfg_t *c = &g_cfg;
    unsetenv("MARS_PG_DSN");
    unsetenv("MARS_REDIS_URL");
    unsetenv("MARS_TOKEN");
    char path[] = "/tmp/mars-test-token-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "s3cret-T0ken\n", 13), 13);
    close(fd);
    if (parse(c, CFG_SUPERVISOR, err, sizeof err, "--token-file", path, "--max-attempts", "5",
              NULL))
        fail_msg("%s", err);
    assert_string_equal(c->token, "s3cret-T0ken");
    assert_string_equal(c->host, "0.0.0.0");
    char host[256] = "";
    gethostname(host, sizeof host);
    assert_string_equal(c->advertise, host);
    assert_int_equal(c->max_attempts, 5);

    setenv("MARS_TOKEN", "from-env", 1);
    if (parse(c, CFG_WORKER, err, sizeof err, "-s", "a:1", "-H", "127.0.0.2", NULL))
        fail_msg("%s", err);
    assert_string_equal(c->token, "from-env");
    assert_string_equal(c->host, "127.0.0.2");
    /* the file wins over the environment */
    if (parse(c, CFG_WORKER, err, sizeof err, "-s", "a:1", "--token-file", path, NULL))
        fail_msg("%s", err);
    assert_string_equal(c->token, "s3cret-T0ken");
    setenv("MARS_TOKEN", "", 1);
    if (parse(c, CFG_GATEWAY, err, sizeof err, "-s", "a:1", NULL)) fail_msg("%s", err);
    assert_string_equal(c->token, "");
    setenv("MARS_TOKEN", "has space", 1);
    assert_int_equal(parse(c, CFG_GATEWAY, err, sizeof err, "-s", "a:1", NULL), -1);
    assert_non_null(strstr(err, "MARS_TOKEN"));
    unsetenv("MARS_TOKEN");

    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(
        parse(c, CFG_GATEWAY, err, sizeof err, "-s", "a:1", "--token-file", path, NULL), -1);
    assert_non_null(strstr(err, "--token-file"));
    unlink(path);
    assert_int_equal(
        parse(c, CFG_GATEWAY, err, sizeof err, "-s", "a:1", "--token-file", path, NULL), -1);
    assert_int_equal(parse(c, CFG_SUPERVISOR, err, sizeof err, "--max-attempts", "0", NULL), -1);
    assert_int_equal(
        parse(c, CFG_WORKER, err, sizeof err, "-s", "a:1", "--max-attempts", "2", NULL), -1);
}

static void bad_cmdline(cfg_service_t svc, const char *needle, ...)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)"prog";
    va_list ap;
    va_start(ap, needle);
    for (char *a; (a = va_arg(ap, char *));)
        argv[argc++] = a;
    va_end(ap);
    char err[512] = "";
    cfg_init(&g_cfg, svc);
    g_cfg.total_mem = 4LL << 30;
    if (cfg_parse(&g_cfg, argc, argv, err, sizeof err) != -1) fail_msg("accepted: %s ...", argv[1]);
    if (!strstr(err, needle)) fail_msg("message '%s' lacks '%s'", err, needle);
    if (strchr(err, '\n')) fail_msg("message on several lines: '%s'", err);
}

static void test_rejections(void **state)
{
    bad_cmdline(CFG_WORKER, "--n-cpu", "-s", "a:1", "--n-cpu", "0", NULL);
    bad_cmdline(CFG_WORKER, "--n-cpu", "-s", "a:1", "--n-cpu", "1025", NULL);
    bad_cmdline(CFG_WORKER, "--n-cpu", "-s", "a:1", "--n-cpu", "", NULL);
    bad_cmdline(CFG_WORKER, "--n-io-process", "-s", "a:1", "--n-io-process", "65", NULL);
    bad_cmdline(CFG_WORKER, "--cuda-devices", "-s", "a:1", "--cuda-devices", "0,,1", NULL);
    bad_cmdline(CFG_WORKER, "--cuda-devices", "-s", "a:1", "--cuda-devices", "0,", NULL);
    bad_cmdline(CFG_WORKER, "twice", "-s", "a:1", "--cuda-devices", "2,2", NULL);
    bad_cmdline(CFG_WORKER, "--cuda-devices", "-s", "a:1", "--cuda-devices", "64", NULL);
    bad_cmdline(CFG_WORKER, "--phy-mem", "-s", "a:1", "--phy-mem", "0", NULL);
    bad_cmdline(CFG_WORKER, "--cache-mem", "-s", "a:1", "--phy-mem", "1g", "--cache-mem", "2g",
                NULL);
    bad_cmdline(CFG_WORKER, "--spill-dirs", "-s", "a:1", "--spill-dirs", "/a:", NULL);
    bad_cmdline(CFG_WORKER, "needs -s", NULL);
    bad_cmdline(CFG_WORKER, "needs -s", "--pg-dsn", "dbname=x", NULL);
    bad_cmdline(CFG_WORKER, "unknown option", "-s", "a:1", "-w", "80", NULL);
    bad_cmdline(CFG_GATEWAY, "unknown option", "-s", "a:1", "--n-cpu", "2", NULL);
    bad_cmdline(CFG_SUPERVISOR, "-p", "-p", "65536", NULL);
    bad_cmdline(CFG_SUPERVISOR, "-p", "-p", "http", NULL);
    bad_cmdline(CFG_SUPERVISOR, "needs a value", "-p", NULL);
    bad_cmdline(CFG_SUPERVISOR, "same port", "-p", "7000", "-w", "7000", NULL);
    bad_cmdline(CFG_SUPERVISOR, "--redis-url", "--redis-url", "localhost:6379", NULL);
    bad_cmdline(CFG_SUPERVISOR, "-H", "-H", "bad host", NULL);
    bad_cmdline(CFG_SUPERVISOR, "--log-level", "--log-level", "verbose", NULL);
    bad_cmdline(CFG_SUPERVISOR, "--log-format", "--log-format", "%(asctime)s %", NULL);
    bad_cmdline(CFG_SUPERVISOR, "--log-format", "--log-format", "%(process)s %(levelname)d", NULL);
    bad_cmdline(CFG_SUPERVISOR, "unexpected argument", "positional", NULL);
    bad_cmdline(CFG_SUPERVISOR, "takes no value", "--help=yes", NULL);
    bad_cmdline(CFG_SUPERVISOR, "-f", "-f", "/nonexistent/mars.conf", NULL);
    bad_cmdline(CFG_SUPERVISOR, "log conf", "--log-conf", "/nonexistent/log.conf", NULL);
}

static void test_help(void **state)
{
    char err[256];
    /* --help wins over anything else, even mistakes after it. */
    assert_int_equal(parse(&g_cfg, CFG_WORKER, err, sizeof err, "--help", "--n-cpu", "0", NULL), 1);
    const char *worker[] = {"-H, --host",   "-p, --port", "-f, --config-file", "--log-level",
                            "--log-format", "--log-conf", "-s, --supervisors", "--pg-dsn",
                            "--redis-url",  "--n-cpu",    "--n-io-process",    "--cuda-devices",
                            "--cache-mem",  "--phy-mem",  "--min-mem",         "--spill-dirs",
                            "--help"};
    sbuf_t b;
    sbuf_init(&b);
    cfg_usage(CFG_WORKER, &b);
    for (size_t i = 0; i < sizeof worker / sizeof worker[0]; i++) {
        if (!strstr(sbuf_str(&b), worker[i])) fail_msg("worker --help lacks %s", worker[i]);
    }
    assert_null(strstr(sbuf_str(&b), "--web-port"));
    sbuf_reset(&b);
    cfg_usage(CFG_SUPERVISOR, &b);
    assert_non_null(strstr(sbuf_str(&b), "-w, --web-port"));
    assert_non_null(strstr(sbuf_str(&b), "--migrations-dir"));
    assert_null(strstr(sbuf_str(&b), "--n-cpu"));
    sbuf_close(&b);
}

static char g_tmp[] = "/tmp/mars-cfg-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", g_tmp, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_config_file(void **state)
{
    char err[512];
    cfg_t *c = &g_cfg;
    const char *conf = write_file("w.conf", "# a worker\n"
                                            "  port = 1000  \n"
                                            "n_cpu = 2\n"
                                            "supervisors = a:1,b:2\n"
                                            "cuda-devices = \"\"\n"
                                            "pg-dsn = \"host=x password=p#1\"\n"
                                            "redis-url=redis://r:1/2\n"
                                            "log-level = warning\n");
    /* The command line wins over the file, whatever their order. */
    if (parse(c, CFG_WORKER, err, sizeof err, "-p", "2000", "-f", conf, NULL)) fail_msg("%s", err);
    assert_int_equal(c->port, 2000);
    assert_int_equal(c->n_cpu, 2);
    assert_int_equal(c->n_supervisors, 2);
    assert_int_equal(c->n_cuda, 0);
    assert_string_equal(c->pg_dsn, "host=x password=p#1");
    assert_string_equal(c->redis_url, "redis://r:1/2");
    assert_int_equal(c->log.level, LOGL_WARNING);

    conf = write_file("bad1.conf", "port = 1\nbogus = 2\n");
    assert_int_equal(parse(c, CFG_WORKER, err, sizeof err, "-f", conf, NULL), -1);
    assert_non_null(strstr(err, "bad1.conf:2"));
    assert_non_null(strstr(err, "bogus"));
    conf = write_file("bad2.conf", "web-port = 80\n");
    assert_int_equal(parse(c, CFG_WORKER, err, sizeof err, "-s", "a:1", "-f", conf, NULL), -1);
    assert_non_null(strstr(err, "not an option of mars-worker"));
    conf = write_file("bad3.conf", "n-cpu = many\n");
    assert_int_equal(parse(c, CFG_WORKER, err, sizeof err, "-s", "a:1", "-f", conf, NULL), -1);
    assert_non_null(strstr(err, "bad3.conf:1"));
    conf = write_file("bad4.conf", "just words\n");
    assert_int_equal(parse(c, CFG_WORKER, err, sizeof err, "-s", "a:1", "-f", conf, NULL), -1);
    assert_non_null(strstr(err, "key = value"));
    conf = write_file("bad5.conf", "config-file = other.conf\n");
    assert_int_equal(parse(c, CFG_WORKER, err, sizeof err, "-s", "a:1", "-f", conf, NULL), -1);
}

static void test_environment(void **state)
{
    char err[512];
    cfg_t *c = &g_cfg;
    setenv("MARS_PG_DSN", "dbname=fromenv", 1);
    setenv("MARS_REDIS_URL", "redis://envhost:7000", 1);
    if (parse(c, CFG_SUPERVISOR, err, sizeof err, NULL)) fail_msg("%s", err);
    assert_string_equal(c->pg_dsn, "dbname=fromenv");
    assert_string_equal(c->redis_url, "redis://envhost:7000");
    if (parse(c, CFG_SUPERVISOR, err, sizeof err, "--pg-dsn", "dbname=flag", NULL))
        fail_msg("%s", err);
    assert_string_equal(c->pg_dsn, "dbname=flag");
    /* A gateway with both from the environment needs no -s. */
    if (parse(c, CFG_GATEWAY, err, sizeof err, NULL)) fail_msg("%s", err);
    setenv("MARS_REDIS_URL", "http://nope", 1);
    assert_int_equal(parse(c, CFG_SUPERVISOR, err, sizeof err, NULL), -1);
    assert_non_null(strstr(err, "MARS_REDIS_URL"));
    unsetenv("MARS_PG_DSN");
    unsetenv("MARS_REDIS_URL");
    if (parse(c, CFG_SUPERVISOR, err, sizeof err, NULL)) fail_msg("%s", err);
    assert_string_equal(c->pg_dsn, "");
    assert_string_equal(c->redis_url, CFG_DEFAULT_REDIS_URL);
}

static void test_log_conf(void **state)
{
    char err[512];
    cfg_t *c = &g_cfg;
    const char *lc = write_file("log.conf", "level = error\nformat = %(levelname)-8s %(message)s\n"
                                            "level.gateway = debug\n");
    if (parse(c, CFG_SUPERVISOR, err, sizeof err, "--log-conf", lc, NULL)) fail_msg("%s", err);
    assert_int_equal(c->log.level, LOGL_ERROR);
    assert_string_equal(c->log.format, "%(levelname)-8s %(message)s");
    assert_int_equal(c->log.n_loggers, 1);
    assert_string_equal(c->log.loggers[0].name, "gateway");
    assert_int_equal(c->log.loggers[0].level, LOGL_DEBUG);
    /* --log-level wins over the file, before or after --log-conf. */
    if (parse(c, CFG_SUPERVISOR, err, sizeof err, "--log-level", "info", "--log-conf", lc, NULL))
        fail_msg("%s", err);
    assert_int_equal(c->log.level, LOGL_INFO);
    assert_string_equal(c->log.format, "%(levelname)-8s %(message)s");
    lc = write_file("badlog.conf", "level = info\nlevel.x = chatty\n");
    assert_int_equal(parse(c, CFG_SUPERVISOR, err, sizeof err, "--log-conf", lc, NULL), -1);
    assert_non_null(strstr(err, "badlog.conf:2"));
}

static int setup(void **state)
{
    return mkdtemp(g_tmp) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_suffixes),   cmocka_unit_test(test_size_percent),
        cmocka_unit_test(test_size_overflow),   cmocka_unit_test(test_size_garbage),
        cmocka_unit_test(test_endpoints),       cmocka_unit_test(test_worker_flags),
        cmocka_unit_test(test_worker_defaults), cmocka_unit_test(test_token),
        cmocka_unit_test(test_rejections),      cmocka_unit_test(test_help),
        cmocka_unit_test(test_config_file),     cmocka_unit_test(test_environment),
        cmocka_unit_test(test_log_conf),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
