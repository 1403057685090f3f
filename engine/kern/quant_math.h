/* quant_math.h: numpy 1.24's arithmetic of median, quantile and percentile
 * (linear method) on sorted values, shared by the CPU kernels
 * (kern/sortstat.c) and the CUDA ones (engine/cuda/gpu_dev.h) so that both
 * give the same bits. Only +, -, *, / and floor: compiled without
 * contraction (-ffp-contract=off here, -fmad=false under nvcc). */
#ifndef MARS_QUANT_MATH_H
#define MARS_QUANT_MATH_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define QM_FN static __host__ __device__ inline
#else
#define QM_FN static inline
#endif

/* The neighbours of the virtual index (m-1)*q (both the last past the end,
 * both the first below 0) and gamma, which numpy computes from the adjusted
 * previous index (-1 past the end). */
QM_FN void qm_pos(int64_t m, double q, int64_t *pi, int64_t *ni, double *g)
{
    double vi = (double)(m - 1) * q;
    int64_t p = (int64_t)floor(vi), nx = p + 1;
    if (vi >= (double)(m - 1)) p = nx = -1;
    if (vi < 0) p = nx = 0;
    if (g) *g = vi - (double)p;
    *pi = p < 0 ? m + p : p;
    *ni = nx < 0 ? m + nx : nx;
}

/* numpy's _lerp of a and b (as float64) by t, d = b - a in the input's
 * dtype (the qm_lerp_* below). */
QM_FN double qm_lerp(double a, double b, double d, double t)
{
    double r = a + d * t;
    if (t >= 0.5) r = b - d * (1 - t);
    return r;
}

QM_FN double qm_lerp_f32(float a, float b, double t)
{
    return qm_lerp(a, b, (double)(float)(b - a), t);
}

QM_FN double qm_lerp_i32(int32_t a, int32_t b, double t)
{
    return qm_lerp(a, b, (double)(int32_t)((uint32_t)b - (uint32_t)a), t);
}

QM_FN double qm_lerp_i64(int64_t a, int64_t b, double t)
{
    return qm_lerp((double)a, (double)b, (double)(int64_t)((uint64_t)b - (uint64_t)a), t);
}

QM_FN double qm_lerp_f64(double a, double b, double t)
{
    return qm_lerp(a, b, b - a, t);
}

/* The mean of a median's middle two, in the input's float type. */
QM_FN double qm_mid_f32(float a, float b)
{
    return (double)((a + b) / 2.0f);
}

QM_FN double qm_mid_f64(double a, double b)
{
    return (a + b) / 2.0;
}

#endif
