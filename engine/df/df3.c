/* df3.c: concat along the columns (df3.h). */
#include "df3.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "algo_util.h"
#include "stats.h"

static bool index_equal(const frame_t *a, const frame_t *b)
{
    if (a->nrows != b->nrows || a->nidx != b->nidx) return false;
    dfa_keys_t ka = {.nk = a->nidx}, kb = {.nk = b->nidx};
    for (int k = 0; k < a->nidx; k++) {
        if (a->idx[k].type != b->idx[k].type) return false;
        ka.k[k] = &a->idx[k];
        kb.k[k] = &b->idx[k];
    }
    for (int64_t i = 0; i < a->nrows; i++)
        for (int k = 0; k < a->nidx; k++) {
            bool na = fcol_is_na(ka.k[k], i), nb = fcol_is_na(kb.k[k], i);
            if (na != nb || (!na && dfa_cell_cmp_present(ka.k[k], i, kb.k[k], i))) return false;
        }
    return true;
}

/* The union's rows (sel[q]: its row of the keys ks; rows[p][q]: part p's)
 * sorted by the keys, stably, missing values last. 0, or -1 when out of
 * memory. */
static int sort_union(const dfa_keys_t *ks, int64_t *sel, int64_t **rows, int n, int64_t nout,
                      int64_t total)
{
    int64_t *order = dfa_alloc(nout, sizeof *order), *at = dfa_alloc(total, sizeof *at),
            *tmp = dfa_alloc(nout, sizeof *tmp);
    int ret = -1;
    if (!order || !at || !tmp) goto out;
    for (int64_t q = 0; q < nout; q++) {
        order[q] = sel[q];
        at[sel[q]] = q;
    }
    if (dfa_argsort(ks, NULL, order, nout)) goto out;
    for (int64_t q = 0; q < nout; q++)
        order[q] = at[order[q]]; /* the q of the union that comes q-th */
    for (int p = 0; p <= n; p++) {
        int64_t *v = p < n ? rows[p] : sel;
        for (int64_t q = 0; q < nout; q++)
            tmp[q] = v[order[q]];
        memcpy(v, tmp, (size_t)nout * sizeof *v);
    }
    ret = 0;
out:
    free(order);
    free(at);
    free(tmp);
    return ret;
}

/* Output columns: every part's columns (rows[p][i] the row of part p, -1
 * missing; NULL: the part's rows as they are), labels from d. */
static int put_cols(const df_node_t *d, const frame_t *const *parts, int n, int64_t **rows,
                    int64_t nout, frame_t *out)
{
    int at = 0;
    for (int p = 0; p < n; p++)
        for (int c = 0; c < parts[p]->ncols; c++, at++) {
            if (at >= d->ncols || at >= out->ncols) return -1;
            int rc = rows[p] ? dfa_take_col(&parts[p]->cols[c], rows[p], nout, true, &out->cols[at])
                             : fcol_copy(&parts[p]->cols[c], &out->cols[at]);
            if (rc || flabel_set(&out->names[at], d->cols[at].name, d->cols[at].is_int)) return -1;
        }
    return 0;
}

/* The output of aligned rows: row q has index keys' row sel[q] and part
 * p's row rows[p][q] (-1: missing); an index level is named as part
 * names_of names it, or (-1) where every part names it alike. 0, or -1 when out of memory. */
static int put_rows(const df_node_t *d, const frame_t *const *parts, int n, const frame_t *keys,
                    const int64_t *sel, int64_t **rows, int64_t nout, int ncols, int names_of,
                    frame_t *out)
{
    int nidx = parts[0]->nidx;
    if (frame_alloc(out, false, nout, ncols, nidx)) return -1;
    for (int k = 0; k < nidx; k++) {
        const flabel_t *a = &parts[names_of < 0 ? 0 : names_of]->idx_names[k];
        bool named = true;
        for (int p = 1; p < n && names_of < 0; p++) {
            const flabel_t *b = &parts[p]->idx_names[k];
            named &= a->s && b->s ? a->is_int == b->is_int && !strcmp(a->s, b->s) : !a->s && !b->s;
        }
        if (dfa_take_col(&keys->cols[k], sel, nout, false, &out->idx[k]) ||
            (named && flabel_set(&out->idx_names[k], a->s, a->is_int)))
            return -1;
    }
    return put_cols(d, parts, n, rows, nout, out);
}

/* Equal indexes side by side, sorted by the index (pandas' concat(sort=True)
 * sorts them even then): put_rows of the first part's index in its
 * sorted order. */
static int sorted_side_by_side(const df_node_t *d, const frame_t *const *parts, int n, int ncols,
                               frame_t *out, char *err, size_t errlen)
{
    const frame_t *f = parts[0];
    int64_t nr = f->nrows;
    int64_t *order = dfa_alloc(nr, sizeof *order);
    int64_t **rows = calloc((size_t)n + 1, sizeof *rows);
    int ret = 0;
    frame_t keys = {.nrows = nr,
                    .ncols = f->nidx,
                    .cols = f->idx,
                    .names = f->idx_names,
                    .nidx = f->nidx,
                    .idx = f->idx,
                    .idx_names = f->idx_names,
                    .view = true};
    dfa_keys_t ks = {.nk = f->nidx};
    for (int k = 0; k < f->nidx; k++)
        ks.k[k] = &f->idx[k];
    for (int64_t i = 0; order && i < nr; i++)
        order[i] = i;
    for (int p = 0; rows && p < n; p++)
        rows[p] = order;
    if (!order || !rows || dfa_argsort(&ks, NULL, order, nr) ||
        put_rows(d, parts, n, &keys, order, rows, nr, ncols, 0, out)) {
        frame_free(out);
        ret = errmsg(err, errlen, "concat: out of memory sorting %lld rows", (long long)nr);
    }
    free(order);
    free(rows);
    return ret;
}

/* Indexes that differ, aligned as pandas' arithmetic aligns two Series
 * (concat's "sort": "differing"): the labels sorted (missing last), and
 * each label's rows of every part joined: their product, the first part's
 * rows outermost, each part's in its order; a part without the label gives
 * one missing row (join "outer"; "inner" drops the label). keys: every
 * part's index rows one after the other, gid their labels (t). */
static int join_differing(const df_node_t *d, const frame_t *const *parts, int n,
                          const frame_t *keys, const dfa_keys_t *ks, const int64_t *gid,
                          const dfa_htab_t *t, int ncols, frame_t *out, char *err, size_t errlen)
{
    int64_t ng = t->ngroups, total = keys->nrows;
    int64_t *cnt = dfa_alloc((int64_t)n * ng, sizeof *cnt),
            *st = dfa_alloc((int64_t)n * (ng + 1), sizeof *st),
            *list = dfa_alloc(total, sizeof *list), *order = dfa_alloc(ng, sizeof *order),
            *at = dfa_alloc(total, sizeof *at), *digit = dfa_alloc(n, sizeof *digit), *sel = NULL;
    int64_t **rows = calloc((size_t)n + 1, sizeof *rows);
    int ret = -1;
    if (!cnt || !st || !list || !order || !at || !digit || !rows) goto nomem;
    int full = -1, nfull = 0; /* pandas: an empty index joins as the other one is */
    for (int p = 0; p < n; p++)
        if (parts[p]->nrows) full = p, nfull++;
    if (nfull <= 1 && !d->join_inner) {
        int64_t nr = full < 0 ? 0 : parts[full]->nrows, first = 0;
        for (int p = 0; p < full; p++)
            first += parts[p]->nrows;
        if (!(sel = dfa_alloc(nr, sizeof *sel))) goto nomem;
        for (int p = 0; p < n; p++) {
            if (!(rows[p] = dfa_alloc(nr, sizeof(int64_t)))) goto nomem;
            for (int64_t i = 0; i < nr; i++)
                rows[p][i] = p == full ? i : -1;
        }
        for (int64_t i = 0; i < nr; i++)
            sel[i] = first + i;
        if (put_rows(d, parts, n, keys, sel, rows, nr, ncols, full, out)) goto nomem;
        ret = 0;
        goto out;
    }
    memset(cnt, 0, (size_t)n * (size_t)ng * sizeof *cnt);
    /* each part's rows grouped by label, in their order (a counting sort) */
    int64_t base = 0;
    for (int p = 0; p < n; p++) {
        int64_t *c = cnt + (int64_t)p * ng, *s = st + (int64_t)p * (ng + 1);
        for (int64_t i = 0; i < parts[p]->nrows; i++)
            c[gid[base + i]]++;
        s[0] = base;
        for (int64_t g = 0; g < ng; g++)
            s[g + 1] = s[g] + c[g];
        int64_t *next = at; /* scratch: where label g's rows go next */
        for (int64_t g = 0; g < ng; g++)
            next[g] = s[g];
        for (int64_t i = 0; i < parts[p]->nrows; i++)
            list[next[gid[base + i]]++] = i;
        base += parts[p]->nrows;
    }
    /* the labels kept, sorted by their first row's keys */
    int64_t nl = 0;
    for (int64_t g = 0; g < ng; g++) {
        bool all = true;
        for (int p = 0; p < n; p++)
            all &= cnt[(int64_t)p * ng + g] > 0;
        if (all || !d->join_inner) order[nl++] = t->grep[g];
    }
    for (int64_t g = 0; g < ng; g++)
        at[t->grep[g]] = g;
    if (dfa_argsort(ks, NULL, order, nl)) goto nomem;
    /* the rows out: each label's product, bounded before anything is
     * allocated for them */
    int64_t nout = 0, most = DF3_WHOLE_MAX_BYTES / 8 / (ncols + parts[0]->nidx + 1);
    for (int64_t i = 0; i < nl; i++) {
        int64_t g = at[order[i]], m = 1;
        for (int p = 0; p < n; p++) {
            int64_t c = cnt[(int64_t)p * ng + g];
            if (c > 1 && m > most / c)
                m = most + 1;
            else if (c > 1)
                m *= c;
        }
        nout += m;
        if (nout > most) {
            ret = errmsg(err, errlen,
                         "concat: aligning repeated index labels gives more than %lld rows, the "
                         "limit of 2 GiB of cells",
                         (long long)most);
            goto out;
        }
    }
    sel = dfa_alloc(nout, sizeof *sel);
    if (!sel) goto nomem;
    for (int p = 0; p < n; p++)
        if (!(rows[p] = dfa_alloc(nout, sizeof(int64_t)))) goto nomem;
    int64_t q = 0;
    for (int64_t i = 0; i < nl; i++) {
        int64_t g = at[order[i]];
        for (int p = 0; p < n; p++)
            digit[p] = 0;
        for (;;) {
            sel[q] = order[i];
            for (int p = 0; p < n; p++) {
                int64_t c = cnt[(int64_t)p * ng + g];
                rows[p][q] = c ? list[st[(int64_t)p * (ng + 1) + g] + digit[p]] : -1;
            }
            q++;
            int p = n - 1; /* the last part's rows turn fastest */
            for (; p >= 0; p--) {
                int64_t c = cnt[(int64_t)p * ng + g];
                if (++digit[p] < (c ? c : 1)) break;
                digit[p] = 0;
            }
            if (p < 0) break;
        }
    }
    if (put_rows(d, parts, n, keys, sel, rows, nout, ncols, -1, out)) goto nomem;
    ret = 0;
    goto out;
nomem:
    ret = errmsg(err, errlen, "concat: out of memory aligning %lld rows", (long long)total);
out:
    for (int p = 0; rows && p < n; p++)
        free(rows[p]);
    free(rows);
    free(cnt);
    free(st);
    free(list);
    free(order);
    free(at);
    free(digit);
    free(sel);
    return ret;
}

/* join "left": the first part's rows as they are, each other part's row of
 * the same label beside them (missing where it has none), as pandas'
 * reindex of the others on the first's index; a label repeated in another
 * part is refused as pandas refuses it. keys: every part's index rows one
 * after the other, gid their labels (ng of them). */
static int join_left(const df_node_t *d, const frame_t *const *parts, int n, const frame_t *keys,
                     const int64_t *gid, int64_t ng, int ncols, frame_t *out, char *err,
                     size_t errlen)
{
    int64_t n0 = parts[0]->nrows, *at = dfa_alloc(ng, sizeof *at),
            *sel = dfa_alloc(n0, sizeof *sel);
    int64_t **rows = calloc((size_t)n + 1, sizeof *rows);
    int ret = -1;
    if (!at || !sel || !rows) goto nomem;
    for (int p = 0; p < n; p++)
        if (!(rows[p] = dfa_alloc(n0, sizeof(int64_t)))) goto nomem;
    for (int64_t q = 0; q < n0; q++)
        sel[q] = rows[0][q] = q;
    int64_t base = n0;
    for (int p = 1; p < n; p++) {
        for (int64_t g = 0; g < ng; g++)
            at[g] = -1;
        for (int64_t i = 0; i < parts[p]->nrows; i++) {
            int64_t g = gid[base + i];
            if (at[g] >= 0) {
                ret = errmsg(err, errlen,
                             "concat: cannot reindex on an axis with duplicate labels (input %d "
                             "repeats an index label; join \"left\" looks each label of the "
                             "first input up in the others)",
                             p);
                goto out;
            }
            at[g] = i;
        }
        for (int64_t q = 0; q < n0; q++)
            rows[p][q] = at[gid[q]];
        base += parts[p]->nrows;
    }
    if (put_rows(d, parts, n, keys, sel, rows, n0, ncols, 0, out)) goto nomem;
    ret = 0;
    goto out;
nomem:
    ret = errmsg(err, errlen, "concat: out of memory aligning %lld rows", (long long)keys->nrows);
out:
    for (int p = 0; rows && p < n; p++)
        free(rows[p]);
    free(rows);
    free(at);
    free(sel);
    return ret;
}

