/* gpu_exec.c: chunk jobs as gpu.h calls (gpu_exec.h). */
#include "gpu_exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cast.h"
#include "../exec.h"
#include "../kern/kern.h"
#include "../scratch.h"
#include "../sortstat.h"
#include "gpu.h"

_Static_assert((int)DT_BOOL == (int)GDT_BOOL && (int)DT_INT32 == (int)GDT_INT32 &&
                   (int)DT_INT64 == (int)GDT_INT64 && (int)DT_FLOAT32 == (int)GDT_FLOAT32 &&
                   (int)DT_FLOAT64 == (int)GDT_FLOAT64 && (int)DT_INT8 == (int)GDT_INT8 &&
                   (int)DT_INT16 == (int)GDT_INT16 && (int)DT_UINT8 == (int)GDT_UINT8 &&
                   (int)DT_UINT16 == (int)GDT_UINT16 && (int)DT_UINT32 == (int)GDT_UINT32 &&
                   (int)DT_UINT64 == (int)GDT_UINT64 && (int)DT_NTYPES == (int)GDT_N,
               "gpu.h's dtype codes are the engine's");

/* ------------------------------------------------------------------ ops */

/* dtype masks: bool, int32, int64, float32, float64, and the small integer
 * dtypes (int8, int16, uint8, uint16, uint32, uint64: ew_int.c's ops) */
enum { MB = 1, MI = 2, ML = 4, MF = 8, MD = 16, MS = 0x7e0 };
#define M_FLT (MF | MD)
#define M_INT (MI | ML | MS)
#define M_NUM (M_INT | MF | MD)
#define M_ALL (MB | M_NUM)

typedef struct {
    int8_t gop;
    uint16_t dts; /* compute dtypes with a device kernel */
} gmap_t;

static gmap_t gmap(op_t op)
{
#define G(o, m)                                                                                    \
    return (gmap_t)                                                                                \
    {                                                                                              \
        o, m                                                                                       \
    }
    switch (op) {
    case OP_ASTYPE:
        G(GOP_ASTYPE, M_ALL);
    case OP_ADD:
        G(GOP_ADD, M_ALL);
    case OP_SUBTRACT:
        G(GOP_SUB, M_NUM);
    case OP_MULTIPLY:
        G(GOP_MUL, M_ALL);
    case OP_DIVIDE:
        G(GOP_DIV, M_FLT);
    case OP_MAXIMUM:
        G(GOP_MAX, M_ALL);
    case OP_MINIMUM:
        G(GOP_MIN, M_ALL);
    case OP_FMAX:
        G(GOP_FMAX, M_ALL);
    case OP_FMIN:
        G(GOP_FMIN, M_ALL);
    case OP_EQUAL:
        G(GOP_EQ, M_ALL);
    case OP_NOT_EQUAL:
        G(GOP_NE, M_ALL);
    case OP_LESS:
        G(GOP_LT, M_ALL);
    case OP_LESS_EQUAL:
        G(GOP_LE, M_ALL);
    case OP_GREATER:
        G(GOP_GT, M_ALL);
    case OP_GREATER_EQUAL:
        G(GOP_GE, M_ALL);
    case OP_LOGICAL_AND:
        G(GOP_LAND, MB);
    case OP_LOGICAL_OR:
        G(GOP_LOR, MB);
    case OP_LOGICAL_XOR:
        G(GOP_LXOR, MB);
    case OP_LOGICAL_NOT:
        G(GOP_LNOT, MB);
    case OP_NEGATIVE:
        G(GOP_NEG, M_NUM);
    case OP_ABS:
        G(GOP_ABS, M_ALL);
    case OP_SQRT:
        G(GOP_SQRT, M_FLT);
    case OP_EXP:
        G(GOP_EXP, M_FLT);
    case OP_LOG:
        G(GOP_LOG, M_FLT);
    case OP_LOG1P:
        G(GOP_LOG1P, M_FLT);
    case OP_EXPM1:
        G(GOP_EXPM1, M_FLT);
    case OP_SIN:
        G(GOP_SIN, M_FLT);
    case OP_COS:
        G(GOP_COS, M_FLT);
    case OP_TAN:
        G(GOP_TAN, M_FLT);
    case OP_TANH:
        G(GOP_TANH, M_FLT);
    case OP_SQUARE:
        G(GOP_SQUARE, M_NUM);
    case OP_SIGN:
        G(GOP_SIGN, M_NUM);
    case OP_FLOOR:
        G(GOP_FLOOR, M_FLT);
    case OP_CEIL:
        G(GOP_CEIL, M_FLT);
    case OP_TRUNC:
    case OP_FIX:
        G(GOP_TRUNC, M_FLT);
    case OP_RINT:
        G(GOP_RINT, M_FLT);
    case OP_ISNAN:
        G(GOP_ISNAN, M_ALL);
    case OP_ISFINITE:
        G(GOP_ISFINITE, M_ALL);
    case OP_ISINF:
        G(GOP_ISINF, M_ALL);
    case OP_RECIPROCAL:
        G(GOP_RECIP, M_FLT);
    case OP_POSITIVE:
        G(GOP_POS, M_NUM);
    case OP_WHERE:
        G(GOP_WHERE, M_ALL);
    case OP_CLIP:
        G(GOP_CLIP, M_ALL);
    case OP_BITWISE_AND:
        G(GOP_BAND, MB | M_INT);
    case OP_BITWISE_OR:
        G(GOP_BOR, MB | M_INT);
    case OP_BITWISE_XOR:
        G(GOP_BXOR, MB | M_INT);
    case OP_POWER:
        G(GOP_POW, M_NUM); /* integers: a constant exponent >= 0 (prog_ok) */
    case OP_FLOAT_POWER:
        G(GOP_POW, M_FLT);
    case OP_ARCTAN2:
        G(GOP_ARCTAN2, M_FLT);
    case OP_HYPOT:
        G(GOP_HYPOT, M_FLT);
    case OP_LOG2:
        G(GOP_LOG2, M_FLT);
    case OP_LOG10:
        G(GOP_LOG10, M_FLT);
    case OP_SINH:
        G(GOP_SINH, M_FLT);
    case OP_COSH:
        G(GOP_COSH, M_FLT);
    case OP_ARCSIN:
        G(GOP_ARCSIN, M_FLT);
    case OP_ARCCOS:
        G(GOP_ARCCOS, M_FLT);
    case OP_ARCTAN:
        G(GOP_ARCTAN, M_FLT);
    case OP_FLOOR_DIVIDE:
        G(GOP_FDIV, M_NUM);
    case OP_MOD:
    case OP_REMAINDER:
        G(GOP_MOD, M_NUM);
    case OP_FMOD:
        G(GOP_FMOD, M_NUM);
    case OP_LEFT_SHIFT:
        G(GOP_SHL, M_INT);
    case OP_RIGHT_SHIFT:
        G(GOP_SHR, M_INT);
    case OP_INVERT:
        G(GOP_INV, MB | M_INT);
    case OP_ROUND:
    case OP_AROUND:
        G(GOP_ROUND, M_NUM);
    default:
        G(-1, 0);
    }
#undef G
}

