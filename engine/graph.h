/* graph.h: graph documents (shared/spec/graph-format.md) parsed, validated
 * and typed. graph_parse does every check the contract names before anything
 * runs: JSON shape, keys, unknown fields, op parameters, acyclicity, shape
 * and dtype inference, overflow of element counts and bytes, and the limits
 * the caller configures. Every error names the node, the op and the rule:
 *   node "b" (inner): shapes (3, 4) and (5, 3) are not aligned on their last axes
 */
#ifndef MARS_GRAPH_H
#define MARS_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

/* X(ID, "name", kind): every op of the contract's tensor part. */
#define GRAPH_OPS(X)                                                                               \
    X(ONES, "ones", OPK_CREATE)                                                                    \
    X(ZEROS, "zeros", OPK_CREATE)                                                                  \
    X(FULL, "full", OPK_CREATE)                                                                    \
    X(ARANGE, "arange", OPK_CREATE)                                                                \
    X(LINSPACE, "linspace", OPK_CREATE)                                                            \
    X(EYE, "eye", OPK_CREATE)                                                                      \
    X(ARRAY, "array", OPK_CREATE)                                                                  \
    X(RAND, "random.rand", OPK_RANDOM)                                                             \
    X(RANDN, "random.randn", OPK_RANDOM)                                                           \
    X(RANDINT, "random.randint", OPK_RANDOM)                                                       \
    X(UNIFORM, "random.uniform", OPK_RANDOM)                                                       \
    X(NORMAL, "random.normal", OPK_RANDOM)                                                         \
    X(ADD, "add", OPK_BINARY)                                                                      \
    X(SUBTRACT, "subtract", OPK_BINARY)                                                            \
    X(MULTIPLY, "multiply", OPK_BINARY)                                                            \
    X(DIVIDE, "divide", OPK_BINARY)                                                                \
    X(FLOOR_DIVIDE, "floor_divide", OPK_BINARY)                                                    \
    X(MOD, "mod", OPK_BINARY)                                                                      \
    X(POWER, "power", OPK_BINARY)                                                                  \
    X(MAXIMUM, "maximum", OPK_BINARY)                                                              \
    X(MINIMUM, "minimum", OPK_BINARY)                                                              \
    X(EQUAL, "equal", OPK_BINARY)                                                                  \
    X(NOT_EQUAL, "not_equal", OPK_BINARY)                                                          \
    X(LESS, "less", OPK_BINARY)                                                                    \
    X(LESS_EQUAL, "less_equal", OPK_BINARY)                                                        \
    X(GREATER, "greater", OPK_BINARY)                                                              \
    X(GREATER_EQUAL, "greater_equal", OPK_BINARY)                                                  \
    X(LOGICAL_AND, "logical_and", OPK_BINARY)                                                      \
    X(LOGICAL_OR, "logical_or", OPK_BINARY)                                                        \
    X(NEGATIVE, "negative", OPK_UNARY)                                                             \
    X(ABS, "abs", OPK_UNARY)                                                                       \
    X(SQRT, "sqrt", OPK_UNARY)                                                                     \
    X(EXP, "exp", OPK_UNARY)                                                                       \
    X(LOG, "log", OPK_UNARY)                                                                       \
    X(LOG1P, "log1p", OPK_UNARY)                                                                   \
    X(EXPM1, "expm1", OPK_UNARY)                                                                   \
    X(SIN, "sin", OPK_UNARY)                                                                       \
    X(COS, "cos", OPK_UNARY)                                                                       \
    X(TAN, "tan", OPK_UNARY)                                                                       \
    X(TANH, "tanh", OPK_UNARY)                                                                     \
    X(SQUARE, "square", OPK_UNARY)                                                                 \
    X(SIGN, "sign", OPK_UNARY)                                                                     \
    X(FLOOR, "floor", OPK_UNARY)                                                                   \
    X(CEIL, "ceil", OPK_UNARY)                                                                     \
    X(LOGICAL_NOT, "logical_not", OPK_UNARY)                                                       \
    X(ISNAN, "isnan", OPK_UNARY)                                                                   \
    X(ISFINITE, "isfinite", OPK_UNARY)                                                             \
    X(WHERE, "where", OPK_WHERE)                                                                   \
    X(CLIP, "clip", OPK_CLIP)                                                                      \
    X(ASTYPE, "astype", OPK_ASTYPE)                                                                \
    X(SUM, "sum", OPK_REDUCE)                                                                      \
    X(PROD, "prod", OPK_REDUCE)                                                                    \
    X(MEAN, "mean", OPK_REDUCE)                                                                    \
    X(MIN, "min", OPK_REDUCE)                                                                      \
    X(MAX, "max", OPK_REDUCE)                                                                      \
    X(STD, "std", OPK_REDUCE)                                                                      \
    X(VAR, "var", OPK_REDUCE)                                                                      \
    X(ALL, "all", OPK_REDUCE)                                                                      \
    X(ANY, "any", OPK_REDUCE)                                                                      \
    X(ARGMIN, "argmin", OPK_ARGREDUCE)                                                             \
    X(ARGMAX, "argmax", OPK_ARGREDUCE)                                                             \
    X(CUMSUM, "cumsum", OPK_SCAN)                                                                  \
    X(CUMPROD, "cumprod", OPK_SCAN)                                                                \
    X(DOT, "dot", OPK_LINALG)                                                                      \
    X(MATMUL, "matmul", OPK_LINALG)                                                                \
    X(INNER, "inner", OPK_LINALG)                                                                  \
    X(OUTER, "outer", OPK_LINALG)                                                                  \
    X(TENSORDOT, "tensordot", OPK_LINALG)                                                          \
    X(TRANSPOSE, "transpose", OPK_SHAPE)                                                           \
    X(RESHAPE, "reshape", OPK_SHAPE)                                                               \
    X(RAVEL, "ravel", OPK_SHAPE)                                                                   \
    X(SQUEEZE, "squeeze", OPK_SHAPE)                                                               \
    X(EXPAND_DIMS, "expand_dims", OPK_SHAPE)                                                       \
    X(CONCATENATE, "concatenate", OPK_SHAPE)                                                       \
    X(STACK, "stack", OPK_SHAPE)                                                                   \
    X(RECHUNK, "rechunk", OPK_SHAPE)                                                               \
    X(GETITEM, "getitem", OPK_SHAPE)                                                               \
    X(DF_FROM_TENSOR, "dataframe.from_tensor", OPK_DF)                                             \
    X(DF_READ_CSV, "dataframe.read_csv", OPK_DF)                                                   \
    X(DF_GETITEM, "dataframe.getitem", OPK_DF)                                                     \
    X(DF_FILTER, "dataframe.filter", OPK_DF)                                                       \
    X(DF_ASSIGN, "dataframe.assign", OPK_DF)                                                       \
    X(DF_SUM, "dataframe.sum", OPK_DF)                                                             \
    X(DF_MEAN, "dataframe.mean", OPK_DF)                                                           \
    X(DF_MIN, "dataframe.min", OPK_DF)                                                             \
    X(DF_MAX, "dataframe.max", OPK_DF)                                                             \
    X(DF_COUNT, "dataframe.count", OPK_DF)                                                         \
    X(DF_PROD, "dataframe.prod", OPK_DF)                                                           \
    X(DF_STD, "dataframe.std", OPK_DF)                                                             \
    X(DF_VAR, "dataframe.var", OPK_DF)                                                             \
    X(DF_NUNIQUE, "dataframe.nunique", OPK_DF)                                                     \
    X(DF_DESCRIBE, "dataframe.describe", OPK_DF)                                                   \
    X(DF_GROUPBY_AGG, "dataframe.groupby_agg", OPK_DF)                                             \
    X(DF_SORT_VALUES, "dataframe.sort_values", OPK_DF)                                             \
    X(DF_MERGE, "dataframe.merge", OPK_DF)                                                         \
    X(DF_HEAD, "dataframe.head", OPK_DF)                                                           \
    X(DF_TO_TENSOR, "dataframe.to_tensor", OPK_DF)                                                 \
    X(DF_FILLNA, "dataframe.fillna", OPK_DF)                                                       \
    X(DF_DROPNA, "dataframe.dropna", OPK_DF)                                                       \
    X(DF_ISNA, "dataframe.isna", OPK_DF)                                                           \
    X(DF_NOTNA, "dataframe.notna", OPK_DF)                                                         \
    X(DF_ISIN, "dataframe.isin", OPK_DF)                                                           \
    X(DF_ASTYPE, "dataframe.astype", OPK_DF)                                                       \
    X(DF_RENAME, "dataframe.rename", OPK_DF)                                                       \
    X(DF_DROP, "dataframe.drop", OPK_DF)                                                           \
    X(DF_REPLACE, "dataframe.replace", OPK_DF)                                                     \
    X(DF_CLIP, "dataframe.clip", OPK_DF)                                                           \
    X(DF_ABS, "dataframe.abs", OPK_DF)                                                             \
    X(DF_ROUND, "dataframe.round", OPK_DF)                                                         \
    X(DF_SET_INDEX, "dataframe.set_index", OPK_DF)                                                 \
    X(DF_RESET_INDEX, "dataframe.reset_index", OPK_DF)                                             \
    X(DF_ILOC, "dataframe.iloc", OPK_DF)                                                           \
    X(DF_LOC, "dataframe.loc", OPK_DF)                                                             \
    X(DF_TAIL, "dataframe.tail", OPK_DF)                                                           \
    X(DF_NLARGEST, "dataframe.nlargest", OPK_DF)                                                   \
    X(DF_NSMALLEST, "dataframe.nsmallest", OPK_DF)                                                 \
    X(DF_SORT_INDEX, "dataframe.sort_index", OPK_DF)                                               \
    X(DF_SAMPLE, "dataframe.sample", OPK_DF)                                                       \
    X(DF_DROP_DUPLICATES, "dataframe.drop_duplicates", OPK_DF)                                     \
    X(DF_DUPLICATED, "dataframe.duplicated", OPK_DF)                                               \
    X(DF_CUMSUM, "dataframe.cumsum", OPK_DF)                                                       \
    X(DF_CUMPROD, "dataframe.cumprod", OPK_DF)                                                     \
    X(DF_CUMMAX, "dataframe.cummax", OPK_DF)                                                       \
    X(DF_CUMMIN, "dataframe.cummin", OPK_DF)                                                       \
    X(DF_DIFF, "dataframe.diff", OPK_DF)                                                           \
    X(DF_SHIFT, "dataframe.shift", OPK_DF)                                                         \
    X(DF_PCT_CHANGE, "dataframe.pct_change", OPK_DF)                                               \
    X(DF_ROLLING, "dataframe.rolling", OPK_DF)                                                     \
    X(DF_STR_LOWER, "dataframe.str.lower", OPK_DF)                                                 \
    X(DF_STR_UPPER, "dataframe.str.upper", OPK_DF)                                                 \
    X(DF_STR_LEN, "dataframe.str.len", OPK_DF)                                                     \
    X(DF_STR_CONTAINS, "dataframe.str.contains", OPK_DF)                                           \
    X(DF_STR_STARTSWITH, "dataframe.str.startswith", OPK_DF)                                       \
    X(DF_STR_ENDSWITH, "dataframe.str.endswith", OPK_DF)                                           \
    X(DF_STR_SLICE, "dataframe.str.slice", OPK_DF)                                                 \
    X(DF_STR_STRIP, "dataframe.str.strip", OPK_DF)                                                 \
    X(DF_STR_SPLIT, "dataframe.str.split", OPK_DF)                                                 \
    X(DF_STR_REPLACE, "dataframe.str.replace", OPK_DF)                                             \
    X(DF_MEDIAN, "dataframe.median", OPK_DF)                                                       \
    X(DF_QUANTILE, "dataframe.quantile", OPK_DF)                                                   \
    X(DF_SKEW, "dataframe.skew", OPK_DF)                                                           \
    X(DF_KURT, "dataframe.kurt", OPK_DF)                                                           \
    X(DF_CORR, "dataframe.corr", OPK_DF)                                                           \
    X(DF_COV, "dataframe.cov", OPK_DF)                                                             \
    X(DF_VALUE_COUNTS, "dataframe.value_counts", OPK_DF)                                           \
    X(DF_RANK, "dataframe.rank", OPK_DF)                                                           \
    X(DF_CONCAT, "dataframe.concat", OPK_DF)                                                       \
    X(DF_QUERY, "dataframe.query", OPK_DF)                                                         \
    X(DF_EVAL, "dataframe.eval", OPK_DF)                                                           \
    X(DF_MELT, "dataframe.melt", OPK_DF)                                                           \
    X(SESSION_TENSOR, "<session tensor>", OPK_SOURCE)

