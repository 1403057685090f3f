/* graph_shapes2.c: parameters and inference of logspace, geomspace,
 * indices, roll, broadcast_to, tile, repeat and pad (shapes2.h), with
 * numpy 1.24's rules and messages. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "df/dfgraph.h"
#include "graph_internal.h"
#include "shapes2.h"

#define FAIL(n, ...) graph_fail(err, errlen, (n), __VA_ARGS__)

bool graph_shapes2_owns(op_t op)
{
    switch (op) {
    case OP_LOGSPACE:
    case OP_GEOMSPACE:
    case OP_INDICES:
    case OP_ROLL:
    case OP_BROADCAST_TO:
    case OP_TILE:
    case OP_REPEAT:
    case OP_PAD:
        return true;
    default:
        return false;
    }
}

void graph_shapes2_free(sh2_node_t *s)
{
    if (!s) return;
    free(s->list);
    free(s);
}

static const char *const *fields_of(op_t op)
{
    static const char *const logspace[] = {"start", "stop",  "num",        "endpoint",
                                           "base",  "dtype", "chunk_size", NULL};
    static const char *const geomspace[] = {"start", "stop",       "num", "endpoint",
                                            "dtype", "chunk_size", NULL};
    static const char *const indices[] = {"dimensions", "dtype", "chunk_size", NULL};
    static const char *const roll[] = {"shift", "axis", NULL};
    static const char *const bcast[] = {"shape", NULL};
    static const char *const tile[] = {"reps", NULL};
    static const char *const repeat[] = {"repeats", "axis", NULL};
    static const char *const pad[] = {"pad_width", "mode", "constant_values", NULL};
    switch (op) {
    case OP_LOGSPACE:
        return logspace;
    case OP_GEOMSPACE:
        return geomspace;
    case OP_INDICES:
        return indices;
    case OP_ROLL:
        return roll;
    case OP_BROADCAST_TO:
        return bcast;
    case OP_TILE:
        return tile;
    case OP_REPEAT:
        return repeat;
    default:
        return pad;
    }
}

static bool is_int_list(json_t *v)
{
    if (!json_is_array(v)) return false;
    for (size_t i = 0; i < json_array_size(v); i++)
        if (!json_is_integer(json_array_get(v, i))) return false;
    return true;
}

static bool is_number(json_t *v)
{
    return json_is_integer(v) || json_is_real(v);
}

static int get_number(graph_node_t *n, json_t *obj, const char *name, bool required, double *out,
                      char *err, size_t errlen)
{
    json_t *v = json_object_get(obj, name);
    if (!v) return required ? FAIL(n, "\"%s\" is missing", name) : 0;
    if (!is_number(v)) return FAIL(n, "\"%s\" must be a number", name);
    *out = json_number_value(v);
    return 1;
}

/* logspace, geomspace: start, stop, num, endpoint (linspace's), dtype */
static int parse_space(graph_node_t *n, json_t *obj, char *err, size_t errlen)
{
    double start = 0, stop = 0, base = 10.0;
    if (get_number(n, obj, "start", true, &start, err, errlen) < 0 ||
        get_number(n, obj, "stop", true, &stop, err, errlen) < 0)
        return -1;
    json_t *sj = json_object_get(obj, "start"), *ej = json_object_get(obj, "stop");
    n->start = json_is_integer(sj) ? sc_int((int64_t)json_integer_value(sj)) : sc_float(start);
    n->stop = json_is_integer(ej) ? sc_int((int64_t)json_integer_value(ej)) : sc_float(stop);
    n->num = 50;
    n->endpoint = true;
    json_t *v;
    if ((v = json_object_get(obj, "num"))) {
        if (!json_is_integer(v)) return FAIL(n, "\"num\" must be an integer");
        n->num = (int64_t)json_integer_value(v);
    }
    if (n->num < 0)
        return FAIL(n, "Number of samples, %lld, must be non-negative.", (long long)n->num);
    if ((v = json_object_get(obj, "endpoint"))) {
        if (!json_is_boolean(v)) return FAIL(n, "\"endpoint\" must be a boolean");
        n->endpoint = json_is_true(v);
    }
    if (n->op == OP_LOGSPACE) {
        if (get_number(n, obj, "base", false, &base, err, errlen) < 0) return -1;
        n->step = sc_float(base); /* logspace keeps its base in step */
    } else if (start == 0 || stop == 0) {
        return FAIL(n, "Geometric sequence cannot include zero");
    }
    n->shape.ndim = 1;
    n->shape.d[0] = n->num;
    return 0;
}