/* Any dtype (element-wise programs, gathers, inputs) */
static bool base_dt(int dt)
{
    return dt >= 0 && dt < GDT_N;
}

/* bool, int32, int64, float32, float64 (the other kernels) */
static bool core_dt(int dt)
{
    return dt >= 0 && dt < GDT_CORE;
}

static bool prog_ok(const ew_prog_t *p)
{
    if (!p || p->n_inputs > GPU_EW_IN || p->n_regs > GPU_EW_REGS || p->n_ins > GPU_EW_INS)
        return false;
    for (int r = 0; r < p->n_regs; r++)
        if (!base_dt(p->reg_dt[r])) return false;
    for (int i = 0; i < p->n_ins; i++) {
        const ew_ins_t *q = &p->ins[i];
        if ((unsigned)q->op >= OP_COUNT || !base_dt(q->dt)) return false;
        gmap_t m = gmap((op_t)q->op);
        if (m.gop < 0 || !(m.dts & (1u << q->dt))) return false;
        /* integer power: the CPU refuses a negative exponent before it
         * runs; a device runs it only when the exponent is a constant that
         * is not negative */
        if (q->op == OP_POWER && !dt_is_float((dtype_t)q->dt) &&
            (q->b < 0 || !p->is_const[q->b] || sc_as_double(p->konst[q->b]) < 0))
            return false;
    }
    return true;
}

/* The nan-reductions of floats that skip NaN values on the device. */
static bool red_skips_nan(op_t op, dtype_t dt)
{
    return dt_is_float(dt) && (op == OP_NANSUM || op == OP_NANPROD || op == OP_NANMEAN ||
                               op == OP_NANVAR || op == OP_NANSTD || op == OP_NANMIN ||
                               op == OP_NANMAX || op == OP_NANARGMIN || op == OP_NANARGMAX);
}

/* The reduction ops with a device kernel, as gpu.h's GRED_; -1 for none. */
static int red_op(op_t op, dtype_t dt)
{
    if (!dt_is_float(dt)) op = op_nan_base(op);
    if (red_skips_nan(op, dt)) {
        if (op == OP_NANMEAN) return GRED_NANMEAN;
        op = op_nan_base(op); /* the same layout, NaN skipped */
    }
    switch (op) {
    case OP_SUM:
        return GRED_SUM;
    case OP_PROD:
        return GRED_PROD;
    case OP_MEAN:
        return GRED_MEAN;
    case OP_MIN:
        return GRED_MIN;
    case OP_MAX:
        return GRED_MAX;
    case OP_ALL:
        return GRED_ALL;
    case OP_ANY:
        return GRED_ANY;
    case OP_VAR:
    case OP_STD:
        return GRED_VAR;
    case OP_ARGMIN:
        return GRED_ARGMIN;
    case OP_ARGMAX:
        return GRED_ARGMAX;
    case OP_PTP:
        return GRED_PTP;
    case OP_COUNT_NONZERO:
        return GRED_CNZ;
    default:
        return -1;
    }
}

static int rand_kind(op_t op)
{
    switch (op) {
    case OP_RAND:
    case OP_RANDOM_SAMPLE:
        return GRND_RAND;
    case OP_UNIFORM:
        return GRND_UNIFORM;
    case OP_RANDN:
        return GRND_RANDN;
    case OP_NORMAL:
        return GRND_NORMAL;
    case OP_RANDINT:
        return GRND_RANDINT;
    default:
        return kern_random2_kind(op) >= 0 ? GRND_DIST : -1;
    }
}

static bool const_fill(op_t op)
{
    return op == OP_ONES || op == OP_ZEROS || op == OP_FULL || op == OP_EMPTY ||
           op == OP_ONES_LIKE || op == OP_ZEROS_LIKE || op == OP_EMPTY_LIKE || op == OP_FULL_LIKE;
}

/* The creation ops whose values depend on the position (gpu_k_create). */
static bool pos_create_ok(op_t op, dtype_t dt, int ndim)
{
    bool f = dt == DT_FLOAT64 || dt == DT_FLOAT32;
    switch (op) {
    case OP_ARANGE:
        return ndim == 1 && (f || dt == DT_INT64 || dt == DT_INT32);
    case OP_LINSPACE:
        return ndim == 1 && f;
    case OP_EYE:
        return ndim == 2;
    default:
        return false;
    }
}

/* A creation or random node's region the device can make. */
static bool gen_ok(const graph_node_t *n, dtype_t dt, int ndim)
{
    if (!core_dt(dt) || ndim > GPU_EW_DIMS) return false;
    if (const_fill(n->op) || pos_create_ok(n->op, dt, ndim)) return true;
    int k = rand_kind(n->op);
    if (k < 0) return false;
    if (k == GRND_RANDINT) return dt == DT_INT32 || dt == DT_INT64;
    if (n->op == OP_POISSON || n->op == OP_BINOMIAL) return dt == DT_INT64;
    return dt == DT_FLOAT32 || dt == DT_FLOAT64;
}

static bool input_ok(const tile_t *t, const jin_t *in)
{
    if (!base_dt(in->dt)) return false;
    if (in->job >= 0) return true;
    if (in->gen_node >= 0) return gen_ok(&t->g->nodes[in->gen_node], in->dt, in->ndim);
    return true; /* assembled on the host, then copied in */
}

static shape_t shape_of(int nd, const int64_t *d)
{
    shape_t s = {.ndim = nd};
    memcpy(s.d, d, sizeof(int64_t) * (size_t)nd);
    return s;
}

/* A tensordot pair's plan (kern_td_plan, as the CPU runs it): an operand
 * not read in place is permuted on the device by one gather piece, so at
 * most GPU_EW_DIMS axes. */
static bool td_plan(const jparam_t *pa, const jin_t *a, const jin_t *b, kern_td_plan_t *p)
{
    int n = pa->td_n;
    if (n < 0 || n > a->ndim || n > b->ndim) return false;
    shape_t as = shape_of(a->ndim, a->shape), bs = shape_of(b->ndim, b->shape);
    kern_td_plan(&as, &bs, n, pa->td_a, pa->td_b, p);
    return (p->a_inplace || a->ndim <= GPU_EW_DIMS) && (p->b_inplace || b->ndim <= GPU_EW_DIMS);
}

