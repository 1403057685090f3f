/* stats.c: whole-input statistics (stats.h). */
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo_util.h"

static int oom(char *err, size_t errlen)
{
    return errmsg(err, errlen, "out of memory");
}

/* The present values of column c as doubles, sorted when sort. */
static int64_t present(const fcol_t *c, double *x, bool sort);

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int64_t present(const fcol_t *c, double *x, bool sort)
{
    int64_t m = 0;
    for (int64_t i = 0; i < c->n; i++)
        if (!fcol_is_na(c, i)) x[m++] = dfa_num(c, i);
    if (sort) qsort(x, (size_t)m, sizeof *x, cmp_d);
    return m;
}

/* numpy's median of sorted x[0..m) (pandas' nanmedian): the middle
 * value, or the mean of the two middle ones; no interpolation, so an
 * infinity beside the middle does not make it NaN */
static double median_sorted(const double *x, int64_t m)
{
    if (m == 0) return NAN;
    return m % 2 ? x[m / 2] : (x[m / 2 - 1] + x[m / 2]) / 2.0;
}

/* numpy's linear quantile of sorted x[0..m) */
static double quant(const double *x, int64_t m, double q)
{
    if (m == 0) return NAN;
    double pos = q * (double)(m - 1);
    int64_t lo = (int64_t)floor(pos);
    if (lo >= m - 1) {
        /* numpy interpolates the last value with itself: NaN for +-inf */
        double a = x[m - 1];
        return a - (a - a);
    }
    double f = pos - (double)lo;
    /* numpy's _lerp: a + (b - a) * t, from the other end when t >= 0.5 */
    double a = x[lo], b = x[lo + 1], d = b - a;
    return f >= 0.5 ? b - d * (1 - f) : a + d * f;
}

double df_quant_sorted(const double *x, int64_t m, double q)
{
    return quant(x, m, q);
}

/* numpy's quantile of sorted x[0..m) by method ip (DF_QI_*): linear, or
 * the value below the position, above it, the nearer (a tie: the even
 * position, numpy's around) or their midpoint */
static double quant_by(const double *x, int64_t m, double q, int ip)
{
    if (ip == DF_QI_LINEAR || m == 0) return quant(x, m, q);
    /* pandas asks numpy's percentile of q * 100, which divides by 100:
     * the position as that q's (1/3 ends a hair above) */
    double pos = (q * 100.0 / 100.0) * (double)(m - 1);
    int64_t lo = (int64_t)floor(pos), hi = lo + 1 < m ? lo + 1 : lo;
    double f = pos - (double)lo;
    if (f == 0) return x[lo];
    switch (ip) {
    case DF_QI_LOWER:
        return x[lo];
    case DF_QI_HIGHER:
        return x[hi];
    case DF_QI_NEAREST:
        return f < 0.5 || (f == 0.5 && lo % 2 == 0) ? x[lo] : x[hi];
    default: /* midpoint: numpy's _lerp at 0.5 */
        return x[hi] - (x[hi] - x[lo]) * 0.5;
    }
}

static double zero_fperr(double v)
{
    return fabs(v) < 1e-14 ? 0 : v;
}

/* pandas' nanops.nanskew (k 3) and nankurt (k 4) */
static double moment_stat(const double *x, int64_t m, int k)
{
    double n = (double)m, s = 0;
    if (m < k) return NAN;
    for (int64_t i = 0; i < m; i++)
        s += x[i];
    double mean = s / n, m2 = 0, m3 = 0, m4 = 0;
    for (int64_t i = 0; i < m; i++) {
        double a = x[i] - mean, a2 = a * a;
        m2 += a2;
        m3 += a2 * a;
        m4 += a2 * a2;
    }
    m2 = zero_fperr(m2);
    if (k == 3) {
        m3 = zero_fperr(m3);
        if (m2 == 0) return 0;
        return (n * sqrt(n - 1) / (n - 2)) * (m3 / pow(m2, 1.5));
    }
    m4 = zero_fperr(m4);
    double adj = 3 * (n - 1) * (n - 1) / ((n - 2) * (n - 3));
    double num = zero_fperr(n * (n + 1) * (n - 1) * m4);
    double den = zero_fperr((n - 2) * (n - 3) * m2 * m2);
    if (den == 0) return 0;
    return num / den - adj;
}

