/* sched_task.c: a task's state machine: set-up (fresh, takeover, revive),
 * completions (ok, err, retry), success, failure and cancellation. */
#include "sched_internal.h"

/* Frees every chunk this task stored (not the session tensors' it read)
 * and its location hash. Chunks still being computed are left to the
 * workers' collection. */
void del_task_chunks(sched_t *s, stask_t *t)
{
    char err[256];
    for (int32_t j = 0; j < t->n; j++)
        if (tile_job_is_live(t->plan.t, j) && !tile_job_is_source(t->plan.t, j) &&
            t->st[j] == S_DONE)
            free_job(s, t, j);
    strlist_clear(&t->hdel);
    redisReply *r = rq_command(s->rq, err, sizeof err, "DEL " MSG_LOC "%s", t->id);
    if (r) freeReplyObject(r);
    flush_pushes(s);
}

void end_task(sched_t *s, stask_t *t, const char *msg)
{
    char err[512];
    if (t->revive) {
        end_revive(s, t, msg);
        return;
    }
    flush_rows(s, t);
    const char *p[] = {t->id, s->id, msg};
    if (db_exec(s->db,
                msg ? "UPDATE tasks SET status = 'failed', error = $3, finished_at = now()"
                      " WHERE id = $1 AND owner_id = $2 AND status IN ('pending', 'running')"
                    : "UPDATE tasks SET status = 'cancelled', finished_at = now()"
                      " WHERE id = $1 AND owner_id = $2 AND status IN ('pending', 'running')",
                msg ? 3 : 2, p, err, sizeof err))
        log_warning("task %s: ending: %s", t->id, err);
    notify_done(s, t->id);
    drop_plan(s, t->id);
    del_task_chunks(s, t);
    remember_ended(s, t->id);
    metrics_counter_inc(msg ? s->m_tasks_failed : s->m_tasks_cancelled);
    log_info("task %s %s%s%s", t->id, msg ? "failed: " : "cancelled", msg ? msg : "", "");
    task_unlink(s, t);
    task_free(t);
}

/* Every live job done: the fetched nodes become the session's tensors. */
void finish_task(sched_t *s, stask_t *t)
{
    char err[1024];
    if (t->revive) {
        end_revive(s, t, NULL);
        return;
    }
    const graph_t *g = t->plan.g;
    if (flush_rows(s, t)) return; /* retried next turn */
    /* Chunks lost with Redis would make a success that holds nothing. */
    if (redis_lost(s) != 0) return;
    sbuf_t keys, bounds, orphans;
    sbuf_init(&keys);
    sbuf_init(&bounds);
    sbuf_init(&orphans);
    arr_open(&orphans);
    int rc = db_exec(s->db, "BEGIN", 0, NULL, err, sizeof err);
    for (int f = 0; f < g->n_fetch && rc == 0; f++)
        rc = tensor_row(s, t, f, &keys, &bounds, &orphans, err, sizeof err);
    sbuf_putc(&orphans, '}');
    PGresult *orph = NULL;
    if (rc == 0) {
        char total[24];
        snprintf(total, sizeof total, "%lld", (long long)t->n_done);
        const char *p[] = {t->id, s->id, total};
        PGresult *r = db_query(s->db,
                               "UPDATE tasks SET status = 'succeeded', finished_at = now(),"
                               " chunks_done = $3 WHERE id = $1 AND owner_id = $2"
                               " AND status = 'running'",
                               3, p, err, sizeof err);
        if (!r)
            rc = -1;
        else
            PQclear(r);
    }
    if (rc == 0) {
        /* Replaced tensors' chunks that no tensor references any more. */
        const char *p[] = {sbuf_str(&orphans)};
        orph = db_query(s->db,
                        "SELECT k FROM unnest($1::text[]) AS k WHERE NOT EXISTS"
                        " (SELECT 1 FROM tensors WHERE chunk_keys @> ARRAY[k])",
                        1, p, err, sizeof err);
        if (!orph) rc = -1;
    }
    if (rc == 0) {
        const char *p[] = {t->id};
        rc = db_exec(s->db, "SELECT pg_notify('mars_task_done', $1)", 1, p, err, sizeof err);
    }
    if (rc == 0) rc = db_exec(s->db, "COMMIT", 0, NULL, err, sizeof err);
    if (rc) {
        char e2[256];
        db_exec(s->db, "ROLLBACK", 0, NULL, e2, sizeof e2);
        log_warning("task %s: recording its end: %s (retried)", t->id, err);
        if (orph) PQclear(orph);
        sbuf_close(&keys);
        sbuf_close(&bounds);
        sbuf_close(&orphans);
        return;
    }
    int no = PQntuples(orph);
    char **ok = malloc(sizeof(char *) * (size_t)(no ? no : 1));
    for (int i = 0; ok && i < no; i++)
        ok[i] = PQgetvalue(orph, i, 0);
    if (ok) free_keys_lookup(s, ok, no);
    free(ok);
    PQclear(orph);
    drop_plan(s, t->id);
    sbuf_close(&keys);
    sbuf_close(&bounds);
    sbuf_close(&orphans);
    metrics_counter_inc(s->m_tasks_ok);
    log_info("task %s succeeded: %lld chunks", t->id, (long long)t->n_live);
    task_unlink(s, t);
    task_free(t);
}

