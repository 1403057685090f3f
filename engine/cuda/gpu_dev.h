/* gpu_dev.h: the element-level code of the CUDA kernels (gpu_job.cu):
 * values and casts, the element-wise interpreter, the reductions'
 * accumulators, and one work item of each kernel. Compiled by nvcc for
 * the device and, as plain C++, by gpu_emu.cc, which runs the same items
 * on the host (the emulated device of build/emu, docs/gpu.md), so that
 * this code is tested on machines without a GPU. */
#ifndef MARS_GPU_DEV_H
#define MARS_GPU_DEV_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../kern/quant_math.h"
#include "../kern/rand_math.h"
#include "gpu.h"

#ifdef __CUDACC__
#define GD __host__ __device__ inline
#define GDI __host__ __device__ __forceinline__
#else
#define GD inline
#define GDI inline

#endif

/* ------------------------------------------------------------------ values */

typedef unsigned long long u64;

GDI double AD(u64 u)
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)u);
#else
    double x;
    memcpy(&x, &u, 8);
    return x;
#endif
}
GDI u64 UD(double x)
{
#ifdef __CUDA_ARCH__
    return (u64)__double_as_longlong(x);
#else
    u64 u;
    memcpy(&u, &x, 8);
    return u;
#endif
}
GDI float AF(u64 u)
{
#ifdef __CUDA_ARCH__
    return __int_as_float((int)(unsigned)u);
#else
    unsigned w = (unsigned)u;
    float x;
    memcpy(&x, &w, 4);
    return x;
#endif
}
GDI u64 UF(float x)
{
#ifdef __CUDA_ARCH__
    return (u64)(unsigned)__float_as_int(x);
#else
    unsigned w;
    memcpy(&w, &x, 4);
    return w;
#endif
}
/* conversions rounded to nearest (the host's default mode) */
GDI float ll2f(long long x)
{
#ifdef __CUDA_ARCH__
    return __ll2float_rn(x);
#else
    return (float)x;
#endif
}
GDI double ll2d(long long x)
{
#ifdef __CUDA_ARCH__
    return __ll2double_rn(x);
#else
    return (double)x;
#endif
}
GDI float d2f(double x)
{
#ifdef __CUDA_ARCH__
    return __double2float_rn(x);
#else
    return (float)x;
#endif
}
/* the high 64 bits of a * b */
GDI u64 umul64hi(u64 a, u64 b)
{
#ifdef __CUDA_ARCH__
    return __umul64hi(a, b);
#else
    return (u64)(((unsigned __int128)a * b) >> 64);
#endif
}
GDI long long AL(u64 u)
{
    return (long long)u;
}
GDI int AI(u64 u)
{
    return (int)(unsigned)u;
}
GDI u64 UI(int x)
{
    return (u64)(unsigned)x;
}

/* A value in a register: its bits, zero-extended to 64 (bool 0 or 1). */
GDI int dt_bits(int dt)
{
    switch (dt) {
    case GDT_BOOL:
    case GDT_INT8:
    case GDT_UINT8:
        return 8;
    case GDT_INT16:
    case GDT_UINT16:
        return 16;
    case GDT_INT32:
    case GDT_UINT32:
    case GDT_FLOAT32:
        return 32;
    default:
        return 64;
    }
}

/* An integer register's value (bool, and the types below 64 bits, signed
 * or not: exactly; uint64: its bits). */
GDI long long ival(int dt, u64 v)
{
    switch (dt) {
    case GDT_BOOL:
        return v != 0;
    case GDT_INT8:
        return (signed char)(unsigned char)v;
    case GDT_INT16:
        return (short)(unsigned short)v;
    case GDT_INT32:
        return (int)(unsigned)v;
    case GDT_UINT8:
        return (unsigned char)v;
    case GDT_UINT16:
        return (unsigned short)v;
    case GDT_UINT32:
        return (unsigned)v;
    default:
        return (long long)v;
    }
}

/* The register of integer dtype dt holding r's low bits (bool: r != 0). */
GDI u64 iwrap(int dt, long long r)
{
    int bits = dt_bits(dt);
    if (dt == GDT_BOOL) return r != 0;
    return bits == 64 ? (u64)r : (u64)r & ((1ULL << bits) - 1);
}

GDI u64 load(const void *p, int dt, long long i)
{
    switch (dt_bits(dt)) {
    case 8:
        return dt == GDT_BOOL ? ((const unsigned char *)p)[i] != 0
                              : (u64)((const unsigned char *)p)[i];
    case 16:
        return (u64)((const unsigned short *)p)[i];
    case 32:
        return (u64)((const unsigned *)p)[i];
    default:
        return ((const u64 *)p)[i];
    }
}

GDI void store(void *p, int dt, long long i, u64 v)
{
    switch (dt_bits(dt)) {
    case 8:
        ((unsigned char *)p)[i] = dt == GDT_BOOL ? (unsigned char)(v != 0) : (unsigned char)v;
        break;
    case 16:
        ((unsigned short *)p)[i] = (unsigned short)v;
        break;
    case 32:
        ((unsigned *)p)[i] = (unsigned)v;
        break;
    default:
        ((u64 *)p)[i] = v;
    }
}

/* engine/cast.h's conversions */
GDI long long f64_i64(double x)
{
    if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return (long long)(1ULL << 63);
    return (long long)x;
}
GDI int f64_i32(double x)
{
    if (!(x > -2147483649.0 && x < 2147483648.0)) return (int)0x80000000u;
    return (int)x;
}
GDI u64 f64_u64(double x)
{
    if (x >= 9223372036854775808.0 && x < 18446744073709551616.0)
        return (u64)(long long)(x - 9223372036854775808.0) ^ (1ULL << 63);
    return (u64)f64_i64(x);
}
GDI double u2d_rn(u64 x)
{
#ifdef __CUDA_ARCH__
    return __ull2double_rn(x);
#else
    return (double)x;
#endif
}
GDI float u2f_rn(u64 x)
{
#ifdef __CUDA_ARCH__
    return __ull2float_rn(x);
#else
    return (float)x;
#endif
}

/* ew_int.c's and cast.h's conversions between every pair of dtypes:
 * integers keep their low bits; floats truncate toward zero (int8 through
 * uint16 through a 32-bit conversion, uint32 through a 64-bit one, uint64
 * as cast_f64_u64), out of range as x86-64 gives it. */
GD u64 cast(int from, int to, u64 v)
{
    if (from == to) return v;
    if (from != GDT_FLOAT32 && from != GDT_FLOAT64) {
        if (from == GDT_UINT64) {
            if (to == GDT_FLOAT32) return UF(u2f_rn(v));
            if (to == GDT_FLOAT64) return UD(u2d_rn(v));
            return iwrap(to, (long long)v);
        }
        long long x = ival(from, v);
        if (to == GDT_FLOAT32) return UF(ll2f(x));
        if (to == GDT_FLOAT64) return UD(ll2d(x));
        return iwrap(to, x);
    }
    double x = from == GDT_FLOAT32 ? (double)AF(v) : AD(v);
    switch (to) {
    case GDT_BOOL:
        return x != 0;
    case GDT_FLOAT32:
        return UF(d2f(x));
    case GDT_FLOAT64:
        return UD(x);
    case GDT_INT64:
        return (u64)f64_i64(x);
    case GDT_UINT64:
        return f64_u64(x);
    case GDT_UINT32:
        return iwrap(to, f64_i64(x));
    default: /* int32, int8, int16, uint8, uint16 */
        return iwrap(to, f64_i32(x));
    }
}

