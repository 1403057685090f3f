/* groupby.c: groupby_agg as map / combine / final (algo.h), pandas 1.5's
 * df.groupby(by).agg(out=(col, func)) with sort=True, dropna=True.
 *
 * Map groups the chunk's rows by hashing (dfa_group: first-seen group
 * order), so only the groups, never the rows, are sorted (in final).
 *
 * A partial is a frame: one row per group, the key values as index levels
 * (named after the by columns), then per agg its state columns:
 *   sum      sum (int64 for int64/bool input, float64 else), compensation
 *            (float64; pandas' Kahan summation in group_add)
 *   mean     Kahan sum, compensation (float64), count (int64)
 *   min max  the value (input type; missing when the group has none)
 *   first last  the first / last non-missing value in row order
 *   count size  int64
 *   std var  count (int64), mean, M2 (float64; Welford within a chunk, Chan's
 *            parallel formula across partials)
 *   nunique  the group's distinct values, a dfa_set encoding (string); the
 *            column label ends in the value type's digit
 * Combining is the same grouping over the partials' index levels, states
 * merged in partial order (first and last depend on it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo_util.h"

static int nstate(agg_func_t f)
{
    switch (f) {
    case AGG_SUM: /* sum, compensation, count (a partial of no value adds nothing) */
    case AGG_MEAN:
    case AGG_STD:
    case AGG_VAR:
        return 3;
    default:
        return 1;
    }
}

static const char *func_name(agg_func_t f)
{
    static const char *const names[] = {"sum", "mean", "min",     "max",   "count", "size",
                                        "std", "var",  "nunique", "first", "last"};
    return (unsigned)f < sizeof names / sizeof names[0] ? names[f] : "?";
}

static int check_spec(const frame_t *in, const gb_spec_t *s, char *err, size_t errlen)
{
    if (s->nby < 1 || s->nby > DF_MAX_KEYS || s->nagg < 0 || (s->nagg && !s->agg))
        return errmsg(err, errlen, "groupby_agg: %d keys, %d aggregations", s->nby, s->nagg);
    for (int k = 0; k < s->nby; k++)
        if (s->by[k] < 0 || s->by[k] >= in->ncols)
            return errmsg(err, errlen, "groupby_agg: key column %d of %d", s->by[k], in->ncols);
    for (int a = 0; a < s->nagg; a++) {
        const agg_spec_t *g = &s->agg[a];
        if ((unsigned)g->func > AGG_LAST)
            return errmsg(err, errlen, "groupby_agg: aggregation %d unknown", (int)g->func);
        if (g->func == AGG_SIZE) continue;
        if (g->col < 0 || g->col >= in->ncols)
            return errmsg(err, errlen, "groupby_agg: column %d of %d for '%s'", g->col, in->ncols,
                          g->out ? g->out : "");
        bool numeric_only =
            g->func == AGG_SUM || g->func == AGG_MEAN || g->func == AGG_STD || g->func == AGG_VAR;
        if (numeric_only && in->cols[g->col].type == FT_STRING)
            return errmsg(err, errlen, "groupby_agg: %s of string column '%s' is not supported",
                          func_name(g->func), in->names[g->col].s ? in->names[g->col].s : "");
    }
    return 0;
}

static int state_label(flabel_t *l, const agg_spec_t *g, int j, int vtype)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.40s.%s%d.%d", g->out ? g->out : "", func_name(g->func), j, vtype);
    return flabel_set(l, buf, false);
}

/* The type digit a nunique state column's label ends with. */
static ftype_t label_type(const flabel_t *l)
{
    size_t n = l->s ? strlen(l->s) : 0;
    return n ? (ftype_t)(l->s[n - 1] - '0') : FT_INT64;
}

/* ---- state builders shared by map and combine ----
 * gid[i] is the group of row i of the column (-1: not counted). */

/* The first (first=true) or last row with a present value per group; for
 * min/max the row of the smallest/largest present value (first of ties). */
