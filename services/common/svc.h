/* svc.h: process plumbing the three programs share: stop signals, waiting,
 * ids, and learning the database and queue addresses from a supervisor. */
#ifndef MARS_SVC_SVC_H
#define MARS_SVC_SVC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "metrics.h"

/* The edge of every main: parses the command line into c and installs the
 * logging it names. Prints --help to stdout, or a one-line error to stderr.
 * Returns true to go on; false with *exit_code (0 after --help, 2 for a
 * rejected command line). */
bool svc_init(cfg_t *c, cfg_service_t svc, int argc, char **argv, int *exit_code);
/* Registers the standard process metrics (process_cpu_seconds_total,
 * process_resident_memory_bytes, process_start_time_seconds), refreshed
 * at every scrape. */
void svc_process_metrics(metrics_registry_t *m);
/* "host:port", or "[host]:port" for an IPv6 literal. */
void svc_join_address(char *out, size_t cap, const char *host, int port);

/* Call first in main, before any thread starts: SIGINT and SIGTERM stop the
 * service (svc_wait returns true from then on) and are blocked in every
 * thread the program starts; SIGPIPE is ignored (a client that hangs up
 * must not kill the service). */
void svc_signals_init(void);
/* Sleeps up to ms, returning early with true once SIGINT or SIGTERM came
 * (then and ever after). Main thread only. */
bool svc_wait(int ms);
bool svc_stopping(void);
int64_t svc_now_ms(void);  /* monotonic clock */
int64_t svc_wall_ms(void); /* wall clock: ms since the epoch (reports, not timeouts) */
/* Retries connect(ctx) until it succeeds or timeout_ms has passed, waiting
 * before each new try until *next_try_ms (the caller's backoff, which every
 * failed try moves on). stop, when given, does the waiting: it sleeps up to
 * its argument and returns true to give up (a stop signal); otherwise the
 * wait is a plain sleep. 0, or -1 with the last try's message. */
int svc_connect_wait(int (*connect)(void *ctx, char *err, size_t errlen), void *ctx,
                     const long long *next_try_ms, int timeout_ms, bool (*stop)(int wait_ms),
                     char *err, size_t errlen);
/* A random id of 32 hex digits. */
void svc_random_id(char out[33]);

/* The folder rel (e.g. "db/migrations") of the source tree the program was
 * built in: build/bin or build/san/bin below it, so up to 3 levels above the
 * executable. Returns 0 with its path in out, else -1 with rel itself in out
 * (relative to the current directory). */
int svc_find_in_tree(const char *rel, char *out, size_t cap);
/* Fills c->pg_dsn and c->redis_url where not given, from GET
 * /api/v1/cluster-info of the first supervisor of c->supervisors that
 * answers; tries them in turn with backoff until one answers, or until a
 * stop signal (returns -1 then). */
int svc_discover(cfg_t *c, char *err, size_t errlen);

#endif