typedef enum {
    OPK_CREATE,
    OPK_RANDOM,
    OPK_UNARY,
    OPK_BINARY,
    OPK_WHERE,
    OPK_CLIP,
    OPK_ASTYPE,
    OPK_REDUCE,
    OPK_ARGREDUCE,
    OPK_SCAN,
    OPK_LINALG,
    OPK_SHAPE,
    OPK_SOURCE, /* a tensor that exists already (cluster sessions); no document names this op */
    OPK_DF,     /* dataframe.*: see df/dfgraph.h */
} op_kind_t;

/* What a node produces. Element-wise ops produce a DataFrame or a Series
 * when an input is one; dataframe.* reductions of a Series, and to_tensor,
 * produce tensors. */
typedef enum { VK_TENSOR = 0, VK_DATAFRAME, VK_SERIES } vkind_t;

struct df_node;

#define GRAPH_OP_ENUM(id, name, kind) OP_##id,
typedef enum { GRAPH_OPS(GRAPH_OP_ENUM) OP_COUNT } op_t;
#undef GRAPH_OP_ENUM

const char *op_name(op_t op);
op_kind_t op_kind(op_t op);
int op_parse(const char *name, op_t *out); /* 0, or -1 if unknown */
static inline bool op_is_elementwise(op_t op)
{
    op_kind_t k = op_kind(op);
    return k == OPK_UNARY || k == OPK_BINARY || k == OPK_WHERE || k == OPK_CLIP || k == OPK_ASTYPE;
}

