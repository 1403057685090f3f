/* running.c: cumulative and windowed ops across chunk boundaries
 * (running.h). */
#include "running.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../errmsg.h"
#include "algo_util.h"
#include "df3.h"
#include "dfexec.h"

static int oom(char *err, size_t errlen)
{
    return errmsg(err, errlen, "out of memory");
}

static bool is_cum(op_t op)
{
    return op == OP_DF_CUMSUM || op == OP_DF_CUMPROD || op == OP_DF_CUMMAX || op == OP_DF_CUMMIN;
}

/* The ops whose carry is a state folded row by row (cumulative, ewm) and
 * the rows of that state: value and has (cumulative); ewm's weighted
 * value, old weight and observation count. */
static bool is_scan(op_t op)
{
    return is_cum(op) || op == OP_DF_EWM || op == OP_DF_EXPANDING;
}

/* expanding median and quantile: not a scan but a window of rows from the
 * first (df_run_state's path, DF_EXPANDING_ROWS) */
static bool exp_os(const df_node_t *d, op_t op)
{
    return op == OP_DF_EXPANDING && d->n == DF_EXPANDING_ROWS;
}

static bool scan(const df_node_t *d, op_t op)
{
    return is_scan(op) && !exp_os(d, op);
}

/* expanding's state: pandas' window state for a window that only grows */
enum {
    XS_ROWS,
    XS_NOBS,
    XS_SUM,
    XS_COMP,
    XS_NEG,
    XS_SAME,
    XS_PREV,
    XS_MEAN,
    XS_SSQ,
    XS_VCOMP,
    XS_MIN,
    XS_MAX,
    XS_N
};

/* pandas 1.5's roll_skew and roll_kurt (window/aggregations.pyx): the
 * count, Kahan sums of x, x^2, x^3 and x^4 (kurt) with their own
 * compensations for adding and for removing values, and the run of equal
 * values added last. pandas first takes the mean of the whole column and,
 * unless the smallest value lies far below it, subtracts that mean rounded
 * to an integer from every value (sk_shift); so these ops need a pass over
 * every row before the first window (the moment pass: df_run_stat_*). */
enum {
    SK_NOBS,
    SK_X,
    SK_XX,
    SK_XXX,
    SK_X4,
    SK_CA, /* the four compensations of adding, then of removing */
    SK_CR = SK_CA + 4,
    SK_SAME = SK_CR + 4,
    SK_PREV,
    SK_N
};

static bool moments(const df_node_t *d)
{
    return d->ragg == DFRA_SKEW || d->ragg == DFRA_KURT;
}

/* ewm var's and std's state: pandas' ewmcov's */
enum { EV_STARTED, EV_MEAN, EV_COV, EV_SUM_WT, EV_SUM_WT2, EV_OLD_WT, EV_NOBS, EV_N };

static bool ewm_var(const df_node_t *d, op_t op)
{
    return op == OP_DF_EWM && (d->ragg == DFRA_VAR || d->ragg == DFRA_STD);
}

static int64_t state_rows(const df_node_t *d, op_t op)
{
    return ewm_var(d, op)          ? EV_N
           : op == OP_DF_EWM       ? 3 + (d->ewm_times >= 0) /* then the last time */
           : op == OP_DF_EXPANDING ? (moments(d) ? SK_N : XS_N)
                                   : 2;
}

/* ewm's times in frame in (a column of datetimes), or NULL */
static const fcol_t *ewm_tc(const df_node_t *d, op_t op, const frame_t *in)
{
    return op == OP_DF_EWM && d->ewm_times >= 0 ? &in->cols[d->ewm_times] : NULL;
}

/* The input column of output column k */
static int src_of(const df_node_t *d, int k)
{
    return d->roll_src ? d->roll_src[k] : k;
}

/* pandas: ewm's times may hold no NaT */
static int ewm_nat(const df_node_t *d, op_t op, const frame_t *in, char *err, size_t errlen)
{
    const fcol_t *tc = ewm_tc(d, op, in);
    for (int64_t i = 0; tc && i < tc->n; i++)
        if (((const int64_t *)tc->data)[i] == INT64_MIN)
            return errmsg(err, errlen, "ewm: Cannot convert NaT values to integer (times)");
    return 0;
}

bool df_run_forward(const df_node_t *d, op_t op)
{
    return is_scan(op) || op == OP_DF_ROLLING || d->n >= 0;
}

bool df_run_state(const df_node_t *d, op_t op)
{
    return op == OP_DF_ROLLING || exp_os(d, op);
}

bool df_run_after(const df_node_t *d, op_t op)
{
    return op == OP_DF_ROLLING && d->roll_off > 0;
}

/* rows of context a chunk needs from its neighbours (rolling: only its
 * backward carry, a centred window's rows after the chunk; its forward
 * carry is its state, tw_run) */
static int64_t width(const df_node_t *d, op_t op)
{
    if (op == OP_DF_ROLLING) return d->roll_off;
    return d->n < 0 ? -d->n : d->n;
}

static double num(const fcol_t *c, int64_t i)
{
    switch (c->type) {
    case FT_FLOAT64:
        return ((const double *)c->data)[i];
    case FT_INT64:
        return (double)((const int64_t *)c->data)[i];
    default:
        return ((const uint8_t *)c->data)[i];
    }
}

/* A value as the windowed ops (rolling, expanding, ewm) see it: pandas
 * 1.5's _prep_values makes missing values and +-inf NaN */
static double wnum(const fcol_t *c, int64_t i)
{
    if (fcol_is_na(c, i)) return NAN;
    double v = num(c, i);
    return isinf(v) ? NAN : v;
}

static int64_t inum(const fcol_t *c, int64_t i)
{
    return c->type == FT_INT64 ? ((const int64_t *)c->data)[i] : ((const uint8_t *)c->data)[i];
}

/* ------------------------------------------------------------------ cumulative */

static double fstep(op_t op, double a, double x)
{
    switch (op) {
    case OP_DF_CUMSUM:
        return a + x;
    case OP_DF_CUMPROD:
        return a * x;
    case OP_DF_CUMMAX:
        return x > a ? x : a;
    default:
        return x < a ? x : a;
    }
}

static int64_t istep(op_t op, int64_t a, int64_t x)
{
    switch (op) {
    case OP_DF_CUMSUM:
        return (int64_t)((uint64_t)a + (uint64_t)x);
    case OP_DF_CUMPROD:
        return (int64_t)((uint64_t)a * (uint64_t)x);
    case OP_DF_CUMMAX:
        return x > a ? x : a;
    default:
        return x < a ? x : a;
    }
}

/* Column c run from carry column cc (2 rows: value, has; NULL: none);
 * o: the running values (all rows: out_rows true) or the 2-row edge. */
static int cum_col(op_t op, const fcol_t *c, int ot, const fcol_t *cc, bool edge, fcol_t *o)
{
    int64_t n = c->n;
    ot = fcol_chunk_type(ot, c); /* (frame.h) float64 from a chunk or carry holding it on */
    if (cc) ot = fcol_chunk_type(ot, cc);
    bool has = cc && num(cc, 1) != 0;
    if (fcol_alloc(o, (ftype_t)ot, edge ? 2 : n, 0, false)) return -1;
    if (ot == FT_FLOAT64) {
        double acc = has ? num(cc, 0) : 0, *y = o->data;
        for (int64_t i = 0; i < n; i++) {
            double x = num(c, i);
            if (x != x) {
                if (!edge) y[i] = NAN;
                continue;
            }
            acc = has ? fstep(op, acc, x) : x;
            has = true;
            if (!edge) y[i] = acc;
        }
        if (edge) {
            y[0] = has ? acc : 0;
            y[1] = has;
        }
        return 0;
    }
    int64_t acc = has ? inum(cc, 0) : 0, *y = o->data;
    bool nat = c->type == FT_INT64 && c->unit != FU_NONE; /* datetimes: NaT skipped, kept */
    for (int64_t i = 0; i < n; i++) {
        int64_t x = inum(c, i);
        if (nat && x == INT64_MIN) {
            if (!edge) y[i] = INT64_MIN;
            continue;
        }
        acc = has ? istep(op, acc, x) : x;
        has = true;
        if (!edge) y[i] = acc;
    }
    if (edge) {
        y[0] = has ? acc : 0;
        y[1] = has;
    }
    return 0;
}

/* ------------------------------------------------------------------ ewm */

/* pandas 1.5's ewm (window/aggregations.pyx, ewm) over column c, row by
 * row from the state in cc (3 rows: weighted, old weight, observations;
 * NULL: pandas' start, NaN, 1, 0, which its first row meets as every
 * other), so that a chunk after a carry gives the very numbers one pass
 * over the whole column gives. o: the values (float64) or the 3-row
 * state (edge). */
static int ewm_col(const df_node_t *d, const fcol_t *c, const fcol_t *cc, const fcol_t *tc,
                   bool edge, fcol_t *o)
{
    int64_t n = c->n;
    if (fcol_alloc(o, FT_FLOAT64, edge ? 3 + (tc != NULL) : n, 0, false)) return -1;
    double *y = o->data;
    double weighted = cc ? num(cc, 0) : NAN, old_wt = cc ? num(cc, 1) : 1.0;
    int64_t nobs = cc ? (int64_t)num(cc, 2) : 0;
    /* with times: pandas' deltas, the float64 times' differences over the
     * halflife, the last time carried */
    double last = cc && tc ? num(cc, 3) : 0;
    double alpha = 1.0 / (1.0 + d->ewm_com), factor = 1.0 - alpha;
    double new_wt = d->ewm_adjust ? 1.0 : alpha;
    bool normalize = d->ragg != DFRA_SUM;
    for (int64_t i = 0; i < n; i++) {
        double cur = wnum(c, i);
        bool obs = cur == cur;
        nobs += obs;
        double t = tc ? (double)((const int64_t *)tc->data)[i] : 0;
        if (weighted == weighted) {
            if (obs || !d->ewm_ignore_na) {
                if (normalize)
                    old_wt *= tc ? pow(factor, (t - last) / d->ewm_hl_ns) : factor;
                else
                    weighted = factor * weighted;
                if (obs) {
                    if (normalize) {
                        if (weighted != cur) {
                            weighted = old_wt * weighted + new_wt * cur;
                            weighted /= old_wt + new_wt;
                        }
                        if (d->ewm_adjust)
                            old_wt += new_wt;
                        else
                            old_wt = 1.0;
                    } else {
                        weighted += cur;
                    }
                }
            }
        } else if (obs) {
            weighted = cur;
        }
        if (!edge) y[i] = nobs >= d->minp ? weighted : NAN;
        last = t;
    }
    if (edge) {
        y[0] = weighted;
        y[1] = old_wt;
        y[2] = (double)nobs;
        if (tc) y[3] = last;
    }
    return 0;
}

