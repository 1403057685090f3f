/* gpu.h: the engine's CUDA path (docs/gpu.md). A build with nvcc (the
 * Makefile finds it at $(NVCC), default /usr/local/cuda/bin/nvcc) compiles
 * gpu.cu against the CUDA runtime and cuBLAS; a build without it links
 * gpu_stub.c, whose functions all fail with "built without CUDA". The
 * sanitizer build always links the stub (the CUDA runtime does not start
 * under ASan's default shadow layout).
 *
 * Every function returns 0, or -1 with a one-line message in err. Arrays are
 * host memory; the functions copy them to device `dev` and back. The
 * tensor jobs' part below works on device buffers of the store. */
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

/* ---------------------------------------------------------------------------
 * Tensor jobs on a device (gpu_job.cu; engine/cuda/gpu_exec.c turns a chunk
 * job into these calls). Chunks live in a per-process device store keyed by
 * the host buffer they belong to: a job's output stays on the device
 * ("device-only") until gpu_to_host copies it into its host buffer, which
 * the caller has allocated and keeps until gpu_forget. The store is bounded
 * per device (gpu_open's limit): past it, the least recently used chunks not
 * in use are copied back to their host buffers and dropped. */

/* Opens device dev for jobs: a stream, cuBLAS (loaded on first use), the
 * store's limit in bytes (0: 90% of the device memory free now). */
int gpu_open(int dev, int64_t mem_limit, char *err, size_t errlen);
/* Bytes the store holds on dev now, its limit, and the most it held. */
void gpu_store_stats(int dev, int64_t *used, int64_t *limit, int64_t *peak);
/* When host is a device-only chunk, copies it into host (synchronously). */
int gpu_to_host(const void *host, char *err, size_t errlen);
/* Drops host's device copy, if any (before host is freed). */
void gpu_forget(const void *host);

/* Device memory and utilisation through NVML (libnvidia-ml.so.1, loaded on
 * first use): -1 where NVML is missing. */
int gpu_nvml(int dev, int64_t *mem_total, int64_t *mem_used, int *util_pct);

/* Host chunks a job reads (host buffers as the store knows them, and the
 * bytes the kernels read of each). */
#define GPU_PREFETCH_MAX 16
typedef struct {
    int n;
    const void *host[GPU_PREFETCH_MAX];
    size_t bytes[GPU_PREFETCH_MAX];
} gpu_prefetch_t;

/* One job's device work, on dev's stream. gpu_job_begin waits for the
 * device (one job at a time); reads (or NULL): the chunks the job will read,
 * listed while it waits so that the job running meanwhile copies them in
 * (gpu_job_prefetch_waiting). Their host buffers must stay until the job
 * has begun. */
typedef struct gpu_job gpu_job_t;
gpu_job_t *gpu_job_begin(int dev, const gpu_prefetch_t *reads, char *err, size_t errlen);
/* The device copy of a host chunk of `bytes`: the store's, or a new one
 * copied in (kept when keep, else freed at the job's end). */
int gpu_job_in(gpu_job_t *j, const void *host, size_t bytes, int keep, const void **dptr);
/* Device scratch, freed at the job's end. */
int gpu_job_tmp(gpu_job_t *j, size_t bytes, void **dptr);
/* Copies host (a chunk of bytes that a later job on this device reads) into
 * the store on a stream of its own, while the job's kernels run: done when
 * it returns. A hint: nothing happens when the chunk is there already or
 * the store has no room for it without evicting. 0, or -1 on a device
 * error. */
int gpu_job_prefetch(gpu_job_t *j, const void *host, size_t bytes);
/* gpu_job_prefetch of the chunks that the jobs waiting for this device in
 * gpu_job_begin read (a worker's slots share its devices). 0, or -1 on a
 * device error. */
int gpu_job_prefetch_waiting(gpu_job_t *j);
/* The device buffer of the job's output, whose host buffer is host: after a
 * successful gpu_job_end it is a device-only chunk of the store. */
