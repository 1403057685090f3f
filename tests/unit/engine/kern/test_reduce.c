/* Reductions: map over chunks, combine and final equal a single pass;
 * numpy's dtype, NaN, tie and ddof rules. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"

static shape_t shp(int nd, ...)
{
    shape_t s = {.ndim = nd};
    va_list ap;
    va_start(ap, nd);
    for (int i = 0; i < nd; i++)
        s.d[i] = va_arg(ap, int64_t);
    va_end(ap);
    return s;
}

#define S1(a) shp(1, (int64_t)(a))
#define S2(a, b) shp(2, (int64_t)(a), (int64_t)(b))
#define S3(a, b, c) shp(3, (int64_t)(a), (int64_t)(b), (int64_t)(c))

static int64_t n_out_of(const shape_t *s, uint32_t axes)
{
    int64_t n = 1;
    for (int d = 0; d < s->ndim; d++)
        if (!(axes & (1u << d))) n *= s->d[d];
    return n;
}

/* Maps one chunk (offset goff in gshape) into a freshly allocated partial. */
static void *map_chunk(op_t op, dtype_t dt, void *data, shape_t s, uint32_t axes,
                       const int64_t *goff, const shape_t *gshape)
{
    char err[256];
    arr_t in = {data, dt, s};
    kern_red_map_t m = {.op = op,
                        .prog = NULL,
                        .in = &in,
                        .shape = s,
                        .dt = dt,
                        .axes = axes,
                        .goff = goff,
                        .gshape = gshape};
    void *p = malloc(kern_red_partial_bytes(op, dt, n_out_of(&s, axes)) + 1);
    assert_int_equal(kern_red_map(&m, p, err, sizeof err), 0);
    return p;
}

/* The whole array in one chunk: out receives n_out results. */
static void reduce1(op_t op, dtype_t dt, void *data, shape_t s, uint32_t axes, int64_t ddof,
                    void *out)
{
    int64_t zero[MR_MAXDIM] = {0};
    void *p = map_chunk(op, dt, data, s, axes, zero, &s);
    int64_t n = shape_size(&s), no = n_out_of(&s, axes);
    arr_t o = {out, kern_red_result_dtype(op, dt), s};
    kern_red_final(op, dt, no, no ? n / no : 0, ddof, p, &o);
    free(p);
}

static void test_result_dtypes(void **state)
{
    (void)state;
    assert_int_equal(kern_red_result_dtype(OP_SUM, DT_BOOL), DT_INT64);
    assert_int_equal(kern_red_result_dtype(OP_SUM, DT_INT32), DT_INT64);
    assert_int_equal(kern_red_result_dtype(OP_PROD, DT_FLOAT32), DT_FLOAT32);
    assert_int_equal(kern_red_result_dtype(OP_MEAN, DT_INT32), DT_FLOAT64);
    assert_int_equal(kern_red_result_dtype(OP_STD, DT_FLOAT32), DT_FLOAT32);
    assert_int_equal(kern_red_result_dtype(OP_VAR, DT_BOOL), DT_FLOAT64);
    assert_int_equal(kern_red_result_dtype(OP_MIN, DT_INT32), DT_INT32);
    assert_int_equal(kern_red_result_dtype(OP_ANY, DT_FLOAT64), DT_BOOL);
    assert_int_equal(kern_red_result_dtype(OP_ARGMAX, DT_FLOAT32), DT_INT64);
}

static void test_int_sums_wrap(void **state)
{
    (void)state;
    int64_t a[] = {INT64_MAX, 1, 5};
    int64_t r;
    reduce1(OP_SUM, DT_INT64, a, S1(3), 1, 0, &r);
    assert_true(r == INT64_MIN + 5);
    int32_t b[] = {INT32_MAX, INT32_MAX, 2};
    reduce1(OP_SUM, DT_INT32, b, S1(3), 1, 0, &r);
    assert_true(r == 2LL * INT32_MAX + 2); /* accumulates in int64 */
    reduce1(OP_PROD, DT_INT32, b, S1(3), 1, 0, &r);
    assert_true(r == (int64_t)((uint64_t)INT32_MAX * INT32_MAX * 2));
    uint8_t bo[] = {1, 0, 1, 1};
    reduce1(OP_SUM, DT_BOOL, bo, S1(4), 1, 0, &r);
    assert_true(r == 3);
    reduce1(OP_PROD, DT_BOOL, bo, S1(4), 1, 0, &r);
    assert_true(r == 0);
}

