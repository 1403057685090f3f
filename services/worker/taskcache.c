/* taskcache.c: the worker's per-task cache (see taskcache.h). */
#include "taskcache.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Entries kept: a worker serves a few tasks at once; each holds a parsed
 * graph (a few bytes per node, never a tile), so 8 bounds the memory. */
#define TASKCACHE_N 8

struct tc_entry {
    bool used;
    bool stale;   /* replaced: freed once no slot holds it */
    bool private; /* every entry was held: freed on release */
    int refs;
    int64_t last;
    char tid[72];
    char prefix[TASKCACHE_PREFIX];
    size_t prefix_len;
    plan_t plan;
};

struct taskcache {
    pthread_mutex_t mu;
    const char *token;
    tc_entry_t e[TASKCACHE_N];
    int64_t clock;
};

taskcache_t *taskcache_create(const char *token)
{
    taskcache_t *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    pthread_mutex_init(&c->mu, NULL);
    c->token = token;
    return c;
}

void taskcache_free(taskcache_t *c)
{
    if (!c) return;
    for (int i = 0; i < TASKCACHE_N; i++)
        if (c->e[i].used) plan_close(&c->e[i].plan);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

const plan_t *tc_plan(const tc_entry_t *e)
{
    return &e->plan;
}

/* Reads and prepares the plan of tid: 0 with *p and its first bytes, or
 * -1 with err. */
static int load(taskcache_t *c, rq_t *r, const char *tid, plan_t *p, char *pre, size_t *plen,
                char *err, size_t errlen)
{
    redisReply *rep = rq_command(r, err, errlen, "GET mars:plan:%s", tid);
    if (!rep) return -1;
    if (rep->type != REDIS_REPLY_STRING) {
        freeReplyObject(rep);
        snprintf(err, errlen, "task %s has no plan (it ended)", tid);
        return -1;
    }
    int rc = plan_parse(p, rep->str, rep->len, err, errlen);
    *plen = rep->len < TASKCACHE_PREFIX ? rep->len : TASKCACHE_PREFIX;
    memcpy(pre, rep->str, *plen);
    freeReplyObject(rep);
    if (rc) return -1;
    p->files_rq = r;
    p->token = c->token;
    if (plan_graph(p, err, errlen)) { /* the jobs come as descriptors: no tiling */
        plan_close(p);
        return -1;
    }
    p->files_rq = NULL; /* r is this slot's; the plan is shared */
    return 0;
}

tc_entry_t *taskcache_get(taskcache_t *c, rq_t *r, const char *tid, const char *prefix, size_t plen,
                          char *err, size_t errlen)
{
    pthread_mutex_lock(&c->mu);
    for (int i = 0; i < TASKCACHE_N; i++) {
        tc_entry_t *e = &c->e[i];
        if (e->used && !e->stale && strcmp(e->tid, tid) == 0 && e->prefix_len == plen &&
            memcmp(e->prefix, prefix, plen) == 0) {
            e->refs++;
            e->last = ++c->clock;
            pthread_mutex_unlock(&c->mu);
            return e;
        }
    }
    pthread_mutex_unlock(&c->mu);

    plan_t p;
    char pre[TASKCACHE_PREFIX];
    size_t n;
    if (load(c, r, tid, &p, pre, &n, err, errlen)) return NULL;

    pthread_mutex_lock(&c->mu);
    tc_entry_t *slot = NULL;
    for (int i = 0; i < TASKCACHE_N; i++) {
        tc_entry_t *e = &c->e[i];
        if (e->used && !e->stale && strcmp(e->tid, tid) == 0) {
            e->stale = true; /* an older plan of the task (a takeover) */
            if (e->refs == 0) {
                plan_close(&e->plan);
                e->used = false;
            }
        }
    }
    for (int i = 0; i < TASKCACHE_N && !slot; i++)
        if (!c->e[i].used) slot = &c->e[i];
    if (!slot) { /* evict the least recently used entry no slot holds */
        for (int i = 0; i < TASKCACHE_N; i++) {
            tc_entry_t *e = &c->e[i];
            if (e->refs == 0 && (!slot || e->last < slot->last)) slot = e;
        }
        if (slot) plan_close(&slot->plan);
    }
    if (!slot) { /* every entry held (more slots than entries): a private one */
        pthread_mutex_unlock(&c->mu);
        tc_entry_t *e = calloc(1, sizeof *e);
        if (!e) {
            plan_close(&p);
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        e->plan = p;
        e->refs = 1;
        e->used = e->stale = e->private = true;
        snprintf(e->tid, sizeof e->tid, "%s", tid);
        return e;
    }
    memset(slot, 0, sizeof *slot);
    slot->used = true;
    slot->refs = 1;
    slot->last = ++c->clock;
    snprintf(slot->tid, sizeof slot->tid, "%s", tid);
    memcpy(slot->prefix, pre, n);
    slot->prefix_len = n;
    slot->plan = p;
    pthread_mutex_unlock(&c->mu);
    return slot;
}

void taskcache_release(taskcache_t *c, tc_entry_t *e)
{
    if (e->private) {
        plan_close(&e->plan);
        free(e);
        return;
    }
    pthread_mutex_lock(&c->mu);
    if (--e->refs == 0 && e->stale) {
        plan_close(&e->plan);
        e->used = false;
    }
    pthread_mutex_unlock(&c->mu);
}
