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
/* Chunk cache hash buckets (chained), and the most chunks it keeps: tiny
 * chunks (W7's 16-byte partials) never reach the byte limit, and with
 * 4096 buckets and no bound on entries the chains grew with every task
 * (strcmp along them was 40% of a worker's CPU in W7's profile). Each
 * entry also costs its cbuf_t (~300 bytes), counted in `used`. */
#define CACHE_BUCKETS 65536
#define CACHE_MAX_ENTRIES 65536
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

/* Jobs a slot takes in one round trip (TAKE_SCRIPT): one per TAKE_SPREAD
 * waiting, at most BATCH_MAX. A short queue is taken one job at a time, so
 * that big jobs spread over the slots; a long one (W7: 125k map jobs of a
 * few us each) in batches, which divides the round trips per job (about
 * 10 us of Redis CPU each, the largest cost once PostgreSQL's writes were
 * cut, docs/benchmarks.md). */
#define BATCH_MAX 32
#define TAKE_SPREAD 16
/* A batch's reports (output SET, completion RPUSH, message LREM) go in one
 * pipeline, sent early once the outputs pending hold this many bytes
 * (memory: outputs are held until reported) or the first has waited this
 * long (its successors wait for it). */
#define REPORT_BYTES (1 << 20)
#define REPORT_MS 2

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
    int64_t used, limit; /* bytes, entries' own included */
    int64_t entries;
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
    c->used -= (int64_t)(b->n + sizeof *b);
    c->entries--;
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
    if ((int64_t)(b->n + sizeof *b) > c->limit) return;
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
        c->used += (int64_t)(b->n + sizeof *b);
        c->entries++;
        while ((c->used > c->limit || c->entries > CACHE_MAX_ENTRIES) && c->tail)
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

/* ---- batches ---------------------------------------------------------------- */

/* KEYS[1] the queue, KEYS[2] our processing list; ARGV[1] TAKE_SPREAD,
 * ARGV[2] BATCH_MAX. LMOVEs max(1, min(LLEN / spread, max)) messages, each
 * as BLMOVE RIGHT LEFT would, and returns them (an empty array when the
 * queue is empty). A script runs atomically: no message is ever in neither
 * list. */
static const char TAKE_SCRIPT[] =
    "local n = math.floor(redis.call('LLEN', KEYS[1]) / tonumber(ARGV[1]))"
    " if n < 1 then n = 1 end"
    " if n > tonumber(ARGV[2]) then n = tonumber(ARGV[2]) end"
    " local out = {}"
    " for i = 1, n do"
    "  local m = redis.call('LMOVE', KEYS[1], KEYS[2], 'RIGHT', 'LEFT')"
    "  if not m then break end"
    "  out[#out + 1] = m"
    " end"
    " return out";

/* One job's report, sent with the batch's others. */
typedef struct {
    char msg[300];  /* the job message, LREMed from the processing list */
    char owner[72]; /* completion list: mars:done:<owner>; "" when dropped */
    char line[MSG_MAX + 400];
    cbuf_t *out; /* output to SET first (a reference), or NULL */
} report_t;

typedef struct {
    report_t *v; /* BATCH_MAX */
    int n;
    size_t bytes;
    int64_t first_ms;
} reports_t;

/* The cancel key and plan prefix of a task, read once per batch. */
typedef struct {
    char tid[72];
    bool cancelled, gone;
    char prefix[PLAN_PREFIX];
    size_t plen;
} tcheck_t;

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
static cbuf_t *fetch_pack_part(rq_t *r, const char *key, const char *ckey, int64_t part, char *err,
                               size_t errlen)
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

static void slot_set(dispatch_t *d, int slot, const slot_job_t *j)
{
    pthread_mutex_lock(&d->smu);
    d->slots[slot] = *j;
    pthread_mutex_unlock(&d->smu);
}

/* Sends the pending reports in one pipeline: per job the output's SET, the
 * completion's RPUSH and the message's LREM, in that order (a message
 * leaves the processing list only once reported). A few tries: rq
 * reconnects (with backoff) after a broken link; a job never reported would
 * stall its task while we keep beating. Resending is harmless: the same
 * bytes, and a second completion is stale. */
