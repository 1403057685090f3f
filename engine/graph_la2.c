/* graph_la2.c: fields and inference of linalg.qr, svd, eigh and slogdet
 * (la2.h). Messages are numpy's where numpy refuses (LinAlgError text). */
#include <stdio.h>
#include <string.h>

#include "graph_internal.h"
#include "la2.h"

#define FAIL(n, ...) graph_fail(err, errlen, (n), __VA_ARGS__)

bool graph_la2_op(op_t op)
{
    return op == OP_LA_QR || op == OP_LA_SVD || op == OP_LA_EIGH || op == OP_LA_SLOGDET;
}

const char *const *graph_la2_fields(op_t op)
{
    static const char *const qr[] = {"mode", NULL};
    static const char *const svd[] = {"full_matrices", "compute_uv", "hermitian", NULL};
    static const char *const eigh[] = {"UPLO", NULL};
    static const char *const none[] = {NULL};
    switch (op) {
    case OP_LA_QR:
        return qr;
    case OP_LA_SVD:
        return svd;
    case OP_LA_EIGH:
        return eigh;
    default:
        return none;
    }
}

static int want(graph_node_t *n, int k, const char *what, char *err, size_t errlen)
{
    if (n->n_outputs != k)
        return FAIL(n, "%s gives %d result%s, but \"outputs\" names %d", what, k, k == 1 ? "" : "s",
                    n->n_outputs);
    return 0;
}

static int get_bool(graph_node_t *n, json_t *obj, const char *name, bool dflt, bool *out, char *err,
                    size_t errlen)
{
    json_t *v = json_object_get(obj, name);
    *out = dflt;
    if (!v) return 0;
    if (!json_is_boolean(v)) return FAIL(n, "\"%s\" must be a boolean", name);
    *out = json_is_true(v);
    return 0;
}

int graph_la2_check(graph_node_t *n, json_t *obj, char *err, size_t errlen)
{
    switch (n->op) {
    case OP_LA_QR: {
        json_t *m = json_object_get(obj, "mode");
        if (m && (!json_is_string(m) || strcmp(json_string_value(m), "reduced") != 0)) {
            if (json_is_string(m) &&
                (!strcmp(json_string_value(m), "complete") || !strcmp(json_string_value(m), "r") ||
                 !strcmp(json_string_value(m), "raw")))
                return FAIL(n, "mode \"%s\" is not supported: \"reduced\" (numpy's default) only",
                            json_string_value(m));
            return FAIL(n, "Unrecognized mode '%s'",
                        json_is_string(m) ? json_string_value(m) : "(not a string)");
        }
        return want(n, 2, "qr (mode reduced: q, r)", err, errlen);
    }
    case OP_LA_SVD: {
        bool full, uv, herm;
        if (get_bool(n, obj, "full_matrices", true, &full, err, errlen) ||
            get_bool(n, obj, "compute_uv", true, &uv, err, errlen) ||
            get_bool(n, obj, "hermitian", false, &herm, err, errlen))
            return -1;
        if (herm) return FAIL(n, "hermitian true is not supported (use linalg.eigh)");
        n->mo_flag = full;
        n->mo_sparse = uv;
        return uv ? want(n, 3, "svd (u, s, vh)", err, errlen)
                  : want(n, 1, "svd with compute_uv false (s)", err, errlen);
    }
    case OP_LA_EIGH: {
        json_t *u = json_object_get(obj, "UPLO");
        n->mo_col = 0;
        if (u) {
            const char *s = json_is_string(u) ? json_string_value(u) : "";
            if (strcmp(s, "L") != 0 && strcmp(s, "U") != 0)
                return FAIL(n, "UPLO argument must be 'L' or 'U'");
            n->mo_col = s[0] == 'U';
        }
        return want(n, 2, "eigh (w, v)", err, errlen);
    }
    default: /* slogdet */
        return want(n, 2, "slogdet (sign, logabsdet)", err, errlen);
    }
}

int graph_la2_infer(graph_t *g, int i, char *err, size_t errlen)
{
    graph_node_t *n = &g->nodes[i];
    const graph_node_t *a = &g->nodes[n->in[0].node];
    if (a->oshape.ndim != 2)
        return FAIL(n, "%d-dimensional array given. Array must be two-dimensional", a->oshape.ndim);
    int64_t m = a->oshape.d[0], c = a->oshape.d[1], k = m < c ? m : c;
    /* numpy's result dtypes: float32 stays, the rest become float64 */
    dtype_t dt = a->odtype == DT_FLOAT32 ? DT_FLOAT32 : DT_FLOAT64;
    n->odtype = dt;
    switch (n->op) {
    case OP_LA_QR:
        n->oshape.ndim = 2;
        n->oshape.d[0] = n->out_index == 0 ? m : k;
        n->oshape.d[1] = n->out_index == 0 ? k : c;
        return 0;
    case OP_LA_SVD: {
        if (n->mo_flag && m != c && n->mo_sparse)
            return FAIL(n,
                        "full_matrices true (numpy's default) is supported for square "
                        "matrices only: pass full_matrices false for this %lld x %lld one",
                        (long long)m, (long long)c);
        int r = n->mo_sparse ? n->out_index : 1; /* u, s, vh */
        if (r == 1) {
            n->oshape.ndim = 1;
            n->oshape.d[0] = k;
        } else {
            n->oshape.ndim = 2;
            n->oshape.d[0] = r == 0 ? m : k;
            n->oshape.d[1] = r == 0 ? k : c;
        }
        return 0;
    }
    case OP_LA_EIGH:
    case OP_LA_SLOGDET:
        if (m != c) return FAIL(n, "Last 2 dimensions of the array must be square");
        if (n->op == OP_LA_SLOGDET) {
            n->oshape.ndim = 0;
            return 0;
        }
        n->oshape.ndim = n->out_index == 0 ? 1 : 2;
        n->oshape.d[0] = m;
        n->oshape.d[1] = m;
        return 0;
    default:
        return FAIL(n, "internal: not a linalg op with several results");
    }
}
