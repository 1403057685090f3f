/* clean.c: the row-wise cleaning ops (dataframe.fillna, dropna, isna,
 * notna, isin, astype, rename, drop, replace, clip, abs, round) on one
 * chunk, and fillna's carry for method ffill/bfill across chunk boundaries
 * (clean.h). Semantics are pandas 1.5's; the schema (output columns and
 * types) was inferred by graph_df.c. */
#include "clean.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../errmsg.h"
#include "../fpfmt.h"
#include "algo_util.h"
#include "df3.h"

static int oom(char *err, size_t errlen)
{
    return errmsg(err, errlen, "out of memory");
}

int df_out_like(const df_node_t *d, const frame_t *in, frame_t *out)
{
    if (frame_alloc(out, in->series, in->nrows, d->ncols, in->nidx)) return -1;
    for (int k = 0; k < d->ncols; k++)
        if (flabel_set(&out->names[k], d->cols[k].name, d->cols[k].is_int)) return -1;
    return frame_copy_index(in, out);
}

/* ------------------------------------------------------------------ values */

/* A string column from n pieces (ptr, len; ptr NULL: missing). */
static int str_col(fcol_t *c, int64_t n, const char *const *p, const int64_t *l)
{
    int64_t nb = 1;
    bool na = false;
    for (int64_t i = 0; i < n; i++) {
        nb += p[i] ? l[i] : 0;
        na |= !p[i];
    }
    if (fcol_alloc(c, FT_STRING, n, nb, na)) return -1;
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        if (p[i]) memcpy(c->bytes + at, p[i], (size_t)l[i]);
        at += p[i] ? l[i] : 0;
        c->offsets[i + 1] = at;
        if (!p[i]) c->valid[i] = 0;
    }
    c->bytes[at] = 0;
    return 0;
}

static double num_at(const fcol_t *c, int64_t i)
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

/* Does value i of c equal literal l (pandas' isin and replace matching)? */
static bool lit_eq(const fcol_t *c, int64_t i, const df_lit_t *l)
{
    bool na = fcol_is_na(c, i);
    if (l->kind == DFL_NAN) return na;
    if (na) return false;
    switch (c->type) {
    case FT_STRING: {
        if (l->kind != DFL_STR) return false;
        int64_t n;
        const char *s = fcol_str(c, i, &n);
        return (size_t)n == strlen(l->s) && !memcmp(s, l->s, (size_t)n);
    }
    case FT_INT64:
        if (l->kind == DFL_NUM && l->is_int) return ((const int64_t *)c->data)[i] == l->i;
        return l->kind == DFL_NUM && num_at(c, i) == l->f;
    case FT_FLOAT64:
        return l->kind == DFL_NUM && num_at(c, i) == l->f;
    default:
        return l->kind == DFL_BOOL && ((const uint8_t *)c->data)[i] == (l->i != 0);
    }
}

/* ------------------------------------------------------------------ fillna */

/* Column c with its missing values set to literal l (types checked by
 * inference: l fits c). */
static int fill_value(const fcol_t *c, const df_lit_t *l, int to, fcol_t *o)
{
    if (to == FT_FLOAT64 && c->type == FT_INT64 && c->unit == FU_NONE)
        return fcol_widen(c, o); /* a column typed chunk by chunk, float64 now (graph_df.c) */
    if (l->kind == DFL_NONE || l->kind == DFL_NAN || c->type == FT_INT64) return fcol_copy(c, o);
    int64_t n = c->n;
    if (c->type == FT_FLOAT64) {
        if (fcol_alloc(o, FT_FLOAT64, n, 0, false)) return -1;
        const double *x = c->data;
        double *y = o->data;
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i] == x[i] ? x[i] : l->f;
        return 0;
    }
    if (c->type == FT_BOOL) {
        if (fcol_alloc(o, FT_BOOL, n, 0, false)) return -1;
        const uint8_t *x = c->data;
        uint8_t *y = o->data;
        for (int64_t i = 0; i < n; i++)
            y[i] = fcol_is_na(c, i) ? (l->i != 0) : x[i];
        return 0;
    }
    const char **p = malloc(sizeof(char *) * (size_t)(n + 1));
    int64_t *ln = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int rc = -1;
    if (p && ln) {
        for (int64_t i = 0; i < n; i++) {
            if (fcol_is_na(c, i)) {
                p[i] = l->s;
                ln[i] = (int64_t)strlen(l->s);
            } else {
                p[i] = fcol_str(c, i, &ln[i]);
            }
        }
        rc = str_col(o, n, p, ln);
    }
    free(p);
    free(ln);
    return rc;
}

