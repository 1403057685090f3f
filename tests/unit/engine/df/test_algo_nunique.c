/* test_algo_nunique.c: nunique map / combine / final and hash partitioning
 * (engine/df/algo.h). nunique against pandas 1.5.3 (NaN and None not
 * counted, -0.0 == 0.0), over chunks and blobs; the partition: every row
 * kept once, in order, equal keys (int 3 and float 3.0, -0.0 and 0.0, NaN
 * and NaN) in one part, the same part for the same value in any frame. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_algo_util.h"

/* pandas: pd.DataFrame({'a': [1,2,2,None], 'b': ['x','x',None,'y'],
 *   'c': [1.0,-0.0,0.0,nan], 'd': [T,T,F,T]}).nunique() -> [2, 2, 2, 2]
 * (a is float64 in pandas; int64 here with no missing: [1,2,2,7] -> 3) */
static void nu_frame(frame_t *f)
{
    fb_init(f, 4, 4);
    fb_i64(f, 0, "a", (int64_t[]){1, 2, 2, 7});
    fb_str(f, 1, "b", (const char *[]){"x", "x", NULL, "y"});
    fb_f64(f, 2, "c", (double[]){1.0, -0.0, 0.0, NAN});
    fb_bool(f, 3, "d", (int[]){1, 1, 0, -1});
}

static void expect_counts(const frame_t *r, const int64_t *want)
{
    static const char *names[] = {"a", "b", "c", "d"};
    assert_true(r->series);
    assert_int_equal(r->nrows, 4);
    assert_int_equal(r->ncols, 1);
    for (int i = 0; i < 4; i++) {
        assert_str(STR(&r->idx[0], i), names[i], "label");
        assert_int_equal(I64(&r->cols[0], i), want[i]);
    }
}

static void test_one_chunk(void **state)
{
    frame_t f, p, r;
    nu_frame(&f);
    OK(df_nunique_map(&f, &p, err, sizeof err));
    OK(df_nunique_final(&p, true, &r, err, sizeof err));
    expect_counts(&r, (int64_t[]){3, 2, 2, 2});
    frame_free(&r);
    frame_free(&p);
    frame_free(&f);
}

static void test_chunks_and_blobs(void **state)
{
    frame_t f, parts[4], ps[4], vs[4], c, r;
    void *bufs[4];
    const frame_t *pp[4];
    nu_frame(&f);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(frame_slice(&f, i, 1, &parts[i]), 0);
        OK(df_nunique_map(&parts[i], &ps[i], err, sizeof err));
        roundtrip(&ps[i], &vs[i], &bufs[i]);
        pp[i] = &vs[i];
    }
    OK(df_nunique_combine(pp, 4, &c, err, sizeof err));
    OK(df_nunique_final(&c, true, &r, err, sizeof err));
    expect_counts(&r, (int64_t[]){3, 2, 2, 2});
    frame_free(&r);
    frame_free(&c);
    /* a tree: (0 1) (2 3) */
    frame_t c01, c23;
    OK(df_nunique_combine(pp, 2, &c01, err, sizeof err));
    OK(df_nunique_combine(pp + 2, 2, &c23, err, sizeof err));
    OK(df_nunique_combine((const frame_t *const[]){&c01, &c23}, 2, &c, err, sizeof err));
    OK(df_nunique_final(&c, true, &r, err, sizeof err));
    expect_counts(&r, (int64_t[]){3, 2, 2, 2});
    frame_free(&r);
    /* dropna false: b, c and d saw a missing value in one chunk each */
    OK(df_nunique_final(&c, false, &r, err, sizeof err));
    expect_counts(&r, (int64_t[]){3, 3, 3, 3});
    frame_free(&r);
    frame_free(&c);
    frame_free(&c01);
    frame_free(&c23);
    for (int i = 0; i < 4; i++) {
        frame_free(&vs[i]);
        free(bufs[i]);
        frame_free(&ps[i]);
        frame_free(&parts[i]);
    }
    frame_free(&f);
}

/* A Series: a 1-row result with the Series' name; integer column labels
 * give an int64 index. */
