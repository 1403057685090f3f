/* Unit tests of job descriptors (engine/tile/jobdesc.c): every live job of
 * graphs covering the job kinds the differential suites produce is
 * encoded, decoded against the parsed graph and run alone; its output must
 * equal the output of the same job run from the original tile. Malformed
 * descriptors (every truncation, byte flips, crafted out-of-range pieces)
 * must be refused with a message, never read out of bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "graph.h"
#include "tile.h"

typedef struct {
    void **out;
    size_t *len;
    const tile_t *mini; /* NULL: job indexes are the task's */
} store_t;

static const void *get(void *ctx, int32_t job, size_t *len)
{
    store_t *s = ctx;
    int32_t id = s->mini ? tile_job_id(s->mini, job) : job;
    *len = s->len[id];
    return s->out[id];
}

/* Runs job j of t (0 of a decoded one) with inputs from s: 0 with *out. */
static int run1(const tile_t *t, int32_t j, store_t *s, void **out, size_t *n, char *err,
                size_t errlen)
{
    bool blob = tile_job_is_blob(t, j);
    size_t want = tile_job_nbytes(t, j);
    void *buf = blob ? NULL : calloc(1, want ? want : 1), *b = NULL;
    size_t bl = 0;
    if (exec_job_any(t, j, get, s, buf, &b, &bl, err, errlen)) {
        free(buf);
        free(b);
        return -1;
    }
    *out = blob ? b : buf;
    *n = blob ? bl : want;
    return 0;
}

static int kinds_seen[JK__COUNT];

/* Every live job of doc through a descriptor, compared with the tile's
 * (sort_block: tile_opts_t.sort_block_bytes, 0 the default). */
static void round_trip_opts(const char *doc, int64_t sort_block)
{
    graph_limits_t lim;
    graph_limits_default(&lim);
    char err[1024] = "";
    graph_t *g = NULL;
    tile_t *t = NULL;
    if (graph_parse(doc, strlen(doc), &lim, NULL, &g, err, sizeof err))
        fail_msg("graph_parse: %s", err);
    tile_opts_t topts;
    tile_opts_default(&topts);
    if (sort_block > 0) topts.sort_block_bytes = sort_block;
    if (tile_build(g, &lim, &topts, &t, err, sizeof err)) fail_msg("tile_build: %s", err);
    int32_t n = tile_n_jobs(t);
    store_t s = {calloc((size_t)n, sizeof(void *)), calloc((size_t)n, sizeof(size_t)), NULL};
    assert_non_null(s.out);
    for (int32_t j = 0; j < n; j++) {
        if (!tile_job_is_live(t, j)) continue;
        assert_false(tile_job_is_source(t, j));
        if (run1(t, j, &s, &s.out[j], &s.len[j], err, sizeof err))
            fail_msg("job %d: %s", (int)j, err);
    }
    for (int32_t j = 0; j < n; j++) {
        if (!tile_job_is_live(t, j)) continue;
        void *d = NULL;
        size_t dl = 0;
        assert_int_equal(tile_job_encode(t, j, &d, &dl), 0);
        tile_t *m = NULL;
        if (jobdesc_decode(d, dl, g, &m, err, sizeof err))
            fail_msg("job %d (kind %d): decode: %s", (int)j, (int)tile_job_kind(t, j), err);
        assert_int_equal(tile_job_id(m, 0), j);
        assert_int_equal(tile_job_kind(m, 0), tile_job_kind(t, j));
        assert_int_equal(tile_job_node(m, 0), tile_job_node(t, j));
        assert_int_equal(tile_job_nbytes(m, 0), tile_job_nbytes(t, j));
        /* the same sources, in the same order */
        int32_t a[4096], b[4096];
        assert_true(tile_job_n_reads(t, j) < 4096);
        int na = tile_job_sources(t, j, a), nb = tile_job_sources(m, 0, b);
        assert_int_equal(na, nb);
        for (int i = 0; i < na; i++) {
            assert_int_equal(tile_job_id(m, b[i]), a[i]);
            assert_int_equal(tile_job_pack_part(m, 0, b[i]), tile_job_pack_part(t, j, a[i]));
            assert_int_equal(tile_job_nbytes(m, b[i]), tile_job_nbytes(t, a[i]));
        }
        store_t sm = s;
        sm.mini = m;
        void *o = NULL;
        size_t on = 0;
        if (run1(m, 0, &sm, &o, &on, err, sizeof err))
            fail_msg("job %d from its descriptor: %s", (int)j, err);
        assert_int_equal(on, s.len[j]);
        if (on && memcmp(o, s.out[j], on) != 0)
            fail_msg("job %d (kind %d): different output from its descriptor", (int)j,
                     (int)tile_job_kind(t, j));
        kinds_seen[tile_job_kind(t, j)]++;
        free(o);
        tile_free(m);
        free(d);
    }
    for (int32_t j = 0; j < n; j++)
        free(s.out[j]);
    free(s.out);
    free(s.len);
    tile_free(t);
    graph_free(g);
}

