/* gball.c: groupby_agg in one job (gball.h). */
#include "gball.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo_util.h"

/* Group g's aggregate of column c over rows r[0..m) into o at row p. */
static int agg_one(const frame_t *in, const agg_spec_t *a, const int64_t *r, int64_t m, fcol_t *o,
                   int64_t p, double *tmp)
{
    const fcol_t *c = &in->cols[a->col];
    int64_t cnt = 0;
    for (int64_t q = 0; q < m; q++)
        cnt += !fcol_is_na(c, r[q]);
    switch (a->func) {
    case AGG_COUNT:
    case AGG_SIZE:
        ((int64_t *)o->data)[p] = a->func == AGG_SIZE ? m : cnt;
        return 0;
    case AGG_NUNIQUE: {
        int64_t *rr = dfa_alloc(m + 1, sizeof *rr), k = 0;
        if (!rr) return -1;
        for (int64_t q = 0; q < m; q++)
            if (!fcol_is_na(c, r[q])) rr[k++] = r[q];
        dfa_keys_t ks = {0};
        ks.nk = 1;
        ks.k[0] = c;
        if (dfa_argsort(&ks, NULL, rr, k)) {
            free(rr);
            return -1;
        }
        int64_t u = 0;
        for (int64_t q = 0; q < k; q++)
            u += q == 0 || !dfa_cell_eq(c, rr[q - 1], c, rr[q]);
        free(rr);
        ((int64_t *)o->data)[p] = u;
        return 0;
    }
    case AGG_FIRST:
    case AGG_LAST:
    case AGG_MIN:
    case AGG_MAX:
    case AGG_IDXMIN:
    case AGG_IDXMAX: {
        /* the chosen row (first or last present value, or the extreme one) */
        int64_t best = -1;
        for (int64_t q = 0; q < m; q++) {
            int64_t i = r[a->func == AGG_LAST ? m - 1 - q : q];
            if (fcol_is_na(c, i)) continue;
            if (best < 0) {
                best = i;
                if (a->func == AGG_FIRST || a->func == AGG_LAST) break;
                continue;
            }
            int cm = dfa_cell_cmp_present(c, i, c, best);
            bool lo = a->func == AGG_MIN || a->func == AGG_IDXMIN;
            if (lo ? cm < 0 : cm > 0) best = i;
        }
        bool idx = a->func == AGG_IDXMIN || a->func == AGG_IDXMAX;
        const fcol_t *src = idx ? &in->idx[0] : c;
        if (o->type == FT_STRING) return 0; /* strings are gathered by the caller */
        if (best < 0) {
            if (o->type == FT_FLOAT64) ((double *)o->data)[p] = NAN;
            if (o->type == FT_INT64) ((int64_t *)o->data)[p] = INT64_MIN; /* NaT */
            if (o->valid) o->valid[p] = 0;
            return 0;
        }
        if (o->type == FT_FLOAT64)
            ((double *)o->data)[p] = dfa_num(src, best);
        else if (o->type == FT_INT64)
            ((int64_t *)o->data)[p] = src->type == FT_INT64 ? ((const int64_t *)src->data)[best]
                                                            : (int64_t)dfa_num(src, best);
        else
            ((uint8_t *)o->data)[p] = ((const uint8_t *)src->data)[best];
        return 0;
    }
    default:
        break;
    }
    /* numeric: sum, mean, std, var, median, prod */
    int64_t k = 0;
    for (int64_t q = 0; q < m; q++)
        if (!fcol_is_na(c, r[q])) tmp[k++] = dfa_num(c, r[q]);
    double v = NAN;
    if (o->type == FT_INT64 && (a->func == AGG_SUM || a->func == AGG_PROD)) {
        uint64_t acc = a->func == AGG_PROD ? 1 : 0;
        for (int64_t q = 0; q < m; q++) {
            if (fcol_is_na(c, r[q])) continue; /* a timedelta's NaT */
            uint64_t x = c->type == FT_INT64 ? (uint64_t)((const int64_t *)c->data)[r[q]]
                                             : ((const uint8_t *)c->data)[r[q]];
            acc = a->func == AGG_PROD ? acc * x : acc + x;
        }
        ((int64_t *)o->data)[p] = (int64_t)acc;
        return 0;
    }
    double s = 0, pr = 1;
    for (int64_t q = 0; q < k; q++)
        s += tmp[q], pr *= tmp[q];
    switch (a->func) {
    case AGG_SUM:
        v = s;
        break;
    case AGG_PROD:
        v = pr;
        break;
    case AGG_MEAN:
        v = k ? s / (double)k : NAN;
        break;
    case AGG_MEDIAN:
        if (k) {
            /* the middle value selected; for an even count the one below
             * it is the largest of those before it */
            dfa_select_d(tmp, 0, k - 1, k / 2);
            double below = tmp[0];
            for (int64_t q = 1; q < k / 2; q++)
                below = tmp[q] > below ? tmp[q] : below;
            v = k % 2 ? tmp[k / 2] : (below + tmp[k / 2]) / 2;
        }
        break;
    default: { /* std, var */
        double mean = k ? s / (double)k : 0, m2 = 0;
        for (int64_t q = 0; q < k; q++)
            m2 += (tmp[q] - mean) * (tmp[q] - mean);
        v = k > 1 ? m2 / (double)(k - 1) : NAN;
        if (a->func == AGG_STD) v = sqrt(v);
    }
    }
    if (o->type == FT_INT64) /* a mean or median of datetimes or timedeltas */
        ((int64_t *)o->data)[p] = dfa_ns_of_double(v);
    else
        ((double *)o->data)[p] = v;
    return 0;
}

