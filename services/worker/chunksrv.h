/* chunksrv.h: the worker's chunk route on its -p port (issue 11):
 *
 *   GET /api/v1/chunks/{key}[?offset=O&length=N | ?shape=..&itemsize=K&box=..]
 *
 * 200 application/octet-stream with Content-Length, streamed from the store
 * in pieces on the server's stream threads (--n-io-process). A byte range
 * is read with store_read (a spilled chunk straight from its file); a box
 * pins the chunk (store_get) and gathers its rows. 404 not_found when the
 * worker does not hold the key, 400 bad_request for parameters
 * chunkrange_parse/chunkrange_resolve refuse. The server's token guards
 * it like every route but /health.
 *
 * The http server's app pointer (http_opts_t.app) must point to a struct
 * whose FIRST member is a chunksrv_app_t: the handler finds the store
 * there. */
#ifndef MARS_WORKER_CHUNKSRV_H
#define MARS_WORKER_CHUNKSRV_H

#include "http.h"
#include "metrics.h"
#include "store.h"

typedef struct chunksrv_app {
    store_t *store;
    metrics_counter_t *bytes_served; /* may be NULL; chunksrv_app_init sets */
    metrics_counter_t *not_found;
} chunksrv_app_t;

/* Fills a (metrics may be NULL). */
void chunksrv_app_init(chunksrv_app_t *a, store_t *store, metrics_registry_t *metrics);

#define CHUNKSRV_PATTERN "/api/v1/chunks/{}"
/* Route entry: {"GET", CHUNKSRV_PATTERN, chunksrv_handle_get}. */
void chunksrv_handle_get(http_req_t *r);

#endif
