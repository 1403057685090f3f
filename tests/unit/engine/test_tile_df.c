/* test_tile_df.c: DataFrame nodes through tile_build and the executor:
 * the frame grid (one chunk per entry, row offsets when known), blob jobs
 * (job_nbytes 0, sizes from the kernels), the from_tensor + reduction
 * shortcut (the map reads the tensor; from_tensor's own jobs never run),
 * the groupby plan choice, and exec_job_any running one job alone as a
 * worker does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "df/dfexec.h"
#include "df/dfgraph.h"
#include "exec.h"
#include "graph.h"
#include "tile.h"

typedef struct {
    graph_t *g;
    tile_t *t;
    exec_result_t *r;
} run_t;

static void run_doc(run_t *x, const char *doc)
{
    char err[512];
    graph_limits_t lim;
    graph_limits_default(&lim);
    if (graph_parse(doc, strlen(doc), &lim, NULL, &x->g, err, sizeof err))
        fail_msg("parse: %s", err);
    if (tile_build(x->g, &lim, NULL, &x->t, err, sizeof err)) fail_msg("tile: %s", err);
    exec_opts_t o = {.threads = 2};
    if (exec_run(x->t, &o, &x->r, err, sizeof err)) fail_msg("run: %s", err);
}

static void done(run_t *x)
{
    exec_result_free(x->r);
    tile_free(x->t);
    graph_free(x->g);
}

/* The value of frame node `key`. */
static void value(run_t *x, const char *key, frame_t *f)
{
    int node = graph_find(x->g, key);
    assert_true(node >= 0);
    const tgrid_t *G = x->t->grid[node];
    const void *b[64];
    size_t l[64];
    assert_true(G->total <= 64);
    for (int64_t k = 0; k < G->total; k++) {
        b[k] = exec_result_chunk(x->r, G->job[k]);
        l[k] = exec_result_chunk_len(x->r, G->job[k]);
    }
    char err[256];
    assert_int_equal(dfx_assemble(b, l, G->total, f, err, sizeof err), 0);
}

static const char *DOC =
    "{\"version\":1,\"nodes\":["
    "{\"key\":\"a\",\"op\":\"arange\",\"stop\":20,\"chunk_size\":6},"
    "{\"key\":\"b\",\"op\":\"reshape\",\"inputs\":[\"a\"],\"newshape\":[10,2]},"
    "{\"key\":\"df\",\"op\":\"dataframe.from_tensor\",\"inputs\":[\"b\"],\"columns\":[\"x\",\"y\"],"
    "\"chunk_rows\":3},"
    "{\"key\":\"s\",\"op\":\"dataframe.sum\",\"inputs\":[\"df\"]},"
    "{\"key\":\"d2\",\"op\":\"dataframe.from_tensor\",\"inputs\":[\"b\"],\"columns\":[\"x\",\"y\"],"
    "\"chunk_rows\":4},"
    "{\"key\":\"x\",\"op\":\"dataframe.getitem\",\"inputs\":[\"d2\"],\"columns\":\"x\"},"
    "{\"key\":\"m\",\"op\":\"greater\",\"inputs\":[\"x\",7]},"
    "{\"key\":\"f\",\"op\":\"dataframe.filter\",\"inputs\":[\"d2\",\"m\"]},"
    "{\"key\":\"h\",\"op\":\"dataframe.head\",\"inputs\":[\"d2\"],\"n\":5},"
    "{\"key\":\"mx\",\"op\":\"dataframe.max\",\"inputs\":[\"x\"]}],"
    "\"fetch\":[\"s\",\"f\",\"h\",\"mx\"]}";

static void test_grid_and_values(void **state)
{
    (void)state;
    run_t x;
    run_doc(&x, DOC);
    /* d2: 4-row chunks over 10 rows, offsets known */
    const tgrid_t *G = x.t->grid[graph_find(x.g, "d2")];
    assert_int_equal(G->nchunks[0], 3);
    assert_int_equal(G->bounds[0][1], 4);
    assert_int_equal(G->bounds[0][3], 10);
    assert_true(x.t->jobs[G->job[0]].blob);
    assert_int_equal(job_nbytes(&x.t->jobs[G->job[0]]), 0);
    /* after a filter the row counts are unknown */
    assert_int_equal(x.t->grid[graph_find(x.g, "f")]->bounds[0][0], -1);
    /* df feeds only the sum: its own jobs never run */
    const tgrid_t *D = x.t->grid[graph_find(x.g, "df")];
    for (int64_t k = 0; k < D->total; k++)
        assert_false(x.t->live[D->job[k]]);
    /* head 5 of 4-row chunks: the first chunk as it is, and one cut */
    const tgrid_t *H = x.t->grid[graph_find(x.g, "h")];
    assert_int_equal(H->nchunks[0], 2);
    assert_int_equal(H->job[0], G->job[0]);

    frame_t f;
    value(&x, "s", &f);
    assert_true(f.series);
    assert_int_equal(f.nrows, 2);
    assert_int_equal(f.cols[0].type, FT_INT64);
    assert_int_equal(((int64_t *)f.cols[0].data)[0], 90);  /* 0+2+...+18 */
    assert_int_equal(((int64_t *)f.cols[0].data)[1], 100); /* 1+3+...+19 */
    frame_free(&f);
    value(&x, "f", &f);
    assert_int_equal(f.nrows, 6); /* x in 8..18 */
    assert_int_equal(((int64_t *)f.idx[0].data)[0], 4);
    frame_free(&f);
    value(&x, "h", &f);
    assert_int_equal(f.nrows, 5);
    assert_int_equal(((int64_t *)f.idx[0].data)[4], 4);
    frame_free(&f);
    int mx = graph_find(x.g, "mx");
    const tgrid_t *M = x.t->grid[mx];
    assert_int_equal(M->shape.ndim, 0);
    assert_int_equal(*(const int64_t *)exec_result_chunk(x.r, M->job[0]), 18);
    done(&x);
}

