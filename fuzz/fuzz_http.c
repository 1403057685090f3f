/* fuzz_http.c: libFuzzer target for the HTTP request handling that needs no
 * network (services/common/httpparse.h): route matching against the
 * gateway's route patterns, query-string lookup and percent-decoding, the
 * bearer token in Authorization and Cookie headers, and the JSON bodies of
 * the session and submission routes (jansson with the gateway's flags; the
 * graph parser with the engine's limits, as tasks.c validates).
 *
 * Input layout: byte 0 picks what to feed, the rest is the data; for
 * routes, the data is "METHOD PATH?QUERY" (first line). */
#define _GNU_SOURCE /* memmem */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "graph.h"
#include "httpparse.h"

static const char *const PATTERNS[] = {
    "/health",
    "/metrics",
    "/api/v1/health",
    "/api/v1/sessions",
    "/api/v1/sessions/{}",
    "/api/v1/sessions/{}/tasks",
    "/api/v1/sessions/{}/tasks/{}",
    "/api/v1/sessions/{}/tensors",
    "/api/v1/sessions/{}/tensors/{}",
    "/api/v1/sessions/{}/tensors/{}/data",
    "/api/v1/files/{}",
    "/api/v1/workers",
    "/api/v1/supervisors",
    "/",
};

static void fuzz_route(const char *d, size_t n)
{
    const char *sp = memchr(d, ' ', n);
    const char *path = sp ? sp + 1 : d;
    size_t plen = n - (size_t)(path - d);
    const char *q = memchr(path, '?', plen);
    size_t qlen = 0;
    if (q) {
        qlen = plen - (size_t)(q - path) - 1;
        plen = (size_t)(q - path);
    }
    for (size_t i = 0; i < sizeof PATTERNS / sizeof PATTERNS[0]; i++) {
        size_t off[HTTPP_MAX_PARAMS][2];
        int k = 0;
        if (http_pattern_match(PATTERNS[i], path, plen, off, &k)) {
            for (int j = 0; j < k; j++)
                if (off[j][0] + off[j][1] > plen || off[j][1] == 0) abort();
        }
    }
    if (q) {
        static const char *const NAMES[] = {"wait", "key", "chunk_size", "format", "token", ""};
        for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++) {
            size_t vlen = 0;
            const char *v = http_query_find(q + 1, qlen, NAMES[i], &vlen);
            if (!v) continue;
            if (v < q + 1 || v + vlen > q + 1 + qlen) abort();
            char *out = malloc(vlen + 1);
            if (!out) abort();
            if (http_percent_decode(v, vlen, out) > vlen) abort();
            free(out);
        }
    }
}

static void fuzz_token(const char *d, size_t n)
{
    static const char TOKEN[] = "s3cret-token";
    bool b = http_bearer_ok(d, n, TOKEN);
    bool c = http_cookie_ok(d, n, TOKEN);
    /* The token is never accepted without being present in full. */
    if ((b || c) && !memmem(d, n, TOKEN, sizeof TOKEN - 1)) abort();
    if (http_token_equal(d, n, TOKEN) != (n == sizeof TOKEN - 1 && memcmp(d, TOKEN, n) == 0))
        abort();
}

static void fuzz_json(const char *d, size_t n)
{
    json_error_t je;
    json_t *doc = json_loadb(d, n, JSON_REJECT_DUPLICATES, &je);
    json_decref(doc);
    graph_limits_t lim;
    graph_limits_default(&lim);
    graph_t *g = NULL;
    char err[512];
    if (graph_parse(d, n, &lim, NULL, &g, err, sizeof err) == 0) graph_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const char *d = (const char *)data + 1;
    size_t n = size - 1;
    switch (data[0] % 3) {
    case 0:
        fuzz_route(d, n);
        break;
    case 1:
        fuzz_token(d, n);
        break;
    default:
        fuzz_json(d, n);
        break;
    }
    return 0;
}
