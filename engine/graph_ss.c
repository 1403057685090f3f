/* graph_ss.c: parameters and inference of the sortstat ops (sortstat.h).
 * Keywords, defaults, results and dtypes are numpy 1.24's (topk: Mars's);
 * every refusal names the node, the op and the rule. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"
#include "sortstat.h"

#define SFAIL(n, ...) graph_fail(err, errlen, (n), __VA_ARGS__)

void graph_ss_arity(int op, int *lo, int *hi)
{
    *lo = *hi = 1;
    switch (op) {
    case OP_SEARCHSORTED:
        *lo = 2;
        *hi = 3; /* [a, v] or [a, v, sorter] */
        break;
    case OP_ISIN:
    case OP_IN1D:
    case OP_DIGITIZE:
    case OP_ALLCLOSE:
        *lo = *hi = 2;
        break;
    case OP_AVERAGE: /* [a] or [a, weights] */
    case OP_COV:     /* [m] or [m, y] */
    case OP_CORRCOEF:
        *hi = 2;
        break;
    default:
        break;
    }
}

/* The fields each op takes besides key, op and inputs. */
static const char *const *ss_fields(op_t op)
{
    static const char *const sort[] = {"axis", "kind", "order", NULL};
    static const char *const part[] = {"kth", "axis", "kind", "order", NULL};
    static const char *const topk[] = {"k", "axis", "largest", "sorted", NULL};
    static const char *const ss[] = {"side", NULL};
    static const char *const isin[] = {"assume_unique", "invert", NULL};
    static const char *const pct[] = {"q", "axis", "method", "keepdims", NULL};
    static const char *const med[] = {"axis", "keepdims", NULL};
    static const char *const avg[] = {"axis", "keepdims", NULL};
    static const char *const dig[] = {"right", NULL};
    static const char *const cov[] = {"rowvar", "bias", "ddof", NULL};
    static const char *const corr[] = {"rowvar", NULL};
    static const char *const ac[] = {"rtol", "atol", "equal_nan", NULL};
    switch (op) {
    case OP_SORT:
    case OP_ARGSORT:
        return sort;
    case OP_PARTITION:
    case OP_ARGPARTITION:
        return part;
    case OP_TOPK:
        return topk;
    case OP_SEARCHSORTED:
        return ss;
    case OP_ISIN:
    case OP_IN1D:
        return isin;
    case OP_PERCENTILE:
    case OP_QUANTILE:
    case OP_NANPERCENTILE:
    case OP_NANQUANTILE:
        return pct;
    case OP_MEDIAN:
    case OP_NANMEDIAN:
        return med;
    case OP_AVERAGE:
        return avg;
    case OP_DIGITIZE:
        return dig;
    case OP_COV:
        return cov;
    case OP_CORRCOEF:
        return corr;
    default:
        return ac;
    }
}

static int get_bool_f(graph_node_t *n, json_t *obj, const char *name, bool *out, char *err,
                      size_t errlen)
{
    json_t *v = json_object_get(obj, name);
    if (!v) return 0;
    if (!json_is_boolean(v)) return SFAIL(n, "\"%s\" must be true or false", name);
    *out = json_is_true(v);
    return 1;
}

static int get_num(graph_node_t *n, json_t *obj, const char *name, double *out, char *err,
                   size_t errlen)
{
    json_t *v = json_object_get(obj, name);
    if (!v) return 0;
    if (!json_is_number(v)) return SFAIL(n, "\"%s\" must be a number", name);
    *out = json_number_value(v);
    return 1;
}

static int get_axis(graph_node_t *n, ss_node_t *s, json_t *obj, int64_t dflt, bool dflt_none,
                    char *err, size_t errlen)
{
    json_t *v = json_object_get(obj, "axis");
    s->axis = dflt;
    s->axis_none = dflt_none;
    if (!v) return 0;
    if (json_is_null(v)) {
        s->axis_none = true;
        return 0;
    }
    if (!json_is_integer(v))
        return SFAIL(n, "\"axis\" must be null or an integer (a tuple of axes is not supported)");
    s->axis_none = false;
    s->axis = (int64_t)json_integer_value(v);
    return 0;
}