int gpu_job_out(gpu_job_t *j, void *host, size_t bytes, void **dptr);
/* Waits for the job's work; on failure (ok == 0 or a device error) drops its
 * output. Returns 0, or -1 with the first error of the job: -2 when that was
 * an allocation past the store's limit or the device's memory (the job can
 * run on the CPU instead). */
int gpu_job_end(gpu_job_t *j, int ok, char *err, size_t errlen);
/* The job's first error (after a call returned -1). */
const char *gpu_job_error(const gpu_job_t *j);

/* dtype codes: the engine's (dtype.h). Element-wise programs and gathers
 * take them all; the other kernels the first five (GDT_CORE). */
enum {
    GDT_BOOL,
    GDT_INT32,
    GDT_INT64,
    GDT_FLOAT32,
    GDT_FLOAT64,
    GDT_INT8,
    GDT_INT16,
    GDT_UINT8,
    GDT_UINT16,
    GDT_UINT32,
    GDT_UINT64,
    GDT_N
};
#define GDT_CORE (GDT_FLOAT64 + 1)

/* Element-wise ops a device program runs (gpu_exec.c maps op_t to these). */
enum {
    GOP_ASTYPE,
    GOP_ADD,
    GOP_SUB,
    GOP_MUL,
    GOP_DIV,
    GOP_MAX,
    GOP_MIN,
    GOP_FMAX,
    GOP_FMIN,
    GOP_EQ,
    GOP_NE,
    GOP_LT,
    GOP_LE,
    GOP_GT,
    GOP_GE,
    GOP_LAND,
    GOP_LOR,
    GOP_LXOR,
    GOP_LNOT,
    GOP_NEG,
    GOP_ABS,
    GOP_SQRT,
    GOP_EXP,
    GOP_LOG,
    GOP_LOG1P,
    GOP_EXPM1,
    GOP_SIN,
    GOP_COS,
    GOP_TAN,
    GOP_TANH,
    GOP_SQUARE,
    GOP_SIGN,
    GOP_FLOOR,
    GOP_CEIL,
    GOP_TRUNC,
    GOP_RINT,
    GOP_ISNAN,
    GOP_ISFINITE,
    GOP_ISINF,
    GOP_RECIP,
    GOP_POS,
    GOP_WHERE,
    GOP_CLIP,
    GOP_BAND,
    GOP_BOR,
    GOP_BXOR,
    GOP_POW,
    GOP_ARCTAN2,
    GOP_HYPOT,
    GOP_LOG2,
    GOP_LOG10,
    GOP_SINH,
    GOP_COSH,
    GOP_ARCSIN,
    GOP_ARCCOS,
    GOP_ARCTAN,
    GOP_FDIV,  /* floor_divide */
    GOP_MOD,   /* mod, remainder: the divisor's sign */
    GOP_FMOD,  /* fmod: the dividend's sign */
    GOP_SHL,   /* left_shift */
    GOP_SHR,   /* right_shift */
    GOP_INV,   /* invert */
    GOP_ROUND, /* round, around: b the decimals (absent: 0) */
    GOP__N
};

#define GPU_EW_REGS 64
#define GPU_EW_INS 64
#define GPU_EW_IN 16  /* inputs of one program */
#define GPU_EW_DIMS 6 /* dimensions of the output after collapsing */

typedef struct {
    int8_t op, dt, dst, a, b, c;
} gpu_ins_t;

/* A program over an output of n elements, dims dim[0..nd) (C order; nd 0
 * for a scalar); input i reads element sum(coord[d] * str[i][d]) of in[i]
 * (str 0 where it broadcasts), or element k when flat[i]. */
typedef struct {
    int n_inputs, n_regs, n_ins, out, nd;
    int64_t n;
    int64_t dim[GPU_EW_DIMS];
    int64_t str[GPU_EW_IN][GPU_EW_DIMS];
    uint8_t flat[GPU_EW_IN];
    uint8_t reg_dt[GPU_EW_REGS];
    uint8_t is_const[GPU_EW_REGS];
    uint64_t konst[GPU_EW_REGS]; /* the constant's bytes in reg_dt */
    gpu_ins_t ins[GPU_EW_INS];
} gpu_ew_t;

