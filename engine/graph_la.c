/* graph_la.c: parameters, shapes and dtypes of the linalg branch's ops
 * (graph_la.h), with numpy 1.24's refusals and messages. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"
#include "graph_la.h"

#define LFAIL(n, ...) graph_fail(err, errlen, (n), __VA_ARGS__)

bool graph_la_owns(op_t op)
{
    switch (op) {
    case OP_LA_CHOLESKY:
    case OP_LA_SOLVE:
    case OP_LA_INV:
    case OP_LA_DET:
    case OP_LA_NORM:
    case OP_LA_MATRIX_RANK:
    case OP_TRACE:
    case OP_DIAGONAL:
    case OP_VDOT:
    case OP_EINSUM:
    case OP_DIAG:
    case OP_TRIL:
    case OP_TRIU:
        return true;
    default:
        return false;
    }
}

void graph_la_arity(op_t op, int *lo, int *hi)
{
    *lo = *hi = 1;
    if (op == OP_LA_SOLVE || op == OP_VDOT) *lo = *hi = 2;
    if (op == OP_EINSUM) *hi = LA_EINSUM_MAX_OPERANDS;
}

/* The fields each op takes besides key, op and inputs (NULL-ended). */
static const char *const *la_fields(op_t op)
{
    static const char *const none[] = {NULL};
    static const char *const norm[] = {"ord", "axis", "keepdims", NULL};
    static const char *const rank[] = {"tol", "hermitian", NULL};
    static const char *const trace[] = {"offset", "axis1", "axis2", "dtype", NULL};
    static const char *const diagonal[] = {"offset", "axis1", "axis2", NULL};
    static const char *const einsum[] = {"subscripts", "optimize", NULL};
    static const char *const k[] = {"k", NULL};
    switch (op) {
    case OP_LA_NORM:
        return norm;
    case OP_LA_MATRIX_RANK:
        return rank;
    case OP_TRACE:
        return trace;
    case OP_DIAGONAL:
        return diagonal;
    case OP_EINSUM:
        return einsum;
    case OP_DIAG:
    case OP_TRIL:
    case OP_TRIU:
        return k;
    default:
        return none;
    }
}

static int get_i64(graph_node_t *n, json_t *obj, const char *name, int64_t *out, char *err,
                   size_t errlen)
{
    json_t *v = json_object_get(obj, name);
    if (!v) return 0;
    if (!json_is_integer(v)) return LFAIL(n, "\"%s\" must be an integer", name);
    *out = (int64_t)json_integer_value(v);
    return 1;
}

static int parse_ord(graph_node_t *n, la_node_t *la, json_t *v, char *err, size_t errlen)
{
    la->ord_kind = LA_ORD_NONE;
    if (!v || json_is_null(v)) return 0;
    if (json_is_integer(v) || json_is_real(v)) {
        la->ord_kind = LA_ORD_NUM;
        la->ord = json_number_value(v);
        return 0;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (strcmp(s, "fro") == 0 || strcmp(s, "f") == 0) {
            la->ord_kind = LA_ORD_FRO;
            return 0;
        }
        if (strcmp(s, "nuc") == 0) {
            la->ord_kind = LA_ORD_NUC;
            return 0;
        }
        if (strcmp(s, "inf") == 0 || strcmp(s, "-inf") == 0) {
            la->ord_kind = LA_ORD_NUM;
            la->ord = s[0] == '-' ? -INFINITY : INFINITY;
            return 0;
        }
    }
    return LFAIL(n, "\"ord\" must be null, a number, \"inf\", \"-inf\", \"fro\" or \"nuc\"");
}

