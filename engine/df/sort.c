/* sort.c: the stable multi-key argsort (dfa_argsort) and the sample sort of
 * sort_values (algo.h): local samples, splitters, range partitioning and the
 * sort of one part. Order: per-key direction, missing values last whatever
 * the direction (first with na_first), strings by bytes, ties in row order
 * (kind="mergesort"). */
#include <stdlib.h>
#include <string.h>

#include "algo_util.h"

/* Runs up to this length are sorted by insertion (cheaper than merging). */
#define INSERTION_RUN 24

/* A stable top-down merge sort of T a[0..n) with scratch b[0..n); LESS(x, y)
 * is true when x must come before y; ties keep their order. */
#define DEFINE_MSORT(name, T, CTX, LESS)                                                           \
    static void name##_ins(T *a, int64_t n, CTX c)                                                 \
    {                                                                                              \
        for (int64_t i = 1; i < n; i++) {                                                          \
            T x = a[i];                                                                            \
            int64_t j = i;                                                                         \
            while (j > 0 && LESS(c, x, a[j - 1])) {                                                \
                a[j] = a[j - 1];                                                                   \
                j--;                                                                               \
            }                                                                                      \
            a[j] = x;                                                                              \
        }                                                                                          \
    }                                                                                              \
    /* sorts a (result in a) using b */                                                            \
    static void name(T *a, T *b, int64_t n, CTX c)                                                 \
    {                                                                                              \
        if (n <= INSERTION_RUN) {                                                                  \
            name##_ins(a, n, c);                                                                   \
            return;                                                                                \
        }                                                                                          \
        int64_t h = n / 2;                                                                         \
        name(a, b, h, c);                                                                          \
        name(a + h, b + h, n - h, c);                                                              \
        if (!LESS(c, a[h], a[h - 1])) return; /* already in order */                               \
        memcpy(b, a, (size_t)h * sizeof(T));                                                       \
        int64_t i = 0, j = h, k = 0;                                                               \
        while (i < h && j < n) {                                                                   \
            if (LESS(c, a[j], b[i]))                                                               \
                a[k++] = a[j++];                                                                   \
            else                                                                                   \
                a[k++] = b[i++];                                                                   \
        }                                                                                          \
        while (i < h)                                                                              \
            a[k++] = b[i++];                                                                       \
    }

typedef struct {
    const dfa_keys_t *ks;
    const bool *asc;
} gen_ctx_t;

#define GEN_LESS(c, x, y) (dfa_keys_cmp((c)->ks, (x), (c)->ks, (y), (c)->asc) < 0)
DEFINE_MSORT(msort_gen, int64_t, const gen_ctx_t *, GEN_LESS)

/* One numeric key: (value, row) pairs sorted without per-compare dispatch. */
typedef struct {
    double v;
    int64_t row;
} dpair_t;
typedef struct {
    int64_t v;
    int64_t row;
} ipair_t;
#define ASC_LESS(c, x, y) ((x).v < (y).v)
#define DESC_LESS(c, x, y) ((x).v > (y).v)
DEFINE_MSORT(msort_d_asc, dpair_t, int, ASC_LESS)
DEFINE_MSORT(msort_d_desc, dpair_t, int, DESC_LESS)
DEFINE_MSORT(msort_i_asc, ipair_t, int, ASC_LESS)
DEFINE_MSORT(msort_i_desc, ipair_t, int, DESC_LESS)

/* Below this many rows the merge sort wins over radix passes. */
#define RADIX_MIN 4096
#define RADIX_BITS 11
#define RADIX_PASSES 6 /* 6 x 11 >= 64 */

typedef struct {
    uint64_t k;
    int64_t row;
} upair_t;

/* Stable LSD radix sort of a[0..n) by k (b: scratch); passes where every
 * key has the same digit are skipped (small integer ranges take 1-2).
 * Returns the buffer holding the result (a or b). */
