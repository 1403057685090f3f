/* graph_internal.h: what graph.c (document, nodes, parameters, sorting) and
 * graph_infer.c (shapes and dtypes) share. Not part of the engine's public
 * face: include graph.h instead. */
#ifndef MARS_GRAPH_INTERNAL_H
#define MARS_GRAPH_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

#include "graph.h"

/* The parameters whose check needs the input shapes, kept as JSON (borrowed
 * from the document, alive until graph_parse returns) from the first pass to
 * inference. Their JSON types were checked in the first pass. NULL: absent. */
typedef struct {
    int doc_index;                /* position in the document's nodes; -1 for a session tensor */
    json_t *inputs;               /* the node's `inputs` list */
    json_t *axis;                 /* reductions, squeeze, expand_dims, concatenate, stack */
    json_t *axes;                 /* transpose, tensordot */
    json_t *newshape;             /* reshape */
    json_t *index;                /* getitem */
    json_t *chunk_size;           /* creation, random and rechunk */
    json_t *source, *destination; /* moveaxis */
    json_t *obj;                  /* multiout: the node's whole object */
} graph_raw_t;

/* Writes one line into err: `node "<key>" (<op>): <rule>` when n is given,
 * else the formatted text alone. Control characters become spaces. Returns -1
 * so that callers can `return graph_fail(...)`. */
int graph_fail(char *err, size_t errlen, const graph_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Fills nodes[i].oshape, odtype and the shape-dependent parameters, from the
 * inferred outputs of its inputs (which come before it), and checks the
 * output against the limits. 0, or -1 with a message. */
int graph_infer_node(graph_t *g, int i, const graph_raw_t *raw, const graph_limits_t *lim,
                     char *err, size_t errlen);

/* Sets every node's n_consumers (distinct users); last: n_nodes ints of
 * scratch. */
void graph_count_consumers(graph_t *g, int *last);
/* Frees nodes[0 .. n) with what each owns, then the array. */
void graph_free_nodes(graph_node_t *nodes, int n);

/* Rewrites an inferred graph so that ops without kernels for the small
 * integer dtypes run them widened (graph_lower.c). 0, or -1 with err. */
int graph_lower_small(graph_t *g, char *err, size_t errlen);

/* Parses "start:stop:step" (each part optional, at least one colon, at most
 * two). Returns 0, or -1 when the text is not slice syntax. Values beyond
 * int64 saturate, which slice.indices clamps to the same result. */
typedef struct {
    bool has_start, has_stop, has_step;
    int64_t start, stop, step;
} graph_slice_t;
int graph_parse_slice(const char *s, graph_slice_t *out);

/* ---- multiout: ops with several results (graph_multi.c) ---- */
/* Whether op returns several results (its node needs "outputs"). */
bool graph_multi_op(op_t op);
/* Whether node obj of such an op has one result and no "outputs" (a
 * unique without a true return_* flag, as numpy's np.unique(a)). */
bool graph_multi_lone(op_t op, json_t *obj);
/* Node i as a held 1-D tensor of dt, its length known when it runs
 * (graph_multi.c): nonzero, unique, the set ops, lstsq's residuals. */
int graph_held_1d(graph_t *g, int i, dtype_t dt, char *err, size_t errlen);
/* Input count [lo, hi] of a multi-result op; false for other ops. */
bool graph_multi_arity(op_t op, int *lo, int *hi);
/* Refuses fields the op does not take and checks its parameters' JSON
 * types; the output count is checked by graph_multi_infer. */
int graph_multi_check(graph_node_t *n, json_t *obj, char *err, size_t errlen);
/* Shape, dtype and parameters of output n->out_index. */
int graph_multi_infer(graph_t *g, int i, const graph_raw_t *raw, char *err, size_t errlen);
/* `mars-run --list-ops`: how many results op gives (text), NULL: one. */
const char *graph_multi_outputs(op_t op);

/* ---- DataFrames (graph_df.c) ---- */
typedef struct {
    const graph_limits_t *lim;
    const graph_session_t *sess;
    char *err;
    size_t errlen;
} graph_df_env_t;
/* Refuses fields a dataframe.* op does not take. */
int graph_df_check_fields(const graph_df_env_t *e, graph_node_t *n, json_t *obj);
/* The op's parameters (those that need no input) into n->df. */
int graph_df_parse(const graph_df_env_t *e, graph_node_t *n, json_t *obj);
/* Inference of a dataframe.* node, or of an element-wise node with a frame
 * input; and the refusal of tensor ops on frames. Returns 1 when node i is
 * none of those (tensor inference applies), 0 when done, -1 on error. */
int graph_df_infer(graph_t *g, int i, char *err, size_t errlen);
/* A session node n that is a DataFrame or Series of an earlier task:
 * its schema from the session's JSON text (graph_session_t.frame_schema). */
int graph_df_session(graph_node_t *n, const char *schema, char *err, size_t errlen);
void graph_df_free(struct df_node *d);

/* rsample.h: random.choice, permutation, multinomial, multivariate_normal.
 * Parameters checked as numpy checks them; fills n->shape, n->dtype, n->low,
 * n->high and n->data. obj is the node's JSON object. */
bool graph_rsample_owns(op_t op);
/* np.array(json) of a nested list of numbers (graph.c, the `array` op's
 * reading): the shape, the dtype (*dt kept when has_dtype) and the values
 * (*data, malloc'ed). 0, or -1 with a message naming field. */
int graph_read_values(graph_node_t *n, void *json, const char *field, const graph_limits_t *lim,
                      bool has_dtype, dtype_t *dt, shape_t *shape, void **data, char *err,
                      size_t errlen);
int graph_rsample_parse(graph_node_t *n, void *obj, const graph_limits_t *lim, char *err,
                        size_t errlen);

#endif
