/* graph.c: graph documents parsed and checked (graph.h). The checks run in
 * passes over the whole document, so that which error is reported first does
 * not depend on anything but the document:
 *   1. the document's fields; then per node, in document order, its key, op,
 *      fields and every parameter whose check needs no input shape;
 *   2. inputs resolved to nodes of the document or tensors of the session;
 *   3. fetch;
 *   4. a stable topological sort (cycles rejected);
 *   5. shape and dtype inference in that order (graph_infer.c), each output
 *      checked against the limits. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <jansson.h>

#include "graph.h"
#include "graph_fancy.h"
#include "graph_internal.h"
#include "graph_la.h"
#include "setops.h"
#include "shapes2.h"
#include "sortstat.h"

void graph_limits_default(graph_limits_t *lim)
{
    /* 64 MiB of JSON: graphs of any realistic size and inline arrays of a few
     * million values. jansson holds the whole tree (~40 bytes per value, so
     * up to ~1.5 GB for a document of bare numbers) until parsing ends;
     * bigger data belongs in files or session tensors. */
    lim->max_document_bytes = 64LL << 20;
    /* A parsed node takes ~3.3 KB (graph_node_t), so 100k nodes cost
     * ~330 MB; real programs have hundreds to thousands. */
    lim->max_nodes = 100000;
    /* 2^42 elements (4.4e12): 32 TiB of float64, beyond any cluster this
     * engine targets, and far from overflowing int64 index arithmetic
     * (offsets times item sizes, products of chunk counts). */
    lim->max_elements = 1LL << 42;
    /* 2^45 bytes (32 TiB) per tensor: the same bound in bytes. */
    lim->max_bytes = 1LL << 45;
    /* 4M chunks per tensor: a 2^42-element tensor in 1M-element chunks.
     * Beyond that, per-chunk costs (metadata, scheduling, one kernel call
     * each) outweigh the work in the chunks. */
    lim->max_chunks = 4000000;
    /* 8M chunks per graph: bounds the scheduler's memory and planning time
     * for one task. */
    lim->max_total_chunks = 8000000;
    /* 10M inline values (80 MB as float64): more belongs in a file or a
     * session tensor. */
    lim->max_array_elements = 10000000;
    lim->data_dir = NULL;
    /* 16 MiB of CSV text per chunk: the default chunk size of tensors too */
    lim->csv_chunk_bytes = 16LL << 20;
}

/* ---------------------------------------------------------------------------
 * Errors */

static void sanitize(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = ' ';
}

int graph_fail(char *err, size_t errlen, const graph_node_t *n, const char *fmt, ...)
{
    if (!err || errlen == 0) return -1;
    int o = 0;
    /* an output of an op with several results: named by the op's key */
    if (n)
        o = snprintf(err, errlen, "node \"%s\" (%s): ", n->n_outputs ? n->op_key : n->key,
                     op_name(n->op));
    if (o >= 0 && (size_t)o < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + o, errlen - (size_t)o, fmt, ap);
        va_end(ap);
    }
    sanitize(err);
    return -1;
}

/* A document's string shown in a message: quotes, backslashes and bytes
 * outside printable ASCII escaped, cut at 48 characters so that one bad
 * field cannot fill the message. */
#define ESC_LEN 256
static const char *esc(const char *s, char buf[ESC_LEN])
{
    size_t o = 0;
    int shown = 0;
    for (; *s; s++, shown++) {
        if (shown == 48) {
            memcpy(buf + o, "...", 3);
            o += 3;
            break;
        }
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            buf[o++] = '\\';
            buf[o++] = (char)ch;
        } else if (ch < 0x20 || ch >= 0x7f) {
            o += (size_t)snprintf(buf + o, ESC_LEN - o, "\\x%02x", ch);
        } else {
            buf[o++] = (char)ch;
        }
    }
    buf[o] = '\0';
    return buf;
}

/* ---------------------------------------------------------------------------
 * Parsing state */

typedef struct {
    const graph_limits_t *lim;
    const graph_session_t *sess;
    char *err;
    size_t errlen;
    graph_t *g;
    graph_raw_t *raw; /* parallel to g->nodes */
    int cap;          /* allocated entries of g->nodes and raw */
    int n_doc;        /* nodes of the document; session tensors follow */
    json_t *keys;     /* key -> node index (json integer): a hash table */
    json_t *opkeys;   /* multiout: key of an op with several results -> its document index */
} pctx_t;

static bool key_valid(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > GRAPH_KEY_MAX) return false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '.' || ch == '-'))
            return false;
    }
    return true;
}

/* Room for one more node (a session tensor); pointers into g->nodes must
 * not be held across this call. */
