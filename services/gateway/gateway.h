/* gateway.h: the REST API of shared/spec/cluster.md as a library, served by
 * mars-gateway and, with -w, inside mars-supervisor.
 *
 * The gateway is stateless: every answer comes from PostgreSQL (sessions,
 * tasks, workers, supervisors) or Redis, through the HTTP server's pool of
 * blocking threads, each with its own connections (services/common/http.h
 * explains why a pool). */
#ifndef MARS_GW_GATEWAY_H
#define MARS_GW_GATEWAY_H

#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "metrics.h"

typedef struct gw gw_t;

/* Loop threads of the REST server: two keep one slow TLS-less client from
 * delaying the others; HTTP parsing is never the bottleneck here. */
#define GW_DEFAULT_LOOPS 2
/* Pool threads, hence database connections, per gateway: requests are
 * short statements, four serve thousands per second. */
#define GW_DEFAULT_DB_THREADS 4
/* Threads streaming tensor data (each with its own connections): a
 * download holds one while it lasts, apart from the pool above, so slow
 * clients delay other downloads but never the API's short requests. */
#define GW_DEFAULT_STREAM_THREADS 4

typedef struct gw_opts {
    const char *host; /* bind */
    int port;         /* 0: a free one */
    int64_t max_body;
    const char *pg_dsn, *redis_url; /* copied */
    const char *ui_dir;             /* --ui-dir (copied); NULL or "": found beside the program */
    const char *token;              /* NULL or "": open; else http.h's rules (copied) */
    graph_limits_t quota;           /* submission quotas (cfg_t.quota) */
    metrics_registry_t *metrics;    /* the process's; outlives the gateway */
} gw_opts_t;

/* Starts serving; the caller owns *out (gw_free). */
int gw_start(const gw_opts_t *o, gw_t **out, char *err, size_t errlen);
int gw_port(const gw_t *g);
void gw_free(gw_t *g);

#endif
