/* dispatch.h: the worker's job loop (docs/cluster-protocol.md).
 *
 * dispatch_start starts n_cpu slot threads, each with its own Redis
 * connection and single-threaded BLAS (kern_init), so that the worker never
 * runs more kernels at once than --n-cpu. A slot moves a job message
 * "<task_id> <job_index> <attempt>" from mars:jobs to mars:processing:<id>
 * (BLMOVE, block timeout below the socket timeout, see rq.h), drops it when
 * mars:task:<tid>:cancel is set or the task's plan is gone, parses the
 * task's plan mars:plan:<tid> once (taskcache.h: a few recent tasks, checked
 * against the stored plan's first bytes on every batch so that a new owner
 * is seen at once), decodes the job's descriptor from mars:jd:<tid> (read
 * in the batch's pipeline; no tiling: engine/tile.h jobdesc_decode), reads
 * the inputs (the worker's chunk cache, bounded by --cache-mem
 * and evicted least recently used first, else one pipelined GET), runs the
 * job through exec_job, SETs chunk:<tid>:<job>, RPUSHes the completion to
 * mars:done:<owner> and LREMs the message. */
#ifndef MARS_WORKER_DISPATCH_H
#define MARS_WORKER_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "memguard.h"
#include "metrics.h"
#include "store.h"

typedef struct dispatch dispatch_t;

typedef struct dispatch_stats {
    int chunks_running;
    int64_t chunks_done;
    int64_t cache_used;
} dispatch_stats_t;

/* c and m must outlive the dispatcher; worker_id names its processing list
 * and its completions (copied). Its counters and histograms go into m
 * (mars_worker_jobs_total{result}, mars_worker_job_seconds,
 * mars_worker_cache_lookups_total{result}). NULL only on OOM. */
dispatch_t *dispatch_create(const cfg_t *c, const char *worker_id, metrics_registry_t *m,
                            store_t *store, memguard_t *mg);
int dispatch_start(dispatch_t *d, char *err, size_t errlen);
/* Safe from any thread. */
void dispatch_stats(const dispatch_t *d, dispatch_stats_t *out);
/* What each slot runs now, as the JSON array of proto.h's `slots`
 * (malloc'ed, the caller frees). Safe from any thread. */
char *dispatch_slots_json(const dispatch_t *d);
/* Stops the slots (running jobs finish) and frees. */
void dispatch_free(dispatch_t *d);

#endif
