/* sched_place.c: where jobs run and where chunks go (docs/cluster-protocol.md,
 * "Data plane"): the workers known alive, placement by input bytes, the
 * turn's pushes, locations and frees, and retried jobs' back-off. */
#include "sched_internal.h"

/* ---- placement and freeing (docs/cluster-protocol.md, "Data plane") ------ */

/* The index of worker id in s->wk, or -1. */
int wk_find(const sched_t *s, const char *id)
{
    for (int i = 0; id && i < s->n_wk; i++)
        if (strcmp(s->wk[i].id, id) == 0) return i;
    return -1;
}

/* Adds (or revives) worker id; its index. Entries are never removed, so
 * indexes held in stask_t.placed stay valid. */
int wk_add(sched_t *s, const char *id, int n_cpu)
{
    return wk_add_gpu(s, id, n_cpu, 0);
}

int wk_add_gpu(sched_t *s, const char *id, int n_cpu, int n_gpu)
{
    int i = wk_find(s, id);
    if (i < 0) {
        if (s->n_wk == s->cap_wk) {
            int cap = s->cap_wk ? s->cap_wk * 2 : 16;
            sworker_t *n = realloc(s->wk, sizeof *n * (size_t)cap);
            if (!n) abort();
            s->wk = n;
            s->cap_wk = cap;
        }
        i = s->n_wk++;
        memset(&s->wk[i], 0, sizeof s->wk[i]);
        snprintf(s->wk[i].id, sizeof s->wk[i].id, "%s", id);
    }
    s->wk[i].alive = true;
    s->wk[i].n_cpu = n_cpu > 0 ? n_cpu : 1;
    s->wk[i].n_gpu = n_gpu > 0 ? n_gpu : 0;
    return i;
}

/* Workers whose heartbeat is recent, from PostgreSQL (every second). */
void wk_refresh(sched_t *s)
{
    char err[256], secs[32];
    snprintf(secs, sizeof secs, "%.3f", s->worker_timeout_ms / 1000.0);
    const char *p[] = {secs};
    PGresult *r = db_query(s->db,
                           "SELECT id, n_cpu, coalesce(cardinality(cuda_devices), 0) FROM workers"
                           " WHERE status = 'running' AND"
                           " last_heartbeat >= now() - make_interval(secs => $1::float8)",
                           1, p, err, sizeof err);
    if (!r) {
        log_warning("listing workers: %s", err);
        return;
    }
    for (int i = 0; i < s->n_wk; i++)
        s->wk[i].alive = false;
    for (int i = 0; i < PQntuples(r); i++)
        wk_add_gpu(s, PQgetvalue(r, i, 0), atoi(PQgetvalue(r, i, 1)), atoi(PQgetvalue(r, i, 2)));
    PQclear(r);
}

/* Where job j runs: the alive worker holding the largest share of its
 * input bytes, unless that one already has twice its slots' worth of jobs
 * waiting; else the least loaded alive worker (jobs per slot); avoid: a
 * worker index to pass over (-1: none). -1: no worker known, the job goes
 * on mars:jobs for any. */
/* Whether job j goes to a worker with a CUDA device (docs/gpu.md): one is
 * alive, and the job has a device kernel the task's "device" gives it. */
static bool wants_gpu(const sched_t *s, const stask_t *t, int32_t j)
{
    bool any = false;
    for (int w = 0; w < s->n_wk && !any; w++)
        any = s->wk[w].alive && s->wk[w].n_gpu > 0;
    if (!any || !t->plan.t || !t->plan.g) return false;
    return gpu_job_preferred(t->plan.t, j, t->plan.g->device, NULL);
}

int place_job(sched_t *s, stask_t *t, int32_t j, int avoid)
{
    /* device jobs consider the workers with a device only */
    bool gpu = wants_gpu(s, t, j);
    int best = -1;
    int64_t best_bytes = 0;
    for (int32_t k = t->dep_off[j]; k < t->dep_off[j + 1]; k++) {
        int32_t x = t->deps[k];
        if (t->st[x] != S_DONE || t->inl[x] || !t->worker[x] || t->nbytes[x] <= 0) continue;
        int w = wk_find(s, t->worker[x]);
        if (w < 0 || !s->wk[w].alive || w == avoid || (gpu && s->wk[w].n_gpu == 0)) continue;
        /* the bytes of every input held there */
        int64_t b = 0;
        for (int32_t q = t->dep_off[j]; q < t->dep_off[j + 1]; q++) {
            int32_t y = t->deps[q];
            if (t->st[y] == S_DONE && !t->inl[y] && t->worker[y] && t->nbytes[y] > 0 &&
                strcmp(t->worker[y], s->wk[w].id) == 0)
                b += t->nbytes[y];
        }
        if (b > best_bytes) {
            best_bytes = b;
            best = w;
        }
    }
    if (best >= 0 && s->wk[best].outstanding < 2 * (int64_t)s->wk[best].n_cpu) return best;
    int least = -1;
    for (int w = 0; w < s->n_wk; w++) {
        if (!s->wk[w].alive || w == avoid || (gpu && s->wk[w].n_gpu == 0)) continue;
        if (least < 0 ||
            s->wk[w].outstanding * s->wk[least].n_cpu < s->wk[least].outstanding * s->wk[w].n_cpu)
            least = w;
    }
    if (least < 0 && avoid >= 0 && avoid < s->n_wk && s->wk[avoid].alive) least = avoid;
    return least >= 0 ? least : best;
}