/* 10^6 float64 values: the blocked pairwise sum is as close to the exact
 * (long double) sum as numpy's; chunked map+combine equals within rounding. */
static void test_float_sum_accuracy_and_chunks(void **state)
{
    (void)state;
    enum { N = 1000003 };
    double *a = malloc(N * sizeof *a);
    long double exact = 0;
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < N; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        a[i] = (double)(x >> 11) * 0x1.0p-53 * 1000.0 + 0.1;
        exact += a[i];
    }
    double r;
    reduce1(OP_SUM, DT_FLOAT64, a, S1(N), 1, 0, &r);
    assert_true(fabsl((long double)r - exact) / exact < 1e-14);

    /* three chunks, combined in order */
    int64_t cut[4] = {0, 333333, 700000, N};
    void *parts[3];
    for (int k = 0; k < 3; k++) {
        int64_t off[1] = {cut[k]};
        shape_t g = S1(N);
        parts[k] = map_chunk(OP_SUM, DT_FLOAT64, a + cut[k], S1(cut[k + 1] - cut[k]), 1, off, &g);
    }
    double comb;
    void *cp = malloc(kern_red_partial_bytes(OP_SUM, DT_FLOAT64, 1));
    kern_red_combine(OP_SUM, DT_FLOAT64, 1, 3, (const void *const *)parts, cp);
    arr_t o = {&comb, DT_FLOAT64, S1(1)};
    kern_red_final(OP_SUM, DT_FLOAT64, 1, N, 0, cp, &o);
    assert_true(fabs(comb - r) / fabs(r) < 1e-14);

    /* mean and var across the same chunks: Chan's combine vs two-pass */
    double mean = (double)(exact / N), m2 = 0;
    for (int i = 0; i < N; i++)
        m2 += (a[i] - mean) * (a[i] - mean);
    for (int k = 0; k < 3; k++) {
        int64_t off[1] = {cut[k]};
        shape_t g = S1(N);
        free(parts[k]);
        parts[k] = map_chunk(OP_VAR, DT_FLOAT64, a + cut[k], S1(cut[k + 1] - cut[k]), 1, off, &g);
    }
    free(cp);
    cp = malloc(kern_red_partial_bytes(OP_VAR, DT_FLOAT64, 1));
    kern_red_combine(OP_VAR, DT_FLOAT64, 1, 3, (const void *const *)parts, cp);
    double var, sd;
    o.data = &var;
    kern_red_final(OP_VAR, DT_FLOAT64, 1, N, 0, cp, &o);
    assert_true(fabs(var - m2 / N) / (m2 / N) < 1e-12);
    o.data = &sd;
    kern_red_final(OP_STD, DT_FLOAT64, 1, N, 1, cp, &o);
    assert_true(fabs(sd - sqrt(m2 / (N - 1))) / sd < 1e-12);
    for (int k = 0; k < 3; k++)
        free(parts[k]);
    free(cp);
    free(a);
}

/* Partial-axis reductions of a (6, 5, 4) int32 array against naive loops,
 * over every axis subset, for sum, max and mean; and the same array split
 * in two chunks along axis 1 and combined. */
