/* fancy.c: the tiling of advanced indexing (fancy.h): one JK_FANCY job that
 * reads every tensor input whole, its inputs and output bounded together by
 * FANCY_MAX_BYTES. The result is one chunk, or for a held result (its length
 * known only when it runs) one frame blob, as a held dataframe.to_tensor. */
#include "../fancy.h"
#include "tile_priv.h"

static bool add_bytes(int64_t *acc, const shape_t *s, dtype_t dt)
{
    int64_t e = shape_size(s), b;
    if (e < 0 || mul_ovf_i64(e, (int64_t)dt_size(dt), &b)) return false;
    return !add_ovf_i64(*acc, b, acc);
}

tgrid_t *tile_fancy(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    const fancy_t *fx = n->fancy;
    int n_tin = 0;
    int64_t bytes = 0;
    bool ok = true;
    for (int k = 0; k < n->n_in; k++) {
        int m = n->in[k].node;
        if (m < 0) continue;
        n_tin++;
        ok &= add_bytes(&bytes, &c->g->nodes[m].oshape, c->g->nodes[m].odtype);
    }
    if (fx->held) {
        /* at most every element of the source (argwhere: ndim positions of each) */
        const graph_node_t *a = &c->g->nodes[n->in[fx->src_in].node];
        shape_t s = a->oshape;
        int64_t per = fx->mode == FXM_ARGWHERE ? s.ndim : 1;
        ok &= add_bytes(&bytes, &s, fx->mode == FXM_INDEX ? a->odtype : DT_INT64);
        for (int64_t q = 1; q < per && ok; q++)
            ok &= add_bytes(&bytes, &s, DT_INT64);
    } else {
        ok &= add_bytes(&bytes, &n->oshape, n->odtype);
    }
    if (!ok || bytes > FANCY_MAX_BYTES) {
        tile__fail(c,
                   "advanced indexing reads its inputs whole in one job: inputs and result need "
                   "more than the limit of %lld bytes (FANCY_MAX_BYTES)",
                   (long long)FANCY_MAX_BYTES);
        return NULL;
    }
    int32_t ji = tile__job_new(c, JK_FANCY, n->odtype, n->oshape.ndim, n->oshape.d, n_tin);
    if (ji < 0) return NULL;
    c->t->jobs[ji].param = tile__param_new(c, n->op);
    for (int k = 0, q = 0; k < n->n_in; k++) {
        int m = n->in[k].node;
        if (m < 0) continue;
        const tgrid_t *G = c->t->grid[m];
        if (!G) {
            tile__fail(c, "internal: input \"%s\" has no grid", c->g->nodes[m].key);
            return NULL;
        }
        int64_t zero[MR_MAXDIM] = {0};
        if (tile__input_box(c, ji, q++, G, zero, G->shape.d)) return NULL;
    }
    if (fx->held) {
        c->t->jobs[ji].blob = true;
        shape_t s = {.ndim = 1};
        s.d[0] = 1;
        int64_t one = 1;
        tgrid_t *G = tile__grid_alloc(c, &s, DT_BOOL, &one);
        if (!G) return NULL;
        G->bounds[0][0] = G->bounds[0][1] = -1; /* rows known only when it runs */
        G->job[0] = ji;
        return G;
    }
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