/* A job finished: successors may run, inputs may be freed. */
void job_done(sched_t *s, stask_t *t, int32_t j, const msg_done_t *d)
{
    t->st[j] = S_DONE;
    t->nbytes[j] = d->nbytes;
    t->run[j] = d->slot >= 0 && d->t0 > 0 && d->t1 >= d->t0 ? (jrun_t){d->t0, d->t1, d->slot}
                                                            : (jrun_t){0, 0, -1};
    t->retries[j] = 0;
    unplace(s, t, j);
    set_location(s, t, j, d->worker, d->inline_data);
    t->n_done++;
    t->progress_dirty = true;
    mark(t, j);
    for (int32_t k = t->con_off[j]; k < t->con_off[j + 1]; k++) {
        int32_t c = t->cons[k];
        if (--t->waiting[c] == 0 && t->st[c] == S_WAIT) push_job(s, t, c);
    }
    for (int32_t k = t->dep_off[j]; k < t->dep_off[j + 1]; k++) {
        int32_t x = t->deps[k];
        if (--t->uses[x] == 0 && !kept(t, x) && t->st[x] == S_DONE) {
            free_job(s, t, x);
            t->st[x] = S_FREED;
            if (!t->quiet) mark(t, x); /* quiet: written only with its done */
        }
    }
}

/* A completion for a task we do not run stored chunk:<tid>:<job> on its
 * worker (or inline). If the task has ended and no tensor holds that
 * chunk, nothing will ever read or free it: free it. A task running under
 * another owner (ours lapsed) keeps it: the same bytes, maybe read
 * already. Rare (a worker that outlived its job's requeue), so one
 * statement per case is fine. */
void zombie_of_ended(sched_t *s, const msg_done_t *d)
{
    char key[KEY_MAX], err[256];
    msg_chunk_key(key, sizeof key, d->tid, d->job);
    if (recently_ended(s, d->tid)) { /* failed or cancelled here: nothing kept */
        free_at(s, key, d->worker, d->inline_data);
        return;
    }
    const char *p[] = {d->tid, key};
    PGresult *r = db_query(s->db,
                           "SELECT 1 FROM tasks t WHERE t.id = $1 AND t.status IN ('succeeded',"
                           " 'failed', 'cancelled') AND NOT EXISTS (SELECT 1 FROM tensors"
                           " WHERE chunk_keys @> ARRAY[$2::text])",
                           2, p, err, sizeof err);
    if (!r) {
        log_warning("late completion of %s: %s", key, err);
        return;
    }
    bool orphan = PQntuples(r) == 1;
    PQclear(r);
    if (orphan) free_at(s, key, d->worker, d->inline_data);
}

