/* clean.h: the row-wise cleaning ops of graph-format.md's additions
 * (dataframe.fillna, dropna, isna, notna, isin, astype, rename, drop,
 * replace, clip, abs, round) as job kernels on one chunk (frame.h), with
 * the parameters and output schema graph_df.c inferred (df_node_t).
 * fillna's method ffill/bfill crosses chunk boundaries through a carry:
 * each chunk's edge (its last, or first, present value per column), edges
 * combined along the chunks in order, and each chunk filled starting from
 * the carry of the chunks before (ffill) or after (bfill) it.
 * Every function returns 0, or -1 with a message in err; outputs are owned
 * frames (frame_free). */
#ifndef MARS_DF_CLEAN_H
#define MARS_DF_CLEAN_H

#include "dfexec.h"
#include "dfgraph.h"

/* out: in's rows and index, d->ncols empty columns labelled by the
 * schema d (row-wise ops: the cleaning ops, str, dt). 0, or -1 out of
 * memory (out holds what to free: frame_free). */
int df_out_like(const df_node_t *d, const frame_t *in, frame_t *out);

/* The op on chunk in; carry: fillna's carry (NULL: none). */
int df_clean_map(const df_node_t *d, op_t op, const frame_t *in, const frame_t *carry, frame_t *out,
                 char *err, size_t errlen);
/* fillna's edge of chunk in (one row). */
int df_clean_edge(const df_node_t *d, const frame_t *in, frame_t *out, char *err, size_t errlen);
/* The carry of far (the chunks further away) and near (the edge of the
 * chunk next to the one filled). */
int df_clean_combine(const df_node_t *d, const frame_t *far, const frame_t *near, frame_t *out,
                     char *err, size_t errlen);

#endif
