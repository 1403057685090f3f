/* tile.c: graph -> chunk graph. See tile.h for the model. */
#include "tile.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "tile_internal.h"
#include "ufunc.h"

/* Fan-in of a reduction's combine tree: few enough that a combine job stays
 * short, many enough that 1,600 partials need only three levels. */
#define RED_FANIN 8
/* A reduction's map job reduces up to RED_FANIN adjacent regions of the
 * values (then combines their partials) while together they hold at most
 * this many bytes: a job costs some 50-100 us of dispatch in a cluster, more
 * than the kernel of a small region (W6's 100x100 float64 chunks: 80 KB,
 * ~10 us); 1 MiB keeps a fused job short and leaves big chunks one a job. */
#define RED_FUSE_BYTES (1 << 20)
/* Budget of a fused element-wise program, below EW_MAX_REGS/EW_MAX_INS with
 * room for the casts the builder may insert. */
#define FUSE_MAX_COST 40

int tile__fail(tctx_t *c, const char *fmt, ...)
{
    const graph_node_t *n = &c->g->nodes[c->node];
    int o = snprintf(c->err, c->errlen, "node \"%s\" (%s): ", n->key, op_name(n->op));
    if (o < 0 || (size_t)o >= c->errlen) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + o, c->errlen - (size_t)o, fmt, ap);
    va_end(ap);
    return -1;
}

int64_t *tile__arena_i64(tctx_t *c, int n)
{
    return arena_alloc(c->t->arena, sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
}

static int64_t *arena_i64_copy(tctx_t *c, const int64_t *src, int n)
{
    int64_t *p = tile__arena_i64(c, n);
    if (n > 0) memcpy(p, src, sizeof(int64_t) * (size_t)n);
    return p;
}

static void c_strides(int ndim, const int64_t *shape, int64_t *st)
{
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        st[d] = s;
        s *= shape[d] > 0 ? shape[d] : 1;
    }
}

static int64_t prod(int ndim, const int64_t *v)
{
    int64_t p = 1;
    for (int d = 0; d < ndim; d++)
        p *= v[d];
    return p;
}

/* ------------------------------------------------------------------ jobs */

int32_t tile__job_new(tctx_t *c, job_kind_t kind, dtype_t dt, int ndim, const int64_t *shape,
                      int n_in)
{
    tile_t *t = c->t;
    if (t->n_jobs >= c->lim->max_total_chunks) {
        tile__fail(c, "the graph needs more than %lld chunk jobs (limit max_total_chunks)",
                   (long long)c->lim->max_total_chunks);
        return -1;
    }
    if (t->n_jobs == t->cap_jobs) {
        int32_t cap = t->cap_jobs ? t->cap_jobs * 2 : 1024;
        job_t *nj = realloc(t->jobs, sizeof(job_t) * (size_t)cap);
        if (!nj) {
            tile__fail(c, "out of memory while tiling");
            return -1;
        }
        t->jobs = nj;
        t->cap_jobs = cap;
    }
    int32_t id = t->n_jobs++;
    job_t *j = &t->jobs[id];
    memset(j, 0, sizeof(*j));
    j->kind = (uint8_t)kind;
    j->dt = (uint8_t)dt;
    j->ndim = (int8_t)ndim;
    j->node = c->node;
    j->shape = arena_i64_copy(c, shape, ndim);
    j->n_in = n_in;
    j->source_index = -1;
    if (n_in > 0) {
        j->in = arena_alloc(t->arena, sizeof(jin_t) * (size_t)n_in);
        for (int k = 0; k < n_in; k++)
            j->in[k].gen_node = -1;
    }
    c->n_refs += n_in;
    return id;
}

size_t job_nbytes(const job_t *j)
{
    if (j->blob) return 0;
    return (size_t)prod(j->ndim, j->shape) * dt_size((dtype_t)j->dt);
}

/* Input k of job ji is job src's whole output. */
void tile__jin_direct(tctx_t *c, int32_t ji, int k, int32_t src)
{
    job_t *sj = &c->t->jobs[src];
    jin_t *in = &c->t->jobs[ji].in[k];
    in->job = src;
    in->n_pieces = 0;
    in->pieces = NULL;
    in->gen_node = -1;
    in->ndim = sj->ndim;
    in->shape = sj->shape;
    in->dt = (dtype_t)sj->dt;
}

/* ------------------------------------------------------------------ grids */

static void bounds_uniform(int64_t len, int64_t chunk, int64_t *nch)
{
    *nch = len == 0 ? 1 : (len + chunk - 1) / chunk;
}

tgrid_t *tile__grid_alloc(tctx_t *c, const shape_t *shape, dtype_t dt, const int64_t *nchunks)
{
    int64_t total = 1;
    for (int d = 0; d < shape->ndim; d++) {
        if (mul_ovf_i64(total, nchunks[d], &total) || total > c->lim->max_chunks) {
            tile__fail(c, "the tensor would have more than %lld chunks (limit max_chunks)",
                       (long long)c->lim->max_chunks);
            return NULL;
        }
    }
    if (total > c->lim->max_total_chunks - c->t->n_jobs) {
        tile__fail(c, "the graph needs more than %lld chunk jobs (limit max_total_chunks)",
                   (long long)c->lim->max_total_chunks);
        return NULL;
    }
    tgrid_t *G = arena_alloc(c->t->arena, sizeof(tgrid_t));
    memset(G, 0, sizeof(*G));
    G->shape = *shape;
    G->dt = dt;
    G->total = total;
    for (int d = 0; d < shape->ndim; d++) {
        G->nchunks[d] = nchunks[d];
        G->bounds[d] = arena_alloc(c->t->arena, sizeof(int64_t) * (size_t)(nchunks[d] + 1));
    }
    G->job = arena_alloc(c->t->arena, sizeof(int32_t) * (size_t)total);
    return G;
}

/* A grid whose axis d has chunks of chunk[d] (the last may be shorter). */
static tgrid_t *grid_regular(tctx_t *c, const shape_t *shape, dtype_t dt, const int64_t *chunk)
{
    int64_t nch[MR_MAXDIM];
    for (int d = 0; d < shape->ndim; d++)
        bounds_uniform(shape->d[d], chunk[d], &nch[d]);
    tgrid_t *G = tile__grid_alloc(c, shape, dt, nch);
    if (!G) return NULL;
    for (int d = 0; d < shape->ndim; d++) {
        for (int64_t k = 0; k <= nch[d]; k++) {
            int64_t b = k * chunk[d];
            G->bounds[d][k] = b < shape->d[d] ? b : shape->d[d];
        }
    }
    return G;
}

/* A grid with the given bounds per axis (copied). */
static tgrid_t *grid_with_bounds(tctx_t *c, const shape_t *shape, dtype_t dt,
                                 const int64_t *const *bounds, const int64_t *nch)
{
    tgrid_t *G = tile__grid_alloc(c, shape, dt, nch);
    if (!G) return NULL;
    for (int d = 0; d < shape->ndim; d++)
        memcpy(G->bounds[d], bounds[d], sizeof(int64_t) * (size_t)(nch[d] + 1));
    return G;
}

static bool bounds_eq(const tgrid_t *A, int da, const tgrid_t *B, int db)
{
    if (A->nchunks[da] != B->nchunks[db]) return false;
    return memcmp(A->bounds[da], B->bounds[db], sizeof(int64_t) * (size_t)(A->nchunks[da] + 1)) ==
           0;
}

/* Grid position (C order) -> per-axis chunk coordinates. */
static void grid_coords(const tgrid_t *G, int64_t li, int64_t *co)
{
    for (int d = G->shape.ndim - 1; d >= 0; d--) {
        co[d] = li % G->nchunks[d];
        li /= G->nchunks[d];
    }
}

static int64_t grid_index(const tgrid_t *G, const int64_t *co)
{
    int64_t li = 0;
    for (int d = 0; d < G->shape.ndim; d++)
        li = li * G->nchunks[d] + co[d];
    return li;
}

static void grid_region(const tgrid_t *G, const int64_t *co, int64_t *off, int64_t *len)
{
    for (int d = 0; d < G->shape.ndim; d++) {
        off[d] = G->bounds[d][co[d]];
        len[d] = G->bounds[d][co[d] + 1] - off[d];
    }
}

/* Default chunk sizes: about target bytes per chunk, split evenly over the
 * axes as dask's "auto" does. */
static void default_chunks(const shape_t *s, dtype_t dt, int64_t target, int64_t *chunk)
{
    double total = (double)dt_size(dt);
    for (int d = 0; d < s->ndim; d++)
        total *= (double)(s->d[d] > 0 ? s->d[d] : 1);
    double f = total <= (double)target ? 1.0 : pow((double)target / total, 1.0 / s->ndim);
    for (int d = 0; d < s->ndim; d++) {
        int64_t len = s->d[d] > 0 ? s->d[d] : 1;
        int64_t ch = (int64_t)((double)len * f);
        chunk[d] = ch < 1 ? 1 : ch > len ? len : ch;
    }
}

/* ------------------------------------------------------------------ inputs from regions */

static piece_t *pv_push(tctx_t *c)
{
    if (c->npv == c->cappv) {
        int64_t cap = c->cappv ? c->cappv * 2 : 64;
        piece_t *np = realloc(c->pv, sizeof(piece_t) * (size_t)cap);
        if (!np) return NULL;
        c->pv = np;
        c->cappv = cap;
    }
    return &c->pv[c->npv++];
}

static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

