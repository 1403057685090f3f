/* sched.c: task execution in the supervisor (see sched.h and
 * docs/cluster-protocol.md). Everything runs on one thread: the state of a
 * task (which jobs are done, waiting, queued) is this thread's alone, so
 * nothing is locked; PostgreSQL gets the state in batches once per turn. */
#include "sched.h"

#include "df/dfgraph.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>

#include <libpq-fe.h>

#include "db.h"
#include "log.h"
#include "msg.h"
#include "proto.h"
#include "plan.h"
#include "rq.h"
#include "sbuf.h"
#include "svc.h"

#define LOG_MODULE "sched"

/* Completions wait at most this long in BLPOP: LISTEN notifications and the
 * once-a-second work are looked at between two waits, so this is also how
 * long a submission can wait to be claimed (issue 7, W6: 200 ms made a
 * short task take 0.2-0.4 s end to end). An idle supervisor makes 50 cheap
 * round trips a second; Redis (>= 6) times blocked clients out precisely.
 * Far within the 2 s socket timeout (rq.h). */
#define BLOCK_MS 20
#define BLOCK_S "0.02"
/* Completions taken per LPOP after the first: one turn handles a burst
 * without starving the periodic work. */
#define DRAIN_BATCH 1000
/* Chunk rows per INSERT or UPDATE statement (STACK-NOTES: 1000-row
 * statements run at ~170k rows/s, one per row at ~5.6k). */
#define ROW_BATCH 1000
/* Chunk rows and progress are written at most this often per running task
 * (and always when it ends): a job queued and done in between costs one row
 * update, not two. */
#define ROW_FLUSH_MS 500
/* Tasks of more live jobs than this keep their chunk rows quiet: a job's
 * first dispatch is not written (its row goes from waiting to done) and a
 * done intermediate freed after its done row was written stays done (its
 * data is gone, which a takeover checks anyway). One row write per job
 * instead of three: at ~15 us a write, W7's 143k jobs spent most of
 * PostgreSQL's CPU there (docs/benchmarks.md). Small tasks keep every
 * state for the dashboard. */
#define ROW_QUIET_JOBS 10000
/* Lease: renewed every second; 10 s rides out a stall of the database or
 * of this process before another supervisor takes the task over. */
#define LEASE_S "10 seconds"
#define TICK_MS 1000
/* Dead workers are looked for every two seconds. */
#define DEAD_SCAN_MS 2000
/* Tasks claimed per statement: tiling is the slow part of a claim. */
#define CLAIM_BATCH 4
/* Recently ended (failed or cancelled) tasks whose late completions still
 * leave a chunk behind to delete. */
#define ENDED_RING 64
#define KEY_MAX 256

enum { S_WAIT = 0, S_QUEUED, S_DONE, S_FREED };
/* How a task is set up: claimed pending, taken over running, or revived
 * after it ended (its lost results are made again). */
enum { START_FRESH = 0, START_TAKEOVER, START_REVIVE };
static const char *const STATUS[] = {"waiting", "queued", "done", "freed"};

/* Strings owned by the list, sent to Redis in a batch. */
typedef struct {
    char **v;
    int n, cap;
} strlist_t;

static void strlist_add(strlist_t *l, const char *str)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 256;
        char **n = realloc(l->v, sizeof(char *) * (size_t)cap);
        if (!n) abort(); /* as sbuf: a scheduler that cannot grow a list cannot go on */
        l->v = n;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(str))) abort();
    l->n++;
}

static void strlist_clear(strlist_t *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    l->n = 0;
}

/* Queues `cmd key v...` for every value of l, ARGV_BATCH values a command. */
#define ARGV_BATCH 1000
static int strlist_append_cmds(rq_t *r, const char *cmd, const char *key, const strlist_t *l,
                               char *err, size_t errlen)
{
    const char *argv[ARGV_BATCH + 2];
    for (int base = 0; base < l->n; base += ARGV_BATCH) {
        int n = l->n - base < ARGV_BATCH ? l->n - base : ARGV_BATCH, argc = 0;
        argv[argc++] = cmd;
        if (key) argv[argc++] = key;
        for (int i = 0; i < n; i++)
            argv[argc++] = l->v[base + i];
        if (rq_append_argv(r, argc, argv, NULL, err, errlen)) return -1;
    }
    return 0;
}

/* A worker known alive: jobs are placed on its queue mars:jobs:<id>. */
typedef struct {
    char id[72];
    int n_cpu;
    bool alive;
    bool lost_done;      /* found dead and its chunks recovered */
    int64_t outstanding; /* jobs placed on its queue and not reported yet */
    strlist_t push;      /* job messages for its queue, this turn */
    strlist_t frees;     /* chunk keys it should drop, this turn */
} sworker_t;

/* A job to push again once due (a `retry` completion backs off). */
typedef struct {
    char tid[72];
    int32_t job;
    int attempt;
    int64_t due_ms;
} delayed_t;

/* A job's run as its worker reported it (docs/cluster-protocol.md): the
 * slot, and the worker's wall clock in ms since the epoch at its start and
 * end; -1 and 0 when not reported. */
typedef struct jrun {
    int64_t t0, t1;
    int32_t slot;
} jrun_t;

typedef struct stask {
    struct stask *next;
    char id[72];
    char session[72];
    plan_t plan;
    int32_t n;
    int32_t *dep_off, *deps, *con_off, *cons;
    int32_t *waiting; /* deps not done yet */
    int32_t *uses;    /* consumers not done yet, +1 for kept chunks */
    uint8_t *st;
    int32_t *attempt;
    uint8_t *lost; /* times the job's worker died under it, since we own the task */
    int64_t *nbytes;
    char **worker;    /* last worker reporting the job (owned): where its chunk lives */
    uint8_t *inl;     /* the done job's chunk is inline in Redis (no worker holds it) */
    int16_t *placed;  /* index in sched.wk of the worker whose queue got it, or -1 */
    uint8_t *retries; /* `retry` completions since the job last ran */
    strlist_t hdel;   /* jobs whose location field goes at the end of the turn */
    jrun_t *run;      /* where and when the job last ran, as its worker reported */
    int64_t n_live, n_done;
    int32_t *upd;       /* jobs whose row changed since the last flush */
    int64_t next_flush; /* svc_now_ms() after which the rows are written again */
    uint8_t *in_upd;
    int32_t n_upd;
    bool progress_dirty;
    bool quiet;  /* n_live > ROW_QUIET_JOBS: see there */
    bool revive; /* an ended task whose lost results are made again: no row
                  * or status of it changes, only its chunks' locations */
} stask_t;