void unplace(sched_t *s, stask_t *t, int32_t j)
{
    int w = t->placed[j];
    if (w >= 0 && w < s->n_wk && s->wk[w].outstanding > 0) s->wk[w].outstanding--;
    t->placed[j] = -1;
}

void push_job_avoiding(sched_t *s, stask_t *t, int32_t j, int avoid)
{
    char m[MSG_JOB_MAX];
    msg_job_fmt(m, sizeof m, t->id, j, (int)t->attempt[j]);
    unplace(s, t, j);
    int w = place_job(s, t, j, avoid);
    if (w >= 0) {
        strlist_add(&s->wk[w].push, m);
        s->wk[w].outstanding++;
        t->placed[j] = (int16_t)w;
    } else {
        strlist_add(&s->push, m);
    }
    t->st[j] = S_QUEUED;
    /* A re-dispatch (attempt > 0) is always written: a takeover must not
     * reuse its attempt number. */
    if (!t->quiet || t->attempt[j] > 0) mark(t, j);
}

void push_job(sched_t *s, stask_t *t, int32_t j)
{
    push_job_avoiding(s, t, j, -1);
}

/* Records where job j's chunk lives (its completion said), for the
 * workers that read it (mars:loc:<tid>, HSET before any push). */
void set_location(sched_t *s, stask_t *t, int32_t j, const char *worker, bool inl)
{
    free(t->worker[j]);
    t->worker[j] = worker ? strdup(worker) : NULL;
    t->inl[j] = inl;
    char line[MSG_ID_MAX * 2 + 32];
    snprintf(line, sizeof line, "%s %d %s", t->id, (int)j,
             inl || !worker ? MSG_INLINE_LOC : worker);
    strlist_add(&s->locs, line);
}

/* Drops chunk key from where it lives: Redis (inline) or the worker's
 * store (a free message on mars:free:<worker>). */
void free_at(sched_t *s, const char *key, const char *worker, bool inl)
{
    if (inl || !worker) {
        strlist_add(&s->dels, key);
        return;
    }
    int w = wk_find(s, worker);
    if (w < 0) w = wk_add(s, worker, 1), s->wk[w].alive = false;
    strlist_add(&s->wk[w].frees, key);
}

/* Job j's chunk is not needed any more: freed where it lives, and its
 * location field dropped. */
void free_job(sched_t *s, stask_t *t, int32_t j)
{
    char key[KEY_MAX], num[16];
    plan_chunk_key(&t->plan, t->id, j, key, sizeof key);
    free_at(s, key, t->worker[j], t->inl[j]);
    snprintf(num, sizeof num, "%d", (int)j);
    strlist_add(&t->hdel, num);
}

/* Chunks named by key whose location we do not track (an earlier task's
 * replaced tensors, a zombie's output): looked up in mars:loc and freed
 * there. Uploads (chunk:up:...) live in Redis. */
void free_keys_lookup(sched_t *s, char **keys, int n)
{
    char err[256];
    for (int i = 0; i < n; i++) {
        char tid[72];
        int32_t job;
        if (msg_chunk_key_parse(keys[i], tid, sizeof tid, &job)) {
            strlist_add(&s->dels, keys[i]);
            continue;
        }
        redisReply *r = rq_command(s->rq, err, sizeof err, "HGET " MSG_LOC "%s %d", tid, (int)job);
        if (!r) {
            log_warning("freeing %s: %s", keys[i], err);
            continue;
        }
        if (r->type == REDIS_REPLY_STRING && !msg_loc_inline(r->str))
            free_at(s, keys[i], r->str, false);
        else
            strlist_add(&s->dels, keys[i]);
        freeReplyObject(r);
        redisReply *x = rq_command(s->rq, err, sizeof err, "HDEL " MSG_LOC "%s %d", tid, (int)job);
        if (x) freeReplyObject(x);
    }
}

