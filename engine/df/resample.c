/* resample.c: the span, bin and fill steps of dataframe.resample
 * (resample.h), following pandas 1.5's _get_timestamp_range_edges: tick
 * rules bin on a lattice origin + offset + k * step (closed right: a time
 * on an edge belongs to the bin before it; for a rule of several days
 * pandas' _adjust_bin_edges moves the edges to the end of their day,
 * 1 day - 1 ns later); calendar rules bin by the
 * calendar day (pandas moves their edges to the end of the day), weeks
 * ending on the anchor's weekday, months, quarters and years, a bin of
 * several periods starting (MS, QS, AS) or ending (W, M, Q, A) at the
 * first time's period. */
#include "resample.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../errmsg.h"
#include "dates.h"

#define DAY DATE_NS_PER_DAY

static __int128 fdiv(__int128 a, __int128 b) /* b > 0 */
{
    __int128 q = a / b;
    return q * b > a ? q - 1 : q;
}

static __int128 cdiv(__int128 a, __int128 b) /* b > 0 */
{
    return -fdiv(-a, b);
}

/* ---- rules ---- */

static const char *const weekdays[7] = {"MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"};

/* A calendar alias (after the multiple): 0 and r set, or -1. */
static int calendar(const char *a, rs_spec_t *r)
{
    if (!strncmp(a, "W", 1) && (!a[1] || a[1] == '-')) {
        r->kind = RS_WEEK;
        r->anchor = 6;
        if (a[1]) {
            r->anchor = -1;
            for (int k = 0; k < 7; k++)
                if (!strcmp(a + 2, weekdays[k])) r->anchor = k;
            if (r->anchor < 0) return -1;
        }
        r->closed_right = r->label_right = true;
        return 0;
    }
    static const struct {
        const char *name;
        int months;
        bool end;
    } al[] = {{"M", 1, true},        {"MS", 1, false},     {"Q", 3, true},    {"Q-DEC", 3, true},
              {"QS", 3, false},      {"QS-JAN", 3, false}, {"A", 12, true},   {"Y", 12, true},
              {"A-DEC", 12, true},   {"Y-DEC", 12, true},  {"AS", 12, false}, {"YS", 12, false},
              {"AS-JAN", 12, false}, {"YS-JAN", 12, false}};
    for (size_t k = 0; k < sizeof al / sizeof *al; k++)
        if (!strcmp(a, al[k].name)) {
            r->kind = RS_MONTH;
            r->months = al[k].months;
            r->end_label = al[k].end;
            r->closed_right = r->label_right = al[k].end;
            return 0;
        }
    return -1;
}

int rs_parse_rule(const char *s, rs_spec_t *r, char *why, size_t len)
{
    size_t i = 0;
    int64_t m = 0;
    while (s[i] >= '0' && s[i] <= '9' && m < 100000000)
        m = m * 10 + (s[i++] - '0');
    if (calendar(s + i, r) == 0) {
        if (i > 0 && m == 0) {
            snprintf(why, len, "'%.40s' is a rule of zero periods", s);
            return -1;
        }
        if (m >= 100000000) {
            snprintf(why, len, "'%.40s' is a rule of too many periods", s);
            return -1;
        }
        r->mult = i > 0 ? m : 1;
        return 0;
    }
    if (date_parse_freq(s, &r->step, why, len)) return -1;
    r->kind = RS_TICK;
    /* pandas' Day(n), n >= 2 ("2D", not "48h"): _adjust_bin_edges */
    r->days = m >= 2 && !strcmp(s + i, "D");
    r->mult = 1;
    r->closed_right = r->label_right = false;
    return 0;
}

bool rs_needs_span(const rs_spec_t *r)
{
    if (r->kind != RS_TICK) return r->mult > 1;
    switch (r->origin) {
    case RS_O_START:
    case RS_O_END:
    case RS_O_END_DAY:
        return true;
    case RS_O_START_DAY:
        return DAY % r->step != 0;
    default:
        return false;
    }
}

/* ---- keys ---- */

static const fcol_t *times(const rs_spec_t *r, const frame_t *in, char *err, size_t errlen)
{
    const fcol_t *c = r->on >= 0 ? (r->on < in->ncols ? &in->cols[r->on] : NULL) : &in->idx[0];
    if (!c || c->type != FT_INT64) {
        errmsg(err, errlen, "internal: resample's times are not a datetime column");
        return NULL;
    }
    return c;
}

