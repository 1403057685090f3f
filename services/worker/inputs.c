/* inputs.c: a job's inputs, wherever they live (see inputs.h). */
#include "inputs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/gpu.h"
#include "log.h"
#include "proto.h"
#include "svc.h"

#define LOG_MODULE "inputs"

/* Addresses of workers, re-read after this long (a worker that restarts
 * gets a new id, so an address only goes stale when its worker dies). */
#define ADDR_TTL_MS 30000
#define ADDR_MAX 1024
/* A peer read of one job's inputs: generous (a 32 MB chunk from a loaded
 * peer), bounded (a hung peer must not hold a slot for ever). */
#define PEER_TIMEOUT_MS 60000
/* The most parts a pack may declare: far above the tiler's (32), low
 * enough that a corrupted header cannot make us allocate much. */
#define PACK_MAX_PARTS 65536

/* ---- worker addresses ---------------------------------------------------- */

typedef struct {
    char id[MSG_ID_MAX];
    char addr[300];
    int64_t at;
} aentry_t;

struct addrs {
    pthread_mutex_t mu;
    aentry_t e[ADDR_MAX];
    int n;
};

addrs_t *addrs_create(void)
{
    addrs_t *a = calloc(1, sizeof *a);
    if (a) pthread_mutex_init(&a->mu, NULL);
    return a;
}

void addrs_free(addrs_t *a)
{
    if (!a) return;
    pthread_mutex_destroy(&a->mu);
    free(a);
}

static void addr_forget(addrs_t *a, const char *wid)
{
    pthread_mutex_lock(&a->mu);
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->e[i].id, wid) == 0) a->e[i] = a->e[--a->n];
    pthread_mutex_unlock(&a->mu);
}

/* The address of worker wid: 0, 1 when it is gone (its live report
 * expired: dead; or a reader found it unreachable), -1 with err when Redis
 * does not answer. */
static int addr_of(islot_t *s, const char *wid, char *out, size_t cap, char *err, size_t errlen)
{
    int64_t now = svc_now_ms();
    pthread_mutex_lock(&s->addrs->mu);
    for (int i = 0; i < s->addrs->n; i++) {
        aentry_t *e = &s->addrs->e[i];
        if (strcmp(e->id, wid) == 0 && now - e->at < ADDR_TTL_MS) {
            snprintf(out, cap, "%s", e->addr);
            pthread_mutex_unlock(&s->addrs->mu);
            return 0;
        }
    }
    pthread_mutex_unlock(&s->addrs->mu);
    redisReply *r = rq_command(s->r, err, errlen, "EVAL %s 2 %s%s " MSG_UNREACHABLE "%s",
                               MSG_ALIVE_ADDR_SCRIPT, PROTO_WORKER_KEY, wid, wid);
    if (!r) return -1;
    int rc = 1;
    if (r->type == REDIS_REPLY_STRING && r->len > 0 && (size_t)r->len < cap) {
        snprintf(out, cap, "%s", r->str);
        rc = 0;
        pthread_mutex_lock(&s->addrs->mu);
        if (s->addrs->n == ADDR_MAX) s->addrs->n = 0; /* rare: start over */
        aentry_t *e = &s->addrs->e[s->addrs->n++];
        snprintf(e->id, sizeof e->id, "%s", wid);
        snprintf(e->addr, sizeof e->addr, "%s", out);
        e->at = now;
        pthread_mutex_unlock(&s->addrs->mu);
    }
    freeReplyObject(r);
    return rc;
}

/* ---- partition packs ----------------------------------------------------- */

/* Reads bytes [off, off+len) of a chunk into dst: 0, or an INPUTS_ code. */
typedef struct {
    islot_t *s;
    const char *key;
    const char *addr; /* a peer's, or NULL */
    bool local;       /* in our store */
} reader_t;

