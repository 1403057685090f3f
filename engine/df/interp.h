/* interp.h: dataframe.interpolate as pandas 1.5's interpolate with numpy's
 * np.interp (methods linear, index, values and time; limit,
 * limit_direction, limit_area), chunk by chunk.
 *
 * A missing value is filled from the present values around it: the last
 * one before it and the first one after it. Those can lie chunks away, so
 * the node has two carry chains (tile_df.c's carry_chain): forwards, each
 * column's last present value before the chunk, and backwards, its first
 * present value after the chunk. An edge is one row: the rows it covers, the
 * x of its last row (forwards, to check the index increases), and per
 * column the value, its distance in rows from the chunk's end (forwards) or
 * start (backwards; -1: none) and its x. Combining two adds the nearer
 * one's rows to the farther one's distance when the nearer has no value.
 *
 * The filled value is np.interp's between those two points (its slope
 * formula, the other end tried when that gives NaN, its constant ends), so
 * the results equal pandas' to the bit. np.interp sorts the present points
 * by x; here they are in row order, so the methods that read the index
 * need an index increasing from row to row (as float64), and a job fails
 * with a message otherwise. */
#ifndef MARS_DF_INTERP_H
#define MARS_DF_INTERP_H

#include <stdbool.h>

#include "dfgraph.h"
#include "frame.h"

/* The chunk in, filled; bef and aft: the carries of the chunks before and
 * after it (NULL: none). 0, or -1 with a message in err. */
int df_interp_map(const df_node_t *d, const frame_t *in, const frame_t *bef, const frame_t *aft,
                  frame_t *out, char *err, size_t errlen);
/* The edge of chunk in (back: its first present values, else its last). */
int df_interp_edge(const df_node_t *d, const frame_t *in, bool back, frame_t *out, char *err,
                   size_t errlen);
/* The carry of far (the chunks further from the chunk filled) and near. */
int df_interp_combine(const frame_t *far, const frame_t *near, frame_t *out, char *err,
                      size_t errlen);

#endif
