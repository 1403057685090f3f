/* dash.c: read-only routes the dashboard's pages read (docs/dashboard.md).
 * They extend the contract's API without changing any of its answers:
 *
 *   GET /api/v1/tasks?limit=N                        newest tasks of all sessions
 *   GET /api/v1/cluster                              summary figures
 *   GET /api/v1/workers/{wid}                        one worker, its history and slots
 *   GET /api/v1/sessions/{sid}/tasks/{tid}/graph     the task's nodes with progress
 *   GET /api/v1/sessions/{sid}/tasks/{tid}/chunks    the jobs that ran (task stream)
 *
 * Every answer is bounded: a limit on rows, a capped history list in
 * Redis (proto.h), a graph no larger than the graph limits allow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "gateway_internal.h"
#include "graph.h"
#include "log.h"
#include "proto.h"

#define LOG_MODULE "gateway"

/* The front page shows 50 tasks; a script may ask for more, up to 1000: a
 * bounded statement, a bounded answer. */
#define TASKS_DEFAULT 50
#define TASKS_MAX 1000
/* Jobs of a task stream: the newest 5000 draw a readable picture and stay
 * under a megabyte of JSON; a script may ask for up to 20000. */
#define CHUNKS_DEFAULT 5000
#define CHUNKS_MAX 20000

typedef struct limit_arg {
    char sid[ID_MAX + 1], tid[ID_MAX + 1];
    int limit;
} limit_arg_t;

/* ?limit=N within 1..max (absent: def). False when it answered 400. */
static bool take_limit(http_req_t *r, int def, int max, int *out)
{
    const char *s = http_query(r, "limit");
    *out = def;
    if (!s) return true;
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < 1 || v > max) {
        char msg[96];
        snprintf(msg, sizeof msg, "limit must be an integer from 1 to %d", max);
        gw_send_error(r, 400, "invalid_request", msg);
        return false;
    }
    *out = (int)v;
    return true;
}

/* ms since the epoch as RFC 3339 UTC with milliseconds. */
static json_t *json_time_ms(long long ms)
{
    if (ms <= 0) return json_null();
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    char buf[80]; /* what -Wformat-truncation allows for any int fields */
    if (!gmtime_r(&s, &tm)) return json_null();
    snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
    return json_string(buf);
}

/* A JSON text from PostgreSQL, parsed (it came from our own statement). */
static json_t *json_from(const char *text)
{
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    return v ? v : json_null();
}

/* ---- GET /api/v1/tasks ------------------------------------------------------ */

static void job_recent_tasks(void *state, void *arg, http_reply_t *out)
{
    conns_t *c = state;
    limit_arg_t *a = arg;
    char err[512], lim[16];
    snprintf(lim, sizeof lim, "%d", a->limit);
    const char *p[] = {lim};
    /* Newest first; each item is the task's contract form plus its
     * session's id and name. */
    PGresult *res = db_query(
        c->db,
        "SELECT json_build_object('total', (SELECT count(*) FROM tasks),"
        " 'tasks', coalesce(json_agg(x.j ORDER BY x.submitted_at DESC, x.id DESC), "
        "'[]'::json))::text"
        " FROM (SELECT t.id, t.submitted_at, " GW_TASK_JSON
        "::jsonb || jsonb_build_object('session_id', t.session_id, 'session_name', s.name) AS j"
        "       FROM tasks t JOIN sessions s ON s.id = t.session_id"
        "       ORDER BY t.submitted_at DESC, t.id DESC LIMIT $1::int) x",
        1, p, err, sizeof err);
    if (!res) {
        gw_reply_db_error(out, c, "listing recent tasks", err);
        return;
    }
    http_reply_json_text(out, 200, PQgetvalue(res, 0, 0));
    PQclear(res);
}

void gw_h_recent_tasks(http_req_t *r)
{
    limit_arg_t a = {0};
    if (take_limit(r, TASKS_DEFAULT, TASKS_MAX, &a.limit))
        http_defer(r, job_recent_tasks, &a, sizeof a);
}

