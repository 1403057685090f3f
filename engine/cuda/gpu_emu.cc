/* gpu_emu.cc: an emulated CUDA device on the host, for build/emu (docs/gpu.md,
 * "The emulated device"). It implements gpu.h as gpu.cu and gpu_job.cu do,
 * with the same work items (gpu_dev.h) run by loops instead of kernels, the
 * same split of reductions into segments and blocks of RED_THREADS threads,
 * the same scans' passes and the same column-major cuBLAS calls (against a
 * plain reference gemm and syrk here), and the same store (gpu_store.h over
 * the be_* operations below), so that gpu_exec.c, the store's rules and the
 * kernels' element-level code are tested on machines without a GPU. The
 * device's memory is host memory of its own: an output is "device-only"
 * until gpu_to_host copies it, and the host buffer of a device-only chunk
 * is scribbled over, so a reader that skips gpu_to_host reads garbage, as
 * it would with a real device. Library functions (exp, sin, ...) are
 * glibc's here, CUDA's on a device. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "gpu_dev.h"

/* One emulated device: 2 GiB. */
#define EMU_DEVICES 1
#define EMU_MEMORY (2LL << 30)

extern "C" int gpu_built(void)
{
    return 1;
}

extern "C" const char *gpu_build_info(void)
{
    return "emulated device on the host (build/emu, no CUDA)";
}

extern "C" int gpu_device_count(int *n, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    *n = EMU_DEVICES;
    return 0;
}

extern "C" int gpu_device_info(int dev, char *name, size_t cap, int64_t *mem, char *err,
                               size_t errlen)
{
    if (dev < 0 || dev >= EMU_DEVICES) {
        snprintf(err, errlen, "device %d: index out of range (%d emulated)", dev, EMU_DEVICES);
        return -1;
    }
    snprintf(name, cap, "Emulated GPU %d", dev);
    *mem = EMU_MEMORY;
    return 0;
}

extern "C" int gpu_check_devices(const int *dev, int n, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++)
        if (dev[i] < 0 || dev[i] >= EMU_DEVICES) {
            snprintf(err, errlen,
                     "--cuda-devices: device %d does not exist (%d emulated device%s, 0 .. %d)",
                     dev[i], EMU_DEVICES, EMU_DEVICES == 1 ? "" : "s", EMU_DEVICES - 1);
            return -1;
        }
    return 0;
}

extern "C" int gpu_ew_f64(int dev, gpu_ew_op_t op, const double *a, const double *b, double *out,
                          int64_t n, char *err, size_t errlen)
{
    if (gpu_check_devices(&dev, 1, err, errlen)) return -1;
    for (int64_t i = 0; i < n; i++)
        out[i] = op == GPU_ADD ? a[i] + b[i] : a[i] * b[i];
    return 0;
}

extern "C" int gpu_sum_f64(int dev, const double *a, int64_t n, double *out, char *err,
                           size_t errlen)
{
    if (gpu_check_devices(&dev, 1, err, errlen)) return -1;
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += a[i];
    *out = s;
    return 0;
}

extern "C" int gpu_dot_f64(int dev, const double *a, const double *b, int64_t n, double *out,
                           char *err, size_t errlen)
{
    if (gpu_check_devices(&dev, 1, err, errlen)) return -1;
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += a[i] * b[i];
    *out = s;
    return 0;
}

extern "C" int gpu_nvml(int dev, int64_t *mem_total, int64_t *mem_used, int *util_pct)
{
    (void)dev;
    *mem_total = *mem_used = -1;
    *util_pct = -1;
    return -1;
}

/* A kernel's items, last first: CUDA runs them in any order, so an item
 * that depends on another of the same launch shows here. */
#define ITEMS(k, n) for (long long k = (n); k-- > 0;)

/* ---- the device's memory operations (gpu_store.h) ----------------------
 * Host memory of the device's own. Work on the job stream is done on
 * return (kernels run as they are launched, in order). A copy in on another
 * stream (the prefetch stream) lands only when that stream is synchronised:
 * CUDA reads pageable memory before returning but may land the bytes later,
 * so a job reading such a chunk without waiting for its stream reads the
 * allocation's NaN pattern here. */

typedef int be_err_t;
typedef int be_stream_t;
enum { BE_OK = 0, BE_NOMEM = 2, BE_NODEV = 3 };

