/* dfgraph.h: the DataFrame part of a graph node (graph.h's node->df):
 * the parameters of a dataframe.* op as validated, and the schema of the
 * value it produces (columns, their types, index levels), inferred as
 * pandas 1.5 would at validation time. Element-wise ops whose inputs are
 * Series or DataFrames carry one too.
 *
 * Parsed and inferred by graph_df.c; tiled by tile_df.c; run by dfexec.c.
 * Everything a df_node_t points to is owned by it (df_node_free). */
#ifndef MARS_DF_DFGRAPH_H
#define MARS_DF_DFGRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "../graph.h"
#include "algo.h"
#include "csv.h"
#include "frame.h"
#include "resample.h"

/* A column (or index level) of a schema: label and type. */
typedef struct {
    char *name;   /* NULL: unnamed (a Series without a name) */
    bool is_int;  /* an integer label (from_tensor's default names) */
    uint8_t type; /* ftype_t */
    uint8_t unit; /* INT64: frame.h's FU_* (datetimes, dates, timedeltas) */
    /* INT64 typed chunk by chunk (str.len, a dt field, cut's codes, map's
     * integers): float64 in a chunk with a missing value, as pandas' column
     * is then; kept by the ops that pass the column through (set_like), so
     * that interpolate and fillna, which may put a non-integer there, make
     * it float64 (docs/graph-format.md) */
    bool chunky;
} df_col_t;

/* ew_dt of a column compared as strings (with strings or string literals). */
#define DF_EW_STRCMP 0xff
#define DF_EW_STRWHERE 0xfe  /* where of strings: cond ? a : b, a and b strings or NaN */
#define DF_EW_BOOLWHERE 0xfd /* where of bools with NaN: bools with missing values */
/* arithmetic and comparisons of datetimes and timedeltas (dfexec.c's
 * ew_time): the output column's type and unit say what it gives */
#define DF_EW_TIME 0xfc
#define DF_EW_STRADD 0xfb    /* add of strings: their concatenation, missing where one is */
#define DF_EW_TIMEWHERE 0xfa /* where of datetimes (or timedeltas) and NaN: NaT */

/* Reduction ops (dataframe.sum ...): the statistic kept per column. */
typedef enum {
    DFR_SUM,
    DFR_MEAN,
    DFR_MIN,
    DFR_MAX,
    DFR_COUNT,
    DFR_PROD,
    DFR_STD,
    DFR_VAR,
    DFR_ANY,
    DFR_ALL
} dfred_t;

/* A literal parameter (fillna's value, replace's, isin's, clip's bounds). */
typedef struct {
    uint8_t kind; /* DFL_* */
    bool is_int;  /* DFL_NUM: an integer (i), else f */
    int64_t i;
    double f; /* DFL_NUM: the value as a double either way */
    char *s;  /* DFL_STR (owned) */
} df_lit_t;
enum { DFL_NONE = 0, DFL_NUM, DFL_BOOL, DFL_STR, DFL_NAN };

/* rolling's agg */
enum {
    DFRA_SUM,
    DFRA_MEAN,
    DFRA_MIN,
    DFRA_MAX,
    DFRA_STD,
    DFRA_VAR,
    DFRA_COUNT,
    DFRA_MEDIAN,   /* rolling and expanding */
    DFRA_QUANTILE, /* rolling and expanding: gq, roll_interp */
    DFRA_COV,      /* rolling only: with column roll_other */
    DFRA_CORR,
    DFRA_SEM,  /* rolling and expanding: std / sqrt(count - 1), pandas' */
    DFRA_SKEW, /* rolling and expanding: pandas' roll_skew and roll_kurt */
    DFRA_KURT
};
/* rolling quantile's interpolation (pandas' names, in this order) */
enum { DF_QI_LINEAR, DF_QI_LOWER, DF_QI_HIGHER, DF_QI_NEAREST, DF_QI_MIDPOINT };
/* the ends a rolling window of time holds (pandas' closed) */
enum { DF_RC_LEFT = 1, DF_RC_RIGHT = 2 };

/* interpolate's method (x: the row's position; the index's values) and
 * its limit_direction and limit_area */
