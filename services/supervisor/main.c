/* mars-supervisor: applies migrations, registers itself in `supervisors`,
 * heartbeats, answers its service port (/health, /metrics, cluster-info)
 * and, with -w, serves the gateway in the same process.
 *
 * Task execution (claiming, tiling through engine/, dispatch, completions,
 * task ends, dead workers) runs on the scheduler's own thread with its own
 * connections: sched.h. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "config.h"
#include "db.h"
#include "gateway.h"
#include "http.h"
#include "log.h"
#include "metrics.h"
#include "mig.h"
#include "proto.h"
#include "rq.h"
#include "sched.h"
#include "svc.h"

#define LOG_MODULE "supervisor"

/* How long to wait for PostgreSQL and Redis at start: compose starts them
 * with us; past 60 s something is wrong and an orchestrator's restart
 * with a clear message beats waiting forever. */
#define STARTUP_WAIT_MS 60000

typedef struct sup {
    cfg_t cfg;
    char id[33];
    char address[CFG_HOST_MAX + 16];
    char web_address[CFG_HOST_MAX + 16];
    db_t *db;
    rq_t *rq;
    metrics_registry_t *metrics;
    http_server_t *http;
    gw_t *gw;
    sched_t *sched;
    metrics_counter_t *beats, *beat_failures;
    bool beat_ok;
} sup_t;

/* GET /api/v1/cluster-info: how workers and gateways reach the database and
 * the queue (shared/spec/cluster.md: they learn it from a supervisor). */
static void h_cluster_info(http_req_t *r)
{
    sup_t *s = http_app(r);
    json_t *sups = json_array();
    for (int i = 0; i < s->cfg.n_supervisors; i++) {
        char a[CFG_HOST_MAX + 16];
        svc_join_address(a, sizeof a, s->cfg.supervisors[i].host, s->cfg.supervisors[i].port);
        json_array_append_new(sups, json_string(a));
    }
    if (s->cfg.n_supervisors == 0) json_array_append_new(sups, json_string(s->address));
    http_reply_t rep;
    http_reply_json(&rep, 200,
                    json_pack("{s:s,s:s,s:s,s:o}", "supervisor_id", s->id, "pg_dsn", s->cfg.pg_dsn,
                              "redis_url", s->cfg.redis_url, "supervisors", sups));
    http_send(r, &rep);
}

static const http_route_t ROUTES[] = {
    {"GET", "/health", http_handle_health},
    {"GET", "/metrics", http_handle_metrics},
    {"GET", "/api/v1/cluster-info", h_cluster_info},
};

/* --migrations-dir, else the db/migrations of the source tree the program
 * was built in (build/bin or build/san/bin below it: up to 3 levels above
 * the executable), else ./db/migrations. */
static void find_migrations(const cfg_t *c, char *out, size_t cap)
{
    if (c->migrations_dir[0]) {
        snprintf(out, cap, "%s", c->migrations_dir);
        return;
    }
    svc_find_in_tree("db/migrations", out, cap);
}

static int register_self(sup_t *s, char *err, size_t errlen)
{
    char host[256] = "", pid[16];
    gethostname(host, sizeof host - 1);
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    const char *params[] = {s->id, s->address, s->web_address[0] ? s->web_address : NULL, host,
                            pid};
    return db_exec(s->db,
                   "INSERT INTO supervisors (id, address, web_address, hostname, pid)"
                   " VALUES ($1, $2, $3, $4, $5)",
                   5, params, err, errlen);
}

static void heartbeat(sup_t *s)
{
    char err[512];
    const char *params[] = {s->id};
    int rc = -1;
    PGresult *r = db_query(s->db,
                           "UPDATE supervisors SET last_heartbeat = now(), status = 'running',"
                           " stopped_at = NULL WHERE id = $1",
                           1, params, err, sizeof err);
    if (r) {
        /* Someone removed our row (a cleanup): put it back. */
        rc = strcmp(PQcmdTuples(r), "0") == 0 ? register_self(s, err, sizeof err) : 0;
        PQclear(r);
    }
    if (rc == 0) {
        redisReply *rep = rq_command(s->rq, err, sizeof err, "SET %s%s %s PX %d",
                                     PROTO_SUPERVISOR_KEY, s->id, s->address, PROTO_DEAD_MS);
        if (rep)
            freeReplyObject(rep);
        else
            rc = -1;
    }
    metrics_counter_inc(rc == 0 ? s->beats : s->beat_failures);
    /* Log changes of state, not every failed second. */
    if (rc != 0 && s->beat_ok) log_warning("heartbeat failed: %s", err);
    if (rc == 0 && !s->beat_ok) log_info("heartbeat ok");
    s->beat_ok = rc == 0;
}

static void deregister(sup_t *s)
{
    char err[512];
    const char *params[] = {s->id};
    if (db_exec(s->db,
                "UPDATE supervisors SET status = 'stopped', stopped_at = now() WHERE id = $1", 1,
                params, err, sizeof err))
        log_warning("marking this supervisor stopped: %s", err);
    redisReply *rep = rq_command(s->rq, err, sizeof err, "DEL %s%s", PROTO_SUPERVISOR_KEY, s->id);
    if (rep) freeReplyObject(rep);
}

