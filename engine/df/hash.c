/* hash.c: hashing and hash partitioning of frames (algo.h), and the shared
 * internals of algo_util.h: the group table, column gathers and the
 * distinct-value sets of nunique. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo_util.h"

void *dfa_alloc(int64_t n, size_t sz)
{
    size_t bytes;
    if (n < 0 || __builtin_mul_overflow((uint64_t)n, sz, &bytes)) return NULL;
    return malloc(bytes ? bytes : 1);
}

/* ---- hashing ---- */

uint64_t dfa_hash_bytes(const void *p, size_t n)
{
    const uint8_t *s = p;
    uint64_t h = 0x243f6a8885a308d3ULL ^ (n * 0x9e3779b97f4a7c15ULL);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ dfa_mix(w)) * 0x9e3779b97f4a7c15ULL;
        h = (h << 29) | (h >> 35);
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    h ^= dfa_mix(w ^ 0x13198a2e03707344ULL);
    return dfa_mix(h);
}

/* Hash of column c's rows, folded into h (first: h overwritten). */
static void hash_col(const fcol_t *c, int64_t n, uint64_t *h, bool first)
{
#define FOLD(i, v) h[i] = first ? (v) : dfa_mix(h[i] * 0x9e3779b97f4a7c15ULL + (v))
    switch (c->type) {
    case FT_INT64: {
        const int64_t *d = c->data;
        for (int64_t i = 0; i < n; i++)
            FOLD(i, dfa_hash_double((double)d[i]));
        break;
    }
    case FT_FLOAT64: {
        const double *d = c->data;
        for (int64_t i = 0; i < n; i++)
            FOLD(i, d[i] != d[i] ? DFA_HASH_NA : dfa_hash_double(d[i]));
        break;
    }
    case FT_BOOL: {
        const uint8_t *d = c->data;
        for (int64_t i = 0; i < n; i++)
            FOLD(i, (c->valid && !c->valid[i]) ? DFA_HASH_NA : dfa_hash_double(d[i]));
        break;
    }
    default:
        for (int64_t i = 0; i < n; i++) {
            int64_t len;
            const char *s = fcol_str(c, i, &len);
            FOLD(i, (c->valid && !c->valid[i]) ? DFA_HASH_NA : dfa_hash_bytes(s, (size_t)len));
        }
        break;
    }
#undef FOLD
}

void dfa_hash_rows(const fcol_t *const *cols, int ncols, int64_t n, uint64_t *h)
{
    if (ncols == 0) {
        memset(h, 0, (size_t)n * sizeof *h);
        return;
    }
    for (int k = 0; k < ncols; k++)
        hash_col(cols[k], n, h, k == 0);
}

int df_hash_partition(const frame_t *in, const int *cols, int ncols, int nparts, frame_t *outs,
                      char *err, size_t errlen)
{
    if (nparts < 1 || ncols < 0 || ncols > DF_MAX_KEYS)
        return errmsg(err, errlen, "hash_partition: %d parts over %d columns", nparts, ncols);
    const fcol_t *kc[DF_MAX_KEYS];
    for (int k = 0; k < ncols; k++) {
        if (cols[k] < 0 && -1 - cols[k] < in->nidx) {
            kc[k] = &in->idx[-1 - cols[k]];
            continue;
        }
        if (cols[k] < 0 || cols[k] >= in->ncols)
            return errmsg(err, errlen, "hash_partition: column %d of %d", cols[k], in->ncols);
        kc[k] = &in->cols[cols[k]];
    }
    int64_t n = in->nrows;
    uint64_t *h = dfa_alloc(n, sizeof *h);
    int64_t *rows = dfa_alloc(n, sizeof *rows);
    int64_t *start = dfa_alloc((int64_t)nparts + 1, sizeof *start);
    int32_t *part = dfa_alloc(n, sizeof *part);
    int made = 0;
    if (!h || !rows || !start || !part) goto nomem;
    dfa_hash_rows(kc, ncols, n, h);
    memset(start, 0, ((size_t)nparts + 1) * sizeof *start);
    for (int64_t i = 0; i < n; i++) {
        part[i] = (int32_t)(dfa_mix(h[i]) % (uint64_t)nparts);
        start[part[i] + 1]++;
    }
    for (int p = 0; p < nparts; p++)
        start[p + 1] += start[p];
    /* counting sort by part: stable, so rows keep their order in each part */
    for (int64_t i = 0; i < n; i++)
        rows[start[part[i]]++] = i;
    for (int p = 0; p < nparts; p++) {
        int64_t lo = p ? start[p - 1] : 0;
        if (frame_take(in, rows + lo, start[p] - lo, &outs[p])) goto nomem;
        made++;
    }
    free(h);
    free(rows);
    free(start);
    free(part);
    return 0;
nomem:
    for (int p = 0; p < made; p++)
        frame_free(&outs[p]);
    free(h);
    free(rows);
    free(start);
    free(part);
    return errmsg(err, errlen, "hash_partition: out of memory for %lld rows", (long long)n);
}