int graph_la_parse(graph_node_t *n, json_t *obj, char *err, size_t errlen)
{
    const char *const *fl = la_fields(n->op);
    const char *name;
    json_t *val;
    json_object_foreach(obj, name, val)
    {
        if (strcmp(name, "key") == 0 || strcmp(name, "op") == 0 || strcmp(name, "inputs") == 0)
            continue;
        bool ok = false;
        for (int i = 0; fl[i] && !ok; i++)
            ok = strcmp(fl[i], name) == 0;
        if (!ok) return LFAIL(n, "unknown field \"%.64s\"", name);
    }
    la_node_t *la = calloc(1, sizeof *la);
    if (!la) return LFAIL(n, "out of memory");
    n->la = la;
    json_t *v;
    switch (n->op) {
    case OP_LA_NORM:
        if (parse_ord(n, la, json_object_get(obj, "ord"), err, errlen) < 0) return -1;
        v = json_object_get(obj, "axis");
        la->axis_none = !v || json_is_null(v);
        if (!la->axis_none) {
            bool ok = json_is_integer(v) ||
                      (json_is_array(v) && json_array_size(v) >= 1 && json_array_size(v) <= 2);
            for (size_t i = 0; ok && json_is_array(v) && i < json_array_size(v); i++)
                ok = json_is_integer(json_array_get(v, i));
            if (!ok)
                return LFAIL(n, "\"axis\" must be null, an integer or a list of 1 or 2 integers");
            la->raw_axis = v;
        }
        v = json_object_get(obj, "keepdims");
        if (v && !json_is_boolean(v)) return LFAIL(n, "\"keepdims\" must be true or false");
        la->keepdims = v && json_is_true(v);
        return 0;
    case OP_LA_MATRIX_RANK:
        v = json_object_get(obj, "tol");
        if (v && !json_is_null(v)) {
            if (!json_is_number(v)) return LFAIL(n, "\"tol\" must be null or a number");
            la->has_tol = true;
            la->tol = json_number_value(v);
        }
        v = json_object_get(obj, "hermitian");
        if (v && !json_is_boolean(v)) return LFAIL(n, "\"hermitian\" must be true or false");
        return 0;
    case OP_TRACE:
    case OP_DIAGONAL:
        la->raw_axis1 = 0;
        la->raw_axis2 = 1;
        if (get_i64(n, obj, "offset", &la->k, err, errlen) < 0 ||
            get_i64(n, obj, "axis1", &la->raw_axis1, err, errlen) < 0 ||
            get_i64(n, obj, "axis2", &la->raw_axis2, err, errlen) < 0)
            return -1;
        v = json_object_get(obj, "dtype");
        if (v && !json_is_null(v)) {
            if (!json_is_string(v) || dt_parse(json_string_value(v), &la->dtype) != 0)
                return LFAIL(n, "\"dtype\" must be one of " DT_NAMES);
            la->has_dtype = true;
        }
        break;
    case OP_EINSUM:
        v = json_object_get(obj, "subscripts");
        if (!v) return LFAIL(n, "\"subscripts\" is missing");
        if (!json_is_string(v)) return LFAIL(n, "\"subscripts\" must be a string");
        if (!(la->subscripts = strdup(json_string_value(v)))) return LFAIL(n, "out of memory");
        v = json_object_get(obj, "optimize");
        if (v && !json_is_boolean(v) && !json_is_string(v))
            return LFAIL(n, "\"optimize\" must be true, false or a string");
        return 0;
    case OP_DIAG:
    case OP_TRIL:
    case OP_TRIU:
        if (get_i64(n, obj, "k", &la->k, err, errlen) < 0) return -1;
        break;
    default:
        return 0;
    }
    /* an offset past every dimension acts as any other past them: clamped,
     * so that sizes computed from it cannot overflow */
    if (la->k > LA_K_MAX) la->k = LA_K_MAX;
    if (la->k < -LA_K_MAX) la->k = -LA_K_MAX;
    return 0;
}

void graph_la_free(la_node_t *la)
{
    if (!la) return;
    free(la->subscripts);
    free(la);
}

/* ---------------------------------------------------------------------------
 * Inference */

static const graph_node_t *in_node(const graph_t *g, const graph_node_t *n, int j)
{
    return &g->nodes[n->in[j].node];
}