static upair_t *radix_pairs(upair_t *a, upair_t *b, int64_t n)
{
    enum { NB = 1 << RADIX_BITS };
    static __thread int64_t hist[RADIX_PASSES][NB];
    memset(hist, 0, sizeof hist);
    for (int64_t i = 0; i < n; i++)
        for (int p = 0; p < RADIX_PASSES; p++)
            hist[p][(a[i].k >> (p * RADIX_BITS)) & (NB - 1)]++;
    for (int p = 0; p < RADIX_PASSES; p++) {
        int shift = p * RADIX_BITS;
        if (hist[p][(a[0].k >> shift) & (NB - 1)] == n) continue;
        int64_t sum = 0;
        for (int d = 0; d < NB; d++) {
            int64_t c = hist[p][d];
            hist[p][d] = sum;
            sum += c;
        }
        for (int64_t i = 0; i < n; i++)
            b[hist[p][(a[i].k >> shift) & (NB - 1)]++] = a[i];
        upair_t *t = a;
        a = b;
        b = t;
    }
    return a;
}

static int argsort_num(const fcol_t *c, bool asc, int64_t *rows, int64_t n)
{
    if (n >= RADIX_MIN) {
        /* keys mapped to unsigned integers in the same order; -0.0 as 0.0
         * (equal keys keep their row order); descending by complement */
        upair_t *a = dfa_alloc(n, sizeof *a), *b = dfa_alloc(n, sizeof *b);
        if (!a || !b) {
            free(a);
            free(b);
            return -1;
        }
        int64_t m = 0, nan = 0;
        uint64_t flip = asc ? 0 : ~(uint64_t)0;
        if (c->type == FT_INT64) {
            const int64_t *d = c->data;
            for (int64_t i = 0; i < n; i++)
                a[m++] = (upair_t){((uint64_t)d[rows[i]] ^ 0x8000000000000000ULL) ^ flip, rows[i]};
        } else {
            const double *d = c->data;
            for (int64_t i = 0; i < n; i++) {
                double v = d[rows[i]];
                if (v != v) {
                    b[nan++].row = rows[i];
                    continue;
                }
                if (v == 0) v = 0;
                uint64_t u;
                memcpy(&u, &v, 8);
                u = (u >> 63) ? ~u : u | 0x8000000000000000ULL;
                a[m++] = (upair_t){u ^ flip, rows[i]};
            }
            /* NaN rows last, in their order */
            for (int64_t i = 0; i < nan; i++)
                rows[m + i] = b[i].row;
        }
        const upair_t *res = m > 0 ? radix_pairs(a, b, m) : a;
        for (int64_t i = 0; i < m; i++)
            rows[i] = res[i].row;
        free(a);
        free(b);
        return 0;
    }
    if (c->type == FT_INT64) {
        ipair_t *a = dfa_alloc(n, sizeof *a), *b = dfa_alloc(n, sizeof *b);
        if (!a || !b) {
            free(a);
            free(b);
            return -1;
        }
        const int64_t *d = c->data;
        for (int64_t i = 0; i < n; i++)
            a[i] = (ipair_t){d[rows[i]], rows[i]};
        (asc ? msort_i_asc : msort_i_desc)(a, b, n, 0);
        for (int64_t i = 0; i < n; i++)
            rows[i] = a[i].row;
        free(a);
        free(b);
        return 0;
    }
    dpair_t *a = dfa_alloc(n, sizeof *a), *b = dfa_alloc(n, sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return -1;
    }
    /* NaN rows go after the others, in their order */
    const double *d = c->data;
    int64_t m = 0, nan = 0;
    for (int64_t i = 0; i < n; i++)
        if (d[rows[i]] == d[rows[i]]) a[m++] = (dpair_t){d[rows[i]], rows[i]};
    for (int64_t i = 0; i < n; i++)
        if (d[rows[i]] != d[rows[i]]) b[nan++] = (dpair_t){0, rows[i]};
    for (int64_t i = 0; i < nan; i++)
        rows[m + i] = b[i].row;
    (asc ? msort_d_asc : msort_d_desc)(a, b, m, 0);
    for (int64_t i = 0; i < m; i++)
        rows[i] = a[i].row;
    free(a);
    free(b);
    return 0;
}

/* rows[0..n) sorted with c's missing values last, in their order: those
 * moved before the others, still in their order (na_position="first") */