static void round_trip(const char *doc)
{
    round_trip_opts(doc, 0);
}

#define D(...) "{\"version\":1,\"nodes\":[" __VA_ARGS__

static void test_tensor_kinds(void **state)
{
    (void)state;
    /* creation, fused element-wise, reductions with programs, generated
     * inputs, gathers of strided and reversed slices, reshape, concat */
    round_trip(D("{\"key\":\"a\",\"op\":\"arange\",\"stop\":63,\"dtype\":\"float64\","
                 "\"chunk_size\":10},"
                 "{\"key\":\"m\",\"op\":\"reshape\",\"inputs\":[\"a\"],\"newshape\":[7,9]},"
                 "{\"key\":\"r\",\"op\":\"rechunk\",\"inputs\":[\"m\"],\"chunk_size\":[3,4]},"
                 "{\"key\":\"t\",\"op\":\"transpose\",\"inputs\":[\"r\"]},"
                 "{\"key\":\"s\",\"op\":\"getitem\",\"inputs\":[\"a\"],\"index\":[\"60:2:-7\"]},"
                 "{\"key\":\"e\",\"op\":\"eye\",\"N\":9,\"chunk_size\":4},"
                 "{\"key\":\"p\",\"op\":\"dot\",\"inputs\":[\"r\",\"e\"]},"
                 "{\"key\":\"q\",\"op\":\"add\",\"inputs\":[\"p\",1.5]},"
                 "{\"key\":\"w\",\"op\":\"sqrt\",\"inputs\":[\"q\"]},"
                 "{\"key\":\"c\",\"op\":\"concatenate\",\"inputs\":[\"s\",\"a\"]}],"
                 "\"fetch\":[\"t\",\"s\",\"w\",\"c\"]}"));
    round_trip(D("{\"key\":\"a\",\"op\":\"random.rand\",\"shape\":[50,30],"
                 "\"chunk_size\":[7,11],\"seed\":5},"
                 "{\"key\":\"b\",\"op\":\"cumsum\",\"inputs\":[\"a\"],\"axis\":0},"
                 "{\"key\":\"c\",\"op\":\"matmul\",\"inputs\":[\"b\",\"t\"]},"
                 "{\"key\":\"t\",\"op\":\"transpose\",\"inputs\":[\"a\"]},"
                 "{\"key\":\"g\",\"op\":\"dot\",\"inputs\":[\"a\",\"t\"]},"
                 "{\"key\":\"x\",\"op\":\"multiply\",\"inputs\":[\"a\",2]},"
                 "{\"key\":\"s\",\"op\":\"sum\",\"inputs\":[\"x\"],\"axis\":0},"
                 "{\"key\":\"v\",\"op\":\"var\",\"inputs\":[\"a\"],\"axis\":1,\"ddof\":1},"
                 "{\"key\":\"am\",\"op\":\"argmax\",\"inputs\":[\"a\"],\"axis\":0},"
                 "{\"key\":\"mx\",\"op\":\"max\",\"inputs\":[\"a\"]},"
                 "{\"key\":\"td\",\"op\":\"tensordot\",\"inputs\":[\"a\",\"a\"],"
                 "\"axes\":[[0],[0]]}],"
                 "\"fetch\":[\"c\",\"b\",\"g\",\"s\",\"v\",\"am\",\"mx\",\"td\"]}"));
    round_trip(D("{\"key\":\"a\",\"op\":\"ones\",\"shape\":[40,40],\"chunk_size\":[16,16]},"
                 "{\"key\":\"b\",\"op\":\"random.randn\",\"shape\":[40,40],"
                 "\"chunk_size\":[16,16],\"seed\":3},"
                 "{\"key\":\"c\",\"op\":\"add\",\"inputs\":[\"a\",\"b\"]},"
                 "{\"key\":\"d\",\"op\":\"mean\",\"inputs\":[\"c\"],\"axis\":1},"
                 "{\"key\":\"w\",\"op\":\"where\",\"inputs\":[\"m\",\"c\",0]},"
                 "{\"key\":\"m\",\"op\":\"greater\",\"inputs\":[\"b\",0]},"
                 "{\"key\":\"big\",\"op\":\"random.rand\",\"shape\":[3000],"
                 "\"chunk_size\":10,\"seed\":1},"
                 "{\"key\":\"bs\",\"op\":\"sum\",\"inputs\":[\"big\"]}],"
                 "\"fetch\":[\"d\",\"w\",\"bs\"]}"));
    round_trip(D("{\"key\":\"x\",\"op\":\"random.rand\",\"shape\":[3,8,6],"
                 "\"chunk_size\":[1,4,3],\"seed\":7},"
                 "{\"key\":\"y\",\"op\":\"random.rand\",\"shape\":[3,6,5],"
                 "\"chunk_size\":[1,3,5],\"seed\":8},"
                 "{\"key\":\"z\",\"op\":\"matmul\",\"inputs\":[\"x\",\"y\"]},"
                 "{\"key\":\"o\",\"op\":\"ones\",\"shape\":[4,6],\"chunk_size\":[2,6]},"
                 "{\"key\":\"ob\",\"op\":\"add\",\"inputs\":[\"o\",1]},"
                 "{\"key\":\"r\",\"op\":\"reshape\",\"inputs\":[\"ob\"],\"newshape\":[2,2,6]},"
                 "{\"key\":\"ry\",\"op\":\"reshape\",\"inputs\":[\"y\"],\"newshape\":[18,5]}],"
                 "\"fetch\":[\"z\",\"r\",\"ob\",\"y\",\"ry\"]}"));
}