static int parse_indices(graph_node_t *n, json_t *obj, char *err, size_t errlen)
{
    json_t *v = json_object_get(obj, "dimensions");
    if (!v) return FAIL(n, "\"dimensions\" is missing");
    if (!is_int_list(v)) return FAIL(n, "\"dimensions\" must be a list of integers");
    size_t m = json_array_size(v);
    if (m + 1 > MR_MAXDIM)
        return FAIL(n, "maximum supported dimension for an ndarray is %d, found %zu", MR_MAXDIM,
                    m + 1);
    n->shape.ndim = (int)m + 1;
    n->shape.d[0] = (int64_t)m;
    for (size_t i = 0; i < m; i++) {
        n->shape.d[i + 1] = (int64_t)json_integer_value(json_array_get(v, i));
        if (n->shape.d[i + 1] < 0) return FAIL(n, "negative dimensions are not allowed");
        if (n->dtype == DT_BOOL && n->shape.d[i + 1] > 2) /* numpy's arange of each */
            return FAIL(n, "arange() is only supported for booleans when the result has at "
                           "most length 2.");
    }
    return 0;
}

/* The pad mode named m (numpy's names), or -1 for one this engine lacks. */
static int pad_mode_of(const char *m)
{
    static const char *const names[] = {"constant", "edge", "reflect", "symmetric", "wrap"};
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (!strcmp(m, names[i])) return i;
    return -1;
}

