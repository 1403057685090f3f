/* Unit tests of services/common/rq.c and db.c that need no server: URL
 * parsing, the blocking-timeout guard, and the backoff after a refused
 * connection. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "db.h"
#include "rq.h"

/* A loopback port nothing listens on (bound then closed). */
static int closed_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    getsockname(fd, (struct sockaddr *)&a, &l);
    close(fd);
    return ntohs(a.sin_port);
}

static void test_urls(void **state)
{
    char err[256];
    const char *good[] = {"redis://localhost",        "redis://127.0.0.1:6380/2",
                          "redis://:secret@host:1/0", "redis://user:p@ss@host",
                          "redis://[::1]:6379",       "unix:///run/redis.sock",
                          "unix:///tmp/r.sock?db=3"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        rq_t *r = rq_create(good[i], 0, err, sizeof err);
        if (!r) fail_msg("'%s' rejected: %s", good[i], err);
        rq_free(r);
    }
    const char *bad[] = {"",
                         "localhost:6379",
                         "http://h",
                         "redis://",
                         "redis://h:0",
                         "redis://h:65536",
                         "redis://h:x",
                         "redis://h/db",
                         "redis://nocolon@h",
                         "unix://",
                         "unix:///s?db=x",
                         "redis://[::1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rq_t *r = rq_create(bad[i], 0, err, sizeof err);
        if (r) fail_msg("'%s' accepted", bad[i]);
        assert_non_null(strstr(err, "not a Redis URL"));
    }
}

static void test_blocking_guard(void **state)
{
    char err[256], url[64];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d", closed_port());
    rq_t *r = rq_create(url, 2000, err, sizeof err);
    assert_non_null(r);
    /* 1500 ms of blocking needs more than 2000 ms of socket timeout: refused
     * before any I/O, so the context is never left unusable. */
    assert_null(rq_command_blocking(r, 1500, err, sizeof err, "BLMOVE a b LEFT RIGHT 1.5"));
    assert_non_null(strstr(err, "socket timeout"));
    rq_free(r);
}

static void test_rq_backoff(void **state)
{
    char err[256], url[64];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d", closed_port());
    rq_t *r = rq_create(url, 500, err, sizeof err);
    assert_int_equal(rq_ping(r, err, sizeof err), -1);
    assert_non_null(strstr(err, "refused"));
    /* The next call within the backoff does not even try. */
    assert_int_equal(rq_ping(r, err, sizeof err), -1);
    assert_non_null(strstr(err, "next attempt in"));
    rq_free(r);
}

static void test_db_backoff(void **state)
{
    char err[512], dsn[128];
    snprintf(dsn, sizeof dsn, "host=127.0.0.1 port=%d dbname=x user=x", closed_port());
    db_t *db = db_create(dsn, "unit");
    assert_int_equal(db_ping(db, err, sizeof err), -1);
    assert_true(db_unavailable(db));
    assert_non_null(strstr(err, "connect:"));
    assert_int_equal(db_ping(db, err, sizeof err), -1);
    assert_non_null(strstr(err, "next attempt in"));
    /* Waiting gives up at its deadline. */
    assert_int_equal(db_connect_wait(db, 300, NULL, err, sizeof err), -1);
    db_free(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_urls),
        cmocka_unit_test(test_blocking_guard),
        cmocka_unit_test(test_rq_backoff),
        cmocka_unit_test(test_db_backoff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
