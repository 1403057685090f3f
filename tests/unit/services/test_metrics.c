/* Unit tests of services/common/metrics.c: registration rules and the
 * Prometheus text exposition, byte for byte. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "metrics.h"

static char *render(metrics_registry_t *r)
{
    static char out[8192];
    sbuf_t b;
    sbuf_init(&b);
    metrics_render(r, &b);
    snprintf(out, sizeof out, "%s", sbuf_str(&b));
    sbuf_close(&b);
    return out;
}

static void test_counter_text(void **state)
{
    metrics_registry_t *r = metrics_create();
    metrics_counter_t *c = metrics_counter(r, "mars_jobs_total", "Jobs run", NULL);
    assert_non_null(c);
    metrics_counter_inc(c);
    metrics_counter_add(c, 2);
    metrics_counter_add(c, -5); /* counters never go down */
    assert_true(metrics_value(c) == 3.0);
    assert_string_equal(render(r), "# HELP mars_jobs_total Jobs run\n"
                                   "# TYPE mars_jobs_total counter\n"
                                   "mars_jobs_total 3\n");
    metrics_free(r);
}

static void test_labels_and_families(void **state)
{
    metrics_registry_t *r = metrics_create();
    const char *get200[] = {"method", "GET", "code", "200", NULL};
    metrics_counter_t *a = metrics_counter(r, "req_total", "Requests\nby code \\ method", get200);
    metrics_counter_t *b = metrics_counter(r, "req_total", "Requests",
                                           (const char *[]){"method", "POST", "code", "201", NULL});
    metrics_counter_t *a2 = metrics_counter(r, "req_total", "Requests", get200);
    assert_non_null(a);
    assert_non_null(b);
    assert_ptr_equal(a, a2); /* the same series, found again */
    assert_ptr_not_equal(a, b);
    metrics_counter_inc(a);
    metrics_counter_inc(a2);
    metrics_counter_inc(b);
    metrics_gauge_t *g = metrics_gauge(r, "odd_gauge", "Label escaping",
                                       (const char *[]){"path", "a\"b\\c\nd", NULL});
    metrics_gauge_set(g, -1.5);
    assert_string_equal(render(r), "# HELP req_total Requests\\nby code \\\\ method\n"
                                   "# TYPE req_total counter\n"
                                   "req_total{method=\"GET\",code=\"200\"} 2\n"
                                   "req_total{method=\"POST\",code=\"201\"} 1\n"
                                   "# HELP odd_gauge Label escaping\n"
                                   "# TYPE odd_gauge gauge\n"
                                   "odd_gauge{path=\"a\\\"b\\\\c\\nd\"} -1.5\n");
    metrics_free(r);
}

static void test_registration_rules(void **state)
{
    metrics_registry_t *r = metrics_create();
    double bounds[] = {1, 2};
    assert_non_null(metrics_counter(r, "ok_name:sub_total", "h", NULL));
    assert_null(metrics_counter(r, "1abc", "h", NULL));
    assert_null(metrics_counter(r, "a-b", "h", NULL));
    assert_null(metrics_counter(r, "", "h", NULL));
    assert_null(metrics_counter(r, "x", NULL, NULL));
    assert_null(metrics_counter(r, "x", "h", (const char *[]){"bad-label", "v", NULL}));
    assert_null(metrics_counter(r, "x", "h", (const char *[]){"__reserved", "v", NULL}));
    assert_null(metrics_counter(r, "x", "h", (const char *[]){"key_without_value", NULL}));
    assert_null(metrics_counter(r, "x", "h", (const char *[]){"a:b", "v", NULL}));
    /* A name keeps its type. */
    assert_non_null(metrics_gauge(r, "kept", "h", NULL));
    assert_null(metrics_counter(r, "kept", "h", NULL));
    assert_null(metrics_histogram(r, "kept", "h", NULL, bounds, 2));
    /* Histograms: increasing finite bounds, the same for the whole family, no `le` label. */
    assert_non_null(metrics_histogram(r, "lat", "h", NULL, bounds, 2));
    assert_null(
        metrics_histogram(r, "lat", "h", (const char *[]){"k", "v", NULL}, (double[]){1, 3}, 2));
    assert_null(metrics_histogram(r, "h2", "h", NULL, (double[]){2, 1}, 2));
    assert_null(metrics_histogram(r, "h3", "h", NULL, (double[]){1, 1}, 2));
    assert_null(metrics_histogram(r, "h4", "h", NULL, (double[]){1, INFINITY}, 2));
    assert_null(metrics_histogram(r, "h5", "h", (const char *[]){"le", "1", NULL}, bounds, 2));
    assert_null(metrics_histogram(r, "h6", "h", NULL, bounds, METRICS_MAX_BUCKETS + 1));
    metrics_free(r);
}