/* numpy linalg's result type: float32 when every input is float32, else float64. */
static dtype_t la_float(const graph_t *g, const graph_node_t *n)
{
    for (int j = 0; j < n->n_in; j++)
        if (in_node(g, n, j)->odtype != DT_FLOAT32) return DT_FLOAT64;
    return DT_FLOAT32;
}

static int norm_axis(graph_node_t *n, int64_t ax, int ndim, int *out, char *err, size_t errlen)
{
    if (ax < -(int64_t)ndim || ax >= ndim)
        return LFAIL(n, "axis %lld is out of bounds for array of dimension %d", (long long)ax,
                     ndim);
    *out = (int)(ax < 0 ? ax + ndim : ax);
    return 0;
}

static int square_stack(graph_node_t *n, const shape_t *s, char *err, size_t errlen)
{
    if (s->ndim < 2)
        return LFAIL(n, "%d-dimensional array given. Array must be at least two-dimensional",
                     s->ndim);
    if (s->d[s->ndim - 1] != s->d[s->ndim - 2])
        return LFAIL(n, "Last 2 dimensions of the array must be square");
    return 0;
}

static bool is_label(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* Reads one term of einsum's subscripts into labels; an ellipsis becomes
 * nell labels 1..nell (right-aligned against maxell: see below). Returns
 * the count, or -1. *ell: where the ellipsis was (-1: none). */
static int read_term(graph_node_t *n, const char *s, size_t len, unsigned char *lab, int *ell,
                     char *err, size_t errlen)
{
    int cnt = 0;
    *ell = -1;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == ' ') continue;
        if (ch == '.') {
            if (!(i + 2 < len && s[i + 1] == '.' && s[i + 2] == '.'))
                return LFAIL(n, "einstein sum subscripts string contains a '.' that is not part "
                                "of an ellipsis ('...')");
            if (*ell >= 0)
                return LFAIL(n, "einstein sum subscripts string contains more than one ellipsis "
                                "('...') in an operand");
            *ell = cnt;
            i += 2;
            continue;
        }
        if (!is_label(ch))
            return LFAIL(n,
                         "invalid subscript '%c' in einstein sum subscripts string, subscripts "
                         "must be letters",
                         ch >= 32 && ch < 127 ? ch : '?');
        if (cnt >= MR_MAXDIM) return LFAIL(n, "too many subscripts in einsum");
        lab[cnt++] = ch;
    }
    return cnt;
}

