/* graph_fancy.c: validation and shape inference of advanced indexing
 * (fancy.h): getitem with {"input": N} entries, setitem, take, compress,
 * argwhere, flatnonzero, extract. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "df/dfgraph.h"
#include "graph_fancy.h"

#define FAIL(...) graph_fail(err, errlen, n, __VA_ARGS__)

bool fancy_is_op(op_t op)
{
    return op == OP_SETITEM || op == OP_TAKE || op == OP_COMPRESS || op == OP_ARGWHERE ||
           op == OP_FLATNONZERO || op == OP_EXTRACT;
}

void fancy_arity(op_t op, int *lo, int *hi)
{
    switch (op) {
    case OP_GETITEM:
        *lo = 1;
        *hi = INT32_MAX;
        return;
    case OP_SETITEM:
        *lo = 2;
        *hi = INT32_MAX;
        return;
    case OP_TAKE:
    case OP_COMPRESS:
    case OP_EXTRACT:
        *lo = *hi = 2;
        return;
    default:
        *lo = *hi = 1;
        return;
    }
}

bool fancy_json_input(json_t *e, int64_t *n)
{
    if (!json_is_object(e) || json_object_size(e) != 1) return false;
    json_t *v = json_object_get(e, "input");
    if (!json_is_integer(v)) return false;
    *n = (int64_t)json_integer_value(v);
    return true;
}

bool fancy_is_adv(const fancy_t *fx, int k)
{
    uint8_t kd = fx->ent[k].kind;
    if (kd == FX_ARR || kd == FX_MASK || kd == FX_COND) return true;
    if (kd != FX_INT) return false;
    for (int q = 0; q < fx->n_ent; q++)
        if (fx->ent[q].kind == FX_ARR || fx->ent[q].kind == FX_MASK || fx->ent[q].kind == FX_COND)
            return true;
    return false;
}

int fancy_view_shape(const fancy_t *fx, const int64_t *S, int nb, const int64_t *b, int64_t *V,
                     int *nv, int *bpos)
{
    (void)S;
    /* numpy: the broadcast dims replace the advanced entries when those are
     * next to each other (newaxis entries between them do not count), else
     * they come first */
    int first = -1, last = -1, n_adv = 0;
    for (int k = 0; k < fx->n_ent; k++)
        if (fancy_is_adv(fx, k)) {
            if (first < 0) first = k;
            last = k;
            n_adv++;
        }
    bool adjacent = true;
    for (int k = first; first >= 0 && k <= last; k++)
        if (!fancy_is_adv(fx, k) && fx->ent[k].kind != FX_NEW) adjacent = false;
    int m = 0;
    *bpos = -1;
    if (n_adv && !adjacent) {
        if (nb > MR_MAXDIM) return -1;
        for (int q = 0; q < nb; q++)
            V[m++] = b[q];
        *bpos = 0;
    }
    for (int k = 0; k < fx->n_ent; k++) {
        const fx_ent_t *e = &fx->ent[k];
        if (fancy_is_adv(fx, k)) {
            if (adjacent && k == first) {
                if (m + nb > MR_MAXDIM) return -1;
                *bpos = m;
                for (int q = 0; q < nb; q++)
                    V[m++] = b[q];
            }
            continue;
        }
        if (e->kind == FX_INT) continue;
        if (m >= MR_MAXDIM) return -1;
        V[m++] = e->kind == FX_NEW ? 1 : e->ix.len;
    }
    *nv = m;
    return 0;
}

/* Python's slice.indices. */
static void slice_norm(const graph_slice_t *sl, int64_t len, index_t *ix)
{
    int64_t step = sl->has_step ? sl->step : 1;
    int64_t lower = step < 0 ? -1 : 0, upper = step < 0 ? len - 1 : len;
    int64_t start = step < 0 ? upper : lower, stop = step < 0 ? lower : upper;
    if (sl->has_start) {
        start = sl->start < 0 ? sl->start + len : sl->start;
        if (start < lower) start = lower;
        if (start > upper) start = upper;
    }
    if (sl->has_stop) {
        stop = sl->stop < 0 ? sl->stop + len : sl->stop;
        if (stop < lower) stop = lower;
        if (stop > upper) stop = upper;
    }
    memset(ix, 0, sizeof *ix);
    ix->start = start;
    ix->stop = stop;
    ix->step = step;
    if (step < 0)
        ix->len = stop < start ? (start - stop - 1) / -step + 1 : 0;
    else
        ix->len = start < stop ? (stop - start - 1) / step + 1 : 0;
}