struct sched {
    char id[72];
    char *dsn, *url;
    int worker_timeout_ms;
    int max_attempts;
    bool sentinel_set; /* mars:sentinel:<id> written once: its loss is Redis's */
    bool lost_pending; /* the loss is found, the rebuild not done yet */
    pthread_t thread;
    atomic_bool stop;
    db_t *db;
    rq_t *rq;   /* commands */
    rq_t *done; /* BLPOP of completions */
    PGconn *listen;
    int64_t listen_retry_ms;
    stask_t *tasks;
    char ended[ENDED_RING][72];
    int ended_next;
    strlist_t push; /* job messages to LPUSH on mars:jobs at the end of the turn */
    strlist_t dels; /* inline chunk keys to delete at the end of the turn */
    strlist_t locs; /* "<tid> <job> <location>" to HSET before the pushes */
    /* Workers known alive (place.c), each with the jobs placed on its own
     * queue and the chunks to free on it at the end of the turn. */
    sworker_t *wk;
    int n_wk, cap_wk;
    int64_t wk_next_ms;
    /* `retry` jobs waiting for their turn to be pushed again. */
    delayed_t *delayed;
    int n_delayed, cap_delayed;
    metrics_counter_t *m_dispatched, *m_completed, *m_stale, *m_failed_jobs, *m_requeued;
    metrics_counter_t *m_tasks_ok, *m_tasks_failed, *m_tasks_cancelled, *m_redis_lost;
    metrics_histogram_t *m_tiling;
};

static int redis_lost(sched_t *s);
static void job_label(const stask_t *t, int32_t j, char *out, size_t cap);

/* ---- small helpers -------------------------------------------------------- */

/* Appends s as an element of a PostgreSQL array literal. */
static void arr_elem(sbuf_t *b, const char *s)
{
    if (b->len > 1) sbuf_putc(b, ',');
    sbuf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') sbuf_putc(b, '\\');
        sbuf_putc(b, *s);
    }
    sbuf_putc(b, '"');
}

static void arr_open(sbuf_t *b)
{
    sbuf_reset(b);
    sbuf_putc(b, '{');
}

static void shape_text(char *out, size_t cap, int ndim, const int64_t *d)
{
    size_t n = (size_t)snprintf(out, cap, "{");
    for (int i = 0; i < ndim && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%lld", i ? "," : "", (long long)d[i]);
    if (n < cap) snprintf(out + n, cap - n, "}");
}

static stask_t *task_find(sched_t *s, const char *id)
{
    for (stask_t *t = s->tasks; t; t = t->next)
        if (strcmp(t->id, id) == 0) return t;
    return NULL;
}

static void task_free(stask_t *t)
{
    if (!t) return;
    plan_close(&t->plan);
    free(t->dep_off);
    free(t->deps);
    free(t->con_off);
    free(t->cons);
    free(t->waiting);
    free(t->uses);
    free(t->st);
    free(t->attempt);
    free(t->lost);
    free(t->nbytes);
    for (int32_t j = 0; t->worker && j < t->n; j++)
        free(t->worker[j]);
    free(t->worker);
    free(t->inl);
    free(t->placed);
    free(t->retries);
    strlist_clear(&t->hdel);
    free(t->hdel.v);
    free(t->run);
    free(t->upd);
    free(t->in_upd);
    free(t);
}

static void task_unlink(sched_t *s, stask_t *t)
{
    for (stask_t **p = &s->tasks; *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            return;
        }
}

static void mark(stask_t *t, int32_t j)
{
    if (!t->in_upd[j]) {
        t->in_upd[j] = 1;
        t->upd[t->n_upd++] = j;
    }
}

/* ---- placement and freeing (docs/cluster-protocol.md, "Data plane") ------ */

/* The index of worker id in s->wk, or -1. */
static int wk_find(const sched_t *s, const char *id)
{
    for (int i = 0; id && i < s->n_wk; i++)
        if (strcmp(s->wk[i].id, id) == 0) return i;
    return -1;
}

/* Adds (or revives) worker id; its index. Entries are never removed, so
 * indexes held in stask_t.placed stay valid. */
static int wk_add(sched_t *s, const char *id, int n_cpu)
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
    return i;
}

/* Workers whose heartbeat is recent, from PostgreSQL (every second). */
static void wk_refresh(sched_t *s)
{
    char err[256], secs[32];
    snprintf(secs, sizeof secs, "%.3f", s->worker_timeout_ms / 1000.0);
    const char *p[] = {secs};
    PGresult *r = db_query(s->db,
                           "SELECT id, n_cpu FROM workers WHERE status = 'running' AND"
                           " last_heartbeat >= now() - make_interval(secs => $1::float8)",
                           1, p, err, sizeof err);
    if (!r) {
        log_warning("listing workers: %s", err);
        return;
    }
    for (int i = 0; i < s->n_wk; i++)
        s->wk[i].alive = false;
    for (int i = 0; i < PQntuples(r); i++)
        wk_add(s, PQgetvalue(r, i, 0), atoi(PQgetvalue(r, i, 1)));
    PQclear(r);
}

/* Where job j runs: the alive worker holding the largest share of its
 * input bytes, unless that one already has twice its slots' worth of jobs
 * waiting; else the least loaded alive worker (jobs per slot); avoid: a
 * worker index to pass over (-1: none). -1: no worker known, the job goes
 * on mars:jobs for any. */
static int place_job(sched_t *s, stask_t *t, int32_t j, int avoid)
{
    int best = -1;
    int64_t best_bytes = 0;
    for (int32_t k = t->dep_off[j]; k < t->dep_off[j + 1]; k++) {
        int32_t x = t->deps[k];
        if (t->st[x] != S_DONE || t->inl[x] || !t->worker[x] || t->nbytes[x] <= 0) continue;
        int w = wk_find(s, t->worker[x]);
        if (w < 0 || !s->wk[w].alive || w == avoid) continue;
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
        if (!s->wk[w].alive || w == avoid) continue;
        if (least < 0 ||
            s->wk[w].outstanding * s->wk[least].n_cpu < s->wk[least].outstanding * s->wk[w].n_cpu)
            least = w;
    }
    if (least < 0 && avoid >= 0 && avoid < s->n_wk && s->wk[avoid].alive) least = avoid;
    return least >= 0 ? least : best;
}

