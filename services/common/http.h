/* http.h: HTTP server on libh2o (evloop flavour) with a route table and a
 * pool of blocking-work threads.
 *
 * Threads: n_loops event-loop threads share one listening socket, each with
 * its own h2o context (nothing mutable is shared between loops). Handlers
 * run on a loop thread and must not block: work that blocks (PostgreSQL,
 * Redis) goes through http_defer to the server's pool of n_workers threads,
 * each with its own state (its own database and queue connections, made by
 * worker_init). The reply comes back to the request's loop through an h2o
 * multithread queue; if the client went away meanwhile it is dropped.
 *
 * Why a thread pool rather than libpq's asynchronous API on the loop: the
 * gateway's statements are short, a pool of a few connections serves
 * thousands of requests per second, and the same seam serves Redis (whose
 * hiredis has no h2o adapter) and any future blocking work, without
 * reimplementing connection state machines on the loop. The pool's queue
 * is bounded so that a stalled database turns into quick 503s rather than
 * unbounded memory.
 *
 * Routes: a pattern is a path whose `{}` segments match any one non-empty
 * segment, captured in order (http_param). A path that matches no pattern
 * gets 404, one that matches only under other methods gets 405 with Allow;
 * both with the JSON error body. The pure parts (patterns, query strings,
 * tokens) are in httpparse.h. */
#ifndef MARS_SVC_HTTP_H
#define MARS_SVC_HTTP_H

#include <stddef.h>

#include <jansson.h>

#include "metrics.h"

typedef struct http_server http_server_t;
typedef struct http_req http_req_t;

/* A reply being built: on a loop thread (http_send) or in a deferred job. */
typedef struct http_reply {
    int status;
    const char *content_type; /* static string */
    char *body;               /* malloc'd, owned by the reply; NULL for none */
    size_t len;
    const char *allow; /* Allow header (405), static string or NULL */
    /* More headers: name, value, name, value, ..., NULL; static strings, or
     * NULL for none. */
    const char *const *headers;
} http_reply_t;

typedef void (*http_handler_fn)(http_req_t *r);
/* Runs on a pool thread with that thread's state; fills out. */
typedef void (*http_job_fn)(void *thread_state, void *arg, http_reply_t *out);

typedef struct http_route {
    const char *method;  /* "GET", ... */
    const char *pattern; /* "/api/v1/sessions/{}/tasks" */
    http_handler_fn fn;
} http_route_t;

/* Captured {} segments per route: the deepest path of the API has two. */
#define HTTP_MAX_PARAMS 4
/* Loop threads: past 16, one machine's NIC, not the loops, is the limit. */
#define HTTP_MAX_LOOPS 16

/* Tokens the server compares (config.h's CFG_TOKEN_MAX). */
#define HTTP_TOKEN_MAX 257

typedef struct http_opts {
    const char *name; /* "gateway", "supervisor", "worker": metrics label */
    const char *host; /* address to bind */
    int port;         /* 0: a free one (http_server_port tells which) */
    int n_loops;
    size_t max_body; /* h2o answers 413 above it */
    const http_route_t *routes;
    int n_routes;
    void *app; /* handed to handlers (http_app) */
    /* NULL or "": every route is open. Else every route but GET /health
     * needs `Authorization: Bearer TOKEN` or the cookie mars_token=TOKEN
     * (401 with WWW-Authenticate otherwise), and GET /?token=TOKEN sets
     * that cookie (HttpOnly, SameSite=Strict, Path=/) and redirects to /.
     * Copied. */
    const char *token;
    metrics_registry_t *metrics;
    /* Blocking pool; n_workers 0: no pool (http_defer then answers 500). */
    int n_workers;
    /* Threads for http_defer_stream only (same worker_init), so that long
     * downloads never starve short requests; 0: streams use the pool. */
    int n_stream_workers;
    void *(*worker_init)(void *app); /* per-thread state; may return NULL */
    void (*worker_close)(void *state);
} http_opts_t;

/* Binds, starts the loops and the pool. The caller owns *out: http_server_free. */
int http_server_start(const http_opts_t *o, http_server_t **out, char *err, size_t errlen);
int http_server_port(const http_server_t *s);
/* Runs every waiting long poll's next turn now instead of at its timer
 * (any thread): something they may wait for has happened (a task ended). */
void http_poll_kick(http_server_t *s);
/* Stops accepting, ends the loops and the pool (jobs in flight finish
 * first), frees everything. */
void http_server_free(http_server_t *s);

