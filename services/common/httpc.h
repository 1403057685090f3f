/* httpc.h: a minimal blocking HTTP/1.0 GET client, for the few calls a
 * service makes to another at start (a worker asking a supervisor for the
 * cluster's addresses). Not for hot paths. */
#ifndef MARS_SVC_HTTPC_H
#define MARS_SVC_HTTPC_H

#include <stddef.h>

#include "sbuf.h"

/* Bodies of answers a service asks for at start are small; 1 MiB bounds the
 * damage of a wrong endpoint streaming something else. */
#define HTTPC_MAX_RESPONSE (1 << 20)

/* GETs http://host:port/path within timeout_ms in all. On an answer returns
 * 0 with *status and the body appended to body; -1 with err otherwise. */
int httpc_get(const char *host, int port, const char *path, int timeout_ms, int *status,
              sbuf_t *body, char *err, size_t errlen);
/* The same with `Authorization: Bearer token` (token NULL or "": none). */
int httpc_get_auth(const char *host, int port, const char *path, const char *token, int timeout_ms,
                   int *status, sbuf_t *body, char *err, size_t errlen);

#endif