static void unplace(sched_t *s, stask_t *t, int32_t j)
{
    int w = t->placed[j];
    if (w >= 0 && w < s->n_wk && s->wk[w].outstanding > 0) s->wk[w].outstanding--;
    t->placed[j] = -1;
}

static void push_job_avoiding(sched_t *s, stask_t *t, int32_t j, int avoid)
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

static void push_job(sched_t *s, stask_t *t, int32_t j)
{
    push_job_avoiding(s, t, j, -1);
}

/* Records where job j's chunk lives (its completion said), for the
 * workers that read it (mars:loc:<tid>, HSET before any push). */
static void set_location(sched_t *s, stask_t *t, int32_t j, const char *worker, bool inl)
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
static void free_at(sched_t *s, const char *key, const char *worker, bool inl)
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
static void free_job(sched_t *s, stask_t *t, int32_t j)
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
static void free_keys_lookup(sched_t *s, char **keys, int n)
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
static void flush_pushes(sched_t *s)
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

/* ---- PostgreSQL batches --------------------------------------------------- */

static int flush_rows(sched_t *s, stask_t *t)
{
    char err[512];
    int rc = 0;
    if (t->revive) { /* the ended task's rows stay as they were */
        for (int32_t i = 0; i < t->n_upd; i++)
            t->in_upd[t->upd[i]] = 0;
        t->n_upd = 0;
        t->progress_dirty = false;
        return 0;
    }
    if (t->n_upd > 0) {
        sbuf_t k, st, at, nb, wk, sl, t0, t1;
        sbuf_init(&k);
        sbuf_init(&st);
        sbuf_init(&at);
        sbuf_init(&nb);
        sbuf_init(&wk);
        sbuf_init(&sl);
        sbuf_init(&t0);
        sbuf_init(&t1);
        for (int32_t base = 0; base < t->n_upd && rc == 0; base += ROW_BATCH) {
            arr_open(&k);
            arr_open(&st);
            arr_open(&at);
            arr_open(&nb);
            arr_open(&wk);
            arr_open(&sl);
            arr_open(&t0);
            arr_open(&t1);
            int32_t end = base + ROW_BATCH < t->n_upd ? base + ROW_BATCH : t->n_upd;
            for (int32_t i = base; i < end; i++) {
                int32_t j = t->upd[i];
                char key[KEY_MAX], num[32];
                plan_chunk_key(&t->plan, t->id, j, key, sizeof key);
                arr_elem(&k, key);
                arr_elem(&st, STATUS[t->st[j]]);
                snprintf(num, sizeof num, "%d", (int)t->attempt[j]);
                arr_elem(&at, num);
                snprintf(num, sizeof num, "%lld", (long long)t->nbytes[j]);
                arr_elem(&nb, num);
                arr_elem(&wk, t->worker[j] ? t->worker[j] : "");
                snprintf(num, sizeof num, "%d", (int)t->run[j].slot);
                arr_elem(&sl, num);
                snprintf(num, sizeof num, "%lld", (long long)t->run[j].t0);
                arr_elem(&t0, num);
                snprintf(num, sizeof num, "%lld", (long long)t->run[j].t1);
                arr_elem(&t1, num);
            }
            sbuf_putc(&k, '}');
            sbuf_putc(&st, '}');
            sbuf_putc(&at, '}');
            sbuf_putc(&nb, '}');
            sbuf_putc(&wk, '}');
            sbuf_putc(&sl, '}');
            sbuf_putc(&t0, '}');
            sbuf_putc(&t1, '}');
            const char *p[] = {t->id,         sbuf_str(&k),  sbuf_str(&st),
                               sbuf_str(&at), sbuf_str(&nb), sbuf_str(&wk),
                               sbuf_str(&sl), sbuf_str(&t0), sbuf_str(&t1)};
            /* db/migrations/0005: a nested loop of primary-key lookups
             * whatever the planner believes of the task's size. Only the
             * owner writes its task's rows. */
            rc = db_exec(s->db,
                         "SELECT chunks_update($1, $2::text[], $3::text[], $4::int[],"
                         " $5::bigint[], $6::text[], $7::int[], $8::bigint[], $9::bigint[])",
                         9, p, err, sizeof err);
        }
        sbuf_close(&k);
        sbuf_close(&st);
        sbuf_close(&at);
        sbuf_close(&nb);
        sbuf_close(&wk);
        sbuf_close(&sl);
        sbuf_close(&t0);
        sbuf_close(&t1);
        if (rc) {
            log_warning("task %s: updating chunk rows: %s", t->id, err);
            return -1;
        }
        for (int32_t i = 0; i < t->n_upd; i++)
            t->in_upd[t->upd[i]] = 0;
        t->n_upd = 0;
    }
    if (t->progress_dirty) {
        char done[24];
        snprintf(done, sizeof done, "%lld", (long long)t->n_done);
        const char *p[] = {t->id, done};
        if (db_exec(s->db, "UPDATE tasks SET chunks_done = $2 WHERE id = $1", 2, p, err,
                    sizeof err)) {
            log_warning("task %s: progress: %s", t->id, err);
            return -1;
        }
        t->progress_dirty = false;
    }
    return 0;
}

/* Appends s to a COPY text-format field. */
static void copy_field(sbuf_t *b, const char *s, char end)
{
    for (; *s; s++) {
        switch (*s) {
        case '\\':
            sbuf_puts(b, "\\\\");
            break;
        case '\t':
            sbuf_puts(b, "\\t");
            break;
        case '\n':
            sbuf_puts(b, "\\n");
            break;
        case '\r':
            sbuf_puts(b, "\\r");
            break;
        default:
            sbuf_putc(b, *s);
        }
    }
    sbuf_putc(b, end);
}

/* The text of job j's chunk_index ({} outside any grid) into buf. */
static void chunk_index_text(const stask_t *t, const int64_t *gpos, int32_t j, char *buf,
                             size_t cap)
{
    const tile_t *tl = t->plan.t;
    if (gpos[j] < 0) {
        snprintf(buf, cap, "{}");
        return;
    }
    const tgrid_t *G = tl->grid[tl->jobs[j].node];
    int64_t co[MR_MAXDIM], rem = gpos[j];
    for (int d = G->shape.ndim - 1; d >= 0; d--) {
        co[d] = rem % G->nchunks[d];
        rem /= G->nchunks[d];
    }
    shape_text(buf, cap, G->shape.ndim, co);
}

