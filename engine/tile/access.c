/* access.c: what code outside the engine reads of a chunk graph (tile.h,
 * "Accessors"): services reach jobs, their inputs and the grids through
 * these, never through the structs' fields, so that a tile_t's layout stays
 * the engine's to change. */
#include "tile_priv.h"

int32_t tile_n_jobs(const tile_t *t)
{
    return t->n_jobs;
}

const graph_t *tile_graph(const tile_t *t)
{
    return t->g;
}

bool tile_job_is_live(const tile_t *t, int32_t j)
{
    return j >= 0 && j < t->n_jobs && t->live[j];
}

job_kind_t tile_job_kind(const tile_t *t, int32_t j)
{
    return (job_kind_t)t->jobs[j].kind;
}

bool tile_job_is_source(const tile_t *t, int32_t j)
{
    return t->jobs[j].kind == JK_SOURCE;
}

bool tile_job_keep(const tile_t *t, int32_t j)
{
    return t->jobs[j].keep;
}

bool tile_job_is_blob(const tile_t *t, int32_t j)
{
    return t->jobs[j].blob;
}

int32_t tile_job_node(const tile_t *t, int32_t j)
{
    return t->jobs[j].node;
}

size_t tile_job_nbytes(const tile_t *t, int32_t j)
{
    return job_nbytes(&t->jobs[j]);
}

dtype_t tile_job_dtype(const tile_t *t, int32_t j)
{
    return (dtype_t)t->jobs[j].dt;
}

int tile_job_shape(const tile_t *t, int32_t j, const int64_t **shape)
{
    *shape = t->jobs[j].shape;
    return t->jobs[j].ndim;
}

int64_t tile_job_source_index(const tile_t *t, int32_t j)
{
    return t->jobs[j].kind == JK_SOURCE ? t->jobs[j].source_index : -1;
}

int tile_job_n_reads(const tile_t *t, int32_t j)
{
    const job_t *jb = &t->jobs[j];
    int n = 0;
    for (int k = 0; k < jb->n_in; k++)
        n += jb->in[k].job >= 0 ? 1 : jb->in[k].n_pieces;
    return n;
}

int tile_job_sources(const tile_t *t, int32_t j, int32_t *out)
{
    const job_t *jb = &t->jobs[j];
    int n = 0;
    for (int k = 0; k < jb->n_in; k++) {
        const jin_t *x = &jb->in[k];
        int np = x->job >= 0 ? 1 : x->n_pieces;
        for (int q = 0; q < np; q++) {
            int32_t src = x->job >= 0 ? x->job : x->pieces[q].src;
            bool seen = false;
            for (int i = 0; i < n && !seen; i++)
                seen = out[i] == src;
            if (!seen) out[n++] = src;
        }
    }
    return n;
}

int64_t tile_job_pack_part(const tile_t *t, int32_t j, int32_t src)
{
    const job_t *jb = &t->jobs[j], *sj = &t->jobs[src];
    if (jb->kind != JK_DF || sj->kind != JK_DF) return -1;
    int k = jb->param->dfk, ks = sj->param->dfk;
    if (k == DFJ_MERGE_ORDER && (ks == DFJ_MERGE_PART || ks == DFJ_MERGE_BPART)) return jb->off[0];
    if (k == DFJ_MERGE_BPART && ks == DFJ_MERGE_BPLAN) return jb->off[0];
    if (k == DFJ_WHOLE_PART && ks == DFJ_WHOLE) return jb->off[0];
    if ((k == DFJ_JOIN_CHECK || k == DFJ_JOIN_COUNT) && ks == DFJ_JOIN_KEYS) return jb->off[0];
    if (k == DFJ_JOIN_COUNT && ks == DFJ_HASH_PART) return jb->off[0]; /* an outer merge's */
    if ((k != DFJ_GB_PART && k != DFJ_SORT_PART && k != DFJ_MERGE_PART) ||
        (ks != DFJ_HASH_PART && ks != DFJ_SORT_RANGE))
        return -1;
    return jb->off[0];
}

/* ---- grids ---------------------------------------------------------------- */

static const tgrid_t *grid_of(const tile_t *t, int32_t node)
{
    return t->grid && node >= 0 && node < t->g->n_nodes ? t->grid[node] : NULL;
}

int64_t tile_grid_total(const tile_t *t, int32_t node)
{
    const tgrid_t *G = grid_of(t, node);
    return G ? G->total : -1;
}

int32_t tile_grid_job(const tile_t *t, int32_t node, int64_t li)
{
    return grid_of(t, node)->job[li];
}

const shape_t *tile_grid_shape(const tile_t *t, int32_t node)
{
    return &grid_of(t, node)->shape;
}

dtype_t tile_grid_dtype(const tile_t *t, int32_t node)
{
    return grid_of(t, node)->dt;
}

int64_t tile_grid_nchunks(const tile_t *t, int32_t node, int d)
{
    return grid_of(t, node)->nchunks[d];
}

const int64_t *tile_grid_bounds(const tile_t *t, int32_t node, int d)
{
    return grid_of(t, node)->bounds[d];
}

void tile_grid_coords(const tile_t *t, int32_t node, int64_t li, int64_t *co)
{
    const tgrid_t *G = grid_of(t, node);
    for (int d = G->shape.ndim - 1; d >= 0; d--) {
        co[d] = li % G->nchunks[d];
        li /= G->nchunks[d];
    }
}

int64_t tile_job_grid_pos(const tile_t *t, int32_t j)
{
    const tgrid_t *G = grid_of(t, t->jobs[j].node);
    for (int64_t li = 0; G && li < G->total; li++)
        if (G->job[li] == j) return li;
    return -1;
}
