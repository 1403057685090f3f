/* Unit tests of the tiler and the in-process executor: the structure of
 * chunk graphs (fusion, symmetric products, reduction trees, reuse of
 * aligned chunks) and values of small graphs computed end to end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "graph.h"
#include "tile.h"

typedef struct {
    graph_t *g;
    tile_t *t;
    exec_result_t *r;
} run_t;

static void tile_doc(run_t *x, const char *doc)
{
    graph_limits_t lim;
    graph_limits_default(&lim);
    char err[512] = "";
    memset(x, 0, sizeof(*x));
    if (graph_parse(doc, strlen(doc), &lim, NULL, &x->g, err, sizeof err))
        fail_msg("graph_parse: %s", err);
    if (tile_build(x->g, &lim, NULL, &x->t, err, sizeof err)) fail_msg("tile_build: %s", err);
}

static void run_doc(run_t *x, const char *doc, int threads)
{
    tile_doc(x, doc);
    char err[512] = "";
    exec_opts_t o = {.threads = threads};
    if (exec_run(x->t, &o, &x->r, err, sizeof err)) fail_msg("exec_run: %s", err);
}

static void done(run_t *x)
{
    exec_result_free(x->r);
    tile_free(x->t);
    graph_free(x->g);
}

static int count_kind(const tile_t *t, job_kind_t k, bool live_only)
{
    int n = 0;
    for (int32_t j = 0; j < t->n_jobs; j++)
        if (t->jobs[j].kind == k && (!live_only || t->live[j])) n++;
    return n;
}

/* Copies tensor `key` out of its chunks into a dense C-order buffer. */
static void fetch_f64(run_t *x, const char *key, double *out, int64_t n_expect)
{
    int node = graph_find(x->g, key);
    assert_true(node >= 0);
    const tgrid_t *G = x->t->grid[node];
    assert_int_equal(G->dt, DT_FLOAT64);
    assert_int_equal(shape_size(&G->shape), n_expect);
    int nd = G->shape.ndim;
    int64_t gst[MR_MAXDIM], s = 1;
    for (int d = nd - 1; d >= 0; d--) {
        gst[d] = s;
        s *= G->shape.d[d];
    }
    for (int64_t li = 0; li < G->total; li++) {
        int64_t co[MR_MAXDIM], rem = li, cnt[MR_MAXDIM], cst[MR_MAXDIM], off = 0, cs = 1;
        for (int d = nd - 1; d >= 0; d--) {
            co[d] = rem % G->nchunks[d];
            rem /= G->nchunks[d];
        }
        for (int d = nd - 1; d >= 0; d--) {
            cnt[d] = G->bounds[d][co[d] + 1] - G->bounds[d][co[d]];
            cst[d] = cs;
            cs *= cnt[d];
            off += G->bounds[d][co[d]] * gst[d];
        }
        const double *src = exec_result_chunk(x->r, G->job[li]);
        assert_non_null(src);
        for (int64_t e = 0; e < cs; e++) {
            int64_t r = e, dst = off;
            for (int d = nd - 1; d >= 0; d--) {
                dst += (r % cnt[d]) * gst[d];
                r /= cnt[d];
            }
            (void)cst;
            out[dst] = src[e];
        }
    }
}

static void test_seed_inner_is_symmetric(void **state)
{
    (void)state;
    run_t x;
    tile_doc(&x, "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"ones\",\"shape\":[2000,2000],"
                 "\"chunk_size\":200},{\"key\":\"b\",\"op\":\"inner\",\"inputs\":[\"a\",\"a\"]}],"
                 "\"fetch\":[\"b\"]}");
    /* 10 x 10 output blocks: 10 diagonal syrk, 45 upper products, 45 mirrored
     * copies; the products generate the `ones` blocks they read (none stored) */
    assert_int_equal(count_kind(x.t, JK_CREATE, true), 0);
    assert_int_equal(count_kind(x.t, JK_SYRK, true), 10);
    assert_int_equal(count_kind(x.t, JK_TENSORDOT, true), 45);
    assert_int_equal(count_kind(x.t, JK_GATHER, true), 45);
    done(&x);
}

