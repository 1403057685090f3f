/* la2.c: tiling of linalg.qr, svd, eigh and slogdet (la2.h).
 *
 * TSQR (qr and svd of an m x n matrix with m >= n, in two row blocks or
 * more): the rows are grouped into blocks of at least n rows (the input's
 * row chunks, neighbours merged; the columns whole), then
 *   local_i  LS_QR_LOCAL on block i: [R_i; Q_i]
 *   merge    LS_QR_MERGE of every local_i: [R; Q2], at most
 *            LA2_MERGE_MAX_ELEMS stacked elements
 *   q_i      LS_QR_APPLY [local_i, merge]: Q_i Q2_i, block i of q
 *   r        a gather of the merge's R
 * and for svd, svdr = LS_SVD_R of the merge: [s; U_r; Vh]; u_i = LS_SVD_U
 * [q_i, svdr]; s and vh gathers of svdr. The other shapes, eigh and
 * slogdet: one LS_LA2_WHOLE job on the whole matrix (at most
 * LA_SINGLE_MAX_ELEMS elements), its results sliced by gathers.
 *
 * Each result is a node of its own (graph_multi.c), tiled in order; the
 * later results find the shared job (merge, svdr or whole) through the
 * first result's grid, so the factorisation runs once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arena.h"
#include "../graph_la.h"
#include "../kern/la.h"
#include "../la2.h"
#include "tile_priv.h"

static jparam_t *step_param(tctx_t *c, op_t op, la_step_t s)
{
    jparam_t *p = tile__param_new(c, op);
    if (p) p->la_step = s;
    return p;
}

/* A JK_LA job of step s, 1-D of len elements (a packed buffer) or of shape
 * (nd, d). */
static int32_t la_job(tctx_t *c, const graph_node_t *n, la_step_t s, dtype_t dt, int nd,
                      const int64_t *d, int n_in)
{
    int32_t ji = tile__job_new(c, JK_LA, dt, nd, d, n_in);
    if (ji < 0) return -1;
    jparam_t *p = step_param(c, n->op, s);
    if (!p) return -1;
    c->t->jobs[ji].param = p;
    return ji;
}

/* A grid of one chunk holding job ji. */
static tgrid_t *single(tctx_t *c, const graph_node_t *n, int32_t ji)
{
    if (ji < 0) return NULL;
    int64_t nch[MR_MAXDIM];
    for (int d = 0; d < n->oshape.ndim; d++)
        nch[d] = 1;
    tgrid_t *G = tile__grid_alloc(c, &n->oshape, n->odtype, nch);
    if (!G) return NULL;
    for (int d = 0; d < n->oshape.ndim; d++) {
        G->bounds[d][0] = 0;
        G->bounds[d][1] = n->oshape.d[d];
    }
    G->job[0] = ji;
    return G;
}

/* The first result's node when it was tiled before this one (same op node). */
static const tgrid_t *first_result(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    int f = node - n->out_index;
    if (n->out_index == 0 || f < 0) return NULL;
    const graph_node_t *F = &c->g->nodes[f];
    if (F->op != n->op || F->out_index != 0 || strcmp(F->op_key, n->op_key) != 0) return NULL;
    const tgrid_t *G = c->t->grid[f];
    return G && G->total > 0 ? G : NULL;
}

/* ---- one job on the whole matrix ------------------------------------------ */

int64_t la2_packed_len(const graph_node_t *n, int64_t m, int64_t cols)
{
    int64_t k = m < cols ? m : cols;
    switch (n->op) {
    case OP_LA_QR:
        return k * cols + m * k;
    case OP_LA_SVD:
        return n->mo_sparse ? k + m * k + k * cols : k;
    case OP_LA_EIGH:
        return m + m * m;
    case OP_LA_LSTSQ: /* [x (cols x K); s (k); rank; has residuals; residuals (K)] */
        return cols * n->mo_bins + k + 2 + n->mo_bins;
    default:
        return 2;
    }
}

/* Where result r starts in the whole job's packed buffer. */
static int64_t packed_off(const graph_node_t *n, int r, int64_t m, int64_t cols)
{
    int64_t k = m < cols ? m : cols;
    switch (n->op) {
    case OP_LA_QR:
        return r == 0 ? k * cols : 0;
    case OP_LA_SVD:
        return !n->mo_sparse || r == 1 ? 0 : r == 0 ? k : k + m * k;
    case OP_LA_EIGH:
        return r == 0 ? 0 : m;
    default:
        return r;
    }
}