/* A label column from the names of in's columns sel[0..n). */
static int name_index(const frame_t *in, const int *sel, int n, fcol_t *o)
{
    bool all_int = n > 0;
    int64_t nb = 1;
    for (int k = 0; k < n; k++) {
        all_int &= in->names[sel[k]].is_int;
        nb += in->names[sel[k]].s ? (int64_t)strlen(in->names[sel[k]].s) : 0;
    }
    if (fcol_alloc(o, all_int ? FT_INT64 : FT_STRING, n, nb, false)) return -1;
    int64_t at = 0;
    for (int k = 0; k < n; k++) {
        const char *s = in->names[sel[k]].s ? in->names[sel[k]].s : "";
        if (all_int) {
            ((int64_t *)o->data)[k] = strtoll(s, NULL, 10);
            continue;
        }
        memcpy(o->bytes + at, s, strlen(s));
        at += (int64_t)strlen(s);
        o->offsets[k + 1] = at;
    }
    if (!all_int) o->bytes[at] = 0;
    return 0;
}

int df_rank_rows(const fcol_t *c, int64_t *rows, int64_t m, int how, bool asc, bool pct, double *y)
{
    dfa_keys_t ks = {0};
    ks.nk = 1;
    ks.k[0] = c;
    bool a1[1] = {asc};
    if (dfa_argsort(&ks, a1, rows, m)) return -1;
    int64_t dense = 0;
    for (int64_t a = 0; a < m;) {
        int64_t b = a + 1;
        while (b < m && dfa_cell_eq(c, rows[a], c, rows[b]))
            b++;
        dense++;
        for (int64_t q = a; q < b; q++) {
            double r;
            switch (how) {
            case 1:
                r = (double)(a + 1);
                break;
            case 2:
                r = (double)b;
                break;
            case 3:
                r = (double)(q + 1);
                break;
            case 4:
                r = (double)dense;
                break;
            default:
                r = (double)(a + 1 + b) / 2.0;
            }
            y[rows[q]] = pct && how != 4 ? r / (double)m : r;
        }
        a = b;
    }
    if (pct && how == 4)
        for (int64_t q = 0; q < m; q++)
            y[rows[q]] /= (double)dense;
    return 0;
}

int df_rank_group(const fcol_t *c, const int64_t *all, int64_t n, int how, bool asc, bool pct,
                  int na_opt, int64_t *rows, double *y)
{
    int64_t m = 0;
    for (int64_t q = 0; q < n; q++) {
        int64_t i = all ? all[q] : q;
        y[i] = NAN;
        if (!fcol_is_na(c, i)) rows[m++] = i;
    }
    int64_t k = n - m; /* missing values */
    if (na_opt == 0 || k == 0) return df_rank_rows(c, rows, m, how, asc, pct, y);
    /* na_option top or bottom: the missing values one group of equal
     * values, ranked before (top) or after (bottom) the others whatever
     * the direction, as pandas' rank_1d; pct over every row (dense: over
     * the groups, theirs among them) */
    if (df_rank_rows(c, rows, m, how, asc, false, y)) return -1;
    double groups = 0; /* dense: the present values' groups */
    for (int64_t q = 0; q < m && how == 4; q++)
        groups = y[rows[q]] > groups ? y[rows[q]] : groups;
    bool top = na_opt == 1;
    double shift = top ? (how == 4 ? 1.0 : (double)k) : 0.0;
    double base = top ? 0.0 : how == 4 ? groups : (double)m;
    for (int64_t q = 0; q < m; q++)
        y[rows[q]] += shift;
    for (int64_t q = 0, seen = 0; q < n; q++) {
        int64_t i = all ? all[q] : q;
        if (!fcol_is_na(c, i)) continue;
        seen++;
        y[i] = base + (how == 1 || how == 4 ? 1.0
                       : how == 2           ? (double)k
                       : how == 3           ? (double)seen
                                            : (double)(1 + k) / 2.0);
    }
    if (pct) {
        double den = how == 4 ? groups + 1 : (double)n;
        for (int64_t q = 0; q < n; q++)
            y[all ? all[q] : q] /= den;
    }
    return 0;
}

