/* httpreply.c: the replies the services build (http.h's reply builders):
 * JSON bodies, the error body every route answers with, reason phrases.
 * Pure: no server state, usable from any thread. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "http.h"

/* ---- replies ------------------------------------------------------------ */

const char *http_reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 303:
        return "See Other";
    case 401:
        return "Unauthorized";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 409:
        return "Conflict";
    case 413:
        return "Payload Too Large";
    case 415:
        return "Unsupported Media Type";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 503:
        return "Service Unavailable";
    default:
        return status < 400 ? "OK" : status < 500 ? "Client Error" : "Server Error";
    }
}

void http_reply_json(http_reply_t *rep, int status, json_t *doc)
{
    char *s = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    if (!s) {
        /* Only an allocation failure gets here. */
        http_reply_json_text(rep, 500,
                             "{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}");
        return;
    }
    memset(rep, 0, sizeof *rep);
    rep->status = status;
    rep->content_type = "application/json";
    rep->body = s;
    rep->len = strlen(s);
}

void http_reply_json_text(http_reply_t *rep, int status, const char *body)
{
    memset(rep, 0, sizeof *rep);
    rep->status = status;
    rep->content_type = "application/json";
    rep->body = strdup(body);
    if (!rep->body) abort();
    rep->len = strlen(body);
}

/* Messages quote what clients sent (paths, methods) and JSON strings must be
 * UTF-8: every byte that does not start a valid sequence becomes '?'. */
static void sanitize_utf8(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        int n = *p < 0x80             ? 0
                : (*p & 0xe0) == 0xc0 ? 1
                : (*p & 0xf0) == 0xe0 ? 2
                : (*p & 0xf8) == 0xf0 ? 3
                                      : -1;
        unsigned cp = n == 0 ? *p : n == 1 ? *p & 0x1fu : n == 2 ? *p & 0x0fu : *p & 0x07u;
        bool ok = n >= 0 && (n > 0 || *p >= 0x20);
        for (int i = 1; ok && i <= n; i++) {
            ok = (p[i] & 0xc0) == 0x80;
            cp = cp << 6 | (p[i] & 0x3fu);
        }
        /* Overlong forms, surrogates and values past U+10FFFF are invalid. */
        if (ok && n > 0) {
            static const unsigned min[] = {0, 0x80, 0x800, 0x10000};
            ok = cp >= min[n] && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
        }
        if (!ok) {
            *p++ = '?';
            continue;
        }
        p += n + 1;
    }
}

void http_reply_error(http_reply_t *rep, int status, const char *code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sanitize_utf8(msg);
    http_reply_json(rep, status, json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", msg));
}