static void test_histogram_text(void **state)
{
    metrics_registry_t *r = metrics_create();
    double bounds[] = {0.1, 1, 10};
    metrics_histogram_t *h = metrics_histogram(r, "lat_seconds", "Latency",
                                               (const char *[]){"server", "gw", NULL}, bounds, 3);
    assert_non_null(h);
    metrics_histogram_observe(h, 0.05);
    metrics_histogram_observe(h, 0.1); /* bounds are inclusive (le) */
    metrics_histogram_observe(h, 5);
    metrics_histogram_observe(h, 100);
    assert_true(metrics_value(h) == 4.0);
    assert_string_equal(render(r), "# HELP lat_seconds Latency\n"
                                   "# TYPE lat_seconds histogram\n"
                                   "lat_seconds_bucket{server=\"gw\",le=\"0.1\"} 2\n"
                                   "lat_seconds_bucket{server=\"gw\",le=\"1\"} 2\n"
                                   "lat_seconds_bucket{server=\"gw\",le=\"10\"} 3\n"
                                   "lat_seconds_bucket{server=\"gw\",le=\"+Inf\"} 4\n"
                                   "lat_seconds_sum{server=\"gw\"} 105.15\n"
                                   "lat_seconds_count{server=\"gw\"} 4\n");
    metrics_free(r);
}

static void test_number_format(void **state)
{
    metrics_registry_t *r = metrics_create();
    struct {
        const char *name;
        double v;
        const char *text;
    } cases[] = {{"g_int", 3, "3"},
                 {"g_tenth", 0.1, "0.1"},
                 {"g_third", 1.0 / 3, "0.3333333333333333"},
                 {"g_big", 1e21, "1e+21"},
                 {"g_neg", -2.5e-7, "-2.5e-07"},
                 {"g_inf", INFINITY, "+Inf"},
                 {"g_ninf", -INFINITY, "-Inf"},
                 {"g_nan", NAN, "NaN"}};
    char expect[2048] = "", line[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        metrics_gauge_set(metrics_gauge(r, cases[i].name, "x", NULL), cases[i].v);
        snprintf(line, sizeof line, "# HELP %s x\n# TYPE %s gauge\n%s %s\n", cases[i].name,
                 cases[i].name, cases[i].name, cases[i].text);
        strcat(expect, line);
    }
    /* Shortest text that reads back exactly, as Python's repr: 1/3 needs 16 digits. */
    assert_string_equal(render(r), expect);
    metrics_free(r);
}

static void collect(void *arg)
{
    metrics_gauge_set(arg, 42);
}

static void test_collect_hook(void **state)
{
    metrics_registry_t *r = metrics_create();
    metrics_gauge_t *g = metrics_gauge(r, "collected", "Set at scrape", NULL);
    assert_int_equal(metrics_on_collect(r, collect, g), 0);
    assert_true(strstr(render(r), "\ncollected 42\n") != NULL);
    for (int i = 1; i < 16; i++)
        assert_int_equal(metrics_on_collect(r, collect, g), 0);
    assert_int_equal(metrics_on_collect(r, collect, g), -1); /* 16 hooks at most */
    metrics_free(r);
}

#define THREADS 4
#define PER_THREAD 100000

static void *hammer(void *arg)
{
    metrics_registry_t *r = arg;
    metrics_counter_t *c = metrics_counter(r, "hits_total", "h", NULL);
    metrics_histogram_t *h = metrics_histogram(r, "sizes", "h", NULL, (double[]){1}, 1);
    for (int i = 0; i < PER_THREAD; i++) {
        metrics_counter_inc(c);
        metrics_histogram_observe(h, i % 2 ? 0.5 : 2);
    }
    return NULL;
}

static void test_threads(void **state)
{
    metrics_registry_t *r = metrics_create();
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, hammer, r);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert_true(metrics_value(metrics_counter(r, "hits_total", "h", NULL)) == THREADS * PER_THREAD);
    const char *text = render(r);
    char want[128];
    snprintf(want, sizeof want, "sizes_bucket{le=\"1\"} %d\n", THREADS * PER_THREAD / 2);
    assert_non_null(strstr(text, want));
    snprintf(want, sizeof want, "sizes_sum %d\n", THREADS * PER_THREAD / 2 * 5 / 2);
    assert_non_null(strstr(text, want));
    metrics_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_text),
        cmocka_unit_test(test_labels_and_families),
        cmocka_unit_test(test_registration_rules),
        cmocka_unit_test(test_histogram_text),
        cmocka_unit_test(test_number_format),
        cmocka_unit_test(test_collect_hook),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
