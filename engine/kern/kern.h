/* kern.h: the kernels, at the level of one chunk. Every array is C-contiguous
 * and owned by the caller; kernels allocate only scratch they free before
 * returning, and trust their arguments (validation happened in graph_parse
 * and the tiler). Functions returning int give 0, or -1 with a message in
 * err for failures only the data can reveal (integer to negative power). */
#ifndef MARS_KERN_H
#define MARS_KERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../dtype.h"
#include "../ops.h"

typedef struct {
    void *data;
    dtype_t dt;
    shape_t shape;
} arr_t;

/* ---------------------------------------------------------------------------
 * Element-wise programs: a fused chain of element-wise ops evaluated in
 * cache-sized blocks of the output, with no intermediate array per op.
 *
 * Registers 0..n_inputs-1 hold the input arrays (dtype reg_dt[i]; each input
 * broadcasts against the output shape as numpy does, aligned on the right).
 * Constant registers hold a scalar (is_const, konst) of dtype reg_dt[r].
 * Every other register is written by exactly one instruction, in order.
 *
 * An instruction applies `op` (an element-wise op_t) with compute dtype `dt`:
 * a and b (and c) hold values of dtype `dt` (the builder inserts OP_ASTYPE
 * instructions where they do not), and dst has the op's output dtype per
 * ew_resolve. Special cases: OP_ASTYPE converts reg a (any dtype) to `dt`;
 * OP_WHERE reads a as bool, b and c as `dt`; OP_CLIP reads a, and b (lower)
 * and c (upper) where they are not -1; logical ops read bool registers. */
#define EW_MAX_REGS 64
#define EW_MAX_INS 64

typedef struct {
    int16_t op;
    uint8_t dt;
    int8_t dst, a, b, c;
} ew_ins_t;

typedef struct {
    int n_inputs;
    int n_regs;
    int n_ins;
    int out;
    uint8_t reg_dt[EW_MAX_REGS];
    bool is_const[EW_MAX_REGS];
    scalar_t konst[EW_MAX_REGS];
    ew_ins_t ins[EW_MAX_INS];
} ew_prog_t;

/* out = program(inputs); out->dt is reg_dt[prog->out]. Returns -1 only for
 * data errors (integers to negative integer powers, as numpy raises). */
int kern_ew_eval(const ew_prog_t *prog, const arr_t *inputs, arr_t *out, char *err, size_t errlen);

/* ---------------------------------------------------------------------------
 * Reductions as map, combine and final stages over partial results.
 * op is one of OP_SUM, OP_PROD, OP_MEAN, OP_MIN, OP_MAX, OP_STD, OP_VAR,
 * OP_ALL, OP_ANY, OP_ARGMIN, OP_ARGMAX and their nan-variants (OP_NANSUM ...
 * OP_NANARGMAX). A partial result for n_out output
 * positions is one opaque buffer of kern_red_partial_bytes() bytes. */
size_t kern_red_partial_bytes(op_t op, dtype_t in_dt, int64_t n_out);

typedef struct {
    op_t op;
    /* The values to reduce: the array in[0], or, when prog is not NULL, the
     * program evaluated over in[0..prog->n_inputs-1] with output shape
     * `shape` (fused: no intermediate array for the whole chunk). */
    const ew_prog_t *prog;
    const arr_t *in;
    shape_t shape; /* the shape of the values (in[0].shape without prog) */
    dtype_t dt;    /* their dtype (prog's output dtype, or in[0].dt) */
    uint32_t axes; /* bit d set: axis d is reduced */
    /* argmin/argmax only: where this chunk sits in the whole tensor, to
     * produce global indices (flat C-order index over the whole tensor when
     * every axis is reduced, else the index along the one reduced axis). */
    const int64_t *goff;
    const shape_t *gshape;
} kern_red_map_t;

/* Partial positions are the C order of `shape` with reduced axes of size 1. */
int kern_red_map(const kern_red_map_t *m, void *partial, char *err, size_t errlen);
void kern_red_combine(op_t op, dtype_t in_dt, int64_t n_out, int n_parts, const void *const *parts,
                      void *out_partial);
/* n_reduced: how many elements in all were reduced into each position (for
 * mean, std, var); ddof for std and var. out->dt is the op's result dtype. */
void kern_red_final(op_t op, dtype_t in_dt, int64_t n_out, int64_t n_reduced, int64_t ddof,
                    const void *partial, arr_t *out);
/* After kern_red_final of nanargmin or nanargmax: whether some position
 * saw only NaN (numpy raises "All-NaN slice encountered"). */
bool kern_red_all_nan(op_t op, const arr_t *out);
/* The result dtype of a reduction over in_dt (numpy 1.24). */
dtype_t kern_red_result_dtype(op_t op, dtype_t in_dt);