static int rd(reader_t *x, uint64_t off, uint64_t len, void *dst, char *err, size_t errlen)
{
    if (len == 0) return 0;
    if (x->local) {
        if (store_read(x->s->store, x->key, off, len, dst) == 0) return 0;
        snprintf(err, errlen, "chunk %.200s went from this worker's store", x->key);
        return INPUTS_RETRY;
    }
    if (x->addr) {
        chunkrange_t cr = {.kind = CHUNKRANGE_BYTES, .offset = off, .length = len};
        int rc = peer_get(x->s->pool, x->addr, x->s->token, x->key, &cr, dst, len, PEER_TIMEOUT_MS,
                          err, errlen);
        return rc == 0 ? 0 : rc == PEER_BAD ? INPUTS_ERR : INPUTS_RETRY;
    }
    redisReply *r = rq_command(x->s->r, err, errlen, "GETRANGE %s %llu %llu", x->key,
                               (unsigned long long)off, (unsigned long long)(off + len - 1));
    if (!r) return INPUTS_ERR;
    int rc = 0;
    if (r->type != REDIS_REPLY_STRING || (uint64_t)r->len != len) {
        snprintf(err, errlen, "chunk %.200s is missing from Redis or truncated", x->key);
        rc = INPUTS_RETRY;
    } else {
        memcpy(dst, r->str, len);
    }
    freeReplyObject(r);
    return rc;
}

/* Part `part` (and part 0, which a sort part falls back on for its empty
 * result's columns) of a pack, as a pack of the same part count whose
 * other parts are empty (malloc'ed in *out, *n bytes). */
static int fetch_pack_part(reader_t *x, int64_t part, void **out, size_t *n, char *err,
                           size_t errlen)
{
    uint64_t h[2];
    int rc = rd(x, 0, 16, h, err, errlen);
    if (rc) return rc;
    uint64_t npk = h[1];
    if (npk == 0 || npk > PACK_MAX_PARTS) {
        snprintf(err, errlen, "chunk %.200s is no frame pack", x->key);
        return INPUTS_ERR;
    }
    size_t hl = 16 + 8 * (size_t)(npk + 1);
    uint64_t *off = malloc(8 * (size_t)(npk + 1));
    unsigned char *b = NULL;
    if (!off) goto oom;
    if ((rc = rd(x, 16, 8 * (npk + 1), off, err, errlen))) goto done;
    uint64_t want[2] = {0, part >= 0 && (uint64_t)part < npk ? (uint64_t)part : 0};
    uint64_t size = hl;
    for (int w = 0; w < 2; w++) {
        uint64_t a = off[want[w]], e = off[want[w] + 1];
        if (a > e || e - a > (1ull << 40) || (a & 7)) {
            snprintf(err, errlen, "chunk %.200s: bad frame pack offsets", x->key);
            rc = INPUTS_ERR;
            goto done;
        }
        if (w == 0 || want[1] != 0) size += e - a;
    }
    if (!(b = malloc(size))) goto oom;
    uint64_t *nh = (uint64_t *)b, at = hl;
    nh[0] = h[0];
    nh[1] = npk;
    for (uint64_t i = 0; i <= npk; i++)
        nh[2 + i] = hl; /* empty parts */
    for (int w = 0; w < 2; w++) {
        if (w == 1 && want[1] == 0) break;
        uint64_t a = off[want[w]], len = off[want[w] + 1] - a;
        nh[2 + want[w]] = at;
        if ((rc = rd(x, a, len, b + at, err, errlen))) goto done;
        at += len;
        for (uint64_t i = want[w] + 1; i <= npk; i++) /* later parts start where it ends */
            nh[2 + i] = at;
    }
    *out = b;
    *n = size;
    b = NULL;
    goto done;
oom:
    snprintf(err, errlen, "out of memory");
    rc = INPUTS_ERR;
done:
    free(off);
    free(b);
    return rc;
}

/* ---- loading ------------------------------------------------------------- */

static void node_prefix(const plan_t *p, const tile_t *t, int32_t ji, char *out, size_t cap)
{
    const graph_node_t *n = &p->g->nodes[tile_job_node(t, ji)];
    snprintf(out, cap, "node \"%s\" (%s): ", n->key, op_name(n->op));
}

