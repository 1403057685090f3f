/* test_linalg.c: tensordot, matmul and syrk against naive loops and against
 * values numpy 1.24 computed (quoted in each test). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"

/* ---------------------------------------------------------------------------
 * Helpers */

static shape_t shp(int nd, ...)
{
    shape_t s = {.ndim = nd};
    va_list ap;
    va_start(ap, nd);
    for (int i = 0; i < nd; i++)
        s.d[i] = va_arg(ap, int);
    va_end(ap);
    return s;
}

static arr_t mk(dtype_t dt, shape_t s)
{
    int64_t n = shape_size(&s);
    arr_t a = {.data = calloc((size_t)(n ? n : 1), dt_size(dt)), .dt = dt, .shape = s};
    assert_non_null(a.data);
    return a;
}

/* Deterministic values: small integers for floats (exact sums), spread
 * values for ints (so products wrap), about half true for bools. */
static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void fill(arr_t *a)
{
    int64_t n = shape_size(&a->shape);
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = rnd();
        switch (a->dt) {
        case DT_BOOL:
            ((uint8_t *)a->data)[i] = (r >> 20) % 3 == 0;
            break;
        case DT_INT32:
            ((int32_t *)a->data)[i] = (int32_t)(uint32_t)r;
            break;
        case DT_INT64:
            ((int64_t *)a->data)[i] = (int64_t)r;
            break;
        case DT_FLOAT32:
            ((float *)a->data)[i] = (float)((int)(r % 17) - 8) / 4.0f;
            break;
        default:
            ((double *)a->data)[i] = (double)((int64_t)(r % 2001) - 1000) / 64.0;
            break;
        }
    }
}

static void fill_nan(arr_t *a)
{
    int64_t n = shape_size(&a->shape);
    for (int64_t i = 0; i < n; i++) {
        if (a->dt == DT_FLOAT64)
            ((double *)a->data)[i] = NAN;
        else if (a->dt == DT_FLOAT32)
            ((float *)a->data)[i] = NAN;
        else
            memset((char *)a->data + i * (int64_t)dt_size(a->dt), 0x5a, dt_size(a->dt));
    }
}

static arr_t copy_arr(const arr_t *a)
{
    arr_t c = mk(a->dt, a->shape);
    memcpy(c.data, a->data, (size_t)shape_size(&a->shape) * dt_size(a->dt));
    return c;
}

/* Reference accumulators: floats in long double, ints wrapping in uint64
 * (truncated to the dtype at the end), bools as OR of ANDs. */
static long double getf(const arr_t *a, int64_t i)
{
    return a->dt == DT_FLOAT64 ? ((double *)a->data)[i] : ((float *)a->data)[i];
}
static uint64_t geti(const arr_t *a, int64_t i)
{
    switch (a->dt) {
    case DT_BOOL:
        return ((uint8_t *)a->data)[i] != 0;
    case DT_INT32:
        return (uint64_t)(int64_t)((int32_t *)a->data)[i];
    default:
        return (uint64_t)((int64_t *)a->data)[i];
    }
}

typedef struct {
    long double f;
    uint64_t i;
} acc_t;

static void acc_add(acc_t *s, const arr_t *a, int64_t ia, const arr_t *b, int64_t ib)
{
    if (dt_is_float(a->dt))
        s->f += getf(a, ia) * getf(b, ib);
    else if (a->dt == DT_BOOL)
        s->i |= geti(a, ia) & geti(b, ib);
    else
        s->i += geti(a, ia) * geti(b, ib);
}

/* Compares out[o] with old[o] (+) s (old NULL: no accumulate). */
static void check_elem(const arr_t *out, const arr_t *old, int64_t o, acc_t s)
{
    switch (out->dt) {
    case DT_FLOAT64:
    case DT_FLOAT32: {
        long double want = s.f + (old ? getf(old, o) : 0);
        long double got = getf(out, o);
        long double tol = (out->dt == DT_FLOAT64 ? 1e-9L : 1e-3L) * (1 + fabsl(want));
        if (!(fabsl(got - want) <= tol))
            fail_msg("element %lld: got %Lg, want %Lg", (long long)o, got, want);
        break;
    }
    case DT_BOOL: {
        uint64_t want = s.i | (old ? geti(old, o) : 0);
        uint8_t got = ((uint8_t *)out->data)[o];
        if (got != want)
            fail_msg("element %lld: got %u, want %llu", (long long)o, got,
                     (unsigned long long)want);
        break;
    }
    case DT_INT32: {
        uint32_t want = (uint32_t)(s.i + (old ? geti(old, o) : 0));
        assert_int_equal((uint32_t)((int32_t *)out->data)[o], want);
        break;
    }
    default: {
        uint64_t want = s.i + (old ? geti(old, o) : 0);
        assert_int_equal((uint64_t)((int64_t *)out->data)[o], want);
        break;
    }
    }
}

