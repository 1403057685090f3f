/* dtype.h: the element types of the graph format, scalars, and numpy 1.24's
 * type promotion (value-based casting for Python scalars included). */
#ifndef MARS_DTYPE_H
#define MARS_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* numpy allows 32 dimensions; so do we. */
#define MR_MAXDIM 32

typedef enum { DT_BOOL = 0, DT_INT32, DT_INT64, DT_FLOAT32, DT_FLOAT64, DT_NTYPES } dtype_t;

size_t dt_size(dtype_t t);
const char *dt_name(dtype_t t);                      /* "float64" ... */
const char *dt_npy_descr(dtype_t t);                 /* "<f8", "|b1" ... for .npy headers */
int dt_parse(const char *name, dtype_t *out);        /* 0, or -1 if unknown */
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
    default:
        return (int64_t)((const double *)p)[i];
    }
}

static inline bool dt_is_float(dtype_t t)
{
    return t == DT_FLOAT32 || t == DT_FLOAT64;
}
static inline bool dt_is_int(dtype_t t)
{
    return t == DT_INT32 || t == DT_INT64;
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
