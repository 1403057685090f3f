/* test_algo_groupby.c: groupby_agg's map / combine / final / merge_sorted
 * (engine/df/algo.h). Hand cases whose expected values are pandas 1.5.3's
 * df.groupby(by).agg(...) on the same frame (printed with repr), run
 * through one chunk, three chunks, combine trees of every shape, blobs
 * between steps, and the hash-shuffle route; empty input; missing and
 * float keys; then random frames where every route must agree. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_algo_util.h"

/* The frame of the hand cases (pandas):
 * df = pd.DataFrame({'k': ["b","a","b",None,"a","c","b","a"], 'k2': [1,2,1,1,2,3,2,2],
 *   'v': [1.5,nan,2.5,4.0,-1.0,nan,3.0,0.5], 'i': [1,2,3,4,5,6,7,8],
 *   's': ["x","y",None,"z","w",None,"a","y"], 'b': [T,F,T,T,F,F,T,T],
 *   't': ['pq','p','','zz','é','a','Z','pa']}) */
static void hand_frame(frame_t *f)
{
    static const char *k[] = {"b", "a", "b", NULL, "a", "c", "b", "a"};
    static const int64_t k2[] = {1, 2, 1, 1, 2, 3, 2, 2};
    static const double v[] = {1.5, NAN, 2.5, 4.0, -1.0, NAN, 3.0, 0.5};
    static const int64_t iv[] = {1, 2, 3, 4, 5, 6, 7, 8};
    static const char *s[] = {"x", "y", NULL, "z", "w", NULL, "a", "y"};
    static const int b[] = {1, 0, 1, 1, 0, 0, 1, 1};
    static const char *t[] = {"pq", "p", "", "zz", "\xc3\xa9", "a", "Z", "pa"};
    fb_init(f, 8, 7);
    fb_str(f, 0, "k", k);
    fb_i64(f, 1, "k2", k2);
    fb_f64(f, 2, "v", v);
    fb_i64(f, 3, "i", iv);
    fb_str(f, 4, "s", s);
    fb_bool(f, 5, "b", b);
    fb_str(f, 6, "t", t);
}

enum { K, K2, V, I, S, B, T };
static const agg_spec_t AGGS[] = {
    {"sv", V, AGG_SUM, 0},      {"si", I, AGG_SUM, 0},   {"sb", B, AGG_SUM, 0},
    {"mv", V, AGG_MEAN, 0},     {"mnv", V, AGG_MIN, 0},  {"mxi", I, AGG_MAX, 0},
    {"mns", T, AGG_MIN, 0},     {"mxs", T, AGG_MAX, 0},  {"cv", V, AGG_COUNT, 0},
    {"sz", V, AGG_SIZE, 0},     {"sdv", V, AGG_STD, 0},  {"vri", I, AGG_VAR, 0},
    {"nus", S, AGG_NUNIQUE, 0}, {"fv", V, AGG_FIRST, 0}, {"ls", S, AGG_LAST, 0},
    {"fs", S, AGG_FIRST, 0},    {"mi", I, AGG_MEAN, 0},  {"nuv", V, AGG_NUNIQUE, 0},
    {"lb", B, AGG_LAST, 0},     {"mnb", B, AGG_MIN, 0},
};
#define NAGG ((int)(sizeof AGGS / sizeof AGGS[0]))

/* Checks column c against pandas' reprs: ints "15", floats "2.5" / "nan",
 * bools "True" / "False", strings "'x'", missing "None" (strings, bools). */
static void expect_col(const frame_t *f, int c, ftype_t t, const char *const *want)
{
    const fcol_t *col = &f->cols[c];
    char what[128];
    if (col->type != t) fail_msg("column %s has type %d, want %d", f->names[c].s, col->type, t);
    for (int64_t i = 0; i < f->nrows; i++) {
        snprintf(what, sizeof what, "%s[%lld]", f->names[c].s, (long long)i);
        const char *w = want[i];
        switch (t) {
        case FT_INT64:
            if (I64(col, i) != strtoll(w, NULL, 10))
                fail_msg("%s: got %lld, want %s", what, (long long)I64(col, i), w);
            break;
        case FT_FLOAT64:
            assert_close(F64(col, i), strtod(w, NULL), 1e-14, what);
            break;
        case FT_BOOL: {
            int x = BOOLV(col, i), y = !strcmp(w, "None") ? -1 : !strcmp(w, "True");
            if (x != y) fail_msg("%s: got %d, want %s", what, x, w);
            break;
        }
        default: {
            char buf[64] = {0};
            if (strcmp(w, "None")) snprintf(buf, sizeof buf, "%.*s", (int)strlen(w) - 2, w + 1);
            assert_str(STR(col, i), strcmp(w, "None") ? buf : NULL, what);
            break;
        }
        }
    }
}