static void strides(const shape_t *s, int64_t *st)
{
    int64_t x = 1;
    for (int d = s->ndim - 1; d >= 0; d--) {
        st[d] = x;
        x *= s->d[d];
    }
}

/* Naive tensordot check of out against a, b (and old when accumulating). */
static void check_tensordot(const arr_t *a, const arr_t *b, int n, const int *ca, const int *cb,
                            const arr_t *out, const arr_t *old)
{
    int64_t sa[MR_MAXDIM], sb[MR_MAXDIM];
    strides(&a->shape, sa);
    strides(&b->shape, sb);
    bool acon[MR_MAXDIM] = {0}, bcon[MR_MAXDIM] = {0};
    for (int i = 0; i < n; i++)
        acon[ca[i]] = bcon[cb[i]] = true;
    int afree[MR_MAXDIM], bfree[MR_MAXDIM], naf = 0, nbf = 0;
    for (int d = 0; d < a->shape.ndim; d++)
        if (!acon[d]) afree[naf++] = d;
    for (int d = 0; d < b->shape.ndim; d++)
        if (!bcon[d]) bfree[nbf++] = d;
    assert_int_equal(out->shape.ndim, naf + nbf);
    int64_t total = shape_size(&out->shape), K = 1;
    for (int i = 0; i < n; i++)
        K *= a->shape.d[ca[i]];
    for (int64_t o = 0; o < total; o++) {
        /* decompose o over out's axes: a's free, then b's free */
        int64_t r = o, ia = 0, ib = 0;
        for (int d = out->shape.ndim - 1; d >= 0; d--) {
            int64_t idx = r % out->shape.d[d];
            r /= out->shape.d[d];
            if (d >= naf)
                ib += idx * sb[bfree[d - naf]];
            else
                ia += idx * sa[afree[d]];
        }
        acc_t s = {0};
        for (int64_t k = 0; k < K; k++) {
            int64_t rk = k, ja = ia, jb = ib;
            for (int i = n - 1; i >= 0; i--) {
                int64_t idx = rk % a->shape.d[ca[i]];
                rk /= a->shape.d[ca[i]];
                ja += idx * sa[ca[i]];
                jb += idx * sb[cb[i]];
            }
            acc_add(&s, a, ja, b, jb);
        }
        check_elem(out, old, o, s);
    }
}

static shape_t td_out_shape(const arr_t *a, const arr_t *b, int n, const int *ca, const int *cb)
{
    shape_t s = {0};
    for (int d = 0; d < a->shape.ndim; d++) {
        bool c = false;
        for (int i = 0; i < n; i++)
            c |= ca[i] == d;
        if (!c) s.d[s.ndim++] = a->shape.d[d];
    }
    for (int d = 0; d < b->shape.ndim; d++) {
        bool c = false;
        for (int i = 0; i < n; i++)
            c |= cb[i] == d;
        if (!c) s.d[s.ndim++] = b->shape.d[d];
    }
    return s;
}

/* Runs tensordot on random operands, overwriting (out pre-filled with NaN
 * or junk, which must not leak through) and then accumulating. */
static void run_td(dtype_t dt, shape_t sa, shape_t sb, int n, const int *ca, const int *cb)
{
    arr_t a = mk(dt, sa), b = mk(dt, sb);
    fill(&a);
    fill(&b);
    arr_t out = mk(dt, td_out_shape(&a, &b, n, ca, cb));
    fill_nan(&out);
    kern_tensordot(&a, &b, n, ca, cb, false, &out);
    check_tensordot(&a, &b, n, ca, cb, &out, NULL);

    fill(&out);
    arr_t old = copy_arr(&out);
    kern_tensordot(&a, &b, n, ca, cb, true, &out);
    check_tensordot(&a, &b, n, ca, cb, &out, &old);
    free(a.data);
    free(b.data);
    free(out.data);
    free(old.data);
}

