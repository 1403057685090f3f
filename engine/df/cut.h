/* cut.h: dataframe.cut and dataframe.qcut, pandas 1.5's pd.cut and
 * pd.qcut (edges at the values' quantiles) of a numeric Series: each
 * value's bin among edges (given, or `bins` equal bins over the values'
 * range, which a pass over every chunk finds first), as the bin's code,
 * the text of its interval ("(0.991, 4.0]", as str() of pandas' Interval
 * with its rounding of the edges to `precision`), or a label given. */
#ifndef MARS_DF_CUT_H
#define MARS_DF_CUT_H

#include <stdbool.h>
#include <stdint.h>

#include "dfgraph.h"
#include "frame.h"

/* The edges as pandas keeps them: duplicates dropped (d->cut_drop) or
 * refused (unless there are two), into *e (malloc'ed) and *ne; ints too
 * when ei is given and the edges are integers. 0, or -1 with pandas'
 * message. */
int df_cut_unique(const df_node_t *d, const double *in, int n, double **e, int *ne, char *err,
                  size_t errlen);
/* The intervals' text of edges e[0..ne) (integers when ints), as pandas'
 * _format_labels and str(Interval) write them: ne - 1 strings, malloc'ed
 * (free each, then the array). NULL out of memory. */
char **df_cut_intervals(const double *e, int ne, bool ints, bool right, bool lowest, int precision);

/* A chunk's part of the values' range (in: a chunk of the Series) or parts
 * combined (n of them): min, max, rows, and whether an infinity was seen. */
int df_cut_range(const frame_t *const *parts, int n, bool chunk, frame_t *out, char *err,
                 size_t errlen);
/* qcut's edges: the quantiles of every value present in parts (every
 * chunk; numpy's linear quantile). */
int df_qcut_edges(const df_node_t *d, const frame_t *const *parts, int n, frame_t *out, char *err,
                  size_t errlen);
/* The Series chunk in cut; rng: the range of every chunk (bins as a count),
 * else NULL. */
int df_cut_map(const df_node_t *d, const frame_t *in, const frame_t *rng, frame_t *out, char *err,
               size_t errlen);

#endif
