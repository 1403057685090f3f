/* scan.c: cumsum and cumprod along one axis, chunk by chunk. Arrays are seen
 * as (outer, n, inner) around the axis. bool, int32 and int64 accumulate in
 * int64 (wrapping, through uint64); float32 stays float32 and accumulates in
 * order, as numpy's add.accumulate does; float64 likewise. */
#include <string.h>

#include "kern_internal.h"

static void split_axis(const shape_t *s, int axis, int64_t *outer, int64_t *n, int64_t *inner)
{
    *outer = 1;
    *inner = 1;
    for (int d = 0; d < axis; d++)
        *outer *= s->d[d];
    for (int d = axis + 1; d < s->ndim; d++)
        *inner *= s->d[d];
    *n = s->ndim ? s->d[axis] : 1;
}

/* Accumulator types: A is the result's element type; U is where the
 * arithmetic happens (uint64 for the integer result, to wrap without UB). */
#define ADD_L(x, y) ((int64_t)((uint64_t)(x) + (uint64_t)(y)))
#define MUL_L(x, y) ((int64_t)((uint64_t)(x) * (uint64_t)(y)))
#define ADD_F(x, y) ((x) + (y))
#define MUL_F(x, y) ((x) * (y))

/* SCAN(name, T input, A result, OP) */
#define SCAN(name, T, A, OP)                                                                       \
    static void name(const void *vin, void *vout, int64_t outer, int64_t n, int64_t inner)         \
    {                                                                                              \
        const T *restrict in = vin;                                                                \
        A *restrict out = vout;                                                                    \
        for (int64_t o = 0; o < outer; o++) {                                                      \
            const T *x = in + o * n * inner;                                                       \
            A *y = out + o * n * inner;                                                            \
            if (n == 0) continue;                                                                  \
            if (inner == 1) {                                                                      \
                A acc = (A)x[0];                                                                   \
                y[0] = acc;                                                                        \
                for (int64_t i = 1; i < n; i++) {                                                  \
                    acc = OP(acc, (A)x[i]);                                                        \
                    y[i] = acc;                                                                    \
                }                                                                                  \
                continue;                                                                          \
            }                                                                                      \
            for (int64_t j = 0; j < inner; j++)                                                    \
                y[j] = (A)x[j];                                                                    \
            for (int64_t i = 1; i < n; i++) {                                                      \
                const A *restrict prev = y + (i - 1) * inner;                                      \
                A *restrict cur = y + i * inner;                                                   \
                const T *restrict xi = x + i * inner;                                              \
                for (int64_t j = 0; j < inner; j++)                                                \
                    cur[j] = OP(prev[j], (A)xi[j]);                                                \
            }                                                                                      \
        }                                                                                          \
    }

SCAN(cumsum_B, uint8_t, int64_t, ADD_L)
SCAN(cumsum_I, int32_t, int64_t, ADD_L)
SCAN(cumsum_L, int64_t, int64_t, ADD_L)
SCAN(cumsum_F, float, float, ADD_F)
SCAN(cumsum_D, double, double, ADD_F)
SCAN(cumprod_B, uint8_t, int64_t, MUL_L)
SCAN(cumprod_I, int32_t, int64_t, MUL_L)
SCAN(cumprod_L, int64_t, int64_t, MUL_L)
SCAN(cumprod_F, float, float, MUL_F)
SCAN(cumprod_D, double, double, MUL_F)

typedef void (*scan_fn)(const void *in, void *out, int64_t outer, int64_t n, int64_t inner);
static const scan_fn scan_table[2][DT_NTYPES] = {
    {cumsum_B, cumsum_I, cumsum_L, cumsum_F, cumsum_D},
    {cumprod_B, cumprod_I, cumprod_L, cumprod_F, cumprod_D},
};

void kern_scan_local(op_t op, const arr_t *in, int axis, arr_t *out)
{
    int64_t outer, n, inner;
    split_axis(&in->shape, axis, &outer, &n, &inner);
    bool mul = op_nan_base(op) == OP_CUMPROD;
    if (op_is_nan_reduction(op) && dt_is_float(in->dt)) {
        /* nancumsum, nancumprod: NaN counts as 0 (1), as numpy replaces it */
        int64_t total = outer * n * inner;
        size_t es = dt_size(in->dt);
        void *tmp = kern_xmalloc((size_t)(total > 0 ? total : 1) * es);
        if (in->dt == DT_FLOAT32) {
            const float *a = in->data;
            float *t = tmp;
            for (int64_t i = 0; i < total; i++)
                t[i] = a[i] != a[i] ? (mul ? 1.0f : 0.0f) : a[i];
        } else {
            const double *a = in->data;
            double *t = tmp;
            for (int64_t i = 0; i < total; i++)
                t[i] = a[i] != a[i] ? (mul ? 1.0 : 0.0) : a[i];
        }
        scan_table[mul][in->dt](tmp, out->data, outer, n, inner);
        free(tmp);
        return;
    }
    scan_table[mul][in->dt](in->data, out->data, outer, n, inner);
}

