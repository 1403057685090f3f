/* sortstat.c: the kernels of the sortstat ops (engine/sortstat.h): stable
 * sorts, LSD radix or merge (NaN last, as numpy orders them), numpy 1.24's linear
 * quantile, median, average, binary searches, cov and allclose. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../graph.h"
#include "../sortstat.h"
#include "kern_internal.h"
#include "quant_math.h"
#include "radix.h"

/* ---- stable merge sorts: of values, and of indexes by value ----------- */

#define LT_INT(a, b) ((a) < (b))
#define LT_FLT(a, b) ((a) < (b) || ((b) != (b) && (a) == (a)))

#define DEFINE_SORTS(SUF, T, LT)                                                                   \
    static void vsort_##SUF(T *v, T *tmp, int64_t n)                                               \
    {                                                                                              \
        const int64_t RUN = 24;                                                                    \
        for (int64_t lo = 0; lo < n; lo += RUN) {                                                  \
            int64_t hi = lo + RUN < n ? lo + RUN : n;                                              \
            for (int64_t i = lo + 1; i < hi; i++) {                                                \
                T x = v[i];                                                                        \
                int64_t j = i;                                                                     \
                while (j > lo && LT(x, v[j - 1])) {                                                \
                    v[j] = v[j - 1];                                                               \
                    j--;                                                                           \
                }                                                                                  \
                v[j] = x;                                                                          \
            }                                                                                      \
        }                                                                                          \
        T *src = v, *dst = tmp;                                                                    \
        for (int64_t w = RUN; w < n; w *= 2) {                                                     \
            for (int64_t lo = 0; lo < n; lo += 2 * w) {                                            \
                int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;       \
                int64_t i = lo, j = mid, k = lo;                                                   \
                while (i < mid && j < hi)                                                          \
                    dst[k++] = LT(src[j], src[i]) ? src[j++] : src[i++];                           \
                while (i < mid)                                                                    \
                    dst[k++] = src[i++];                                                           \
                while (j < hi)                                                                     \
                    dst[k++] = src[j++];                                                           \
            }                                                                                      \
            T *t = src;                                                                            \
            src = dst;                                                                             \
            dst = t;                                                                               \
        }                                                                                          \
        if (src != v) memcpy(v, src, sizeof(T) * (size_t)n);                                       \
    }                                                                                              \
    static void isort_##SUF(const T *v, int64_t *ix, int64_t *tmp, int64_t n)                      \
    {                                                                                              \
        const int64_t RUN = 24;                                                                    \
        for (int64_t lo = 0; lo < n; lo += RUN) {                                                  \
            int64_t hi = lo + RUN < n ? lo + RUN : n;                                              \
            for (int64_t i = lo + 1; i < hi; i++) {                                                \
                int64_t x = ix[i];                                                                 \
                int64_t j = i;                                                                     \
                while (j > lo && LT(v[x], v[ix[j - 1]])) {                                         \
                    ix[j] = ix[j - 1];                                                             \
                    j--;                                                                           \
                }                                                                                  \
                ix[j] = x;                                                                         \
            }                                                                                      \
        }                                                                                          \
        int64_t *src = ix, *dst = tmp;                                                             \
        for (int64_t w = RUN; w < n; w *= 2) {                                                     \
            for (int64_t lo = 0; lo < n; lo += 2 * w) {                                            \
                int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;       \
                int64_t i = lo, j = mid, k = lo;                                                   \
                while (i < mid && j < hi)                                                          \
                    dst[k++] = LT(v[src[j]], v[src[i]]) ? src[j++] : src[i++];                     \
                while (i < mid)                                                                    \
                    dst[k++] = src[i++];                                                           \
                while (j < hi)                                                                     \
                    dst[k++] = src[j++];                                                           \
            }                                                                                      \
            int64_t *t = src;                                                                      \
            src = dst;                                                                             \
            dst = t;                                                                               \
        }                                                                                          \
        if (src != ix) memcpy(ix, src, sizeof(int64_t) * (size_t)n);                               \
    }

DEFINE_SORTS(b, uint8_t, LT_INT)
DEFINE_SORTS(i32, int32_t, LT_INT)
DEFINE_SORTS(i64, int64_t, LT_INT)
DEFINE_SORTS(f32, float, LT_FLT)
DEFINE_SORTS(f64, double, LT_FLT)

/* ---- LSD radix sorts (radix.h): 8-bit digits from the lowest, each pass
 * stable, so equal keys keep their order exactly as in the merge sorts
 * above; a pass whose digit is the same in every key is skipped. Keys order as unsigned
 * integers: an integer's bits with the sign bit flipped, a float's with the
 * sign bit flipped (positive) or every bit flipped (negative). 3-4x the
 * merge sort's speed from a few hundred values on. vsort keeps the merge
 * sort for short lines, bool, and float lines holding -0.0 (equal to 0.0,
 * so the merge keeps their order, where the keys would put -0.0 first);
 * NaN go last in their order before the values are sorted. isort's keys
 * map -0.0 to 0.0 and every NaN to the largest key, and cost 16 bytes a
 * value more (a worker's job admission counts a kernel's scratch as its
 * output's size again), so past RADIX_IX_MAX values, 16 MiB of keys, it
 * keeps the merge sort. ------------------------------------------------ */

#define RADIX_MIN 64
#define RADIX_IX_MIN 256
#define RADIX_IX_MAX ((int64_t)1 << 20)

/* keys and indexes in two arrays, moved together (isort) */
#define DEFINE_RADIX_IX(W, K)                                                                      \
    static void radix_ix_##W(K *k, K *kt, int64_t *ix, int64_t *it, int64_t n)                     \
    {                                                                                              \
        int64_t cnt[sizeof(K)][256];                                                               \
        memset(cnt, 0, sizeof cnt);                                                                \
        for (int64_t i = 0; i < n; i++)                                                            \
            for (unsigned p = 0; p < sizeof(K); p++)                                               \
                cnt[p][(k[i] >> (8 * p)) & 255]++;                                                 \
        K *ks = k, *kd = kt;                                                                       \
        int64_t *src = ix, *dst = it;                                                              \
        for (unsigned p = 0; p < sizeof(K); p++) {                                                 \
            int64_t *c = cnt[p];                                                                   \
            if (!radix_starts(c, (unsigned)((ks[0] >> (8 * p)) & 255), n)) continue;               \
            for (int64_t i = 0; i < n; i++) {                                                      \
                int64_t j = c[(ks[i] >> (8 * p)) & 255]++;                                         \
                kd[j] = ks[i];                                                                     \
                dst[j] = src[i];                                                                   \
            }                                                                                      \
            K *u = ks;                                                                             \
            ks = kd;                                                                               \
            kd = u;                                                                                \
            int64_t *t = src;                                                                      \
            src = dst;                                                                             \
            dst = t;                                                                               \
        }                                                                                          \
        if (src != ix) memcpy(ix, src, sizeof(int64_t) * (size_t)n);                               \
    }

/* the buffers hold floats too: keys go through types that may alias them */
typedef uint32_t __attribute__((may_alias)) key32_t;
typedef uint64_t __attribute__((may_alias)) key64_t;