static void reports_flush(dispatch_t *d, rq_t *r, reports_t *rp)
{
    if (rp->n == 0) return;
    char err[256];
    int rc = -1;
    /* Until it works or we stop (retry_wait): a message left on our list
     * while we keep beating would stall its task for ever; once we stop,
     * the supervisor requeues it when our heartbeat lapses. */
    for (int tries = 0; rc != 0 && retry_wait(d, tries); tries++) {
        if (tries && tries % RETRY_LOG_EVERY == 1)
            log_warning("reporting %d jobs: %s (retrying)", rp->n, err);
        rc = 0;
        for (int i = 0; i < rp->n && rc == 0; i++) {
            report_t *x = &rp->v[i];
            if (x->out)
                rc = rq_append(r, err, sizeof err, "SET %s %b", x->out->key, x->out->data,
                               x->out->n);
            if (rc == 0 && x->owner[0])
                rc = rq_append(r, err, sizeof err, "RPUSH mars:done:%s %s", x->owner, x->line);
            if (rc == 0)
                rc = rq_append(r, err, sizeof err, "LREM mars:processing:%s 1 %s", d->id, x->msg);
        }
        if (rc == 0) rc = rq_flush(r, err, sizeof err);
    }
    if (rc)
        log_warning("reporting %d jobs: %s (stopping: left on the processing list)", rp->n, err);
    for (int i = 0; i < rp->n; i++) {
        report_t *x = &rp->v[i];
        if (!x->out) continue;
        if (rc == 0) {
            cache_put(d, x->out);
            atomic_fetch_add(&d->done, 1);
        }
        cbuf_release(d, x->out);
        x->out = NULL;
    }
    rp->n = 0;
    rp->bytes = 0;
}

/* Queues a report (owner NULL: the message is only dropped). */
static void report_add(dispatch_t *d, rq_t *r, reports_t *rp, const char *msg, const char *owner,
                       const char *line, cbuf_t *out)
{
    if (rp->n == BATCH_MAX) reports_flush(d, r, rp);
    report_t *x = &rp->v[rp->n++];
    snprintf(x->msg, sizeof x->msg, "%s", msg);
    snprintf(x->owner, sizeof x->owner, "%s", owner ? owner : "");
    snprintf(x->line, sizeof x->line, "%s %s %s", msg, d->id, line ? line : "");
    x->out = out;
    if (rp->n == 1) rp->first_ms = svc_now_ms();
    if (out) rp->bytes += out->n;
}

/* Runs one job of a batch whose task passed its checks (ck); queues its
 * report. */
static void run_one(dispatch_t *d, rq_t *r, int slot, const char *msg, const char *tid, int32_t ji,
                    const tcheck_t *ck, reports_t *rp)
{
    char err[MSG_MAX], what[MSG_MAX + 8];
    pentry_t *pe = plan_get(d, r, tid, ck->prefix, ck->plen, err, sizeof err);
    if (!pe) {
        /* No owner to tell: the plan is unreadable or gone. */
        log_warning("job %s dropped: %s", msg, err);
        metrics_counter_inc(d->m_dropped);
        report_add(d, r, rp, msg, NULL, NULL, NULL);
        return;
    }
    const plan_t *p = &pe->plan;
    if (ji >= p->t->n_jobs || !p->t->live[ji] || p->t->jobs[ji].kind == JK_SOURCE) {
        snprintf(what, sizeof what, "err job %d is not a runnable job of task %s", (int)ji, tid);
        report_add(d, r, rp, msg, p->owner, what, NULL);
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
        /* The run in wall-clock ms: its start, and the start plus the
         * monotonic duration (a clock step cannot make it negative). */
        snprintf(what, sizeof what, "ok %zu %d %lld %lld", out->n, slot, (long long)sj.started_ms,
                 (long long)(sj.started_ms + (t1 - t0)));
        report_add(d, r, rp, msg, p->owner, what, out);
    } else {
        for (char *c = err; *c; c++)
            if (*c == '\n') *c = ' ';
        snprintf(what, sizeof what, "err %s", err);
        report_add(d, r, rp, msg, p->owner, what, NULL);
    }
    plan_done(d, pe);
}

/* Runs a batch of job messages taken from the queue (all on our
 * processing list): the cancel key and plan prefix once per task, then the
 * jobs in order, their reports pipelined. */