static int64_t month_of(int64_t days)
{
    int64_t y;
    int mo, d;
    date_civil_from_days(days, &y, &mo, &d);
    return y * 12 + mo - 1;
}

/* midnight of the first day of month index mi (last: of its last day),
 * -1 when outside datetime64[ns] */
static int month_ns(__int128 mi, bool last, int64_t *ns)
{
    __int128 m = mi + (last ? 1 : 0);
    if (m < -40000 * 12 || m > 40000 * 12) return -1;
    int64_t y = (int64_t)fdiv(m, 12);
    int mo = (int)(m - (__int128)y * 12) + 1;
    __int128 v = ((__int128)date_days_from_civil(y, mo, 1) - (last ? 1 : 0)) * DAY;
    if (v <= INT64_MIN || v > INT64_MAX) return -1;
    *ns = (int64_t)v;
    return 0;
}

/* The day (since the epoch) of the last day of time t's week, weeks ending
 * on weekday anchor (1970-01-01 was a Thursday, 3) */
static int64_t week_end(int64_t t, int anchor)
{
    int64_t days = (int64_t)fdiv(t, DAY);
    return days + (((anchor - (days + 3)) % 7 + 14) % 7);
}

/* The period (months periods of months since the epoch) time t is in */
static int64_t period_of(int64_t t, int months)
{
    return (int64_t)fdiv(month_of((int64_t)fdiv(t, DAY)), months);
}

/* The tick lattice's anchor: origin + offset */
static __int128 tick_anchor(const rs_spec_t *r, const int64_t *span)
{
    __int128 a = 0;
    switch (r->origin) {
    case RS_O_START_DAY:
        a = span ? fdiv(span[0], DAY) * DAY : 0;
        break;
    case RS_O_START:
        a = span[0];
        break;
    case RS_O_END:
        a = span[1];
        break;
    case RS_O_END_DAY:
        a = cdiv(span[1], DAY) * DAY;
        break;
    case RS_O_TIME:
        a = r->at;
        break;
    default:
        break;
    }
    return a + r->offset;
}

/* The key of time t (not NaT): 0, or -1 outside datetime64[ns]. span:
 * the whole input's first and last time, or NULL where none is needed. */
static int key_of(const rs_spec_t *r, int64_t t, const int64_t *span, __int128 anchor, int64_t *key)
{
    __int128 k;
    if (r->kind == RS_TICK) {
        /* closed right: (e, e + step], for a rule of days (e + 1 day -
         * 1 ns, e + step + 1 day - 1 ns] */
        __int128 back = r->closed_right ? (r->days ? DAY : 1) : 0;
        k = anchor + fdiv((__int128)t - anchor - back, r->step) * r->step;
    } else if (r->kind == RS_WEEK) {
        /* several weeks: bins ending at the first time's week */
        __int128 e = week_end(t, r->anchor);
        if (r->mult > 1) {
            int64_t e0 = week_end(span[0], r->anchor);
            e = e0 + cdiv(e - e0, 7 * (__int128)r->mult) * 7 * r->mult;
        }
        k = e * DAY;
    } else {
        /* several periods: bins starting (MS) or ending (M) at the first
         * time's period */
        int64_t g = period_of(t, r->months);
        __int128 b = g;
        if (r->mult > 1) {
            int64_t g0 = period_of(span[0], r->months);
            b = r->end_label ? g0 + cdiv((__int128)g - g0, r->mult) * r->mult
                             : g0 + fdiv((__int128)g - g0, r->mult) * r->mult;
        }
        int64_t ns;
        if (month_ns(r->end_label ? b * r->months + r->months - 1 : b * r->months, r->end_label,
                     &ns))
            return -1;
        k = ns;
    }
    if (k <= INT64_MIN || k > INT64_MAX) return -1;
    *key = (int64_t)k;
    return 0;
}

/* ---- span ---- */

