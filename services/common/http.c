/* http.c: libh2o server, routing, deferred blocking work. */
#include "http.h"

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <h2o.h>

#include "log.h"

#define LOG_MODULE "http"

/* Jobs waiting for a pool thread, per pool thread: a database that stalls
 * for seconds meets at most this backlog, then quick 503s. */
#define QUEUE_PER_WORKER 256
/* Pool threads: each holds a database connection; PostgreSQL's default
 * max_connections is 100, shared by every service. */
#define MAX_WORKERS 64

/* Under LeakSanitizer (the build/san programs and tests): libh2o 2.2.5 keeps
 * freed request-pool chunks and socket buffers on per-thread recycle lists
 * (__thread, h2o_mem_alloc_recycle) that nothing frees when a loop thread
 * ends, and h2o_multithread_destroy_queue (also run by h2o_context_dispose)
 * does not free the queue in evloop mode. Those are the library's, not
 * leaks of ours; everything else still counts. Without LSan these two
 * functions are never called. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_options(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:h2o_mem_alloc_recycle\nleak:h2o_multithread_create_queue\n";
}
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

typedef struct job job_t;

typedef struct http_loop {
    http_server_t *srv;
    pthread_t tid;
    bool started;
    h2o_evloop_t *loop;
    h2o_context_t ctx;
    h2o_accept_ctx_t accept;
    h2o_socket_t *listener;
    h2o_multithread_receiver_t done; /* completed jobs and the stop message */
    h2o_multithread_message_t stop_msg;
    bool stop;
} http_loop_t;

typedef struct handler {
    h2o_handler_t super;
    http_server_t *srv;
} handler_t;

struct http_server {
    char name[32];
    h2o_globalconf_t config;
    const http_route_t *routes;
    int n_routes;
    void *app;
    metrics_registry_t *metrics;
    metrics_histogram_t *latency;
    int fd, port;
    int n_loops;
    http_loop_t loops[HTTP_MAX_LOOPS];

    pthread_mutex_t mu;
    pthread_cond_t cv;
    job_t *head, *tail;
    int queued;
    bool pool_stop;
    int n_workers;
    pthread_t workers[MAX_WORKERS];
    void *(*worker_init)(void *app);
    void (*worker_close)(void *state);
};

struct http_req {
    h2o_req_t *req;
    http_loop_t *loop;
    struct timespec start;
    int n_params;
    const char *params[HTTP_MAX_PARAMS];
};

struct job {
    h2o_multithread_message_t msg; /* first: messages come back as jobs */
    job_t *next;
    http_loop_t *loop;
    http_req_t *req; /* NULL once the request is gone */
    job_t **token;   /* in the request's pool: tells the request's end to us */
    http_job_fn fn;
    http_reply_t reply;
    _Alignas(max_align_t) unsigned char arg[];
};

/* ---- replies ------------------------------------------------------------ */

static const char *reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 409:
        return "Conflict";
    case 413:
        return "Payload Too Large";
    case 415:
        return "Unsupported Media Type";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 503:
        return "Service Unavailable";
    default:
        return status < 400 ? "OK" : status < 500 ? "Client Error" : "Server Error";
    }
}

void http_reply_json(http_reply_t *rep, int status, json_t *doc)
{
    char *s = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    if (!s) {
        /* Only an allocation failure gets here. */
        http_reply_json_text(rep, 500,
                             "{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}");
        return;
    }
    memset(rep, 0, sizeof *rep);
    rep->status = status;
    rep->content_type = "application/json";
    rep->body = s;
    rep->len = strlen(s);
}

void http_reply_json_text(http_reply_t *rep, int status, const char *body)
{
    memset(rep, 0, sizeof *rep);
    rep->status = status;
    rep->content_type = "application/json";
    rep->body = strdup(body);
    if (!rep->body) abort();
    rep->len = strlen(body);
}

/* Messages quote what clients sent (paths, methods) and JSON strings must be
 * UTF-8: every byte that does not start a valid sequence becomes '?'. */
