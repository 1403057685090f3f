/* metrics.c: Prometheus registry and text exposition. */
#include "metrics.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpfmt.h"

typedef enum { M_COUNTER, M_GAUGE, M_HISTOGRAM } mtype_t;

struct metrics_series {
    struct metrics_series *next;
    struct family *fam;
    char *labels;                     /* rendered `a="x",b="y"` (escaped), "" when none */
    _Atomic double value;             /* counter, gauge; histogram sum */
    _Atomic unsigned long long count; /* histogram */
    _Atomic unsigned long long buckets[METRICS_MAX_BUCKETS + 1]; /* per bucket, not cumulative */
};

typedef struct family {
    char *name, *help;
    mtype_t type;
    int n_bounds;
    double bounds[METRICS_MAX_BUCKETS];
    struct metrics_series *series, **tail;
} family_t;

/* Families and collect hooks of one process: a service has a few dozen
 * families; 16 hooks are one per subsystem with room to spare. */
#define MAX_HOOKS 16

struct metrics_registry {
    pthread_mutex_t lock;
    family_t **fams;
    int n_fams, cap_fams;
    struct {
        void (*fn)(void *);
        void *arg;
    } hooks[MAX_HOOKS];
    int n_hooks;
};

const double METRICS_LATENCY_BUCKETS[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                          0.25,  0.5,    1,     2.5,  5,     10};
const int METRICS_N_LATENCY_BUCKETS = sizeof METRICS_LATENCY_BUCKETS / sizeof(double);

metrics_registry_t *metrics_create(void)
{
    metrics_registry_t *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    pthread_mutex_init(&r->lock, NULL);
    return r;
}

