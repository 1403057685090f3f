/* la.c: the linalg branch's ops into chunk jobs (graph_la.h, kern/la.h).
 *
 *   linalg.cholesky (2-D)  blocked, right-looking: the matrix is cut into
 *                          square blocks (the row chunks, at most
 *                          LA_CHOL_MAX_BLOCKS a side); per step k a potrf job
 *                          on the diagonal block, a trsm job per block below
 *                          it, and an update job (A_ij -= L_ik L_jkᵀ) per
 *                          block of the trailing lower triangle; upper blocks
 *                          are zero jobs
 *   diagonal, trace,       gathers: each output chunk copies one strided run
 *   diag (2-D)             of one input chunk (no kernel); trace sums the
 *                          runs of each output position in one job
 *   tril, triu             one job per chunk, masked by its global offset
 *   diag (1-D)             one job per output chunk, with the run of v on it
 *   vdot                   both raveled, aligned, one tensordot job over the
 *                          pairs of chunks
 *   solve, inv, det, norm, single block: the inputs gathered whole into one
 *   matrix_rank, einsum,   job (at most LA_SINGLE_MAX_ELEMS elements, else
 *   cholesky (stacked)     the node is refused), one output chunk
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arena.h"
#include "../graph_la.h"
#include "../kern/la.h"
#include "tile_priv.h"

/* Cholesky's blocks a side: nb^3/6 update jobs. */
#define LA_CHOL_MAX_BLOCKS 32

bool tile_la_owns(op_t op)
{
    return graph_la_owns(op);
}

static const tgrid_t *in_grid(tctx_t *c, const graph_node_t *n, int k)
{
    const tgrid_t *G = c->t->grid[n->in[k].node];
    if (!G) tile__fail(c, "internal: operand %d not tiled", k);
    return G;
}

static jparam_t *la_param(tctx_t *c, op_t op, la_step_t step)
{
    jparam_t *p = tile__param_new(c, op);
    p->la_step = step;
    return p;
}

/* A grid of one chunk. */
static tgrid_t *one_chunk(tctx_t *c, const shape_t *s, dtype_t dt)
{
    int64_t nch[MR_MAXDIM];
    for (int d = 0; d < s->ndim; d++)
        nch[d] = 1;
    tgrid_t *G = tile__grid_alloc(c, s, dt, nch);
    if (!G) return NULL;
    for (int d = 0; d < s->ndim; d++) {
        G->bounds[d][0] = 0;
        G->bounds[d][1] = s->d[d];
    }
    return G;
}

/* Input k of ji: the whole of G, its axes permuted (perm NULL: as is). */
static int input_whole(tctx_t *c, int32_t ji, int k, const tgrid_t *G, const int *perm)
{
    int nd = G->shape.ndim;
    int64_t start[MR_MAXDIM], step[MR_MAXDIM], cnt[MR_MAXDIM], dst[MR_MAXDIM], os[MR_MAXDIM],
        ost[MR_MAXDIM];
    for (int j = 0; j < nd; j++)
        os[j] = G->shape.d[perm ? perm[j] : j];
    c_strides(nd, os, ost);
    for (int d = 0; d < nd; d++) {
        start[d] = 0;
        step[d] = 1;
        cnt[d] = G->shape.d[d];
    }
    for (int j = 0; j < nd; j++)
        dst[perm ? perm[j] : j] = ost[j];
    c->npv = 0;
    if (add_region(c, G, start, step, cnt, dst, 0)) return -1;
    input_finish(c, ji, k, nd, os, G->dt);
    return 0;
}

static int check_single(tctx_t *c, const graph_node_t *n, int64_t elems)
{
    if (elems > LA_SINGLE_MAX_ELEMS)
        return tile__fail(c,
                          "%s gathers its inputs whole into one job: %lld elements, more than "
                          "the single-block limit of %lld (LA_SINGLE_MAX_ELEMS)",
                          op_name(n->op), (long long)elems, (long long)LA_SINGLE_MAX_ELEMS);
    return 0;
}