static const char *be_errstr(be_err_t r)
{
    return r == BE_NOMEM   ? "out of memory (emulated device)"
           : r == BE_NODEV ? "invalid device ordinal (emulated)"
                           : "emulated device error";
}

static void be_set_device(int dev)
{
    (void)dev;
}

static be_err_t be_open(int dev, be_stream_t *s, be_stream_t *copy, be_stream_t *pre,
                        size_t *free_bytes)
{
    if (dev < 0 || dev >= EMU_DEVICES) return BE_NODEV;
    *s = 0;
    *copy = 1;
    *pre = 2;
    *free_bytes = (size_t)EMU_MEMORY;
    return BE_OK;
}

/* filled with a pattern (NaN as float64 and float32) that a kernel reading
 * what it did not write would show */
static be_err_t be_malloc(int dev, be_stream_t s, size_t n, void **p)
{
    (void)dev;
    (void)s;
    *p = malloc(n);
    if (!*p) return BE_NOMEM;
    memset(*p, 0xff, n);
    return BE_OK;
}

/* copies in not landed yet: on streams other than the job stream */
struct pending_t {
    void *dst;
    void *bytes;
    size_t n;
    be_stream_t s;
    pending_t *next;
};
static pthread_mutex_t pend_mu = PTHREAD_MUTEX_INITIALIZER;
static pending_t *pend;

/* lands (or drops) the pending copies of stream s, or those into p */
static void pend_settle(be_stream_t s, const void *p, bool land)
{
    pthread_mutex_lock(&pend_mu);
    for (pending_t **q = &pend; *q;) {
        pending_t *e = *q;
        if (p ? e->dst != p : e->s != s) {
            q = &e->next;
            continue;
        }
        if (land) memcpy(e->dst, e->bytes, e->n);
        *q = e->next;
        free(e->bytes);
        free(e);
    }
    pthread_mutex_unlock(&pend_mu);
}

static void be_free(int dev, be_stream_t s, void *p)
{
    (void)dev;
    (void)s;
    pend_settle(0, p, false);
    free(p);
}

static be_err_t be_h2d(void *dst, const void *src, size_t n, int dev, be_stream_t s)
{
    (void)dev;
    if (s == 0 || n == 0) {
        memcpy(dst, src, n);
        return BE_OK;
    }
    pending_t *e = (pending_t *)malloc(sizeof *e);
    void *b = malloc(n);
    if (!e || !b) {
        free(e);
        free(b);
        return BE_NOMEM;
    }
    memcpy(b, src, n); /* the source is read now */
    *e = pending_t{dst, b, n, s, NULL};
    pthread_mutex_lock(&pend_mu);
    e->next = pend;
    pend = e;
    pthread_mutex_unlock(&pend_mu);
    return BE_OK;
}

static be_err_t be_d2h(void *dst, const void *src, size_t n, int dev, be_stream_t s)
{
    (void)dev;
    (void)s;
    memcpy(dst, src, n);
    return BE_OK;
}

static be_err_t be_zero(void *p, size_t n, be_stream_t s)
{
    (void)s;
    memset(p, 0, n);
    return BE_OK;
}

static be_err_t be_sync(be_stream_t s)
{
    if (s != 0) pend_settle(s, NULL, true);
    return BE_OK;
}

/* the host buffer of a device-only chunk holds nothing until gpu_to_host:
 * a reader that skips the copy reads garbage, as with a real device */
static void be_output_kept(const void *host, size_t bytes)
{
    memset((void *)host, 0xff, bytes);
}

#include "gpu_store.h"

/* ------------------------------------------------------------------ kernels */

extern "C" int gpu_k_ew(gpu_job_t *j, const gpu_ew_t *p, const void *const *in, void *out)
{
    if (j->failed) return -1;
    ew_args a;
    for (int i = 0; i < p->n_inputs && i < GPU_EW_IN; i++)
        a.in[i] = in[i];
    ITEMS (k, p->n)
        ew_prog_item(*p, a, out, k);
    return 0;
}