/* A fresh task's rows in one COPY: W7's 142,860 rows in 1.1 s (the
 * foreign key's check and two long text keys per row make it slower than
 * STACK-NOTES' ~600k rows/s).
 * -1 with err; db_sqlstate tells a conflict. */
static int copy_rows(sched_t *s, stask_t *t, const int64_t *gpos, char *err, size_t errlen)
{
    const tile_t *tl = t->plan.t;
    const graph_t *g = t->plan.g;
    char now[40];
    int64_t ms = svc_wall_ms();
    time_t secs = (time_t)(ms / 1000);
    struct tm tmv;
    gmtime_r(&secs, &tmv);
    size_t nl = strftime(now, sizeof now, "%Y-%m-%d %H:%M:%S", &tmv);
    snprintf(now + nl, sizeof now - nl, ".%03d+00", (int)(ms % 1000));
    sbuf_t b;
    sbuf_init(&b);
    for (int32_t j = 0; j < t->n; j++) {
        if (!tl->live[j]) continue;
        const job_t *jb = &tl->jobs[j];
        char key[KEY_MAX], buf[MR_MAXDIM * 21 + 4];
        plan_chunk_key(&t->plan, t->id, j, key, sizeof key);
        copy_field(&b, t->id, '\t');
        copy_field(&b, key, '\t');
        copy_field(&b, g->nodes[jb->node].key, '\t');
        copy_field(&b, op_name(g->nodes[jb->node].op), '\t');
        chunk_index_text(t, gpos, j, buf, sizeof buf);
        copy_field(&b, buf, '\t');
        shape_text(buf, sizeof buf, jb->ndim, jb->shape);
        copy_field(&b, buf, '\t');
        copy_field(&b, dt_name((dtype_t)jb->dt), '\t');
        copy_field(&b, STATUS[t->st[j]], '\t');
        if (t->st[j] == S_DONE)
            copy_field(&b, now, '\n');
        else
            sbuf_puts(&b, "\\N\n"); /* NULL */
    }
    int rc = db_copy_in(s->db,
                        "COPY chunks (task_id, key, node_key, op, chunk_index, shape, dtype,"
                        " status, finished_at) FROM STDIN",
                        sbuf_str(&b), b.len, err, errlen);
    sbuf_close(&b);
    return rc;
}

/* Inserts a row per live job: by COPY for a fresh task (nobody wrote its
 * rows), else ON CONFLICT DO NOTHING (a takeover finds most of them there). */
static int insert_rows(sched_t *s, stask_t *t, bool fresh, char *err, size_t errlen)
{
    const tile_t *tl = t->plan.t;
    const graph_t *g = t->plan.g;
    /* grid position of each job, where it has one */
    int64_t *gpos = malloc(sizeof(int64_t) * (size_t)(t->n ? t->n : 1));
    if (!gpos) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int32_t j = 0; j < t->n; j++)
        gpos[j] = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        const tgrid_t *G = tl->grid[i];
        if (!G) continue;
        for (int64_t li = 0; li < G->total; li++)
            if (G->job[li] >= 0 && G->job[li] < t->n && tl->jobs[G->job[li]].node == i)
                gpos[G->job[li]] = li;
    }
    if (fresh) {
        if (copy_rows(s, t, gpos, err, errlen) == 0) {
            free(gpos);
            return 0;
        }
        if (strcmp(db_sqlstate(s->db), "23505") != 0) {
            free(gpos);
            return -1;
        }
        log_warning("task %s: its chunk rows exist already; inserting the missing ones", t->id);
    }
    sbuf_t k, nk, op, ci, sh, dt, st;
    sbuf_init(&k);
    sbuf_init(&nk);
    sbuf_init(&op);
    sbuf_init(&ci);
    sbuf_init(&sh);
    sbuf_init(&dt);
    sbuf_init(&st);
    int rc = 0, cnt = 0;
    arr_open(&k), arr_open(&nk), arr_open(&op), arr_open(&ci), arr_open(&sh), arr_open(&dt),
        arr_open(&st);
    for (int32_t j = 0; j <= t->n && rc == 0; j++) {
        if (j < t->n && tl->live[j]) {
            const job_t *jb = &tl->jobs[j];
            const graph_node_t *nd = &g->nodes[jb->node];
            char key[KEY_MAX], buf[MR_MAXDIM * 21 + 4];
            plan_chunk_key(&t->plan, t->id, j, key, sizeof key);
            arr_elem(&k, key);
            arr_elem(&nk, nd->key);
            arr_elem(&op, op_name(nd->op));
            chunk_index_text(t, gpos, j, buf, sizeof buf);
            arr_elem(&ci, buf);
            shape_text(buf, sizeof buf, jb->ndim, jb->shape);
            arr_elem(&sh, buf);
            arr_elem(&dt, dt_name((dtype_t)jb->dt));
            arr_elem(&st, STATUS[t->st[j]]);
            cnt++;
        }
        if (cnt == ROW_BATCH || (j == t->n && cnt > 0)) {
            sbuf_putc(&k, '}'), sbuf_putc(&nk, '}'), sbuf_putc(&op, '}'), sbuf_putc(&ci, '}'),
                sbuf_putc(&sh, '}'), sbuf_putc(&dt, '}'), sbuf_putc(&st, '}');
            const char *p[] = {t->id,         sbuf_str(&k),  sbuf_str(&nk), sbuf_str(&op),
                               sbuf_str(&ci), sbuf_str(&sh), sbuf_str(&dt), sbuf_str(&st)};
            rc =
                db_exec(s->db,
                        "INSERT INTO chunks (task_id, key, node_key, op, chunk_index, shape, dtype,"
                        " status, finished_at)"
                        " SELECT $1, u.k, u.n, u.o, u.ci::bigint[], u.sh::bigint[], u.d, u.st,"
                        " CASE WHEN u.st = 'done' THEN now() END"
                        " FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[],"
                        " $7::text[], $8::text[]) AS u(k, n, o, ci, sh, d, st)"
                        " ON CONFLICT (task_id, key) DO NOTHING",
                        8, p, err, errlen);
            cnt = 0;
            arr_open(&k), arr_open(&nk), arr_open(&op), arr_open(&ci), arr_open(&sh), arr_open(&dt),
                arr_open(&st);
        }
    }
    sbuf_close(&k);
    sbuf_close(&nk);
    sbuf_close(&op);
    sbuf_close(&ci);
    sbuf_close(&sh);
    sbuf_close(&dt);
    sbuf_close(&st);
    free(gpos);
    return rc;
}

