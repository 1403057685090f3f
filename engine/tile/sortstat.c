/* sortstat.c: tiling of the sortstat ops (engine/sortstat.h).
 *
 * Three shapes of job, all JK_SS:
 *   line   ops along an axis (sort, argsort, partition, argpartition, topk,
 *          the percentiles, median, average): the input is rechunked so the
 *          axis is one chunk (other axes keep their chunks), one job per
 *          chunk; axis None flattens the input into one block.
 *   elem   searchsorted, isin, in1d, digitize: one job per chunk of the
 *          values looked up, each also reading the whole sorted array, test
 *          set or bins (one block).
 *   whole  cov, corrcoef, allclose: one job reads every input whole.
 * Every block gathered into one job is checked against SS_MAX_BLOCK_BYTES. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arena.h"
#include "../sortstat.h"
#include "tile_priv.h"

static int too_big(tctx_t *c, int64_t bytes, const char *what)
{
    return tile__fail(c,
                      "%s needs %lld bytes in one job, over the single-block limit of %lld "
                      "bytes (SS_MAX_BLOCK_BYTES); rechunk along the other axes or reduce the "
                      "input",
                      what, (long long)bytes, (long long)SS_MAX_BLOCK_BYTES);
}

/* A job whose output is the whole of G (one chunk). */
static int32_t whole_job(tctx_t *c, const tgrid_t *G, const char *what)
{
    int64_t bytes = shape_size(&G->shape) * (int64_t)dt_size(G->dt);
    if (bytes > SS_MAX_BLOCK_BYTES) {
        too_big(c, bytes, what);
        return -1;
    }
    if (G->total == 1) return G->job[0];
    int64_t *b[MR_MAXDIM], nch[MR_MAXDIM];
    for (int d = 0; d < G->shape.ndim; d++) {
        b[d] = tile__arena_i64(c, 2);
        b[d][0] = 0;
        b[d][1] = G->shape.d[d];
        nch[d] = 1;
    }
    tgrid_t *R = grid_rechunk(c, G, b, nch);
    return R ? R->job[0] : -1;
}

/* A grid of n's whole result in one chunk, made by job ji. */
static tgrid_t *one_chunk(tctx_t *c, const graph_node_t *n, int32_t ji)
{
    int64_t *b[MR_MAXDIM], nch[MR_MAXDIM];
    for (int d = 0; d < n->oshape.ndim; d++) {
        if (!(b[d] = tile__arena_i64(c, 2))) return NULL;
        b[d][0] = 0;
        b[d][1] = n->oshape.d[d];
        nch[d] = 1;
    }
    tgrid_t *R = grid_with_bounds(c, &n->oshape, n->odtype, (const int64_t *const *)b, nch);
    if (R) R->job[0] = ji;
    return R;
}

static tgrid_t *flat_grid(tctx_t *c, const tgrid_t *G)
{
    shape_t f = {.ndim = 1, .d = {shape_size(&G->shape)}};
    if (G->shape.ndim == 1) return (tgrid_t *)G;
    return grid_reshape(c, G, &f);
}

/* G rechunked so that axis ax is one chunk; other axes keep their bounds. */
static tgrid_t *along_grid(tctx_t *c, const tgrid_t *G, int ax, const char *what)
{
    int64_t *b[MR_MAXDIM], nch[MR_MAXDIM];
    int64_t maxb = (int64_t)dt_size(G->dt);
    for (int d = 0; d < G->shape.ndim; d++) {
        if (d == ax) {
            b[d] = tile__arena_i64(c, 2);
            b[d][0] = 0;
            b[d][1] = G->shape.d[d];
            nch[d] = 1;
            maxb *= G->shape.d[d];
        } else {
            b[d] = G->bounds[d];
            nch[d] = G->nchunks[d];
            int64_t m = 0;
            for (int64_t k = 0; k < nch[d]; k++)
                if (b[d][k + 1] - b[d][k] > m) m = b[d][k + 1] - b[d][k];
            maxb *= m;
        }
    }
    if (maxb > SS_MAX_BLOCK_BYTES) {
        too_big(c, maxb, what);
        return NULL;
    }
    return grid_rechunk(c, G, b, nch);
}

static int32_t ss_job(tctx_t *c, const jparam_t *pa, dtype_t dt, int nd, const int64_t *shape,
                      int n_in)
{
    int32_t ji = tile__job_new(c, JK_SS, dt, nd, shape, n_in);
    if (ji >= 0) c->t->jobs[ji].param = pa;
    return ji;
}

static bool is_line_op(op_t op)
{
    switch (op) {
    case OP_SORT:
    case OP_ARGSORT:
    case OP_PARTITION:
    case OP_ARGPARTITION:
    case OP_TOPK:
    case OP_PERCENTILE:
    case OP_QUANTILE:
    case OP_MEDIAN:
    case OP_NANPERCENTILE:
    case OP_NANQUANTILE:
    case OP_NANMEDIAN:
    case OP_AVERAGE:
        return true;
    default:
        return false;
    }
}

static bool keeps_shape(op_t op)
{
    return op == OP_SORT || op == OP_ARGSORT || op == OP_PARTITION || op == OP_ARGPARTITION ||
           op == OP_TOPK;
}

/* A sort of the 1-D grid X longer than opts->sort_block_bytes: a merge
 * network over blocks (sortstat.h). Batcher's odd-even merge sort for any
 * block count (the iterative form, which is the network of the next power
 * of two with its comparators on missing blocks left out); every block has
 * blk elements but the last, which may be shorter and is always the second
 * of its comparators, so that each comparator keeps both blocks' lengths
 * and the blocks end up sorted in order (tests/diff/test_sortstat.py). */
/* Batcher's odd-even merge sort network on p blocks, in the iterative form
 * that serves any p (the network of the next power of two with its
 * comparators on missing blocks left out): its comparators (x < y) in
 * order, into *pairs (2 per comparator, arena memory); the count, or -1. */
static int64_t batcher(tctx_t *c, int64_t p, int64_t **pairs)
{
    int64_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        int64_t at = 0;
        for (int64_t s = 1; s < p; s *= 2)
            for (int64_t k = s; k >= 1; k /= 2)
                for (int64_t j = k % s; j + k < p; j += 2 * k)
                    for (int64_t i = 0; i < k && i + j + k < p; i++) {
                        int64_t x = i + j, y = i + j + k;
                        if (x / (2 * s) != y / (2 * s)) continue;
                        if (pass) {
                            (*pairs)[2 * at] = x;
                            (*pairs)[2 * at + 1] = y;
                        }
                        at++;
                    }
        n = at;
        if (!pass && !(*pairs = tile__arena_i64(c, 2 * n + 2))) {
            tile__fail(c, "out of memory while tiling");
            return -1;
        }
    }
    return n;
}

