/* dispatch.c: the worker's job loop (see dispatch.h). */
#include "dispatch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cuda/gpu.h"
#include "exec.h"
#include "inputs.h"
#include "kern/kern.h"
#include "log.h"
#include "memguard.h"
#include "msg.h"
#include "owned.h"
#include "plan.h"
#include "rq.h"
#include "store.h"
#include "svc.h"
#include "taskcache.h"

#define LOG_MODULE "dispatch"

/* A slot blocks this long on its own queue when there is nothing to take
 * or steal: a job placed on it wakes it at once; one on mars:jobs or on a
 * busy peer's queue waits at most this. Within the 2 s socket timeout
 * (rq.h). */
#define BLOCK_MS 100
#define BLOCK_S "0.1"
/* Between tries of a Redis step that must happen (reading the job's
 * task state, storing a result): rq backs off its reconnects meanwhile. A
 * message left on our processing list while we keep heartbeating would
 * stall its task for ever, so these steps are retried until they work or
 * the worker stops (then the supervisor requeues the message once our
 * heartbeat lapses). A warning every RETRY_LOG_EVERY tries (~3 s). */
#define RETRY_SLEEP_MS 300
#define RETRY_LOG_EVERY 10
/* While above the soft memory limit a slot takes no job; it looks again
 * this often. */
#define PAUSE_MS 20

/* Jobs a slot takes in one round trip (TAKE_SCRIPT): one per TAKE_SPREAD
 * waiting, at most BATCH_MAX. A short queue is taken one job at a time, so
 * that big jobs spread over the slots; a long one (W7: 125k map jobs of a
 * few us each) in batches, which divides the round trips per job. */
#define BATCH_MAX 32
#define TAKE_SPREAD 16
/* A batch's reports (inline output SET, completion RPUSH, message LREM) go
 * in one pipeline, sent early once the inline outputs pending hold this
 * many bytes or the first has waited this long (its successors wait). */
#define REPORT_BYTES (1 << 20)
#define REPORT_MS 2

/* What a slot runs now, for the heartbeat's `slots` (proto.h). */
typedef struct {
    bool busy;
    char tid[72];
    int32_t job;
    char node[GRAPH_KEY_MAX + 1];
    const char *op; /* static (op_name) */
    int64_t started_ms;
} slot_job_t;

struct dispatch {
    const cfg_t *cfg;
    char id[72];
    atomic_int running;
    _Atomic int64_t done;
    atomic_bool stop;
    int n_threads;
    pthread_t *threads;
    atomic_int next_slot;
    pthread_mutex_t smu; /* slots */
    slot_job_t *slots;
    store_t *store;
    memguard_t *mg;
    addrs_t *addrs;
    owned_t *owned; /* the chunks we made, collected once garbage */
    metrics_registry_t *metrics;
    taskcache_t *tasks; /* parsed plans of recent tasks */
    metrics_counter_t *m_ok, *m_err, *m_dropped, *m_retry, *m_hit, *m_miss, *m_stolen;
    metrics_counter_t *m_fetched;
    metrics_histogram_t *m_seconds, *m_decode;
};

/* ---- batches ---------------------------------------------------------------- */

/* KEYS[1] our queue (mars:jobs:<id>), KEYS[2] mars:jobs, KEYS[3] our
 * processing list; ARGV[1] TAKE_SPREAD, ARGV[2] BATCH_MAX, ARGV[3] our id.
 * From our queue, else from mars:jobs: LMOVEs max(1, min(LLEN / spread,
 * max)) messages, as BLMOVE RIGHT LEFT would. Both empty: steals one job
 * from the longest queue of another worker (mars:wq lists them) that has
 * at least two waiting, or any waiting on a worker whose live report
 * expired. Returns {messages, stolen, info}: info holds per message its
 * task's cancel key (EXISTS), plan prefix (GETRANGE 0 ARGV[4]) and its
 * descriptor (HGET mars:jd), what handle_batch would otherwise ask for in a
 * second round trip (a message the script cannot read gets a nil prefix:
 * handle_batch then asks itself). A script runs atomically: no message is
 * ever in no list. */
