/* Unit tests of services/common/plan.c: the plan a supervisor writes is the
 * plan a worker reads back, both tile to the same jobs, session tensors keep
 * their exact (uneven) chunk bounds and keys, and malformed sources are
 * refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plan.h"

static const char SRC[] = "{\"shape\": [10, 4], \"dtype\": \"float64\","
                          " \"bounds\": [[0, 3, 10], [0, 4]],"
                          " \"chunk_keys\": [\"chunk:up:u1:0\", \"chunk:up:u1:1\"]}";

/* The supervisor's loader: the session holds "s" only. */
static int load(void *ctx, const char *key, plan_src_t *out)
{
    char err[256];
    int *calls = ctx;
    (*calls)++;
    if (strcmp(key, "s") != 0) return -1;
    json_error_t je;
    json_t *o = json_loads(SRC, 0, &je);
    int rc = plan_src_parse(o, out, err, sizeof err);
    json_decref(o);
    return rc;
}

static const char DOC[] =
    "{\"version\": 1, \"nodes\": ["
    "{\"key\": \"r\", \"op\": \"random.rand\", \"shape\": [10, 4], \"chunk_size\": 5, \"seed\": 3},"
    "{\"key\": \"y\", \"op\": \"add\", \"inputs\": [\"r\", \"s\"]},"
    "{\"key\": \"z\", \"op\": \"sum\", \"inputs\": [\"y\"], \"axis\": 0}],"
    " \"fetch\": [\"z\", \"y\"]}";

static void test_round_trip(void **state)
{
    (void)state;
    char err[512] = "";
    int calls = 0;
    plan_t sup;
    assert_int_equal(plan_init(&sup, "sup1", DOC, strlen(DOC)), 0);
    sup.load = load;
    sup.load_ctx = &calls;
    if (plan_tile(&sup, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(calls, 1);
    assert_int_equal(sup.n_src, 1);
    char *text = plan_dump(&sup);
    assert_non_null(text);
    assert_int_equal(strncmp(text, "{\"owner\":\"sup1\"", 15), 0); /* owner first */

    plan_t wk;
    if (plan_parse(&wk, text, strlen(text), err, sizeof err)) fail_msg("%s", err);
    assert_string_equal(wk.owner, "sup1");
    if (plan_tile(&wk, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(wk.t->n_jobs, sup.t->n_jobs);
    int sources = 0;
    for (int32_t j = 0; j < sup.t->n_jobs; j++) {
        const job_t *a = &sup.t->jobs[j], *b = &wk.t->jobs[j];
        assert_int_equal(a->kind, b->kind);
        assert_int_equal(a->node, b->node);
        assert_int_equal(sup.t->live[j], wk.t->live[j]);
        assert_int_equal(job_nbytes(a), job_nbytes(b));
        char ka[256], kb[256];
        plan_chunk_key(&sup, "t1", j, ka, sizeof ka);
        plan_chunk_key(&wk, "t1", j, kb, sizeof kb);
        assert_string_equal(ka, kb);
        if (a->kind == JK_SOURCE) {
            /* the uneven bounds: rows 0..3 and 3..10 */
            assert_int_equal(a->shape[0], a->source_index == 0 ? 3 : 7);
            char want[64];
            snprintf(want, sizeof want, "chunk:up:u1:%lld", (long long)a->source_index);
            assert_string_equal(ka, want);
            sources++;
        } else {
            char want[64];
            snprintf(want, sizeof want, "chunk:t1:%d", (int)j);
            assert_string_equal(ka, want);
        }
    }
    assert_int_equal(sources, 2);
    free(text);
    plan_close(&wk);
    plan_close(&sup);
}

static void test_unknown_input(void **state)
{
    (void)state;
    static const char doc[] = "{\"version\": 1, \"nodes\": [{\"key\": \"y\", \"op\": \"negative\","
                              " \"inputs\": [\"nope\"]}], \"fetch\": [\"y\"]}";
    char err[512] = "";
    int calls = 0;
    plan_t p;
    assert_int_equal(plan_init(&p, "sup1", doc, strlen(doc)), 0);
    p.load = load;
    p.load_ctx = &calls;
    assert_int_equal(plan_tile(&p, err, sizeof err), -1);
    if (!strstr(err, "nope")) fail_msg("message does not name the input: %s", err);
    plan_close(&p);
}

static void test_bad_sources(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "{\"shape\": [10], \"dtype\": \"float64\", \"bounds\": [[0, 5, 9]], \"chunk_keys\": "
        "[\"a\", \"b\"]}",
        "{\"shape\": [10], \"dtype\": \"float64\", \"bounds\": [[0, 6, 4, 10]], \"chunk_keys\": "
        "[\"a\", \"b\", \"c\"]}",
        "{\"shape\": [10], \"dtype\": \"float64\", \"bounds\": [[0, 5, 10]], \"chunk_keys\": "
        "[\"a\"]}",
        "{\"shape\": [10], \"dtype\": \"complex\", \"bounds\": [[0, 10]], \"chunk_keys\": [\"a\"]}",
        "{\"shape\": [10, 2], \"dtype\": \"int32\", \"bounds\": [[0, 10]], \"chunk_keys\": "
        "[\"a\"]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[256] = "";
        json_error_t je;
        json_t *o = json_loads(bad[i], 0, &je);
        assert_non_null(o);
        plan_src_t s = {.key = "x"};
        if (plan_src_parse(o, &s, err, sizeof err) != -1) fail_msg("accepted %s", bad[i]);
        if (!strstr(err, "\"x\"")) fail_msg("message does not name the tensor: %s", err);
        json_decref(o);
    }
    char err[256];
    plan_t p;
    assert_int_equal(plan_parse(&p, "{\"doc\": {}}", 11, err, sizeof err), -1);
    assert_int_equal(plan_parse(&p, "not json", 8, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_unknown_input),
        cmocka_unit_test(test_bad_sources),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