int df3_concat_cols(const df_node_t *d, const frame_t *const *parts, int n, frame_t *out, char *err,
                    size_t errlen)
{
    memset(out, 0, sizeof *out);
    int ncols = 0;
    bool same = true;
    for (int p = 0; p < n; p++) {
        ncols += parts[p]->ncols;
        if (parts[p]->nidx != parts[0]->nidx)
            return errmsg(err, errlen, "concat: indexes of %d and %d levels", parts[0]->nidx,
                          parts[p]->nidx);
        same &= index_equal(parts[0], parts[p]);
    }
    if (ncols != d->ncols)
        return errmsg(err, errlen, "internal: concat of %d columns, %d expected", ncols, d->ncols);
    int nidx = parts[0]->nidx;
    if (d->aligned && !same)
        return errmsg(err, errlen, "internal: concat of chunks whose indexes differ");
    if (same && d->sort_rows == DF3_SORT_ALWAYS)
        return sorted_side_by_side(d, parts, n, ncols, out, err, errlen);
    if (same) {
        int64_t **none = calloc((size_t)n + 1, sizeof *none);
        if (!none || frame_alloc(out, false, parts[0]->nrows, ncols, nidx)) {
            free(none);
            goto nomem;
        }
        out->range_index = parts[0]->range_index;
        for (int k = 0; k < nidx; k++)
            if (fcol_copy(&parts[0]->idx[k], &out->idx[k]) ||
                flabel_set(&out->idx_names[k], parts[0]->idx_names[k].s,
                           parts[0]->idx_names[k].is_int)) {
                free(none);
                goto nomem;
            }
        int rc = put_cols(d, parts, n, none, parts[0]->nrows, out);
        free(none);
        if (rc) goto nomem;
        return 0;
    }
    /* every index's rows one after the other, grouped: the union in order
     * of first appearance */
    int64_t total = 0;
    for (int p = 0; p < n; p++)
        total += parts[p]->nrows;
    frame_t keys = {0};
    const frame_t **kp = calloc((size_t)n + 1, sizeof *kp);
    frame_t *kf = calloc((size_t)n + 1, sizeof *kf);
    int64_t *gid = dfa_alloc(total, sizeof *gid), **rows = calloc((size_t)n + 1, sizeof *rows);
    int64_t *sel = NULL;
    dfa_htab_t t = {0};
    int ret = -1;
    if (!kp || !kf || !gid || !rows) goto nomem2;
    for (int p = 0; p < n; p++) {
        /* a frame whose columns are part p's index levels (borrowed) */
        kf[p] = (frame_t){.nrows = parts[p]->nrows,
                          .ncols = nidx,
                          .cols = parts[p]->idx,
                          .names = parts[p]->idx_names,
                          .nidx = nidx,
                          .idx = parts[p]->idx,
                          .idx_names = parts[p]->idx_names,
                          .view = true};
        kp[p] = &kf[p];
        for (int k = 0; k < nidx; k++)
            if (parts[p]->idx[k].type != parts[0]->idx[k].type) {
                ret = errmsg(err, errlen, "concat: index levels of types %d and %d",
                             parts[0]->idx[k].type, parts[p]->idx[k].type);
                goto done;
            }
    }
    if (frame_concat(kp, n, &keys)) goto nomem2;
    dfa_keys_t ks = {.nk = nidx};
    for (int k = 0; k < nidx; k++)
        ks.k[k] = &keys.cols[k];
    if (dfa_group(&ks, total, NULL, gid, &t)) goto nomem2;
    if (d->join_left) {
        ret = join_left(d, parts, n, &keys, gid, t.ngroups, ncols, out, err, errlen);
        goto done;
    }
    if (d->sort_rows == DF3_SORT_DIFFERING) {
        ret = join_differing(d, parts, n, &keys, &ks, gid, &t, ncols, out, err, errlen);
        goto done;
    }
    int64_t ng = t.ngroups;
    for (int p = 0; p < n; p++) {
        rows[p] = dfa_alloc(ng, sizeof(int64_t));
        if (!rows[p]) goto nomem2;
        for (int64_t g = 0; g < ng; g++)
            rows[p][g] = -1;
    }
    int64_t at = 0;
    for (int p = 0; p < n; p++)
        for (int64_t i = 0; i < parts[p]->nrows; i++, at++) {
            int64_t g = gid[at];
            if (rows[p][g] >= 0) {
                ret = errmsg(err, errlen,
                             "concat: Reindexing only valid with uniquely valued Index objects "
                             "(input %d repeats an index value; the indexes differ, so the rows "
                             "are aligned on them)",
                             p);
                goto done;
            }
            rows[p][g] = i;
        }
    /* the result's rows: every group (outer) or those of every part (inner) */
    sel = dfa_alloc(ng, sizeof *sel);
    if (!sel) goto nomem2;
    int64_t nout = 0;
    for (int64_t g = 0; g < ng; g++) {
        bool all = true;
        for (int p = 0; p < n; p++)
            all &= rows[p][g] >= 0;
        if (all || !d->join_inner) sel[nout++] = g;
    }
    for (int p = 0; p < n; p++) {
        for (int64_t q = 0; q < nout; q++)
            rows[p][q] = rows[p][sel[q]];
    }
    for (int64_t q = 0; q < nout; q++)
        sel[q] = t.grep[sel[q]];
    if (d->sort_rows != DF3_SORT_NONE && sort_union(&ks, sel, rows, n, nout, total)) goto nomem2;
    if (put_rows(d, parts, n, &keys, sel, rows, nout, ncols, -1, out)) goto nomem2;
    ret = 0;
    goto done;
nomem2:
    ret = errmsg(err, errlen, "concat: out of memory aligning %lld rows", (long long)total);
done:
    if (ret) frame_free(out);
    frame_free(&keys);
    dfa_htab_free(&t);
    for (int p = 0; rows && p < n; p++)
        free(rows[p]);
    free(rows);
    free(kp);
    free(kf);
    free(gid);
    free(sel);
    return ret;
nomem:
    frame_free(out);
    return errmsg(err, errlen, "concat: out of memory");
}

int df3_whole_check(const graph_node_t *n, const dfx_in_t *ins, int n_in, char *err, size_t errlen)
{
    uint64_t total = 0;
    for (int k = 0; k < n_in; k++)
        total += ins[k].len;
    if (total > (uint64_t)DF3_WHOLE_MAX_BYTES)
        return errmsg(err, errlen,
                      "%s reads its whole input in one job: %llu bytes, more than the limit of "
                      "%lld (2 GiB)",
                      op_name(n->op), (unsigned long long)total, (long long)DF3_WHOLE_MAX_BYTES);
    return 0;
}

int df3_run_multi(const graph_node_t *n, const job_t *j, const dfx_in_t *ins, frame_t *out,
                  char *err, size_t errlen)
{
    if (n->op == OP_DF_READ_JSON) {
        if (df3_read_json(n->df->path, n->df->pv_agg, DF3_JSON_MAX_BYTES, out, err, errlen))
            return -1;
        /* the schema validated is what later steps rely on */
        const df_node_t *d = n->df;
        bool same =
            out->ncols == d->ncols && out->nrows == d->nrows && out->idx[0].type == d->idx[0].type;
        for (int k = 0; same && k < d->ncols; k++)
            same = out->cols[k].type == d->cols[k].type && out->names[k].s && d->cols[k].name &&
                   !strcmp(out->names[k].s, d->cols[k].name);
        if (!same) {
            frame_free(out);
            return errmsg(err, errlen,
                          "read_json: the file changed since the document was validated");
        }
        return 0;
    }
    if (df3_whole_check(n, ins, j->n_in, err, errlen)) return -1;
    int nin = 0;
    for (int q = 0; q < n->n_in; q++)
        nin += n->in[q].node >= 0;
    if (nin < 1 || j->off[nin] != j->n_in)
        return errmsg(err, errlen, "internal: a job of %d inputs for %d frames", j->n_in, nin);
    frame_t *v = calloc((size_t)j->n_in + 1, sizeof *v), *all = calloc((size_t)nin, sizeof *all);
    const frame_t **pp = calloc((size_t)j->n_in + 1, sizeof *pp);
    int made = 0, viewed = 0, rc = -1;
    if (!v || !all || !pp) {
        errmsg(err, errlen, "out of memory");
        goto done;
    }
    for (int k = 0; k < j->n_in; k++, viewed++)
        if (frame_view(ins[k].data, ins[k].len, &v[k], err, errlen)) goto done;
    for (int q = 0; q < nin; q++, made++) {
        int64_t a = j->off[q], b = j->off[q + 1];
        if (a < 0 || b <= a || b > j->n_in) {
            errmsg(err, errlen, "internal: input %d has chunks %lld..%lld", q, (long long)a,
                   (long long)b);
            goto done;
        }
        for (int64_t k = a; k < b; k++)
            pp[k - a] = &v[k];
        if (dfx_concat(pp, (int)(b - a), &all[q], err, errlen)) goto done;
    }
    for (int q = 0; q < nin; q++)
        pp[q] = &all[q];
    switch (n->op) {
    case OP_DF_CONCAT:
        rc = df3_concat_cols(n->df, pp, nin, out, err, errlen);
        break;
    default:
        rc = errmsg(err, errlen, "internal: no multi-input step for %s", op_name(n->op));
        break;
    }
done:
    for (int q = 0; q < made; q++)
        frame_free(&all[q]);
    for (int k = 0; k < viewed; k++)
        frame_free(&v[k]);
    free(v);
    free(all);
    free(pp);
    return rc;
}

/* ------------------------------------------------------------------ pivot_table */

static double agg_cell(int agg, const fcol_t *c, const int64_t *rows, int64_t n)
{
    double acc = agg == DF3_AGG_MIN ? INFINITY : agg == DF3_AGG_MAX ? -INFINITY : 0;
    int64_t cnt = 0;
    for (int64_t q = 0; q < n; q++) {
        if (fcol_is_na(c, rows[q])) continue;
        cnt++;
        if (agg == DF3_AGG_COUNT) continue;
        double x = dfa_num(c, rows[q]);
        if (agg == DF3_AGG_MIN)
            acc = x < acc ? x : acc;
        else if (agg == DF3_AGG_MAX)
            acc = x > acc ? x : acc;
        else
            acc += x;
    }
    switch (agg) {
    case DF3_AGG_COUNT:
        return (double)cnt;
    case DF3_AGG_SUM:
        return acc;
    case DF3_AGG_MEAN:
        return cnt ? acc / (double)cnt : NAN;
    default:
        return cnt ? acc : NAN;
    }
}

/* int64 sums are exact in int64 (a double loses bits past 2^53) */
static int64_t sum_i64(const fcol_t *c, const int64_t *rows, int64_t n)
{
    uint64_t acc = 0;
    for (int64_t q = 0; q < n; q++)
        acc += (uint64_t)((const int64_t *)c->data)[rows[q]];
    return (int64_t)acc;
}

static bool integral(double x)
{
    return x == x && x >= -9007199254740992.0 && x <= 9007199254740992.0 && x == (double)(int64_t)x;
}

/* a column label from row r of the columns key kc (int64 or string) */
static int key_label(const fcol_t *kc, int64_t r, flabel_t *l)
{
    if (kc->type != FT_STRING) {
        char b[40];
        snprintf(b, sizeof b, "%lld", (long long)((const int64_t *)kc->data)[r]);
        return flabel_set(l, b, true);
    }
    int64_t len;
    const char *sv = fcol_str(kc, r, &len);
    char *z = malloc((size_t)len + 1);
    if (!z) return -1;
    memcpy(z, sv, (size_t)len);
    z[len] = 0;
    int rc = flabel_set(l, z, false);
    free(z);
    return rc;
}

