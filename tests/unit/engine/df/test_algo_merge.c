/* test_algo_merge.c: df_merge_part (engine/df/algo.h) against pandas 1.5.3's
 * left.merge(right, on=['k', 'n'], how=...) for the four hows (rows
 * compared as sorted sets, since the contract leaves the order open; names,
 * _x/_y suffixes, dtypes), a string key against an int key refused, and
 * random joins checked against a nested-loop reference, also after hash
 * partitioning both sides (what the tiler does). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_algo_util.h"

/* pandas: L = pd.DataFrame({'k': ['a','b','b',None,'c'], 'n': [1,2,2,3,4],
 *   'v': [1,2,3,4,5], 'w': [T,F,T,T,F]})
 * R = pd.DataFrame({'k': ['b','a',None,'d','b'], 'n': [2.0,1.0,3.0,5.0,2.0],
 *   'v': [10.5,20.5,30.5,40.5,50.5], 'z': ['p','q','r','s','t']}) */
static void frames(frame_t *l, frame_t *r)
{
    fb_init(l, 5, 4);
    fb_str(l, 0, "k", (const char *[]){"a", "b", "b", NULL, "c"});
    fb_i64(l, 1, "n", (int64_t[]){1, 2, 2, 3, 4});
    fb_i64(l, 2, "v", (int64_t[]){1, 2, 3, 4, 5});
    fb_bool(l, 3, "w", (int[]){1, 0, 1, 1, 0});
    fb_init(r, 5, 4);
    fb_str(r, 0, "k", (const char *[]){"b", "a", NULL, "d", "b"});
    fb_f64(r, 1, "n", (double[]){2, 1, 3, 5, 2});
    fb_f64(r, 2, "v", (double[]){10.5, 20.5, 30.5, 40.5, 50.5});
    fb_str(r, 3, "z", (const char *[]){"p", "q", "r", "s", "t"});
}

/* Row i as text: ints %lld, floats %g ("nan"), bools True/False, strings
 * as they are, missing bools and strings "None"; fields joined by '|'. */
