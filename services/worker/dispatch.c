/* dispatch.c: the job loop seam (see dispatch.h). */
#include "dispatch.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "log.h"

#define LOG_MODULE "dispatch"

struct dispatch {
    const cfg_t *cfg;
    atomic_int running;
    _Atomic int64_t done;
    _Atomic int64_t cache_used;
};

dispatch_t *dispatch_create(const cfg_t *c)
{
    dispatch_t *d = calloc(1, sizeof *d);
    if (d) d->cfg = c;
    return d;
}

int dispatch_start(dispatch_t *d, char *err, size_t errlen)
{
    log_info("%d slots reserved; running chunk jobs arrives with task execution", d->cfg->n_cpu);
    return 0;
}

void dispatch_stats(const dispatch_t *d, dispatch_stats_t *out)
{
    out->chunks_running = atomic_load(&d->running);
    out->chunks_done = atomic_load(&d->done);
    out->cache_used = atomic_load(&d->cache_used);
}

void dispatch_free(dispatch_t *d)
{
    free(d);
}
