/* npy.h: the .npy file format (numpy's NEP 1), for the dtypes of dtype.h.
 *
 * Writing produces format version 1.0 exactly as numpy 1.24's np.save does
 * (little-endian, C order, header padded so that the data starts at a
 * multiple of 64 bytes). Reading accepts versions 1.0, 2.0 and 3.0, the
 * descrs '<f8' '<f4' '<i8' '<i4' '|b1' ('<b1' and '=b1' too), C order only.
 *
 * Every function returns 0, or -1 with a message in err (when err is not
 * NULL) that names what failed and with which values. Nothing prints. */
#ifndef MARS_NPY_H
#define MARS_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

/* The largest header npy_header writes: 10 bytes of prefix, the dict with
 * MR_MAXDIM dimensions of at most 19 digits each (~720 bytes), numpy's 21
 * spaces of growth room and at most 64 bytes of padding stay under 1 KiB. */
#define NPY_HEADER_MAX 1024

/* The longest header the readers accept. numpy itself refuses headers over
 * 10000 characters unless told otherwise; a header of this engine's dtypes
 * and MR_MAXDIM dims is under 1 KiB. 64 KiB leaves room for padding other
 * writers add while bounding what a reader buffers before any check. */
#define NPY_HEADER_LEN_MAX 65536

/* Writes the header numpy writes for an array of dtype dt and shape into
 * buf (buflen bytes; NPY_HEADER_MAX always suffices) and its length, which
 * is a multiple of 64, into *hdrlen. -1 when a dimension is negative or buf
 * is too small. */
int npy_header(dtype_t dt, const shape_t *shape, char *buf, size_t buflen, size_t *hdrlen);

/* Parses the header at the start of buf (len bytes; only the header needs to
 * be there, the data may follow or not). On success fills *dt, *shape and
 * *data_offset (where the data starts, which is the header's length). Every
 * malformed or unsupported header gives -1 with a message; the function
 * never reads outside buf. Element count times item size must fit int64. */
int npy_parse_header(const void *buf, size_t len, dtype_t *dt, shape_t *shape, size_t *data_offset,
                     char *err, size_t errlen);

/* A whole .npy image in memory (an upload body): parses the header and
 * checks that exactly the announced data follows it. *data points into buf
 * (borrowed; valid while buf is), *nbytes is its size. */
int npy_parse(const void *buf, size_t len, dtype_t *dt, shape_t *shape, const void **data,
              size_t *nbytes, char *err, size_t errlen);

/* Reads the .npy file at path. On success *data is a malloc'ed buffer of
 * *nbytes bytes (never NULL, even when empty) that the caller frees with
 * free(). The file must hold exactly the data the header announces. */
int npy_read_file(const char *path, dtype_t *dt, shape_t *shape, void **data, size_t *nbytes,
                  char *err, size_t errlen);

/* ---------------------------------------------------------------------------
 * Streaming writer: the header at open, then the data in C order in pieces
 * of any size, then close, which checks that exactly the announced byte
 * count arrived. The struct is the caller's; its fields are private. */
typedef struct {
    int fd;
    bool own_fd;         /* opened from a path: closed by npy_writer_close */
    bool remove_on_fail; /* own_fd and a regular file: removed on failure */
    bool overrun;        /* a write would have passed the announced size */
    int error;           /* first errno of a failed write, 0 if none */
    char *buf;           /* write buffer, malloc'ed */
    size_t buf_used;
    uint64_t expected; /* data bytes the header announces */
    uint64_t received; /* data bytes accepted by npy_writer_write so far */
    char *path;        /* malloc'ed copy, own_fd only */
} npy_writer_t;

/* Creates (or truncates) the file at path, mode 0644, and writes the header. */
int npy_writer_open(npy_writer_t *w, const char *path, dtype_t dt, const shape_t *shape, char *err,
                    size_t errlen);
/* Writes to fd from its current position; the fd stays the caller's (never
 * closed by the writer). */
int npy_writer_open_fd(npy_writer_t *w, int fd, dtype_t dt, const shape_t *shape, char *err,
                       size_t errlen);
/* Appends n bytes of data. -1 when they would pass the announced size, or
 * when a write failed (the error is also reported again by close). */
int npy_writer_write(npy_writer_t *w, const void *data, size_t n, char *err, size_t errlen);
/* Flushes, checks the byte count and the writes (a full disk included), and
 * releases everything, whatever the outcome. On failure a regular file the
 * writer opened from a path is removed, so no truncated .npy is left behind
 * (a device or fifo path is left alone). */
int npy_writer_close(npy_writer_t *w, char *err, size_t errlen);

/* Writes a whole C-contiguous array (data: shape_size(shape) * dt_size(dt)
 * bytes, borrowed) to path in one call. */
int npy_write_file(const char *path, dtype_t dt, const shape_t *shape, const void *data, char *err,
                   size_t errlen);

#endif
