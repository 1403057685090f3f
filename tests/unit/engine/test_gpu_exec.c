/* Unit tests of engine/cuda/gpu_exec.c's decisions, which need no device:
 * which chunk jobs have a device kernel, and where the document's "device"
 * sends them (docs/gpu.md). The kernels themselves run in the GPU suite. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/gpu.h"
#include "cuda/gpu_exec.h"
#include "exec.h"
#include "graph.h"
#include "tile.h"

typedef struct {
    graph_t *g;
    tile_t *t;
} tiled_t;

static void tile_doc(tiled_t *x, const char *doc)
{
    graph_limits_t lim;
    graph_limits_default(&lim);
    char err[512] = "";
    memset(x, 0, sizeof(*x));
    if (graph_parse(doc, strlen(doc), &lim, NULL, &x->g, err, sizeof err))
        fail_msg("graph_parse: %s", err);
    if (tile_build(x->g, &lim, NULL, &x->t, err, sizeof err)) fail_msg("tile_build: %s", err);
}

static void done(tiled_t *x)
{
    tile_free(x->t);
    graph_free(x->g);
}

/* Live jobs of kind k: how many, and how many of them have a device kernel
 * (and go to a device under place). */
static void count(const tiled_t *x, job_kind_t k, graph_device_t place, int *n, int *supported,
                  int *preferred)
{
    *n = *supported = *preferred = 0;
    uint8_t *pref = calloc((size_t)x->t->n_jobs + 1, 1);
    assert_non_null(pref);
    for (int32_t j = 0; j < x->t->n_jobs; j++) {
        if (!x->t->live[j]) continue;
        pref[j] = gpu_job_preferred(x->t, j, place, pref);
        if (x->t->jobs[j].kind != k) continue;
        (*n)++;
        *supported += gpu_job_supported(x->t, j);
        *preferred += pref[j];
    }
    free(pref);
}

static void test_device_names(void **state)
{
    (void)state;
    assert_string_equal(graph_device_name(GRAPH_DEVICE_AUTO), "auto");
    assert_string_equal(graph_device_name(GRAPH_DEVICE_GPU), "gpu");
    assert_string_equal(graph_device_name(GRAPH_DEVICE_CPU), "cpu");
}

static void test_document_device_field(void **state)
{
    (void)state;
    tiled_t x;
    tile_doc(&x, "{\"version\":1,\"device\":\"gpu\",\"nodes\":[{\"key\":\"a\",\"op\":\"ones\","
                 "\"shape\":[4]}],\"fetch\":[\"a\"]}");
    assert_int_equal(x.g->device, GRAPH_DEVICE_GPU);
    done(&x);
    tile_doc(&x, "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"ones\",\"shape\":[4]}],"
                 "\"fetch\":[\"a\"]}");
    assert_int_equal(x.g->device, GRAPH_DEVICE_AUTO);
    done(&x);
    graph_limits_t lim;
    graph_limits_default(&lim);
    graph_t *g = NULL;
    char err[256] = "";
    const char *bad = "{\"version\":1,\"device\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"ones\","
                      "\"shape\":[4]}]}";
    assert_int_equal(graph_parse(bad, strlen(bad), &lim, NULL, &g, err, sizeof err), -1);
    assert_non_null(strstr(err, "\"device\" must be"));
    const char *upper = "{\"version\":1,\"device\":\"GPU\",\"nodes\":[{\"key\":\"a\",\"op\":"
                        "\"ones\",\"shape\":[4]}]}";
    assert_int_equal(graph_parse(upper, strlen(upper), &lim, NULL, &g, err, sizeof err), -1);
    assert_non_null(strstr(err, "\"device\" must be"));
}

/* W4's shape: random chunks, x·xᵀ as syrk on the diagonal, tensordot off
 * it, gathers for the lower blocks. */