static int64_t elems(int nd, const int64_t *s)
{
    int64_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= s[d];
    return n;
}

size_t gpu_input_bytes(const jin_t *in)
{
    return (size_t)elems(in->ndim, in->shape) * dt_size(in->dt);
}

/* The lines along an axis of a shape: outer x inner of them, n long. */
static void split_axis(int nd, const int64_t *s, int axis, int64_t *outer, int64_t *n,
                       int64_t *inner)
{
    *outer = elems(axis, s);
    *n = s[axis];
    *inner = elems(nd - axis - 1, s + axis + 1);
}

/* A median or quantile of lines (k_quantile) planned into s (its lines
 * set): true, or false when the device has no kernel for it. */
static bool quant_plan(const graph_node_t *n, const job_t *j, gpu_sort_t *s)
{
    bool med = n->op == OP_MEDIAN || n->op == OP_NANMEDIAN;
    s->quant = med ? GSORT_MEDIAN : GSORT_QUANTILE;
    s->nan_skip = n->op == OP_NANMEDIAN || n->op == OP_NANPERCENTILE || n->op == OP_NANQUANTILE;
    s->odt = j->dt;
    s->nq = med ? 1 : n->ss->nq;
    s->olen = s->len;
    if ((j->dt != DT_FLOAT64 && j->dt != DT_FLOAT32) || s->nq < 1 || s->nq > GSORT_QMAX)
        return false;
    for (int k = 0; !med && k < s->nq; k++)
        s->q[k] = n->ss->q[k];
    /* its output: nq values per line, whatever the shape keepdims gives */
    return (int64_t)job_nbytes(j) == s->nq * s->outer * s->inner * (int64_t)dt_size(j->dt);
}

static bool is_quant_op(op_t op)
{
    return op == OP_MEDIAN || op == OP_NANMEDIAN || op == OP_PERCENTILE || op == OP_NANPERCENTILE ||
           op == OP_QUANTILE || op == OP_NANQUANTILE;
}

/* A sort that keeps the lines' shape (k_sortlike, a network block, an
 * argsort pack) planned into s (its lines set): true, or false. */
static bool keep_plan(const graph_node_t *n, const job_t *j, int ax, bool line, bool pack,
                      gpu_sort_t *s)
{
    const jin_t *in = &j->in[0];
    s->index = line && (n->op == OP_ARGSORT || n->op == OP_ARGPARTITION);
    s->reverse = line && n->op == OP_TOPK && n->ss->largest;
    s->pack = pack;
    s->off = pack && j->off ? j->off[0] : 0;
    if (j->dt != (s->index || pack ? DT_INT64 : in->dt) || j->ndim != in->ndim) return false;
    for (int d = 0; d < in->ndim; d++)
        if (d != ax && j->shape[d] != in->shape[d]) return false;
    s->olen = j->shape[ax];
    if (pack) return s->olen == 2 * s->len;
    return line && n->op == OP_TOPK ? s->olen <= s->len : s->olen == s->len;
}

/* A JK_SS job that gpu_k_sort runs, planned into s: a line op that sorts
 * (k_sortlike: sort, argsort, partition, argpartition, topk), a block of
 * a quantile's network (SS_SORT1), argsort's pack of a network block
 * (SS_PACK), or a median or quantile of lines (k_quantile), over the five
 * core dtypes. */
static bool sort_plan(const tile_t *t, const job_t *j, gpu_sort_t *s)
{
    const jparam_t *pa = j->param;
    if (!pa || j->n_in != 1) return false;
    const graph_node_t *n = &t->g->nodes[j->node];
    op_t op = n->op;
    bool line =
        pa->la_step == SS_STEP_LINE && (op == OP_SORT || op == OP_ARGSORT || op == OP_PARTITION ||
                                        op == OP_ARGPARTITION || op == OP_TOPK);
    bool quant = pa->la_step == SS_STEP_LINE && is_quant_op(op);
    bool pack = pa->la_step == SS_PACK;
    if (!line && !quant && !pack && pa->la_step != SS_SORT1) return false;
    const jin_t *in = &j->in[0];
    /* a network's blocks are 1-D unless sorted along an axis */
    int ax = !line && !quant && j->ndim <= 1 ? 0 : pa->axis;
    if (!core_dt(in->dt) || in->ndim < 1 || ax < 0 || ax >= in->ndim) return false;
    memset(s, 0, sizeof *s);
    s->dt = in->dt;
    split_axis(in->ndim, in->shape, ax, &s->outer, &s->len, &s->inner);
    if (!(quant ? quant_plan(n, j, s) : keep_plan(n, j, ax, line, pack, s))) return false;
    for (s->p2 = 1; s->p2 < s->len; s->p2 *= 2)
        if (s->p2 > ((int64_t)1 << 40)) return false;
    /* the network's pairs: 16 bytes each (tile.c bounds the chunk) */
    return s->outer * s->inner <= ((int64_t)1 << 40) / s->p2;
}

/* A comparator of a long sort's merge network (SS_SPLIT_LOW, SS_SPLIT_HIGH:
 * kern_ss_split and its pairs and axis forms) planned into m. */
static bool merge_plan(const tile_t *t, const job_t *j, gpu_merge_t *m)
{
    const jparam_t *pa = j->param;
    if (!pa || j->n_in != 2 || (pa->la_step != SS_SPLIT_LOW && pa->la_step != SS_SPLIT_HIGH))
        return false;
    op_t op = t->g->nodes[j->node].op;
    const jin_t *x = &j->in[0], *y = &j->in[1];
    int ax = j->ndim > 1 ? pa->axis : 0;
    if (j->ndim < 1 || ax < 0 || ax >= j->ndim || x->ndim != j->ndim || y->ndim != j->ndim)
        return false;
    memset(m, 0, sizeof *m);
    m->pairs = op == OP_ARGSORT || op == OP_ARGPARTITION;
    m->high = pa->la_step == SS_SPLIT_HIGH;
    if (m->pairs) {
        if (!core_dt(pa->in_dt) || j->dt != DT_INT64 || x->dt != DT_INT64 || y->dt != DT_INT64)
            return false;
        m->dt = pa->in_dt == DT_FLOAT32 || pa->in_dt == DT_FLOAT64 ? GDT_FLOAT64 : GDT_INT64;
    } else {
        if (!core_dt(j->dt) || x->dt != j->dt || y->dt != j->dt) return false;
        m->dt = j->dt;
    }
    for (int d = 0; d < j->ndim; d++)
        if (d != ax && (x->shape[d] != j->shape[d] || y->shape[d] != j->shape[d])) return false;
    int64_t len;
    split_axis(j->ndim, j->shape, ax, &m->outer, &len, &m->inner);
    int per = m->pairs ? 2 : 1;
    if (x->shape[ax] % per || y->shape[ax] % per) return false;
    m->nx = x->shape[ax] / per;
    m->ny = y->shape[ax] / per;
    return j->shape[ax] == per * (m->high ? m->ny : m->nx);
}