static void sanitize_utf8(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        int n = *p < 0x80             ? 0
                : (*p & 0xe0) == 0xc0 ? 1
                : (*p & 0xf0) == 0xe0 ? 2
                : (*p & 0xf8) == 0xf0 ? 3
                                      : -1;
        unsigned cp = n == 0 ? *p : n == 1 ? *p & 0x1fu : n == 2 ? *p & 0x0fu : *p & 0x07u;
        bool ok = n >= 0 && (n > 0 || *p >= 0x20);
        for (int i = 1; ok && i <= n; i++) {
            ok = (p[i] & 0xc0) == 0x80;
            cp = cp << 6 | (p[i] & 0x3fu);
        }
        /* Overlong forms, surrogates and values past U+10FFFF are invalid. */
        if (ok && n > 0) {
            static const unsigned min[] = {0, 0x80, 0x800, 0x10000};
            ok = cp >= min[n] && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
        }
        if (!ok) {
            *p++ = '?';
            continue;
        }
        p += n + 1;
    }
}

void http_reply_error(http_reply_t *rep, int status, const char *code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sanitize_utf8(msg);
    http_reply_json(rep, status, json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", msg));
}

/* ---- sending ------------------------------------------------------------ */

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* Methods as metric label values: a fixed set, so that a client sending
 * random methods cannot grow the registry. */
static const char *method_label(h2o_iovec_t m)
{
    static const char *const known[] = {"GET", "POST", "PUT", "DELETE", "HEAD"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (h2o_memis(m.base, m.len, known[i], strlen(known[i]))) return known[i];
    }
    return "other";
}

void http_send(http_req_t *r, http_reply_t *rep)
{
    h2o_req_t *req = r->req;
    http_server_t *s = r->loop->srv;
    req->res.status = rep->status;
    req->res.reason = reason(rep->status);
    if (rep->content_type)
        h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, NULL,
                       rep->content_type, strlen(rep->content_type));
    if (rep->allow)
        h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_ALLOW, NULL, rep->allow,
                       strlen(rep->allow));
    if (rep->status >= 500)
        log_warning("%s %.*s -> %d %.*s", s->name, (int)req->path.len, req->path.base, rep->status,
                    (int)(rep->len < 300 ? rep->len : 300), rep->body ? rep->body : "");

    char code[8];
    snprintf(code, sizeof code, "%d", rep->status);
    metrics_counter_t *c =
        metrics_counter(s->metrics, "mars_http_requests_total",
                        "HTTP requests answered, by server, method and status",
                        (const char *[]){"server", s->name, "method", method_label(req->method),
                                         "code", code, NULL});
    if (c) metrics_counter_inc(c);
    if (s->latency) metrics_histogram_observe(s->latency, seconds_since(&r->start));

    /* h2o_send_inline leaves Content-Length to us; 204 has no body at all. */
    size_t len = rep->status == 204 || !rep->body ? 0 : rep->len;
    req->res.content_length = rep->status == 204 ? SIZE_MAX : len;
    h2o_send_inline(req, len ? rep->body : "", len);
    free(rep->body);
    rep->body = NULL;
}

/* ---- accessors ---------------------------------------------------------- */

void *http_app(const http_req_t *r)
{
    return r->loop->srv->app;
}

const char *http_param(const http_req_t *r, int i)
{
    return i >= 0 && i < r->n_params ? r->params[i] : NULL;
}

const char *http_body(const http_req_t *r, size_t *len)
{
    *len = r->req->entity.base ? r->req->entity.len : 0;
    return r->req->entity.base ? r->req->entity.base : "";
}

void http_handle_health(http_req_t *r)
{
    http_reply_t rep;
    http_reply_json(&rep, 200,
                    json_pack("{s:s,s:s}", "status", "ok", "service", r->loop->srv->name));
    http_send(r, &rep);
}

void http_handle_metrics(http_req_t *r)
{
    sbuf_t b;
    sbuf_init(&b);
    metrics_render(r->loop->srv->metrics, &b);
    http_reply_t rep = {.status = 200, .content_type = "text/plain; version=0.0.4; charset=utf-8"};
    rep.body = sbuf_detach(&b, &rep.len);
    http_send(r, &rep);
}

/* ---- deferred jobs ------------------------------------------------------ */

static void on_req_gone(void *p)
{
    job_t **token = p;
    if (*token) (*token)->req = NULL;
}

