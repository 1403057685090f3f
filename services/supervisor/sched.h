/* sched.h: the supervisor's task execution (docs/cluster-protocol.md).
 *
 * One scheduler thread with its own connections: claims tasks (LISTEN
 * mars_task plus a poll every second; a lease renewed every second, taken
 * over once expired), tiles them through engine/ (plan.h), writes
 * mars:plan:<tid> and the chunk rows in batches, pushes ready jobs onto
 * mars:jobs, consumes completions from mars:done:<id> (its own Redis
 * connection, BLPOP below the socket timeout), releases successors, frees
 * intermediate chunks after their last consumer, ends tasks (tensors rows,
 * status, NOTIFY mars_task_done), cancels them, and re-queues the jobs of
 * workers whose heartbeat lapsed. */
#ifndef MARS_SUPERVISOR_SCHED_H
#define MARS_SUPERVISOR_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "metrics.h"

typedef struct sched sched_t;

typedef struct {
    const char *id;              /* this supervisor's id (copied) */
    const char *pg_dsn;          /* copied */
    const char *redis_url;       /* copied */
    int worker_timeout_ms;       /* a worker silent this long is dead */
    int max_attempts;            /* workers a job may lose before its task fails */
    int64_t sort_block_bytes;    /* tile_opts_t's; 0: the default */
    const char *token;           /* the cluster's, to read chunks from workers (copied) */
    metrics_registry_t *metrics; /* counters and histograms go here; outlives the scheduler */
} sched_opts_t;

/* Starts the scheduler thread. 0, or -1 with err. */
int sched_start(const sched_opts_t *o, sched_t **out, char *err, size_t errlen);
/* Stops the thread (the tasks it owns stay running in the database; their
 * lease lapses and another supervisor takes them over) and frees. */
void sched_free(sched_t *s);

#endif
