/* Unit tests of services/common/http.c through a real server on a free
 * loopback port, driven by services/common/httpc.c: routing, captured
 * parameters, 404 and 405 bodies, deferred work on the pool, metrics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "http.h"
#include "httpc.h"

static int g_thread_states;

static void h_echo(http_req_t *r)
{
    http_reply_t rep;
    http_reply_json(&rep, 200,
                    json_pack("{s:s,s:s}", "a", http_param(r, 0), "b", http_param(r, 1)));
    http_send(r, &rep);
}

static void job_square(void *state, void *arg, http_reply_t *out)
{
    int x = *(int *)arg;
    http_reply_json(out, 200, json_pack("{s:i,s:i}", "square", x * x, "state", *(int *)state));
}

static void h_defer(http_req_t *r)
{
    int x = 12;
    http_defer(r, job_square, &x, sizeof x);
}

static void h_post_only(http_req_t *r)
{
    http_reply_t rep = {.status = 204};
    http_send(r, &rep);
}

/* A streamed answer: copied bytes, a given buffer (sent as it
 * lies), copied bytes again, an empty given buffer. */
#define GIVEN_N 600000u /* httpc reads answers of at most 1 MiB */
static char g_given[GIVEN_N];
static int g_given_done;

static void given_done(void *ctx)
{
    __atomic_fetch_add((int *)ctx, 1, __ATOMIC_SEQ_CST);
}

static void job_stream(void *state, void *arg, http_stream_t *st, http_reply_t *out)
{
    for (size_t i = 0; i < GIVEN_N; i++)
        g_given[i] = (char)('a' + i % 26);
    http_stream_begin(st, 200, "application/octet-stream", 10 + GIVEN_N + 5);
    if (http_stream_write(st, "0123456789", 10)) return;
    if (http_stream_give(st, g_given, GIVEN_N, given_done, &g_given_done)) return;
    if (http_stream_write(st, "ABCDE", 5)) return;
    http_stream_give(st, g_given, 0, given_done, &g_given_done);
}

static void h_stream(http_req_t *r)
{
    http_defer_stream(r, job_stream, NULL, 0);
}

static void *state_init(void *app)
{
    static int states[8];
    int i = __atomic_fetch_add(&g_thread_states, 1, __ATOMIC_SEQ_CST);
    states[i] = 100 + i;
    return &states[i];
}

static const http_route_t ROUTES[] = {
    {"GET", "/health", http_handle_health}, {"GET", "/metrics", http_handle_metrics},
    {"GET", "/x/{}/y/{}", h_echo},          {"GET", "/defer", h_defer},
    {"POST", "/post-only", h_post_only},    {"DELETE", "/post-only", h_post_only},
    {"GET", "/stream", h_stream},
};

static http_server_t *g_srv;
static metrics_registry_t *g_metrics;

static json_t *get_json(const char *path, int want_status)
{
    int status = 0;
    char err[256];
    sbuf_t body;
    sbuf_init(&body);
    if (httpc_get("127.0.0.1", http_server_port(g_srv), path, 5000, &status, &body, err,
                  sizeof err))
        fail_msg("GET %s: %s", path, err);
    if (status != want_status)
        fail_msg("GET %s: status %d, want %d: %s", path, status, want_status, sbuf_str(&body));
    json_error_t je;
    json_t *doc = json_loadb(body.data, body.len, 0, &je);
    if (!doc) fail_msg("GET %s: not JSON: %s", path, sbuf_str(&body));
    sbuf_close(&body);
    return doc;
}

static void test_params(void **state)
{
    json_t *d = get_json("/x/first/y/2nd", 200);
    assert_string_equal(json_string_value(json_object_get(d, "a")), "first");
    assert_string_equal(json_string_value(json_object_get(d, "b")), "2nd");
    json_decref(d);
    d = get_json("/x/first/y/2nd/", 200); /* a trailing slash is the same resource */
    json_decref(d);
    d = get_json("/health", 200);
    assert_string_equal(json_string_value(json_object_get(d, "status")), "ok");
    assert_string_equal(json_string_value(json_object_get(d, "service")), "unit");
    json_decref(d);
}

static void check_error(json_t *d, const char *code)
{
    json_t *e = json_object_get(d, "error");
    assert_non_null(e);
    assert_int_equal(json_object_size(d), 1);
    assert_int_equal(json_object_size(e), 2);
    assert_string_equal(json_string_value(json_object_get(e, "code")), code);
    assert_non_null(json_string_value(json_object_get(e, "message")));
    json_decref(d);
}

