/* reduce.c: reductions as map (one chunk into a partial), combine (partials
 * into one) and final (partial into the result's dtype).
 *
 * Partial layouts, per output position (structure of arrays over n_out):
 *   sum, prod      int64 (bool, int32, int64; wrapping) or float64 (floats)
 *   mean           float64 sum (every dtype; final divides by n_reduced)
 *   var, std       float64 count[n_out], mean[n_out], M2[n_out] (Chan et al.)
 *   min, max       the input dtype; NaN propagates
 *   all, any       one byte, 0 or 1
 *   argmin/argmax  value[n_out] (float64 for floats, int64 otherwise), then
 *                  index[n_out] (int64; -1: nothing seen yet). Map stores
 *                  global indices; ties and NaN go to the smallest index.
 * The nan-reductions of float data (on other dtypes they are the plain ones):
 *   nansum, nanprod float64, NaN taken as 0 (1): numpy replaces it so
 *   nanmean        float64 sum[n_out] (NaN as 0), then count[n_out]
 *   nanvar, nanstd as var over the values that are not NaN
 *   nanmin, nanmax the input dtype, NaN while no value was seen (fmin/fmax)
 *   nanargmin/max  value, index as argmin's over the values with NaN as
 *                  +inf (-inf for nanargmax), as numpy, then ok[n_out]
 *                  (int64): some value was not NaN (else numpy raises)
 *
 * A full reduction (every axis of size > 1 reduced) runs over blocks of the
 * values, each reduced into a one-position partial and merged by a binary
 * cascade, so float sums are pairwise overall as numpy's are, and a fused
 * program never needs a chunk-sized temporary. A partial-axis reduction
 * walks the values (evaluated into a temporary when fused) as runs along a
 * reduced last axis or rows along a kept last axis. */
#include "level.h" /* first: renames the external functions per CPU level */
#include <math.h>
#include <string.h>

#include "kern_internal.h"

/* Values per block of a full reduction over an array in memory: 4096
 * float64 are 32 KiB, so the two passes of var and argmin read the block
 * from L1/L2 the second time. */
#define RED_BLOCK 4096
/* Values per sub-block of var's two passes within a run (in cache). */
#define VAR_BLOCK 1024

typedef struct {
    void *p;
    int64_t n_out;
} part_t;

/* The op whose layout and kernels a reduction uses: a nan-reduction of
 * data that has no NaN is the plain one. */
static op_t eff_op(op_t op, dtype_t dt)
{
    return dt_is_float(dt) ? op : op_nan_base(op);
}

static bool is_arg_op(op_t op)
{
    return op == OP_ARGMIN || op == OP_ARGMAX || op == OP_NANARGMIN || op == OP_NANARGMAX;
}

/* Reduce n contiguous values, at local flat indices f0.., into position o. */
typedef void (*run_fn)(const part_t *P, int64_t o, const void *v, int64_t n, int64_t f0);
/* Reduce value j of a row into position o + j. */
typedef void (*row_fn)(const part_t *P, int64_t o, const void *v, int64_t n, int64_t f0);

static size_t pos_bytes(op_t op, dtype_t dt)
{
    switch (eff_op(op, dt)) {
    case OP_SUM:
    case OP_PROD:
    case OP_MEAN:
    case OP_NANSUM:
    case OP_NANPROD:
        return 8;
    case OP_NANMEAN:
        return 16;
    case OP_VAR:
    case OP_STD:
    case OP_NANVAR:
    case OP_NANSTD:
    case OP_NANARGMIN:
    case OP_NANARGMAX:
        return 24;
    case OP_MIN:
    case OP_MAX:
    case OP_NANMIN:
    case OP_NANMAX:
        return dt_size(dt);
    case OP_PTP:
        return 2 * dt_size(dt);
    case OP_COUNT_NONZERO:
        return 8;
    case OP_ALL:
    case OP_ANY:
        return 1;
    case OP_ARGMIN:
    case OP_ARGMAX:
        return 16;
    default:
        return 0;
    }
}

size_t kern_red_partial_bytes(op_t op, dtype_t in_dt, int64_t n_out)
{
    return pos_bytes(op, in_dt) * (size_t)n_out;
}

dtype_t kern_red_result_dtype(op_t op, dtype_t in_dt)
{
    switch (op_nan_base(op)) {
    case OP_COUNT_NONZERO:
        return DT_INT64;
    case OP_PTP:
        return in_dt;
    case OP_SUM:
    case OP_PROD:
        return dt_is_float(in_dt) ? in_dt : DT_INT64;
    case OP_MEAN:
    case OP_VAR:
    case OP_STD:
        return in_dt == DT_FLOAT32 ? DT_FLOAT32 : DT_FLOAT64;
    case OP_MIN:
    case OP_MAX:
        return in_dt;
    case OP_ALL:
    case OP_ANY:
        return DT_BOOL;
    default:
        return DT_INT64;
    }
}

/* ---- pairwise summation, numpy's scheme (8 accumulators, blocks of 128),
 * accumulating in float64 whatever the input type. */
#define PW(S, T)                                                                                   \
    static double pw_##S(const T *a, int64_t n)                                                    \
    {                                                                                              \
        if (n < 8) {                                                                               \
            double res = 0.;                                                                       \
            for (int64_t i = 0; i < n; i++)                                                        \
                res += (double)a[i];                                                               \
            return res;                                                                            \
        }                                                                                          \
        if (n <= 128) {                                                                            \
            double r[8];                                                                           \
            for (int j = 0; j < 8; j++)                                                            \
                r[j] = (double)a[j];                                                               \
            int64_t i;                                                                             \
            for (i = 8; i < n - (n % 8); i += 8)                                                   \
                for (int j = 0; j < 8; j++)                                                        \
                    r[j] += (double)a[i + j];                                                      \
            double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));        \
            for (; i < n; i++)                                                                     \
                res += (double)a[i];                                                               \
            return res;                                                                            \
        }                                                                                          \
        int64_t n2 = n / 2;                                                                        \
        n2 -= n2 % 8;                                                                              \
        return pw_##S(a, n2) + pw_##S(a + n2, n - n2);                                             \
    }

/* ---- argmin/argmax merging: candidate (x, i) into position q --------------
 * "better" means: replaces the current best. NaN is the extreme, the first
 * NaN wins, ties go to the smaller index. */
static inline bool arg_better_f(bool is_max, double x, int64_t xi, double c, int64_t ci)
{
    if (ci < 0) return true;
    bool xn = x != x, cn = c != c;
    if (xn || cn) return xn && (!cn || xi < ci);
    if (x == c) return xi < ci;
    return is_max ? x > c : x < c;
}

static inline bool arg_better_i(bool is_max, int64_t x, int64_t xi, int64_t c, int64_t ci)
{
    if (ci < 0) return true;
    if (x == c) return xi < ci;
    return is_max ? x > c : x < c;
}

