/* Creation ops: values as numpy 1.24 computes them (hex values taken from
 * Debian's numpy 1.24), identical whatever the chunking. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"

static kern_gen_t node(op_t op, dtype_t dt, int nd, const int64_t *shape)
{
    kern_gen_t n;
    memset(&n, 0, sizeof n);
    n.op = op;
    n.dt = dt;
    n.shape.ndim = nd;
    for (int i = 0; i < nd; i++)
        n.shape.d[i] = shape[i];
    return n;
}

/* Generates a 1-D node whole, and again in the chunks cut[0..nc], and checks
 * both agree byte for byte; leaves the whole result in out. */
static void gen_1d(const kern_gen_t *n, void *out, const int64_t *cut, int nc)
{
    int64_t len = n->shape.d[0];
    size_t es = dt_size(n->dt);
    int64_t zero = 0;
    arr_t whole = {out, n->dt, n->shape};
    kern_create(n, &zero, &whole);
    char *pieces = malloc((size_t)len * es + 1);
    for (int k = 0; k < nc; k++) {
        int64_t off = cut[k];
        arr_t a = {pieces + (size_t)off * es, n->dt, {.ndim = 1, .d = {cut[k + 1] - off}}};
        kern_create(n, &off, &a);
    }
    assert_memory_equal(pieces, out, (size_t)len * es);
    free(pieces);
}

static void test_fill_ops(void **state)
{
    (void)state;
    int64_t sh[2] = {3, 4}, off[2] = {0, 0};
    int32_t i32[12];
    kern_gen_t n = node(OP_FULL, DT_INT32, 2, sh);
    n.fill_value = sc_float(-2.7);
    arr_t a = {i32, DT_INT32, n.shape};
    kern_create(&n, off, &a);
    for (int i = 0; i < 12; i++)
        assert_int_equal(i32[i], -2);
    double d[12];
    n = node(OP_ONES, DT_FLOAT64, 2, sh);
    arr_t b = {d, DT_FLOAT64, n.shape};
    kern_create(&n, off, &b);
    for (int i = 0; i < 12; i++)
        assert_true(d[i] == 1.0);
    n.op = OP_ZEROS;
    kern_create(&n, off, &b);
    for (int i = 0; i < 12; i++)
        assert_true(d[i] == 0.0 && !signbit(d[i]));
    uint8_t bo[12];
    n = node(OP_FULL, DT_BOOL, 2, sh);
    n.fill_value = sc_float(NAN);
    arr_t c = {bo, DT_BOOL, n.shape};
    kern_create(&n, off, &c);
    for (int i = 0; i < 12; i++)
        assert_int_equal(bo[i], 1);
}

static void test_arange_float(void **state)
{
    (void)state;
    /* np.arange(0.1, 100, 0.3): 334 values; delta = (0.1 + 0.3) - 0.1 */
    int64_t len = 334;
    kern_gen_t n = node(OP_ARANGE, DT_FLOAT64, 1, &len);
    n.start = sc_float(0.1);
    n.stop = sc_int(100);
    n.step = sc_float(0.3);
    double d[334];
    int64_t cut[] = {0, 1, 2, 100, 334};
    gen_1d(&n, d, cut, 4);
    assert_true(d[0] == 0x1.999999999999ap-4);
    assert_true(d[1] == 0x1.999999999999ap-2);
    assert_true(d[2] == 0x1.6666666666667p-1);
    assert_true(d[3] == 0x1.0000000000001p+0); /* 0.1 + 3 * 0.3 would differ */
    assert_true(d[332] == 0x1.8eccccccccccdp+6);

    /* float32: start + i * delta in float32 arithmetic */
    len = 999;
    n = node(OP_ARANGE, DT_FLOAT32, 1, &len);
    n.start = sc_float(0.1);
    n.stop = sc_int(100);
    n.step = sc_float(0.1);
    float f[999];
    int64_t cut2[] = {0, 7, 500, 999};
    gen_1d(&n, f, cut2, 3);
    assert_true(f[0] == 0x1.99999ap-4f);
    assert_true(f[1] == 0x1.99999ap-3f);
    assert_true(f[2] == 0x1.333334p-2f);
    assert_true(f[6] == 0x1.666668p-1f); /* float64 arithmetic would differ */
    assert_true(f[998] == 0x1.8f999ap+6f);

    /* start -0.0 stays -0.0 */
    len = 4;
    n = node(OP_ARANGE, DT_FLOAT64, 1, &len);
    n.start = sc_float(-0.0);
    n.step = sc_float(1.5);
    int64_t cut3[] = {0, 4};
    gen_1d(&n, d, cut3, 1);
    assert_true(d[0] == 0.0 && signbit(d[0]) && d[1] == 1.5 && d[3] == 4.5);
}

