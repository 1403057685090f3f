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

#include "http_internal.h"
#include "httpparse.h"
#include "log.h"

#define LOG_MODULE "http"

/* Jobs waiting for a pool thread, per pool thread: a database that stalls
 * for seconds meets at most this backlog, then quick 503s. */
#define QUEUE_PER_WORKER 256

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

void http__record(http_req_t *r, int status)
{
    h2o_req_t *req = r->req;
    http_server_t *s = r->loop->srv;
    char code[8];
    snprintf(code, sizeof code, "%d", status);
    metrics_counter_t *c =
        metrics_counter(s->metrics, "mars_http_requests_total",
                        "HTTP requests answered, by server, method and status",
                        (const char *[]){"server", s->name, "method", method_label(req->method),
                                         "code", code, NULL});
    if (c) metrics_counter_inc(c);
    if (s->latency) metrics_histogram_observe(s->latency, seconds_since(&r->start));
}

void http_send(http_req_t *r, http_reply_t *rep)
{
    h2o_req_t *req = r->req;
    http_server_t *s = r->loop->srv;
    req->res.status = rep->status;
    req->res.reason = http_reason(rep->status);
    if (rep->content_type)
        h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, NULL,
                       rep->content_type, strlen(rep->content_type));
    if (rep->allow)
        h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_ALLOW, NULL, rep->allow,
                       strlen(rep->allow));
    for (const char *const *h = rep->headers; h && h[0] && h[1]; h += 2)
        h2o_add_header_by_str(&req->pool, &req->res.headers, h[0], strlen(h[0]), 0, NULL, h[1],
                              strlen(h[1]));
    if (rep->status >= 500)
        log_warning("%s %.*s -> %d %.*s", s->name, (int)req->path.len, req->path.base, rep->status,
                    (int)(rep->len < 300 ? rep->len : 300), rep->body ? rep->body : "");
    http__record(r, rep->status);

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

const char *http_query(const http_req_t *r, const char *name)
{
    h2o_req_t *req = r->req;
    if (req->query_at == SIZE_MAX) return NULL;
    size_t vlen;
    const char *v = http_query_find(req->path.base + req->query_at + 1,
                                    req->path.len - req->query_at - 1, name, &vlen);
    if (!v) return NULL;
    char *out = h2o_mem_alloc_pool(&req->pool, vlen + 1);
    http_percent_decode(v, vlen, out);
    return out;
}

const char *http_query_raw(const http_req_t *r, size_t *len)
{
    h2o_req_t *req = r->req;
    if (req->query_at == SIZE_MAX) {
        *len = 0;
        return "";
    }
    *len = req->path.len - req->query_at - 1;
    return req->path.base + req->query_at + 1;
}

