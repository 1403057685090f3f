/* inputs.h: a job's inputs, wherever they live (docs/cluster-protocol.md,
 * "Data plane"): this worker's store first, else where mars:loc:<tid>
 * says: inline in Redis (small chunks, uploads) or on the worker that made
 * it, read over its -p port (peer.h), several peers in parallel. Copies of
 * peers' chunks go into the store as cached entries once the job has run.
 *
 * A shuffle's consumer reads only its part of each partition pack
 * (engine/df/dfexec.h), by byte ranges, wherever the pack lives. */
#ifndef MARS_WORKER_INPUTS_H
#define MARS_WORKER_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "peer.h"
#include "plan.h"
#include "rq.h"
#include "store.h"

/* Worker id -> address, shared by the slots. */
typedef struct addrs addrs_t;
addrs_t *addrs_create(void);
void addrs_free(addrs_t *a);

/* What one slot needs to read inputs. */
typedef struct {
    rq_t *r;
    peer_pool_t *pool;
    store_t *store;
    addrs_t *addrs;
    const char *token; /* the cluster's, for peers; NULL or "": none */
    const char *self;  /* this worker's id: its own chunks are in the store */
    int slot;          /* the slot's index (which device a device job uses) */
} islot_t;

/* The distinct inputs of one job, loaded. */
typedef struct {
    int n;
    int32_t *job;
    const void **data;
    size_t *len;
    store_ref_t **ref; /* pinned entries of the store */
    void **own;        /* fetched copies (malloc'ed) */
    char (*key)[MSG_KEY_MAX];
    int64_t fetched_bytes; /* read from peers or Redis */
} jinputs_t;

/* Results: 0, INPUTS_ERR (a message for an err completion: the task
 * fails), INPUTS_RETRY (an input's holder is gone or did not answer: the
 * job runs again later, once the supervisor has made it anew). */
#define INPUTS_ERR (-1)
#define INPUTS_RETRY (-2)

/* Job ji of t: a decoded job descriptor (engine tile.h, jobdesc_decode:
 * ji 0, its sources 1..n) or a task's tile; p: the task's plan (graph,
 * session tensors' chunk keys). */

/* Bytes of job ji's distinct inputs that are not in the store now (what
 * loading them would add to memory), and their total. For admission. */
int64_t inputs_missing_bytes(const islot_t *s, const char *tid, const plan_t *p, const tile_t *t,
                             int32_t ji);

/* Loads every distinct input of job ji into in (in->job: t's indexes).
 * On failure everything taken is released. err names the node's chunk and
 * what went wrong. on_device: the job runs on a device, so a chunk of our
 * store whose bytes are only on a device stays there (store_get_dev);
 * inputs_to_host brings them back if the job runs on the CPU after all. */
int inputs_load(islot_t *s, const char *tid, const plan_t *p, const tile_t *t, int32_t ji,
                bool on_device, jinputs_t *in, char *err, size_t errlen);
/* Copies back any input whose bytes are only on a device. 0, or -1 with
 * err. */
int inputs_to_host(const jinputs_t *in, char *err, size_t errlen);
/* The job's get callback for exec_job_any (ctx: the jinputs_t). */
const void *inputs_get(void *ctx, int32_t job, size_t *len);
/* Releases the pinned entries and offers the fetched copies to the store
 * (cached); frees in. */
void inputs_done(islot_t *s, jinputs_t *in);

#endif
