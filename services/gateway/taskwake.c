/* taskwake.c: the gateway's LISTEN on mars_task_done. A long poll
 * (GET .../tasks/{id}?wait=S) looks at its task every turn, 100 ms apart
 * once it has waited a while (http.h HTTP_POLL_MS); when a supervisor ends
 * a task it notifies mars_task_done, and this thread makes every waiting
 * poll take its turn at once (http_poll_kick), so a finished task's answer
 * leaves within milliseconds. Without the connection the polls simply keep
 * their timers: nothing is lost but latency. */
#include "taskwake.h"

#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "log.h"
#include "svc.h"

#define LOG_MODULE "gateway"

/* How long a poll() waits before looking at the stop flag again, and how
 * long after a lost connection the thread connects again. */
#define WAKE_TICK_MS 200
#define WAKE_RETRY_MS 2000

struct taskwake {
    pthread_t thread;
    char *dsn;
    http_server_t *http;
    bool stop; /* atomics */
};

static PGconn *connect_listen(const char *dsn)
{
    PGconn *c = PQconnectdb(dsn);
    if (PQstatus(c) == CONNECTION_OK) {
        PGresult *r = PQexec(c, "LISTEN mars_task_done");
        bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
        if (ok) return c;
    }
    log_debug("LISTEN mars_task_done: %s (long polls keep their timers)", PQerrorMessage(c));
    PQfinish(c);
    return NULL;
}

static void *wake_main(void *arg)
{
    taskwake_t *w = arg;
    PGconn *c = NULL;
    int64_t retry_at = 0;
    while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
        if (!c) {
            if (svc_now_ms() >= retry_at) c = connect_listen(w->dsn);
            if (!c) {
                retry_at = svc_now_ms() + WAKE_RETRY_MS;
                poll(NULL, 0, WAKE_TICK_MS);
                continue;
            }
        }
        struct pollfd pfd = {.fd = PQsocket(c), .events = POLLIN};
        int n = poll(&pfd, 1, WAKE_TICK_MS);
        if (n <= 0) continue;
        if (!PQconsumeInput(c)) {
            PQfinish(c);
            c = NULL;
            retry_at = svc_now_ms() + WAKE_RETRY_MS;
            continue;
        }
        bool any = false;
        PGnotify *nf;
        while ((nf = PQnotifies(c))) {
            any = true;
            PQfreemem(nf);
        }
        if (any) http_poll_kick(w->http);
    }
    if (c) PQfinish(c);
    return NULL;
}

taskwake_t *taskwake_start(const char *dsn, http_server_t *http)
{
    taskwake_t *w = calloc(1, sizeof *w);
    if (!w || !(w->dsn = strdup(dsn ? dsn : ""))) {
        free(w);
        return NULL;
    }
    w->http = http;
    if (pthread_create(&w->thread, NULL, wake_main, w)) {
        free(w->dsn);
        free(w);
        return NULL;
    }
    return w;
}

void taskwake_stop(taskwake_t *w)
{
    if (!w) return;
    __atomic_store_n(&w->stop, true, __ATOMIC_RELEASE);
    pthread_join(w->thread, NULL);
    free(w->dsn);
    free(w);
}