/* The single-block path: every input whole (cast to in_dt unless it is
 * DT_NTYPES; input 0's axes permuted by perm0) into one job of the whole
 * output. */
static tgrid_t *tile_whole(tctx_t *c, const graph_node_t *n, dtype_t in_dt, const int *perm0)
{
    int64_t elems = 0;
    const tgrid_t *G[LA_EINSUM_MAX_OPERANDS];
    for (int k = 0; k < n->n_in; k++) {
        if (!(G[k] = in_grid(c, n, k))) return NULL;
        elems += shape_size(&G[k]->shape);
    }
    if (check_single(c, n, elems) < 0) return NULL;
    for (int k = 0; k < n->n_in; k++)
        if (in_dt != DT_NTYPES && !(G[k] = grid_astype(c, G[k], in_dt))) return NULL;
    tgrid_t *R = one_chunk(c, &n->oshape, n->odtype);
    if (!R) return NULL;
    int32_t ji = tile__job_new(c, JK_LA, n->odtype, n->oshape.ndim, n->oshape.d, n->n_in);
    if (ji < 0) return NULL;
    c->t->jobs[ji].param = la_param(c, n->op, LS_WHOLE);
    for (int k = 0; k < n->n_in; k++)
        if (input_whole(c, ji, k, G[k], k == 0 ? perm0 : NULL)) return NULL;
    R->job[0] = ji;
    return R;
}

/* ---------------------------------------------------------------- cholesky */

static tgrid_t *tile_cholesky(tctx_t *c, const graph_node_t *n)
{
    const tgrid_t *A0 = in_grid(c, n, 0);
    if (!A0) return NULL;
    const tgrid_t *A = grid_astype(c, A0, n->odtype);
    if (!A) return NULL;
    int64_t m = A->shape.d[0];
    /* square blocks: the row chunks, or even blocks when there are too many */
    int64_t nb = A->nchunks[0];
    int64_t *b = A->bounds[0];
    if (nb > LA_CHOL_MAX_BLOCKS) {
        int64_t bs = (m + LA_CHOL_MAX_BLOCKS - 1) / LA_CHOL_MAX_BLOCKS;
        bounds_uniform(m, bs, &nb);
        b = tile__arena_i64(c, (int)nb + 1);
        for (int64_t k = 0; k <= nb; k++)
            b[k] = k * bs < m ? k * bs : m;
    }
    int64_t *bb[2] = {b, b}, nch[2] = {nb, nb};
    A = grid_rechunk(c, A, bb, nch);
    if (!A) return NULL;
    tgrid_t *R = grid_with_bounds(c, &n->oshape, n->odtype, (const int64_t *const *)bb, nch);
    if (!R) return NULL;
    if (m == 0) {
        /* one empty block */
        int64_t z[2] = {0, 0};
        int32_t ji = tile__job_new(c, JK_LA, n->odtype, 2, z, 0);
        if (ji < 0) return NULL;
        c->t->jobs[ji].param = la_param(c, n->op, LS_ZERO);
        R->job[0] = ji;
        return R;
    }
    int32_t *cur = arena_alloc(c->t->arena, sizeof(int32_t) * (size_t)(nb * nb));
    for (int64_t i = 0; i < nb * nb; i++)
        cur[i] = A->job[i];
    const jparam_t *pp = la_param(c, n->op, LS_POTRF), *pt = la_param(c, n->op, LS_TRSM),
                   *pu = la_param(c, n->op, LS_UPDATE), *pz = la_param(c, n->op, LS_ZERO);
#define BLEN(i) (b[(i) + 1] - b[(i)])
    for (int64_t k = 0; k < nb; k++) {
        int64_t sk[2] = {BLEN(k), BLEN(k)};
        int32_t lkk = tile__job_new(c, JK_LA, n->odtype, 2, sk, 1);
        if (lkk < 0) return NULL;
        c->t->jobs[lkk].param = pp;
        tile__jin_direct(c, lkk, 0, cur[k * nb + k]);
        R->job[k * nb + k] = lkk;
        for (int64_t i = k + 1; i < nb; i++) {
            int64_t s[2] = {BLEN(i), BLEN(k)};
            int32_t ji = tile__job_new(c, JK_LA, n->odtype, 2, s, 2);
            if (ji < 0) return NULL;
            c->t->jobs[ji].param = pt;
            tile__jin_direct(c, ji, 0, cur[i * nb + k]);
            tile__jin_direct(c, ji, 1, lkk);
            R->job[i * nb + k] = ji;
        }
        for (int64_t i = k + 1; i < nb; i++)
            for (int64_t j = k + 1; j <= i; j++) {
                int64_t s[2] = {BLEN(i), BLEN(j)};
                int32_t ji = tile__job_new(c, JK_LA, n->odtype, 2, s, 3);
                if (ji < 0) return NULL;
                c->t->jobs[ji].param = pu;
                tile__jin_direct(c, ji, 0, cur[i * nb + j]);
                tile__jin_direct(c, ji, 1, R->job[i * nb + k]);
                tile__jin_direct(c, ji, 2, R->job[j * nb + k]);
                cur[i * nb + j] = ji;
            }
    }
    for (int64_t i = 0; i < nb; i++)
        for (int64_t j = i + 1; j < nb; j++) {
            int64_t s[2] = {BLEN(i), BLEN(j)};
            int32_t ji = tile__job_new(c, JK_LA, n->odtype, 2, s, 0);
            if (ji < 0) return NULL;
            c->t->jobs[ji].param = pz;
            R->job[i * nb + j] = ji;
        }
#undef BLEN
    return R;
}