/* A searchsorted without a sorter (k_lookup) planned into s. */
static bool search_plan(const tile_t *t, const job_t *j, gpu_search_t *s)
{
    const jparam_t *pa = j->param;
    const graph_node_t *n = &t->g->nodes[j->node];
    if (!pa || pa->la_step != SS_STEP_LINE || n->op != OP_SEARCHSORTED || j->n_in != 2 ||
        j->dt != DT_INT64)
        return false;
    const jin_t *x = &j->in[0], *a = &j->in[1];
    if (!core_dt(x->dt) || !core_dt(a->dt)) return false;
    memset(s, 0, sizeof *s);
    s->xdt = x->dt;
    s->adt = a->dt;
    s->fl = dt_is_float(x->dt) || dt_is_float(a->dt);
    s->right = n->ss->side_right;
    s->n = elems(x->ndim, x->shape);
    s->na = elems(a->ndim, a->shape);
    return (int64_t)job_nbytes(j) == s->n * 8;
}

bool gpu_job_supported(const tile_t *t, int32_t ji)
{
    const job_t *j = &t->jobs[ji];
    const jparam_t *pa = j->param;
    for (int k = 0; k < j->n_in; k++)
        if (!input_ok(t, &j->in[k])) return false;
    switch ((job_kind_t)j->kind) {
    case JK_CREATE:
    case JK_RANDOM:
        return j->off && gen_ok(&t->g->nodes[j->node], (dtype_t)j->dt, j->ndim);
    case JK_EW:
        return pa && prog_ok(pa->prog);
    case JK_RED_MAP:
        if (j->n_regions > 1 || j->n_in < 1 || !pa) return false;
        if (pa->prog && !prog_ok(pa->prog)) return false;
        if (!pa->prog && j->n_in != 1) return false;
        {
            dtype_t vdt = pa->prog ? (dtype_t)pa->prog->reg_dt[pa->prog->out] : j->in[0].dt;
            return core_dt(vdt) && red_op(pa->op, vdt) >= 0;
        }
    case JK_SCAN_LOCAL:
        return pa && core_dt(j->in[0].dt) && core_dt(j->dt);
    case JK_SCAN_CARRY:
    case JK_SCAN_APPLY:
        return pa && core_dt(j->dt) && j->dt != DT_BOOL && j->dt != DT_INT32;
    case JK_TENSORDOT:
        if (!core_dt(j->dt)) return false; /* integers and bool: gpu_k_gemm's own kernel */
        /* outer multiplies element by element on the CPU (kern_outer: a
         * negative times zero is numpy's -0.0; a gemm adds it into zero) */
        if (pa && pa->op == OP_OUTER) return false;
        for (int k = 0; k + 1 < j->n_in; k += 2) {
            kern_td_plan_t p;
            if (j->in[k].dt != j->dt || j->in[k + 1].dt != j->dt ||
                !td_plan(pa, &j->in[k], &j->in[k + 1], &p))
                return false;
        }
        return true;
    case JK_MATMUL:
        /* with batch axes too (kern_matmul's broadcasting) */
        if (!core_dt(j->dt) || j->ndim < 2) return false;
        for (int k = 0; k < j->n_in; k++)
            if (j->in[k].ndim < 2 || j->in[k].ndim > j->ndim || j->in[k].dt != j->dt) return false;
        return true;
    case JK_SYRK:
        if (!core_dt(j->dt)) return false;
        for (int k = 0; k < j->n_in; k++)
            if (j->in[k].ndim != 2 || j->in[k].dt != j->dt) return false;
        return j->ndim == 2;
    case JK_SS: {
        gpu_sort_t s;
        gpu_merge_t m;
        gpu_search_t q;
        return sort_plan(t, j, &s) || merge_plan(t, j, &m) || search_plan(t, j, &q);
    }
    case JK_GATHER: {
        /* pieces of other jobs' outputs, copied on the device */
        const jin_t *in = &j->in[0];
        if (j->n_in != 1) return false;
        if (in->job >= 0) return true;
        if (in->gen_node >= 0 || in->n_gpieces != 0 || in->n_pieces < 1) return false;
        size_t es = dt_size(in->dt);
        if (es != 1 && es != 2 && es != 4 && es != 8) return false;
        for (int32_t q = 0; q < in->n_pieces; q++)
            if (in->pieces[q].ndim > GPU_EW_DIMS || in->pieces[q].src < 0) return false;
        return true;
    }
    default:
        return false;
    }
}

bool gpu_job_preferred(const tile_t *t, int32_t ji, graph_device_t place, const uint8_t *pref)
{
    if (place == GRAPH_DEVICE_CPU || !gpu_job_supported(t, ji)) return false;
    if (place == GRAPH_DEVICE_GPU) return true;
    const job_t *j = &t->jobs[ji];
    if (j->kind == JK_GATHER) {
        /* a copy: where its sources are */
        const jin_t *in = &j->in[0];
        if (!pref) return false;
        if (in->job >= 0) return pref[in->job];
        for (int32_t q = 0; q < in->n_pieces; q++)
            if (!pref[in->pieces[q].src]) return false;
        return true;
    }
    if (j->kind == JK_TENSORDOT || j->kind == JK_MATMUL || j->kind == JK_SYRK) return true;
    size_t bytes = job_nbytes(j);
    for (int k = 0; k < j->n_in; k++) {
        const jin_t *in = &j->in[k];
        int64_t n = 1;
        for (int d = 0; d < in->ndim; d++)
            n *= in->shape[d];
        bytes += (size_t)n * dt_size(in->dt);
    }
    return bytes >= GPU_AUTO_BYTES;
}

/* ------------------------------------------------------------------ building */

/* The program over an output of shape (nd, shape) and inputs of the given
 * shapes: dims collapsed where every input is contiguous across them. */