/* ---- GET /api/v1/cluster ---------------------------------------------------- */

/* Worker status from the heartbeat's age, as GET /api/v1/workers says it. */
#define WSTATUS                                                                                    \
    "CASE WHEN w.status = 'stopped' OR now() - w.last_heartbeat > $2::int * interval '1 ms'"       \
    " THEN 'dead' WHEN now() - w.last_heartbeat > $1::int * interval '1 ms' THEN 'suspect'"        \
    " ELSE 'alive' END"

static const char QUEUED_SCRIPT[] = "local n = redis.call('LLEN', 'mars:jobs')"
                                    " for _, w in ipairs(redis.call('SMEMBERS', 'mars:wq')) do"
                                    "  n = n + redis.call('LLEN', 'mars:jobs:' .. w) end"
                                    " return n";

static void job_cluster(void *state, void *arg, http_reply_t *out)
{
    conns_t *c = state;
    char err[512], s[16], d[16];
    snprintf(s, sizeof s, "%d", PROTO_SUSPECT_MS);
    snprintf(d, sizeof d, "%d", PROTO_DEAD_MS);
    const char *p[] = {s, d};
    /* Resources count the workers not dead; cpu_usage is clamped to each
     * worker's [0, n_cpu] as the contract bounds it. */
    PGresult *res = db_query(
        c->db,
        "WITH w AS (SELECT " WSTATUS " AS st, w.* FROM workers w),"
        " l AS (SELECT * FROM w WHERE st <> 'dead')"
        " SELECT json_build_object("
        " 'workers', json_build_object("
        "   'alive', (SELECT count(*) FROM w WHERE st = 'alive'),"
        "   'suspect', (SELECT count(*) FROM w WHERE st = 'suspect'),"
        "   'dead', (SELECT count(*) FROM w WHERE st = 'dead'),"
        "   'total', (SELECT count(*) FROM w)),"
        " 'n_cpu', (SELECT coalesce(sum(n_cpu), 0) FROM l),"
        " 'cpu_usage', (SELECT coalesce(sum(least(greatest(cpu_usage, 0), n_cpu)), 0) FROM l),"
        " 'memory_used', (SELECT coalesce(sum(memory_used), 0) FROM l),"
        " 'memory_limit', (SELECT coalesce(sum(memory_limit), 0) FROM l),"
        " 'cache_used', (SELECT coalesce(sum(cache_used), 0) FROM l),"
        " 'cache_limit', (SELECT coalesce(sum(cache_limit), 0) FROM l),"
        " 'jobs_running', (SELECT coalesce(sum(chunks_running), 0) FROM l),"
        " 'chunks_done', (SELECT coalesce(sum(chunks_done), 0) FROM w),"
        " 'tasks', (SELECT json_build_object("
        "   'pending', count(*) FILTER (WHERE status = 'pending'),"
        "   'running', count(*) FILTER (WHERE status = 'running'),"
        "   'succeeded', count(*) FILTER (WHERE status = 'succeeded'),"
        "   'failed', count(*) FILTER (WHERE status = 'failed'),"
        "   'cancelled', count(*) FILTER (WHERE status = 'cancelled'),"
        "   'total', count(*)) FROM tasks),"
        " 'sessions', (SELECT count(*) FROM sessions),"
        " 'supervisors', (SELECT count(*) FROM supervisors x"
        "   WHERE x.status = 'running' AND now() - x.last_heartbeat <= $2::int * interval '1 ms')"
        ")::text",
        2, p, err, sizeof err);
    if (!res) {
        gw_reply_db_error(out, c, "summing up the cluster", err);
        return;
    }
    json_t *doc = json_from(PQgetvalue(res, 0, 0));
    PQclear(res);
    /* Jobs waiting for a slot: the lengths of mars:jobs and of every
     * worker's queue (mars:wq lists them; one script, atomic). */
    json_t *queued = json_null();
    redisReply *rr = c->rq ? rq_command(c->rq, err, sizeof err, "EVAL %s 0", QUEUED_SCRIPT) : NULL;
    if (rr && rr->type == REDIS_REPLY_INTEGER)
        queued = json_integer(rr->integer);
    else if (c->rq && !rr)
        log_warning("cluster summary: queued jobs: %s", err);
    if (rr) freeReplyObject(rr);
    json_object_set_new(doc, "jobs_queued", queued);
    http_reply_json(out, 200, doc);
}