/* ---------------------------------------------------------------- diagonals */

/* One strided run of the diagonal of G (axes a, b, offset k): lead axes box
 * [loff, loff+llen), diagonal positions [t0, t1), from the single chunk
 * holding it, as the pieces of input k of job ji (output layout: lead...,
 * t). */
static int diag_input(tctx_t *c, int32_t ji, int k, const tgrid_t *G, int a, int b, int64_t rk,
                      int64_t ck, const int64_t *loff, const int64_t *llen, int64_t t0, int64_t t1)
{
    int nd = G->shape.ndim, nl = nd - 2;
    int64_t oshape[MR_MAXDIM], ost[MR_MAXDIM];
    for (int i = 0; i < nl; i++)
        oshape[i] = llen[i];
    oshape[nl] = t1 - t0;
    c_strides(nl + 1, oshape, ost);
    c->npv = 0;
    bool empty = t1 <= t0;
    for (int i = 0; i < nl; i++)
        empty |= llen[i] == 0;
    if (!empty) {
        int64_t co[MR_MAXDIM], sshape[MR_MAXDIM], sst[MR_MAXDIM], pos[MR_MAXDIM];
        for (int d = 0, l = 0; d < nd; d++) {
            pos[d] = d == a ? t0 + rk : d == b ? t0 + ck : loff[l++];
            co[d] = chunk_of(G->bounds[d], G->nchunks[d], pos[d]);
            sshape[d] = G->bounds[d][co[d] + 1] - G->bounds[d][co[d]];
        }
        c_strides(nd, sshape, sst);
        piece_t *p = pv_push(c);
        if (!p) return tile__fail(c, "out of memory while tiling");
        p->src = G->job[grid_index(G, co)];
        p->ndim = nl + 1;
        p->count = arena_i64_copy(c, oshape, nl + 1);
        p->src_stride = tile__arena_i64(c, nl + 1);
        p->dst_stride = arena_i64_copy(c, ost, nl + 1);
        p->src_off = 0;
        p->dst_off = 0;
        for (int d = 0, l = 0; d < nd; d++) {
            p->src_off += (pos[d] - G->bounds[d][co[d]]) * sst[d];
            if (d != a && d != b) p->src_stride[l++] = sst[d];
        }
        p->src_stride[nl] = sst[a] + sst[b];
    }
    input_finish(c, ji, k, nl + 1, oshape, G->dt);
    return 0;
}