const char *http_header(const http_req_t *r, const char *name)
{
    h2o_req_t *req = r->req;
    char lower[64];
    size_t n = strlen(name);
    if (n >= sizeof lower) return NULL;
    for (size_t i = 0; i < n; i++)
        lower[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
    ssize_t at = h2o_find_header_by_str(&req->headers, lower, n, -1);
    if (at < 0) return NULL;
    h2o_iovec_t v = req->headers.entries[at].value;
    char *out = h2o_mem_alloc_pool(&req->pool, v.len + 1);
    memcpy(out, v.base, v.len);
    out[v.len] = '\0';
    return out;
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

static void on_poll_timer(h2o_timeout_entry_t *e);

static void on_req_gone(void *p)
{
    job_t **token = p;
    job_t *j = *token;
    if (!j) return;
    if (j->in_timer) { /* a long poll between turns: nobody else has it */
        h2o_timeout_unlink(&j->timer);
        free(j);
        return;
    }
    j->req = NULL;
}

/* Queues j for its pool (loop thread). false: refused (stopping or full). */
static bool enqueue(http_server_t *s, job_t *j)
{
    pool_t *p = j->sfn && s->spool.n ? &s->spool : &s->pool;
    pthread_mutex_lock(&p->mu);
    bool refused = p->stop || p->queued >= p->n * QUEUE_PER_WORKER;
    if (!refused) {
        j->next = NULL;
        if (p->tail)
            p->tail->next = j;
        else
            p->head = j;
        p->tail = j;
        p->queued++;
        pthread_cond_signal(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return !refused;
}

static void send_refused(http_req_t *r)
{
    http_server_t *s = r->loop->srv;
    http_reply_t rep;
    http_reply_error(&rep, 503, "overloaded", "%s",
                     __atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE)
                         ? "the server is stopping"
                         : "too many requests waiting for the database");
    http_send(r, &rep);
}

job_t *http__job_new(http_req_t *r, const void *arg, size_t arg_size)
{
    http_server_t *s = r->loop->srv;
    if (s->pool.n == 0) {
        http_reply_t rep;
        http_reply_error(&rep, 500, "internal", "this server has no pool for blocking work");
        http_send(r, &rep);
        return NULL;
    }
    job_t *j = calloc(1, sizeof *j + arg_size);
    if (!j) abort();
    j->loop = r->loop;
    j->req = r;
    if (arg_size) memcpy(j->arg, arg, arg_size);
    return j;
}

/* Queues j and ties it to its request; answers 503 when refused. */
bool http__job_submit(http_req_t *r, job_t *j)
{
    if (!enqueue(r->loop->srv, j)) {
        free(j);
        send_refused(r);
        return false;
    }
    /* The pool thread never touches the token: only the loop does (here,
     * in on_done and in on_req_gone), so setting it after queueing is safe. */
    j->token = h2o_mem_alloc_shared(&r->req->pool, sizeof *j->token, on_req_gone);
    *j->token = j;
    return true;
}

void http_defer_poll(http_req_t *r, http_job_fn fn, const void *arg, size_t arg_size)
{
    job_t *j = http__job_new(r, arg, arg_size);
    if (!j) return;
    j->fn = fn;
    j->poll = true;
    j->timer.cb = on_poll_timer;
    http__job_submit(r, j);
}

void http_defer(http_req_t *r, http_job_fn fn, const void *arg, size_t arg_size)
{
    job_t *j = http__job_new(r, arg, arg_size);
    if (!j) return;
    j->fn = fn;
    http__job_submit(r, j);
}

/* Loop thread: every long poll waiting on a timer takes its turn now. */
static void poll_now(http_loop_t *l)
{
    h2o_timeout_t *timers[] = {&l->poll_timeout, &l->poll_fast};
    for (int i = 0; i < 2; i++) {
        /* on_poll_timer queues the job for the pool: it leaves the list */
        while (!h2o_linklist_is_empty(&timers[i]->_entries)) {
            h2o_timeout_entry_t *e =
                H2O_STRUCT_FROM_MEMBER(h2o_timeout_entry_t, _link, timers[i]->_entries.next);
            h2o_timeout_unlink(e);
            on_poll_timer(e);
        }
    }
}

void http_poll_kick(http_server_t *s)
{
    for (int i = 0; i < s->n_loops; i++) {
        http_loop_t *l = &s->loops[i];
        if (!l->started || __atomic_exchange_n(&l->kick_pending, true, __ATOMIC_ACQ_REL)) continue;
        h2o_multithread_send_message(&l->done, &l->kick_msg);
    }
}

static void on_done(h2o_multithread_receiver_t *rx, h2o_linklist_t *messages)
{
    http_loop_t *l = H2O_STRUCT_FROM_MEMBER(http_loop_t, done, rx);
    while (!h2o_linklist_is_empty(messages)) {
        h2o_multithread_message_t *m =
            H2O_STRUCT_FROM_MEMBER(h2o_multithread_message_t, link, messages->next);
        h2o_linklist_unlink(&m->link);
        if (m == &l->kick_msg) {
            __atomic_store_n(&l->kick_pending, false, __ATOMIC_RELEASE);
            poll_now(l);
            continue;
        }
        if (m == &l->stop_msg) {
            l->stop = true;
            continue;
        }
        job_t *j = (job_t *)m;
        if (j->poll && j->req && j->reply.status == 0) {
            j->in_timer = true; /* on_req_gone frees it if the client leaves */
            h2o_timeout_link(l->loop,
                             j->turns++ < HTTP_POLL_FAST_TURNS ? &l->poll_fast : &l->poll_timeout,
                             &j->timer);
            continue;
        }
        http_stream_t *st = j->st;
        bool begun = false;
        if (st) {
            pthread_mutex_lock(&st->mu);
            st->done = true;
            begun = st->begun;
            pthread_mutex_unlock(&st->mu);
        }
        if (j->req) {
            *j->token = NULL;
            if (begun)
                http__stream_pump(st);
            else
                http_send(j->req, &j->reply);
        }
        if (st) http__stream_release(st);
        free(j->reply.body);
        free(j);
    }
}

/* Loop thread: a long poll's next turn. */
static void on_poll_timer(h2o_timeout_entry_t *e)
{
    job_t *j = H2O_STRUCT_FROM_MEMBER(job_t, timer, e);
    j->in_timer = false;
    j->reply = (http_reply_t){0};
    if (!enqueue(j->loop->srv, j)) {
        http_req_t *r = j->req;
        *j->token = NULL;
        free(j);
        send_refused(r);
    }
}

static void *worker_main(void *arg)
{
    pool_t *p = arg;
    http_server_t *s = p->srv;
    void *state = s->worker_init ? s->worker_init(s->app) : NULL;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->head && !p->stop)
            pthread_cond_wait(&p->cv, &p->mu);
        job_t *j = p->head;
        if (j) {
            p->head = j->next;
            if (!p->head) p->tail = NULL;
            p->queued--;
        }
        pthread_mutex_unlock(&p->mu);
        if (!j) break; /* stopping and drained */
        if (j->sfn) {
            j->sfn(state, j->arg, j->st, &j->reply);
            http_stream_t *st = j->st;
            if (st->begun && st->fill_len && http__stream_push(st)) http_stream_fail(st);
        } else {
            j->fn(state, j->arg, &j->reply);
        }
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
    size_t off[HTTPP_MAX_PARAMS][2];
    int n = 0;
    if (!http_pattern_match(pat, path, plen, off, &n)) return false;
    for (int i = 0; params && i < n; i++) {
        char *p = h2o_mem_alloc_pool(pool, off[i][1] + 1);
        memcpy(p, path + off[i][0], off[i][1]);
        p[off[i][1]] = '\0';
        params[i] = p;
    }
    if (n_params) *n_params = n;
    return true;
}

/* ---- authentication -------------------------------------------------------
 *
 * With a token configured every route but /health needs it, in an
 * `Authorization: Bearer` header or the mars_token cookie (browsers: the
 * dashboard's same-origin fetches carry the cookie). GET /?token=T with the
 * right token sets the cookie and redirects to /, so that the token leaves
 * the address bar and the history at once. */

static bool authorized(const http_server_t *s, h2o_req_t *req)
{
    bool ok = false;
    for (ssize_t at = -1; (at = h2o_find_header(&req->headers, H2O_TOKEN_AUTHORIZATION, at)) >= 0;)
        ok |= http_bearer_ok(req->headers.entries[at].value.base,
                             req->headers.entries[at].value.len, s->token);
    for (ssize_t at = -1; (at = h2o_find_header(&req->headers, H2O_TOKEN_COOKIE, at)) >= 0;)
        ok |= http_cookie_ok(req->headers.entries[at].value.base,
                             req->headers.entries[at].value.len, s->token);
    return ok;
}

/* Answers a request that the token does not let through, or the cookie
 * exchange. false: the request goes on to its route. */
static bool auth_answered(http_req_t *r, const char *path, size_t plen, h2o_iovec_t m)
{
    http_server_t *s = r->loop->srv;
    h2o_req_t *req = r->req;
    if (!s->token[0] || (plen == 7 && memcmp(path, "/health", 7) == 0)) return false;
    bool get = h2o_memis(m.base, m.len, H2O_STRLIT("GET"));
    size_t vlen = 0;
    const char *qt = NULL;
    if (get && plen == 1 && req->query_at != SIZE_MAX)
        qt = http_query_find(req->path.base + req->query_at + 1, req->path.len - req->query_at - 1,
                             "token", &vlen);
    if (qt) {
        char *tok = h2o_mem_alloc_pool(&req->pool, vlen + 1);
        size_t tlen = http_percent_decode(qt, vlen, tok);
        if (http_token_equal(tok, tlen, s->token)) {
            h2o_iovec_t cookie =
                h2o_concat(&req->pool, h2o_iovec_init(H2O_STRLIT("mars_token=")),
                           h2o_iovec_init(s->token, strlen(s->token)),
                           h2o_iovec_init(H2O_STRLIT("; HttpOnly; SameSite=Strict; Path=/")));
            h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_SET_COOKIE, NULL, cookie.base,
                           cookie.len);
            h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_LOCATION, NULL,
                           H2O_STRLIT("/"));
            h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CACHE_CONTROL, NULL,
                           H2O_STRLIT("no-store"));
            http_reply_t rep = {.status = 303};
            http_send(r, &rep);
            return true;
        }
    } else if (authorized(s, req)) {
        return false;
    }
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_WWW_AUTHENTICATE, NULL,
                   H2O_STRLIT("Bearer realm=\"mars\""));
    http_reply_t rep;
    http_reply_error(&rep, 401, "unauthorized", "%s",
                     qt ? "wrong token in ?token="
                        : "this service needs its token: Authorization: Bearer TOKEN");
    http_send(r, &rep);
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
    if (auth_answered(r, path, plen, m)) return 0;

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

