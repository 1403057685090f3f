/* rand_math.h: the arithmetic of the random streams (kern/random.c), shared
 * by the CPU kernels and the CUDA ones (engine/cuda/gpu_job.cu) so that a GPU
 * draw is the CPU's tensor bit for bit (docs/gpu.md). Only +, -, *, / and
 * bit operations: compiled without contraction (-ffp-contract=off here,
 * -fmad=false under nvcc) they give the same bits everywhere. */
#ifndef MARS_RAND_MATH_H
#define MARS_RAND_MATH_H

#include <math.h>
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

/* ---- random2.c's distributions (and the CUDA kernel's: bit for bit) -------
 * ln, exp and ln gamma from +, -, *, / and sqrt, floor (exact on both sides),
 * so that a rejection sampler takes the same branches on a GPU as here. */

#define RM_LN2_HI 6.93147180369123816490e-01
#define RM_LN2_LO 1.90821492927058770002e-10

/* ln x: -inf at 0, NaN below, subnormals scaled into log_pos's range */
RM_FN double rm_log(double x)
{
    if (!(x > 0)) return x == 0 ? -1.0 / 0.0 : 0.0 / 0.0;
    if (x > 1.7976931348623157e308) return x;
    if (x < 0x1p-1022) return (log_pos(x * 0x1p54) - 54.0 * RM_LN2_HI) - 54.0 * RM_LN2_LO;
    return log_pos(x);
}

/* e^x: x = k ln2 + r, |r| <= ln2 / 2 (ln2 split as in rm_log, so k ln2_hi
 * is exact), e^r by its Taylor series to r^13 / 13! (relative error below
 * 1e-17), then 2^k by the exponent, subnormal results by two scalings. */
RM_FN double rm_exp(double x)
{
    if (x != x) return x;
    if (x > 709.782712893384) return 1.0 / 0.0;
    if (x < -745.2) return 0.0;
    double kd = floor(x * 1.4426950408889634 + 0.5);
    double r = (x - kd * RM_LN2_HI) - kd * RM_LN2_LO;
    double p = 1.6059043836821613e-10;  /* 1/13! */
    p = p * r + 2.08767569878681e-09;   /* 1/12! */
    p = p * r + 2.505210838544172e-08;  /* 1/11! */
    p = p * r + 2.7557319223985893e-07; /* 1/10! */
    p = p * r + 2.7557319223985888e-06; /* 1/9! */
    p = p * r + 2.4801587301587302e-05; /* 1/8! */
    p = p * r + 0.00019841269841269841; /* 1/7! */
    p = p * r + 0.0013888888888888889;  /* 1/6! */
    p = p * r + 0.0083333333333333332;  /* 1/5! */
    p = p * r + 0.041666666666666664;   /* 1/4! */
    p = p * r + 0.16666666666666666;    /* 1/3! */
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    int64_t k = (int64_t)kd;
    if (k > 1023) return p * 2.0 * u2d((uint64_t)(k - 1 + 1023) << 52);
    if (k >= -1022) return p * u2d((uint64_t)(k + 1023) << 52);
    return p * u2d((uint64_t)(k + 54 + 1023) << 52) * 0x1p-54;
}

/* ln Gamma(x) for x > 0: Stirling's series (ten terms) at x + n >= 7, then
 * down by ln of the product x (x + 1) ... (x + n - 1). */
RM_FN double rm_lgamma(double x)
{
    if (x == 1.0 || x == 2.0) return 0.0;
    double x0 = x, prod = 1.0;
    while (x0 < 7.0) {
        prod *= x0;
        x0 += 1.0;
    }
    double z = 1.0 / (x0 * x0);
    double g = -1.39243221690590111642e+00; /* B20 / (20 * 19) */
    g = g * z + 1.79644372368830573164e-01;
    g = g * z - 2.95506535947712418301e-02;
    g = g * z + 6.41025641025641025641e-03;
    g = g * z - 1.91752691752691752692e-03;
    g = g * z + 8.41750841750841750842e-04;
    g = g * z - 5.95238095238095238095e-04;
    g = g * z + 7.93650793650793650794e-04;
    g = g * z - 2.77777777777777777778e-03;
    g = g * z + 8.33333333333333333333e-02;
    g = g / x0 + 0.91893853320467274178 + (x0 - 0.5) * rm_log(x0) - x0;
    return prod == 1.0 ? g : g - rm_log(prod);
}

