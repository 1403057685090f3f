/* sched_lease.c: ownership and failures: claiming tasks and renewing their
 * leases, LISTEN, dead workers (requeue and lineage), Redis data loss. */
#include "sched_internal.h"

void claim(sched_t *s)
{
    char err[512];
    for (int round = 0; round < 64; round++) { /* bounded: other work waits */
        const char *p[] = {s->id};
        PGresult *r = db_query(
            s->db,
            "WITH c AS (SELECT id, status AS old FROM tasks"
            " WHERE status = 'pending' OR (status = 'running' AND (lease_expires_at IS NULL"
            " OR lease_expires_at < now())) ORDER BY submitted_at LIMIT "
            "4"
            " FOR UPDATE SKIP LOCKED)"
            " UPDATE tasks t SET owner_id = $1, status = 'running', lease_expires_at = now()"
            " + interval '" LEASE_S "', started_at = coalesce(t.started_at, now())"
            " FROM c WHERE t.id = c.id"
            " RETURNING t.id, t.session_id, t.graph::text, c.old, t.cancel_requested",
            1, p, err, sizeof err);
        if (!r) {
            log_warning("claiming tasks: %s", err);
            return;
        }
        int nt = PQntuples(r);
        for (int i = 0; i < nt; i++) {
            const char *tid = PQgetvalue(r, i, 0);
            /* ours already (our lease lapsed for a while), or being tiled */
            if (task_find(s, tid) || tiler_has(s, tid)) continue;
            bool takeover = strcmp(PQgetvalue(r, i, 3), "running") == 0;
            if (strcmp(PQgetvalue(r, i, 4), "t") == 0) {
                const char *q[] = {tid, s->id};
                db_exec(s->db,
                        "UPDATE tasks SET status = 'cancelled', finished_at = now()"
                        " WHERE id = $1 AND owner_id = $2",
                        2, q, err, sizeof err);
                notify_done(s, tid);
                drop_plan(s, tid);
                continue;
            }
            start_task(s, tid, PQgetvalue(r, i, 1), PQgetvalue(r, i, 2),
                       takeover ? START_TAKEOVER : START_FRESH);
            flush_pushes(s);
        }
        PQclear(r);
        if (nt < CLAIM_BATCH) break;
    }
}

/* Renews our leases; tasks no longer ours are forgotten, cancelled ones end. */
void renew(sched_t *s)
{
    char err[512];
    /* Only the tasks we track (and those being tiled): one we claimed but
     * could not set up lets its lease lapse and is claimed again. */
    sbuf_t ids;
    sbuf_init(&ids);
    arr_open(&ids);
    int n_ids = 0;
    tiler_ids(s, &ids, &n_ids);
    for (stask_t *t = s->tasks; t; t = t->next)
        if (!t->revive) arr_elem(&ids, t->id), n_ids++;
    sbuf_putc(&ids, '}');
    if (n_ids == 0) {
        sbuf_close(&ids);
        return;
    }
    const char *p[] = {s->id, sbuf_str(&ids)};
    PGresult *r = db_query(s->db,
                           "UPDATE tasks SET lease_expires_at = now() + interval '" LEASE_S "'"
                           " WHERE owner_id = $1 AND status = 'running' AND id = ANY ($2::text[])"
                           " RETURNING id, cancel_requested",
                           2, p, err, sizeof err);
    sbuf_close(&ids);
    if (!r) {
        log_warning("renewing leases: %s", err);
        return;
    }
    int nt = PQntuples(r);
    for (stask_t *t = s->tasks, *next; t; t = next) {
        next = t->next;
        if (t->revive) continue;
        int found = -1;
        for (int i = 0; i < nt && found < 0; i++)
            if (strcmp(PQgetvalue(r, i, 0), t->id) == 0) found = i;
        if (found < 0) {
            /* Taken over, ended elsewhere, or deleted with its session: in
             * the last case nobody else will free its chunks. */
            const char *q[] = {t->id};
            PGresult *x =
                db_query(s->db, "SELECT 1 FROM tasks WHERE id = $1", 1, q, err, sizeof err);
            bool deleted = x && PQntuples(x) == 0;
            if (x) PQclear(x);
            log_warning("task %s is no longer ours (%s)", t->id,
                        deleted ? "deleted" : "taken over or ended elsewhere");
            if (deleted) {
                drop_plan(s, t->id);
                del_task_chunks(s, t);
                remember_ended(s, t->id);
            }
            task_unlink(s, t);
            task_free(t);
        } else if (strcmp(PQgetvalue(r, found, 1), "t") == 0) {
            end_task(s, t, NULL);
        }
    }
    PQclear(r);
}