/* pandas 1.5's ewmcov of column c with itself (ewm's var; std is its
 * zsqrt), row by row from the state in cc (EV_N rows; NULL: none yet):
 * the values (float64) or the state (edge) into o. x and y are the same
 * column, so pandas' mean_y is its mean_x. */
static int ewmvar_col(const df_node_t *d, const fcol_t *c, const fcol_t *cc, bool edge, fcol_t *o)
{
    double st[EV_N] = {0};
    for (int q = 0; cc && q < EV_N; q++)
        st[q] = num(cc, q);
    if (fcol_alloc(o, FT_FLOAT64, edge ? EV_N : c->n, 0, false)) return -1;
    double *y = o->data;
    double alpha = 1.0 / (1.0 + d->ewm_com), factor = 1.0 - alpha;
    double new_wt = d->ewm_adjust ? 1.0 : alpha;
    double mean = st[EV_MEAN], cov = st[EV_COV], sum_wt = st[EV_SUM_WT];
    double sum_wt2 = st[EV_SUM_WT2], old_wt = st[EV_OLD_WT];
    int64_t nobs = (int64_t)st[EV_NOBS];
    bool started = st[EV_STARTED] != 0;
    for (int64_t i = 0; i < c->n; i++) {
        double cur = wnum(c, i), v;
        bool obs = cur == cur;
        if (!started) { /* the first row */
            started = true;
            mean = obs ? cur : NAN;
            nobs = obs;
            cov = 0;
            sum_wt = sum_wt2 = old_wt = 1;
            v = nobs >= d->minp ? (d->ewm_bias ? 0 : NAN) : NAN;
        } else {
            nobs += obs;
            if (mean == mean) {
                if (obs || !d->ewm_ignore_na) {
                    sum_wt *= factor;
                    sum_wt2 *= factor * factor;
                    old_wt *= factor;
                    if (obs) {
                        double old_mean = mean;
                        if (mean != cur)
                            mean = (old_wt * old_mean + new_wt * cur) / (old_wt + new_wt);
                        cov = (old_wt * (cov + (old_mean - mean) * (old_mean - mean)) +
                               new_wt * ((cur - mean) * (cur - mean))) /
                              (old_wt + new_wt);
                        sum_wt += new_wt;
                        sum_wt2 += new_wt * new_wt;
                        old_wt += new_wt;
                        if (!d->ewm_adjust) {
                            sum_wt /= old_wt;
                            sum_wt2 /= old_wt * old_wt;
                            old_wt = 1;
                        }
                    }
                }
            } else if (obs) {
                mean = cur;
            }
            if (nobs < d->minp) {
                v = NAN;
            } else if (d->ewm_bias) {
                v = cov;
            } else {
                double num_ = sum_wt * sum_wt, den = num_ - sum_wt2;
                v = den > 0 ? num_ / den * cov : NAN;
            }
        }
        if (d->ragg == DFRA_STD && v == v) v = v < 0 ? 0 : sqrt(v);
        if (!edge) y[i] = v;
    }
    if (edge) {
        y[EV_STARTED] = started;
        y[EV_MEAN] = mean;
        y[EV_COV] = cov;
        y[EV_SUM_WT] = sum_wt;
        y[EV_SUM_WT2] = sum_wt2;
        y[EV_OLD_WT] = old_wt;
        y[EV_NOBS] = (double)nobs;
    }
    return 0;
}

/* ------------------------------------------------------------------ expanding */

/* One value (not NaN) into a window state: pandas 1.5's add_sum and
 * add_mean (window/aggregations.pyx: a Kahan sum, the negatives, the run
 * of equal values), and, with var, add_var (Welford's variance with its
 * own Kahan compensation). */
static void st_add(double *st, double v, bool var)
{
    st[XS_NOBS] += 1;
    double y = v - st[XS_COMP], t = st[XS_SUM] + y;
    st[XS_COMP] = t - st[XS_SUM] - y;
    st[XS_SUM] = t;
    if (signbit(v)) st[XS_NEG] += 1;
    st[XS_SAME] = v == st[XS_PREV] ? st[XS_SAME] + 1 : 1;
    st[XS_PREV] = v;
    if (!var) return;
    double prev_mean = st[XS_MEAN] - st[XS_VCOMP];
    y = v - st[XS_VCOMP];
    t = y - st[XS_MEAN];
    st[XS_VCOMP] = t + st[XS_MEAN] - y;
    st[XS_MEAN] = st[XS_MEAN] + t / st[XS_NOBS];
    st[XS_SSQ] = st[XS_SSQ] + (v - prev_mean) * (v - st[XS_MEAN]);
}

/* One value into expanding's state: st_add's, and the running min and
 * max. */
static void xs_add(double *st, double v)
{
    st[XS_ROWS] += 1;
    if (v != v) return;
    st_add(st, v, true);
    if (st[XS_NOBS] == 1 || v < st[XS_MIN]) st[XS_MIN] = v;
    if (st[XS_NOBS] == 1 || v > st[XS_MAX]) st[XS_MAX] = v;
}

/* pandas' calc_sum, calc_mean and calc_var (ddof 1) with its zsqrt for
 * std, over a window state (XS_*: its values' count, Kahan sum, negatives,
 * run of equal values, Welford sum of squares) */
static double st_calc(int ragg, double minp, const double *st)
{
    double nobs = st[XS_NOBS];
    switch (ragg) {
    case DFRA_SUM:
        if (nobs == 0 && minp == 0) return 0;
        if (nobs < minp) return NAN;
        return st[XS_SAME] >= nobs ? st[XS_PREV] * nobs : st[XS_SUM];
    case DFRA_MEAN: {
        if (!(nobs >= minp && nobs > 0)) return NAN;
        double r = st[XS_SUM] / nobs;
        if (st[XS_SAME] >= nobs) return st[XS_PREV];
        if (st[XS_NEG] == 0 && r < 0) return 0;
        if (st[XS_NEG] == nobs && r > 0) return 0;
        return r;
    }
    default: { /* var, std */
        double r;
        if (!(nobs >= (minp > 1 ? minp : 1) && nobs > 1))
            r = NAN;
        else if (st[XS_SAME] >= nobs)
            r = 0;
        else
            r = st[XS_SSQ] / (nobs - 1);
        if (ragg == DFRA_STD || ragg == DFRA_SEM) r = r < 0 ? 0 : sqrt(r);
        /* pandas' sem: std / (count - 1) ** 0.5, the count the values present */
        if (ragg == DFRA_SEM) r = r / sqrt(nobs - 1);
        return r;
    }
    }
}

/* The value of agg over expanding's state: st_calc's, pandas' roll_max
 * and roll_min, and count (the observations; NaN while the rows are fewer
 * than min_periods). */
static double xs_value(const df_node_t *d, const double *st)
{
    double nobs = st[XS_NOBS], minp = (double)d->minp;
    switch (d->ragg) {
    case DFRA_MIN:
    case DFRA_MAX:
        if (nobs == 0 || nobs < minp) return NAN;
        return d->ragg == DFRA_MIN ? st[XS_MIN] : st[XS_MAX];
    case DFRA_COUNT:
        return st[XS_ROWS] < minp ? NAN : nobs;
    default:
        return st_calc(d->ragg, minp, st);
    }
}

/* expanding over column c from the state in cc (XS_N rows; NULL: none
 * yet), the values (float64) or the state (edge) into o */
static int expanding_col(const df_node_t *d, const fcol_t *c, const fcol_t *cc, bool edge,
                         fcol_t *o)
{
    double st[XS_N] = {0};
    st[XS_PREV] = NAN;
    for (int q = 0; cc && q < XS_N; q++)
        st[q] = num(cc, q);
    if (fcol_alloc(o, FT_FLOAT64, edge ? XS_N : c->n, 0, false)) return -1;
    double *y = o->data;
    for (int64_t i = 0; i < c->n; i++) {
        xs_add(st, wnum(c, i));
        if (!edge) y[i] = xs_value(d, st);
    }
    for (int q = 0; edge && q < XS_N; q++)
        y[q] = st[q];
    return 0;
}

static int expanding_moments(const df_node_t *d, int k, const fcol_t *c, const fcol_t *cc,
                             bool edge, fcol_t *o);

/* One column of a scan (cumulative, ewm, expanding) from carry column cc;
 * k: the output column. */
static int scan_col(const df_node_t *d, op_t op, int k, const fcol_t *c, int ot, const fcol_t *cc,
                    const fcol_t *tc, bool edge, fcol_t *o)
{
    if (op == OP_DF_EXPANDING && moments(d)) return expanding_moments(d, k, c, cc, edge, o);
    if (ewm_var(d, op)) return ewmvar_col(d, c, cc, edge, o);
    if (op == OP_DF_EWM) return ewm_col(d, c, cc, tc, edge, o);
    if (op == OP_DF_EXPANDING) return expanding_col(d, c, cc, edge, o);
    return cum_col(op, c, ot, cc, edge, o);
}

/* ------------------------------------------------------------------ skew and kurt */

bool df_run_moments(const df_node_t *d, op_t op)
{
    return (op == OP_DF_ROLLING || op == OP_DF_EXPANDING) && moments(d);
}

static void kahan(double *sum, double *comp, double v)
{
    double y = v - *comp, t = *sum + y;
    *comp = t - *sum - y;
    *sum = t;
}

/* add_skew / add_kurt (v not NaN) */
static void sk_add(double *q, double v, bool kurt)
{
    q[SK_NOBS] += 1;
    kahan(&q[SK_X], &q[SK_CA], v);
    kahan(&q[SK_XX], &q[SK_CA + 1], v * v);
    kahan(&q[SK_XXX], &q[SK_CA + 2], v * v * v);
    if (kurt) kahan(&q[SK_X4], &q[SK_CA + 3], v * v * v * v);
    q[SK_SAME] = v == q[SK_PREV] ? q[SK_SAME] + 1 : 1;
    q[SK_PREV] = v;
}

/* remove_skew / remove_kurt (v not NaN) */
static void sk_remove(double *q, double v, bool kurt)
{
    q[SK_NOBS] -= 1;
    kahan(&q[SK_X], &q[SK_CR], -v);
    kahan(&q[SK_XX], &q[SK_CR + 1], -v * v);
    kahan(&q[SK_XXX], &q[SK_CR + 2], -v * v * v);
    if (kurt) kahan(&q[SK_X4], &q[SK_CR + 3], -v * v * v * v);
}