/* shapes (shapes2.h): gathers whose pieces read with stride 0 or walk one
 * more dimension than their source, element-wise jobs of a constant with
 * no input, the new creation jobs */
static void test_shapes2_kinds(void **state)
{
    (void)state;
    round_trip(D("{\"key\":\"x\",\"op\":\"random.rand\",\"shape\":[7,10],"
                 "\"chunk_size\":[3,4],\"seed\":2},"
                 "{\"key\":\"ro\",\"op\":\"roll\",\"inputs\":[\"x\"],\"shift\":[3,-4],"
                 "\"axis\":[1,0]},"
                 "{\"key\":\"b\",\"op\":\"getitem\",\"inputs\":[\"x\"],\"index\":[\"0:1\"]},"
                 "{\"key\":\"bt\",\"op\":\"broadcast_to\",\"inputs\":[\"b\"],\"shape\":[3,5,10]},"
                 "{\"key\":\"ti\",\"op\":\"tile\",\"inputs\":[\"x\"],\"reps\":[2,3]},"
                 "{\"key\":\"rp\",\"op\":\"repeat\",\"inputs\":[\"x\"],\"repeats\":5,\"axis\":1},"
                 "{\"key\":\"rl\",\"op\":\"repeat\",\"inputs\":[\"x\"],"
                 "\"repeats\":[2,0,1,3,0,1,4],\"axis\":0},"
                 "{\"key\":\"pc\",\"op\":\"pad\",\"inputs\":[\"x\"],\"pad_width\":[[2,1],[0,5]],"
                 "\"constant_values\":7},"
                 "{\"key\":\"pe\",\"op\":\"pad\",\"inputs\":[\"x\"],\"pad_width\":3,"
                 "\"mode\":\"edge\"},"
                 "{\"key\":\"ls\",\"op\":\"logspace\",\"start\":0,\"stop\":3,\"num\":13,"
                 "\"chunk_size\":4},"
                 "{\"key\":\"gs\",\"op\":\"geomspace\",\"start\":-2,\"stop\":-500,\"num\":11,"
                 "\"chunk_size\":3},"
                 "{\"key\":\"ix\",\"op\":\"indices\",\"dimensions\":[5,6],\"chunk_size\":[1,2,4]}],"
                 "\"fetch\":[\"ro\",\"bt\",\"ti\",\"rp\",\"rl\",\"pc\",\"pe\",\"ls\",\"gs\","
                 "\"ix\"]}"));
}