static const char TAKE_SCRIPT[] =
    "local function take(q)"
    "  local n = math.floor(redis.call('LLEN', q) / tonumber(ARGV[1]))"
    "  if n < 1 then n = 1 end"
    "  if n > tonumber(ARGV[2]) then n = tonumber(ARGV[2]) end"
    "  local out = {}"
    "  for i = 1, n do"
    "   local m = redis.call('LMOVE', q, KEYS[3], 'RIGHT', 'LEFT')"
    "   if not m then break end"
    "   out[#out + 1] = m"
    "  end"
    "  return out"
    " end"
    " local function info(out)"
    "  local res = {}"
    "  for _, m in ipairs(out) do"
    "   local tid, job = string.match(m, '^(%S+) (%d+)')"
    "   if tid then"
    "    res[#res + 1] = redis.call('EXISTS', 'mars:task:' .. tid .. ':cancel')"
    "    res[#res + 1] = redis.call('GETRANGE', '" MSG_PLAN "' .. tid, 0, tonumber(ARGV[4]))"
    "    res[#res + 1] = redis.call('HGET', '" MSG_JOBDESC "' .. tid, job)"
    "   else"
    "    res[#res + 1] = 0; res[#res + 1] = false; res[#res + 1] = false"
    "   end"
    "  end"
    "  return res"
    " end"
    " local out = take(KEYS[1])"
    " if #out == 0 then out = take(KEYS[2]) end"
    " if #out > 0 then return {out, 0, info(out)} end"
    " local best, blen = nil, 0"
    " for _, w in ipairs(redis.call('SMEMBERS', 'mars:wq')) do"
    "  if w ~= ARGV[3] then"
    "   local q = 'mars:jobs:' .. w"
    "   local l = redis.call('LLEN', q)"
    "   if l == 0 then redis.call('SREM', 'mars:wq', w)"
    "   elseif l >= 2 or redis.call('EXISTS', 'mars:worker:' .. w) == 0 then"
    "    if l > blen then best, blen = q, l end"
    "   end"
    "  end"
    " end"
    " if best then"
    "  local m = redis.call('LMOVE', best, KEYS[3], 'LEFT', 'LEFT')"
    "  if m then return {{m}, 1, info({m})} end"
    " end"
    " return {{}, 0}";

/* One job's report, sent with the batch's others. */
typedef struct {
    char msg[MSG_JOB_MAX]; /* the job message, LREMed from the processing list */
    char owner[72];        /* completion list: mars:done:<owner>; "" when dropped */
    char line[MSG_DONE_MAX];
    char key[MSG_KEY_MAX]; /* an inline output: SET first */
    void *out;             /* its bytes (owned), or NULL */
    size_t n;
    bool stored; /* an output kept in our store: counted done once reported */
} report_t;

typedef struct {
    report_t *v; /* BATCH_MAX */
    int n;
    size_t bytes;
    int64_t first_ms;
} reports_t;

/* The cancel key and plan prefix of a task, read once per batch. */
typedef struct {
    char tid[72];
    bool cancelled, gone;
    char prefix[TASKCACHE_PREFIX];
    size_t plen;
} tcheck_t;

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- one job ---------------------------------------------------------------- */

/* Memory job ji may need beyond what is resident now: its output, the
 * inputs it must bring in, and as much again as its output for the
 * kernel's scratch (a blob job's output is not known before it runs: its
 * inputs' size stands for it). */
static int64_t job_need(const islot_t *is, const char *tid, const plan_t *p, const tile_t *t)
{
    int64_t miss = inputs_missing_bytes(is, tid, p, t, 0);
    int64_t out = tile_job_is_blob(t, 0) ? miss : (int64_t)tile_job_nbytes(t, 0);
    return miss + 2 * out;
}

static const void *in_get_dev(void *ctx, int32_t job)
{
    size_t len;
    return inputs_get(ctx, job, &len);
}

/* An input's bytes on the host (gpu_exec_job's get_host: pieces assembled
 * on the host), copied back first if they were only on a device. */
static const void *in_get_host(void *ctx, int32_t job)
{
    size_t len;
    const void *h = inputs_get(ctx, job, &len);
    char err[320];
    if (h && gpu_to_host(h, err, sizeof err)) {
        log_warning("input of job %d: %s", (int)job, err);
        return NULL;
    }
    return h;
}

/* The device a job runs on (docs/gpu.md): one of this worker's when its
 * kind has a device kernel and the task's "device" gives it one (slot s
 * picks among them); -1: the CPU. */
static int job_device(const dispatch_t *d, int slot, const plan_t *p, const tile_t *t)
{
    if (d->cfg->n_cuda == 0) return -1;
    if (!gpu_job_preferred(t, 0, p->g->device, NULL)) return -1;
    return d->cfg->cuda[slot % d->cfg->n_cuda];
}

/* Runs the job of descriptor t (its job 0) with its inputs loaded: 0 with
 * *out (malloc'ed, *n bytes), or an INPUTS_ code with err naming the node. */
