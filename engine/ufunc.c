#include "ufunc.h"

#include <stdio.h>

static int refuse(char *err, size_t errlen, const char *what, op_t op, dtype_t dt)
{
    snprintf(err, errlen, "%s: %s is not supported for %s input", op_name(op), what,
             dt_name(dt));
    return -1;
}

int ew_resolve(op_t op, int n_arr, const dtype_t *arr, int n_sc, const scalar_t *sc,
               dtype_t astype_to, ew_types_t *t, char *err, size_t errlen)
{
    if (op == OP_ASTYPE) {
        t->compute = astype_to;
        t->out = astype_to;
        return 0;
    }
    if (op == OP_LOGICAL_AND || op == OP_LOGICAL_OR || op == OP_LOGICAL_NOT) {
        t->compute = DT_BOOL;
        t->out = DT_BOOL;
        return 0;
    }
    dtype_t r = dt_result_type(n_arr, arr, n_sc, sc);
    t->compute = r;
    t->out = r;
    switch (op) {
    case OP_SUBTRACT:
        if (r == DT_BOOL) {
            snprintf(err, errlen, "numpy boolean subtract is not supported; use logical_xor "
                                  "or not_equal");
            return -1;
        }
        return 0;
    case OP_NEGATIVE:
        if (r == DT_BOOL) {
            snprintf(err, errlen, "numpy boolean negative is not supported; use logical_not");
            return -1;
        }
        return 0;
    case OP_SIGN:
        if (r == DT_BOOL)
            return refuse(err, errlen, "sign", op, r);
        return 0;
    case OP_DIVIDE:
        if (!dt_is_float(r))
            t->compute = t->out = DT_FLOAT64;
        return 0;
    case OP_FLOOR_DIVIDE:
    case OP_MOD:
    case OP_POWER:
    case OP_SQUARE:
        /* numpy gives int8 for bools, a dtype outside the contract */
        if (r == DT_BOOL)
            return refuse(err, errlen, "the int8 result numpy gives", op, r);
        return 0;
    case OP_SQRT:
    case OP_EXP:
    case OP_LOG:
    case OP_LOG1P:
    case OP_EXPM1:
    case OP_SIN:
    case OP_COS:
    case OP_TAN:
    case OP_TANH:
    case OP_FLOOR:
    case OP_CEIL:
        /* numpy gives float16 for bool, a dtype outside the contract */
        if (r == DT_BOOL)
            return refuse(err, errlen, "the float16 result numpy gives", op, r);
        if (!dt_is_float(r))
            t->compute = t->out = DT_FLOAT64;
        return 0;
    case OP_EQUAL:
    case OP_NOT_EQUAL:
    case OP_LESS:
    case OP_LESS_EQUAL:
    case OP_GREATER:
    case OP_GREATER_EQUAL:
    case OP_ISNAN:
    case OP_ISFINITE:
        t->out = DT_BOOL;
        return 0;
    default:
        return 0;
    }
}
