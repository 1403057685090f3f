/* shapes2.c: tiling of roll, broadcast_to, tile, repeat and pad
 * (shapes2.h), lowered to chunk jobs that exist: slices and concatenations
 * (region jobs, which reuse a chunk whole when a box is exactly one),
 * gathers whose pieces read with stride 0 (broadcasting, repeating, edge
 * padding) and element-wise programs of a constant (constant padding).
 * Every chunk made here holds about the target chunk size or less. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arena.h"
#include "../shapes2.h"
#include "tile_priv.h"

static int64_t max_chunk(const tgrid_t *G, int d)
{
    int64_t mx = 1;
    for (int64_t k = 0; k < G->nchunks[d]; k++)
        if (G->bounds[d][k + 1] - G->bounds[d][k] > mx) mx = G->bounds[d][k + 1] - G->bounds[d][k];
    return mx;
}

/* The length along axis k for chunks that hold about the target bytes
 * when the other axes are chunked as G's: at least lo, at least 1. */
static int64_t axis_chunk_len(tctx_t *c, const tgrid_t *G, int k, int64_t lo)
{
    int64_t other = (int64_t)dt_size(G->dt);
    for (int d = 0; d < G->shape.ndim; d++)
        if (d != k && mul_ovf_i64(other, max_chunk(G, d), &other)) other = INT64_MAX;
    int64_t L = c->opts->target_chunk_bytes / (other > 0 ? other : 1);
    if (L < lo) L = lo;
    return L < 1 ? 1 : L;
}

/* Regular bounds of len in chunks of L (one empty chunk for len 0). */
static int64_t *bounds_regular(tctx_t *c, int64_t len, int64_t L, int64_t *nch)
{
    bounds_uniform(len, L, nch);
    if (*nch > c->lim->max_chunks) {
        tile__fail(c, "the tensor would have more than %lld chunks (limit max_chunks)",
                   (long long)c->lim->max_chunks);
        return NULL;
    }
    int64_t *b = arena_alloc(c->t->arena, sizeof(int64_t) * (size_t)(*nch + 1));
    for (int64_t k = 0; k <= *nch; k++)
        b[k] = k * L < len ? k * L : len;
    return b;
}

/* G's positions [lo, hi) along axis k, chunked as G (a box that is one of
 * G's chunks is that chunk). */
static tgrid_t *grid_sub(tctx_t *c, const tgrid_t *G, int k, int64_t lo, int64_t hi)
{
    int nd = G->shape.ndim;
    shape_t s = G->shape;
    s.d[k] = hi - lo;
    int64_t *b = tile__arena_i64(c, (int)G->nchunks[k] + 2), m = 0;
    b[0] = 0;
    for (int64_t q = 0; q < G->nchunks[k]; q++) {
        int64_t a = G->bounds[k][q] > lo ? G->bounds[k][q] : lo;
        int64_t e = G->bounds[k][q + 1] < hi ? G->bounds[k][q + 1] : hi;
        if (e > a) b[++m] = e - lo;
    }
    if (m == 0) b[++m] = 0;
    int64_t *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    for (int d = 0; d < nd; d++) {
        bounds[d] = d == k ? b : G->bounds[d];
        nch[d] = d == k ? m : G->nchunks[d];
    }
    tgrid_t *R = grid_with_bounds(c, &s, G->dt, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int64_t off[MR_MAXDIM];
        memcpy(off, w.off, sizeof(int64_t) * (size_t)nd);
        off[k] += lo;
        int32_t ji = region_job(c, G, off, w.len);
        if (ji < 0) return NULL;
        R->job[w.li] = ji;
    }
    return R;
}

/* G with leading size-1 axes up to nd dimensions (the same chunks). */
static const tgrid_t *grid_lift(tctx_t *c, const tgrid_t *G, int nd)
{
    if (G->shape.ndim >= nd) return G;
    shape_t s = {.ndim = nd};
    int lead = nd - G->shape.ndim;
    for (int d = 0; d < nd; d++)
        s.d[d] = d < lead ? 1 : G->shape.d[d - lead];
    return grid_reshape(c, G, &s);
}

/* A gather of the box [off, off + len) of a grid shaped as G but for
 * axes where G has size 1 (bc): there every position reads G's one
 * (stride 0). fix >= 0: along axis k, every position reads G's position
 * fix (edge padding). */