static bool ew_build(const ew_prog_t *p, int nd, const int64_t *shape, const jin_t *ins,
                     gpu_ew_t *g)
{
    memset(g, 0, sizeof *g);
    g->n_inputs = p->n_inputs;
    g->n_regs = p->n_regs;
    g->n_ins = p->n_ins;
    g->out = p->out;
    g->n = elems(nd, shape);
    for (int r = 0; r < p->n_regs; r++) {
        g->reg_dt[r] = p->reg_dt[r];
        g->is_const[r] = r >= p->n_inputs && p->is_const[r];
        if (g->is_const[r]) sc_store(p->konst[r], (dtype_t)p->reg_dt[r], &g->konst[r]);
    }
    for (int i = 0; i < p->n_ins; i++) {
        const ew_ins_t *q = &p->ins[i];
        g->ins[i] = (gpu_ins_t){gmap((op_t)q->op).gop, (int8_t)q->dt, q->dst, q->a, q->b, q->c};
    }
    /* strides over the full output dims, inputs aligned on the right */
    int64_t str[GPU_EW_IN][MR_MAXDIM];
    for (int i = 0; i < p->n_inputs; i++) {
        const jin_t *in = &ins[i];
        int64_t s = 1;
        for (int d = nd - 1; d >= 0; d--) {
            int e = d - (nd - in->ndim);
            if (e < 0 || in->shape[e] == 1) {
                str[i][d] = 0;
            } else {
                str[i][d] = s;
                s *= in->shape[e];
            }
        }
        g->flat[i] = elems(in->ndim, in->shape) == g->n;
    }
    /* collapse: drop size-1 dims, merge d into the next kept one where every
     * input's stride continues */
    int64_t dim[MR_MAXDIM], cs[GPU_EW_IN][MR_MAXDIM];
    int m = 0;
    for (int d = 0; d < nd; d++) {
        if (shape[d] == 1) continue;
        bool merge = m > 0;
        for (int i = 0; merge && i < p->n_inputs; i++)
            merge = cs[i][m - 1] == str[i][d] * shape[d];
        if (merge) {
            dim[m - 1] *= shape[d];
            for (int i = 0; i < p->n_inputs; i++)
                cs[i][m - 1] = str[i][d];
        } else {
            dim[m] = shape[d];
            for (int i = 0; i < p->n_inputs; i++)
                cs[i][m] = str[i][d];
            m++;
        }
    }
    if (m > GPU_EW_DIMS) return false;
    g->nd = m;
    for (int d = 0; d < m; d++) {
        g->dim[d] = dim[d];
        for (int i = 0; i < p->n_inputs; i++)
            g->str[i][d] = cs[i][d];
    }
    return true;
}

/* ------------------------------------------------------------------ running */

typedef struct {
    const tile_t *t;
    gpu_job_t *gj;
    const void *(*get)(void *, int32_t);
    const void *(*get_host)(void *, int32_t);
    void *ctx;
    bool keep;
    void *owned[64]; /* host buffers assembled here */
    int n_owned;
} run_t;

/* gpu_k_create's parameters for a box of arange, linspace or eye, the
 * values the CPU kernel starts from taken from that kernel itself: arange's
 * first two elements, eye's one. 0, or 1 when the device cannot make it. */
static int create_params(const kern_gen_t *gp, dtype_t dt, int nd, const int64_t *shape,
                         const int64_t *off, gpu_create_t *c)
{
    memset(c, 0, sizeof *c);
    c->dt = dt;
    c->n = elems(nd, shape);
    c->g0 = nd ? off[0] : 0;
    c->es = (int)dt_size(dt);
    if (gp->op == OP_EYE) {
        c->kind = GCRE_EYE;
        c->cols = shape[1];
        int64_t d0;
        c->has_diag = !__builtin_sub_overflow(off[0], off[1], &d0) &&
                      !__builtin_add_overflow(d0, gp->k, &c->diag);
        kern_gen_t g1 = *gp;
        g1.k = 0;
        int64_t z[2] = {0, 0};
        arr_t one = {.data = &c->one, .dt = dt};
        one.shape.ndim = 2;
        one.shape.d[0] = one.shape.d[1] = 1;
        kern_create(&g1, z, &one);
        return c->cols > 0 || c->n == 0 ? 0 : 1;
    }
    if (gp->op == OP_LINSPACE) {
        c->kind = GCRE_LINSPACE;
        c->start = sc_as_double(gp->start);
        c->stop = sc_as_double(gp->stop);
        c->delta = c->stop - c->start;
        c->num = gp->num;
        c->endpoint = gp->endpoint ? 1 : 0;
        c->div = gp->endpoint ? gp->num - 1 : gp->num;
        return 0;
    }
    c->kind = GCRE_ARANGE;
    unsigned char two[16] = {0};
    arr_t a = {.data = two, .dt = dt};
    a.shape.ndim = 1;
    a.shape.d[0] = 2;
    int64_t z = 0;
    kern_create(gp, &z, &a);
    switch (dt) {
    case DT_FLOAT64:
        memcpy(&c->f0, two, 8);
        memcpy(&c->f1, two + 8, 8);
        c->fdelta = c->f1 - c->f0;
        return 0;
    case DT_FLOAT32:
        memcpy(&c->s0, two, 4);
        memcpy(&c->s1, two + 4, 4);
        c->sdelta = c->s1 - c->s0;
        return 0;
    case DT_INT64: {
        int64_t v[2];
        memcpy(v, two, 16);
        c->i0 = (uint64_t)v[0];
        c->idelta = (uint64_t)v[1] - (uint64_t)v[0];
        return 0;
    }
    case DT_INT32: {
        int32_t v[2];
        memcpy(v, two, 8);
        c->i0 = (uint32_t)v[0];
        c->idelta = (uint32_t)((uint32_t)v[1] - (uint32_t)v[0]);
        return 0;
    }
    default:
        return 1;
    }
}

/* gen: a creation or random node's box (shape, dtype, global offset) made
 * on the device at out. */