static int pick_rows(const fcol_t *c, const int64_t *gid, int64_t ng, agg_func_t f, int64_t *best)
{
    int64_t n = c->n;
    for (int64_t g = 0; g < ng; g++)
        best[g] = -1;
    switch (f) {
    case AGG_FIRST:
        for (int64_t i = 0; i < n; i++)
            if (gid[i] >= 0 && best[gid[i]] < 0 && !fcol_is_na(c, i)) best[gid[i]] = i;
        return 0;
    case AGG_LAST:
        for (int64_t i = 0; i < n; i++)
            if (gid[i] >= 0 && !fcol_is_na(c, i)) best[gid[i]] = i;
        return 0;
    default:
        break;
    }
    int sign = f == AGG_MIN ? 1 : -1;
    if (c->type == FT_INT64 || c->type == FT_FLOAT64) {
        /* the best value kept beside its row: no load from the column at a
         * random row per comparison */
        void *bv = dfa_alloc(ng, 8);
        if (!bv) return -1;
        if (c->type == FT_INT64) {
            const int64_t *d = c->data;
            int64_t *b = bv;
            bool nat = c->unit != FU_NONE; /* datetimes: NaT skipped */
            for (int64_t i = 0; i < n; i++) {
                int64_t g = gid[i];
                if (g >= 0 && !(nat && d[i] == INT64_MIN) &&
                    (best[g] < 0 || (sign > 0 ? d[i] < b[g] : d[i] > b[g]))) {
                    best[g] = i;
                    b[g] = d[i];
                }
            }
        } else {
            const double *d = c->data;
            double *b = bv;
            for (int64_t i = 0; i < n; i++) {
                int64_t g = gid[i];
                if (g >= 0 && d[i] == d[i] &&
                    (best[g] < 0 || (sign > 0 ? d[i] < b[g] : d[i] > b[g]))) {
                    best[g] = i;
                    b[g] = d[i];
                }
            }
        }
        free(bv);
    } else {
        for (int64_t i = 0; i < n; i++) {
            int64_t g = gid[i];
            if (g >= 0 && !fcol_is_na(c, i) &&
                (best[g] < 0 || sign * dfa_cell_cmp_present(c, i, c, best[g]) < 0))
                best[g] = i;
        }
    }
    return 0;
}

static int value_state(const fcol_t *c, const int64_t *gid, int64_t ng, agg_func_t f, fcol_t *out)
{
    int64_t *best = dfa_alloc(ng, sizeof *best);
    if (!best) return -1;
    int rc = pick_rows(c, gid, ng, f, best);
    if (rc == 0) rc = dfa_take_col(c, best, ng, false, out);
    if (rc == 0 && c->type == FT_INT64 && out->type != FT_INT64) {
        /* an int64 group always has a value; keep the type (cannot happen
         * unless a partial lacks the group, which grouping rules out) */
        fcol_free(out);
        rc = -1;
    }
    free(best);
    return rc;
}

static int i64_col(fcol_t *c, int64_t n)
{
    if (fcol_alloc(c, FT_INT64, n, 0, false)) return -1;
    memset(c->data, 0, (size_t)n * 8);
    return 0;
}

/* st: ng int64 zeros plus the partial counts in[0..n) added per group. */
static int sum_counts(fcol_t *st, int64_t ng, const fcol_t *in, const int64_t *gid, int64_t n)
{
    if (i64_col(st, ng)) return -1;
    int64_t *s = st->data;
    const int64_t *d = in->data;
    for (int64_t i = 0; i < n; i++)
        s[gid[i]] += d[i];
    return 0;
}

static int f64_col(fcol_t *c, int64_t n, double v)
{
    if (fcol_alloc(c, FT_FLOAT64, n, 0, false)) return -1;
    double *d = c->data;
    for (int64_t i = 0; i < n; i++)
        d[i] = v;
    return 0;
}

/* ---- map ---- */

