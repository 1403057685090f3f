/* gpu_job.cu: the device store and the tensor kernels of gpu.h, compiled
 * by nvcc when the Makefile finds it (docs/gpu.md).
 *
 * Bit parity with the CPU kernels: nvcc is run with -fmad=false (no fused
 * multiply-add where the CPU code has none) and without fast math, so +, -,
 * *, /, sqrt and conversions are IEEE's, as on x86-64; casts out of range
 * give the integer's minimum as cvttsd2si does (engine/cast.h). Library
 * functions (exp, log, sin, ...) are CUDA's, within an ulp or two of glibc's.
 * Float sums run as trees over blocks: equal to the CPU's pairwise sums
 * within rounding, not bit for bit. */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../kern/rand_math.h"
#include "gpu.h"
#include "gpu_dev.h"
#include "gpu_blas.h"

/* ---- pinned staging ---------------------------------------------------------
 * Copies of 1 MiB and more go through a pair of pinned 8 MiB buffers, two
 * chunks in flight: the DMA of one chunk runs while the CPU copies the other
 * between the pinned buffer and the pageable chunk (a copy straight into
 * fresh pageable pages ran at 1.0-1.5 GB/s on an H100 host). Pairs are made
 * on first use, per device, at most STAGE_MAX, and reused. */
#define STAGE_BYTES ((size_t)8 << 20)
#define STAGE_MIN ((size_t)1 << 20)
#define STAGE_MAX 16

typedef struct stage {
    void *buf[2];
    cudaEvent_t ev[2];
    struct stage *next;
} stage_t;
static pthread_mutex_t stage_mu = PTHREAD_MUTEX_INITIALIZER;
static stage_t *stage_free[GPU_MAX_DEVICES];
static int stage_made[GPU_MAX_DEVICES];

/* A staging pair for dev (the caller's current device), or NULL: copy
 * directly. */
static stage_t *stage_get(int dev)
{
    pthread_mutex_lock(&stage_mu);
    stage_t *s = stage_free[dev];
    if (s) {
        stage_free[dev] = s->next;
    } else if (stage_made[dev] < STAGE_MAX && (s = (stage_t *)calloc(1, sizeof *s))) {
        bool ok = true;
        for (int i = 0; i < 2 && ok; i++)
            ok = cudaHostAlloc(&s->buf[i], STAGE_BYTES, cudaHostAllocPortable) == cudaSuccess &&
                 cudaEventCreateWithFlags(&s->ev[i], cudaEventDisableTiming) == cudaSuccess;
        if (ok) {
            stage_made[dev]++;
        } else {
            cudaGetLastError();
            for (int i = 0; i < 2; i++) {
                if (s->buf[i]) cudaFreeHost(s->buf[i]);
                if (s->ev[i]) cudaEventDestroy(s->ev[i]);
            }
            free(s);
            s = NULL;
        }
    }
    pthread_mutex_unlock(&stage_mu);
    return s;
}

static void stage_put(int dev, stage_t *s)
{
    pthread_mutex_lock(&stage_mu);
    s->next = stage_free[dev];
    stage_free[dev] = s;
    pthread_mutex_unlock(&stage_mu);
}

static size_t chunk_len(size_t n, size_t i)
{
    size_t off = i * STAGE_BYTES;
    return n - off < STAGE_BYTES ? n - off : STAGE_BYTES;
}

/* Device to pageable host, synchronously, on stream st of dev. */
static cudaError_t d2h(void *dst, const void *src, size_t n, int dev, cudaStream_t st)
{
    stage_t *s = n >= STAGE_MIN ? stage_get(dev) : NULL;
    cudaError_t r;
    if (!s) {
        r = cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, st);
        return r == cudaSuccess ? cudaStreamSynchronize(st) : r;
    }
    size_t nch = (n + STAGE_BYTES - 1) / STAGE_BYTES;
    r = cudaMemcpyAsync(s->buf[0], src, chunk_len(n, 0), cudaMemcpyDeviceToHost, st);
    if (r == cudaSuccess) r = cudaEventRecord(s->ev[0], st);
    for (size_t i = 0; i < nch && r == cudaSuccess; i++) {
        if (i + 1 < nch) {
            /* the other buffer is free: its chunk was copied out last round */
            r = cudaMemcpyAsync(s->buf[(i + 1) % 2], (const char *)src + (i + 1) * STAGE_BYTES,
                                chunk_len(n, i + 1), cudaMemcpyDeviceToHost, st);
            if (r == cudaSuccess) r = cudaEventRecord(s->ev[(i + 1) % 2], st);
        }
        if (r == cudaSuccess) r = cudaEventSynchronize(s->ev[i % 2]);
        if (r == cudaSuccess) memcpy((char *)dst + i * STAGE_BYTES, s->buf[i % 2], chunk_len(n, i));
    }
    if (r != cudaSuccess) cudaStreamSynchronize(st); /* nothing in flight into the pair */
    stage_put(dev, s);
    return r;
}