static int run_job(dispatch_t *d, islot_t *is, const char *tid, const plan_t *p, const tile_t *t,
                   void **out, size_t *n, char *err, size_t errlen)
{
    const int32_t ji = 0;
    bool blob = tile_job_is_blob(t, ji);
    const graph_node_t *nd = &p->g->nodes[tile_job_node(t, ji)];
    jinputs_t in;
    int dev = job_device(d, is->slot, p, t);
    int rc = inputs_load(is, tid, p, t, ji, dev >= 0, &in, err, errlen);
    if (rc) return rc;
    if (in.fetched_bytes) metrics_counter_add(d->m_fetched, (double)in.fetched_bytes);
    for (int i = 0; i < in.n; i++)
        metrics_counter_inc(in.own[i] ? d->m_miss : d->m_hit);
    size_t want = tile_job_nbytes(t, ji);
    void *buf = blob ? NULL : malloc(want ? want : 1), *bl = NULL;
    size_t blob_len = 0;
    if (!blob && !buf) {
        snprintf(err, errlen, "node \"%s\" (%s): out of memory for a %zu-byte chunk", nd->key,
                 op_name(nd->op), want);
        inputs_done(is, &in);
        return INPUTS_ERR;
    }
    char e2[900];
    rc = 1;
    if (dev >= 0) {
        /* inputs read from the store and the output stay on the device for
         * the next jobs there (store.c forgets a chunk when it frees it; an
         * inline output is forgotten when reported). The output's bytes
         * come back when something else reads them: a CPU job, a peer, the
         * gateway or a spill (store.c), or at once when they go inline
         * with the report */
        rc = gpu_exec_job(dev, t, ji, in_get_dev, in_get_host, &in, buf, true, NULL, e2, sizeof e2);
        if (rc == 0 && want <= MSG_INLINE_MAX && gpu_to_host(buf, e2, sizeof e2)) rc = -1;
        if (rc != 0) gpu_forget(buf);
        if (rc == 1 && inputs_to_host(&in, e2, sizeof e2)) rc = -1; /* the CPU after all */
        if (rc == -1) rc = INPUTS_ERR;
    }
    if (rc == 1)
        rc = exec_job_any(t, ji, inputs_get, &in, buf, &bl, &blob_len, e2, sizeof e2) ? INPUTS_ERR
                                                                                      : 0;
    if (rc) {
        snprintf(err, errlen, "node \"%.128s\" (%.32s): %s", nd->key, op_name(nd->op), e2);
    }
    inputs_done(is, &in);
    if (rc) {
        free(buf);
        free(bl);
        return rc;
    }
    *out = blob ? bl : buf;
    *n = blob ? blob_len : want;
    return 0;
}

/* Sleeps before try `tries` (none before the first); false when stopping. */
static bool retry_wait(dispatch_t *d, int tries)
{
    if (tries == 0) return true;
    struct timespec ts = {0, RETRY_SLEEP_MS * 1000 * 1000};
    nanosleep(&ts, NULL);
    return !atomic_load(&d->stop);
}

static void slot_set(dispatch_t *d, int slot, const slot_job_t *j)
{
    pthread_mutex_lock(&d->smu);
    d->slots[slot] = *j;
    pthread_mutex_unlock(&d->smu);
}

/* Appends the pending reports to r's pipeline; the commands appended, or
 * -1 with err. */
static int reports_append(dispatch_t *d, rq_t *r, reports_t *rp, char *err, size_t errlen)
{
    int cmds = 0;
    for (int i = 0; i < rp->n; i++) {
        report_t *x = &rp->v[i];
        if (x->out) {
            if (rq_append(r, err, errlen, "SET %s %b", x->key, x->out, x->n)) return -1;
            cmds++;
        }
        if (x->owner[0]) {
            if (rq_append(r, err, errlen, "RPUSH " MSG_DONE "%s %s", x->owner, x->line)) return -1;
            cmds++;
        }
        if (rq_append(r, err, errlen, "LREM " MSG_PROCESSING "%s 1 %s", d->id, x->msg)) return -1;
        cmds++;
    }
    return cmds;
}

/* The reports went (ok) or are given up: counted, their outputs freed. */
static void reports_clear(dispatch_t *d, reports_t *rp, bool ok)
{
    for (int i = 0; i < rp->n; i++) {
        report_t *x = &rp->v[i];
        if (ok && (x->out || x->stored)) atomic_fetch_add(&d->done, 1);
        free(x->out);
        x->out = NULL;
    }
    rp->n = 0;
    rp->bytes = 0;
}

/* Sends the pending reports in one pipeline: per job the inline output's
 * SET, the completion's RPUSH and the message's LREM, in that order (a
 * message leaves the processing list only once reported). Outputs kept
 * in our store were put there before (a successor may read them as soon
 * as the supervisor sees the completion). Retried until it works or we
 * stop: a job never reported would stall its task while we keep beating.
 * Resending is harmless: the same bytes, and a second completion is
 * stale. */