template <typename T> GDI u64 UT(T x);
template <> GDI u64 UT<double>(double x)
{
    return UD(x);
}
template <> GDI u64 UT<float>(float x)
{
    return UF(x);
}
template <typename T> GDI T AT(u64 u);
template <> GDI double AT<double>(u64 u)
{
    return AD(u);
}
template <> GDI float AT<float>(u64 u)
{
    return AF(u);
}

/* The comparisons, 0 or 1, for floats and integers alike. */
template <typename T> GDI u64 compare(int op, T x, T y)
{
    switch (op) {
    case GOP_EQ:
        return x == y;
    case GOP_NE:
        return x != y;
    case GOP_LT:
        return x < y;
    case GOP_LE:
        return x <= y;
    case GOP_GT:
        return x > y;
    default:
        return x >= y;
    }
}

/* kern/ew.c's power_of_ten for round: the table, then products by ten. */
GDI double power_of_ten(long long n)
{
    const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
    if (n < 9) return p10[n];
    double r = 1e9;
    for (long long i = 9; i < n && i < 400; i++)
        r *= 10.;
    return r;
}

/* kern/ew.c's FLT_DIVMOD: numpy's npy_divmod over fmod (exact on both
 * sides), so floor_divide and mod give the CPU's bits. */
template <typename T> GDI T flt_divmod(T a, T b, T *modulus)
{
    T mod = fmod(a, b);
    T div = (a - mod) / b;
    if (mod) {
        if ((b < 0) != (mod < 0)) {
            mod += b;
            div -= (T)1;
        }
    } else {
        mod = copysign((T)0, b);
    }
    T floordiv;
    if (div) {
        floordiv = floor(div);
        if (div - floordiv > (T)0.5) floordiv += (T)1;
    } else {
        floordiv = copysign((T)0, a / b);
    }
    *modulus = mod;
    return floordiv;
}

template <typename T> GD u64 fop(int op, u64 A, u64 B, u64 C, int has_b, int has_c)
{
    T x = AT<T>(A), y = AT<T>(B);
    switch (op) {
    case GOP_FDIV: {
        T m;
        return UT<T>(!y ? x / y : flt_divmod(x, y, &m));
    }
    case GOP_MOD: {
        T m;
        if (!y) return UT<T>(fmod(x, y));
        flt_divmod(x, y, &m);
        return UT<T>(m);
    }
    case GOP_FMOD:
        return UT<T>(fmod(x, y));
    case GOP_ROUND: {
        /* kern/ew.c's ROUNDF: rint(x * f) / f, or rint(x / f) * f */
        long long dec = has_b ? (long long)y : 0;
        T f = (T)power_of_ten(dec < 0 ? -dec : dec);
        return UT<T>(dec >= 0 ? rint(x * f) / f : rint(x / f) * f);
    }
    case GOP_ADD:
        return UT<T>(x + y);
    case GOP_SUB:
        return UT<T>(x - y);
    case GOP_MUL:
        return UT<T>(x * y);
    case GOP_DIV:
        return UT<T>(x / y);
    case GOP_MAX:
        return UT<T>((x >= y || x != x) ? x : y);
    case GOP_MIN:
        return UT<T>((x <= y || x != x) ? x : y);
    case GOP_FMAX:
        return UT<T>(y != y ? x : x > y ? x : y);
    case GOP_FMIN:
        return UT<T>(y != y ? x : x < y ? x : y);
    case GOP_EQ:
    case GOP_NE:
    case GOP_LT:
    case GOP_LE:
    case GOP_GT:
    case GOP_GE:
        return compare(op, x, y);
    case GOP_NEG:
        return UT<T>(-x);
    case GOP_ABS:
        return UT<T>(fabs(x));
    case GOP_SQRT:
        return UT<T>(sqrt(x));
    case GOP_EXP:
        return UT<T>(exp(x));
    case GOP_LOG:
        return UT<T>(log(x));
    case GOP_LOG1P:
        return UT<T>(log1p(x));
    case GOP_EXPM1:
        return UT<T>(expm1(x));
    case GOP_SIN:
        return UT<T>(sin(x));
    case GOP_COS:
        return UT<T>(cos(x));
    case GOP_TAN:
        return UT<T>(tan(x));
    case GOP_TANH:
        return UT<T>(tanh(x));
    case GOP_SQUARE:
        return UT<T>(x * x);
    case GOP_SIGN:
        return UT<T>(x > 0 ? (T)1 : x < 0 ? (T)-1 : x == 0 ? (T)0 : x);
    case GOP_FLOOR:
        return UT<T>(floor(x));
    case GOP_CEIL:
        return UT<T>(ceil(x));
    case GOP_TRUNC:
        return UT<T>(trunc(x));
    case GOP_RINT:
        return UT<T>(rint(x));
    case GOP_ISNAN:
        return x != x;
    case GOP_ISFINITE:
        return isfinite(x) ? 1 : 0;
    case GOP_ISINF:
        return isinf(x) ? 1 : 0;
    case GOP_RECIP:
        return UT<T>((T)1 / x);
    case GOP_POS:
        return A;
    case GOP_CLIP: {
        /* engine/kern/ew_loops.h: min(max(x, lo), hi), NaN propagating */
        T r = x;
        if (has_b) r = r != r ? r : r > y ? r : y;
        if (has_c) {
            T z = AT<T>(C);
            r = r != r ? r : r < z ? r : z;
        }
        return UT<T>(r);
    }
    case GOP_POW:
        return UT<T>(pow(x, y));
    case GOP_ARCTAN2:
        return UT<T>(atan2(x, y));
    case GOP_HYPOT:
        return UT<T>(hypot(x, y));
    case GOP_LOG2:
        return UT<T>(log2(x));
    case GOP_LOG10:
        return UT<T>(log10(x));
    case GOP_SINH:
        return UT<T>(sinh(x));
    case GOP_COSH:
        return UT<T>(cosh(x));
    case GOP_ARCSIN:
        return UT<T>(asin(x));
    case GOP_ARCCOS:
        return UT<T>(acos(x));
    case GOP_ARCTAN:
        return UT<T>(atan(x));
    default:
        return 0;
    }
}

/* The ops whose uint64 result differs from int64's bits: orders,
 * division, the sign, right shifts, powers (exponents past 2^63), round. */
GDI bool u64_differs(int op)
{
    switch (op) {
    case GOP_MAX:
    case GOP_FMAX:
    case GOP_MIN:
    case GOP_FMIN:
    case GOP_LT:
    case GOP_LE:
    case GOP_GT:
    case GOP_GE:
    case GOP_ABS:
    case GOP_SIGN:
    case GOP_CLIP:
    case GOP_FDIV:
    case GOP_MOD:
    case GOP_FMOD:
    case GOP_SHR:
    case GOP_POW:
    case GOP_ROUND:
        return true;
    default:
        return false;
    }
}

GD u64 uop64(int op, u64 x, u64 y, u64 z, int has_b, int has_c);

/* Integers (computed in 64 bits, wrapping, then truncated to the dtype's
 * width: ew_int.c's and ew.c's results) and bool; uint64 in uop64. */