static int grow(pctx_t *c)
{
    graph_t *g = c->g;
    if (g->n_nodes < c->cap) return 0;
    int ncap = c->cap * 2;
    graph_node_t *nn = realloc(g->nodes, (size_t)ncap * sizeof *nn);
    if (!nn) return graph_fail(c->err, c->errlen, NULL, "document: out of memory");
    g->nodes = nn;
    graph_raw_t *nr = realloc(c->raw, (size_t)ncap * sizeof *nr);
    if (!nr) return graph_fail(c->err, c->errlen, NULL, "document: out of memory");
    c->raw = nr;
    memset(g->nodes + c->cap, 0, (size_t)(ncap - c->cap) * sizeof *nn);
    memset(c->raw + c->cap, 0, (size_t)(ncap - c->cap) * sizeof *nr);
    c->cap = ncap;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Fields and parameters */

enum {
    F_INPUTS,
    F_SHAPE,
    F_DTYPE,
    F_CHUNK,
    F_FILL,
    F_START,
    F_STOP,
    F_STEP,
    F_NUM,
    F_ENDPOINT,
    F_N,
    F_M,
    F_K,
    F_DATA,
    F_SEED,
    F_LOW,
    F_HIGH,
    F_LOC,
    F_SCALE,
    F_AMIN,
    F_AMAX,
    F_AXIS,
    F_KEEPDIMS,
    F_DDOF,
    F_AXES,
    F_NEWSHAPE,
    F_INDEX,
    F_DECIMALS,
    F_NSMALL,
    F_AXIS1,
    F_AXIS2,
    F_SOURCE,
    F_DESTINATION,
    F_RTOL,
    F_ATOL,
    F_EQUAL_NAN,
    F_SIZE, /* random distributions: numpy's size (the result's shape) */
    F_LAM,
    F_P,
    F_A,
    F_B,
    F_MEAN,
    F_SIGMA,
    F_DF,
    F_X, /* rsample.h: choice, permutation, multinomial, multivariate_normal */
    F_REPLACE,
    F_PVALS,
    F_COV,
    F_CHECK_VALID,
    F_TOL,
    F_COUNT
};

static const char *const field_names[F_COUNT] = {
    [F_INPUTS] = "inputs",
    [F_SHAPE] = "shape",
    [F_DTYPE] = "dtype",
    [F_CHUNK] = "chunk_size",
    [F_FILL] = "fill_value",
    [F_START] = "start",
    [F_STOP] = "stop",
    [F_STEP] = "step",
    [F_NUM] = "num",
    [F_ENDPOINT] = "endpoint",
    [F_N] = "N",
    [F_M] = "M",
    [F_K] = "k",
    [F_DATA] = "data",
    [F_SEED] = "seed",
    [F_LOW] = "low",
    [F_HIGH] = "high",
    [F_LOC] = "loc",
    [F_SCALE] = "scale",
    [F_AMIN] = "a_min",
    [F_AMAX] = "a_max",
    [F_AXIS] = "axis",
    [F_KEEPDIMS] = "keepdims",
    [F_DDOF] = "ddof",
    [F_AXES] = "axes",
    [F_NEWSHAPE] = "newshape",
    [F_INDEX] = "index",
    [F_DECIMALS] = "decimals",
    [F_NSMALL] = "n",
    [F_AXIS1] = "axis1",
    [F_AXIS2] = "axis2",
    [F_SOURCE] = "source",
    [F_DESTINATION] = "destination",
    [F_RTOL] = "rtol",
    [F_ATOL] = "atol",
    [F_EQUAL_NAN] = "equal_nan",
    [F_SIZE] = "size",
    [F_LAM] = "lam",
    [F_P] = "p",
    [F_A] = "a",
    [F_B] = "b",
    [F_MEAN] = "mean",
    [F_SIGMA] = "sigma",
    [F_DF] = "df",
    [F_X] = "x",
    [F_REPLACE] = "replace",
    [F_PVALS] = "pvals",
    [F_COV] = "cov",
    [F_CHECK_VALID] = "check_valid",
    [F_TOL] = "tol",
};
_Static_assert(F_COUNT <= 64, "op_fields is a 64-bit mask");

#define B(f) (UINT64_C(1) << (f))

/* The fields each op takes besides key and op (`inputs` is known to every
 * op; its arity is checked apart). */
static uint64_t op_fields(op_t op)
{
    const uint64_t rnd = B(F_SHAPE) | B(F_SEED) | B(F_CHUNK);
    switch (op) {
    case OP_ONES:
    case OP_ZEROS:
    case OP_EMPTY:
    case OP_ONES_LIKE:
    case OP_ZEROS_LIKE:
    case OP_EMPTY_LIKE:
        return B(F_SHAPE) | B(F_DTYPE) | B(F_CHUNK);
    case OP_FULL_LIKE:
        return B(F_SHAPE) | B(F_FILL) | B(F_DTYPE) | B(F_CHUNK);
    case OP_IDENTITY:
        return B(F_NSMALL) | B(F_DTYPE) | B(F_CHUNK);
    case OP_FULL:
        return B(F_SHAPE) | B(F_FILL) | B(F_DTYPE) | B(F_CHUNK);
    case OP_ARANGE:
        return B(F_START) | B(F_STOP) | B(F_STEP) | B(F_DTYPE) | B(F_CHUNK);
    case OP_LINSPACE:
        return B(F_START) | B(F_STOP) | B(F_NUM) | B(F_ENDPOINT) | B(F_CHUNK);
    case OP_EYE:
        return B(F_N) | B(F_M) | B(F_K) | B(F_DTYPE) | B(F_CHUNK);
    case OP_ARRAY:
        return B(F_DATA) | B(F_DTYPE) | B(F_CHUNK);
    case OP_RAND:
    case OP_RANDN:
        return rnd;
    case OP_RANDINT:
        return rnd | B(F_LOW) | B(F_HIGH) | B(F_DTYPE);
    case OP_UNIFORM:
        return rnd | B(F_LOW) | B(F_HIGH);
    case OP_NORMAL:
        return rnd | B(F_LOC) | B(F_SCALE);
    /* numpy's distributions: size is the result's shape, shape its alias
     * (the engine's name for the others) except for gamma, whose shape is
     * its parameter */
    case OP_RANDOM_SAMPLE:
        return rnd | B(F_SIZE);
    case OP_EXPONENTIAL:
        return rnd | B(F_SIZE) | B(F_SCALE);
    case OP_POISSON:
        return rnd | B(F_SIZE) | B(F_LAM);
    case OP_BINOMIAL:
        return rnd | B(F_SIZE) | B(F_NSMALL) | B(F_P);
    case OP_GAMMA:
        return rnd | B(F_SIZE) | B(F_SCALE);
    case OP_BETA:
        return rnd | B(F_SIZE) | B(F_A) | B(F_B);
    case OP_LOGNORMAL:
        return rnd | B(F_SIZE) | B(F_MEAN) | B(F_SIGMA);
    case OP_STANDARD_T:
    case OP_CHISQUARE:
        return rnd | B(F_SIZE) | B(F_DF);
    case OP_CHOICE:
        return B(F_SEED) | B(F_CHUNK) | B(F_A) | B(F_SIZE) | B(F_REPLACE) | B(F_P);
    case OP_PERMUTATION:
        return B(F_SEED) | B(F_CHUNK) | B(F_X);
    case OP_MULTINOMIAL:
        return B(F_SEED) | B(F_CHUNK) | B(F_NSMALL) | B(F_PVALS) | B(F_SIZE);
    case OP_MULTIVARIATE_NORMAL:
        return B(F_SEED) | B(F_CHUNK) | B(F_MEAN) | B(F_COV) | B(F_SIZE) | B(F_CHECK_VALID) |
               B(F_TOL);
    case OP_CLIP:
        return B(F_AMIN) | B(F_AMAX);
    case OP_ASTYPE:
        return B(F_DTYPE);
    case OP_STD:
    case OP_VAR:
    case OP_NANSTD:
    case OP_NANVAR:
        return B(F_AXIS) | B(F_KEEPDIMS) | B(F_DDOF);
    case OP_CUMSUM:
    case OP_CUMPROD:
    case OP_NANCUMSUM:
    case OP_NANCUMPROD:
        return B(F_AXIS);
    case OP_TENSORDOT:
    case OP_TRANSPOSE:
        return B(F_AXES);
    case OP_RESHAPE:
        return B(F_NEWSHAPE);
    case OP_SQUEEZE:
    case OP_EXPAND_DIMS:
    case OP_CONCATENATE:
    case OP_STACK:
        return B(F_AXIS);
    case OP_RECHUNK:
        return B(F_CHUNK);
    case OP_GETITEM:
        return B(F_INDEX);
    /* fancy: advanced indexing */
    case OP_SETITEM:
        return B(F_INDEX);
    case OP_TAKE:
    case OP_COMPRESS:
        return B(F_AXIS);
    case OP_SWAPAXES:
        return B(F_AXIS1) | B(F_AXIS2);
    case OP_ISCLOSE:
        return B(F_RTOL) | B(F_ATOL) | B(F_EQUAL_NAN);
    case OP_MOVEAXIS:
        return B(F_SOURCE) | B(F_DESTINATION);
    case OP_FLIP:
        return B(F_AXIS);
    case OP_DIFF:
        return B(F_NSMALL) | B(F_AXIS);
    case OP_ROUND:
    case OP_AROUND:
        return B(F_DECIMALS);
    default:
        break;
    }
    switch (op_kind(op)) {
    case OPK_REDUCE:
    case OPK_ARGREDUCE:
        return B(F_AXIS) | B(F_KEEPDIMS);
    default:
        return 0;
    }
}

#define NFAIL(c, n, ...) graph_fail((c)->err, (c)->errlen, (n), __VA_ARGS__)

static int missing(pctx_t *c, graph_node_t *n, const char *name)
{
    return NFAIL(c, n, "\"%s\" is missing", name);
}

static bool js_scalar(json_t *v, scalar_t *out)
{
    if (json_is_integer(v))
        *out = sc_int((int64_t)json_integer_value(v));
    else if (json_is_real(v))
        *out = sc_float(json_real_value(v));
    else if (json_is_boolean(v))
        *out = sc_bool(json_is_true(v));
    else
        return false;
    return true;
}

/* A number or boolean parameter. Returns 1 when present, 0 when absent
 * (or null, when null_ok), -1 on error. */
static int get_scalar(pctx_t *c, graph_node_t *n, json_t *obj, const char *name, bool null_ok,
                      scalar_t *out)
{
    json_t *v = json_object_get(obj, name);
    if (!v || (null_ok && json_is_null(v))) return 0;
    if (!js_scalar(v, out))
        return NFAIL(c, n, "\"%s\" must be a number or a boolean%s", name,
                     null_ok ? " or null" : "");
    return 1;
}

/* An integer parameter: 1 present, 0 absent (or null when null_ok), -1 error. */
static int get_int(pctx_t *c, graph_node_t *n, json_t *obj, const char *name, bool null_ok,
                   int64_t *out)
{
    json_t *v = json_object_get(obj, name);
    if (!v || (null_ok && json_is_null(v))) return 0;
    if (!json_is_integer(v))
        return NFAIL(c, n, "\"%s\" must be an integer%s", name, null_ok ? " or null" : "");
    *out = (int64_t)json_integer_value(v);
    return 1;
}

static int get_bool(pctx_t *c, graph_node_t *n, json_t *obj, const char *name, bool *out)
{
    json_t *v = json_object_get(obj, name);
    if (!v) return 0;
    if (!json_is_boolean(v)) return NFAIL(c, n, "\"%s\" must be true or false", name);
    *out = json_is_true(v);
    return 1;
}

static int get_dtype(pctx_t *c, graph_node_t *n, json_t *obj)
{
    json_t *v = json_object_get(obj, "dtype");
    if (!v) return 0;
    char eb[ESC_LEN];
    if (!json_is_string(v)) return NFAIL(c, n, "\"dtype\" must be one of " DT_NAMES);
    if (dt_parse(json_string_value(v), &n->dtype) != 0)
        return NFAIL(c, n, "\"dtype\" must be one of " DT_NAMES ", not \"%s\"",
                     esc(json_string_value(v), eb));
    n->has_dtype = true;
    return 1;
}

/* numpy's message when a result would pass its 32 dimensions. */
static int too_many_dims(pctx_t *c, graph_node_t *n, size_t ndim)
{
    return NFAIL(c, n, "maximum supported dimension for an ndarray is %d, found %zu", MR_MAXDIM,
                 ndim);
}

/* `shape`: a list of non-negative integers, or a bare integer (1-D). */
static int get_shape(pctx_t *c, graph_node_t *n, json_t *obj, const char *name, bool required,
                     shape_t *s)
{
    json_t *v = json_object_get(obj, name);
    memset(s, 0, sizeof *s);
    if (!v) return required ? missing(c, n, name) : 0;
    if (json_is_integer(v)) {
        s->ndim = 1;
        s->d[0] = (int64_t)json_integer_value(v);
    } else if (json_is_array(v)) {
        size_t len = json_array_size(v);
        if (len > MR_MAXDIM) return too_many_dims(c, n, len);
        s->ndim = (int)len;
        for (size_t i = 0; i < len; i++) {
            json_t *e = json_array_get(v, i);
            if (!json_is_integer(e))
                return NFAIL(c, n, "\"%s\" must be an integer or a list of integers", name);
            s->d[i] = (int64_t)json_integer_value(e);
        }
    } else {
        return NFAIL(c, n, "\"%s\" must be an integer or a list of integers", name);
    }
    for (int i = 0; i < s->ndim; i++)
        if (s->d[i] < 0) return NFAIL(c, n, "negative dimensions are not allowed");
    return 1;
}

/* `axis`-like JSON checked for type only: null, an integer, or (when
 * list_ok) a list of integers. */
static int check_axis_json(pctx_t *c, graph_node_t *n, json_t *v, const char *name, bool null_ok,
                           bool list_ok)
{
    if (!v) return 0;
    if (json_is_null(v) && null_ok) return 0;
    if (json_is_integer(v)) return 0;
    if (json_is_array(v) && list_ok) {
        for (size_t i = 0; i < json_array_size(v); i++)
            if (!json_is_integer(json_array_get(v, i))) goto bad;
        return 0;
    }
bad:
    return NFAIL(c, n, "\"%s\" must be %s", name,
                 null_ok && list_ok ? "null, an integer or a list of integers"
                 : null_ok          ? "null or an integer"
                 : list_ok          ? "an integer or a list of integers"
                                    : "an integer");
}

static int check_chunk_json(pctx_t *c, graph_node_t *n, json_t *v)
{
    if (json_is_integer(v) && json_integer_value(v) > 0) return 0;
    if (json_is_array(v)) {
        size_t i;
        for (i = 0; i < json_array_size(v); i++) {
            json_t *e = json_array_get(v, i);
            if (!json_is_integer(e) || json_integer_value(e) <= 0) break;
        }
        if (i == json_array_size(v)) return 0;
    }
    return NFAIL(c, n, "\"chunk_size\" must be a positive integer or a list of positive integers");
}

/* --- array data ------------------------------------------------------------ */

typedef struct {
    shape_t shape;
    bool any_int, any_float, any_bool;
} data_scan_t;

static int inhomogeneous(pctx_t *c, graph_node_t *n, const shape_t *shape, int depth)
{
    shape_t s = *shape;
    char sb[1024];
    s.ndim = depth;
    shape_format(&s, sb, sizeof sb);
    return NFAIL(c, n,
                 "setting an array element with a sequence. The requested array has an "
                 "inhomogeneous shape after %d dimensions. The detected shape was %s + "
                 "inhomogeneous part.",
                 depth, sb);
}

/* Checks that every list at depth k has shape.d[k] items and that the leaves
 * sit at depth ndim; notes the kinds of the leaves. Recursion is bounded by
 * the shape's depth (at most MR_MAXDIM). */
static int data_check(pctx_t *c, graph_node_t *n, json_t *v, int depth, data_scan_t *ds,
                      const char *field)
{
    if (depth == ds->shape.ndim) {
        if (json_is_array(v)) return inhomogeneous(c, n, &ds->shape, depth);
        if (json_is_integer(v))
            ds->any_int = true;
        else if (json_is_real(v))
            ds->any_float = true;
        else if (json_is_boolean(v))
            ds->any_bool = true;
        else
            return NFAIL(c, n, "\"%s\" must hold only numbers and booleans, not %s", field,
                         json_is_string(v) ? "strings"
                         : json_is_null(v) ? "null"
                                           : "objects");
        return 0;
    }
    if (!json_is_array(v) || (int64_t)json_array_size(v) != ds->shape.d[depth])
        return inhomogeneous(c, n, &ds->shape, depth);
    for (size_t i = 0; i < json_array_size(v); i++)
        if (data_check(c, n, json_array_get(v, i), depth + 1, ds, field) < 0) return -1;
    return 0;
}

/* np.array(data, dtype) for one value: a float stored into an integer dtype
 * goes through a Python int (truncation toward zero; numpy refuses values
 * outside int64), then wraps to int32 as numpy 1.24 does. */
static int data_store(pctx_t *c, graph_node_t *n, json_t *v, dtype_t t, char *dst)
{
    scalar_t s;
    js_scalar(v, &s);
    if (s.kind == SC_FLOAT && dt_is_int(t)) {
        double x = trunc(s.f);
        if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0))
            /* only the `array` op gives a dtype that can narrow a float */
            return NFAIL(c, n, "\"data\" holds %g, too large to convert to %s", s.f, dt_name(t));
        s = sc_int((int64_t)x);
    }
    sc_store(s, t, dst);
    return 0;
}