static int map_agg(const fcol_t *c, const int64_t *gid, int64_t n, int64_t ng, const agg_spec_t *g,
                   fcol_t *st)
{
    switch (g->func) {
    case AGG_MEDIAN:
    case AGG_PROD:
    case AGG_IDXMIN:
    case AGG_IDXMAX:
        return -1; /* the one-job groupby's (gball.c); refused by the spec check */
    case AGG_SUM:
    case AGG_MEAN: {
        bool isint = g->func == AGG_SUM && c->type != FT_FLOAT64;
        if (isint) {
            /* the count of values: a partial combined with float64 ones
             * (a column typed chunk by chunk) is skipped when it has none */
            if (i64_col(&st[0], ng) || f64_col(&st[1], ng, 0) || i64_col(&st[2], ng)) return -1;
            uint64_t *s = st[0].data; /* wraps like numpy's int64 */
            int64_t *cnt = st[2].data;
            if (c->type == FT_INT64) {
                const int64_t *d = c->data;
                bool nat = c->unit != FU_NONE; /* timedeltas: NaT skipped */
                for (int64_t i = 0; i < n; i++)
                    if (gid[i] >= 0 && !(nat && d[i] == INT64_MIN)) {
                        s[gid[i]] += (uint64_t)d[i];
                        cnt[gid[i]]++;
                    }
            } else {
                const uint8_t *d = c->data;
                for (int64_t i = 0; i < n; i++)
                    if (gid[i] >= 0 && (!c->valid || c->valid[i])) {
                        s[gid[i]] += d[i];
                        cnt[gid[i]]++;
                    }
            }
            return 0;
        }
        if (f64_col(&st[0], ng, 0) || f64_col(&st[1], ng, 0) || i64_col(&st[2], ng)) return -1;
        int64_t *cnt = st[2].data;
        double *s = st[0].data, *comp = st[1].data;
        for (int64_t i = 0; i < n; i++) {
            int64_t k = gid[i];
            if (k < 0 || fcol_is_na(c, i)) continue;
            /* pandas' group_add / group_mean: Kahan summation */
            double y = dfa_num(c, i) - comp[k];
            double t = s[k] + y;
            comp[k] = t - s[k] - y;
            s[k] = t;
            cnt[k]++;
        }
        return 0;
    }
    case AGG_MIN:
    case AGG_MAX:
    case AGG_FIRST:
    case AGG_LAST:
        return value_state(c, gid, ng, g->func, &st[0]);
    case AGG_COUNT:
    case AGG_SIZE: {
        if (i64_col(&st[0], ng)) return -1;
        int64_t *s = st[0].data;
        for (int64_t i = 0; i < n; i++)
            if (gid[i] >= 0 && (g->func == AGG_SIZE || !fcol_is_na(c, i))) s[gid[i]]++;
        return 0;
    }
    case AGG_STD:
    case AGG_VAR: {
        if (i64_col(&st[0], ng) || f64_col(&st[1], ng, 0) || f64_col(&st[2], ng, 0)) return -1;
        int64_t *cnt = st[0].data;
        double *mean = st[1].data, *m2 = st[2].data;
        for (int64_t i = 0; i < n; i++) {
            int64_t k = gid[i];
            if (k < 0 || fcol_is_na(c, i)) continue;
            /* Welford, as pandas' group_var */
            double v = dfa_num(c, i), old = mean[k];
            cnt[k]++;
            mean[k] += (v - old) / (double)cnt[k];
            m2[k] += (v - mean[k]) * (v - old);
        }
        return 0;
    }
    case AGG_NUNIQUE:
        return dfa_set_build(c, gid, ng, &st[0]);
    }
    return -1;
}

/* Groups rows of keys ks (skip: rows left out), writes the partial's index
 * levels (names from idx_names) into out (allocated here with nstate
 * columns). gid and the table are the caller's to free. */
static int start_partial(const dfa_keys_t *ks, int64_t n, const uint8_t *skip,
                         const flabel_t *const *knames, int ncols, int64_t *gid, dfa_htab_t *t,
                         frame_t *out)
{
    if (dfa_group(ks, n, skip, gid, t)) return -1;
    if (frame_alloc(out, false, t->ngroups, ncols, ks->nk)) return -1;
    for (int k = 0; k < ks->nk; k++)
        if (dfa_take_col(ks->k[k], t->grep, t->ngroups, false, &out->idx[k]) ||
            flabel_set(&out->idx_names[k], knames[k]->s, knames[k]->is_int))
            return -1;
    return 0;
}

static int total_states(const gb_spec_t *s)
{
    int n = 0;
    for (int a = 0; a < s->nagg; a++)
        n += nstate(s->agg[a].func);
    return n;
}