static void test_dot_transpose_not_materialised(void **state)
{
    (void)state;
    run_t x;
    run_doc(&x,
            "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"arange\",\"stop\":12},"
            "{\"key\":\"m\",\"op\":\"reshape\",\"inputs\":[\"f\"],\"newshape\":[3,4]},"
            "{\"key\":\"f\",\"op\":\"astype\",\"inputs\":[\"a\"],\"dtype\":\"float64\"},"
            "{\"key\":\"t\",\"op\":\"transpose\",\"inputs\":[\"m\"]},"
            "{\"key\":\"p\",\"op\":\"dot\",\"inputs\":[\"m\",\"t\"]}],\"fetch\":[\"p\"]}",
            2);
    int tn = graph_find(x.g, "t");
    assert_null(x.t->grid[tn]); /* folded into the product */
    double p[9];
    fetch_f64(&x, "p", p, 9);
    /* m = [[0..3],[4..7],[8..11]]; (m m^T)[i][j] = sum_k m[i][k] m[j][k] */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double want = 0;
            for (int k = 0; k < 4; k++)
                want += (4 * i + k) * (4 * j + k);
            assert_true(fabs(p[3 * i + j] - want) < 1e-9);
        }
    done(&x);
}

static void test_elementwise_chain_fuses(void **state)
{
    (void)state;
    run_t x;
    run_doc(&x,
            "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"ones\",\"shape\":[10,10],"
            "\"chunk_size\":[3,4]},{\"key\":\"b\",\"op\":\"multiply\",\"inputs\":[\"a\",2]},"
            "{\"key\":\"c\",\"op\":\"add\",\"inputs\":[\"b\",1]},"
            "{\"key\":\"d\",\"op\":\"sqrt\",\"inputs\":[\"c\"]}],\"fetch\":[\"d\"]}",
            1);
    /* one program per chunk: 4 x 3 chunks, no job for b or c */
    assert_int_equal(count_kind(x.t, JK_EW, true), 12);
    assert_null(x.t->grid[graph_find(x.g, "b")]);
    double d[100];
    fetch_f64(&x, "d", d, 100);
    for (int i = 0; i < 100; i++)
        assert_true(fabs(d[i] - sqrt(3.0)) < 1e-15);
    done(&x);
}

static void test_fetched_intermediate_not_fused(void **state)
{
    (void)state;
    run_t x;
    tile_doc(&x, "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"ones\",\"shape\":[8],"
                 "\"chunk_size\":4},{\"key\":\"b\",\"op\":\"multiply\",\"inputs\":[\"a\",2]},"
                 "{\"key\":\"c\",\"op\":\"add\",\"inputs\":[\"b\",1]}],\"fetch\":[\"b\",\"c\"]}");
    assert_non_null(x.t->grid[graph_find(x.g, "b")]);
    assert_int_equal(count_kind(x.t, JK_EW, true), 4);
    done(&x);
}

static void test_reduction_tree_and_value(void **state)
{
    (void)state;
    run_t x;
    run_doc(&x,
            "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"ones\",\"shape\":[400,400],"
            "\"chunk_size\":10},{\"key\":\"b\",\"op\":\"add\",\"inputs\":[\"a\",1]},"
            "{\"key\":\"s\",\"op\":\"sum\",\"inputs\":[\"b\"]}],\"fetch\":[\"s\"]}",
            2);
    /* 1600 regions of 800 bytes, fused with the add, eight a map job;
     * combines of at most 8 partials */
    assert_int_equal(count_kind(x.t, JK_RED_MAP, true), 200);
    for (int32_t j = 0; j < x.t->n_jobs; j++)
        if (x.t->jobs[j].kind == JK_RED_MAP) assert_int_equal(x.t->jobs[j].n_regions, 8);
    assert_int_equal(count_kind(x.t, JK_EW, true), 0);
    assert_int_equal(count_kind(x.t, JK_RED_FINAL, true), 1);
    for (int32_t j = 0; j < x.t->n_jobs; j++)
        assert_true(x.t->jobs[j].n_in <= 8 || x.t->jobs[j].kind != JK_RED_COMBINE);
    double s;
    fetch_f64(&x, "s", &s, 1);
    assert_true(fabs(s - 320000.0) < 1e-9);
    done(&x);
}

/* A random leaf that only feeds an element-wise chain and a reduction is
 * generated inside the map jobs (never stored), and gives the same values as
 * when it is fetched and so materialised. */
