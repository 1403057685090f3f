/* svc.c: signals, clocks, ids, discovery. */
#include "svc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "httpc.h"
#include "log.h"
#include "procstat.h"
#include "sbuf.h"

#define LOG_MODULE "svc"

bool svc_init(cfg_t *c, cfg_service_t svc, int argc, char **argv, int *exit_code)
{
    char err[1024];
    cfg_init(c, svc);
    int rc = cfg_parse(c, argc, argv, err, sizeof err);
    if (rc == 1) {
        sbuf_t b;
        sbuf_init(&b);
        cfg_usage(svc, &b);
        fputs(sbuf_str(&b), stdout);
        sbuf_close(&b);
        *exit_code = 0;
        return false;
    }
    if (rc == 0 && log_apply(&c->log, err, sizeof err) == 0) return true;
    fprintf(stderr, "%s: %s\n", cfg_program(svc), err);
    *exit_code = 2;
    return false;
}

typedef struct pmetrics {
    metrics_counter_t *cpu;
    metrics_gauge_t *rss;
} pmetrics_t;

static void collect_process(void *arg)
{
    pmetrics_t *p = arg;
    procstat_t ps;
    char err[128];
    if (procstat_self(&ps, err, sizeof err)) return;
    metrics_counter_set(p->cpu, ps.cpu_seconds);
    metrics_gauge_set(p->rss, (double)ps.rss_bytes);
}

void svc_process_metrics(metrics_registry_t *m)
{
    /* One set per process, alive as long as the process. */
    static pmetrics_t p;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    p.cpu = metrics_counter(m, "process_cpu_seconds_total",
                            "User and system CPU time spent in seconds", NULL);
    p.rss =
        metrics_gauge(m, "process_resident_memory_bytes", "Resident memory size in bytes", NULL);
    metrics_gauge_set(metrics_gauge(m, "process_start_time_seconds",
                                    "Start time of the process since the Unix epoch in seconds",
                                    NULL),
                      (double)ts.tv_sec + ts.tv_nsec * 1e-9);
    metrics_on_collect(m, collect_process, &p);
}

void svc_join_address(char *out, size_t cap, const char *host, int port)
{
    bool v6 = strchr(host, ':') != NULL;
    snprintf(out, cap, "%s%s%s:%d", v6 ? "[" : "", host, v6 ? "]" : "", port);
}

/* Stop signals: a handler notes the signal and writes to a pipe; the main
 * thread waits on the pipe (ppoll, with the signals unblocked only during
 * the wait). Our threads inherit the signals blocked, so their system calls
 * never see EINTR; threads that libraries start before main (OpenBLAS's
 * pool) do not block them, which is why there is a handler at all: without
 * one a signal delivered to such a thread would kill the process. */
static int g_pipe[2] = {-1, -1};
static volatile sig_atomic_t g_signo;
static sigset_t g_wait_mask;
static bool g_stopping;

static void on_signal(int sig)
{
    int saved = errno;
    g_signo = sig;
    ssize_t n = write(g_pipe[1], "s", 1); /* full pipe: a wake-up is pending anyway */
    (void)n;
    errno = saved;
}

void svc_signals_init(void)
{
    signal(SIGPIPE, SIG_IGN);
    if (pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) abort();
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, &g_wait_mask);
    sigdelset(&g_wait_mask, SIGINT);
    sigdelset(&g_wait_mask, SIGTERM);
}

bool svc_wait(int ms)
{
    int64_t deadline = svc_now_ms() + ms;
    while (!g_stopping) {
        int64_t left = deadline - svc_now_ms();
        struct timespec ts = {.tv_sec = left > 0 ? left / 1000 : 0,
                              .tv_nsec = left > 0 ? (long)(left % 1000) * 1000000 : 0};
        struct pollfd p = {.fd = g_pipe[0], .events = POLLIN};
        int n = ppoll(&p, 1, &ts, &g_wait_mask);
        if (g_signo) {
            log_info("signal %d (%s): stopping", (int)g_signo, strsignal(g_signo));
            g_stopping = true;
            break;
        }
        if (n == 0 || left <= 0) return false;
    }
    return true;
}

bool svc_stopping(void)
{
    return g_stopping;
}

