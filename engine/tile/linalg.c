/* linalg.c: block products (tensordot, matmul, x·xᵀ by syrk). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arena.h"
#include "tile_priv.h"

tgrid_t *grid_tensordot(tctx_t *c, const tgrid_t *A, const tgrid_t *B, int nc, const int *ca,
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
        for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
            int64_t li = w.li, *co = w.co, *len = w.len;
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
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int64_t li = w.li, *co = w.co, *len = w.len;
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
bool is_plain_transpose_of(tctx_t *c, int tnode, int a)
{
    const graph_node_t *T = &c->g->nodes[tnode];
    return T->op == OP_TRANSPOSE && T->in[0].node == a && T->oshape.ndim == 2 && T->perm[0] == 1 &&
           T->perm[1] == 0;
}

tgrid_t *tile_linalg(tctx_t *c, int node)
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