/* The network's comparators over sorted blocks cur[0..p) along axis ax
 * (bounds b, per slots an element, shape the blocks' other extents): two
 * split jobs each, cur updated to the merged blocks. 0 or -1. */
static int merge_steps(tctx_t *c, const jparam_t *lo, const jparam_t *hi, dtype_t bdt, int nd,
                       const int64_t *shape, int ax, const int64_t *b, int64_t per,
                       const int64_t *pr, int64_t ncmp, int32_t *cur)
{
    int64_t sx[MR_MAXDIM], sy[MR_MAXDIM];
    for (int d = 0; d < nd; d++)
        sx[d] = sy[d] = shape[d];
    for (int64_t q = 0; q < ncmp; q++) {
        int64_t x = pr[2 * q], y = pr[2 * q + 1];
        sx[ax] = (b[x + 1] - b[x]) * per;
        sy[ax] = (b[y + 1] - b[y]) * per;
        int32_t jl = ss_job(c, lo, bdt, nd, sx, 2);
        int32_t jh = jl < 0 ? -1 : ss_job(c, hi, bdt, nd, sy, 2);
        if (jh < 0) return -1;
        tile__jin_direct(c, jl, 0, cur[x]);
        tile__jin_direct(c, jl, 1, cur[y]);
        tile__jin_direct(c, jh, 0, cur[x]);
        tile__jin_direct(c, jh, 1, cur[y]);
        cur[x] = jl;
        cur[y] = jh;
    }
    return 0;
}

/* The network's sorted blocks: *bounds (p + 1 offsets) and *cur (the p
 * jobs holding them). arg: argsort's packed (value, index) blocks; else
 * the values, in X's dtype (quantiles' blocks are sorted by SS_SORT1
 * steps, as their node's own kernel does something else). */
static int network(tctx_t *c, const graph_node_t *n, const jparam_t *pa, const tgrid_t *X,
                   int64_t **bounds, int64_t *np_, int32_t **cur_)
{
    /* blocks of (value, index) pairs, 16 bytes each */
    bool arg = n->op == OP_ARGSORT || n->op == OP_ARGPARTITION;
    int64_t len = X->shape.d[0], es = arg ? 16 : (int64_t)dt_size(X->dt);
    int64_t blk = c->opts->sort_block_bytes / (2 * es), p;
    dtype_t bdt = arg ? DT_INT64 : X->dt; /* the blocks' */
    int64_t per = arg ? 2 : 1;            /* slots per element */
    if (blk < 1) blk = 1;
    bounds_uniform(len, blk, &p);
    if (p > INT32_MAX / 2) {
        tile__fail(c, "a sort of %lld blocks is too many", (long long)p);
        return -1;
    }
    int64_t *b[1] = {tile__arena_i64(c, p + 1)};
    int32_t *cur = arena_alloc(c->t->arena, sizeof(int32_t) * (size_t)p);
    jparam_t *lo = tile__param_new(c, n->op), *hi = tile__param_new(c, n->op);
    if (!b[0] || !cur || !lo || !hi) {
        tile__fail(c, "out of memory while tiling");
        return -1;
    }
    for (int64_t k = 0; k <= p; k++)
        b[0][k] = k * blk < len ? k * blk : len;
    lo->in_dt = hi->in_dt = pa->in_dt;
    lo->la_step = SS_SPLIT_LOW;
    hi->la_step = SS_SPLIT_HIGH;
    const jparam_t *pk = pa;
    if (arg || n->op != OP_SORT) {
        jparam_t *q = tile__param_new(c, n->op);
        if (!q) return -1;
        q->in_dt = pa->in_dt;
        q->la_step = arg ? SS_PACK : SS_SORT1;
        pk = q;
    }
    const tgrid_t *B = grid_rechunk(c, X, b, &p);
    if (!B) return -1;
    for (int64_t k = 0; k < p; k++) {
        int64_t l = (b[0][k + 1] - b[0][k]) * per;
        int32_t ji = ss_job(c, pk, bdt, 1, &l, 1);
        if (ji < 0) return -1;
        tile__jin_direct(c, ji, 0, B->job[k]);
        if (arg && !(c->t->jobs[ji].off = arena_i64_copy(c, &b[0][k], 1))) return -1;
        cur[k] = ji;
    }
    int64_t *pr, ncmp = batcher(c, p, &pr), len1 = 0; /* 1-D: the axis is the only extent */
    if (ncmp < 0 || merge_steps(c, lo, hi, bdt, 1, &len1, 0, b[0], per, pr, ncmp, cur)) return -1;
    *bounds = b[0];
    *np_ = p;
    *cur_ = cur;
    return 0;
}

static tgrid_t *tile_sort_network(tctx_t *c, const graph_node_t *n, const jparam_t *pa,
                                  const tgrid_t *X)
{
    bool arg = n->op == OP_ARGSORT || n->op == OP_ARGPARTITION;
    int64_t *b[1], p;
    int32_t *cur;
    if (network(c, n, pa, X, &b[0], &p, &cur)) return NULL;
    tgrid_t *R = grid_with_bounds(c, &n->oshape, n->odtype, (const int64_t *const *)b, &p);
    if (!R) return NULL;
    for (int64_t k = 0; k < p; k++) {
        int64_t l = b[0][k + 1] - b[0][k];
        /* argsort: each block's index half */
        R->job[k] = arg ? tile__slice_job(c, cur[k], DT_INT64, 1, &l, l) : cur[k];
        if (R->job[k] < 0) return NULL;
    }
    return R;
}

/* The ranks of the order statistics numpy's linear method needs over a
 * line of m values (two per q, median's two middle ones) and the last
 * (NaN sorts last, and any NaN makes the result NaN): arena memory, or
 * NULL having failed the tiling. */