static void reports_flush(dispatch_t *d, rq_t *r, reports_t *rp)
{
    if (rp->n == 0) return;
    char err[256];
    int rc = -1;
    for (int tries = 0; rc != 0 && retry_wait(d, tries); tries++) {
        if (tries && tries % RETRY_LOG_EVERY == 1)
            log_warning("reporting %d jobs: %s (retrying)", rp->n, err);
        rc = reports_append(d, r, rp, err, sizeof err) < 0 ? -1 : 0;
        if (rc == 0) rc = rq_flush(r, err, sizeof err);
    }
    if (rc)
        log_warning("reporting %d jobs: %s (stopping: left on the processing list)", rp->n, err);
    reports_clear(d, rp, rc == 0);
}

/* Queues a report (owner NULL: the message is only dropped); takes out. */
static void report_add(dispatch_t *d, rq_t *r, reports_t *rp, const char *msg, const char *owner,
                       const msg_done_t *done, void *out, size_t n, bool stored)
{
    if (rp->n == BATCH_MAX) reports_flush(d, r, rp);
    report_t *x = &rp->v[rp->n++];
    snprintf(x->msg, sizeof x->msg, "%s", msg);
    snprintf(x->owner, sizeof x->owner, "%s", owner ? owner : "");
    x->line[0] = '\0';
    if (done && msg_done_fmt(x->line, sizeof x->line, done) < 0)
        snprintf(x->line, sizeof x->line, "%s %d %d %s err the job's message did not fit",
                 done->tid, (int)done->job, done->attempt, done->worker);
    x->out = out;
    x->n = n;
    x->stored = stored;
    if (out) msg_chunk_key(x->key, sizeof x->key, done->tid, done->job);
    if (rp->n == 1) rp->first_ms = svc_now_ms();
    if (out) rp->bytes += n;
}

/* A completion of kind k with text (err, retry). */
static void report_text(dispatch_t *d, rq_t *r, reports_t *rp, const char *msg, const char *owner,
                        msg_done_t *done, msg_kind_t k, const char *text)
{
    done->kind = k;
    snprintf(done->text, sizeof done->text, "%s", text);
    report_add(d, r, rp, msg, owner, done, NULL, 0, false);
}

/* Keeps a job's output: inline (small: SET with the report) or in our
 * store (before the report goes). Reports it. */
static void report_output(dispatch_t *d, rq_t *r, reports_t *rp, const char *msg, const char *owner,
                          msg_done_t *done, void *out, size_t n)
{
    done->kind = MSG_OK;
    done->nbytes = (int64_t)n;
    done->inline_data = n <= MSG_INLINE_MAX;
    if (done->inline_data) {
        gpu_forget(out); /* sent inline, then freed: no device copy kept */
        report_add(d, r, rp, msg, owner, done, out, n, false);
        return;
    }
    char key[MSG_KEY_MAX];
    msg_chunk_key(key, sizeof key, done->tid, done->job);
    store_put(d->store, key, out, n, true);
    owned_add(d->owned, key);
    report_add(d, r, rp, msg, owner, done, NULL, 0, true);
}

/* Runs one job of a batch whose task passed its checks (ck); queues its
 * report. */