static int get_str_choice(graph_node_t *n, json_t *obj, const char *name,
                          const char *const *choices, int *out, char *err, size_t errlen)
{
    json_t *v = json_object_get(obj, name);
    if (!v) return 0;
    if (json_is_string(v))
        for (int i = 0; choices[i]; i++)
            if (strcmp(json_string_value(v), choices[i]) == 0) {
                *out = i;
                return 1;
            }
    char list[256] = "";
    for (int i = 0; choices[i]; i++) {
        size_t o = strlen(list);
        snprintf(list + o, sizeof list - o, "%s\"%s\"", i ? ", " : "", choices[i]);
    }
    return SFAIL(n, "\"%s\" must be one of %s", name, list);
}

int graph_ss_parse(graph_node_t *n, void *json_obj, char *err, size_t errlen)
{
    json_t *obj = json_obj;
    const char *name;
    json_t *val;
    const char *const *f = ss_fields(n->op);
    json_object_foreach(obj, name, val)
    {
        if (!strcmp(name, "key") || !strcmp(name, "op") || !strcmp(name, "inputs")) continue;
        int i = 0;
        while (f[i] && strcmp(f[i], name) != 0)
            i++;
        if (!f[i]) {
            char eb[160];
            snprintf(eb, sizeof eb, "%s", name);
            for (char *p = eb; *p; p++)
                if ((unsigned char)*p < 32) *p = ' ';
            return SFAIL(n, "unknown field \"%s\"", eb);
        }
    }
    ss_node_t *s = calloc(1, sizeof *s);
    if (!s) return SFAIL(n, "out of memory");
    n->ss = s;
    s->largest = s->sorted = true;
    s->rowvar = true;
    s->rtol = 1e-05;
    s->atol = 1e-08;
    int choice = 0;
    static const char *const kinds[] = {"quicksort", "mergesort", "heapsort", "stable", NULL};
    static const char *const pkinds[] = {"introselect", NULL};
    static const char *const sides[] = {"left", "right", NULL};
    static const char *const methods[] = {"linear", NULL};
    json_t *v;
    switch (n->op) {
    case OP_SORT:
    case OP_ARGSORT:
    case OP_PARTITION:
    case OP_ARGPARTITION:
        if (get_axis(n, s, obj, -1, false, err, errlen) < 0) return -1;
        if (get_str_choice(n, obj, "kind", n->op == OP_SORT || n->op == OP_ARGSORT ? kinds : pkinds,
                           &choice, err, errlen) < 0)
            return -1;
        if ((v = json_object_get(obj, "order")) && !json_is_null(v))
            return SFAIL(n, "\"order\" applies to structured arrays only; it must be null");
        if (n->op == OP_PARTITION || n->op == OP_ARGPARTITION) {
            v = json_object_get(obj, "kth");
            if (!v) return SFAIL(n, "\"kth\" is missing");
            size_t cnt = json_is_array(v) ? json_array_size(v) : 1;
            if (!json_is_integer(v) && !json_is_array(v))
                return SFAIL(n, "\"kth\" must be an integer or a list of integers");
            if (cnt > 1000000) return SFAIL(n, "\"kth\" has more than 1000000 entries");
            s->kth = malloc(sizeof(int64_t) * (cnt ? cnt : 1));
            if (!s->kth) return SFAIL(n, "out of memory");
            s->nkth = (int)cnt;
            for (size_t i = 0; i < cnt; i++) {
                json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
                if (!json_is_integer(e))
                    return SFAIL(n, "\"kth\" must be an integer or a list of integers");
                s->kth[i] = (int64_t)json_integer_value(e);
            }
        }
        return 0;
    case OP_TOPK:
        if (get_axis(n, s, obj, -1, false, err, errlen) < 0) return -1;
        v = json_object_get(obj, "k");
        if (!v) return SFAIL(n, "\"k\" is missing");
        if (!json_is_integer(v)) return SFAIL(n, "\"k\" must be an integer");
        s->k = (int64_t)json_integer_value(v);
        if (get_bool_f(n, obj, "largest", &s->largest, err, errlen) < 0 ||
            get_bool_f(n, obj, "sorted", &s->sorted, err, errlen) < 0)
            return -1;
        return 0;
    case OP_SEARCHSORTED:
        if (get_str_choice(n, obj, "side", sides, &choice, err, errlen) < 0) return -1;
        s->side_right = choice == 1;
        return 0;
    case OP_ISIN:
    case OP_IN1D: {
        bool au = false;
        if (get_bool_f(n, obj, "assume_unique", &au, err, errlen) < 0 ||
            get_bool_f(n, obj, "invert", &s->invert, err, errlen) < 0)
            return -1;
        return 0;
    }
    case OP_PERCENTILE:
    case OP_QUANTILE:
    case OP_NANPERCENTILE:
    case OP_NANQUANTILE: {
        bool pct = n->op == OP_PERCENTILE || n->op == OP_NANPERCENTILE;
        if (get_axis(n, s, obj, 0, true, err, errlen) < 0 ||
            get_bool_f(n, obj, "keepdims", &s->keepdims, err, errlen) < 0 ||
            get_str_choice(n, obj, "method", methods, &choice, err, errlen) < 0)
            return -1;
        v = json_object_get(obj, "q");
        if (!v) return SFAIL(n, "\"q\" is missing");
        s->q_scalar = !json_is_array(v);
        size_t cnt = s->q_scalar ? 1 : json_array_size(v);
        if (cnt > 100000) return SFAIL(n, "\"q\" has more than 100000 entries");
        s->q = malloc(sizeof(double) * (cnt ? cnt : 1));
        if (!s->q) return SFAIL(n, "out of memory");
        s->nq = (int)cnt;
        for (size_t i = 0; i < cnt; i++) {
            json_t *e = s->q_scalar ? v : json_array_get(v, i);
            if (!json_is_number(e)) return SFAIL(n, "\"q\" must be a number or a list of numbers");
            double q = json_number_value(e);
            /* numpy: q = np.true_divide(q, 100) */
            s->q[i] = pct ? q / 100.0 : q;
            if (!(s->q[i] >= 0.0 && s->q[i] <= 1.0))
                return SFAIL(n, pct ? "Percentiles must be in the range [0, 100]"
                                    : "Quantiles must be in the range [0, 1]");
        }
        return 0;
    }
    case OP_MEDIAN:
    case OP_NANMEDIAN:
    case OP_AVERAGE:
        if (get_axis(n, s, obj, 0, true, err, errlen) < 0 ||
            get_bool_f(n, obj, "keepdims", &s->keepdims, err, errlen) < 0)
            return -1;
        return 0;
    case OP_DIGITIZE:
        return get_bool_f(n, obj, "right", &s->right, err, errlen) < 0 ? -1 : 0;
    case OP_COV:
    case OP_CORRCOEF:
        if (get_bool_f(n, obj, "rowvar", &s->rowvar, err, errlen) < 0 ||
            get_bool_f(n, obj, "bias", &s->bias, err, errlen) < 0)
            return -1;
        v = json_object_get(obj, "ddof");
        if (v && !json_is_null(v)) {
            if (!json_is_integer(v)) return SFAIL(n, "\"ddof\" must be null or an integer");
            s->has_ddof = true;
            s->ddof = (int64_t)json_integer_value(v);
        }
        return 0;
    case OP_ALLCLOSE:
        if (get_num(n, obj, "rtol", &s->rtol, err, errlen) < 0 ||
            get_num(n, obj, "atol", &s->atol, err, errlen) < 0 ||
            get_bool_f(n, obj, "equal_nan", &s->equal_nan, err, errlen) < 0)
            return -1;
        return 0;
    default:
        return SFAIL(n, "internal: not a sortstat op");
    }
}

