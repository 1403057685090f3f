/* df3.c: concat along the columns (df3.h). */
#include "df3.h"

#include <stdlib.h>
#include <string.h>

#include "algo_util.h"

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
    if (frame_alloc(out, false, nout, ncols, nidx)) goto nomem2;
    for (int k = 0; k < nidx; k++) {
        const flabel_t *a = &parts[0]->idx_names[k];
        bool named = true;
        for (int p = 1; p < n; p++) {
            const flabel_t *b = &parts[p]->idx_names[k];
            named &= a->s && b->s ? a->is_int == b->is_int && !strcmp(a->s, b->s) : !a->s && !b->s;
        }
        if (dfa_take_col(&keys.cols[k], sel, nout, false, &out->idx[k]) ||
            (named && flabel_set(&out->idx_names[k], a->s, a->is_int)))
            goto nomem2;
    }
    if (put_cols(d, parts, n, rows, nout, out)) goto nomem2;
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

int df3_run_multi(const graph_node_t *n, const job_t *j, const dfx_in_t *ins, frame_t *out,
                  char *err, size_t errlen)
{
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
