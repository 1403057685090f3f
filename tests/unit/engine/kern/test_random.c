/* Random ops: Philox4x32-10 known answers (Random123's kat_vectors), values
 * independent of chunking, sane distributions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_internal.h"
#include "kern/rand_math.h"

static kern_gen_t node(op_t op, dtype_t dt, int64_t r, int64_t c, uint64_t seed)
{
    kern_gen_t n;
    memset(&n, 0, sizeof n);
    n.op = op;
    n.dt = dt;
    n.shape = (shape_t){.ndim = 2, .d = {r, c}};
    n.seed = seed;
    return n;
}

static void gen_whole(const kern_gen_t *n, void *out)
{
    int64_t off[2] = {0, 0};
    arr_t a = {out, n->dt, n->shape};
    kern_random(n, off, &a);
}

/* Generates in (cr, cc) chunks and assembles the whole tensor into out. */
static void gen_chunked(const kern_gen_t *n, int64_t cr, int64_t cc, void *out)
{
    int64_t R = n->shape.d[0], C = n->shape.d[1];
    size_t es = dt_size(n->dt);
    char *buf = malloc((size_t)(cr * cc) * es);
    for (int64_t r0 = 0; r0 < R; r0 += cr)
        for (int64_t c0 = 0; c0 < C; c0 += cc) {
            int64_t rows = r0 + cr <= R ? cr : R - r0, cols = c0 + cc <= C ? cc : C - c0;
            int64_t off[2] = {r0, c0};
            arr_t a = {buf, n->dt, {.ndim = 2, .d = {rows, cols}}};
            kern_random(n, off, &a);
            for (int64_t i = 0; i < rows; i++)
                memcpy((char *)out + (size_t)((r0 + i) * C + c0) * es,
                       buf + (size_t)(i * cols) * es, (size_t)cols * es);
        }
    free(buf);
}

static void test_philox_kat(void **state)
{
    (void)state;
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
         0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
         0x94fdcceb, 0x5001e420, 0x24126ea1},
    };
    for (int t = 0; t < 3; t++) {
        uint32_t ctr[4] = {kat[t][0], kat[t][1], kat[t][2], kat[t][3]};
        uint32_t key[2] = {kat[t][4], kat[t][5]};
        kern_philox4x32_10(ctr, key);
        for (int i = 0; i < 4; i++)
            assert_int_equal(ctr[i], kat[t][6 + i]);
    }
}

/* randint over the full int64 range exposes the words: the batched
 * generator maps element e to block (e / 2, 0, stream 2, 0), word e % 2,
 * keyed by the seed. */
static void test_counter_mapping(void **state)
{
    (void)state;
    uint64_t seed = 0x0123456789abcdefULL;
    kern_gen_t n = node(OP_RANDINT, DT_INT64, 3, 701, seed);
    n.low = sc_int(INT64_MIN);
    n.high = sc_int(INT64_MAX);
    int64_t *v = malloc(3 * 701 * sizeof *v);
    gen_chunked(&n, 2, 333, v);
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    uint64_t range = (uint64_t)INT64_MAX - (uint64_t)INT64_MIN;
    for (int64_t e = 0; e < 3 * 701; e++) {
        uint32_t ctr[4] = {(uint32_t)(e / 2), 0, 2, 0};
        kern_philox4x32_10(ctr, key);
        uint64_t w = e % 2 ? ((uint64_t)ctr[2] | (uint64_t)ctr[3] << 32)
                           : ((uint64_t)ctr[0] | (uint64_t)ctr[1] << 32);
        uint64_t want = (uint64_t)INT64_MIN + (uint64_t)(((unsigned __int128)w * range) >> 64);
        assert_true((uint64_t)v[e] == want);
    }
    free(v);
}

/* randn's log and sin/cos are polynomials the compiler vectorises: they
 * agree with libm's r cos(2 pi u2), r sin(2 pi u2) to near rounding. */
