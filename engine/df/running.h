/* running.h: the running ops of graph-format.md's additions
 * (dataframe.cumsum, cumprod, cummax, cummin, diff, shift, pct_change,
 * rolling, ewm) on one chunk, with a carry from the chunks before it (after it
 * for negative periods): the cumulative ops carry the running value (a
 * 2-row frame: the values, then 1 where a value exists), ewm its state (a
 * 3-row frame: pandas' weighted value, old weight, observations), the windowed ops
 * the last rows of the data before the chunk (diff, shift, pct_change:
 * |periods| rows, pct_change's forward-filled as pandas' fill_method "pad"),
 * rolling pandas' window state and the rows of its last window (with
 * center also the first (window - 1) / 2 rows after the chunk, a second
 * carry passed backwards). Semantics are pandas 1.5's. 0, or -1 with a
 * message; outputs are owned frames. */
#ifndef MARS_DF_RUNNING_H
#define MARS_DF_RUNNING_H

#include "dfgraph.h"

/* Does op carry forwards (false: from the chunks after, negative periods)? */
bool df_run_forward(const df_node_t *d, op_t op);
int df_run_map(const df_node_t *d, op_t op, const frame_t *in, const frame_t *carry,
               const frame_t *after, frame_t *out, char *err, size_t errlen);
/* back: the carry of the rows after each chunk that a centred rolling
 * window holds (df_run_after), where the op's own carry runs forwards */
int df_run_edge(const df_node_t *d, op_t op, const frame_t *in, bool back, frame_t *out, char *err,
                size_t errlen);
int df_run_combine(const df_node_t *d, op_t op, const frame_t *far, const frame_t *near, bool back,
                   frame_t *out, char *err, size_t errlen);
/* Does op carry pandas' window state (its running sums) from chunk to
 * chunk, each carry step reading the chunk whole: rolling (rows or time),
 * and expanding's median and quantile (a window of rows from the first)? */
bool df_run_state(const df_node_t *d, op_t op);
/* Does op also need rows after each chunk (rolling with center: a second
 * chain, backwards, beside its forward one; df_run_map's after)? */
bool df_run_after(const df_node_t *d, op_t op);

/* Is op a rolling or expanding skew or kurt, which reads the mean and
 * minimum of every row first (pandas' shift of the values)? Its node
 * runs a moment pass along the chunks in order before its windows
 * (df_run_stat: edge and combine jobs marked off[1] = 2), and every other
 * job of it takes that pass's result as its last input (d->run_stat). */
bool df_run_moments(const df_node_t *d, op_t op);
/* The moment pass over chunk in, continuing prev's (NULL: the first). */
int df_run_stat(const df_node_t *d, const frame_t *prev, const frame_t *in, frame_t *out, char *err,
                size_t errlen);

#endif
