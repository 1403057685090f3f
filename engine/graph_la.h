/* graph_la.h: the linalg branch's ops (linalg.cholesky, linalg.solve,
 * linalg.inv, linalg.det, linalg.norm, linalg.matrix_rank, trace, diagonal,
 * vdot, einsum, diag, tril, triu): their parameters, parsed by graph_la.c,
 * tiled by tile/la.c, run by kern/la.c. docs/graph-format.md, "Linear
 * algebra (linalg branch)". */
#ifndef MARS_GRAPH_LA_H
#define MARS_GRAPH_LA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"

/* The most elements a single-block path gathers into one job (its input, or
 * the sum of its inputs): 2^24, a 4096 x 4096 matrix (128 MiB of float64).
 * Above it the node is refused when it is tiled. */
#define LA_SINGLE_MAX_ELEMS (1LL << 24)
/* einsum's single-block loop: at most 2^31 multiply-adds. */
#define LA_EINSUM_MAX_OPS (1LL << 31)
#define LA_EINSUM_MAX_OPERANDS 16
/* |k| and |offset| beyond this are clamped to it (they select nothing then,
 * as any offset past the dimensions). */
#define LA_K_MAX (1LL << 50)

enum { LA_ORD_NONE = 0, LA_ORD_FRO, LA_ORD_NUC, LA_ORD_NUM };

typedef struct la_node {
    int64_t k;                    /* diag, tril, triu: k; trace, diagonal: offset */
    int axis1, axis2;             /* trace, diagonal: normalised */
    int ord_kind;                 /* linalg.norm */
    double ord;                   /* LA_ORD_NUM: the order (may be +-inf) */
    bool axis_none;               /* linalg.norm: axis null (absent) */
    int n_axis, axis[2];          /* linalg.norm: normalised */
    bool keepdims;                /* linalg.norm */
    bool has_tol;                 /* linalg.matrix_rank */
    double tol;                   /* linalg.matrix_rank */
    bool has_dtype;               /* trace */
    dtype_t dtype;                /* trace */
    int64_t raw_axis1, raw_axis2; /* as given */
    json_t *raw_axis;             /* linalg.norm's axis, borrowed until inference */
    /* einsum: per operand its labels (one byte each, 'a'..'z', 'A'..'Z';
     * an ellipsis expanded into labels 0x01..), then the output's */
    char *subscripts; /* as given (owned) */
    int n_opnd;
    int nlab[LA_EINSUM_MAX_OPERANDS];
    unsigned char lab[LA_EINSUM_MAX_OPERANDS][MR_MAXDIM];
    int nout;
    unsigned char out[MR_MAXDIM];
} la_node_t;

/* Whether op is one of this branch's. */
bool graph_la_owns(op_t op);
/* The number of inputs op takes. */
void graph_la_arity(op_t op, int *lo, int *hi);
/* Refuses unknown fields, then parses what needs no input shape into n->la. */
int graph_la_parse(graph_node_t *n, json_t *obj, char *err, size_t errlen);
/* Output shape and dtype of node i. */
int graph_la_infer(graph_t *g, int i, char *err, size_t errlen);
void graph_la_free(la_node_t *la);

#endif