enum { DF_IP_LINEAR, DF_IP_INDEX, DF_IP_TIME };
enum { DF_IPD_FORWARD, DF_IPD_BACKWARD, DF_IPD_BOTH };
enum { DF_IPA_NONE, DF_IPA_INSIDE, DF_IPA_OUTSIDE };

/* cut's labels: codes (labels false), intervals' text (null), a list */
enum { DF_CL_CODES, DF_CL_INTERVALS, DF_CL_LIST };

/* merge_asof's direction */
enum { DF_AD_BACKWARD, DF_AD_FORWARD, DF_AD_NEAREST };

/* fillna's method */
enum { DFM_NONE = 0, DFM_FFILL, DFM_BFILL };

typedef struct df_node {
    /* ---- the value produced ---- */
    int ncols;
    df_col_t *cols; /* DataFrame columns, or the one column of a Series */
    int nidx;
    df_col_t *idx; /* index levels (type FT_INT64 named NULL for a default index) */
    /* rows: the node whose chunks this value's chunks line up with row for
     * row (element-wise ops between Series need the same one); itself for
     * ops that make new rows */
    int rowsrc;
    int64_t nrows; /* -1: known only when it runs (after filter, groupby ...) */

    /* ---- parameters ---- */
    int nsel;
    int *sel;           /* getitem: input columns taken; to_tensor/reductions: input columns used */
    bool sel_series;    /* getitem with one name: a Series */
    int64_t chunk_rows; /* from_tensor (0: the tensor's row chunks) */
    int64_t n;          /* head */
    int64_t ddof;       /* std, var */
    /* assign: for each output column, the input it comes from: -1 - k is
     * column k of the DataFrame, j >= 1 is input j (a Series) */
    int *assign_src;
    /* read_csv */
    char *path; /* the resolved file (the first, for a glob) */
    int npaths; /* a glob: its files, in order (sorted names), and their sizes */
    char **paths;
    int64_t *path_len;
    csv_header_t hdr;
    int64_t nranges;
    csv_range_t *ranges;
    int64_t *range_rows;
    csv_type_t *ctypes;
    /* groupby_agg (and resample's aggregations) */
    gb_spec_t gb;
    agg_spec_t *aggs;
    /* resample: its bins; key (nkey) the input columns its aggregations
     * read, which the bin step keeps after the keys; sort (below) by the
     * times after them when first or last is asked for (resample.h) */
    rs_spec_t rs;
    /* sort_values */
    sort_spec_t sort;
    /* merge */
    merge_spec_t merge;
    /* element-wise on frames: per output column, the input column of each
     * frame input (-1 for scalars and broadcast Series) */
    int *ew_col;            /* ncols * n_in */
    uint8_t *ew_dt;         /* ncols: compute dtype, or DF_EW_STRCMP (DF_EW_STRWHERE): a
                             * comparison (where) of strings */
    uint8_t ew_lit_unit[3]; /* per input: FU_NS or FU_TD where a string literal was
                             * read as a datetime or timedelta (its nanoseconds in
                             * the input's sc), else FU_NONE */
    /* to_tensor: the tensor's dtype */
    dtype_t tdt;
    bool held; /* the value is a tensor held as a frame blob (to_tensor): fetch only */
    /* clean.c's ops: per output column k, lit[k] (fillna's value), sel[k]
     * its input column (rename, drop, astype; cols[k].type the output
     * type); lits (nlit: isin's values, replace's to_replace, map's
     * keys), lits2 (replace's and map's values, nlit of them), lo and hi
     * (clip), n (round's decimals, dropna's thresh or -1), how (dropna: 0
     * any, 1 all), method (fillna: DFM_*; map: 1 for na_action "ignore") */
    df_lit_t *lit;
    int nlit;
    df_lit_t *lits, *lits2;
    /* get_dummies: per output column k (input column sel[k]), -1 kept,
     * -2 the missing values' column (dummy_na), else its category
     * lits[gd_cat[k]]; per category, its input column (gd_lsrc: those of
     * one column are together, drop_first's too) */
    int *gd_cat, *gd_lsrc;
    /* describe's percentiles (NULL: 25%, 50%, 75%), sorted, nds of them,
     * and their rows' labels */
    double *ds_q;
    char **ds_lab;
    int nds;
    /* str.extract: per POSIX group 1..ex_ng of the compiled pattern, its
     * output column (-1: a non-capturing group) */
    int *ex_map, ex_ng;
    df_lit_t lo, hi;
    int how, method;
    /* select.c's ops: iloc's rows (pos, npos) or slice (row_slice: sl[] with
     * sl_has[] for start, stop, step); keep (drop_duplicates, duplicated,
     * nlargest: 0 first, 1 last, 2 none, 3 all); sample's frac (has_frac) or n,
     * and seed; sort_index's asc1; set_index's drop and append;
     * reset_index's drop (concat's ignore_index); loc's labels (lits, nlit) or label slice (lo, hi
     * with has_lo, has_hi), and loc's drop (the rows of none of the labels:
     * pandas' drop) with lenient (errors "ignore": an absent label is no
     * error); sel: the columns kept (iloc, loc, set_index),
     * the keys (nlargest, drop_duplicates) */
    int64_t *pos, npos;
    bool row_slice, sl_has[3];
    int64_t sl[3];
    int keep;
    bool has_frac;
    double frac;
    int64_t seed;
    bool asc1, drop, append, has_lo, has_hi, lenient;
    bool nu_keepna; /* nunique: dropna false */
    bool qlist;     /* quantile of a list of q (lits, nlit): a row per q */
    int rank_na;    /* rank's na_option: 0 keep, 1 top, 2 bottom */
    int nkey;
    int *key;
    /* running.c's ops: n the periods (diff, shift, pct_change) or the
     * window (rolling), minp rolling's (ewm's) min_periods, ragg its DFRA_*
     * (ewm: DFRA_MEAN, DFRA_SUM, DFRA_VAR or DFRA_STD); ewm's center of
     * mass, adjust, ignore_na and bias (var, std); a rolling window of time (roll_time): its width
     * roll_ns, the column of its times roll_on (-1: the index) and roll_closed (DF_RC_LEFT |
     * DF_RC_RIGHT: the ends the window holds), and the order of the columns pandas gives with "on"
     * (roll_src) */
    int64_t minp;
    int ragg;
    double ewm_com;
    bool ewm_adjust, ewm_ignore_na, ewm_bias;
    int ewm_times;    /* ewm's times: its input column, or -1 */
    double ewm_hl_ns; /* with times: the halflife in nanoseconds */
    bool roll_time;
    int roll_on;
    int roll_other;      /* rolling cov and corr: the input column each column is paired with */
    bool roll_pair;      /* rolling cov and corr without other: pandas' pairwise matrix */
    int *roll_src;       /* rolling with "on", ewm with times: output column k is input
                          * column roll_src[k] */
    uint8_t roll_interp; /* DF_QI_*: quantile's interpolation (a rolling
                          * quantile's q: gq; dataframe.quantile's: frac,
                          * or lits with qlist) */
    uint8_t roll_closed;
    int64_t roll_ns;
    /* expanding median and quantile: n is this, a window of rows wider than any frame */
#define DF_EXPANDING_ROWS (INT64_MAX / 4)
    int64_t roll_off; /* rolling over rows with center: the rows after each row that its window
                       * holds, (window - 1) / 2 as pandas; else 0 */
    /* strings.c's ops: pat and repl (owned), regex, icase (contains'
     * case=false), sget (split's element, has_get), n (split's and
     * replace's count, -1 all), sl/sl_has (slice), compiled regex (re) */
    /* groupby_agg in one job (gball.c): new funcs, dropna false or
     * as_index false */
    bool gb_whole, gb_keepna, gb_flat;
    struct dfexpr *expr; /* query, eval (expr.h) */
    char *pat, *repl;
    bool regex, icase, has_get, has_pat;
    int64_t sget;
    void *re;
    uint8_t session_vk; /* a session node (OP_SESSION_TENSOR) holding a DataFrame or
                         * Series of an earlier task: its vkind_t (0: none) */
    void *json;         /* the node's JSON object while the document is parsed (borrowed) */
    /* df3: concat along the columns (axis1; join_inner, join_left: join "inner",
     * "left"), its
     * inputs' rows lining up (aligned: chunk by chunk, else one job);
     * sort_rows: DF3_SORT_* */
    bool axis1, join_inner, join_left, aligned;
    uint8_t sort_rows;
    /* df3: pivot_table: values sel (sorted by name), index key, columns
     * pv_col (-1: none), aggfunc pv_agg (df3.h's DF3_AGG_*), fill_value */
    int pv_col, pv_agg;
    bool pv_has_fill;
    double pv_fill;
    /* df3: groupby_* ops: by key/nkey, value columns sel/nsel, func pv_agg,
     * n (head, tail; a transform's periods or limit, -1: none), gq
     * (quantile's q); a transform's rank: how, asc1 (also cumcount's and
     * ngroup's ascending), drop (pct); gb_may_miss: a key may be missing
     * (rows in no group: bool results of cumsum, cumprod, cummin and cummax
     * are float64); pct_change: periods n, fill_method gb_fill (0 none, else
     * DF3_TF_FFILL or DF3_TF_BFILL) with limit gb_limit (-1: none) */
    double gq;
    /* groupby_transform: value column v's input is int64 (gb_intv[v]): a
     * chunk of it typed float64 holds integers and NaN (frame.h's
     * fcol_chunk_type), folded as integers beside its int64 chunks */
    bool *gb_intv;
    int gb_fill;
    int64_t gb_limit;
    bool gb_may_miss;
    /* interpolate (interp.h): ip_method DF_IP_*, ip_dir DF_IPD_* (pandas'
     * limit_direction), ip_area DF_IPA_* (limit_area), ip_limit (-1: none) */
    uint8_t ip_method, ip_dir, ip_area;
    int64_t ip_limit;
    /* between_time (at_time: tod[0] alone): the times of day in whole
     * microseconds, as pandas compares them; tod_incl bit 1 the start is
     * in, bit 2 the end */
    int64_t tod[2];
    uint8_t tod_incl;
    /* rolling and expanding skew and kurt: the sums, counts and minima of
     * the columns over every row (running.c's moment pass), set on a
     * job's own copy of the node by dfexec; NULL elsewhere */
    const frame_t *run_stat;
    /* merge_asof (asof.h): the key columns of left and right (aon, arn),
     * the by columns (key: left's nkey, then right's), direction DF_AD_*,
     * allow_exact_matches, a tolerance (int64 keys and datetimes: atol_i;
     * float64: atol_f), merge.sfx the suffixes; output column k is left
     * column asrc[k] (>= 0) or right column -1 - asrc[k] */
    int aon, arn, anl; /* anl: left's columns (the union frame's layout) */
    uint8_t adir;
    bool aexact, ahas_tol;
    int64_t atol_i;
    double atol_f;
    int *asrc;
    /* cut (cut.h): bins as a count cut_n, or (cut_n 0) the edges cut_e,
     * ncut of them, integers when cut_int (then also cut_ei); labels
     * cut_lab DF_CL_* (DF_CL_LIST: lits, nlit strings); right, include_lowest,
     * precision, duplicates "drop" */
    int64_t cut_n;
    int ncut;
    double *cut_e;
    int64_t *cut_ei;
    bool cut_int, cut_right, cut_lowest, cut_drop;
    bool cut_q; /* qcut: cut_n quantiles, or cut_e the ncut quantiles */
    uint8_t cut_lab;
    int cut_prec;
    /* pandas' dayfirst (read_csv's parse_dates, to_datetime): a delimited
     * date whose first two numbers could each be the day is DD/MM */
    bool dayfirst;
} df_node_t;

void df_node_free(df_node_t *d);

/* pandas' dtype name of a column of type t ("int64", "float64", "bool",
 * "object"); has_na: a bool column with missing values is object. */
const char *df_type_name(int t, bool has_na);
/* The same for a frame's column and a schema's, naming datetimes
 * ("datetime64[ns]") and dates ("object"). */
const char *fcol_type_name(const fcol_t *c, bool has_na);
const char *df_col_type_name(const df_col_t *c);

/* The statistic of reduction op (OP_DF_SUM ... OP_DF_VAR, OP_DF_ANY, OP_DF_ALL). */
dfred_t df_red_of(op_t op);

#endif
