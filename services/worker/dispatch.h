/* dispatch.h: the worker's job loop, the seam where task execution plugs in.
 *
 * Now: it owns the counters the heartbeat reports (chunks running and done,
 * cache bytes), all zero, and takes no job from the queue, so that a worker
 * started today never takes a job it cannot run.
 *
 * With the engine's tiler and executor: dispatch_start starts n_cpu slot
 * threads; each moves a job from the Redis queue to its own processing list
 * (BLMOVE, with a block timeout below the socket timeout, see rq.h), reads
 * the inputs (cache, then chunk store), runs the kernel through engine/
 * with single-threaded BLAS, writes the output chunk, reports completion
 * with the job's attempt, and drops the job from its processing list. */
#ifndef MARS_WORKER_DISPATCH_H
#define MARS_WORKER_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

typedef struct dispatch dispatch_t;

typedef struct dispatch_stats {
    int chunks_running;
    int64_t chunks_done;
    int64_t cache_used;
} dispatch_stats_t;

/* c must outlive the dispatcher. NULL only on OOM. */
dispatch_t *dispatch_create(const cfg_t *c);
int dispatch_start(dispatch_t *d, char *err, size_t errlen);
/* Safe from any thread. */
void dispatch_stats(const dispatch_t *d, dispatch_stats_t *out);
/* Stops the slots (running jobs finish) and frees. */
void dispatch_free(dispatch_t *d);

#endif
