/* ew.c: element-wise programs, evaluated in blocks of EW_BLOCK output
 * elements. Each op is a typed loop over a block (simple enough for the
 * compiler to vectorise); dispatch happens once per op per block. Semantics
 * are numpy 1.24's, on x86-64: integers wrap (computed unsigned, no UB),
 * floor_divide and mod follow Python's signs, NaN propagates through
 * maximum, minimum and clip. */
#include "level.h" /* first: renames the external functions per CPU level */
#include <math.h>
#include <stdio.h>
#include <string.h>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "../cast.h"
#include "ew_loops.h"
#include "kern_internal.h"

/* Wrapping integer arithmetic through the unsigned type. */
#define W32(e) ((int32_t)(uint32_t)(e))
#define W64(e) ((int64_t)(uint64_t)(e))

/* ---- add, subtract, multiply, divide -------------------------------------- */
BIN(add_B, uint8_t, uint8_t, x | y)
BIN(add_I, int32_t, int32_t, W32((uint32_t)x + (uint32_t)y))
BIN(add_L, int64_t, int64_t, W64((uint64_t)x + (uint64_t)y))
BIN(add_F, float, float, x + y)
BIN(add_D, double, double, x + y)
BIN(sub_I, int32_t, int32_t, W32((uint32_t)x - (uint32_t)y))
BIN(sub_L, int64_t, int64_t, W64((uint64_t)x - (uint64_t)y))
BIN(sub_F, float, float, x - y)
BIN(sub_D, double, double, x - y)
BIN(mul_B, uint8_t, uint8_t, x &y)
BIN(mul_I, int32_t, int32_t, W32((uint32_t)x *(uint32_t)y))
BIN(mul_L, int64_t, int64_t, W64((uint64_t)x *(uint64_t)y))
BIN(mul_F, float, float, x *y)
BIN(mul_D, double, double, x *y)
BIN(div_F, float, float, x / y)
BIN(div_D, double, double, x / y)

/* ---- floor_divide and mod --------------------------------------------------
 * Integers: x // 0 and x % 0 give 0 (numpy warns); INT_MIN // -1 wraps to
 * INT_MIN. Floats: numpy's npy_floor_divide / npy_remainder over npy_divmod. */
#define INT_DIVMOD(S, T, U)                                                                        \
    static inline T fdiv_##S(T x, T y)                                                             \
    {                                                                                              \
        if (y == 0) return 0;                                                                      \
        if (y == -1) return (T)(0u - (U)x);                                                        \
        T q = x / y;                                                                               \
        if (x % y != 0 && ((x < 0) != (y < 0))) q--;                                               \
        return q;                                                                                  \
    }                                                                                              \
    static inline T mod_##S(T x, T y)                                                              \
    {                                                                                              \
        if (y == 0 || y == -1) return 0;                                                           \
        T r = x % y;                                                                               \
        if (r != 0 && ((r < 0) != (y < 0))) r += y;                                                \
        return r;                                                                                  \
    }
INT_DIVMOD(I, int32_t, uint32_t)
INT_DIVMOD(L, int64_t, uint64_t)

#define FLT_DIVMOD(S, T, FMOD, FLOOR, COPYSIGN)                                                    \
    static inline T divmod_##S(T a, T b, T *modulus)                                               \
    {                                                                                              \
        T mod = FMOD(a, b);                                                                        \
        T div = (a - mod) / b;                                                                     \
        if (mod) {                                                                                 \
            if ((b < 0) != (mod < 0)) {                                                            \
                mod += b;                                                                          \
                div -= (T)1;                                                                       \
            }                                                                                      \
        } else {                                                                                   \
            mod = COPYSIGN((T)0, b);                                                               \
        }                                                                                          \
        T floordiv;                                                                                \
        if (div) {                                                                                 \
            floordiv = FLOOR(div);                                                                 \
            if (div - floordiv > (T)0.5) floordiv += (T)1;                                         \
        } else {                                                                                   \
            floordiv = COPYSIGN((T)0, a / b);                                                      \
        }                                                                                          \
        *modulus = mod;                                                                            \
        return floordiv;                                                                           \
    }                                                                                              \
    static inline T fdiv_##S(T a, T b)                                                             \
    {                                                                                              \
        T m;                                                                                       \
        if (!b) return a / b;                                                                      \
        return divmod_##S(a, b, &m);                                                               \
    }                                                                                              \
    static inline T mod_##S(T a, T b)                                                              \
    {                                                                                              \
        T m;                                                                                       \
        if (!b) return FMOD(a, b);                                                                 \
        divmod_##S(a, b, &m);                                                                      \
        return m;                                                                                  \
    }
FLT_DIVMOD(F, float, fmodf, floorf, copysignf)
FLT_DIVMOD(D, double, fmod, floor, copysign)

BIN(fdiv_I_loop, int32_t, int32_t, fdiv_I(x, y))
BIN(fdiv_L_loop, int64_t, int64_t, fdiv_L(x, y))
BIN(fdiv_F_loop, float, float, fdiv_F(x, y))
BIN(fdiv_D_loop, double, double, fdiv_D(x, y))
BIN(mod_I_loop, int32_t, int32_t, mod_I(x, y))
BIN(mod_L_loop, int64_t, int64_t, mod_L(x, y))
BIN(mod_F_loop, float, float, mod_F(x, y))
BIN(mod_D_loop, double, double, mod_D(x, y))