/* the sort and argsort merge networks (small blocks), lstsq's one job
 * and held residuals, the sampling ops (generated in their consumers) */
static void test_network_lstsq_sampling(void **state)
{
    (void)state;
    round_trip_opts(D("{\"key\":\"x\",\"op\":\"random.rand\",\"shape\":[101],"
                      "\"chunk_size\":13,\"seed\":4},"
                      "{\"key\":\"s\",\"op\":\"sort\",\"inputs\":[\"x\"]},"
                      "{\"key\":\"i\",\"op\":\"random.randint\",\"shape\":[57],"
                      "\"low\":0,\"high\":5,\"seed\":2,\"chunk_size\":10},"
                      "{\"key\":\"as\",\"op\":\"argsort\",\"inputs\":[\"i\"]},"
                      "{\"key\":\"pc\",\"op\":\"percentile\",\"inputs\":[\"x\"],"
                      "\"q\":[5,50]},"
                      "{\"key\":\"md\",\"op\":\"median\",\"inputs\":[\"i\"]},"
                      "{\"key\":\"m2\",\"op\":\"random.rand\",\"shape\":[20,3],"
                      "\"chunk_size\":[5,2],\"seed\":9},"
                      "{\"key\":\"s2\",\"op\":\"sort\",\"inputs\":[\"m2\"],\"axis\":0},"
                      "{\"key\":\"a2\",\"op\":\"argsort\",\"inputs\":[\"m2\"],\"axis\":0}],"
                      "\"fetch\":[\"s\",\"as\",\"pc\",\"md\",\"s2\",\"a2\"]}"),
                    160);
    round_trip(D("{\"key\":\"a\",\"op\":\"random.rand\",\"shape\":[9,3],\"seed\":1,"
                 "\"chunk_size\":[4,2]},"
                 "{\"key\":\"b\",\"op\":\"random.rand\",\"shape\":[9],\"seed\":2,"
                 "\"chunk_size\":5},"
                 "{\"key\":\"l\",\"op\":\"linalg.lstsq\",\"inputs\":[\"a\",\"b\"],"
                 "\"outputs\":[\"lx\",\"lr\",\"lk\",\"ls\"]},"
                 "{\"key\":\"c\",\"op\":\"random.choice\",\"a\":[1.5,2.5,3.5],"
                 "\"size\":[6,4],\"p\":[0.2,0.3,0.5],\"seed\":3,\"chunk_size\":[4,3]},"
                 "{\"key\":\"c2\",\"op\":\"multiply\",\"inputs\":[\"c\",2]},"
                 "{\"key\":\"pm\",\"op\":\"random.permutation\",\"x\":30,\"seed\":5,"
                 "\"chunk_size\":7},"
                 "{\"key\":\"mn\",\"op\":\"random.multinomial\",\"n\":9,"
                 "\"pvals\":[0.5,0.5],\"size\":5,\"seed\":6,\"chunk_size\":[2,1]},"
                 "{\"key\":\"mv\",\"op\":\"random.multivariate_normal\",\"mean\":[0,1],"
                 "\"cov\":[[1,0],[0,1]],\"size\":4,\"seed\":7,\"chunk_size\":[3,2]}],"
                 "\"fetch\":[\"lx\",\"lr\",\"lk\",\"ls\",\"c2\",\"pm\",\"mn\",\"mv\"]}"));
}