/* Merges (nb, mb, qb) into (na, ma, qa): Chan, Golub and LeVeque's update. */
static inline void var_merge(double *na, double *ma, double *qa, double nb, double mb, double qb)
{
    if (nb == 0) return;
    if (*na == 0) {
        *na = nb;
        *ma = mb;
        *qa = qb;
        return;
    }
    double n = *na + nb, d = mb - *ma;
    *ma += d * (nb / n);
    *qa += qb + d * d * (*na * nb / n);
    *na = n;
}

/* ---- typed run and row reducers -------------------------------------------
 * S: suffix, T: element type, FLT: 1 for floats (NaN rules, float sums),
 * VT: the argmin value type (double or int64_t), VS: f or i. */
#define RED_T(S, T, FLT, VT, VS)                                                                   \
    PW(S, T)                                                                                       \
    static void sum_run_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)     \
    {                                                                                              \
        const T *v = vv;                                                                           \
        (void)f0;                                                                                  \
        if (FLT) {                                                                                 \
            ((double *)P->p)[o] += pw_##S(v, n);                                                   \
        } else {                                                                                   \
            uint64_t s = 0;                                                                        \
            for (int64_t i = 0; i < n; i++)                                                        \
                s += (uint64_t)(int64_t)v[i];                                                      \
            ((uint64_t *)P->p)[o] += s;                                                            \
        }                                                                                          \
    }                                                                                              \
    static void sum_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)     \
    {                                                                                              \
        const T *restrict v = vv;                                                                  \
        (void)f0;                                                                                  \
        if (FLT) {                                                                                 \
            double *restrict acc = (double *)P->p + o;                                             \
            for (int64_t j = 0; j < n; j++)                                                        \
                acc[j] += (double)v[j];                                                            \
        } else {                                                                                   \
            uint64_t *restrict acc = (uint64_t *)P->p + o;                                         \
            for (int64_t j = 0; j < n; j++)                                                        \
                acc[j] += (uint64_t)(int64_t)v[j];                                                 \
        }                                                                                          \
    }                                                                                              \
    static void prod_run_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)    \
    {                                                                                              \
        const T *v = vv;                                                                           \
        (void)f0;                                                                                  \
        if (FLT) {                                                                                 \
            double pr = ((double *)P->p)[o];                                                       \
            for (int64_t i = 0; i < n; i++)                                                        \
                pr *= (double)v[i];                                                                \
            ((double *)P->p)[o] = pr;                                                              \
        } else {                                                                                   \
            uint64_t pr = ((uint64_t *)P->p)[o];                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                pr *= (uint64_t)(int64_t)v[i];                                                     \
            ((uint64_t *)P->p)[o] = pr;                                                            \
        }                                                                                          \
    }                                                                                              \
    static void prod_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)    \
    {                                                                                              \
        const T *restrict v = vv;                                                                  \
        (void)f0;                                                                                  \
        if (FLT) {                                                                                 \
            double *restrict acc = (double *)P->p + o;                                             \
            for (int64_t j = 0; j < n; j++)                                                        \
                acc[j] *= (double)v[j];                                                            \
        } else {                                                                                   \
            uint64_t *restrict acc = (uint64_t *)P->p + o;                                         \
            for (int64_t j = 0; j < n; j++)                                                        \
                acc[j] *= (uint64_t)(int64_t)v[j];                                                 \
        }                                                                                          \
    }                                                                                              \
    static void mean_run_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)    \
    {                                                                                              \
        (void)f0;                                                                                  \
        ((double *)P->p)[o] += pw_##S((const T *)vv, n);                                           \
    }                                                                                              \
    static void mean_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)    \
    {                                                                                              \
        const T *restrict v = vv;                                                                  \
        double *restrict acc = (double *)P->p + o;                                                 \
        (void)f0;                                                                                  \
        for (int64_t j = 0; j < n; j++)                                                            \
            acc[j] += (double)v[j];                                                                \
    }                                                                                              \
    /* Eight independent chains keep the loop pipelined; a NaN anywhere                            \
     * makes the result the first NaN. x > m ? x : m is numpy's compare.  */                       \
    static T extreme_##S(const T *v, int64_t n, bool is_max, bool *has_nan)                        \
    {                                                                                              \
        if (n < 32) { /* short runs (a small reduced last axis): no set-up */                      \
            T r = v[0];                                                                            \
            int any = 0;                                                                           \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = v[i];                                                                        \
                r = is_max ? (x > r ? x : r) : (x < r ? x : r);                                    \
                any |= x != x;                                                                     \
            }                                                                                      \
            *has_nan = any != 0;                                                                   \
            return r;                                                                              \
        }                                                                                          \
        T m[8];                                                                                    \
        int nan[8] = {0};                                                                          \
        for (int j = 0; j < 8; j++)                                                                \
            m[j] = v[0];                                                                           \
        int64_t i = 0;                                                                             \
        if (is_max) {                                                                              \
            for (; i + 8 <= n; i += 8)                                                             \
                for (int j = 0; j < 8; j++) {                                                      \
                    T x = v[i + j];                                                                \
                    m[j] = x > m[j] ? x : m[j];                                                    \
                    nan[j] |= x != x;                                                              \
                }                                                                                  \
        } else {                                                                                   \
            for (; i + 8 <= n; i += 8)                                                             \
                for (int j = 0; j < 8; j++) {                                                      \
                    T x = v[i + j];                                                                \
                    m[j] = x < m[j] ? x : m[j];                                                    \
                    nan[j] |= x != x;                                                              \
                }                                                                                  \
        }                                                                                          \
        T r = m[0];                                                                                \
        int any = nan[0];                                                                          \
        for (int j = 1; j < 8; j++) {                                                              \
            r = is_max ? (m[j] > r ? m[j] : r) : (m[j] < r ? m[j] : r);                            \
            any |= nan[j];                                                                         \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            T x = v[i];                                                                            \
            r = is_max ? (x > r ? x : r) : (x < r ? x : r);                                        \
            any |= x != x;                                                                         \
        }                                                                                          \
        *has_nan = any != 0;                                                                       \
        return r;                                                                                  \
    }                                                                                              \
    static int64_t first_nan_##S(const T *v, int64_t n)                                            \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            if (v[i] != v[i]) return i;                                                            \
        return 0;                                                                                  \
    }                                                                                              \
    static void minmax_run_##S(const part_t *P, int64_t o, const void *vv, int64_t n, bool mx)     \
    {                                                                                              \
        const T *v = vv;                                                                           \
        T *acc = (T *)P->p + o;                                                                    \
        if (n == 0) return;                                                                        \
        bool nan;                                                                                  \
        T r = extreme_##S(v, n, mx, &nan);                                                         \
        if (nan) r = v[first_nan_##S(v, n)];                                                       \
        T c = *acc;                                                                                \
        if (mx)                                                                                    \
            *acc = (c >= r || c != c) ? c : r;                                                     \
        else                                                                                       \
            *acc = (c <= r || c != c) ? c : r;                                                     \
    }                                                                                              \
    static void max_run_##S(const part_t *P, int64_t o, const void *v, int64_t n, int64_t f0)      \
    {                                                                                              \
        (void)f0;                                                                                  \
        minmax_run_##S(P, o, v, n, true);                                                          \
    }                                                                                              \
    static void min_run_##S(const part_t *P, int64_t o, const void *v, int64_t n, int64_t f0)      \
    {                                                                                              \
        (void)f0;                                                                                  \
        minmax_run_##S(P, o, v, n, false);                                                         \
    }                                                                                              \
    static void max_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)     \
    {                                                                                              \
        const T *restrict v = vv;                                                                  \
        T *restrict acc = (T *)P->p + o;                                                           \
        (void)f0;                                                                                  \
        for (int64_t j = 0; j < n; j++) {                                                          \
            T c = acc[j], x = v[j];                                                                \
            acc[j] = (c >= x || c != c) ? c : x;                                                   \
        }                                                                                          \
    }                                                                                              \
    static void min_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)     \
    {                                                                                              \
        const T *restrict v = vv;                                                                  \
        T *restrict acc = (T *)P->p + o;                                                           \
        (void)f0;                                                                                  \
        for (int64_t j = 0; j < n; j++) {                                                          \
            T c = acc[j], x = v[j];                                                                \
            acc[j] = (c <= x || c != c) ? c : x;                                                   \
        }                                                                                          \
    }                                                                                              \
    static void all_run_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)     \
    {                                                                                              \
        const T *v = vv;                                                                           \
        int r = 1;                                                                                 \
        (void)f0;                                                                                  \
        for (int64_t i = 0; i < n; i++)                                                            \
            r &= v[i] != 0;                                                                        \
        ((uint8_t *)P->p)[o] &= (uint8_t)r;                                                        \
    }                                                                                              \
    static void any_run_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)     \
    {                                                                                              \
        const T *v = vv;                                                                           \
        int r = 0;                                                                                 \
        (void)f0;                                                                                  \
        for (int64_t i = 0; i < n; i++)                                                            \
            r |= v[i] != 0;                                                                        \
        ((uint8_t *)P->p)[o] |= (uint8_t)r;                                                        \
    }                                                                                              \
    static void all_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)     \
    {                                                                                              \
        const T *restrict v = vv;                                                                  \
        uint8_t *restrict acc = (uint8_t *)P->p + o;                                               \
        (void)f0;                                                                                  \
        for (int64_t j = 0; j < n; j++)                                                            \
            acc[j] &= (uint8_t)(v[j] != 0);                                                        \
    }                                                                                              \
    static void any_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)     \
    {                                                                                              \
        const T *restrict v = vv;                                                                  \
        uint8_t *restrict acc = (uint8_t *)P->p + o;                                               \
        (void)f0;                                                                                  \
        for (int64_t j = 0; j < n; j++)                                                            \
            acc[j] |= (uint8_t)(v[j] != 0);                                                        \
    }                                                                                              \
    /* var: two passes over cache-sized sub-blocks, merged by Chan's rule. */                      \
    static void var_run_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)     \
    {                                                                                              \
        const T *v = vv;                                                                           \
        double *pn = (double *)P->p, *pm = pn + P->n_out, *pq = pm + P->n_out;                     \
        (void)f0;                                                                                  \
        for (int64_t s = 0; s < n; s += VAR_BLOCK) {                                               \
            int64_t k = n - s < VAR_BLOCK ? n - s : VAR_BLOCK;                                     \
            double mean = pw_##S(v + s, k) / (double)k, q = 0;                                     \
            for (int64_t i = 0; i < k; i++) {                                                      \
                double d = (double)v[s + i] - mean;                                                \
                q += d * d;                                                                        \
            }                                                                                      \
            var_merge(&pn[o], &pm[o], &pq[o], (double)k, mean, q);                                 \
        }                                                                                          \
    }                                                                                              \
    /* Welford per position: every position of a row gains one value. */                           \
    static void var_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)     \
    {                                                                                              \
        const T *restrict v = vv;                                                                  \
        double *restrict pn = (double *)P->p + o;                                                  \
        double *restrict pm = (double *)P->p + P->n_out + o;                                       \
        double *restrict pq = (double *)P->p + 2 * P->n_out + o;                                   \
        (void)f0;                                                                                  \
        for (int64_t j = 0; j < n; j++) {                                                          \
            double x = (double)v[j], c = pn[j] + 1.0, d = x - pm[j];                               \
            double m = pm[j] + d / c;                                                              \
            pq[j] += d * (x - m);                                                                  \
            pm[j] = m;                                                                             \
            pn[j] = c;                                                                             \
        }                                                                                          \
    }                                                                                              \
    static void arg_run_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0,     \
                            bool mx)                                                               \
    {                                                                                              \
        const T *v = vv;                                                                           \
        VT *val = (VT *)P->p;                                                                      \
        int64_t *idx = (int64_t *)P->p + P->n_out;                                                 \
        if (n == 0) return;                                                                        \
        bool nan;                                                                                  \
        T r = extreme_##S(v, n, mx, &nan);                                                         \
        int64_t k = 0;                                                                             \
        if (nan)                                                                                   \
            k = first_nan_##S(v, n);                                                               \
        else                                                                                       \
            while (v[k] != r)                                                                      \
                k++;                                                                               \
        if (arg_better_##VS(mx, (VT)v[k], f0 + k, val[o], idx[o])) {                               \
            val[o] = (VT)v[k];                                                                     \
            idx[o] = f0 + k;                                                                       \
        }                                                                                          \
    }                                                                                              \
    static void argmax_run_##S(const part_t *P, int64_t o, const void *v, int64_t n, int64_t f0)   \
    {                                                                                              \
        arg_run_##S(P, o, v, n, f0, true);                                                         \
    }                                                                                              \
    static void argmin_run_##S(const part_t *P, int64_t o, const void *v, int64_t n, int64_t f0)   \
    {                                                                                              \
        arg_run_##S(P, o, v, n, f0, false);                                                        \
    }                                                                                              \
    /* Rows come in increasing index order: a later equal value never wins. */                     \
    static void argmax_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)  \
    {                                                                                              \
        const T *v = vv;                                                                           \
        VT *val = (VT *)P->p + o;                                                                  \
        int64_t *idx = (int64_t *)P->p + P->n_out + o;                                             \
        for (int64_t j = 0; j < n; j++) {                                                          \
            VT x = (VT)v[j], c = val[j];                                                           \
            if (idx[j] < 0 || (c == c && (x > c || x != x))) {                                     \
                val[j] = x;                                                                        \
                idx[j] = f0 + j;                                                                   \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void argmin_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)  \
    {                                                                                              \
        const T *v = vv;                                                                           \
        VT *val = (VT *)P->p + o;                                                                  \
        int64_t *idx = (int64_t *)P->p + P->n_out + o;                                             \
        for (int64_t j = 0; j < n; j++) {                                                          \
            VT x = (VT)v[j], c = val[j];                                                           \
            if (idx[j] < 0 || (c == c && (x < c || x != x))) {                                     \
                val[j] = x;                                                                        \
                idx[j] = f0 + j;                                                                   \
            }                                                                                      \
        }                                                                                          \
    }

/* ---- nan-reductions of floats ------------------------------------------------
 * The values with NaN replaced (0 for sums, 1 for products, +-inf for the
 * arg ops) or skipped (counts, mean, var, min, max), as numpy's nanfunctions. */
#define RED_NANF(S, T)                                                                             \
    static double pwn_##S(const T *a, int64_t n)                                                   \
    {                                                                                              \
        if (n < 8) {                                                                               \
            double res = 0.;                                                                       \
            for (int64_t i = 0; i < n; i++)                                                        \
                res += a[i] != a[i] ? 0. : (double)a[i];                                           \
            return res;                                                                            \
        }                                                                                          \
        if (n <= 128) {                                                                            \
            double r[8];                                                                           \
            for (int j = 0; j < 8; j++)                                                            \
                r[j] = a[j] != a[j] ? 0. : (double)a[j];                                           \
            int64_t i;                                                                             \
            for (i = 8; i < n - (n % 8); i += 8)                                                   \
                for (int j = 0; j < 8; j++)                                                        \
                    r[j] += a[i + j] != a[i + j] ? 0. : (double)a[i + j];                          \
            double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));        \
            for (; i < n; i++)                                                                     \
                res += a[i] != a[i] ? 0. : (double)a[i];                                           \
            return res;                                                                            \
        }                                                                                          \
        int64_t n2 = n / 2;                                                                        \
        n2 -= n2 % 8;                                                                              \
        return pwn_##S(a, n2) + pwn_##S(a + n2, n - n2);                                           \
    }                                                                                              \
    static int64_t count_##S(const T *a, int64_t n)                                                \
    {                                                                                              \
        int64_t c = 0;                                                                             \
        for (int64_t i = 0; i < n; i++)                                                            \
            c += a[i] == a[i];                                                                     \
        return c;                                                                                  \
    }                                                                                              \
    static void nansum_run_##S(const part_t *P, int64_t o, const void *v, int64_t n, int64_t f0)   \
    {                                                                                              \
        (void)f0;                                                                                  \
        ((double *)P->p)[o] += pwn_##S((const T *)v, n);                                           \
    }                                                                                              \
    static void nansum_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)  \
    {                                                                                              \
        const T *restrict v = vv;                                                                  \
        double *restrict acc = (double *)P->p + o;                                                 \
        (void)f0;                                                                                  \
        for (int64_t j = 0; j < n; j++)                                                            \
            acc[j] += v[j] != v[j] ? 0. : (double)v[j];                                            \
    }                                                                                              \
    static void nanprod_run_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0) \
    {                                                                                              \
        const T *v = vv;                                                                           \
        (void)f0;                                                                                  \
        double pr = ((double *)P->p)[o];                                                           \
        for (int64_t i = 0; i < n; i++)                                                            \
            pr *= v[i] != v[i] ? 1. : (double)v[i];                                                \
        ((double *)P->p)[o] = pr;                                                                  \
    }                                                                                              \
    static void nanprod_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0) \
    {                                                                                              \
        const T *restrict v = vv;                                                                  \
        double *restrict acc = (double *)P->p + o;                                                 \
        (void)f0;                                                                                  \
        for (int64_t j = 0; j < n; j++)                                                            \
            acc[j] *= v[j] != v[j] ? 1. : (double)v[j];                                            \
    }                                                                                              \
    static void nanmean_run_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0) \
    {                                                                                              \
        (void)f0;                                                                                  \
        ((double *)P->p)[o] += pwn_##S((const T *)vv, n);                                          \
        ((double *)P->p)[P->n_out + o] += (double)count_##S((const T *)vv, n);                     \
    }                                                                                              \
    static void nanmean_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0) \
    {                                                                                              \
        const T *restrict v = vv;                                                                  \
        double *restrict acc = (double *)P->p + o;                                                 \
        double *restrict cnt = (double *)P->p + P->n_out + o;                                      \
        (void)f0;                                                                                  \
        for (int64_t j = 0; j < n; j++) {                                                          \
            bool ok = v[j] == v[j];                                                                \
            acc[j] += ok ? (double)v[j] : 0.;                                                      \
            cnt[j] += ok;                                                                          \
        }                                                                                          \
    }                                                                                              \
    static inline T nanext_##S(T c, T x, bool mx)                                                  \
    {                                                                                              \
        if (x != x) return c;                                                                      \
        if (c != c) return x;                                                                      \
        return mx ? (x > c ? x : c) : (x < c ? x : c);                                             \
    }                                                                                              \
    static void nanmax_run_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)  \
    {                                                                                              \
        const T *v = vv;                                                                           \
        T r = ((T *)P->p)[o];                                                                      \
        (void)f0;                                                                                  \
        for (int64_t i = 0; i < n; i++)                                                            \
            r = nanext_##S(r, v[i], true);                                                         \
        ((T *)P->p)[o] = r;                                                                        \
    }                                                                                              \
    static void nanmin_run_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)  \
    {                                                                                              \
        const T *v = vv;                                                                           \
        T r = ((T *)P->p)[o];                                                                      \
        (void)f0;                                                                                  \
        for (int64_t i = 0; i < n; i++)                                                            \
            r = nanext_##S(r, v[i], false);                                                        \
        ((T *)P->p)[o] = r;                                                                        \
    }                                                                                              \
    static void nanmax_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)  \
    {                                                                                              \
        const T *restrict v = vv;                                                                  \
        T *restrict acc = (T *)P->p + o;                                                           \
        (void)f0;                                                                                  \
        for (int64_t j = 0; j < n; j++)                                                            \
            acc[j] = nanext_##S(acc[j], v[j], true);                                               \
    }                                                                                              \
    static void nanmin_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)  \
    {                                                                                              \
        const T *restrict v = vv;                                                                  \
        T *restrict acc = (T *)P->p + o;                                                           \
        (void)f0;                                                                                  \
        for (int64_t j = 0; j < n; j++)                                                            \
            acc[j] = nanext_##S(acc[j], v[j], false);                                              \
    }                                                                                              \
    static void nanvar_run_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)  \
    {                                                                                              \
        const T *v = vv;                                                                           \
        double *pn = (double *)P->p, *pm = pn + P->n_out, *pq = pm + P->n_out;                     \
        (void)f0;                                                                                  \
        for (int64_t s = 0; s < n; s += VAR_BLOCK) {                                               \
            int64_t k = n - s < VAR_BLOCK ? n - s : VAR_BLOCK;                                     \
            int64_t c = count_##S(v + s, k);                                                       \
            if (c == 0) continue;                                                                  \
            double mean = pwn_##S(v + s, k) / (double)c, q = 0;                                    \
            for (int64_t i = 0; i < k; i++) {                                                      \
                if (v[s + i] != v[s + i]) continue;                                                \
                double d = (double)v[s + i] - mean;                                                \
                q += d * d;                                                                        \
            }                                                                                      \
            var_merge(&pn[o], &pm[o], &pq[o], (double)c, mean, q);                                 \
        }                                                                                          \
    }                                                                                              \
    static void nanvar_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)  \
    {                                                                                              \
        const T *restrict v = vv;                                                                  \
        double *restrict pn = (double *)P->p + o;                                                  \
        double *restrict pm = (double *)P->p + P->n_out + o;                                       \
        double *restrict pq = (double *)P->p + 2 * P->n_out + o;                                   \
        (void)f0;                                                                                  \
        for (int64_t j = 0; j < n; j++) {                                                          \
            if (v[j] != v[j]) continue;                                                            \
            double x = (double)v[j], c = pn[j] + 1.0, d = x - pm[j];                               \
            double m = pm[j] + d / c;                                                              \
            pq[j] += d * (x - m);                                                                  \
            pm[j] = m;                                                                             \
            pn[j] = c;                                                                             \
        }                                                                                          \
    }                                                                                              \
    /* position o of a row or run: candidates in increasing index order */                         \
    static inline void nanarg_put_##S(const part_t *P, int64_t o, T xv, int64_t xi, bool mx)       \
    {                                                                                              \
        double *val = (double *)P->p;                                                              \
        int64_t *idx = (int64_t *)P->p + P->n_out, *ok = idx + P->n_out;                           \
        double x = xv != xv ? (mx ? -INFINITY : INFINITY) : (double)xv;                            \
        ok[o] |= xv == xv;                                                                         \
        if (idx[o] < 0 || (mx ? x > val[o] : x < val[o])) {                                        \
            val[o] = x;                                                                            \
            idx[o] = xi;                                                                           \
        }                                                                                          \
    }                                                                                              \
    static void nanargmax_run_##S(const part_t *P, int64_t o, const void *vv, int64_t n,           \
                                  int64_t f0)                                                      \
    {                                                                                              \
        const T *v = vv;                                                                           \
        for (int64_t i = 0; i < n; i++)                                                            \
            nanarg_put_##S(P, o, v[i], f0 + i, true);                                              \
    }                                                                                              \
    static void nanargmin_run_##S(const part_t *P, int64_t o, const void *vv, int64_t n,           \
                                  int64_t f0)                                                      \
    {                                                                                              \
        const T *v = vv;                                                                           \
        for (int64_t i = 0; i < n; i++)                                                            \
            nanarg_put_##S(P, o, v[i], f0 + i, false);                                             \
    }                                                                                              \
    static void nanargmax_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n,           \
                                  int64_t f0)                                                      \
    {                                                                                              \
        const T *v = vv;                                                                           \
        for (int64_t j = 0; j < n; j++)                                                            \
            nanarg_put_##S(P, o + j, v[j], f0 + j, true);                                          \
    }                                                                                              \
    static void nanargmin_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n,           \
                                  int64_t f0)                                                      \
    {                                                                                              \
        const T *v = vv;                                                                           \
        for (int64_t j = 0; j < n; j++)                                                            \
            nanarg_put_##S(P, o + j, v[j], f0 + j, false);                                         \
    }