static int32_t bcast_job(tctx_t *c, const tgrid_t *G, const int64_t *off, const int64_t *len,
                         const bool *bc, int k, int64_t fix)
{
    int nd = G->shape.ndim;
    int64_t start[MR_MAXDIM], step[MR_MAXDIM], dst[MR_MAXDIM];
    c_strides(nd, len, dst);
    for (int d = 0; d < nd; d++) {
        bool zero = (bc && bc[d]) || (d == k && fix >= 0);
        start[d] = d == k && fix >= 0 ? fix : bc && bc[d] ? 0 : off[d];
        step[d] = zero ? 0 : 1;
    }
    return gather_job(c, G, nd, len, start, step, len, dst);
}

/* ------------------------------------------------------------------ roll */

static tgrid_t *tile_roll(tctx_t *c, const graph_node_t *n, const tgrid_t *G)
{
    const sh2_node_t *s = n->sh2;
    if (s->flat) {
        shape_t f = {.ndim = 1, .d = {shape_size(&G->shape)}};
        G = grid_reshape(c, G, &f);
    }
    for (int d = 0; G && d < G->shape.ndim; d++) {
        int64_t len = G->shape.d[d], sh = s->shift[d];
        if (sh == 0 || len == 0) continue;
        /* numpy: the last sh positions first, then the others */
        tgrid_t *in[2] = {grid_sub(c, G, d, len - sh, len), NULL};
        if (in[0]) in[1] = grid_sub(c, G, d, 0, len - sh);
        if (!in[1]) return NULL;
        G = grid_concat(c, in, 2, d, &G->shape);
    }
    if (G && s->flat) G = grid_reshape(c, G, &n->oshape);
    return (tgrid_t *)G;
}

/* ------------------------------------------------------------------ broadcast_to */

static tgrid_t *grid_broadcast(tctx_t *c, const tgrid_t *G0, const shape_t *oshape)
{
    const tgrid_t *G = grid_lift(c, G0, oshape->ndim);
    if (!G) return NULL;
    int nd = oshape->ndim;
    bool bc[MR_MAXDIM] = {false}, any = false;
    int64_t *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    int64_t have = (int64_t)dt_size(G->dt);
    for (int d = 0; d < nd; d++) {
        bc[d] = G->shape.d[d] != oshape->d[d];
        any |= bc[d];
        if (!bc[d]) {
            bounds[d] = G->bounds[d];
            nch[d] = G->nchunks[d];
            if (mul_ovf_i64(have, max_chunk(G, d), &have)) have = INT64_MAX;
        }
    }
    if (!any) return (tgrid_t *)G;
    /* the broadcast axes, innermost first, share what the target leaves */
    for (int d = nd - 1; d >= 0; d--) {
        if (!bc[d]) continue;
        int64_t L = c->opts->target_chunk_bytes / (have > 0 ? have : 1);
        if (L < 1) L = 1;
        if (L > oshape->d[d]) L = oshape->d[d] > 0 ? oshape->d[d] : 1;
        bounds[d] = bounds_regular(c, oshape->d[d], L, &nch[d]);
        if (!bounds[d]) return NULL;
        if (mul_ovf_i64(have, L, &have)) have = INT64_MAX;
    }
    tgrid_t *R = grid_with_bounds(c, oshape, G->dt, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int32_t ji = bcast_job(c, G, w.off, w.len, bc, -1, -1);
        if (ji < 0) return NULL;
        R->job[w.li] = ji;
    }
    return R;
}

/* ------------------------------------------------------------------ tile */

/* One chunk along axis k: `copies` copies of G's positions along k, the
 * box [off, off + len) of the other axes. */
static int32_t copies_job(tctx_t *c, const tgrid_t *G, int k, int64_t copies, const int64_t *off,
                          const int64_t *len)
{
    int nd = G->shape.ndim;
    int64_t olen[MR_MAXDIM], start[MR_MAXDIM], step[MR_MAXDIM], cnt[MR_MAXDIM], dst[MR_MAXDIM];
    for (int d = 0; d < nd; d++) {
        olen[d] = d == k ? G->shape.d[k] * copies : len[d];
        start[d] = d == k ? 0 : off[d];
        step[d] = 1;
        cnt[d] = d == k ? G->shape.d[k] : len[d];
    }
    c_strides(nd, olen, dst);
    int32_t ji = tile__job_new(c, JK_GATHER, G->dt, nd, olen, 1);
    if (ji < 0) return -1;
    c->npv = 0;
    for (int64_t q = 0; q < copies; q++)
        if (add_region(c, G, start, step, cnt, dst, q * G->shape.d[k] * dst[k])) return -1;
    input_finish(c, ji, 0, nd, olen, G->dt);
    return ji;
}