static int infer_einsum(graph_t *g, graph_node_t *n, la_node_t *la, char *err, size_t errlen)
{
    const char *s = la->subscripts;
    /* numpy's messages about the operand count, word for word (they read
     * backwards: numpy counts the operands against the terms) */
    const char *arrow = strstr(s, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - s) : strlen(s);
    /* the operand terms */
    int nop = 0;
    size_t st = 0;
    unsigned char tl[LA_EINSUM_MAX_OPERANDS][MR_MAXDIM];
    int tn[LA_EINSUM_MAX_OPERANDS], tell[LA_EINSUM_MAX_OPERANDS];
    for (size_t i = 0; i <= lhs_len; i++) {
        if (i < lhs_len && s[i] != ',') continue;
        if (nop >= n->n_in)
            return LFAIL(n, "more operands provided to einstein sum function than specified in "
                            "the subscripts string");
        int c = read_term(n, s + st, i - st, tl[nop], &tell[nop], err, errlen);
        if (c < 0) return -1;
        tn[nop++] = c;
        st = i + 1;
    }
    if (nop < n->n_in)
        return LFAIL(n, "fewer operands provided to einstein sum function than specified in the "
                        "subscripts string");
    if (arrow && strchr(arrow + 2, '-'))
        return LFAIL(n, "einstein sum subscripts string includes output subscript '-' more than "
                        "once");
    /* ellipsis dims per operand, and the broadcast count */
    int maxell = 0, nell[LA_EINSUM_MAX_OPERANDS];
    for (int k = 0; k < nop; k++) {
        const shape_t *sh = &in_node(g, n, k)->oshape;
        nell[k] = 0;
        if (tell[k] < 0) {
            if (tn[k] != sh->ndim)
                return LFAIL(n,
                             "operand %d has %d dimensions but the subscripts string gives "
                             "it %d",
                             k, sh->ndim, tn[k]);
        } else {
            if (tn[k] > sh->ndim)
                return LFAIL(n,
                             "einstein sum subscripts string contains too many subscripts "
                             "for operand %d",
                             k);
            nell[k] = sh->ndim - tn[k];
        }
        if (nell[k] > maxell) maxell = nell[k];
    }
    /* expand: ellipsis dims take labels 1..maxell, right-aligned */
    for (int k = 0; k < nop; k++) {
        int c = 0;
        for (int i = 0; i <= tn[k]; i++) {
            if (i == tell[k])
                for (int e = 0; e < nell[k]; e++)
                    la->lab[k][c++] = (unsigned char)(maxell - nell[k] + e + 1);
            if (i < tn[k]) la->lab[k][c++] = tl[k][i];
        }
        la->nlab[k] = c;
    }
    la->n_opnd = nop;
    /* sizes per label */
    int64_t size[256];
    int count[256];
    for (int i = 0; i < 256; i++) {
        size[i] = -1;
        count[i] = 0;
    }
    for (int k = 0; k < nop; k++) {
        const shape_t *sh = &in_node(g, n, k)->oshape;
        for (int d = 0; d < la->nlab[k]; d++) {
            unsigned char L = la->lab[k][d];
            count[L]++;
            int64_t len = sh->d[d];
            if (size[L] < 0 || size[L] == 1)
                size[L] = len;
            else if (len != 1 && len != size[L])
                return LFAIL(n,
                             "operands could not be broadcast together with remapped shapes: "
                             "subscript '%c' has sizes %lld and %lld",
                             L < 32 ? '.' : L, (long long)size[L], (long long)len);
        }
    }
    /* the output */
    int no = 0;
    if (arrow) {
        int oell;
        unsigned char ol[MR_MAXDIM];
        const char *os = arrow + 2;
        int c = read_term(n, os, strlen(os), ol, &oell, err, errlen);
        if (c < 0) return -1;
        if (oell >= 0 || maxell == 0) {
            for (int i = 0; i <= c; i++) {
                if (i == oell)
                    for (int e = 1; e <= maxell; e++)
                        la->out[no++] = (unsigned char)e;
                if (i < c) {
                    if (no >= MR_MAXDIM) return LFAIL(n, "too many output subscripts");
                    la->out[no++] = ol[i];
                }
            }
        } else {
            return LFAIL(n, "output has more dimensions than subscripts given in einstein sum, "
                            "but no '...' ellipsis provided to broadcast the extra dimensions.");
        }
        for (int i = 0; i < no; i++) {
            unsigned char L = la->out[i];
            if (L >= 32 && count[L] == 0)
                return LFAIL(n,
                             "einstein sum subscripts string included output subscript '%c' "
                             "which never appeared in an input",
                             L);
            for (int j = 0; j < i; j++)
                if (la->out[j] == L)
                    return LFAIL(n,
                                 "einstein sum subscripts string includes output subscript "
                                 "'%c' multiple times",
                                 L);
        }
    } else {
        for (int e = 1; e <= maxell; e++)
            la->out[no++] = (unsigned char)e;
        for (int L = 'A'; L <= 'z'; L++)
            if (is_label((unsigned char)L) && count[L] == 1) {
                if (no >= MR_MAXDIM) return LFAIL(n, "too many output subscripts");
                la->out[no++] = (unsigned char)L;
            }
    }
    la->nout = no;
    n->oshape.ndim = no;
    for (int i = 0; i < no; i++)
        n->oshape.d[i] = size[la->out[i]] < 0 ? 1 : size[la->out[i]];
    dtype_t dts[LA_EINSUM_MAX_OPERANDS];
    for (int k = 0; k < nop; k++)
        dts[k] = in_node(g, n, k)->odtype;
    n->odtype = dt_result_type(nop, dts, 0, NULL);
    return 0;
}

