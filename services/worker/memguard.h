/* memguard.h: the worker's memory bound (--phy-mem), so that the kernel's
 * OOM killer is never the one that stops a worker (issue 11).
 *
 * limit: --phy-mem, or, when not given, the host's memory divided by the
 * workers living on this host (see "Host share" below).
 *   soft = 75% of limit: a sampler thread reads the process RSS every
 *          MEMGUARD_SAMPLE_MS; above soft it asks the store to spill down
 *          to soft - MEMGUARD_MARGIN, and memguard_paused() is true while
 *          RSS stays above soft: the dispatcher takes no new job then.
 *   hard = 90% of limit: a job is admitted only while
 *          RSS + reservations + its estimate stays within hard
 *          (memguard_admit, after spilling to make room); otherwise it fails
 *          with an error naming the limit and is retried elsewhere.
 * Kernels allocate inside exec_job, where no allocator hook can stop them,
 * so the hard limit is kept by admission with the caller's estimate (the
 * job's outputs + the inputs it must load + scratch), and checked again
 * with memguard_over_hard() during or after a job: a job that passed it
 * fails with the same kind of error rather than growing into the OOM
 * killer.
 *
 * Host share: every worker registers a file `<reg_dir>/<pid>` (reg_dir:
 * $TMPDIR or /tmp + `/mars-workers-<uid>`), removed at memguard_free.
 * A worker without --phy-mem counts the files whose pid is alive (files of
 * dead pids are removed) every MEMGUARD_SHARE_MS and takes
 * host memory / count. When --cache-mem was not given either, the store's
 * bound follows as MEMGUARD_CACHE_SHARE of the limit.
 *
 * Thread-safe. */
#ifndef MARS_WORKER_MEMGUARD_H
#define MARS_WORKER_MEMGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics.h"
#include "store.h"

typedef struct memguard memguard_t;

/* 50 ms: an allocation spree of a few GB/s grows RSS by ~100 MB between
 * samples, which the 15% between soft and hard absorbs. */
#define MEMGUARD_SAMPLE_MS 50
/* Spill below soft by 5% of the limit, so that one sample later we are not
 * above it again. */
#define MEMGUARD_MARGIN_PCT 5
#define MEMGUARD_SOFT_PCT 75
#define MEMGUARD_HARD_PCT 90
/* Workers come and go on a host within seconds; 2 s follows them without
 * reading a directory 20 times a second. */
#define MEMGUARD_SHARE_MS 2000
/* Default --cache-mem as a share of the limit: the store keeps at most 40%,
 * leaving 35% (up to soft) for running jobs' inputs, outputs and scratch. */
#define MEMGUARD_CACHE_PCT 40

typedef struct memguard_opts {
    int64_t phy_mem;  /* --phy-mem in bytes; <= 0: host share */
    int64_t host_mem; /* 0: procstat_mem_total() */
    /* The store to spill (may be NULL). When follow_cache is true, its
     * mem_limit is set to MEMGUARD_CACHE_PCT of the limit whenever the
     * limit changes (--cache-mem not given). */
    store_t *store;
    bool follow_cache;
    metrics_registry_t *metrics; /* NULL: none; else mars_memguard_* series */
    const char *reg_dir;         /* NULL: $TMPDIR or /tmp + /mars-workers-<uid> */
    /* RSS reader; NULL: procstat_self. Tests inject one. Returns bytes, or
     * -1 when unreadable (the sample is skipped). */
    int64_t (*rss)(void *ctx);
    void *rss_ctx;
} memguard_opts_t;

/* Registers this process in reg_dir and computes the limit; does not start
 * the thread. NULL with err when the registration directory cannot be made.
 * Owned by the caller: memguard_free. */
memguard_t *memguard_create(const memguard_opts_t *o, char *err, size_t errlen);
/* Starts the sampler thread. */
int memguard_start(memguard_t *m, char *err, size_t errlen);
/* Stops the thread, removes the registration file, frees. */
void memguard_free(memguard_t *m);

/* One sampler step (the thread calls it; tests call it directly): reads
 * RSS, spills above soft, updates paused and the gauges, and every
 * MEMGUARD_SHARE_MS re-evaluates the host share. */
void memguard_sample(memguard_t *m);
/* Re-evaluates the host share now (no-op with --phy-mem). */
void memguard_refresh_share(memguard_t *m);

int64_t memguard_limit(memguard_t *m); /* effective --phy-mem: report as memory_limit */
int64_t memguard_soft(memguard_t *m);
int64_t memguard_hard(memguard_t *m);
int64_t memguard_rss(memguard_t *m);      /* the last sample */
int64_t memguard_reserved(memguard_t *m); /* sum of admitted, unreleased need */

/* True while the last sample was above soft: take no new job. */
bool memguard_paused(memguard_t *m);
/* Reserves need_bytes for a job about to run. Spills first when
 * RSS + reserved + need would pass the soft limit. Returns 0 (reserved:
 * memguard_release(m, need_bytes) after the job), or -1 with err like
 * "worker memory limit: the job needs 512.0 MiB but the worker holds
 * 700.0 MiB of its 921.6 MiB hard limit (90% of --phy-mem 1.0 GiB)". */
int memguard_admit(memguard_t *m, int64_t need_bytes, char *err, size_t errlen);
void memguard_release(memguard_t *m, int64_t bytes);
/* RSS (sampled now) above the hard limit; err (may be NULL) then names it
 * like memguard_admit's message. */
bool memguard_over_hard(memguard_t *m, char *err, size_t errlen);

/* Live workers registered in dir (removing files of dead pids); for tests
 * and the share. Returns at least 1 when this process is registered. */
int memguard_count_workers(const char *dir);
/* "1.5 GiB" style sizes, as in the messages. */
void memguard_fmt_size(int64_t bytes, char *out, size_t cap);

#endif
