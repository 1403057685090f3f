/* test_algo_sort.c: the sample sort of sort_values (engine/df/algo.h):
 * hand cases whose row orders are pandas 1.5.3's sort_values(kind=
 * "mergesort") on the same frame (NaN and None last in either direction,
 * per-key directions, strings by bytes), through one part and through
 * sample / splitters / range partition / part sorts over chunks; random
 * frames checked for order, stability, permutation and equal keys meeting
 * in one part. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_algo_util.h"

/* pandas: d = pd.DataFrame({'a': [2,1,2,nan,1,2,nan,3],
 *   's': ['x','y',None,'x','y','a','b',None]}) */
static void hand_frame(frame_t *f)
{
    fb_init(f, 8, 2);
    fb_f64(f, 0, "a", (double[]){2, 1, 2, NAN, 1, 2, NAN, 3});
    fb_str(f, 1, "s", (const char *[]){"x", "y", NULL, "x", "y", "a", "b", NULL});
}

/* The whole sample sort over chunks of f (cut at cuts[0..ncut)), into nparts
 * parts; the concatenation of the parts in out. */
static void sample_sort(const frame_t *f, const int64_t *cuts, int ncut, const sort_spec_t *s,
                        int nparts, int k, frame_t *out)
{
    int nch = ncut + 1;
    frame_t ch[16], smp[16], spl, pieces[16][17], sorted[17];
    const frame_t *sp[16], *pp[16], *op[17];
    assert_true(nch <= 16 && nparts <= 17);
    for (int q = 0; q < nch; q++) {
        int64_t lo = q ? cuts[q - 1] : 0, hi = q < ncut ? cuts[q] : f->nrows;
        assert_int_equal(frame_slice(f, lo, hi - lo, &ch[q]), 0);
        OK(df_sort_sample(&ch[q], s, k, &smp[q], err, sizeof err));
        assert_true(smp[q].nrows <= k);
        assert_int_equal(smp[q].ncols, s->nby);
        sp[q] = &smp[q];
    }
    OK(df_sort_splitters(sp, nch, s, nparts, &spl, err, sizeof err));
    assert_true(spl.nrows <= nparts - 1);
    int np = (int)spl.nrows + 1;
    for (int q = 0; q < nch; q++)
        OK(df_range_partition(&ch[q], &spl, s, pieces[q], err, sizeof err));
    /* equal keys meet in one part, parts in key order: checked by the
     * callers on the result; here every piece is sorted alone */
    for (int p = 0; p < np; p++) {
        for (int q = 0; q < nch; q++)
            pp[q] = &pieces[q][p];
        OK(df_sort_part(pp, nch, s, &sorted[p], err, sizeof err));
        op[p] = &sorted[p];
    }
    assert_int_equal(frame_concat(op, np, out), 0);
    for (int p = 0; p < np; p++)
        frame_free(&sorted[p]);
    for (int q = 0; q < nch; q++) {
        for (int p = 0; p < np; p++)
            frame_free(&pieces[q][p]);
        frame_free(&smp[q]);
        frame_free(&ch[q]);
    }
    frame_free(&spl);
}

static void expect_order(const frame_t *r, const int64_t *want, int64_t n, const char *what)
{
    assert_int_equal(r->nrows, n);
    for (int64_t i = 0; i < n; i++)
        if (I64(&r->idx[0], i) != want[i])
            fail_msg("%s: row %lld has index %lld, want %lld", what, (long long)i,
                     (long long)I64(&r->idx[0], i), (long long)want[i]);
}

static void check_hand(int nby, const int *by, const bool *asc, const int64_t *want)
{
    frame_t f, r;
    hand_frame(&f);
    sort_spec_t s = {.nby = nby};
    for (int k = 0; k < nby; k++) {
        s.by[k] = by[k];
        s.asc[k] = asc[k];
    }
    OK(df_sort_part((const frame_t *const[]){&f}, 1, &s, &r, err, sizeof err));
    expect_order(&r, want, 8, "one part");
    frame_free(&r);
    for (int nparts = 1; nparts <= 5; nparts++)
        for (int k = 1; k <= 4; k++) {
            sample_sort(&f, (int64_t[]){3, 5}, 2, &s, nparts, k, &r);
            expect_order(&r, want, 8, "sample sort");
            frame_free(&r);
        }
    frame_free(&f);
}