GD u64 iop(int op, int dt, u64 A, u64 B, u64 C, int has_b, int has_c)
{
    if (dt == GDT_UINT64 && u64_differs(op)) return uop64(op, A, B, C, has_b, has_c);
    long long x = ival(dt, A), y = ival(dt, B), z = ival(dt, C);
    long long r;
    switch (op) {
    case GOP_ADD:
        r = dt == GDT_BOOL ? (x | y) : (long long)((u64)x + (u64)y);
        break;
    case GOP_SUB:
        r = (long long)((u64)x - (u64)y);
        break;
    case GOP_MUL:
        r = dt == GDT_BOOL ? (x & y) : (long long)((u64)x * (u64)y);
        break;
    case GOP_MAX:
    case GOP_FMAX:
        r = x > y ? x : y;
        break;
    case GOP_MIN:
    case GOP_FMIN:
        r = x < y ? x : y;
        break;
    case GOP_EQ:
    case GOP_NE:
    case GOP_LT:
    case GOP_LE:
    case GOP_GT:
    case GOP_GE:
        return compare(op, x, y);
    case GOP_LAND:
        return x && y;
    case GOP_LOR:
        return x || y;
    case GOP_LXOR:
        return (x != 0) != (y != 0);
    case GOP_LNOT:
        return x == 0;
    case GOP_NEG:
        r = (long long)(0ULL - (u64)x);
        break;
    case GOP_ABS:
        r = x < 0 ? (long long)(0ULL - (u64)x) : x;
        break;
    case GOP_SQUARE:
        r = (long long)((u64)x * (u64)x);
        break;
    case GOP_SIGN:
        r = (x > 0) - (x < 0);
        break;
    case GOP_ISNAN:
    case GOP_ISINF:
        return 0;
    case GOP_ISFINITE:
        return 1;
    case GOP_POS:
        r = x;
        break;
    case GOP_BAND:
        r = x & y;
        break;
    case GOP_BOR:
        r = x | y;
        break;
    case GOP_BXOR:
        r = x ^ y;
        break;
    case GOP_CLIP:
        r = x;
        if (has_b) r = r > y ? r : y;
        if (has_c) r = r < z ? r : z;
        break;
    /* kern/ew.c's integer floor_divide, mod, fmod, shifts and invert: x // 0,
     * x % 0 give 0; the int32 results are the low 32 bits of these */
    case GOP_FDIV:
        if (y == 0)
            r = 0;
        else if (y == -1)
            r = (long long)(0ULL - (u64)x);
        else {
            r = x / y;
            if (x % y != 0 && ((x < 0) != (y < 0))) r--;
        }
        break;
    case GOP_MOD:
        if (y == 0 || y == -1)
            r = 0;
        else {
            r = x % y;
            if (r != 0 && ((r < 0) != (y < 0))) r += y;
        }
        break;
    case GOP_FMOD:
        r = (y == 0 || y == -1) ? 0 : x % y;
        break;
    case GOP_SHL:
        r = (u64)y < (u64)dt_bits(dt) ? (long long)((u64)x << y) : 0;
        break;
    case GOP_SHR:
        r = (u64)y < (u64)dt_bits(dt) ? x >> y : x < 0 ? -1 : 0;
        break;
    case GOP_INV:
        if (dt == GDT_BOOL) return x == 0;
        r = ~x;
        break;
    case GOP_POW: {
        /* kern/ew.c's INT_POW: by squaring, wrapping (y >= 0: prog_ok) */
        if (y == 0 || x == 1) {
            r = 1;
            break;
        }
        u64 b = (u64)x, out = (y & 1) ? b : 1;
        long long e = y >> 1;
        while (e > 0) {
            b *= b;
            if (e & 1) out *= b;
            e >>= 1;
        }
        r = (long long)out;
        break;
    }
    case GOP_ROUND: {
        /* kern/ew.c's ROUNDI: unchanged, or through float64; the decimals
         * arrive in the dtype, read as its signed type of the same width */
        long long dec = has_b ? ival(dt == GDT_UINT8    ? GDT_INT8
                                     : dt == GDT_UINT16 ? GDT_INT16
                                     : dt == GDT_UINT32 ? GDT_INT32
                                                        : dt,
                                     B)
                              : 0;
        if (dec >= 0) {
            r = x;
            break;
        }
        double f = power_of_ten(-dec);
        return cast(GDT_FLOAT64, dt, UD(rint((double)x / f) * f));
    }
    default:
        r = 0;
    }
    return iwrap(dt, r);
}

/* uint64's ops of u64_differs: ew_int.c's UNSIGNED_INT over 64 bits. */
GD u64 uop64(int op, u64 x, u64 y, u64 z, int has_b, int has_c)
{
    switch (op) {
    case GOP_MAX:
    case GOP_FMAX:
        return x > y ? x : y;
    case GOP_MIN:
    case GOP_FMIN:
        return x < y ? x : y;
    case GOP_LT:
    case GOP_LE:
    case GOP_GT:
    case GOP_GE:
        return compare(op, x, y);
    case GOP_ABS:
        return x;
    case GOP_SIGN:
        return x > 0;
    case GOP_CLIP: {
        u64 r = x;
        if (has_b) r = r > y ? r : y;
        if (has_c) r = r < z ? r : z;
        return r;
    }
    case GOP_FDIV:
        return y == 0 ? 0 : x / y;
    case GOP_MOD:
    case GOP_FMOD:
        return y == 0 ? 0 : x % y;
    case GOP_SHR:
        return y < 64 ? x >> y : 0;
    case GOP_POW: {
        if (y == 0 || x == 1) return 1;
        u64 b = x, out = (y & 1) ? b : 1, e = y >> 1;
        while (e > 0) {
            b *= b;
            if (e & 1) out *= b;
            e >>= 1;
        }
        return out;
    }
    default: { /* GOP_ROUND */
        long long dec = has_b ? (long long)y : 0;
        if (dec >= 0) return x;
        double f = power_of_ten(-dec);
        return f64_u64(rint(u2d_rn(x) / f) * f);
    }
    }
}

/* The program's value at output element k (coordinates co when nd > 0). */
GD u64 ew_at(const gpu_ew_t &p, const void *const *in, long long k)
{
    u64 r[GPU_EW_REGS];
    long long co[GPU_EW_DIMS];
    bool have_co = false;
    for (int i = 0; i < p.n_inputs; i++) {
        long long idx;
        if (p.flat[i]) {
            idx = k;
        } else {
            if (!have_co) {
                long long q = k;
                for (int d = p.nd - 1; d >= 0; d--) {
                    co[d] = q % p.dim[d];
                    q /= p.dim[d];
                }
                have_co = true;
            }
            idx = 0;
            for (int d = 0; d < p.nd; d++)
                idx += co[d] * p.str[i][d];
        }
        r[i] = load(in[i], p.reg_dt[i], idx);
    }
    for (int i = p.n_inputs; i < p.n_regs; i++)
        if (p.is_const[i]) r[i] = p.konst[i];
    for (int i = 0; i < p.n_ins; i++) {
        const gpu_ins_t q = p.ins[i];
        u64 a = r[q.a], b = q.b >= 0 ? r[q.b] : 0, c = q.c >= 0 ? r[q.c] : 0, v;
        if (q.op == GOP_ASTYPE)
            v = cast(p.reg_dt[q.a], q.dt, a);
        else if (q.op == GOP_WHERE)
            v = a != 0 ? b : c;
        else if (q.dt == GDT_FLOAT64)
            v = fop<double>(q.op, a, b, c, q.b >= 0, q.c >= 0);
        else if (q.dt == GDT_FLOAT32)
            v = fop<float>(q.op, a, b, c, q.b >= 0, q.c >= 0);
        else
            v = iop(q.op, q.dt, a, b, c, q.b >= 0, q.c >= 0);
        r[q.dst] = v;
    }
    return r[p.out];
}

struct ew_args {
    const void *in[GPU_EW_IN];
};

/* ------------------------------------------------------------------ reductions */

/* Accumulators: double for floats' sum, prod, mean and min/max; int64 for
 * the integers' (wrapping for sum and prod); 0/1 for all and any. */