/* ---- the group table ---- */

int dfa_htab_init(dfa_htab_t *t, int64_t expect)
{
    memset(t, 0, sizeof *t);
    /* start small: few groups stay in cache; growth doubles as needed */
    uint64_t cap = 64;
    while ((int64_t)cap < expect * 2 && cap < ((uint64_t)1 << 40))
        cap <<= 1;
    t->gcap = (int64_t)(cap / 2);
    t->slot = dfa_alloc((int64_t)cap, sizeof *t->slot);
    t->ghash = dfa_alloc(t->gcap, sizeof *t->ghash);
    t->grep = dfa_alloc(t->gcap, sizeof *t->grep);
    if (!t->slot || !t->ghash || !t->grep) {
        dfa_htab_free(t);
        return -1;
    }
    memset(t->slot, 0xff, cap * sizeof *t->slot);
    t->mask = cap - 1;
    return 0;
}

void dfa_htab_free(dfa_htab_t *t)
{
    free(t->slot);
    free(t->ghash);
    free(t->grep);
    memset(t, 0, sizeof *t);
}

static int grow(dfa_htab_t *t)
{
    uint64_t cap = (t->mask + 1) * 2;
    int64_t gcap = (int64_t)(cap / 2);
    int64_t *slot = dfa_alloc((int64_t)cap, sizeof *slot);
    uint64_t *gh = realloc(t->ghash, (size_t)gcap * sizeof *gh);
    if (gh) t->ghash = gh;
    int64_t *gr = realloc(t->grep, (size_t)gcap * sizeof *gr);
    if (gr) t->grep = gr;
    if (!slot || !gh || !gr) {
        free(slot);
        return -1;
    }
    memset(slot, 0xff, cap * sizeof *slot);
    for (int64_t g = 0; g < t->ngroups; g++) {
        uint64_t i = t->ghash[g] & (cap - 1);
        while (slot[i] >= 0)
            i = (i + 1) & (cap - 1);
        slot[i] = g;
    }
    free(t->slot);
    t->slot = slot;
    t->mask = cap - 1;
    t->gcap = gcap;
    return 0;
}

int64_t dfa_htab_add(dfa_htab_t *t, const dfa_keys_t *ks, int64_t row, uint64_t h)
{
    uint64_t i = h & t->mask;
    for (;;) {
        int64_t g = t->slot[i];
        if (g < 0) break;
        if (t->ghash[g] == h && dfa_keys_eq(ks, t->grep[g], ks, row)) return g;
        i = (i + 1) & t->mask;
    }
    if (t->ngroups == t->gcap) {
        if (grow(t)) return -1;
        i = h & t->mask;
        while (t->slot[i] >= 0)
            i = (i + 1) & t->mask;
    }
    int64_t g = t->ngroups++;
    t->slot[i] = g;
    t->ghash[g] = h;
    t->grep[g] = row;
    return g;
}