static int infer_norm(graph_node_t *n, la_node_t *la, const shape_t *s, char *err, size_t errlen)
{
    int nd = s->ndim;
    if (la->axis_none) {
        bool flat = la->ord_kind == LA_ORD_NONE || (la->ord_kind == LA_ORD_FRO && nd == 2) ||
                    (la->ord_kind == LA_ORD_NUM && la->ord == 2 && nd == 1);
        if (flat) {
            /* every axis, as one vector */
            la->n_axis = 0;
            n->oshape.ndim = la->keepdims ? nd : 0;
            for (int d = 0; d < n->oshape.ndim; d++)
                n->oshape.d[d] = 1;
            return 0;
        }
        if (nd != 1 && nd != 2) return LFAIL(n, "Improper number of dimensions to norm.");
        la->n_axis = nd;
        la->axis[0] = 0;
        la->axis[1] = 1;
    } else if (json_is_integer(la->raw_axis)) {
        la->n_axis = 1;
        if (norm_axis(n, json_integer_value(la->raw_axis), nd, &la->axis[0], err, errlen) < 0)
            return -1;
    } else {
        la->n_axis = (int)json_array_size(la->raw_axis);
        for (int i = 0; i < la->n_axis; i++)
            if (norm_axis(n, json_integer_value(json_array_get(la->raw_axis, (size_t)i)), nd,
                          &la->axis[i], err, errlen) < 0)
                return -1;
        if (la->n_axis == 2 && la->axis[0] == la->axis[1]) return LFAIL(n, "Duplicate axes given.");
    }
    la->raw_axis = NULL;
    if (la->n_axis == 1 && la->ord_kind != LA_ORD_NONE && la->ord_kind != LA_ORD_NUM)
        return LFAIL(n, "Invalid norm order '%s' for vectors",
                     la->ord_kind == LA_ORD_FRO ? "fro" : "nuc");
    if (la->n_axis == 2 && la->ord_kind == LA_ORD_NUM) {
        double o = la->ord;
        if (!(o == 2 || o == -2 || o == 1 || o == -1 || isinf(o)))
            return LFAIL(n, "Invalid norm order for matrices.");
    }
    int o = 0;
    for (int d = 0; d < nd; d++) {
        bool red = la->axis[0] == d || (la->n_axis == 2 && la->axis[1] == d);
        if (!red)
            n->oshape.d[o++] = s->d[d];
        else if (la->keepdims)
            n->oshape.d[o++] = 1;
    }
    n->oshape.ndim = o;
    return 0;
}

