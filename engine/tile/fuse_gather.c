/* fuse_gather.c: gathers read through by their readers.
 *
 * A gather job (a transpose's chunk, a rechunk's, a slice's) only copies
 * boxes of other chunks into its output. When every job that reads it reads
 * boxes of it (pieces), those readers can copy the same elements straight out
 * of the gather's own sources: the composed copy is another piece. The
 * gather then never runs (nothing reads it), one copy pass of its bytes goes,
 * and in a cluster its chunk is never stored nor sent. W8 (a transpose, then
 * a rechunk, then a sum) reads the random chunks straight into the rechunk's
 * boxes, which then generate them (gen.c).
 *
 * Runs before tile__plan_virtual, in job order: a gather's own pieces are
 * final (its sources' gathers already read through) when its readers are
 * rewritten. Only unit-step boxes compose here (rechunks, transposes and
 * contiguous slices); other readers keep the gather. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arena.h"
#include "tile_priv.h"

/* A gather read through by its readers holds at most this many pieces: each
 * box a reader takes of it becomes up to this many. */
#define FUSE_GATHER_MAX_PIECES 16

/* A piece p seen as a box of the array it writes (shape sh): the box's
 * origin and length per axis, and the axis ax[d] each of p's dimensions
 * walks, with unit steps. False when p's destination is not such a box. */
static bool dst_box(const piece_t *p, int nd, const int64_t *sh, int64_t *lo, int64_t *len, int *ax)
{
    int64_t st[MR_MAXDIM];
    if (p->ndim != nd) return false;
    c_strides(nd, sh, st);
    if (!c_decompose(nd, st, sh, p->dst_off, lo)) return false;
    bool used[MR_MAXDIM] = {false};
    for (int a = 0; a < nd; a++)
        len[a] = 1;
    for (int d = 0; d < nd; d++) {
        ax[d] = -1;
        if (p->count[d] <= 0) return false;
        if (p->count[d] == 1) continue;
        for (int a = 0; a < nd; a++)
            if (!used[a] && sh[a] > 1 && p->dst_stride[d] == st[a]) {
                ax[d] = a;
                break;
            }
        if (ax[d] < 0) return false;
        used[ax[d]] = true;
        len[ax[d]] = p->count[d];
        if (lo[ax[d]] + len[ax[d]] > sh[ax[d]]) return false;
    }
    for (int d = 0; d < nd; d++) /* length-1 dimensions take the axes left */
        if (ax[d] < 0)
            for (int a = 0; a < nd; a++)
                if (!used[a]) {
                    ax[d] = a;
                    used[a] = true;
                    break;
                }
    return true;
}

/* A reader's piece p of gather job g seen as a box of g's output: origin lo
 * and length len per axis of g (p's dimensions are g's axes, unit steps). */
static bool src_box(const piece_t *p, const job_t *g, int64_t *lo, int64_t *len)
{
    int nd = g->ndim;
    int64_t st[MR_MAXDIM];
    if (p->ndim != nd) return false;
    c_strides(nd, g->shape, st);
    if (!c_decompose(nd, st, g->shape, p->src_off, lo)) return false;
    for (int a = 0; a < nd; a++) {
        if (p->count[a] <= 0) return false;
        if (p->count[a] > 1 && p->src_stride[a] != st[a]) return false;
        len[a] = p->count[a];
        if (lo[a] + len[a] > g->shape[a]) return false;
    }
    return true;
}

/* Whether gather job g can be read through: a gather of pieces only, each a
 * box of its output. */
static bool gather_fusable(const tile_t *t, const job_t *g)
{
    if (g->kind != JK_GATHER || g->keep || g->n_in != 1 || g->ndim < 1) return false;
    if (t->g->nodes[g->node].fetch) return false;
    const jin_t *in = &g->in[0];
    if (in->job >= 0 || in->n_gpieces > 0 || in->gen_node >= 0) return false; /* see as_pieces */
    if (in->n_pieces < 1 || in->n_pieces > FUSE_GATHER_MAX_PIECES) return false;
    if (in->ndim != g->ndim || in->dt != g->dt) return false;
    for (int d = 0; d < g->ndim; d++)
        if (in->shape[d] != g->shape[d]) return false;
    for (int32_t q = 0; q < in->n_pieces; q++) {
        int64_t lo[MR_MAXDIM], len[MR_MAXDIM];
        int ax[MR_MAXDIM];
        if (!dst_box(&in->pieces[q], g->ndim, g->shape, lo, len, ax)) return false;
    }
    return true;
}

