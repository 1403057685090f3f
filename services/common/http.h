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
 * both with the JSON error body. */
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

typedef struct http_opts {
    const char *name; /* "gateway", "supervisor", "worker": metrics label */
    const char *host; /* address to bind */
    int port;         /* 0: a free one (http_server_port tells which) */
    int n_loops;
    size_t max_body; /* h2o answers 413 above it */
    const http_route_t *routes;
    int n_routes;
    void *app; /* handed to handlers (http_app) */
    metrics_registry_t *metrics;
    /* Blocking pool; n_workers 0: no pool (http_defer then answers 500). */
    int n_workers;
    void *(*worker_init)(void *app); /* per-thread state; may return NULL */
    void (*worker_close)(void *state);
} http_opts_t;

/* Binds, starts the loops and the pool. The caller owns *out: http_server_free. */
int http_server_start(const http_opts_t *o, http_server_t **out, char *err, size_t errlen);
int http_server_port(const http_server_t *s);
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

/* Handlers every service mounts: GET /health and GET /metrics. */
void http_handle_health(http_req_t *r);
void http_handle_metrics(http_req_t *r);

/* ---- reply builders (any thread) ---- */
void http_reply_json(http_reply_t *rep, int status, json_t *doc); /* steals doc */
/* body is a JSON text the caller already has (from PostgreSQL); copied. */
void http_reply_json_text(http_reply_t *rep, int status, const char *body);
/* {"error": {"code": code, "message": ...}} */
void http_reply_error(http_reply_t *rep, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
