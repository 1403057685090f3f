/* algo.h: the DataFrame algorithms that need more than one pass over the
 * rows, as job-level kernels on frames (frame.h): groupby_agg, sort_values,
 * merge, describe and nunique. The tiler (engine/df) builds the chunk graph;
 * these functions are what each job runs. Inputs are read-only frames (often
 * views of blobs); outputs are owned frames (frame_free). Every function
 * returns 0, or -1 with a one-line message in err. Column indexes refer to
 * the input frame's columns (not its index levels).
 *
 * Semantics are pandas 1.5's; missing values as in frame.h. */
#ifndef MARS_DF_ALGO_H
#define MARS_DF_ALGO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frame.h"

#define DF_MAX_KEYS 16

/* ---- hashing and partitioning (groupby's shuffle, merge, nunique) ----
 * Rows go to part hash(values of cols) % nparts. Equal keys go to the same
 * part whatever chunk or frame they come from, including an int64 key and a
 * float64 key of the same value (pandas merges 1 with 1.0). Rows keep their
 * order within each part. outs: nparts frames, all owned by the caller.
 * cols[k] < 0 names index level -1 - cols[k] (merges on the index). */
int df_hash_partition(const frame_t *in, const int *cols, int ncols, int nparts, frame_t *outs,
                      char *err, size_t errlen);

/* ---- groupby_agg ---- */
typedef enum {
    AGG_SUM,
    AGG_MEAN,
    AGG_MIN,
    AGG_MAX,
    AGG_COUNT,
    AGG_SIZE,
    AGG_STD,
    AGG_VAR,
    AGG_NUNIQUE,
    AGG_FIRST,
    AGG_LAST,
    /* only in the one-job groupby (engine/df/gball.c) */
    AGG_MEDIAN,
    AGG_PROD,
    AGG_IDXMIN,
    AGG_IDXMAX
} agg_func_t;

typedef struct {
    const char *out; /* the output column's name */
    int col;         /* input column aggregated */
    agg_func_t func;
    uint8_t unit; /* FU_NS or FU_TD: a mean or median of datetimes or timedeltas, written
                   * back as their int64 (NaT where no value) */
} agg_spec_t;

typedef struct {
    int nby;
    int by[DF_MAX_KEYS]; /* key columns */
    int nagg;
    const agg_spec_t *agg;
} gb_spec_t;

/* Map: one chunk of the input to a partial (the keys as index levels, and
 * state columns whose layout is the algorithm's own). Rows whose key has a
 * missing value are dropped (pandas' dropna=True). */
int df_gb_map(const frame_t *in, const gb_spec_t *s, frame_t *out, char *err, size_t errlen);
/* Combine partials given in chunk order into one partial (first and last
 * depend on that order). */
int df_gb_combine(const frame_t *const *parts, int n, const gb_spec_t *s, frame_t *out, char *err,
                  size_t errlen);
/* Final: a partial to the result: one row per group, sorted by key (pandas'
 * sort=True), index = the key values (one level per `by` column, named after
 * it), one column per agg in order, with pandas' result dtypes. */
int df_gb_final(const frame_t *part, const gb_spec_t *s, frame_t *out, char *err, size_t errlen);
/* Many groups: the final results of the hash parts (each sorted by key and
 * with disjoint keys), merged into one result sorted by key. */
int df_gb_merge_sorted(const frame_t *const *parts, int n, const gb_spec_t *s, frame_t *out,
                       char *err, size_t errlen);

/* ---- sort_values (sample sort; stable as kind="mergesort"; NaN last or first) ---- */
typedef struct {
    int nby;
    int by[DF_MAX_KEYS]; /* key columns; -1 - L: index level L (a join's sort) */
    bool asc[DF_MAX_KEYS];
    bool na_first; /* na_position="first": rows missing a key before the others */
} sort_spec_t;

/* Up to k sample rows of in's key columns (a frame of the by columns only). */
int df_sort_sample(const frame_t *in, const sort_spec_t *s, int k, frame_t *out, char *err,
                   size_t errlen);
/* From every chunk's sample: nparts - 1 splitter rows (a frame of the by
 * columns only, in sort order; fewer when the samples have fewer distinct
 * keys). */
int df_sort_splitters(const frame_t *const *samples, int n, const sort_spec_t *s, int nparts,
                      frame_t *out, char *err, size_t errlen);
/* Rows of in to parts 0..nsplit by the splitters (nsplit = splitters->nrows):
 * part p takes keys in (splitter p-1, splitter p] in sort order, so equal
 * keys always meet in one part. outs: nsplit + 1 frames. */
int df_range_partition(const frame_t *in, const frame_t *splitters, const sort_spec_t *s,
                       frame_t *outs, char *err, size_t errlen);
/* One part: the pieces every chunk sent it, in chunk order, concatenated and
 * stably sorted (index kept, as pandas keeps it); not sorted when s has no
 * keys (nby 0). */
int df_sort_part(const frame_t *const *pieces, int n, const sort_spec_t *s, frame_t *out, char *err,
                 size_t errlen);

/* ---- merge (hash partitioned; each part joined alone) ---- */
typedef enum { MERGE_INNER, MERGE_LEFT, MERGE_RIGHT, MERGE_OUTER } merge_how_t;

/* Longest suffix (bytes, NUL excluded) of merge's suffixes and join's lsuffix/rsuffix. */
#define DF_SFX_MAX 63

