/* sched_tiler.c: tiling off the scheduler's loop. A submitted task (claimed,
 * taken over, revived) is parsed and tiled once, on the tiler's own thread
 * with its own PostgreSQL and Redis connections (session tensors, seeds,
 * uploaded files); the loop takes the result at its next turn
 * (tiler_collect) and carries on with start_tiled. Other tasks' dispatch
 * never waits for a tiling. */
#include "sched_internal.h"

/* A task waiting for its tiling, or tiled. */
typedef struct tjob {
    struct tjob *next;
    char tid[72], session[72];
    char *doc;
    int mode;
    int64_t t0;
    stask_t *t;    /* the result; NULL when it could not be set up */
    bool rejected; /* the document was rejected: the task fails (err) */
    char err[1024];
} tjob_t;

struct tiler {
    pthread_t thread;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    tjob_t *todo, *todo_tail; /* FIFO */
    tjob_t *busy;             /* being tiled */
    tjob_t *done;             /* LIFO: the loop takes them all */
    char id[72];
    const char *token;
    int64_t sort_block_bytes;
    db_t *db;
    rq_t *rq;
    metrics_histogram_t *m_tiling;
};

/* Job descriptors written per pipeline round trip. */
#define JD_BATCH 1000

/* Writes the descriptor of every live job that runs (tile_job_encode) into
 * mars:jd:<tid>. A takeover's or revive's overwrite the fields in place,
 * never deleting first: tiling is deterministic, so they are the same
 * bytes, and a worker running a job of the old dispatch meanwhile still
 * finds its descriptor. 0, or -1 with err (Redis; retried when the task is
 * claimed again). */
static int write_descs(tiler_t *tl, const stask_t *t, char *err, size_t errlen)
{
    const tile_t *tile = t->plan.t;
    int rc = 0, pending = 0;
    for (int32_t j = 0; j < t->n && rc == 0; j++) {
        if (!tile_job_is_live(tile, j) || tile_job_is_source(tile, j)) continue;
        void *d;
        size_t dl;
        if (tile_job_encode(tile, j, &d, &dl)) {
            snprintf(err, errlen, "out of memory encoding job %d", (int)j);
            return -1;
        }
        rc = rq_append(tl->rq, err, errlen, "HSET " MSG_JOBDESC "%s %d %b", t->id, (int)j, d, dl);
        free(d);
        if (rc == 0 && ++pending == JD_BATCH) {
            rc = rq_flush(tl->rq, err, errlen);
            pending = 0;
        }
    }
    if (rc == 0 && pending) rc = rq_flush(tl->rq, err, errlen);
    return rc;
}

/* Parses and tiles the task's document (session tensors from the tensors
 * table), records seeds drawn here, allocates the job state and encodes
 * what the plan key holds. NULL when it cannot be set up now (err; with
 * *rejected a rejected document: the task fails). */
