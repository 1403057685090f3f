/* graph_infer.c: output shape and dtype of every op, as numpy 1.24 computes
 * them, with numpy's refusals (and its messages where they name the rule).
 * Runs once per node in topological order: the inputs' oshape and odtype
 * are known. Every size is computed with checked arithmetic. */
#include <stdio.h>
#include <string.h>

#include "graph_fancy.h"
#include "graph_internal.h"
#include "graph_la.h"
#include "setops.h"
#include "shapes2.h"
#include "sortstat.h"
#include "ufunc.h"

typedef struct {
    graph_t *g;
    graph_node_t *n;
    const graph_raw_t *r;
    char *err;
    size_t errlen;
} ictx_t;

#define FAIL(x, ...) graph_fail((x)->err, (x)->errlen, (x)->n, __VA_ARGS__)

static const graph_node_t *input(const ictx_t *x, int j)
{
    return &x->g->nodes[x->n->in[j].node];
}

static const shape_t *in_shape(const ictx_t *x, int j)
{
    return &input(x, j)->oshape;
}

/* numpy's normalize_axis_index. */
static int norm_axis(const ictx_t *x, int64_t ax, int ndim, int *out)
{
    *out = 0;
    if (ax < -(int64_t)ndim || ax >= ndim)
        return FAIL(x, "axis %lld is out of bounds for array of dimension %d", (long long)ax, ndim);
    *out = (int)(ax < 0 ? ax + ndim : ax);
    return 0;
}

static int too_many_dims(const ictx_t *x, int ndim)
{
    return FAIL(x, "maximum supported dimension for an ndarray is %d, found %d", MR_MAXDIM, ndim);
}

static void fmt(const shape_t *s, char *buf, size_t len)
{
    shape_format(s, buf, len);
}

/* The shape with axis d left out. */
static void drop_axis(const shape_t *s, int d, shape_t *out)
{
    int o = 0;
    for (int i = 0; i < s->ndim; i++)
        if (i != d) out->d[o++] = s->d[i];
    out->ndim = o;
}

/* ---------------------------------------------------------------------------
 * Element-wise */

static int broadcast(const ictx_t *x, int cnt, const shape_t *const *s, shape_t *out)
{
    int nd = 0;
    for (int j = 0; j < cnt; j++)
        if (s[j]->ndim > nd) nd = s[j]->ndim;
    out->ndim = nd;
    for (int k = 0; k < nd; k++) { /* k counts from the right */
        int64_t d = 1;
        bool set = false;
        for (int j = 0; j < cnt; j++) {
            if (k >= s[j]->ndim) continue;
            int64_t e = s[j]->d[s[j]->ndim - 1 - k];
            if (e == 1) continue;
            if (set && e != d) {
                char msg[4096];
                size_t o = 0;
                for (int i = 0; i < cnt && o < sizeof msg; i++) {
                    if (i) msg[o++] = ' ';
                    fmt(s[i], msg + o, sizeof msg - o);
                    o += strlen(msg + o);
                }
                msg[sizeof msg - 1] = '\0';
                return FAIL(x, "operands could not be broadcast together with shapes %s", msg);
            }
            d = e;
            set = true;
        }
        out->d[nd - 1 - k] = d;
    }
    return 0;
}

/* Promotion follows numpy's value-based rules (ew_node_types in ufunc.c,
 * shared with the tiler): 0-d operands count as scalars, and a 0-d tensor
 * of the graph, whose value is unknown before running, counts as its dtype. */
