#include "dtype.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cast.h"

static const struct {
    const char *name;
    const char *descr;
    size_t size;
} dt_info[DT_NTYPES] = {
    [DT_BOOL] = {"bool", "|b1", 1},       [DT_INT32] = {"int32", "<i4", 4},
    [DT_INT64] = {"int64", "<i8", 8},     [DT_FLOAT32] = {"float32", "<f4", 4},
    [DT_FLOAT64] = {"float64", "<f8", 8}, [DT_INT8] = {"int8", "|i1", 1},
    [DT_INT16] = {"int16", "<i2", 2},     [DT_UINT8] = {"uint8", "|u1", 1},
    [DT_UINT16] = {"uint16", "<u2", 2},   [DT_UINT32] = {"uint32", "<u4", 4},
    [DT_UINT64] = {"uint64", "<u8", 8},
};

size_t dt_size(dtype_t t)
{
    return dt_info[t].size;
}
const char *dt_name(dtype_t t)
{
    return dt_info[t].name;
}
const char *dt_npy_descr(dtype_t t)
{
    return dt_info[t].descr;
}

int dt_parse(const char *name, dtype_t *out)
{
    for (int t = 0; t < DT_NTYPES; t++) {
        if (strcmp(name, dt_info[t].name) == 0) {
            *out = (dtype_t)t;
            return 0;
        }
    }
    return -1;
}

int dt_parse_npy_descr(const char *d, dtype_t *out)
{
    for (int t = 0; t < DT_NTYPES; t++) {
        if (strcmp(d, dt_info[t].descr) == 0) {
            *out = (dtype_t)t;
            return 0;
        }
    }
    /* numpy writes bool as "|b1"; "<b1" and "=b1" mean the same, and so
     * for the other one-byte types */
    if (strcmp(d, "<b1") == 0 || strcmp(d, "=b1") == 0) {
        *out = DT_BOOL;
        return 0;
    }
    if (strcmp(d, "<i1") == 0 || strcmp(d, "=i1") == 0) {
        *out = DT_INT8;
        return 0;
    }
    if (strcmp(d, "<u1") == 0 || strcmp(d, "=u1") == 0) {
        *out = DT_UINT8;
        return 0;
    }
    return -1;
}

/* np.result_type for array pairs, checked against numpy 1.24 (tests/unit). */
/* numpy's promote_types over our dtypes (generated from numpy 1.24). */
#define B DT_BOOL
#define I DT_INT32
#define L DT_INT64
#define F DT_FLOAT32
#define D DT_FLOAT64
#define b DT_INT8
#define h DT_INT16
#define ub DT_UINT8
#define uh DT_UINT16
#define ui DT_UINT32
#define ul DT_UINT64
static const dtype_t promote_table[DT_NTYPES][DT_NTYPES] = {
    /*           B   I  L  F  D  b  h  ub  uh  ui  ul */
    /* bool */ {B, I, L, F, D, b, h, ub, uh, ui, ul},
    /* int32 */ {I, I, L, D, D, I, I, I, I, L, D},
    /* int64 */ {L, L, L, D, D, L, L, L, L, L, D},
    /* float32 */ {F, D, D, F, D, F, F, F, F, D, D},
    /* float64 */ {D, D, D, D, D, D, D, D, D, D, D},
    /* int8 */ {b, I, L, F, D, b, h, h, I, L, D},
    /* int16 */ {h, I, L, F, D, h, h, h, I, L, D},
    /* uint8 */ {ub, I, L, F, D, h, h, ub, uh, ui, ul},
    /* uint16 */ {uh, I, L, F, D, I, I, uh, uh, ui, ul},
    /* uint32 */ {ui, L, L, D, D, L, L, ui, ui, ui, ul},
    /* uint64 */ {ul, D, D, D, D, D, D, ul, ul, ul, ul},
};
#undef B
#undef I
#undef L
#undef F
#undef D
#undef b
#undef h
#undef ub
#undef uh
#undef ui
#undef ul

dtype_t dt_promote(dtype_t a, dtype_t b)
{
    return promote_table[a][b];
}