/* An input: another node of the graph, or a scalar operand. */
typedef struct {
    int node; /* index into graph_t.nodes, or -1 for a scalar */
    scalar_t sc;
    char *str; /* node -1: a string literal ({"value": "..."}; owned), compared with
                * Series of strings; sc is then unused */
} operand_t;

/* One entry of getitem's index, normalised against the input's shape
 * (as Python's slice.indices): an integer drops its axis. */
typedef struct {
    bool is_int;
    int64_t i;                 /* is_int: position, already made non-negative */
    int64_t start, stop, step; /* slice: normalised; len is the count selected */
    int64_t len;
} index_t;

#define GRAPH_KEY_MAX 128

typedef struct graph_node {
    char key[GRAPH_KEY_MAX + 1];
    op_t op;
    int n_in;
    operand_t *in;

    /* ---- parameters as given (defaults filled in) ---- */
    shape_t shape; /* creation and random ops; session tensors */
    bool has_dtype;
    dtype_t dtype;              /* the `dtype` field, when has_dtype */
    int n_chunk;                /* 0: absent; else one entry per axis of the output */
    int64_t chunk[MR_MAXDIM];   /* chunk_size, expanded to one per axis */
    scalar_t fill_value;        /* full */
    scalar_t start, stop, step; /* arange (start 0, step 1), linspace (start, stop) */
    int64_t num;                /* linspace, default 50 */
    bool endpoint;              /* linspace, default true */
    int64_t N, M, k;            /* eye; M defaults to N */
    /* axis: axis_all means the document said null. For reductions, argmin,
     * argmax, cumsum and cumprod axis[] then lists every input axis; for
     * squeeze the size-1 axes; for concatenate it is empty (the inputs are
     * flattened). Otherwise axis[] is normalised (0..ndim-1), sorted and
     * unique; for expand_dims it holds positions in the output. */
    bool axis_all;
    int n_axis;
    int axis[MR_MAXDIM];
    bool keepdims;
    int64_t ddof;
    bool has_seed;
    uint64_t seed;                  /* drawn by graph_parse when absent (has_seed then false) */
    scalar_t low, high, loc, scale; /* randint: the final [low, high); uniform; normal */
    bool has_a_min, has_a_max;
    scalar_t a_min, a_max;                /* clip */
    int td_n;                             /* tensordot: number of contracted axes */
    int td_a[MR_MAXDIM], td_b[MR_MAXDIM]; /* contracted axes of a and b, normalised */
    int perm[MR_MAXDIM];                  /* transpose: the permutation (null gives the reverse) */
    int n_index; /* getitem: always the input's ndim (whole slices appended) */
    index_t index[MR_MAXDIM];
    void *data; /* array: the values, C order, in the output dtype (owned) */

    /* ---- inferred ---- */
    uint8_t vkind;      /* vkind_t */
    struct df_node *df; /* dataframe.* ops and element-wise ops on frames: parameters and
                         * the schema of the value (owned; df/dfgraph.h) */
    shape_t oshape;
    dtype_t odtype;
    int n_consumers; /* distinct nodes that use this one (inner(a, a) counts 1) */
    bool fetch;      /* named in the document's fetch list */
} graph_node_t;

