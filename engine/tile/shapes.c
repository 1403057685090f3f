/* shapes.c: reshape, transpose, concatenate, getitem, rechunk. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arena.h"
#include "tile_priv.h"

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
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int64_t li = w.li, *len = w.len;
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

tgrid_t *grid_reshape(tctx_t *c, const tgrid_t *G, const shape_t *shape)
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
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int64_t li = w.li, *off = w.off, *len = w.len;
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

tgrid_t *grid_transpose(tctx_t *c, const tgrid_t *G, const int *perm)
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
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int64_t li = w.li, *off = w.off, *len = w.len;
        int64_t ost[MR_MAXDIM];
        int64_t gstart[MR_MAXDIM], gn[MR_MAXDIM], gstep[MR_MAXDIM], dst[MR_MAXDIM];
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
tgrid_t *grid_concat(tctx_t *c, tgrid_t *const *in, int n, int axis, const shape_t *shape)
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
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int64_t li = w.li, *co = w.co, *off = w.off, *len = w.len;
        int k = owner[co[axis]];
        off[axis] -= offs[k];
        int32_t ji = region_job(c, in[k], off, len);
        if (ji < 0) return NULL;
        R->job[li] = ji;
    }
    return R;
}

tgrid_t *tile_getitem(tctx_t *c, const graph_node_t *n, const tgrid_t *G)
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
    /* the selection's own shape: the output without getitem's new axes */
    shape_t sel = {.ndim = 0};
    for (int d = 0; d < n->oshape.ndim; d++)
        if (!(n->newaxis & (1u << d))) sel.d[sel.ndim++] = n->oshape.d[d];
    tgrid_t *R = grid_with_bounds(c, &sel, G->dt, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int64_t li = w.li, *off = w.off, *len = w.len;
        int64_t ost[MR_MAXDIM];
        int64_t start[MR_MAXDIM], step[MR_MAXDIM], cnt[MR_MAXDIM], dst[MR_MAXDIM];
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
    /* numpy.newaxis: size-1 axes, the same chunks */
    return n->newaxis ? grid_reshape(c, R, &n->oshape) : R;
}

/* diff: n times, the slice [1:] minus the slice [:-1] along the axis
 * (not_equal for bools, as numpy), one element-wise job per chunk. */
static tgrid_t *tile_diff(tctx_t *c, const graph_node_t *n, const tgrid_t *G)
{
    int nd = G->shape.ndim, axis = n->axis[0];
    dtype_t dt = G->dt;
    ew_prog_t *p = arena_alloc(c->t->arena, sizeof(ew_prog_t));
    memset(p, 0, sizeof(*p));
    p->n_inputs = 2;
    p->n_regs = 3;
    p->n_ins = 1;
    p->out = 2;
    p->reg_dt[0] = p->reg_dt[1] = p->reg_dt[2] = (uint8_t)dt;
    op_t op = dt == DT_BOOL ? OP_NOT_EQUAL : OP_SUBTRACT;
    p->ins[0] = (ew_ins_t){.op = (int16_t)op, .dt = (uint8_t)dt, .dst = 2, .a = 0, .b = 1, .c = -1};
    jparam_t *pa = tile__param_new(c, op);
    pa->prog = p;
    graph_node_t *sl = malloc(sizeof(graph_node_t));
    if (!sl) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    for (int64_t k = 0; k < n->N && G->shape.d[axis] > 0; k++) {
        int64_t len = G->shape.d[axis];
        const tgrid_t *S[2];
        for (int w = 0; w < 2; w++) { /* w 0: [1:], w 1: [:-1] */
            memcpy(sl, n, sizeof(*sl));
            sl->n_index = nd;
            sl->newaxis = 0;
            sl->oshape = G->shape;
            sl->oshape.d[axis] = len - 1;
            for (int d = 0; d < nd; d++) {
                int64_t lo = d == axis && w == 0 ? 1 : 0;
                int64_t cnt = d == axis ? len - 1 : G->shape.d[d];
                sl->index[d] = (index_t){
                    .is_int = false, .start = lo, .stop = lo + cnt, .step = 1, .len = cnt};
            }
            S[w] = tile_getitem(c, sl, G);
            if (!S[w]) goto fail;
        }
        const tgrid_t *A = S[0], *Bg = grid_align_axis(c, S[1], axis, A, axis);
        if (!Bg) goto fail;
        tgrid_t *R =
            grid_with_bounds(c, &A->shape, dt, (const int64_t *const *)A->bounds, A->nchunks);
        if (!R) goto fail;
        for (int64_t li = 0; li < R->total; li++) {
            const job_t *aj = &c->t->jobs[A->job[li]];
            int32_t ji = tile__job_new(c, JK_EW, dt, aj->ndim, aj->shape, 2);
            if (ji < 0) goto fail;
            c->t->jobs[ji].param = pa;
            tile__jin_direct(c, ji, 0, A->job[li]);
            tile__jin_direct(c, ji, 1, Bg->job[li]);
            R->job[li] = ji;
        }
        G = R;
    }
    free(sl);
    return (tgrid_t *)G;
fail:
    free(sl);
    return NULL;
}

tgrid_t *tile_shape_op(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    if (tile_shapes2_owns(n->op)) return tile_shapes2(c, node); /* shapes: shapes2.c */
    const tgrid_t *G = c->t->grid[n->in[0].node];
    switch (n->op) {
    case OP_TRANSPOSE:
    case OP_SWAPAXES:
    case OP_MOVEAXIS:
        return grid_transpose(c, G, n->perm);
    case OP_FLIP:
    case OP_FLIPLR:
    case OP_FLIPUD:
        return tile_getitem(c, n, G);
    case OP_DIFF:
        return tile_diff(c, n, G);
    case OP_EDIFF1D: {
        /* diff of the flattened input */
        shape_t flat = {.ndim = 1, .d = {shape_size(&G->shape)}};
        const tgrid_t *F = grid_reshape(c, G, &flat);
        return F ? tile_diff(c, n, F) : NULL;
    }
    case OP_ATLEAST_1D:
    case OP_ATLEAST_2D:
    case OP_ATLEAST_3D:
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
    case OP_STACK:
    case OP_HSTACK:
    case OP_VSTACK:
    case OP_DSTACK:
    case OP_COLUMN_STACK: {
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
            if (X && op_is_stack_family(n->op)) { /* lifted as numpy lifts them */
                shape_t s;
                graph_stack_lift(n->op, &X->shape, c->g->nodes[n->in[0].node].oshape.ndim, &s);
                if (s.ndim != X->shape.ndim) X = grid_reshape(c, X, &s);
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
        if (n->n_outputs) return tile_multi(c, node); /* multiout: tile/multi.c */
        tile__fail(c, "internal: not a shape op");
        return NULL;
    }
}