/* Pageable host to device, on stream st of dev; the pageable source may be
 * reused when it returns. */
static cudaError_t h2d(void *dst, const void *src, size_t n, int dev, cudaStream_t st)
{
    stage_t *s = n >= STAGE_MIN ? stage_get(dev) : NULL;
    if (!s) return cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, st);
    size_t nch = (n + STAGE_BYTES - 1) / STAGE_BYTES;
    cudaError_t r = cudaSuccess;
    for (size_t i = 0; i < nch && r == cudaSuccess; i++) {
        int b = (int)(i % 2);
        /* the buffer's previous chunk has reached the device */
        if (i >= 2) r = cudaEventSynchronize(s->ev[b]);
        if (r != cudaSuccess) break;
        memcpy(s->buf[b], (const char *)src + i * STAGE_BYTES, chunk_len(n, i));
        r = cudaMemcpyAsync((char *)dst + i * STAGE_BYTES, s->buf[b], chunk_len(n, i),
                            cudaMemcpyHostToDevice, st);
        if (r == cudaSuccess) r = cudaEventRecord(s->ev[b], st);
    }
    /* the pair goes back once both its chunks have landed */
    cudaError_t w = cudaStreamSynchronize(st);
    stage_put(dev, s);
    return r != cudaSuccess ? r : w;
}

/* ---- the device's memory operations (gpu_store.h) ---------------------- */

typedef cudaError_t be_err_t;
typedef cudaStream_t be_stream_t;
#define BE_OK cudaSuccess
#define BE_NOMEM cudaErrorMemoryAllocation

static const char *be_errstr(be_err_t r)
{
    return cudaGetErrorString(r);
}

static void be_set_device(int dev)
{
    cudaSetDevice(dev);
}

/* the job, copy-back and prefetch streams; freed memory kept in the pool (a chunk's buffer
 * is reused by the next) */
static be_err_t be_open(int dev, be_stream_t *s, be_stream_t *copy, be_stream_t *pre,
                        size_t *free_bytes)
{
    size_t tot;
    cudaError_t r;
    if ((r = cudaSetDevice(dev)) != cudaSuccess ||
        (r = cudaStreamCreateWithFlags(s, cudaStreamNonBlocking)) != cudaSuccess ||
        (r = cudaStreamCreateWithFlags(copy, cudaStreamNonBlocking)) != cudaSuccess ||
        (r = cudaStreamCreateWithFlags(pre, cudaStreamNonBlocking)) != cudaSuccess ||
        (r = cudaMemGetInfo(free_bytes, &tot)) != cudaSuccess)
        return r;
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) {
        uint64_t thr = UINT64_MAX;
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr);
    }
    return cudaSuccess;
}

static be_err_t be_malloc(int dev, be_stream_t s, size_t n, void **p)
{
    cudaSetDevice(dev);
    cudaError_t r = cudaMallocAsync(p, n, s);
    if (r == cudaErrorMemoryAllocation) cudaGetLastError(); /* not sticky */
    return r;
}

static void be_free(int dev, be_stream_t s, void *p)
{
    cudaSetDevice(dev);
    cudaFreeAsync(p, s);
}

static be_err_t be_zero(void *p, size_t n, be_stream_t s)
{
    return cudaMemsetAsync(p, 0, n, s);
}

static be_err_t be_sync(be_stream_t s)
{
    cudaError_t r = cudaStreamSynchronize(s);
    return r == cudaSuccess ? cudaGetLastError() : r;
}

static void be_output_kept(const void *host, size_t bytes)
{
    (void)host;
    (void)bytes;
}

#define be_h2d h2d
#define be_d2h d2h

#include "gpu_store.h"

/* ------------------------------------------------------------------ NVML */

typedef struct {
    unsigned long long total, free, used;
} nvml_mem_t;
typedef struct {
    unsigned gpu, memory;
} nvml_util_t;
static struct {
    int (*init)(void);
    int (*by_index)(unsigned, void **);
    int (*mem)(void *, nvml_mem_t *);
    int (*util)(void *, nvml_util_t *);
    bool ok;
} nv;
static pthread_once_t nv_once = PTHREAD_ONCE_INIT;