int graph_shapes2_parse(graph_node_t *n, void *rawp, void *json_obj, char *err, size_t errlen)
{
    graph_raw_t *r = rawp;
    json_t *obj = json_obj;
    const char *const *f = fields_of(n->op);
    const char *name;
    json_t *v;
    json_object_foreach(obj, name, v)
    {
        if (!strcmp(name, "key") || !strcmp(name, "op") || !strcmp(name, "inputs")) continue;
        int i = 0;
        while (f[i] && strcmp(f[i], name) != 0)
            i++;
        if (f[i]) continue;
        char eb[49];
        snprintf(eb, sizeof eb, "%s", name);
        for (char *p = eb; *p; p++)
            if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\') *p = '?';
        if (!strcmp(name, "outputs"))
            return FAIL(n, "takes no \"outputs\": %s has one result", op_name(n->op));
        return FAIL(n, "unknown field \"%s\"", eb);
    }
    if ((v = json_object_get(obj, "dtype"))) {
        if (!json_is_string(v) || dt_parse(json_string_value(v), &n->dtype) != 0)
            return FAIL(n, "\"dtype\" must be one of " DT_NAMES);
        n->has_dtype = true;
    }
    if ((v = json_object_get(obj, "chunk_size"))) {
        bool ok = json_is_integer(v) && json_integer_value(v) > 0;
        if (json_is_array(v)) {
            ok = true;
            for (size_t i = 0; i < json_array_size(v); i++) {
                json_t *e = json_array_get(v, i);
                ok &= json_is_integer(e) && json_integer_value(e) > 0;
            }
        }
        if (!ok)
            return FAIL(n, "\"chunk_size\" must be a positive integer or a list of positive "
                           "integers");
        r->chunk_size = v;
    }
    switch (n->op) {
    case OP_LOGSPACE:
    case OP_GEOMSPACE:
        if (!n->has_dtype) n->dtype = DT_FLOAT64;
        return parse_space(n, obj, err, errlen);
    case OP_INDICES:
        if (!n->has_dtype) n->dtype = DT_INT64;
        return parse_indices(n, obj, err, errlen);
    case OP_ROLL:
        if (!(v = json_object_get(obj, "shift"))) return FAIL(n, "\"shift\" is missing");
        if (!json_is_integer(v) && !is_int_list(v))
            return FAIL(n, "\"shift\" must be an integer or a list of integers");
        v = json_object_get(obj, "axis");
        if (v && !json_is_null(v) && !json_is_integer(v) && !is_int_list(v))
            return FAIL(n, "\"axis\" must be null, an integer or a list of integers");
        return 0;
    case OP_BROADCAST_TO:
        if (!(v = json_object_get(obj, "shape"))) return FAIL(n, "\"shape\" is missing");
        if (!json_is_integer(v) && !is_int_list(v))
            return FAIL(n, "\"shape\" must be an integer or a list of integers");
        if (json_is_array(v) && json_array_size(v) > MR_MAXDIM)
            return FAIL(n, "maximum supported dimension for an ndarray is %d, found %zu", MR_MAXDIM,
                        json_array_size(v));
        return 0;
    case OP_TILE:
        if (!(v = json_object_get(obj, "reps"))) return FAIL(n, "\"reps\" is missing");
        if (!json_is_integer(v) && !is_int_list(v))
            return FAIL(n, "\"reps\" must be an integer or a list of integers");
        if (json_is_array(v) && json_array_size(v) > MR_MAXDIM)
            return FAIL(n, "maximum supported dimension for an ndarray is %d, found %zu", MR_MAXDIM,
                        json_array_size(v));
        return 0;
    case OP_REPEAT:
        if (!(v = json_object_get(obj, "repeats"))) return FAIL(n, "\"repeats\" is missing");
        if (!json_is_integer(v) && !is_int_list(v))
            return FAIL(n, "\"repeats\" must be an integer or a list of integers");
        v = json_object_get(obj, "axis");
        if (v && !json_is_null(v) && !json_is_integer(v))
            return FAIL(n, "\"axis\" must be null or an integer");
        return 0;
    default: { /* pad */
        if (!json_object_get(obj, "pad_width")) return FAIL(n, "\"pad_width\" is missing");
        const char *mode = "constant";
        if ((v = json_object_get(obj, "mode"))) {
            if (!json_is_string(v)) return FAIL(n, "\"mode\" must be a string");
            mode = json_string_value(v);
        }
        static const char *const other[] = {"empty",  "linear_ramp", "maximum", "mean",
                                            "median", "minimum",     NULL};
        if (pad_mode_of(mode) < 0) {
            char eb[49];
            snprintf(eb, sizeof eb, "%s", mode);
            for (char *p = eb; *p; p++)
                if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\') *p = '?';
            for (int i = 0; other[i]; i++)
                if (!strcmp(mode, other[i]))
                    return FAIL(n,
                                "mode '%s' is not supported yet (constant, edge, reflect, "
                                "symmetric and wrap are)",
                                eb);
            return FAIL(n, "mode '%s' is not supported", eb);
        }
        if (strcmp(mode, "constant") != 0 && json_object_get(obj, "constant_values"))
            return FAIL(n, "unsupported keyword arguments for mode '%s': {'constant_values'}",
                        mode);
        return 0;
    }
    }
}

/* ------------------------------------------------------------------ inference */

static const graph_node_t *in0(graph_t *g, graph_node_t *n)
{
    return n->n_in > 0 && n->in[0].node >= 0 ? &g->nodes[n->in[0].node] : NULL;
}

