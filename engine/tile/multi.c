/* multi.c: tiling one result of an op with several (graph_multi.c).
 *
 *   split, array_split, hsplit, vsplit: the result is a slice of the input
 *     along the axis: getitem's tiling (chunks of the input that the slice
 *     covers exactly are reused as they are).
 *   meshgrid: result k is input k (flattened) broadcast along the other
 *     axes. Each chunk is one gather job whose pieces read the input's
 *     chunks with source stride 0 along the broadcast axes; with sparse the
 *     result is a reshape of the flattened input.
 *   nonzero, where(a): held (length known when it runs): one DFJ_MULTIOUT job
 *     per block of whole rows of the input (C order across blocks is C
 *     order of the tensor), each a blob of the block's coordinates along
 *     the output's axis; fetching concatenates the blobs. No job holds more
 *     than one block (--chunk-bytes, or one row when a row is larger). */
#include "../arena.h"
#include "../df/multi.h"
#include "../setops.h"
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

/* A fixed-size DFJ_MULTIOUT job of histogram step `step`. */
static int32_t hjob(tctx_t *c, const jparam_t *pa, int step, dtype_t dt, int64_t len, int n_in)
{
    int32_t ji = tile__job_new(c, JK_DF, dt, 1, &len, n_in);
    if (ji < 0) return -1;
    job_t *j = &c->t->jobs[ji];
    j->param = pa;
    j->off = tile__arena_i64(c, 4);
    if (!j->off) return tile__fail(c, "out of memory while tiling");
    j->off[0] = j->off[1] = j->off[3] = 0;
    j->off[2] = step;
    return ji;
}

/* histogram: per chunk of a, [min, max] (without range nor edges), then one
 * job of edges; per chunk, counts against the edges; one job summing them
 * (MO_HIST_MAX_BYTES of counts at most). */
static tgrid_t *tile_histogram(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    const tgrid_t *A = c->t->grid[n->in[0].node];
    int nw = n->mo_weighted ? 1 : 0; /* setops: weights, the last input */
    const tgrid_t *E = n->n_in - nw == 2 ? c->t->grid[n->in[1].node] : NULL;
    const tgrid_t *W = nw ? c->t->grid[n->in[n->n_in - 1].node] : NULL;
    if (E && n->out_index == 1) return (tgrid_t *)E; /* the edges given */
    jparam_t *pa = tile__param_new(c, n->op);
    pa->dfk = DFJ_MULTIOUT;
    int64_t nb = E ? E->shape.d[0] - 1 : n->mo_bins;
    int32_t ej = -1; /* the edges job, when computed */
    if (!E) {
        dtype_t edt = A->dt == DT_FLOAT32 ? DT_FLOAT32 : DT_FLOAT64;
        int nmm = n->mo_has_range ? 0 : (int)A->total;
        if (A->total > INT32_MAX) {
            tile__fail(c, "too many chunks");
            return NULL;
        }
        int32_t *mm = arena_alloc(c->t->arena, sizeof(int32_t) * (size_t)(nmm ? nmm : 1));
        if (!mm) {
            tile__fail(c, "out of memory while tiling");
            return NULL;
        }
        for (int k = 0; k < nmm; k++) {
            if ((mm[k] = hjob(c, pa, MO_HIST_MINMAX, DT_FLOAT64, 2, 1)) < 0) return NULL;
            tile__jin_direct(c, mm[k], 0, A->job[k]);
        }
        ej = hjob(c, pa, MO_HIST_EDGES, edt, nb + 1, nmm);
        if (ej < 0) return NULL;
        for (int k = 0; k < nmm; k++)
            tile__jin_direct(c, ej, k, mm[k]);
    }
    shape_t s = {.ndim = 1, .d = {n->oshape.d[0]}};
    int64_t one = 1;
    tgrid_t *G = tile__grid_alloc(c, &s, n->odtype, &one);
    if (!G) return NULL;
    G->bounds[0][0] = 0;
    G->bounds[0][1] = s.d[0];
    if (n->out_index == 1) {
        G->job[0] = ej;
        return G;
    }
    if ((double)A->total * (double)nb * 8.0 > (double)MO_HIST_MAX_BYTES) {
        tile__fail(c,
                   "%lld chunks x %lld bins of counts pass the %lld bytes one histogram sum job "
                   "reads (docs/graph-format.md, histogram); use fewer bins or larger chunks",
                   (long long)A->total, (long long)nb, (long long)MO_HIST_MAX_BYTES);
        return NULL;
    }
    int64_t eoff = 0, elen = nb + 1;
    int np = (int)A->total;
    int32_t *parts = arena_alloc(c->t->arena, sizeof(int32_t) * (size_t)(np ? np : 1));
    if (!parts) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    for (gwalk_t w = gwalk_start(A); gwalk_next(&w);) {
        int64_t k = w.li;
        int32_t cj = hjob(c, pa, MO_HIST_COUNT, W ? DT_FLOAT64 : DT_INT64, nb, 2 + nw);
        if (cj < 0) return NULL;
        tile__jin_direct(c, cj, 0, A->job[k]);
        if (W && tile__input_box(c, cj, 2, W, w.off, w.len)) return NULL; /* the chunk's weights */
        if (E) {
            if (tile__input_box(c, cj, 1, E, &eoff, &elen)) return NULL;
        } else {
            tile__jin_direct(c, cj, 1, ej);
        }
        parts[k] = cj;
    }
    int dens = n->mo_density ? 1 : 0;
    int32_t sj = hjob(c, pa, MO_HIST_SUM, n->odtype, nb, np + dens);
    if (sj < 0) return NULL;
    for (int k = 0; k < np; k++)
        tile__jin_direct(c, sj, k, parts[k]);
    if (dens) {
        if (E) {
            if (tile__input_box(c, sj, np, E, &eoff, &elen)) return NULL;
        } else {
            tile__jin_direct(c, sj, np, ej);
        }
    }
    G->job[0] = sj;
    return G;
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
    case OP_HISTOGRAM:
        return tile_histogram(c, node);
    case OP_UNIQUE: /* setops: its inverse (the other results are held) */
        return tile_unique_inverse(c, node);
    default:
        tile__fail(c, "internal: not an op with several results");
        return NULL;
    }
}

