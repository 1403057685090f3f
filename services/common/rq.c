/* rq.c: hiredis connection with reconnect and backoff. */
#include "rq.h"
#include "svc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rq {
    redisContext *ctx;
    char host[256];
    char path[256]; /* unix socket; "" for TCP */
    int port, db;
    char user[128], password[256];
    int timeout_ms;
    long long next_try_ms;
    int backoff_ms;
    int pending; /* replies queued by rq_append */
};

#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 5000

static int copy_part(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap) return -1;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return 0;
}

static int parse_url(rq_t *r, const char *url, char *err, size_t errlen)
{
    char *end;
    if (strncmp(url, "unix://", 7) == 0) {
        const char *path = url + 7, *q = strchr(path, '?');
        size_t n = q ? (size_t)(q - path) : strlen(path);
        if (n == 0 || copy_part(r->path, sizeof r->path, path, n)) goto bad;
        if (q) {
            if (strncmp(q, "?db=", 4) != 0) goto bad;
            long d = strtol(q + 4, &end, 10);
            if (*end || end == q + 4 || d < 0 || d > 65535) goto bad;
            r->db = (int)d;
        }
        return 0;
    }
    if (strncmp(url, "redis://", 8) != 0) goto bad;
    const char *p = url + 8, *at = strrchr(p, '@');
    if (at) {
        const char *colon = memchr(p, ':', (size_t)(at - p));
        if (!colon) goto bad;
        if (copy_part(r->user, sizeof r->user, p, (size_t)(colon - p)) ||
            copy_part(r->password, sizeof r->password, colon + 1, (size_t)(at - colon - 1)))
            goto bad;
        p = at + 1;
    }
    const char *slash = strchr(p, '/');
    size_t hl = slash ? (size_t)(slash - p) : strlen(p);
    char hostport[300];
    if (copy_part(hostport, sizeof hostport, p, hl)) goto bad;
    r->port = 6379;
    char *host = hostport, *colon = NULL;
    if (host[0] == '[') {
        char *close = strchr(host, ']');
        if (!close) goto bad;
        *close = '\0';
        host++;
        if (close[1] == ':')
            colon = close + 1;
        else if (close[1])
            goto bad;
    } else {
        colon = strrchr(host, ':');
    }
    if (colon) {
        *colon = '\0';
        long port = strtol(colon + 1, &end, 10);
        if (*end || end == colon + 1 || port < 1 || port > 65535) goto bad;
        r->port = (int)port;
    }
    if (!*host || copy_part(r->host, sizeof r->host, host, strlen(host))) goto bad;
    if (slash && slash[1]) {
        long d = strtol(slash + 1, &end, 10);
        if (*end || d < 0 || d > 65535) goto bad;
        r->db = (int)d;
    }
    return 0;
bad:
    snprintf(err, errlen,
             "'%s' is not a Redis URL (redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] or "
             "unix:///PATH[?db=N])",
             url);
    return -1;
}

rq_t *rq_create(const char *url, int timeout_ms, char *err, size_t errlen)
{
    rq_t *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->timeout_ms = timeout_ms > 0 ? timeout_ms : RQ_DEFAULT_TIMEOUT_MS;
    if (parse_url(r, url, err, errlen)) {
        free(r);
        return NULL;
    }
    return r;
}

static void drop(rq_t *r)
{
    if (r->ctx) redisFree(r->ctx);
    r->ctx = NULL;
    r->pending = 0;
}

void rq_free(rq_t *r)
{
    if (!r) return;
    drop(r);
    free(r);
}

static void backoff(rq_t *r)
{
    r->backoff_ms = r->backoff_ms ? r->backoff_ms * 2 : BACKOFF_MIN_MS;
    if (r->backoff_ms > BACKOFF_MAX_MS) r->backoff_ms = BACKOFF_MAX_MS;
    r->next_try_ms = svc_now_ms() + r->backoff_ms;
}

/* A reply that must not be an error, for the set-up commands. */
static int setup_cmd(rq_t *r, char *err, size_t errlen, redisReply *rep, const char *what)
{
    if (!rep || rep->type == REDIS_REPLY_ERROR) {
        snprintf(err, errlen, "redis %s: %s", what, rep ? rep->str : r->ctx->errstr);
        if (rep) freeReplyObject(rep);
        return -1;
    }
    freeReplyObject(rep);
    return 0;
}

int rq_connect(rq_t *r, char *err, size_t errlen)
{
    if (r->ctx) return 0;
    long long now = svc_now_ms();
    if (now < r->next_try_ms) {
        snprintf(err, errlen, "redis unavailable (next attempt in %lld ms)", r->next_try_ms - now);
        return -1;
    }
    struct timeval tv = {.tv_sec = r->timeout_ms / 1000, .tv_usec = r->timeout_ms % 1000 * 1000};
    r->ctx = r->path[0] ? redisConnectUnixWithTimeout(r->path, tv)
                        : redisConnectWithTimeout(r->host, r->port, tv);
    if (!r->ctx || r->ctx->err) {
        if (r->path[0])
            snprintf(err, errlen, "redis %s: %s", r->path,
                     r->ctx ? r->ctx->errstr : "out of memory");
        else
            snprintf(err, errlen, "redis %s:%d: %s", r->host, r->port,
                     r->ctx ? r->ctx->errstr : "out of memory");
        goto connect;
    }
    if (redisSetTimeout(r->ctx, tv) != REDIS_OK) {
        snprintf(err, errlen, "redis: setting the socket timeout failed");
        goto connect;
    }
    if (!r->path[0]) redisEnableKeepAlive(r->ctx);
    if (r->password[0] || r->user[0]) {
        redisReply *rep = r->user[0] ? redisCommand(r->ctx, "AUTH %s %s", r->user, r->password)
                                     : redisCommand(r->ctx, "AUTH %s", r->password);
        if (setup_cmd(r, err, errlen, rep, "AUTH")) goto connect;
    }
    if (r->db && setup_cmd(r, err, errlen, redisCommand(r->ctx, "SELECT %d", r->db), "SELECT"))
        goto connect;
    r->backoff_ms = 0;
    r->next_try_ms = 0;
    return 0;
connect:
    drop(r);
    backoff(r);
    return -1;
}

