/* Unit tests of services/common/peer.c against a real worker-style server:
 * services/common/http.c on a free loopback port with the chunk route of
 * services/worker/chunksrv.c over a real store (some chunks spilled to
 * files). Whole chunks, byte ranges, boxes against a reference gathered
 * here element by element, 404, 400, the token, parallel reads, streams,
 * and a server that goes away. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "chunksrv.h"
#include "http.h"
#include "httpc.h"
#include "peer.h"
#include "sbuf.h"
#include "store.h"

static char g_tmp[] = "/tmp/mars-peer-test-XXXXXX";

typedef struct app {
    chunksrv_app_t srv; /* first: chunksrv finds the store here */
} app_t;

typedef struct server {
    app_t app;
    store_t *store;
    metrics_registry_t *metrics;
    http_server_t *http;
    char addr[64];
} server_t;

static const http_route_t ROUTES[] = {
    {"GET", "/health", http_handle_health},
    {"GET", CHUNKSRV_PATTERN, chunksrv_handle_get},
};

static unsigned char *pattern(size_t n, unsigned seed)
{
    unsigned char *p = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131u + i * 7u + (i >> 9));
    return p;
}

/* Big chunk: 5 MiB, several stream pieces, over the store's 1 MiB bound:
 * it is served from its spill file. */
#define BIG (5u << 20)

static void server_start(server_t *s, const char *token)
{
    memset(s, 0, sizeof *s);
    const char *dirs[] = {g_tmp};
    store_opts_t so = {.mem_limit = 1 << 20, .spill_dirs = dirs, .n_spill = 1};
    char err[256];
    s->store = store_create(&so, err, sizeof err);
    assert_non_null(s->store);
    s->metrics = metrics_create();
    chunksrv_app_init(&s->app.srv, s->store, s->metrics);
    /* 4 x 6 x 5 int32 array; a 5 MiB chunk (spilled: over the bound); a
     * small one that stays in memory; an empty one. */
    store_put(s->store, "chunk:t:big", pattern(BIG, 1), BIG, true);
    store_put(s->store, "chunk:t:arr", pattern(4 * 6 * 5 * 4, 2), 4 * 6 * 5 * 4, true);
    store_put(s->store, "chunk:t:small", pattern(1000, 3), 1000, true);
    store_put(s->store, "chunk:t:empty", NULL, 0, true);
    http_opts_t ho = {
        .name = "worker",
        .host = "127.0.0.1",
        .port = 0,
        .n_loops = 2,
        .max_body = 1 << 20,
        .routes = ROUTES,
        .n_routes = 2,
        .app = &s->app,
        .token = token,
        .metrics = s->metrics,
        .n_workers = 1,
        .n_stream_workers = 4,
    };
    assert_int_equal(http_server_start(&ho, &s->http, err, sizeof err), 0);
    snprintf(s->addr, sizeof s->addr, "127.0.0.1:%d", http_server_port(s->http));
}

static void server_stop(server_t *s)
{
    http_server_free(s->http);
    store_destroy(s->store);
    metrics_free(s->metrics);
}

