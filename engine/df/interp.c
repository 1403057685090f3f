/* interp.c: dataframe.interpolate chunk by chunk (interp.h). */
#include "interp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The carry's columns: the rows it covers, the x of its row nearest the
 * chunk filled, then per input column the value, its distance and its x. */
enum { C_N, C_X, C_COLS };
#define C_Y(k) (C_COLS + 3 * (k))
#define C_D(k) (C_COLS + 3 * (k) + 1)
#define C_XK(k) (C_COLS + 3 * (k) + 2)

static int oom(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* Whether column c of a chunk holds numbers pandas interpolates or reads
 * (float64; an int64 column's values are neighbours of another chunk's
 * float64 rows when the column is float64 in pandas). */
static bool numeric(const fcol_t *c)
{
    return c->type == FT_FLOAT64 || (c->type == FT_INT64 && c->unit == FU_NONE);
}

static double num(const fcol_t *c, int64_t i)
{
    return c->type == FT_FLOAT64 ? ((const double *)c->data)[i]
                                 : (double)((const int64_t *)c->data)[i];
}

/* Whether x is the rows' positions (linear, or a default index that the
 * results renumber) rather than the index's values. */
static bool positional(const df_node_t *d, const frame_t *in)
{
    return d->ip_method == DF_IP_LINEAR || in->range_index;
}

/* Row i's x as np.interp reads it: the index value as float64, NaN for a
 * missing one (NaN, NaT). Positional x is not read through this. */
static double xval(const frame_t *in, int64_t i)
{
    const fcol_t *c = &in->idx[0];
    if (c->type == FT_FLOAT64) return ((const double *)c->data)[i];
    int64_t v = ((const int64_t *)c->data)[i];
    return c->unit != FU_NONE && v == INT64_MIN ? NAN : (double)v;
}

static const int64_t *ci(const frame_t *f, int k)
{
    return (const int64_t *)f->cols[k].data;
}
static const double *cf(const frame_t *f, int k)
{
    return (const double *)f->cols[k].data;
}

/* ------------------------------------------------------------------ carry */

static int carry_alloc(int ncols, frame_t *out)
{
    int w = C_COLS + 3 * ncols;
    if (frame_alloc(out, false, 1, w, 1) || fcol_alloc(&out->idx[0], FT_INT64, 1, 0, false))
        return -1;
    ((int64_t *)out->idx[0].data)[0] = 0;
    for (int k = 0; k < w; k++) {
        bool i64 = k == C_N || (k >= C_COLS && (k - C_COLS) % 3 == 1);
        if (fcol_alloc(&out->cols[k], i64 ? FT_INT64 : FT_FLOAT64, 1, 0, false)) return -1;
    }
    return 0;
}

static void put(frame_t *f, int k, double v)
{
    ((double *)f->cols[k].data)[0] = v;
}
static void puti(frame_t *f, int k, int64_t v)
{
    ((int64_t *)f->cols[k].data)[0] = v;
}

int df_interp_edge(const df_node_t *d, const frame_t *in, bool back, frame_t *out, char *err,
                   size_t errlen)
{
    int64_t n = in->nrows;
    bool pos = positional(d, in);
    if (carry_alloc(in->ncols, out)) {
        frame_free(out);
        return oom(err, errlen);
    }
    puti(out, C_N, n);
    put(out, C_X, n == 0 || pos ? NAN : xval(in, back ? 0 : n - 1));
    for (int k = 0; k < in->ncols; k++) {
        const fcol_t *c = &in->cols[k];
        int64_t at = -1;
        if (numeric(c)) {
            for (int64_t q = 0; q < n && at < 0; q++) {
                int64_t i = back ? q : n - 1 - q;
                if (!fcol_is_na(c, i)) at = i;
            }
        }
        put(out, C_Y(k), at < 0 ? NAN : num(c, at));
        puti(out, C_D(k), at < 0 ? -1 : back ? at : n - 1 - at);
        put(out, C_XK(k), at < 0 || pos ? NAN : xval(in, at));
    }
    return 0;
}

int df_interp_combine(const frame_t *far, const frame_t *near, frame_t *out, char *err,
                      size_t errlen)
{
    int ncols = (near->ncols - C_COLS) / 3;
    if (carry_alloc(ncols, out)) {
        frame_free(out);
        return oom(err, errlen);
    }
    int64_t nn = ci(near, C_N)[0];
    puti(out, C_N, ci(far, C_N)[0] + nn);
    put(out, C_X, nn > 0 ? cf(near, C_X)[0] : cf(far, C_X)[0]);
    for (int k = 0; k < ncols; k++) {
        bool use_near = ci(near, C_D(k))[0] >= 0, any = use_near || ci(far, C_D(k))[0] >= 0;
        const frame_t *f = use_near ? near : far;
        put(out, C_Y(k), cf(f, C_Y(k))[0]);
        puti(out, C_D(k), !any ? -1 : use_near ? ci(near, C_D(k))[0] : ci(far, C_D(k))[0] + nn);
        put(out, C_XK(k), cf(f, C_XK(k))[0]);
    }
    return 0;
}

/* ------------------------------------------------------------------ map */

/* The index's x of every row, checked as pandas checks it (no missing
 * value) and as the row order needs it (increasing, from the last row
 * before the chunk, xl: NaN when none). NULL with a message in err. */
static double *row_x(const frame_t *in, double xl, char *err, size_t errlen)
{
    int64_t n = in->nrows;
    double *x = malloc(sizeof(double) * (size_t)(n + 1));
    if (!x) {
        oom(err, errlen);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        x[i] = xval(in, i);
        if (x[i] != x[i]) {
            snprintf(err, errlen,
                     "Interpolation with NaNs in the index has not been implemented. "
                     "Try filling those NaNs before interpolating.");
            free(x);
            return NULL;
        }
        double prev = i > 0 ? x[i - 1] : xl;
        if (prev == prev && !(x[i] > prev)) {
            snprintf(err, errlen,
                     "interpolate over the index needs an index that increases from row to row "
                     "(as float64): %.17g follows %.17g; sort_index first (pandas sorts the "
                     "present values by the index, this engine reads them in row order)",
                     x[i], prev);
            free(x);
            return NULL;
        }
    }
    return x;
}

/* np.interp's value at xp between the points (xa, ya) and (xb, yb), either
 * absent (has_a, has_b): its constant ends, an end's own value where x
 * meets it, else its slope from a, then from b when that gives NaN, then
 * ya when both give NaN and ya equals yb. */
static double np_interp(double xp, bool has_a, double xa, double ya, bool has_b, double xb,
                        double yb)
{
    if (!has_b) return ya;
    if (!has_a) return yb;
    if (xp == xa) return ya;
    if (xp == xb) return yb;
    double slope = (yb - ya) / (xb - xa);
    double r = slope * (xp - xa) + ya;
    if (isnan(r)) {
        r = slope * (xp - xb) + yb;
        if (isnan(r) && ya == yb) r = ya;
    }
    return r;
}

/* Whether the missing value at distance df after its last present value
 * and db before its next one (-1: none) stays missing: pandas'
 * preserve_nans of limit, limit_direction and limit_area. */
static bool stays(const df_node_t *d, int64_t df, int64_t db)
{
    int64_t l = d->ip_limit;
    bool keep;
    switch (d->ip_dir) {
    case DF_IPD_FORWARD:
        keep = df < 0 || (l >= 0 && df > l);
        break;
    case DF_IPD_BACKWARD:
        keep = db < 0 || (l >= 0 && db > l);
        break;
    default:
        keep = l >= 0 && (df < 0 || df > l) && (db < 0 || db > l);
        break;
    }
    if (d->ip_area == DF_IPA_INSIDE) keep |= df < 0 || db < 0;
    if (d->ip_area == DF_IPA_OUTSIDE) keep |= df >= 0 && db >= 0;
    return keep;
}

/* Column k of the chunk filled in place (o: a copy of it, float64), with
 * x the rows' x (NULL: positions), nxt scratch for n rows. */
static void fill_col(const df_node_t *d, const frame_t *in, int k, const double *x,
                     const frame_t *bef, const frame_t *aft, double *y, int64_t *nxt)
{
    int64_t n = in->nrows;
    /* the next present row of every row (n + distance: in the chunks after,
     * -1: none) */
    int64_t next = aft && ci(aft, C_D(k))[0] >= 0 ? n + ci(aft, C_D(k))[0] : -1;
    for (int64_t i = n - 1; i >= 0; i--) {
        nxt[i] = next;
        if (y[i] == y[i]) next = i;
    }
    int64_t a = bef && ci(bef, C_D(k))[0] >= 0 ? -1 - ci(bef, C_D(k))[0] : INT64_MIN;
    double ya = a != INT64_MIN ? cf(bef, C_Y(k))[0] : NAN;
    double xa = a != INT64_MIN && x ? cf(bef, C_XK(k))[0] : (double)a;
    for (int64_t i = 0; i < n; i++) {
        if (y[i] == y[i]) {
            a = i, ya = y[i], xa = x ? x[i] : (double)i;
            continue;
        }
        int64_t b = nxt[i];
        bool has_a = a != INT64_MIN, has_b = b >= 0;
        if (!has_a && !has_b) continue; /* the column has no value: pandas leaves it */
        if (stays(d, has_a ? i - a : -1, has_b ? b - i : -1)) continue;
        double yb = !has_b ? NAN : b < n ? y[b] : cf(aft, C_Y(k))[0];
        double xb = !has_b ? NAN : !x ? (double)b : b < n ? x[b] : cf(aft, C_XK(k))[0];
        y[i] = np_interp(x ? x[i] : (double)i, has_a, xa, ya, has_b, xb, yb);
    }
}

int df_interp_map(const df_node_t *d, const frame_t *in, const frame_t *bef, const frame_t *aft,
                  frame_t *out, char *err, size_t errlen)
{
    int64_t n = in->nrows;
    double *x = NULL;
    int64_t *nxt = NULL;
    if (!positional(d, in) && !(x = row_x(in, bef ? cf(bef, C_X)[0] : NAN, err, errlen))) return -1;
    if (frame_slice(in, 0, n, out) || !(nxt = malloc(sizeof(int64_t) * (size_t)(n + 1)))) {
        free(x);
        frame_free(out);
        return oom(err, errlen);
    }
    /* a column pandas interpolates: float64 here (an int64 chunk of a
     * float64 column has nothing missing) */
    for (int k = 0; k < in->ncols; k++) {
        fcol_t *o = &out->cols[k];
        if (d->cols[k].type == FT_FLOAT64 && o->type == FT_INT64 && o->unit == FU_NONE) {
            /* an int64 chunk of a column typed float64 (graph_df.c: one
             * typed chunk by chunk, whose missing values get fractions) */
            fcol_t w;
            if (fcol_widen(o, &w)) {
                free(nxt);
                free(x);
                frame_free(out);
                return oom(err, errlen);
            }
            fcol_free(o);
            *o = w;
        }
        if (o->type == FT_FLOAT64) fill_col(d, in, k, x, bef, aft, (double *)o->data, nxt);
    }
    free(nxt);
    free(x);
    return 0;
}