/* calc_skew / calc_kurt, min_periods at least 3 (4) as pandas' */
static double sk_value(const df_node_t *d, const double *q)
{
    bool kurt = d->ragg == DFRA_KURT;
    double dn = q[SK_NOBS], minp = (double)d->minp;
    if (minp < (kurt ? 4 : 3)) minp = kurt ? 4 : 3;
    if (!(dn >= minp)) return NAN;
    if (!kurt) {
        double A = q[SK_X] / dn, B = q[SK_XX] / dn - A * A;
        double C = q[SK_XXX] / dn - A * A * A - 3 * A * B;
        if (dn < 3) return NAN;
        if (q[SK_SAME] >= dn) return 0;
        if (B <= 1e-14) return NAN;
        double R = sqrt(B);
        return (sqrt(dn * (dn - 1.)) * C) / ((dn - 2) * R * R * R);
    }
    if (dn < 4) return NAN;
    if (q[SK_SAME] >= dn) return -3.;
    double A = q[SK_X] / dn, R = A * A, B = q[SK_XX] / dn - R;
    R = R * A;
    double C = q[SK_XXX] / dn - R - 3 * A * B;
    R = R * A;
    double D = q[SK_X4] / dn - R - 6 * B * A * A - 4 * C * A;
    if (B <= 1e-14) return NAN;
    double K = (dn * dn - 1.) * D / (B * B) - 3 * ((dn - 1.) * (dn - 1.));
    return K / ((dn - 2.) * (dn - 3.));
}

/* The value pandas subtracts from output column k's values: the column's
 * mean rounded (C's round, as Cython's), when its minimum lies no more
 * than 1e5 (skew; kurt: 1e4) below the mean; else 0. The moment pass's
 * rows: sum, count, minimum (NaN: no value). */
static double sk_shift(const df_node_t *d, int k)
{
    if (!d->run_stat) return 0;
    const double *g = d->run_stat->cols[k].data;
    double mean = g[0] / g[1];
    return g[2] - mean > (d->ragg == DFRA_SKEW ? -1e5 : -1e4) ? round(mean) : 0;
}

/* expanding skew or kurt of output column k (values c) from the state in
 * cc (SK_N rows; NULL: none yet), the values or the state (edge) into o */
static int expanding_moments(const df_node_t *d, int k, const fcol_t *c, const fcol_t *cc,
                             bool edge, fcol_t *o)
{
    double q[SK_N] = {0}, sh = sk_shift(d, k);
    q[SK_PREV] = NAN;
    for (int u = 0; cc && u < SK_N; u++)
        q[u] = num(cc, u);
    if (fcol_alloc(o, FT_FLOAT64, edge ? SK_N : c->n, 0, false)) return -1;
    double *y = o->data;
    for (int64_t i = 0; i < c->n; i++) {
        double v = wnum(c, i);
        if (v == v) sk_add(q, v - sh, d->ragg == DFRA_KURT);
        if (!edge) y[i] = sk_value(d, q);
    }
    for (int u = 0; edge && u < SK_N; u++)
        y[u] = q[u];
    return 0;
}

/* ------------------------------------------------------------------ order statistics */

/* rolling median and quantile: pandas' roll_median_c and roll_quantile
 * take the window's k-th smallest values from a skiplist; here a Fenwick
 * tree over the ranks of the values present counts which are in the
 * window, values added and removed as it moves. The k-th smallest is the
 * same number either way, and the arithmetic on it is pandas'. */
typedef struct {
    double v;
    int64_t p;
} os_pair_t;

static int os_cmp(const void *a, const void *b)
{
    const os_pair_t *x = a, *y = b;
    if (x->v != y->v) return x->v < y->v ? -1 : 1;
    return (x->p > y->p) - (x->p < y->p);
}

typedef struct {
    int64_t n, top; /* values present; the highest power of two <= n */
    int64_t *tree;  /* Fenwick tree over ranks 1..n */
    int64_t *rank;  /* per position: its value's rank, 0 for NaN */
    double *sorted; /* rank - 1 -> value */
} ostat_t;

static void os_free(ostat_t *o)
{
    free(o->tree);
    free(o->rank);
    free(o->sorted);
}

static int os_init(ostat_t *o, const double *x, int64_t m)
{
    memset(o, 0, sizeof *o);
    os_pair_t *pr = malloc(sizeof(os_pair_t) * (size_t)(m + 1));
    o->rank = calloc((size_t)m + 1, sizeof(int64_t));
    o->sorted = malloc(sizeof(double) * (size_t)(m + 1));
    o->tree = calloc((size_t)m + 2, sizeof(int64_t));
    if (!pr || !o->rank || !o->sorted || !o->tree) {
        free(pr);
        os_free(o);
        return -1;
    }
    for (int64_t j = 0; j < m; j++)
        if (x[j] == x[j]) pr[o->n++] = (os_pair_t){x[j], j};
    qsort(pr, (size_t)o->n, sizeof *pr, os_cmp);
    for (int64_t r = 0; r < o->n; r++) {
        o->rank[pr[r].p] = r + 1;
        o->sorted[r] = pr[r].v;
    }
    for (o->top = 1; o->top * 2 <= o->n; o->top *= 2)
        ;
    free(pr);
    return 0;
}

static void os_move(ostat_t *o, int64_t pos, int64_t by, int64_t *nobs)
{
    int64_t r = o->rank[pos];
    if (!r) return;
    *nobs += by;
    for (; r <= o->n; r += r & -r)
        o->tree[r] += by;
}

/* the k-th smallest value in the window (k from 0) */
static double os_kth(const ostat_t *o, int64_t k)
{
    int64_t at = 0, rem = k + 1;
    for (int64_t step = o->top; step; step >>= 1)
        if (at + step <= o->n && o->tree[at + step] < rem) {
            at += step;
            rem -= o->tree[at];
        }
    return o->sorted[at];
}

/* roll_median_c's and roll_quantile's value of a window of nobs values
 * (quantile 0 and 1: roll_min's and roll_max's, the same numbers) */
static double os_value(const df_node_t *d, const ostat_t *o, int64_t nobs)
{
    if (nobs == 0 || nobs < d->minp) return NAN;
    if (d->ragg == DFRA_MEDIAN) {
        int64_t mid = nobs / 2;
        return nobs % 2 ? os_kth(o, mid) : (os_kth(o, mid) + os_kth(o, mid - 1)) / 2;
    }
    if (nobs == 1 || d->gq == 0) return os_kth(o, 0);
    if (d->gq == 1) return os_kth(o, nobs - 1);
    double f = d->gq * (double)(nobs - 1);
    int64_t idx = (int64_t)f;
    if (f == (double)idx) return os_kth(o, idx);
    double lo = os_kth(o, idx), hi = os_kth(o, idx + 1);
    switch (d->roll_interp) {
    case DF_QI_LOWER:
        return lo;
    case DF_QI_HIGHER:
        return hi;
    case DF_QI_NEAREST:
        if (f - (double)idx == 0.5) return idx % 2 == 0 ? lo : hi;
        return f - (double)idx < 0.5 ? lo : hi;
    case DF_QI_MIDPOINT:
        return (lo + hi) / 2;
    default:
        return lo + (hi - lo) * (f - (double)idx);
    }
}

/* The median or quantile of each window [st[r], en[r]) of x[0..m), r <
 * nout (bounds that never move back), into y. */
static int os_windows(const df_node_t *d, const double *x, int64_t m, const int64_t *st,
                      const int64_t *en, int64_t nout, double *y)
{
    ostat_t o;
    if (os_init(&o, x, m)) return -1;
    int64_t cs = 0, ce = 0, nobs = 0;
    for (int64_t r = 0; r < nout; r++) {
        for (; ce < en[r]; ce++)
            os_move(&o, ce, 1, &nobs);
        for (; cs < st[r]; cs++)
            os_move(&o, cs, -1, &nobs);
        y[r] = os_value(d, &o, nobs);
    }
    os_free(&o);
    return 0;
}

/* ------------------------------------------------------------------ windows */

/* Forward fill of a float column in place (pct_change's fill_method). */
static void ffill(double *x, int64_t n)
{
    for (int64_t i = 1; i < n; i++)
        if (x[i] != x[i]) x[i] = x[i - 1];
}

/* x as float64 (a copy), forward-filled when fill. */
static double *as_float(const fcol_t *c, bool fill)
{
    double *x = malloc(sizeof(double) * (size_t)(c->n + 1));
    if (!x) return NULL;
    for (int64_t i = 0; i < c->n; i++)
        x[i] = fcol_is_na(c, i) ? NAN : num(c, i);
    if (fill) ffill(x, c->n);
    return x;
}

static int window_col(const df_node_t *d, op_t op, const fcol_t *c, int ot, int64_t off, int64_t m,
                      fcol_t *o)
{
    int64_t N = c->n, p = d->n;
    ot = fcol_chunk_type(ot, c);
    if (op == OP_DF_SHIFT) {
        bool valid = ot == FT_BOOL || ot == FT_STRING;
        if (ot == FT_STRING) {
            int64_t nb = 1;
            for (int64_t i = off; i < off + m; i++) {
                int64_t s = i - p, l = 0;
                if (s >= 0 && s < N && !fcol_is_na(c, s)) fcol_str(c, s, &l);
                nb += l;
            }
            if (fcol_alloc(o, FT_STRING, m, nb, true)) return -1;
            int64_t at = 0;
            for (int64_t i = 0; i < m; i++) {
                int64_t s = off + i - p, l = 0;
                if (s >= 0 && s < N && !fcol_is_na(c, s)) {
                    const char *str = fcol_str(c, s, &l);
                    memcpy(o->bytes + at, str, (size_t)l);
                } else {
                    o->valid[i] = 0;
                }
                at += l;
                o->offsets[i + 1] = at;
            }
            o->bytes[at] = 0;
            return 0;
        }
        if (fcol_alloc(o, (ftype_t)ot, m, 0, valid)) return -1;
        if (ot == FT_INT64) o->unit = c->unit;
        for (int64_t i = 0; i < m; i++) {
            int64_t s = off + i - p;
            bool in = s >= 0 && s < N;
            if (ot == FT_FLOAT64)
                ((double *)o->data)[i] = in && !fcol_is_na(c, s) ? num(c, s) : NAN;
            else if (ot == FT_INT64 && c->unit != FU_NONE) /* a datetime: NaT */
                ((int64_t *)o->data)[i] = in ? ((const int64_t *)c->data)[s] : INT64_MIN;
            else if (ot == FT_INT64)
                ((int64_t *)o->data)[i] = inum(c, s); /* periods 0 */
            else {
                ((uint8_t *)o->data)[i] = in ? ((const uint8_t *)c->data)[s] : 0;
                o->valid[i] = in && !fcol_is_na(c, s);
            }
        }
        return 0;
    }
    if (op == OP_DF_DIFF && c->type == FT_INT64 && (c->unit == FU_NS || c->unit == FU_TD)) {
        /* datetimes and timedeltas: a timedelta, NaT where either is NaT
         * or the difference leaves int64 */
        if (fcol_alloc(o, FT_INT64, m, 0, false)) return -1;
        o->unit = FU_TD;
        const int64_t *v = c->data;
        for (int64_t i = 0; i < m; i++) {
            int64_t r = off + i, s = r - p, w;
            bool ok = s >= 0 && s < N && v[r] != INT64_MIN && v[s] != INT64_MIN &&
                      !__builtin_sub_overflow(v[r], v[s], &w);
            ((int64_t *)o->data)[i] = ok ? w : INT64_MIN;
        }
        return 0;
    }
    double *x = as_float(c, op == OP_DF_PCT_CHANGE);
    if (!x || fcol_alloc(o, FT_FLOAT64, m, 0, false)) {
        free(x);
        return -1;
    }
    double *y = o->data;
    for (int64_t i = 0; i < m; i++) {
        int64_t r = off + i;
        /* diff and pct_change (rolling runs through tw_run and rw_center) */
        int64_t s = r - p;
        if (s < 0 || s >= N) {
            y[i] = NAN;
        } else if (op == OP_DF_DIFF) {
            y[i] = c->type == FT_INT64
                       ? (double)(int64_t)((uint64_t)inum(c, r) - (uint64_t)inum(c, s))
                       : x[r] - x[s];
        } else {
            y[i] = x[r] / x[s] - 1;
        }
    }
    free(x);
    return 0;
}

