/* multi.c: tiling one result of an op with several (graph_multi.c).
 *
 *   split, array_split, hsplit, vsplit: the result is a slice of the input
 *     along the axis: getitem's tiling (chunks of the input that the slice
 *     covers exactly are reused as they are).
 *   meshgrid: result k is input k (flattened) broadcast along the other
 *     axes. Each chunk is one gather job whose pieces read the input's
 *     chunks with source stride 0 along the broadcast axes; with sparse the
 *     result is a reshape of the flattened input. */
#include "tile_priv.h"

/* The bounds of output axis d of meshgrid node n: those of the input
 * varying along d when it is 1-D and its chunks are no longer than the
 * default chunk of the output, else regular default chunks. */
static int mesh_axis_bounds(tctx_t *c, const graph_node_t *n, int d, int64_t target, int64_t **b,
                            int64_t *nch)
{
    int N = n->n_in;
    bool ij = n->mo_flag;
    int k = (!ij && N >= 2 && d < 2) ? 1 - d : d; /* the input varying along d */
    const tgrid_t *X = c->t->grid[n->in[k].node];
    int64_t len = n->oshape.d[d];
    if (X && X->shape.ndim == 1 && X->shape.d[0] == len) {
        bool ok = true;
        for (int64_t i = 0; i < X->nchunks[0] && ok; i++)
            ok = X->bounds[0][i + 1] - X->bounds[0][i] <= target;
        if (ok) {
            *b = X->bounds[0];
            *nch = X->nchunks[0];
            return 0;
        }
    }
    bounds_uniform(len, target, nch);
    int64_t *v = tile__arena_i64(c, (int)(*nch + 1));
    if (!v) return tile__fail(c, "out of memory while tiling");
    for (int64_t i = 0; i <= *nch; i++)
        v[i] = i * target < len ? i * target : len;
    *b = v;
    return 0;
}

static tgrid_t *tile_meshgrid(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    const tgrid_t *X = c->t->grid[n->in[n->out_index].node];
    shape_t flat = {.ndim = 1, .d = {shape_size(&X->shape)}};
    const tgrid_t *F = X->shape.ndim == 1 ? X : grid_reshape(c, X, &flat);
    if (!F) return NULL;
    if (n->mo_sparse) return grid_reshape(c, F, &n->oshape);
    int nd = n->oshape.ndim, a = n->mo_axis;
    int64_t target[MR_MAXDIM], *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    default_chunks(&n->oshape, n->odtype, c->opts->target_chunk_bytes, target);
    for (int d = 0; d < nd; d++)
        if (mesh_axis_bounds(c, n, d, target[d], &bounds[d], &nch[d])) return NULL;
    tgrid_t *R = grid_with_bounds(c, &n->oshape, n->odtype, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int64_t ost[MR_MAXDIM];
        c_strides(nd, w.len, ost);
        int32_t ji = tile__job_new(c, JK_GATHER, n->odtype, nd, w.len, 1);
        if (ji < 0) return NULL;
        c->npv = 0;
        int64_t one = 1;
        if (prod(nd, w.len) > 0 && add_region(c, F, &w.off[a], &one, &w.len[a], &ost[a], 0))
            return NULL;
        /* each 1-D piece of the input becomes an nd-D piece: stride 0 on
         * the other axes, which it fills whole */
        for (int64_t q = 0; q < c->npv; q++) {
            piece_t *p = &c->pv[q];
            int64_t cnt = p->count[0], ss = p->src_stride[0];
            p->ndim = nd;
            p->count = tile__arena_i64(c, nd);
            p->src_stride = tile__arena_i64(c, nd);
            p->dst_stride = tile__arena_i64(c, nd);
            if (!p->count || !p->src_stride || !p->dst_stride) {
                tile__fail(c, "out of memory while tiling");
                return NULL;
            }
            for (int d = 0; d < nd; d++) {
                p->count[d] = d == a ? cnt : w.len[d];
                p->src_stride[d] = d == a ? ss : 0;
                p->dst_stride[d] = ost[d];
            }
        }
        input_finish(c, ji, 0, nd, w.len, n->odtype);
        R->job[w.li] = ji;
    }
    return R;
}

tgrid_t *tile_multi(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    switch (n->op) {
    case OP_SPLIT:
    case OP_ARRAY_SPLIT:
    case OP_HSPLIT:
    case OP_VSPLIT:
        return tile_getitem(c, n, c->t->grid[n->in[0].node]);
    case OP_MESHGRID:
        return tile_meshgrid(c, node);
    default:
        tile__fail(c, "internal: not an op with several results");
        return NULL;
    }
}
