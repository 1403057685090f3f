/* setops.h: set operations and counting (union1d, intersect1d, setdiff1d,
 * bincount) and histogram's weights.
 *
 *   graph_setops.c   parameters (numpy 1.24 keywords) and inference: every
 *                    result's length depends on the data, so each is held
 *                    (fetch-only, like unique's results)
 *   tile/setops.c    tiling: one map job per block of whole rows of each
 *                    input (unique's MO_UNIQUE_MAP: the block's sorted
 *                    distinct values), one merge job (MO_SET_MERGE); for
 *                    bincount one counting job per block of x (MO_BIN_MAP)
 *                    and one job summing them (MO_BIN_MERGE); for setdiff1d
 *                    with assume_unique, b's set merged once (MO_SET_MERGE,
 *                    off[1] 1) and one filter job per block of a
 *                    (MO_SET_FILTER), a's order kept
 *   df/setops.c      the merge and counting steps (DFJ_MULTIOUT jobs)
 *
 * unique's return_inverse (graph_multi.c) is tiled here too: unique's map
 * and merge jobs, then one job per block of a (MO_UNIQUE_INV) giving each
 * element's position among the merged values: an ordinary tensor.
 *
 * docs/graph-format.md, "Set operations and bincount", is the contract. */
#ifndef MARS_SETOPS_H
#define MARS_SETOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "df/dfexec.h"
#include "graph.h"
#include "tile_internal.h"

/* The most entries a set op's merge job takes from the blocks' distinct
 * sets together (both inputs): as unique's MO_UNIQUE_MAX. */
#define SO_MERGE_MAX (INT64_C(1) << 26)
/* bincount: the most bytes of counts one job holds: a block's counts
 * (max(block) + 1 entries of 8 bytes), all blocks' counts read by the
 * summing job together, and the result (minlength included). */
#define SO_BIN_MAX_BYTES (INT64_C(256) << 20)

/* DFJ_MULTIOUT steps (job.off[2]) of this file's jobs; df_multi_run hands
 * them to df_setops_run. */
enum {
    MO_SET_FIRST = 100,
    MO_SET_MERGE = MO_SET_FIRST, /* off[0]: how many inputs are a's blocks */
    MO_BIN_MAP,                  /* in: a block of x (, its weights) */
    MO_BIN_MERGE,                /* in: the blocks' counts */
    MO_UNIQUE_INV,               /* in: a block of a, unique's values (fixed-size output) */
    MO_SET_FILTER,               /* setdiff1d assume_unique: in: a block of a, b's set */
    MO_SET__END,
};

/* A DFJ_MULTIOUT job's step (off[2]) is one df_multi_run knows and its
 * inputs fit it (the job-descriptor codec's check: tile/jobdesc.c). */
bool df_multiout_step_ok(const job_t *j);

bool graph_setops_owns(op_t op);
bool graph_setops_arity(op_t op, int *lo, int *hi);
int graph_setops_parse(graph_node_t *n, void *json_obj, char *err, size_t errlen);
int graph_setops_infer(graph_t *g, int i, char *err, size_t errlen);

tgrid_t *tile_setops(tctx_t *c, int node);
/* unique's return_inverse result: an ordinary int64 tensor of a's size
 * (one job per block of a, searching unique's merged values) */
tgrid_t *tile_unique_inverse(tctx_t *c, int node);

int df_setops_run(const tile_t *t, int32_t ji, const dfx_in_t *ins, void **blob, size_t *blob_len,
                  void *fixed_out, char *err, size_t errlen);

#endif