static int data_fill(pctx_t *c, graph_node_t *n, json_t *v, int depth, int ndim, dtype_t t,
                     char **dst)
{
    if (depth == ndim) {
        if (data_store(c, n, v, t, *dst) < 0) return -1;
        *dst += dt_size(t);
        return 0;
    }
    for (size_t i = 0; i < json_array_size(v); i++)
        if (data_fill(c, n, json_array_get(v, i), depth + 1, ndim, t, dst) < 0) return -1;
    return 0;
}

/* np.array(v) of a nested list of numbers (or one number, 0-d): *shape,
 * the dtype (*dt when has_dtype, else numpy's: float64 when a value is a
 * float, int64 when one is an integer, bool when all are booleans) and the
 * values in it (*data, malloc'ed, at least one byte). field names v in the
 * messages. */
static int read_values(pctx_t *c, graph_node_t *n, json_t *v, const char *field, bool has_dtype,
                       dtype_t *dt, shape_t *shape, void **data)
{
    data_scan_t ds = {0};
    /* The candidate shape follows the first item of each list. */
    json_t *p = v;
    while (json_is_array(p)) {
        if (ds.shape.ndim == MR_MAXDIM)
            return NFAIL(c, n,
                         "setting an array element with a sequence. The requested array "
                         "would exceed the maximum number of dimension of %d.",
                         MR_MAXDIM);
        ds.shape.d[ds.shape.ndim++] = (int64_t)json_array_size(p);
        if (json_array_size(p) == 0) break;
        p = json_array_get(p, 0);
    }
    int64_t count = shape_size(&ds.shape); /* lists in memory: cannot overflow */
    if (count > c->lim->max_array_elements)
        return NFAIL(c, n, "\"%s\" has %lld values, more than the limit of %lld", field,
                     (long long)count, (long long)c->lim->max_array_elements);
    if (data_check(c, n, v, 0, &ds, field) < 0) return -1;
    if (!has_dtype)
        *dt = ds.any_float  ? DT_FLOAT64
              : ds.any_int  ? DT_INT64
              : ds.any_bool ? DT_BOOL
                            : DT_FLOAT64;
    *shape = ds.shape;
    /* At least one byte, so that an empty array still has a buffer. */
    *data = malloc(count ? (size_t)count * dt_size(*dt) : 1);
    if (!*data) return NFAIL(c, n, "out of memory for \"%s\"", field);
    char *dst = *data;
    if (data_fill(c, n, v, 0, ds.shape.ndim, *dt, &dst) < 0) {
        free(*data);
        *data = NULL;
        return -1;
    }
    return 0;
}

int graph_read_values(graph_node_t *n, void *json, const char *field, const graph_limits_t *lim,
                      bool has_dtype, dtype_t *dt, shape_t *shape, void **data, char *err,
                      size_t errlen)
{
    pctx_t c = {.lim = lim, .err = err, .errlen = errlen};
    return read_values(&c, n, json, field, has_dtype, dt, shape, data);
}

static int parse_array_data(pctx_t *c, graph_node_t *n, json_t *obj)
{
    json_t *v = json_object_get(obj, "data");
    if (!v) return missing(c, n, "data");
    return read_values(c, n, v, "data", n->has_dtype, &n->dtype, &n->shape, &n->data);
}

/* --- arange ---------------------------------------------------------------- */

/* ceil(x), x the double nearest to d / s (d, s > 0): Python's int / int is
 * correctly rounded, and numpy takes the ceiling of that double. Past 2^53
 * doubles are integers; below, d / s is rounded to 53 significant bits. The
 * products stay under 2^118. */
static unsigned __int128 ceil_rounded_quotient(unsigned __int128 d, unsigned __int128 s)
{
    unsigned __int128 q = d / s, r = d % s, one = 1;
    if (q == 0) return 1; /* 0 < d / s < 1: a double in (0, 1] */
    int bits = 0;
    while (bits < 128 && (q >> bits) != 0)
        bits++;
    if (bits > 53) {
        int sh = bits - 53;
        unsigned __int128 m = q >> sh, low = q & ((one << sh) - 1);
        /* the part below m's last bit, (low + r / s) / 2^sh, against a half */
        unsigned __int128 twice = 2 * (low * s + r), unit = s << sh;
        if (twice > unit || (twice == unit && (m & 1))) m++;
        return m << sh;
    }
    int sh = 53 - bits;
    unsigned __int128 num = d << sh, n = num / s, rem = num % s;
    if (2 * rem > s || (2 * rem == s && (n & 1))) n++;
    return (n + (one << sh) - 1) >> sh;
}

/* numpy's length: ceil((stop - start) / step) computed as Python does, every
 * quotient outside int64 refused (even one that gives an empty range). */
static int arange_length(pctx_t *c, graph_node_t *n, int64_t *len)
{
    scalar_t a = n->start, b = n->stop, s = n->step;
    bool isf = a.kind == SC_FLOAT || b.kind == SC_FLOAT || s.kind == SC_FLOAT;
    if (sc_as_double(s) == 0.0)
        return NFAIL(c, n, "\"step\" must not be zero (numpy: division by zero)");
    if (!isf) {
        __int128 lo = a.kind == SC_BOOL ? a.b : a.i, hi = b.kind == SC_BOOL ? b.b : b.i;
        __int128 st = s.kind == SC_BOOL ? s.b : s.i;
        __int128 diff = hi - lo;
        if (diff == 0) {
            *len = 0;
            return 0;
        }
        bool neg = (diff < 0) != (st < 0);
        unsigned __int128 mag = ceil_rounded_quotient((unsigned __int128)(diff < 0 ? -diff : diff),
                                                      (unsigned __int128)(st < 0 ? -st : st));
        if (mag > (unsigned __int128)INT64_MAX + (neg ? 1 : 0))
            return NFAIL(c, n, "Maximum allowed size exceeded");
        *len = neg ? 0 : (int64_t)mag;
        return 0;
    }
    double delta;
    if (a.kind != SC_FLOAT && b.kind != SC_FLOAT) {
        __int128 lo = a.kind == SC_BOOL ? a.b : a.i, hi = b.kind == SC_BOOL ? b.b : b.i;
        delta = (double)(hi - lo);
    } else {
        delta = sc_as_double(b) - sc_as_double(a);
    }
    double v = ceil(delta / sc_as_double(s));
    if (isnan(v)) return NFAIL(c, n, "arange: cannot compute length");
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
        return NFAIL(c, n, "Maximum allowed size exceeded");
    *len = v > 0 ? (int64_t)v : 0;
    return 0;
}

/* --- random ---------------------------------------------------------------- */

static int draw_seed(pctx_t *c, graph_node_t *n)
{
    uint64_t s;
    ssize_t got;
    do {
        got = getrandom(&s, sizeof s, 0);
    } while (got < 0 && errno == EINTR);
    if (got != (ssize_t)sizeof s)
        return NFAIL(c, n, "cannot draw a seed: %s", got < 0 ? strerror(errno) : "short read");
    /* 63 bits: the reported seed must be accepted back as a JSON int64. */
    n->seed = s >> 1;
    n->has_seed = false;
    return 0;
}

/* numpy's distributions beyond the first five (kern/random2.c). */
static bool random2_op(op_t op)
{
    switch (op) {
    case OP_RANDOM_SAMPLE:
    case OP_EXPONENTIAL:
    case OP_POISSON:
    case OP_BINOMIAL:
    case OP_GAMMA:
    case OP_BETA:
    case OP_LOGNORMAL:
    case OP_STANDARD_T:
    case OP_CHISQUARE:
        return true;
    default:
        return false;
    }
}

/* A float parameter with a default (required when dflt is NAN); *out. */
static int get_param(pctx_t *c, graph_node_t *n, json_t *obj, const char *name, double dflt,
                     double *out)
{
    scalar_t v;
    int rc = get_scalar(c, n, obj, name, false, &v);
    if (rc < 0) return -1;
    if (rc == 0 && isnan(dflt)) return missing(c, n, name);
    *out = rc ? sc_as_double(v) : dflt;
    return 0;
}

/* Their parameters, checked as numpy checks them (its messages), into
 * loc, scale, low and high (kern_random2's reading of them). */
