/* dispatch.c: the worker's job loop (see dispatch.h). */
#include "dispatch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "exec.h"
#include "kern/kern.h"
#include "log.h"
#include "plan.h"
#include "rq.h"
#include "svc.h"

#define LOG_MODULE "dispatch"

/* BLMOVE's block: a stop is noticed within a second; 1 s plus the margin
 * stays within the 2 s socket timeout (rq.h). */
#define BLOCK_MS 1000
/* Plans kept parsed and tiled: a worker serves a few tasks at once; each
 * plan holds a tile (a few bytes per job), so 8 bounds the memory. */
#define PLAN_CACHE 8
/* Bytes of the stored plan compared on every job: the owner comes first in
 * the plan text, so a takeover (new owner) changes them. */
#define PLAN_PREFIX 160
/* Chunk cache hash buckets (chained): thousands of chunks at most. */
#define CACHE_BUCKETS 4096
/* Chunk keys: "chunk:<tid>:<job>" or an upload's; ids are at most 64. */
#define KEY_MAX 256
/* Completion and error messages: the engine's are one line of < 1 KiB. */
#define MSG_MAX 1200
/* Between tries of a Redis step that must happen (reading the job's
 * task state, storing a result): rq backs off its reconnects meanwhile. A
 * message left on our processing list while we keep heartbeating would
 * stall its task for ever, so these steps are retried until they work or
 * the worker stops (then the supervisor requeues the message once our
 * heartbeat lapses). A warning every RETRY_LOG_EVERY tries (~3 s). */
#define RETRY_SLEEP_MS 300
#define RETRY_LOG_EVERY 10


/* ---- chunk cache ---------------------------------------------------------- */

typedef struct cbuf {
    struct cbuf *hnext, *prev, *next; /* hash chain, LRU list (cache only) */
    int refs;                         /* holders, the cache included; under mu */
    bool cached;
    size_t n;
    char key[KEY_MAX];
    unsigned char *data;
} cbuf_t;

typedef struct {
    pthread_mutex_t mu;
    cbuf_t *buckets[CACHE_BUCKETS];
    cbuf_t *head, *tail; /* most recent first */
    int64_t used, limit;
} ccache_t;

/* ---- plan cache ----------------------------------------------------------- */

typedef struct {
    bool used;
    bool stale; /* replaced: freed once no slot holds it */
    int refs;
    int64_t last;
    char tid[72];
    char prefix[PLAN_PREFIX];
    size_t prefix_len;
    plan_t plan;
} pentry_t;

/* What a slot runs now, for the heartbeat's `slots` (proto.h). */
typedef struct {
    bool busy;
    char tid[72];
    int32_t job;
    char node[GRAPH_KEY_MAX + 1];
    const char *op; /* static (op_name) */
    int64_t started_ms;
} slot_job_t;

struct dispatch {
    const cfg_t *cfg;
    char id[72];
    atomic_int running;
    _Atomic int64_t done;
    atomic_bool stop;
    int n_threads;
    pthread_t *threads;
    atomic_int next_slot;
    pthread_mutex_t smu; /* slots */
    slot_job_t *slots;
    ccache_t cache;
    pthread_mutex_t pmu;
    pentry_t plans[PLAN_CACHE];
    int64_t plan_clock;
    metrics_counter_t *m_ok, *m_err, *m_dropped, *m_hit, *m_miss;
    metrics_histogram_t *m_seconds;
};

static unsigned hash_key(const char *k)
{
    unsigned h = 2166136261u;
    for (; *k; k++)
        h = (h ^ (unsigned char)*k) * 16777619u;
    return h % CACHE_BUCKETS;
}

static cbuf_t *cbuf_new(const char *key, size_t n)
{
    cbuf_t *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->data = malloc(n ? n : 1);
    if (!b->data) {
        free(b);
        return NULL;
    }
    b->refs = 1;
    b->n = n;
    snprintf(b->key, sizeof b->key, "%s", key);
    return b;
}

static void cbuf_unref_locked(cbuf_t *b)
{
    if (--b->refs == 0) {
        free(b->data);
        free(b);
    }
}

static void cbuf_release(dispatch_t *d, cbuf_t *b)
{
    if (!b) return;
    pthread_mutex_lock(&d->cache.mu);
    cbuf_unref_locked(b);
    pthread_mutex_unlock(&d->cache.mu);
}

