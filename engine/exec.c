#include "exec.h"
#include "sortstat.h"

#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "df/dfexec.h"
#include "fancy.h"
#include "kern/kern.h"
#include "cuda/gpu.h"
#include "kern/la.h"
#include "scratch.h"

void exec_keep_freed_memory(void)
{
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

/* ------------------------------------------------------------------ one job */

static int64_t shape_elems(int nd, const int64_t *s)
{
    int64_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= s[d];
    return n;
}

static arr_t arr_of(void *data, dtype_t dt, int nd, const int64_t *shape)
{
    arr_t a = {.data = data, .dt = dt};
    a.shape.ndim = nd;
    for (int d = 0; d < nd; d++)
        a.shape.d[d] = shape[d];
    return a;
}

/* Assembles input k into a fresh buffer (caller frees) or returns the
 * source's bytes (*owned = NULL). */
const void *exec_input_data(const tile_t *t, const jin_t *in, const void *(*get)(void *, int32_t),
                            void *ctx, void **owned)
{
    *owned = NULL;
    if (in->job >= 0) return get(ctx, in->job);
    size_t bytes = (size_t)shape_elems(in->ndim, in->shape) * dt_size(in->dt);
    if (in->gen_node >= 0) {
        /* a creation or random op's region, made here rather than stored */
        void *buf = scratch_alloc(bytes);
        if (!buf) return NULL;
        arr_t a = arr_of(buf, in->dt, in->ndim, in->shape);
        kern_gen_t gp;
        tile_gen_params(&t->g->nodes[in->gen_node], &gp);
        if (op_kind(gp.op) == OPK_RANDOM)
            kern_random(&gp, in->gen_off, &a);
        else
            kern_create(&gp, in->gen_off, &a);
        *owned = buf;
        return buf;
    }
    void *buf = scratch_alloc(bytes);
    const void **srcs = malloc(sizeof(void *) * (size_t)(in->n_pieces ? in->n_pieces : 1));
    if (!buf || !srcs) {
        scratch_free(buf);
        free(srcs);
        return NULL;
    }
    for (int32_t p = 0; p < in->n_pieces; p++) {
        srcs[p] = get(ctx, in->pieces[p].src);
        if (!srcs[p]) { /* a device copy that could not come back */
            scratch_free(buf);
            free(srcs);
            return NULL;
        }
    }
    tile_gather(in, (const void *const *)srcs, buf);
    free(srcs);
    if (tile_gen_pieces(t, in, buf)) {
        scratch_free(buf);
        return NULL;
    }
    *owned = buf;
    return buf;
}

/* The length of the lines a statistics step works on: along pa->axis
 * of the node's input for blocks of lines (ndim > 1), else the whole
 * (flattened) input */
static int64_t ss_line_len(const tile_t *t, const job_t *j, const jparam_t *pa, const arr_t *in0)
{
    const graph_node_t *x = &t->g->nodes[t->g->nodes[j->node].in[0].node];
    return in0->shape.ndim > 1 ? x->oshape.d[pa->axis] : shape_size(&x->oshape);
}

int exec_job(const tile_t *t, int32_t ji, const void *(*get)(void *ctx, int32_t job), void *ctx,
             void *out, char *err, size_t errlen)
{
    const job_t *j = &t->jobs[ji];
    const jparam_t *pa = j->param;
    arr_t o = arr_of(out, (dtype_t)j->dt, j->ndim, j->shape);
    int rc = 0;

    if (j->kind == JK_GATHER && j->in[0].job < 0) {
        const jin_t *in = &j->in[0];
        const void **srcs = malloc(sizeof(void *) * (size_t)(in->n_pieces ? in->n_pieces : 1));
        if (!srcs) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        for (int32_t p = 0; p < in->n_pieces; p++) {
            srcs[p] = get(ctx, in->pieces[p].src);
            if (!srcs[p]) {
                snprintf(err, errlen, "cannot read an input (its device copy could not come back)");
                free(srcs);
                return -1;
            }
        }
        tile_gather(in, (const void *const *)srcs, out);
        free(srcs);
        if (tile_gen_pieces(t, in, out)) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        return 0;
    }

    arr_t ins_local[8];
    void *owned_local[8];
    arr_t *ins = j->n_in <= 8 ? ins_local : malloc(sizeof(arr_t) * (size_t)j->n_in);
    void **owned = j->n_in <= 8 ? owned_local : calloc((size_t)j->n_in, sizeof(void *));
    if (!ins || !owned) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
        goto done_alloc;
    }
    for (int k = 0; k < j->n_in; k++) {
        const jin_t *in = &j->in[k];
        const void *d = exec_input_data(t, in, get, ctx, &owned[k]);
        if (!d) {
            snprintf(err, errlen,
                     "cannot read an input (out of memory, or its device copy "
                     "could not come back)");
            for (int q = 0; q < k; q++)
                scratch_free(owned[q]);
            rc = -1;
            goto done_alloc;
        }
        ins[k] = arr_of((void *)d, in->dt, in->ndim, in->shape);
    }

    switch ((job_kind_t)j->kind) {
    case JK_CREATE:
    case JK_RANDOM: {
        kern_gen_t gp;
        tile_gen_params(&t->g->nodes[j->node], &gp);
        if (j->kind == JK_RANDOM)
            kern_random(&gp, j->off, &o);
        else
            kern_create(&gp, j->off, &o);
        break;
    }
    case JK_SOURCE:
    case JK__COUNT:
        snprintf(err, errlen, "internal: a source chunk cannot run as a job");
        rc = -1;
        break;
    case JK_DF:
        snprintf(err, errlen, "internal: a DataFrame job runs through exec_job_any");
        rc = -1;
        break;
    case JK_FANCY: {
        const void *local[16];
        const void **pd = j->n_in <= 16 ? local : malloc(sizeof(void *) * (size_t)j->n_in);
        void *blob = NULL;
        size_t blen = 0;
        if (!pd) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
        for (int k = 0; k < j->n_in; k++)
            pd[k] = ins[k].data;
        rc = fancy_run(t, ji, pd, out, &blob, &blen, err, errlen);
        free(blob); /* held results run through exec_job_any */
        if (pd != local) free(pd);
        break;
    }
    case JK_EW:
        rc = kern_ew_eval(pa->prog, ins, &o, err, errlen);
        break;
    case JK_GATHER:
    case JK_ALIAS:
        memcpy(out, ins[0].data, job_nbytes(j));
        break;
    case JK_RED_MAP: {
        /* n_regions small regions (tile_reduce fuses them): a partial each,
         * then one combine of them into out */
        int nr = j->n_regions > 1 ? j->n_regions : 1, per = j->n_in / nr;
        int nd = pa->gshape->ndim;
        size_t pb = job_nbytes(j);
        unsigned char *tmp = nr > 1 ? malloc(pb * (size_t)nr) : NULL;
        const void *parts[64];
        if (nr > 1 && (!tmp || nr > 64)) {
            snprintf(err, errlen, "out of memory");
            free(tmp);
            rc = -1;
            break;
        }
        for (int r = 0; r < nr && rc == 0; r++) {
            kern_red_map_t m = {.op = pa->op,
                                .prog = pa->prog,
                                .in = ins + r * per,
                                .axes = pa->axes,
                                .goff = j->off ? j->off + r * nd : NULL,
                                .gshape = pa->gshape};
            if (pa->prog) {
                /* the values reduced have the shape of this region of the input */
                m.shape = arr_of(NULL, DT_BOOL, nd, j->vshape + r * nd).shape;
                m.dt = (dtype_t)pa->prog->reg_dt[pa->prog->out];
            } else {
                m.shape = ins[r * per].shape;
                m.dt = ins[r * per].dt;
            }
            void *dst = nr > 1 ? tmp + pb * (size_t)r : out;
            parts[r] = dst;
            rc = kern_red_map(&m, dst, err, errlen);
        }
        if (rc == 0 && nr > 1) {
            size_t per_out = kern_red_partial_bytes(pa->op, pa->in_dt, 1);
            kern_red_combine(pa->op, pa->in_dt, (int64_t)(pb / per_out), nr,
                             (const void *const *)parts, out);
        }
        free(tmp);
        break;
    }
    case JK_RED_COMBINE:
    case JK_RED_FINAL: {
        size_t per = kern_red_partial_bytes(pa->op, pa->in_dt, 1);
        int64_t n_out = j->kind == JK_RED_FINAL ? shape_elems(j->ndim, j->shape)
                                                : (int64_t)(job_nbytes(j) / per);
        const void **parts = malloc(sizeof(void *) * (size_t)j->n_in);
        if (!parts) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
        for (int k = 0; k < j->n_in; k++)
            parts[k] = ins[k].data;
        if (j->kind == JK_RED_COMBINE) {
            kern_red_combine(pa->op, pa->in_dt, n_out, j->n_in, (const void *const *)parts, out);
        } else if (j->n_in == 1) {
            kern_red_final(pa->op, pa->in_dt, n_out, pa->n_reduced, pa->ddof, parts[0], &o);
        } else {
            void *tmp = malloc(per * (size_t)(n_out ? n_out : 1));
            if (!tmp) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
            } else {
                kern_red_combine(pa->op, pa->in_dt, n_out, j->n_in, (const void *const *)parts,
                                 tmp);
                kern_red_final(pa->op, pa->in_dt, n_out, pa->n_reduced, pa->ddof, tmp, &o);
                free(tmp);
            }
        }
        free(parts);
        if (rc == 0 && j->kind == JK_RED_FINAL && kern_red_all_nan(pa->op, &o)) {
            snprintf(err, errlen, "All-NaN slice encountered");
            rc = -1;
        }
        break;
    }
    case JK_SCAN_LOCAL:
        kern_scan_local(pa->op, &ins[0], pa->axis, &o);
        break;
    case JK_SCAN_CARRY:
        if (j->n_in == 1)
            kern_scan_carry(pa->op, NULL, &ins[0], pa->axis, &o);
        else
            kern_scan_carry(pa->op, &ins[0], &ins[1], pa->axis, &o);
        break;
    case JK_SCAN_APPLY:
        kern_scan_apply(pa->op, &ins[0], &ins[1], pa->axis, &o);
        break;
    case JK_TENSORDOT:
        if (pa->op == OP_OUTER && j->n_in == 2) { /* numpy multiplies: -0.0 stays */
            kern_outer(&ins[0], &ins[1], &o);
            break;
        }
        for (int k = 0; k + 1 < j->n_in; k += 2)
            kern_tensordot(&ins[k], &ins[k + 1], pa->td_n, pa->td_a, pa->td_b, k > 0, &o);
        if (j->n_in == 0) memset(out, 0, job_nbytes(j));
        break;
    case JK_MATMUL:
        for (int k = 0; k + 1 < j->n_in; k += 2)
            kern_matmul(&ins[k], &ins[k + 1], k > 0, &o);
        if (j->n_in == 0) memset(out, 0, job_nbytes(j));
        break;
    case JK_LA:
        rc = la_exec(t, j, ins, &o, err, errlen);
        break;
    case JK_SS: /* sortstat */
        if (pa->la_step == SS_SORT1 && j->ndim > 1)
            rc = kern_ss_sort1_axis(&ins[0], &o, pa->axis, err, errlen);
        else if (pa->la_step == SS_SORT1)
            rc = kern_ss_sort1(&ins[0], &o, err, errlen);
        else if (pa->la_step == SS_QPICK) /* 1-D picks: one line */
            rc = kern_ss_qpick_axis(&t->g->nodes[j->node], ss_line_len(t, j, pa, &ins[0]), &ins[0],
                                    ins[0].shape.ndim > 1 ? pa->axis : 0, &o, err, errlen);
        else if (pa->la_step == SS_AVGPART)
            rc = kern_ss_avgpart(&ins[0], j->n_in > 1 ? &ins[1] : NULL,
                                 t->g->nodes[j->node].ss->w_line, pa->axis, &o);
        else if (pa->la_step == SS_AVGFIN)
            rc = kern_ss_avgfin(ins, j->n_in, t->g->nodes[j->node].n_in > 1, pa->axis, &o, err,
                                errlen);
        else if (pa->la_step == SS_NANCOUNT)
            rc = kern_ss_nancount(&ins[0], ins[0].shape.ndim > 1 ? pa->axis : 0, &o);
        else if (pa->la_step == SS_NPICK)
            rc =
                kern_ss_npick(&t->g->nodes[j->node], ss_line_len(t, j, pa, &ins[0]),
                              j->off ? j->off[0] : 0, &ins[0], ins[0].shape.ndim > 1 ? pa->axis : 0,
                              &ins[1], j->n_in - 1, &o, err, errlen);
        else if (pa->la_step == SS_NQPICK)
            rc = kern_ss_nqpick(&t->g->nodes[j->node], ss_line_len(t, j, pa, &ins[0]), j->off,
                                j->n_in / 2, ins[0].shape.ndim > 1 ? pa->axis : 0, &ins[0],
                                &ins[j->n_in / 2], &o, err, errlen);
        else if (pa->la_step == SS_PACK && j->ndim > 1)
            rc = kern_ss_pack_axis(&ins[0], j->off ? j->off[0] : 0, &o, pa->axis, err, errlen);
        else if (pa->la_step == SS_PACK)
            rc = kern_ss_pack(&ins[0], j->off ? j->off[0] : 0, &o, err, errlen);
        else if ((pa->la_step == SS_SPLIT_LOW || pa->la_step == SS_SPLIT_HIGH) && j->ndim > 1 &&
                 (t->g->nodes[j->node].op == OP_ARGSORT ||
                  t->g->nodes[j->node].op == OP_ARGPARTITION))
            rc = kern_ss_split_pairs_axis(ins, &o, pa->la_step == SS_SPLIT_HIGH, pa->in_dt,
                                          pa->axis, err, errlen);
        else if ((pa->la_step == SS_SPLIT_LOW || pa->la_step == SS_SPLIT_HIGH) &&
                 (t->g->nodes[j->node].op == OP_ARGSORT ||
                  t->g->nodes[j->node].op == OP_ARGPARTITION))
            rc = kern_ss_split_pairs(ins, &o, pa->la_step == SS_SPLIT_HIGH, pa->in_dt, err, errlen);
        else if ((pa->la_step == SS_SPLIT_LOW || pa->la_step == SS_SPLIT_HIGH) && j->ndim > 1)
            rc = kern_ss_split_axis(ins, &o, pa->la_step == SS_SPLIT_HIGH, pa->axis, err, errlen);
        else if (pa->la_step == SS_SPLIT_LOW || pa->la_step == SS_SPLIT_HIGH)
            rc = kern_ss_split(ins, &o, pa->la_step == SS_SPLIT_HIGH, err, errlen);
        else
            rc = kern_ss(&t->g->nodes[j->node], pa->axis, ins, j->n_in, &o, err, errlen);
        break;
    case JK_SYRK:
        for (int k = 0; k < j->n_in; k++)
            kern_syrk(&ins[k], k > 0, &o);
        if (j->n_in == 0) memset(out, 0, job_nbytes(j));
        break;
    }
    for (int k = 0; k < j->n_in; k++)
        scratch_free(owned[k]);