static void test_partial_axes(void **state)
{
    (void)state;
    int32_t a[6][5][4];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 5; j++)
            for (int k = 0; k < 4; k++)
                a[i][j][k] = ((i * 7 + j * 13 + k * 5) % 17) - 8;
    shape_t s = S3(6, 5, 4);
    for (uint32_t axes = 1; axes < 8; axes++) {
        int64_t sum[120], mx[120];
        int32_t got_max[120];
        int64_t got_sum[120];
        double got_mean[120];
        int64_t no = n_out_of(&s, axes);
        for (int64_t o = 0; o < no; o++) {
            sum[o] = 0;
            mx[o] = INT64_MIN;
        }
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 5; j++)
                for (int k = 0; k < 4; k++) {
                    int64_t o = 0;
                    if (!(axes & 1)) o = o * 6 + i;
                    if (!(axes & 2)) o = o * 5 + j;
                    if (!(axes & 4)) o = o * 4 + k;
                    sum[o] += a[i][j][k];
                    if (a[i][j][k] > mx[o]) mx[o] = a[i][j][k];
                }
        reduce1(OP_SUM, DT_INT32, a, s, axes, 0, got_sum);
        reduce1(OP_MAX, DT_INT32, a, s, axes, 0, got_max);
        reduce1(OP_MEAN, DT_INT32, a, s, axes, 0, got_mean);
        int64_t nred = 120 / no;
        for (int64_t o = 0; o < no; o++) {
            assert_true(got_sum[o] == sum[o]);
            assert_true(got_max[o] == mx[o]);
            assert_true(fabs(got_mean[o] - (double)sum[o] / (double)nred) < 1e-12);
        }

        /* two chunks along axis 1: [:, 0:2, :] and [:, 2:5, :] */
        int32_t c0[6][2][4], c1[6][3][4];
        for (int i = 0; i < 6; i++)
            for (int k = 0; k < 4; k++) {
                for (int j = 0; j < 2; j++)
                    c0[i][j][k] = a[i][j][k];
                for (int j = 0; j < 3; j++)
                    c1[i][j][k] = a[i][j + 2][k];
            }
        if (!(axes & 2)) continue; /* chunks along a kept axis are not combined */
        int64_t off0[3] = {0, 0, 0}, off1[3] = {0, 2, 0};
        void *parts[2] = {map_chunk(OP_SUM, DT_INT32, c0, S3(6, 2, 4), axes, off0, &s),
                          map_chunk(OP_SUM, DT_INT32, c1, S3(6, 3, 4), axes, off1, &s)};
        void *cp = malloc(kern_red_partial_bytes(OP_SUM, DT_INT32, no));
        kern_red_combine(OP_SUM, DT_INT32, no, 2, (const void *const *)parts, cp);
        arr_t o = {got_sum, DT_INT64, s};
        kern_red_final(OP_SUM, DT_INT32, no, nred, 0, cp, &o);
        for (int64_t q = 0; q < no; q++)
            assert_true(got_sum[q] == sum[q]);
        free(parts[0]);
        free(parts[1]);
        free(cp);
    }
}

static void test_var_ddof_and_empty(void **state)
{
    (void)state;
    double a[] = {1.0, 2.0}, r;
    reduce1(OP_VAR, DT_FLOAT64, a, S1(2), 1, 0, &r);
    assert_true(fabs(r - 0.25) < 1e-15);
    reduce1(OP_VAR, DT_FLOAT64, a, S1(2), 1, 2, &r); /* 0.5 / 0 */
    assert_true(isinf(r) && r > 0);
    reduce1(OP_VAR, DT_FLOAT64, a, S1(1), 1, 1, &r); /* 0 / 0 */
    assert_true(isnan(r));
    reduce1(OP_STD, DT_FLOAT64, a, S1(2), 1, 3, &r);
    assert_true(isinf(r));
    /* zero elements: mean and var are nan */
    reduce1(OP_MEAN, DT_FLOAT64, a, S1(0), 1, 0, &r);
    assert_true(isnan(r));
    reduce1(OP_VAR, DT_FLOAT64, a, S1(0), 1, 0, &r);
    assert_true(isnan(r));
    /* float32 var and std: result float32; int var is float64 */
    float f[] = {1.f, 2.f, 3.f, 4.f}, fr;
    reduce1(OP_STD, DT_FLOAT32, f, S1(4), 1, 0, &fr);
    assert_true(fabsf(fr - sqrtf(1.25f)) < 1e-6f);
    int64_t iv[] = {1000000000000LL, 1000000000001LL, 1000000000002LL};
    reduce1(OP_VAR, DT_INT64, iv, S1(3), 1, 1, &r);
    assert_true(fabs(r - 1.0) < 1e-9);
    /* partial-axis var (Welford rows): (3, 2) over axis 0 */
    double b[] = {1, 10, 2, 20, 4, 40}, rv[3];
    reduce1(OP_VAR, DT_FLOAT64, b, S2(3, 2), 1, 0, rv);
    assert_true(fabs(rv[0] - 14.0 / 9.0) < 1e-14 && fabs(rv[1] - 1400.0 / 9.0) < 1e-12);
    reduce1(OP_VAR, DT_FLOAT64, b, S2(3, 2), 2, 0, rv);
    assert_true(fabs(rv[0] - 20.25) < 1e-14 && fabs(rv[1] - 81.0) < 1e-13 &&
                fabs(rv[2] - 324.0) < 1e-12);
}

