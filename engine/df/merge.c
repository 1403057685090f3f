/* merge.c: one part of a hash-partitioned merge (algo.h), pandas 1.5's
 * left.merge(right, on=..., how=...), with left_on/right_on,
 * left_index/right_index (and join's index join) and suffixes. A hash table over right's keys
 * (missing keys match missing keys, as pandas matches NaN with NaN; int64
 * and float64 keys match by value), probed with left's rows; each left row
 * meets its matches in right's row order. Output rows: the pairs in left
 * order (with unmatched left rows for left/outer), then unmatched right rows
 * for right/outer. */
#include <stdlib.h>
#include <string.h>

#include "algo_util.h"

static const char *type_name(int t)
{
    static const char *const n[] = {"int64", "float64", "bool", "object"};
    return t >= 0 && t <= FT_STRING ? n[t] : "?";
}

static bool label_eq(const flabel_t *a, const flabel_t *b)
{
    if (!a->s || !b->s) return !a->s && !b->s;
    return a->is_int == b->is_int && strcmp(a->s, b->s) == 0;
}

static int label_suffix(flabel_t *l, const flabel_t *src, const char *suffix)
{
    if (!*suffix) return flabel_set(l, src->s, src->is_int);
    if (!src->s) return flabel_set(l, suffix + 1, false);
    size_t n = strlen(src->s), m = strlen(suffix);
    char *s = malloc(n + m + 1);
    if (!s) return -1;
    memcpy(s, src->s, n);
    memcpy(s + n, suffix, m + 1);
    int rc = flabel_set(l, s, false);
    free(s);
    return rc;
}

/* out[i] = a's value at lrow[i] when lrow[i] >= 0, else b's at rrow[i]
 * (either may be -1 too: missing), as type t. */
static int coalesce(const fcol_t *a, const fcol_t *b, const int64_t *lrow, const int64_t *rrow,
                    int64_t n, ftype_t t, fcol_t *out)
{
    int64_t nb = 1;
    bool need_valid = false;
    for (int64_t i = 0; i < n; i++) {
        const fcol_t *c = lrow[i] >= 0 ? a : b;
        int64_t r = lrow[i] >= 0 ? lrow[i] : rrow[i];
        if (r < 0 || fcol_is_na(c, r))
            need_valid = true;
        else if (t == FT_STRING)
            nb += c->offsets[r + 1] - c->offsets[r];
    }
    if (fcol_alloc(out, t, n, nb, need_valid && (t == FT_BOOL || t == FT_STRING))) return -1;
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        const fcol_t *c = lrow[i] >= 0 ? a : b;
        int64_t r = lrow[i] >= 0 ? lrow[i] : rrow[i];
        bool na = r < 0 || fcol_is_na(c, r);
        switch (t) {
        case FT_INT64:
            ((int64_t *)out->data)[i] = na ? 0 : ((const int64_t *)c->data)[r];
            break;
        case FT_FLOAT64:
            ((double *)out->data)[i] = na ? NAN : dfa_num(c, r);
            break;
        case FT_BOOL:
            ((uint8_t *)out->data)[i] = na ? 0 : ((const uint8_t *)c->data)[r];
            break;
        default:
            if (!na) {
                int64_t len;
                const char *s = fcol_str(c, r, &len);
                memcpy(out->bytes + at, s, (size_t)len);
                at += len;
            }
            out->offsets[i + 1] = at;
            break;
        }
        if (out->valid) out->valid[i] = !na;
    }
    if (t == FT_STRING) out->bytes[at] = 0;
    return 0;
}

static const fcol_t *key_col(const frame_t *f, int c)
{
    return c < 0 ? &f->idx[-1 - c] : &f->cols[c];
}

static bool key_ok(const frame_t *f, int c)
{
    return c < 0 ? -1 - c < f->nidx : c < f->ncols;
}