/* ------------------------------------------------------------------ windows of time */

/* rolling("2h"): pandas 1.5's variable windows (indexers.pyx,
 * calculate_variable_window_bounds) and their aggregations
 * (aggregations.pyx: roll_sum, roll_mean and roll_var adding and
 * removing values with Kahan sums and Welford's variance, a window that
 * leaves the last one behind summed afresh; roll_max and roll_min's
 * deque), continued across chunks. The carry holds what the next row
 * needs: TS_N rows of state per column (expanding's XS_* and the
 * compensations of removing values, TS_*), then the rows from the
 * last row's window start to the last row (its times in the index, its
 * values in the columns); the state rows' index holds TM_END (the last
 * window's end, counted from those rows) and TM_SIGN (the times'
 * direction: 1, -1, or 0 while every time has been equal, where either
 * direction gives the same windows). Each chunk so gets the very numbers
 * one pass over the whole column gives. A groupby's (d->nkey > 0) rows
 * come sorted by key; each group's first row starts afresh (pandas'
 * GroupbyIndexer: each group's bounds alone, its direction its own), and
 * the carry's columns after d->ncols hold the last group's key. */
/* expanding's state (xs_add adds a value as add_sum, add_mean and add_var
 * do), with the compensations of removing values, remove_sum's and
 * remove_var's own */
enum { TS_CREM = XS_N, TS_VCREM, TS_N };
enum { TM_END, TM_SIGN };

/* the rows of the carry and then of the chunk, and each chunk row's window */
typedef struct {
    int64_t m, w;     /* rows in all, of them the carry's */
    int64_t nw;       /* windows: the chunk's rows (a centred window: more, rw_center) */
    int64_t *t;       /* their times */
    int64_t *st, *en; /* window r: rows st[r] .. en[r] - 1 */
    int64_t end0;     /* the carry's last window end (w > 0) */
    int64_t sn;       /* the carry's state rows (tw_sn) */
    int sign;
} tw_t;

/* rolling cov and corr: pandas' roll_mean of X * Y, X and Y, roll_sum of
 * the rows where both are present, and (corr) roll_var of X and Y, each
 * its own state */
enum { TP_XY, TP_X, TP_Y, TP_N, TP_VX, TP_VY, TP_MAX };

static int tw_nstates(const df_node_t *d)
{
    if (moments(d)) return (SK_N + TS_N - 1) / TS_N; /* skew and kurt: one SK_* state */
    return d->ragg == DFRA_COV ? TP_VX : d->ragg == DFRA_CORR ? TP_MAX : 1;
}

/* The state rows at the head of a carry of windows: TS_N per state */
static int64_t tw_sn(const df_node_t *d)
{
    /* pandas' pairwise cov and corr: a state per pair, column k's carry
     * holding its pairs with every column */
    return TS_N * tw_nstates(d) * (d->roll_pair ? d->ncols : 1);
}

static void tw_free(tw_t *b)
{
    free(b->t);
    free(b->st);
    free(b->en);
}

static const fcol_t *tw_times(const df_node_t *d, const frame_t *in)
{
    return d->roll_on >= 0 ? &in->cols[d->roll_on] : &in->idx[0];
}

static int tw_fail(const df_node_t *d, const frame_t *in, const char *what, char *err,
                   size_t errlen)
{
    const char *on = d->roll_on >= 0 ? in->names[d->roll_on].s : "index";
    if (d->nkey > 0 && !strcmp(what, "be monotonic")) /* pandas' words for groups */
        return errmsg(err, errlen,
                      "Each group within %s must be monotonic. Sort the values in %s first.", on,
                      on);
    return errmsg(err, errlen, "%s values must %s", on, what);
}

/* A groupby's keys: the chunk's key columns (the carry's follow its
 * d->ncols columns, every row the key of the last group it saw) */
static void by_keys(const df_node_t *d, const frame_t *f, int at, dfa_keys_t *ks)
{
    ks->nk = d->nkey;
    for (int k = 0; k < d->nkey; k++)
        ks->k[k] = &f->cols[at < 0 ? d->key[k] : at + k];
}

/* Are rows i and j of in in one group (no key missing in either)? */
static bool same_group(const df_node_t *d, const frame_t *in, int64_t i, int64_t j)
{
    dfa_keys_t ks;
    by_keys(d, in, -1, &ks);
    return !dfa_keys_any_na(&ks, i) && !dfa_keys_any_na(&ks, j) && dfa_keys_eq(&ks, i, &ks, j);
}

/* Does chunk in's first row continue the group of the carry's state? */
static bool by_continues(const df_node_t *d, const frame_t *carry, const frame_t *in)
{
    if (!carry || carry->nrows == 0 || in->nrows == 0) return false;
    dfa_keys_t ki, kc;
    by_keys(d, in, -1, &ki);
    by_keys(d, carry, d->ncols, &kc);
    return !dfa_keys_any_na(&ki, 0) && !dfa_keys_any_na(&kc, 0) && dfa_keys_eq(&kc, 0, &ki, 0);
}

/* Does row i of the carry's rows and then the chunk's (w of the carry's)
 * start a group: its key or the row before's missing (such rows are each
 * alone, and left out after), or the keys differing? */
static bool by_starts(const df_node_t *d, const frame_t *carry, const frame_t *in, int64_t w,
                      int64_t i)
{
    int64_t r = i - w;
    return r > 0 ? !same_group(d, in, r - 1, r) : !(w > 0 && by_continues(d, carry, in));
}

/* A window of rows (pandas' FixedWindowIndexer: rows r - window + 1 .. r;
 * with groups, GroupbyIndexer's: cut at the group's first row), through
 * the same state as windows of time: the chunk's rows' windows, counted
 * from the carry's rows. Their "times" are zeros, never read. */
static int rw_bounds(const df_node_t *d, const frame_t *carry, const frame_t *in, tw_t *b)
{
    int64_t gs = 0; /* the first row of the current group */
    memset(b->t + b->w, 0, sizeof(int64_t) * (size_t)(b->m - b->w));
    /* closed (pandas' FixedWindowIndexer): the start one row back when the
     * window holds its left end, the end one row back when it leaves out
     * its right end */
    int64_t ds = d->roll_closed & DF_RC_LEFT ? 1 : 0, de = d->roll_closed & DF_RC_RIGHT ? 0 : 1;
    for (int64_t i = b->w; i < b->m; i++) {
        int64_t r = i - b->w, st = i + 1 - d->n - ds, en = i + 1 - de;
        if (d->nkey > 0 && by_starts(d, carry, in, b->w, i)) gs = i;
        b->st[r] = st < gs ? gs : st;
        b->en[r] = en < b->st[r] ? b->st[r] : en;
    }
    return 0;
}

/* The times of carry (NULL: none) and chunk in, checked as pandas checks
 * them (no NaT, monotonic), and the windows of the chunk's rows. */
static int tw_bounds(const df_node_t *d, const frame_t *carry, const frame_t *in, tw_t *b,
                     char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    int64_t n = in->nrows;
    b->sn = tw_sn(d);
    b->w = carry ? carry->nrows - b->sn : 0;
    b->m = b->w + n;
    b->nw = n;
    b->t = malloc(sizeof(int64_t) * (size_t)(b->m + 1));
    b->st = malloc(sizeof(int64_t) * (size_t)(n + 1));
    b->en = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!b->t || !b->st || !b->en) {
        tw_free(b);
        return oom(err, errlen);
    }
    if (carry) {
        const int64_t *ci = carry->idx[0].data;
        memcpy(b->t, ci + b->sn, sizeof(int64_t) * (size_t)b->w);
        b->end0 = ci[TM_END];
        b->sign = (int)ci[TM_SIGN];
    }
    if (!d->roll_time) return rw_bounds(d, carry, in, b);
    memcpy(b->t + b->w, tw_times(d, in)->data, sizeof(int64_t) * (size_t)n);
    bool lc = d->roll_closed & DF_RC_LEFT, rc = d->roll_closed & DF_RC_RIGHT;
    int64_t ps = 0, pe = b->end0; /* the previous row's window */
    for (int64_t i = b->w; i < b->m; i++) {
        int64_t ti = b->t[i], r = i - b->w;
        if (ti == INT64_MIN) {
            tw_free(b);
            return tw_fail(d, in, "not have NaT", err, errlen);
        }
        if (i == 0 || (d->nkey > 0 && i >= b->w && by_starts(d, carry, in, b->w, i))) {
            /* a group's first row (pandas' GroupbyIndexer: each group's
             * windows alone) */
            b->st[r] = i;
            b->en[r] = rc ? i + 1 : i;
            ps = i, pe = b->en[r];
            b->sign = 0;
            continue;
        }
        if (ti != b->t[i - 1]) {
            int g = ti > b->t[i - 1] ? 1 : -1;
            if (b->sign && g != b->sign) {
                tw_free(b);
                return tw_fail(d, in, "be monotonic", err, errlen);
            }
            b->sign = g;
        }
        /* pandas' (index[j] - start_bound) * sign > 0 and (index[end] -
         * end_bound) * sign <= 0, without its int64 overflow */
        bool up = b->sign >= 0;
        __int128 sb = up ? (__int128)ti - d->roll_ns - lc : (__int128)ti + d->roll_ns + lc;
        int64_t s = i, e;
        for (int64_t j = ps; j < i; j++)
            if (up ? b->t[j] > sb : b->t[j] < sb) {
                s = j;
                break;
            }
        e = (up ? b->t[pe] <= ti : b->t[pe] >= ti) ? i + 1 : pe;
        if (!rc) e--;
        b->st[r] = s;
        b->en[r] = e;
        ps = s, pe = e;
    }
    return 0;
}