static void test_arange_int(void **state)
{
    (void)state;
    int64_t len = 5;
    kern_gen_t n = node(OP_ARANGE, DT_INT32, 1, &len);
    n.start = sc_int(3);
    n.step = sc_int(-3);
    int32_t i32[5], e32[] = {3, 0, -3, -6, -9};
    int64_t cut[] = {0, 2, 5};
    gen_1d(&n, i32, cut, 2);
    assert_memory_equal(i32, e32, sizeof e32);
    len = 3; /* np.arange(0.5, 5, 1.5, dtype=int64) == [0, 2, 4] */
    n = node(OP_ARANGE, DT_INT64, 1, &len);
    n.start = sc_float(0.5);
    n.step = sc_float(1.5);
    int64_t i64[3], e64[] = {0, 2, 4}, cut2[] = {0, 1, 3};
    gen_1d(&n, i64, cut2, 2);
    assert_memory_equal(i64, e64, sizeof e64);
    len = 4; /* large exact integers */
    n = node(OP_ARANGE, DT_INT64, 1, &len);
    n.start = sc_int(9007199254740993LL);
    n.step = sc_int(1);
    int64_t big[4], cut3[] = {0, 3, 4};
    gen_1d(&n, big, cut3, 2);
    assert_true(big[0] == 9007199254740993LL && big[2] == 9007199254740995LL);
}

static void test_linspace(void **state)
{
    (void)state;
    int64_t len = 11;
    kern_gen_t n = node(OP_LINSPACE, DT_FLOAT64, 1, &len);
    n.start = sc_float(-1.3);
    n.stop = sc_float(2.9);
    n.num = 11;
    n.endpoint = false;
    double d[11];
    const double e1[] = {-0x1.4cccccccccccdp+0, -0x1.d61bed61bed62p-1, -0x1.129e4129e412ap-1,
                         -0x1.3c8253c8253c8p-3, 0x1.d1745d1745d18p-3,  0x1.37dac37dac37ep-1,
                         0x1.fb586fb586fb6p-1,  0x1.5f6b0df6b0df7p+0,  0x1.c129e4129e413p+0,
                         0x1.11745d1745d18p+1,  0x1.4253c8253c826p+1};
    int64_t cut[] = {0, 3, 4, 11};
    gen_1d(&n, d, cut, 3);
    for (int i = 0; i < 11; i++)
        assert_true(d[i] == e1[i]);

    len = 7;
    n = node(OP_LINSPACE, DT_FLOAT64, 1, &len);
    n.start = sc_int(0);
    n.stop = sc_int(1);
    n.num = 7;
    n.endpoint = true;
    const double e2[] = {0x0.0p+0, 0x1.5555555555555p-3, 0x1.5555555555555p-2,
                         0x1.0p-1, 0x1.5555555555555p-1, 0x1.aaaaaaaaaaaaap-1,
                         0x1.0p+0};
    int64_t cut2[] = {0, 6, 7};
    gen_1d(&n, d, cut2, 2);
    for (int i = 0; i < 7; i++)
        assert_true(d[i] == e2[i]);

    len = 1; /* num 1 with endpoint: [start] */
    n = node(OP_LINSPACE, DT_FLOAT64, 1, &len);
    n.start = sc_float(2.5);
    n.stop = sc_float(3.5);
    n.num = 1;
    n.endpoint = true;
    int64_t cut3[] = {0, 1};
    gen_1d(&n, d, cut3, 1);
    assert_true(d[0] == 2.5);

    len = 5; /* denormal step: (i / div) * delta */
    n = node(OP_LINSPACE, DT_FLOAT64, 1, &len);
    n.start = sc_int(0);
    n.stop = sc_float(1e-320);
    n.num = 5;
    n.endpoint = true;
    int64_t cut4[] = {0, 5};
    gen_1d(&n, d, cut4, 1);
    assert_true(d[1] == 2.5e-321 && d[2] == 5e-321 && d[4] == 1e-320);

    len = 9; /* integer dtype: floor, then cast */
    n = node(OP_LINSPACE, DT_INT64, 1, &len);
    n.start = sc_float(-3.5);
    n.stop = sc_float(7.2);
    n.num = 9;
    n.endpoint = true;
    int64_t iv[9], ie[] = {-4, -3, -1, 0, 1, 3, 4, 5, 7}, cut5[] = {0, 4, 9};
    gen_1d(&n, iv, cut5, 2);
    assert_memory_equal(iv, ie, sizeof ie);
}

