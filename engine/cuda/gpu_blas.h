/* gpu_blas.h: cuBLAS for gpu.cu and gpu_job.cu (C++ only), loaded once on
 * first use with dlopen: linked, cuBLAS and cuBLASLt cost every process
 * 0.7 s and 200 MB at start, GPU or not (docs/gpu.md). Handles are void *,
 * statuses int (0: success), as cublas_v2.h has them by value. */
#ifndef MARS_GPU_BLAS_H
#define MARS_GPU_BLAS_H

#include <cuda_runtime.h>

typedef struct {
    int (*create)(void **);
    int (*destroy)(void *);
    int (*stream)(void *, cudaStream_t);
    int (*ddot)(void *, int, const double *, int, const double *, int, double *);
    int (*dgemm)(void *, int, int, int, int, int, const double *, const double *, int,
                 const double *, int, const double *, double *, int);
    int (*sgemm)(void *, int, int, int, int, int, const float *, const float *, int, const float *,
                 int, const float *, float *, int);
    int (*dgemm_sb)(void *, int, int, int, int, int, const double *, const double *, int, long long,
                    const double *, int, long long, const double *, double *, int, long long, int);
    int (*sgemm_sb)(void *, int, int, int, int, int, const float *, const float *, int, long long,
                    const float *, int, long long, const float *, float *, int, long long, int);
    int (*dsyrk)(void *, int, int, int, int, const double *, const double *, int, const double *,
                 double *, int);
    int (*ssyrk)(void *, int, int, int, int, const float *, const float *, int, const float *,
                 float *, int);
} gpu_blas_t;

/* The functions, or NULL with the reason in *why. */
const gpu_blas_t *gpu_blas(const char **why);

#endif
