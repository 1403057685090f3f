/* algo_util.h: internals shared by the DataFrame algorithms of algo.h
 * (hash.c, groupby.c, sort.c, merge.c, describe.c, nunique.c): value
 * hashing and equality across key columns, an open-addressing table of
 * groups, a stable multi-key argsort, and column gathers. Not part of the
 * engine's public face; names carry the dfa_ prefix. */
#ifndef MARS_DF_ALGO_UTIL_H
#define MARS_DF_ALGO_UTIL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../errmsg.h"
#include "algo.h"
#include "frame.h"

/* malloc of n elements of size sz with overflow checks; NULL on overflow or
 * failure. n == 0 gives a 1-byte block, so NULL always means failure. */
void *dfa_alloc(int64_t n, size_t sz);

/* a[k] becomes the k-th smallest of a[lo..hi] (inclusive), the smaller
 * before it and the larger after (describe.c: quickselect, a sort past a
 * depth limit); doubles without NaN. */
void dfa_select_d(double *a, int64_t lo, int64_t hi, int64_t k);
void dfa_select_i(int64_t *a, int64_t lo, int64_t hi, int64_t k);

/* ---- hashing ----
 * Fixed constants (no per-process seed): chunks hashed on different workers
 * agree. Numbers hash as their float64 value (an int64 and a float64 of the
 * same value hash equal; -0.0 as 0.0); missing values (NaN, validity 0) hash
 * to one constant; strings by their bytes. */
/* A float number of nanoseconds as a datetime's or timedelta's int64:
 * truncated toward zero, NaT (INT64_MIN) where it is NaN or past int64
 * (numpy's cast, which pandas' arithmetic and means call). */
static inline int64_t dfa_ns_of_double(double v)
{
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return INT64_MIN;
    return (int64_t)v;
}

static inline uint64_t dfa_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

#define DFA_HASH_NA 0x6a09e667f3bcc909ULL

static inline uint64_t dfa_hash_double(double d)
{
    if (d == 0) d = 0; /* -0.0 */
    uint64_t b;
    memcpy(&b, &d, 8);
    return dfa_mix(b ^ 0x9e3779b97f4a7c15ULL);
}

uint64_t dfa_hash_bytes(const void *p, size_t n);

/* h[i] = hash of row i over cols (h is overwritten). */
void dfa_hash_rows(const fcol_t *const *cols, int ncols, int64_t n, uint64_t *h);

/* ---- keys ---- */
typedef struct {
    int nk;
    const fcol_t *k[DF_MAX_KEYS + 1];
    bool na_first; /* dfa_keys_cmp: missing values first (na_position="first") */
} dfa_keys_t;

/* Equal values: missing equals missing (pandas' merge matches NaN with
 * NaN); int64, float64 and bool compare by numeric value; a string never
 * equals a number. */
static inline bool dfa_cell_eq(const fcol_t *a, int64_t i, const fcol_t *b, int64_t j)
{
    bool na = fcol_is_na(a, i), nb = fcol_is_na(b, j);
    if (na || nb) return na && nb;
    if (a->type == b->type) {
        switch (a->type) {
        case FT_INT64:
            return ((const int64_t *)a->data)[i] == ((const int64_t *)b->data)[j];
        case FT_FLOAT64:
            return ((const double *)a->data)[i] == ((const double *)b->data)[j];
        case FT_BOOL:
            return ((const uint8_t *)a->data)[i] == ((const uint8_t *)b->data)[j];
        default: {
            int64_t la, lb;
            const char *sa = fcol_str(a, i, &la), *sb = fcol_str(b, j, &lb);
            return la == lb && memcmp(sa, sb, (size_t)la) == 0;
        }
        }
    }
    if (a->type == FT_STRING || b->type == FT_STRING) return false;
    /* mixed numeric types: by value; an int64 against a float64 compares
     * exactly (no rounding of large integers) */
    double x = a->type == FT_FLOAT64 ? ((const double *)a->data)[i]
               : a->type == FT_BOOL  ? ((const uint8_t *)a->data)[i]
                                     : (double)((const int64_t *)a->data)[i];
    double y = b->type == FT_FLOAT64 ? ((const double *)b->data)[j]
               : b->type == FT_BOOL  ? ((const uint8_t *)b->data)[j]
                                     : (double)((const int64_t *)b->data)[j];
    if (x != y) return false;
    if (a->type == FT_INT64 && b->type == FT_FLOAT64)
        return x < 9223372036854775808.0 && (int64_t)x == ((const int64_t *)a->data)[i];
    if (b->type == FT_INT64 && a->type == FT_FLOAT64)
        return y < 9223372036854775808.0 && (int64_t)y == ((const int64_t *)b->data)[j];
    return true;
}

/* Whether row r misses any of its keys. */
static inline bool dfa_keys_any_na(const dfa_keys_t *ks, int64_t r)
{
    for (int k = 0; k < ks->nk; k++)
        if (fcol_is_na(ks->k[k], r)) return true;
    return false;
}

static inline bool dfa_keys_eq(const dfa_keys_t *a, int64_t i, const dfa_keys_t *b, int64_t j)
{
    for (int k = 0; k < a->nk; k++)
        if (!dfa_cell_eq(a->k[k], i, b->k[k], j)) return false;
    return true;
}

/* Order of two present values of one type (strings by bytes, shorter
 * first on a common prefix: Python's str order for UTF-8). */