static void lru_unlink(ccache_t *c, cbuf_t *b)
{
    if (b->prev)
        b->prev->next = b->next;
    else
        c->head = b->next;
    if (b->next)
        b->next->prev = b->prev;
    else
        c->tail = b->prev;
    b->prev = b->next = NULL;
}

static void lru_front(ccache_t *c, cbuf_t *b)
{
    b->next = c->head;
    b->prev = NULL;
    if (c->head) c->head->prev = b;
    c->head = b;
    if (!c->tail) c->tail = b;
}

static void cache_drop_locked(ccache_t *c, cbuf_t *b)
{
    cbuf_t **p = &c->buckets[hash_key(b->key)];
    while (*p && *p != b)
        p = &(*p)->hnext;
    if (*p) *p = b->hnext;
    lru_unlink(c, b);
    b->cached = false;
    c->used -= (int64_t)b->n;
    cbuf_unref_locked(b);
}

/* A cached chunk, with a reference for the caller; NULL if absent. */
static cbuf_t *cache_get(dispatch_t *d, const char *key)
{
    ccache_t *c = &d->cache;
    pthread_mutex_lock(&c->mu);
    cbuf_t *b = c->buckets[hash_key(key)];
    while (b && strcmp(b->key, key) != 0)
        b = b->hnext;
    if (b) {
        b->refs++;
        lru_unlink(c, b);
        lru_front(c, b);
    }
    pthread_mutex_unlock(&c->mu);
    metrics_counter_inc(b ? d->m_hit : d->m_miss);
    return b;
}

/* Offers b to the cache (chunks are immutable: a copy under the same key
 * is the same bytes). Evicts least recently used chunks past the limit. */
static void cache_put(dispatch_t *d, cbuf_t *b)
{
    ccache_t *c = &d->cache;
    if ((int64_t)b->n > c->limit) return;
    pthread_mutex_lock(&c->mu);
    unsigned h = hash_key(b->key);
    cbuf_t *e = c->buckets[h];
    while (e && strcmp(e->key, b->key) != 0)
        e = e->hnext;
    if (!e && !b->cached) {
        b->refs++;
        b->cached = true;
        b->hnext = c->buckets[h];
        c->buckets[h] = b;
        lru_front(c, b);
        c->used += (int64_t)b->n;
        while (c->used > c->limit && c->tail)
            cache_drop_locked(c, c->tail);
    }
    pthread_mutex_unlock(&c->mu);
}

/* ---- plans ---------------------------------------------------------------- */

static void plan_release(dispatch_t *d, pentry_t *e)
{
    pthread_mutex_lock(&d->pmu);
    if (--e->refs == 0 && e->stale) {
        plan_close(&e->plan);
        e->used = false;
    }
    pthread_mutex_unlock(&d->pmu);
}

/* The tiled plan of tid whose stored text starts with prefix; loads it when
 * no cached one matches. NULL with err. */