done_alloc:
    if (ins != ins_local) free(ins);
    if (owned != owned_local) free(owned);
    return rc;
}

typedef struct {
    const void *(*get)(void *ctx, int32_t job, size_t *len);
    void *ctx;
} getn_t;

static const void *get_nolen(void *ctx, int32_t job)
{
    const getn_t *g = ctx;
    size_t len;
    return g->get(g->ctx, job, &len);
}

int exec_job_any(const tile_t *t, int32_t ji,
                 const void *(*get)(void *ctx, int32_t job, size_t *len), void *ctx, void *out,
                 void **blob, size_t *blob_len, char *err, size_t errlen)
{
    const job_t *j = &t->jobs[ji];
    *blob = NULL;
    *blob_len = 0;
    getn_t g = {get, ctx};
    if (j->kind != JK_DF && !(j->kind == JK_FANCY && j->blob))
        return exec_job(t, ji, get_nolen, &g, out, err, errlen);
    dfx_in_t local[8] = {{0}};
    void *owned_local[8];
    dfx_in_t *ins = j->n_in <= 8 ? local : calloc((size_t)j->n_in, sizeof(dfx_in_t));
    void **owned = j->n_in <= 8 ? owned_local : calloc((size_t)j->n_in, sizeof(void *));
    int rc = -1, k = 0;
    if (!ins || !owned) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (; k < j->n_in; k++) {
        const jin_t *in = &j->in[k];
        owned[k] = NULL;
        if (in->job >= 0) {
            ins[k].data = get(ctx, in->job, &ins[k].len);
            if (!ins[k].data) {
                snprintf(err, errlen, "cannot read an input (its device copy could not come back)");
                k++;
                goto done;
            }
            if (!t->jobs[in->job].blob && ins[k].len < job_nbytes(&t->jobs[in->job])) {
                snprintf(err, errlen, "internal: input chunk of %zu bytes, %zu expected",
                         ins[k].len, job_nbytes(&t->jobs[in->job]));
                k++;
                goto done;
            }
            continue;
        }
        ins[k].data = exec_input_data(t, in, get_nolen, &g, &owned[k]);
        ins[k].len = (size_t)shape_elems(in->ndim, in->shape) * dt_size(in->dt);
        if (!ins[k].data) {
            snprintf(err, errlen, "out of memory assembling an input");
            k++;
            goto done;
        }
    }
    if (j->kind == JK_FANCY) {
        const void *pd[256];
        if (j->n_in > 256) {
            snprintf(err, errlen, "internal: too many inputs");
            goto done;
        }
        for (int q = 0; q < j->n_in; q++)
            pd[q] = ins[q].data;
        rc = fancy_run(t, ji, pd, out, blob, blob_len, err, errlen);
        goto done;
    }
    rc = dfx_run(t, ji, ins, blob, blob_len, out, err, errlen);
done:
    for (int q = 0; q < k; q++)
        scratch_free(owned[q]);
    if (ins != local) free(ins);
    if (owned != owned_local) free(owned);
    return rc;
}

