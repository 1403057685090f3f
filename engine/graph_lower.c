/* graph_lower.c: the small integer dtypes (int8, int16, uint8, uint16,
 * uint32, uint64) through the ops whose kernels know only the original five
 * dtypes.
 *
 * Element-wise ops, astype, where, clip, the creation ops and the shape ops
 * that only move elements (transpose, reshape, concatenate, slicing...) run
 * the small dtypes natively (engine/kern/ew_int.c; gathers by size). Every other op on a small
 * input runs widened, after inference has given each node numpy's dtype: the graph is rewritten so
 * that the op reads its small inputs through an astype to a wide dtype, and, when numpy's result is
 * of a dtype the wide op does not give, its result is cast to it. The node keeps its key on that
 * cast, so consumers, fetch and session see numpy's dtype; the wide op and the astypes get internal
 * keys ("_lw" and a number).
 *
 * The wide dtype of a small input:
 *   - float32 when numpy's result is float32 (an op mixing a small integer
 *     with float32 data computes in float32, as numpy converts it), except
 *     for an op's integer index inputs;
 *   - int64 for int8, int16, uint8, uint16 and uint32, whose every value it
 *     holds: arithmetic wraps to the same low bits, orders and values are
 *     kept;
 *   - for uint64, by what the op does: float64 where numpy's result is a
 *     float or the op works in floats (histogram, percentiles, statistics,
 *     linear algebra); the values shifted by 2**63 (x ^ 2**63 as int64,
 *     which keeps their order) for the ops that sort, search or compare
 *     (their values shifted back after); else the bits as int64 (sums,
 *     products, cumulative ops, data movement: the same low bits).
 *
 * A held result (a length known only when it runs: unique, set ops, boolean
 * masks, compress) of a small dtype is refused, as int32 and float32 ones
 * already are: such results are int64, float64 or bool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "df/dfgraph.h"
#include "graph_internal.h"

#define FAIL(n, ...) graph_fail(err, errlen, (n), __VA_ARGS__)

/* Shape ops that only move elements (gathers by element size): native. */
static bool moves_only(const graph_node_t *n)
{
    switch (n->op) {
    case OP_TRANSPOSE:
    case OP_RESHAPE:
    case OP_RAVEL:
    case OP_SQUEEZE:
    case OP_EXPAND_DIMS:
    case OP_RECHUNK:
    case OP_SWAPAXES:
    case OP_MOVEAXIS:
    case OP_FLIP:
    case OP_FLIPLR:
    case OP_FLIPUD:
    case OP_ATLEAST_1D:
    case OP_ATLEAST_2D:
    case OP_ATLEAST_3D:
    case OP_CONCATENATE:
    case OP_STACK:
    case OP_HSTACK:
    case OP_VSTACK:
    case OP_DSTACK:
    case OP_COLUMN_STACK:
    case OP_BROADCAST_TO:
        return true;
    case OP_GETITEM:
        return !n->fancy; /* integers, slices, newaxis, ellipsis */
    default:
        return false;
    }
}

/* Ops that run the small dtypes natively. */
static bool native(const graph_node_t *n)
{
    if (moves_only(n)) return true;
    switch (op_kind(n->op)) {
    case OPK_UNARY:
    case OPK_BINARY:
    case OPK_ASTYPE:
    case OPK_CLIP:
    case OPK_CREATE:
        return true;
    case OPK_WHERE:
        return n->n_in == 3; /* where(cond) is nonzero */
    case OPK_RANDOM:
        return n->n_in == 0;
    default:
        return false;
    }
}