static void nv_load(void)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    nv.init = (int (*)(void))dlsym(h, "nvmlInit_v2");
    nv.by_index = (int (*)(unsigned, void **))dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
    nv.mem = (int (*)(void *, nvml_mem_t *))dlsym(h, "nvmlDeviceGetMemoryInfo");
    nv.util = (int (*)(void *, nvml_util_t *))dlsym(h, "nvmlDeviceGetUtilizationRates");
    nv.ok = nv.init && nv.by_index && nv.mem && nv.util && nv.init() == 0;
}

extern "C" int gpu_nvml(int dev, int64_t *mem_total, int64_t *mem_used, int *util_pct)
{
    pthread_once(&nv_once, nv_load);
    *mem_total = *mem_used = -1;
    *util_pct = -1;
    void *h;
    if (!nv.ok || nv.by_index((unsigned)dev, &h) != 0) return -1;
    nvml_mem_t m;
    nvml_util_t u;
    if (nv.mem(h, &m) == 0) {
        *mem_total = (int64_t)m.total;
        *mem_used = (int64_t)m.used;
    }
    if (nv.util(h, &u) == 0) *util_pct = (int)u.gpu;
    return 0;
}


#define GRID_LOOP(k, n)                                                                           \
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < (n);                 \
         k += (long long)gridDim.x * blockDim.x)

__global__ void k_ew_prog(const gpu_ew_t p, const ew_args a, void *out)
{
    GRID_LOOP(k, p.n)
    ew_prog_item(p, a, out, k);
}

static int grid_for(long long n, int threads)
{
    long long b = (n + threads - 1) / threads;
    return b < 1 ? 1 : b > 65536 ? 65536 : (int)b;
}

static int launched(gpu_job_t *j, const char *what)
{
    return jcheck(j, cudaGetLastError(), what);
}

extern "C" int gpu_k_ew(gpu_job_t *j, const gpu_ew_t *p, const void *const *in, void *out)
{
    if (j->failed) return -1;
    if (p->n == 0) return 0;
    ew_args a;
    for (int i = 0; i < p->n_inputs && i < GPU_EW_IN; i++)
        a.in[i] = in[i];
    k_ew_prog<<<grid_for(p->n, 256), 256, 0, j->s>>>(*p, a, out);
    return launched(j, "an element-wise program");
}

/* Block (o, s) reduces position o's indices [s * seg, (s + 1) * seg) into
 * acc[o * nseg + s]: a strided walk per thread, then a tree. */
template <typename T> __global__ void k_red_seg(const red_args A, long long seg, int nseg, T *acc)
{
    __shared__ T sh[RED_THREADS];
    const gpu_red_t &r = A.r;
    long long o = blockIdx.x / nseg;
    int s = blockIdx.x % nseg;
    long long q0 = s * seg, q1 = q0 + seg < r.n_red ? q0 + seg : r.n_red;
    sh[threadIdx.x] = red_walk<T>(A, o, q0, q1, threadIdx.x, blockDim.x);
    __syncthreads();
    for (int w = RED_THREADS / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w) T::merge(r, &sh[threadIdx.x], sh[threadIdx.x + w]);
        __syncthreads();
    }
    if (threadIdx.x == 0) acc[o * nseg + s] = sh[0];
}

/* Thread per position, serially over a short reduced range. */
template <typename T> __global__ void k_red_rows(const red_args A, T *acc)
{
    GRID_LOOP(o, A.r.n_out)
    red_rows_item<T>(A, acc, o);
}

/* The nseg accumulators of each position, in order, into the partial. */
template <typename T>
__global__ void k_red_final(const gpu_red_t r, int nseg, const T *acc, void *partial)
{
    GRID_LOOP(o, r.n_out)
    red_final_item<T>(r, nseg, acc, partial, o);
}

/* rows: a thread per position (nseg 1); else nseg blocks per position. */
template <typename T>
static int red_run(gpu_job_t *j, const red_args &A, bool rows, int nseg, void *partial)
{
    const gpu_red_t *r = &A.r;
    void *acc;
    if (gpu_job_tmp(j, (size_t)r->n_out * (size_t)nseg * sizeof(T), &acc)) return -1;
    if (rows) {
        k_red_rows<T><<<grid_for(r->n_out, 128), 128, 0, j->s>>>(A, (T *)acc);
    } else {
        if (r->n_out * (long long)nseg > 0x7fffffffLL) JFAIL(j, "too many reduction blocks");
        long long seg = (r->n_red + nseg - 1) / nseg;
        k_red_seg<T><<<(unsigned)(r->n_out * nseg), RED_THREADS, 0, j->s>>>(A, seg, nseg,
                                                                           (T *)acc);
    }
    if (launched(j, "a reduction")) return -1;
    k_red_final<T><<<grid_for(r->n_out, 128), 128, 0, j->s>>>(*r, nseg, (const T *)acc,
                                                             partial);
    return launched(j, "a reduction's last step");
}

