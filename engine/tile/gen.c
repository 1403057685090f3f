/* gen.c: creation and random chunks generated inside the jobs that read
 * them rather than stored.
 *
 * A creation op (ones, zeros, full, arange, linspace, eye, array) costs less
 * to generate than to store and fetch: every job that reads one of its chunks
 * generates the part it needs, whatever the job is (element-wise, reduction,
 * gather for transpose/rechunk/slicing/reshape, block product). A random op
 * costs more, so a chunk of one is generated in its reader only when exactly
 * one job reads it. Values depend only on the element's global position
 * (create.c; random.c's Philox streams), so a generated box holds the bytes
 * the stored chunk would have.
 *
 * This runs after tiling, on the chunk graph: an input reading a chosen chunk
 * whole, or pieces of it, becomes a gpiece (the chunk's box that the pieces
 * touch, and the copy out of it). Element-wise programs and reduction maps
 * already read creation leaves by box (jin_t.gen_node, planned per node in
 * core.c); this covers every other reader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arena.h"
#include "../scratch.h"
#include "tile_priv.h"

static bool node_fetched(const tctx_t *c, int32_t node)
{
    return c->g->nodes[node].fetch;
}

/* The box of chunk job s that piece p reads: lo[a], len[a] per axis a of
 * s, with p's dimension d walking s's axis ax[d] by step[d] elements from
 * pos[ax[d]]. A piece may walk the axes in another order (a transpose) or
 * with steps (a strided slice). False when p is not such a walk (then it
 * stays a piece). */
static bool piece_box(const job_t *sj, const piece_t *p, int64_t *pos, int *ax, int64_t *step,
                      int64_t *lo, int64_t *len)
{
    int nd = sj->ndim;
    if (p->ndim != nd || nd < 1) return false;
    int64_t sst[MR_MAXDIM];
    c_strides(nd, sj->shape, sst);
    for (int a = 0; a < nd; a++)
        if (sj->shape[a] <= 0) return false;
    if (!c_decompose(nd, sst, sj->shape, p->src_off, pos)) return false;
    bool used[MR_MAXDIM] = {false};
    for (int d = 0; d < nd; d++) {
        ax[d] = -1;
        step[d] = 1;
        if (p->count[d] <= 0) return false;
        if (p->count[d] == 1) continue;
        /* the outermost unused axis whose stride divides the piece's and
         * whose walk stays inside the chunk */
        for (int a = 0; a < nd && ax[d] < 0; a++) {
            if (used[a] || p->src_stride[d] % sst[a] != 0) continue;
            int64_t k = p->src_stride[d] / sst[a];
            if (k == 0) continue;
            int64_t end = pos[a] + k * (p->count[d] - 1);
            if (end < 0 || end >= sj->shape[a]) continue;
            ax[d] = a;
            step[d] = k;
            used[a] = true;
        }
        if (ax[d] < 0) return false;
    }
    for (int d = 0; d < nd; d++) /* length-1 dimensions: any axis left */
        if (ax[d] < 0)
            for (int a = 0; a < nd; a++)
                if (!used[a]) {
                    ax[d] = a;
                    used[a] = true;
                    break;
                }
    for (int a = 0; a < nd; a++) {
        lo[a] = pos[a];
        len[a] = 1;
    }
    for (int d = 0; d < nd; d++) {
        int a = ax[d];
        int64_t span = (step[d] < 0 ? -step[d] : step[d]) * (p->count[d] - 1);
        lo[a] = step[d] > 0 ? pos[a] : pos[a] - span;
        len[a] = span + 1;
    }
    return true;
}

/* Elements generating the box piece p reads of chunk job s takes, or -1
 * when p is not a box walk. */
static int64_t piece_box_size(const job_t *sj, const piece_t *p)
{
    int64_t pos[MR_MAXDIM], step[MR_MAXDIM], lo[MR_MAXDIM], len[MR_MAXDIM];
    int ax[MR_MAXDIM];
    if (!piece_box(sj, p, pos, ax, step, lo, len)) return -1;
    return prod(sj->ndim, len);
}

/* Turns piece p of chunk job s into gpiece g: the box of s that p reads,
 * generated in s's C layout, and p's copy out of it. */