int df_gb_map(const frame_t *in, const gb_spec_t *s, frame_t *out, char *err, size_t errlen)
{
    if (check_spec(in, s, err, errlen)) return -1;
    int64_t n = in->nrows;
    dfa_keys_t ks = {.nk = s->nby};
    const flabel_t *kn[DF_MAX_KEYS];
    bool can_miss = false;
    for (int k = 0; k < s->nby; k++) {
        ks.k[k] = &in->cols[s->by[k]];
        kn[k] = &in->names[s->by[k]];
        can_miss |= ks.k[k]->type == FT_FLOAT64 || ks.k[k]->valid || ks.k[k]->unit;
    }
    uint8_t *skip = NULL;
    int64_t *gid = dfa_alloc(n, sizeof *gid);
    dfa_htab_t t = {0};
    memset(out, 0, sizeof *out);
    if (!gid) goto nomem;
    if (can_miss) { /* dropna=True: rows with a missing key belong to no group */
        if (!(skip = dfa_alloc(n, 1))) goto nomem;
        for (int64_t i = 0; i < n; i++) {
            skip[i] = 0;
            for (int k = 0; k < s->nby && !skip[i]; k++)
                skip[i] = fcol_is_na(ks.k[k], i);
        }
    }
    if (start_partial(&ks, n, skip, kn, total_states(s), gid, &t, out)) goto nomem;
    int at = 0;
    for (int a = 0; a < s->nagg; a++) {
        const agg_spec_t *g = &s->agg[a];
        const fcol_t *c = g->func == AGG_SIZE ? ks.k[0] : &in->cols[g->col];
        if (map_agg(c, gid, n, t.ngroups, g, &out->cols[at])) goto nomem;
        for (int j = 0; j < nstate(g->func); j++)
            if (state_label(&out->names[at + j], g, j, c->type)) goto nomem;
        at += nstate(g->func);
    }
    free(skip);
    free(gid);
    dfa_htab_free(&t);
    return 0;
nomem:
    frame_free(out);
    free(skip);
    free(gid);
    dfa_htab_free(&t);
    return errmsg(err, errlen, "groupby_agg: out of memory grouping %lld rows", (long long)n);
}

/* ---- combine ---- */

static int combine_agg(const frame_t *all, int at, const int64_t *gid, int64_t ng,
                       const agg_spec_t *g, fcol_t *st)
{
    int64_t n = all->nrows;
    const fcol_t *in = &all->cols[at];
    switch (g->func) {
    case AGG_MEDIAN:
    case AGG_PROD:
    case AGG_IDXMIN:
    case AGG_IDXMAX:
        return -1; /* the one-job groupby's (gball.c); refused by the spec check */
    case AGG_SUM:
    case AGG_MEAN: {
        if (in[0].type == FT_INT64) {
            if (i64_col(&st[0], ng) || f64_col(&st[1], ng, 0)) return -1;
            uint64_t *s = st[0].data;
            const int64_t *d = in[0].data;
            for (int64_t i = 0; i < n; i++)
                s[gid[i]] += (uint64_t)d[i];
            return sum_counts(&st[2], ng, &in[2], gid, n);
        }
        if (f64_col(&st[0], ng, 0) || f64_col(&st[1], ng, 0)) return -1;
        double *s = st[0].data, *comp = st[1].data;
        const double *ds = in[0].data, *dc = in[1].data;
        const int64_t *dn = in[2].data;
        for (int64_t i = 0; i < n; i++) {
            int64_t k = gid[i];
            if (dn[i] == 0) continue; /* no value: pandas' pass skips its NaN */
            if (dc[i] != dc[i]) {
                /* the partial met an infinity: pandas' one pass (group_add)
                 * ends at it when it was the group's last value (its
                 * compensation NaN from there, so any value after, in this
                 * partial or a later one, makes the sum NaN) */
                s[k] = comp[k] != comp[k] ? NAN : s[k] + ds[i];
                comp[k] = NAN;
                continue;
            }
            /* adds the partial's compensated sum ds - dc */
            double y = (ds[i] - dc[i]) - comp[k];
            double t = s[k] + y;
            comp[k] = t - s[k] - y;
            s[k] = t;
        }
        return sum_counts(&st[2], ng, &in[2], gid, n);
    }
    case AGG_MIN:
    case AGG_MAX:
    case AGG_FIRST:
    case AGG_LAST:
        return value_state(&in[0], gid, ng, g->func, &st[0]);
    case AGG_COUNT:
    case AGG_SIZE:
        return sum_counts(&st[0], ng, &in[0], gid, n);
    case AGG_STD:
    case AGG_VAR: {
        if (i64_col(&st[0], ng) || f64_col(&st[1], ng, 0) || f64_col(&st[2], ng, 0)) return -1;
        int64_t *cnt = st[0].data;
        double *mean = st[1].data, *m2 = st[2].data;
        const int64_t *dn = in[0].data;
        const double *dm = in[1].data, *d2 = in[2].data;
        for (int64_t i = 0; i < n; i++) {
            int64_t k = gid[i], nb = dn[i];
            if (nb == 0) continue;
            if (cnt[k] == 0) {
                cnt[k] = nb;
                mean[k] = dm[i];
                m2[k] = d2[i];
                continue;
            }
            /* Chan et al.'s parallel update */
            double na = (double)cnt[k], nbd = (double)nb, nt = na + nbd;
            double delta = dm[i] - mean[k];
            mean[k] += delta * nbd / nt;
            m2[k] += d2[i] + delta * delta * na * nbd / nt;
            cnt[k] += nb;
        }
        return 0;
    }
    case AGG_NUNIQUE: {
        /* the union of the group's sets, over partials in order */
        int64_t *off = dfa_alloc(ng + 1, sizeof *off), *rows = dfa_alloc(n, sizeof *rows);
        int rc = -1;
        if (off && rows) {
            memset(off, 0, (size_t)(ng + 1) * sizeof *off);
            for (int64_t i = 0; i < n; i++)
                off[gid[i] + 1]++;
            for (int64_t k = 0; k < ng; k++)
                off[k + 1] += off[k];
            int64_t *fill = dfa_alloc(ng, sizeof *fill);
            if (fill) {
                memcpy(fill, off, (size_t)ng * sizeof *fill);
                for (int64_t i = 0; i < n; i++)
                    rows[fill[gid[i]]++] = i;
                rc = dfa_set_union(label_type(&all->names[at]), &in[0], rows, off, ng, &st[0]);
                free(fill);
            }
        }
        free(off);
        free(rows);
        return rc;
    }
    }
    return -1;
}

