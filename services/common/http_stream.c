/* http_stream.c: replies streamed by a pool thread while the request's loop
 * sends them (http_defer_stream, http_stream_*: see http.h). */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <h2o.h>

#include "http_internal.h"
#include "log.h"

#define LOG_MODULE "http"

void http__stream_release(http_stream_t *st)
{
    pthread_mutex_lock(&st->mu);
    int left = --st->refs;
    pthread_mutex_unlock(&st->mu);
    if (left) return;
    for (int i = 0; i < st->qn; i++) {
        int k = (st->qhead + i) % HTTP_STREAM_QUEUE;
        if (st->qdone[k])
            st->qdone[k](st->qctx[k]);
        else
            free(st->q[k]);
    }
    if (st->inflight_done)
        st->inflight_done(st->inflight_ctx);
    else
        free(st->inflight);
    for (int i = 0; i < st->n_spare; i++)
        free(st->spare[i]);
    free(st->fill);
    pthread_mutex_destroy(&st->mu);
    pthread_cond_destroy(&st->cv);
    free(st);
}

/* Under mu: asks the loop to look at the stream. */
static void stream_notify_locked(http_stream_t *st)
{
    if (st->msg_pending || st->gone) return;
    st->msg_pending = true;
    st->refs++;
    h2o_multithread_send_message(&st->loop->streams, &st->msg);
}

/* Loop thread: starts the answer and sends what is queued. Touches nothing
 * of st after h2o_send, which may dispose the request (and st with it). */
void http__stream_pump(http_stream_t *st)
{
    pthread_mutex_lock(&st->mu);
    if (st->gone || !st->begun || st->finished) {
        pthread_mutex_unlock(&st->mu);
        return;
    }
    bool start = !st->started;
    st->started = true;
    pthread_mutex_unlock(&st->mu);
    h2o_req_t *req = st->hr->req;
    if (start) {
        req->res.status = st->status;
        req->res.reason = http_reason(st->status);
        if (st->ctype)
            h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, NULL, st->ctype,
                           strlen(st->ctype));
        req->res.content_length = st->clen;
        http__record(st->hr, st->status);
        h2o_start_response(req, &st->gen);
    }
    pthread_mutex_lock(&st->mu);
    if (st->sending) {
        pthread_mutex_unlock(&st->mu);
        return;
    }
    h2o_iovec_t buf = {NULL, 0};
    h2o_send_state_t state;
    if (st->qn > 0) {
        buf.base = st->q[st->qhead];
        buf.len = st->qlen[st->qhead];
        st->inflight = buf.base;
        st->inflight_done = st->qdone[st->qhead];
        st->inflight_ctx = st->qctx[st->qhead];
        st->qhead = (st->qhead + 1) % HTTP_STREAM_QUEUE;
        st->qn--;
        st->sending = true;
        state = H2O_SEND_STATE_IN_PROGRESS;
        pthread_cond_broadcast(&st->cv);
    } else if (st->done) {
        st->finished = true;
        state = st->failed ? H2O_SEND_STATE_ERROR : H2O_SEND_STATE_FINAL;
    } else {
        pthread_mutex_unlock(&st->mu);
        return;
    }
    pthread_mutex_unlock(&st->mu);
    h2o_send(req, buf.base ? &buf : NULL, buf.base ? 1 : 0, state);
}

static void stream_proceed(h2o_generator_t *gen, h2o_req_t *req)
{
    http_stream_t *st = (http_stream_t *)gen;
    pthread_mutex_lock(&st->mu);
    void (*done)(void *) = st->inflight_done;
    void *ctx = st->inflight_ctx;
    if (done)
        ; /* given: its owner's, released below */
    else if (st->n_spare < HTTP_STREAM_QUEUE)
        st->spare[st->n_spare++] = st->inflight;
    else
        free(st->inflight);
    st->inflight = NULL;
    st->inflight_done = NULL;
    st->sending = false;
    pthread_mutex_unlock(&st->mu);
    if (done) done(ctx);
    http__stream_pump(st);
}

static void stream_stop(h2o_generator_t *gen, h2o_req_t *req)
{
    /* The request's disposal (stream_req_gone) does the work. */
}

static void stream_req_gone(void *p)
{
    http_stream_t *st = *(http_stream_t **)p;
    pthread_mutex_lock(&st->mu);
    st->gone = true;
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
    http__stream_release(st);
}