static bool to_gpiece(tctx_t *c, const job_t *sj, const piece_t *p, gpiece_t *g)
{
    int nd = sj->ndim;
    int64_t pos[MR_MAXDIM], step[MR_MAXDIM], lo[MR_MAXDIM], len[MR_MAXDIM];
    int ax[MR_MAXDIM];
    if (!piece_box(sj, p, pos, ax, step, lo, len)) return false;
    int64_t bst[MR_MAXDIM];
    c_strides(nd, len, bst);
    g->node = sj->node;
    g->ndim = nd;
    g->off = tile__arena_i64(c, nd);
    g->len = arena_i64_copy(c, len, nd);
    g->p = *p;
    g->p.src = -1;
    g->p.src_stride = tile__arena_i64(c, nd);
    g->p.src_off = 0;
    for (int a = 0; a < nd; a++) {
        g->off[a] = sj->off[a] + lo[a];
        g->p.src_off += (pos[a] - lo[a]) * bst[a];
    }
    for (int d = 0; d < nd; d++)
        g->p.src_stride[d] = step[d] * bst[ax[d]];
    return true;
}

/* Chunk job s read whole: one gpiece copying all of it. */
static void whole_gpiece(tctx_t *c, const job_t *sj, gpiece_t *g)
{
    g->node = sj->node;
    g->ndim = sj->ndim;
    g->off = sj->off;
    g->len = sj->shape;
    memset(&g->p, 0, sizeof(g->p));
    g->p.src = -1;
    g->p.ndim = 1;
    g->p.count = tile__arena_i64(c, 1);
    g->p.src_stride = tile__arena_i64(c, 1);
    g->p.dst_stride = g->p.src_stride;
    g->p.count[0] = prod(sj->ndim, sj->shape);
    g->p.src_stride[0] = 1;
}

/* A random chunk read by several jobs is generated by each of them when
 * they read it in parts: its elements may be generated this fraction more
 * than once in all (1/4). */
#define GEN_SHARED_SLACK 4

/* Per job: elements its readers would generate if each generated the part
 * it reads (a reader of the whole chunk: all of it), for random jobs read by
 * more than one job; -1 where a reader's piece is not a box walk, and for
 * other jobs. NULL on OOM. */
static int64_t *random_read_volumes(const tile_t *t, const int32_t *readers)
{
    int32_t n = t->n_jobs;
    int64_t *vol = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!vol) return NULL;
    for (int32_t j = 0; j < n; j++)
        vol[j] = t->jobs[j].kind == JK_RANDOM && readers[j] > 1 ? 0 : -1;
    for (int32_t j = 0; j < n; j++) {
        const job_t *jb = &t->jobs[j];
        for (int k = 0; k < jb->n_in; k++) {
            const jin_t *in = &jb->in[k];
            if (in->job >= 0) {
                const job_t *sj = &t->jobs[in->job];
                if (vol[in->job] >= 0) vol[in->job] += prod(sj->ndim, sj->shape);
                continue;
            }
            for (int32_t q = 0; q < in->n_pieces; q++) {
                int32_t s = in->pieces[q].src;
                if (vol[s] < 0) continue;
                int64_t b = piece_box_size(&t->jobs[s], &in->pieces[q]);
                vol[s] = b < 0 ? -1 : vol[s] + b;
            }
        }
    }
    return vol;
}