int gpu_k_ew(gpu_job_t *j, const gpu_ew_t *p, const void *const *in, void *out);

/* Reductions (map stage): ops, and the partial layouts of kern/reduce.c
 * (sum, prod: int64 or float64; mean: float64; min, max: the values'
 * dtype; all, any: one byte; var (var and std): float64 count[n_out],
 * mean[n_out], M2[n_out], Welford per thread and Chan et al.'s merge over
 * the tree, equal to the CPU's within rounding; argmin, argmax: value[n_out] as float64 or
 * int64, then the global index[n_out] as int64, ties and NaN going to the
 * smallest index, an order-free rule, so the CPU's partial exactly). */
enum {
    GRED_SUM,
    GRED_PROD,
    GRED_MEAN,
    GRED_MIN,
    GRED_MAX,
    GRED_ALL,
    GRED_ANY,
    GRED_ARGMIN,
    GRED_ARGMAX,
    GRED_VAR,
    GRED_NANMEAN,
    GRED_PTP, /* min[n_out], then max[n_out], in the values' dtype */
    GRED_CNZ  /* count_nonzero: int64 */
};
typedef struct {
    int op, dt; /* dt: the values' dtype */
    /* the values: in (C order over the values' shape), or prog's output */
    const gpu_ew_t *prog;
    const void *const *prog_in;
    const void *in;
    /* position o and reduced index r address value
     * sum(digit_k(o) * kstr[k]) + sum(digit_k(r) * rstr[k]) */
    int nk, nr;
    int64_t kdim[GPU_EW_DIMS], kstr[GPU_EW_DIMS], rdim[GPU_EW_DIMS], rstr[GPU_EW_DIMS];
    int64_t n_out, n_red;
    /* argmin, argmax: a value's flat index in the values' shape (vnd dims)
     * becomes global: its flat index in gshape at offset goff (arg_all:
     * every axis reduced), else its position along axis arg_ax */
    int vnd, arg_all, arg_ax;
    /* the nan-reductions of floats: NaN values are skipped (nansum,
     * nanprod, nanvar/nanstd as sum, prod, var; nanmean: float64
     * sum[n_out] of the others, then their count[n_out]) */
    int skip_nan;
    int64_t vshape[GPU_EW_DIMS], goff[GPU_EW_DIMS], gshape[GPU_EW_DIMS];
} gpu_red_t;
int gpu_k_red(gpu_job_t *j, const gpu_red_t *r, void *partial);

/* Scans along the middle axis of (outer, n, inner) arrays: cumsum (prod 0)
 * or cumprod (prod 1); in_dt to out_dt (the same, or int64 for bool and
 * int32). local: the scan of a chunk (nan: NaN counts as 0 or 1, for
 * nancumsum and nancumprod of floats). carry: prev_carry (NULL: none) (+|*)
 * the last slice of prev_local, shape (outer, 1, inner). apply: local (+|*)
 * carry broadcast along the axis. */
int gpu_k_scan_local(gpu_job_t *j, int prod, int nan, int in_dt, int out_dt, const void *in,
                     void *out, int64_t outer, int64_t n, int64_t inner);
int gpu_k_scan_carry(gpu_job_t *j, int prod, int dt, const void *prev_carry, const void *prev_local,
                     void *out, int64_t outer, int64_t n, int64_t inner);
int gpu_k_scan_apply(gpu_job_t *j, int prod, int dt, const void *local, const void *carry,
                     void *out, int64_t outer, int64_t n, int64_t inner);

/* C (m x n, row-major) (+)= op(A) op(B): A is m x k row-major, or k x m
 * when ta; B is k x n, or n x k when tb. float32 and float64 through
 * cuBLAS; int32, int64 (wrapping) and bool (any of the ands) by a kernel of
 * their own. */