static int alloc_inputs(jinputs_t *in, int cap)
{
    size_t c = (size_t)(cap ? cap : 1);
    memset(in, 0, sizeof *in);
    in->job = malloc(sizeof(int32_t) * c);
    in->data = calloc(c, sizeof(void *));
    in->len = calloc(c, sizeof(size_t));
    in->ref = calloc(c, sizeof(store_ref_t *));
    in->own = calloc(c, sizeof(void *));
    in->key = calloc(c, sizeof *in->key);
    return in->job && in->data && in->len && in->ref && in->own && in->key ? 0 : -1;
}

static void free_inputs(islot_t *s, jinputs_t *in, bool keep)
{
    for (int i = 0; in->ref && i < in->n; i++)
        if (in->ref[i]) store_release(s->store, in->ref[i]);
    for (int i = 0; in->own && i < in->n; i++) {
        if (!in->own[i]) continue;
        gpu_forget(in->own[i]); /* a device copy of a fetched input is not kept */
        if (keep)
            store_put(s->store, in->key[i], in->own[i], in->len[i], false);
        else
            free(in->own[i]);
    }
    free(in->job);
    free(in->data);
    free(in->len);
    free(in->ref);
    free(in->own);
    free(in->key);
    memset(in, 0, sizeof *in);
}

int64_t inputs_missing_bytes(const islot_t *s, const char *tid, const plan_t *p, const tile_t *t,
                             int32_t ji)
{
    int cap = tile_job_n_reads(t, ji);
    int32_t *src = malloc(sizeof(int32_t) * (size_t)(cap ? cap : 1));
    if (!src) return 0;
    int n = tile_job_sources(t, ji, src);
    int64_t miss = 0;
    for (int i = 0; i < n; i++) {
        char key[MSG_KEY_MAX];
        plan_chunk_key_of(p, t, tid, src[i], key, sizeof key);
        if (store_size(s->store, key) >= 0) continue; /* in memory or spilled: close enough */
        miss += (int64_t)tile_job_nbytes(t, src[i]);
    }
    free(src);
    return miss;
}

/* A missing input: where it lives (mars:loc), then its bytes. */
typedef struct {
    int idx;
    int64_t part;
    char loc[MSG_ID_MAX];
    bool known;
    char otid[MSG_ID_MAX]; /* the task that made it */
} miss_t;

static int locate(islot_t *s, const char *tid, jinputs_t *in, miss_t *m, int nm, char *err,
                  size_t errlen)
{
    int nq = 0;
    for (int i = 0; i < nm; i++) {
        int32_t j;
        if (msg_chunk_key_parse(in->key[m[i].idx], m[i].otid, sizeof m[i].otid, &j)) {
            /* an upload: in Redis */
            snprintf(m[i].loc, sizeof m[i].loc, MSG_INLINE_LOC);
            m[i].known = true;
            continue;
        }
        if (rq_append(s->r, err, errlen, "HGET " MSG_LOC "%s %d", m[i].otid, (int)j))
            return INPUTS_ERR;
        nq++;
    }
    if (nq == 0) return 0;
    redisReply **reps = calloc((size_t)nq, sizeof *reps);
    if (!reps || rq_flush_replies(s->r, reps, nq, err, errlen)) {
        free(reps);
        return INPUTS_ERR;
    }
    for (int i = 0, q = 0; i < nm; i++) {
        if (m[i].known) continue;
        redisReply *r = reps[q++];
        if (r->type == REDIS_REPLY_STRING && (size_t)r->len < sizeof m[i].loc) {
            snprintf(m[i].loc, sizeof m[i].loc, "%s", r->str);
            m[i].known = true;
        }
        freeReplyObject(r);
    }
    free(reps);
    (void)tid;
    return 0;
}

/* An input that nobody serves: made again by its task's supervisor
 * (lineage); one of an ended task is revived (msg.h), its holder marked
 * unreachable when it did not answer. */
static int lost_input(islot_t *s, const char *tid, const miss_t *m, const char *key,
                      const char *why, bool unreachable, char *err, size_t errlen)
{
    if (unreachable && m->known && !msg_loc_inline(m->loc)) {
        char e2[128];
        redisReply *r = rq_command(s->r, e2, sizeof e2, "SET " MSG_UNREACHABLE "%s 1 EX %d", m->loc,
                                   MSG_UNREACHABLE_S);
        if (r) freeReplyObject(r);
    }
    if (strcmp(m->otid, tid) != 0) {
        char e2[128];
        if (msg_ask_revive(s->r, m->otid, e2, sizeof e2))
            log_warning("asking for task %s's lost chunks: %s", m->otid, e2);
    }
    snprintf(err, errlen, "input chunk %.200s %s", key, why);
    return INPUTS_RETRY;
}