static int gen_region(run_t *r, const graph_node_t *n, dtype_t dt, int nd, const int64_t *shape,
                      const int64_t *off, void *out)
{
    kern_gen_t gp;
    tile_gen_params(n, &gp);
    int64_t cnt = elems(nd, shape);
    if (const_fill(n->op)) {
        /* one element made by the CPU kernel, then broadcast */
        uint64_t v = 0;
        arr_t one = {.data = &v, .dt = dt};
        one.shape.ndim = nd;
        for (int d = 0; d < nd; d++)
            one.shape.d[d] = 1;
        kern_create(&gp, off, &one);
        return gpu_k_fill(r->gj, &v, dt_size(dt), cnt, out);
    }
    if (pos_create_ok(n->op, dt, nd)) {
        gpu_create_t c;
        if (create_params(&gp, dt, nd, shape, off, &c)) return 1;
        return gpu_k_create(r->gj, &c, out);
    }
    gpu_rand_t g = {
        .kind = rand_kind(n->op), .dt = dt, .seed = gp.seed, .a = 0, .b = 1, .nd = nd, .n = cnt};
    switch (n->op) {
    case OP_UNIFORM: {
        double low = sc_as_double(gp.low), high = sc_as_double(gp.high);
        g.a = low;
        g.b = high - low;
        break;
    }
    case OP_NORMAL:
        g.a = sc_as_double(gp.loc);
        g.b = sc_as_double(gp.scale);
        break;
    case OP_POISSON:
    case OP_BINOMIAL: /* random2.c's seg: lam, p and n trials */
        g.dist = kern_random2_kind(n->op);
        g.a = sc_as_double(gp.loc);
        g.b = sc_as_double(gp.high);
        g.low = gp.low.i;
        break;
    case OP_EXPONENTIAL:
    case OP_GAMMA:
    case OP_BETA:
    case OP_LOGNORMAL:
    case OP_STANDARD_T:
    case OP_CHISQUARE:
        g.dist = kern_random2_kind(n->op);
        g.a = sc_as_double(gp.loc);
        g.b = sc_as_double(gp.scale);
        break;
    case OP_RANDINT: {
        /* kern/random.c's bounds, cast as it casts them */
        int64_t low = gp.low.kind == SC_INT ? gp.low.i : cast_f64_i64(sc_as_double(gp.low));
        int64_t high = gp.high.kind == SC_INT ? gp.high.i : cast_f64_i64(sc_as_double(gp.high));
        g.low = low;
        g.range = (uint64_t)high - (uint64_t)low;
        break;
    }
    default:
        break;
    }
    /* element strides of the whole tensor, and the chunk's first element */
    int gnd = gp.shape.ndim;
    if (gnd != nd) return 1;
    int64_t s = 1, base = 0;
    for (int d = nd - 1; d >= 0; d--) {
        g.dim[d] = shape[d];
        g.gstr[d] = s;
        base += off[d] * s;
        s *= gp.shape.d[d];
    }
    g.base = base;
    return gpu_k_random(r->gj, &g, out);
}

/* The one generated box an assembled input is, copied as it lies (W1's
 * ones chunks inside inner), or NULL. */
static const gpiece_t *whole_gpiece(const tile_t *t, const jin_t *in)
{
    if (in->job >= 0 || in->gen_node >= 0 || in->n_pieces != 0 || in->n_gpieces != 1) return NULL;
    const gpiece_t *g = &in->gpieces[0];
    const piece_t *p = &g->p;
    const graph_node_t *n = &t->g->nodes[g->node];
    if (g->ndim != in->ndim || p->dst_off != 0 || n->odtype != in->dt ||
        !gen_ok(n, in->dt, in->ndim) || !tile_gpiece_contiguous(g))
        return NULL;
    for (int d = 0; d < in->ndim; d++)
        if (g->len[d] != in->shape[d]) return NULL;
    return g;
}

/* The device copy of input k. */
static int input(run_t *r, const job_t *j, int k, const void **dptr)
{
    const jin_t *in = &j->in[k];
    size_t bytes = gpu_input_bytes(in);
    if (in->job >= 0) return gpu_job_in(r->gj, r->get(r->ctx, in->job), bytes, r->keep, dptr);
    if (in->gen_node >= 0) {
        void *d;
        if (gpu_job_tmp(r->gj, bytes, &d)) return -1;
        *dptr = d;
        return gen_region(r, &r->t->g->nodes[in->gen_node], in->dt, in->ndim, in->shape,
                          in->gen_off, d);
    }
    const gpiece_t *gb = whole_gpiece(r->t, in);
    if (gb) {
        /* the input is one generated box: made on the device */
        void *d;
        if (gpu_job_tmp(r->gj, bytes, &d)) return -1;
        *dptr = d;
        return gen_region(r, &r->t->g->nodes[gb->node], in->dt, gb->ndim, gb->len, gb->off, d);
    }
    if (r->n_owned == 64) return 1;
    void *owned = NULL;
    const void *h = exec_input_data(r->t, in, r->get_host, r->ctx, &owned);
    if (!h) return -1;
    if (owned) r->owned[r->n_owned++] = owned;
    return gpu_job_in(r->gj, h, bytes, 0, dptr);
}

static int run_red(run_t *r, const job_t *j, const void **din, void *dout)
{
    const jparam_t *pa = j->param;
    gpu_red_t g;
    memset(&g, 0, sizeof g);
    gpu_ew_t prog;
    int nd;
    const int64_t *vs;
    if (pa->prog) {
        nd = pa->gshape->ndim;
        vs = j->vshape;
        if (!ew_build(pa->prog, nd, vs, j->in, &prog)) return 1;
        g.prog = &prog;
        g.prog_in = din;
        g.dt = pa->prog->reg_dt[pa->prog->out];
    } else {
        nd = j->in[0].ndim;
        vs = j->in[0].shape;
        g.in = din[0];
        g.dt = j->in[0].dt;
    }
    g.op = red_op(pa->op, (dtype_t)g.dt);
    g.skip_nan = red_skips_nan(pa->op, (dtype_t)g.dt);
    /* C strides of the values; kept and reduced dims, collapsed */
    int64_t cstr[MR_MAXDIM], s = 1;
    for (int d = nd - 1; d >= 0; d--) {
        cstr[d] = s;
        s *= vs[d];
    }
    g.n_out = g.n_red = 1;
    for (int d = 0; d < nd; d++) {
        if (vs[d] == 1) continue;
        bool red = (pa->axes >> d) & 1u;
        int *cnt = red ? &g.nr : &g.nk;
        int64_t *dim = red ? g.rdim : g.kdim, *str = red ? g.rstr : g.kstr;
        if (*cnt > 0 && str[*cnt - 1] == cstr[d] * vs[d]) {
            dim[*cnt - 1] *= vs[d];
            str[*cnt - 1] = cstr[d];
        } else {
            if (*cnt == GPU_EW_DIMS) return 1;
            dim[*cnt] = vs[d];
            str[*cnt] = cstr[d];
            (*cnt)++;
        }
        if (red)
            g.n_red *= vs[d];
        else
            g.n_out *= vs[d];
    }
    if ((size_t)g.n_out * kern_red_partial_bytes(pa->op, (dtype_t)g.dt, 1) != job_nbytes(j) ||
        g.n_red == 0)
        return 1;
    if (g.op == GRED_ARGMIN || g.op == GRED_ARGMAX) {
        /* exec.c's kern_red_map_t: goff the job's offsets, gshape the node's */
        if (nd > GPU_EW_DIMS || !pa->gshape || pa->gshape->ndim != nd) return 1;
        unsigned all = nd < 32 ? (1u << nd) - 1u : 0u;
        g.vnd = nd;
        g.arg_all = (pa->axes & all) == all;
        g.arg_ax = 0;
        while (g.arg_ax < nd && !(pa->axes & (1u << g.arg_ax)))
            g.arg_ax++;
        for (int d = 0; d < nd; d++) {
            g.vshape[d] = vs[d];
            g.goff[d] = j->off ? j->off[d] : 0;
            g.gshape[d] = pa->gshape->d[d];
        }
    }
    return gpu_k_red(r->gj, &g, dout);
}