static int check(const frame_t *l, const frame_t *r, const merge_spec_t *s, char *err,
                 size_t errlen)
{
    if (s->n_on < 1 || s->n_on > DF_MAX_KEYS || (unsigned)s->how > MERGE_OUTER)
        return errmsg(err, errlen, "merge: %d keys, how %d", s->n_on, (int)s->how);
    for (int k = 0; k < s->n_on; k++) {
        if (!key_ok(l, s->lon[k]) || !key_ok(r, s->ron[k]) ||
            (s->lon[k] < 0) != (s->index || s->lindex) ||
            (s->ron[k] < 0) != (s->index || s->rindex))
            return errmsg(err, errlen, "merge: key %d is column %d of %d (left), %d of %d (right)",
                          k, s->lon[k], l->ncols, s->ron[k], r->ncols);
        int lt = key_col(l, s->lon[k])->type, rt = key_col(r, s->ron[k])->type;
        if ((lt == FT_STRING) != (rt == FT_STRING))
            return errmsg(err, errlen,
                          "merge: You are trying to merge on %s and %s columns. If you wish to "
                          "proceed you should use pd.concat",
                          type_name(lt), type_name(rt));
    }
    return 0;
}

static const char *suffix(const merge_spec_t *s, int side)
{
    if (!s->custom_sfx) return side ? "_y" : "_x";
    return s->sfx[side];
}

/* A key both sides give, as pandas 1.5 types it and fills it: an index
 * join's labels take the type both sides share (float64 for int64 with
 * float64), each row's from right for "right", else from left. A merge's
 * key column is one side's (left's; right's with lindex), each row its own
 * side's key or, in rows only the other side has, the other's: its own
 * type when no row needs the other's, else the type both share. */
static int key_values(const merge_spec_t *s, const fcol_t *a, const fcol_t *b, const int64_t *lrow,
                      const int64_t *rrow, int64_t n, fcol_t *out)
{
    bool right = s->index ? s->how == MERGE_RIGHT : s->lindex;
    const fcol_t *own = right ? b : a, *other = right ? a : b;
    const int64_t *orow = right ? rrow : lrow, *xrow = right ? lrow : rrow;
    bool fill = s->index;
    for (int64_t i = 0; i < n && !fill; i++)
        fill = orow[i] < 0;
    ftype_t ty = !fill || a->type == b->type ? (ftype_t)own->type : FT_FLOAT64;
    return coalesce(own, other, orow, xrow, n, ty, out);
}

/* Each output row's key group (rows of equal keys share one): left's
 * groups, then right's unmatched ones. NULL when out of memory. */
static int64_t *row_groups(const dfa_keys_t *lk, int64_t nl, const int64_t *rgid,
                           const int64_t *lrow, const int64_t *rrow, int64_t total)
{
    dfa_htab_t t = {0};
    int64_t *lg = dfa_alloc(nl, sizeof *lg), *grp = dfa_alloc(total, sizeof *grp);
    if (!lg || !grp || dfa_group(lk, nl, NULL, lg, &t)) {
        free(grp);
        grp = NULL;
    } else {
        for (int64_t i = 0; i < total; i++)
            grp[i] = lrow[i] >= 0 ? lg[lrow[i]] : t.ngroups + rgid[rrow[i]];
    }
    dfa_htab_free(&t);
    free(lg);
    return grp;
}

int df_merge_part(const frame_t *left, const frame_t *right, const merge_spec_t *s, frame_t *out,
                  char *err, size_t errlen)
{
    return df_merge_rows(left, right, s, out, NULL, err, errlen);
}

/* right's groups: first[j] = the first row of row j's group; gsize (when
 * not NULL) the group's size at its first row, 0 elsewhere. t: the
 * groups' table (dfa_group's), the caller's to free. */
static int right_groups(const dfa_keys_t *rk, int64_t nr, int64_t *first, int64_t *gsize,
                        dfa_htab_t *t)
{
    if (dfa_group(rk, nr, NULL, first, t)) return -1;
    if (gsize) memset(gsize, 0, (size_t)nr * sizeof *gsize);
    for (int64_t j = 0; j < nr; j++) {
        first[j] = t->grep[first[j]];
        if (gsize) gsize[first[j]]++;
    }
    return 0;
}

static void merge_keys(const frame_t *left, const frame_t *right, const merge_spec_t *s,
                       dfa_keys_t *lk, dfa_keys_t *rk)
{
    lk->nk = rk->nk = s->n_on;
    for (int k = 0; k < s->n_on; k++) {
        lk->k[k] = key_col(left, s->lon[k]);
        rk->k[k] = key_col(right, s->ron[k]);
    }
}

