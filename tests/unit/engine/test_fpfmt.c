/* test_fpfmt.c: the shortest digits of doubles (fpfmt.c) against Python's
 * repr (fixtures/float_repr.txt, made by gen_float_fixtures.py), and
 * properties over 300,000 more doubles: every form reads back to its
 * double, no form with one digit fewer does, and the JSON form is printf's
 * "%.*g" at the least precision of 15..17 that reads back, or shorter. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpfmt.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static double from_bits(uint64_t u)
{
    double v;
    memcpy(&v, &u, 8);
    return v;
}

static void test_python_repr(void **state)
{
    (void)state;
    const char *f = __FILE__, *slash = strrchr(f, '/');
    char path[512];
    snprintf(path, sizeof path, "%.*sfixtures/float_repr.txt", slash ? (int)(slash - f + 1) : 0, f);
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    char line[128];
    int n = 0;
    while (fgets(line, sizeof line, in)) {
        unsigned long long u;
        char want[64], got[64];
        assert_int_equal(sscanf(line, "%llx %63s", &u, want), 2);
        int len = fp_repr(got, sizeof got, from_bits(u));
        assert_int_equal(len, (int)strlen(want));
        if (strcmp(got, want)) fail_msg("%016llx: fp_repr %s, Python %s", u, got, want);
        n++;
    }
    fclose(in);
    assert_true(n > 5000);
    char b[64];
    assert_int_equal(fp_repr(b, sizeof b, 0.0), 3);
    assert_string_equal(b, "0.0");
    fp_repr(b, sizeof b, -0.0);
    assert_string_equal(b, "-0.0");
    fp_repr(b, sizeof b, NAN);
    assert_string_equal(b, "nan");
    fp_repr(b, sizeof b, -INFINITY);
    assert_string_equal(b, "-inf");
}

/* printf's form at the least precision that reads back */
static void printf_json(char *b, size_t len, double v)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(b, len, "%.*g", prec, v);
        if (strtod(b, NULL) == v) return;
    }
}

/* a double drawn from one of several regions */
static double draw(int i)
{
    uint64_t u = rnd();
    switch (i % 5) {
    case 0:
        return from_bits(u);
    case 1: /* subnormal, often with few bits */
        return from_bits(u & (i % 10 == 1 ? 0xfffULL : 0xfffffffffffffULL));
    case 2:
        return ldexp(1.0, (int)(u % 2098) - 1074);
    case 3:
        return (double)(u % 1000000) / (double)(1 + rnd() % 1000);
    default:
        return ldexp((double)(u % 100000), (int)(rnd() % 400) - 200);
    }
}

static void test_properties(void **state)
{
    (void)state;
    int shorter = 0;
    for (int i = 0; i < 300000; i++) {
        double v = draw(i);
        if (!isfinite(v) || v == 0) continue;
        char dig[18], b[64], p[64];
        int x, n = fp_digits(v, dig, &x);
        assert_int_equal((int)strlen(dig), n);
        assert_true(n >= 1 && n <= 17);
        assert_true(dig[0] != '0' && dig[n - 1] != '0');
        /* reads back */
        snprintf(b, sizeof b, "%se%d", dig, x - n + 1);
        if (strtod(b, NULL) != fabs(v)) fail_msg("%a: %s does not read back", v, b);
        /* no n-1 digits read back: the nearest and its two neighbours */
        if (n > 1) {
            char r[64];
            snprintf(r, sizeof r, "%.*e", n - 2, fabs(v));
            char m[24];
            int k = 0;
            for (const char *q = r; *q != 'e'; q++)
                if (*q != '.') m[k++] = *q;
            m[k] = 0;
            long long mant = atoll(m);
            int ex = atoi(strchr(r, 'e') + 1) - (n - 2);
            for (long long d = -1; d <= 1; d++) {
                snprintf(r, sizeof r, "%llde%d", mant + d, ex);
                if (strtod(r, NULL) == fabs(v)) fail_msg("%a: %s is shorter than %s", v, r, dig);
            }
        }
        /* the JSON form: printf's, or shorter and reading back */
        int len = fp_json(b, sizeof b, v);
        assert_int_equal(len, (int)strlen(b));
        assert_true(strtod(b, NULL) == v);
        printf_json(p, sizeof p, v);
        if (strcmp(b, p)) {
            assert_true(strlen(b) < strlen(p));
            shorter++;
        }
    }
    /* printf's 15-digit form is longer for tiny subnormals, at least */
    assert_true(shorter > 0);
}

static void test_json_forms(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *s;
    } cases[] = {
        {0.1, "0.1"},
        {100.0, "100"},
        {1e15, "1e+15"},
        {1e14, "100000000000000"},
        {1e16, "1e+16"},
        {0.0001, "0.0001"},
        {0.00001, "1e-05"},
        {-2.5, "-2.5"},
        {1e-300, "1e-300"},
        {5e-324, "5e-324"}, /* printf: 4.94065645841247e-324 */
        {1.0 / 3, "0.3333333333333333"},
        {123456789012345678.0, "1.2345678901234568e+17"},
        {0.0, "0"},
        {-0.0, "-0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char b[64];
        fp_json(b, sizeof b, cases[i].v);
        if (strcmp(b, cases[i].s)) fail_msg("fp_json(%a) = %s, want %s", cases[i].v, b, cases[i].s);
    }
    char small[4];
    assert_int_equal(fp_json(small, sizeof small, 1234.5), -1);
    assert_int_equal(fp_repr(small, sizeof small, 100.0), -1);
    assert_int_equal(fp_json(small, sizeof small, 0.5), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_python_repr),
        cmocka_unit_test(test_properties),
        cmocka_unit_test(test_json_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