int main(int argc, char **argv)
{
    static sup_t s; /* large (the config); static keeps it off the stack */
    int code = 1;
    char err[1024], dir[PATH_MAX];
    svc_signals_init();
    if (!svc_init(&s.cfg, CFG_SUPERVISOR, argc, argv, &code)) return code;
    code = 1;
    svc_random_id(s.id);

    s.metrics = metrics_create();
    if (!s.metrics) goto metrics;
    svc_process_metrics(s.metrics);
    s.beats = metrics_counter(s.metrics, "mars_heartbeats_total", "Heartbeats written", NULL);
    s.beat_failures = metrics_counter(s.metrics, "mars_heartbeat_failures_total",
                                      "Heartbeats that could not be written", NULL);

    s.db = db_create(s.cfg.pg_dsn, "mars-supervisor");
    s.rq = rq_create(s.cfg.redis_url, RQ_DEFAULT_TIMEOUT_MS, err, sizeof err);
    if (!s.db || !s.rq) {
        log_error("%s", s.rq ? "out of memory" : err);
        goto connect;
    }
    if (db_connect_wait(s.db, STARTUP_WAIT_MS, svc_wait, err, sizeof err)) {
        log_error("PostgreSQL: %s", err);
        goto connect;
    }
    find_migrations(&s.cfg, dir, sizeof dir);
    mig_report_t mr;
    if (mig_apply(s.db, dir, &mr, err, sizeof err)) {
        log_error("migrations: %s", err);
        goto connect;
    }
    log_info("migrations: %d files in %s, %d applied now", mr.n_files, dir, mr.n_applied);
    if (mr.n_unknown)
        log_warning("the database has %d migrations newer than this program's", mr.n_unknown);
    if (rq_connect_wait(s.rq, STARTUP_WAIT_MS, svc_wait, err, sizeof err)) {
        log_error("Redis: %s", err);
        goto connect;
    }

    http_opts_t ho = {
        .name = "supervisor",
        .host = s.cfg.host,
        .port = s.cfg.port,
        .n_loops = 1, /* /health, /metrics, cluster-info: a trickle */
        .max_body = CFG_SERVICE_MAX_BODY,
        .routes = ROUTES,
        .n_routes = (int)(sizeof ROUTES / sizeof ROUTES[0]),
        .app = &s,
        .metrics = s.metrics,
        .token = s.cfg.token,
    };
    if (http_server_start(&ho, &s.http, err, sizeof err)) {
        log_error("service port: %s", err);
        goto serve;
    }
    svc_join_address(s.address, sizeof s.address, s.cfg.advertise, http_server_port(s.http));
    if (s.cfg.web_port >= 0) {
        gw_opts_t go = {.host = s.cfg.host,
                        .port = s.cfg.web_port,
                        .max_body = s.cfg.max_body,
                        .quota = s.cfg.quota,
                        .pg_dsn = s.cfg.pg_dsn,
                        .redis_url = s.cfg.redis_url,
                        .ui_dir = s.cfg.ui_dir,
                        .token = s.cfg.token,
                        .metrics = s.metrics};
        if (gw_start(&go, &s.gw, err, sizeof err)) {
            log_error("gateway: %s", err);
            goto serve;
        }
        svc_join_address(s.web_address, sizeof s.web_address, s.cfg.advertise, gw_port(s.gw));
    }
    if (register_self(&s, err, sizeof err)) {
        log_error("registering: %s", err);
        goto serve;
    }
    s.beat_ok = true;
    sched_opts_t so = {.id = s.id,
                       .pg_dsn = s.cfg.pg_dsn,
                       .redis_url = s.cfg.redis_url,
                       .worker_timeout_ms = s.cfg.worker_timeout_ms,
                       .max_attempts = s.cfg.max_attempts,
                       .sort_block_bytes = s.cfg.sort_block_bytes,
                       .token = s.cfg.token,
                       .metrics = s.metrics};
    if (sched_start(&so, &s.sched, err, sizeof err)) {
        log_error("scheduler: %s", err);
        deregister(&s);
        goto serve;
    }
    log_info("supervisor %s at %s%s%s", s.id, s.address, s.gw ? ", gateway at " : "",
             s.web_address);

    int64_t next = svc_now_ms() + PROTO_HEARTBEAT_MS;
    for (;;) {
        int64_t wait = next - svc_now_ms();
        if (svc_wait(wait > 0 ? (int)wait : 0)) break;
        heartbeat(&s);
        /* Fixed rate; after a stall, resume from now rather than catch up. */
        next += PROTO_HEARTBEAT_MS;
        if (next < svc_now_ms()) next = svc_now_ms() + PROTO_HEARTBEAT_MS;
    }
    sched_free(s.sched); /* our tasks' leases end now: others take them over */
    s.sched = NULL;
    deregister(&s);
    code = 0;
serve:
    gw_free(s.gw);
    http_server_free(s.http);
connect:
    db_free(s.db);
    rq_free(s.rq);
    metrics_free(s.metrics);
metrics:
    /* Stopped by a signal while waiting (for the database, say): a clean stop. */
    return svc_stopping() ? 0 : code;
}