static void test_eye(void **state)
{
    (void)state;
    int64_t sh[2] = {5, 7};
    for (int64_t k = -6; k <= 8; k++) {
        kern_gen_t n = node(OP_EYE, DT_INT32, 2, sh);
        n.k = k;
        int32_t whole[35];
        int64_t zero[2] = {0, 0};
        arr_t w = {whole, DT_INT32, n.shape};
        kern_create(&n, zero, &w);
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 7; j++)
                assert_int_equal(whole[i * 7 + j], j - i == k);
        /* chunks of (2, 3) */
        for (int64_t r0 = 0; r0 < 5; r0 += 2)
            for (int64_t c0 = 0; c0 < 7; c0 += 3) {
                int64_t rows = r0 + 2 <= 5 ? 2 : 5 - r0, cols = c0 + 3 <= 7 ? 3 : 7 - c0;
                int32_t ch[6];
                int64_t off[2] = {r0, c0};
                arr_t a = {ch, DT_INT32, {.ndim = 2, .d = {rows, cols}}};
                kern_create(&n, off, &a);
                for (int i = 0; i < rows; i++)
                    for (int j = 0; j < cols; j++)
                        assert_int_equal(ch[i * cols + j], whole[(r0 + i) * 7 + c0 + j]);
            }
    }
    kern_gen_t n = node(OP_EYE, DT_FLOAT64, 2, sh);
    n.k = INT64_MAX;
    double d[35];
    int64_t zero[2] = {0, 0};
    arr_t a = {d, DT_FLOAT64, n.shape};
    kern_create(&n, zero, &a);
    for (int i = 0; i < 35; i++)
        assert_true(d[i] == 0.0);
}

static void test_array_regions(void **state)
{
    (void)state;
    int64_t sh[3] = {4, 5, 6};
    int64_t data[120];
    for (int i = 0; i < 120; i++)
        data[i] = i * 3 - 7;
    kern_gen_t n = node(OP_ARRAY, DT_INT64, 3, sh);
    n.data = data;
    /* a chunk (2, 3, 4) at (1, 2, 1) */
    int64_t ch[24], off[3] = {1, 2, 1};
    arr_t a = {ch, DT_INT64, {.ndim = 3, .d = {2, 3, 4}}};
    kern_create(&n, off, &a);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++)
                assert_true(ch[(i * 3 + j) * 4 + k] == data[((1 + i) * 5 + 2 + j) * 6 + 1 + k]);
    /* a chunk spanning the trailing axes whole: (2, 5, 6) at (2, 0, 0) */
    int64_t ch2[60], off2[3] = {2, 0, 0};
    arr_t b = {ch2, DT_INT64, {.ndim = 3, .d = {2, 5, 6}}};
    kern_create(&n, off2, &b);
    assert_memory_equal(ch2, data + 60, sizeof ch2);
    /* 0-d */
    double s = 4.25, so = 0;
    kern_gen_t z = node(OP_ARRAY, DT_FLOAT64, 0, NULL);
    z.data = &s;
    arr_t c = {&so, DT_FLOAT64, {.ndim = 0}};
    kern_create(&z, NULL, &c);
    assert_true(so == 4.25);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_ops),   cmocka_unit_test(test_arange_float),
        cmocka_unit_test(test_arange_int), cmocka_unit_test(test_linspace),
        cmocka_unit_test(test_eye),        cmocka_unit_test(test_array_regions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