static int random2_params(pctx_t *c, graph_node_t *n, json_t *obj)
{
    double x = 0, y = 0;
    switch (n->op) {
    case OP_RANDOM_SAMPLE:
        return 0;
    case OP_EXPONENTIAL:
        if (get_param(c, n, obj, "scale", 1.0, &x)) return -1;
        if (!(x >= 0)) return NFAIL(c, n, "scale < 0");
        n->scale = sc_float(x);
        return 0;
    case OP_POISSON:
        if (get_param(c, n, obj, "lam", 1.0, &x)) return -1;
        if (!(x >= 0)) return NFAIL(c, n, "lam < 0");
        /* numpy: the largest lam whose draws stay inside int64 with margin */
        if (x > 9.223372006484771e18) return NFAIL(c, n, "lam value too large");
        n->loc = sc_float(x);
        n->dtype = DT_INT64;
        return 0;
    case OP_BINOMIAL: {
        int64_t trials = 0;
        int rc = get_int(c, n, obj, "n", false, &trials);
        if (rc < 0) return -1;
        if (rc == 0) return missing(c, n, "n");
        if (get_param(c, n, obj, "p", NAN, &y)) return -1;
        if (trials < 0) return NFAIL(c, n, "n < 0");
        if (!(y >= 0 && y <= 1)) return NFAIL(c, n, "p < 0, p > 1 or p is NaN");
        n->low = sc_int(trials);
        n->high = sc_float(y);
        n->dtype = DT_INT64;
        return 0;
    }
    case OP_GAMMA:
        if (get_param(c, n, obj, "shape", NAN, &x) || get_param(c, n, obj, "scale", 1.0, &y))
            return -1;
        if (!(x >= 0)) return NFAIL(c, n, "shape < 0");
        if (!(y >= 0)) return NFAIL(c, n, "scale < 0");
        n->loc = sc_float(x);
        n->scale = sc_float(y);
        return 0;
    case OP_BETA:
        if (get_param(c, n, obj, "a", NAN, &x) || get_param(c, n, obj, "b", NAN, &y)) return -1;
        if (!(x > 0)) return NFAIL(c, n, "a <= 0");
        if (!(y > 0)) return NFAIL(c, n, "b <= 0");
        n->loc = sc_float(x);
        n->scale = sc_float(y);
        return 0;
    case OP_LOGNORMAL:
        if (get_param(c, n, obj, "mean", 0.0, &x) || get_param(c, n, obj, "sigma", 1.0, &y))
            return -1;
        if (!(y >= 0)) return NFAIL(c, n, "sigma < 0");
        if (!isfinite(x) || !isfinite(y)) return NFAIL(c, n, "mean and sigma must be finite");
        n->loc = sc_float(x);
        n->scale = sc_float(y);
        return 0;
    case OP_STANDARD_T:
    case OP_CHISQUARE:
        if (get_param(c, n, obj, "df", NAN, &x)) return -1;
        if (!(x > 0)) return NFAIL(c, n, "df <= 0");
        n->loc = sc_float(x);
        return 0;
    default:
        return 0;
    }
}

static int parse_random(pctx_t *c, graph_node_t *n, json_t *obj)
{
    int rc;
    if (graph_rsample_owns(n->op)) {
        /* rsample.h: their size and shape after the seed */
    } else if (random2_op(n->op)) {
        /* numpy's size; shape is its alias, except gamma's own parameter */
        bool alias = n->op != OP_GAMMA && json_object_get(obj, "shape");
        if (alias && json_object_get(obj, "size"))
            return NFAIL(c, n, "give \"size\" (numpy's name) or \"shape\", not both");
        if (get_shape(c, n, obj, alias ? "shape" : "size", false, &n->shape) < 0) return -1;
    } else if (get_shape(c, n, obj, "shape", false, &n->shape) < 0) {
        return -1;
    }
    int64_t seed = 0;
    if ((rc = get_int(c, n, obj, "seed", false, &seed)) < 0) return -1;
    if (rc == 1) {
        if (seed < 0) return NFAIL(c, n, "\"seed\" must be a non-negative integer");
        n->seed = (uint64_t)seed;
        n->has_seed = true;
    } else if (draw_seed(c, n) < 0) {
        return -1;
    }
    n->dtype = DT_FLOAT64;
    if (graph_rsample_owns(n->op)) return graph_rsample_parse(n, obj, c->lim, c->err, c->errlen);
    switch (n->op) {
    case OP_RANDINT: {
        int64_t low = 0, high = 0;
        if ((rc = get_int(c, n, obj, "low", false, &low)) < 0) return -1;
        if (rc == 0) return missing(c, n, "low");
        if ((rc = get_int(c, n, obj, "high", true, &high)) < 0) return -1;
        bool has_high = rc == 1;
        if (get_dtype(c, n, obj) < 0) return -1;
        if (!n->has_dtype) n->dtype = DT_INT64;
        if (!dt_is_int(n->dtype))
            return NFAIL(c, n, "Unsupported dtype dtype('%s') for randint", dt_name(n->dtype));
        if (!has_high) { /* randint(low): [0, low) */
            high = low;
            low = 0;
        }
        int64_t tmin, tmax;
        dt_int_range(n->dtype, &tmin, &tmax);
        if (low < tmin) return NFAIL(c, n, "low is out of bounds for %s", dt_name(n->dtype));
        if (tmax < INT64_MAX && high > tmax + 1)
            return NFAIL(c, n, "high is out of bounds for %s", dt_name(n->dtype));
        if (!has_high && high <= 0) return NFAIL(c, n, "high <= 0");
        if (low >= high) return NFAIL(c, n, "low >= high");
        n->low = sc_int(low);
        n->high = sc_int(high);
        return 0;
    }
    case OP_UNIFORM:
        n->low = sc_float(0.0);
        n->high = sc_float(1.0);
        if (get_scalar(c, n, obj, "low", false, &n->low) < 0 ||
            get_scalar(c, n, obj, "high", false, &n->high) < 0)
            return -1;
        if (!isfinite(sc_as_double(n->high) - sc_as_double(n->low)))
            return NFAIL(c, n, "Range exceeds valid bounds");
        return 0;
    case OP_NORMAL:
        n->loc = sc_float(0.0);
        n->scale = sc_float(1.0);
        if (get_scalar(c, n, obj, "loc", false, &n->loc) < 0 ||
            get_scalar(c, n, obj, "scale", false, &n->scale) < 0)
            return -1;
        if (sc_as_double(n->scale) < 0) return NFAIL(c, n, "scale < 0");
        return 0;
    default:
        return random2_params(c, n, obj);
    }
}

/* --- getitem syntax -------------------------------------------------------- */

static bool parse_slice_part(const char *s, const char *e, bool *has, int64_t *v)
{
    while (s < e && *s == ' ')
        s++;
    while (e > s && e[-1] == ' ')
        e--;
    *has = s < e;
    if (!*has) return true;
    bool neg = false;
    if (*s == '+' || *s == '-') neg = *s++ == '-';
    if (s == e) return false;
    /* Saturate at +-(2^63 - 1): slice.indices clamps such values to the
     * axis anyway, and the bound keeps the negation safe. */
    int64_t x = 0;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9') return false;
        int dgt = *s - '0';
        x = x > (INT64_MAX - dgt) / 10 ? INT64_MAX : x * 10 + dgt;
    }
    *v = neg ? -x : x;
    return true;
}

int graph_parse_slice(const char *s, graph_slice_t *out)
{
    const char *c1 = strchr(s, ':');
    if (!c1) return -1;
    const char *c2 = strchr(c1 + 1, ':');
    const char *end = s + strlen(s);
    if (c2 && strchr(c2 + 1, ':')) return -1;
    memset(out, 0, sizeof *out);
    if (!parse_slice_part(s, c1, &out->has_start, &out->start) ||
        !parse_slice_part(c1 + 1, c2 ? c2 : end, &out->has_stop, &out->stop) ||
        (c2 && !parse_slice_part(c2 + 1, end, &out->has_step, &out->step)))
        return -1;
    return 0;
}

static int check_index_json(pctx_t *c, graph_node_t *n, json_t *v)
{
    if (!json_is_array(v))
        return NFAIL(c, n, "\"index\" must be a list of integers and slice strings");
    int ellipses = 0;
    for (size_t i = 0; i < json_array_size(v); i++) {
        json_t *e = json_array_get(v, i);
        graph_slice_t sl;
        char eb[ESC_LEN];
        if (json_is_integer(e) || json_is_null(e)) continue; /* null: numpy.newaxis */
        int64_t in_k;
        if (fancy_json_input(e, &in_k)) continue; /* checked by graph_fancy_infer */
        if (json_is_string(e) && strcmp(json_string_value(e), "...") == 0) {
            if (++ellipses > 1)
                return NFAIL(c, n, "an index can only have a single ellipsis ('...')");
            continue;
        }
        if (!json_is_string(e))
            return NFAIL(c, n,
                         "index[%zu] must be an integer, a slice string \"start:stop:step\", "
                         "\"...\" or null (newaxis)",
                         i);
        if (graph_parse_slice(json_string_value(e), &sl) != 0)
            return NFAIL(c, n, "index[%zu]: \"%s\" is not a slice \"start:stop:step\"", i,
                         esc(json_string_value(e), eb));
        if (sl.has_step && sl.step == 0) return NFAIL(c, n, "slice step cannot be zero");
    }
    return 0;
}

/* --- tensordot axes -------------------------------------------------------- */

static bool int_or_int_list(json_t *v)
{
    if (json_is_integer(v)) return true;
    if (!json_is_array(v)) return false;
    for (size_t i = 0; i < json_array_size(v); i++)
        if (!json_is_integer(json_array_get(v, i))) return false;
    return true;
}

/* --- one node -------------------------------------------------------------- */

