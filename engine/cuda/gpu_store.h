/* gpu_store.h: the device store of chunks and the jobs' bookkeeping (gpu.h),
 * shared by gpu_job.cu (a CUDA device) and gpu_emu.cc (the emulated one,
 * docs/gpu.md), each of which defines the device's memory operations
 * first:
 *
 *   be_err_t, BE_OK, BE_NOMEM (an allocation the device refused),
 *   be_stream_t, be_errstr(r), be_set_device(dev),
 *   be_open(dev, &stream, &copy_stream, &prefetch_stream, &free_bytes),
 *   be_malloc(dev, stream, n, &p), be_free(dev, stream, p),
 *   be_h2d(dst, src, n, dev, stream), be_d2h(dst, src, n, dev, stream)
 *   (synchronous for the host: src may be reused, dst read, on return),
 *   be_sync(stream) (the stream's work done, and any error of it),
 *   be_zero(p, n, stream) (n bytes of device memory set to zero),
 *   be_output_kept(host, bytes) (a job's output is now device-only).
 *
 * Chunks are keyed by the host buffer they belong to; an output stays on
 * the device until gpu_to_host copies it back; past the store's limit the
 * least recently used chunks not in use are copied back (if device-only)
 * and dropped. */
#ifndef MARS_GPU_STORE_H
#define MARS_GPU_STORE_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu.h"
#include "gpu_dev.h"

/* ------------------------------------------------------------------ store */

typedef struct ent {
    const void *host;
    void *d;
    size_t bytes;
    int dev;
    int pins;
    bool dev_only;
    bool copying; /* copy_back in progress (mu released) */
    uint64_t lru;
    struct ent *next;
} ent_t;

#define NBUCKET 8192
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static ent_t *tab[NBUCKET];
static uint64_t lru_clock;
/* copies between host and devices: bytes, and seconds the calls took */
static long long h2d_bytes, d2h_bytes;
static double h2d_s, d2h_s;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Jobs waiting for one device whose reads are listed (more wait unlisted). */
#define GPU_WAITERS_MAX 32

typedef struct {
    bool open;
    /* held from gpu_job_begin to gpu_job_end: one job at a time per device
     * (a worker's slots share its devices) */
    pthread_mutex_t job_mu;
    be_stream_t s, copy, pre; /* jobs, copies back, prefetches */
    int64_t used, limit, peak;
    int64_t jobs;       /* run here since the process started */
    int64_t prefetched; /* bytes gpu_job_prefetch copied here */
    /* what the jobs waiting in gpu_job_begin read (mu); a waiter leaves
     * only once it holds job_mu, so the job running may read these */
    const gpu_prefetch_t *waiting[GPU_WAITERS_MAX];
    int n_waiting;
    void *blas; /* cublasHandle_t */
} devst_t;
static devst_t D[GPU_MAX_DEVICES];

static unsigned bucket(const void *p)
{
    uintptr_t u = (uintptr_t)p;
    return (unsigned)((u >> 4) ^ (u >> 17)) % NBUCKET;
}

static ent_t *find(const void *host)
{
    for (ent_t *e = tab[bucket(host)]; e; e = e->next)
        if (e->host == host) return e;
    return NULL;
}

/* Entries in tab (changed under mu, read without it): gpu_to_host and
 * gpu_forget, which a worker's store calls on every read and free, return
 * at once while no chunk is on any device (a CPU-only worker: always). An
 * entry for a host buffer is made by a job reading or writing it, before
 * its owner can ask about it. */
static long n_ents;

static bool no_entries(void)
{
    return __atomic_load_n(&n_ents, __ATOMIC_ACQUIRE) == 0;
}

static void insert(ent_t *e)
{
    unsigned b = bucket(e->host);
    e->next = tab[b];
    tab[b] = e;
    __atomic_fetch_add(&n_ents, 1, __ATOMIC_RELEASE);
}