static const dtype_t all_dt[] = {DT_FLOAT64, DT_FLOAT32, DT_INT64, DT_INT32, DT_BOOL};
#define FOR_DT for (size_t di = 0; di < sizeof all_dt / sizeof all_dt[0]; di++)

/* ---------------------------------------------------------------------------
 * tensordot */

static void test_td_dot(void **st)
{
    FOR_DT
    {
        run_td(all_dt[di], shp(2, 7, 5), shp(2, 5, 6), 1, (int[]){1}, (int[]){0});
        run_td(all_dt[di], shp(2, 70, 33), shp(2, 33, 41), 1, (int[]){1}, (int[]){0});
    }
}

static void test_td_inner(void **st)
{
    FOR_DT
    {
        /* inner(a, b): gemm(a, bᵀ), b read transposed in place */
        run_td(all_dt[di], shp(2, 9, 13), shp(2, 6, 13), 1, (int[]){1}, (int[]){1});
        run_td(all_dt[di], shp(3, 4, 3, 13), shp(3, 2, 5, 13), 1, (int[]){2}, (int[]){2});
    }
}

static void test_td_leading(void **st)
{
    FOR_DT
    {
        /* aᵀ b: a read transposed in place; and a leading with b trailing */
        run_td(all_dt[di], shp(2, 11, 7), shp(2, 11, 4), 1, (int[]){0}, (int[]){0});
        run_td(all_dt[di], shp(3, 3, 4, 6), shp(3, 5, 3, 4), 2, (int[]){0, 1}, (int[]){1, 2});
    }
}

static void test_td_3d_reordered(void **st)
{
    FOR_DT
    {
        /* pairs (1,1), (2,0): in place for a when ordered by a's axes, for b
         * when ordered by b's; exactly one copy either way */
        run_td(all_dt[di], shp(3, 3, 4, 5), shp(3, 5, 4, 2), 2, (int[]){1, 2}, (int[]){1, 0});
        /* a's trailing axes given in reverse order */
        run_td(all_dt[di], shp(3, 3, 4, 5), shp(3, 5, 4, 2), 2, (int[]){2, 1}, (int[]){0, 1});
    }
}

static void test_td_middle_axes(void **st)
{
    FOR_DT
    {
        /* contracted axes in the middle of both: both permuted into scratch */
        run_td(all_dt[di], shp(3, 4, 3, 5), shp(3, 2, 3, 6), 1, (int[]){1}, (int[]){1});
        run_td(all_dt[di], shp(4, 2, 3, 4, 5), shp(4, 4, 2, 3, 3), 2, (int[]){1, 2}, (int[]){3, 0});
    }
}

static void test_td_vectors(void **st)
{
    FOR_DT
    {
        /* gemv paths: M == 1 with b plain or transposed, N == 1 with a plain
         * or transposed, and a dot of two vectors (0-d out) */
        run_td(all_dt[di], shp(1, 17), shp(2, 17, 6), 1, (int[]){0}, (int[]){0});
        run_td(all_dt[di], shp(1, 17), shp(2, 6, 17), 1, (int[]){0}, (int[]){1});
        run_td(all_dt[di], shp(2, 6, 17), shp(1, 17), 1, (int[]){1}, (int[]){0});
        run_td(all_dt[di], shp(2, 17, 6), shp(1, 17), 1, (int[]){0}, (int[]){0});
        run_td(all_dt[di], shp(1, 17), shp(1, 17), 1, (int[]){0}, (int[]){0});
        run_td(all_dt[di], shp(2, 3, 4), shp(2, 4, 3), 2, (int[]){0, 1}, (int[]){1, 0});
    }
}

static void test_td_outer(void **st)
{
    FOR_DT
    {
        run_td(all_dt[di], shp(2, 3, 4), shp(1, 5), 0, NULL, NULL);
        run_td(all_dt[di], shp(0), shp(2, 2, 3), 0, NULL, NULL);
    }
}