int rs_span(const rs_spec_t *r, const frame_t *const *in, int n, bool partial, frame_t *out,
            char *err, size_t errlen)
{
    /* NaT is INT64_MIN, below every time: the last is a max as it is,
     * the first a min over the times that are not NaT */
    int64_t lo = INT64_MIN, hi = INT64_MIN;
    for (int q = 0; q < n; q++) {
        const int64_t *a, *b;
        int64_t m = 1;
        if (partial) {
            if (in[q]->ncols != 2 || in[q]->nrows != 1)
                return errmsg(err, errlen, "internal: a resample span of %d columns", in[q]->ncols);
            a = in[q]->cols[0].data;
            b = in[q]->cols[1].data;
        } else {
            const fcol_t *c = times(r, in[q], err, errlen);
            if (!c) return -1;
            a = b = c->data;
            m = in[q]->nrows;
        }
        for (int64_t i = 0; i < m; i++) {
            if (a[i] != INT64_MIN && (lo == INT64_MIN || a[i] < lo)) lo = a[i];
            if (b[i] > hi) hi = b[i];
        }
    }
    if (frame_alloc(out, false, 1, 2, 1) || fcol_alloc(&out->cols[0], FT_INT64, 1, 0, false) ||
        fcol_alloc(&out->cols[1], FT_INT64, 1, 0, false) ||
        fcol_alloc(&out->idx[0], FT_INT64, 1, 0, false)) {
        frame_free(out);
        return errmsg(err, errlen, "resample: out of memory");
    }
    ((int64_t *)out->cols[0].data)[0] = lo;
    ((int64_t *)out->cols[1].data)[0] = hi;
    ((int64_t *)out->idx[0].data)[0] = 0;
    return 0;
}

/* ---- bin ---- */

static int span_of(const frame_t *span, int64_t s[2], char *err, size_t errlen)
{
    if (!span || span->ncols != 2 || span->nrows != 1 || span->cols[0].type != FT_INT64)
        return errmsg(err, errlen, "internal: resample without its span");
    s[0] = ((const int64_t *)span->cols[0].data)[0];
    s[1] = ((const int64_t *)span->cols[1].data)[0];
    return 0;
}

int rs_bin(const rs_spec_t *r, const frame_t *in, const frame_t *span, const int *use, int nuse,
           bool with_times, frame_t *out, char *err, size_t errlen)
{
    int64_t s[2] = {INT64_MIN, INT64_MIN};
    const int64_t *sp = NULL;
    if (rs_needs_span(r)) {
        if (span_of(span, s, err, errlen)) return -1;
        sp = s;
    }
    const fcol_t *c = times(r, in, err, errlen);
    if (!c) return -1;
    int64_t n = in->nrows;
    if (frame_alloc(out, false, n, 1 + nuse + with_times, in->nidx) ||
        fcol_alloc(&out->cols[0], FT_INT64, n, 0, false))
        goto nomem;
    out->range_index = in->range_index;
    out->cols[0].unit = FU_NS;
    const flabel_t *tl = r->on >= 0 ? &in->names[r->on] : &in->idx_names[0];
    if (flabel_set(&out->names[0], tl->s, tl->is_int)) goto nomem;
    int64_t *k = out->cols[0].data;
    const int64_t *t = c->data;
    /* with no time present (sp's NaT) no key is computed */
    __int128 anchor = r->kind == RS_TICK && (!sp || s[0] != INT64_MIN) ? tick_anchor(r, sp) : 0;
    for (int64_t i = 0; i < n; i++) {
        if (t[i] == INT64_MIN) {
            k[i] = INT64_MIN;
            continue;
        }
        if (key_of(r, t[i], sp, anchor, &k[i])) {
            char b[48];
            date_format(t[i], FU_NS, ' ', -2, b, sizeof b);
            errmsg(err, errlen, "resample: the bin of %s is outside datetime64[ns]'s range", b);
            frame_free(out);
            return -1;
        }
    }
    for (int q = 0; q < nuse; q++)
        if (fcol_copy(&in->cols[use[q]], &out->cols[1 + q]) ||
            flabel_set(&out->names[1 + q], in->names[use[q]].s, in->names[use[q]].is_int))
            goto nomem;
    if (with_times && (fcol_copy(c, &out->cols[1 + nuse]) ||
                       flabel_set(&out->names[1 + nuse], tl->s, tl->is_int)))
        goto nomem;
    for (int q = 0; q < in->nidx; q++)
        if (fcol_copy(&in->idx[q], &out->idx[q]) ||
            flabel_set(&out->idx_names[q], in->idx_names[q].s, in->idx_names[q].is_int))
            goto nomem;
    return 0;
nomem:
    frame_free(out);
    return errmsg(err, errlen, "resample: out of memory");
}

/* ---- fill ---- */

/* The bin after key (its label) */
static int next_key(const rs_spec_t *r, int64_t key, int64_t *next)
{
    __int128 v;
    if (r->kind == RS_TICK) {
        v = (__int128)key + r->step;
    } else if (r->kind == RS_WEEK) {
        v = (__int128)key + (__int128)7 * r->mult * DAY;
    } else {
        int64_t ns;
        __int128 mi = month_of((int64_t)fdiv(key, DAY)) + (__int128)r->months * r->mult;
        if (month_ns(mi, r->end_label, &ns)) return -1;
        v = ns;
    }
    if (v > INT64_MAX) return -1;
    *next = (int64_t)v;
    return 0;
}

