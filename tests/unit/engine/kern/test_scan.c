/* Scans: local scans, carries and apply across chunks equal one whole scan. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"

static shape_t shp2(int64_t a, int64_t b)
{
    return (shape_t){.ndim = 2, .d = {a, b}};
}

/* Scans a (R, C) array of dtype dt along `axis`, split into chunks at
 * cut[0] < cut[1] < ... < cut[nc] along that axis; writes the (R, C) result
 * (dtype rdt) into res. */
static void chunked_scan(op_t op, dtype_t dt, dtype_t rdt, const void *data, int64_t R, int64_t C,
                         int axis, const int64_t *cut, int nc, void *res)
{
    size_t es = dt_size(dt), rs = dt_size(rdt);
    int64_t other = axis == 0 ? C : R;
    void *carry = NULL;
    void *prev_local = NULL;
    shape_t prev_shape = {0};
    for (int k = 0; k < nc; k++) {
        int64_t len = cut[k + 1] - cut[k];
        shape_t s = axis == 0 ? shp2(len, C) : shp2(R, len);
        /* copy the chunk out */
        char *chunk = malloc((size_t)(len * other) * es);
        for (int64_t i = 0; i < s.d[0]; i++)
            for (int64_t j = 0; j < s.d[1]; j++) {
                int64_t gi = axis == 0 ? cut[k] + i : i, gj = axis == 1 ? cut[k] + j : j;
                memcpy(chunk + (size_t)(i * s.d[1] + j) * es,
                       (const char *)data + (size_t)(gi * C + gj) * es, es);
            }
        arr_t in = {chunk, dt, s};
        char *local = malloc((size_t)(len * other) * rs);
        arr_t lo = {local, rdt, s};
        kern_scan_local(op, &in, axis, &lo);
        char *applied = malloc((size_t)(len * other) * rs);
        arr_t ap = {applied, rdt, s};
        if (k > 0) {
            shape_t cs = axis == 0 ? shp2(1, C) : shp2(R, 1);
            void *next = malloc((size_t)other * rs);
            arr_t pc = {carry, rdt, cs}, pl = {prev_local, rdt, prev_shape}, co = {next, rdt, cs};
            kern_scan_carry(op, k == 1 ? NULL : &pc, &pl, axis, &co);
            free(carry);
            carry = next;
            arr_t ca = {carry, rdt, cs};
            kern_scan_apply(op, &lo, &ca, axis, &ap);
        } else {
            memcpy(applied, local, (size_t)(len * other) * rs);
        }
        for (int64_t i = 0; i < s.d[0]; i++)
            for (int64_t j = 0; j < s.d[1]; j++) {
                int64_t gi = axis == 0 ? cut[k] + i : i, gj = axis == 1 ? cut[k] + j : j;
                memcpy((char *)res + (size_t)(gi * C + gj) * rs,
                       applied + (size_t)(i * s.d[1] + j) * rs, rs);
            }
        free(applied);
        free(prev_local);
        prev_local = local;
        prev_shape = s;
        free(chunk);
    }
    free(prev_local);
    free(carry);
}

static void test_cumsum_int_chunks(void **state)
{
    (void)state;
    enum { R = 7, C = 5 };
    int32_t a[R * C];
    for (int i = 0; i < R * C; i++)
        a[i] = (i * 31) % 23 - 11;
    int64_t whole[R * C], got[R * C];
    for (int axis = 0; axis < 2; axis++) {
        arr_t in = {a, DT_INT32, shp2(R, C)}, out = {whole, DT_INT64, shp2(R, C)};
        kern_scan_local(OP_CUMSUM, &in, axis, &out);
        /* check the whole scan by hand */
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++) {
                int64_t s = 0;
                for (int k = 0; k <= (axis == 0 ? i : j); k++)
                    s += axis == 0 ? a[k * C + j] : a[i * C + k];
                assert_true(whole[i * C + j] == s);
            }
        int64_t cut0[] = {0, 2, 3, 7}, cut1[] = {0, 1, 4, 5};
        chunked_scan(OP_CUMSUM, DT_INT32, DT_INT64, a, R, C, axis, axis == 0 ? cut0 : cut1, 3, got);
        assert_memory_equal(got, whole, sizeof whole);
        chunked_scan(OP_CUMPROD, DT_INT32, DT_INT64, a, R, C, axis, axis == 0 ? cut0 : cut1, 3,
                     got);
        kern_scan_local(OP_CUMPROD, &in, axis, &out);
        assert_memory_equal(got, whole, sizeof whole);
    }
}

static void test_cumprod_float_chunks(void **state)
{
    (void)state;
    enum { N = 1000 };
    double a[N], whole[N], got[N];
    for (int i = 0; i < N; i++)
        a[i] = 1.0 + ((i * 17) % 13 - 6) * 1e-3;
    arr_t in = {a, DT_FLOAT64, shp2(1, N)}, out = {whole, DT_FLOAT64, shp2(1, N)};
    kern_scan_local(OP_CUMPROD, &in, 1, &out);
    double p = 1;
    for (int i = 0; i < N; i++) {
        p *= a[i];
        assert_true(whole[i] == p); /* sequential, as numpy */
    }
    int64_t cut[] = {0, 100, 101, 650, 1000};
    chunked_scan(OP_CUMPROD, DT_FLOAT64, DT_FLOAT64, a, 1, N, 1, cut, 4, got);
    for (int i = 0; i < N; i++)
        assert_true(fabs(got[i] - whole[i]) <= 1e-13 * fabs(whole[i]));
}

static void test_bool_float32_and_wrap(void **state)
{
    (void)state;
    uint8_t b[] = {1, 0, 1, 1, 0, 1};
    int64_t r[6], e[] = {1, 1, 2, 3, 3, 4};
    arr_t in = {b, DT_BOOL, shp2(1, 6)}, out = {r, DT_INT64, shp2(1, 6)};
    kern_scan_local(OP_CUMSUM, &in, 1, &out);
    assert_memory_equal(r, e, sizeof e);

    float f[5] = {0.1f, 0.2f, 0.3f, 1e8f, 1.0f}, fr[5];
    arr_t fin = {f, DT_FLOAT32, shp2(5, 1)}, fout = {fr, DT_FLOAT32, shp2(5, 1)};
    kern_scan_local(OP_CUMSUM, &fin, 0, &fout);
    float acc = 0;
    for (int i = 0; i < 5; i++) {
        acc += f[i];
        assert_true(fr[i] == acc); /* float32 arithmetic: 1e8 + 1 rounds away */
    }
    assert_true(fr[4] == fr[3]);

    /* apply in place (out is local), cumprod carries multiply */
    double loc[] = {1, 2, 3, 4, 5, 6}, car[] = {10, -1};
    arr_t la = {loc, DT_FLOAT64, shp2(2, 3)}, ca = {car, DT_FLOAT64, shp2(2, 1)};
    kern_scan_apply(OP_CUMPROD, &la, &ca, 1, &la);
    double le[] = {10, 20, 30, -4, -5, -6};
    assert_memory_equal(loc, le, sizeof le);

    int64_t w[] = {INT64_MAX, 1};
    arr_t win = {w, DT_INT64, shp2(2, 1)}, wout = {r, DT_INT64, shp2(2, 1)};
    kern_scan_local(OP_CUMSUM, &win, 0, &wout);
    assert_true(r[1] == INT64_MIN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cumsum_int_chunks),
        cmocka_unit_test(test_cumprod_float_chunks),
        cmocka_unit_test(test_bool_float32_and_wrap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