static int64_t *order_ranks(tctx_t *c, const graph_node_t *n, int64_t m)
{
    bool med = n->op == OP_MEDIAN;
    int nq = med ? 1 : n->ss->nq;
    int64_t npick = 2 * (int64_t)nq + 1, *rank = tile__arena_i64(c, npick);
    if (!rank) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    for (int qi = 0; qi < nq; qi++) {
        if (med) {
            rank[0] = m % 2 ? m / 2 : m / 2 - 1;
            rank[1] = m / 2;
        } else {
            ss_quantile_pos(m, n->ss->q[qi], &rank[2 * qi], &rank[2 * qi + 1], NULL);
        }
    }
    rank[npick - 1] = m - 1;
    return rank;
}

/* percentile, quantile or median of one line longer than a job may read
 * (1-D or axis None, keepdims false): the line sorted by the network, the
 * order statistics numpy's linear method needs (two per q, and the last
 * value, NaN when any is) gathered from their blocks into one small
 * vector, and one SS_QPICK job interpolating them as kern_ss would. */
static tgrid_t *tile_quantile_network(tctx_t *c, const graph_node_t *n, const jparam_t *pa,
                                      const tgrid_t *X)
{
    const ss_node_t *s = n->ss;
    int64_t m = X->shape.d[0], *bnd, p;
    int32_t *cur;
    if (network(c, n, pa, X, &bnd, &p, &cur)) return NULL;
    bool med = n->op == OP_MEDIAN;
    int nq = med ? 1 : s->nq;
    int64_t npick = 2 * (int64_t)nq + 1;
    int64_t *rank = order_ranks(c, n, m);
    if (!rank) return NULL;
    int32_t gj = tile__job_new(c, JK_GATHER, X->dt, 1, &npick, 1);
    if (gj < 0) return NULL;
    c->npv = 0;
    for (int64_t i = 0; i < npick; i++) {
        int64_t k = 0;
        while (k + 1 < p && bnd[k + 1] <= rank[i])
            k++;
        piece_t *pc = pv_push(c);
        int64_t one = 1;
        if (!pc || !(pc->count = arena_i64_copy(c, &one, 1)) ||
            !(pc->src_stride = tile__arena_i64(c, 1)) || !(pc->dst_stride = tile__arena_i64(c, 1)))
            return NULL;
        pc->src = cur[k];
        pc->ndim = 1;
        pc->src_stride[0] = pc->dst_stride[0] = 1;
        pc->src_off = rank[i] - bnd[k];
        pc->dst_off = i;
    }
    input_finish(c, gj, 0, 1, &npick, X->dt);
    jparam_t *pq = tile__param_new(c, n->op);
    if (!pq) return NULL;
    pq->in_dt = pa->in_dt;
    pq->la_step = SS_QPICK;
    int32_t ji = ss_job(c, pq, n->odtype, n->oshape.ndim, n->oshape.d, 1);
    if (ji < 0) return NULL;
    tile__jin_direct(c, ji, 0, gj);
    return one_chunk(c, n, ji);
}

/* nanpercentile, nanquantile or nanmedian of long lines, after the network
 * sorted them (NaN last) into blocks cur[0..p) (bounds bnd along ax; the
 * other axes' extents len_; 1-D: nd 1, ax 0): as the NaN count is known
 * only when it runs, each block gets a job counting each line's NaN and
 * one picking, in each line, the order statistics of the values that are
 * not NaN (their ranks computed from every block's counts), and one last
 * job takes every block's picks and counts and interpolates each line (the
 * q axis first). Each job reads one block, or p small arrays. Returns the
 * last job. */
static int32_t nanquantile_lines(tctx_t *c, const graph_node_t *n, const jparam_t *pa, dtype_t dt,
                                 int nd, int ax, const int64_t *len_, const int64_t *bnd, int64_t p,
                                 const int32_t *cur, int on, const int64_t *osh)
{
    const ss_node_t *s = n->ss;
    if (p + 1 > 64 * MR_MAXDIM) { /* the last job carries the p + 1 block bounds */
        tile__fail(c,
                   "a nan-statistic over %lld sorted blocks is too many (at most %d; raise "
                   "--sort-block-bytes)",
                   (long long)p, 64 * MR_MAXDIM - 1);
        return -1;
    }
    int nq = n->op == OP_NANMEDIAN ? 1 : s->nq;
    int64_t csh[MR_MAXDIM], psh[MR_MAXDIM];
    for (int d = 0; d < nd; d++) {
        csh[d] = d == ax ? 1 : len_[d];
        psh[d] = d == ax ? 2 * (int64_t)nq : len_[d];
    }
    jparam_t *pc = tile__param_new(c, n->op), *pp = tile__param_new(c, n->op),
             *pq = tile__param_new(c, n->op);
    int32_t *cnt = arena_alloc(c->t->arena, sizeof(int32_t) * (size_t)p);
    int32_t *pick = arena_alloc(c->t->arena, sizeof(int32_t) * (size_t)p);
    if (!pc || !pp || !pq || !cnt || !pick) {
        tile__fail(c, "out of memory while tiling");
        return -1;
    }
    pc->in_dt = pp->in_dt = pq->in_dt = pa->in_dt;
    pc->axis = pp->axis = pq->axis = ax;
    pc->la_step = SS_NANCOUNT;
    pp->la_step = SS_NPICK;
    pq->la_step = SS_NQPICK;
    for (int64_t k = 0; k < p; k++) {
        if ((cnt[k] = ss_job(c, pc, DT_INT64, nd, csh, 1)) < 0) return -1;
        tile__jin_direct(c, cnt[k], 0, cur[k]);
    }
    for (int64_t k = 0; k < p; k++) {
        int32_t ji = ss_job(c, pp, dt, nd, psh, (int)(1 + p));
        if (ji < 0) return -1;
        tile__jin_direct(c, ji, 0, cur[k]);
        for (int64_t q = 0; q < p; q++)
            tile__jin_direct(c, ji, (int)(1 + q), cnt[q]);
        if (!(c->t->jobs[ji].off = arena_i64_copy(c, &bnd[k], 1))) return -1;
        pick[k] = ji;
    }
    int32_t ji = ss_job(c, pq, n->odtype, on, osh, (int)(2 * p));
    if (ji < 0) return -1;
    for (int64_t k = 0; k < p; k++) {
        tile__jin_direct(c, ji, (int)k, pick[k]);
        tile__jin_direct(c, ji, (int)(p + k), cnt[k]);
    }
    if (!(c->t->jobs[ji].off = arena_i64_copy(c, bnd, p + 1))) return -1;
    return ji;
}