void gw_h_cluster(http_req_t *r)
{
    http_defer(r, job_cluster, NULL, 0);
}

/* ---- GET /api/v1/workers/{wid} ----------------------------------------------- */

/* "<ms> <cpu> <rss> <cache> <running> <done>" (proto.h), clamped to n_cpu. */
static json_t *history_item(const char *s, long long n_cpu)
{
    long long t, rss, cache, running, done;
    double cpu;
    if (sscanf(s, "%lld %lf %lld %lld %lld %lld", &t, &cpu, &rss, &cache, &running, &done) != 6)
        return NULL;
    if (!(cpu >= 0)) cpu = 0;
    if (cpu > (double)n_cpu) cpu = (double)n_cpu;
    return json_pack("{s:o,s:f,s:I,s:I,s:I,s:I}", "t", json_time_ms(t), "cpu_usage", cpu,
                     "memory_used", (json_int_t)rss, "cache_used", (json_int_t)cache,
                     "chunks_running", (json_int_t)running, "chunks_done", (json_int_t)done);
}

static void job_worker(void *state, void *arg, http_reply_t *out)
{
    conns_t *c = state;
    id_arg_t *a = arg;
    char err[512], s[16], d[16];
    snprintf(s, sizeof s, "%d", PROTO_SUSPECT_MS);
    snprintf(d, sizeof d, "%d", PROTO_DEAD_MS);
    const char *p[] = {s, d, a->id};
    PGresult *res =
        db_query(c->db,
                 "SELECT json_build_object('id', w.id, 'address', w.address, 'status', " WSTATUS ","
                 " 'n_cpu', w.n_cpu, 'cpu_usage', least(greatest(w.cpu_usage, 0), w.n_cpu),"
                 " 'memory_used', w.memory_used, 'memory_limit', w.memory_limit,"
                 " 'cache_used', w.cache_used, 'cache_limit', w.cache_limit,"
                 " 'cuda_devices', w.cuda_devices, 'gpus', w.gpus,"
                 " 'chunks_running', w.chunks_running,"
                 " 'chunks_done', w.chunks_done, 'hostname', w.hostname, 'pid', w.pid,"
                 " 'started_at', " RFC3339("w.started_at") ", 'last_heartbeat', " RFC3339(
                     "w.last_heartbeat") ")::text, w.n_cpu FROM workers w WHERE w.id = $3",
                 3, p, err, sizeof err);
    if (!res) {
        gw_reply_db_error(out, c, "reading a worker", err);
        return;
    }
    if (PQntuples(res) == 0) {
        PQclear(res);
        http_reply_error(out, 404, "not_found", "no worker '%s'", a->id);
        return;
    }
    json_t *w = json_from(PQgetvalue(res, 0, 0));
    long long n_cpu = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
    PQclear(res);

    /* Oldest first for the charts; slots as the worker last reported them
     * (absent once its live report expired: it is dead). */
    json_t *hist = json_array(), *slots = json_null();
    redisReply *reps[2] = {NULL, NULL};
    if (c->rq && (rq_append(c->rq, err, sizeof err, "LRANGE %s%s" PROTO_HISTORY_SUFFIX " 0 %d",
                            PROTO_WORKER_KEY, a->id, PROTO_HISTORY_LEN - 1) ||
                  rq_append(c->rq, err, sizeof err, "HGET %s%s slots", PROTO_WORKER_KEY, a->id) ||
                  rq_flush_replies(c->rq, reps, 2, err, sizeof err)))
        log_warning("worker %s: history: %s", a->id, err);
    if (reps[0] && reps[0]->type == REDIS_REPLY_ARRAY)
        for (size_t i = reps[0]->elements; i-- > 0;) {
            const redisReply *e = reps[0]->element[i];
            json_t *it = e->type == REDIS_REPLY_STRING ? history_item(e->str, n_cpu) : NULL;
            if (it) json_array_append_new(hist, it);
        }
    if (reps[1] && reps[1]->type == REDIS_REPLY_STRING) {
        json_t *v = json_loadb(reps[1]->str, reps[1]->len, 0, NULL);
        if (json_is_array(v)) {
            size_t i;
            json_t *sl;
            slots = json_array();
            json_array_foreach(v, i, sl)
            {
                /* idle: {"slot": i, "task_id": null} */
                json_t *item = json_is_object(sl) ? json_deep_copy(sl) : json_object();
                json_object_set_new(item, "slot", json_integer((json_int_t)i));
                json_object_set_new(item, "task_id",
                                    json_incref(json_object_get(sl, "task_id") ?: json_null()));
                json_object_set_new(
                    item, "started_at",
                    json_time_ms(json_integer_value(json_object_get(sl, "started_at"))));
                json_array_append_new(slots, item);
            }
        }
        json_decref(v);
    }
    for (int i = 0; i < 2; i++)
        if (reps[i]) freeReplyObject(reps[i]);
    http_reply_json(out, 200,
                    json_pack("{s:o,s:o,s:o}", "worker", w, "history", hist, "slots", slots));
}