/* copies of G along k as one chunk along k (the other axes G's chunks) */
static tgrid_t *grid_copies(tctx_t *c, const tgrid_t *G, int k, int64_t copies)
{
    shape_t s = G->shape;
    s.d[k] *= copies;
    int64_t one[2] = {0, s.d[k]};
    int64_t *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    for (int d = 0; d < s.ndim; d++) {
        bounds[d] = d == k ? one : G->bounds[d];
        nch[d] = d == k ? 1 : G->nchunks[d];
    }
    tgrid_t *R = grid_with_bounds(c, &s, G->dt, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int32_t ji = copies_job(c, G, k, copies, w.off, w.len);
        if (ji < 0) return NULL;
        R->job[w.li] = ji;
    }
    return R;
}

/* B's chunks nb times along axis d, then Rm's (when given): the same jobs
 * at several places, nothing copied. B and Rm share their other axes'
 * bounds. */
static tgrid_t *grid_cycle(tctx_t *c, const tgrid_t *B, int64_t nb, const tgrid_t *Rm, int d,
                           const shape_t *out)
{
    int64_t nbc = B->nchunks[d], nrc = Rm ? Rm->nchunks[d] : 0, m;
    if (mul_ovf_i64(nb, nbc, &m) || add_ovf_i64(m, nrc, &m) || m > c->lim->max_chunks) {
        tile__fail(c, "the tensor would have more than %lld chunks (limit max_chunks)",
                   (long long)c->lim->max_chunks);
        return NULL;
    }
    int64_t *b = arena_alloc(c->t->arena, sizeof(int64_t) * (size_t)(m + 1)), k = 0;
    b[0] = 0;
    for (int64_t i = 0; i < nb; i++)
        for (int64_t q = 0; q < nbc; q++, k++)
            b[k + 1] = i * B->shape.d[d] + B->bounds[d][q + 1];
    for (int64_t q = 0; q < nrc; q++, k++)
        b[k + 1] = nb * B->shape.d[d] + Rm->bounds[d][q + 1];
    int64_t *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    for (int e = 0; e < out->ndim; e++) {
        bounds[e] = e == d ? b : B->bounds[e];
        nch[e] = e == d ? m : B->nchunks[e];
    }
    tgrid_t *R = grid_with_bounds(c, out, B->dt, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int64_t co[MR_MAXDIM];
        memcpy(co, w.co, sizeof(int64_t) * (size_t)out->ndim);
        const tgrid_t *S = B;
        if (co[d] < nb * nbc) {
            co[d] %= nbc;
        } else {
            S = Rm;
            co[d] -= nb * nbc;
        }
        R->job[w.li] = S->job[grid_index(S, co)];
    }
    return R;
}

static tgrid_t *tile_tile(tctx_t *c, const graph_node_t *n, const tgrid_t *G0)
{
    const sh2_node_t *s = n->sh2;
    const tgrid_t *G = grid_lift(c, G0, s->nd);
    for (int d = 0; G && d < s->nd; d++) {
        int64_t r = s->reps[d], len = G->shape.d[d];
        if (r == 1 || len == 0) continue;
        if (r == 0) {
            G = grid_sub(c, G, d, 0, 0);
            continue;
        }
        shape_t out = G->shape;
        out.d[d] = len * r;
        /* when one copy is small, a block of q copies gathered once into one
         * chunk (of about the target size), then those blocks */
        int64_t q = axis_chunk_len(c, G, d, 1) / len;
        if (q > r) q = r;
        if (q < 1) q = 1;
        const tgrid_t *B = q > 1 ? grid_copies(c, G, d, q) : G;
        const tgrid_t *Rm = q > 1 && r % q ? grid_copies(c, G, d, r % q) : NULL;
        if (!B || (q > 1 && r % q && !Rm)) return NULL;
        G = grid_cycle(c, B, r / q, Rm, d, &out);
    }
    return (tgrid_t *)G;
}

