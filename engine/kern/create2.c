/* create2.c: logspace, geomspace and indices, one chunk at a time
 * (shapes2.h). Values depend only on the element's global position and
 * follow numpy 1.24's function_base.py in float64:
 *   logspace:  power(base, linspace(start, stop, num, endpoint))
 *   geomspace: with both ends negative, both negated and the result
 *              negated back; power(10, linspace(log10(start), log10(stop)))
 *              with the first element start and (endpoint, num > 1) the
 *              last stop exactly
 * then cast to the output dtype as astype does (integers truncate).
 * indices: element (k, i_0, ..., i_{m-1}) is i_k. */
#include <math.h>
#include <string.h>

#include "kern_internal.h"

/* numpy's linspace at position i in float64 (as create.c's linspace_at) */
static double lin_at(double start, double stop, int64_t num, bool endpoint, int64_t i)
{
    int64_t div = endpoint ? num - 1 : num;
    double delta = stop - start, y = (double)i;
    if (endpoint && num > 1 && i == num - 1) return stop;
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

static double space_at(const kern_gen_t *n, int64_t i)
{
    double start = sc_as_double(n->start), stop = sc_as_double(n->stop);
    if (n->op == OP_LOGSPACE)
        return pow(sc_as_double(n->step), lin_at(start, stop, n->num, n->endpoint, i));
    double sign = 1.0;
    if (start < 0 && stop < 0) {
        start = -start;
        stop = -stop;
        sign = -1.0;
    }
    double v = pow(10.0, lin_at(log10(start), log10(stop), n->num, n->endpoint, i));
    if (i == 0) v = start;
    if (n->endpoint && n->num > 1 && i == n->num - 1) v = stop;
    return sign * v;
}

static void store_i64(arr_t *out, int64_t i, int64_t v)
{
    switch (out->dt) {
    case DT_FLOAT64:
        ((double *)out->data)[i] = (double)v;
        break;
    case DT_FLOAT32:
        ((float *)out->data)[i] = (float)v;
        break;
    case DT_INT64:
        ((int64_t *)out->data)[i] = v;
        break;
    case DT_INT32:
        ((int32_t *)out->data)[i] = (int32_t)v;
        break;
    default:
        ((uint8_t *)out->data)[i] = v != 0;
        break;
    }
}

void kern_create_shapes2(const kern_gen_t *n, const int64_t *off, arr_t *out)
{
    int64_t total = shape_size(&out->shape);
    size_t es = dt_size(out->dt);
    if (n->op != OP_INDICES) {
        int64_t g0 = out->shape.ndim ? off[0] : 0;
        for (int64_t i = 0; i < total; i++)
            sc_store(sc_float(space_at(n, g0 + i)), out->dt, (char *)out->data + (size_t)i * es);
        return;
    }
    /* indices: axis 0 of the chunk picks k; the value is the global
     * position along axis k + 1 */
    int nd = out->shape.ndim;
    if (total == 0) return;
    int64_t idx[MR_MAXDIM] = {0};
    for (int64_t i = 0; i < total; i++) {
        int64_t k = off[0] + idx[0];
        store_i64(out, i, off[k + 1] + idx[k + 1]);
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < out->shape.d[d]) break;
            idx[d] = 0;
        }
    }
}