static tgrid_t *tile_whole(tctx_t *c, int node, const tgrid_t *A)
{
    const graph_node_t *n = &c->g->nodes[node];
    int64_t m = A->shape.d[0], cols = A->shape.d[1];
    const tgrid_t *F = first_result(c, node);
    int32_t whole = -1;
    if (F) {
        const job_t *fj = &c->t->jobs[F->job[0]];
        if (fj->kind == JK_GATHER && fj->n_in == 1 && fj->in[0].n_pieces == 1)
            whole = fj->in[0].pieces[0].src;
    }
    if (whole < 0) {
        if (m * cols > LA_SINGLE_MAX_ELEMS) {
            tile__fail(c,
                       "a %lld x %lld matrix is factored in one job here (not a tall matrix in "
                       "row chunks), over the single-block limit of %lld elements "
                       "(LA_SINGLE_MAX_ELEMS)",
                       (long long)m, (long long)cols, (long long)LA_SINGLE_MAX_ELEMS);
            return NULL;
        }
        int64_t len = la2_packed_len(n, m, cols);
        whole = la_job(c, n, LS_LA2_WHOLE, n->odtype, 1, &len, 1);
        if (whole < 0) return NULL;
        int64_t zero[2] = {0, 0};
        if (tile__input_box(c, whole, 0, A, zero, A->shape.d)) return NULL;
    }
    int r = n->op == OP_LA_SVD && !n->mo_sparse ? 1 : n->out_index;
    return single(c, n,
                  tile__slice_job(c, whole, n->odtype, n->oshape.ndim, n->oshape.d,
                                  packed_off(n, r, m, cols)));
}

/* ---- lstsq: one LS_LA2_WHOLE job of [a, b] (LAPACK's dgelsd) ---------------- */

int32_t tile_lstsq_whole(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    const tgrid_t *F = first_result(c, node);
    if (F) {
        const job_t *fj = &c->t->jobs[F->job[0]];
        if (fj->kind == JK_GATHER && fj->n_in == 1 && fj->in[0].n_pieces == 1)
            return fj->in[0].pieces[0].src;
    }
    dtype_t dt = c->g->nodes[node - n->out_index].odtype; /* x's */
    const tgrid_t *A = c->t->grid[n->in[0].node], *B = c->t->grid[n->in[1].node];
    if (!A || !B) {
        tile__fail(c, "internal: operand not tiled");
        return -1;
    }
    if (!(A = grid_astype(c, A, dt)) || !(B = grid_astype(c, B, dt))) return -1;
    int64_t m = A->shape.d[0], cols = A->shape.d[1];
    if (m * cols + m * n->mo_bins > LA_SINGLE_MAX_ELEMS) {
        tile__fail(c,
                   "lstsq of a %lld x %lld matrix and %lld right-hand sides runs in one job, over "
                   "the single-block limit of %lld elements (LA_SINGLE_MAX_ELEMS)",
                   (long long)m, (long long)cols, (long long)n->mo_bins,
                   (long long)LA_SINGLE_MAX_ELEMS);
        return -1;
    }
    int64_t len = la2_packed_len(n, m, cols);
    int32_t whole = la_job(c, n, LS_LA2_WHOLE, dt, 1, &len, 2);
    if (whole < 0) return -1;
    int64_t zero[2] = {0, 0};
    if (tile__input_box(c, whole, 0, A, zero, A->shape.d) ||
        tile__input_box(c, whole, 1, B, zero, B->shape.d))
        return -1;
    return whole;
}

static tgrid_t *tile_lstsq(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    const graph_node_t *a = &c->g->nodes[n->in[0].node];
    int64_t m = a->oshape.d[0], cols = a->oshape.d[1], k = m < cols ? m : cols;
    int32_t whole = tile_lstsq_whole(c, node);
    if (whole < 0) return NULL;
    dtype_t dt = c->t->jobs[whole].dt;
    switch (n->out_index) {
    case 0:
        return single(c, n, tile__slice_job(c, whole, dt, n->oshape.ndim, n->oshape.d, 0));
    case 2: { /* rank: a float slot of the packed buffer, as numpy's int32 */
        int32_t ji = tile__slice_job(c, whole, dt, 0, NULL, cols * n->mo_bins + k);
        if (ji < 0) return NULL;
        shape_t s0 = {.ndim = 0};
        int64_t none = 1;
        tgrid_t *G = tile__grid_alloc(c, &s0, dt, &none);
        if (!G) return NULL;
        G->job[0] = ji;
        return grid_astype(c, G, DT_INT32);
    }
    default:
        return single(c, n, tile__slice_job(c, whole, dt, 1, n->oshape.d, cols * n->mo_bins));
    }
}

/* ---- TSQR ------------------------------------------------------------------ */

/* Row blocks of at least cols rows each out of A's row chunks. */
static int64_t *row_blocks(tctx_t *c, const tgrid_t *A, int64_t cols, int64_t *nb)
{
    int64_t n0 = A->nchunks[0];
    int64_t *b = tile__arena_i64(c, (int)n0 + 1);
    if (!b) return NULL;
    int64_t k = 0;
    b[k++] = 0;
    for (int64_t i = 1; i <= n0; i++) {
        int64_t at = A->bounds[0][i];
        if (at - b[k - 1] >= cols || i == n0) b[k++] = at;
    }
    /* a short last block joins the one before it */
    if (k > 2 && b[k - 1] - b[k - 2] < cols) {
        b[k - 2] = b[k - 1];
        k--;
    }
    *nb = k - 1;
    return b;
}

