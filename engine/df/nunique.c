/* nunique.c: DataFrame.nunique() / Series.nunique() as map, combine and
 * final (algo.h). A partial is a 1-row frame with the input's columns and
 * labels; each column holds one string cell: a type byte ('0' + ftype_t,
 * or 'a' + ftype_t once a missing value was seen) followed by the dfa_set
 * encoding of the distinct non-missing values seen so far. The final step
 * counts the missing value as one more where dropna is false. */
#include <stdlib.h>
#include <string.h>

#include "algo_util.h"

/* a partial cell's type byte: the set's type, and whether a missing value
 * was seen */
static ftype_t cell_type(char b)
{
    return (ftype_t)(b >= 'a' ? b - 'a' : b - '0');
}

static bool cell_na(char b)
{
    return b >= 'a';
}

static bool cell_byte_ok(char b)
{
    return (b >= '0' && b <= '0' + FT_STRING) || (b >= 'a' && b <= 'a' + FT_STRING);
}

/* One partial cell from a set column of one cell (type byte prepended). */
static int prefix_type(const fcol_t *set, ftype_t t, bool na, fcol_t *out)
{
    int64_t len;
    const char *p = fcol_str(set, 0, &len);
    if (fcol_alloc(out, FT_STRING, 1, len + 2, false)) return -1;
    out->bytes[0] = (char)((na ? 'a' : '0') + t);
    memcpy(out->bytes + 1, p, (size_t)len);
    out->offsets[1] = len + 1;
    out->bytes[len + 1] = 0;
    return 0;
}

static int like_partial(const frame_t *in, frame_t *out)
{
    if (frame_alloc(out, in->series, 1, in->ncols, 1)) return -1;
    for (int c = 0; c < in->ncols; c++)
        if (flabel_set(&out->names[c], in->names[c].s, in->names[c].is_int)) return -1;
    if (fcol_alloc(&out->idx[0], FT_INT64, 1, 0, false)) return -1;
    ((int64_t *)out->idx[0].data)[0] = 0;
    return 0;
}

int df_nunique_map(const frame_t *in, frame_t *out, char *err, size_t errlen)
{
    int64_t n = in->nrows;
    int64_t *gid = dfa_alloc(n, sizeof *gid);
    if (!gid || like_partial(in, out)) goto nomem;
    memset(gid, 0, (size_t)n * sizeof *gid);
    for (int c = 0; c < in->ncols; c++) {
        fcol_t set;
        bool na = false;
        for (int64_t i = 0; i < n && !na; i++)
            na = fcol_is_na(&in->cols[c], i);
        if (dfa_set_build(&in->cols[c], gid, 1, &set)) goto nomem;
        int rc = prefix_type(&set, (ftype_t)in->cols[c].type, na, &out->cols[c]);
        fcol_free(&set);
        if (rc) goto nomem;
    }
    free(gid);
    return 0;
nomem:
    frame_free(out);
    free(gid);
    return errmsg(err, errlen, "nunique: out of memory for %lld rows", (long long)n);
}

/* int64 and float64 sets may meet: a column int64 in the chunks where no
 * value went missing (a merge's) and float64 in the others */
static bool numeric_set(char type_byte)
{
    return cell_type(type_byte) == FT_INT64 || cell_type(type_byte) == FT_FLOAT64;
}

static int check_partial(const frame_t *p, const frame_t *first, char *err, size_t errlen)
{
    if (p->ncols != first->ncols)
        return errmsg(err, errlen, "nunique: partials of %d and %d columns", p->ncols,
                      first->ncols);
    for (int c = 0; c < p->ncols; c++) {
        const fcol_t *x = &p->cols[c];
        if (x->type != FT_STRING)
            return errmsg(err, errlen, "nunique: partial column %d is no set", c);
        for (int64_t r = 0; r < x->n; r++) {
            int64_t len;
            const char *s = fcol_str(x, r, &len);
            if (len < 1 || !cell_byte_ok(s[0]) ||
                (cell_type(s[0]) != cell_type(first->cols[c].bytes[0]) &&
                 !(numeric_set(s[0]) && numeric_set(first->cols[c].bytes[0]))))
                return errmsg(err, errlen, "nunique: partial column %d has a bad set", c);
        }
    }
    return 0;
}

