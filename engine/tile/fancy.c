/* fancy.c: the tiling of advanced indexing (fancy.h): one JK_FANCY job that
 * reads every tensor input whole, its inputs and output bounded together by
 * FANCY_MAX_BYTES. The result is one chunk, or for a held result (its length
 * known only when it runs) one frame blob, as a held dataframe.to_tensor. */
#include "../arena.h"
#include "../fancy.h"
#include "tile_priv.h"

static bool add_bytes(int64_t *acc, const shape_t *s, dtype_t dt)
{
    int64_t e = shape_size(s), b;
    if (e < 0 || mul_ovf_i64(e, (int64_t)dt_size(dt), &b)) return false;
    return !add_ovf_i64(*acc, b, acc);
}

static tgrid_t *tile_fancy_one(tctx_t *c, int node)
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

/* setitem(a, scalar, mask) with a mask of a's shape (a[a < 0] = 0): one job
 * per chunk of a, reading that chunk and the same box of the mask. */
static tgrid_t *tile_maskfill(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    const fancy_t *fx = n->fancy;
    const tgrid_t *A = c->t->grid[n->in[fx->src_in].node];
    const tgrid_t *M = c->t->grid[n->in[fx->ent[0].in].node];
    if (!A || !M) return tile_fancy_one(c, node);
    fancy_t *fj = arena_alloc(c->t->arena, sizeof(fancy_t));
    *fj = *fx;
    fj->mode = FXM_MASKFILL;
    jparam_t *pa = tile__param_new(c, n->op);
    pa->fx = fj;
    int64_t nch[MR_MAXDIM];
    const int64_t *bnd[MR_MAXDIM];
    for (int d = 0; d < A->shape.ndim; d++) {
        nch[d] = A->nchunks[d];
        bnd[d] = A->bounds[d];
    }
    tgrid_t *G = grid_with_bounds(c, &n->oshape, n->odtype, bnd, nch);
    if (!G) return NULL;
    for (gwalk_t w = gwalk_start(G); gwalk_next(&w);) {
        int32_t ji = tile__job_new(c, JK_FANCY, n->odtype, n->oshape.ndim, w.len, 2);
        if (ji < 0) return NULL;
        c->t->jobs[ji].param = pa;
        /* job inputs follow the node's tensor inputs: a, then the mask */
        if (tile__input_box(c, ji, 0, A, w.off, w.len) ||
            tile__input_box(c, ji, 1, M, w.off, w.len))
            return NULL;
        G->job[w.li] = ji;
    }
    return G;
}

/* Output dim d of a getitem or take without masks: the entry it comes from
 * (>= 0), or -1 - q for broadcast dim q (the placement fancy_view_shape
 * makes). */
static int view_dims(const fancy_t *fx, int nb, int *vsrc)
{
    int first = -1, last = -1;
    for (int k = 0; k < fx->n_ent; k++)
        if (fancy_is_adv(fx, k)) {
            if (first < 0) first = k;
            last = k;
        }
    bool adjacent = true;
    for (int k = first; first >= 0 && k <= last; k++)
        if (!fancy_is_adv(fx, k) && fx->ent[k].kind != FX_NEW) adjacent = false;
    int m = 0;
    if (first >= 0 && !adjacent)
        for (int q = 0; q < nb; q++)
            vsrc[m++] = -1 - q;
    for (int k = 0; k < fx->n_ent; k++) {
        if (fancy_is_adv(fx, k)) {
            if (adjacent && k == first)
                for (int q = 0; q < nb; q++)
                    vsrc[m++] = -1 - q;
            continue;
        }
        if (fx->ent[k].kind == FX_INT) continue;
        vsrc[m++] = k;
    }
    return m;
}

static int64_t box_bytes(int nd, const int64_t *len, dtype_t dt)
{
    int64_t b = (int64_t)dt_size(dt);
    for (int d = 0; d < nd; d++)
        if (mul_ovf_i64(b, len[d], &b)) return INT64_MAX;
    return b;
}

/* getitem and take without masks: the result is split along the axes the
 * index keeps whole (as the source's chunks) and, when one integer tensor
 * makes the broadcast dims, along that tensor's chunks. Each job reads its
 * band of the source (whole along the indexed axes) and its chunk of the
 * index: FANCY_MAX_BYTES bounds one job, not the whole op. */