static void test_random_leaf_generated_in_consumer(void **state)
{
    (void)state;
    const char *gen = "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"random.rand\","
                      "\"shape\":[30,20],\"chunk_size\":[7,6],\"seed\":9},"
                      "{\"key\":\"b\",\"op\":\"multiply\",\"inputs\":[\"a\",2]},"
                      "{\"key\":\"s\",\"op\":\"sum\",\"inputs\":[\"b\"],\"axis\":0}],"
                      "\"fetch\":[\"s\"]}";
    const char *mat = "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"random.rand\","
                      "\"shape\":[30,20],\"chunk_size\":[7,6],\"seed\":9},"
                      "{\"key\":\"b\",\"op\":\"multiply\",\"inputs\":[\"a\",2]},"
                      "{\"key\":\"s\",\"op\":\"sum\",\"inputs\":[\"b\"],\"axis\":0}],"
                      "\"fetch\":[\"s\",\"a\"]}";
    run_t x, y;
    run_doc(&x, gen, 2);
    run_doc(&y, mat, 2);
    assert_int_equal(count_kind(x.t, JK_RANDOM, true), 0);
    assert_int_equal(count_kind(y.t, JK_RANDOM, true), 20);
    double sx[20], sy[20], a[600];
    fetch_f64(&x, "s", sx, 20);
    fetch_f64(&y, "s", sy, 20);
    assert_memory_equal(sx, sy, sizeof sx);
    /* and the sums are those of the materialised values */
    fetch_f64(&y, "a", a, 600);
    for (int j = 0; j < 20; j++) {
        double want = 0;
        for (int i = 0; i < 30; i++)
            want += 2 * a[i * 20 + j];
        assert_true(fabs(sx[j] - want) < 1e-12);
    }
    done(&x);
    done(&y);
}

/* Runs doc twice, the second time also fetching `extra` (so its chunks are
 * stored and read), and checks `key` comes out byte for byte the same. */
static void same_as_stored(const char *nodes, const char *key, const char *extra, int64_t n,
                           run_t *gen_run)
{
    char a[4096], b[4096];
    snprintf(a, sizeof a, "{\"version\":1,\"nodes\":[%s],\"fetch\":[\"%s\"]}", nodes, key);
    snprintf(b, sizeof b, "{\"version\":1,\"nodes\":[%s],\"fetch\":[\"%s\",\"%s\"]}", nodes, key,
             extra);
    run_t y;
    run_doc(gen_run, a, 2);
    run_doc(&y, b, 2);
    double *va = malloc(sizeof(double) * (size_t)n), *vb = malloc(sizeof(double) * (size_t)n);
    assert_non_null(va);
    assert_non_null(vb);
    fetch_f64(gen_run, key, va, n);
    fetch_f64(&y, key, vb, n);
    assert_memory_equal(va, vb, sizeof(double) * (size_t)n);
    free(va);
    free(vb);
    done(&y);
}

static void test_creation_generated_in_every_reader(void **state)
{
    (void)state;
    run_t x;
    /* arange read by a transpose, a reversed strided slice, a reshape and a
     * product: no arange chunk is stored, and the values are exact */
    run_doc(&x,
            "{\"version\":1,\"nodes\":["
            "{\"key\":\"a\",\"op\":\"arange\",\"stop\":63,\"dtype\":\"float64\",\"chunk_size\":10},"
            "{\"key\":\"m\",\"op\":\"reshape\",\"inputs\":[\"a\"],\"newshape\":[7,9]},"
            "{\"key\":\"r\",\"op\":\"rechunk\",\"inputs\":[\"m\"],\"chunk_size\":[3,4]},"
            "{\"key\":\"t\",\"op\":\"transpose\",\"inputs\":[\"r\"]},"
            "{\"key\":\"s\",\"op\":\"getitem\",\"inputs\":[\"a\"],"
            "\"index\":[\"60:2:-7\"]},"
            "{\"key\":\"e\",\"op\":\"eye\",\"N\":9,\"chunk_size\":4},"
            "{\"key\":\"p\",\"op\":\"dot\",\"inputs\":[\"r\",\"e\"]}],"
            "\"fetch\":[\"t\",\"s\",\"p\"]}",
            2);
    assert_int_equal(count_kind(x.t, JK_CREATE, true), 0);
    double t[63], s[9], p[63];
    fetch_f64(&x, "t", t, 63);
    fetch_f64(&x, "s", s, 9);
    fetch_f64(&x, "p", p, 63);
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 9; j++) {
            assert_true(t[j * 7 + i] == i * 9 + j);
            assert_true(p[i * 9 + j] == i * 9 + j);
        }
    for (int k = 0; k < 9; k++)
        assert_true(s[k] == 60 - 7 * k);
    done(&x);
}