/* Lineage: the chunks of task t that lived on dead worker wid and are
 * still needed (by a consumer that has not run, or as a result) are made
 * again by running the jobs that made them, and, recursively, the jobs
 * that made their inputs when those were freed already. Consumers queued
 * meanwhile run again (attempt + 1: what they report is stale). Returns
 * the number of chunks lost. */
int recover_lost(sched_t *s, stask_t *t, const char *wid)
{
    const tile_t *tl = t->plan.t;
    int32_t n = t->n;
    uint8_t *need = calloc((size_t)(n ? n : 1), 1);
    if (!need) abort();
    int lost = 0;
    for (int32_t j = 0; j < n; j++) {
        if (!tile_job_is_live(tl, j) || tile_job_is_source(tl, j) || t->st[j] != S_DONE ||
            t->inl[j] || !t->worker[j] || strcmp(t->worker[j], wid) != 0)
            continue;
        if (t->uses[j] > 0 || kept(t, j)) {
            need[j] = 1;
            lost++;
        } else { /* consumed already: gone with its worker, nobody minds */
            t->st[j] = S_FREED;
            mark(t, j);
        }
    }
    if (lost == 0) {
        free(need);
        return 0;
    }
    /* inputs come before their consumers in job order */
    for (int32_t j = n - 1; j >= 0; j--) {
        if (!need[j]) continue;
        for (int32_t k = t->dep_off[j]; k < t->dep_off[j + 1]; k++)
            if (t->st[t->deps[k]] == S_FREED) need[t->deps[k]] = 1;
    }
    for (int32_t j = 0; j < n; j++) {
        if (!need[j]) continue;
        t->st[j] = S_WAIT;
        t->attempt[j]++;
        free(t->worker[j]);
        t->worker[j] = NULL;
        t->inl[j] = 0;
        char num[16];
        snprintf(num, sizeof num, "%d", (int)j);
        strlist_add(&t->hdel, num);
        mark(t, j);
        for (int32_t k = t->con_off[j]; k < t->con_off[j + 1]; k++) {
            int32_t c = t->cons[k];
            if (t->st[c] != S_QUEUED) continue;
            t->st[c] = S_WAIT;
            t->attempt[c]++;
            unplace(s, t, c);
            mark(t, c);
        }
    }
    free(need);
    /* counts from scratch: rare, and simpler to get right */
    t->n_done = 0;
    for (int32_t j = 0; j < n; j++) {
        if (!tile_job_is_live(tl, j)) continue;
        if (t->st[j] == S_DONE || t->st[j] == S_FREED) t->n_done++;
        t->waiting[j] = t->uses[j] = 0;
        for (int32_t k = t->dep_off[j]; k < t->dep_off[j + 1]; k++)
            if (t->st[t->deps[k]] != S_DONE) t->waiting[j]++;
        for (int32_t k = t->con_off[j]; k < t->con_off[j + 1]; k++)
            if (t->st[t->cons[k]] == S_WAIT || t->st[t->cons[k]] == S_QUEUED) t->uses[j]++;
    }
    for (int32_t j = 0; j < n; j++)
        if (tile_job_is_live(tl, j) && t->st[j] == S_WAIT && t->waiting[j] == 0) push_job(s, t, j);
    t->progress_dirty = true;
    return lost;
}

/* A dead worker's queue goes to mars:jobs, for any worker. */
static const char DRAIN_SCRIPT[] = "local n = 0"
                                   " while redis.call('LMOVE', KEYS[1], KEYS[2], 'RIGHT', 'LEFT')"
                                   " do n = n + 1 end"
                                   " redis.call('SREM', 'mars:wq', ARGV[1])"
                                   " return n";