int64_t dfa_htab_find(const dfa_htab_t *t, const dfa_keys_t *build, const dfa_keys_t *probe,
                      int64_t row, uint64_t h)
{
    uint64_t i = h & t->mask;
    for (;;) {
        int64_t g = t->slot[i];
        if (g < 0) return -1;
        if (t->ghash[g] == h && dfa_keys_eq(build, t->grep[g], probe, row)) return g;
        i = (i + 1) & t->mask;
    }
}

/* dfa_htab_find of rows 0..n-1 of probe (hashes h) into out. With one
 * int64 key on both sides the groups' keys are copied beside their ids
 * first (as group_int64's table below), so a row costs one cache line. */
int dfa_htab_find_rows(const dfa_htab_t *t, const dfa_keys_t *build, const dfa_keys_t *probe,
                       int64_t n, const uint64_t *h, int64_t *out)
{
    if (build->nk != 1 || build->k[0]->type != FT_INT64 || probe->k[0]->type != FT_INT64) {
        for (int64_t r = 0; r < n; r++)
            out[r] = dfa_htab_find(t, build, probe, r, h[r]);
        return 0;
    }
    const int64_t *bv = build->k[0]->data, *pv = probe->k[0]->data;
    uint64_t mask = t->mask;
    struct {
        int64_t key, gid; /* gid -1: empty */
    } *tab = dfa_alloc((int64_t)mask + 1, sizeof *tab);
    if (!tab) return -1;
    for (uint64_t i = 0; i <= mask; i++) /* t->slot's layout: its probes stay as short */
        tab[i].gid = t->slot[i], tab[i].key = t->slot[i] >= 0 ? bv[t->grep[t->slot[i]]] : 0;
    for (int64_t r = 0; r < n; r++) {
        uint64_t i = h[r] & mask;
        int64_t key = pv[r];
        while (tab[i].gid >= 0 && tab[i].key != key)
            i = (i + 1) & mask;
        out[r] = tab[i].gid;
    }
    free(tab);
    return 0;
}

/* Specialised grouping for one int64 key (the common groupby): the probe
 * table holds the key beside the group id, so a row costs one cache line
 * instead of four (slot, group hash, group row, key). t's own slots are
 * built at the end from the group hashes, for dfa_htab_find. */
typedef struct {
    int64_t key, gid; /* gid -1: empty */
} ient_t;

static int ient_grow(ient_t **tab, uint64_t *mask, const uint64_t *ghash, const int64_t *grep,
                     const int64_t *v, int64_t ng)
{
    uint64_t cap = (*mask + 1) * 2;
    ient_t *nt = dfa_alloc((int64_t)cap, sizeof *nt);
    if (!nt) return -1;
    for (uint64_t i = 0; i < cap; i++)
        nt[i].gid = -1;
    for (int64_t g = 0; g < ng; g++) {
        uint64_t i = ghash[g] & (cap - 1);
        while (nt[i].gid >= 0)
            i = (i + 1) & (cap - 1);
        nt[i] = (ient_t){v[grep[g]], g};
    }
    free(*tab);
    *tab = nt;
    *mask = cap - 1;
    return 0;
}