#define RADIX_SELF(x) (x)
DEFINE_RADIX_BY(radix_32, key32_t, uint32_t, RADIX_SELF)
DEFINE_RADIX_BY(radix_64, key64_t, uint64_t, RADIX_SELF)
/* integers: the bits with the sign bit flipped, as they are read */
#define FLIP32(x) ((uint32_t)(x) ^ ((uint32_t)1 << 31))
#define FLIP64(x) ((uint64_t)(x) ^ RADIX_SIGN64)
DEFINE_RADIX_BY(radix_i32, key32_t, uint32_t, FLIP32)
DEFINE_RADIX_BY(radix_i64, key64_t, uint64_t, FLIP64)
DEFINE_RADIX_IX(32, key32_t)
DEFINE_RADIX_IX(64, key64_t)

#define F64_SIGN RADIX_SIGN64
#define F32_SIGN ((uint32_t)1 << 31)
#define F64_NAN(b) (((b) & ~F64_SIGN) > 0x7ff0000000000000ull)
#define F32_NAN(b) (((b) & ~F32_SIGN) > 0x7f800000u)
#define KEY_F64(b) ((b) ^ ((b)&F64_SIGN ? ~(uint64_t)0 : F64_SIGN))
#define UNKEY_F64(k) ((k) ^ ((k)&F64_SIGN ? F64_SIGN : ~(uint64_t)0))
#define KEY_F32(b) ((b) ^ ((b)&F32_SIGN ? ~(uint32_t)0 : F32_SIGN))
#define UNKEY_F32(k) ((k) ^ ((k)&F32_SIGN ? F32_SIGN : ~(uint32_t)0))

/* The float values of v (bits, W wide) radix sorted, NaN last in their
 * order; false, v untouched, when the line holds -0.0. */
#define DEFINE_RSORT_FLT(W, K, SIGN, ISNAN, KEY, UNKEY)                                            \
    static bool rsort_f##W(K *v, K *tmp, int64_t n)                                                \
    {                                                                                              \
        int64_t nan = 0;                                                                           \
        for (int64_t i = 0; i < n; i++) {                                                          \
            if (v[i] == SIGN) return false;                                                        \
            nan += ISNAN(v[i]);                                                                    \
        }                                                                                          \
        int64_t m = n - nan;                                                                       \
        if (nan) {                                                                                 \
            int64_t a = 0, b = m;                                                                  \
            for (int64_t i = 0; i < n; i++)                                                        \
                tmp[ISNAN(v[i]) ? b++ : a++] = v[i];                                               \
            memcpy(v, tmp, sizeof(K) * (size_t)n);                                                 \
        }                                                                                          \
        for (int64_t i = 0; i < m; i++)                                                            \
            v[i] = KEY(v[i]);                                                                      \
        radix_##W(v, tmp, m);                                                                      \
        for (int64_t i = 0; i < m; i++)                                                            \
            v[i] = UNKEY(v[i]);                                                                    \
        return true;                                                                               \
    }

DEFINE_RSORT_FLT(32, key32_t, F32_SIGN, F32_NAN, KEY_F32, UNKEY_F32)
DEFINE_RSORT_FLT(64, key64_t, F64_SIGN, F64_NAN, KEY_F64, UNKEY_F64)

/* ix[] (0 .. n-1) ordered by v's values through radix keys; false when
 * the keys' memory is not to be had (the caller merge sorts). */
static bool risort(dtype_t dt, const void *v, int64_t *ix, int64_t *tmp, int64_t n)
{
    bool narrow = dt == DT_INT32 || dt == DT_FLOAT32;
    size_t ks = narrow ? 4 : 8;
    char *k = malloc(2 * ks * (size_t)n);
    if (!k) return false;
    for (int64_t i = 0; i < n; i++) {
        if (dt == DT_FLOAT32) {
            uint32_t b = ((const key32_t *)v)[i];
            ((key32_t *)k)[i] = F32_NAN(b) ? ~(uint32_t)0 : (b << 1) == 0 ? F32_SIGN : KEY_F32(b);
        } else if (dt == DT_INT32) {
            ((key32_t *)k)[i] = ((const key32_t *)v)[i] ^ F32_SIGN;
        } else if (dt == DT_INT64) {
            ((key64_t *)k)[i] = radix_key_i64(((const int64_t *)v)[i]);
        } else {
            ((key64_t *)k)[i] = radix_key_f64(((const double *)v)[i]);
        }
    }
    if (narrow)
        radix_ix_32((key32_t *)k, (key32_t *)k + n, ix, tmp, n);
    else
        radix_ix_64((key64_t *)k, (key64_t *)k + n, ix, tmp, n);
    free(k);
    return true;
}

static void vsort(dtype_t dt, void *v, void *tmp, int64_t n)
{
    bool radix = n >= RADIX_MIN;
    switch (dt) {
    case DT_BOOL:
        vsort_b(v, tmp, n);
        break;
    case DT_INT32:
        if (radix)
            radix_i32(v, tmp, n);
        else
            vsort_i32(v, tmp, n);
        break;
    case DT_INT64:
        if (radix)
            radix_i64(v, tmp, n);
        else
            vsort_i64(v, tmp, n);
        break;
    case DT_FLOAT32:
        if (!radix || !rsort_f32(v, tmp, n)) vsort_f32(v, tmp, n);
        break;
    default:
        if (!radix || !rsort_f64(v, tmp, n)) vsort_f64(v, tmp, n);
        break;
    }
}

static void isort(dtype_t dt, const void *v, int64_t *ix, int64_t *tmp, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        ix[i] = i;
    if (dt != DT_BOOL && n >= RADIX_IX_MIN && n <= RADIX_IX_MAX && risort(dt, v, ix, tmp, n))
        return;
    switch (dt) {
    case DT_BOOL:
        isort_b(v, ix, tmp, n);
        break;
    case DT_INT32:
        isort_i32(v, ix, tmp, n);
        break;
    case DT_INT64:
        isort_i64(v, ix, tmp, n);
        break;
    case DT_FLOAT32:
        isort_f32(v, ix, tmp, n);
        break;
    default:
        isort_f64(v, ix, tmp, n);
        break;
    }
}

/* ---- selection (values without NaN): v[k] becomes the k-th smallest of
 * v[lo..hi), smaller ones before it, larger after (Hoare, median of 3) --- */
#define DEFINE_SELECT(SUF, T)                                                                      \
    static void select_##SUF(T *v, int64_t lo, int64_t hi, int64_t k)                              \
    {                                                                                              \
        hi--;                                                                                      \
        while (hi > lo) {                                                                          \
            int64_t mid = lo + (hi - lo) / 2;                                                      \
            T a = v[lo], b = v[mid], c = v[hi], p;                                                 \
            p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));             \
            int64_t i = lo, j = hi;                                                                \
            while (i <= j) {                                                                       \
                while (v[i] < p)                                                                   \
                    i++;                                                                           \
                while (p < v[j])                                                                   \
                    j--;                                                                           \
                if (i <= j) {                                                                      \
                    T t = v[i];                                                                    \
                    v[i] = v[j];                                                                   \
                    v[j] = t;                                                                      \
                    i++;                                                                           \
                    j--;                                                                           \
                }                                                                                  \
            }                                                                                      \
            if (k <= j)                                                                            \
                hi = j;                                                                            \
            else if (k >= i)                                                                       \
                lo = i;                                                                            \
            else                                                                                   \
                return;                                                                            \
        }                                                                                          \
    }

DEFINE_SELECT(b, uint8_t)
DEFINE_SELECT(i32, int32_t)
DEFINE_SELECT(i64, int64_t)
DEFINE_SELECT(f32, float)
DEFINE_SELECT(f64, double)