/* ------------------------------------------------------------------ repeat */

/* The first output position of element i along the axis. */
static int64_t rep_start(const sh2_node_t *s, const int64_t *cum, int64_t i)
{
    return s->n_list ? cum[i] : i * s->rep;
}

/* The element whose repeats hold output position o. */
static int64_t rep_elem(const sh2_node_t *s, const int64_t *cum, int64_t o)
{
    if (!s->n_list) return o / s->rep;
    int64_t lo = 0, hi = s->n_list - 1; /* last i with cum[i] <= o and a count */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (cum[mid] <= o)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo; /* cum[lo] <= o < cum[lo + 1]: lo has a count */
}

/* Adds the piece copying, from source chunk src (shape sshape), the base
 * box (count/src_off/dst_off over the other axes, set by the caller) with
 * along axis k: elements e (chunk-local ei) repeated: single (m == 1):
 * positions [o, o + cnt) all from one element; run (m > 1): m whole
 * elements of r copies each, from output position o. */
static int rep_piece(tctx_t *c, const piece_t *base, int nd, int k, const int64_t *sst,
                     const int64_t *dst, int64_t ei, int64_t m, int64_t r, int64_t o, int64_t cnt)
{
    piece_t *p = pv_push(c);
    if (!p) return tile__fail(c, "out of memory while tiling");
    if (++c->n_refs > c->lim->max_total_chunks * 4)
        return tile__fail(c, "the graph needs too many chunk copies (limit 4 x max_total_chunks)");
    bool run = m > 1;
    int pd = nd + (run ? 1 : 0);
    *p = *base;
    p->ndim = pd;
    p->count = tile__arena_i64(c, pd);
    p->src_stride = tile__arena_i64(c, pd);
    p->dst_stride = tile__arena_i64(c, pd);
    for (int d = 0, e = 0; d < nd; d++, e++) {
        p->count[e] = base->count[d];
        p->src_stride[e] = base->src_stride[d];
        p->dst_stride[e] = base->dst_stride[d];
        if (d != k) continue;
        if (run) {
            p->count[e] = m;
            p->src_stride[e] = sst[k];
            p->dst_stride[e] = r * dst[k];
            e++;
            p->count[e] = r;
            p->src_stride[e] = 0;
            p->dst_stride[e] = dst[k];
        } else {
            p->count[e] = cnt;
            p->src_stride[e] = 0;
            p->dst_stride[e] = dst[k];
        }
    }
    p->src_off += ei * sst[k];
    p->dst_off += o * dst[k];
    return 0;
}