/* Appends to pts the positions t in (0, len) where rows t + rk cross a bound. */
static int64_t crossings(const tgrid_t *G, int d, int64_t shift, int64_t len, int64_t *pts,
                         int64_t np)
{
    for (int64_t q = 1; q < G->nchunks[d]; q++) {
        int64_t t = G->bounds[d][q] - shift;
        if (t > 0 && t < len) pts[np++] = t;
    }
    return np;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

/* diagonal (trace when sum): G's axes a and b, offset k. */
static tgrid_t *tile_diag_of(tctx_t *c, const graph_node_t *n, const tgrid_t *G, int a, int b,
                             int64_t k, bool sum)
{
    int nd = G->shape.ndim, nl = nd - 2;
    int64_t len = sum ? 0 : n->oshape.d[n->oshape.ndim - 1];
    if (sum) {
        /* the diagonal's length, as graph_la.c computes it */
        int64_t r = G->shape.d[a], cc = G->shape.d[b];
        len = k >= 0 ? (cc - k < r ? cc - k : r) : (r + k < cc ? r + k : cc);
        if (k > cc || -k > r || len < 0) len = 0;
    }
    int64_t rk = k < 0 ? -k : 0, ck = k > 0 ? k : 0;
    int64_t *pts = tile__arena_i64(c, (int)(G->nchunks[a] + G->nchunks[b] + 2));
    int64_t np = 0;
    pts[np++] = 0;
    np = crossings(G, a, rk, len, pts, np);
    np = crossings(G, b, ck, len, pts, np);
    qsort(pts, (size_t)np, sizeof(int64_t), cmp_i64);
    int64_t nseg = 0;
    for (int64_t i = 0; i < np; i++)
        if (i == 0 || pts[i] != pts[i - 1]) pts[nseg++] = pts[i];
    pts[nseg] = len; /* segment s: [pts[s], pts[s+1]) */
    /* the lead axes' bounds, then the diagonal's */
    int64_t *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    for (int d = 0, l = 0; d < nd; d++)
        if (d != a && d != b) {
            bounds[l] = G->bounds[d];
            nch[l++] = G->nchunks[d];
        }
    bounds[nl] = pts;
    nch[nl] = nseg;
    if (!sum) {
        tgrid_t *R = grid_with_bounds(c, &n->oshape, G->dt, (const int64_t *const *)bounds, nch);
        if (!R) return NULL;
        for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
            int32_t ji = tile__job_new(c, JK_GATHER, G->dt, nl + 1, w.len, 1);
            if (ji < 0) return NULL;
            if (diag_input(c, ji, 0, G, a, b, rk, ck, w.off, w.len, w.off[nl],
                           w.off[nl] + w.len[nl]))
                return NULL;
            R->job[w.li] = ji;
        }
        return R;
    }
    /* trace: one job per chunk of the lead axes, summing every segment */
    tgrid_t *R = grid_with_bounds(c, &n->oshape, n->odtype, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    if (nseg > INT32_MAX / 4) {
        tile__fail(c, "too many diagonal segments");
        return NULL;
    }
    const jparam_t *pa = la_param(c, n->op, LS_TRACE);
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int32_t ji = tile__job_new(c, JK_LA, n->odtype, nl, w.len, (int)nseg);
        if (ji < 0) return NULL;
        c->t->jobs[ji].param = pa;
        for (int64_t s = 0; s < nseg; s++)
            if (diag_input(c, ji, (int)s, G, a, b, rk, ck, w.off, w.len, pts[s], pts[s + 1]))
                return NULL;
        R->job[w.li] = ji;
    }
    return R;
}

/* ---------------------------------------------------------------- diag, tril, triu */