static void whole(fx_ent_t *e, int axis, int64_t len)
{
    graph_slice_t sl = {0};
    memset(e, 0, sizeof *e);
    e->kind = FX_SLICE;
    e->axis = axis;
    e->nax = 1;
    slice_norm(&sl, len, &e->ix);
}

static void fmt_shape(int nd, const int64_t *d, char *buf, size_t len)
{
    shape_t s = {.ndim = nd};
    for (int k = 0; k < nd; k++)
        s.d[k] = d[k];
    shape_format(&s, buf, len);
}

/* The node input inputs[k] as a tensor node, or NULL (a scalar operand). */
static const graph_node_t *tin(const graph_t *g, const graph_node_t *n, int k)
{
    return n->in[k].node >= 0 ? &g->nodes[n->in[k].node] : NULL;
}

/* The entries of a getitem/setitem index over source shape S. */
static int build_index(const graph_t *g, graph_node_t *n, fancy_t *fx, json_t *idx,
                       const shape_t *S, int first_index_input, char *err, size_t errlen)
{
    size_t cnt = json_array_size(idx);
    int used = 0;
    for (size_t k = 0; k < cnt; k++) {
        json_t *e = json_array_get(idx, k);
        int64_t in;
        if (json_is_null(e) || (json_is_string(e) && strcmp(json_string_value(e), "...") == 0))
            continue;
        if (fancy_json_input(e, &in)) {
            if (in < first_index_input || in >= n->n_in)
                return FAIL("index[%zu]: {\"input\": %lld} names no index input (inputs %d..%d)", k,
                            (long long)in, first_index_input, n->n_in - 1);
            const graph_node_t *m = tin(g, n, (int)in);
            if (m && m->vkind != VK_TENSOR)
                return FAIL("index[%zu]: input \"%s\" is a DataFrame or Series, not a tensor", k,
                            m->key);
            if (m && m->odtype == DT_BOOL) {
                if (m->oshape.ndim == 0)
                    return FAIL("index[%zu]: a 0-d boolean index is not supported", k);
                used += m->oshape.ndim;
                continue;
            }
            if (m && !dt_is_int(m->odtype))
                return FAIL("index[%zu]: arrays used as indices must be of integer (or boolean) "
                            "type, input \"%s\" is %s",
                            k, m->key, dt_name(m->odtype));
            if (!m && n->in[in].sc.kind != SC_INT)
                return FAIL("index[%zu]: inputs[%lld] is a scalar that is not an integer", k,
                            (long long)in);
        }
        used++;
    }
    if (used > S->ndim)
        return FAIL("too many indices for array: array is %d-dimensional, but %d were indexed",
                    S->ndim, used);
    int d = 0;
    fx->n_ent = 0;
    for (size_t k = 0; k <= cnt; k++) {
        json_t *e = k < cnt ? json_array_get(idx, k) : NULL;
        int upto = d;
        bool ell = e && json_is_string(e) && strcmp(json_string_value(e), "...") == 0;
        if (!e)
            upto = S->ndim;
        else if (ell)
            upto = d + (S->ndim - used);
        for (; d < upto; d++) {
            if (fx->n_ent >= 2 * MR_MAXDIM) return FAIL("index has too many entries");
            whole(&fx->ent[fx->n_ent++], d, S->d[d]);
        }
        if (!e || ell) continue;
        if (fx->n_ent >= 2 * MR_MAXDIM) return FAIL("index has too many entries");
        fx_ent_t *x = &fx->ent[fx->n_ent++];
        memset(x, 0, sizeof *x);
        int64_t in;
        if (json_is_null(e)) {
            x->kind = FX_NEW;
            continue;
        }
        x->axis = d;
        x->nax = 1;
        if (json_is_integer(e) || (fancy_json_input(e, &in) && !tin(g, n, (int)in))) {
            int64_t i = json_is_integer(e) ? (int64_t)json_integer_value(e) : n->in[in].sc.i;
            if (i < -S->d[d] || i >= S->d[d])
                return FAIL("index %lld is out of bounds for axis %d with size %lld", (long long)i,
                            d, (long long)S->d[d]);
            x->kind = FX_INT;
            x->ix.is_int = true;
            x->ix.i = i < 0 ? i + S->d[d] : i;
            d++;
            continue;
        }
        if (fancy_json_input(e, &in)) {
            const graph_node_t *m = tin(g, n, (int)in);
            x->in = (int)in;
            if (m->odtype == DT_BOOL) {
                x->kind = FX_MASK;
                x->nax = m->oshape.ndim;
                for (int q = 0; q < x->nax; q++)
                    if (m->oshape.d[q] != S->d[d + q])
                        return FAIL("boolean index did not match indexed array along dimension "
                                    "%d; dimension is %lld but corresponding boolean dimension "
                                    "is %lld",
                                    d + q, (long long)S->d[d + q], (long long)m->oshape.d[q]);
                d += x->nax;
            } else {
                x->kind = FX_ARR;
                d++;
            }
            continue;
        }
        graph_slice_t sl;
        if (graph_parse_slice(json_string_value(e), &sl) != 0)
            return FAIL("index[%zu] is not a slice", k);
        x->kind = FX_SLICE;
        slice_norm(&sl, S->d[d], &x->ix);
        d++;
    }
    return 0;
}