/* average, min, max, first, dense ranks of column c */
static int rank_col(const df_node_t *d, const fcol_t *c, fcol_t *o)
{
    int64_t n = c->n;
    int64_t *rows = dfa_alloc(n + 1, sizeof *rows);
    if (!rows || fcol_alloc(o, FT_FLOAT64, n, 0, false)) {
        free(rows);
        return -1;
    }
    int rc = df_rank_group(c, NULL, n, d->how, d->asc1, d->drop, d->rank_na, rows, o->data);
    free(rows);
    return rc;
}

/* the row of column c's largest (smallest: !max) value, the first of
 * equal ones; -1 where it has no value (or, !skipna, a missing one) */
static int64_t best_row(const fcol_t *c, bool max, bool skipna)
{
    int64_t best = -1;
    for (int64_t i = 0; i < c->n; i++) {
        if (fcol_is_na(c, i)) {
            if (!skipna) return -1;
            continue;
        }
        bool better;
        if (best < 0)
            better = true;
        else if (c->type == FT_FLOAT64) {
            double x = ((const double *)c->data)[i], b = ((const double *)c->data)[best];
            better = max ? x > b : x < b;
        } else {
            int64_t x =
                c->type == FT_BOOL ? ((const uint8_t *)c->data)[i] : ((const int64_t *)c->data)[i];
            int64_t b = c->type == FT_BOOL ? ((const uint8_t *)c->data)[best]
                                           : ((const int64_t *)c->data)[best];
            better = max ? x > b : x < b;
        }
        if (better) best = i;
    }
    return best;
}

/* row a's value below row b's, of a bool or int64 column c */
static bool mode_less(const fcol_t *c, int64_t a, int64_t b)
{
    if (c->type == FT_BOOL) return ((const uint8_t *)c->data)[a] < ((const uint8_t *)c->data)[b];
    return ((const int64_t *)c->data)[a] < ((const int64_t *)c->data)[b];
}

/* Column c's modes (pandas' Series.mode): the rows of its most frequent
 * values, one each, sorted by value (missing last, when counted: dropna
 * false; NaT first), into rows (*m of them; rows holds c->n + 1). */
static int modes_of(const fcol_t *c, bool dropna, int64_t *rows, int64_t *m)
{
    int64_t n = c->n, *gid = dfa_alloc(n + 1, sizeof *gid), *cnt = NULL;
    uint8_t *skip = dfa_alloc(n + 1, 1);
    dfa_htab_t t = {0};
    dfa_keys_t ks = {.nk = 1, .k = {c}};
    int rc = -1;
    if (!gid || !skip) goto done;
    for (int64_t i = 0; i < n; i++)
        skip[i] = dropna && fcol_is_na(c, i);
    if (dfa_group(&ks, n, skip, gid, &t) || !(cnt = dfa_alloc(t.ngroups + 1, sizeof *cnt)))
        goto done;
    int64_t top = 0;
    memset(cnt, 0, sizeof *cnt * (size_t)(t.ngroups + 1));
    for (int64_t i = 0; i < n; i++)
        if (gid[i] >= 0 && ++cnt[gid[i]] > top) top = cnt[gid[i]];
    *m = 0;
    bool na_mode = false;
    for (int64_t g = 0; g < t.ngroups; g++)
        if (cnt[g] == top) {
            rows[(*m)++] = t.grep[g];
            na_mode |= fcol_is_na(c, t.grep[g]);
        }
    /* pandas cannot sort strings beside NaN (it warns "Unable to sort
     * modes") and keeps them in order of first appearance, as here; it
     * sorts datetimes and timedeltas as their int64s, NaT (the smallest)
     * first */
    ks.na_first = c->type == FT_INT64 && (c->unit == FU_NS || c->unit == FU_TD);
    if (na_mode && ((c->type == FT_INT64 && c->unit == FU_DATE) || c->type == FT_BOOL)) {
        /* dt.date's dates beside NaT, bools beside NaN (an object column
         * in pandas): numpy sorts the objects, and the missing value is
         * neither less nor greater than any other; its insertion sort (up
         * to 16 modes, always for bools) over the order of first
         * appearance, as here */
        for (int64_t i = 1; i < *m; i++) {
            int64_t r = rows[i], j = i;
            while (j > 0 && !fcol_is_na(c, r) && !fcol_is_na(c, rows[j - 1]) &&
                   mode_less(c, r, rows[j - 1])) {
                rows[j] = rows[j - 1];
                j--;
            }
            rows[j] = r;
        }
        rc = 0;
    } else {
        rc = na_mode && c->type == FT_STRING ? 0 : dfa_argsort(&ks, NULL, rows, *m);
    }
done:
    dfa_htab_free(&t);
    free(gid);
    free(skip);
    free(cnt);
    return rc;
}