static int na_to_front(const fcol_t *c, int64_t *rows, int64_t n)
{
    int64_t m = n;
    while (m > 0 && fcol_is_na(c, rows[m - 1]))
        m--;
    if (m == n || m == 0) return 0;
    int64_t *b = dfa_alloc(m, sizeof *b);
    if (!b) return -1;
    memcpy(b, rows, (size_t)m * sizeof *b);
    memmove(rows, rows + m, (size_t)(n - m) * sizeof *rows);
    memcpy(rows + (n - m), b, (size_t)m * sizeof *b);
    free(b);
    return 0;
}

static int argsort_one(const dfa_keys_t *ks, const bool *asc, int64_t *rows, int64_t n);

int dfa_argsort(const dfa_keys_t *ks, const bool *asc, int64_t *rows, int64_t n)
{
    if (n < 2 || ks->nk == 0) return 0;
    const fcol_t *c0 = ks->k[0];
    if (ks->nk == 1 && (c0->type == FT_INT64 || c0->type == FT_FLOAT64))
        return argsort_one(ks, asc, rows, n) || (ks->na_first && na_to_front(c0, rows, n)) ? -1 : 0;
    int64_t *b = dfa_alloc(n, sizeof *b);
    if (!b) return -1;
    gen_ctx_t c = {ks, asc};
    msort_gen(rows, b, n, &c);
    free(b);
    return 0;
}

/* one int64 or float64 key: missing values last */
static int argsort_one(const dfa_keys_t *ks, const bool *asc, int64_t *rows, int64_t n)
{
    const fcol_t *c0 = ks->k[0];
    if (c0->type == FT_INT64 && c0->unit != FU_NONE) {
        /* datetimes: NaT rows last, in their order, as pandas */
        int64_t *b = dfa_alloc(n, sizeof *b), m = 0, nat = 0;
        if (!b) return -1;
        for (int64_t i = 0; i < n; i++) {
            if (fcol_is_na(c0, rows[i]))
                b[nat++] = rows[i];
            else
                rows[m++] = rows[i];
        }
        memcpy(rows + m, b, (size_t)nat * sizeof *b);
        free(b);
        return argsort_num(c0, !asc || asc[0], rows, m);
    }
    return argsort_num(c0, !asc || asc[0], rows, n);
}

/* ---- sample sort ---- */

static int keys_of(const frame_t *f, const sort_spec_t *s, bool by_position, dfa_keys_t *ks,
                   char *err, size_t errlen)
{
    if (s->nby < 1 || s->nby > DF_MAX_KEYS)
        return errmsg(err, errlen, "sort_values: %d keys", s->nby);
    ks->nk = s->nby;
    for (int k = 0; k < s->nby; k++) {
        int c = by_position ? k : s->by[k];
        if (c < -f->nidx || c >= f->ncols)
            return errmsg(err, errlen, "sort_values: key column %d of %d", c, f->ncols);
        ks->k[k] = c < 0 ? &f->idx[-1 - c] : &f->cols[c];
    }
    ks->na_first = s->na_first;
    return 0;
}

/* A frame of the key columns of src (keys ks; by -1 - L: index level L)
 * at rows[0..n), named after them, with a default index. */
static int key_frame(const frame_t *src, const sort_spec_t *s, bool by_position,
                     const int64_t *rows, int64_t n, frame_t *out)
{
    if (frame_alloc(out, false, n, s->nby, 1)) return -1;
    for (int k = 0; k < s->nby; k++) {
        int c = by_position ? k : s->by[k];
        const fcol_t *col = c < 0 ? &src->idx[-1 - c] : &src->cols[c];
        const flabel_t *nm = c < 0 ? &src->idx_names[-1 - c] : &src->names[c];
        if (dfa_take_col(col, rows, n, true, &out->cols[k]) ||
            flabel_set(&out->names[k], nm->s, nm->is_int))
            goto fail;
    }
    if (fcol_alloc(&out->idx[0], FT_INT64, n, 0, false)) goto fail;
    for (int64_t i = 0; i < n; i++)
        ((int64_t *)out->idx[0].data)[i] = i;
    return 0;
fail:
    frame_free(out);
    return -1;
}

/* Candidates per sample row: the chunk's rows are thinned to this many per
 * wanted sample before the local sort, so sampling costs O(k log k), not a
 * sort of the whole chunk, while quantiles stay close to the chunk's. */
#define SAMPLE_OVERSAMPLE 16