static void test_dataframe_kinds(void **state)
{
    (void)state;
    round_trip(
        D("{\"key\":\"a\",\"op\":\"arange\",\"stop\":20,\"chunk_size\":6},"
          "{\"key\":\"b\",\"op\":\"reshape\",\"inputs\":[\"a\"],\"newshape\":[10,2]},"
          "{\"key\":\"df\",\"op\":\"dataframe.from_tensor\",\"inputs\":[\"b\"],"
          "\"columns\":[\"x\",\"y\"],\"chunk_rows\":3},"
          "{\"key\":\"s\",\"op\":\"dataframe.sum\",\"inputs\":[\"df\"]},"
          "{\"key\":\"d2\",\"op\":\"dataframe.from_tensor\",\"inputs\":[\"b\"],"
          "\"columns\":[\"x\",\"y\"],\"chunk_rows\":4},"
          "{\"key\":\"x\",\"op\":\"dataframe.getitem\",\"inputs\":[\"d2\"],\"columns\":\"x\"},"
          "{\"key\":\"m\",\"op\":\"greater\",\"inputs\":[\"x\",7]},"
          "{\"key\":\"f\",\"op\":\"dataframe.filter\",\"inputs\":[\"d2\",\"m\"]},"
          "{\"key\":\"h\",\"op\":\"dataframe.head\",\"inputs\":[\"d2\"],\"n\":5},"
          "{\"key\":\"mx\",\"op\":\"dataframe.max\",\"inputs\":[\"x\"]}],"
          "\"fetch\":[\"s\",\"f\",\"h\",\"mx\"]}"));
    round_trip(
        D("{\"key\":\"a\",\"op\":\"arange\",\"stop\":240},"
          "{\"key\":\"b\",\"op\":\"reshape\",\"inputs\":[\"a\"],\"newshape\":[120,2]},"
          "{\"key\":\"df\",\"op\":\"dataframe.from_tensor\",\"inputs\":[\"b\"],"
          "\"columns\":[\"k\",\"v\"],\"chunk_rows\":10},"
          "{\"key\":\"kk\",\"op\":\"dataframe.getitem\",\"inputs\":[\"df\"],\"columns\":\"k\"},"
          "{\"key\":\"km\",\"op\":\"mod\",\"inputs\":[\"kk\",5]},"
          "{\"key\":\"d3\",\"op\":\"dataframe.assign\",\"inputs\":[\"df\",\"km\"],"
          "\"names\":[\"k\"]},"
          "{\"key\":\"m\",\"op\":\"greater\",\"inputs\":[\"kk\",-1]},"
          "{\"key\":\"f\",\"op\":\"dataframe.filter\",\"inputs\":[\"d3\",\"m\"]},"
          "{\"key\":\"g\",\"op\":\"dataframe.groupby_agg\",\"inputs\":[\"f\"],\"by\":[\"k\"],"
          "\"agg\":{\"n\":[\"v\",\"count\"]}},"
          "{\"key\":\"g2\",\"op\":\"dataframe.groupby_agg\",\"inputs\":[\"d3\"],"
          "\"by\":[\"k\"],\"agg\":{\"n\":[\"v\",\"count\"]}},"
          "{\"key\":\"so\",\"op\":\"dataframe.sort_values\",\"inputs\":[\"f\"],"
          "\"by\":[\"v\"],\"ascending\":false},"
          "{\"key\":\"mg\",\"op\":\"dataframe.merge\",\"inputs\":[\"f\",\"d3\"],"
          "\"on\":[\"v\"]},"
          "{\"key\":\"tt\",\"op\":\"dataframe.to_tensor\",\"inputs\":[\"d3\"]}],"
          "\"fetch\":[\"g\",\"g2\",\"so\",\"mg\",\"tt\"]}"));
}

/* Every kind the tiler makes for the graphs above went through. */
static void test_kinds_covered(void **state)
{
    (void)state;
    static const job_kind_t want[] = {JK_EW,        JK_GATHER,     JK_RED_MAP,    JK_RED_COMBINE,
                                      JK_RED_FINAL, JK_SCAN_LOCAL, JK_SCAN_APPLY, JK_MATMUL,
                                      JK_TENSORDOT, JK_DF,         JK_SCAN_CARRY, JK_SYRK,
                                      JK_RANDOM,    JK_CREATE,     JK_SS,         JK_LA};
    for (int k = 0; k < JK__COUNT; k++)
        print_message("kind %d: %d jobs\n", k, kinds_seen[k]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!kinds_seen[want[i]]) fail_msg("no job of kind %d went through", (int)want[i]);
}