/* JK_GATHER: each piece of a source job's output copied into dout. */
static int run_gather(run_t *r, const job_t *j, void *dout)
{
    const jin_t *in = &j->in[0];
    size_t es = dt_size(in->dt);
    if (in->job >= 0) {
        const void *src;
        if (gpu_job_in(r->gj, r->get(r->ctx, in->job), job_nbytes(j), r->keep, &src)) return -1;
        return gpu_k_copy(r->gj, src, dout, job_nbytes(j));
    }
    for (int32_t q = 0; q < in->n_pieces; q++) {
        const piece_t *p = &in->pieces[q];
        const void *src;
        if (gpu_job_in(r->gj, r->get(r->ctx, p->src), job_nbytes(&r->t->jobs[p->src]), r->keep,
                       &src))
            return -1;
        gpu_piece_t g = {
            .ndim = p->ndim, .es = (int)es, .src_off = p->src_off, .dst_off = p->dst_off};
        for (int d = 0; d < p->ndim; d++) {
            g.count[d] = p->count[d];
            g.src_stride[d] = p->src_stride[d];
            g.dst_stride[d] = p->dst_stride[d];
        }
        if (gpu_k_piece(r->gj, &g, src, dout)) return -1;
    }
    return 0;
}

/* x (ndim axes, C order, es-byte elements) into scratch in the axis order
 * perm, by one gather piece on the device. */
static int permuted(run_t *r, const jin_t *x, const int *perm, const void *src, const void **out)
{
    size_t es = dt_size(x->dt);
    void *dst;
    if (gpu_job_tmp(r->gj, (size_t)elems(x->ndim, x->shape) * es, &dst)) return -1;
    gpu_piece_t pc = {.ndim = x->ndim, .es = (int)es};
    int64_t st[MR_MAXDIM], s = 1;
    for (int d = x->ndim - 1; d >= 0; d--) {
        st[d] = s;
        s *= x->shape[d];
    }
    s = 1;
    for (int i = x->ndim - 1; i >= 0; i--) {
        pc.count[i] = x->shape[perm[i]];
        pc.src_stride[i] = st[perm[i]];
        pc.dst_stride[i] = s;
        s *= pc.count[i];
    }
    *out = dst;
    return gpu_k_piece(r->gj, &pc, src, dst);
}

/* One tensordot pair, as kern_tensordot runs it: operands read in place
 * where the plan allows, else permuted first. */
static int run_td(run_t *r, const jparam_t *pa, const jin_t *a, const jin_t *b, const void *da,
                  const void *db, int dt, void *dout, bool acc)
{
    kern_td_plan_t p;
    if (!td_plan(pa, a, b, &p)) return -1;
    if (p.M == 0 || p.N == 0) return 0;
    if (p.K > 0 && !p.a_inplace && permuted(r, a, p.perm_a, da, &da)) return -1;
    if (p.K > 0 && !p.b_inplace && permuted(r, b, p.perm_b, db, &db)) return -1;
    return gpu_k_gemm(r->gj, dt, p.a_inplace && p.a_trans, p.b_inplace && p.b_trans, p.M, p.N, p.K,
                      da, db, dout, acc);
}

/* One matmul pair with numpy's batch broadcasting, as kern_matmul runs it:
 * b shared by every batch element is one product of a's stacked matrices;
 * otherwise strided batches along the last batch axis, for each index of
 * the others. */
static int run_matmul(run_t *r, const job_t *j, const jin_t *a, const jin_t *b, const void *da,
                      const void *db, void *dout, bool acc)
{
    int dt = j->dt;
    int64_t M = a->shape[a->ndim - 2], K = a->shape[a->ndim - 1], N = b->shape[b->ndim - 1];
    kern_mm_batch_t mb;
    shape_t as = shape_of(a->ndim, a->shape), bs = shape_of(b->ndim, b->shape),
            os = shape_of(j->ndim, j->shape);
    kern_mm_batch(&as, &bs, &os, &mb);
    if (mb.nbatch == 0 || M == 0 || N == 0) return 0;
    if (mb.bbatch == 1) return gpu_k_gemm(r->gj, dt, 0, 0, mb.nbatch * M, N, K, da, db, dout, acc);
    size_t es = dt_size((dtype_t)dt);
    int last = mb.nb - 1;
    int64_t cnt = mb.bshape[last], amat = M * K, bmat = K * N, omat = M * N;
    int64_t idx[MR_MAXDIM] = {0}, aoff = 0, boff = 0;
    for (int64_t t = 0; t < mb.nbatch; t += cnt) {
        if (gpu_k_gemm_batched(r->gj, dt, M, N, K, (const char *)da + aoff * amat * (int64_t)es,
                               mb.ast[last] * amat, (const char *)db + boff * bmat * (int64_t)es,
                               mb.bst[last] * bmat, (char *)dout + t * omat * (int64_t)es, cnt,
                               acc))
            return -1;
        for (int d = last - 1; d >= 0; d--) {
            aoff += mb.ast[d];
            boff += mb.bst[d];
            if (++idx[d] < mb.bshape[d]) break;
            aoff -= mb.ast[d] * mb.bshape[d];
            boff -= mb.bst[d] * mb.bshape[d];
            idx[d] = 0;
        }
    }
    return 0;
}

