/* httpparse.c: route patterns, query strings and tokens (httpparse.h). */
#include "httpparse.h"

#include <string.h>

bool http_pattern_match(const char *pat, const char *path, size_t plen,
                        size_t off[HTTPP_MAX_PARAMS][2], int *n)
{
    size_t i = 0;
    int k = 0;
    while (*pat) {
        if (pat[0] == '{' && pat[1] == '}') {
            size_t start = i;
            while (i < plen && path[i] != '/')
                i++;
            if (i == start || k == HTTPP_MAX_PARAMS) return false;
            if (off) {
                off[k][0] = start;
                off[k][1] = i - start;
            }
            k++;
            pat += 2;
        } else {
            if (i >= plen || path[i] != *pat) return false;
            i++;
            pat++;
        }
    }
    if (i != plen) return false;
    if (n) *n = k;
    return true;
}

const char *http_query_find(const char *query, size_t qlen, const char *name, size_t *vlen)
{
    const char *p = query, *end = query + qlen;
    size_t nlen = strlen(name);
    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *e = amp ? amp : end;
        const char *eq = memchr(p, '=', (size_t)(e - p));
        const char *ke = eq ? eq : e;
        if ((size_t)(ke - p) == nlen && memcmp(p, name, nlen) == 0) {
            const char *v = eq ? eq + 1 : e;
            *vlen = (size_t)(e - v);
            return v;
        }
        p = e + 1;
    }
    return NULL;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

size_t http_percent_decode(const char *v, size_t n, char *out)
{
    const char *e = v + n;
    char *o = out;
    for (; v < e; v++) {
        int hi, lo;
        if (*v == '+')
            *o++ = ' ';
        else if (*v == '%' && e - v >= 3 && (hi = hexval(v[1])) >= 0 && (lo = hexval(v[2])) >= 0) {
            *o++ = (char)(hi << 4 | lo);
            v += 2;
        } else
            *o++ = *v;
    }
    *o = '\0';
    return (size_t)(o - out);
}

bool http_token_equal(const char *presented, size_t plen, const char *token)
{
    size_t tlen = strlen(token);
    unsigned char d = plen != tlen;
    for (size_t i = 0; i < tlen; i++)
        d |= (unsigned char)(token[i] ^ (i < plen ? presented[i] : 0));
    return d == 0 && tlen > 0;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

bool http_bearer_ok(const char *value, size_t len, const char *token)
{
    const char *p = value, *e = value + len;
    while (p < e && is_space(*p))
        p++;
    static const char scheme[] = "bearer";
    if ((size_t)(e - p) < sizeof scheme) return false; /* the scheme and a space at least */
    for (size_t i = 0; i < sizeof scheme - 1; i++)
        if ((p[i] | 0x20) != scheme[i]) return false;
    p += sizeof scheme - 1;
    if (!is_space(*p)) return false;
    while (p < e && is_space(*p))
        p++;
    while (e > p && is_space(e[-1]))
        e--;
    return http_token_equal(p, (size_t)(e - p), token);
}

bool http_cookie_ok(const char *value, size_t len, const char *token)
{
    static const char name[] = "mars_token=";
    const char *p = value, *e = value + len;
    bool ok = false;
    while (p < e) {
        while (p < e && (is_space(*p) || *p == ';'))
            p++;
        const char *semi = memchr(p, ';', (size_t)(e - p));
        const char *ce = semi ? semi : e;
        size_t n = (size_t)(ce - p);
        while (n > 0 && is_space(p[n - 1]))
            n--;
        /* Every mars_token cookie is looked at: a browser sends the one of
         * the most specific path first, and any right one will do. */
        if (n >= sizeof name - 1 && memcmp(p, name, sizeof name - 1) == 0)
            ok |= http_token_equal(p + sizeof name - 1, n - (sizeof name - 1), token);
        p = ce;
    }
    return ok;
}
