/* dtype.h: the element types of the graph format, scalars, and numpy 1.24's
 * type promotion (value-based casting for Python scalars included). */
#ifndef MARS_DTYPE_H
#define MARS_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* numpy allows 32 dimensions; so do we. */
#define MR_MAXDIM 32

/* The first five are the format's original dtypes; the small integer
 * dtypes follow (values are stable: they travel in job descriptors). */
typedef enum {
    DT_BOOL = 0,
    DT_INT32,
    DT_INT64,
    DT_FLOAT32,
    DT_FLOAT64,
    DT_INT8,
    DT_INT16,
    DT_UINT8,
    DT_UINT16,
    DT_UINT32,
    DT_UINT64,
    DT_NTYPES
} dtype_t;

size_t dt_size(dtype_t t);
const char *dt_name(dtype_t t);               /* "float64" ... */
const char *dt_npy_descr(dtype_t t);          /* "<f8", "|b1" ... for .npy headers */
int dt_parse(const char *name, dtype_t *out); /* 0, or -1 if unknown */
/* Every dtype name, for messages. */
#define DT_NAMES "float64, float32, int64, int32, int16, int8, uint64, uint32, uint16, uint8, bool"
int dt_parse_npy_descr(const char *d, dtype_t *out); /* 0, or -1 if unsupported */
/* Element i of an array of dtype dt as a double, and as an int64 (floats
 * truncated toward zero; bools 0 or 1): for kernels that read any input
 * dtype element by element. */
static inline double dt_read_f64(dtype_t dt, const void *p, int64_t i)
{
    switch (dt) {
    case DT_BOOL:
        return ((const uint8_t *)p)[i] ? 1.0 : 0.0;
    case DT_INT32:
        return (double)((const int32_t *)p)[i];
    case DT_INT64:
        return (double)((const int64_t *)p)[i];
    case DT_FLOAT32:
        return (double)((const float *)p)[i];
    case DT_INT8:
        return (double)((const int8_t *)p)[i];
    case DT_INT16:
        return (double)((const int16_t *)p)[i];
    case DT_UINT8:
        return (double)((const uint8_t *)p)[i];
    case DT_UINT16:
        return (double)((const uint16_t *)p)[i];
    case DT_UINT32:
        return (double)((const uint32_t *)p)[i];
    case DT_UINT64:
        return (double)((const uint64_t *)p)[i];
    default:
        return ((const double *)p)[i];
    }
}

static inline int64_t dt_read_i64(dtype_t dt, const void *p, int64_t i)
{
    switch (dt) {
    case DT_BOOL:
        return ((const uint8_t *)p)[i] ? 1 : 0;
    case DT_INT32:
        return ((const int32_t *)p)[i];
    case DT_INT64:
        return ((const int64_t *)p)[i];
    case DT_FLOAT32:
        return (int64_t)((const float *)p)[i];
    case DT_INT8:
        return ((const int8_t *)p)[i];
    case DT_INT16:
        return ((const int16_t *)p)[i];
    case DT_UINT8:
        return ((const uint8_t *)p)[i];
    case DT_UINT16:
        return ((const uint16_t *)p)[i];
    case DT_UINT32:
        return ((const uint32_t *)p)[i];
    case DT_UINT64: /* the bits: values of 2**63 and more read negative */
        return (int64_t)((const uint64_t *)p)[i];
    default:
        return (int64_t)((const double *)p)[i];
    }
}

/* Stores the low bits of v as element i of an integer array of dtype dt
 * (numpy's wrapping conversion between integer types). */
static inline void dt_store_u64(dtype_t dt, void *p, int64_t i, uint64_t v)
{
    switch (dt) {
    case DT_INT8:
    case DT_UINT8:
    case DT_BOOL:
        ((uint8_t *)p)[i] = (uint8_t)v;
        break;
    case DT_INT16:
    case DT_UINT16:
        ((uint16_t *)p)[i] = (uint16_t)v;
        break;
    case DT_INT32:
    case DT_UINT32:
    case DT_FLOAT32:
        ((uint32_t *)p)[i] = (uint32_t)v;
        break;
    default:
        ((uint64_t *)p)[i] = v;
        break;
    }
}

static inline bool dt_is_float(dtype_t t)
{
    return t == DT_FLOAT32 || t == DT_FLOAT64;
}
/* Any integer dtype, signed or unsigned (not bool). */
static inline bool dt_is_int(dtype_t t)
{
    return t == DT_INT32 || t == DT_INT64 || (t >= DT_INT8 && t <= DT_UINT64);
}
static inline bool dt_is_unsigned(dtype_t t)
{
    return t >= DT_UINT8 && t <= DT_UINT64;
}
/* The small integer dtypes (int8, int16, uint8, uint16, uint32, uint64):
 * element-wise ops, casts, creation and I/O handle them natively; every
 * other op runs on them widened (graph_lower.c). */