/* Reads the whole chunks of misses held by peers, in parallel. */
static int fetch_remote(islot_t *s, const tile_t *t, const char *tid, jinputs_t *in,
                        const miss_t *m, int nm, char *err, size_t errlen)
{
    peer_req_t *rq = calloc((size_t)(nm ? nm : 1), sizeof *rq);
    char(*addr)[300] = calloc((size_t)(nm ? nm : 1), sizeof *addr);
    int *of = malloc(sizeof(int) * (size_t)(nm ? nm : 1));
    int nr = 0, rc = 0;
    if (!rq || !addr || !of) {
        snprintf(err, errlen, "out of memory");
        rc = INPUTS_ERR;
        goto out;
    }
    for (int i = 0; i < nm && rc == 0; i++) {
        const miss_t *x = &m[i];
        int k = x->idx;
        if (msg_loc_inline(x->loc)) continue;
        int a = addr_of(s, x->loc, addr[nr], sizeof addr[nr], err, errlen);
        if (a < 0) {
            rc = INPUTS_ERR;
            break;
        }
        if (a > 0) {
            char why[160];
            snprintf(why, sizeof why, "is lost: worker %.72s that held it is gone", x->loc);
            rc = lost_input(s, tid, x, in->key[k], why, false, err, errlen);
            break;
        }
        if (x->part >= 0) { /* a pack part: ranges, one after the other */
            reader_t r = {s, in->key[k], addr[nr], false};
            rc = fetch_pack_part(&r, x->part, &in->own[k], &in->len[k], err, errlen);
            char part_key[MSG_KEY_MAX];
            snprintf(part_key, sizeof part_key, "%.200s#%lld", in->key[k], (long long)x->part);
            memcpy(in->key[k], part_key, sizeof part_key);
            if (rc == INPUTS_RETRY) addr_forget(s->addrs, x->loc);
            continue;
        }
        size_t want = tile_job_nbytes(t, in->job[k]);
        if (tile_job_is_blob(t, in->job[k])) { /* its size is the holder's to say */
            int pr = peer_get_alloc(s->pool, addr[nr], s->token, in->key[k], (uint64_t)1 << 40,
                                    &in->own[k], &in->len[k], PEER_TIMEOUT_MS, err, errlen);
            if (pr) {
                addr_forget(s->addrs, x->loc);
                char why[300];
                snprintf(why, sizeof why, "could not be read: %.250s", err);
                rc = pr == PEER_BAD ? INPUTS_ERR
                                    : lost_input(s, tid, x, in->key[k], why, pr == PEER_UNREACHABLE,
                                                 err, errlen);
                break;
            }
            continue;
        }
        in->own[k] = malloc(want ? want : 1);
        if (!in->own[k]) {
            snprintf(err, errlen, "out of memory reading input chunk %.200s", in->key[k]);
            rc = INPUTS_ERR;
            break;
        }
        in->len[k] = want;
        rq[nr] = (peer_req_t){
            .addr = addr[nr], .token = s->token, .key = in->key[k], .dst = in->own[k], .n = want};
        of[nr++] = i;
    }
    for (int base = 0; rc == 0 && base < nr; base += PEER_MANY_MAX) {
        int cnt = nr - base < PEER_MANY_MAX ? nr - base : PEER_MANY_MAX;
        if (peer_get_many(s->pool, rq + base, cnt, PEER_TIMEOUT_MS) == 0) continue;
        for (int q = base; q < base + cnt && rc == 0; q++) {
            if (rq[q].rc == 0) continue;
            const miss_t *x = &m[of[q]];
            addr_forget(s->addrs, x->loc);
            if (rq[q].rc == PEER_BAD) {
                snprintf(err, errlen, "%s", rq[q].err);
                rc = INPUTS_ERR;
            } else {
                rc = lost_input(s, tid, x, in->key[x->idx],
                                rq[q].rc == PEER_NOT_FOUND
                                    ? "is not on the worker recorded for it"
                                    : "could not be read: its worker does not answer",
                                true, err, errlen);
            }
        }
    }
    for (int i = 0; i < nm; i++)
        in->data[m[i].idx] = in->own[m[i].idx];
out:
    free(rq);
    free(addr);
    free(of);
    return rc;
}