static void test_box_muller_values(void **state)
{
    (void)state;
    uint64_t seed = 977;
    kern_gen_t n = node(OP_RANDN, DT_FLOAT64, 1, 4001, seed);
    double *v = malloc(4001 * sizeof *v);
    gen_chunked(&n, 1, 1000, v);
    uint32_t key[2] = {(uint32_t)seed, 0};
    double worst = 0;
    for (int64_t e = 0; e < 4001; e++) {
        uint32_t ctr[4] = {(uint32_t)(e / 2), 0, 1, 0}; /* randn: stream 1 */
        kern_philox4x32_10(ctr, key);
        uint64_t w0 = (uint64_t)ctr[0] | (uint64_t)ctr[1] << 32;
        uint64_t w1 = (uint64_t)ctr[2] | (uint64_t)ctr[3] << 32;
        double u1 = (double)((w0 >> 11) + 1) * 0x1p-53, u2 = (double)(w1 >> 11) * 0x1p-53;
        double r = sqrt(-2.0 * log(u1)), th = 2 * M_PI * u2;
        double want = e % 2 ? r * sin(th) : r * cos(th);
        double d = fabs(v[e] - want) / (1.0 + fabs(want));
        worst = d > worst ? d : worst;
    }
    assert_true(worst < 1e-14);
    free(v);
}

static void test_chunking_invariance(void **state)
{
    (void)state;
    enum { R = 37, C = 53 };
    op_t ops[] = {OP_RAND, OP_RANDN, OP_RANDINT, OP_UNIFORM, OP_NORMAL};
    for (int t = 0; t < 5; t++) {
        dtype_t dt = ops[t] == OP_RANDINT ? DT_INT32 : DT_FLOAT64;
        kern_gen_t n = node(ops[t], dt, R, C, 42);
        n.low = sc_int(-5);
        n.high = sc_int(17);
        n.loc = sc_float(3.0);
        n.scale = sc_float(0.5);
        if (ops[t] == OP_UNIFORM) {
            n.low = sc_float(-2.0);
            n.high = sc_float(6.0);
        }
        size_t bytes = (size_t)R * C * dt_size(dt);
        char *w = malloc(bytes), *c1 = malloc(bytes), *c2 = malloc(bytes), *c3 = malloc(bytes);
        gen_whole(&n, w);
        gen_chunked(&n, 10, 7, c1); /* odd offsets inside rows */
        gen_chunked(&n, 5, C, c2);  /* whole rows */
        gen_chunked(&n, 1, 1, c3);  /* single elements */
        assert_memory_equal(w, c1, bytes);
        assert_memory_equal(w, c2, bytes);
        assert_memory_equal(w, c3, bytes);
        /* another seed gives other values */
        n.seed = 43;
        gen_whole(&n, c1);
        assert_memory_not_equal(w, c1, bytes);
        free(w);
        free(c1);
        free(c2);
        free(c3);
    }
}

static void moments(const double *v, int64_t n, double *mean, double *sd)
{
    double s = 0, q = 0;
    for (int64_t i = 0; i < n; i++)
        s += v[i];
    *mean = s / (double)n;
    for (int64_t i = 0; i < n; i++)
        q += (v[i] - *mean) * (v[i] - *mean);
    *sd = sqrt(q / (double)n);
}

static void test_distributions(void **state)
{
    (void)state;
    enum { N = 100000 };
    double *v = malloc(N * sizeof *v), mean, sd;
    kern_gen_t n = node(OP_RAND, DT_FLOAT64, 1, N, 7);
    gen_whole(&n, v);
    for (int i = 0; i < N; i++)
        assert_true(v[i] >= 0.0 && v[i] < 1.0);
    moments(v, N, &mean, &sd);
    assert_true(fabs(mean - 0.5) < 0.01 && fabs(sd - sqrt(1.0 / 12)) < 0.01);

    n = node(OP_RANDN, DT_FLOAT64, 1, N, 8);
    gen_whole(&n, v);
    moments(v, N, &mean, &sd);
    assert_true(fabs(mean) < 0.02 && fabs(sd - 1.0) < 0.02);
    int64_t beyond3 = 0;
    for (int i = 0; i < N; i++) {
        assert_true(isfinite(v[i]));
        beyond3 += fabs(v[i]) > 3.0;
    }
    assert_true(beyond3 > 150 && beyond3 < 400); /* 0.27% expected: 270 */

    n = node(OP_NORMAL, DT_FLOAT64, 1, N, 9);
    n.loc = sc_int(10);
    n.scale = sc_float(2.5);
    gen_whole(&n, v);
    moments(v, N, &mean, &sd);
    assert_true(fabs(mean - 10.0) < 0.05 && fabs(sd - 2.5) < 0.05);

    n = node(OP_UNIFORM, DT_FLOAT64, 1, N, 10);
    n.low = sc_int(-3);
    n.high = sc_int(5);
    gen_whole(&n, v);
    for (int i = 0; i < N; i++)
        assert_true(v[i] >= -3.0 && v[i] < 5.0);
    moments(v, N, &mean, &sd);
    assert_true(fabs(mean - 1.0) < 0.05);

    int32_t *iv = malloc(N * sizeof *iv);
    n = node(OP_RANDINT, DT_INT32, 1, N, 11);
    n.low = sc_int(-2);
    n.high = sc_int(3);
    gen_whole(&n, iv);
    int64_t count[5] = {0};
    for (int i = 0; i < N; i++) {
        assert_true(iv[i] >= -2 && iv[i] < 3);
        count[iv[i] + 2]++;
    }
    for (int k = 0; k < 5; k++)
        assert_true(count[k] > N / 5 - 1000 && count[k] < N / 5 + 1000);
    free(iv);
    free(v);
}