static void on_conn_close(void *data)
{
    conn_t *c = data;
    h2o_linklist_unlink(&c->link);
    free(c);
}

static void on_accept(h2o_socket_t *listener, const char *err)
{
    http_loop_t *l = listener->data;
    if (err) return;
    /* Several loops watch the same socket: the others may have taken the
     * connection already, and accept then finds nothing. */
    h2o_socket_t *sock = h2o_evloop_socket_accept(listener);
    if (!sock) return;
    conn_t *c = calloc(1, sizeof *c);
    if (!c) abort();
    c->sock = sock;
    h2o_linklist_insert(&l->conns, &c->link);
    sock->on_close.cb = on_conn_close;
    sock->on_close.data = c;
    h2o_accept(&l->accept, sock);
}

/* Shuts the open connections down: h2o reads the end and closes them. */
static void shutdown_conns(http_loop_t *l)
{
    for (h2o_linklist_t *n = l->conns.next; n != &l->conns; n = n->next) {
        conn_t *c = H2O_STRUCT_FROM_MEMBER(conn_t, link, n);
        shutdown(h2o_socket_get_fd(c->sock), SHUT_RDWR);
    }
}

static int loop_init(http_server_t *s, http_loop_t *l, char *err, size_t errlen);
static void loop_dispose(http_loop_t *l);

