/* expr.h: pandas' expression language of DataFrame.query and
 * DataFrame.eval, parsed in C into a typed tree and evaluated column-wise
 * over a chunk: column names (bare, or in backticks), numbers, strings in
 * single or double quotes, True and False, + - * / // % ** and unary -,
 * comparisons == != < <= > >= (strings with strings), and / & , or / | ,
 * not / ~ (pandas' precedence: & and | as `and` and `or`), `in` and
 * `not in` with a list of literals, and parentheses. Nothing is executed
 * as code: the text becomes a tree of these operations or is refused with
 * the position of the mistake. Types follow numpy's (int64 / int64 is
 * float64, bool arithmetic is int64); NaN compares unequal, a missing
 * string is unequal to every string, a missing bool is false. */
#ifndef MARS_DF_EXPR_H
#define MARS_DF_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frame.h"

typedef struct dfexpr dfexpr_t;

/* Parses text against columns names[0..n) of types types[0..n) (FT_*; the
 * high nibble an INT64 column's unit, frame.h's FU_*: a datetime column,
 * whose comparisons with string literals compare with the dates they name).
 * Returns the tree (dfexpr_free), or NULL with a message in err. */
dfexpr_t *dfexpr_parse(const char *text, const char *const *names, const uint8_t *types, int n,
                       char *err, size_t errlen);
void dfexpr_free(dfexpr_t *e);
/* The result's type (FT_INT64, FT_FLOAT64, FT_BOOL; never a string). */
int dfexpr_type(const dfexpr_t *e);
/* Evaluates e over the columns of f (the columns parse was given, in that
 * order) into out (f->nrows values of dfexpr_type). 0, or -1 (memory). */
int dfexpr_eval(const dfexpr_t *e, const frame_t *f, fcol_t *out);

#endif