/* Element e's own stream: Philox blocks (lo32(e), hi32(e), stream, j), j =
 * j0, j0 + 1, ..., two 64-bit words each. */
typedef struct {
    uint32_t k0, k1, e0, e1, stream, j;
    uint64_t w[2];
    int left;
    double spare; /* Box-Muller's second normal */
    int has_spare;
} rm_est_t;

RM_FN void rm_est_init(rm_est_t *s, uint64_t seed, uint32_t stream, int64_t e, uint32_t j0)
{
    s->k0 = (uint32_t)seed;
    s->k1 = (uint32_t)(seed >> 32);
    s->e0 = (uint32_t)(uint64_t)e;
    s->e1 = (uint32_t)((uint64_t)e >> 32);
    s->stream = stream;
    s->j = j0;
    s->left = 0;
    s->spare = 0;
    s->has_spare = 0;
}

RM_FN uint64_t rm_word(rm_est_t *s)
{
    if (s->left == 0) {
        uint32_t ctr[4] = {s->e0, s->e1, s->stream, s->j++};
        philox4x32_10(ctr, s->k0, s->k1);
        s->w[0] = (uint64_t)ctr[0] | (uint64_t)ctr[1] << 32;
        s->w[1] = (uint64_t)ctr[2] | (uint64_t)ctr[3] << 32;
        s->left = 2;
    }
    return s->w[2 - s->left--];
}

/* uniform on (0, 1): never 0 (logarithms) nor 1 */
RM_FN double rm_uni(rm_est_t *s)
{
    return unit53(rm_word(s)) + 0x1p-54; /* ((w >> 11) + 0.5) 2^-53, rounded */
}

/* Box-Muller: the radius from one word, the angle's cosine and sine from
 * the next (cis_unit) */
RM_FN double rm_normal(rm_est_t *s)
{
    if (s->has_spare) {
        s->has_spare = 0;
        return s->spare;
    }
    double r = sqrt(-2.0 * rm_log(rm_uni(s))), c, sn;
    cis_unit(rm_word(s), &c, &sn);
    s->spare = r * sn;
    s->has_spare = 1;
    return r * c;
}

/* gamma(k, 1), k >= 1: Marsaglia and Tsang's squeeze and rejection. */
RM_FN double rm_gamma_ge1(rm_est_t *s, double k)
{
    double d = k - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = rm_normal(s);
            v = 1.0 + c * x;
        } while (v <= 0);
        v = v * v * v;
        double u = rm_uni(s);
        if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return d * v;
        if (rm_log(u) < 0.5 * x * x + d * (1.0 - v + rm_log(v))) return d * v;
    }
}

/* ln gamma(k, 1): for k < 1, ln gamma(k + 1) + ln(u) / k, which stays finite
 * where the value itself underflows. */
RM_FN double rm_log_gamma_draw(rm_est_t *s, double k)
{
    if (k >= 1) return rm_log(rm_gamma_ge1(s, k));
    double g = rm_gamma_ge1(s, k + 1.0);
    return rm_log(g) + rm_log(rm_uni(s)) / k;
}

RM_FN double rm_gamma_draw(rm_est_t *s, double k)
{
    if (k <= 0) return 0.0;
    if (k >= 1) return rm_gamma_ge1(s, k);
    double g = rm_gamma_ge1(s, k + 1.0);
    return g * rm_exp(rm_log(rm_uni(s)) / k);
}

RM_FN int64_t rm_poisson(rm_est_t *s, double lam)
{
    if (lam <= 0) return 0;
    if (lam < 10) {
        double l = rm_exp(-lam), p = 1.0;
        int64_t k = 0;
        for (;;) {
            p *= rm_uni(s);
            if (p <= l) return k;
            k++;
        }
    }
    double sl = sqrt(lam), ll = rm_log(lam);
    double b = 0.931 + 2.53 * sl, a = -0.059 + 0.02483 * b;
    double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
        double u = rm_uni(s) - 0.5, v = rm_uni(s), us = 0.5 - fabs(u);
        double kf = floor((2 * a / us + b) * u + lam + 0.43);
        if (us >= 0.07 && v <= vr) return (int64_t)kf;
        if (kf < 0 || (us < 0.013 && v > us)) continue;
        if (rm_log(v) + rm_log(inv_alpha) - rm_log(a / (us * us) + b) <=
            -lam + kf * ll - rm_lgamma(kf + 1))
            return (int64_t)kf;
    }
}