static tgrid_t *tile_tsqr(tctx_t *c, int node, const tgrid_t *A, const int64_t *rb, int64_t p)
{
    const graph_node_t *n = &c->g->nodes[node];
    int64_t cols = A->shape.d[1];
    dtype_t dt = n->odtype;
    bool svd = n->op == OP_LA_SVD, uv = !svd || n->mo_sparse;
    int r = svd && !uv ? 1 : n->out_index; /* svd: 0 u, 1 s, 2 vh; qr: 0 q, 1 r */
    const tgrid_t *F = first_result(c, node);
    int32_t shared = -1; /* qr: the merge; svd: svdr */
    if (F && F->total > 0) {
        const job_t *fj = &c->t->jobs[F->job[0]];
        if (fj->kind == JK_LA && fj->n_in == 2) shared = fj->in[1].job;
    }
    if (shared < 0) {
        if (p * cols * cols > LA2_MERGE_MAX_ELEMS) {
            tile__fail(c,
                       "TSQR stacks %lld row blocks' R factors of %lld columns: %lld elements, "
                       "over the limit of %lld (LA2_MERGE_MAX_ELEMS); give the matrix longer "
                       "row chunks",
                       (long long)p, (long long)cols, (long long)(p * cols * cols),
                       (long long)LA2_MERGE_MAX_ELEMS);
            return NULL;
        }
        int64_t *b[2], nch[2] = {p, 1};
        b[0] = (int64_t *)rb;
        b[1] = tile__arena_i64(c, 2);
        if (!b[1]) return NULL;
        b[1][0] = 0;
        b[1][1] = cols;
        const tgrid_t *B = grid_rechunk(c, A, b, nch);
        if (!B) return NULL;
        int32_t *loc = arena_alloc(c->t->arena, sizeof(int32_t) * (size_t)p);
        if (!loc) return NULL;
        for (int64_t i = 0; i < p; i++) {
            int64_t mi = rb[i + 1] - rb[i], len = cols * cols + mi * cols;
            loc[i] = la_job(c, n, LS_QR_LOCAL, dt, 1, &len, 1);
            if (loc[i] < 0) return NULL;
            tile__jin_direct(c, loc[i], 0, B->job[i]);
        }
        int64_t mlen = (p + 1) * cols * cols;
        int32_t merge = la_job(c, n, LS_QR_MERGE, dt, 1, &mlen, (int)p);
        if (merge < 0) return NULL;
        for (int64_t i = 0; i < p; i++)
            tile__jin_direct(c, merge, (int)i, loc[i]);
        shared = merge;
        int32_t svdr = -1;
        if (svd) {
            int64_t slen = cols + 2 * cols * cols;
            svdr = la_job(c, n, LS_SVD_R, dt, 1, &slen, 1);
            if (svdr < 0) return NULL;
            tile__jin_direct(c, svdr, 0, merge);
            shared = svdr;
        }
        if (r == 0) { /* q, or u: one job per row block */
            int64_t *qb[2], qn[2] = {p, 1};
            qb[0] = (int64_t *)rb;
            qb[1] = b[1];
            tgrid_t *G = grid_with_bounds(c, &n->oshape, dt, (const int64_t *const *)qb, qn);
            if (!G) return NULL;
            for (int64_t i = 0; i < p; i++) {
                int64_t d[2] = {rb[i + 1] - rb[i], cols};
                int32_t q = la_job(c, n, LS_QR_APPLY, dt, 2, d, 2);
                if (q < 0) return NULL;
                c->t->jobs[q].off = tile__arena_i64(c, 2);
                if (!c->t->jobs[q].off) return NULL;
                c->t->jobs[q].off[0] = i;
                c->t->jobs[q].off[1] = 0;
                tile__jin_direct(c, q, 0, loc[i]);
                tile__jin_direct(c, q, 1, merge);
                if (svd) {
                    int32_t u = la_job(c, n, LS_SVD_U, dt, 2, d, 2);
                    if (u < 0) return NULL;
                    tile__jin_direct(c, u, 0, q);
                    tile__jin_direct(c, u, 1, svdr);
                    q = u;
                }
                G->job[i] = q;
            }
            return G;
        }
    }
    /* r (qr); s or vh (svd): a slice of the shared job */
    int64_t off = !svd ? 0 : r == 1 ? 0 : cols + cols * cols;
    return single(c, n, tile__slice_job(c, shared, dt, n->oshape.ndim, n->oshape.d, off));
}

tgrid_t *tile_la2(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    if (n->op == OP_LA_LSTSQ) return tile_lstsq(c, node);
    const tgrid_t *A = c->t->grid[n->in[0].node];
    if (!A) {
        tile__fail(c, "internal: operand not tiled");
        return NULL;
    }
    A = grid_astype(c, A, n->odtype == DT_FLOAT32 ? DT_FLOAT32 : A->dt);
    if (!A) return NULL;
    int64_t m = A->shape.d[0], cols = A->shape.d[1];
    if ((n->op == OP_LA_QR || n->op == OP_LA_SVD) && m >= cols && cols > 0) {
        int64_t p;
        const int64_t *rb = row_blocks(c, A, cols, &p);
        if (!rb) return NULL;
        if (p > 1) return tile_tsqr(c, node, A, rb, p);
    }
    return tile_whole(c, node, A);
}