/* ---------------------------------------------------------------------------
 * Scans (cumsum, cumprod) along one axis across chunks:
 *   local_k = scan of chunk k alone (out dtype: kern_red_result_dtype of SUM/PROD)
 *   carry_1 = last slice of local_0; carry_k = carry_{k-1} (+|*) last slice of local_{k-1}
 *   result_k = local_k (+|*) carry_k, broadcast along the axis
 * Carries have the chunk's shape with the axis of size 1. */
void kern_scan_local(op_t op, const arr_t *in, int axis, arr_t *out);
void kern_scan_carry(op_t op, const arr_t *prev_carry /* NULL for k = 1 */, const arr_t *prev_local,
                     int axis, arr_t *out);
void kern_scan_apply(op_t op, const arr_t *local, const arr_t *carry, int axis, arr_t *out);

/* ---------------------------------------------------------------------------
 * Creation and random ops: fill `out` (its shape is the chunk's) with the
 * region of the tensor described by g that starts at global offset off. */
typedef struct {
    op_t op;
    shape_t shape; /* the whole tensor's */
    dtype_t dt;
    scalar_t fill_value;        /* full */
    scalar_t start, stop, step; /* arange, linspace */
    int64_t num;                /* linspace */
    bool endpoint;              /* linspace */
    int64_t k;                  /* eye: the diagonal */
    const void *data;           /* array: every value, C order, in dt */
    uint64_t seed;              /* random ops */
    scalar_t low, high, loc, scale;
} kern_gen_t;

void kern_create(const kern_gen_t *g, const int64_t *off, arr_t *out);
/* Counter-based (Philox4x32-10): each value depends only on the seed, the
 * tensor's shape and the element's global position. */
void kern_random(const kern_gen_t *g, const int64_t *off, arr_t *out);
/* random2.c's per-element distributions as rand_math.h's RM_ kinds (the
 * samplers the CUDA path shares), -1 for other ops. */
int kern_random2_kind(op_t op);

/* How kern_tensordot (and the GPU path, engine/cuda/gpu_exec.c) runs a
 * tensordot as one M x N x K product: the pairs (ca[i], cb[i]) in the order
 * oa[i], ob[i] that they are flattened into K; a read in place (as K x M when
 * a_trans) or else copied into the axis order perm_a (an M x K matrix); b in
 * place (as N x K when b_trans) or else copied into perm_b (K x N). */
typedef struct {
    int64_t M, N, K;
    int oa[MR_MAXDIM], ob[MR_MAXDIM];
    bool a_inplace, a_trans, b_inplace, b_trans;
    int perm_a[MR_MAXDIM], perm_b[MR_MAXDIM];
} kern_td_plan_t;
void kern_td_plan(const shape_t *as, const shape_t *bs, int n, const int *ca, const int *cb,
                  kern_td_plan_t *p);
/* ---------------------------------------------------------------------------
 * Linear algebra on blocks (OpenBLAS for float32/float64, plain loops for
 * bool and integers; a, b and out share one dtype). With accumulate, the
 * result is added into out, else out is overwritten.
 *
 * tensordot: contracts axes ca[i] of a with cb[i] of b; out's axes are a's
 * free axes in order, then b's free axes in order. */
void kern_tensordot(const arr_t *a, const arr_t *b, int n, const int *ca, const int *cb,
                    bool accumulate, arr_t *out);
/* numpy's outer(a, b) of two flattened operands of out's dtype: out[i, j] =
 * a[i] * b[j], a multiply per element as numpy's (a product with zero keeps
 * its sign: -1.5 * 0.0 is -0.0; a gemm adds it to a zeroed output, +0.0). */
void kern_outer(const arr_t *a, const arr_t *b, arr_t *out);
/* matmul's batches (kern_matmul, and the GPU path): the output's nb batch
 * axes (bshape), a's and b's strides along them in matrices (0 where one
 * broadcasts: a missing or size-1 axis), the batch count and b's own. */
typedef struct {
    int nb;
    int64_t bshape[MR_MAXDIM], ast[MR_MAXDIM], bst[MR_MAXDIM];
    int64_t nbatch, bbatch;
} kern_mm_batch_t;
void kern_mm_batch(const shape_t *a, const shape_t *b, const shape_t *out, kern_mm_batch_t *m);
/* matmul of blocks with numpy broadcasting over leading (batch) axes; both
 * have ndim >= 2 here (the tiler handles 1-D operands by reshaping). */
void kern_matmul(const arr_t *a, const arr_t *b, bool accumulate, arr_t *out);
/* out = a · aᵀ for a 2-D block a (m x k; out m x m), computing one triangle
 * (syrk) and mirroring it. */
void kern_syrk(const arr_t *a, bool accumulate, arr_t *out);

/* BLAS calls run single-threaded: parallelism comes from chunk jobs. */
void kern_init(void);

#endif