static int parse_params(pctx_t *c, graph_node_t *n, graph_raw_t *r, json_t *obj)
{
    op_t op = n->op;
    op_kind_t kind = op_kind(op);
    int rc;

    if (op_fields(op) & B(F_CHUNK)) {
        r->chunk_size = json_object_get(obj, "chunk_size");
        if (r->chunk_size && check_chunk_json(c, n, r->chunk_size) < 0) return -1;
        if (op == OP_RECHUNK && !r->chunk_size) return missing(c, n, "chunk_size");
    }
    if (kind == OPK_RANDOM) return parse_random(c, n, obj);

    switch (op) {
    case OP_ONES_LIKE:
    case OP_ZEROS_LIKE:
    case OP_EMPTY_LIKE:
    case OP_FULL_LIKE:
        /* shape and dtype default to the input's (graph_infer) */
        if ((rc = get_shape(c, n, obj, "shape", false, &n->shape)) < 0 || get_dtype(c, n, obj) < 0)
            return -1;
        n->has_shape = rc == 1;
        if (op == OP_FULL_LIKE) {
            if ((rc = get_scalar(c, n, obj, "fill_value", false, &n->fill_value)) < 0) return -1;
            if (rc == 0) return missing(c, n, "fill_value");
        }
        return 0;
    case OP_IDENTITY:
        if ((rc = get_int(c, n, obj, "n", false, &n->N)) < 0) return -1;
        if (rc == 0) return missing(c, n, "n");
        if (get_dtype(c, n, obj) < 0) return -1;
        if (n->N < 0) return NFAIL(c, n, "negative dimensions are not allowed");
        n->M = n->N;
        n->k = 0;
        n->dtype = n->has_dtype ? n->dtype : DT_FLOAT64;
        n->shape.ndim = 2;
        n->shape.d[0] = n->N;
        n->shape.d[1] = n->N;
        return 0;
    case OP_ONES:
    case OP_ZEROS:
    case OP_EMPTY:
    case OP_FULL:
        if (get_shape(c, n, obj, "shape", true, &n->shape) < 0 || get_dtype(c, n, obj) < 0)
            return -1;
        n->dtype = n->has_dtype ? n->dtype : DT_FLOAT64;
        if (op == OP_FULL) {
            if ((rc = get_scalar(c, n, obj, "fill_value", false, &n->fill_value)) < 0) return -1;
            if (rc == 0) return missing(c, n, "fill_value");
            if (!n->has_dtype) n->dtype = sc_default_dtype(n->fill_value);
        }
        return 0;
    case OP_ARANGE: {
        n->start = sc_int(0);
        n->step = sc_int(1);
        if (get_scalar(c, n, obj, "start", false, &n->start) < 0) return -1;
        if ((rc = get_scalar(c, n, obj, "stop", false, &n->stop)) < 0) return -1;
        if (rc == 0)
            return NFAIL(c, n, "\"stop\" is missing (arange() requires stop to be specified)");
        if (get_scalar(c, n, obj, "step", false, &n->step) < 0 || get_dtype(c, n, obj) < 0)
            return -1;
        int64_t len = 0;
        if (arange_length(c, n, &len) < 0) return -1;
        bool isf =
            n->start.kind == SC_FLOAT || n->stop.kind == SC_FLOAT || n->step.kind == SC_FLOAT;
        if (!n->has_dtype) n->dtype = isf ? DT_FLOAT64 : DT_INT64;
        if (n->dtype == DT_BOOL && len > 2)
            return NFAIL(c, n,
                         "arange() is only supported for booleans when the result has at "
                         "most length 2.");
        n->shape.ndim = 1;
        n->shape.d[0] = len;
        return 0;
    }
    case OP_LINSPACE:
        n->num = 50;
        n->endpoint = true;
        if ((rc = get_scalar(c, n, obj, "start", false, &n->start)) < 0) return -1;
        if (rc == 0) return missing(c, n, "start");
        if ((rc = get_scalar(c, n, obj, "stop", false, &n->stop)) < 0) return -1;
        if (rc == 0) return missing(c, n, "stop");
        if (get_int(c, n, obj, "num", false, &n->num) < 0 ||
            get_bool(c, n, obj, "endpoint", &n->endpoint) < 0)
            return -1;
        if (n->num < 0)
            return NFAIL(c, n, "Number of samples, %lld, must be non-negative.", (long long)n->num);
        n->dtype = DT_FLOAT64;
        n->shape.ndim = 1;
        n->shape.d[0] = n->num;
        return 0;
    case OP_EYE:
        if ((rc = get_int(c, n, obj, "N", false, &n->N)) < 0) return -1;
        if (rc == 0) return missing(c, n, "N");
        if ((rc = get_int(c, n, obj, "M", true, &n->M)) < 0) return -1;
        if (rc == 0) n->M = n->N;
        if (get_int(c, n, obj, "k", false, &n->k) < 0 || get_dtype(c, n, obj) < 0) return -1;
        if (n->N < 0 || n->M < 0) return NFAIL(c, n, "negative dimensions are not allowed");
        n->dtype = n->has_dtype ? n->dtype : DT_FLOAT64;
        n->shape.ndim = 2;
        n->shape.d[0] = n->N;
        n->shape.d[1] = n->M;
        return 0;
    case OP_ARRAY:
        if (get_dtype(c, n, obj) < 0) return -1;
        return parse_array_data(c, n, obj);
    case OP_CLIP: {
        int lo, hi;
        if ((lo = get_scalar(c, n, obj, "a_min", true, &n->a_min)) < 0 ||
            (hi = get_scalar(c, n, obj, "a_max", true, &n->a_max)) < 0)
            return -1;
        n->has_a_min = lo == 1;
        n->has_a_max = hi == 1;
        if (!n->has_a_min && !n->has_a_max) return NFAIL(c, n, "One of max or min must be given");
        return 0;
    }
    case OP_ROUND:
    case OP_AROUND:
        if (get_int(c, n, obj, "decimals", false, &n->decimals) < 0) return -1;
        if (n->decimals > 400 || n->decimals < -400)
            return NFAIL(c, n, "\"decimals\" must be between -400 and 400");
        return 0;
    case OP_ASTYPE:
        if ((rc = get_dtype(c, n, obj)) < 0) return -1;
        if (rc == 0) return missing(c, n, "dtype");
        return 0;
    case OP_TENSORDOT:
        r->axes = json_object_get(obj, "axes");
        if (r->axes && !json_is_integer(r->axes) &&
            !(json_is_array(r->axes) && json_array_size(r->axes) == 2 &&
              int_or_int_list(json_array_get(r->axes, 0)) &&
              int_or_int_list(json_array_get(r->axes, 1))))
            return NFAIL(c, n, "\"axes\" must be an integer or a pair of lists of integers");
        return 0;
    case OP_TRANSPOSE:
        r->axes = json_object_get(obj, "axes");
        if (r->axes && !json_is_null(r->axes) &&
            !(json_is_array(r->axes) && int_or_int_list(r->axes)))
            return NFAIL(c, n, "\"axes\" must be null or a list of integers");
        return 0;
    case OP_RESHAPE:
        r->newshape = json_object_get(obj, "newshape");
        if (!r->newshape) return missing(c, n, "newshape");
        if (!int_or_int_list(r->newshape))
            return NFAIL(c, n, "\"newshape\" must be an integer or a list of integers");
        if (json_is_array(r->newshape) && json_array_size(r->newshape) > MR_MAXDIM)
            return too_many_dims(c, n, json_array_size(r->newshape));
        return 0;
    case OP_ISCLOSE: {
        scalar_t rt = sc_float(1e-05), at = sc_float(1e-08);
        if (get_scalar(c, n, obj, "rtol", false, &rt) < 0 ||
            get_scalar(c, n, obj, "atol", false, &at) < 0 ||
            get_bool(c, n, obj, "equal_nan", &n->equal_nan) < 0)
            return -1;
        if (rt.kind == SC_BOOL || at.kind == SC_BOOL)
            return NFAIL(c, n, "\"rtol\" and \"atol\" must be numbers");
        n->rtol = sc_as_double(rt);
        n->atol = sc_as_double(at);
        return 0;
    }
    case OP_DIFF: {
        /* n (1) into N; axis (-1, one integer) into axis1 */
        n->N = 1;
        n->axis1 = -1;
        if (get_int(c, n, obj, "n", false, &n->N) < 0 ||
            get_int(c, n, obj, "axis", false, &n->axis1) < 0)
            return -1;
        if (n->N < 0)
            return NFAIL(c, n, "order must be non-negative but got %lld", (long long)n->N);
        return 0;
    }
    case OP_SWAPAXES:
        if ((rc = get_int(c, n, obj, "axis1", false, &n->axis1)) < 0) return -1;
        if (rc == 0) return missing(c, n, "axis1");
        if ((rc = get_int(c, n, obj, "axis2", false, &n->axis2)) < 0) return -1;
        if (rc == 0) return missing(c, n, "axis2");
        return 0;
    case OP_MOVEAXIS:
        r->source = json_object_get(obj, "source");
        r->destination = json_object_get(obj, "destination");
        if (!r->source) return missing(c, n, "source");
        if (!r->destination) return missing(c, n, "destination");
        if (!int_or_int_list(r->source) || !int_or_int_list(r->destination))
            return NFAIL(c, n,
                         "\"source\" and \"destination\" must be integers or lists of integers");
        return 0;
    case OP_GETITEM:
        r->index = json_object_get(obj, "index");
        if (!r->index) return missing(c, n, "index");
        return check_index_json(c, n, r->index);
    /* fancy: advanced indexing */
    case OP_SETITEM:
        r->index = json_object_get(obj, "index");
        if (!r->index) return missing(c, n, "index");
        return check_index_json(c, n, r->index);
    case OP_TAKE:
    case OP_COMPRESS:
        r->axis = json_object_get(obj, "axis");
        if (r->axis && !json_is_null(r->axis) && !json_is_integer(r->axis))
            return NFAIL(c, n, "\"axis\" must be an integer or null");
        return 0;
    case OP_ARGWHERE:
    case OP_FLATNONZERO:
    case OP_EXTRACT:
        return 0;
    default:
        break;
    }

    if (op_fields(op) & B(F_AXIS)) {
        r->axis = json_object_get(obj, "axis");
        bool list_ok =
            kind == OPK_REDUCE || op == OP_SQUEEZE || op == OP_EXPAND_DIMS || op == OP_FLIP;
        bool null_ok = op != OP_EXPAND_DIMS && op != OP_STACK;
        if (op == OP_EXPAND_DIMS && !r->axis) return missing(c, n, "axis");
        if (check_axis_json(c, n, r->axis, "axis", null_ok, list_ok) < 0) return -1;
    }
    if (op_fields(op) & B(F_KEEPDIMS))
        if (get_bool(c, n, obj, "keepdims", &n->keepdims) < 0) return -1;
    if (op_fields(op) & B(F_DDOF))
        if (get_int(c, n, obj, "ddof", false, &n->ddof) < 0) return -1;
    return 0;
}

/* The number of inputs each op takes: [min, max]. */
static void op_arity(op_t op, int *lo, int *hi)
{
    if (graph_la_owns(op)) {
        graph_la_arity(op, lo, hi);
        return;
    }
    if (graph_multi_arity(op, lo, hi)) return;
    if (graph_setops_arity(op, lo, hi)) return; /* setops: setops.h */
    if (op_kind(op) == OPK_SORTSTAT) {
        graph_ss_arity(op, lo, hi);
        return;
    }
    if (op_kind(op) == OPK_DF) {
        *lo = *hi = 1;
        if (op == OP_DF_READ_CSV || op == OP_DF_READ_JSON) *lo = *hi = 0;
        if (op == OP_DF_FILTER || op == OP_DF_MERGE || op == OP_DF_JOIN || op == OP_DF_MERGE_ASOF)
            *lo = *hi = 2;
        if (op == OP_DF_LOC) *hi = 2; /* [df] or [df, mask] */
        if (op == OP_DF_CONCAT) *hi = INT32_MAX;
        if (op == OP_DF_ASSIGN) {
            *lo = 2;
            *hi = INT32_MAX;
        }
        return;
    }
    if (op == OP_GETITEM || fancy_is_op(op)) {
        fancy_arity(op, lo, hi);
        return;
    }
    switch (op_kind(op)) {
    case OPK_CREATE:
    case OPK_RANDOM:
    case OPK_SOURCE:
        *lo = *hi = op_is_like(op) ? 1 : 0;
        return;
    case OPK_BINARY:
    case OPK_LINALG:
        *lo = *hi = 2;
        return;
    case OPK_WHERE:
        *lo = *hi = 3;
        return;
    case OPK_SHAPE:
        if (op == OP_CONCATENATE || op == OP_STACK || op_is_stack_family(op)) {
            *lo = 1;
            *hi = INT32_MAX;
            return;
        }
        *lo = *hi = 1;
        return;
    default:
        *lo = *hi = 1;
        return;
    }
}