static void test_series_and_int_labels(void **state)
{
    frame_t f, p, r;
    assert_int_equal(frame_alloc(&f, true, 3, 1, 1), 0);
    assert_int_equal(fcol_alloc(&f.idx[0], FT_INT64, 3, 0, false), 0);
    fb_str(&f, 0, "s", (const char *[]){"q", NULL, "q"});
    OK(df_nunique_map(&f, &p, err, sizeof err));
    OK(df_nunique_final(&p, true, &r, err, sizeof err));
    assert_true(r.series);
    assert_int_equal(r.nrows, 1);
    assert_int_equal(I64(&r.cols[0], 0), 1);
    assert_string_equal(r.names[0].s, "s");
    frame_free(&r);
    frame_free(&p);
    frame_free(&f);
    fb_init(&f, 2, 2);
    fb_i64(&f, 0, "0", (int64_t[]){1, 1});
    fb_i64(&f, 1, "1", (int64_t[]){1, 2});
    f.names[0].is_int = f.names[1].is_int = true;
    OK(df_nunique_map(&f, &p, err, sizeof err));
    OK(df_nunique_final(&p, true, &r, err, sizeof err));
    assert_int_equal(r.idx[0].type, FT_INT64);
    assert_int_equal(I64(&r.idx[0], 1), 1);
    assert_int_equal(I64(&r.cols[0], 0), 1);
    assert_int_equal(I64(&r.cols[0], 1), 2);
    frame_free(&r);
    frame_free(&p);
    frame_free(&f);
}

/* Random: chunked nunique equals a brute-force count. */
static void test_random(void **state)
{
    uint64_t seed = 31337;
    static const char *words[] = {"", "a", "b", "ab", "ba", "\xc3\xa9"};
    for (int round = 0; round < 30; round++) {
        int64_t n = (int64_t)(rnd(&seed) % 200);
        int64_t *iv = malloc(sizeof *iv * (size_t)(n + 1));
        const char **sv = malloc(sizeof *sv * (size_t)(n + 1));
        int range = 1 + (int)(rnd(&seed) % 50);
        for (int64_t i = 0; i < n; i++) {
            iv[i] = (int64_t)(rnd(&seed) % (uint64_t)range);
            uint64_t x = rnd(&seed);
            sv[i] = x % 5 == 0 ? NULL : words[x % 6];
        }
        frame_t f, r;
        fb_init(&f, n, 2);
        fb_i64(&f, 0, "i", iv);
        fb_str(&f, 1, "s", sv);
        int64_t wi = 0, ws = 0;
        for (int64_t i = 0; i < n; i++) {
            bool dup = false;
            for (int64_t j = 0; j < i; j++)
                dup |= iv[j] == iv[i];
            wi += !dup;
            dup = sv[i] == NULL;
            for (int64_t j = 0; j < i && !dup; j++)
                dup |= sv[j] && !strcmp(sv[j], sv[i]);
            ws += !dup;
        }
        int nch = 1 + (int)(rnd(&seed) % 5);
        frame_t ch[5], ps[5];
        const frame_t *pp[5];
        for (int q = 0; q < nch; q++) {
            int64_t lo = n * q / nch, hi = n * (q + 1) / nch;
            assert_int_equal(frame_slice(&f, lo, hi - lo, &ch[q]), 0);
            OK(df_nunique_map(&ch[q], &ps[q], err, sizeof err));
            pp[q] = &ps[q];
        }
        frame_t c;
        OK(df_nunique_combine(pp, nch, &c, err, sizeof err));
        OK(df_nunique_final(&c, true, &r, err, sizeof err));
        assert_int_equal(I64(&r.cols[0], 0), wi);
        assert_int_equal(I64(&r.cols[0], 1), ws);
        frame_free(&r);
        frame_free(&c);
        for (int q = 0; q < nch; q++) {
            frame_free(&ch[q]);
            frame_free(&ps[q]);
        }
        frame_free(&f);
        free(iv);
        free(sv);
    }
}

/* ---- hash partitioning ---- */

static int part_of(const frame_t *parts, int np, int64_t idx)
{
    for (int p = 0; p < np; p++)
        for (int64_t i = 0; i < parts[p].nrows; i++)
            if (I64(&parts[p].idx[0], i) == idx) return p;
    return -1;
}