/* ------------------------------------------------------------------ the pool */

typedef struct {
    void *data;
    size_t bytes;
    atomic_int refs;
    atomic_bool on_device; /* a device-only chunk of the store (gpu.h) */
} buf_t;

struct exec_result {
    int32_t n;
    buf_t **out;
    size_t peak;
    int64_t gpu_jobs;
    bool gpus; /* devices took part: chunks may have device copies */
};

typedef struct {
    const tile_t *t;
    const exec_opts_t *o;
    int32_t *dep_off, *deps; /* distinct sources of each job (CSR) */
    int32_t *con_off, *cons; /* consumers of each job (CSR) */
    atomic_int *waiting;     /* sources not yet done */
    atomic_int *uses;        /* consumers not yet done (+1 if kept) */
    buf_t **out;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int32_t *ready;
    int32_t n_ready;
    int32_t n_ready_gpu; /* of them, jobs for a device */
    uint8_t *pref;       /* per job: runs on a device (gpu_job_preferred) */
    atomic_int next_gpu; /* the next device thread's index into o->gpus */
    atomic_llong gpu_jobs;
    int32_t n_left; /* live jobs not finished */
    int running;
    int failed;
    char *err;
    size_t errlen;
    _Atomic size_t held, peak;
} pool_t;

/* A device-only chunk's bytes, copied back into its host buffer: 0, or -1
 * (the device failed; the message is on stderr). */