GDI u64 red_ident(int op, int dt)
{
    bool fl = dt == GDT_FLOAT32 || dt == GDT_FLOAT64;
    switch (op) {
    case GRED_SUM:
    case GRED_MEAN:
        return fl || op == GRED_MEAN ? UD(0.0) : 0;
    case GRED_PROD:
        return fl ? UD(1.0) : 1;
    case GRED_ALL:
        return 1;
    case GRED_ANY:
    case GRED_CNZ:
        return 0;
    default:
        return fl ? UD(op == GRED_MIN ? INFINITY : -INFINITY)
                  : (u64)(op == GRED_MIN ? 0x7fffffffffffffffLL : (long long)(1ULL << 63));
    }
}

/* The value v (dtype dt) as an accumulator */
GDI u64 red_lift(int op, int dt, u64 v)
{
    if (op == GRED_ALL || op == GRED_ANY) return cast(dt, GDT_BOOL, v);
    if (op == GRED_CNZ) return cast(dt, GDT_BOOL, v); /* NaN counts, -0.0 not */
    if (dt == GDT_FLOAT32 || dt == GDT_FLOAT64 || op == GRED_MEAN) return cast(dt, GDT_FLOAT64, v);
    return cast(dt, GDT_INT64, v);
}

GDI u64 red_comb(int op, int dt, u64 a, u64 b)
{
    bool fl = dt == GDT_FLOAT32 || dt == GDT_FLOAT64 || op == GRED_MEAN;
    switch (op) {
    case GRED_SUM:
    case GRED_MEAN:
        return fl ? UD(AD(a) + AD(b)) : a + b;
    case GRED_PROD:
        return fl ? UD(AD(a) * AD(b)) : a * b;
    case GRED_ALL:
        return a && b;
    case GRED_ANY:
        return a || b;
    case GRED_CNZ:
        return a + b;
    case GRED_MIN:
        if (fl) {
            double x = AD(a), y = AD(b);
            return UD((x <= y || x != x) ? x : y);
        }
        return AL(a) <= AL(b) ? a : b;
    default:
        if (fl) {
            double x = AD(a), y = AD(b);
            return UD((x >= y || x != x) ? x : y);
        }
        return AL(a) >= AL(b) ? a : b;
    }
}

GDI long long red_index(const gpu_red_t &r, long long o, long long q)
{
    long long idx = 0;
    for (int d = r.nk - 1; d >= 0; d--) {
        idx += (o % r.kdim[d]) * r.kstr[d];
        o /= r.kdim[d];
    }
    for (int d = r.nr - 1; d >= 0; d--) {
        idx += (q % r.rdim[d]) * r.rstr[d];
        q /= r.rdim[d];
    }
    return idx;
}

struct red_args {
    gpu_red_t r;
    gpu_ew_t p; /* when r.prog */
    ew_args a;
};

GDI u64 red_value(const red_args &A, long long idx)
{
    if (A.r.prog) return ew_at(A.p, A.a.in, idx);
    return load(A.r.in, A.r.dt, idx);
}

/* nanmin and nanmax of floats: the accumulator starts as NaN ("nothing
 * seen", kern/reduce.c's partial) and a NaN side gives way (fmin/fmax). */
GDI bool red_nanext(int op, int skip_nan)
{
    return skip_nan && (op == GRED_MIN || op == GRED_MAX);
}

GDI u64 red_ident2(int op, int dt, int skip_nan)
{
    return red_nanext(op, skip_nan) ? UD(NAN) : red_ident(op, dt);
}

GDI u64 red_comb2(int op, int dt, int skip_nan, u64 a, u64 b)
{
    if (red_nanext(op, skip_nan)) {
        if (AD(a) != AD(a)) return b;
        if (AD(b) != AD(b)) return a;
    }
    return red_comb(op, dt, a, b);
}

/* One value into accumulator a (a NaN skipped for the nan-reductions). */
GDI u64 red_step(const red_args &A, u64 a, long long o, long long q)
{
    const gpu_red_t &r = A.r;
    u64 v = red_lift(r.op, r.dt, red_value(A, red_index(r, o, q)));
    if (r.skip_nan && AD(v) != AD(v)) return a;
    return red_comb2(r.op, r.dt, r.skip_nan, a, v);
}

/* argmin, argmax: (value, index) pairs; the value as float64 bits for
 * floats, int64 otherwise; index -1: nothing seen. kern/reduce.c's
 * arg_better_f/_i: a total order, so any tree gives the CPU's pair. */
GDI bool arg_better(bool mx, bool fl, u64 x, long long xi, u64 c, long long ci)
{
    if (xi < 0) return false;
    if (ci < 0) return true;
    if (fl) {
        double xd = AD(x), cd = AD(c);
        bool xn = xd != xd, cn = cd != cd;
        if (xn || cn) return xn && (!cn || xi < ci);
        if (xd == cd) return xi < ci;
        return mx ? xd > cd : xd < cd;
    }
    long long xl = AL(x), cl = AL(c);
    if (xl == cl) return xi < ci;
    return mx ? xl > cl : xl < cl;
}

/* The accumulators of the reduction kernels below, one type per family.
 * Each gives start (nothing seen), take (value q of position o), merge
 * (another accumulator of the same position) and write (into the
 * partial's layout of kern/reduce.c at position o). */

/* sum, prod, mean, min, max, all, any (gpu.h): one u64 (red_comb). */
struct RedAcc {
    u64 v;
    static GD RedAcc start(const gpu_red_t &r) { return {red_ident2(r.op, r.dt, r.skip_nan)}; }
    static GD void take(const red_args &A, long long o, long long q, RedAcc *a)
    {
        a->v = red_step(A, a->v, o, q);
    }
    static GD void merge(const gpu_red_t &r, RedAcc *a, const RedAcc &b)
    {
        a->v = red_comb2(r.op, r.dt, r.skip_nan, a->v, b.v);
    }
    static GD void write(const gpu_red_t &r, void *partial, long long o, const RedAcc &a)
    {
        bool fl = r.dt == GDT_FLOAT32 || r.dt == GDT_FLOAT64;
        if (r.op == GRED_ALL || r.op == GRED_ANY)
            ((unsigned char *)partial)[o] = (unsigned char)(a.v != 0);
        else if (r.op == GRED_MIN || r.op == GRED_MAX)
            store(partial, r.dt, o, cast(fl ? GDT_FLOAT64 : GDT_INT64, r.dt, a.v));
        else
            ((u64 *)partial)[o] = a.v;
    }
};

/* ptp: min and max side by side (kern/reduce.c's partial: min[n_out], then
 * max[n_out], in the values' dtype; NaN propagates). */
struct PtpAcc {
    u64 lo, hi;
    static GD PtpAcc start(const gpu_red_t &r)
    {
        return {red_ident(GRED_MIN, r.dt), red_ident(GRED_MAX, r.dt)};
    }
    static GD void take(const red_args &A, long long o, long long q, PtpAcc *a)
    {
        u64 v = red_lift(GRED_MIN, A.r.dt, red_value(A, red_index(A.r, o, q)));
        a->lo = red_comb(GRED_MIN, A.r.dt, a->lo, v);
        a->hi = red_comb(GRED_MAX, A.r.dt, a->hi, v);
    }
    static GD void merge(const gpu_red_t &r, PtpAcc *a, const PtpAcc &b)
    {
        a->lo = red_comb(GRED_MIN, r.dt, a->lo, b.lo);
        a->hi = red_comb(GRED_MAX, r.dt, a->hi, b.hi);
    }
    static GD void write(const gpu_red_t &r, void *partial, long long o, const PtpAcc &a)
    {
        int acc = r.dt == GDT_FLOAT32 || r.dt == GDT_FLOAT64 ? GDT_FLOAT64 : GDT_INT64;
        store(partial, r.dt, o, cast(acc, r.dt, a.lo));
        store((char *)partial + r.n_out * (dt_bits(r.dt) / 8), r.dt, o, cast(acc, r.dt, a.hi));
    }
};

