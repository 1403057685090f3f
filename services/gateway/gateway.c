/* gateway.c: REST handlers. Each handler checks its arguments on the loop
 * and defers the database work to the pool; list answers are built as JSON
 * by PostgreSQL itself (json_agg), so a list is one statement and one
 * copy. */
#include "gateway.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "db.h"
#include "gateway_internal.h"
#include "http.h"
#include "log.h"
#include "msg.h"
#include "proto.h"
#include "rq.h"
#include "taskwake.h"

#define LOG_MODULE "gateway"

struct gw {
    http_server_t *http;
    taskwake_t *wake; /* long polls answered when a task ends */
    char *pg_dsn, *redis_url;
    size_t max_body;
    graph_limits_t quota;
    char ui_dir[4096];
    char token[HTTP_TOKEN_MAX]; /* the cluster's, sent to workers for chunk reads */
};

/* A session name is a label for people; 256 bytes are plenty. */
#define NAME_MAX_BYTES 256
/* Session creation bodies are tiny JSON objects; parsing a larger one on the
 * loop would be work for nothing. */
#define SESSION_BODY_MAX 65536
/* Lists answer with at most this many items, the newest: enough for any
 * dashboard, and bounded in time and memory. */
#define LIST_MAX "10000"

/* ---- pool thread state -------------------------------------------------- */

static void *conns_open(void *app)
{
    gw_t *g = app;
    char err[256];
    conns_t *c = calloc(1, sizeof *c);
    if (!c) abort();
    c->quota = &g->quota;
    c->db = db_create(g->pg_dsn, "mars-gateway");
    c->rq = rq_create(g->redis_url, RQ_DEFAULT_TIMEOUT_MS, err, sizeof err);
    c->pool = peer_pool_create();
    c->token = g->token;
    if (!c->db || !c->pool) abort();
    /* The URL was checked at start; connections open on first use. */
    if (!c->rq) log_error("redis: %s", err);
    return c;
}

static void conns_close(void *state)
{
    conns_t *c = state;
    db_free(c->db);
    rq_free(c->rq);
    peer_pool_free(c->pool);
    free(c);
}

/* A failed statement: 503 when the database is unreachable, else 500. */
void gw_reply_db_error(http_reply_t *out, const conns_t *c, const char *what, const char *err)
{
    if (db_unavailable(c->db))
        http_reply_error(out, 503, "unavailable", "database unavailable: %s", err);
    else
        http_reply_error(out, 500, "internal", "%s: %s", what, err);
}

bool gw_session_exists(http_reply_t *out, conns_t *c, const char *sid)
{
    char err[512];
    const char *sp[] = {sid};
    PGresult *res = db_query(c->db, "SELECT 1 FROM sessions WHERE id = $1", 1, sp, err, sizeof err);
    if (!res) {
        gw_reply_db_error(out, c, "reading a session", err);
        return false;
    }
    bool found = PQntuples(res) == 1;
    PQclear(res);
    if (!found) http_reply_error(out, 404, "not_found", "no session '%s'", sid);
    return found;
}

/* Runs a statement whose single value is a JSON document and replies with it. */
static void reply_query_json(http_reply_t *out, conns_t *c, const char *what, const char *sql,
                             int n, const char *const *params)
{
    char err[512];
    PGresult *r = db_query(c->db, sql, n, params, err, sizeof err);
    if (!r) {
        gw_reply_db_error(out, c, what, err);
        return;
    }
    http_reply_json_text(out, 200, PQgetvalue(r, 0, 0));
    PQclear(r);
}

void gw_reply_rq_error(http_reply_t *out, const char *what, const char *err)
{
    http_reply_error(out, 503, "unavailable", "chunk store unavailable (%s): %s", what, err);
}

void gw_wake_supervisors(conns_t *c)
{
    if (!c->rq) return;
    char err[256];
    if (msg_append_wake(c->rq, err, sizeof err) || rq_flush(c->rq, err, sizeof err))
        log_debug("waking the supervisors: %s (they look at the table within a second)", err);
}

