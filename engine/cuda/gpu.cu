/* gpu.cu: gpu.h on the CUDA runtime and cuBLAS, compiled by nvcc when the
 * Makefile finds it (docs/gpu.md). Host arrays in, host arrays out: each call
 * allocates device memory, copies, runs, copies back and frees, so a failure
 * anywhere leaves nothing behind. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "gpu_blas.h"

/* Fails the call with the runtime's message when e is an error. */
#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            snprintf(err, errlen, "%s: %s", #call, cudaGetErrorString(e_));                        \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

static char info[96];

extern "C" int gpu_built(void)
{
    return 1;
}

extern "C" const char *gpu_build_info(void)
{
    int rt = 0;
    if (cudaRuntimeGetVersion(&rt) != cudaSuccess) rt = 0;
    snprintf(info, sizeof info, "CUDA runtime %d.%d (built with nvcc, CUDA %d.%d)", rt / 1000,
             rt % 1000 / 10, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    return info;
}

extern "C" int gpu_device_count(int *n, char *err, size_t errlen)
{
    *n = 0;
    cudaError_t e = cudaGetDeviceCount(n);
    if (e != cudaSuccess) {
        *n = 0;
        snprintf(err, errlen, "the CUDA runtime finds no device (cudaGetDeviceCount: %s)",
                 cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

extern "C" int gpu_device_info(int dev, char *name, size_t cap, int64_t *mem, char *err,
                               size_t errlen)
{
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, dev));
    snprintf(name, cap, "%s", p.name);
    *mem = (int64_t)p.totalGlobalMem;
    return 0;
fail:
    return -1;
}

extern "C" int gpu_check_devices(const int *dev, int n, char *err, size_t errlen)
{
    if (n == 0) return 0;
    int count;
    if (gpu_device_count(&count, err, errlen)) return -1;
    for (int i = 0; i < n; i++) {
        if (dev[i] < 0 || dev[i] >= count) {
            snprintf(err, errlen, "device %d does not exist (the CUDA runtime sees %d device%s)",
                     dev[i], count, count == 1 ? "" : "s");
            return -1;
        }
    }
    return 0;
}

__global__ void k_ew(int op, const double *a, const double *b, double *o, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        o[i] = op == GPU_ADD ? __dadd_rn(a[i], b[i]) : __dmul_rn(a[i], b[i]);
}

/* One partial sum per block: a grid-stride loop, then a tree in shared
 * memory. */
#define SUM_THREADS 256
__global__ void k_sum(const double *a, int64_t n, double *part)
{
    __shared__ double s[SUM_THREADS];
    double acc = 0.0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        acc += a[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = SUM_THREADS / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) part[blockIdx.x] = s[0];
}

static int blocks_for(int64_t n, int threads)
{
    int64_t b = (n + threads - 1) / threads;
    return b < 1 ? 1 : b > 1024 ? 1024 : (int)b;
}

extern "C" int gpu_ew_f64(int dev, gpu_ew_op_t op, const double *a, const double *b, double *out,
                          int64_t n, char *err, size_t errlen)
{
    double *da = NULL, *db = NULL, *dout = NULL;
    size_t bytes = (size_t)n * sizeof(double);
    if (n < 0 || (uint64_t)n > SIZE_MAX / sizeof(double)) {
        snprintf(err, errlen, "%lld elements: too many", (long long)n);
        return -1;
    }
    if (n == 0) return 0;
    CK(cudaSetDevice(dev));
    CK(cudaMalloc((void **)&da, bytes));
    CK(cudaMalloc((void **)&db, bytes));
    CK(cudaMalloc((void **)&dout, bytes));
    CK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    k_ew<<<blocks_for(n, 256), 256>>>((int)op, da, db, dout, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));
    cudaFree(da);
    cudaFree(db);
    cudaFree(dout);
    return 0;
fail:
    cudaFree(da);
    cudaFree(db);
    cudaFree(dout);
    return -1;
}

extern "C" int gpu_sum_f64(int dev, const double *a, int64_t n, double *out, char *err,
                           size_t errlen)
{
    double *da = NULL, *dpart = NULL, part[1024];
    int nb = blocks_for(n, SUM_THREADS);
    size_t bytes = (size_t)n * sizeof(double);
    *out = 0.0;
    if (n < 0 || (uint64_t)n > SIZE_MAX / sizeof(double)) {
        snprintf(err, errlen, "%lld elements: too many", (long long)n);
        return -1;
    }
    if (n == 0) return 0;
    CK(cudaSetDevice(dev));
    CK(cudaMalloc((void **)&da, bytes));
    CK(cudaMalloc((void **)&dpart, (size_t)nb * sizeof(double)));
    CK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    k_sum<<<nb, SUM_THREADS>>>(da, n, dpart);
    CK(cudaGetLastError());
    CK(cudaMemcpy(part, dpart, (size_t)nb * sizeof(double), cudaMemcpyDeviceToHost));
    for (int i = 0; i < nb; i++)
        *out += part[i];
    cudaFree(da);
    cudaFree(dpart);
    return 0;
fail:
    cudaFree(da);
    cudaFree(dpart);
    return -1;
}

extern "C" int gpu_dot_f64(int dev, const double *a, const double *b, int64_t n, double *out,
                           char *err, size_t errlen)
{
    double *da = NULL, *db = NULL;
    void *h = NULL;
    int st;
    const char *why;
    const gpu_blas_t *cb;
    size_t bytes = (size_t)n * sizeof(double);
    *out = 0.0;
    if (n < 0 || n > 0x7fffffff) {
        snprintf(err, errlen, "%lld elements: cublasDdot takes at most 2^31 - 1", (long long)n);
        return -1;
    }
    if (n == 0) return 0;
    if (!(cb = gpu_blas(&why))) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    CK(cudaSetDevice(dev));
    CK(cudaMalloc((void **)&da, bytes));
    CK(cudaMalloc((void **)&db, bytes));
    CK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    st = cb->create(&h);
    if (st != 0) {
        snprintf(err, errlen, "cublasCreate: status %d", (int)st);
        goto fail;
    }
    st = cb->ddot(h, (int)n, da, 1, db, 1, out);
    if (st != 0) {
        snprintf(err, errlen, "cublasDdot: status %d", (int)st);
        goto fail;
    }
    cb->destroy(h);
    cudaFree(da);
    cudaFree(db);
    return 0;
fail:
    if (h) cb->destroy(h);
    cudaFree(da);
    cudaFree(db);
    return -1;
}
