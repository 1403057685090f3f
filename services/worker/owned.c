/* owned.c: the chunks this worker made, and their collection (owned.h). */
#include "owned.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "msg.h"
#include "rq.h"

#define LOG_MODULE "owned"

/* Keys looked at per pipeline. */
#define GC_PIPE 256

struct owned {
    pthread_mutex_t mu;
    char **keys;
    int n, cap;
    store_t *store;
    rq_t *r;
    char self[MSG_ID_MAX];
    pthread_t thread;
    atomic_bool stop;
    metrics_counter_t *m_collected;
};

void owned_add(owned_t *o, const char *key)
{
    char *k = strdup(key);
    if (!k) return; /* not recorded: only its collection is lost */
    pthread_mutex_lock(&o->mu);
    if (o->n == o->cap) {
        int cap = o->cap ? o->cap * 2 : 256;
        char **n = realloc(o->keys, sizeof *n * (size_t)cap);
        if (!n) {
            pthread_mutex_unlock(&o->mu);
            free(k);
            return;
        }
        o->keys = n;
        o->cap = cap;
    }
    o->keys[o->n++] = k;
    pthread_mutex_unlock(&o->mu);
}

/* Takes the recorded keys, dropping those the store no longer has (freed
 * by a free message). */
static char **take_keys(owned_t *o, int *n)
{
    pthread_mutex_lock(&o->mu);
    int k = 0;
    for (int i = 0; i < o->n; i++) {
        if (store_size(o->store, o->keys[i]) < 0)
            free(o->keys[i]);
        else
            o->keys[k++] = o->keys[i];
    }
    o->n = k;
    char **out = k ? malloc(sizeof *out * (size_t)k) : NULL;
    for (int i = 0; out && i < k; i++)
        out[i] = strdup(o->keys[i]);
    *n = out ? k : 0;
    pthread_mutex_unlock(&o->mu);
    return out;
}

/* One pipeline of up to GC_PIPE keys: returns the number dropped, -1. */
static int collect_some(owned_t *o, char **keys, int n)
{
    char err[256];
    int nq = 0, dropped = 0;
    for (int i = 0; i < n; i++) {
        char tid[MSG_ID_MAX];
        int32_t job;
        if (msg_chunk_key_parse(keys[i], tid, sizeof tid, &job)) continue;
        if (rq_append(o->r, err, sizeof err, "EXISTS " MSG_PLAN "%s", tid) ||
            rq_append(o->r, err, sizeof err, "HGET " MSG_LOC "%s %d", tid, (int)job))
            return -1;
        nq += 2;
    }
    if (nq == 0) return 0;
    redisReply **reps = calloc((size_t)nq, sizeof *reps);
    if (!reps || rq_flush_replies(o->r, reps, nq, err, sizeof err)) {
        free(reps);
        log_warning("collecting chunks: %s", err);
        return -1;
    }
    for (int i = 0, q = 0; i < n; i++) {
        char tid[MSG_ID_MAX];
        int32_t job;
        if (msg_chunk_key_parse(keys[i], tid, sizeof tid, &job)) continue;
        redisReply *plan = reps[q++], *loc = reps[q++];
        bool running = plan->type == REDIS_REPLY_INTEGER && plan->integer > 0;
        bool ours = loc->type == REDIS_REPLY_STRING && strcmp(loc->str, o->self) == 0;
        if (!running && !ours) {
            store_free(o->store, keys[i]);
            dropped++;
        }
        freeReplyObject(plan);
        freeReplyObject(loc);
    }
    free(reps);
    return dropped;
}

int owned_collect(owned_t *o)
{
    int n, total = 0;
    char **keys = take_keys(o, &n);
    for (int i0 = 0; i0 < n && total >= 0; i0 += GC_PIPE) {
        int m = n - i0 < GC_PIPE ? n - i0 : GC_PIPE;
        int d = collect_some(o, keys + i0, m);
        total = d < 0 ? -1 : total + d;
    }
    for (int i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
    if (total > 0) {
        metrics_counter_add(o->m_collected, total);
        log_info("collected %d chunks of ended tasks that nothing references", total);
    }
    return total;
}

static void *gc_main(void *arg)
{
    owned_t *o = arg;
    while (!atomic_load(&o->stop)) {
        for (int i = 0; i < OWNED_GC_MS / 100 && !atomic_load(&o->stop); i++) {
            struct timespec ts = {0, 100 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        if (!atomic_load(&o->stop)) owned_collect(o);
    }
    return NULL;
}

owned_t *owned_start(const char *redis_url, const char *self, store_t *store,
                     metrics_registry_t *metrics, char *err, size_t errlen)
{
    owned_t *o = calloc(1, sizeof *o);
    if (!o) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&o->mu, NULL);
    o->store = store;
    snprintf(o->self, sizeof o->self, "%s", self);
    o->r = rq_create(redis_url, RQ_DEFAULT_TIMEOUT_MS, err, errlen);
    if (metrics)
        o->m_collected =
            metrics_counter(metrics, "mars_worker_chunks_collected_total",
                            "Chunks of ended tasks dropped: nothing referenced them", NULL);
    if (!o->r || pthread_create(&o->thread, NULL, gc_main, o) != 0) {
        if (o->r) snprintf(err, errlen, "cannot start the collecting thread");
        rq_free(o->r);
        pthread_mutex_destroy(&o->mu);
        free(o);
        return NULL;
    }
    return o;
}

void owned_stop(owned_t *o)
{
    if (!o) return;
    atomic_store(&o->stop, true);
    pthread_join(o->thread, NULL);
    for (int i = 0; i < o->n; i++)
        free(o->keys[i]);
    free(o->keys);
    rq_free(o->r);
    pthread_mutex_destroy(&o->mu);
    free(o);
}
