/* tile_priv.h: what the files of engine/tile/ share.
 *
 *   core.c    the driver (tile_build): planning (fusion, generated inputs,
 *             skipped transposes), jobs, liveness
 *   grid.c    chunk grids; job inputs cut out of them (boxes, strided
 *             selections, the pieces copying them); tile_gather
 *   gen.c     creation and random chunks generated inside their consumers
 *   fuse_gather.c  gathers whose readers copy straight from their sources
 *   fusion.c  element-wise programs and the element-wise tiler
 *   shapes.c  reshape, transpose, concatenate, getitem, rechunk
 *   reduce.c  reductions and scans
 *   linalg.c  block products
 *
 * Every loop over the chunks of a grid is a gwalk_t. Not part of the
 * engine's public face: other code includes tile.h. */
#ifndef MARS_TILE_PRIV_H
#define MARS_TILE_PRIV_H

#include <string.h>

#include "../tile_internal.h"
#include "../ufunc.h"

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

static inline void c_strides(int ndim, const int64_t *shape, int64_t *st)
{
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        st[d] = s;
        s *= shape[d] > 0 ? shape[d] : 1;
    }
}

/* Decomposes element offset off of a C-layout array (strides st, shape sh)
 * into coordinates pos. False when off is outside the array. */
static inline bool c_decompose(int nd, const int64_t *st, const int64_t *sh, int64_t off,
                               int64_t *pos)
{
    if (off < 0) return false;
    for (int a = 0; a < nd; a++) {
        pos[a] = off / st[a];
        if (pos[a] >= sh[a]) return false;
        off -= pos[a] * st[a];
    }
    return off == 0;
}

static inline int64_t prod(int ndim, const int64_t *v)
{
    int64_t p = 1;
    for (int d = 0; d < ndim; d++)
        p *= v[d];
    return p;
}

/* ---- the chunk walk: for (gwalk_t w = gwalk_start(G); gwalk_next(&w);)
 * visits every chunk of G in C order: w.li its grid position, w.co its
 * per-axis chunk coordinates, w.off and w.len its box in the tensor. */
typedef struct {
    const tgrid_t *G;
    int64_t li;
    int64_t co[MR_MAXDIM], off[MR_MAXDIM], len[MR_MAXDIM];
} gwalk_t;

static inline gwalk_t gwalk_start(const tgrid_t *G)
{
    gwalk_t w;
    w.G = G;
    w.li = -1;
    return w;
}

static inline bool gwalk_next(gwalk_t *w)
{
    const tgrid_t *G = w->G;
    int nd = G->shape.ndim;
    if (w->li < 0) {
        for (int d = 0; d < nd; d++)
            w->co[d] = 0;
    } else {
        int d = nd - 1;
        while (d >= 0 && ++w->co[d] == G->nchunks[d])
            w->co[d--] = 0;
    }
    if (++w->li >= G->total) return false;
    for (int d = 0; d < nd; d++) {
        w->off[d] = G->bounds[d][w->co[d]];
        w->len[d] = G->bounds[d][w->co[d] + 1] - w->off[d];
    }
    return true;
}

/* ---- core.c */
int64_t *arena_i64_copy(tctx_t *c, const int64_t *src, int n);
tgrid_t *tile_create(tctx_t *c, const graph_node_t *n, job_kind_t kind);

/* ---- grid.c */
typedef struct {
    int64_t chunk, i0, i1;
} seg_t;

void bounds_uniform(int64_t len, int64_t chunk, int64_t *nch);
/* A grid whose axis d has chunks of chunk[d] (the last may be shorter). */
tgrid_t *grid_regular(tctx_t *c, const shape_t *shape, dtype_t dt, const int64_t *chunk);
/* A grid with the given bounds per axis (copied). */
tgrid_t *grid_with_bounds(tctx_t *c, const shape_t *shape, dtype_t dt, const int64_t *const *bounds,
                          const int64_t *nch);
bool bounds_eq(const tgrid_t *A, int da, const tgrid_t *B, int db);
int64_t grid_index(const tgrid_t *G, const int64_t *co);
void grid_region(const tgrid_t *G, const int64_t *co, int64_t *off, int64_t *len);
void default_chunks(const shape_t *s, dtype_t dt, int64_t target, int64_t *chunk);
piece_t *pv_push(tctx_t *c);
int64_t chunk_of(const int64_t *bounds, int64_t nch, int64_t p);
int split_axis(const int64_t *bounds, int64_t nch, int64_t start, int64_t step, int64_t n,
               seg_t **segs, int64_t *nseg);
int add_region(tctx_t *c, const tgrid_t *G, const int64_t *start, const int64_t *step,
               const int64_t *n, const int64_t *dst_stride, int64_t dst_base);