static void test_size1_reshape_of_creation(void **state)
{
    (void)state;
    run_t x;
    /* only size-1 axes differ: an alias of each chunk, which becomes a gather
     * generating it */
    run_doc(&x,
            "{\"version\":1,\"nodes\":["
            "{\"key\":\"a\",\"op\":\"linspace\",\"start\":0,\"stop\":1,\"num\":11,"
            "\"chunk_size\":4},"
            "{\"key\":\"b\",\"op\":\"expand_dims\",\"inputs\":[\"a\"],\"axis\":0}],"
            "\"fetch\":[\"b\"]}",
            2);
    assert_int_equal(count_kind(x.t, JK_CREATE, true), 0);
    assert_int_equal(count_kind(x.t, JK_ALIAS, true), 0);
    double b[11];
    fetch_f64(&x, "b", b, 11);
    for (int k = 0; k < 11; k++)
        assert_true(fabs(b[k] - k / 10.0) < 1e-15);
    done(&x);
}

/* W8's shape in small, uneven chunks: rand -> transpose -> rechunk -> sum */
static const char *const W8_SMALL =
    "{\"key\":\"r\",\"op\":\"random.rand\",\"shape\":[23,17],\"chunk_size\":[5,4],\"seed\":3},"
    "{\"key\":\"t\",\"op\":\"transpose\",\"inputs\":[\"r\"]},"
    "{\"key\":\"c\",\"op\":\"rechunk\",\"inputs\":[\"t\"],\"chunk_size\":[3,11]},"
    "{\"key\":\"s\",\"op\":\"sum\",\"inputs\":[\"c\"],\"axis\":0}";

static void test_random_generated_in_its_one_reader(void **state)
{
    (void)state;
    run_t x;
    /* each random chunk is read in parts by the sum's map jobs (the
     * transpose and rechunk read through): none stored */
    same_as_stored(W8_SMALL, "s", "r", 23, &x);
    assert_int_equal(count_kind(x.t, JK_RANDOM, true), 0);
    done(&x);
    /* a product reading each chunk of b once (outer: one block pair a job) */
    const char *nodes =
        "{\"key\":\"a\",\"op\":\"random.randn\",\"shape\":[13],\"chunk_size\":5,\"seed\":4},"
        "{\"key\":\"b\",\"op\":\"random.rand\",\"shape\":[13,6],\"chunk_size\":[5,6],"
        "\"seed\":5},"
        "{\"key\":\"p\",\"op\":\"dot\",\"inputs\":[\"b\",\"w\"]},"
        "{\"key\":\"w\",\"op\":\"ones\",\"shape\":[6,2]}";
    same_as_stored(nodes, "p", "b", 26, &x);
    assert_int_equal(count_kind(x.t, JK_RANDOM, true), 0);
    done(&x);
}

static void test_random_with_two_readers_stored(void **state)
{
    (void)state;
    run_t x;
    /* every chunk of r read by a transpose gather and by dot's block products
     * (two jobs): stored once, not generated twice */
    run_doc(&x,
            "{\"version\":1,\"nodes\":["
            "{\"key\":\"r\",\"op\":\"random.rand\",\"shape\":[8,8],\"chunk_size\":4,\"seed\":1},"
            "{\"key\":\"t\",\"op\":\"transpose\",\"inputs\":[\"r\"]},"
            "{\"key\":\"p\",\"op\":\"matmul\",\"inputs\":[\"t\",\"r\"]}],\"fetch\":[\"p\"]}",
            2);
    assert_int_equal(count_kind(x.t, JK_RANDOM, true), 4);
    done(&x);
}

