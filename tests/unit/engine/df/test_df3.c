/* test_df3.c: engine/df/df3.c and the df3 merge paths against pandas 1.5.3:
 * concat along the columns (side by side, the union of indexes in order of
 * first appearance, the intersection, a repeated index value refused), a
 * merge on the index (left_index/right_index) with suffixes, left_on and
 * right_on of different names (both columns kept). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "df/df3.h"
#include "test_algo_util.h"

static void set_index(frame_t *f, const int64_t *v)
{
    for (int64_t i = 0; i < f->nrows; i++)
        ((int64_t *)f->idx[0].data)[i] = v[i];
}

/* a schema with labels for n columns */
static void schema(df_node_t *d, const char *const *names, int n)
{
    memset(d, 0, sizeof *d);
    d->ncols = n;
    d->cols = calloc((size_t)n, sizeof *d->cols);
    for (int k = 0; k < n; k++)
        d->cols[k].name = (char *)names[k];
}

/* x = DataFrame({'x': [1, 2, 3]}, index=[5, 1, 2]);
 * y = DataFrame({'y': [10, 20, 30]}, index=[2, 0, 7])
 * pd.concat([x, y], axis=1): index [5, 1, 2, 0, 7], x [1, 2, 3, nan, nan],
 * y [nan, nan, 10, 20, 30]; join='inner': index [2], x [3], y [10] */
static void test_concat_cols_aligns(void **state)
{
    (void)state;
    frame_t x, y, out;
    fb_init(&x, 3, 1);
    fb_i64(&x, 0, "x", (int64_t[]){1, 2, 3});
    set_index(&x, (int64_t[]){5, 1, 2});
    fb_init(&y, 3, 1);
    fb_i64(&y, 0, "y", (int64_t[]){10, 20, 30});
    set_index(&y, (int64_t[]){2, 0, 7});
    df_node_t d;
    schema(&d, (const char *[]){"x", "y"}, 2);
    const frame_t *parts[] = {&x, &y};
    OK(df3_concat_cols(&d, parts, 2, &out, err, sizeof err));
    assert_int_equal(out.nrows, 5);
    int64_t idx[] = {5, 1, 2, 0, 7};
    double xs[] = {1, 2, 3, NAN, NAN}, ys[] = {NAN, NAN, 10, 20, 30};
    assert_int_equal(out.cols[0].type, FT_FLOAT64);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(I64(&out.idx[0], i), idx[i]);
        assert_true(cells_equal(&out.cols[0], i, &out.cols[0], i, 0));
        if (xs[i] == xs[i])
            assert_close(F64(&out.cols[0], i), xs[i], 0, "x");
        else
            assert_true(F64(&out.cols[0], i) != F64(&out.cols[0], i));
        if (ys[i] == ys[i])
            assert_close(F64(&out.cols[1], i), ys[i], 0, "y");
        else
            assert_true(F64(&out.cols[1], i) != F64(&out.cols[1], i));
    }
    assert_string_equal(out.names[1].s, "y");
    frame_free(&out);
    d.join_inner = true;
    OK(df3_concat_cols(&d, parts, 2, &out, err, sizeof err));
    assert_int_equal(out.nrows, 1);
    assert_int_equal(I64(&out.idx[0], 0), 2);
    assert_int_equal(out.cols[0].type, FT_INT64);
    assert_int_equal(I64(&out.cols[0], 0), 3);
    assert_int_equal(I64(&out.cols[1], 0), 10);
    frame_free(&out);
    /* a repeated index value: pandas' InvalidIndexError */
    set_index(&y, (int64_t[]){2, 2, 7});
    d.join_inner = false;
    assert_int_equal(df3_concat_cols(&d, parts, 2, &out, err, sizeof err), -1);
    assert_non_null(strstr(err, "uniquely valued"));
    /* equal indexes: side by side, types kept */
    set_index(&y, (int64_t[]){5, 1, 2});
    OK(df3_concat_cols(&d, parts, 2, &out, err, sizeof err));
    assert_int_equal(out.nrows, 3);
    assert_int_equal(out.cols[0].type, FT_INT64);
    assert_int_equal(I64(&out.cols[1], 2), 30);
    frame_free(&out);
    free(d.cols);
    frame_free(&x);
    frame_free(&y);
}

/* L = DataFrame({'a': [1, 2], 'v': [1.5, 2.5]}, index=[10, 20]);
 * R = DataFrame({'v': [7, 8]}, index=[20, 30])
 * L.merge(R, left_index=True, right_index=True, how='outer',
 *         suffixes=('_l', '_r')): index [10, 20, 30], a [1, 2, nan],
 * v_l [1.5, 2.5, nan], v_r [nan, 7, 8] (rows in any order) */
static void test_merge_on_index(void **state)
{
    (void)state;
    frame_t l, r, out;
    fb_init(&l, 2, 2);
    fb_i64(&l, 0, "a", (int64_t[]){1, 2});
    fb_f64(&l, 1, "v", (double[]){1.5, 2.5});
    set_index(&l, (int64_t[]){10, 20});
    fb_init(&r, 2, 1);
    fb_i64(&r, 0, "v", (int64_t[]){7, 8});
    set_index(&r, (int64_t[]){20, 30});
    merge_spec_t s = {.n_on = 1,
                      .lon = {-1},
                      .ron = {-1},
                      .how = MERGE_OUTER,
                      .index = true,
                      .custom_sfx = true,
                      .sfx = {"_l", "_r"}};
    OK(df_merge_part(&l, &r, &s, &out, err, sizeof err));
    assert_int_equal(out.nrows, 3);
    assert_false(out.range_index);
    assert_int_equal(out.ncols, 3);
    assert_string_equal(out.names[0].s, "a");
    assert_string_equal(out.names[1].s, "v_l");
    assert_string_equal(out.names[2].s, "v_r");
    for (int64_t i = 0; i < 3; i++) {
        int64_t k = I64(&out.idx[0], i);
        double vr = F64(&out.cols[2], i);
        if (k == 10) assert_true(vr != vr);
        if (k == 20) assert_close(vr, 7, 0, "v_r");
        if (k == 30) {
            assert_close(vr, 8, 0, "v_r");
            assert_true(F64(&out.cols[0], i) != F64(&out.cols[0], i));
        }
    }
    frame_free(&out);
    /* left_on 'a' with right_on 'v' (different names): both kept, no suffix
     * on 'a'; 'v' clashes */
    merge_spec_t t = {.n_on = 1, .lon = {0}, .ron = {0}, .how = MERGE_INNER, .distinct = {true}};
    frame_free(&l);
    fb_init(&l, 2, 2);
    fb_i64(&l, 0, "a", (int64_t[]){7, 9});
    fb_f64(&l, 1, "v", (double[]){1.5, 2.5});
    OK(df_merge_part(&l, &r, &t, &out, err, sizeof err));
    assert_int_equal(out.nrows, 1);
    assert_int_equal(out.ncols, 3);
    assert_string_equal(out.names[0].s, "a");
    assert_string_equal(out.names[1].s, "v_x");
    assert_string_equal(out.names[2].s, "v_y");
    assert_int_equal(I64(&out.cols[0], 0), 7);
    assert_int_equal(I64(&out.cols[2], 0), 7);
    frame_free(&out);
    frame_free(&l);
    frame_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concat_cols_aligns),
        cmocka_unit_test(test_merge_on_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
