/* store.c: the worker's chunk store (store.h).
 *
 * One mutex guards the map and the lists; file I/O (spill writes, reads
 * back, range reads from files) runs outside it on an entry held by a
 * transient pin, so that a slow disk never stalls every other get. An entry
 * lives in the hash table while its key is present; when it is in memory
 * it is also on one of two LRU lists (owned, cached), oldest first. Pinned
 * entries stay on their list and are skipped by eviction. A key freed
 * while pinned is unlinked from the table at once and destroyed (memory
 * and file) by the last release. */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda/gpu.h"
#include "log.h"
#include "spilldir.h"
#include "svc.h"

#define LOG_MODULE "store"

/* After a failed spill write, wait this long before trying again: a full
 * disk does not empty itself within a put, and retrying on every put would
 * write (and fail) gigabytes. */
#define SPILL_BACKOFF_MS 1000
/* Initial hash buckets; doubles at load 1. */
#define INITIAL_BUCKETS 64

typedef struct entry entry_t;
struct entry {
    store_ref_t pub; /* data (NULL when only on disk), n */
    char key[STORE_KEY_MAX + 1];
    void *mem;
    bool owned, in_mem, on_disk;
    bool dead;     /* removed from the table while pinned */
    bool spilling; /* a writer holds it */
    bool loading;  /* a reader is bringing it back */
    int pins;
    int dir;      /* spill directory index */
    uint64_t seq; /* spill file number */
    entry_t *hnext;
    entry_t *prev, *next; /* LRU list while in_mem */
};

typedef struct lru {
    entry_t *head, *tail; /* head: oldest */
} lru_t;

struct store {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* loading finished */
    entry_t **buckets;
    size_t n_buckets, n_entries;
    lru_t owned, cached;
    int64_t mem_limit;
    spilldir_t dirs;
    int next_dir;
    uint64_t next_seq;
    int64_t backoff_until_ms;
    bool warned;
    store_stats_t st;
    metrics_gauge_t *g_mem, *g_spilled, *g_cached, *g_chunks;
    metrics_counter_t *c_spills, *c_unspills, *c_drops, *c_fail;
};

/* ---- hash table and lists (under mu) ---------------------------------- */

static uint64_t hash_key(const char *k)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *k; k++)
        h = (h ^ (unsigned char)*k) * 1099511628211ULL;
    return h;
}

static entry_t **slot_of(store_t *s, const char *key)
{
    entry_t **p = &s->buckets[hash_key(key) & (s->n_buckets - 1)];
    while (*p && strcmp((*p)->key, key) != 0)
        p = &(*p)->hnext;
    return p;
}

static void grow(store_t *s)
{
    size_t nb = s->n_buckets * 2;
    entry_t **b = calloc(nb, sizeof *b);
    if (!b) return; /* a longer chain is slower, not wrong */
    for (size_t i = 0; i < s->n_buckets; i++) {
        for (entry_t *e = s->buckets[i], *next; e; e = next) {
            next = e->hnext;
            entry_t **dst = &b[hash_key(e->key) & (nb - 1)];
            e->hnext = *dst;
            *dst = e;
        }
    }
    free(s->buckets);
    s->buckets = b;
    s->n_buckets = nb;
}

static lru_t *list_of(store_t *s, entry_t *e)
{
    return e->owned ? &s->owned : &s->cached;
}

static void lru_unlink(lru_t *l, entry_t *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        l->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        l->tail = e->prev;
    e->prev = e->next = NULL;
}

static void lru_push(lru_t *l, entry_t *e)
{
    e->prev = l->tail;
    e->next = NULL;
    if (l->tail)
        l->tail->next = e;
    else
        l->head = e;
    l->tail = e;
}

static void touch(store_t *s, entry_t *e)
{
    if (!e->in_mem) return;
    lru_t *l = list_of(s, e);
    lru_unlink(l, e);
    lru_push(l, e);
}

