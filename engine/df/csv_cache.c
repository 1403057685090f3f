/* csv_cache.c: the per-process cache of read_csv scans (csv_cache.h). */
#include "csv_cache.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *path;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    int64_t chunk, data_start;
    char sep, decimal, thousands, comment, quote;
    bool skipsp, skip_bad, keep_blank;
    int nsel;
    int *sel;
    csv_scan_t scan;
    uint64_t used; /* the clock at the last hit (the least recent is replaced) */
} entry_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static entry_t cache[CSV_CACHE_ENTRIES];
static uint64_t clock_;

void csv_scan_free(csv_scan_t *s)
{
    free(s->rg);
    free(s->rows);
    free(s->kinds);
    memset(s, 0, sizeof *s);
}

static int copy_scan(const csv_scan_t *s, int nsel, csv_scan_t *out)
{
    memset(out, 0, sizeof *out);
    out->nr = s->nr;
    out->rg = malloc(sizeof(csv_range_t) * (size_t)(s->nr ? s->nr : 1));
    out->rows = malloc(sizeof(int64_t) * (size_t)(s->nr ? s->nr : 1));
    out->kinds = malloc(sizeof(uint32_t) * (size_t)(nsel + 1));
    if (!out->rg || !out->rows || !out->kinds) {
        csv_scan_free(out);
        return -1;
    }
    memcpy(out->rg, s->rg, sizeof(csv_range_t) * (size_t)s->nr);
    memcpy(out->rows, s->rows, sizeof(int64_t) * (size_t)s->nr);
    memcpy(out->kinds, s->kinds, sizeof(uint32_t) * (size_t)nsel);
    return 0;
}

static bool same(const entry_t *e, const char *path, const struct stat *st, int64_t chunk,
                 const csv_header_t *h)
{
    return e->path && e->dev == st->st_dev && e->ino == st->st_ino && e->size == st->st_size &&
           e->mtime.tv_sec == st->st_mtim.tv_sec && e->mtime.tv_nsec == st->st_mtim.tv_nsec &&
           e->chunk == chunk && e->data_start == h->data_start && e->sep == h->sep &&
           e->decimal == h->decimal && e->thousands == h->thousands && e->comment == h->comment &&
           e->quote == h->quote && e->skipsp == h->skipsp && e->skip_bad == h->skip_bad &&
           e->keep_blank == h->keep_blank && e->nsel == h->nsel &&
           !memcmp(e->sel, h->sel, sizeof(int) * (size_t)h->nsel) && !strcmp(e->path, path);
}

int csv_cache_get(const char *path, const struct stat *st, int64_t chunk, const csv_header_t *h,
                  csv_scan_t *out)
{
    int hit = 0;
    if (h->nna || h->no_default_na || h->nbools || h->nskip)
        return 0; /* NA strings, bool strings and skipped lines change the summaries: not kept */
    pthread_mutex_lock(&mu);
    for (int i = 0; i < CSV_CACHE_ENTRIES && !hit; i++) {
        entry_t *e = &cache[i];
        if (!same(e, path, st, chunk, h)) continue;
        e->used = ++clock_;
        hit = copy_scan(&e->scan, h->nsel, out) == 0;
    }
    pthread_mutex_unlock(&mu);
    return hit;
}

static void entry_free(entry_t *e)
{
    free(e->path);
    free(e->sel);
    csv_scan_free(&e->scan);
    memset(e, 0, sizeof *e);
}

void csv_cache_put(const char *path, const struct stat *st, int64_t chunk, const csv_header_t *h,
                   const csv_scan_t *s)
{
    if (st->st_size < CSV_CACHE_MIN_BYTES || h->nna || h->no_default_na || h->nbools || h->nskip)
        return;
    entry_t n = {0};
    n.path = strdup(path);
    n.sel = malloc(sizeof(int) * (size_t)(h->nsel + 1));
    if (!n.path || !n.sel || copy_scan(s, h->nsel, &n.scan)) {
        entry_free(&n);
        return;
    }
    memcpy(n.sel, h->sel, sizeof(int) * (size_t)h->nsel);
    n.dev = st->st_dev;
    n.ino = st->st_ino;
    n.size = st->st_size;
    n.mtime = st->st_mtim;
    n.chunk = chunk;
    n.data_start = h->data_start;
    n.sep = h->sep;
    n.decimal = h->decimal;
    n.thousands = h->thousands;
    n.comment = h->comment;
    n.quote = h->quote;
    n.skipsp = h->skipsp;
    n.skip_bad = h->skip_bad;
    n.keep_blank = h->keep_blank;
    n.nsel = h->nsel;
    pthread_mutex_lock(&mu);
    int victim = 0;
    for (int i = 0; i < CSV_CACHE_ENTRIES; i++) {
        if (same(&cache[i], path, st, chunk, h)) { /* another thread put it first */
            victim = -1;
            break;
        }
        if (cache[i].used < cache[victim].used) victim = i;
    }
    if (victim >= 0) {
        entry_free(&cache[victim]);
        n.used = ++clock_;
        cache[victim] = n;
    }
    pthread_mutex_unlock(&mu);
    if (victim < 0) entry_free(&n);
}