static int connect_cb(void *ctx, char *err, size_t errlen)
{
    return rq_connect(ctx, err, errlen);
}

int rq_connect_wait(rq_t *r, int timeout_ms, bool (*stop)(int wait_ms), char *err, size_t errlen)
{
    return svc_connect_wait(connect_cb, r, &r->next_try_ms, timeout_ms, stop, err, errlen);
}

/* Turns a NULL reply or an error reply into err; drops a broken context. */
static redisReply *finish(rq_t *r, redisReply *rep, char *err, size_t errlen)
{
    if (!rep) {
        snprintf(err, errlen, "redis: %s", r->ctx->errstr[0] ? r->ctx->errstr : strerror(errno));
        drop(r);
        return NULL;
    }
    if (rep->type == REDIS_REPLY_ERROR) {
        snprintf(err, errlen, "redis: %s", rep->str);
        freeReplyObject(rep);
        return NULL;
    }
    return rep;
}

static redisReply *vcommand(rq_t *r, char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (rq_connect(r, err, errlen)) return NULL;
    if (r->pending) {
        snprintf(err, errlen, "redis: %d appended commands not flushed", r->pending);
        return NULL;
    }
    return finish(r, redisvCommand(r->ctx, fmt, ap), err, errlen);
}

redisReply *rq_command(rq_t *r, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *rep = vcommand(r, err, errlen, fmt, ap);
    va_end(ap);
    return rep;
}

redisReply *rq_command_blocking(rq_t *r, int block_ms, char *err, size_t errlen, const char *fmt,
                                ...)
{
    if (block_ms + RQ_BLOCK_MARGIN_MS > r->timeout_ms) {
        snprintf(err, errlen, "redis: blocking %d ms needs a socket timeout over %d ms (have %d)",
                 block_ms, block_ms + RQ_BLOCK_MARGIN_MS, r->timeout_ms);
        return NULL;
    }
    va_list ap;
    va_start(ap, fmt);
    redisReply *rep = vcommand(r, err, errlen, fmt, ap);
    va_end(ap);
    return rep;
}

int rq_append(rq_t *r, char *err, size_t errlen, const char *fmt, ...)
{
    if (rq_connect(r, err, errlen)) return -1;
    va_list ap;
    va_start(ap, fmt);
    int rc = redisvAppendCommand(r->ctx, fmt, ap);
    va_end(ap);
    if (rc != REDIS_OK) {
        snprintf(err, errlen, "redis: %s", r->ctx->errstr);
        drop(r);
        return -1;
    }
    r->pending++;
    return 0;
}

int rq_append_argv(rq_t *r, int argc, const char **argv, const size_t *argvlen, char *err,
                   size_t errlen)
{
    if (rq_connect(r, err, errlen)) return -1;
    if (redisAppendCommandArgv(r->ctx, argc, argv, argvlen) != REDIS_OK) {
        snprintf(err, errlen, "redis: %s", r->ctx->errstr);
        drop(r);
        return -1;
    }
    r->pending++;
    return 0;
}

int rq_flush(rq_t *r, char *err, size_t errlen)
{
    int rc = 0;
    if (!r->ctx) {
        snprintf(err, errlen, "redis: connection lost before the flush");
        return -1;
    }
    while (r->pending > 0) {
        void *rep = NULL;
        if (redisGetReply(r->ctx, &rep) != REDIS_OK) {
            snprintf(err, errlen, "redis: %s",
                     r->ctx->errstr[0] ? r->ctx->errstr : strerror(errno));
            drop(r);
            return -1;
        }
        r->pending--;
        redisReply *rr = rep;
        if (rr->type == REDIS_REPLY_ERROR && rc == 0) {
            snprintf(err, errlen, "redis: %s", rr->str);
            rc = -1;
        }
        freeReplyObject(rr);
    }
    return rc;
}

int rq_ping(rq_t *r, char *err, size_t errlen)
{
    redisReply *rep = rq_command(r, err, errlen, "PING");
    if (!rep) return -1;
    freeReplyObject(rep);
    return 0;
}

int rq_flush_replies(rq_t *r, redisReply **out, int n, char *err, size_t errlen)
{
    if (n != r->pending) {
        snprintf(err, errlen, "redis: %d replies asked for, %d commands queued", n, r->pending);
        return -1;
    }
    if (!r->ctx) {
        snprintf(err, errlen, "redis: connection lost before the flush");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        void *rep = NULL;
        if (redisGetReply(r->ctx, &rep) != REDIS_OK) {
            snprintf(err, errlen, "redis: %s",
                     r->ctx->errstr[0] ? r->ctx->errstr : strerror(errno));
            drop(r);
            for (int k = 0; k < i; k++)
                freeReplyObject(out[k]);
            return -1;
        }
        r->pending--;
        out[i] = rep;
    }
    for (int i = 0; i < n; i++) {
        if (out[i]->type == REDIS_REPLY_ERROR) {
            snprintf(err, errlen, "redis: %s", out[i]->str);
            for (int k = 0; k < n; k++)
                freeReplyObject(out[k]);
            return -1;
        }
    }
    return 0;
}