static tgrid_t *tile_diag_vec(tctx_t *c, const graph_node_t *n, const tgrid_t *V)
{
    int64_t chunk[2];
    int64_t k = n->la->k, nv = V->shape.d[0];
    int64_t rk = k < 0 ? -k : 0, ck = k > 0 ? k : 0;
    default_chunks(&n->oshape, n->odtype, c->opts->target_chunk_bytes, chunk);
    tgrid_t *R = grid_regular(c, &n->oshape, n->odtype, chunk);
    if (!R) return NULL;
    const jparam_t *pa = la_param(c, n->op, LS_DIAG);
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int64_t i0 = w.off[0] - rk > w.off[1] - ck ? w.off[0] - rk : w.off[1] - ck;
        int64_t e0 = w.off[0] + w.len[0] - rk, e1 = w.off[1] + w.len[1] - ck;
        int64_t i1 = e0 < e1 ? e0 : e1;
        if (i0 < 0) i0 = 0;
        if (i1 > nv) i1 = nv;
        bool any = i1 > i0;
        int32_t ji = tile__job_new(c, JK_LA, n->odtype, 2, w.len, any ? 1 : 0);
        if (ji < 0) return NULL;
        job_t *j = &c->t->jobs[ji];
        j->param = pa;
        j->off = tile__arena_i64(c, 3);
        j->off[0] = w.off[0];
        j->off[1] = w.off[1];
        j->off[2] = i0;
        if (any) {
            int64_t o = i0, l = i1 - i0;
            if (tile__input_box(c, ji, 0, V, &o, &l)) return NULL;
        }
        R->job[w.li] = ji;
    }
    return R;
}

static tgrid_t *tile_tri(tctx_t *c, const graph_node_t *n, const tgrid_t *G)
{
    const jparam_t *pa = la_param(c, n->op, LS_TRI);
    int nd = n->oshape.ndim;
    tgrid_t *R;
    if (G->shape.ndim == 1) {
        /* rows: regular chunks as long as the columns' */
        int64_t mx = 1;
        for (int64_t q = 0; q < G->nchunks[0]; q++)
            if (G->bounds[0][q + 1] - G->bounds[0][q] > mx)
                mx = G->bounds[0][q + 1] - G->bounds[0][q];
        int64_t nr;
        bounds_uniform(G->shape.d[0], mx, &nr);
        int64_t *rb = tile__arena_i64(c, (int)nr + 1);
        for (int64_t q = 0; q <= nr; q++)
            rb[q] = q * mx < G->shape.d[0] ? q * mx : G->shape.d[0];
        int64_t *bounds[2] = {rb, G->bounds[0]}, nch[2] = {nr, G->nchunks[0]};
        R = grid_with_bounds(c, &n->oshape, n->odtype, (const int64_t *const *)bounds, nch);
    } else {
        R = grid_with_bounds(c, &n->oshape, n->odtype, (const int64_t *const *)G->bounds,
                             G->nchunks);
    }
    if (!R) return NULL;
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int32_t ji = tile__job_new(c, JK_LA, n->odtype, nd, w.len, 1);
        if (ji < 0) return NULL;
        job_t *j = &c->t->jobs[ji];
        j->param = pa;
        j->off = arena_i64_copy(c, w.off, nd);
        if (G->shape.ndim == 1) {
            if (tile__input_box(c, ji, 0, G, &w.off[1], &w.len[1])) return NULL;
        } else {
            tile__jin_direct(c, ji, 0, G->job[w.li]);
        }
        R->job[w.li] = ji;
    }
    return R;
}

/* ---------------------------------------------------------------- vdot */