/* ---- power -----------------------------------------------------------------
 * Integers by squaring, wrapping (numpy's loop); the caller has refused
 * negative exponents before. */
#define INT_POW(S, T, U)                                                                           \
    static inline T ipow_##S(T base, T e)                                                          \
    {                                                                                              \
        if (e == 0 || base == 1) return 1;                                                         \
        U b = (U)base, out = (e & 1) ? b : 1;                                                      \
        e >>= 1;                                                                                   \
        while (e > 0) {                                                                            \
            b *= b;                                                                                \
            if (e & 1) out *= b;                                                                   \
            e >>= 1;                                                                               \
        }                                                                                          \
        return (T)out;                                                                             \
    }
INT_POW(I, int32_t, uint32_t)
INT_POW(L, int64_t, uint64_t)
BIN(pow_I, int32_t, int32_t, ipow_I(x, y))
BIN(pow_L, int64_t, int64_t, ipow_L(x, y))
BIN(pow_F, float, float, powf(x, y))
BIN(pow_D, double, double, pow(x, y))

/* ---- maximum, minimum (NaN propagates, as numpy) ------------------------- */
BIN(max_B, uint8_t, uint8_t, x | y)
BIN(max_I, int32_t, int32_t, x > y ? x : y)
BIN(max_L, int64_t, int64_t, x > y ? x : y)
BIN(max_F, float, float, (x >= y || x != x) ? x : y)
BIN(max_D, double, double, (x >= y || x != x) ? x : y)
BIN(min_B, uint8_t, uint8_t, x &y)
BIN(min_I, int32_t, int32_t, x < y ? x : y)
BIN(min_L, int64_t, int64_t, x < y ? x : y)
BIN(min_F, float, float, (x <= y || x != x) ? x : y)
BIN(min_D, double, double, (x <= y || x != x) ? x : y)