static void test_td_numpy_values(void **st)
{
    /* a = np.arange(24.).reshape(2,3,4) - 7.5; b = np.arange(12.).reshape(4,3) * 0.25
     * np.tensordot(a, b, axes=([1, 2], [1, 0])) -> [-13.75, 184.25] */
    arr_t a = mk(DT_FLOAT64, shp(3, 2, 3, 4)), b = mk(DT_FLOAT64, shp(2, 4, 3));
    for (int i = 0; i < 24; i++)
        ((double *)a.data)[i] = i - 7.5;
    for (int i = 0; i < 12; i++)
        ((double *)b.data)[i] = i * 0.25;
    arr_t out = mk(DT_FLOAT64, shp(1, 2));
    kern_tensordot(&a, &b, 2, (int[]){1, 2}, (int[]){1, 0}, false, &out);
    assert_float_equal(((double *)out.data)[0], -13.75, 1e-12);
    assert_float_equal(((double *)out.data)[1], 184.25, 1e-12);

    /* c = np.arange(24.).reshape(4,3,2); np.tensordot(a, c, axes=([1],[1]))
     * has shape (2, 4, 4, 2); its first and last values: */
    arr_t c = mk(DT_FLOAT64, shp(3, 4, 3, 2));
    for (int i = 0; i < 24; i++)
        ((double *)c.data)[i] = i;
    arr_t o2 = mk(DT_FLOAT64, shp(4, 2, 4, 4, 2));
    kern_tensordot(&a, &c, 1, (int[]){1}, (int[]){1}, false, &o2);
    const double *v = o2.data;
    assert_float_equal(v[0], -5.0, 1e-12);
    assert_float_equal(v[1], -15.5, 1e-12);
    assert_float_equal(v[2], -68.0, 1e-12);
    assert_float_equal(v[8], 1.0, 1e-12);
    assert_float_equal(v[63], 740.5, 1e-12);
    free(a.data);
    free(b.data);
    free(c.data);
    free(out.data);
    free(o2.data);
}

static void test_td_int_wrap_numpy(void **st)
{
    /* x = (np.arange(6, dtype=np.int32).reshape(2,3)*100003 + 2**30).astype(np.int32)
     * y = (np.arange(6, dtype=np.int32).reshape(3,2)*7919 + 2**29).astype(np.int32)
     * np.dot(x, y) -> [[2013657538, 1168203337], [699028716, -1609046264]] */
    arr_t x = mk(DT_INT32, shp(2, 2, 3)), y = mk(DT_INT32, shp(2, 3, 2));
    for (int i = 0; i < 6; i++) {
        ((int32_t *)x.data)[i] = i * 100003 + (1 << 30);
        ((int32_t *)y.data)[i] = i * 7919 + (1 << 29);
    }
    arr_t o = mk(DT_INT32, shp(2, 2, 2));
    kern_tensordot(&x, &y, 1, (int[]){1}, (int[]){0}, false, &o);
    const int32_t w32[4] = {2013657538, 1168203337, 699028716, -1609046264};
    assert_memory_equal(o.data, w32, sizeof w32);

    /* x = np.arange(6, dtype=np.int64).reshape(2,3)*(2**40+3) + 2**62
     * y = np.arange(6, dtype=np.int64).reshape(3,2)*(2**33+11) - 2**61
     * np.dot(x, y) -> [[6917650231618175306, -6917371462470860371],
     *                  [339371135861660, 4612170834335761704]] */
    arr_t X = mk(DT_INT64, shp(2, 2, 3)), Y = mk(DT_INT64, shp(2, 3, 2));
    for (int i = 0; i < 6; i++) {
        ((int64_t *)X.data)[i] = i * ((INT64_C(1) << 40) + 3) + (INT64_C(1) << 62);
        ((int64_t *)Y.data)[i] = i * ((INT64_C(1) << 33) + 11) - (INT64_C(1) << 61);
    }
    arr_t O = mk(DT_INT64, shp(2, 2, 2));
    kern_matmul(&X, &Y, false, &O);
    const int64_t w64[4] = {INT64_C(6917650231618175306), INT64_C(-6917371462470860371),
                            INT64_C(339371135861660), INT64_C(4612170834335761704)};
    assert_memory_equal(O.data, w64, sizeof w64);
    free(x.data);
    free(y.data);
    free(o.data);
    free(X.data);
    free(Y.data);
    free(O.data);
}

