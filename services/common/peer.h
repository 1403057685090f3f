/* peer.h: blocking HTTP/1.1 client for chunk reads from a worker's -p port
 * (GET /api/v1/chunks/{key}, docs/data-plane.md). Workers read their inputs
 * from peers with it, the gateway reads results.
 *
 * A pool keeps keep-alive connections by address. A pool belongs to one
 * thread at a time (one per dispatcher slot, one per gateway pool thread):
 * nothing in it is locked. A request on a cached connection that turns out
 * stale (the peer closed it while idle) is retried once on a new one.
 *
 * Results: 0, or
 *   PEER_UNREACHABLE  connect or I/O failure, timeout: the holder is
 *                     probably dead (recompute from lineage)
 *   PEER_NOT_FOUND    the holder answered 404: it does not hold the chunk
 *   PEER_BAD          any other status (401, 400, 5xx), or a body whose
 *                     length is not the one expected
 *   PEER_ABORTED      a stream's sink asked to stop
 * each with a message in err naming the address, key and what happened. */
#ifndef MARS_SVC_PEER_H
#define MARS_SVC_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chunkrange.h"

#define PEER_UNREACHABLE (-1)
#define PEER_NOT_FOUND (-2)
#define PEER_BAD (-3)
#define PEER_ABORTED (-4)

/* NULL for the whole chunk; else a byte range or a box (chunkrange.h). */
typedef chunkrange_t peer_range_t;

typedef struct peer_pool peer_pool_t;

/* Idle connections a pool keeps: a worker reads from a few dozen peers at
 * most; past 64 the oldest is closed. */
#define PEER_POOL_MAX 64
/* Requests in one peer_get_many: the inputs of one job. */
#define PEER_MANY_MAX 256

peer_pool_t *peer_pool_create(void); /* owned by the caller: peer_pool_free */
void peer_pool_free(peer_pool_t *p); /* closes every connection */

/* Reads exactly n bytes (the answer's Content-Length must be n) of chunk
 * `key` from addr ("host:port", "[v6]:port") into dst. token NULL or "":
 * no Authorization header. timeout_ms bounds the whole read. */
int peer_get(peer_pool_t *pool, const char *addr, const char *token, const char *key,
             const peer_range_t *range, void *dst, size_t n, int timeout_ms, char *err,
             size_t errlen);

typedef struct peer_req {
    /* in */
    const char *addr, *token, *key;
    const peer_range_t *range; /* NULL: whole chunk */
    void *dst;
    size_t n;
    /* out */
    int rc; /* as peer_get */
    /* The address, the key and the peer's own message fit. */
    char err[1024];
} peer_req_t;
/* Runs n (<= PEER_MANY_MAX) reads in parallel, one connection each, with
 * poll(); timeout_ms bounds them all. Each request gets its own rc and err.
 * Returns the number of requests that failed. */
int peer_get_many(peer_pool_t *pool, peer_req_t *reqs, int n, int timeout_ms);

/* Streams the body to the caller piece by piece (pieces of at most 1 MiB)
 * so that the caller never holds a whole chunk: begin (may be NULL) gets
 * the Content-Length once before any data; data gets each piece. Either
 * returning non-zero stops the read (PEER_ABORTED; the connection is
 * closed). timeout_ms bounds each wait for the peer, not the whole stream
 * (a large chunk to a slow sink may take longer). A failure after some data
 * was handed over leaves the caller with a partial body: it must fail its
 * own answer. */
typedef struct peer_sink {
    int (*begin)(void *ctx, uint64_t content_length);
    int (*data)(void *ctx, const void *p, size_t n);
    void *ctx;
} peer_sink_t;
int peer_stream(peer_pool_t *pool, const char *addr, const char *token, const char *key,
                const peer_range_t *range, const peer_sink_t *sink, int timeout_ms, char *err,
                size_t errlen);

/* Reads a whole chunk whose size the caller does not know (a frame blob):
 * *out is malloc'ed with the answer's Content-Length, at most max bytes
 * (a larger answer is PEER_BAD). The caller frees *out. */
int peer_get_alloc(peer_pool_t *pool, const char *addr, const char *token, const char *key,
                   uint64_t max, void **out, size_t *n, int timeout_ms, char *err, size_t errlen);

#endif