/* remove_sum, remove_mean's count of negatives and, with var,
 * remove_var */
static void tw_remove(double v, double *q, bool var)
{
    if (v != v) return;
    q[XS_NOBS] -= 1;
    double y = -v - q[TS_CREM], t = q[XS_SUM] + y;
    q[TS_CREM] = t - q[XS_SUM] - y;
    q[XS_SUM] = t;
    if (signbit(v)) q[XS_NEG] -= 1;
    if (!var) return;
    if (q[XS_NOBS] == 0) {
        q[XS_MEAN] = q[XS_SSQ] = 0;
        return;
    }
    double prev_mean = q[XS_MEAN] - q[TS_VCREM];
    y = v - q[TS_VCREM];
    t = y - q[XS_MEAN];
    q[TS_VCREM] = t + q[XS_MEAN] - y;
    q[XS_MEAN] -= t / q[XS_NOBS];
    q[XS_SSQ] -= (v - prev_mean) * (v - q[XS_MEAN]);
}

/* sum, mean, var, std, count (a sum of 1 per value present, 0 per missing
 * one, as pandas' count), skew and kurt over x[0..b->m), from state q
 * (TS_N, skew and kurt SK_N; the carry's, or zeros): the chunk rows'
 * values into y (NULL: none), the state left in q. A window that leaves
 * the last one behind starts afresh, as pandas' (its prev_value there is
 * the row's value; skew's and kurt's is the value before pandas' shift,
 * which the first add's run of one value overwrites: NaN does the same) */
static void tw_sums(const df_node_t *d, const tw_t *b, const double *x, double *q, double *y)
{
    int agg = d->ragg == DFRA_COUNT ? DFRA_SUM : d->ragg;
    bool var = agg == DFRA_VAR || agg == DFRA_STD || agg == DFRA_SEM, mom = moments(d);
    bool kurt = d->ragg == DFRA_KURT;
    int64_t ps = 0, pe = b->end0;
    for (int64_t r = 0; r < b->nw; r++) {
        int64_t s = b->st[r], e = b->en[r];
        if (b->w + r == 0 || s >= pe) {
            for (int u = 0; u < (mom ? SK_N : TS_N); u++)
                q[u] = 0;
            q[mom ? SK_PREV : XS_PREV] = mom ? NAN : x[s];
            pe = s;
        } else {
            for (int64_t j = ps; j < s; j++) {
                if (!mom)
                    tw_remove(x[j], q, var);
                else if (x[j] == x[j])
                    sk_remove(q, x[j], kurt);
            }
        }
        for (int64_t j = pe; j < e; j++) {
            if (x[j] != x[j]) continue;
            if (mom)
                sk_add(q, x[j], kurt);
            else
                st_add(q, x[j], var);
        }
        if (y) y[r] = mom ? sk_value(d, q) : st_calc(agg, (double)d->minp, q);
        ps = s, pe = e;
    }
}

/* _roll_min_max: a deque of positions whose front is the window's
 * extreme; rebuilt from the carry's window, which holds every position
 * it can keep */
static int tw_minmax(const df_node_t *d, const tw_t *b, const double *x, double *y)
{
    bool mx = d->ragg == DFRA_MAX;
    int64_t *Q = malloc(sizeof(int64_t) * (size_t)(b->m + 1)), qh = 0, qt = 0, wh = 0, nobs = 0;
    if (!Q) return -1;
    int64_t pe = 0;
    for (int64_t r = -1; r < b->nw; r++) {
        /* r = -1: the carry's last window, [0, end0) */
        int64_t s = r < 0 ? 0 : b->st[r], e = r < 0 ? (b->w ? b->end0 : 0) : b->en[r];
        for (int64_t k = pe; k < e; k++) {
            double ai = x[k];
            if (ai == ai)
                nobs++;
            else
                ai = mx ? -DBL_MAX : DBL_MAX;
            while (qt > qh) {
                double xb = x[Q[qt - 1]];
                if (!((mx ? ai >= xb : ai <= xb) || xb != xb)) break;
                qt--;
            }
            Q[qt++] = k;
        }
        while (qt > qh && Q[qh] <= s - 1)
            qh++;
        for (; wh < s; wh++)
            if (x[wh] == x[wh]) nobs--;
        pe = e;
        if (r >= 0) y[r] = qt > qh && e - s > 0 && nobs >= d->minp ? x[Q[qh]] : NAN;
    }
    free(Q);
    return 0;
}

/* ------------------------------------------------------------------ frames */

static int labels(const df_node_t *d, const frame_t *in, frame_t *out, bool with_index);
static int by_finish(const df_node_t *d, const frame_t *in, const frame_t *f, frame_t *out);

/* A groupby's result, its rows computed in out (chunk in's rows and
 * index): by_finish in place (nothing without keys). 0, or -1 out of
 * memory (out freed). */
static int by_index(const df_node_t *d, const frame_t *in, frame_t *out)
{
    if (d->nkey == 0) return 0;
    frame_t f = *out;
    *out = (frame_t){0};
    int rc = by_finish(d, in, &f, out);
    frame_free(&f);
    return rc;
}

/* Column k's values over the carry's rows (NULL: none) and then chunk
 * column c's, as float64 */
static double *tw_values(const frame_t *carry, int k, const fcol_t *c, const tw_t *b)
{
    double *x = malloc(sizeof(double) * (size_t)(b->m + 1));
    if (!x) return NULL;
    if (b->w) memcpy(x, (const double *)carry->cols[k].data + b->sn, sizeof(double) * (size_t)b->w);
    double *y = x + b->w;
    if (c->type == FT_FLOAT64 && !c->valid) {
        const double *v = c->data;
        for (int64_t i = 0; i < c->n; i++)
            y[i] = isinf(v[i]) ? NAN : v[i];
    } else if (c->type == FT_INT64 && !c->valid) {
        for (int64_t i = 0; i < c->n; i++)
            y[i] = (double)((const int64_t *)c->data)[i];
    } else {
        for (int64_t i = 0; i < c->n; i++)
            y[i] = wnum(c, i);
    }
    return x;
}

/* One column's values into y (the chunk's rows; NULL: only the state),
 * its state left in q (min, max, median and quantile have none: the rows
 * are their state). */
static int tw_col(const df_node_t *d, const tw_t *b, const double *x, double *q, double *y)
{
    if (d->ragg == DFRA_MIN || d->ragg == DFRA_MAX) return y ? tw_minmax(d, b, x, y) : 0;
    if (d->ragg == DFRA_MEDIAN || d->ragg == DFRA_QUANTILE)
        return y ? os_windows(d, x, b->m, b->st, b->en, b->nw, y) : 0;
    if (d->ragg != DFRA_COUNT) {
        tw_sums(d, b, x, q, y);
        return 0;
    }
    double *ones = malloc(sizeof(double) * (size_t)(b->m + 1));
    if (!ones) return -1;
    for (int64_t i = 0; i < b->m; i++)
        ones[i] = x[i] == x[i];
    tw_sums(d, b, ones, q, y);
    free(ones);
    return 0;
}

/* rolling cov and corr of one column's values xr with the other column's
 * yr, as pandas' cov_func and corr_func: X and Y missing where either
 * is, then (mean(X * Y) - mean(X) * mean(Y)) * (n / (n - 1)), n the
 * rows where both are present, over sqrt(var(X) * var(Y)) for corr; each
 * running aggregate pandas' own (tw_sums), its state in q (tw_nstates
 * states of TS_N). Values into y (NULL: none). */
static int tw_pair(const df_node_t *d, const tw_t *b, const double *xr, const double *yr, double *q,
                   double *y)
{
    int ns = tw_nstates(d), rc = -1;
    int64_t m = b->m, L = b->nw;
    double *v[4] = {0}, *r[TP_MAX] = {0};
    for (int u = 0; u < 4; u++)
        if (!(v[u] = malloc(sizeof(double) * (size_t)(m + 1)))) goto done;
    for (int u = 0; y && u < ns; u++)
        if (!(r[u] = malloc(sizeof(double) * (size_t)(L + 1)))) goto done;
    for (int64_t i = 0; i < m; i++) {
        bool ok = xr[i] == xr[i] && yr[i] == yr[i];
        v[TP_X][i] = ok ? xr[i] : NAN;
        v[TP_Y][i] = ok ? yr[i] : NAN;
        v[TP_XY][i] = v[TP_X][i] * v[TP_Y][i];
        v[TP_N][i] = ok;
    }
    for (int u = 0; u < ns; u++) {
        df_node_t dd = *d;
        dd.ragg = u == TP_N ? DFRA_SUM : u >= TP_VX ? DFRA_VAR : DFRA_MEAN;
        if (u == TP_N) dd.minp = 0;
        tw_sums(&dd, b, v[u == TP_VX ? TP_X : u == TP_VY ? TP_Y : u], q + u * TS_N, r[u]);
    }
    for (int64_t i = 0; y && i < L; i++) {
        double n = r[TP_N][i];
        double c = (r[TP_XY][i] - r[TP_X][i] * r[TP_Y][i]) * (n / (n - 1));
        y[i] = d->ragg == DFRA_COV ? c : c / sqrt(r[TP_VX][i] * r[TP_VY][i]);
    }
    rc = 0;
done:
    for (int u = 0; u < 4; u++)
        free(v[u]);
    for (int u = 0; u < TP_MAX; u++)
        free(r[u]);
    return rc;
}

/* cov and corr: the other column's values over the carry's rows and
 * frame X's (tw_values), read once for every column paired with it;
 * *oy NULL for the other aggregations. 0, or -1 out of memory. */