void graph_ss_free(ss_node_t *s)
{
    if (!s) return;
    free(s->kth);
    free(s->q);
    free(s);
}

/* ------------------------------------------------------------------ inference */

static const graph_node_t *in_node(const graph_t *g, const graph_node_t *n, int j)
{
    return &g->nodes[n->in[j].node];
}

static int norm_axis(graph_node_t *n, int64_t ax, int ndim, int64_t *out, char *err, size_t errlen)
{
    if (ax < -(int64_t)ndim || ax >= ndim)
        return SFAIL(n, "axis %lld is out of bounds for array of dimension %d", (long long)ax,
                     ndim);
    *out = ax < 0 ? ax + ndim : ax;
    return 0;
}

/* The shape after reducing axis (or every axis: axis_none), keepdims as numpy. */
static void reduced_shape(const shape_t *in, const ss_node_t *s, shape_t *out)
{
    out->ndim = 0;
    for (int d = 0; d < in->ndim; d++) {
        bool red = s->axis_none || d == s->axis;
        if (!red)
            out->d[out->ndim++] = in->d[d];
        else if (s->keepdims)
            out->d[out->ndim++] = 1;
    }
}

static int infer_cov(const graph_t *g, graph_node_t *n, ss_node_t *s, char *err, size_t errlen)
{
    /* numpy: X = atleast_2d(m); if not rowvar and X.shape[0] != 1: X = X.T;
     * y likewise, stacked under X; the result X X^T / fact, squeezed */
    int64_t vars = 0, obs = -1;
    for (int j = 0; j < n->n_in; j++) {
        const shape_t *sh = &in_node(g, n, j)->oshape;
        if (sh->ndim > 2) return SFAIL(n, "%s has more than 2 dimensions", j ? "y" : "m");
        int64_t r = sh->ndim == 2 ? sh->d[0] : 1, c = sh->ndim == 2   ? sh->d[1]
                                                      : sh->ndim == 1 ? sh->d[0]
                                                                      : 1;
        if (!s->rowvar && r != 1) {
            int64_t t = r;
            r = c;
            c = t;
        }
        if (obs >= 0 && c != obs)
            return SFAIL(n,
                         "all the input array dimensions except for the concatenation axis must "
                         "match exactly, but along dimension 1, the array at index 0 has size "
                         "%lld and the array at index 1 has size %lld",
                         (long long)obs, (long long)c);
        obs = c;
        vars += r;
    }
    if (vars > 46340)
        return SFAIL(n,
                     "%lld variables: the %lld x %lld result is over the limit of 46340 "
                     "variables",
                     (long long)vars, (long long)vars, (long long)vars);
    s->nvar = (int)vars;
    n->oshape.ndim = 0;
    if (vars != 1) {
        n->oshape.ndim = 2;
        n->oshape.d[0] = n->oshape.d[1] = vars;
    }
    n->odtype = DT_FLOAT64;
    return 0;
}