int gpu_k_gemm(gpu_job_t *j, int dt, int ta, int tb, int64_t m, int64_t n, int64_t k, const void *a,
               const void *b, void *c, int accumulate);
/* count products C_i (+)= A_i B_i as gpu_k_gemm's (no transposes), A_i at
 * a + i * sa elements, B_i at b + i * sb (a stride 0 broadcasts), C_i at
 * c + i * m * n (cublas<t>gemmStridedBatched). */
int gpu_k_gemm_batched(gpu_job_t *j, int dt, int64_t m, int64_t n, int64_t k, const void *a,
                       int64_t sa, const void *b, int64_t sb, void *c, int64_t count,
                       int accumulate);
/* C (m x m) (+)= A Aᵀ for A m x k row-major (one triangle, dsyrk/ssyrk);
 * gpu_k_mirror copies that triangle onto the other. */
int gpu_k_syrk(gpu_job_t *j, int dt, int64_t m, int64_t k, const void *a, void *c, int accumulate);
int gpu_k_mirror(gpu_job_t *j, int dt, int64_t m, void *c);

/* Sorts of lines (kern/sortstat.c's k_sortlike and kern_ss_sort1): the
 * outer x inner lines of len elements of in (element i of line (o, r) at
 * (o len + i) inner + r), each sorted as numpy's stable sort does (NaN
 * last; equal values, -0.0 and 0.0, NaNs among themselves, in their
 * order), by a bitonic network over (value, position) pairs padded to p2
 * (len rounded up to a power of two). out: olen per line (len, or topk's
 * k) at (o olen + i) inner + r: the values (dt), or the positions (int64)
 * when index; reverse: from the last (topk's largest). dt: bool, int32,
 * int64, float32, float64. quant (k_quantile's statistics instead):
 * GSORT_MEDIAN, or GSORT_QUANTILE at the nq fractions q (percentile's
 * already / 100), of each sorted line; nan_skip: of its values that are
 * not NaN, else NaN for a line holding one; written as odt (float64 or
 * float32) at qi * outer * inner + line, kern/quant_math.h's arithmetic. */
enum { GSORT_VALUES, GSORT_MEDIAN, GSORT_QUANTILE };
#define GSORT_QMAX 32
typedef struct {
    int dt, index, reverse;
    int64_t outer, len, inner, p2, olen;
    int quant, nan_skip, odt, nq;
    double q[GSORT_QMAX];
    /* pack (olen 2 len): argsort's block for the merge network
     * (kern_ss_pack): int64 [values; off + positions], the values as
     * float64 bits (floats) or int64 */
    int pack;
    int64_t off;
} gpu_sort_t;
int gpu_k_sort(gpu_job_t *j, const gpu_sort_t *s, const void *in, void *out);
/* A comparator of a long sort's merge network (kern_ss_split*): each
 * line's nx sorted elements of x and ny of y merged, x's first among
 * equals (pairs: by their positions), the first nx written (high: the last
 * ny). pairs: argsort's packs (int64 lines [values; positions], dt then
 * GDT_FLOAT64 or GDT_INT64 as they hold). Lines laid out as gpu_sort_t's. */
typedef struct {
    int dt, pairs, high;
    int64_t outer, inner, nx, ny;
} gpu_merge_t;
int gpu_k_merge(gpu_job_t *j, const gpu_merge_t *m, const void *x, const void *y, void *out);
/* searchsorted (kern/sortstat.c's k_lookup without a sorter): for each of
 * the n values of x (dtype xdt), how many of the na sorted values of a
 * (adt) come before it (right: those <= it, else those < it), compared as
 * float64 (NaN last) when either is a float, else as int64; out int64. */
typedef struct {
    int xdt, adt, fl, right;
    int64_t n, na;
} gpu_search_t;
int gpu_k_search(gpu_job_t *j, const gpu_search_t *s, const void *x, const void *a, void *out);