int df_merge_first(const frame_t *left, const frame_t *right, const merge_spec_t *s, int64_t *first,
                   char *err, size_t errlen)
{
    if (check(left, right, s, err, errlen)) return -1;
    dfa_keys_t lk, rk;
    merge_keys(left, right, s, &lk, &rk);
    dfa_htab_t t = {0};
    int rc = right_groups(&rk, right->nrows, first, NULL, &t);
    dfa_htab_free(&t);
    return rc ? errmsg(err, errlen, "merge: out of memory grouping %lld rows",
                       (long long)right->nrows)
              : 0;
}

int df_merge_match(const frame_t *left, const frame_t *right, const merge_spec_t *s,
                   int64_t *lfirst, int64_t *gsize, char *err, size_t errlen)
{
    if (check(left, right, s, err, errlen)) return -1;
    dfa_keys_t lk, rk;
    merge_keys(left, right, s, &lk, &rk);
    int64_t nl = left->nrows, nr = right->nrows;
    dfa_htab_t t = {0};
    int64_t *first = dfa_alloc(nr, sizeof *first);
    uint64_t *lh = dfa_alloc(nl, sizeof *lh);
    int rc = -1;
    if (first && lh && right_groups(&rk, nr, first, gsize, &t) == 0) {
        dfa_hash_rows(lk.k, lk.nk, nl, lh);
        if (dfa_htab_find_rows(&t, &rk, &lk, nl, lh, lfirst) == 0) {
            for (int64_t i = 0; i < nl; i++)
                lfirst[i] = lfirst[i] >= 0 ? t.grep[lfirst[i]] : -1;
            rc = 0;
        }
    }
    free(first);
    free(lh);
    dfa_htab_free(&t);
    return rc ? errmsg(err, errlen, "merge: out of memory matching %lld rows", (long long)nl) : 0;
}

/* lkey[c]: left's column c holds both sides' key (on=, join's on=);
 * rdrop[c]: right's copy of such a key, dropped; rkey[c]: right's column c
 * holds both sides' key (lindex) */
static void key_cols(const frame_t *left, const frame_t *right, const merge_spec_t *s, bool *lkey,
                     bool *rdrop, bool *rkey)
{
    memset(lkey, 0, (size_t)left->ncols + 1);
    memset(rdrop, 0, (size_t)right->ncols + 1);
    memset(rkey, 0, (size_t)right->ncols + 1);
    for (int k = 0; k < s->n_on; k++)
        if (s->lindex)
            rkey[s->ron[k]] = true;
        else if (!s->index && !s->distinct[k]) {
            lkey[s->lon[k]] = true;
            if (!s->rindex) rdrop[s->ron[k]] = true;
        }
}

/* The merge's rows as pairs (left row, right row; -1: none) in pandas'
 * order for one part: *lrow, *rrow (*total of them, the caller's to free)
 * and, when rgid_out is not NULL, right's key groups (rgid_out[nr]). */