static pentry_t *plan_get(dispatch_t *d, rq_t *r, const char *tid, const char *prefix, size_t plen,
                          char *err, size_t errlen)
{
    pthread_mutex_lock(&d->pmu);
    for (int i = 0; i < PLAN_CACHE; i++) {
        pentry_t *e = &d->plans[i];
        if (e->used && !e->stale && strcmp(e->tid, tid) == 0 && e->prefix_len == plen &&
            memcmp(e->prefix, prefix, plen) == 0) {
            e->refs++;
            e->last = ++d->plan_clock;
            pthread_mutex_unlock(&d->pmu);
            return e;
        }
    }
    pthread_mutex_unlock(&d->pmu);

    redisReply *rep = rq_command(r, err, errlen, "GET mars:plan:%s", tid);
    if (!rep) return NULL;
    if (rep->type != REDIS_REPLY_STRING) {
        freeReplyObject(rep);
        snprintf(err, errlen, "task %s has no plan (it ended)", tid);
        return NULL;
    }
    plan_t p;
    int rc = plan_parse(&p, rep->str, rep->len, err, errlen);
    size_t n = rep->len < PLAN_PREFIX ? rep->len : PLAN_PREFIX;
    char pre[PLAN_PREFIX];
    memcpy(pre, rep->str, n);
    freeReplyObject(rep);
    if (rc) return NULL;
    p.files_rq = r;
    if (plan_tile(&p, err, errlen)) {
        plan_close(&p);
        return NULL;
    }
    p.files_rq = NULL; /* r is this slot's; the plan may be shared */

    pthread_mutex_lock(&d->pmu);
    pentry_t *slot = NULL;
    for (int i = 0; i < PLAN_CACHE; i++) {
        pentry_t *e = &d->plans[i];
        if (e->used && !e->stale && strcmp(e->tid, tid) == 0) {
            e->stale = true; /* an older plan of the task (a takeover) */
            if (e->refs == 0) {
                plan_close(&e->plan);
                e->used = false;
            }
        }
    }
    for (int i = 0; i < PLAN_CACHE && !slot; i++)
        if (!d->plans[i].used) slot = &d->plans[i];
    if (!slot) { /* evict the least recently used plan no slot holds */
        for (int i = 0; i < PLAN_CACHE; i++) {
            pentry_t *e = &d->plans[i];
            if (e->refs == 0 && (!slot || e->last < slot->last)) slot = e;
        }
        if (slot) plan_close(&slot->plan);
    }
    if (!slot) { /* every entry in use (more slots than entries): a private one */
        pthread_mutex_unlock(&d->pmu);
        pentry_t *e = calloc(1, sizeof *e);
        if (!e) {
            plan_close(&p);
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        e->plan = p;
        e->refs = 1;
        e->stale = true;
        e->used = true;
        snprintf(e->tid, sizeof e->tid, "%s", tid);
        return e;
    }
    memset(slot, 0, sizeof *slot);
    slot->used = true;
    slot->refs = 1;
    slot->last = ++d->plan_clock;
    snprintf(slot->tid, sizeof slot->tid, "%s", tid);
    memcpy(slot->prefix, pre, n);
    slot->prefix_len = n;
    slot->plan = p;
    pthread_mutex_unlock(&d->pmu);
    return slot;
}

static void plan_done(dispatch_t *d, pentry_t *e)
{
    if (e >= d->plans && e < d->plans + PLAN_CACHE) {
        plan_release(d, e);
    } else { /* private */
        plan_close(&e->plan);
        free(e);
    }
}

/* ---- one job ---------------------------------------------------------------- */

typedef struct {
    int n;
    int32_t *job;
    cbuf_t **buf;
} inputs_t;

static const void *get_input(void *ctx, int32_t job, size_t *len)
{
    const inputs_t *in = ctx;
    for (int i = 0; i < in->n; i++)
        if (in->job[i] == job) {
            *len = in->buf[i]->n;
            return in->buf[i]->data;
        }
    *len = 0;
    return NULL;
}

static void node_prefix(const plan_t *p, const job_t *jb, char *out, size_t cap)
{
    const graph_node_t *n = &p->g->nodes[jb->node];
    snprintf(out, cap, "node \"%s\" (%s): ", n->key, op_name(n->op));
}

/* A DataFrame part job (a shuffle's consumer) reads one part of each
 * partition pack (engine/df/dfexec.h): the part of job s's output that
 * job jb takes, or -1 when jb reads s whole. */
static int64_t pack_part_of(const tile_t *t, const job_t *jb, int32_t s)
{
    const job_t *src = &t->jobs[s];
    if (jb->kind != JK_DF || src->kind != JK_DF) return -1;
    int k = jb->param->dfk, ks = src->param->dfk;
    if ((k != DFJ_GB_PART && k != DFJ_SORT_PART && k != DFJ_MERGE_PART) ||
        (ks != DFJ_HASH_PART && ks != DFJ_SORT_RANGE))
        return -1;
    return jb->off[0];
}

/* The most parts a pack may declare: far above the tiler's (32), low enough
 * that a corrupted header cannot make us allocate much. */
#define PACK_MAX_PARTS 65536

static redisReply *getrange(rq_t *r, const char *key, uint64_t a, uint64_t n, char *err,
                            size_t errlen)
{
    redisReply *rep = rq_command(r, err, errlen, "GETRANGE %s %llu %llu", key,
                                 (unsigned long long)a, (unsigned long long)(a + n - 1));
    if (rep && (rep->type != REDIS_REPLY_STRING || (uint64_t)rep->len != n)) {
        snprintf(err, errlen, "chunk %.200s is missing from the chunk store or truncated", key);
        freeReplyObject(rep);
        return NULL;
    }
    return rep;
}

/* Part `part` (and part 0, which a sort part falls back on for its empty
 * result's columns) of the pack stored at key, as a pack of the same part
 * count whose other parts are empty: a shuffle's consumer reads its share,
 * not every chunk's whole output. NULL with err. */
static cbuf_t *fetch_pack_part(rq_t *r, const char *key, const char *ckey, int64_t part,
                               char *err, size_t errlen)
{
    uint64_t h[2];
    redisReply *rep = getrange(r, key, 0, 16, err, errlen);
    if (!rep) return NULL;
    memcpy(h, rep->str, 16);
    freeReplyObject(rep);
    uint64_t npk = h[1];
    if (npk == 0 || npk > PACK_MAX_PARTS) {
        snprintf(err, errlen, "chunk %.200s is no frame pack", key);
        return NULL;
    }
    size_t hl = 16 + 8 * (size_t)(npk + 1);
    uint64_t *off = malloc(8 * (size_t)(npk + 1));
    if (!off) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    cbuf_t *b = NULL;
    if (!(rep = getrange(r, key, 16, 8 * (npk + 1), err, errlen))) goto done;
    memcpy(off, rep->str, 8 * (size_t)(npk + 1));
    freeReplyObject(rep);
    uint64_t want[2] = {0, part >= 0 && (uint64_t)part < npk ? (uint64_t)part : 0};
    uint64_t size = hl;
    for (int w = 0; w < 2; w++) {
        uint64_t a = off[want[w]], e = off[want[w] + 1];
        if (a > e || e - a > (1ull << 40) || (a & 7)) {
            snprintf(err, errlen, "chunk %.200s: bad frame pack offsets", key);
            goto done;
        }
        if (w == 0 || want[1] != 0) size += e - a;
    }
    if (!(b = cbuf_new(ckey, size))) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    uint64_t *nh = (uint64_t *)b->data, at = hl;
    nh[0] = h[0];
    nh[1] = npk;
    for (uint64_t i = 0; i <= npk; i++)
        nh[2 + i] = hl; /* empty parts */
    for (int w = 0; w < 2; w++) {
        if (w == 1 && want[1] == 0) break;
        uint64_t a = off[want[w]], n = off[want[w] + 1] - a;
        nh[2 + want[w]] = at;
        if (n) {
            if (!(rep = getrange(r, key, a, n, err, errlen))) {
                cbuf_unref_locked(b); /* never shared: no lock needed */
                b = NULL;
                goto done;
            }
            memcpy(b->data + at, rep->str, n);
            freeReplyObject(rep);
        }
        at += n;
        /* the parts after this one start where it ends */
        for (uint64_t i = want[w] + 1; i <= npk; i++)
            nh[2 + i] = at;
    }
done:
    free(off);
    return b;
}

/* Runs job ji of the plan; on success *outb holds the output (a reference
 * for the caller). -1 with err (the message names the node). */
static int run_job(dispatch_t *d, rq_t *r, const char *tid, const plan_t *p, int32_t ji,
                   cbuf_t **outb, char *err, size_t errlen)
{
    const tile_t *t = p->t;
    const job_t *jb = &t->jobs[ji];
    char np[300];
    node_prefix(p, jb, np, sizeof np);
    int rc = -1, cap = 0;
    inputs_t in = {0};
    for (int k = 0; k < jb->n_in; k++)
        cap += jb->in[k].job >= 0 ? 1 : jb->in[k].n_pieces;
    in.job = malloc(sizeof(int32_t) * (size_t)(cap ? cap : 1));
    in.buf = calloc((size_t)(cap ? cap : 1), sizeof(cbuf_t *));
    int *missing = malloc(sizeof(int) * (size_t)(cap ? cap : 1));
    int n_missing = 0;
    if (!in.job || !in.buf || !missing) {
        snprintf(err, errlen, "%sout of memory", np);
        goto done;
    }
    for (int k = 0; k < jb->n_in; k++) {
        const jin_t *x = &jb->in[k];
        int np_ = x->job >= 0 ? 1 : x->n_pieces;
        for (int q = 0; q < np_; q++) {
            int32_t s = x->job >= 0 ? x->job : x->pieces[q].src;
            bool seen = false;
            for (int i = 0; i < in.n && !seen; i++)
                seen = in.job[i] == s;
            if (seen) continue;
            char key[KEY_MAX];
            plan_chunk_key(p, tid, s, key, sizeof key);
            in.job[in.n] = s;
            int64_t part = pack_part_of(t, jb, s);
            if (part >= 0) {
                /* one part of a pack: cached under a key of its own */
                char ckey[KEY_MAX];
                snprintf(ckey, sizeof ckey, "%.200s#%lld", key, (long long)part);
                in.buf[in.n] = cache_get(d, ckey);
                if (!in.buf[in.n]) {
                    char e2[256];
                    in.buf[in.n] = fetch_pack_part(r, key, ckey, part, e2, sizeof e2);
                    if (!in.buf[in.n]) {
                        snprintf(err, errlen, "%s%s", np, e2);
                        in.n++;
                        goto done;
                    }
                    cache_put(d, in.buf[in.n]);
                }
                in.n++;
                continue;
            }
            in.buf[in.n] = cache_get(d, key);
            if (!in.buf[in.n]) missing[n_missing++] = in.n;
            in.n++;
        }
    }
    if (n_missing > 0) {
        redisReply **reps = calloc((size_t)n_missing, sizeof *reps);
        if (!reps) {
            snprintf(err, errlen, "%sout of memory", np);
            goto done;
        }
        for (int i = 0; i < n_missing; i++) {
            char key[KEY_MAX];
            plan_chunk_key(p, tid, in.job[missing[i]], key, sizeof key);
            if (rq_append(r, err, errlen, "GET %s", key)) {
                free(reps);
                goto done;
            }
        }
        if (rq_flush_replies(r, reps, n_missing, err, errlen)) {
            free(reps);
            goto done;
        }
        int bad = -1;
        for (int i = 0; i < n_missing; i++) {
            int32_t s = in.job[missing[i]];
            redisReply *rep = reps[i];
            char key[KEY_MAX];
            plan_chunk_key(p, tid, s, key, sizeof key);
            size_t want = job_nbytes(&t->jobs[s]);
            /* a DataFrame chunk (a frame blob) has the length it was stored with;
             * the kernel checks the blob itself */
            if (t->jobs[s].blob && rep->type == REDIS_REPLY_STRING) want = (size_t)rep->len;
            if (bad < 0 && rep->type != REDIS_REPLY_STRING) {
                snprintf(err, errlen, "%sinput chunk %s is missing from the chunk store", np, key);
                bad = i;
            } else if (bad < 0 && (size_t)rep->len != want) {
                snprintf(err, errlen, "%sinput chunk %s has %zu bytes, not the %zu expected", np,
                         key, (size_t)rep->len, want);
                bad = i;
            } else if (bad < 0) {
                cbuf_t *b = cbuf_new(key, want);
                if (!b) {
                    snprintf(err, errlen, "%sout of memory", np);
                    bad = i;
                } else {
                    memcpy(b->data, rep->str, want);
                    in.buf[missing[i]] = b;
                    cache_put(d, b);
                }
            }
            freeReplyObject(rep);
        }
        free(reps);
        if (bad >= 0) goto done;
    }
    char key[KEY_MAX];
    plan_chunk_key(p, tid, ji, key, sizeof key);
    cbuf_t *o = cbuf_new(key, job_nbytes(jb));
    if (!o) {
        snprintf(err, errlen, "%sout of memory", np);
        goto done;
    }
    void *blob = NULL;
    size_t blob_len = 0;
    int jrc = exec_job_any(t, ji, get_input, &in, o->data, &blob, &blob_len, err, errlen);
    if (jrc == 0 && jb->blob) {
        /* the output's size was known only to the kernel: adopt its buffer */
        free(o->data);
        o->data = blob ? blob : malloc(1);
        o->n = blob_len;
        if (!o->data) {
            snprintf(err, errlen, "out of memory");
            jrc = -1;
        }
    }
    if (jrc) {
        /* Kernel messages name the rule; the report names the node too. */
        size_t lp = strlen(np), le = strlen(err);
        if (strncmp(err, "node \"", 6) != 0 && lp + le < errlen) {
            memmove(err + lp, err, le + 1);
            memcpy(err, np, lp);
        }
        cbuf_release(d, o);
        goto done;
    }
    *outb = o;
    rc = 0;
done:
    free(missing);
    for (int i = 0; i < in.n; i++)
        cbuf_release(d, in.buf[i]);
    free(in.job);
    free(in.buf);
    return rc;
}

/* Parses "<task_id> <job_index> <attempt>". */
static int parse_msg(const char *m, char *tid, size_t cap, int32_t *job, int *attempt)
{
    const char *sp = strchr(m, ' ');
    if (!sp || (size_t)(sp - m) >= cap || sp == m) return -1;
    memcpy(tid, m, (size_t)(sp - m));
    tid[sp - m] = '\0';
    char *end;
    long j = strtol(sp + 1, &end, 10);
    if (*end != ' ' || j < 0 || j > INT32_MAX) return -1;
    long a = strtol(end + 1, &end, 10);
    if (*end || a < 0 || a > INT32_MAX) return -1;
    *job = (int32_t)j;
    *attempt = (int)a;
    return 0;
}

/* Sleeps before try `tries` (none before the first); false when stopping. */
static bool retry_wait(dispatch_t *d, int tries)
{
    if (tries == 0) return true;
    struct timespec ts = {0, RETRY_SLEEP_MS * 1000 * 1000};
    nanosleep(&ts, NULL);
    return !atomic_load(&d->stop);
}

/* Takes the message off our processing list; the job is reported or dropped. */
static void ack(dispatch_t *d, rq_t *r, const char *msg)
{
    char err[256];
    redisReply *rep = rq_command(r, err, sizeof err, "LREM mars:processing:%s 1 %s", d->id, msg);
    if (rep)
        freeReplyObject(rep);
    else
        log_warning("LREM of \"%s\": %s", msg, err);
}

static void report(dispatch_t *d, rq_t *r, const char *owner, const char *msg, const char *what)
{
    char err[256], line[MSG_MAX + 400];
    snprintf(line, sizeof line, "%s %s %s", msg, d->id, what);
    for (int tries = 0; retry_wait(d, tries); tries++) {
        if (rq_append(r, err, sizeof err, "RPUSH mars:done:%s %s", owner, line) == 0 &&
            rq_append(r, err, sizeof err, "LREM mars:processing:%s 1 %s", d->id, msg) == 0 &&
            rq_flush(r, err, sizeof err) == 0)
            return;
        if (tries % RETRY_LOG_EVERY == 0) log_warning("reporting \"%s\": %s (retrying)", msg, err);
    }
}

static void slot_set(dispatch_t *d, int slot, const slot_job_t *j)
{
    pthread_mutex_lock(&d->smu);
    d->slots[slot] = *j;
    pthread_mutex_unlock(&d->smu);
}

static void handle(dispatch_t *d, rq_t *r, int slot, const char *msg)
{
    char tid[72], err[MSG_MAX], what[MSG_MAX + 8];
    int32_t ji;
    int attempt;
    if (parse_msg(msg, tid, sizeof tid, &ji, &attempt)) {
        log_warning("dropping malformed job message \"%.200s\"", msg);
        ack(d, r, msg);
        return;
    }
    /* Cancelled, or ended (its plan is gone): drop without running. */
    redisReply *reps[2];
    for (int tries = 0;; tries++) {
        if (!retry_wait(d, tries)) return; /* left on the list: requeued after we stop */
        if (rq_append(r, err, sizeof err, "EXISTS mars:task:%s:cancel", tid) == 0 &&
            rq_append(r, err, sizeof err, "GETRANGE mars:plan:%s 0 %d", tid, PLAN_PREFIX - 1) ==
                0 &&
            rq_flush_replies(r, reps, 2, err, sizeof err) == 0)
            break;
        if (tries % RETRY_LOG_EVERY == 0) log_warning("job %s: %s (retrying)", msg, err);
    }
    bool cancelled = reps[0]->type == REDIS_REPLY_INTEGER && reps[0]->integer > 0;
    bool gone = reps[1]->type != REDIS_REPLY_STRING || reps[1]->len == 0;
    char prefix[PLAN_PREFIX];
    size_t plen = 0;
    if (!gone) {
        plen = (size_t)reps[1]->len < PLAN_PREFIX ? (size_t)reps[1]->len : PLAN_PREFIX;
        memcpy(prefix, reps[1]->str, plen);
    }
    freeReplyObject(reps[0]);
    freeReplyObject(reps[1]);
    if (cancelled || gone) {
        log_debug("job %s dropped: task %s", msg, cancelled ? "cancelled" : "ended");
        metrics_counter_inc(d->m_dropped);
        ack(d, r, msg);
        return;
    }
    pentry_t *pe = plan_get(d, r, tid, prefix, plen, err, sizeof err);
    if (!pe) {
        /* No owner to tell: the plan is unreadable or gone. */
        log_warning("job %s dropped: %s", msg, err);
        metrics_counter_inc(d->m_dropped);
        ack(d, r, msg);
        return;
    }
    const plan_t *p = &pe->plan;
    if (ji >= p->t->n_jobs || !p->t->live[ji] || p->t->jobs[ji].kind == JK_SOURCE) {
        snprintf(what, sizeof what, "err job %d is not a runnable job of task %s", (int)ji, tid);
        report(d, r, p->owner, msg, what);
        plan_done(d, pe);
        return;
    }
    atomic_fetch_add(&d->running, 1);
    cbuf_t *out = NULL;
    slot_job_t sj = {.busy = true, .job = ji, .started_ms = svc_wall_ms()};
    const graph_node_t *nd = &p->g->nodes[p->t->jobs[ji].node];
    snprintf(sj.tid, sizeof sj.tid, "%s", tid);
    snprintf(sj.node, sizeof sj.node, "%s", nd->key);
    sj.op = op_name(nd->op);
    slot_set(d, slot, &sj);
    int64_t t0 = svc_now_ms();
    int rc = run_job(d, r, tid, p, ji, &out, err, sizeof err);
    int64_t t1 = svc_now_ms();
    metrics_histogram_observe(d->m_seconds, (double)(t1 - t0) / 1000.0);
    metrics_counter_inc(rc == 0 ? d->m_ok : d->m_err);
    atomic_fetch_sub(&d->running, 1);
    slot_set(d, slot, &(slot_job_t){.busy = false});
    if (rc == 0) {
        char e2[256], line[400];
        /* The run in wall-clock ms: its start, and the start plus the
         * monotonic duration (a clock step cannot make it negative). */
        snprintf(line, sizeof line, "%s %s ok %zu %d %lld %lld", msg, d->id, out->n, slot,
                 (long long)sj.started_ms, (long long)(sj.started_ms + (t1 - t0)));
        int rc2 = -1;
        /* Until it works (retry_wait): a job never reported would stall
         * its task while we keep beating. SET, RPUSH and LREM travel in
         * one pipeline, so a completion never arrives without its chunk. */
        for (int tries = 0; rc2 != 0 && retry_wait(d, tries); tries++) {
            rc2 = rq_append(r, e2, sizeof e2, "SET %s %b", out->key, out->data, out->n) ||
                  rq_append(r, e2, sizeof e2, "RPUSH mars:done:%s %s", p->owner, line) ||
                  rq_append(r, e2, sizeof e2, "LREM mars:processing:%s 1 %s", d->id, msg) ||
                  rq_flush(r, e2, sizeof e2);
            if (rc2 && tries % RETRY_LOG_EVERY == 0)
                log_warning("storing %s: %s (retrying)", out->key, e2);
        }
        if (rc2) {
            log_warning("storing %s: %s", out->key, e2);
        } else {
            cache_put(d, out);
            atomic_fetch_add(&d->done, 1);
        }
        cbuf_release(d, out);
    } else {
        for (char *c = err; *c; c++)
            if (*c == '\n') *c = ' ';
        snprintf(what, sizeof what, "err %s", err);
        report(d, r, p->owner, msg, what);
    }
    plan_done(d, pe);
}

static void *slot_main(void *arg)
{
    dispatch_t *d = arg;
    char err[512];
    int slot = atomic_fetch_add(&d->next_slot, 1);
    kern_init();
    rq_t *r = rq_create(d->cfg->redis_url, RQ_DEFAULT_TIMEOUT_MS, err, sizeof err);
    if (!r) {
        log_error("slot: %s", err);
        return NULL;
    }
    bool ok = true;
    while (!atomic_load(&d->stop)) {
        redisReply *rep =
            rq_command_blocking(r, BLOCK_MS, err, sizeof err,
                                "BLMOVE mars:jobs mars:processing:%s RIGHT LEFT 1", d->id);
        if (!rep) {
            if (ok) log_warning("taking a job: %s", err);
            ok = false;
            /* rq backs off reconnecting; don't spin meanwhile */
            struct timespec ts = {0, 200 * 1000 * 1000};
            nanosleep(&ts, NULL);
            continue;
        }
        if (!ok) log_info("taking jobs again");
        ok = true;
        if (rep->type == REDIS_REPLY_STRING) {
            char msg[300];
            snprintf(msg, sizeof msg, "%.*s", (int)(rep->len < 299 ? rep->len : 299), rep->str);
            handle(d, r, slot, msg);
        }
        freeReplyObject(rep);
    }
    rq_free(r);
    return NULL;
}

/* ---- lifecycle ---------------------------------------------------------------- */

dispatch_t *dispatch_create(const cfg_t *c, const char *worker_id, metrics_registry_t *m)
{
    dispatch_t *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    static const char H[] = "Chunk jobs this worker took, by result";
    d->m_ok =
        metrics_counter(m, "mars_worker_jobs_total", H, (const char *[]){"result", "ok", NULL});
    d->m_err =
        metrics_counter(m, "mars_worker_jobs_total", H, (const char *[]){"result", "err", NULL});
    d->m_dropped = metrics_counter(m, "mars_worker_jobs_total", H,
                                   (const char *[]){"result", "dropped", NULL});
    static const char C[] = "Input chunks looked up in the worker's cache, by result";
    d->m_hit = metrics_counter(m, "mars_worker_cache_lookups_total", C,
                               (const char *[]){"result", "hit", NULL});
    d->m_miss = metrics_counter(m, "mars_worker_cache_lookups_total", C,
                                (const char *[]){"result", "miss", NULL});
    d->m_seconds =
        metrics_histogram(m, "mars_worker_job_seconds", "Time to read a job's inputs and run it",
                          NULL, METRICS_LATENCY_BUCKETS, METRICS_N_LATENCY_BUCKETS);
    d->cfg = c;
    snprintf(d->id, sizeof d->id, "%s", worker_id);
    pthread_mutex_init(&d->cache.mu, NULL);
    pthread_mutex_init(&d->pmu, NULL);
    pthread_mutex_init(&d->smu, NULL);
    d->cache.limit = c->cache_mem;
    return d;
}

int dispatch_start(dispatch_t *d, char *err, size_t errlen)
{
    kern_init();
    d->threads = calloc((size_t)d->cfg->n_cpu, sizeof(pthread_t));
    d->slots = calloc((size_t)d->cfg->n_cpu, sizeof(slot_job_t));
    if (!d->threads || !d->slots) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < d->cfg->n_cpu; i++) {
        if (pthread_create(&d->threads[i], NULL, slot_main, d) != 0) {
            snprintf(err, errlen, "cannot start slot %d of %d", i + 1, d->cfg->n_cpu);
            return -1;
        }
        d->n_threads++;
    }
    log_info("%d slots taking jobs from mars:jobs", d->n_threads);
    return 0;
}