tgrid_t *tile_fancy(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    const fancy_t *fx = n->fancy;
    if (fx->set && fx->n_ent == 1 && fx->ent[0].kind == FX_MASK &&
        fx->ent[0].nax == n->oshape.ndim && n->in[fx->value_in].node < 0)
        return tile_maskfill(c, node);
    if (fx->held || fx->set || fx->mode != FXM_INDEX) return tile_fancy_one(c, node);
    int n_arr = 0, arr_k = -1;
    for (int k = 0; k < fx->n_ent; k++) {
        if (fx->ent[k].kind == FX_MASK || fx->ent[k].kind == FX_COND)
            return tile_fancy_one(c, node);
        if (fx->ent[k].kind == FX_ARR) {
            n_arr++;
            arr_k = k;
        }
    }
    const graph_t *g = c->g;
    int src_node = n->in[fx->src_in].node;
    const tgrid_t *A = c->t->grid[src_node];
    const tgrid_t *I = n_arr == 1 ? c->t->grid[n->in[fx->ent[arr_k].in].node] : NULL;
    int nb = I ? I->shape.ndim : 0;
    if (n_arr > 1) { /* the broadcast rank of several tensors */
        for (int k = 0; k < fx->n_ent; k++)
            if (fx->ent[k].kind == FX_ARR) {
                int nd = g->nodes[n->in[fx->ent[k].in].node].oshape.ndim;
                nb = nd > nb ? nd : nb;
            }
    }
    if (!A || (n_arr == 1 && !I)) return tile_fancy_one(c, node);
    int vsrc[MR_MAXDIM];
    int nv = view_dims(fx, nb, vsrc);
    if (nv != n->oshape.ndim) return tile_fancy_one(c, node);
    int64_t nch[MR_MAXDIM];
    const int64_t *bnd[MR_MAXDIM];
    int64_t whole[MR_MAXDIM][2];
    for (int d = 0; d < nv; d++) {
        int k = vsrc[d];
        const fx_ent_t *e = k >= 0 ? &fx->ent[k] : NULL;
        if (e && e->kind == FX_SLICE && !fx->flat_src && e->ix.start == 0 && e->ix.step == 1 &&
            e->ix.len == A->shape.d[e->axis]) {
            nch[d] = A->nchunks[e->axis];
            bnd[d] = A->bounds[e->axis];
        } else if (k < 0 && I) {
            nch[d] = I->nchunks[-1 - k];
            bnd[d] = I->bounds[-1 - k];
        } else {
            whole[d][0] = 0;
            whole[d][1] = n->oshape.d[d];
            nch[d] = 1;
            bnd[d] = whole[d];
        }
    }
    tgrid_t *G = grid_with_bounds(c, &n->oshape, n->odtype, bnd, nch);
    if (!G) return NULL;
    int n_tin = 0;
    for (int k = 0; k < n->n_in; k++)
        n_tin += n->in[k].node >= 0;
    for (gwalk_t w = gwalk_start(G); gwalk_next(&w);) {
        fancy_t *fj = arena_alloc(c->t->arena, sizeof(fancy_t));
        *fj = *fx;
        int64_t soff[MR_MAXDIM] = {0}, slen[MR_MAXDIM], ioff[MR_MAXDIM] = {0}, ilen[MR_MAXDIM];
        for (int d = 0; d < A->shape.ndim; d++)
            slen[d] = A->shape.d[d];
        for (int d = 0; I && d < I->shape.ndim; d++)
            ilen[d] = I->shape.d[d];
        for (int d = 0; d < nv; d++) {
            int k = vsrc[d];
            if (nch[d] == 1) continue;
            if (k >= 0) {
                fx_ent_t *e = &fj->ent[k];
                soff[e->axis] = w.off[d];
                slen[e->axis] = w.len[d];
                e->ix.start = 0;
                e->ix.stop = e->ix.len = w.len[d];
            } else {
                ioff[-1 - k] = w.off[d];
                ilen[-1 - k] = w.len[d];
            }
        }
        int64_t bytes = box_bytes(nv, w.len, n->odtype);
        /* the source whole along every axis, in row chunks: the job reads
         * the chunks where they are rather than a copy of them joined */
        bool through = A->nchunks[0] > 1 && soff[0] == 0 && slen[0] == A->shape.d[0];
        for (int d = 1; d < A->shape.ndim && through; d++)
            through = A->nchunks[d] == 1 && soff[d] == 0 && slen[d] == A->shape.d[d];
        for (int64_t i = 0; i < A->nchunks[0] && through; i++)
            through = A->job[i] >= 0;
        if (through) {
            fj->src_nch = (int)A->nchunks[0];
            fj->src_rows = A->bounds[0];
        }
        int n_jin = through ? n_tin - 1 + fj->src_nch : n_tin;
        int32_t ji = tile__job_new(c, JK_FANCY, n->odtype, nv, w.len, n_jin);
        if (ji < 0) return NULL;
        jparam_t *pa = tile__param_new(c, n->op);
        pa->fx = fj;
        c->t->jobs[ji].param = pa;
        for (int k = 0, q = 0; k < n->n_in; k++) {
            int m = n->in[k].node;
            if (m < 0) continue;
            const tgrid_t *M = c->t->grid[m];
            if (!M) {
                tile__fail(c, "internal: input \"%s\" has no grid", g->nodes[m].key);
                return NULL;
            }
            int64_t zero[MR_MAXDIM] = {0};
            const int64_t *off = zero, *len = M->shape.d;
            if (k == fx->src_in) {
                off = soff;
                len = slen;
            } else if (I && k == fx->ent[arr_k].in) {
                off = ioff;
                len = ilen;
            }
            int64_t b = box_bytes(M->shape.ndim, len, M->dt);
            if (add_ovf_i64(bytes, b, &bytes)) bytes = INT64_MAX;
            if (k == fx->src_in && through) {
                for (int64_t i = 0; i < A->nchunks[0]; i++)
                    tile__jin_direct(c, ji, q++, A->job[i]);
                continue;
            }
            if (tile__input_box(c, ji, q++, M, off, len)) return NULL;
        }
        if (bytes > FANCY_MAX_BYTES) {
            tile__fail(c,
                       "advanced indexing reads the indexed axes whole: one job needs %lld "
                       "bytes, more than the limit of %lld (FANCY_MAX_BYTES); rechunk the "
                       "source smaller along the other axes",
                       (long long)bytes, (long long)FANCY_MAX_BYTES);
            return NULL;
        }
        G->job[w.li] = ji;
    }
    return G;
}
