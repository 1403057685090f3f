/* gpu.h: the engine's CUDA path (docs/gpu.md). A build with nvcc (the
 * Makefile finds it at $(NVCC), default /usr/local/cuda/bin/nvcc) compiles
 * gpu.cu against the CUDA runtime and cuBLAS; a build without it links
 * gpu_stub.c, whose functions all fail with "built without CUDA". The
 * sanitizer build always links the stub (the CUDA runtime does not start
 * under ASan's default shadow layout).
 *
 * Every function returns 0, or -1 with a one-line message in err. Arrays are
 * host memory; the functions copy them to device `dev` and back. No tensor op
 * runs on the GPU yet: these are the first kernels and the device checks
 * that --cuda-devices needs. */
#ifndef MARS_GPU_H
#define MARS_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Device indices a list may name: 0 .. GPU_MAX_DEVICES - 1. */
#define GPU_MAX_DEVICES 64

/* 1 when this build has the CUDA path. */
int gpu_built(void);
/* "CUDA runtime 13000, built with nvcc" or "built without CUDA ...". */
const char *gpu_build_info(void);

/* Parses a device list such as "0,1" ("" is none) into dev[0 .. *n). */
int gpu_parse_devices(const char *s, int *dev, int *n, char *err, size_t errlen);

/* How many devices the CUDA runtime sees (cudaGetDeviceCount). */
int gpu_device_count(int *n, char *err, size_t errlen);
/* Its name and memory in bytes. */
int gpu_device_info(int dev, char *name, size_t cap, int64_t *mem, char *err, size_t errlen);
/* Fails naming the first listed device the runtime cannot use: this build
 * has no CUDA, the runtime finds no device, or an index is past the count. */
int gpu_check_devices(const int *dev, int n, char *err, size_t errlen);

typedef enum { GPU_ADD, GPU_MULTIPLY } gpu_ew_op_t;
/* out[i] = a[i] op b[i] for i < n, float64, on device dev (IEEE, no
 * contraction: the bits of the CPU's kernels). */
int gpu_ew_f64(int dev, gpu_ew_op_t op, const double *a, const double *b, double *out, int64_t n,
               char *err, size_t errlen);
/* *out = sum of a[0 .. n), float64, by a tree over the device's blocks (the
 * order differs from the CPU's pairwise sum: equal within rounding). */
int gpu_sum_f64(int dev, const double *a, int64_t n, double *out, char *err, size_t errlen);
/* *out = a . b through cuBLAS (cublasDdot). */
int gpu_dot_f64(int dev, const double *a, const double *b, int64_t n, double *out, char *err,
                size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
