/* test_algo_util.h: frame builders, accessors and checks shared by the
 * test_algo_*.c suites (include after cmocka.h). */
#ifndef TEST_ALGO_UTIL_H
#define TEST_ALGO_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "df/algo.h"
#include "df/frame.h"

static char err[512];

#define OK(call)                                                                                   \
    do {                                                                                           \
        err[0] = 0;                                                                                \
        if ((call) != 0) fail_msg("%s failed: %s", #call, err);                                    \
    } while (0)

/* A frame of n rows and ncols columns with a default index 0..n-1. */
static inline void fb_init(frame_t *f, int64_t n, int ncols)
{
    assert_int_equal(frame_alloc(f, false, n, ncols, 1), 0);
    assert_int_equal(fcol_alloc(&f->idx[0], FT_INT64, n, 0, false), 0);
    for (int64_t i = 0; i < n; i++)
        ((int64_t *)f->idx[0].data)[i] = i;
}

static inline void fb_i64(frame_t *f, int k, const char *name, const int64_t *v)
{
    assert_int_equal(fcol_alloc(&f->cols[k], FT_INT64, f->nrows, 0, false), 0);
    if (f->nrows) memcpy(f->cols[k].data, v, (size_t)f->nrows * 8);
    assert_int_equal(flabel_set(&f->names[k], name, false), 0);
}

static inline void fb_f64(frame_t *f, int k, const char *name, const double *v)
{
    assert_int_equal(fcol_alloc(&f->cols[k], FT_FLOAT64, f->nrows, 0, false), 0);
    if (f->nrows) memcpy(f->cols[k].data, v, (size_t)f->nrows * 8);
    assert_int_equal(flabel_set(&f->names[k], name, false), 0);
}

/* valid: NULL (all present) or n flags; -1 entries of v mean missing too. */
static inline void fb_bool(frame_t *f, int k, const char *name, const int *v)
{
    bool miss = false;
    for (int64_t i = 0; i < f->nrows; i++)
        miss |= v[i] < 0;
    assert_int_equal(fcol_alloc(&f->cols[k], FT_BOOL, f->nrows, 0, miss), 0);
    for (int64_t i = 0; i < f->nrows; i++) {
        ((uint8_t *)f->cols[k].data)[i] = v[i] > 0;
        if (miss) f->cols[k].valid[i] = v[i] >= 0;
    }
    assert_int_equal(flabel_set(&f->names[k], name, false), 0);
}

/* NULL entries are missing. */
static inline void fb_str(frame_t *f, int k, const char *name, const char *const *v)
{
    int64_t nb = 1;
    bool miss = false;
    for (int64_t i = 0; i < f->nrows; i++) {
        if (v[i])
            nb += (int64_t)strlen(v[i]);
        else
            miss = true;
    }
    fcol_t *c = &f->cols[k];
    assert_int_equal(fcol_alloc(c, FT_STRING, f->nrows, nb, miss), 0);
    int64_t at = 0;
    for (int64_t i = 0; i < f->nrows; i++) {
        if (v[i]) {
            memcpy(c->bytes + at, v[i], strlen(v[i]));
            at += (int64_t)strlen(v[i]);
        }
        c->offsets[i + 1] = at;
        if (miss) c->valid[i] = v[i] != NULL;
    }
    c->bytes[at] = 0;
    assert_int_equal(flabel_set(&f->names[k], name, false), 0);
}

static inline int64_t I64(const fcol_t *c, int64_t i)
{
    assert_int_equal(c->type, FT_INT64);
    return ((const int64_t *)c->data)[i];
}
static inline double F64(const fcol_t *c, int64_t i)
{
    assert_int_equal(c->type, FT_FLOAT64);
    return ((const double *)c->data)[i];
}
static inline int BOOLV(const fcol_t *c, int64_t i) /* -1: missing */
{
    assert_int_equal(c->type, FT_BOOL);
    if (c->valid && !c->valid[i]) return -1;
    return ((const uint8_t *)c->data)[i];
}
/* NULL when missing; else a pointer into a static ring of copies. */
static inline const char *STR(const fcol_t *c, int64_t i)
{
    static char ring[8][256];
    static int at;
    assert_int_equal(c->type, FT_STRING);
    if (c->valid && !c->valid[i]) return NULL;
    int64_t len;
    const char *s = fcol_str(c, i, &len);
    char *o = ring[at++ % 8];
    snprintf(o, sizeof ring[0], "%.*s", (int)len, s);
    return o;
}

/* Relative closeness; NaN equals NaN. */
static inline void assert_close(double got, double want, double rel, const char *what)
{
    if (isnan(want) && isnan(got)) return;
    if (isnan(want) != isnan(got) || fabs(got - want) > rel * fmax(1.0, fabs(want)))
        fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

static inline void assert_str(const char *got, const char *want, const char *what)
{
    if (!got || !want) {
        if (got != want)
            fail_msg("%s: got %s, want %s", what, got ? got : "(missing)",
                     want ? want : "(missing)");
        return;
    }
    if (strcmp(got, want)) fail_msg("%s: got '%s', want '%s'", what, got, want);
}

/* Cell equality of two columns (floats within rel, NaN == NaN). */
static inline bool cells_equal(const fcol_t *a, int64_t i, const fcol_t *b, int64_t j, double rel)
{
    if (a->type != b->type) return false;
    bool na = a->type == FT_FLOAT64 ? isnan(F64(a, i)) : (a->valid && !a->valid[i]);
    bool nb = b->type == FT_FLOAT64 ? isnan(F64(b, j)) : (b->valid && !b->valid[j]);
    if (na || nb) return na && nb;
    switch (a->type) {
    case FT_INT64:
        return I64(a, i) == I64(b, j);
    case FT_FLOAT64: {
        double x = F64(a, i), y = F64(b, j);
        return x == y || fabs(x - y) <= rel * fmax(1.0, fabs(y));
    }
    case FT_BOOL:
        return BOOLV(a, i) == BOOLV(b, j);
    default: {
        int64_t la, lb;
        const char *sa = fcol_str(a, i, &la), *sb = fcol_str(b, j, &lb);
        return la == lb && memcmp(sa, sb, (size_t)la) == 0;
    }
    }
}

/* Same shape, types, labels and values (floats within rel), index included. */
static inline void assert_frames_same(const frame_t *a, const frame_t *b, double rel,
                                      const char *what)
{
    if (a->nrows != b->nrows || a->ncols != b->ncols || a->nidx != b->nidx)
        fail_msg("%s: %lld x %d (%d levels) vs %lld x %d (%d levels)", what, (long long)a->nrows,
                 a->ncols, a->nidx, (long long)b->nrows, b->ncols, b->nidx);
    for (int k = 0; k < a->nidx; k++)
        for (int64_t i = 0; i < a->nrows; i++)
            if (!cells_equal(&a->idx[k], i, &b->idx[k], i, rel))
                fail_msg("%s: index level %d differs at row %lld", what, k, (long long)i);
    for (int k = 0; k < a->ncols; k++) {
        if ((a->names[k].s == NULL) != (b->names[k].s == NULL) ||
            (a->names[k].s && strcmp(a->names[k].s, b->names[k].s)))
            fail_msg("%s: column %d named %s vs %s", what, k, a->names[k].s, b->names[k].s);
        for (int64_t i = 0; i < a->nrows; i++)
            if (!cells_equal(&a->cols[k], i, &b->cols[k], i, rel))
                fail_msg("%s: column %d (%s) differs at row %lld", what, k,
                         a->names[k].s ? a->names[k].s : "", (long long)i);
    }
}

/* A frame through a blob and back (as between jobs): *buf holds the blob
 * the view points into; free it after frame_free(view). */
static inline void roundtrip(const frame_t *f, frame_t *view, void **buf)
{
    size_t n = frame_blob_size(f);
    *buf = aligned_alloc(8, (n + 7) & ~(size_t)7);
    assert_non_null(*buf);
    frame_serialize(f, *buf);
    OK(frame_view(*buf, n, view, err, sizeof err));
}

/* A small deterministic generator (xorshift64*). */
static inline uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

#endif