/* First chunk k along an axis with bounds[k+1] > p. */
static int64_t chunk_of(const int64_t *bounds, int64_t nch, int64_t p)
{
    int64_t lo = 0, hi = nch - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (bounds[mid + 1] > p)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

typedef struct {
    int64_t chunk, i0, i1;
} seg_t;

/* Splits the positions start + step*i, 0 <= i < n, of one axis by chunk. */
static int split_axis(const int64_t *bounds, int64_t nch, int64_t start, int64_t step, int64_t n,
                      seg_t **segs, int64_t *nseg)
{
    *nseg = 0;
    if (n <= 0) return 0;
    if (step == 0 || n == 1) {
        seg_t *s = malloc(sizeof(seg_t));
        if (!s) return -1;
        s->chunk = chunk_of(bounds, nch, start);
        s->i0 = 0;
        s->i1 = n;
        *segs = s;
        *nseg = 1;
        return 0;
    }
    int64_t last = start + step * (n - 1);
    int64_t pmin = step > 0 ? start : last, pmax = step > 0 ? last : start;
    int64_t k0 = chunk_of(bounds, nch, pmin), k1 = chunk_of(bounds, nch, pmax);
    seg_t *s = malloc(sizeof(seg_t) * (size_t)(k1 - k0 + 1));
    if (!s) return -1;
    int64_t m = 0;
    for (int64_t k = k0; k <= k1; k++) {
        int64_t lo = bounds[k], hi = bounds[k + 1], i0, i1;
        if (step > 0) {
            i0 = lo > start ? floordiv(lo - start + step - 1, step) : 0;
            i1 = hi > start ? floordiv(hi - start + step - 1, step) : 0;
        } else {
            int64_t ts = -step;
            i0 = floordiv(start - hi, ts) + 1;
            i1 = floordiv(start - lo, ts) + 1;
        }
        if (i0 < 0) i0 = 0;
        if (i1 > n) i1 = n;
        if (i1 > i0) {
            s[m].chunk = k;
            s[m].i0 = i0;
            s[m].i1 = i1;
            m++;
        }
    }
    *segs = s;
    *nseg = m;
    return 0;
}

/* Adds the pieces that copy the selection (per axis of G: positions
 * start[d] + step[d]*i, 0 <= i < n[d]) into the assembled array, element i
 * landing at dst_base + sum_d i_d*dst_stride[d]. */
static int add_region(tctx_t *c, const tgrid_t *G, const int64_t *start, const int64_t *step,
                      const int64_t *n, const int64_t *dst_stride, int64_t dst_base)
{
    int nd = G->shape.ndim;
    seg_t *segs[MR_MAXDIM] = {0};
    int64_t nseg[MR_MAXDIM];
    int rc = -1;
    for (int d = 0; d < nd; d++) {
        if (n[d] == 0) {
            rc = 0; /* nothing selected */
            goto done;
        }
        if (split_axis(G->bounds[d], G->nchunks[d], start[d], step[d], n[d], &segs[d], &nseg[d]))
            goto oom;
    }
    int64_t it[MR_MAXDIM] = {0};
    for (;;) {
        int64_t co[MR_MAXDIM], sshape[MR_MAXDIM], sst[MR_MAXDIM];
        for (int d = 0; d < nd; d++) {
            co[d] = segs[d][it[d]].chunk;
            sshape[d] = G->bounds[d][co[d] + 1] - G->bounds[d][co[d]];
        }
        c_strides(nd, sshape, sst);
        piece_t *p = pv_push(c);
        if (!p) goto oom;
        if (++c->n_refs > c->lim->max_total_chunks * 4) {
            tile__fail(c, "the graph needs too many chunk copies (limit 4 x max_total_chunks)");
            goto done;
        }
        p->src = G->job[grid_index(G, co)];
        p->ndim = nd;
        p->count = tile__arena_i64(c, nd);
        p->src_stride = tile__arena_i64(c, nd);
        p->dst_stride = tile__arena_i64(c, nd);
        p->src_off = 0;
        p->dst_off = dst_base;
        for (int d = 0; d < nd; d++) {
            const seg_t *s = &segs[d][it[d]];
            int64_t pos = start[d] + step[d] * s->i0 - G->bounds[d][co[d]];
            p->count[d] = s->i1 - s->i0;
            p->src_stride[d] = step[d] * sst[d];
            p->dst_stride[d] = dst_stride[d];
            p->src_off += pos * sst[d];
            p->dst_off += s->i0 * dst_stride[d];
        }
        int d = nd - 1;
        while (d >= 0 && ++it[d] == nseg[d])
            it[d--] = 0;
        if (d < 0) break;
    }
    rc = 0;
    goto done;
oom:
    tile__fail(c, "out of memory while tiling");
done:
    for (int d = 0; d < nd; d++)
        free(segs[d]);
    return rc;
}

/* Turns the pieces gathered so far into input k of job ji: the job's whole
 * output directly when one piece is exactly one chunk in the same layout. */
static void input_finish(tctx_t *c, int32_t ji, int k, int ndim, const int64_t *shape, dtype_t dt)
{
    jin_t *in = &c->t->jobs[ji].in[k];
    int64_t n = prod(ndim, shape);
    if (c->npv == 1) {
        const piece_t *p = &c->pv[0];
        const job_t *sj = &c->t->jobs[p->src];
        int64_t sst[MR_MAXDIM];
        c_strides(sj->ndim, sj->shape, sst);
        bool whole = p->src_off == 0 && p->dst_off == 0 && p->ndim == sj->ndim &&
                     prod(sj->ndim, sj->shape) == n;
        for (int d = 0; whole && d < p->ndim; d++) {
            if (p->count[d] != sj->shape[d])
                whole = false;
            else if (p->count[d] > 1 && (p->src_stride[d] != sst[d] || p->dst_stride[d] != sst[d]))
                whole = false;
        }
        if (whole) {
            in->job = p->src;
            in->n_pieces = 0;
            in->pieces = NULL;
            in->ndim = ndim;
            in->shape = arena_i64_copy(c, shape, ndim);
            in->dt = dt;
            c->npv = 0;
            return;
        }
    }
    in->job = -1;
    in->n_pieces = (int32_t)c->npv;
    in->pieces = arena_alloc(c->t->arena, sizeof(piece_t) * (size_t)(c->npv ? c->npv : 1));
    if (c->npv) memcpy(in->pieces, c->pv, sizeof(piece_t) * (size_t)c->npv);
    in->ndim = ndim;
    in->shape = arena_i64_copy(c, shape, ndim);
    in->dt = dt;
    c->npv = 0;
}

/* Input k of ji: the box [off, off+len) of G, in G's layout. */
int tile__input_box(tctx_t *c, int32_t ji, int k, const tgrid_t *G, const int64_t *off,
                    const int64_t *len)
{
    int nd = G->shape.ndim;
    int64_t step[MR_MAXDIM], dst[MR_MAXDIM];
    for (int d = 0; d < nd; d++)
        step[d] = 1;
    c_strides(nd, len, dst);
    c->npv = 0;
    if (add_region(c, G, off, step, len, dst, 0)) return -1;
    input_finish(c, ji, k, nd, len, G->dt);
    return 0;
}

/* The job holding the box [off, off+len) of G: G's own chunk when the box is
 * exactly one, else a new gather. -1 on error. */
static int32_t region_job(tctx_t *c, const tgrid_t *G, const int64_t *off, const int64_t *len)
{
    int nd = G->shape.ndim;
    int64_t co[MR_MAXDIM];
    bool exact = true;
    for (int d = 0; d < nd && exact; d++) {
        co[d] = chunk_of(G->bounds[d], G->nchunks[d], off[d]);
        exact = G->bounds[d][co[d]] == off[d] && G->bounds[d][co[d] + 1] == off[d] + len[d];
    }
    if (exact) return G->job[grid_index(G, co)];
    int32_t ji = tile__job_new(c, JK_GATHER, G->dt, nd, len, 1);
    if (ji < 0 || tile__input_box(c, ji, 0, G, off, len)) return -1;
    return ji;
}

/* A gather job of shape olen (ndim ond) copying the selection start + step*i,
 * 0 <= i < cnt (per axis of G), to dst strides. -1 on error. */
static int32_t gather_job(tctx_t *c, const tgrid_t *G, int ond, const int64_t *olen,
                          const int64_t *start, const int64_t *step, const int64_t *cnt,
                          const int64_t *dst)
{
    int32_t ji = tile__job_new(c, JK_GATHER, G->dt, ond, olen, 1);
    if (ji < 0) return -1;
    c->npv = 0;
    if (add_region(c, G, start, step, cnt, dst, 0)) return -1;
    input_finish(c, ji, 0, ond, olen, G->dt);
    return ji;
}

/* A grid with the same shape as G and the given bounds, chunks copied out
 * of G (G itself when the bounds are G's). */
static tgrid_t *grid_rechunk(tctx_t *c, const tgrid_t *G, int64_t *const *bounds,
                             const int64_t *nch)
{
    int nd = G->shape.ndim;
    bool same = true;
    for (int d = 0; d < nd && same; d++)
        same = nch[d] == G->nchunks[d] &&
               memcmp(bounds[d], G->bounds[d], sizeof(int64_t) * (size_t)(nch[d] + 1)) == 0;
    if (same) return (tgrid_t *)G;
    tgrid_t *R = grid_with_bounds(c, &G->shape, G->dt, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    for (int64_t li = 0; li < R->total; li++) {
        int64_t co[MR_MAXDIM], off[MR_MAXDIM], len[MR_MAXDIM];
        grid_coords(R, li, co);
        grid_region(R, co, off, len);
        int32_t ji = region_job(c, G, off, len);
        if (ji < 0) return NULL;
        R->job[li] = ji;
    }
    return R;
}

/* G with axis d rechunked to the bounds of axis e of H. */
static tgrid_t *grid_align_axis(tctx_t *c, const tgrid_t *G, int d, const tgrid_t *H, int e)
{
    if (bounds_eq(G, d, H, e)) return (tgrid_t *)G;
    int64_t *b[MR_MAXDIM], nch[MR_MAXDIM];
    for (int a = 0; a < G->shape.ndim; a++) {
        b[a] = a == d ? H->bounds[e] : G->bounds[a];
        nch[a] = a == d ? H->nchunks[e] : G->nchunks[a];
    }
    return grid_rechunk(c, G, b, nch);
}

/* ------------------------------------------------------------------ element-wise programs */

typedef struct {
    ew_prog_t *p;
    int n_leaves;
    int leaf_node[EW_MAX_REGS];
    int memo_node[EW_MAX_REGS], memo_reg[EW_MAX_REGS], n_memo;
} pbuild_t;

static bool fusable_into(tctx_t *c, int m, int consumer)
{
    const graph_node_t *M = &c->g->nodes[m], *C = &c->g->nodes[consumer];
    if (!op_is_elementwise(M->op) || M->fetch || M->n_consumers != 1 || c->opts->keep_all ||
        M->df || C->df)
        return false;
    if (op_is_elementwise(C->op)) return shape_eq(&M->oshape, &C->oshape);
    op_kind_t k = op_kind(C->op);
    return k == OPK_REDUCE || k == OPK_ARGREDUCE;
}

static void collect_leaves(tctx_t *c, pbuild_t *b, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    for (int i = 0; i < n->n_in; i++) {
        int m = n->in[i].node;
        if (m < 0) continue;
        if (c->fused[m]) {
            collect_leaves(c, b, m);
            continue;
        }
        bool seen = false;
        for (int k = 0; k < b->n_leaves; k++)
            seen |= b->leaf_node[k] == m;
        if (!seen) b->leaf_node[b->n_leaves++] = m;
    }
}

static int new_reg(pbuild_t *b, dtype_t dt)
{
    int r = b->p->n_regs++;
    b->p->reg_dt[r] = (uint8_t)dt;
    b->p->is_const[r] = false;
    return r;
}

static int emit(pbuild_t *b, op_t op, dtype_t compute, dtype_t out, int a, int x, int y)
{
    int dst = new_reg(b, out);
    ew_ins_t *ins = &b->p->ins[b->p->n_ins++];
    ins->op = (int16_t)op;
    ins->dt = (uint8_t)compute;
    ins->dst = (int8_t)dst;
    ins->a = (int8_t)a;
    ins->b = (int8_t)x;
    ins->c = (int8_t)y;
    return dst;
}

static int cast_to(pbuild_t *b, int r, dtype_t dt)
{
    if (r < 0 || b->p->reg_dt[r] == dt) return r;
    return emit(b, OP_ASTYPE, dt, dt, r, -1, -1);
}

static int const_reg(pbuild_t *b, scalar_t s, dtype_t dt)
{
    int r = new_reg(b, dt);
    b->p->is_const[r] = true;
    b->p->konst[r] = s;
    return r;
}

/* Emits the program of node (fused inputs inlined); returns its register. */
static int emit_node(tctx_t *c, pbuild_t *b, int node)
{
    for (int k = 0; k < b->n_memo; k++)
        if (b->memo_node[k] == node) return b->memo_reg[k];
    const graph_node_t *n = &c->g->nodes[node];
    int reg[4] = {-1, -1, -1, -1};
    for (int i = 0; i < n->n_in && i < 3; i++) {
        int m = n->in[i].node;
        if (m < 0) continue;
        if (c->fused[m]) {
            reg[i] = emit_node(c, b, m);
        } else {
            for (int k = 0; k < b->n_leaves; k++)
                if (b->leaf_node[k] == m) reg[i] = k;
        }
        if (reg[i] < 0) return -1;
    }
    dtype_t in_dt[3] = {DT_BOOL, DT_BOOL, DT_BOOL};
    int in_nd[3] = {0, 0, 0};
    for (int i = 0; i < n->n_in && i < 3; i++) {
        if (n->in[i].node >= 0) {
            in_dt[i] = (dtype_t)b->p->reg_dt[reg[i]];
            in_nd[i] = c->g->nodes[n->in[i].node].oshape.ndim;
        }
    }
    ew_types_t ty;
    char e[256];
    if (ew_node_types(n, in_dt, in_nd, &ty, e, sizeof e)) return tile__fail(c, "%s", e);
    if (b->p->n_regs > EW_MAX_REGS - 8 || b->p->n_ins > EW_MAX_INS - 6)
        return tile__fail(c, "internal: fused program too large");
    int r;
    op_kind_t kind = op_kind(n->op);
    if (n->op == OP_ASTYPE) {
        int a = reg[0] >= 0 ? reg[0] : const_reg(b, n->in[0].sc, sc_default_dtype(n->in[0].sc));
        r = emit(b, OP_ASTYPE, ty.compute, ty.out, a, -1, -1);
    } else if (n->op == OP_WHERE) {
        int cond = reg[0] >= 0 ? cast_to(b, reg[0], DT_BOOL) : const_reg(b, n->in[0].sc, DT_BOOL);
        int x =
            reg[1] >= 0 ? cast_to(b, reg[1], ty.compute) : const_reg(b, n->in[1].sc, ty.compute);
        int y =
            reg[2] >= 0 ? cast_to(b, reg[2], ty.compute) : const_reg(b, n->in[2].sc, ty.compute);
        r = emit(b, OP_WHERE, ty.compute, ty.out, cond, x, y);
    } else if (n->op == OP_CLIP) {
        int a =
            reg[0] >= 0 ? cast_to(b, reg[0], ty.compute) : const_reg(b, n->in[0].sc, ty.compute);
        int lo = n->has_a_min ? const_reg(b, n->a_min, ty.compute) : -1;
        int hi = n->has_a_max ? const_reg(b, n->a_max, ty.compute) : -1;
        r = emit(b, OP_CLIP, ty.compute, ty.out, a, lo, hi);
    } else {
        int ops[2] = {-1, -1};
        int arity = kind == OPK_UNARY ? 1 : 2;
        for (int i = 0; i < arity; i++)
            ops[i] = reg[i] >= 0 ? cast_to(b, reg[i], ty.compute)
                                 : const_reg(b, n->in[i].sc, ty.compute);
        r = emit(b, n->op, ty.compute, ty.out, ops[0], ops[1], -1);
    }
    if (b->p->reg_dt[r] != n->odtype)
        return tile__fail(c, "internal: program dtype %s differs from the inferred %s",
                          dt_name((dtype_t)b->p->reg_dt[r]), dt_name(n->odtype));
    if (b->n_memo < EW_MAX_REGS) {
        b->memo_node[b->n_memo] = node;
        b->memo_reg[b->n_memo++] = r;
    }
    return r;
}

/* Builds the program of `root` with its fused inputs; leaves in b. */
static ew_prog_t *build_prog(tctx_t *c, pbuild_t *b, int root)
{
    memset(b, 0, sizeof(*b));
    b->p = arena_alloc(c->t->arena, sizeof(ew_prog_t));
    memset(b->p, 0, sizeof(ew_prog_t));
    collect_leaves(c, b, root);
    b->p->n_inputs = b->n_leaves;
    b->p->n_regs = b->n_leaves;
    for (int k = 0; k < b->n_leaves; k++)
        b->p->reg_dt[k] = (uint8_t)c->t->grid[b->leaf_node[k]]->dt;
    int r = emit_node(c, b, root);
    if (r < 0) return NULL;
    b->p->out = r;
    return b->p;
}

/* The chunking of an element-wise result of `shape` over the leaves: on
 * each axis, the bounds of the first leaf that spans it (not broadcast). */
static tgrid_t *ew_grid(tctx_t *c, const pbuild_t *b, const shape_t *shape, dtype_t dt)
{
    int nd = shape->ndim;
    int64_t *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    static const int64_t one[2] = {0, 1};
    int64_t *zero = tile__arena_i64(c, 2);
    zero[0] = zero[1] = 0;
    for (int d = 0; d < nd; d++) {
        bounds[d] = NULL;
        for (int k = 0; k < b->n_leaves && !bounds[d]; k++) {
            const tgrid_t *L = c->t->grid[b->leaf_node[k]];
            int e = d - (nd - L->shape.ndim);
            if (e >= 0 && L->shape.d[e] == shape->d[d]) {
                bounds[d] = L->bounds[e];
                nch[d] = L->nchunks[e];
            }
        }
        if (!bounds[d]) {
            bounds[d] = shape->d[d] == 0 ? zero : (int64_t *)one;
            nch[d] = 1;
        }
    }
    return grid_with_bounds(c, shape, dt, (const int64_t *const *)bounds, nch);
}

/* Input k of job ji: the box [off, off+len) of creation or random node
 * `node`, generated by the job itself. */
void tile__input_generated(tctx_t *c, int32_t ji, int k, int node, int nd, const int64_t *off,
                           const int64_t *len, dtype_t dt)
{
    jin_t *in = &c->t->jobs[ji].in[k];
    in->job = -1;
    in->n_pieces = 0;
    in->pieces = NULL;
    in->ndim = nd;
    in->shape = arena_i64_copy(c, len, nd);
    in->dt = dt;
    in->gen_node = node;
    in->gen_off = arena_i64_copy(c, off, nd);
}

/* Inputs of job ji for the leaves of b, over the region [off, off+len) of
 * the element-wise result (of ndim nd): each leaf's own part, broadcast
 * axes reduced to one position. */
/* Inputs k0 .. k0 + n_leaves - 1 of job ji: the program's leaves over the
 * region (off, len). */
static int ew_inputs(tctx_t *c, int32_t ji, int k0, const pbuild_t *b, int nd, const int64_t *off,
                     const int64_t *len)
{
    for (int k = k0; k < k0 + b->n_leaves; k++) {
        const tgrid_t *L = c->t->grid[b->leaf_node[k - k0]];
        int ln = L->shape.ndim;
        int64_t lo[MR_MAXDIM], n[MR_MAXDIM], step[MR_MAXDIM], dst[MR_MAXDIM];
        for (int e = 0; e < ln; e++) {
            int d = e + (nd - ln);
            step[e] = 1;
            if (L->shape.d[e] == 1) { /* broadcast (or of size 1 anyway) */
                lo[e] = 0;
                n[e] = 1;
            } else {
                lo[e] = off[d];
                n[e] = len[d];
            }
        }
        if (c->gen[b->leaf_node[k - k0]]) {
            tile__input_generated(c, ji, k, b->leaf_node[k - k0], ln, lo, n, L->dt);
            continue;
        }
        c_strides(ln, n, dst);
        c->npv = 0;
        if (add_region(c, L, lo, step, n, dst, 0)) return -1;
        input_finish(c, ji, k, ln, n, L->dt);
    }
    return 0;
}

static tgrid_t *grid_astype(tctx_t *c, const tgrid_t *G, dtype_t dt)
{
    if (G->dt == dt) return (tgrid_t *)G;
    ew_prog_t *p = arena_alloc(c->t->arena, sizeof(ew_prog_t));
    memset(p, 0, sizeof(*p));
    p->n_inputs = 1;
    p->n_regs = 2;
    p->n_ins = 1;
    p->out = 1;
    p->reg_dt[0] = (uint8_t)G->dt;
    p->reg_dt[1] = (uint8_t)dt;
    p->ins[0] = (ew_ins_t){.op = OP_ASTYPE, .dt = (uint8_t)dt, .dst = 1, .a = 0, .b = -1, .c = -1};
    jparam_t *pa = arena_alloc(c->t->arena, sizeof(jparam_t));
    memset(pa, 0, sizeof(*pa));
    pa->op = OP_ASTYPE;
    pa->prog = p;
    tgrid_t *R = grid_with_bounds(c, &G->shape, dt, (const int64_t *const *)G->bounds, G->nchunks);
    if (!R) return NULL;
    for (int64_t li = 0; li < R->total; li++) {
        int32_t src = G->job[li];
        const job_t *sj = &c->t->jobs[src];
        int32_t ji = tile__job_new(c, JK_EW, dt, sj->ndim, sj->shape, 1);
        if (ji < 0) return NULL;
        c->t->jobs[ji].param = pa;
        tile__jin_direct(c, ji, 0, src);
        R->job[li] = ji;
    }
    return R;
}

/* ------------------------------------------------------------------ reshaping */

/* Grid whose chunks are G's chunks, same bytes, with size-1 axes removed
 * or inserted: shape's non-1 axes are G's non-1 axes in order. */
static tgrid_t *grid_alias_reshape(tctx_t *c, const tgrid_t *G, const shape_t *shape)
{
    int64_t *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    static const int64_t one[2] = {0, 1};
    int e = 0;
    for (int d = 0; d < shape->ndim; d++) {
        if (shape->d[d] == 1) {
            /* a size-1 axis of G at this place keeps its chunking (trivially one chunk) */
            bounds[d] = (int64_t *)one;
            nch[d] = 1;
            while (e < G->shape.ndim && G->shape.d[e] == 1)
                e++;
            continue;
        }
        while (G->shape.d[e] == 1)
            e++;
        bounds[d] = G->bounds[e];
        nch[d] = G->nchunks[e];
        e++;
    }
    tgrid_t *R = grid_with_bounds(c, shape, G->dt, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    /* the chunks correspond one to one, in the same C order */
    for (int64_t li = 0; li < R->total; li++) {
        int64_t co[MR_MAXDIM], off[MR_MAXDIM], len[MR_MAXDIM];
        grid_coords(R, li, co);
        grid_region(R, co, off, len);
        int32_t src = G->job[li];
        int32_t ji = tile__job_new(c, JK_ALIAS, G->dt, shape->ndim, len, 1);
        if (ji < 0) return NULL;
        tile__jin_direct(c, ji, 0, src);
        R->job[li] = ji;
    }
    return R;
}

static bool only_ones_differ(const shape_t *a, const shape_t *b)
{
    int i = 0, j = 0;
    for (;;) {
        while (i < a->ndim && a->d[i] == 1)
            i++;
        while (j < b->ndim && b->d[j] == 1)
            j++;
        if (i == a->ndim || j == b->ndim) return i == a->ndim && j == b->ndim;
        if (a->d[i++] != b->d[j++]) return false;
    }
}

/* Splits the flat C-order range [f0, f1) of `shape` into boxes and adds the
 * pieces copying each box of G into an array laid out in flat order from
 * f0. */
static int add_flat_range(tctx_t *c, const tgrid_t *G, int64_t f0, int64_t f1)
{
    int nd = G->shape.ndim;
    const int64_t *shape = G->shape.d;
    int64_t gst[MR_MAXDIM];
    c_strides(nd, shape, gst);
    int64_t base0 = f0;
    while (f0 < f1) {
        int64_t idx[MR_MAXDIM] = {0}, r = f0;
        for (int d = nd - 1; d >= 0; d--) {
            idx[d] = r % shape[d];
            r /= shape[d];
        }
        int j = nd - 1;
        int64_t inner = 1;
        while (j > 0 && idx[j] == 0 && inner * shape[j] <= f1 - f0) {
            inner *= shape[j];
            j--;
        }
        int64_t cnt = shape[j] - idx[j];
        if (cnt > (f1 - f0) / inner) cnt = (f1 - f0) / inner;
        int64_t start[MR_MAXDIM], step[MR_MAXDIM], n[MR_MAXDIM];
        for (int d = 0; d < nd; d++) {
            step[d] = 1;
            if (d < j) {
                start[d] = idx[d];
                n[d] = 1;
            } else if (d == j) {
                start[d] = idx[d];
                n[d] = cnt;
            } else {
                start[d] = 0;
                n[d] = shape[d];
            }
        }
        if (add_region(c, G, start, step, n, gst, f0 - base0)) return -1;
        f0 += cnt * inner;
    }
    return 0;
}

static tgrid_t *grid_reshape(tctx_t *c, const tgrid_t *G, const shape_t *shape)
{
    if (shape_eq(&G->shape, shape)) return (tgrid_t *)G;
    if (only_ones_differ(&G->shape, shape)) return grid_alias_reshape(c, G, shape);
    int64_t size = shape_size(shape);
    int nd = shape->ndim;
    int64_t nch[MR_MAXDIM] = {0};
    for (int d = 0; d < nd; d++)
        nch[d] = 1;
    int64_t rows = 1, rowsize = 1;
    if (nd > 0) {
        for (int d = 1; d < nd; d++)
            rowsize *= shape->d[d];
        /* rows per chunk: about as many elements as G's largest chunk */
        int64_t target = 1;
        for (int d = 0; d < G->shape.ndim; d++) {
            int64_t mx = 0;
            for (int64_t k = 0; k < G->nchunks[d]; k++)
                if (G->bounds[d][k + 1] - G->bounds[d][k] > mx)
                    mx = G->bounds[d][k + 1] - G->bounds[d][k];
            target *= mx > 0 ? mx : 1;
        }
        rows = rowsize > 0 ? target / rowsize : shape->d[0];
        if (rows < 1) rows = 1;
        if (G->total == 1 || size == 0) rows = shape->d[0] > 0 ? shape->d[0] : 1;
        bounds_uniform(shape->d[0], rows, &nch[0]);
    }
    tgrid_t *R = tile__grid_alloc(c, shape, G->dt, nch);
    if (!R) return NULL;
    for (int d = 0; d < nd; d++) {
        if (d == 0) {
            for (int64_t k = 0; k <= nch[0]; k++)
                R->bounds[0][k] = k * rows < shape->d[0] ? k * rows : shape->d[0];
        } else {
            R->bounds[d][0] = 0;
            R->bounds[d][1] = shape->d[d];
        }
    }
    for (int64_t li = 0; li < R->total; li++) {
        int64_t co[MR_MAXDIM], off[MR_MAXDIM], len[MR_MAXDIM];
        grid_coords(R, li, co);
        grid_region(R, co, off, len);
        int64_t f0 = nd > 0 ? off[0] * rowsize : 0;
        int64_t f1 = f0 + prod(nd, len);
        if (G->total == 1 && size > 0) {
            /* one chunk in, one out: the same bytes */
            int32_t ji = tile__job_new(c, JK_ALIAS, G->dt, nd, len, 1);
            if (ji < 0) return NULL;
            tile__jin_direct(c, ji, 0, G->job[0]);
            R->job[li] = ji;
            continue;
        }
        int32_t ji = tile__job_new(c, JK_GATHER, G->dt, nd, len, 1);
        if (ji < 0) return NULL;
        c->npv = 0;
        if (size > 0 && add_flat_range(c, G, f0, f1)) return NULL;
        input_finish(c, ji, 0, nd, len, G->dt);
        R->job[li] = ji;
    }
    return R;
}

static tgrid_t *grid_transpose(tctx_t *c, const tgrid_t *G, const int *perm)
{
    int nd = G->shape.ndim;
    bool ident = true;
    for (int j = 0; j < nd; j++)
        ident &= perm[j] == j;
    if (ident) return (tgrid_t *)G;
    shape_t s = {.ndim = nd};
    int64_t *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    for (int j = 0; j < nd; j++) {
        s.d[j] = G->shape.d[perm[j]];
        bounds[j] = G->bounds[perm[j]];
        nch[j] = G->nchunks[perm[j]];
    }
    tgrid_t *R = grid_with_bounds(c, &s, G->dt, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    for (int64_t li = 0; li < R->total; li++) {
        int64_t co[MR_MAXDIM], off[MR_MAXDIM], len[MR_MAXDIM], ost[MR_MAXDIM];
        int64_t gstart[MR_MAXDIM], gn[MR_MAXDIM], gstep[MR_MAXDIM], dst[MR_MAXDIM];
        grid_coords(R, li, co);
        grid_region(R, co, off, len);
        c_strides(nd, len, ost);
        for (int j = 0; j < nd; j++) {
            gstart[perm[j]] = off[j];
            gn[perm[j]] = len[j];
            gstep[perm[j]] = 1;
            dst[perm[j]] = ost[j];
        }
        int32_t ji = gather_job(c, G, nd, len, gstart, gstep, gn, dst);
        if (ji < 0) return NULL;
        R->job[li] = ji;
    }
    return R;
}

/* Concatenation along axis of grids of one dtype and matching shapes. */
static tgrid_t *grid_concat(tctx_t *c, tgrid_t *const *in, int n, int axis, const shape_t *shape)
{
    int nd = shape->ndim;
    int64_t total_ch = 0;
    for (int k = 0; k < n; k++)
        if (in[k]->shape.d[axis] > 0) total_ch += in[k]->nchunks[axis];
    if (total_ch == 0) total_ch = 1;
    int64_t *ab = arena_alloc(c->t->arena, sizeof(int64_t) * (size_t)(total_ch + 1));
    int *owner = arena_alloc(c->t->arena, sizeof(int) * (size_t)total_ch);
    int64_t m = 0, base = 0;
    ab[0] = 0;
    for (int k = 0; k < n; k++) {
        if (in[k]->shape.d[axis] == 0) continue;
        for (int64_t q = 0; q < in[k]->nchunks[axis]; q++) {
            ab[m + 1] = base + in[k]->bounds[axis][q + 1];
            owner[m++] = k;
        }
        base += in[k]->shape.d[axis];
    }
    if (m == 0) {
        ab[1] = 0;
        owner[0] = 0;
    }
    int64_t *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    for (int d = 0; d < nd; d++) {
        bounds[d] = d == axis ? ab : in[0]->bounds[d];
        nch[d] = d == axis ? total_ch : in[0]->nchunks[d];
    }
    tgrid_t *R = grid_with_bounds(c, shape, in[0]->dt, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    /* offset of each input along the axis */
    int64_t offs[n];
    base = 0;
    for (int k = 0; k < n; k++) {
        offs[k] = base;
        base += in[k]->shape.d[axis];
    }
    for (int64_t li = 0; li < R->total; li++) {
        int64_t co[MR_MAXDIM], off[MR_MAXDIM], len[MR_MAXDIM];
        grid_coords(R, li, co);
        grid_region(R, co, off, len);
        int k = owner[co[axis]];
        off[axis] -= offs[k];
        int32_t ji = region_job(c, in[k], off, len);
        if (ji < 0) return NULL;
        R->job[li] = ji;
    }
    return R;
}

/* ------------------------------------------------------------------ op tilers */

jparam_t *tile__param_new(tctx_t *c, op_t op)
{
    jparam_t *p = arena_alloc(c->t->arena, sizeof(jparam_t));
    memset(p, 0, sizeof(*p));
    p->op = op;
    return p;
}

static tgrid_t *tile_create(tctx_t *c, const graph_node_t *n, job_kind_t kind)
{
    int64_t chunk[MR_MAXDIM], nch[MR_MAXDIM];
    const int64_t *sb[MR_MAXDIM];
    tgrid_t *G;
    if (kind == JK_SOURCE && c->opts->source_bounds &&
        c->opts->source_bounds(c->opts->source_ctx, n, nch, sb) == 0) {
        G = grid_with_bounds(c, &n->oshape, n->odtype, sb, nch);
    } else {
        if (n->n_chunk > 0)
            memcpy(chunk, n->chunk, sizeof(int64_t) * (size_t)n->oshape.ndim);
        else
            default_chunks(&n->oshape, n->odtype, c->opts->target_chunk_bytes, chunk);
        G = grid_regular(c, &n->oshape, n->odtype, chunk);
    }
    if (!G) return NULL;
    for (int64_t li = 0; li < G->total; li++) {
        int64_t co[MR_MAXDIM], off[MR_MAXDIM], len[MR_MAXDIM];
        grid_coords(G, li, co);
        grid_region(G, co, off, len);
        int32_t ji = tile__job_new(c, kind, n->odtype, n->oshape.ndim, len, 0);
        if (ji < 0) return NULL;
        c->t->jobs[ji].off = arena_i64_copy(c, off, n->oshape.ndim);
        if (kind == JK_SOURCE) c->t->jobs[ji].source_index = li;
        G->job[li] = ji;
    }
    return G;
}

static tgrid_t *tile_ew(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    pbuild_t b;
    ew_prog_t *p = build_prog(c, &b, node);
    if (!p) return NULL;
    jparam_t *pa = tile__param_new(c, n->op);
    pa->prog = p;
    tgrid_t *G = ew_grid(c, &b, &n->oshape, n->odtype);
    if (!G) return NULL;
    for (int64_t li = 0; li < G->total; li++) {
        int64_t co[MR_MAXDIM], off[MR_MAXDIM], len[MR_MAXDIM];
        grid_coords(G, li, co);
        grid_region(G, co, off, len);
        int32_t ji = tile__job_new(c, JK_EW, n->odtype, n->oshape.ndim, len, b.n_leaves);
        if (ji < 0) return NULL;
        c->t->jobs[ji].param = pa;
        c->t->jobs[ji].off = arena_i64_copy(c, off, n->oshape.ndim);
        if (ew_inputs(c, ji, 0, &b, n->oshape.ndim, off, len)) return NULL;
        G->job[li] = ji;
    }
    return G;
}

/* Reduces partial jobs parts[0..np) into one: a tree of combines, then the
 * final job (shape fshape, dtype fdt) when final is set. */
int32_t tile__reduce_tree(tctx_t *c, const jparam_t *pa, int32_t *parts, int64_t np, int64_t nbytes,
                          bool final, dtype_t fdt, int fnd, const int64_t *fshape)
{
    int64_t bshape[1] = {nbytes};
    while (np > RED_FANIN) {
        int64_t m = 0;
        for (int64_t i = 0; i < np; i += RED_FANIN) {
            int k = (int)(np - i < RED_FANIN ? np - i : RED_FANIN);
            int32_t ji = tile__job_new(c, JK_RED_COMBINE, DT_BOOL, 1, bshape, k);
            if (ji < 0) return -1;
            c->t->jobs[ji].param = pa;
            for (int q = 0; q < k; q++)
                tile__jin_direct(c, ji, q, parts[i + q]);
            parts[m++] = ji;
        }
        np = m;
    }
    int32_t ji = final ? tile__job_new(c, JK_RED_FINAL, fdt, fnd, fshape, (int)np)
                       : tile__job_new(c, JK_RED_COMBINE, DT_BOOL, 1, bshape, (int)np);
    if (ji < 0) return -1;
    c->t->jobs[ji].param = pa;
    for (int q = 0; q < np; q++)
        tile__jin_direct(c, ji, q, parts[q]);
    return ji;
}

static tgrid_t *tile_reduce(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    int x = n->in[0].node;
    const graph_node_t *X = &c->g->nodes[x];
    int nd = X->oshape.ndim;
    jparam_t *pa = tile__param_new(c, n->op);
    pbuild_t b;
    const tgrid_t *M; /* the grid of the values reduced */
    if (c->fused[x]) {
        pa->prog = build_prog(c, &b, x);
        if (!pa->prog) return NULL;
        M = ew_grid(c, &b, &X->oshape, X->odtype);
        if (!M) return NULL;
    } else {
        M = c->t->grid[x];
    }
    uint32_t axes = 0;
    if (n->axis_all) axes = nd >= 32 ? 0xffffffffu : ((1u << nd) - 1);
    for (int i = 0; !n->axis_all && i < n->n_axis; i++)
        axes |= 1u << n->axis[i];
    pa->axes = axes;
    pa->in_dt = X->odtype;
    pa->ddof = n->ddof;
    pa->gshape = &X->oshape;
    int64_t nred = 1;
    for (int d = 0; d < nd; d++)
        if (axes & (1u << d)) nred *= X->oshape.d[d];
    pa->n_reduced = nred;

    /* output grid: kept axes keep M's bounds */
    int64_t *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    static const int64_t one[2] = {0, 1};
    int od = 0;
    for (int d = 0; d < nd; d++) {
        if (!(axes & (1u << d))) {
            bounds[od] = M->bounds[d];
            nch[od++] = M->nchunks[d];
        } else if (n->keepdims) {
            bounds[od] = (int64_t *)one;
            nch[od++] = 1;
        }
    }
    tgrid_t *R = grid_with_bounds(c, &n->oshape, n->odtype, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    /* chunks of M reduced into one output chunk: the product of the reduced axes' chunks */
    int64_t group = 1;
    for (int d = 0; d < nd; d++)
        if (axes & (1u << d)) group *= M->nchunks[d];
    int32_t *parts = malloc(sizeof(int32_t) * (size_t)group);
    if (!parts) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    for (int64_t li = 0; li < R->total; li++) {
        int64_t rco[MR_MAXDIM], roff[MR_MAXDIM], rlen[MR_MAXDIM];
        grid_coords(R, li, rco);
        grid_region(R, rco, roff, rlen);
        int64_t nout = prod(n->oshape.ndim, rlen);
        int64_t nbytes = (int64_t)kern_red_partial_bytes(n->op, X->odtype, nout);
        int64_t bshape[1] = {nbytes};
        /* M coordinates: kept axes from the output chunk, reduced ones iterate */
        int64_t mco[MR_MAXDIM];
        int q = 0;
        for (int d = 0; d < nd; d++) {
            if (!(axes & (1u << d)))
                mco[d] = rco[q++];
            else {
                mco[d] = 0;
                if (n->keepdims) q++;
            }
        }
        int64_t np = 0;
        for (int64_t gi = 0; gi < group;) {
            /* regions gi .. gi+k-1 (adjacent in C order over the reduced
             * axes) fuse into one map job while they are small */
            int64_t off[RED_FANIN][MR_MAXDIM], len[RED_FANIN][MR_MAXDIM], fused = 0;
            int64_t src[RED_FANIN];
            int k = 0;
            while (k < RED_FANIN && gi + k < group) {
                int64_t r = gi + k;
                for (int d = nd - 1; d >= 0; d--) {
                    if (axes & (1u << d)) {
                        mco[d] = r % M->nchunks[d];
                        r /= M->nchunks[d];
                    }
                }
                grid_region(M, mco, off[k], len[k]);
                src[k] = grid_index(M, mco);
                int64_t rb = prod(nd, len[k]) * (int64_t)dt_size(X->odtype);
                if (k > 0 && fused + rb > RED_FUSE_BYTES) break;
                fused += rb;
                k++;
            }
            int per = pa->prog ? b.n_leaves : 1;
            int32_t ji = tile__job_new(c, JK_RED_MAP, DT_BOOL, 1, bshape, per * k);
            if (ji < 0) goto fail;
            job_t *jb = &c->t->jobs[ji];
            jb->param = pa;
            jb->n_regions = k;
            jb->off = arena_alloc(c->t->arena, sizeof(int64_t) * (size_t)(nd * k + 1));
            if (pa->prog)
                jb->vshape = arena_alloc(c->t->arena, sizeof(int64_t) * (size_t)(nd * k + 1));
            for (int e = 0; e < k; e++) {
                jb = &c->t->jobs[ji]; /* making inputs may add jobs (and move them) */
                if (nd > 0) memcpy(jb->off + e * nd, off[e], sizeof(int64_t) * (size_t)nd);
                if (pa->prog) {
                    if (nd > 0) memcpy(jb->vshape + e * nd, len[e], sizeof(int64_t) * (size_t)nd);
                    if (ew_inputs(c, ji, e * per, &b, nd, off[e], len[e])) goto fail;
                } else if (c->gen[x]) {
                    tile__input_generated(c, ji, e, x, nd, off[e], len[e], X->odtype);
                } else {
                    tile__jin_direct(c, ji, e, M->job[src[e]]);
                }
            }
            parts[np++] = ji;
            gi += k;
        }
        int32_t fj =
            tile__reduce_tree(c, pa, parts, np, nbytes, true, n->odtype, n->oshape.ndim, rlen);
        if (fj < 0) goto fail;
        R->job[li] = fj;
    }
    free(parts);
    return R;
fail:
    free(parts);
    return NULL;
}

static tgrid_t *tile_scan(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    const tgrid_t *X = c->t->grid[n->in[0].node];
    int axis = 0;
    if (n->axis_all || X->shape.ndim == 0) {
        shape_t flat = {.ndim = 1, .d = {shape_size(&X->shape)}};
        X = grid_reshape(c, X, &flat);
        if (!X) return NULL;
    } else {
        axis = n->axis[0];
    }
    jparam_t *pa = tile__param_new(c, n->op);
    pa->axis = axis;
    pa->in_dt = X->dt;
    tgrid_t *R =
        grid_with_bounds(c, &X->shape, n->odtype, (const int64_t *const *)X->bounds, X->nchunks);
    if (!R) return NULL;
    int nd = X->shape.ndim;
    /* locals first, then carries and results along each line of chunks */
    int32_t *local = malloc(sizeof(int32_t) * (size_t)R->total);
    if (!local) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    for (int64_t li = 0; li < R->total; li++) {
        const job_t *sj = &c->t->jobs[X->job[li]];
        int32_t ji = tile__job_new(c, JK_SCAN_LOCAL, n->odtype, nd, sj->shape, 1);
        if (ji < 0) goto fail;
        c->t->jobs[ji].param = pa;
        tile__jin_direct(c, ji, 0, X->job[li]);
        local[li] = ji;
    }
    for (int64_t li = 0; li < R->total; li++) {
        int64_t co[MR_MAXDIM];
        grid_coords(R, li, co);
        if (co[axis] != 0) continue;
        int32_t carry = -1;
        for (int64_t k = 0; k < R->nchunks[axis]; k++) {
            co[axis] = k;
            int64_t idx = grid_index(R, co);
            if (k == 0) {
                R->job[idx] = local[idx];
                continue;
            }
            co[axis] = k - 1;
            int64_t prev = grid_index(R, co);
            co[axis] = k;
            int64_t cshape[MR_MAXDIM];
            memcpy(cshape, c->t->jobs[local[idx]].shape, sizeof(int64_t) * (size_t)nd);
            cshape[axis] = 1;
            int32_t cj = tile__job_new(c, JK_SCAN_CARRY, n->odtype, nd, cshape, carry >= 0 ? 2 : 1);
            if (cj < 0) goto fail;
            c->t->jobs[cj].param = pa;
            if (carry >= 0) {
                tile__jin_direct(c, cj, 0, carry);
                tile__jin_direct(c, cj, 1, local[prev]);
            } else {
                tile__jin_direct(c, cj, 0, local[prev]);
            }
            carry = cj;
            int32_t aj =
                tile__job_new(c, JK_SCAN_APPLY, n->odtype, nd, c->t->jobs[local[idx]].shape, 2);
            if (aj < 0) goto fail;
            c->t->jobs[aj].param = pa;
            tile__jin_direct(c, aj, 0, local[idx]);
            tile__jin_direct(c, aj, 1, carry);
            R->job[idx] = aj;
        }
    }
    free(local);
    return R;
fail:
    free(local);
    return NULL;
}

/* tensordot of grids A and B (same dtype) contracting ca[i] with cb[i]. */
static tgrid_t *grid_tensordot(tctx_t *c, const tgrid_t *A, const tgrid_t *B, int nc, const int *ca,
                               const int *cb, const shape_t *oshape, op_t op)
{
    bool sym = A == B && A->shape.ndim == 2 && nc == 1 && ca[0] == 1 && cb[0] == 1;
    for (int i = 0; i < nc; i++) {
        B = grid_align_axis(c, B, cb[i], A, ca[i]);
        if (!B) return NULL;
    }
    jparam_t *pa = tile__param_new(c, op);
    pa->td_n = nc;
    for (int i = 0; i < nc; i++) {
        pa->td_a[i] = ca[i];
        pa->td_b[i] = cb[i];
    }
    int fa[MR_MAXDIM], fb[MR_MAXDIM], nfa = 0, nfb = 0;
    for (int d = 0; d < A->shape.ndim; d++) {
        bool con = false;
        for (int i = 0; i < nc; i++)
            con |= ca[i] == d;
        if (!con) fa[nfa++] = d;
    }
    for (int d = 0; d < B->shape.ndim; d++) {
        bool con = false;
        for (int i = 0; i < nc; i++)
            con |= cb[i] == d;
        if (!con) fb[nfb++] = d;
    }
    int64_t *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    for (int i = 0; i < nfa; i++) {
        bounds[i] = A->bounds[fa[i]];
        nch[i] = A->nchunks[fa[i]];
    }
    for (int i = 0; i < nfb; i++) {
        bounds[nfa + i] = B->bounds[fb[i]];
        nch[nfa + i] = B->nchunks[fb[i]];
    }
    tgrid_t *R = grid_with_bounds(c, oshape, A->dt, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    int64_t ncomb = 1;
    for (int i = 0; i < nc; i++)
        ncomb *= A->nchunks[ca[i]];
    if (ncomb > INT32_MAX / 2) {
        tile__fail(c, "too many contracted chunks");
        return NULL;
    }
    int od = oshape->ndim;
    /* upper triangle and diagonal first when symmetric; the lower copies after */
    for (int pass = 0; pass < (sym ? 2 : 1); pass++) {
        for (int64_t li = 0; li < R->total; li++) {
            int64_t co[MR_MAXDIM], off[MR_MAXDIM], len[MR_MAXDIM];
            grid_coords(R, li, co);
            grid_region(R, co, off, len);
            if (sym && pass == 1) {
                if (co[0] <= co[1]) continue;
                int64_t tco[2] = {co[1], co[0]};
                int32_t src = R->job[grid_index(R, tco)];
                int32_t ji = tile__job_new(c, JK_GATHER, A->dt, 2, len, 1);
                if (ji < 0) return NULL;
                c->npv = 0;
                piece_t *p = pv_push(c);
                if (!p) return NULL;
                p->src = src;
                p->ndim = 2;
                p->count = arena_i64_copy(c, len, 2);
                p->src_stride = tile__arena_i64(c, 2);
                p->dst_stride = tile__arena_i64(c, 2);
                p->src_stride[0] = 1;
                p->src_stride[1] = len[0];
                p->dst_stride[0] = len[1];
                p->dst_stride[1] = 1;
                p->src_off = p->dst_off = 0;
                input_finish(c, ji, 0, 2, len, A->dt);
                R->job[li] = ji;
                continue;
            }
            if (sym && co[0] > co[1]) continue;
            bool diag = sym && co[0] == co[1];
            int32_t ji = tile__job_new(c, diag ? JK_SYRK : JK_TENSORDOT, A->dt, od, len,
                                       (int)(diag ? ncomb : 2 * ncomb));
            if (ji < 0) return NULL;
            c->t->jobs[ji].param = pa;
            int64_t aco[MR_MAXDIM], bco[MR_MAXDIM];
            for (int i = 0; i < nfa; i++)
                aco[fa[i]] = co[i];
            for (int i = 0; i < nfb; i++)
                bco[fb[i]] = co[nfa + i];
            for (int64_t k = 0; k < ncomb; k++) {
                int64_t r = k;
                for (int i = nc - 1; i >= 0; i--) {
                    aco[ca[i]] = bco[cb[i]] = r % A->nchunks[ca[i]];
                    r /= A->nchunks[ca[i]];
                }
                if (diag) {
                    tile__jin_direct(c, ji, (int)k, A->job[grid_index(A, aco)]);
                } else {
                    tile__jin_direct(c, ji, (int)(2 * k), A->job[grid_index(A, aco)]);
                    tile__jin_direct(c, ji, (int)(2 * k + 1), B->job[grid_index(B, bco)]);
                }
            }
            R->job[li] = ji;
        }
    }
    return R;
}

/* matmul with batch axes (at least one operand of ndim > 2). */
static tgrid_t *grid_matmul(tctx_t *c, const tgrid_t *A, const tgrid_t *B, const shape_t *oshape)
{
    int an = A->shape.ndim, bn = B->shape.ndim, on = oshape->ndim;
    /* align the contracted axis and the batch axes where both span them */
    B = grid_align_axis(c, B, bn - 2, A, an - 1);
    if (!B) return NULL;
    for (int d = 0; d < on - 2; d++) {
        int ea = d - (on - an), eb = d - (on - bn);
        if (ea >= 0 && eb >= 0 && A->shape.d[ea] != 1 && B->shape.d[eb] != 1) {
            B = grid_align_axis(c, B, eb, A, ea);
            if (!B) return NULL;
        }
    }
    int64_t *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    static const int64_t one[2] = {0, 1};
    for (int d = 0; d < on - 2; d++) {
        int ea = d - (on - an), eb = d - (on - bn);
        if (ea >= 0 && A->shape.d[ea] == oshape->d[d]) {
            bounds[d] = A->bounds[ea];
            nch[d] = A->nchunks[ea];
        } else if (eb >= 0 && B->shape.d[eb] == oshape->d[d]) {
            bounds[d] = B->bounds[eb];
            nch[d] = B->nchunks[eb];
        } else {
            bounds[d] = (int64_t *)one;
            nch[d] = 1;
        }
    }
    bounds[on - 2] = A->bounds[an - 2];
    nch[on - 2] = A->nchunks[an - 2];
    bounds[on - 1] = B->bounds[bn - 1];
    nch[on - 1] = B->nchunks[bn - 1];
    tgrid_t *R = grid_with_bounds(c, oshape, A->dt, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    jparam_t *pa = tile__param_new(c, OP_MATMUL);
    int64_t nk = A->nchunks[an - 1];
    for (int64_t li = 0; li < R->total; li++) {
        int64_t co[MR_MAXDIM], off[MR_MAXDIM], len[MR_MAXDIM];
        grid_coords(R, li, co);
        grid_region(R, co, off, len);
        int32_t ji = tile__job_new(c, JK_MATMUL, A->dt, on, len, (int)(2 * nk));
        if (ji < 0) return NULL;
        c->t->jobs[ji].param = pa;
        int64_t aco[MR_MAXDIM], bco[MR_MAXDIM];
        for (int d = 0; d < on - 2; d++) {
            int ea = d - (on - an), eb = d - (on - bn);
            if (ea >= 0) aco[ea] = A->shape.d[ea] == 1 ? 0 : co[d];
            if (eb >= 0) bco[eb] = B->shape.d[eb] == 1 ? 0 : co[d];
        }
        aco[an - 2] = co[on - 2];
        bco[bn - 1] = co[on - 1];
        for (int64_t k = 0; k < nk; k++) {
            aco[an - 1] = k;
            bco[bn - 2] = k;
            tile__jin_direct(c, ji, (int)(2 * k), A->job[grid_index(A, aco)]);
            tile__jin_direct(c, ji, (int)(2 * k + 1), B->job[grid_index(B, bco)]);
        }
        R->job[li] = ji;
    }
    return R;
}

/* A transpose node of a's 2-D reversal that only feeds this product. */
static bool is_plain_transpose_of(tctx_t *c, int tnode, int a)
{
    const graph_node_t *T = &c->g->nodes[tnode];
    return T->op == OP_TRANSPOSE && T->in[0].node == a && T->oshape.ndim == 2 && T->perm[0] == 1 &&
           T->perm[1] == 0;
}

static tgrid_t *tile_linalg(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    int an = n->in[0].node, bn = n->in[1].node;
    const graph_node_t *Xa = &c->g->nodes[an], *Xb = &c->g->nodes[bn];
    const tgrid_t *A, *B;
    /* x . x^T (dot or matmul of a 2-D a with its transpose) is inner(a, a):
     * the transpose is never materialised and symmetric blocks are computed once */
    if ((n->op == OP_DOT || n->op == OP_MATMUL) && Xa->oshape.ndim == 2 &&
        is_plain_transpose_of(c, bn, an)) {
        A = grid_astype(c, c->t->grid[an], n->odtype);
        if (!A) return NULL;
        int one = 1;
        return grid_tensordot(c, A, A, 1, &one, &one, &n->oshape, n->op);
    }
    if (c->skip[bn] || c->skip[an]) {
        tile__fail(c, "internal: operand not tiled");
        return NULL;
    }
    A = grid_astype(c, c->t->grid[an], n->odtype);
    B = an == bn ? A : grid_astype(c, c->t->grid[bn], n->odtype);
    if (!A || !B) return NULL;
    if (n->op == OP_OUTER) {
        shape_t fa = {.ndim = 1, .d = {shape_size(&Xa->oshape)}};
        shape_t fb = {.ndim = 1, .d = {shape_size(&Xb->oshape)}};
        const tgrid_t *RA = grid_reshape(c, A, &fa);
        const tgrid_t *RB = A == B ? RA : grid_reshape(c, B, &fb);
        if (!RA || !RB) return NULL;
        return grid_tensordot(c, RA, RB, 0, NULL, NULL, &n->oshape, n->op);
    }
    if (n->op == OP_MATMUL) {
        int na = A->shape.ndim, nb = B->shape.ndim;
        if (na <= 2 && nb <= 2) {
            int ca = na - 1, cb = 0; /* b's first axis: its only or second-to-last */
            return grid_tensordot(c, A, B, 1, &ca, &cb, &n->oshape, n->op);
        }
        /* 1-D operands take a size-1 axis for the product, dropped after */
        shape_t sa = A->shape, sb = B->shape, so = n->oshape;
        if (na == 1) {
            sa = (shape_t){.ndim = 2, .d = {1, A->shape.d[0]}};
            A = grid_reshape(c, A, &sa);
        }
        if (nb == 1) {
            sb = (shape_t){.ndim = 2, .d = {B->shape.d[0], 1}};
            B = grid_reshape(c, B, &sb);
        }
        if (!A || !B) return NULL;
        if (na == 1 || nb == 1) {
            /* the full result shape with the size-1 axes back in place */
            int bat = (A->shape.ndim > B->shape.ndim ? A->shape.ndim : B->shape.ndim) - 2;
            so.ndim = bat + 2;
            for (int d = 0; d < bat; d++)
                so.d[d] = n->oshape.d[d];
            so.d[bat] = na == 1 ? 1 : A->shape.d[A->shape.ndim - 2];
            so.d[bat + 1] = nb == 1 ? 1 : B->shape.d[B->shape.ndim - 1];
        }
        tgrid_t *R = grid_matmul(c, A, B, &so);
        if (!R) return NULL;
        return grid_reshape(c, R, &n->oshape);
    }
    return grid_tensordot(c, A, B, n->td_n, n->td_a, n->td_b, &n->oshape, n->op);
}

static tgrid_t *tile_getitem(tctx_t *c, const graph_node_t *n, const tgrid_t *G)
{
    int nd = G->shape.ndim;
    int64_t *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    int od = 0;
    for (int d = 0; d < nd; d++) {
        index_t ix;
        if (d < n->n_index)
            ix = n->index[d];
        else
            ix = (index_t){.is_int = false,
                           .start = 0,
                           .stop = G->shape.d[d],
                           .step = 1,
                           .len = G->shape.d[d]};
        if (ix.is_int) continue;
        /* one output chunk per input chunk that holds selected positions */
        int64_t *b = arena_alloc(c->t->arena, sizeof(int64_t) * (size_t)(G->nchunks[d] + 2));
        int64_t m = 0;
        b[0] = 0;
        if (ix.len > 0) {
            seg_t *segs;
            int64_t ns;
            if (split_axis(G->bounds[d], G->nchunks[d], ix.start, ix.step, ix.len, &segs, &ns)) {
                tile__fail(c, "out of memory while tiling");
                return NULL;
            }
            /* segments come in chunk order; i ranges ascend for positive steps */
            if (ix.step < 0) {
                for (int64_t s = ns - 1; s >= 0; s--)
                    b[++m] = segs[s].i1;
            } else {
                for (int64_t s = 0; s < ns; s++)
                    b[++m] = segs[s].i1;
            }
            free(segs);
        } else {
            b[++m] = 0;
        }
        bounds[od] = b;
        nch[od++] = m;
    }
    tgrid_t *R = grid_with_bounds(c, &n->oshape, G->dt, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    for (int64_t li = 0; li < R->total; li++) {
        int64_t co[MR_MAXDIM], off[MR_MAXDIM], len[MR_MAXDIM], ost[MR_MAXDIM];
        int64_t start[MR_MAXDIM], step[MR_MAXDIM], cnt[MR_MAXDIM], dst[MR_MAXDIM];
        grid_coords(R, li, co);
        grid_region(R, co, off, len);
        c_strides(od, len, ost);
        int q = 0;
        for (int d = 0; d < nd; d++) {
            index_t ix;
            if (d < n->n_index)
                ix = n->index[d];
            else
                ix = (index_t){.is_int = false, .start = 0, .step = 1, .len = G->shape.d[d]};
            if (ix.is_int) {
                start[d] = ix.i;
                step[d] = 1;
                cnt[d] = 1;
                dst[d] = 0;
            } else {
                start[d] = ix.start + ix.step * off[q];
                step[d] = ix.step;
                cnt[d] = len[q];
                dst[d] = ost[q];
                q++;
            }
        }
        int32_t ji = gather_job(c, G, od, len, start, step, cnt, dst);
        if (ji < 0) return NULL;
        R->job[li] = ji;
    }
    return R;
}

static tgrid_t *tile_shape_op(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    const tgrid_t *G = c->t->grid[n->in[0].node];
    switch (n->op) {
    case OP_TRANSPOSE:
        return grid_transpose(c, G, n->perm);
    case OP_RESHAPE:
    case OP_RAVEL:
    case OP_SQUEEZE:
    case OP_EXPAND_DIMS:
        return grid_reshape(c, G, &n->oshape);
    case OP_GETITEM:
        return tile_getitem(c, n, G);
    case OP_RECHUNK: {
        int64_t nch[MR_MAXDIM];
        int64_t *b[MR_MAXDIM];
        for (int d = 0; d < n->oshape.ndim; d++) {
            bounds_uniform(n->oshape.d[d], n->chunk[d], &nch[d]);
            b[d] = arena_alloc(c->t->arena, sizeof(int64_t) * (size_t)(nch[d] + 1));
            for (int64_t k = 0; k <= nch[d]; k++)
                b[d][k] = k * n->chunk[d] < n->oshape.d[d] ? k * n->chunk[d] : n->oshape.d[d];
        }
        return grid_rechunk(c, G, b, nch);
    }
    case OP_CONCATENATE:
    case OP_STACK: {
        tgrid_t **in = malloc(sizeof(tgrid_t *) * (size_t)n->n_in);
        if (!in) {
            tile__fail(c, "out of memory while tiling");
            return NULL;
        }
        /* concatenate with axis null joins the flattened inputs */
        bool flat = n->op == OP_CONCATENATE && n->axis_all;
        int axis = flat ? 0 : n->axis[0];
        tgrid_t *R = NULL;
        for (int k = 0; k < n->n_in; k++) {
            const tgrid_t *X = grid_astype(c, c->t->grid[n->in[k].node], n->odtype);
            if (X && flat) {
                shape_t s = {.ndim = 1, .d = {shape_size(&X->shape)}};
                X = grid_reshape(c, X, &s);
            }
            if (X && n->op == OP_STACK) {
                shape_t s = {.ndim = X->shape.ndim + 1};
                for (int d = 0, e = 0; d < s.ndim; d++)
                    s.d[d] = d == axis ? 1 : X->shape.d[e++];
                X = grid_reshape(c, X, &s);
            }
            if (!X) goto cat_done;
            in[k] = (tgrid_t *)X;
        }
        /* other axes follow the first input's chunking */
        for (int k = 1; k < n->n_in; k++) {
            for (int d = 0; d < n->oshape.ndim; d++) {
                if (d == axis) continue;
                in[k] = grid_align_axis(c, in[k], d, in[0], d);
                if (!in[k]) goto cat_done;
            }
        }
        R = grid_concat(c, in, n->n_in, axis, &n->oshape);
    cat_done:
        free(in);
        return R;
    }
    default:
        tile__fail(c, "internal: not a shape op");
        return NULL;
    }
}

/* ------------------------------------------------------------------ driver */

void tile_opts_default(tile_opts_t *o)
{
    /* 16 MiB: large enough that per-chunk overhead is negligible, small
     * enough that a 2-core machine gets work for both cores on modest arrays */
    o->target_chunk_bytes = 16 << 20;
    o->keep_all = false;
    o->source_bounds = NULL;
    o->source_ctx = NULL;
}

static void plan_fusion(tctx_t *c)
{
    const graph_t *g = c->g;
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node_t *n = &g->nodes[i];
        bool ew = op_is_elementwise(n->op);
        op_kind_t k = op_kind(n->op);
        if (!ew && k != OPK_REDUCE && k != OPK_ARGREDUCE) continue;
        int cost = 4;
        bool any = false;
        for (int j = 0; j < n->n_in; j++) {
            int m = n->in[j].node;
            if (m >= 0 && fusable_into(c, m, i)) {
                cost += c->cost[m];
                any = true;
            } else {
                cost += 2;
            }
        }
        if (any && cost <= FUSE_MAX_COST) {
            for (int j = 0; j < n->n_in; j++) {
                int m = n->in[j].node;
                if (m >= 0 && fusable_into(c, m, i)) c->fused[m] = true;
            }
            c->cost[i] = cost;
        } else {
            c->cost[i] = 4 + 2 * n->n_in;
        }
    }
}

/* Marks the creation and random nodes whose values can be generated inside
 * their only consumer's jobs (element-wise programs and reduction maps read
 * their leaves by region): their chunks then never exist. */
static void plan_generated(tctx_t *c)
{
    const graph_t *g = c->g;
    if (c->opts->keep_all) return;
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node_t *n = &g->nodes[i];
        for (int j = 0; j < n->n_in; j++) {
            int m = n->in[j].node;
            if (m < 0) continue;
            const graph_node_t *M = &g->nodes[m];
            op_kind_t mk = op_kind(M->op), nk = op_kind(n->op);
            if ((mk == OPK_CREATE || mk == OPK_RANDOM) && !M->fetch && M->n_consumers == 1 &&
                (((op_is_elementwise(n->op) || nk == OPK_REDUCE || nk == OPK_ARGREDUCE) &&
                  !n->df) ||
                 n->op == OP_DF_FROM_TENSOR))
                c->gen[m] = true;
        }
    }
}

/* Marks the transposes that only feed x . x^T products: never tiled. */
static void plan_skips(tctx_t *c)
{
    const graph_t *g = c->g;
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node_t *n = &g->nodes[i];
        if ((n->op == OP_DOT || n->op == OP_MATMUL) && n->in[0].node >= 0 &&
            g->nodes[n->in[0].node].oshape.ndim == 2 &&
            is_plain_transpose_of(c, n->in[1].node, n->in[0].node)) {
            int t = n->in[1].node;
            if (!g->nodes[t].fetch && g->nodes[t].n_consumers == 1 && !c->opts->keep_all)
                c->skip[t] = true;
        }
    }
}

static void mark_live(tile_t *t)
{
    for (int32_t j = 0; j < t->n_jobs; j++)
        t->live[j] = t->jobs[j].keep;
    for (int32_t j = t->n_jobs - 1; j >= 0; j--) {
        if (!t->live[j]) continue;
        const job_t *jb = &t->jobs[j];
        for (int k = 0; k < jb->n_in; k++) {
            const jin_t *in = &jb->in[k];
            if (in->job >= 0) t->live[in->job] = 1;
            for (int p = 0; p < in->n_pieces; p++)
                t->live[in->pieces[p].src] = 1;
        }
    }
}

int tile_build(const graph_t *g, const graph_limits_t *lim, const tile_opts_t *opts, tile_t **out,
               char *err, size_t errlen)
{
    tile_opts_t defo;
    if (!opts) {
        tile_opts_default(&defo);
        opts = &defo;
    }
    tctx_t c = {.g = g, .lim = lim, .opts = opts, .err = err, .errlen = errlen};
    tile_t *t = calloc(1, sizeof(tile_t));
    c.fused = calloc((size_t)g->n_nodes + 1, sizeof(bool));
    c.skip = calloc((size_t)g->n_nodes + 1, sizeof(bool));
    c.cost = calloc((size_t)g->n_nodes + 1, sizeof(int));
    c.gen = calloc((size_t)g->n_nodes + 1, sizeof(bool));
    if (!t || !c.fused || !c.skip || !c.cost || !c.gen) goto oom;
    t->g = g;
    t->arena = arena_create();
    t->grid = calloc((size_t)g->n_nodes + 1, sizeof(tgrid_t *));
    if (!t->arena || !t->grid) goto oom;
    c.t = t;
    plan_fusion(&c);
    plan_skips(&c);
    plan_generated(&c);
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node_t *n = &g->nodes[i];
        c.node = i;
        if (c.fused[i] || c.skip[i]) continue;
        tgrid_t *G = NULL;
        if (n->df || op_kind(n->op) == OPK_DF) {
            if (!(G = tile_df(&c, i))) goto fail;
            t->grid[i] = G;
            if (n->fetch || opts->keep_all)
                for (int64_t k = 0; k < G->total; k++)
                    t->jobs[G->job[k]].keep = true;
            continue;
        }
        switch (op_kind(n->op)) {
        case OPK_DF:
            break;
        case OPK_CREATE:
            G = tile_create(&c, n, JK_CREATE);
            break;
        case OPK_RANDOM:
            G = tile_create(&c, n, JK_RANDOM);
            break;
        case OPK_SOURCE:
            G = tile_create(&c, n, JK_SOURCE);
            break;
        case OPK_UNARY:
        case OPK_BINARY:
        case OPK_WHERE:
        case OPK_CLIP:
        case OPK_ASTYPE:
            G = tile_ew(&c, i);
            break;
        case OPK_REDUCE:
        case OPK_ARGREDUCE:
            G = tile_reduce(&c, i);
            break;
        case OPK_SCAN:
            G = tile_scan(&c, i);
            break;
        case OPK_LINALG:
            G = tile_linalg(&c, i);
            break;
        case OPK_SHAPE:
            G = tile_shape_op(&c, i);
            break;
        }
        if (!G) goto fail;
        if (!shape_eq(&G->shape, &n->oshape) || G->dt != n->odtype) {
            tile__fail(&c, "internal: tiled shape or dtype differs from the inferred one");
            goto fail;
        }
        t->grid[i] = G;
        if (n->fetch || opts->keep_all)
            for (int64_t k = 0; k < G->total; k++)
                t->jobs[G->job[k]].keep = true;
    }
    t->live = calloc((size_t)t->n_jobs + 1, 1);
    if (!t->live) goto oom;
    mark_live(t);
    free(c.fused);
    free(c.skip);
    free(c.cost);
    free(c.gen);
    free(c.pv);
    *out = t;
    return 0;
oom:
    snprintf(err, errlen, "document: out of memory while tiling");
fail:
    free(c.fused);
    free(c.skip);
    free(c.cost);
    free(c.gen);
    free(c.pv);
    tile_free(t);
    return -1;
}

void tile_free(tile_t *t)
{
    if (!t) return;
    arena_destroy(t->arena);
    free(t->jobs);
    free(t->grid);
    free(t->live);
    free(t);
}

/* ------------------------------------------------------------------ gather */

static void copy_box(const piece_t *p, int d, const char *src, char *dst, size_t es)
{
    int64_t n = p->count[d];
    int64_t ss = p->src_stride[d] * (int64_t)es, ds = p->dst_stride[d] * (int64_t)es;
    if (d == p->ndim - 1) {
        if (ss == (int64_t)es && ds == (int64_t)es) {
            memcpy(dst, src, (size_t)n * es);
            return;
        }
        switch (es) {
        case 8:
            for (int64_t i = 0; i < n; i++)
                memcpy(dst + i * ds, src + i * ss, 8);
            break;
        case 4:
            for (int64_t i = 0; i < n; i++)
                memcpy(dst + i * ds, src + i * ss, 4);
            break;
        default:
            for (int64_t i = 0; i < n; i++)
                dst[i * ds] = src[i * ss];
            break;
        }
        return;
    }
    for (int64_t i = 0; i < n; i++)
        copy_box(p, d + 1, src + i * ss, dst + i * ds, es);
}

void tile_gather(const jin_t *in, const void *const *srcs_by_piece, void *dst)
{
    size_t es = dt_size(in->dt);
    for (int32_t k = 0; k < in->n_pieces; k++) {
        const piece_t *p = &in->pieces[k];
        const char *s = (const char *)srcs_by_piece[k] + p->src_off * (int64_t)es;
        char *d = (char *)dst + p->dst_off * (int64_t)es;
        if (p->ndim == 0) {
            memcpy(d, s, es);
            continue;
        }
        bool empty = false;
        for (int a = 0; a < p->ndim; a++)
            empty |= p->count[a] == 0;
        if (!empty) copy_box(p, 0, s, d, es);
    }
}