/* argmin, argmax and (skip_nan) nanargmin, nanargmax: the best (value,
 * index) pair; for the nan-variants a NaN counts as +inf (-inf for the
 * max) and ok records that some value was not NaN. */
struct ArgAcc {
    u64 v;
    long long i, ok;
    static GD ArgAcc start(const gpu_red_t &) { return {0, -1, 0}; }
    static GD void take(const red_args &A, long long o, long long q, ArgAcc *a)
    {
        const gpu_red_t &r = A.r;
        bool fl = r.dt == GDT_FLOAT32 || r.dt == GDT_FLOAT64;
        long long idx = red_index(r, o, q);
        u64 x = cast(r.dt, fl ? GDT_FLOAT64 : GDT_INT64, red_value(A, idx));
        if (r.skip_nan) {
            if (AD(x) != AD(x))
                x = UD(r.op == GRED_ARGMAX ? -INFINITY : INFINITY);
            else
                a->ok = 1;
        }
        if (arg_better(r.op == GRED_ARGMAX, fl, x, idx, a->v, a->i)) {
            a->v = x;
            a->i = idx;
        }
    }
    static GD void merge(const gpu_red_t &r, ArgAcc *a, const ArgAcc &b)
    {
        a->ok |= b.ok;
        if (arg_better(r.op == GRED_ARGMAX, r.dt == GDT_FLOAT32 || r.dt == GDT_FLOAT64, b.v, b.i,
                       a->v, a->i)) {
            a->v = b.v;
            a->i = b.i;
        }
    }
    /* the index made global as kern/reduce.c's arg_globalize does */
    static GD void write(const gpu_red_t &r, void *partial, long long o, const ArgAcc &a)
    {
        long long i = a.i;
        if (i >= 0) {
            long long rem = i, g = 0, gs = 1, along = 0;
            for (int d = r.vnd - 1; d >= 0; d--) {
                long long k = rem % r.vshape[d];
                rem /= r.vshape[d];
                g += (r.goff[d] + k) * gs;
                gs *= r.gshape[d];
                if (d == r.arg_ax) along = r.goff[d] + k;
            }
            i = r.arg_all ? g : along;
        }
        ((u64 *)partial)[o] = a.v;
        ((long long *)partial)[r.n_out + o] = i;
        if (r.skip_nan) ((long long *)partial)[2 * r.n_out + o] = a.ok;
    }
};

/* var and std: (count, mean, M2), Welford per value and kern/reduce.c's
 * var_merge (Chan et al.); nanmean: n the count, q the sum. */
struct VarAcc {
    double n, m, q;
    static GD VarAcc start(const gpu_red_t &) { return {0, 0, 0}; }
    static GD void take(const red_args &A, long long o, long long q, VarAcc *a)
    {
        double x = AD(cast(A.r.dt, GDT_FLOAT64, red_value(A, red_index(A.r, o, q))));
        if (A.r.skip_nan && x != x) return;
        a->n += 1;
        if (A.r.op == GRED_NANMEAN) {
            a->q += x;
            return;
        }
        double d = x - a->m;
        a->m += d / a->n;
        a->q += d * (x - a->m);
    }
    static GD void merge(const gpu_red_t &r, VarAcc *a, const VarAcc &b)
    {
        if (r.op == GRED_NANMEAN) {
            a->n += b.n;
            a->q += b.q;
            return;
        }
        if (b.n == 0) return;
        if (a->n == 0) {
            *a = b;
            return;
        }
        double n = a->n + b.n, d = b.m - a->m;
        a->m += d * (b.n / n);
        a->q += b.q + d * d * (a->n * b.n / n);
        a->n = n;
    }
    static GD void write(const gpu_red_t &r, void *partial, long long o, const VarAcc &a)
    {
        double *p = (double *)partial;
        if (r.op == GRED_NANMEAN) {
            p[o] = a.q;
            p[r.n_out + o] = a.n;
        } else {
            p[o] = a.n;
            p[r.n_out + o] = a.m;
            p[2 * r.n_out + o] = a.q;
        }
    }
};

/* ------------------------------------------------------------------ scans */

GDI u64 scan_op(int prod, int dt, u64 a, u64 b)
{
    switch (dt) {
    case GDT_FLOAT64:
        return UD(prod ? AD(a) * AD(b) : AD(a) + AD(b));
    case GDT_FLOAT32:
        return UF(prod ? AF(a) * AF(b) : AF(a) + AF(b));
    default:
        return prod ? a * b : a + b; /* int64, wrapping */
    }
}

/* ------------------------------------------------------------------ work items
 * One element (or line, or position) of each kernel of gpu_job.cu: the
 * kernel runs item k for every k below its count, in any order. */

/* Segments of SCAN_SEG values along a line: pass 1 totals each segment,
 * pass 2 turns the totals into each segment's carry in (a serial walk per
 * line), pass 3 rescans each segment from its carry. Float32 scans run one
 * thread per line, in the CPU's order (float32 sums drift with the order). */
#define SCAN_SEG 512

/* Work item t of a segmented scan: line l, segment s, the line's first
 * element base and the segment's positions [i0, i1) along the axis. */
GDI void scan_segment(long long t, long long outer, long long n, long long inner, long long *l,
                      long long *s, long long *base, long long *i0, long long *i1)
{
    *l = t % (outer * inner);
    *s = t / (outer * inner);
    *base = (*l / inner) * n * inner + *l % inner;
    *i0 = *s * SCAN_SEG;
    *i1 = *i0 + SCAN_SEG < n ? *i0 + SCAN_SEG : n;
}

/* ------------------------------------------------------------------ sorts
 * gpu_k_sort's network over lines of p2 (value bits, position) pairs:
 * position -1 pads a line past len and sorts after everything. */

/* Value i of a sorted line (key bits of dtype dt) as float64. */
GDI double sort_f64(int dt, u64 v)
{
    switch (dt) {
    case GDT_FLOAT64:
        return AD(v);
    case GDT_FLOAT32:
        return (double)AF(v);
    case GDT_INT64:
        return ll2d((long long)v);
    default:
        return (double)ival(dt, v);
    }
}

/* kern/sortstat.c's LT_FLT: x before y, NaN last. */
GDI bool flt_lt(double x, double y)
{
    return x < y || (y != y && x == x);
}

/* (a, ia) before (b, ib): LT_FLT (float32 widened: the same order) or
 * LT_INT, then the position (its merge sort is stable). */
GDI bool sort_lt(int dt, u64 a, long long ia, u64 b, long long ib)
{
    if (ib < 0) return ia >= 0;
    if (ia < 0) return false;
    bool lt, gt;
    if (dt == GDT_FLOAT64 || dt == GDT_FLOAT32) {
        double x = sort_f64(dt, a), y = sort_f64(dt, b);
        lt = flt_lt(x, y);
        gt = flt_lt(y, x);
    } else {
        long long x = ival(dt, a), y = ival(dt, b);
        lt = x < y;
        gt = y < x;
    }
    return lt || (!gt && ia < ib);
}

/* Item k < outer inner p2: pair k % p2 of line k / p2 loaded (or padded). */
GDI void sort_load_item(const gpu_sort_t &s, const void *in, u64 *key, long long *pos, long long k)
{
    long long l = k / s.p2, i = k % s.p2;
    if (i < s.len) {
        key[k] = load(in, s.dt, (l / s.inner * s.len + i) * s.inner + l % s.inner);
        pos[k] = i;
    } else {
        key[k] = 0;
        pos[k] = -1;
    }
}