static void test_hash_partition(void **state)
{
    enum { NP = 7 };
    frame_t fi, ff, pi[NP], pf[NP];
    /* the same values as int64 and as float64 (with -0.0 and NaN) */
    int64_t iv[40];
    double dv[40];
    for (int i = 0; i < 40; i++) {
        iv[i] = i % 20 - 10;
        dv[i] = (double)iv[i];
    }
    dv[10] = -0.0; /* iv[10] == 0 */
    fb_init(&fi, 40, 1);
    fb_i64(&fi, 0, "k", iv);
    fb_init(&ff, 42, 1);
    double dv2[42];
    memcpy(dv2, dv, sizeof dv);
    dv2[40] = NAN;
    dv2[41] = NAN;
    fb_f64(&ff, 0, "k", dv2);
    OK(df_hash_partition(&fi, (int[]){0}, 1, NP, pi, err, sizeof err));
    OK(df_hash_partition(&ff, (int[]){0}, 1, NP, pf, err, sizeof err));
    int64_t total = 0;
    int used = 0;
    for (int p = 0; p < NP; p++) {
        total += pi[p].nrows;
        used += pi[p].nrows > 0;
        for (int64_t i = 1; i < pi[p].nrows; i++) /* row order kept */
            assert_true(I64(&pi[p].idx[0], i - 1) < I64(&pi[p].idx[0], i));
    }
    assert_int_equal(total, 40);
    assert_true(used >= 3); /* 20 values over 7 parts spread */
    for (int i = 0; i < 40; i++) {
        int a = part_of(pi, NP, i), b = part_of(pf, NP, i);
        assert_true(a >= 0);
        assert_int_equal(a, b);                              /* int 3 and float 3.0 */
        assert_int_equal(a, part_of(pi, NP, (i + 20) % 40)); /* equal keys */
    }
    assert_int_equal(part_of(pf, NP, 10), part_of(pf, NP, 30)); /* -0.0 and 0.0 */
    assert_int_equal(part_of(pf, NP, 40), part_of(pf, NP, 41)); /* NaN and NaN */
    for (int p = 0; p < NP; p++) {
        frame_free(&pi[p]);
        frame_free(&pf[p]);
    }
    frame_free(&fi);
    frame_free(&ff);
}

/* Strings by bytes, missing as its own value, several key columns; the
 * part of a row depends only on its key values. */
static void test_hash_partition_strings(void **state)
{
    enum { NP = 5 };
    frame_t f, g, pf[NP], pg[NP];
    fb_init(&f, 6, 2);
    fb_str(&f, 0, "s", (const char *[]){"a", NULL, "abcdefghij", "a", NULL, "abcdefghij"});
    fb_bool(&f, 1, "b", (int[]){1, -1, 0, 1, -1, 0});
    fb_init(&g, 3, 2); /* the same keys in another frame, other order */
    fb_str(&g, 0, "s", (const char *[]){"abcdefghij", NULL, "a"});
    fb_bool(&g, 1, "b", (int[]){0, -1, 1});
    OK(df_hash_partition(&f, (int[]){0, 1}, 2, NP, pf, err, sizeof err));
    OK(df_hash_partition(&g, (int[]){0, 1}, 2, NP, pg, err, sizeof err));
    for (int i = 0; i < 3; i++)
        assert_int_equal(part_of(pf, NP, i), part_of(pf, NP, i + 3));
    assert_int_equal(part_of(pf, NP, 2), part_of(pg, NP, 0));
    assert_int_equal(part_of(pf, NP, 1), part_of(pg, NP, 1));
    assert_int_equal(part_of(pf, NP, 0), part_of(pg, NP, 2));
    for (int p = 0; p < NP; p++) {
        frame_free(&pf[p]);
        frame_free(&pg[p]);
    }
    frame_free(&f);
    frame_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_chunk),
        cmocka_unit_test(test_chunks_and_blobs),
        cmocka_unit_test(test_series_and_int_labels),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_hash_partition),
        cmocka_unit_test(test_hash_partition_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
