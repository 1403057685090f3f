/* peer.c: chunk reads from workers' ports (peer.h).
 *
 * Every read is a small state machine on a non-blocking socket (connect,
 * send the request, read the head, read the body) driven by poll(): one
 * read alone (peer_get), several at once (peer_get_many), or one whose body
 * goes to a sink (peer_stream). Bodies of 200 answers go straight into the
 * caller's buffer (or to the sink); other answers' bodies (a JSON error)
 * are read into a small buffer for the message. */
#include "peer.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* A response head larger than 16 KiB is not from our worker. */
#define HEAD_MAX 16384
/* Error bodies kept for the message; longer ones close the connection. */
#define ERRBODY_MAX 4096
/* host:port: a DNS name (253) and a port. */
#define ADDR_MAX 300
/* The request: a percent-encoded key (3 x 255), a query of 32 dimensions
 * (~1.5 KB), a token (256) and the address fit in 8 KiB. */
#define REQ_MAX 8192
/* Stream pieces handed to a sink. */
#define STREAM_PIECE (1u << 20)

typedef struct conn {
    char addr[ADDR_MAX];
    int fd;
} conn_t;

struct peer_pool {
    conn_t idle[PEER_POOL_MAX];
    int n; /* idle[0] is the oldest */
};

enum { X_CONNECT, X_SEND, X_HEAD, X_BODY, X_DONE };

typedef struct xfer {
    peer_req_t *req;
    const peer_sink_t *sink; /* stream mode */
    char *piece;             /* stream mode: STREAM_PIECE bytes */
    int fd, state;
    bool reused, retried, close_after;
    size_t out_len, out_sent;
    size_t head_len;
    int status;
    uint64_t clen, got;
    bool has_clen;
    size_t errbody_len;
    /* Buffers last: xfer_start clears only what comes before them. */
    char out[REQ_MAX];
    char head[HEAD_MAX];
    char errbody[ERRBODY_MAX];
} xfer_t;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- pool ---------------------------------------------------------------- */

peer_pool_t *peer_pool_create(void)
{
    peer_pool_t *p = calloc(1, sizeof *p);
    if (!p) abort();
    return p;
}

void peer_pool_free(peer_pool_t *p)
{
    if (!p) return;
    for (int i = 0; i < p->n; i++)
        close(p->idle[i].fd);
    free(p);
}

/* An idle connection to addr (the most recent), or -1. */
static int pool_take(peer_pool_t *p, const char *addr)
{
    for (int i = p->n - 1; i >= 0; i--) {
        if (strcmp(p->idle[i].addr, addr) != 0) continue;
        int fd = p->idle[i].fd;
        memmove(&p->idle[i], &p->idle[i + 1], (size_t)(p->n - i - 1) * sizeof p->idle[0]);
        p->n--;
        return fd;
    }
    return -1;
}

static void pool_put(peer_pool_t *p, const char *addr, int fd)
{
    if (p->n == PEER_POOL_MAX) {
        close(p->idle[0].fd);
        memmove(&p->idle[0], &p->idle[1], (size_t)(p->n - 1) * sizeof p->idle[0]);
        p->n--;
    }
    snprintf(p->idle[p->n].addr, sizeof p->idle[p->n].addr, "%s", addr);
    p->idle[p->n].fd = fd;
    p->n++;
}

/* ---- connecting and the request ------------------------------------------ */

static int split_addr(const char *addr, char *host, size_t hcap, char *port, size_t pcap)
{
    const char *colon;
    if (addr[0] == '[') {
        const char *close = strchr(addr, ']');
        if (!close || close[1] != ':') return -1;
        if ((size_t)(close - addr - 1) >= hcap) return -1;
        memcpy(host, addr + 1, (size_t)(close - addr - 1));
        host[close - addr - 1] = '\0';
        colon = close + 1;
    } else {
        colon = strrchr(addr, ':');
        if (!colon || (size_t)(colon - addr) >= hcap || colon == addr) return -1;
        memcpy(host, addr, (size_t)(colon - addr));
        host[colon - addr] = '\0';
    }
    if (!colon[1] || strlen(colon + 1) >= pcap) return -1;
    snprintf(port, pcap, "%s", colon + 1);
    return 0;
}