extern "C" int gpu_k_red(gpu_job_t *j, const gpu_red_t *r, void *partial)
{
    if (j->failed) return -1;
    if (r->n_out == 0) return 0;
    red_args A;
    red_args_init(&A, r);
    bool rows;
    int nseg;
    red_plan(*r, &rows, &nseg);
    return red_by_acc(r->op, [&](auto acc) {
        return red_run<decltype(acc)>(j, A, rows, nseg, partial);
    });
}


__global__ void k_scan_line(int prod, int nan, int in_dt, int out_dt, const void *in, void *out,
                            long long outer, long long n, long long inner)
{
    GRID_LOOP(l, outer * inner)
    scan_line_item(prod, nan, in_dt, out_dt, in, out, n, inner, l);
}


__global__ void k_scan_tot(int prod, int nan, int in_dt, int out_dt, const void *in, u64 *tot,
                           long long outer, long long n, long long inner, long long nseg)
{
    GRID_LOOP(t, outer * inner * nseg)
    scan_tot_item(prod, nan, in_dt, out_dt, in, tot, outer, n, inner, t);
}

__global__ void k_scan_carry_in(int prod, int dt, u64 *tot, long long lines, long long nseg)
{
    GRID_LOOP(l, lines)
    scan_carry_in_item(prod, dt, tot, lines, nseg, l);
}

__global__ void k_scan_seg(int prod, int nan, int in_dt, int out_dt, const void *in, void *out,
                           const u64 *carry, long long outer, long long n, long long inner,
                           long long nseg)
{
    GRID_LOOP(t, outer * inner * nseg)
    scan_seg_item(prod, nan, in_dt, out_dt, in, out, carry, outer, n, inner, t);
}

extern "C" int gpu_k_scan_local(gpu_job_t *j, int prod, int nan, int in_dt, int out_dt, const void *in,
                                void *out, int64_t outer, int64_t n, int64_t inner)
{
    if (j->failed) return -1;
    long long lines = (long long)outer * inner;
    if (lines == 0 || n == 0) return 0;
    long long nseg = (n + SCAN_SEG - 1) / SCAN_SEG;
    if (scan_by_line(out_dt, nseg, lines)) {
        k_scan_line<<<grid_for(lines, 128), 128, 0, j->s>>>(prod, nan, in_dt, out_dt, in, out, outer,
                                                            n, inner);
        return launched(j, "a scan");
    }
    void *tot;
    if (gpu_job_tmp(j, (size_t)(lines * nseg) * 8, &tot)) return -1;
    k_scan_tot<<<grid_for(lines * nseg, 128), 128, 0, j->s>>>(prod, nan, in_dt, out_dt, in,
                                                              (u64 *)tot, outer, n, inner, nseg);
    k_scan_carry_in<<<grid_for(lines, 128), 128, 0, j->s>>>(prod, out_dt, (u64 *)tot, lines,
                                                            nseg);
    k_scan_seg<<<grid_for(lines * nseg, 128), 128, 0, j->s>>>(
        prod, nan, in_dt, out_dt, in, out, (const u64 *)tot, outer, n, inner, nseg);
    return launched(j, "a scan");
}

__global__ void k_scan_carry(int prod, int dt, const void *pc, const void *pl, void *out,
                             long long outer, long long n, long long inner)
{
    GRID_LOOP(l, outer * inner)
    scan_carry_item(prod, dt, pc, pl, out, n, inner, l);
}

extern "C" int gpu_k_scan_carry(gpu_job_t *j, int prod, int dt, const void *prev_carry,
                                const void *prev_local, void *out, int64_t outer, int64_t n,
                                int64_t inner)
{
    if (j->failed) return -1;
    long long lines = (long long)outer * inner;
    if (lines == 0) return 0;
    k_scan_carry<<<grid_for(lines, 128), 128, 0, j->s>>>(prod, dt, prev_carry, prev_local, out,
                                                         outer, n, inner);
    return launched(j, "a scan's carry");
}

__global__ void k_scan_apply(int prod, int dt, const void *loc, const void *carry, void *out,
                             long long total, long long n, long long inner)
{
    GRID_LOOP(k, total)
    scan_apply_item(prod, dt, loc, carry, out, n, inner, k);
}