/* Everything a dead worker held: its queue, its running jobs, its chunks. */
void worker_dead(sched_t *s, const char *wid)
{
    char err[512];
    redisReply *l = rq_command(s->rq, err, sizeof err, "EVAL %s 2 " MSG_WJOBS "%s " MSG_JOBS " %s",
                               DRAIN_SCRIPT, wid, wid);
    if (l) freeReplyObject(l);
    int w = wk_find(s, wid);
    if (w < 0) w = wk_add(s, wid, 1);
    s->wk[w].alive = false;
    if (s->wk[w].lost_done) return;
    s->wk[w].lost_done = true;
    for (stask_t *t = s->tasks; t; t = t->next) {
        int lost = recover_lost(s, t, wid);
        if (lost) {
            log_warning("task %s: %d chunks lost with worker %s: recomputing them from their "
                        "lineage",
                        t->id, lost, wid);
            metrics_counter_add(s->m_requeued, lost);
        }
    }
}

/* Jobs on the processing lists of dead workers go back on the queue with
 * attempt+1. Each supervisor takes only its own tasks' messages (LREM
 * decides who got one). Then the chunks they held are made again. */
void requeue_dead(sched_t *s)
{
    char err[512], secs[32];
    if (!s->tasks) return;
    snprintf(secs, sizeof secs, "%.3f", s->worker_timeout_ms / 1000.0);
    const char *p[] = {secs};
    PGresult *r = db_query(s->db,
                           "SELECT id FROM workers WHERE (last_heartbeat < now() -"
                           " make_interval(secs => $1::float8) OR status = 'stopped')"
                           " AND last_heartbeat > now() - interval '1 day'"
                           " ORDER BY last_heartbeat DESC LIMIT 1000",
                           1, p, err, sizeof err);
    if (!r) {
        log_warning("looking for dead workers: %s", err);
        return;
    }
    for (int i = 0; i < PQntuples(r); i++) {
        const char *wid = PQgetvalue(r, i, 0);
        redisReply *l = rq_command(s->rq, err, sizeof err, "LRANGE mars:processing:%s 0 -1", wid);
        if (!l) continue;
        for (size_t k = 0; l->type == REDIS_REPLY_ARRAY && k < l->elements; k++) {
            const char *m = l->element[k]->str;
            char tid[72];
            int32_t job;
            int attempt;
            if (!m || msg_job_parse(m, tid, sizeof tid, &job, &attempt)) continue;
            stask_t *t = task_find(s, tid);
            if (!t) continue;
            redisReply *x =
                rq_command(s->rq, err, sizeof err, "LREM mars:processing:%s 1 %s", wid, m);
            bool mine = x && x->type == REDIS_REPLY_INTEGER && x->integer == 1;
            if (x) freeReplyObject(x);
            if (!mine || job >= t->n || t->st[job] != S_QUEUED || t->attempt[job] != attempt)
                continue;
            if (++t->lost[job] >= s->max_attempts) {
                /* The job more likely kills its workers than meets bad luck. */
                char what[512], msg[1200];
                job_label(t, job, what, sizeof what);
                snprintf(msg, sizeof msg,
                         "%s: its worker died while running it %d times (attempts %d to %d, the "
                         "last on worker %s); the task fails rather than lose more workers "
                         "(--max-attempts %d)",
                         what, (int)t->lost[job], attempt - (int)t->lost[job] + 1, attempt, wid,
                         s->max_attempts);
                end_task(s, t, msg);
                continue;
            }
            t->attempt[job]++;
            push_job(s, t, job);
            metrics_counter_inc(s->m_requeued);
            log_info("job %s of dead worker %s queued again (attempt %d)", m, wid, t->attempt[job]);
        }
        freeReplyObject(l);
        worker_dead(s, wid);
    }
    PQclear(r);
}

