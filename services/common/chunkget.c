/* chunkget.c: one whole chunk by key, wherever it lives (chunkget.h). */
#include "chunkget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "peer.h"
#include "proto.h"

#define GET_TIMEOUT_MS 60000

static int get_inline(rq_t *rq, const char *key, uint64_t max, void **out, size_t *n, char *err,
                      size_t errlen)
{
    redisReply *r = rq_command(rq, err, errlen, "GET %s", key);
    if (!r) return -1;
    int rc = -1;
    if (r->type != REDIS_REPLY_STRING) {
        snprintf(err, errlen, "chunk %s is gone from the chunk store", key);
    } else if ((uint64_t)r->len > max) {
        snprintf(err, errlen, "chunk %s has %zu bytes, more than %llu", key, (size_t)r->len,
                 (unsigned long long)max);
    } else if (!(*out = malloc(r->len ? (size_t)r->len : 1))) {
        snprintf(err, errlen, "out of memory");
    } else {
        memcpy(*out, r->str, (size_t)r->len);
        *n = (size_t)r->len;
        rc = 0;
    }
    freeReplyObject(r);
    return rc;
}

int chunk_get_whole(rq_t *rq, const char *token, const char *key, uint64_t max, void **out,
                    size_t *n, char *err, size_t errlen)
{
    char tid[MSG_ID_MAX];
    int32_t job;
    if (msg_chunk_key_parse(key, tid, sizeof tid, &job)) /* an upload */
        return get_inline(rq, key, max, out, n, err, errlen);
    redisReply *r = rq_command(rq, err, errlen, "HGET " MSG_LOC "%s %d", tid, (int)job);
    if (!r) return -1;
    char wid[MSG_ID_MAX] = "";
    bool inl = r->type == REDIS_REPLY_STRING && msg_loc_inline(r->str);
    if (r->type == REDIS_REPLY_STRING && !inl) snprintf(wid, sizeof wid, "%s", r->str);
    bool known = r->type == REDIS_REPLY_STRING;
    freeReplyObject(r);
    if (!known) {
        snprintf(err, errlen, "chunk %s has no location: its task ended without it", key);
        return -1;
    }
    if (inl) return get_inline(rq, key, max, out, n, err, errlen);
    r = rq_command(rq, err, errlen, "EVAL %s 2 %s%s " MSG_UNREACHABLE "%s", MSG_ALIVE_ADDR_SCRIPT,
                   PROTO_WORKER_KEY, wid, wid);
    if (!r) return -1;
    char addr[300] = "";
    if (r->type == REDIS_REPLY_STRING && (size_t)r->len < sizeof addr)
        snprintf(addr, sizeof addr, "%s", r->str);
    freeReplyObject(r);
    if (!addr[0]) {
        snprintf(err, errlen, "chunk %s was lost with worker %s", key, wid);
        return -1;
    }
    peer_pool_t *pool = peer_pool_create();
    if (!pool) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = peer_get_alloc(pool, addr, token, key, max, out, n, GET_TIMEOUT_MS, err, errlen);
    peer_pool_free(pool);
    return rc ? -1 : 0;
}