/* Configurable limits. Every bound is checked before anything is allocated. */
typedef struct {
    int64_t max_document_bytes; /* the JSON text */
    int64_t max_nodes;
    int64_t max_elements;       /* per tensor */
    int64_t max_bytes;          /* per tensor */
    int64_t max_chunks;         /* per tensor, checked by the tiler */
    int64_t max_total_chunks;   /* per graph, checked by the tiler */
    int64_t max_array_elements; /* the inline data of one `array` node */
    /* Where dataframe.read_csv paths resolve (mars-run --data-dir); NULL:
     * the current directory. Not a limit, but a setting of validation too:
     * read_csv's header and column types are read when the document is. */
    const char *data_dir;
    int64_t csv_chunk_bytes; /* read_csv's chunk size when the node gives none */
} graph_limits_t;

void graph_limits_default(graph_limits_t *lim);

/* Tensors a session already holds (cluster mode). NULL in mars-run. Returns
 * 0 and fills shape, dtype and chunk sizes when `key` names one, else -1. */
typedef struct {
    void *ctx;
    int (*lookup)(void *ctx, const char *key, shape_t *shape, dtype_t *dtype,
                  int64_t chunk[MR_MAXDIM]);
    /* Optional (cluster mode): makes the uploaded file `name` (PUT
     * /api/v1/files/{name}) readable at a local path written into path.
     * Returns 0, 1 when no such file was uploaded (read_csv then looks
     * under data_dir), or -1 with a message. */
    int (*file)(void *ctx, const char *name, char *path, size_t pathlen, char *err, size_t errlen);
    /* Optional (cluster mode): when the session value `key` (which lookup
     * found) is a DataFrame or Series an earlier task made, its schema as
     * JSON text, {"series": bool, "columns": [[name, is_int, type], ...],
     * "index": [[name, is_int, type], ...]} (name null or a string; type
     * frame.h's ftype_t); NULL for a tensor. The text stays owned by ctx.
     * lookup gave the frame's grid: shape (nchunks,). */
    const char *(*frame_schema)(void *ctx, const char *key);
} graph_session_t;

typedef struct graph {
    int n_nodes;
    graph_node_t *nodes; /* topological order: inputs come before their users */
    int n_fetch;
    int *fetch; /* node indexes, in the document's order */
} graph_t;

/* Parses and validates a document. On success returns 0 and sets *out (owned
 * by the caller: graph_free). On a rejected document returns -1 and writes
 * one line into err. */
int graph_parse(const char *json, size_t len, const graph_limits_t *lim,
                const graph_session_t *sess, graph_t **out, char *err, size_t errlen);
void graph_free(graph_t *g);
int graph_find(const graph_t *g, const char *key); /* node index or -1 */

#endif
