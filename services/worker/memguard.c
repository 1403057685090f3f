/* memguard.c: the worker's memory bound (memguard.h). */
#include "memguard.h"

#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "procstat.h"
#include "spilldir.h"
#include "svc.h"

#define LOG_MODULE "memguard"

struct memguard {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th;
    bool started, stop;
    int64_t phy_given; /* <= 0: host share */
    int64_t host_mem;
    int64_t limit;
    int workers; /* on this host, for the share */
    store_t *store;
    bool follow_cache;
    char reg_dir[CFG_STR_MAX], reg_file[CFG_STR_MAX + 32];
    int64_t (*rss)(void *ctx);
    void *rss_ctx;
    int64_t last_rss, reserved;
    bool paused;
    int64_t next_share_ms;
    metrics_gauge_t *g_limit, *g_rss, *g_reserved, *g_paused;
    metrics_counter_t *c_refused, *c_spilled, *c_pauses;
};

static int64_t rss_self(void *ctx)
{
    return procstat_rss();
}

void memguard_fmt_size(int64_t b, char *out, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int u = 0;
    while ((v >= 1024 || v <= -1024) && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, cap, "%lld B", (long long)b);
    else
        snprintf(out, cap, "%.1f %s", v, units[u]);
}

/* ---- host share ---------------------------------------------------------- */

static bool registered_alive(const char *dir, const char *name, long pid)
{
    if (pid == (long)getpid()) return true;
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) return false;
    char path[CFG_STR_MAX + 64], want[32] = "", have[32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(want, sizeof want, f)) want[0] = '\0';
        fclose(f);
        want[strcspn(want, "\n")] = '\0';
    }
    spilldir_start_time(pid, have, sizeof have);
    return !(want[0] && have[0] && strcmp(want, have) != 0); /* a reused pid differs */
}

int memguard_count_workers(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *p = de->d_name;
        if (*p < '1' || *p > '9' || strlen(p) > 9 || strspn(p, "0123456789") != strlen(p)) continue;
        long pid = strtol(p, NULL, 10);
        if (registered_alive(dir, p, pid))
            n++;
        else
            unlinkat(dirfd(d), p, 0); /* a dead worker's file */
    }
    closedir(d);
    return n > 0 ? n : 1;
}

static int register_self(memguard_t *m, const char *dir, char *err, size_t errlen)
{
    if (dir) {
        snprintf(m->reg_dir, sizeof m->reg_dir, "%s", dir);
    } else {
        const char *tmp = getenv("TMPDIR");
        if (!tmp || !tmp[0]) tmp = "/tmp";
        snprintf(m->reg_dir, sizeof m->reg_dir, "%s/mars-workers-%u", tmp, (unsigned)getuid());
    }
    if (mkdir(m->reg_dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "worker registration directory %s: %s", m->reg_dir, strerror(errno));
        return -1;
    }
    char st[32];
    spilldir_start_time((long)getpid(), st, sizeof st);
    snprintf(m->reg_file, sizeof m->reg_file, "%s/%ld", m->reg_dir, (long)getpid());
    FILE *f = fopen(m->reg_file, "w");
    if (!f || fprintf(f, "%s\n", st) < 0 || fclose(f) != 0) {
        snprintf(err, errlen, "worker registration %s: cannot write it", m->reg_file);
        m->reg_file[0] = '\0';
        return -1;
    }
    return 0;
}

/* Under mu: the limit from --phy-mem or the host share. */
static void set_limit_locked(memguard_t *m, int workers)
{
    m->workers = workers;
    int64_t limit = m->phy_given > 0 ? m->phy_given : m->host_mem / workers;
    if (limit == m->limit) return;
    if (m->limit > 0 && m->phy_given <= 0)
        log_info("memory limit now %lld bytes: the host's %lld over %d workers", (long long)limit,
                 (long long)m->host_mem, workers);
    m->limit = limit;
    if (m->g_limit) metrics_gauge_set(m->g_limit, (double)limit);
    if (m->store && m->follow_cache) store_set_limit(m->store, limit / 100 * MEMGUARD_CACHE_PCT);
}