static void vselect(dtype_t dt, void *v, int64_t lo, int64_t hi, int64_t k)
{
    switch (dt) {
    case DT_BOOL:
        select_b(v, lo, hi, k);
        break;
    case DT_INT32:
        select_i32(v, lo, hi, k);
        break;
    case DT_INT64:
        select_i64(v, lo, hi, k);
        break;
    case DT_FLOAT32:
        select_f32(v, lo, hi, k);
        break;
    default:
        select_f64(v, lo, hi, k);
        break;
    }
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Places the order statistics ks[0..nk) of v[0..m) (no NaN) at their
 * positions, as a sort would; ks is sorted in place. */
static void select_many(dtype_t dt, void *v, int64_t m, int64_t *ks, int nk)
{
    qsort(ks, (size_t)nk, sizeof(int64_t), cmp_i64);
    int64_t start = 0;
    for (int i = 0; i < nk; i++) {
        if (ks[i] < start) continue;
        vselect(dt, v, start, m, ks[i]);
        start = ks[i] + 1;
    }
}

static void putd(dtype_t dt, void *p, int64_t i, double x)
{
    if (dt == DT_FLOAT32)
        ((float *)p)[i] = (float)x;
    else
        ((double *)p)[i] = x;
}

/* ---- lines along an axis ------------------------------------------------ */

typedef struct {
    int64_t outer, len, inner;
} lines_t;

static lines_t lines_of(const arr_t *a, int ax)
{
    lines_t l = {1, 1, 1};
    for (int d = 0; d < a->shape.ndim; d++) {
        if (d < ax)
            l.outer *= a->shape.d[d];
        else if (d == ax)
            l.len = a->shape.d[d];
        else
            l.inner *= a->shape.d[d];
    }
    return l;
}

/* Copies line (o, r) of a into buf (contiguous). */
static void line_get(const arr_t *a, lines_t l, int64_t o, int64_t r, void *buf)
{
    size_t es = dt_size(a->dt);
    const char *src = (const char *)a->data + (size_t)(o * l.len * l.inner + r) * es;
    if (l.inner == 1) {
        memcpy(buf, src, (size_t)l.len * es);
        return;
    }
    for (int64_t i = 0; i < l.len; i++)
        memcpy((char *)buf + (size_t)i * es, src + (size_t)(i * l.inner) * es, es);
}

static void line_put(arr_t *a, int64_t olen, lines_t l, int64_t o, int64_t r, const void *buf)
{
    size_t es = dt_size(a->dt);
    char *dst = (char *)a->data + (size_t)(o * olen * l.inner + r) * es;
    if (l.inner == 1) {
        memcpy(dst, buf, (size_t)olen * es);
        return;
    }
    for (int64_t i = 0; i < olen; i++)
        memcpy(dst + (size_t)(i * l.inner) * es, (const char *)buf + (size_t)i * es, es);
}

static int oom(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory");
    return -1;
}

static bool is_nan_at(dtype_t dt, const void *v, int64_t i)
{
    if (dt == DT_FLOAT32) return isnan(((const float *)v)[i]);
    if (dt == DT_FLOAT64) return isnan(((const double *)v)[i]);
    return false;
}

/* sort, argsort, partition (a full sort is a valid partition), argpartition, topk */
static int k_sortlike(const graph_node_t *n, int ax, const arr_t *a, arr_t *o, char *err,
                      size_t errlen)
{
    lines_t l = lines_of(a, ax);
    size_t es = dt_size(a->dt);
    int64_t olen = o->shape.ndim ? o->shape.d[ax] : 1;
    bool idx = n->op == OP_ARGSORT || n->op == OP_ARGPARTITION;
    int64_t len = l.len > 0 ? l.len : 1;
    void *buf = malloc((size_t)len * es), *tmp = malloc((size_t)len * (es > 8 ? es : 8));
    int64_t *ix = malloc(sizeof(int64_t) * (size_t)len), *ox = NULL;
    void *ob = malloc((size_t)len * 8);
    if (!buf || !tmp || !ix || !ob) {
        free(buf);
        free(tmp);
        free(ix);
        free(ob);
        return oom(err, errlen);
    }
    (void)ox;
    for (int64_t oo = 0; oo < l.outer; oo++)
        for (int64_t r = 0; r < l.inner; r++) {
            line_get(a, l, oo, r, buf);
            if (idx) {
                isort(a->dt, buf, ix, tmp, l.len);
                line_put(o, olen, l, oo, r, ix);
            } else if (n->op == OP_TOPK) {
                vsort(a->dt, buf, tmp, l.len);
                int64_t k = olen;
                for (int64_t i = 0; i < k; i++) {
                    int64_t src = n->ss->largest ? l.len - 1 - i : i;
                    memcpy((char *)ob + (size_t)i * es, (char *)buf + (size_t)src * es, es);
                }
                line_put(o, olen, l, oo, r, ob);
            } else {
                vsort(a->dt, buf, tmp, l.len);
                line_put(o, olen, l, oo, r, buf);
            }
        }
    free(buf);
    free(tmp);
    free(ix);
    free(ob);
    return 0;
}

/* numpy 1.24 _lerp of sorted values v[i] and v[j] (dtype dt) by t */
static double lerp_at(dtype_t dt, const void *v, int64_t i, int64_t j, double t)
{
    switch (dt) {
    case DT_FLOAT32:
        return qm_lerp_f32(((const float *)v)[i], ((const float *)v)[j], t);
    case DT_INT32:
        return qm_lerp_i32(((const int32_t *)v)[i], ((const int32_t *)v)[j], t);
    case DT_INT64:
        return qm_lerp_i64(((const int64_t *)v)[i], ((const int64_t *)v)[j], t);
    default:
        return qm_lerp_f64(dt_read_f64(dt, v, i), dt_read_f64(dt, v, j), t);
    }
}

/* numpy median of sorted v[0..m) (mean of the middle one or two) */
static double median_of(dtype_t dt, const void *v, int64_t m)
{
    if (m == 0) return NAN;
    int64_t h = m / 2;
    if (m % 2) return dt_read_f64(dt, v, h);
    if (dt == DT_FLOAT32) return qm_mid_f32(((const float *)v)[h - 1], ((const float *)v)[h]);
    return qm_mid_f64(dt_read_f64(dt, v, h - 1), dt_read_f64(dt, v, h));
}

void ss_quantile_pos(int64_t m, double q, int64_t *pi, int64_t *ni, double *g)
{
    qm_pos(m, q, pi, ni, g);
}

static int k_quantile(const graph_node_t *n, int ax, const arr_t *a, arr_t *o, char *err,
                      size_t errlen)
{
    const ss_node_t *s = n->ss;
    lines_t l = lines_of(a, ax);
    size_t es = dt_size(a->dt);
    bool nanf = n->op == OP_NANPERCENTILE || n->op == OP_NANQUANTILE || n->op == OP_NANMEDIAN;
    bool med = n->op == OP_MEDIAN || n->op == OP_NANMEDIAN;
    int64_t len = l.len > 0 ? l.len : 1, nout = l.outer * l.inner;
    int nq = med ? 1 : s->nq;
    void *buf = malloc((size_t)len * es);
    int64_t *ks = malloc(sizeof(int64_t) * (size_t)(2 * nq + 2));
    if (!buf || !ks) {
        free(buf);
        free(ks);
        return oom(err, errlen);
    }
    for (int64_t oo = 0; oo < l.outer; oo++)
        for (int64_t r = 0; r < l.inner; r++) {
            line_get(a, l, oo, r, buf);
            int64_t m = l.len;
            if (nanf && dt_is_float(a->dt)) { /* drop the NaNs */
                int64_t k = 0;
                for (int64_t i = 0; i < l.len; i++)
                    if (!is_nan_at(a->dt, buf, i)) {
                        if (k != i) memcpy((char *)buf + k * es, (char *)buf + i * es, es);
                        k++;
                    }
                m = k;
            }
            bool has_nan = false;
            for (int64_t i = 0; i < m && dt_is_float(a->dt) && !has_nan; i++)
                has_nan = is_nan_at(a->dt, buf, i);
            int64_t oi = oo * l.inner + r;
            if (!has_nan && m > 0) { /* only the order statistics needed */
                int nk = 0;
                if (med) {
                    ks[nk++] = m / 2;
                    if (m % 2 == 0) ks[nk++] = m / 2 - 1;
                } else {
                    for (int qi = 0; qi < nq; qi++) {
                        int64_t p, nx;
                        ss_quantile_pos(m, s->q[qi], &p, &nx, NULL);
                        ks[nk++] = p;
                        ks[nk++] = nx;
                    }
                }
                select_many(a->dt, buf, m, ks, nk);
            }
            for (int qi = 0; qi < nq; qi++) {
                double res;
                if (has_nan || m == 0) {
                    res = NAN;
                } else if (med) {
                    res = median_of(a->dt, buf, m);
                } else {
                    int64_t pi, ni;
                    double g;
                    ss_quantile_pos(m, s->q[qi], &pi, &ni, &g);
                    res = lerp_at(a->dt, buf, pi, ni, g);
                }
                putd(o->dt, o->data, (int64_t)qi * nout + oi, res);
            }
        }
    free(buf);
    free(ks);
    return 0;
}

/* Line (oo, r) of a: its sum of a * w and of w (without weights: its sum
 * and length); w_line: w is 1-D along the line. */
static void avg_line(const arr_t *a, const arr_t *w, bool w_line, lines_t l, int64_t oo, int64_t r,
                     double *sum_, double *ws_)
{
    double sum = 0, ws = 0;
    for (int64_t i = 0; i < l.len; i++) {
        int64_t at = (oo * l.len + i) * l.inner + r;
        double x = dt_read_f64(a->dt, a->data, at);
        if (w) {
            double wv = dt_read_f64(w->dt, w->data, w_line ? i : at);
            sum += x * wv;
            ws += wv;
        } else {
            sum += x;
        }
    }
    *sum_ = sum;
    *ws_ = w ? ws : (double)l.len;
}

static int k_average(const graph_node_t *n, int ax, const arr_t *a, const arr_t *w, arr_t *o,
                     char *err, size_t errlen)
{
    lines_t l = lines_of(a, ax);
    for (int64_t oo = 0; oo < l.outer; oo++)
        for (int64_t r = 0; r < l.inner; r++) {
            double sum, ws;
            avg_line(a, w, n->ss->w_line, l, oo, r, &sum, &ws);
            if (w && ws == 0.0) {
                snprintf(err, errlen, "Weights sum to zero, can't be normalized");
                return -1;
            }
            putd(o->dt, o->data, oo * l.inner + r, sum / ws);
        }
    return 0;
}

/* ---- lookups: searchsorted, digitize, isin, in1d -------------------------- */

/* numpy compares in the common type: doubles when either side is a float */
static bool cmp_float(dtype_t a, dtype_t b)
{
    return dt_is_float(a) || dt_is_float(b);
}

/* count of a[0..n) before x: side right counts a <= x, left a < x (NaN last) */
static int64_t bsearch_d(const double *a, int64_t n, double x, bool right)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        bool before = right ? !LT_FLT(x, a[mid]) : LT_FLT(a[mid], x);
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int64_t bsearch_i(const int64_t *a, int64_t n, int64_t x, bool right)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        bool before = right ? !(x < a[mid]) : a[mid] < x;
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The array looked up in, in the comparison type, in the order given (or by sorter). */
static void *keys_of(const arr_t *a, const arr_t *sorter, bool fl, char *err, size_t errlen,
                     int *rc)
{
    int64_t n = shape_size(&a->shape);
    void *k = malloc(8 * (size_t)(n > 0 ? n : 1));
    *rc = 0;
    if (!k) {
        *rc = oom(err, errlen);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t src = i;
        if (sorter) {
            src = dt_read_i64(sorter->dt, sorter->data, i);
            if (src < 0 || src >= n) {
                free(k);
                snprintf(err, errlen, "Sorter index out of range.");
                *rc = -1;
                return NULL;
            }
        }
        if (fl)
            ((double *)k)[i] = dt_read_f64(a->dt, a->data, src);
        else
            ((int64_t *)k)[i] = dt_read_i64(a->dt, a->data, src);
    }
    return k;
}

static int k_lookup(const graph_node_t *n, const arr_t *x, const arr_t *a, const arr_t *sorter,
                    arr_t *o, char *err, size_t errlen)
{
    bool fl = cmp_float(x->dt, a->dt);
    int64_t na = shape_size(&a->shape), nx = shape_size(&x->shape);
    int rc;
    void *k = keys_of(a, sorter, fl, err, errlen, &rc);
    if (!k) return rc;
    if (n->op == OP_ISIN || n->op == OP_IN1D) {
        void *t = malloc(8 * (size_t)(na > 0 ? na : 1));
        if (!t) {
            free(k);
            return oom(err, errlen);
        }
        vsort(fl ? DT_FLOAT64 : DT_INT64, k, t, na);
        free(t);
        uint8_t *out = o->data;
        for (int64_t i = 0; i < nx; i++) {
            bool hit;
            if (fl) {
                double v = dt_read_f64(x->dt, x->data, i);
                int64_t p = bsearch_d(k, na, v, false);
                hit = p < na && ((double *)k)[p] == v;
            } else {
                int64_t v = dt_read_i64(x->dt, x->data, i);
                int64_t p = bsearch_i(k, na, v, false);
                hit = p < na && ((int64_t *)k)[p] == v;
            }
            out[i] = hit != n->ss->invert;
        }
        free(k);
        return 0;
    }
    bool right = n->ss->side_right;
    int mono = 1;
    if (n->op == OP_DIGITIZE) {
        /* numpy's _monotonicity: 1 increasing, -1 decreasing, 0 neither */
        right = !n->ss->right;
        int64_t i = 1;
        double first = fl ? ((double *)k)[0] : 0;
        int64_t firsti = fl ? 0 : (na ? ((int64_t *)k)[0] : 0);
#define KV(j) (fl ? ((double *)k)[j] : (double)((int64_t *)k)[j])
#define KEQ(j) (fl ? ((double *)k)[j] == first : ((int64_t *)k)[j] == firsti)
        while (i < na && KEQ(i))
            i++;
        if (i < na) {
            bool inc = fl ? first < ((double *)k)[i] : firsti < ((int64_t *)k)[i];
            mono = inc ? 1 : -1;
            for (; i + 1 < na; i++) {
                bool ok = fl ? (inc ? ((double *)k)[i] <= ((double *)k)[i + 1]
                                    : ((double *)k)[i] >= ((double *)k)[i + 1])
                             : (inc ? ((int64_t *)k)[i] <= ((int64_t *)k)[i + 1]
                                    : ((int64_t *)k)[i] >= ((int64_t *)k)[i + 1]);
                if (!ok) {
                    mono = 0;
                    break;
                }
            }
            if (fl && (isnan(first) || isnan(KV(na - 1)))) mono = mono ? mono : 0;
        }
#undef KV
#undef KEQ
        if (mono == 0) {
            free(k);
            snprintf(err, errlen, "bins must be monotonically increasing or decreasing");
            return -1;
        }
        if (mono < 0) { /* searchsorted on the reversed bins */
            for (int64_t a0 = 0, b0 = na - 1; a0 < b0; a0++, b0--) {
                int64_t t;
                memcpy(&t, (char *)k + 8 * a0, 8);
                memcpy((char *)k + 8 * a0, (char *)k + 8 * b0, 8);
                memcpy((char *)k + 8 * b0, &t, 8);
            }
        }
    }
    int64_t *out = o->data;
    for (int64_t i = 0; i < nx; i++) {
        int64_t p = fl ? bsearch_d(k, na, dt_read_f64(x->dt, x->data, i), right)
                       : bsearch_i(k, na, dt_read_i64(x->dt, x->data, i), right);
        out[i] = mono < 0 ? na - p : p;
    }
    free(k);
    return 0;
}

/* ---- cov, corrcoef, allclose ---------------------------------------------- */

static int k_cov(const graph_node_t *n, const arr_t *ins, int n_in, arr_t *o, char *err,
                 size_t errlen)
{
    const ss_node_t *s = n->ss;
    int64_t nv = s->nvar, nobs = 0;
    /* the rows (variables) of X, each nobs long */
    for (int j = 0; j < n_in; j++) {
        const shape_t *sh = &ins[j].shape;
        int64_t r = sh->ndim == 2 ? sh->d[0] : 1, c = sh->ndim == 2 ? sh->d[1]
                                                      : sh->ndim    ? sh->d[0]
                                                                    : 1;
        nobs = (!s->rowvar && r != 1) ? r : c;
    }
    double *X = malloc(sizeof(double) * (size_t)(nv * nobs > 0 ? nv * nobs : 1));
    double *C = malloc(sizeof(double) * (size_t)(nv * nv));
    if (!X || !C) {
        free(X);
        free(C);
        return oom(err, errlen);
    }
    int64_t row = 0;
    for (int j = 0; j < n_in; j++) {
        const shape_t *sh = &ins[j].shape;
        int64_t r = sh->ndim == 2 ? sh->d[0] : 1, c = sh->ndim == 2 ? sh->d[1]
                                                      : sh->ndim    ? sh->d[0]
                                                                    : 1;
        bool tr = !s->rowvar && r != 1;
        int64_t vr = tr ? c : r;
        for (int64_t v = 0; v < vr; v++)
            for (int64_t q = 0; q < nobs; q++)
                X[(row + v) * nobs + q] =
                    dt_read_f64(ins[j].dt, ins[j].data, tr ? q * c + v : v * c + q);
        row += vr;
    }
    int64_t ddof = s->has_ddof ? s->ddof : s->bias ? 0 : 1;
    double fact = (double)(nobs - ddof);
    if (fact <= 0) fact = 0.0;
    for (int64_t v = 0; v < nv; v++) {
        double m = 0;
        for (int64_t q = 0; q < nobs; q++)
            m += X[v * nobs + q];
        m /= (double)nobs;
        for (int64_t q = 0; q < nobs; q++)
            X[v * nobs + q] -= m;
    }
    double rec = 1.0 / fact;
    for (int64_t i = 0; i < nv; i++)
        for (int64_t j = i; j < nv; j++) {
            double acc = 0;
            for (int64_t q = 0; q < nobs; q++)
                acc += X[i * nobs + q] * X[j * nobs + q];
            C[i * nv + j] = C[j * nv + i] = acc * rec;
        }
    double *out = o->data;
    if (n->op == OP_CORRCOEF) {
        if (nv == 1) {
            out[0] = C[0] / C[0];
        } else {
            for (int64_t i = 0; i < nv; i++)
                for (int64_t j = 0; j < nv; j++) {
                    double x = C[i * nv + j] / sqrt(C[i * nv + i]);
                    x /= sqrt(C[j * nv + j]);
                    out[i * nv + j] = x < -1 ? -1 : x > 1 ? 1 : x;
                }
        }
    } else {
        memcpy(out, C, sizeof(double) * (size_t)(nv * nv));
    }
    free(X);
    free(C);
    return 0;
}

static int k_allclose(const graph_node_t *n, const arr_t *a, const arr_t *b, arr_t *o)
{
    const ss_node_t *s = n->ss;
    int nd = a->shape.ndim > b->shape.ndim ? a->shape.ndim : b->shape.ndim;
    int64_t sh[MR_MAXDIM], sa[MR_MAXDIM], sb[MR_MAXDIM], co[MR_MAXDIM];
    int64_t ta = 1, tb = 1;
    for (int d = nd - 1; d >= 0; d--) {
        int ia = d - (nd - a->shape.ndim), ib = d - (nd - b->shape.ndim);
        int64_t x = ia >= 0 ? a->shape.d[ia] : 1, y = ib >= 0 ? b->shape.d[ib] : 1;
        sh[d] = x > y ? x : y;
        if (x == 0 || y == 0) sh[d] = 0;
        sa[d] = x == 1 ? 0 : ta;
        sb[d] = y == 1 ? 0 : tb;
        ta *= x;
        tb *= y;
        co[d] = 0;
    }
    int64_t total = 1;
    for (int d = 0; d < nd; d++)
        total *= sh[d];
    bool f32 = (a->dt == DT_FLOAT32 || a->dt == DT_BOOL) && b->dt == DT_FLOAT32;
    bool all = true;
    int64_t pa = 0, pb = 0;
    for (int64_t i = 0; i < total && all; i++) {
        double x = dt_read_f64(a->dt, a->data, pa), y = dt_read_f64(b->dt, b->data, pb);
        bool ok;
        if (isfinite(x) && isfinite(y)) {
            if (f32) {
                float fx = (float)x, fy = (float)y;
                ok = fabsf(fx - fy) <= (float)s->atol + (float)s->rtol * fabsf(fy);
            } else {
                ok = fabs(x - y) <= s->atol + s->rtol * fabs(y);
            }
        } else {
            ok = x == y || (s->equal_nan && isnan(x) && isnan(y));
        }
        all = ok;
        for (int d = nd - 1; d >= 0; d--) {
            pa += sa[d];
            pb += sb[d];
            if (++co[d] < sh[d]) break;
            pa -= sa[d] * sh[d];
            pb -= sb[d] * sh[d];
            co[d] = 0;
        }
    }
    *(uint8_t *)o->data = all;
    return 0;
}

/* The merge network's step (sortstat.h): the front of the stable merge of
 * x and y (x first on ties) into the low block, its back into the high. */
#define DEFINE_SPLIT(SUF, T, LT)                                                                   \
    static void split_##SUF(const T *x, int64_t nx, const T *y, int64_t ny, T *o, bool high)       \
    {                                                                                              \
        if (!high) {                                                                               \
            int64_t i = 0, j = 0;                                                                  \
            for (int64_t k = 0; k < nx; k++)                                                       \
                o[k] = j < ny && LT(y[j], x[i]) ? y[j++] : x[i++];                                 \
            return;                                                                                \
        }                                                                                          \
        int64_t i = nx - 1, j = ny - 1;                                                            \
        for (int64_t k = ny - 1; k >= 0; k--)                                                      \
            o[k] = i >= 0 && LT(y[j], x[i]) ? x[i--] : y[j--];                                     \
    }
DEFINE_SPLIT(b, uint8_t, LT_INT)
DEFINE_SPLIT(i32, int32_t, LT_INT)
DEFINE_SPLIT(i64, int64_t, LT_INT)
DEFINE_SPLIT(f32, float, LT_FLT)
DEFINE_SPLIT(f64, double, LT_FLT)

static void split_any(dtype_t dt, const void *x, int64_t nx, const void *y, int64_t ny, void *o,
                      bool high)
{
    switch (dt) {
    case DT_BOOL:
        split_b(x, nx, y, ny, o, high);
        break;
    case DT_INT32:
        split_i32(x, nx, y, ny, o, high);
        break;
    case DT_INT64:
        split_i64(x, nx, y, ny, o, high);
        break;
    case DT_FLOAT32:
        split_f32(x, nx, y, ny, o, high);
        break;
    default:
        split_f64(x, nx, y, ny, o, high);
        break;
    }
}

int kern_ss_split_axis(const arr_t *ins, arr_t *o, bool high, int axis, char *err, size_t errlen)
{
    const arr_t *x = &ins[0], *y = &ins[1];
    lines_t lx = lines_of(x, axis), ly = lines_of(y, axis), lo = lines_of(o, axis);
    if (x->dt != o->dt || y->dt != o->dt || lx.outer != lo.outer || ly.outer != lo.outer ||
        lx.inner != lo.inner || ly.inner != lo.inner || lo.len != (high ? ly.len : lx.len)) {
        snprintf(err, errlen, "internal: sort network step of other shapes");
        return -1;
    }
    size_t es = dt_size(o->dt);
    char *bx = malloc((size_t)(lx.len + 1) * es), *by = malloc((size_t)(ly.len + 1) * es),
         *bo = malloc((size_t)(lo.len + 1) * es);
    if (!bx || !by || !bo) {
        free(bx);
        free(by);
        free(bo);
        return oom(err, errlen);
    }
    for (int64_t oo = 0; oo < lo.outer; oo++)
        for (int64_t r = 0; r < lo.inner; r++) {
            line_get(x, lx, oo, r, bx);
            line_get(y, ly, oo, r, by);
            split_any(o->dt, bx, lx.len, by, ly.len, bo, high);
            line_put(o, lo.len, lo, oo, r, bo);
        }
    free(bx);
    free(by);
    free(bo);
    return 0;
}

int kern_ss_split(const arr_t *ins, arr_t *o, bool high, char *err, size_t errlen)
{
    const arr_t *x = &ins[0], *y = &ins[1];
    int64_t nx = x->shape.d[0], ny = y->shape.d[0];
    if (x->dt != o->dt || y->dt != o->dt || o->shape.d[0] != (high ? ny : nx)) {
        snprintf(err, errlen, "internal: sort network step of other shapes");
        return -1;
    }
    split_any(o->dt, x->data, nx, y->data, ny, o->data, high); /* in place: no line copies */
    return 0;
}

int kern_ss_pack(const arr_t *in, int64_t off, arr_t *o, char *err, size_t errlen)
{
    int64_t n = in->shape.d[0];
    if (o->dt != DT_INT64 || o->shape.d[0] != 2 * n) {
        snprintf(err, errlen, "internal: argsort block of other shapes");
        return -1;
    }
    int64_t *ix = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    int64_t *tmp = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!ix || !tmp) {
        free(ix);
        free(tmp);
        return oom(err, errlen);
    }
    isort(in->dt, in->data, ix, tmp, n);
    int64_t *v = o->data, *g = v + n;
    bool fl = dt_is_float(in->dt);
    for (int64_t i = 0; i < n; i++) {
        if (fl) {
            double d = dt_read_f64(in->dt, in->data, ix[i]);
            memcpy(&v[i], &d, 8);
        } else {
            v[i] = dt_read_i64(in->dt, in->data, ix[i]);
        }
        g[i] = off + ix[i];
    }
    free(ix);
    free(tmp);
    return 0;
}

