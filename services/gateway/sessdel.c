/* sessdel.c: DELETE /api/v1/sessions/{sid}: the session's rows, and every
 * chunk its tasks and tensors left in Redis and on the workers. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gateway_internal.h"
#include "log.h"
#include "msg.h"

#define LOG_MODULE "gateway"

/* ---- DELETE /api/v1/sessions/{sid} --------------------------------------- */

/* The chunks of a task that workers hold: a free message to each holder
 * (mars:loc:<tid> says who), then the location hash. */
static void free_task_locs(rq_t *rq, const char *tid)
{
    char err[256];
    redisReply *r = rq_command(rq, err, sizeof err, "HGETALL " MSG_LOC "%s", tid);
    if (!r) {
        log_warning("freeing the chunks of task %s: %s", tid, err);
        return;
    }
    int n = 0;
    for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i + 1 < r->elements; i += 2) {
        const char *job = r->element[i]->str, *loc = r->element[i + 1]->str;
        if (!job || !loc || msg_loc_inline(loc)) continue;
        if (rq_append(rq, err, sizeof err, "RPUSH " MSG_FREE "%s chunk:%s:%s", loc, tid, job))
            break;
        n++;
    }
    freeReplyObject(r);
    if (rq_append(rq, err, sizeof err, "DEL " MSG_LOC "%s", tid) == 0) n++;
    if (n && rq_flush(rq, err, sizeof err))
        log_warning("freeing the chunks of task %s: %s", tid, err);
}

/* Every chunk:<tid>:* key of a task (SCAN, bounded batches). */
static int del_task_chunks(rq_t *rq, const char *tid, char *err, size_t errlen)
{
    char pattern[128], cursor[32] = "0";
    snprintf(pattern, sizeof pattern, "chunk:%s:*", tid);
    do {
        redisReply *rr =
            rq_command(rq, err, errlen, "SCAN %s MATCH %s COUNT 1000", cursor, pattern);
        if (!rr) return -1;
        if (rr->type != REDIS_REPLY_ARRAY || rr->elements != 2) {
            snprintf(err, errlen, "unexpected SCAN reply");
            freeReplyObject(rr);
            return -1;
        }
        snprintf(cursor, sizeof cursor, "%s", rr->element[0]->str);
        redisReply *ks = rr->element[1];
        char **keys = malloc(sizeof *keys * (ks->elements ? ks->elements : 1));
        if (!keys) abort();
        for (size_t i = 0; i < ks->elements; i++)
            keys[i] = ks->element[i]->str;
        gw_del_keys(rq, keys, (int64_t)ks->elements);
        free(keys);
        freeReplyObject(rr);
    } while (strcmp(cursor, "0") != 0);
    return 0;
}

static void job_delete_session(void *state, void *arg, http_reply_t *out)
{
    conns_t *c = state;
    id_arg_t *a = arg;
    char err[512];
    const char *params[] = {a->id};
    /* One statement: the keys and tasks as they were, and the rows gone
     * (tasks, chunks, events and tensors go with the session: ON DELETE
     * CASCADE). A supervisor running one of its tasks finds the task gone. */
    PGresult *res =
        db_query(c->db,
                 "WITH k AS (SELECT coalesce(json_agg(x), '[]') AS keys FROM tensors t,"
                 "           unnest(t.chunk_keys) x WHERE t.session_id = $1),"
                 " tk AS (SELECT coalesce(json_agg(json_build_array(id, status)), '[]') AS tasks"
                 "        FROM tasks WHERE session_id = $1),"
                 " d AS (DELETE FROM sessions WHERE id = $1 RETURNING id)"
                 " SELECT (SELECT count(*) FROM d), k.keys::text, tk.tasks::text FROM k, tk",
                 1, params, err, sizeof err);
    if (!res) {
        gw_reply_db_error(out, c, "deleting a session", err);
        return;
    }
    if (strcmp(PQgetvalue(res, 0, 0), "0") == 0) {
        http_reply_error(out, 404, "not_found", "no session '%s'", a->id);
        PQclear(res);
        return;
    }
    json_t *keys = json_loads(PQgetvalue(res, 0, 1), 0, NULL);
    json_t *tasks = json_loads(PQgetvalue(res, 0, 2), 0, NULL);
    PQclear(res);
    *out = (http_reply_t){.status = 204};
    if (c->rq && keys && tasks) {
        size_t n = json_array_size(keys);
        char **ks = malloc(sizeof *ks * (n ? n : 1));
        if (!ks) abort();
        for (size_t i = 0; i < n; i++)
            ks[i] = (char *)json_string_value(json_array_get(keys, i));
        gw_del_keys(c->rq, ks, (int64_t)n);
        free(ks);
        size_t i;
        json_t *t;
        json_array_foreach(tasks, i, t)
        {
            const char *tid = json_string_value(json_array_get(t, 0));
            const char *status = json_string_value(json_array_get(t, 1));
            if (!tid) continue;
            char key[128];
            /* An open task: tell its workers to stop (the key expires by
             * itself), then drop what it wrote. */
            if (strcmp(status, "pending") == 0 || strcmp(status, "running") == 0) {
                snprintf(key, sizeof key, "mars:task:%s:cancel", tid);
                redisReply *rr = rq_command(c->rq, err, sizeof err, "SET %s 1 EX 86400", key);
                if (rr) freeReplyObject(rr);
            }
            snprintf(key, sizeof key, "mars:plan:%s", tid);
            redisReply *rr = rq_command(c->rq, err, sizeof err, "DEL %s", key);
            if (rr) freeReplyObject(rr);
            free_task_locs(c->rq, tid);
            if (del_task_chunks(c->rq, tid, err, sizeof err))
                log_warning("session %s: freeing the chunks of task %s: %s", a->id, tid, err);
        }
    }
    json_decref(keys);
    json_decref(tasks);
}

void gw_h_delete_session(http_req_t *r)
{
    id_arg_t a;
    if (gw_take_id(r, 0, "session", &a)) http_defer(r, job_delete_session, &a, sizeof a);
}