/* DataFrame.mode and Series.mode (pandas 1.5): a row per mode of the
 * column of most modes, the others padded with missing values
 * (dfa_take_col: int64 becomes float64, a datetime NaT, bools and
 * strings missing), a default index. */
static int mode_whole(const df_node_t *d, const frame_t *in, frame_t *out)
{
    int nc = d->nsel;
    int64_t **rows = calloc((size_t)nc + 1, sizeof *rows), *m = calloc((size_t)nc + 1, sizeof *m);
    int64_t most = 0, *pad = NULL;
    int rc = -1;
    if (!rows || !m) goto done;
    for (int k = 0; k < nc; k++) {
        const fcol_t *c = &in->cols[d->sel[k]];
        if (!(rows[k] = dfa_alloc(c->n + 1, sizeof **rows)) || modes_of(c, d->drop, rows[k], &m[k]))
            goto done;
        most = m[k] > most ? m[k] : most;
    }
    if (!(pad = dfa_alloc(most + 1, sizeof *pad)) || frame_alloc(out, in->series, most, nc, 1) ||
        fcol_alloc(&out->idx[0], FT_INT64, most, 0, false))
        goto done;
    out->range_index = true;
    for (int64_t i = 0; i < most; i++)
        ((int64_t *)out->idx[0].data)[i] = i;
    for (int k = 0; k < nc; k++) {
        for (int64_t i = 0; i < most; i++)
            pad[i] = i < m[k] ? rows[k][i] : -1;
        if (flabel_set(&out->names[k], d->cols[k].name, d->cols[k].is_int) ||
            dfa_take_col(&in->cols[d->sel[k]], pad, most, true, &out->cols[k]))
            goto done;
    }
    rc = 0;
done:
    for (int k = 0; rows && k < nc; k++)
        free(rows[k]);
    free(rows);
    free(m);
    free(pad);
    if (rc) frame_free(out);
    return rc;
}

