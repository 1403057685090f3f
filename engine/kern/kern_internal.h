/* kern_internal.h: what the kernel files share and nothing outside engine/kern
 * may use: block evaluation of element-wise programs (ew.c), used by the
 * fused reductions (reduce.c), and small helpers. */
#ifndef MARS_KERN_INTERNAL_H
#define MARS_KERN_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>

#include "kern.h"

/* Elements per block of an element-wise program. 1024 elements of at most
 * 8 bytes keep a three-register program (two operands and a result) within a
 * 32 KiB L1 data cache, and a long program's registers within L2; a call per
 * op per block costs nothing next to 1024 element operations. */
#define EW_BLOCK 1024

/* Scratch allocation: kernels have no error path for memory, as the rest of
 * the engine's allocator they abort when the system has none left. */
static inline void *kern_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

/* A program prepared for evaluation over output shape `shape`, block by
 * block. Owned by the caller: ew_ctx_free. */
typedef struct ew_ctx ew_ctx_t;

/* Returns NULL with a message in err when the program holds an op and dtype
 * pair no kernel implements (the builder's mistake, not the data's). */
ew_ctx_t *ew_ctx_create(const ew_prog_t *prog, const arr_t *inputs, const shape_t *shape, char *err,
                        size_t errlen);
/* Evaluates flat output positions [start, start + n), n <= EW_BLOCK, into
 * dst (n elements of the program's output dtype). 0, or -1 with err for data
 * errors (integers to negative integer powers). */
int ew_ctx_block(ew_ctx_t *c, int64_t start, int64_t n, void *dst, char *err, size_t errlen);
void ew_ctx_free(ew_ctx_t *c);

/* Calls fn once per contiguous segment of a chunk at offset off (shape cs)
 * inside a tensor of shape gs: a segment is contiguous both in the chunk
 * and in the tensor's C order (trailing axes the chunk spans whole merge
 * into one segment). Arguments: the segment's flat index in the tensor, its
 * flat index in the chunk, its length. Defined in create.c. */
typedef void (*kern_seg_fn)(void *ctx, int64_t gflat, int64_t lflat, int64_t len);
void kern_for_each_segment(const shape_t *cs, const shape_t *gs, const int64_t *off, kern_seg_fn fn,
                           void *ctx);

/* One Philox4x32-10 block in place: ctr is the counter, key the key (the
 * reference the batched generator in random.c must agree with). */
void kern_philox4x32_10(uint32_t ctr[4], const uint32_t key[2]);
/* random2.c: numpy's other distributions (per-element streams); false when
 * g's op is none of them. */
bool kern_random2(const kern_gen_t *g, const int64_t *off, arr_t *out);

/* shapes: logspace, geomspace and indices (create2.c, engine/shapes2.h) */
void kern_create_shapes2(const kern_gen_t *n, const int64_t *off, arr_t *out);

#endif