/* nanpercentile, nanquantile or nanmedian of one long line (1-D or axis
 * None): the network, then nanquantile_lines over its blocks. */
static tgrid_t *tile_nanquantile_network(tctx_t *c, const graph_node_t *n, const jparam_t *pa,
                                         const tgrid_t *X)
{
    int64_t *bnd, p, one = 1;
    int32_t *cur;
    if (network(c, n, pa, X, &bnd, &p, &cur)) return NULL;
    int32_t ji =
        nanquantile_lines(c, n, pa, X->dt, 1, 0, &one, bnd, p, cur, n->oshape.ndim, n->oshape.d);
    return ji < 0 ? NULL : one_chunk(c, n, ji);
}

/* sort along axis ax of a matrix (or more dimensions) whose lines are
 * longer than a job may read: for every chunk of the other axes, the same
 * network over blocks along ax (split jobs merge each line of their two
 * blocks alone: kern_ss_split_axis); the result keeps the other axes'
 * chunks and has the blocks along ax. */
/* The elements of the largest chunk of X's other axes than ax (what one
 * element along ax weighs in a block of lines). */
static int64_t other_extent(const tgrid_t *X, int ax)
{
    int64_t other = 1;
    for (int d = 0; d < X->shape.ndim; d++) {
        if (d == ax) continue;
        int64_t m = 0;
        for (int64_t k = 0; k < X->nchunks[d]; k++)
            if (X->bounds[d][k + 1] - X->bounds[d][k] > m)
                m = X->bounds[d][k + 1] - X->bounds[d][k];
        other *= m > 0 ? m : 1;
    }
    return other;
}

/* A piece of a gather from sorted block src (nd axes: len_ but blen along
 * ax) into a box of shape dsh: cnt elements along ax, all of the others;
 * strides C-order, offsets zero (the caller sets them). NULL when out of
 * memory. */
static piece_t *line_piece(tctx_t *c, int32_t src, int nd, int ax, const int64_t *len_,
                           int64_t blen, int64_t cnt, const int64_t *dsh)
{
    piece_t *pc = pv_push(c);
    if (!pc || !(pc->count = tile__arena_i64(c, nd)) ||
        !(pc->src_stride = tile__arena_i64(c, nd)) || !(pc->dst_stride = tile__arena_i64(c, nd)))
        return NULL;
    pc->src = src;
    pc->ndim = nd;
    int64_t ss = 1, ds = 1;
    for (int d = nd - 1; d >= 0; d--) {
        pc->count[d] = d == ax ? cnt : len_[d];
        pc->src_stride[d] = ss;
        pc->dst_stride[d] = ds;
        ss *= d == ax ? blen : len_[d];
        ds *= dsh[d];
    }
    pc->src_off = pc->dst_off = 0;
    return pc;
}

/* topk along axis ax of sorted blocks cur[0..p) (bounds bnd along ax; the
 * other axes' extents len_[d]): one gather of the k smallest ranks of each
 * line, or of the k largest in reverse (largest first) */
static int32_t topk_gather(tctx_t *c, const graph_node_t *n, dtype_t dt, int nd, int ax,
                           const int64_t *len_, int64_t m, int64_t k, const int64_t *bnd, int64_t p,
                           const int32_t *cur)
{
    int64_t osh[MR_MAXDIM];
    for (int d = 0; d < nd; d++)
        osh[d] = d == ax ? k : len_[d];
    int32_t gj = tile__job_new(c, JK_GATHER, dt, nd, osh, 1);
    if (gj < 0) return -1;
    c->npv = 0;
    bool big = n->ss->largest;
    int64_t lo = big ? m - k : 0, hi = big ? m : k; /* the ranks taken */
    for (int64_t b = 0; b < p; b++) {
        int64_t s0 = bnd[b] > lo ? bnd[b] : lo, s1 = bnd[b + 1] < hi ? bnd[b + 1] : hi;
        if (s1 <= s0) continue;
        piece_t *pc = line_piece(c, cur[b], nd, ax, len_, bnd[b + 1] - bnd[b], s1 - s0, osh);
        if (!pc) return -1;
        if (big) { /* rank r goes to m - 1 - r: reversed */
            pc->src_off = (s1 - 1 - bnd[b]) * pc->src_stride[ax];
            pc->src_stride[ax] = -pc->src_stride[ax];
            pc->dst_off = (m - 1 - (s1 - 1)) * pc->dst_stride[ax];
        } else {
            pc->src_off = (s0 - bnd[b]) * pc->src_stride[ax];
            pc->dst_off = s0 * pc->dst_stride[ax];
        }
    }
    input_finish(c, gj, 0, nd, osh, dt);
    return gj;
}

/* percentile, quantile or median along axis ax of sorted blocks cur[0..p)
 * (bounds bnd along ax, lines of m values; the other axes' extents len_):
 * one gather of each line's order statistics numpy's linear method needs
 * (two per q, then the last value: NaN sorts last) and one SS_QPICK job
 * interpolating every line; returns that job. */
static int32_t quantile_axis(tctx_t *c, const graph_node_t *n, const jparam_t *pa, dtype_t dt,
                             int nd, int ax, const int64_t *len_, int64_t m, const int64_t *bnd,
                             int64_t p, const int32_t *cur, int on, const int64_t *osh)
{
    const ss_node_t *s = n->ss;
    bool med = n->op == OP_MEDIAN;
    int nq = med ? 1 : s->nq;
    int64_t npick = 2 * (int64_t)nq + 1, gsh[MR_MAXDIM];
    int64_t *rank = order_ranks(c, n, m);
    if (!rank) return -1;
    for (int d = 0; d < nd; d++)
        gsh[d] = d == ax ? npick : len_[d];
    int32_t gj = tile__job_new(c, JK_GATHER, dt, nd, gsh, 1);
    if (gj < 0) return -1;
    c->npv = 0;
    for (int64_t i = 0; i < npick; i++) {
        int64_t b = 0;
        while (b + 1 < p && bnd[b + 1] <= rank[i])
            b++;
        piece_t *pc = line_piece(c, cur[b], nd, ax, len_, bnd[b + 1] - bnd[b], 1, gsh);
        if (!pc) return -1;
        pc->src_off = (rank[i] - bnd[b]) * pc->src_stride[ax];
        pc->dst_off = i * pc->dst_stride[ax];
    }
    input_finish(c, gj, 0, nd, gsh, dt);
    jparam_t *pq = tile__param_new(c, n->op);
    if (!pq) return -1;
    pq->in_dt = pa->in_dt;
    pq->axis = ax;
    pq->la_step = SS_QPICK;
    int32_t ji = ss_job(c, pq, n->odtype, on, osh, 1);
    if (ji < 0) return -1;
    tile__jin_direct(c, ji, 0, gj);
    return ji;
}