static void test_min_max_nan_bool(void **state)
{
    (void)state;
    double a[300];
    for (int i = 0; i < 300; i++)
        a[i] = (double)((i * 37) % 101);
    double r;
    reduce1(OP_MAX, DT_FLOAT64, a, S1(300), 1, 0, &r);
    assert_true(r == 100.0);
    reduce1(OP_MIN, DT_FLOAT64, a, S1(300), 1, 0, &r);
    assert_true(r == 0.0);
    a[217] = NAN;
    reduce1(OP_MAX, DT_FLOAT64, a, S1(300), 1, 0, &r);
    assert_true(isnan(r));
    reduce1(OP_MIN, DT_FLOAT64, a, S1(300), 1, 0, &r);
    assert_true(isnan(r));
    /* rows: (2, 3) along axis 0 with a NaN in column 1 */
    float f[] = {1.f, NAN, 3.f, -1.f, 5.f, 7.f}, fr[3];
    reduce1(OP_MAX, DT_FLOAT32, f, S2(2, 3), 1, 0, fr);
    assert_true(fr[0] == 1.f && isnan(fr[1]) && fr[2] == 7.f);
    reduce1(OP_MIN, DT_FLOAT32, f, S2(2, 3), 1, 0, fr);
    assert_true(fr[0] == -1.f && isnan(fr[1]) && fr[2] == 3.f);
    uint8_t b[] = {0, 1, 0}, br;
    reduce1(OP_MAX, DT_BOOL, b, S1(3), 1, 0, &br);
    assert_int_equal(br, 1);
    reduce1(OP_MIN, DT_BOOL, b, S1(3), 1, 0, &br);
    assert_int_equal(br, 0);
    int64_t ib[] = {INT64_MIN, INT64_MAX}, ir;
    reduce1(OP_MIN, DT_INT64, ib, S1(2), 1, 0, &ir);
    assert_true(ir == INT64_MIN);
}

static void test_all_any(void **state)
{
    (void)state;
    double a[] = {1.0, NAN, -2.0}, z[] = {0.0, -0.0};
    uint8_t r;
    reduce1(OP_ALL, DT_FLOAT64, a, S1(3), 1, 0, &r);
    assert_int_equal(r, 1); /* NaN is truthy */
    reduce1(OP_ANY, DT_FLOAT64, z, S1(2), 1, 0, &r);
    assert_int_equal(r, 0);
    reduce1(OP_ALL, DT_FLOAT64, z, S1(0), 1, 0, &r);
    assert_int_equal(r, 1);
    int32_t m[] = {1, 0, 3, 4}; /* (2, 2) */
    uint8_t rr[2];
    reduce1(OP_ALL, DT_INT32, m, S2(2, 2), 1, 0, rr);
    assert_true(rr[0] == 1 && rr[1] == 0);
    reduce1(OP_ALL, DT_INT32, m, S2(2, 2), 2, 0, rr);
    assert_true(rr[0] == 0 && rr[1] == 1);
    reduce1(OP_ANY, DT_INT32, m, S2(2, 2), 2, 0, rr);
    assert_true(rr[0] == 1 && rr[1] == 1);
}