/* (value, index) pairs in order: the value, then the index (total) */
static inline bool pair_lt(const int64_t *xv, const int64_t *xi, int64_t a, const int64_t *yv,
                           const int64_t *yi, int64_t b, bool fl)
{
    if (fl) {
        double p, q;
        memcpy(&p, &xv[a], 8);
        memcpy(&q, &yv[b], 8);
        if (LT_FLT(p, q)) return true;
        if (LT_FLT(q, p)) return false;
    } else {
        if (xv[a] != yv[b]) return xv[a] < yv[b];
    }
    return xi[a] < yi[b];
}

int kern_ss_split_pairs(const arr_t *ins, arr_t *o, bool high, dtype_t vdt, char *err,
                        size_t errlen)
{
    int64_t nx = ins[0].shape.d[0] / 2, ny = ins[1].shape.d[0] / 2;
    if (ins[0].dt != DT_INT64 || ins[1].dt != DT_INT64 || o->dt != DT_INT64 ||
        o->shape.d[0] != 2 * (high ? ny : nx)) {
        snprintf(err, errlen, "internal: argsort network step of other shapes");
        return -1;
    }
    const int64_t *xv = ins[0].data, *xi = xv + nx, *yv = ins[1].data, *yi = yv + ny;
    int64_t m = high ? ny : nx, *ov = o->data, *oi = ov + m;
    bool fl = dt_is_float(vdt);
    if (!high) {
        int64_t i = 0, j = 0;
        for (int64_t k = 0; k < nx; k++) {
            bool take_y = j < ny && pair_lt(yv, yi, j, xv, xi, i, fl);
            ov[k] = take_y ? yv[j] : xv[i];
            oi[k] = take_y ? yi[j++] : xi[i++];
        }
        return 0;
    }
    int64_t i = nx - 1, j = ny - 1;
    for (int64_t k = ny - 1; k >= 0; k--) {
        bool take_x = i >= 0 && pair_lt(yv, yi, j, xv, xi, i, fl);
        ov[k] = take_x ? xv[i] : yv[j];
        oi[k] = take_x ? xi[i--] : yi[j--];
    }
    return 0;
}