#define E(...) ((const char *const[]){__VA_ARGS__})

/* pandas: df.groupby(['k']).agg(**aggs) */
static void expect_by_k(const frame_t *r)
{
    assert_int_equal(r->nrows, 3);
    assert_int_equal(r->nidx, 1);
    assert_string_equal(r->idx_names[0].s, "k");
    assert_str(STR(&r->idx[0], 0), "a", "key 0");
    assert_str(STR(&r->idx[0], 1), "b", "key 1");
    assert_str(STR(&r->idx[0], 2), "c", "key 2");
    assert_int_equal(r->ncols, NAGG);
    for (int a = 0; a < NAGG; a++)
        assert_string_equal(r->names[a].s, AGGS[a].out);
    expect_col(r, 0, FT_FLOAT64, E("-0.5", "7.0", "0.0"));
    expect_col(r, 1, FT_INT64, E("15", "11", "6"));
    expect_col(r, 2, FT_INT64, E("1", "3", "0"));
    expect_col(r, 3, FT_FLOAT64, E("-0.25", "2.3333333333333335", "nan"));
    expect_col(r, 4, FT_FLOAT64, E("-1.0", "1.5", "nan"));
    expect_col(r, 5, FT_INT64, E("8", "7", "6"));
    expect_col(r, 6, FT_STRING, E("'p'", "''", "'a'"));
    expect_col(r, 7, FT_STRING, E("'\xc3\xa9'", "'pq'", "'a'"));
    expect_col(r, 8, FT_INT64, E("2", "3", "0"));
    expect_col(r, 9, FT_INT64, E("3", "3", "1"));
    expect_col(r, 10, FT_FLOAT64, E("1.0606601717798212", "0.7637626158259733", "nan"));
    expect_col(r, 11, FT_FLOAT64, E("9.0", "9.333333333333332", "nan"));
    expect_col(r, 12, FT_INT64, E("2", "2", "0"));
    expect_col(r, 13, FT_FLOAT64, E("-1.0", "1.5", "nan"));
    expect_col(r, 14, FT_STRING, E("'y'", "'a'", "None"));
    expect_col(r, 15, FT_STRING, E("'y'", "'x'", "None"));
    expect_col(r, 16, FT_FLOAT64, E("5.0", "3.6666666666666665", "6.0"));
    expect_col(r, 17, FT_INT64, E("2", "3", "0"));
    expect_col(r, 18, FT_BOOL, E("True", "True", "False"));
    expect_col(r, 19, FT_BOOL, E("False", "True", "False"));
}

