/* mars-worker: checks its resources, learns the database and queue from a
 * supervisor (unless given), registers in `workers`, and every second
 * reports what it uses: CPU of its own process over the last second (cores,
 * from /proc/self/stat), resident memory (/proc/self/statm), cache and
 * chunk counts, into a Redis hash with expiry and its PostgreSQL row.
 * Running chunk jobs plugs in through dispatch.h. The data plane (issue 11,
 * docs/data-plane.md): the chunk store (store.h) with its spill
 * directories, the memory bound (memguard.h), the chunk route on the -p
 * port (chunksrv.h) and the drain of chunks the supervisor frees
 * (freedrain.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chunksrv.h"
#include "config.h"
#include "db.h"
#include "dispatch.h"
#include "exec.h"
#include "freedrain.h"
#include "cuda/gpu.h"
#include <jansson.h>
#include "http.h"
#include "kern/cpu.h"
#include "log.h"
#include "memguard.h"
#include "metrics.h"
#include "procstat.h"
#include "proto.h"
#include "rq.h"
#include "sbuf.h"
#include "store.h"
#include "svc.h"

#define LOG_MODULE "worker"

/* As for the supervisor: wait a minute for the database and queue. */
#define STARTUP_WAIT_MS 60000

/* Stream threads per --n-io-process loop: a thread is held for as long as
 * its reader takes to receive a chunk, so a few per loop keep one slow
 * reader from holding up the others. */
#define STREAMS_PER_IO 4

typedef struct worker {
    chunksrv_app_t srv; /* first: the http server's app (chunksrv.h) */
    cfg_t cfg;
    char id[33];
    char address[CFG_HOST_MAX + 16];
    db_t *db;
    rq_t *rq;
    metrics_registry_t *metrics;
    http_server_t *http;
    dispatch_t *dispatch;
    store_t *store;
    memguard_t *memguard;
    freedrain_t *freedrain;
    metrics_gauge_t *g_limit;
    procstat_t last;
    int64_t last_ms;
    metrics_gauge_t *g_cpu;
    metrics_counter_t *beats, *beat_failures;
    bool beat_ok;
} worker_t;

static const http_route_t ROUTES[] = {
    {"GET", "/health", http_handle_health},
    {"GET", "/metrics", http_handle_metrics},
    {"GET", CHUNKSRV_PATTERN, chunksrv_handle_get},
};

static int check_memory(const cfg_t *c, char *err, size_t errlen)
{
    int64_t avail = procstat_mem_available();
    if (avail >= 0 && avail < c->min_mem) {
        snprintf(err, errlen, "%lld bytes of memory available, below --min-mem %lld",
                 (long long)avail, (long long)c->min_mem);
        return -1;
    }
    return 0;
}

/* Creates missing spill directories and checks that we can write there. */
static int prepare_spill(const cfg_t *c, char *err, size_t errlen)
{
    for (int i = 0; i < c->n_spill; i++) {
        const char *d = c->spill[i];
        if (mkdir(d, 0700) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "--spill-dirs %s: %s", d, strerror(errno));
            return -1;
        }
        struct stat st;
        if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode) || access(d, W_OK | X_OK) != 0) {
            snprintf(err, errlen, "--spill-dirs %s: not a writable directory", d);
            return -1;
        }
    }
    return 0;
}

static void cuda_array(const cfg_t *c, char *out, size_t cap)
{
    sbuf_t b;
    sbuf_init(&b);
    sbuf_putc(&b, '{');
    for (int i = 0; i < c->n_cuda; i++)
        sbuf_printf(&b, "%s%d", i ? "," : "", c->cuda[i]);
    sbuf_putc(&b, '}');
    snprintf(out, cap, "%s", sbuf_str(&b));
    sbuf_close(&b);
}