extern "C" int gpu_k_scan_apply(gpu_job_t *j, int prod, int dt, const void *local,
                                const void *carry, void *out, int64_t outer, int64_t n,
                                int64_t inner)
{
    if (j->failed) return -1;
    long long total = (long long)outer * n * inner;
    if (total == 0) return 0;
    k_scan_apply<<<grid_for(total, 256), 256, 0, j->s>>>(prod, dt, local, carry, out, total, n,
                                                         inner);
    return launched(j, "a scan's apply");
}

/* ------------------------------------------------------------------ cuBLAS */

static gpu_blas_t bl;
static pthread_once_t bl_once = PTHREAD_ONCE_INIT;
static char bl_err[256];

static void bl_load(void)
{
    const char *names[] = {"libcublas.so.13", MARS_CUDA_LIB_DIR "/libcublas.so.13", "libcublas.so"};
    void *h = NULL;
    for (size_t i = 0; !h && i < sizeof names / sizeof *names; i++)
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(bl_err, sizeof bl_err, "cannot load cuBLAS (libcublas.so.13): %s", dlerror());
        return;
    }
    const struct {
        void **fn;
        const char *name;
    } syms[] = {{(void **)&bl.create, "cublasCreate_v2"},  {(void **)&bl.destroy, "cublasDestroy_v2"},
                {(void **)&bl.stream, "cublasSetStream_v2"}, {(void **)&bl.ddot, "cublasDdot_v2"},
                {(void **)&bl.dgemm, "cublasDgemm_v2"},    {(void **)&bl.sgemm, "cublasSgemm_v2"},
                {(void **)&bl.dgemm_sb, "cublasDgemmStridedBatched"},
                {(void **)&bl.sgemm_sb, "cublasSgemmStridedBatched"},
                {(void **)&bl.dsyrk, "cublasDsyrk_v2"},    {(void **)&bl.ssyrk, "cublasSsyrk_v2"}};
    for (size_t i = 0; i < sizeof syms / sizeof *syms && !bl_err[0]; i++)
        if (!(*syms[i].fn = dlsym(h, syms[i].name)))
            snprintf(bl_err, sizeof bl_err, "libcublas.so.13 lacks %s", syms[i].name);
}

const gpu_blas_t *gpu_blas(const char **why)
{
    pthread_once(&bl_once, bl_load);
    *why = bl_err;
    return bl_err[0] ? NULL : &bl;
}

static void *blas_for(gpu_job_t *j)
{
    const char *why;
    if (!gpu_blas(&why)) {
        if (!j->failed) snprintf(j->err, sizeof j->err, "%s", why);
        j->failed = true;
        return NULL;
    }
    pthread_mutex_lock(&mu);
    void *h = D[j->dev].blas;
    if (!h) {
        int st = bl.create(&h);
        if (st == 0) {
            bl.stream(h, j->s);
            D[j->dev].blas = h;
        } else {
            h = NULL;
            snprintf(j->err, sizeof j->err, "cublasCreate: status %d", st);
            j->failed = true;
        }
    }
    pthread_mutex_unlock(&mu);
    return h;
}

enum { OPT = 1, UPLO_UPPER = 1 };

__global__ void k_igemm(int dt, int ta, int tb, long long m, long long n, long long k,
                        const void *a, long long sa, const void *b, long long sb, void *c, int acc,
                        long long total)
{
    GRID_LOOP(t, total)
    igemm_item(dt, ta, tb, m, n, k, a, sa, b, sb, c, acc, t);
}

/* Integer and bool products: a thread per output element. */
static int igemm(gpu_job_t *j, int dt, int ta, int tb, long long m, long long n, long long k,
                 const void *a, long long sa, const void *b, long long sb, void *c, long long count,
                 int acc)
{
    long long total = m * n * count;
    k_igemm<<<grid_for(total, 256), 256, 0, j->s>>>(dt, ta, tb, m, n, k, a, sa, b, sb, c, acc,
                                                    total);
    return launched(j, "an integer product");
}

