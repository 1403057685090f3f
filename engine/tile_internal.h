/* tile_internal.h: what the tiler (engine/tile/) and tile_df.c (the DataFrame ops) share.
 * Not part of the engine's public face: include tile.h instead. */
#ifndef MARS_TILE_INTERNAL_H
#define MARS_TILE_INTERNAL_H

#include "tile.h"

typedef struct {
    tile_t *t;
    const graph_t *g;
    const graph_limits_t *lim;
    const tile_opts_t *opts;
    char *err;
    size_t errlen;
    int node;       /* the node being tiled, for messages */
    int64_t n_refs; /* inputs and pieces made so far */
    bool *fused;    /* node is evaluated inside its consumer's program */
    int *cost;      /* fused program size estimate per element-wise node */
    bool *skip;     /* node never tiled (a transpose folded into a product) */
    bool *gen;      /* creation/random node generated inside its consumer's jobs */
    /* scratch for building one input */
    piece_t *pv;
    int64_t npv, cappv;
} tctx_t;

/* `node "<key>" (<op>): ...` about the node being tiled; returns -1. */
int tile__fail(tctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int64_t *tile__arena_i64(tctx_t *c, int n);
/* A new job (its index), or -1 with a message. */
int32_t tile__job_new(tctx_t *c, job_kind_t kind, dtype_t dt, int ndim, const int64_t *shape,
                      int n_in);
/* tile/multi.c: a DataFrame job (JK_DF) of step pa and n_in inputs whose
 * output is a frame blob; o0, o1, step, o3 its job.off (tile_df.c's steps,
 * df/multi.h, setops.h); -1 on failure */
int32_t tile__mo_job(tctx_t *c, const jparam_t *pa, int n_in, int64_t o0, int64_t o1, int64_t step,
                     int64_t o3);
/* Input k of job ji is job src's whole output. */
void tile__jin_direct(tctx_t *c, int32_t ji, int k, int32_t src);
/* A grid of shape with nchunks per axis (bounds and jobs to fill). */
tgrid_t *tile__grid_alloc(tctx_t *c, const shape_t *shape, dtype_t dt, const int64_t *nchunks);
/* Input k of ji: the box [off, off+len) of G. */
int tile__input_box(tctx_t *c, int32_t ji, int k, const tgrid_t *G, const int64_t *off,
                    const int64_t *len);
/* Input k of ji: the box [off, off+len) of creation or random node `node`,
 * generated inside the job. */
void tile__input_generated(tctx_t *c, int32_t ji, int k, int node, int nd, const int64_t *off,
                           const int64_t *len, dtype_t dt);
jparam_t *tile__param_new(tctx_t *c, op_t op);
/* A combine tree over partials of nbytes each, ending in a final job
 * (final) or a combine. */
int32_t tile__reduce_tree(tctx_t *c, const jparam_t *pa, int32_t *parts, int64_t np, int64_t nbytes,
                          bool final, dtype_t fdt, int fnd, const int64_t *fshape);

/* tile_df.c: the grid of DataFrame node `node` (one chunk per entry, in
 * row order), or of a tensor a DataFrame op produces; NULL on error. */
tgrid_t *tile_df(tctx_t *c, int node);
/* tile/multi.c: an output of an op with several results whose length is
 * known only when it runs (nonzero), held as frame blobs (multiout) */
tgrid_t *tile_multi_held(tctx_t *c, int node);

#endif