int df3_pivot(const df_node_t *d, const frame_t *in, frame_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int nk = d->nkey, nv = d->nsel, agg = d->pv_agg;
    bool has_col = d->pv_col >= 0;
    int64_t n = in->nrows;
    if (nk < 1 || nk + 1 > DF_MAX_KEYS || nv < 1)
        return errmsg(err, errlen, "internal: pivot_table of %d keys, %d values", nk, nv);
    /* the combos of index keys (and the columns key) of rows without a missing key */
    dfa_keys_t ks = {.nk = nk + has_col}, ik = {.nk = nk}, ck = {.nk = 1};
    for (int k = 0; k < nk; k++)
        ks.k[k] = ik.k[k] = &in->cols[d->key[k]];
    if (has_col) ks.k[nk] = ck.k[0] = &in->cols[d->pv_col];
    uint8_t *skip = dfa_alloc(n, 1);
    int64_t *gid = dfa_alloc(n, sizeof *gid), *start = NULL, *grows = NULL, *rowg = NULL;
    int64_t *irow = NULL, *crow = NULL, *iord = NULL, *cord = NULL, *ipos = NULL, *cpos = NULL;
    double *val = NULL;
    bool *isf = NULL;
    dfa_htab_t t = {0}, ti = {0}, tc = {0};
    int ret = -1;
    if (!skip || !gid) goto nomem;
    for (int64_t i = 0; i < n; i++) {
        skip[i] = 0;
        for (int k = 0; k < ks.nk; k++)
            skip[i] |= fcol_is_na(ks.k[k], i);
    }
    if (dfa_group(&ks, n, skip, gid, &t)) goto nomem;
    int64_t ng = t.ngroups;
    start = dfa_alloc(ng + 1, sizeof *start);
    grows = dfa_alloc(n, sizeof *grows);
    val = dfa_alloc(ng * nv + 1, sizeof *val);
    isf = dfa_alloc(nv + 1, sizeof *isf);
    if (!start || !grows || !val || !isf) goto nomem;
    memset(start, 0, sizeof *start * (size_t)(ng + 1));
    for (int64_t i = 0; i < n; i++)
        if (gid[i] >= 0) start[gid[i] + 1]++;
    for (int64_t g = 0; g < ng; g++)
        start[g + 1] += start[g];
    for (int64_t i = 0; i < n; i++)
        if (gid[i] >= 0) grows[start[gid[i]]++] = i;
    for (int64_t g = ng; g > 0; g--)
        start[g] = start[g - 1];
    start[0] = 0;
    /* the aggregated values (pandas' groupby(index + columns).agg) */
    for (int v = 0; v < nv; v++) {
        const fcol_t *c = &in->cols[d->sel[v]];
        isf[v] = agg == DF3_AGG_MEAN || (c->type == FT_FLOAT64 && agg != DF3_AGG_COUNT);
        for (int64_t g = 0; g < ng; g++) {
            const int64_t *r = grows + start[g];
            int64_t m = start[g + 1] - start[g];
            val[g * nv + v] = agg == DF3_AGG_SUM && c->type == FT_INT64 ? (double)sum_i64(c, r, m)
                                                                        : agg_cell(agg, c, r, m);
        }
    }
    /* dropna: combos whose values are all NaN go; then an int64 value column
     * whose results are all integral is int64 again (pandas' downcast) */
    int64_t kept = 0;
    rowg = dfa_alloc(ng, sizeof *rowg);
    if (!rowg) goto nomem;
    for (int64_t g = 0; g < ng; g++) {
        bool all = true;
        for (int v = 0; v < nv; v++)
            all &= val[g * nv + v] != val[g * nv + v];
        if (!all) rowg[kept++] = g;
    }
    for (int v = 0; v < nv; v++) {
        if (!isf[v] || in->cols[d->sel[v]].type != FT_INT64) continue;
        bool ok = true;
        for (int64_t q = 0; q < kept && ok; q++)
            ok = integral(val[rowg[q] * nv + v]);
        if (ok) isf[v] = false;
    }
    /* the table's rows: the index keys' combos, sorted; its columns: the
     * columns key's values, sorted (or the values, sorted by name) */
    irow = dfa_alloc(n, sizeof *irow); /* index group of each row */
    crow = dfa_alloc(n, sizeof *crow); /* columns group of each row */
    if (!irow || !crow || dfa_group(&ik, n, skip, irow, &ti)) goto nomem;
    if (has_col && dfa_group(&ck, n, skip, crow, &tc)) goto nomem;
    int64_t ni = ti.ngroups, nc = has_col ? tc.ngroups : 1;
    ipos = dfa_alloc(ni + 1, sizeof *ipos);
    cpos = dfa_alloc(nc + 1, sizeof *cpos);
    iord = dfa_alloc(ni + 1, sizeof *iord);
    cord = dfa_alloc(nc + 1, sizeof *cord);
    if (!ipos || !cpos || !iord || !cord) goto nomem;
    for (int64_t q = 0; q < ni; q++)
        ipos[q] = -1;
    for (int64_t q = 0; q < nc; q++)
        cpos[q] = has_col ? -1 : 0;
    for (int64_t q = 0; q < kept; q++) {
        int64_t r = t.grep[rowg[q]];
        ipos[irow[r]] = 0;
        if (has_col) cpos[crow[r]] = 0;
    }
    int64_t mi = 0, mc = 0;
    for (int64_t q = 0; q < ni; q++)
        if (ipos[q] == 0) iord[mi++] = ti.grep[q];
    for (int64_t q = 0; has_col && q < nc; q++)
        if (cpos[q] == 0) cord[mc++] = tc.grep[q];
    if (!has_col) mc = nv;
    if (dfa_argsort(&ik, NULL, iord, mi) || (has_col && dfa_argsort(&ck, NULL, cord, mc)))
        goto nomem;
    for (int64_t q = 0; q < mi; q++)
        ipos[irow[iord[q]]] = q;
    for (int64_t q = 0; has_col && q < mc; q++)
        cpos[crow[cord[q]]] = q;
    /* the cells, column after column; NaN where no combo */
    int64_t ncell;
    if (__builtin_mul_overflow(mi, mc, &ncell) || ncell > DF3_MAX_CELLS) {
        ret = errmsg(err, errlen,
                     "pivot_table: %lld rows by %lld columns is too large (at most 2^28 cells, "
                     "2 GiB of float64)",
                     (long long)mi, (long long)mc);
        goto done;
    }
    double *cell = dfa_alloc(ncell + 1, sizeof *cell);
    bool *cf = dfa_alloc(mc + 1, sizeof *cf);
    if (!cell || !cf) {
        free(cell);
        free(cf);
        goto nomem;
    }
    for (int64_t q = 0; q < ncell; q++)
        cell[q] = NAN;
    for (int64_t q = 0; q < kept; q++) {
        int64_t g = rowg[q], r = t.grep[g];
        for (int v = 0; v < nv; v++) {
            int64_t col = has_col ? cpos[crow[r]] : v;
            if (has_col && v > 0) break;
            cell[col * mi + ipos[irow[r]]] = val[g * nv + v];
        }
    }
    int ncol_out = 0;
    bool *keep = dfa_alloc(mc + 1, sizeof *keep);
    if (!keep) {
        free(cell);
        free(cf);
        goto nomem;
    }
    /* unstack makes one block: a missing cell anywhere makes every column float */
    bool nan_table = false;
    for (int64_t q = 0; has_col && q < ncell && !nan_table; q++)
        nan_table = cell[q] != cell[q];
    for (int64_t c = 0; c < mc; c++) {
        const double *x = cell + c * mi;
        bool all_nan = true, all_int = true, any_nan = nan_table;
        for (int64_t i = 0; i < mi; i++) {
            if (x[i] != x[i]) {
                if (d->pv_has_fill) {
                    cell[c * mi + i] = d->pv_fill;
                } else {
                    any_nan = true;
                    continue;
                }
            }
            all_nan = false;
            all_int &= integral(x[i]);
        }
        int v = has_col ? 0 : (int)c;
        /* float: a float result, a missing cell; fill_value's downcast="infer"
         * makes integral floats int64 */
        cf[c] = (isf[v] || any_nan) && !(d->pv_has_fill && all_int);
        keep[c] = !all_nan || mi == 0;
        ncol_out += keep[c];
    }
    if (frame_alloc(out, false, mi, ncol_out, nk)) {
        free(cell);
        free(cf);
        free(keep);
        goto nomem;
    }
    bool bad = false;
    for (int k = 0; k < nk && !bad; k++)
        bad = dfa_take_col(ik.k[k], iord, mi, false, &out->idx[k]) ||
              flabel_set(&out->idx_names[k], in->names[d->key[k]].s, in->names[d->key[k]].is_int);
    int at = 0;
    for (int64_t c = 0; c < mc && !bad; c++) {
        if (!keep[c]) continue;
        fcol_t *o = &out->cols[at];
        bad = fcol_alloc(o, cf[c] ? FT_FLOAT64 : FT_INT64, mi, 0, false) != 0;
        for (int64_t i = 0; i < mi && !bad; i++) {
            double x = cell[c * mi + i];
            if (cf[c])
                ((double *)o->data)[i] = x;
            else
                ((int64_t *)o->data)[i] = (int64_t)x;
        }
        if (bad) break;
        if (has_col) {
            bad = key_label(ck.k[0], cord[c], &out->names[at]) != 0;
        } else {
            const flabel_t *l = &in->names[d->sel[c]];
            bad = flabel_set(&out->names[at], l->s, l->is_int) != 0;
        }
        at++;
    }
    /* exact int64 sums: the doubles above hold them only up to 2^53 */
    for (int64_t c = 0, a2 = 0; c < mc && !bad; c++) {
        if (!keep[c]) continue;
        int v = has_col ? 0 : (int)c;
        const fcol_t *src = &in->cols[d->sel[v]];
        if (!cf[c] && agg == DF3_AGG_SUM && src->type == FT_INT64)
            for (int64_t q = 0; q < kept; q++) {
                int64_t g = rowg[q], r = t.grep[g];
                if (has_col && cpos[crow[r]] != c) continue;
                ((int64_t *)out->cols[a2].data)[ipos[irow[r]]] =
                    sum_i64(src, grows + start[g], start[g + 1] - start[g]);
            }
        a2++;
    }
    free(cell);
    free(cf);
    free(keep);
    if (bad) goto nomem;
    ret = 0;
    goto done;
nomem:
    ret = errmsg(err, errlen, "pivot_table: out of memory over %lld rows", (long long)n);
done:
    if (ret) frame_free(out);
    dfa_htab_free(&t);
    dfa_htab_free(&ti);
    dfa_htab_free(&tc);
    free(skip);
    free(gid);
    free(start);
    free(grows);
    free(rowg);
    free(irow);
    free(crow);
    free(iord);
    free(cord);
    free(ipos);
    free(cpos);
    free(val);
    free(isf);
    return ret;
}

/* ------------------------------------------------------------------ pivot */

/* o := c with one row more, at c->n, holding the fill value l (a number
 * in an int64 or float64 column: an int64 one is float64 when l is not an
 * integer; a bool in a bool column; a string in a string column:
 * graph_df.c checked that l fits). */
static int with_fill_row(const fcol_t *c, const df_lit_t *l, fcol_t *o)
{
    int64_t n = c->n;
    fcol_t w = {0};
    if (c->type == FT_INT64 && c->unit == FU_NONE && !l->is_int) {
        if (fcol_widen(c, &w)) return -1;
        c = &w;
    }
    int64_t ls = c->type == FT_STRING ? (int64_t)strlen(l->s) : 0;
    int64_t nb = c->type == FT_STRING ? c->offsets[n] + ls + 1 : 0;
    int rc = fcol_alloc(o, (ftype_t)c->type, n + 1, nb, c->valid != NULL);
    if (rc == 0) {
        o->unit = c->unit;
        switch (c->type) {
        case FT_INT64:
            memcpy(o->data, c->data, (size_t)n * sizeof(int64_t));
            ((int64_t *)o->data)[n] = l->i;
            break;
        case FT_FLOAT64:
            memcpy(o->data, c->data, (size_t)n * sizeof(double));
            ((double *)o->data)[n] = l->f;
            break;
        case FT_BOOL:
            memcpy(o->data, c->data, (size_t)n);
            ((uint8_t *)o->data)[n] = l->i != 0;
            break;
        default:
            memcpy(o->offsets, c->offsets, (size_t)(n + 1) * sizeof(int64_t));
            memcpy(o->bytes, c->bytes, (size_t)c->offsets[n]);
            memcpy(o->bytes + c->offsets[n], l->s, (size_t)ls);
            o->offsets[n + 1] = c->offsets[n] + ls;
            o->bytes[o->offsets[n + 1]] = 0;
            break;
        }
        if (o->valid) {
            memcpy(o->valid, c->valid, (size_t)n);
            o->valid[n] = 1;
        }
    }
    fcol_free(&w);
    return rc;
}