/* The gather of output chunk [off, off + len) of repeat along axis k. */
static int32_t repeat_job(tctx_t *c, const tgrid_t *G, const sh2_node_t *s, const int64_t *cum,
                          int k, const int64_t *off, const int64_t *len)
{
    int nd = G->shape.ndim;
    int32_t ji = tile__job_new(c, JK_GATHER, G->dt, nd, len, 1);
    if (ji < 0) return -1;
    c->npv = 0;
    int64_t dst[MR_MAXDIM];
    c_strides(nd, len, dst);
    seg_t *segs[MR_MAXDIM] = {0};
    int64_t nseg[MR_MAXDIM];
    int rc = -1;
    bool empty = false;
    for (int d = 0; d < nd; d++)
        empty |= len[d] == 0;
    if (empty) goto done_ok;
    for (int d = 0; d < nd; d++) {
        if (d == k) {
            nseg[d] = 1;
            continue;
        }
        if (split_axis(G->bounds[d], G->nchunks[d], off[d], 1, len[d], &segs[d], &nseg[d])) {
            tile__fail(c, "out of memory while tiling");
            goto done;
        }
    }
    int64_t o0 = off[k], o1 = off[k] + len[k];
    int64_t e0 = rep_elem(s, cum, o0), e1 = rep_elem(s, cum, o1 - 1);
    int64_t k0 = chunk_of(G->bounds[k], G->nchunks[k], e0);
    int64_t k1 = chunk_of(G->bounds[k], G->nchunks[k], e1);
    bool runs = !s->n_list && nd < MR_MAXDIM;
    for (int64_t ck = k0; ck <= k1; ck++) {
        int64_t b0 = G->bounds[k][ck], b1 = G->bounds[k][ck + 1];
        int64_t ia = e0 > b0 ? e0 : b0, ib = e1 < b1 - 1 ? e1 : b1 - 1;
        if (ib < ia) continue;
        int64_t it[MR_MAXDIM] = {0};
        for (;;) {
            int64_t co[MR_MAXDIM], sshape[MR_MAXDIM], sst[MR_MAXDIM];
            for (int d = 0; d < nd; d++) {
                co[d] = d == k ? ck : segs[d][it[d]].chunk;
                sshape[d] = G->bounds[d][co[d] + 1] - G->bounds[d][co[d]];
            }
            c_strides(nd, sshape, sst);
            piece_t base;
            int64_t bc[MR_MAXDIM], bs[MR_MAXDIM], bd[MR_MAXDIM];
            base.src = G->job[grid_index(G, co)];
            base.ndim = nd;
            base.count = bc;
            base.src_stride = bs;
            base.dst_stride = bd;
            base.src_off = 0;
            base.dst_off = 0;
            for (int d = 0; d < nd; d++) {
                if (d == k) {
                    bc[d] = 1;
                    bs[d] = 0;
                    bd[d] = dst[d];
                    continue;
                }
                const seg_t *sg = &segs[d][it[d]];
                bc[d] = sg->i1 - sg->i0;
                bs[d] = sst[d];
                bd[d] = dst[d];
                base.src_off += (off[d] + sg->i0 - G->bounds[d][co[d]]) * sst[d];
                base.dst_off += sg->i0 * dst[d];
            }
            /* along k: elements ia..ib of this chunk */
            for (int64_t e = ia; e <= ib;) {
                int64_t ps = rep_start(s, cum, e), pe = rep_start(s, cum, e + 1);
                int64_t a = ps > o0 ? ps : o0, z = pe < o1 ? pe : o1;
                if (runs && ps >= o0 && e < ib) {
                    /* whole elements e..m-1 (the last one may be cut: left out) */
                    int64_t m = ib - e;
                    if (rep_start(s, cum, ib + 1) <= o1) m++;
                    if (m > 1) {
                        if (rep_piece(c, &base, nd, k, sst, dst, e - b0, m, s->rep, ps - o0, 0))
                            goto done;
                        e += m;
                        continue;
                    }
                }
                if (z > a && rep_piece(c, &base, nd, k, sst, dst, e - b0, 1, 0, a - o0, z - a))
                    goto done;
                e++;
            }
            int d = nd - 1;
            while (d >= 0 && (d == k || ++it[d] == nseg[d])) {
                if (d != k) it[d] = 0;
                d--;
            }
            if (d < 0) break;
        }
    }
done_ok:
    input_finish(c, ji, 0, nd, len, G->dt);
    rc = 0;
done:
    for (int d = 0; d < nd; d++)
        free(segs[d]);
    return rc < 0 ? -1 : ji;
}

static tgrid_t *tile_repeat(tctx_t *c, const graph_node_t *n, const tgrid_t *G)
{
    const sh2_node_t *s = n->sh2;
    if (s->flat) {
        shape_t f = {.ndim = 1, .d = {shape_size(&G->shape)}};
        G = grid_reshape(c, G, &f);
        if (!G) return NULL;
    }
    int k = s->axis, nd = G->shape.ndim;
    if (!s->n_list && s->rep == 1) return (tgrid_t *)G;
    int64_t *cum = NULL;
    if (s->n_list) {
        cum = tile__arena_i64(c, (int)(s->n_list + 1));
        cum[0] = 0;
        for (int64_t i = 0; i < s->n_list; i++)
            cum[i + 1] = cum[i] + s->list[i];
    }
    /* along k: each input chunk's repeats, cut to about the target size */
    int64_t total = n->oshape.d[k];
    int64_t L = axis_chunk_len(c, G, k, max_chunk(G, k));
    if (total / L > c->lim->max_chunks) {
        tile__fail(c, "the tensor would have more than %lld chunks (limit max_chunks)",
                   (long long)c->lim->max_chunks);
        return NULL;
    }
    int64_t cap = G->nchunks[k] + total / L + 2;
    int64_t *b = arena_alloc(c->t->arena, sizeof(int64_t) * (size_t)cap), m = 0;
    b[0] = 0;
    for (int64_t q = 0; q < G->nchunks[k]; q++) {
        int64_t hi = rep_start(s, cum, G->bounds[k][q + 1]);
        while (hi - b[m] > L)
            b[m + 1] = b[m] + L, m++;
        if (hi > b[m]) b[++m] = hi;
    }
    if (m == 0) b[++m] = 0;
    shape_t os = G->shape;
    os.d[k] = total;
    int64_t *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    for (int d = 0; d < nd; d++) {
        bounds[d] = d == k ? b : G->bounds[d];
        nch[d] = d == k ? m : G->nchunks[d];
    }
    tgrid_t *R = grid_with_bounds(c, &os, G->dt, (const int64_t *const *)bounds, nch);
    if (!R) return NULL;
    for (gwalk_t w = gwalk_start(R); gwalk_next(&w);) {
        int32_t ji = repeat_job(c, G, s, cum, k, w.off, w.len);
        if (ji < 0) return NULL;
        R->job[w.li] = ji;
    }
    return R;
}