/* Starts a non-blocking connect. -1 with the error in x's request. */
static int start_connect(xfer_t *x)
{
    char host[ADDR_MAX], port[16];
    peer_req_t *q = x->req;
    if (split_addr(q->addr, host, sizeof host, port, sizeof port)) {
        snprintf(q->err, sizeof q->err, "peer address %.200s: not host:port", q->addr);
        return -1;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai;
    int gai = getaddrinfo(host, port, &hints, &ai);
    if (gai != 0) {
        snprintf(q->err, sizeof q->err, "peer %.200s: %s", q->addr, gai_strerror(gai));
        return -1;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS)) {
        snprintf(q->err, sizeof q->err, "peer %.200s: connect: %s", q->addr, strerror(errno));
        if (fd >= 0) close(fd);
        freeaddrinfo(ai);
        return -1;
    }
    freeaddrinfo(ai);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    x->fd = fd;
    x->reused = false;
    x->state = X_CONNECT;
    return 0;
}

/* Percent-encodes what is not safe in a path segment. */
static size_t encode_key(const char *key, char *out, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (const unsigned char *k = (const unsigned char *)key; *k && o + 4 < cap; k++) {
        bool safe = (*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
                    (*k >= '0' && *k <= '9') || strchr(":._-~", *k);
        if (safe) {
            out[o++] = (char)*k;
        } else {
            out[o++] = '%';
            out[o++] = hex[*k >> 4];
            out[o++] = hex[*k & 15];
        }
    }
    out[o] = '\0';
    return o;
}

static int build_request(xfer_t *x)
{
    peer_req_t *q = x->req;
    char key[3 * 256 + 8], query[4096] = "";
    if (!q->key || strlen(q->key) > 255 || !q->key[0]) {
        snprintf(q->err, sizeof q->err, "chunk key: 1 to 255 bytes");
        return -1;
    }
    encode_key(q->key, key, sizeof key);
    if (q->range && chunkrange_format(q->range, query, sizeof query) < 0) {
        snprintf(q->err, sizeof q->err, "chunk %s: range too long to send", q->key);
        return -1;
    }
    bool tok = q->token && q->token[0];
    int n = snprintf(x->out, sizeof x->out,
                     "GET /api/v1/chunks/%s%s%s HTTP/1.1\r\nHost: %s\r\n%s%s%s\r\n", key,
                     query[0] ? "?" : "", query, q->addr, tok ? "Authorization: Bearer " : "",
                     tok ? q->token : "", tok ? "\r\n" : "");
    if (n < 0 || (size_t)n >= sizeof x->out) {
        snprintf(q->err, sizeof q->err, "chunk %s: request too long", q->key);
        return -1;
    }
    x->out_len = (size_t)n;
    return 0;
}

/* ---- the state machine ----------------------------------------------------- */

static void finish(xfer_t *x, int rc)
{
    x->req->rc = rc;
    x->state = X_DONE;
}

static void fail_io(xfer_t *x, const char *what, int errnum)
{
    snprintf(x->req->err, sizeof x->req->err, "peer %.200s: %s chunk %.255s: %s", x->req->addr,
             what, x->req->key, errnum ? strerror(errnum) : "connection closed");
    x->close_after = true;
    finish(x, PEER_UNREACHABLE);
}

/* Case-insensitive header lookup in the head; its value in v. */
static bool head_value(const char *head, const char *name, char *v, size_t cap)
{
    size_t nl = strlen(name);
    for (const char *line = strstr(head, "\r\n"); line; line = strstr(line + 2, "\r\n")) {
        const char *h = line + 2;
        if (strncasecmp(h, name, nl) != 0 || h[nl] != ':') continue;
        h += nl + 1;
        while (*h == ' ' || *h == '\t')
            h++;
        size_t len = strcspn(h, "\r\n");
        while (len > 0 && (h[len - 1] == ' ' || h[len - 1] == '\t'))
            len--;
        if (len >= cap) return false;
        memcpy(v, h, len);
        v[len] = '\0';
        return true;
    }
    return false;
}

/* The head is complete (head_len bytes up to and including CRLF CRLF). */
static int parse_head(xfer_t *x)
{
    char v[64];
    int minor;
    if (sscanf(x->head, "HTTP/1.%d %3d", &minor, &x->status) != 2 || x->status < 100) {
        snprintf(x->req->err, sizeof x->req->err, "peer %.200s: not an HTTP answer", x->req->addr);
        x->close_after = true;
        finish(x, PEER_BAD);
        return -1;
    }
    x->close_after = minor == 0;
    if (head_value(x->head, "connection", v, sizeof v))
        x->close_after = strcasecmp(v, "close") == 0 || (minor == 0 && strcasecmp(v, "keep-alive"));
    x->has_clen = false;
    if (head_value(x->head, "content-length", v, sizeof v)) {
        char *end;
        errno = 0;
        unsigned long long c = strtoull(v, &end, 10);
        if (errno == 0 && *end == '\0' && v[0] >= '0' && v[0] <= '9') {
            x->clen = c;
            x->has_clen = true;
        }
    }
    if (!x->has_clen) x->close_after = true; /* the body ends with the connection */
    return 0;
}

/* Where body bytes of a 200 go. */
static int body_bytes(xfer_t *x, const char *p, size_t n)
{
    if (x->status != 200) {
        size_t room = sizeof x->errbody - 1 - x->errbody_len;
        size_t take = n < room ? n : room;
        memcpy(x->errbody + x->errbody_len, p, take);
        x->errbody_len += take;
        x->got += n;
        return 0;
    }
    if (x->sink) {
        x->got += n;
        if (x->sink->data && n && x->sink->data(x->sink->ctx, p, n) != 0) return -1;
        return 0;
    }
    memcpy((char *)x->req->dst + x->got, p, n);
    x->got += n;
    return 0;
}

static void body_done(xfer_t *x)
{
    peer_req_t *q = x->req;
    x->errbody[x->errbody_len] = '\0';
    if (x->status == 200) {
        finish(x, 0);
    } else if (x->status == 404) {
        snprintf(q->err, sizeof q->err, "peer %.200s does not hold chunk %.255s", q->addr, q->key);
        finish(x, PEER_NOT_FOUND);
    } else {
        snprintf(q->err, sizeof q->err, "peer %.200s: chunk %.200s: HTTP %d %.300s", q->addr,
                 q->key, x->status, x->errbody);
        finish(x, PEER_BAD);
    }
}

/* After the head: checks the length against what the caller expects. */
static void head_done(xfer_t *x)
{
    peer_req_t *q = x->req;
    x->state = X_BODY;
    x->got = 0;
    if (x->status != 200) {
        if (!x->has_clen || x->clen > ERRBODY_MAX) x->close_after = true;
        return;
    }
    if (!x->has_clen || (!x->sink && x->clen != q->n)) {
        snprintf(q->err, sizeof q->err,
                 "peer %.200s: chunk %.200s: answer of %s%llu bytes, expected %zu", q->addr, q->key,
                 x->has_clen ? "" : "unknown length, not ", (unsigned long long)x->clen, q->n);
        x->close_after = true;
        finish(x, PEER_BAD);
        return;
    }
    if (x->sink && x->sink->begin && x->sink->begin(x->sink->ctx, x->clen) != 0) {
        snprintf(q->err, sizeof q->err, "chunk %.255s: the reader stopped", q->key);
        x->close_after = true;
        finish(x, PEER_ABORTED);
    }
}

/* A cached connection the peer closed while idle: try once more anew. */
static bool retry_stale(xfer_t *x)
{
    if (!x->reused || x->retried || x->head_len > 0) return false;
    close(x->fd);
    x->fd = -1;
    x->retried = true;
    x->out_sent = 0;
    if (start_connect(x) != 0) {
        finish(x, PEER_UNREACHABLE);
        return true;
    }
    return true;
}

static void step_send(xfer_t *x)
{
    while (x->out_sent < x->out_len) {
        ssize_t w = send(x->fd, x->out + x->out_sent, x->out_len - x->out_sent, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (w <= 0) {
            int e = errno;
            if (!retry_stale(x)) fail_io(x, "sending the request for", e);
            return;
        }
        x->out_sent += (size_t)w;
    }
    x->state = X_HEAD;
}

/* Body bytes that came with the head. */
static void head_surplus(xfer_t *x, const char *p, size_t n)
{
    if (n == 0) return;
    if (x->has_clen && n > x->clen - x->got) {
        snprintf(x->req->err, sizeof x->req->err, "peer %.200s: more bytes than Content-Length",
                 x->req->addr);
        x->close_after = true;
        finish(x, PEER_BAD);
        return;
    }
    if (body_bytes(x, p, n) != 0) {
        x->close_after = true;
        finish(x, PEER_ABORTED);
    }
}

static void step_head(xfer_t *x)
{
    for (;;) {
        ssize_t r = recv(x->fd, x->head + x->head_len, sizeof x->head - 1 - x->head_len, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (r <= 0) {
            int e = r < 0 ? errno : 0;
            if (!retry_stale(x)) fail_io(x, "reading the answer for", e);
            return;
        }
        size_t old = x->head_len;
        x->head_len += (size_t)r;
        x->head[x->head_len] = '\0';
        char *end = strstr(x->head + (old > 3 ? old - 3 : 0), "\r\n\r\n");
        if (!end) {
            if (x->head_len == sizeof x->head - 1) {
                snprintf(x->req->err, sizeof x->req->err, "peer %.200s: answer head over %d bytes",
                         x->req->addr, HEAD_MAX);
                x->close_after = true;
                finish(x, PEER_BAD);
                return;
            }
            continue;
        }
        size_t hl = (size_t)(end - x->head) + 4;
        size_t extra = x->head_len - hl;
        char surplus[HEAD_MAX];
        memcpy(surplus, x->head + hl, extra);
        x->head[hl] = '\0';
        if (parse_head(x) != 0) return;
        head_done(x);
        if (x->state == X_DONE) return;
        head_surplus(x, surplus, extra);
        if (x->state == X_DONE) return;
        if (x->has_clen && x->got == x->clen) body_done(x);
        return;
    }
}

static void step_body(xfer_t *x)
{
    char small[4096];
    while (x->state == X_BODY) {
        if (x->has_clen && x->got == x->clen) {
            body_done(x);
            return;
        }
        size_t want = x->has_clen ? (size_t)(x->clen - x->got) : sizeof small;
        char *dst = small;
        if (x->status == 200 && !x->sink) {
            dst = (char *)x->req->dst + x->got;
        } else if (x->status == 200) {
            dst = x->piece;
            if (want > STREAM_PIECE) want = STREAM_PIECE;
        } else if (want > sizeof small) {
            want = sizeof small;
        }
        ssize_t r = recv(x->fd, dst, want, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (r == 0 && !x->has_clen) {
            body_done(x); /* the body ended with the connection */
            x->close_after = true;
            return;
        }
        if (r <= 0) {
            fail_io(x, "reading the body of", r < 0 ? errno : 0);
            return;
        }
        if (x->status == 200 && !x->sink) {
            x->got += (uint64_t)r;
        } else if (body_bytes(x, dst, (size_t)r) != 0) {
            snprintf(x->req->err, sizeof x->req->err, "chunk %.255s: the reader stopped",
                     x->req->key);
            x->close_after = true;
            finish(x, PEER_ABORTED);
        }
    }
}

static void step_connect(xfer_t *x)
{
    int soerr = 0;
    socklen_t len = sizeof soerr;
    if (getsockopt(x->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0) soerr = errno;
    if (soerr == EINPROGRESS) return;
    if (soerr != 0) {
        fail_io(x, "connecting for", soerr);
        return;
    }
    x->state = X_SEND;
}

/* Does whatever I/O the socket allows now. */
static void step(xfer_t *x)
{
    int before;
    do {
        before = x->state;
        switch (x->state) {
        case X_CONNECT:
            step_connect(x);
            break;
        case X_SEND:
            step_send(x);
            break;
        case X_HEAD:
            step_head(x);
            break;
        case X_BODY:
            step_body(x);
            break;
        default:
            break;
        }
    } while (x->state != X_DONE && x->state != before);
}

static short events_of(const xfer_t *x)
{
    return x->state == X_CONNECT || x->state == X_SEND ? POLLOUT : POLLIN;
}

/* Sets up x for q: a cached connection to its address, or a new one. */
static int xfer_start(peer_pool_t *pool, xfer_t *x, peer_req_t *q, const peer_sink_t *sink)
{
    memset(x, 0, offsetof(xfer_t, out));
    x->req = q;
    x->sink = sink;
    x->fd = -1;
    q->rc = 0;
    q->err[0] = '\0';
    if (build_request(x) != 0) {
        finish(x, PEER_BAD);
        return -1;
    }
    x->fd = pool_take(pool, q->addr);
    if (x->fd >= 0) {
        x->reused = true;
        x->state = X_SEND;
        return 0;
    }
    if (start_connect(x) != 0) {
        finish(x, PEER_UNREACHABLE);
        return -1;
    }
    return 0;
}

/* Returns the connection to the pool or closes it. */
static void xfer_end(peer_pool_t *pool, xfer_t *x)
{
    if (x->fd < 0) return;
    /* Reusable only after a whole answer that we read to its end. */
    int rc = x->req->rc;
    bool clean =
        x->state == X_DONE && !x->close_after && rc != PEER_UNREACHABLE && rc != PEER_ABORTED;
    if (clean)
        pool_put(pool, x->req->addr, x->fd);
    else
        close(x->fd);
    x->fd = -1;
}

/* A peer that does not accept a connection within this long is taken for
 * gone (a dead host, a cut link: packets dropped, no refusal comes back),
 * and one that sends nothing for PEER_STALL_MS in the middle of an answer
 * too, whatever the whole read's timeout: a reader then reports the chunk
 * lost instead of holding its slot for a minute. */
#define PEER_CONNECT_MS 3000
#define PEER_STALL_MS 10000

/* Fails every transfer still in progress (those still connecting only,
 * when connecting_only) with what. */
static void fail_waiting(xfer_t *xs, int n, bool connecting_only, const char *what, int ms)
{
    for (int i = 0; i < n; i++) {
        xfer_t *x = &xs[i];
        if (x->state == X_DONE || (connecting_only && x->state != X_CONNECT)) continue;
        snprintf(x->req->err, sizeof x->req->err, "peer %.200s: chunk %.200s: %s within %d ms",
                 x->req->addr, x->req->key, what, ms);
        x->close_after = true;
        finish(x, PEER_UNREACHABLE);
    }
}

/* Drives xs[0..n) until all are done or the deadline passes. per_wait: the
 * deadline is per wait instead (streams). Connections must be made within
 * PEER_CONNECT_MS, and no wait may last longer than PEER_STALL_MS. */
static void run_all(xfer_t *xs, int n, int timeout_ms, bool per_wait)
{
    struct pollfd pfd[PEER_MANY_MAX];
    int idx[PEER_MANY_MAX];
    int64_t start = now_ms(), deadline = start + timeout_ms;
    int connect_ms = timeout_ms < PEER_CONNECT_MS ? timeout_ms : PEER_CONNECT_MS;
    int stall_ms = timeout_ms < PEER_STALL_MS ? timeout_ms : PEER_STALL_MS;
    for (int i = 0; i < n; i++)
        if (xs[i].state != X_DONE) step(&xs[i]);
    for (;;) {
        int k = 0;
        bool connecting = false;
        for (int i = 0; i < n; i++) {
            if (xs[i].state == X_DONE) continue;
            connecting = connecting || xs[i].state == X_CONNECT;
            pfd[k] = (struct pollfd){.fd = xs[i].fd, .events = events_of(&xs[i])};
            idx[k++] = i;
        }
        if (k == 0) return;
        int64_t now = now_ms();
        int64_t left = per_wait ? timeout_ms : deadline - now;
        if (left > stall_ms) left = stall_ms;
        if (connecting && start + connect_ms - now < left) left = start + connect_ms - now;
        int r = left > 0 ? poll(pfd, (nfds_t)k, (int)left) : 0;
        if (r < 0 && errno == EINTR) continue;
        if (r > 0) {
            for (int j = 0; j < k; j++)
                if (pfd[j].revents) step(&xs[idx[j]]);
            continue;
        }
        now = now_ms();
        if (connecting && now >= start + connect_ms) {
            fail_waiting(xs, n, true, "no connection", connect_ms);
            continue;
        }
        fail_waiting(xs, n, false, "no answer", per_wait || now < deadline ? stall_ms : timeout_ms);
        return;
    }
}

int peer_get_many(peer_pool_t *pool, peer_req_t *reqs, int n, int timeout_ms)
{
    if (n <= 0) return 0;
    if (n > PEER_MANY_MAX) {
        for (int i = 0; i < n; i++) {
            reqs[i].rc = PEER_BAD;
            snprintf(reqs[i].err, sizeof reqs[i].err, "%d reads at once, at most %d", n,
                     PEER_MANY_MAX);
        }
        return n;
    }
    xfer_t *xs = malloc((size_t)n * sizeof *xs);
    if (!xs) abort();
    for (int i = 0; i < n; i++)
        xfer_start(pool, &xs[i], &reqs[i], NULL);
    run_all(xs, n, timeout_ms, false);
    int failed = 0;
    for (int i = 0; i < n; i++) {
        xfer_end(pool, &xs[i]);
        if (reqs[i].rc != 0) failed++;
    }
    free(xs);
    return failed;
}

int peer_get(peer_pool_t *pool, const char *addr, const char *token, const char *key,
             const peer_range_t *range, void *dst, size_t n, int timeout_ms, char *err,
             size_t errlen)
{
    peer_req_t q = {.addr = addr, .token = token, .key = key, .range = range, .dst = dst, .n = n};
    peer_get_many(pool, &q, 1, timeout_ms);
    if (q.rc != 0 && err) snprintf(err, errlen, "%s", q.err);
    return q.rc;
}

int peer_stream(peer_pool_t *pool, const char *addr, const char *token, const char *key,
                const peer_range_t *range, const peer_sink_t *sink, int timeout_ms, char *err,
                size_t errlen)
{
    peer_req_t q = {.addr = addr, .token = token, .key = key, .range = range};
    xfer_t *x = malloc(sizeof *x);
    if (!x) abort();
    if (xfer_start(pool, x, &q, sink) == 0) {
        x->piece = malloc(STREAM_PIECE);
        if (!x->piece) abort();
        run_all(x, 1, timeout_ms, true);
        free(x->piece);
    }
    xfer_end(pool, x);
    free(x);
    if (q.rc != 0 && err) snprintf(err, errlen, "%s", q.err);
    return q.rc;
}

/* ---- whole chunks of unknown size ------------------------------------------ */

typedef struct {
    uint64_t max;
    unsigned char *buf;
    size_t len, at;
    bool too_big;
} alloc_sink_t;

static int alloc_begin(void *ctx, uint64_t content_length)
{
    alloc_sink_t *a = ctx;
    if (content_length > a->max || content_length > SIZE_MAX) {
        a->too_big = true;
        return -1;
    }
    a->len = (size_t)content_length;
    a->buf = malloc(a->len ? a->len : 1);
    return a->buf ? 0 : -1;
}

static int alloc_data(void *ctx, const void *p, size_t n)
{
    alloc_sink_t *a = ctx;
    if (!a->buf || n > a->len - a->at) return -1;
    memcpy(a->buf + a->at, p, n);
    a->at += n;
    return 0;
}

int peer_get_alloc(peer_pool_t *pool, const char *addr, const char *token, const char *key,
                   uint64_t max, void **out, size_t *n, int timeout_ms, char *err, size_t errlen)
{
    alloc_sink_t a = {.max = max};
    peer_sink_t sink = {alloc_begin, alloc_data, &a};
    int rc = peer_stream(pool, addr, token, key, NULL, &sink, timeout_ms, err, errlen);
    if (rc == 0 && a.at != a.len) {
        snprintf(err, errlen, "%s: chunk %s: %zu of %zu bytes", addr, key, a.at, a.len);
        rc = PEER_BAD;
    }
    if (rc == PEER_ABORTED) {
        snprintf(err, errlen, "%s: chunk %s: %s", addr, key,
                 a.too_big ? "larger than any chunk may be" : "out of memory");
        rc = PEER_BAD;
    }
    if (rc) {
        free(a.buf);
        return rc;
    }
    *out = a.buf;
    *n = a.len;
    return 0;
}