void input_finish(tctx_t *c, int32_t ji, int k, int ndim, const int64_t *shape, dtype_t dt);
/* A gather copying elements [off, off + size(shape)) of job src (flat) into
 * an output chunk of shape (nd, d) of dtype dt. */
int32_t tile__slice_job(tctx_t *c, int32_t src, dtype_t dt, int nd, const int64_t *d, int64_t off);
int32_t region_job(tctx_t *c, const tgrid_t *G, const int64_t *off, const int64_t *len);
int32_t gather_job(tctx_t *c, const tgrid_t *G, int ond, const int64_t *olen, const int64_t *start,
                   const int64_t *step, const int64_t *cnt, const int64_t *dst);
tgrid_t *grid_rechunk(tctx_t *c, const tgrid_t *G, int64_t *const *bounds, const int64_t *nch);
tgrid_t *grid_align_axis(tctx_t *c, const tgrid_t *G, int d, const tgrid_t *H, int e);
/* Copies piece p out of the source array src into dst (es bytes an element). */
/* Whether a piece copies nothing (a count is 0). */
bool tile__piece_empty(const piece_t *p);
void tile__copy_piece(const piece_t *p, const void *src, void *dst, size_t es);

/* ---- gen.c */
/* After every node is tiled: the inputs that read creation chunks, or random
 * chunks read by one job only, generate them instead (jin_t.gpieces); those
 * chunks then have no reader and never run. Returns 0, or -1 with a message. */
int tile__plan_virtual(tctx_t *c);
/* ---- fuse_gather.c: gathers read through by their readers */
int tile__fuse_gathers(tctx_t *c);

/* ---- fusion.c */
typedef struct {
    ew_prog_t *p;
    int n_leaves;
    int leaf_node[EW_MAX_REGS];
    int memo_node[EW_MAX_REGS], memo_reg[EW_MAX_REGS], n_memo;
} pbuild_t;

bool fusable_into(tctx_t *c, int m, int consumer);
ew_prog_t *build_prog(tctx_t *c, pbuild_t *b, int root);
tgrid_t *ew_grid(tctx_t *c, const pbuild_t *b, const shape_t *shape, dtype_t dt);
int ew_inputs(tctx_t *c, int32_t ji, int k0, const pbuild_t *b, int nd, const int64_t *off,
              const int64_t *len);
tgrid_t *grid_astype(tctx_t *c, const tgrid_t *G, dtype_t dt);
tgrid_t *tile_ew(tctx_t *c, int node);

/* ---- shapes.c */
tgrid_t *grid_reshape(tctx_t *c, const tgrid_t *G, const shape_t *shape);
tgrid_t *grid_transpose(tctx_t *c, const tgrid_t *G, const int *perm);
tgrid_t *grid_concat(tctx_t *c, tgrid_t *const *in, int n, int axis, const shape_t *shape);
tgrid_t *tile_shape_op(tctx_t *c, int node);
/* getitem (and flips) of n, whose index[] is set, over G */
tgrid_t *tile_getitem(tctx_t *c, const graph_node_t *n, const tgrid_t *G);

/* ---- shapes2.c (shapes: roll, broadcast_to, tile, repeat, pad; shapes2.h) */
bool tile_shapes2_owns(op_t op);
tgrid_t *tile_shapes2(tctx_t *c, int node);

/* ---- multi.c (multiout: one result of an op with several) */
tgrid_t *tile_multi(tctx_t *c, int node);

/* ---- reduce.c */
tgrid_t *tile_reduce(tctx_t *c, int node);
tgrid_t *tile_scan(tctx_t *c, int node);

/* ---- fancy.c (branch fancy): advanced indexing, fancy.h */
tgrid_t *tile_fancy(tctx_t *c, int node);
/* ---- sortstat.c (sortstat: sorting, searching and statistics) */
tgrid_t *tile_sortstat(tctx_t *c, int node);

/* ---- linalg.c */
bool is_plain_transpose_of(tctx_t *c, int tnode, int a);
/* The block products of tensordot(A, B) over the nc axis pairs (ca, cb). */
/* la2.c: linalg.qr, svd, eigh, slogdet (la2.h) */
tgrid_t *tile_la2(tctx_t *c, int node);
/* lstsq's one LS_LA2_WHOLE job (la2.h), made by its first result tiled;
 * tile/multi.c's held residuals read it */
int32_t tile_lstsq_whole(tctx_t *c, int node);
tgrid_t *grid_tensordot(tctx_t *c, const tgrid_t *A, const tgrid_t *B, int nc, const int *ca,
                        const int *cb, const shape_t *oshape, op_t op);
tgrid_t *tile_linalg(tctx_t *c, int node);

/* ---- la.c (the linalg branch's ops, graph_la.h) */
bool tile_la_owns(op_t op);
tgrid_t *tile_la(tctx_t *c, int node);

#endif