static int infer_ew(ictx_t *x)
{
    graph_node_t *n = x->n;
    static const shape_t scalar_shape = {0};
    const shape_t *shp[3];
    dtype_t in_dt[3] = {DT_BOOL, DT_BOOL, DT_BOOL};
    int in_ndim[3] = {0, 0, 0};
    for (int j = 0; j < n->n_in; j++) {
        shp[j] = n->in[j].node >= 0 ? in_shape(x, j) : &scalar_shape;
        if (n->in[j].node >= 0) {
            in_dt[j] = input(x, j)->odtype;
            in_ndim[j] = in_shape(x, j)->ndim;
        }
    }
    if (broadcast(x, n->n_in, shp, &n->oshape) < 0) return -1;
    ew_types_t t;
    char msg[512];
    if (ew_node_types(n, in_dt, in_ndim, &t, msg, sizeof msg) != 0) return FAIL(x, "%s", msg);
    n->odtype = t.out;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Reductions */

static dtype_t reduce_dtype(op_t op, dtype_t t)
{
    switch (op_nan_base(op)) {
    case OP_SUM:
    case OP_PROD:
    case OP_CUMSUM:
    case OP_CUMPROD:
        return dt_is_float(t) ? t : dt_sum_type(t);
    case OP_MEAN:
    case OP_STD:
    case OP_VAR:
        return dt_is_float(t) ? t : DT_FLOAT64;
    case OP_ALL:
    case OP_ANY:
        return DT_BOOL;
    case OP_ARGMIN:
    case OP_ARGMAX:
    case OP_COUNT_NONZERO:
        return DT_INT64;
    default:
        return t;
    }
}

static void all_axes(graph_node_t *n, int ndim)
{
    n->axis_all = true;
    n->n_axis = ndim;
    for (int d = 0; d < ndim; d++)
        n->axis[d] = d;
}

static int infer_reduce(ictx_t *x)
{
    graph_node_t *n = x->n;
    const shape_t *s = in_shape(x, 0);
    json_t *ax = x->r->axis;
    bool red[MR_MAXDIM] = {false};
    if (!ax || json_is_null(ax)) {
        n->axis_all = true;
        for (int d = 0; d < s->ndim; d++)
            red[d] = true;
    } else if (json_is_integer(ax)) {
        int64_t a = (int64_t)json_integer_value(ax);
        /* numpy's ufunc reductions take axis 0 or -1 of a 0-d array as no
         * axis at all; mean, std and var (Python code) do not. */
        op_t b = op_nan_base(n->op);
        bool quirk = b != OP_MEAN && b != OP_STD && b != OP_VAR;
        if (!(s->ndim == 0 && quirk && (a == 0 || a == -1))) {
            int d;
            if (norm_axis(x, a, s->ndim, &d) < 0) return -1;
            red[d] = true;
        }
    } else { /* numpy: every axis in bounds first, then repeats */
        int d;
        for (size_t i = 0; i < json_array_size(ax); i++)
            if (norm_axis(x, (int64_t)json_integer_value(json_array_get(ax, i)), s->ndim, &d) < 0)
                return -1;
        for (size_t i = 0; i < json_array_size(ax); i++) {
            norm_axis(x, (int64_t)json_integer_value(json_array_get(ax, i)), s->ndim, &d);
            if (red[d]) return FAIL(x, "duplicate value in 'axis'");
            red[d] = true;
        }
    }
    n->n_axis = 0;
    n->oshape.ndim = 0;
    for (int d = 0; d < s->ndim; d++) {
        if (red[d]) {
            n->axis[n->n_axis++] = d;
            if ((n->op == OP_MIN || n->op == OP_MAX) && s->d[d] == 0)
                return FAIL(x, "zero-size array to reduction operation %s which has no identity",
                            n->op == OP_MIN ? "minimum" : "maximum");
            if (n->op == OP_PTP && s->d[d] == 0)
                return FAIL(x, "zero-size array to reduction operation maximum which has no "
                               "identity");
            if ((n->op == OP_NANMIN || n->op == OP_NANMAX) && s->d[d] == 0)
                return FAIL(x, "zero-size array to reduction operation %s which has no identity",
                            n->op == OP_NANMIN ? "fmin" : "fmax");
            if (n->keepdims) n->oshape.d[n->oshape.ndim++] = 1;
        } else {
            n->oshape.d[n->oshape.ndim++] = s->d[d];
        }
    }
    n->odtype = reduce_dtype(n->op, input(x, 0)->odtype);
    if (n->op == OP_PTP && n->odtype == DT_BOOL)
        return FAIL(x, "numpy boolean subtract is not supported (ptp of bool)");
    return 0;
}

/* argmin, argmax: axis null (over the flattened array) or one integer. A 0-d
 * input counts as 1-D for the axis, as numpy's ravel-based code does. */
static int infer_argreduce(ictx_t *x)
{
    graph_node_t *n = x->n;
    const shape_t *s = in_shape(x, 0);
    json_t *ax = x->r->axis;
    const char *what = op_nan_base(n->op) == OP_ARGMIN ? "argmin" : "argmax";
    n->odtype = DT_INT64;
    if (!ax || json_is_null(ax)) {
        all_axes(n, s->ndim);
        if (shape_size(s) == 0) return FAIL(x, "attempt to get %s of an empty sequence", what);
        n->oshape.ndim = n->keepdims ? s->ndim : 0;
        for (int d = 0; d < n->oshape.ndim; d++)
            n->oshape.d[d] = 1;
        return 0;
    }
    int d;
    if (norm_axis(x, (int64_t)json_integer_value(ax), s->ndim ? s->ndim : 1, &d) < 0) return -1;
    if (s->ndim == 0) {
        n->n_axis = 0;
        n->oshape.ndim = 0;
        return 0;
    }
    n->n_axis = 1;
    n->axis[0] = d;
    if (s->d[d] == 0) return FAIL(x, "attempt to get %s of an empty sequence", what);
    n->oshape = *s;
    if (n->keepdims)
        n->oshape.d[d] = 1;
    else
        drop_axis(s, d, &n->oshape);
    return 0;
}

/* cumsum, cumprod: axis null scans the flattened array (1-D result); a 0-d
 * input scans as a 1-D array of one element. */
static int infer_scan(ictx_t *x)
{
    graph_node_t *n = x->n;
    const shape_t *s = in_shape(x, 0);
    json_t *ax = x->r->axis;
    n->odtype = reduce_dtype(n->op, input(x, 0)->odtype);
    if (!ax || json_is_null(ax)) {
        all_axes(n, s->ndim);
        n->oshape.ndim = 1;
        n->oshape.d[0] = shape_size(s);
        return 0;
    }
    int d;
    if (norm_axis(x, (int64_t)json_integer_value(ax), s->ndim ? s->ndim : 1, &d) < 0) return -1;
    n->n_axis = 1;
    n->axis[0] = d;
    if (s->ndim == 0) {
        n->oshape.ndim = 1;
        n->oshape.d[0] = 1;
    } else {
        n->oshape = *s;
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Linear algebra */

static int infer_dot(ictx_t *x, const shape_t *a, const shape_t *b)
{
    graph_node_t *n = x->n;
    char sa[1024], sb[1024];
    if (a->ndim == 0 || b->ndim == 0) { /* numpy multiplies */
        n->td_n = 0;
        n->oshape = a->ndim == 0 ? *b : *a;
        return 0;
    }
    int ka = a->ndim - 1, kb = b->ndim >= 2 ? b->ndim - 2 : 0;
    if (a->d[ka] != b->d[kb]) {
        fmt(a, sa, sizeof sa);
        fmt(b, sb, sizeof sb);
        return FAIL(x, "shapes %s and %s not aligned: %lld (dim %d) != %lld (dim %d)", sa, sb,
                    (long long)a->d[ka], ka, (long long)b->d[kb], kb);
    }
    if (a->ndim - 1 + b->ndim - 1 > MR_MAXDIM) return too_many_dims(x, a->ndim + b->ndim - 2);
    shape_t rest;
    drop_axis(b, kb, &rest);
    n->oshape.ndim = 0;
    for (int d = 0; d < ka; d++)
        n->oshape.d[n->oshape.ndim++] = a->d[d];
    for (int d = 0; d < rest.ndim; d++)
        n->oshape.d[n->oshape.ndim++] = rest.d[d];
    n->td_n = 1;
    n->td_a[0] = ka;
    n->td_b[0] = kb;
    return 0;
}

static int infer_matmul(ictx_t *x, const shape_t *a, const shape_t *b)
{
    graph_node_t *n = x->n;
    static const char sig[] = "(n?,k),(k,m?)->(n?,m?)";
    if (a->ndim == 0 || b->ndim == 0)
        return FAIL(x,
                    "matmul: Input operand %d does not have enough dimensions (has 0, gufunc "
                    "core with signature %s requires 1)",
                    a->ndim == 0 ? 0 : 1, sig);
    int ka = a->ndim - 1, kb = b->ndim >= 2 ? b->ndim - 2 : 0;
    if (a->d[ka] != b->d[kb])
        return FAIL(x,
                    "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                    "signature %s (size %lld is different from %lld)",
                    sig, (long long)b->d[kb], (long long)a->d[ka]);
    shape_t ba = {0}, bb = {0}, batch;
    ba.ndim = a->ndim > 2 ? a->ndim - 2 : 0;
    bb.ndim = b->ndim > 2 ? b->ndim - 2 : 0;
    memcpy(ba.d, a->d, (size_t)ba.ndim * sizeof ba.d[0]);
    memcpy(bb.d, b->d, (size_t)bb.ndim * sizeof bb.d[0]);
    const shape_t *both[2] = {&ba, &bb};
    if (broadcast(x, 2, both, &batch) < 0) {
        char sa[1024], sb[1024];
        fmt(a, sa, sizeof sa);
        fmt(b, sb, sizeof sb);
        return FAIL(x,
                    "matmul: the batch dimensions of shapes %s and %s could not be broadcast "
                    "together",
                    sa, sb);
    }
    n->oshape = batch;
    if (a->ndim >= 2) n->oshape.d[n->oshape.ndim++] = a->d[a->ndim - 2];
    if (b->ndim >= 2) n->oshape.d[n->oshape.ndim++] = b->d[b->ndim - 1];
    n->td_n = 1;
    n->td_a[0] = ka;
    n->td_b[0] = kb;
    return 0;
}

static int infer_inner(ictx_t *x, const shape_t *a, const shape_t *b)
{
    graph_node_t *n = x->n;
    if (a->ndim == 0 || b->ndim == 0) { /* numpy multiplies */
        n->td_n = 0;
        n->oshape = a->ndim == 0 ? *b : *a;
        return 0;
    }
    if (a->d[a->ndim - 1] != b->d[b->ndim - 1]) {
        char sa[1024], sb[1024];
        fmt(a, sa, sizeof sa);
        fmt(b, sb, sizeof sb);
        return FAIL(x, "shapes %s and %s are not aligned on their last axes", sa, sb);
    }
    if (a->ndim + b->ndim - 2 > MR_MAXDIM) return too_many_dims(x, a->ndim + b->ndim - 2);
    n->oshape.ndim = 0;
    for (int d = 0; d < a->ndim - 1; d++)
        n->oshape.d[n->oshape.ndim++] = a->d[d];
    for (int d = 0; d < b->ndim - 1; d++)
        n->oshape.d[n->oshape.ndim++] = b->d[d];
    n->td_n = 1;
    n->td_a[0] = a->ndim - 1;
    n->td_b[0] = b->ndim - 1;
    return 0;
}

/* One side of tensordot's `axes` pair: an integer or a list of them. */
static size_t td_len(json_t *v)
{
    return json_is_integer(v) ? 1 : json_array_size(v);
}
static int64_t td_at(json_t *v, size_t k)
{
    return (int64_t)json_integer_value(json_is_integer(v) ? v : json_array_get(v, k));
}

static int infer_tensordot(ictx_t *x, const shape_t *a, const shape_t *b)
{
    graph_node_t *n = x->n;
    json_t *axes = x->r->axes;
    bool used_a[MR_MAXDIM] = {false}, used_b[MR_MAXDIM] = {false};
    n->td_n = 0;
    if (!axes || json_is_integer(axes)) {
        /* numpy: a's last `axes` axes with b's first; a negative count
         * gives empty ranges, that is no contraction (numpy 1.24). */
        int64_t k = axes ? (int64_t)json_integer_value(axes) : 2;
        if (k < 0) k = 0;
        /* numpy's order: per pair, a's axis, b's axis, then the sizes */
        for (int i = 0; i < k; i++) {
            if (k > a->ndim || i >= b->ndim)
                return FAIL(x, "axes %lld: the operands have only %d and %d dimensions",
                            (long long)k, a->ndim, b->ndim);
            n->td_a[i] = a->ndim - (int)k + i;
            n->td_b[i] = i;
            if (a->d[n->td_a[i]] != b->d[i]) return FAIL(x, "shape-mismatch for sum");
        }
        n->td_n = (int)k;
    } else {
        json_t *ja = json_array_get(axes, 0), *jb = json_array_get(axes, 1);
        size_t cnt = td_len(ja);
        if (cnt != td_len(jb)) return FAIL(x, "shape-mismatch for sum");
        for (size_t k = 0; k < cnt; k++) { /* numpy's order: bounds, then sizes */
            int da, db;
            if (norm_axis(x, td_at(ja, k), a->ndim, &da) < 0 ||
                norm_axis(x, td_at(jb, k), b->ndim, &db) < 0)
                return -1;
            if (a->d[da] != b->d[db]) return FAIL(x, "shape-mismatch for sum");
        }
        /* then repeats; at most ndim distinct axes fit, so storing stops in
         * time: the 33rd axis is always a repeat */
        for (size_t k = 0; k < cnt; k++) {
            int da, db;
            norm_axis(x, td_at(ja, k), a->ndim, &da);
            norm_axis(x, td_at(jb, k), b->ndim, &db);
            if (used_a[da] || used_b[db]) return FAIL(x, "repeated axis in \"axes\"");
            used_a[da] = used_b[db] = true;
            n->td_a[k] = da;
            n->td_b[k] = db;
        }
        n->td_n = (int)cnt;
    }
    for (int i = 0; i < n->td_n; i++) {
        used_a[n->td_a[i]] = true;
        used_b[n->td_b[i]] = true;
    }
    int nd = a->ndim + b->ndim - 2 * n->td_n;
    if (nd > MR_MAXDIM) return too_many_dims(x, nd);
    n->oshape.ndim = 0;
    for (int d = 0; d < a->ndim; d++)
        if (!used_a[d]) n->oshape.d[n->oshape.ndim++] = a->d[d];
    for (int d = 0; d < b->ndim; d++)
        if (!used_b[d]) n->oshape.d[n->oshape.ndim++] = b->d[d];
    return 0;
}

static int infer_linalg(ictx_t *x)
{
    graph_node_t *n = x->n;
    const shape_t *a = in_shape(x, 0), *b = in_shape(x, 1);
    n->odtype = dt_promote(input(x, 0)->odtype, input(x, 1)->odtype);
    switch (n->op) {
    case OP_DOT:
        return infer_dot(x, a, b);
    case OP_MATMUL:
        return infer_matmul(x, a, b);
    case OP_INNER:
        return infer_inner(x, a, b);
    case OP_OUTER: /* both flattened; sizes fit: the inputs passed the limits */
        n->td_n = 0;
        n->oshape.ndim = 2;
        n->oshape.d[0] = shape_size(a);
        n->oshape.d[1] = shape_size(b);
        return 0;
    default:
        return infer_tensordot(x, a, b);
    }
}

/* ---------------------------------------------------------------------------
 * Shape and indexing */

static int infer_transpose(ictx_t *x, const shape_t *s)
{
    graph_node_t *n = x->n;
    json_t *axes = x->r->axes;
    if (!axes || json_is_null(axes)) {
        for (int d = 0; d < s->ndim; d++)
            n->perm[d] = s->ndim - 1 - d;
    } else {
        if ((int64_t)json_array_size(axes) != s->ndim) return FAIL(x, "axes don't match array");
        bool used[MR_MAXDIM] = {false};
        for (int d = 0; d < s->ndim; d++) {
            int p;
            if (norm_axis(x, (int64_t)json_integer_value(json_array_get(axes, (size_t)d)), s->ndim,
                          &p) < 0)
                return -1;
            if (used[p]) return FAIL(x, "repeated axis in transpose");
            used[p] = true;
            n->perm[d] = p;
        }
    }
    n->oshape.ndim = s->ndim;
    for (int d = 0; d < s->ndim; d++)
        n->oshape.d[d] = s->d[n->perm[d]];
    return 0;
}

/* numpy 1.24 takes any negative entry as the unknown dimension. */
static int infer_reshape(ictx_t *x, const shape_t *s)
{
    graph_node_t *n = x->n;
    json_t *ns = x->r->newshape;
    shape_t want = {0};
    want.ndim = json_is_integer(ns) ? 1 : (int)json_array_size(ns);
    for (int d = 0; d < want.ndim; d++)
        want.d[d] =
            (int64_t)json_integer_value(json_is_integer(ns) ? ns : json_array_get(ns, (size_t)d));
    int unknown = -1;
    int64_t known = 1;
    bool ovf = false;
    for (int d = 0; d < want.ndim; d++) {
        if (want.d[d] < 0) {
            if (unknown >= 0) return FAIL(x, "can only specify one unknown dimension");
            unknown = d;
        } else if (!ovf) {
            ovf = mul_ovf_i64(known, want.d[d], &known);
        }
    }
    int64_t size = shape_size(s);
    bool ok = unknown >= 0 ? !ovf && known != 0 && size % known == 0 : !ovf && known == size;
    if (!ok) {
        char sb[1024];
        fmt(&want, sb, sizeof sb);
        return FAIL(x, "cannot reshape array of size %lld into shape %s", (long long)size, sb);
    }
    if (unknown >= 0) want.d[unknown] = size / known;
    n->oshape = want;
    return 0;
}

static int infer_squeeze(ictx_t *x, const shape_t *s)
{
    graph_node_t *n = x->n;
    json_t *ax = x->r->axis;
    bool sel[MR_MAXDIM] = {false};
    if (!ax || json_is_null(ax)) {
        n->axis_all = true;
        for (int d = 0; d < s->ndim; d++)
            sel[d] = s->d[d] == 1;
    } else if (json_is_integer(ax)) {
        int64_t a = (int64_t)json_integer_value(ax);
        if (!(s->ndim == 0 && (a == 0 || a == -1))) { /* as numpy's reductions */
            int d;
            if (norm_axis(x, a, s->ndim, &d) < 0) return -1;
            sel[d] = true;
        }
    } else {
        for (size_t i = 0; i < json_array_size(ax); i++) {
            int d;
            if (norm_axis(x, (int64_t)json_integer_value(json_array_get(ax, i)), s->ndim, &d) < 0)
                return -1;
            if (sel[d]) return FAIL(x, "duplicate value in 'axis'");
            sel[d] = true;
        }
    }
    n->n_axis = 0;
    n->oshape.ndim = 0;
    for (int d = 0; d < s->ndim; d++) {
        if (!sel[d]) {
            n->oshape.d[n->oshape.ndim++] = s->d[d];
            continue;
        }
        if (s->d[d] != 1)
            return FAIL(x, "cannot select an axis to squeeze out which has size not equal to one");
        n->axis[n->n_axis++] = d;
    }
    return 0;
}

static int infer_expand_dims(ictx_t *x, const shape_t *s)
{
    graph_node_t *n = x->n;
    json_t *ax = x->r->axis;
    size_t cnt = json_is_integer(ax) ? 1 : json_array_size(ax);
    if ((size_t)s->ndim + cnt > MR_MAXDIM) return too_many_dims(x, s->ndim + (int)cnt);
    int nd = s->ndim + (int)cnt;
    int pos[MR_MAXDIM];
    for (size_t i = 0; i < cnt; i++) /* numpy: all normalised, then repeats */
        if (norm_axis(x,
                      (int64_t)json_integer_value(json_is_integer(ax) ? ax : json_array_get(ax, i)),
                      nd, &pos[i]) < 0)
            return -1;
    bool sel[MR_MAXDIM] = {false};
    for (size_t i = 0; i < cnt; i++) {
        if (sel[pos[i]]) return FAIL(x, "repeated axis");
        sel[pos[i]] = true;
    }
    n->n_axis = 0;
    n->oshape.ndim = nd;
    for (int d = 0, k = 0; d < nd; d++) {
        if (sel[d]) {
            n->axis[n->n_axis++] = d;
            n->oshape.d[d] = 1;
        } else {
            n->oshape.d[d] = s->d[k++];
        }
    }
    return 0;
}

/* Input j (lifted shape s) against input 0's (s0) when they are joined on
 * axis: numpy's messages; adds s's length along axis to *total. */
static int concat_check(ictx_t *x, const shape_t *s0, const shape_t *s, int j, int axis,
                        int64_t *total)
{
    if (s->ndim != s0->ndim)
        return FAIL(x,
                    "all the input arrays must have same number of dimensions, but the array "
                    "at index 0 has %d dimension(s) and the array at index %d has %d "
                    "dimension(s)",
                    s0->ndim, j, s->ndim);
    for (int d = 0; d < s->ndim; d++)
        if (d != axis && s->d[d] != s0->d[d])
            return FAIL(x,
                        "all the input array dimensions except for the concatenation axis "
                        "must match exactly, but along dimension %d, the array at index 0 "
                        "has size %lld and the array at index %d has size %lld",
                        d, (long long)s0->d[d], j, (long long)s->d[d]);
    if (add_ovf_i64(*total, s->d[axis], total))
        return FAIL(x, "the result has more elements than an int64 can count");
    return 0;
}

int graph_stack_lift(op_t op, const shape_t *s, int first_ndim, shape_t *out)
{
    *out = *s;
    switch (op) {
    case OP_HSTACK: /* atleast_1d; 1-D inputs join on axis 0, others on 1 */
        if (s->ndim == 0) *out = (shape_t){.ndim = 1, .d = {1}};
        return first_ndim <= 1 ? 0 : 1;
    case OP_VSTACK: /* atleast_2d */
        if (s->ndim == 0) *out = (shape_t){.ndim = 2, .d = {1, 1}};
        if (s->ndim == 1) *out = (shape_t){.ndim = 2, .d = {1, s->d[0]}};
        return 0;
    case OP_DSTACK: /* atleast_3d */
        if (s->ndim == 0) *out = (shape_t){.ndim = 3, .d = {1, 1, 1}};
        if (s->ndim == 1) *out = (shape_t){.ndim = 3, .d = {1, s->d[0], 1}};
        if (s->ndim == 2) *out = (shape_t){.ndim = 3, .d = {s->d[0], s->d[1], 1}};
        return 2;
    default: /* column_stack: 0-D and 1-D inputs become columns */
        if (s->ndim == 0) *out = (shape_t){.ndim = 2, .d = {1, 1}};
        if (s->ndim == 1) *out = (shape_t){.ndim = 2, .d = {s->d[0], 1}};
        return 1;
    }
}

/* hstack, vstack, dstack, column_stack: numpy's concatenation of the
 * lifted inputs (graph_stack_lift), with its messages. */
static int infer_stack_family(ictx_t *x)
{
    graph_node_t *n = x->n;
    n->odtype = input(x, 0)->odtype;
    shape_t s0;
    int axis = graph_stack_lift(n->op, in_shape(x, 0), in_shape(x, 0)->ndim, &s0);
    n->n_axis = 1;
    n->axis[0] = axis;
    n->oshape = s0;
    for (int j = 1; j < n->n_in; j++) {
        n->odtype = dt_promote(n->odtype, input(x, j)->odtype);
        shape_t s;
        graph_stack_lift(n->op, in_shape(x, j), in_shape(x, 0)->ndim, &s);
        if (concat_check(x, &s0, &s, j, axis, &n->oshape.d[axis])) return -1;
    }
    return 0;
}

static int infer_concatenate(ictx_t *x)
{
    graph_node_t *n = x->n;
    json_t *ax = x->r->axis;
    n->odtype = input(x, 0)->odtype;
    for (int j = 1; j < n->n_in; j++)
        n->odtype = dt_promote(n->odtype, input(x, j)->odtype);
    /* numpy promotes with 0-d inputs counted by value (only axis=None
     * takes them); their values are unknown here, so they count as their
     * dtype, as in element-wise promotion. */
    if (ax && json_is_null(ax)) { /* flattened, as numpy's axis=None */
        int64_t total = 0;
        n->axis_all = true;
        n->n_axis = 0;
        for (int j = 0; j < n->n_in; j++)
            if (add_ovf_i64(total, shape_size(in_shape(x, j)), &total))
                return FAIL(x, "the result has more elements than an int64 can count");
        n->oshape.ndim = 1;
        n->oshape.d[0] = total;
        return 0;
    }
    const shape_t *s0 = in_shape(x, 0);
    if (s0->ndim == 0) return FAIL(x, "zero-dimensional arrays cannot be concatenated");
    int axis;
    if (norm_axis(x, ax ? (int64_t)json_integer_value(ax) : 0, s0->ndim, &axis) < 0) return -1;
    n->n_axis = 1;
    n->axis[0] = axis;
    n->oshape = *s0;
    for (int j = 1; j < n->n_in; j++) {
        if (concat_check(x, s0, in_shape(x, j), j, axis, &n->oshape.d[axis])) return -1;
    }
    return 0;
}

static int infer_stack(ictx_t *x)
{
    graph_node_t *n = x->n;
    const shape_t *s0 = in_shape(x, 0);
    n->odtype = input(x, 0)->odtype;
    for (int j = 1; j < n->n_in; j++) {
        if (!shape_eq(in_shape(x, j), s0))
            return FAIL(x, "all input arrays must have the same shape");
        n->odtype = dt_promote(n->odtype, input(x, j)->odtype);
    }
    if (s0->ndim + 1 > MR_MAXDIM) return too_many_dims(x, s0->ndim + 1);
    int axis;
    json_t *ax = x->r->axis;
    if (norm_axis(x, ax ? (int64_t)json_integer_value(ax) : 0, s0->ndim + 1, &axis) < 0) return -1;
    n->n_axis = 1;
    n->axis[0] = axis;
    n->oshape.ndim = s0->ndim + 1;
    for (int d = 0, k = 0; d < n->oshape.ndim; d++)
        n->oshape.d[d] = d == axis ? n->n_in : s0->d[k++];
    return 0;
}

/* Python's slice.indices(len). */
static void slice_indices(const graph_slice_t *sl, int64_t len, index_t *ix)
{
    int64_t step = sl->has_step ? sl->step : 1;
    int64_t lower = step < 0 ? -1 : 0, upper = step < 0 ? len - 1 : len;
    int64_t start = step < 0 ? upper : lower, stop = step < 0 ? lower : upper;
    if (sl->has_start) {
        start = sl->start;
        if (start < 0) {
            start += len;
            if (start < lower) start = lower;
        } else if (start > upper) {
            start = upper;
        }
    }
    if (sl->has_stop) {
        stop = sl->stop;
        if (stop < 0) {
            stop += len;
            if (stop < lower) stop = lower;
        } else if (stop > upper) {
            stop = upper;
        }
    }
    ix->is_int = false;
    ix->start = start;
    ix->stop = stop;
    ix->step = step;
    if (step < 0)
        ix->len = stop < start ? (start - stop - 1) / -step + 1 : 0;
    else
        ix->len = start < stop ? (stop - start - 1) / step + 1 : 0;
}

/* Every axis of the input gets an entry: those past the document's list as
 * whole slices, so n_index is the input's ndim. */
static int infer_getitem(ictx_t *x, const shape_t *s)
{
    graph_node_t *n = x->n;
    json_t *idx = x->r->index;
    size_t cnt = json_array_size(idx);
    /* entries that select along an input axis: integers and slices */
    size_t used = 0, n_new = 0;
    bool ell = false;
    for (size_t k = 0; k < cnt; k++) {
        json_t *e = json_array_get(idx, k);
        if (json_is_null(e))
            n_new++;
        else if (json_is_string(e) && strcmp(json_string_value(e), "...") == 0)
            ell = true;
        else
            used++;
    }
    if (used > (size_t)s->ndim)
        return FAIL(x, "too many indices for array: array is %d-dimensional, but %zu were indexed",
                    s->ndim, used);
    n->n_index = s->ndim;
    n->newaxis = 0;
    n->oshape.ndim = 0;
    int d = 0; /* the input axis next entries select along */
    for (size_t k = 0; k <= cnt; k++) {
        json_t *e = k < cnt ? json_array_get(idx, k) : NULL;
        int upto = d; /* whole slices up to this input axis */
        if (!e) {
            upto = s->ndim; /* the rest, after the last entry */
        } else if (json_is_string(e) && strcmp(json_string_value(e), "...") == 0) {
            upto = d + (s->ndim - (int)used);
        }
        for (; d < upto; d++) {
            if (n->oshape.ndim >= MR_MAXDIM) return too_many_dims(x, s->ndim + (int)n_new);
            graph_slice_t whole = {0};
            slice_indices(&whole, s->d[d], &n->index[d]);
            n->oshape.d[n->oshape.ndim++] = n->index[d].len;
        }
        if (!e || (json_is_string(e) && strcmp(json_string_value(e), "...") == 0)) continue;
        if (json_is_null(e)) {
            if (n->oshape.ndim >= MR_MAXDIM) return too_many_dims(x, s->ndim + (int)n_new);
            n->newaxis |= 1u << n->oshape.ndim;
            n->oshape.d[n->oshape.ndim++] = 1;
            continue;
        }
        index_t *ix = &n->index[d];
        if (json_is_integer(e)) {
            int64_t i = (int64_t)json_integer_value(e);
            if (i < -s->d[d] || i >= s->d[d])
                return FAIL(x, "index %lld is out of bounds for axis %d with size %lld",
                            (long long)i, d, (long long)s->d[d]);
            memset(ix, 0, sizeof *ix);
            ix->is_int = true;
            ix->i = i < 0 ? i + s->d[d] : i;
            d++;
            continue;
        }
        if (n->oshape.ndim >= MR_MAXDIM) return too_many_dims(x, s->ndim + (int)n_new);
        graph_slice_t sl = {0};
        graph_parse_slice(json_string_value(e), &sl); /* checked in the first pass */
        slice_indices(&sl, s->d[d], ix);
        n->oshape.d[n->oshape.ndim++] = ix->len;
        d++;
    }
    (void)ell;
    return 0;
}

/* swapaxes, moveaxis: a permutation (numpy's moveaxis order). */
static int infer_axes_perm(ictx_t *x, const shape_t *s)
{
    graph_node_t *n = x->n;
    int nd = s->ndim;
    for (int d = 0; d < nd; d++)
        n->perm[d] = d;
    if (n->op == OP_SWAPAXES) {
        int a, b;
        if (norm_axis(x, n->axis1, nd, &a) < 0 || norm_axis(x, n->axis2, nd, &b) < 0) return -1;
        n->perm[a] = b;
        n->perm[b] = a;
    } else {
        json_t *sj = x->r->source, *dj = x->r->destination;
        size_t ns = json_is_array(sj) ? json_array_size(sj) : 1;
        size_t nds = json_is_array(dj) ? json_array_size(dj) : 1;
        if (ns != nds)
            return FAIL(x, "`source` and `destination` arguments must have the same number of "
                           "elements");
        if (ns > (size_t)nd) return FAIL(x, "repeated axis in `source` argument");
        int src[MR_MAXDIM], dst[MR_MAXDIM];
        bool su[MR_MAXDIM] = {false}, du[MR_MAXDIM] = {false};
        for (size_t i = 0; i < ns; i++) {
            json_t *a = json_is_array(sj) ? json_array_get(sj, i) : sj;
            json_t *b = json_is_array(dj) ? json_array_get(dj, i) : dj;
            if (norm_axis(x, (int64_t)json_integer_value(a), nd, &src[i]) < 0) return -1;
            if (su[src[i]]) return FAIL(x, "repeated axis in `source` argument");
            su[src[i]] = true;
            if (norm_axis(x, (int64_t)json_integer_value(b), nd, &dst[i]) < 0) return -1;
            if (du[dst[i]]) return FAIL(x, "repeated axis in `destination` argument");
            du[dst[i]] = true;
        }
        /* the other axes in order, then each source inserted at its
         * destination, by increasing destination */
        int order[MR_MAXDIM], m = 0;
        for (int d = 0; d < nd; d++)
            if (!su[d]) order[m++] = d;
        for (int t = 0; t < nd; t++) {
            if (!du[t]) continue;
            size_t i = 0;
            while (dst[i] != t)
                i++;
            for (int k = m; k > t; k--)
                order[k] = order[k - 1];
            order[t] = src[i];
            m++;
        }
        for (int d = 0; d < nd; d++)
            n->perm[d] = order[d];
    }
    n->oshape.ndim = nd;
    for (int d = 0; d < nd; d++)
        n->oshape.d[d] = s->d[n->perm[d]];
    return 0;
}

/* flip, fliplr, flipud: a reversed slice on each flipped axis. */
static int infer_flip(ictx_t *x, const shape_t *s)
{
    graph_node_t *n = x->n;
    int nd = s->ndim;
    bool rev[MR_MAXDIM] = {false};
    if (n->op == OP_FLIPLR) {
        if (nd < 2) return FAIL(x, "Input must be >= 2-d.");
        rev[1] = true;
    } else if (n->op == OP_FLIPUD) {
        if (nd < 1) return FAIL(x, "Input must be >= 1-d.");
        rev[0] = true;
    } else {
        json_t *ax = x->r->axis;
        if (!ax || json_is_null(ax)) {
            for (int d = 0; d < nd; d++)
                rev[d] = true;
        } else {
            size_t na = json_is_array(ax) ? json_array_size(ax) : 1;
            for (size_t i = 0; i < na; i++) {
                json_t *a = json_is_array(ax) ? json_array_get(ax, i) : ax;
                int d;
                if (norm_axis(x, (int64_t)json_integer_value(a), nd, &d) < 0) return -1;
                if (rev[d]) return FAIL(x, "repeated axis");
                rev[d] = true;
            }
        }
    }
    n->n_index = nd;
    n->newaxis = 0;
    n->oshape = *s;
    for (int d = 0; d < nd; d++) {
        graph_slice_t sl = {0};
        if (rev[d]) {
            sl.has_step = true;
            sl.step = -1;
        }
        slice_indices(&sl, s->d[d], &n->index[d]);
    }
    return 0;
}

/* atleast_1d, _2d, _3d: numpy's placement of the added size-1 axes. */
static void infer_atleast(ictx_t *x, const shape_t *s)
{
    graph_node_t *n = x->n;
    int want = n->op == OP_ATLEAST_1D ? 1 : n->op == OP_ATLEAST_2D ? 2 : 3;
    n->oshape = *s;
    if (s->ndim >= want) return;
    if (s->ndim == 0) {
        n->oshape.ndim = want;
        for (int d = 0; d < want; d++)
            n->oshape.d[d] = 1;
    } else if (s->ndim == 1) { /* (N,) -> (1, N) or (1, N, 1) */
        n->oshape.ndim = want;
        n->oshape.d[0] = 1;
        n->oshape.d[1] = s->d[0];
        if (want == 3) n->oshape.d[2] = 1;
    } else { /* (M, N) -> (M, N, 1) */
        n->oshape.ndim = 3;
        n->oshape.d[2] = 1;
    }
}

static int infer_shape_op(ictx_t *x)
{
    graph_node_t *n = x->n;
    int fr = graph_fancy_infer(x->g, n, x->r, x->err, x->errlen);
    if (fr <= 0) return fr;
    if (n->op == OP_CONCATENATE) return infer_concatenate(x);
    if (op_is_stack_family(n->op)) return infer_stack_family(x);
    if (n->op == OP_STACK) return infer_stack(x);
    const shape_t *s = in_shape(x, 0);
    n->odtype = input(x, 0)->odtype;
    switch (n->op) {
    case OP_TRANSPOSE:
        return infer_transpose(x, s);
    case OP_RESHAPE:
        return infer_reshape(x, s);
    case OP_RAVEL:
        n->oshape.ndim = 1;
        n->oshape.d[0] = shape_size(s);
        return 0;
    case OP_SQUEEZE:
        return infer_squeeze(x, s);
    case OP_EXPAND_DIMS:
        return infer_expand_dims(x, s);
    case OP_GETITEM:
        return infer_getitem(x, s);
    case OP_SWAPAXES:
    case OP_MOVEAXIS:
        return infer_axes_perm(x, s);
    case OP_FLIP:
    case OP_FLIPLR:
    case OP_FLIPUD:
        return infer_flip(x, s);
    case OP_ATLEAST_1D:
    case OP_ATLEAST_2D:
    case OP_ATLEAST_3D:
        infer_atleast(x, s);
        return 0;
    case OP_EDIFF1D:
        /* numpy subtracts: bools are refused */
        if (n->odtype == DT_BOOL)
            return FAIL(x, "numpy boolean subtract is not supported; ediff1d of bool");
        n->N = 1;
        n->n_axis = 1;
        n->axis[0] = 0;
        n->oshape.ndim = 1;
        n->oshape.d[0] = shape_size(s) > 0 ? shape_size(s) - 1 : 0;
        return 0;
    case OP_DIFF: {
        if (s->ndim == 0) return FAIL(x, "diff requires input that is at least one dimensional");
        int d;
        if (norm_axis(x, n->axis1, s->ndim, &d) < 0) return -1;
        n->n_axis = 1;
        n->axis[0] = d;
        n->oshape = *s;
        n->oshape.d[d] = s->d[d] > n->N ? s->d[d] - n->N : 0;
        return 0;
    }
    default: /* rechunk */
        n->oshape = *s;
        return 0;
    }
}

/* ---------------------------------------------------------------------------
 * Chunks and limits */

static int expand_chunks(ictx_t *x)
{
    graph_node_t *n = x->n;
    json_t *cs = x->r->chunk_size;
    int nd = n->oshape.ndim;
    if (json_is_integer(cs)) {
        n->n_chunk = nd;
        for (int d = 0; d < nd; d++)
            n->chunk[d] = (int64_t)json_integer_value(cs);
        return 0;
    }
    if (json_array_size(cs) != (size_t)nd)
        return FAIL(x, "\"chunk_size\" has %zu entries for a %d-dimensional result",
                    json_array_size(cs), nd);
    n->n_chunk = nd;
    for (int d = 0; d < nd; d++)
        n->chunk[d] = (int64_t)json_integer_value(json_array_get(cs, (size_t)d));
    return 0;
}

static int check_limits(ictx_t *x, const graph_limits_t *lim)
{
    graph_node_t *n = x->n;
    char sb[1024];
    int64_t elems = 1, bytes;
    bool ovf = false;
    for (int d = 0; d < n->oshape.ndim && !ovf; d++)
        ovf = mul_ovf_i64(elems, n->oshape.d[d], &elems);
    if (ovf) {
        fmt(&n->oshape, sb, sizeof sb);
        return FAIL(x, "shape %s has more elements than an int64 can count", sb);
    }
    if (elems > lim->max_elements) {
        fmt(&n->oshape, sb, sizeof sb);
        return FAIL(x, "shape %s has %lld elements, more than the limit of %lld", sb,
                    (long long)elems, (long long)lim->max_elements);
    }
    if (mul_ovf_i64(elems, (int64_t)dt_size(n->odtype), &bytes)) {
        fmt(&n->oshape, sb, sizeof sb);
        return FAIL(x, "shape %s of %s needs more bytes than an int64 can count", sb,
                    dt_name(n->odtype));
    }
    if (bytes > lim->max_bytes) {
        fmt(&n->oshape, sb, sizeof sb);
        return FAIL(x, "shape %s of %s needs %lld bytes, more than the limit of %lld", sb,
                    dt_name(n->odtype), (long long)bytes, (long long)lim->max_bytes);
    }
    return 0;
}

int graph_infer_node(graph_t *g, int i, const graph_raw_t *raw, const graph_limits_t *lim,
                     char *err, size_t errlen)
{
    ictx_t x = {g, &g->nodes[i], raw, err, errlen};
    graph_node_t *n = x.n;
    int rc = graph_df_infer(g, i, err, errlen);
    if (rc <= 0) return rc;
    if (n->n_outputs) /* multiout: one result of an op with several */
        return graph_multi_infer(g, i, raw, err, errlen) < 0 ? -1 : check_limits(&x, lim);
    if (graph_setops_owns(n->op)) /* setops: setops.h */
        return graph_setops_infer(g, i, err, errlen) < 0 ? -1 : check_limits(&x, lim);
    if (graph_shapes2_owns(n->op)) { /* shapes: shapes2.h */
        if (graph_shapes2_infer(g, i, raw, err, errlen) < 0) return -1;
        if (raw->chunk_size && expand_chunks(&x) < 0) return -1;
        return check_limits(&x, lim);
    }
    rc = 0;
    switch (op_kind(n->op)) {
    case OPK_DF:
        return graph_fail(err, errlen, n, "internal: dataframe op not inferred");
    case OPK_CREATE:
    case OPK_RANDOM:
    case OPK_SOURCE:
        if (op_is_like(n->op)) {
            /* the input's shape and dtype unless given; its values unread */
            const graph_node_t *a = input(&x, 0);
            if (a->vkind != VK_TENSOR)
                return FAIL(&x, "input \"%s\" is a DataFrame or Series, not a tensor", a->key);
            n->shape = n->has_shape ? n->shape : a->oshape;
            n->dtype = n->has_dtype ? n->dtype : a->odtype;
        }
        n->oshape = n->shape;
        n->odtype = n->dtype;
        break;
    case OPK_UNARY:
    case OPK_BINARY:
    case OPK_WHERE:
    case OPK_CLIP:
    case OPK_ASTYPE:
        rc = infer_ew(&x);
        break;
    case OPK_REDUCE:
        rc = infer_reduce(&x);
        break;
    case OPK_ARGREDUCE:
        rc = infer_argreduce(&x);
        break;
    case OPK_SCAN:
        rc = infer_scan(&x);
        break;
    case OPK_LINALG:
        rc = graph_la_owns(n->op) ? graph_la_infer(g, i, err, errlen) : infer_linalg(&x);
        break;
    case OPK_SHAPE:
        rc = infer_shape_op(&x);
        break;
    case OPK_SORTSTAT:
        rc = graph_ss_infer(g, n, err, errlen);
        break;
    }
    if (rc < 0) return -1;
    if (raw->chunk_size && expand_chunks(&x) < 0) return -1;
    return check_limits(&x, lim);
}