/* The broadcast shape of the advanced entries, -1 for a length known only
 * when it runs (masks, conditions). */
static int adv_bcast(const graph_t *g, graph_node_t *n, const fancy_t *fx, int *nb, int64_t *b,
                     char *err, size_t errlen)
{
    *nb = 0;
    char msg[1024] = "";
    size_t ml = 0;
    bool bad = false;
    for (int k = 0; k < fx->n_ent; k++) {
        if (!fancy_is_adv(fx, k)) continue;
        const fx_ent_t *e = &fx->ent[k];
        int nd = 0;
        int64_t s[MR_MAXDIM];
        if (e->kind == FX_ARR) {
            const graph_node_t *m = tin(g, n, e->in);
            nd = m->oshape.ndim;
            memcpy(s, m->oshape.d, sizeof(int64_t) * (size_t)nd);
        } else if (e->kind == FX_MASK || e->kind == FX_COND) {
            nd = 1;
            s[0] = -1;
        }
        char sb[256];
        fmt_shape(nd, s, sb, sizeof sb);
        if (ml < sizeof msg) ml += (size_t)snprintf(msg + ml, sizeof msg - ml, "%s ", sb);
        if (nd > *nb) {
            memmove(b + (nd - *nb), b, sizeof(int64_t) * (size_t)*nb);
            for (int q = 0; q < nd - *nb; q++)
                b[q] = 1;
            *nb = nd;
        }
        for (int q = 0; q < nd; q++) {
            int64_t *t = &b[*nb - nd + q], v = s[q];
            if (v == 1 || v == *t) continue;
            if (*t == 1)
                *t = v;
            else if (*t == -1 || v == -1)
                *t = v == -1 ? *t : v; /* checked when it runs */
            else
                bad = true;
        }
    }
    if (bad)
        return FAIL("shape mismatch: indexing arrays could not be broadcast together with "
                    "shapes %s",
                    msg);
    return 0;
}

/* Held results: a frame blob of one (1-D) or more (2-D) columns. */
static int make_held(graph_node_t *n, char *err, size_t errlen)
{
    int nd = n->oshape.ndim;
    if (nd < 1 || nd > 2)
        return FAIL("a result whose length is known only when it runs (a boolean mask, compress, "
                    "argwhere, ...) must be 1-D or 2-D here, this one is %d-D",
                    nd);
    if (n->odtype != DT_INT64 && n->odtype != DT_FLOAT64 && n->odtype != DT_BOOL)
        return FAIL("a result whose length is known only when it runs (a boolean mask, "
                    "compress, extract) must be int64, float64 or bool here, not %s; astype "
                    "the input first",
                    dt_name(n->odtype));
    df_node_t *d = calloc(1, sizeof *d);
    if (!d) return FAIL("out of memory");
    d->held = true;
    d->tdt = n->odtype;
    d->nrows = -1;
    d->nsel = nd == 2 ? (int)n->oshape.d[1] : 1;
    n->df = d;
    return 0;
}