static void row_text(const frame_t *f, int64_t i, char *out, size_t n)
{
    size_t at = 0;
    for (int c = 0; c < f->ncols; c++) {
        const fcol_t *col = &f->cols[c];
        char cell[128];
        switch (col->type) {
        case FT_INT64:
            snprintf(cell, sizeof cell, "%lld", (long long)I64(col, i));
            break;
        case FT_FLOAT64:
            snprintf(cell, sizeof cell, "%g", F64(col, i));
            break;
        case FT_BOOL: {
            int b = BOOLV(col, i);
            snprintf(cell, sizeof cell, "%s", b < 0 ? "None" : b ? "True" : "False");
            break;
        }
        default: {
            const char *s = STR(col, i);
            snprintf(cell, sizeof cell, "%s", s ? s : "None");
        }
        }
        at += (size_t)snprintf(out + at, n - at, "%s%s", c ? "|" : "", cell);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The result's rows, sorted as text, equal want (sorted as text too). */
static void expect_rows(const frame_t *f, const char **want, int nwant)
{
    assert_int_equal(f->nrows, nwant);
    char **got = calloc((size_t)nwant + 1, sizeof *got);
    for (int i = 0; i < nwant; i++) {
        got[i] = malloc(512);
        row_text(f, i, got[i], 512);
    }
    qsort(got, (size_t)nwant, sizeof *got, cmp_str);
    qsort(want, (size_t)nwant, sizeof *want, cmp_str);
    for (int i = 0; i < nwant; i++)
        if (strcmp(got[i], want[i])) fail_msg("row %d: got %s, want %s", i, got[i], want[i]);
    for (int i = 0; i < nwant; i++)
        free(got[i]);
    free(got);
    /* range_index with positions 0.. */
    assert_true(f->range_index);
    for (int64_t i = 0; i < f->nrows; i++)
        assert_int_equal(I64(&f->idx[0], i), i);
}

static void expect_layout(const frame_t *f, const ftype_t *types)
{
    static const char *names[] = {"k", "n", "v_x", "w", "v_y", "z"};
    assert_int_equal(f->ncols, 6);
    for (int c = 0; c < 6; c++) {
        assert_string_equal(f->names[c].s, names[c]);
        if (f->cols[c].type != types[c])
            fail_msg("column %s has type %d, want %d", names[c], f->cols[c].type, types[c]);
    }
}

static const merge_spec_t SPEC = {.n_on = 2, .lon = {0, 1}, .ron = {0, 1}};

static void test_inner(void **state)
{
    frame_t l, r, m;
    frames(&l, &r);
    merge_spec_t s = SPEC;
    s.how = MERGE_INNER;
    OK(df_merge_part(&l, &r, &s, &m, err, sizeof err));
    expect_layout(&m, (ftype_t[]){FT_STRING, FT_INT64, FT_INT64, FT_BOOL, FT_FLOAT64, FT_STRING});
    const char *want[] = {"a|1|1|True|20.5|q", "b|2|2|False|10.5|p", "b|2|2|False|50.5|t",
                          "b|2|3|True|10.5|p", "b|2|3|True|50.5|t",  "None|3|4|True|30.5|r"};
    expect_rows(&m, want, 6);
    frame_free(&m);
    frame_free(&l);
    frame_free(&r);
}

static void test_left(void **state)
{
    frame_t l, r, m;
    frames(&l, &r);
    merge_spec_t s = SPEC;
    s.how = MERGE_LEFT;
    OK(df_merge_part(&l, &r, &s, &m, err, sizeof err));
    expect_layout(&m, (ftype_t[]){FT_STRING, FT_INT64, FT_INT64, FT_BOOL, FT_FLOAT64, FT_STRING});
    const char *want[] = {"a|1|1|True|20.5|q",   "b|2|2|False|10.5|p", "b|2|2|False|50.5|t",
                          "b|2|3|True|10.5|p",   "b|2|3|True|50.5|t",  "c|4|5|False|nan|None",
                          "None|3|4|True|30.5|r"};
    expect_rows(&m, want, 7);
    frame_free(&m);
    frame_free(&l);
    frame_free(&r);
}

static void test_right(void **state)
{
    frame_t l, r, m;
    frames(&l, &r);
    merge_spec_t s = SPEC;
    s.how = MERGE_RIGHT;
    OK(df_merge_part(&l, &r, &s, &m, err, sizeof err));
    /* pandas: n float64 (right's key), v_x float64, w object (bool + NaN) */
    expect_layout(&m,
                  (ftype_t[]){FT_STRING, FT_FLOAT64, FT_FLOAT64, FT_BOOL, FT_FLOAT64, FT_STRING});
    const char *want[] = {"a|1|1|True|20.5|q",   "b|2|2|False|10.5|p", "b|2|2|False|50.5|t",
                          "b|2|3|True|10.5|p",   "b|2|3|True|50.5|t",  "d|5|nan|None|40.5|s",
                          "None|3|4|True|30.5|r"};
    expect_rows(&m, want, 7);
    frame_free(&m);
    frame_free(&l);
    frame_free(&r);
}

static void test_outer(void **state)
{
    frame_t l, r, m;
    frames(&l, &r);
    merge_spec_t s = SPEC;
    s.how = MERGE_OUTER;
    OK(df_merge_part(&l, &r, &s, &m, err, sizeof err));
    expect_layout(&m,
                  (ftype_t[]){FT_STRING, FT_FLOAT64, FT_FLOAT64, FT_BOOL, FT_FLOAT64, FT_STRING});
    const char *want[] = {"a|1|1|True|20.5|q",   "b|2|2|False|10.5|p",  "b|2|2|False|50.5|t",
                          "b|2|3|True|10.5|p",   "b|2|3|True|50.5|t",   "c|4|5|False|nan|None",
                          "d|5|nan|None|40.5|s", "None|3|4|True|30.5|r"};
    expect_rows(&m, want, 8);
    frame_free(&m);
    frame_free(&l);
    frame_free(&r);
}

static void test_string_vs_int_key(void **state)
{
    frame_t l, r, m;
    frames(&l, &r);
    merge_spec_t s = {.n_on = 1, .lon = {0}, .ron = {1}, .how = MERGE_INNER};
    assert_int_equal(df_merge_part(&l, &r, &s, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "object and float64"));
    frame_free(&l);
    frame_free(&r);
}

/* ---- random joins against a nested loop ---- */

static void random_side(uint64_t *seed, int64_t n, bool is_float, frame_t *f, const char *vname)
{
    int64_t *k = malloc(sizeof *k * (size_t)(n + 1));
    double *kd = malloc(sizeof *kd * (size_t)(n + 1));
    int64_t *v = malloc(sizeof *v * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) {
        k[i] = (int64_t)(rnd(seed) % 12);
        kd[i] = k[i] == 11 ? NAN : (double)k[i];
        v[i] = (int64_t)(rnd(seed) % 1000);
    }
    fb_init(f, n, 2);
    if (is_float)
        fb_f64(f, 0, "k", kd);
    else
        fb_i64(f, 0, "k", k);
    fb_i64(f, 1, vname, v);
    free(k);
    free(kd);
    free(v);
}

static bool key_eq(const fcol_t *a, int64_t i, const fcol_t *b, int64_t j)
{
    double x = a->type == FT_INT64 ? (double)I64(a, i) : F64(a, i);
    double y = b->type == FT_INT64 ? (double)I64(b, j) : F64(b, j);
    return x == y || (isnan(x) && isnan(y));
}

/* Reference rows for how. */
static int ref_rows(const frame_t *l, const frame_t *r, merge_how_t how, char **rows)
{
    int n = 0;
    char buf[128];
    for (int64_t i = 0; i < l->nrows; i++) {
        bool any = false;
        for (int64_t j = 0; j < r->nrows; j++)
            if (key_eq(&l->cols[0], i, &r->cols[0], j)) {
                any = true;
                snprintf(buf, sizeof buf, "%lld|%lld", (long long)I64(&l->cols[1], i),
                         (long long)I64(&r->cols[1], j));
                rows[n++] = strdup(buf);
            }
        if (!any && (how == MERGE_LEFT || how == MERGE_OUTER)) {
            snprintf(buf, sizeof buf, "%lld|-", (long long)I64(&l->cols[1], i));
            rows[n++] = strdup(buf);
        }
    }
    if (how == MERGE_RIGHT || how == MERGE_OUTER)
        for (int64_t j = 0; j < r->nrows; j++) {
            bool any = false;
            for (int64_t i = 0; i < l->nrows; i++)
                any |= key_eq(&l->cols[0], i, &r->cols[0], j);
            if (!any) {
                snprintf(buf, sizeof buf, "-|%lld", (long long)I64(&r->cols[1], j));
                rows[n++] = strdup(buf);
            }
        }
    return n;
}

/* value columns (2: a, 3: b, int64 or float64 with NaN) as text rows */
static int got_rows(const frame_t *m, char **rows)
{
    char buf[128];
    for (int64_t i = 0; i < m->nrows; i++) {
        char x[40], y[40];
        for (int c = 0; c < 2; c++) {
            const fcol_t *col = &m->cols[1 + c];
            char *o = c ? y : x;
            if (col->type == FT_INT64)
                snprintf(o, 40, "%lld", (long long)I64(col, i));
            else if (isnan(F64(col, i)))
                snprintf(o, 40, "-");
            else
                snprintf(o, 40, "%lld", (long long)F64(col, i));
        }
        snprintf(buf, sizeof buf, "%s|%s", x, y);
        rows[i] = strdup(buf);
    }
    return (int)m->nrows;
}

static void test_random_against_nested_loop(void **state)
{
    uint64_t seed = 4242;
    for (int round = 0; round < 80; round++) {
        frame_t l, r;
        int64_t nl = (int64_t)(rnd(&seed) % 40), nr = (int64_t)(rnd(&seed) % 40);
        random_side(&seed, nl, rnd(&seed) % 2, &l, "a");
        random_side(&seed, nr, rnd(&seed) % 2, &r, "b");
        merge_spec_t s = {.n_on = 1, .lon = {0}, .ron = {0}, .how = (merge_how_t)(round % 4)};
        char **want = calloc(2000, sizeof *want), **got = calloc(2000, sizeof *got);
        int nw = ref_rows(&l, &r, s.how, want);
        /* through hash parts, as the tiler runs it */
        int np = 1 + (int)(rnd(&seed) % 4), ng = 0;
        frame_t lp[4], rp[4];
        OK(df_hash_partition(&l, s.lon, 1, np, lp, err, sizeof err));
        OK(df_hash_partition(&r, s.ron, 1, np, rp, err, sizeof err));
        for (int p = 0; p < np; p++) {
            frame_t m;
            OK(df_merge_part(&lp[p], &rp[p], &s, &m, err, sizeof err));
            assert_int_equal(m.ncols, 3);
            assert_string_equal(m.names[1].s, "a");
            assert_string_equal(m.names[2].s, "b");
            ng += got_rows(&m, got + ng);
            frame_free(&m);
            frame_free(&lp[p]);
            frame_free(&rp[p]);
        }
        assert_int_equal(ng, nw);
        qsort(want, (size_t)nw, sizeof *want, cmp_str);
        qsort(got, (size_t)ng, sizeof *got, cmp_str);
        for (int i = 0; i < nw; i++) {
            if (strcmp(got[i], want[i]))
                fail_msg("round %d (how %d): row %d got %s, want %s", round, (int)s.how, i, got[i],
                         want[i]);
            free(got[i]);
            free(want[i]);
        }
        free(got);
        free(want);
        frame_free(&l);
        frame_free(&r);
    }
}

/* df_merge_first and df_merge_match name right's key groups by their
 * first row (None matches None, int 2 matches float 2.0); df_merge_pairs
 * gives df_merge_part's rows, and df_merge_take builds them in any order. */
static void test_match_pairs_take(void **state)
{
    frame_t l, r, m, t;
    frames(&l, &r);
    merge_spec_t s = SPEC;
    s.how = MERGE_INNER;
    int64_t first[5], lfirst[5], gsize[5];
    OK(df_merge_first(&l, &r, &s, first, err, sizeof err));
    const int64_t want_first[] = {0, 1, 2, 3, 0};
    for (int i = 0; i < 5; i++)
        assert_int_equal(first[i], want_first[i]);
    OK(df_merge_match(&l, &r, &s, lfirst, gsize, err, sizeof err));
    const int64_t want_l[] = {1, 0, 0, 2, -1}, want_g[] = {2, 1, 1, 1, 0};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(lfirst[i], want_l[i]);
        assert_int_equal(gsize[i], want_g[i]);
    }
    for (int how = MERGE_INNER; how <= MERGE_OUTER; how++) {
        s.how = (merge_how_t)how;
        df_merge_rows_t pr;
        OK(df_merge_part(&l, &r, &s, &m, err, sizeof err));
        OK(df_merge_pairs(&l, &r, &s, &pr, err, sizeof err));
        assert_int_equal(pr.n, m.nrows);
        int64_t *lrev = malloc(sizeof(int64_t) * (size_t)(pr.n + 1));
        int64_t *rrev = malloc(sizeof(int64_t) * (size_t)(pr.n + 1));
        for (int64_t i = 0; i < pr.n; i++) {
            lrev[i] = pr.left[pr.n - 1 - i];
            rrev[i] = pr.right[pr.n - 1 - i];
        }
        OK(df_merge_take(&l, &r, &s, lrev, rrev, pr.n, &t, err, sizeof err));
        assert_int_equal(t.ncols, m.ncols);
        for (int64_t i = 0; i < pr.n; i++) {
            char a[512], b[512];
            row_text(&t, i, a, sizeof a);
            row_text(&m, pr.n - 1 - i, b, sizeof b);
            if (strcmp(a, b))
                fail_msg("how %d row %lld: taken %s, merged %s", how, (long long)i, a, b);
        }
        free(lrev);
        free(rrev);
        df_merge_rows_free(&pr);
        frame_free(&t);
        frame_free(&m);
    }
    frame_free(&l);
    frame_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inner),
        cmocka_unit_test(test_left),
        cmocka_unit_test(test_right),
        cmocka_unit_test(test_outer),
        cmocka_unit_test(test_string_vs_int_key),
        cmocka_unit_test(test_random_against_nested_loop),
        cmocka_unit_test(test_match_pairs_take),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