/* The job could not run where it was (its worker's memory limit, an input
 * whose holder did not answer): again, elsewhere, after a pause; the task
 * fails after RETRY_MAX of them in a row. */
void job_retry(sched_t *s, stask_t *t, int32_t j, const msg_done_t *d)
{
    unplace(s, t, j);
    if (++t->retries[j] > RETRY_MAX) {
        char what[512], msg[MSG_TEXT_MAX + 600];
        job_label(t, j, what, sizeof what);
        snprintf(msg, sizeof msg, "%s could not run after %d tries; the last: %s", what, RETRY_MAX,
                 d->text);
        metrics_counter_inc(s->m_failed_jobs);
        job_failed(s, t, j, d->worker, msg);
        end_task(s, t, msg);
        return;
    }
    log_info("task %s job %d: retried (%d): %s", t->id, (int)j, (int)t->retries[j], d->text);
    t->attempt[j]++;
    t->st[j] = S_WAIT;
    mark(t, j);
    /* the worker that sent it back is passed over next time */
    int avoid = wk_find(s, d->worker);
    if (t->waiting[j] > 0) { /* an input is being made again: pushed once it is done */
    } else if (t->retries[j] == 1) {
        push_job_avoiding(s, t, j, avoid);
    } else {
        int64_t ms = (int64_t)RETRY_BACKOFF_MS << (t->retries[j] - 2);
        delay_push(s, t, j, ms < RETRY_BACKOFF_MAX_MS ? ms : RETRY_BACKOFF_MAX_MS, avoid);
    }
}

/* A completion line (msg.h). */
void completion(sched_t *s, const char *m)
{
    msg_done_t d;
    if (msg_done_parse(m, &d)) {
        log_warning("malformed completion \"%.200s\"", m);
        return;
    }
    int32_t job = d.job;
    /* After a loss every dispatch is redone: what comes now is moot. */
    if (s->lost_pending) return;
    stask_t *t = task_find(s, d.tid);
    if (!t) {
        metrics_counter_inc(s->m_stale);
        if (d.kind == MSG_OK) zombie_of_ended(s, &d);
        return;
    }
    if (job >= t->n || !tile_job_is_live(t->plan.t, job) || d.attempt != t->attempt[job] ||
        t->st[job] != S_QUEUED) {
        metrics_counter_inc(s->m_stale);
        /* A late run of a job whose output was already freed stored it
         * again: nothing will read or free it but us. (Done or queued
         * jobs keep theirs: a run writes the same bytes as any other; a
         * copy on another worker than the one recorded is collected by
         * that worker once the task ends.) */
        if (job < t->n && t->st[job] == S_FREED && d.kind == MSG_OK) {
            char key[KEY_MAX];
            plan_chunk_key(&t->plan, t->id, job, key, sizeof key);
            free_at(s, key, d.worker, d.inline_data);
        }
        return;
    }
    metrics_counter_inc(s->m_completed);
    if (d.kind == MSG_RETRY) {
        job_retry(s, t, job, &d);
        return;
    }
    if (d.kind == MSG_ERR) {
        /* A missing input right after Redis lost its data is the loss's. */
        if (redis_lost(s) == 1) return;
        metrics_counter_inc(s->m_failed_jobs);
        const char *msg = d.text[0] ? d.text : "a job failed without a message";
        job_failed(s, t, job, d.worker, msg);
        end_task(s, t, msg);
        return;
    }
    job_done(s, t, job, &d);
}

/* After a takeover: which of the chunks done before still exist. A
 * chunk lives where mars:loc:<tid> says: inline (its key in Redis) or on
 * a worker that is still alive (its mars:worker:<id> hash) and that this
 * supervisor has not found dead. The others run again with a higher
 * attempt. */
