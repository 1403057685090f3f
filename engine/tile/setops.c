/* setops.c: tiling of union1d, intersect1d, setdiff1d and bincount
 * (setops.h). Each input is cut into blocks of whole rows (--chunk-bytes
 * each, or one row when a row is larger); one DFJ_MULTIOUT job per block
 * (a set op's: unique's MO_UNIQUE_MAP, the block's sorted distinct values;
 * bincount's: MO_BIN_MAP, the block's counts) and one job merging them,
 * whose blob is the held result. */
#include "../arena.h"
#include "../df/multi.h"
#include "../setops.h"
#include "tile_priv.h"

/* The blocks of whole rows of A: n0 rows of rowel elements, nb blocks of
 * rows rows (the last shorter; one empty block when A is empty). */
static void block_rows(tctx_t *c, const tgrid_t *A, const tgrid_t *W, int64_t *n0, int64_t *rowel,
                       int64_t *rows, int64_t *nb)
{
    int nd = A->shape.ndim;
    *n0 = nd ? A->shape.d[0] : 1;
    *rowel = 1;
    for (int d = 1; d < nd; d++)
        *rowel *= A->shape.d[d];
    int64_t rowb = *rowel * (int64_t)dt_size(A->dt);
    if (W && (int64_t)dt_size(W->dt) > (int64_t)dt_size(A->dt)) rowb = (int64_t)dt_size(W->dt);
    *rows = rowb > 0 ? c->opts->target_chunk_bytes / rowb : *n0;
    if (*rows < 1) *rows = 1;
    bounds_uniform(*n0, *rows, nb);
    if (*nb < 1 || *n0 == 0) *nb = 1;
}

/* Blocks of whole rows of A: one job of `step` each, appended to *jobs
 * (room for them: *cnt is updated). W (bincount's weights, 1-D like A) is
 * read over the same box as input 1. */
static int row_blocks(tctx_t *c, const jparam_t *pa, const tgrid_t *A, const tgrid_t *W, int step,
                      int extra, int32_t **jobs, int64_t *cnt)
{
    int nd = A->shape.ndim;
    int64_t n0, rowel, rows, nb;
    block_rows(c, A, W, &n0, &rowel, &rows, &nb);
    if (*cnt + nb > INT32_MAX) return tile__fail(c, "too many blocks");
    int32_t *v = arena_alloc(c->t->arena, sizeof(int32_t) * (size_t)(*cnt + nb));
    if (!v) return tile__fail(c, "out of memory while tiling");
    if (*cnt) memcpy(v, *jobs, sizeof(int32_t) * (size_t)*cnt);
    for (int64_t k = 0; k < nb; k++) {
        int64_t off[MR_MAXDIM] = {0}, len[MR_MAXDIM];
        off[0] = k * rows;
        len[0] = off[0] + rows < n0 ? rows : n0 - off[0];
        if (len[0] < 0) len[0] = 0;
        for (int d = 1; d < nd; d++)
            len[d] = A->shape.d[d];
        int32_t ji = tile__mo_job(c, pa, (W ? 2 : 1) + extra, off[0], off[0] * rowel, step, 0);
        if (ji < 0) return -1;
        if (tile__input_box(c, ji, 0, A, off, len)) return -1;
        if (W && tile__input_box(c, ji, 1, W, off, len)) return -1;
        v[*cnt + k] = ji;
    }
    *jobs = v;
    *cnt += nb;
    return 0;
}