static int check_partial(const frame_t *p, const gb_spec_t *s, char *err, size_t errlen)
{
    if (s->nby < 1 || s->nby > DF_MAX_KEYS || p->nidx != s->nby || p->ncols != total_states(s))
        return errmsg(err, errlen,
                      "groupby_agg: a partial of %d levels and %d columns for %d keys and %d "
                      "state columns",
                      p->nidx, p->ncols, s->nby, total_states(s));
    return 0;
}

/* A column typed chunk by chunk (str.len, a dt field, map: int64, float64
 * in a chunk with a missing value) gives nunique sets of both types, and
 * their union reads one. Where they meet, each int64 set is rewritten as
 * float64 (the values of pandas' float64 column) into fixed[p], an owned
 * copy of parts[p]; use[p] is the frame to combine. */
static int unify_sets(const frame_t *const *parts, int n, const gb_spec_t *s, frame_t *fixed,
                      const frame_t **use)
{
    for (int p = 0; p < n; p++)
        use[p] = parts[p];
    int at = 0;
    for (int a = 0; a < s->nagg; at += nstate(s->agg[a].func), a++) {
        if (s->agg[a].func != AGG_NUNIQUE) continue;
        bool i64 = false, f64 = false;
        for (int p = 0; p < n; p++) {
            ftype_t t = label_type(&parts[p]->names[at]);
            i64 |= t == FT_INT64;
            f64 |= t == FT_FLOAT64;
        }
        if (!i64 || !f64) continue;
        for (int p = 0; p < n; p++) {
            if (label_type(&use[p]->names[at]) != FT_INT64) continue;
            if (use[p] == parts[p]) {
                if (frame_concat(&parts[p], 1, &fixed[p])) return -1;
                use[p] = &fixed[p];
            }
            fcol_t *c = &fixed[p].cols[at];
            int64_t nb = c->offsets[c->n]; /* every cell's 8-byte values */
            for (int64_t q = 0; q + 8 <= nb; q += 8) {
                int64_t iv;
                memcpy(&iv, c->bytes + q, 8);
                double dv = (double)iv;
                memcpy(c->bytes + q, &dv, 8);
            }
            free(fixed[p].names[at].s);
            fixed[p].names[at].s = NULL;
            if (state_label(&fixed[p].names[at], &s->agg[a], 0, FT_FLOAT64)) return -1;
        }
    }
    return 0;
}

