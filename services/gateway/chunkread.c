/* chunkread.c: result chunks for the gateway, wherever they live
 * (docs/cluster-protocol.md, "Data plane"): inline in Redis (uploads, small
 * chunks) or in the store of the worker that made them, read over its -p
 * port. A chunk whose worker died is made again from its lineage: the
 * gateway asks for its task to be revived and waits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gateway_internal.h"
#include "httpc.h"
#include "log.h"
#include "msg.h"
#include "proto.h"

#define LOG_MODULE "gateway"

/* How often a read waiting for lost chunks asks for them again. */
#define REVIVE_ASK_MS 1000

/* Commands per pipeline. */
#define LOC_PIPE 512
/* A chunk read from a worker: generous (a large chunk from a loaded
 * worker), bounded (a hung worker must not hold a stream thread). */
#define READ_TIMEOUT_MS 60000
/* GETRANGE windows for inline chunks: hiredis 0.14 reads one large value
 * much slower than the same bytes in 1 MiB replies. */
#define GET_WINDOW ((size_t)1 << 20)
#define GET_WINDOWS 64

/* One pass: fills locs; returns the number of chunks not found (lost[]
 * gets their task ids, one per distinct task, up to max_lost), or -1. */
static int64_t locate_once(conns_t *c, const plan_src_t *s, gw_loc_t *locs,
                           char (*lost)[MSG_ID_MAX], int *n_lost, int max_lost,
                           int64_t *first_missing, char *msg, size_t msglen)
{
    int64_t missing = 0;
    *n_lost = 0;
    *first_missing = -1;
    for (int64_t i0 = 0; i0 < s->n_keys; i0 += LOC_PIPE) {
        int n = (int)(s->n_keys - i0 < LOC_PIPE ? s->n_keys - i0 : LOC_PIPE);
        redisReply *rep[LOC_PIPE], *ex[LOC_PIPE];
        /* 1: the location of each chunk (uploads: inline) */
        for (int i = 0; i < n; i++) {
            char tid[MSG_ID_MAX];
            int32_t job;
            const char *key = s->chunk_keys[i0 + i];
            int rc = msg_chunk_key_parse(key, tid, sizeof tid, &job)
                         ? rq_append(c->rq, msg, msglen, "ECHO " MSG_INLINE_LOC)
                         : rq_append(c->rq, msg, msglen, "HGET " MSG_LOC "%s %d", tid, (int)job);
            if (rc) return -1;
        }
        if (rq_flush_replies(c->rq, rep, n, msg, msglen)) return -1;
        /* 2: inline chunks exist; holders are alive (their address) */
        for (int i = 0; i < n; i++) {
            const char *key = s->chunk_keys[i0 + i];
            if (rep[i]->type != REDIS_REPLY_STRING)
                rq_append(c->rq, msg, msglen, "EXISTS no-location-recorded");
            else if (msg_loc_inline(rep[i]->str))
                rq_append(c->rq, msg, msglen, "EXISTS %s", key);
            else
                rq_append(c->rq, msg, msglen, "EVAL %s 2 %s%s " MSG_UNREACHABLE "%s",
                          MSG_ALIVE_ADDR_SCRIPT, PROTO_WORKER_KEY, rep[i]->str, rep[i]->str);
        }
        int frc = rq_flush_replies(c->rq, ex, n, msg, msglen);
        for (int i = 0; i < n && frc == 0; i++) {
            gw_loc_t *l = &locs[i0 + i];
            bool found = false;
            if (rep[i]->type == REDIS_REPLY_STRING && msg_loc_inline(rep[i]->str)) {
                l->inl = true;
                found = ex[i]->type == REDIS_REPLY_INTEGER && ex[i]->integer == 1;
            } else if (rep[i]->type == REDIS_REPLY_STRING && ex[i]->type == REDIS_REPLY_STRING &&
                       (size_t)ex[i]->len < sizeof l->addr) {
                l->inl = false;
                snprintf(l->addr, sizeof l->addr, "%s", ex[i]->str);
                snprintf(l->wid, sizeof l->wid, "%s", rep[i]->str);
                found = true;
            }
            if (found) continue;
            if (*first_missing < 0) *first_missing = i0 + i;
            missing++;
            char tid[MSG_ID_MAX];
            int32_t job;
            if (msg_chunk_key_parse(s->chunk_keys[i0 + i], tid, sizeof tid, &job)) continue;
            bool seen = false;
            for (int k = 0; k < *n_lost && !seen; k++)
                seen = strcmp(lost[k], tid) == 0;
            if (!seen && *n_lost < max_lost) snprintf(lost[(*n_lost)++], MSG_ID_MAX, "%s", tid);
        }
        for (int i = 0; i < n; i++) {
            freeReplyObject(rep[i]);
            if (frc == 0) freeReplyObject(ex[i]);
        }
        if (frc) return -1;
    }
    return missing;
}

/* Whether the holders of the located chunks answer (GET /health, 2 s): a
 * worker killed a moment ago keeps its live report for up to 10 s. One that
 * does not is marked unreachable (msg.h), so that its chunks count as lost.
 * Returns the number that did not answer. */