int tile__plan_virtual(tctx_t *c)
{
    tile_t *t = c->t;
    if (c->opts->keep_all) return 0;
    int32_t n = t->n_jobs;
    uint8_t *cand = calloc((size_t)n + 1, 1);
    int32_t *last = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int32_t *readers = calloc((size_t)n + 1, sizeof(int32_t));
    if (!cand || !last || !readers) {
        free(cand);
        free(last);
        free(readers);
        snprintf(c->err, c->errlen, "document: out of memory while tiling");
        return -1;
    }
    for (int32_t j = 0; j < n; j++)
        last[j] = -1;
    /* distinct reader jobs of every job */
    for (int32_t j = 0; j < n; j++) {
        const job_t *jb = &t->jobs[j];
        for (int k = 0; k < jb->n_in; k++) {
            const jin_t *in = &jb->in[k];
            int32_t np = in->job >= 0 ? 1 : in->n_pieces;
            for (int32_t q = 0; q < np; q++) {
                int32_t s = in->job >= 0 ? in->job : in->pieces[q].src;
                if (last[s] != j) {
                    last[s] = j;
                    readers[s]++;
                }
            }
        }
    }
    int64_t *vol = random_read_volumes(t, readers);
    if (!vol) {
        free(cand);
        free(last);
        free(readers);
        snprintf(c->err, c->errlen, "document: out of memory while tiling");
        return -1;
    }
    for (int32_t j = 0; j < n; j++) {
        const job_t *jb = &t->jobs[j];
        if (jb->keep || node_fetched(c, jb->node) || readers[j] == 0) continue;
        if (jb->kind == JK_CREATE || (jb->kind == JK_RANDOM && readers[j] == 1)) cand[j] = 1;
        /* a random chunk its readers split between them (a transpose or a
         * rechunk cutting it in parts): each generates its own part, at
         * most GEN_SHARED_SLACK more elements in all than the chunk holds */
        int64_t nel = prod(jb->ndim, jb->shape);
        if (jb->kind == JK_RANDOM && readers[j] > 1 && vol[j] >= 0 &&
            vol[j] <= nel + nel / GEN_SHARED_SLACK)
            cand[j] = 1;
    }
    free(vol);
    for (int32_t j = 0; j < n; j++) {
        job_t *jb = &t->jobs[j];
        for (int k = 0; k < jb->n_in; k++) {
            jin_t *in = &jb->in[k];
            if (in->job >= 0) {
                if (!cand[in->job]) continue;
                const job_t *sj = &t->jobs[in->job];
                gpiece_t *g = arena_alloc(t->arena, sizeof(gpiece_t));
                whole_gpiece(c, sj, g);
                in->job = -1;
                in->n_pieces = 0;
                in->pieces = NULL;
                in->n_gpieces = 1;
                in->gpieces = g;
                /* an alias of a chunk that is never stored: a gather of it */
                if (jb->kind == JK_ALIAS) jb->kind = JK_GATHER;
                continue;
            }
            int32_t m = 0;
            for (int32_t q = 0; q < in->n_pieces; q++)
                m += cand[in->pieces[q].src];
            if (m == 0) continue;
            gpiece_t *gp = arena_alloc(t->arena, sizeof(gpiece_t) * (size_t)m);
            int32_t kept = 0, ng = 0;
            for (int32_t q = 0; q < in->n_pieces; q++) {
                const piece_t *p = &in->pieces[q];
                if (cand[p->src] && to_gpiece(c, &t->jobs[p->src], p, &gp[ng])) {
                    ng++;
                    continue;
                }
                in->pieces[kept++] = *p;
            }
            in->n_pieces = kept;
            in->n_gpieces = ng;
            in->gpieces = ng ? gp : NULL;
        }
    }
    free(cand);
    free(last);
    free(readers);
    return 0;
}

bool tile_gpiece_contiguous(const gpiece_t *g)
{
    const piece_t *p = &g->p;
    if (p->src_off != 0) return false;
    /* dims of one element are free; the others continue each other */
    int64_t s = 1;
    for (int d = p->ndim - 1; d >= 0; d--) {
        if (p->count[d] > 1 && (p->src_stride[d] != s || p->dst_stride[d] != s)) return false;
        s *= p->count[d];
    }
    return s == prod(g->ndim, g->len);
}

int tile_gen_pieces(const tile_t *t, const jin_t *in, void *dst)
{
    size_t es = dt_size(in->dt);
    for (int32_t i = 0; i < in->n_gpieces; i++) {
        const gpiece_t *g = &in->gpieces[i];
        if (tile__piece_empty(&g->p)) continue; /* nothing written; offsets unchecked */
        kern_gen_t gp;
        tile_gen_params(&t->g->nodes[g->node], &gp);
        arr_t a = {.dt = gp.dt};
        a.shape.ndim = g->ndim;
        for (int d = 0; d < g->ndim; d++)
            a.shape.d[d] = g->len[d];
        int64_t nel = prod(g->ndim, g->len);
        const piece_t *p = &g->p;
        bool whole = tile_gpiece_contiguous(g);
        void *buf = NULL;
        const piece_t *p_ = p;
        piece_t row;
        int64_t zero[MR_MAXDIM];
        bool fill = (gp.op == OP_ONES || gp.op == OP_ZEROS || gp.op == OP_FULL) && !whole &&
                    p->ndim == g->ndim && p->ndim > 0 && p->src_off == 0 &&
                    p->src_stride[p->ndim - 1] == 1;
        if (fill) {
            /* the same value everywhere: one row made, copied to every
             * row of the box in dst (no box-sized scratch) */
            row = *p;
            for (int d = 0; d < p->ndim - 1; d++)
                zero[d] = 0;
            zero[p->ndim - 1] = 1;
            row.src_stride = zero;
            p_ = &row;
            a.shape.ndim = 1;
            a.shape.d[0] = p->count[p->ndim - 1];
            nel = a.shape.d[0];
        }
        if (whole) {
            a.data = (char *)dst + p->dst_off * (int64_t)es;
        } else {
            buf = scratch_alloc((size_t)(nel > 0 ? nel : 1) * es);
            if (!buf) return -1;
            a.data = buf;
        }
        if (op_kind(gp.op) == OPK_RANDOM)
            kern_random(&gp, g->off, &a);
        else
            kern_create(&gp, g->off, &a);
        if (!whole) tile__copy_piece(p_, buf, dst, es);
        scratch_free(buf);
    }
    return 0;
}