static int buf_to_host(buf_t *b)
{
    if (b && atomic_load(&b->on_device)) {
        char e[256];
        if (gpu_to_host(b->data, e, sizeof e)) {
            fprintf(stderr, "mars: %s\n", e);
            return -1;
        }
        atomic_store(&b->on_device, false);
    }
    return 0;
}

/* A job's output for a CPU reader; NULL when its device copy cannot come
 * back (the reading job fails). */
static const void *pool_get(void *ctx, int32_t j, size_t *len)
{
    pool_t *p = ctx;
    *len = p->out[j]->bytes;
    return buf_to_host(p->out[j]) ? NULL : p->out[j]->data;
}

static const void *pool_get_host(void *ctx, int32_t j)
{
    size_t len;
    return pool_get(ctx, j, &len);
}

/* For device jobs: the host buffer, which the store finds on the device. */
static const void *pool_get_dev(void *ctx, int32_t j)
{
    pool_t *p = ctx;
    return p->out[j]->data;
}

static void buf_free(buf_t *b, bool gpus)
{
    if (gpus) gpu_forget(b->data);
    free(b->data);
    free(b);
}

static void buf_release(pool_t *p, buf_t *b)
{
    if (atomic_fetch_sub(&b->refs, 1) == 1) {
        atomic_fetch_sub(&p->held, b->bytes);
        buf_free(b, p->o && p->o->n_gpus > 0);
    }
}