static void test_hand_cases(void **state)
{
    /* sort_values(['a','s'], ascending=[False, True]) */
    check_hand(2, (int[]){0, 1}, (bool[]){false, true}, (int64_t[]){7, 5, 0, 2, 1, 4, 6, 3});
    /* sort_values(['s'], ascending=False) */
    check_hand(1, (int[]){1}, (bool[]){false}, (int64_t[]){1, 4, 0, 3, 6, 5, 2, 7});
    /* sort_values(['a']) */
    check_hand(1, (int[]){0}, (bool[]){true}, (int64_t[]){1, 4, 0, 2, 5, 7, 3, 6});
    /* sort_values(['s','a'], ascending=[True, False]) */
    check_hand(2, (int[]){1, 0}, (bool[]){true, false}, (int64_t[]){5, 6, 0, 3, 1, 4, 7, 2});
    /* sort_values(['a'], ascending=False) */
    check_hand(1, (int[]){0}, (bool[]){false}, (int64_t[]){7, 0, 2, 5, 1, 4, 3, 6});
}

/* Strings by bytes: "" < "B" < "a" < "a\x01" < "ab" < "é" (UTF-8 C3 A9). */
static void test_string_byte_order(void **state)
{
    frame_t f, r;
    fb_init(&f, 6, 1);
    fb_str(&f, 0, "s", (const char *[]){"\xc3\xa9", "ab", "a\x01", "a", "B", ""});
    sort_spec_t s = {.nby = 1, .by = {0}, .asc = {true}};
    OK(df_sort_part((const frame_t *const[]){&f}, 1, &s, &r, err, sizeof err));
    expect_order(&r, (int64_t[]){5, 4, 3, 2, 1, 0}, 6, "bytes");
    frame_free(&r);
    frame_free(&f);
}

/* Samples and splitters: splitters distinct and in order; a chunk of one
 * repeated key gives one splitter at most; NaN never a splitter. */
static void test_splitters(void **state)
{
    frame_t f, smp, spl;
    fb_init(&f, 6, 1);
    fb_f64(&f, 0, "a", (double[]){NAN, 4, 4, NAN, 4, 4});
    sort_spec_t s = {.nby = 1, .by = {0}, .asc = {true}};
    OK(df_sort_sample(&f, &s, 10, &smp, err, sizeof err));
    assert_int_equal(smp.nrows, 4);
    OK(df_sort_splitters((const frame_t *const[]){&smp, &smp}, 2, &s, 8, &spl, err, sizeof err));
    assert_int_equal(spl.nrows, 1);
    assert_true(F64(&spl.cols[0], 0) == 4);
    frame_t parts[2];
    OK(df_range_partition(&f, &spl, &s, parts, err, sizeof err));
    assert_int_equal(parts[0].nrows, 4); /* the 4s, with their splitter */
    assert_int_equal(parts[1].nrows, 2); /* NaN: the last part */
    frame_free(&parts[0]);
    frame_free(&parts[1]);
    frame_free(&spl);
    frame_free(&smp);
    frame_free(&f);
}

/* ---- random ---- */

