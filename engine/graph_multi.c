/* graph_multi.c: ops with several results (docs/graph-format.md, "Ops with
 * several results"): split, array_split, hsplit, vsplit, meshgrid, nonzero
 * and one-argument where.
 *
 * A document node {"key": "s", "op": "split", ..., "outputs": ["a", "b"]}
 * is parsed (graph.c) into one graph node per output, keyed by the output,
 * with op_key "s", out_index 0, 1 and n_outputs 2; "s" itself is no node.
 * Each output node is then an ordinary tensor node: inferred here, tiled on
 * its own (tile/multi.c), fetched and kept in a session under its own key.
 * Every output node checks the whole op (its parameters and its output
 * count), so a bad document fails on the first one, naming the op's key. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "df/dfgraph.h"
#include "graph_internal.h"
#include "la2.h"
#include "setops.h"

#define FAIL(n, ...) graph_fail(err, errlen, (n), __VA_ARGS__)

bool graph_multi_op(op_t op)
{
    switch (op) {
    case OP_SPLIT:
    case OP_ARRAY_SPLIT:
    case OP_HSPLIT:
    case OP_VSPLIT:
    case OP_MESHGRID:
    case OP_NONZERO:
    case OP_UNIQUE:
    case OP_HISTOGRAM:
        return true;
    default:
        return graph_la2_op(op); /* la2.h */
    }
}

/* unique's flags, in numpy's order of the results they add; equal_nan last */
static const char *const unique_flags[] = {"return_index", "return_inverse", "return_counts",
                                           "equal_nan"};

bool graph_multi_lone(op_t op, json_t *obj)
{
    if (op != OP_UNIQUE || json_object_get(obj, "outputs")) return false;
    for (int k = 0; k < 3; k++)
        if (json_is_true(json_object_get(obj, unique_flags[k]))) return false;
    return true;
}

bool graph_multi_arity(op_t op, int *lo, int *hi)
{
    if (!graph_multi_op(op)) return false;
    *lo = *hi = 1;
    if (op == OP_MESHGRID) *hi = INT32_MAX;
    if (op == OP_HISTOGRAM) *hi = 3;      /* [a], [a, bin_edges], then weights with "weights" */
    if (op == OP_LA_LSTSQ) *lo = *hi = 2; /* la2.h: [a, b] */
    return true;
}

const char *graph_multi_outputs(op_t op)
{
    switch (op) {
    case OP_SPLIT:
    case OP_ARRAY_SPLIT:
    case OP_HSPLIT:
    case OP_VSPLIT:
        return "sections"; /* indices_or_sections: N, or len(indices) + 1 */
    case OP_MESHGRID:
        return "inputs"; /* one per input */
    case OP_NONZERO:
        return "ndim"; /* one per axis of the input */
    case OP_UNIQUE:
        return "flags"; /* 1 + one per return_* flag set */
    case OP_HISTOGRAM:
        return "2"; /* hist, bin_edges */
    case OP_LA_QR:
    case OP_LA_EIGH:
    case OP_LA_SLOGDET:
        return "2";
    case OP_LA_SVD:
        return "compute_uv"; /* 3 (u, s, vh), or 1 (s) with compute_uv false */
    case OP_LA_LSTSQ:
        return "4"; /* x, residuals, rank, s */
    default:
        return NULL;
    }
}

/* The fields op takes besides key, op, inputs and outputs. */
static const char *const *fields(op_t op)
{
    static const char *const split[] = {"indices_or_sections", "axis", NULL};
    static const char *const hv[] = {"indices_or_sections", NULL};
    static const char *const mesh[] = {"indexing", "sparse", "copy", NULL};
    static const char *const none[] = {NULL};
    static const char *const uniq[] = {"return_index", "return_inverse", "return_counts",
                                       "axis",         "equal_nan",      NULL};
    static const char *const hist[] = {"bins", "range", "density", "weights", NULL};
    switch (op) {
    case OP_HISTOGRAM:
        return hist;
    case OP_UNIQUE:
        return uniq;
    case OP_SPLIT:
    case OP_ARRAY_SPLIT:
        return split;
    case OP_HSPLIT:
    case OP_VSPLIT:
        return hv;
    case OP_MESHGRID:
        return mesh;
    default:
        return graph_la2_op(op) ? graph_la2_fields(op) : none;
    }
}

