/* Unit tests of services/common/msg.c: every message the services exchange
 * through Redis encodes and parses back to itself, the older completion
 * forms still parse, and malformed lines are refused rather than misread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "msg.h"

static void test_job_round_trip(void **state)
{
    (void)state;
    char m[MSG_JOB_MAX], tid[MSG_ID_MAX];
    int32_t job;
    int attempt;
    assert_true(msg_job_fmt(m, sizeof m, "t-1_A", 42, 3) > 0);
    assert_string_equal(m, "t-1_A 42 3");
    assert_int_equal(msg_job_parse(m, tid, sizeof tid, &job, &attempt), 0);
    assert_string_equal(tid, "t-1_A");
    assert_int_equal(job, 42);
    assert_int_equal(attempt, 3);
    /* the largest values */
    assert_true(msg_job_fmt(m, sizeof m, "x", INT32_MAX, INT32_MAX) > 0);
    assert_int_equal(msg_job_parse(m, tid, sizeof tid, &job, &attempt), 0);
    assert_int_equal(job, INT32_MAX);
    /* too small a buffer */
    assert_int_equal(msg_job_fmt(m, 5, "task", 1, 0), -1);
}

static void test_job_malformed(void **state)
{
    (void)state;
    char tid[MSG_ID_MAX];
    int32_t job;
    int attempt;
    static const char *const bad[] = {
        "",        "t",      "t 1",    "t 1 2 3", "t -1 0",  "t 1 -2",          " t 1 2",
        "t  1 2",  "t 1 2 ", "t 1x 2", "t 1 2x",  "t/x 1 2", "t 99999999999 0", "t 1 99999999999",
        "t 0x1 2",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(msg_job_parse(bad[i], tid, sizeof tid, &job, &attempt), -1);
    /* an id longer than the caller's buffer */
    assert_int_equal(msg_job_parse("abcdefgh 1 2", tid, 4, &job, &attempt), -1);
    char longid[100];
    memset(longid, 'a', 80);
    snprintf(longid + 80, 20, " 1 2");
    assert_int_equal(msg_job_parse(longid, tid, sizeof tid, &job, &attempt), -1);
}

static void test_done_ok(void **state)
{
    (void)state;
    msg_done_t d = {.job = 7,
                    .attempt = 1,
                    .kind = MSG_OK,
                    .nbytes = 8000000,
                    .slot = 2,
                    .t0 = 1700000000000,
                    .t1 = 1700000000123,
                    .inline_data = false};
    snprintf(d.tid, sizeof d.tid, "task");
    snprintf(d.worker, sizeof d.worker, "w1");
    char line[MSG_DONE_MAX];
    assert_true(msg_done_fmt(line, sizeof line, &d) > 0);
    assert_string_equal(line, "task 7 1 w1 ok 8000000 2 1700000000000 1700000000123 w");
    msg_done_t e;
    assert_int_equal(msg_done_parse(line, &e), 0);
    assert_string_equal(e.tid, "task");
    assert_string_equal(e.worker, "w1");
    assert_int_equal(e.kind, MSG_OK);
    assert_int_equal(e.job, 7);
    assert_int_equal(e.attempt, 1);
    assert_int_equal(e.nbytes, 8000000);
    assert_int_equal(e.slot, 2);
    assert_int_equal(e.t0, 1700000000000LL);
    assert_int_equal(e.t1, 1700000000123LL);
    assert_false(e.inline_data);
    d.inline_data = true;
    assert_true(msg_done_fmt(line, sizeof line, &d) > 0);
    assert_int_equal(msg_done_parse(line, &e), 0);
    assert_true(e.inline_data);
}

static void test_done_older_forms(void **state)
{
    (void)state;
    msg_done_t e;
    /* the first wave's workers: every output inline in Redis */
    assert_int_equal(msg_done_parse("t 3 0 w ok 64", &e), 0);
    assert_int_equal(e.nbytes, 64);
    assert_int_equal(e.slot, -1);
    assert_true(e.inline_data);
    assert_int_equal(msg_done_parse("t 3 0 w ok 64 1 10 20", &e), 0);
    assert_int_equal(e.slot, 1);
    assert_int_equal(e.t0, 10);
    assert_int_equal(e.t1, 20);
    assert_true(e.inline_data);
}

static void test_done_err_retry(void **state)
{
    (void)state;
    msg_done_t d = {.job = 0, .attempt = 0, .kind = MSG_ERR};
    snprintf(d.tid, sizeof d.tid, "t");
    snprintf(d.worker, sizeof d.worker, "w");
    snprintf(d.text, sizeof d.text, "node \"c\" (power): integers to\nnegative powers");
    char line[MSG_DONE_MAX];
    assert_true(msg_done_fmt(line, sizeof line, &d) > 0);
    /* newlines never split a completion */
    assert_null(strchr(line, '\n'));
    msg_done_t e;
    assert_int_equal(msg_done_parse(line, &e), 0);
    assert_int_equal(e.kind, MSG_ERR);
    assert_string_equal(e.text, "node \"c\" (power): integers to negative powers");
    d.kind = MSG_RETRY;
    snprintf(d.text, sizeof d.text, "worker memory limit: the job needs 1.0 GiB");
    assert_true(msg_done_fmt(line, sizeof line, &d) > 0);
    assert_int_equal(msg_done_parse(line, &e), 0);
    assert_int_equal(e.kind, MSG_RETRY);
    assert_string_equal(e.text, "worker memory limit: the job needs 1.0 GiB");
    /* an err without a message still parses, with an empty text */
    assert_int_equal(msg_done_parse("t 1 0 w err", &e), 0);
    assert_int_equal(e.kind, MSG_ERR);
    assert_string_equal(e.text, "");
}

static void test_done_malformed(void **state)
{
    (void)state;
    msg_done_t e;
    static const char *const bad[] = {
        "",
        "t 1 0 w",
        "t 1 0 w maybe 3",
        "t 1 0 w ok",
        "t 1 0 w ok x",
        "t 1 0 w ok -5",
        "t 1 0 w ok 5 1 10",
        "t 1 0 w ok 5 1 10 20 z",
        "t 1 0 w ok 5 1 10 20 w extra",
        "t x 0 w ok 5",
        "t 1 0 w/ ok 5",
        "t 1 0 w okay 5",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(msg_done_parse(bad[i], &e), -1);
}

static void test_chunk_keys(void **state)
{
    (void)state;
    char key[MSG_KEY_MAX], tid[MSG_ID_MAX];
    int32_t job;
    assert_true(msg_chunk_key(key, sizeof key, "abc", 12) > 0);
    assert_string_equal(key, "chunk:abc:12");
    assert_int_equal(msg_chunk_key_parse(key, tid, sizeof tid, &job), 0);
    assert_string_equal(tid, "abc");
    assert_int_equal(job, 12);
    /* uploads and other keys are not a task's chunks */
    assert_int_equal(msg_chunk_key_parse("chunk:up:u1:0", tid, sizeof tid, &job), -1);
    assert_int_equal(msg_chunk_key_parse("chunk:abc:", tid, sizeof tid, &job), -1);
    assert_int_equal(msg_chunk_key_parse("chunk:abc:1x", tid, sizeof tid, &job), -1);
    assert_int_equal(msg_chunk_key_parse("chunk::1", tid, sizeof tid, &job), -1);
    assert_int_equal(msg_chunk_key_parse("file:abc:1", tid, sizeof tid, &job), -1);
    assert_int_equal(msg_chunk_key_parse("chunk:abc:1#3", tid, sizeof tid, &job), -1);
    assert_true(msg_loc_inline(MSG_INLINE_LOC));
    assert_false(msg_loc_inline("w1"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_round_trip), cmocka_unit_test(test_job_malformed),
        cmocka_unit_test(test_done_ok),        cmocka_unit_test(test_done_older_forms),
        cmocka_unit_test(test_done_err_retry), cmocka_unit_test(test_done_malformed),
        cmocka_unit_test(test_chunk_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