int df_sort_sample(const frame_t *in, const sort_spec_t *s, int k, frame_t *out, char *err,
                   size_t errlen)
{
    dfa_keys_t ks = {0};
    if (keys_of(in, s, false, &ks, err, errlen)) return -1;
    if (k < 0) k = 0;
    int64_t n = in->nrows, want = (int64_t)k * SAMPLE_OVERSAMPLE;
    int64_t m = n <= want ? n : want;
    int64_t *cand = dfa_alloc(m, sizeof *cand), *pick = dfa_alloc(k, sizeof *pick);
    if (!cand || !pick) goto nomem;
    /* m rows spread over the chunk: one per stride, at a deterministic
     * pseudo-random offset inside it (fixed seed: the same chunk gives the
     * same sample on any worker) */
    uint64_t rng = 0x853c49e6748fea9bULL;
    int64_t c = 0;
    for (int64_t i = 0; i < m; i++) {
        int64_t lo = (int64_t)((__int128)i * n / m), hi = (int64_t)((__int128)(i + 1) * n / m);
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t r = lo + (int64_t)((rng >> 33) % (uint64_t)(hi - lo));
        if (!dfa_keys_any_na(&ks, r)) cand[c++] = r;
    }
    if (dfa_argsort(&ks, s->asc, cand, c)) goto nomem;
    int64_t np = c <= k ? c : k;
    for (int64_t i = 0; i < np; i++)
        pick[i] = c <= k ? cand[i] : cand[(int64_t)(((__int128)2 * i + 1) * c / (2 * k))];
    if (key_frame(in, s, false, pick, np, out)) goto nomem;
    free(cand);
    free(pick);
    return 0;
nomem:
    free(cand);
    free(pick);
    return errmsg(err, errlen, "sort_values: out of memory sampling %lld rows", (long long)n);
}

int df_sort_splitters(const frame_t *const *samples, int n, const sort_spec_t *s, int nparts,
                      frame_t *out, char *err, size_t errlen)
{
    if (n < 1 || nparts < 1)
        return errmsg(err, errlen, "sort_values: %d samples for %d parts", n, nparts);
    frame_t all;
    if (frame_concat(samples, n, &all))
        return errmsg(err, errlen, "sort_values: samples differ in columns or out of memory");
    dfa_keys_t ks = {0};
    int64_t *rows = NULL;
    if (keys_of(&all, s, true, &ks, err, errlen)) goto fail;
    int64_t m = all.nrows;
    if (!(rows = dfa_alloc(m, sizeof *rows))) goto nomem;
    for (int64_t i = 0; i < m; i++)
        rows[i] = i;
    if (dfa_argsort(&ks, s->asc, rows, m)) goto nomem;
    int64_t u = 0; /* distinct keys, in order */
    for (int64_t i = 0; i < m; i++)
        if (u == 0 || dfa_keys_cmp(&ks, rows[u - 1], &ks, rows[i], s->asc) != 0)
            rows[u++] = rows[i];
    int64_t want = nparts - 1;
    if (u > want) {
        /* u >= nparts: (i * u) / nparts strictly increases with i */
        for (int64_t i = 1; i <= want; i++)
            rows[i - 1] = rows[i * u / nparts];
        u = want;
    }
    if (key_frame(&all, s, true, rows, u, out)) goto nomem;
    free(rows);
    frame_free(&all);
    return 0;
nomem:
    errmsg(err, errlen, "sort_values: out of memory for splitters");
fail:
    free(rows);
    frame_free(&all);
    return -1;
}