/* pandas: df.groupby(['k', 'k2']).agg(**aggs) */
static void expect_by_k_k2(const frame_t *r)
{
    assert_int_equal(r->nrows, 4);
    assert_int_equal(r->nidx, 2);
    assert_string_equal(r->idx_names[0].s, "k");
    assert_string_equal(r->idx_names[1].s, "k2");
    static const char *k[] = {"a", "b", "b", "c"};
    static const int64_t k2[] = {2, 1, 2, 3};
    for (int i = 0; i < 4; i++) {
        assert_str(STR(&r->idx[0], i), k[i], "key");
        assert_int_equal(I64(&r->idx[1], i), k2[i]);
    }
    expect_col(r, 0, FT_FLOAT64, E("-0.5", "4.0", "3.0", "0.0"));
    expect_col(r, 1, FT_INT64, E("15", "4", "7", "6"));
    expect_col(r, 2, FT_INT64, E("1", "2", "1", "0"));
    expect_col(r, 3, FT_FLOAT64, E("-0.25", "2.0", "3.0", "nan"));
    expect_col(r, 4, FT_FLOAT64, E("-1.0", "1.5", "3.0", "nan"));
    expect_col(r, 5, FT_INT64, E("8", "3", "7", "6"));
    expect_col(r, 6, FT_STRING, E("'p'", "''", "'Z'", "'a'"));
    expect_col(r, 7, FT_STRING, E("'\xc3\xa9'", "'pq'", "'Z'", "'a'"));
    expect_col(r, 8, FT_INT64, E("2", "2", "1", "0"));
    expect_col(r, 9, FT_INT64, E("3", "2", "1", "1"));
    expect_col(r, 10, FT_FLOAT64, E("1.0606601717798212", "0.7071067811865476", "nan", "nan"));
    expect_col(r, 11, FT_FLOAT64, E("9.0", "2.0", "nan", "nan"));
    expect_col(r, 12, FT_INT64, E("2", "1", "1", "0"));
    expect_col(r, 13, FT_FLOAT64, E("-1.0", "1.5", "3.0", "nan"));
    expect_col(r, 14, FT_STRING, E("'y'", "'x'", "'a'", "None"));
    expect_col(r, 15, FT_STRING, E("'y'", "'x'", "'a'", "None"));
    expect_col(r, 16, FT_FLOAT64, E("5.0", "2.0", "7.0", "6.0"));
    expect_col(r, 17, FT_INT64, E("2", "2", "1", "0"));
    expect_col(r, 18, FT_BOOL, E("True", "True", "True", "False"));
    expect_col(r, 19, FT_BOOL, E("False", "True", "True", "False"));
}

