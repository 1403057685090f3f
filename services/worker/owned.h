/* owned.h: the chunks this worker made, and their collection.
 *
 * The supervisor frees a chunk when its last consumer ran (mars:free:<id>,
 * freedrain.h), and frees the chunks of a task that failed or was
 * cancelled. What no free message reaches is collected here: a second
 * copy made by a job that ran twice (a requeue, a stale attempt), the
 * chunks of a task whose session was deleted. Every OWNED_GC_MS the chunks
 * this worker made are looked at: one whose task has ended (its plan is
 * gone) and that mars:loc:<tid> does not place on this worker is garbage,
 * and dropped from the store. A running task's chunks are never touched. */
#ifndef MARS_WORKER_OWNED_H
#define MARS_WORKER_OWNED_H

#include <stddef.h>

#include "metrics.h"
#include "store.h"

#define OWNED_GC_MS 5000

typedef struct owned owned_t;

/* Starts the collecting thread (its own Redis connection). NULL with err. */
owned_t *owned_start(const char *redis_url, const char *self, store_t *store,
                     metrics_registry_t *metrics, char *err, size_t errlen);
/* Records a chunk this worker put in its store (owned). */
void owned_add(owned_t *o, const char *key);
/* One collection pass now (the thread calls it; tests too). Returns the
 * chunks dropped, or -1 when Redis did not answer. */
int owned_collect(owned_t *o);
void owned_stop(owned_t *o);

#endif