static void count_held(pool_t *p, size_t bytes)
{
    size_t now = atomic_fetch_add(&p->held, bytes) + bytes;
    size_t pk = atomic_load(&p->peak);
    while (now > pk && !atomic_compare_exchange_weak(&p->peak, &pk, now))
        ;
}

static int run_one(pool_t *p, int32_t ji, int dev, const gpu_prefetch_t *pre, char *err,
                   size_t errlen)
{
    const tile_t *t = p->t;
    const job_t *j = &t->jobs[ji];
    if (j->kind == JK_ALIAS) {
        buf_t *src = p->out[j->in[0].job];
        atomic_fetch_add(&src->refs, 1);
        p->out[ji] = src;
        return 0;
    }
    buf_t *b = malloc(sizeof(buf_t));
    size_t bytes = job_nbytes(j);
    void *data = j->blob ? NULL : malloc(bytes ? bytes : 1);
    if (!b || (!data && !j->blob)) {
        free(b);
        free(data);
        snprintf(err, errlen, "out of memory: a chunk of %zu bytes", bytes);
        return -1;
    }
    b->data = data;
    b->bytes = bytes;
    atomic_init(&b->refs, 1);
    atomic_init(&b->on_device, false);
    int rc = 1;
    if (dev >= 0) { /* a device thread takes device jobs only */
        rc = gpu_exec_job(dev, t, ji, pool_get_dev, pool_get_host, p, data, true, pre, err, errlen);
        if (rc == 0) {
            atomic_store(&b->on_device, true);
            atomic_fetch_add(&p->gpu_jobs, 1);
        }
    }
    if (rc != 1) {
        /* ran on the device (or failed there) */
    } else if (j->kind == JK_SOURCE) {
        rc = p->o->source ? p->o->source(p->o->source_ctx, t, ji, data, err, errlen) : -1;
    } else {
        void *blob = NULL;
        size_t blen = 0;
        rc = exec_job_any(t, ji, pool_get, p, data, &blob, &blen, err, errlen);
        if (j->blob) {
            b->data = blob ? blob : malloc(1);
            b->bytes = blen;
            bytes = blen;
        }
    }
    count_held(p, bytes);
    if (rc && j->kind == JK_SOURCE && !p->o->source)
        snprintf(err, errlen, "internal: no source for session tensors");
    p->out[ji] = b;
    return rc;
}