static void unlink_ent(ent_t *e)
{
    ent_t **pp = &tab[bucket(e->host)];
    while (*pp && *pp != e)
        pp = &(*pp)->next;
    if (*pp) {
        *pp = e->next;
        __atomic_fetch_sub(&n_ents, 1, __ATOMIC_RELEASE);
    }
}

/* Copies a device-only entry into its host buffer. mu is held on entry and
 * on return, and released during the copy (the entry pinned and marked
 * copying; a second reader waits for the first), so the device's jobs and
 * other copies go on meanwhile: copies back overlap the device's compute. */
static pthread_cond_t copy_cv = PTHREAD_COND_INITIALIZER;

static be_err_t copy_back(ent_t *e)
{
    while (e->copying)
        pthread_cond_wait(&copy_cv, &mu);
    if (!e->dev_only) return BE_OK;
    e->copying = true;
    e->pins++;
    int dev = e->dev;
    pthread_mutex_unlock(&mu);
    be_set_device(dev);
    double t0 = now_s();
    be_err_t r = be_d2h((void *)e->host, e->d, e->bytes, dev, D[dev].copy);
    double dt = now_s() - t0;
    pthread_mutex_lock(&mu);
    e->copying = false;
    e->pins--;
    if (r == BE_OK) {
        e->dev_only = false;
        d2h_bytes += (long long)e->bytes;
        d2h_s += dt;
    }
    pthread_cond_broadcast(&copy_cv);
    return r;
}

static void dev_free(int dev, void *p, size_t bytes)
{
    if (!p) return;
    be_free(dev, D[dev].s, p);
    D[dev].used -= (int64_t)bytes;
}

/* Evicts dev's least recently used entry not in use (mu held): 0, or -1
 * when there is none. */
static int evict_one(int dev)
{
    ent_t *best = NULL;
    for (int b = 0; b < NBUCKET; b++)
        for (ent_t *e = tab[b]; e; e = e->next)
            if (e->dev == dev && e->pins == 0 && (!best || e->lru < best->lru)) best = e;
    if (!best) return -1;
    if (copy_back(best) != BE_OK) return -1;
    if (best->pins > 0) return 0; /* taken by a job while mu was released */
    unlink_ent(best);
    dev_free(dev, best->d, best->bytes);
    free(best);
    return 0;
}

/* Device memory within the store's limit, evicting as needed (mu held). */
static be_err_t dev_alloc(int dev, size_t bytes, void **p, char *err, size_t errlen)
{
    *p = NULL;
    size_t want = bytes ? bytes : 1;
    while (D[dev].used + (int64_t)want > D[dev].limit) {
        if (evict_one(dev)) {
            snprintf(err, errlen,
                     "device %d memory limit: %lld bytes more would pass the store's %lld "
                     "(%lld in chunks in use)",
                     dev, (long long)want, (long long)D[dev].limit, (long long)D[dev].used);
            return BE_NOMEM;
        }
    }
    be_err_t r;
    while ((r = be_malloc(dev, D[dev].s, want, p)) == BE_NOMEM)
        if (evict_one(dev)) break;
    if (r != BE_OK) {
        snprintf(err, errlen, "device %d: allocating %zu bytes: %s", dev, want, be_errstr(r));
        *p = NULL;
        return r;
    }
    D[dev].used += (int64_t)want;
    if (D[dev].used > D[dev].peak) D[dev].peak = D[dev].used;
    return BE_OK;
}

extern "C" int gpu_open(int dev, int64_t mem_limit, char *err, size_t errlen)
{
    if (dev < 0 || dev >= GPU_MAX_DEVICES) {
        snprintf(err, errlen, "device %d: index out of range", dev);
        return -1;
    }
    pthread_mutex_lock(&mu);
    int rc = -1;
    be_err_t r = BE_OK;
    if (D[dev].open) {
        rc = 0;
        goto out;
    }
    size_t fr;
    if ((r = be_open(dev, &D[dev].s, &D[dev].copy, &D[dev].pre, &fr)) != BE_OK) {
        snprintf(err, errlen, "device %d: %s", dev, be_errstr(r));
        goto out;
    }
    D[dev].limit = mem_limit > 0 ? mem_limit : (int64_t)((double)fr * 0.9);
    pthread_mutex_init(&D[dev].job_mu, NULL);
    D[dev].open = true;
    rc = 0;
out:
    pthread_mutex_unlock(&mu);
    return rc;
}