/* ------------------------------------------------------------------ pad */

/* An element-wise program with no input: every element is v in dt. */
static jparam_t *const_param(tctx_t *c, dtype_t dt, scalar_t v)
{
    ew_prog_t *p = arena_alloc(c->t->arena, sizeof(ew_prog_t));
    memset(p, 0, sizeof(*p));
    p->n_inputs = 0;
    p->n_regs = 2;
    p->n_ins = 1;
    p->out = 1;
    p->reg_dt[0] = p->reg_dt[1] = (uint8_t)dt;
    p->is_const[0] = true;
    p->konst[0] = v;
    p->ins[0] = (ew_ins_t){.op = OP_ASTYPE, .dt = (uint8_t)dt, .dst = 1, .a = 0, .b = -1, .c = -1};
    jparam_t *pa = tile__param_new(c, OP_ASTYPE);
    pa->prog = p;
    return pa;
}

/* An empty grid of G's shape but w positions along d, chunked as G
 * across d and about the target chunk size along it (a padding block). */
static tgrid_t *block_grid(tctx_t *c, const tgrid_t *G, int d, int64_t w)
{
    int nd = G->shape.ndim;
    shape_t bs = G->shape;
    bs.d[d] = w;
    int64_t *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    for (int e = 0; e < nd; e++) {
        bounds[e] = G->bounds[e];
        nch[e] = G->nchunks[e];
    }
    bounds[d] = bounds_regular(c, w, axis_chunk_len(c, G, d, max_chunk(G, d)), &nch[d]);
    if (!bounds[d]) return NULL;
    return grid_with_bounds(c, &bs, G->dt, (const int64_t *const *)bounds, nch);
}

/* The block of width w padding G before (side 0) or after (1) along d. */
static tgrid_t *pad_block(tctx_t *c, const tgrid_t *G, const sh2_node_t *s, int d, int side,
                          int64_t w)
{
    int nd = G->shape.ndim;
    tgrid_t *B = block_grid(c, G, d, w);
    if (!B) return NULL;
    bool edge = s->pad_mode != PAD_CONSTANT; /* reflect and symmetric of one position too */
    jparam_t *pa = edge ? NULL : const_param(c, G->dt, side ? s->cafter[d] : s->cbefore[d]);
    for (gwalk_t it = gwalk_start(B); gwalk_next(&it);) {
        int32_t ji;
        if (edge) {
            ji = bcast_job(c, G, it.off, it.len, NULL, d, side ? G->shape.d[d] - 1 : 0);
        } else {
            ji = tile__job_new(c, JK_EW, G->dt, nd, it.len, 0);
            if (ji >= 0) c->t->jobs[ji].param = pa;
        }
        if (ji < 0) return NULL;
        B->job[it.li] = ji;
    }
    return B;
}

