/* taskcache.h: the worker's per-task cache: a few recent tasks' plans
 * (mars:plan:<tid>) parsed and prepared once, shared by the slots. An
 * entry is checked against the stored plan's first bytes (TASKCACHE_PREFIX)
 * on every batch, so that a new owner (a takeover rewrites the plan) is
 * seen at once: the old entry goes stale and is freed once no slot holds
 * it. */
#ifndef MARS_WORKER_TASKCACHE_H
#define MARS_WORKER_TASKCACHE_H

#include <stddef.h>

#include "plan.h"
#include "rq.h"

/* Bytes of the stored plan compared: the owner comes first in the plan
 * text, so a takeover (new owner) changes them. */
#define TASKCACHE_PREFIX 160

typedef struct taskcache taskcache_t;
typedef struct tc_entry tc_entry_t;

/* token: the cluster's, for reading a DataFrame source's schema. */
taskcache_t *taskcache_create(const char *token);
void taskcache_free(taskcache_t *c);

/* The prepared plan of tid whose stored text starts with prefix (plen
 * bytes): cached, else read from Redis (r: the calling slot's) and
 * prepared. Held until taskcache_release. NULL with err (the plan is gone
 * or does not parse). */
tc_entry_t *taskcache_get(taskcache_t *c, rq_t *r, const char *tid, const char *prefix, size_t plen,
                          char *err, size_t errlen);
void taskcache_release(taskcache_t *c, tc_entry_t *e);
const plan_t *tc_plan(const tc_entry_t *e);

#endif