int graph_multi_check(graph_node_t *n, json_t *obj, char *err, size_t errlen)
{
    if (n->op == OP_INTERSECT1D) /* setops: with return_indices, 3 results */
        return graph_setops_parse(n, obj, err, errlen);
    const char *name;
    json_t *v;
    const char *const *f = fields(n->op);
    json_object_foreach(obj, name, v)
    {
        if (!strcmp(name, "key") || !strcmp(name, "op") || !strcmp(name, "inputs") ||
            !strcmp(name, "outputs"))
            continue;
        bool ok = false;
        for (int i = 0; f[i] && !ok; i++)
            ok = strcmp(name, f[i]) == 0;
        if (!ok) {
            char nm[49];
            snprintf(nm, sizeof nm, "%s", name);
            for (char *p = nm; *p; p++)
                if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\') *p = '?';
            return FAIL(n, "unknown field \"%s\"", nm);
        }
    }
    if (n->op == OP_MESHGRID) {
        json_t *ix = json_object_get(obj, "indexing");
        n->mo_flag = false;
        if (ix) {
            const char *s = json_is_string(ix) ? json_string_value(ix) : "";
            if (strcmp(s, "xy") != 0 && strcmp(s, "ij") != 0)
                return FAIL(n, "Valid values for `indexing` are 'xy' and 'ij'.");
            n->mo_flag = strcmp(s, "ij") == 0;
        }
        json_t *sp = json_object_get(obj, "sparse"), *cp = json_object_get(obj, "copy");
        if (sp && !json_is_boolean(sp)) return FAIL(n, "\"sparse\" must be a boolean");
        if (cp && !json_is_boolean(cp)) return FAIL(n, "\"copy\" must be a boolean");
        n->mo_sparse = sp && json_is_true(sp);
        return 0;
    }
    if (n->op == OP_NONZERO || n->op == OP_WHERE) return 0;
    if (graph_la2_op(n->op)) return graph_la2_check(n, obj, err, errlen);
    if (n->op == OP_HISTOGRAM) {
        json_t *b = json_object_get(obj, "bins"), *r = json_object_get(obj, "range"),
               *de = json_object_get(obj, "density");
        n->mo_bins = 10;
        json_t *wt = json_object_get(obj, "weights"); /* setops: the last input is weights */
        if (wt && !json_is_boolean(wt))
            return FAIL(n, "\"weights\" must be a boolean (true: the last input is the weights)");
        n->mo_weighted = wt && json_is_true(wt);
        if (n->mo_weighted && n->n_in < 2)
            return FAIL(n, "\"weights\" is true, but no input after a gives them");
        if (b && n->n_in - (n->mo_weighted ? 1 : 0) == 2)
            return FAIL(n, "\"bins\" is given twice: as a field and as inputs[1] (the edges)");
        if (b) {
            if (!json_is_integer(b)) return FAIL(n, "\"bins\" must be an integer (or inputs[1])");
            if (json_integer_value(b) < 1)
                return FAIL(n, "`bins` must be positive, when an integer");
            n->mo_bins = (int64_t)json_integer_value(b);
        }
        if (r && !json_is_null(r)) {
            if (!json_is_array(r) || json_array_size(r) != 2 ||
                !json_is_number(json_array_get(r, 0)) || !json_is_number(json_array_get(r, 1)))
                return FAIL(n, "\"range\" must be null or a pair of numbers [min, max]");
            n->mo_lo = json_number_value(json_array_get(r, 0));
            n->mo_hi = json_number_value(json_array_get(r, 1));
            if (n->mo_lo > n->mo_hi)
                return FAIL(n, "max must be larger than min in range parameter.");
            if (!isfinite(n->mo_lo) || !isfinite(n->mo_hi))
                return FAIL(n, "supplied range of [%g, %g] is not finite", n->mo_lo, n->mo_hi);
            n->mo_has_range = true;
        }
        if (de && !json_is_boolean(de)) return FAIL(n, "\"density\" must be a boolean");
        n->mo_density = de && json_is_true(de);
        if (n->n_outputs != 2)
            return FAIL(n, "histogram gives 2 results (hist, bin_edges), but \"outputs\" names %d",
                        n->n_outputs);
        return 0;
    }
    if (n->op == OP_UNIQUE) {
        bool fv[4] = {false, false, false, true};
        for (int k = 0; k < 4; k++) {
            json_t *e = json_object_get(obj, unique_flags[k]);
            if (e && !json_is_boolean(e))
                return FAIL(n, "\"%s\" must be a boolean", unique_flags[k]);
            if (e) fv[k] = json_is_true(e);
        }
        json_t *ax = json_object_get(obj, "axis");
        if (ax && !json_is_null(ax))
            return FAIL(n, "\"axis\" other than null is not supported (unique of the flattened "
                           "input only)");
        if (!fv[3]) return FAIL(n, "equal_nan false is not supported (NaNs are one value)");
        /* results in numpy's order: values, indexes, inverse, counts
         * (mo_col 0, 1, 3 (setops: tile/setops.c), 2) */
        int cols[4], want = 0;
        cols[want++] = 0;
        if (fv[0]) cols[want++] = 1;
        if (fv[1]) cols[want++] = 3;
        if (fv[2]) cols[want++] = 2;
        if (want != n->n_outputs)
            return FAIL(n, "unique with these flags gives %d result%s, but \"outputs\" names %d",
                        want, want == 1 ? "" : "s", n->n_outputs);
        n->mo_col = cols[n->out_index];
        return 0;
    }
    json_t *ios = json_object_get(obj, "indices_or_sections");
    if (!ios) return FAIL(n, "\"indices_or_sections\" is missing");
    if (json_is_integer(ios)) {
        if (json_integer_value(ios) <= 0) return FAIL(n, "number sections must be larger than 0.");
        if (json_integer_value(ios) > INT32_MAX)
            return FAIL(n, "indices_or_sections: %lld sections are too many",
                        (long long)json_integer_value(ios));
    } else if (json_is_array(ios)) {
        size_t i;
        json_t *e;
        json_array_foreach(ios, i, e)
        {
            if (!json_is_integer(e))
                return FAIL(n, "indices_or_sections[%zu] must be an integer", i);
        }
    } else {
        return FAIL(n, "\"indices_or_sections\" must be an integer or a list of integers");
    }
    json_t *ax = json_object_get(obj, "axis");
    if (ax && !json_is_integer(ax)) return FAIL(n, "\"axis\" must be an integer");
    return 0;
}