extern "C" void gpu_store_stats(int dev, int64_t *used, int64_t *limit, int64_t *peak)
{
    pthread_mutex_lock(&mu);
    bool ok = dev >= 0 && dev < GPU_MAX_DEVICES;
    *used = ok ? D[dev].used : 0;
    *limit = ok ? D[dev].limit : 0;
    *peak = ok ? D[dev].peak : 0;
    pthread_mutex_unlock(&mu);
}

extern "C" int gpu_to_host(const void *host, char *err, size_t errlen)
{
    if (no_entries()) return 0;
    pthread_mutex_lock(&mu);
    ent_t *e = find(host);
    int dev = e ? e->dev : -1;
    be_err_t r = e ? copy_back(e) : BE_OK;
    pthread_mutex_unlock(&mu);
    if (r != BE_OK) {
        snprintf(err, errlen, "copying a chunk back from device %d: %s", dev, be_errstr(r));
        return -1;
    }
    return 0;
}

extern "C" void gpu_forget(const void *host)
{
    if (no_entries()) return;
    pthread_mutex_lock(&mu);
    ent_t *e = find(host);
    while (e && e->copying) {
        pthread_cond_wait(&copy_cv, &mu);
        e = find(host);
    }
    if (e) {
        unlink_ent(e);
        dev_free(e->dev, e->d, e->bytes);
        free(e);
    }
    pthread_mutex_unlock(&mu);
}

extern "C" void gpu_copy_stats(int64_t *in_bytes, double *in_s, int64_t *out_bytes, double *out_s)
{
    pthread_mutex_lock(&mu);
    *in_bytes = h2d_bytes;
    *in_s = h2d_s;
    *out_bytes = d2h_bytes;
    *out_s = d2h_s;
    pthread_mutex_unlock(&mu);
}

extern "C" int64_t gpu_prefetched_bytes(int dev)
{
    pthread_mutex_lock(&mu);
    int64_t n = 0;
    for (int d = 0; d < GPU_MAX_DEVICES; d++)
        if (dev < 0 || d == dev) n += D[d].prefetched;
    pthread_mutex_unlock(&mu);
    return n;
}

extern "C" int64_t gpu_device_jobs(int dev)
{
    pthread_mutex_lock(&mu);
    int64_t n = dev >= 0 && dev < GPU_MAX_DEVICES ? D[dev].jobs : 0;
    pthread_mutex_unlock(&mu);
    return n;
}

/* ------------------------------------------------------------------ jobs */

struct gpu_job {
    int dev;
    be_stream_t s;
    ent_t **pins;
    int npin, cpin;
    void **tmp;
    size_t *tmp_bytes;
    int ntmp, ctmp;
    ent_t *outs[4];
    int nout;
    bool failed;
    bool oom; /* the store's limit or the device's memory refused an allocation */
    char err[320];
};

#define JFAIL(j, ...)                                                                              \
    do {                                                                                           \
        if (!(j)->failed) snprintf((j)->err, sizeof(j)->err, __VA_ARGS__);                         \
        (j)->failed = true;                                                                        \
        return -1;                                                                                 \
    } while (0)

static int jcheck(gpu_job_t *j, be_err_t r, const char *what)
{
    if (r != BE_OK) JFAIL(j, "device %d: %s: %s", j->dev, what, be_errstr(r));
    return 0;
}

/* reads joins (on) or leaves dev's waiting list (mu held). */
static void waiting_set(int dev, const gpu_prefetch_t *reads, bool on)
{
    devst_t *d = &D[dev];
    if (on) {
        if (d->n_waiting < GPU_WAITERS_MAX) d->waiting[d->n_waiting++] = reads;
        return;
    }
    for (int i = 0; i < d->n_waiting; i++)
        if (d->waiting[i] == reads) {
            d->waiting[i] = d->waiting[--d->n_waiting];
            return;
        }
}

