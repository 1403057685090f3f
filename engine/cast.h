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

#endif
