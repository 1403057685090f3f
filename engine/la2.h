/* la2.h: linalg.qr, linalg.svd, linalg.eigh and linalg.slogdet, ops with
 * several results (docs/graph-format.md, "QR, SVD, eigh and slogdet").
 *
 * graph_la2.c checks their fields and infers each result (graph_multi.c
 * calls it), tile/la2.c tiles them, kern/la2.c runs the jobs (JK_LA steps
 * LS_QR_* and LS_LA2_*, kern/la.h).
 *
 *   linalg.qr (2-D, mode "reduced")   outputs [q, r]
 *   linalg.svd (2-D, full_matrices    outputs [u, s, vh], or [s] with
 *     false, or square)                 compute_uv false
 *   linalg.eigh (2-D square, UPLO)    outputs [w, v]
 *   linalg.slogdet (2-D square)       outputs [sign, logabsdet]
 *
 * A matrix with at least as many rows as columns (qr, svd) is factored by
 * TSQR across its row chunks, as Mars does: a QR of each row block, one QR
 * of the stacked R factors, then each block's Q times its part of that
 * QR's Q; svd takes the SVD of the final R (n x n) and U = Q U_r. Other
 * shapes, eigh and slogdet gather the matrix into one job, at most
 * LA_SINGLE_MAX_ELEMS elements. */
#ifndef MARS_LA2_H
#define MARS_LA2_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "graph.h"

/* The stacked R factors TSQR's merge job holds: at most this many elements
 * (row chunks x n x n). */
#define LA2_MERGE_MAX_ELEMS (1LL << 24)

bool graph_la2_op(op_t op);
/* The fields of op (NULL-terminated) for graph_multi.c's check. */
const char *const *graph_la2_fields(op_t op);
/* Parses the fields into n (mo_flag: full_matrices; mo_sparse: compute_uv;
 * mo_col: UPLO 'U'), and checks the count of outputs. */
int graph_la2_check(graph_node_t *n, json_t *obj, char *err, size_t errlen);
/* Shape and dtype of result n->out_index. */
int graph_la2_infer(graph_t *g, int i, char *err, size_t errlen);
/* The elements of the one job's packed results for an m x cols matrix
 * (tile/la2.c; the job descriptor's check too). */
int64_t la2_packed_len(const graph_node_t *n, int64_t m, int64_t cols);

#endif