int df_nunique_combine(const frame_t *const *parts, int n, frame_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (n < 1) return errmsg(err, errlen, "nunique: combine of no partials");
    for (int p = 0; p < n; p++)
        if (parts[p]->nrows != 1 || check_partial(parts[p], parts[0], err, errlen))
            return parts[p]->nrows != 1 ? errmsg(err, errlen, "nunique: a partial of %lld rows",
                                                 (long long)parts[p]->nrows)
                                        : -1;
    int64_t *off2 = dfa_alloc(2 * (int64_t)n + 1, sizeof *off2);
    int64_t *rows = dfa_alloc(n, sizeof *rows), in_off[2] = {0, n};
    if (!off2 || !rows || like_partial(parts[0], out)) goto nomem;
    for (int c = 0; c < parts[0]->ncols; c++) {
        /* the cells without their type byte: a column whose cell 2p is part
         * p's set (odd cells unused) over a copy of the cells' bytes */
        int64_t total = 1;
        for (int p = 0; p < n; p++)
            total += parts[p]->cols[c].offsets[1];
        char *bytes = dfa_alloc(total, 1);
        if (!bytes) goto nomem;
        ftype_t t = cell_type(parts[0]->cols[c].bytes[0]);
        bool na = false;
        for (int p = 0; p < n; p++) {
            if (cell_type(parts[p]->cols[c].bytes[0]) != t) t = FT_FLOAT64; /* int64 beside */
            na |= cell_na(parts[p]->cols[c].bytes[0]);
        }
        int64_t at = 0;
        for (int p = 0; p < n; p++) {
            const fcol_t *x = &parts[p]->cols[c];
            memcpy(bytes + at, x->bytes, (size_t)x->offsets[1]);
            if (t == FT_FLOAT64 && cell_type(x->bytes[0]) == FT_INT64) /* the values as float64 */
                for (int64_t q = 1; q + 8 <= x->offsets[1]; q += 8) {
                    int64_t iv;
                    memcpy(&iv, x->bytes + q, 8);
                    double dv = (double)iv;
                    memcpy(bytes + at + q, &dv, 8);
                }
            off2[2 * p] = at + 1;
            at += x->offsets[1];
            off2[2 * p + 1] = at;
            rows[p] = 2 * p;
        }
        off2[2 * n] = at;
        bytes[at] = 0;
        fcol_t enc = {.type = FT_STRING, .n = 2 * (int64_t)n, .offsets = off2, .bytes = bytes};
        fcol_t set;
        int rc = dfa_set_union(t, &enc, rows, in_off, 1, &set);
        free(bytes);
        if (rc) goto nomem;
        rc = prefix_type(&set, t, na, &out->cols[c]);
        fcol_free(&set);
        if (rc) goto nomem;
    }
    free(off2);
    free(rows);
    return 0;
nomem:
    frame_free(out);
    free(off2);
    free(rows);
    return errmsg(err, errlen, "nunique: out of memory combining %d partials", n);
}

int df_nunique_final(const frame_t *part, bool dropna, frame_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (part->nrows != 1 || check_partial(part, part, err, errlen))
        return part->nrows != 1
                   ? errmsg(err, errlen, "nunique: a partial of %lld rows", (long long)part->nrows)
                   : -1;
    int nc = part->ncols;
    int64_t *cnt = dfa_alloc(nc, sizeof *cnt);
    if (!cnt) goto nomem;
    for (int c = 0; c < nc; c++) {
        int64_t len;
        const char *s = fcol_str(&part->cols[c], 0, &len);
        cnt[c] = dfa_set_count(cell_type(s[0]), s + 1, len - 1) + (!dropna && cell_na(s[0]));
    }
    if (part->series) {
        /* one row: the tiler turns it into a scalar */
        if (frame_alloc(out, true, 1, 1, 1) || fcol_alloc(&out->cols[0], FT_INT64, 1, 0, false) ||
            fcol_alloc(&out->idx[0], FT_INT64, 1, 0, false) ||
            flabel_set(&out->names[0], part->names[0].s, part->names[0].is_int))
            goto nomem;
        ((int64_t *)out->cols[0].data)[0] = nc ? cnt[0] : 0;
        ((int64_t *)out->idx[0].data)[0] = 0;
        free(cnt);
        return 0;
    }
    /* a Series indexed by the column labels: int64 labels when every label
     * is an integer (from_tensor's defaults), strings otherwise */
    bool all_int = true;
    int64_t nb = 1;
    for (int c = 0; c < nc; c++) {
        all_int &= part->names[c].is_int && part->names[c].s;
        nb += part->names[c].s ? (int64_t)strlen(part->names[c].s) : 0;
    }
    if (frame_alloc(out, true, nc, 1, 1) || fcol_alloc(&out->cols[0], FT_INT64, nc, 0, false) ||
        fcol_alloc(&out->idx[0], all_int ? FT_INT64 : FT_STRING, nc, nb, false))
        goto nomem;
    memcpy(out->cols[0].data, cnt, (size_t)nc * sizeof *cnt);
    int64_t at = 0;
    for (int c = 0; c < nc; c++) {
        const char *s = part->names[c].s ? part->names[c].s : "";
        if (all_int) {
            ((int64_t *)out->idx[0].data)[c] = strtoll(s, NULL, 10);
        } else {
            size_t l = strlen(s);
            memcpy(out->idx[0].bytes + at, s, l);
            at += (int64_t)l;
            out->idx[0].offsets[c + 1] = at;
        }
    }
    if (!all_int) out->idx[0].bytes[at] = 0;
    free(cnt);
    return 0;
nomem:
    frame_free(out);
    free(cnt);
    return errmsg(err, errlen, "nunique: out of memory for %d columns", nc);
}