static int count_check(graph_node_t *n, int64_t want, const char *what, char *err, size_t errlen)
{
    if (want != n->n_outputs)
        return FAIL(n, "%s gives %lld result%s, but \"outputs\" names %d", what, (long long)want,
                    want == 1 ? "" : "s", n->n_outputs);
    return 0;
}

/* Python's slice bound of a step-1 slice, clamped to [0, len]. */
static int64_t clamp_bound(int64_t v, int64_t len)
{
    if (v < 0) v = v + len < 0 ? 0 : v + len;
    return v > len ? len : v;
}

static int infer_split(graph_t *g, graph_node_t *n, const graph_raw_t *raw, char *err,
                       size_t errlen)
{
    const graph_node_t *a = &g->nodes[n->in[0].node];
    const shape_t *s = &a->oshape;
    json_t *ios = json_object_get(raw->obj, "indices_or_sections");
    json_t *ax = json_object_get(raw->obj, "axis");
    int64_t axis = ax ? (int64_t)json_integer_value(ax) : 0;
    if (n->op == OP_HSPLIT) {
        if (s->ndim == 0) return FAIL(n, "hsplit only works on arrays of 1 or more dimensions");
        axis = s->ndim > 1 ? 1 : 0;
    } else if (n->op == OP_VSPLIT) {
        if (s->ndim < 2) return FAIL(n, "vsplit only works on arrays of 2 or more dimensions");
        axis = 0;
    }
    if (s->ndim == 0) return FAIL(n, "cannot split a 0-d array (it has no axis)");
    if (axis < -s->ndim || axis >= s->ndim)
        return FAIL(n, "axis %lld is out of bounds for array of dimension %d", (long long)axis,
                    s->ndim);
    if (axis < 0) axis += s->ndim;
    int64_t len = s->d[axis], st, en;
    bool equal = n->op != OP_ARRAY_SPLIT;
    if (json_is_integer(ios)) {
        int64_t N = (int64_t)json_integer_value(ios);
        if (equal && len % N != 0)
            return FAIL(n, "array split does not result in an equal division");
        if (count_check(n, N, "indices_or_sections", err, errlen) < 0) return -1;
        int64_t each = len / N, extras = len % N, k = n->out_index;
        st = k * each + (k < extras ? k : extras);
        en = st + each + (k < extras ? 1 : 0);
    } else {
        int64_t cnt = (int64_t)json_array_size(ios) + 1;
        if (count_check(n, cnt, "indices_or_sections", err, errlen) < 0) return -1;
        int k = n->out_index;
        st = k == 0 ? 0 : (int64_t)json_integer_value(json_array_get(ios, (size_t)k - 1));
        en = k == cnt - 1 ? len : (int64_t)json_integer_value(json_array_get(ios, (size_t)k));
        st = clamp_bound(st, len);
        en = clamp_bound(en, len);
        if (en < st) en = st;
    }
    /* the output is the getitem a[..., st:en, ...] (tile_getitem) */
    n->mo_axis = (int)axis;
    n->n_index = s->ndim;
    n->newaxis = 0;
    n->oshape = *s;
    for (int d = 0; d < s->ndim; d++) {
        index_t *ix = &n->index[d];
        memset(ix, 0, sizeof *ix);
        ix->step = 1;
        ix->start = d == axis ? st : 0;
        ix->stop = d == axis ? en : s->d[d];
        ix->len = ix->stop - ix->start;
        n->oshape.d[d] = ix->len;
    }
    n->odtype = a->odtype;
    return 0;
}

