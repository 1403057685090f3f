/* gpu_stub.c: gpu.h in a build without CUDA (no nvcc at build time, or the
 * sanitizer build): every device function fails, saying so. */
#include <stdio.h>

#include "gpu.h"

#define NO_CUDA                                                                                    \
    "this build has no CUDA (built without nvcc; make with NVCC=/path/to/nvcc: docs/gpu.md)"

static int none(char *err, size_t errlen)
{
    snprintf(err, errlen, "%s", NO_CUDA);
    return -1;
}

int gpu_built(void)
{
    return 0;
}

const char *gpu_build_info(void)
{
    return "built without CUDA";
}

int gpu_device_count(int *n, char *err, size_t errlen)
{
    *n = 0;
    return none(err, errlen);
}

int gpu_device_info(int dev, char *name, size_t cap, int64_t *mem, char *err, size_t errlen)
{
    return none(err, errlen);
}

int gpu_check_devices(const int *dev, int n, char *err, size_t errlen)
{
    return n == 0 ? 0 : none(err, errlen); /* an empty list asks for no device */
}

int gpu_ew_f64(int dev, gpu_ew_op_t op, const double *a, const double *b, double *out, int64_t n,
               char *err, size_t errlen)
{
    return none(err, errlen);
}

int gpu_sum_f64(int dev, const double *a, int64_t n, double *out, char *err, size_t errlen)
{
    return none(err, errlen);
}

int gpu_dot_f64(int dev, const double *a, const double *b, int64_t n, double *out, char *err,
                size_t errlen)
{
    return none(err, errlen);
}

/* The tensor jobs' part: nothing opens, so nothing else is reached. */
int gpu_open(int dev, int64_t mem_limit, char *err, size_t errlen)
{
    return none(err, errlen);
}

void gpu_store_stats(int dev, int64_t *used, int64_t *limit, int64_t *peak)
{
    *used = *limit = *peak = 0;
}

int gpu_to_host(const void *host, char *err, size_t errlen)
{
    return 0;
}

void gpu_forget(const void *host) {}

int gpu_nvml(int dev, int64_t *mem_total, int64_t *mem_used, int *util_pct)
{
    *mem_total = *mem_used = -1;
    *util_pct = -1;
    return -1;
}

gpu_job_t *gpu_job_begin(int dev, const gpu_prefetch_t *reads, char *err, size_t errlen)
{
    none(err, errlen);
    return NULL;
}

int gpu_job_in(gpu_job_t *j, const void *host, size_t bytes, int keep, const void **dptr)
{
    return -1;
}

int gpu_job_tmp(gpu_job_t *j, size_t bytes, void **dptr)
{
    return -1;
}

int gpu_job_prefetch(gpu_job_t *j, const void *host, size_t bytes)
{
    return -1;
}

int gpu_job_prefetch_waiting(gpu_job_t *j)
{
    return -1;
}

int gpu_job_out(gpu_job_t *j, void *host, size_t bytes, void **dptr)
{
    return -1;
}

int gpu_job_end(gpu_job_t *j, int ok, char *err, size_t errlen)
{
    return none(err, errlen);
}

const char *gpu_job_error(const gpu_job_t *j)
{
    return NO_CUDA;
}

int gpu_k_ew(gpu_job_t *j, const gpu_ew_t *p, const void *const *in, void *out)
{
    return -1;
}

int gpu_k_red(gpu_job_t *j, const gpu_red_t *r, void *partial)
{
    return -1;
}

int gpu_k_scan_local(gpu_job_t *j, int prod, int nan, int in_dt, int out_dt, const void *in,
                     void *out, int64_t outer, int64_t n, int64_t inner)
{
    return -1;
}

int gpu_k_scan_carry(gpu_job_t *j, int prod, int dt, const void *prev_carry, const void *prev_local,
                     void *out, int64_t outer, int64_t n, int64_t inner)
{
    return -1;
}

int gpu_k_scan_apply(gpu_job_t *j, int prod, int dt, const void *local, const void *carry,
                     void *out, int64_t outer, int64_t n, int64_t inner)
{
    return -1;
}

int gpu_k_gemm(gpu_job_t *j, int dt, int ta, int tb, int64_t m, int64_t n, int64_t k, const void *a,
               const void *b, void *c, int accumulate)
{
    return -1;
}

int gpu_k_gemm_batched(gpu_job_t *j, int dt, int64_t m, int64_t n, int64_t k, const void *a,
                       int64_t sa, const void *b, int64_t sb, void *c, int64_t count,
                       int accumulate)
{
    return -1;
}

int gpu_k_syrk(gpu_job_t *j, int dt, int64_t m, int64_t k, const void *a, void *c, int accumulate)
{
    return -1;
}

int gpu_k_mirror(gpu_job_t *j, int dt, int64_t m, void *c)
{
    return -1;
}

int gpu_k_random(gpu_job_t *j, const gpu_rand_t *r, void *out)
{
    return -1;
}

int gpu_k_fill(gpu_job_t *j, const void *val, size_t es, int64_t n, void *out)
{
    return -1;
}

int gpu_k_sort(gpu_job_t *j, const gpu_sort_t *s, const void *in, void *out)
{
    return -1;
}

int gpu_k_merge(gpu_job_t *j, const gpu_merge_t *m, const void *x, const void *y, void *out)
{
    return -1;
}

int gpu_k_search(gpu_job_t *j, const gpu_search_t *s, const void *x, const void *a, void *out)
{
    return -1;
}

int gpu_k_create(gpu_job_t *j, const gpu_create_t *c, void *out)
{
    return -1;
}

int64_t gpu_device_jobs(int dev)
{
    return 0;
}

int64_t gpu_prefetched_bytes(int dev)
{
    return 0;
}

void gpu_copy_stats(int64_t *in_bytes, double *in_s, int64_t *out_bytes, double *out_s)
{
    *in_bytes = *out_bytes = 0;
    *in_s = *out_s = 0;
}

int gpu_bench_dgemm(int dev, int64_t n, int reps, double *seconds, char *err, size_t errlen)
{
    return none(err, errlen);
}

int gpu_k_piece(gpu_job_t *j, const gpu_piece_t *p, const void *src, void *dst)
{
    return -1;
}

int gpu_k_copy(gpu_job_t *j, const void *src, void *dst, size_t bytes)
{
    return -1;
}
