/* graph_list.c: the op table as JSON, for `mars-run --list-ops` and
 * `GET /api/v1/ops` (docs/graph-format.md, "Listing the ops").
 *
 * The list walks GRAPH_OPS, so every op the engine parses is listed. What
 * an op takes comes from its kind (kind_default below) unless PARAMS has an
 * entry for its name: adding an op whose parameters differ from its kind's
 * means adding one line to PARAMS, its parameters in numpy's positional
 * order (`random.randint`: low, high, then shape for numpy's size): the
 * Python client maps positional arguments to them in this order for ops it
 * has no function of its own for. tests/unit/engine/test_graph_list.c checks
 * every line against the parser (fields and input counts). */
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "graph_internal.h"

/* inputs: "0", "1", "2", "3", or "N+" (at least N). params: NULL-ended.
 * graph_ops_json() walks the op table and looks each op up here, so a line
 * whose name is no op of the table (an op another branch adds, not merged
 * yet) is never read: it is ignored, neither listed nor an error. */
typedef struct {
    const char *name;
    const char *inputs;
    const char *params[32]; /* NULL-terminated: at most 31 */
} op_params_t;

static const op_params_t PARAMS[] = {
    {"ones", "0", {"shape", "dtype", "chunk_size"}},
    {"zeros", "0", {"shape", "dtype", "chunk_size"}},
    {"full", "0", {"shape", "fill_value", "dtype", "chunk_size"}},
    {"arange", "0", {"start", "stop", "step", "dtype", "chunk_size"}},
    {"linspace", "0", {"start", "stop", "num", "endpoint", "chunk_size"}},
    {"eye", "0", {"N", "M", "k", "dtype", "chunk_size"}},
    {"array", "0", {"data", "dtype", "chunk_size"}},
    /* from the tensorops branch (ignored until it is merged) */
    {"empty", "0", {"shape", "dtype", "chunk_size"}},
    {"identity", "0", {"n", "dtype", "chunk_size"}},
    {"ones_like", "1", {"dtype", "shape", "chunk_size"}},
    {"zeros_like", "1", {"dtype", "shape", "chunk_size"}},
    {"empty_like", "1", {"dtype", "shape", "chunk_size"}},
    {"full_like", "1", {"fill_value", "dtype", "shape", "chunk_size"}},
    {"isclose", "2", {"rtol", "atol", "equal_nan"}},
    {"swapaxes", "1", {"axis1", "axis2"}},
    {"moveaxis", "1", {"source", "destination"}},
    {"flip", "1", {"axis"}},
    {"diff", "1", {"n", "axis"}},
    {"random.randint", "0", {"low", "high", "shape", "dtype", "seed", "chunk_size"}},
    {"random.uniform", "0", {"low", "high", "shape", "seed", "chunk_size"}},
    {"random.normal", "0", {"loc", "scale", "shape", "seed", "chunk_size"}},
    {"random.random", "0", {"size", "shape", "seed", "chunk_size"}},
    {"random.exponential", "0", {"scale", "size", "shape", "seed", "chunk_size"}},
    {"random.poisson", "0", {"lam", "size", "shape", "seed", "chunk_size"}},
    {"random.binomial", "0", {"n", "p", "size", "shape", "seed", "chunk_size"}},
    {"random.gamma", "0", {"shape", "scale", "size", "seed", "chunk_size"}},
    {"random.beta", "0", {"a", "b", "size", "shape", "seed", "chunk_size"}},
    {"random.lognormal", "0", {"mean", "sigma", "size", "shape", "seed", "chunk_size"}},
    {"random.standard_t", "0", {"df", "size", "shape", "seed", "chunk_size"}},
    {"random.chisquare", "0", {"df", "size", "shape", "seed", "chunk_size"}},
    {"round", "1", {"decimals"}},
    {"around", "1", {"decimals"}},
    {"std", "1", {"axis", "keepdims", "ddof"}},
    {"var", "1", {"axis", "keepdims", "ddof"}},
    {"nanstd", "1", {"axis", "keepdims", "ddof"}},
    {"nanvar", "1", {"axis", "keepdims", "ddof"}},
    {"tensordot", "2", {"axes"}},
    {"transpose", "1", {"axes"}},
    {"reshape", "1", {"newshape"}},
    {"ravel", "1", {NULL}},
    {"squeeze", "1", {"axis"}},
    {"expand_dims", "1", {"axis"}},
    {"concatenate", "1+", {"axis"}},
    {"stack", "1+", {"axis"}},
    {"hstack", "1+", {NULL}},
    {"vstack", "1+", {NULL}},
    {"dstack", "1+", {NULL}},
    {"column_stack", "1+", {NULL}},
    {"rechunk", "1", {"chunk_size"}},
    {"getitem", "1+", {"index"}}, /* [a, i1, ...]: {"input": N} entries */
    {"setitem", "2+", {"index"}},
    {"dataframe.from_tensor", "1", {"columns", "chunk_rows", "name"}},
    {"dataframe.read_csv",
     "0",
     {"path",
      "chunk_bytes",
      "usecols",
      "parse_dates",
      "sep",
      "decimal",
      "dtype",
      "header",
      "names",
      "na_values",
      "keep_default_na",
      "skiprows",
      "nrows",
      "thousands",
      "encoding",
      "comment",
      "quotechar",
      "quoting",
      "true_values",
      "false_values",
      "skipinitialspace",
      "on_bad_lines",
      "skip_blank_lines",
      "index_col",
      "skipfooter",
      "dayfirst",
      "compression"}},
    {"dataframe.getitem", "1", {"columns"}},
    {"dataframe.filter", "2", {NULL}},
    {"dataframe.assign", "2+", {"names"}},
    {"dataframe.std", "1", {"axis", "ddof"}},
    {"dataframe.var", "1", {"axis", "ddof"}},
    {"dataframe.describe", "1", {"percentiles"}},
    {"dataframe.nunique", "1", {"axis", "dropna"}},
    /* the df2 branch adds as_index and dropna: when it is merged, this line
     * becomes {"by", "agg", "as_index", "dropna"} (the test fails until then) */
    {"dataframe.groupby_agg", "1", {"by", "agg", "dropna", "as_index"}},
    {"dataframe.sort_values", "1", {"by", "ascending", "na_position"}},
    {"dataframe.merge",
     "2",
     {"on", "how", "left_on", "right_on", "left_index", "right_index", "suffixes"}},
    {"dataframe.head", "1", {"n"}},
    {"dataframe.to_tensor", "1", {NULL}},
    {"dataframe.fillna", "1", {"value", "method", "axis"}},
    {"dataframe.dropna", "1", {"axis", "how", "thresh", "subset"}},
    {"dataframe.isna", "1", {NULL}},
    {"dataframe.notna", "1", {NULL}},
    {"dataframe.isin", "1", {"values"}},
    {"dataframe.astype", "1", {"dtype"}},
    {"dataframe.rename", "1", {"columns", "name", "index_names"}},
    {"dataframe.drop", "1", {"columns"}},
    {"dataframe.replace", "1", {"to_replace", "value"}},
    {"dataframe.clip", "1", {"lower", "upper"}},
    {"dataframe.abs", "1", {NULL}},
    {"dataframe.round", "1", {"decimals"}},
    {"dataframe.set_index", "1", {"keys", "drop", "append"}},
    {"dataframe.reset_index", "1", {"drop"}},
    {"dataframe.iloc", "1", {"rows", "columns"}},
    {"dataframe.loc",
     "1",
     {"labels", "start", "stop", "columns", "drop", "errors"}}, /* [df] or [df, mask] */
    {"dataframe.tail", "1", {"n"}},
    {"dataframe.nlargest", "1", {"n", "columns", "keep"}},
    {"dataframe.nsmallest", "1", {"n", "columns", "keep"}},
    {"dataframe.sort_index", "1", {"ascending", "na_position"}},
    {"dataframe.sample", "1", {"n", "frac", "replace", "random_state"}},
    {"dataframe.drop_duplicates", "1", {"subset", "keep"}},
    {"dataframe.duplicated", "1", {"subset", "keep"}},
    {"dataframe.cumsum", "1", {"axis", "skipna"}},
    {"dataframe.cumprod", "1", {"axis", "skipna"}},
    {"dataframe.cummax", "1", {"axis", "skipna"}},
    {"dataframe.cummin", "1", {"axis", "skipna"}},
    {"dataframe.diff", "1", {"periods", "axis"}},
    {"dataframe.shift", "1", {"periods", "axis"}},
    {"dataframe.pct_change", "1", {"periods", "axis"}},
    {"dataframe.interpolate", "1", {"method", "limit", "limit_direction", "limit_area", "axis"}},
    {"dataframe.cut",
     "1",
     {"bins", "right", "labels", "precision", "include_lowest", "duplicates", "ordered"}},
    {"dataframe.qcut", "1", {"q", "labels", "precision", "duplicates"}},
    {"dataframe.map", "1", {"keys", "values", "na_action"}},
    {"dataframe.get_dummies",
     "1",
     {"columns", "categories", "prefix", "prefix_sep", "dummy_na", "drop_first", "dtype"}},
    {"dataframe.merge_asof",
     "2",
     {"on", "left_on", "right_on", "by", "left_by", "right_by", "suffixes", "tolerance",
      "allow_exact_matches", "direction"}},
    {"dataframe.rolling",
     "1",
     {"window", "min_periods", "center", "agg", "on", "closed", "quantile", "interpolation", "by",
      "other", "ddof"}},
    {"dataframe.expanding",
     "1",
     {"min_periods", "agg", "by", "quantile", "interpolation", "other", "ddof"}},
    {"dataframe.ewm",
     "1",
     {"com", "span", "halflife", "alpha", "min_periods", "adjust", "ignore_na", "agg", "bias",
      "times", "by"}},
    {"dataframe.str.lower", "1", {NULL}},
    {"dataframe.str.upper", "1", {NULL}},
    {"dataframe.str.len", "1", {NULL}},
    {"dataframe.str.contains", "1", {"pat", "case", "regex"}},
    {"dataframe.str.startswith", "1", {"pat"}},
    {"dataframe.str.endswith", "1", {"pat"}},
    {"dataframe.str.slice", "1", {"start", "stop", "step"}},
    {"dataframe.str.strip", "1", {"to_strip"}},
    {"dataframe.str.split", "1", {"pat", "n", "get"}},
    {"dataframe.str.replace", "1", {"pat", "repl", "n", "case", "regex"}},
    {"dataframe.str.lstrip", "1", {"to_strip"}},
    {"dataframe.str.rstrip", "1", {"to_strip"}},
    {"dataframe.str.title", "1", {NULL}},
    {"dataframe.str.capitalize", "1", {NULL}},
    {"dataframe.str.swapcase", "1", {NULL}},
    {"dataframe.str.casefold", "1", {NULL}},
    {"dataframe.str.isalpha", "1", {NULL}},
    {"dataframe.str.isalnum", "1", {NULL}},
    {"dataframe.str.isdigit", "1", {NULL}},
    {"dataframe.str.isdecimal", "1", {NULL}},
    {"dataframe.str.isnumeric", "1", {NULL}},
    {"dataframe.str.isspace", "1", {NULL}},
    {"dataframe.str.islower", "1", {NULL}},
    {"dataframe.str.isupper", "1", {NULL}},
    {"dataframe.str.istitle", "1", {NULL}},
    {"dataframe.str.zfill", "1", {"width"}},
    {"dataframe.str.pad", "1", {"width", "side", "fillchar"}},
    {"dataframe.str.center", "1", {"width", "fillchar"}},
    {"dataframe.str.ljust", "1", {"width", "fillchar"}},
    {"dataframe.str.rjust", "1", {"width", "fillchar"}},
    {"dataframe.str.find", "1", {"sub", "start", "end"}},
    {"dataframe.str.rfind", "1", {"sub", "start", "end"}},
    {"dataframe.str.count", "1", {"pat"}},
    {"dataframe.str.extract", "1", {"pat", "flags", "expand"}},
    {"dataframe.str.match", "1", {"pat", "case"}},
    {"dataframe.str.fullmatch", "1", {"pat", "case"}},
    {"dataframe.str.repeat", "1", {"repeats"}},
    {"dataframe.str.get", "1", {"i"}},
    {"dataframe.dt.year", "1", {NULL}},
    {"dataframe.dt.month", "1", {NULL}},
    {"dataframe.dt.day", "1", {NULL}},
    {"dataframe.dt.hour", "1", {NULL}},
    {"dataframe.dt.minute", "1", {NULL}},
    {"dataframe.dt.second", "1", {NULL}},
    {"dataframe.dt.dayofweek", "1", {NULL}},
    {"dataframe.dt.dayofyear", "1", {NULL}},
    {"dataframe.dt.quarter", "1", {NULL}},
    {"dataframe.dt.week", "1", {NULL}},
    {"dataframe.between_time", "1", {"start_time", "end_time", "inclusive"}},
    {"dataframe.at_time", "1", {"time"}},
    {"dataframe.dt.isocalendar", "1", {NULL}},
    {"dataframe.dt.floor", "1", {"freq"}},
    {"dataframe.dt.ceil", "1", {"freq"}},
    {"dataframe.dt.round", "1", {"freq"}},
    {"dataframe.dt.normalize", "1", {NULL}},
    {"dataframe.dt.day_name", "1", {NULL}},
    {"dataframe.dt.month_name", "1", {NULL}},
    {"dataframe.dt.strftime", "1", {"date_format"}},
    {"dataframe.dt.days_in_month", "1", {NULL}},
    {"dataframe.dt.is_month_start", "1", {NULL}},
    {"dataframe.dt.is_month_end", "1", {NULL}},
    {"dataframe.dt.is_quarter_start", "1", {NULL}},
    {"dataframe.dt.is_quarter_end", "1", {NULL}},
    {"dataframe.dt.is_year_start", "1", {NULL}},
    {"dataframe.dt.is_year_end", "1", {NULL}},
    {"dataframe.dt.is_leap_year", "1", {NULL}},
    {"dataframe.dt.days", "1", {NULL}},
    {"dataframe.dt.seconds", "1", {NULL}},
    {"dataframe.dt.microseconds", "1", {NULL}},
    {"dataframe.dt.nanoseconds", "1", {NULL}},
    {"dataframe.dt.total_seconds", "1", {NULL}},
    {"dataframe.dt.date", "1", {NULL}},
    {"dataframe.median", "1", {"axis", "numeric_only"}},
    {"dataframe.quantile", "1", {"q", "axis", "numeric_only", "interpolation"}},
    {"dataframe.skew", "1", {"axis", "numeric_only"}},
    {"dataframe.kurt", "1", {"axis", "numeric_only"}},
    {"dataframe.corr", "1", {"method", "min_periods"}},
    {"dataframe.cov", "1", {"min_periods", "method"}},
    {"dataframe.value_counts", "1", {"normalize", "sort", "ascending", "dropna"}},
    {"dataframe.mode", "1", {"axis", "numeric_only", "dropna"}},
    {"dataframe.rank", "1", {"method", "na_option", "ascending", "pct"}},
    {"dataframe.concat", "1+", {"axis", "join", "sort"}},
    /* from the df2 branch (ignored until it is merged) */
    {"dataframe.query", "1", {"expr"}},
    {"dataframe.eval", "1", {"expr"}},
    {"dataframe.melt", "1", {"id_vars", "value_vars", "var_name", "value_name"}},
    /* linalg: single-result linear algebra (graph_la.h) */
    {"linalg.cholesky", "1", {NULL}},
    {"linalg.solve", "2", {NULL}},
    {"linalg.inv", "1", {NULL}},
    {"linalg.det", "1", {NULL}},
    {"linalg.norm", "1", {"ord", "axis", "keepdims"}},
    {"linalg.matrix_rank", "1", {"tol", "hermitian"}},
    {"trace", "1", {"offset", "axis1", "axis2", "dtype"}},
    {"diagonal", "1", {"offset", "axis1", "axis2"}},
    {"vdot", "2", {NULL}},
    {"einsum", "1+", {"subscripts", "optimize"}},
    {"diag", "1", {"k"}},
    {"tril", "1", {"k"}},
    {"triu", "1", {"k"}},
    /* df3: joins, pivot_table, groupby transforms, dates, I/O */
    {"dataframe.join", "2", {"on", "how", "lsuffix", "rsuffix"}},
    {"dataframe.pivot", "1", {"index", "columns", "values"}},
    {"dataframe.unstack", "1", {"level", "fill_value"}},
    {"dataframe.pivot_table",
     "1",
     {"values", "index", "columns", "aggfunc", "fill_value", "margins", "dropna"}},
    {"dataframe.groupby_size", "1", {"by"}},
    {"dataframe.groupby_quantile", "1", {"by", "q", "columns"}},
    {"dataframe.idxmax", "1", {"skipna", "axis"}},
    {"dataframe.to_datetime", "1", {"format", "errors", "unit", "dayfirst"}},
    {"dataframe.to_timedelta", "1", {"unit", "errors"}},
    {"dataframe.resample",
     "1",
     {"rule", "on", "agg", "func", "closed", "label", "origin", "offset"}},
    {"dataframe.idxmin", "1", {"skipna", "axis"}},
    {"dataframe.groupby_transform",
     "1",
     {"by", "func", "columns", "periods", "limit", "method", "pct", "ascending", "na_option"}},
    {"dataframe.groupby_head", "1", {"by", "n"}},
    {"dataframe.groupby_tail", "1", {"by", "n"}},
    {"dataframe.read_json", "0", {"path", "orient", "lines", "compression"}},
    /* multiout: ops with several results (each also lists "outputs") */
    {"split", "1", {"indices_or_sections", "axis"}},
    {"array_split", "1", {"indices_or_sections", "axis"}},
    {"hsplit", "1", {"indices_or_sections"}},
    {"vsplit", "1", {"indices_or_sections"}},
    {"meshgrid", "1+", {"indexing", "sparse", "copy"}},
    {"nonzero", "1", {NULL}},
    {"unique", "1", {"return_index", "return_inverse", "return_counts", "axis", "equal_nan"}},
    {"histogram", "1", {"bins", "range", "density", "weights"}}, /* [a, bin_edges?, weights?] */
    {"linalg.qr", "1", {"mode"}},
    {"linalg.svd", "1", {"full_matrices", "compute_uv", "hermitian"}},
    {"linalg.eigh", "1", {"UPLO"}},
    {"linalg.slogdet", "1", {NULL}},
    {"linalg.lstsq", "2", {"rcond"}},
    /* fancy: advanced indexing (setitem and getitem are above) */
    {"take", "2", {"axis"}},
    {"compress", "2", {"axis"}},
    {"argwhere", "1", {NULL}},
    {"flatnonzero", "1", {NULL}},
    {"extract", "2", {NULL}},
    /* sortstat: sorting and searching, statistics (engine/sortstat.h) */
    {"sort", "1", {"axis", "kind", "order"}},
    {"argsort", "1", {"axis", "kind", "order"}},
    {"partition", "1", {"kth", "axis", "kind", "order"}},
    {"argpartition", "1", {"kth", "axis", "kind", "order"}},
    {"topk", "1", {"k", "axis", "largest", "sorted"}},
    {"searchsorted", "2+", {"side"}},
    {"isin", "2", {"assume_unique", "invert"}},
    {"in1d", "2", {"assume_unique", "invert"}},
    {"percentile", "1", {"q", "axis", "method", "keepdims"}},
    {"quantile", "1", {"q", "axis", "method", "keepdims"}},
    {"median", "1", {"axis", "keepdims"}},
    {"nanpercentile", "1", {"q", "axis", "method", "keepdims"}},
    {"nanquantile", "1", {"q", "axis", "method", "keepdims"}},
    {"nanmedian", "1", {"axis", "keepdims"}},
    {"average", "1+", {"axis", "keepdims"}},
    {"digitize", "2", {"right"}},
    {"cov", "1+", {"rowvar", "bias", "ddof"}},
    {"corrcoef", "1+", {"rowvar"}},
    {"allclose", "2", {"rtol", "atol", "equal_nan"}},
    /* setops: set operations and counting (engine/setops.h) */
    {"union1d", "2", {NULL}},
    {"intersect1d", "2", {"assume_unique", "return_indices"}},
    {"setdiff1d", "2", {"assume_unique"}},
    {"bincount", "1+", {"minlength"}}, /* [x] or [x, weights] */
    /* shapes: creation, tiling and padding (engine/shapes2.h) */
    {"logspace", "0", {"start", "stop", "num", "endpoint", "base", "dtype", "chunk_size"}},
    {"geomspace", "0", {"start", "stop", "num", "endpoint", "dtype", "chunk_size"}},
    {"indices", "0", {"dimensions", "dtype", "chunk_size"}},
    {"roll", "1", {"shift", "axis"}},
    {"broadcast_to", "1", {"shape"}},
    {"tile", "1", {"reps"}},
    {"repeat", "1", {"repeats", "axis"}},
    {"pad", "1", {"pad_width", "mode", "constant_values"}},
    {"random.choice", "0", {"a", "size", "replace", "p", "seed", "chunk_size"}},
    {"random.permutation", "0", {"x", "seed", "chunk_size"}},
    {"random.multinomial", "0", {"n", "pvals", "size", "seed", "chunk_size"}},
    {"random.multivariate_normal",
     "0",
     {"mean", "cov", "size", "check_valid", "tol", "seed", "chunk_size"}},
};