/* Reads the misses that live inline in Redis: ranges for pack parts
 * first (each a command of its own), then one pipeline for whole chunks.
 * The parts must come first: a command sent while GETs are appended and
 * not yet flushed is refused ("appended commands not flushed"), which
 * failed a merge whose inputs were a whole inline chunk, then a part. */
static int fetch_inline(islot_t *s, jinputs_t *in, const miss_t *m, int nm, char *err,
                        size_t errlen)
{
    int nq = 0, rc = 0;
    for (int i = 0; i < nm; i++) {
        if (!msg_loc_inline(m[i].loc) || m[i].part < 0) continue;
        int k = m[i].idx;
        reader_t r = {s, in->key[k], NULL, false};
        if ((rc = fetch_pack_part(&r, m[i].part, &in->own[k], &in->len[k], err, errlen))) return rc;
        in->data[k] = in->own[k];
        /* cached under the part's own key: it is not the whole pack */
        char part_key[MSG_KEY_MAX];
        snprintf(part_key, sizeof part_key, "%.200s#%lld", in->key[k], (long long)m[i].part);
        memcpy(in->key[k], part_key, sizeof part_key);
    }
    for (int i = 0; i < nm; i++) {
        if (!msg_loc_inline(m[i].loc) || m[i].part >= 0) continue;
        if (rq_append(s->r, err, errlen, "GET %s", in->key[m[i].idx])) return INPUTS_ERR;
        nq++;
    }
    if (nq == 0) return 0;
    redisReply **reps = calloc((size_t)nq, sizeof *reps);
    if (!reps || rq_flush_replies(s->r, reps, nq, err, errlen)) {
        free(reps);
        return INPUTS_ERR;
    }
    for (int i = 0, q = 0; i < nm; i++) {
        if (!msg_loc_inline(m[i].loc) || m[i].part >= 0) continue;
        redisReply *r = reps[q++];
        int k = m[i].idx;
        if (rc == 0 && r->type != REDIS_REPLY_STRING) {
            char tid[MSG_ID_MAX];
            int32_t job;
            /* a task's chunk is made again (lineage); an upload cannot be */
            bool upload = msg_chunk_key_parse(in->key[k], tid, sizeof tid, &job) != 0;
            snprintf(err, errlen, "input chunk %.200s is missing from Redis%s", in->key[k],
                     upload ? " (an upload: upload it again)" : "");
            rc = upload ? INPUTS_ERR : INPUTS_RETRY;
        } else if (rc == 0) {
            in->own[k] = malloc(r->len ? (size_t)r->len : 1);
            if (!in->own[k]) {
                snprintf(err, errlen, "out of memory");
                rc = INPUTS_ERR;
            } else {
                memcpy(in->own[k], r->str, (size_t)r->len);
                in->len[k] = (size_t)r->len;
                in->data[k] = in->own[k];
            }
        }
        freeReplyObject(r);
    }
    free(reps);
    return rc;
}