extern "C" gpu_job_t *gpu_job_begin(int dev, const gpu_prefetch_t *reads, char *err, size_t errlen)
{
    if (dev < 0 || dev >= GPU_MAX_DEVICES || !D[dev].open) {
        snprintf(err, errlen, "device %d is not open", dev);
        return NULL;
    }
    gpu_job_t *j = (gpu_job_t *)calloc(1, sizeof *j);
    if (!j) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    j->dev = dev;
    j->s = D[dev].s;
    bool listed = reads && reads->n > 0;
    if (listed) {
        pthread_mutex_lock(&mu);
        waiting_set(dev, reads, true);
        pthread_mutex_unlock(&mu);
    }
    pthread_mutex_lock(&D[dev].job_mu);
    if (listed) {
        pthread_mutex_lock(&mu);
        waiting_set(dev, reads, false);
        pthread_mutex_unlock(&mu);
    }
    be_set_device(dev);
    return j;
}

extern "C" const char *gpu_job_error(const gpu_job_t *j)
{
    return j->err;
}

static int push_pin(gpu_job_t *j, ent_t *e)
{
    if (j->npin == j->cpin) {
        int c = j->cpin ? 2 * j->cpin : 16;
        ent_t **p = (ent_t **)realloc(j->pins, sizeof(ent_t *) * (size_t)c);
        if (!p) return -1;
        j->pins = p;
        j->cpin = c;
    }
    j->pins[j->npin++] = e;
    return 0;
}

static int push_tmp(gpu_job_t *j, void *p, size_t bytes)
{
    if (j->ntmp == j->ctmp) {
        int c = j->ctmp ? 2 * j->ctmp : 16;
        void **q = (void **)realloc(j->tmp, sizeof(void *) * (size_t)c);
        size_t *b = (size_t *)realloc(j->tmp_bytes, sizeof(size_t) * (size_t)c);
        if (q) j->tmp = q;
        if (b) j->tmp_bytes = b;
        if (!q || !b) return -1;
        j->ctmp = c;
    }
    j->tmp[j->ntmp] = p;
    j->tmp_bytes[j->ntmp++] = bytes ? bytes : 1;
    return 0;
}

extern "C" int gpu_job_in(gpu_job_t *j, const void *host, size_t bytes, int keep, const void **dptr)
{
    *dptr = NULL;
    if (j->failed) return -1;
    pthread_mutex_lock(&mu);
    ent_t *e = find(host);
    if (e && e->dev == j->dev && e->bytes >= bytes) {
        if (push_pin(j, e)) {
            pthread_mutex_unlock(&mu);
            JFAIL(j, "out of memory");
        }
        e->pins++;
        e->lru = ++lru_clock;
        *dptr = e->d;
        pthread_mutex_unlock(&mu);
        return 0;
    }
    if (e) {
        /* on another device (or another size): its host copy, then ours */
        be_err_t r = copy_back(e);
        if (r != BE_OK) {
            pthread_mutex_unlock(&mu);
            return jcheck(j, r, "copying a chunk back");
        }
        keep = 0;
    }
    void *p;
    char why[256];
    be_err_t r = dev_alloc(j->dev, bytes, &p, why, sizeof why);
    if (r != BE_OK) {
        pthread_mutex_unlock(&mu);
        j->oom |= r == BE_NOMEM;
        JFAIL(j, "%s", why);
    }
    ent_t *ne = keep ? (ent_t *)calloc(1, sizeof(ent_t)) : NULL;
    if ((keep && !ne) || (keep ? push_pin(j, ne) : push_tmp(j, p, bytes))) {
        dev_free(j->dev, p, bytes ? bytes : 1);
        free(ne);
        pthread_mutex_unlock(&mu);
        JFAIL(j, "out of memory");
    }
    if (ne) {
        ne->host = host;
        ne->d = p;
        ne->bytes = bytes ? bytes : 1;
        ne->dev = j->dev;
        ne->pins = 1;
        ne->lru = ++lru_clock;
        insert(ne);
    }
    pthread_mutex_unlock(&mu);
    *dptr = p;
    if (!bytes) return 0;
    double t0 = now_s();
    if (jcheck(j, be_h2d(p, host, bytes, j->dev, j->s), "copying a chunk in")) return -1;
    pthread_mutex_lock(&mu);
    h2d_bytes += (long long)bytes;
    h2d_s += now_s() - t0;
    pthread_mutex_unlock(&mu);
    return 0;
}