/* Item t < outer inner p2 / 2 of the step (size, stride) of the bitonic
 * network: one compare-exchange, ascending where the element's size-block
 * is even. */
GDI void sort_step_item(const gpu_sort_t &s, u64 *key, long long *pos, long long size,
                        long long stride, long long t)
{
    long long half = s.p2 / 2, l = t / half, q = t % half;
    long long i = (q / stride) * 2 * stride + q % stride, m = i + stride;
    long long a = l * s.p2 + i, b = l * s.p2 + m;
    bool up = (i & size) == 0;
    bool swap = up ? sort_lt(s.dt, key[b], pos[b], key[a], pos[a])
                   : sort_lt(s.dt, key[a], pos[a], key[b], pos[b]);
    if (swap) {
        u64 kt = key[a];
        key[a] = key[b];
        key[b] = kt;
        long long pt = pos[a];
        pos[a] = pos[b];
        pos[b] = pt;
    }
}

/* Item k < outer inner olen: element k % olen of line k / olen written
 * (pack: value i, or position i - len). */
GDI void sort_store_item(const gpu_sort_t &s, const u64 *key, const long long *pos, void *out,
                         long long k)
{
    long long l = k / s.olen, i = k % s.olen;
    long long at = (l / s.inner * s.olen + i) * s.inner + l % s.inner;
    if (s.pack) {
        long long src = l * s.p2 + (i < s.len ? i : i - s.len);
        u64 v = key[src];
        if (i >= s.len)
            v = (u64)(s.off + pos[src]);
        else if (s.dt == GDT_FLOAT32)
            v = UD((double)AF(v));
        else if (s.dt != GDT_FLOAT64)
            v = (u64)ival(s.dt, v);
        ((u64 *)out)[at] = v;
        return;
    }
    long long src = l * s.p2 + (s.reverse ? s.len - 1 - i : i);
    if (s.index)
        ((long long *)out)[at] = pos[src];
    else
        store(out, s.dt, at, key[src]);
}

