#include "assemble.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpfmt.h"
#include "npy.h"

/* Calls emit(ctx, slab, rows, row_elems) for each chunk-row along axis 0,
 * in order; a 0-d tensor is one slab of one element. */
typedef int (*slab_fn)(void *ctx, const void *slab, int64_t rows, int64_t row);

static int for_each_slab(const tgrid_t *G, asm_get_fn get, void *gctx, slab_fn emit, void *ectx,
                         char *err, size_t errlen)
{
    int nd = G->shape.ndim;
    size_t es = dt_size(G->dt);
    if (nd == 0) {
        const void *d = get(gctx, 0);
        if (!d) {
            snprintf(err, errlen, "chunk 0 is missing");
            return -1;
        }
        return emit(ectx, d, 1, 1);
    }
    int64_t total = 1;
    for (int d = 0; d < nd; d++)
        total *= G->nchunks[d];
    int64_t per_slab = total / G->nchunks[0];
    int64_t row = 1;
    for (int d = 1; d < nd; d++)
        row *= G->shape.d[d];
    if (shape_size(&G->shape) == 0) return 0;
    int64_t maxrows = 0;
    for (int64_t k = 0; k < G->nchunks[0]; k++)
        if (G->bounds[0][k + 1] - G->bounds[0][k] > maxrows)
            maxrows = G->bounds[0][k + 1] - G->bounds[0][k];
    char *slab = per_slab > 1 ? malloc((size_t)(maxrows * row) * es + 1) : NULL;
    if (per_slab > 1 && !slab) {
        snprintf(err, errlen, "out of memory for a slab of %lld bytes",
                 (long long)(maxrows * row * (int64_t)es));
        return -1;
    }
    int rc = 0;
    for (int64_t k0 = 0; k0 < G->nchunks[0] && rc == 0; k0++) {
        int64_t rows = G->bounds[0][k0 + 1] - G->bounds[0][k0];
        if (per_slab == 1) { /* one chunk spans whole rows: no copy */
            const void *d = get(gctx, k0);
            if (!d) {
                snprintf(err, errlen, "chunk %lld is missing", (long long)k0);
                rc = -1;
                break;
            }
            rc = emit(ectx, d, rows, row);
            continue;
        }
        int64_t sst[MR_MAXDIM], s = 1;
        for (int d = nd - 1; d >= 0; d--) {
            sst[d] = s;
            s *= d == 0 ? rows : G->shape.d[d];
        }
        for (int64_t q = 0; q < per_slab; q++) {
            int64_t li = k0 * per_slab + q, co[MR_MAXDIM], rem = li;
            for (int d = nd - 1; d >= 0; d--) {
                co[d] = rem % G->nchunks[d];
                rem /= G->nchunks[d];
            }
            int64_t cnt[MR_MAXDIM], cst[MR_MAXDIM], off = 0, cs = 1;
            for (int d = nd - 1; d >= 0; d--) {
                cnt[d] = G->bounds[d][co[d] + 1] - G->bounds[d][co[d]];
                cst[d] = cs;
                cs *= cnt[d];
                if (d > 0) off += G->bounds[d][co[d]] * sst[d];
            }
            if (cs == 0) continue;
            const void *src = get(gctx, li);
            if (!src) {
                snprintf(err, errlen, "chunk %lld is missing", (long long)li);
                rc = -1;
                break;
            }
            piece_t p = {.src = 0,
                         .ndim = nd,
                         .count = cnt,
                         .src_stride = cst,
                         .dst_stride = sst,
                         .src_off = 0,
                         .dst_off = off};
            jin_t in = {.job = -1, .n_pieces = 1, .pieces = &p, .ndim = nd, .dt = G->dt};
            tile_gather(&in, &src, slab);
        }
        if (rc == 0) rc = emit(ectx, slab, rows, row);
    }
    free(slab);
    return rc;
}

typedef struct {
    asm_sink_fn sink;
    void *sctx;
    size_t es;
    dtype_t dt;
    /* json */
    const shape_t *shape;
    int64_t emitted; /* elements written so far */
    char *buf;
    size_t used, cap;
} out_t;