/* A zeroed spec past n_on, lon, ron and how is pandas' merge(on=...). */
typedef struct {
    int n_on;
    /* key columns in left and right; -1 - L is index level L (index set) */
    int lon[DF_MAX_KEYS], ron[DF_MAX_KEYS];
    merge_how_t how;
    /* left_index and right_index: the keys are the index levels, every
     * column of both sides is kept and the result's index is the key */
    bool index;
    /* left_on with right_index (join's on=): left's key columns (lon)
     * against right's index levels (ron, -1 - L); every column of both
     * sides is kept, a key column holding right's label where only right
     * has the row, and the result's index is left's (missing where only
     * right has the row), as pandas' left.join(right, on=...) */
    bool rindex;
    /* left_index with right_on, its mirror: left's index levels (lon,
     * -1 - L) against right's key columns (ron); every column of both
     * sides is kept, right's key columns holding left's label where only
     * left has the row, and the result's index is right's (missing where
     * only left has the row) */
    bool lindex;
    /* left_on/right_on keys of different names: both columns are kept (each
     * side's own values); otherwise right's key column is dropped and left's
     * holds the key of every row (pandas' on=) */
    bool distinct[DF_MAX_KEYS];
    /* suffixes of overlapping names: custom_sfx false gives "_x" and "_y" */
    bool custom_sfx;
    char sfx[2][DF_SFX_MAX + 1];
} merge_spec_t;

/* Whether the merge's result keeps an index of its inputs' (the key, or one
 * side's) rather than a new default one. */
static inline bool merge_keeps_index(const merge_spec_t *s)
{
    return s->index || s->rindex || s->lindex;
}

/* join's on= (rindex) and its mirror (lindex): whether the result's index
 * keeps the kept side's names. Not for the how that keeps the other side's
 * unmatched rows ("right" for rindex, "left" for lindex) nor "outer", with
 * one key: pandas appends an unnamed missing label to the index there,
 * which loses its name. */
static inline bool merge_side_index_named(const merge_spec_t *s)
{
    merge_how_t other = s->lindex ? MERGE_LEFT : MERGE_RIGHT;
    return (s->how != other && s->how != MERGE_OUTER) || s->n_on > 1;
}

/* The rows of pandas' left.merge(right, on=..., how=...) for one part
 * (left_on/right_on, left_index/right_index and suffixes as the spec says):
 * columns as pandas orders and names them (left's columns, then right's
 * other columns; names both sides share outside `on` get _x and _y), dtypes
 * as pandas gives them (int64 with missing values becomes float64, bool
 * becomes object-like bool with validity). range_index set: the final index
 * is 0..n-1 over all parts (an index merge: the key as the index). */
int df_merge_part(const frame_t *left, const frame_t *right, const merge_spec_t *s, frame_t *out,
                  char *err, size_t errlen);

/* Where a part's output rows come from, for the merge's row order
 * (dfexec.c): output row i is left's row left[i] and right's row right[i]
 * (-1: none), and group[i] numbers its key (rows of equal keys share a
 * number: left's keys first, then right's unmatched ones). The arrays are
 * the caller's to free (df_merge_rows_free). */
typedef struct {
    int64_t *left, *right, *group, n;
} df_merge_rows_t;

/* df_merge_part, and with rows not NULL, where its rows come from.
 * df_merge_pairs: only where they come from (rows->group NULL), no frame;
 * df_merge_take: the frame of rows (lrow[i], rrow[i]), i < n, pairs of
 * df_merge_pairs in any order (a default index 0..n-1, range_index). */
int df_merge_rows(const frame_t *left, const frame_t *right, const merge_spec_t *s, frame_t *out,
                  df_merge_rows_t *rows, char *err, size_t errlen);
void df_merge_rows_free(df_merge_rows_t *rows);
int df_merge_pairs(const frame_t *left, const frame_t *right, const merge_spec_t *s,
                   df_merge_rows_t *rows, char *err, size_t errlen);
int df_merge_take(const frame_t *left, const frame_t *right, const merge_spec_t *s,
                  const int64_t *lrow, const int64_t *rrow, int64_t n, frame_t *out, char *err,
                  size_t errlen);

/* Key groups of a merge's right side, named by their first row (equal
 * keys, missing with missing, share one). df_merge_match: for each left
 * row the first right row of the group its key matches, or -1
 * (lfirst[nl]), and at each group's first row the group's size (gsize[nr],
 * 0 at other rows). df_merge_first: each right row's group (first[nr]).
 * Both check the keys as df_merge_rows does. */
int df_merge_match(const frame_t *left, const frame_t *right, const merge_spec_t *s,
                   int64_t *lfirst, int64_t *gsize, char *err, size_t errlen);
int df_merge_first(const frame_t *left, const frame_t *right, const merge_spec_t *s, int64_t *first,
                   char *err, size_t errlen);

/* ---- describe (exact) ----
 * The whole input (every chunk concatenated, numeric columns only) to
 * pandas' describe(): index count, mean, std, min, 25%, 50%, 75%, max; a
 * column per numeric (int64, float64) column; all float64. A Series input
 * gives a Series. */
int df_describe(const frame_t *in, frame_t *out, char *err, size_t errlen);
/* The same with the percentiles q[0..nq) (sorted, in [0, 1]) as rows
 * labelled lab[0..nq), between min and max. */
int df_describe_q(const frame_t *in, const double *q, const char *const *lab, int nq, frame_t *out,
                  char *err, size_t errlen);

/* ---- nunique ----
 * Map: per column, the distinct non-missing values of the chunk (a frame
 * whose layout is the algorithm's own). Combine: distinct values of several.
 * Final: a Series of int64 counts indexed by the column names (a 1-row
 * frame for a Series input; the tiler turns it into a scalar). */
int df_nunique_map(const frame_t *in, frame_t *out, char *err, size_t errlen);
int df_nunique_combine(const frame_t *const *parts, int n, frame_t *out, char *err, size_t errlen);
int df_nunique_final(const frame_t *part, bool dropna, frame_t *out, char *err, size_t errlen);

#endif