void http_defer(http_req_t *r, http_job_fn fn, const void *arg, size_t arg_size)
{
    http_server_t *s = r->loop->srv;
    http_reply_t rep;
    if (s->n_workers == 0) {
        http_reply_error(&rep, 500, "internal", "this server has no pool for blocking work");
        http_send(r, &rep);
        return;
    }
    job_t *j = calloc(1, sizeof *j + arg_size);
    if (!j) abort();
    j->loop = r->loop;
    j->req = r;
    j->fn = fn;
    if (arg_size) memcpy(j->arg, arg, arg_size);

    pthread_mutex_lock(&s->mu);
    bool refused = s->pool_stop || s->queued >= s->n_workers * QUEUE_PER_WORKER;
    if (!refused) {
        j->token = h2o_mem_alloc_shared(&r->req->pool, sizeof *j->token, on_req_gone);
        *j->token = j;
        if (s->tail)
            s->tail->next = j;
        else
            s->head = j;
        s->tail = j;
        s->queued++;
        pthread_cond_signal(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    if (refused) {
        free(j);
        http_reply_error(&rep, 503, "overloaded", "%s",
                         s->pool_stop ? "the server is stopping"
                                      : "too many requests waiting for the database");
        http_send(r, &rep);
    }
}

/* Loop thread: completed jobs, and the stop message. */
static void on_done(h2o_multithread_receiver_t *rx, h2o_linklist_t *messages)
{
    http_loop_t *l = H2O_STRUCT_FROM_MEMBER(http_loop_t, done, rx);
    while (!h2o_linklist_is_empty(messages)) {
        h2o_multithread_message_t *m =
            H2O_STRUCT_FROM_MEMBER(h2o_multithread_message_t, link, messages->next);
        h2o_linklist_unlink(&m->link);
        if (m == &l->stop_msg) {
            l->stop = true;
            continue;
        }
        job_t *j = (job_t *)m;
        if (j->req) {
            *j->token = NULL;
            http_send(j->req, &j->reply);
        }
        free(j->reply.body);
        free(j);
    }
}

static void *worker_main(void *arg)
{
    http_server_t *s = arg;
    void *state = s->worker_init ? s->worker_init(s->app) : NULL;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (!s->head && !s->pool_stop)
            pthread_cond_wait(&s->cv, &s->mu);
        job_t *j = s->head;
        if (j) {
            s->head = j->next;
            if (!s->head) s->tail = NULL;
            s->queued--;
        }
        pthread_mutex_unlock(&s->mu);
        if (!j) break; /* stopping and drained */
        j->fn(state, j->arg, &j->reply);
        h2o_multithread_send_message(&j->loop->done, &j->msg);
    }
    if (s->worker_close) s->worker_close(state);
    return NULL;
}

/* ---- routing ------------------------------------------------------------ */

/* Matches path against pattern, capturing {} segments into the pool. */
static bool match(const char *pat, const char *path, size_t plen, h2o_mem_pool_t *pool,
                  const char **params, int *n_params)
{
    size_t i = 0;
    int n = 0;
    while (*pat) {
        if (pat[0] == '{' && pat[1] == '}') {
            size_t start = i;
            while (i < plen && path[i] != '/')
                i++;
            if (i == start || n == HTTP_MAX_PARAMS) return false;
            if (params) {
                char *p = h2o_mem_alloc_pool(pool, i - start + 1);
                memcpy(p, path + start, i - start);
                p[i - start] = '\0';
                params[n] = p;
            }
            n++;
            pat += 2;
        } else {
            if (i >= plen || path[i] != *pat) return false;
            i++;
            pat++;
        }
    }
    if (i != plen) return false;
    if (n_params) *n_params = n;
    return true;
}

static int on_req(h2o_handler_t *self, h2o_req_t *req)
{
    http_server_t *s = ((handler_t *)self)->srv;
    http_req_t *r = h2o_mem_alloc_pool(&req->pool, sizeof *r);
    memset(r, 0, sizeof *r);
    r->req = req;
    r->loop = H2O_STRUCT_FROM_MEMBER(http_loop_t, ctx, req->conn->ctx);
    clock_gettime(CLOCK_MONOTONIC, &r->start);

    const char *path = req->path_normalized.base;
    size_t plen = req->path_normalized.len;
    if (plen > 1 && path[plen - 1] == '/') plen--; /* "/x/" is "/x" */
    h2o_iovec_t m = req->method;
    if (h2o_memis(m.base, m.len, H2O_STRLIT("HEAD"))) m = h2o_iovec_init(H2O_STRLIT("GET"));

    char allow[64] = "";
    for (int i = 0; i < s->n_routes; i++) {
        const http_route_t *rt = &s->routes[i];
        if (!match(rt->pattern, path, plen, NULL, NULL, NULL)) continue;
        if (h2o_memis(m.base, m.len, rt->method, strlen(rt->method))) {
            match(rt->pattern, path, plen, &req->pool, r->params, &r->n_params);
            rt->fn(r);
            return 0;
        }
        if (!strstr(allow, rt->method) && strlen(allow) + strlen(rt->method) + 3 < sizeof allow) {
            if (allow[0]) strcat(allow, ", ");
            strcat(allow, rt->method);
        }
    }
    http_reply_t rep;
    if (allow[0]) {
        http_reply_error(&rep, 405, "method_not_allowed",
                         "%.*s is not allowed on %.*s (allowed: %s)", (int)req->method.len,
                         req->method.base, (int)plen, path, allow);
        rep.allow = h2o_mem_alloc_pool(&req->pool, strlen(allow) + 1);
        strcpy((char *)rep.allow, allow);
    } else {
        http_reply_error(&rep, 404, "not_found", "no route for %.*s %.*s", (int)req->method.len,
                         req->method.base, (int)plen, path);
    }
    http_send(r, &rep);
    return 0;
}

/* ---- loops -------------------------------------------------------------- */

static void on_accept(h2o_socket_t *listener, const char *err)
{
    http_loop_t *l = listener->data;
    if (err) return;
    /* Several loops watch the same socket: the others may have taken the
     * connection already, and accept then finds nothing. */
    h2o_socket_t *sock = h2o_evloop_socket_accept(listener);
    if (sock) h2o_accept(&l->accept, sock);
}

static void *loop_main(void *arg)
{
    http_loop_t *l = arg;
    while (!l->stop)
        h2o_evloop_run(l->loop, INT32_MAX);
    /* Stopped: the pool is joined, so nothing sends to the queue any more.
     * A few more short turns let connections whose clients already hung up
     * see the end of file and close (a close completes on the next turn);
     * 5 turns of at most 10 ms bound the stop, and connections still open
     * after that go with the process. */
    h2o_socket_read_stop(l->listener);
    h2o_socket_close(l->listener);
    l->listener = NULL;
    h2o_multithread_unregister_receiver(l->ctx.queue, &l->done);
    for (int i = 0; i < 5; i++)
        h2o_evloop_run(l->loop, 10);
    return NULL;
}

static int listen_on(const char *host, int port, int *port_out, char *err, size_t errlen)
{
    char sport[16];
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *res, *ai;
    snprintf(sport, sizeof sport, "%d", port);
    int rc = getaddrinfo(host, sport, &hints, &res);
    if (rc) {
        snprintf(err, errlen, "listen %s:%d: %s", host, port, gai_strerror(rc));
        return -1;
    }
    int fd = -1;
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0) break;
        snprintf(err, errlen, "listen %s:%d: %s", host, port, strerror(errno));
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) return -1;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &sl);
    *port_out = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                               : ((struct sockaddr_in *)&ss)->sin_port);
    return fd;
}