static int group_int64(const int64_t *v, int64_t n, const uint8_t *skip, const uint64_t *h,
                       int64_t *gid, dfa_htab_t *t)
{
    uint64_t mask = 63;
    ient_t *tab = dfa_alloc((int64_t)mask + 1, sizeof *tab);
    if (!tab) return -1;
    for (uint64_t i = 0; i <= mask; i++)
        tab[i].gid = -1;
    int64_t ng = 0;
    for (int64_t r = 0; r < n; r++) {
        if (skip && skip[r]) {
            gid[r] = -1;
            continue;
        }
        int64_t key = v[r];
        uint64_t i = h[r] & mask;
        while (tab[i].gid >= 0 && tab[i].key != key)
            i = (i + 1) & mask;
        if (tab[i].gid < 0) {
            if (ng == t->gcap) {
                int64_t gcap = t->gcap * 2;
                uint64_t *gh = realloc(t->ghash, (size_t)gcap * sizeof *gh);
                if (gh) t->ghash = gh;
                int64_t *gr = realloc(t->grep, (size_t)gcap * sizeof *gr);
                if (gr) t->grep = gr;
                if (!gh || !gr) goto nomem;
                t->gcap = gcap;
            }
            if ((uint64_t)(ng + 1) * 2 > mask + 1) {
                if (ient_grow(&tab, &mask, t->ghash, t->grep, v, ng)) goto nomem;
                i = h[r] & mask;
                while (tab[i].gid >= 0)
                    i = (i + 1) & mask;
            }
            t->ghash[ng] = h[r];
            t->grep[ng] = r;
            tab[i] = (ient_t){key, ng++};
        }
        gid[r] = tab[i].gid;
    }
    free(tab);
    /* the generic slots, at most half full even when every group row
     * slot is used (gcap >= ng) */
    uint64_t cap = t->mask + 1;
    while (cap < (uint64_t)t->gcap * 2)
        cap <<= 1;
    if (cap != t->mask + 1) {
        int64_t *slot = dfa_alloc((int64_t)cap, sizeof *slot);
        if (!slot) return -1;
        free(t->slot);
        t->slot = slot;
        t->mask = cap - 1;
    }
    memset(t->slot, 0xff, cap * sizeof *t->slot);
    for (int64_t g = 0; g < ng; g++) {
        uint64_t i = t->ghash[g] & t->mask;
        while (t->slot[i] >= 0)
            i = (i + 1) & t->mask;
        t->slot[i] = g;
    }
    t->ngroups = ng;
    return 0;
nomem:
    free(tab);
    return -1;
}

int dfa_group(const dfa_keys_t *ks, int64_t n, const uint8_t *skip, int64_t *gid, dfa_htab_t *t)
{
    uint64_t *h = dfa_alloc(n, sizeof *h);
    if (!h || dfa_htab_init(t, 0)) {
        free(h);
        return -1;
    }
    dfa_hash_rows(ks->k, ks->nk, n, h);
    int rc = 0;
    if (ks->nk == 1 && ks->k[0]->type == FT_INT64) {
        rc = group_int64(ks->k[0]->data, n, skip, h, gid, t);
    } else {
        for (int64_t r = 0; r < n && rc == 0; r++) {
            if (skip && skip[r])
                gid[r] = -1;
            else if ((gid[r] = dfa_htab_add(t, ks, r, h[r])) < 0)
                rc = -1;
        }
    }
    free(h);
    if (rc) dfa_htab_free(t);
    return rc;
}

/* ---- columns ---- */