RED_NANF(F, float)
RED_NANF(D, double)

RED_T(B, uint8_t, 0, int64_t, i)
RED_T(I, int32_t, 0, int64_t, i)
RED_T(L, int64_t, 0, int64_t, i)
RED_T(F, float, 1, double, f)
RED_T(D, double, 1, double, f)

/* ---- count_nonzero (an int64 count) and ptp (min then max of the dtype) ---- */
#define RED_CNT_PTP(S, T)                                                                          \
    static void cnz_run_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)     \
    {                                                                                              \
        const T *v = vv;                                                                           \
        int64_t c = 0;                                                                             \
        (void)f0;                                                                                  \
        for (int64_t i = 0; i < n; i++)                                                            \
            c += v[i] != 0;                                                                        \
        ((int64_t *)P->p)[o] += c;                                                                 \
    }                                                                                              \
    static void cnz_row_##S(const part_t *P, int64_t o, const void *vv, int64_t n, int64_t f0)     \
    {                                                                                              \
        const T *restrict v = vv;                                                                  \
        int64_t *restrict acc = (int64_t *)P->p + o;                                               \
        (void)f0;                                                                                  \
        for (int64_t j = 0; j < n; j++)                                                            \
            acc[j] += v[j] != 0;                                                                   \
    }                                                                                              \
    static void ptp_run_##S(const part_t *P, int64_t o, const void *v, int64_t n, int64_t f0)      \
    {                                                                                              \
        part_t lo = {P->p, P->n_out}, hi = {(T *)P->p + P->n_out, P->n_out};                       \
        min_run_##S(&lo, o, v, n, f0);                                                             \
        max_run_##S(&hi, o, v, n, f0);                                                             \
    }                                                                                              \
    static void ptp_row_##S(const part_t *P, int64_t o, const void *v, int64_t n, int64_t f0)      \
    {                                                                                              \
        part_t lo = {P->p, P->n_out}, hi = {(T *)P->p + P->n_out, P->n_out};                       \
        min_row_##S(&lo, o, v, n, f0);                                                             \
        max_row_##S(&hi, o, v, n, f0);                                                             \
    }