extern "C" int gpu_job_tmp(gpu_job_t *j, size_t bytes, void **dptr)
{
    *dptr = NULL;
    if (j->failed) return -1;
    char why[256];
    pthread_mutex_lock(&mu);
    be_err_t r = dev_alloc(j->dev, bytes, dptr, why, sizeof why);
    if (r == BE_OK && push_tmp(j, *dptr, bytes)) {
        dev_free(j->dev, *dptr, bytes ? bytes : 1);
        *dptr = NULL;
        snprintf(why, sizeof why, "out of memory");
        r = BE_NOMEM;
    }
    pthread_mutex_unlock(&mu);
    if (r != BE_OK) {
        j->oom |= r == BE_NOMEM;
        JFAIL(j, "%s", why);
    }
    return 0;
}

extern "C" int gpu_job_out(gpu_job_t *j, void *host, size_t bytes, void **dptr)
{
    *dptr = NULL;
    if (j->failed) return -1;
    if (j->nout == 4) JFAIL(j, "internal: more than 4 outputs");
    ent_t *e = (ent_t *)calloc(1, sizeof(ent_t));
    if (!e) JFAIL(j, "out of memory");
    char why[256];
    pthread_mutex_lock(&mu);
    be_err_t r = dev_alloc(j->dev, bytes, &e->d, why, sizeof why);
    pthread_mutex_unlock(&mu);
    if (r != BE_OK) {
        free(e);
        j->oom |= r == BE_NOMEM;
        JFAIL(j, "%s", why);
    }
    e->host = host;
    e->bytes = bytes ? bytes : 1;
    e->dev = j->dev;
    e->dev_only = true;
    j->outs[j->nout++] = e;
    *dptr = e->d;
    return 0;
}

extern "C" int gpu_job_end(gpu_job_t *j, int ok, char *err, size_t errlen)
{
    be_err_t r = be_sync(j->s);
    if (r != BE_OK) jcheck(j, r, "running the job");
    bool good = ok && !j->failed, oom = j->oom;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < j->npin; i++)
        j->pins[i]->pins--;
    for (int i = 0; i < j->ntmp; i++)
        dev_free(j->dev, j->tmp[i], j->tmp_bytes[i]);
    for (int i = 0; i < j->nout; i++) {
        ent_t *e = j->outs[i];
        if (good) {
            ent_t *old = find(e->host);
            if (old) {
                unlink_ent(old);
                dev_free(old->dev, old->d, old->bytes);
                free(old);
            }
            be_output_kept(e->host, e->bytes);
            e->lru = ++lru_clock;
            insert(e);
        } else {
            dev_free(j->dev, e->d, e->bytes);
            free(e);
        }
    }
    if (good) D[j->dev].jobs++;
    pthread_mutex_unlock(&mu);
    if (!good) snprintf(err, errlen, "%s", j->err[0] ? j->err : "the job failed");
    pthread_mutex_unlock(&D[j->dev].job_mu);
    free(j->pins);
    free(j->tmp);
    free(j->tmp_bytes);
    free(j);
    return good ? 0 : oom ? -2 : -1;
}