int kern_ss_sort1(const arr_t *in, arr_t *o, char *err, size_t errlen)
{
    int64_t n = in->shape.d[0];
    size_t es = dt_size(in->dt);
    void *tmp = malloc((size_t)(n ? n : 1) * es);
    if (!tmp) return oom(err, errlen);
    memcpy(o->data, in->data, (size_t)n * es);
    vsort(in->dt, o->data, tmp, n);
    free(tmp);
    return 0;
}

int kern_ss_qpick(const graph_node_t *n, int64_t m, const arr_t *picks, arr_t *o, char *err,
                  size_t errlen)
{
    bool med = n->op == OP_MEDIAN;
    int nq = med ? 1 : n->ss->nq;
    if (picks->shape.d[0] != 2 * (int64_t)nq + 1) {
        snprintf(err, errlen, "internal: %lld picks for %d quantiles", (long long)picks->shape.d[0],
                 nq);
        return -1;
    }
    /* sorted with NaN last: the last value says whether there is one */
    bool has_nan = is_nan_at(picks->dt, picks->data, 2 * (int64_t)nq);
    for (int qi = 0; qi < nq; qi++) {
        double res;
        if (has_nan) {
            res = NAN;
        } else if (med) {
            /* median_of over the two middle values (one twice when m is odd) */
            res = m % 2 ? dt_read_f64(picks->dt, picks->data, 1)
                        : median_of(picks->dt, picks->data, 2);
        } else {
            int64_t pi, ni;
            double g;
            ss_quantile_pos(m, n->ss->q[qi], &pi, &ni, &g);
            res = lerp_at(picks->dt, picks->data, 2 * qi, 2 * qi + 1, g);
        }
        putd(o->dt, o->data, qi, res);
    }
    return 0;
}

