/* chunkget.h: one whole chunk by key, wherever it lives
 * (docs/cluster-protocol.md, "Data plane"): inline in Redis (small chunks
 * and uploads), or in the store of the worker mars:loc:<tid> names, read
 * over its -p port. For the few reads outside a job and outside a
 * download: a DataFrame source's schema when a document is validated. */
#ifndef MARS_SVC_CHUNKGET_H
#define MARS_SVC_CHUNKGET_H

#include <stddef.h>
#include <stdint.h>

#include "rq.h"

/* Reads chunk key (at most max bytes) into *out (malloc'ed, *n bytes).
 * token: the cluster's, for workers (NULL or "": none). 0, or -1 with
 * err (a chunk nobody holds any more included). */
int chunk_get_whole(rq_t *rq, const char *token, const char *key, uint64_t max, void **out,
                    size_t *n, char *err, size_t errlen);

#endif