/* A descriptor of the first graph's job that reads pieces. */
static void some_desc(graph_t **g, void **d, size_t *dl, tile_t **t)
{
    const char *doc = D("{\"key\":\"a\",\"op\":\"arange\",\"stop\":63,\"dtype\":\"float64\","
                        "\"chunk_size\":10},"
                        "{\"key\":\"m\",\"op\":\"reshape\",\"inputs\":[\"a\"],\"newshape\":[7,9]},"
                        "{\"key\":\"r\",\"op\":\"rechunk\",\"inputs\":[\"m\"],"
                        "\"chunk_size\":[3,4]}],\"fetch\":[\"r\"]}");
    graph_limits_t lim;
    graph_limits_default(&lim);
    char err[512];
    assert_int_equal(graph_parse(doc, strlen(doc), &lim, NULL, g, err, sizeof err), 0);
    tile_opts_t o;
    tile_opts_default(&o);
    o.keep_all = true; /* arange chunks stored: the rechunk reads pieces of them */
    assert_int_equal(tile_build(*g, &lim, &o, t, err, sizeof err), 0);
    for (int32_t j = tile_n_jobs(*t) - 1; j >= 0; j--) {
        int32_t src[64];
        if (tile_job_is_live(*t, j) && tile_job_n_reads(*t, j) > 1 &&
            tile_job_sources(*t, j, src) > 1) {
            assert_int_equal(tile_job_encode(*t, j, d, dl), 0);
            return;
        }
    }
    fail_msg("no job reading pieces");
}

static void test_malformed(void **state)
{
    (void)state;
    graph_t *g;
    tile_t *t, *m = NULL;
    void *d;
    size_t dl;
    some_desc(&g, &d, &dl, &t);
    char err[256];
    assert_int_equal(jobdesc_decode(d, dl, g, &m, err, sizeof err), 0);
    tile_free(m);
    /* every truncation is refused */
    for (size_t n = 0; n < dl; n++) {
        err[0] = '\0';
        assert_int_equal(jobdesc_decode(d, n, g, &m, err, sizeof err), -1);
        assert_null(m);
        assert_true(strncmp(err, "job descriptor: ", 16) == 0);
    }
    /* byte flips: refused, or decoded into something in bounds (ASan) */
    unsigned char *c = malloc(dl);
    for (size_t i = 0; i < dl; i++) {
        for (int v = 0; v < 3; v++) {
            memcpy(c, d, dl);
            c[i] = v == 0 ? 0xff : v == 1 ? 0x7f : (unsigned char)(c[i] ^ 0x01);
            if (jobdesc_decode(c, dl, g, &m, err, sizeof err) == 0) tile_free(m);
        }
    }
    /* trailing bytes */
    memcpy(c, d, dl);
    unsigned char *c2 = malloc(dl + 1);
    memcpy(c2, d, dl);
    c2[dl] = 0;
    assert_int_equal(jobdesc_decode(c2, dl + 1, g, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "trailing"));
    free(c2);
    /* a graph with fewer nodes: the node index is out of range */
    graph_limits_t lim;
    graph_limits_default(&lim);
    graph_t *small;
    const char *one = D("{\"key\":\"a\",\"op\":\"ones\",\"shape\":[2]}],\"fetch\":[\"a\"]}");
    assert_int_equal(graph_parse(one, strlen(one), &lim, NULL, &small, err, sizeof err), 0);
    assert_int_equal(jobdesc_decode(d, dl, small, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "out of range"));
    graph_free(small);
    /* not a descriptor */
    assert_int_equal(jobdesc_decode("MJD0", 4, g, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "magic"));
    free(c);
    free(d);
    tile_free(t);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tensor_kinds),  cmocka_unit_test(test_dataframe_kinds),
        cmocka_unit_test(test_shapes2_kinds), cmocka_unit_test(test_network_lstsq_sampling),
        cmocka_unit_test(test_kinds_covered), cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