/* Takes the newest ready job for this kind of thread (mu held): a device
 * thread takes device jobs only, a CPU thread the others. */
static int32_t take_ready(pool_t *p, bool gpu)
{
    for (int32_t i = p->n_ready - 1; i >= 0; i--) {
        int32_t ji = p->ready[i];
        if ((p->pref[ji] != 0) != gpu) continue;
        memmove(p->ready + i, p->ready + i + 1, sizeof(int32_t) * (size_t)(p->n_ready - i - 1));
        p->n_ready--;
        if (gpu) p->n_ready_gpu--;
        return ji;
    }
    return -1;
}

static void push_ready(pool_t *p, int32_t ji)
{
    p->ready[p->n_ready++] = ji;
    if (p->pref[ji]) p->n_ready_gpu++;
}

/* For a device thread about to run a job: the host chunks that the next
 * ready device job reads (each held by a reference until released), for
 * gpu_exec_job to copy in while the current job's kernels run (mu held). */
typedef struct {
    gpu_prefetch_t pre;
    buf_t *bufs[GPU_PREFETCH_MAX];
} prefetch_t;

static void prefetch_next(pool_t *p, prefetch_t *pf)
{
    pf->pre.n = 0;
    int32_t nj = -1;
    for (int32_t i = p->n_ready - 1; i >= 0 && nj < 0; i--)
        if (p->pref[p->ready[i]]) nj = p->ready[i];
    if (nj < 0) return;
    const job_t *j = &p->t->jobs[nj];
    for (int k = 0; k < j->n_in && pf->pre.n < GPU_PREFETCH_MAX; k++) {
        const jin_t *in = &j->in[k];
        buf_t *b = in->job >= 0 ? p->out[in->job] : NULL;
        if (!b || !b->data || atomic_load(&b->on_device)) continue;
        atomic_fetch_add(&b->refs, 1);
        pf->bufs[pf->pre.n] = b;
        pf->pre.host[pf->pre.n] = b->data;
        pf->pre.bytes[pf->pre.n++] = gpu_input_bytes(in);
    }
}

