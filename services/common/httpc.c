/* httpc.c: blocking HTTP/1.0 GET over a socket with poll() deadlines. */
#include "httpc.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for events on fd until the deadline; 0 when ready. */
static int wait_fd(int fd, short events, long long deadline)
{
    for (;;) {
        long long left = deadline - now_ms();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, (int)left);
        if (n > 0) return 0;
        if (n < 0 && errno != EINTR) return -1;
    }
}

static int connect_any(const char *host, int port, long long deadline, char *err, size_t errlen)
{
    char sport[16];
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *ai;
    snprintf(sport, sizeof sport, "%d", port);
    int rc = getaddrinfo(host, sport, &hints, &res);
    if (rc) {
        snprintf(err, errlen, "%s: %s", host, gai_strerror(rc));
        return -1;
    }
    int fd = -1;
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;
        if (errno == EINPROGRESS && wait_fd(fd, POLLOUT, deadline) == 0) {
            int so = 0;
            socklen_t sl = sizeof so;
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl);
            if (so == 0) break;
            errno = so;
        }
        snprintf(err, errlen, "connect %s:%d: %s", host, port, strerror(errno));
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

int httpc_get(const char *host, int port, const char *path, int timeout_ms, int *status,
              sbuf_t *body, char *err, size_t errlen)
{
    return httpc_get_auth(host, port, path, NULL, timeout_ms, status, body, err, errlen);
}

int httpc_get_auth(const char *host, int port, const char *path, const char *token, int timeout_ms,
                   int *status, sbuf_t *body, char *err, size_t errlen)
{
    long long deadline = now_ms() + timeout_ms;
    sbuf_t req, resp;
    int rc = -1;
    sbuf_init(&req);
    sbuf_init(&resp);
    int fd = connect_any(host, port, deadline, err, errlen);
    if (fd < 0) goto connect;
    bool v6 = strchr(host, ':') != NULL;
    sbuf_printf(&req, "GET %s HTTP/1.0\r\nHost: %s%s%s:%d\r\nAccept: application/json\r\n", path,
                v6 ? "[" : "", host, v6 ? "]" : "", port);
    if (token && token[0]) sbuf_printf(&req, "Authorization: Bearer %s\r\n", token);
    sbuf_puts(&req, "\r\n");
    for (size_t off = 0; off < req.len;) {
        ssize_t n = send(fd, req.data + off, req.len - off, MSG_NOSIGNAL);
        if (n > 0) {
            off += (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (wait_fd(fd, POLLOUT, deadline)) goto io;
        } else {
            goto io;
        }
    }
    for (;;) {
        char buf[16384];
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n > 0) {
            if (resp.len + (size_t)n > HTTPC_MAX_RESPONSE) {
                snprintf(err, errlen, "%s:%d%s: answer over %d bytes", host, port, path,
                         HTTPC_MAX_RESPONSE);
                goto parse;
            }
            sbuf_append(&resp, buf, (size_t)n);
        } else if (n == 0) {
            break;
        } else if (errno == EAGAIN || errno == EINTR) {
            if (wait_fd(fd, POLLIN, deadline)) goto io;
        } else {
            goto io;
        }
    }
    const char *r = sbuf_str(&resp);
    int code;
    const char *hend = strstr(r, "\r\n\r\n");
    if (sscanf(r, "HTTP/1.%*d %d", &code) != 1 || !hend) {
        snprintf(err, errlen, "%s:%d%s: not an HTTP answer", host, port, path);
        goto parse;
    }
    hend += 4;
    *status = code;
    sbuf_append(body, hend, resp.len - (size_t)(hend - r));
    rc = 0;
    goto parse;
io:
    snprintf(err, errlen, "%s:%d%s: %s", host, port, path, strerror(errno));
parse:
    close(fd);
connect:
    sbuf_close(&req);
    sbuf_close(&resp);
    return rc;
}
