/* chunksrv.c: GET /api/v1/chunks/{key} on the worker's port (chunksrv.h).
 *
 * The handler (loop thread) checks what needs no I/O: the key, the query
 * (chunkrange_parse), that the store holds the key, the range against its
 * size. The bytes are produced on a stream thread: a chunk in memory is
 * handed to h2o as it lies (pinned until sent), a spilled one or a box goes
 * in pieces of HTTP_STREAM_PIECE, so that neither the worker nor the reader
 * ever holds a second copy of a whole chunk for a transfer. */
#include "chunksrv.h"

#include <stdlib.h>
#include <string.h>

#include "chunkrange.h"

typedef struct chunk_job {
    chunksrv_app_t *app;
    char key[STORE_KEY_MAX + 1];
    chunkrange_t range;
    uint64_t len; /* bytes of the answer */
} chunk_job_t;

void chunksrv_app_init(chunksrv_app_t *a, store_t *store, metrics_registry_t *metrics)
{
    memset(a, 0, sizeof *a);
    a->store = store;
    if (!metrics) return;
    a->bytes_served = metrics_counter(metrics, "mars_chunk_bytes_served_total",
                                      "Chunk bytes sent to peers and the gateway", NULL);
    a->not_found = metrics_counter(metrics, "mars_chunk_not_found_total",
                                   "Chunk reads for keys this worker does not hold", NULL);
}

static void served(chunksrv_app_t *a, size_t n)
{
    if (a->bytes_served) metrics_counter_add(a->bytes_served, (double)n);
}

static void not_found(chunksrv_app_t *a, http_reply_t *out, const char *key)
{
    if (a->not_found) metrics_counter_inc(a->not_found);
    http_reply_error(out, 404, "not_found", "this worker does not hold chunk %s", key);
}

typedef struct given {
    store_t *store;
    store_ref_t *ref;
} given_t;

static void given_done(void *ctx)
{
    given_t *g = ctx;
    store_unpin(g->store, g->ref);
    free(g);
}

/* A chunk in memory: its bytes handed to the stream as they lie, pinned
 * until sent (no copy in this process). 0 when sent or failed with an
 * answer, 1 when the chunk is not in memory. */
static int give_bytes(chunk_job_t *j, http_stream_t *st, uint64_t off)
{
    given_t *g = malloc(sizeof *g);
    if (!g) return 1;
    g->store = j->app->store;
    g->ref = store_get_mem(g->store, j->key);
    if (!g->ref || off > g->ref->n || j->len > g->ref->n - off) {
        store_unpin(g->store, g->ref);
        free(g);
        return 1;
    }
    http_stream_begin(st, 200, "application/octet-stream", (size_t)j->len);
    if (http_stream_give(st, (const char *)g->ref->data + off, (size_t)j->len, given_done, g) == 0)
        served(j->app, (size_t)j->len);
    return 0;
}

/* A byte range (or the whole chunk): given as it lies when in memory,
 * else piece by piece with store_read (a spilled chunk stays on disk). */
static void stream_bytes(chunk_job_t *j, http_stream_t *st, http_reply_t *out)
{
    uint64_t off = j->range.kind == CHUNKRANGE_BYTES ? j->range.offset : 0;
    if (j->len > 0 && give_bytes(j, st, off) == 0) return;
    size_t cap = j->len < HTTP_STREAM_PIECE ? (size_t)j->len : HTTP_STREAM_PIECE;
    char *buf = malloc(cap ? cap : 1);
    if (!buf) abort();
    uint64_t done = 0;
    bool begun = false;
    while (!begun || done < j->len) {
        size_t n = j->len - done < cap ? (size_t)(j->len - done) : cap;
        int rc = store_read(j->app->store, j->key, off + done, n, buf);
        if (rc != 0 && !begun) {
            /* Freed between the check and now, or its file is unreadable. */
            if (rc == -1)
                not_found(j->app, out, j->key);
            else
                http_reply_error(out, 500, "internal", "reading chunk %s failed", j->key);
            break;
        }
        if (rc != 0) {
            http_stream_fail(st);
            break;
        }
        if (!begun) http_stream_begin(st, 200, "application/octet-stream", (size_t)j->len);
        begun = true;
        if (n && http_stream_write(st, buf, n) != 0) break;
        served(j->app, n);
        done += n;
    }
    free(buf);
}

/* A box: the chunk pinned, its runs gathered into pieces. */
static void stream_box(chunk_job_t *j, http_stream_t *st, http_reply_t *out)
{
    store_ref_t *ref = store_get(j->app->store, j->key);
    if (!ref) {
        not_found(j->app, out, j->key);
        return;
    }
    size_t cap = j->len < HTTP_STREAM_PIECE ? (size_t)j->len : HTTP_STREAM_PIECE;
    char *buf = malloc(cap ? cap : 1);
    if (!buf) abort();
    http_stream_begin(st, 200, "application/octet-stream", (size_t)j->len);
    chunkrange_iter_t it;
    chunkrange_iter_init(&it, &j->range);
    uint64_t off, len;
    size_t fill = 0;
    int rc = 0;
    while (rc == 0 && chunkrange_iter_next(&it, &off, &len)) {
        if (off > ref->n || len > ref->n - off) {
            http_stream_fail(st);
            rc = -1;
            break;
        }
        const char *src = (const char *)ref->data + off;
        while (len > 0 && rc == 0) {
            size_t take = len < cap - fill ? (size_t)len : cap - fill;
            memcpy(buf + fill, src, take);
            fill += take;
            src += take;
            len -= take;
            if (fill == cap) {
                rc = http_stream_write(st, buf, fill);
                served(j->app, fill);
                fill = 0;
            }
        }
    }
    if (rc == 0 && fill > 0 && http_stream_write(st, buf, fill) == 0) served(j->app, fill);
    free(buf);
    store_release(j->app->store, ref);
}

static void chunk_stream(void *thread_state, void *arg, http_stream_t *st, http_reply_t *out)
{
    chunk_job_t *j = arg;
    if (j->range.kind == CHUNKRANGE_BOX)
        stream_box(j, st, out);
    else
        stream_bytes(j, st, out);
}

void chunksrv_handle_get(http_req_t *r)
{
    chunksrv_app_t *app = http_app(r);
    http_reply_t rep;
    const char *key = http_param(r, 0);
    size_t klen = strlen(key);
    if (klen > STORE_KEY_MAX) {
        http_reply_error(&rep, 400, "bad_request", "chunk key of %zu bytes, at most %d", klen,
                         STORE_KEY_MAX);
        http_send(r, &rep);
        return;
    }
    chunk_job_t j;
    memset(&j, 0, sizeof j);
    char err[256];
    size_t qlen;
    const char *q = http_query_raw(r, &qlen);
    if (chunkrange_parse(q, qlen, &j.range, err, sizeof err)) {
        http_reply_error(&rep, 400, "bad_request", "chunk %s: %s", key, err);
        http_send(r, &rep);
        return;
    }
    int64_t size = store_size(app->store, key);
    if (size < 0) {
        not_found(app, &rep, key);
        http_send(r, &rep);
        return;
    }
    if (chunkrange_resolve(&j.range, (uint64_t)size, &j.len, err, sizeof err)) {
        http_reply_error(&rep, 400, "bad_request", "chunk %s: %s", key, err);
        http_send(r, &rep);
        return;
    }
    j.app = app;
    memcpy(j.key, key, klen + 1);
    http_defer_stream(r, chunk_stream, &j, sizeof j);
}