/* Node i as a held 1-D tensor of dtype dt (int64, float64 or bool), its
 * length known only when it runs: a one-column frame blob per part, like a
 * held to_tensor result (nonzero, unique, the set ops, lstsq's residuals). */
int graph_held_1d(graph_t *g, int i, dtype_t dt, char *err, size_t errlen)
{
    graph_node_t *n = &g->nodes[i];
    df_node_t *d = calloc(1, sizeof *d);
    if (!d) return FAIL(n, "out of memory");
    n->df = d;
    d->cols = calloc(1, sizeof *d->cols);
    d->idx = calloc(1, sizeof *d->idx);
    if (!d->cols || !d->idx) return FAIL(n, "out of memory");
    d->ncols = d->nidx = 1;
    d->cols[0].type = dt == DT_BOOL ? FT_BOOL : dt == DT_FLOAT64 ? FT_FLOAT64 : FT_INT64;
    d->idx[0].type = FT_INT64;
    d->rowsrc = i;
    d->nrows = -1;
    d->tdt = dt;
    d->held = true;
    n->vkind = VK_TENSOR;
    n->oshape.ndim = 1;
    n->oshape.d[0] = 0;
    n->odtype = dt;
    return 0;
}

/* nonzero(a), where(a): one index array per axis of a, whose length is
 * known only when it runs. Like a held to_tensor result, each is a 1-D
 * int64 tensor kept as frame blobs (a one-column Series per row block of
 * a, tile/multi.c and df/multi.c): it can be fetched, not used as an input
 * (graph_df_infer refuses that). */
static int infer_nonzero(graph_t *g, int i, char *err, size_t errlen)
{
    graph_node_t *n = &g->nodes[i];
    const graph_node_t *a = &g->nodes[n->in[0].node];
    if (a->oshape.ndim == 0)
        return FAIL(n, "calling nonzero on 0d arrays is not supported (numpy deprecates it); "
                       "use atleast_1d first");
    char what[64];
    snprintf(what, sizeof what, "a %d-dimensional input", a->oshape.ndim);
    if (count_check(n, a->oshape.ndim, what, err, errlen) < 0) return -1;
    if (graph_held_1d(g, i, DT_INT64, err, errlen) < 0) return -1;
    n->mo_axis = n->out_index;
    return 0;
}

/* unique: values (the input's dtype), first indexes and counts (int64),
 * held like nonzero's results; the merge of the blocks' sets is one job
 * (df/multi.c, MO_UNIQUE_MAX entries at most). */
static int infer_unique(graph_t *g, int i, char *err, size_t errlen)
{
    graph_node_t *n = &g->nodes[i];
    const graph_node_t *a = &g->nodes[n->in[0].node];
    dtype_t dt = a->odtype;
    if (dt != DT_BOOL && dt != DT_INT64 && dt != DT_FLOAT64)
        return FAIL(n,
                    "unique of %s is not supported yet (bool, int64 and float64 are); "
                    "astype first",
                    dt_name(dt));
    if (n->mo_col == 3) { /* setops: the inverse, a's flattened length: an ordinary tensor */
        n->oshape.ndim = 1;
        n->oshape.d[0] = shape_size(&a->oshape);
        n->odtype = DT_INT64;
        return 0;
    }
    return graph_held_1d(g, i, n->mo_col == 0 ? dt : DT_INT64, err, errlen);
}