static int run_kind(run_t *r, const job_t *j, const void **din, void *dout)
{
    const jparam_t *pa = j->param;
    const tile_t *t = r->t;
    int dt = j->dt;
    switch ((job_kind_t)j->kind) {
    case JK_CREATE:
    case JK_RANDOM:
        return gen_region(r, &t->g->nodes[j->node], (dtype_t)j->dt, j->ndim, j->shape, j->off,
                          dout);
    case JK_GATHER:
        return run_gather(r, j, dout);
    case JK_EW: {
        gpu_ew_t g;
        if (!ew_build(pa->prog, j->ndim, j->shape, j->in, &g)) return 1;
        return gpu_k_ew(r->gj, &g, din, dout);
    }
    case JK_RED_MAP:
        return run_red(r, j, din, dout);
    case JK_SCAN_LOCAL: {
        int64_t o, n, i;
        split_axis(j->in[0].ndim, j->in[0].shape, pa->axis, &o, &n, &i);
        return gpu_k_scan_local(r->gj, op_nan_base(pa->op) == OP_CUMPROD,
                                op_is_nan_reduction(pa->op) && dt_is_float(j->in[0].dt),
                                j->in[0].dt, dt, din[0], dout, o, n, i);
    }
    case JK_SCAN_CARRY: {
        const jin_t *pl = &j->in[j->n_in - 1];
        int64_t o, n, i;
        split_axis(pl->ndim, pl->shape, pa->axis, &o, &n, &i);
        return gpu_k_scan_carry(r->gj, op_nan_base(pa->op) == OP_CUMPROD, dt,
                                j->n_in > 1 ? din[0] : NULL, din[j->n_in - 1], dout, o, n, i);
    }
    case JK_SCAN_APPLY: {
        int64_t o, n, i;
        split_axis(j->in[0].ndim, j->in[0].shape, pa->axis, &o, &n, &i);
        return gpu_k_scan_apply(r->gj, op_nan_base(pa->op) == OP_CUMPROD, dt, din[0], din[1], dout,
                                o, n, i);
    }
    case JK_TENSORDOT:
        if (j->n_in == 0)
            return gpu_k_gemm(r->gj, dt, 0, 0, 1, job_nbytes(j) / dt_size(dt), 0, NULL, NULL, dout,
                              0);
        for (int k = 0; k + 1 < j->n_in; k += 2)
            if (run_td(r, pa, &j->in[k], &j->in[k + 1], din[k], din[k + 1], dt, dout, k > 0))
                return -1;
        return 0;
    case JK_MATMUL:
        if (j->n_in == 0)
            return gpu_k_gemm(r->gj, dt, 0, 0, 1, job_nbytes(j) / dt_size(dt), 0, NULL, NULL, dout,
                              0);
        for (int k = 0; k + 1 < j->n_in; k += 2)
            if (run_matmul(r, j, &j->in[k], &j->in[k + 1], din[k], din[k + 1], dout, k > 0))
                return -1;
        return 0;
    case JK_SYRK:
        if (j->n_in == 0)
            return gpu_k_gemm(r->gj, dt, 0, 0, j->shape[0], j->shape[1], 0, NULL, NULL, dout, 0);
        if (dt != DT_FLOAT32 && dt != DT_FLOAT64) { /* integers, bool: x·xᵀ whole */
            for (int k = 0; k < j->n_in; k++)
                if (gpu_k_gemm(r->gj, dt, 0, 1, j->in[k].shape[0], j->in[k].shape[0],
                               j->in[k].shape[1], din[k], din[k], dout, k > 0))
                    return -1;
            return 0;
        }
        for (int k = 0; k < j->n_in; k++)
            if (gpu_k_syrk(r->gj, dt, j->in[k].shape[0], j->in[k].shape[1], din[k], dout, k > 0))
                return -1;
        return gpu_k_mirror(r->gj, dt, j->shape[0], dout);
    case JK_SS: {
        gpu_sort_t s;
        gpu_merge_t m;
        if (sort_plan(t, j, &s)) return gpu_k_sort(r->gj, &s, din[0], dout);
        if (merge_plan(t, j, &m)) return gpu_k_merge(r->gj, &m, din[0], din[1], dout);
        gpu_search_t q;
        if (search_plan(t, j, &q)) return gpu_k_search(r->gj, &q, din[0], din[1], dout);
        return 1;
    }
    default:
        return 1;
    }
}

int gpu_exec_job(int dev, const tile_t *t, int32_t ji, const void *(*get)(void *ctx, int32_t job),
                 const void *(*get_host)(void *ctx, int32_t job), void *ctx, void *out,
                 bool keep_inputs, const gpu_prefetch_t *pre, char *err, size_t errlen)
{
    const job_t *j = &t->jobs[ji];
    if (!gpu_job_supported(t, ji)) return 1;
    run_t r = {.t = t, .get = get, .get_host = get_host, .ctx = ctx, .keep = keep_inputs};
    /* the chunks it reads as they are (a gather's pieces are not): the job
     * running meanwhile may copy them in */
    gpu_prefetch_t reads = {.n = 0};
    for (int k = 0; j->kind != JK_GATHER && k < j->n_in && reads.n < GPU_PREFETCH_MAX; k++) {
        const void *h = j->in[k].job >= 0 ? get(ctx, j->in[k].job) : NULL;
        if (!h) continue;
        reads.host[reads.n] = h;
        reads.bytes[reads.n++] = gpu_input_bytes(&j->in[k]);
    }
    r.gj = gpu_job_begin(dev, &reads, err, errlen);
    if (!r.gj) return -1;
    const void *local[16];
    const void **din = j->n_in <= 16 ? local : malloc(sizeof(void *) * (size_t)j->n_in);
    int rc = din ? 0 : -1;
    for (int k = 0; rc == 0 && k < j->n_in && j->kind != JK_GATHER; k++)
        rc = input(&r, j, k, &din[k]);
    void *dout = NULL;
    if (rc == 0) rc = gpu_job_out(r.gj, out, job_nbytes(j), &dout);
    if (rc == 0) rc = run_kind(&r, j, din, dout);
    /* the kernels are queued: the next job's chunks come in meanwhile */
    for (int k = 0; rc == 0 && pre && k < pre->n; k++)
        rc = gpu_job_prefetch(r.gj, pre->host[k], pre->bytes[k]);
    if (rc == 0) rc = gpu_job_prefetch_waiting(r.gj);
    char why[320];
    int end = gpu_job_end(r.gj, rc == 0, why, sizeof why);
    for (int k = 0; k < r.n_owned; k++)
        scratch_free(r.owned[k]);
    if (din != local) free(din);
    if (rc == 1 || end == -2)
        return 1; /* not for the device after all (no kernel, or the
                   * store's limit): nothing was kept */
    if (rc != 0 || end != 0) {
        snprintf(err, errlen, "on device %d: %s", dev, rc == -1 && !din ? "out of memory" : why);
        return -1;
    }
    return 0;
}
