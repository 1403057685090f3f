/* ops.h: the ops of the graph format (shared/spec/graph-format.md): their
 * names and kinds. Kernels use op_t without the document model (graph.h). */
#ifndef MARS_OPS_H
#define MARS_OPS_H

#include <stdbool.h>

/* X(ID, "name", kind): every op of the contract's tensor part. */
#define GRAPH_OPS(X)                                                                               \
    X(ONES, "ones", OPK_CREATE)                                                                    \
    X(ZEROS, "zeros", OPK_CREATE)                                                                  \
    X(FULL, "full", OPK_CREATE)                                                                    \
    X(ARANGE, "arange", OPK_CREATE)                                                                \
    X(LINSPACE, "linspace", OPK_CREATE)                                                            \
    X(EYE, "eye", OPK_CREATE)                                                                      \
    X(ARRAY, "array", OPK_CREATE)                                                                  \
    X(EMPTY, "empty", OPK_CREATE)                                                                  \
    X(IDENTITY, "identity", OPK_CREATE)                                                            \
    X(ONES_LIKE, "ones_like", OPK_CREATE)                                                          \
    X(ZEROS_LIKE, "zeros_like", OPK_CREATE)                                                        \
    X(EMPTY_LIKE, "empty_like", OPK_CREATE)                                                        \
    X(FULL_LIKE, "full_like", OPK_CREATE)                                                          \
    X(RAND, "random.rand", OPK_RANDOM)                                                             \
    X(RANDN, "random.randn", OPK_RANDOM)                                                           \
    X(RANDINT, "random.randint", OPK_RANDOM)                                                       \
    X(UNIFORM, "random.uniform", OPK_RANDOM)                                                       \
    X(NORMAL, "random.normal", OPK_RANDOM)                                                         \
    X(RANDOM_SAMPLE, "random.random", OPK_RANDOM)                                                  \
    X(EXPONENTIAL, "random.exponential", OPK_RANDOM)                                               \
    X(POISSON, "random.poisson", OPK_RANDOM)                                                       \
    X(BINOMIAL, "random.binomial", OPK_RANDOM)                                                     \
    X(GAMMA, "random.gamma", OPK_RANDOM)                                                           \
    X(BETA, "random.beta", OPK_RANDOM)                                                             \
    X(LOGNORMAL, "random.lognormal", OPK_RANDOM)                                                   \
    X(STANDARD_T, "random.standard_t", OPK_RANDOM)                                                 \
    X(CHISQUARE, "random.chisquare", OPK_RANDOM)                                                   \
    X(CHOICE, "random.choice", OPK_RANDOM)                                                         \
    X(PERMUTATION, "random.permutation", OPK_RANDOM)                                               \
    X(MULTINOMIAL, "random.multinomial", OPK_RANDOM)                                               \
    X(MULTIVARIATE_NORMAL, "random.multivariate_normal", OPK_RANDOM)                               \
    X(ADD, "add", OPK_BINARY)                                                                      \
    X(SUBTRACT, "subtract", OPK_BINARY)                                                            \
    X(MULTIPLY, "multiply", OPK_BINARY)                                                            \
    X(DIVIDE, "divide", OPK_BINARY)                                                                \
    X(FLOOR_DIVIDE, "floor_divide", OPK_BINARY)                                                    \
    X(MOD, "mod", OPK_BINARY)                                                                      \
    X(POWER, "power", OPK_BINARY)                                                                  \
    X(MAXIMUM, "maximum", OPK_BINARY)                                                              \
    X(MINIMUM, "minimum", OPK_BINARY)                                                              \
    X(EQUAL, "equal", OPK_BINARY)                                                                  \
    X(NOT_EQUAL, "not_equal", OPK_BINARY)                                                          \
    X(LESS, "less", OPK_BINARY)                                                                    \
    X(LESS_EQUAL, "less_equal", OPK_BINARY)                                                        \
    X(GREATER, "greater", OPK_BINARY)                                                              \
    X(GREATER_EQUAL, "greater_equal", OPK_BINARY)                                                  \
    X(LOGICAL_AND, "logical_and", OPK_BINARY)                                                      \
    X(LOGICAL_OR, "logical_or", OPK_BINARY)                                                        \
    X(ARCTAN2, "arctan2", OPK_BINARY)                                                              \
    X(HYPOT, "hypot", OPK_BINARY)                                                                  \
    X(FMOD, "fmod", OPK_BINARY)                                                                    \
    X(REMAINDER, "remainder", OPK_BINARY)                                                          \
    X(FMAX, "fmax", OPK_BINARY)                                                                    \
    X(FMIN, "fmin", OPK_BINARY)                                                                    \
    X(COPYSIGN, "copysign", OPK_BINARY)                                                            \
    X(LOGICAL_XOR, "logical_xor", OPK_BINARY)                                                      \
    X(BITWISE_AND, "bitwise_and", OPK_BINARY)                                                      \
    X(BITWISE_OR, "bitwise_or", OPK_BINARY)                                                        \
    X(BITWISE_XOR, "bitwise_xor", OPK_BINARY)                                                      \
    X(LEFT_SHIFT, "left_shift", OPK_BINARY)                                                        \
    X(RIGHT_SHIFT, "right_shift", OPK_BINARY)                                                      \
    X(FLOAT_POWER, "float_power", OPK_BINARY)                                                      \
    X(HEAVISIDE, "heaviside", OPK_BINARY)                                                          \
    X(ISCLOSE, "isclose", OPK_BINARY)                                                              \
    X(NEGATIVE, "negative", OPK_UNARY)                                                             \
    X(ABS, "abs", OPK_UNARY)                                                                       \
    X(SQRT, "sqrt", OPK_UNARY)                                                                     \
    X(EXP, "exp", OPK_UNARY)                                                                       \
    X(LOG, "log", OPK_UNARY)                                                                       \
    X(LOG1P, "log1p", OPK_UNARY)                                                                   \
    X(EXPM1, "expm1", OPK_UNARY)                                                                   \
    X(SIN, "sin", OPK_UNARY)                                                                       \
    X(COS, "cos", OPK_UNARY)                                                                       \
    X(TAN, "tan", OPK_UNARY)                                                                       \
    X(TANH, "tanh", OPK_UNARY)                                                                     \
    X(SQUARE, "square", OPK_UNARY)                                                                 \
    X(SIGN, "sign", OPK_UNARY)                                                                     \
    X(FLOOR, "floor", OPK_UNARY)                                                                   \
    X(CEIL, "ceil", OPK_UNARY)                                                                     \
    X(LOGICAL_NOT, "logical_not", OPK_UNARY)                                                       \
    X(ISNAN, "isnan", OPK_UNARY)                                                                   \
    X(ISFINITE, "isfinite", OPK_UNARY)                                                             \
    X(LOG2, "log2", OPK_UNARY)                                                                     \
    X(LOG10, "log10", OPK_UNARY)                                                                   \
    X(EXP2, "exp2", OPK_UNARY)                                                                     \
    X(CBRT, "cbrt", OPK_UNARY)                                                                     \
    X(RECIPROCAL, "reciprocal", OPK_UNARY)                                                         \
    X(POSITIVE, "positive", OPK_UNARY)                                                             \
    X(ARCSIN, "arcsin", OPK_UNARY)                                                                 \
    X(ARCCOS, "arccos", OPK_UNARY)                                                                 \
    X(ARCTAN, "arctan", OPK_UNARY)                                                                 \
    X(SINH, "sinh", OPK_UNARY)                                                                     \
    X(COSH, "cosh", OPK_UNARY)                                                                     \
    X(ARCSINH, "arcsinh", OPK_UNARY)                                                               \
    X(ARCCOSH, "arccosh", OPK_UNARY)                                                               \
    X(ARCTANH, "arctanh", OPK_UNARY)                                                               \
    X(DEGREES, "degrees", OPK_UNARY)                                                               \
    X(RADIANS, "radians", OPK_UNARY)                                                               \
    X(RINT, "rint", OPK_UNARY)                                                                     \
    X(TRUNC, "trunc", OPK_UNARY)                                                                   \
    X(FIX, "fix", OPK_UNARY)                                                                       \
    X(ISINF, "isinf", OPK_UNARY)                                                                   \
    X(ISNEGINF, "isneginf", OPK_UNARY)                                                             \
    X(ISPOSINF, "isposinf", OPK_UNARY)                                                             \
    X(SIGNBIT, "signbit", OPK_UNARY)                                                               \
    X(INVERT, "invert", OPK_UNARY)                                                                 \
    X(ROUND, "round", OPK_UNARY)                                                                   \
    X(AROUND, "around", OPK_UNARY)                                                                 \
    X(WHERE, "where", OPK_WHERE)                                                                   \
    X(CLIP, "clip", OPK_CLIP)                                                                      \
    X(ASTYPE, "astype", OPK_ASTYPE)                                                                \
    X(SUM, "sum", OPK_REDUCE)                                                                      \
    X(PROD, "prod", OPK_REDUCE)                                                                    \
    X(MEAN, "mean", OPK_REDUCE)                                                                    \
    X(MIN, "min", OPK_REDUCE)                                                                      \
    X(MAX, "max", OPK_REDUCE)                                                                      \
    X(STD, "std", OPK_REDUCE)                                                                      \
    X(VAR, "var", OPK_REDUCE)                                                                      \
    X(ALL, "all", OPK_REDUCE)                                                                      \
    X(ANY, "any", OPK_REDUCE)                                                                      \
    X(NANSUM, "nansum", OPK_REDUCE)                                                                \
    X(NANPROD, "nanprod", OPK_REDUCE)                                                              \
    X(NANMEAN, "nanmean", OPK_REDUCE)                                                              \
    X(NANMIN, "nanmin", OPK_REDUCE)                                                                \
    X(NANMAX, "nanmax", OPK_REDUCE)                                                                \
    X(NANSTD, "nanstd", OPK_REDUCE)                                                                \
    X(NANVAR, "nanvar", OPK_REDUCE)                                                                \
    X(COUNT_NONZERO, "count_nonzero", OPK_REDUCE)                                                  \
    X(PTP, "ptp", OPK_REDUCE)                                                                      \
    X(ARGMIN, "argmin", OPK_ARGREDUCE)                                                             \
    X(ARGMAX, "argmax", OPK_ARGREDUCE)                                                             \
    X(NANARGMIN, "nanargmin", OPK_ARGREDUCE)                                                       \
    X(NANARGMAX, "nanargmax", OPK_ARGREDUCE)                                                       \
    X(CUMSUM, "cumsum", OPK_SCAN)                                                                  \
    X(CUMPROD, "cumprod", OPK_SCAN)                                                                \
    X(NANCUMSUM, "nancumsum", OPK_SCAN)                                                            \
    X(NANCUMPROD, "nancumprod", OPK_SCAN)                                                          \
    X(DOT, "dot", OPK_LINALG)                                                                      \
    X(MATMUL, "matmul", OPK_LINALG)                                                                \
    X(INNER, "inner", OPK_LINALG)                                                                  \
    X(OUTER, "outer", OPK_LINALG)                                                                  \
    X(TENSORDOT, "tensordot", OPK_LINALG)                                                          \
    X(TRANSPOSE, "transpose", OPK_SHAPE)                                                           \
    X(RESHAPE, "reshape", OPK_SHAPE)                                                               \
    X(RAVEL, "ravel", OPK_SHAPE)                                                                   \
    X(SQUEEZE, "squeeze", OPK_SHAPE)                                                               \
    X(EXPAND_DIMS, "expand_dims", OPK_SHAPE)                                                       \
    X(CONCATENATE, "concatenate", OPK_SHAPE)                                                       \
    X(STACK, "stack", OPK_SHAPE)                                                                   \
    X(RECHUNK, "rechunk", OPK_SHAPE)                                                               \
    X(GETITEM, "getitem", OPK_SHAPE)                                                               \
    X(SWAPAXES, "swapaxes", OPK_SHAPE)                                                             \
    X(MOVEAXIS, "moveaxis", OPK_SHAPE)                                                             \
    X(FLIP, "flip", OPK_SHAPE)                                                                     \
    X(FLIPLR, "fliplr", OPK_SHAPE)                                                                 \
    X(FLIPUD, "flipud", OPK_SHAPE)                                                                 \
    X(ATLEAST_1D, "atleast_1d", OPK_SHAPE)                                                         \
    X(ATLEAST_2D, "atleast_2d", OPK_SHAPE)                                                         \
    X(ATLEAST_3D, "atleast_3d", OPK_SHAPE)                                                         \
    X(DIFF, "diff", OPK_SHAPE)                                                                     \
    X(EDIFF1D, "ediff1d", OPK_SHAPE)                                                               \
    X(DF_FROM_TENSOR, "dataframe.from_tensor", OPK_DF)                                             \
    X(DF_READ_CSV, "dataframe.read_csv", OPK_DF)                                                   \
    X(DF_GETITEM, "dataframe.getitem", OPK_DF)                                                     \
    X(DF_FILTER, "dataframe.filter", OPK_DF)                                                       \
    X(DF_ASSIGN, "dataframe.assign", OPK_DF)                                                       \
    X(DF_SUM, "dataframe.sum", OPK_DF)                                                             \
    X(DF_MEAN, "dataframe.mean", OPK_DF)                                                           \
    X(DF_MIN, "dataframe.min", OPK_DF)                                                             \
    X(DF_MAX, "dataframe.max", OPK_DF)                                                             \
    X(DF_COUNT, "dataframe.count", OPK_DF)                                                         \
    X(DF_PROD, "dataframe.prod", OPK_DF)                                                           \
    X(DF_STD, "dataframe.std", OPK_DF)                                                             \
    X(DF_VAR, "dataframe.var", OPK_DF)                                                             \
    X(DF_ANY, "dataframe.any", OPK_DF)                                                             \
    X(DF_EWM, "dataframe.ewm", OPK_DF)                                                             \
    X(DF_EXPANDING, "dataframe.expanding", OPK_DF)                                                 \
    X(DF_ALL, "dataframe.all", OPK_DF)                                                             \
    X(DF_NUNIQUE, "dataframe.nunique", OPK_DF)                                                     \
    X(DF_DESCRIBE, "dataframe.describe", OPK_DF)                                                   \
    X(DF_GROUPBY_AGG, "dataframe.groupby_agg", OPK_DF)                                             \
    X(DF_SORT_VALUES, "dataframe.sort_values", OPK_DF)                                             \
    X(DF_MERGE, "dataframe.merge", OPK_DF)                                                         \
    X(DF_HEAD, "dataframe.head", OPK_DF)                                                           \
    X(DF_TO_TENSOR, "dataframe.to_tensor", OPK_DF)                                                 \
    X(DF_FILLNA, "dataframe.fillna", OPK_DF)                                                       \
    X(DF_DROPNA, "dataframe.dropna", OPK_DF)                                                       \
    X(DF_ISNA, "dataframe.isna", OPK_DF)                                                           \
    X(DF_NOTNA, "dataframe.notna", OPK_DF)                                                         \
    X(DF_ISIN, "dataframe.isin", OPK_DF)                                                           \
    X(DF_ASTYPE, "dataframe.astype", OPK_DF)                                                       \
    X(DF_RENAME, "dataframe.rename", OPK_DF)                                                       \
    X(DF_DROP, "dataframe.drop", OPK_DF)                                                           \
    X(DF_REPLACE, "dataframe.replace", OPK_DF)                                                     \
    X(DF_CLIP, "dataframe.clip", OPK_DF)                                                           \
    X(DF_ABS, "dataframe.abs", OPK_DF)                                                             \
    X(DF_ROUND, "dataframe.round", OPK_DF)                                                         \
    X(DF_SET_INDEX, "dataframe.set_index", OPK_DF)                                                 \
    X(DF_RESET_INDEX, "dataframe.reset_index", OPK_DF)                                             \
    X(DF_ILOC, "dataframe.iloc", OPK_DF)                                                           \
    X(DF_LOC, "dataframe.loc", OPK_DF)                                                             \
    X(DF_TAIL, "dataframe.tail", OPK_DF)                                                           \
    X(DF_NLARGEST, "dataframe.nlargest", OPK_DF)                                                   \
    X(DF_NSMALLEST, "dataframe.nsmallest", OPK_DF)                                                 \
    X(DF_SORT_INDEX, "dataframe.sort_index", OPK_DF)                                               \
    X(DF_SAMPLE, "dataframe.sample", OPK_DF)                                                       \
    X(DF_DROP_DUPLICATES, "dataframe.drop_duplicates", OPK_DF)                                     \
    X(DF_DUPLICATED, "dataframe.duplicated", OPK_DF)                                               \
    X(DF_CUMSUM, "dataframe.cumsum", OPK_DF)                                                       \
    X(DF_CUMPROD, "dataframe.cumprod", OPK_DF)                                                     \
    X(DF_CUMMAX, "dataframe.cummax", OPK_DF)                                                       \
    X(DF_CUMMIN, "dataframe.cummin", OPK_DF)                                                       \
    X(DF_DIFF, "dataframe.diff", OPK_DF)                                                           \
    X(DF_SHIFT, "dataframe.shift", OPK_DF)                                                         \
    X(DF_PCT_CHANGE, "dataframe.pct_change", OPK_DF)                                               \
    X(DF_ROLLING, "dataframe.rolling", OPK_DF)                                                     \
    X(DF_STR_LOWER, "dataframe.str.lower", OPK_DF)                                                 \
    X(DF_STR_UPPER, "dataframe.str.upper", OPK_DF)                                                 \
    X(DF_STR_LEN, "dataframe.str.len", OPK_DF)                                                     \
    X(DF_STR_CONTAINS, "dataframe.str.contains", OPK_DF)                                           \
    X(DF_STR_STARTSWITH, "dataframe.str.startswith", OPK_DF)                                       \
    X(DF_STR_ENDSWITH, "dataframe.str.endswith", OPK_DF)                                           \
    X(DF_STR_SLICE, "dataframe.str.slice", OPK_DF)                                                 \
    X(DF_STR_STRIP, "dataframe.str.strip", OPK_DF)                                                 \
    X(DF_STR_SPLIT, "dataframe.str.split", OPK_DF)                                                 \
    X(DF_STR_REPLACE, "dataframe.str.replace", OPK_DF)                                             \
    X(DF_MEDIAN, "dataframe.median", OPK_DF)                                                       \
    X(DF_QUANTILE, "dataframe.quantile", OPK_DF)                                                   \
    X(DF_SKEW, "dataframe.skew", OPK_DF)                                                           \
    X(DF_KURT, "dataframe.kurt", OPK_DF)                                                           \
    X(DF_CORR, "dataframe.corr", OPK_DF)                                                           \
    X(DF_COV, "dataframe.cov", OPK_DF)                                                             \
    X(DF_VALUE_COUNTS, "dataframe.value_counts", OPK_DF)                                           \
    X(DF_RANK, "dataframe.rank", OPK_DF)                                                           \
    X(DF_CONCAT, "dataframe.concat", OPK_DF)                                                       \
    X(DF_QUERY, "dataframe.query", OPK_DF)                                                         \
    X(DF_EVAL, "dataframe.eval", OPK_DF)                                                           \
    X(DF_MELT, "dataframe.melt", OPK_DF)                                                           \
    /* linalg: single-result linear algebra (graph_la.h) */                                        \
    X(LA_CHOLESKY, "linalg.cholesky", OPK_LINALG)                                                  \
    X(LA_SOLVE, "linalg.solve", OPK_LINALG)                                                        \
    X(LA_INV, "linalg.inv", OPK_LINALG)                                                            \
    X(LA_DET, "linalg.det", OPK_LINALG)                                                            \
    X(LA_QR, "linalg.qr", OPK_LINALG)                                                              \
    X(LA_SVD, "linalg.svd", OPK_LINALG)                                                            \
    X(LA_EIGH, "linalg.eigh", OPK_LINALG)                                                          \
    X(LA_SLOGDET, "linalg.slogdet", OPK_LINALG)                                                    \
    X(LA_LSTSQ, "linalg.lstsq", OPK_LINALG)                                                        \
    X(LA_NORM, "linalg.norm", OPK_LINALG)                                                          \
    X(LA_MATRIX_RANK, "linalg.matrix_rank", OPK_LINALG)                                            \
    X(TRACE, "trace", OPK_LINALG)                                                                  \
    X(DIAGONAL, "diagonal", OPK_LINALG)                                                            \
    X(VDOT, "vdot", OPK_LINALG)                                                                    \
    X(EINSUM, "einsum", OPK_LINALG)                                                                \
    X(DIAG, "diag", OPK_LINALG)                                                                    \
    X(TRIL, "tril", OPK_LINALG)                                                                    \
    X(TRIU, "triu", OPK_LINALG)                                                                    \
    /* df3: joins, pivot_table, groupby transforms, dates, I/O */                                  \
    X(DF_JOIN, "dataframe.join", OPK_DF)                                                           \
    X(DF_PIVOT_TABLE, "dataframe.pivot_table", OPK_DF)                                             \
    X(DF_GROUPBY_SIZE, "dataframe.groupby_size", OPK_DF)                                           \
    X(DF_GROUPBY_QUANTILE, "dataframe.groupby_quantile", OPK_DF)                                   \
    X(DF_GROUPBY_TRANSFORM, "dataframe.groupby_transform", OPK_DF)                                 \
    X(DF_GROUPBY_HEAD, "dataframe.groupby_head", OPK_DF)                                           \
    X(DF_GROUPBY_TAIL, "dataframe.groupby_tail", OPK_DF)                                           \
    X(DF_READ_JSON, "dataframe.read_json", OPK_DF)                                                 \
    X(DF_DT_YEAR, "dataframe.dt.year", OPK_DF)                                                     \
    X(DF_DT_MONTH, "dataframe.dt.month", OPK_DF)                                                   \
    X(DF_DT_DAY, "dataframe.dt.day", OPK_DF)                                                       \
    X(DF_DT_HOUR, "dataframe.dt.hour", OPK_DF)                                                     \
    X(DF_DT_MINUTE, "dataframe.dt.minute", OPK_DF)                                                 \
    X(DF_DT_SECOND, "dataframe.dt.second", OPK_DF)                                                 \
    X(DF_DT_DAYOFWEEK, "dataframe.dt.dayofweek", OPK_DF)                                           \
    X(DF_DT_DAYOFYEAR, "dataframe.dt.dayofyear", OPK_DF)                                           \
    X(DF_DT_QUARTER, "dataframe.dt.quarter", OPK_DF)                                               \
    X(DF_DT_WEEK, "dataframe.dt.week", OPK_DF)                                                     \
    X(DF_DT_ISOCALENDAR, "dataframe.dt.isocalendar", OPK_DF)                                       \
    X(DF_DT_FLOOR, "dataframe.dt.floor", OPK_DF)                                                   \
    X(DF_DT_CEIL, "dataframe.dt.ceil", OPK_DF)                                                     \
    X(DF_DT_ROUND, "dataframe.dt.round", OPK_DF)                                                   \
    X(DF_DT_NORMALIZE, "dataframe.dt.normalize", OPK_DF)                                           \
    X(DF_DT_DAY_NAME, "dataframe.dt.day_name", OPK_DF)                                             \
    X(DF_DT_MONTH_NAME, "dataframe.dt.month_name", OPK_DF)                                         \
    X(DF_DT_STRFTIME, "dataframe.dt.strftime", OPK_DF)                                             \
    X(DF_DT_DAYS_IN_MONTH, "dataframe.dt.days_in_month", OPK_DF)                                   \
    X(DF_DT_IS_MONTH_START, "dataframe.dt.is_month_start", OPK_DF)                                 \
    X(DF_DT_IS_MONTH_END, "dataframe.dt.is_month_end", OPK_DF)                                     \
    X(DF_DT_IS_QUARTER_START, "dataframe.dt.is_quarter_start", OPK_DF)                             \
    X(DF_DT_IS_QUARTER_END, "dataframe.dt.is_quarter_end", OPK_DF)                                 \
    X(DF_DT_IS_YEAR_START, "dataframe.dt.is_year_start", OPK_DF)                                   \
    X(DF_DT_IS_YEAR_END, "dataframe.dt.is_year_end", OPK_DF)                                       \
    X(DF_DT_IS_LEAP_YEAR, "dataframe.dt.is_leap_year", OPK_DF)                                     \
    X(DF_DT_DAYS, "dataframe.dt.days", OPK_DF)                                                     \
    X(DF_DT_SECONDS, "dataframe.dt.seconds", OPK_DF)                                               \
    X(DF_DT_MICROSECONDS, "dataframe.dt.microseconds", OPK_DF)                                     \
    X(DF_DT_NANOSECONDS, "dataframe.dt.nanoseconds", OPK_DF)                                       \
    X(DF_DT_TOTAL_SECONDS, "dataframe.dt.total_seconds", OPK_DF)                                   \
    X(DF_DT_DATE, "dataframe.dt.date", OPK_DF)                                                     \
    X(DF_IDXMAX, "dataframe.idxmax", OPK_DF)                                                       \
    X(DF_IDXMIN, "dataframe.idxmin", OPK_DF)                                                       \
    X(DF_STR_LSTRIP, "dataframe.str.lstrip", OPK_DF)                                               \
    X(DF_STR_RSTRIP, "dataframe.str.rstrip", OPK_DF)                                               \
    X(DF_STR_TITLE, "dataframe.str.title", OPK_DF)                                                 \
    X(DF_STR_CAPITALIZE, "dataframe.str.capitalize", OPK_DF)                                       \
    X(DF_STR_SWAPCASE, "dataframe.str.swapcase", OPK_DF)                                           \
    X(DF_STR_CASEFOLD, "dataframe.str.casefold", OPK_DF)                                           \
    X(DF_STR_ISALPHA, "dataframe.str.isalpha", OPK_DF)                                             \
    X(DF_STR_ISALNUM, "dataframe.str.isalnum", OPK_DF)                                             \
    X(DF_STR_ISDIGIT, "dataframe.str.isdigit", OPK_DF)                                             \
    X(DF_STR_ISDECIMAL, "dataframe.str.isdecimal", OPK_DF)                                         \
    X(DF_STR_ISNUMERIC, "dataframe.str.isnumeric", OPK_DF)                                         \
    X(DF_STR_ISSPACE, "dataframe.str.isspace", OPK_DF)                                             \
    X(DF_STR_ISLOWER, "dataframe.str.islower", OPK_DF)                                             \
    X(DF_STR_ISUPPER, "dataframe.str.isupper", OPK_DF)                                             \
    X(DF_STR_ISTITLE, "dataframe.str.istitle", OPK_DF)                                             \
    X(DF_STR_ZFILL, "dataframe.str.zfill", OPK_DF)                                                 \
    X(DF_STR_PAD, "dataframe.str.pad", OPK_DF)                                                     \
    X(DF_STR_CENTER, "dataframe.str.center", OPK_DF)                                               \
    X(DF_STR_LJUST, "dataframe.str.ljust", OPK_DF)                                                 \
    X(DF_STR_RJUST, "dataframe.str.rjust", OPK_DF)                                                 \
    X(DF_STR_FIND, "dataframe.str.find", OPK_DF)                                                   \
    X(DF_STR_RFIND, "dataframe.str.rfind", OPK_DF)                                                 \
    X(DF_STR_COUNT, "dataframe.str.count", OPK_DF)                                                 \
    X(DF_STR_MATCH, "dataframe.str.match", OPK_DF)                                                 \
    X(DF_STR_FULLMATCH, "dataframe.str.fullmatch", OPK_DF)                                         \
    X(DF_STR_REPEAT, "dataframe.str.repeat", OPK_DF)                                               \
    X(DF_STR_GET, "dataframe.str.get", OPK_DF)                                                     \
    X(DF_TO_DATETIME, "dataframe.to_datetime", OPK_DF)                                             \
    X(DF_TO_TIMEDELTA, "dataframe.to_timedelta", OPK_DF)                                           \
    X(DF_RESAMPLE, "dataframe.resample", OPK_DF)                                                   \
    X(DF_INTERPOLATE, "dataframe.interpolate", OPK_DF)                                             \
    X(DF_MERGE_ASOF, "dataframe.merge_asof", OPK_DF)                                               \
    X(DF_CUT, "dataframe.cut", OPK_DF)                                                             \
    X(DF_QCUT, "dataframe.qcut", OPK_DF)                                                           \
    X(DF_MAP, "dataframe.map", OPK_DF)                                                             \
    X(DF_GET_DUMMIES, "dataframe.get_dummies", OPK_DF)                                             \
    X(DF_MODE, "dataframe.mode", OPK_DF)                                                           \
    X(DF_PIVOT, "dataframe.pivot", OPK_DF)                                                         \
    X(DF_UNSTACK, "dataframe.unstack", OPK_DF)                                                     \
    X(DF_STR_EXTRACT, "dataframe.str.extract", OPK_DF)                                             \
    X(DF_BETWEEN_TIME, "dataframe.between_time", OPK_DF)                                           \
    X(DF_AT_TIME, "dataframe.at_time", OPK_DF)                                                     \
    /* multiout: ops with several results ("outputs"; engine/graph_multi.c) */                     \
    X(SPLIT, "split", OPK_SHAPE)                                                                   \
    X(ARRAY_SPLIT, "array_split", OPK_SHAPE)                                                       \
    X(HSPLIT, "hsplit", OPK_SHAPE)                                                                 \
    X(VSPLIT, "vsplit", OPK_SHAPE)                                                                 \
    X(MESHGRID, "meshgrid", OPK_SHAPE)                                                             \
    X(NONZERO, "nonzero", OPK_SHAPE)                                                               \
    X(UNIQUE, "unique", OPK_SHAPE)                                                                 \
    X(HISTOGRAM, "histogram", OPK_SHAPE)                                                           \
    /* fancy: advanced indexing (engine/fancy.h) */                                                \
    X(SETITEM, "setitem", OPK_SHAPE)                                                               \
    X(TAKE, "take", OPK_SHAPE)                                                                     \
    X(COMPRESS, "compress", OPK_SHAPE)                                                             \
    X(ARGWHERE, "argwhere", OPK_SHAPE)                                                             \
    X(FLATNONZERO, "flatnonzero", OPK_SHAPE)                                                       \
    X(EXTRACT, "extract", OPK_SHAPE)                                                               \
    /* sortstat: sorting and searching, statistics (engine/sortstat.h) */                          \
    X(SORT, "sort", OPK_SORTSTAT)                                                                  \
    X(ARGSORT, "argsort", OPK_SORTSTAT)                                                            \
    X(PARTITION, "partition", OPK_SORTSTAT)                                                        \
    X(ARGPARTITION, "argpartition", OPK_SORTSTAT)                                                  \
    X(TOPK, "topk", OPK_SORTSTAT)                                                                  \
    X(SEARCHSORTED, "searchsorted", OPK_SORTSTAT)                                                  \
    X(ISIN, "isin", OPK_SORTSTAT)                                                                  \
    X(IN1D, "in1d", OPK_SORTSTAT)                                                                  \
    X(PERCENTILE, "percentile", OPK_SORTSTAT)                                                      \
    X(QUANTILE, "quantile", OPK_SORTSTAT)                                                          \
    X(MEDIAN, "median", OPK_SORTSTAT)                                                              \
    X(NANPERCENTILE, "nanpercentile", OPK_SORTSTAT)                                                \
    X(NANQUANTILE, "nanquantile", OPK_SORTSTAT)                                                    \
    X(NANMEDIAN, "nanmedian", OPK_SORTSTAT)                                                        \
    X(AVERAGE, "average", OPK_SORTSTAT)                                                            \
    X(DIGITIZE, "digitize", OPK_SORTSTAT)                                                          \
    X(COV, "cov", OPK_SORTSTAT)                                                                    \
    X(CORRCOEF, "corrcoef", OPK_SORTSTAT)                                                          \
    X(ALLCLOSE, "allclose", OPK_SORTSTAT)                                                          \
    /* joining: numpy's stacks, concatenations of their inputs lifted by                           \
     * atleast_1d/2d/3d (graph_stack_lift) */                                                      \
    X(HSTACK, "hstack", OPK_SHAPE)                                                                 \
    X(VSTACK, "vstack", OPK_SHAPE)                                                                 \
    X(DSTACK, "dstack", OPK_SHAPE)                                                                 \
    X(COLUMN_STACK, "column_stack", OPK_SHAPE)                                                     \
    /* setops: set operations and counting (engine/setops.h) */                                    \
    X(UNION1D, "union1d", OPK_SHAPE)                                                               \
    X(INTERSECT1D, "intersect1d", OPK_SHAPE)                                                       \
    X(SETDIFF1D, "setdiff1d", OPK_SHAPE)                                                           \
    X(BINCOUNT, "bincount", OPK_SHAPE)                                                             \
    /* shapes: creation, tiling and padding (engine/shapes2.h) */                                  \
    X(LOGSPACE, "logspace", OPK_CREATE)                                                            \
    X(GEOMSPACE, "geomspace", OPK_CREATE)                                                          \
    X(INDICES, "indices", OPK_CREATE)                                                              \
    X(ROLL, "roll", OPK_SHAPE)                                                                     \
    X(BROADCAST_TO, "broadcast_to", OPK_SHAPE)                                                     \
    X(TILE, "tile", OPK_SHAPE)                                                                     \
    X(REPEAT, "repeat", OPK_SHAPE)                                                                 \
    X(PAD, "pad", OPK_SHAPE)                                                                       \
    X(SESSION_TENSOR, "<session tensor>", OPK_SOURCE)