static int parse_inputs(pctx_t *c, graph_node_t *n, graph_raw_t *r, json_t *obj)
{
    json_t *v = json_object_get(obj, "inputs");
    if (v && !json_is_array(v)) return NFAIL(c, n, "\"inputs\" must be a list");
    size_t cnt = v ? json_array_size(v) : 0;
    int lo, hi;
    op_arity(n->op, &lo, &hi);
    if (n->op == OP_WHERE && n->n_outputs) lo = hi = 1; /* multiout: where(a) is nonzero(a) */
    if (cnt < (size_t)lo || cnt > (size_t)hi) {
        if (n->op == OP_CONCATENATE || op_is_stack_family(n->op))
            return NFAIL(c, n, "need at least one array to concatenate");
        if (n->op == OP_STACK) return NFAIL(c, n, "need at least one array to stack");
        if (lo == 0 && graph_rsample_owns(n->op))
            return NFAIL(c, n,
                         "takes no tensor input (\"a\" or \"x\" is an integer or a list); to "
                         "sample a tensor x, take(x, this op's indices) (the Python client does "
                         "it)");
        if (lo == 0) return NFAIL(c, n, "takes no inputs, got %zu", cnt);
        return NFAIL(c, n, "takes %d input%s, got %zu", lo, lo == 1 ? "" : "s", cnt);
    }
    r->inputs = v;
    n->n_in = (int)cnt;
    if (cnt == 0) return 0;
    n->in = calloc(cnt, sizeof *n->in);
    if (!n->in) return NFAIL(c, n, "out of memory");
    for (size_t i = 0; i < cnt; i++) {
        json_t *e = json_array_get(v, i);
        if (json_is_string(e)) {
            n->in[i].node = -2; /* resolved in the second pass */
            continue;
        }
        /* a literal value (graph-format.md, additions): {"value": X}, X a
         * string, a number, a boolean or null (NaN) */
        if (json_is_object(e)) {
            json_t *x = json_object_get(e, "value");
            if (!x || json_object_size(e) != 1)
                return NFAIL(c, n, "inputs[%zu]: a literal must be {\"value\": X}", i);
            if (json_is_string(x)) {
                if (!(n->in[i].str = strdup(json_string_value(x))))
                    return NFAIL(c, n, "out of memory");
                double fv;
                n->in[i].sc = sc_float(graph_float_word(n->in[i].str, &fv) ? fv : NAN);
            } else if (json_is_null(x)) {
                n->in[i].sc = sc_float(NAN);
            } else if (!js_scalar(x, &n->in[i].sc)) {
                return NFAIL(c, n,
                             "inputs[%zu]: \"value\" must be a string, a number, a boolean or "
                             "null",
                             i);
            }
        } else if (!js_scalar(e, &n->in[i].sc)) {
            return NFAIL(c, n, "inputs[%zu] must be a node key, a number or a boolean", i);
        }
        /* fancy: getitem's integer index inputs, setitem's value, take's indices */
        bool fx_sc = i > 0 && (n->op == OP_GETITEM || n->op == OP_SETITEM || n->op == OP_TAKE);
        if (!op_is_elementwise(n->op) && !fx_sc)
            return NFAIL(c, n, "inputs[%zu] is a scalar; %s takes only tensor inputs", i,
                         op_name(n->op));
        n->in[i].node = -1;
    }
    return 0;
}

bool graph_float_word(const char *s, double *v)
{
    if (!strcmp(s, "nan"))
        *v = NAN;
    else if (!strcmp(s, "inf") || !strcmp(s, "+inf"))
        *v = INFINITY;
    else if (!strcmp(s, "-inf"))
        *v = -INFINITY;
    else
        return false;
    return true;
}

/* multiout: the error for a key naming an op with several results, used
 * as an input or fetched (graph-format.md, additions); 0 when key is none. */
static int op_key_used(pctx_t *c, const graph_node_t *user, const char *key, const char *as)
{
    json_t *v = c->opkeys ? json_object_get(c->opkeys, key) : NULL;
    if (!v) return 0;
    char eb[ESC_LEN];
    const graph_node_t *o = &c->g->nodes[json_integer_value(v)];
    return NFAIL(c, user,
                 "%s \"%s\", the key of an op with several results (%s), which is not a tensor; "
                 "name one of its %d outputs (\"%s\", ...)",
                 as, esc(key, eb), op_name(o->op), o->n_outputs, o->key);
}

/* Node ni of the graph from document node di (obj): the document's node
 * itself, or output k (out_key) of its n_out outputs. */
static int parse_node(pctx_t *c, int ni, json_t *obj, int di, const char *out_key, int k, int n_out)
{
    graph_node_t *n = &c->g->nodes[ni];
    graph_raw_t *r = &c->raw[ni];
    char eb[ESC_LEN];
    r->doc_index = di;
    r->obj = obj;

    if (!json_is_object(obj)) return NFAIL(c, NULL, "nodes[%d]: must be an object", di);
    json_t *kj = json_object_get(obj, "key");
    if (!kj) return NFAIL(c, NULL, "nodes[%d]: \"key\" is missing", di);
    if (!json_is_string(kj)) return NFAIL(c, NULL, "nodes[%d]: \"key\" must be a string", di);
    const char *key = json_string_value(kj);
    if (!key_valid(key))
        return NFAIL(c, NULL, "nodes[%d]: key \"%s\" must be 1-%d characters of [A-Za-z0-9_.-]", di,
                     esc(key, eb), GRAPH_KEY_MAX);
    strcpy(n->key, out_key ? out_key : key);
    json_t *o = json_object_get(obj, "op");
    if (!o) return NFAIL(c, NULL, "node \"%s\": \"op\" is missing", n->key);
    if (!json_is_string(o)) return NFAIL(c, NULL, "node \"%s\": \"op\" must be a string", n->key);
    if (op_parse(json_string_value(o), &n->op) != 0)
        return NFAIL(c, NULL, "node \"%s\": unknown op \"%s\"", n->key,
                     esc(json_string_value(o), eb));
    /* multiout: an op of one result this time may go without "outputs"
     * (a unique without return_* flags); its key is then the op's key and
     * the tensor's both */
    bool lone = !out_key && graph_multi_lone(n->op, obj);
    if (out_key || lone) {
        strcpy(n->op_key, key);
        n->n_outputs = out_key ? n_out : 1;
        n->out_index = k;
    }

    /* keys of nodes, of outputs and of ops with several results share one
     * namespace */
    if (k == 0) {
        json_t *prev = json_object_get(c->keys, key);
        json_t *prevop = json_object_get(c->opkeys, key);
        if (prev || prevop)
            return NFAIL(c, NULL, "node \"%s\" (%s): duplicate key (nodes[%lld] has it too)", key,
                         op_name(n->op),
                         (long long)(prev ? c->raw[json_integer_value(prev)].doc_index
                                          : json_integer_value(prevop)));
    }
    /* one-argument where: nonzero (several results) */
    bool multi = graph_multi_op(n->op) || (n->op == OP_WHERE && out_key) ||
                 (n->op == OP_INTERSECT1D && out_key); /* setops: with return_indices */
    if (multi != (out_key != NULL || lone)) {
        if (out_key) return NFAIL(c, n, "takes no \"outputs\": %s has one result", op_name(n->op));
        return NFAIL(c, n,
                     "has several results: name them with \"outputs\": [\"k1\", \"k2\", ...], "
                     "one new key per result in numpy's order");
    }
    if (out_key) {
        if (k == 0 && json_object_set_new(c->opkeys, key, json_integer(ni)) != 0)
            return NFAIL(c, n, "out of memory");
        json_t *prev = json_object_get(c->keys, out_key);
        json_t *prevop = json_object_get(c->opkeys, out_key);
        if (prev || prevop)
            return NFAIL(c, n, "outputs: duplicate key \"%s\" (nodes[%lld] has it too)", out_key,
                         (long long)(prev ? c->raw[json_integer_value(prev)].doc_index
                                          : c->raw[json_integer_value(prevop)].doc_index));
    }
    if (json_object_set_new(c->keys, n->key, json_integer(ni)) != 0)
        return NFAIL(c, n, "out of memory");
    if (out_key || lone) {
        if (parse_inputs(c, n, r, obj) < 0) return -1;
        return graph_multi_check(n, obj, c->err, c->errlen);
    }

    if (op_kind(n->op) == OPK_DF) {
        graph_df_env_t env = {c->lim, c->sess, c->err, c->errlen};
        if (graph_df_check_fields(&env, n, obj) < 0 || parse_inputs(c, n, r, obj) < 0) return -1;
        return graph_df_parse(&env, n, obj);
    }
    if (graph_la_owns(n->op)) {
        if (parse_inputs(c, n, r, obj) < 0) return -1;
        return graph_la_parse(n, obj, c->err, c->errlen);
    }
    if (op_kind(n->op) == OPK_SORTSTAT) {
        if (parse_inputs(c, n, r, obj) < 0) return -1;
        return graph_ss_parse(n, obj, c->err, c->errlen);
    }
    if (graph_setops_owns(n->op)) { /* setops: setops.h */
        if (parse_inputs(c, n, r, obj) < 0) return -1;
        return graph_setops_parse(n, obj, c->err, c->errlen);
    }
    if (graph_shapes2_owns(n->op)) { /* shapes: shapes2.h */
        if (parse_inputs(c, n, r, obj) < 0) return -1;
        return graph_shapes2_parse(n, r, obj, c->err, c->errlen);
    }
    const char *name;
    json_t *val;
    uint64_t allowed = op_fields(n->op) | B(F_INPUTS);
    json_object_foreach(obj, name, val)
    {
        if (strcmp(name, "key") == 0 || strcmp(name, "op") == 0) continue;
        if (strcmp(name, "outputs") == 0)
            return NFAIL(c, n, "takes no \"outputs\": %s has one result", op_name(n->op));
        int f;
        for (f = 0; f < F_COUNT; f++)
            if (strcmp(name, field_names[f]) == 0) break;
        if (f == F_COUNT || !(allowed & B(f)))
            return NFAIL(c, n, "unknown field \"%s\"", esc(name, eb));
    }
    if (parse_inputs(c, n, r, obj) < 0) return -1;
    return parse_params(c, n, r, obj);
}