/* ffill (dir 1) or bfill (dir -1) of c, starting from value `start` of
 * column s (a 1-row carry; NULL or missing: nothing to carry). */
static int fill_dir(const fcol_t *c, int dir, const fcol_t *s, fcol_t *o)
{
    int64_t n = c->n;
    /* the source row of every value: itself, the previous present one, or
     * -1 (the carry), -2 (none) */
    int64_t *src = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!src) return -1;
    int64_t last = s && !fcol_is_na(s, 0) ? -1 : -2;
    bool any_na = false;
    for (int64_t q = 0; q < n; q++) {
        int64_t i = dir > 0 ? q : n - 1 - q;
        if (!fcol_is_na(c, i)) last = i;
        src[i] = last;
        any_na |= last == -2;
    }
    int rc = -1;
    if (c->type == FT_STRING) {
        const char **p = malloc(sizeof(char *) * (size_t)(n + 1));
        int64_t *ln = malloc(sizeof(int64_t) * (size_t)(n + 1));
        if (p && ln) {
            for (int64_t i = 0; i < n; i++) {
                p[i] = src[i] == -2   ? NULL
                       : src[i] == -1 ? fcol_str(s, 0, &ln[i])
                                      : fcol_str(c, src[i], &ln[i]);
            }
            rc = str_col(o, n, p, ln);
        }
        free(p);
        free(ln);
        free(src);
        return rc;
    }
    if (fcol_alloc(o, (ftype_t)c->type, n, 0, any_na && c->type == FT_BOOL)) goto done;
    size_t w = c->type == FT_BOOL ? 1 : 8;
    for (int64_t i = 0; i < n; i++) {
        char *dst = (char *)o->data + (size_t)i * w;
        if (src[i] == -2) {
            if (c->type == FT_FLOAT64)
                *(double *)dst = NAN;
            else if (c->type == FT_BOOL) {
                *dst = 0;
                o->valid[i] = 0;
            } else {
                memcpy(dst, (const char *)c->data + (size_t)i * w, w);
            }
            continue;
        }
        const fcol_t *f = src[i] == -1 ? s : c;
        int64_t r = src[i] == -1 ? 0 : src[i];
        if (f->type == c->type)
            memcpy(dst, (const char *)f->data + (size_t)r * w, w);
        else if (c->type == FT_FLOAT64)
            *(double *)dst = num_at(f, r);
    }
    rc = 0;
done:
    free(src);
    return rc;
}

/* ------------------------------------------------------------------ astype */