int df3_pivot_reshape(const df_node_t *d, op_t op, const frame_t *in, frame_t *out, char *err,
                      size_t errlen)
{
    memset(out, 0, sizeof *out);
    const char *what = op_name(op) + strlen("dataframe.");
    int nk = d->nkey;
    int64_t n = in->nrows;
    if (nk < 1 || nk + 1 > DF_MAX_KEYS || d->nsel != 1 || d->pv_col < 0)
        return errmsg(err, errlen, "internal: %s of %d keys, %d values", what, nk, d->nsel);
    dfa_keys_t ik = {.nk = nk}, ck = {.nk = 1};
    for (int k = 0; k < nk; k++)
        ik.k[k] = &in->cols[d->key[k]];
    ck.k[0] = &in->cols[d->pv_col];
    bool unstack = op == OP_DF_UNSTACK;
    const df_lit_t *fill = d->nlit == 1 && d->lits && d->lits[0].kind != DFL_NAN ? d->lits : NULL;
    const fcol_t *val = &in->cols[d->sel[0]];
    fcol_t ext = {0}; /* val and the fill value at row n */
    /* a missing key would be a label of its own in pandas (NaN); refused */
    for (int k = 0; k <= nk; k++) {
        const fcol_t *c = k < nk ? ik.k[k] : ck.k[0];
        for (int64_t i = 0; i < n; i++)
            if (fcol_is_na(c, i)) {
                const flabel_t *l = &in->names[k < nk ? d->key[k] : d->pv_col];
                return errmsg(err, errlen,
                              "%s: key %s %s has a missing value (row %lld); pandas "
                              "makes it a NaN label, which is not supported: dropna first",
                              what, unstack ? "level" : "column", l->s ? l->s : "(unnamed)",
                              (long long)i);
            }
    }
    int64_t *irow = dfa_alloc(n, sizeof *irow), *crow = dfa_alloc(n, sizeof *crow);
    int64_t *iord = NULL, *cord = NULL, *ipos = NULL, *cpos = NULL, *cell = NULL;
    dfa_htab_t ti = {0}, tc = {0};
    int ret = -1;
    if (!irow || !crow || dfa_group(&ik, n, NULL, irow, &ti) || dfa_group(&ck, n, NULL, crow, &tc))
        goto nomem;
    int64_t mi = ti.ngroups, mc = tc.ngroups, ncell;
    if (__builtin_mul_overflow(mi, mc, &ncell) || ncell > DF3_MAX_CELLS) {
        ret = errmsg(err, errlen,
                     "%s: %lld rows by %lld columns is too large (at most 2^28 cells, 2 GiB "
                     "of 8-byte values)",
                     what, (long long)mi, (long long)mc);
        goto done;
    }
    iord = dfa_alloc(mi + 1, sizeof *iord);
    cord = dfa_alloc(mc + 1, sizeof *cord);
    ipos = dfa_alloc(mi + 1, sizeof *ipos);
    cpos = dfa_alloc(mc + 1, sizeof *cpos);
    cell = dfa_alloc(ncell + 1, sizeof *cell);
    if (!iord || !cord || !ipos || !cpos || !cell) goto nomem;
    /* rows and columns sorted by their keys */
    memcpy(iord, ti.grep, (size_t)mi * sizeof *iord);
    memcpy(cord, tc.grep, (size_t)mc * sizeof *cord);
    if (dfa_argsort(&ik, NULL, iord, mi) || dfa_argsort(&ck, NULL, cord, mc)) goto nomem;
    for (int64_t q = 0; q < mi; q++)
        ipos[irow[iord[q]]] = q;
    for (int64_t q = 0; q < mc; q++)
        cpos[crow[cord[q]]] = q;
    /* each cell's row: one at most, as pandas' unstack */
    for (int64_t q = 0; q < ncell; q++)
        cell[q] = -1;
    for (int64_t i = 0; i < n; i++) {
        int64_t *at = &cell[cpos[crow[i]] * mi + ipos[irow[i]]];
        if (*at >= 0) {
            ret =
                errmsg(err, errlen,
                       "%s: Index contains duplicate entries, cannot reshape (rows %lld and "
                       "%lld have the same %s)",
                       what, (long long)*at, (long long)i,
                       unstack ? "labels" : "index and columns keys; pivot_table aggregates them");
            goto done;
        }
        *at = i;
    }
    /* unstack makes one block: a cell no row reaches makes every int64
     * column float64, every bool column bools with missing values; with a
     * fill value (unstack's) such cells take it, the value column's type
     * kept (an int64 one float64 when the fill is no integer) */
    bool holes = ncell > n;
    if (holes && fill) {
        if (with_fill_row(val, fill, &ext)) goto nomem;
        val = &ext;
        for (int64_t q = 0; q < ncell; q++)
            if (cell[q] < 0) cell[q] = n;
        holes = false;
    }
    if (frame_alloc(out, false, mi, (int)mc, nk)) goto nomem;
    for (int k = 0; k < nk; k++)
        if (dfa_take_col(ik.k[k], iord, mi, false, &out->idx[k]) ||
            flabel_set(&out->idx_names[k], in->names[d->key[k]].s, in->names[d->key[k]].is_int))
            goto nomem;
    for (int64_t c = 0; c < mc; c++) {
        fcol_t *o = &out->cols[c];
        if (dfa_take_col(val, cell + c * mi, mi, holes, o) ||
            key_label(ck.k[0], cord[c], &out->names[c]))
            goto nomem;
        if (holes && o->type == FT_INT64 && o->unit == FU_NONE) {
            fcol_t w;
            if (fcol_widen(o, &w)) goto nomem;
            fcol_free(o);
            *o = w;
        }
        if (holes && o->type == FT_BOOL && !o->valid) {
            if (!(o->valid = malloc((size_t)mi + 1))) goto nomem;
            memset(o->valid, 1, (size_t)mi + 1);
        }
    }
    ret = 0;
    goto done;
nomem:
    ret = errmsg(err, errlen, "%s: out of memory over %lld rows", what, (long long)n);
done:
    if (ret) frame_free(out);
    fcol_free(&ext);
    dfa_htab_free(&ti);
    dfa_htab_free(&tc);
    free(irow);
    free(crow);
    free(iord);
    free(cord);
    free(ipos);
    free(cpos);
    free(cell);
    return ret;
}

/* ------------------------------------------------------------------ groupby_* */

/* a group's rows r[0..m) in order, rows in no group get nothing (their
 * output was set missing before) */
typedef struct {
    const int64_t *gid, *start, *grows;
    int64_t ng, n;
    bool orphans;
} gb_groups_t;

/* shift(n), ffill and bfill (limit n, -1: none; f 0: no fill): the row
 * each row takes its value from (-1: none) */
static void gb_src_rows(int f, int64_t n, const fcol_t *c, const gb_groups_t *G, int64_t *src)
{
    bool same = (f == DF3_TF_SHIFT && n == 0) || f == 0; /* every row as it is */
    for (int64_t i = 0; i < G->n; i++)
        src[i] = same ? i : -1;
    if (same) return;
    for (int64_t g = 0; g < G->ng; g++) {
        const int64_t *r = G->grows + G->start[g];
        int64_t m = G->start[g + 1] - G->start[g];
        if (f == DF3_TF_SHIFT) {
            for (int64_t q = 0; q < m; q++) {
                int64_t p = q - n; /* |n| <= 2^62 */
                src[r[q]] = p >= 0 && p < m ? r[p] : -1;
            }
            continue;
        }
        /* ffill forward, bfill backward: the last present row within limit */
        bool fwd = f == DF3_TF_FFILL;
        int64_t last = -1;
        for (int64_t k = 0; k < m; k++) {
            int64_t q = fwd ? k : m - 1 - k;
            if (!fcol_is_na(c, r[q])) {
                last = q;
                src[r[q]] = r[q];
            } else if (last >= 0 && (n < 0 || (fwd ? q - last : last - q) <= n)) {
                src[r[q]] = r[last];
            }
        }
    }
}

/* ------------------------------------------------------------------ groupby scans */

/* cumsum, cumprod, cummin, cummax and cumcount chunk by chunk: each
 * group's running state after the rows before (a carry frame: the keys,
 * then per value column the four state columns below, one row per group
 * seen so far), the chunk's rows folded in, in order (cumcount descending:
 * backwards). The state is pandas 1.5's loop variables, so the values are
 * those of one pass over every row: group_cumsum's Kahan sum and
 * compensation, group_cumprod_float64's product (int64 through float64),
 * group_cummin_max's extreme, the count of rows. */
enum { SC_X, SC_COMP, SC_I, SC_SEEN, SC_NCOL }; /* float64, float64, int64, int64 */

bool df3_gb_scans(const df_node_t *d)
{
    int f = d->pv_agg;
    return f < DF3_TF_CUMSUM || f == DF3_TF_CUMSUM || f == DF3_TF_CUMPROD || f == DF3_TF_CUMMIN ||
           f == DF3_TF_CUMMAX || f == DF3_TF_CUMCOUNT || f == DF3_TF_NGROUP;
}

typedef struct {
    double *x, *comp;  /* Kahan sum (or extreme, or product), its compensation */
    int64_t *i, *seen; /* int64 sum or extreme; values seen (cumcount: rows) */
} scan_state_t;

/* out: a frame of in's rows and index (its labels), ncols columns to fill;
 * 0, or -1 when out of memory */
static int rows_of(const frame_t *in, bool series, int ncols, frame_t *out)
{
    return frame_alloc(out, series, in->nrows, ncols, in->nidx) || frame_copy_index(in, out) ? -1
                                                                                             : 0;
}

/* groupby_transform's statistics (sum ... var) fold every present value
 * into its group's state as pandas 1.5's group_add and group_mean (Kahan
 * sum and compensation in x, comp), group_var (Welford's mean in x, the
 * sum of squared deviations in comp), group_min and group_max, the count
 * in seen; int64 sums and extremes exactly in i. */
/* Row i of column c as an integer: an int64 (or bool) chunk's value, or
 * a float64 chunk's of an int64 column (intv: dfgraph.h's gb_intv) */
static int64_t int_at(const fcol_t *c, int64_t i)
{
    if (c->type == FT_FLOAT64) return (int64_t)((const double *)c->data)[i];
    return c->type == FT_BOOL ? ((const uint8_t *)c->data)[i] : ((const int64_t *)c->data)[i];
}

/* Whether chunk column c of a float64 column is an int64 chunk (a right
 * or outer merge's column of the side that may get missing values, int64
 * in a chunk where none went missing) */
static bool int_of_float(const fcol_t *c, bool intv)
{
    return !intv && c->type == FT_INT64 && c->unit == FU_NONE;
}

static void agg_fold(int f, const fcol_t *c, bool intv, const int64_t *gid, int64_t n,
                     scan_state_t st)
{
    /* datetimes' NaT is missing; an int64 column's float64 chunks hold
     * integers, folded as its int64 chunks are; a float64 column's int64
     * chunks are folded as its float64 ones */
    bool ints = (c->type == FT_INT64 && c->unit != FU_DATE && !int_of_float(c, intv)) ||
                (intv && c->type == FT_FLOAT64);
    for (int64_t i = 0; i < n; i++) {
        int64_t g = gid[i];
        if (g < 0 || fcol_is_na(c, i)) continue;
        int64_t k = ++st.seen[g];
        if (f == DF3_AGG_COUNT) continue; /* of any column, strings too */
        if (ints && (f == DF3_AGG_SUM || f == DF3_AGG_MIN || f == DF3_AGG_MAX)) {
            int64_t x = int_at(c, i);
            if (f == DF3_AGG_SUM)
                st.i[g] = (int64_t)((uint64_t)st.i[g] + (uint64_t)x); /* wraps, as numpy's */
            else if (k == 1 || (f == DF3_AGG_MIN ? x < st.i[g] : x > st.i[g]))
                st.i[g] = x;
            continue;
        }
        double x = dfa_num(c, i), m = st.x[g];
        if (f == DF3_AGG_SUM || f == DF3_AGG_MEAN) {
            double y = x - st.comp[g], t = m + y;
            st.comp[g] = (t - m) - y;
            st.x[g] = t;
        } else if (f == DF3_AGG_STD || f == DF3_AGG_VAR) {
            st.x[g] = m + (x - m) / (double)k;
            st.comp[g] += (x - st.x[g]) * (x - m);
        } else if (f == DF3_AGG_MIN || f == DF3_AGG_MAX) {
            if (k == 1 || (f == DF3_AGG_MIN ? x < m : x > m)) st.x[g] = x;
        }
    }
}

/* each row its group's statistic from the state (NaN for rows in no
 * group): int64 for count and an int64 column's sum, min and max when no
 * row is in no group, else float64 */