/* Random tensors: kern/random.c's Philox streams, bit for bit; GRND_DIST:
 * random2.c's distributions (rand_math.h's rm_draw_f, rm_draw_i: dist, a,
 * b, low as n trials), bit for bit too. */
enum { GRND_RAND, GRND_UNIFORM, GRND_RANDN, GRND_NORMAL, GRND_RANDINT, GRND_DIST };
typedef struct {
    int kind, dt; /* dt: float32/float64, or int32/int64 for randint */
    int dist;     /* GRND_DIST: rand_math.h's RM_ kind */
    uint64_t seed;
    double a, b;               /* uniform: low, high - low; normal: loc, scale */
    int64_t low;               /* randint */
    uint64_t range;            /* randint: high - low */
    int nd;                    /* the chunk's dimensions (<= GPU_EW_DIMS) */
    int64_t dim[GPU_EW_DIMS];  /* the chunk's shape */
    int64_t gstr[GPU_EW_DIMS]; /* the whole tensor's element strides */
    int64_t base;              /* the chunk's first element's flat index */
    int64_t n;
} gpu_rand_t;
int gpu_k_random(gpu_job_t *j, const gpu_rand_t *r, void *out);
/* A piece of a gather (tile.h's piece_t): element src_off + sum i_d
 * src_stride[d] of src to dst_off + sum i_d dst_stride[d] of dst, for every
 * i < count; elements of es bytes. */
typedef struct {
    int ndim, es;
    int64_t count[GPU_EW_DIMS], src_stride[GPU_EW_DIMS], dst_stride[GPU_EW_DIMS];
    int64_t src_off, dst_off;
} gpu_piece_t;
int gpu_k_piece(gpu_job_t *j, const gpu_piece_t *p, const void *src, void *dst);
int gpu_k_copy(gpu_job_t *j, const void *src, void *dst, size_t bytes);
/* out[0 .. n) = the es-byte value val. */
int gpu_k_fill(gpu_job_t *j, const void *val, size_t es, int64_t n, void *out);
/* The position-dependent creation ops, kern/create.c's arithmetic bit for
 * bit. arange (1-D; float64, float32, int64, int32): element g0 + k is
 * v0 + (g0 + k) * delta in the dtype's arithmetic (integers wrap), with the
 * elements at global 0 and 1 exactly v0 and v1. linspace (1-D; float64,
 * float32): numpy 1.24's formula in float64, then rounded to the dtype.
 * eye (2-D, rows x cols; any base dtype): one (its bytes) where
 * col - row == diag (has_diag 0: nowhere), zero elsewhere. */
enum { GCRE_ARANGE, GCRE_LINSPACE, GCRE_EYE };
typedef struct {
    int kind, dt;
    int64_t g0, n;
    double f0, f1, fdelta;     /* arange float64 */
    float s0, s1, sdelta;      /* arange float32 */
    uint64_t i0, idelta;       /* arange int64 / int32 (low 32 bits) */
    double start, stop, delta; /* linspace: delta = stop - start */
    int64_t num, div;
    int endpoint;
    int64_t cols, diag; /* eye */
    int has_diag, es;
    uint64_t one;
} gpu_create_t;
int gpu_k_create(gpu_job_t *j, const gpu_create_t *c, void *out);

/* Counters since the process started: the jobs run on device dev, and the
 * copies between host and devices (bytes, and the seconds the copy calls
 * took). */
int64_t gpu_device_jobs(int dev);
void gpu_copy_stats(int64_t *in_bytes, double *in_s, int64_t *out_bytes, double *out_s);
/* Of the bytes copied to device dev (-1: to all), those gpu_job_prefetch
 * copied. */
int64_t gpu_prefetched_bytes(int dev);

/* Seconds one n x n float64 cublasDgemm takes on dev (the median of reps
 * after a warm-up), on device buffers of random values: cuBLAS alone. */
int gpu_bench_dgemm(int dev, int64_t n, int reps, double *seconds, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