/* Item i < n of searchsorted: kern/sortstat.c's bsearch_d or bsearch_i. */
GDI void search_item(const gpu_search_t &s, const void *x, const void *a, long long *out,
                     long long i)
{
    long long lo = 0, hi = s.na;
    u64 xv = load(x, s.xdt, i);
    while (lo < hi) {
        long long mid = lo + (hi - lo) / 2;
        u64 av = load(a, s.adt, mid);
        bool before;
        if (s.fl) {
            double v = sort_f64(s.xdt, xv), am = sort_f64(s.adt, av);
            before = s.right ? !flt_lt(v, am) : flt_lt(am, v);
        } else {
            long long v = ival(s.xdt, xv), am = ival(s.adt, av);
            before = s.right ? !(v < am) : am < v;
        }
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    out[i] = lo;
}

/* Element a of x's line l in a merge (value bits and its position: the
 * pack's, or a for plain values; y's follow x's, b + nx). */
GDI void merge_at(const gpu_merge_t &m, const void *x, long long n, long long l, long long a,
                  long long base, u64 *v, long long *p)
{
    long long lw = m.pairs ? 2 * n : n, o = l / m.inner, r = l % m.inner;
    if (m.pairs) {
        *v = ((const u64 *)x)[(o * lw + a) * m.inner + r];
        *p = ((const long long *)x)[(o * lw + n + a) * m.inner + r];
    } else {
        *v = load(x, m.dt, (o * lw + a) * m.inner + r);
        *p = base + a;
    }
}

/* Item k < outer inner (high ? ny : nx): output element k % that of line
 * k / that: the co-rank of its merged rank found by a binary search. */
GDI void merge_item(const gpu_merge_t &m, const void *x, const void *y, void *out, long long k)
{
    long long w = m.high ? m.ny : m.nx, l = k / w, i = k % w;
    long long kk = m.high ? m.nx + i : i; /* its rank in the merged line */
    long long lo = kk > m.ny ? kk - m.ny : 0, hi = kk < m.nx ? kk : m.nx;
    u64 xv, yv;
    long long xp, yp;
    while (lo < hi) { /* the fewest of x before rank kk */
        long long a = lo + (hi - lo) / 2, b = kk - a;
        merge_at(m, x, m.nx, l, a, 0, &xv, &xp);
        merge_at(m, y, m.ny, l, b - 1, m.nx, &yv, &yp);
        if (!sort_lt(m.dt, yv, yp, xv, xp)) /* x[a] comes before y[b - 1] */
            lo = a + 1;
        else
            hi = a;
    }
    long long a = lo, b = kk - lo;
    bool take_x = a < m.nx;
    if (take_x && b < m.ny) {
        merge_at(m, x, m.nx, l, a, 0, &xv, &xp);
        merge_at(m, y, m.ny, l, b, m.nx, &yv, &yp);
        take_x = !sort_lt(m.dt, yv, yp, xv, xp);
    }
    if (take_x)
        merge_at(m, x, m.nx, l, a, 0, &xv, &xp);
    else
        merge_at(m, y, m.ny, l, b, m.nx, &xv, &xp);
    long long ow = m.pairs ? 2 * w : w, o = l / m.inner, r = l % m.inner;
    if (m.pairs) {
        ((u64 *)out)[(o * ow + i) * m.inner + r] = xv;
        ((long long *)out)[(o * ow + w + i) * m.inner + r] = xp;
    } else {
        store(out, m.dt, (o * ow + i) * m.inner + r, xv);
    }
}

/* Item k < nq outer inner: statistic k / lines of line k % lines of the
 * sorted pairs (gpu_sort_t's quant), as kern/sortstat.c's k_quantile. */
GDI void quant_item(const gpu_sort_t &s, const u64 *key, void *out, long long k)
{
    long long lines = s.outer * s.inner, l = k % lines;
    int qi = (int)(k / lines);
    const u64 *v = key + l * s.p2;
    long long m = s.len; /* NaN sort last: the first NaN ends the values */
    bool fl = s.dt == GDT_FLOAT64 || s.dt == GDT_FLOAT32;
    if (fl) {
        long long lo = 0, hi = s.len;
        while (lo < hi) {
            long long mid = lo + (hi - lo) / 2;
            double x = sort_f64(s.dt, v[mid]);
            if (x != x)
                hi = mid;
            else
                lo = mid + 1;
        }
        m = lo;
    }
    double res = AD(0x7ff8000000000000ULL); /* NAN */
    if ((s.nan_skip || m == s.len) && m > 0) {
        if (s.quant == GSORT_MEDIAN) {
            long long h = m / 2;
            if (m % 2)
                res = sort_f64(s.dt, v[h]);
            else if (s.dt == GDT_FLOAT32)
                res = qm_mid_f32(AF(v[h - 1]), AF(v[h]));
            else
                res = qm_mid_f64(sort_f64(s.dt, v[h - 1]), sort_f64(s.dt, v[h]));
        } else {
            int64_t pi, ni;
            double g;
            qm_pos(m, s.q[qi], &pi, &ni, &g);
            switch (s.dt) {
            case GDT_FLOAT32:
                res = qm_lerp_f32(AF(v[pi]), AF(v[ni]), g);
                break;
            case GDT_INT32:
                res = qm_lerp_i32(AI(v[pi]), AI(v[ni]), g);
                break;
            case GDT_INT64:
                res = qm_lerp_i64(AL(v[pi]), AL(v[ni]), g);
                break;
            default:
                res = qm_lerp_f64(sort_f64(s.dt, v[pi]), sort_f64(s.dt, v[ni]), g);
            }
        }
    }
    if (s.odt == GDT_FLOAT32) /* the CPU's (float)NAN, not CUDA's canonical NaN */
        ((unsigned *)out)[k] = res != res ? 0x7fc00000u : (unsigned)UF(d2f(res));
    else
        ((double *)out)[k] = res;
}

/* kern/create.c's arange, linspace and eye (gpu.h). Only +, -, *, / and
 * conversions rounded to nearest: the CPU's bits (-fmad=false). */
GD double linspace_at(const gpu_create_t &c, long long i)
{
    double y = (double)i;
    if (c.endpoint && c.num > 1 && i == c.num - 1) return c.stop;
    if (c.div > 0) {
        double step = c.delta / (double)c.div;
        if (step == 0)
            y = y / (double)c.div * c.delta;
        else
            y = y * step;
    } else {
        y = y * c.delta;
    }
    return y + c.start;
}

/* How gpu_k_red splits a reduction: rows (a thread per position, short
 * reductions over many positions), else nseg blocks of RED_THREADS per
 * position: enough blocks to fill the device, a few thousand values each. */
#define RED_THREADS 256
GDI void red_plan(const gpu_red_t &r, bool *rows, int *nseg)
{
    long long want_blocks = 4096;
    *rows = r.n_red <= 64 && r.n_out >= 1024;
    *nseg = 1;
    if (!*rows) {
        long long by_len = (r.n_red + 2047) / 2048;
        long long by_fill = (want_blocks + r.n_out - 1) / r.n_out;
        long long ns = by_len < by_fill ? by_len : by_fill;
        *nseg = ns < 1 ? 1 : ns > 65536 ? 65536 : (int)ns;
    }
}

/* The arguments of a reduction's kernels. */
inline void red_args_init(red_args *A, const gpu_red_t *r)
{
    memset(A, 0, sizeof *A);
    A->r = *r;
    if (r->prog) {
        A->p = *r->prog;
        for (int i = 0; i < r->prog->n_inputs && i < GPU_EW_IN; i++)
            A->a.in[i] = r->prog_in[i];
    }
}

/* f(Acc()) with the accumulator type of op. */
template <typename F> inline int red_by_acc(int op, F f)
{
    switch (op) {
    case GRED_ARGMIN:
    case GRED_ARGMAX:
        return f(ArgAcc());
    case GRED_VAR:
    case GRED_NANMEAN:
        return f(VarAcc());
    case GRED_PTP:
        return f(PtpAcc());
    default:
        return f(RedAcc());
    }
}

/* Thread tid of nthreads in a block of k_red_seg: its strided walk over
 * position o's values [q0, q1). */
template <typename T>
GD T red_walk(const red_args &A, long long o, long long q0, long long q1, long long tid,
              long long nthreads)
{
    T a = T::start(A.r);
    for (long long q = q0 + tid; q < q1; q += nthreads)
        T::take(A, o, q, &a);
    return a;
}

GD void ew_prog_item(const gpu_ew_t &p, const ew_args &a, void *out, long long k)
{
    int odt = p.reg_dt[p.out];
    store(out, odt, k, ew_at(p, a.in, k));
}

template <typename T> GD void red_rows_item(const red_args &A, T *acc, long long o)
{
    const gpu_red_t &r = A.r;
    T a = T::start(r);
    for (long long q = 0; q < r.n_red; q++)
        T::take(A, o, q, &a);
    acc[o] = a;
}

template <typename T>
GD void red_final_item(const gpu_red_t &r, int nseg, const T *acc, void *partial, long long o)
{
    T a = acc[o * nseg];
    for (int s = 1; s < nseg; s++)
        T::merge(r, &a, acc[o * nseg + s]);
    T::write(r, partial, o, a);
}

/* A scan's input value k in the output's dtype; for nancumsum and
 * nancumprod of floats (nan), NaN counts as 0 (1), as numpy replaces it. */
GDI u64 scan_in(int prod, int nan, int in_dt, int out_dt, const void *in, long long k)
{
    u64 v = load(in, in_dt, k);
    if (nan && (in_dt == GDT_FLOAT32 ? AF(v) != AF(v) : in_dt == GDT_FLOAT64 && AD(v) != AD(v)))
        return cast(GDT_FLOAT64, out_dt, UD(prod ? 1.0 : 0.0));
    return cast(in_dt, out_dt, v);
}

GD void scan_line_item(int prod, int nan, int in_dt, int out_dt, const void *in, void *out,
                       long long n, long long inner, long long l)
{
    long long base = (l / inner) * n * inner + l % inner;
    u64 a = 0;
    for (long long i = 0; i < n; i++) {
        long long k = base + i * inner;
        u64 v = scan_in(prod, nan, in_dt, out_dt, in, k);
        a = i == 0 ? v : scan_op(prod, out_dt, a, v);
        store(out, out_dt, k, a);
    }
}

GD void scan_tot_item(int prod, int nan, int in_dt, int out_dt, const void *in, u64 *tot,
                      long long outer, long long n, long long inner, long long t)
{
    long long l, s, base, i0, i1;
    scan_segment(t, outer, n, inner, &l, &s, &base, &i0, &i1);
    u64 a = scan_in(prod, nan, in_dt, out_dt, in, base + i0 * inner);
    for (long long i = i0 + 1; i < i1; i++)
        a = scan_op(prod, out_dt, a, scan_in(prod, nan, in_dt, out_dt, in, base + i * inner));
    tot[s * outer * inner + l] = a;
}

GD void scan_carry_in_item(int prod, int dt, u64 *tot, long long lines, long long nseg, long long l)
{
    u64 run = tot[l];
    for (long long s = 1; s < nseg; s++) {
        u64 t = tot[s * lines + l];
        tot[s * lines + l] = run;
        run = scan_op(prod, dt, run, t);
    }
}

GD void scan_seg_item(int prod, int nan, int in_dt, int out_dt, const void *in, void *out,
                      const u64 *carry, long long outer, long long n, long long inner, long long t)
{
    long long l, s, base, i0, i1;
    scan_segment(t, outer, n, inner, &l, &s, &base, &i0, &i1);
    u64 a = 0;
    for (long long i = i0; i < i1; i++) {
        long long k = base + i * inner;
        u64 v = scan_in(prod, nan, in_dt, out_dt, in, k);
        if (i == i0)
            a = s == 0 ? v : scan_op(prod, out_dt, carry[s * outer * inner + l], v);
        else
            a = scan_op(prod, out_dt, a, v);
        store(out, out_dt, k, a);
    }
}

GD void scan_carry_item(int prod, int dt, const void *pc, const void *pl, void *out, long long n,
                        long long inner, long long l)
{
    long long o = l / inner, i = l % inner;
    u64 last = load(pl, dt, (o * n + n - 1) * inner + i);
    store(out, dt, l, pc ? scan_op(prod, dt, load(pc, dt, l), last) : last);
}

GD void scan_apply_item(int prod, int dt, const void *loc, const void *carry, void *out,
                        long long n, long long inner, long long k)
{
    long long o = k / (n * inner), i = k % inner;
    store(out, dt, k, scan_op(prod, dt, load(loc, dt, k), load(carry, dt, o * inner + i)));
}

template <typename T> GD void mirror_item(T *c, long long m, long long t)
{
    long long i = t / m, jj = t % m;
    if (jj > i) c[i * m + jj] = c[jj * m + i];
}

/* Element k's flat index in the whole tensor. */
GDI long long rand_elem(const gpu_rand_t &r, long long k)
{
    long long e = r.base, q = k;
    for (int d = r.nd - 1; d >= 0; d--) {
        e += (q % r.dim[d]) * r.gstr[d];
        q /= r.dim[d];
    }
    return e;
}

/* GRND_DIST (a kernel of its own: the rejection samplers' registers would
 * slow the plain draws down) */
GD void random_dist_item(const gpu_rand_t &r, void *out, long long k)
{
    long long e = rand_elem(r, k);
    if (r.dist == RM_POISSON || r.dist == RM_BINOMIAL) {
        store(out, GDT_INT64, k, (u64)rm_draw_i(r.dist, r.a, r.b, r.low, r.seed, e));
    } else {
        double v = rm_draw_f(r.dist, r.a, r.b, r.seed, e);
        store(out, r.dt, k, r.dt == GDT_FLOAT32 ? UF(d2f(v)) : UD(v));
    }
}

GD void random_item(const gpu_rand_t &r, void *out, long long k)
{
    unsigned k0 = (unsigned)r.seed, k1 = (unsigned)(r.seed >> 32);
    unsigned stream = r.kind == GRND_RANDN || r.kind == GRND_NORMAL ? 1u
                      : r.kind == GRND_RANDINT                      ? 2u
                                                                    : 0u;
    long long e = rand_elem(r, k);
    u64 blk = (u64)e / 2;
    unsigned ctr[4] = {(unsigned)blk, (unsigned)(blk >> 32), stream, 0};
    philox4x32_10(ctr, k0, k1);
    u64 w0 = (u64)ctr[0] | (u64)ctr[1] << 32, w1 = (u64)ctr[2] | (u64)ctr[3] << 32;
    u64 w = e & 1 ? w1 : w0;
    if (r.kind == GRND_RANDINT) {
        u64 v = (u64)r.low + umul64hi(w, r.range);
        store(out, r.dt, k, r.dt == GDT_INT32 ? (u64)(unsigned)v : v);
        return;
    }
    double v;
    if (r.kind == GRND_RANDN || r.kind == GRND_NORMAL) {
        double t = -2.0 * log_pos(unit53(w0) + 0x1p-53), cs, sn;
        cis_unit(w1, &cs, &sn);
        t = sqrt(t);
        v = e & 1 ? t * sn : t * cs;
    } else {
        v = unit53(w);
    }
    if (r.kind == GRND_UNIFORM || r.kind == GRND_NORMAL) v = r.a + r.b * v;
    store(out, r.dt, k, r.dt == GDT_FLOAT32 ? UF(d2f(v)) : UD(v));
}

GD void fill_item(u64 v, int es, void *out, long long k)
{
    if (es == 8)
        ((u64 *)out)[k] = v;
    else if (es == 4)
        ((unsigned *)out)[k] = (unsigned)v;
    else if (es == 2)
        ((unsigned short *)out)[k] = (unsigned short)v;
    else
        ((unsigned char *)out)[k] = (unsigned char)v;
}

GD void create_item(const gpu_create_t &c, void *out, long long k)
{
    long long gi = c.g0 + k;
    if (c.kind == GCRE_EYE) {
        long long row = k / c.cols, col = k % c.cols;
        u64 v = c.has_diag && col - row == c.diag ? c.one : 0;
        if (c.es == 8)
            ((u64 *)out)[k] = v;
        else if (c.es == 4)
            ((unsigned *)out)[k] = (unsigned)v;
        else
            ((unsigned char *)out)[k] = (unsigned char)v;
    } else if (c.kind == GCRE_LINSPACE) {
        double y = linspace_at(c, gi);
        if (c.dt == GDT_FLOAT32)
            ((float *)out)[k] = d2f(y);
        else
            ((double *)out)[k] = y;
    } else if (c.dt == GDT_FLOAT64) {
        double v = c.f0 + (double)gi * c.fdelta;
        if (gi == 1) v = c.f1;
        if (gi == 0) v = c.f0;
        ((double *)out)[k] = v;
    } else if (c.dt == GDT_FLOAT32) {
        float v = c.s0 + (float)gi * c.sdelta;
        if (gi == 1) v = c.s1;
        if (gi == 0) v = c.s0;
        ((float *)out)[k] = v;
    } else if (c.dt == GDT_INT64) {
        ((u64 *)out)[k] = c.i0 + (u64)gi * c.idelta;
    } else {
        ((unsigned *)out)[k] = (unsigned)c.i0 + (unsigned)gi * (unsigned)c.idelta;
    }
}

template <typename T> GD void piece_item(const gpu_piece_t &p, const T *src, T *dst, long long k)
{
    long long q = k, s = p.src_off, d = p.dst_off;
    for (int i = p.ndim - 1; i >= 0; i--) {
        long long c = q % p.count[i];
        q /= p.count[i];
        s += c * p.src_stride[i];
        d += c * p.dst_stride[i];
    }
    dst[d] = src[s];
}

/* ------------------------------------------------------------------ host side */

/* gpu_k_scan_local's choice: one thread per line (float32, in the CPU's
 * order; a single segment; or lines enough to fill the device), else the
 * three passes over segments. */
GDI bool scan_by_line(int out_dt, long long nseg, long long lines)
{
    return out_dt == GDT_FLOAT32 || nseg == 1 || lines >= 65536;
}

/* cuBLAS's column-major call for row-major C (m x n) (+)= op(A) op(B), A m x k
 * (k x m when ta), B k x n (n x k when tb): each row-major matrix is its
 * transpose to cuBLAS, so the call is Cᵀ = op(B)ᵀ op(A)ᵀ: X = B first, Y = A
 * second. */
enum { GEMM_OPN = 0, GEMM_OPT = 1 };
typedef struct {
    int opx, opy, m, n, k, ldx, ldy, ldc;
} gemm_cm_t;
GDI gemm_cm_t gemm_cm(int ta, int tb, long long m, long long n, long long k)
{
    gemm_cm_t g;
    g.opx = tb ? GEMM_OPT : GEMM_OPN;
    g.opy = ta ? GEMM_OPT : GEMM_OPN;
    g.m = (int)n;
    g.n = (int)m;
    g.k = (int)k;
    g.ldx = tb ? (int)k : (int)n;
    g.ldy = ta ? (int)m : (int)k;
    g.ldc = (int)n;
    return g;
}

/* Integer and bool products (kern/ref.c's loops; cuBLAS has none): element
 * t of count products C_q (+)= op(A_q) op(B_q), A_q at a + q sa elements, B_q
 * at b + q sb, C_q at c + q m n; integers wrap (the sum's order does not
 * matter), bool is any(a & b), ORed in when accumulating. */
GD void igemm_item(int dt, int ta, int tb, long long m, long long n, long long k, const void *a,
                   long long sa, const void *b, long long sb, void *c, int acc, long long t)
{
    long long q = t / (m * n), r = t % (m * n), i = r / n, jj = r % n;
    long long ao = q * sa, bo = q * sb;
    if (dt == GDT_BOOL) {
        const unsigned char *A = (const unsigned char *)a + ao, *B = (const unsigned char *)b + bo;
        unsigned char *C = (unsigned char *)c;
        unsigned char s = acc ? C[t] != 0 : 0;
        for (long long l = 0; l < k && !s; l++)
            s = (ta ? A[l * m + i] : A[i * k + l]) && (tb ? B[jj * k + l] : B[l * n + jj]);
        C[t] = s;
        return;
    }
    u64 s = acc ? load(c, dt, t) : 0;
    for (long long l = 0; l < k; l++)
        s += load(a, dt, ao + (ta ? l * m + i : i * k + l)) *
             load(b, dt, bo + (tb ? jj * k + l : l * n + jj));
    store(c, dt, t, s);
}

#endif