/* k_red_seg's blocks: each thread's strided walk, then the same tree. */
template <typename T>
static int red_run(gpu_job_t *j, const red_args &A, bool rows, int nseg, void *partial)
{
    const gpu_red_t &r = A.r;
    void *accp;
    if (gpu_job_tmp(j, (size_t)r.n_out * (size_t)nseg * sizeof(T), &accp)) return -1;
    T *acc = (T *)accp;
    if (rows) {
        ITEMS (o, r.n_out)
            red_rows_item<T>(A, acc, o);
    } else {
        long long seg = (r.n_red + nseg - 1) / nseg;
        T sh[RED_THREADS];
        ITEMS (b, r.n_out * nseg) {
            long long o = b / nseg;
            int s = (int)(b % nseg);
            long long q0 = s * seg, q1 = q0 + seg < r.n_red ? q0 + seg : r.n_red;
            for (int t = 0; t < RED_THREADS; t++)
                sh[t] = red_walk<T>(A, o, q0, q1, t, RED_THREADS);
            for (int w = RED_THREADS / 2; w > 0; w /= 2)
                for (int t = 0; t < w; t++)
                    T::merge(r, &sh[t], sh[t + w]);
            acc[o * nseg + s] = sh[0];
        }
    }
    ITEMS (o, r.n_out)
        red_final_item<T>(r, nseg, acc, partial, o);
    return 0;
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
    return red_by_acc(r->op,
                      [&](auto acc) { return red_run<decltype(acc)>(j, A, rows, nseg, partial); });
}

extern "C" int gpu_k_scan_local(gpu_job_t *j, int prod, int nan, int in_dt, int out_dt,
                                const void *in, void *out, int64_t outer, int64_t n, int64_t inner)
{
    if (j->failed) return -1;
    long long lines = (long long)outer * inner;
    if (lines == 0 || n == 0) return 0;
    long long nseg = (n + SCAN_SEG - 1) / SCAN_SEG;
    if (scan_by_line(out_dt, nseg, lines)) {
        ITEMS (l, lines)
            scan_line_item(prod, nan, in_dt, out_dt, in, out, n, inner, l);
        return 0;
    }
    void *tot;
    if (gpu_job_tmp(j, (size_t)(lines * nseg) * 8, &tot)) return -1;
    ITEMS (t, lines * nseg)
        scan_tot_item(prod, nan, in_dt, out_dt, in, (u64 *)tot, outer, n, inner, t);
    ITEMS (l, lines)
        scan_carry_in_item(prod, out_dt, (u64 *)tot, lines, nseg, l);
    ITEMS (t, lines * nseg)
        scan_seg_item(prod, nan, in_dt, out_dt, in, out, (const u64 *)tot, outer, n, inner, t);
    return 0;
}

extern "C" int gpu_k_scan_carry(gpu_job_t *j, int prod, int dt, const void *prev_carry,
                                const void *prev_local, void *out, int64_t outer, int64_t n,
                                int64_t inner)
{
    if (j->failed) return -1;
    ITEMS (l, (long long)outer * inner)
        scan_carry_item(prod, dt, prev_carry, prev_local, out, n, inner, l);
    return 0;
}

extern "C" int gpu_k_scan_apply(gpu_job_t *j, int prod, int dt, const void *local,
                                const void *carry, void *out, int64_t outer, int64_t n,
                                int64_t inner)
{
    if (j->failed) return -1;
    ITEMS (k, (long long)outer * n * inner)
        scan_apply_item(prod, dt, local, carry, out, n, inner, k);
    return 0;
}

/* ------------------------------------------------------------------ cuBLAS's calls */

/* Column-major reference gemm: C = alpha op(X) op(Y) + beta C, C m x n
 * (beta 0: C is not read, as BLAS has it). */
template <typename T>
static void ref_gemm(int opx, int opy, long long m, long long n, long long k, T alpha, const T *X,
                     long long ldx, const T *Y, long long ldy, T beta, T *C, long long ldc)
{
    for (long long c = 0; c < n; c++)
        for (long long r = 0; r < m; r++) {
            T s = 0;
            for (long long l = 0; l < k; l++) {
                T x = opx == GEMM_OPN ? X[r + l * ldx] : X[l + r * ldx];
                T y = opy == GEMM_OPN ? Y[l + c * ldy] : Y[c + l * ldy];
                s += x * y;
            }
            C[r + c * ldc] = beta == 0 ? alpha * s : alpha * s + beta * C[r + c * ldc];
        }
}

