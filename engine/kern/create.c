/* create.c: creation ops, one chunk at a time. Values depend only on the
 * element's global position and reproduce numpy 1.24's arithmetic: arange
 * fills start + i*delta with delta = (start + step) - start in the output
 * dtype (numpy's dtype fill functions), linspace follows function_base.py. */
#include <math.h>
#include <string.h>

#include "kern_internal.h"

void kern_for_each_segment(const shape_t *cs, const shape_t *gs, const int64_t *off, kern_seg_fn fn,
                           void *ctx)
{
    int nd = cs->ndim;
    if (nd == 0) {
        fn(ctx, 0, 0, 1);
        return;
    }
    if (shape_size(cs) == 0) return;
    /* k: the outermost axis of the segment; every axis after it is whole. */
    int k = nd - 1;
    while (k > 0 && cs->d[k] == gs->d[k])
        k--;
    int64_t seg = 1, gstr[MR_MAXDIM], g = 1;
    for (int d = nd - 1; d >= 0; d--) {
        gstr[d] = g;
        g *= gs->d[d];
        if (d >= k) seg *= cs->d[d];
    }
    int64_t idx[MR_MAXDIM] = {0};
    int64_t gflat = 0;
    for (int d = 0; d < nd; d++)
        gflat += off[d] * gstr[d];
    int64_t outer = 1;
    for (int d = 0; d < k; d++)
        outer *= cs->d[d];
    for (int64_t r = 0; r < outer; r++) {
        fn(ctx, gflat, r * seg, seg);
        for (int d = k - 1; d >= 0; d--) {
            idx[d]++;
            gflat += gstr[d];
            if (idx[d] < cs->d[d]) break;
            gflat -= gstr[d] * cs->d[d];
            idx[d] = 0;
        }
    }
}

static void fill_elem(void *data, size_t es, int64_t n, const void *val)
{
    char *d = data;
    if (n == 0) return;
    memcpy(d, val, es);
    /* doubling copies: log2(n) memcpy calls */
    int64_t have = 1;
    while (have < n) {
        int64_t c = have < n - have ? have : n - have;
        memcpy(d + (size_t)have * es, d, (size_t)c * es);
        have += c;
    }
}

/* arange: numpy stores start and start + step (Python arithmetic: exact for
 * two integers, float64 otherwise) into the output dtype, then fills
 * buffer[i] = start + i * delta with delta = buffer[1] - buffer[0] computed
 * in the output dtype. */
static int64_t sc_int_value(scalar_t s)
{
    return s.kind == SC_BOOL ? (int64_t)s.b : s.i;
}

static void create_arange(const kern_gen_t *n, int64_t g0, arr_t *out)
{
    int64_t len = shape_size(&out->shape);
    scalar_t next;
    if (n->start.kind != SC_FLOAT && n->step.kind != SC_FLOAT)
        next =
            sc_int((int64_t)((uint64_t)sc_int_value(n->start) + (uint64_t)sc_int_value(n->step)));
    else
        next = sc_float(sc_as_double(n->start) + sc_as_double(n->step));
    if (dt_is_small(out->dt)) { /* the narrow types wrap as uint64 arithmetic does */
        uint64_t v0 = 0, v1 = 0;
        sc_store(n->start, out->dt, &v0);
        sc_store(next, out->dt, &v1);
        v0 = (uint64_t)dt_read_i64(out->dt, &v0, 0);
        v1 = (uint64_t)dt_read_i64(out->dt, &v1, 0);
        uint64_t delta = v1 - v0;
        for (int64_t i = 0; i < len; i++)
            dt_store_u64(out->dt, out->data, i, v0 + (uint64_t)(g0 + i) * delta);
        return;
    }
    switch (out->dt) {
    case DT_FLOAT64: {
        double v0, v1, *o = out->data;
        sc_store(n->start, DT_FLOAT64, &v0);
        sc_store(next, DT_FLOAT64, &v1);
        double delta = v1 - v0;
        for (int64_t i = 0; i < len; i++)
            o[i] = v0 + (double)(g0 + i) * delta;
        if (g0 <= 1 && g0 + len > 1) o[1 - g0] = v1;
        if (g0 == 0 && len > 0) o[0] = v0;
        break;
    }
    case DT_FLOAT32: {
        float v0, v1, *o = out->data;
        sc_store(n->start, DT_FLOAT32, &v0);
        sc_store(next, DT_FLOAT32, &v1);
        float delta = v1 - v0;
        for (int64_t i = 0; i < len; i++)
            o[i] = v0 + (float)(g0 + i) * delta;
        if (g0 <= 1 && g0 + len > 1) o[1 - g0] = v1;
        if (g0 == 0 && len > 0) o[0] = v0;
        break;
    }
    case DT_INT64: {
        int64_t v0, v1, *o = out->data;
        sc_store(n->start, DT_INT64, &v0);
        sc_store(next, DT_INT64, &v1);
        uint64_t delta = (uint64_t)v1 - (uint64_t)v0;
        for (int64_t i = 0; i < len; i++)
            o[i] = (int64_t)((uint64_t)v0 + (uint64_t)(g0 + i) * delta);
        break;
    }
    case DT_INT32: {
        int32_t v0, v1, *o = out->data;
        sc_store(n->start, DT_INT32, &v0);
        sc_store(next, DT_INT32, &v1);
        uint32_t delta = (uint32_t)v1 - (uint32_t)v0;
        for (int64_t i = 0; i < len; i++)
            o[i] = (int32_t)((uint32_t)v0 + (uint32_t)(g0 + i) * delta);
        break;
    }
    default: { /* bool: numpy allows at most two elements */
        uint8_t v[2], *o = out->data;
        sc_store(n->start, DT_BOOL, &v[0]);
        sc_store(next, DT_BOOL, &v[1]);
        for (int64_t i = 0; i < len; i++)
            o[i] = v[g0 + i == 0 ? 0 : 1];
        break;
    }
    }
}