void takeover_check(sched_t *s, stask_t *t, const int32_t *check, int n_check)
{
    char err[256];
    if (!check || n_check == 0) return;
    redisReply **reps = calloc((size_t)n_check, sizeof *reps);
    redisReply **ex = calloc((size_t)n_check, sizeof *ex);
    if (!reps || !ex) goto out;
    for (int i = 0; i < n_check; i++)
        if (rq_append(s->rq, err, sizeof err, "HGET " MSG_LOC "%s %d", t->id, (int)check[i]))
            goto out;
    if (rq_flush_replies(s->rq, reps, n_check, err, sizeof err)) goto out;
    for (int i = 0; i < n_check; i++) {
        char key[KEY_MAX];
        plan_chunk_key(&t->plan, t->id, check[i], key, sizeof key);
        if (reps[i]->type != REDIS_REPLY_STRING)
            rq_append(s->rq, err, sizeof err, "EXISTS no-location-recorded");
        else if (msg_loc_inline(reps[i]->str))
            rq_append(s->rq, err, sizeof err, "EXISTS %s", key);
        else
            rq_append(s->rq, err, sizeof err, "EVAL %s 2 %s%s " MSG_UNREACHABLE "%s",
                      MSG_ALIVE_ADDR_SCRIPT, PROTO_WORKER_KEY, reps[i]->str, reps[i]->str);
    }
    if (rq_flush_replies(s->rq, ex, n_check, err, sizeof err)) {
        memset(ex, 0, sizeof *ex * (size_t)n_check);
        goto out;
    }
    for (int i = 0; i < n_check; i++) {
        int32_t j = check[i];
        /* inline and there, or on a worker alive and reachable, and not one
         * whose death we handled already (worker_dead runs once per worker:
         * its live report outlives it by up to 10 s, and a task set up
         * meanwhile would wait for chunks nobody makes again) */
        bool known_dead = false;
        if (ex[i]->type == REDIS_REPLY_STRING) {
            int w = wk_find(s, reps[i]->str);
            known_dead = w >= 0 && s->wk[w].lost_done;
        }
        if (((ex[i]->type == REDIS_REPLY_INTEGER && ex[i]->integer > 0) ||
             ex[i]->type == REDIS_REPLY_STRING) &&
            !known_dead) {
            t->st[j] = S_DONE;
            bool inl = msg_loc_inline(reps[i]->str);
            t->inl[j] = inl;
            t->worker[j] = inl ? NULL : strdup(reps[i]->str);
        } else {
            t->attempt[j]++;
        }
    }
out:
    for (int i = 0; reps && i < n_check; i++)
        if (reps[i]) freeReplyObject(reps[i]);
    for (int i = 0; ex && i < n_check; i++)
        if (ex[i]) freeReplyObject(ex[i]);
    if (!reps || !ex) log_warning("task %s: checking its chunks: %s", t->id, err);
    free(reps);
    free(ex);
}

/* A job not done runs again only if a kept chunk needs it, directly or
 * through consumers that run again (consumers come later in job order): a
 * freed intermediate whose consumers are all done stays freed. */
void mark_unneeded_freed(stask_t *t)
{
    const tile_t *tl = t->plan.t;
    for (int32_t j = t->n - 1; j >= 0; j--) {
        if (!tile_job_is_live(tl, j) || t->st[j] == S_DONE) continue;
        bool need = tile_job_keep(tl, j);
        for (int32_t k = t->con_off[j]; k < t->con_off[j + 1] && !need; k++)
            need = t->st[t->cons[k]] == S_WAIT;
        if (!need) t->st[j] = S_FREED;
    }
}

/* A revived task's state: its results still where mars:loc says stay
 * done, the others (and what they need) run again. */