static void *worker_on(pool_t *p, int dev)
{
    char err[512];
    bool gpu = dev >= 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while ((gpu ? p->n_ready_gpu == 0 : p->n_ready - p->n_ready_gpu == 0) && p->n_left > 0 &&
               !p->failed)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->failed || p->n_left == 0) break;
        int32_t ji = take_ready(p, gpu);
        prefetch_t pf = {.pre.n = 0};
        if (gpu) prefetch_next(p, &pf);
        pthread_mutex_unlock(&p->mu);

        err[0] = 0;
        int rc = run_one(p, ji, dev, gpu ? &pf.pre : NULL, err, sizeof err);
        for (int k = 0; k < pf.pre.n; k++)
            buf_release(p, pf.bufs[k]);
        const tile_t *t = p->t;
        /* release the inputs this job was the last to need */
        if (rc == 0) {
            for (int32_t k = p->dep_off[ji]; k < p->dep_off[ji + 1]; k++) {
                int32_t d = p->deps[k];
                if (atomic_fetch_sub(&p->uses[d], 1) == 1) {
                    buf_release(p, p->out[d]);
                    p->out[d] = NULL;
                }
            }
        }
        pthread_mutex_lock(&p->mu);
        if (rc) {
            if (!p->failed) {
                const graph_node_t *n = &t->g->nodes[t->jobs[ji].node];
                snprintf(p->err, p->errlen, "node \"%s\" (%s): %s", n->key, op_name(n->op), err);
            }
            p->failed = 1;
            pthread_cond_broadcast(&p->cv);
            break;
        }
        p->n_left--;
        for (int32_t k = p->con_off[ji]; k < p->con_off[ji + 1]; k++) {
            int32_t c = p->cons[k];
            if (atomic_fetch_sub(&p->waiting[c], 1) == 1) push_ready(p, c);
        }
        if (p->n_ready > 0 || p->n_left == 0) pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void *worker(void *arg)
{
    return worker_on(arg, -1);
}

static void *gpu_worker(void *arg)
{
    pool_t *p = arg;
    int i = atomic_fetch_add(&p->next_gpu, 1);
    return worker_on(p, p->o->gpus[i]);
}

/* Distinct live sources of every live job, and the reverse edges. */
static int build_edges(pool_t *p)
{
    tile_edges_t e;
    if (tile_edges(p->t, &e)) return -1;
    p->dep_off = e.dep_off;
    p->deps = e.deps;
    p->con_off = e.con_off;
    p->cons = e.cons;
    return 0;
}