static void update_gauges(store_t *s)
{
    if (s->g_mem) metrics_gauge_set(s->g_mem, (double)s->st.mem_bytes);
    if (s->g_spilled) metrics_gauge_set(s->g_spilled, (double)s->st.spilled_bytes);
    if (s->g_cached) metrics_gauge_set(s->g_cached, (double)s->st.cached_bytes);
    if (s->g_chunks) metrics_gauge_set(s->g_chunks, (double)s->st.chunks);
}

static void count(metrics_counter_t *c, int64_t *field)
{
    (*field)++;
    if (c) metrics_counter_inc(c);
}

/* Takes the entry's memory out of the accounting and frees it. */
static void drop_mem(store_t *s, entry_t *e)
{
    if (!e->in_mem) return;
    lru_unlink(list_of(s, e), e);
    s->st.mem_bytes -= (int64_t)e->pub.n;
    if (!e->owned) s->st.cached_bytes -= (int64_t)e->pub.n;
    gpu_forget(e->mem); /* its device copy, if a device job read it (docs/gpu.md) */
    free(e->mem);
    e->mem = NULL;
    e->pub.data = NULL;
    e->in_mem = false;
}

static void spill_path(const store_t *s, const entry_t *e, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%u-%llu.chunk", s->dirs.path[e->dir], s->dirs.instance,
             (unsigned long long)e->seq);
}

/* Frees an entry already out of the table: memory and spill file. */
static void destroy_entry(store_t *s, entry_t *e)
{
    drop_mem(s, e);
    if (e->on_disk) {
        char path[SPILLDIR_PATH_MAX + 64];
        spill_path(s, e, path, sizeof path);
        unlink(path);
        s->st.spilled_bytes -= (int64_t)e->pub.n;
        s->st.spilled_chunks--;
    }
    s->st.chunks--;
    free(e);
}

/* Removes an entry from the table; destroys it unless pinned. */
static void remove_entry(store_t *s, entry_t **slot)
{
    entry_t *e = *slot;
    *slot = e->hnext;
    e->hnext = NULL;
    s->n_entries--;
    if (e->pins > 0)
        e->dead = true;
    else
        destroy_entry(s, e);
}

static void unpin(store_t *s, entry_t *e)
{
    e->pins--;
    if (e->pins == 0 && e->dead) destroy_entry(s, e);
}

/* ---- spilling ---------------------------------------------------------- */

static int write_all(const char *path, const void *data, size_t n, int *errnum)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) goto open;
    const char *p = data;
    size_t left = n;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) goto write;
        p += w;
        left -= (size_t)w;
    }
    if (close(fd) != 0) goto close;
    return 0;
write:
    *errnum = errno ? errno : EIO;
    close(fd);
    unlink(path);
    return -1;
close:
    *errnum = errno;
    unlink(path);
    return -1;
open:
    *errnum = errno;
    return -1;
}