/* ---------------------------------------------------------------------------
 * Inputs, session tensors, fetch */

/* The node named `key`: one of the document, or a session tensor added as a
 * node on first use. *idx: its index, or -1 when neither has it. */
static int resolve_key(pctx_t *c, const char *key, int *idx)
{
    json_t *v = json_object_get(c->keys, key);
    *idx = -1;
    if (v) {
        *idx = (int)json_integer_value(v);
        return 0;
    }
    if (!c->sess || !c->sess->lookup || !key_valid(key)) return 0;
    shape_t shape = {0};
    dtype_t dt = DT_FLOAT64;
    int64_t chunk[MR_MAXDIM] = {0};
    if (c->sess->lookup(c->sess->ctx, key, &shape, &dt, chunk) != 0) return 0;
    char eb[ESC_LEN];
    bool ok = shape.ndim >= 0 && shape.ndim <= MR_MAXDIM && (unsigned)dt < DT_NTYPES;
    for (int d = 0; ok && d < shape.ndim; d++)
        ok = shape.d[d] >= 0 && chunk[d] > 0;
    if (!ok)
        return NFAIL(c, NULL,
                     "document: the session's tensor \"%s\" has an invalid shape, dtype "
                     "or chunking",
                     esc(key, eb));
    if ((int64_t)c->g->n_nodes >= c->lim->max_nodes)
        return NFAIL(c, NULL, "document: more than %lld nodes with the session's tensors",
                     (long long)c->lim->max_nodes);
    if (grow(c) < 0) return -1;
    int i = c->g->n_nodes++;
    graph_node_t *n = &c->g->nodes[i];
    memset(n, 0, sizeof *n);
    strcpy(n->key, key);
    n->op = OP_SESSION_TENSOR;
    n->shape = shape;
    n->has_dtype = true;
    n->dtype = dt;
    n->n_chunk = shape.ndim;
    memcpy(n->chunk, chunk, sizeof n->chunk);
    memset(&c->raw[i], 0, sizeof c->raw[i]);
    c->raw[i].doc_index = -1;
    if (json_object_set_new(c->keys, key, json_integer(i)) != 0)
        return NFAIL(c, NULL, "document: out of memory");
    /* a DataFrame or Series of an earlier task: its schema (graph_df.c) */
    const char *schema = c->sess->frame_schema ? c->sess->frame_schema(c->sess->ctx, key) : NULL;
    if (schema && graph_df_session(n, schema, c->err, c->errlen) < 0) return -1;
    *idx = i;
    return 0;
}

static int resolve_inputs(pctx_t *c)
{
    char eb[ESC_LEN];
    for (int i = 0; i < c->n_doc; i++) {
        for (int j = 0; j < c->g->nodes[i].n_in; j++) {
            if (c->g->nodes[i].in[j].node != -2) continue;
            const char *key = json_string_value(json_array_get(c->raw[i].inputs, (size_t)j));
            if (op_key_used(c, &c->g->nodes[i], key, "input") < 0) return -1;
            int idx;
            if (resolve_key(c, key, &idx) < 0) return -1;
            graph_node_t *n = &c->g->nodes[i]; /* resolve_key may move the nodes */
            if (idx < 0)
                return NFAIL(c, n, "input \"%s\" is not a node of this document%s", esc(key, eb),
                             c->sess ? " nor a tensor of the session" : "");
            n->in[j].node = idx;
        }
    }
    return 0;
}

/* fetch absent means an empty list: a document may be run for its session
 * side effects alone (cluster mode keeps every node addressable). */
static int parse_fetch(pctx_t *c, json_t *f)
{
    char eb[ESC_LEN];
    size_t cnt = f ? json_array_size(f) : 0;
    if (cnt == 0) return 0;
    c->g->fetch = calloc(cnt, sizeof *c->g->fetch);
    if (!c->g->fetch) return NFAIL(c, NULL, "document: out of memory");
    for (size_t i = 0; i < cnt; i++) {
        json_t *e = json_array_get(f, i);
        if (!json_is_string(e)) return NFAIL(c, NULL, "document: fetch[%zu] must be a node key", i);
        if (op_key_used(c, NULL, json_string_value(e), "document: fetch names") < 0) return -1;
        int idx;
        if (resolve_key(c, json_string_value(e), &idx) < 0) return -1;
        if (idx < 0)
            return NFAIL(c, NULL,
                         "document: fetch names \"%s\", which is not a node of this "
                         "document%s",
                         esc(json_string_value(e), eb),
                         c->sess ? " nor a tensor of the session" : "");
        if (c->g->nodes[idx].fetch)
            return NFAIL(c, NULL, "document: fetch names \"%s\" twice", c->g->nodes[idx].key);
        c->g->nodes[idx].fetch = true; /* moves with the node when sorted */
        c->g->fetch[c->g->n_fetch++] = idx;
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Topological order */

/* Min-heap of node indexes by priority. */
typedef struct {
    int *a;
    int n;
    const int *prio;
} heap_t;

static void heap_push(heap_t *h, int v)
{
    int i = h->n++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (h->prio[h->a[p]] <= h->prio[v]) break;
        h->a[i] = h->a[p];
        i = p;
    }
    h->a[i] = v;
}

static int heap_pop(heap_t *h)
{
    int top = h->a[0], v = h->a[--h->n], i = 0;
    for (;;) {
        int l = 2 * i + 1, m = l;
        if (l >= h->n) break;
        if (l + 1 < h->n && h->prio[h->a[l + 1]] < h->prio[h->a[l]]) m = l + 1;
        if (h->prio[v] <= h->prio[h->a[m]]) break;
        h->a[i] = h->a[m];
        i = m;
    }
    if (h->n > 0) h->a[i] = v;
    return top;
}

/* Names a cycle among the nodes Kahn's algorithm could not emit: each of
 * them still has an unemitted input, so walking from one along such inputs
 * must come back to a node already seen. Reported from the cycle's node that
 * comes first in the document, as "a -> b -> a" where each uses the next. */
static int report_cycle(pctx_t *c, const bool *done, const int *prio, int *mark)
{
    graph_t *g = c->g;
    int start = -1;
    for (int i = 0; i < g->n_nodes; i++)
        if (!done[i] && (start < 0 || prio[i] < prio[start])) start = i;
    for (int i = 0; i < g->n_nodes; i++)
        mark[i] = -1;
    int cur = start, step = 0;
    while (mark[cur] < 0) {
        mark[cur] = step++;
        const graph_node_t *n = &g->nodes[cur];
        int next = -1;
        for (int j = 0; j < n->n_in && next < 0; j++)
            if (n->in[j].node >= 0 && !done[n->in[j].node]) next = n->in[j].node;
        cur = next;
    }
    /* cur is on the cycle; find its first node in document order. */
    int first = cur, p = cur;
    do {
        const graph_node_t *n = &g->nodes[p];
        int next = -1;
        for (int j = 0; j < n->n_in && next < 0; j++)
            if (n->in[j].node >= 0 && !done[n->in[j].node] && mark[n->in[j].node] >= 0)
                next = n->in[j].node;
        p = next;
        if (prio[p] < prio[first]) first = p;
    } while (p != cur);
    /* The walk above follows the same first unemitted marked input from each
     * node, so it stays on the cycle; print it from `first`. */
    char buf[4096]; /* 16 keys of at most 128 characters, and arrows */
    size_t o = 0;
    p = first;
    int shown = 0;
    do {
        if (shown == 16) { /* a long cycle: its start tells enough */
            o += (size_t)snprintf(buf + o, sizeof buf - o, " -> ...");
            break;
        }
        o +=
            (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", shown ? " -> " : "", g->nodes[p].key);
        shown++;
        const graph_node_t *n = &g->nodes[p];
        int next = -1;
        for (int j = 0; j < n->n_in && next < 0; j++)
            if (n->in[j].node >= 0 && !done[n->in[j].node] && mark[n->in[j].node] >= 0)
                next = n->in[j].node;
        p = next;
        if (p == first) snprintf(buf + o, sizeof buf - o, " -> %s", g->nodes[first].key);
    } while (p != first);
    return NFAIL(c, &g->nodes[first], "inputs form a cycle: %s", buf);
}

/* Kahn's algorithm, always emitting the ready node that comes first (session
 * tensors, then document order): a document already in order keeps it. Then
 * the nodes are moved into that order and operand indexes renumbered. */
static int topo_sort(pctx_t *c)
{
    graph_t *g = c->g;
    int n = g->n_nodes, n_sess = n - c->n_doc, rc = -1, emitted = 0;
    int64_t n_edges = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < g->nodes[i].n_in; j++)
            n_edges += g->nodes[i].in[j].node >= 0;
    if (n_edges > INT32_MAX) /* offsets are int; 2^31 inputs need a > 6 GB document */
        return NFAIL(c, NULL, "document: %lld inputs are too many", (long long)n_edges);
    int *prio = calloc((size_t)n, sizeof *prio);
    int *indeg = calloc((size_t)n, sizeof *indeg);
    int *off = calloc((size_t)n + 1, sizeof *off);
    int *users = calloc((size_t)n_edges + 1, sizeof *users);
    int *order = calloc((size_t)n, sizeof *order);
    int *heap = calloc((size_t)n, sizeof *heap);
    bool *done = calloc((size_t)n, sizeof *done);
    if (!prio || !indeg || !off || !users || !order || !heap || !done) {
        NFAIL(c, NULL, "document: out of memory");
        goto cleanup;
    }
    for (int i = 0; i < n; i++)
        prio[i] = i < c->n_doc ? n_sess + i : i - c->n_doc;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < g->nodes[i].n_in; j++)
            if (g->nodes[i].in[j].node >= 0) {
                off[g->nodes[i].in[j].node + 1]++;
                indeg[i]++;
            }
    for (int i = 0; i < n; i++)
        off[i + 1] += off[i];
    for (int i = 0; i < n; i++) /* order[] doubles as a fill cursor here */
        order[i] = off[i];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < g->nodes[i].n_in; j++)
            if (g->nodes[i].in[j].node >= 0) users[order[g->nodes[i].in[j].node]++] = i;

    heap_t h = {heap, 0, prio};
    for (int i = 0; i < n; i++)
        if (indeg[i] == 0) heap_push(&h, i);
    while (h.n > 0) {
        int v = heap_pop(&h);
        done[v] = true;
        order[emitted++] = v;
        for (int e = off[v]; e < off[v + 1]; e++)
            if (--indeg[users[e]] == 0) heap_push(&h, users[e]);
    }
    if (emitted < n) {
        report_cycle(c, done, prio, indeg);
        goto cleanup;
    }

    /* prio[] becomes old index -> new index; operands and fetch are
     * renumbered, then the nodes move in place, cycle by cycle, so that a
     * large graph is not held twice. */
    for (int i = 0; i < n; i++)
        prio[order[i]] = i;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < g->nodes[i].n_in; j++)
            if (g->nodes[i].in[j].node >= 0) g->nodes[i].in[j].node = prio[g->nodes[i].in[j].node];
    for (int i = 0; i < g->n_fetch; i++)
        g->fetch[i] = prio[g->fetch[i]];
    for (int i = 0; i < n; i++) {
        while (prio[i] != i) {
            int d = prio[i];
            graph_node_t tn = g->nodes[d];
            graph_raw_t tr = c->raw[d];
            g->nodes[d] = g->nodes[i];
            c->raw[d] = c->raw[i];
            g->nodes[i] = tn;
            c->raw[i] = tr;
            prio[i] = prio[d];
            prio[d] = d;
        }
    }
    graph_count_consumers(g, indeg);
    rc = 0;