static int raw_emit(void *ctx, const void *slab, int64_t rows, int64_t row)
{
    out_t *o = ctx;
    return o->sink(o->sctx, slab, (size_t)(rows * row) * o->es);
}

int asm_stream_raw(const tgrid_t *G, asm_get_fn get, void *gctx, asm_sink_fn sink, void *sctx,
                   char *err, size_t errlen)
{
    out_t o = {.sink = sink, .sctx = sctx, .es = dt_size(G->dt)};
    int rc = for_each_slab(G, get, gctx, raw_emit, &o, err, errlen);
    if (rc && !err[0]) snprintf(err, errlen, "the receiver stopped reading");
    return rc;
}

int asm_stream_npy(const tgrid_t *G, asm_get_fn get, void *gctx, asm_sink_fn sink, void *sctx,
                   char *err, size_t errlen)
{
    char hdr[NPY_HEADER_MAX];
    size_t hl;
    if (npy_header(G->dt, &G->shape, hdr, sizeof hdr, &hl)) {
        snprintf(err, errlen, "cannot make a .npy header");
        return -1;
    }
    err[0] = 0;
    if (sink(sctx, hdr, hl)) {
        snprintf(err, errlen, "the receiver stopped reading");
        return -1;
    }
    return asm_stream_raw(G, get, gctx, sink, sctx, err, errlen);
}

int64_t asm_npy_size(const tgrid_t *G)
{
    char hdr[NPY_HEADER_MAX];
    size_t hl;
    if (npy_header(G->dt, &G->shape, hdr, sizeof hdr, &hl)) return -1;
    return (int64_t)hl + shape_size(&G->shape) * (int64_t)dt_size(G->dt);
}

/* ---- JSON ---- */

/* JSON text goes out in pieces of this size: big enough to amortise the
 * sink's cost, small enough to stay in cache. */
#define JSON_FLUSH (64 << 10)

static int jflush(out_t *o)
{
    if (o->used == 0) return 0;
    int rc = o->sink(o->sctx, o->buf, o->used);
    o->used = 0;
    return rc;
}

static int jput(out_t *o, const char *s, size_t n)
{
    if (o->used + n > o->cap && jflush(o)) return -1;
    memcpy(o->buf + o->used, s, n);
    o->used += n;
    return 0;
}

/* Shortest decimal form that reads back to the same double (or float). */
static int fmt_float(char *b, size_t len, double v, bool single)
{
    if (!single) return fp_json(b, len, v);
    for (int prec = 6; prec <= 17; prec++) {
        int n = snprintf(b, len, "%.*g", prec, v);
        if (single ? strtof(b, NULL) == (float)v : strtod(b, NULL) == v) {
            /* JSON numbers need no leading '+'; keep "1e+300" as is (valid JSON) */
            return n;
        }
    }
    return snprintf(b, len, "%.17g", v);
}

static int json_value(out_t *o, const char *p)
{
    char b[40];
    int n;
    switch (o->dt) {
    case DT_BOOL:
        return *p ? jput(o, "true", 4) : jput(o, "false", 5);
    case DT_UINT64: {
        uint64_t v;
        memcpy(&v, p, 8);
        n = snprintf(b, sizeof b, "%llu", (unsigned long long)v);
        break;
    }
    case DT_INT8:
    case DT_INT16:
    case DT_INT32:
    case DT_INT64:
    case DT_UINT8:
    case DT_UINT16:
    case DT_UINT32:
        n = snprintf(b, sizeof b, "%lld", (long long)dt_read_i64(o->dt, p, 0));
        break;
    default: {
        double v;
        if (o->dt == DT_FLOAT32) {
            float f;
            memcpy(&f, p, 4);
            v = f;
        } else {
            memcpy(&v, p, 8);
        }
        if (isnan(v)) return jput(o, "\"nan\"", 5);
        if (isinf(v)) return v > 0 ? jput(o, "\"inf\"", 5) : jput(o, "\"-inf\"", 6);
        n = fmt_float(b, sizeof b, v, o->dt == DT_FLOAT32);
        break;
    }
    }
    return jput(o, b, (size_t)n);
}

