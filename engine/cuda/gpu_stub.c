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
