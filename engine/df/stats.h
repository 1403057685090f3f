/* stats.h: statistics over every row of a DataFrame or Series, as pandas
 * 1.5 computes them (dataframe.median, quantile, skew, kurt, corr, cov,
 * value_counts, rank): one job reads the whole input (the chunks
 * concatenated in order). Reductions of a DataFrame give a Series indexed
 * by the numeric columns' names, of a Series a one-row frame whose value
 * the caller writes as a 0-d tensor. 0, or -1 with a message. */
#ifndef MARS_DF_STATS_H
#define MARS_DF_STATS_H

#include "dfgraph.h"

int df_stats_whole(const df_node_t *d, op_t op, const frame_t *in, frame_t *out, char *err,
                   size_t errlen);

/* The ranks of column c's rows rows[0..m) (no missing value among them;
 * the array is sorted in place) into y[rows[q]]: how 0 average, 1 min, 2
 * max, 3 first, 4 dense; pct divides by m (dense: by the distinct count).
 * 0, or -1 out of memory. */
int df_rank_rows(const fcol_t *c, int64_t *rows, int64_t m, int how, bool asc, bool pct, double *y);

/* The ranks of a group's rows all[0..n) (NULL: rows 0..n-1) of column c
 * into y[row], missing values NaN (na_opt 0, keep) or ranked before (1,
 * top) or after (2, bottom) the others as one group of equal values;
 * rows: scratch of n. 0, or -1 out of memory. */
int df_rank_group(const fcol_t *c, const int64_t *all, int64_t n, int how, bool asc, bool pct,
                  int na_opt, int64_t *rows, double *y);

/* numpy's linear quantile q of sorted x[0..m) (NaN when m is 0) */
double df_quant_sorted(const double *x, int64_t m, double q);

#endif
