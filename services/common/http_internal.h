/* http_internal.h: what http.c (server, routing, pools) and http_stream.c
 * (streamed replies) share. Not part of the services' face: they include
 * http.h. */
#ifndef MARS_HTTP_INTERNAL_H
#define MARS_HTTP_INTERNAL_H

#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <h2o.h>

#include "http.h"

/* Pool threads: each holds a database connection; PostgreSQL's default
 * max_connections is 100, shared by every service. */
#define MAX_WORKERS 64

typedef struct job job_t;

/* A pool of blocking-work threads and its bounded queue. */
typedef struct pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    job_t *head, *tail;
    int queued;
    bool stop;
    int n;
    pthread_t th[MAX_WORKERS];
    struct http_server *srv;
} pool_t;

typedef struct http_loop {
    http_server_t *srv;
    pthread_t tid;
    bool started; /* its thread runs (and has set itself up: init_rc 0) */
    sem_t ready;  /* posted by the loop's thread once init_rc is known */
    int init_rc;  /* loop_init's result, in the loop's own thread */
    char init_err[256];
    h2o_evloop_t *loop;
    h2o_context_t ctx;
    h2o_accept_ctx_t accept;
    h2o_socket_t *listener;
    h2o_multithread_receiver_t done;    /* completed jobs and the stop message */
    h2o_multithread_receiver_t streams; /* streams with something to send */
    h2o_multithread_message_t stop_msg;
    h2o_multithread_message_t kick_msg; /* http_poll_kick */
    bool kick_pending;                  /* kick_msg is on its way (atomics) */
    h2o_timeout_t poll_timeout;         /* long polls waiting for their next turn */
    h2o_timeout_t poll_fast;            /* the same in their first turns (HTTP_POLL_FAST_MS) */
    h2o_linklist_t conns;               /* conn_t: open connections, closed at stop */
    bool stop;
} http_loop_t;

/* An accepted connection, tracked until h2o closes its socket: at stop,
 * idle keep-alive connections (a peer's pool of chunk readers keeps them)
 * must be closed before the context is disposed of, which h2o asserts. */
typedef struct conn {
    h2o_linklist_t link;
    h2o_socket_t *sock;
} conn_t;

typedef struct handler {
    h2o_handler_t super;
    http_server_t *srv;
} handler_t;

struct http_server {
    char name[32];
    h2o_globalconf_t config;
    const http_route_t *routes;
    int n_routes;
    void *app;
    char token[HTTP_TOKEN_MAX]; /* "" : no authentication */
    metrics_registry_t *metrics;
    metrics_histogram_t *latency;
    int fd, port;
    int n_loops;
    http_loop_t loops[HTTP_MAX_LOOPS];

    pool_t pool;   /* http_defer, http_defer_poll */
    pool_t spool;  /* http_defer_stream (when it has threads; else pool) */
    bool stopping; /* the pools stop: read without a lock (atomics) by streams */
    void *(*worker_init)(void *app);
    void (*worker_close)(void *state);
};

struct http_req {
    h2o_req_t *req;
    http_loop_t *loop;
    struct timespec start;
    int n_params;
    const char *params[HTTP_MAX_PARAMS];
};

struct job {
    h2o_multithread_message_t msg; /* first: messages come back as jobs */
    job_t *next;
    http_loop_t *loop;
    http_req_t *req; /* NULL once the request is gone */
    job_t **token;   /* in the request's pool: tells the request's end to us */
    http_job_fn fn;
    http_stream_fn sfn; /* a stream job (http_defer_stream) */
    http_stream_t *st;
    bool poll;     /* http_defer_poll: status 0 runs it again */
    bool in_timer; /* waiting on the loop's poll timer (loop thread only) */
    int turns;     /* long poll turns so far */
    h2o_timeout_entry_t timer;
    http_reply_t reply;
    _Alignas(max_align_t) unsigned char arg[];
};

/* ---- streams ------------------------------------------------------------
 *
 * Shared by the producer (a pool thread) and the request's loop. refs: one
 * for the producer (dropped on the loop once its job is done), one for the
 * request (dropped when the request's pool is disposed), one while a
 * notification message is queued. Everything below mu is guarded by it. */
struct http_stream {
    h2o_generator_t gen; /* first: h2o hands it back to proceed */
    http_loop_t *loop;
    http_req_t *hr;
    h2o_multithread_message_t msg;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int refs;
    bool gone;        /* the request is disposed */
    bool begun;       /* the producer called http_stream_begin */
    bool started;     /* the loop called h2o_start_response */
    bool done;        /* the producer's job returned */
    bool failed;      /* http_stream_fail, or the producer died early */
    bool msg_pending; /* msg is queued to the loop */
    bool sending;     /* an h2o_send is in flight (inflight) */
    bool finished;    /* the final h2o_send happened */
    int status;
    const char *ctype;
    size_t clen;
    char *q[HTTP_STREAM_QUEUE];
    size_t qlen[HTTP_STREAM_QUEUE];
    /* a given piece (http_stream_give): not ours, done(ctx) once sent */
    void (*qdone[HTTP_STREAM_QUEUE])(void *ctx);
    void *qctx[HTTP_STREAM_QUEUE];
    int qhead, qn;
    char *inflight;
    void (*inflight_done)(void *ctx);
    void *inflight_ctx;
    /* Sent pieces kept for reuse: 1 MiB mallocs are fresh mmaps, and
     * faulting in new pages for every piece costs more than the copy. */
    char *spare[HTTP_STREAM_QUEUE];
    int n_spare;
    char *fill; /* producer only */
    size_t fill_len;
};

/* http.c */
void http__record(http_req_t *r, int status);
job_t *http__job_new(http_req_t *r, const void *arg, size_t arg_size);
bool http__job_submit(http_req_t *r, job_t *j);
/* http_stream.c */
void http__stream_release(http_stream_t *st);
void http__stream_pump(http_stream_t *st);
int http__stream_push(http_stream_t *st);
void http__on_stream_msg(h2o_multithread_receiver_t *rx, h2o_linklist_t *messages);

#endif