/* pandas: df.groupby(['k2']).agg(**aggs) (int key) */
static void expect_by_k2(const frame_t *r)
{
    assert_int_equal(r->nrows, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(I64(&r->idx[0], i), i + 1);
    expect_col(r, 0, FT_FLOAT64, E("8.0", "2.5", "0.0"));
    expect_col(r, 1, FT_INT64, E("8", "22", "6"));
    expect_col(r, 3, FT_FLOAT64, E("2.6666666666666665", "0.8333333333333334", "nan"));
    expect_col(r, 6, FT_STRING, E("''", "'Z'", "'a'"));
    expect_col(r, 7, FT_STRING, E("'zz'", "'\xc3\xa9'", "'a'"));
    expect_col(r, 10, FT_FLOAT64, E("1.2583057392117918", "2.0207259421636903", "nan"));
    expect_col(r, 11, FT_FLOAT64, E("2.3333333333333335", "7.0", "nan"));
    expect_col(r, 12, FT_INT64, E("2", "3", "0"));
    expect_col(r, 14, FT_STRING, E("'z'", "'y'", "None"));
    expect_col(r, 15, FT_STRING, E("'x'", "'y'", "None"));
    expect_col(r, 16, FT_FLOAT64, E("2.6666666666666665", "5.5", "6.0"));
    expect_col(r, 17, FT_INT64, E("3", "3", "0"));
    expect_col(r, 19, FT_BOOL, E("True", "False", "False"));
}

static gb_spec_t spec_by(int nby, const int *by)
{
    gb_spec_t s = {.nby = nby, .nagg = NAGG, .agg = AGGS};
    for (int k = 0; k < nby; k++)
        s.by[k] = by[k];
    return s;
}

/* Map of rows [lo, hi) of f, through a blob. */
static void map_rows(const frame_t *f, int64_t lo, int64_t hi, const gb_spec_t *s, frame_t *out)
{
    frame_t piece, p, v;
    void *buf;
    assert_int_equal(frame_slice(f, lo, hi - lo, &piece), 0);
    OK(df_gb_map(&piece, s, &p, err, sizeof err));
    roundtrip(&p, &v, &buf);
    assert_int_equal(frame_concat((const frame_t *const[]){&v}, 1, out), 0);
    frame_free(&v);
    free(buf);
    frame_free(&p);
    frame_free(&piece);
}

static void combine2(const frame_t *a, const frame_t *b, const gb_spec_t *s, frame_t *out)
{
    OK(df_gb_combine((const frame_t *const[]){a, b}, 2, s, out, err, sizeof err));
}

/* Every route of the groupby on f gives check's expectations. */
static void all_routes(const frame_t *f, const gb_spec_t *s, void (*check)(const frame_t *))
{
    frame_t p, r;
    /* one chunk */
    OK(df_gb_map(f, s, &p, err, sizeof err));
    OK(df_gb_final(&p, s, &r, err, sizeof err));
    check(&r);
    frame_free(&r);
    frame_free(&p);
    /* three chunks, combined flat and as both trees */
    frame_t p0, p1, p2, c01, c12, c;
    map_rows(f, 0, 3, s, &p0);
    map_rows(f, 3, 5, s, &p1);
    map_rows(f, 5, f->nrows, s, &p2);
    OK(df_gb_combine((const frame_t *const[]){&p0, &p1, &p2}, 3, s, &c, err, sizeof err));
    OK(df_gb_final(&c, s, &r, err, sizeof err));
    check(&r);
    frame_free(&r);
    frame_free(&c);
    combine2(&p0, &p1, s, &c01);
    combine2(&c01, &p2, s, &c);
    OK(df_gb_final(&c, s, &r, err, sizeof err));
    check(&r);
    frame_free(&r);
    frame_free(&c);
    combine2(&p1, &p2, s, &c12);
    combine2(&p0, &c12, s, &c);
    OK(df_gb_final(&c, s, &r, err, sizeof err));
    check(&r);
    frame_free(&r);
    frame_free(&c);
    frame_free(&c01);
    frame_free(&c12);
    frame_free(&p0);
    frame_free(&p1);
    frame_free(&p2);
    /* the shuffle: chunks hash-partitioned on the keys, each part grouped
     * alone, results merged */
    enum { NP = 3 };
    frame_t ch[2], parts[2][NP], res[NP];
    assert_int_equal(frame_slice(f, 0, 4, &ch[0]), 0);
    assert_int_equal(frame_slice(f, 4, f->nrows - 4, &ch[1]), 0);
    for (int q = 0; q < 2; q++)
        OK(df_hash_partition(&ch[q], s->by, s->nby, NP, parts[q], err, sizeof err));
    for (int p_ = 0; p_ < NP; p_++) {
        frame_t all, m;
        assert_int_equal(
            frame_concat((const frame_t *const[]){&parts[0][p_], &parts[1][p_]}, 2, &all), 0);
        OK(df_gb_map(&all, s, &m, err, sizeof err));
        OK(df_gb_final(&m, s, &res[p_], err, sizeof err));
        frame_free(&all);
        frame_free(&m);
    }
    OK(df_gb_merge_sorted((const frame_t *const[]){&res[0], &res[1], &res[2]}, NP, s, &r, err,
                          sizeof err));
    check(&r);
    frame_free(&r);
    for (int p_ = 0; p_ < NP; p_++) {
        frame_free(&res[p_]);
        frame_free(&parts[0][p_]);
        frame_free(&parts[1][p_]);
    }
    frame_free(&ch[0]);
    frame_free(&ch[1]);
}

static void test_hand_by_string_key(void **state)
{
    frame_t f;
    hand_frame(&f);
    gb_spec_t s = spec_by(1, (int[]){K});
    all_routes(&f, &s, expect_by_k);
    frame_free(&f);
}

static void test_hand_by_two_keys(void **state)
{
    frame_t f;
    hand_frame(&f);
    gb_spec_t s = spec_by(2, (int[]){K, K2});
    all_routes(&f, &s, expect_by_k_k2);
    frame_free(&f);
}

static void test_hand_by_int_key(void **state)
{
    frame_t f;
    hand_frame(&f);
    gb_spec_t s = spec_by(1, (int[]){K2});
    all_routes(&f, &s, expect_by_k2);
    frame_free(&f);
}

/* Empty input: no rows, the result dtypes all the same. */
static void test_empty(void **state)
{
    frame_t f, e, p, r;
    hand_frame(&f);
    assert_int_equal(frame_slice(&f, 0, 0, &e), 0);
    gb_spec_t s = spec_by(2, (int[]){K, K2});
    OK(df_gb_map(&e, &s, &p, err, sizeof err));
    OK(df_gb_final(&p, &s, &r, err, sizeof err));
    assert_int_equal(r.nrows, 0);
    assert_int_equal(r.nidx, 2);
    assert_int_equal(r.idx[0].type, FT_STRING);
    assert_int_equal(r.idx[1].type, FT_INT64);
    static const ftype_t want[NAGG] = {FT_FLOAT64, FT_INT64,   FT_INT64,  FT_FLOAT64, FT_FLOAT64,
                                       FT_INT64,   FT_STRING,  FT_STRING, FT_INT64,   FT_INT64,
                                       FT_FLOAT64, FT_FLOAT64, FT_INT64,  FT_FLOAT64, FT_STRING,
                                       FT_STRING,  FT_FLOAT64, FT_INT64,  FT_BOOL,    FT_BOOL};
    for (int a = 0; a < NAGG; a++)
        if (r.cols[a].type != want[a])
            fail_msg("empty: %s has type %d, want %d", AGGS[a].out, r.cols[a].type, want[a]);
    /* an empty partial combines with a full one */
    frame_t p2, c, r2, full;
    OK(df_gb_map(&f, &s, &p2, err, sizeof err));
    OK(df_gb_combine((const frame_t *const[]){&p, &p2, &p}, 3, &s, &c, err, sizeof err));
    OK(df_gb_final(&c, &s, &r2, err, sizeof err));
    expect_by_k_k2(&r2);
    frame_free(&p2);
    OK(df_gb_map(&f, &s, &p2, err, sizeof err));
    OK(df_gb_final(&p2, &s, &full, err, sizeof err));
    assert_frames_same(&r2, &full, 0, "empty partials change nothing");
    frame_free(&full);
    frame_free(&p2);
    frame_free(&c);
    frame_free(&r2);
    frame_free(&r);
    frame_free(&p);
    frame_free(&e);
    frame_free(&f);
}

/* Float and bool keys: NaN / NA rows dropped, -0.0 groups with 0.0, keys
 * sorted (False < True; floats ascending). pandas:
 * pd.DataFrame({'f': [1.5, nan, -0.0, 0.0, 1.5, -2.0], 'b': [T, F, None, T, F, T],
 *   'x': [1, 2, 3, 4, 5, 6]}).groupby('f').agg(n=('x','sum'))  ->  -2.0: 6, 0.0: 7, 1.5: 6
 * .groupby('b') (object keys, None dropped) -> False: 7, True: 11 */
static void test_float_and_bool_keys(void **state)
{
    frame_t f, p, r;
    fb_init(&f, 6, 3);
    fb_f64(&f, 0, "f", (double[]){1.5, NAN, -0.0, 0.0, 1.5, -2.0});
    fb_bool(&f, 1, "b", (int[]){1, 0, -1, 1, 0, 1});
    fb_i64(&f, 2, "x", (int64_t[]){1, 2, 3, 4, 5, 6});
    static const agg_spec_t a[] = {{"n", 2, AGG_SUM, 0}};
    gb_spec_t s = {.nby = 1, .by = {0}, .nagg = 1, .agg = a};
    OK(df_gb_map(&f, &s, &p, err, sizeof err));
    OK(df_gb_final(&p, &s, &r, err, sizeof err));
    assert_int_equal(r.nrows, 3);
    assert_true(F64(&r.idx[0], 0) == -2.0 && F64(&r.idx[0], 1) == 0.0 && F64(&r.idx[0], 2) == 1.5);
    assert_int_equal(I64(&r.cols[0], 0), 6);
    assert_int_equal(I64(&r.cols[0], 1), 7);
    assert_int_equal(I64(&r.cols[0], 2), 6);
    frame_free(&r);
    frame_free(&p);
    s.by[0] = 1;
    OK(df_gb_map(&f, &s, &p, err, sizeof err));
    OK(df_gb_final(&p, &s, &r, err, sizeof err));
    assert_int_equal(r.nrows, 2);
    assert_int_equal(BOOLV(&r.idx[0], 0), 0);
    assert_int_equal(BOOLV(&r.idx[0], 1), 1);
    assert_int_equal(I64(&r.cols[0], 0), 7);
    assert_int_equal(I64(&r.cols[0], 1), 11);
    frame_free(&r);
    frame_free(&p);
    frame_free(&f);
}

/* Std and var with large offsets: Chan's combination keeps the digits a
 * naive sum of squares loses. Values 1e9 + {4, 7, 13, 16}: var 30, in
 * one chunk each. */
static void test_var_accuracy(void **state)
{
    frame_t f, parts[4], ps[4], c, r;
    fb_init(&f, 4, 2);
    fb_i64(&f, 0, "k", (int64_t[]){1, 1, 1, 1});
    fb_f64(&f, 1, "v", (double[]){1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16});
    static const agg_spec_t a[] = {
        {"var", 1, AGG_VAR, 0}, {"std", 1, AGG_STD, 0}, {"mean", 1, AGG_MEAN, 0}};
    gb_spec_t s = {.nby = 1, .by = {0}, .nagg = 3, .agg = a};
    const frame_t *pp[4];
    for (int i = 0; i < 4; i++) {
        assert_int_equal(frame_slice(&f, i, 1, &parts[i]), 0);
        OK(df_gb_map(&parts[i], &s, &ps[i], err, sizeof err));
        pp[i] = &ps[i];
    }
    OK(df_gb_combine(pp, 4, &s, &c, err, sizeof err));
    OK(df_gb_final(&c, &s, &r, err, sizeof err));
    assert_close(F64(&r.cols[0], 0), 30.0, 1e-12, "var");
    assert_close(F64(&r.cols[1], 0), sqrt(30.0), 1e-12, "std");
    assert_close(F64(&r.cols[2], 0), 1e9 + 10, 1e-15, "mean");
    frame_free(&r);
    frame_free(&c);
    for (int i = 0; i < 4; i++) {
        frame_free(&parts[i]);
        frame_free(&ps[i]);
    }
    frame_free(&f);
}

/* A string column's sum is refused (not supported), with the column named. */
static void test_errors(void **state)
{
    frame_t f, p;
    hand_frame(&f);
    static const agg_spec_t a[] = {{"x", S, AGG_MEAN, 0}};
    gb_spec_t s = {.nby = 1, .by = {K}, .nagg = 1, .agg = a};
    assert_int_equal(df_gb_map(&f, &s, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "'s'"));
    s.by[0] = 99;
    assert_int_equal(df_gb_map(&f, &s, &p, err, sizeof err), -1);
    frame_free(&f);
}

/* ---- random frames: every route agrees with one map of the whole ---- */

static void random_frame(uint64_t *seed, int64_t n, frame_t *f)
{
    static const char *words[] = {"", "a", "ab", "b", "\xc3\xa9t\xc3\xa9", "zz", "a\x01", "B"};
    int64_t *k1 = malloc(sizeof *k1 * (size_t)(n + 1)), *iv = malloc(sizeof *iv * (size_t)(n + 1));
    double *kf = malloc(sizeof *kf * (size_t)(n + 1)), *v = malloc(sizeof *v * (size_t)(n + 1));
    const char **ks = malloc(sizeof *ks * (size_t)(n + 1)),
               **sv = malloc(sizeof *sv * (size_t)(n + 1));
    int *bv = malloc(sizeof *bv * (size_t)(n + 1));
    int nk = 1 + (int)(rnd(seed) % 40);
    for (int64_t i = 0; i < n; i++) {
        k1[i] = (int64_t)(rnd(seed) % (uint64_t)nk) - 5;
        uint64_t r = rnd(seed);
        kf[i] = r % 11 == 0 ? NAN : (double)(r % 7) / 2 - 1;
        ks[i] = r % 13 == 0 ? NULL : words[(r >> 8) % 8];
        v[i] = r % 5 == 0 ? NAN : ((double)(int64_t)(rnd(seed) % 2000001) - 1e6) / 64;
        iv[i] = (int64_t)(rnd(seed) % 1000) - 500;
        sv[i] = (r >> 16) % 6 == 0 ? NULL : words[(r >> 20) % 8];
        bv[i] = (r >> 24) % 3 == 0 ? 1 : 0;
    }
    fb_init(f, n, 7);
    fb_i64(f, 0, "k1", k1);
    fb_f64(f, 1, "kf", kf);
    fb_str(f, 2, "ks", ks);
    fb_f64(f, 3, "v", v);
    fb_i64(f, 4, "i", iv);
    fb_str(f, 5, "s", sv);
    fb_bool(f, 6, "b", bv);
    free(k1);
    free(iv);
    free(kf);
    free(v);
    free(ks);
    free(sv);
    free(bv);
}

static const agg_spec_t RAGGS[] = {
    {"sv", 3, AGG_SUM, 0},      {"si", 4, AGG_SUM, 0},      {"sb", 6, AGG_SUM, 0},
    {"mv", 3, AGG_MEAN, 0},     {"mnv", 3, AGG_MIN, 0},     {"mxv", 3, AGG_MAX, 0},
    {"mni", 4, AGG_MIN, 0},     {"mxs", 5, AGG_MAX, 0},     {"mns", 5, AGG_MIN, 0},
    {"cv", 3, AGG_COUNT, 0},    {"cs", 5, AGG_COUNT, 0},    {"sz", 3, AGG_SIZE, 0},
    {"sdv", 3, AGG_STD, 0},     {"vri", 4, AGG_VAR, 0},     {"nus", 5, AGG_NUNIQUE, 0},
    {"nui", 4, AGG_NUNIQUE, 0}, {"nuv", 3, AGG_NUNIQUE, 0}, {"fv", 3, AGG_FIRST, 0},
    {"lv", 3, AGG_LAST, 0},     {"fs", 5, AGG_FIRST, 0},    {"ls", 5, AGG_LAST, 0},
    {"li", 4, AGG_LAST, 0},     {"nub", 6, AGG_NUNIQUE, 0}, {"mxb", 6, AGG_MAX, 0},
};
#define NRAGG ((int)(sizeof RAGGS / sizeof RAGGS[0]))

/* Combines parts[lo, hi) as a random tree (contiguous ranges keep order). */
static void tree_combine(frame_t *parts, int lo, int hi, const gb_spec_t *s, uint64_t *seed,
                         frame_t *out)
{
    if (hi - lo == 1) {
        assert_int_equal(frame_concat((const frame_t *const[]){&parts[lo]}, 1, out), 0);
        return;
    }
    int nsub = 2 + (int)(rnd(seed) % (uint64_t)(hi - lo - 1)); /* 2 .. hi-lo pieces */
    int cut[65];
    cut[0] = lo;
    for (int i = 1; i < nsub; i++)
        cut[i] = lo + (int)((int64_t)i * (hi - lo) / nsub);
    cut[nsub] = hi;
    frame_t sub[64];
    const frame_t *sp[64] = {0};
    for (int i = 0; i < nsub; i++) {
        tree_combine(parts, cut[i], cut[i + 1], s, seed, &sub[i]);
        sp[i] = &sub[i];
    }
    OK(df_gb_combine(sp, nsub, s, out, err, sizeof err));
    for (int i = 0; i < nsub; i++)
        frame_free(&sub[i]);
}

static void test_random_routes_agree(void **state)
{
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    static const int bys[][4] = {{1, 0}, {1, 2}, {1, 1}, {2, 2, 0}, {3, 0, 2, 1}};
    for (int round = 0; round < 40; round++) {
        int64_t n = (int64_t)(rnd(&seed) % 600);
        frame_t f;
        random_frame(&seed, n, &f);
        const int *b = bys[round % 5];
        gb_spec_t s = {.nby = b[0], .nagg = NRAGG, .agg = RAGGS};
        for (int k = 0; k < b[0]; k++)
            s.by[k] = b[1 + k];
        frame_t p, want;
        OK(df_gb_map(&f, &s, &p, err, sizeof err));
        OK(df_gb_final(&p, &s, &want, err, sizeof err));
        frame_free(&p);
        /* keys sorted and distinct */
        for (int64_t i = 1; i < want.nrows; i++) {
            int c = 0;
            for (int k = 0; k < s.nby && c == 0; k++) {
                const fcol_t *x = &want.idx[k];
                if (x->type == FT_STRING) {
                    const char *u = STR(x, i - 1), *w = STR(x, i);
                    c = strcmp(u, w);
                } else if (x->type == FT_INT64) {
                    c = (I64(x, i - 1) > I64(x, i)) - (I64(x, i - 1) < I64(x, i));
                } else {
                    c = (F64(x, i - 1) > F64(x, i)) - (F64(x, i - 1) < F64(x, i));
                }
            }
            if (c >= 0) fail_msg("round %d: keys not increasing at %lld", round, (long long)i);
        }
        /* random chunks, through blobs, random combine tree */
        int nch = 1 + (int)(rnd(&seed) % 9);
        frame_t parts[9];
        int64_t at = 0;
        for (int q = 0; q < nch; q++) {
            int64_t end = q == nch - 1 ? n : at + (int64_t)(rnd(&seed) % (uint64_t)(n - at + 1));
            map_rows(&f, at, end, &s, &parts[q]);
            at = end;
        }
        frame_t c, got;
        tree_combine(parts, 0, nch, &s, &seed, &c);
        OK(df_gb_final(&c, &s, &got, err, sizeof err));
        assert_frames_same(&got, &want, 1e-9, "random tree");
        frame_free(&got);
        frame_free(&c);
        for (int q = 0; q < nch; q++)
            frame_free(&parts[q]);
        /* hash shuffle route */
        int np = 1 + (int)(rnd(&seed) % 5);
        frame_t hp[5], res[5];
        const frame_t *rp[5];
        OK(df_hash_partition(&f, s.by, s.nby, np, hp, err, sizeof err));
        for (int q = 0; q < np; q++) {
            OK(df_gb_map(&hp[q], &s, &p, err, sizeof err));
            OK(df_gb_final(&p, &s, &res[q], err, sizeof err));
            frame_free(&p);
            rp[q] = &res[q];
        }
        OK(df_gb_merge_sorted(rp, np, &s, &got, err, sizeof err));
        assert_frames_same(&got, &want, 1e-9, "hash route");
        frame_free(&got);
        for (int q = 0; q < np; q++) {
            frame_free(&hp[q]);
            frame_free(&res[q]);
        }
        frame_free(&want);
        frame_free(&f);
    }
}

/* Reference check of a few aggregations on random data by brute force. */
static void test_random_against_brute_force(void **state)
{
    uint64_t seed = 12345;
    for (int round = 0; round < 20; round++) {
        int64_t n = 1 + (int64_t)(rnd(&seed) % 500);
        frame_t f, p, r;
        random_frame(&seed, n, &f);
        static const agg_spec_t a[] = {{"c", 3, AGG_COUNT, 0}, {"s", 4, AGG_SUM, 0},
                                       {"mn", 3, AGG_MIN, 0},  {"nu", 5, AGG_NUNIQUE, 0},
                                       {"f", 5, AGG_FIRST, 0}, {"sz", 0, AGG_SIZE, 0}};
        gb_spec_t s = {.nby = 1, .by = {0}, .nagg = 6, .agg = a};
        OK(df_gb_map(&f, &s, &p, err, sizeof err));
        OK(df_gb_final(&p, &s, &r, err, sizeof err));
        for (int64_t g = 0; g < r.nrows; g++) {
            int64_t key = I64(&r.idx[0], g), cnt = 0, sum = 0, size = 0;
            double mn = NAN;
            const char *first = NULL, *seen[16];
            int nseen = 0;
            for (int64_t i = 0; i < n; i++) {
                if (I64(&f.cols[0], i) != key) continue;
                size++;
                double v = F64(&f.cols[3], i);
                if (!isnan(v)) {
                    cnt++;
                    if (isnan(mn) || v < mn) mn = v;
                }
                sum += I64(&f.cols[4], i);
                const char *sv = STR(&f.cols[5], i);
                if (sv) {
                    char copy[64];
                    snprintf(copy, sizeof copy, "%s", sv);
                    if (!first) first = strdup(copy);
                    bool dup = false;
                    for (int j = 0; j < nseen; j++)
                        dup |= !strcmp(seen[j], copy);
                    if (!dup) seen[nseen++] = strdup(copy);
                }
            }
            assert_true(size > 0);
            assert_int_equal(I64(&r.cols[0], g), cnt);
            assert_int_equal(I64(&r.cols[1], g), sum);
            assert_close(F64(&r.cols[2], g), mn, 0, "min");
            assert_int_equal(I64(&r.cols[3], g), nseen);
            assert_str(STR(&r.cols[4], g), first, "first");
            assert_int_equal(I64(&r.cols[5], g), size);
            free((void *)first);
            for (int j = 0; j < nseen; j++)
                free((void *)seen[j]);
        }
        frame_free(&r);
        frame_free(&p);
        frame_free(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_by_string_key),
        cmocka_unit_test(test_hand_by_two_keys),
        cmocka_unit_test(test_hand_by_int_key),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_float_and_bool_keys),
        cmocka_unit_test(test_var_accuracy),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_random_routes_agree),
        cmocka_unit_test(test_random_against_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