/* Column-major reference syrk, upper triangle, trans: C = alpha Aᵀ A + beta C
 * with A k x n (lda); the lower triangle is left as it is. */
template <typename T>
static void ref_syrk_ut(long long n, long long k, T alpha, const T *A, long long lda, T beta, T *C,
                        long long ldc)
{
    for (long long c = 0; c < n; c++)
        for (long long r = 0; r <= c; r++) {
            T s = 0;
            for (long long l = 0; l < k; l++)
                s += A[l + r * lda] * A[l + c * lda];
            C[r + c * ldc] = beta == 0 ? alpha * s : alpha * s + beta * C[r + c * ldc];
        }
}

extern "C" int gpu_k_gemm(gpu_job_t *j, int dt, int ta, int tb, int64_t m, int64_t n, int64_t k,
                          const void *a, const void *b, void *c, int accumulate)
{
    int t = gemm_trivial(j, dt, m, n, k, 1, c, accumulate);
    if (t) return t < 0 ? -1 : 0;
    if (dt != GDT_FLOAT32 && dt != GDT_FLOAT64) {
        ITEMS (q, m * n)
            igemm_item(dt, ta, tb, m, n, k, a, 0, b, 0, c, accumulate, q);
        return 0;
    }
    gemm_cm_t g = gemm_cm(ta, tb, m, n, k);
    if (dt == GDT_FLOAT64)
        ref_gemm<double>(g.opx, g.opy, g.m, g.n, g.k, 1.0, (const double *)b, g.ldx,
                         (const double *)a, g.ldy, accumulate ? 1.0 : 0.0, (double *)c, g.ldc);
    else
        ref_gemm<float>(g.opx, g.opy, g.m, g.n, g.k, 1.0f, (const float *)b, g.ldx,
                        (const float *)a, g.ldy, accumulate ? 1.0f : 0.0f, (float *)c, g.ldc);
    return 0;
}

extern "C" int gpu_k_gemm_batched(gpu_job_t *j, int dt, int64_t m, int64_t n, int64_t k,
                                  const void *a, int64_t sa, const void *b, int64_t sb, void *c,
                                  int64_t count, int accumulate)
{
    int t = gemm_trivial(j, dt, m, n, k, count, c, accumulate);
    if (t) return t < 0 ? -1 : 0;
    if (dt != GDT_FLOAT32 && dt != GDT_FLOAT64) {
        ITEMS (q, m * n * count)
            igemm_item(dt, 0, 0, m, n, k, a, sa, b, sb, c, accumulate, q);
        return 0;
    }
    /* gpu_job.cu's call: cublas<t>gemmStridedBatched, X = B (stride sb),
     * Y = A (stride sa), C stride m * n */
    gemm_cm_t g = gemm_cm(0, 0, m, n, k);
    for (int64_t i = 0; i < count; i++)
        if (dt == GDT_FLOAT64)
            ref_gemm<double>(g.opx, g.opy, g.m, g.n, g.k, 1.0, (const double *)b + i * sb, g.ldx,
                             (const double *)a + i * sa, g.ldy, accumulate ? 1.0 : 0.0,
                             (double *)c + i * m * n, g.ldc);
        else
            ref_gemm<float>(g.opx, g.opy, g.m, g.n, g.k, 1.0f, (const float *)b + i * sb, g.ldx,
                            (const float *)a + i * sa, g.ldy, accumulate ? 1.0f : 0.0f,
                            (float *)c + i * m * n, g.ldc);
    return 0;
}

extern "C" int gpu_k_syrk(gpu_job_t *j, int dt, int64_t m, int64_t k, const void *a, void *c,
                          int accumulate)
{
    if (j->failed) return -1;
    if (m > 0x7fffffff || k > 0x7fffffff) JFAIL(j, "a block past 2^31 rows");
    if (m == 0) return 0;
    /* gpu_job.cu's call: uplo upper, trans, n = m, lda = k, ldc = m */
    if (dt == GDT_FLOAT64)
        ref_syrk_ut<double>(m, k, 1.0, (const double *)a, k, accumulate ? 1.0 : 0.0, (double *)c,
                            m);
    else
        ref_syrk_ut<float>(m, k, 1.0f, (const float *)a, k, accumulate ? 1.0f : 0.0f, (float *)c,
                           m);
    return 0;
}