static int setup(void **state)
{
    return mkdtemp(g_tmp) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_whole_and_ranges(void **state)
{
    server_t s;
    server_start(&s, NULL);
    store_stats_t st;
    store_stats(s.store, &st);
    assert_int_equal(st.spilled_chunks, 1); /* the big one is served from its file */
    peer_pool_t *pool = peer_pool_create();
    char err[1024];
    unsigned char *big = malloc(BIG), *want = pattern(BIG, 1);
    assert_int_equal(
        peer_get(pool, s.addr, NULL, "chunk:t:big", NULL, big, BIG, 10000, err, sizeof err), 0);
    assert_memory_equal(big, want, BIG);
    /* Byte ranges, over the same kept-alive connection. */
    peer_range_t r = {.kind = CHUNKRANGE_BYTES, .offset = 3 << 20, .length = 1500000};
    memset(big, 0, BIG);
    assert_int_equal(
        peer_get(pool, s.addr, NULL, "chunk:t:big", &r, big, 1500000, 10000, err, sizeof err), 0);
    assert_memory_equal(big, want + (3 << 20), 1500000);
    r = (peer_range_t){.kind = CHUNKRANGE_BYTES, .offset = 990, .length = UINT64_MAX};
    unsigned char *small = pattern(1000, 3), buf[16];
    assert_int_equal(
        peer_get(pool, s.addr, NULL, "chunk:t:small", &r, buf, 10, 5000, err, sizeof err), 0);
    assert_memory_equal(buf, small + 990, 10);
    assert_int_equal(
        peer_get(pool, s.addr, NULL, "chunk:t:empty", NULL, buf, 0, 5000, err, sizeof err), 0);
    /* A length other than the answer's: PEER_BAD. */
    assert_int_equal(
        peer_get(pool, s.addr, NULL, "chunk:t:small", NULL, big, 999, 5000, err, sizeof err),
        PEER_BAD);
    /* Out of bounds: 400 from the route. */
    r = (peer_range_t){.kind = CHUNKRANGE_BYTES, .offset = 900, .length = 200};
    assert_int_equal(
        peer_get(pool, s.addr, NULL, "chunk:t:small", &r, buf, 200, 5000, err, sizeof err),
        PEER_BAD);
    assert_non_null(strstr(err, "400"));
    /* Absent: 404, and the connection stays usable. */
    assert_int_equal(
        peer_get(pool, s.addr, NULL, "chunk:t:nope", NULL, buf, 1, 5000, err, sizeof err),
        PEER_NOT_FOUND);
    assert_non_null(strstr(err, "chunk:t:nope"));
    assert_int_equal(
        peer_get(pool, s.addr, NULL, "chunk:t:small", NULL, big, 1000, 5000, err, sizeof err), 0);
    assert_memory_equal(big, small, 1000);
    free(small);
    free(big);
    free(want);
    peer_pool_free(pool);
    server_stop(&s);
}

/* The box's bytes gathered element by element: the reference. */
static void box_reference(const unsigned char *a, const peer_range_t *r, unsigned char *out)
{
    size_t nd = (size_t)r->ndim, k = 0;
    uint64_t idx[CHUNKRANGE_MAX_DIMS];
    for (size_t d = 0; d < nd; d++)
        idx[d] = r->lo[d];
    for (;;) {
        uint64_t flat = 0;
        for (size_t d = 0; d < nd; d++)
            flat = flat * r->shape[d] + idx[d];
        memcpy(out + k, a + flat * r->itemsize, r->itemsize);
        k += r->itemsize;
        size_t d = nd;
        while (d > 0) {
            d--;
            if (++idx[d] < r->hi[d]) break;
            idx[d] = r->lo[d];
            if (d == 0) return;
        }
    }
}

static void test_boxes(void **state)
{
    server_t s;
    server_start(&s, NULL);
    peer_pool_t *pool = peer_pool_create();
    unsigned char *arr = pattern(4 * 6 * 5 * 4, 2);
    static const uint64_t boxes[][6] = {
        {0, 4, 0, 6, 0, 5}, /* all */
        {1, 3, 0, 6, 0, 5}, /* whole rows: one run */
        {0, 4, 2, 5, 0, 5}, /* middle dim */
        {1, 2, 1, 4, 2, 4}, /* inner */
        {3, 4, 5, 6, 4, 5}, /* one element */
        {0, 4, 0, 6, 1, 2}, /* a column */
    };
    char err[1024];
    for (size_t b = 0; b < sizeof boxes / sizeof boxes[0]; b++) {
        peer_range_t r = {.kind = CHUNKRANGE_BOX, .ndim = 3, .itemsize = 4};
        r.shape[0] = 4, r.shape[1] = 6, r.shape[2] = 5;
        size_t n = r.itemsize;
        for (int d = 0; d < 3; d++) {
            r.lo[d] = boxes[b][2 * d];
            r.hi[d] = boxes[b][2 * d + 1];
            n *= r.hi[d] - r.lo[d];
        }
        unsigned char *got = calloc(1, n), *want = calloc(1, n);
        box_reference(arr, &r, want);
        assert_int_equal(
            peer_get(pool, s.addr, NULL, "chunk:t:arr", &r, got, n, 5000, err, sizeof err), 0);
        assert_memory_equal(got, want, n);
        free(got);
        free(want);
    }
    /* A box of the 5 MiB chunk seen as 1280 x 1024 x 4 bytes: columns
     * 100..300 of rows 7..1200, from a spilled chunk, over many pieces. */
    peer_range_t r = {.kind = CHUNKRANGE_BOX, .ndim = 2, .itemsize = 4};
    r.shape[0] = 1280, r.shape[1] = 1024;
    r.lo[0] = 7, r.hi[0] = 1200, r.lo[1] = 100, r.hi[1] = 300;
    size_t n = 1193 * 200 * 4;
    unsigned char *big = pattern(BIG, 1), *got = malloc(n), *want = malloc(n);
    box_reference(big, &r, want);
    assert_int_equal(
        peer_get(pool, s.addr, NULL, "chunk:t:big", &r, got, n, 10000, err, sizeof err), 0);
    assert_memory_equal(got, want, n);
    /* A shape that does not match the chunk's size: 400. */
    r.shape[0] = 1000;
    r.hi[0] = 10;
    assert_int_equal(
        peer_get(pool, s.addr, NULL, "chunk:t:big", &r, got, 10, 10000, err, sizeof err), PEER_BAD);
    assert_non_null(strstr(err, "400"));
    free(big);
    free(got);
    free(want);
    free(arr);
    peer_pool_free(pool);
    server_stop(&s);
}

static void test_bad_queries(void **state)
{
    server_t s;
    server_start(&s, NULL);
    int port = http_server_port(s.http);
    static const char *const bad[] = {
        "/api/v1/chunks/chunk:t:small?offset=-1",
        "/api/v1/chunks/chunk:t:small?offset=99999999999999999999999",
        "/api/v1/chunks/chunk:t:small?ofset=1",
        "/api/v1/chunks/chunk:t:small?offset=1&offset=2",
        "/api/v1/chunks/chunk:t:small?offset=1&box=0:1&shape=1&itemsize=1",
        "/api/v1/chunks/chunk:t:arr?shape=4,6,5&itemsize=4&box=0:5,0:6,0:5",
        "/api/v1/chunks/chunk:t:arr?shape=4,6,5&itemsize=4&box=0:4,0:6",
        "/api/v1/chunks/chunk:t:arr?shape=4,6,5&box=0:4,0:6,0:5",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sbuf_t body;
        sbuf_init(&body);
        int status = 0;
        char err[256];
        assert_int_equal(
            httpc_get("127.0.0.1", port, bad[i], 5000, &status, &body, err, sizeof err), 0);
        if (status != 400) fail_msg("%s: %d %s", bad[i], status, sbuf_str(&body));
        assert_non_null(strstr(sbuf_str(&body), "bad_request"));
        sbuf_close(&body);
    }
    sbuf_t body;
    sbuf_init(&body);
    int status = 0;
    char err[256];
    assert_int_equal(
        httpc_get("127.0.0.1", port, "/api/v1/chunks/x", 5000, &status, &body, err, sizeof err), 0);
    assert_int_equal(status, 404);
    assert_non_null(strstr(sbuf_str(&body), "\"not_found\""));
    sbuf_close(&body);
    server_stop(&s);
}

static void test_token(void **state)
{
    server_t s;
    server_start(&s, "s3cret");
    peer_pool_t *pool = peer_pool_create();
    char err[1024];
    unsigned char buf[1000], *want = pattern(1000, 3);
    assert_int_equal(
        peer_get(pool, s.addr, NULL, "chunk:t:small", NULL, buf, 1000, 5000, err, sizeof err),
        PEER_BAD);
    assert_non_null(strstr(err, "401"));
    assert_int_equal(
        peer_get(pool, s.addr, "wrong", "chunk:t:small", NULL, buf, 1000, 5000, err, sizeof err),
        PEER_BAD);
    assert_int_equal(
        peer_get(pool, s.addr, "s3cret", "chunk:t:small", NULL, buf, 1000, 5000, err, sizeof err),
        0);
    assert_memory_equal(buf, want, 1000);
    assert_int_equal(
        peer_get(pool, s.addr, "s3cret", "chunk:t:x", NULL, buf, 1, 5000, err, sizeof err),
        PEER_NOT_FOUND);
    free(want);
    peer_pool_free(pool);
    server_stop(&s);
}

static void test_many(void **state)
{
    server_t s;
    server_start(&s, NULL);
    peer_pool_t *pool = peer_pool_create();
    enum { N = 24 };
    peer_req_t reqs[N];
    peer_range_t ranges[N];
    unsigned char *bufs[N], *small = pattern(1000, 3);
    for (int i = 0; i < N; i++) {
        ranges[i] =
            (peer_range_t){.kind = CHUNKRANGE_BYTES, .offset = (uint64_t)i * 10, .length = 100};
        bufs[i] = calloc(1, 100);
        reqs[i] = (peer_req_t){.addr = s.addr,
                               .key = i % 8 == 7 ? "chunk:t:missing" : "chunk:t:small",
                               .range = &ranges[i],
                               .dst = bufs[i],
                               .n = 100};
    }
    /* One to a dead address among them. */
    reqs[5].addr = "127.0.0.1:1";
    int failed = peer_get_many(pool, reqs, N, 5000);
    assert_int_equal(failed, 4);
    for (int i = 0; i < N; i++) {
        if (i == 5)
            assert_int_equal(reqs[i].rc, PEER_UNREACHABLE);
        else if (i % 8 == 7)
            assert_int_equal(reqs[i].rc, PEER_NOT_FOUND);
        else {
            assert_int_equal(reqs[i].rc, 0);
            assert_memory_equal(bufs[i], small + i * 10, 100);
        }
        free(bufs[i]);
    }
    /* Again, now over kept-alive connections from the pool. */
    unsigned char buf[1000];
    char err[1024];
    assert_int_equal(
        peer_get(pool, s.addr, NULL, "chunk:t:small", NULL, buf, 1000, 5000, err, sizeof err), 0);
    free(small);
    peer_pool_free(pool);
    server_stop(&s);
}

typedef struct sink_state {
    unsigned char *buf;
    uint64_t len, got, stop_after;
    int pieces;
} sink_state_t;

static int sink_begin(void *ctx, uint64_t n)
{
    sink_state_t *st = ctx;
    st->len = n;
    st->buf = malloc(n ? n : 1);
    return 0;
}

static int sink_data(void *ctx, const void *p, size_t n)
{
    sink_state_t *st = ctx;
    if (st->got + n > st->len) return -1;
    memcpy(st->buf + st->got, p, n);
    st->got += n;
    st->pieces++;
    return st->stop_after && st->got >= st->stop_after ? -1 : 0;
}

static void test_stream(void **state)
{
    server_t s;
    server_start(&s, NULL);
    peer_pool_t *pool = peer_pool_create();
    char err[1024];
    sink_state_t st = {0};
    peer_sink_t sink = {sink_begin, sink_data, &st};
    assert_int_equal(
        peer_stream(pool, s.addr, NULL, "chunk:t:big", NULL, &sink, 5000, err, sizeof err), 0);
    assert_int_equal(st.len, BIG);
    assert_int_equal(st.got, BIG);
    assert_true(st.pieces >= 5);
    unsigned char *want = pattern(BIG, 1);
    assert_memory_equal(st.buf, want, BIG);
    free(st.buf);
    /* The sink stops early: PEER_ABORTED, and the next read still works. */
    st = (sink_state_t){.stop_after = 1 << 20};
    assert_int_equal(
        peer_stream(pool, s.addr, NULL, "chunk:t:big", NULL, &sink, 5000, err, sizeof err),
        PEER_ABORTED);
    free(st.buf);
    st = (sink_state_t){0};
    assert_int_equal(
        peer_stream(pool, s.addr, NULL, "chunk:t:nope", NULL, &sink, 5000, err, sizeof err),
        PEER_NOT_FOUND);
    assert_null(st.buf);
    peer_range_t r = {.kind = CHUNKRANGE_BYTES, .offset = 12345, .length = 2 << 20};
    assert_int_equal(
        peer_stream(pool, s.addr, NULL, "chunk:t:big", &r, &sink, 5000, err, sizeof err), 0);
    assert_int_equal(st.got, 2 << 20);
    assert_memory_equal(st.buf, want + 12345, 2 << 20);
    free(st.buf);
    free(want);
    peer_pool_free(pool);
    server_stop(&s);
}

static void test_server_gone(void **state)
{
    server_t s;
    server_start(&s, NULL);
    peer_pool_t *pool = peer_pool_create();
    char err[1024];
    unsigned char buf[1000];
    /* A kept-alive connection in the pool, then the server stops. */
    assert_int_equal(
        peer_get(pool, s.addr, NULL, "chunk:t:small", NULL, buf, 1000, 5000, err, sizeof err), 0);
    server_stop(&s);
    assert_int_equal(
        peer_get(pool, s.addr, NULL, "chunk:t:small", NULL, buf, 1000, 2000, err, sizeof err),
        PEER_UNREACHABLE);
    assert_non_null(strstr(err, s.addr));
    /* Bad addresses. */
    assert_int_equal(
        peer_get(pool, "nocolon", NULL, "chunk:t:small", NULL, buf, 1, 2000, err, sizeof err),
        PEER_UNREACHABLE);
    peer_pool_free(pool);
}

/* A raw server that answers each connection's first request with 5 bytes
 * (keep-alive, by HTTP/1.1) and then closes it: the client's pooled
 * connection is stale at its next request. */
typedef struct closer {
    int fd, served;
} closer_t;

static void *closer_main(void *p)
{
    closer_t *c = p;
    for (int i = 0; i < 3; i++) {
        int s = accept(c->fd, NULL, NULL);
        if (s < 0) return NULL;
        char buf[4096];
        size_t got = 0;
        while (got < sizeof buf - 1) {
            ssize_t r = read(s, buf + got, sizeof buf - 1 - got);
            if (r <= 0) break;
            got += (size_t)r;
            buf[got] = '\0';
            if (strstr(buf, "\r\n\r\n")) break;
        }
        const char *ans = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
        if (write(s, ans, strlen(ans)) > 0) c->served++;
        close(s);
    }
    return NULL;
}

static void test_stale_keepalive(void **state)
{
    closer_t c = {0};
    c.fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    assert_int_equal(bind(c.fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(c.fd, 4), 0);
    getsockname(c.fd, (struct sockaddr *)&a, &l);
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", ntohs(a.sin_port));
    pthread_t th;
    pthread_create(&th, NULL, closer_main, &c);
    peer_pool_t *pool = peer_pool_create();
    char buf[8], err[1024];
    for (int i = 0; i < 3; i++) {
        memset(buf, 0, sizeof buf);
        int rc = peer_get(pool, addr, NULL, "k", NULL, buf, 5, 5000, err, sizeof err);
        if (rc != 0) fail_msg("read %d: %d %s", i, rc, err);
        assert_string_equal(buf, "hello");
        usleep(20000); /* the server has closed the pooled connection */
    }
    pthread_join(th, NULL);
    assert_int_equal(c.served, 3);
    close(c.fd);
    peer_pool_free(pool);
}

int main(void)
{
    /* As the services do (svc_signals_init): a reader that hangs up must
     * not kill the server with SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_and_ranges),
        cmocka_unit_test(test_boxes),
        cmocka_unit_test(test_bad_queries),
        cmocka_unit_test(test_token),
        cmocka_unit_test(test_many),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_server_gone),
        cmocka_unit_test(test_stale_keepalive),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