int64_t svc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t svc_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int svc_connect_wait(int (*connect)(void *ctx, char *err, size_t errlen), void *ctx,
                     const long long *next_try_ms, int timeout_ms, bool (*stop)(int wait_ms),
                     char *err, size_t errlen)
{
    long long deadline = svc_now_ms() + timeout_ms;
    for (;;) {
        if (connect(ctx, err, errlen) == 0) return 0;
        long long wait = *next_try_ms - svc_now_ms();
        if (svc_now_ms() + (wait > 0 ? wait : 0) > deadline) return -1;
        if (wait > 0) {
            if (stop) {
                if (stop((int)wait)) return -1;
            } else {
                struct timespec ts = {.tv_sec = wait / 1000, .tv_nsec = wait % 1000 * 1000000};
                nanosleep(&ts, NULL);
            }
        }
    }
}

void svc_random_id(char out[33])
{
    uint64_t w[2];
    ssize_t n;
    /* 16 bytes from getrandom never come short once the pool is ready. */
    do
        n = getrandom(w, sizeof w, 0);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof w) {
        /* Kernels without getrandom (before 3.17): time and pid through
         * splitmix64, distinct enough for ids. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x =
            (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + ((uint64_t)getpid() << 40);
        for (int i = 0; i < 2; i++) {
            uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            w[i] = z ^ (z >> 31);
        }
    }
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)w[0], (unsigned long long)w[1]);
}

/* One supervisor's answer; 0 when it filled what was missing. */
static int ask(cfg_t *c, const cfg_endpoint_t *e, char *err, size_t errlen)
{
    /* A supervisor answers cluster-info from memory: 3 s is plenty even
     * across a busy network. */
    int status = 0, rc = -1;
    sbuf_t body;
    sbuf_init(&body);
    if (httpc_get_auth(e->host, e->port, "/api/v1/cluster-info", c->token, 3000, &status, &body,
                       err, errlen))
        goto get;
    if (status != 200) {
        snprintf(err, errlen, "%s:%d/api/v1/cluster-info answered %d%s", e->host, e->port, status,
                 status == 401 ? " (the token is missing or differs: --token-file, MARS_TOKEN)"
                               : "");
        goto get;
    }
    json_error_t je;
    json_t *doc = json_loadb(body.data, body.len, 0, &je);
    const char *dsn = json_string_value(json_object_get(doc, "pg_dsn"));
    const char *url = json_string_value(json_object_get(doc, "redis_url"));
    if (!dsn || !url) {
        snprintf(err, errlen, "%s:%d/api/v1/cluster-info: no pg_dsn and redis_url in the answer",
                 e->host, e->port);
        goto parse;
    }
    if (strlen(dsn) >= sizeof c->pg_dsn || strlen(url) >= sizeof c->redis_url) {
        snprintf(err, errlen, "%s:%d/api/v1/cluster-info: address longer than %zu bytes", e->host,
                 e->port, sizeof c->pg_dsn - 1);
        goto parse;
    }
    if (!c->has_pg_dsn) snprintf(c->pg_dsn, sizeof c->pg_dsn, "%s", dsn);
    if (!c->has_redis_url) snprintf(c->redis_url, sizeof c->redis_url, "%s", url);
    c->has_pg_dsn = c->has_redis_url = true;
    rc = 0;
parse:
    json_decref(doc);
get:
    sbuf_close(&body);
    return rc;
}

int svc_discover(cfg_t *c, char *err, size_t errlen)
{
    /* Backoff from 100 ms to 5 s between rounds: quick when the supervisor
     * is a moment behind us (compose starts both at once), gentle when it
     * is down for long. */
    int backoff = 100;
    for (int round = 0; !(c->has_pg_dsn && c->has_redis_url); round++) {
        for (int i = 0; i < c->n_supervisors; i++) {
            const cfg_endpoint_t *e = &c->supervisors[i];
            if (ask(c, e, err, errlen) == 0) {
                log_info("cluster addresses from supervisor %s:%d", e->host, e->port);
                return 0;
            }
            if (round % 10 == 0) log_warning("supervisor unreachable: %s", err);
        }
        if (svc_wait(backoff)) {
            snprintf(err, errlen, "stopped while waiting for a supervisor");
            return -1;
        }
        backoff = backoff * 2 > 5000 ? 5000 : backoff * 2;
    }
    return 0;
}

int svc_find_in_tree(const char *rel, char *out, size_t cap)
{
    char dir[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n > 0) {
        dir[n] = '\0';
        for (int up = 0; up <= 3; up++) {
            char *slash = strrchr(dir, '/');
            if (!slash || slash == dir) break;
            *slash = '\0';
            struct stat st;
            snprintf(out, cap, "%.*s/%s", (int)(cap / 2), dir, rel);
            if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) return 0;
        }
    }
    snprintf(out, cap, "%s", rel);
    return -1;
}
