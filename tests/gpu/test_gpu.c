/* test_gpu: the CUDA path's first kernels on a real device (tests/gpu/run.sh
 * runs it when nvidia-smi lists one; docs/gpu.md). Built only when the build
 * has nvcc. Compares each kernel with the CPU: element-wise add and multiply
 * bit for bit, the sum and cuBLAS's dot within rounding; and the device
 * checks of --cuda-devices (an index past the count refused).
 *
 * Prints `ok NAME` or `FAIL NAME: reason` per case and ends with
 * `RESULT passed=N failed=M`. Usage: test_gpu [DEVICE] (default 0). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/gpu.h"

static int passed, failed;

static void result(const char *name, int ok, const char *why)
{
    if (ok) {
        passed++;
        printf("ok %s\n", name);
    } else {
        failed++;
        printf("FAIL %s: %s\n", name, why);
    }
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--dgemm-peak") == 0) {
        /* bench/gpu.py: cuBLAS alone, n x n float64, on device 0 */
        double s;
        char e[512];
        long long n = atoll(argv[2]);
        if (gpu_bench_dgemm(0, n, 5, &s, e, sizeof e)) {
            fprintf(stderr, "test_gpu: %s\n", e);
            return 1;
        }
        printf("dgemm %lld: %.6f s, %.1f TFLOP/s\n", n, s, 2.0 * (double)n * n * n / s / 1e12);
        return 0;
    }
    int dev = argc > 1 ? atoi(argv[1]) : 0;
    char err[512] = "", why[600];
    int n = 0;
    result("built", gpu_built(), "this build has no CUDA path");
    int rc = gpu_device_count(&n, err, sizeof err);
    snprintf(why, sizeof why, "rc %d, %d devices: %s", rc, n, err);
    result("device-count", rc == 0 && n > dev, why);
    if (rc || n <= dev) goto done;
    char name[256];
    int64_t mem = 0;
    rc = gpu_device_info(dev, name, sizeof name, &mem, err, sizeof err);
    printf("# device %d: %s, %lld MiB; %s\n", dev, rc ? "?" : name, (long long)(mem >> 20),
           gpu_build_info());
    result("device-info", rc == 0 && mem > 0, err);
    int list[2] = {dev, n};
    rc = gpu_check_devices(list, 1, err, sizeof err);
    result("check-listed", rc == 0, err);
    rc = gpu_check_devices(list, 2, err, sizeof err);
    result("check-past-count", rc != 0 && strstr(err, "does not exist"), err);

    const int64_t N = 3 * 1000 * 1000 + 7; /* not a multiple of the block */
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *o = malloc(N * sizeof *o);
    if (!a || !b || !o) {
        result("alloc", 0, "out of host memory");
        goto done;
    }
    srand(7);
    for (int64_t i = 0; i < N; i++) {
        a[i] = (double)rand() / RAND_MAX * 200.0 - 100.0;
        b[i] = (double)rand() / RAND_MAX * 3.0 + 1e-3;
    }
    for (int k = 0; k < 2; k++) {
        gpu_ew_op_t op = k ? GPU_MULTIPLY : GPU_ADD;
        rc = gpu_ew_f64(dev, op, a, b, o, N, err, sizeof err);
        int64_t bad = rc ? N : 0;
        for (int64_t i = 0; !rc && i < N; i++) {
            volatile double x = k ? a[i] * b[i] : a[i] + b[i];
            if (memcmp((const void *)&x, &o[i], sizeof x) != 0) bad++;
        }
        snprintf(why, sizeof why, "rc %d (%s), %lld of %lld values differ from the CPU's bits", rc,
                 err, (long long)bad, (long long)N);
        result(k ? "multiply-bits" : "add-bits", bad == 0, why);
    }
    double cpu = 0, cabs = 0, dcpu = 0, dabs = 0, g = 0;
    for (int64_t i = 0; i < N; i++) {
        cpu += a[i];
        cabs += fabs(a[i]);
        dcpu += a[i] * b[i];
        dabs += fabs(a[i] * b[i]);
    }
    rc = gpu_sum_f64(dev, a, N, &g, err, sizeof err);
    snprintf(why, sizeof why, "rc %d (%s): %.17g, CPU %.17g", rc, err, g, cpu);
    result("sum", rc == 0 && fabs(g - cpu) <= 1e-12 * cabs, why);
    rc = gpu_dot_f64(dev, a, b, N, &g, err, sizeof err);
    snprintf(why, sizeof why, "rc %d (%s): %.17g, CPU %.17g", rc, err, g, dcpu);
    result("cublas-dot", rc == 0 && fabs(g - dcpu) <= 1e-12 * dabs, why);
    free(a);
    free(b);
    free(o);
done:
    printf("RESULT passed=%d failed=%d\n", passed, failed);
    return failed ? 1 : 0;
}