static void random_frame(uint64_t *seed, int64_t n, frame_t *f)
{
    static const char *words[] = {"", "a", "ab", "b", "\xc3\xa9", "zz", "a\x01", "B", "ba"};
    int64_t *iv = malloc(sizeof *iv * (size_t)(n + 1));
    double *dv = malloc(sizeof *dv * (size_t)(n + 1));
    const char **sv = malloc(sizeof *sv * (size_t)(n + 1));
    int *bv = malloc(sizeof *bv * (size_t)(n + 1));
    int range = 1 + (int)(rnd(seed) % 30);
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = rnd(seed);
        iv[i] = (int64_t)(r % (uint64_t)range) - range / 2;
        dv[i] = (r >> 8) % 9 == 0 ? NAN : (double)((r >> 12) % 7) - 3 + ((r >> 20) % 2 ? 0.5 : 0);
        if (dv[i] == 0 && (r >> 22) % 2) dv[i] = -0.0;
        sv[i] = (r >> 24) % 8 == 0 ? NULL : words[(r >> 28) % 9];
        bv[i] = (r >> 32) % 5 == 0 ? -1 : (int)((r >> 36) % 2);
    }
    fb_init(f, n, 4);
    fb_i64(f, 0, "i", iv);
    fb_f64(f, 1, "d", dv);
    fb_str(f, 2, "s", sv);
    fb_bool(f, 3, "b", bv);
    free(iv);
    free(dv);
    free(sv);
    free(bv);
}

/* The reference comparison (as the contract: NaN/missing last). */
static int cmp_rows(const frame_t *f, const sort_spec_t *s, int64_t x, int64_t y)
{
    for (int k = 0; k < s->nby; k++) {
        const fcol_t *c = &f->cols[s->by[k]];
        bool nx = c->type == FT_FLOAT64 ? isnan(F64(c, x)) : (c->valid && !c->valid[x]);
        bool ny = c->type == FT_FLOAT64 ? isnan(F64(c, y)) : (c->valid && !c->valid[y]);
        if (nx || ny) {
            if (nx && ny) continue;
            return nx ? 1 : -1;
        }
        int r;
        switch (c->type) {
        case FT_INT64:
            r = (I64(c, x) > I64(c, y)) - (I64(c, x) < I64(c, y));
            break;
        case FT_FLOAT64:
            r = (F64(c, x) > F64(c, y)) - (F64(c, x) < F64(c, y));
            break;
        case FT_BOOL:
            r = BOOLV(c, x) - BOOLV(c, y);
            break;
        default: {
            int64_t lx, ly;
            const char *a = fcol_str(c, x, &lx), *b = fcol_str(c, y, &ly);
            r = memcmp(a, b, (size_t)(lx < ly ? lx : ly));
            r = r ? (r > 0) - (r < 0) : (lx > ly) - (lx < ly);
        }
        }
        if (r) return s->asc[k] ? r : -r;
    }
    return 0;
}

static void check_sorted(const frame_t *f, const frame_t *r, const sort_spec_t *s, const char *what)
{
    int64_t n = f->nrows;
    assert_int_equal(r->nrows, n);
    uint8_t *seen = calloc((size_t)n + 1, 1);
    for (int64_t i = 0; i < n; i++) {
        int64_t o = I64(&r->idx[0], i);
        assert_true(o >= 0 && o < n && !seen[o]);
        seen[o] = 1;
        /* the row carries its own values */
        for (int c = 0; c < f->ncols; c++)
            if (!cells_equal(&r->cols[c], i, &f->cols[c], o, 0))
                fail_msg("%s: row %lld lost its values", what, (long long)i);
        if (i) {
            int64_t p = I64(&r->idx[0], i - 1);
            int c = cmp_rows(f, s, p, o);
            if (c > 0 || (c == 0 && p > o))
                fail_msg("%s: rows %lld, %lld out of order (original %lld, %lld)", what,
                         (long long)(i - 1), (long long)i, (long long)p, (long long)o);
        }
    }
    free(seen);
}

