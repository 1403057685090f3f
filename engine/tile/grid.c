/* grid.c: chunk grids, and job inputs cut out of them: boxes, strided
 * selections and the pieces that copy them (tile_gather runs those). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arena.h"
#include "tile_priv.h"

/* ------------------------------------------------------------------ grids */

void bounds_uniform(int64_t len, int64_t chunk, int64_t *nch)
{
    *nch = len == 0 ? 1 : (len + chunk - 1) / chunk;
}

tgrid_t *tile__grid_alloc(tctx_t *c, const shape_t *shape, dtype_t dt, const int64_t *nchunks)
{
    int64_t total = 1;
    for (int d = 0; d < shape->ndim; d++) {
        if (mul_ovf_i64(total, nchunks[d], &total) || total > c->lim->max_chunks) {
            tile__fail(c, "the tensor would have more than %lld chunks (limit max_chunks)",
                       (long long)c->lim->max_chunks);
            return NULL;
        }
    }
    if (total > c->lim->max_total_chunks - c->t->n_jobs) {
        tile__fail(c, "the graph needs more than %lld chunk jobs (limit max_total_chunks)",
                   (long long)c->lim->max_total_chunks);
        return NULL;
    }
    tgrid_t *G = arena_alloc(c->t->arena, sizeof(tgrid_t));
    memset(G, 0, sizeof(*G));
    G->shape = *shape;
    G->dt = dt;
    G->total = total;
    for (int d = 0; d < shape->ndim; d++) {
        G->nchunks[d] = nchunks[d];
        G->bounds[d] = arena_alloc(c->t->arena, sizeof(int64_t) * (size_t)(nchunks[d] + 1));
    }
    G->job = arena_alloc(c->t->arena, sizeof(int32_t) * (size_t)total);
    return G;
}

/* A grid whose axis d has chunks of chunk[d] (the last may be shorter). */
tgrid_t *grid_regular(tctx_t *c, const shape_t *shape, dtype_t dt, const int64_t *chunk)
{
    int64_t nch[MR_MAXDIM];
    for (int d = 0; d < shape->ndim; d++)
        bounds_uniform(shape->d[d], chunk[d], &nch[d]);
    tgrid_t *G = tile__grid_alloc(c, shape, dt, nch);
    if (!G) return NULL;
    for (int d = 0; d < shape->ndim; d++) {
        for (int64_t k = 0; k <= nch[d]; k++) {
            int64_t b = k * chunk[d];
            G->bounds[d][k] = b < shape->d[d] ? b : shape->d[d];
        }
    }
    return G;
}

/* A grid with the given bounds per axis (copied). */
tgrid_t *grid_with_bounds(tctx_t *c, const shape_t *shape, dtype_t dt, const int64_t *const *bounds,
                          const int64_t *nch)
{
    tgrid_t *G = tile__grid_alloc(c, shape, dt, nch);
    if (!G) return NULL;
    for (int d = 0; d < shape->ndim; d++)
        memcpy(G->bounds[d], bounds[d], sizeof(int64_t) * (size_t)(nch[d] + 1));
    return G;
}

bool bounds_eq(const tgrid_t *A, int da, const tgrid_t *B, int db)
{
    if (A->nchunks[da] != B->nchunks[db]) return false;
    return memcmp(A->bounds[da], B->bounds[db], sizeof(int64_t) * (size_t)(A->nchunks[da] + 1)) ==
           0;
}

int64_t grid_index(const tgrid_t *G, const int64_t *co)
{
    int64_t li = 0;
    for (int d = 0; d < G->shape.ndim; d++)
        li = li * G->nchunks[d] + co[d];
    return li;
}

void grid_region(const tgrid_t *G, const int64_t *co, int64_t *off, int64_t *len)
{
    for (int d = 0; d < G->shape.ndim; d++) {
        off[d] = G->bounds[d][co[d]];
        len[d] = G->bounds[d][co[d] + 1] - off[d];
    }
}

/* Default chunk sizes: about target bytes per chunk, split evenly over the
 * axes as dask's "auto" does. */
void default_chunks(const shape_t *s, dtype_t dt, int64_t target, int64_t *chunk)
{
    double total = (double)dt_size(dt);
    for (int d = 0; d < s->ndim; d++)
        total *= (double)(s->d[d] > 0 ? s->d[d] : 1);
    double f = total <= (double)target ? 1.0 : pow((double)target / total, 1.0 / s->ndim);
    for (int d = 0; d < s->ndim; d++) {
        int64_t len = s->d[d] > 0 ? s->d[d] : 1;
        int64_t ch = (int64_t)((double)len * f);
        chunk[d] = ch < 1 ? 1 : ch > len ? len : ch;
    }
}