RED_CNT_PTP(B, uint8_t)
RED_CNT_PTP(I, int32_t)
RED_CNT_PTP(L, int64_t)
RED_CNT_PTP(F, float)
RED_CNT_PTP(D, double)

typedef struct {
    run_fn run;
    row_fn row;
} red_fns_t;

#define FNS5(op)                                                                                   \
    {                                                                                              \
        {op##_run_B, op##_row_B}, {op##_run_I, op##_row_I}, {op##_run_L, op##_row_L},              \
            {op##_run_F, op##_row_F}, {op##_run_D, op##_row_D},                                    \
    }
/* float dtypes only: eff_op maps the others to the plain reductions */
#define FNSF(op)                                                                                   \
    {                                                                                              \
        {NULL, NULL}, {NULL, NULL}, {NULL, NULL}, {op##_run_F, op##_row_F},                        \
        {                                                                                          \
            op##_run_D, op##_row_D                                                                 \
        }                                                                                          \
    }
static const red_fns_t red_table[OP_COUNT][DT_NTYPES] = {
    [OP_SUM] = FNS5(sum),
    [OP_PROD] = FNS5(prod),
    [OP_MEAN] = FNS5(mean),
    [OP_MIN] = FNS5(min),
    [OP_MAX] = FNS5(max),
    [OP_VAR] = FNS5(var),
    [OP_STD] = FNS5(var),
    [OP_ALL] = FNS5(all),
    [OP_ANY] = FNS5(any),
    [OP_ARGMIN] = FNS5(argmin),
    [OP_ARGMAX] = FNS5(argmax),
    [OP_NANSUM] = FNSF(nansum),
    [OP_NANPROD] = FNSF(nanprod),
    [OP_NANMEAN] = FNSF(nanmean),
    [OP_NANMIN] = FNSF(nanmin),
    [OP_NANMAX] = FNSF(nanmax),
    [OP_NANVAR] = FNSF(nanvar),
    [OP_NANSTD] = FNSF(nanvar),
    [OP_NANARGMIN] = FNSF(nanargmin),
    [OP_NANARGMAX] = FNSF(nanargmax),
    [OP_COUNT_NONZERO] = FNS5(cnz),
    [OP_PTP] = FNS5(ptp),
};

/* ---- identity, combine ----------------------------------------------------- */

static void red_init(op_t op, dtype_t dt, const part_t *P)
{
    int64_t n = P->n_out;
    op = eff_op(op, dt);
    switch (op) {
    case OP_SUM:
    case OP_MEAN:
    case OP_VAR:
    case OP_STD:
    case OP_NANSUM:
    case OP_NANMEAN:
    case OP_NANVAR:
    case OP_NANSTD:
        /* zero bits are 0 and 0.0 */
        memset(P->p, 0, pos_bytes(op, dt) * (size_t)n);
        break;
    case OP_COUNT_NONZERO:
        memset(P->p, 0, 8 * (size_t)n);
        break;
    case OP_PTP: {
        part_t lo = {P->p, n}, hi = {(char *)P->p + dt_size(dt) * (size_t)n, n};
        red_init(OP_MIN, dt, &lo);
        red_init(OP_MAX, dt, &hi);
        break;
    }
    case OP_NANMIN:
    case OP_NANMAX:
        for (int64_t i = 0; i < n; i++) {
            if (dt == DT_FLOAT32)
                ((float *)P->p)[i] = NAN;
            else
                ((double *)P->p)[i] = NAN;
        }
        break;
    case OP_NANARGMIN:
    case OP_NANARGMAX:
        memset(P->p, 0, 8 * (size_t)n);
        memset((int64_t *)P->p + n, 0xff, 8 * (size_t)n);
        memset((int64_t *)P->p + 2 * n, 0, 8 * (size_t)n);
        break;
    case OP_NANPROD:
    case OP_PROD:
        for (int64_t i = 0; i < n; i++) {
            if (dt_is_float(dt))
                ((double *)P->p)[i] = 1.0;
            else
                ((int64_t *)P->p)[i] = 1;
        }
        break;
    case OP_ALL:
    case OP_ANY:
        memset(P->p, op == OP_ALL, (size_t)n);
        break;
    case OP_MIN:
    case OP_MAX: {
        bool mx = op == OP_MAX;
        for (int64_t i = 0; i < n; i++) {
            switch (dt) {
            case DT_BOOL:
                ((uint8_t *)P->p)[i] = !mx;
                break;
            case DT_INT32:
                ((int32_t *)P->p)[i] = mx ? INT32_MIN : INT32_MAX;
                break;
            case DT_INT64:
                ((int64_t *)P->p)[i] = mx ? INT64_MIN : INT64_MAX;
                break;
            case DT_FLOAT32:
                ((float *)P->p)[i] = mx ? -INFINITY : INFINITY;
                break;
            default:
                ((double *)P->p)[i] = mx ? -INFINITY : INFINITY;
                break;
            }
        }
        break;
    }
    default: /* argmin, argmax */
        memset(P->p, 0, 8 * (size_t)n);
        memset((int64_t *)P->p + n, 0xff, 8 * (size_t)n);
        break;
    }
}

#define MINMAX_COMB(T)                                                                             \
    do {                                                                                           \
        T *x = a->p;                                                                               \
        const T *y = b->p;                                                                         \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T c = x[i], v = y[i];                                                                  \
            if (mx)                                                                                \
                x[i] = (c >= v || c != c) ? c : v;                                                 \
            else                                                                                   \
                x[i] = (c <= v || c != c) ? c : v;                                                 \
        }                                                                                          \
    } while (0)

/* a = a (+) b, position by position; a holds the earlier values. */
static void red_comb(op_t op, dtype_t dt, const part_t *a, const part_t *b)
{
    int64_t n = a->n_out;
    op = eff_op(op, dt);
    switch (op) {
    case OP_NANMEAN: {
        double *x = a->p;
        const double *y = b->p;
        for (int64_t i = 0; i < 2 * n; i++)
            x[i] += y[i];
        break;
    }
    case OP_NANMIN:
    case OP_NANMAX: {
        bool mx = op == OP_NANMAX;
        if (dt == DT_FLOAT32) {
            float *x = a->p;
            const float *y = b->p;
            for (int64_t i = 0; i < n; i++)
                x[i] = nanext_F(x[i], y[i], mx);
        } else {
            double *x = a->p;
            const double *y = b->p;
            for (int64_t i = 0; i < n; i++)
                x[i] = nanext_D(x[i], y[i], mx);
        }
        break;
    }
    case OP_NANARGMIN:
    case OP_NANARGMAX: {
        /* b holds later candidates: it wins only strictly */
        bool mx = op == OP_NANARGMAX;
        double *av = a->p;
        const double *bv = b->p;
        int64_t *ai = (int64_t *)a->p + n, *aok = ai + n;
        const int64_t *bi = (const int64_t *)b->p + n, *bok = bi + n;
        for (int64_t i = 0; i < n; i++) {
            aok[i] |= bok[i];
            if (bi[i] < 0) continue;
            if (ai[i] < 0 || (mx ? bv[i] > av[i] : bv[i] < av[i]) ||
                (bv[i] == av[i] && bi[i] < ai[i])) {
                av[i] = bv[i];
                ai[i] = bi[i];
            }
        }
        break;
    }
    case OP_NANSUM:
    case OP_NANPROD:
    case OP_NANVAR:
    case OP_NANSTD:
        /* float partials of the plain layouts */
        red_comb(op_nan_base(op), dt, a, b);
        break;
    case OP_COUNT_NONZERO: {
        int64_t *x = a->p;
        const int64_t *y = b->p;
        for (int64_t i = 0; i < n; i++)
            x[i] += y[i];
        break;
    }
    case OP_PTP: {
        size_t h = dt_size(dt) * (size_t)n;
        part_t alo = {a->p, n}, ahi = {(char *)a->p + h, n};
        part_t blo = {b->p, n}, bhi = {(char *)b->p + h, n};
        red_comb(OP_MIN, dt, &alo, &blo);
        red_comb(OP_MAX, dt, &ahi, &bhi);
        break;
    }
    case OP_SUM:
    case OP_MEAN:
        if (op == OP_SUM && !dt_is_float(dt)) {
            uint64_t *x = a->p;
            const uint64_t *y = b->p;
            for (int64_t i = 0; i < n; i++)
                x[i] += y[i];
        } else {
            double *x = a->p;
            const double *y = b->p;
            for (int64_t i = 0; i < n; i++)
                x[i] += y[i];
        }
        break;
    case OP_PROD:
        if (!dt_is_float(dt)) {
            uint64_t *x = a->p;
            const uint64_t *y = b->p;
            for (int64_t i = 0; i < n; i++)
                x[i] *= y[i];
        } else {
            double *x = a->p;
            const double *y = b->p;
            for (int64_t i = 0; i < n; i++)
                x[i] *= y[i];
        }
        break;
    case OP_VAR:
    case OP_STD: {
        double *an = a->p, *am = an + n, *aq = am + n;
        const double *bn = b->p, *bm = bn + n, *bq = bm + n;
        for (int64_t i = 0; i < n; i++)
            var_merge(&an[i], &am[i], &aq[i], bn[i], bm[i], bq[i]);
        break;
    }
    case OP_ALL:
    case OP_ANY: {
        uint8_t *x = a->p;
        const uint8_t *y = b->p;
        for (int64_t i = 0; i < n; i++)
            x[i] = op == OP_ALL ? (x[i] & y[i]) : (x[i] | y[i]);
        break;
    }
    case OP_MIN:
    case OP_MAX: {
        bool mx = op == OP_MAX;
        switch (dt) {
        case DT_BOOL:
            MINMAX_COMB(uint8_t);
            break;
        case DT_INT32:
            MINMAX_COMB(int32_t);
            break;
        case DT_INT64:
            MINMAX_COMB(int64_t);
            break;
        case DT_FLOAT32:
            MINMAX_COMB(float);
            break;
        default:
            MINMAX_COMB(double);
            break;
        }
        break;
    }
    default: { /* argmin, argmax */
        bool mx = op == OP_ARGMAX;
        int64_t *ai = (int64_t *)a->p + n;
        const int64_t *bi = (const int64_t *)b->p + n;
        for (int64_t i = 0; i < n; i++) {
            if (bi[i] < 0) continue;
            bool better;
            if (dt_is_float(dt))
                better =
                    arg_better_f(mx, ((const double *)b->p)[i], bi[i], ((double *)a->p)[i], ai[i]);
            else
                better = arg_better_i(mx, ((const int64_t *)b->p)[i], bi[i], ((int64_t *)a->p)[i],
                                      ai[i]);
            if (better) {
                memcpy((char *)a->p + 8 * i, (const char *)b->p + 8 * i, 8);
                ai[i] = bi[i];
            }
        }
        break;
    }
    }
}

/* ---- map ------------------------------------------------------------------- */

/* A binary cascade of one-position partials: block k's partial merges with
 * its neighbours as a binary counter carries, so sums are pairwise over
 * blocks. 48 levels hold 2^48 blocks. */
#define CASCADE_LEVELS 48
typedef struct {
    op_t op;
    dtype_t dt;
    unsigned char slot[CASCADE_LEVELS][24];
    bool used[CASCADE_LEVELS];
} cascade_t;

static void cascade_push(cascade_t *c, unsigned char *cur)
{
    part_t b = {cur, 1};
    int l = 0;
    for (; c->used[l]; l++) {
        part_t a = {c->slot[l], 1};
        red_comb(c->op, c->dt, &a, &b); /* the slot holds the earlier blocks */
        memcpy(cur, c->slot[l], sizeof c->slot[l]);
        c->used[l] = false;
    }
    memcpy(c->slot[l], cur, sizeof c->slot[l]);
    c->used[l] = true;
}

static void cascade_fold(cascade_t *c, const part_t *P)
{
    unsigned char acc[24];
    part_t a = {acc, 1};
    red_init(c->op, c->dt, &a);
    for (int l = CASCADE_LEVELS - 1; l >= 0; l--) {
        if (c->used[l]) {
            part_t b = {c->slot[l], 1};
            red_comb(c->op, c->dt, &a, &b);
        }
    }
    red_comb(c->op, c->dt, P, &a);
}

/* Local flat indices of argmin/argmax become global ones. */
static void arg_globalize(const kern_red_map_t *m, const part_t *P)
{
    const shape_t *sh = &m->shape;
    int nd = sh->ndim;
    bool all = (m->axes & ((nd < 32 ? (1u << nd) : 0u) - 1u)) == ((nd < 32 ? (1u << nd) : 0u) - 1u);
    int ax = 0;
    while (ax < nd && !(m->axes & (1u << ax)))
        ax++;
    int64_t *idx = (int64_t *)P->p + P->n_out;
    for (int64_t o = 0; o < P->n_out; o++) {
        if (idx[o] < 0) continue;
        int64_t rem = idx[o], g = 0, gs = 1, along = 0;
        for (int d = nd - 1; d >= 0; d--) {
            int64_t i = rem % sh->d[d];
            rem /= sh->d[d];
            int64_t off = m->goff ? m->goff[d] : 0;
            int64_t gd = m->gshape ? m->gshape->d[d] : sh->d[d];
            g += (off + i) * gs;
            gs *= gd;
            if (d == ax) along = off + i;
        }
        idx[o] = all ? g : along;
    }
}

int kern_red_map(const kern_red_map_t *m, void *partial, char *err, size_t errlen)
{
    const shape_t *sh = &m->shape;
    dtype_t dt = m->dt;
    size_t es = dt_size(dt);
    int64_t total = shape_size(sh);
    int64_t n_out = 1;
    bool full = true;
    for (int d = 0; d < sh->ndim; d++) {
        if (!(m->axes & (1u << d))) {
            n_out *= sh->d[d];
            if (sh->d[d] != 1) full = false;
        }
    }
    part_t P = {partial, n_out};
    red_init(m->op, dt, &P);
    if (total == 0) return 0;
    const red_fns_t *F = &red_table[eff_op(m->op, dt)][dt];
    bool is_arg = is_arg_op(m->op);
    int rc = 0;
    ew_ctx_t *ctx = NULL;
    if (m->prog) {
        ctx = ew_ctx_create(m->prog, m->in, sh, err, errlen);
        if (!ctx) return -1;
    }

    if (full) {
        cascade_t *c = kern_xmalloc(sizeof *c);
        memset(c, 0, sizeof *c);
        c->op = m->op;
        c->dt = dt;
        int64_t bs = ctx ? EW_BLOCK : RED_BLOCK;
        char *buf = ctx ? kern_xmalloc((size_t)EW_BLOCK * es) : NULL;
        unsigned char cur[24];
        part_t B = {cur, 1};
        for (int64_t s = 0; s < total; s += bs) {
            int64_t n = total - s < bs ? total - s : bs;
            const void *v;
            if (ctx) {
                rc = ew_ctx_block(ctx, s, n, buf, err, errlen);
                if (rc) break;
                v = buf;
            } else {
                v = (const char *)m->in[0].data + (size_t)s * es;
            }
            red_init(m->op, dt, &B);
            F->run(&B, 0, v, n, s);
            cascade_push(c, cur);
        }
        if (rc == 0) cascade_fold(c, &P);
        free(buf);
        free(c);
    } else {
        const char *V = m->prog ? NULL : m->in[0].data;
        char *tmp = NULL;
        if (ctx) {
            tmp = kern_xmalloc((size_t)total * es);
            for (int64_t s = 0; s < total && rc == 0; s += EW_BLOCK) {
                int64_t n = total - s < EW_BLOCK ? total - s : EW_BLOCK;
                rc = ew_ctx_block(ctx, s, n, tmp + (size_t)s * es, err, errlen);
            }
            V = tmp;
        }
        if (rc == 0) {
            /* Collapse: drop size-1 axes, merge neighbours of one kind. */
            int nd = 0;
            int64_t dim[MR_MAXDIM];
            bool red[MR_MAXDIM];
            for (int d = 0; d < sh->ndim; d++) {
                if (sh->d[d] == 1) continue;
                bool r = (m->axes >> d) & 1u;
                if (nd > 0 && red[nd - 1] == r) {
                    dim[nd - 1] *= sh->d[d];
                } else {
                    dim[nd] = sh->d[d];
                    red[nd] = r;
                    nd++;
                }
            }
            int64_t vstr[MR_MAXDIM], ostr[MR_MAXDIM];
            int64_t vs = 1, os = 1;
            for (int d = nd - 1; d >= 0; d--) {
                vstr[d] = vs;
                vs *= dim[d];
                ostr[d] = red[d] ? 0 : os;
                if (!red[d]) os *= dim[d];
            }
            int L = nd - 1;
            int64_t outer = 1;
            for (int d = 0; d < L; d++)
                outer *= dim[d];
            int64_t idx[MR_MAXDIM] = {0};
            int64_t voff = 0, ooff = 0;
            run_fn fn = red[L] ? F->run : F->row;
            for (int64_t k = 0; k < outer; k++) {
                fn(&P, ooff, V + (size_t)voff * es, dim[L], voff);
                for (int d = L - 1; d >= 0; d--) {
                    idx[d]++;
                    voff += vstr[d];
                    ooff += ostr[d];
                    if (idx[d] < dim[d]) break;
                    voff -= vstr[d] * dim[d];
                    ooff -= ostr[d] * dim[d];
                    idx[d] = 0;
                }
            }
        }
        free(tmp);
    }
    ew_ctx_free(ctx);
    if (rc == 0 && is_arg) arg_globalize(m, &P);
    return rc;
}

void kern_red_combine(op_t op, dtype_t in_dt, int64_t n_out, int n_parts, const void *const *parts,
                      void *out_partial)
{
    part_t a = {out_partial, n_out};
    if (n_parts == 0) {
        red_init(op, in_dt, &a);
        return;
    }
    if (out_partial != parts[0])
        memcpy(out_partial, parts[0], kern_red_partial_bytes(op, in_dt, n_out));
    for (int k = 1; k < n_parts; k++) {
        part_t b = {(void *)parts[k], n_out};
        red_comb(op, in_dt, &a, &b);
    }
}

void kern_red_final(op_t op, dtype_t in_dt, int64_t n_out, int64_t n_reduced, int64_t ddof,
                    const void *partial, arr_t *out)
{
    dtype_t rdt = kern_red_result_dtype(op, in_dt);
    const double *pd = partial;
    op = eff_op(op, in_dt);
    switch (op) {
    case OP_NANSUM:
    case OP_NANPROD:
        kern_red_final(op_nan_base(op), in_dt, n_out, n_reduced, ddof, partial, out);
        break;
    case OP_NANMEAN:
    case OP_NANVAR:
    case OP_NANSTD:
        for (int64_t i = 0; i < n_out; i++) {
            double r;
            if (op == OP_NANMEAN) {
                r = pd[i] / pd[n_out + i]; /* no value: 0/0, NaN as numpy */
            } else {
                /* numpy's nanvar: NaN where count - ddof <= 0 */
                double dof = pd[i] - (double)ddof;
                r = dof > 0 ? pd[2 * n_out + i] / dof : NAN;
                if (op == OP_NANSTD) r = sqrt(r);
            }
            if (rdt == DT_FLOAT32)
                ((float *)out->data)[i] = (float)r;
            else
                ((double *)out->data)[i] = r;
        }
        break;
    case OP_COUNT_NONZERO:
        memcpy(out->data, partial, 8 * (size_t)n_out);
        break;
    case OP_PTP: {
        /* max - min in the dtype: integers wrap, as numpy's subtract */
        const char *lo = partial, *hi = lo + dt_size(in_dt) * (size_t)n_out;
        for (int64_t i = 0; i < n_out; i++) {
            switch (in_dt) {
            case DT_INT32: {
                uint32_t h32 = (uint32_t)((const int32_t *)hi)[i];
                uint32_t l32 = (uint32_t)((const int32_t *)lo)[i];
                ((int32_t *)out->data)[i] = (int32_t)(h32 - l32);
                break;
            }
            case DT_INT64: {
                uint64_t h64 = (uint64_t)((const int64_t *)hi)[i];
                uint64_t l64 = (uint64_t)((const int64_t *)lo)[i];
                ((int64_t *)out->data)[i] = (int64_t)(h64 - l64);
                break;
            }
            case DT_FLOAT32:
                ((float *)out->data)[i] = ((const float *)hi)[i] - ((const float *)lo)[i];
                break;
            default:
                ((double *)out->data)[i] = ((const double *)hi)[i] - ((const double *)lo)[i];
                break;
            }
        }
        break;
    }
    case OP_NANARGMIN:
    case OP_NANARGMAX: {
        /* -1 marks an all-NaN slice: kern_red_all_nan reports it */
        const int64_t *idx = (const int64_t *)partial + n_out, *ok = idx + n_out;
        int64_t *o = out->data;
        for (int64_t i = 0; i < n_out; i++)
            o[i] = ok[i] ? idx[i] : -1;
        break;
    }
    case OP_SUM:
    case OP_PROD:
        if (rdt == DT_INT64) {
            const uint64_t *pu = partial;
            int64_t *o = out->data;
            for (int64_t i = 0; i < n_out; i++)
                o[i] = (int64_t)pu[i];
        } else if (rdt == DT_FLOAT32) {
            float *o = out->data;
            for (int64_t i = 0; i < n_out; i++)
                o[i] = (float)pd[i];
        } else {
            memcpy(out->data, partial, 8 * (size_t)n_out);
        }
        break;
    case OP_MEAN:
    case OP_VAR:
    case OP_STD:
        for (int64_t i = 0; i < n_out; i++) {
            double r;
            if (op == OP_MEAN) {
                r = pd[i] / (double)n_reduced;
            } else {
                /* numpy: M2 / max(n - ddof, 0); 0/0 is nan, x/0 inf */
                int64_t dof = n_reduced - ddof;
                r = pd[2 * n_out + i] / (double)(dof > 0 ? dof : 0);
                if (op == OP_STD) r = sqrt(r);
            }
            if (rdt == DT_FLOAT32)
                ((float *)out->data)[i] = (float)r;
            else
                ((double *)out->data)[i] = r;
        }
        break;
    case OP_ARGMIN:
    case OP_ARGMAX:
        memcpy(out->data, (const int64_t *)partial + n_out, 8 * (size_t)n_out);
        break;
    default: /* min, max, all, any: the partial is the result */
        memcpy(out->data, partial, kern_red_partial_bytes(op, in_dt, n_out));
        break;
    }
}

bool kern_red_all_nan(op_t op, const arr_t *out)
{
    if (op != OP_NANARGMIN && op != OP_NANARGMAX) return false;
    int64_t n = shape_size(&out->shape);
    const int64_t *o = out->data;
    for (int64_t i = 0; i < n; i++)
        if (o[i] < 0) return true;
    return false;
}