static void test_argminmax_rules(void **state)
{
    (void)state;
    int64_t r;
    double a[] = {3, 1, 1, 2};
    reduce1(OP_ARGMIN, DT_FLOAT64, a, S1(4), 1, 0, &r);
    assert_true(r == 1); /* first of the ties */
    reduce1(OP_ARGMAX, DT_FLOAT64, a, S1(4), 1, 0, &r);
    assert_true(r == 0);
    double b[] = {3, 1, 1, NAN, 0, NAN};
    reduce1(OP_ARGMIN, DT_FLOAT64, b, S1(6), 1, 0, &r);
    assert_true(r == 3); /* NaN counts as the extreme; the first wins */
    reduce1(OP_ARGMAX, DT_FLOAT64, b, S1(6), 1, 0, &r);
    assert_true(r == 3);
    uint8_t bo[] = {0, 0, 1, 1};
    reduce1(OP_ARGMAX, DT_BOOL, bo, S1(4), 1, 0, &r);
    assert_true(r == 2);

    /* chunks [5, 1] [1, 0, 0] [0]: argmin 3 whatever the order of parts */
    int32_t c0[] = {5, 1}, c1[] = {1, 0, 0}, c2[] = {0};
    shape_t g = S1(6);
    int64_t o0[1] = {0}, o1[1] = {2}, o2[1] = {5};
    void *p[3] = {map_chunk(OP_ARGMIN, DT_INT32, c0, S1(2), 1, o0, &g),
                  map_chunk(OP_ARGMIN, DT_INT32, c1, S1(3), 1, o1, &g),
                  map_chunk(OP_ARGMIN, DT_INT32, c2, S1(1), 1, o2, &g)};
    const void *rev[3] = {p[2], p[1], p[0]};
    void *cp = malloc(kern_red_partial_bytes(OP_ARGMIN, DT_INT32, 1));
    arr_t o = {&r, DT_INT64, S1(1)};
    kern_red_combine(OP_ARGMIN, DT_INT32, 1, 3, (const void *const *)p, cp);
    kern_red_final(OP_ARGMIN, DT_INT32, 1, 6, 0, cp, &o);
    assert_true(r == 3);
    kern_red_combine(OP_ARGMIN, DT_INT32, 1, 3, rev, cp);
    kern_red_final(OP_ARGMIN, DT_INT32, 1, 6, 0, cp, &o);
    assert_true(r == 3);
    for (int k = 0; k < 3; k++)
        free(p[k]);
    free(cp);

    /* NaN in the second chunk beats any value; the first NaN across chunks */
    double d0[] = {1, NAN}, d1[] = {NAN, -5};
    shape_t g4 = S1(4);
    int64_t e0[1] = {0}, e1[1] = {2};
    void *q[2] = {map_chunk(OP_ARGMAX, DT_FLOAT64, d1, S1(2), 1, e1, &g4),
                  map_chunk(OP_ARGMAX, DT_FLOAT64, d0, S1(2), 1, e0, &g4)};
    cp = malloc(kern_red_partial_bytes(OP_ARGMAX, DT_FLOAT64, 1));
    kern_red_combine(OP_ARGMAX, DT_FLOAT64, 1, 2, (const void *const *)q, cp);
    kern_red_final(OP_ARGMAX, DT_FLOAT64, 1, 4, 0, cp, &o);
    assert_true(r == 1);
    free(q[0]);
    free(q[1]);
    free(cp);
}

/* Global indices: a (2, 3) chunk at (2, 3) of a (10, 10) tensor. All axes:
 * flat C-order over the tensor; one axis: the index along it. */