/* uint64 inputs of these ops are shifted by 2**63: they order values. */
static bool orders(op_t op)
{
    switch (op) {
    case OP_SORT:
    case OP_ARGSORT:
    case OP_PARTITION:
    case OP_ARGPARTITION:
    case OP_TOPK:
    case OP_UNIQUE:
    case OP_SEARCHSORTED:
    case OP_ISIN:
    case OP_IN1D:
    case OP_UNION1D:
    case OP_INTERSECT1D:
    case OP_SETDIFF1D:
    case OP_DIGITIZE:
    case OP_MIN:
    case OP_MAX:
    case OP_NANMIN:
    case OP_NANMAX:
    case OP_ARGMIN:
    case OP_ARGMAX:
    case OP_NANARGMIN:
    case OP_NANARGMAX:
    case OP_PTP:
        return true;
    default:
        return false;
    }
}

/* uint64 inputs of these ops become float64: they compute in floats. */
static bool floats(op_t op)
{
    switch (op) {
    case OP_HISTOGRAM:
    case OP_PERCENTILE:
    case OP_QUANTILE:
    case OP_MEDIAN:
    case OP_NANPERCENTILE:
    case OP_NANQUANTILE:
    case OP_NANMEDIAN:
    case OP_AVERAGE:
    case OP_COV:
    case OP_CORRCOEF:
    case OP_MEAN:
    case OP_STD:
    case OP_VAR:
    case OP_NANMEAN:
    case OP_NANSTD:
    case OP_NANVAR:
    case OP_LA_CHOLESKY:
    case OP_LA_SOLVE:
    case OP_LA_INV:
    case OP_LA_DET:
    case OP_LA_QR:
    case OP_LA_SVD:
    case OP_LA_EIGH:
    case OP_LA_SLOGDET:
    case OP_LA_LSTSQ:
    case OP_LA_NORM:
    case OP_LA_MATRIX_RANK:
        return true;
    default:
        return false;
    }
}

/* Ops whose tensor inputs after the first are integer positions. */
static bool takes_indexes(op_t op)
{
    return op == OP_GETITEM || op == OP_SETITEM || op == OP_TAKE || op == OP_COMPRESS ||
           op == OP_REPEAT || op == OP_BINCOUNT;
}

typedef struct {
    graph_t *g;       /* the graph being rewritten (its old nodes) */
    graph_node_t *nn; /* the new nodes */
    int n, cap;
    int *map; /* old node index -> new index of its value */
    int serial;
    /* widened inputs made so far, shared by every op that reads them */
    struct {
        int src, kind, idx;
    } * memo;
    int n_memo, cap_memo;
    char *err;
    size_t errlen;
} lower_t;

static graph_node_t *push(lower_t *L)
{
    if (L->n == L->cap) {
        int ncap = L->cap * 2 + 8;
        graph_node_t *p = realloc(L->nn, sizeof *p * (size_t)ncap);
        if (!p) return NULL;
        L->nn = p;
        L->cap = ncap;
    }
    graph_node_t *n = &L->nn[L->n++];
    memset(n, 0, sizeof *n);
    return n;
}

/* "_lw<n>": the serial starts past any such key of the document */
static void internal_key(lower_t *L, char *key)
{
    snprintf(key, GRAPH_KEY_MAX + 1, "_lw%d", L->serial++);
}

/* A new element-wise node over new node `src`: astype to dt, or (xor)
 * bitwise_xor with 2**63 in int64. Returns its new index or -1. */
static int ew_node(lower_t *L, int src, op_t op, dtype_t dt)
{
    shape_t shape = L->nn[src].oshape;
    int n_chunk = L->nn[src].n_chunk;
    int64_t chunk[MR_MAXDIM];
    memcpy(chunk, L->nn[src].chunk, sizeof chunk);
    graph_node_t *n = push(L);
    if (!n) return -1;
    int idx = L->n - 1;
    internal_key(L, n->key);
    n->op = op;
    n->n_in = op == OP_ASTYPE ? 1 : 2;
    n->in = calloc((size_t)n->n_in, sizeof *n->in);
    if (!n->in) return -1;
    n->in[0].node = src;
    if (op != OP_ASTYPE) {
        n->in[1].node = -1;
        n->in[1].sc = sc_int(INT64_MIN);
    }
    n->has_dtype = op == OP_ASTYPE;
    n->dtype = dt;
    n->oshape = shape;
    n->odtype = dt;
    n->n_chunk = n_chunk;
    memcpy(n->chunk, chunk, sizeof chunk);
    n->vkind = VK_TENSOR;
    return idx;
}

