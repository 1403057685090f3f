/* gball.h: groupby_agg in one job over every row (the chunks concatenated
 * in order), for what the distributed groupby (algo.h) does not do: the
 * funcs median, prod, idxmin, idxmax, dropna false (missing keys form
 * groups, sorted last) and as_index false (the keys as the first columns).
 * Groups sorted by key as pandas' sort=True. 0, or -1 with a message. */
#ifndef MARS_DF_GBALL_H
#define MARS_DF_GBALL_H

#include "dfgraph.h"

int df_gb_whole(const df_node_t *d, const frame_t *in, frame_t *out, char *err, size_t errlen);

#endif