/* A loop lives wholly in its own thread: h2o's socket buffers come from a
 * per-thread (__thread) prototype and recycle list, taken from the thread
 * that creates the socket. Sockets made by the starting thread (the
 * listener, the context's message queue) and read by a loop thread would
 * share the starter's list among every loop: a data race that freed the
 * buffers of live sockets under many long polls. So the loop's thread sets
 * it up, runs it and disposes of it. */
static void *loop_main(void *arg)
{
    http_loop_t *l = arg;
    l->init_rc = loop_init(l->srv, l, l->init_err, sizeof l->init_err);
    bool ok = l->init_rc == 0;
    sem_post(&l->ready); /* from here the starter may free l if !ok */
    if (!ok) return NULL;
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
    h2o_multithread_unregister_receiver(l->ctx.queue, &l->streams);
    for (int i = 0; i < 5; i++)
        h2o_evloop_run(l->loop, 10);
    /* Connections still open (idle keep-alive ones): shut down, closed by
     * h2o within a few more turns (bounded the same way). */
    shutdown_conns(l);
    for (int i = 0; i < 5 && !h2o_linklist_is_empty(&l->conns); i++)
        h2o_evloop_run(l->loop, 10);
    loop_dispose(l);
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
    h2o_multithread_register_receiver(l->ctx.queue, &l->streams, http__on_stream_msg);
    h2o_timeout_init(l->loop, &l->poll_timeout, HTTP_POLL_MS);
    h2o_timeout_init(l->loop, &l->poll_fast, HTTP_POLL_FAST_MS);
    h2o_linklist_init_anchor(&l->conns);
    int fd = dup(s->fd);
    if (fd < 0) {
        snprintf(err, errlen, "dup listening socket: %s", strerror(errno));
        h2o_multithread_unregister_receiver(l->ctx.queue, &l->done);
        h2o_multithread_unregister_receiver(l->ctx.queue, &l->streams);
        h2o_evloop_run(l->loop, 0);
        loop_dispose(l);
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
    /* Long polls still waiting for a turn: their clients get no answer. */
    h2o_timeout_t *timers[] = {&l->poll_timeout, &l->poll_fast};
    for (int i = 0; i < 2; i++) {
        while (!h2o_linklist_is_empty(&timers[i]->_entries)) {
            h2o_timeout_entry_t *e =
                H2O_STRUCT_FROM_MEMBER(h2o_timeout_entry_t, _link, timers[i]->_entries.next);
            job_t *j = H2O_STRUCT_FROM_MEMBER(job_t, timer, e);
            h2o_timeout_unlink(e);
            *j->token = NULL;
            free(j);
        }
        h2o_timeout_dispose(l->loop, timers[i]);
    }
    h2o_context_dispose(&l->ctx);
    h2o_evloop_destroy(l->loop);
    l->loop = NULL;
}

int http_server_start(const http_opts_t *o, http_server_t **out, char *err, size_t errlen)
{
    if (o->n_loops < 1 || o->n_loops > HTTP_MAX_LOOPS || o->n_workers < 0 ||
        o->n_workers > MAX_WORKERS || o->n_stream_workers < 0 ||
        o->n_stream_workers > MAX_WORKERS) {
        snprintf(err, errlen, "http: %d loops, %d and %d workers (1..%d, 0..%d)", o->n_loops,
                 o->n_workers, o->n_stream_workers, HTTP_MAX_LOOPS, MAX_WORKERS);
        return -1;
    }
    http_server_t *s = calloc(1, sizeof *s);
    if (!s) abort();
    snprintf(s->name, sizeof s->name, "%s", o->name);
    s->routes = o->routes;
    s->n_routes = o->n_routes;
    s->app = o->app;
    if (o->token && strlen(o->token) >= sizeof s->token) {
        snprintf(err, errlen, "http: a token of at most %zu bytes", sizeof s->token - 1);
        free(s);
        return -1;
    }
    snprintf(s->token, sizeof s->token, "%s", o->token ? o->token : "");
    s->metrics = o->metrics;
    s->worker_init = o->worker_init;
    s->worker_close = o->worker_close;
    s->latency = metrics_histogram(o->metrics, "mars_http_request_seconds",
                                   "Time from a request's arrival to its answer, by server",
                                   (const char *[]){"server", s->name, NULL},
                                   METRICS_LATENCY_BUCKETS, METRICS_N_LATENCY_BUCKETS);
    pool_t *pools[] = {&s->pool, &s->spool};
    for (int k = 0; k < 2; k++) {
        pthread_mutex_init(&pools[k]->mu, NULL);
        pthread_cond_init(&pools[k]->cv, NULL);
        pools[k]->srv = s;
    }

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
    int want[] = {o->n_workers, o->n_stream_workers};
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < want[k]; i++) {
            if (pthread_create(&pools[k]->th[i], NULL, worker_main, pools[k])) {
                snprintf(err, errlen, "http: starting pool thread %d failed", i);
                goto loops;
            }
            pools[k]->n = i + 1;
        }
    }
    for (int i = 0; i < s->n_loops; i++) {
        http_loop_t *l = &s->loops[i];
        l->srv = s;
        sem_init(&l->ready, 0, 0);
        if (pthread_create(&l->tid, NULL, loop_main, l)) {
            snprintf(err, errlen, "http: starting loop thread %d failed", i);
            sem_destroy(&l->ready);
            goto loops;
        }
        while (sem_wait(&l->ready) && errno == EINTR) {
        }
        sem_destroy(&l->ready);
        if (l->init_rc) {
            pthread_join(l->tid, NULL);
            snprintf(err, errlen, "http: %s", l->init_err);
            goto loops;
        }
        l->started = true;
    }
    *out = s;
    return 0;