static void test_dot_family_and_gathers(void **state)
{
    (void)state;
    tiled_t x;
    tile_doc(&x, "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"random.rand\",\"shape\":[60,"
                 "50],\"chunk_size\":20,\"seed\":1},{\"key\":\"t\",\"op\":\"transpose\","
                 "\"inputs\":[\"a\"]},{\"key\":\"b\",\"op\":\"dot\",\"inputs\":[\"a\",\"t\"]}],"
                 "\"fetch\":[\"b\"]}");
    int n, s, p;
    count(&x, JK_SYRK, GRAPH_DEVICE_AUTO, &n, &s, &p);
    assert_int_equal(n, 3);
    assert_int_equal(s, 3);
    assert_int_equal(p, 3); /* auto: the dot family always */
    count(&x, JK_TENSORDOT, GRAPH_DEVICE_AUTO, &n, &s, &p);
    assert_int_equal(n, 3);
    assert_int_equal(s, 3);
    assert_int_equal(p, 3);
    count(&x, JK_RANDOM, GRAPH_DEVICE_AUTO, &n, &s, &p);
    assert_true(n > 0);
    assert_int_equal(s, n);
    assert_int_equal(p, 0); /* auto: small draws stay on the CPU */
    count(&x, JK_GATHER, GRAPH_DEVICE_AUTO, &n, &s, &p);
    assert_int_equal(n, 3);
    assert_int_equal(s, 3);
    assert_int_equal(p, 3); /* copies of device blocks stay there */
    count(&x, JK_RANDOM, GRAPH_DEVICE_GPU, &n, &s, &p);
    assert_int_equal(p, n);
    count(&x, JK_SYRK, GRAPH_DEVICE_CPU, &n, &s, &p);
    assert_int_equal(p, 0);
    done(&x);
}

static void test_unsupported_fall_back(void **state)
{
    (void)state;
    tiled_t x;
    /* integer power with an array exponent (its negative exponents are
     * refused before it runs) and an average (sortstat) have no device kernel:
     * they run on the CPU whatever "device" says; argmax's and var's map
     * stages, and an integer dot, have one */
    tile_doc(&x,
             "{\"version\":1,\"device\":\"gpu\",\"nodes\":[{\"key\":\"k\",\"op\":"
             "\"random.randint\",\"low\":1,\"high\":9,\"shape\":[30,20],\"chunk_size\":10,"
             "\"seed\":2},{\"key\":\"f\",\"op\":\"power\",\"inputs\":[\"k\",\"k\"]},"
             "{\"key\":\"m\",\"op\":\"argmax\",\"inputs\":[\"a\"],\"axis\":0},"
             "{\"key\":\"a\",\"op\":\"random.rand\",\"shape\":[3000,200],\"chunk_size\":"
             "[1000,100],\"seed\":3},{\"key\":\"v\",\"op\":\"var\",\"inputs\":[\"a\"],\"axis\":1},"
             "{\"key\":\"kt\",\"op\":\"transpose\",\"inputs\":[\"k\"]},"
             "{\"key\":\"d\",\"op\":\"dot\",\"inputs\":[\"k\",\"kt\"]},"
             "{\"key\":\"s\",\"op\":\"sum\",\"inputs\":[\"a\"],\"axis\":0},"
             "{\"key\":\"e\",\"op\":\"exp\",\"inputs\":[\"a\"]},"
             "{\"key\":\"md\",\"op\":\"average\",\"inputs\":[\"a\"],\"axis\":0}],"
             "\"fetch\":[\"f\",\"m\",\"v\",\"d\",\"s\",\"e\",\"md\"]}");
    const graph_t *g = x.g;
    int sup_by_node[16] = {0}, all_by_node[16] = {0};
    for (int32_t j = 0; j < x.t->n_jobs; j++) {
        if (!x.t->live[j]) continue;
        int nd = x.t->jobs[j].node;
        if (nd >= 16 || x.t->jobs[j].kind == JK_GATHER) continue; /* gathers copy any dtype */
        all_by_node[nd]++;
        sup_by_node[nd] += gpu_job_supported(x.t, j);
    }
    int f = graph_find(g, "f"), m = graph_find(g, "m"), v = graph_find(g, "v"),
        d = graph_find(g, "d"), s = graph_find(g, "s"), e = graph_find(g, "e"),
        md = graph_find(g, "md");
    assert_true(all_by_node[f] > 0 && sup_by_node[f] == 0);
    assert_true(all_by_node[md] > 0 && sup_by_node[md] == 0);
    assert_true(all_by_node[d] > 0 && sup_by_node[d] == all_by_node[d]);
    /* argmax's and var's map stages have a kernel, their combine and final
     * stages not */
    assert_true(sup_by_node[v] > 0 && sup_by_node[v] < all_by_node[v]);
    assert_true(sup_by_node[m] > 0 && sup_by_node[m] < all_by_node[m]);
    /* sum's map stage and exp do */
    assert_true(sup_by_node[s] > 0);
    assert_true(all_by_node[e] > 0 && sup_by_node[e] == all_by_node[e]);
    done(&x);
}