void revive_state(sched_t *s, stask_t *t)
{
    const tile_t *tl = t->plan.t;
    int32_t *check = malloc(sizeof(int32_t) * (size_t)(t->n ? t->n : 1));
    int n_check = 0;
    for (int32_t j = 0; check && j < t->n; j++) {
        if (!tile_job_is_live(tl, j) || tile_job_is_source(tl, j)) continue;
        t->attempt[j] = 1;
        if (tile_job_keep(tl, j)) check[n_check++] = j;
    }
    takeover_check(s, t, check, n_check);
    free(check);
    mark_unneeded_freed(t);
}

/* A task taken over: done chunks whose data still exists stay done; the
 * rest run again with a higher attempt, so that late completions are
 * stale. -1 when the rows cannot be read now (retried). */
int takeover_state(sched_t *s, stask_t *t)
{
    char err[512];
    const tile_t *tl = t->plan.t;
    const char *p[] = {t->id};
    PGresult *q = db_query(s->db,
                           "SELECT key, status, attempt, coalesce(nbytes, -1) FROM chunks"
                           " WHERE task_id = $1",
                           1, p, err, sizeof err);
    if (!q) {
        log_warning("task %s: reading its chunks: %s (retried)", t->id, err);
        return -1;
    }
    char pre[100];
    int pl_len = snprintf(pre, sizeof pre, "chunk:%s:", t->id);
    int nq = PQntuples(q), n_check = 0;
    int32_t *check = malloc(sizeof(int32_t) * (size_t)(nq ? nq : 1));
    for (int i = 0; check && i < nq; i++) {
        const char *k = PQgetvalue(q, i, 0);
        if (strncmp(k, pre, (size_t)pl_len) != 0) continue;
        long j = strtol(k + pl_len, NULL, 10);
        if (j < 0 || j >= t->n || !tile_job_is_live(tl, (int32_t)j) ||
            tile_job_is_source(tl, (int32_t)j))
            continue;
        t->attempt[j] = atoi(PQgetvalue(q, i, 2)) + 1;
        t->nbytes[j] = atoll(PQgetvalue(q, i, 3));
        if (strcmp(PQgetvalue(q, i, 1), "done") == 0) {
            t->attempt[j]--;
            check[n_check++] = (int32_t)j;
        }
    }
    PQclear(q);
    takeover_check(s, t, check, n_check);
    free(check);
    mark_unneeded_freed(t);
    for (int32_t j = 0; j < t->n; j++)
        if (tile_job_is_live(tl, j) && !tile_job_is_source(tl, j)) mark(t, j);
    return 0;
}

/* Counts what every job waits for and who still needs it, frees what a
 * takeover found stored but unneeded, and queues every ready job. */
void task_queue(sched_t *s, stask_t *t, bool takeover)
{
    const tile_t *tl = t->plan.t;
    for (int32_t j = 0; j < t->n; j++) {
        if (!tile_job_is_live(tl, j)) continue;
        for (int32_t k = t->dep_off[j]; k < t->dep_off[j + 1]; k++)
            if (t->st[t->deps[k]] != S_DONE) t->waiting[j]++;
        for (int32_t k = t->con_off[j]; k < t->con_off[j + 1]; k++)
            if (t->st[t->cons[k]] == S_WAIT) t->uses[j]++;
        /* after a takeover: stored intermediates nobody needs any more */
        if (takeover && t->st[j] == S_DONE && t->uses[j] == 0 && !kept(t, j)) {
            free_job(s, t, j);
            t->st[j] = S_FREED;
            mark(t, j);
        }
    }
    for (int32_t j = 0; j < t->n; j++)
        if (tile_job_is_live(tl, j) && t->st[j] == S_WAIT && t->waiting[j] == 0) push_job(s, t, j);
}

/* Takes a task over or on (mode: START_*): its tiling goes to the tiler's
 * thread (sched_tiler.c); start_tiled carries on once it is done. */
void start_task(sched_t *s, const char *tid, const char *session, const char *doc, int mode)
{
    tiler_submit(s, tid, session, doc, mode);
}

/* A task tiled (sched_tiler.c): writes the plan and the job descriptors,
 * the rows, queues what is ready. Takes t (freed on failure). */