/* numpy's normalize_axis_index: 0, or -1 with numpy's AxisError text. */
static int norm_axis(graph_node_t *n, int64_t ax, int ndim, int *out, char *err, size_t errlen)
{
    if (ax < -(int64_t)ndim || ax >= ndim)
        return FAIL(n, "axis %lld is out of bounds for array of dimension %d", (long long)ax, ndim);
    *out = (int)(ax < 0 ? ax + ndim : ax);
    return 0;
}

/* A shape as numpy prints it: (2,3), (3,), () */
static void fmt_dims(const int64_t *d, int nd, char *buf, size_t len)
{
    size_t o = 0;
    o += (size_t)snprintf(buf + o, len - o, "(");
    for (int i = 0; i < nd && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%lld%s", (long long)d[i],
                              nd == 1      ? ","
                              : i + 1 < nd ? ","
                                           : "");
    if (o < len) snprintf(buf + o, len - o, ")");
}

/* x mod m in [0, m) for m > 0 */
static int64_t pymod(int64_t x, int64_t m)
{
    int64_t r = x % m;
    return r < 0 ? r + m : r;
}

static int infer_roll(graph_node_t *n, const graph_node_t *a, json_t *obj, sh2_node_t *s, char *err,
                      size_t errlen)
{
    json_t *sj = json_object_get(obj, "shift"), *aj = json_object_get(obj, "axis");
    int nd = a->oshape.ndim;
    size_t ns = json_is_array(sj) ? json_array_size(sj) : 1;
    bool sl = json_is_array(sj);
    if (!aj || json_is_null(aj)) { /* the flattened input: every shift on its one axis */
        s->flat = true;
        int64_t size = shape_size(&a->oshape);
        for (size_t i = 0; i < ns && size > 0; i++) {
            int64_t v = (int64_t)json_integer_value(sl ? json_array_get(sj, i) : sj);
            s->shift[0] = pymod(s->shift[0] + pymod(v, size), size);
        }
        return 0;
    }
    bool al = json_is_array(aj);
    size_t na = al ? json_array_size(aj) : 1;
    /* numpy broadcasts shift against axis */
    if (sl && al && ns != na && ns != 1 && na != 1)
        return FAIL(n,
                    "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is "
                    "between arg 0 with shape (%zu,) and arg 1 with shape (%zu,).",
                    ns, na);
    size_t cnt = !sl && !al ? 1 : sl && al ? (ns > na ? ns : na) : sl ? ns : na;
    if ((sl && ns == 0) || (al && na == 0)) cnt = 0;
    for (size_t i = 0; i < cnt; i++) {
        int64_t v = (int64_t)json_integer_value(sl ? json_array_get(sj, ns == 1 ? 0 : i) : sj);
        int64_t ax = (int64_t)json_integer_value(al ? json_array_get(aj, na == 1 ? 0 : i) : aj);
        int d = 0;
        if (norm_axis(n, ax, nd, &d, err, errlen) < 0) return -1;
        int64_t len = a->oshape.d[d];
        if (len > 0) s->shift[d] = pymod(s->shift[d] + pymod(v, len), len);
    }
    if (cnt == 0 && al) /* numpy still checks the axes */
        for (size_t i = 0; i < na; i++) {
            int d = 0;
            if (norm_axis(n, (int64_t)json_integer_value(json_array_get(aj, i)), nd, &d, err,
                          errlen) < 0)
                return -1;
        }
    return 0;
}