/* argsort's steps on blocks of any ndim: every line along axis alone, as
 * a 1-D block (packed lines hold 2 len slots along axis) */
static arr_t arr1(void *data, dtype_t dt, int64_t len)
{
    arr_t a = {.data = data, .dt = dt};
    a.shape.ndim = 1;
    a.shape.d[0] = len;
    return a;
}

int kern_ss_qpick_axis(const graph_node_t *n, int64_t m, const arr_t *picks, int axis, arr_t *o,
                       char *err, size_t errlen)
{
    bool med = n->op == OP_MEDIAN;
    int nq = med ? 1 : n->ss->nq;
    lines_t l = lines_of(picks, axis);
    int64_t nl = l.outer * l.inner;
    if (l.len != 2 * (int64_t)nq + 1 || shape_size(&o->shape) != nq * nl) {
        snprintf(err, errlen, "internal: quantile picks of other shapes");
        return -1;
    }
    size_t es = dt_size(picks->dt);
    char *v = malloc(es * (size_t)l.len);
    double *res = malloc(sizeof(double) * (size_t)nq);
    if (!v || !res) {
        free(v);
        free(res);
        return oom(err, errlen);
    }
    /* one line's statistics through the 1-D step, then spread along the q
     * axis (the result's first when q is a list) */
    arr_t pl = arr1(v, picks->dt, l.len), r1 = {.data = res, .dt = DT_FLOAT64};
    r1.shape.ndim = 1;
    r1.shape.d[0] = nq;
    int rc = 0;
    for (int64_t oo = 0; oo < l.outer && rc == 0; oo++)
        for (int64_t r = 0; r < l.inner && rc == 0; r++) {
            line_get(picks, l, oo, r, v);
            if ((rc = kern_ss_qpick(n, m, &pl, &r1, err, errlen)) == 0)
                for (int qi = 0; qi < nq; qi++)
                    putd(o->dt, o->data, qi * nl + oo * l.inner + r, res[qi]);
        }
    free(v);
    free(res);
    return rc;
}