/* The kind's name, its inputs and parameters when PARAMS has no entry. */
static const char *kind_default(op_kind_t k, const char **inputs, const char *const **params)
{
    static const char *const none[] = {NULL};
    static const char *const rnd[] = {"shape", "seed", "chunk_size", NULL};
    static const char *const red[] = {"axis", "keepdims", NULL};
    static const char *const clip[] = {"a_min", "a_max", NULL};
    static const char *const dt[] = {"dtype", NULL};
    static const char *const axis[] = {"axis", NULL};
    *inputs = "1";
    *params = none;
    switch (k) {
    case OPK_CREATE:
        *inputs = "0";
        return "creation";
    case OPK_RANDOM:
        *inputs = "0";
        *params = rnd;
        return "random";
    case OPK_UNARY:
        return "unary";
    case OPK_BINARY:
        *inputs = "2";
        return "binary";
    case OPK_WHERE:
        *inputs = "3";
        return "where";
    case OPK_CLIP:
        *params = clip;
        return "clip";
    case OPK_ASTYPE:
        *params = dt;
        return "astype";
    case OPK_REDUCE:
        *params = red;
        return "reduction";
    case OPK_ARGREDUCE:
        *params = red;
        return "argreduction";
    case OPK_SCAN:
        *params = axis;
        return "scan";
    case OPK_LINALG:
        *inputs = "2";
        return "linalg";
    case OPK_SHAPE:
        return "shape";
    case OPK_DF:
        *params = axis;
        return "dataframe";
    case OPK_SORTSTAT:
        return "sortstat";
    default:
        return "other";
    }
}