enum { W_INT64, W_FLOAT32, W_FLOAT64, W_SHIFTED };

/* new node src widened as `kind`: a chain of new nodes made once per
 * (src, kind); its last index or -1 */
static int widened(lower_t *L, int src, int kind)
{
    for (int i = 0; i < L->n_memo; i++)
        if (L->memo[i].src == src && L->memo[i].kind == kind) return L->memo[i].idx;
    if (L->n_memo == L->cap_memo) {
        int ncap = L->cap_memo * 2 + 8;
        void *p = realloc(L->memo, sizeof *L->memo * (size_t)ncap);
        if (!p) return -1;
        L->memo = p;
        L->cap_memo = ncap;
    }
    int w = ew_node(L, src, OP_ASTYPE,
                    kind == W_FLOAT32   ? DT_FLOAT32
                    : kind == W_FLOAT64 ? DT_FLOAT64
                                        : DT_INT64);
    if (w >= 0 && kind == W_SHIFTED) w = ew_node(L, w, OP_BITWISE_XOR, DT_INT64);
    if (w >= 0) {
        L->memo[L->n_memo].src = src;
        L->memo[L->n_memo].kind = kind;
        L->memo[L->n_memo++].idx = w;
    }
    return w;
}

/* How a small input of dtype s is widened for op, numpy's result being t;
 * mixed: the op's inputs hold uint64 and a signed integer (which numpy
 * compares as float64). */
static int wide_kind(dtype_t s, op_t op, dtype_t t, bool index_input, bool mixed)
{
    if (index_input) return W_INT64;
    if (t == DT_FLOAT32) return W_FLOAT32;
    if (s != DT_UINT64) return W_INT64;
    if (dt_is_float(t) || floats(op) || mixed) return W_FLOAT64;
    return orders(op) ? W_SHIFTED : W_INT64;
}

static int lower_node(lower_t *L, int old)
{
    char *err = L->err;
    size_t errlen = L->errlen;
    graph_node_t *x = &L->g->nodes[old];
    dtype_t t = x->odtype;
    if (x->df && x->df->held && dt_is_small(t))
        return FAIL(x,
                    "a result whose length is known only when it runs (unique, a set op, a "
                    "boolean mask, compress, extract) must be int64, float64 or bool here, not "
                    "%s; astype the input first",
                    dt_name(t));
    bool shifted = false, data_widened = false, has_u64 = false, has_signed = false;
    for (int j = 0; j < x->n_in; j++) { /* the data inputs' dtypes */
        if (j > 0 && takes_indexes(x->op)) break;
        dtype_t d = x->in[j].node >= 0 ? L->nn[L->map[x->in[j].node]].odtype : DT_BOOL;
        has_u64 |= d == DT_UINT64;
        has_signed |= dt_is_int(d) && !dt_is_unsigned(d);
    }
    for (int j = 0; j < x->n_in; j++) {
        int s = x->in[j].node;
        if (s < 0) continue;
        int ns = L->map[s];
        dtype_t d = L->nn[ns].odtype;
        if (!dt_is_small(d)) {
            x->in[j].node = ns;
            continue;
        }
        int kind = W_INT64;
        if (x->vkind == VK_TENSOR) {
            bool index_input = j > 0 && takes_indexes(x->op);
            kind = wide_kind(d, x->op, t, index_input, has_u64 && has_signed);
            shifted |= kind == W_SHIFTED;
            data_widened |= !index_input;
        } else if (d == DT_UINT64) { /* a DataFrame op's tensor input */
            kind = W_FLOAT64;
        }
        int w = widened(L, ns, kind);
        if (w < 0) return FAIL(x, "out of memory");
        x->in[j].node = w;
    }
    /* the op's own result: numpy's dtype, or the wide one and a cast */
    bool cast = x->vkind == VK_TENSOR && data_widened && (dt_is_small(t) || t == DT_INT32);
    graph_node_t *o = push(L);
    if (!o) return FAIL(x, "out of memory");
    *o = *x;
    memset(x, 0, sizeof *x); /* what it owned moves with it */
    int oi = L->n - 1;
    L->map[old] = oi;
    if (!cast) return 0;
    char key[GRAPH_KEY_MAX + 1];
    memcpy(key, o->key, sizeof key);
    bool fetch = o->fetch;
    internal_key(L, o->key);
    o->fetch = false;
    o->odtype = DT_INT64;
    if (o->df) o->df->tdt = DT_INT64;
    int src = oi;
    /* values shifted by 2**63 shift back (ptp's difference is unshifted) */
    if (shifted && t == DT_UINT64 && o->op != OP_PTP &&
        (src = ew_node(L, src, OP_BITWISE_XOR, DT_INT64)) < 0)
        return FAIL(NULL, "out of memory");
    int c = ew_node(L, src, OP_ASTYPE, t);
    if (c < 0) return FAIL(NULL, "out of memory");
    memcpy(L->nn[c].key, key, sizeof key);
    L->nn[c].fetch = fetch;
    L->map[old] = c;
    return 0;
}