int df_gb_combine(const frame_t *const *parts, int n, const gb_spec_t *s, frame_t *out, char *err,
                  size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (n < 1) return errmsg(err, errlen, "groupby_agg: combine of no partials");
    for (int p = 0; p < n; p++)
        if (check_partial(parts[p], s, err, errlen)) return -1;
    frame_t all, *fixed = calloc((size_t)n, sizeof *fixed);
    const frame_t **use = calloc((size_t)n, sizeof *use);
    int bad = !fixed || !use || unify_sets(parts, n, s, fixed, use) || frame_concat(use, n, &all);
    for (int p = 0; fixed && p < n; p++)
        frame_free(&fixed[p]);
    free(fixed);
    free(use);
    if (bad) return errmsg(err, errlen, "groupby_agg: partials differ in layout or out of memory");
    int64_t m = all.nrows;
    dfa_keys_t ks = {.nk = s->nby};
    const flabel_t *kn[DF_MAX_KEYS];
    for (int k = 0; k < s->nby; k++) {
        ks.k[k] = &all.idx[k];
        kn[k] = &all.idx_names[k];
    }
    int64_t *gid = dfa_alloc(m, sizeof *gid);
    dfa_htab_t t = {0};
    if (!gid || start_partial(&ks, m, NULL, kn, all.ncols, gid, &t, out)) goto nomem;
    int at = 0;
    for (int a = 0; a < s->nagg; a++) {
        const agg_spec_t *g = &s->agg[a];
        if (combine_agg(&all, at, gid, t.ngroups, g, &out->cols[at])) goto nomem;
        for (int j = 0; j < nstate(g->func); j++)
            if (flabel_set(&out->names[at + j], all.names[at + j].s, false)) goto nomem;
        at += nstate(g->func);
    }
    free(gid);
    dfa_htab_free(&t);
    frame_free(&all);
    return 0;
nomem:
    frame_free(out);
    free(gid);
    dfa_htab_free(&t);
    frame_free(&all);
    return errmsg(err, errlen, "groupby_agg: out of memory combining %lld groups", (long long)m);
}

/* ---- final ---- */

static int final_agg(const frame_t *p, int at, const int64_t *perm, int64_t ng, const agg_spec_t *g,
                     fcol_t *out)
{
    const fcol_t *st = &p->cols[at];
    switch (g->func) {
    case AGG_MEDIAN:
    case AGG_PROD:
    case AGG_IDXMIN:
    case AGG_IDXMAX:
        return -1; /* the one-job groupby's (gball.c); refused by the spec check */
    case AGG_SUM:
    case AGG_MIN:
    case AGG_MAX:
    case AGG_FIRST:
    case AGG_LAST:
    case AGG_COUNT:
    case AGG_SIZE:
        return dfa_take_col(&st[0], perm, ng, false, out);
    case AGG_MEAN: {
        if (fcol_alloc(out, g->unit ? FT_INT64 : FT_FLOAT64, ng, 0, false)) return -1;
        const double *s = st[0].data;
        const int64_t *c = st[2].data;
        for (int64_t i = 0; i < ng; i++) {
            int64_t r = perm[i];
            double v = c[r] ? s[r] / (double)c[r] : NAN;
            if (g->unit)
                ((int64_t *)out->data)[i] = dfa_ns_of_double(v);
            else
                ((double *)out->data)[i] = v;
        }
        out->unit = g->unit;
        return 0;
    }
    case AGG_STD:
    case AGG_VAR: {
        if (fcol_alloc(out, FT_FLOAT64, ng, 0, false)) return -1;
        const int64_t *c = st[0].data;
        const double *m2 = st[2].data;
        for (int64_t i = 0; i < ng; i++) {
            int64_t r = perm[i];
            double v = c[r] > 1 ? m2[r] / (double)(c[r] - 1) : NAN; /* ddof=1 */
            ((double *)out->data)[i] = g->func == AGG_STD ? sqrt(v) : v;
        }
        return 0;
    }
    case AGG_NUNIQUE: {
        if (fcol_alloc(out, FT_INT64, ng, 0, false)) return -1;
        ftype_t t = label_type(&p->names[at]);
        for (int64_t i = 0; i < ng; i++) {
            int64_t len;
            const char *e = fcol_str(&st[0], perm[i], &len);
            ((int64_t *)out->data)[i] = dfa_set_count(t, e, len);
        }
        return 0;
    }
    }
    return -1;
}