static int pread_all(int fd, void *dst, size_t n, uint64_t off)
{
    char *p = dst;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

/* A device job's output stays on its device until something reads its
 * host memory (docs/gpu.md): copied back here first, for every reader but
 * a device job (store_get_dev). e pinned, mu not held. 0, or -1 (logged). */
static int to_host(const entry_t *e)
{
    char err[320];
    if (gpu_to_host(e->mem, err, sizeof err) == 0) return 0;
    log_warning("chunk %s: %s", e->key, err);
    return -1;
}

/* Writes an owned in-memory entry to its file, the lock released meanwhile.
 * Returns 0 when it is on disk and may leave memory now, 1 when it was
 * pinned or freed meanwhile (e must not be touched: it may be gone), -1
 * when the write failed. Under mu on entry and exit. */
static int spill_write(store_t *s, entry_t *e)
{
    e->spilling = true;
    e->pins++;
    e->dir = s->next_dir;
    s->next_dir = (s->next_dir + 1) % s->dirs.n;
    e->seq = s->next_seq++;
    char path[SPILLDIR_PATH_MAX + 64];
    spill_path(s, e, path, sizeof path);
    pthread_mutex_unlock(&s->mu);
    int errnum = EIO;
    int rc = to_host(e) ? -1 : write_all(path, e->mem, e->pub.n, &errnum);
    pthread_mutex_lock(&s->mu);
    e->spilling = false;
    if (rc == 0) {
        e->on_disk = true;
        s->st.spilled_bytes += (int64_t)e->pub.n;
        s->st.spilled_chunks++;
        count(s->c_spills, &s->st.spills);
    } else {
        count(s->c_fail, &s->st.spill_failures);
        s->backoff_until_ms = svc_now_ms() + SPILL_BACKOFF_MS;
        if (!s->warned)
            log_warning("spilling %zu bytes of %s to %s failed: %s; the chunk stays in memory"
                        " (warned once)",
                        e->pub.n, e->key, path, strerror(errnum));
        s->warned = true;
    }
    e->pins--;
    if (e->pins == 0 && e->dead) {
        destroy_entry(s, e); /* freed meanwhile */
        return 1;
    }
    if (rc != 0) return -1;
    return e->pins > 0 || !e->in_mem ? 1 : 0;
}

/* The oldest entry of l that eviction may take. */
static entry_t *victim(lru_t *l)
{
    for (entry_t *e = l->head; e; e = e->next)
        if (e->pins == 0 && !e->spilling) return e;
    return NULL;
}

static int64_t drop_cached(store_t *s, int64_t want)
{
    int64_t freed = 0;
    entry_t *e;
    while (freed < want && (e = victim(&s->cached)) != NULL) {
        freed += (int64_t)e->pub.n;
        count(s->c_drops, &s->st.drops);
        remove_entry(s, slot_of(s, e->key));
    }
    return freed;
}

static int64_t spill_locked(store_t *s, int64_t want)
{
    int64_t freed = drop_cached(s, want);
    entry_t *e;
    while (freed < want && (e = victim(&s->owned)) != NULL) {
        if (!e->on_disk) {
            if (svc_now_ms() < s->backoff_until_ms) break;
            int rc = spill_write(s, e);
            if (rc < 0) break;
            if (rc > 0) continue; /* pinned or freed meanwhile: look again */
        }
        freed += (int64_t)e->pub.n;
        drop_mem(s, e);
    }
    update_gauges(s);
    return freed;
}

static void enforce_limit(store_t *s)
{
    if (s->mem_limit > 0 && s->st.mem_bytes > s->mem_limit)
        spill_locked(s, s->st.mem_bytes - s->mem_limit);
}

/* ---- API --------------------------------------------------------------- */

static void init_metrics(store_t *s, metrics_registry_t *m)
{
    if (!m) return;
    s->g_mem = metrics_gauge(m, "mars_store_memory_bytes", "Chunk bytes held in memory", NULL);
    s->g_spilled = metrics_gauge(m, "mars_store_spilled_bytes", "Chunk bytes in spill files", NULL);
    s->g_cached = metrics_gauge(m, "mars_store_cached_bytes",
                                "Bytes of cached copies of peers' chunks in memory", NULL);
    s->g_chunks = metrics_gauge(m, "mars_store_chunks", "Chunks held (memory or disk)", NULL);
    s->c_spills =
        metrics_counter(m, "mars_store_spills_total", "Chunks written to spill files", NULL);
    s->c_unspills =
        metrics_counter(m, "mars_store_unspills_total", "Chunks read back from spill files", NULL);
    s->c_drops = metrics_counter(m, "mars_store_drops_total",
                                 "Cached copies of peers' chunks dropped under pressure", NULL);
    s->c_fail = metrics_counter(m, "mars_store_spill_failures_total",
                                "Spill writes that failed (the chunk stayed in memory)", NULL);
}

store_t *store_create(const store_opts_t *o, char *err, size_t errlen)
{
    store_t *s = calloc(1, sizeof *s);
    if (!s) abort();
    if (spilldir_open(&s->dirs, o->spill_dirs, o->n_spill, err, errlen)) {
        free(s);
        return NULL;
    }
    s->buckets = calloc(INITIAL_BUCKETS, sizeof *s->buckets);
    if (!s->buckets) abort();
    s->n_buckets = INITIAL_BUCKETS;
    s->mem_limit = o->mem_limit;
    s->st.mem_limit = o->mem_limit;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    init_metrics(s, o->metrics);
    return s;
}

void store_destroy(store_t *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n_buckets; i++) {
        for (entry_t *e = s->buckets[i], *next; e; e = next) {
            next = e->hnext;
            destroy_entry(s, e);
        }
    }
    spilldir_close(&s->dirs);
    free(s->buckets);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

int store_put(store_t *s, const char *key, void *data, size_t n, bool owned)
{
    size_t kl = key ? strlen(key) : 0;
    if (kl == 0 || kl > STORE_KEY_MAX) {
        gpu_forget(data);
        free(data);
        return -1;
    }
    pthread_mutex_lock(&s->mu);
    entry_t **slot = slot_of(s, key);
    entry_t *e = *slot;
    if (e) {
        /* Chunks are immutable: keep the copy we have, upgraded to owned. */
        gpu_forget(data);
        free(data);
        if (owned && !e->owned) {
            if (e->in_mem) {
                lru_unlink(&s->cached, e);
                s->st.cached_bytes -= (int64_t)e->pub.n;
                lru_push(&s->owned, e);
            }
            e->owned = true;
        }
        touch(s, e);
        update_gauges(s);
        pthread_mutex_unlock(&s->mu);
        return 0;
    }
    e = calloc(1, sizeof *e);
    if (!e) abort();
    memcpy(e->key, key, kl + 1);
    e->mem = data;
    e->pub.data = data;
    e->pub.n = n;
    e->owned = owned;
    e->in_mem = true;
    e->hnext = NULL;
    *slot = e;
    lru_push(list_of(s, e), e);
    s->st.mem_bytes += (int64_t)n;
    if (!owned) s->st.cached_bytes += (int64_t)n;
    s->st.chunks++;
    if (++s->n_entries > s->n_buckets) grow(s);
    enforce_limit(s);
    update_gauges(s);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

/* Brings a spilled entry back; the caller pinned it. Under mu. */
static int load_back(store_t *s, entry_t *e)
{
    e->loading = true;
    char path[SPILLDIR_PATH_MAX + 64];
    spill_path(s, e, path, sizeof path);
    size_t n = e->pub.n;
    pthread_mutex_unlock(&s->mu);
    void *buf = malloc(n ? n : 1);
    if (!buf) abort();
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = fd < 0 ? -1 : pread_all(fd, buf, n, 0);
    int errnum = errno;
    if (fd >= 0) close(fd);
    pthread_mutex_lock(&s->mu);
    e->loading = false;
    pthread_cond_broadcast(&s->cv);
    if (rc != 0) {
        free(buf);
        log_warning("reading %s back from %s failed: %s", e->key, path, strerror(errnum));
        return -1;
    }
    e->mem = buf;
    e->pub.data = buf;
    e->in_mem = true;
    lru_push(list_of(s, e), e);
    s->st.mem_bytes += (int64_t)n;
    count(s->c_unspills, &s->st.unspills);
    return 0;
}

static store_ref_t *get(store_t *s, const char *key, bool host)
{
    if (!key || strlen(key) > STORE_KEY_MAX) return NULL;
    pthread_mutex_lock(&s->mu);
    entry_t *e = *slot_of(s, key);
    if (!e) goto absent;
    e->pins++;
    while (e->loading)
        pthread_cond_wait(&s->cv, &s->mu);
    if (!e->in_mem && load_back(s, e) != 0) goto load;
    touch(s, e);
    s->st.pinned_bytes += (int64_t)e->pub.n;
    /* The reload may have pushed memory over the bound: others make room. */
    enforce_limit(s);
    update_gauges(s);
    pthread_mutex_unlock(&s->mu);
    if (host && to_host(e)) {
        store_release(s, &e->pub);
        return NULL;
    }
    return &e->pub;
load:
    unpin(s, e);
absent:
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

store_ref_t *store_get(store_t *s, const char *key)
{
    return get(s, key, true);
}

store_ref_t *store_get_dev(store_t *s, const char *key)
{
    return get(s, key, false);
}

void store_release(store_t *s, store_ref_t *ref)
{
    if (!ref) return;
    entry_t *e = (entry_t *)ref; /* pub is the first member */
    pthread_mutex_lock(&s->mu);
    s->st.pinned_bytes -= (int64_t)e->pub.n;
    unpin(s, e);
    enforce_limit(s);
    update_gauges(s);
    pthread_mutex_unlock(&s->mu);
}

store_ref_t *store_get_mem(store_t *s, const char *key)
{
    if (!key || strlen(key) > STORE_KEY_MAX) return NULL;
    pthread_mutex_lock(&s->mu);
    entry_t *e = *slot_of(s, key);
    if (!e || !e->in_mem || e->loading) {
        pthread_mutex_unlock(&s->mu);
        return NULL;
    }
    e->pins++;
    touch(s, e);
    s->st.pinned_bytes += (int64_t)e->pub.n;
    pthread_mutex_unlock(&s->mu);
    if (to_host(e)) {
        store_unpin(s, &e->pub);
        return NULL;
    }
    return &e->pub;
}

void store_unpin(store_t *s, store_ref_t *ref)
{
    if (!ref) return;
    entry_t *e = (entry_t *)ref;
    pthread_mutex_lock(&s->mu);
    s->st.pinned_bytes -= (int64_t)e->pub.n;
    unpin(s, e);
    update_gauges(s);
    pthread_mutex_unlock(&s->mu);
}

int store_read(store_t *s, const char *key, uint64_t off, uint64_t len, void *dst)
{
    if (!key || strlen(key) > STORE_KEY_MAX) return -1;
    pthread_mutex_lock(&s->mu);
    entry_t *e = *slot_of(s, key);
    if (!e) {
        pthread_mutex_unlock(&s->mu);
        return -1;
    }
    if (off > e->pub.n || len > e->pub.n - off) {
        pthread_mutex_unlock(&s->mu);
        return -2;
    }
    e->pins++;
    int rc = 0;
    if (e->in_mem) {
        pthread_mutex_unlock(&s->mu);
        if (to_host(e))
            rc = -2;
        else if (len)
            memcpy(dst, (const char *)e->mem + off, len);
    } else {
        char path[SPILLDIR_PATH_MAX + 64];
        spill_path(s, e, path, sizeof path);
        pthread_mutex_unlock(&s->mu);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        rc = fd < 0 || pread_all(fd, dst, len, off) != 0 ? -2 : 0;
        if (fd >= 0) close(fd);
    }
    pthread_mutex_lock(&s->mu);
    unpin(s, e);
    pthread_mutex_unlock(&s->mu);
    return rc;
}

int64_t store_size(store_t *s, const char *key)
{
    if (!key || strlen(key) > STORE_KEY_MAX) return -1;
    pthread_mutex_lock(&s->mu);
    entry_t *e = *slot_of(s, key);
    int64_t n = e ? (int64_t)e->pub.n : -1;
    pthread_mutex_unlock(&s->mu);
    return n;
}

void store_free(store_t *s, const char *key)
{
    if (!key || strlen(key) > STORE_KEY_MAX) return;
    pthread_mutex_lock(&s->mu);
    entry_t **slot = slot_of(s, key);
    if (*slot) remove_entry(s, slot);
    update_gauges(s);
    pthread_mutex_unlock(&s->mu);
}

int64_t store_spill(store_t *s, int64_t bytes)
{
    if (bytes <= 0) return 0;
    pthread_mutex_lock(&s->mu);
    int64_t freed = spill_locked(s, bytes);
    pthread_mutex_unlock(&s->mu);
    return freed;
}

void store_set_limit(store_t *s, int64_t mem_limit)
{
    pthread_mutex_lock(&s->mu);
    s->mem_limit = mem_limit;
    s->st.mem_limit = mem_limit;
    enforce_limit(s);
    pthread_mutex_unlock(&s->mu);
}

void store_stats(store_t *s, store_stats_t *out)
{
    pthread_mutex_lock(&s->mu);
    *out = s->st;
    pthread_mutex_unlock(&s->mu);
}

const char *store_spill_dir(const store_t *s, int i)
{
    return i >= 0 && i < s->dirs.n ? s->dirs.path[i] : NULL;
}
