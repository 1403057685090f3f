/* freedrain.c: pops chunk keys from MSG_FREE + worker id and frees
 * them from the store (freedrain.h). LPOP with a count takes what is
 * there in one round trip; when the list is empty a short BLPOP waits for
 * the next key without polling. */
#include "freedrain.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "msg.h"
#include "proto.h"
#include "rq.h"
#include "svc.h"

#define LOG_MODULE "freedrain"

/* After a Redis failure: rq reconnects with its own backoff; this only
 * keeps the loop from spinning on a refused connection. */
#define RETRY_MS 500

struct freedrain {
    rq_t *rq;
    store_t *store;
    char key[64 + 40];
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    metrics_counter_t *freed;
};

static bool stopping(freedrain_t *d, int wait_ms)
{
    pthread_mutex_lock(&d->mu);
    if (wait_ms > 0 && !d->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += wait_ms / 1000;
        ts.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&d->cv, &d->mu, &ts);
    }
    bool s = d->stop;
    pthread_mutex_unlock(&d->mu);
    return s;
}

static void free_one(freedrain_t *d, const redisReply *r)
{
    if (r->type != REDIS_REPLY_STRING) return;
    store_free(d->store, r->str);
    if (d->freed) metrics_counter_inc(d->freed);
}

/* One round: frees what LPOP returns, or waits for one key with BLPOP.
 * Returns -1 on a Redis failure. */
static int drain_round(freedrain_t *d, char *err, size_t errlen)
{
    redisReply *r = rq_command(d->rq, err, errlen, "LPOP %s %d", d->key, FREEDRAIN_BATCH);
    if (!r) return -1;
    bool got = r->type == REDIS_REPLY_ARRAY && r->elements > 0;
    if (got)
        for (size_t i = 0; i < r->elements; i++)
            free_one(d, r->element[i]);
    freeReplyObject(r);
    if (got) return 0;
    /* Empty: block a little for the next key. BLPOP takes seconds. */
    r = rq_command_blocking(d->rq, FREEDRAIN_BLOCK_MS, err, errlen, "BLPOP %s %.3f", d->key,
                            FREEDRAIN_BLOCK_MS / 1000.0);
    if (!r) return -1;
    if (r->type == REDIS_REPLY_ARRAY && r->elements == 2) free_one(d, r->element[1]);
    freeReplyObject(r);
    return 0;
}

static void *drain_main(void *arg)
{
    freedrain_t *d = arg;
    bool ok = true;
    char err[512];
    while (!stopping(d, 0)) {
        if (drain_round(d, err, sizeof err) == 0) {
            if (!ok) log_info("draining %s again", d->key);
            ok = true;
            continue;
        }
        if (ok) log_warning("draining %s: %s", d->key, err);
        ok = false;
        stopping(d, RETRY_MS);
    }
    return NULL;
}

freedrain_t *freedrain_start(const char *redis_url, const char *worker_id, store_t *store,
                             metrics_registry_t *metrics, char *err, size_t errlen)
{
    freedrain_t *d = calloc(1, sizeof *d);
    if (!d) abort();
    d->rq = rq_create(redis_url, RQ_DEFAULT_TIMEOUT_MS, err, errlen);
    if (!d->rq) {
        free(d);
        return NULL;
    }
    d->store = store;
    snprintf(d->key, sizeof d->key, MSG_FREE "%s", worker_id);
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->cv, NULL);
    if (metrics)
        d->freed = metrics_counter(metrics, "mars_chunks_freed_total",
                                   "Chunks dropped from the store on the supervisor's word", NULL);
    if (pthread_create(&d->th, NULL, drain_main, d) != 0) {
        snprintf(err, errlen, "freedrain: starting the thread failed");
        rq_free(d->rq);
        free(d);
        return NULL;
    }
    return d;
}

void freedrain_stop(freedrain_t *d)
{
    if (!d) return;
    pthread_mutex_lock(&d->mu);
    d->stop = true;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
    pthread_join(d->th, NULL);
    rq_free(d->rq);
    pthread_mutex_destroy(&d->mu);
    pthread_cond_destroy(&d->cv);
    free(d);
}
