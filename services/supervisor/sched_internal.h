/* sched_internal.h: what the scheduler's files share (sched.c: the loop;
 * sched_task.c: the task state machine; sched_place.c: placement, locations
 * and frees; sched_rows.c: PostgreSQL writes; sched_lease.c: leases, dead
 * workers, Redis loss; sched_util.c: helpers). Everything runs on the
 * scheduler's one thread: the state of a task is this thread's alone, so
 * nothing is locked. Not a public interface. */
#ifndef MARS_SUPERVISOR_SCHED_INTERNAL_H
#define MARS_SUPERVISOR_SCHED_INTERNAL_H

#include "sched.h"

#include "cuda/gpu_exec.h"
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
/* config.h's CFG_TOKEN_MAX: a bearer token of up to 256 bytes. */
#define CFG_TOKEN_MAX_SCHED 257

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

typedef struct tiler tiler_t; /* sched_tiler.c */

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

/* Queues `cmd key v...` for every value of l, ARGV_BATCH values a command. */
#define ARGV_BATCH 1000

/* A worker known alive: jobs are placed on its queue mars:jobs:<id>. */
typedef struct {
    char id[72];
    int n_cpu;
    int n_gpu; /* its CUDA devices (cuda_devices): device jobs go to such workers */
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
    int avoid; /* the worker that sent it back (sched.wk index), or -1 */
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
    char *plan_text; /* what mars:plan:<tid> holds (the tiler's plan_dump) */
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
    char token[CFG_TOKEN_MAX_SCHED]; /* the cluster's ("" none) */
    int worker_timeout_ms;
    int max_attempts;
    int64_t sort_block_bytes; /* tile_opts_t's; 0: the default */
    bool sentinel_set;        /* mars:sentinel:<id> written once: its loss is Redis's */
    bool lost_pending;        /* the loss is found, the rebuild not done yet */
    bool woken;               /* a wake-up came (msg.h MSG_WAKE): claim and collect now */
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
    /* `retry` jobs waiting for their turn to be pushed again. */
    delayed_t *delayed;
    int n_delayed, cap_delayed;
    metrics_counter_t *m_dispatched, *m_completed, *m_stale, *m_failed_jobs, *m_requeued;
    metrics_counter_t *m_tasks_ok, *m_tasks_failed, *m_tasks_cancelled, *m_redis_lost;
    metrics_histogram_t *m_tiling;
    tiler_t *tiler; /* sched_tiler.c */
};

/* Ends a task that failed (msg) or was cancelled (msg NULL). */

/* `retry` completions a job may send before its task fails with the last
 * one's message (a memory limit no worker can meet, an input nobody can
 * serve), and the back-off between them. */
#define RETRY_MAX 12
#define RETRY_BACKOFF_MS 250
/* ... doubling up to this: twelve tries span about 40 s, past the time a
 * dead worker takes to be found (--worker-timeout) and its chunks made
 * again. */
#define RETRY_BACKOFF_MAX_MS 5000

/* ---- claiming ---------------------------------------------------------------- */

typedef struct {
    db_t *db; /* the tiler's connection */
    const char *session;
} loadctx_t;

/* ---- sched_util.c ---- */
void strlist_add(strlist_t *l, const char *str);
void strlist_clear(strlist_t *l);
int strlist_append_cmds(rq_t *r, const char *cmd, const char *key, const strlist_t *l, char *err,
                        size_t errlen);
void arr_elem(sbuf_t *b, const char *s);
void arr_open(sbuf_t *b);
void shape_text(char *out, size_t cap, int ndim, const int64_t *d);
stask_t *task_find(sched_t *s, const char *id);
void task_free(stask_t *t);
void task_unlink(sched_t *s, stask_t *t);
void mark(stask_t *t, int32_t j);
int build_edges(stask_t *t);
bool kept(const stask_t *t, int32_t j);
void remember_ended(sched_t *s, const char *tid);
bool recently_ended(const sched_t *s, const char *tid);
void notify_done(sched_t *s, const char *tid);
void drop_plan(sched_t *s, const char *tid);
void job_label(const stask_t *t, int32_t j, char *out, size_t cap);