char *graph_ops_json(void)
{
    json_t *ops = json_array();
    if (!ops) return NULL;
    for (int i = 0; i < OP_COUNT; i++) {
        op_kind_t k = op_kind((op_t)i);
        if (k == OPK_SOURCE) continue;
        const char *name = op_name((op_t)i);
        const char *inputs;
        const char *const *params;
        const char *kname = kind_default(k, &inputs, &params);
        for (size_t j = 0; j < sizeof PARAMS / sizeof PARAMS[0]; j++)
            if (strcmp(PARAMS[j].name, name) == 0) {
                inputs = PARAMS[j].inputs;
                params = PARAMS[j].params;
                break;
            }
        json_t *p = json_array();
        for (int j = 0; p && params[j]; j++)
            json_array_append_new(p, json_string(params[j]));
        json_t *o = json_pack("{s:s, s:s, s:s, s:o}", "name", name, "kind", kname, "inputs", inputs,
                              "params", p ? p : json_array());
        /* multiout: ops with several results say how many ("outputs") */
        const char *outs = graph_multi_outputs((op_t)i);
        /* a fixed count is a number, a rule ("sections", ...) a string */
        bool num = outs && outs[0] && strspn(outs, "0123456789") == strlen(outs);
        if (o && outs &&
            json_object_set_new(o, "outputs", num ? json_integer(atoi(outs)) : json_string(outs))) {
            json_decref(o);
            o = NULL;
        }
        if (!o || json_array_append_new(ops, o)) {
            json_decref(ops);
            return NULL;
        }
    }
    json_t *doc = json_pack("{s:i, s:o}", "version", 1, "ops", ops);
    if (!doc) return NULL;
    char *s = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return s;
}
