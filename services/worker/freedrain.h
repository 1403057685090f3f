/* freedrain.h: frees chunks the supervisor no longer needs. The
 * supervisor (or gateway) pushes chunk keys onto the Redis list
 * MSG_FREE (msg.h) + worker id; a thread here pops them in batches and
 * calls store_free on each. Its own Redis connection. */
#ifndef MARS_WORKER_FREEDRAIN_H
#define MARS_WORKER_FREEDRAIN_H

#include <stddef.h>

#include "metrics.h"
#include "store.h"

typedef struct freedrain freedrain_t;

/* Keys per LPOP: a task's end frees a few thousand chunks; 256 per round
 * trip keeps each reply small. */
#define FREEDRAIN_BATCH 256
/* BLPOP block when the list is empty: short enough that a stop is seen
 * within a second (RQ_BLOCK_MARGIN_MS below the socket timeout). */
#define FREEDRAIN_BLOCK_MS 500

/* Starts the thread. NULL with err on a bad URL. Owned: freedrain_stop. */
freedrain_t *freedrain_start(const char *redis_url, const char *worker_id, store_t *store,
                             metrics_registry_t *metrics, char *err, size_t errlen);
/* Stops the thread (within FREEDRAIN_BLOCK_MS + a round trip) and frees. */
void freedrain_stop(freedrain_t *d);

#endif
