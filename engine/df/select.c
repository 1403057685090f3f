/* select.c: selection and index ops (select.h). */
#include "select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo_util.h"
#include "dfexec.h"

static int oom(char *err, size_t errlen)
{
    return errmsg(err, errlen, "out of memory");
}

/* A shallow frame of in's rows: columns cols[0..nc) of in (labels from the
 * schema d when given) and index levels from idx (nidx of them). */
static int shallow_of(const frame_t *in, bool series, const int *cols, int nc, frame_t *f)
{
    if (frame_alloc(f, series, in->nrows, nc, in->nidx)) return -1;
    f->view = true;
    for (int k = 0; k < nc; k++) {
        f->cols[k] = in->cols[cols ? cols[k] : k];
        f->names[k] = in->names[cols ? cols[k] : k];
    }
    memcpy(f->idx, in->idx, sizeof(fcol_t) * (size_t)in->nidx);
    memcpy(f->idx_names, in->idx_names, sizeof(flabel_t) * (size_t)in->nidx);
    f->range_index = in->range_index;
    return 0;
}

/* Rows rows[0..n) of in, columns sel (all when sel NULL). */
static int take(const df_node_t *d, const frame_t *in, bool series, const int64_t *rows, int64_t n,
                frame_t *out, char *err, size_t errlen)
{
    frame_t s;
    if (shallow_of(in, series, d->sel, d->sel ? d->nsel : in->ncols, &s)) return oom(err, errlen);
    int rc = frame_take(&s, rows, n, out);
    frame_free(&s);
    if (rc) return oom(err, errlen);
    out->range_index = false; /* the labels were renumbered by the concatenation */
    return 0;
}

