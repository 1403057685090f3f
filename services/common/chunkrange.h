/* chunkrange.h: what part of a chunk a read asks for, as the query string
 * of GET /api/v1/chunks/{key} carries it (docs/data-plane.md). Pure: the
 * worker's route parses with it, peer.h formats with it, the fuzzer
 * (fuzz/fuzz_chunkrange.c) feeds it garbage. Nothing here allocates.
 *
 *   (nothing)                      the whole chunk
 *   offset=O&length=N              bytes [O, O+N)  (length absent: to the end)
 *   shape=S0,S1,..&itemsize=K&box=A0:B0,A1:B1,..
 *                                  the C-order bytes of the sub-box
 *                                  [A0,B0) x [A1,B1) x ... of a C-order array
 *                                  of that shape and item size
 * Numbers are decimal without sign, checked against overflow; a box may not
 * be combined with offset/length. */
#ifndef MARS_SVC_CHUNKRANGE_H
#define MARS_SVC_CHUNKRANGE_H

#include <stddef.h>
#include <stdint.h>

/* The engine's MR_MAXDIM. */
#define CHUNKRANGE_MAX_DIMS 32

typedef enum { CHUNKRANGE_ALL = 0, CHUNKRANGE_BYTES = 1, CHUNKRANGE_BOX = 2 } chunkrange_kind_t;

typedef struct chunkrange {
    chunkrange_kind_t kind;
    /* CHUNKRANGE_BYTES: offset, and length (UINT64_MAX: to the end) */
    uint64_t offset, length;
    /* CHUNKRANGE_BOX */
    int ndim; /* 1..CHUNKRANGE_MAX_DIMS */
    uint64_t itemsize;
    uint64_t shape[CHUNKRANGE_MAX_DIMS];
    uint64_t lo[CHUNKRANGE_MAX_DIMS], hi[CHUNKRANGE_MAX_DIMS]; /* lo <= hi <= shape */
} chunkrange_t;

/* Parses a raw query string (qlen bytes, without '?', not percent-decoded:
 * the values use only digits , and :). Unknown parameters are refused.
 * Returns 0, or -1 with err naming the parameter and the rule. */
int chunkrange_parse(const char *query, size_t qlen, chunkrange_t *out, char *err, size_t errlen);
/* Checks r against a chunk of `size` bytes and gives the answer's length:
 * a byte range must lie within the chunk, a box's shape x itemsize must be
 * the chunk's size. Returns 0, or -1 with err. */
int chunkrange_resolve(const chunkrange_t *r, uint64_t size, uint64_t *out_len, char *err,
                       size_t errlen);
/* Writes the query string for r (no '?'; "" for CHUNKRANGE_ALL) into out.
 * Returns its length, or -1 when cap is too small. */
int chunkrange_format(const chunkrange_t *r, char *out, size_t cap);

/* For boxes: the runs of contiguous bytes, in C order. The innermost
 * dimensions that the box spans whole are merged into one run. */
typedef struct chunkrange_iter {
    const chunkrange_t *r;
    int outer;                            /* dims iterated; the rest make one run */
    uint64_t run;                         /* bytes per run */
    uint64_t idx[CHUNKRANGE_MAX_DIMS];    /* current index in the outer dims */
    uint64_t stride[CHUNKRANGE_MAX_DIMS]; /* bytes per step of each dim */
    int done;
} chunkrange_iter_t;
/* r must have passed chunkrange_resolve. */
void chunkrange_iter_init(chunkrange_iter_t *it, const chunkrange_t *r);
/* The next run: its byte offset in the chunk and length. 0 at the end. */
int chunkrange_iter_next(chunkrange_iter_t *it, uint64_t *off, uint64_t *len);

#endif