static int loop_init(http_server_t *s, http_loop_t *l, char *err, size_t errlen)
{
    l->srv = s;
    l->loop = h2o_evloop_create();
    h2o_context_init(&l->ctx, l->loop, &s->config);
    l->accept.ctx = &l->ctx;
    l->accept.hosts = s->config.hosts;
    /* The context's own queue carries our completions too. */
    h2o_multithread_register_receiver(l->ctx.queue, &l->done, on_done);
    int fd = dup(s->fd);
    if (fd < 0) {
        snprintf(err, errlen, "dup listening socket: %s", strerror(errno));
        return -1;
    }
    l->listener = h2o_evloop_socket_create(l->loop, fd, H2O_SOCKET_FLAG_DONT_READ);
    l->listener->data = l;
    h2o_socket_read_start(l->listener, on_accept);
    return 0;
}

static void loop_dispose(http_loop_t *l)
{
    if (!l->loop) return;
    if (l->listener) { /* a loop that never ran */
        h2o_socket_close(l->listener);
        h2o_multithread_unregister_receiver(l->ctx.queue, &l->done);
        h2o_evloop_run(l->loop, 0);
    }
    h2o_context_dispose(&l->ctx);
    h2o_evloop_destroy(l->loop);
    l->loop = NULL;
}