cleanup:
    free(prio);
    free(indeg);
    free(off);
    free(users);
    free(order);
    free(heap);
    free(done);
    return rc;
}

/* ---------------------------------------------------------------------------
 * The document */

const char *graph_device_name(graph_device_t d)
{
    return d == GRAPH_DEVICE_GPU ? "gpu" : d == GRAPH_DEVICE_CPU ? "cpu" : "auto";
}

static int parse_document(pctx_t *c, json_t *root)
{
    char eb[ESC_LEN];
    if (!json_is_object(root)) return NFAIL(c, NULL, "document: must be a JSON object");
    const char *name;
    json_t *val;
    json_object_foreach(root, name, val)
    {
        if (strcmp(name, "version") != 0 && strcmp(name, "nodes") != 0 &&
            strcmp(name, "fetch") != 0 && strcmp(name, "device") != 0)
            return NFAIL(c, NULL, "document: unknown field \"%s\"", esc(name, eb));
    }
    json_t *device = json_object_get(root, "device");
    if (device) {
        const char *dv = json_is_string(device) ? json_string_value(device) : "";
        int d = GRAPH_DEVICE_AUTO;
        while (d <= GRAPH_DEVICE_CPU && strcmp(dv, graph_device_name((graph_device_t)d)) != 0)
            d++;
        if (d > GRAPH_DEVICE_CPU)
            return NFAIL(c, NULL, "document: \"device\" must be \"auto\", \"gpu\" or \"cpu\"");
        c->g->device = (graph_device_t)d;
    }
    json_t *ver = json_object_get(root, "version");
    if (!ver) return NFAIL(c, NULL, "document: \"version\" is missing");
    if (!json_is_integer(ver) || json_integer_value(ver) != 1)
        return NFAIL(c, NULL, "document: \"version\" must be the integer 1");
    json_t *nodes = json_object_get(root, "nodes");
    if (!nodes) return NFAIL(c, NULL, "document: \"nodes\" is missing");
    if (!json_is_array(nodes) || json_array_size(nodes) == 0)
        return NFAIL(c, NULL, "document: \"nodes\" must be a non-empty list");
    size_t n_doc = json_array_size(nodes);
    if ((int64_t)n_doc > c->lim->max_nodes)
        return NFAIL(c, NULL, "document: %zu nodes, more than the limit of %lld", n_doc,
                     (long long)c->lim->max_nodes);
    if (n_doc > INT32_MAX / 4) /* indexes are int; the session doubles at most */
        return NFAIL(c, NULL, "document: %zu nodes are too many", n_doc);
    json_t *fetch = json_object_get(root, "fetch");
    if (fetch && !json_is_array(fetch))
        return NFAIL(c, NULL, "document: \"fetch\" must be a list of node keys");

    /* multiout: a node with "outputs" becomes one node per output */
    size_t n_all = 0;
    for (size_t i = 0; i < n_doc; i++) {
        json_t *obj = json_array_get(nodes, i), *outs = json_object_get(obj, "outputs");
        if (outs && json_object_get(obj, "key") && !json_is_string(json_object_get(obj, "key")))
            outs = NULL; /* parse_node reports the key */
        if (!outs) {
            n_all++;
            continue;
        }
        const char *key = json_string_value(json_object_get(obj, "key"));
        if (!json_is_array(outs) || json_array_size(outs) == 0)
            return NFAIL(c, NULL, "node \"%s\": \"outputs\" must be a non-empty list of keys",
                         key ? esc(key, eb) : "?");
        for (size_t k = 0; k < json_array_size(outs); k++) {
            json_t *e = json_array_get(outs, k);
            if (!json_is_string(e) || !key_valid(json_string_value(e)))
                return NFAIL(c, NULL,
                             "node \"%s\": outputs[%zu] must be a key of 1-%d characters of "
                             "[A-Za-z0-9_.-]",
                             key ? esc(key, eb) : "?", k, GRAPH_KEY_MAX);
        }
        n_all += json_array_size(outs);
        if ((int64_t)n_all > c->lim->max_nodes || n_all > INT32_MAX / 4)
            return NFAIL(c, NULL, "document: more than %lld nodes with the outputs of its ops",
                         (long long)c->lim->max_nodes);
    }
    c->n_doc = (int)n_all;
    c->cap = (int)n_all + 1;
    c->g->nodes = calloc((size_t)c->cap, sizeof *c->g->nodes);
    c->raw = calloc((size_t)c->cap, sizeof *c->raw);
    c->keys = json_object();
    c->opkeys = json_object();
    if (!c->g->nodes || !c->raw || !c->keys || !c->opkeys)
        return NFAIL(c, NULL, "document: out of memory");
    int ni = 0;
    for (size_t i = 0; i < n_doc; i++) {
        json_t *obj = json_array_get(nodes, i), *outs = json_object_get(obj, "outputs");
        if (outs && !json_is_string(json_object_get(obj, "key"))) outs = NULL;
        size_t no = outs ? json_array_size(outs) : 1;
        for (size_t k = 0; k < no; k++) {
            c->g->n_nodes = ni + 1; /* so that graph_free sees what this node holds */
            const char *ok = outs ? json_string_value(json_array_get(outs, k)) : NULL;
            if (parse_node(c, ni, obj, (int)i, ok, (int)k, (int)no) < 0) return -1;
            ni++;
        }
    }
    if (resolve_inputs(c) < 0 || parse_fetch(c, fetch) < 0 || topo_sort(c) < 0) return -1;
    for (int i = 0; i < c->g->n_nodes; i++)
        if (graph_infer_node(c->g, i, &c->raw[i], c->lim, c->err, c->errlen) < 0) return -1;
    return graph_lower_small(c->g, c->err, c->errlen);
}

int graph_parse(const char *json, size_t len, const graph_limits_t *lim,
                const graph_session_t *sess, graph_t **out, char *err, size_t errlen)
{
    return graph_parse_held(json, len, lim, sess, out, NULL, err, errlen);
}

int graph_parse_held(const char *json, size_t len, const graph_limits_t *lim,
                     const graph_session_t *sess, graph_t **out, char *held_key, char *err,
                     size_t errlen)
{
    if (held_key) held_key[0] = '\0';
    graph_limits_t dflt;
    if (!lim) {
        graph_limits_default(&dflt);
        lim = &dflt;
    }
    *out = NULL;
    if (err && errlen) err[0] = '\0';
    if ((uint64_t)len > (uint64_t)lim->max_document_bytes)
        return graph_fail(err, errlen, NULL, "document: %zu bytes, more than the limit of %lld",
                          len, (long long)lim->max_document_bytes);
    json_error_t je;
    /* jansson bounds its own nesting depth (2048) while parsing. */
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return graph_fail(err, errlen, NULL, "document: invalid JSON at line %d column %d: %s",
                          je.line, je.column, je.text);
    pctx_t c = {.lim = lim, .sess = sess, .err = err, .errlen = errlen};
    int rc = -1;
    c.g = calloc(1, sizeof *c.g);
    if (!c.g) {
        graph_fail(err, errlen, NULL, "document: out of memory");
        goto cleanup;
    }
    rc = parse_document(&c, root);
    if (rc == 0) {
        *out = c.g;
        c.g = NULL;
    } else if (held_key) {
        memcpy(held_key, c.g->held_input, sizeof c.g->held_input);
    }
cleanup:
    graph_free(c.g);
    free(c.raw);
    json_decref(c.keys);
    json_decref(c.opkeys);
    json_decref(root);
    return rc;
}

void graph_count_consumers(graph_t *g, int *last)
{
    /* n_consumers counts distinct nodes: inner(a, a) is one user of a. */
    for (int i = 0; i < g->n_nodes; i++) {
        last[i] = -1; /* last user seen */
        g->nodes[i].n_consumers = 0;
    }
    for (int i = 0; i < g->n_nodes; i++)
        for (int j = 0; j < g->nodes[i].n_in; j++) {
            int s = g->nodes[i].in[j].node;
            if (s >= 0 && last[s] != i) {
                last[s] = i;
                g->nodes[s].n_consumers++;
            }
        }
}

void graph_free_nodes(graph_node_t *nodes, int n)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; nodes[i].in && j < nodes[i].n_in; j++)
            free(nodes[i].in[j].str);
        free(nodes[i].in);
        free(nodes[i].data);
        graph_df_free(nodes[i].df);
        graph_la_free(nodes[i].la);
        free(nodes[i].fancy);
        graph_ss_free(nodes[i].ss);
        graph_shapes2_free(nodes[i].sh2);
    }
    free(nodes);
}

void graph_free(graph_t *g)
{
    if (!g) return;
    graph_free_nodes(g->nodes, g->n_nodes);
    free(g->fetch);
    free(g);
}

int graph_find(const graph_t *g, const char *key)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (strcmp(g->nodes[i].key, key) == 0) return i;
    return -1;
}