extern "C" int gpu_k_gemm(gpu_job_t *j, int dt, int ta, int tb, int64_t m, int64_t n, int64_t k,
                          const void *a, const void *b, void *c, int accumulate)
{
    int t = gemm_trivial(j, dt, m, n, k, 1, c, accumulate);
    if (t) return t < 0 ? -1 : 0;
    if (dt != GDT_FLOAT32 && dt != GDT_FLOAT64) return igemm(j, dt, ta, tb, m, n, k, a, 0, b, 0, c, 1, accumulate);
    void *h = blas_for(j);
    if (!h) return -1;
    gemm_cm_t g = gemm_cm(ta, tb, m, n, k);
    int st;
    if (dt == GDT_FLOAT64) {
        double one = 1.0, beta = accumulate ? 1.0 : 0.0;
        st = bl.dgemm(h, g.opx, g.opy, g.m, g.n, g.k, &one, (const double *)b, g.ldx,
                      (const double *)a, g.ldy, &beta, (double *)c, g.ldc);
    } else {
        float one = 1.0f, beta = accumulate ? 1.0f : 0.0f;
        st = bl.sgemm(h, g.opx, g.opy, g.m, g.n, g.k, &one, (const float *)b, g.ldx,
                      (const float *)a, g.ldy, &beta, (float *)c, g.ldc);
    }
    if (st != 0) JFAIL(j, "cuBLAS gemm: status %d", st);
    return 0;
}

extern "C" int gpu_k_gemm_batched(gpu_job_t *j, int dt, int64_t m, int64_t n, int64_t k,
                                  const void *a, int64_t sa, const void *b, int64_t sb, void *c,
                                  int64_t count, int accumulate)
{
    int t = gemm_trivial(j, dt, m, n, k, count, c, accumulate);
    if (t) return t < 0 ? -1 : 0;
    if (dt != GDT_FLOAT32 && dt != GDT_FLOAT64)
        return igemm(j, dt, 0, 0, m, n, k, a, sa, b, sb, c, count, accumulate);
    void *h = blas_for(j);
    if (!h) return -1;
    gemm_cm_t g = gemm_cm(0, 0, m, n, k);
    int st;
    if (dt == GDT_FLOAT64) {
        double one = 1.0, beta = accumulate ? 1.0 : 0.0;
        st = bl.dgemm_sb(h, g.opx, g.opy, g.m, g.n, g.k, &one, (const double *)b, g.ldx, sb,
                         (const double *)a, g.ldy, sa, &beta, (double *)c, g.ldc, m * n,
                         (int)count);
    } else {
        float one = 1.0f, beta = accumulate ? 1.0f : 0.0f;
        st = bl.sgemm_sb(h, g.opx, g.opy, g.m, g.n, g.k, &one, (const float *)b, g.ldx, sb,
                         (const float *)a, g.ldy, sa, &beta, (float *)c, g.ldc, m * n,
                         (int)count);
    }
    if (st != 0) JFAIL(j, "cuBLAS strided batched gemm: status %d", st);
    return 0;
}

extern "C" int gpu_k_syrk(gpu_job_t *j, int dt, int64_t m, int64_t k, const void *a, void *c,
                          int accumulate)
{
    if (j->failed) return -1;
    if (m > 0x7fffffff || k > 0x7fffffff) JFAIL(j, "a block past 2^31 rows");
    if (m == 0) return 0;
    void *h = blas_for(j);
    if (!h) return -1;
    /* row-major A (m x k) is column-major X = Aᵀ (k x m); C = Xᵀ X */
    int st;
    if (dt == GDT_FLOAT64) {
        double one = 1.0, beta = accumulate ? 1.0 : 0.0;
        st = bl.dsyrk(h, UPLO_UPPER, OPT, (int)m, (int)k, &one, (const double *)a, (int)k, &beta,
                      (double *)c, (int)m);
    } else {
        float one = 1.0f, beta = accumulate ? 1.0f : 0.0f;
        st = bl.ssyrk(h, UPLO_UPPER, OPT, (int)m, (int)k, &one, (const float *)a, (int)k, &beta,
                      (float *)c, (int)m);
    }
    if (st != 0) JFAIL(j, "cuBLAS syrk: status %d", st);
    return 0;
}

/* cuBLAS's upper triangle (column-major) is the row-major lower one: copy
 * c[j][i] (j > i) onto c[i][j]. */
template <typename T> __global__ void k_mirror(T *c, long long m)
{
    GRID_LOOP(t, m * m)
    mirror_item<T>(c, m, t);
}

extern "C" int gpu_k_mirror(gpu_job_t *j, int dt, int64_t m, void *c)
{
    if (j->failed) return -1;
    if (m == 0) return 0;
    if (dt == GDT_FLOAT64)
        k_mirror<double><<<grid_for(m * m, 256), 256, 0, j->s>>>((double *)c, m);
    else
        k_mirror<float><<<grid_for(m * m, 256), 256, 0, j->s>>>((float *)c, m);
    return launched(j, "mirroring a symmetric block");
}

/* ------------------------------------------------------------------ random */