size_t gw_max_body(http_req_t *r)
{
    return ((gw_t *)http_app(r))->max_body;
}

const graph_limits_t *gw_quota(http_req_t *r)
{
    return &((gw_t *)http_app(r))->quota;
}

const char *gw_ui_root(http_req_t *r)
{
    return ((gw_t *)http_app(r))->ui_dir;
}

bool gw_valid_id(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > ID_MAX) return false;
    for (; *s; s++) {
        char ch = *s;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_'))
            return false;
    }
    return true;
}

void gw_send_error(http_req_t *r, int status, const char *code, const char *msg)
{
    http_reply_t rep;
    http_reply_error(&rep, status, code, "%s", msg);
    http_send(r, &rep);
}

/* Takes the {} parameter i as the id of a `what`, or answers 404 (an id
 * that cannot exist is an unknown id). Returns false when it answered. */
bool gw_take_id(http_req_t *r, int i, const char *what, id_arg_t *out)
{
    const char *id = http_param(r, i);
    if (!gw_valid_id(id)) {
        http_reply_t rep;
        http_reply_error(&rep, 404, "not_found", "no %s '%.*s'", what, ID_MAX, id);
        http_send(r, &rep);
        return false;
    }
    snprintf(out->id, sizeof out->id, "%s", id);
    return true;
}

/* ---- GET /api/v1/health ------------------------------------------------- */

static void job_health(void *state, void *arg, http_reply_t *out)
{
    conns_t *c = state;
    char pe[256] = "", re[256] = "";
    int pg = db_ping(c->db, pe, sizeof pe);
    int rd = c->rq ? rq_ping(c->rq, re, sizeof re) : -1;
    if (!c->rq) snprintf(re, sizeof re, "bad redis URL");
    if (pg == 0 && rd == 0) {
        http_reply_json(
            out, 200, json_pack("{s:s,s:s,s:s}", "status", "ok", "postgres", "ok", "redis", "ok"));
        return;
    }
    http_reply_error(out, 503, "unavailable", "%s%s%s%s%s", pg ? "postgres: " : "", pg ? pe : "",
                     pg && rd ? "; " : "", rd ? "redis: " : "", rd ? re : "");
}

static void h_health(http_req_t *r)
{
    http_defer(r, job_health, NULL, 0);
}

/* ---- sessions ----------------------------------------------------------- */

typedef struct create_arg {
    bool has_name;
    char name[NAME_MAX_BYTES + 1];
} create_arg_t;

static void job_create_session(void *state, void *arg, http_reply_t *out)
{
    conns_t *c = state;
    create_arg_t *a = arg;
    char err[512];
    const char *params[] = {a->has_name ? a->name : NULL};
    PGresult *res = db_query(c->db, "INSERT INTO sessions (name) VALUES ($1) RETURNING id", 1,
                             params, err, sizeof err);
    if (!res) {
        gw_reply_db_error(out, c, "creating a session", err);
        return;
    }
    http_reply_json(out, 201, json_pack("{s:s}", "session_id", PQgetvalue(res, 0, 0)));
    PQclear(res);
}

