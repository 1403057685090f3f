/* msg.h: the messages the services exchange through Redis, and the names
 * of the keys that carry them (docs/cluster-protocol.md). One encode and
 * one parse function per message; everything that writes or reads one goes
 * through here. These are formats (STYLE 10): a field that has shipped
 * keeps its meaning; new fields go at the end, and parsers accept the
 * older, shorter forms.
 *
 * Messages:
 *   job         "<task_id> <job> <attempt>"
 *                 on mars:jobs (any worker) or mars:jobs:<worker_id>
 *                 (the worker holding most of its input bytes; others
 *                 steal), moved by the worker to mars:processing:<id>
 *   completion  "<task_id> <job> <attempt> <worker_id> ok <nbytes> <slot>
 *                <start_ms> <end_ms> <where>"  (<where>: w the worker
 *                keeps it, i inline in Redis under the chunk key; absent
 *                in the older form: inline)
 *               "<task_id> <job> <attempt> <worker_id> err <message>"
 *                 the job failed: its task fails with the message
 *               "<task_id> <job> <attempt> <worker_id> retry <message>"
 *                 the job could not run here (a memory limit, an input
 *                 whose holder is unreachable): run it again, elsewhere
 *                 on mars:done:<supervisor_id>
 *   location    "<worker_id>" or "@" (inline): the value of field <job>
 *                 of the hash mars:loc:<task_id>, where chunk
 *                 chunk:<task_id>:<job> lives
 *   free        "<chunk key>" on mars:free:<worker_id>: the worker drops
 *                 the chunk from its store
 *   revive      "<task_id>" on mars:revive: a supervisor recomputes the
 *                 lost result chunks of that ended task */
#ifndef MARS_SVC_MSG_H
#define MARS_SVC_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Ids (tasks, workers, supervisors): [A-Za-z0-9_-], at most 64. */
#define MSG_ID_MAX 72
/* A job message, with room to spare. */
#define MSG_JOB_MAX 300
/* Chunk store keys: "chunk:<tid>:<job>" or an upload's. */
#define MSG_KEY_MAX 256
/* An err/retry text: the engine's messages are one line under 1 KiB. */
#define MSG_TEXT_MAX 1200
/* A whole completion line. */
#define MSG_DONE_MAX (MSG_TEXT_MAX + 400)

/* Outputs at most this large travel inline in Redis (SET under the chunk
 * key): a reduction's partial of a few bytes costs a Redis round trip, not
 * an HTTP one, and nothing has to be freed on a worker. */
#define MSG_INLINE_MAX 4096

/* ---- key names ---- */
#define MSG_JOBS "mars:jobs"                /* list: jobs any worker may take */
#define MSG_WJOBS "mars:jobs:"              /* + worker id: jobs placed on that worker */
#define MSG_PROCESSING "mars:processing:"   /* + worker id */
#define MSG_DONE "mars:done:"               /* + supervisor id */
#define MSG_PLAN "mars:plan:"               /* + task id */
#define MSG_JOBDESC "mars:jd:"              /* + task id: hash job -> job descriptor */
#define MSG_LOC "mars:loc:"                 /* + task id: hash job -> location */
#define MSG_FREE "mars:free:"               /* + worker id */
#define MSG_REVIVE "mars:revive"            /* list of task ids */
#define MSG_REVIVING "mars:reviving:"       /* + task id: a supervisor's claim, expiring */
#define MSG_UNREACHABLE "mars:unreachable:" /* + worker id: a reader could not reach it */
/* Wake-ups of a supervisor's loop, which blocks on Redis (BLPOP of its
 * completions): Redis ends a blocking pop's timeout only at its own clock
 * (hz 10 by default: up to 100 ms late), so whatever should make the loop
 * turn at once pushes here. MSG_WAKE is any supervisor's (a submission, a
 * cancel: whichever wakes claims); MSG_WAKE_SELF goes to the supervisor's
 * own completion list (its tiler finished). Both are trimmed to
 * MSG_WAKE_KEEP entries, so that none grows while no supervisor runs. */
#define MSG_WAKE "mars:wake"
#define MSG_WAKE_SELF "wake"
#define MSG_WAKE_KEEP 8
#define MSG_INLINE_LOC "@"
/* How long a worker stays unreachable for revives once a reader found it
 * so (its live report may outlive it by up to 10 s). */
#define MSG_UNREACHABLE_S 30

/* Lua (EVAL with KEYS mars:worker:<id>, mars:unreachable:<id>): the
 * worker's address while its live report exists and no reader found it
 * unreachable; nil otherwise. */
#define MSG_ALIVE_ADDR_SCRIPT                                                                      \
    "local a = redis.call('HGET', KEYS[1], 'address')"                                             \
    " if a and redis.call('EXISTS', KEYS[2]) == 0 then return a end return false"

/* ---- job ---- */
int msg_job_fmt(char *out, size_t cap, const char *tid, int32_t job, int attempt);
/* 0, or -1 for a malformed message. */
int msg_job_parse(const char *m, char *tid, size_t tid_cap, int32_t *job, int *attempt);

/* ---- completion ---- */
typedef enum { MSG_OK = 0, MSG_ERR, MSG_RETRY } msg_kind_t;

typedef struct {
    char tid[MSG_ID_MAX];
    int32_t job;
    int attempt;
    char worker[MSG_ID_MAX];
    msg_kind_t kind;
    /* ok */
    int64_t nbytes;
    int slot;                /* -1: not reported */
    int64_t t0, t1;          /* ms since the epoch, worker's clock; 0: not reported */
    bool inline_data;        /* stored in Redis under the chunk key */
    char text[MSG_TEXT_MAX]; /* err, retry */
} msg_done_t;

/* The completion as a line (newlines in the text become spaces). Returns
 * the length, or -1 when it does not fit. */
int msg_done_fmt(char *out, size_t cap, const msg_done_t *d);
/* 0, or -1 for a malformed line. */
int msg_done_parse(const char *m, msg_done_t *d);

/* ---- chunk keys and locations ---- */
/* "chunk:<tid>:<job>" */
int msg_chunk_key(char *out, size_t cap, const char *tid, int32_t job);
/* The task and job of a task's chunk key; -1 for any other key (an
 * upload's "chunk:up:..."). */
int msg_chunk_key_parse(const char *key, char *tid, size_t tid_cap, int32_t *job);
/* Whether the location value says inline. */
bool msg_loc_inline(const char *loc);

struct rq;
/* Queues (rq_append) the wake-up of a supervisor's loop: LPUSH MSG_WAKE,
 * trimmed to MSG_WAKE_KEEP. 0, or -1 with err. */
int msg_append_wake(struct rq *rq, char *err, size_t errlen);
/* Asks the supervisors to make an ended task's lost chunks again
 * (MSG_REVIVE) and wakes one, so that the revive starts now rather than at
 * its next tick (up to a second). 0, or -1 with err. */
int msg_ask_revive(struct rq *rq, const char *tid, char *err, size_t errlen);

#endif