/* Looks each input up in the store; the others go to m. */
static int from_store(islot_t *s, const char *tid, const plan_t *p, const tile_t *t, int32_t ji,
                      bool on_device, jinputs_t *in, miss_t *m, int *nm, char *err, size_t errlen)
{
    for (int i = 0; i < in->n; i++) {
        int32_t src = in->job[i];
        plan_chunk_key_of(p, t, tid, src, in->key[i], sizeof in->key[i]);
        int64_t part = tile_job_pack_part(t, ji, src);
        char ckey[MSG_KEY_MAX];
        if (part >= 0)
            snprintf(ckey, sizeof ckey, "%.200s#%lld", in->key[i], (long long)part);
        else
            snprintf(ckey, sizeof ckey, "%s", in->key[i]);
        in->ref[i] = on_device ? store_get_dev(s->store, ckey) : store_get(s->store, ckey);
        if (in->ref[i]) {
            in->data[i] = in->ref[i]->data;
            in->len[i] = in->ref[i]->n;
            continue;
        }
        if (part >= 0 && store_size(s->store, in->key[i]) >= 0) { /* our own pack */
            reader_t r = {s, in->key[i], NULL, true};
            int rc = fetch_pack_part(&r, part, &in->own[i], &in->len[i], err, errlen);
            if (rc) return rc;
            in->data[i] = in->own[i];
            snprintf(in->key[i], sizeof in->key[i], "%s", ckey);
            continue;
        }
        m[*nm] = (miss_t){.idx = i, .part = part};
        (*nm)++;
    }
    return 0;
}

/* Every input has the size its job gives (blobs: whatever they hold). */
static int check_sizes(const tile_t *t, const jinputs_t *in, char *err, size_t errlen)
{
    for (int i = 0; i < in->n; i++) {
        int32_t sj = in->job[i];
        if (tile_job_is_blob(t, sj) || strchr(in->key[i], '#')) continue;
        if (in->len[i] != tile_job_nbytes(t, sj)) {
            snprintf(err, errlen, "input chunk %.200s has %zu bytes, not the %zu expected",
                     in->key[i], in->len[i], tile_job_nbytes(t, sj));
            return INPUTS_ERR;
        }
    }
    return 0;
}

int inputs_load(islot_t *s, const char *tid, const plan_t *p, const tile_t *t, int32_t ji,
                bool on_device, jinputs_t *in, char *err, size_t errlen)
{
    char np[300], e2[MSG_TEXT_MAX];
    node_prefix(p, t, ji, np, sizeof np);
    int cap = tile_job_n_reads(t, ji);
    miss_t *m = calloc((size_t)(cap ? cap : 1), sizeof *m);
    int nm = 0, rc = 0;
    if (!m || alloc_inputs(in, cap)) {
        snprintf(e2, sizeof e2, "out of memory");
        rc = INPUTS_ERR;
        goto out;
    }
    in->n = tile_job_sources(t, ji, in->job);
    if ((rc = from_store(s, tid, p, t, ji, on_device, in, m, &nm, e2, sizeof e2))) goto out;
    if (nm > 0) {
        if ((rc = locate(s, tid, in, m, nm, e2, sizeof e2))) goto out;
        for (int i = 0; i < nm; i++) {
            if (!m[i].known) {
                rc = lost_input(s, tid, &m[i], in->key[m[i].idx],
                                "has no location (it is being made again)", false, e2, sizeof e2);
                goto out;
            }
            if (strcmp(m[i].loc, s->self) == 0) {
                rc = lost_input(s, tid, &m[i], in->key[m[i].idx],
                                "is recorded on this worker but is not in its store", false, e2,
                                sizeof e2);
                goto out;
            }
        }
        if ((rc = fetch_inline(s, in, m, nm, e2, sizeof e2))) goto out;
        if ((rc = fetch_remote(s, t, tid, in, m, nm, e2, sizeof e2))) goto out;
        for (int i = 0; i < nm; i++)
            in->fetched_bytes += (int64_t)in->len[m[i].idx];
    }
    rc = check_sizes(t, in, e2, sizeof e2);
out:
    free(m);
    if (rc) {
        snprintf(err, errlen, "%s%s", np, e2);
        free_inputs(s, in, false);
    }
    return rc;
}

const void *inputs_get(void *ctx, int32_t job, size_t *len)
{
    const jinputs_t *in = ctx;
    for (int i = 0; i < in->n; i++)
        if (in->job[i] == job) {
            *len = in->len[i];
            return in->data[i];
        }
    *len = 0;
    return NULL;
}

int inputs_to_host(const jinputs_t *in, char *err, size_t errlen)
{
    for (int i = 0; i < in->n; i++)
        if (in->ref[i] && gpu_to_host(in->data[i], err, errlen)) return -1;
    return 0;
}

void inputs_done(islot_t *s, jinputs_t *in)
{
    free_inputs(s, in, true);
}