/* Philox rounds and the float arithmetic: kern/rand_math.h, shared with
 * the CPU kernels */

__global__ void k_random(const gpu_rand_t r, void *out)
{
    GRID_LOOP(k, r.n)
    random_item(r, out, k);
}

__global__ void k_random_dist(const gpu_rand_t r, void *out)
{
    GRID_LOOP(k, r.n)
    random_dist_item(r, out, k);
}

__global__ void k_sort_load(const gpu_sort_t s, const void *in, u64 *key, long long *pos,
                            long long n)
{
    GRID_LOOP(k, n)
    sort_load_item(s, in, key, pos, k);
}

__global__ void k_sort_step(const gpu_sort_t s, u64 *key, long long *pos, long long size,
                            long long stride, long long n)
{
    GRID_LOOP(t, n)
    sort_step_item(s, key, pos, size, stride, t);
}

__global__ void k_quant(const gpu_sort_t s, const u64 *key, void *out, long long n)
{
    GRID_LOOP(k, n)
    quant_item(s, key, out, k);
}

__global__ void k_sort_store(const gpu_sort_t s, const u64 *key, const long long *pos, void *out,
                             long long n)
{
    GRID_LOOP(k, n)
    sort_store_item(s, key, pos, out, k);
}

extern "C" int gpu_k_sort(gpu_job_t *j, const gpu_sort_t *s, const void *in, void *out)
{
    long long total;
    u64 *key;
    long long *pos;
    int rc = sort_begin(j, s, &total, &key, &pos);
    if (rc) return rc < 0 ? -1 : 0;
    k_sort_load<<<grid_for(total, 256), 256, 0, j->s>>>(*s, in, key, pos, total);
    if (launched(j, "a sort")) return -1;
    for (long long size = 2; size <= s->p2; size *= 2)
        for (long long stride = size / 2; stride > 0; stride /= 2) {
            k_sort_step<<<grid_for(total / 2, 256), 256, 0, j->s>>>(*s, key, pos, size, stride,
                                                                    total / 2);
            if (launched(j, "a sort")) return -1;
        }
    if (s->quant != GSORT_VALUES) {
        long long n = s->nq * s->outer * s->inner;
        k_quant<<<grid_for(n, 128), 128, 0, j->s>>>(*s, key, out, n);
        return launched(j, "a quantile");
    }
    long long n = s->outer * s->inner * s->olen;
    k_sort_store<<<grid_for(n, 256), 256, 0, j->s>>>(*s, key, pos, out, n);
    return launched(j, "a sort");
}

__global__ void k_merge(const gpu_merge_t m, const void *x, const void *y, void *out, long long n)
{
    GRID_LOOP(k, n)
    merge_item(m, x, y, out, k);
}

extern "C" int gpu_k_merge(gpu_job_t *j, const gpu_merge_t *m, const void *x, const void *y,
                           void *out)
{
    if (j->failed) return -1;
    long long n = m->outer * m->inner * (m->high ? m->ny : m->nx);
    if (n == 0) return 0;
    k_merge<<<grid_for(n, 256), 256, 0, j->s>>>(*m, x, y, out, n);
    return launched(j, "a sort's merge");
}

__global__ void k_search(const gpu_search_t s, const void *x, const void *a, long long *out)
{
    GRID_LOOP(i, s.n)
    search_item(s, x, a, out, i);
}

extern "C" int gpu_k_search(gpu_job_t *j, const gpu_search_t *s, const void *x, const void *a,
                            void *out)
{
    if (j->failed) return -1;
    if (s->n == 0) return 0;
    k_search<<<grid_for(s->n, 256), 256, 0, j->s>>>(*s, x, a, (long long *)out);
    return launched(j, "a searchsorted");
}

extern "C" int gpu_k_random(gpu_job_t *j, const gpu_rand_t *r, void *out)
{
    if (j->failed) return -1;
    if (r->n == 0) return 0;
    if (r->kind == GRND_DIST)
        k_random_dist<<<grid_for(r->n, 128), 128, 0, j->s>>>(*r, out);
    else
        k_random<<<grid_for(r->n, 256), 256, 0, j->s>>>(*r, out);
    return launched(j, "a random draw");
}

__global__ void k_fill(u64 v, int es, long long n, void *out)
{
    GRID_LOOP(k, n)
    fill_item(v, es, out, k);
}

extern "C" int gpu_k_fill(gpu_job_t *j, const void *val, size_t es, int64_t n, void *out)
{
    if (j->failed) return -1;
    if (n == 0) return 0;
    u64 v = 0;
    memcpy(&v, val, es <= 8 ? es : 8);
    k_fill<<<grid_for(n, 256), 256, 0, j->s>>>(v, (int)es, n, out);
    return launched(j, "a fill");
}