static stask_t *task_tile(tiler_t *tl, tjob_t *x)
{
    bool revive = x->mode == START_REVIVE;
    char *err = x->err;
    size_t errlen = sizeof x->err;
    stask_t *t = calloc(1, sizeof *t);
    if (!t) goto oom;
    t->revive = revive;
    snprintf(t->id, sizeof t->id, "%s", x->tid);
    snprintf(t->session, sizeof t->session, "%s", x->session);
    loadctx_t lc = {tl->db, x->session};
    int64_t t0 = svc_now_ms();
    if (plan_init(&t->plan, tl->id, x->doc, strlen(x->doc))) goto oom;
    t->plan.load = load_source;
    t->plan.load_ctx = &lc;
    t->plan.files_rq = tl->rq;
    t->plan.token = tl->token;
    t->plan.sort_block_bytes = tl->sort_block_bytes;
    if (plan_tile(&t->plan, err, errlen)) {
        x->rejected = true;
        goto fail;
    }
    t->plan.load = NULL;
    t->plan.files_rq = NULL;
    /* The gateway fills the seeds in; a row written otherwise gets them
     * here, in the row too, so that a takeover draws the same values. */
    if (!revive && plan_fill_seeds(&t->plan) > 0) {
        const char *p[] = {x->tid, t->plan.doc};
        char e2[512];
        if (db_exec(tl->db, "UPDATE tasks SET graph = $2::json WHERE id = $1", 2, p, e2,
                    sizeof e2)) {
            snprintf(err, errlen, "recording its seeds: %s (retried)", e2);
            goto fail;
        }
    }
    metrics_histogram_observe(tl->m_tiling, (double)(svc_now_ms() - t0) / 1000.0);
    int32_t n = t->n = tile_n_jobs(t->plan.t);
    size_t nn = (size_t)(n ? n : 1);
    t->waiting = calloc(nn, sizeof(int32_t));
    t->uses = calloc(nn, sizeof(int32_t));
    t->st = calloc(nn, 1);
    t->attempt = calloc(nn, sizeof(int32_t));
    t->lost = calloc(nn, 1);
    t->nbytes = malloc(nn * sizeof(int64_t));
    t->worker = calloc(nn, sizeof(char *));
    t->inl = calloc(nn, 1);
    t->placed = malloc(nn * sizeof(int16_t));
    t->retries = calloc(nn, 1);
    t->run = malloc(nn * sizeof(jrun_t));
    t->upd = malloc(nn * sizeof(int32_t));
    t->in_upd = calloc(nn, 1);
    if (!t->waiting || !t->uses || !t->st || !t->attempt || !t->lost || !t->nbytes || !t->worker ||
        !t->inl || !t->placed || !t->retries || !t->run || !t->upd || !t->in_upd ||
        build_edges(t) || !(t->plan_text = plan_dump(&t->plan)))
        goto oom;
    int64_t t1 = svc_now_ms();
    if (write_descs(tl, t, err, errlen)) goto fail;
    log_debug("task %s: %d job descriptors written in %lld ms", t->id, (int)t->n,
              (long long)(svc_now_ms() - t1));
    for (int32_t j = 0; j < n; j++) {
        t->nbytes[j] = -1;
        t->placed[j] = -1;
        t->run[j] = (jrun_t){0, 0, -1};
        if (!tile_job_is_live(t->plan.t, j)) continue;
        t->n_live++;
        if (tile_job_is_source(t->plan.t, j)) t->st[j] = S_DONE;
    }
    t->quiet = t->n_live > ROW_QUIET_JOBS;
    return t;
oom:
    snprintf(err, errlen, "supervisor: out of memory tiling the task");
    x->rejected = true;
fail:
    task_free(t);
    return NULL;
}

static void *tiler_main(void *arg)
{
    tiler_t *tl = arg;
    pthread_mutex_lock(&tl->mu);
    while (!tl->stop) {
        tjob_t *x = tl->todo;
        if (!x) {
            pthread_cond_wait(&tl->cv, &tl->mu);
            continue;
        }
        tl->todo = x->next;
        if (!tl->todo) tl->todo_tail = NULL;
        tl->busy = x;
        pthread_mutex_unlock(&tl->mu);
        x->t = task_tile(tl, x);
        pthread_mutex_lock(&tl->mu);
        tl->busy = NULL;
        x->next = tl->done;
        tl->done = x;
        pthread_mutex_unlock(&tl->mu);
        /* the loop may be blocked on its completions: it takes this now */
        char err[256];
        redisReply *r =
            rq_command(tl->rq, err, sizeof err, "LPUSH " MSG_DONE "%s " MSG_WAKE_SELF, tl->id);
        if (r)
            freeReplyObject(r);
        else /* it comes at the loop's next turn anyway */
            log_debug("waking the scheduler: %s", err);
        pthread_mutex_lock(&tl->mu);
    }
    pthread_mutex_unlock(&tl->mu);
    return NULL;
}

static void tjob_free(tjob_t *x)
{
    if (!x) return;
    task_free(x->t);
    free(x->doc);
    free(x);
}

int tiler_start(sched_t *s, const char *dsn, const char *redis_url, char *err, size_t errlen)
{
    tiler_t *tl = calloc(1, sizeof *tl);
    if (!tl) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->tiler = tl;
    pthread_mutex_init(&tl->mu, NULL);
    pthread_cond_init(&tl->cv, NULL);
    snprintf(tl->id, sizeof tl->id, "%s", s->id);
    tl->token = s->token;
    tl->sort_block_bytes = s->sort_block_bytes;
    tl->m_tiling = s->m_tiling;
    tl->db = db_create(dsn, "mars-supervisor-tiler");
    if (!tl->db) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    tl->rq = rq_create(redis_url, RQ_DEFAULT_TIMEOUT_MS, err, errlen);
    if (!tl->rq || db_connect(tl->db, err, errlen) || rq_connect(tl->rq, err, errlen)) return -1;
    if (pthread_create(&tl->thread, NULL, tiler_main, tl) != 0) {
        snprintf(err, errlen, "cannot start the tiler thread");
        return -1;
    }
    tl->started = true;
    return 0;
}