static void run_one(dispatch_t *d, islot_t *is, int slot, const char *msg, const char *tid,
                    int32_t ji, int attempt, const tcheck_t *ck, const redisReply *desc,
                    reports_t *rp)
{
    rq_t *r = is->r;
    char err[MSG_TEXT_MAX];
    msg_done_t done = {.job = ji, .attempt = attempt, .slot = slot};
    snprintf(done.tid, sizeof done.tid, "%s", tid);
    snprintf(done.worker, sizeof done.worker, "%s", d->id);
    tc_entry_t *pe = taskcache_get(d->tasks, r, tid, ck->prefix, ck->plen, err, sizeof err);
    if (!pe) {
        /* No owner to tell: the plan is unreadable or gone. */
        log_warning("job %s dropped: %s", msg, err);
        metrics_counter_inc(d->m_dropped);
        report_add(d, r, rp, msg, NULL, NULL, NULL, 0, false);
        return;
    }
    const plan_t *p = tc_plan(pe);
    /* The job as its owner tiled it (mars:jd:<tid>, msg.h): no tiling here. */
    tile_t *t = NULL;
    char e2[600];
    int64_t td0 = now_us();
    if (!desc || desc->type != REDIS_REPLY_STRING) {
        snprintf(err, sizeof err, "job %d is not a runnable job of task %s (no descriptor)",
                 (int)ji, tid);
    } else if (jobdesc_decode(desc->str, desc->len, p->g, &t, e2, sizeof e2)) {
        snprintf(err, sizeof err, "job %d of task %s: %s", (int)ji, tid, e2);
    } else if (tile_job_id(t, 0) != ji) {
        snprintf(err, sizeof err, "job %d of task %s: its descriptor is job %d's", (int)ji, tid,
                 (int)tile_job_id(t, 0));
        tile_free(t);
        t = NULL;
    }
    metrics_histogram_observe(d->m_decode, (double)(now_us() - td0) / 1e6);
    if (!t) {
        report_text(d, r, rp, msg, p->owner, &done, MSG_ERR, err);
        taskcache_release(d->tasks, pe);
        return;
    }
    /* The hard memory limit: admitted by estimate, checked again after. */
    int64_t need = job_need(is, tid, p, t);
    if (memguard_admit(d->mg, need, err, sizeof err)) {
        metrics_counter_inc(d->m_retry);
        report_text(d, r, rp, msg, p->owner, &done, MSG_RETRY, err);
        tile_free(t);
        taskcache_release(d->tasks, pe);
        return;
    }
    atomic_fetch_add(&d->running, 1);
    void *out = NULL;
    size_t n = 0;
    slot_job_t sj = {.busy = true, .job = ji, .started_ms = svc_wall_ms()};
    const graph_node_t *nd = &p->g->nodes[tile_job_node(t, 0)];
    snprintf(sj.tid, sizeof sj.tid, "%s", tid);
    snprintf(sj.node, sizeof sj.node, "%s", nd->key);
    sj.op = op_name(nd->op);
    slot_set(d, slot, &sj);
    int64_t t0 = svc_now_ms();
    int rc = run_job(d, is, tid, p, t, &out, &n, err, sizeof err);
    tile_free(t);
    int64_t t1 = svc_now_ms();
    if (rc == 0 && memguard_over_hard(d->mg, err, sizeof err)) {
        gpu_forget(out);
        free(out);
        rc = INPUTS_RETRY;
    }
    memguard_release(d->mg, need);
    metrics_histogram_observe(d->m_seconds, (double)(t1 - t0) / 1000.0);
    metrics_counter_inc(rc == 0 ? d->m_ok : rc == INPUTS_RETRY ? d->m_retry : d->m_err);
    atomic_fetch_sub(&d->running, 1);
    slot_set(d, slot, &(slot_job_t){.busy = false});
    if (rc == 0) {
        /* The run in wall-clock ms: its start, and the start plus the
         * monotonic duration (a clock step cannot make it negative). */
        done.t0 = sj.started_ms;
        done.t1 = sj.started_ms + (t1 - t0);
        report_output(d, r, rp, msg, p->owner, &done, out, n);
    } else {
        report_text(d, r, rp, msg, p->owner, &done, rc == INPUTS_RETRY ? MSG_RETRY : MSG_ERR, err);
    }
    taskcache_release(d->tasks, pe);
}

/* Runs a batch of job messages taken from the queue (all on our
 * processing list): the cancel key and plan prefix once per task, then the
 * jobs in order, their reports pipelined. */
