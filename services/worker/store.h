/* store.h: the worker's chunk store (issue 11, data plane).
 *
 * A thread-safe map from chunk key (`chunk:<task_id>:<job>`, at most
 * STORE_KEY_MAX bytes) to an immutable byte buffer. Two kinds of entries:
 *   owned  - a primary copy this worker produced. Never dropped while it is
 *            held: when memory is short it is spilled to a file under one of
 *            the spill directories and read back on demand.
 *   cached - a copy of a peer's chunk. Dropped (never spilled) under
 *            pressure, and before any owned entry is spilled.
 * Memory held by entries is bounded by mem_limit (--cache-mem): after each
 * put the least recently used unpinned entries go (cached first, then owned
 * are spilled) until the bound holds again. Pinned entries (store_get) are
 * never evicted; a put may therefore leave memory above the bound while
 * references are held.
 *
 * Spill layout: `<dir>/mars-worker-<pid>/<n>.chunk` with the chunks spread
 * round-robin over the directories. store_create removes leftover
 * `mars-worker-<pid>` directories of processes that no longer exist (so a
 * crashed worker's files go at the next start on that host), store_free
 * removes the chunk's file, store_destroy removes the whole directory.
 * A spill write that fails (ENOSPC, EIO) keeps the chunk in memory, logs a
 * warning once and counts the failure: an owned chunk is never lost.
 *
 * Every function may be called from any thread. */
#ifndef MARS_WORKER_STORE_H
#define MARS_WORKER_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics.h"

typedef struct store store_t;

/* Chunk keys are `chunk:<task_id>:<job>`; 255 bytes hold any of them with
 * room to spare, and bound what a route parameter may ask for. */
#define STORE_KEY_MAX 255

typedef struct store_opts {
    int64_t mem_limit; /* bytes of chunk data kept in memory (--cache-mem); <= 0: none */
    /* Spill directories (--spill-dirs), each must exist; n_spill 0: one,
     * $TMPDIR (or /tmp) + "/mars-spill", created when missing. */
    const char *const *spill_dirs;
    int n_spill;
    /* NULL: no metrics. Else the store registers mars_store_* series:
     * memory_bytes, spilled_bytes, cached_bytes, chunks (gauges) and
     * spills_total, unspills_total, drops_total, spill_failures_total. */
    metrics_registry_t *metrics;
} store_opts_t;

/* A pinned entry: data and n stay valid (and the entry in memory) until
 * store_release. Read-only for the caller. */
typedef struct store_ref {
    const void *data;
    size_t n;
} store_ref_t;

typedef struct store_stats {
    int64_t mem_bytes;                               /* chunk bytes in memory (owned + cached) */
    int64_t cached_bytes;                            /* of which cached copies of peers' chunks */
    int64_t spilled_bytes;                           /* bytes in spill files */
    int64_t pinned_bytes;                            /* bytes of entries with references held */
    int64_t chunks;                                  /* entries (in memory, spilled or both) */
    int64_t spilled_chunks;                          /* entries with a spill file */
    int64_t spills, unspills, drops, spill_failures; /* since creation */
    int64_t mem_limit;
} store_stats_t;

/* Creates the store and its spill directories (after removing stale ones
 * of dead processes). NULL with err when a directory cannot be made.
 * Owned by the caller: store_destroy. */
store_t *store_create(const store_opts_t *o, char *err, size_t errlen);
/* Frees every entry and removes this process's spill directories. No
 * reference may be held. */
void store_destroy(store_t *s);

/* Takes ownership of data (malloc'd, n bytes; n may be 0 with data NULL)
 * in every case, also on failure. A key already present keeps one copy:
 * owned wins over cached, else the existing one stays; the other buffer is
 * freed. Then spills/drops down to mem_limit. Returns 0, or -1 for a key
 * that is empty or longer than STORE_KEY_MAX. */
int store_put(store_t *s, const char *key, void *data, size_t n, bool owned);

/* Pins the entry, reading a spilled one back into memory first (its file
 * stays, so evicting it again costs nothing). NULL when absent or when the
 * spill file cannot be read (logged). Release with store_release. */
store_ref_t *store_get(store_t *s, const char *key);
/* The same for a device job (docs/gpu.md): a chunk whose bytes are still
 * only on a device (a device job's output) is not copied back first, as
 * it is for every other reader (store_get, store_get_mem, store_read, a
 * spill); the device job reads the device's copy. */
store_ref_t *store_get_dev(store_t *s, const char *key);
void store_release(store_t *s, store_ref_t *ref);
/* Pins the entry only when it is in memory now: a spilled one is not read
 * back (NULL, as for an absent key; store_read serves it). For sending a
 * chunk without copying it. */
store_ref_t *store_get_mem(store_t *s, const char *key);
/* Releases a pin without making room (the next put or the memory guard
 * does): cheap, for any thread, an event loop's included. */
void store_unpin(store_t *s, store_ref_t *ref);

/* Copies bytes [off, off+len) of the chunk into dst without pinning it and
 * without reading a spilled chunk back into memory (pread from its file):
 * for serving peers. Returns 0, -1 when absent, -2 when the range is out
 * of bounds or the file read failed. */
int store_read(store_t *s, const char *key, uint64_t off, uint64_t len, void *dst);
/* Size of the chunk in bytes, or -1 when absent. */
int64_t store_size(store_t *s, const char *key);
/* Drops the entry: its memory (once no reference is held) and its spill
 * file. Absent keys are ignored. */
void store_free(store_t *s, const char *key);

/* Frees at least `bytes` of memory if it can: drops unpinned cached copies
 * (least recently used first), then spills unpinned owned entries (LRU).
 * Returns the bytes of memory freed. Used by memguard. */
int64_t store_spill(store_t *s, int64_t bytes);
/* Changes mem_limit (memguard re-evaluates the host share) and enforces it. */
void store_set_limit(store_t *s, int64_t mem_limit);
void store_stats(store_t *s, store_stats_t *out);
/* Spill directories in use (`<dir>/mars-worker-<pid>`), for logs and tests;
 * i in [0, n); NULL past the end. */
const char *store_spill_dir(const store_t *s, int i);

#endif