void tiler_free(sched_t *s)
{
    tiler_t *tl = s->tiler;
    if (!tl) return;
    if (tl->started) {
        pthread_mutex_lock(&tl->mu);
        tl->stop = true;
        pthread_cond_signal(&tl->cv);
        pthread_mutex_unlock(&tl->mu);
        pthread_join(tl->thread, NULL);
    }
    for (tjob_t *x = tl->todo, *n; x; x = n) {
        n = x->next;
        tjob_free(x);
    }
    for (tjob_t *x = tl->done, *n; x; x = n) {
        n = x->next;
        tjob_free(x);
    }
    db_free(tl->db);
    rq_free(tl->rq);
    pthread_mutex_destroy(&tl->mu);
    pthread_cond_destroy(&tl->cv);
    free(tl);
    s->tiler = NULL;
}

bool tiler_has(sched_t *s, const char *tid)
{
    tiler_t *tl = s->tiler;
    bool found = false;
    pthread_mutex_lock(&tl->mu);
    for (tjob_t *x = tl->todo; x && !found; x = x->next)
        found = strcmp(x->tid, tid) == 0;
    for (tjob_t *x = tl->done; x && !found; x = x->next)
        found = strcmp(x->tid, tid) == 0;
    found = found || (tl->busy && strcmp(tl->busy->tid, tid) == 0);
    pthread_mutex_unlock(&tl->mu);
    return found;
}

void tiler_ids(sched_t *s, sbuf_t *ids, int *n)
{
    tiler_t *tl = s->tiler;
    pthread_mutex_lock(&tl->mu);
    for (tjob_t *x = tl->todo; x; x = x->next)
        if (x->mode != START_REVIVE) arr_elem(ids, x->tid), (*n)++;
    if (tl->busy && tl->busy->mode != START_REVIVE) arr_elem(ids, tl->busy->tid), (*n)++;
    for (tjob_t *x = tl->done; x; x = x->next)
        if (x->mode != START_REVIVE) arr_elem(ids, x->tid), (*n)++;
    pthread_mutex_unlock(&tl->mu);
}

void tiler_submit(sched_t *s, const char *tid, const char *session, const char *doc, int mode)
{
    if (tiler_has(s, tid)) return; /* claimed again while it waits: once is enough */
    tjob_t *x = calloc(1, sizeof *x);
    if (!x || !(x->doc = strdup(doc))) {
        free(x);
        log_warning("task %s: out of memory queueing its tiling (retried)", tid);
        return;
    }
    snprintf(x->tid, sizeof x->tid, "%s", tid);
    snprintf(x->session, sizeof x->session, "%s", session);
    x->mode = mode;
    x->t0 = svc_now_ms();
    tiler_t *tl = s->tiler;
    pthread_mutex_lock(&tl->mu);
    if (tl->todo_tail)
        tl->todo_tail->next = x;
    else
        tl->todo = x;
    tl->todo_tail = x;
    pthread_cond_signal(&tl->cv);
    pthread_mutex_unlock(&tl->mu);
}

int tiler_collect(sched_t *s)
{
    tiler_t *tl = s->tiler;
    pthread_mutex_lock(&tl->mu);
    tjob_t *done = tl->done;
    tl->done = NULL;
    pthread_mutex_unlock(&tl->mu);
    /* oldest first */
    tjob_t *rev = NULL;
    while (done) {
        tjob_t *n = done->next;
        done->next = rev;
        rev = done;
        done = n;
    }
    int k = 0;
    for (tjob_t *x = rev, *n; x; x = n, k++) {
        n = x->next;
        if (x->t) {
            start_tiled(s, x->t, x->mode, x->t0);
            flush_pushes(s);
            x->t = NULL;
        } else if (x->mode == START_REVIVE) {
            log_warning("task %s: its lost chunks cannot be made again: %s", x->tid, x->err);
        } else if (x->rejected) {
            fail_unstarted(s, x->tid, x->err);
        } else {
            log_warning("task %s: %s", x->tid, x->err);
        }
        tjob_free(x);
    }
    return k;
}