void dispatch_stats(const dispatch_t *d, dispatch_stats_t *out)
{
    out->chunks_running = atomic_load(&d->running);
    out->chunks_done = atomic_load(&d->done);
    dispatch_t *m = (dispatch_t *)d; /* the cache's lock only */
    pthread_mutex_lock(&m->cache.mu);
    out->cache_used = m->cache.used;
    pthread_mutex_unlock(&m->cache.mu);
}

char *dispatch_slots_json(const dispatch_t *d)
{
    dispatch_t *m = (dispatch_t *)d; /* the slots' lock only */
    json_t *a = json_array();
    if (!a) abort();
    pthread_mutex_lock(&m->smu);
    for (int i = 0; m->slots && i < d->cfg->n_cpu; i++) {
        const slot_job_t *j = &m->slots[i];
        json_array_append_new(a, !j->busy ? json_null()
                                          : json_pack("{s:s,s:i,s:s,s:s,s:I}", "task_id", j->tid,
                                                      "job", (int)j->job, "node", j->node, "op",
                                                      j->op, "started_at",
                                                      (json_int_t)j->started_ms));
    }
    pthread_mutex_unlock(&m->smu);
    char *text = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    if (!text) abort();
    return text;
}

void dispatch_free(dispatch_t *d)
{
    if (!d) return;
    atomic_store(&d->stop, true);
    for (int i = 0; i < d->n_threads; i++)
        pthread_join(d->threads[i], NULL);
    free(d->threads);
    pthread_mutex_lock(&d->cache.mu);
    while (d->cache.tail)
        cache_drop_locked(&d->cache, d->cache.tail);
    pthread_mutex_unlock(&d->cache.mu);
    for (int i = 0; i < PLAN_CACHE; i++)
        if (d->plans[i].used) plan_close(&d->plans[i].plan);
    pthread_mutex_destroy(&d->cache.mu);
    pthread_mutex_destroy(&d->pmu);
    pthread_mutex_destroy(&d->smu);
    free(d->slots);
    free(d);
}