/* Body: empty, or a JSON object with an optional "name" string. */
static void h_create_session(http_req_t *r)
{
    size_t len;
    const char *body = http_body(r, &len);
    create_arg_t a = {0};
    if (len > SESSION_BODY_MAX) {
        gw_send_error(r, 413, "body_too_large", "a session body is at most 64 KiB");
        return;
    }
    size_t i = 0;
    while (i < len && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r' || body[i] == '\t'))
        i++;
    if (i < len) {
        json_error_t je;
        json_t *doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
        if (!doc) {
            char msg[300];
            snprintf(msg, sizeof msg, "body is not JSON: %s at line %d column %d", je.text, je.line,
                     je.column);
            gw_send_error(r, 400, "invalid_json", msg);
            return;
        }
        const char *key;
        json_t *v;
        const char *bad = NULL;
        if (!json_is_object(doc)) bad = "body must be a JSON object";
        json_object_foreach(json_is_object(doc) ? doc : NULL, key, v)
        {
            if (strcmp(key, "name") != 0) {
                bad = "unknown field in the session body (only \"name\")";
            } else if (json_is_string(v)) {
                if (json_string_length(v) > NAME_MAX_BYTES)
                    bad = "\"name\" is longer than 256 bytes";
                else {
                    a.has_name = true;
                    snprintf(a.name, sizeof a.name, "%s", json_string_value(v));
                }
            } else if (!json_is_null(v)) {
                bad = "\"name\" must be a string";
            }
        }
        json_decref(doc);
        if (bad) {
            gw_send_error(r, 400, "invalid_request", bad);
            return;
        }
    }
    http_defer(r, job_create_session, &a, sizeof a);
}

static void job_list_sessions(void *state, void *arg, http_reply_t *out)
{
    reply_query_json(out, state, "listing sessions",
                     "SELECT json_build_object('sessions', coalesce(json_agg(json_build_object("
                     " 'session_id', s.id, 'name', s.name, 'created_at', " RFC3339(
                         "s.created_at") ") ORDER BY s.created_at, s.id), '[]'::json))::text"
                                         " FROM (SELECT * FROM sessions ORDER BY created_at DESC, "
                                         "id DESC LIMIT " LIST_MAX ") s",
                     0, NULL);
}

static void h_list_sessions(http_req_t *r)
{
    http_defer(r, job_list_sessions, NULL, 0);
}

static void job_get_session(void *state, void *arg, http_reply_t *out)
{
    conns_t *c = state;
    id_arg_t *a = arg;
    char err[512];
    const char *params[] = {a->id};
    PGresult *res =
        db_query(c->db,
                 "SELECT json_build_object('session_id', s.id, 'name', s.name,"
                 " 'created_at', " RFC3339("s.created_at") ","
                                                           " 'tasks', (SELECT count(*) FROM tasks "
                                                           "t WHERE t.session_id = s.id))::text"
                                                           " FROM sessions s WHERE s.id = $1",
                 1, params, err, sizeof err);
    if (!res) {
        gw_reply_db_error(out, c, "reading a session", err);
        return;
    }
    if (PQntuples(res) == 0)
        http_reply_error(out, 404, "not_found", "no session '%s'", a->id);
    else
        http_reply_json_text(out, 200, PQgetvalue(res, 0, 0));
    PQclear(res);
}

static void h_get_session(http_req_t *r)
{
    id_arg_t a;
    if (gw_take_id(r, 0, "session", &a)) http_defer(r, job_get_session, &a, sizeof a);
}

/* ---- tasks -------------------------------------------------------------- */

static void job_list_tasks(void *state, void *arg, http_reply_t *out)
{
    conns_t *c = state;
    id_arg_t *a = arg;
    char err[512];
    const char *params[] = {a->id};
    PGresult *res = db_query(c->db,
                             "SELECT EXISTS (SELECT 1 FROM sessions WHERE id = $1),"
                             " json_build_object('tasks', coalesce(json_agg(" GW_TASK_JSON
                             " ORDER BY t.submitted_at, t.id), '[]'::json))::text"
                             " FROM (SELECT * FROM tasks WHERE session_id = $1"
                             "       ORDER BY submitted_at DESC, id DESC LIMIT " LIST_MAX ") t",
                             1, params, err, sizeof err);
    if (!res) {
        gw_reply_db_error(out, c, "listing tasks", err);
        return;
    }
    if (strcmp(PQgetvalue(res, 0, 0), "t") != 0)
        http_reply_error(out, 404, "not_found", "no session '%s'", a->id);
    else
        http_reply_json_text(out, 200, PQgetvalue(res, 0, 1));
    PQclear(res);
}

static void h_list_tasks(http_req_t *r)
{
    id_arg_t a;
    if (gw_take_id(r, 0, "session", &a)) http_defer(r, job_list_tasks, &a, sizeof a);
}

/* ---- workers and supervisors -------------------------------------------- */

/* Status from the age of the last heartbeat (thresholds in proto.h). */
#define STATUS_SQL                                                                                 \
    "CASE WHEN x.status = 'stopped' OR now() - x.last_heartbeat > $2::int * interval '1 ms'"       \
    " THEN 'dead' WHEN now() - x.last_heartbeat > $1::int * interval '1 ms' THEN 'suspect'"        \
    " ELSE 'alive' END"

static void status_params(char suspect[16], char dead[16])
{
    snprintf(suspect, 16, "%d", PROTO_SUSPECT_MS);
    snprintf(dead, 16, "%d", PROTO_DEAD_MS);
}

static void job_list_workers(void *state, void *arg, http_reply_t *out)
{
    char s[16], d[16];
    status_params(s, d);
    const char *params[] = {s, d};
    reply_query_json(out, state, "listing workers",
                     "SELECT json_build_object('workers', coalesce(json_agg(json_build_object("
                     " 'id', x.id, 'address', x.address, 'status', " STATUS_SQL ","
                     " 'n_cpu', x.n_cpu, 'cpu_usage', x.cpu_usage, 'memory_used', x.memory_used,"
                     " 'memory_limit', x.memory_limit, 'cache_used', x.cache_used,"
                     " 'cuda_devices', x.cuda_devices, 'gpus', x.gpus,"
                     " 'chunks_running', x.chunks_running,"
                     " 'chunks_done', x.chunks_done, 'last_heartbeat', " RFC3339(
                         "x.last_heartbeat") ") ORDER BY x.started_at, x.id), '[]'::json))::text"
                                             " FROM (SELECT * FROM workers ORDER BY started_at "
                                             "DESC, id DESC LIMIT " LIST_MAX ") x",
                     2, params);
}

static void h_list_workers(http_req_t *r)
{
    http_defer(r, job_list_workers, NULL, 0);
}

static void job_list_supervisors(void *state, void *arg, http_reply_t *out)
{
    char s[16], d[16];
    status_params(s, d);
    const char *params[] = {s, d};
    reply_query_json(
        out, state, "listing supervisors",
        "SELECT json_build_object('supervisors', coalesce(json_agg(json_build_object("
        " 'id', x.id, 'address', x.address, 'status', " STATUS_SQL ","
        " 'started_at', " RFC3339(
            "x.started_at") ","
                            " 'last_heartbeat', " RFC3339(
                                "x.last_heartbeat") ","
                                                    " 'tasks', coalesce((SELECT json_agg(t.id "
                                                    "ORDER BY t.submitted_at, t.id)"
                                                    "   FROM tasks t WHERE t.owner_id = x.id AND "
                                                    "t.status IN ('pending', 'running')),"
                                                    "   '[]'::json)"
                                                    ") ORDER BY x.started_at, x.id), "
                                                    "'[]'::json))::text"
                                                    " FROM (SELECT * FROM supervisors ORDER BY "
                                                    "started_at DESC, id DESC LIMIT " LIST_MAX
                                                    ") x",
        2, params);
}

static void h_list_supervisors(http_req_t *r)
{
    http_defer(r, job_list_supervisors, NULL, 0);
}

/* ---- GET /api/v1/ops ---------------------------------------------------- */

/* The engine's op list (engine/graph_list.c): no I/O, answered on the loop. */
static void h_list_ops(http_req_t *r)
{
    http_reply_t rep;
    char *ops = graph_ops_json();
    if (!ops) {
        http_reply_error(&rep, 500, "internal", "out of memory listing the ops");
    } else {
        http_reply_json_text(&rep, 200, ops);
        free(ops);
    }
    http_send(r, &rep);
}

/* ---- the table ---------------------------------------------------------- */

static const http_route_t ROUTES[] = {
    {"GET", "/health", http_handle_health},
    {"GET", "/metrics", http_handle_metrics},
    {"GET", "/api/v1/health", h_health},
    {"POST", "/api/v1/sessions", h_create_session},
    {"GET", "/api/v1/sessions", h_list_sessions},
    {"GET", "/api/v1/sessions/{}", h_get_session},
    {"DELETE", "/api/v1/sessions/{}", gw_h_delete_session},
    {"GET", "/api/v1/sessions/{}/tasks", h_list_tasks},
    {"POST", "/api/v1/sessions/{}/tasks", gw_h_submit_task},
    {"GET", "/api/v1/sessions/{}/tasks/{}", gw_h_get_task},
    {"DELETE", "/api/v1/sessions/{}/tasks/{}", gw_h_cancel_task},
    {"POST", "/api/v1/sessions/{}/tensors", gw_h_upload_tensor},
    {"GET", "/api/v1/sessions/{}/tensors/{}", gw_h_get_tensor},
    {"GET", "/api/v1/sessions/{}/tensors/{}/data", gw_h_tensor_data},
    {"PUT", "/api/v1/files/{}", gw_h_put_file},
    {"GET", "/api/v1/workers", h_list_workers},
    {"GET", "/api/v1/supervisors", h_list_supervisors},
    {"GET", "/api/v1/ops", h_list_ops},
    /* the dashboard: its files, and what its pages read (dash.c) */
    {"GET", "/api/v1/tasks", gw_h_recent_tasks},
    {"GET", "/api/v1/cluster", gw_h_cluster},
    {"GET", "/api/v1/workers/{}", gw_h_worker},
    {"GET", "/api/v1/sessions/{}/tasks/{}/graph", gw_h_task_graph},
    {"GET", "/api/v1/sessions/{}/tasks/{}/chunks", gw_h_task_chunks},
    {"GET", "/", gw_h_ui_index},
    {"GET", "/assets/{}", gw_h_ui_asset},
};

int gw_start(const gw_opts_t *o, gw_t **out, char *err, size_t errlen)
{
    gw_t *g = calloc(1, sizeof *g);
    if (!g) abort();
    g->pg_dsn = strdup(o->pg_dsn ? o->pg_dsn : "");
    g->redis_url = strdup(o->redis_url ? o->redis_url : "");
    if (!g->pg_dsn || !g->redis_url) abort();
    g->max_body = (size_t)o->max_body;
    g->quota = o->quota;
    snprintf(g->token, sizeof g->token, "%s", o->token ? o->token : "");
    if (gw_ui_find(o->ui_dir, g->ui_dir, sizeof g->ui_dir))
        log_warning("no dashboard files (ui/dist) beside the program: GET / answers 503;"
                    " build them with `make` or give --ui-dir");
    http_opts_t ho = {
        .name = "gateway",
        .host = o->host,
        .port = o->port,
        .n_loops = GW_DEFAULT_LOOPS,
        .max_body = (size_t)o->max_body,
        .routes = ROUTES,
        .n_routes = (int)(sizeof ROUTES / sizeof ROUTES[0]),
        .app = g,
        .token = o->token,
        .metrics = o->metrics,
        .n_workers = GW_DEFAULT_DB_THREADS,
        .n_stream_workers = GW_DEFAULT_STREAM_THREADS,
        .worker_init = conns_open,
        .worker_close = conns_close,
    };
    if (http_server_start(&ho, &g->http, err, errlen)) {
        gw_free(g);
        return -1;
    }
    g->wake = taskwake_start(g->pg_dsn, g->http);
    if (!g->wake) log_warning("no task-end listener: long polls answer on their 100 ms turns");
    *out = g;
    return 0;
}

int gw_port(const gw_t *g)
{
    return http_server_port(g->http);
}

void gw_free(gw_t *g)
{
    if (!g) return;
    taskwake_stop(g->wake);
    http_server_free(g->http);
    free(g->pg_dsn);
    free(g->redis_url);
    free(g);
}
