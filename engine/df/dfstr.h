/* dfstr.h: pandas' str accessor methods on a Series of strings
 * (dataframe.str.lower, upper, len, contains, startswith, endswith,
 * slice, strip, split with get, replace) as a row-wise job kernel.
 * Lengths and slices count code points (UTF-8); lower and upper map ASCII
 * and Latin-1 letters (other scripts are left as they are); regular
 * expressions are POSIX extended ones (regcomp, the C library's engine).
 * Missing values stay missing (len then gives float64, the predicates
 * object bool with missing values), as in pandas. */
#ifndef MARS_DF_DFSTR_H
#define MARS_DF_DFSTR_H

#include "dfgraph.h"

/* Compiles d->pat for contains/replace with regex (d->re, freed by
 * df_str_free); 0, or -1 with regcomp's message. */
int df_str_compile(df_node_t *d, char *err, size_t errlen);
void df_str_free(df_node_t *d);
int df_str_map(const df_node_t *d, op_t op, const frame_t *in, frame_t *out, char *err,
               size_t errlen);

#endif