/* rand_math.h's ln, exp and ln Gamma (random2.c's samplers, shared with the
 * CUDA kernel) agree with libm to a few ulps over their whole ranges,
 * subnormals and the edges included. */
static double rel(double got, double want)
{
    if (got == want) return 0;
    return fabs(got - want) / fmax(fabs(want), 0x1p-1074);
}

static void test_rand_math_functions(void **state)
{
    (void)state;
    double worst_log = 0, worst_exp = 0, worst_lg = 0;
    uint64_t z = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 200000; i++) {
        z ^= z << 13;
        z ^= z >> 7;
        z ^= z << 17;
        /* positive doubles of every exponent, subnormals too */
        double x;
        uint64_t bits = z & 0x7FEFFFFFFFFFFFFFull;
        memcpy(&x, &bits, 8);
        if (x > 0) worst_log = fmax(worst_log, rel(rm_log(x), log(x)));
        double y = ((double)(z >> 11) * 0x1p-53 - 0.5) * 1490.0; /* (-745, 745) */
        double ey = exp(y);
        if (ey > 0x1p-1022 && ey < 1.7976931348623157e308)
            worst_exp = fmax(worst_exp, rel(rm_exp(y), ey));
        double g = (double)(z >> 11) * 0x1p-53 * 1e6 + 1e-3;
        worst_lg = fmax(worst_lg, fabs(rm_lgamma(g) - lgamma(g)) / fmax(1.0, fabs(lgamma(g))));
    }
    assert_true(worst_log < 4e-16);
    assert_true(worst_exp < 4e-16);
    assert_true(worst_lg < 1e-14);
    /* the edges */
    assert_true(rm_log(0.0) == -INFINITY);
    assert_true(isnan(rm_log(-1.0)));
    assert_true(rm_log(INFINITY) == INFINITY);
    assert_true(rm_log(1.0) == 0.0);
    assert_true(rel(rm_log(4.9406564584124654e-324), log(4.9406564584124654e-324)) < 4e-16);
    assert_true(rm_exp(0.0) == 1.0);
    assert_true(rm_exp(710.0) == INFINITY);
    assert_true(rm_exp(-746.0) == 0.0);
    assert_true(isnan(rm_exp(NAN)));
    assert_true(rm_exp(-740.0) > 0 && rel(rm_exp(-740.0), exp(-740.0)) < 1e-3); /* subnormal */
    assert_true(rm_lgamma(1.0) == 0.0 && rm_lgamma(2.0) == 0.0);
    assert_true(fabs(rm_lgamma(0.5) - 0.5723649429247001) < 1e-14); /* sqrt(pi) */
    assert_true(fabs(rm_lgamma(171.0) - lgamma(171.0)) / lgamma(171.0) < 1e-15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_philox_kat),        cmocka_unit_test(test_counter_mapping),
        cmocka_unit_test(test_box_muller_values), cmocka_unit_test(test_chunking_invariance),
        cmocka_unit_test(test_distributions),     cmocka_unit_test(test_rand_math_functions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