static int pairs(const frame_t *left, const frame_t *right, const merge_spec_t *s,
                 int64_t **lrow_out, int64_t **rrow_out, int64_t *total_out, int64_t **rgid_out,
                 char *err, size_t errlen)
{
    *lrow_out = *rrow_out = NULL;
    *total_out = 0;
    if (rgid_out) *rgid_out = NULL;
    if (check(left, right, s, err, errlen)) return -1;
    int64_t nl = left->nrows, nr = right->nrows;
    dfa_keys_t lk, rk;
    merge_keys(left, right, s, &lk, &rk);
    bool keep_l = s->how == MERGE_LEFT || s->how == MERGE_OUTER;
    bool keep_r = s->how == MERGE_RIGHT || s->how == MERGE_OUTER;

    dfa_htab_t t = {0};
    int64_t *rgid = dfa_alloc(nr, sizeof *rgid), *lgid = dfa_alloc(nl, sizeof *lgid);
    uint64_t *lh = dfa_alloc(nl, sizeof *lh);
    int64_t *gstart = NULL, *grows = NULL, *lrow = NULL, *rrow = NULL;
    uint8_t *rmatched = NULL;
    int ret;
    if (!rgid || !lgid || !lh || dfa_group(&rk, nr, NULL, rgid, &t)) goto nomem;
    int64_t ng = t.ngroups;
    /* right rows by group, in row order */
    gstart = dfa_alloc(ng + 1, sizeof *gstart);
    grows = dfa_alloc(nr, sizeof *grows);
    rmatched = dfa_alloc(ng, 1);
    if (!gstart || !grows || !rmatched) goto nomem;
    memset(gstart, 0, (size_t)(ng + 1) * sizeof *gstart);
    memset(rmatched, 0, (size_t)ng);
    for (int64_t i = 0; i < nr; i++)
        gstart[rgid[i] + 1]++;
    for (int64_t g = 0; g < ng; g++)
        gstart[g + 1] += gstart[g];
    for (int64_t i = 0; i < nr; i++)
        grows[gstart[rgid[i]]++] = i;
    for (int64_t g = ng; g > 0; g--)
        gstart[g] = gstart[g - 1];
    gstart[0] = 0;

    dfa_hash_rows(lk.k, lk.nk, nl, lh);
    if (dfa_htab_find_rows(&t, &rk, &lk, nl, lh, lgid)) goto nomem;
    int64_t total = 0;
    for (int64_t i = 0; i < nl; i++) {
        int64_t g = lgid[i];
        int64_t m = g >= 0 ? gstart[g + 1] - gstart[g] : keep_l ? 1 : 0;
        if (g >= 0) rmatched[g] = 1;
        if (__builtin_add_overflow(total, m, &total)) goto toobig;
    }
    if (keep_r)
        for (int64_t g = 0; g < ng; g++)
            if (!rmatched[g] && __builtin_add_overflow(total, gstart[g + 1] - gstart[g], &total))
                goto toobig;
    lrow = dfa_alloc(total, sizeof *lrow);
    rrow = dfa_alloc(total, sizeof *rrow);
    if (!lrow || !rrow) goto toobig;
    int64_t o = 0;
    for (int64_t i = 0; i < nl; i++) {
        int64_t g = lgid[i];
        if (g >= 0) {
            for (int64_t j = gstart[g]; j < gstart[g + 1]; j++, o++) {
                lrow[o] = i;
                rrow[o] = grows[j];
            }
        } else if (keep_l) {
            lrow[o] = i;
            rrow[o++] = -1;
        }
    }
    if (keep_r)
        for (int64_t i = 0; i < nr; i++)
            if (!rmatched[rgid[i]]) {
                lrow[o] = -1;
                rrow[o++] = i;
            }
    *lrow_out = lrow;
    *rrow_out = rrow;
    *total_out = total;
    if (rgid_out) {
        *rgid_out = rgid;
        rgid = NULL;
    }
    lrow = rrow = NULL;
    ret = 0;
    goto done;
toobig:
    ret = errmsg(err, errlen, "merge: %lld x %lld rows give too many rows for memory",
                 (long long)nl, (long long)nr);
    goto done;
nomem:
    ret = errmsg(err, errlen, "merge: out of memory joining %lld and %lld rows", (long long)nl,
                 (long long)nr);
done:
    dfa_htab_free(&t);
    free(rgid);
    free(lgid);
    free(lh);
    free(gstart);
    free(grows);
    free(rmatched);
    free(lrow);
    free(rrow);
    return ret;
}