typedef struct {
    const tile_t *t;
    void **out;
    size_t *len;
} store_t;

static const void *store_get(void *ctx, int32_t j, size_t *len)
{
    store_t *s = ctx;
    *len = s->len[j];
    return s->out[j];
}

/* Every live job run alone in index order, as workers do. */
static void test_exec_job_any(void **state)
{
    (void)state;
    run_t x;
    char err[512];
    graph_limits_t lim;
    graph_limits_default(&lim);
    assert_int_equal(graph_parse(DOC, strlen(DOC), &lim, NULL, &x.g, err, sizeof err), 0);
    assert_int_equal(tile_build(x.g, &lim, NULL, &x.t, err, sizeof err), 0);
    int32_t n = x.t->n_jobs;
    store_t s = {x.t, calloc((size_t)n, sizeof(void *)), calloc((size_t)n, sizeof(size_t))};
    for (int32_t j = 0; j < n; j++) {
        if (!x.t->live[j]) continue;
        const job_t *jb = &x.t->jobs[j];
        void *fixed = malloc(job_nbytes(jb) + 1), *blob;
        size_t bl;
        assert_int_equal(exec_job_any(x.t, j, store_get, &s, fixed, &blob, &bl, err, sizeof err),
                         0);
        if (jb->blob) {
            free(fixed);
            s.out[j] = blob;
            s.len[j] = bl;
        } else {
            assert_null(blob);
            s.out[j] = fixed;
            s.len[j] = job_nbytes(jb);
        }
    }
    const tgrid_t *M = x.t->grid[graph_find(x.g, "mx")];
    assert_int_equal(*(const int64_t *)s.out[M->job[0]], 18);
    for (int32_t j = 0; j < n; j++)
        free(s.out[j]);
    free(s.out);
    free(s.len);
    tile_free(x.t);
    graph_free(x.g);
}

static void test_groupby_plans(void **state)
{
    (void)state;
    /* 12 chunks after a filter (rows unknown): the hash shuffle */
    const char *doc =
        "{\"version\":1,\"nodes\":["
        "{\"key\":\"a\",\"op\":\"arange\",\"stop\":240},"
        "{\"key\":\"b\",\"op\":\"reshape\",\"inputs\":[\"a\"],\"newshape\":[120,2]},"
        "{\"key\":\"df\",\"op\":\"dataframe.from_tensor\",\"inputs\":[\"b\"],"
        "\"columns\":[\"k\",\"v\"],\"chunk_rows\":10},"
        "{\"key\":\"kk\",\"op\":\"dataframe.getitem\",\"inputs\":[\"df\"],\"columns\":\"k\"},"
        "{\"key\":\"km\",\"op\":\"mod\",\"inputs\":[\"kk\",5]},"
        "{\"key\":\"d3\",\"op\":\"dataframe.assign\",\"inputs\":[\"df\",\"km\"],\"names\":[\"k\"]},"
        "{\"key\":\"m\",\"op\":\"greater\",\"inputs\":[\"kk\",-1]},"
        "{\"key\":\"f\",\"op\":\"dataframe.filter\",\"inputs\":[\"d3\",\"m\"]},"
        "{\"key\":\"g\",\"op\":\"dataframe.groupby_agg\",\"inputs\":[\"f\"],\"by\":[\"k\"],"
        "\"agg\":{\"n\":[\"v\",\"count\"]}},"
        "{\"key\":\"g2\",\"op\":\"dataframe.groupby_agg\",\"inputs\":[\"d3\"],\"by\":[\"k\"],"
        "\"agg\":{\"n\":[\"v\",\"count\"]}}],"
        "\"fetch\":[\"g\",\"g2\"]}";
    run_t x;
    run_doc(&x, doc);
    bool shuffle = false, shuffle2 = false;
    int g = graph_find(x.g, "g"), g2 = graph_find(x.g, "g2");
    for (int32_t j = 0; j < x.t->n_jobs; j++) {
        if (x.t->jobs[j].kind != JK_DF || x.t->jobs[j].param->dfk != DFJ_HASH_PART) continue;
        shuffle |= x.t->jobs[j].node == g;
        shuffle2 |= x.t->jobs[j].node == g2;
    }
    assert_true(shuffle);
    assert_false(shuffle2); /* 120 known rows: the combine tree */
    for (int q = 0; q < 2; q++) {
        frame_t f;
        value(&x, q ? "g2" : "g", &f);
        assert_int_equal(f.nrows, 5);
        for (int i = 0; i < 5; i++) {
            assert_int_equal(((int64_t *)f.idx[0].data)[i], i); /* keys 2r mod 5, sorted */
            assert_int_equal(((int64_t *)f.cols[0].data)[i], 24);
        }
        frame_free(&f);
    }
    done(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_and_values),
        cmocka_unit_test(test_exec_job_any),
        cmocka_unit_test(test_groupby_plans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
