/* fpfmt.c: the shortest decimal digits of a double (see fpfmt.h).
 *
 * The method is R. Giulietti's Schubfach ("The Schubfach way to render
 * doubles", 2020). For v = c * 2^q, its rounding interval (the reals that
 * read back to v) is at least 10^k wide and less than 10^(k+1), with k =
 * floor(log10(width)). So it holds at least one multiple of 10^k and at
 * most one multiple of 10^(k+1): that one, if there is one, is the
 * shortest; else the shortest are the multiples of 10^k in it, s and s + 1
 * around v, of which the closer is taken. v, its interval's ends, times
 * 10^-k are computed from one table entry g ~ 10^-k * 2^-r (126 bits) by
 * 128-bit multiplications, rounded to odd so that the comparisons are
 * exact. Unlike Java's Double.toString, which uses the same method but
 * gives at least two digits, a one-digit form is taken when it reads back
 * (5e-324, 1e+23), as Python and printf's callers expect. */
#include "fpfmt.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define FP_K_MIN (-324)

typedef unsigned __int128 u128;

/* floor(e * log10(2)), floor(e * log10(3/4 * 2)) - see the paper's
 * section 9: exact for the exponents of doubles */
static int flog10pow2(int e)
{
    return (int)(((int64_t)e * 661971961083LL) >> 41);
}

static int flog10_three_quarters_pow2(int e)
{
    return (int)(((int64_t)e * 661971961083LL - 274743187321LL) >> 41);
}

/* floor(e * log2(10)); the generator checks it for every table entry */
static int flog2pow10(int e)
{
    return (int)(((int64_t)e * 913124641741LL) >> 38);
}

/* floor(g * cp / 2^127), rounded to odd: its lowest bit is set when any
 * bit below was */
static uint64_t rop(uint64_t g1, uint64_t g0, uint64_t cp)
{
    uint64_t x1 = (uint64_t)(((u128)g0 * cp) >> 64);
    u128 y = (u128)g1 * cp;
    uint64_t y0 = (uint64_t)y, y1 = (uint64_t)(y >> 64);
    uint64_t z = (y0 >> 1) + x1;
    uint64_t vbp = y1 + (z >> 63);
    return vbp | (((z & ~(1ULL << 63)) + ~(1ULL << 63)) >> 63);
}

/* The shortest f * 10^e in the rounding interval of c * 2^q. */
static void shortest(int q, uint64_t c, bool irregular, uint64_t *f, int *e)
{
    uint64_t out = c & 1;
    uint64_t cb = c << 2, cbr = cb + 2, cbl;
    int k;
    if (!irregular) {
        cbl = cb - 2;
        k = flog10pow2(q);
    } else {
        /* a power of two: the interval below is half the one above */
        cbl = cb - 1;
        k = flog10_three_quarters_pow2(q);
    }
    int h = q + flog2pow10(-k) + 2;
    const uint64_t *g = fp_pow10_tab[k - FP_K_MIN];
    uint64_t vb = rop(g[0], g[1], cb << h);
    uint64_t vbl = rop(g[0], g[1], cbl << h);
    uint64_t vbr = rop(g[0], g[1], cbr << h);
    uint64_t s = vb >> 2;
    if (s >= 10) {
        /* the one multiple of 10^(k+1) the interval may hold */
        uint64_t sp10 = s / 10 * 10, tp10 = sp10 + 10;
        bool upin = vbl + out <= sp10 << 2;
        bool wpin = (tp10 << 2) + out <= vbr;
        if (upin != wpin) {
            *f = upin ? sp10 : tp10;
            *e = k;
            return;
        }
    }
    uint64_t t = s + 1;
    bool uin = vbl + out <= s << 2;
    bool win = (t << 2) + out <= vbr;
    *e = k;
    if (uin != win) {
        *f = uin ? s : t;
        return;
    }
    int64_t cmp = (int64_t)(vb - ((s + t) << 1));
    *f = cmp < 0 || (cmp == 0 && (s & 1) == 0) ? s : t;
}

int fp_digits(double v, char dig[18], int *x10)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    int bq = (int)(bits >> 52 & 0x7ff);
    uint64_t t = bits & ((1ULL << 52) - 1);
    uint64_t f;
    int e;
    if (bq == 0) {
        shortest(-1074, t, false, &f, &e);
    } else {
        uint64_t c = t | 1ULL << 52;
        int q = bq - 1075;
        if (q < 0 && q > -53 && (c & ((1ULL << -q) - 1)) == 0) {
            /* an integer below 2^53: its digits are exact */
            f = c >> -q;
            e = 0;
        } else {
            shortest(q, c, t == 0 && bq > 1, &f, &e);
        }
    }
    while (f % 10 == 0) {
        f /= 10;
        e++;
    }
    char tmp[20];
    int n = 0;
    for (; f; f /= 10)
        tmp[n++] = (char)('0' + f % 10);
    for (int i = 0; i < n; i++)
        dig[i] = tmp[n - 1 - i];
    dig[n] = 0;
    *x10 = e + n - 1;
    return n;
}

/* d.ddd in fixed notation (x10 from -5 on), or with an exponent of at
 * least two digits; py adds Python's ".0" to integers */
static int place(char *b, size_t len, bool neg, const char *dig, int n, int x, bool expo, bool py)
{
    char o[48];
    int m = 0;
    if (neg) o[m++] = '-';
    if (expo) {
        o[m++] = dig[0];
        if (n > 1) {
            o[m++] = '.';
            memcpy(o + m, dig + 1, (size_t)n - 1);
            m += n - 1;
        }
        m += snprintf(o + m, sizeof o - (size_t)m, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
    } else if (x < 0) {
        o[m++] = '0';
        o[m++] = '.';
        for (int i = 0; i < -x - 1; i++)
            o[m++] = '0';
        memcpy(o + m, dig, (size_t)n);
        m += n;
    } else {
        for (int i = 0; i <= x; i++)
            o[m++] = i < n ? dig[i] : '0';
        if (n > x + 1) {
            o[m++] = '.';
            memcpy(o + m, dig + x + 1, (size_t)(n - x - 1));
            m += n - x - 1;
        } else if (py) {
            o[m++] = '.';
            o[m++] = '0';
        }
    }
    if ((size_t)m >= len) return -1;
    memcpy(b, o, (size_t)m);
    b[m] = 0;
    return m;
}

int fp_json(char *b, size_t len, double v)
{
    if (!isfinite(v) || v == 0) {
        int n = snprintf(b, len, "%.17g", v);
        return n < 0 || (size_t)n >= len ? -1 : n;
    }
    char dig[18];
    int x, n = fp_digits(v, dig, &x);
    int prec = n > 15 ? n : 15;
    return place(b, len, signbit(v), dig, n, x, x < -4 || x >= prec, false);
}

int fp_repr(char *b, size_t len, double v)
{
    int n;
    if (isnan(v))
        n = snprintf(b, len, "nan");
    else if (isinf(v))
        n = snprintf(b, len, v > 0 ? "inf" : "-inf");
    else if (v == 0)
        n = snprintf(b, len, signbit(v) ? "-0.0" : "0.0");
    else {
        char dig[18];
        int x, nd = fp_digits(v, dig, &x);
        return place(b, len, signbit(v), dig, nd, x, x < -4 || x >= 16, true);
    }
    return n < 0 || (size_t)n >= len ? -1 : n;
}