/* ---- in handlers (loop thread) ---- */
void *http_app(const http_req_t *r);
const char *http_param(const http_req_t *r, int i); /* NUL-terminated, in the request's pool */
const char *http_body(const http_req_t *r, size_t *len);
/* Sends the reply and takes its body. */
void http_send(http_req_t *r, http_reply_t *rep);
/* Copies arg (arg_size bytes) and runs fn on the pool; the reply is sent
 * when it is done. */
void http_defer(http_req_t *r, http_job_fn fn, const void *arg, size_t arg_size);

/* The query-string parameter `name`, percent-decoded ('+' is a space), in
 * the request's pool; NULL when absent. The first occurrence wins. */
const char *http_query(const http_req_t *r, const char *name);
/* The whole query string as it came (after '?', not decoded, not
 * NUL-terminated), len bytes; "" with len 0 when there is none. For routes
 * that parse strictly and refuse unknown parameters. */
const char *http_query_raw(const http_req_t *r, size_t *len);
/* The request header `name` (any case), NUL-terminated in the request's
 * pool; NULL when absent. */
const char *http_header(const http_req_t *r, const char *name);

/* Long polls. Like http_defer, but a job that leaves out->status at 0 means
 * "not yet": it runs again, with the same arg (which it may update), after
 * HTTP_POLL_MS on its loop's timer. No pool thread is held in between, so
 * a thousand waiting clients cost a thousand short statements per 100 ms,
 * not a thousand threads. The job bounds the wait itself (a deadline in
 * arg). A client that goes away ends the polling. */
#define HTTP_POLL_MS 100
/* The first HTTP_POLL_FAST_TURNS turns of a long poll come every
 * HTTP_POLL_FAST_MS instead: a short task's answer then waits ~5 ms, not
 * ~50 (issue 7, W6), for at most 18 more short statements per client. */
#define HTTP_POLL_FAST_MS 10
#define HTTP_POLL_FAST_TURNS 20
void http_defer_poll(http_req_t *r, http_job_fn fn, const void *arg, size_t arg_size);

/* Streamed answers. fn runs on a pool thread like a deferred job. It either
 * fills out (a plain answer, e.g. an error) or calls http_stream_begin and
 * then http_stream_write as often as it likes; the bytes travel to the
 * request's loop through a bounded queue (HTTP_STREAM_QUEUE pieces of
 * HTTP_STREAM_PIECE bytes) and h2o sends each piece from the generator's
 * proceed callback, so a slow client slows the producer instead of growing
 * memory. The answer ends when fn returns. */
typedef struct http_stream http_stream_t;
typedef void (*http_stream_fn)(void *thread_state, void *arg, http_stream_t *st, http_reply_t *out);
/* 1 MiB pieces: h2o sends them at GB/s (STACK-NOTES); four in the queue
 * keep the socket busy while the producer reads the next chunk. */
#define HTTP_STREAM_PIECE (1u << 20)
#define HTTP_STREAM_QUEUE 4
void http_defer_stream(http_req_t *r, http_stream_fn fn, const void *arg, size_t arg_size);
/* Starts the answer (content_type: a static string; content_length:
 * SIZE_MAX when unknown, then the body is chunked). out is ignored after. */
void http_stream_begin(http_stream_t *st, int status, const char *content_type,
                       size_t content_length);
/* Queues n bytes, blocking while the queue is full. -1 when the client went
 * away or the server is stopping: fn should return. */
int http_stream_write(http_stream_t *st, const void *data, size_t n);
/* Queues the n bytes at data without copying them (after what was written
 * before): they must stay valid until done(ctx) runs. It runs exactly once:
 * on the loop thread once h2o has sent them, or on whichever thread drops
 * an answer that ends early (client gone, server stopping), which may be
 * before this returns. Blocks while the queue is full; -1 as
 * http_stream_write. */
int http_stream_give(http_stream_t *st, const void *data, size_t n, void (*done)(void *ctx),
                     void *ctx);
/* The body cannot be completed (a chunk went missing): the connection is
 * closed after what was sent, so the client sees a truncated answer rather
 * than a wrong one. */
void http_stream_fail(http_stream_t *st);

/* Handlers every service mounts: GET /health and GET /metrics. */
void http_handle_health(http_req_t *r);
void http_handle_metrics(http_req_t *r);

/* ---- reply builders (any thread; httpreply.c) ---- */
/* The reason phrase of a status ("Not Found"). */
const char *http_reason(int status);
void http_reply_json(http_reply_t *rep, int status, json_t *doc); /* steals doc */
/* body is a JSON text the caller already has (from PostgreSQL); copied. */
void http_reply_json_text(http_reply_t *rep, int status, const char *body);
/* {"error": {"code": code, "message": ...}} */
void http_reply_error(http_reply_t *rep, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