static tgrid_t *tile_vdot(tctx_t *c, const graph_node_t *n)
{
    const tgrid_t *A = in_grid(c, n, 0), *B = in_grid(c, n, 1);
    if (!A || !B) return NULL;
    shape_t flat = {.ndim = 1, .d = {shape_size(&A->shape)}};
    if (!(A = grid_astype(c, A, n->odtype)) || !(B = grid_astype(c, B, n->odtype)) ||
        !(A = grid_reshape(c, A, &flat)) || !(B = grid_reshape(c, B, &flat)) ||
        !(B = grid_align_axis(c, B, 0, A, 0)))
        return NULL;
    tgrid_t *R = one_chunk(c, &n->oshape, n->odtype);
    if (!R) return NULL;
    jparam_t *pa = tile__param_new(c, OP_TENSORDOT);
    pa->td_n = 1;
    int64_t nk = A->nchunks[0];
    if (nk > INT32_MAX / 4) {
        tile__fail(c, "too many chunks");
        return NULL;
    }
    int32_t ji = tile__job_new(c, JK_TENSORDOT, n->odtype, 0, NULL, (int)(2 * nk));
    if (ji < 0) return NULL;
    c->t->jobs[ji].param = pa;
    for (int64_t k = 0; k < nk; k++) {
        tile__jin_direct(c, ji, (int)(2 * k), A->job[k]);
        tile__jin_direct(c, ji, (int)(2 * k + 1), B->job[k]);
    }
    R->job[0] = ji;
    return R;
}

/* ---------------------------------------------------------------- norm */

/* The norm of every element as one vector (axis null with ord null, "fro"
 * on a matrix or 2 on a vector): a sum-of-squares job per chunk, then one
 * job summing them and taking the square root. */
static tgrid_t *tile_norm_flat(tctx_t *c, const graph_node_t *n, const tgrid_t *G)
{
    if (G->total > INT32_MAX / 4) {
        tile__fail(c, "too many chunks");
        return NULL;
    }
    tgrid_t *R = one_chunk(c, &n->oshape, n->odtype);
    if (!R) return NULL;
    const jparam_t *pm = la_param(c, n->op, LS_SUMSQ), *pf = la_param(c, n->op, LS_NORM2);
    int32_t fj = -1;
    int64_t one = 1;
    int32_t *parts = arena_alloc(c->t->arena, sizeof(int32_t) * (size_t)(G->total ? G->total : 1));
    for (int64_t li = 0; li < G->total; li++) {
        int32_t ji = tile__job_new(c, JK_LA, DT_FLOAT64, 1, &one, 1);
        if (ji < 0) return NULL;
        c->t->jobs[ji].param = pm;
        tile__jin_direct(c, ji, 0, G->job[li]);
        parts[li] = ji;
    }
    fj = tile__job_new(c, JK_LA, n->odtype, n->oshape.ndim, n->oshape.d, (int)G->total);
    if (fj < 0) return NULL;
    c->t->jobs[fj].param = pf;
    for (int64_t li = 0; li < G->total; li++)
        tile__jin_direct(c, fj, (int)li, parts[li]);
    R->job[0] = fj;
    return R;
}

/* ---------------------------------------------------------------- einsum */

/* einsum lowered onto chunked ops where its subscripts allow: one operand
 * whose labels are distinct and all kept is a transpose; two operands with
 * distinct labels each, every shared label summed and every other kept, of
 * equal sizes (no broadcasting), are a tensordot over the shared labels,
 * then a transpose into the output's order. NULL with no message when the
 * subscripts need the single-block loop; NULL with a message on error
 * (c->err set). */
