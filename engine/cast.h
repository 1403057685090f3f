/* cast.h: conversions that match numpy on x86-64 without undefined behaviour.
 * Out-of-range and NaN floats become the integer type's minimum, as the
 * cvttsd2si instruction numpy's C casts compile to gives. */
#ifndef MARS_CAST_H
#define MARS_CAST_H

#include <math.h>
#include <stdint.h>

static inline int64_t cast_f64_i64(double x)
{
    /* 2^63 is exactly representable; [-2^63, 2^63) converts exactly. */
    if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return INT64_MIN;
    return (int64_t)x;
}

static inline int32_t cast_f64_i32(double x)
{
    if (!(x > -2147483649.0 && x < 2147483648.0)) return INT32_MIN;
    return (int32_t)x;
}

/* int64 -> int32 keeps the low 32 bits, as C on two's complement does. */
static inline int32_t cast_i64_i32(int64_t x)
{
    return (int32_t)(uint32_t)(uint64_t)x;
}

/* float -> the narrow integer types, as gcc's x86-64 code for numpy's C
 * casts: int8, int16, uint8 and uint16 through a 32-bit conversion, uint32
 * through a 64-bit one, each keeping the low bits. */
static inline int64_t cast_f64_narrow(double x, int bits)
{
    int64_t v = bits == 32 ? cast_f64_i64(x) : (int64_t)cast_f64_i32(x);
    return v;
}

/* float -> uint64: below 2**63 as int64 (negatives keep their bits, as
 * numpy's astype(np.uint64) of -1.0 gives 2**64 - 1), [2**63, 2**64) by
 * subtracting 2**63 first. */
static inline uint64_t cast_f64_u64(double x)
{
    if (x >= 9223372036854775808.0 && x < 18446744073709551616.0)
        return (uint64_t)(int64_t)(x - 9223372036854775808.0) ^ (UINT64_C(1) << 63);
    return (uint64_t)cast_f64_i64(x);
}

#endif