int kern_ss_pack_axis(const arr_t *in, int64_t off, arr_t *o, int axis, char *err, size_t errlen)
{
    lines_t li = lines_of(in, axis), lo = lines_of(o, axis);
    if (li.outer != lo.outer || li.inner != lo.inner || lo.len != 2 * li.len) {
        snprintf(err, errlen, "internal: argsort block of other shapes");
        return -1;
    }
    size_t es = dt_size(in->dt);
    char *bi = malloc((size_t)(li.len + 1) * es);
    int64_t *bo = malloc(sizeof(int64_t) * (size_t)(lo.len + 1));
    int rc = bi && bo ? 0 : oom(err, errlen);
    for (int64_t oo = 0; oo < li.outer && rc == 0; oo++)
        for (int64_t r = 0; r < li.inner && rc == 0; r++) {
            line_get(in, li, oo, r, bi);
            arr_t a = arr1(bi, in->dt, li.len), b = arr1(bo, DT_INT64, lo.len);
            if ((rc = kern_ss_pack(&a, off, &b, err, errlen)) == 0)
                line_put(o, lo.len, lo, oo, r, bo);
        }
    free(bi);
    free(bo);
    return rc;
}

int kern_ss_sort1_axis(const arr_t *in, arr_t *o, int axis, char *err, size_t errlen)
{
    lines_t li = lines_of(in, axis), lo = lines_of(o, axis);
    if (li.outer != lo.outer || li.inner != lo.inner || lo.len != li.len || in->dt != o->dt) {
        snprintf(err, errlen, "internal: sorted block of other shapes");
        return -1;
    }
    size_t es = dt_size(in->dt);
    char *b = malloc((size_t)(li.len + 1) * es), *t = malloc((size_t)(li.len + 1) * es);
    int rc = b && t ? 0 : oom(err, errlen);
    for (int64_t oo = 0; oo < li.outer && rc == 0; oo++)
        for (int64_t r = 0; r < li.inner; r++) {
            line_get(in, li, oo, r, b);
            vsort(in->dt, b, t, li.len);
            line_put(o, lo.len, lo, oo, r, b);
        }
    free(b);
    free(t);
    return rc;
}

int kern_ss_split_pairs_axis(const arr_t *ins, arr_t *o, bool high, dtype_t vdt, int axis,
                             char *err, size_t errlen)
{
    lines_t lx = lines_of(&ins[0], axis), ly = lines_of(&ins[1], axis), lo = lines_of(o, axis);
    if (lx.outer != lo.outer || ly.outer != lo.outer || lx.inner != lo.inner ||
        ly.inner != lo.inner) {
        snprintf(err, errlen, "internal: argsort network step of other shapes");
        return -1;
    }
    int64_t *bx = malloc(sizeof(int64_t) * (size_t)(lx.len + 1)),
            *by = malloc(sizeof(int64_t) * (size_t)(ly.len + 1)),
            *bo = malloc(sizeof(int64_t) * (size_t)(lo.len + 1));
    int rc = bx && by && bo ? 0 : oom(err, errlen);
    for (int64_t oo = 0; oo < lo.outer && rc == 0; oo++)
        for (int64_t r = 0; r < lo.inner && rc == 0; r++) {
            line_get(&ins[0], lx, oo, r, bx);
            line_get(&ins[1], ly, oo, r, by);
            arr_t ab[2] = {arr1(bx, DT_INT64, lx.len), arr1(by, DT_INT64, ly.len)};
            arr_t b = arr1(bo, DT_INT64, lo.len);
            if ((rc = kern_ss_split_pairs(ab, &b, high, vdt, err, errlen)) == 0)
                line_put(o, lo.len, lo, oo, r, bo);
        }
    free(bx);
    free(by);
    free(bo);
    return rc;
}

int kern_ss(const graph_node_t *n, int axis, const arr_t *ins, int n_in, arr_t *o, char *err,
            size_t errlen)
{
    switch (n->op) {
    case OP_SORT:
    case OP_ARGSORT:
    case OP_PARTITION:
    case OP_ARGPARTITION:
    case OP_TOPK:
        return k_sortlike(n, axis, &ins[0], o, err, errlen);
    case OP_PERCENTILE:
    case OP_QUANTILE:
    case OP_MEDIAN:
    case OP_NANPERCENTILE:
    case OP_NANQUANTILE:
    case OP_NANMEDIAN:
        return k_quantile(n, axis, &ins[0], o, err, errlen);
    case OP_AVERAGE:
        return k_average(n, axis, &ins[0], n_in > 1 ? &ins[1] : NULL, o, err, errlen);
    case OP_SEARCHSORTED:
        return k_lookup(n, &ins[0], &ins[1], n_in > 2 ? &ins[2] : NULL, o, err, errlen);
    case OP_DIGITIZE:
    case OP_ISIN:
    case OP_IN1D:
        return k_lookup(n, &ins[0], &ins[1], NULL, o, err, errlen);
    case OP_COV:
    case OP_CORRCOEF:
        return k_cov(n, ins, n_in, o, err, errlen);
    case OP_ALLCLOSE:
        return k_allclose(n, &ins[0], &ins[1], o);
    default:
        snprintf(err, errlen, "internal: not a sortstat op");
        return -1;
    }
}