static void test_td_bool_numpy(void **st)
{
    /* p = [[1,0,0],[0,1,0],[0,0,0]]; q = [[0,1],[0,0],[1,1]] (bool)
     * np.dot(p, q) -> [[0,1],[0,0],[0,0]]; inner with q's rows as b:
     * np.inner(p, q.T) is the same */
    uint8_t p[9] = {1, 0, 0, 0, 1, 0, 0, 0, 0}, q[6] = {0, 1, 0, 0, 1, 1},
            qt[6] = {0, 0, 1, 1, 0, 1};
    arr_t a = {p, DT_BOOL, shp(2, 3, 3)}, b = {q, DT_BOOL, shp(2, 3, 2)},
          bt = {qt, DT_BOOL, shp(2, 2, 3)};
    uint8_t o[6], want[6] = {0, 1, 0, 0, 0, 0};
    arr_t out = {o, DT_BOOL, shp(2, 3, 2)};
    kern_tensordot(&a, &b, 1, (int[]){1}, (int[]){0}, false, &out);
    assert_memory_equal(o, want, 6);
    memset(o, 7, sizeof o);
    kern_tensordot(&a, &bt, 1, (int[]){1}, (int[]){1}, false, &out);
    assert_memory_equal(o, want, 6);
    /* accumulate ORs into what is there (a non-0/1 true byte reads as true) */
    uint8_t prev[6] = {0, 0, 2, 0, 0, 1}, want2[6] = {0, 1, 1, 0, 0, 1};
    memcpy(o, prev, 6);
    kern_tensordot(&a, &b, 1, (int[]){1}, (int[]){0}, true, &out);
    assert_memory_equal(o, want2, 6);
}

static void test_td_zero_size(void **st)
{
    FOR_DT
    {
        dtype_t dt = all_dt[di];
        /* K = 0: zeros, or out unchanged when accumulating */
        arr_t a = mk(dt, shp(2, 3, 0)), b = mk(dt, shp(2, 0, 4)), out = mk(dt, shp(2, 3, 4));
        fill(&out);
        kern_tensordot(&a, &b, 1, (int[]){1}, (int[]){0}, false, &out);
        for (int64_t i = 0; i < 12 * (int64_t)dt_size(dt); i++)
            assert_int_equal(((uint8_t *)out.data)[i], 0);
        fill(&out);
        arr_t old = copy_arr(&out);
        kern_tensordot(&a, &b, 1, (int[]){1}, (int[]){0}, true, &out);
        assert_memory_equal(out.data, old.data, 12 * dt_size(dt));
        /* inner with K = 0 and a non-trailing zero axis */
        run_td(dt, shp(3, 2, 0, 3), shp(2, 4, 0), 1, (int[]){1}, (int[]){1});
        /* M = 0 and N = 0: nothing to write */
        run_td(dt, shp(2, 0, 5), shp(2, 5, 4), 1, (int[]){1}, (int[]){0});
        run_td(dt, shp(2, 3, 5), shp(2, 5, 0), 1, (int[]){1}, (int[]){0});
        run_td(dt, shp(3, 3, 0, 5), shp(2, 3, 4), 1, (int[]){0}, (int[]){0});
        free(a.data);
        free(b.data);
        free(out.data);
        free(old.data);
    }
}

/* ---------------------------------------------------------------------------
 * matmul */

static void check_matmul(const arr_t *a, const arr_t *b, const arr_t *out, const arr_t *old)
{
    int nda = a->shape.ndim, ndb = b->shape.ndim, ndo = out->shape.ndim, nb = ndo - 2;
    int64_t M = a->shape.d[nda - 2], K = a->shape.d[nda - 1], N = b->shape.d[ndb - 1];
    int64_t total = shape_size(&out->shape);
    for (int64_t o = 0; o < total; o++) {
        int64_t r = o;
        int64_t j = r % N, i = (r / N) % M;
        r /= M * N;
        /* batch index in out, then mapped to a and b with broadcasting */
        int64_t aoff = 0, boff = 0, ast = 1, bst = 1;
        for (int d = nb - 1; d >= 0; d--) {
            int64_t idx = r % out->shape.d[d];
            r /= out->shape.d[d];
            int da = d - (nb - (nda - 2)), db = d - (nb - (ndb - 2));
            if (da >= 0) {
                aoff += (a->shape.d[da] == 1 ? 0 : idx) * ast;
                ast *= a->shape.d[da];
            }
            if (db >= 0) {
                boff += (b->shape.d[db] == 1 ? 0 : idx) * bst;
                bst *= b->shape.d[db];
            }
        }
        acc_t s = {0};
        for (int64_t k = 0; k < K; k++)
            acc_add(&s, a, aoff * M * K + i * K + k, b, boff * K * N + k * N + j);
        check_elem(out, old, o, s);
    }
}