int df_stats_whole(const df_node_t *d, op_t op, const frame_t *in, frame_t *out, char *err,
                   size_t errlen)
{
    int64_t n = in->nrows;
    double *x = dfa_alloc(n + 1, sizeof *x), *z = NULL;
    if (!x) return oom(err, errlen);
    int rc = -1;
    switch (op) {
    case OP_DF_QUANTILE:
        if (d->qlist) {
            /* a row per q, indexed by q; a column per selected column */
            int nq = d->nlit, nc = d->ncols;
            if (frame_alloc(out, in->series, nq, nc, 1) ||
                fcol_alloc(&out->idx[0], FT_FLOAT64, nq, 0, false))
                goto nomem;
            for (int i = 0; i < nq; i++)
                ((double *)out->idx[0].data)[i] = d->lits[i].f;
            for (int k = 0; k < nc; k++) {
                if (fcol_alloc(&out->cols[k], FT_FLOAT64, nq, 0, false) ||
                    flabel_set(&out->names[k], d->cols[k].name, d->cols[k].is_int))
                    goto nomem;
                int64_t m = present(&in->cols[d->sel[k]], x, true);
                for (int i = 0; i < nq; i++)
                    ((double *)out->cols[k].data)[i] = quant_by(x, m, d->lits[i].f, d->roll_interp);
            }
            rc = 0;
            break;
        }
        /* fall through */
    case OP_DF_MEDIAN:
    case OP_DF_SKEW:
    case OP_DF_KURT: {
        if (frame_alloc(out, true, d->nsel, 1, 1) ||
            fcol_alloc(&out->cols[0], FT_FLOAT64, d->nsel, 0, false) ||
            name_index(in, d->sel, d->nsel, &out->idx[0]) ||
            flabel_set(&out->names[0], d->cols[0].name, d->cols[0].is_int))
            goto nomem;
        for (int k = 0; k < d->nsel; k++) {
            bool q = op == OP_DF_MEDIAN || op == OP_DF_QUANTILE;
            int64_t m = present(&in->cols[d->sel[k]], x, q);
            double v = op == OP_DF_MEDIAN     ? median_sorted(x, m)
                       : op == OP_DF_QUANTILE ? quant_by(x, m, d->frac, d->roll_interp)
                                              : moment_stat(x, m, op == OP_DF_SKEW ? 3 : 4);
            ((double *)out->cols[0].data)[k] = v;
        }
        rc = 0;
        break;
    }
    case OP_DF_IDXMAX:
    case OP_DF_IDXMIN: {
        if (n == 0) {
            rc = errmsg(err, errlen, "attempt to get %s of an empty sequence (pandas' ValueError)",
                        op == OP_DF_IDXMAX ? "argmax" : "argmin");
            break;
        }
        int64_t *pick = dfa_alloc(d->nsel + 1, sizeof *pick);
        if (!pick) goto nomem;
        for (int k = 0; k < d->nsel; k++)
            pick[k] = best_row(&in->cols[d->sel[k]], op == OP_DF_IDXMAX, d->drop);
        bool ok = !frame_alloc(out, true, d->nsel, 1, 1) &&
                  !dfa_take_col(&in->idx[0], pick, d->nsel, false, &out->cols[0]) &&
                  !name_index(in, d->sel, d->nsel, &out->idx[0]);
        free(pick);
        if (!ok) goto nomem;
        rc = 0;
        break;
    }
    case OP_DF_CORR:
    case OP_DF_COV: {
        int nc = d->nsel;
        if (!(z = dfa_alloc(n + 1, sizeof *z)) || frame_alloc(out, false, nc, nc, 1) ||
            name_index(in, d->sel, nc, &out->idx[0]))
            goto nomem;
        for (int a = 0; a < nc; a++) {
            if (flabel_set(&out->names[a], in->names[d->sel[a]].s, in->names[d->sel[a]].is_int) ||
                fcol_alloc(&out->cols[a], FT_FLOAT64, nc, 0, false))
                goto nomem;
        }
        for (int a = 0; a < nc; a++)
            for (int b = 0; b < nc; b++) {
                const fcol_t *ca = &in->cols[d->sel[a]], *cb = &in->cols[d->sel[b]];
                int64_t m = 0;
                for (int64_t i = 0; i < n; i++)
                    if (!fcol_is_na(ca, i) && !fcol_is_na(cb, i)) {
                        x[m] = dfa_num(ca, i);
                        z[m++] = dfa_num(cb, i);
                    }
                double v = NAN;
                if (m >= (d->n > 0 ? d->n : 1)) {
                    double sx = 0, sy = 0;
                    for (int64_t i = 0; i < m; i++)
                        sx += x[i], sy += z[i];
                    double mx = sx / (double)m, my = sy / (double)m, xx = 0, yy = 0, xy = 0;
                    for (int64_t i = 0; i < m; i++) {
                        double u = x[i] - mx, w = z[i] - my;
                        xx += u * u;
                        yy += w * w;
                        xy += u * w;
                    }
                    if (op == OP_DF_COV)
                        v = m > 1 ? xy / (double)(m - 1) : NAN;
                    else {
                        double dv = sqrt(xx * yy);
                        v = dv != 0 ? xy / dv : NAN;
                        if (v > 1) v = 1;
                        if (v < -1) v = -1;
                    }
                }
                ((double *)out->cols[b].data)[a] = v;
            }
        rc = 0;
        break;
    }
    case OP_DF_VALUE_COUNTS: {
        const fcol_t *c = &in->cols[0];
        dfa_keys_t ks = {0};
        ks.nk = 1;
        ks.k[0] = c;
        int64_t *gid = dfa_alloc(n + 1, sizeof *gid);
        uint8_t *skip = dfa_alloc(n + 1, 1);
        dfa_htab_t t = {0};
        int64_t *cnt = NULL, *ord = NULL;
        bool ok = gid && skip;
        for (int64_t i = 0; ok && i < n; i++)
            skip[i] = !d->how && fcol_is_na(c, i); /* how 1: dropna false */
        ok = ok && dfa_group(&ks, n, skip, gid, &t) == 0;
        int64_t ng = ok ? t.ngroups : 0;
        ok = ok && (cnt = dfa_alloc(ng + 1, sizeof *cnt)) && (ord = dfa_alloc(ng + 1, sizeof *ord));
        if (ok) {
            int64_t tot = 0;
            for (int64_t g = 0; g < ng; g++)
                cnt[g] = 0, ord[g] = g;
            for (int64_t i = 0; i < n; i++)
                if (gid[i] >= 0) cnt[gid[i]]++, tot++;
            /* groups in first-appearance order, stably sorted by count */
            if (d->append) {
                fcol_t cc = {.type = FT_INT64, .n = ng, .data = cnt};
                dfa_keys_t kc = {0};
                kc.nk = 1;
                kc.k[0] = &cc;
                bool asc[1] = {d->asc1};
                ok = dfa_argsort(&kc, asc, ord, ng) == 0;
            }
            int64_t *rep = dfa_alloc(ng + 1, sizeof *rep);
            ok = ok && rep;
            for (int64_t g = 0; ok && g < ng; g++)
                rep[g] = t.grep[ord[g]];
            frame_t one = {0}, tk = {0};
            ok = ok && !frame_alloc(&one, true, n, 1, 1);
            if (ok) {
                one.view = true;
                one.cols[0] = *c;
                one.idx[0] = *c;
                ok = !frame_take(&one, rep, ng, &tk);
                frame_free(&one);
            }
            ok = ok && !frame_alloc(out, true, ng, 1, 1) &&
                 !fcol_alloc(&out->cols[0], d->drop ? FT_FLOAT64 : FT_INT64, ng, 0, false) &&
                 !flabel_set(&out->names[0], d->cols[0].name, d->cols[0].is_int);
            if (ok) {
                out->idx[0] = tk.idx[0];
                memset(&tk.idx[0], 0, sizeof tk.idx[0]);
                for (int64_t g = 0; g < ng; g++) {
                    if (d->drop)
                        ((double *)out->cols[0].data)[g] = (double)cnt[ord[g]] / (double)tot;
                    else
                        ((int64_t *)out->cols[0].data)[g] = cnt[ord[g]];
                }
            }
            frame_free(&tk);
            free(rep);
        }
        dfa_htab_free(&t);
        free(gid);
        free(skip);
        free(cnt);
        free(ord);
        if (!ok) goto nomem;
        rc = 0;
        break;
    }
    case OP_DF_MODE:
        rc = mode_whole(d, in, out) ? oom(err, errlen) : 0;
        break;
    case OP_DF_RANK: {
        if (frame_alloc(out, in->series, n, d->ncols, in->nidx) || frame_copy_index(in, out))
            goto nomem;
        for (int k = 0; k < d->ncols; k++)
            if (flabel_set(&out->names[k], d->cols[k].name, d->cols[k].is_int) ||
                rank_col(d, &in->cols[d->sel[k]], &out->cols[k]))
                goto nomem;
        rc = 0;
        break;
    }
    default:
        errmsg(err, errlen, "internal: no statistic for %s", op_name(op));
        break;
    }
    free(x);
    free(z);
    return rc;
nomem:
    free(x);
    free(z);
    frame_free(out);
    return oom(err, errlen);
}
