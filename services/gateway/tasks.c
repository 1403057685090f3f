/* tasks.c: task submission, status (with long polls) and cancellation
 * (docs in services/README.md; the protocol the supervisors and workers
 * follow is docs/cluster-protocol.md).
 *
 * Submission validates the document exactly as the owning supervisor will
 * tile it (plan_tile: graph_parse with the session's tensors, tile_build
 * with their chunk bounds), so every mistake is a 400 naming the node and
 * nothing invalid is stored. The stored document carries every random
 * node's seed, so every later re-tiling draws the same values. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "gateway_internal.h"
#include "graph.h"
#include "log.h"
#include "plan.h"
#include "svc.h"

#define LOG_MODULE "gateway"

/* The longest ?wait: five minutes keeps a forgotten client from holding a
 * connection for ever while covering any poll a dashboard or script makes. */
#define WAIT_MAX_S 300

/* ---- POST /api/v1/sessions/{sid}/tasks ---------------------------------- */

/* The document travels inside the job's argument (http_defer copies it):
 * the request may go first, and a refused job leaves nothing to free. */
typedef struct submit_arg {
    char sid[ID_MAX + 1];
    size_t len;
    char body[];
} submit_arg_t;

/* plan_t's loader: the session's tensor `key` from the tensors table. */
int gw_load_src(void *ctx, const char *key, plan_src_t *out)
{
    gw_load_ctx_t *lc = ctx;
    if (lc->db_failed) return -1;
    /* a held result of an earlier task: its length is known now (heldmat.c) */
    if (gw_materialize_held(lc->c, lc->sid, key, &lc->db_failed, lc->err, sizeof lc->err) < 0) {
        if (!lc->db_failed)
            log_warning("session %s: held result \"%s\" could not be made a tensor: %s", lc->sid,
                        key, lc->err);
        if (!lc->db_failed) {
            lc->held_failed = true;
            snprintf(lc->held_key, sizeof lc->held_key, "%s", key);
        }
        return -1;
    }
    const char *params[] = {lc->sid, key};
    PGresult *res = db_query(lc->c->db,
                             "SELECT json_build_object('shape', shape, 'dtype', dtype,"
                             " 'bounds', bounds, 'chunk_keys', chunk_keys)::text"
                             " FROM tensors WHERE session_id = $1 AND key = $2",
                             2, params, lc->err, sizeof lc->err);
    if (!res) {
        lc->db_failed = true;
        return -1;
    }
    int rc = -1;
    if (PQntuples(res) == 1) {
        json_error_t je;
        json_t *o = json_loads(PQgetvalue(res, 0, 0), 0, &je);
        char perr[256];
        snprintf(out->key, sizeof out->key, "%s", key);
        if (o && plan_src_parse(o, out, perr, sizeof perr) == 0)
            rc = 0;
        else
            log_warning("session %s: tensor \"%s\" has a bad row: %s", lc->sid, key,
                        o ? perr : je.text);
        json_decref(o);
    }
    PQclear(res);
    return rc;
}

/* Writes the seed of every random node into the document; *seeds gets
 * {key: seed} for every random node. Returns the new text (malloc'ed). */
static char *fill_seeds(const plan_t *p, json_t **seeds)
{
    json_error_t je;
    json_t *doc = json_loadb(p->doc, p->doc_len, 0, &je);
    *seeds = json_object();
    if (!doc || !*seeds) abort(); /* graph_parse accepted this very text */
    json_t *nodes = json_object_get(doc, "nodes");
    size_t i;
    json_t *n;
    json_array_foreach(nodes, i, n)
    {
        const char *key = json_string_value(json_object_get(n, "key"));
        int gi = key ? graph_find(p->g, key) : -1;
        if (gi < 0) continue;
        const graph_node_t *gn = &p->g->nodes[gi];
        if (op_kind(gn->op) != OPK_RANDOM) continue;
        /* Drawn seeds are 63-bit (graph.c): they fit a JSON int64. */
        if (!gn->has_seed) json_object_set_new(n, "seed", json_integer((json_int_t)gn->seed));
        json_object_set_new(*seeds, key, json_integer((json_int_t)gn->seed));
    }
    char *text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (!text) abort();
    return text;
}

