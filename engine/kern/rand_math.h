/* rand_math.h: the arithmetic of the random streams (kern/random.c), shared
 * by the CPU kernels and the CUDA ones (engine/cuda/gpu_job.cu) so that a GPU
 * draw is the CPU's tensor bit for bit (docs/gpu.md). Only +, -, *, / and
 * bit operations: compiled without contraction (-ffp-contract=off here,
 * -fmad=false under nvcc) they give the same bits everywhere. */
#ifndef MARS_RAND_MATH_H
#define MARS_RAND_MATH_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define RM_FN static __host__ __device__ inline
#else
#define RM_FN static inline
#endif

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

/* The ten rounds of Philox4x32 on ctr with key (k0, k1). */
RM_FN void philox4x32_10(uint32_t ctr[4], uint32_t k0, uint32_t k1)
{
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)PHILOX_M0 * ctr[0];
        uint64_t p1 = (uint64_t)PHILOX_M1 * ctr[2];
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ ctr[1] ^ k0;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ ctr[3] ^ k1;
        ctr[1] = (uint32_t)p1;
        ctr[3] = (uint32_t)p0;
        ctr[0] = n0;
        ctr[2] = n2;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
}

/* Float arithmetic the compiler vectorises: no libm, no integer <-> float
 * conversions (which AVX2 lacks for 64-bit integers). */
RM_FN uint64_t d2u(double x)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    return u;
}
RM_FN double u2d(uint64_t u)
{
    double x;
    memcpy(&x, &u, 8);
    return x;
}

/* k < 2^52, exactly, through the exponent of 2^52. */
RM_FN double small_to_double(uint64_t k)
{
    return u2d(0x4330000000000000ULL | k) - 0x1p52;
}

/* (w >> 11) * 2^-53 exactly: the low 52 bits, plus 0.5 for the top bit. */
RM_FN double unit53(uint64_t w)
{
    uint64_t b = w >> 11;
    return small_to_double(b & 0xFFFFFFFFFFFFFull) * 0x1p-53 +
           u2d((0 - (b >> 52)) & 0x3FE0000000000000ULL);
}

/* ln x for normal x > 0: x = 2^e m, m in [sqrt(1/2), sqrt(2)),
 * ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716: eleven terms of
 * the series leave a relative error below 1e-18; ln 2 is split (fdlibm) so
 * e * ln2_hi is exact. */
RM_FN double log_pos(double x)
{
    uint64_t u = d2u(x);
    uint64_t e = (u >> 52) + 77; /* biased exponent - 1023 + 1100 */
    uint64_t mb = (u & 0xFFFFFFFFFFFFFull) | 0x3FF0000000000000ULL; /* m in [1, 2) */
    /* m > sqrt(2) compares as integers (same exponent); halving lowers the
     * exponent. Bit operations, not branches, so the loop vectorises. */
    uint64_t big = mb > 0x3FF6A09E667F3BCDULL;
    double m = u2d(mb - (big << 52));
    double ed = small_to_double(e + big) - 1100.0;
    double sx = (m - 1.0) / (m + 1.0), z = sx * sx;
    double p = 0.047619047619047616;
    p = p * z + 0.052631578947368418;
    p = p * z + 0.058823529411764705;
    p = p * z + 0.066666666666666666;
    p = p * z + 0.076923076923076927;
    p = p * z + 0.090909090909090912;
    p = p * z + 0.1111111111111111;
    p = p * z + 0.14285714285714285;
    p = p * z + 0.20000000000000001;
    p = p * z + 0.33333333333333331;
    double lm = 2.0 * sx + 2.0 * sx * z * p;
    return ed * 6.93147180369123816490e-01 + (lm + ed * 1.90821492927058770002e-10);
}

/* cos and sin of 2 pi u2 with u2 = (w >> 11) * 2^-53. The top two of the 53
 * bits give the quadrant q, the other 51 the fraction f; the angle is
 * q pi/2 + pi/4 + phi with phi = (f - 1/2) pi/2 in [-pi/4, pi/4], where the
 * Taylor series need nine terms for 1e-18. */
RM_FN void cis_unit(uint64_t w, double *co, double *si)
{
    uint64_t b = w >> 11, q = b >> 51;
    double f = small_to_double(b & 0x7FFFFFFFFFFFFull) * 0x1p-51;
    double ph = (f - 0.5) * 1.5707963267948966, z = ph * ph;
    double sp = 2.8114572543455206e-15;
    sp = sp * z - 7.6471637318198164e-13;
    sp = sp * z + 1.6059043836821613e-10;
    sp = sp * z - 2.505210838544172e-08;
    sp = sp * z + 2.7557319223985893e-06;
    sp = sp * z - 0.00019841269841269841;
    sp = sp * z + 0.0083333333333333332;
    sp = sp * z - 0.16666666666666666;
    sp = ph + ph * z * sp;
    double cp = 4.7794773323873853e-14;
    cp = cp * z - 1.1470745597729725e-11;
    cp = cp * z + 2.08767569878681e-09;
    cp = cp * z - 2.7557319223985888e-07;
    cp = cp * z + 2.4801587301587302e-05;
    cp = cp * z - 0.0013888888888888889;
    cp = cp * z + 0.041666666666666664;
    cp = cp * z - 0.5;
    cp = 1.0 + z * cp;
    /* rotate by pi/4, then by q quarter turns */
    double c = (cp - sp) * 0.70710678118654757, s = (cp + sp) * 0.70710678118654757;
    uint64_t odd = 0 - (q & 1), flip = (q & 2) << 62;
    uint64_t ns = d2u(s) ^ 0x8000000000000000ULL, cb = d2u(c), sb = d2u(s);
    *co = u2d(((ns & odd) | (cb & ~odd)) ^ flip);
    *si = u2d(((cb & odd) | (sb & ~odd)) ^ flip);
}

#endif
