/* ew_int.c: conversions between every pair of dtypes, and the element-wise
 * loops of the small integer dtypes (int8, int16, uint8, uint16, uint32,
 * uint64) with numpy 1.24's semantics on x86-64: arithmetic wraps (computed
 * in uint64, then truncated), x // 0 and x % 0 give 0, shifts past the
 * width shift everything out, and float-to-integer conversions are those of
 * gcc's code for numpy's C casts (engine/cast.h). */
#include "level.h" /* first: renames the external functions per CPU level */
#include <math.h>

#include "../cast.h"
#include "ew_loops.h"

/* ---- conversions ----------------------------------------------------------
 * Suffixes in enum order: bo i4 i8 f4 f8 i1 i2 u1 u2 u4 u8. */
#define CAST(name, T, TO, EXPR) UN(name, T, TO, EXPR)
/* from bool or an integer: the low bits of the value (sign-extended) */
#define CASTS_INT(S, T)                                                                            \
    CAST(c_##S##_bo, T, uint8_t, x != 0)                                                           \
    CAST(c_##S##_i4, T, int32_t, (int32_t)(uint64_t)x)                                             \
    CAST(c_##S##_i8, T, int64_t, (int64_t)(uint64_t)x)                                             \
    CAST(c_##S##_f4, T, float, (float)x)                                                           \
    CAST(c_##S##_f8, T, double, (double)x)                                                         \
    CAST(c_##S##_i1, T, int8_t, (int8_t)(uint64_t)x)                                               \
    CAST(c_##S##_i2, T, int16_t, (int16_t)(uint64_t)x)                                             \
    CAST(c_##S##_u1, T, uint8_t, (uint8_t)(uint64_t)x)                                             \
    CAST(c_##S##_u2, T, uint16_t, (uint16_t)(uint64_t)x)                                           \
    CAST(c_##S##_u4, T, uint32_t, (uint32_t)(uint64_t)x)                                           \
    CAST(c_##S##_u8, T, uint64_t, (uint64_t)x)
/* from a float: truncated toward zero, out of range as x86-64 gives it */
#define CASTS_FLT(S, T)                                                                            \
    CAST(c_##S##_bo, T, uint8_t, x != 0)                                                           \
    CAST(c_##S##_i4, T, int32_t, cast_f64_i32((double)x))                                          \
    CAST(c_##S##_i8, T, int64_t, cast_f64_i64((double)x))                                          \
    CAST(c_##S##_f4, T, float, (float)x)                                                           \
    CAST(c_##S##_f8, T, double, (double)x)                                                         \
    CAST(c_##S##_i1, T, int8_t, (int8_t)cast_f64_narrow((double)x, 8))                             \
    CAST(c_##S##_i2, T, int16_t, (int16_t)cast_f64_narrow((double)x, 16))                          \
    CAST(c_##S##_u1, T, uint8_t, (uint8_t)cast_f64_narrow((double)x, 8))                           \
    CAST(c_##S##_u2, T, uint16_t, (uint16_t)cast_f64_narrow((double)x, 16))                        \
    CAST(c_##S##_u4, T, uint32_t, (uint32_t)cast_f64_narrow((double)x, 32))                        \
    CAST(c_##S##_u8, T, uint64_t, cast_f64_u64((double)x))
CASTS_INT(bo, uint8_t)
CASTS_INT(i4, int32_t)
CASTS_INT(i8, int64_t)
CASTS_FLT(f4, float)
CASTS_FLT(f8, double)
CASTS_INT(i1, int8_t)
CASTS_INT(i2, int16_t)
CASTS_INT(u1, uint8_t)
CASTS_INT(u2, uint16_t)
CASTS_INT(u4, uint32_t)
CASTS_INT(u8, uint64_t)

#define CAST_ROW(S)                                                                                \
    {                                                                                              \
        c_##S##_bo, c_##S##_i4, c_##S##_i8, c_##S##_f4, c_##S##_f8, c_##S##_i1, c_##S##_i2,        \
            c_##S##_u1, c_##S##_u2, c_##S##_u4, c_##S##_u8                                         \
    }
static const ew_fn cast_table[DT_NTYPES][DT_NTYPES] = {
    CAST_ROW(bo), CAST_ROW(i4), CAST_ROW(i8), CAST_ROW(f4), CAST_ROW(f8), CAST_ROW(i1),
    CAST_ROW(i2), CAST_ROW(u1), CAST_ROW(u2), CAST_ROW(u4), CAST_ROW(u8),
};

ew_fn ew_cast_loop(dtype_t from, dtype_t to)
{
    return from < DT_NTYPES && to < DT_NTYPES ? cast_table[from][to] : NULL;
}

/* ---- the small integer dtypes ---------------------------------------------
 * Shared by signed and unsigned: wrapping arithmetic, comparisons, bitwise
 * ops and clip (where selects by element size: ew.c). CONV converts a
 * double (reciprocal, round); ST is the signed type of T's width (round's
 * decimals arrive as a T). */
#define WRAP(T, e) ((T)(uint64_t)(e))
#define INT_COMMON(S, T, ST, BITS, CONV)                                                           \
    BIN(add_##S, T, T, WRAP(T, (uint64_t)x + (uint64_t)y))                                         \
    BIN(sub_##S, T, T, WRAP(T, (uint64_t)x - (uint64_t)y))                                         \
    BIN(mul_##S, T, T, WRAP(T, (uint64_t)x *(uint64_t)y))                                          \
    BIN(max_##S, T, T, x > y ? x : y)                                                              \
    BIN(min_##S, T, T, x < y ? x : y)                                                              \
    BIN(eq_##S, T, uint8_t, x == y)                                                                \
    BIN(ne_##S, T, uint8_t, x != y)                                                                \
    BIN(lt_##S, T, uint8_t, x < y)                                                                 \
    BIN(le_##S, T, uint8_t, x <= y)                                                                \
    BIN(gt_##S, T, uint8_t, x > y)                                                                 \
    BIN(ge_##S, T, uint8_t, x >= y)                                                                \
    UN(neg_##S, T, T, WRAP(T, 0u - (uint64_t)x))                                                   \
    UN(sq_##S, T, T, WRAP(T, (uint64_t)x *(uint64_t)x))                                            \
    UN(pos_##S, T, T, x)                                                                           \
    UN(zero_##S, T, uint8_t, 0 * x)                                                                \
    UN(one_##S, T, uint8_t, 1 + 0 * x)                                                             \
    UN(recip_##S, T, T, (T)CONV(1.0 / (double)x))                                                  \
    UN(inv_##S, T, T, (T)~x)                                                                       \
    BIN(band_##S, T, T, (T)(x & y))                                                                \
    BIN(bor_##S, T, T, (T)(x | y))                                                                 \
    BIN(bxor_##S, T, T, (T)(x ^ y))                                                                \
    BIN(shl_##S, T, T, (uint64_t)y < BITS ? WRAP(T, (uint64_t)x << y) : 0)                         \
    BIN(pow_##S, T, T, ipow_##S(x, y))                                                             \
    BIN(fdiv_##S, T, T, ifdiv_##S(x, y))                                                           \
    BIN(mod_##S, T, T, imod_##S(x, y))                                                             \
    CLIP(clip_##S, T, IMAX, IMIN)                                                                  \
    static void round_##S(int64_t n, void *restrict dv, const void *restrict av,                   \
                          const void *restrict bv, const void *restrict cv)                        \
    {                                                                                              \
        T *restrict d = dv;                                                                        \
        const T *restrict a = av;                                                                  \
        (void)cv;                                                                                  \
        int64_t dec = bv ? (int64_t)(ST)((const T *)bv)[0] : 0;                                    \
        if (dec >= 0) {                                                                            \
            memcpy(d, a, (size_t)n * sizeof(T));                                                   \
            return;                                                                                \
        }                                                                                          \
        double f = 1.0;                                                                            \
        for (int64_t k = 0; k < -dec && k < 400; k++)                                              \
            f *= 10.;                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            d[i] = (T)CONV(rint((double)a[i] / f) * f);                                            \
    }

/* Integer power by squaring, wrapping; negative exponents were refused. */
#define IPOW(S, T)                                                                                 \
    static inline T ipow_##S(T base, T e)                                                          \
    {                                                                                              \
        if (e == 0 || base == 1) return 1;                                                         \
        uint64_t b = (uint64_t)base, out = (e & 1) ? b : 1;                                        \
        e = (T)(e >> 1);                                                                           \
        while (e > 0) {                                                                            \
            b *= b;                                                                                \
            if (e & 1) out *= b;                                                                   \
            e = (T)(e >> 1);                                                                       \
        }                                                                                          \
        return WRAP(T, out);                                                                       \
    }

/* Signed: Python's floor division and modulo signs; MIN // -1 wraps. */
#define SIGNED_INT(S, T, ST, BITS, CONV)                                                           \
    IPOW(S, T)                                                                                     \
    static inline T ifdiv_##S(T x, T y)                                                            \
    {                                                                                              \
        if (y == 0) return 0;                                                                      \
        if (y == -1) return WRAP(T, 0u - (uint64_t)x);                                             \
        T q = (T)(x / y);                                                                          \
        if (x % y != 0 && ((x < 0) != (y < 0))) q--;                                               \
        return q;                                                                                  \
    }                                                                                              \
    static inline T imod_##S(T x, T y)                                                             \
    {                                                                                              \
        if (y == 0 || y == -1) return 0;                                                           \
        T r = (T)(x % y);                                                                          \
        if (r != 0 && ((r < 0) != (y < 0))) r = (T)(r + y);                                        \
        return r;                                                                                  \
    }                                                                                              \
    INT_COMMON(S, T, ST, BITS, CONV)                                                               \
    UN(abs_##S, T, T, x < 0 ? WRAP(T, 0u - (uint64_t)x) : x)                                       \
    UN(sign_##S, T, T, (T)((x > 0) - (x < 0)))                                                     \
    BIN(fmod_##S, T, T, (y == 0 || y == -1) ? 0 : (T)(x % y))                                      \
    BIN(shr_##S, T, T, (uint64_t)y < BITS ? (T)(x >> y) : x < 0 ? -1 : 0)

#define UNSIGNED_INT(S, T, ST, BITS, CONV)                                                         \
    IPOW(S, T)                                                                                     \
    static inline T ifdiv_##S(T x, T y)                                                            \
    {                                                                                              \
        return y == 0 ? 0 : (T)(x / y);                                                            \
    }                                                                                              \
    static inline T imod_##S(T x, T y)                                                             \
    {                                                                                              \
        return y == 0 ? 0 : (T)(x % y);                                                            \
    }                                                                                              \
    INT_COMMON(S, T, ST, BITS, CONV)                                                               \
    UN(abs_##S, T, T, x)                                                                           \
    UN(sign_##S, T, T, (T)(x > 0))                                                                 \
    BIN(fmod_##S, T, T, y == 0 ? 0 : (T)(x % y))                                                   \
    BIN(shr_##S, T, T, (uint64_t)y < BITS ? (T)(x >> y) : 0)

#define CONV_N8(v) cast_f64_narrow(v, 8)
#define CONV_N16(v) cast_f64_narrow(v, 16)
#define CONV_N32(v) cast_f64_narrow(v, 32)
SIGNED_INT(i1, int8_t, int8_t, 8u, CONV_N8)
SIGNED_INT(i2, int16_t, int16_t, 16u, CONV_N16)
UNSIGNED_INT(u1, uint8_t, int8_t, 8u, CONV_N8)
UNSIGNED_INT(u2, uint16_t, int16_t, 16u, CONV_N16)
UNSIGNED_INT(u4, uint32_t, int32_t, 32u, CONV_N32)
UNSIGNED_INT(u8, uint64_t, int64_t, 64u, cast_f64_u64)

typedef struct {
    ew_fn i1, i2, u1, u2, u4, u8;
} small_row_t;

#define ROW(p)                                                                                     \
    {                                                                                              \
        p##_i1, p##_i2, p##_u1, p##_u2, p##_u4, p##_u8                                             \
    }
static const small_row_t small_table[OP_COUNT] = {
    [OP_ADD] = ROW(add),           [OP_SUBTRACT] = ROW(sub),     [OP_MULTIPLY] = ROW(mul),
    [OP_FLOOR_DIVIDE] = ROW(fdiv), [OP_MOD] = ROW(mod),          [OP_REMAINDER] = ROW(mod),
    [OP_FMOD] = ROW(fmod),         [OP_POWER] = ROW(pow),        [OP_MAXIMUM] = ROW(max),
    [OP_MINIMUM] = ROW(min),       [OP_FMAX] = ROW(max),         [OP_FMIN] = ROW(min),
    [OP_EQUAL] = ROW(eq),          [OP_NOT_EQUAL] = ROW(ne),     [OP_LESS] = ROW(lt),
    [OP_LESS_EQUAL] = ROW(le),     [OP_GREATER] = ROW(gt),       [OP_GREATER_EQUAL] = ROW(ge),
    [OP_NEGATIVE] = ROW(neg),      [OP_ABS] = ROW(abs),          [OP_SQUARE] = ROW(sq),
    [OP_SIGN] = ROW(sign),         [OP_RECIPROCAL] = ROW(recip), [OP_POSITIVE] = ROW(pos),
    [OP_ISNAN] = ROW(zero),        [OP_ISINF] = ROW(zero),       [OP_ISNEGINF] = ROW(zero),
    [OP_ISPOSINF] = ROW(zero),     [OP_ISFINITE] = ROW(one),     [OP_INVERT] = ROW(inv),
    [OP_ROUND] = ROW(round),       [OP_AROUND] = ROW(round),     [OP_BITWISE_AND] = ROW(band),
    [OP_BITWISE_OR] = ROW(bor),    [OP_BITWISE_XOR] = ROW(bxor), [OP_LEFT_SHIFT] = ROW(shl),
    [OP_RIGHT_SHIFT] = ROW(shr),   [OP_CLIP] = ROW(clip),
};

ew_fn ew_int_loop(op_t op, dtype_t dt)
{
    if ((unsigned)op >= OP_COUNT) return NULL;
    const small_row_t *r = &small_table[op];
    switch (dt) {
    case DT_INT8:
        return r->i1;
    case DT_INT16:
        return r->i2;
    case DT_UINT8:
        return r->u1;
    case DT_UINT16:
        return r->u2;
    case DT_UINT32:
        return r->u4;
    case DT_UINT64:
        return r->u8;
    default:
        return NULL;
    }
}