static inline int dfa_cell_cmp_present(const fcol_t *a, int64_t i, const fcol_t *b, int64_t j)
{
    switch (a->type) {
    case FT_INT64: {
        int64_t x = ((const int64_t *)a->data)[i], y = ((const int64_t *)b->data)[j];
        return (x > y) - (x < y);
    }
    case FT_FLOAT64: {
        double x = ((const double *)a->data)[i], y = ((const double *)b->data)[j];
        return (x > y) - (x < y);
    }
    case FT_BOOL: {
        int x = ((const uint8_t *)a->data)[i], y = ((const uint8_t *)b->data)[j];
        return (x > y) - (x < y);
    }
    default: {
        int64_t la, lb;
        const char *sa = fcol_str(a, i, &la), *sb = fcol_str(b, j, &lb);
        int c = memcmp(sa, sb, (size_t)(la < lb ? la : lb));
        if (c) return c < 0 ? -1 : 1;
        return (la > lb) - (la < lb);
    }
    }
}

/* Sort order over keys: per-key direction, missing values last whatever the
 * direction (na_position="last"), or first where a's na_first says so. asc
 * NULL: all ascending. */
static inline int dfa_keys_cmp(const dfa_keys_t *a, int64_t i, const dfa_keys_t *b, int64_t j,
                               const bool *asc)
{
    for (int k = 0; k < a->nk; k++) {
        const fcol_t *x = a->k[k], *y = b->k[k];
        bool nx = fcol_is_na(x, i), ny = fcol_is_na(y, j);
        if (nx || ny) {
            if (nx && ny) continue;
            return (nx ? 1 : -1) * (a->na_first ? -1 : 1);
        }
        int c = dfa_cell_cmp_present(x, i, y, j);
        if (c) return (asc && !asc[k]) ? -c : c;
    }
    return 0;
}

/* Stable argsort of rows[0..n) (row numbers into ks) by dfa_keys_cmp; sorts
 * rows in place. Returns 0, or -1 when out of memory. */
int dfa_argsort(const dfa_keys_t *ks, const bool *asc, int64_t *rows, int64_t n);

/* ---- groups ----
 * Open addressing with linear probing over group ids; grows by doubling at
 * half load, so a few groups stay in cache and many groups cost O(1) each. */
typedef struct {
    int64_t *slot;   /* capacity entries: group id, or -1 */
    uint64_t mask;   /* capacity - 1 */
    uint64_t *ghash; /* per group: its hash */
    int64_t *grep;   /* per group: its first row */
    int64_t ngroups, gcap;
} dfa_htab_t;

int dfa_htab_init(dfa_htab_t *t, int64_t expect);
void dfa_htab_free(dfa_htab_t *t);
/* The group of row `row` of ks (hash h), added with that row as its
 * representative when new; -1 when out of memory. */
int64_t dfa_htab_add(dfa_htab_t *t, const dfa_keys_t *ks, int64_t row, uint64_t h);
/* The group of row `row` of probe (hash h) among groups of rows of build, or -1. */
int64_t dfa_htab_find(const dfa_htab_t *t, const dfa_keys_t *build, const dfa_keys_t *probe,
                      int64_t row, uint64_t h);

/* dfa_htab_find for rows 0..n-1 of probe (hashes h[0..n)) into out[0..n);
 * 0, or -1 when out of memory. */
int dfa_htab_find_rows(const dfa_htab_t *t, const dfa_keys_t *build, const dfa_keys_t *probe,
                       int64_t n, const uint64_t *h, int64_t *out);

/* Groups rows 0..n-1 of ks: gid[i] the group of row i (-1 where skip[i] is
 * set; skip may be NULL). The table t (initialised here; the caller frees
 * it) holds each group's first row in t->grep. Returns 0 or -1 (memory). */
int dfa_group(const dfa_keys_t *ks, int64_t n, const uint8_t *skip, int64_t *gid, dfa_htab_t *t);

/* ---- columns ---- */
/* Rows rows[0..n) of c into a new column; rows[i] < 0 gives a missing value
 * (then an int64 column becomes float64 and bool/string get validity).
 * keep_valid false drops the validity array when no taken value is missing. */
int dfa_take_col(const fcol_t *c, const int64_t *rows, int64_t n, bool keep_valid, fcol_t *out);

/* Float value of a numeric cell (int64, float64, bool). */
static inline double dfa_num(const fcol_t *c, int64_t i)
{
    switch (c->type) {
    case FT_INT64:
        return (double)((const int64_t *)c->data)[i];
    case FT_FLOAT64:
        return ((const double *)c->data)[i];
    default:
        return ((const uint8_t *)c->data)[i];
    }
}

/* ---- distinct-value sets (nunique) ----
 * A set of distinct non-missing values of one column type, encoded as
 * bytes: int64 and float64 8 bytes each (floats with -0.0 as 0.0), bool 1
 * byte, strings a 4-byte length then the bytes. */
/* Number of elements in an encoding of type t. */
int64_t dfa_set_count(ftype_t t, const char *p, int64_t len);
/* Sets: for each i in 0..n, the union of the sets ins[in_off[i]..in_off[i+1])
 * (each set a string cell of col `enc`, rows listed in `in_rows`) as cell i
 * of a new string column out. */
int dfa_set_union(ftype_t t, const fcol_t *enc, const int64_t *in_rows, const int64_t *in_off,
                  int64_t n, fcol_t *out);
/* Sets from values: for each group g in 0..ngroups, the distinct non-missing
 * values of c at the rows whose gid is g (gid[i] < 0: skipped), as cell g of
 * a new string column out. */
int dfa_set_build(const fcol_t *c, const int64_t *gid, int64_t ngroups, fcol_t *out);

#endif