static void test_argmin_global_indices(void **state)
{
    (void)state;
    double a[] = {4, 3, 9, 8, 0.5, 7}; /* (2, 3) */
    shape_t g = S2(10, 10);
    int64_t off[2] = {2, 3};
    int64_t r, rr[3];
    void *p = map_chunk(OP_ARGMIN, DT_FLOAT64, a, S2(2, 3), 3, off, &g);
    arr_t o = {&r, DT_INT64, S1(1)};
    kern_red_final(OP_ARGMIN, DT_FLOAT64, 1, 6, 0, p, &o);
    assert_true(r == 3 * 10 + 4); /* local (1, 1) is global (3, 4) */
    free(p);
    p = map_chunk(OP_ARGMIN, DT_FLOAT64, a, S2(2, 3), 1, off, &g); /* axis 0: rows */
    arr_t o3 = {rr, DT_INT64, S1(3)};
    kern_red_final(OP_ARGMIN, DT_FLOAT64, 3, 2, 0, p, &o3);
    assert_true(rr[0] == 2 && rr[1] == 3 && rr[2] == 3);
    free(p);
    p = map_chunk(OP_ARGMAX, DT_FLOAT64, a, S2(2, 3), 2, off, &g); /* axis 1: runs */
    arr_t o2 = {rr, DT_INT64, S1(2)};
    kern_red_final(OP_ARGMAX, DT_FLOAT64, 2, 3, 0, p, &o2);
    assert_true(rr[0] == 5 && rr[1] == 3);
    free(p);
}

/* (a * 2 + 1).sum() and .max(axis=1) with the program fused into the map. */
static void test_fused_program(void **state)
{
    (void)state;
    enum { R = 37, C = 301 };
    char err[256];
    int32_t *a = malloc(R * C * sizeof *a);
    for (int i = 0; i < R * C; i++)
        a[i] = (i * 7919) % 1000 - 500;
    ew_prog_t p;
    memset(&p, 0, sizeof p);
    p.n_inputs = 1;
    p.reg_dt[0] = DT_INT32;
    p.reg_dt[1] = DT_FLOAT64; /* astype */
    p.reg_dt[2] = DT_FLOAT64; /* const 2 */
    p.is_const[2] = true;
    p.konst[2] = sc_int(2);
    p.reg_dt[3] = DT_FLOAT64; /* const 1 */
    p.is_const[3] = true;
    p.konst[3] = sc_float(1.0);
    p.reg_dt[4] = DT_FLOAT64;
    p.reg_dt[5] = DT_FLOAT64;
    p.n_regs = 6;
    p.ins[0] = (ew_ins_t){OP_ASTYPE, DT_FLOAT64, 1, 0, -1, -1};
    p.ins[1] = (ew_ins_t){OP_MULTIPLY, DT_FLOAT64, 4, 1, 2, -1};
    p.ins[2] = (ew_ins_t){OP_ADD, DT_FLOAT64, 5, 4, 3, -1};
    p.n_ins = 3;
    p.out = 5;
    arr_t in = {a, DT_INT32, S2(R, C)};
    kern_red_map_t m = {
        .op = OP_SUM, .prog = &p, .in = &in, .shape = S2(R, C), .dt = DT_FLOAT64, .axes = 3};
    double part, r;
    assert_int_equal(kern_red_map(&m, &part, err, sizeof err), 0);
    arr_t o = {&r, DT_FLOAT64, S1(1)};
    kern_red_final(OP_SUM, DT_FLOAT64, 1, R * C, 0, &part, &o);
    double want = 0;
    for (int i = 0; i < R * C; i++)
        want += a[i] * 2.0 + 1.0;
    assert_true(r == want); /* integers: exact */

    double mparts[R], mx[R];
    m.op = OP_MAX;
    m.axes = 2;
    assert_int_equal(kern_red_map(&m, mparts, err, sizeof err), 0);
    arr_t om = {mx, DT_FLOAT64, S1(R)};
    kern_red_final(OP_MAX, DT_FLOAT64, R, C, 0, mparts, &om);
    for (int i = 0; i < R; i++) {
        double w = -INFINITY;
        for (int j = 0; j < C; j++)
            w = fmax(w, a[i * C + j] * 2.0 + 1.0);
        assert_true(mx[i] == w);
    }
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_result_dtypes),
        cmocka_unit_test(test_int_sums_wrap),
        cmocka_unit_test(test_float_sum_accuracy_and_chunks),
        cmocka_unit_test(test_partial_axes),
        cmocka_unit_test(test_var_ddof_and_empty),
        cmocka_unit_test(test_min_max_nan_bool),
        cmocka_unit_test(test_all_any),
        cmocka_unit_test(test_argminmax_rules),
        cmocka_unit_test(test_argmin_global_indices),
        cmocka_unit_test(test_fused_program),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
