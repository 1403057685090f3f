/* assemble.h: a chunked tensor streamed out in C order, as .npy or as the
 * JSON form of graph-format.md, without ever holding more than one slab
 * (the chunks of one chunk-row along axis 0). Used by mars-run and by the
 * gateway, which differ only in where chunks come from and where bytes go. */
#ifndef MARS_ASSEMBLE_H
#define MARS_ASSEMBLE_H

#include <stddef.h>
#include <stdint.h>

#include "tile.h"

/* The data of the chunk at grid position li (C order over G->nchunks); the
 * pointer must stay valid until the next call. NULL: missing (an error). */
typedef const void *(*asm_get_fn)(void *ctx, int64_t li);
/* Takes n bytes of output; returns 0, or -1 to stop (e.g. a closed socket). */
typedef int (*asm_sink_fn)(void *ctx, const void *data, size_t n);

/* The raw C-order data. Only G's shape, dt, nchunks and bounds are read. */
int asm_stream_raw(const tgrid_t *G, asm_get_fn get, void *gctx, asm_sink_fn sink, void *sctx,
                   char *err, size_t errlen);
/* A .npy file (format 1.0): the header, then the data. */
int asm_stream_npy(const tgrid_t *G, asm_get_fn get, void *gctx, asm_sink_fn sink, void *sctx,
                   char *err, size_t errlen);
/* {"shape": [...], "dtype": "...", "data": <nested lists>}; NaN and
 * infinities as the strings "nan", "inf", "-inf"; floats in the shortest
 * form that reads back to the same value. */
int asm_stream_json(const tgrid_t *G, asm_get_fn get, void *gctx, asm_sink_fn sink, void *sctx,
                    char *err, size_t errlen);
/* Bytes of the .npy form (header and data), for Content-Length. */
int64_t asm_npy_size(const tgrid_t *G);

#endif
