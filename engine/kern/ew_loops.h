/* ew_loops.h: the typed loops of element-wise kernels (ew.c, ew_int.c):
 * one op over a block of n elements, simple enough for the compiler to
 * vectorise. Private to engine/kern. */
#ifndef MARS_EW_LOOPS_H
#define MARS_EW_LOOPS_H

#include <stdint.h>
#include <string.h>

#include "../dtype.h"
#include "../ops.h"

/* One op over n elements: d = op(a, b, c). Unary ops ignore b and c; `where`
 * reads a as the condition; `clip` takes b (lower) and c (upper), either may
 * be NULL. Bools are bytes holding 0 or 1. */
typedef void (*ew_fn)(int64_t n, void *restrict d, const void *restrict a, const void *restrict b,
                      const void *restrict c);

#define UN(name, T, TO, EXPR)                                                                      \
    static void name(int64_t n, void *restrict dv, const void *restrict av,                        \
                     const void *restrict bv, const void *restrict cv)                             \
    {                                                                                              \
        TO *restrict d = dv;                                                                       \
        const T *restrict a = av;                                                                  \
        (void)bv;                                                                                  \
        (void)cv;                                                                                  \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T x = a[i];                                                                            \
            d[i] = (TO)(EXPR);                                                                     \
        }                                                                                          \
    }

#define BIN(name, T, TO, EXPR)                                                                     \
    static void name(int64_t n, void *restrict dv, const void *restrict av,                        \
                     const void *restrict bv, const void *restrict cv)                             \
    {                                                                                              \
        TO *restrict d = dv;                                                                       \
        const T *restrict a = av;                                                                  \
        const T *restrict b = bv;                                                                  \
        (void)cv;                                                                                  \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T x = a[i], y = b[i];                                                                  \
            d[i] = (TO)(EXPR);                                                                     \
        }                                                                                          \
    }

/* numpy 1.24's clip: minimum(maximum(a, lo), hi) where each step keeps a NaN
 * from either side (_NPY_MAX(a, b) = isnan(a) ? a : a > b ? a : b). */
#define CLIP(name, T, MAXF, MINF)                                                                  \
    static void name(int64_t n, void *restrict dv, const void *restrict av,                        \
                     const void *restrict bv, const void *restrict cv)                             \
    {                                                                                              \
        T *restrict d = dv;                                                                        \
        const T *restrict a = av, *restrict lo = bv, *restrict hi = cv;                            \
        if (lo && hi) {                                                                            \
            for (int64_t i = 0; i < n; i++)                                                        \
                d[i] = MINF(MAXF(a[i], lo[i]), hi[i]);                                             \
        } else if (lo) {                                                                           \
            for (int64_t i = 0; i < n; i++)                                                        \
                d[i] = MAXF(a[i], lo[i]);                                                          \
        } else if (hi) {                                                                           \
            for (int64_t i = 0; i < n; i++)                                                        \
                d[i] = MINF(a[i], hi[i]);                                                          \
        } else {                                                                                   \
            memcpy(d, a, (size_t)n * sizeof(T));                                                   \
        }                                                                                          \
    }
#define IMAX(x, y) ((x) > (y) ? (x) : (y))
#define IMIN(x, y) ((x) < (y) ? (x) : (y))

/* The loop of op on compute dtype dt for the integer dtypes ew.c leaves
 * out (int8, int16, uint8, uint16, uint32, uint64), NULL where the op has
 * none (ew_resolve never asks for it). */
ew_fn ew_int_loop(op_t op, dtype_t dt);
/* The conversion loop from dtype `from` to `to`, every pair of dtypes. */
ew_fn ew_cast_loop(dtype_t from, dtype_t to);

#endif