static int tw_other(const df_node_t *d, const tw_t *b, const frame_t *carry, const frame_t *X,
                    double **oy)
{
    *oy = NULL;
    if (d->ragg != DFRA_COV && d->ragg != DFRA_CORR) return 0;
    int ko = 0; /* its output column: the carry keeps its rows there */
    while (ko < d->ncols - 1 && src_of(d, ko) != d->roll_other)
        ko++;
    return (*oy = tw_values(carry, ko, &X->cols[d->roll_other], b)) ? 0 : -1;
}

/* Output column k over the carry's rows and frame X's (the chunk's; a
 * centred window's, then the rows after it): its values into y (NULL:
 * none), its state q moved on; *xs its values as the carry keeps them
 * (the caller frees them); oy the other column's (tw_other). 0, or -1 out
 * of memory. */
static int tw_column(const df_node_t *d, const tw_t *b, const frame_t *carry, const frame_t *X,
                     int k, const double *oy, double *q, double *y, double **xs)
{
    if (!(*xs = tw_values(carry, k, &X->cols[src_of(d, k)], b))) return -1;
    /* skew and kurt: the chunk's values shifted as pandas shifts the
     * column (the carry's rows were) */
    double sh = moments(d) ? sk_shift(d, k) : 0;
    for (int64_t i = b->w; sh != 0 && i < b->m; i++)
        (*xs)[i] -= sh;
    return oy ? tw_pair(d, b, *xs, oy, q, y) : tw_col(d, b, *xs, q, y);
}

/* A groupby's carry: its key columns after d->ncols, n rows each, row 0
 * the last group's key (the chunk's last row's, else the carry's; with
 * neither, missing), the only row read (by_continues). A string key's
 * other rows are missing, so a long carry holds its bytes once; fixed
 * widths repeat the key. 0, or -1 out of memory. */
static int by_carry_keys(const df_node_t *d, const frame_t *carry, const frame_t *in, int64_t n,
                         frame_t *out)
{
    for (int k = 0; k < d->nkey; k++) {
        const fcol_t *src = in->nrows ? &in->cols[d->key[k]]
                            : carry   ? &carry->cols[d->ncols + k]
                                      : NULL;
        int64_t at = in->nrows ? in->nrows - 1 : 0, len = 0;
        fcol_t *o = &out->cols[d->ncols + k];
        int rc = 0;
        if (!src || src->n == 0) {
            rc = fcol_alloc(o, FT_FLOAT64, n, 0, false);
            for (int64_t i = 0; rc == 0 && i < n; i++)
                ((double *)o->data)[i] = NAN;
        } else if (src->type == FT_STRING) {
            bool na = fcol_is_na(src, at);
            const char *str = na ? "" : fcol_str(src, at, &len);
            rc = fcol_alloc(o, FT_STRING, n, len + 1, true);
            if (rc == 0) {
                memcpy(o->bytes, str, (size_t)len);
                o->bytes[len] = 0;
                for (int64_t i = 0; i < n; i++) {
                    o->offsets[i + 1] = len;
                    o->valid[i] = i == 0 && !na;
                }
            }
        } else {
            int64_t *rows = malloc(sizeof(int64_t) * (size_t)(n + 1));
            if (!rows) return -1;
            for (int64_t i = 0; i < n; i++)
                rows[i] = at;
            rc = fcol_take(src, rows, n, o);
            free(rows);
        }
        if (rc || flabel_set(&out->names[d->ncols + k], NULL, false)) return -1;
    }
    return 0;
}

/* The edge's index: TM_END and TM_SIGN in the state rows (sn), then the
 * times of the rows kept (keep from s0). */
static int tw_edge_index(const tw_t *b, int64_t n, int64_t s0, int64_t keep, frame_t *out)
{
    if (fcol_alloc(&out->idx[0], FT_INT64, b->sn + keep, 0, false)) return -1;
    int64_t *ix = out->idx[0].data;
    memset(ix, 0, sizeof(int64_t) * (size_t)b->sn);
    ix[TM_END] = n ? b->en[n - 1] - s0 : b->end0;
    ix[TM_SIGN] = b->sign;
    memcpy(ix + b->sn, b->t + s0, sizeof(int64_t) * (size_t)keep);
    return 0;
}

/* pandas' pairwise rolling cov and corr (other None): every pair of
 * columns, tw_pair's values; row r of the chunk becomes a row per column
 * i, indexed by r's index and i's label, its column k the pair (i, k)
 * (pandas' formula is symmetric: the same bits either way). The carry's
 * column k holds its pairs' states (tw_sn), then its rows. 0, or -1 out
 * of memory (out freed). */
static int tw_pairwise(const df_node_t *d, const tw_t *b, const frame_t *carry, const frame_t *in,
                       frame_t *out, bool edge, int64_t s0, int64_t keep)
{
    int nc = d->ncols, rc = -1;
    int64_t n = in->nrows, ps = TS_N * tw_nstates(d), sn = b->sn;
    double **xs = calloc((size_t)nc + 1, sizeof(double *)), *y = NULL;
    int64_t *rep = NULL;
    if (!xs || (!edge && !(y = malloc(sizeof(double) * (size_t)(n + 1))))) goto done;
    for (int k = 0; k < nc; k++)
        if (!(xs[k] = tw_values(carry, k, &in->cols[src_of(d, k)], b))) goto done;
    if (edge) {
        if (frame_alloc(out, false, sn + keep, nc, 1) || labels(d, in, out, false) ||
            tw_edge_index(b, n, s0, keep, out))
            goto fail;
    } else {
        int64_t m = n * nc;
        if (!(rep = malloc(sizeof(int64_t) * (size_t)(m + 1))) ||
            frame_alloc(out, false, m, nc, in->nidx + 1) || labels(d, in, out, false))
            goto fail;
        for (int64_t q = 0; q < m; q++)
            rep[q] = q / nc;
        for (int l = 0; l < in->nidx; l++)
            if (fcol_take(&in->idx[l], rep, m, &out->idx[l]) ||
                flabel_set(&out->idx_names[l], in->idx_names[l].s, in->idx_names[l].is_int))
                goto fail;
        /* the last level: the columns' labels, integers (from_tensor's) or
         * strings */
        fcol_t *lv = &out->idx[in->nidx];
        bool ints = nc > 0 && d->cols[0].is_int;
        int64_t bytes = 1;
        for (int k = 0; k < nc; k++)
            bytes += d->cols[k].name ? (int64_t)strlen(d->cols[k].name) : 0;
        if (ints ? fcol_alloc(lv, FT_INT64, m, 0, false)
                 : fcol_alloc(lv, FT_STRING, m, bytes * n + 1, false))
            goto fail;
        int64_t at = 0;
        for (int64_t q = 0; q < m; q++) {
            const char *nm = d->cols[q % nc].name ? d->cols[q % nc].name : "";
            if (ints) {
                ((int64_t *)lv->data)[q] = strtoll(nm, NULL, 10);
                continue;
            }
            size_t l = strlen(nm);
            memcpy(lv->bytes + at, nm, l);
            at += (int64_t)l;
            lv->offsets[q + 1] = at;
        }
        if (!ints) lv->bytes[at] = 0;
    }
    for (int k = 0; k < nc; k++) {
        fcol_t *o = &out->cols[k];
        if (fcol_alloc(o, FT_FLOAT64, edge ? sn + keep : n * nc, 0, false)) goto fail;
        for (int i = 0; i < nc; i++) {
            double q[TS_N * TP_MAX] = {0};
            if (carry && b->w)
                memcpy(q, (const double *)carry->cols[k].data + i * ps,
                       sizeof(double) * (size_t)ps);
            if (tw_pair(d, b, xs[i], xs[k], q, y)) goto fail;
            if (edge)
                memcpy((double *)o->data + i * ps, q, sizeof(double) * (size_t)ps);
            else
                for (int64_t r = 0; r < n; r++)
                    ((double *)o->data)[r * nc + i] = y[r];
        }
        if (edge) memcpy((double *)o->data + sn, xs[k] + s0, sizeof(double) * (size_t)keep);
    }
    rc = 0;
    goto done;
fail:
    frame_free(out);
done:
    for (int k = 0; xs && k < nc; k++)
        free(xs[k]);
    free(xs);
    free(y);
    free(rep);
    return rc;
}

/* A chunk rolled from the carry (NULL: the first), into out: its values
 * (edge false), or the carry after it (edge true). */
static int tw_run(const df_node_t *d, const frame_t *carry, const frame_t *in, frame_t *out,
                  bool edge, char *err, size_t errlen)
{
    tw_t b;
    if (tw_bounds(d, carry, in, &b, err, errlen)) return -1;
    int64_t n = in->nrows, s0 = n ? b.st[n - 1] : 0, keep = b.m - s0, sn = b.sn;
    /* its values, its times and fixed-width keys: 8 bytes a row each */
    if (edge && (double)(sn + keep) * (d->ncols + d->nkey + 1) * 8 > (double)DF3_WHOLE_MAX_BYTES) {
        tw_free(&b);
        if (d->n == DF_EXPANDING_ROWS)
            return errmsg(err, errlen,
                          "expanding %s: its %lld rows so far are more than a carry holds "
                          "(%lld GiB)",
                          d->ragg == DFRA_MEDIAN     ? "median"
                          : d->ragg == DFRA_QUANTILE ? "quantile"
                          : d->ragg == DFRA_COV      ? "cov"
                                                     : "corr",
                          (long long)keep, (long long)(DF3_WHOLE_MAX_BYTES >> 30));
        return errmsg(err, errlen,
                      "rolling: a window of %lld rows is more than a carry holds (%lld GiB); "
                      "use a shorter window",
                      (long long)keep, (long long)(DF3_WHOLE_MAX_BYTES >> 30));
    }
    double *x = NULL, *oy = NULL;
    if (d->roll_pair) {
        /* a row per row and column: n * ncols rows of ncols values */
        double bytes = (double)in->nrows * d->ncols * d->ncols * 8;
        if (!edge && bytes > (double)DF3_WHOLE_MAX_BYTES) {
            tw_free(&b);
            return errmsg(err, errlen,
                          "rolling pairwise %s: a chunk of %lld rows gives %lld rows of %d "
                          "columns, more than the limit of %lld GiB one job writes; use smaller "
                          "chunks",
                          d->ragg == DFRA_COV ? "cov" : "corr", (long long)in->nrows,
                          (long long)in->nrows * d->ncols, d->ncols,
                          (long long)(DF3_WHOLE_MAX_BYTES >> 30));
        }
        if (!edge && in->range_index) {
            tw_free(&b);
            return errmsg(err, errlen,
                          "rolling pairwise %s: this frame's index is numbered when the result "
                          "is assembled (after a merge, reset_index or concat): set_index first",
                          d->ragg == DFRA_COV ? "cov" : "corr");
        }
        int rc = tw_pairwise(d, &b, carry, in, out, edge, s0, keep);
        tw_free(&b);
        return rc ? oom(err, errlen) : 0;
    }
    if (tw_other(d, &b, carry, in, &oy)) goto fail;
    if (edge) {
        if (frame_alloc(out, false, sn + keep, d->ncols + d->nkey, 1) ||
            labels(d, in, out, false) || tw_edge_index(&b, n, s0, keep, out) ||
            by_carry_keys(d, carry, in, sn + keep, out))
            goto fail;
    } else {
        if (frame_alloc(out, in->series, n, d->ncols, in->nidx) || labels(d, in, out, true))
            goto fail;
        out->range_index = in->range_index;
    }
    for (int k = 0; k < d->ncols; k++) {
        fcol_t *o = &out->cols[k];
        if (d->roll_time && src_of(d, k) == d->roll_on) { /* the times: kept (carry: zeros) */
            if (edge ? fcol_alloc(o, FT_FLOAT64, sn + keep, 0, false)
                     : fcol_copy(&in->cols[src_of(d, k)], o))
                goto fail;
            if (edge) memset(o->data, 0, sizeof(double) * (size_t)(sn + keep));
            continue;
        }
        double q[TS_N * TP_MAX] = {0};
        if (carry && b.w) memcpy(q, carry->cols[k].data, sizeof(double) * (size_t)sn);
        if (fcol_alloc(o, FT_FLOAT64, edge ? sn + keep : n, 0, false) ||
            tw_column(d, &b, carry, in, k, oy, q, edge ? NULL : o->data, &x))
            goto fail;
        if (edge) {
            memcpy(o->data, q, sizeof(double) * (size_t)sn);
            memcpy((double *)o->data + sn, x + s0, sizeof(double) * (size_t)keep);
        }
        free(x);
        x = NULL;
    }
    free(oy);
    tw_free(&b);
    if (!edge && by_index(d, in, out)) return oom(err, errlen);
    return 0;
fail:
    free(x);
    free(oy);
    tw_free(&b);
    frame_free(out);
    return oom(err, errlen);
}

