#include "ufunc.h"

#include <stdio.h>

static int refuse(char *err, size_t errlen, const char *what, op_t op, dtype_t dt)
{
    snprintf(err, errlen, "%s: %s is not supported for %s input", op_name(op), what, dt_name(dt));
    return -1;
}

/* Integers beside Python scalars: the ops whose loops numpy 1.24 searches
 * in order get the loop it finds (dt_int_loop_type), which can differ from
 * result_type: np.floor_divide(70000, uint8 array) is int32, not uint32. */
static void int_loop(int n_arr, const dtype_t *arr, int n_sc, const scalar_t *sc, ew_types_t *t)
{
    if (n_sc == 0 || !dt_is_int(t->out)) return;
    dtype_t l = dt_int_loop_type(n_arr, arr, n_sc, sc);
    if (l != DT_NTYPES) t->compute = t->out = l;
}

int ew_resolve(op_t op, int n_arr, const dtype_t *arr, int n_sc, const scalar_t *sc,
               dtype_t astype_to, ew_types_t *t, char *err, size_t errlen)
{
    if (op == OP_ASTYPE) {
        t->compute = astype_to;
        t->out = astype_to;
        return 0;
    }
    if (op == OP_LOGICAL_AND || op == OP_LOGICAL_OR || op == OP_LOGICAL_NOT ||
        op == OP_LOGICAL_XOR) {
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
            snprintf(err, errlen,
                     "numpy boolean subtract is not supported; use logical_xor "
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
        if (r == DT_BOOL) return refuse(err, errlen, "sign", op, r);
        return 0;
    case OP_DIVIDE:
        if (!dt_is_float(r)) t->compute = t->out = DT_FLOAT64;
        return 0;
    case OP_FLOOR_DIVIDE:
    case OP_MOD:
    case OP_REMAINDER:
    case OP_FMOD:
    case OP_POWER:
    case OP_SQUARE:
    case OP_RECIPROCAL:
        /* numpy's loops for these start at int8: bools compute as int8 */
        if (r == DT_BOOL) t->compute = t->out = DT_INT8;
        int_loop(n_arr, arr, n_sc, sc, t);
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
    case OP_LOG2:
    case OP_LOG10:
    case OP_EXP2:
    case OP_CBRT:
    case OP_ARCSIN:
    case OP_ARCCOS:
    case OP_ARCTAN:
    case OP_SINH:
    case OP_COSH:
    case OP_ARCSINH:
    case OP_ARCCOSH:
    case OP_ARCTANH:
    case OP_DEGREES:
    case OP_RADIANS:
    case OP_RINT:
    case OP_TRUNC:
    case OP_FIX:
    case OP_ARCTAN2:
    case OP_HYPOT:
    case OP_COPYSIGN:
    case OP_HEAVISIDE:
        /* numpy's float loops: float16 for bool, int8 and uint8 (a dtype
         * the format has not), float32 for int16 and uint16 */
        if (!dt_is_float(r)) {
            dtype_t f = dt_float_result(n_arr, arr, n_sc, sc);
            if (f == DT_NTYPES) return refuse(err, errlen, "the float16 result numpy gives", op, r);
            t->compute = t->out = f;
        }
        return 0;
    case OP_EQUAL:
    case OP_NOT_EQUAL:
    case OP_LESS:
    case OP_LESS_EQUAL:
    case OP_GREATER:
    case OP_GREATER_EQUAL:
    case OP_ISNAN:
    case OP_ISFINITE:
    case OP_ISINF:
    case OP_ISNEGINF:
    case OP_ISPOSINF:
        t->out = DT_BOOL;
        return 0;
    case OP_SIGNBIT:
        /* numpy's loops are float only: other dtypes are cast to a float */
        if (!dt_is_float(r)) t->compute = DT_FLOAT64;
        t->out = DT_BOOL;
        return 0;
    case OP_ROUND:
    case OP_AROUND:
        if (r == DT_BOOL) return refuse(err, errlen, "the float16 result numpy gives", op, r);
        return 0;
    case OP_POSITIVE:
        if (r == DT_BOOL) return refuse(err, errlen, "positive", op, r);
        return 0;
    case OP_FLOAT_POWER:
        t->compute = t->out = DT_FLOAT64;
        return 0;
    case OP_ISCLOSE:
        /* numpy makes y a float first: bools and integers compare as float64 */
        if (n_arr == 2 && n_sc == 0) {
            dtype_t two[2] = {arr[0], dt_is_float(arr[1]) ? arr[1] : DT_FLOAT64};
            r = dt_result_type(2, two, 0, NULL);
        }
        t->compute = dt_is_float(r) ? r : DT_FLOAT64;
        t->out = DT_BOOL;
        return 0;
    case OP_BITWISE_AND:
    case OP_BITWISE_OR:
    case OP_BITWISE_XOR:
    case OP_INVERT:
        if (dt_is_float(r)) return refuse(err, errlen, "a bitwise op", op, r);
        int_loop(n_arr, arr, n_sc, sc, t);
        return 0;
    case OP_LEFT_SHIFT:
    case OP_RIGHT_SHIFT:
        if (dt_is_float(r)) return refuse(err, errlen, "a shift", op, r);
        if (r == DT_BOOL) t->compute = t->out = DT_INT8;
        int_loop(n_arr, arr, n_sc, sc, t);
        return 0;
    default:
        return 0;
    }
}

static int dt_kind(dtype_t t)
{
    return t == DT_BOOL ? 0 : dt_is_int(t) ? 1 : 2;
}
static int sc_kind(scalar_t s)
{
    return s.kind == SC_BOOL ? 0 : s.kind == SC_INT ? 1 : 2;
}

int ew_node_types(const graph_node_t *n, const dtype_t *in_dt, const int *in_ndim, ew_types_t *t,
                  char *err, size_t errlen)
{
    /* at most 3 operands and 2 clip bounds */
    dtype_t arr[8];
    scalar_t sc[8];
    int na = 0, ns = 0, max_arr_kind = -1, max_sc_kind = -1;
    /* where's condition is read as bool and takes no part in promotion */
    for (int j = n->op == OP_WHERE ? 1 : 0; j < n->n_in && j < 3; j++) {
        if (n->in[j].node >= 0) {
            int k = dt_kind(in_dt[j]);
            if (in_ndim[j] == 0)
                max_sc_kind = k > max_sc_kind ? k : max_sc_kind;
            else
                max_arr_kind = k > max_arr_kind ? k : max_arr_kind;
            arr[na++] = in_dt[j];
        } else {
            sc[ns++] = n->in[j].sc;
        }
    }
    if (n->op == OP_CLIP) {
        if (n->has_a_min) sc[ns++] = n->a_min;
        if (n->has_a_max) sc[ns++] = n->a_max;
    }
    for (int j = 0; j < ns; j++)
        max_sc_kind = sc_kind(sc[j]) > max_sc_kind ? sc_kind(sc[j]) : max_sc_kind;
    if (!(max_arr_kind >= 0 && max_arr_kind >= max_sc_kind)) {
        /* Python scalars as their default dtypes */
        for (int j = 0; j < ns; j++)
            arr[na++] = sc_default_dtype(sc[j]);
        ns = 0;
    }
    return ew_resolve(n->op, na, arr, ns, sc, n->has_dtype ? n->dtype : DT_FLOAT64, t, err, errlen);
}
