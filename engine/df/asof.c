/* asof.c: dataframe.merge_asof chunk by chunk (asof.h). */
#include "asof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo_util.h"
#include "df3.h"

static int oom(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* The tie order of a side's rows among equal keys: right rows first, so
 * a scan in row order sees them (backward, and nearest's backward half);
 * forward scans from the end, so its right rows come after. */
static int64_t tie_of(const df_node_t *d, int side)
{
    bool right_first = d->adir != DF_AD_FORWARD;
    return side == 1 ? !right_first : right_first;
}

/* Keys a[i] and b[j] compared (-1, 0, 1): int64 (datetimes) or float64. */
static int kcmp(const fcol_t *a, int64_t i, const fcol_t *b, int64_t j)
{
    if (a->type == FT_FLOAT64) {
        double x = ((const double *)a->data)[i], y = ((const double *)b->data)[j];
        return (x > y) - (x < y);
    }
    int64_t x = ((const int64_t *)a->data)[i], y = ((const int64_t *)b->data)[j];
    return (x > y) - (x < y);
}

/* A column of n rows of t's type holding zeros (or empty strings): the
 * other side's columns in a union frame, never read. */
static int dummy(const df_col_t *t, int64_t n, fcol_t *o)
{
    if (t->type == FT_STRING) {
        if (fcol_alloc(o, FT_STRING, n, 1, false)) return -1;
        memset(o->offsets, 0, sizeof(int64_t) * (size_t)(n + 1));
        return 0;
    }
    if (fcol_alloc(o, (ftype_t)t->type, n, 0, false)) return -1;
    memset(o->data, 0, (size_t)n * (t->type == FT_BOOL ? 1 : 8));
    o->unit = t->unit;
    return 0;
}

/* pandas' checks of a side's keys: none missing, each at least the one
 * before it (the first: the last of the chunks before, kc, when given) */
static int check_keys(const df_node_t *d, int side, const frame_t *in, const frame_t *kc, char *err,
                      size_t errlen)
{
    const char *sn = side ? "right" : "left";
    const fcol_t *kcol = &in->cols[side ? d->arn : d->aon];
    for (int64_t i = 0; i < in->nrows; i++) {
        if (fcol_is_na(kcol, i)) {
            snprintf(err, errlen, "Merge keys contain null values on %s side", sn);
            return -1;
        }
        bool down = i > 0 ? kcmp(kcol, i, kcol, i - 1) < 0
                          : kc && ((const int64_t *)kc->cols[1].data)[0] &&
                                kcmp(kcol, 0, &kc->cols[0], 0) < 0;
        if (down) {
            snprintf(err, errlen, "%s keys must be sorted", sn);
            return -1;
        }
    }
    return 0;
}

int df_asof_tag(const df_node_t *d, const df_node_t *ls, const df_node_t *rs, int side, int64_t k,
                const frame_t *in, const frame_t *kc, frame_t *out, char *err, size_t errlen)
{
    const fcol_t *kcol = &in->cols[side ? d->arn : d->aon];
    int64_t n = in->nrows;
    if (check_keys(d, side, in, kc, err, errlen)) return -1;
    int nb = d->nkey, nl = ls->ncols, nr = rs->ncols, w = U_BY + nb + nl + nr;
    if (frame_alloc(out, false, n, w, 1) || fcol_copy(kcol, &out->cols[U_K]) ||
        fcol_alloc(&out->cols[U_T], FT_INT64, n, 0, false) ||
        fcol_alloc(&out->cols[U_Q], FT_INT64, n, 0, false))
        goto fail;
    int64_t tie = tie_of(d, side), *t = out->cols[U_T].data, *q = out->cols[U_Q].data;
    for (int64_t i = 0; i < n; i++) {
        t[i] = tie;
        q[i] = (k << 32) | i;
    }
    if (fcol_copy(&out->cols[U_Q], &out->idx[0])) goto fail;
    for (int b = 0; b < nb; b++)
        if (fcol_copy(&in->cols[d->key[side * nb + b]], &out->cols[U_BY + b])) goto fail;
    for (int j = 0; j < nl; j++)
        if (side == 0 ? fcol_copy(&in->cols[j], &out->cols[U_BY + nb + j])
                      : dummy(&ls->cols[j], n, &out->cols[U_BY + nb + j]))
            goto fail;
    for (int j = 0; j < nr; j++)
        if (side == 1 ? fcol_copy(&in->cols[j], &out->cols[U_BY + nb + nl + j])
                      : dummy(&rs->cols[j], n, &out->cols[U_BY + nb + nl + j]))
            goto fail;
    return 0;
fail:
    frame_free(out);
    return oom(err, errlen);
}

int df_asof_key_edge(const df_node_t *d, int side, const frame_t *far, const frame_t *near,
                     frame_t *out, char *err, size_t errlen)
{
    /* near: a chunk (far NULL) or an edge */
    bool edge = far != NULL;
    const fcol_t *kc = edge ? &near->cols[0] : &near->cols[side ? d->arn : d->aon];
    bool has = edge ? ((const int64_t *)near->cols[1].data)[0] != 0 : near->nrows > 0;
    if (edge && !has) {
        kc = &far->cols[0];
        has = ((const int64_t *)far->cols[1].data)[0] != 0;
    }
    int64_t at = edge || !has ? 0 : near->nrows - 1;
    if (frame_alloc(out, false, 1, 2, 1) || fcol_alloc(&out->idx[0], FT_INT64, 1, 0, false) ||
        fcol_alloc(&out->cols[0], (ftype_t)kc->type, 1, 0, false) ||
        fcol_alloc(&out->cols[1], FT_INT64, 1, 0, false)) {
        frame_free(out);
        return oom(err, errlen);
    }
    ((int64_t *)out->idx[0].data)[0] = 0;
    ((int64_t *)out->cols[1].data)[0] = has;
    out->cols[0].unit = kc->unit;
    if (has)
        memcpy(out->cols[0].data, (const char *)kc->data + (size_t)at * 8, 8);
    else
        memset(out->cols[0].data, 0, 8);
    return 0;
}

/* F's rows a then b (either may be NULL) as one frame in *all (owned when
 * two were given; else a view of the one). 0, or -1 out of memory. */
static int join2(const frame_t *a, const frame_t *b, frame_t *all, const frame_t **F)
{
    if (!a || !b) {
        *F = a ? a : b;
        return 0;
    }
    const frame_t *parts[2] = {a, b};
    *F = all;
    return frame_concat(parts, 2, all);
}

/* One right row i (of R, group g) into the state: each group's last row
 * and its last of a smaller key */
static void rs_add(const fcol_t *K, int64_t *last, int64_t *prev, int64_t g, int64_t i)
{
    if (last[g] >= 0 && kcmp(K, last[g], K, i) != 0) prev[g] = last[g];
    last[g] = i;
}

/* Left row i's match (KL its keys) among right rows (KR): group's last j
 * and its last of a smaller key pj, as pandas' hash table holds them for
 * the scan (after: forward's, whose right rows are at or after i's key):
 * pj when exact matches are not allowed and j's key equals i's; none
 * (-1) beyond the tolerance */
static int64_t asof_pick(const df_node_t *d, const fcol_t *KR, int64_t j, int64_t pj,
                         const fcol_t *KL, int64_t i, bool after)
{
    if (j >= 0 && !d->aexact && kcmp(KR, j, KL, i) == 0) j = pj;
    if (j < 0 || !d->ahas_tol) return j;
    bool far;
    if (KL->type == FT_FLOAT64) {
        double r = ((const double *)KR->data)[j], l = ((const double *)KL->data)[i];
        far = (after ? r - l : l - r) > d->atol_f;
    } else {
        int64_t r = ((const int64_t *)KR->data)[j], l = ((const int64_t *)KL->data)[i];
        far = (after ? r - l : l - r) > d->atol_i;
    }
    return far ? -1 : j;
}

/* The carry: rows of F, each group's last and prev (ng groups), in F's
 * order (so scanning them again gives the same state); at most
 * DF3_WHOLE_MAX_BYTES (the carry grows with the by values: a job whose
 * carry passes it fails naming the limit). 0, or -1 with a message. */
static int keep_state(const frame_t *F, const int64_t *last, const int64_t *prev, int64_t ng,
                      frame_t *out, char *err, size_t errlen)
{
    uint8_t *keep = calloc((size_t)F->nrows + 1, 1);
    int64_t *rows = malloc(sizeof(int64_t) * (size_t)(2 * ng + 1)), m = 0;
    int rc = -1;
    if (!keep || !rows) goto done;
    for (int64_t g = 0; g < ng; g++) {
        if (last[g] >= 0) keep[last[g]] = 1;
        if (prev[g] >= 0) keep[prev[g]] = 1;
    }
    for (int64_t i = 0; i < F->nrows; i++)
        if (keep[i]) rows[m++] = i;
    rc = frame_take(F, rows, m, out);
done:
    free(keep);
    free(rows);
    if (rc) return oom(err, errlen);
    if (frame_blob_size(out) > (size_t)DF3_WHOLE_MAX_BYTES) {
        frame_free(out);
        snprintf(err, errlen,
                 "merge_asof: the last right rows of %lld \"by\" values are more than a carry "
                 "holds (%lld GiB)",
                 (long long)ng, (long long)(DF3_WHOLE_MAX_BYTES >> 30));
        return -1;
    }
    return 0;
}

/* The scan of F's rows (rev: from the last): the right rows kept per by
 * group, each group's last one (last) and its last of a smaller key
 * (prev), rows of F; a left row i in [lo, hi) gets its match m[i - lo]
 * (-1: none; m NULL: no matches wanted). */
typedef struct {
    int64_t *gid, *last, *prev, ng;
} scan_t;

static void scan_free(scan_t *s)
{
    free(s->gid);
    free(s->last);
    free(s->prev);
}

static int scan(const df_node_t *d, const frame_t *F, bool rev, int64_t lo, int64_t hi, int64_t *m,
                scan_t *s)
{
    int64_t n = F->nrows;
    memset(s, 0, sizeof *s);
    if (!(s->gid = calloc((size_t)n + 1, sizeof(int64_t)))) return -1;
    s->ng = 1;
    if (d->nkey > 0) {
        dfa_keys_t ks = {.nk = d->nkey};
        for (int b = 0; b < d->nkey; b++)
            ks.k[b] = &F->cols[U_BY + b];
        dfa_htab_t t;
        memset(&t, 0, sizeof t);
        if (dfa_group(&ks, n, NULL, s->gid, &t)) {
            dfa_htab_free(&t);
            return -1;
        }
        s->ng = t.ngroups;
        dfa_htab_free(&t);
    }
    if (!(s->last = malloc(sizeof(int64_t) * (size_t)(s->ng + 1))) ||
        !(s->prev = malloc(sizeof(int64_t) * (size_t)(s->ng + 1))))
        return -1;
    for (int64_t g = 0; g < s->ng; g++)
        s->last[g] = s->prev[g] = -1;
    const fcol_t *K = &F->cols[U_K];
    const int64_t *T = F->cols[U_T].data;
    int64_t right = tie_of(d, 1);
    for (int64_t q = 0; q < n; q++) {
        int64_t i = rev ? n - 1 - q : q, g = s->gid[i];
        if (T[i] == right)
            rs_add(K, s->last, s->prev, g, i);
        else if (m && i >= lo && i < hi)
            m[i - lo] = asof_pick(d, K, s->last[g], s->prev[g], K, i, rev);
    }
    return 0;
}

int df_asof_state(const df_node_t *d, const frame_t *far, const frame_t *near, bool back,
                  frame_t *out, char *err, size_t errlen)
{
    bool rev = back || d->adir == DF_AD_FORWARD;
    frame_t all = {0};
    const frame_t *F;
    scan_t s = {0};
    int rc = join2(rev ? near : far, rev ? far : near, &all, &F) || scan(d, F, rev, 0, 0, NULL, &s)
                 ? oom(err, errlen)
                 : keep_state(F, s.last, s.prev, s.ng, out, err, errlen);
    scan_free(&s);
    frame_free(&all);
    return rc;
}

int df_asof_map(const df_node_t *d, const frame_t *part, const frame_t *bef, const frame_t *aft,
                frame_t *out, char *err, size_t errlen)
{
    frame_t a1 = {0}, a2 = {0};
    const frame_t *F1, *F;
    scan_t s = {0};
    int64_t nb = bef ? bef->nrows : 0, np = part->nrows;
    int64_t *mb = NULL, *mf = NULL, *lr = NULL, *rr = NULL;
    int rc = -1;
    if (join2(bef, part, &a1, &F1) || join2(F1, aft, &a2, &F)) goto done;
    if (!(mb = malloc(sizeof(int64_t) * (size_t)(np + 1))) ||
        !(mf = malloc(sizeof(int64_t) * (size_t)(np + 1))) ||
        !(lr = malloc(sizeof(int64_t) * (size_t)(np + 1))) ||
        !(rr = malloc(sizeof(int64_t) * (size_t)(np + 1))))
        goto done;
    for (int64_t i = 0; i < np; i++)
        mb[i] = mf[i] = -1;
    if (d->adir != DF_AD_FORWARD) {
        if (scan(d, F, false, nb, nb + np, mb, &s)) goto done;
        scan_free(&s);
    }
    if (d->adir != DF_AD_BACKWARD) {
        if (scan(d, F, true, nb, nb + np, mf, &s)) goto done;
        scan_free(&s);
    }
    memset(&s, 0, sizeof s);
    /* the part's left rows, in order, and their matches (nearest: the
     * closer, the backward one when both are as near, as pandas') */
    const fcol_t *K = &F->cols[U_K];
    const int64_t *T = F->cols[U_T].data;
    int64_t left = tie_of(d, 0), m = 0;
    bool fl = K->type == FT_FLOAT64;
    for (int64_t i = 0; i < np; i++) {
        int64_t r = nb + i;
        if (T[r] != left) continue;
        int64_t j = d->adir == DF_AD_FORWARD ? mf[i] : mb[i];
        if (d->adir == DF_AD_NEAREST) {
            if (mb[i] >= 0 && mf[i] >= 0) {
                bool back;
                if (fl) {
                    const double *k = K->data;
                    back = k[r] - k[mb[i]] <= k[mf[i]] - k[r];
                } else {
                    const int64_t *k = K->data;
                    back = k[r] - k[mb[i]] <= k[mf[i]] - k[r];
                }
                j = back ? mb[i] : mf[i];
            } else {
                j = mb[i] >= 0 ? mb[i] : mf[i];
            }
        }
        lr[m] = r;
        rr[m++] = j;
    }
    if (frame_alloc(out, false, m, d->ncols, 1) || fcol_alloc(&out->idx[0], FT_INT64, m, 0, false))
        goto fail;
    out->range_index = true;
    for (int64_t i = 0; i < m; i++)
        ((int64_t *)out->idx[0].data)[i] = i;
    for (int k = 0; k < d->ncols; k++) {
        int src = d->asrc[k];
        const fcol_t *c = &F->cols[U_BY + d->nkey + (src >= 0 ? src : d->anl + (-1 - src))];
        if (dfa_take_col(c, src >= 0 ? lr : rr, m, false, &out->cols[k]) ||
            flabel_set(&out->names[k], d->cols[k].name, d->cols[k].is_int))
            goto fail;
    }
    rc = 0;
    goto done;
fail:
    frame_free(out);
done:
    scan_free(&s);
    free(mb);
    free(mf);
    free(lr);
    free(rr);
    frame_free(&a2);
    frame_free(&a1);
    return rc ? oom(err, errlen) : 0;
}

/* ---------------------------------------------- backward and forward in place */

int df_asof_bounds(const df_node_t *d, const frame_t *in, const frame_t *kc, frame_t *out,
                   char *err, size_t errlen)
{
    if (check_keys(d, 0, in, kc, err, errlen)) return -1;
    const fcol_t *k = &in->cols[d->aon];
    int64_t n = in->nrows;
    if (frame_alloc(out, false, 1, 3, 1) || fcol_alloc(&out->idx[0], FT_INT64, 1, 0, false) ||
        fcol_alloc(&out->cols[0], (ftype_t)k->type, 1, 0, false) ||
        fcol_alloc(&out->cols[1], (ftype_t)k->type, 1, 0, false) ||
        fcol_alloc(&out->cols[2], FT_INT64, 1, 0, false)) {
        frame_free(out);
        return oom(err, errlen);
    }
    ((int64_t *)out->idx[0].data)[0] = 0;
    ((int64_t *)out->cols[2].data)[0] = n > 0;
    for (int c = 0; c < 2; c++) {
        out->cols[c].unit = k->unit;
        if (n > 0)
            memcpy(out->cols[c].data, (const char *)k->data + (size_t)(c ? n - 1 : 0) * 8, 8);
        else
            memset(out->cols[c].data, 0, 8);
    }
    return 0;
}

int df_asof_route(const df_node_t *d, const frame_t *in, const frame_t *kc, const frame_t *bounds,
                  frame_t *outs, char *err, size_t errlen)
{
    if (check_keys(d, 1, in, kc, err, errlen)) return -1;
    int64_t nl = bounds->nrows, n = in->nrows;
    const fcol_t *first = &bounds->cols[0], *last = &bounds->cols[1];
    const int64_t *has = bounds->cols[2].data;
    const fcol_t *K = &in->cols[d->arn];
    bool fwd = d->adir == DF_AD_FORWARD;
    /* the left chunks with rows, in order */
    int64_t *ne = malloc(sizeof(int64_t) * (size_t)(nl + 1)), m = 0;
    int64_t *part = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int rc = -1;
    if (!ne || !part) goto done;
    for (int64_t k = 0; k < nl; k++)
        if (has[k]) ne[m++] = k;
    /* backward: a right row can match left rows at or after its key, the
     * first of them in the first chunk whose last key reaches it; forward:
     * left rows at or before it, the last of them in the last chunk whose
     * first key is at or below it; a row no left row can use goes nowhere */
    for (int64_t i = 0; i < n; i++) {
        int64_t lo = 0, hi = m;
        while (lo < hi) {
            int64_t mid = (lo + hi) / 2;
            bool before = fwd ? kcmp(first, ne[mid], K, i) <= 0 : kcmp(last, ne[mid], K, i) < 0;
            if (before)
                lo = mid + 1;
            else
                hi = mid;
        }
        part[i] = fwd ? (lo > 0 ? ne[lo - 1] : -1) : (lo < m ? ne[lo] : -1);
    }
    /* the keys rise, so the parts do: each part's rows are a run, the rows
     * that go nowhere before them all (forward) or after (backward) */
    int64_t i = 0;
    while (fwd && i < n && part[i] < 0)
        i++;
    for (int64_t p = 0; p < nl; p++) {
        int64_t a = i;
        while (i < n && part[i] == p)
            i++;
        if (frame_slice(in, a, i - a, &outs[p])) {
            for (int64_t q = 0; q < p; q++)
                frame_free(&outs[q]);
            goto done;
        }
    }
    rc = 0;
done:
    free(ne);
    free(part);
    return rc ? oom(err, errlen) : 0;
}

/* The by groups of right rows R (gid; *t the table, the caller frees it). */
static int right_groups(const df_node_t *d, const frame_t *R, int64_t *gid, dfa_htab_t *t,
                        int64_t *ng)
{
    memset(t, 0, sizeof *t);
    if (d->nkey == 0) {
        memset(gid, 0, sizeof(int64_t) * (size_t)(R->nrows + 1));
        *ng = 1;
        return 0;
    }
    dfa_keys_t ks = {.nk = d->nkey};
    for (int b = 0; b < d->nkey; b++)
        ks.k[b] = &R->cols[d->key[d->nkey + b]];
    if (dfa_group(&ks, R->nrows, NULL, gid, t)) return -1;
    *ng = t->ngroups;
    return 0;
}

int df_asof_rstate(const df_node_t *d, const frame_t *S, const frame_t *P, frame_t *out, char *err,
                   size_t errlen)
{
    bool fwd = d->adir == DF_AD_FORWARD;
    frame_t all = {0};
    const frame_t *R;
    dfa_htab_t t = {0};
    int64_t *gid = NULL, *last = NULL, *prev = NULL, ng = 0;
    int rc = -1;
    /* the rows in key order: the state of the parts before, then the
     * part's (forward: the part's, then the state of the parts after) */
    if (join2(fwd ? P : S, fwd ? S : P, &all, &R) ||
        !(gid = malloc(sizeof(int64_t) * (size_t)(R->nrows + 1))) ||
        right_groups(d, R, gid, &t, &ng) || !(last = malloc(sizeof(int64_t) * (size_t)(ng + 1))) ||
        !(prev = malloc(sizeof(int64_t) * (size_t)(ng + 1)))) {
        rc = oom(err, errlen);
        goto done;
    }
    for (int64_t g = 0; g < ng; g++)
        last[g] = prev[g] = -1;
    const fcol_t *K = &R->cols[d->arn];
    for (int64_t q = 0; q < R->nrows; q++) {
        int64_t i = fwd ? R->nrows - 1 - q : q;
        rs_add(K, last, prev, gid[i], i);
    }
    rc = keep_state(R, last, prev, ng, out, err, errlen);
done:
    dfa_htab_free(&t);
    free(gid);
    free(last);
    free(prev);
    frame_free(&all);
    return rc;
}

int df_asof_rmap(const df_node_t *d, const frame_t *L, const frame_t *S, const frame_t *P,
                 frame_t *out, char *err, size_t errlen)
{
    bool fwd = d->adir == DF_AD_FORWARD;
    frame_t all = {0};
    const frame_t *R;
    dfa_htab_t t = {0};
    int64_t n = L->nrows, ng = 0;
    int64_t *gid = NULL, *lg = NULL, *last = NULL, *prev = NULL, *match = NULL;
    uint64_t *h = NULL;
    int rc = -1;
    if (join2(fwd ? P : S, fwd ? S : P, &all, &R) ||
        !(gid = malloc(sizeof(int64_t) * (size_t)(R->nrows + 1))) ||
        right_groups(d, R, gid, &t, &ng) || !(last = malloc(sizeof(int64_t) * (size_t)(ng + 1))) ||
        !(prev = malloc(sizeof(int64_t) * (size_t)(ng + 1))) ||
        !(lg = malloc(sizeof(int64_t) * (size_t)(n + 1))) ||
        !(match = malloc(sizeof(int64_t) * (size_t)(n + 1))))
        goto oom_;
    for (int64_t g = 0; g < ng; g++)
        last[g] = prev[g] = -1;
    /* each left row's group among the right rows' (-1: none has its by
     * values: no match) */
    if (d->nkey > 0) {
        dfa_keys_t lk = {.nk = d->nkey}, rk = {.nk = d->nkey};
        const fcol_t *lc[DF_MAX_KEYS];
        for (int b = 0; b < d->nkey; b++) {
            lk.k[b] = lc[b] = &L->cols[d->key[b]];
            rk.k[b] = &R->cols[d->key[d->nkey + b]];
        }
        if (!(h = malloc(sizeof(uint64_t) * (size_t)(n + 1)))) goto oom_;
        dfa_hash_rows(lc, d->nkey, n, h);
        if (R->nrows > 0) {
            if (dfa_htab_find_rows(&t, &rk, &lk, n, h, lg)) goto oom_;
        } else {
            for (int64_t i = 0; i < n; i++)
                lg[i] = -1;
        }
    } else {
        for (int64_t i = 0; i < n; i++)
            lg[i] = R->nrows > 0 ? 0 : -1;
    }
    /* the left rows and the right ones merged by key: right rows at or
     * before (forward: at or after) each left row enter the state first */
    const fcol_t *KL = &L->cols[d->aon], *KR = &R->cols[d->arn];
    int64_t r = 0;
    for (int64_t q = 0; q < n; q++) {
        int64_t i = fwd ? n - 1 - q : q;
        while (r < R->nrows) {
            int64_t ri = fwd ? R->nrows - 1 - r : r;
            int c = kcmp(KR, ri, KL, i);
            if (fwd ? c < 0 : c > 0) break;
            rs_add(KR, last, prev, gid[ri], ri);
            r++;
        }
        int64_t g = lg[i];
        match[i] = g >= 0 ? asof_pick(d, KR, last[g], prev[g], KL, i, fwd) : -1;
    }
    if (frame_alloc(out, false, n, d->ncols, 1) || fcol_alloc(&out->idx[0], FT_INT64, n, 0, false))
        goto fail;
    out->range_index = true;
    for (int64_t i = 0; i < n; i++)
        ((int64_t *)out->idx[0].data)[i] = i;
    for (int k = 0; k < d->ncols; k++) {
        int src = d->asrc[k];
        int bad = src >= 0 ? fcol_copy(&L->cols[src], &out->cols[k])
                           : dfa_take_col(&R->cols[-1 - src], match, n, false, &out->cols[k]);
        if (bad || flabel_set(&out->names[k], d->cols[k].name, d->cols[k].is_int)) goto fail;
    }
    rc = 0;
    goto done;
fail:
    frame_free(out);
oom_:
    oom(err, errlen);
done:
    dfa_htab_free(&t);
    free(gid);
    free(lg);
    free(last);
    free(prev);
    free(match);
    free(h);
    frame_free(&all);
    return rc;
}