/* ---- task state ---------------------------------------------------------------- */

/* Distinct live inputs and consumers of every live job (tile_edges). */
static int build_edges(stask_t *t)
{
    tile_edges_t e;
    if (tile_edges(t->plan.t, &e)) return -1;
    t->dep_off = e.dep_off;
    t->deps = e.deps;
    t->con_off = e.con_off;
    t->cons = e.cons;
    return 0;
}

static bool kept(const stask_t *t, int32_t j)
{
    return t->plan.t->jobs[j].keep || t->plan.t->jobs[j].kind == JK_SOURCE;
}

static void remember_ended(sched_t *s, const char *tid)
{
    snprintf(s->ended[s->ended_next], sizeof s->ended[0], "%s", tid);
    s->ended_next = (s->ended_next + 1) % ENDED_RING;
}

static bool recently_ended(const sched_t *s, const char *tid)
{
    for (int i = 0; i < ENDED_RING; i++)
        if (strcmp(s->ended[i], tid) == 0) return true;
    return false;
}

/* Frees every chunk this task stored (not the session tensors' it read)
 * and its location hash. Chunks still being computed are left to the
 * workers' collection. */
static void del_task_chunks(sched_t *s, stask_t *t)
{
    char err[256];
    for (int32_t j = 0; j < t->n; j++)
        if (t->plan.t->live[j] && t->plan.t->jobs[j].kind != JK_SOURCE && t->st[j] == S_DONE)
            free_job(s, t, j);
    strlist_clear(&t->hdel);
    redisReply *r = rq_command(s->rq, err, sizeof err, "DEL " MSG_LOC "%s", t->id);
    if (r) freeReplyObject(r);
    flush_pushes(s);
}

static void notify_done(sched_t *s, const char *tid)
{
    char err[256];
    const char *p[] = {tid};
    if (db_exec(s->db, "SELECT pg_notify('mars_task_done', $1)", 1, p, err, sizeof err))
        log_warning("notify of %s: %s", tid, err);
}

static void drop_plan(sched_t *s, const char *tid)
{
    char err[256];
    redisReply *r = rq_command(s->rq, err, sizeof err, "DEL mars:plan:%s", tid);
    if (r) freeReplyObject(r);
}

/* Ends a task that failed (msg) or was cancelled (msg NULL). */
static void end_revive(sched_t *s, stask_t *t, const char *msg);

static void end_task(sched_t *s, stask_t *t, const char *msg)
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
static void finish_task(sched_t *s, stask_t *t)
{
    char err[1024];
    if (t->revive) {
        end_revive(s, t, NULL);
        return;
    }
    const tile_t *tl = t->plan.t;
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
    for (int f = 0; f < g->n_fetch && rc == 0; f++) {
        int node = g->fetch[f];
        bool dup = false;
        for (int e = 0; e < f; e++)
            dup = dup || g->fetch[e] == node;
        const tgrid_t *G = tl->grid[node];
        if (dup || !G) continue;
        arr_open(&keys);
        sbuf_reset(&bounds);
        sbuf_putc(&bounds, '[');
        int64_t nbytes = 0;
        for (int64_t li = 0; li < G->total; li++) {
            char key[KEY_MAX];
            plan_chunk_key(&t->plan, t->id, G->job[li], key, sizeof key);
            arr_elem(&keys, key);
            const job_t *jb = &tl->jobs[G->job[li]];
            /* a frame blob's size is the one its worker reported */
            nbytes += jb->blob ? (t->nbytes[G->job[li]] > 0 ? t->nbytes[G->job[li]] : 0)
                               : (int64_t)job_nbytes(jb);
        }
        sbuf_putc(&keys, '}');
        /* a frame's grid is its list of chunks: bounds 0..nchunks */
        bool framed =
            g->nodes[node].df && (g->nodes[node].vkind != VK_TENSOR || g->nodes[node].df->held);
        for (int d = 0; d < G->shape.ndim; d++) {
            sbuf_puts(&bounds, d ? ",[" : "[");
            for (int64_t i = 0; i <= G->nchunks[d]; i++)
                sbuf_printf(&bounds, "%s%lld", i ? "," : "",
                            (long long)(framed ? i : G->bounds[d][i]));
            sbuf_putc(&bounds, ']');
        }
        sbuf_putc(&bounds, ']');
        char shape[MR_MAXDIM * 21 + 4], nb[24];
        shape_text(shape, sizeof shape, G->shape.ndim, G->shape.d);
        snprintf(nb, sizeof nb, "%lld", (long long)nbytes);
        /* DataFrames, Series and to_tensor results are stored as frame blobs:
         * their dtype text says so (docs/graph-format.md, DataFrames) */
        const graph_node_t *gn = &g->nodes[node];
        const char *dtxt = !framed                     ? dt_name(G->dt)
                           : gn->vkind == VK_DATAFRAME ? "dataframe"
                           : gn->vkind == VK_SERIES    ? "series"
                           : gn->df && gn->df->held    ? "frame-tensor"
                                                       : dt_name(G->dt);
        const char *p[] = {t->session, g->nodes[node].key, t->id,           shape,
                           dtxt,       sbuf_str(&bounds),  sbuf_str(&keys), nb};
        PGresult *r = db_query(
            s->db,
            "WITH old AS (SELECT unnest(chunk_keys) AS k FROM tensors"
            " WHERE session_id = $1 AND key = $2),"
            " up AS (INSERT INTO tensors (session_id, key, task_id, shape, dtype, bounds,"
            " chunk_keys, nbytes) VALUES ($1, $2, $3, $4::bigint[], $5, $6::jsonb, $7::text[],"
            " $8::bigint) ON CONFLICT (session_id, key) DO UPDATE SET task_id = EXCLUDED.task_id,"
            " shape = EXCLUDED.shape, dtype = EXCLUDED.dtype, bounds = EXCLUDED.bounds,"
            " chunk_keys = EXCLUDED.chunk_keys, nbytes = EXCLUDED.nbytes, created_at = now()"
            " RETURNING 1)"
            " SELECT k FROM old WHERE NOT (k = ANY ($7::text[]))",
            8, p, err, sizeof err);
        if (!r) {
            rc = -1;
            break;
        }
        for (int i = 0; i < PQntuples(r); i++)
            arr_elem(&orphans, PQgetvalue(r, i, 0));
        PQclear(r);
    }
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
static void job_done(sched_t *s, stask_t *t, int32_t j, const msg_done_t *d)
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

/* The failed job's row: status failed, its worker and the message (the
 * task ends with it; the dashboard shows it on the node). */
static void job_failed(sched_t *s, stask_t *t, int32_t j, const char *worker, const char *msg)
{
    char key[KEY_MAX], err[512];
    flush_rows(s, t); /* first: it would write the job back as queued */
    plan_chunk_key(&t->plan, t->id, j, key, sizeof key);
    const char *p[] = {t->id, key, worker, msg};
    if (db_exec(s->db,
                "UPDATE chunks SET status = 'failed', worker_id = $3, error = $4,"
                " finished_at = now() WHERE task_id = $1 AND key = $2",
                4, p, err, sizeof err))
        log_warning("task %s: recording the failed job %d: %s", t->id, (int)j, err);
}

/* A completion for a task we do not run stored chunk:<tid>:<job> on its
 * worker (or inline). If the task has ended and no tensor holds that
 * chunk, nothing will ever read or free it: free it. A task running under
 * another owner (ours lapsed) keeps it: the same bytes, maybe read
 * already. Rare (a worker that outlived its job's requeue), so one
 * statement per case is fine. */
static void zombie_of_ended(sched_t *s, const msg_done_t *d)
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

/* `retry` completions a job may send before its task fails with the last
 * one's message (a memory limit no worker can meet, an input nobody can
 * serve), and the back-off between them. */
#define RETRY_MAX 8
#define RETRY_BACKOFF_MS 250

static void delay_push(sched_t *s, stask_t *t, int32_t j, int64_t ms)
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
}