int df_gb_whole(const df_node_t *d, const frame_t *in, frame_t *out, char *err, size_t errlen)
{
    const gb_spec_t *g = &d->gb;
    int64_t n = in->nrows;
    dfa_keys_t ks = {0};
    ks.nk = g->nby;
    for (int k = 0; k < g->nby; k++)
        ks.k[k] = &in->cols[g->by[k]];
    int64_t *gid = dfa_alloc(n + 1, sizeof *gid), *ord = NULL, *start = NULL, *rows = NULL;
    int64_t *rep = NULL, *fill = NULL;
    uint8_t *skip = dfa_alloc(n + 1, 1);
    double *tmp = dfa_alloc(n + 1, sizeof *tmp);
    dfa_htab_t t = {0};
    frame_t keys = {0}, one = {0};
    int rc = -1;
    if (!gid || !skip || !tmp) goto done;
    for (int64_t i = 0; i < n; i++) {
        bool na = false;
        for (int k = 0; k < ks.nk; k++)
            na |= fcol_is_na(ks.k[k], i);
        skip[i] = na && !d->gb_keepna;
    }
    if (dfa_group(&ks, n, skip, gid, &t)) goto done;
    int64_t ng = t.ngroups;
    if (!(ord = dfa_alloc(ng + 1, sizeof *ord)) || !(start = dfa_alloc(ng + 2, sizeof *start)) ||
        !(rows = dfa_alloc(n + 1, sizeof *rows)) || !(rep = dfa_alloc(ng + 1, sizeof *rep)) ||
        !(fill = dfa_alloc(ng + 1, sizeof *fill)))
        goto done;
    /* groups by key (missing keys last), rows of each in their order */
    for (int64_t q = 0; q < ng; q++)
        ord[q] = t.grep[q];
    if (dfa_argsort(&ks, NULL, ord, ng)) goto done;
    for (int64_t q = 0; q < ng; q++)
        rep[q] = ord[q];
    for (int64_t q = 0; q < ng; q++)
        ord[q] = gid[rep[q]]; /* ord: sorted position -> group */
    for (int64_t q = 0; q <= ng; q++)
        start[q] = 0;
    for (int64_t i = 0; i < n; i++)
        if (gid[i] >= 0) start[gid[i] + 1]++;
    for (int64_t q = 0; q < ng; q++)
        start[q + 1] += start[q], fill[q] = start[q];
    for (int64_t i = 0; i < n; i++)
        if (gid[i] >= 0) rows[fill[gid[i]]++] = i;
    /* the key values of each group, in order */
    if (frame_alloc(&one, false, n, g->nby, 1)) goto done;
    one.view = true;
    for (int k = 0; k < g->nby; k++)
        one.cols[k] = *ks.k[k];
    one.idx[0] = in->idx[0];
    if (frame_take(&one, rep, ng, &keys)) goto done;
    int lead = d->gb_flat ? g->nby : 0;
    int nidx = d->gb_flat ? 1 : g->nby;
    if (frame_alloc(out, false, ng, d->ncols, nidx)) goto done;
    for (int k = 0; k < d->ncols; k++)
        if (flabel_set(&out->names[k], d->cols[k].name, d->cols[k].is_int)) goto done;
    for (int k = 0; k < nidx; k++)
        if (flabel_set(&out->idx_names[k], d->idx[k].name, d->idx[k].is_int)) goto done;
    for (int k = 0; k < g->nby; k++) {
        fcol_t *dst = d->gb_flat ? &out->cols[k] : &out->idx[k];
        *dst = keys.cols[k];
        memset(&keys.cols[k], 0, sizeof keys.cols[k]);
    }
    if (d->gb_flat) {
        if (fcol_alloc(&out->idx[0], FT_INT64, ng, 0, false)) goto done;
        for (int64_t q = 0; q < ng; q++)
            ((int64_t *)out->idx[0].data)[q] = q;
    }
    for (int a = 0; a < g->nagg; a++) {
        const agg_spec_t *sp = &g->agg[a];
        fcol_t *o = &out->cols[lead + a];
        int ot = d->cols[lead + a].type;
        bool idx = sp->func == AGG_IDXMIN || sp->func == AGG_IDXMAX;
        if (ot == FT_STRING || (ot == FT_BOOL && !idx && sp->func != AGG_SUM)) {
            /* strings and bools: gather the chosen rows (min, max, first, last) */
            int64_t *pick = dfa_alloc(ng + 1, sizeof *pick);
            if (!pick) goto done;
            const fcol_t *c = idx ? &in->idx[0] : &in->cols[sp->col];
            for (int64_t q = 0; q < ng; q++) {
                int64_t gg = ord[q], best = -1, m = start[gg + 1] - start[gg];
                const int64_t *r = rows + start[gg];
                const fcol_t *kc = &in->cols[sp->col];
                for (int64_t z = 0; z < m; z++) {
                    int64_t i = r[sp->func == AGG_LAST ? m - 1 - z : z];
                    if (fcol_is_na(kc, i)) continue;
                    if (best < 0) {
                        best = i;
                        if (sp->func == AGG_FIRST || sp->func == AGG_LAST) break;
                        continue;
                    }
                    int cm = dfa_cell_cmp_present(kc, i, kc, best);
                    bool lo = sp->func == AGG_MIN || sp->func == AGG_IDXMIN;
                    if (lo ? cm < 0 : cm > 0) best = i;
                }
                pick[q] = best;
            }
            int tr = dfa_take_col(c, pick, ng, false, o);
            free(pick);
            if (tr) goto done;
            continue;
        }
        bool keeps = sp->func == AGG_SUM || sp->func == AGG_PROD || sp->func == AGG_MIN ||
                     sp->func == AGG_MAX || sp->func == AGG_FIRST || sp->func == AGG_LAST;
        if (ot == FT_INT64 && keeps && in->cols[sp->col].type == FT_FLOAT64)
            ot = FT_FLOAT64; /* an int64 column typed chunk by chunk that holds a missing
                              * value: pandas' column, and so its sum, is float64 */
        if (fcol_alloc(o, (ftype_t)ot, ng, 0, false)) goto done;
        for (int64_t q = 0; q < ng; q++) {
            int64_t gg = ord[q];
            if (agg_one(in, sp, rows + start[gg], start[gg + 1] - start[gg], o, q, tmp)) goto done;
        }
    }
    rc = 0;
done:
    if (rc) {
        frame_free(out);
        errmsg(err, errlen, "groupby: out of memory");
    }
    frame_free(&one);
    frame_free(&keys);
    dfa_htab_free(&t);
    free(gid);
    free(ord);
    free(start);
    free(rows);
    free(rep);
    free(fill);
    free(skip);
    free(tmp);
    return rc;
}