/* binomial(n, p) for p <= 1/2: inversion when n p < 10, else BTRS */
RM_FN int64_t rm_binomial_low(rm_est_t *s, int64_t n, double p)
{
    if (n == 0 || p <= 0) return 0;
    double q = 1.0 - p;
    if ((double)n * p < 10) {
        for (;;) {
            double r = rm_exp((double)n * rm_log(q)), u = rm_uni(s), ratio = p / q;
            int64_t k = 0;
            while (u > r && k < n) {
                u -= r;
                k++;
                r *= ratio * (double)(n - k + 1) / (double)k;
            }
            if (u <= r || k == n) return k;
        }
    }
    double nd = (double)n, spq = sqrt(nd * p * q);
    double b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * p, c = nd * p + 0.5;
    double vr = 0.92 - 4.2 / b, alpha = (2.83 + 5.1 / b) * spq, lpq = rm_log(p / q);
    double m = floor((nd + 1) * p), h = rm_lgamma(m + 1) + rm_lgamma(nd - m + 1);
    for (;;) {
        double u = rm_uni(s) - 0.5, v = rm_uni(s), us = 0.5 - fabs(u);
        double kf = floor((2 * a / us + b) * u + c);
        if (kf < 0 || kf > nd) continue;
        if (us >= 0.07 && v <= vr) return (int64_t)kf;
        double lv = rm_log(v * alpha / (a / (us * us) + b));
        if (lv <= h - rm_lgamma(kf + 1) - rm_lgamma(nd - kf + 1) + (kf - m) * lpq)
            return (int64_t)kf;
    }
}

/* The distributions, their streams (fixed numbers, so a seed keeps its
 * values; random.c's are 0..2) and one element's value. a, b: exponential
 * (-, scale), lognormal (mean, sigma), gamma (shape, scale), beta (a, b),
 * chisquare and standard_t (df, -), poisson (lam, -), binomial (-, p) with
 * n trials. */
enum {
    RM_EXPONENTIAL,
    RM_POISSON,
    RM_BINOMIAL,
    RM_GAMMA,
    RM_BETA,
    RM_LOGNORMAL,
    RM_STANDARD_T,
    RM_CHISQUARE
};

RM_FN uint32_t rm_stream(int kind)
{
    return 16u + (uint32_t)kind;
}

/* float draws */
RM_FN double rm_draw_f(int kind, double a, double b, uint64_t seed, int64_t e)
{
    rm_est_t s;
    rm_est_init(&s, seed, rm_stream(kind), e, 0);
    switch (kind) {
    case RM_EXPONENTIAL:
        return -rm_log(rm_uni(&s)) * b;
    case RM_LOGNORMAL:
        return rm_exp(a + b * rm_normal(&s));
    case RM_GAMMA:
        return rm_gamma_draw(&s, a) * b;
    case RM_CHISQUARE:
        return 2.0 * rm_gamma_draw(&s, a / 2);
    case RM_STANDARD_T: {
        double z = rm_normal(&s), ch = 2.0 * rm_gamma_draw(&s, a / 2);
        return z / sqrt(ch / a);
    }
    case RM_BETA: {
        rm_est_t s2;
        rm_est_init(&s2, seed, rm_stream(kind), e, UINT32_C(1) << 31);
        if (a < 1 || b < 1) {
            double lx = rm_log_gamma_draw(&s, a), ly = rm_log_gamma_draw(&s2, b);
            return 1.0 / (1.0 + rm_exp(ly - lx));
        }
        double x = rm_gamma_ge1(&s, a), y = rm_gamma_ge1(&s2, b);
        return x / (x + y);
    }
    default:
        return 0.0;
    }
}

/* integer draws: poisson(a), binomial(n, b) */
RM_FN int64_t rm_draw_i(int kind, double a, double b, int64_t n, uint64_t seed, int64_t e)
{
    rm_est_t s;
    rm_est_init(&s, seed, rm_stream(kind), e, 0);
    if (kind == RM_POISSON) return rm_poisson(&s, a);
    return b > 0.5 ? n - rm_binomial_low(&s, n, 1.0 - b) : rm_binomial_low(&s, n, b);
}

#endif
