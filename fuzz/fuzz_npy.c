/* fuzz_npy.c: npy_parse_header on arbitrary bytes must return 0 or -1 with a
 * message, never crash or read outside the input. When it accepts, the
 * header npy_header writes for the parsed dtype and shape must parse back to
 * the same dtype and shape, with the data starting right after it. The data
 * part goes through npy_parse too (exact size check). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A heap copy of exactly size bytes, so that ASan sees any over-read. */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) return 0;
    memcpy(buf, data, size);

    dtype_t dt, dt2;
    shape_t s, s2;
    size_t off, off2, hl, nb;
    const void *payload;
    char err[256], hdr[NPY_HEADER_MAX];
    err[0] = '\0';
    if (npy_parse_header(buf, size, &dt, &s, &off, err, sizeof err) < 0) {
        if (err[0] == '\0') abort(); /* every failure carries a message */
        goto done;
    }
    if (off > size || s.ndim < 0 || s.ndim > MR_MAXDIM) abort();
    if (npy_header(dt, &s, hdr, sizeof hdr, &hl) < 0) abort();
    if (npy_parse_header(hdr, hl, &dt2, &s2, &off2, err, sizeof err) < 0) abort();
    if (dt2 != dt || !shape_eq(&s, &s2) || off2 != hl || hl % 64 != 0) abort();
    if (npy_parse(buf, size, &dt2, &s2, &payload, &nb, err, sizeof err) == 0 &&
        ((const uint8_t *)payload != buf + off || off + nb != size))
        abort();
done:
    free(buf);
    return 0;
}