int df_merge_take(const frame_t *left, const frame_t *right, const merge_spec_t *s,
                  const int64_t *lrow, const int64_t *rrow, int64_t total, frame_t *out, char *err,
                  size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check(left, right, s, err, errlen)) return -1;
    dfa_keys_t lk, rk;
    merge_keys(left, right, s, &lk, &rk);
    bool lkey[left->ncols + 1], rdrop[right->ncols + 1], rkey[right->ncols + 1];
    key_cols(left, right, s, lkey, rdrop, rkey);
    /* columns: left's (keys in place), then right's but its dropped keys;
     * names both give get the suffixes */
    int nout = left->ncols;
    for (int c = 0; c < right->ncols; c++)
        nout += !rdrop[c];
    const frame_t *kept = s->rindex ? left : s->lindex ? right : NULL;
    if (frame_alloc(out, false, total, nout, s->index ? s->n_on : kept ? kept->nidx : 1))
        goto nomem;
    if (kept) { /* one side's labels; missing (unnamed) where only the other has the row */
        bool named = merge_side_index_named(s);
        const int64_t *rows = kept == left ? lrow : rrow;
        for (int k = 0; k < kept->nidx; k++)
            if (dfa_take_col(&kept->idx[k], rows, total, false, &out->idx[k]) ||
                (named &&
                 flabel_set(&out->idx_names[k], kept->idx_names[k].s, kept->idx_names[k].is_int)))
                goto nomem;
    } else if (s->index) {
        for (int k = 0; k < s->n_on; k++) {
            const flabel_t *ln = &left->idx_names[-1 - s->lon[k]];
            const flabel_t *rn = &right->idx_names[-1 - s->ron[k]];
            if (key_values(s, lk.k[k], rk.k[k], lrow, rrow, total, &out->idx[k]) ||
                (label_eq(ln, rn) && flabel_set(&out->idx_names[k], ln->s, ln->is_int)))
                goto nomem;
        }
    } else {
        out->range_index = true;
        if (fcol_alloc(&out->idx[0], FT_INT64, total, 0, false)) goto nomem;
        for (int64_t i = 0; i < total; i++)
            ((int64_t *)out->idx[0].data)[i] = i;
    }
    int at = 0;
    for (int c = 0; c < left->ncols; c++, at++) {
        const flabel_t *name = &left->names[c];
        int rc;
        if (lkey[c]) {
            int k = 0;
            while (s->index || s->distinct[k] || s->lon[k] != c)
                k++;
            rc = key_values(s, lk.k[k], rk.k[k], lrow, rrow, total, &out->cols[at]);
        } else {
            rc = dfa_take_col(&left->cols[c], lrow, total, false, &out->cols[at]);
        }
        if (rc) goto nomem;
        bool clash = false;
        for (int d = 0; d < right->ncols; d++)
            clash |= !rdrop[d] && label_eq(name, &right->names[d]);
        rc = clash ? label_suffix(&out->names[at], name, suffix(s, 0))
                   : flabel_set(&out->names[at], name->s, name->is_int);
        if (rc) goto nomem;
    }
    for (int c = 0; c < right->ncols; c++) {
        if (rdrop[c]) continue;
        const flabel_t *name = &right->names[c];
        int rc;
        if (rkey[c]) {
            int k = 0;
            while (s->ron[k] != c)
                k++;
            rc = key_values(s, lk.k[k], rk.k[k], lrow, rrow, total, &out->cols[at]);
        } else {
            rc = dfa_take_col(&right->cols[c], rrow, total, false, &out->cols[at]);
        }
        if (rc) goto nomem;
        bool clash = false;
        for (int d = 0; d < left->ncols; d++)
            clash |= label_eq(name, &left->names[d]);
        rc = clash ? label_suffix(&out->names[at], name, suffix(s, 1))
                   : flabel_set(&out->names[at], name->s, name->is_int);
        if (rc) goto nomem;
        at++;
    }
    return 0;
nomem:
    frame_free(out);
    return errmsg(err, errlen, "merge: out of memory joining %lld and %lld rows",
                  (long long)left->nrows, (long long)right->nrows);
}

int df_merge_pairs(const frame_t *left, const frame_t *right, const merge_spec_t *s,
                   df_merge_rows_t *rows, char *err, size_t errlen)
{
    memset(rows, 0, sizeof *rows);
    return pairs(left, right, s, &rows->left, &rows->right, &rows->n, NULL, err, errlen);
}

int df_merge_rows(const frame_t *left, const frame_t *right, const merge_spec_t *s, frame_t *out,
                  df_merge_rows_t *rows, char *err, size_t errlen)
{
    if (rows) memset(rows, 0, sizeof *rows);
    memset(out, 0, sizeof *out);
    int64_t *lrow, *rrow, *rgid = NULL, total;
    if (pairs(left, right, s, &lrow, &rrow, &total, rows ? &rgid : NULL, err, errlen)) return -1;
    int ret = df_merge_take(left, right, s, lrow, rrow, total, out, err, errlen);
    if (ret == 0 && rows) {
        dfa_keys_t lk, rk;
        merge_keys(left, right, s, &lk, &rk);
        if (!(rows->group = row_groups(&lk, left->nrows, rgid, lrow, rrow, total))) {
            frame_free(out);
            ret = errmsg(err, errlen, "merge: out of memory joining %lld and %lld rows",
                         (long long)left->nrows, (long long)right->nrows);
        } else {
            rows->left = lrow;
            rows->right = rrow;
            rows->n = total;
            lrow = rrow = NULL;
        }
    }
    free(lrow);
    free(rrow);
    free(rgid);
    return ret;
}

void df_merge_rows_free(df_merge_rows_t *rows)
{
    free(rows->left);
    free(rows->right);
    free(rows->group);
    memset(rows, 0, sizeof *rows);
}