static int labels(const df_node_t *d, const frame_t *in, frame_t *out, bool with_index)
{
    for (int k = 0; k < d->ncols; k++)
        if (flabel_set(&out->names[k], d->cols[k].name, d->cols[k].is_int)) return -1;
    for (int k = 0; with_index && k < in->nidx; k++)
        if (flabel_set(&out->idx_names[k], in->idx_names[k].s, in->idx_names[k].is_int) ||
            fcol_copy(&in->idx[k], &out->idx[k]))
            return -1;
    return 0;
}

/* The rows [a, a + n) of f as an owned frame. */
static int rows_of(const frame_t *f, int64_t a, int64_t n, frame_t *out)
{
    return frame_slice(f, a, n, out);
}

/* Forward-fill the float columns of f in place (pct_change's edges). */
static void ffill_frame(frame_t *f)
{
    for (int k = 0; k < f->ncols; k++)
        if (f->cols[k].type == FT_FLOAT64) ffill(f->cols[k].data, f->cols[k].n);
}

static int concat2(const frame_t *a, const frame_t *b, frame_t *out, char *err, size_t errlen)
{
    const frame_t *p[2] = {a, b};
    /* the labels of the index do not matter here: no renumbering */
    frame_t ta = *a, tb = *b;
    ta.range_index = tb.range_index = false;
    p[0] = &ta;
    p[1] = &tb;
    return dfx_concat(p, 2, out, err, errlen);
}

/* A scan's carry frame: state_rows(d, op) rows indexed 0.., d's labels, its
 * columns for the caller to fill. */
static int state_frame(const df_node_t *d, op_t op, const frame_t *in, frame_t *out)
{
    int64_t r = state_rows(d, op);
    if (frame_alloc(out, false, r, d->ncols, 1) || labels(d, in, out, false) ||
        fcol_alloc(&out->idx[0], FT_INT64, r, 0, false))
        return -1;
    for (int64_t q = 0; q < r; q++)
        ((int64_t *)out->idx[0].data)[q] = q;
    return 0;
}

/* A groupby's rolling, its rows computed: f (chunk in's rows, in's index)
 * into out, indexed by in's keys and then in's index, the rows whose key
 * is missing (in no group, as pandas' dropna) left out. 0, or -1 out of
 * memory; f is left to the caller. */
static int by_finish(const df_node_t *d, const frame_t *in, const frame_t *f, frame_t *out)
{
    int64_t m = in->nrows, keep = 0;
    int nk = d->nkey, ni = nk + in->nidx;
    dfa_keys_t ks;
    by_keys(d, in, -1, &ks);
    int64_t *rows = malloc(sizeof(int64_t) * (size_t)(m + 1));
    frame_t all = {0};
    if (!rows || frame_alloc(&all, false, m, f->ncols, ni)) goto fail;
    for (int k = 0; k < f->ncols; k++)
        if (fcol_copy(&f->cols[k], &all.cols[k]) ||
            flabel_set(&all.names[k], f->names[k].s, f->names[k].is_int))
            goto fail;
    for (int q = 0; q < ni; q++) {
        const fcol_t *c = q < nk ? &in->cols[d->key[q]] : &in->idx[q - nk];
        const flabel_t *l = q < nk ? &in->names[d->key[q]] : &in->idx_names[q - nk];
        if (fcol_copy(c, &all.idx[q]) || flabel_set(&all.idx_names[q], l->s, l->is_int)) goto fail;
    }
    for (int64_t i = 0; i < m; i++)
        if (!dfa_keys_any_na(&ks, i)) rows[keep++] = i;
    if (keep == m) {
        *out = all;
        all = (frame_t){0};
    } else if (frame_take(&all, rows, keep, out)) {
        goto fail;
    }
    free(rows);
    frame_free(&all);
    return 0;
fail:
    free(rows);
    frame_free(&all);
    return -1;
}

/* rolling(center=True) over rows, pandas' values to the bit. pandas runs
 * its windows (rows r - window + 1 + h .. r + h, h = (window - 1) / 2, cut
 * at the group's ends) in order with its running sums; row r's window is
 * the uncentred window of row r + h, and pandas' state there is the
 * uncentred run's (the first window of a group, summed afresh, adds its
 * rows in the order the uncentred run adds them one by one). So the carry
 * is the uncentred one (tw_run's), and a chunk runs the uncentred windows
 * of its rows and of the h rows after it (after: the backward carry),
 * each giving the value of the row h before; at a group's end (or the
 * data's) the last h rows' windows follow, shrinking from the start as
 * pandas' do. */
static int rw_center(const df_node_t *d, const frame_t *carry, const frame_t *in,
                     const frame_t *after, frame_t *out, char *err, size_t errlen)
{
    int64_t h = d->roll_off, n = in->nrows, na = after ? after->nrows : 0;
    frame_t xa = {0};
    tw_t b = {0};
    double *x = NULL, *ys = NULL, *oy = NULL;
    int64_t *to = NULL;
    int rc = 0;
    if (na > 0 && concat2(in, after, &xa, err, errlen)) return -1;
    const frame_t *X = na > 0 ? &xa : in;
    b.sn = tw_sn(d);
    b.w = carry ? carry->nrows - b.sn : 0;
    b.m = b.w + n + na;
    if (carry && b.w) b.end0 = ((const int64_t *)carry->idx[0].data)[TM_END];
    /* at most every row's window and h more per group */
    int64_t cap = 2 * (n + na) + 2;
    b.st = malloc(sizeof(int64_t) * (size_t)cap);
    b.en = malloc(sizeof(int64_t) * (size_t)cap);
    to = malloc(sizeof(int64_t) * (size_t)cap);
    if (!b.st || !b.en || !to) goto oom_;
    bool data_end = na < h; /* the rows after end before h: the data ends */
    int64_t gs = 0, L = 0;
    for (int64_t j = b.w; j <= b.m; j++) {
        bool starts = j < b.m && d->nkey > 0 && by_starts(d, carry, X, b.w, j);
        bool ends =
            (j == b.m && data_end) || (starts && j > b.w) || (j == b.w && starts && b.w > 0);
        if (ends) { /* the last h rows of the group ending at j: shrinking windows */
            int64_t ge = j, i0 = ge - h > gs ? ge - h : gs;
            for (int64_t i = i0; i < ge; i++) {
                if (i < b.w) continue; /* before the chunk: not this chunk's rows */
                int64_t st = i + 1 + h - d->n;
                b.st[L] = st < gs ? gs : st;
                b.en[L] = ge;
                to[L++] = i - b.w < n ? i - b.w : -1;
            }
        }
        if (j == b.m) break;
        if (starts) gs = j;
        int64_t st = j + 1 - d->n, i = j - h;
        b.st[L] = st < gs ? gs : st;
        b.en[L] = j + 1;
        to[L++] = i >= gs && i >= b.w && i - b.w < n ? i - b.w : -1;
    }
    b.nw = L;
    if (frame_alloc(out, in->series, n, d->ncols, in->nidx) || labels(d, in, out, true) ||
        !(ys = malloc(sizeof(double) * (size_t)(L + 1))))
        goto oom_;
    out->range_index = in->range_index;
    if (tw_other(d, &b, carry, X, &oy)) goto oom_;
    for (int k = 0; k < d->ncols; k++) {
        double q[TS_N * TP_MAX] = {0};
        if (carry && b.w) memcpy(q, carry->cols[k].data, sizeof(double) * (size_t)b.sn);
        if (fcol_alloc(&out->cols[k], FT_FLOAT64, n, 0, false) ||
            tw_column(d, &b, carry, X, k, oy, q, ys, &x))
            goto oom_;
        for (int64_t r = 0; r < L; r++)
            if (to[r] >= 0) ((double *)out->cols[k].data)[to[r]] = ys[r];
        free(x);
        x = NULL;
    }
    rc = by_index(d, in, out); /* out freed when it fails */
    goto done;
oom_:
    frame_free(out);
    rc = -1;
done:
    free(x);
    free(b.st);
    free(b.en);
    free(to);
    free(ys);
    free(oy);
    frame_free(&xa);
    return rc ? oom(err, errlen) : 0;
}

/* ---------------------------------------------- a groupby's expanding and ewm */

/* Rows [a, b) of a column of numbers or bools, as a view (nothing copied) */
static fcol_t col_rows(const fcol_t *c, int64_t a, int64_t b)
{
    fcol_t v = *c;
    v.data = (char *)c->data + a * (c->type == FT_BOOL ? 1 : 8);
    if (c->valid) v.valid = c->valid + a;
    v.n = b - a;
    return v;
}