static int astype_col(const fcol_t *c, int to, fcol_t *o, char *err, size_t errlen)
{
    int64_t n = c->n;
    if (c->type == to) return fcol_copy(c, o) ? oom(err, errlen) : 0;
    if (to == FT_STRING) {
        /* str(): numbers as Python writes them; a missing string is 'None'
         * (pandas' astype(str) of None), a NaN 'nan' */
        char *buf = malloc((size_t)(n + 1) * 40);
        const char **p = malloc(sizeof(char *) * (size_t)(n + 1));
        int64_t *ln = malloc(sizeof(int64_t) * (size_t)(n + 1));
        int rc = -1;
        if (buf && p && ln) {
            for (int64_t i = 0; i < n; i++) {
                char *b = buf + i * 40;
                if (c->type == FT_INT64)
                    ln[i] = snprintf(b, 40, "%lld", (long long)((const int64_t *)c->data)[i]);
                else if (c->type == FT_FLOAT64)
                    ln[i] = fp_repr(b, 40, ((const double *)c->data)[i]);
                else if (fcol_is_na(c, i))
                    ln[i] = snprintf(b, 40, "None");
                else
                    ln[i] = snprintf(b, 40, "%s", ((const uint8_t *)c->data)[i] ? "True" : "False");
                p[i] = b;
            }
            rc = str_col(o, n, p, ln);
        }
        free(buf);
        free(p);
        free(ln);
        return rc ? oom(err, errlen) : 0;
    }
    if (fcol_alloc(o, (ftype_t)to, n, 0, false)) return oom(err, errlen);
    for (int64_t i = 0; i < n; i++) {
        if (c->type == FT_STRING) {
            int64_t l;
            const char *s = fcol_str(c, i, &l);
            bool na = fcol_is_na(c, i);
            if (to == FT_BOOL) {
                ((uint8_t *)o->data)[i] = !na && l > 0;
                continue;
            }
            char tmp[64];
            if (na || l >= (int64_t)sizeof tmp) {
                if (!na || to == FT_INT64) {
                    fcol_free(o);
                    return errmsg(err, errlen, "astype: cannot convert %s to %s",
                                  na ? "a missing value" : "a long string",
                                  to == FT_INT64 ? "int64" : "float64");
                }
                ((double *)o->data)[i] = NAN;
                continue;
            }
            memcpy(tmp, s, (size_t)l);
            tmp[l] = 0;
            char *end;
            if (to == FT_INT64) {
                long long v = strtoll(tmp, &end, 10);
                while (*end == ' ')
                    end++;
                if (end == tmp || *end) {
                    fcol_free(o);
                    return errmsg(err, errlen,
                                  "astype: invalid literal for int() with base 10: '%.60s'", tmp);
                }
                ((int64_t *)o->data)[i] = v;
            } else {
                double v = strtod(tmp, &end);
                while (*end == ' ')
                    end++;
                if (end == tmp || *end) {
                    fcol_free(o);
                    return errmsg(err, errlen, "astype: could not convert string to float: '%.60s'",
                                  tmp);
                }
                ((double *)o->data)[i] = v;
            }
            continue;
        }
        double v = num_at(c, i);
        if (to == FT_FLOAT64) {
            ((double *)o->data)[i] = fcol_is_na(c, i) ? NAN : v;
        } else if (to == FT_BOOL) {
            ((uint8_t *)o->data)[i] =
                c->type == FT_INT64 ? ((const int64_t *)c->data)[i] != 0 : v != 0; /* NaN is true */
        } else {
            if (c->type == FT_FLOAT64 && !isfinite(v)) {
                fcol_free(o);
                return errmsg(err, errlen,
                              "astype: Cannot convert non-finite values (NA or inf) to integer");
            }
            if (c->type == FT_BOOL && fcol_is_na(c, i)) {
                fcol_free(o);
                return errmsg(err, errlen, "astype: cannot convert a missing value to int64");
            }
            ((int64_t *)o->data)[i] = (int64_t)v;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ replace */

static int replace_col(const df_node_t *d, const fcol_t *c, int to, fcol_t *o)
{
    int64_t n = c->n;
    if (c->unit != FU_NONE) return fcol_copy(c, o); /* a datetime: as it is (graph_df.c) */
    to = fcol_chunk_type(to, c);
    if (c->type == FT_STRING) {
        const char **p = malloc(sizeof(char *) * (size_t)(n + 1));
        int64_t *ln = malloc(sizeof(int64_t) * (size_t)(n + 1));
        int rc = -1;
        if (p && ln) {
            for (int64_t i = 0; i < n; i++) {
                p[i] = fcol_is_na(c, i) ? NULL : fcol_str(c, i, &ln[i]);
                for (int q = 0; q < d->nlit; q++) {
                    if (!lit_eq(c, i, &d->lits[q])) continue;
                    const df_lit_t *v = &d->lits2[q];
                    p[i] = v->kind == DFL_STR ? v->s : NULL;
                    ln[i] = v->kind == DFL_STR ? (int64_t)strlen(v->s) : 0;
                    break;
                }
            }
            rc = str_col(o, n, p, ln);
        }
        free(p);
        free(ln);
        return rc;
    }
    /* numbers and bools: the output type is the schema's in every chunk
     * (an int64 column replaced by a non-integer is float64 even in a
     * chunk where nothing matched: pandas decides over the whole column,
     * so head() of such a chunk must not say int64) */
    bool hit = false;
    for (int64_t i = 0; i < n && !hit; i++)
        for (int q = 0; q < d->nlit && !hit; q++)
            hit = lit_eq(c, i, &d->lits[q]);
    if (!hit && to == c->type) return fcol_copy(c, o);
    bool na = to == FT_BOOL && c->valid;
    if (fcol_alloc(o, (ftype_t)to, n, 0, na)) return -1;
    for (int64_t i = 0; i < n; i++) {
        const df_lit_t *v = NULL;
        for (int q = 0; q < d->nlit && !v; q++)
            if (lit_eq(c, i, &d->lits[q])) v = &d->lits2[q];
        if (to == FT_FLOAT64) {
            ((double *)o->data)[i] =
                v ? (v->kind == DFL_NAN ? NAN : v->f) : (fcol_is_na(c, i) ? NAN : num_at(c, i));
        } else if (to == FT_INT64) {
            ((int64_t *)o->data)[i] = v ? v->i : ((const int64_t *)c->data)[i];
        } else {
            ((uint8_t *)o->data)[i] = v ? v->i != 0 : ((const uint8_t *)c->data)[i];
            if (na) o->valid[i] = v ? 1 : !fcol_is_na(c, i);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ map */

/* The literals of lits[0..nl) that can equal column c's values, as one
 * column (kc), with kq[j] the literal of row j: numbers for int64 and
 * float64 columns, booleans for bool ones, strings for string ones, null
 * (missing) for every type. They are in reverse order, so that a literal
 * given twice finds its last place (a dict's value). */
static int lit_keys(const df_lit_t *lits, int nl, const fcol_t *c, fcol_t *kc, int64_t *kq)
{
    int64_t m = 0;
    bool ints = true, na = false;
    for (int q = nl - 1; q >= 0; q--) {
        const df_lit_t *l = &lits[q];
        bool fits = l->kind == DFL_NAN || (c->type == FT_STRING ? l->kind == DFL_STR
                                           : c->type == FT_BOOL ? l->kind == DFL_BOOL
                                                                : l->kind == DFL_NUM);
        if (!fits) continue;
        ints &= l->kind == DFL_NUM && l->is_int;
        na |= l->kind == DFL_NAN;
        kq[m++] = q;
    }
    if (c->type == FT_STRING) {
        const char **p = malloc(sizeof(char *) * (size_t)(m + 1));
        int64_t *ln = malloc(sizeof(int64_t) * (size_t)(m + 1));
        int rc = -1;
        if (p && ln) {
            for (int64_t j = 0; j < m; j++) {
                const df_lit_t *l = &lits[kq[j]];
                p[j] = l->kind == DFL_STR ? l->s : NULL;
                ln[j] = p[j] ? (int64_t)strlen(p[j]) : 0;
            }
            rc = str_col(kc, m, p, ln);
        }
        free(p);
        free(ln);
        return rc;
    }
    ftype_t t = c->type == FT_BOOL ? FT_BOOL : ints && m ? FT_INT64 : FT_FLOAT64;
    if (fcol_alloc(kc, t, m, 0, t == FT_BOOL && na)) return -1;
    for (int64_t j = 0; j < m; j++) {
        const df_lit_t *l = &lits[kq[j]];
        if (t == FT_BOOL) {
            ((uint8_t *)kc->data)[j] = l->kind == DFL_BOOL && l->i;
            if (kc->valid) kc->valid[j] = l->kind == DFL_BOOL;
        } else if (t == FT_INT64) {
            ((int64_t *)kc->data)[j] = l->i;
        } else {
            ((double *)kc->data)[j] = l->kind == DFL_NAN ? NAN : l->f;
        }
    }
    return 0;
}

/* code[i]: the literal of lits[0..nl) that value i of c equals (the last
 * of equal ones; null equals a missing value), or -1. The literals are
 * found through a hash table, so many of them cost one lookup a value. */
static int lit_codes(const df_lit_t *lits, int nl, const fcol_t *c, int64_t *code)
{
    int64_t n = c->n, *kq = malloc(sizeof(int64_t) * (size_t)(nl + 1));
    uint64_t *h = dfa_alloc(n, sizeof(uint64_t)), *kh = dfa_alloc(nl, sizeof(uint64_t));
    fcol_t kc = {0};
    dfa_htab_t t = {0};
    int rc = -1;
    if (!kq || !h || !kh || lit_keys(lits, nl, c, &kc, kq) || dfa_htab_init(&t, kc.n)) goto done;
    dfa_keys_t kk = {.nk = 1, .k = {&kc}}, ck = {.nk = 1, .k = {c}};
    dfa_hash_rows(ck.k, 1, n, h);
    dfa_hash_rows(kk.k, 1, kc.n, kh);
    for (int64_t j = 0; j < kc.n; j++)
        if (dfa_htab_add(&t, &kk, j, kh[j]) < 0) goto done;
    if (dfa_htab_find_rows(&t, &kk, &ck, n, h, code)) goto done;
    for (int64_t i = 0; i < n; i++)
        code[i] = code[i] < 0 ? -1 : kq[t.grep[code[i]]];
    rc = 0;
done:
    dfa_htab_free(&t);
    fcol_free(&kc);
    free(kq);
    free(h);
    free(kh);
    return rc;
}

/* Series.map of a dict (pandas 1.5): each value's key's value, missing
 * where no key equals it (and, with na_action "ignore", where it is
 * missing itself). */
static int map_col(const df_node_t *d, const fcol_t *c, int to, fcol_t *o)
{
    int64_t n = c->n, *hit = dfa_alloc(n, sizeof(int64_t));
    int rc = -1;
    if (!hit || lit_codes(d->lits, d->nlit, c, hit)) goto done;
    bool any_miss = false;
    for (int64_t i = 0; i < n; i++) {
        /* hit[i]: the literal whose value row i takes, or -1 */
        if (d->method == 1 && fcol_is_na(c, i)) hit[i] = -1;
        any_miss |= hit[i] < 0 || d->lits2[hit[i]].kind == DFL_NAN;
    }
    if (to == FT_STRING) {
        const char **p = malloc(sizeof(char *) * (size_t)(n + 1));
        int64_t *ln = malloc(sizeof(int64_t) * (size_t)(n + 1));
        if (p && ln) {
            for (int64_t i = 0; i < n; i++) {
                const df_lit_t *v = hit[i] < 0 ? NULL : &d->lits2[hit[i]];
                p[i] = v && v->kind == DFL_STR ? v->s : NULL;
                ln[i] = p[i] ? (int64_t)strlen(p[i]) : 0;
            }
            rc = str_col(o, n, p, ln);
        }
        free(p);
        free(ln);
        goto done;
    }
    if (to == FT_INT64 && any_miss) to = FT_FLOAT64; /* this chunk's type (graph_df.c) */
    if (fcol_alloc(o, (ftype_t)to, n, 0, to == FT_BOOL && any_miss)) goto done;
    for (int64_t i = 0; i < n; i++) {
        const df_lit_t *v = hit[i] < 0 ? NULL : &d->lits2[hit[i]];
        bool miss = !v || v->kind == DFL_NAN;
        if (to == FT_FLOAT64)
            ((double *)o->data)[i] = miss ? NAN : v->f;
        else if (to == FT_INT64)
            ((int64_t *)o->data)[i] = v->i;
        else {
            ((uint8_t *)o->data)[i] = !miss && v->i;
            if (o->valid) o->valid[i] = !miss;
        }
    }
    rc = 0;
done:
    free(hit);
    return rc;
}

/* ------------------------------------------------------------------ get_dummies */

/* pd.get_dummies' columns (graph_df.c: sel[k], gd_cat[k]): each encoded
 * column's values coded once against its categories (drop_first's too),
 * then one column a category (1 where the value is it) and the missing
 * values' (dummy_na: 1 where the value is missing or no category, as
 * pandas' get_dummies of a Categorical of those categories). */
static int dummies(const df_node_t *d, const frame_t *in, frame_t *out, char *err, size_t errlen)
{
    int64_t n = in->nrows, made = 0;
    for (int k = 0; k < d->ncols; k++)
        made += d->gd_cat[k] != -1;
    int w = d->ncols && d->cols[d->ncols - 1].type == FT_BOOL ? 1 : 8;
    if (made > 0 && n > DF3_WHOLE_MAX_BYTES / made / w)
        return errmsg(err, errlen,
                      "get_dummies: a chunk of %lld rows makes %lld columns of %d-byte values, "
                      "more than the limit of %lld bytes (2 GiB) for one chunk; cut the input "
                      "into smaller chunks or encode fewer categories",
                      (long long)n, (long long)made, w, (long long)DF3_WHOLE_MAX_BYTES);
    int64_t *code = dfa_alloc(n, sizeof(int64_t));
    int coded = -1, rc = -1;
    if (!code) return oom(err, errlen);
    for (int k = 0; k < d->ncols; k++) {
        const fcol_t *c = &in->cols[d->sel[k]];
        fcol_t *o = &out->cols[k];
        if (d->gd_cat[k] == -1) {
            if (fcol_copy(c, o)) goto done;
            continue;
        }
        if (coded != d->sel[k]) { /* this column's categories: lits[a..b) */
            int a = 0, b;
            while (a < d->nlit && d->gd_lsrc[a] != d->sel[k])
                a++;
            for (b = a; b < d->nlit && d->gd_lsrc[b] == d->sel[k]; b++)
                ;
            if (lit_codes(d->lits + a, b - a, c, code)) goto done;
            for (int64_t i = 0; i < n; i++)
                code[i] = code[i] < 0 ? -1 : code[i] + a;
            coded = d->sel[k];
        }
        int to = d->cols[k].type;
        if (fcol_alloc(o, (ftype_t)to, n, 0, false)) goto done;
        for (int64_t i = 0; i < n; i++) {
            bool v = d->gd_cat[k] == -2 ? code[i] < 0 : code[i] == d->gd_cat[k];
            if (to == FT_FLOAT64)
                ((double *)o->data)[i] = v;
            else if (to == FT_INT64)
                ((int64_t *)o->data)[i] = v;
            else
                ((uint8_t *)o->data)[i] = v;
        }
    }
    rc = 0;
done:
    free(code);
    return rc ? oom(err, errlen) : 0;
}

/* ------------------------------------------------------------------ numbers */

/* numpy's round: rint(x * 10^d) / 10^d (d >= 0), rint(x / 10^-d) * 10^-d. */
static double round_d(double x, int64_t dec)
{
    if (dec >= 0) {
        double f = pow(10.0, (double)dec);
        double y = rint(x * f) / f;
        return isfinite(y) ? y : x;
    }
    double f = pow(10.0, (double)-dec);
    return rint(x / f) * f;
}

static int num_col(const df_node_t *d, op_t op, const fcol_t *c, int to, fcol_t *o)
{
    int64_t n = c->n;
    to = fcol_chunk_type(to, c);
    if (c->type == FT_STRING || c->unit != FU_NONE || (op == OP_DF_ROUND && c->type == FT_BOOL))
        return fcol_copy(c, o); /* datetimes: round only gets here (graph_df.c) */
    if (fcol_alloc(o, (ftype_t)to, n, 0, c->valid != NULL && to == FT_BOOL)) return -1;
    if (o->valid) memcpy(o->valid, c->valid, (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        if (to == FT_BOOL) {
            ((uint8_t *)o->data)[i] = ((const uint8_t *)c->data)[i];
            continue;
        }
        if (to == FT_INT64) {
            int64_t v =
                c->type == FT_INT64 ? ((const int64_t *)c->data)[i] : ((const uint8_t *)c->data)[i];
            if (op == OP_DF_ABS)
                v = v < 0 ? (int64_t)(0 - (uint64_t)v) : v;
            else if (op == OP_DF_CLIP) {
                if (d->lo.kind == DFL_NUM && v < d->lo.i) v = d->lo.i;
                if (d->hi.kind == DFL_NUM && v > d->hi.i) v = d->hi.i;
            } else if (op == OP_DF_ROUND && d->n < 0) {
                v = (int64_t)round_d((double)v, d->n);
            }
            ((int64_t *)o->data)[i] = v;
            continue;
        }
        double v = num_at(c, i);
        if (op == OP_DF_ABS)
            v = fabs(v);
        else if (op == OP_DF_CLIP && v == v) {
            if (d->lo.kind == DFL_NUM && v < d->lo.f) v = d->lo.f;
            if (d->hi.kind == DFL_NUM && v > d->hi.f) v = d->hi.f;
        } else if (op == OP_DF_ROUND) {
            v = round_d(v, d->n);
        }
        ((double *)o->data)[i] = v;
    }
    return 0;
}

/* ------------------------------------------------------------------ the map */

static int dropna_rows(const df_node_t *d, const frame_t *in, int64_t **rows, int64_t *n)
{
    *rows = malloc(sizeof(int64_t) * (size_t)(in->nrows + 1));
    if (!*rows) return -1;
    int64_t m = 0;
    for (int64_t i = 0; i < in->nrows; i++) {
        int present = 0, cnt = d->nsel;
        for (int q = 0; q < d->nsel; q++)
            present += !fcol_is_na(&in->cols[d->sel[q]], i);
        bool keep = d->n >= 0 ? present >= d->n : d->how == 1 ? present > 0 : present == cnt;
        if (keep) (*rows)[m++] = i;
    }
    *n = m;
    return 0;
}

/* between_time and at_time: the rows whose index's time of day, in whole
 * microseconds (pandas' _get_time_micros), is in range; NaT's is -1, as
 * pandas', so it is in a range across midnight */
static int time_rows(const df_node_t *d, op_t op, const frame_t *in, int64_t **rows, int64_t *n)
{
    *rows = malloc(sizeof(int64_t) * (size_t)(in->nrows + 1));
    if (!*rows) return -1;
    const int64_t *v = in->idx[0].data, day = 86400LL * 1000000;
    int64_t m = 0, a = d->tod[0], b = d->tod[1];
    bool li = d->tod_incl & 1, ri = d->tod_incl & 2;
    for (int64_t i = 0; i < in->nrows; i++) {
        int64_t us = v[i] / 1000 - (v[i] % 1000 < 0); /* floor to microseconds */
        int64_t t = v[i] == INT64_MIN ? -1 : (us % day + day) % day;
        bool keep;
        if (op == OP_DF_AT_TIME) {
            keep = t == a;
        } else {
            bool after = li ? a <= t : a < t, before = ri ? t <= b : t < b;
            keep = a <= b ? after && before : after || before;
        }
        if (keep) (*rows)[m++] = i;
    }
    *n = m;
    return 0;
}

int df_clean_map(const df_node_t *d, op_t op, const frame_t *in, const frame_t *carry, frame_t *out,
                 char *err, size_t errlen)
{
    if (op == OP_DF_DROPNA || op == OP_DF_BETWEEN_TIME || op == OP_DF_AT_TIME) {
        int64_t *rows, m;
        if (op == OP_DF_DROPNA ? dropna_rows(d, in, &rows, &m) : time_rows(d, op, in, &rows, &m))
            return oom(err, errlen);
        int rc = frame_take(in, rows, m, out) ? oom(err, errlen) : 0;
        free(rows);
        return rc;
    }
    if (op == OP_DF_GET_DUMMIES) {
        frame_t like = *in; /* a Series' dummies are a DataFrame */
        like.series = false;
        if (df_out_like(d, &like, out)) goto fail;
        if (dummies(d, in, out, err, errlen)) {
            frame_free(out);
            return -1;
        }
        return 0;
    }
    if (df_out_like(d, in, out)) goto fail;
    /* rename's index_names: the schema's names, which are the input's otherwise */
    for (int k = 0; op == OP_DF_RENAME && k < out->nidx && k < d->nidx; k++) {
        if (flabel_set(&out->idx_names[k], d->idx[k].name, d->idx[k].is_int)) goto fail;
    }
    for (int k = 0; k < d->ncols; k++) {
        fcol_t *o = &out->cols[k];
        int to = d->cols[k].type;
        const fcol_t *c = &in->cols[d->sel ? d->sel[k] : k];
        int rc = 0;
        switch (op) {
        case OP_DF_FILLNA:
            if (d->method == DFM_NONE)
                rc = fill_value(c, &d->lit[k], to, o);
            else
                rc =
                    fill_dir(c, d->method == DFM_FFILL ? 1 : -1, carry ? &carry->cols[k] : NULL, o);
            break;
        case OP_DF_ISNA:
        case OP_DF_NOTNA:
        case OP_DF_ISIN:
            if ((rc = fcol_alloc(o, FT_BOOL, in->nrows, 0, false))) break;
            for (int64_t i = 0; i < in->nrows; i++) {
                bool v;
                if (op == OP_DF_ISIN) {
                    v = false;
                    for (int q = 0; q < d->nlit && !v; q++)
                        v = lit_eq(c, i, &d->lits[q]);
                } else {
                    v = fcol_is_na(c, i) == (op == OP_DF_ISNA);
                }
                ((uint8_t *)o->data)[i] = v;
            }
            break;
        case OP_DF_ASTYPE:
            if (astype_col(c, to, o, err, errlen)) {
                frame_free(out);
                return -1;
            }
            o->unit = d->cols[k].unit; /* a datetime's int64: its nanoseconds */
            break;
        case OP_DF_RENAME:
        case OP_DF_DROP:
            rc = fcol_copy(c, o);
            break;
        case OP_DF_REPLACE:
            rc = replace_col(d, c, to, o);
            break;
        case OP_DF_MAP:
            rc = map_col(d, c, to, o);
            break;
        default: /* clip, abs, round */
            rc = num_col(d, op, c, to, o);
            break;
        }
        if (rc) goto fail;
    }
    return 0;
fail:
    frame_free(out);
    return oom(err, errlen);
}

/* ------------------------------------------------------------------ the carry */

int df_clean_edge(const df_node_t *d, const frame_t *in, frame_t *out, char *err, size_t errlen)
{
    /* fillna's method: the last (ffill) or first (bfill) present value of
     * every column, as one row (missing where the chunk has none) */
    int dir = d->method == DFM_FFILL ? 1 : -1;
    int64_t *rows = malloc(sizeof(int64_t) * (size_t)(d->ncols + 1));
    if (!rows) return oom(err, errlen);
    int rc = -1;
    if (frame_alloc(out, false, 1, d->ncols, 1) || fcol_alloc(&out->idx[0], FT_INT64, 1, 0, false))
        goto done;
    ((int64_t *)out->idx[0].data)[0] = 0;
    for (int k = 0; k < d->ncols; k++) {
        const fcol_t *c = &in->cols[k];
        int64_t at = -1;
        for (int64_t q = 0; q < c->n && at < 0; q++) {
            int64_t i = dir > 0 ? c->n - 1 - q : q;
            if (!fcol_is_na(c, i)) at = i;
        }
        fcol_t *o = &out->cols[k];
        if (flabel_set(&out->names[k], d->cols[k].name, d->cols[k].is_int)) goto done;
        if (c->type == FT_STRING) {
            int64_t l = 0;
            const char *p = at >= 0 ? fcol_str(c, at, &l) : NULL;
            if (str_col(o, 1, &p, &l)) goto done;
            continue;
        }
        /* an int64 column's chunk of no row has no value to pass on: NaN
         * (float64, as its chunks with a missing value are), not 0 */
        ftype_t ct =
            at < 0 && c->type == FT_INT64 && c->unit == FU_NONE ? FT_FLOAT64 : (ftype_t)c->type;
        if (fcol_alloc(o, ct, 1, 0, ct == FT_BOOL)) goto done;
        o->unit = ct == FT_INT64 ? c->unit : FU_NONE; /* a datetime's carry: NaT when none */
        size_t w = c->type == FT_BOOL ? 1 : 8;
        if (at >= 0)
            memcpy(o->data, (const char *)c->data + (size_t)at * w, w);
        else if (ct == FT_FLOAT64)
            *(double *)o->data = NAN;
        else if (c->type == FT_BOOL)
            o->valid[0] = 0, *(uint8_t *)o->data = 0;
        else if (c->unit != FU_NONE)
            *(int64_t *)o->data = INT64_MIN;
        else
            memset(o->data, 0, w);
    }
    rc = 0;
done:
    free(rows);
    if (rc) {
        frame_free(out);
        oom(err, errlen);
    }
    return rc;
}

int df_clean_combine(const df_node_t *d, const frame_t *far, const frame_t *near, frame_t *out,
                     char *err, size_t errlen)
{
    /* the nearer chunk's value where it has one, else the farther one's */
    int ncols = near->ncols;
    frame_t tmp = {0};
    if (frame_alloc(&tmp, false, 1, ncols, 1)) return oom(err, errlen);
    tmp.view = true;
    tmp.idx[0] = near->idx[0];
    for (int k = 0; k < ncols; k++) {
        bool use_near = !fcol_is_na(&near->cols[k], 0);
        tmp.cols[k] = use_near ? near->cols[k] : far->cols[k];
        tmp.names[k] = near->names[k];
    }
    int rc = dfx_concat((const frame_t *const[]){&tmp}, 1, out, err, errlen);
    frame_free(&tmp);
    (void)d;
    return rc;
}