static int register_self(worker_t *w, char *err, size_t errlen)
{
    char host[256] = "", pid[16], ncpu[16], nio[16], cuda[CFG_MAX_CUDA * 4 + 4], mem[24], cache[24];
    gethostname(host, sizeof host - 1);
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    snprintf(ncpu, sizeof ncpu, "%d", w->cfg.n_cpu);
    snprintf(nio, sizeof nio, "%d", w->cfg.n_io);
    store_stats_t st;
    store_stats(w->store, &st);
    snprintf(mem, sizeof mem, "%lld", (long long)memguard_limit(w->memguard));
    snprintf(cache, sizeof cache, "%lld", (long long)st.mem_limit);
    cuda_array(&w->cfg, cuda, sizeof cuda);
    const char *params[] = {w->id, w->address, host, pid, ncpu, nio, cuda, mem, cache};
    return db_exec(w->db,
                   "INSERT INTO workers (id, address, hostname, pid, n_cpu, n_io, cuda_devices,"
                   " memory_limit, cache_limit) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                   9, params, err, errlen);
}

/* CPU cores this process used since the previous sample, within [0, n_cpu]. */
static double sample_cpu(worker_t *w, procstat_t *now)
{
    char err[256];
    int64_t t = svc_now_ms();
    if (procstat_self(now, err, sizeof err)) {
        log_warning("%s", err);
        *now = w->last;
        return 0;
    }
    double wall = (double)(t - w->last_ms) / 1000.0;
    double cores = wall > 0 ? (now->cpu_seconds - w->last.cpu_seconds) / wall : 0;
    /* Clock-tick granularity (10 ms) can push a short interval past the
     * slots; the report is bounded by the contract's range. */
    if (cores < 0) cores = 0;
    if (cores > w->cfg.n_cpu) cores = w->cfg.n_cpu;
    w->last = *now;
    w->last_ms = t;
    return cores;
}

/* Each device: NVML's memory and utilisation (-1 where NVML is missing),
 * the device store's bytes and limit, the jobs run there and the bytes
 * copied there ahead of their job (docs/gpu.md). */
static char *gpus_json(const worker_t *w)
{
    json_t *a = json_array();
    if (!a) abort();
    for (int i = 0; i < w->cfg.n_cuda; i++) {
        int dev = w->cfg.cuda[i], util;
        int64_t total, used, s_used, s_limit, s_peak, mem;
        char name[128] = "", e[256];
        gpu_nvml(dev, &total, &used, &util);
        gpu_store_stats(dev, &s_used, &s_limit, &s_peak);
        if (gpu_device_info(dev, name, sizeof name, &mem, e, sizeof e)) mem = -1;
        if (total < 0) total = mem;
        json_array_append_new(
            a, json_pack("{s:i,s:s,s:I,s:I,s:i,s:I,s:I,s:I,s:I}", "index", dev, "name", name,
                         "memory_total", (json_int_t)total, "memory_used", (json_int_t)used,
                         "utilization", util, "store_used", (json_int_t)s_used, "store_limit",
                         (json_int_t)s_limit, "jobs", (json_int_t)gpu_device_jobs(dev),
                         "prefetched", (json_int_t)gpu_prefetched_bytes(dev)));
    }
    char *out = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    if (!out) abort();
    return out;
}

static void heartbeat(worker_t *w)
{
    procstat_t ps;
    dispatch_stats_t ds;
    char err[600], cpu[32], rss[24], cache[24], running[16], done[24];
    double cores = sample_cpu(w, &ps);
    dispatch_stats(w->dispatch, &ds);
    /* The effective bound: --phy-mem, or the host share as it is now. */
    int64_t limit = memguard_limit(w->memguard);
    metrics_gauge_set(w->g_limit, (double)limit);
    metrics_gauge_set(w->g_cpu, cores);
    snprintf(cpu, sizeof cpu, "%.4f", cores);
    snprintf(rss, sizeof rss, "%lld", (long long)ps.rss_bytes);
    snprintf(cache, sizeof cache, "%lld", (long long)ds.cache_used);
    snprintf(running, sizeof running, "%d", ds.chunks_running);
    snprintf(done, sizeof done, "%lld", (long long)ds.chunks_done);

    /* Redis: the live report the dispatcher reads, expiring with death. */
    char rerr[256] = "", perr[256] = "";
    int rc = 0;
    /* The history the dashboard charts: a capped list, newest first. */
    char *slots = dispatch_slots_json(w->dispatch), hist[160];
    snprintf(hist, sizeof hist, "%lld %s %s %s %s %s", (long long)svc_wall_ms(), cpu, rss, cache,
             running, done);
    char *gpus = gpus_json(w);
    if (rq_append(w->rq, rerr, sizeof rerr,
                  "HSET %s%s address %s n_cpu %d cpu_usage %s memory_used %s memory_limit %lld"
                  " cache_used %s chunks_running %s chunks_done %s slots %s gpus %s",
                  PROTO_WORKER_KEY, w->id, w->address, w->cfg.n_cpu, cpu, rss, (long long)limit,
                  cache, running, done, slots, gpus) ||
        rq_append(w->rq, rerr, sizeof rerr, "PEXPIRE %s%s %d", PROTO_WORKER_KEY, w->id,
                  PROTO_DEAD_MS) ||
        rq_append(w->rq, rerr, sizeof rerr, "LPUSH %s%s" PROTO_HISTORY_SUFFIX " %s",
                  PROTO_WORKER_KEY, w->id, hist) ||
        rq_append(w->rq, rerr, sizeof rerr, "LTRIM %s%s" PROTO_HISTORY_SUFFIX " 0 %d",
                  PROTO_WORKER_KEY, w->id, PROTO_HISTORY_LEN - 1) ||
        rq_append(w->rq, rerr, sizeof rerr, "PEXPIRE %s%s" PROTO_HISTORY_SUFFIX " %d",
                  PROTO_WORKER_KEY, w->id, PROTO_HISTORY_TTL_MS) ||
        rq_flush(w->rq, rerr, sizeof rerr))
        rc = -1;
    free(slots);
    /* PostgreSQL: the durable row the REST API lists. */
    char slimit[24], scache[24];
    store_stats_t st;
    store_stats(w->store, &st);
    snprintf(slimit, sizeof slimit, "%lld", (long long)limit);
    snprintf(scache, sizeof scache, "%lld", (long long)st.mem_limit);
    const char *params[] = {w->id, cpu, rss, cache, running, done, slimit, scache, gpus};
    PGresult *r = db_query(w->db,
                           "UPDATE workers SET cpu_usage = $2, memory_used = $3, cache_used = $4,"
                           " chunks_running = $5, chunks_done = $6, last_heartbeat = now(),"
                           " status = 'running', stopped_at = NULL, memory_limit = $7,"
                           " cache_limit = $8, gpus = $9::jsonb WHERE id = $1",
                           9, params, perr, sizeof perr);
    free(gpus);
    if (!r)
        rc = -1;
    else {
        /* Someone removed our row (a cleanup): put it back. */
        if (strcmp(PQcmdTuples(r), "0") == 0 && register_self(w, perr, sizeof perr)) rc = -1;
        PQclear(r);
    }
    snprintf(err, sizeof err, "%s%s%s", rerr, rerr[0] && perr[0] ? "; " : "", perr);
    metrics_counter_inc(rc == 0 ? w->beats : w->beat_failures);
    if (rc != 0 && w->beat_ok) log_warning("heartbeat failed: %s", err);
    if (rc == 0 && !w->beat_ok) log_info("heartbeat ok");
    w->beat_ok = rc == 0;
}

/* The store (--cache-mem, --spill-dirs; stale spill directories of dead
 * workers removed) and the memory guard (--phy-mem or the host share). */
static int start_data_plane(worker_t *w, char *err, size_t errlen)
{
    const char *dirs[CFG_MAX_SPILL];
    for (int i = 0; i < w->cfg.n_spill; i++)
        dirs[i] = w->cfg.spill[i];
    store_opts_t so = {
        .mem_limit = w->cfg.cache_mem,
        .spill_dirs = dirs,
        .n_spill = w->cfg.n_spill,
        .metrics = w->metrics,
    };
    w->store = store_create(&so, err, errlen);
    if (!w->store) return -1;
    memguard_opts_t mo = {
        .phy_mem = w->cfg.phy_mem_given ? w->cfg.phy_mem : 0,
        .host_mem = w->cfg.total_mem,
        .store = w->store,
        .follow_cache = !w->cfg.cache_mem_given,
        .metrics = w->metrics,
    };
    w->memguard = memguard_create(&mo, err, errlen);
    if (!w->memguard) return -1;
    chunksrv_app_init(&w->srv, w->store, w->metrics);
    return memguard_start(w->memguard, err, errlen);
}

/* The service port: /health, /metrics and the chunk route. */
static int start_service_port(worker_t *w, char *err, size_t errlen)
{
    http_opts_t ho = {
        .name = "worker",
        .host = w->cfg.host,
        .port = w->cfg.port,
        /* Chunk transfers: --n-io-process loops, STREAMS_PER_IO stream
         * threads each; one pool thread for what is not a stream. */
        .n_loops = w->cfg.n_io < HTTP_MAX_LOOPS ? w->cfg.n_io : HTTP_MAX_LOOPS,
        .max_body = CFG_SERVICE_MAX_BODY,
        .routes = ROUTES,
        .n_routes = (int)(sizeof ROUTES / sizeof ROUTES[0]),
        .app = w,
        .metrics = w->metrics,
        .token = w->cfg.token, /* every route but /health, the chunks included */
        .n_workers = 1,
        .n_stream_workers = w->cfg.n_io * STREAMS_PER_IO < 64 ? w->cfg.n_io * STREAMS_PER_IO : 64,
    };
    return http_server_start(&ho, &w->http, err, errlen);
}

static void deregister(worker_t *w)
{
    char err[512];
    const char *params[] = {w->id};
    if (db_exec(w->db,
                "UPDATE workers SET status = 'stopped', stopped_at = now(), cpu_usage = 0,"
                " chunks_running = 0 WHERE id = $1",
                1, params, err, sizeof err))
        log_warning("marking this worker stopped: %s", err);
    redisReply *rep = rq_command(w->rq, err, sizeof err, "DEL %s%s", PROTO_WORKER_KEY, w->id);
    if (rep) freeReplyObject(rep);
}

/* --cuda-devices: listed devices the CUDA runtime cannot use are refused
 * (never silently ignored); the default (every /dev/nvidiaN present) keeps
 * only what the runtime sees, saying what it drops. docs/gpu.md. */
static int check_cuda(cfg_t *c, char *err, size_t errlen)
{
    char why[512];
    if (c->cuda_given) {
        if (gpu_check_devices(c->cuda, c->n_cuda, why, sizeof why) == 0) return 0;
        char list[CFG_MAX_CUDA * 4 + 4] = "";
        size_t len = 0;
        for (int i = 0; i < c->n_cuda && len < sizeof list; i++)
            len +=
                (size_t)snprintf(list + len, sizeof list - len, "%s%d", i ? "," : "", c->cuda[i]);
        snprintf(err, errlen, "--cuda-devices %s: %s", list, why);
        return -1;
    }
    if (c->n_cuda == 0) return 0;
    int count = 0, kept = 0;
    if (gpu_device_count(&count, why, sizeof why)) count = 0;
    for (int i = 0; i < c->n_cuda; i++) {
        if (c->cuda[i] < count)
            c->cuda[kept++] = c->cuda[i];
        else
            log_warning("/dev/nvidia%d is present but not used: %s", c->cuda[i],
                        count ? "the CUDA runtime sees fewer devices" : why);
    }
    c->n_cuda = kept;
    return 0;
}

/* The worker's own series (the store, memguard, dispatch and the process
 * register theirs). */
static void worker_metrics(worker_t *w)
{
    svc_process_metrics(w->metrics);
    /* the kernels' CPU level (docs/deploy.md "CPU level"), as an info
     * series: 1 with the level as its label */
    const char *const lv[] = {"level", kern_cpu_name(kern_cpu_level()), NULL};
    metrics_gauge_t *g = metrics_gauge(w->metrics, "mars_worker_kernel_cpu_level",
                                       "The CPU level the kernels run at (the label)", lv);
    if (g) metrics_gauge_set(g, 1);
    w->g_cpu = metrics_gauge(w->metrics, "mars_worker_cpu_usage_cores",
                             "CPU cores this worker used over the last heartbeat interval", NULL);
    metrics_gauge_set(
        metrics_gauge(w->metrics, "mars_worker_slots", "Slots for chunk kernels (--n-cpu)", NULL),
        w->cfg.n_cpu);
    w->g_limit = metrics_gauge(w->metrics, "mars_worker_memory_limit_bytes",
                               "--phy-mem, or the host share without it", NULL);
    metrics_gauge_set(w->g_limit, (double)memguard_limit(w->memguard));
    w->beats = metrics_counter(w->metrics, "mars_heartbeats_total", "Heartbeats written", NULL);
    w->beat_failures = metrics_counter(w->metrics, "mars_heartbeat_failures_total",
                                       "Heartbeats that could not be written", NULL);
}

int main(int argc, char **argv)
{
    static worker_t w; /* large (the config); static keeps it off the stack */
    int code = 1;
    char err[1024];
    svc_signals_init();
    exec_keep_freed_memory();
    if (!svc_init(&w.cfg, CFG_WORKER, argc, argv, &code)) return code;
    code = 1;
    /* MARS_CPU_LEVEL naming a level this build or CPU lacks: refused, as a
     * bad option is (docs/deploy.md, "CPU level") */
    if (kern_cpu_init(err, sizeof err)) {
        fprintf(stderr, "mars-worker: %s\n", err);
        return 2;
    }
    if (check_cuda(&w.cfg, err, sizeof err)) {
        fprintf(stderr, "mars-worker: %s\n", err);
        return 2;
    }
    for (int i = 0; i < w.cfg.n_cuda; i++)
        if (gpu_open(w.cfg.cuda[i], w.cfg.cuda_mem, err, sizeof err)) {
            fprintf(stderr, "mars-worker: --cuda-devices: %s\n", err);
            return 2;
        }
    svc_random_id(w.id);
    if (check_memory(&w.cfg, err, sizeof err) || prepare_spill(&w.cfg, err, sizeof err)) {
        log_error("%s", err);
        return 1;
    }
    if (svc_discover(&w.cfg, err, sizeof err)) return 0; /* only a stop signal ends the search */

    w.metrics = metrics_create();
    if (!w.metrics) goto create;
    if (start_data_plane(&w, err, sizeof err)) {
        log_error("%s", err);
        goto create;
    }
    w.dispatch = dispatch_create(&w.cfg, w.id, w.metrics, w.store, w.memguard);
    if (!w.dispatch) goto create;
    worker_metrics(&w);

    w.db = db_create(w.cfg.pg_dsn, "mars-worker");
    w.rq = rq_create(w.cfg.redis_url, RQ_DEFAULT_TIMEOUT_MS, err, sizeof err);
    if (!w.db || !w.rq) {
        log_error("%s", w.rq ? "out of memory" : err);
        goto connect;
    }
    if (db_connect_wait(w.db, STARTUP_WAIT_MS, svc_wait, err, sizeof err)) {
        log_error("PostgreSQL: %s", err);
        goto connect;
    }
    if (rq_connect_wait(w.rq, STARTUP_WAIT_MS, svc_wait, err, sizeof err)) {
        log_error("Redis: %s", err);
        goto connect;
    }

    if (start_service_port(&w, err, sizeof err)) {
        log_error("service port: %s", err);
        goto serve;
    }
    svc_join_address(w.address, sizeof w.address, w.cfg.advertise, http_server_port(w.http));
    if (procstat_self(&w.last, err, sizeof err)) {
        log_error("%s", err);
        goto serve;
    }
    w.last_ms = svc_now_ms();
    if (register_self(&w, err, sizeof err)) {
        log_error("registering: %s", err);
        goto serve;
    }
    if (dispatch_start(w.dispatch, err, sizeof err)) {
        log_error("dispatch: %s", err);
        goto registered;
    }
    w.freedrain = freedrain_start(w.cfg.redis_url, w.id, w.store, w.metrics, err, sizeof err);
    if (!w.freedrain) {
        log_error("free list: %s", err);
        goto registered;
    }
    /* The first report now, so that the worker is listed with real values
     * from the start. */
    w.beat_ok = true;
    heartbeat(&w);
    store_stats_t st;
    store_stats(w.store, &st);
    log_info("worker %s at %s: %d slots, memory limit %lld%s, store %lld, spill to %s%s, %d CUDA"
             " devices",
             w.id, w.address, w.cfg.n_cpu, (long long)memguard_limit(w.memguard),
             w.cfg.phy_mem_given ? "" : " (host share)", (long long)st.mem_limit,
             store_spill_dir(w.store, 0), w.cfg.n_spill > 1 ? " and more" : "", w.cfg.n_cuda);
    kern_cpu_describe(err, sizeof err);
    log_info("kernels: %s", err);

    int64_t next = svc_now_ms() + PROTO_HEARTBEAT_MS;
    for (;;) {
        int64_t wait = next - svc_now_ms();
        if (svc_wait(wait > 0 ? (int)wait : 0)) break;
        heartbeat(&w);
        /* Fixed rate; after a stall, resume from now rather than catch up. */
        next += PROTO_HEARTBEAT_MS;
        if (next < svc_now_ms()) next = svc_now_ms() + PROTO_HEARTBEAT_MS;
    }
    code = 0;
registered:
    freedrain_stop(w.freedrain);
    deregister(&w);
serve:
    http_server_free(w.http);
connect:
    db_free(w.db);
    rq_free(w.rq);
create:
    dispatch_free(w.dispatch);
    memguard_free(w.memguard);
    store_destroy(w.store); /* its spill directories go with it */
    metrics_free(w.metrics);
    /* Stopped by a signal while waiting (for the database, say): a clean stop. */
    return svc_stopping() ? 0 : code;
}