static tgrid_t *einsum_lowered(tctx_t *c, const graph_node_t *n, bool *lowered)
{
    const la_node_t *la = n->la;
    *lowered = false;
    if (la->n_opnd > 2) return NULL;
    const tgrid_t *G[2];
    int pos[2][256]; /* label -> axis of operand k, or -1 */
    for (int k = 0; k < la->n_opnd; k++) {
        if (!(G[k] = in_grid(c, n, k))) return NULL;
        for (int L = 0; L < 256; L++)
            pos[k][L] = -1;
        for (int d = 0; d < la->nlab[k]; d++) {
            unsigned char L = la->lab[k][d];
            if (pos[k][L] >= 0) return NULL; /* a diagonal */
            pos[k][L] = d;
        }
    }
    int opos[256];
    for (int L = 0; L < 256; L++)
        opos[L] = -1;
    for (int i = 0; i < la->nout; i++)
        opos[la->out[i]] = i;
    int perm[MR_MAXDIM];
    if (la->n_opnd == 1) {
        if (la->nout != la->nlab[0]) return NULL; /* a sum */
        for (int i = 0; i < la->nout; i++)
            perm[i] = pos[0][la->out[i]];
        *lowered = true;
        const tgrid_t *A = grid_astype(c, G[0], n->odtype);
        return A ? grid_transpose(c, A, perm) : NULL;
    }
    int ca[MR_MAXDIM], cb[MR_MAXDIM], nc = 0;
    unsigned char rl[MR_MAXDIM]; /* the tensordot's labels: a's free, then b's free */
    int nr = 0;
    for (int k = 0; k < 2; k++)
        for (int d = 0; d < la->nlab[k]; d++) {
            unsigned char L = la->lab[k][d];
            int other = pos[1 - k][L];
            if (other >= 0) {
                if (opos[L] >= 0) return NULL; /* a batch label */
                if (G[0]->shape.d[pos[0][L]] != G[1]->shape.d[pos[1][L]]) return NULL;
                if (k == 0) {
                    ca[nc] = d;
                    cb[nc++] = other;
                }
            } else {
                if (opos[L] < 0) return NULL; /* summed within one operand */
                rl[nr++] = L;
            }
        }
    shape_t rs = {.ndim = nr};
    for (int i = 0; i < nr; i++)
        rs.d[i] = n->oshape.d[opos[rl[i]]];
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < nr; j++)
            if (rl[j] == la->out[i]) perm[i] = j;
    *lowered = true;
    const tgrid_t *A = grid_astype(c, G[0], n->odtype);
    const tgrid_t *B = n->in[1].node == n->in[0].node ? A : grid_astype(c, G[1], n->odtype);
    if (!A || !B) return NULL;
    tgrid_t *R = grid_tensordot(c, A, B, nc, ca, cb, &rs, OP_TENSORDOT);
    return R ? grid_transpose(c, R, perm) : NULL;
}

/* ---------------------------------------------------------------- dispatch */

tgrid_t *tile_la(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    const la_node_t *la = n->la;
    const tgrid_t *G = in_grid(c, n, 0);
    if (!G) return NULL;
    int nd = G->shape.ndim;
    switch (n->op) {
    case OP_LA_CHOLESKY:
        if (nd == 2) return tile_cholesky(c, n);
        return tile_whole(c, n, n->odtype, NULL);
    case OP_EINSUM: {
        bool lowered;
        tgrid_t *R = einsum_lowered(c, n, &lowered);
        if (lowered || R) return R;
        return tile_whole(c, n, n->odtype, NULL);
    }
    case OP_LA_SOLVE:
    case OP_LA_INV:
    case OP_LA_DET:
        return tile_whole(c, n, n->odtype, NULL);
    case OP_LA_MATRIX_RANK:
        return tile_whole(c, n, G->dt == DT_FLOAT32 ? DT_FLOAT32 : DT_FLOAT64, NULL);
    case OP_LA_NORM: {
        if (la->n_axis == 0) return tile_norm_flat(c, n, G);
        /* the normed axes last, in order (row, column) */
        int perm[MR_MAXDIM], p = 0;
        for (int d = 0; d < nd; d++) {
            bool red =
                la->n_axis > 0 && (la->axis[0] == d || (la->n_axis == 2 && la->axis[1] == d));
            if (!red) perm[p++] = d;
        }
        for (int i = 0; i < la->n_axis; i++)
            perm[p++] = la->axis[i];
        return tile_whole(c, n, n->odtype, perm);
    }
    case OP_TRACE:
    case OP_DIAGONAL:
        return tile_diag_of(c, n, G, la->axis1, la->axis2, la->k, n->op == OP_TRACE);
    case OP_DIAG:
        if (nd == 1) return tile_diag_vec(c, n, G);
        return tile_diag_of(c, n, G, 0, 1, la->k, false);
    case OP_TRIL:
    case OP_TRIU:
        return tile_tri(c, n, G);
    case OP_VDOT:
        return tile_vdot(c, n);
    default:
        tile__fail(c, "internal: not a linalg-branch op");
        return NULL;
    }
}