/* arange (float and 32/64-bit integers), linspace and eye are made on the
 * device (gpu_k_create); a bool arange is not. */
static void test_positional_creation(void **state)
{
    (void)state;
    tiled_t x;
    tile_doc(&x, "{\"version\":1,\"device\":\"gpu\",\"nodes\":["
                 "{\"key\":\"af\",\"op\":\"arange\",\"start\":0.5,\"stop\":90,\"step\":0.25,"
                 "\"chunk_size\":50},"
                 "{\"key\":\"ai\",\"op\":\"arange\",\"stop\":300,\"dtype\":\"int32\","
                 "\"chunk_size\":70},"
                 "{\"key\":\"ab\",\"op\":\"arange\",\"stop\":2,\"dtype\":\"bool\"},"
                 "{\"key\":\"l\",\"op\":\"linspace\",\"start\":0,\"stop\":1,\"num\":99,"
                 "\"chunk_size\":40},"
                 "{\"key\":\"e\",\"op\":\"eye\",\"N\":50,\"M\":30,\"k\":2,\"dtype\":\"int64\","
                 "\"chunk_size\":20}],\"fetch\":[\"af\",\"ai\",\"ab\",\"l\",\"e\"]}");
    int n, s, p;
    count(&x, JK_CREATE, GRAPH_DEVICE_GPU, &n, &s, &p);
    /* af 8 chunks, ai 5, ab 1, l 3, e 3 x 2 */
    assert_int_equal(n, 8 + 5 + 1 + 3 + 6);
    assert_int_equal(s, n - 1);
    assert_int_equal(p, n - 1);
    int ab = graph_find(x.g, "ab");
    for (int32_t j = 0; j < x.t->n_jobs; j++)
        if (x.t->live[j] && x.t->jobs[j].node == ab) assert_false(gpu_job_supported(x.t, j));
    done(&x);
}

/* The document's jobs of kind k exist, and all of them (on_device) or none
 * have a device kernel. */
static void assert_kernels(const char *doc, job_kind_t k, bool on_device)
{
    tiled_t x;
    int n, supported, preferred;
    tile_doc(&x, doc);
    count(&x, k, GRAPH_DEVICE_GPU, &n, &supported, &preferred);
    done(&x);
    assert_true(n > 0);
    assert_int_equal(supported, on_device ? n : 0);
}

/* Float nan-reductions' map stages run on the device (NaN skipped, or
 * counted as +-inf for nanargmin/nanargmax), and ptp and count_nonzero. */
static void test_nan_reductions(void **state)
{
    (void)state;
    static const char *ops[] = {"nansum",    "nanprod", "nanmean",      "nanvar",
                                "nanstd",    "nanmin",  "nanmax",       "nanargmin",
                                "nanargmax", "ptp",     "count_nonzero"};
    for (int k = 0; k < (int)(sizeof ops / sizeof ops[0]); k++) {
        char doc[512];
        snprintf(doc, sizeof doc,
                 "{\"version\":1,\"device\":\"gpu\",\"nodes\":[{\"key\":\"a\",\"op\":"
                 "\"random.rand\",\"shape\":[3000,200],\"chunk_size\":[1000,100],\"seed\":3},"
                 "{\"key\":\"r\",\"op\":\"%s\",\"inputs\":[\"a\"],\"axis\":0}],"
                 "\"fetch\":[\"r\"]}",
                 ops[k]);
        assert_kernels(doc, JK_RED_MAP, true);
    }
}