/* ---- sched_place.c ---- */
int wk_find(const sched_t *s, const char *id);
int wk_add(sched_t *s, const char *id, int n_cpu);
int wk_add_gpu(sched_t *s, const char *id, int n_cpu, int n_gpu);
void wk_refresh(sched_t *s);
int place_job(sched_t *s, stask_t *t, int32_t j, int avoid);
void unplace(sched_t *s, stask_t *t, int32_t j);
void push_job_avoiding(sched_t *s, stask_t *t, int32_t j, int avoid);
void push_job(sched_t *s, stask_t *t, int32_t j);
void set_location(sched_t *s, stask_t *t, int32_t j, const char *worker, bool inl);
void free_at(sched_t *s, const char *key, const char *worker, bool inl);
void free_job(sched_t *s, stask_t *t, int32_t j);
void free_keys_lookup(sched_t *s, char **keys, int n);
void flush_pushes(sched_t *s);
void delay_push(sched_t *s, stask_t *t, int32_t j, int64_t ms, int avoid);
void push_delayed(sched_t *s);

/* ---- sched_rows.c ---- */
int flush_rows(sched_t *s, stask_t *t);
void copy_field(sbuf_t *b, const char *s, char end);
void chunk_index_text(const stask_t *t, const int64_t *gpos, int32_t j, char *buf, size_t cap);
int copy_rows(sched_t *s, stask_t *t, const int64_t *gpos, char *err, size_t errlen);
int insert_rows(sched_t *s, stask_t *t, bool fresh, char *err, size_t errlen);
int tensor_row(sched_t *s, stask_t *t, int f, sbuf_t *keys, sbuf_t *bounds, sbuf_t *orphans,
               char *err, size_t errlen);
void job_failed(sched_t *s, stask_t *t, int32_t j, const char *worker, const char *msg);
int load_source(void *ctx, const char *key, plan_src_t *out);
void fail_unstarted(sched_t *s, const char *tid, const char *msg);
int write_rows(sched_t *s, stask_t *t, bool fresh);

/* ---- sched_task.c ---- */
void del_task_chunks(sched_t *s, stask_t *t);
void end_task(sched_t *s, stask_t *t, const char *msg);
void finish_task(sched_t *s, stask_t *t);
void job_done(sched_t *s, stask_t *t, int32_t j, const msg_done_t *d);
void zombie_of_ended(sched_t *s, const msg_done_t *d);
void job_retry(sched_t *s, stask_t *t, int32_t j, const msg_done_t *d);
void completion(sched_t *s, const char *m);
void takeover_check(sched_t *s, stask_t *t, const int32_t *check, int n_check);
void mark_unneeded_freed(stask_t *t);
void revive_state(sched_t *s, stask_t *t);
int takeover_state(sched_t *s, stask_t *t);
void task_queue(sched_t *s, stask_t *t, bool takeover);
void start_task(sched_t *s, const char *tid, const char *session, const char *doc, int mode);
void start_tiled(sched_t *s, stask_t *t, int mode, int64_t t0);
int publish_plan(sched_t *s, stask_t *t, char *err, size_t errlen);
void end_revive(sched_t *s, stask_t *t, const char *msg);
void revive_poll(sched_t *s);

/* ---- sched_lease.c ---- */
void claim(sched_t *s);
void renew(sched_t *s);
int recover_lost(sched_t *s, stask_t *t, const char *wid);
void worker_dead(sched_t *s, const char *wid);
void requeue_dead(sched_t *s);
int redis_lost(sched_t *s);
void rebuild_after_loss(sched_t *s);
void listen_open(sched_t *s);
bool listen_poll(sched_t *s);

/* ---- sched_tiler.c ---- */
int tiler_start(sched_t *s, const char *dsn, const char *redis_url, char *err, size_t errlen);
void tiler_free(sched_t *s);
/* Queues task tid's tiling (nothing when it is queued already). */
void tiler_submit(sched_t *s, const char *tid, const char *session, const char *doc, int mode);
/* Whether tid waits for its tiling or its start. */
bool tiler_has(sched_t *s, const char *tid);
/* Appends the ids of those waiting (not revives) to an array text. */
void tiler_ids(sched_t *s, sbuf_t *ids, int *n);
/* Starts the tasks tiled since the last call (start_tiled); their number. */
int tiler_collect(sched_t *s);

/* ---- sched.c ---- */
void take_completions(sched_t *s);

#endif