static int probe_holders(conns_t *c, const gw_loc_t *locs, int64_t n)
{
    char seen[32][MSG_ID_MAX];
    int n_seen = 0, bad = 0;
    for (int64_t i = 0; i < n && n_seen < 32; i++) {
        if (locs[i].inl) continue;
        bool dup = false;
        for (int k = 0; k < n_seen && !dup; k++)
            dup = strcmp(seen[k], locs[i].wid) == 0;
        if (dup) continue;
        snprintf(seen[n_seen++], MSG_ID_MAX, "%s", locs[i].wid);
        char host[300], err[256];
        snprintf(host, sizeof host, "%s", locs[i].addr);
        char *colon = strrchr(host, ':');
        if (!colon) continue;
        *colon = '\0';
        int port = atoi(colon + 1), status = 0;
        char *h = host;
        if (h[0] == '[' && h[strlen(h) - 1] == ']') {
            h[strlen(h) - 1] = '\0';
            h++;
        }
        sbuf_t body;
        sbuf_init(&body);
        int rc = httpc_get(h, port, "/health", 2000, &status, &body, err, sizeof err);
        sbuf_close(&body);
        if (rc == 0 && status == 200) continue;
        log_warning("worker %s at %s does not answer: its chunks count as lost", locs[i].wid,
                    locs[i].addr);
        redisReply *r = rq_command(c->rq, err, sizeof err, "SET " MSG_UNREACHABLE "%s 1 EX %d",
                                   locs[i].wid, MSG_UNREACHABLE_S);
        if (r) freeReplyObject(r);
        bad++;
    }
    return bad;
}

