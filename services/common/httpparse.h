/* httpparse.h: the pure parts of request handling, apart from libh2o so
 * that they can be tested and fuzzed without a network (fuzz/fuzz_http.c):
 * route patterns, query strings, and the bearer token in an Authorization
 * header or the mars_token cookie. Nothing here allocates. */
#ifndef MARS_SVC_HTTPPARSE_H
#define MARS_SVC_HTTPPARSE_H

#include <stdbool.h>
#include <stddef.h>

/* Captured {} segments per route (http.h's HTTP_MAX_PARAMS). */
#define HTTPP_MAX_PARAMS 4

/* Matches path (plen bytes, not NUL-terminated) against a pattern whose
 * `{}` segments match one non-empty segment. On a match returns true and,
 * when off is not NULL, the offset and length of each capture in
 * off[i][0], off[i][1], their number in *n. */
bool http_pattern_match(const char *pat, const char *path, size_t plen,
                        size_t off[HTTPP_MAX_PARAMS][2], int *n);

/* The raw value of the first `name` parameter of query (qlen bytes, without
 * the '?'): a pointer into query and its length in *vlen; NULL when
 * absent. A parameter without '=' has the empty value. */
const char *http_query_find(const char *query, size_t qlen, const char *name, size_t *vlen);
/* Percent-decodes n bytes ('+' is a space; a '%' not followed by two hex
 * digits stays as it is) into out, which holds n + 1 bytes; NUL-terminates
 * and returns the decoded length (out may hold NULs). */
size_t http_percent_decode(const char *v, size_t n, char *out);

/* Compares a presented token with the configured one in time that depends
 * only on the configured token's length. */
bool http_token_equal(const char *presented, size_t plen, const char *token);
/* Whether an Authorization header value is `Bearer TOKEN` (scheme in any
 * case, spaces around the token allowed) with the right token. */
bool http_bearer_ok(const char *value, size_t len, const char *token);
/* Whether a Cookie header value carries mars_token=TOKEN. */
bool http_cookie_ok(const char *value, size_t len, const char *token);

#endif
