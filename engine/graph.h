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
#include "ops.h"

/* What a node produces. Element-wise ops produce a DataFrame or a Series
 * when an input is one; dataframe.* reductions of a Series, and to_tensor,
 * produce tensors. */
typedef enum { VK_TENSOR = 0, VK_DATAFRAME, VK_SERIES } vkind_t;

struct df_node;
struct la_node;

/* An input: another node of the graph, or a scalar operand. */
typedef struct {
    int node; /* index into graph_t.nodes, or -1 for a scalar */
    scalar_t sc;
    char *str; /* node -1: a string literal ({"value": "..."}; owned), compared with
                * Series of strings; sc is then unused, but for "nan", "inf" and
                * "-inf" (graph_float_word), also a number where no string meets it */
} operand_t;

/* Whether s is one of the words JSON's missing numbers are written as
 * ("nan", "inf", "+inf", "-inf"); *v its value. */
bool graph_float_word(const char *s, double *v);

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
    bool has_shape;             /* *_like: a shape was given (else the input's) */
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
    int64_t decimals; /* round, around */
    bool has_seed;
    uint64_t seed;                  /* drawn by graph_parse when absent (has_seed then false) */
    scalar_t low, high, loc, scale; /* randint: the final [low, high); uniform; normal */
    bool has_a_min, has_a_max;
    scalar_t a_min, a_max;                /* clip */
    int td_n;                             /* tensordot: number of contracted axes */
    int td_a[MR_MAXDIM], td_b[MR_MAXDIM]; /* contracted axes of a and b, normalised */
    int perm[MR_MAXDIM];                  /* transpose: the permutation (null gives the reverse) */
    int n_index;          /* getitem: always the input's ndim (whole slices appended) */
    uint32_t newaxis;     /* getitem: bit d set: output axis d is a numpy.newaxis (size 1) */
    int64_t axis1, axis2; /* swapaxes, as given */
    double rtol, atol;    /* isclose (1e-05, 1e-08) */
    bool equal_nan;       /* isclose */
    index_t index[MR_MAXDIM];
    void *data; /* array: the values, C order, in the output dtype (owned) */
    /* multiout: one result of an op with several (graph_multi.c). The
     * document's node `op_key` with "outputs" [k0, k1, ...] becomes one node
     * per output, keyed k_i, with out_index i of n_outputs; op_key itself is
     * no node. n_outputs 0: an ordinary node. */
    int n_outputs, out_index;
    char op_key[GRAPH_KEY_MAX + 1];
    int mo_axis;     /* split: the axis; meshgrid: the output axis of this input */
    bool mo_flag;    /* meshgrid: indexing "ij" */
    bool mo_sparse;  /* meshgrid: sparse */
    int mo_col;      /* unique: what this output is: 0 values, 1 first indexes, 2 counts */
    int64_t mo_bins; /* histogram: bins (an integer; inputs[1] gives the edges) */
    bool mo_has_range, mo_density; /* histogram */
    double mo_lo, mo_hi;           /* histogram: range */
    /* setops: histogram's weights are its last input; set ops' and
     * bincount's parameters (engine/setops.h) */
    bool mo_weighted, so_assume_unique;
    int64_t so_minlength;
    struct fancy *fancy; /* advanced indexing (fancy.h; owned), else NULL */
    struct ss_node *ss;  /* sortstat ops (sortstat.h): their parameters (owned) */

    /* shapes: roll, tile, repeat, pad's parameters (shapes2.h; owned) */
    struct sh2_node *sh2;

    /* ---- inferred ---- */
    uint8_t vkind;      /* vkind_t */
    struct df_node *df; /* dataframe.* ops and element-wise ops on frames: parameters and
                         * the schema of the value (owned; df/dfgraph.h) */
    struct la_node *la; /* the linalg branch's ops: their parameters (owned; graph_la.h) */
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
    /* Optional (cluster mode): the uploaded files whose names match the
     * read_csv pattern (*, ?, [...]), sorted, as malloc'ed names in a
     * malloc'ed array. Returns 0 (perhaps with none), 1 when files are not
     * uploaded here (read_csv then globs under data_dir), or -1. */
    int (*list)(void *ctx, const char *pattern, char ***names, int *n, char *err, size_t errlen);
    /* Optional (cluster mode): when the session value `key` (which lookup
     * found) is a DataFrame or Series an earlier task made, its schema as
     * JSON text, {"series": bool, "columns": [[name, is_int, type], ...],
     * "index": [[name, is_int, type], ...]} (name null or a string; type
     * frame.h's ftype_t); NULL for a tensor. The text stays owned by ctx.
     * lookup gave the frame's grid: shape (nchunks,). */
    const char *(*frame_schema)(void *ctx, const char *key);
} graph_session_t;

/* The document's "device" (docs/graph-format.md, docs/gpu.md): "auto" (the
 * default) puts the dot family and large jobs on a CUDA device when one is
 * open, "gpu" every job a device can run, "cpu" none. */
typedef enum { GRAPH_DEVICE_AUTO, GRAPH_DEVICE_GPU, GRAPH_DEVICE_CPU } graph_device_t;
/* "auto", "gpu" or "cpu". */
const char *graph_device_name(graph_device_t d);

typedef struct graph {
    int n_nodes;
    graph_node_t *nodes; /* topological order: inputs come before their users */
    int n_fetch;
    int *fetch; /* node indexes, in the document's order */
    /* the document's "device": where jobs a GPU can run go (docs/gpu.md) */
    graph_device_t device;
    /* set while validating: the held input an op was refused (graph_parse_held) */
    char held_input[GRAPH_KEY_MAX + 1];
} graph_t;

/* Parses and validates a document. On success returns 0 and sets *out (owned
 * by the caller: graph_free). On a rejected document returns -1 and writes
 * one line into err. */
/* hstack, vstack, dstack, column_stack: input shape s lifted as numpy
 * lifts it (atleast_1d/2d/3d; column_stack makes 0-D and 1-D inputs
 * columns) into *out; returns the axis the lifted inputs are joined on
 * (hstack: 0 when the first input, of first_ndim dimensions, is 0-D or
 * 1-D, else 1). */
int graph_stack_lift(op_t op, const shape_t *s, int first_ndim, shape_t *out);

int graph_parse(const char *json, size_t len, const graph_limits_t *lim,
                const graph_session_t *sess, graph_t **out, char *err, size_t errlen);
/* As graph_parse. When the document is refused because an op takes a
 * result of the same document whose length is known only when it runs (a
 * held result), held_key (GRAPH_KEY_MAX + 1 bytes) gets that result's key,
 * else "" (mars-run runs such results first: engine/stage.h). */
int graph_parse_held(const char *json, size_t len, const graph_limits_t *lim,
                     const graph_session_t *sess, graph_t **out, char *held_key, char *err,
                     size_t errlen);
void graph_free(graph_t *g);
int graph_find(const graph_t *g, const char *key); /* node index or -1 */
/* Every op with its kind, inputs and parameter names, as the JSON text of
 * `mars-run --list-ops` and GET /api/v1/ops (graph_list.c); malloc'd, NULL
 * when out of memory. */
char *graph_ops_json(void);

#endif