static void test_random(void **state)
{
    uint64_t seed = 777;
    for (int round = 0; round < 60; round++) {
        int64_t n = (int64_t)(rnd(&seed) % 400);
        frame_t f, r;
        random_frame(&seed, n, &f);
        sort_spec_t s = {.nby = 1 + (int)(rnd(&seed) % 3)};
        for (int k = 0; k < s.nby; k++) {
            s.by[k] = (int)(rnd(&seed) % 4);
            s.asc[k] = rnd(&seed) % 2;
        }
        OK(df_sort_part((const frame_t *const[]){&f}, 1, &s, &r, err, sizeof err));
        check_sorted(&f, &r, &s, "one part");
        frame_free(&r);
        int ncut = (int)(rnd(&seed) % 8);
        int64_t cuts[8];
        for (int q = 0; q < ncut; q++)
            cuts[q] = (int64_t)(rnd(&seed) % (uint64_t)(n + 1));
        for (int q = 1; q < ncut; q++) /* sorted cuts */
            for (int j = q; j > 0 && cuts[j - 1] > cuts[j]; j--) {
                int64_t t = cuts[j];
                cuts[j] = cuts[j - 1];
                cuts[j - 1] = t;
            }
        int nparts = 1 + (int)(rnd(&seed) % 8), k = 1 + (int)(rnd(&seed) % 20);
        sample_sort(&f, cuts, ncut, &s, nparts, k, &r);
        check_sorted(&f, &r, &s, "sample sort");
        frame_free(&r);
        /* range partition: parts in order, equal keys together */
        frame_t smp, spl, parts[9];
        OK(df_sort_sample(&f, &s, k, &smp, err, sizeof err));
        OK(df_sort_splitters((const frame_t *const[]){&smp}, 1, &s, nparts, &spl, err, sizeof err));
        OK(df_range_partition(&f, &spl, &s, parts, err, sizeof err));
        int64_t total = 0;
        for (int p = 0; p <= spl.nrows; p++) {
            total += parts[p].nrows;
            for (int q = p + 1; q <= spl.nrows; q++)
                for (int64_t i = 0; i < parts[p].nrows; i++)
                    for (int64_t j = 0; j < parts[q].nrows; j++)
                        if (cmp_rows(&f, &s, I64(&parts[p].idx[0], i), I64(&parts[q].idx[0], j)) >=
                            0)
                            fail_msg("round %d: part %d row not before part %d row", round, p, q);
        }
        assert_int_equal(total, n);
        for (int p = 0; p <= spl.nrows; p++)
            frame_free(&parts[p]);
        frame_free(&spl);
        frame_free(&smp);
        frame_free(&f);
    }
}

/* Large single numeric keys (the radix path): int64 and float64 with NaN
 * and -0.0, both directions, small and full value ranges. */
static void test_large_numeric(void **state)
{
    uint64_t seed = 5;
    for (int round = 0; round < 8; round++) {
        int64_t n = 5000 + (int64_t)(rnd(&seed) % 20000);
        int64_t *iv = malloc(sizeof *iv * (size_t)n);
        double *dv = malloc(sizeof *dv * (size_t)n);
        bool wide = round & 2;
        for (int64_t i = 0; i < n; i++) {
            uint64_t x = rnd(&seed);
            iv[i] = wide ? (int64_t)x : (int64_t)(x % 100) - 50;
            dv[i] = x % 17 == 0 ? NAN
                    : wide      ? ((double)(int64_t)x) * 1e-300 * (double)(x % 7)
                                : (double)((int64_t)(x % 9) - 4) / 2;
            if (dv[i] == 0 && (x >> 40) % 2) dv[i] = -0.0;
        }
        frame_t f, r;
        fb_init(&f, n, 2);
        fb_i64(&f, 0, "i", iv);
        fb_f64(&f, 1, "d", dv);
        sort_spec_t s = {.nby = 1, .by = {round % 2}, .asc = {(round >> 2) % 2 == 0}};
        OK(df_sort_part((const frame_t *const[]){&f}, 1, &s, &r, err, sizeof err));
        check_sorted(&f, &r, &s, "radix");
        frame_free(&r);
        frame_free(&f);
        free(iv);
        free(dv);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_cases),    cmocka_unit_test(test_string_byte_order),
        cmocka_unit_test(test_splitters),     cmocka_unit_test(test_random),
        cmocka_unit_test(test_large_numeric),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