/* ---- comparisons (NaN compares false, != true) and logical ops ----------- */
#define CMP(name, OP)                                                                              \
    BIN(name##_B, uint8_t, uint8_t, x OP y)                                                        \
    BIN(name##_I, int32_t, uint8_t, x OP y)                                                        \
    BIN(name##_L, int64_t, uint8_t, x OP y)                                                        \
    BIN(name##_F, float, uint8_t, x OP y)                                                          \
    BIN(name##_D, double, uint8_t, x OP y)
CMP(eq, ==)
CMP(ne, !=)
CMP(lt, <)
CMP(le, <=)
CMP(gt, >)
CMP(ge, >=)
BIN(land_B, uint8_t, uint8_t, (x != 0) & (y != 0))
BIN(lor_B, uint8_t, uint8_t, (x | y) != 0)
UN(lnot_B, uint8_t, uint8_t, x == 0)

/* ---- unary ---------------------------------------------------------------- */
UN(neg_I, int32_t, int32_t, W32(0u - (uint32_t)x))
UN(neg_L, int64_t, int64_t, W64(0u - (uint64_t)x))
UN(neg_F, float, float, -x)
UN(neg_D, double, double, -x)
UN(abs_B, uint8_t, uint8_t, x)
UN(abs_I, int32_t, int32_t, x < 0 ? W32(0u - (uint32_t)x) : x)
UN(abs_L, int64_t, int64_t, x < 0 ? W64(0u - (uint64_t)x) : x)
UN(abs_F, float, float, fabsf(x))
UN(abs_D, double, double, fabs(x))
UN(sq_I, int32_t, int32_t, W32((uint32_t)x *(uint32_t)x))
UN(sq_L, int64_t, int64_t, W64((uint64_t)x *(uint64_t)x))
UN(sq_F, float, float, x *x)
UN(sq_D, double, double, x *x)
UN(sign_I, int32_t, int32_t, (x > 0) - (x < 0))
UN(sign_L, int64_t, int64_t, (x > 0) - (x < 0))
UN(sign_F, float, float, x > 0 ? 1.0f : x < 0 ? -1.0f : x == 0 ? 0.0f : x)
UN(sign_D, double, double, x > 0 ? 1.0 : x < 0 ? -1.0 : x == 0 ? 0.0 : x)
/* Integers are never NaN and always finite: x != x is 0, x == x is 1. */
UN(isnan_B, uint8_t, uint8_t, x != x)
UN(isnan_I, int32_t, uint8_t, x != x)
UN(isnan_L, int64_t, uint8_t, x != x)
UN(isnan_F, float, uint8_t, x != x)
UN(isnan_D, double, uint8_t, x != x)
UN(isfin_B, uint8_t, uint8_t, x == x)
UN(isfin_I, int32_t, uint8_t, x == x)
UN(isfin_L, int64_t, uint8_t, x == x)
UN(isfin_F, float, uint8_t, x - x == 0.0f)
UN(isfin_D, double, uint8_t, x - x == 0.0)

/* float32 computes in float32 with the f-suffixed functions, as numpy's
 * float32 loops do. */
#define FUN(name, FF, FD)                                                                          \
    UN(name##_F, float, float, FF(x))                                                              \
    UN(name##_D, double, double, FD(x))
FUN(exp, expf, exp)
FUN(log, logf, log)
FUN(log1p, log1pf, log1p)
FUN(expm1, expm1f, expm1)
FUN(sin, sinf, sin)
FUN(cos, cosf, cos)
FUN(tan, tanf, tan)
FUN(tanh, tanhf, tanh)

/* sqrt, floor and ceil are single instructions, but with the default
 * -fmath-errno (sqrt) and -ftrapping-math (floor, ceil) the compiler keeps
 * them scalar; the intrinsics give the same IEEE results, vectorised. */
#if defined(__AVX__)
#define VUN(name, T, W, LOAD, STORE, VOP, SOP)                                                     \
    static void name(int64_t n, void *restrict dv, const void *restrict av,                        \
                     const void *restrict bv, const void *restrict cv)                             \
    {                                                                                              \
        T *restrict d = dv;                                                                        \
        const T *restrict a = av;                                                                  \
        (void)bv;                                                                                  \
        (void)cv;                                                                                  \
        int64_t i = 0;                                                                             \
        for (; i + W <= n; i += W)                                                                 \
            STORE(d + i, VOP(LOAD(a + i)));                                                        \
        for (; i < n; i++)                                                                         \
            d[i] = SOP(a[i]);                                                                      \
    }
#define VFUN(name, SF, SD)                                                                         \
    VUN(name##_F, float, 8, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_##name##_ps, SF)             \
    VUN(name##_D, double, 4, _mm256_loadu_pd, _mm256_storeu_pd, _mm256_##name##_pd, SD)
#else
#define VFUN(name, SF, SD) FUN(name, SF, SD)
#endif
VFUN(sqrt, sqrtf, sqrt)
VFUN(floor, floorf, floor)
VFUN(ceil, ceilf, ceil)

/* ---- more numpy ufuncs ------------------------------------------------------
 * Float functions: float32 through the f-suffixed libm functions, as numpy's
 * float32 loops. degrees and radians multiply by numpy's constants; fix is
 * trunc (numpy's ceil below 0 and floor above agree with it, -0.0 and NaN
 * included). */
FUN(log2, log2f, log2)
FUN(log10, log10f, log10)
FUN(exp2, exp2f, exp2)
FUN(cbrt, cbrtf, cbrt)
FUN(asin, asinf, asin)
FUN(acos, acosf, acos)
FUN(atan, atanf, atan)
FUN(sinh, sinhf, sinh)
FUN(cosh, coshf, cosh)
FUN(asinh, asinhf, asinh)
FUN(acosh, acoshf, acosh)
FUN(atanh, atanhf, atanh)
FUN(rint, rintf, rint)
FUN(trunc, truncf, trunc)
#define NPY_PI_D 3.141592653589793238462643383279502884
#define NPY_PI_F 3.141592653589793238462643383279502884f
UN(deg_F, float, float, x *(180.0f / NPY_PI_F))
UN(deg_D, double, double, x *(180.0 / NPY_PI_D))
UN(rad_F, float, float, x *(NPY_PI_F / 180.0f))
UN(rad_D, double, double, x *(NPY_PI_D / 180.0))
/* Integers: numpy computes 1.0 / x and converts: 0 gives the x86 conversion
 * of infinity (the type's minimum), |x| > 1 gives 0. */
UN(recip_I, int32_t, int32_t, x == 0 ? INT32_MIN : x == 1 ? 1 : x == -1 ? -1 : 0)
UN(recip_L, int64_t, int64_t, x == 0 ? INT64_MIN : x == 1 ? 1 : x == -1 ? -1 : 0)
UN(recip_F, float, float, 1.0f / x)
UN(recip_D, double, double, 1.0 / x)
UN(pos_I, int32_t, int32_t, x)
UN(pos_L, int64_t, int64_t, x)
UN(pos_F, float, float, x)
UN(pos_D, double, double, x)
UN(isinf_B, uint8_t, uint8_t, 0 * x)
UN(isinf_I, int32_t, uint8_t, 0 * x)
UN(isinf_L, int64_t, uint8_t, 0 * x)
UN(isinf_F, float, uint8_t, isinf(x) != 0)
UN(isinf_D, double, uint8_t, isinf(x) != 0)
UN(isninf_B, uint8_t, uint8_t, 0 * x)
UN(isninf_I, int32_t, uint8_t, 0 * x)
UN(isninf_L, int64_t, uint8_t, 0 * x)
UN(isninf_F, float, uint8_t, x == -INFINITY)
UN(isninf_D, double, uint8_t, x == -(double)INFINITY)
UN(ispinf_B, uint8_t, uint8_t, 0 * x)
UN(ispinf_I, int32_t, uint8_t, 0 * x)
UN(ispinf_L, int64_t, uint8_t, 0 * x)
UN(ispinf_F, float, uint8_t, x == INFINITY)
UN(ispinf_D, double, uint8_t, x == (double)INFINITY)
UN(signbit_F, float, uint8_t, signbit(x) != 0)
UN(signbit_D, double, uint8_t, signbit(x) != 0)
UN(inv_B, uint8_t, uint8_t, x == 0)
UN(inv_I, int32_t, int32_t, ~x)
UN(inv_L, int64_t, int64_t, ~x)

/* round(x, decimals): numpy's PyArray_Round. Floats: decimals >= 0 gives
 * rint(x * f) / f, decimals < 0 rint(x / f) * f, f = 10^|decimals| in the
 * array's dtype; integers: unchanged for decimals >= 0, else computed so in
 * float64 and converted back. b holds decimals (NULL: 0). */
static double power_of_ten(int64_t n)
{
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
    if (n < 9) return p10[n];
    double r = 1e9;
    for (int64_t i = 9; i < n && i < 400; i++)
        r *= 10.;
    return r;
}
#define ROUNDF(name, T, RINT)                                                                      \
    static void name(int64_t n, void *restrict dv, const void *restrict av,                        \
                     const void *restrict bv, const void *restrict cv)                             \
    {                                                                                              \
        T *restrict d = dv;                                                                        \
        const T *restrict a = av;                                                                  \
        (void)cv;                                                                                  \
        int64_t dec = bv ? (int64_t)((const T *)bv)[0] : 0;                                        \
        T f = (T)power_of_ten(dec < 0 ? -dec : dec);                                               \
        if (dec >= 0)                                                                              \
            for (int64_t i = 0; i < n; i++)                                                        \
                d[i] = RINT(a[i] * f) / f;                                                         \
        else                                                                                       \
            for (int64_t i = 0; i < n; i++)                                                        \
                d[i] = RINT(a[i] / f) * f;                                                         \
    }
ROUNDF(round_F, float, rintf)
ROUNDF(round_D, double, rint)
#define ROUNDI(name, T, CONV)                                                                      \
    static void name(int64_t n, void *restrict dv, const void *restrict av,                        \
                     const void *restrict bv, const void *restrict cv)                             \
    {                                                                                              \
        T *restrict d = dv;                                                                        \
        const T *restrict a = av;                                                                  \
        (void)cv;                                                                                  \
        int64_t dec = bv ? (int64_t)((const T *)bv)[0] : 0;                                        \
        if (dec >= 0) {                                                                            \
            memcpy(d, a, (size_t)n * sizeof(T));                                                   \
            return;                                                                                \
        }                                                                                          \
        double f = power_of_ten(-dec);                                                             \
        for (int64_t i = 0; i < n; i++)                                                            \
            d[i] = CONV(rint((double)a[i] / f) * f);                                               \
    }
ROUNDI(round_I, int32_t, cast_f64_i32)
ROUNDI(round_L, int64_t, cast_f64_i64)

/* Binary: atan2, hypot, copysign through libm; heaviside as npy_heaviside. */
#define FBIN(name, FF, FD)                                                                         \
    BIN(name##_F, float, float, FF(x, y))                                                          \
    BIN(name##_D, double, double, FD(x, y))
FBIN(atan2, atan2f, atan2)
FBIN(hypot, hypotf, hypot)
FBIN(copysign, copysignf, copysign)
BIN(heavi_F, float, float, x != x ? x : x == 0 ? y : x < 0 ? 0.0f : 1.0f)
BIN(heavi_D, double, double, x != x ? x : x == 0 ? y : x < 0 ? 0.0 : 1.0)
/* fmod: C's sign (the dividend's); integers by 0 give 0, as numpy. */
BIN(fmod_I, int32_t, int32_t, (y == 0 || y == -1) ? 0 : x % y)
BIN(fmod_L, int64_t, int64_t, (y == 0 || y == -1) ? 0 : x % y)
BIN(fmod_F, float, float, fmodf(x, y))
BIN(fmod_D, double, double, fmod(x, y))
/* fmax and fmin ignore a NaN; equal values (signed zeros) give y, as the
 * maxsd/minsd that numpy's loops and glibc use. */
BIN(fmax_F, float, float, y != y ? x : x > y ? x : y)
BIN(fmax_D, double, double, y != y ? x : x > y ? x : y)
BIN(fmin_F, float, float, y != y ? x : x < y ? x : y)
BIN(fmin_D, double, double, y != y ? x : x < y ? x : y)
BIN(lxor_B, uint8_t, uint8_t, (x != 0) != (y != 0))
BIN(band_B, uint8_t, uint8_t, x &y)
BIN(band_I, int32_t, int32_t, x &y)
BIN(band_L, int64_t, int64_t, x &y)
BIN(bor_B, uint8_t, uint8_t, x | y)
BIN(bor_I, int32_t, int32_t, x | y)
BIN(bor_L, int64_t, int64_t, x | y)
BIN(bxor_B, uint8_t, uint8_t, x ^ y)
BIN(bxor_I, int32_t, int32_t, x ^ y)
BIN(bxor_L, int64_t, int64_t, x ^ y)
/* Shifts as npy_lshift/npy_rshift: a count outside [0, bits) shifts
 * everything out (left: 0; right: 0, or -1 for a negative x). */
BIN(shl_I, int32_t, int32_t, (uint32_t)y < 32u ? W32((uint32_t)x << y) : 0)
BIN(shl_L, int64_t, int64_t, (uint64_t)y < 64u ? W64((uint64_t)x << y) : 0)
BIN(shr_I, int32_t, int32_t, (uint32_t)y < 32u ? x >> y : x < 0 ? -1 : 0)
BIN(shr_L, int64_t, int64_t, (uint64_t)y < 64u ? x >> y : x < 0 ? -1 : 0)

/* ---- where, clip ---------------------------------------------------------- */
#define WHERE(name, T)                                                                             \
    static void name(int64_t n, void *restrict dv, const void *restrict av,                        \
                     const void *restrict bv, const void *restrict cv)                             \
    {                                                                                              \
        T *restrict d = dv;                                                                        \
        const uint8_t *restrict cond = av;                                                         \
        const T *restrict x = bv, *restrict y = cv;                                                \
        for (int64_t i = 0; i < n; i++)                                                            \
            d[i] = cond[i] ? x[i] : y[i];                                                          \
    }
/* Bytes select through a mask, which vectorises where the branch does not. */
static void where_1(int64_t n, void *restrict dv, const void *restrict av, const void *restrict bv,
                    const void *restrict cv)
{
    uint8_t *restrict d = dv;
    const uint8_t *restrict cond = av, *restrict x = bv, *restrict y = cv;
    for (int64_t i = 0; i < n; i++) {
        uint8_t m = (uint8_t)(0u - (cond[i] != 0));
        d[i] = (uint8_t)((x[i] & m) | (y[i] & (uint8_t)~m));
    }
}
WHERE(where_2, uint16_t)
WHERE(where_4, uint32_t)
WHERE(where_8, uint64_t)

/* where selects elements by their size, whatever the dtype */
static ew_fn where_loop(dtype_t dt)
{
    size_t es = dt_size(dt);
    return es == 1 ? where_1 : es == 2 ? where_2 : es == 4 ? where_4 : where_8;
}

static inline float fmaxn_f(float x, float y)
{
    return x != x ? x : x > y ? x : y;
}
static inline float fminn_f(float x, float y)
{
    return x != x ? x : x < y ? x : y;
}
static inline double fmaxn_d(double x, double y)
{
    return x != x ? x : x > y ? x : y;
}
static inline double fminn_d(double x, double y)
{
    return x != x ? x : x < y ? x : y;
}
CLIP(clip_B, uint8_t, IMAX, IMIN)
CLIP(clip_I, int32_t, IMAX, IMIN)
CLIP(clip_L, int64_t, IMAX, IMIN)
CLIP(clip_F, float, fmaxn_f, fminn_f)
CLIP(clip_D, double, fmaxn_d, fminn_d)

/* [op][compute dtype]; NULL where ew_resolve refuses the pair. */
#define ALL5(p)                                                                                    \
    {                                                                                              \
        p##_B, p##_I, p##_L, p##_F, p##_D                                                          \
    }
#define NUM4(p)                                                                                    \
    {                                                                                              \
        NULL, p##_I, p##_L, p##_F, p##_D                                                           \
    }
#define FLT2(p)                                                                                    \
    {                                                                                              \
        NULL, NULL, NULL, p##_F, p##_D                                                             \
    }
static const ew_fn op_table[OP_COUNT][DT_NTYPES] = {
    [OP_ADD] = ALL5(add),
    [OP_SUBTRACT] = NUM4(sub),
    [OP_MULTIPLY] = ALL5(mul),
    [OP_DIVIDE] = FLT2(div),
    [OP_FLOOR_DIVIDE] = {NULL, fdiv_I_loop, fdiv_L_loop, fdiv_F_loop, fdiv_D_loop},
    [OP_MOD] = {NULL, mod_I_loop, mod_L_loop, mod_F_loop, mod_D_loop},
    [OP_POWER] = NUM4(pow),
    [OP_MAXIMUM] = ALL5(max),
    [OP_MINIMUM] = ALL5(min),
    [OP_EQUAL] = ALL5(eq),
    [OP_NOT_EQUAL] = ALL5(ne),
    [OP_LESS] = ALL5(lt),
    [OP_LESS_EQUAL] = ALL5(le),
    [OP_GREATER] = ALL5(gt),
    [OP_GREATER_EQUAL] = ALL5(ge),
    [OP_LOGICAL_AND] = {land_B},
    [OP_LOGICAL_OR] = {lor_B},
    [OP_LOGICAL_NOT] = {lnot_B},
    [OP_NEGATIVE] = NUM4(neg),
    [OP_ABS] = ALL5(abs),
    [OP_SQRT] = FLT2(sqrt),
    [OP_EXP] = FLT2(exp),
    [OP_LOG] = FLT2(log),
    [OP_LOG1P] = FLT2(log1p),
    [OP_EXPM1] = FLT2(expm1),
    [OP_SIN] = FLT2(sin),
    [OP_COS] = FLT2(cos),
    [OP_TAN] = FLT2(tan),
    [OP_TANH] = FLT2(tanh),
    [OP_SQUARE] = NUM4(sq),
    [OP_SIGN] = NUM4(sign),
    [OP_FLOOR] = FLT2(floor),
    [OP_CEIL] = FLT2(ceil),
    [OP_ISNAN] = ALL5(isnan),
    [OP_ISFINITE] = ALL5(isfin),
    [OP_LOG2] = FLT2(log2),
    [OP_LOG10] = FLT2(log10),
    [OP_EXP2] = FLT2(exp2),
    [OP_CBRT] = FLT2(cbrt),
    [OP_RECIPROCAL] = NUM4(recip),
    [OP_POSITIVE] = NUM4(pos),
    [OP_ARCSIN] = FLT2(asin),
    [OP_ARCCOS] = FLT2(acos),
    [OP_ARCTAN] = FLT2(atan),
    [OP_SINH] = FLT2(sinh),
    [OP_COSH] = FLT2(cosh),
    [OP_ARCSINH] = FLT2(asinh),
    [OP_ARCCOSH] = FLT2(acosh),
    [OP_ARCTANH] = FLT2(atanh),
    [OP_DEGREES] = FLT2(deg),
    [OP_RADIANS] = FLT2(rad),
    [OP_RINT] = FLT2(rint),
    [OP_TRUNC] = FLT2(trunc),
    [OP_FIX] = FLT2(trunc),
    [OP_ISINF] = ALL5(isinf),
    [OP_ISNEGINF] = ALL5(isninf),
    [OP_ISPOSINF] = ALL5(ispinf),
    [OP_SIGNBIT] = FLT2(signbit),
    [OP_INVERT] = {inv_B, inv_I, inv_L},
    [OP_ROUND] = NUM4(round),
    [OP_AROUND] = NUM4(round),
    [OP_ARCTAN2] = FLT2(atan2),
    [OP_HYPOT] = FLT2(hypot),
    [OP_FMOD] = NUM4(fmod),
    [OP_REMAINDER] = {NULL, mod_I_loop, mod_L_loop, mod_F_loop, mod_D_loop},
    [OP_FMAX] = {max_B, max_I, max_L, fmax_F, fmax_D},
    [OP_FMIN] = {min_B, min_I, min_L, fmin_F, fmin_D},
    [OP_COPYSIGN] = FLT2(copysign),
    [OP_LOGICAL_XOR] = {lxor_B},
    [OP_BITWISE_AND] = {band_B, band_I, band_L},
    [OP_BITWISE_OR] = {bor_B, bor_I, bor_L},
    [OP_BITWISE_XOR] = {bxor_B, bxor_I, bxor_L},
    [OP_LEFT_SHIFT] = {NULL, shl_I, shl_L},
    [OP_RIGHT_SHIFT] = {NULL, shr_I, shr_L},
    [OP_FLOAT_POWER] = {NULL, NULL, NULL, NULL, pow_D},
    [OP_HEAVISIDE] = FLT2(heavi),
    [OP_CLIP] = ALL5(clip),
};

/* ---------------------------------------------------------------------------
 * Program evaluation. */

enum {
    REG_UNUSED,
    REG_INPLACE, /* an input with the output's size: read where it lies */
    REG_GATHER,  /* a broadcast input: copied into a block buffer */
    REG_FIXED,   /* a constant or a one-element input: a buffer filled once */
    REG_TEMP,    /* written by an instruction into a block buffer */
    REG_OUT,     /* written by an instruction into the caller's block */
};

/* A broadcast input against the output, dimensions collapsed: output
 * dimensions `dim`, the input's element strides `str` (0 where it
 * broadcasts). The last stride is 0 or 1. */
typedef struct {
    int nd;
    int64_t dim[MR_MAXDIM];
    int64_t str[MR_MAXDIM];
} bcast_t;

typedef struct {
    int kind;
    size_t es;
    const char *base; /* REG_INPLACE, REG_GATHER: the input's data */
    char *buf;        /* REG_GATHER, REG_FIXED, REG_TEMP */
    bcast_t bc;
} reg_t;

typedef struct {
    ew_fn fn;
    bool int_power; /* refuse negative exponents before running */
    dtype_t dt;
    int dst, a, b, c;
} cins_t;

struct ew_ctx {
    int n_regs;
    int n_ins;
    int out;
    bool out_written;
    size_t out_es;
    reg_t reg[EW_MAX_REGS];
    cins_t ins[EW_MAX_INS];
    char *mem;
};

static void bcast_init(bcast_t *bc, const shape_t *in, const shape_t *out)
{
    int64_t istr[MR_MAXDIM];
    int64_t s = 1;
    int shift = out->ndim - in->ndim;
    for (int d = out->ndim - 1; d >= 0; d--) {
        int id = d - shift;
        if (id >= 0 && in->d[id] == out->d[d]) {
            istr[d] = s;
            s *= in->d[id];
        } else {
            istr[d] = 0;
        }
    }
    bc->nd = 0;
    for (int d = 0; d < out->ndim; d++) {
        if (out->d[d] == 1) continue;
        if (bc->nd > 0 && bc->str[bc->nd - 1] == istr[d] * out->d[d]) {
            bc->dim[bc->nd - 1] *= out->d[d];
            bc->str[bc->nd - 1] = istr[d];
            continue;
        }
        bc->dim[bc->nd] = out->d[d];
        bc->str[bc->nd] = istr[d];
        bc->nd++;
    }
    if (bc->nd == 0) {
        bc->nd = 1;
        bc->dim[0] = 1;
        bc->str[0] = 0;
    }
}

static void fill_val(char *dst, const char *src, int64_t n, size_t es)
{
    if (es == 8) {
        uint64_t v, *d = (uint64_t *)(void *)dst;
        memcpy(&v, src, 8);
        for (int64_t i = 0; i < n; i++)
            d[i] = v;
    } else if (es == 4) {
        uint32_t v, *d = (uint32_t *)(void *)dst;
        memcpy(&v, src, 4);
        for (int64_t i = 0; i < n; i++)
            d[i] = v;
    } else if (es == 2) {
        uint16_t v, *d = (uint16_t *)(void *)dst;
        memcpy(&v, src, 2);
        for (int64_t i = 0; i < n; i++)
            d[i] = v;
    } else {
        memset(dst, *src, (size_t)n);
    }
}

/* Copies the input's values for flat output positions [start, start + n). */
static void gather(const bcast_t *bc, const char *base, size_t es, int64_t start, int64_t n,
                   char *dst)
{
    int64_t idx[MR_MAXDIM];
    int64_t off = 0, rem = start;
    int last = bc->nd - 1;
    for (int d = last; d >= 0; d--) {
        idx[d] = rem % bc->dim[d];
        rem /= bc->dim[d];
        off += idx[d] * bc->str[d];
    }
    while (n > 0) {
        int64_t run = bc->dim[last] - idx[last];
        if (run > n) run = n;
        if (bc->str[last])
            memcpy(dst, base + (size_t)off * es, (size_t)run * es);
        else
            fill_val(dst, base + (size_t)off * es, run, es);
        dst += (size_t)run * es;
        n -= run;
        off += run * bc->str[last];
        idx[last] += run;
        for (int d = last; d > 0 && idx[d] == bc->dim[d]; d--) {
            off -= bc->dim[d] * bc->str[d];
            idx[d] = 0;
            idx[d - 1]++;
            off += bc->str[d - 1];
        }
    }
}

ew_ctx_t *ew_ctx_create(const ew_prog_t *prog, const arr_t *inputs, const shape_t *shape, char *err,
                        size_t errlen)
{
    ew_ctx_t *c = kern_xmalloc(sizeof *c);
    memset(c, 0, sizeof *c);
    c->n_regs = prog->n_regs;
    c->n_ins = prog->n_ins;
    c->out = prog->out;
    c->out_es = dt_size((dtype_t)prog->reg_dt[prog->out]);

    int64_t total = shape_size(shape);
    int last_use[EW_MAX_REGS];
    bool used[EW_MAX_REGS] = {false};
    for (int r = 0; r < prog->n_regs; r++)
        last_use[r] = -1;
    for (int i = 0; i < prog->n_ins; i++) {
        const ew_ins_t *in = &prog->ins[i];
        int src[3] = {in->a, in->b, in->c};
        for (int k = 0; k < 3; k++) {
            if (src[k] >= 0) {
                used[src[k]] = true;
                last_use[src[k]] = i;
            }
        }
    }
    used[prog->out] = true;

    /* Buffers: one per gathered or fixed register, and slots shared by
     * temporaries whose lifetimes do not overlap. */
    int n_fixed = 0;
    for (int r = 0; r < prog->n_regs; r++) {
        reg_t *g = &c->reg[r];
        g->es = dt_size((dtype_t)prog->reg_dt[r]);
        if (!used[r]) continue;
        if (r < prog->n_inputs) {
            const arr_t *a = &inputs[r];
            int64_t sz = shape_size(&a->shape);
            g->base = a->data;
            if (sz == total) {
                g->kind = REG_INPLACE;
            } else if (sz == 1) {
                g->kind = REG_FIXED;
                n_fixed++;
            } else {
                g->kind = REG_GATHER;
                bcast_init(&g->bc, &a->shape, shape);
                n_fixed++;
            }
        } else if (prog->is_const[r]) {
            g->kind = REG_FIXED;
            n_fixed++;
        }
    }
    int slot_of[EW_MAX_REGS];
    int slot_free_at[EW_MAX_INS]; /* instruction after which a slot is free */
    int n_slots = 0;
    for (int i = 0; i < prog->n_ins; i++) {
        const ew_ins_t *in = &prog->ins[i];
        int d = in->dst;
        if (d == prog->out) {
            c->reg[d].kind = REG_OUT;
            c->out_written = true;
        } else {
            int s = -1;
            for (int k = 0; k < n_slots; k++) {
                if (slot_free_at[k] < i) {
                    s = k;
                    break;
                }
            }
            if (s < 0) s = n_slots++;
            /* A dead result (never read) still needs somewhere to go. */
            slot_free_at[s] = last_use[d] > i ? last_use[d] : i;
            slot_of[d] = s;
            c->reg[d].kind = REG_TEMP;
        }
        cins_t *ci = &c->ins[i];
        ci->dt = (dtype_t)in->dt;
        ci->dst = d;
        ci->a = in->a;
        ci->b = in->b;
        ci->c = in->c;
        ci->int_power = in->op == OP_POWER && dt_is_int(ci->dt);
        if (in->op == OP_ASTYPE)
            ci->fn = ew_cast_loop((dtype_t)prog->reg_dt[in->a], (dtype_t)in->dt);
        else if (in->op == OP_WHERE && in->dt < DT_NTYPES)
            ci->fn = where_loop((dtype_t)in->dt);
        else if ((unsigned)in->op < OP_COUNT && dt_is_small((dtype_t)in->dt))
            ci->fn = ew_int_loop((op_t)in->op, (dtype_t)in->dt);
        else if ((unsigned)in->op < OP_COUNT && in->dt < DT_NTYPES)
            ci->fn = op_table[in->op][in->dt];
        if (!ci->fn) {
            snprintf(err, errlen, "no element-wise kernel for %s on %s", op_name((op_t)in->op),
                     in->dt < DT_NTYPES ? dt_name((dtype_t)in->dt) : "?");
            free(c);
            return NULL;
        }
    }

    const size_t bufsz = (size_t)EW_BLOCK * 8;
    c->mem = kern_xmalloc(bufsz * (size_t)(n_fixed + n_slots));
    char *p = c->mem;
    for (int r = 0; r < prog->n_regs; r++) {
        reg_t *g = &c->reg[r];
        if (g->kind == REG_FIXED) {
            g->buf = p;
            p += bufsz;
            if (r < prog->n_inputs)
                memcpy(g->buf, g->base, g->es);
            else
                sc_store(prog->konst[r], (dtype_t)prog->reg_dt[r], g->buf);
            fill_val(g->buf, g->buf, EW_BLOCK, g->es);
        } else if (g->kind == REG_GATHER) {
            g->buf = p;
            p += bufsz;
        }
    }
    for (int r = 0; r < prog->n_regs; r++) {
        if (c->reg[r].kind == REG_TEMP) c->reg[r].buf = p + bufsz * (size_t)slot_of[r];
    }
    return c;
}

static bool any_negative(dtype_t dt, const void *v, int64_t n)
{
    int neg = 0;
    if (dt_is_unsigned(dt)) return false;
    if (dt == DT_INT8 || dt == DT_INT16) {
        for (int64_t i = 0; i < n; i++)
            neg |= dt_read_i64(dt, v, i) < 0;
    } else if (dt == DT_INT32) {
        const int32_t *x = v;
        for (int64_t i = 0; i < n; i++)
            neg |= x[i] < 0;
    } else {
        const int64_t *x = v;
        for (int64_t i = 0; i < n; i++)
            neg |= x[i] < 0;
    }
    return neg != 0;
}

int ew_ctx_block(ew_ctx_t *c, int64_t start, int64_t n, void *dst, char *err, size_t errlen)
{
    const void *ptr[EW_MAX_REGS];
    for (int r = 0; r < c->n_regs; r++) {
        reg_t *g = &c->reg[r];
        switch (g->kind) {
        case REG_INPLACE:
            ptr[r] = g->base + (size_t)start * g->es;
            break;
        case REG_GATHER:
            gather(&g->bc, g->base, g->es, start, n, g->buf);
            ptr[r] = g->buf;
            break;
        case REG_FIXED:
        case REG_TEMP:
            ptr[r] = g->buf;
            break;
        case REG_OUT:
            ptr[r] = dst;
            break;
        default:
            ptr[r] = NULL;
            break;
        }
    }
    for (int i = 0; i < c->n_ins; i++) {
        const cins_t *ci = &c->ins[i];
        const void *b = ci->b >= 0 ? ptr[ci->b] : NULL;
        if (ci->int_power && any_negative(ci->dt, b, n)) {
            snprintf(err, errlen, "integers to negative integer powers are not allowed");
            return -1;
        }
        ci->fn(n, (void *)ptr[ci->dst], ptr[ci->a], b, ci->c >= 0 ? ptr[ci->c] : NULL);
    }
    if (!c->out_written) memcpy(dst, ptr[c->out], (size_t)n * c->out_es);
    return 0;
}

void ew_ctx_free(ew_ctx_t *c)
{
    if (!c) return;
    free(c->mem);
    free(c);
}

int kern_ew_eval(const ew_prog_t *prog, const arr_t *inputs, arr_t *out, char *err, size_t errlen)
{
    ew_ctx_t *c = ew_ctx_create(prog, inputs, &out->shape, err, errlen);
    if (!c) return -1;
    int64_t total = shape_size(&out->shape);
    size_t es = dt_size(out->dt);
    int rc = 0;
    for (int64_t s = 0; s < total && rc == 0; s += EW_BLOCK) {
        int64_t n = total - s < EW_BLOCK ? total - s : EW_BLOCK;
        rc = ew_ctx_block(c, s, n, (char *)out->data + (size_t)s * es, err, errlen);
    }
    ew_ctx_free(c);
    return rc;
}
