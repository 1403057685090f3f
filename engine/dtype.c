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
    [DT_FLOAT64] = {"float64", "<f8", 8},
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
    /* numpy writes bool as "|b1"; "<b1" and "=b1" mean the same. */
    if (strcmp(d, "<b1") == 0 || strcmp(d, "=b1") == 0) {
        *out = DT_BOOL;
        return 0;
    }
    return -1;
}

/* np.result_type for array pairs, checked against numpy 1.24 (tests/unit). */
static const dtype_t promote_table[DT_NTYPES][DT_NTYPES] = {
    /* bool */ {DT_BOOL, DT_INT32, DT_INT64, DT_FLOAT32, DT_FLOAT64},
    /* int32 */ {DT_INT32, DT_INT32, DT_INT64, DT_FLOAT64, DT_FLOAT64},
    /* int64 */ {DT_INT64, DT_INT64, DT_INT64, DT_FLOAT64, DT_FLOAT64},
    /* float32 */ {DT_FLOAT32, DT_FLOAT64, DT_FLOAT64, DT_FLOAT32, DT_FLOAT64},
    /* float64 */ {DT_FLOAT64, DT_FLOAT64, DT_FLOAT64, DT_FLOAT64, DT_FLOAT64},
};

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

/* The smallest of our dtypes that numpy's min_scalar_type would promote to
 * together with an array of dtype `arr` of the same or higher category.
 * numpy's min_scalar_type yields (u)int8/16/32 and float16 too; combining
 * them with an array of our dtypes gives the results encoded here. */
static dtype_t scalar_value_type(scalar_t s, dtype_t arr)
{
    switch (s.kind) {
    case SC_BOOL:
        return DT_BOOL;
    case SC_INT:
        if (arr == DT_FLOAT32) {
            /* uint8/int8/uint16/int16 fit float32; (u)int32 and wider do not. */
            return (s.i >= -32768 && s.i <= 65535) ? DT_FLOAT32 : DT_FLOAT64;
        }
        /* against int32: anything that fits int32 keeps int32, except that
         * min_scalar_type of 2**31..2**32-1 is uint32, which promotes to int64 */
        return (s.i >= INT32_MIN && s.i <= INT32_MAX) ? DT_INT32 : DT_INT64;
    case SC_FLOAT:
        /* numpy's min_scalar_type bounds: float32 for |x| < 3.4e38 (its
         * literal bound, not FLT_MAX); inf and nan count as float16. */
        if (isnan(s.f) || isinf(s.f) || fabs(s.f) < 3.4e38) return DT_FLOAT32;
        return DT_FLOAT64;
    }
    return DT_FLOAT64;
}

dtype_t dt_result_type(int n_arr, const dtype_t *arr, int n_sc, const scalar_t *sc)
{
    if (n_arr == 0) {
        dtype_t r = sc_default_dtype(sc[0]);
        for (int i = 1; i < n_sc; i++)
            r = dt_promote(r, sc_default_dtype(sc[i]));
        return r;
    }
    dtype_t r = arr[0];
    for (int i = 1; i < n_arr; i++)
        r = dt_promote(r, arr[i]);
    int max_sc_cat = -1;
    for (int i = 0; i < n_sc; i++) {
        int c = sc[i].kind == SC_BOOL ? 0 : sc[i].kind == SC_INT ? 1 : 2;
        if (c > max_sc_cat) max_sc_cat = c;
    }
    if (n_sc == 0) return r;
    if (max_sc_cat > dt_category(r)) {
        /* scalars of a higher category count as their default types */
        for (int i = 0; i < n_sc; i++)
            r = dt_promote(r, sc_default_dtype(sc[i]));
        return r;
    }
    dtype_t base = r;
    for (int i = 0; i < n_sc; i++)
        r = dt_promote(r, scalar_value_type(sc[i], base));
    return r;
}

void sc_store(scalar_t s, dtype_t t, void *dst)
{
    switch (t) {
    case DT_BOOL: {
        bool v = s.kind == SC_BOOL ? s.b : s.kind == SC_INT ? s.i != 0 : s.f != 0.0;
        memcpy(dst, &v, 1);
        break;
    }
    case DT_INT32: {
        int32_t v = s.kind == SC_BOOL  ? (int32_t)s.b
                    : s.kind == SC_INT ? (int32_t)(uint32_t)(uint64_t)s.i
                                       : cast_f64_i32(s.f);
        memcpy(dst, &v, 4);
        break;
    }
    case DT_INT64: {
        int64_t v = s.kind == SC_BOOL ? (int64_t)s.b : s.kind == SC_INT ? s.i : cast_f64_i64(s.f);
        memcpy(dst, &v, 8);
        break;
    }
    case DT_FLOAT32: {
        float v = (float)sc_as_double(s);
        memcpy(dst, &v, 4);
        break;
    }
    case DT_FLOAT64: {
        double v = sc_as_double(s);
        memcpy(dst, &v, 8);
        break;
    }
    default:
        break;
    }
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
