/* reduce.c: reductions (map, combine tree, final) and scans. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arena.h"
#include "tile_priv.h"

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

tgrid_t *tile_reduce(tctx_t *c, int node)
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
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int64_t li = w.li, *rco = w.co, *rlen = w.len;
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

tgrid_t *tile_scan(tctx_t *c, int node)
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
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        if (w.co[axis] != 0) continue;
        int64_t co[MR_MAXDIM];
        memcpy(co, w.co, sizeof co);
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