static int64_t *iota(int64_t n)
{
    int64_t *r = dfa_alloc(n, sizeof *r);
    for (int64_t i = 0; r && i < n; i++)
        r[i] = i;
    return r;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* nlargest and nsmallest, as pandas 1.5's SelectNSeries for one key:
 * - n at least the row count: every row, stably sorted (descending for
 *   nlargest; equal keys in their order), missing keys last in their order
 *   (pandas sorts the whole with sort_values; keep plays no part);
 * - else the rows with a key, stably sorted with keep "last" taking the
 *   later of equal rows first, the first n, then rows with a missing key in
 *   their order while fewer than n.
 * With several keys a row with any missing key is left out (no padding).
 * keep "all" (3) takes the first n and every row tied with the n-th, or,
 * when fewer than n rows have a key, those and every row without one: the
 * rows SelectNSeries keeps (their order as above, which is also pandas'
 * when n reaches the row count).
 * map: a chunk's candidates for the job that ranks them all, in their
 * original order: n + 1 rows with a key and n + 1 without, so that the
 * ranking job sees at most n rows only when the whole has at most n. */
static int top_n(const df_node_t *d, op_t op, const frame_t *in, bool map, frame_t *out, char *err,
                 size_t errlen)
{
    int64_t n = in->nrows, m = 0, want = d->n;
    bool whole = !map && n <= want, back = d->keep == 1 && !whole;
    dfa_keys_t ks = {0};
    ks.nk = d->nkey;
    for (int k = 0; k < d->nkey; k++)
        ks.k[k] = &in->cols[d->key[k]];
    bool asc[DF_MAX_KEYS + 1];
    for (int k = 0; k <= DF_MAX_KEYS; k++)
        asc[k] = op == OP_DF_NSMALLEST;
    int64_t *rows = dfa_alloc(n + 1, sizeof *rows);
    if (!rows) return oom(err, errlen);
    for (int64_t q = 0; q < n; q++) { /* the rows with a key */
        int64_t i = back ? n - 1 - q : q;
        if (!dfa_keys_any_na(&ks, i)) rows[m++] = i;
    }
    if (dfa_argsort(&ks, asc, rows, m)) {
        free(rows);
        return oom(err, errlen);
    }
    int64_t cap = map && want < INT64_MAX ? want + 1 : want;
    int64_t take_m = m < cap ? m : cap, room = map ? cap : cap - take_m, take_na = 0;
    if (d->keep == 3) {
        /* keep "all": the first n and every row tied with the n-th; when
         * fewer than n rows have a key, every row without one (one key).
         * A chunk's map is the same: a superset of its rows in the whole's */
        take_m = m < want ? m : want;
        while (take_m > 0 && take_m < m && dfa_keys_eq(&ks, rows[take_m], &ks, rows[take_m - 1]))
            take_m++;
        room = m < want ? INT64_MAX : 0;
    }
    /* then those without one, in their order (one key only), while room */
    for (int64_t i = 0; ks.nk == 1 && i < n && take_na < room; i++)
        if (dfa_keys_any_na(&ks, i)) rows[take_m + take_na++] = i;
    int64_t take_n = take_m + take_na;
    if (map) qsort(rows, (size_t)take_n, sizeof *rows, cmp_i64);
    frame_t s;
    if (shallow_of(in, in->series, NULL, in->ncols, &s)) {
        free(rows);
        return oom(err, errlen);
    }
    int rc = frame_take(&s, rows, take_n, out) ? oom(err, errlen) : 0;
    if (rc == 0) out->range_index = false;
    frame_free(&s);
    free(rows);
    return rc;
}

/* ------------------------------------------------------------------ the map */

int df_select_map(const df_node_t *d, op_t op, const frame_t *in, int64_t row0, frame_t *out,
                  char *err, size_t errlen)
{
    if (op == OP_DF_NLARGEST || op == OP_DF_NSMALLEST)
        return top_n(d, op, in, true, out, err, errlen);
    int nidx = d->nidx;
    if (frame_alloc(out, op == OP_DF_RESET_INDEX && in->series && d->drop, in->nrows, d->ncols,
                    nidx))
        return oom(err, errlen);
    for (int k = 0; k < d->ncols; k++)
        if (flabel_set(&out->names[k], d->cols[k].name, d->cols[k].is_int)) goto fail;
    for (int k = 0; k < nidx; k++)
        if (flabel_set(&out->idx_names[k], d->idx[k].name, d->idx[k].is_int)) goto fail;
    if (op == OP_DF_SET_INDEX) {
        int at = 0;
        for (int k = 0; d->append && k < in->nidx; k++)
            if (fcol_copy(&in->idx[k], &out->idx[at++])) goto fail;
        for (int k = 0; k < d->nkey; k++)
            if (fcol_copy(&in->cols[d->key[k]], &out->idx[at++])) goto fail;
        for (int k = 0; k < d->ncols; k++)
            if (fcol_copy(&in->cols[d->sel[k]], &out->cols[k])) goto fail;
        return 0;
    }
    /* reset_index: the levels become the first columns, a new default index */
    int lead = d->drop ? 0 : in->nidx;
    for (int k = 0; k < lead; k++)
        if (fcol_copy(&in->idx[k], &out->cols[k])) goto fail;
    for (int k = lead; k < d->ncols; k++)
        if (fcol_copy(&in->cols[k - lead], &out->cols[k])) goto fail;
    if (fcol_alloc(&out->idx[0], FT_INT64, in->nrows, 0, false)) goto fail;
    for (int64_t i = 0; i < in->nrows; i++)
        ((int64_t *)out->idx[0].data)[i] = (row0 >= 0 ? row0 : 0) + i;
    out->range_index = row0 < 0;
    return 0;
fail:
    frame_free(out);
    return oom(err, errlen);
}

/* ------------------------------------------------------------------ sample */

/* numpy's legacy MT19937 (RandomState(seed)) and random_interval. */
typedef struct {
    uint32_t mt[624];
    int pos;
} mt_t;

static void mt_seed(mt_t *m, uint32_t s)
{
    for (int i = 0; i < 624; i++) {
        m->mt[i] = s;
        s = 1812433253u * (s ^ (s >> 30)) + (uint32_t)i + 1;
    }
    m->pos = 624;
}

static uint32_t mt_next(mt_t *m)
{
    if (m->pos >= 624) {
        for (int i = 0; i < 624; i++) {
            uint32_t y = (m->mt[i] & 0x80000000u) | (m->mt[(i + 1) % 624] & 0x7fffffffu);
            m->mt[i] = m->mt[(i + 397) % 624] ^ (y >> 1) ^ ((y & 1) ? 0x9908b0dfu : 0);
        }
        m->pos = 0;
    }
    uint32_t y = m->mt[m->pos++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

static uint64_t mt_next64(mt_t *m)
{
    uint64_t hi = mt_next(m);
    return (hi << 32) | mt_next(m);
}

static uint64_t mt_interval(mt_t *m, uint64_t max)
{
    if (max == 0) return 0;
    uint64_t mask = max, v;
    for (int s = 1; s < 64; s <<= 1)
        mask |= mask >> s;
    if (max <= 0xffffffffu) {
        while ((v = (mt_next(m) & mask)) > max) {
        }
    } else {
        while ((v = (mt_next64(m) & mask)) > max) {
        }
    }
    return v;
}

/* ------------------------------------------------------------------ whole */

static bool label_eq(const fcol_t *c, int64_t i, const df_lit_t *l)
{
    if (fcol_is_na(c, i)) return l->kind == DFL_NAN;
    switch (c->type) {
    case FT_STRING: {
        if (l->kind != DFL_STR) return false;
        int64_t n;
        const char *s = fcol_str(c, i, &n);
        return (size_t)n == strlen(l->s) && !memcmp(s, l->s, (size_t)n);
    }
    case FT_INT64:
        if (l->kind == DFL_NUM && l->is_int) return ((const int64_t *)c->data)[i] == l->i;
        return l->kind == DFL_NUM && dfa_num(c, i) == l->f;
    case FT_FLOAT64:
        return l->kind == DFL_NUM && dfa_num(c, i) == l->f;
    default:
        return l->kind == DFL_BOOL && ((const uint8_t *)c->data)[i] == (l->i != 0);
    }
}

/* sign of (value i of c) - l, both present and of matching kinds */
static int label_cmp(const fcol_t *c, int64_t i, const df_lit_t *l)
{
    if (c->type == FT_STRING) {
        int64_t n;
        const char *s = fcol_str(c, i, &n);
        size_t ln = strlen(l->s), m = (size_t)n < ln ? (size_t)n : ln;
        int r = memcmp(s, l->s, m);
        if (r) return r < 0 ? -1 : 1;
        return ((size_t)n > ln) - ((size_t)n < ln);
    }
    if (c->type == FT_INT64 && l->is_int) {
        int64_t v = ((const int64_t *)c->data)[i];
        return (v > l->i) - (v < l->i);
    }
    double v = dfa_num(c, i);
    return (v > l->f) - (v < l->f);
}

static bool lit_kind_ok(const fcol_t *c, const df_lit_t *l)
{
    return c->type == FT_STRING ? l->kind == DFL_STR : l->kind == DFL_NUM || l->kind == DFL_BOOL;
}

static void lit_text(const df_lit_t *l, char *b, size_t n)
{
    if (l->kind == DFL_STR)
        snprintf(b, n, "'%.80s'", l->s);
    else if (l->kind == DFL_NUM && l->is_int)
        snprintf(b, n, "%lld", (long long)l->i);
    else if (l->kind == DFL_NUM)
        snprintf(b, n, "%.17g", l->f);
    else
        snprintf(b, n, "%s", l->kind == DFL_BOOL ? (l->i ? "True" : "False") : "nan");
}

static int run_loc(const df_node_t *d, const frame_t *in, frame_t *out, char *err, size_t errlen)
{
    const fcol_t *ix = &in->idx[0];
    int64_t n = in->nrows;
    int64_t cap = n + 1, m = 0;
    int64_t *rows = NULL;
    if (d->has_lo || d->has_hi) {
        /* a label slice, both ends included, on an increasing index */
        for (int64_t i = 1; i < n; i++)
            if (fcol_is_na(ix, i) || fcol_is_na(ix, i - 1) ||
                dfa_cell_cmp_present(ix, i - 1, ix, i) > 0)
                return errmsg(err, errlen,
                              "loc: a label slice needs an increasing index without missing "
                              "labels (sort_index first)");
        if ((d->has_lo && !lit_kind_ok(ix, &d->lo)) || (d->has_hi && !lit_kind_ok(ix, &d->hi)))
            return errmsg(err, errlen, "loc: the slice's labels are not of the index's type");
        if (!(rows = dfa_alloc(cap, sizeof *rows))) return oom(err, errlen);
        for (int64_t i = 0; i < n; i++)
            if ((!d->has_lo || label_cmp(ix, i, &d->lo) >= 0) &&
                (!d->has_hi || label_cmp(ix, i, &d->hi) <= 0))
                rows[m++] = i;
    } else if (d->drop) {
        /* pandas' drop: the rows of none of the labels, in their order; a
         * label of no row is its KeyError "not found in axis" (but with
         * errors "ignore") */
        uint8_t *out_row = dfa_alloc(cap, 1);
        if (!out_row || !(rows = dfa_alloc(cap, sizeof *rows))) {
            free(out_row);
            return oom(err, errlen);
        }
        memset(out_row, 0, (size_t)cap);
        for (int q = 0; q < d->nlit; q++) {
            int64_t hits = 0;
            for (int64_t i = 0; i < n; i++)
                if (label_eq(ix, i, &d->lits[q])) out_row[i] = 1, hits++;
            if (hits == 0 && !d->lenient) {
                char b[128];
                lit_text(&d->lits[q], b, sizeof b);
                free(out_row);
                free(rows);
                return errmsg(err, errlen, "drop: [%s] not found in axis", b);
            }
        }
        for (int64_t i = 0; i < n; i++)
            if (!out_row[i]) rows[m++] = i;
        free(out_row);
    } else {
        /* labels: every row of each, in the list's order; a missing one is
         * pandas' KeyError */
        int64_t total = 0;
        for (int q = 0; q < d->nlit; q++) {
            int64_t hits = 0;
            for (int64_t i = 0; i < n; i++)
                hits += label_eq(ix, i, &d->lits[q]);
            if (hits == 0) {
                char b[128];
                lit_text(&d->lits[q], b, sizeof b);
                return errmsg(err, errlen, "loc: [%s] not in index", b);
            }
            total += hits;
        }
        if (!(rows = dfa_alloc(total + 1, sizeof *rows))) return oom(err, errlen);
        for (int q = 0; q < d->nlit; q++)
            for (int64_t i = 0; i < n; i++)
                if (label_eq(ix, i, &d->lits[q])) rows[m++] = i;
    }
    int rc = take(d, in, in->series, rows, m, out, err, errlen);
    free(rows);
    return rc;
}

int df_select_whole(const df_node_t *d, op_t op, const frame_t *in, frame_t *out, char *err,
                    size_t errlen)
{
    int64_t n = in->nrows, m = 0;
    int64_t *rows = NULL;
    int rc = -1;
    switch (op) {
    case OP_DF_TAIL: {
        int64_t k = d->n < n ? d->n : n;
        if (!(rows = iota(n))) return oom(err, errlen);
        rc = take(d, in, in->series, rows + (n - k), k, out, err, errlen);
        free(rows);
        return rc;
    }
    case OP_DF_ILOC: {
        if (!(rows = dfa_alloc(d->row_slice ? n + 1 : d->npos + 1, sizeof *rows)))
            return oom(err, errlen);
        if (d->row_slice) {
            /* Python's slice.indices */
            int64_t st = d->sl_has[2] ? d->sl[2] : 1, a, b;
            if (st > 0) {
                a = d->sl_has[0] ? d->sl[0] : 0;
                b = d->sl_has[1] ? d->sl[1] : n;
                if (a < 0) a = a + n < 0 ? 0 : a + n;
                if (b < 0) b = b + n < 0 ? 0 : b + n;
                if (a > n) a = n;
                if (b > n) b = n;
                for (int64_t i = a; i < b; i += st)
                    rows[m++] = i;
            } else {
                a = d->sl_has[0] ? d->sl[0] : n - 1;
                b = d->sl_has[1] ? d->sl[1] : -n - 1;
                if (a < 0) a = a + n < -1 ? -1 : a + n;
                if (b < 0) b = b + n < -1 ? -1 : b + n;
                if (a > n - 1) a = n - 1;
                if (b > n - 1) b = n - 1;
                for (int64_t i = a; i > b; i += st)
                    rows[m++] = i;
            }
        } else {
            for (int64_t q = 0; q < d->npos; q++) {
                int64_t p = d->pos[q] < 0 ? d->pos[q] + n : d->pos[q];
                if (p < 0 || p >= n) {
                    free(rows);
                    return errmsg(err, errlen,
                                  "iloc: positional indexers are out-of-bounds "
                                  "(row %lld of %lld)",
                                  (long long)d->pos[q], (long long)n);
                }
                rows[m++] = p;
            }
        }
        rc = take(d, in, in->series, rows, m, out, err, errlen);
        free(rows);
        return rc;
    }
    case OP_DF_LOC:
        return run_loc(d, in, out, err, errlen);
    case OP_DF_SORT_INDEX: {
        dfa_keys_t ks = {0};
        ks.nk = in->nidx;
        for (int k = 0; k < in->nidx; k++)
            ks.k[k] = &in->idx[k];
        ks.na_first = d->sort.na_first;
        bool asc[DF_MAX_KEYS + 1];
        for (int k = 0; k <= DF_MAX_KEYS; k++)
            asc[k] = d->asc1;
        if (!(rows = iota(n)) || dfa_argsort(&ks, asc, rows, n)) {
            free(rows);
            return oom(err, errlen);
        }
        rc = take(d, in, in->series, rows, n, out, err, errlen);
        free(rows);
        return rc;
    }
    case OP_DF_NLARGEST:
    case OP_DF_NSMALLEST:
        return top_n(d, op, in, false, out, err, errlen);
    case OP_DF_DROP_DUPLICATES:
    case OP_DF_DUPLICATED: {
        dfa_keys_t ks = {0};
        ks.nk = d->nkey;
        for (int k = 0; k < d->nkey; k++)
            ks.k[k] = &in->cols[d->key[k]];
        int64_t *gid = dfa_alloc(n + 1, sizeof *gid);
        int64_t *cnt = NULL, *last = NULL;
        uint8_t *dup = dfa_alloc(n + 1, 1);
        dfa_htab_t t = {0};
        bool ok = gid && dup && (ks.nk == 0 || dfa_group(&ks, n, NULL, gid, &t) == 0);
        if (ok && ks.nk == 0)
            for (int64_t i = 0; i < n; i++)
                gid[i] = 0;
        int64_t ng = ks.nk ? t.ngroups : 1;
        ok = ok && (cnt = dfa_alloc(ng + 1, sizeof *cnt)) &&
             (last = dfa_alloc(ng + 1, sizeof *last));
        if (ok) {
            for (int64_t g = 0; g < ng; g++)
                cnt[g] = 0, last[g] = -1;
            for (int64_t i = 0; i < n; i++) {
                cnt[gid[i]]++;
                last[gid[i]] = i;
            }
            int64_t *seen = dfa_alloc(ng + 1, sizeof *seen);
            if (!seen) ok = false;
            for (int64_t g = 0; ok && g < ng; g++)
                seen[g] = 0;
            for (int64_t i = 0; ok && i < n; i++) {
                int64_t g = gid[i];
                dup[i] = d->keep == 0 ? seen[g] > 0 : d->keep == 1 ? last[g] != i : cnt[g] > 1;
                seen[g]++;
            }
            free(seen);
        }
        if (ok && op == OP_DF_DUPLICATED) {
            if (frame_alloc(out, true, n, 1, in->nidx) ||
                fcol_alloc(&out->cols[0], FT_BOOL, n, 0, false)) {
                ok = false;
            } else {
                memcpy(out->cols[0].data, dup, (size_t)n);
                ok = !frame_copy_index(in, out);
            }
            rc = ok ? 0 : -1;
        } else if (ok) {
            if (!(rows = dfa_alloc(n + 1, sizeof *rows))) ok = false;
            for (int64_t i = 0; ok && i < n; i++)
                if (!dup[i]) rows[m++] = i;
            if (ok) {
                frame_t s;
                ok = !shallow_of(in, in->series, NULL, in->ncols, &s);
                if (ok) {
                    ok = !frame_take(&s, rows, m, out);
                    if (ok) out->range_index = false;
                    frame_free(&s);
                }
            }
            rc = ok ? 0 : -1;
            free(rows);
        }
        if (ks.nk) dfa_htab_free(&t);
        free(gid);
        free(cnt);
        free(last);
        free(dup);
        return rc ? oom(err, errlen) : 0;
    }
    case OP_DF_SAMPLE: {
        int64_t k = d->n;
        if (d->has_frac) {
            double x = d->frac * (double)n, r = rint(x); /* Python's round: half to even */
            k = (int64_t)r;
        }
        if (k > n)
            return errmsg(err, errlen,
                          "sample: Cannot take a larger sample than population when "
                          "'replace=False'");
        if (!(rows = iota(n))) return oom(err, errlen);
        mt_t mt;
        mt_seed(&mt, (uint32_t)d->seed);
        for (int64_t i = n - 1; i > 0; i--) {
            int64_t j = (int64_t)mt_interval(&mt, (uint64_t)i);
            int64_t tmp = rows[i];
            rows[i] = rows[j];
            rows[j] = tmp;
        }
        rc = take(d, in, in->series, rows, k, out, err, errlen);
        free(rows);
        return rc;
    }
    case OP_DF_MELT: {
        /* for each value column in order, every row: the ids, its name, its value */
        int64_t nv = d->nsel, total;
        if (__builtin_mul_overflow(n, nv, &total)) return oom(err, errlen);
        if (!(rows = dfa_alloc(total + 1, sizeof *rows))) return oom(err, errlen);
        for (int64_t v = 0; v < nv; v++)
            for (int64_t i = 0; i < n; i++)
                rows[v * n + i] = i;
        int ni = d->nkey;
        if (frame_alloc(out, false, total, ni + 2, 1)) goto melt_fail;
        for (int k = 0; k < ni + 2; k++)
            if (flabel_set(&out->names[k], d->cols[k].name, d->cols[k].is_int)) goto melt_fail;
        for (int k = 0; k < ni; k++)
            if (dfa_take_col(&in->cols[d->key[k]], rows, total, true, &out->cols[k]))
                goto melt_fail;
        int64_t nb = 1;
        for (int64_t v = 0; v < nv; v++)
            nb += n * (int64_t)strlen(in->names[d->sel[v]].s);
        fcol_t *vc = &out->cols[ni];
        if (fcol_alloc(vc, FT_STRING, total, nb, false)) goto melt_fail;
        int64_t at = 0;
        for (int64_t v = 0; v < nv; v++) {
            const char *nm = in->names[d->sel[v]].s;
            size_t l = strlen(nm);
            for (int64_t i = 0; i < n; i++) {
                memcpy(vc->bytes + at, nm, l);
                at += (int64_t)l;
                vc->offsets[v * n + i + 1] = at;
            }
        }
        vc->bytes[at] = 0;
        /* the values, column after column (int64 widened when mixed) */
        int vt = d->cols[ni + 1].type;
        frame_t parts = {0};
        if (vt == FT_STRING || vt == FT_BOOL) {
            /* gather through a take per column, then concatenate */
            frame_t *pv = calloc((size_t)nv, sizeof(frame_t));
            const frame_t **pp = calloc((size_t)nv, sizeof(frame_t *));
            int ok = pv && pp;
            for (int64_t v = 0; ok && v < nv; v++) {
                ok = !frame_alloc(&pv[v], false, n, 1, 1);
                if (!ok) break;
                pv[v].view = true;
                pv[v].cols[0] = in->cols[d->sel[v]];
                pv[v].idx[0] = in->idx[0];
                pp[v] = &pv[v];
            }
            ok = ok && !dfx_concat(pp, (int)nv, &parts, err, errlen);
            for (int64_t v = 0; pv && v < nv; v++)
                frame_free(&pv[v]);
            free(pv);
            free(pp);
            if (!ok) goto melt_fail;
            out->cols[ni + 1] = parts.cols[0];
            memset(&parts.cols[0], 0, sizeof parts.cols[0]);
            frame_free(&parts);
        } else {
            fcol_t *o = &out->cols[ni + 1];
            if (fcol_alloc(o, (ftype_t)vt, total, 0, false)) goto melt_fail;
            o->unit = d->cols[ni + 1].unit; /* datetimes' and timedeltas' ns */
            for (int64_t v = 0; v < nv; v++) {
                const fcol_t *c = &in->cols[d->sel[v]];
                for (int64_t i = 0; i < n; i++) {
                    if (vt == FT_FLOAT64)
                        ((double *)o->data)[v * n + i] = dfa_num(c, i);
                    else
                        ((int64_t *)o->data)[v * n + i] = ((const int64_t *)c->data)[i];
                }
            }
        }
        if (fcol_alloc(&out->idx[0], FT_INT64, total, 0, false)) goto melt_fail;
        for (int64_t i = 0; i < total; i++)
            ((int64_t *)out->idx[0].data)[i] = i;
        free(rows);
        return 0;
    melt_fail:
        free(rows);
        frame_free(out);
        return oom(err, errlen);
    }
    default:
        return errmsg(err, errlen, "internal: no whole-frame step for %s", op_name(op));
    }
}