int df_range_partition(const frame_t *in, const frame_t *splitters, const sort_spec_t *s,
                       frame_t *outs, char *err, size_t errlen)
{
    dfa_keys_t ks = {0}, sk = {0};
    if (keys_of(in, s, false, &ks, err, errlen) || keys_of(splitters, s, true, &sk, err, errlen))
        return -1;
    /* an int64 key beside float64 splitters (or the reverse: a merge's
     * chunk where no value went missing beside one where some did) is
     * compared as float64, as the parts concatenate it */
    fcol_t wide[DF_MAX_KEYS] = {{0}};
    int64_t n = in->nrows, ns = splitters->nrows;
    int64_t *part = dfa_alloc(n, sizeof *part), *start = dfa_alloc(ns + 2, sizeof *start);
    int64_t *rows = dfa_alloc(n, sizeof *rows);
    int64_t made = 0;
    for (int k = 0; k < s->nby; k++) {
        if (ks.k[k]->type == sk.k[k]->type) continue;
        const fcol_t **narrow = ks.k[k]->type == FT_INT64 ? &ks.k[k] : &sk.k[k];
        if ((*narrow == ks.k[k] ? sk.k[k] : ks.k[k])->type != FT_FLOAT64 ||
            (*narrow)->type != FT_INT64) {
            errmsg(err, errlen, "sort_values: key %d is %d in the chunk, %d in splitters", k,
                   ks.k[k]->type, sk.k[k]->type);
            goto fail;
        }
        if (fcol_widen(*narrow, &wide[k])) goto nomem;
        *narrow = &wide[k];
    }
    if (!part || !start || !rows) goto nomem;
    memset(start, 0, (size_t)(ns + 2) * sizeof *start);
    for (int64_t i = 0; i < n; i++) {
        /* lower bound: the first splitter >= the key; equal keys go with
         * their splitter, so they always meet in one part */
        int64_t lo = 0, hi = ns;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (dfa_keys_cmp(&sk, mid, &ks, i, s->asc) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        part[i] = lo;
        start[lo + 1]++;
    }
    for (int64_t p = 0; p <= ns; p++)
        start[p + 1] += start[p];
    for (int64_t i = 0; i < n; i++)
        rows[start[part[i]]++] = i;
    for (int64_t p = 0; p <= ns; p++) {
        int64_t lo = p ? start[p - 1] : 0;
        if (frame_take(in, rows + lo, start[p] - lo, &outs[p])) goto nomem;
        made++;
    }
    for (int k = 0; k < s->nby; k++)
        fcol_free(&wide[k]);
    free(part);
    free(start);
    free(rows);
    return 0;
nomem:
    errmsg(err, errlen, "sort_values: out of memory partitioning %lld rows", (long long)n);
fail:
    for (int64_t p = 0; p < made; p++)
        frame_free(&outs[p]);
    for (int k = 0; k < s->nby; k++)
        fcol_free(&wide[k]);
    free(part);
    free(start);
    free(rows);
    return -1;
}

int df_sort_part(const frame_t *const *pieces, int n, const sort_spec_t *s, frame_t *out, char *err,
                 size_t errlen)
{
    if (n < 1) return errmsg(err, errlen, "sort_values: a part of no pieces");
    /* shallow copies without range_index: concatenation keeps the pieces'
     * index labels instead of renumbering them */
    frame_t *tmp = dfa_alloc(n, sizeof *tmp);
    const frame_t **tp = dfa_alloc(n, sizeof *tp);
    if (!tmp || !tp) {
        free(tmp);
        free(tp);
        return errmsg(err, errlen, "sort_values: out of memory for %d pieces", n);
    }
    for (int i = 0; i < n; i++) {
        tmp[i] = *pieces[i];
        tmp[i].range_index = false;
        tp[i] = &tmp[i];
    }
    frame_t all;
    int crc = frame_concat(tp, n, &all);
    free(tmp);
    free(tp);
    if (crc) return errmsg(err, errlen, "sort_values: pieces differ in columns or out of memory");
    if (s->nby == 0) { /* no keys: the pieces in order (an index join pandas leaves unsorted) */
        *out = all;
        return 0;
    }
    dfa_keys_t ks = {0};
    int64_t *rows = NULL;
    if (keys_of(&all, s, false, &ks, err, errlen)) goto fail;
    if (!(rows = dfa_alloc(all.nrows, sizeof *rows))) goto nomem;
    for (int64_t i = 0; i < all.nrows; i++)
        rows[i] = i;
    if (dfa_argsort(&ks, s->asc, rows, all.nrows) || frame_take(&all, rows, all.nrows, out))
        goto nomem;
    out->range_index = false; /* the index is kept: rows moved */
    free(rows);
    frame_free(&all);
    return 0;
nomem:
    errmsg(err, errlen, "sort_values: out of memory sorting %lld rows", (long long)all.nrows);
fail:
    free(rows);
    frame_free(&all);
    return -1;
}