int32_t tile__mo_job(tctx_t *c, const jparam_t *pa, int n_in, int64_t o0, int64_t o1, int64_t step,
                     int64_t o3)
{
    int64_t one = 1;
    int32_t ji = tile__job_new(c, JK_DF, DT_BOOL, 1, &one, n_in);
    if (ji < 0) return -1;
    job_t *j = &c->t->jobs[ji];
    j->blob = true;
    j->param = pa;
    if (!(j->off = tile__arena_i64(c, 4))) {
        tile__fail(c, "out of memory while tiling");
        return -1;
    }
    j->off[0] = o0;
    j->off[1] = o1;
    j->off[2] = step;
    j->off[3] = o3;
    return ji;
}

/* lstsq's residuals (la2.h): one job reading the packed LS_LA2_WHOLE
 * buffer of [x; s; rank; flag; residuals] */
static tgrid_t *lstsq_residuals(tctx_t *c, int node, tgrid_t *G, const jparam_t *pa)
{
    const graph_node_t *n = &c->g->nodes[node];
    const graph_node_t *a = &c->g->nodes[n->in[0].node];
    int64_t m = a->oshape.d[0], cols = a->oshape.d[1], k = m < cols ? m : cols;
    int32_t whole = tile_lstsq_whole(c, node);
    if (whole < 0) return NULL;
    /* off[1]: the flag, then the K residuals */
    int32_t ji = tile__mo_job(c, pa, 1, 0, cols * n->mo_bins + k + 1, MO_LSTSQ_RES, n->mo_bins);
    if (ji < 0) return NULL;
    tile__jin_direct(c, ji, 0, whole);
    G->job[0] = ji;
    return G;
}

tgrid_t *tile_multi_held(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    if (n->op == OP_LA_LSTSQ) {
        int64_t ng = 1;
        shape_t fs = {.ndim = 1, .d = {1}};
        tgrid_t *G = tile__grid_alloc(c, &fs, DT_BOOL, &ng);
        jparam_t *pa = G ? tile__param_new(c, n->op) : NULL;
        if (!pa) return NULL;
        pa->dfk = DFJ_MULTIOUT;
        G->bounds[0][0] = G->bounds[0][1] = -1; /* rows known only when it runs */
        return lstsq_residuals(c, node, G, pa);
    }
    const tgrid_t *A = c->t->grid[n->in[0].node];
    int nd = A->shape.ndim;
    bool uniq = n->op == OP_UNIQUE;
    int64_t n0 = nd ? A->shape.d[0] : 1, rowel = 1;
    for (int d = 1; d < nd; d++)
        rowel *= A->shape.d[d];
    int64_t rowb = rowel * (int64_t)dt_size(A->dt);
    int64_t rows = rowb > 0 ? c->opts->target_chunk_bytes / rowb : n0;
    if (rows < 1) rows = 1;
    int64_t nb;
    bounds_uniform(n0, rows, &nb);
    if (nb < 1 || n0 == 0) nb = 1;
    int64_t ng = uniq ? 1 : nb; /* unique: the blocks' sets merged in one job */
    shape_t fs = {.ndim = 1, .d = {ng}};
    tgrid_t *G = tile__grid_alloc(c, &fs, DT_BOOL, &ng);
    if (!G) return NULL;
    jparam_t *pa = tile__param_new(c, n->op);
    if (!pa) return NULL;
    pa->dfk = DFJ_MULTIOUT;
    for (int64_t k = 0; k <= ng; k++)
        G->bounds[0][k] = -1; /* rows known only when it runs */
    int32_t *maps = uniq ? arena_alloc(c->t->arena, sizeof(int32_t) * (size_t)nb) : NULL;
    if (uniq && !maps) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    for (int64_t k = 0; k < nb; k++) {
        int64_t off[MR_MAXDIM] = {0}, len[MR_MAXDIM];
        off[0] = k * rows;
        len[0] = off[0] + rows < n0 ? rows : n0 - off[0];
        if (len[0] < 0) len[0] = 0;
        for (int d = 1; d < nd; d++)
            len[d] = A->shape.d[d];
        /* unique: off[1] the block's flat offset */
        int32_t ji = tile__mo_job(c, pa, 1, off[0], uniq ? off[0] * rowel : n->mo_axis,
                                  uniq ? MO_UNIQUE_MAP : MO_NONZERO, 0);
        if (ji < 0 || tile__input_box(c, ji, 0, A, off, len)) return NULL;
        if (uniq)
            maps[k] = ji;
        else
            G->job[k] = ji;
    }
    if (uniq) {
        if (nb > INT32_MAX) {
            tile__fail(c, "too many blocks");
            return NULL;
        }
        int32_t ji = tile__mo_job(c, pa, (int)nb, 0, 0, MO_UNIQUE_MERGE, n->mo_col);
        if (ji < 0) return NULL;
        for (int64_t k = 0; k < nb; k++)
            tile__jin_direct(c, ji, (int)k, maps[k]);
        G->job[0] = ji;
    }
    return G;
}