extern "C" int gpu_k_mirror(gpu_job_t *j, int dt, int64_t m, void *c)
{
    if (j->failed) return -1;
    ITEMS (t, (long long)m * m)
        if (dt == GDT_FLOAT64)
            mirror_item<double>((double *)c, m, t);
        else
            mirror_item<float>((float *)c, m, t);
    return 0;
}

/* ------------------------------------------------------------------ the rest */

extern "C" int gpu_k_sort(gpu_job_t *j, const gpu_sort_t *s, const void *in, void *out)
{
    long long total;
    u64 *key;
    long long *pos;
    int rc = sort_begin(j, s, &total, &key, &pos);
    if (rc) return rc < 0 ? -1 : 0;
    ITEMS (k, total)
        sort_load_item(*s, in, key, pos, k);
    for (long long size = 2; size <= s->p2; size *= 2)
        for (long long stride = size / 2; stride > 0; stride /= 2)
            ITEMS (t, total / 2)
                sort_step_item(*s, key, pos, size, stride, t);
    if (s->quant != GSORT_VALUES) {
        ITEMS (k, s->nq * s->outer * s->inner)
            quant_item(*s, key, out, k);
        return 0;
    }
    long long n = s->outer * s->inner * s->olen;
    ITEMS (k, n)
        sort_store_item(*s, key, pos, out, k);
    return 0;
}

extern "C" int gpu_k_merge(gpu_job_t *j, const gpu_merge_t *m, const void *x, const void *y,
                           void *out)
{
    if (j->failed) return -1;
    long long n = m->outer * m->inner * (m->high ? m->ny : m->nx);
    ITEMS (k, n)
        merge_item(*m, x, y, out, k);
    return 0;
}

extern "C" int gpu_k_search(gpu_job_t *j, const gpu_search_t *s, const void *x, const void *a,
                            void *out)
{
    if (j->failed) return -1;
    ITEMS (i, s->n)
        search_item(*s, x, a, (long long *)out, i);
    return 0;
}

extern "C" int gpu_k_random(gpu_job_t *j, const gpu_rand_t *r, void *out)
{
    if (j->failed) return -1;
    ITEMS (k, r->n)
        if (r->kind == GRND_DIST)
            random_dist_item(*r, out, k);
        else
            random_item(*r, out, k);
    return 0;
}

extern "C" int gpu_k_fill(gpu_job_t *j, const void *val, size_t es, int64_t n, void *out)
{
    if (j->failed) return -1;
    u64 v = 0;
    memcpy(&v, val, es <= 8 ? es : 8);
    ITEMS (k, n)
        fill_item(v, (int)es, out, k);
    return 0;
}

extern "C" int gpu_k_create(gpu_job_t *j, const gpu_create_t *c, void *out)
{
    if (j->failed) return -1;
    if (c->n == 0) return 0;
    if (c->kind == GCRE_EYE && c->cols <= 0) return -1;
    ITEMS (k, c->n)
        create_item(*c, out, k);
    return 0;
}

extern "C" int gpu_k_piece(gpu_job_t *j, const gpu_piece_t *p, const void *src, void *dst)
{
    if (j->failed) return -1;
    long long n = 1;
    for (int i = 0; i < p->ndim; i++)
        n *= p->count[i];
    ITEMS (k, n)
        switch (p->es) {
        case 1:
            piece_item<unsigned char>(*p, (const unsigned char *)src, (unsigned char *)dst, k);
            break;
        case 2:
            piece_item<unsigned short>(*p, (const unsigned short *)src, (unsigned short *)dst, k);
            break;
        case 4:
            piece_item<unsigned>(*p, (const unsigned *)src, (unsigned *)dst, k);
            break;
        default:
            piece_item<u64>(*p, (const u64 *)src, (u64 *)dst, k);
        }
    return 0;
}

extern "C" int gpu_k_copy(gpu_job_t *j, const void *src, void *dst, size_t bytes)
{
    if (j->failed) return -1;
    memmove(dst, src, bytes);
    return 0;
}

extern "C" int gpu_bench_dgemm(int dev, int64_t n, int reps, double *seconds, char *err,
                               size_t errlen)
{
    (void)dev;
    (void)n;
    (void)reps;
    *seconds = 0;
    snprintf(err, errlen, "the emulated device has no cuBLAS to time");
    return -1;
}