static int agg_out(int f, const fcol_t *c, bool intv, const int64_t *gid, int64_t n, bool orphans,
                   scan_state_t st, fcol_t *o)
{
    if (c->type == FT_INT64 && (c->unit == FU_NS || c->unit == FU_TD) &&
        (f == DF3_AGG_SUM || f == DF3_AGG_MIN || f == DF3_AGG_MAX || f == DF3_AGG_MEAN)) {
        /* datetimes and timedeltas keep their dtype: NaT for rows in no
         * group and groups of no value (a sum of none is 0), the mean
         * truncated to whole nanoseconds */
        if (fcol_alloc(o, FT_INT64, n, 0, false)) return -1;
        o->unit = c->unit;
        int64_t *w = o->data;
        for (int64_t i = 0; i < n; i++) {
            int64_t g = gid[i], k = g >= 0 ? st.seen[g] : 0;
            w[i] = g < 0               ? INT64_MIN
                   : f == DF3_AGG_SUM  ? st.i[g]
                   : k == 0            ? INT64_MIN
                   : f == DF3_AGG_MEAN ? dfa_ns_of_double(st.x[g] / (double)k)
                                       : st.i[g];
        }
        return 0;
    }
    bool exact =
        ((c->type == FT_INT64 && c->unit == FU_NONE && intv) || (intv && c->type == FT_FLOAT64)) &&
        (f == DF3_AGG_SUM || f == DF3_AGG_MIN || f == DF3_AGG_MAX);
    /* a float64 chunk's results are float64 (the column is, in pandas) */
    bool ints = !orphans && (f == DF3_AGG_COUNT || (exact && c->type == FT_INT64));
    if (fcol_alloc(o, ints ? FT_INT64 : FT_FLOAT64, n, 0, false)) return -1;
    for (int64_t i = 0; i < n; i++) {
        int64_t g = gid[i], k = g >= 0 ? st.seen[g] : 0;
        if (ints) {
            ((int64_t *)o->data)[i] = f == DF3_AGG_COUNT ? k : st.i[g];
            continue;
        }
        double v;
        if (g < 0)
            v = NAN;
        else if (f == DF3_AGG_COUNT)
            v = (double)k;
        else if (exact)
            v = k || f == DF3_AGG_SUM ? (double)st.i[g] : NAN;
        else if (f == DF3_AGG_SUM)
            v = st.x[g];
        else if (f == DF3_AGG_MEAN)
            v = k ? st.x[g] / (double)k : NAN;
        else if (f == DF3_AGG_STD || f == DF3_AGG_VAR)
            v = k < 2              ? NAN
                : f == DF3_AGG_VAR ? st.comp[g] / (double)(k - 1)
                                   : sqrt(st.comp[g] / (double)(k - 1));
        else
            v = k ? st.x[g] : NAN;
        ((double *)o->data)[i] = v;
    }
    return 0;
}

/* the type of column c's result in this chunk: float64 where a row of
 * int64 (or a bool's cumsum) gets no value (orphans) or an int64 product
 * leaves int64's range (wide); bools with missing values where a bool row
 * gets none */
static ftype_t scan_type(int f, const fcol_t *c, bool intv, bool orphans, bool wide)
{
    bool date = c->unit != FU_NONE, isb = c->type == FT_BOOL;
    if (c->type == FT_FLOAT64 || int_of_float(c, intv) ||
        ((orphans || wide) && !date && !(isb && f != DF3_TF_CUMSUM)))
        return FT_FLOAT64;
    return isb && f != DF3_TF_CUMSUM ? FT_BOOL : FT_INT64;
}

/* column c's results (o may be NULL: the state alone), folding each row
 * into its group's state st */
static int scan_col(const df_node_t *d, const fcol_t *c, bool intv, const int64_t *gid, int64_t n,
                    bool orphans, scan_state_t st, int64_t ng, fcol_t *o)
{
    int f = d->pv_agg;
    /* an int64 column's float64 chunks (integers and NaN) run as its int64
     * chunks do, so the state carried between them is one */
    bool isf = (c->type == FT_FLOAT64 && !intv) || int_of_float(c, intv), date = c->unit != FU_NONE;
    bool wide = false;
    if (o && f == DF3_TF_CUMPROD && c->type == FT_INT64 && !date && !isf) {
        /* an int64 product leaving int64's range makes the chunk float64 */
        double *p = dfa_alloc(ng + 1, sizeof *p);
        if (!p) return -1;
        memcpy(p, st.x, sizeof *p * (size_t)ng);
        for (int64_t i = 0; i < n && !wide; i++)
            if (gid[i] >= 0) {
                double v = p[gid[i]] *= (double)((const int64_t *)c->data)[i];
                wide = !(v >= -9223372036854775808.0 && v < 9223372036854775808.0);
            }
        free(p);
    }
    double *od = NULL;
    int64_t *oi = NULL;
    uint8_t *ob = NULL;
    if (o) {
        ftype_t t = scan_type(f, c, intv, orphans, wide);
        if (fcol_alloc(o, t, n, 0, t == FT_BOOL && (orphans || c->valid))) return -1;
        o->unit = date ? c->unit : FU_NONE;
        od = t == FT_FLOAT64 ? o->data : NULL;
        oi = t == FT_INT64 ? o->data : NULL;
        ob = t == FT_BOOL ? o->data : NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t g = gid[i];
        bool na = fcol_is_na(c, i);
        if (ob && o->valid) o->valid[i] = g >= 0 && !na;
        if (g < 0 || na) {
            /* missing: skipped, the run goes on */
            if (od) od[i] = NAN;
            if (oi) oi[i] = INT64_MIN; /* NaT */
            if (ob) ob[i] = 0;
            continue;
        }
        st.seen[g]++;
        if (isf) {
            double x = dfa_num(c, i), fs = st.x[g];
            if (f == DF3_TF_CUMSUM) {
                double y = x - st.comp[g], s2 = fs + y;
                st.comp[g] = (s2 - fs) - y;
                st.x[g] = s2;
            } else if (f == DF3_TF_CUMPROD) {
                st.x[g] = fs * x;
            } else if (st.seen[g] == 1 || (f == DF3_TF_CUMMIN ? x < fs : x > fs)) {
                st.x[g] = x;
            }
            if (od) od[i] = st.x[g];
            continue;
        }
        int64_t x = int_at(c, i), v;
        if (f == DF3_TF_CUMSUM) {
            st.i[g] = (int64_t)((uint64_t)st.i[g] + (uint64_t)x); /* wraps, as numpy's */
            v = st.i[g];
        } else if (f == DF3_TF_CUMPROD) {
            st.x[g] *= (double)x;
            v = oi ? (int64_t)st.x[g] : st.x[g] != 0; /* within int64's range (wide above) */
        } else {
            if (st.seen[g] == 1 || (f == DF3_TF_CUMMIN ? x < st.i[g] : x > st.i[g])) st.i[g] = x;
            v = st.i[g];
        }
        if (od)
            od[i] = f == DF3_TF_CUMPROD ? st.x[g] : (double)v;
        else if (oi)
            oi[i] = v;
        else if (ob)
            ob[i] = v != 0;
    }
    return 0;
}

/* The carry after the chunk: the carry's rows (their state updated), then
 * a row for each group new in this chunk (its first row's keys). */
static int scan_next(const df_node_t *d, const frame_t *in, const frame_t *carry,
                     const int64_t *newrep, int64_t ng2, double *const *sd, int64_t *const *si,
                     int nv, frame_t *next)
{
    int nk = d->nkey, ncol = nk + nv * SC_NCOL;
    int64_t nc = carry ? carry->nrows : 0;
    frame_t parts[2] = {{0}, {0}};
    int np = 0, rc = -1;
    for (int p = 0; p < 2; p++) {
        int64_t rows = p == 0 ? nc : ng2, at = p == 0 ? 0 : nc;
        if (p == 0 && !carry) continue;
        frame_t *f = &parts[np++];
        if (frame_alloc(f, false, rows, ncol, 1) ||
            fcol_alloc(&f->idx[0], FT_INT64, rows, 0, false))
            goto done;
        for (int64_t r = 0; r < rows; r++)
            ((int64_t *)f->idx[0].data)[r] = at + r;
        for (int k = 0; k < nk; k++) /* the keys, named as the input's (size's index) */
            if ((p == 0 ? fcol_copy(&carry->cols[k], &f->cols[k])
                        : dfa_take_col(&in->cols[d->key[k]], newrep, ng2, false, &f->cols[k])) ||
                flabel_set(&f->names[k], in->names[d->key[k]].s, in->names[d->key[k]].is_int))
                goto done;
        for (int v = 0; v < nv; v++)
            for (int s = 0; s < SC_NCOL; s++) {
                bool dbl = s == SC_X || s == SC_COMP;
                fcol_t *col = &f->cols[nk + v * SC_NCOL + s];
                if (fcol_alloc(col, dbl ? FT_FLOAT64 : FT_INT64, rows, 0, false)) goto done;
                const void *src = dbl ? (const void *)(sd[v * 2 + (s == SC_COMP)] + at)
                                      : (const void *)(si[v * 2 + (s == SC_SEEN)] + at);
                memcpy(col->data, src, 8 * (size_t)rows);
            }
    }
    if (np == 1) {
        *next = parts[0];
        memset(&parts[0], 0, sizeof parts[0]);
        rc = 0;
    } else {
        const frame_t *pp[2] = {&parts[0], &parts[1]};
        rc = frame_concat(pp, 2, next);
    }
done:
    for (int p = 0; p < np; p++)
        frame_free(&parts[p]);
    return rc;
}

/* ngroup: each row its group's number, the group's place among the keys
 * of every chunk (rank, from df3_gb_final: every group is in the carry) */
static int ngroup_out(const df_node_t *d, int64_t nc, const int64_t *rank, const int64_t *gid,
                      int64_t n, bool orphans, fcol_t *o)
{
    if (fcol_alloc(o, orphans ? FT_FLOAT64 : FT_INT64, n, 0, false)) return -1;
    for (int64_t i = 0; i < n; i++) {
        int64_t g = gid[i], v = g < 0 ? 0 : d->asc1 ? rank[g] : nc - 1 - rank[g];
        if (orphans)
            ((double *)o->data)[i] = g < 0 ? NAN : (double)v;
        else
            ((int64_t *)o->data)[i] = v;
    }
    return 0;
}