static int norm_axis1(graph_node_t *n, json_t *ax, int ndim, int *out, char *err, size_t errlen)
{
    int64_t a = (int64_t)json_integer_value(ax);
    if (a < -ndim || a >= ndim)
        return FAIL("axis %lld is out of bounds for array of dimension %d", (long long)a, ndim);
    *out = (int)(a < 0 ? a + ndim : a);
    return 0;
}

int graph_fancy_infer(graph_t *g, graph_node_t *n, const graph_raw_t *r, char *err, size_t errlen)
{
    bool mine = fancy_is_op(n->op);
    if (n->op == OP_GETITEM) {
        int64_t in;
        for (size_t k = 0; k < json_array_size(r->index); k++)
            if (fancy_json_input(json_array_get(r->index, k), &in)) mine = true;
        if (!mine && n->n_in > 1)
            return FAIL("takes 1 input when the index has no {\"input\": N} entry, got %d",
                        n->n_in);
    }
    if (!mine) return 1;
    fancy_t *fx = calloc(1, sizeof *fx);
    if (!fx) return FAIL("out of memory");
    n->fancy = fx;
    fx->value_in = -1;
    fx->src_in = (n->op == OP_COMPRESS || n->op == OP_EXTRACT) ? 1 : 0;
    const graph_node_t *a = tin(g, n, fx->src_in);
    if (!a) return FAIL("inputs[%d] must be a tensor, not a scalar", fx->src_in);
    shape_t S = a->oshape;
    n->odtype = a->odtype;
    int nb = 0, bpos;
    int64_t b[MR_MAXDIM], V[MR_MAXDIM];
    int nv;
    switch (n->op) {
    case OP_GETITEM:
    case OP_SETITEM:
        if (build_index(g, n, fx, r->index, &S, n->op == OP_SETITEM ? 2 : 1, err, errlen))
            return -1;
        break;
    case OP_TAKE: {
        const graph_node_t *m = tin(g, n, 1);
        if (m && m->vkind != VK_TENSOR) return FAIL("input \"%s\" is not a tensor", m->key);
        if (m && ((!dt_is_int(m->odtype) && m->odtype != DT_BOOL) || m->odtype == DT_UINT64))
            return FAIL("Cannot cast array data from dtype('%s') to dtype('int64') according to "
                        "the rule 'safe'",
                        dt_name(m->odtype));
        if (!m && n->in[1].sc.kind != SC_INT)
            return FAIL("indices must be an integer tensor or an integer");
        int axis = 0;
        if (!r->axis || json_is_null(r->axis)) {
            fx->flat_src = true;
            S.d[0] = shape_size(&a->oshape);
            S.ndim = 1;
        } else if (norm_axis1(n, r->axis, S.ndim, &axis, err, errlen)) {
            return -1;
        }
        for (int d = 0; d < axis; d++)
            whole(&fx->ent[fx->n_ent++], d, S.d[d]);
        fx_ent_t *x = &fx->ent[fx->n_ent++];
        memset(x, 0, sizeof *x);
        x->axis = axis;
        x->nax = 1;
        x->in = 1;
        if (m) {
            x->kind = FX_ARR;
        } else {
            int64_t i = n->in[1].sc.i;
            if (i < -S.d[axis] || i >= S.d[axis])
                return FAIL("index %lld is out of bounds for axis %d with size %lld", (long long)i,
                            axis, (long long)S.d[axis]);
            x->kind = FX_INT;
            x->ix.is_int = true;
            x->ix.i = i < 0 ? i + S.d[axis] : i;
        }
        for (int d = axis + 1; d < S.ndim; d++)
            whole(&fx->ent[fx->n_ent++], d, S.d[d]);
        break;
    }
    case OP_COMPRESS:
    case OP_EXTRACT: {
        const graph_node_t *m = tin(g, n, 0);
        if (!m || m->vkind != VK_TENSOR) return FAIL("condition must be a tensor");
        if (n->op == OP_COMPRESS && m->oshape.ndim != 1)
            return FAIL("condition must be a 1-d array");
        int axis = 0;
        if (n->op == OP_EXTRACT || !r->axis || json_is_null(r->axis)) {
            fx->flat_src = true;
            S.d[0] = shape_size(&a->oshape);
            S.ndim = 1;
        } else if (norm_axis1(n, r->axis, S.ndim, &axis, err, errlen)) {
            return -1;
        }
        for (int d = 0; d < axis; d++)
            whole(&fx->ent[fx->n_ent++], d, S.d[d]);
        fx_ent_t *x = &fx->ent[fx->n_ent++];
        memset(x, 0, sizeof *x);
        x->kind = FX_COND;
        x->axis = axis;
        x->nax = 1;
        x->in = 0;
        for (int d = axis + 1; d < S.ndim; d++)
            whole(&fx->ent[fx->n_ent++], d, S.d[d]);
        break;
    }
    case OP_ARGWHERE:
        if (S.ndim == 0) return FAIL("argwhere of a 0-d tensor is not supported");
        fx->mode = FXM_ARGWHERE;
        n->odtype = DT_INT64;
        n->oshape.ndim = 2;
        n->oshape.d[0] = 0;
        n->oshape.d[1] = S.ndim;
        fx->held = true;
        return make_held(n, err, errlen);
    case OP_FLATNONZERO:
        fx->mode = FXM_FLATNONZERO;
        n->odtype = DT_INT64;
        n->oshape.ndim = 1;
        n->oshape.d[0] = 0;
        fx->held = true;
        return make_held(n, err, errlen);
    default:
        return FAIL("internal: not an advanced-indexing op");
    }
    if (adv_bcast(g, n, fx, &nb, b, err, errlen)) return -1;
    if (fancy_view_shape(fx, S.d, nb, b, V, &nv, &bpos))
        return FAIL("maximum supported dimension for an ndarray is %d", MR_MAXDIM);
    bool unknown = false;
    for (int d = 0; d < nv; d++)
        unknown |= V[d] < 0;
    if (n->op == OP_SETITEM) {
        fx->set = true;
        fx->value_in = 1;
        n->oshape = a->oshape;
        const graph_node_t *v = tin(g, n, 1);
        if (v && v->vkind != VK_TENSOR) return FAIL("the value \"%s\" is not a tensor", v->key);
        if (!v && n->in[1].str) return FAIL("the value is a string");
        if (v) {
            /* the value broadcasts to the view (masks' lengths are checked when it runs) */
            bool ok = true;
            for (int q = 0; q < v->oshape.ndim; q++) {
                int dv = nv - v->oshape.ndim + q;
                int64_t w = v->oshape.d[q];
                if (dv < 0)
                    ok &= w == 1;
                else
                    ok &= w == 1 || V[dv] < 0 || V[dv] == w;
            }
            if (!ok) {
                char s1[256], s2[256];
                fmt_shape(v->oshape.ndim, v->oshape.d, s1, sizeof s1);
                fmt_shape(nv, V, s2, sizeof s2);
                return FAIL("shape mismatch: value array of shape %s could not be broadcast to "
                            "indexing result of shape %s",
                            s1, s2);
            }
        }
        return 0;
    }
    n->oshape.ndim = nv;
    for (int d = 0; d < nv; d++)
        n->oshape.d[d] = V[d] < 0 ? 0 : V[d];
    if (!unknown) return 0;
    bool lead = V[0] < 0;
    for (int d = 1; d < nv; d++)
        lead &= V[d] >= 0;
    if (!lead)
        return FAIL("a boolean mask (or compress's condition) must select along the first "
                    "axis of the result here (its length is known only when it runs)");
    fx->held = true;
    return make_held(n, err, errlen);
}