int graph_ss_infer(graph_t *g, graph_node_t *n, char *err, size_t errlen)
{
    ss_node_t *s = n->ss;
    const graph_node_t *a = in_node(g, n, 0);
    for (int j = 0; j < n->n_in; j++)
        if (in_node(g, n, j)->vkind != VK_TENSOR)
            return SFAIL(n, "input \"%s\" is a DataFrame or Series, not a tensor",
                         in_node(g, n, j)->key);
    const shape_t *as = &a->oshape;
    dtype_t adt = a->odtype;
    int64_t size = shape_size(as);
    switch (n->op) {
    case OP_SORT:
    case OP_ARGSORT:
    case OP_PARTITION:
    case OP_ARGPARTITION:
    case OP_TOPK: {
        if (s->axis_none) {
            n->oshape.ndim = 1;
            n->oshape.d[0] = size;
            s->axis = 0;
        } else {
            if (as->ndim == 0 && n->op != OP_TOPK)
                return SFAIL(n, "axis %lld is out of bounds for array of dimension 0",
                             (long long)s->axis);
            if (as->ndim == 0) return SFAIL(n, "topk needs an input of at least 1 dimension");
            if (norm_axis(n, s->axis, as->ndim, &s->axis, err, errlen) < 0) return -1;
            n->oshape = *as;
        }
        int64_t len = n->oshape.d[s->axis];
        for (int i = 0; i < s->nkth; i++) {
            int64_t k = s->kth[i];
            if (k < -len || k >= len)
                return SFAIL(n, "kth(=%lld) out of bounds (%lld)", (long long)k, (long long)len);
        }
        if (n->op == OP_TOPK) {
            if (s->k <= 0 || s->k > len)
                return SFAIL(n, "\"k\" (%lld) must be between 1 and the axis length %lld",
                             (long long)s->k, (long long)len);
            n->oshape.d[s->axis] = s->k;
        }
        n->odtype = n->op == OP_ARGSORT || n->op == OP_ARGPARTITION ? DT_INT64 : adt;
        return 0;
    }
    case OP_SEARCHSORTED: {
        if (as->ndim != 1)
            return SFAIL(n, as->ndim == 0 ? "object of too small depth for desired array"
                                          : "object too deep for desired array (a must be 1-D)");
        if (n->n_in == 3) {
            const graph_node_t *so = in_node(g, n, 2);
            if (so->oshape.ndim != 1 || so->oshape.d[0] != as->d[0])
                return SFAIL(n, "sorter.size must equal a.size");
            if (!dt_is_int(so->odtype))
                return SFAIL(n, "sorter must only contain integers (not %s)", dt_name(so->odtype));
        }
        n->oshape = in_node(g, n, 1)->oshape;
        n->odtype = DT_INT64;
        return 0;
    }
    case OP_DIGITIZE: {
        const shape_t *bs = &in_node(g, n, 1)->oshape;
        if (bs->ndim != 1)
            return SFAIL(n, bs->ndim == 0 ? "object of too small depth for desired array"
                                          : "object too deep for desired array");
        n->oshape = *as;
        n->odtype = DT_INT64;
        return 0;
    }
    case OP_ISIN:
        n->oshape = *as;
        n->odtype = DT_BOOL;
        return 0;
    case OP_IN1D:
        n->oshape.ndim = 1;
        n->oshape.d[0] = size;
        n->odtype = DT_BOOL;
        return 0;
    case OP_PERCENTILE:
    case OP_QUANTILE:
    case OP_NANPERCENTILE:
    case OP_NANQUANTILE:
    case OP_MEDIAN:
    case OP_NANMEDIAN:
    case OP_AVERAGE: {
        bool med = n->op == OP_MEDIAN || n->op == OP_NANMEDIAN;
        if (!s->axis_none && norm_axis(n, s->axis, as->ndim, &s->axis, err, errlen) < 0) return -1;
        if (s->axis_none && as->ndim == 0) s->axis = 0;
        int64_t len = s->axis_none ? size : as->d[s->axis];
        shape_t r;
        reduced_shape(as, s, &r);
        if (n->op != OP_AVERAGE && !med && adt == DT_BOOL)
            return SFAIL(n, "numpy boolean subtract, the `-` operator, is not supported, use the "
                            "bitwise_xor, the `^` operator, or the logical_xor function instead.");
        if (n->op == OP_PERCENTILE || n->op == OP_QUANTILE) {
            if (len == 0 && shape_size(&r) > 0)
                return SFAIL(n, "index -1 is out of bounds for axis 0 with size 0");
        }
        if (n->op == OP_AVERAGE && len == 0)
            return SFAIL(n, "Weights sum to zero, can't be normalized");
        n->oshape.ndim = 0;
        if (s->q && !s->q_scalar) n->oshape.d[n->oshape.ndim++] = s->nq;
        if (n->oshape.ndim + r.ndim > MR_MAXDIM)
            return SFAIL(n, "maximum supported dimension for an ndarray is %d", MR_MAXDIM);
        for (int d = 0; d < r.ndim; d++)
            n->oshape.d[n->oshape.ndim++] = r.d[d];
        n->odtype = med && adt == DT_FLOAT32 ? DT_FLOAT32 : DT_FLOAT64;
        if (n->op == OP_AVERAGE) {
            n->odtype = adt == DT_FLOAT32 ? DT_FLOAT32 : DT_FLOAT64;
            if (n->n_in == 2) {
                const graph_node_t *w = in_node(g, n, 1);
                dtype_t p = dt_promote(adt, w->odtype);
                n->odtype = dt_is_float(adt) ? (dt_is_float(p) ? p : DT_FLOAT64) : DT_FLOAT64;
                if (!shape_eq(&w->oshape, as)) {
                    if (s->axis_none)
                        return SFAIL(n, "Axis must be specified when shapes of a and weights "
                                        "differ.");
                    if (w->oshape.ndim != 1)
                        return SFAIL(n, "1D weights expected when shapes of a and weights differ.");
                    if (w->oshape.d[0] != as->d[s->axis])
                        return SFAIL(n, "Length of weights not compatible with specified axis.");
                    s->w_line = true;
                }
            }
        }
        return 0;
    }
    case OP_COV:
    case OP_CORRCOEF:
        return infer_cov(g, n, s, err, errlen);
    case OP_ALLCLOSE: {
        const shape_t *bs = &in_node(g, n, 1)->oshape;
        int nd = as->ndim > bs->ndim ? as->ndim : bs->ndim;
        for (int d = 0; d < nd; d++) {
            int ia = d - (nd - as->ndim), ib = d - (nd - bs->ndim);
            int64_t x = ia >= 0 ? as->d[ia] : 1, y = ib >= 0 ? bs->d[ib] : 1;
            if (x != y && x != 1 && y != 1) {
                char sa[512], sb[512];
                shape_format(as, sa, sizeof sa);
                shape_format(bs, sb, sizeof sb);
                return SFAIL(n, "operands could not be broadcast together with shapes %s %s", sa,
                             sb);
            }
        }
        n->oshape.ndim = 0;
        n->odtype = DT_BOOL;
        return 0;
    }
    default:
        return SFAIL(n, "internal: not a sortstat op");
    }
}