/* Integer floor_divide, mod, fmod, shifts and invert, float floor_divide
 * and mod, integer true division (in float64), round, integer power by a
 * constant, and programs over the small integer dtypes have device
 * kernels. */
static void test_int_ops(void **state)
{
    (void)state;
    static const char *progs[] = {
        "{\"key\":\"r\",\"op\":\"floor_divide\",\"inputs\":[\"k\",\"d\"]}",
        "{\"key\":\"r\",\"op\":\"mod\",\"inputs\":[\"k\",\"d\"]}",
        "{\"key\":\"r\",\"op\":\"fmod\",\"inputs\":[\"k\",\"d\"]}",
        "{\"key\":\"r\",\"op\":\"left_shift\",\"inputs\":[\"k\",\"d\"]}",
        "{\"key\":\"r\",\"op\":\"right_shift\",\"inputs\":[\"k\",\"d\"]}",
        "{\"key\":\"r\",\"op\":\"invert\",\"inputs\":[\"k\"]}",
        "{\"key\":\"r\",\"op\":\"floor_divide\",\"inputs\":[\"a\",0.7]}",
        "{\"key\":\"r\",\"op\":\"remainder\",\"inputs\":[\"a\",-0.3]}",
        "{\"key\":\"r\",\"op\":\"divide\",\"inputs\":[\"k\",\"d\"]}",
        "{\"key\":\"r\",\"op\":\"round\",\"inputs\":[\"a\"],\"decimals\":2}",
        "{\"key\":\"r\",\"op\":\"around\",\"inputs\":[\"k\"],\"decimals\":-1}",
        "{\"key\":\"r\",\"op\":\"power\",\"inputs\":[\"k\",3]}",
        /* the small integer dtypes */
        "{\"key\":\"s\",\"op\":\"astype\",\"inputs\":[\"k\"],\"dtype\":\"int8\"},"
        "{\"key\":\"r\",\"op\":\"floor_divide\",\"inputs\":[\"s\",3]}",
        "{\"key\":\"s\",\"op\":\"astype\",\"inputs\":[\"k\"],\"dtype\":\"uint64\"},"
        "{\"key\":\"r\",\"op\":\"right_shift\",\"inputs\":[\"s\",60]}",
        "{\"key\":\"s\",\"op\":\"astype\",\"inputs\":[\"k\"],\"dtype\":\"uint16\"},"
        "{\"key\":\"r\",\"op\":\"invert\",\"inputs\":[\"s\"]}",
        "{\"key\":\"r\",\"op\":\"astype\",\"inputs\":[\"a\"],\"dtype\":\"uint32\"}",
    };
    for (int k = 0; k < (int)(sizeof progs / sizeof progs[0]); k++) {
        char doc[1024];
        snprintf(doc, sizeof doc,
                 "{\"version\":1,\"device\":\"gpu\",\"nodes\":[{\"key\":\"k\",\"op\":"
                 "\"random.randint\",\"low\":-9,\"high\":9,\"shape\":[300,200],"
                 "\"chunk_size\":100,\"seed\":2},{\"key\":\"d\",\"op\":\"random.randint\","
                 "\"low\":0,\"high\":5,\"shape\":[300,200],\"chunk_size\":100,\"seed\":3},"
                 "{\"key\":\"a\",\"op\":\"random.rand\",\"shape\":[300,200],\"chunk_size\":100,"
                 "\"seed\":4},%s],\"fetch\":[\"r\"]}",
                 progs[k]);
        assert_kernels(doc, JK_EW, true);
    }
}

/* Batched matmul (broadcasting either side, float32 too), tensordot with
 * axis orders that permute an operand, and integer products have device
 * kernels. */