static void handle_batch(dispatch_t *d, rq_t *r, int slot, char (*msgs)[300], int n, reports_t *rp)
{
    char err[256];
    char tids[BATCH_MAX][72];
    int32_t jobs[BATCH_MAX];
    int task_of[BATCH_MAX];
    tcheck_t ck[BATCH_MAX];
    int nt = 0;
    for (int i = 0; i < n; i++) {
        int attempt;
        task_of[i] = -1;
        if (parse_msg(msgs[i], tids[i], sizeof tids[i], &jobs[i], &attempt)) continue;
        int t = 0;
        while (t < nt && strcmp(ck[t].tid, tids[i]) != 0)
            t++;
        if (t == nt) {
            memset(&ck[nt], 0, sizeof ck[nt]);
            memcpy(ck[nt].tid, tids[i], sizeof ck[nt].tid); /* both 72, NUL-terminated */
            nt++;
        }
        task_of[i] = t;
    }
    /* Cancelled, or ended (its plan is gone): dropped without running. */
    redisReply *reps[2 * BATCH_MAX];
    for (int tries = 0; nt > 0; tries++) {
        if (!retry_wait(d, tries)) return; /* left on the list: requeued after we stop */
        int rc = 0;
        for (int t = 0; t < nt && rc == 0; t++)
            rc = rq_append(r, err, sizeof err, "EXISTS mars:task:%s:cancel", ck[t].tid) ||
                 rq_append(r, err, sizeof err, "GETRANGE mars:plan:%s 0 %d", ck[t].tid,
                           PLAN_PREFIX - 1);
        if (rc == 0 && rq_flush_replies(r, reps, 2 * nt, err, sizeof err) == 0) break;
        if (tries % RETRY_LOG_EVERY == 0) log_warning("%d jobs: %s (retrying)", n, err);
    }
    for (int t = 0; t < nt; t++) {
        redisReply *c = reps[2 * t], *g = reps[2 * t + 1];
        ck[t].cancelled = c->type == REDIS_REPLY_INTEGER && c->integer > 0;
        ck[t].gone = g->type != REDIS_REPLY_STRING || g->len == 0;
        if (!ck[t].gone) {
            ck[t].plen = (size_t)g->len < PLAN_PREFIX ? (size_t)g->len : PLAN_PREFIX;
            memcpy(ck[t].prefix, g->str, ck[t].plen);
        }
        freeReplyObject(c);
        freeReplyObject(g);
    }
    for (int i = 0; i < n; i++) {
        if (task_of[i] < 0) {
            log_warning("dropping malformed job message \"%.200s\"", msgs[i]);
            report_add(d, r, rp, msgs[i], NULL, NULL, NULL);
        } else if (ck[task_of[i]].cancelled || ck[task_of[i]].gone) {
            log_debug("job %s dropped: task %s", msgs[i],
                      ck[task_of[i]].cancelled ? "cancelled" : "ended");
            metrics_counter_inc(d->m_dropped);
            report_add(d, r, rp, msgs[i], NULL, NULL, NULL);
        } else {
            run_one(d, r, slot, msgs[i], tids[i], jobs[i], &ck[task_of[i]], rp);
        }
        if (rp->bytes >= REPORT_BYTES || svc_now_ms() - rp->first_ms >= REPORT_MS)
            reports_flush(d, r, rp);
    }
    reports_flush(d, r, rp);
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
    reports_t rp = {.v = calloc(BATCH_MAX, sizeof(report_t))};
    char(*msgs)[300] = malloc(sizeof(char[300]) * BATCH_MAX);
    if (!rp.v || !msgs) {
        log_error("slot: out of memory");
        free(rp.v);
        free(msgs);
        rq_free(r);
        return NULL;
    }
    bool ok = true;
    char spread[16], bmax[16];
    snprintf(spread, sizeof spread, "%d", TAKE_SPREAD);
    snprintf(bmax, sizeof bmax, "%d", BATCH_MAX);
    while (!atomic_load(&d->stop)) {
        /* Several jobs in one round trip when the queue is long; else wait
         * for one. */
        redisReply *rep =
            rq_command(r, err, sizeof err, "EVAL %s 2 mars:jobs mars:processing:%s %s %s",
                       TAKE_SCRIPT, d->id, spread, bmax);
        if (rep && (rep->type != REDIS_REPLY_ARRAY || rep->elements == 0)) {
            freeReplyObject(rep);
            rep = rq_command_blocking(r, BLOCK_MS, err, sizeof err,
                                      "BLMOVE mars:jobs mars:processing:%s RIGHT LEFT 1", d->id);
        }
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
        int n = 0;
        if (rep->type == REDIS_REPLY_STRING) {
            snprintf(msgs[n++], 300, "%.*s", (int)(rep->len < 299 ? rep->len : 299), rep->str);
        } else if (rep->type == REDIS_REPLY_ARRAY) {
            for (size_t i = 0; i < rep->elements && n < BATCH_MAX; i++) {
                redisReply *e = rep->element[i];
                if (e->type != REDIS_REPLY_STRING) continue;
                snprintf(msgs[n++], 300, "%.*s", (int)(e->len < 299 ? e->len : 299), e->str);
            }
        }
        freeReplyObject(rep);
        if (n > 0) handle_batch(d, r, slot, msgs, n, &rp);
    }
    free(rp.v);
    free(msgs);
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
        json_array_append_new(a, !j->busy
                                     ? json_null()
                                     : json_pack("{s:s,s:i,s:s,s:s,s:I}", "task_id", j->tid, "job",
                                                 (int)j->job, "node", j->node, "op", j->op,
                                                 "started_at", (json_int_t)j->started_ms));
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