static void handle_batch(dispatch_t *d, islot_t *is, int slot, char (*msgs)[MSG_JOB_MAX], int n,
                         const redisReply *pre, reports_t *rp)
{
    rq_t *r = is->r;
    char err[256];
    char tids[BATCH_MAX][72];
    int32_t jobs[BATCH_MAX];
    int attempts[BATCH_MAX];
    int task_of[BATCH_MAX];
    tcheck_t ck[BATCH_MAX];
    int nt = 0;
    for (int i = 0; i < n; i++) {
        task_of[i] = -1;
        if (msg_job_parse(msgs[i], tids[i], sizeof tids[i], &jobs[i], &attempts[i])) continue;
        int t = 0;
        while (t < nt && strcmp(ck[t].tid, tids[i]) != 0)
            t++;
        if (t == nt) {
            memset(&ck[nt], 0, sizeof ck[nt]);
            memcpy(ck[nt].tid, tids[i], sizeof ck[nt].tid); /* both 72, NUL-terminated */
            nt++;
        }
        task_of[i] = t;
    }
    /* Cancelled, or ended (its plan is gone): dropped without running.
     * The take's script looked these up with the jobs' descriptors (pre:
     * three per message); else (a blocking take) one round trip here. */
    const redisReply *desc[BATCH_MAX] = {0}, *cks[2 * BATCH_MAX];
    redisReply *reps[3 * BATCH_MAX];
    int nrep = 0;
    bool use_pre = pre && pre->type == REDIS_REPLY_ARRAY && pre->elements == (size_t)(3 * n);
    for (int t = 0; use_pre && t < nt; t++) {
        int i = 0;
        while (task_of[i] != t)
            i++;
        cks[2 * t] = pre->element[3 * i];
        cks[2 * t + 1] = pre->element[3 * i + 1];
        if (cks[2 * t + 1]->type == REDIS_REPLY_NIL) use_pre = false; /* not looked up */
    }
    for (int i = 0; use_pre && i < n; i++)
        if (task_of[i] >= 0) desc[i] = pre->element[3 * i + 2];
    for (int tries = 0; !use_pre && nt > 0; tries++) {
        if (!retry_wait(d, tries)) return; /* left on the list: requeued after we stop */
        int rc = 0;
        nrep = 0;
        for (int t = 0; t < nt && rc == 0; t++)
            rc = rq_append(r, err, sizeof err, "EXISTS mars:task:%s:cancel", ck[t].tid) ||
                 rq_append(r, err, sizeof err, "GETRANGE " MSG_PLAN "%s 0 %d", ck[t].tid,
                           TASKCACHE_PREFIX - 1);
        for (int i = 0; i < n && rc == 0; i++)
            if (task_of[i] >= 0)
                rc = rq_append(r, err, sizeof err, "HGET " MSG_JOBDESC "%s %d", tids[i],
                               (int)jobs[i]);
        nrep = 2 * nt;
        for (int i = 0; i < n; i++)
            nrep += task_of[i] >= 0;
        if (rc == 0 && rq_flush_replies(r, reps, nrep, err, sizeof err) == 0) {
            for (int k = 0; k < 2 * nt; k++)
                cks[k] = reps[k];
            for (int i = 0, q = 2 * nt; i < n; i++)
                if (task_of[i] >= 0) desc[i] = reps[q++];
            break;
        }
        nrep = 0;
        if (tries % RETRY_LOG_EVERY == 0) log_warning("%d jobs: %s (retrying)", n, err);
    }
    for (int t = 0; t < nt; t++) {
        const redisReply *c = cks[2 * t], *g = cks[2 * t + 1];
        ck[t].cancelled = c->type == REDIS_REPLY_INTEGER && c->integer > 0;
        ck[t].gone = g->type != REDIS_REPLY_STRING || g->len == 0;
        if (!ck[t].gone) {
            ck[t].plen = (size_t)g->len < TASKCACHE_PREFIX ? (size_t)g->len : TASKCACHE_PREFIX;
            memcpy(ck[t].prefix, g->str, ck[t].plen);
        }
    }
    for (int i = 0; i < n; i++) {
        if (task_of[i] < 0) {
            log_warning("dropping malformed job message \"%.200s\"", msgs[i]);
            report_add(d, r, rp, msgs[i], NULL, NULL, NULL, 0, false);
        } else if (ck[task_of[i]].cancelled || ck[task_of[i]].gone) {
            log_debug("job %s dropped: task %s", msgs[i],
                      ck[task_of[i]].cancelled ? "cancelled" : "ended");
            metrics_counter_inc(d->m_dropped);
            report_add(d, r, rp, msgs[i], NULL, NULL, NULL, 0, false);
        } else {
            run_one(d, is, slot, msgs[i], tids[i], jobs[i], attempts[i], &ck[task_of[i]], desc[i],
                    rp);
        }
        /* the last job's reports go with the next take (slot_main) */
        if (i + 1 < n && (rp->bytes >= REPORT_BYTES || svc_now_ms() - rp->first_ms >= REPORT_MS))
            reports_flush(d, r, rp);
    }
    for (int k = 0; k < nrep; k++)
        freeReplyObject(reps[k]);
}

/* Takes a batch: our queue, mars:jobs, or one stolen job (TAKE_SCRIPT),
 * in the same round trip as the previous batch's pending reports; when
 * there is none, waits on our queue. The reply, or NULL with err (the
 * reports then went on their own, retried). */
static redisReply *take(dispatch_t *d, rq_t *r, reports_t *rp, int *stolen, char *err,
                        size_t errlen)
{
    char spread[16], bmax[16], plen[16];
    snprintf(spread, sizeof spread, "%d", TAKE_SPREAD);
    snprintf(bmax, sizeof bmax, "%d", BATCH_MAX);
    snprintf(plen, sizeof plen, "%d", TASKCACHE_PREFIX - 1);
    *stolen = 0;
    redisReply *reps[3 * BATCH_MAX + 1];
    int cmds = rp->n ? reports_append(d, r, rp, err, errlen) : 0;
    if (cmds < 0 ||
        rq_append(r, err, errlen,
                  "EVAL %s 3 " MSG_WJOBS "%s " MSG_JOBS " " MSG_PROCESSING "%s %s %s %s %s",
                  TAKE_SCRIPT, d->id, d->id, spread, bmax, d->id, plen) ||
        rq_flush_replies(r, reps, cmds + 1, err, errlen)) {
        reports_flush(d, r, rp);
        return NULL;
    }
    for (int k = 0; k < cmds; k++)
        freeReplyObject(reps[k]);
    reports_clear(d, rp, true);
    redisReply *rep = reps[cmds];
    if (rep->type == REDIS_REPLY_ARRAY && rep->elements >= 2 &&
        rep->element[0]->type == REDIS_REPLY_ARRAY && rep->element[0]->elements > 0) {
        *stolen = rep->element[1]->type == REDIS_REPLY_INTEGER && rep->element[1]->integer > 0;
        return rep;
    }
    freeReplyObject(rep);
    return rq_command_blocking(r, BLOCK_MS, err, errlen,
                               "BLMOVE " MSG_WJOBS "%s " MSG_PROCESSING "%s RIGHT LEFT " BLOCK_S,
                               d->id, d->id);
}