tgrid_t *tile_setops(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    const tgrid_t *A = c->t->grid[n->in[0].node];
    const tgrid_t *B = n->n_in > 1 ? c->t->grid[n->in[1].node] : NULL;
    jparam_t *pa = tile__param_new(c, n->op);
    if (!pa) return NULL;
    pa->dfk = DFJ_MULTIOUT;
    int64_t one = 1;
    shape_t fs = {.ndim = 1, .d = {1}};
    tgrid_t *G = tile__grid_alloc(c, &fs, DT_BOOL, &one);
    if (!G) return NULL;
    G->bounds[0][0] = G->bounds[0][1] = -1; /* rows known only when it runs */
    int32_t *maps = NULL;
    int64_t cnt = 0, na;
    bool bin = n->op == OP_BINCOUNT;
    if (n->op == OP_SETDIFF1D && n->so_assume_unique) {
        /* b's set (off[1] 1: every value kept), then a filter job per
         * block of a: one blob each, in a's order */
        if (row_blocks(c, pa, B, NULL, MO_UNIQUE_MAP, 0, &maps, &cnt)) return NULL;
        int32_t mj = tile__mo_job(c, pa, (int)cnt, 0, 1, MO_SET_MERGE, 0);
        if (mj < 0) return NULL;
        for (int64_t k = 0; k < cnt; k++)
            tile__jin_direct(c, mj, (int)k, maps[k]);
        int32_t *fj = NULL;
        int64_t nf = 0;
        if (row_blocks(c, pa, A, NULL, MO_SET_FILTER, 1, &fj, &nf)) return NULL;
        shape_t s = {.ndim = 1, .d = {nf}};
        tgrid_t *F = tile__grid_alloc(c, &s, DT_BOOL, &nf);
        if (!F) return NULL;
        for (int64_t k = 0; k <= nf; k++)
            F->bounds[0][k] = -1; /* rows known only when it runs */
        for (int64_t k = 0; k < nf; k++) {
            tile__jin_direct(c, fj[k], 1, mj);
            F->job[k] = fj[k];
        }
        return F;
    }
    if (row_blocks(c, pa, A, bin ? B : NULL, bin ? MO_BIN_MAP : MO_UNIQUE_MAP, 0, &maps, &cnt))
        return NULL;
    na = cnt;
    if (!bin && row_blocks(c, pa, B, NULL, MO_UNIQUE_MAP, 0, &maps, &cnt)) return NULL;
    /* off[3]: intersect1d's result (0 values, 1 indexes in a, 2 in b) */
    int32_t ji = tile__mo_job(c, pa, (int)cnt, na, 0, bin ? MO_BIN_MERGE : MO_SET_MERGE,
                              n->n_outputs ? n->out_index : 0);
    if (ji < 0) return NULL;
    for (int64_t k = 0; k < cnt; k++)
        tile__jin_direct(c, ji, (int)k, maps[k]);
    G->job[0] = ji;
    return G;
}

tgrid_t *tile_unique_inverse(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    const tgrid_t *A = c->t->grid[n->in[0].node];
    jparam_t *pa = tile__param_new(c, n->op);
    if (!pa) return NULL;
    pa->dfk = DFJ_MULTIOUT;
    int32_t *maps = NULL;
    int64_t cnt = 0;
    if (row_blocks(c, pa, A, NULL, MO_UNIQUE_MAP, 0, &maps, &cnt)) return NULL;
    /* unique's merge, its values (off[3] 0) */
    int32_t mj = tile__mo_job(c, pa, (int)cnt, 0, 0, MO_UNIQUE_MERGE, 0);
    if (mj < 0) return NULL;
    for (int64_t k = 0; k < cnt; k++)
        tile__jin_direct(c, mj, (int)k, maps[k]);
    int nd = A->shape.ndim;
    int64_t n0, rowel, rows, nb;
    block_rows(c, A, NULL, &n0, &rowel, &rows, &nb);
    tgrid_t *G = tile__grid_alloc(c, &n->oshape, DT_INT64, &nb);
    if (!G) return NULL;
    G->bounds[0][0] = 0;
    for (int64_t k = 0; k < nb; k++) {
        int64_t off[MR_MAXDIM] = {0}, len[MR_MAXDIM];
        off[0] = k * rows;
        len[0] = off[0] + rows < n0 ? rows : n0 - off[0];
        if (len[0] < 0) len[0] = 0;
        for (int d = 1; d < nd; d++)
            len[d] = A->shape.d[d];
        int64_t el = len[0] * rowel;
        if (nd == 0) el = 1;
        int32_t ji = tile__job_new(c, JK_DF, DT_INT64, 1, &el, 2);
        if (ji < 0) return NULL;
        job_t *j = &c->t->jobs[ji];
        j->param = pa;
        j->off = tile__arena_i64(c, 4);
        if (!j->off) {
            tile__fail(c, "out of memory while tiling");
            return NULL;
        }
        j->off[0] = off[0];
        j->off[1] = off[0] * rowel;
        j->off[2] = MO_UNIQUE_INV;
        j->off[3] = 0;
        if (tile__input_box(c, ji, 0, A, off, len)) return NULL;
        tile__jin_direct(c, ji, 1, mj);
        G->bounds[0][k + 1] = G->bounds[0][k] + el;
        G->job[k] = ji;
    }
    return G;
}
