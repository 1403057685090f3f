/* dfstr.h: pandas' str accessor methods on a Series of strings
 * (dataframe.str.*: lower ... swapcase, casefold, len, contains, startswith,
 * endswith, match, fullmatch, count, find, rfind, slice, get, strip,
 * lstrip, rstrip, split with get, replace, zfill, pad, center, ljust,
 * rjust, repeat, isalpha ... istitle) as a row-wise job kernel, as Python's
 * str methods compute them. Lengths and positions count code points
 * (UTF-8); cases and classes come from Python's Unicode tables
 * (unitab.h); regular expressions are POSIX extended ones (regcomp, the C
 * library's engine). Missing values stay missing (len, find and count then
 * give float64, the predicates object bool with missing values), as in
 * pandas. */
#ifndef MARS_DF_DFSTR_H
#define MARS_DF_DFSTR_H

#include "dfgraph.h"

/* Compiles d->pat for contains/replace with regex (d->re, freed by
 * df_str_free); 0, or -1 with regcomp's message. */
int df_str_compile(df_node_t *d, char *err, size_t errlen);
/* str.extract's pattern: Python's named groups (?P<name>...) and
 * non-capturing ones (?:...) written as POSIX groups into d->pat, the
 * POSIX groups' output columns in d->ex_map (-1: not captured), the
 * names (NULL: unnamed) into names[0..*nout) (at most 64); 0, or -1 with
 * a message. */
int df_str_extract_pattern(const char *pat, df_node_t *d, char **names, int *nout, char *err,
                           size_t errlen);
void df_str_free(df_node_t *d);
/* the dataframe.str.* ops */
static inline bool df_op_is_str(op_t op)
{
    return (op >= OP_DF_STR_LOWER && op <= OP_DF_STR_REPLACE) ||
           (op >= OP_DF_STR_LSTRIP && op <= OP_DF_STR_GET) || op == OP_DF_STR_EXTRACT;
}
/* code points of a NUL-terminated UTF-8 string */
int64_t df_str_cps(const char *s);
int df_str_map(const df_node_t *d, op_t op, const frame_t *in, frame_t *out, char *err,
               size_t errlen);

#endif
