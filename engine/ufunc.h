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
 * the contract (numpy's float16 and int8 results). */
int ew_resolve(op_t op, int n_arr, const dtype_t *arr, int n_sc, const scalar_t *sc,
               dtype_t astype_to, ew_types_t *t, char *err, size_t errlen);

#endif