static int infer_bcast(graph_node_t *n, const graph_node_t *a, json_t *obj, char *err,
                       size_t errlen)
{
    json_t *v = json_object_get(obj, "shape");
    shape_t t = {0};
    if (json_is_integer(v)) {
        t.ndim = 1;
        t.d[0] = (int64_t)json_integer_value(v);
    } else {
        t.ndim = (int)json_array_size(v);
        for (int i = 0; i < t.ndim; i++)
            t.d[i] = (int64_t)json_integer_value(json_array_get(v, (size_t)i));
    }
    for (int i = 0; i < t.ndim; i++)
        if (t.d[i] < 0) return FAIL(n, "all elements of broadcast shape must be non-negative");
    const shape_t *s = &a->oshape;
    if (s->ndim > t.ndim)
        return FAIL(n, "input operand has more dimensions than allowed by the axis remapping");
    for (int i = 0; i < s->ndim; i++) {
        int64_t x = s->d[i], y = t.d[t.ndim - s->ndim + i];
        if (x != 1 && x != y) {
            char b1[800], b2[800];
            fmt_dims(s->d, s->ndim, b1, sizeof b1);
            fmt_dims(t.d, t.ndim, b2, sizeof b2);
            return FAIL(n,
                        "operands could not be broadcast together with remapped shapes "
                        "[original->remapped]: %s  and requested shape %s",
                        b1, b2);
        }
    }
    n->oshape = t;
    return 0;
}

static int infer_tile(graph_node_t *n, const graph_node_t *a, json_t *obj, sh2_node_t *s, char *err,
                      size_t errlen)
{
    json_t *v = json_object_get(obj, "reps");
    int nr = json_is_integer(v) ? 1 : (int)json_array_size(v);
    int64_t reps[MR_MAXDIM];
    for (int i = 0; i < nr; i++) {
        reps[i] =
            (int64_t)json_integer_value(json_is_integer(v) ? v : json_array_get(v, (size_t)i));
        if (reps[i] < 0) return FAIL(n, "negative dimensions are not allowed");
    }
    int an = a->oshape.ndim, d = an > nr ? an : nr;
    s->nd = d;
    n->oshape.ndim = d;
    for (int i = 0; i < d; i++) {
        int ri = i - (d - nr), ai = i - (d - an);
        s->reps[i] = ri >= 0 ? reps[ri] : 1;
        int64_t len = ai >= 0 ? a->oshape.d[ai] : 1;
        if (mul_ovf_i64(len, s->reps[i], &n->oshape.d[i]))
            return FAIL(n, "the result has more elements than an int64 can count");
    }
    return 0;
}

static int infer_repeat(graph_node_t *n, const graph_node_t *a, json_t *obj, sh2_node_t *s,
                        char *err, size_t errlen)
{
    json_t *rj = json_object_get(obj, "repeats"), *aj = json_object_get(obj, "axis");
    int nd = a->oshape.ndim;
    int64_t len;
    if (!aj || json_is_null(aj) || nd == 0) {
        if (aj && !json_is_null(aj)) { /* a 0-d input: numpy takes axis 0 (or -1) */
            int d;
            if (norm_axis(n, (int64_t)json_integer_value(aj), 1, &d, err, errlen) < 0) return -1;
        }
        s->flat = true;
        s->axis = 0;
        len = shape_size(&a->oshape);
    } else {
        if (norm_axis(n, (int64_t)json_integer_value(aj), nd, &s->axis, err, errlen) < 0) return -1;
        len = a->oshape.d[s->axis];
    }
    int64_t total = 0;
    if (json_is_integer(rj) || json_array_size(rj) == 1) {
        s->rep = (int64_t)json_integer_value(json_is_integer(rj) ? rj : json_array_get(rj, 0));
        if (s->rep < 0)
            return FAIL(n, json_is_integer(rj) ? "negative dimensions are not allowed"
                                               : "repeats may not contain negative values.");
        if (mul_ovf_i64(len, s->rep, &total))
            return FAIL(n, "the result has more elements than an int64 can count");
    } else {
        int64_t m = (int64_t)json_array_size(rj);
        if (m != len)
            return FAIL(n, "operands could not be broadcast together with shape (%lld,) (%lld,)",
                        (long long)len, (long long)m);
        for (int64_t i = 0; i < m; i++)
            if (json_integer_value(json_array_get(rj, (size_t)i)) < 0)
                return FAIL(n, "repeats may not contain negative values.");
        s->list = malloc(sizeof(int64_t) * (size_t)(m + 1));
        if (!s->list) return FAIL(n, "out of memory");
        s->n_list = m;
        for (int64_t i = 0; i < m; i++) {
            s->list[i] = (int64_t)json_integer_value(json_array_get(rj, (size_t)i));
            if (add_ovf_i64(total, s->list[i], &total))
                return FAIL(n, "the result has more elements than an int64 can count");
        }
    }
    if (s->flat) {
        n->oshape.ndim = 1;
        n->oshape.d[0] = total;
    } else {
        n->oshape = a->oshape;
        n->oshape.d[s->axis] = total;
    }
    return 0;
}