static inline bool dt_is_small(dtype_t t)
{
    return t >= DT_INT8 && t <= DT_UINT64;
}
/* What numpy's sum, prod, cumsum and cumprod give for an integer or bool
 * input: int64, or uint64 for unsigned inputs (the platform's long). */
static inline dtype_t dt_sum_type(dtype_t t)
{
    return dt_is_unsigned(t) ? DT_UINT64 : DT_INT64;
}
/* The float dtype numpy's float ufuncs (sqrt, sin, ...) compute a bool or
 * integer input in: float16 (which the format has not: DT_NTYPES) for bool,
 * int8 and uint8, float32 for int16 and uint16, else float64. */
static inline dtype_t dt_float_for(dtype_t t)
{
    if (t == DT_BOOL || t == DT_INT8 || t == DT_UINT8) return DT_NTYPES;
    if (t == DT_INT16 || t == DT_UINT16) return DT_FLOAT32;
    return t == DT_FLOAT32 ? DT_FLOAT32 : DT_FLOAT64;
}

/* The smallest and largest value of integer dtype t (uint64's largest as
 * INT64_MAX: the largest that documents' integers reach). */
static inline void dt_int_range(dtype_t t, int64_t *lo, int64_t *hi)
{
    switch (t) {
    case DT_INT8:
        *lo = INT8_MIN, *hi = INT8_MAX;
        break;
    case DT_INT16:
        *lo = INT16_MIN, *hi = INT16_MAX;
        break;
    case DT_INT32:
        *lo = INT32_MIN, *hi = INT32_MAX;
        break;
    case DT_UINT8:
        *lo = 0, *hi = UINT8_MAX;
        break;
    case DT_UINT16:
        *lo = 0, *hi = UINT16_MAX;
        break;
    case DT_UINT32:
        *lo = 0, *hi = UINT32_MAX;
        break;
    case DT_UINT64:
        *lo = 0, *hi = INT64_MAX;
        break;
    default:
        *lo = INT64_MIN, *hi = INT64_MAX;
        break;
    }
}

/* np.result_type of two arrays. */
dtype_t dt_promote(dtype_t a, dtype_t b);

/* A Python scalar from a JSON document: a bool, an integer or a float. */
typedef enum { SC_BOOL = 0, SC_INT, SC_FLOAT } scalar_kind_t;
typedef struct {
    scalar_kind_t kind;
    union {
        bool b;
        int64_t i;
        double f;
    };
} scalar_t;

static inline scalar_t sc_bool(bool b)
{
    return (scalar_t){.kind = SC_BOOL, .b = b};
}
static inline scalar_t sc_int(int64_t i)
{
    return (scalar_t){.kind = SC_INT, .i = i};
}
static inline scalar_t sc_float(double f)
{
    return (scalar_t){.kind = SC_FLOAT, .f = f};
}
double sc_as_double(scalar_t s);
/* The scalar's default dtype when it stands alone: bool, int64, float64. */
dtype_t sc_default_dtype(scalar_t s);

/* np.result_type(arrays..., scalars...) with numpy 1.24 value-based casting:
 * scalars count by value only when no scalar is of a higher category
 * (bool < int < float) than every array. n_arr may be 0. */
dtype_t dt_result_type(int n_arr, const dtype_t *arr, int n_sc, const scalar_t *sc);

/* The integer loop numpy 1.24's linear search picks for floor_divide,
 * remainder, fmod, power, the bitwise ops and the shifts: the first of
 * int8, uint8, int16, uint16, ..., uint64 that every array casts to safely
 * and every scalar's value fits (np.floor_divide(70000, uint8 array) is
 * int32 where np.result_type says uint32). DT_NTYPES when none does. */
dtype_t dt_int_loop_type(int n_arr, const dtype_t *arr, int n_sc, const scalar_t *sc);

/* The float dtype numpy's float ufunc loops (e, f, d) give for these
 * operands: the smallest float every operand casts to safely, scalars by
 * value as dt_result_type counts them; DT_NTYPES for float16. */
dtype_t dt_float_result(int n_arr, const dtype_t *arr, int n_sc, const scalar_t *sc);

/* Writes the scalar converted to dtype t (as numpy's astype would) into dst. */
void sc_store(scalar_t s, dtype_t t, void *dst);

/* Checked arithmetic for sizes: return false on overflow. */
static inline bool mul_ovf_i64(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}
static inline bool add_ovf_i64(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_add_overflow(a, b, out);
}

/* A shape. ndim 0 is a scalar (one element). */
typedef struct {
    int ndim;
    int64_t d[MR_MAXDIM];
} shape_t;

/* Element count; -1 on overflow. */
int64_t shape_size(const shape_t *s);
/* "(3, 4)" as numpy prints it ("(5,)" for 1-D, "()" for 0-D). */
void shape_format(const shape_t *s, char *buf, size_t len);
bool shape_eq(const shape_t *a, const shape_t *b);

#endif