static void test_gathers_read_through(void **state)
{
    (void)state;
    run_t x;
    /* W8 in small, uneven chunks: the rechunk's boxes read the random
     * chunks straight through the transpose (fuse_gather.c), whose chunks
     * never run; each random chunk, read in parts, is generated in them */
    same_as_stored(W8_SMALL, "s", "t", 23, &x);
    assert_int_equal(count_kind(x.t, JK_RANDOM, true), 0);
    /* no live gather: the sum's map jobs assemble the rechunk's chunks (its
     * one reader each), out of the boxes of the random chunks they read */
    assert_int_equal(count_kind(x.t, JK_GATHER, true), 0);
    done(&x);
    /* a contiguous slice of a rechunk of a transpose of a creation: a chain
     * of gathers read through; a reversed slice keeps its gather */
    const char *nodes =
        "{\"key\":\"a\",\"op\":\"arange\",\"start\":0,\"stop\":391,\"chunk_size\":7,\"dtype\":"
        "\"float64\"},"
        "{\"key\":\"m\",\"op\":\"reshape\",\"inputs\":[\"a\"],\"newshape\":[23,17]},"
        "{\"key\":\"t\",\"op\":\"transpose\",\"inputs\":[\"m\"]},"
        "{\"key\":\"c\",\"op\":\"rechunk\",\"inputs\":[\"t\"],\"chunk_size\":[6,5]},"
        "{\"key\":\"g\",\"op\":\"getitem\",\"inputs\":[\"c\"],"
        "\"index\":[\"2:15\",\"20:1:-1\"]},"
        "{\"key\":\"s\",\"op\":\"sum\",\"inputs\":[\"g\"],\"axis\":1}";
    same_as_stored(nodes, "s", "c", 13, &x);
    done(&x);
}

static void test_like_keeps_input_chunks(void **state)
{
    (void)state;
    run_t x;
    run_doc(&x,
            "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"arange\",\"stop\":10,"
            "\"chunk_size\":3,\"dtype\":\"float64\"},"
            "{\"key\":\"o\",\"op\":\"full_like\",\"inputs\":[\"a\"],\"fill_value\":2.5}],"
            "\"fetch\":[\"o\"]}",
            2);
    int on = graph_find(x.g, "o"), an = graph_find(x.g, "a");
    assert_int_equal(x.t->grid[on]->nchunks[0], 4);
    assert_memory_equal(x.t->grid[on]->bounds[0], x.t->grid[an]->bounds[0], 5 * sizeof(int64_t));
    /* the input's values are never computed */
    for (int64_t k = 0; k < x.t->grid[an]->total; k++)
        assert_false(x.t->live[x.t->grid[an]->job[k]]);
    double o[10];
    fetch_f64(&x, "o", o, 10);
    for (int i = 0; i < 10; i++)
        assert_true(o[i] == 2.5);
    done(&x);
}

static void test_rechunk_reuses_aligned_chunks(void **state)
{
    (void)state;
    run_t x;
    tile_doc(&x, "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"zeros\",\"shape\":[12],"
                 "\"chunk_size\":4},{\"key\":\"b\",\"op\":\"rechunk\",\"inputs\":[\"a\"],"
                 "\"chunk_size\":8}],\"fetch\":[\"b\"]}");
    /* [0,8) is gathered from two chunks (generated in the gather: zeros are
     * never stored for a reader); [8,12) is a's last chunk itself */
    int bn = graph_find(x.g, "b"), an = graph_find(x.g, "a");
    assert_int_equal(x.t->grid[bn]->total, 2);
    assert_int_equal(x.t->grid[bn]->job[1], x.t->grid[an]->job[2]);
    assert_int_equal(x.t->jobs[x.t->grid[bn]->job[0]].kind, JK_GATHER);
    assert_int_equal(x.t->jobs[x.t->grid[bn]->job[0]].in[0].n_pieces, 0);
    assert_int_equal(x.t->jobs[x.t->grid[bn]->job[0]].in[0].n_gpieces, 2);
    assert_true(x.t->live[x.t->grid[bn]->job[1]]); /* fetched: stored */
    assert_false(x.t->live[x.t->grid[an]->job[0]]);
    done(&x);
}

static void test_unfetched_branch_not_run(void **state)
{
    (void)state;
    run_t x;
    tile_doc(&x, "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"ones\",\"shape\":[4],"
                 "\"chunk_size\":2},{\"key\":\"b\",\"op\":\"exp\",\"inputs\":[\"a\"]},"
                 "{\"key\":\"c\",\"op\":\"sum\",\"inputs\":[\"a\"]}],\"fetch\":[\"c\"]}");
    int bn = graph_find(x.g, "b");
    for (int64_t k = 0; k < x.t->grid[bn]->total; k++)
        assert_false(x.t->live[x.t->grid[bn]->job[k]]);
    done(&x);
}