int gw_locate_chunks(conns_t *c, const plan_src_t *s, gw_loc_t *locs, int wait_ms, char *msg,
                     size_t msglen)
{
    char lost[16][MSG_ID_MAX];
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int64_t asked = -1; /* when we last asked for a revive (ms since t0) */
    for (;;) {
        int n_lost;
        int64_t first;
        int64_t missing = locate_once(c, s, locs, lost, &n_lost, 16, &first, msg, msglen);
        if (missing < 0) return -1;
        if (missing == 0 && probe_holders(c, locs, s->n_keys) == 0) return 1;
        if (missing == 0) continue; /* looked at again: now they count as lost */
        /* Uploads have no lineage: nothing to wait for. */
        if (n_lost == 0) {
            snprintf(msg, msglen, "chunk %s of tensor \"%s\" is gone from the chunk store",
                     s->chunk_keys[first], s->key);
            return 0;
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t el = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
        /* Asked again every REVIVE_ASK_MS while chunks are missing: a
         * revive already under way when we asked (a supervisor runs one
         * per task at a time and drops requests meanwhile) may have looked
         * before this worker died, and ends without these chunks. */
        if (asked < 0 || el - asked >= REVIVE_ASK_MS) {
            for (int k = 0; k < n_lost; k++) {
                char e2[128];
                if (msg_ask_revive(c->rq, lost[k], e2, sizeof e2))
                    log_warning("asking for task %s's lost chunks: %s", lost[k], e2);
            }
            if (asked < 0)
                log_info("tensor \"%s\": %lld chunks lost with their workers; recomputing them "
                         "(task %s)",
                         s->key, (long long)missing, lost[0]);
            asked = el;
        }
        if (el >= wait_ms) {
            snprintf(msg, msglen,
                     "%lld chunks of tensor \"%s\" (the first: %s) were lost with their worker and "
                     "are still being recomputed after %d s; try again",
                     (long long)missing, s->key, s->chunk_keys[first], wait_ms / 1000);
            return 0;
        }
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static int grow(char **buf, size_t *cap, size_t want, char *err, size_t errlen)
{
    if (want <= *cap && *buf) return 0;
    char *n = realloc(*buf, want ? want : 1);
    if (!n) {
        snprintf(err, errlen, "out of memory for a %zu-byte chunk", want);
        return -1;
    }
    *buf = n;
    *cap = want ? want : 1;
    return 0;
}

/* An inline chunk: its length first when unknown, then GETRANGE windows. */
static int read_inline(conns_t *c, const char *key, size_t n, char **buf, size_t *cap, size_t *got,
                       char *err, size_t errlen)
{
    if (n == 0) {
        redisReply *r = rq_command(c->rq, err, errlen, "STRLEN %s", key);
        if (!r) return -1;
        n = r->type == REDIS_REPLY_INTEGER && r->integer > 0 ? (size_t)r->integer : 0;
        freeReplyObject(r);
    }
    if (grow(buf, cap, n, err, errlen)) return -1;
    size_t have = 0;
    bool bad = false;
    for (size_t w0 = 0; w0 < n && !bad; w0 += (size_t)GET_WINDOWS * GET_WINDOW) {
        redisReply *rep[GET_WINDOWS];
        int k = 0;
        for (size_t w = w0; k < GET_WINDOWS && w < n; w += GET_WINDOW, k++) {
            size_t end = w + GET_WINDOW < n ? w + GET_WINDOW : n;
            if (rq_append(c->rq, err, errlen, "GETRANGE %s %lld %lld", key, (long long)w,
                          (long long)end - 1))
                return -1;
        }
        if (rq_flush_replies(c->rq, rep, k, err, errlen)) return -1;
        for (int i = 0; i < k; i++) {
            if (rep[i]->type != REDIS_REPLY_STRING || have + rep[i]->len > n)
                bad = true;
            else if (!bad) {
                memcpy(*buf + have, rep[i]->str, rep[i]->len);
                have += rep[i]->len;
            }
            freeReplyObject(rep[i]);
        }
    }
    if (have != n) {
        snprintf(err, errlen, "chunk %s is missing or of the wrong size", key);
        return -1;
    }
    *got = n;
    return 0;
}

int gw_read_chunk(conns_t *c, const plan_src_t *s, const gw_loc_t *loc, int64_t i, size_t n,
                  char **buf, size_t *cap, size_t *got, char *err, size_t errlen)
{
    const char *key = s->chunk_keys[i];
    if (loc->inl) return read_inline(c, key, n, buf, cap, got, err, errlen);
    if (n == 0) { /* a frame blob: its size is the holder's to say */
        void *b;
        size_t len;
        if (peer_get_alloc(c->pool, loc->addr, c->token, key, (uint64_t)1 << 40, &b, &len,
                           READ_TIMEOUT_MS, err, errlen))
            return -1;
        free(*buf);
        *buf = b;
        *cap = len ? len : 1;
        *got = len;
        return 0;
    }
    if (grow(buf, cap, n, err, errlen)) return -1;
    if (peer_get(c->pool, loc->addr, c->token, key, NULL, *buf, n, READ_TIMEOUT_MS, err, errlen))
        return -1;
    *got = n;
    return 0;
}

int gw_read_chunks(conns_t *c, const plan_src_t *s, const gw_loc_t *locs, int64_t lo, int n,
                   const size_t *sizes, char **bufs, size_t *caps, char *err, size_t errlen)
{
    peer_req_t *q = calloc((size_t)(n ? n : 1), sizeof *q);
    if (!q) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int m = 0, rc = 0;
    int64_t *at = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!at) {
        free(q);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int k = 0; k < n && rc == 0; k++) {
        int64_t i = lo + k;
        size_t got = 0;
        if (grow(&bufs[k], &caps[k], sizes[k] ? sizes[k] : 1, err, errlen)) {
            rc = -1;
        } else if (locs[i].inl || sizes[k] == 0) { /* inline, or empty: one by one */
            rc = sizes[k] ? gw_read_chunk(c, s, &locs[i], i, sizes[k], &bufs[k], &caps[k], &got,
                                          err, errlen)
                          : 0;
            if (rc == 0 && got != sizes[k]) {
                snprintf(err, errlen, "chunk %s has %zu bytes, not %zu", s->chunk_keys[i], got,
                         sizes[k]);
                rc = -1;
            }
        } else {
            q[m] = (peer_req_t){.addr = locs[i].addr,
                                .token = c->token,
                                .key = s->chunk_keys[i],
                                .dst = bufs[k],
                                .n = sizes[k]};
            at[m++] = i;
        }
    }
    /* the chunks held by workers: in parallel, one connection each */
    for (int b = 0; rc == 0 && b < m; b += PEER_MANY_MAX) {
        int cnt = m - b < PEER_MANY_MAX ? m - b : PEER_MANY_MAX;
        if (peer_get_many(c->pool, &q[b], cnt, READ_TIMEOUT_MS)) {
            for (int k = b; k < b + cnt; k++)
                if (q[k].rc) {
                    snprintf(err, errlen, "chunk %s: %s", s->chunk_keys[at[k]], q[k].err);
                    break;
                }
            rc = -1;
        }
    }
    free(q);
    free(at);
    return rc;
}

void gw_free_chunks(rq_t *rq, char **keys, int n)
{
    char err[256];
    for (int i = 0; rq && i < n; i++) {
        char tid[MSG_ID_MAX];
        int32_t job;
        redisReply *r = NULL;
        if (msg_chunk_key_parse(keys[i], tid, sizeof tid, &job) == 0)
            r = rq_command(rq, err, sizeof err, "HGET " MSG_LOC "%s %d", tid, (int)job);
        if (r && r->type == REDIS_REPLY_STRING && !msg_loc_inline(r->str))
            rq_append(rq, err, sizeof err, "RPUSH " MSG_FREE "%s %s", r->str, keys[i]);
        else
            rq_append(rq, err, sizeof err, "DEL %s", keys[i]);
        if (r) {
            rq_append(rq, err, sizeof err, "HDEL " MSG_LOC "%s %d", tid, (int)job);
            freeReplyObject(r);
        }
        if (rq_flush(rq, err, sizeof err)) {
            log_warning("freeing %d chunks: %s", n, err);
            return;
        }
    }
}
