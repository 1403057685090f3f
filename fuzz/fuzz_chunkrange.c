/* fuzz_chunkrange.c: libFuzzer target for the query string of the worker's
 * chunk route (services/common/chunkrange.h). Whatever parses must format
 * back to a query that parses to the same range, and a box that resolves
 * against its own size must yield runs inside the chunk whose lengths add
 * up to the answer's length. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chunkrange.h"

/* Runs walked per input: enough to cover every shape of a small box, few
 * enough that a box of a billion rows does not stall the fuzzer. */
#define MAX_RUNS 100000

static void check_runs(const chunkrange_t *r, uint64_t size, uint64_t want)
{
    chunkrange_iter_t it;
    chunkrange_iter_init(&it, r);
    uint64_t off, len, sum = 0, prev_end = 0;
    int n = 0;
    while (n < MAX_RUNS && chunkrange_iter_next(&it, &off, &len)) {
        if (off < prev_end || off > size || len > size - off) abort();
        prev_end = off + len;
        sum += len;
        n++;
    }
    if (n < MAX_RUNS && sum != want) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    chunkrange_t r, r2;
    if (chunkrange_parse((const char *)data, size, &r, err, sizeof err) != 0) return 0;
    char q[4096];
    int n = chunkrange_format(&r, q, sizeof q);
    if (n < 0) return 0; /* 32 dims of 20-digit pairs do not fit: not an error */
    if (chunkrange_parse(q, (size_t)n, &r2, err, sizeof err) != 0) abort();
    if (r2.kind != r.kind || r2.offset != r.offset || r2.length != r.length || r2.ndim != r.ndim ||
        r2.itemsize != r.itemsize)
        abort();
    for (int d = 0; d < r.ndim; d++)
        if (r2.shape[d] != r.shape[d] || r2.lo[d] != r.lo[d] || r2.hi[d] != r.hi[d]) abort();
    uint64_t total = r.itemsize, len;
    for (int d = 0; d < r.ndim; d++) {
        if (r.shape[d] && total > UINT64_MAX / r.shape[d]) return 0;
        total *= r.shape[d];
    }
    if (r.kind == CHUNKRANGE_BOX) {
        if (chunkrange_resolve(&r, total, &len, err, sizeof err) != 0) abort();
        check_runs(&r, total, len);
        if (total > 0 && chunkrange_resolve(&r, total - 1, &len, err, sizeof err) == 0) abort();
    } else {
        uint64_t sz = r.offset + (r.length == UINT64_MAX ? 5 : r.length);
        if (sz >= r.offset && chunkrange_resolve(&r, sz, &len, err, sizeof err) != 0) abort();
    }
    return 0;
}