loops:
    http_server_free(s);
    return -1;
listen:
    for (int k = 0; k < 2; k++) {
        pthread_mutex_destroy(&pools[k]->mu);
        pthread_cond_destroy(&pools[k]->cv);
    }
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
    /* The pools first: their last replies still reach running loops. */
    pool_t *pools[] = {&s->pool, &s->spool};
    __atomic_store_n(&s->stopping, true, __ATOMIC_RELEASE);
    for (int k = 0; k < 2; k++) {
        pthread_mutex_lock(&pools[k]->mu);
        pools[k]->stop = true;
        pthread_cond_broadcast(&pools[k]->cv);
        pthread_mutex_unlock(&pools[k]->mu);
    }
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < pools[k]->n; i++)
            pthread_join(pools[k]->th[i], NULL);
    for (int i = 0; i < s->n_loops; i++) {
        http_loop_t *l = &s->loops[i];
        if (!l->started) continue;
        h2o_multithread_send_message(&l->done, &l->stop_msg);
        pthread_join(l->tid, NULL); /* the thread disposed of its loop */
    }
    if (s->n_loops) h2o_config_dispose(&s->config);
    close(s->fd);
    for (int k = 0; k < 2; k++) {
        pthread_mutex_destroy(&pools[k]->mu);
        pthread_cond_destroy(&pools[k]->cv);
    }
    free(s);
}