/* Sends what the turn decided, in this order: locations (a job pushed
 * below may read them at once), job messages (per worker queue, the
 * worker added to mars:wq, the set thieves look at; then mars:jobs), and
 * frees. A push that fails is kept and sent again next turn (a message
 * twice is harmless: the second completion is stale). */
void flush_pushes(sched_t *s)
{
    char err[256];
    int rc = 0, n_push = s->push.n;
    for (int i = 0; i < s->locs.n && rc == 0; i++) {
        char tid[72], loc[72];
        int job;
        if (sscanf(s->locs.v[i], "%71s %d %71s", tid, &job, loc) != 3) continue;
        rc = rq_append(s->rq, err, sizeof err, "HSET " MSG_LOC "%s %d %s", tid, job, loc);
    }
    if (rc == 0 && s->push.n)
        rc = strlist_append_cmds(s->rq, "LPUSH", MSG_JOBS, &s->push, err, sizeof err);
    for (int w = 0; w < s->n_wk && rc == 0; w++) {
        if (s->wk[w].push.n == 0) continue;
        char key[100];
        snprintf(key, sizeof key, MSG_WJOBS "%s", s->wk[w].id);
        n_push += s->wk[w].push.n;
        rc = strlist_append_cmds(s->rq, "LPUSH", key, &s->wk[w].push, err, sizeof err) ||
             rq_append(s->rq, err, sizeof err, "SADD mars:wq %s", s->wk[w].id);
    }
    if (rc == 0 && (s->locs.n || n_push)) rc = rq_flush(s->rq, err, sizeof err);
    if (rc) {
        log_error("pushing %d jobs: %s (retried)", n_push, err);
    } else {
        metrics_counter_add(s->m_dispatched, n_push);
        strlist_clear(&s->locs);
        strlist_clear(&s->push);
        for (int w = 0; w < s->n_wk; w++)
            strlist_clear(&s->wk[w].push);
    }
    /* Frees: a failure leaves garbage that the workers' collection (chunks
     * of ended tasks that mars:loc does not place on them) removes. */
    int nf = s->dels.n;
    rc = s->dels.n ? strlist_append_cmds(s->rq, "UNLINK", NULL, &s->dels, err, sizeof err) : 0;
    for (int w = 0; w < s->n_wk && rc == 0; w++) {
        if (s->wk[w].frees.n == 0) continue;
        char key[100];
        snprintf(key, sizeof key, MSG_FREE "%s", s->wk[w].id);
        nf += s->wk[w].frees.n;
        rc = strlist_append_cmds(s->rq, "RPUSH", key, &s->wk[w].frees, err, sizeof err);
    }
    for (stask_t *t = s->tasks; t && rc == 0; t = t->next) {
        if (t->hdel.n == 0) continue;
        char key[100];
        snprintf(key, sizeof key, MSG_LOC "%s", t->id);
        rc = strlist_append_cmds(s->rq, "HDEL", key, &t->hdel, err, sizeof err);
        nf += t->hdel.n;
    }
    if (nf && rc == 0) rc = rq_flush(s->rq, err, sizeof err);
    if (rc) log_warning("freeing %d chunks: %s", nf, err);
    strlist_clear(&s->dels);
    for (int w = 0; w < s->n_wk; w++)
        strlist_clear(&s->wk[w].frees);
    for (stask_t *t = s->tasks; t; t = t->next)
        strlist_clear(&t->hdel);
}

void delay_push(sched_t *s, stask_t *t, int32_t j, int64_t ms, int avoid)
{
    if (s->n_delayed == s->cap_delayed) {
        int cap = s->cap_delayed ? s->cap_delayed * 2 : 64;
        delayed_t *n = realloc(s->delayed, sizeof *n * (size_t)cap);
        if (!n) abort();
        s->delayed = n;
        s->cap_delayed = cap;
    }
    delayed_t *x = &s->delayed[s->n_delayed++];
    snprintf(x->tid, sizeof x->tid, "%s", t->id);
    x->job = j;
    x->attempt = t->attempt[j];
    x->due_ms = svc_now_ms() + ms;
    x->avoid = avoid;
}

/* Pushes the delayed jobs that are due (and still waiting for it). */
void push_delayed(sched_t *s)
{
    int64_t now = svc_now_ms();
    int k = 0;
    for (int i = 0; i < s->n_delayed; i++) {
        delayed_t *x = &s->delayed[i];
        if (x->due_ms > now) {
            s->delayed[k++] = *x;
            continue;
        }
        stask_t *t = task_find(s, x->tid);
        if (t && t->st[x->job] == S_WAIT && t->attempt[x->job] == x->attempt &&
            t->waiting[x->job] == 0)
            push_job_avoiding(s, t, x->job, x->avoid);
    }
    s->n_delayed = k;
}