/* ------------------------------------------------------------------ inputs from regions */

piece_t *pv_push(tctx_t *c)
{
    if (c->npv == c->cappv) {
        int64_t cap = c->cappv ? c->cappv * 2 : 64;
        piece_t *np = realloc(c->pv, sizeof(piece_t) * (size_t)cap);
        if (!np) return NULL;
        c->pv = np;
        c->cappv = cap;
    }
    return &c->pv[c->npv++];
}

static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

/* First chunk k along an axis with bounds[k+1] > p. */
int64_t chunk_of(const int64_t *bounds, int64_t nch, int64_t p)
{
    int64_t lo = 0, hi = nch - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (bounds[mid + 1] > p)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Splits the positions start + step*i, 0 <= i < n, of one axis by chunk. */
int split_axis(const int64_t *bounds, int64_t nch, int64_t start, int64_t step, int64_t n,
               seg_t **segs, int64_t *nseg)
{
    *nseg = 0;
    if (n <= 0) return 0;
    if (step == 0 || n == 1) {
        seg_t *s = malloc(sizeof(seg_t));
        if (!s) return -1;
        s->chunk = chunk_of(bounds, nch, start);
        s->i0 = 0;
        s->i1 = n;
        *segs = s;
        *nseg = 1;
        return 0;
    }
    int64_t last = start + step * (n - 1);
    int64_t pmin = step > 0 ? start : last, pmax = step > 0 ? last : start;
    int64_t k0 = chunk_of(bounds, nch, pmin), k1 = chunk_of(bounds, nch, pmax);
    seg_t *s = malloc(sizeof(seg_t) * (size_t)(k1 - k0 + 1));
    if (!s) return -1;
    int64_t m = 0;
    for (int64_t k = k0; k <= k1; k++) {
        int64_t lo = bounds[k], hi = bounds[k + 1], i0, i1;
        if (step > 0) {
            i0 = lo > start ? floordiv(lo - start + step - 1, step) : 0;
            i1 = hi > start ? floordiv(hi - start + step - 1, step) : 0;
        } else {
            int64_t ts = -step;
            i0 = floordiv(start - hi, ts) + 1;
            i1 = floordiv(start - lo, ts) + 1;
        }
        if (i0 < 0) i0 = 0;
        if (i1 > n) i1 = n;
        if (i1 > i0) {
            s[m].chunk = k;
            s[m].i0 = i0;
            s[m].i1 = i1;
            m++;
        }
    }
    *segs = s;
    *nseg = m;
    return 0;
}

/* Adds the pieces that copy the selection (per axis of G: positions
 * start[d] + step[d]*i, 0 <= i < n[d]) into the assembled array, element i
 * landing at dst_base + sum_d i_d*dst_stride[d]. */
int add_region(tctx_t *c, const tgrid_t *G, const int64_t *start, const int64_t *step,
               const int64_t *n, const int64_t *dst_stride, int64_t dst_base)
{
    int nd = G->shape.ndim;
    seg_t *segs[MR_MAXDIM] = {0};
    int64_t nseg[MR_MAXDIM];
    int rc = -1;
    for (int d = 0; d < nd; d++) {
        if (n[d] == 0) {
            rc = 0; /* nothing selected */
            goto done;
        }
        if (split_axis(G->bounds[d], G->nchunks[d], start[d], step[d], n[d], &segs[d], &nseg[d]))
            goto oom;
    }
    int64_t it[MR_MAXDIM] = {0};
    for (;;) {
        int64_t co[MR_MAXDIM], sshape[MR_MAXDIM], sst[MR_MAXDIM];
        for (int d = 0; d < nd; d++) {
            co[d] = segs[d][it[d]].chunk;
            sshape[d] = G->bounds[d][co[d] + 1] - G->bounds[d][co[d]];
        }
        c_strides(nd, sshape, sst);
        piece_t *p = pv_push(c);
        if (!p) goto oom;
        if (++c->n_refs > c->lim->max_total_chunks * 4) {
            tile__fail(c, "the graph needs too many chunk copies (limit 4 x max_total_chunks)");
            goto done;
        }
        p->src = G->job[grid_index(G, co)];
        p->ndim = nd;
        p->count = tile__arena_i64(c, nd);
        p->src_stride = tile__arena_i64(c, nd);
        p->dst_stride = tile__arena_i64(c, nd);
        p->src_off = 0;
        p->dst_off = dst_base;
        for (int d = 0; d < nd; d++) {
            const seg_t *s = &segs[d][it[d]];
            int64_t pos = start[d] + step[d] * s->i0 - G->bounds[d][co[d]];
            p->count[d] = s->i1 - s->i0;
            p->src_stride[d] = step[d] * sst[d];
            p->dst_stride[d] = dst_stride[d];
            p->src_off += pos * sst[d];
            p->dst_off += s->i0 * dst_stride[d];
        }
        int d = nd - 1;
        while (d >= 0 && ++it[d] == nseg[d])
            it[d--] = 0;
        if (d < 0) break;
    }
    rc = 0;
    goto done;
oom:
    tile__fail(c, "out of memory while tiling");
done:
    for (int d = 0; d < nd; d++)
        free(segs[d]);
    return rc;
}

/* Turns the pieces gathered so far into input k of job ji: the job's whole
 * output directly when one piece is exactly one chunk in the same layout. */
void input_finish(tctx_t *c, int32_t ji, int k, int ndim, const int64_t *shape, dtype_t dt)
{
    jin_t *in = &c->t->jobs[ji].in[k];
    int64_t n = prod(ndim, shape);
    if (c->npv == 1) {
        const piece_t *p = &c->pv[0];
        const job_t *sj = &c->t->jobs[p->src];
        int64_t sst[MR_MAXDIM];
        c_strides(sj->ndim, sj->shape, sst);
        bool whole = p->src_off == 0 && p->dst_off == 0 && p->ndim == sj->ndim &&
                     prod(sj->ndim, sj->shape) == n;
        for (int d = 0; whole && d < p->ndim; d++) {
            if (p->count[d] != sj->shape[d])
                whole = false;
            else if (p->count[d] > 1 && (p->src_stride[d] != sst[d] || p->dst_stride[d] != sst[d]))
                whole = false;
        }
        if (whole) {
            in->job = p->src;
            in->n_pieces = 0;
            in->pieces = NULL;
            in->ndim = ndim;
            in->shape = arena_i64_copy(c, shape, ndim);
            in->dt = dt;
            c->npv = 0;
            return;
        }
    }
    in->job = -1;
    in->n_pieces = (int32_t)c->npv;
    in->pieces = arena_alloc(c->t->arena, sizeof(piece_t) * (size_t)(c->npv ? c->npv : 1));
    if (c->npv) memcpy(in->pieces, c->pv, sizeof(piece_t) * (size_t)c->npv);
    in->ndim = ndim;
    in->shape = arena_i64_copy(c, shape, ndim);
    in->dt = dt;
    c->npv = 0;
}

/* Input k of ji: the box [off, off+len) of G, in G's layout. */
int tile__input_box(tctx_t *c, int32_t ji, int k, const tgrid_t *G, const int64_t *off,
                    const int64_t *len)
{
    int nd = G->shape.ndim;
    int64_t step[MR_MAXDIM], dst[MR_MAXDIM];
    for (int d = 0; d < nd; d++)
        step[d] = 1;
    c_strides(nd, len, dst);
    c->npv = 0;
    if (add_region(c, G, off, step, len, dst, 0)) return -1;
    input_finish(c, ji, k, nd, len, G->dt);
    return 0;
}

/* The job holding the box [off, off+len) of G: G's own chunk when the box is
 * exactly one, else a new gather. -1 on error. */
int32_t region_job(tctx_t *c, const tgrid_t *G, const int64_t *off, const int64_t *len)
{
    int nd = G->shape.ndim;
    int64_t co[MR_MAXDIM];
    bool exact = true;
    for (int d = 0; d < nd && exact; d++) {
        co[d] = chunk_of(G->bounds[d], G->nchunks[d], off[d]);
        exact = G->bounds[d][co[d]] == off[d] && G->bounds[d][co[d] + 1] == off[d] + len[d];
    }
    if (exact) return G->job[grid_index(G, co)];
    int32_t ji = tile__job_new(c, JK_GATHER, G->dt, nd, len, 1);
    if (ji < 0 || tile__input_box(c, ji, 0, G, off, len)) return -1;
    return ji;
}

/* A gather job of shape olen (ndim ond) copying the selection start + step*i,
 * 0 <= i < cnt (per axis of G), to dst strides. -1 on error. */
int32_t gather_job(tctx_t *c, const tgrid_t *G, int ond, const int64_t *olen, const int64_t *start,
                   const int64_t *step, const int64_t *cnt, const int64_t *dst)
{
    int32_t ji = tile__job_new(c, JK_GATHER, G->dt, ond, olen, 1);
    if (ji < 0) return -1;
    c->npv = 0;
    if (add_region(c, G, start, step, cnt, dst, 0)) return -1;
    input_finish(c, ji, 0, ond, olen, G->dt);
    return ji;
}

/* A grid with the same shape as G and the given bounds, chunks copied out
 * of G (G itself when the bounds are G's). */
tgrid_t *grid_rechunk(tctx_t *c, const tgrid_t *G, int64_t *const *bounds, const int64_t *nch)
{
    int nd = G->shape.ndim;
    bool same = true;
    for (int d = 0; d < nd && same; d++)
        same = nch[d] == G->nchunks[d] &&
               memcmp(bounds[d], G->bounds[d], sizeof(int64_t) * (size_t)(nch[d] + 1)) == 0;
    if (same) return (tgrid_t *)G;
    tgrid_t *R = grid_with_bounds(c, &G->shape, G->dt, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int64_t li = w.li, *off = w.off, *len = w.len;
        int32_t ji = region_job(c, G, off, len);
        if (ji < 0) return NULL;
        R->job[li] = ji;
    }
    return R;
}

/* G with axis d rechunked to the bounds of axis e of H. */
tgrid_t *grid_align_axis(tctx_t *c, const tgrid_t *G, int d, const tgrid_t *H, int e)
{
    if (bounds_eq(G, d, H, e)) return (tgrid_t *)G;
    int64_t *b[MR_MAXDIM], nch[MR_MAXDIM];
    for (int a = 0; a < G->shape.ndim; a++) {
        b[a] = a == d ? H->bounds[e] : G->bounds[a];
        nch[a] = a == d ? H->nchunks[e] : G->nchunks[a];
    }
    return grid_rechunk(c, G, b, nch);
}

/* ------------------------------------------------------------------ gather */

static void copy_box(const piece_t *p, int d, const char *src, char *dst, size_t es)
{
    int64_t n = p->count[d];
    int64_t ss = p->src_stride[d] * (int64_t)es, ds = p->dst_stride[d] * (int64_t)es;
    if (d == p->ndim - 1) {
        if (ss == (int64_t)es && ds == (int64_t)es) {
            memcpy(dst, src, (size_t)n * es);
            return;
        }
        switch (es) {
        case 8:
            for (int64_t i = 0; i < n; i++)
                memcpy(dst + i * ds, src + i * ss, 8);
            break;
        case 4:
            for (int64_t i = 0; i < n; i++)
                memcpy(dst + i * ds, src + i * ss, 4);
            break;
        case 2:
            for (int64_t i = 0; i < n; i++)
                memcpy(dst + i * ds, src + i * ss, 2);
            break;
        default:
            for (int64_t i = 0; i < n; i++)
                dst[i * ds] = src[i * ss];
            break;
        }
        return;
    }
    for (int64_t i = 0; i < n; i++)
        copy_box(p, d + 1, src + i * ss, dst + i * ds, es);
}

bool tile__piece_empty(const piece_t *p)
{
    for (int a = 0; a < p->ndim; a++)
        if (p->count[a] == 0) return true;
    return false;
}

void tile__copy_piece(const piece_t *p, const void *src, void *dst, size_t es)
{
    /* an empty piece's offsets are not checked (jobdesc.c): no address is
     * made from them */
    if (tile__piece_empty(p)) return;
    const char *s = (const char *)src + p->src_off * (int64_t)es;
    char *d = (char *)dst + p->dst_off * (int64_t)es;
    if (p->ndim == 0) {
        memcpy(d, s, es);
        return;
    }
    copy_box(p, 0, s, d, es);
}

void tile_gather(const jin_t *in, const void *const *srcs_by_piece, void *dst)
{
    size_t es = dt_size(in->dt);
    for (int32_t k = 0; k < in->n_pieces; k++)
        tile__copy_piece(&in->pieces[k], srcs_by_piece[k], dst, es);
}

/* A gather copying elements [off, off + size(shape)) of job src (flat) into
 * an output chunk of shape (nd, d). */
int32_t tile__slice_job(tctx_t *c, int32_t src, dtype_t dt, int nd, const int64_t *d, int64_t off)
{
    int64_t cnt = 1;
    for (int k = 0; k < nd; k++)
        cnt *= d[k];
    int32_t ji = tile__job_new(c, JK_GATHER, dt, nd, d, 1);
    if (ji < 0) return -1;
    c->npv = 0;
    if (cnt > 0) {
        piece_t *p = pv_push(c);
        if (!p) return -1;
        p->src = src;
        p->ndim = 1;
        p->count = arena_i64_copy(c, &cnt, 1);
        p->src_stride = tile__arena_i64(c, 1);
        p->dst_stride = tile__arena_i64(c, 1);
        if (!p->count || !p->src_stride || !p->dst_stride) return -1;
        p->src_stride[0] = 1;
        p->dst_stride[0] = 1;
        p->src_off = off;
        p->dst_off = 0;
    }
    input_finish(c, ji, 0, nd, d, dt);
    return ji;
}