extern "C" int gpu_job_prefetch(gpu_job_t *j, const void *host, size_t bytes)
{
    if (j->failed || bytes == 0) return 0;
    int dev = j->dev;
    pthread_mutex_lock(&mu);
    if (find(host) || D[dev].used + (int64_t)bytes > D[dev].limit) {
        /* there already (here or on another device), or no room without
         * evicting what is there */
        pthread_mutex_unlock(&mu);
        return 0;
    }
    void *d = NULL;
    ent_t *e = (ent_t *)calloc(1, sizeof(ent_t));
    if (!e || be_malloc(dev, D[dev].pre, bytes, &d) != BE_OK) {
        free(e);
        pthread_mutex_unlock(&mu);
        return 0;
    }
    D[dev].used += (int64_t)bytes;
    if (D[dev].used > D[dev].peak) D[dev].peak = D[dev].used;
    e->host = host;
    e->d = d;
    e->bytes = bytes;
    e->dev = dev;
    e->pins = 1;       /* not evicted while it arrives */
    e->copying = true; /* gpu_forget and copy_back wait for it */
    e->lru = ++lru_clock;
    insert(e);
    pthread_mutex_unlock(&mu);
    double t0 = now_s();
    be_err_t r = be_h2d(d, host, bytes, dev, D[dev].pre);
    /* landed before the next job reads it on the job stream (a copy from
     * pageable memory may return before its DMA has finished) */
    if (r == BE_OK) r = be_sync(D[dev].pre);
    double dt = now_s() - t0;
    pthread_mutex_lock(&mu);
    e->copying = false;
    e->pins--;
    if (r == BE_OK) {
        h2d_bytes += (long long)bytes;
        D[dev].prefetched += (int64_t)bytes;
        h2d_s += dt;
    } else {
        unlink_ent(e);
        dev_free(dev, e->d, e->bytes);
        free(e);
    }
    pthread_cond_broadcast(&copy_cv);
    pthread_mutex_unlock(&mu);
    return r == BE_OK ? 0 : jcheck(j, r, "prefetching a chunk");
}

extern "C" int gpu_job_prefetch_waiting(gpu_job_t *j)
{
    const gpu_prefetch_t *w[GPU_WAITERS_MAX];
    pthread_mutex_lock(&mu);
    int n = D[j->dev].n_waiting;
    memcpy(w, D[j->dev].waiting, sizeof(w[0]) * (size_t)n);
    pthread_mutex_unlock(&mu);
    /* each stays listed, its buffers alive, until we end (job_mu) */
    for (int i = 0; i < n; i++)
        for (int k = 0; k < w[i]->n; k++)
            if (gpu_job_prefetch(j, w[i]->host[k], w[i]->bytes[k])) return -1;
    return 0;
}

/* gpu_k_sort's work arrays (gpu_dev.h's sort items, total pairs): 1 when
 * there is nothing to sort, 0, or -1 on an error. */
static int sort_begin(gpu_job_t *j, const gpu_sort_t *s, long long *total, u64 **key,
                      long long **pos)
{
    if (j->failed) return -1;
    *total = s->outer * s->inner * s->p2;
    if (*total == 0 || s->olen == 0) return 1;
    void *k, *p;
    if (gpu_job_tmp(j, (size_t)*total * 8, &k) || gpu_job_tmp(j, (size_t)*total * 8, &p)) return -1;
    *key = (u64 *)k;
    *pos = (long long *)p;
    return 0;
}

/* The products' trivial cases (gpu_k_gemm, gpu_k_gemm_batched): 1 when
 * nothing is left to do (an empty result, or k == 0: zeros unless
 * accumulating), 0 to run the product, -1 on an error. */
static int gemm_trivial(gpu_job_t *j, int dt, int64_t m, int64_t n, int64_t k, int64_t count,
                        void *c, int accumulate)
{
    if (j->failed) return -1;
    if (m > 0x7fffffff || n > 0x7fffffff || k > 0x7fffffff || count > 0x7fffffff)
        JFAIL(j, "a block past 2^31 rows or batches");
    if (m == 0 || n == 0 || count == 0) return 1;
    if (k > 0) return 0;
    if (accumulate) return 1;
    size_t bytes = (size_t)(m * n * count) * (size_t)(dt_bits(dt) / 8);
    return jcheck(j, be_zero(c, bytes, j->s), "zeroing blocks") ? -1 : 1;
}

#endif