__global__ void k_create(gpu_create_t c, void *out)
{
    GRID_LOOP(k, c.n)
    create_item(c, out, k);
}

extern "C" int gpu_k_create(gpu_job_t *j, const gpu_create_t *c, void *out)
{
    if (j->failed) return -1;
    if (c->n == 0) return 0;
    if (c->kind == GCRE_EYE && c->cols <= 0) return -1;
    k_create<<<grid_for(c->n, 256), 256, 0, j->s>>>(*c, out);
    return launched(j, "a creation op");
}

/* ------------------------------------------------------------------ cuBLAS alone */

__global__ void k_fill_unit(double *a, long long n, unsigned long long seed)
{
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n;
         k += (long long)gridDim.x * blockDim.x) {
        unsigned ctr[4] = {(unsigned)k, (unsigned)(k >> 32), 0, 0};
        philox4x32_10(ctr, (unsigned)seed, (unsigned)(seed >> 32));
        a[k] = unit53((u64)ctr[0] | (u64)ctr[1] << 32);
    }
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

extern "C" int gpu_bench_dgemm(int dev, int64_t n, int reps, double *seconds, char *err,
                               size_t errlen)
{
    if (gpu_open(dev, 0, err, errlen)) return -1;
    gpu_job_t *j = gpu_job_begin(dev, NULL, err, errlen);
    if (!j) return -1;
    void *a, *b, *c;
    size_t bytes = (size_t)n * (size_t)n * 8;
    double times[64];
    if (reps < 1) reps = 1;
    if (reps > 64) reps = 64;
    int rc = gpu_job_tmp(j, bytes, &a) || gpu_job_tmp(j, bytes, &b) || gpu_job_tmp(j, bytes, &c);
    if (rc == 0) {
        k_fill_unit<<<grid_for(n * n, 256), 256, 0, j->s>>>((double *)a, n * n, 1);
        k_fill_unit<<<grid_for(n * n, 256), 256, 0, j->s>>>((double *)b, n * n, 2);
        rc = gpu_k_gemm(j, GDT_FLOAT64, 0, 0, n, n, n, a, b, c, 0); /* warm-up */
    }
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int i = 0; rc == 0 && i < reps; i++) {
        cudaEventRecord(e0, j->s);
        rc = gpu_k_gemm(j, GDT_FLOAT64, 0, 0, n, n, n, a, b, c, 0);
        cudaEventRecord(e1, j->s);
        float ms = 0;
        if (rc == 0 && cudaEventSynchronize(e1) == cudaSuccess &&
            cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess)
            times[i] = ms * 1e-3;
        else
            rc = -1;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (gpu_job_end(j, rc == 0, err, errlen)) return -1;
    qsort(times, (size_t)reps, sizeof(double), cmp_d);
    *seconds = times[reps / 2];
    return 0;
}

/* ------------------------------------------------------------------ gathers */

template <typename T> __global__ void k_piece(const gpu_piece_t p, const T *src, T *dst, long long n)
{
    GRID_LOOP(k, n)
    piece_item<T>(p, src, dst, k);
}

extern "C" int gpu_k_piece(gpu_job_t *j, const gpu_piece_t *p, const void *src, void *dst)
{
    if (j->failed) return -1;
    long long n = 1;
    for (int i = 0; i < p->ndim; i++)
        n *= p->count[i];
    if (n == 0) return 0;
    int g = grid_for(n, 256);
    switch (p->es) {
    case 1:
        k_piece<unsigned char><<<g, 256, 0, j->s>>>(*p, (const unsigned char *)src, (unsigned char *)dst, n);
        break;
    case 2:
        k_piece<unsigned short><<<g, 256, 0, j->s>>>(*p, (const unsigned short *)src, (unsigned short *)dst, n);
        break;
    case 4:
        k_piece<unsigned><<<g, 256, 0, j->s>>>(*p, (const unsigned *)src, (unsigned *)dst, n);
        break;
    default:
        k_piece<u64><<<g, 256, 0, j->s>>>(*p, (const u64 *)src, (u64 *)dst, n);
    }
    return launched(j, "a gather");
}

extern "C" int gpu_k_copy(gpu_job_t *j, const void *src, void *dst, size_t bytes)
{
    if (j->failed) return -1;
    if (bytes == 0) return 0;
    return jcheck(j, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, j->s),
                  "copying on the device");
}
