/* libFuzzer target: frame_view on arbitrary bytes. An accepted blob is read
 * completely (every value, string and label) and serialized again, which
 * must give the same size: a view never reads outside its blob. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "df/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t *buf = malloc(size + 8);
    if (!buf) return 0;
    memcpy(buf, data, size);
    frame_t f;
    char err[256];
    if (frame_view(buf, size, &f, err, sizeof err) == 0) {
        uint64_t sink = 0;
        for (int k = 0; k < f.ncols + f.nidx; k++) {
            const fcol_t *c = k < f.ncols ? &f.cols[k] : &f.idx[k - f.ncols];
            for (int64_t i = 0; i < f.nrows; i++) {
                sink += fcol_is_na(c, i);
                if (c->type == FT_STRING) {
                    int64_t l;
                    const char *s = fcol_str(c, i, &l);
                    if (l > 0) sink += (uint8_t)s[l - 1];
                }
            }
        }
        if (sink == UINT64_MAX) abort();
        size_t n = frame_blob_size(&f);
        void *out = malloc(n);
        if (out) {
            frame_serialize(&f, out);
            frame_t g;
            if (frame_view(out, n, &g, err, sizeof err) != 0) abort();
            frame_free(&g);
            free(out);
        }
        frame_free(&f);
    }
    free(buf);
    return 0;
}
