/* scratch.h: big temporary buffers (a job's assembled inputs, generated
 * boxes) kept by the thread that freed them for its next job.
 *
 * A fresh multi-megabyte malloc is mapped anew and the kernel zeroes every
 * page on first touch; freed, glibc gives it back. A cluster worker running
 * W8 spent a fifth of its CPU in those page faults. Each thread keeps up to
 * SCRATCH_KEEP buffers of SCRATCH_MIN bytes or more, SCRATCH_KEEP_BYTES in
 * all (a bound on what a thread holds between jobs: 64 MiB), and frees them
 * when it exits. */
#ifndef MARS_SCRATCH_H
#define MARS_SCRATCH_H

#include <stddef.h>

#define SCRATCH_KEEP 4
#define SCRATCH_MIN ((size_t)256 << 10)
#define SCRATCH_KEEP_BYTES ((size_t)64 << 20)

/* n bytes (at least 1), 64-byte aligned; NULL when out of memory. */
void *scratch_alloc(size_t n);
/* Gives p (from scratch_alloc, or NULL) back: kept for reuse or freed. */
void scratch_free(void *p);
/* Frees what this thread keeps. */
void scratch_drop(void);

#endif
