/* ufunc.h: type resolution of the element-wise ops, as numpy 1.24's ufunc
 * loops choose them. Shared by graph inference and the kernel programs. */
#ifndef MARS_UFUNC_H
#define MARS_UFUNC_H

#include <stddef.h>

#include "dtype.h"
#include "graph.h"

typedef struct {
    dtype_t compute; /* operands are converted to this before the op */
    dtype_t out;     /* the result's dtype */
} ew_types_t;

/* The operands that take part in promotion are given as arrays' dtypes and
 * scalars: for `where` x and y (the condition is always read as bool), for
 * `clip` a and the bounds present, for `astype` the input (target in
 * astype_to). Returns 0, or -1 with a message (the rule, without the node
 * prefix) for combinations numpy refuses or that would need a dtype outside
 * the format (numpy's float16 results). */
int ew_resolve(op_t op, int n_arr, const dtype_t *arr, int n_sc, const scalar_t *sc,
               dtype_t astype_to, ew_types_t *t, char *err, size_t errlen);

/* The types of element-wise node n whose node operands j have dtypes
 * in_dt[j] and ndims in_ndim[j] (entries of scalar operands are ignored).
 * Applies numpy 1.24's choice of which operands count by value: every 0-d
 * operand counts as a scalar, and values count only when some operand has
 * ndim > 0 and no scalar is of a higher kind than every such array;
 * otherwise Python scalars count as their default dtypes. A 0-d tensor of
 * the graph has no known value before running, so it counts as its dtype
 * (as in dask and Mars): numpy may pick a smaller type there. */
int ew_node_types(const graph_node_t *n, const dtype_t *in_dt, const int *in_ndim, ew_types_t *t,
                  char *err, size_t errlen);

#endif