int df3_gb_scan(const df_node_t *d, op_t op, const frame_t *in, const frame_t *carry, frame_t *out,
                frame_t *next, char *err, size_t errlen)
{
    bool head = op == OP_DF_GROUPBY_HEAD || op == OP_DF_GROUPBY_TAIL;
    bool size = op == OP_DF_GROUPBY_SIZE, tf = !head && !size;
    int f = tf ? d->pv_agg : -1, nk = d->nkey;
    bool count = f == DF3_TF_CUMCOUNT, ngroup = f == DF3_TF_NGROUP;
    /* the state of head, tail, size, cumcount and ngroup: rows per group */
    int nv = count || ngroup || !tf ? 1 : d->nsel;
    int64_t n = in->nrows, nc = carry ? carry->nrows : 0;
    if (out) memset(out, 0, sizeof *out);
    if (next) memset(next, 0, sizeof *next);
    if (carry && carry->ncols != nk + nv * SC_NCOL)
        return errmsg(err, errlen, "groupby scan: a carry of %d columns, not %d", carry->ncols,
                      nk + nv * SC_NCOL);
    dfa_keys_t ks = {.nk = nk}, cks = {.nk = nk};
    for (int k = 0; k < nk; k++) {
        ks.k[k] = &in->cols[d->key[k]];
        if (carry) cks.k[k] = &carry->cols[k];
    }
    int64_t *gid = dfa_alloc(n + 1, sizeof *gid), *gid2 = dfa_alloc(n + 1, sizeof *gid2);
    uint64_t *h = dfa_alloc(n + 1, sizeof *h);
    uint8_t *skip = dfa_alloc(n + 1, 1);
    double **sd = calloc(2 * (size_t)nv + 1, sizeof *sd);
    int64_t **si = calloc(2 * (size_t)nv + 1, sizeof *si);
    dfa_htab_t t = {0}, t2 = {0};
    int64_t *cgid = NULL;
    int ret = -1;
    if (!gid || !gid2 || !h || !skip || !sd || !si) goto nomem;
    /* each row's group: the carry's row holding its keys, else a group new
     * in this chunk (numbered on from the carry's), -1 for a missing key */
    if (carry) {
        cgid = dfa_alloc(nc + 1, sizeof *cgid);
        if (!cgid || dfa_group(&cks, nc, NULL, cgid, &t)) goto nomem;
        dfa_hash_rows(ks.k, nk, n, h);
        if (dfa_htab_find_rows(&t, &cks, &ks, n, h, gid)) goto nomem;
    } else {
        for (int64_t i = 0; i < n; i++)
            gid[i] = -1;
    }
    bool orphans = false;
    for (int64_t i = 0; i < n; i++) {
        bool na = false;
        for (int k = 0; k < nk; k++)
            na |= fcol_is_na(ks.k[k], i);
        orphans |= na;
        if (carry && gid[i] >= 0) gid[i] = t.grep[gid[i]]; /* the carry's row */
        skip[i] = na || gid[i] >= 0;
        if (na) gid[i] = -1;
    }
    if (dfa_group(&ks, n, skip, gid2, &t2)) goto nomem;
    int64_t ng2 = t2.ngroups, ng = nc + ng2;
    for (int64_t i = 0; i < n; i++)
        if (!skip[i]) gid[i] = nc + gid2[i];
    for (int v = 0; v < nv; v++) {
        sd[2 * v] = dfa_alloc(ng + 1, sizeof(double));
        sd[2 * v + 1] = dfa_alloc(ng + 1, sizeof(double));
        si[2 * v] = dfa_alloc(ng + 1, sizeof(int64_t));
        si[2 * v + 1] = dfa_alloc(ng + 1, sizeof(int64_t));
        if (!sd[2 * v] || !sd[2 * v + 1] || !si[2 * v] || !si[2 * v + 1]) goto nomem;
        for (int64_t g = 0; g < ng; g++) {
            bool old = g < nc;
            const fcol_t *cc = old ? &carry->cols[nk + v * SC_NCOL] : NULL;
            sd[2 * v][g] = old ? ((const double *)cc[SC_X].data)[g] : f == DF3_TF_CUMPROD;
            sd[2 * v + 1][g] = old ? ((const double *)cc[SC_COMP].data)[g] : 0;
            si[2 * v][g] = old ? ((const int64_t *)cc[SC_I].data)[g] : 0;
            si[2 * v + 1][g] = old ? ((const int64_t *)cc[SC_SEEN].data)[g] : 0;
        }
    }
    if (ngroup && out && (!carry || ng2)) {
        ret = errmsg(err, errlen, "internal: groupby ngroup without every group's key");
        goto done;
    }
    if (out && tf && rows_of(in, count || ngroup, nv, out)) goto nomem;
    for (int v = 0; v < nv; v++) {
        scan_state_t st = {sd[2 * v], sd[2 * v + 1], si[2 * v], si[2 * v + 1]};
        if (count) {
            /* the rows of its group before it (after it: descending) */
            fcol_t *o = out ? &out->cols[0] : NULL;
            if (o && fcol_alloc(o, orphans ? FT_FLOAT64 : FT_INT64, n, 0, false)) goto nomem;
            for (int64_t q = 0; q < n; q++) {
                int64_t i = count && !d->asc1 ? n - 1 - q : q, g = gid[i];
                int64_t c = g >= 0 ? st.seen[g]++ : 0;
                if (o && orphans) ((double *)o->data)[i] = g >= 0 ? (double)c : NAN;
                if (o && !orphans) ((int64_t *)o->data)[i] = c;
            }
            continue;
        }
        if (head) {
            /* each group's first n rows (tail: last n, counted from the
             * end), in the chunk's order */
            uint8_t *keep = skip;
            int64_t m = 0;
            for (int64_t q = 0; q < n; q++) {
                int64_t i = op == OP_DF_GROUPBY_TAIL ? n - 1 - q : q, g = gid[i];
                keep[i] = g >= 0 && st.seen[g]++ < d->n;
            }
            for (int64_t i = 0; i < n; i++)
                if (keep[i]) gid2[m++] = i;
            if (out && frame_take(in, gid2, m, out)) goto nomem;
            continue;
        }
        if (size || ngroup) {
            /* the groups and their rows; their numbers once every chunk's
             * groups are known */
            for (int64_t i = 0; (next || !carry) && i < n; i++)
                if (gid[i] >= 0) st.seen[gid[i]]++;
            if (ngroup && out && ngroup_out(d, nc, st.i, gid, n, orphans, &out->cols[0]))
                goto nomem;
            continue;
        }
        const fcol_t *c = &in->cols[d->sel[v]];
        if (out && flabel_set(&out->names[v], in->names[d->sel[v]].s, in->names[d->sel[v]].is_int))
            goto nomem;
        if (f < DF3_TF_CUMSUM) {
            /* a statistic: folded into the state (the carry chain, or one
             * job over every row), or read from the state of every row */
            bool intv = d->gb_intv && d->gb_intv[v];
            if (next || !carry) agg_fold(f, c, intv, gid, n, st);
            if (out && agg_out(f, c, intv, gid, n, orphans, st, &out->cols[v])) goto nomem;
            continue;
        }
        if (scan_col(d, c, d->gb_intv && d->gb_intv[v], gid, n, orphans, st, ng,
                     out ? &out->cols[v] : NULL))
            goto nomem;
    }
    if (next && scan_next(d, in, carry, t2.grep, ng2, sd, si, nv, next)) goto nomem;
    ret = 0;
    goto done;
nomem:
    ret = errmsg(err, errlen, "groupby %s: out of memory over %lld rows and %lld groups",
                 count  ? "cumcount"
                 : head ? "head"
                 : size ? "size"
                        : "scan",
                 (long long)n, (long long)nc);
    if (out) frame_free(out);
done:
    dfa_htab_free(&t);
    dfa_htab_free(&t2);
    free(gid);
    free(gid2);
    free(h);
    free(skip);
    free(cgid);
    for (int v = 0; sd && si && v < 2 * nv; v++) {
        free(sd[v]);
        free(si[v]);
    }
    free(sd);
    free(si);
    return ret;
}

/* shift, diff, ffill and bfill chunk by chunk: the carry is the rows of
 * the chunks before (after: a negative shift or diff, bfill) that the
 * chunk's rows can take a value from, whole rows of the input in order:
 * each group's last |periods| rows (first: backwards), the last `limit`
 * rows for ffill with a limit (a value further back is not taken), and
 * without a limit the last present row of each column. The kernel runs
 * over the carry's rows beside the chunk's, and the chunk's rows are its
 * result: the same values as one pass over every row. */
static bool gb_backwards(const df_node_t *d)
{
    int f = d->pv_agg;
    bool lag = f == DF3_TF_SHIFT || f == DF3_TF_DIFF || f == DF3_TF_PCT_CHANGE;
    return f == DF3_TF_BFILL || (lag && d->n < 0) || (f == DF3_TF_CUMCOUNT && !d->asc1) ||
           (f == DF3_TF_PCT_CHANGE && d->n == 0 && d->gb_fill == DF3_TF_BFILL);
}

bool df3_gb_chunked(const df_node_t *d, bool *backwards)
{
    int f = d->pv_agg;
    *backwards = gb_backwards(d);
    /* pct_change: when its fill runs the way its periods look */
    if (f == DF3_TF_PCT_CHANGE)
        return d->gb_fill == 0 || (d->gb_fill == DF3_TF_BFILL) == *backwards;
    return df3_gb_scans(d) || f == DF3_TF_SHIFT || f == DF3_TF_DIFF || f == DF3_TF_FFILL ||
           f == DF3_TF_BFILL;
}

/* the rows of x (the carry's and the chunk's) the next chunk may read */
static int tail_rows(const df_node_t *d, const frame_t *x, bool back, int64_t **rows, int64_t *m)
{
    int64_t n = x->nrows;
    dfa_keys_t ks = {.nk = d->nkey};
    for (int k = 0; k < d->nkey; k++)
        ks.k[k] = &x->cols[d->key[k]];
    uint8_t *skip = dfa_alloc(n + 1, 1), *keep = dfa_alloc(n + 1, 1);
    int64_t *gid = dfa_alloc(n + 1, sizeof *gid), *cnt = NULL;
    dfa_htab_t t = {0};
    int rc = -1;
    if (!skip || !keep || !gid) goto done;
    for (int64_t i = 0; i < n; i++) {
        skip[i] = 0;
        keep[i] = 0;
        for (int k = 0; k < ks.nk; k++)
            skip[i] |= fcol_is_na(ks.k[k], i);
    }
    if (dfa_group(&ks, n, skip, gid, &t)) goto done;
    cnt = dfa_alloc(t.ngroups + 1, sizeof *cnt);
    if (!cnt) goto done;
    /* each group's nearest `win` rows: shift's and diff's |periods|, a
     * fill's limit, pct_change's |periods| and its fill's limit; with
     * `valid` (a fill without limit) also each column's nearest present
     * value beyond them, which those rows and the next chunk's fill from */
    int f = d->pv_agg;
    bool fill = f == DF3_TF_FFILL || f == DF3_TF_BFILL, pct = f == DF3_TF_PCT_CHANGE;
    int64_t lag = fill ? 0 : d->n < 0 ? -d->n : d->n, limit = fill ? d->n : d->gb_limit;
    bool filled = fill || (pct && d->gb_fill);
    int64_t win = lag + (filled && limit > 0 ? limit : 0);
    bool valid = filled && limit < 0;
    for (int v = -1; v < (valid ? d->nsel : 0); v++) {
        memset(cnt, 0, sizeof *cnt * (size_t)t.ngroups);
        for (int64_t q = 0; q < n; q++) {
            int64_t i = back ? q : n - 1 - q, g = gid[i];
            if (g < 0 || cnt[g] > win) continue;
            if (cnt[g] < win) { /* the window */
                keep[i] |= v < 0;
                cnt[g]++;
            } else if (v >= 0 && !fcol_is_na(&x->cols[d->sel[v]], i)) {
                keep[i] = 1; /* the column's nearest value beyond it */
                cnt[g]++;
            }
        }
    }
    int64_t k = 0;
    *rows = dfa_alloc(n + 1, sizeof **rows);
    if (!*rows) goto done;
    for (int64_t i = 0; i < n; i++)
        if (keep[i]) (*rows)[k++] = i;
    *m = k;
    rc = 0;
done:
    dfa_htab_free(&t);
    free(skip);
    free(keep);
    free(gid);
    free(cnt);
    return rc;
}

static int gb_tail(const df_node_t *d, const frame_t *in, const frame_t *carry, frame_t *out,
                   frame_t *next, char *err, size_t errlen)
{
    bool back = gb_backwards(d);
    int64_t n = in->nrows, nc = carry ? carry->nrows : 0;
    frame_t cat = {0}, all = {0};
    const frame_t *x = in;
    int64_t *rows = NULL, m = 0;
    int ret = -1;
    if (carry) {
        const frame_t *pp[2] = {back ? in : carry, back ? carry : in};
        if (frame_concat(pp, 2, &cat))
            return errmsg(err, errlen,
                          "groupby_transform: the carried rows do not line up with the chunk's "
                          "columns (or out of memory)");
        x = &cat;
    }
    if (out) {
        /* the kernel over both; the chunk's rows are the result, with the
         * chunk's own index */
        if (df3_groupby(d, OP_DF_GROUPBY_TRANSFORM, x, &all, err, errlen)) goto done;
        if (frame_slice(&all, back ? 0 : nc, n, out)) goto nomem;
        for (int k = 0; k < in->nidx; k++) {
            fcol_free(&out->idx[k]);
            if (fcol_copy(&in->idx[k], &out->idx[k])) goto nomem;
        }
        out->range_index = in->range_index;
    }
    if (next) {
        if (tail_rows(d, x, back, &rows, &m) || frame_take(x, rows, m, next)) goto nomem;
        next->range_index = false;
    }
    ret = 0;
    goto done;
nomem:
    ret = errmsg(err, errlen, "groupby: out of memory over %lld rows", (long long)(n + nc));
    if (out) frame_free(out);
done:
    frame_free(&cat);
    frame_free(&all);
    free(rows);
    return ret;
}

int df3_gb_final(const df_node_t *d, op_t op, const frame_t *carry, frame_t *out, char *err,
                 size_t errlen)
{
    int nk = d->nkey;
    int64_t ng = carry->nrows;
    bool size = op == OP_DF_GROUPBY_SIZE;
    memset(out, 0, sizeof *out);
    if (carry->ncols != nk + SC_NCOL)
        return errmsg(err, errlen, "groupby %s: a carry of %d columns, not %d",
                      size ? "size" : "ngroup", carry->ncols, nk + SC_NCOL);
    dfa_keys_t ks = {.nk = nk};
    for (int k = 0; k < nk; k++)
        ks.k[k] = &carry->cols[k];
    int64_t *ord = dfa_alloc(ng + 1, sizeof *ord);
    int rc = -1;
    if (!ord) goto done;
    for (int64_t q = 0; q < ng; q++)
        ord[q] = q;
    /* the groups sorted by key, once */
    if (dfa_argsort(&ks, NULL, ord, ng)) goto done;
    if (!size) {
        /* ngroup: the carry, each group's place in key order in its i */
        if (frame_slice(carry, 0, ng, out)) goto done;
        for (int64_t q = 0; q < ng; q++)
            ((int64_t *)out->cols[nk + SC_I].data)[ord[q]] = q;
        rc = 0;
        goto done;
    }
    /* size: one row per group, sorted by key, its rows */
    if (frame_alloc(out, true, ng, 1, nk) || fcol_alloc(&out->cols[0], FT_INT64, ng, 0, false))
        goto done;
    for (int k = 0; k < nk; k++)
        if (dfa_take_col(&carry->cols[k], ord, ng, false, &out->idx[k]) ||
            flabel_set(&out->idx_names[k], carry->names[k].s, carry->names[k].is_int))
            goto done;
    for (int64_t q = 0; q < ng; q++)
        ((int64_t *)out->cols[0].data)[q] =
            ((const int64_t *)carry->cols[nk + SC_SEEN].data)[ord[q]];
    rc = 0;
done:
    free(ord);
    if (rc) {
        frame_free(out);
        return errmsg(err, errlen, "groupby %s: out of memory over %lld groups",
                      size ? "size" : "ngroup", (long long)ng);
    }
    return 0;
}

bool df3_gb_lookup(const df_node_t *d)
{
    return d->pv_agg >= DF3_TB_MEDIAN && d->pv_agg <= DF3_TB_NUNIQUE;
}

/* Each row of in its group's row of agg (groupby_agg's result over every
 * chunk: the keys in its index, a column per value column); a row with a
 * missing key is in no group and gets a missing value (an int64 column is
 * float64 in such a chunk, a bool or string one gets missing values), as
 * the statistics' rows. */