/* Marks bad[s] for every job s some job reads through a piece that is not
 * a unit-step box of it; counts the jobs reading s whole (whole[s]) and
 * through pieces (parts[s]). */
static void count_readers(const tile_t *t, uint8_t *bad, int32_t *whole, int32_t *parts)
{
    for (int32_t j = 0; j < t->n_jobs; j++) {
        const job_t *jb = &t->jobs[j];
        for (int k = 0; k < jb->n_in; k++) {
            const jin_t *in = &jb->in[k];
            if (in->job >= 0) {
                whole[in->job]++;
                continue;
            }
            for (int32_t q = 0; q < in->n_pieces; q++) {
                const piece_t *p = &in->pieces[q];
                int64_t lo[MR_MAXDIM], len[MR_MAXDIM];
                parts[p->src]++;
                if (!bad[p->src] && !src_box(p, &t->jobs[p->src], lo, len)) bad[p->src] = 1;
            }
        }
    }
}

/* Whether gather job g, read whole by one job, can be assembled by that
 * job instead: a gather of pieces of stored chunks. */
static bool gather_inlinable(const tile_t *t, const job_t *g)
{
    if (g->kind != JK_GATHER || g->keep || g->n_in != 1) return false;
    if (t->g->nodes[g->node].fetch) return false;
    const jin_t *in = &g->in[0];
    return in->job < 0 && in->n_gpieces == 0 && in->gen_node < 0 && in->dt == g->dt &&
           prod(in->ndim, in->shape) == prod(g->ndim, g->shape);
}

/* Appends to out the pieces reading, from g's sources, what reader piece p
 * reads of gather g. Returns how many, or -1 on OOM. */
static int32_t compose(tctx_t *c, const job_t *g, const piece_t *p, piece_t *out)
{
    int nd = g->ndim;
    int64_t plo[MR_MAXDIM], plen[MR_MAXDIM];
    if (!src_box(p, g, plo, plen)) return 0; /* checked by mark_unfusable */
    const jin_t *gin = &g->in[0];
    int32_t n = 0;
    for (int32_t i = 0; i < gin->n_pieces; i++) {
        const piece_t *q = &gin->pieces[i];
        int64_t qlo[MR_MAXDIM], qlen[MR_MAXDIM], lo[MR_MAXDIM], hi[MR_MAXDIM];
        int ax[MR_MAXDIM];
        if (!dst_box(q, nd, g->shape, qlo, qlen, ax)) continue;
        bool empty = false;
        for (int a = 0; a < nd; a++) {
            lo[a] = plo[a] > qlo[a] ? plo[a] : qlo[a];
            hi[a] = plo[a] + plen[a] < qlo[a] + qlen[a] ? plo[a] + plen[a] : qlo[a] + qlen[a];
            empty |= hi[a] <= lo[a];
        }
        if (empty) continue;
        piece_t *r = &out[n++];
        r->src = q->src;
        r->ndim = q->ndim;
        r->count = tile__arena_i64(c, nd);
        r->src_stride = arena_i64_copy(c, q->src_stride, nd);
        r->dst_stride = tile__arena_i64(c, nd);
        if (!r->count || !r->src_stride || !r->dst_stride) return -1;
        r->src_off = q->src_off;
        r->dst_off = p->dst_off;
        for (int d = 0; d < nd; d++) {
            int a = ax[d];
            r->count[d] = hi[a] - lo[a];
            r->src_off += (lo[a] - qlo[a]) * q->src_stride[d];
            r->dst_stride[d] = p->dst_stride[a];
        }
        for (int a = 0; a < nd; a++)
            r->dst_off += (lo[a] - plo[a]) * p->dst_stride[a];
    }
    return n;
}