void http__on_stream_msg(h2o_multithread_receiver_t *rx, h2o_linklist_t *messages)
{
    while (!h2o_linklist_is_empty(messages)) {
        h2o_multithread_message_t *m =
            H2O_STRUCT_FROM_MEMBER(h2o_multithread_message_t, link, messages->next);
        h2o_linklist_unlink(&m->link);
        http_stream_t *st = H2O_STRUCT_FROM_MEMBER(http_stream_t, msg, m);
        pthread_mutex_lock(&st->mu);
        st->msg_pending = false;
        pthread_mutex_unlock(&st->mu);
        http__stream_pump(st);
        http__stream_release(st);
    }
}

void http_defer_stream(http_req_t *r, http_stream_fn fn, const void *arg, size_t arg_size)
{
    job_t *j = http__job_new(r, arg, arg_size);
    if (!j) return;
    http_stream_t *st = calloc(1, sizeof *st);
    if (!st) abort();
    st->gen.proceed = stream_proceed;
    st->gen.stop = stream_stop;
    st->loop = r->loop;
    st->hr = r;
    st->refs = 2;
    pthread_mutex_init(&st->mu, NULL);
    pthread_cond_init(&st->cv, NULL);
    j->sfn = fn;
    j->st = st;
    if (!http__job_submit(r, j)) {
        pthread_mutex_destroy(&st->mu);
        pthread_cond_destroy(&st->cv);
        free(st);
        return;
    }
    http_stream_t **hold = h2o_mem_alloc_shared(&r->req->pool, sizeof *hold, stream_req_gone);
    *hold = st;
}

void http_stream_begin(http_stream_t *st, int status, const char *content_type,
                       size_t content_length)
{
    pthread_mutex_lock(&st->mu);
    st->begun = true;
    st->status = status;
    st->ctype = content_type;
    st->clen = content_length;
    stream_notify_locked(st);
    pthread_mutex_unlock(&st->mu);
}

/* Producer: queues buf (ours to free, or given: done(ctx) once sent),
 * waiting for room. -1 (nothing queued) when the client went away or the
 * server is stopping. */
static int enqueue(http_stream_t *st, char *buf, size_t len, void (*done)(void *), void *ctx)
{
    http_server_t *s = st->loop->srv;
    pthread_mutex_lock(&st->mu);
    while (st->qn == HTTP_STREAM_QUEUE && !st->gone &&
           !__atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE)) {
        /* Timed: a stopping server must not wait for a stalled client. */
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += 100 * 1000000L;
        if (t.tv_nsec >= 1000000000L) {
            t.tv_sec++;
            t.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&st->cv, &st->mu, &t);
    }
    if (st->gone || st->qn == HTTP_STREAM_QUEUE) {
        pthread_mutex_unlock(&st->mu);
        return -1;
    }
    int at = (st->qhead + st->qn) % HTTP_STREAM_QUEUE;
    st->q[at] = buf;
    st->qlen[at] = len;
    st->qdone[at] = done;
    st->qctx[at] = ctx;
    st->qn++;
    stream_notify_locked(st);
    pthread_mutex_unlock(&st->mu);
    return 0;
}

/* Producer: moves the fill buffer to the queue. */
int http__stream_push(http_stream_t *st)
{
    if (enqueue(st, st->fill, st->fill_len, NULL, NULL)) return -1;
    st->fill = NULL;
    st->fill_len = 0;
    return 0;
}

int http_stream_give(http_stream_t *st, const void *data, size_t n, void (*done)(void *ctx),
                     void *ctx)
{
    /* what was written before goes first */
    if ((st->fill_len > 0 && http__stream_push(st)) ||
        (n > 0 && enqueue(st, (char *)data, n, done, ctx))) {
        done(ctx);
        return -1;
    }
    if (n == 0) done(ctx);
    return 0;
}

int http_stream_write(http_stream_t *st, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        if (!st->fill) {
            pthread_mutex_lock(&st->mu);
            if (st->n_spare) st->fill = st->spare[--st->n_spare];
            pthread_mutex_unlock(&st->mu);
            if (!st->fill) st->fill = malloc(HTTP_STREAM_PIECE);
            if (!st->fill) abort();
        }
        size_t take = HTTP_STREAM_PIECE - st->fill_len;
        if (take > n) take = n;
        memcpy(st->fill + st->fill_len, p, take);
        st->fill_len += take;
        p += take;
        n -= take;
        if (st->fill_len == HTTP_STREAM_PIECE && http__stream_push(st)) return -1;
    }
    return 0;
}

void http_stream_fail(http_stream_t *st)
{
    pthread_mutex_lock(&st->mu);
    st->failed = true;
    pthread_mutex_unlock(&st->mu);
}

/* Loop thread: completed jobs, and the stop message. */
