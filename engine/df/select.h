/* select.h: selection and index ops of graph-format.md's additions
 * (dataframe.set_index, reset_index, iloc, loc, tail, nlargest, nsmallest,
 * sort_index, sample, drop_duplicates, duplicated) as job kernels on frames
 * (frame.h), with the parameters and schema graph_df.c inferred.
 * df_select_map runs on one chunk (set_index, reset_index; nlargest and
 * nsmallest's per-chunk candidates); df_select_whole on every row of the
 * input at once (the chunks concatenated in order). Semantics are pandas
 * 1.5's; sample draws as numpy's legacy RandomState(seed).permutation.
 * 0, or -1 with a message in err; outputs are owned frames. */
#ifndef MARS_DF_SELECT_H
#define MARS_DF_SELECT_H

#include "dfgraph.h"

/* row0: the chunk's first row in the whole frame (reset_index), or -1
 * when unknown (the new index is then renumbered when assembled). */
int df_select_map(const df_node_t *d, op_t op, const frame_t *in, int64_t row0, frame_t *out,
                  char *err, size_t errlen);
int df_select_whole(const df_node_t *d, op_t op, const frame_t *in, frame_t *out, char *err,
                    size_t errlen);

#endif