/* groupby(by).expanding() and .ewm(): the rows sorted by key, each group's
 * rows scanned afresh from its first row (pandas' GroupbyIndexer; its ewm
 * takes each group's bounds alone), the carry's state continued by the
 * chunk's first group when it is the carry's; into out by by_finish. */
static int by_scan_map(const df_node_t *d, op_t op, const frame_t *in, const frame_t *carry,
                       frame_t *out, char *err, size_t errlen)
{
    int64_t n = in->nrows;
    frame_t f = {0};
    fcol_t seg = {0};
    if (frame_alloc(&f, false, n, d->ncols, 1)) return oom(err, errlen);
    for (int k = 0; k < d->ncols; k++)
        if (flabel_set(&f.names[k], d->cols[k].name, d->cols[k].is_int) ||
            fcol_alloc(&f.cols[k], FT_FLOAT64, n, 0, false))
            goto fail;
    if (ewm_nat(d, op, in, err, errlen)) {
        frame_free(&f);
        return -1;
    }
    for (int64_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && same_group(d, in, a, b); b++)
            ;
        bool cont = a == 0 && by_continues(d, carry, in);
        /* ewm's times: the group's rows of them */
        const fcol_t *tc = ewm_tc(d, op, in);
        fcol_t tv = tc ? col_rows(tc, a, b) : (fcol_t){0};
        for (int k = 0; k < d->ncols; k++) {
            fcol_t v = col_rows(&in->cols[src_of(d, k)], a, b);
            if (scan_col(d, op, k, &v, d->cols[k].type, cont ? &carry->cols[k] : NULL,
                         tc ? &tv : NULL, false, &seg))
                goto fail;
            memcpy((double *)f.cols[k].data + a, seg.data, sizeof(double) * (size_t)(b - a));
            fcol_free(&seg);
        }
    }
    if (by_finish(d, in, &f, out)) goto fail;
    frame_free(&f);
    return 0;
fail:
    fcol_free(&seg);
    frame_free(&f);
    return oom(err, errlen);
}

/* The carry after chunk in (carry: the one before it, NULL for the first):
 * the state of its last group (the carry's own when in has no rows),
 * state_rows rows, then that group's key in the columns after d->ncols. */
static int by_scan_state(const df_node_t *d, op_t op, const frame_t *carry, const frame_t *in,
                         frame_t *out, char *err, size_t errlen)
{
    int64_t n = in->nrows, r = state_rows(d, op), a = n ? n - 1 : 0;
    if (n == 0 && carry && carry->nrows > 0)
        return frame_slice(carry, 0, carry->nrows, out) ? oom(err, errlen) : 0;
    while (a > 0 && same_group(d, in, a - 1, a))
        a--;
    bool cont = a == 0 && by_continues(d, carry, in);
    if (frame_alloc(out, false, r, d->ncols + d->nkey, 1) || labels(d, in, out, false) ||
        fcol_alloc(&out->idx[0], FT_INT64, r, 0, false))
        goto fail;
    for (int64_t q = 0; q < r; q++)
        ((int64_t *)out->idx[0].data)[q] = q;
    const fcol_t *tc = ewm_tc(d, op, in);
    fcol_t tv = tc ? col_rows(tc, a, n) : (fcol_t){0};
    if (ewm_nat(d, op, in, err, errlen)) {
        frame_free(out);
        return -1;
    }
    for (int k = 0; k < d->ncols; k++) {
        fcol_t v = col_rows(&in->cols[src_of(d, k)], a, n);
        if (scan_col(d, op, k, &v, d->cols[k].type, cont ? &carry->cols[k] : NULL, tc ? &tv : NULL,
                     true, &out->cols[k]))
            goto fail;
    }
    if (by_carry_keys(d, carry, in, r, out)) goto fail;
    return 0;
fail:
    frame_free(out);
    return oom(err, errlen);
}

int df_run_map(const df_node_t *d, op_t op, const frame_t *in, const frame_t *carry,
               const frame_t *after, frame_t *out, char *err, size_t errlen)
{
    if (scan(d, op) && d->nkey > 0) return by_scan_map(d, op, in, carry, out, err, errlen);
    if (df_run_state(d, op) && d->roll_off > 0)
        return rw_center(d, carry, in, after, out, err, errlen);
    if (df_run_state(d, op)) return tw_run(d, carry, in, out, false, err, errlen);
    if (frame_alloc(out, in->series, in->nrows, d->ncols, in->nidx) || labels(d, in, out, true))
        goto fail;
    out->range_index = in->range_index;
    if (scan(d, op)) {
        if (ewm_nat(d, op, in, err, errlen)) {
            frame_free(out);
            return -1;
        }
        for (int k = 0; k < d->ncols; k++) {
            const fcol_t *cc = carry ? &carry->cols[k] : NULL;
            if (scan_col(d, op, k, &in->cols[src_of(d, k)], d->cols[k].type, cc, ewm_tc(d, op, in),
                         false, &out->cols[k]))
                goto fail;
        }
        return 0;
    }
    frame_t all = {0};
    int64_t off = 0;
    bool fwd = df_run_forward(d, op);
    if (carry && carry->nrows > 0) {
        if (fwd ? concat2(carry, in, &all, err, errlen) : concat2(in, carry, &all, err, errlen)) {
            frame_free(out);
            return -1;
        }
        off = fwd ? carry->nrows : 0;
    }
    const frame_t *x = carry && carry->nrows > 0 ? &all : in;
    for (int k = 0; k < d->ncols; k++)
        if (window_col(d, op, &x->cols[k], d->cols[k].type, off, in->nrows, &out->cols[k])) {
            frame_free(&all);
            goto fail;
        }
    frame_free(&all);
    return 0;
fail:
    frame_free(out);
    return oom(err, errlen);
}

int df_run_edge(const df_node_t *d, op_t op, const frame_t *in, bool back, frame_t *out, char *err,
                size_t errlen)
{
    if (df_run_state(d, op) && !back) return tw_run(d, NULL, in, out, true, err, errlen);
    if (scan(d, op) && d->nkey > 0) return by_scan_state(d, op, NULL, in, out, err, errlen);
    if (scan(d, op)) {
        if (ewm_nat(d, op, in, err, errlen)) return -1;
        if (state_frame(d, op, in, out)) goto fail;
        for (int k = 0; k < d->ncols; k++)
            if (scan_col(d, op, k, &in->cols[src_of(d, k)], d->cols[k].type, NULL,
                         ewm_tc(d, op, in), true, &out->cols[k]))
                goto fail;
        return 0;
    }
    int64_t w = width(d, op), n = in->nrows < w ? in->nrows : w;
    bool fwd = df_run_forward(d, op) && !back;
    if (op == OP_DF_PCT_CHANGE) {
        /* the last rows as the whole chunk forward-filled has them */
        frame_t all = {0};
        if (rows_of(in, 0, in->nrows, &all)) return oom(err, errlen);
        ffill_frame(&all);
        int rc = rows_of(&all, all.nrows - n, n, out);
        frame_free(&all);
        return rc ? oom(err, errlen) : 0;
    }
    if (rows_of(in, fwd ? in->nrows - n : 0, n, out)) return oom(err, errlen);
    return 0;
fail:
    frame_free(out);
    return oom(err, errlen);
}

int df_run_combine(const df_node_t *d, op_t op, const frame_t *far, const frame_t *near, bool back,
                   frame_t *out, char *err, size_t errlen)
{
    if (df_run_state(d, op) && !back) return tw_run(d, far, near, out, true, err, errlen);
    if (scan(d, op) && d->nkey > 0) return by_scan_state(d, op, far, near, out, err, errlen);
    if (scan(d, op)) {
        if (ewm_nat(d, op, near, err, errlen)) return -1;
        if (state_frame(d, op, near, out)) goto fail;
        /* near is the next chunk itself: its values folded into the carry
         * one by one, as a sequential cumsum (or pandas' ewm) takes them */
        for (int k = 0; k < d->ncols; k++)
            if (scan_col(d, op, k, &near->cols[src_of(d, k)], d->cols[k].type, &far->cols[k],
                         ewm_tc(d, op, near), true, &out->cols[k]))
                goto fail;
        return 0;
    }
    bool fwd = df_run_forward(d, op) && !back;
    frame_t all = {0};
    if (fwd ? concat2(far, near, &all, err, errlen) : concat2(near, far, &all, err, errlen))
        return -1;
    if (op == OP_DF_PCT_CHANGE) ffill_frame(&all);
    int64_t w = width(d, op), n = all.nrows < w ? all.nrows : w;
    int rc = rows_of(&all, fwd ? all.nrows - n : 0, n, out) ? oom(err, errlen) : 0;
    frame_free(&all);
    return rc;
fail:
    frame_free(out);
    return oom(err, errlen);
}

/* ---------------------------------------------- skew's and kurt's moment pass */

int df_run_stat(const df_node_t *d, const frame_t *prev, const frame_t *in, frame_t *out, char *err,
                size_t errlen)
{
    /* per output column: the sum of its values (in row order, continuing
     * prev's, as pandas' sequential sum), their count and their minimum;
     * a groupby's rows with a missing key are in no window */
    if (frame_alloc(out, false, 3, d->ncols, 1) || labels(d, in, out, false) ||
        fcol_alloc(&out->idx[0], FT_INT64, 3, 0, false))
        goto fail;
    for (int64_t q = 0; q < 3; q++)
        ((int64_t *)out->idx[0].data)[q] = q;
    for (int k = 0; k < d->ncols; k++) {
        if (fcol_alloc(&out->cols[k], FT_FLOAT64, 3, 0, false)) goto fail;
        double *g = out->cols[k].data;
        if (prev)
            memcpy(g, prev->cols[k].data, 3 * sizeof(double));
        else
            g[0] = 0, g[1] = 0, g[2] = NAN;
        if (d->roll_time && src_of(d, k) == d->roll_on) continue; /* the times */
        const fcol_t *c = &in->cols[src_of(d, k)];
        for (int64_t i = 0; i < in->nrows; i++) {
            double v = wnum(c, i);
            if (v != v) continue;
            bool keyless = false;
            for (int u = 0; u < d->nkey && !keyless; u++)
                keyless = fcol_is_na(&in->cols[d->key[u]], i);
            if (keyless) continue;
            g[0] += v;
            g[1] += 1;
            if (!(v >= g[2])) g[2] = v;
        }
    }
    return 0;
fail:
    frame_free(out);
    return oom(err, errlen);
}