static void job_submit(void *state, void *arg, http_reply_t *out)
{
    conns_t *c = state;
    submit_arg_t *a = arg;
    char err[1024];
    plan_t p;
    char *text = NULL;
    json_t *seeds = NULL;
    if (!gw_session_exists(out, c, a->sid)) return;
    PGresult *res;

    if (plan_init(&p, "", a->body, a->len)) {
        http_reply_error(out, 500, "internal", "out of memory");
        return;
    }
    gw_load_ctx_t lc = {.c = c, .sid = a->sid};
    p.load = gw_load_src;
    p.load_ctx = &lc;
    p.quota = c->quota;
    p.files_rq = c->rq;
    p.token = c->token;
    if (plan_tile(&p, err, sizeof err)) {
        if (lc.db_failed)
            gw_reply_db_error(out, c, "reading the session's tensors", lc.err);
        else if (lc.held_failed)
            http_reply_error(out, 500, "data_lost",
                             "input \"%s\" is a held result of an earlier task that could not "
                             "be read: %s",
                             lc.held_key, lc.err);
        else
            http_reply_error(out, 400, "invalid_graph", "%s", err);
        goto plan;
    }
    text = fill_seeds(&p, &seeds);

    const char *params[] = {a->sid, text};
    res = db_query(c->db,
                   "WITH t AS (INSERT INTO tasks (session_id, graph) VALUES ($1, $2::json)"
                   "           RETURNING id),"
                   " e AS (INSERT INTO task_events (task_id, kind) SELECT id, 'submitted' FROM t)"
                   " SELECT id, pg_notify('mars_task', id) FROM t",
                   2, params, err, sizeof err);
    if (!res) {
        if (strcmp(db_sqlstate(c->db), "23503") == 0) /* the session went meanwhile */
            http_reply_error(out, 404, "not_found", "no session '%s'", a->sid);
        else
            gw_reply_db_error(out, c, "storing the task", err);
        goto plan;
    }
    gw_wake_supervisors(c);
    http_reply_json(out, 202,
                    json_pack("{s:s,s:O}", "task_id", PQgetvalue(res, 0, 0), "seeds", seeds));
    PQclear(res);
plan:
    json_decref(seeds);
    free(text);
    plan_close(&p);
}

void gw_h_submit_task(http_req_t *r)
{
    id_arg_t sid;
    if (!gw_take_id(r, 0, "session", &sid)) return;
    graph_limits_t lim = *gw_quota(r);
    size_t len;
    const char *body = http_body(r, &len);
    if ((int64_t)len > lim.max_document_bytes) {
        char msg[128];
        snprintf(msg, sizeof msg, "a graph document is at most %lld bytes",
                 (long long)lim.max_document_bytes);
        gw_send_error(r, 413, "body_too_large", msg);
        return;
    }
    submit_arg_t *a = malloc(sizeof *a + len);
    if (!a) abort();
    memcpy(a->sid, sid.id, sizeof a->sid);
    memcpy(a->body, body, len);
    a->len = len;
    http_defer(r, job_submit, a, sizeof *a + len);
    free(a);
}

/* ---- GET /api/v1/sessions/{sid}/tasks/{tid} ------------------------------ */

typedef struct task_arg {
    char sid[ID_MAX + 1], tid[ID_MAX + 1];
    int64_t deadline_ms; /* svc_now_ms() clock; 0: answer at once */
} task_arg_t;

static int64_t now_ms(void)
{
    return svc_now_ms();
}

/* The task's JSON and status; 1 when found, 0 when not, -1 on error (out
 * filled). */
static int read_task(conns_t *c, const task_arg_t *a, http_reply_t *out, char **json,
                     char status[16])
{
    char err[512];
    const char *params[] = {a->tid, a->sid};
    PGresult *res = db_query(c->db,
                             "SELECT " GW_TASK_JSON "::text, t.status FROM tasks t"
                             " WHERE t.id = $1 AND t.session_id = $2",
                             2, params, err, sizeof err);
    if (!res) {
        gw_reply_db_error(out, c, "reading a task", err);
        return -1;
    }
    int found = PQntuples(res) == 1;
    if (found) {
        *json = strdup(PQgetvalue(res, 0, 0));
        if (!*json) abort();
        snprintf(status, 16, "%s", PQgetvalue(res, 0, 1));
    }
    PQclear(res);
    return found;
}

static bool task_open(const char *status)
{
    return strcmp(status, "pending") == 0 || strcmp(status, "running") == 0;
}

/* A long poll: status 0 leaves the answer for the next turn (http.h). */
static void job_get_task(void *state, void *arg, http_reply_t *out)
{
    conns_t *c = state;
    task_arg_t *a = arg;
    char *json = NULL, status[16];
    int found = read_task(c, a, out, &json, status);
    if (found < 0) return;
    if (!found) {
        http_reply_error(out, 404, "not_found", "no task '%s' in session '%s'", a->tid, a->sid);
        return;
    }
    if (task_open(status) && a->deadline_ms && now_ms() < a->deadline_ms) {
        free(json);
        out->status = 0;
        return;
    }
    http_reply_json_text(out, 200, json);
    free(json);
}