/* numpy's _as_pairs(x, ndim): x an integer, a list, or a list of lists,
 * made one (before, after) pair per axis. as_index: pad_width (no negative
 * values). Values as scalars into lo[], hi[]. */
static int as_pairs(graph_node_t *n, json_t *x, int ndim, bool as_index, const char *what,
                    scalar_t *lo, scalar_t *hi, char *err, size_t errlen)
{
    /* the array's shape (r x c, or a flat list of c, or one value) */
    int rank;
    size_t rows = 1, cols = 1;
    scalar_t v[2 * MR_MAXDIM + 2];
    size_t nv = 0;
    bool bad = false;
    if (!json_is_array(x)) {
        rank = 0;
        if (!is_number(x) && !json_is_boolean(x)) bad = true;
    } else if (json_array_size(x) > 0 && json_is_array(json_array_get(x, 0))) {
        rank = 2;
        rows = json_array_size(x);
        cols = json_array_size(json_array_get(x, 0));
        for (size_t i = 0; i < rows; i++) {
            json_t *r = json_array_get(x, i);
            if (!json_is_array(r) || json_array_size(r) != cols) bad = true;
        }
    } else {
        rank = 1;
        cols = json_array_size(x);
    }
    if (!bad && rows * cols > sizeof v / sizeof v[0]) {
        char b2[64];
        snprintf(b2, sizeof b2, "(%d,2)", ndim);
        return FAIL(n,
                    "operands could not be broadcast together with remapped shapes "
                    "[original->remapped]: (%zu,%zu)  and requested shape %s",
                    rows, cols, b2);
    }
    for (size_t i = 0; !bad && i < rows; i++)
        for (size_t j = 0; !bad && j < cols; j++) {
            json_t *e = rank == 0   ? x
                        : rank == 1 ? json_array_get(x, j)
                                    : json_array_get(json_array_get(x, i), j);
            if (as_index ? !json_is_integer(e) : !(is_number(e) || json_is_boolean(e))) {
                bad = true;
                break;
            }
            v[nv++] = json_is_integer(e)   ? sc_int((int64_t)json_integer_value(e))
                      : json_is_boolean(e) ? sc_bool(json_is_true(e))
                                           : sc_float(json_real_value(e));
        }
    if (bad)
        return FAIL(n,
                    "\"%s\" must be %s, a list of them, or a list of lists of one length (one "
                    "(before, after) pair per axis)",
                    what, as_index ? "an integer" : "a number");
    if (as_index)
        for (size_t i = 0; i < nv; i++)
            if (v[i].i < 0) return FAIL(n, "index can't contain negative values");
    if (nv == 1) {
        for (int d = 0; d < ndim; d++)
            lo[d] = hi[d] = v[0];
        return 0;
    }
    if (nv == 2 && !(rank == 2 && rows == 2 && cols == 1)) {
        for (int d = 0; d < ndim; d++) {
            lo[d] = v[0];
            hi[d] = v[1];
        }
        return 0;
    }
    /* broadcast to (ndim, 2) */
    if (rank == 1) rows = 1; /* a flat list is one row */
    bool ok = rank >= 1 && (rows == 1 || rows == (size_t)ndim) && (cols == 1 || cols == 2);
    if (!ok) {
        char b1[64], b2[64];
        if (rank == 1)
            snprintf(b1, sizeof b1, "(%zu,)", cols);
        else
            snprintf(b1, sizeof b1, "(%zu,%zu)", rows, cols);
        snprintf(b2, sizeof b2, "(%d,2)", ndim);
        return FAIL(n,
                    "operands could not be broadcast together with remapped shapes "
                    "[original->remapped]: %s  and requested shape %s",
                    b1, b2);
    }
    for (int d = 0; d < ndim; d++) {
        size_t r = rows == 1 ? 0 : (size_t)d;
        lo[d] = v[r * cols];
        hi[d] = v[r * cols + (cols == 2 ? 1 : 0)];
    }
    return 0;
}