int graph_la_infer(graph_t *g, int i, char *err, size_t errlen)
{
    graph_node_t *n = &g->nodes[i];
    la_node_t *la = n->la;
    for (int j = 0; j < n->n_in; j++)
        if (in_node(g, n, j)->vkind != VK_TENSOR)
            return LFAIL(n, "input \"%s\" is a DataFrame or Series, not a tensor",
                         in_node(g, n, j)->key);
    const shape_t *s = &in_node(g, n, 0)->oshape;
    dtype_t dt = in_node(g, n, 0)->odtype;
    int nd = s->ndim;
    switch (n->op) {
    case OP_LA_CHOLESKY:
    case OP_LA_INV:
        if (square_stack(n, s, err, errlen) < 0) return -1;
        n->oshape = *s;
        n->odtype = la_float(g, n);
        return 0;
    case OP_LA_DET:
        if (square_stack(n, s, err, errlen) < 0) return -1;
        n->oshape = *s;
        n->oshape.ndim -= 2;
        n->odtype = la_float(g, n);
        return 0;
    case OP_LA_SOLVE: {
        const shape_t *b = &in_node(g, n, 1)->oshape;
        if (square_stack(n, s, err, errlen) < 0) return -1;
        bool vec = b->ndim == nd - 1;
        if (!vec && b->ndim != nd)
            return LFAIL(n,
                         "b must have %d or %d dimensions for a of %d (batch broadcasting "
                         "is not supported)",
                         nd - 1, nd, nd);
        for (int d = 0; d < nd - 2; d++)
            if (b->d[d] != s->d[d])
                return LFAIL(n, "the batch dimensions of a and b differ (batch broadcasting is "
                                "not supported)");
        if (b->d[nd - 2] != s->d[nd - 1])
            return LFAIL(n,
                         "solve: Input operand 1 has a mismatch in its core dimension 0 "
                         "(size %lld is different from %lld)",
                         (long long)b->d[nd - 2], (long long)s->d[nd - 1]);
        n->oshape = *b;
        n->odtype = la_float(g, n);
        return 0;
    }
    case OP_LA_NORM:
        n->odtype = dt == DT_FLOAT32 ? DT_FLOAT32 : DT_FLOAT64;
        return infer_norm(n, la, s, err, errlen);
    case OP_LA_MATRIX_RANK:
        n->odtype = DT_INT64;
        n->oshape = *s;
        n->oshape.ndim = nd < 2 ? 0 : nd - 2;
        return 0;
    case OP_TRACE:
    case OP_DIAGONAL: {
        if (nd < 2) return LFAIL(n, "diag requires an array of at least two dimensions");
        if (norm_axis(n, la->raw_axis1, nd, &la->axis1, err, errlen) < 0 ||
            norm_axis(n, la->raw_axis2, nd, &la->axis2, err, errlen) < 0)
            return -1;
        if (la->axis1 == la->axis2) return LFAIL(n, "axis1 and axis2 cannot be the same");
        int o = 0;
        for (int d = 0; d < nd; d++)
            if (d != la->axis1 && d != la->axis2) n->oshape.d[o++] = s->d[d];
        int64_t r = s->d[la->axis1], c = s->d[la->axis2], k = la->k, len;
        /* rows i, columns i + k */
        if (k >= 0)
            len = c - k < r ? c - k : r;
        else
            len = r + k < c ? r + k : c;
        if (k > c || -k > r || len < 0) len = 0;
        n->oshape.d[o++] = len;
        n->oshape.ndim = o;
        if (n->op == OP_DIAGONAL) {
            n->odtype = dt;
        } else {
            n->oshape.ndim--;
            n->odtype = la->has_dtype     ? la->dtype
                        : dt_is_float(dt) ? dt
                                          : dt_sum_type(dt); /* numpy's sum of ints, bools */
        }
        return 0;
    }
    case OP_VDOT: {
        const graph_node_t *b = in_node(g, n, 1);
        if (shape_size(s) != shape_size(&b->oshape))
            return LFAIL(n,
                         "vdot: the inputs have %lld and %lld elements; they must have the "
                         "same number",
                         (long long)shape_size(s), (long long)shape_size(&b->oshape));
        n->oshape.ndim = 0;
        n->odtype = dt_promote(dt, b->odtype);
        return 0;
    }
    case OP_EINSUM:
        return infer_einsum(g, n, la, err, errlen);
    case OP_DIAG:
        n->odtype = dt;
        if (nd == 1) {
            int64_t m = s->d[0] + (la->k < 0 ? -la->k : la->k);
            n->oshape.ndim = 2;
            n->oshape.d[0] = n->oshape.d[1] = m;
            return 0;
        }
        if (nd != 2) return LFAIL(n, "Input must be 1- or 2-d.");
        {
            int64_t r = s->d[0], c = s->d[1], k = la->k, len;
            if (k >= 0)
                len = c - k < r ? c - k : r;
            else
                len = r + k < c ? r + k : c;
            n->oshape.ndim = 1;
            n->oshape.d[0] = len < 0 ? 0 : len;
        }
        return 0;
    case OP_TRIL:
    case OP_TRIU:
        n->odtype = dt;
        if (nd == 0) return LFAIL(n, "tril/triu requires an array of at least one dimension");
        n->oshape = *s;
        if (nd == 1) {
            /* numpy broadcasts a vector against the (n, n) mask */
            n->oshape.ndim = 2;
            n->oshape.d[0] = n->oshape.d[1] = s->d[0];
        }
        return 0;
    default:
        return LFAIL(n, "internal: not a linalg-branch op");
    }
}