void start_tiled(sched_t *s, stask_t *t, int mode, int64_t t0)
{
    char err[1024];
    bool takeover = mode != START_FRESH, revive = mode == START_REVIVE;
    const char *tid = t->id;
    if (publish_plan(s, t, err, sizeof err)) {
        log_warning("task %s: writing its plan: %s (retried)", tid, err);
        task_free(t);
        return;
    }
    if (revive) revive_state(s, t);
    if (takeover && !revive && takeover_state(s, t)) {
        task_free(t);
        return;
    }
    for (int32_t j = 0; j < t->n; j++)
        if (tile_job_is_live(t->plan.t, j) && (t->st[j] == S_DONE || t->st[j] == S_FREED))
            t->n_done++;
    int64_t t_rows = svc_now_ms();
    if (!revive && write_rows(s, t, !takeover)) {
        task_free(t);
        return;
    }
    t->next = s->tasks;
    s->tasks = t;
    task_queue(s, t, takeover);
    int64_t t_end = svc_now_ms();
    log_info("task %s %s: %lld live jobs of %d, %lld done (set-up %lld ms: tiling and plan"
             " %lld ms, chunk rows and queue %lld ms)",
             tid,
             revive     ? "revived"
             : takeover ? "taken over"
                        : "started",
             (long long)t->n_live, (int)t->n, (long long)t->n_done, (long long)(t_end - t0),
             (long long)(t_rows - t0), (long long)(t_end - t_rows));
    if (t->n_done == t->n_live) finish_task(s, t);
}

/* A revive ended: all its lost chunks made again (msg NULL) or not. The
 * chunks it made that no result needs are freed; the results stay. */
void end_revive(sched_t *s, stask_t *t, const char *msg)
{
    char err[256];
    for (int32_t j = 0; j < t->n; j++)
        if (tile_job_is_live(t->plan.t, j) && t->st[j] == S_DONE && !kept(t, j)) free_job(s, t, j);
    flush_pushes(s);
    drop_plan(s, t->id);
    redisReply *r = rq_command(s->rq, err, sizeof err, "DEL " MSG_REVIVING "%s", t->id);
    if (r) freeReplyObject(r);
    if (msg)
        log_warning("task %s: its lost chunks could not be made again: %s", t->id, msg);
    else
        log_info("task %s: its lost chunks are made again", t->id);
    task_unlink(s, t);
    task_free(t);
}

/* Ended tasks whose results lost chunks with their workers (a gateway or a
 * worker asked, msg.h): one supervisor claims each (mars:reviving:<tid>,
 * expiring) and makes the lost chunks again from their lineage. */
void revive_poll(sched_t *s)
{
    char err[256];
    redisReply *r = rq_command(s->rq, err, sizeof err, "LPOP " MSG_REVIVE " 16");
    if (!r) return;
    for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
        const char *tid = r->element[i]->str;
        if (!tid || task_find(s, tid) || tiler_has(s, tid) || strlen(tid) >= 72) continue;
        redisReply *c = rq_command(s->rq, err, sizeof err, "SET " MSG_REVIVING "%s %s NX PX 600000",
                                   tid, s->id);
        bool mine = c && c->type == REDIS_REPLY_STATUS;
        if (c) freeReplyObject(c);
        if (!mine) continue;
        const char *p[] = {tid};
        PGresult *q = db_query(s->db,
                               "SELECT session_id, graph::text FROM tasks WHERE id = $1"
                               " AND status = 'succeeded'",
                               1, p, err, sizeof err);
        if (q && PQntuples(q) == 1) {
            start_task(s, tid, PQgetvalue(q, 0, 0), PQgetvalue(q, 0, 1), START_REVIVE);
        } else {
            redisReply *x = rq_command(s->rq, err, sizeof err, "DEL " MSG_REVIVING "%s", tid);
            if (x) freeReplyObject(x);
        }
        if (q) PQclear(q);
    }
    freeReplyObject(r);
}