static void run_mm(dtype_t dt, shape_t sa, shape_t sb, shape_t so)
{
    arr_t a = mk(dt, sa), b = mk(dt, sb), out = mk(dt, so);
    fill(&a);
    fill(&b);
    fill_nan(&out);
    kern_matmul(&a, &b, false, &out);
    check_matmul(&a, &b, &out, NULL);
    fill(&out);
    arr_t old = copy_arr(&out);
    kern_matmul(&a, &b, true, &out);
    check_matmul(&a, &b, &out, &old);
    free(a.data);
    free(b.data);
    free(out.data);
    free(old.data);
}

static void test_mm_plain(void **st)
{
    FOR_DT
    {
        run_mm(all_dt[di], shp(2, 8, 5), shp(2, 5, 7), shp(2, 8, 7));
        run_mm(all_dt[di], shp(2, 1, 5), shp(2, 5, 7), shp(2, 1, 7));
        run_mm(all_dt[di], shp(2, 8, 5), shp(2, 5, 1), shp(2, 8, 1));
    }
}

static void test_mm_broadcast(void **st)
{
    FOR_DT
    {
        /* both broadcast: (2,1,3,4) @ (5,4,2) -> (2,5,3,2) */
        run_mm(all_dt[di], shp(4, 2, 1, 3, 4), shp(3, 5, 4, 2), shp(4, 2, 5, 3, 2));
        /* stacked a, shared b: one gemm over all batches */
        run_mm(all_dt[di], shp(3, 3, 4, 5), shp(2, 5, 2), shp(3, 3, 4, 2));
        run_mm(all_dt[di], shp(4, 2, 3, 4, 5), shp(4, 1, 1, 5, 2), shp(4, 2, 3, 4, 2));
        /* shared a, stacked b */
        run_mm(all_dt[di], shp(2, 4, 5), shp(3, 3, 5, 2), shp(3, 3, 4, 2));
        /* size-1 batch axes on both sides */
        run_mm(all_dt[di], shp(3, 1, 4, 5), shp(3, 1, 5, 2), shp(3, 1, 4, 2));
    }
}

static void test_mm_numpy_values(void **st)
{
    /* A = np.arange(24, dtype=np.float32).reshape(2,1,3,4) / 7
     * B = np.arange(40, dtype=np.float32).reshape(5,4,2) / 3
     * (A @ B).shape == (2,5,3,2); (A @ B).ravel()[:6] == below */
    arr_t a = mk(DT_FLOAT32, shp(4, 2, 1, 3, 4)), b = mk(DT_FLOAT32, shp(3, 5, 4, 2)),
          o = mk(DT_FLOAT32, shp(4, 2, 5, 3, 2));
    for (int i = 0; i < 24; i++)
        ((float *)a.data)[i] = (float)i / 7;
    for (int i = 0; i < 40; i++)
        ((float *)b.data)[i] = (float)i / 3;
    kern_matmul(&a, &b, false, &o);
    const double want[6] = {1.3333333730697632, 1.6190476417541504, 3.6190476417541504,
                            4.666666507720947,  5.904762268066406,  7.714285850524902};
    for (int i = 0; i < 6; i++)
        assert_float_equal(((float *)o.data)[i], want[i], 1e-5);
    free(a.data);
    free(b.data);
    free(o.data);
}

static void test_mm_zero_size(void **st)
{
    FOR_DT
    {
        run_mm(all_dt[di], shp(2, 3, 0), shp(2, 0, 4), shp(2, 3, 4));
        run_mm(all_dt[di], shp(3, 0, 3, 4), shp(2, 4, 2), shp(3, 0, 3, 2));
        run_mm(all_dt[di], shp(3, 2, 3, 4), shp(3, 1, 4, 0), shp(3, 2, 3, 0));
        run_mm(all_dt[di], shp(3, 2, 3, 0), shp(3, 2, 0, 5), shp(3, 2, 3, 5));
    }
}