static bool needs_lowering(const graph_t *g, const graph_node_t *n)
{
    if (native(n)) return false;
    for (int j = 0; j < n->n_in; j++)
        if (n->in[j].node >= 0 && dt_is_small(g->nodes[n->in[j].node].odtype)) return true;
    return false;
}

int graph_lower_small(graph_t *g, char *err, size_t errlen)
{
    bool *need = malloc((size_t)g->n_nodes), any = false;
    if (!need) return FAIL(NULL, "document: out of memory");
    lower_t L = {.g = g, .err = err, .errlen = errlen};
    for (int i = 0; i < g->n_nodes; i++) {
        const char *k = g->nodes[i].key;
        any |= need[i] = needs_lowering(g, &g->nodes[i]);
        if (strncmp(k, "_lw", 3) == 0) {
            long v = strtol(k + 3, NULL, 10);
            if (v >= L.serial && v < 1000000000) L.serial = (int)v + 1;
        }
    }
    L.map = any ? malloc(sizeof *L.map * (size_t)g->n_nodes) : NULL;
    L.cap = g->n_nodes + 16;
    L.nn = any ? malloc(sizeof *L.nn * (size_t)L.cap) : NULL;
    int rc = any && (!L.map || !L.nn) ? FAIL(NULL, "document: out of memory") : 0;
    for (int i = 0; any && i < g->n_nodes && rc == 0; i++) {
        graph_node_t *x = &g->nodes[i];
        if (need[i]) {
            rc = lower_node(&L, i);
            continue;
        }
        for (int j = 0; j < x->n_in; j++)
            if (x->in[j].node >= 0) x->in[j].node = L.map[x->in[j].node];
        graph_node_t *o = push(&L);
        if (!o) {
            rc = FAIL(NULL, "document: out of memory");
            break;
        }
        *o = *x;
        memset(x, 0, sizeof *x); /* what it owned moves with it */
        L.map[i] = L.n - 1;
    }
    if (any && rc == 0) {
        free(g->nodes);
        g->nodes = L.nn;
        g->n_nodes = L.n;
        for (int f = 0; f < g->n_fetch; f++)
            g->fetch[f] = L.map[g->fetch[f]];
        /* L.map has room for the old count only: the new graph's scratch */
        int *last = malloc(sizeof(int) * (size_t)g->n_nodes);
        if (last)
            graph_count_consumers(g, last);
        else
            rc = FAIL(NULL, "document: out of memory");
        free(last);
    } else if (any) {
        /* what moved is freed with the new array; the rest with g */
        graph_free_nodes(L.nn, L.n);
    }
    free(L.map);
    free(L.memo);
    free(need);
    return rc;
}