void memguard_refresh_share(memguard_t *m)
{
    if (m->phy_given > 0) return;
    int n = memguard_count_workers(m->reg_dir);
    pthread_mutex_lock(&m->mu);
    set_limit_locked(m, n);
    pthread_mutex_unlock(&m->mu);
}

/* ---- lifecycle --------------------------------------------------------------- */

static void init_metrics(memguard_t *m, metrics_registry_t *r)
{
    if (!r) return;
    m->g_limit = metrics_gauge(r, "mars_worker_memory_limit_effective_bytes",
                               "The memory bound in force: --phy-mem or the host share", NULL);
    m->g_rss =
        metrics_gauge(r, "mars_memguard_rss_bytes", "Resident memory at the last sample", NULL);
    m->g_reserved =
        metrics_gauge(r, "mars_memguard_reserved_bytes", "Memory reserved by admitted jobs", NULL);
    m->g_paused = metrics_gauge(r, "mars_memguard_paused",
                                "1 while above the soft limit (no new jobs)", NULL);
    m->c_pauses = metrics_counter(r, "mars_memguard_pauses_total",
                                  "Times the worker reached its soft limit (a sample above it,"
                                  " or a job that would cross it) and stopped taking jobs",
                                  NULL);
    m->c_refused = metrics_counter(r, "mars_memguard_refused_total",
                                   "Jobs refused because they would pass the hard limit", NULL);
    m->c_spilled = metrics_counter(r, "mars_memguard_spilled_bytes_total",
                                   "Bytes the guard had the store spill or drop", NULL);
}

memguard_t *memguard_create(const memguard_opts_t *o, char *err, size_t errlen)
{
    memguard_t *m = calloc(1, sizeof *m);
    if (!m) abort();
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->cv, NULL);
    m->phy_given = o->phy_mem;
    m->host_mem = o->host_mem > 0 ? o->host_mem : procstat_mem_total();
    m->store = o->store;
    m->follow_cache = o->follow_cache;
    m->rss = o->rss ? o->rss : rss_self;
    m->rss_ctx = o->rss_ctx;
    init_metrics(m, o->metrics);
    if (register_self(m, o->reg_dir, err, errlen)) {
        memguard_free(m);
        return NULL;
    }
    int n = m->phy_given > 0 ? 1 : memguard_count_workers(m->reg_dir);
    pthread_mutex_lock(&m->mu);
    set_limit_locked(m, n);
    pthread_mutex_unlock(&m->mu);
    m->next_share_ms = svc_now_ms() + MEMGUARD_SHARE_MS;
    m->last_rss = m->rss(m->rss_ctx);
    return m;
}