int dfa_take_col(const fcol_t *c, const int64_t *rows, int64_t n, bool keep_valid, fcol_t *out)
{
    bool any_missing = false, any_invalid = false;
    int64_t nb = 1;
    for (int64_t i = 0; i < n; i++) {
        if (rows[i] < 0)
            any_missing = true;
        else if (c->valid && !c->valid[rows[i]])
            any_invalid = true;
        if (rows[i] >= 0 && c->type == FT_STRING)
            nb += c->offsets[rows[i] + 1] - c->offsets[rows[i]];
    }
    ftype_t t = (ftype_t)c->type;
    /* missing rows: int64 becomes float64 (NaN); a datetime stays (NaT) */
    if (t == FT_INT64 && any_missing && c->unit == FU_NONE) t = FT_FLOAT64;
    bool valid = (t == FT_BOOL || t == FT_STRING) &&
                 (any_missing || any_invalid || (keep_valid && c->valid != NULL));
    if (fcol_alloc(out, t, n, nb, valid)) return -1;
    switch (c->type) {
    case FT_INT64:
        if (t == FT_FLOAT64) {
            const int64_t *s = c->data;
            double *d = out->data;
            for (int64_t i = 0; i < n; i++)
                d[i] = rows[i] < 0 ? NAN : (double)s[rows[i]];
        } else {
            const int64_t *s = c->data;
            int64_t *d = out->data;
            for (int64_t i = 0; i < n; i++)
                d[i] = rows[i] < 0 ? INT64_MIN : s[rows[i]]; /* NaT (a datetime) */
            out->unit = c->unit;
        }
        break;
    case FT_FLOAT64: {
        const double *s = c->data;
        double *d = out->data;
        for (int64_t i = 0; i < n; i++)
            d[i] = rows[i] < 0 ? NAN : s[rows[i]];
        break;
    }
    case FT_BOOL: {
        const uint8_t *s = c->data;
        uint8_t *d = out->data;
        for (int64_t i = 0; i < n; i++)
            d[i] = rows[i] < 0 ? 0 : s[rows[i]];
        break;
    }
    default: {
        int64_t at = 0;
        for (int64_t i = 0; i < n; i++) {
            if (rows[i] >= 0) {
                int64_t len;
                const char *s = fcol_str(c, rows[i], &len);
                memcpy(out->bytes + at, s, (size_t)len);
                at += len;
            }
            out->offsets[i + 1] = at;
        }
        out->bytes[at] = 0;
        break;
    }
    }
    if (out->valid)
        for (int64_t i = 0; i < n; i++)
            out->valid[i] = rows[i] >= 0 && (!c->valid || c->valid[rows[i]]);
    return 0;
}

/* ---- distinct-value sets ---- */

static int64_t elem_width(ftype_t t)
{
    return t == FT_BOOL ? 1 : 8; /* STRING: 4-byte length + bytes */
}

int64_t dfa_set_count(ftype_t t, const char *p, int64_t len)
{
    if (t != FT_STRING) return len / elem_width(t);
    int64_t n = 0, at = 0;
    while (at + 4 <= len) {
        uint32_t l;
        memcpy(&l, p + at, 4);
        if ((int64_t)l > len - at - 4)
            break; /* a cut element is no element: never read past the cell */
        at += 4 + (int64_t)l;
        n++;
    }
    return n;
}

/* Encoded size of the value at row i of c (present). */
static int64_t enc_size(const fcol_t *c, int64_t i)
{
    if (c->type != FT_STRING) return elem_width((ftype_t)c->type);
    return 4 + c->offsets[i + 1] - c->offsets[i];
}

static char *enc_put(const fcol_t *c, int64_t i, char *p)
{
    switch (c->type) {
    case FT_INT64:
        memcpy(p, (const int64_t *)c->data + i, 8);
        return p + 8;
    case FT_FLOAT64: {
        double d = ((const double *)c->data)[i];
        if (d == 0) d = 0;
        memcpy(p, &d, 8);
        return p + 8;
    }
    case FT_BOOL:
        *p = (char)((const uint8_t *)c->data)[i];
        return p + 1;
    default: {
        int64_t len;
        const char *s = fcol_str(c, i, &len);
        uint32_t l = (uint32_t)len;
        memcpy(p, &l, 4);
        memcpy(p + 4, s, (size_t)len);
        return p + 4 + len;
    }
    }
}

/* Encodes, for each group g, the values at rows rep[] whose group (grp[])
 * is g, into string column out (ngroups cells). */