static void test_batched_products(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b, *prod;
        job_kind_t kind;
        bool ints; /* integer operands (else float64) */
    } c[] = {
        {"[6,40,30]", "[6,30,25]", "\"op\":\"matmul\"", JK_MATMUL, false},
        {"[40,30]", "[6,30,25]", "\"op\":\"matmul\"", JK_MATMUL, false},
        {"[3,1,20,10]", "[1,4,10,15]", "\"op\":\"matmul\"", JK_MATMUL, false},
        {"[20,30,40]", "[40,20]", "\"op\":\"tensordot\",\"axes\":[[2,0],[0,1]]", JK_TENSORDOT,
         false},
        {"[20,30,40]", "[30,7]", "\"op\":\"tensordot\",\"axes\":[[1],[0]]", JK_TENSORDOT, false},
        {"[6,40,30]", "[6,30,25]", "\"op\":\"matmul\"", JK_MATMUL, true},
        {"[20,30,40]", "[30,7]", "\"op\":\"tensordot\",\"axes\":[[1],[0]]", JK_TENSORDOT, true},
    };
    for (int k = 0; k < (int)(sizeof c / sizeof c[0]); k++) {
        char doc[768];
        const char *rnd =
            c[k].ints ? "\"op\":\"random.randint\",\"low\":0,\"high\":9" : "\"op\":\"random.rand\"";
        snprintf(doc, sizeof doc,
                 "{\"version\":1,\"device\":\"gpu\",\"nodes\":["
                 "{\"key\":\"a\",%s,\"shape\":%s,\"chunk_size\":10,\"seed\":1},"
                 "{\"key\":\"b\",%s,\"shape\":%s,\"chunk_size\":10,\"seed\":2},"
                 "{\"key\":\"r\",%s,\"inputs\":[\"a\",\"b\"]}],\"fetch\":[\"r\"]}",
                 rnd, c[k].a, rnd, c[k].b, c[k].prod);
        assert_kernels(doc, c[k].kind, true);
    }
}

/* random2.c's per-element distributions are made on the device (the
 * samplers of rand_math.h); permutation (a whole-tensor walk) is not. */
static void test_random_distributions(void **state)
{
    (void)state;
    static const struct {
        const char *node;
        bool dev;
    } c[] = {
        {"\"op\":\"random.exponential\",\"scale\":2.0", true},
        {"\"op\":\"random.poisson\",\"lam\":30.0", true},
        {"\"op\":\"random.binomial\",\"n\":50,\"p\":0.7", true},
        {"\"op\":\"random.gamma\",\"shape\":0.5", true},
        {"\"op\":\"random.beta\",\"a\":0.5,\"b\":2.0", true},
        {"\"op\":\"random.lognormal\"", true},
        {"\"op\":\"random.standard_t\",\"df\":3.0", true},
        {"\"op\":\"random.chisquare\",\"df\":3.0", true},
        {"\"op\":\"random.permutation\",\"x\":400", false},
    };
    for (int k = 0; k < (int)(sizeof c / sizeof c[0]); k++) {
        char doc[512];
        snprintf(doc, sizeof doc,
                 "{\"version\":1,\"device\":\"gpu\",\"nodes\":[{\"key\":\"r\",%s,%s"
                 "\"chunk_size\":100,\"seed\":5}],\"fetch\":[\"r\"]}",
                 c[k].node, c[k].dev ? "\"size\":[400]," : "");
        assert_kernels(doc, JK_RANDOM, c[k].dev);
    }
}

/* Sorts of lines run on the device (gpu_k_sort): sort, argsort, topk,
 * partition, argpartition, median and quantile along either axis, over
 * floats, integers and bool, and searchsorted; average's line jobs do
 * not. */