static void test_reshape_and_transpose_values(void **state)
{
    (void)state;
    run_t x;
    run_doc(&x,
            "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"arange\",\"stop\":24,"
            "\"dtype\":\"float64\"},{\"key\":\"r\",\"op\":\"rechunk\",\"inputs\":[\"a\"],"
            "\"chunk_size\":5},{\"key\":\"m\",\"op\":\"reshape\",\"inputs\":[\"r\"],"
            "\"newshape\":[2,3,4]},{\"key\":\"t\",\"op\":\"transpose\",\"inputs\":[\"m\"],"
            "\"axes\":[2,0,1]},{\"key\":\"g\",\"op\":\"getitem\",\"inputs\":[\"t\"],"
            "\"index\":[\"::-1\",1]}],\"fetch\":[\"m\",\"t\",\"g\"]}",
            2);
    double m[24], t[24], g[12];
    fetch_f64(&x, "m", m, 24);
    for (int i = 0; i < 24; i++)
        assert_true(m[i] == i);
    fetch_f64(&x, "t", t, 24);
    /* t[k][i][j] = m[i][j][k] = 12i + 4j + k; t has shape (4, 2, 3) */
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++)
                assert_true(t[k * 6 + i * 3 + j] == 12 * i + 4 * j + k);
    /* g = t[::-1, 1] has shape (4, 3): g[q][j] = t[3-q][1][j] */
    fetch_f64(&x, "g", g, 12);
    for (int q = 0; q < 4; q++)
        for (int j = 0; j < 3; j++)
            assert_true(g[q * 3 + j] == 12 + 4 * j + (3 - q));
    done(&x);
}

static void test_threads_agree(void **state)
{
    (void)state;
    const char *doc =
        "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"random.rand\",\"shape\":[50,30],"
        "\"chunk_size\":[7,11],\"seed\":5},{\"key\":\"b\",\"op\":\"cumsum\",\"inputs\":[\"a\"],"
        "\"axis\":0},{\"key\":\"c\",\"op\":\"matmul\",\"inputs\":[\"b\",\"t\"]},"
        "{\"key\":\"t\",\"op\":\"transpose\",\"inputs\":[\"a\"]}],\"fetch\":[\"c\",\"b\"]}";
    run_t x1, x4;
    run_doc(&x1, doc, 1);
    run_doc(&x4, doc, 4);
    static double c1[2500], c4[2500], b1[1500];
    fetch_f64(&x1, "c", c1, 2500);
    fetch_f64(&x4, "c", c4, 2500);
    assert_memory_equal(c1, c4, sizeof c1);
    /* cumsum along axis 0 across chunks of 7 rows: each column is non-decreasing */
    fetch_f64(&x1, "b", b1, 1500);
    for (int i = 1; i < 50; i++)
        for (int j = 0; j < 30; j++)
            assert_true(b1[i * 30 + j] >= b1[(i - 1) * 30 + j]);
    done(&x1);
    done(&x4);
}

static void test_chunk_quota_refused(void **state)
{
    (void)state;
    graph_limits_t lim;
    graph_limits_default(&lim);
    lim.max_chunks = 100;
    const char *doc = "{\"version\":1,\"nodes\":[{\"key\":\"big\",\"op\":\"ones\",\"shape\":"
                      "[1000,1000],\"chunk_size\":10}],\"fetch\":[\"big\"]}";
    graph_t *g;
    tile_t *t = NULL;
    char err[512];
    assert_int_equal(graph_parse(doc, strlen(doc), &lim, NULL, &g, err, sizeof err), 0);
    assert_int_equal(tile_build(g, &lim, NULL, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "node \"big\" (ones):"));
    assert_non_null(strstr(err, "max_chunks"));
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_inner_is_symmetric),
        cmocka_unit_test(test_dot_transpose_not_materialised),
        cmocka_unit_test(test_elementwise_chain_fuses),
        cmocka_unit_test(test_fetched_intermediate_not_fused),
        cmocka_unit_test(test_reduction_tree_and_value),
        cmocka_unit_test(test_random_leaf_generated_in_consumer),
        cmocka_unit_test(test_creation_generated_in_every_reader),
        cmocka_unit_test(test_size1_reshape_of_creation),
        cmocka_unit_test(test_random_generated_in_its_one_reader),
        cmocka_unit_test(test_random_with_two_readers_stored),
        cmocka_unit_test(test_gathers_read_through),
        cmocka_unit_test(test_like_keeps_input_chunks),
        cmocka_unit_test(test_rechunk_reuses_aligned_chunks),
        cmocka_unit_test(test_unfetched_branch_not_run),
        cmocka_unit_test(test_reshape_and_transpose_values),
        cmocka_unit_test(test_threads_agree),
        cmocka_unit_test(test_chunk_quota_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
