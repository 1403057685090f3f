/* test_algo_describe.c: df_describe (engine/df/algo.h) against pandas
 * 1.5.3's describe(): a mixed frame (bool column left out, all-NaN column
 * count 0 and NaN elsewhere), a one-row Series, and 100,003-row columns
 * where mean, std and percentiles must equal pandas' to the last bit or
 * within 1e-15 (pairwise sums as numpy, bottleneck's std, numpy's lerp). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_algo_util.h"

static const char *ROWS[8] = {"count", "mean", "std", "min", "25%", "50%", "75%", "max"};

static void expect(const frame_t *r, int c, const char *name, const double *want, double rel)
{
    assert_string_equal(r->names[c].s, name);
    char what[64];
    for (int i = 0; i < 8; i++) {
        snprintf(what, sizeof what, "%s %s", name, ROWS[i]);
        assert_close(F64(&r->cols[c], i), want[i], rel, what);
    }
}

/* pandas: pd.DataFrame({'a': [3,1,4,1,5,9,2,6],
 *   'f': [2.5,nan,-1.0,7.25,nan,0.0,3.5,1e10], 'b': [True]*8, 'g': [nan]*8}).describe() */
static void test_mixed_frame(void **state)
{
    frame_t f, r;
    fb_init(&f, 8, 4);
    fb_i64(&f, 0, "a", (int64_t[]){3, 1, 4, 1, 5, 9, 2, 6});
    fb_f64(&f, 1, "f", (double[]){2.5, NAN, -1.0, 7.25, NAN, 0.0, 3.5, 1e10});
    fb_bool(&f, 2, "b", (int[]){1, 1, 1, 1, 1, 1, 1, 1});
    fb_f64(&f, 3, "g", (double[]){NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN});
    OK(df_describe(&f, &r, err, sizeof err));
    assert_int_equal(r.nrows, 8);
    assert_int_equal(r.ncols, 3);
    assert_false(r.series);
    for (int i = 0; i < 8; i++)
        assert_str(STR(&r.idx[0], i), ROWS[i], "row label");
    expect(&r, 0, "a", (double[]){8.0, 3.875, 2.748376143938713, 1.0, 1.75, 3.5, 5.25, 9.0}, 0);
    expect(&r, 1, "f",
           (double[]){6.0, 1666666668.7083333, 4082482903.6384215, -1.0, 0.625, 3.0, 6.3125,
                      10000000000.0},
           0);
    expect(&r, 2, "g", (double[]){0, NAN, NAN, NAN, NAN, NAN, NAN, NAN}, 0);
    frame_free(&r);
    frame_free(&f);
}

/* pandas: pd.Series([5]).describe() -> count 1, std NaN, the rest 5. */
static void test_series_of_one(void **state)
{
    frame_t f, r;
    assert_int_equal(frame_alloc(&f, true, 1, 1, 1), 0);
    assert_int_equal(fcol_alloc(&f.idx[0], FT_INT64, 1, 0, false), 0);
    ((int64_t *)f.idx[0].data)[0] = 0;
    fb_i64(&f, 0, "x", (int64_t[]){5});
    OK(df_describe(&f, &r, err, sizeof err));
    assert_true(r.series);
    expect(&r, 0, "x", (double[]){1, 5, NAN, 5, 5, 5, 5, 5}, 0);
    frame_free(&r);
    frame_free(&f);
}

/* n = 100003; i = np.arange(n); f = (i*7919 % 10007)/7.0 + 1e6 with NaN
 * where i % 13 == 0; a = (i*7919 % 10007)*1000003 - 5000;
 * pd.DataFrame({'f': f, 'a': a}).describe() */
static void test_large_exact(void **state)
{
    enum { N = 100003 };
    frame_t f, r;
    double *fv = malloc(sizeof *fv * N);
    int64_t *av = malloc(sizeof *av * N);
    for (int64_t i = 0; i < N; i++) {
        fv[i] = i % 13 == 0 ? NAN : (double)(i * 7919 % 10007) / 7.0 + 1e6;
        av[i] = (i * 7919 % 10007) * 1000003 - 5000;
    }
    fb_init(&f, N, 2);
    fb_f64(&f, 0, "f", fv);
    fb_i64(&f, 1, "a", av);
    OK(df_describe(&f, &r, err, sizeof err));
    expect(&r, 0, "f",
           (double[]){92310.0, 1000714.5568147701, 412.68357894921434, 1000000.0,
                      1000357.2857142857, 1000714.7142857143, 1001072.1428571428,
                      1001429.4285714285},
           1e-15);
    expect(&r, 1, "a",
           (double[]){100003.0, 5003028318.505645, 2888799288.4193635, -5000.0, 2501002503.0,
                      5003010009.0, 7505017515.0, 10006025018.0},
           1e-15);
    frame_free(&r);
    frame_free(&f);
    free(fv);
    free(av);
}

/* Percentiles against a sorted copy on random data (numpy's formula). */
static void test_random_percentiles(void **state)
{
    uint64_t seed = 99;
    for (int round = 0; round < 50; round++) {
        int64_t n = 1 + (int64_t)(rnd(&seed) % 300);
        double *v = malloc(sizeof *v * (size_t)n), *s = malloc(sizeof *s * (size_t)n);
        int64_t m = 0;
        for (int64_t i = 0; i < n; i++) {
            uint64_t x = rnd(&seed);
            v[i] = x % 7 == 0 ? NAN : (double)(x % 50) - 20 + (x % 3) * 0.25;
            if (v[i] == v[i]) s[m++] = v[i];
        }
        for (int64_t i = 1; i < m; i++)
            for (int64_t j = i; j > 0 && s[j - 1] > s[j]; j--) {
                double t = s[j];
                s[j] = s[j - 1];
                s[j - 1] = t;
            }
        frame_t f, r;
        fb_init(&f, n, 1);
        fb_f64(&f, 0, "v", v);
        OK(df_describe(&f, &r, err, sizeof err));
        assert_close(F64(&r.cols[0], 0), (double)m, 0, "count");
        if (m) {
            assert_close(F64(&r.cols[0], 3), s[0], 0, "min");
            assert_close(F64(&r.cols[0], 7), s[m - 1], 0, "max");
            static const double q[3] = {0.25, 0.5, 0.75};
            for (int j = 0; j < 3; j++) {
                double vi = q[j] * (double)(m - 1);
                int64_t p = (int64_t)floor(vi), nx = p + 1 < m ? p + 1 : m - 1;
                double t = vi - (double)p, d = s[nx] - s[p];
                double want = t >= 0.5 ? s[nx] - d * (1 - t) : s[p] + d * t;
                assert_close(F64(&r.cols[0], 4 + j), want, 0, "percentile");
            }
        }
        frame_free(&r);
        frame_free(&f);
        free(v);
        free(s);
    }
}

static void test_no_numeric_column(void **state)
{
    frame_t f, r;
    fb_init(&f, 2, 1);
    fb_str(&f, 0, "s", (const char *[]){"a", "b"});
    assert_int_equal(df_describe(&f, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "numeric"));
    frame_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mixed_frame),       cmocka_unit_test(test_series_of_one),
        cmocka_unit_test(test_large_exact),       cmocka_unit_test(test_random_percentiles),
        cmocka_unit_test(test_no_numeric_column),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
