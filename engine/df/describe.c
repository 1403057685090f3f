/* describe.c: pandas 1.5's describe() on numeric (int64, float64) columns,
 * reproducing the arithmetic pandas runs so that results agree to the last
 * bit where possible:
 *   count  non-NaN values
 *   mean   nanops.nanmean: numpy's pairwise sum over the column with NaN as
 *          0 (float64: one pass over the whole array; int64: cast in numpy's
 *          8192-element buffers, each summed pairwise, then added in turn),
 *          divided by the count
 *   std    nanops.nanstd through bottleneck (installed beside Debian's
 *          pandas): sequential sum for the mean, then the sequential sum
 *          of squared deviations, / (count - 1); NaN when count <= 1
 *   min, max, and 25%, 50%, 75% as np.percentile's "linear" method: at
 *          q * (n - 1) between the sorted neighbours a, b with numpy's
 *          _lerp (a + (b - a) t, or b - (b - a)(1 - t) when t >= 0.5; for
 *          int64 columns b - a is taken in int64 as numpy does)
 * Order statistics come from a selection (expected O(n)), not a full sort. */
#include <stdlib.h>
#include <string.h>

#include "algo_util.h"

/* numpy's pairwise summation (PW_BLOCKSIZE 128, 8 accumulators). */
static double pairwise_sum(const double *a, int64_t n)
{
    if (n < 8) {
        double r = 0.;
        for (int64_t i = 0; i < n; i++)
            r += a[i];
        return r;
    }
    if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; j++)
            r[j] = a[j];
        int64_t i;
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++)
                r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    }
    int64_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

/* numpy's buffer size for casting reductions (NPY_BUFSIZE). */
#define NP_BUFSIZE 8192

/* Selection of the k-th smallest into place (a[k] as if sorted, smaller
 * before, larger after), for T = double (no NaN) and int64. Quickselect with
 * a median of three; past a depth limit the range is sorted instead, so the
 * worst case stays O(n log n). */
