/* resample.h: dataframe.resample, pandas 1.5's
 * df.resample(rule, on=...).agg(...) and Series.resample(rule).func().
 *
 * The rows are put in time bins and each bin is aggregated as
 * groupby_agg aggregates a group; the result has a row for every bin from
 * the first to the last that holds a row, the empty ones filled as pandas
 * fills them (0 for count, size, nunique and sum, 1 for prod, else
 * missing: NaN, NaT, or float64 for an int or bool column).
 *
 * Three steps, each a job kind of tile_df.c:
 *   - span (only when the bins depend on the data: rs_needs_span): each
 *     chunk's first and last time, combined into the whole input's;
 *   - bin: each chunk as a frame whose column 0 is its rows' bin keys
 *     (datetime64[ns], NaT for a NaT time) and whose other columns are the
 *     input columns the aggregations read (df_node_t's key), the input's
 *     index kept; groupby_agg's plans then run on these frames by column
 *     0. With first or last among the aggregations the times follow as a
 *     last column and the bin frames are sorted by them first (pandas
 *     sorts by time before it bins: first is the earliest present value);
 *   - fill: the groupby's one result chunk with its empty bins added and
 *     its labels moved where `label` says.
 *
 * Bin keys: a tick rule (D, h, min, s, ms, us, ns and their multiples)
 * keys a bin by its left edge, origin + k * step; calendar rules key a bin
 * by its label, the midnight of the day pandas names it by (the week's
 * last day for W, the period's last day for M, Q and A, its first for MS,
 * QS and AS). */
#ifndef MARS_DF_RESAMPLE_H
#define MARS_DF_RESAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "algo.h"
#include "frame.h"

typedef enum { RS_TICK = 0, RS_WEEK, RS_MONTH } rs_kind_t;
/* pandas' origin for tick rules: "epoch", "start_day" (the default),
 * "start", "end", "end_day", or a timestamp */
typedef enum {
    RS_O_EPOCH = 0,
    RS_O_START_DAY,
    RS_O_START,
    RS_O_END,
    RS_O_END_DAY,
    RS_O_TIME
} rs_origin_t;

/* pandas' upsampling methods: the rows reindexed at the bins' labels
 * (rs_upsample) */
typedef enum {
    RS_UP_NONE = 0,
    RS_UP_ASFREQ, /* the row at the label, else missing */
    RS_UP_FFILL,  /* the last row at or before it */
    RS_UP_BFILL,  /* the first row at or after it */
    RS_UP_NEAREST,
    RS_UP_INTERP /* asfreq, then linear interpolation over the labels */
} rs_up_t;

typedef struct {
    int on;         /* the input column of the times; -1: index level 0 */
    uint8_t kind;   /* rs_kind_t */
    uint8_t origin; /* rs_origin_t (tick rules) */
    bool closed_right;
    bool label_right;
    bool end_label; /* RS_MONTH: a bin is named by its last day (M, Q, A), else its first */
    int64_t mult;   /* calendar rules: periods per bin */
    int months;     /* RS_MONTH: months per period (1, 3, 12) */
    int anchor;     /* RS_WEEK: the weekday weeks end on (0 Monday .. 6 Sunday) */
    int64_t step;   /* RS_TICK: the bin's width in nanoseconds */
    bool days;      /* RS_TICK: a rule of 2 or more days ("2D"), whose edges pandas
                     * moves to the end of their day when bins close on the right */
    int64_t at;     /* RS_O_TIME: the origin */
    int64_t offset; /* RS_TICK: added to the origin */
    uint8_t up;     /* rs_up_t: an upsampling method, or RS_UP_NONE */
} rs_spec_t;

/* Reads a rule ("15min", "2h", "D", "W", "W-MON", "M", "2MS", "Q", "QS",
 * "A", "Y", "AS", "YS") into r's kind, step, mult, months, anchor, and
 * pandas' defaults for closed and label (right for W, M, Q and A).
 * Returns 0, or -1 with why. */
int rs_parse_rule(const char *s, rs_spec_t *r, char *why, size_t len);

/* Whether the bins depend on the data's first or last time (an origin
 * other than the epoch, start_day with a step that does not divide a day,
 * calendar rules of several periods). */
bool rs_needs_span(const rs_spec_t *r);

/* The span step: with partial false, in[0] is a chunk and the result its
 * first and last time; with partial true, in[0..n) are such results and
 * the result theirs combined. The result is one row of two int64 columns,
 * INT64_MIN (NaT) where no time is present. */
int rs_span(const rs_spec_t *r, const frame_t *const *in, int n, bool partial, frame_t *out,
            char *err, size_t errlen);

/* The bin step on chunk in: span is the span step's result, or NULL when
 * the bins do not need one; use[0..nuse) the input columns kept after the
 * keys, then the times when with_times. A key outside datetime64[ns]'s
 * range fails the job. */
int rs_bin(const rs_spec_t *r, const frame_t *in, const frame_t *span, const int *use, int nuse,
           bool with_times, frame_t *out, char *err, size_t errlen);

/* The fill step on groupby_agg's result in (the keys in index level 0,
 * sorted, one column per aggregation aggs[0..nagg)). More bins than
 * fit in max_bytes fail the job naming the limit. */
int rs_fill(const rs_spec_t *r, const agg_spec_t *aggs, int nagg, const frame_t *in,
            int64_t max_bytes, frame_t *out, char *err, size_t errlen);

/* Upsampling (r->up), pandas 1.5's Resampler.asfreq, ffill, bfill,
 * nearest and interpolate: in (every row, by the times of its index) is
 * sorted by time and reindexed at the labels of the bins from the first
 * time's to the last's (the bins' left edges when they close on the left,
 * else their right edges). Times that repeat, or NaT, fail the job, as
 * pandas' reindex fails; more labels than max_bytes holds too. An int
 * column with a missing value becomes float64, a bool one object. */
int rs_upsample(const rs_spec_t *r, const frame_t *in, int64_t max_bytes, frame_t *out, char *err,
                size_t errlen);

#endif