double sc_as_double(scalar_t s)
{
    switch (s.kind) {
    case SC_BOOL:
        return s.b ? 1.0 : 0.0;
    case SC_INT:
        return (double)s.i;
    case SC_FLOAT:
        return s.f;
    }
    return 0.0;
}

dtype_t sc_default_dtype(scalar_t s)
{
    return s.kind == SC_BOOL ? DT_BOOL : s.kind == SC_INT ? DT_INT64 : DT_FLOAT64;
}

static int dt_category(dtype_t t)
{
    return t == DT_BOOL ? 0 : dt_is_int(t) ? 1 : 2;
}

/* numpy's min_scalar_type of an integer: the smallest unsigned type for a
 * value >= 0, the smallest signed type for a negative one. */
static dtype_t min_int_type(int64_t v)
{
    if (v >= 0)
        return v <= UINT8_MAX    ? DT_UINT8
               : v <= UINT16_MAX ? DT_UINT16
               : v <= UINT32_MAX ? DT_UINT32
                                 : DT_UINT64;
    return v >= INT8_MIN    ? DT_INT8
           : v >= INT16_MIN ? DT_INT16
           : v >= INT32_MIN ? DT_INT32
                            : DT_INT64;
}

/* The type a scalar counts as by value together with arrays whose
 * promoted dtype `arr` is of the same or higher category: numpy's
 * min_scalar_type (for a
 * float, float16 or float32 both promote with a float array as float32
 * does, so float32 stands for both). */
static dtype_t scalar_value_type(scalar_t s, dtype_t arr)
{
    switch (s.kind) {
    case SC_BOOL:
        return DT_BOOL;
    case SC_INT:
        /* numpy's "small unsigned" rule: a value >= 0 that fits the signed
         * type of its size counts as that signed type beside signed arrays */
        if (s.i >= 0 && dt_is_int(arr) && !dt_is_unsigned(arr))
            return s.i <= INT8_MAX    ? DT_INT8
                   : s.i <= INT16_MAX ? DT_INT16
                   : s.i <= INT32_MAX ? DT_INT32
                                      : DT_INT64;
        return min_int_type(s.i);
    case SC_FLOAT:
        /* numpy's min_scalar_type bounds: float32 for |x| < 3.4e38 (its
         * literal bound, not FLT_MAX); inf and nan count as float16. */
        if (isnan(s.f) || isinf(s.f) || fabs(s.f) < 3.4e38) return DT_FLOAT32;
        return DT_FLOAT64;
    }
    return DT_FLOAT64;
}

/* Python scalars count by value when some array is given and no scalar is
 * of a higher category than the arrays' promoted dtype (*base). */
static bool by_value(int n_arr, const dtype_t *arr, int n_sc, const scalar_t *sc, dtype_t *base)
{
    if (n_arr == 0) return false;
    dtype_t r = arr[0];
    for (int i = 1; i < n_arr; i++)
        r = dt_promote(r, arr[i]);
    *base = r;
    for (int i = 0; i < n_sc; i++) {
        int c = sc[i].kind == SC_BOOL ? 0 : sc[i].kind == SC_INT ? 1 : 2;
        if (c > dt_category(r)) return false;
    }
    return true;
}

/* The dtype scalar s takes part in promotion as. */
static dtype_t counted(scalar_t s, bool value, dtype_t base)
{
    return value ? scalar_value_type(s, base) : sc_default_dtype(s);
}

dtype_t dt_result_type(int n_arr, const dtype_t *arr, int n_sc, const scalar_t *sc)
{
    dtype_t base = DT_BOOL;
    bool value = by_value(n_arr, arr, n_sc, sc, &base);
    dtype_t r = n_arr ? base : sc_default_dtype(sc[0]);
    for (int i = 0; i < n_sc; i++)
        r = dt_promote(r, counted(sc[i], value, base));
    return r;
}