/* histogram: hist (int64, float64 with density) and bin_edges (float64,
 * float32 for a float32 input; inputs[1]'s dtype when it gives them) */
static int infer_histogram(graph_t *g, graph_node_t *n, char *err, size_t errlen)
{
    const graph_node_t *a = &g->nodes[n->in[0].node];
    if (a->odtype == DT_BOOL)
        return FAIL(n, "numpy boolean subtract is not supported; histogram of bool (astype first)");
    int64_t nb = n->mo_bins;
    dtype_t edt = a->odtype == DT_FLOAT32 ? DT_FLOAT32 : DT_FLOAT64;
    const graph_node_t *w = n->mo_weighted ? &g->nodes[n->in[n->n_in - 1].node] : NULL;
    if (w) { /* setops: weights, a's shape; hist takes their dtype */
        if (!shape_eq(&w->oshape, &a->oshape))
            return FAIL(n, "weights should have the same shape as a.");
        if (w->odtype == DT_BOOL)
            return FAIL(n, "weights of bool are not supported (astype first)");
    }
    if (n->n_in - (w ? 1 : 0) == 2) {
        const graph_node_t *e = &g->nodes[n->in[1].node];
        if (e->oshape.ndim != 1) return FAIL(n, "`bins` must be 1d, when an array");
        if (e->oshape.d[0] < 1) return FAIL(n, "`bins` must have at least one edge");
        if (e->odtype == DT_BOOL) return FAIL(n, "`bins` of bool are not supported");
        nb = e->oshape.d[0] - 1;
        edt = e->odtype;
    }
    n->oshape.ndim = 1;
    if (n->out_index == 0) {
        n->oshape.d[0] = nb;
        n->odtype = n->mo_density ? DT_FLOAT64 : w ? w->odtype : DT_INT64;
    } else {
        n->oshape.d[0] = nb + 1;
        n->odtype = edt;
    }
    return 0;
}

static int infer_meshgrid(graph_t *g, graph_node_t *n, char *err, size_t errlen)
{
    int N = n->n_in;
    if (N > MR_MAXDIM)
        return FAIL(n, "%d inputs give %d-dimensional results, more than the %d the engine holds",
                    N, N, MR_MAXDIM);
    if (count_check(n, N, "meshgrid of its inputs", err, errlen) < 0) return -1;
    bool ij = n->mo_flag, sparse = n->mo_sparse;
    shape_t out = {.ndim = N};
    for (int k = 0; k < N; k++) {
        const graph_node_t *x = &g->nodes[n->in[k].node];
        int a = (!ij && N >= 2 && k < 2) ? 1 - k : k;
        out.d[a] = shape_size(&x->oshape);
    }
    int k = n->out_index;
    int a = (!ij && N >= 2 && k < 2) ? 1 - k : k;
    n->mo_axis = a;
    if (sparse) {
        for (int d = 0; d < N; d++)
            if (d != a) out.d[d] = 1;
    }
    n->oshape = out;
    n->odtype = g->nodes[n->in[k].node].odtype;
    return 0;
}

int graph_multi_infer(graph_t *g, int i, const graph_raw_t *raw, char *err, size_t errlen)
{
    graph_node_t *n = &g->nodes[i];
    for (int j = 0; j < n->n_in; j++)
        if (n->in[j].node < 0) return FAIL(n, "inputs[%d] must be a tensor", j);
    switch (n->op) {
    case OP_SPLIT:
    case OP_ARRAY_SPLIT:
    case OP_HSPLIT:
    case OP_VSPLIT:
        return infer_split(g, n, raw, err, errlen);
    case OP_MESHGRID:
        return infer_meshgrid(g, n, err, errlen);
    case OP_NONZERO:
    case OP_WHERE:
        return infer_nonzero(g, i, err, errlen);
    case OP_UNIQUE:
        return infer_unique(g, i, err, errlen);
    case OP_HISTOGRAM:
        return infer_histogram(g, n, err, errlen);
    case OP_INTERSECT1D: /* setops: with return_indices */
        return graph_setops_infer(g, i, err, errlen);
    case OP_LA_QR:
    case OP_LA_SVD:
    case OP_LA_EIGH:
    case OP_LA_SLOGDET:
    case OP_LA_LSTSQ:
        return graph_la2_infer(g, i, err, errlen);
    default:
        return FAIL(n, "internal: not an op with several results");
    }
}
