/* sched.c: task execution in the supervisor (see sched.h and
 * docs/cluster-protocol.md): the scheduler thread's loop, start and stop.
 * The state machine and its parts are in the other sched_*.c files. */
#include "sched_internal.h"

/* ---- the loop ---------------------------------------------------------------- */

/* One completion (or wake) message. */
static void take_one(sched_t *s, const char *list, const char *msg)
{
    if (strcmp(list, MSG_WAKE) == 0 || strcmp(msg, MSG_WAKE_SELF) == 0)
        s->woken = true; /* the loop's next turn looks at the tables at once */
    else
        completion(s, msg);
}

/* Waits for completions and takes every one waiting in the same round
 * trip (BLMPOP ... COUNT), then sends the pushes they made (successors)
 * at once; a longer backlog is drained in batches. */
void take_completions(sched_t *s)
{
    char err[256], key[100];
    snprintf(key, sizeof key, "mars:done:%s", s->id);
    redisReply *r =
        rq_command_blocking(s->done, BLOCK_MS, err, sizeof err,
                            "BLMPOP %s 2 %s " MSG_WAKE " LEFT COUNT %d", BLOCK_S, key, DRAIN_BATCH);
    if (!r) {
        log_warning("waiting for completions: %s", err);
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL);
        return;
    }
    /* [list, [messages...]], or nil when the wait ended empty */
    size_t got = 0;
    if (r->type == REDIS_REPLY_ARRAY && r->elements == 2 && r->element[0]->str &&
        r->element[1]->type == REDIS_REPLY_ARRAY) {
        const redisReply *m = r->element[1];
        got = m->elements;
        for (size_t i = 0; i < m->elements; i++)
            if (m->element[i]->str) take_one(s, r->element[0]->str, m->element[i]->str);
    }
    freeReplyObject(r);
    if (got) flush_pushes(s);
    while (got == DRAIN_BATCH) {
        r = rq_command(s->done, err, sizeof err, "LPOP %s %d", key, DRAIN_BATCH);
        if (!r) break;
        got = r->type == REDIS_REPLY_ARRAY ? r->elements : 0;
        for (size_t i = 0; i < got; i++)
            if (r->element[i]->str) take_one(s, key, r->element[i]->str);
        freeReplyObject(r);
        flush_pushes(s);
    }
}

void *sched_main(void *arg)
{
    sched_t *s = arg;
    int64_t next_tick = 0, next_dead = svc_now_ms() + DEAD_SCAN_MS;
    while (!atomic_load(&s->stop)) {
        int64_t now = svc_now_ms();
        bool notified = listen_poll(s) || s->woken;
        s->woken = false;
        if (s->lost_pending || notified || now >= next_tick) {
            if (redis_lost(s) == 1) rebuild_after_loss(s);
            wk_refresh(s);
            renew(s);
            claim(s);
            revive_poll(s);
            next_tick = now + TICK_MS;
        }
        if (now >= next_dead) {
            requeue_dead(s);
            next_dead = now + DEAD_SCAN_MS;
        }
        push_delayed(s);
        flush_pushes(s);
        take_completions(s);
        tiler_collect(s);
        flush_pushes(s);
        for (stask_t *t = s->tasks, *next; t; t = next) {
            next = t->next;
            if (t->n_done == t->n_live) {
                finish_task(s, t);
            } else if (now >= t->next_flush) {
                flush_rows(s, t);
                t->next_flush = now + ROW_FLUSH_MS;
            }
        }
    }
    /* Stopping: let another supervisor take our tasks at once. */
    char err[256];
    redisReply *x = rq_command(s->rq, err, sizeof err, "DEL mars:sentinel:%s", s->id);
    if (x) freeReplyObject(x);
    const char *p[] = {s->id};
    db_exec(s->db,
            "UPDATE tasks SET lease_expires_at = now() WHERE owner_id = $1 AND status = 'running'",
            1, p, err, sizeof err);
    return NULL;
}