static int gb_lookup(const df_node_t *d, const frame_t *in, const frame_t *agg, frame_t *out,
                     char *err, size_t errlen)
{
    int nk = d->nkey, nv = d->pv_agg == DF3_TB_SIZE ? 1 : d->nsel;
    int64_t n = in->nrows, na = agg->nrows;
    memset(out, 0, sizeof *out);
    if (agg->nidx != nk || agg->ncols != nv)
        return errmsg(err, errlen,
                      "internal: groupby transform's aggregate has %d levels and %d columns, not "
                      "%d and %d",
                      agg->nidx, agg->ncols, nk, nv);
    dfa_keys_t ks = {.nk = nk}, aks = {.nk = nk};
    for (int k = 0; k < nk; k++) {
        ks.k[k] = &in->cols[d->key[k]];
        aks.k[k] = &agg->idx[k];
    }
    int64_t *gid = dfa_alloc(n + 1, sizeof *gid), *agid = dfa_alloc(na + 1, sizeof *agid);
    uint64_t *h = dfa_alloc(n + 1, sizeof *h);
    dfa_htab_t t = {0};
    int ret = -1;
    if (!gid || !agid || !h || dfa_group(&aks, na, NULL, agid, &t)) goto nomem;
    dfa_hash_rows(ks.k, nk, n, h);
    if (dfa_htab_find_rows(&t, &aks, &ks, n, h, gid)) goto nomem;
    for (int64_t i = 0; i < n; i++) {
        bool miss = false;
        for (int k = 0; k < nk; k++)
            miss |= fcol_is_na(ks.k[k], i);
        if (!miss && gid[i] < 0) {
            ret = errmsg(err, errlen,
                         "internal: groupby transform: row %lld's group is not in "
                         "the aggregate",
                         (long long)i);
            goto done;
        }
        gid[i] = miss ? -1 : t.grep[gid[i]];
    }
    if (rows_of(in, d->pv_agg == DF3_TB_SIZE, nv, out)) goto nomem;
    for (int v = 0; v < nv; v++) {
        if (dfa_take_col(&agg->cols[v], gid, n, false, &out->cols[v])) goto nomem;
        /* the schema's labels (size: its Series' name, or none) */
        if (flabel_set(&out->names[v], d->cols[v].name, d->cols[v].is_int)) goto nomem;
    }
    ret = 0;
    goto done;
nomem:
    ret = errmsg(err, errlen, "groupby transform: out of memory over %lld rows and %lld groups",
                 (long long)n, (long long)na);
    frame_free(out);
done:
    dfa_htab_free(&t);
    free(gid);
    free(agid);
    free(h);
    return ret;
}

int df3_gb_carry(const df_node_t *d, op_t op, const frame_t *in, const frame_t *carry, frame_t *out,
                 frame_t *next, char *err, size_t errlen)
{
    if (op == OP_DF_GROUPBY_TRANSFORM && df3_gb_lookup(d)) {
        if (!carry || !out || next)
            return errmsg(err, errlen,
                          "internal: groupby transform's lookup without its aggregate");
        return gb_lookup(d, in, carry, out, err, errlen);
    }
    if (op != OP_DF_GROUPBY_TRANSFORM || df3_gb_scans(d))
        return df3_gb_scan(d, op, in, carry, out, next, err, errlen);
    if (out) memset(out, 0, sizeof *out);
    if (next) memset(next, 0, sizeof *next);
    return gb_tail(d, in, carry, out, next, err, errlen);
}

/* diff and pct_change: y[row] from v[row] and v of the row `periods`
 * before it in its group (after it: negative), NaN where there is none or
 * either is NaN */
static void gb_lag(const df_node_t *d, const gb_groups_t *G, const double *v, bool pct, double *y)
{
    for (int64_t i = 0; i < G->n; i++)
        y[i] = NAN;
    for (int64_t g = 0; g < G->ng; g++) {
        const int64_t *r = G->grows + G->start[g];
        int64_t m = G->start[g + 1] - G->start[g];
        for (int64_t q = 0; q < m; q++) {
            int64_t p = q - d->n;
            if (p >= 0 && p < m) y[r[q]] = pct ? v[r[q]] / v[r[p]] - 1 : v[r[q]] - v[r[p]];
        }
    }
}

/* diff(periods) as pandas' x - x.shift(periods), and pct_change(periods)
 * as pandas 1.5's: the values filled within each group (fill_method,
 * limit), then filled / (filled `periods` rows before) - 1; float64 */
static int gb_diff(const df_node_t *d, const fcol_t *c, const gb_groups_t *G, fcol_t *o)
{
    bool pct = d->pv_agg == DF3_TF_PCT_CHANGE;
    int64_t *src = pct ? dfa_alloc(G->n + 1, sizeof *src) : NULL;
    double *v = dfa_alloc(G->n + 1, sizeof *v);
    int rc = -1;
    if ((pct && !src) || !v || fcol_alloc(o, FT_FLOAT64, G->n, 0, false)) goto done;
    if (pct) gb_src_rows(d->gb_fill, d->gb_limit, c, G, src);
    for (int64_t i = 0; i < G->n; i++) {
        int64_t s = pct ? (G->gid[i] >= 0 ? src[i] : -1) : i;
        v[i] = s >= 0 && !fcol_is_na(c, s) ? dfa_num(c, s) : NAN;
    }
    gb_lag(d, G, v, pct, o->data);
    rc = 0;
done:
    free(src);
    free(v);
    return rc;
}

/* diff(periods) of datetimes or timedeltas: pandas' x - x.shift(periods),
 * a timedelta64[ns] (int64 nanoseconds, exact), NaT where either is; a
 * difference past int64 fails as pandas' OverflowError (-2, err set) */
static int gb_diff_time(const df_node_t *d, const fcol_t *c, const gb_groups_t *G, fcol_t *o,
                        char *err, size_t errlen)
{
    if (fcol_alloc(o, FT_INT64, G->n, 0, false)) return -1;
    o->unit = FU_TD;
    const int64_t *x = c->data;
    int64_t *y = o->data;
    for (int64_t i = 0; i < G->n; i++)
        y[i] = INT64_MIN;
    for (int64_t g = 0; g < G->ng; g++) {
        const int64_t *r = G->grows + G->start[g];
        int64_t m = G->start[g + 1] - G->start[g];
        for (int64_t q = 0; q < m; q++) {
            int64_t p = q - d->n, a, b, v;
            if (p < 0 || p >= m || (a = x[r[q]]) == INT64_MIN || (b = x[r[p]]) == INT64_MIN)
                continue;
            if (__builtin_sub_overflow(a, b, &v) || v == INT64_MIN) {
                errmsg(err, errlen,
                       "groupby diff: Overflow in int64 addition (a difference "
                       "past timedelta64[ns]'s range, about 292 years)");
                return -2;
            }
            y[r[q]] = v;
        }
    }
    return 0;
}

/* rank within each group, missing values and rows in no group NaN */
static int gb_rank(const df_node_t *d, const fcol_t *c, const gb_groups_t *G, fcol_t *o)
{
    int64_t *rows = dfa_alloc(G->n + 1, sizeof *rows);
    if (!rows || fcol_alloc(o, FT_FLOAT64, G->n, 0, false)) {
        free(rows);
        return -1;
    }
    double *y = o->data;
    for (int64_t i = 0; i < G->n; i++)
        y[i] = NAN;
    int rc = 0;
    for (int64_t g = 0; g < G->ng && rc == 0; g++)
        rc = df_rank_group(c, G->grows + G->start[g], G->start[g + 1] - G->start[g], d->how,
                           d->asc1, d->drop, d->rank_na, rows, y);
    free(rows);
    return rc;
}

/* groupby_transform's kernels (DF3_TF_*) but the scans: the input's rows
 * and index */
static int gb_kernel(const df_node_t *d, const frame_t *in, const gb_groups_t *G, frame_t *out,
                     char *err, size_t errlen)
{
    int f = d->pv_agg;
    if (frame_alloc(out, false, G->n, d->nsel, in->nidx) || frame_copy_index(in, out)) return -1;
    int64_t *src = NULL;
    if (f == DF3_TF_SHIFT || f == DF3_TF_FFILL || f == DF3_TF_BFILL) {
        src = dfa_alloc(G->n + 1, sizeof *src);
        if (!src) return -1;
    }
    int rc = 0;
    for (int v = 0; v < d->nsel && rc == 0; v++) {
        const fcol_t *c = &in->cols[d->sel[v]];
        fcol_t *o = &out->cols[v];
        rc = flabel_set(&out->names[v], in->names[d->sel[v]].s, in->names[d->sel[v]].is_int);
        if (rc) break;
        if (src) {
            gb_src_rows(f, d->n, c, G, src);
            rc = dfa_take_col(c, src, G->n, false, o);
        } else if (f == DF3_TF_DIFF && c->type == FT_INT64 &&
                   (c->unit == FU_NS || c->unit == FU_TD)) {
            rc = gb_diff_time(d, c, G, o, err, errlen);
        } else if (f == DF3_TF_DIFF || f == DF3_TF_PCT_CHANGE) {
            rc = gb_diff(d, c, G, o);
        } else {
            rc = gb_rank(d, c, G, o);
        }
    }
    free(src);
    return rc;
}

int df3_groupby(const df_node_t *d, op_t op, const frame_t *in, frame_t *out, char *err,
                size_t errlen)
{
    if (op == OP_DF_GROUPBY_SIZE || (op == OP_DF_GROUPBY_TRANSFORM && d->pv_agg == DF3_TF_NGROUP)) {
        /* the groups of every row first (the carry of one chunk), then
         * their sizes, or each row's group number */
        frame_t all = {0};
        memset(out, 0, sizeof *out);
        frame_t ranked = {0};
        int rc = df3_gb_scan(d, op, in, NULL, NULL, &all, err, errlen);
        if (rc == 0)
            rc = df3_gb_final(d, op, &all, op == OP_DF_GROUPBY_SIZE ? out : &ranked, err, errlen);
        if (rc == 0 && op != OP_DF_GROUPBY_SIZE)
            rc = df3_gb_scan(d, op, in, &ranked, out, NULL, err, errlen);
        frame_free(&all);
        frame_free(&ranked);
        return rc;
    }
    if (op == OP_DF_GROUPBY_HEAD || op == OP_DF_GROUPBY_TAIL ||
        (op == OP_DF_GROUPBY_TRANSFORM && df3_gb_scans(d)))
        return df3_gb_scan(d, op, in, NULL, out, NULL, err, errlen);
    memset(out, 0, sizeof *out);
    int64_t n = in->nrows;
    dfa_keys_t ks = {.nk = d->nkey};
    for (int k = 0; k < d->nkey; k++)
        ks.k[k] = &in->cols[d->key[k]];
    uint8_t *skip = dfa_alloc(n, 1);
    int64_t *gid = dfa_alloc(n, sizeof *gid), *start = NULL, *grows = NULL, *rep = NULL;
    double *buf = NULL;
    dfa_htab_t t = {0};
    int ret = -1;
    if (!skip || !gid) goto nomem;
    for (int64_t i = 0; i < n; i++) {
        skip[i] = 0;
        for (int k = 0; k < ks.nk; k++)
            skip[i] |= fcol_is_na(ks.k[k], i);
    }
    if (dfa_group(&ks, n, skip, gid, &t)) goto nomem;
    int64_t ng = t.ngroups;
    /* groups sorted by key: rank g -> group id, rows of each group in order */
    rep = dfa_alloc(ng + 1, sizeof *rep);
    start = dfa_alloc(ng + 1, sizeof *start);
    grows = dfa_alloc(n + 1, sizeof *grows);
    if (!rep || !start || !grows) goto nomem;
    memcpy(rep, t.grep, sizeof *rep * (size_t)ng);
    if (dfa_argsort(&ks, NULL, rep, ng)) goto nomem;
    memset(start, 0, sizeof *start * (size_t)(ng + 1));
    for (int64_t i = 0; i < n; i++)
        if (gid[i] >= 0) start[gid[i] + 1]++;
    for (int64_t g = 0; g < ng; g++)
        start[g + 1] += start[g];
    for (int64_t i = 0; i < n; i++)
        if (gid[i] >= 0) grows[start[gid[i]]++] = i;
    for (int64_t g = ng; g > 0; g--)
        start[g] = start[g - 1];
    start[0] = 0;

    if (op == OP_DF_GROUPBY_TRANSFORM && d->pv_agg >= DF3_TF_CUMSUM) {
        gb_groups_t G = {.gid = gid, .start = start, .grows = grows, .ng = ng, .n = n};
        for (int64_t i = 0; i < n && !G.orphans; i++)
            G.orphans = gid[i] < 0;
        int kr = gb_kernel(d, in, &G, out, err, errlen);
        if (kr == -2) goto done; /* its message written */
        if (kr) goto nomem;
        ret = 0;
        goto done;
    }
    /* quantile: one row per group, indexed by its key */
    if (frame_alloc(out, false, ng, d->nsel, d->nkey)) goto nomem;
    for (int k = 0; k < d->nkey; k++)
        if (dfa_take_col(ks.k[k], rep, ng, false, &out->idx[k]) ||
            flabel_set(&out->idx_names[k], in->names[d->key[k]].s, in->names[d->key[k]].is_int))
            goto nomem;
    buf = dfa_alloc(n + 1, sizeof *buf);
    if (!buf) goto nomem;
    for (int v = 0; v < d->nsel; v++) {
        const fcol_t *c = &in->cols[d->sel[v]];
        fcol_t *o = &out->cols[v];
        if (fcol_alloc(o, FT_FLOAT64, ng, 0, false) ||
            flabel_set(&out->names[v], in->names[d->sel[v]].s, in->names[d->sel[v]].is_int))
            goto nomem;
        for (int64_t q = 0; q < ng; q++) {
            int64_t g = gid[rep[q]], m = 0;
            for (int64_t p = start[g]; p < start[g + 1]; p++)
                if (!fcol_is_na(c, grows[p])) buf[m++] = dfa_num(c, grows[p]);
            double r = NAN;
            if (m > 0) {
                double pos = d->gq * (double)(m - 1);
                int64_t lo = (int64_t)floor(pos);
                double frac = pos - (double)lo;
                /* the lo-th smallest selected; the next is the smallest of
                 * those after it */
                dfa_select_d(buf, 0, m - 1, lo);
                r = buf[lo];
                if (lo + 1 < m && frac > 0) {
                    double next = buf[lo + 1];
                    for (int64_t u = lo + 2; u < m; u++)
                        next = buf[u] < next ? buf[u] : next;
                    r = buf[lo] + (next - buf[lo]) * frac;
                }
            }
            ((double *)o->data)[q] = r;
        }
    }
    ret = 0;
    goto done;
nomem:
    ret = errmsg(err, errlen, "groupby: out of memory over %lld rows", (long long)n);
done:
    if (ret) frame_free(out);
    dfa_htab_free(&t);
    free(skip);
    free(gid);
    free(start);
    free(grows);
    free(rep);
    free(buf);
    return ret;
}