/* Bins from key a to key b (a <= b, both keys), or -1 past lim */
static int64_t bins_between(const rs_spec_t *r, int64_t a, int64_t b, int64_t lim)
{
    __int128 n;
    if (r->kind == RS_TICK)
        n = ((__int128)b - a) / r->step + 1;
    else if (r->kind == RS_WEEK)
        n = ((__int128)b - a) / ((__int128)7 * r->mult * DAY) + 1;
    else
        n = ((__int128)month_of((int64_t)fdiv(b, DAY)) - month_of((int64_t)fdiv(a, DAY))) /
                ((__int128)r->months * r->mult) +
            1;
    return n > lim ? -1 : (int64_t)n;
}

/* an empty bin's value: 0, 1 (the value itself), or missing */
enum { FILL_ZERO = 0, FILL_ONE = 1, FILL_NA };

static int fill_kind(agg_func_t f)
{
    switch (f) {
    case AGG_COUNT:
    case AGG_SIZE:
    case AGG_NUNIQUE:
    case AGG_SUM:
        return FILL_ZERO;
    case AGG_PROD:
        return FILL_ONE;
    default:
        return FILL_NA;
    }
}

/* Column c's rows src[0..nb) (-1: an empty bin, filled as fk says); a
 * bool column as float64 when bool_float (resample's picks), else with
 * its missing values (object) */
static int fill_col(const fcol_t *c, int fk, const int64_t *src, int64_t nb, bool empty,
                    bool bool_float, fcol_t *o)
{
    int t = c->type;
    if (fk == FILL_NA &&
        ((empty && t == FT_INT64 && c->unit == FU_NONE) || (t == FT_BOOL && bool_float))) {
        /* pandas: an int or bool column with a missing value is float64;
         * a bool one always here (its schema says float64: graph_df.c) */
        if (fcol_alloc(o, FT_FLOAT64, nb, 0, false)) return -1;
        double *d = o->data;
        for (int64_t i = 0; i < nb; i++) {
            int64_t s = src[i];
            d[i] = s < 0 || fcol_is_na(c, s) ? NAN
                   : t == FT_BOOL            ? (double)((const uint8_t *)c->data)[s]
                                             : (double)((const int64_t *)c->data)[s];
        }
        return 0;
    }
    if (t == FT_STRING) {
        int64_t bytes = 1;
        for (int64_t i = 0; i < nb; i++)
            if (src[i] >= 0) bytes += c->offsets[src[i] + 1] - c->offsets[src[i]];
        if (fcol_alloc(o, FT_STRING, nb, bytes, c->valid != NULL || empty)) return -1;
        int64_t at = 0;
        for (int64_t i = 0; i < nb; i++) {
            int64_t s = src[i], l = 0;
            if (s >= 0) {
                const char *p = fcol_str(c, s, &l);
                memcpy(o->bytes + at, p, (size_t)l);
            }
            if (o->valid) o->valid[i] = s >= 0 && (!c->valid || c->valid[s]);
            at += l;
            o->offsets[i + 1] = at;
        }
        o->bytes[at] = 0;
        return 0;
    }
    if (fcol_alloc(o, (ftype_t)t, nb, 0, c->valid != NULL || (empty && t == FT_BOOL))) return -1;
    o->unit = c->unit;
    for (int64_t i = 0; i < nb; i++) {
        int64_t s = src[i];
        if (o->valid) o->valid[i] = s >= 0 && (!c->valid || c->valid[s]);
        if (t == FT_FLOAT64)
            ((double *)o->data)[i] = s >= 0          ? ((const double *)c->data)[s]
                                     : fk == FILL_NA ? NAN
                                                     : (double)fk;
        else if (t == FT_INT64)
            ((int64_t *)o->data)[i] = s >= 0          ? ((const int64_t *)c->data)[s]
                                      : fk == FILL_NA ? INT64_MIN
                                                      : (int64_t)fk;
        else
            ((uint8_t *)o->data)[i] = s >= 0 ? ((const uint8_t *)c->data)[s] : fk == FILL_ONE;
    }
    return 0;
}