/* whether the value v fits the integer dtype t (a value-based safe cast) */
static bool int_fits(int64_t v, dtype_t t)
{
    switch (t) {
    case DT_INT8:
        return v >= INT8_MIN && v <= INT8_MAX;
    case DT_UINT8:
        return v >= 0 && v <= UINT8_MAX;
    case DT_INT16:
        return v >= INT16_MIN && v <= INT16_MAX;
    case DT_UINT16:
        return v >= 0 && v <= UINT16_MAX;
    case DT_INT32:
        return v >= INT32_MIN && v <= INT32_MAX;
    case DT_UINT32:
        return v >= 0 && v <= (int64_t)UINT32_MAX;
    case DT_INT64:
        return true;
    default: /* uint64 */
        return v >= 0;
    }
}

dtype_t dt_int_loop_type(int n_arr, const dtype_t *arr, int n_sc, const scalar_t *sc)
{
    static const dtype_t ladder[] = {DT_INT8,  DT_UINT8,  DT_INT16, DT_UINT16,
                                     DT_INT32, DT_UINT32, DT_INT64, DT_UINT64};
    for (size_t k = 0; k < sizeof ladder / sizeof ladder[0]; k++) {
        dtype_t t = ladder[k];
        bool ok = true;
        for (int i = 0; ok && i < n_arr; i++)
            ok = dt_promote(arr[i], t) == t;
        for (int i = 0; ok && i < n_sc; i++)
            ok = sc[i].kind == SC_BOOL || (sc[i].kind == SC_INT && int_fits(sc[i].i, t));
        if (ok) return t;
    }
    return DT_NTYPES;
}

/* float16 0, float32 1, float64 2: the smallest float t casts to safely */
static int float_rank(dtype_t t)
{
    dtype_t f = dt_float_for(t);
    return f == DT_NTYPES ? 0 : f == DT_FLOAT32 ? 1 : 2;
}

dtype_t dt_float_result(int n_arr, const dtype_t *arr, int n_sc, const scalar_t *sc)
{
    dtype_t base = DT_BOOL;
    bool value = by_value(n_arr, arr, n_sc, sc, &base);
    int rank = 0;
    for (int i = 0; i < n_arr; i++)
        if (float_rank(arr[i]) > rank) rank = float_rank(arr[i]);
    for (int i = 0; i < n_sc; i++)
        if (float_rank(counted(sc[i], value, base)) > rank)
            rank = float_rank(counted(sc[i], value, base));
    return rank == 0 ? DT_NTYPES : rank == 1 ? DT_FLOAT32 : DT_FLOAT64;
}

void sc_store(scalar_t s, dtype_t t, void *dst)
{
    if (t == DT_BOOL) {
        bool v = s.kind == SC_BOOL ? s.b : s.kind == SC_INT ? s.i != 0 : s.f != 0.0;
        memcpy(dst, &v, 1);
        return;
    }
    if (t == DT_FLOAT32) {
        float v = (float)sc_as_double(s);
        memcpy(dst, &v, 4);
        return;
    }
    if (t == DT_FLOAT64) {
        double v = sc_as_double(s);
        memcpy(dst, &v, 8);
        return;
    }
    /* integers: the value's low bits (numpy wraps), floats truncated */
    uint64_t u;
    if (s.kind == SC_BOOL)
        u = s.b;
    else if (s.kind == SC_INT)
        u = (uint64_t)s.i;
    else if (t == DT_UINT64)
        u = cast_f64_u64(s.f);
    else if (t == DT_INT64)
        u = (uint64_t)cast_f64_i64(s.f);
    else if (t == DT_INT32)
        u = (uint64_t)(int64_t)cast_f64_i32(s.f);
    else
        u = (uint64_t)cast_f64_narrow(s.f, (int)dt_size(t) * 8);
    dt_store_u64(t, dst, 0, u);
}

int64_t shape_size(const shape_t *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->ndim; i++)
        if (mul_ovf_i64(n, s->d[i], &n)) return -1;
    return n;
}

void shape_format(const shape_t *s, char *buf, size_t len)
{
    size_t o = 0;
    o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "(");
    for (int i = 0; i < s->ndim; i++)
        o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%lld", i ? ", " : "",
                              (long long)s->d[i]);
    snprintf(buf + o, o < len ? len - o : 0, s->ndim == 1 ? ",)" : ")");
}

bool shape_eq(const shape_t *a, const shape_t *b)
{
    if (a->ndim != b->ndim) return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->d[i] != b->d[i]) return false;
    return true;
}