static void *guard_main(void *arg)
{
    memguard_t *m = arg;
    pthread_mutex_lock(&m->mu);
    while (!m->stop) {
        pthread_mutex_unlock(&m->mu);
        memguard_sample(m);
        pthread_mutex_lock(&m->mu);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += MEMGUARD_SAMPLE_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        if (!m->stop) pthread_cond_timedwait(&m->cv, &m->mu, &ts);
    }
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

int memguard_start(memguard_t *m, char *err, size_t errlen)
{
    if (pthread_create(&m->th, NULL, guard_main, m) != 0) {
        snprintf(err, errlen, "memguard: starting the sampler thread failed");
        return -1;
    }
    m->started = true;
    return 0;
}

void memguard_free(memguard_t *m)
{
    if (!m) return;
    if (m->started) {
        pthread_mutex_lock(&m->mu);
        m->stop = true;
        pthread_cond_broadcast(&m->cv);
        pthread_mutex_unlock(&m->mu);
        pthread_join(m->th, NULL);
    }
    if (m->reg_file[0]) unlink(m->reg_file);
    pthread_mutex_destroy(&m->mu);
    pthread_cond_destroy(&m->cv);
    free(m);
}

/* ---- sampling and admission ---------------------------------------------------- */

int64_t memguard_limit(memguard_t *m)
{
    pthread_mutex_lock(&m->mu);
    int64_t v = m->limit;
    pthread_mutex_unlock(&m->mu);
    return v;
}

int64_t memguard_soft(memguard_t *m)
{
    return memguard_limit(m) / 100 * MEMGUARD_SOFT_PCT;
}

int64_t memguard_hard(memguard_t *m)
{
    return memguard_limit(m) / 100 * MEMGUARD_HARD_PCT;
}

int64_t memguard_rss(memguard_t *m)
{
    pthread_mutex_lock(&m->mu);
    int64_t v = m->last_rss;
    pthread_mutex_unlock(&m->mu);
    return v;
}

int64_t memguard_reserved(memguard_t *m)
{
    pthread_mutex_lock(&m->mu);
    int64_t v = m->reserved;
    pthread_mutex_unlock(&m->mu);
    return v;
}

bool memguard_paused(memguard_t *m)
{
    pthread_mutex_lock(&m->mu);
    bool v = m->paused;
    pthread_mutex_unlock(&m->mu);
    return v;
}

/* Has the store free `bytes` and gives freed memory back to the system,
 * so that RSS shows it. Returns the bytes freed. */
static int64_t spill(memguard_t *m, int64_t bytes)
{
    if (!m->store || bytes <= 0) return 0;
    int64_t freed = store_spill(m->store, bytes);
    if (freed > 0) {
        malloc_trim(0);
        if (m->c_spilled) metrics_counter_add(m->c_spilled, (double)freed);
    }
    return freed;
}

static int64_t read_rss(memguard_t *m)
{
    int64_t r = m->rss(m->rss_ctx);
    pthread_mutex_lock(&m->mu);
    if (r >= 0)
        m->last_rss = r;
    else
        r = m->last_rss;
    pthread_mutex_unlock(&m->mu);
    if (m->g_rss) metrics_gauge_set(m->g_rss, (double)r);
    return r;
}

void memguard_sample(memguard_t *m)
{
    if (m->phy_given <= 0 && svc_now_ms() >= m->next_share_ms) {
        memguard_refresh_share(m);
        m->next_share_ms = svc_now_ms() + MEMGUARD_SHARE_MS;
    }
    int64_t limit = memguard_limit(m);
    int64_t soft = limit / 100 * MEMGUARD_SOFT_PCT;
    int64_t target = soft - limit / 100 * MEMGUARD_MARGIN_PCT;
    int64_t rss = read_rss(m);
    /* memory malloc keeps for reuse (main.c: M_TRIM_THRESHOLD) goes back
     * before anything spills */
    if (rss > soft) {
        malloc_trim(0);
        rss = read_rss(m);
    }
    /* Above soft: no new job from now until a sample finds it back under
     * (the spill below usually takes it there by the next one). */
    bool now = rss > soft;
    pthread_mutex_lock(&m->mu);
    bool was = m->paused;
    m->paused = now;
    pthread_mutex_unlock(&m->mu);
    if (m->g_paused) metrics_gauge_set(m->g_paused, now ? 1 : 0);
    if (now && !was && m->c_pauses) metrics_counter_inc(m->c_pauses);
    if (now) spill(m, rss - target);
    if (now != was)
        log_info("memory %s the soft limit (%lld of %lld bytes): %s",
                 rss > soft ? "above" : "back under", (long long)rss, (long long)soft,
                 rss > soft ? "taking no new job" : "taking jobs");
}

/* The message of a refusal. */
static void limit_message(memguard_t *m, int64_t need, int64_t holds, char *err, size_t errlen)
{
    char sneed[32], sholds[32], shard[32], slimit[32], shost[32];
    int64_t limit = m->limit, hard = limit / 100 * MEMGUARD_HARD_PCT;
    memguard_fmt_size(need, sneed, sizeof sneed);
    memguard_fmt_size(holds, sholds, sizeof sholds);
    memguard_fmt_size(hard, shard, sizeof shard);
    memguard_fmt_size(limit, slimit, sizeof slimit);
    memguard_fmt_size(m->host_mem, shost, sizeof shost);
    if (m->phy_given > 0)
        snprintf(err, errlen,
                 "worker memory limit: the job needs %s but the worker holds %s of its %s hard"
                 " limit (%d%% of --phy-mem %s)",
                 sneed, sholds, shard, MEMGUARD_HARD_PCT, slimit);
    else
        snprintf(err, errlen,
                 "worker memory limit: the job needs %s but the worker holds %s of its %s hard"
                 " limit (%d%% of %s, the host's %s shared by %d workers; set --phy-mem)",
                 sneed, sholds, shard, MEMGUARD_HARD_PCT, slimit, shost, m->workers);
}

int memguard_admit(memguard_t *m, int64_t need, char *err, size_t errlen)
{
    if (need < 0) need = 0;
    int64_t limit = memguard_limit(m);
    int64_t soft = limit / 100 * MEMGUARD_SOFT_PCT, hard = limit / 100 * MEMGUARD_HARD_PCT;
    int64_t rss = read_rss(m);
    int64_t reserved = memguard_reserved(m);
    bool moved = false; /* rss read again below when trimmed or spilled */
    if (rss + reserved + need > soft) {
        malloc_trim(0);
        rss = read_rss(m);
        moved = true;
    }
    if (rss + reserved + need > soft) {
        /* The job would take the worker over its soft limit: that is a
         * pause too (counted the same as one the sampler finds, which a
         * job's output landing between two samples can hide). No job is
         * taken while the store spills to make room. */
        pthread_mutex_lock(&m->mu);
        bool was = m->paused;
        m->paused = true;
        pthread_mutex_unlock(&m->mu);
        if (!was && m->c_pauses) metrics_counter_inc(m->c_pauses);
        if (m->g_paused) metrics_gauge_set(m->g_paused, 1);
        spill(m, rss + reserved + need - (soft - limit / 100 * MEMGUARD_MARGIN_PCT));
        rss = read_rss(m);
        /* back under: jobs flow again at once (else the next sample ends it) */
        if (rss <= soft) {
            pthread_mutex_lock(&m->mu);
            m->paused = false;
            pthread_mutex_unlock(&m->mu);
            if (m->g_paused) metrics_gauge_set(m->g_paused, 0);
        }
    }
    if (moved) rss = read_rss(m);
    pthread_mutex_lock(&m->mu);
    int64_t holds = rss + m->reserved;
    if (holds + need > hard) {
        limit_message(m, need, holds, err, errlen);
        pthread_mutex_unlock(&m->mu);
        if (m->c_refused) metrics_counter_inc(m->c_refused);
        return -1;
    }
    m->reserved += need;
    if (m->g_reserved) metrics_gauge_set(m->g_reserved, (double)m->reserved);
    pthread_mutex_unlock(&m->mu);
    return 0;
}

void memguard_release(memguard_t *m, int64_t bytes)
{
    pthread_mutex_lock(&m->mu);
    m->reserved -= bytes > 0 ? bytes : 0;
    if (m->reserved < 0) m->reserved = 0;
    if (m->g_reserved) metrics_gauge_set(m->g_reserved, (double)m->reserved);
    pthread_mutex_unlock(&m->mu);
}

bool memguard_over_hard(memguard_t *m, char *err, size_t errlen)
{
    int64_t rss = read_rss(m);
    pthread_mutex_lock(&m->mu);
    int64_t hard = m->limit / 100 * MEMGUARD_HARD_PCT;
    bool over = rss > hard;
    if (over && err) {
        char srss[32], shard[32], slimit[32];
        memguard_fmt_size(rss, srss, sizeof srss);
        memguard_fmt_size(hard, shard, sizeof shard);
        memguard_fmt_size(m->limit, slimit, sizeof slimit);
        snprintf(err, errlen,
                 "worker memory limit: the worker holds %s, over its %s hard limit (%d%% of %s%s)",
                 srss, shard, MEMGUARD_HARD_PCT,
                 m->phy_given > 0 ? "--phy-mem " : "the host share ", slimit);
    }
    pthread_mutex_unlock(&m->mu);
    return over;
}