/* linspace, numpy 1.24's function_base.linspace in float64:
 *   div = num - 1 if endpoint else num; delta = stop - start
 *   div > 0: step = delta / div; y = i * step, or (i / div) * delta when
 *            step == 0 (denormal deltas); div <= 0: y = i * delta
 *   y += start; with endpoint and num > 1 the last element is stop
 * then cast to the output dtype (integers: floor first, as numpy). */
static double linspace_at(const kern_gen_t *n, int64_t i)
{
    double start = sc_as_double(n->start), stop = sc_as_double(n->stop);
    int64_t div = n->endpoint ? n->num - 1 : n->num;
    double delta = stop - start, y = (double)i;
    if (n->endpoint && n->num > 1 && i == n->num - 1) return stop;
    if (div > 0) {
        double step = delta / (double)div;
        if (step == 0)
            y = y / (double)div * delta;
        else
            y = y * step;
    } else {
        y = y * delta;
    }
    return y + start;
}

static void create_linspace(const kern_gen_t *n, int64_t g0, arr_t *out)
{
    int64_t len = shape_size(&out->shape);
    for (int64_t i = 0; i < len; i++) {
        double y = linspace_at(n, g0 + i);
        if (dt_is_int(out->dt)) y = floor(y);
        sc_store(sc_float(y), out->dt, (char *)out->data + (size_t)i * dt_size(out->dt));
    }
}

typedef struct {
    const kern_gen_t *n;
    arr_t *out;
} seg_ctx_t;

static void array_seg(void *vc, int64_t gflat, int64_t lflat, int64_t len)
{
    seg_ctx_t *c = vc;
    size_t es = dt_size(c->out->dt);
    memcpy((char *)c->out->data + (size_t)lflat * es, (const char *)c->n->data + (size_t)gflat * es,
           (size_t)len * es);
}

void kern_create(const kern_gen_t *n, const int64_t *off, arr_t *out)
{
    size_t es = dt_size(out->dt);
    int64_t total = shape_size(&out->shape);
    switch (n->op) {
    case OP_ONES:
    case OP_ZEROS:
    case OP_FULL: {
        unsigned char v[8];
        scalar_t s = n->op == OP_FULL ? n->fill_value : sc_int(n->op == OP_ONES);
        sc_store(s, out->dt, v);
        fill_elem(out->data, es, total, v);
        break;
    }
    case OP_ARANGE:
        create_arange(n, out->shape.ndim ? off[0] : 0, out);
        break;
    case OP_LINSPACE:
        create_linspace(n, out->shape.ndim ? off[0] : 0, out);
        break;
    case OP_EYE: {
        unsigned char one[8], zero[8];
        sc_store(sc_int(1), out->dt, one);
        sc_store(sc_int(0), out->dt, zero);
        fill_elem(out->data, es, total, zero);
        int64_t rows = out->shape.d[0], cols = out->shape.d[1];
        for (int64_t i = 0; i < rows; i++) {
            /* global column gi + k, local column gi + k - off[1] */
            int64_t j;
            if (__builtin_add_overflow(off[0] + i - off[1], n->k, &j))
                continue; /* a diagonal this far away crosses no chunk */
            if (j >= 0 && j < cols)
                memcpy((char *)out->data + (size_t)(i * cols + j) * es, one, es);
        }
        break;
    }
    case OP_LOGSPACE: /* shapes: create2.c */
    case OP_GEOMSPACE:
    case OP_INDICES:
        kern_create_shapes2(n, off, out);
        break;
    case OP_ARRAY: {
        seg_ctx_t c = {n, out};
        kern_for_each_segment(&out->shape, &n->shape, off, array_seg, &c);
        break;
    }
    default:
        break;
    }
}