void gw_h_worker(http_req_t *r)
{
    id_arg_t a;
    if (gw_take_id(r, 0, "worker", &a)) http_defer(r, job_worker, &a, sizeof a);
}

/* ---- GET /api/v1/sessions/{sid}/tasks/{tid}/graph --------------------------- */

/* Per graph node, from the task's chunk rows. */
typedef struct nstat {
    long long total, done, queued, failed;
    const char *started, *finished, *error; /* in the result; NULL when NULL */
} nstat_t;

static const char *node_status(const nstat_t *n, const char *task_status)
{
    if (n->failed > 0) return "failed";
    if (n->total > 0 && n->done == n->total) return "done";
    /* No job of its own: fused into its consumer, or a session tensor. */
    if (n->total == 0) return strcmp(task_status, "succeeded") == 0 ? "done" : "waiting";
    if (n->done > 0 || n->queued > 0) return "running";
    if (strcmp(task_status, "failed") == 0 || strcmp(task_status, "cancelled") == 0)
        return "cancelled";
    return "waiting";
}

static json_t *opt_str(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* Shapes and dtypes as the engine infers them; NULL when the document no
 * longer parses (a session tensor it read was replaced or deleted). */
static plan_t *parse_doc(conns_t *c, const char *sid, const char *doc, plan_t *p)
{
    char err[512];
    if (plan_init(p, "", doc, strlen(doc))) return NULL;
    gw_load_ctx_t lc = {.c = c, .sid = sid};
    p->load = gw_load_src;
    p->load_ctx = &lc;
    if (plan_tile(p, err, sizeof err)) {
        plan_close(p);
        return NULL;
    }
    return p;
}

static void job_graph(void *state, void *arg, http_reply_t *out)
{
    conns_t *c = state;
    limit_arg_t *a = arg;
    char err[512];
    const char *p[] = {a->tid, a->sid};
    PGresult *tr = db_query(c->db,
                            "SELECT status, error, graph::text FROM tasks"
                            " WHERE id = $1 AND session_id = $2",
                            2, p, err, sizeof err);
    if (!tr) {
        gw_reply_db_error(out, c, "reading a task", err);
        return;
    }
    if (PQntuples(tr) == 0) {
        PQclear(tr);
        http_reply_error(out, 404, "not_found", "no task '%s' in session '%s'", a->tid, a->sid);
        return;
    }
    const char *status = PQgetvalue(tr, 0, 0);
    const char *terr = PQgetisnull(tr, 0, 1) ? NULL : PQgetvalue(tr, 0, 1);
    PGresult *cr = db_query(
        c->db,
        "SELECT node_key, count(*), count(*) FILTER (WHERE status IN ('done', 'freed')),"
        " count(*) FILTER (WHERE status = 'queued'), count(*) FILTER (WHERE status = 'failed'),"
        " " RFC3339("min(started_at)") ", " RFC3339(
            "max(finished_at)") ", max(error)"
                                " FROM chunks WHERE task_id = $1 GROUP BY node_key",
        1, p, err, sizeof err);
    if (!cr) {
        PQclear(tr);
        gw_reply_db_error(out, c, "reading a task's chunks", err);
        return;
    }
    json_t *doc = json_loads(PQgetvalue(tr, 0, 2), 0, NULL);
    plan_t plan, *pl = parse_doc(c, a->sid, PQgetvalue(tr, 0, 2), &plan);
    json_t *nodes = json_array(), *sources = json_array();
    /* key -> row of cr, and the set of node keys: linear in the graph. */
    json_t *rows = json_object(), *keys = json_object();
    for (int r = 0; r < PQntuples(cr); r++)
        json_object_set_new(rows, PQgetvalue(cr, r, 0), json_integer(r));
    json_t *dnodes = json_object_get(doc, "nodes"), *fetch = json_object_get(doc, "fetch");
    size_t i;
    json_t *dn;
    json_array_foreach(dnodes, i, dn)
    {
        const char *key = json_string_value(json_object_get(dn, "key"));
        if (!key) continue;
        nstat_t ns = {0};
        json_object_set_new(keys, key, json_true());
        json_t *row = json_object_get(rows, key);
        if (row) {
            int r = (int)json_integer_value(row);
            ns.total = strtoll(PQgetvalue(cr, r, 1), NULL, 10);
            ns.done = strtoll(PQgetvalue(cr, r, 2), NULL, 10);
            ns.queued = strtoll(PQgetvalue(cr, r, 3), NULL, 10);
            ns.failed = strtoll(PQgetvalue(cr, r, 4), NULL, 10);
            ns.started = PQgetisnull(cr, r, 5) ? NULL : PQgetvalue(cr, r, 5);
            ns.finished = PQgetisnull(cr, r, 6) ? NULL : PQgetvalue(cr, r, 6);
            ns.error = PQgetisnull(cr, r, 7) ? NULL : PQgetvalue(cr, r, 7);
        }
        /* The task's message names the node it failed in: node "KEY" (op). */
        char needle[GRAPH_KEY_MAX + 16];
        snprintf(needle, sizeof needle, "node \"%s\"", key);
        if (!ns.error && terr && strstr(terr, needle)) ns.error = terr;
        json_t *inputs = json_array();
        size_t k;
        json_t *in;
        json_array_foreach(json_object_get(dn, "inputs"), k, in)
        {
            if (!json_is_string(in)) continue;
            json_array_append(inputs, in);
        }
        json_t *shape = json_null(), *dtype = json_null();
        bool fetched = false;
        json_array_foreach(fetch, k, in)
        {
            fetched |= json_is_string(in) && strcmp(json_string_value(in), key) == 0;
        }
        int gi = pl ? graph_find(pl->g, key) : -1;
        if (gi >= 0) {
            const graph_node_t *g = &pl->g->nodes[gi];
            shape = json_array();
            for (int d = 0; d < g->oshape.ndim; d++)
                json_array_append_new(shape, json_integer((json_int_t)g->oshape.d[d]));
            dtype = json_string(dt_name(g->odtype));
        }
        json_t *op = json_object_get(dn, "op");
        json_array_append_new(
            nodes,
            json_pack("{s:s,s:O,s:o,s:o,s:o,s:b,s:s,s:I,s:I,s:I,s:o,s:o,s:o}", "key", key, "op",
                      op ? op : json_null(), "inputs", inputs, "shape", shape, "dtype", dtype,
                      "fetch", fetched, "status", node_status(&ns, status), "chunks_total",
                      (json_int_t)ns.total, "chunks_done", (json_int_t)ns.done, "chunks_failed",
                      (json_int_t)ns.failed, "started_at", opt_str(ns.started), "finished_at",
                      opt_str(ns.finished), "error", opt_str(ns.error)));
    }
    /* Inputs that are no node of the document: the session's tensors. */
    json_array_foreach(nodes, i, dn)
    {
        size_t k;
        json_t *in;
        json_array_foreach(json_object_get(dn, "inputs"), k, in)
        {
            const char *ik = json_string_value(in);
            if (json_object_get(keys, ik)) continue;
            json_object_set_new(keys, ik, json_true());
            json_array_append(sources, in);
        }
    }
    http_reply_json(out, 200,
                    json_pack("{s:s,s:s,s:o,s:o,s:o}", "task_id", a->tid, "status", status, "error",
                              opt_str(terr), "nodes", nodes, "sources", sources));
    if (pl) plan_close(pl);
    json_decref(rows);
    json_decref(keys);
    json_decref(doc);
    PQclear(cr);
    PQclear(tr);
}

static bool take_task_ids(http_req_t *r, limit_arg_t *a)
{
    id_arg_t sid, tid;
    if (!gw_take_id(r, 0, "session", &sid) || !gw_take_id(r, 1, "task", &tid)) return false;
    memcpy(a->sid, sid.id, sizeof a->sid);
    memcpy(a->tid, tid.id, sizeof a->tid);
    return true;
}

void gw_h_task_graph(http_req_t *r)
{
    limit_arg_t a = {0};
    if (take_task_ids(r, &a)) http_defer(r, job_graph, &a, sizeof a);
}

/* ---- GET /api/v1/sessions/{sid}/tasks/{tid}/chunks -------------------------- */

static void job_chunks(void *state, void *arg, http_reply_t *out)
{
    conns_t *c = state;
    limit_arg_t *a = arg;
    char err[512], lim[16];
    snprintf(lim, sizeof lim, "%d", a->limit);
    const char *p[] = {a->tid, a->sid, lim};
    /* The jobs that ran (a start reported), newest last; the worker's
     * address names its lane. */
    PGresult *res = db_query(
        c->db,
        "SELECT EXISTS (SELECT 1 FROM tasks WHERE id = $1 AND session_id = $2),"
        " json_build_object('task_id', $1::text,"
        " 'ran', (SELECT count(*) FROM chunks WHERE task_id = $1 AND started_at IS NOT NULL),"
        " 'chunks', coalesce(json_agg(json_build_object('key', x.key, 'node', x.node_key,"
        "   'op', x.op, 'status', x.status, 'worker_id', x.worker_id, 'address', x.address,"
        "   'slot', x.slot, 'nbytes', x.nbytes, 'error', x.error,"
        "   'started_at', " RFC3339("x.started_at") ", 'finished_at', " RFC3339(
            "x.finished_at") ") ORDER BY x.started_at, x.key), '[]'::json))::text"
                             " FROM (SELECT c.*, w.address FROM chunks c"
                             "       LEFT JOIN workers w ON w.id = c.worker_id"
                             "       WHERE c.task_id = $1 AND c.started_at IS NOT NULL"
                             "       AND EXISTS (SELECT 1 FROM tasks WHERE id = $1 AND "
                             "session_id = $2)"
                             "       ORDER BY c.started_at DESC, c.key DESC LIMIT $3::int) x",
        3, p, err, sizeof err);
    if (!res) {
        gw_reply_db_error(out, c, "reading a task's jobs", err);
        return;
    }
    if (strcmp(PQgetvalue(res, 0, 0), "t") != 0)
        http_reply_error(out, 404, "not_found", "no task '%s' in session '%s'", a->tid, a->sid);
    else
        http_reply_json_text(out, 200, PQgetvalue(res, 0, 1));
    PQclear(res);
}

void gw_h_task_chunks(http_req_t *r)
{
    limit_arg_t a = {0};
    if (!take_task_ids(r, &a) || !take_limit(r, CHUNKS_DEFAULT, CHUNKS_MAX, &a.limit)) return;
    http_defer(r, job_chunks, &a, sizeof a);
}