int df_gb_final(const frame_t *part, const gb_spec_t *s, frame_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check_partial(part, s, err, errlen)) return -1;
    int64_t ng = part->nrows;
    dfa_keys_t ks = {.nk = s->nby};
    for (int k = 0; k < s->nby; k++)
        ks.k[k] = &part->idx[k];
    int64_t *perm = dfa_alloc(ng, sizeof *perm);
    if (!perm) goto nomem;
    for (int64_t i = 0; i < ng; i++)
        perm[i] = i;
    if (dfa_argsort(&ks, NULL, perm, ng)) /* sort=True: groups by key */
        goto nomem;
    if (frame_alloc(out, false, ng, s->nagg, s->nby)) goto nomem;
    for (int k = 0; k < s->nby; k++)
        if (dfa_take_col(&part->idx[k], perm, ng, false, &out->idx[k]) ||
            flabel_set(&out->idx_names[k], part->idx_names[k].s, part->idx_names[k].is_int))
            goto nomem;
    int at = 0;
    for (int a = 0; a < s->nagg; a++) {
        const agg_spec_t *g = &s->agg[a];
        if (final_agg(part, at, perm, ng, g, &out->cols[a]) ||
            flabel_set(&out->names[a], g->out, false))
            goto nomem;
        at += nstate(g->func);
    }
    free(perm);
    return 0;
nomem:
    frame_free(out);
    free(perm);
    return errmsg(err, errlen, "groupby_agg: out of memory finishing %lld groups", (long long)ng);
}

/* ---- merge of sorted results ---- */

typedef struct {
    const dfa_keys_t *ks;
    const int64_t *cur; /* per part: its next row */
} heap_ctx_t;

static bool heap_less(const heap_ctx_t *c, int a, int b)
{
    int r = dfa_keys_cmp(c->ks, c->cur[a], c->ks, c->cur[b], NULL);
    return r < 0 || (r == 0 && a < b);
}

static void sift_down(int *h, int n, int i, const heap_ctx_t *c)
{
    for (;;) {
        int l = 2 * i + 1, m = i;
        if (l < n && heap_less(c, h[l], h[m])) m = l;
        if (l + 1 < n && heap_less(c, h[l + 1], h[m])) m = l + 1;
        if (m == i) return;
        int t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

int df_gb_merge_sorted(const frame_t *const *parts, int n, const gb_spec_t *s, frame_t *out,
                       char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (n < 1) return errmsg(err, errlen, "groupby_agg: merge of no results");
    for (int p = 0; p < n; p++)
        if (parts[p]->nidx != s->nby || parts[p]->ncols != s->nagg)
            return errmsg(err, errlen, "groupby_agg: result %d has %d levels, %d columns", p,
                          parts[p]->nidx, parts[p]->ncols);
    frame_t all;
    if (frame_concat(parts, n, &all))
        return errmsg(err, errlen, "groupby_agg: results differ in layout or out of memory");
    dfa_keys_t ks = {.nk = s->nby};
    for (int k = 0; k < s->nby; k++)
        ks.k[k] = &all.idx[k];
    int64_t *cur = dfa_alloc(n, sizeof *cur), *end = dfa_alloc(n, sizeof *end);
    int64_t *order = dfa_alloc(all.nrows, sizeof *order);
    int *heap = dfa_alloc(n, sizeof *heap);
    int rc = -1;
    if (!cur || !end || !order || !heap) goto done;
    int64_t at = 0;
    int nh = 0;
    for (int p = 0; p < n; p++) {
        cur[p] = at;
        at += parts[p]->nrows;
        end[p] = at;
        if (cur[p] < end[p]) heap[nh++] = p;
    }
    heap_ctx_t hc = {&ks, cur};
    for (int i = nh / 2 - 1; i >= 0; i--)
        sift_down(heap, nh, i, &hc);
    int64_t k = 0;
    while (nh > 0) {
        int p = heap[0];
        order[k++] = cur[p]++;
        if (cur[p] == end[p]) heap[0] = heap[--nh];
        sift_down(heap, nh, 0, &hc);
    }
    rc = frame_take(&all, order, all.nrows, out);
done:
    free(cur);
    free(end);
    free(order);
    free(heap);
    frame_free(&all);
    if (rc) return errmsg(err, errlen, "groupby_agg: out of memory merging results");
    return 0;
}