void metrics_free(metrics_registry_t *r)
{
    if (!r) return;
    for (int i = 0; i < r->n_fams; i++) {
        family_t *f = r->fams[i];
        for (struct metrics_series *s = f->series, *n; s; s = n) {
            n = s->next;
            free(s->labels);
            free(s);
        }
        free(f->name);
        free(f->help);
        free(f);
    }
    free(r->fams);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

static bool valid_name(const char *s, bool metric)
{
    if (!s || !*s) return false;
    for (const char *p = s; *p; p++) {
        char c = *p;
        bool alpha =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (metric && c == ':');
        if (!alpha && !(p > s && c >= '0' && c <= '9')) return false;
    }
    return true;
}

static void put_escaped(sbuf_t *b, const char *s, bool quote)
{
    for (; *s; s++) {
        if (*s == '\\')
            sbuf_puts(b, "\\\\");
        else if (*s == '\n')
            sbuf_puts(b, "\\n");
        else if (quote && *s == '"')
            sbuf_puts(b, "\\\"");
        else
            sbuf_putc(b, *s);
    }
}

/* Renders the label list, or returns -1 for an invalid one. */
static int render_labels(const char *const *labels, bool histogram, sbuf_t *out)
{
    int n = 0;
    for (const char *const *l = labels; l && l[0]; l += 2, n++) {
        if (!l[1] || n == METRICS_MAX_LABELS || !valid_name(l[0], false)) return -1;
        if (strncmp(l[0], "__", 2) == 0 || (histogram && strcmp(l[0], "le") == 0)) return -1;
        if (n) sbuf_putc(out, ',');
        sbuf_printf(out, "%s=\"", l[0]);
        put_escaped(out, l[1], true);
        sbuf_putc(out, '"');
    }
    return 0;
}

static struct metrics_series *lookup(metrics_registry_t *r, mtype_t type, const char *name,
                                     const char *help, const char *const *labels,
                                     const double *bounds, int n_bounds)
{
    if (!valid_name(name, true) || !help) return NULL;
    if (type == M_HISTOGRAM) {
        if (n_bounds < 0 || n_bounds > METRICS_MAX_BUCKETS) return NULL;
        for (int i = 0; i < n_bounds; i++) {
            if (!isfinite(bounds[i]) || (i && bounds[i] <= bounds[i - 1])) return NULL;
        }
    }
    sbuf_t lb;
    sbuf_init(&lb);
    if (render_labels(labels, type == M_HISTOGRAM, &lb)) {
        sbuf_close(&lb);
        return NULL;
    }
    struct metrics_series *found = NULL;
    pthread_mutex_lock(&r->lock);
    family_t *f = NULL;
    for (int i = 0; i < r->n_fams; i++) {
        if (strcmp(r->fams[i]->name, name) == 0) f = r->fams[i];
    }
    if (f) {
        if (f->type != type) goto mismatch;
        if (type == M_HISTOGRAM &&
            (f->n_bounds != n_bounds ||
             (n_bounds && memcmp(f->bounds, bounds, sizeof(double) * n_bounds) != 0)))
            goto mismatch;
        for (struct metrics_series *s = f->series; s; s = s->next) {
            if (strcmp(s->labels, sbuf_str(&lb)) == 0) {
                found = s;
                goto done;
            }
        }
    } else {
        if (r->n_fams == r->cap_fams) {
            int cap = r->cap_fams ? r->cap_fams * 2 : 16;
            family_t **p = realloc(r->fams, sizeof *p * cap);
            if (!p) abort();
            r->fams = p;
            r->cap_fams = cap;
        }
        f = calloc(1, sizeof *f);
        if (!f) abort();
        f->name = strdup(name);
        f->help = strdup(help);
        if (!f->name || !f->help) abort();
        f->type = type;
        f->n_bounds = n_bounds;
        if (n_bounds) memcpy(f->bounds, bounds, sizeof(double) * n_bounds);
        f->tail = &f->series;
        r->fams[r->n_fams++] = f;
    }
    found = calloc(1, sizeof *found);
    if (!found) abort();
    found->fam = f;
    found->labels = sbuf_detach(&lb, NULL);
    *f->tail = found;
    f->tail = &found->next;
done:
mismatch:
    pthread_mutex_unlock(&r->lock);
    sbuf_close(&lb);
    return found;
}

metrics_counter_t *metrics_counter(metrics_registry_t *r, const char *name, const char *help,
                                   const char *const *labels)
{
    return lookup(r, M_COUNTER, name, help, labels, NULL, 0);
}

metrics_gauge_t *metrics_gauge(metrics_registry_t *r, const char *name, const char *help,
                               const char *const *labels)
{
    return lookup(r, M_GAUGE, name, help, labels, NULL, 0);
}

metrics_histogram_t *metrics_histogram(metrics_registry_t *r, const char *name, const char *help,
                                       const char *const *labels, const double *bounds,
                                       int n_bounds)
{
    return lookup(r, M_HISTOGRAM, name, help, labels, bounds, n_bounds);
}

static void atomic_add_double(_Atomic double *a, double v)
{
    double old = atomic_load_explicit(a, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(a, &old, old + v, memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
}

void metrics_counter_inc(metrics_counter_t *c)
{
    atomic_add_double(&c->value, 1.0);
}

void metrics_counter_add(metrics_counter_t *c, double v)
{
    if (v > 0) atomic_add_double(&c->value, v);
}

void metrics_counter_set(metrics_counter_t *c, double v)
{
    atomic_store(&c->value, v);
}
void metrics_gauge_set(metrics_gauge_t *g, double v)
{
    atomic_store(&g->value, v);
}
void metrics_gauge_add(metrics_gauge_t *g, double v)
{
    atomic_add_double(&g->value, v);
}

void metrics_histogram_observe(metrics_histogram_t *h, double v)
{
    const family_t *f = h->fam;
    int i = 0;
    while (i < f->n_bounds && !(v <= f->bounds[i]))
        i++;
    atomic_fetch_add_explicit(&h->buckets[i], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->count, 1, memory_order_relaxed);
    atomic_add_double(&h->value, v);
}

double metrics_value(const metrics_counter_t *s)
{
    if (s->fam->type == M_HISTOGRAM) return (double)atomic_load(&s->count);
    return atomic_load(&s->value);
}

int metrics_on_collect(metrics_registry_t *r, void (*fn)(void *arg), void *arg)
{
    int rc = -1;
    pthread_mutex_lock(&r->lock);
    if (r->n_hooks < MAX_HOOKS) {
        r->hooks[r->n_hooks].fn = fn;
        r->hooks[r->n_hooks].arg = arg;
        r->n_hooks++;
        rc = 0;
    }
    pthread_mutex_unlock(&r->lock);
    return rc;
}

/* Shortest text that reads back as the same double; Prometheus spellings
 * for the special values. */
static void put_double(sbuf_t *b, double v)
{
    if (isnan(v)) {
        sbuf_puts(b, "NaN");
        return;
    }
    if (isinf(v)) {
        sbuf_puts(b, v > 0 ? "+Inf" : "-Inf");
        return;
    }
    char tmp[40];
    fp_json(tmp, sizeof tmp, v);
    sbuf_puts(b, tmp);
}

static void put_sample(sbuf_t *b, const char *name, const char *suffix, const char *labels,
                       const char *extra, double v)
{
    sbuf_puts(b, name);
    sbuf_puts(b, suffix);
    if (*labels || extra) {
        sbuf_putc(b, '{');
        sbuf_puts(b, labels);
        if (*labels && extra) sbuf_putc(b, ',');
        if (extra) sbuf_puts(b, extra);
        sbuf_putc(b, '}');
    }
    sbuf_putc(b, ' ');
    put_double(b, v);
    sbuf_putc(b, '\n');
}

void metrics_render(metrics_registry_t *r, sbuf_t *out)
{
    static const char *const TYPES[] = {"counter", "gauge", "histogram"};
    pthread_mutex_lock(&r->lock);
    int n_hooks = r->n_hooks;
    pthread_mutex_unlock(&r->lock);
    for (int i = 0; i < n_hooks; i++)
        r->hooks[i].fn(r->hooks[i].arg);

    pthread_mutex_lock(&r->lock);
    for (int i = 0; i < r->n_fams; i++) {
        const family_t *f = r->fams[i];
        sbuf_printf(out, "# HELP %s ", f->name);
        put_escaped(out, f->help, false);
        sbuf_printf(out, "\n# TYPE %s %s\n", f->name, TYPES[f->type]);
        for (struct metrics_series *s = f->series; s; s = s->next) {
            if (f->type != M_HISTOGRAM) {
                put_sample(out, f->name, "", s->labels, NULL, atomic_load(&s->value));
                continue;
            }
            /* Read the buckets first and derive the count from them, so that
             * the +Inf bucket and _count agree even while observations land. */
            unsigned long long cum = 0;
            sbuf_t le;
            sbuf_init(&le);
            for (int k = 0; k <= f->n_bounds; k++) {
                cum += atomic_load(&s->buckets[k]);
                sbuf_reset(&le);
                sbuf_puts(&le, "le=\"");
                if (k < f->n_bounds)
                    put_double(&le, f->bounds[k]);
                else
                    sbuf_puts(&le, "+Inf");
                sbuf_putc(&le, '"');
                put_sample(out, f->name, "_bucket", s->labels, sbuf_str(&le), (double)cum);
            }
            sbuf_close(&le);
            put_sample(out, f->name, "_sum", s->labels, NULL, atomic_load(&s->value));
            put_sample(out, f->name, "_count", s->labels, NULL, (double)cum);
        }
    }
    pthread_mutex_unlock(&r->lock);
}