int rs_fill(const rs_spec_t *r, const agg_spec_t *aggs, int nagg, const frame_t *in,
            int64_t max_bytes, frame_t *out, char *err, size_t errlen)
{
    if (in->nidx != 1 || in->idx[0].type != FT_INT64 || in->ncols != nagg)
        return errmsg(err, errlen, "internal: resample's groups are not keyed by time");
    const int64_t *key = in->idx[0].data;
    int64_t n = in->nrows, nb = 0;
    int64_t row = 8 * (1 + (int64_t)in->ncols);
    if (n > 0) {
        nb = bins_between(r, key[0], key[n - 1], max_bytes / row);
        if (nb < 0)
            return errmsg(err, errlen,
                          "resample: the bins from the first time to the last are more than "
                          "the limit of %lld bytes (2 GiB) holds, at %lld bytes a bin",
                          (long long)max_bytes, (long long)row);
    }
    int64_t *bk = malloc(sizeof(int64_t) * (size_t)(nb + 1) * 2);
    if (!bk) return errmsg(err, errlen, "resample: out of memory");
    int64_t *src = bk + nb + 1;
    bool empty = false;
    int64_t j = 0;
    for (int64_t i = 0; i < nb; i++) {
        if (i > 0 && next_key(r, bk[i - 1], &bk[i])) {
            free(bk);
            return errmsg(err, errlen, "resample: a bin outside datetime64[ns]'s range");
        }
        if (i == 0) bk[0] = key[0];
        if (j < n && key[j] == bk[i]) {
            src[i] = j++;
        } else {
            src[i] = -1;
            empty = true;
        }
    }
    if (j != n) {
        free(bk);
        return errmsg(err, errlen, "internal: resample's groups are not on its bins");
    }
    if (frame_alloc(out, in->series, nb, in->ncols, 1) ||
        fcol_alloc(&out->idx[0], FT_INT64, nb, 0, false) ||
        flabel_set(&out->idx_names[0], in->idx_names[0].s, in->idx_names[0].is_int))
        goto nomem;
    out->idx[0].unit = FU_NS;
    for (int64_t i = 0; i < nb; i++) {
        int64_t v = bk[i];
        if (r->kind == RS_TICK && r->label_right && next_key(r, bk[i], &v)) {
            frame_free(out);
            free(bk);
            return errmsg(err, errlen, "resample: a label outside datetime64[ns]'s range");
        }
        ((int64_t *)out->idx[0].data)[i] = v;
    }
    for (int k = 0; k < in->ncols; k++)
        if (fill_col(&in->cols[k], fill_kind(aggs[k].func), src, nb, empty, true, &out->cols[k]) ||
            flabel_set(&out->names[k], in->names[k].s, in->names[k].is_int))
            goto nomem;
    free(bk);
    return 0;
nomem:
    free(bk);
    frame_free(out);
    return errmsg(err, errlen, "resample: out of memory");
}

/* ---- upsampling ---- */

/* a row's time and position, sorted by time (then position) */
typedef struct {
    int64_t t, p;
} up_row_t;

static int up_cmp(const void *a, const void *b)
{
    const up_row_t *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return (x->p > y->p) - (x->p < y->p);
}

/* numpy's interp (pandas' linear interpolate over positions) of column o
 * in place: the values between two present ones on the line through them,
 * those after the last present one that value, those before the first
 * left missing */
static void up_interp(fcol_t *o)
{
    double *y = o->data;
    int64_t n = o->n, a = -1;
    for (int64_t i = 0; i < n; i++) {
        if (y[i] != y[i]) continue;
        if (a >= 0 && i > a + 1) {
            double xa = (double)a, xb = (double)i, slope = (y[i] - y[a]) / (xb - xa);
            for (int64_t k = a + 1; k < i; k++) {
                double v = slope * ((double)k - xa) + y[a];
                if (v != v) v = slope * ((double)k - xb) + y[i];
                if (v != v && y[a] == y[i]) v = y[a];
                y[k] = v;
            }
        }
        a = i;
    }
    for (int64_t k = a + 1; a >= 0 && k < n; k++)
        y[k] = y[a];
}