/* ---- nanpercentile, nanquantile, nanmedian of long lines --------------
 * Every array here holds lines along axis (1-D: one line): a block's lines
 * sorted, a count per line (extent 1 along axis), picks per line (two per
 * q along axis). Line l of each is the same line of the input. */

int kern_ss_avgpart(const arr_t *a, const arr_t *w, bool w_line, int axis, arr_t *o)
{
    lines_t l = lines_of(a, axis);
    double *out = o->data;
    for (int64_t oo = 0; oo < l.outer; oo++)
        for (int64_t r = 0; r < l.inner; r++)
            avg_line(a, w, w_line, l, oo, r, &out[(oo * 2) * l.inner + r],
                     &out[(oo * 2 + 1) * l.inner + r]);
    return 0;
}

int kern_ss_avgfin(const arr_t *parts, int64_t p, bool weighted, int axis, arr_t *o, char *err,
                   size_t errlen)
{
    lines_t l = lines_of(&parts[0], axis); /* len 2: the sums, then the weights' */
    for (int64_t oo = 0; oo < l.outer; oo++)
        for (int64_t r = 0; r < l.inner; r++) {
            double sum = 0, ws = 0;
            for (int64_t k = 0; k < p; k++) {
                const double *q = parts[k].data;
                sum += q[(oo * 2) * l.inner + r];
                ws += q[(oo * 2 + 1) * l.inner + r];
            }
            if (weighted && ws == 0.0) {
                snprintf(err, errlen, "Weights sum to zero, can't be normalized");
                return -1;
            }
            putd(o->dt, o->data, oo * l.inner + r, sum / ws);
        }
    return 0;
}

int kern_ss_nancount(const arr_t *in, int axis, arr_t *o)
{
    lines_t l = lines_of(in, axis);
    size_t es = dt_size(in->dt);
    for (int64_t oo = 0; oo < l.outer; oo++)
        for (int64_t r = 0; r < l.inner; r++) {
            const char *base = (const char *)in->data + (size_t)(oo * l.len * l.inner + r) * es;
            int64_t z = 0;
            if (dt_is_float(in->dt))
                for (int64_t i = l.len - 1; i >= 0 && is_nan_at(in->dt, base, i * l.inner); i--)
                    z++; /* sorted: the NaN are last */
            ((int64_t *)o->data)[oo * l.inner + r] = z;
        }
    return 0;
}

/* line ln's NaN over every block's counts */
static int64_t total_nan(const arr_t *counts, int64_t p, int64_t ln)
{
    int64_t z = 0;
    for (int64_t k = 0; k < p; k++)
        z += ((const int64_t *)counts[k].data)[ln];
    return z;
}

/* The ranks (two per q) among the m' values that are not NaN, and each
 * q's weight: numpy's linear method, as kern_ss_qpick's */
static void nan_ranks(const graph_node_t *n, int64_t mv, int64_t *rank, double *g)
{
    bool med = n->op == OP_NANMEDIAN;
    int nq = med ? 1 : n->ss->nq;
    for (int qi = 0; qi < nq; qi++) {
        if (mv <= 0) {
            rank[2 * qi] = rank[2 * qi + 1] = 0;
            g[qi] = 0;
        } else if (med) {
            rank[0] = mv % 2 ? mv / 2 : mv / 2 - 1;
            rank[1] = mv / 2;
            g[0] = 0.5;
        } else {
            ss_quantile_pos(mv, n->ss->q[qi], &rank[2 * qi], &rank[2 * qi + 1], &g[qi]);
        }
    }
}

int kern_ss_npick(const graph_node_t *n, int64_t m, int64_t off, const arr_t *block, int axis,
                  const arr_t *counts, int64_t p, arr_t *o, char *err, size_t errlen)
{
    int nq = n->op == OP_NANMEDIAN ? 1 : n->ss->nq;
    lines_t lb = lines_of(block, axis), lo = lines_of(o, axis);
    if (lo.len != 2 * (int64_t)nq || lo.outer != lb.outer || lo.inner != lb.inner) {
        snprintf(err, errlen, "internal: nan-statistics picks of other shapes");
        return -1;
    }
    int64_t *rank = malloc(sizeof(int64_t) * 2 * (size_t)nq);
    double *g = malloc(sizeof(double) * (size_t)nq);
    if (!rank || !g) {
        free(rank);
        free(g);
        return oom(err, errlen);
    }
    size_t es = dt_size(block->dt);
    memset(o->data, 0, es * (size_t)shape_size(&o->shape));
    for (int64_t oo = 0; oo < lb.outer; oo++)
        for (int64_t r = 0; r < lb.inner; r++) {
            int64_t ln = oo * lb.inner + r;
            nan_ranks(n, m - total_nan(counts, p, ln), rank, g);
            const char *src = (const char *)block->data + (size_t)(oo * lb.len * lb.inner + r) * es;
            char *dst = (char *)o->data + (size_t)(oo * lo.len * lo.inner + r) * es;
            for (int64_t i = 0; i < 2 * (int64_t)nq; i++)
                if (rank[i] >= off && rank[i] < off + lb.len)
                    memcpy(dst + (size_t)(i * lo.inner) * es,
                           src + (size_t)((rank[i] - off) * lb.inner) * es, es);
        }
    free(rank);
    free(g);
    return 0;
}

int kern_ss_nqpick(const graph_node_t *n, int64_t m, const int64_t *bounds, int64_t p, int axis,
                   const arr_t *picks, const arr_t *counts, arr_t *o, char *err, size_t errlen)
{
    bool med = n->op == OP_NANMEDIAN;
    int nq = med ? 1 : n->ss->nq;
    lines_t l = lines_of(&picks[0], axis);
    int64_t nl = l.outer * l.inner;
    if (l.len != 2 * (int64_t)nq || shape_size(&o->shape) != nq * nl) {
        snprintf(err, errlen, "internal: nan-statistics step of other shapes");
        return -1;
    }
    dtype_t dt = picks[0].dt;
    size_t es = dt_size(dt);
    int64_t *rank = malloc(sizeof(int64_t) * 2 * (size_t)nq);
    double *g = malloc(sizeof(double) * (size_t)nq);
    char *v = malloc(es * 2 * (size_t)nq);
    if (!rank || !g || !v) {
        free(rank);
        free(g);
        free(v);
        return oom(err, errlen);
    }
    for (int64_t oo = 0; oo < l.outer; oo++)
        for (int64_t r = 0; r < l.inner; r++) {
            int64_t ln = oo * l.inner + r, mv = m - total_nan(counts, p, ln);
            nan_ranks(n, mv, rank, g);
            /* each rank's value from the block that holds it */
            for (int64_t i = 0; i < 2 * (int64_t)nq; i++) {
                int64_t k = 0;
                while (k + 1 < p && bounds[k + 1] <= rank[i])
                    k++;
                memcpy(v + (size_t)i * es,
                       (const char *)picks[k].data +
                           (size_t)(oo * l.len * l.inner + i * l.inner + r) * es,
                       es);
            }
            for (int qi = 0; qi < nq; qi++) {
                double res;
                if (mv <= 0)
                    res = NAN; /* numpy: all-NaN slice */
                else if (med)
                    res = mv % 2 ? dt_read_f64(dt, v, 1) : median_of(dt, v, 2);
                else
                    res = lerp_at(dt, v, 2 * qi, 2 * qi + 1, g[qi]);
                putd(o->dt, o->data, qi * nl + ln, res);
            }
        }
    free(rank);
    free(g);
    free(v);
    return 0;
}