int exec_run(const tile_t *t, const exec_opts_t *o, exec_result_t **out, char *err, size_t errlen)
{
    kern_init();
    pool_t p = {.t = t, .o = o, .err = err, .errlen = errlen};
    int32_t n = t->n_jobs;
    int rc = -1;
    exec_result_t *r = calloc(1, sizeof(exec_result_t));
    p.out = calloc((size_t)n + 1, sizeof(buf_t *));
    p.waiting = calloc((size_t)n + 1, sizeof(atomic_int));
    p.uses = calloc((size_t)n + 1, sizeof(atomic_int));
    p.ready = malloc(sizeof(int32_t) * (size_t)(n + 1));
    p.pref = calloc((size_t)n + 1, 1);
    int ngpu = o && o->n_gpus > 0 ? o->n_gpus : 0;
    if (!r || !p.out || !p.waiting || !p.uses || !p.ready || !p.pref || build_edges(&p)) {
        snprintf(err, errlen, "out of memory preparing %d jobs", n);
        goto cleanup;
    }
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    for (int32_t j = 0; j < n; j++) {
        if (!t->live[j]) continue;
        p.pref[j] = ngpu > 0 && gpu_job_preferred(t, j, o->place, p.pref);
        p.n_left++;
        atomic_init(&p.waiting[j], p.dep_off[j + 1] - p.dep_off[j]);
        atomic_init(&p.uses[j], (p.con_off[j + 1] - p.con_off[j]) + (t->jobs[j].keep ? 1 : 0));
    }
    /* ready jobs pushed in reverse so that the stack runs them in order */
    for (int32_t j = n - 1; j >= 0; j--)
        if (t->live[j] && p.dep_off[j + 1] == p.dep_off[j]) push_ready(&p, j);
    int nt = o && o->threads > 0 ? o->threads : 1;
    pthread_t *th = malloc(sizeof(pthread_t) * (size_t)(nt + ngpu));
    int started = 0;
    for (int i = 1; th && i < nt; i++)
        if (pthread_create(&th[started], NULL, worker, &p) == 0) started++;
    for (int i = 0; th && i < ngpu; i++) {
        if (pthread_create(&th[started], NULL, gpu_worker, &p) == 0) {
            started++;
        } else {
            /* without its thread, the device's jobs run on the CPU (under mu:
             * the threads started already read pref and n_ready_gpu) */
            pthread_mutex_lock(&p.mu);
            for (int32_t j = 0; j < n; j++)
                p.pref[j] = 0;
            p.n_ready_gpu = 0;
            pthread_cond_broadcast(&p.cv);
            pthread_mutex_unlock(&p.mu);
        }
    }
    worker(&p);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv);
    if (!p.failed) rc = 0;
cleanup:
    if (r) {
        r->n = n;
        r->out = p.out;
        r->peak = atomic_load(&p.peak);
        r->gpu_jobs = atomic_load(&p.gpu_jobs);
        r->gpus = ngpu > 0;
        /* drop everything but kept chunks; after a failure, everything */
        for (int32_t j = 0; p.out && j < n; j++) {
            if (!p.out[j]) continue;
            if (rc == 0 && t->jobs[j].keep && atomic_load(&p.uses[j]) >= 1) {
                continue;
            }
            if (rc != 0) {
                /* one reference per job slot still holding it */
                buf_release(&p, p.out[j]);
                p.out[j] = NULL;
            }
        }
    }
    free(p.dep_off);
    free(p.deps);
    free(p.con_off);
    free(p.cons);
    free(p.waiting);
    free(p.uses);
    free(p.ready);
    free(p.pref);
    if (rc == 0) {
        *out = r;
    } else {
        if (r) {
            free(r->out);
            free(r);
        }
        *out = NULL;
    }
    return rc;
}

const void *exec_result_chunk(const exec_result_t *r, int32_t j)
{
    if (buf_to_host(r->out[j])) {
        /* a result that cannot come back from its device: no output at all
         * rather than a wrong one */
        fprintf(stderr, "mars: a result chunk could not be copied back from its device\n");
        exit(1);
    }
    return r->out[j] ? r->out[j]->data : NULL;
}

size_t exec_result_chunk_len(const exec_result_t *r, int32_t j)
{
    return r->out[j] ? r->out[j]->bytes : 0;
}

size_t exec_result_peak_bytes(const exec_result_t *r)
{
    return r->peak;
}

int64_t exec_result_gpu_jobs(const exec_result_t *r)
{
    return r->gpu_jobs;
}

void exec_result_free(exec_result_t *r)
{
    if (!r) return;
    for (int32_t j = 0; j < r->n; j++) {
        buf_t *b = r->out[j];
        if (b && atomic_fetch_sub(&b->refs, 1) == 1) buf_free(b, r->gpus);
    }
    free(r->out);
    free(r);
}