/* out[o, j] = a[o, j] OP b[o, j] over outer x inner, where a is read with a
 * row stride (the last slice of a local result). Results share one dtype. */
#define COMBINE(name, A, OP)                                                                       \
    static void name(const void *va, int64_t astride, const void *vb, void *vo, int64_t outer,     \
                     int64_t inner)                                                                \
    {                                                                                              \
        const A *a = va, *b = vb;                                                                  \
        A *o = vo;                                                                                 \
        for (int64_t r = 0; r < outer; r++)                                                        \
            for (int64_t j = 0; j < inner; j++)                                                    \
                o[r * inner + j] =                                                                 \
                    b ? OP(a[r * astride + j], b[r * inner + j]) : a[r * astride + j];             \
    }
COMBINE(carry_add_L, int64_t, ADD_L)
COMBINE(carry_mul_L, int64_t, MUL_L)
COMBINE(carry_add_F, float, ADD_F)
COMBINE(carry_mul_F, float, MUL_F)
COMBINE(carry_add_D, double, ADD_F)
COMBINE(carry_mul_D, double, MUL_F)

void kern_scan_carry(op_t op, const arr_t *prev_carry, const arr_t *prev_local, int axis,
                     arr_t *out)
{
    int64_t outer, n, inner;
    split_axis(&prev_local->shape, axis, &outer, &n, &inner);
    const char *last =
        (const char *)prev_local->data + (size_t)((n - 1) * inner) * dt_size(prev_local->dt);
    const void *pc = prev_carry ? prev_carry->data : NULL;
    bool mul = op_nan_base(op) == OP_CUMPROD;
    switch (prev_local->dt) {
    case DT_FLOAT32:
        (mul ? carry_mul_F : carry_add_F)(last, n * inner, pc, out->data, outer, inner);
        break;
    case DT_FLOAT64:
        (mul ? carry_mul_D : carry_add_D)(last, n * inner, pc, out->data, outer, inner);
        break;
    default:
        (mul ? carry_mul_L : carry_add_L)(last, n * inner, pc, out->data, outer, inner);
        break;
    }
}

/* out[o, i, j] = local[o, i, j] OP carry[o, j]; out may be local itself. */
#define APPLY(name, A, OP)                                                                         \
    static void name(const void *vl, const void *vc, void *vo, int64_t outer, int64_t n,           \
                     int64_t inner)                                                                \
    {                                                                                              \
        const A *l = vl, *c = vc;                                                                  \
        A *o = vo;                                                                                 \
        for (int64_t r = 0; r < outer; r++) {                                                      \
            const A *cr = c + r * inner;                                                           \
            for (int64_t i = 0; i < n; i++) {                                                      \
                int64_t base = (r * n + i) * inner;                                                \
                for (int64_t j = 0; j < inner; j++)                                                \
                    o[base + j] = OP(l[base + j], cr[j]);                                          \
            }                                                                                      \
        }                                                                                          \
    }
APPLY(apply_add_L, int64_t, ADD_L)
APPLY(apply_mul_L, int64_t, MUL_L)
APPLY(apply_add_F, float, ADD_F)
APPLY(apply_mul_F, float, MUL_F)
APPLY(apply_add_D, double, ADD_F)
APPLY(apply_mul_D, double, MUL_F)

void kern_scan_apply(op_t op, const arr_t *local, const arr_t *carry, int axis, arr_t *out)
{
    int64_t outer, n, inner;
    split_axis(&local->shape, axis, &outer, &n, &inner);
    bool mul = op_nan_base(op) == OP_CUMPROD;
    switch (local->dt) {
    case DT_FLOAT32:
        (mul ? apply_mul_F : apply_add_F)(local->data, carry->data, out->data, outer, n, inner);
        break;
    case DT_FLOAT64:
        (mul ? apply_mul_D : apply_add_D)(local->data, carry->data, out->data, outer, n, inner);
        break;
    default:
        (mul ? apply_mul_L : apply_add_L)(local->data, carry->data, out->data, outer, n, inner);
        break;
    }
}