static int infer_pad(graph_node_t *n, const graph_node_t *a, json_t *obj, sh2_node_t *s, char *err,
                     size_t errlen)
{
    int nd = a->oshape.ndim;
    json_t *mj = json_object_get(obj, "mode");
    s->pad_mode = mj ? pad_mode_of(json_string_value(mj)) : PAD_CONSTANT;
    scalar_t lo[MR_MAXDIM], hi[MR_MAXDIM];
    if (as_pairs(n, json_object_get(obj, "pad_width"), nd, true, "pad_width", lo, hi, err, errlen) <
        0)
        return -1;
    for (int d = 0; d < nd; d++) {
        s->before[d] = lo[d].i;
        s->after[d] = hi[d].i;
        s->cbefore[d] = s->cafter[d] = sc_int(0);
    }
    json_t *cv = json_object_get(obj, "constant_values");
    if (cv && as_pairs(n, cv, nd, false, "constant_values", s->cbefore, s->cafter, err, errlen) < 0)
        return -1;
    n->oshape = a->oshape;
    bool empty = shape_size(&a->oshape) == 0;
    for (int d = 0; d < nd; d++) {
        if (s->pad_mode != PAD_CONSTANT && empty && a->oshape.d[d] == 0 &&
            (s->before[d] || s->after[d]))
            return FAIL(n,
                        "can't extend empty axis %d using modes other than 'constant' or "
                        "'empty'",
                        d);
        if (add_ovf_i64(n->oshape.d[d], s->before[d], &n->oshape.d[d]) ||
            add_ovf_i64(n->oshape.d[d], s->after[d], &n->oshape.d[d]))
            return FAIL(n, "the result has more elements than an int64 can count");
    }
    return 0;
}

int graph_shapes2_infer(graph_t *g, int i, const void *rawp, char *err, size_t errlen)
{
    const graph_raw_t *r = rawp;
    graph_node_t *n = &g->nodes[i];
    n->vkind = VK_TENSOR;
    if (op_kind(n->op) == OPK_CREATE) {
        n->oshape = n->shape;
        n->odtype = n->dtype;
        return 0;
    }
    const graph_node_t *a = in0(g, n);
    if (!a) return FAIL(n, "inputs[0] must be a tensor");
    if (a->vkind != VK_TENSOR)
        return FAIL(n, "input \"%s\" is a DataFrame or Series, not a tensor", a->key);
    if (a->df && a->df->held)
        return FAIL(n,
                    "input \"%s\" has a length known only when it runs; %s takes tensors of "
                    "a known shape",
                    a->key, op_name(n->op));
    n->odtype = a->odtype;
    json_t *obj = r->obj;
    if (n->op == OP_BROADCAST_TO) return infer_bcast(n, a, obj, err, errlen);
    sh2_node_t *s = calloc(1, sizeof *s);
    if (!s) return FAIL(n, "out of memory");
    n->sh2 = s;
    switch (n->op) {
    case OP_ROLL:
        n->oshape = a->oshape;
        return infer_roll(n, a, obj, s, err, errlen);
    case OP_TILE:
        return infer_tile(n, a, obj, s, err, errlen);
    case OP_REPEAT:
        return infer_repeat(n, a, obj, s, err, errlen);
    default:
        return infer_pad(n, a, obj, s, err, errlen);
    }
}