/* Rewrites input in's pieces that read fused gathers. 0, or -1 on OOM. */
static int rewrite_input(tctx_t *c, jin_t *in, const uint8_t *fused)
{
    tile_t *t = c->t;
    int64_t m = 0;
    bool any = false;
    for (int32_t q = 0; q < in->n_pieces; q++) {
        int32_t s = in->pieces[q].src;
        if (fused[s] == 1) {
            any = true;
            m += t->jobs[s].in[0].n_pieces;
        } else {
            m++;
        }
    }
    if (!any) return 0;
    if (m > INT32_MAX) return -1;
    piece_t *np = arena_alloc(t->arena, sizeof(piece_t) * (size_t)m);
    if (!np) return -1;
    int32_t n = 0;
    for (int32_t q = 0; q < in->n_pieces; q++) {
        const piece_t *p = &in->pieces[q];
        if (fused[p->src] != 1) {
            np[n++] = *p;
            continue;
        }
        int32_t k = compose(c, &t->jobs[p->src], p, np + n);
        if (k < 0) return -1;
        n += k;
    }
    in->pieces = np;
    in->n_pieces = n;
    return 0;
}

/* A gather whose input is another job's whole output (the same bytes in
 * another shape: a transpose of a chunk with one row) as the one piece
 * copying it. 0, or -1 on OOM. */
static int as_pieces(tctx_t *c, job_t *g)
{
    jin_t *in = &g->in[0];
    if (g->kind != JK_GATHER || g->n_in != 1 || in->job < 0 || g->ndim < 1) return 0;
    const job_t *s = &c->t->jobs[in->job];
    if (s->dt != g->dt || prod(s->ndim, s->shape) != prod(g->ndim, g->shape)) return 0;
    piece_t *p = arena_alloc(c->t->arena, sizeof(piece_t));
    if (!p) return -1;
    memset(p, 0, sizeof *p);
    p->src = in->job;
    p->ndim = g->ndim;
    p->count = arena_i64_copy(c, g->shape, g->ndim);
    p->src_stride = tile__arena_i64(c, g->ndim);
    if (!p->count || !p->src_stride) return -1;
    c_strides(g->ndim, g->shape, p->src_stride);
    p->dst_stride = p->src_stride;
    in->job = -1;
    in->n_pieces = 1;
    in->pieces = p;
    return 0;
}

/* Input in reads gather g whole: it assembles g's pieces itself (the same
 * elements in the same C order, whatever shape in gives them). */
static void take_pieces(job_t *reader, jin_t *in, const job_t *g)
{
    const jin_t *gin = &g->in[0];
    in->job = -1;
    in->n_pieces = gin->n_pieces;
    in->pieces = gin->pieces;
    if (reader->kind == JK_ALIAS) reader->kind = JK_GATHER; /* nothing to alias now */
}

int tile__fuse_gathers(tctx_t *c)
{
    tile_t *t = c->t;
    int32_t n = t->n_jobs;
    uint8_t *bad = calloc((size_t)n + 1, 1), *fused = calloc((size_t)n + 1, 1);
    int32_t *whole = calloc((size_t)n + 1, sizeof(int32_t));
    int32_t *parts = calloc((size_t)n + 1, sizeof(int32_t));
    if (!bad || !fused || !whole || !parts) goto oom;
    count_readers(t, bad, whole, parts);
    /* fused[j]: 1 read through (its readers copy from its sources), 2
     * assembled by its one reader */
    for (int32_t j = 0; j < n; j++) {
        job_t *jb = &t->jobs[j];
        for (int k = 0; k < jb->n_in; k++) {
            jin_t *in = &jb->in[k];
            if (in->job >= 0 && fused[in->job] == 2)
                take_pieces(jb, in, &t->jobs[in->job]);
            else if (in->job < 0 && in->n_pieces > 0 && rewrite_input(c, in, fused))
                goto oom;
        }
        if (bad[j]) continue;
        if (whole[j] == 0) {
            if (as_pieces(c, jb)) goto oom;
            fused[j] = gather_fusable(t, jb) ? 1 : 0;
        } else if (whole[j] == 1 && parts[j] == 0) {
            fused[j] = gather_inlinable(t, jb) ? 2 : 0;
        }
    }
    /* a gather read through or assembled by its reader reads nothing
     * itself: no reader counts it */
    for (int32_t j = 0; j < n; j++)
        if (fused[j]) t->jobs[j].in[0].n_pieces = 0;
    free(bad);
    free(fused);
    free(whole);
    free(parts);
    return 0;
oom:
    free(bad);
    free(fused);
    free(whole);
    free(parts);
    snprintf(c->err, c->errlen, "document: out of memory while tiling");
    return -1;
}
