/* graph_la2.c: fields and inference of linalg.qr, svd, eigh and slogdet
 * (la2.h). Messages are numpy's where numpy refuses (LinAlgError text). */
#include <stdio.h>
#include <string.h>

#include "graph_internal.h"
#include "la2.h"

#define FAIL(n, ...) graph_fail(err, errlen, (n), __VA_ARGS__)

bool graph_la2_op(op_t op)
{
    return op == OP_LA_QR || op == OP_LA_SVD || op == OP_LA_EIGH || op == OP_LA_SLOGDET ||
           op == OP_LA_LSTSQ;
}

const char *const *graph_la2_fields(op_t op)
{
    static const char *const qr[] = {"mode", NULL};
    static const char *const svd[] = {"full_matrices", "compute_uv", "hermitian", NULL};
    static const char *const eigh[] = {"UPLO", NULL};
    static const char *const lstsq[] = {"rcond", NULL};
    static const char *const none[] = {NULL};
    switch (op) {
    case OP_LA_QR:
        return qr;
    case OP_LA_SVD:
        return svd;
    case OP_LA_EIGH:
        return eigh;
    case OP_LA_LSTSQ:
        return lstsq;
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
    case OP_LA_LSTSQ: {
        /* numpy 1.24: "warn" (the default) is -1, machine precision; null
         * is eps max(M, N) (set at inference); a number is LAPACK's rcond */
        json_t *r = json_object_get(obj, "rcond");
        n->mo_has_range = false;
        n->mo_lo = -1.0;
        if (r && json_is_null(r)) {
            n->mo_has_range = true;
        } else if (r && json_is_number(r)) {
            n->mo_lo = json_number_value(r);
        } else if (r && !(json_is_string(r) && !strcmp(json_string_value(r), "warn"))) {
            return FAIL(n, "\"rcond\" must be a number, null or \"warn\"");
        }
        return want(n, 4, "lstsq (x, residuals, rank, s)", err, errlen);
    }
    default: /* slogdet */
        return want(n, 2, "slogdet (sign, logabsdet)", err, errlen);
    }
}

/* lstsq's residuals: a 1-D tensor of K values, or of none when the rank
 * is below N or M <= N, known when it runs: held like unique's values
 * (graph_held_1d; df/multi.c, MO_LSTSQ_RES). */
static int infer_lstsq(graph_t *g, int i, char *err, size_t errlen)
{
    graph_node_t *n = &g->nodes[i];
    const graph_node_t *a = &g->nodes[n->in[0].node], *b = &g->nodes[n->in[1].node];
    if (a->oshape.ndim != 2)
        return FAIL(n, "%d-dimensional array given. Array must be two-dimensional", a->oshape.ndim);
    if (b->oshape.ndim != 1 && b->oshape.ndim != 2)
        return FAIL(n, "%d-dimensional array given. Array must be two-dimensional",
                    b->oshape.ndim < 1 ? b->oshape.ndim + 1 : b->oshape.ndim);
    int64_t m = a->oshape.d[0], c = a->oshape.d[1], k = m < c ? m : c;
    if (b->oshape.d[0] != m) return FAIL(n, "Incompatible dimensions");
    /* numpy: float32 when both are float32, else float64 */
    dtype_t dt = a->odtype == DT_FLOAT32 && b->odtype == DT_FLOAT32 ? DT_FLOAT32 : DT_FLOAT64;
    if (n->mo_has_range) n->mo_lo = 2.220446049250313e-16 * (double)(m > c ? m : c);
    n->mo_bins = b->oshape.ndim == 2 ? b->oshape.d[1] : 1; /* K, la2_packed_len's */
    n->mo_sparse = b->oshape.ndim == 1;
    switch (n->out_index) {
    case 0: /* x: (N,) or (N, K) */
        n->odtype = dt;
        n->oshape.ndim = b->oshape.ndim;
        n->oshape.d[0] = c;
        if (b->oshape.ndim == 2) n->oshape.d[1] = b->oshape.d[1];
        return 0;
    case 1:
        n->mo_col = (int)(b->oshape.ndim == 2 ? b->oshape.d[1] : 1);
        /* held results are int64, float64 or bool: float64 (numpy's float32
         * for float32 inputs is the one difference) */
        return graph_held_1d(g, i, DT_FLOAT64, err, errlen);
    case 2: /* rank: numpy's int32 */
        n->odtype = DT_INT32;
        n->oshape.ndim = 0;
        return 0;
    default: /* s */
        n->odtype = dt;
        n->oshape.ndim = 1;
        n->oshape.d[0] = k;
        return 0;
    }
}

int graph_la2_infer(graph_t *g, int i, char *err, size_t errlen)
{
    graph_node_t *n = &g->nodes[i];
    if (n->op == OP_LA_LSTSQ) return infer_lstsq(g, i, err, errlen);
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
