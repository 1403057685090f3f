/* test_frame.c: the frame blob of engine/df/frame.h: a round trip of every
 * column type with NA, labels and a MultiIndex; every truncation and a
 * corrupted descriptor refused by frame_view; take, slice and concat (int64
 * beside float64 made float64). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "df/frame.h"

static void make(frame_t *f)
{
    assert_int_equal(frame_alloc(f, false, 3, 4, 2), 0);
    assert_int_equal(fcol_alloc(&f->cols[0], FT_INT64, 3, 0, false), 0);
    assert_int_equal(fcol_alloc(&f->cols[1], FT_FLOAT64, 3, 0, false), 0);
    assert_int_equal(fcol_alloc(&f->cols[2], FT_BOOL, 3, 0, true), 0);
    assert_int_equal(fcol_alloc(&f->cols[3], FT_STRING, 3, 6, true), 0);
    assert_int_equal(fcol_alloc(&f->idx[0], FT_INT64, 3, 0, false), 0);
    assert_int_equal(fcol_alloc(&f->idx[1], FT_STRING, 3, 4, false), 0);
    for (int i = 0; i < 3; i++) {
        ((int64_t *)f->cols[0].data)[i] = i * 10 - 5;
        ((double *)f->cols[1].data)[i] = i == 1 ? NAN : i + 0.5;
        ((uint8_t *)f->cols[2].data)[i] = (uint8_t)(i & 1);
        ((int64_t *)f->idx[0].data)[i] = 100 + i;
    }
    f->cols[2].valid[2] = 0;
    memcpy(f->cols[3].bytes, "abcde", 6);
    int64_t so[4] = {0, 2, 2, 5};
    memcpy(f->cols[3].offsets, so, sizeof so);
    f->cols[3].valid[1] = 0;
    memcpy(f->idx[1].bytes, "xyz", 4);
    int64_t io[4] = {0, 1, 2, 3};
    memcpy(f->idx[1].offsets, io, sizeof io);
    assert_int_equal(flabel_set(&f->names[0], "i", false), 0);
    assert_int_equal(flabel_set(&f->names[1], "7", true), 0);
    assert_int_equal(flabel_set(&f->names[3], "s", false), 0);
    assert_int_equal(flabel_set(&f->idx_names[0], "k", false), 0);
}

static void same(const frame_t *a, const frame_t *b)
{
    assert_int_equal(a->nrows, b->nrows);
    assert_int_equal(a->ncols, b->ncols);
    assert_int_equal(a->nidx, b->nidx);
    for (int k = 0; k < a->ncols; k++) {
        assert_int_equal(a->cols[k].type, b->cols[k].type);
        assert_true((a->names[k].s == NULL) == (b->names[k].s == NULL));
        if (a->names[k].s) assert_string_equal(a->names[k].s, b->names[k].s);
        assert_int_equal(a->names[k].is_int, b->names[k].is_int);
        for (int64_t i = 0; i < a->nrows; i++) {
            assert_int_equal(fcol_is_na(&a->cols[k], i), fcol_is_na(&b->cols[k], i));
            if (fcol_is_na(&a->cols[k], i)) continue;
            if (a->cols[k].type == FT_STRING) {
                int64_t la, lb;
                const char *sa = fcol_str(&a->cols[k], i, &la), *sb = fcol_str(&b->cols[k], i, &lb);
                assert_int_equal(la, lb);
                assert_memory_equal(sa, sb, (size_t)la);
            } else if (a->cols[k].type == FT_BOOL) {
                assert_int_equal(((uint8_t *)a->cols[k].data)[i], ((uint8_t *)b->cols[k].data)[i]);
            } else {
                assert_memory_equal((char *)a->cols[k].data + i * 8,
                                    (char *)b->cols[k].data + i * 8, 8);
            }
        }
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    frame_t f, v;
    make(&f);
    size_t n = frame_blob_size(&f);
    uint64_t *buf = malloc(n);
    frame_serialize(&f, buf);
    assert_int_equal(frame_blob_len(buf, n), n);
    char err[256];
    assert_int_equal(frame_view(buf, n, &v, err, sizeof err), 0);
    same(&f, &v);
    assert_string_equal(v.idx_names[0].s, "k");
    assert_null(v.idx_names[1].s);
    frame_free(&v);
    /* every truncation is refused */
    for (size_t k = 0; k < n; k += 8) {
        frame_t w;
        assert_int_equal(frame_view(buf, k, &w, err, sizeof err), -1);
    }
    /* a bad type in the first descriptor */
    ((uint8_t *)buf)[40] = 9;
    assert_int_equal(frame_view(buf, n, &v, err, sizeof err), -1);
    free(buf);
    frame_free(&f);
}