/* G's positions [lo, lo + k) along axis d in reverse order (a block). */
static tgrid_t *grid_sub_rev(tctx_t *c, const tgrid_t *G, int d, int64_t lo, int64_t k)
{
    int nd = G->shape.ndim;
    tgrid_t *B = block_grid(c, G, d, k);
    if (!B) return NULL;
    for (gwalk_t it = gwalk_start(B); gwalk_next(&it);) {
        int64_t start[MR_MAXDIM], step[MR_MAXDIM], dst[MR_MAXDIM];
        c_strides(nd, it.len, dst);
        for (int e = 0; e < nd; e++) {
            start[e] = e == d ? lo + k - 1 - it.off[e] : it.off[e];
            step[e] = e == d ? -1 : 1;
        }
        int32_t ji = gather_job(c, G, nd, it.len, start, step, it.len, dst);
        if (ji < 0) return NULL;
        B->job[it.li] = ji;
    }
    return B;
}

/* numpy 1.24's reflect, symmetric and wrap along axis d: rounds, each
 * filling at most what is already there on either side (so a width past
 * the axis's length reflects or wraps what the previous rounds put there,
 * numpy's result exactly, its quirks with wrap included). */
static tgrid_t *pad_mirror(tctx_t *c, const tgrid_t *G, int mode, int d, int64_t wb, int64_t wa)
{
    while (G && (wb > 0 || wa > 0)) {
        int64_t L = G->shape.d[d];
        /* reflect leaves the edge out: L - 1 positions to take from */
        int64_t avail = mode == PAD_REFLECT ? L - 1 : L;
        int64_t kb = wb < avail ? wb : avail, ka = wa < avail ? wa : avail;
        tgrid_t *in[3];
        int cnt = 0;
        shape_t out = G->shape;
        out.d[d] += kb + ka;
        if (kb > 0) {
            in[cnt] = mode == PAD_WRAP      ? grid_sub(c, G, d, L - kb, L)
                      : mode == PAD_REFLECT ? grid_sub_rev(c, G, d, 1, kb)
                                            : grid_sub_rev(c, G, d, 0, kb);
            if (!in[cnt++]) return NULL;
        }
        in[cnt++] = (tgrid_t *)G;
        if (ka > 0) {
            in[cnt] = mode == PAD_WRAP      ? grid_sub(c, G, d, 0, ka)
                      : mode == PAD_REFLECT ? grid_sub_rev(c, G, d, L - 1 - ka, ka)
                                            : grid_sub_rev(c, G, d, L - ka, ka);
            if (!in[cnt++]) return NULL;
        }
        G = grid_concat(c, in, cnt, d, &out);
        wb -= kb;
        wa -= ka;
    }
    return (tgrid_t *)G;
}

static tgrid_t *tile_pad(tctx_t *c, const graph_node_t *n, const tgrid_t *G)
{
    const sh2_node_t *s = n->sh2;
    for (int d = 0; G && d < G->shape.ndim; d++) {
        int64_t wb = s->before[d], wa = s->after[d];
        if (wb == 0 && wa == 0) continue;
        /* numpy pads a length-1 axis with its edge for reflect and
         * symmetric (wrap repeats it too); an empty input (inference
         * refused widening an empty axis) takes the blocks, empty too */
        if (s->pad_mode >= PAD_REFLECT && shape_size(&G->shape) > 0 &&
            !(s->pad_mode == PAD_REFLECT && G->shape.d[d] == 1)) {
            G = pad_mirror(c, G, s->pad_mode, d, wb, wa);
            continue;
        }
        tgrid_t *in[3];
        int cnt = 0;
        shape_t out = G->shape;
        out.d[d] += wb + wa;
        if (wb > 0 && !(in[cnt++] = pad_block(c, G, s, d, 0, wb))) return NULL;
        in[cnt++] = (tgrid_t *)G;
        if (wa > 0 && !(in[cnt++] = pad_block(c, G, s, d, 1, wa))) return NULL;
        G = grid_concat(c, in, cnt, d, &out);
    }
    return (tgrid_t *)G;
}

bool tile_shapes2_owns(op_t op)
{
    return op == OP_ROLL || op == OP_BROADCAST_TO || op == OP_TILE || op == OP_REPEAT ||
           op == OP_PAD;
}

tgrid_t *tile_shapes2(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    const tgrid_t *G = c->t->grid[n->in[0].node];
    switch (n->op) {
    case OP_ROLL:
        return tile_roll(c, n, G);
    case OP_BROADCAST_TO:
        return grid_broadcast(c, G, &n->oshape);
    case OP_TILE:
        return tile_tile(c, n, G);
    case OP_REPEAT:
        return tile_repeat(c, n, G);
    default:
        return tile_pad(c, n, G);
    }
}