typedef enum {
    OPK_CREATE,
    OPK_RANDOM,
    OPK_UNARY,
    OPK_BINARY,
    OPK_WHERE,
    OPK_CLIP,
    OPK_ASTYPE,
    OPK_REDUCE,
    OPK_ARGREDUCE,
    OPK_SCAN,
    OPK_LINALG,
    OPK_SHAPE,
    OPK_SOURCE,   /* a tensor that exists already (cluster sessions); no document names this op */
    OPK_DF,       /* dataframe.*: see df/dfgraph.h */
    OPK_SORTSTAT, /* sortstat: sorting, searching and statistics (sortstat.h) */
} op_kind_t;

#define GRAPH_OP_ENUM(id, name, kind) OP_##id,
typedef enum { GRAPH_OPS(GRAPH_OP_ENUM) OP_COUNT } op_t;
#undef GRAPH_OP_ENUM

const char *op_name(op_t op);
op_kind_t op_kind(op_t op);
int op_parse(const char *name, op_t *out); /* 0, or -1 if unknown */
/* The plain reduction a nan-reduction (nansum ... nancumprod) is on data
 * without NaN (integers and bools); op itself for every other op. */
op_t op_nan_base(op_t op);
/* *_like creation ops: their one input gives the shape and dtype */
static inline bool op_is_like(op_t op)
{
    return op == OP_ONES_LIKE || op == OP_ZEROS_LIKE || op == OP_EMPTY_LIKE || op == OP_FULL_LIKE;
}
/* hstack, vstack, dstack, column_stack */
static inline bool op_is_stack_family(op_t op)
{
    return op == OP_HSTACK || op == OP_VSTACK || op == OP_DSTACK || op == OP_COLUMN_STACK;
}
static inline bool op_is_nan_reduction(op_t op)
{
    return op_nan_base(op) != op;
}
/* equal, not_equal, less, less_equal, greater, greater_equal */
static inline bool op_is_comparison(op_t op)
{
    return op == OP_EQUAL || op == OP_NOT_EQUAL || op == OP_LESS || op == OP_LESS_EQUAL ||
           op == OP_GREATER || op == OP_GREATER_EQUAL;
}
static inline bool op_is_elementwise(op_t op)
{
    op_kind_t k = op_kind(op);
    return k == OPK_UNARY || k == OPK_BINARY || k == OPK_WHERE || k == OPK_CLIP || k == OPK_ASTYPE;
}

#endif
