/* cut.c: dataframe.cut (cut.h). */
#include "cut.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fpfmt.h"
#include "clean.h"
#include "stats.h"

static int oom(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* An edge as pandas prints it: an integer, or Python's repr of a float. */
static void edge_text(char *b, size_t len, double v, bool ints)
{
    if (ints)
        snprintf(b, len, "%lld", (long long)v);
    else
        fp_repr(b, len, v);
}

int df_cut_unique(const df_node_t *d, const double *in, int n, double **e, int *ne, char *err,
                  size_t errlen)
{
    double *o = malloc(sizeof(double) * (size_t)(n + 1));
    if (!o) return oom(err, errlen);
    /* pandas' unique (first occurrences in order): the edges rise (checked,
     * or linspace's, or sorted quantiles), so equal numbers are adjacent;
     * NaN is one value wherever it stands (qcut's quantiles of infinities
     * give NaN at both ends: the first is kept) */
    int m = 0;
    bool nan_seen = false;
    for (int i = 0; i < n; i++) {
        if (isnan(in[i])) {
            if (!nan_seen) o[m++] = in[i];
            nan_seen = true;
            continue;
        }
        if (!(m > 0 && o[m - 1] == in[i])) o[m++] = in[i];
    }
    if (m < n && n != 2 && !d->cut_drop) {
        char b[512] = "", t[40];
        for (int i = 0; i < n && strlen(b) < 400; i++) {
            edge_text(t, sizeof t, in[i], d->cut_int && d->cut_n == 0);
            snprintf(b + strlen(b), sizeof b - strlen(b), "%s%s", i ? ", " : "", t);
        }
        free(o);
        snprintf(err, errlen,
                 "Bin edges must be unique: [%s]. You can drop duplicate edges by setting the "
                 "'duplicates' kwarg",
                 b);
        return -1;
    }
    if (m == n || n == 2 || !d->cut_drop) {
        memcpy(o, in, sizeof(double) * (size_t)n);
        m = n;
    }
    *e = o;
    *ne = m;
    return 0;
}

/* numpy's power_of_ten and np.around(x, digits) for digits >= 0: x times
 * 10^digits, rint, divided back */
static double pow10n(int n)
{
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
    if (n < 9) return p10[n];
    double r = 1e9;
    while (n-- > 9)
        r *= 10.;
    return r;
}

/* pandas' _round_frac: x rounded to `precision` digits after its first
 * significant one when |x| < 1, else after the point */
static double round_frac(double x, int precision)
{
    if (!isfinite(x) || x == 0) return x;
    double whole, frac = modf(x, &whole);
    int digits = whole == 0 ? -(int)floor(log10(fabs(frac))) - 1 + precision : precision;
    double f = pow10n(digits);
    return rint(x * f) / f;
}

char **df_cut_intervals(const double *e, int ne, bool ints, bool right, bool lowest, int precision)
{
    double *b = malloc(sizeof(double) * (size_t)(ne + 1));
    char **out = calloc((size_t)(ne > 1 ? ne - 1 : 0) + 1, sizeof(char *));
    if (!b || !out) {
        free(b);
        free(out);
        return NULL;
    }
    /* _infer_precision: the least precision from `precision` to 19 that
     * keeps the edges apart (the edges rise, so adjacent ones suffice) */
    int p = precision;
    for (int q = precision; !ints && q < 20; q++) {
        bool apart = true;
        for (int i = 1; i < ne && apart; i++)
            apart = round_frac(e[i - 1], q) != round_frac(e[i], q);
        if (apart) {
            p = q;
            break;
        }
    }
    for (int i = 0; i < ne; i++)
        b[i] = ints ? e[i] : round_frac(e[i], p);
    /* include_lowest: the first edge moved down by 10^-precision, which
     * makes an IntervalIndex of integers one of floats */
    if (right && lowest && ne > 0) {
        b[0] -= pow(10, -p);
        ints = false;
    }
    for (int i = 0; i + 1 < ne; i++) {
        char l[40], r[40];
        edge_text(l, sizeof l, b[i], ints);
        edge_text(r, sizeof r, b[i + 1], ints);
        size_t len = strlen(l) + strlen(r) + 5;
        if (!(out[i] = malloc(len))) {
            for (int k = 0; k < i; k++)
                free(out[k]);
            free(out);
            free(b);
            return NULL;
        }
        snprintf(out[i], len, "%s%s, %s%s", right ? "(" : "[", l, r, right ? "]" : ")");
    }
    free(b);
    return out;
}

/* ------------------------------------------------------------------ range */

enum { R_MIN, R_MAX, R_VALID, R_ROWS, R_N };

int df_cut_range(const frame_t *const *parts, int n, bool chunk, frame_t *out, char *err,
                 size_t errlen)
{
    double r[R_N] = {NAN, NAN, 0, 0};
    for (int p = 0; p < n; p++) {
        if (chunk) {
            const fcol_t *c = &parts[p]->cols[0];
            for (int64_t i = 0; i < c->n; i++) {
                double v = c->type == FT_FLOAT64 ? ((const double *)c->data)[i]
                                                 : (double)((const int64_t *)c->data)[i];
                if (v != v) continue;
                if (r[R_VALID] == 0 || v < r[R_MIN]) r[R_MIN] = v;
                if (r[R_VALID] == 0 || v > r[R_MAX]) r[R_MAX] = v;
                r[R_VALID] += 1;
            }
            r[R_ROWS] += (double)c->n;
            continue;
        }
        const frame_t *f = parts[p];
        double q[R_N];
        for (int k = 0; k < R_N; k++)
            q[k] = ((const double *)f->cols[k].data)[0];
        if (q[R_VALID] > 0) {
            if (r[R_VALID] == 0 || q[R_MIN] < r[R_MIN]) r[R_MIN] = q[R_MIN];
            if (r[R_VALID] == 0 || q[R_MAX] > r[R_MAX]) r[R_MAX] = q[R_MAX];
        }
        r[R_VALID] += q[R_VALID];
        r[R_ROWS] += q[R_ROWS];
    }
    if (frame_alloc(out, false, 1, R_N, 1) || fcol_alloc(&out->idx[0], FT_INT64, 1, 0, false))
        goto fail;
    ((int64_t *)out->idx[0].data)[0] = 0;
    for (int k = 0; k < R_N; k++) {
        if (fcol_alloc(&out->cols[k], FT_FLOAT64, 1, 0, false)) goto fail;
        ((double *)out->cols[k].data)[0] = r[k];
    }
    return 0;
fail:
    frame_free(out);
    return oom(err, errlen);
}

/* bins as a count: pandas' edges over [min, max] of every value (+ 0.0:
 * floats), np.linspace's, the first (right) or last edge moved out by
 * 0.1% of the range; a range of one value widened by 0.1% of it */
static int count_edges(const df_node_t *d, const frame_t *rng, double **e, int *ne, char *err,
                       size_t errlen)
{
    const double *g[R_N];
    for (int k = 0; k < R_N; k++)
        g[k] = rng->cols[k].data;
    if (g[R_ROWS][0] == 0) {
        snprintf(err, errlen, "Cannot cut empty array");
        return -1;
    }
    double mn = g[R_MIN][0] + 0.0, mx = g[R_MAX][0] + 0.0;
    if (isinf(mn) || isinf(mx)) {
        snprintf(err, errlen, "cannot specify integer `bins` when input data contains infinity");
        return -1;
    }
    int64_t nb = d->cut_n;
    if (nb > 1000000) {
        snprintf(err, errlen, "cut: %lld bins are more than 1000000", (long long)nb);
        return -1;
    }
    double *b = malloc(sizeof(double) * (size_t)(nb + 2));
    if (!b) return oom(err, errlen);
    bool same = mn == mx;
    if (same) {
        mn -= mn != 0 ? 0.001 * fabs(mn) : 0.001;
        mx += mx != 0 ? 0.001 * fabs(mx) : 0.001;
    }
    /* np.linspace(mn, mx, nb + 1): i * step + start, the last one stop */
    double div = (double)nb, delta = mx - mn, step = delta / div;
    for (int64_t i = 0; i <= nb; i++)
        b[i] = (step == 0 ? ((double)i / div) * delta : (double)i * step) + mn;
    b[nb] = mx;
    if (!same) {
        double adj = (mx - mn) * 0.001;
        if (d->cut_right)
            b[0] -= adj;
        else
            b[nb] += adj;
    }
    int rc = df_cut_unique(d, b, (int)nb + 1, e, ne, err, errlen);
    free(b);
    if (rc == 0 && d->cut_lab == DF_CL_INTERVALS && *ne >= 2 && isnan((*e)[0])) {
        /* no value present: pandas' edges are NaN, and its intervals too */
        free(*e);
        *e = NULL;
        snprintf(err, errlen, "Categorical categories cannot be null (every value is missing)");
        return -1;
    }
    return rc;
}

/* The bin of value x among e[0..ne) (ei: the same as integers, for an
 * int64 x; NULL to compare as floats): 0 .. ne - 2, or -1 (outside, NaN) */
static int64_t bin_of(const df_node_t *d, const double *e, const int64_t *ei, int ne,
                      const fcol_t *c, int64_t i)
{
    bool iv = c->type == FT_INT64 && ei;
    double x = c->type == FT_FLOAT64 ? ((const double *)c->data)[i]
                                     : (double)((const int64_t *)c->data)[i];
    int64_t xi = iv ? ((const int64_t *)c->data)[i] : 0;
    if (x != x) return -1;
    /* searchsorted: side left (right=True) counts the edges below x, side
     * right the edges at or below it */
    int lo = 0, hi = ne;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        bool below = iv ? (d->cut_right ? ei[mid] < xi : ei[mid] <= xi)
                        : (d->cut_right ? e[mid] < x : e[mid] <= x);
        if (below)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t id = lo;
    if (d->cut_lowest && ne > 0 && (iv ? xi == ei[0] : x == e[0])) id = 1;
    return id == 0 || id == ne ? -1 : id - 1;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int df_qcut_edges(const df_node_t *d, const frame_t *const *parts, int n, frame_t *out, char *err,
                  size_t errlen)
{
    int64_t m = 0, nq = d->cut_n > 0 ? d->cut_n + 1 : d->ncut;
    for (int p = 0; p < n; p++)
        m += parts[p]->nrows;
    double *x = malloc(sizeof(double) * (size_t)(m + 1));
    if (!x) return oom(err, errlen);
    m = 0;
    for (int p = 0; p < n; p++) {
        const fcol_t *c = &parts[p]->cols[0];
        for (int64_t i = 0; i < c->n; i++) {
            double v = c->type == FT_FLOAT64 ? ((const double *)c->data)[i]
                                             : (double)((const int64_t *)c->data)[i];
            if (v == v) x[m++] = v;
        }
    }
    if (m == 0) {
        free(x);
        snprintf(err, errlen,
                 "qcut: no value to take quantiles of (pandas: cannot do a "
                 "non-empty take from an empty axes)");
        return -1;
    }
    qsort(x, (size_t)m, sizeof *x, cmp_d);
    if (frame_alloc(out, false, nq, 1, 1) || fcol_alloc(&out->idx[0], FT_INT64, nq, 0, false) ||
        fcol_alloc(&out->cols[0], FT_FLOAT64, nq, 0, false)) {
        free(x);
        frame_free(out);
        return oom(err, errlen);
    }
    double *e = out->cols[0].data;
    for (int64_t i = 0; i < nq; i++) {
        /* np.linspace(0, 1, count + 1): i * step, the last one 1; or the list */
        double q =
            d->cut_n > 0 ? (i == nq - 1 ? 1.0 : (double)i * (1.0 / (double)d->cut_n)) : d->cut_e[i];
        e[i] = df_quant_sorted(x, m, q);
        ((int64_t *)out->idx[0].data)[i] = i;
    }
    free(x);
    return 0;
}

int df_cut_map(const df_node_t *d, const frame_t *in, const frame_t *rng, frame_t *out, char *err,
               size_t errlen)
{
    double *own = NULL;
    const double *e = d->cut_e;
    int ne = d->ncut;
    char **lab = NULL;
    int64_t *code = NULL;
    int rc = -1;
    if (d->cut_q) { /* the quantiles' values (df_qcut_edges) */
        if (df_cut_unique(d, rng->cols[0].data, (int)rng->nrows, &own, &ne, err, errlen)) return -1;
        e = own;
    } else if (d->cut_n > 0) {
        if (count_edges(d, rng, &own, &ne, err, errlen)) return -1;
        e = own;
    }
    bool ints = d->cut_n == 0 && d->cut_int && !d->cut_q;
    int nbin = ne > 0 ? ne - 1 : 0;
    if (d->cut_lab == DF_CL_LIST && d->nlit != nbin) {
        snprintf(err, errlen, "Bin labels must be one fewer than the number of bin edges");
        goto done;
    }
    for (int k = 0; d->cut_lab == DF_CL_INTERVALS && k < ne; k++)
        if (e[k] != e[k]) {
            /* qcut's quantile of +-inf beside inf: NaN (numpy's); pandas
             * cannot make intervals of it */
            snprintf(err, errlen,
                     "qcut: a bin edge is NaN (a quantile of infinities); pandas: missing "
                     "values must be missing in the same location both left and right sides");
            goto done;
        }
    if (d->cut_lab == DF_CL_INTERVALS &&
        !(lab = df_cut_intervals(e, ne, ints, d->cut_right, d->cut_lowest, d->cut_prec))) {
        oom(err, errlen);
        goto done;
    }
    const fcol_t *c = &in->cols[0];
    int64_t n = in->nrows, bytes = 1;
    bool na = false;
    if (!(code = malloc(sizeof(int64_t) * (size_t)(n + 1)))) {
        oom(err, errlen);
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        code[i] = bin_of(d, e, ints ? d->cut_ei : NULL, ne, c, i);
        na |= code[i] < 0;
        if (code[i] >= 0 && d->cut_lab != DF_CL_CODES)
            bytes += (int64_t)strlen(lab ? lab[code[i]] : d->lits[code[i]].s);
    }
    if (df_out_like(d, in, out)) goto fail;
    fcol_t *o = &out->cols[0];
    if (d->cut_lab == DF_CL_CODES) {
        /* int64 codes, float64 with NaN where a value is in no bin */
        if (fcol_alloc(o, na ? FT_FLOAT64 : FT_INT64, n, 0, false)) goto fail;
        for (int64_t i = 0; i < n; i++) {
            if (na)
                ((double *)o->data)[i] = code[i] < 0 ? NAN : (double)code[i];
            else
                ((int64_t *)o->data)[i] = code[i];
        }
    } else {
        if (fcol_alloc(o, FT_STRING, n, bytes, na)) goto fail;
        int64_t at = 0;
        for (int64_t i = 0; i < n; i++) {
            if (code[i] >= 0) {
                const char *s = lab ? lab[code[i]] : d->lits[code[i]].s;
                size_t l = strlen(s);
                memcpy(o->bytes + at, s, l);
                at += (int64_t)l;
            } else {
                o->valid[i] = 0;
            }
            o->offsets[i + 1] = at;
        }
        o->bytes[at] = 0;
    }
    rc = 0;
    goto done;
fail:
    frame_free(out);
    oom(err, errlen);
done:
    for (int i = 0; lab && i < nbin; i++)
        free(lab[i]);
    free(lab);
    free(code);
    free(own);
    return rc;
}