static void test_sorts(void **state)
{
    (void)state;
    static const char *ops[] = {
        "\"sort\",\"axis\":0",         "\"argsort\",\"axis\":1",
        "\"topk\",\"k\":3,\"axis\":0", "\"topk\",\"k\":4,\"largest\":false",
        "\"partition\",\"kth\":2",     "\"argpartition\",\"kth\":[1,5],\"axis\":0",
        "\"median\",\"axis\":0",       "\"nanquantile\",\"q\":[0.1,0.5],\"axis\":1"};
    static const char *src[] = {"\"random.rand\"", "\"random.randint\",\"low\":0,\"high\":5"};
    for (int k = 0; k < (int)(sizeof ops / sizeof ops[0]); k++)
        for (int s = 0; s < 2; s++) {
            char doc[512];
            snprintf(doc, sizeof doc,
                     "{\"version\":1,\"device\":\"gpu\",\"nodes\":[{\"key\":\"a\",\"op\":"
                     "%s,\"shape\":[300,200],\"chunk_size\":[100,50],\"seed\":3},"
                     "{\"key\":\"r\",\"op\":%s,\"inputs\":[\"a\"]}],\"fetch\":[\"r\"]}",
                     src[s], ops[k]);
            assert_kernels(doc, JK_SS, true);
        }
    assert_kernels("{\"version\":1,\"device\":\"gpu\",\"nodes\":[{\"key\":\"a\",\"op\":"
                   "\"random.rand\",\"shape\":[300,200],\"chunk_size\":100,\"seed\":3},"
                   "{\"key\":\"b\",\"op\":\"less\",\"inputs\":[\"a\",0.5]},"
                   "{\"key\":\"r\",\"op\":\"argsort\",\"inputs\":[\"b\"]}],"
                   "\"fetch\":[\"r\"]}",
                   JK_SS, true);
    assert_kernels("{\"version\":1,\"device\":\"gpu\",\"nodes\":[{\"key\":\"a\",\"op\":"
                   "\"random.rand\",\"shape\":[300],\"chunk_size\":100,\"seed\":3},"
                   "{\"key\":\"s\",\"op\":\"sort\",\"inputs\":[\"a\"]},"
                   "{\"key\":\"v\",\"op\":\"random.rand\",\"shape\":[40,30],\"chunk_size\":10,"
                   "\"seed\":4},{\"key\":\"r\",\"op\":\"searchsorted\",\"inputs\":[\"s\",\"v\"]}],"
                   "\"fetch\":[\"r\"]}",
                   JK_SS, true);
    assert_kernels("{\"version\":1,\"device\":\"gpu\",\"nodes\":[{\"key\":\"a\",\"op\":"
                   "\"random.rand\",\"shape\":[300,200],\"chunk_size\":100,\"seed\":3},"
                   "{\"key\":\"r\",\"op\":\"average\",\"inputs\":[\"a\"],\"axis\":1}],"
                   "\"fetch\":[\"r\"]}",
                   JK_SS, false);
}

/* Without a device, the executor runs every job on the CPU whatever
 * "device" says, and reports none on a device. */
static void test_exec_without_device(void **state)
{
    (void)state;
    tiled_t x;
    tile_doc(&x, "{\"version\":1,\"device\":\"gpu\",\"nodes\":[{\"key\":\"a\",\"op\":\"ones\","
                 "\"shape\":[40,30],\"chunk_size\":10},{\"key\":\"b\",\"op\":\"inner\","
                 "\"inputs\":[\"a\",\"a\"]}],\"fetch\":[\"b\"]}");
    exec_opts_t o = {.threads = 2, .place = GRAPH_DEVICE_GPU};
    exec_result_t *r = NULL;
    char err[256];
    assert_int_equal(exec_run(x.t, &o, &r, err, sizeof err), 0);
    assert_int_equal(exec_result_gpu_jobs(r), 0);
    exec_result_free(r);
    done(&x);
}

static void test_stub_refuses_without_cuda(void **state)
{
    (void)state;
    char err[256] = "";
    if (gpu_built()) skip(); /* a CUDA build: the GPU suite covers it */
    assert_int_equal(gpu_open(0, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "no CUDA"));
    assert_null(gpu_job_begin(0, NULL, err, sizeof err));
    int64_t a, b, c;
    gpu_store_stats(0, &a, &b, &c);
    assert_int_equal(a, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_names),
        cmocka_unit_test(test_document_device_field),
        cmocka_unit_test(test_dot_family_and_gathers),
        cmocka_unit_test(test_unsupported_fall_back),
        cmocka_unit_test(test_positional_creation),
        cmocka_unit_test(test_nan_reductions),
        cmocka_unit_test(test_int_ops),
        cmocka_unit_test(test_batched_products),
        cmocka_unit_test(test_random_distributions),
        cmocka_unit_test(test_sorts),
        cmocka_unit_test(test_exec_without_device),
        cmocka_unit_test(test_stub_refuses_without_cuda),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
