/* metrics.h: a registry of counters, gauges and histograms, rendered as
 * Prometheus text exposition (format 0.0.4) for GET /metrics.
 *
 * Registration (metrics_counter, ...) takes a lock and returns the series
 * for that name and label set, creating it the first time: calling it again
 * with the same arguments returns the same pointer, so hot paths look a
 * series up once and keep the pointer. Updates are lock-free atomics and
 * safe from any thread. Series live as long as the registry.
 *
 * Labels are a NULL-terminated list of name, value pairs:
 *   (const char *[]){"method", "GET", "code", "200", NULL}
 * Registration returns NULL for an invalid metric or label name, a name
 * already registered with another type, or histogram bounds that differ
 * from the family's. */
#ifndef MARS_SVC_METRICS_H
#define MARS_SVC_METRICS_H

#include <stddef.h>

#include "sbuf.h"

typedef struct metrics_registry metrics_registry_t;
typedef struct metrics_series metrics_counter_t;
typedef struct metrics_series metrics_gauge_t;
typedef struct metrics_series metrics_histogram_t;

/* Histogram bounds per family; 32 covers any sensible latency or size
 * scale (powers of two from 1 to 2^31). */
#define METRICS_MAX_BUCKETS 32
/* Labels per series: more than 8 is a cardinality problem, not a need. */
#define METRICS_MAX_LABELS 8

metrics_registry_t *metrics_create(void); /* owned by the caller: metrics_free */
void metrics_free(metrics_registry_t *r);

metrics_counter_t *metrics_counter(metrics_registry_t *r, const char *name, const char *help,
                                   const char *const *labels);
metrics_gauge_t *metrics_gauge(metrics_registry_t *r, const char *name, const char *help,
                               const char *const *labels);
/* bounds: strictly increasing finite upper bounds; +Inf is implicit. */
metrics_histogram_t *metrics_histogram(metrics_registry_t *r, const char *name, const char *help,
                                       const char *const *labels, const double *bounds,
                                       int n_bounds);

void metrics_counter_inc(metrics_counter_t *c);
void metrics_counter_add(metrics_counter_t *c, double v); /* v >= 0; negative is ignored */
/* For counters that mirror a count kept elsewhere (CPU seconds from /proc):
 * only from a collect hook, and only with a value that never decreases. */
void metrics_counter_set(metrics_counter_t *c, double v);
void metrics_gauge_set(metrics_gauge_t *g, double v);
void metrics_gauge_add(metrics_gauge_t *g, double v);
void metrics_histogram_observe(metrics_histogram_t *h, double v);
double metrics_value(const metrics_counter_t *s); /* counter or gauge value; histogram count */

/* fn runs at the start of every metrics_render, under the registry lock
 * released: it may set gauges but must not register new series. At most
 * 16 hooks (one per subsystem). Returns 0, or -1 when full. */
int metrics_on_collect(metrics_registry_t *r, void (*fn)(void *arg), void *arg);

/* Appends the whole exposition to out. */
void metrics_render(metrics_registry_t *r, sbuf_t *out);

/* Default buckets for request latencies in seconds (1 ms .. 10 s). */
extern const double METRICS_LATENCY_BUCKETS[];
extern const int METRICS_N_LATENCY_BUCKETS;

#endif
