/* radix.h: stable LSD radix sorts by unsigned integer keys, 8-bit digits
 * from the lowest. Each pass is stable, so elements of equal keys keep
 * their order; a pass whose digit is the same in every key is skipped
 * (small integers take one or two passes of eight).
 *
 * DEFINE_RADIX_BY(NAME, T, K, KEY) defines
 *     static void NAME(T *v, T *tmp, int64_t n)
 * which sorts v[0..n) by KEY(v[i]), an expression of unsigned type K, with
 * tmp[0..n) as scratch; the result is in v. Orders of values as keys:
 * radix_key_i64, radix_key_f64 and the float macros of kern/sortstat.c. */
#ifndef MARS_KERN_RADIX_H
#define MARS_KERN_RADIX_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* One pass's bucket starts from its counts c[256], in place; false, c left
 * as it is, when every key has the first key's digit (the pass is skipped). */
static inline bool radix_starts(int64_t *c, unsigned first_digit, int64_t n)
{
    if (c[first_digit] == n) return false;
    int64_t s = 0;
    for (int d = 0; d < 256; d++) {
        int64_t t = c[d];
        c[d] = s;
        s += t;
    }
    return true;
}

#define DEFINE_RADIX_BY(NAME, T, K, KEY)                                                           \
    static void NAME(T *v, T *tmp, int64_t n)                                                      \
    {                                                                                              \
        if (n < 2) return;                                                                         \
        int64_t cnt[sizeof(K)][256];                                                               \
        memset(cnt, 0, sizeof cnt);                                                                \
        for (int64_t i = 0; i < n; i++) {                                                          \
            K k = KEY(v[i]);                                                                       \
            for (unsigned p = 0; p < sizeof(K); p++)                                               \
                cnt[p][(k >> (8 * p)) & 255]++;                                                    \
        }                                                                                          \
        T *src = v, *dst = tmp;                                                                    \
        for (unsigned p = 0; p < sizeof(K); p++) {                                                 \
            int64_t *c = cnt[p];                                                                   \
            if (!radix_starts(c, (unsigned)((KEY(src[0]) >> (8 * p)) & 255), n)) continue;         \
            for (int64_t i = 0; i < n; i++)                                                        \
                dst[c[(KEY(src[i]) >> (8 * p)) & 255]++] = src[i];                                 \
            T *t = src;                                                                            \
            src = dst;                                                                             \
            dst = t;                                                                               \
        }                                                                                          \
        if (src != v) memcpy(v, src, sizeof(T) * (size_t)n);                                       \
    }

#define RADIX_SIGN64 ((uint64_t)1 << 63)

/* int64 in unsigned order */
static inline uint64_t radix_key_i64(int64_t x)
{
    return (uint64_t)x ^ RADIX_SIGN64;
}

/* float64 in numpy's sort order, as one key for values that compare
 * equal: -0.0 as 0.0, every NaN the largest key (after +inf) */
static inline uint64_t radix_key_f64(double x)
{
    if (x != x) return ~(uint64_t)0;
    if (x == 0) return RADIX_SIGN64;
    uint64_t b;
    memcpy(&b, &x, 8);
    return b ^ (b & RADIX_SIGN64 ? ~(uint64_t)0 : RADIX_SIGN64);
}

#endif