int rs_upsample(const rs_spec_t *r, const frame_t *in, int64_t max_bytes, frame_t *out, char *err,
                size_t errlen)
{
    const fcol_t *c = times(r, in, err, errlen);
    if (!c) return -1;
    const int64_t *t = c->data;
    int64_t n = in->nrows, nb = 0;
    up_row_t *ord = malloc(sizeof(up_row_t) * (size_t)(n + 1));
    int64_t *bk = NULL, *src = NULL;
    if (!ord) return errmsg(err, errlen, "resample: out of memory");
    for (int64_t i = 0; i < n; i++) {
        if (t[i] == INT64_MIN) {
            free(ord);
            return errmsg(err, errlen,
                          "resample: upsampling an index with NaT is not supported (pandas "
                          "1.5 gives NaT a label of its own or fails)");
        }
        ord[i] = (up_row_t){t[i], i};
    }
    qsort(ord, (size_t)n, sizeof *ord, up_cmp);
    for (int64_t i = 1; i < n; i++)
        if (ord[i].t == ord[i - 1].t) {
            free(ord);
            return errmsg(err, errlen, "%s",
                          r->up == RS_UP_ASFREQ || r->up == RS_UP_INTERP
                              ? "cannot reindex on an axis with duplicate labels"
                              : "cannot reindex a non-unique index with a method or limit");
        }
    int64_t row = 8 * (1 + (int64_t)in->ncols);
    int64_t k0 = 0, k1 = 0;
    if (n > 0) {
        int64_t span[2] = {ord[0].t, ord[n - 1].t};
        const int64_t *sp = rs_needs_span(r) ? span : NULL;
        __int128 anchor = r->kind == RS_TICK ? tick_anchor(r, sp) : 0;
        if (key_of(r, span[0], sp, anchor, &k0) || key_of(r, span[1], sp, anchor, &k1)) {
            free(ord);
            return errmsg(err, errlen, "resample: a bin outside datetime64[ns]'s range");
        }
        nb = bins_between(r, k0, k1, max_bytes / row);
        if (nb < 0) {
            free(ord);
            return errmsg(err, errlen,
                          "resample: the labels from the first time to the last are more than "
                          "the limit of %lld bytes (2 GiB) holds, at %lld bytes a label",
                          (long long)max_bytes, (long long)row);
        }
    }
    bk = malloc(sizeof(int64_t) * (size_t)(nb + 1));
    src = malloc(sizeof(int64_t) * (size_t)(nb + 1));
    if (!bk || !src) goto nomem;
    bool empty = false;
    int64_t j = 0, key = k0; /* j: the first row after the label */
    for (int64_t i = 0; i < nb; i++) {
        if (i > 0 && next_key(r, key, &key)) goto range;
        int64_t lab = key;
        if (r->kind == RS_TICK && r->label_right && next_key(r, key, &lab)) goto range;
        bk[i] = lab;
        while (j < n && ord[j].t <= lab)
            j++;
        /* rows j - 1 (at or before the label) and j (after it) */
        const up_row_t *le = j > 0 ? &ord[j - 1] : NULL, *ri = j < n ? &ord[j] : NULL;
        bool at = le && le->t == lab;
        const up_row_t *pick = NULL;
        switch (r->up) {
        case RS_UP_FFILL:
            pick = le;
            break;
        case RS_UP_BFILL:
            pick = at ? le : ri;
            break;
        case RS_UP_NEAREST:
            /* pandas: the earlier row only when strictly nearer */
            pick = at || !ri || (le && (__int128)lab - le->t < (__int128)ri->t - lab) ? le : ri;
            break;
        default:
            pick = at ? le : NULL;
        }
        int64_t s = pick ? pick->p : -1;
        src[i] = s;
        empty |= s < 0;
    }
    if (frame_alloc(out, in->series, nb, in->ncols, 1) ||
        fcol_alloc(&out->idx[0], FT_INT64, nb, 0, false) ||
        flabel_set(&out->idx_names[0], in->idx_names[0].s, in->idx_names[0].is_int))
        goto nomem;
    out->idx[0].unit = c->unit;
    if (nb) memcpy(out->idx[0].data, bk, sizeof(int64_t) * (size_t)nb);
    for (int k = 0; k < in->ncols; k++) {
        if (fill_col(&in->cols[k], FILL_NA, src, nb, empty, false, &out->cols[k]) ||
            flabel_set(&out->names[k], in->names[k].s, in->names[k].is_int))
            goto nomem;
        if (r->up == RS_UP_INTERP && out->cols[k].type == FT_FLOAT64) up_interp(&out->cols[k]);
    }
    free(ord);
    free(bk);
    free(src);
    return 0;
range:
    free(ord);
    free(bk);
    free(src);
    return errmsg(err, errlen, "resample: a label outside datetime64[ns]'s range");
nomem:
    free(ord);
    free(bk);
    free(src);
    frame_free(out);
    return errmsg(err, errlen, "resample: out of memory");
}