int sched_start(const sched_opts_t *o, sched_t **out, char *err, size_t errlen)
{
    sched_t *s = calloc(1, sizeof *s);
    if (!s) goto oom;
    snprintf(s->id, sizeof s->id, "%s", o->id);
    s->worker_timeout_ms = o->worker_timeout_ms;
    s->max_attempts = o->max_attempts > 0 ? o->max_attempts : 3;
    s->sort_block_bytes = o->sort_block_bytes;
    snprintf(s->token, sizeof s->token, "%s", o->token ? o->token : "");
    s->dsn = strdup(o->pg_dsn);
    s->url = strdup(o->redis_url);
    if (!s->dsn || !s->url) goto oom;
    s->db = db_create(o->pg_dsn, "mars-supervisor-sched");
    if (!s->db) goto oom;
    s->rq = rq_create(o->redis_url, RQ_DEFAULT_TIMEOUT_MS, err, errlen);
    if (!s->rq) goto fail;
    s->done = rq_create(o->redis_url, RQ_DEFAULT_TIMEOUT_MS, err, errlen);
    if (!s->done) goto fail;
    metrics_registry_t *m = o->metrics;
    s->m_dispatched = metrics_counter(m, "mars_jobs_dispatched_total", "Chunk jobs pushed", NULL);
    s->m_completed = metrics_counter(m, "mars_jobs_completed_total",
                                     "Chunk job completions accepted (ok or err)", NULL);
    s->m_stale = metrics_counter(m, "mars_jobs_stale_total",
                                 "Completions ignored: an older attempt or an unknown job", NULL);
    s->m_failed_jobs =
        metrics_counter(m, "mars_jobs_failed_total", "Jobs that reported an error", NULL);
    s->m_requeued =
        metrics_counter(m, "mars_jobs_requeued_total", "Jobs of dead workers queued again", NULL);
    s->m_redis_lost = metrics_counter(m, "mars_redis_data_lost_total",
                                      "Times Redis was found to have lost its data (running "
                                      "tasks set up again from PostgreSQL)",
                                      NULL);
    s->m_tasks_ok = metrics_counter(m, "mars_tasks_total", "Tasks ended, by status",
                                    (const char *[]){"status", "succeeded", NULL});
    s->m_tasks_failed = metrics_counter(m, "mars_tasks_total", "Tasks ended, by status",
                                        (const char *[]){"status", "failed", NULL});
    s->m_tasks_cancelled = metrics_counter(m, "mars_tasks_total", "Tasks ended, by status",
                                           (const char *[]){"status", "cancelled", NULL});
    static const double TILING_BUCKETS[] = {0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03,
                                            0.1,    0.3,    1,     3,     10};
    s->m_tiling =
        metrics_histogram(m, "mars_tiling_seconds", "Time to parse and tile a task", NULL,
                          TILING_BUCKETS, (int)(sizeof TILING_BUCKETS / sizeof TILING_BUCKETS[0]));
    if (db_connect(s->db, err, errlen) || rq_connect(s->rq, err, errlen) ||
        rq_connect(s->done, err, errlen) || tiler_start(s, o->pg_dsn, o->redis_url, err, errlen))
        goto fail;
    if (pthread_create(&s->thread, NULL, sched_main, s) != 0) {
        snprintf(err, errlen, "cannot start the scheduler thread");
        goto fail;
    }
    *out = s;
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
fail:
    if (s) {
        tiler_free(s);
        db_free(s->db);
        rq_free(s->rq);
        rq_free(s->done);
        free(s->dsn);
        free(s->url);
        free(s);
    }
    return -1;
}

void sched_free(sched_t *s)
{
    if (!s) return;
    atomic_store(&s->stop, true);
    pthread_join(s->thread, NULL);
    tiler_free(s);
    while (s->tasks) {
        stask_t *t = s->tasks;
        s->tasks = t->next;
        task_free(t);
    }
    strlist_clear(&s->push);
    free(s->push.v);
    strlist_clear(&s->dels);
    free(s->dels.v);
    strlist_clear(&s->locs);
    free(s->locs.v);
    for (int w = 0; w < s->n_wk; w++) {
        strlist_clear(&s->wk[w].push);
        free(s->wk[w].push.v);
        strlist_clear(&s->wk[w].frees);
        free(s->wk[w].frees.v);
    }
    free(s->wk);
    free(s->delayed);
    if (s->listen) PQfinish(s->listen);
    db_free(s->db);
    rq_free(s->rq);
    rq_free(s->done);
    free(s->dsn);
    free(s->url);
    free(s);
}