static tgrid_t *tile_sort_network_axis(tctx_t *c, const graph_node_t *n, const jparam_t *pa,
                                       const tgrid_t *X, int ax)
{
    int nd = X->shape.ndim;
    /* argsort: blocks of packed (value, index) lines, 2 slots along ax;
     * partition and argpartition: the sorted lines (a partition for any kth) */
    bool arg = n->op == OP_ARGSORT || n->op == OP_ARGPARTITION;
    int64_t es = arg ? 16 : (int64_t)dt_size(X->dt), other = other_extent(X, ax);
    int64_t len = X->shape.d[ax], p, per = arg ? 2 : 1;
    dtype_t bdt = arg ? DT_INT64 : X->dt;
    int64_t blk = c->opts->sort_block_bytes / (2 * es * other);
    if (blk < 1) {
        tile__fail(c,
                   "a sort step reads two blocks of one element along the axis for each of the "
                   "other axes' chunk, %lld bytes, over the sort block limit of %lld bytes "
                   "(--sort-block-bytes); rechunk the other axes smaller",
                   (long long)(2 * es * other), (long long)c->opts->sort_block_bytes);
        return NULL;
    }
    bounds_uniform(len, blk, &p);
    int64_t *b[MR_MAXDIM], nch[MR_MAXDIM];
    for (int d = 0; d < nd; d++) {
        if (d == ax) {
            if (!(b[d] = tile__arena_i64(c, p + 1))) return NULL;
            for (int64_t k = 0; k <= p; k++)
                b[d][k] = k * blk < len ? k * blk : len;
            nch[d] = p;
        } else {
            b[d] = X->bounds[d];
            nch[d] = X->nchunks[d];
        }
    }
    const tgrid_t *B = grid_rechunk(c, X, b, nch);
    /* topk: the k ends of each sorted line, one chunk along ax */
    bool topk = n->op == OP_TOPK;
    /* percentile, quantile, median: the order statistics of each line
     * (shape.d[ax] of them: two per q, then the last), then their result,
     * whose axes are the q axis (a list of q) and the others but ax */
    bool nquant = n->op == OP_NANPERCENTILE || n->op == OP_NANQUANTILE || n->op == OP_NANMEDIAN;
    bool quant = n->op == OP_PERCENTILE || n->op == OP_QUANTILE || n->op == OP_MEDIAN || nquant;
    int64_t kk = topk ? n->ss->k : 0, *rb[MR_MAXDIM], rnch[MR_MAXDIM], kb[2] = {0, kk};
    /* keepdims: the axis stays, of extent 1 */
    bool kd = quant && n->ss->keepdims;
    int rn = 0, lead = quant ? n->oshape.ndim - (nd - (kd ? 0 : 1)) : 0;
    int64_t qb[2] = {0, lead ? n->oshape.d[0] : 1}, ob[2] = {0, 1};
    if (lead) {
        rb[rn] = qb;
        rnch[rn++] = 1;
    }
    for (int d = 0; d < nd; d++) {
        if (quant && d == ax && !kd) continue;
        rb[rn] = topk && d == ax ? kb : quant && d == ax ? ob : b[d];
        rnch[rn++] = (topk || quant) && d == ax ? 1 : nch[d];
    }
    tgrid_t *R =
        B ? grid_with_bounds(c, &n->oshape, n->odtype, (const int64_t *const *)rb, rnch) : NULL;
    jparam_t *lo = tile__param_new(c, n->op), *hi = tile__param_new(c, n->op);
    int32_t *cur = arena_alloc(c->t->arena, sizeof(int32_t) * (size_t)p);
    if (!R || !lo || !hi || !cur) {
        if (R) tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    lo->in_dt = hi->in_dt = pa->in_dt;
    lo->axis = hi->axis = ax;
    lo->la_step = SS_SPLIT_LOW;
    hi->la_step = SS_SPLIT_HIGH;
    const jparam_t *pk = pa;
    if (arg || n->op == OP_PARTITION || topk || quant) {
        jparam_t *q = tile__param_new(c, n->op);
        if (!q) return NULL;
        q->in_dt = pa->in_dt;
        q->axis = ax;
        q->la_step = arg ? SS_PACK : SS_SORT1;
        pk = q;
    }
    int64_t *pr, ncmp = batcher(c, p, &pr);
    if (ncmp < 0) return NULL;
    for (gwalk_t w = gwalk_start(B); gwalk_next(&w);) {
        if (w.co[ax] != 0) continue;
        int64_t co[MR_MAXDIM], sh[MR_MAXDIM];
        for (int d = 0; d < nd; d++) {
            co[d] = w.co[d];
            sh[d] = w.len[d];
        }
        for (int64_t k = 0; k < p; k++) {
            co[ax] = k;
            sh[ax] = (b[ax][k + 1] - b[ax][k]) * per;
            int32_t ji = ss_job(c, pk, bdt, nd, sh, 1);
            if (ji < 0) return NULL;
            tile__jin_direct(c, ji, 0, B->job[grid_index(B, co)]);
            if (arg) { /* job.off[0]: the block's offset along ax (off has ndim slots) */
                int64_t *off = tile__arena_i64(c, nd);
                if (!off) return NULL;
                memset(off, 0, sizeof(int64_t) * (size_t)nd);
                off[0] = b[ax][k];
                c->t->jobs[ji].off = off;
            }
            cur[k] = ji;
        }
        if (merge_steps(c, lo, hi, bdt, nd, sh, ax, b[ax], per, pr, ncmp, cur)) return NULL;
        if (quant) {
            int64_t rco[MR_MAXDIM];
            int r = 0;
            if (lead) rco[r++] = 0;
            for (int d = 0; d < nd; d++)
                if (d != ax || kd) rco[r++] = d == ax ? 0 : co[d];
            int64_t osh[MR_MAXDIM]; /* this chunk of the result */
            for (int d = 0; d < r; d++)
                osh[d] = R->bounds[d][rco[d] + 1] - R->bounds[d][rco[d]];
            int32_t qj =
                nquant ? nanquantile_lines(c, n, pa, X->dt, nd, ax, w.len, b[ax], p, cur, r, osh)
                       : quantile_axis(c, n, pa, X->dt, nd, ax, w.len, len, b[ax], p, cur, r, osh);
            if (qj < 0) return NULL;
            R->job[grid_index(R, rco)] = qj;
            continue;
        }
        if (topk) {
            co[ax] = 0;
            int32_t gj = topk_gather(c, n, X->dt, nd, ax, w.len, len, kk, b[ax], p, cur);
            if (gj < 0) return NULL;
            R->job[grid_index(R, co)] = gj;
            continue;
        }
        for (int64_t k = 0; k < p; k++) {
            co[ax] = k;
            int32_t ji = cur[k];
            if (arg) { /* the index half of each line: a box of the packed block */
                int64_t l = b[ax][k + 1] - b[ax][k], ssh[MR_MAXDIM], osh[MR_MAXDIM];
                for (int d = 0; d < nd; d++)
                    ssh[d] = osh[d] = d == ax ? l : w.len[d];
                ssh[ax] = 2 * l;
                if ((ji = tile__job_new(c, JK_GATHER, DT_INT64, nd, osh, 1)) < 0) return NULL;
                c->npv = 0;
                piece_t *pc = pv_push(c);
                if (!pc || !(pc->count = arena_i64_copy(c, osh, nd)) ||
                    !(pc->src_stride = tile__arena_i64(c, nd)) ||
                    !(pc->dst_stride = tile__arena_i64(c, nd)))
                    return NULL;
                pc->src = cur[k];
                pc->ndim = nd;
                int64_t ss = 1, ds = 1;
                for (int d = nd - 1; d >= 0; d--) {
                    pc->src_stride[d] = ss;
                    pc->dst_stride[d] = ds;
                    ss *= ssh[d];
                    ds *= osh[d];
                }
                pc->src_off = l * pc->src_stride[ax];
                pc->dst_off = 0;
                input_finish(c, ji, 0, nd, osh, DT_INT64);
            }
            R->job[grid_index(R, co)] = ji;
        }
    }
    return R;
}

/* topk of one long line: the network sorts it, one gather takes the k
 * smallest in order, or the k largest in reverse order (Mars's topk with
 * `sorted`), a piece per block they span. */
static tgrid_t *tile_topk_network(tctx_t *c, const graph_node_t *n, const jparam_t *pa,
                                  const tgrid_t *X)
{
    int64_t m = X->shape.d[0], k = n->ss->k, *bnd, p;
    int32_t *cur;
    if (k * (int64_t)dt_size(X->dt) > SS_MAX_BLOCK_BYTES) { /* one chunk */
        too_big(c, k * (int64_t)dt_size(X->dt), "topk's result");
        return NULL;
    }
    if (network(c, n, pa, X, &bnd, &p, &cur)) return NULL;
    int64_t one = 1;
    int32_t gj = topk_gather(c, n, X->dt, 1, 0, &one, m, k, bnd, p, cur);
    if (gj < 0) return NULL;
    int64_t *b[1] = {tile__arena_i64(c, 2)};
    if (!b[0]) return NULL;
    b[0][0] = 0;
    b[0][1] = k;
    tgrid_t *R = grid_with_bounds(c, &n->oshape, n->odtype, (const int64_t *const *)b, &one);
    if (!R) return NULL;
    R->job[0] = gj;
    return R;
}

/* average of lines longer than a job's block (sortstat.h, SS_AVGPART): a
 * part per chunk of X (each line's sums over the chunk), then per chunk of
 * the other axes one job adding the parts in order and dividing. */
static tgrid_t *tile_average_blocks(tctx_t *c, const graph_node_t *n, const jparam_t *pa,
                                    const tgrid_t *X, const tgrid_t *W)
{
    const ss_node_t *s = n->ss;
    int ax = s->axis_none ? 0 : (int)s->axis;
    if (s->axis_none && (!(X = flat_grid(c, X)) || (W && !(W = flat_grid(c, W))))) return NULL;
    int nd = X->shape.ndim;
    if (W && s->w_line) {
        int64_t *wb[1] = {X->bounds[ax]}, wn[1] = {X->nchunks[ax]};
        if (!(W = grid_rechunk(c, W, wb, wn))) return NULL;
    } else if (W && !(W = grid_rechunk(c, W, X->bounds, X->nchunks))) {
        return NULL;
    }
    jparam_t *pp = tile__param_new(c, n->op), *pf = tile__param_new(c, n->op);
    int64_t p = X->nchunks[ax];
    int32_t *parts = arena_alloc(c->t->arena, sizeof(int32_t) * (size_t)p);
    /* the result: one chunk (axis None), else the other axes' chunks */
    static const int64_t one[2] = {0, 1};
    int64_t *rb[MR_MAXDIM], rn[MR_MAXDIM];
    int on = 0;
    for (int d = 0; d < nd && !s->axis_none; d++) {
        if (d == ax && !s->keepdims) continue;
        rb[on] = d == ax ? (int64_t *)one : X->bounds[d];
        rn[on++] = d == ax ? 1 : X->nchunks[d];
    }
    tgrid_t *R = NULL;
    if (!pp || !pf || !parts) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    if (!s->axis_none &&
        !(R = grid_with_bounds(c, &n->oshape, n->odtype, (const int64_t *const *)rb, rn)))
        return NULL;
    pp->in_dt = pf->in_dt = pa->in_dt;
    pp->axis = pf->axis = ax;
    pp->la_step = SS_AVGPART;
    pf->la_step = SS_AVGFIN;
    for (gwalk_t w = gwalk_start(X); gwalk_next(&w);) {
        if (w.co[ax] != 0) continue;
        int64_t co[MR_MAXDIM], sh[MR_MAXDIM], rco[MR_MAXDIM], osh[MR_MAXDIM];
        int r = 0;
        for (int d = 0; d < nd; d++) {
            co[d] = w.co[d];
            sh[d] = d == ax ? 2 : w.len[d];
            if (d != ax || s->keepdims) {
                rco[r] = d == ax ? 0 : co[d];
                osh[r++] = d == ax ? 1 : w.len[d];
            }
        }
        for (int64_t k = 0; k < p; k++) {
            co[ax] = k;
            int32_t ji = ss_job(c, pp, DT_FLOAT64, nd, sh, W ? 2 : 1);
            if (ji < 0) return NULL;
            tile__jin_direct(c, ji, 0, X->job[grid_index(X, co)]);
            if (W) tile__jin_direct(c, ji, 1, W->job[s->w_line ? k : grid_index(W, co)]);
            parts[k] = ji;
        }
        int32_t fj = s->axis_none ? ss_job(c, pf, n->odtype, n->oshape.ndim, n->oshape.d, (int)p)
                                  : ss_job(c, pf, n->odtype, r, osh, (int)p);
        if (fj < 0) return NULL;
        for (int64_t k = 0; k < p; k++)
            tile__jin_direct(c, fj, (int)k, parts[k]);
        if (s->axis_none) return one_chunk(c, n, fj);
        R->job[grid_index(R, rco)] = fj;
    }
    return R;
}

/* whether average's lines are longer than a job's block */
static bool average_long(tctx_t *c, const ss_node_t *s, const tgrid_t *X)
{
    int64_t es = (int64_t)dt_size(X->dt);
    if (shape_size(&X->shape) <= 0) return false;
    if (s->axis_none || X->shape.ndim <= 1)
        return shape_size(&X->shape) * es > c->opts->sort_block_bytes;
    int ax = (int)s->axis;
    return X->shape.d[ax] * other_extent(X, ax) * es > c->opts->sort_block_bytes;
}

static tgrid_t *tile_line(tctx_t *c, const graph_node_t *n, jparam_t *pa)
{
    const ss_node_t *s = n->ss;
    const tgrid_t *X = c->t->grid[n->in[0].node];
    const tgrid_t *W = n->n_in > 1 ? c->t->grid[n->in[1].node] : NULL;
    int32_t wwhole = -1;
    bool shaped = keeps_shape(n->op);
    if (n->op == OP_AVERAGE && average_long(c, s, X)) return tile_average_blocks(c, n, pa, X, W);
    /* one line longer than a job's block: the merge network (a sorted line
     * is also a partition of it, whatever kth: numpy's order inside the
     * partitions is unspecified) */
    bool sortlike = n->op == OP_SORT || n->op == OP_ARGSORT || n->op == OP_PARTITION ||
                    n->op == OP_ARGPARTITION;
    if (sortlike && (s->axis_none || X->shape.ndim == 1)) {
        bool arg = n->op == OP_ARGSORT || n->op == OP_ARGPARTITION;
        int64_t bytes = shape_size(&X->shape) * (arg ? 16 : (int64_t)dt_size(X->dt));
        if (bytes > c->opts->sort_block_bytes) {
            const tgrid_t *L = flat_grid(c, X);
            pa->axis = 0;
            return L ? tile_sort_network(c, n, pa, L) : NULL;
        }
    }
    bool quant = n->op == OP_PERCENTILE || n->op == OP_QUANTILE || n->op == OP_MEDIAN ||
                 n->op == OP_NANPERCENTILE || n->op == OP_NANQUANTILE || n->op == OP_NANMEDIAN;
    if (!s->axis_none && X->shape.ndim > 1 && (sortlike || n->op == OP_TOPK || quant)) {
        /* lines along the axis longer than a job's block: the network per
         * chunk of the other axes (partitions: sorted lines; topk: each
         * chunk's k ends; the statistics: each chunk's order statistics) */
        int ax = (int)s->axis;
        bool arg = n->op == OP_ARGSORT || n->op == OP_ARGPARTITION;
        int64_t line = X->shape.d[ax] > 0 ? X->shape.d[ax] : 1;
        int64_t need = line * other_extent(X, ax) * (arg ? 16 : (int64_t)dt_size(X->dt));
        bool use = need > c->opts->sort_block_bytes;
        if (n->op == OP_TOPK) /* its result: one chunk along the axis */
            use =
                use && n->oshape.ndim == X->shape.ndim && need / line * s->k <= SS_MAX_BLOCK_BYTES;
        if (quant) use = use && shape_size(&X->shape) > 0;
        if (use) {
            pa->axis = ax;
            return tile_sort_network_axis(c, n, pa, X, ax);
        }
    }
    if (n->op == OP_TOPK && (s->axis_none || X->shape.ndim == 1) && n->oshape.ndim == 1 &&
        shape_size(&X->shape) * (int64_t)dt_size(X->dt) > c->opts->sort_block_bytes) {
        const tgrid_t *L = flat_grid(c, X);
        pa->axis = 0;
        return L ? tile_topk_network(c, n, pa, L) : NULL;
    }
    if ((n->op == OP_PERCENTILE || n->op == OP_QUANTILE || n->op == OP_MEDIAN ||
         n->op == OP_NANPERCENTILE || n->op == OP_NANQUANTILE || n->op == OP_NANMEDIAN) &&
        !s->axis_none && X->shape.ndim > 1 && !s->keepdims && shape_size(&X->shape) > 0) {
        /* lines along the axis longer than a job's block: the axis network,
         * then each chunk's order statistics */
        int ax = (int)s->axis;
        int64_t need = (int64_t)dt_size(X->dt) * X->shape.d[ax];
        for (int d = 0; d < X->shape.ndim; d++) {
            if (d == ax) continue;
            int64_t m = 0;
            for (int64_t k = 0; k < X->nchunks[d]; k++)
                if (X->bounds[d][k + 1] - X->bounds[d][k] > m)
                    m = X->bounds[d][k + 1] - X->bounds[d][k];
            need *= m > 0 ? m : 1;
        }
        if (need > c->opts->sort_block_bytes) {
            pa->axis = ax;
            return tile_sort_network_axis(c, n, pa, X, ax);
        }
    }
    if (quant && (s->axis_none || X->shape.ndim == 1) && shape_size(&X->shape) > 0 &&
        shape_size(&X->shape) * (int64_t)dt_size(X->dt) > c->opts->sort_block_bytes) {
        const tgrid_t *L = flat_grid(c, X);
        pa->axis = 0;
        bool nan = n->op == OP_NANPERCENTILE || n->op == OP_NANQUANTILE || n->op == OP_NANMEDIAN;
        if (!L) return NULL;
        return nan ? tile_nanquantile_network(c, n, pa, L) : tile_quantile_network(c, n, pa, L);
    }
    if (s->axis_none) {
        /* one block: the flattened input (and weights) */
        X = flat_grid(c, X);
        if (!X) return NULL;
        int32_t xj = whole_job(c, X, "the flattened input (axis None)");
        if (xj < 0) return NULL;
        int32_t wj = -1;
        if (W) {
            const tgrid_t *WF = flat_grid(c, W);
            if (!WF || (wj = whole_job(c, WF, "the flattened weights")) < 0) return NULL;
        }
        pa->axis = 0;
        int64_t nch[MR_MAXDIM];
        int64_t *b[MR_MAXDIM];
        for (int d = 0; d < n->oshape.ndim; d++) {
            b[d] = tile__arena_i64(c, 2);
            b[d][0] = 0;
            b[d][1] = n->oshape.d[d];
            nch[d] = 1;
        }
        tgrid_t *R = grid_with_bounds(c, &n->oshape, n->odtype, (const int64_t *const *)b, nch);
        if (!R) return NULL;
        int32_t ji = ss_job(c, pa, n->odtype, n->oshape.ndim, n->oshape.d, W ? 2 : 1);
        if (ji < 0) return NULL;
        tile__jin_direct(c, ji, 0, xj);
        if (W) tile__jin_direct(c, ji, 1, wj);
        R->job[0] = ji;
        return R;
    }
    int ax = (int)s->axis;
    pa->axis = ax;
    X = along_grid(c, X, ax, "a whole line along the axis");
    if (!X) return NULL;
    if (W && s->w_line) {
        if ((wwhole = whole_job(c, W, "the weights")) < 0) return NULL;
    } else if (W) {
        W = grid_rechunk(c, W, X->bounds, X->nchunks);
        if (!W) return NULL;
    }
    /* output bounds */
    int64_t *b[MR_MAXDIM], nch[MR_MAXDIM];
    int od = 0;
    static const int64_t one[2] = {0, 1};
    if (!shaped && s->q && !s->q_scalar) {
        b[od] = tile__arena_i64(c, 2);
        b[od][0] = 0;
        b[od][1] = s->nq;
        nch[od++] = 1;
    }
    for (int d = 0; d < X->shape.ndim; d++) {
        if (d == ax && !shaped) {
            if (s->keepdims) {
                b[od] = (int64_t *)one;
                nch[od++] = 1;
            }
            continue;
        }
        if (d == ax) {
            b[od] = tile__arena_i64(c, 2);
            b[od][0] = 0;
            b[od][1] = n->oshape.d[d];
            nch[od++] = 1;
            continue;
        }
        b[od] = X->bounds[d];
        nch[od++] = X->nchunks[d];
    }
    tgrid_t *R = grid_with_bounds(c, &n->oshape, n->odtype, (const int64_t *const *)b, nch);
    if (!R) return NULL;
    /* X's chunks and R's chunks correspond one to one, in C order */
    for (gwalk_t w = gwalk_start(X); gwalk_next(&w);) {
        int32_t ji = ss_job(c, pa, n->odtype, 0, NULL, W ? 2 : 1);
        if (ji < 0) return NULL;
        /* the output chunk's shape */
        int64_t osh[MR_MAXDIM];
        int o = 0;
        if (!shaped && s->q && !s->q_scalar) osh[o++] = s->nq;
        for (int d = 0; d < X->shape.ndim; d++) {
            if (d == ax && !shaped) {
                if (s->keepdims) osh[o++] = 1;
            } else if (d == ax) {
                osh[o++] = n->oshape.d[d];
            } else {
                osh[o++] = w.len[d];
            }
        }
        job_t *jb = &c->t->jobs[ji];
        jb->ndim = (int8_t)o;
        jb->shape = arena_i64_copy(c, osh, o);
        tile__jin_direct(c, ji, 0, X->job[w.li]);
        if (W) tile__jin_direct(c, ji, 1, s->w_line ? wwhole : W->job[w.li]);
        R->job[w.li] = ji;
    }
    return R;
}

static tgrid_t *tile_elem(tctx_t *c, const graph_node_t *n, jparam_t *pa)
{
    /* the values looked up, and the whole arrays they are looked up in */
    int xi = n->op == OP_SEARCHSORTED ? 1 : 0;
    int oi = n->op == OP_SEARCHSORTED ? 0 : 1;
    const tgrid_t *X = c->t->grid[n->in[xi].node];
    if (n->op == OP_IN1D) {
        X = flat_grid(c, X);
        if (!X) return NULL;
    }
    int32_t aj = whole_job(c, c->t->grid[n->in[oi].node],
                           n->op == OP_SEARCHSORTED ? "the sorted array"
                           : n->op == OP_DIGITIZE   ? "the bins"
                                                    : "the test elements");
    if (aj < 0) return NULL;
    int32_t sj = -1;
    if (n->n_in == 3 && (sj = whole_job(c, c->t->grid[n->in[2].node], "the sorter")) < 0)
        return NULL;
    tgrid_t *R =
        grid_with_bounds(c, &n->oshape, n->odtype, (const int64_t *const *)X->bounds, X->nchunks);
    if (!R) return NULL;
    for (gwalk_t w = gwalk_start(X); gwalk_next(&w);) {
        int32_t ji = ss_job(c, pa, n->odtype, X->shape.ndim, w.len, sj >= 0 ? 3 : 2);
        if (ji < 0) return NULL;
        tile__jin_direct(c, ji, 0, X->job[w.li]);
        tile__jin_direct(c, ji, 1, aj);
        if (sj >= 0) tile__jin_direct(c, ji, 2, sj);
        R->job[w.li] = ji;
    }
    return R;
}

static tgrid_t *tile_whole(tctx_t *c, const graph_node_t *n, jparam_t *pa)
{
    int32_t in[2];
    for (int k = 0; k < n->n_in; k++)
        if ((in[k] = whole_job(c, c->t->grid[n->in[k].node], "the whole input")) < 0) return NULL;
    int32_t ji = ss_job(c, pa, n->odtype, n->oshape.ndim, n->oshape.d, n->n_in);
    if (ji < 0) return NULL;
    for (int k = 0; k < n->n_in; k++)
        tile__jin_direct(c, ji, k, in[k]);
    return one_chunk(c, n, ji);
}

tgrid_t *tile_sortstat(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    jparam_t *pa = tile__param_new(c, n->op);
    pa->in_dt = c->g->nodes[n->in[0].node].odtype;
    if (is_line_op(n->op)) return tile_line(c, n, pa);
    if (n->op == OP_COV || n->op == OP_CORRCOEF || n->op == OP_ALLCLOSE)
        return tile_whole(c, n, pa);
    return tile_elem(c, n, pa);
}