/* The messages of a take's reply into msgs; their number. *pre: the
 * script's per-message lookups (handle_batch), NULL when there are none or
 * they do not line up with msgs. */
static int take_msgs(const redisReply *rep, char (*msgs)[MSG_JOB_MAX], const redisReply **pre)
{
    int n = 0;
    *pre = NULL;
    if (rep->type == REDIS_REPLY_STRING) {
        snprintf(msgs[n++], MSG_JOB_MAX, "%.*s",
                 (int)(rep->len < MSG_JOB_MAX - 1 ? rep->len : MSG_JOB_MAX - 1), rep->str);
        return n;
    }
    if (rep->type != REDIS_REPLY_ARRAY || rep->elements < 2) return 0;
    const redisReply *a = rep->element[0];
    for (size_t i = 0; a->type == REDIS_REPLY_ARRAY && i < a->elements && n < BATCH_MAX; i++) {
        const redisReply *e = a->element[i];
        if (e->type != REDIS_REPLY_STRING) continue;
        snprintf(msgs[n++], MSG_JOB_MAX, "%.*s",
                 (int)(e->len < MSG_JOB_MAX - 1 ? e->len : MSG_JOB_MAX - 1), e->str);
    }
    if (rep->elements >= 3 && a->type == REDIS_REPLY_ARRAY && (size_t)n == a->elements)
        *pre = rep->element[2];
    return n;
}

static void *slot_main(void *arg)
{
    dispatch_t *d = arg;
    char err[512];
    int slot = atomic_fetch_add(&d->next_slot, 1);
    kern_init();
    islot_t is = {
        .store = d->store, .addrs = d->addrs, .token = d->cfg->token, .self = d->id, .slot = slot};
    is.r = rq_create(d->cfg->redis_url, RQ_DEFAULT_TIMEOUT_MS, err, sizeof err);
    is.pool = peer_pool_create();
    reports_t rp = {.v = calloc(BATCH_MAX, sizeof(report_t))};
    char(*msgs)[MSG_JOB_MAX] = malloc(sizeof(char[MSG_JOB_MAX]) * BATCH_MAX);
    if (!is.r || !is.pool || !rp.v || !msgs) {
        log_error("slot: %s", is.r ? "out of memory" : err);
        goto out;
    }
    bool ok = true;
    while (!atomic_load(&d->stop)) {
        /* Above the soft memory limit: no new job until the store has
         * spilled (memguard's thread) or running jobs ended. */
        if (memguard_paused(d->mg)) {
            reports_flush(d, is.r, &rp); /* the last batch's, not held meanwhile */
            struct timespec ts = {0, PAUSE_MS * 1000 * 1000};
            nanosleep(&ts, NULL);
            continue;
        }
        int stolen;
        redisReply *rep = take(d, is.r, &rp, &stolen, err, sizeof err);
        if (!rep) {
            if (ok) log_warning("taking a job: %s", err);
            ok = false;
            /* rq backs off reconnecting; don't spin meanwhile */
            struct timespec ts = {0, 200 * 1000 * 1000};
            nanosleep(&ts, NULL);
            continue;
        }
        if (!ok) log_info("taking jobs again");
        ok = true;
        const redisReply *pre;
        int n = take_msgs(rep, msgs, &pre);
        if (stolen) metrics_counter_add(d->m_stolen, n);
        if (n > 0) handle_batch(d, &is, slot, msgs, n, pre, &rp);
        freeReplyObject(rep);
    }
    if (rp.v) reports_flush(d, is.r, &rp); /* stopping: what ran is reported */
out:
    free(rp.v);
    free(msgs);
    peer_pool_free(is.pool);
    rq_free(is.r);
    return NULL;
}

/* ---- lifecycle ---------------------------------------------------------------- */

