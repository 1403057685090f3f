/* graph_setops.c: parameters and inference of union1d, intersect1d,
 * setdiff1d and bincount (setops.h). Their results' lengths depend on the
 * data: each is held like unique's (a 1-D tensor kept as frame blobs,
 * fetch-only; docs/graph-format.md, "Set operations and bincount"). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "df/dfgraph.h"
#include "graph_internal.h"
#include "setops.h"

#define FAIL(n, ...) graph_fail(err, errlen, (n), __VA_ARGS__)

bool graph_setops_owns(op_t op)
{
    return op == OP_UNION1D || op == OP_INTERSECT1D || op == OP_SETDIFF1D || op == OP_BINCOUNT;
}

bool graph_setops_arity(op_t op, int *lo, int *hi)
{
    if (!graph_setops_owns(op)) return false;
    *lo = *hi = 2;
    if (op == OP_BINCOUNT) *lo = 1; /* [x] or [x, weights] */
    return true;
}

int graph_setops_parse(graph_node_t *n, void *json_obj, char *err, size_t errlen)
{
    json_t *obj = json_obj;
    static const char *const none[] = {NULL};
    static const char *const inter[] = {"assume_unique", "return_indices", NULL};
    static const char *const diff[] = {"assume_unique", NULL};
    static const char *const bin[] = {"minlength", NULL};
    const char *const *f = n->op == OP_INTERSECT1D ? inter
                           : n->op == OP_SETDIFF1D ? diff
                           : n->op == OP_BINCOUNT  ? bin
                                                   : none;
    const char *name;
    json_t *v;
    json_object_foreach(obj, name, v)
    {
        if (!strcmp(name, "key") || !strcmp(name, "op") || !strcmp(name, "inputs")) continue;
        int i = 0;
        while (f[i] && strcmp(f[i], name) != 0)
            i++;
        if (!f[i]) {
            char eb[49];
            snprintf(eb, sizeof eb, "%s", name);
            for (char *p = eb; *p; p++)
                if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\') *p = '?';
            if (!strcmp(name, "outputs") && n->n_outputs) continue; /* intersect1d's */
            if (!strcmp(name, "outputs"))
                return FAIL(n, "takes no \"outputs\": %s has one result", op_name(n->op));
            return FAIL(n, "unknown field \"%s\"", eb);
        }
    }
    n->so_assume_unique = false;
    n->so_minlength = 0;
    if ((v = json_object_get(obj, "assume_unique"))) {
        if (!json_is_boolean(v)) return FAIL(n, "\"assume_unique\" must be a boolean");
        n->so_assume_unique = json_is_true(v);
    }
    if ((v = json_object_get(obj, "return_indices"))) {
        if (!json_is_boolean(v)) return FAIL(n, "\"return_indices\" must be a boolean");
        if (json_is_true(v) && !n->n_outputs)
            return FAIL(n, "has several results with return_indices: name them with "
                           "\"outputs\": [\"k1\", \"k2\", \"k3\"] (values, indexes in a, "
                           "indexes in b)");
    }
    if (n->n_outputs) { /* intersect1d with "outputs" */
        if (!v || !json_is_true(v))
            return FAIL(n, "takes \"outputs\" only with return_indices true (it then gives 3 "
                           "results)");
        if (n->n_outputs != 3)
            return FAIL(n,
                        "intersect1d with return_indices gives 3 results, but \"outputs\" "
                        "names %d",
                        n->n_outputs);
    }
    if ((v = json_object_get(obj, "minlength")) && !json_is_null(v)) {
        if (!json_is_integer(v)) return FAIL(n, "\"minlength\" must be an integer or null");
        if (json_integer_value(v) < 0) return FAIL(n, "'minlength' must not be negative");
        n->so_minlength = (int64_t)json_integer_value(v);
        if (n->so_minlength > SO_BIN_MAX_BYTES / 8)
            return FAIL(n,
                        "minlength %lld gives more than the %lld counts one bincount job holds "
                        "(docs/graph-format.md, bincount)",
                        (long long)n->so_minlength, (long long)(SO_BIN_MAX_BYTES / 8));
    }
    return 0;
}

static bool held_dt(dtype_t dt)
{
    return dt == DT_BOOL || dt == DT_INT64 || dt == DT_FLOAT64;
}

/* numpy's result type of concatenating a and b (both bool, int64 or
 * float64) */
static dtype_t join_dt(dtype_t a, dtype_t b)
{
    if (a == DT_FLOAT64 || b == DT_FLOAT64) return DT_FLOAT64;
    if (a == DT_INT64 || b == DT_INT64) return DT_INT64;
    return DT_BOOL;
}

int graph_setops_infer(graph_t *g, int i, char *err, size_t errlen)
{
    graph_node_t *n = &g->nodes[i];
    for (int j = 0; j < n->n_in; j++)
        if (n->in[j].node < 0) return FAIL(n, "inputs[%d] must be a tensor", j);
    const graph_node_t *a = &g->nodes[n->in[0].node];
    const graph_node_t *b = n->n_in > 1 ? &g->nodes[n->in[1].node] : NULL;
    dtype_t odt;
    if (n->op == OP_BINCOUNT) {
        if (a->oshape.ndim == 0) return FAIL(n, "object of too small depth for desired array");
        if (a->oshape.ndim > 1) return FAIL(n, "object too deep for desired array");
        if (a->odtype != DT_BOOL && (!dt_is_int(a->odtype) || a->odtype == DT_UINT64))
            return FAIL(n,
                        "Cannot cast array data from dtype('%s') to dtype('int64') according "
                        "to the rule 'safe'",
                        dt_name(a->odtype));
        if (b) {
            if (b->oshape.ndim == 0) return FAIL(n, "object of too small depth for desired array");
            if (b->oshape.ndim > 1) return FAIL(n, "object too deep for desired array");
            if (b->oshape.d[0] != a->oshape.d[0])
                return FAIL(n, "The weights and list don't have the same length.");
        }
        /* numpy: zeros(minlength, intp) for an empty x, weights or not */
        odt = b && a->oshape.d[0] > 0 ? DT_FLOAT64 : DT_INT64;
    } else {
        for (int j = 0; j < 2; j++) {
            dtype_t dt = g->nodes[n->in[j].node].odtype;
            if (!held_dt(dt))
                return FAIL(n,
                            "%s of %s (inputs[%d]) is not supported yet (bool, int64 and float64 "
                            "are); astype first",
                            op_name(n->op), dt_name(dt), j);
        }
        odt = n->op == OP_SETDIFF1D ? a->odtype : join_dt(a->odtype, b->odtype);
        if (n->n_outputs && n->out_index > 0) odt = DT_INT64; /* intersect1d's indexes */
    }
    return graph_held_1d(g, i, odt, err, errlen);
}