static void test_rows(void **state)
{
    (void)state;
    frame_t f, t, s, c;
    make(&f);
    int64_t rows[2] = {2, 0};
    assert_int_equal(frame_take(&f, rows, 2, &t), 0);
    assert_int_equal(((int64_t *)t.cols[0].data)[0], 15);
    assert_int_equal(((int64_t *)t.idx[0].data)[1], 100);
    assert_int_equal(frame_slice(&f, 1, 2, &s), 0);
    const frame_t *parts[3] = {&s, &t, &f};
    assert_int_equal(frame_concat(parts, 3, &c), 0);
    assert_int_equal(c.nrows, 7);
    int64_t l;
    const char *str = fcol_str(&c.cols[3], 1, &l);
    assert_int_equal(l, 3);
    assert_memory_equal(str, "cde", 3);
    assert_true(fcol_is_na(&c.cols[3], 0));
    assert_int_equal(frame_slice(&f, 2, 2, &s), -1);
    frame_free(&c);
    frame_free(&t);
    frame_free(&s);
    frame_free(&f);
}

/* int64 beside float64 becomes float64 (a merge's chunk where no value went
 * missing beside one where some did); int64 beside a string fails. */
static void test_concat_mixed(void **state)
{
    frame_t a, b, c, d;
    assert_int_equal(frame_alloc(&a, false, 2, 1, 1), 0);
    assert_int_equal(frame_alloc(&b, false, 1, 1, 1), 0);
    assert_int_equal(fcol_alloc(&a.cols[0], FT_INT64, 2, 0, false), 0);
    assert_int_equal(fcol_alloc(&b.cols[0], FT_FLOAT64, 1, 0, false), 0);
    assert_int_equal(fcol_alloc(&a.idx[0], FT_INT64, 2, 0, false), 0);
    assert_int_equal(fcol_alloc(&b.idx[0], FT_INT64, 1, 0, false), 0);
    ((int64_t *)a.cols[0].data)[0] = -3;
    ((int64_t *)a.cols[0].data)[1] = (int64_t)1 << 40;
    ((double *)b.cols[0].data)[0] = NAN;
    const frame_t *parts[2] = {&a, &b}, *back[2] = {&b, &a};
    assert_int_equal(frame_concat(parts, 2, &c), 0);
    assert_int_equal(c.cols[0].type, FT_FLOAT64);
    assert_int_equal(c.idx[0].type, FT_INT64);
    assert_true(((double *)c.cols[0].data)[0] == -3.0);
    assert_true(((double *)c.cols[0].data)[1] == 1099511627776.0);
    assert_true(isnan(((double *)c.cols[0].data)[2]));
    assert_int_equal(frame_concat(back, 2, &d), 0);
    assert_int_equal(d.cols[0].type, FT_FLOAT64);
    assert_true(((double *)d.cols[0].data)[1] == -3.0);
    frame_free(&c);
    frame_free(&d);
    fcol_free(&b.cols[0]);
    assert_int_equal(fcol_alloc(&b.cols[0], FT_STRING, 1, 2, false), 0);
    memcpy(b.cols[0].bytes, "x", 2);
    b.cols[0].offsets[1] = 1;
    assert_int_equal(frame_concat(parts, 2, &c), -1);
    frame_free(&a);
    frame_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_concat_mixed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