static void test_errors(void **state)
{
    check_error(get_json("/nowhere", 404), "not_found");
    check_error(get_json("/x//y/2", 404), "not_found"); /* {} matches non-empty segments only */
    check_error(get_json("/x/a/y/b/c", 404), "not_found");
    json_t *d = get_json("/post-only", 405);
    assert_non_null(
        strstr(json_string_value(json_object_get(json_object_get(d, "error"), "message")),
               "POST, DELETE"));
    check_error(d, "method_not_allowed");
}

static void test_defer(void **state)
{
    for (int i = 0; i < 20; i++) {
        json_t *d = get_json("/defer", 200);
        assert_int_equal(json_integer_value(json_object_get(d, "square")), 144);
        int st = (int)json_integer_value(json_object_get(d, "state"));
        assert_true(st >= 100 && st < 102); /* the state of one of the two pool threads */
        json_decref(d);
    }
    /* each pool thread makes its state as it starts: on a loaded machine
     * the second may start after these requests were served by the first */
    for (int i = 0; i < 500 && __atomic_load_n(&g_thread_states, __ATOMIC_SEQ_CST) < 2; i++)
        usleep(10000);
    assert_int_equal(__atomic_load_n(&g_thread_states, __ATOMIC_SEQ_CST), 2);
}

static void test_metrics_counted(void **state)
{
    int status;
    char err[256];
    sbuf_t body;
    sbuf_init(&body);
    assert_int_equal(httpc_get("127.0.0.1", http_server_port(g_srv), "/metrics", 5000, &status,
                               &body, err, sizeof err),
                     0);
    assert_int_equal(status, 200);
    assert_non_null(strstr(sbuf_str(&body),
                           "mars_http_requests_total{server=\"unit\",method=\"GET\","
                           "code=\"200\"}"));
    assert_non_null(strstr(sbuf_str(&body),
                           "mars_http_requests_total{server=\"unit\",method=\"GET\","
                           "code=\"405\"} 1\n"));
    assert_non_null(strstr(sbuf_str(&body), "# TYPE mars_http_request_seconds histogram\n"));
    sbuf_close(&body);
}

static void test_client_errors(void **state)
{
    int status;
    char err[256];
    sbuf_t body;
    sbuf_init(&body);
    /* A closed port: refused at once, with the address in the message. */
    assert_int_equal(httpc_get("127.0.0.1", 1, "/", 2000, &status, &body, err, sizeof err), -1);
    assert_non_null(strstr(err, "127.0.0.1:1"));
    assert_int_equal(
        httpc_get("no-such-host.invalid", 80, "/", 2000, &status, &body, err, sizeof err), -1);
    sbuf_close(&body);
}

static void test_stream_give(void **state)
{
    int status;
    char err[256];
    sbuf_t body;
    sbuf_init(&body);
    if (httpc_get("127.0.0.1", http_server_port(g_srv), "/stream", 10000, &status, &body, err,
                  sizeof err))
        fail_msg("GET /stream: %s", err);
    assert_int_equal(status, 200);
    assert_int_equal(body.len, 10 + GIVEN_N + 5);
    assert_memory_equal(body.data, "0123456789", 10);
    assert_memory_equal(body.data + 10, g_given, GIVEN_N);
    assert_memory_equal(body.data + 10 + GIVEN_N, "ABCDE", 5);
    sbuf_close(&body);
    /* each given buffer is handed back once: the empty one at once, the
     * other once h2o has sent it (the client may see its bytes first) */
    for (int i = 0; i < 200 && __atomic_load_n(&g_given_done, __ATOMIC_SEQ_CST) < 2; i++)
        usleep(5000);
    assert_int_equal(__atomic_load_n(&g_given_done, __ATOMIC_SEQ_CST), 2);
}

static int setup(void **state)
{
    char err[256];
    g_metrics = metrics_create();
    http_opts_t o = {.name = "unit",
                     .host = "127.0.0.1",
                     .port = 0,
                     .n_loops = 2,
                     .max_body = 1 << 20,
                     .routes = ROUTES,
                     .n_routes = sizeof ROUTES / sizeof ROUTES[0],
                     .metrics = g_metrics,
                     .n_workers = 2,
                     .worker_init = state_init};
    if (http_server_start(&o, &g_srv, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return http_server_port(g_srv) > 0 ? 0 : -1;
}

static int teardown(void **state)
{
    http_server_free(g_srv);
    metrics_free(g_metrics);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params),        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_defer),         cmocka_unit_test(test_metrics_counted),
        cmocka_unit_test(test_client_errors), cmocka_unit_test(test_stream_give),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