static int set_encode(const fcol_t *c, const int64_t *rep, const int64_t *grp, int64_t nrep,
                      int64_t ngroups, fcol_t *out)
{
    int64_t *start = dfa_alloc(ngroups + 1, sizeof *start);
    int64_t *order = dfa_alloc(nrep, sizeof *order);
    int rc = -1;
    if (!start || !order) goto done;
    memset(start, 0, (size_t)(ngroups + 1) * sizeof *start);
    int64_t nb = 1;
    for (int64_t j = 0; j < nrep; j++) {
        start[grp[j] + 1]++;
        nb += enc_size(c, rep[j]);
    }
    for (int64_t g = 0; g < ngroups; g++)
        start[g + 1] += start[g];
    for (int64_t j = 0; j < nrep; j++)
        order[start[grp[j]]++] = j;
    if (fcol_alloc(out, FT_STRING, ngroups, nb, false)) goto done;
    char *p = out->bytes;
    int64_t j = 0;
    for (int64_t g = 0; g < ngroups; g++) {
        for (; j < start[g]; j++)
            p = enc_put(c, rep[order[j]], p);
        out->offsets[g + 1] = p - out->bytes;
    }
    *p = 0;
    rc = 0;
done:
    free(start);
    free(order);
    return rc;
}

int dfa_set_build(const fcol_t *c, const int64_t *gid, int64_t ngroups, fcol_t *out)
{
    int64_t n = c->n;
    fcol_t gcol = {.type = FT_INT64, .n = n, .data = (void *)gid};
    dfa_keys_t ks = {.nk = 2, .k = {&gcol, c}};
    uint8_t *skip = dfa_alloc(n, 1);
    int64_t *pg = dfa_alloc(n, sizeof *pg);
    int64_t *grp = NULL;
    dfa_htab_t t = {0};
    int rc = -1;
    if (!skip || !pg) goto done;
    for (int64_t i = 0; i < n; i++)
        skip[i] = gid[i] < 0 || fcol_is_na(c, i);
    if (dfa_group(&ks, n, skip, pg, &t)) goto done;
    if (!(grp = dfa_alloc(t.ngroups, sizeof *grp))) goto done;
    for (int64_t j = 0; j < t.ngroups; j++)
        grp[j] = gid[t.grep[j]];
    rc = set_encode(c, t.grep, grp, t.ngroups, ngroups, out);
done:
    dfa_htab_free(&t);
    free(skip);
    free(pg);
    free(grp);
    return rc;
}

int dfa_set_union(ftype_t t, const fcol_t *enc, const int64_t *in_rows, const int64_t *in_off,
                  int64_t n, fcol_t *out)
{
    /* decode every element into a column of its own type (strings: a
     * string column), with the output set it belongs to */
    int64_t nel = 0, nb = 1;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = in_off[i]; j < in_off[i + 1]; j++) {
            int64_t len;
            const char *p = fcol_str(enc, in_rows[j], &len);
            int64_t m = dfa_set_count(t, p, len);
            nel += m;
            if (t == FT_STRING) nb += len - 4 * m;
        }
    fcol_t el = {0};
    int64_t *gid = dfa_alloc(nel, sizeof *gid);
    int rc = -1;
    if (!gid || fcol_alloc(&el, t, nel, nb, false)) goto done;
    int64_t e = 0, at = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = in_off[i]; j < in_off[i + 1]; j++) {
            int64_t len;
            const char *p = fcol_str(enc, in_rows[j], &len);
            int64_t m = dfa_set_count(t, p, len), w = elem_width(t);
            if (t == FT_STRING) {
                int64_t q = 0;
                for (int64_t k = 0; k < m; k++) {
                    uint32_t l;
                    memcpy(&l, p + q, 4);
                    memcpy(el.bytes + at, p + q + 4, l);
                    at += l;
                    q += 4 + (int64_t)l;
                    el.offsets[e + k + 1] = at;
                    gid[e + k] = i;
                }
            } else {
                memcpy((char *)el.data + e * w, p, (size_t)(m * w));
                for (int64_t k = 0; k < m; k++)
                    gid[e + k] = i;
            }
            e += m;
        }
    if (t == FT_STRING) el.bytes[at] = 0;
    rc = dfa_set_build(&el, gid, n, out);
done:
    fcol_free(&el);
    free(gid);
    return rc;
}
