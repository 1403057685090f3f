/* multi.h: the jobs of ops with several results whose lengths are known
 * only when they run (multiout: nonzero and one-argument where). Each
 * output is held as frame blobs, one per row block of the input, like a
 * held to_tensor result (docs/graph-format.md, "Ops with several
 * results"). */
#ifndef MARS_DF_MULTI_H
#define MARS_DF_MULTI_H

#include <stddef.h>

#include "dfexec.h"

/* DFJ_MULTIOUT job ji: input 0 is a block of whole rows of the input tensor
 * starting at row job.off[0]; the output, a one-column int64 Series blob,
 * holds the coordinates along axis job.off[1] of its nonzero elements in C
 * order. 0, or -1 with a message. */
/* job.off[2]: the step */
enum {
    MO_NONZERO = 0,
    MO_UNIQUE_MAP,
    MO_UNIQUE_MERGE,
    /* histogram's fixed-size steps (job.blob false; output at fixed_out):
     * a chunk's [min, max] (2 float64); the bin edges from every chunk's
     * [min, max] or the range; a chunk's counts (in: chunk, edges); the
     * sum of the counts (in: counts..., then the edges with density) */
    MO_HIST_MINMAX,
    MO_HIST_EDGES,
    MO_HIST_COUNT,
    MO_HIST_SUM,
    /* lstsq's residuals (la2.h): in: the packed LS_LA2_WHOLE buffer; at
     * off[1] a flag (the residuals exist), then off[3] residuals */
    MO_LSTSQ_RES,
};
/* histogram: the most bytes of counts one sum job reads (chunks x bins x 8) */
#define MO_HIST_MAX_BYTES (INT64_C(256) << 20)
/* unique: the most (value, first index, count) entries the merge job takes
 * from the blocks' sets together (each block's set is sorted and has
 * distinct values; the total is at most the input's element count). */
#define MO_UNIQUE_MAX (INT64_C(1) << 26)

int df_multi_run(const tile_t *t, int32_t ji, const dfx_in_t *ins, void **blob, size_t *blob_len,
                 void *fixed_out, char *err, size_t errlen);

#endif