/* Redis lost its data (restarted without persistence, flushed): the queue,
 * the processing lists, the plans and the chunks of our tasks are gone.
 * mars:sentinel:<id> tells: we write it once and never delete it while we
 * run, so finding it absent means Redis forgot. Every task we run is then
 * set up again as on a takeover, from PostgreSQL: plans written anew, done
 * chunks that still exist kept, the rest queued again with a higher
 * attempt (completions of the lost dispatches are stale). Jobs reading
 * data that existed only in Redis (uploads, earlier results) then fail
 * their task with an error naming the missing chunk.
 *
 * Looked at every tick, before a task is declared done (its chunks must
 * still be there), and before an error completion fails a task (a job
 * released just before the loss finds its inputs gone). Returns 1 when
 * the loss is found (the rebuild then happens at the top of the loop),
 * 0 when Redis still holds our sentinel, -1 when Redis does not answer. */
int redis_lost(sched_t *s)
{
    char err[256];
    if (s->lost_pending) return 1;
    redisReply *r = rq_command(s->rq, err, sizeof err, "SET mars:sentinel:%s 1 NX", s->id);
    if (!r) return -1; /* Redis away: looked at again later */
    bool created = r->type == REDIS_REPLY_STATUS;
    freeReplyObject(r);
    if (!created) return 0;
    if (!s->sentinel_set) {
        s->sentinel_set = true;
        return 0;
    }
    s->lost_pending = true;
    return 1;
}

/* Sets our tasks up again after redis_lost found the loss (at the top of
 * the loop: no task is being walked then). */
void rebuild_after_loss(sched_t *s)
{
    s->lost_pending = false;
    int n = 0;
    for (stask_t *t = s->tasks; t; t = t->next)
        n++;
    log_warning("Redis lost its data: setting up our %d running tasks again from PostgreSQL", n);
    metrics_counter_inc(s->m_redis_lost);
    /* Pushes not sent yet belong to the lost queue: the set-up below makes
     * its own. */
    strlist_clear(&s->push);
    strlist_clear(&s->dels);
    strlist_clear(&s->locs);
    for (int w = 0; w < s->n_wk; w++) {
        strlist_clear(&s->wk[w].push);
        s->wk[w].outstanding = 0;
    }
    s->n_delayed = 0;
    typedef struct {
        char id[72], session[72];
        char *doc;
    } redo_t;
    redo_t *redo = calloc((size_t)(n ? n : 1), sizeof *redo);
    if (!redo) abort();
    int k = 0;
    while (s->tasks) {
        stask_t *t = s->tasks;
        flush_rows(s, t); /* attempts in PostgreSQL are what the set-up raises */
        snprintf(redo[k].id, sizeof redo[k].id, "%s", t->id);
        snprintf(redo[k].session, sizeof redo[k].session, "%s", t->session);
        redo[k].doc = strdup(t->plan.doc);
        if (!redo[k].doc) abort();
        k++;
        task_unlink(s, t);
        task_free(t);
    }
    for (int i = 0; i < k; i++) {
        /* One that cannot be set up now (Redis flapping) is not tracked:
         * its lease lapses and claim() takes it over again. */
        start_task(s, redo[i].id, redo[i].session, redo[i].doc, START_TAKEOVER);
        flush_pushes(s);
        free(redo[i].doc);
    }
    free(redo);
}

/* ---- LISTEN ---------------------------------------------------------------- */

void listen_open(sched_t *s)
{
    if (s->listen && PQstatus(s->listen) == CONNECTION_OK) return;
    if (svc_now_ms() < s->listen_retry_ms) return;
    if (s->listen) PQfinish(s->listen);
    s->listen = PQconnectdb(s->dsn);
    PGresult *r = NULL;
    if (PQstatus(s->listen) == CONNECTION_OK) r = PQexec(s->listen, "LISTEN mars_task");
    if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
        log_warning("LISTEN mars_task: %s (polling meanwhile)", PQerrorMessage(s->listen));
        PQfinish(s->listen);
        s->listen = NULL;
        s->listen_retry_ms = svc_now_ms() + 5000;
    }
    if (r) PQclear(r);
}

/* True when a notification came (a submission or a cancel). */
bool listen_poll(sched_t *s)
{
    listen_open(s);
    if (!s->listen) return false;
    if (!PQconsumeInput(s->listen)) {
        PQfinish(s->listen);
        s->listen = NULL;
        return true; /* look at the table now: we may have missed some */
    }
    bool any = false;
    PGnotify *nf;
    while ((nf = PQnotifies(s->listen))) {
        any = true;
        PQfreemem(nf);
    }
    return any;
}