/* ?wait=SECONDS: a number 0..WAIT_MAX_S (fractions allowed). */
static bool parse_wait(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0 && v <= WAIT_MAX_S)) return false;
    *out = v;
    return true;
}

static bool take_task(http_req_t *r, task_arg_t *a)
{
    id_arg_t sid, tid;
    if (!gw_take_id(r, 0, "session", &sid) || !gw_take_id(r, 1, "task", &tid)) return false;
    memset(a, 0, sizeof *a);
    memcpy(a->sid, sid.id, sizeof a->sid);
    memcpy(a->tid, tid.id, sizeof a->tid);
    return true;
}

void gw_h_get_task(http_req_t *r)
{
    task_arg_t a;
    if (!take_task(r, &a)) return;
    const char *w = http_query(r, "wait");
    if (w) {
        double secs;
        if (!parse_wait(w, &secs)) {
            char msg[128];
            snprintf(msg, sizeof msg, "wait must be a number of seconds from 0 to %d", WAIT_MAX_S);
            gw_send_error(r, 400, "invalid_request", msg);
            return;
        }
        if (secs > 0) a.deadline_ms = now_ms() + (int64_t)(secs * 1000);
    }
    http_defer_poll(r, job_get_task, &a, sizeof a);
}

/* ---- DELETE /api/v1/sessions/{sid}/tasks/{tid} --------------------------- */

/* A cancel key outlives any task a supervisor could still be running: a
 * day, then Redis drops it by itself. */
#define CANCEL_KEY_TTL_S "86400"

static void job_cancel_task(void *state, void *arg, http_reply_t *out)
{
    conns_t *c = state;
    task_arg_t *a = arg;
    char err[512];
    const char *params[] = {a->tid, a->sid};
    /* A pending task nobody owns yet is cancelled here at once (a
     * supervisor's claim and this statement serialise on the row; the
     * claim only takes pending tasks). Anything else is asked to stop:
     * its owner sees cancel_requested (and the Redis key, and the NOTIFY)
     * and ends it. */
    PGresult *res = db_query(
        c->db,
        "WITH u AS (UPDATE tasks SET cancel_requested = true,"
        "   status = CASE WHEN status = 'pending' AND owner_id IS NULL THEN 'cancelled'"
        "            ELSE status END,"
        "   finished_at = CASE WHEN status = 'pending' AND owner_id IS NULL THEN now()"
        "                 ELSE finished_at END"
        " WHERE id = $1 AND session_id = $2 AND status IN ('pending', 'running')"
        " RETURNING id, status),"
        " e AS (INSERT INTO task_events (task_id, kind) SELECT id, 'cancel_requested' FROM u)"
        " SELECT u.status, pg_notify('mars_task', u.id) FROM u",
        2, params, err, sizeof err);
    if (!res) {
        gw_reply_db_error(out, c, "cancelling a task", err);
        return;
    }
    bool cancelled = PQntuples(res) == 1;
    bool ended = cancelled && strcmp(PQgetvalue(res, 0, 0), "cancelled") == 0;
    PQclear(res);
    if (ended) {
        const char *tp[] = {a->tid};
        if (db_exec(c->db, "SELECT pg_notify('mars_task_done', $1)", 1, tp, err, sizeof err))
            log_warning("cancel %s: notify: %s", a->tid, err);
    }
    char *json = NULL, status[16];
    if (cancelled) gw_wake_supervisors(c);
    if (cancelled && c->rq) {
        char key[128];
        snprintf(key, sizeof key, "mars:task:%s:cancel", a->tid);
        redisReply *rr = rq_command(c->rq, err, sizeof err, "SET %s 1 EX " CANCEL_KEY_TTL_S, key);
        if (rr)
            freeReplyObject(rr);
        else /* the row and the NOTIFY carry the request too */
            log_warning("cancel %s: %s", a->tid, err);
    }
    int found = read_task(c, a, out, &json, status);
    if (found < 0) return;
    if (!found) {
        http_reply_error(out, 404, "not_found", "no task '%s' in session '%s'", a->tid, a->sid);
        return;
    }
    if (!cancelled) {
        http_reply_error(out, 409, "conflict", "task '%s' has already ended: %s", a->tid, status);
        free(json);
        return;
    }
    http_reply_json_text(out, 200, json);
    free(json);
}

void gw_h_cancel_task(http_req_t *r)
{
    task_arg_t a;
    if (take_task(r, &a)) http_defer(r, job_cancel_task, &a, sizeof a);
}
