/* frame.h: DataFrame and Series chunks.
 *
 * A frame is a piece of rows of a DataFrame (or of a Series: one column):
 * typed columns, each a contiguous array, plus an index of one or more
 * levels (a MultiIndex after a groupby on several keys). Columns and index
 * levels share one representation, fcol_t, the same layout as the CSV
 * reader's csv_column_t so that a parsed chunk becomes a frame without
 * copying.
 *
 * Between jobs (and in the cluster's chunk store) a frame travels as one
 * self-describing byte blob: frame_serialize writes it, frame_view reads it
 * back as a frame whose arrays point into the blob (no copy). A blob is
 * checked completely by frame_view, so a corrupted or hostile blob gives an
 * error, never a read outside it.
 *
 * Missing values follow pandas 1.5: NaN in float64 columns; int64 columns
 * have none (pandas turns them into float64); bool and string columns carry
 * a validity array (a bool column with NA is pandas' object dtype). */
#ifndef MARS_DF_FRAME_H
#define MARS_DF_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { FT_INT64 = 0, FT_FLOAT64, FT_BOOL, FT_STRING } ftype_t; /* = csv_type_t */

/* What an INT64 column's integers mean (fcol_t.unit, df_col_t.unit):
 * plain integers, pandas' datetime64[ns] (nanoseconds since 1970-01-01,
 * naive, INT64_MIN is NaT), the dates of dt.date (the same nanoseconds,
 * at midnight, written as dates: pandas' object column of datetime.date),
 * or pandas' timedelta64[ns] (a duration in nanoseconds, INT64_MIN NaT).
 * Ops that move values treat such a column as the integers it holds;
 * readers, writers, the dt accessor and the element-wise arithmetic of
 * datetimes and timedeltas look at the unit (engine/df/dates.h). */
enum { FU_NONE = 0, FU_NS = 1, FU_DATE = 2, FU_TD = 3 };
#define FU_LAST FU_TD

typedef struct {
    uint8_t type;     /* ftype_t */
    uint8_t unit;     /* INT64: FU_*; else FU_NONE */
    int64_t n;        /* rows */
    void *data;       /* INT64: int64_t[n]; FLOAT64: double[n]; BOOL: uint8_t[n] (0/1);
                       * STRING: NULL */
    int64_t *offsets; /* STRING: n + 1 offsets into bytes; value i is bytes[offsets[i],
                       * offsets[i+1]) */
    char *bytes;      /* STRING: the values back to back, NUL at offsets[n] */
    uint8_t *valid;   /* BOOL and STRING: NULL when no value is NA, else n flags (1 present) */
} fcol_t;

/* A column or index label: a string, or an integer written as a JSON number
 * (from_tensor's default labels 0..n-1). A Series may have no name. */
typedef struct {
    char *s;     /* NUL-terminated; NULL: no name */
    bool is_int; /* s holds a decimal integer to be written as a number */
} flabel_t;

typedef struct {
    bool series;      /* one column, written as a Series */
    bool range_index; /* idx[0] is positions 0.. of this chunk; the final index is
                       * renumbered from the chunks' row offsets when results are assembled
                       * (merge results, default indexes) */
    int64_t nrows;
    int ncols;
    fcol_t *cols;    /* ncols columns of nrows rows */
    flabel_t *names; /* ncols labels */
    int nidx;        /* index levels, >= 1 */
    fcol_t *idx;     /* nidx levels of nrows rows */
    flabel_t *idx_names;
    /* memory: frame_alloc'ed frames own everything (frame_free); frame_view'ed
     * frames own only the four arrays above (frame_free frees just those) */
    bool view;
    /* a held (N, 0) tensor has no column to say its dtype: its values' ftype
     * + 1 (0: none), kept in blobs and by frame_concat */
    uint8_t vtype;
} frame_t;

/* Sizes are checked for overflow: each allocating function returns -1 (and
 * leaves nothing allocated) when a size overflows or malloc fails. */

/* Allocates the column and label arrays (zeroed; every column empty). */
int frame_alloc(frame_t *f, bool series, int64_t nrows, int ncols, int nidx);
/* out (frame_alloc'ed with in's nidx levels) takes a copy of in's index:
 * its levels, their names and range_index; 0, or -1 when out of memory. */
int frame_copy_index(const frame_t *in, frame_t *out);
/* Allocates a column of n rows: data (or offsets with nbytes of string
 * bytes, NUL included), valid when with_valid (set to all 1). */
int fcol_alloc(fcol_t *c, ftype_t t, int64_t n, int64_t nbytes, bool with_valid);
void fcol_free(fcol_t *c);
int flabel_set(flabel_t *l, const char *s, bool is_int); /* copies s (may be NULL) */
void frame_free(frame_t *f);

/* A deep copy of column c (rows [0, c->n)). */
int fcol_copy(const fcol_t *c, fcol_t *out);
/* An int64 column's values as float64 (int64 columns have no missing
 * values); -1 for another type or out of memory. */
int fcol_widen(const fcol_t *c, fcol_t *out);

/* The type a chunk's column computes in: the schema's type, but float64
 * where the schema says int64 and the chunk holds float64. Columns typed
 * chunk by chunk (a merge's or a groupby transform's rows no key reached,
 * str.len and the dt fields) are float64 in a chunk with a missing value. */
static inline int fcol_chunk_type(int schema, const fcol_t *c)
{
    return schema == FT_INT64 && c->type == FT_FLOAT64 ? FT_FLOAT64 : schema;
}

/* Value access. */
static inline bool fcol_is_na(const fcol_t *c, int64_t i)
{
    if (c->type == FT_FLOAT64) return ((const double *)c->data)[i] != ((const double *)c->data)[i];
    if (c->unit != FU_NONE) return ((const int64_t *)c->data)[i] == INT64_MIN;
    return c->valid && !c->valid[i];
}
static inline const char *fcol_str(const fcol_t *c, int64_t i, int64_t *len)
{
    *len = c->offsets[i + 1] - c->offsets[i];
    return c->bytes + c->offsets[i];
}

/* Serialization. */
size_t frame_blob_size(const frame_t *f);
void frame_serialize(const frame_t *f, void *out); /* out: frame_blob_size bytes, 8-aligned */
/* The size a blob's header declares, or 0 when buf (len bytes) is no blob. */
size_t frame_blob_len(const void *buf, size_t len);
/* Reads a blob into a view (buf must stay alive and be 8-byte aligned).
 * Returns 0, or -1 with a message when the blob is malformed. */
int frame_view(const void *buf, size_t len, frame_t *out, char *err, size_t errlen);

/* Row operations, producing owned frames with the same columns, labels and
 * index levels as src. */
/* Rows rows[0..n) of src in that order (each 0 <= rows[i] < src->nrows). */
int frame_take(const frame_t *src, const int64_t *rows, int64_t n, frame_t *out);
/* One column's rows (the same rule). */
int fcol_take(const fcol_t *c, const int64_t *rows, int64_t n, fcol_t *out);
/* Rows [start, start + n) of src. */
int frame_slice(const frame_t *src, int64_t start, int64_t n, frame_t *out);
/* The rows of parts[0..n) one after the other; every part must have the
 * same column count and types as parts[0] (labels taken from parts[0]),
 * but for int64 beside float64, which becomes float64.
 * range_index parts get positions renumbered continuously from 0. */
int frame_concat(const frame_t *const *parts, int n, frame_t *out);

#endif