/* Pushes the delayed jobs that are due (and still waiting for it). */
static void push_delayed(sched_t *s)
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
            push_job(s, t, x->job);
    }
    s->n_delayed = k;
}

/* The job could not run where it was (its worker's memory limit, an input
 * whose holder did not answer): again, elsewhere, after a pause; the task
 * fails after RETRY_MAX of them in a row. */
static void job_retry(sched_t *s, stask_t *t, int32_t j, const msg_done_t *d)
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
    if (t->retries[j] == 1) {
        push_job_avoiding(s, t, j, avoid);
    } else {
        delay_push(s, t, j, (int64_t)RETRY_BACKOFF_MS * t->retries[j]);
    }
}

/* A completion line (msg.h). */
static void completion(sched_t *s, const char *m)
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
    if (job >= t->n || !t->plan.t->live[job] || d.attempt != t->attempt[job] ||
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

/* ---- claiming ---------------------------------------------------------------- */

typedef struct {
    sched_t *s;
    const char *session;
} loadctx_t;

static int load_source(void *ctx, const char *key, plan_src_t *out)
{
    loadctx_t *lc = ctx;
    char err[512];
    const char *p[] = {lc->session, key};
    PGresult *r = db_query(lc->s->db,
                           "SELECT json_build_object('shape', shape, 'dtype', dtype, 'bounds',"
                           " bounds, 'chunk_keys', chunk_keys)::text FROM tensors"
                           " WHERE session_id = $1 AND key = $2",
                           2, p, err, sizeof err);
    if (!r) {
        log_warning("looking up session tensor %s: %s", key, err);
        return -1;
    }
    int rc = -1;
    if (PQntuples(r) == 1) {
        json_error_t je;
        json_t *o = json_loads(PQgetvalue(r, 0, 0), 0, &je);
        if (o) rc = plan_src_parse(o, out, err, sizeof err);
        if (rc) log_warning("session tensor %s: %s", key, o ? err : je.text);
        json_decref(o);
    }
    PQclear(r);
    return rc;
}

/* Fails a task we could not even set up (a rejected document, say). */
static void fail_unstarted(sched_t *s, const char *tid, const char *msg)
{
    char err[512];
    const char *p[] = {tid, s->id, msg};
    if (db_exec(s->db,
                "UPDATE tasks SET status = 'failed', error = $3, finished_at = now()"
                " WHERE id = $1 AND owner_id = $2",
                3, p, err, sizeof err))
        log_warning("task %s: %s", tid, err);
    notify_done(s, tid);
    drop_plan(s, tid);
    log_info("task %s failed: %s", tid, msg);
    metrics_counter_inc(s->m_tasks_failed);
}

/* A task's chunk rows and its chunks_total (fresh: by COPY). */
static int write_rows(sched_t *s, stask_t *t, bool fresh)
{
    char err[1024];
    if (insert_rows(s, t, fresh, err, sizeof err)) {
        log_warning("task %s: writing chunk rows: %s (retried)", t->id, err);
        return -1;
    }
    char total[24], done[24];
    snprintf(total, sizeof total, "%lld", (long long)t->n_live);
    snprintf(done, sizeof done, "%lld", (long long)t->n_done);
    const char *p[] = {t->id, total, done};
    if (db_exec(s->db, "UPDATE tasks SET chunks_total = $2, chunks_done = $3 WHERE id = $1", 3, p,
                err, sizeof err))
        log_warning("task %s: %s", t->id, err);
    return 0;
}

/* After a takeover: which of the chunks done before still exist. A
 * chunk lives where mars:loc:<tid> says: inline (its key in Redis) or on
 * a worker that is still alive (its mars:worker:<id> hash). The others run
 * again with a higher attempt. */
static void takeover_check(sched_t *s, stask_t *t, const int32_t *check, int n_check)
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
            rq_append(s->rq, err, sizeof err, "EXISTS %s%s", PROTO_WORKER_KEY, reps[i]->str);
    }
    if (rq_flush_replies(s->rq, ex, n_check, err, sizeof err)) {
        memset(ex, 0, sizeof *ex * (size_t)n_check);
        goto out;
    }
    for (int i = 0; i < n_check; i++) {
        int32_t j = check[i];
        if (ex[i]->type == REDIS_REPLY_INTEGER && ex[i]->integer > 0) {
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

/* Takes a task over or on: tiles, writes the plan and the rows, queues
 * what is ready. */
static void start_task(sched_t *s, const char *tid, const char *session, const char *doc, int mode)
{
    char err[1024];
    bool takeover = mode != START_FRESH, revive = mode == START_REVIVE;
    stask_t *t = calloc(1, sizeof *t);
    if (!t) return;
    t->revive = revive;
    snprintf(t->id, sizeof t->id, "%s", tid);
    snprintf(t->session, sizeof t->session, "%s", session);
    loadctx_t lc = {s, session};
    int64_t t0 = svc_now_ms();
    if (plan_init(&t->plan, s->id, doc, strlen(doc))) {
        task_free(t);
        return;
    }
    t->plan.load = load_source;
    t->plan.load_ctx = &lc;
    t->plan.files_rq = s->rq;
    if (plan_tile(&t->plan, err, sizeof err)) {
        if (revive) {
            log_warning("task %s: its lost chunks cannot be made again: %s", tid, err);
            task_free(t);
            return;
        }
        fail_unstarted(s, tid, err);
        task_free(t);
        return;
    }
    t->plan.load = NULL;
    /* The gateway fills the seeds in; a row written otherwise gets them
     * here, in the row too, so that a takeover draws the same values. */
    int filled = revive ? 0 : plan_fill_seeds(&t->plan);
    if (filled > 0) {
        const char *p[] = {tid, t->plan.doc};
        if (db_exec(s->db, "UPDATE tasks SET graph = $2::json WHERE id = $1", 2, p, err,
                    sizeof err)) {
            log_warning("task %s: recording its seeds: %s (retried)", tid, err);
            task_free(t);
            return;
        }
    }
    metrics_histogram_observe(s->m_tiling, (double)(svc_now_ms() - t0) / 1000.0);
    const tile_t *tl = t->plan.t;
    int32_t n = t->n = tl->n_jobs;
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
        build_edges(t)) {
        fail_unstarted(s, tid, "supervisor: out of memory tiling the task");
        task_free(t);
        return;
    }
    for (int32_t j = 0; j < n; j++) {
        t->nbytes[j] = -1;
        t->placed[j] = -1;
        t->run[j] = (jrun_t){0, 0, -1};
        if (!tl->live[j]) continue;
        t->n_live++;
        if (tl->jobs[j].kind == JK_SOURCE) t->st[j] = S_DONE;
    }
    t->quiet = t->n_live > ROW_QUIET_JOBS;
    char *pl = plan_dump(&t->plan);
    redisReply *r = pl ? rq_command(s->rq, err, sizeof err, "SET mars:plan:%s %s", tid, pl) : NULL;
    free(pl);
    if (!r) {
        log_warning("task %s: writing its plan: %s (retried)", tid, pl ? err : "out of memory");
        task_free(t);
        return;
    }
    freeReplyObject(r);

    if (revive) {
        /* An ended task's results: those still where mars:loc says stay
         * done, the others (and what they need) run again. */
        int32_t *check = malloc(sizeof(int32_t) * nn);
        int n_check = 0;
        for (int32_t j = 0; check && j < n; j++) {
            if (!tl->live[j] || tl->jobs[j].kind == JK_SOURCE) continue;
            t->attempt[j] = 1;
            if (tl->jobs[j].keep) check[n_check++] = j;
        }
        takeover_check(s, t, check, n_check);
        free(check);
        for (int32_t j = n - 1; j >= 0; j--) {
            if (!tl->live[j] || t->st[j] == S_DONE) continue;
            bool need = tl->jobs[j].keep;
            for (int32_t k = t->con_off[j]; k < t->con_off[j + 1] && !need; k++)
                need = t->st[t->cons[k]] == S_WAIT;
            if (!need) t->st[j] = S_FREED;
        }
    }
    if (takeover && !revive) {
        /* Done chunks whose data still exists stay done; the rest run again
         * with a higher attempt, so that late completions are stale. */
        const char *p[] = {tid};
        PGresult *q = db_query(s->db,
                               "SELECT key, status, attempt, coalesce(nbytes, -1) FROM chunks"
                               " WHERE task_id = $1",
                               1, p, err, sizeof err);
        if (!q) {
            log_warning("task %s: reading its chunks: %s (retried)", tid, err);
            task_free(t);
            return;
        }
        char pre[100];
        int pl_len = snprintf(pre, sizeof pre, "chunk:%s:", tid);
        int nq = PQntuples(q), n_check = 0;
        int32_t *check = malloc(sizeof(int32_t) * (size_t)(nq ? nq : 1));
        for (int i = 0; check && i < nq; i++) {
            const char *k = PQgetvalue(q, i, 0);
            if (strncmp(k, pre, (size_t)pl_len) != 0) continue;
            long j = strtol(k + pl_len, NULL, 10);
            if (j < 0 || j >= n || !tl->live[j] || tl->jobs[j].kind == JK_SOURCE) continue;
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
        /* A job not done runs again only if a kept chunk needs it, directly
         * or through consumers that run again (consumers come later in job
         * order): a freed intermediate whose consumers are all done stays
         * freed. */
        for (int32_t j = n - 1; j >= 0; j--) {
            if (!tl->live[j] || t->st[j] == S_DONE) continue;
            bool need = tl->jobs[j].keep;
            for (int32_t k = t->con_off[j]; k < t->con_off[j + 1] && !need; k++)
                need = t->st[t->cons[k]] == S_WAIT;
            if (!need) t->st[j] = S_FREED;
        }
        for (int32_t j = 0; j < n; j++)
            if (tl->live[j] && tl->jobs[j].kind != JK_SOURCE) mark(t, j);
    }
    for (int32_t j = 0; j < n; j++)
        if (tl->live[j] && (t->st[j] == S_DONE || t->st[j] == S_FREED)) t->n_done++;
    int64_t t_rows = svc_now_ms();
    if (!revive && write_rows(s, t, !takeover)) {
        task_free(t);
        return;
    }
    t->next = s->tasks;
    s->tasks = t;
    /* waiting: inputs not done; uses: consumers still to run */
    for (int32_t j = 0; j < n; j++) {
        if (!tl->live[j]) continue;
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
    for (int32_t j = 0; j < n; j++)
        if (tl->live[j] && t->st[j] == S_WAIT && t->waiting[j] == 0) push_job(s, t, j);
    int64_t t_end = svc_now_ms();
    log_info("task %s %s: %lld live jobs of %d, %lld done (set-up %lld ms: tiling and plan"
             " %lld ms, chunk rows and queue %lld ms)",
             tid,
             revive     ? "revived"
             : takeover ? "taken over"
                        : "started",
             (long long)t->n_live, (int)n, (long long)t->n_done, (long long)(t_end - t0),
             (long long)(t_rows - t0), (long long)(t_end - t_rows));
    if (t->n_done == t->n_live) finish_task(s, t);
}

/* A revive ended: all its lost chunks made again (msg NULL) or not. The
 * chunks it made that no result needs are freed; the results stay. */
static void end_revive(sched_t *s, stask_t *t, const char *msg)
{
    char err[256];
    for (int32_t j = 0; j < t->n; j++)
        if (t->plan.t->live[j] && t->st[j] == S_DONE && !kept(t, j)) free_job(s, t, j);
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
static void revive_poll(sched_t *s)
{
    char err[256];
    redisReply *r = rq_command(s->rq, err, sizeof err, "LPOP " MSG_REVIVE " 16");
    if (!r) return;
    for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
        const char *tid = r->element[i]->str;
        if (!tid || task_find(s, tid) || strlen(tid) >= 72) continue;
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

static void claim(sched_t *s)
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
            if (task_find(s, tid)) continue; /* ours already; our lease lapsed for a while */
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
static void renew(sched_t *s)
{
    char err[512];
    if (!s->tasks) return;
    /* Only the tasks we track: one we claimed but could not set up lets its
     * lease lapse and is claimed again. */
    sbuf_t ids;
    sbuf_init(&ids);
    arr_open(&ids);
    int n_ids = 0;
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

/* `node "b" (matmul) chunk [0, 1] (job 5 of task T)` for messages. */
static void job_label(const stask_t *t, int32_t j, char *out, size_t cap)
{
    const tile_t *tl = t->plan.t;
    const job_t *jb = &tl->jobs[j];
    const graph_node_t *nd = &t->plan.g->nodes[jb->node];
    char idx[MR_MAXDIM * 21 + 8] = "";
    const tgrid_t *G = tl->grid[jb->node];
    for (int64_t li = 0; G && li < G->total; li++) {
        if (G->job[li] != j) continue;
        int64_t co[MR_MAXDIM], rem = li;
        for (int d = G->shape.ndim - 1; d >= 0; d--) {
            co[d] = rem % G->nchunks[d];
            rem /= G->nchunks[d];
        }
        size_t n = (size_t)snprintf(idx, sizeof idx, " chunk [");
        for (int d = 0; d < G->shape.ndim && n < sizeof idx; d++)
            n += (size_t)snprintf(idx + n, sizeof idx - n, "%s%lld", d ? ", " : "",
                                  (long long)co[d]);
        if (n < sizeof idx) snprintf(idx + n, sizeof idx - n, "]");
        break;
    }
    /* Bounded pieces: the whole fits the callers' 512 bytes. */
    snprintf(out, cap, "node \"%.128s\" (%.32s)%.200s (job %d of task %.72s)", nd->key,
             op_name(nd->op), idx, (int)j, t->id);
}

/* Lineage: the chunks of task t that lived on dead worker wid and are
 * still needed (by a consumer that has not run, or as a result) are made
 * again by running the jobs that made them, and, recursively, the jobs
 * that made their inputs when those were freed already. Consumers queued
 * meanwhile run again (attempt + 1: what they report is stale). Returns
 * the number of chunks lost. */
static int recover_lost(sched_t *s, stask_t *t, const char *wid)
{
    const tile_t *tl = t->plan.t;
    int32_t n = t->n;
    uint8_t *need = calloc((size_t)(n ? n : 1), 1);
    if (!need) abort();
    int lost = 0;
    for (int32_t j = 0; j < n; j++) {
        if (!tl->live[j] || tl->jobs[j].kind == JK_SOURCE || t->st[j] != S_DONE || t->inl[j] ||
            !t->worker[j] || strcmp(t->worker[j], wid) != 0)
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
        if (!tl->live[j]) continue;
        if (t->st[j] == S_DONE || t->st[j] == S_FREED) t->n_done++;
        t->waiting[j] = t->uses[j] = 0;
        for (int32_t k = t->dep_off[j]; k < t->dep_off[j + 1]; k++)
            if (t->st[t->deps[k]] != S_DONE) t->waiting[j]++;
        for (int32_t k = t->con_off[j]; k < t->con_off[j + 1]; k++)
            if (t->st[t->cons[k]] == S_WAIT || t->st[t->cons[k]] == S_QUEUED) t->uses[j]++;
    }
    for (int32_t j = 0; j < n; j++)
        if (tl->live[j] && t->st[j] == S_WAIT && t->waiting[j] == 0) push_job(s, t, j);
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
static void worker_dead(sched_t *s, const char *wid)
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
static void requeue_dead(sched_t *s)
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

static void start_task(sched_t *s, const char *tid, const char *session, const char *doc, int mode);

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
static int redis_lost(sched_t *s)
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
static void rebuild_after_loss(sched_t *s)
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

static void listen_open(sched_t *s)
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
static bool listen_poll(sched_t *s)
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

/* ---- the loop ---------------------------------------------------------------- */

static void take_completions(sched_t *s)
{
    char err[256];
    redisReply *r = rq_command_blocking(s->done, BLOCK_MS, err, sizeof err, "BLPOP mars:done:%s %s",
                                        s->id, BLOCK_S);
    if (!r) {
        log_warning("waiting for completions: %s", err);
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL);
        return;
    }
    if (r->type == REDIS_REPLY_ARRAY && r->elements == 2 && r->element[1]->str)
        completion(s, r->element[1]->str);
    bool got = r->type == REDIS_REPLY_ARRAY;
    freeReplyObject(r);
    while (got) {
        r = rq_command(s->done, err, sizeof err, "LPOP mars:done:%s %d", s->id, DRAIN_BATCH);
        if (!r) break;
        got = r->type == REDIS_REPLY_ARRAY && r->elements == DRAIN_BATCH;
        for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; i++)
            if (r->element[i]->str) completion(s, r->element[i]->str);
        freeReplyObject(r);
        flush_pushes(s);
    }
}

static void *sched_main(void *arg)
{
    sched_t *s = arg;
    int64_t next_tick = 0, next_dead = svc_now_ms() + DEAD_SCAN_MS;
    while (!atomic_load(&s->stop)) {
        int64_t now = svc_now_ms();
        bool notified = listen_poll(s);
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
        rq_connect(s->done, err, errlen))
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