/* ---------------------------------------------------------------------------
 * syrk: equal to tensordot(a, a, ([1], [1])) computed by gemm */

static void check_syrk_vs_gemm(dtype_t dt, int m, int k, bool acc, bool symmetric_old)
{
    arr_t a = mk(dt, shp(2, m, k)), s = mk(dt, shp(2, m, m));
    fill(&a);
    if (acc) {
        fill(&s);
        if (symmetric_old) {
            /* an earlier partial sum: symmetric */
            arr_t p = mk(dt, shp(2, m, k));
            fill(&p);
            kern_tensordot(&p, &p, 1, (int[]){1}, (int[]){1}, false, &s);
            free(p.data);
        }
    } else {
        fill_nan(&s);
    }
    arr_t old = copy_arr(&s);
    kern_syrk(&a, acc, &s);
    check_tensordot(&a, &a, 1, (int[]){1}, (int[]){1}, &s, acc ? &old : NULL);
    if (dt_is_float(dt)) {
        /* and against the gemm result itself, element for element */
        arr_t g = copy_arr(&old);
        kern_tensordot(&a, &a, 1, (int[]){1}, (int[]){1}, acc, &g);
        for (int64_t i = 0; i < (int64_t)m * m; i++) {
            double x = (double)getf(&s, i), y = (double)getf(&g, i);
            assert_float_equal(x, y, (dt == DT_FLOAT64 ? 1e-9 : 1e-3) * (1 + fabs(y)));
        }
        free(g.data);
    }
    if (!acc || symmetric_old) {
        /* exactly symmetric */
        int64_t es = (int64_t)dt_size(dt);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++)
                assert_memory_equal((char *)s.data + ((int64_t)i * m + j) * es,
                                    (char *)s.data + ((int64_t)j * m + i) * es, (size_t)es);
    }
    free(a.data);
    free(s.data);
    free(old.data);
}

static void test_syrk(void **st)
{
    FOR_DT
    {
        dtype_t dt = all_dt[di];
        check_syrk_vs_gemm(dt, 7, 5, false, false);
        check_syrk_vs_gemm(dt, 150, 37, false, false); /* several mirror tiles */
        check_syrk_vs_gemm(dt, 150, 37, true, true);
        check_syrk_vs_gemm(dt, 70, 9, true, false); /* out not symmetric */
        check_syrk_vs_gemm(dt, 1, 4, true, false);
    }
}

static void test_syrk_zero_size(void **st)
{
    FOR_DT
    {
        dtype_t dt = all_dt[di];
        arr_t a = mk(dt, shp(2, 4, 0)), s = mk(dt, shp(2, 4, 4));
        fill(&s);
        arr_t old = copy_arr(&s);
        kern_syrk(&a, true, &s);
        assert_memory_equal(s.data, old.data, 16 * dt_size(dt));
        kern_syrk(&a, false, &s);
        for (size_t i = 0; i < 16 * dt_size(dt); i++)
            assert_int_equal(((uint8_t *)s.data)[i], 0);
        arr_t e = mk(dt, shp(2, 0, 5)), se = mk(dt, shp(2, 0, 0));
        kern_syrk(&e, false, &se);
        free(a.data);
        free(s.data);
        free(old.data);
        free(e.data);
        free(se.data);
    }
}

int main(void)
{
    kern_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_td_dot),
        cmocka_unit_test(test_td_inner),
        cmocka_unit_test(test_td_leading),
        cmocka_unit_test(test_td_3d_reordered),
        cmocka_unit_test(test_td_middle_axes),
        cmocka_unit_test(test_td_vectors),
        cmocka_unit_test(test_td_outer),
        cmocka_unit_test(test_td_numpy_values),
        cmocka_unit_test(test_td_int_wrap_numpy),
        cmocka_unit_test(test_td_bool_numpy),
        cmocka_unit_test(test_td_zero_size),
        cmocka_unit_test(test_mm_plain),
        cmocka_unit_test(test_mm_broadcast),
        cmocka_unit_test(test_mm_numpy_values),
        cmocka_unit_test(test_mm_zero_size),
        cmocka_unit_test(test_syrk),
        cmocka_unit_test(test_syrk_zero_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
