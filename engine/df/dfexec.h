/* dfexec.h: what a DataFrame job (tile.h's JK_DF) runs, and the frame
 * helpers shared by the executor, mars-run and the gateway.
 *
 * A job's inputs are other jobs' outputs: frame blobs (frame.h), packs of
 * blobs (the outputs of partition steps), fixed-size reduction partials, or
 * tensor arrays (from_tensor's input). Its output is a frame blob or a pack,
 * allocated by the job (malloc, 8-byte aligned), or fixed bytes written
 * where the caller says (partials, and the 0-d tensor of a Series
 * reduction). */
#ifndef MARS_DF_DFEXEC_H
#define MARS_DF_DFEXEC_H

#include <stddef.h>
#include <stdint.h>

#include "../tile.h"
#include "frame.h"

/* An input: its bytes and their count. */
typedef struct {
    const void *data;
    size_t len;
} dfx_in_t;

/* Bytes of the reduction partials of ncols columns. */
size_t dfx_partial_bytes(int ncols);

/* Runs JK_DF job ji of t. A blob job sets *blob (malloc'ed, the caller
 * frees it) and *blob_len; another writes job_nbytes bytes at fixed_out.
 * Returns 0, or -1 with a message. */
int dfx_run(const tile_t *t, int32_t ji, const dfx_in_t *ins, void **blob, size_t *blob_len,
            void *fixed_out, char *err, size_t errlen);

/* ---- packs: several frame blobs in one output ----
 * u64 magic, u64 nparts, u64 offsets[nparts + 1] from the pack's start,
 * then the blobs, each 8-aligned. */
/* Blob p of a pack (checked against len); 0, or -1 with a message. */
int dfx_pack_part(const void *pack, size_t len, int64_t p, const void **blob, size_t *blob_len,
                  int64_t *nparts, char *err, size_t errlen);

/* The rows of parts[0..n) one after the other, as frame_concat, first
 * making column types agree as pandas' concat would (int64 with float64
 * gives float64; a bool column with missing values in one part has them
 * in the result). n >= 1. 0, or -1 with a message. */
int dfx_concat(const frame_t *const *parts, int n, frame_t *out, char *err, size_t errlen);

/* The value of a DataFrame or Series node from its chunks' blobs, in
 * order (views of them, concatenated; range indexes renumbered). */
int dfx_assemble(const void *const *blobs, const size_t *lens, int64_t n, frame_t *out, char *err,
                 size_t errlen);

/* Output: sink takes bytes, returns 0 or -1 to stop. */
typedef int (*dfx_sink_fn)(void *ctx, const void *data, size_t n);
/* JSON, graph-format.md's DataFrames section: a DataFrame as
 * {"columns", "index", "data", "dtypes"} (pandas' "split" orientation plus
 * dtypes), a Series as {"name", "index", "data", "dtype"}. Missing values
 * (NaN, NA) are null, infinities the strings "inf" and "-inf"; floats in
 * the shortest form that reads back to the same value. */
int dfx_write_json(const frame_t *f, dfx_sink_fn sink, void *ctx);
/* CSV as pandas' to_csv(): a header (index names, then column names), the
 * index first on each line; fields quoted when they hold a comma, a quote
 * or a line end. */
int dfx_write_csv(const frame_t *f, dfx_sink_fn sink, void *ctx);
/* The tensor of a to_tensor result (a frame of columns of one type) as a
 * .npy file (ndim 1 for a Series, else 2) or as graph-format.md's tensor
 * JSON. */
int dfx_write_tensor_npy(const frame_t *f, int ndim, dfx_sink_fn sink, void *ctx);
/* A held result's frame laid out as a C-order array of ndim (1 or 2) axes,
 * rows first: malloc'ed, with its dtype, shape and size; NULL with err. */
void *dfx_frame_rows(const frame_t *f, int ndim, dtype_t *dt, shape_t *sh, size_t *nbytes,
                     char *err, size_t errlen);
int dfx_write_tensor_json(const frame_t *f, int ndim, dfx_sink_fn sink, void *ctx);

#endif
