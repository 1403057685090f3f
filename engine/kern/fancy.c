/* fancy.c: the JK_FANCY job (fancy.h): advanced indexing over whole inputs.
 *
 * The index becomes a walk over the view numpy's index selects: every view
 * element has one source offset (slices and integers add fixed strides;
 * integer arrays, mask coordinates and compress positions add their value
 * times the indexed axis's stride). getitem copies the elements in view
 * order; setitem copies the source, then writes the value broadcast to the
 * view at those offsets in view order (the last of repeated positions
 * wins, as numpy's). Held results are written as a frame blob. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../df/frame.h"
#include "../fancy.h"
#include "../tile.h"

typedef struct {
    const void *p; /* NULL: the scalar ival */
    dtype_t dt;
    int nd;
    int64_t shape[MR_MAXDIM];
    int axis;
    int64_t ival;
    int64_t bst[MR_MAXDIM]; /* strides over the broadcast dims */
} adv_t;

static int xfail(const graph_node_t *n, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int xfail(const graph_node_t *n, char *err, size_t errlen, const char *fmt, ...)
{
    (void)n; /* the executors name the node */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int64_t rd_i(const void *p, dtype_t dt, int64_t k)
{
    switch (dt) {
    case DT_BOOL:
        return ((const uint8_t *)p)[k] != 0;
    case DT_INT32:
        return ((const int32_t *)p)[k];
    case DT_INT64:
        return ((const int64_t *)p)[k];
    case DT_FLOAT32:
        return (int64_t)((const float *)p)[k];
    default:
        return (int64_t)((const double *)p)[k];
    }
}

static bool truthy(const void *p, dtype_t dt, int64_t k)
{
    switch (dt) {
    case DT_BOOL:
        return ((const uint8_t *)p)[k] != 0;
    case DT_INT32:
        return ((const int32_t *)p)[k] != 0;
    case DT_INT64:
        return ((const int64_t *)p)[k] != 0;
    case DT_FLOAT32:
        return ((const float *)p)[k] != 0;
    default:
        return ((const double *)p)[k] != 0;
    }
}

static scalar_t rd_sc(const void *p, dtype_t dt, int64_t k)
{
    switch (dt) {
    case DT_BOOL:
        return sc_bool(((const uint8_t *)p)[k] != 0);
    case DT_INT32:
        return sc_int(((const int32_t *)p)[k]);
    case DT_INT64:
        return sc_int(((const int64_t *)p)[k]);
    case DT_FLOAT32:
        return sc_float(((const float *)p)[k]);
    default:
        return sc_float(((const double *)p)[k]);
    }
}

static void cstrides(int nd, const int64_t *s, int64_t *st)
{
    int64_t x = 1;
    for (int d = nd - 1; d >= 0; d--) {
        st[d] = x;
        x *= s[d] > 0 ? s[d] : 1;
    }
}

static void fmt_shape(int nd, const int64_t *d, char *buf, size_t len)
{
    shape_t s = {.ndim = nd};
    for (int k = 0; k < nd; k++)
        s.d[k] = d[k];
    shape_format(&s, buf, len);
}

/* An input as this job sees it: its box of the node's input. */
typedef struct {
    shape_t oshape;
    dtype_t odtype;
} vin_t;

typedef void (*emit_fn)(void *ctx, int64_t k, const int64_t *v, int64_t off);

typedef struct {
    const graph_t *g;
    const graph_node_t *n;
    const fancy_t *fx;
    const void *const *data; /* per node input (NULL for scalars) */
    const vin_t *vin;        /* per node input; odtype DT_NTYPES for scalars */
    int64_t S[MR_MAXDIM];
    int sn;
    int64_t V[MR_MAXDIM];
    int nv;
    int64_t total;
    /* owned */
    int n_adv;
    adv_t adv[2 * MR_MAXDIM];
    int64_t *bufs[2 * MR_MAXDIM];
    int n_bufs;
} walk_t;

static void walk_free(walk_t *w)
{
    for (int k = 0; k < w->n_bufs; k++)
        free(w->bufs[k]);
    w->n_bufs = 0;
}

static const vin_t *in_node(const walk_t *w, int k)
{
    return w->n->in[k].node >= 0 ? &w->vin[k] : NULL;
}

/* Prepares the walk: the advanced entries' arrays, the broadcast, the view
 * shape. 0, or -1 with a message. */
static int walk_prepare(walk_t *w, char *err, size_t errlen)
{
    const fancy_t *fx = w->fx;
    const graph_node_t *n = w->n;
    const vin_t *a = in_node(w, fx->src_in);
    if (fx->flat_src) {
        w->sn = 1;
        w->S[0] = shape_size(&a->oshape);
    } else {
        w->sn = a->oshape.ndim;
        memcpy(w->S, a->oshape.d, sizeof(int64_t) * (size_t)w->sn);
    }
    for (int k = 0; k < fx->n_ent; k++) {
        if (!fancy_is_adv(fx, k)) continue;
        const fx_ent_t *e = &fx->ent[k];
        if (e->kind == FX_INT) {
            adv_t *x = &w->adv[w->n_adv++];
            memset(x, 0, sizeof *x);
            x->axis = e->axis;
            x->ival = e->ix.i;
            continue;
        }
        const vin_t *m = in_node(w, e->in);
        const void *p = w->data[e->in];
        if (e->kind == FX_ARR) {
            adv_t *x = &w->adv[w->n_adv++];
            memset(x, 0, sizeof *x);
            x->p = p;
            x->dt = m->odtype;
            x->nd = m->oshape.ndim;
            memcpy(x->shape, m->oshape.d, sizeof(int64_t) * (size_t)x->nd);
            x->axis = e->axis;
            continue;
        }
        /* a mask's coordinates, or a condition's positions */
        int64_t len = shape_size(&m->oshape), cnt = 0;
        for (int64_t i = 0; i < len; i++)
            cnt += truthy(p, m->odtype, i);
        int nax = e->kind == FX_MASK ? e->nax : 1;
        int64_t *buf = malloc(sizeof(int64_t) * (size_t)(cnt * nax + 1));
        if (!buf) return xfail(n, err, errlen, "out of memory");
        w->bufs[w->n_bufs++] = buf;
        int64_t q = 0, mst[MR_MAXDIM];
        cstrides(m->oshape.ndim, m->oshape.d, mst);
        for (int64_t i = 0; i < len; i++) {
            if (!truthy(p, m->odtype, i)) continue;
            if (e->kind == FX_COND) {
                if (i >= w->S[e->axis])
                    return xfail(n, err, errlen,
                                 "index %lld is out of bounds for axis %d with size %lld",
                                 (long long)i, e->axis, (long long)w->S[e->axis]);
                buf[q++] = i;
                continue;
            }
            int64_t r = i;
            for (int d = 0; d < nax; d++) {
                buf[(int64_t)d * cnt + q] = r / mst[d];
                r %= mst[d];
            }
            q++;
        }
        for (int d = 0; d < nax; d++) {
            adv_t *x = &w->adv[w->n_adv++];
            memset(x, 0, sizeof *x);
            x->p = buf + (int64_t)d * cnt;
            x->dt = DT_INT64;
            x->nd = 1;
            x->shape[0] = cnt;
            x->axis = e->axis + d;
        }
    }
    /* the broadcast of the advanced entries */
    int nb = 0;
    int64_t b[MR_MAXDIM];
    bool bad = false;
    for (int k = 0; k < w->n_adv; k++) {
        adv_t *x = &w->adv[k];
        if (x->nd > nb) {
            memmove(b + (x->nd - nb), b, sizeof(int64_t) * (size_t)nb);
            for (int q = 0; q < x->nd - nb; q++)
                b[q] = 1;
            nb = x->nd;
        }
        for (int q = 0; q < x->nd; q++) {
            int64_t *t = &b[nb - x->nd + q], v = x->shape[q];
            if (v == *t || v == 1) continue;
            if (*t == 1)
                *t = v;
            else
                bad = true;
        }
    }
    if (bad) {
        char msg[1024];
        size_t ml = 0;
        for (int k = 0; k < w->n_adv && ml < sizeof msg; k++) {
            char sb[256];
            fmt_shape(w->adv[k].nd, w->adv[k].shape, sb, sizeof sb);
            ml += (size_t)snprintf(msg + ml, sizeof msg - ml, "%s ", sb);
        }
        return xfail(n, err, errlen,
                     "shape mismatch: indexing arrays could not be broadcast together with "
                     "shapes %s",
                     msg);
    }
    for (int k = 0; k < w->n_adv; k++) {
        adv_t *x = &w->adv[k];
        int64_t st[MR_MAXDIM];
        cstrides(x->nd, x->shape, st);
        for (int q = 0; q < nb; q++) {
            int r = q - (nb - x->nd);
            x->bst[q] = r < 0 || x->shape[r] == 1 ? 0 : st[r];
        }
    }
    int bpos;
    if (fancy_view_shape(fx, w->S, nb, b, w->V, &w->nv, &bpos))
        return xfail(n, err, errlen, "too many dimensions");
    w->total = 1;
    for (int d = 0; d < w->nv; d++)
        w->total *= w->V[d];
    /* remember where b's dims are: bst is indexed from bpos */
    for (int k = 0; k < w->n_adv; k++)
        w->adv[k].nd = nb; /* reused below as the broadcast rank */
    (void)bpos;            /* walk_run places the broadcast dims the same way */
    return 0;
}

/* Calls emit for every view element in C order with its source offset. */
static int walk_run(walk_t *w, emit_fn emit, void *ctx, char *err, size_t errlen)
{
    const fancy_t *fx = w->fx;
    int64_t sst[MR_MAXDIM];
    cstrides(w->sn, w->S, sst);
    int nb = w->n_adv ? w->adv[0].nd : 0;
    /* the view dims that are not broadcast dims, in order */
    int64_t base = 0, vstep[MR_MAXDIM] = {0};
    int nonb = 0, first_adv = -1;
    bool adjacent = true;
    int last_adv = -1;
    for (int k = 0; k < fx->n_ent; k++)
        if (fancy_is_adv(fx, k)) {
            if (first_adv < 0) first_adv = k;
            last_adv = k;
        }
    for (int k = first_adv; first_adv >= 0 && k <= last_adv; k++)
        if (!fancy_is_adv(fx, k) && fx->ent[k].kind != FX_NEW) adjacent = false;
    int bpos = first_adv < 0 ? -1 : 0;
    int64_t nst[MR_MAXDIM];
    for (int k = 0; k < fx->n_ent; k++) {
        const fx_ent_t *e = &fx->ent[k];
        if (fancy_is_adv(fx, k)) {
            if (adjacent && k == first_adv) bpos = nonb;
            continue;
        }
        if (e->kind == FX_INT) {
            base += e->ix.i * sst[e->axis];
        } else if (e->kind == FX_NEW) {
            nst[nonb++] = 0;
        } else {
            base += e->ix.start * sst[e->axis];
            nst[nonb++] = e->ix.step * sst[e->axis];
        }
    }
    int bdim0 = bpos < 0 ? w->nv : bpos;
    for (int d = 0, q = 0; d < w->nv; d++) {
        if (d >= bdim0 && d < bdim0 + nb) continue;
        vstep[d] = nst[q++];
    }
    if (w->total == 0) return 0;
    int64_t v[MR_MAXDIM] = {0};
    for (int64_t k = 0; k < w->total; k++) {
        int64_t off = base;
        for (int d = 0; d < w->nv; d++)
            off += v[d] * vstep[d];
        for (int a = 0; a < w->n_adv; a++) {
            const adv_t *x = &w->adv[a];
            int64_t idx = x->ival;
            if (x->p) {
                int64_t pos = 0;
                for (int q = 0; q < nb; q++)
                    pos += v[bdim0 + q] * x->bst[q];
                idx = rd_i(x->p, x->dt, pos);
            }
            int64_t sz = w->S[x->axis], i = idx < 0 ? idx + sz : idx;
            if (i < 0 || i >= sz)
                return xfail(w->n, err, errlen,
                             "index %lld is out of bounds for axis %d with size %lld",
                             (long long)idx, x->axis, (long long)sz);
            off += i * sst[x->axis];
        }
        emit(ctx, k, v, off);
        for (int d = w->nv - 1; d >= 0 && ++v[d] == w->V[d]; d--)
            v[d] = 0;
    }
    return 0;
}

typedef struct {
    const char *src;
    char *dst;
    size_t es;
} copy_ctx_t;

static void emit_copy(void *ctx, int64_t k, const int64_t *v, int64_t off)
{
    (void)v;
    copy_ctx_t *c = ctx;
    memcpy(c->dst + (size_t)k * c->es, c->src + (size_t)off * c->es, c->es);
}

/* The source as row chunks (fancy_t.src_nch): element off (C order over
 * the whole source) is in the chunk whose rows hold off / row. */
typedef struct {
    const void *const *chunks;
    const int64_t *rows; /* nch + 1 row offsets */
    int nch;
    int64_t row; /* elements of one row */
    char *dst;
    size_t es;
    int last; /* the chunk of the previous element: indices often run on */
} chunked_ctx_t;

static void emit_copy_chunked(void *ctx, int64_t k, const int64_t *v, int64_t off)
{
    (void)v;
    chunked_ctx_t *c = ctx;
    int64_t r = c->row > 0 ? off / c->row : 0;
    int ci = c->last;
    if (r < c->rows[ci] || r >= c->rows[ci + 1]) {
        int lo = 0, hi = c->nch - 1; /* the last chunk whose first row is <= r */
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (c->rows[mid] <= r)
                lo = mid;
            else
                hi = mid - 1;
        }
        ci = c->last = lo;
    }
    const char *p = c->chunks[ci];
    memcpy(c->dst + (size_t)k * c->es, p + (size_t)(off - c->rows[ci] * c->row) * c->es, c->es);
}

typedef struct {
    char *dst;
    size_t es;
    dtype_t dt;
    const void *val; /* NULL: sval */
    dtype_t vdt;
    int nv;
    int64_t vst[MR_MAXDIM];
    char sval[16];
} set_ctx_t;

static void emit_set(void *ctx, int64_t k, const int64_t *v, int64_t off)
{
    (void)k;
    set_ctx_t *c = ctx;
    char *dst = c->dst + (size_t)off * c->es;
    if (!c->val) {
        memcpy(dst, c->sval, c->es);
        return;
    }
    int64_t p = 0;
    for (int d = 0; d < c->nv; d++)
        p += v[d] * c->vst[d];
    if (c->vdt == c->dt)
        memcpy(dst, (const char *)c->val + (size_t)p * c->es, c->es);
    else
        sc_store(rd_sc(c->val, c->vdt, p), c->dt, dst);
}

/* The held result (rows x cols of dt, row-major in buf) as a frame blob. */
static int held_blob(const graph_node_t *n, const void *buf, dtype_t dt, int64_t rows, int cols,
                     bool series, void **blob, size_t *blob_len, char *err, size_t errlen)
{
    frame_t f;
    ftype_t ft = dt == DT_FLOAT64 ? FT_FLOAT64 : dt == DT_INT64 ? FT_INT64 : FT_BOOL;
    size_t es = dt_size(dt);
    if (frame_alloc(&f, series, rows, cols, 1)) return xfail(n, err, errlen, "out of memory");
    int rc = -1;
    if (fcol_alloc(&f.idx[0], FT_INT64, rows, 0, false)) goto oom;
    for (int64_t i = 0; i < rows; i++)
        ((int64_t *)f.idx[0].data)[i] = i;
    f.range_index = true;
    f.vtype = (uint8_t)(ft + 1); /* (rows, 0): no column says the dtype */
    for (int k = 0; k < cols; k++) {
        if (fcol_alloc(&f.cols[k], ft, rows, 0, false)) goto oom;
        for (int64_t i = 0; i < rows; i++)
            memcpy((char *)f.cols[k].data + (size_t)i * es,
                   (const char *)buf + ((size_t)i * (size_t)cols + (size_t)k) * es, es);
    }
    *blob_len = frame_blob_size(&f);
    *blob = malloc(*blob_len ? *blob_len : 1);
    if (!*blob) goto oom;
    frame_serialize(&f, *blob);
    rc = 0;
    goto done;
oom:
    xfail(n, err, errlen, "out of memory");
done:
    frame_free(&f);
    return rc;
}

/* take(a, i) and a[i] with a 1-D (or flattened) source and one int64
 * index array: a tight gather, the sources a few elements ahead prefetched
 * (random indices miss the cache on nearly every element). The source is
 * one block, or row chunks (chunks[c] holds rows[c] .. rows[c + 1]).
 * Returns 1 when the job is not of this shape, else 0 or -1. */
#define GATHER_AHEAD 16

static inline const char *gather_at(const char *src, const void *const *chunks, const int64_t *rows,
                                    int nch, int64_t per, int64_t rowlen, int64_t i, size_t es)
{
    if (!chunks) return src + (size_t)i * es;
    int64_t r = i / rowlen; /* a flattened source: element i is in row r */
    int c = per > 0 ? (int)(r / per) : 0;
    if (c >= nch) c = nch - 1;
    while (c > 0 && rows[c] > r) /* uneven chunks: step back, then on */
        c--;
    while (c < nch - 1 && rows[c + 1] <= r)
        c++;
    return (const char *)chunks[c] + (size_t)(i - rows[c] * rowlen) * es;
}

static int fast_gather(const graph_node_t *n, const fancy_t *fx, const vin_t *a, const char *src,
                       const void *const *chunks, const vin_t *ix, const int64_t *idx, void *out,
                       int64_t count, char *err, size_t errlen)
{
    size_t es = dt_size(a->odtype);
    int64_t sz = shape_size(&a->oshape);
    int nch = chunks ? fx->src_nch : 0;
    const int64_t *rows = chunks ? fx->src_rows : NULL;
    int64_t per = chunks ? rows[1] - rows[0] : 0, rowlen = 1;
    for (int d = 1; d < a->oshape.ndim; d++)
        rowlen *= a->oshape.d[d];
    if (rowlen <= 0) rowlen = 1; /* no elements: every index is out of bounds */
    (void)ix;
    for (int64_t k = 0; k < count; k++) {
        if (k + GATHER_AHEAD < count) {
            int64_t f = idx[k + GATHER_AHEAD];
            f += f < 0 ? sz : 0;
            if (f >= 0 && f < sz)
                __builtin_prefetch(gather_at(src, chunks, rows, nch, per, rowlen, f, es));
        }
        int64_t i = idx[k], r = i < 0 ? i + sz : i;
        if (r < 0 || r >= sz)
            return xfail(n, err, errlen, "index %lld is out of bounds for axis 0 with size %lld",
                         (long long)i, (long long)sz);
        const char *p = gather_at(src, chunks, rows, nch, per, rowlen, r, es);
        char *d = (char *)out + (size_t)k * es;
        switch (es) {
        case 8:
            memcpy(d, p, 8);
            break;
        case 4:
            memcpy(d, p, 4);
            break;
        case 1:
            *d = *p;
            break;
        default:
            memcpy(d, p, es);
        }
    }
    return 0;
}

int fancy_run(const tile_t *t, int32_t ji, const void *const *job_in, void *out, void **blob,
              size_t *blob_len, char *err, size_t errlen)
{
    const job_t *j = &t->jobs[ji];
    const graph_t *g = t->g;
    const graph_node_t *n = &g->nodes[j->node];
    /* the job's own index (a part of the node's) when the tiler split it */
    const fancy_t *fx = j->param && j->param->fx ? j->param->fx : n->fancy;
    /* node input k's data and box: the job's inputs are the tensor inputs in order */
    const void **dp = malloc(sizeof(void *) * (size_t)(n->n_in + 1));
    vin_t *vin = malloc(sizeof(vin_t) * (size_t)(n->n_in + 1));
    if (!dp || !vin) {
        free(dp);
        free(vin);
        return xfail(n, err, errlen, "out of memory");
    }
    const void *const *chunks = NULL; /* the source read through its row chunks */
    for (int k = 0, q = 0; k < n->n_in; k++) {
        dp[k] = NULL;
        vin[k].odtype = DT_NTYPES;
        if (n->in[k].node < 0) continue;
        const jin_t *in = &j->in[q];
        vin[k].odtype = in->dt;
        vin[k].oshape.ndim = in->ndim;
        memcpy(vin[k].oshape.d, in->shape, sizeof(int64_t) * (size_t)in->ndim);
        if (k == fx->src_in && fx->src_nch > 0) {
            chunks = job_in + q;
            vin[k].oshape.d[0] = fx->src_rows[fx->src_nch];
            q += fx->src_nch;
            continue;
        }
        dp[k] = job_in[q++];
    }
    walk_t w = {.g = g, .n = n, .fx = fx, .data = dp, .vin = vin};
    int rc = -1;
    const vin_t *a = in_node(&w, fx->src_in);
    dtype_t dt = a->odtype;
    size_t es = dt_size(dt);
    const char *src = dp[fx->src_in];

    if (fx->mode == FXM_ARGWHERE || fx->mode == FXM_FLATNONZERO) {
        int64_t len = shape_size(&a->oshape), cnt = 0;
        for (int64_t i = 0; i < len; i++)
            cnt += truthy(src, dt, i);
        int nd = a->oshape.ndim, cols = fx->mode == FXM_ARGWHERE ? nd : 1;
        int64_t *buf = malloc(sizeof(int64_t) * (size_t)(cnt * cols + 1)), q = 0, st[MR_MAXDIM];
        if (!buf) {
            xfail(n, err, errlen, "out of memory");
            goto done;
        }
        cstrides(nd, a->oshape.d, st);
        for (int64_t i = 0; i < len; i++) {
            if (!truthy(src, dt, i)) continue;
            if (cols == 1 && fx->mode == FXM_FLATNONZERO) {
                buf[q++] = i;
                continue;
            }
            int64_t r = i;
            for (int d = 0; d < nd; d++) {
                buf[q++] = r / st[d];
                r %= st[d];
            }
        }
        rc = held_blob(n, buf, DT_INT64, cnt, cols, fx->mode == FXM_FLATNONZERO, blob, blob_len,
                       err, errlen);
        free(buf);
        goto done;
    }
    if (fx->mode == FXM_MASKFILL) {
        const vin_t *m = in_node(&w, fx->ent[0].in);
        const void *mk = dp[fx->ent[0].in];
        int64_t len = shape_size(&a->oshape);
        char sval[16];
        if (shape_size(&m->oshape) != len) {
            xfail(n, err, errlen, "internal: mask box differs from the chunk");
            goto done;
        }
        sc_store(n->in[fx->value_in].sc, dt, sval);
        memcpy(out, src, (size_t)len * es);
        for (int64_t i = 0; i < len; i++)
            if (truthy(mk, m->odtype, i)) memcpy((char *)out + (size_t)i * es, sval, es);
        rc = 0;
        goto done;
    }
    if (fx->mode == FXM_INDEX && !fx->set && !fx->held && fx->n_ent == 1 &&
        fx->ent[0].kind == FX_ARR && (fx->flat_src || a->oshape.ndim == 1)) {
        const vin_t *ix = in_node(&w, fx->ent[0].in);
        int64_t count = shape_size(&ix->oshape), want = 1;
        for (int d = 0; d < j->ndim; d++)
            want *= j->shape[d];
        if (ix->odtype == DT_INT64 && count == want) {
            rc = fast_gather(n, fx, a, src, chunks, ix, dp[fx->ent[0].in], out, count, err, errlen);
            goto done;
        }
    }
    if (walk_prepare(&w, err, errlen)) goto done;
    if (fx->set) {
        memcpy(out, src, (size_t)shape_size(&a->oshape) * es);
        set_ctx_t sc = {.dst = out, .es = es, .dt = dt, .nv = w.nv};
        const vin_t *v = in_node(&w, fx->value_in);
        if (!v) {
            sc_store(n->in[fx->value_in].sc, dt, sc.sval);
        } else {
            sc.val = dp[fx->value_in];
            sc.vdt = v->odtype;
            int64_t vst[MR_MAXDIM];
            cstrides(v->oshape.ndim, v->oshape.d, vst);
            bool ok = true;
            for (int d = 0; d < w.nv; d++) {
                int r = d - (w.nv - v->oshape.ndim);
                sc.vst[d] = r < 0 || v->oshape.d[r] == 1 ? 0 : vst[r];
                if (r >= 0) ok &= v->oshape.d[r] == 1 || v->oshape.d[r] == w.V[d];
            }
            for (int r = 0; r < v->oshape.ndim - w.nv; r++)
                ok &= v->oshape.d[r] == 1;
            if (!ok) {
                char s1[256], s2[256];
                fmt_shape(v->oshape.ndim, v->oshape.d, s1, sizeof s1);
                fmt_shape(w.nv, w.V, s2, sizeof s2);
                xfail(n, err, errlen,
                      "shape mismatch: value array of shape %s could not be broadcast to "
                      "indexing result of shape %s",
                      s1, s2);
                goto done;
            }
        }
        rc = walk_run(&w, emit_set, &sc, err, errlen);
        goto done;
    }
    if (!fx->held) {
        int64_t want = 1;
        for (int d = 0; d < j->ndim; d++)
            want *= j->shape[d];
        if (w.total != want) {
            xfail(n, err, errlen, "internal: view of %lld elements, %lld expected",
                  (long long)w.total, (long long)want);
            goto done;
        }
        if (chunks) {
            int64_t row = 1;
            for (int d = 1; d < a->oshape.ndim; d++)
                row *= a->oshape.d[d];
            chunked_ctx_t cc = {.chunks = chunks,
                                .rows = fx->src_rows,
                                .nch = fx->src_nch,
                                .row = row,
                                .dst = out,
                                .es = es};
            rc = walk_run(&w, emit_copy_chunked, &cc, err, errlen);
            goto done;
        }
        copy_ctx_t cc = {src, out, es};
        rc = walk_run(&w, emit_copy, &cc, err, errlen);
        goto done;
    }
    /* held: rows = the view's first dim, cols the rest (1-D or 2-D) */
    {
        void *buf = malloc(w.total > 0 ? (size_t)w.total * es : 1);
        if (!buf) {
            xfail(n, err, errlen, "out of memory");
            goto done;
        }
        copy_ctx_t cc = {src, buf, es};
        rc = walk_run(&w, emit_copy, &cc, err, errlen);
        if (rc == 0)
            rc = held_blob(n, buf, dt, w.V[0], w.nv == 2 ? (int)w.V[1] : 1, w.nv == 1, blob,
                           blob_len, err, errlen);
        free(buf);
    }
done:
    walk_free(&w);
    free(dp);
    free(vin);
    return rc;
}