int http_server_start(const http_opts_t *o, http_server_t **out, char *err, size_t errlen)
{
    if (o->n_loops < 1 || o->n_loops > HTTP_MAX_LOOPS || o->n_workers < 0 ||
        o->n_workers > MAX_WORKERS) {
        snprintf(err, errlen, "http: %d loops and %d workers (1..%d, 0..%d)", o->n_loops,
                 o->n_workers, HTTP_MAX_LOOPS, MAX_WORKERS);
        return -1;
    }
    http_server_t *s = calloc(1, sizeof *s);
    if (!s) abort();
    snprintf(s->name, sizeof s->name, "%s", o->name);
    s->routes = o->routes;
    s->n_routes = o->n_routes;
    s->app = o->app;
    s->metrics = o->metrics;
    s->n_workers = o->n_workers;
    s->worker_init = o->worker_init;
    s->worker_close = o->worker_close;
    s->latency = metrics_histogram(o->metrics, "mars_http_request_seconds",
                                   "Time from a request's arrival to its answer, by server",
                                   (const char *[]){"server", s->name, NULL},
                                   METRICS_LATENCY_BUCKETS, METRICS_N_LATENCY_BUCKETS);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);

    s->fd = listen_on(o->host, o->port, &s->port, err, errlen);
    if (s->fd < 0) goto listen;

    h2o_config_init(&s->config);
    s->config.server_name = h2o_iovec_init(H2O_STRLIT("mars"));
    s->config.max_request_entity_size = o->max_body;
    h2o_hostconf_t *host =
        h2o_config_register_host(&s->config, h2o_iovec_init(H2O_STRLIT("default")), 65535);
    h2o_pathconf_t *path = h2o_config_register_path(host, "/", 0);
    handler_t *h = (handler_t *)h2o_create_handler(path, sizeof *h);
    h->super.on_req = on_req;
    h->srv = s;

    s->n_loops = o->n_loops;
    for (int i = 0; i < s->n_loops; i++) {
        if (loop_init(s, &s->loops[i], err, errlen)) goto loops;
    }
    for (int i = 0; i < s->n_workers; i++) {
        if (pthread_create(&s->workers[i], NULL, worker_main, s)) {
            snprintf(err, errlen, "http: starting pool thread %d failed", i);
            s->n_workers = i;
            goto loops;
        }
    }
    for (int i = 0; i < s->n_loops; i++) {
        if (pthread_create(&s->loops[i].tid, NULL, loop_main, &s->loops[i])) {
            snprintf(err, errlen, "http: starting loop thread %d failed", i);
            goto loops;
        }
        s->loops[i].started = true;
    }
    *out = s;
    return 0;
loops:
    http_server_free(s);
    return -1;
listen:
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
    return -1;
}

int http_server_port(const http_server_t *s)
{
    return s->port;
}

void http_server_free(http_server_t *s)
{
    if (!s) return;
    /* The pool first: its last replies still reach running loops. */
    pthread_mutex_lock(&s->mu);
    s->pool_stop = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    for (int i = 0; i < s->n_workers; i++)
        pthread_join(s->workers[i], NULL);
    for (int i = 0; i < s->n_loops; i++) {
        http_loop_t *l = &s->loops[i];
        if (!l->started) continue;
        h2o_multithread_send_message(&l->done, &l->stop_msg);
        pthread_join(l->tid, NULL);
    }
    for (int i = 0; i < s->n_loops; i++)
        loop_dispose(&s->loops[i]);
    if (s->n_loops) h2o_config_dispose(&s->config);
    close(s->fd);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}