#define DEFINE_SELECT(name, T)                                                                     \
    static int name##_cmp(const void *x, const void *y)                                            \
    {                                                                                              \
        T a = *(const T *)x, b = *(const T *)y;                                                    \
        return (a > b) - (a < b);                                                                  \
    }                                                                                              \
    void name(T *a, int64_t lo, int64_t hi, int64_t k) /* range [lo, hi] */                        \
    {                                                                                              \
        int depth = 0;                                                                             \
        while (hi > lo) {                                                                          \
            if (++depth > 64) {                                                                    \
                qsort(a + lo, (size_t)(hi - lo + 1), sizeof(T), name##_cmp);                       \
                return;                                                                            \
            }                                                                                      \
            int64_t mid = lo + (hi - lo) / 2;                                                      \
            T x = a[lo], y = a[mid], z = a[hi];                                                    \
            T p = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));           \
            int64_t i = lo, j = hi;                                                                \
            while (i <= j) {                                                                       \
                while (a[i] < p)                                                                   \
                    i++;                                                                           \
                while (a[j] > p)                                                                   \
                    j--;                                                                           \
                if (i <= j) {                                                                      \
                    T t = a[i];                                                                    \
                    a[i] = a[j];                                                                   \
                    a[j] = t;                                                                      \
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

DEFINE_SELECT(dfa_select_d, double)
DEFINE_SELECT(dfa_select_i, int64_t)

/* The statistics of a float64 column: count, mean, std, min, the nq
 * percentiles qs, max. */
static int describe_f64(const fcol_t *c, const double *qs, int nq, double *st)
{
    int64_t n = c->n, m = 0;
    const double *d = c->data;
    double *v = dfa_alloc(n, sizeof *v), *z = dfa_alloc(n, sizeof *z);
    if (!v || !z) {
        free(v);
        free(z);
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        z[i] = d[i] == d[i] ? d[i] : 0.;
        if (d[i] == d[i]) v[m++] = d[i];
    }
    st[0] = (double)m;
    st[1] = m ? (0. + pairwise_sum(z, n)) / (double)m : NAN;
    double s = 0;
    for (int64_t i = 0; i < m; i++)
        s += v[i];
    double mean = s / (double)m, q = 0;
    for (int64_t i = 0; i < m; i++)
        q += (v[i] - mean) * (v[i] - mean);
    st[2] = m > 1 ? sqrt(q / (double)(m - 1)) : NAN;
    if (m == 0) {
        for (int j = 3; j < 5 + nq; j++)
            st[j] = NAN;
    } else {
        /* positions in order: min, then each quantile's neighbours, max */
        int64_t lo_done = 0;
        for (int j = 0; j < nq; j++) {
            double vi = qs[j] * (double)(m - 1);
            int64_t p = (int64_t)floor(vi), nx = p + 1 < m ? p + 1 : m - 1;
            dfa_select_d(v, lo_done, m - 1, p);
            dfa_select_d(v, p + 1 < m ? p + 1 : p, m - 1, nx);
            lo_done = p;
            double a = v[p], b = v[nx], t = vi - (double)p, diff = b - a;
            st[4 + j] = t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
        }
        double mn = v[0], mx = v[0];
        for (int64_t i = 1; i < m; i++) {
            mn = v[i] < mn ? v[i] : mn;
            mx = v[i] > mx ? v[i] : mx;
        }
        st[3] = mn;
        st[4 + nq] = mx;
    }
    free(v);
    free(z);
    return 0;
}

static int describe_i64(const fcol_t *c, const double *qs, int nq, double *st)
{
    int64_t n = c->n;
    const int64_t *d = c->data;
    int64_t *v = dfa_alloc(n, sizeof *v);
    double *buf = dfa_alloc(n < NP_BUFSIZE ? n : NP_BUFSIZE, sizeof *buf);
    if (!v || !buf) {
        free(v);
        free(buf);
        return -1;
    }
    memcpy(v, d, (size_t)n * sizeof *v);
    st[0] = (double)n;
    double sum = 0.;
    for (int64_t at = 0; at < n; at += NP_BUFSIZE) {
        int64_t k = n - at < NP_BUFSIZE ? n - at : NP_BUFSIZE;
        for (int64_t i = 0; i < k; i++)
            buf[i] = (double)d[at + i];
        sum += pairwise_sum(buf, k);
    }
    st[1] = n ? sum / (double)n : NAN;
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += (double)d[i];
    double mean = s / (double)n, q = 0;
    for (int64_t i = 0; i < n; i++)
        q += ((double)d[i] - mean) * ((double)d[i] - mean);
    st[2] = n > 1 ? sqrt(q / (double)(n - 1)) : NAN;
    if (n == 0) {
        for (int j = 3; j < 5 + nq; j++)
            st[j] = NAN;
    } else {
        int64_t lo_done = 0;
        for (int j = 0; j < nq; j++) {
            double vi = qs[j] * (double)(n - 1);
            int64_t p = (int64_t)floor(vi), nx = p + 1 < n ? p + 1 : n - 1;
            dfa_select_i(v, lo_done, n - 1, p);
            dfa_select_i(v, p + 1 < n ? p + 1 : p, n - 1, nx);
            lo_done = p;
            int64_t a = v[p], b = v[nx];
            double t = vi - (double)p;
            double diff = (double)(int64_t)((uint64_t)b - (uint64_t)a);
            st[4 + j] = t >= 0.5 ? (double)b - diff * (1 - t) : (double)a + diff * t;
        }
        int64_t mn = d[0], mx = d[0];
        for (int64_t i = 1; i < n; i++) {
            mn = d[i] < mn ? d[i] : mn;
            mx = d[i] > mx ? d[i] : mx;
        }
        st[3] = (double)mn;
        st[4 + nq] = (double)mx;
    }
    free(v);
    free(buf);
    return 0;
}

int df_describe(const frame_t *in, frame_t *out, char *err, size_t errlen)
{
    static const double qs[3] = {0.25, 0.5, 0.75};
    static const char *const lab[3] = {"25%", "50%", "75%"};
    return df_describe_q(in, qs, lab, 3, out, err, errlen);
}

int df_describe_q(const frame_t *in, const double *q, const char *const *lab, int nq, frame_t *out,
                  char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int nnum = 0, nr = 5 + nq;
    for (int c = 0; c < in->ncols; c++)
        nnum += in->cols[c].type == FT_INT64 || in->cols[c].type == FT_FLOAT64;
    if (nnum == 0)
        return errmsg(err, errlen,
                      "describe: no numeric (int64 or float64) column; the describe of bool "
                      "and string data is not supported");
    if (frame_alloc(out, in->series, nr, nnum, 1)) goto nomem;
    int64_t nb = 1;
    for (int r = 0; r < nr; r++) {
        const char *t = r < 4        ? (const char *[]){"count", "mean", "std", "min"}[r]
                        : r < 4 + nq ? lab[r - 4]
                                     : "max";
        nb += (int64_t)strlen(t);
    }
    if (fcol_alloc(&out->idx[0], FT_STRING, nr, nb, false)) goto nomem;
    int64_t at = 0;
    for (int r = 0; r < nr; r++) {
        const char *t = r < 4        ? (const char *[]){"count", "mean", "std", "min"}[r]
                        : r < 4 + nq ? lab[r - 4]
                                     : "max";
        size_t l = strlen(t);
        memcpy(out->idx[0].bytes + at, t, l);
        at += (int64_t)l;
        out->idx[0].offsets[r + 1] = at;
    }
    out->idx[0].bytes[at] = 0;
    int k = 0;
    for (int c = 0; c < in->ncols; c++) {
        const fcol_t *col = &in->cols[c];
        if (col->type != FT_INT64 && col->type != FT_FLOAT64) continue;
        if (fcol_alloc(&out->cols[k], FT_FLOAT64, nr, 0, false) ||
            flabel_set(&out->names[k], in->names[c].s, in->names[c].is_int))
            goto nomem;
        if ((col->type == FT_INT64 ? describe_i64 : describe_f64)(col, q, nq, out->cols[k].data))
            goto nomem;
        k++;
    }
    return 0;
nomem:
    frame_free(out);
    return errmsg(err, errlen, "describe: out of memory for %lld rows", (long long)in->nrows);
}