/* ------------------------------------------------------------------ read_json */

/* the kinds of the values of a column */
enum { JK_NULL = 1, JK_BOOL = 2, JK_INT = 4, JK_REAL = 8, JK_STR = 16, JK_OTHER = 32 };

static int jkind(json_t *v)
{
    if (!v || json_is_null(v)) return JK_NULL;
    if (json_is_boolean(v)) return JK_BOOL;
    if (json_is_integer(v)) return JK_INT;
    if (json_is_real(v)) return JK_REAL;
    if (json_is_string(v)) return JK_STR;
    return JK_OTHER;
}

/* a string holding a whole number (pandas converts such strings) */
static bool str_num(const char *s, double *out)
{
    char *end;
    errno = 0;
    if (!*s) return false;
    double x = strtod(s, &end);
    if (*end || errno) return false;
    *out = x;
    return true;
}

/* Column k of the table from cells[r] (r < nrows): pandas' read_json types. */
static int json_col(json_t *const *cells, int64_t nrows, const char *name, fcol_t *out, char *err,
                    size_t errlen)
{
    int kinds = 0;
    int64_t nb = 1;
    bool allnum = true;
    for (int64_t r = 0; r < nrows; r++) {
        int k = jkind(cells[r]);
        kinds |= k;
        if (k == JK_STR) {
            double x;
            nb += (int64_t)json_string_length(cells[r]);
            allnum &= str_num(json_string_value(cells[r]), &x);
        }
    }
    if (kinds & JK_OTHER)
        return errmsg(err, errlen, "read_json: column '%.100s' holds lists or objects", name);
    int vk = kinds & ~JK_NULL;
    if ((vk & JK_STR) && (vk & ~JK_STR))
        return errmsg(err, errlen,
                      "read_json: column '%.100s' mixes strings with numbers or booleans", name);
    if ((vk & JK_BOOL) && (vk & ~JK_BOOL))
        return errmsg(err, errlen, "read_json: column '%.100s' mixes booleans with numbers", name);
    if (vk == JK_STR && !allnum) {
        bool nulls = kinds & JK_NULL;
        if (fcol_alloc(out, FT_STRING, nrows, nb, nulls))
            return errmsg(err, errlen, "read_json: out of memory");
        int64_t at = 0;
        for (int64_t r = 0; r < nrows; r++) {
            if (json_is_string(cells[r])) {
                size_t l = json_string_length(cells[r]);
                memcpy(out->bytes + at, json_string_value(cells[r]), l);
                at += (int64_t)l;
            } else {
                out->valid[r] = 0;
            }
            out->offsets[r + 1] = at;
        }
        out->bytes[at] = 0;
        return 0;
    }
    if (vk == JK_BOOL && !(kinds & JK_NULL)) {
        if (fcol_alloc(out, FT_BOOL, nrows, 0, false))
            return errmsg(err, errlen, "read_json: out of memory");
        for (int64_t r = 0; r < nrows; r++)
            ((uint8_t *)out->data)[r] = json_is_true(cells[r]);
        return 0;
    }
    /* numbers (booleans with nulls as 1.0 and 0.0): float64, int64 when
     * every value is whole and none is missing */
    bool whole = !(kinds & JK_NULL) && nrows > 0;
    double *x = malloc(sizeof(double) * (size_t)(nrows + 1));
    if (!x) return errmsg(err, errlen, "read_json: out of memory");
    for (int64_t r = 0; r < nrows; r++) {
        json_t *c = cells[r];
        int k = jkind(c);
        x[r] = k == JK_NULL   ? NAN
               : k == JK_BOOL ? (json_is_true(c) ? 1.0 : 0.0)
               : k == JK_STR  ? strtod(json_string_value(c), NULL)
                              : json_number_value(c);
        whole &= integral(x[r]);
    }
    /* an all-integer column keeps its exact values */
    bool ints = vk == JK_INT && !(kinds & JK_NULL);
    if (fcol_alloc(out, whole || ints ? FT_INT64 : FT_FLOAT64, nrows, 0, false)) {
        free(x);
        return errmsg(err, errlen, "read_json: out of memory");
    }
    for (int64_t r = 0; r < nrows; r++) {
        if (ints)
            ((int64_t *)out->data)[r] = (int64_t)json_integer_value(cells[r]);
        else if (whole)
            ((int64_t *)out->data)[r] = (int64_t)x[r];
        else
            ((double *)out->data)[r] = x[r];
    }
    free(x);
    return 0;
}

/* JSON lines: each non-blank line one JSON value, gathered into an array
 * (then read as records) */
static json_t *load_lines(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        errmsg(err, errlen, "read_json: cannot read the file");
        return NULL;
    }
    json_t *all = json_array();
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long no = 0;
    while (all && (len = getline(&line, &cap, f)) >= 0) {
        no++;
        size_t b = 0, e = (size_t)len;
        while (b < e && (line[b] == ' ' || line[b] == '\t' || line[b] == '\r' || line[b] == '\n'))
            b++;
        while (e > b && (line[e - 1] == ' ' || line[e - 1] == '\t' || line[e - 1] == '\r' ||
                         line[e - 1] == '\n'))
            e--;
        if (b == e) continue;
        json_error_t je;
        json_t *v = json_loadb(line + b, e - b, JSON_DECODE_ANY, &je);
        if (!v) {
            errmsg(err, errlen, "read_json: line %ld: %.200s", no, je.text);
            json_decref(all);
            all = NULL;
            break;
        }
        if (json_array_append_new(all, v)) {
            errmsg(err, errlen, "read_json: out of memory");
            json_decref(all);
            all = NULL;
        }
    }
    free(line);
    fclose(f);
    return all;
}

int df3_read_json(const char *path, int mode, int64_t max_bytes, frame_t *out, char *err,
                  size_t errlen)
{
    bool records = mode != 0;
    memset(out, 0, sizeof *out);
    struct stat st;
    if (stat(path, &st)) return errmsg(err, errlen, "read_json: cannot read the file");
    if ((int64_t)st.st_size > max_bytes)
        return errmsg(err, errlen,
                      "read_json: the file has %lld bytes, more than the %lld one job reads "
                      "whole",
                      (long long)st.st_size, (long long)max_bytes);
    json_error_t je;
    json_t *doc = mode == DF3_JSON_LINES ? load_lines(path, err, errlen)
                                         : json_load_file(path, JSON_DECODE_ANY, &je);
    if (!doc && mode == DF3_JSON_LINES) return -1;
    if (!doc) return errmsg(err, errlen, "read_json: line %d: %.200s", je.line, je.text);
    /* the table: column names, row labels, cells[c][r] (borrowed) */
    json_t *cols = json_array(), *rows = json_array();
    json_t *seen = json_object(); /* names met so far (a set) */
    json_t **cells = NULL;
    int ret = -1, ncols = 0;
    int64_t nrows = 0;
    if (!cols || !rows || !seen) goto nomem;
    if (records) {
        if (!json_is_array(doc)) {
            ret = errmsg(err, errlen, "read_json: orient records needs a list of objects");
            goto done;
        }
        size_t i;
        json_t *rec;
        json_array_foreach(doc, i, rec)
        {
            if (!json_is_object(rec)) {
                ret = errmsg(err, errlen, "read_json: record %zu is no object", i);
                goto done;
            }
            const char *k;
            json_t *v;
            json_object_foreach(rec, k, v)
            {
                if (json_object_get(seen, k)) continue;
                if (json_object_set_new(seen, k, json_true()) ||
                    json_array_append_new(cols, json_string(k)))
                    goto nomem;
            }
        }
        nrows = (int64_t)json_array_size(doc);
    } else {
        if (!json_is_object(doc)) {
            ret = errmsg(err, errlen,
                         "read_json: orient columns needs an object of columns, each an object "
                         "of rows");
            goto done;
        }
        const char *k;
        json_t *v;
        json_object_foreach(doc, k, v)
        {
            if (!json_is_object(v)) {
                ret = errmsg(err, errlen, "read_json: column '%.100s' is no object of rows", k);
                goto done;
            }
            if (json_array_append_new(cols, json_string(k))) goto nomem;
            const char *rk;
            json_t *rv;
            json_object_foreach(v, rk, rv)
            {
                if (json_object_get(seen, rk)) continue;
                if (json_object_set_new(seen, rk, json_true()) ||
                    json_array_append_new(rows, json_string(rk)))
                    goto nomem;
            }
        }
        nrows = (int64_t)json_array_size(rows);
    }
    ncols = (int)json_array_size(cols);
    if (ncols > 4096) {
        ret = errmsg(err, errlen, "read_json: %d columns, more than 4096", ncols);
        goto done;
    }
    cells = calloc((size_t)nrows + 1, sizeof *cells);
    if (!cells || frame_alloc(out, false, nrows, ncols, 1)) goto nomem;
    for (int c = 0; c < ncols; c++) {
        const char *name = json_string_value(json_array_get(cols, (size_t)c));
        for (int64_t r = 0; r < nrows; r++)
            cells[r] = records
                           ? json_object_get(json_array_get(doc, (size_t)r), name)
                           : json_object_get(json_object_get(doc, name),
                                             json_string_value(json_array_get(rows, (size_t)r)));
        if (flabel_set(&out->names[c], name, false)) goto nomem;
        if (json_col(cells, nrows, name, &out->cols[c], err, errlen)) goto done;
    }
    /* the index: 0..n-1 (records), or the row labels, int64 when all are integers */
    bool intkeys = true;
    int64_t nb = 1;
    for (int64_t r = 0; !records && r < nrows; r++) {
        const char *s = json_string_value(json_array_get(rows, (size_t)r));
        char *end;
        errno = 0;
        (void)strtoll(s, &end, 10);
        intkeys &= *s && !*end && !errno;
        nb += (int64_t)strlen(s);
    }
    if (records || intkeys) {
        if (fcol_alloc(&out->idx[0], FT_INT64, nrows, 0, false)) goto nomem;
        for (int64_t r = 0; r < nrows; r++)
            ((int64_t *)out->idx[0].data)[r] =
                records ? r : strtoll(json_string_value(json_array_get(rows, (size_t)r)), NULL, 10);
        out->range_index = records;
    } else {
        if (fcol_alloc(&out->idx[0], FT_STRING, nrows, nb, false)) goto nomem;
        int64_t at = 0;
        for (int64_t r = 0; r < nrows; r++) {
            const char *s = json_string_value(json_array_get(rows, (size_t)r));
            size_t l = strlen(s);
            memcpy(out->idx[0].bytes + at, s, l);
            at += (int64_t)l;
            out->idx[0].offsets[r + 1] = at;
        }
        out->idx[0].bytes[at] = 0;
    }
    ret = 0;
    goto done;
nomem:
    ret = errmsg(err, errlen, "read_json: out of memory");
done:
    if (ret) frame_free(out);
    free(cells);
    json_decref(cols);
    json_decref(rows);
    json_decref(seen);
    json_decref(doc);
    return ret;
}