/* Writes the elements of a slab, opening and closing brackets at the index
 * boundaries of the whole tensor. */
static int json_emit(void *ctx, const void *slab, int64_t rows, int64_t row)
{
    out_t *o = ctx;
    const shape_t *s = o->shape;
    int nd = s->ndim;
    int64_t n = rows * row;
    const char *p = slab;
    for (int64_t i = 0; i < n; i++, o->emitted++) {
        int64_t e = o->emitted;
        /* opening brackets: axes whose index is 0 from the innermost up */
        int open = 0;
        int64_t r = e;
        for (int d = nd - 1; d >= 0; d--) {
            if (r % s->d[d] != 0) break;
            open++;
            r /= s->d[d];
        }
        if (e > 0 && open < nd && jput(o, ",", 1)) return -1;
        for (int k = 0; k < open; k++)
            if (jput(o, "[", 1)) return -1;
        if (json_value(o, p + i * (int64_t)o->es)) return -1;
        int close = 0;
        r = e + 1;
        for (int d = nd - 1; d >= 0; d--) {
            if (r % s->d[d] != 0) break;
            close++;
            r /= s->d[d];
        }
        for (int k = 0; k < close; k++)
            if (jput(o, "]", 1)) return -1;
    }
    return 0;
}

int asm_stream_json(const tgrid_t *G, asm_get_fn get, void *gctx, asm_sink_fn sink, void *sctx,
                    char *err, size_t errlen)
{
    out_t o = {.sink = sink,
               .sctx = sctx,
               .es = dt_size(G->dt),
               .dt = G->dt,
               .shape = &G->shape,
               .cap = JSON_FLUSH};
    o.buf = malloc(o.cap);
    if (!o.buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    err[0] = 0;
    char head[MR_MAXDIM * 24 + 64];
    size_t h = (size_t)snprintf(head, sizeof head, "{\"shape\": [");
    for (int d = 0; d < G->shape.ndim; d++)
        h += (size_t)snprintf(head + h, sizeof head - h, "%s%lld", d ? ", " : "",
                              (long long)G->shape.d[d]);
    h += (size_t)snprintf(head + h, sizeof head - h,
                          "], \"dtype\": \"%s\", \"data\": ", dt_name(G->dt));
    int rc = jput(&o, head, h);
    bool empty = shape_size(&G->shape) == 0;
    if (rc == 0 && empty) {
        /* numpy's tolist of an empty array: brackets down to the first zero axis */
        int depth = 0;
        while (depth < G->shape.ndim && G->shape.d[depth] != 0)
            depth++;
        /* [[], []] for shape (2, 0): lists of lists down to the empty axis */
        int64_t outer = 1;
        for (int d = 0; d < depth; d++)
            outer *= G->shape.d[d];
        if (depth == 0) {
            rc = jput(&o, "[]", 2);
        } else {
            /* nested brackets for the non-empty prefix, [] at the empty axis */
            for (int d = 0; d < depth && rc == 0; d++)
                rc = jput(&o, "[", 1);
            for (int64_t e = 0; e < outer && rc == 0; e++) {
                if (e > 0) {
                    int close = 0;
                    int64_t r = e;
                    for (int d = depth - 1; d >= 0 && r % G->shape.d[d] == 0; d--) {
                        close++;
                        r /= G->shape.d[d];
                    }
                    for (int k = 0; k < close && rc == 0; k++)
                        rc = jput(&o, "]", 1);
                    rc = rc ? rc : jput(&o, ",", 1);
                    for (int k = 0; k < close && rc == 0; k++)
                        rc = jput(&o, "[", 1);
                }
                rc = rc ? rc : jput(&o, "[]", 2);
            }
            for (int d = 0; d < depth && rc == 0; d++)
                rc = jput(&o, "]", 1);
        }
    } else if (rc == 0) {
        rc = for_each_slab(G, get, gctx, json_emit, &o, err, errlen);
    }
    if (rc == 0) rc = jput(&o, "}", 1);
    if (rc == 0) rc = jflush(&o);
    free(o.buf);
    if (rc && !err[0]) snprintf(err, errlen, "the receiver stopped reading");
    return rc;
}
