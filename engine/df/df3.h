/* df3.h: DataFrame ops of the df3 branch that read every input at once:
 * concat along the columns (pandas' pd.concat(objs, axis=1)). One job
 * (tile.h's DFJ_MULTI) gets the chunks of every frame input, input after
 * input: off[q] is the first of input q's chunks, off[nin] the count. */
#ifndef MARS_DF_DF3_H
#define MARS_DF_DF3_H

#include "../graph.h"
#include "../tile.h"
#include "dfexec.h"
#include "dfgraph.h"

/* What one job of these ops reads whole (its inputs' bytes) at most: more
 * is refused when the job runs, naming the limit. */
#define DF3_WHOLE_MAX_BYTES (2LL << 30)
/* pivot_table's and pivot's cells at most: 2 GiB of 8-byte values, so the
 * table is bounded as the input is */
#define DF3_MAX_CELLS (DF3_WHOLE_MAX_BYTES / 8)
int df3_whole_check(const graph_node_t *n, const dfx_in_t *ins, int n_in, char *err, size_t errlen);

/* The rows of one job's inputs (each input's chunks concatenated) through
 * node n's op into *out. 0, or -1 with a message. */
int df3_run_multi(const graph_node_t *n, const job_t *j, const dfx_in_t *ins, frame_t *out,
                  char *err, size_t errlen);

/* concat's "sort" (df_node_t.sort_rows): the rows as aligned (none), sorted
 * by the index always (pandas' concat(sort=True)), or sorted where the
 * indexes differ (the alignment of two Series in pandas' arithmetic) */
enum { DF3_SORT_NONE, DF3_SORT_ALWAYS, DF3_SORT_DIFFERING };

/* pd.concat(parts, axis=1, join=inner or outer) with the column labels of
 * schema d: side by side when every index equals the first's, else aligned
 * on the union (outer, in order of first appearance) or the intersection
 * (inner, in the first input's order) of unique indexes; then sorted by the
 * index as d->sort_rows says. */
int df3_concat_cols(const df_node_t *d, const frame_t *const *parts, int n, frame_t *out, char *err,
                    size_t errlen);

/* pivot_table's aggfunc (df_node_t.pv_agg) */
enum {
    DF3_AGG_SUM,
    DF3_AGG_MEAN,
    DF3_AGG_COUNT,
    DF3_AGG_MIN,
    DF3_AGG_MAX,
    DF3_AGG_STD,
    DF3_AGG_VAR,
    /* groupby_transform's pandas transformation kernels (df3_groupby) */
    DF3_TF_CUMSUM,
    DF3_TF_CUMPROD,
    DF3_TF_CUMMIN,
    DF3_TF_CUMMAX,
    DF3_TF_CUMCOUNT,
    DF3_TF_NGROUP,
    DF3_TF_SHIFT,
    DF3_TF_DIFF,
    DF3_TF_FFILL,
    DF3_TF_BFILL,
    DF3_TF_RANK,
    DF3_TF_PCT_CHANGE,
    /* groupby_transform's aggregations looked up per row (df3_gb_lookup):
     * groupby_agg's result, each row its group's value */
    DF3_TB_MEDIAN,
    DF3_TB_PROD,
    DF3_TB_FIRST,
    DF3_TB_LAST,
    DF3_TB_SIZE,
    DF3_TB_NUNIQUE
};

/* pd.pivot_table(in, values=d->sel, index=d->key, columns=d->pv_col (-1:
 * none), aggfunc, fill_value): pandas 1.5's table, its rows and columns
 * sorted, combos with a missing key dropped, all-NaN combos and columns
 * dropped, and pandas' downcasts (int64 values whose results are integral;
 * with fill_value every integral column). */
int df3_pivot(const df_node_t *d, const frame_t *in, frame_t *out, char *err, size_t errlen);

/* df.pivot(index=d->key, columns=d->pv_col, values=d->sel[0]): pandas
 * 1.5's reshape without aggregation: rows and columns sorted by their keys,
 * one value per cell (a repeated pair fails as pandas'), missing cells
 * missing, every int64 column float64 and bool column object where any
 * cell is missing (one block); a missing key fails. op OP_DF_UNSTACK: the
 * same over a Series' levels and values (in: a view of them as columns),
 * the missing cells d->lits[0] when d->nlit is 1 (fill_value). */
int df3_pivot_reshape(const df_node_t *d, op_t op, const frame_t *in, frame_t *out, char *err,
                      size_t errlen);

/* groupby_size, groupby_quantile, groupby_transform, groupby_head and
 * groupby_tail (op) over every row: pandas 1.5's df.groupby(by) methods,
 * groups sorted by key, rows with a missing key in no group. */
int df3_groupby(const df_node_t *d, op_t op, const frame_t *in, frame_t *out, char *err,
                size_t errlen);

/* groupby ops chunk by chunk (op: OP_DF_GROUPBY_TRANSFORM, _HEAD, _TAIL
 * or _SIZE): in is a chunk, carry (NULL: none) what the chunks before it
 * (after it: backwards) pass on, out (NULL: not wanted) the chunk's
 * result, next (NULL: not wanted) the carry with the chunk folded in. A
 * chunk's results are pandas' for those rows of the whole frame.
 *
 * df3_gb_scan: transform's statistics, cumsum, cumprod, cummin, cummax,
 * cumcount and ngroup (df3_gb_scans), head, tail and size: the carry is
 * each group's running state (its keys, then per value column four state
 * columns; head, tail, size, cumcount, ngroup: rows). A statistic's and
 * ngroup's out read the carry of every chunk. df3_gb_final sorts that
 * carry's groups by key once: size's result (one row per group), or for
 * ngroup the carry with each group's place in key order.
 * df3_gb_carry: the same for every op and kernel that runs so, shift,
 * diff, ffill and bfill too (their carry: the input rows of the chunks
 * before that the next chunk may read).
 * df3_gb_chunked: whether a transform's kernel runs so, and whether its
 * carry runs from the last chunk (negative periods, bfill, cumcount
 * descending). */
bool df3_gb_scans(const df_node_t *d);
int df3_gb_scan(const df_node_t *d, op_t op, const frame_t *in, const frame_t *carry, frame_t *out,
                frame_t *next, char *err, size_t errlen);
int df3_gb_final(const df_node_t *d, op_t op, const frame_t *carry, frame_t *out, char *err,
                 size_t errlen);
bool df3_gb_chunked(const df_node_t *d, bool *backwards);
/* whether a transform's func is one of groupby_agg's looked up per row
 * (DF3_TB_*: median, prod, first, last, size, nunique): d->gb's result
 * over every chunk (keys in the index, a column per value column) is
 * df3_gb_carry's carry, and each chunk's row reads its group's row */
bool df3_gb_lookup(const df_node_t *d);
int df3_gb_carry(const df_node_t *d, op_t op, const frame_t *in, const frame_t *carry, frame_t *out,
                 frame_t *next, char *err, size_t errlen);

/* read_json: the file (at most max_bytes) as pandas 1.5's pd.read_json(path,
 * orient=...): mode 0 "columns", 1 "records", DF3_JSON_LINES lines=True
 * (a record per non-blank line): columns in order of first
 * appearance; int64, float64, bool or string as pandas types them (a
 * column with a null is float64, or object for strings; whole floats are
 * int64; numeric strings are numbers); the index 0..n-1, or the row labels
 * (int64 when every label is an integer). */
#define DF3_JSON_MAX_BYTES (256LL << 20)
#define DF3_JSON_LINES 2
int df3_read_json(const char *path, int mode, int64_t max_bytes, frame_t *out, char *err,
                  size_t errlen);

#endif