dispatch_t *dispatch_create(const cfg_t *c, const char *worker_id, metrics_registry_t *m,
                            store_t *store, memguard_t *mg)
{
    dispatch_t *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    static const char H[] = "Chunk jobs this worker took, by result";
    d->m_ok =
        metrics_counter(m, "mars_worker_jobs_total", H, (const char *[]){"result", "ok", NULL});
    d->m_err =
        metrics_counter(m, "mars_worker_jobs_total", H, (const char *[]){"result", "err", NULL});
    d->m_dropped = metrics_counter(m, "mars_worker_jobs_total", H,
                                   (const char *[]){"result", "dropped", NULL});
    d->m_retry =
        metrics_counter(m, "mars_worker_jobs_total", H, (const char *[]){"result", "retry", NULL});
    d->m_stolen = metrics_counter(m, "mars_worker_jobs_stolen_total",
                                  "Jobs taken from another worker's queue", NULL);
    d->m_fetched = metrics_counter(m, "mars_worker_input_bytes_fetched_total",
                                   "Input bytes read from peers and Redis", NULL);
    static const char C[] = "Input chunks looked up in the worker's store, by result";
    d->m_hit = metrics_counter(m, "mars_worker_cache_lookups_total", C,
                               (const char *[]){"result", "hit", NULL});
    d->m_miss = metrics_counter(m, "mars_worker_cache_lookups_total", C,
                                (const char *[]){"result", "miss", NULL});
    d->m_seconds =
        metrics_histogram(m, "mars_worker_job_seconds", "Time to read a job's inputs and run it",
                          NULL, METRICS_LATENCY_BUCKETS, METRICS_N_LATENCY_BUCKETS);
    d->m_decode = metrics_histogram(m, "mars_worker_jobdesc_decode_seconds",
                                    "Time to decode a job's descriptor (mars:jd)", NULL,
                                    METRICS_LATENCY_BUCKETS, METRICS_N_LATENCY_BUCKETS);
    d->cfg = c;
    snprintf(d->id, sizeof d->id, "%s", worker_id);
    pthread_mutex_init(&d->smu, NULL);
    d->store = store;
    d->mg = mg;
    d->metrics = m;
    d->addrs = addrs_create();
    d->tasks = taskcache_create(c->token);
    if (!d->addrs || !d->tasks) {
        addrs_free(d->addrs);
        taskcache_free(d->tasks);
        free(d);
        return NULL;
    }
    return d;
}

int dispatch_start(dispatch_t *d, char *err, size_t errlen)
{
    kern_init();
    d->owned = owned_start(d->cfg->redis_url, d->id, d->store, d->metrics, err, errlen);
    if (!d->owned) return -1;
    /* one slot per CPU (--n-cpu) and one more per CUDA device */
    int ns = d->cfg->n_cpu + d->cfg->n_cuda;
    d->threads = calloc((size_t)ns, sizeof(pthread_t));
    d->slots = calloc((size_t)ns, sizeof(slot_job_t));
    if (!d->threads || !d->slots) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < ns; i++) {
        if (pthread_create(&d->threads[i], NULL, slot_main, d) != 0) {
            snprintf(err, errlen, "cannot start slot %d of %d", i + 1, ns);
            return -1;
        }
        d->n_threads++;
    }
    log_info("%d slots taking jobs from " MSG_WJOBS "%s and " MSG_JOBS, d->n_threads, d->id);
    return 0;
}

void dispatch_stats(const dispatch_t *d, dispatch_stats_t *out)
{
    out->chunks_running = atomic_load(&d->running);
    out->chunks_done = atomic_load(&d->done);
    store_stats_t st;
    store_stats(d->store, &st);
    out->cache_used = st.mem_bytes;
}

char *dispatch_slots_json(const dispatch_t *d)
{
    dispatch_t *m = (dispatch_t *)d; /* the slots' lock only */
    json_t *a = json_array();
    if (!a) abort();
    pthread_mutex_lock(&m->smu);
    for (int i = 0; m->slots && i < d->cfg->n_cpu + d->cfg->n_cuda; i++) {
        const slot_job_t *j = &m->slots[i];
        json_array_append_new(a, !j->busy
                                     ? json_null()
                                     : json_pack("{s:s,s:i,s:s,s:s,s:I}", "task_id", j->tid, "job",
                                                 (int)j->job, "node", j->node, "op", j->op,
                                                 "started_at", (json_int_t)j->started_ms));
    }
    pthread_mutex_unlock(&m->smu);
    char *text = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    if (!text) abort();
    return text;
}

void dispatch_free(dispatch_t *d)
{
    if (!d) return;
    atomic_store(&d->stop, true);
    for (int i = 0; i < d->n_threads; i++)
        pthread_join(d->threads[i], NULL);
    free(d->threads);
    owned_stop(d->owned);
    taskcache_free(d->tasks);
    addrs_free(d->addrs);
    pthread_mutex_destroy(&d->smu);
    free(d->slots);
    free(d);
}
