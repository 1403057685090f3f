/* scratch.c: see scratch.h. */
#include "scratch.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* Each buffer starts with a header holding its capacity; the caller's bytes
 * follow at HDR (keeping 64-byte alignment). */
#define HDR 64

typedef struct {
    int n;
    size_t bytes;
    void *buf[SCRATCH_KEEP]; /* header addresses */
} cache_t;

static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void cache_free(void *v)
{
    cache_t *c = v;
    for (int i = 0; i < c->n; i++)
        free(c->buf[i]);
    free(c);
}

static void make_key(void)
{
    (void)pthread_key_create(&key, cache_free);
}

static cache_t *cache(int create)
{
    pthread_once(&once, make_key);
    cache_t *c = pthread_getspecific(key);
    if (!c && create) {
        c = calloc(1, sizeof *c);
        if (c && pthread_setspecific(key, c)) {
            free(c);
            c = NULL;
        }
    }
    return c;
}

static size_t cap_of(const void *h)
{
    return *(const size_t *)h;
}

void *scratch_alloc(size_t n)
{
    if (n == 0) n = 1;
    if (n > SIZE_MAX - HDR) return NULL;
    cache_t *c = n >= SCRATCH_MIN ? cache(0) : NULL;
    if (c) {
        /* the smallest kept buffer that holds n, if not over twice n */
        int best = -1;
        for (int i = 0; i < c->n; i++) {
            size_t cap = cap_of(c->buf[i]);
            if (cap >= n && cap / 2 <= n && (best < 0 || cap < cap_of(c->buf[best]))) best = i;
        }
        if (best >= 0) {
            void *h = c->buf[best];
            c->bytes -= cap_of(h);
            c->buf[best] = c->buf[--c->n];
            return (char *)h + HDR;
        }
    }
    void *h = NULL;
    if (posix_memalign(&h, HDR, n + HDR)) return NULL;
    *(size_t *)h = n;
    return (char *)h + HDR;
}

void scratch_free(void *p)
{
    if (!p) return;
    void *h = (char *)p - HDR;
    size_t cap = cap_of(h);
    cache_t *c = cap >= SCRATCH_MIN && cap <= SCRATCH_KEEP_BYTES ? cache(1) : NULL;
    if (!c) {
        free(h);
        return;
    }
    /* make room: the oldest kept buffers go first */
    while (c->n > 0 && (c->n == SCRATCH_KEEP || c->bytes + cap > SCRATCH_KEEP_BYTES)) {
        c->bytes -= cap_of(c->buf[0]);
        free(c->buf[0]);
        for (int i = 1; i < c->n; i++)
            c->buf[i - 1] = c->buf[i];
        c->n--;
    }
    c->buf[c->n++] = h;
    c->bytes += cap;
}

void scratch_drop(void)
{
    cache_t *c = cache(0);
    if (!c) return;
    for (int i = 0; i < c->n; i++)
        free(c->buf[i]);
    c->n = 0;
    c->bytes = 0;
}
