/* cfgvalue.c: the values of options (integers, host names, sizes,
 * endpoint lists), parsed and checked for config.c and the services. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

/* ---- value parsers ---------------------------------------------------- */

int cfg_parse_int(const char *s, long lo, long hi, long *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)s[0]) && !(s[0] == '-' && isdigit((unsigned char)s[1]))) goto bad;
    long v = strtol(s, &end, 10);
    if (*end || errno) goto bad;
    if (v < lo || v > hi) {
        snprintf(err, errlen, "%ld is out of range [%ld, %ld]", v, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
bad:
    snprintf(err, errlen, "'%s' is not a whole number", s);
    return -1;
}

int cfg_check_host(const char *h, const char *s, char *err, size_t errlen)
{
    size_t n = strlen(h);
    if (n == 0 || n > 253) {
        snprintf(err, errlen, "host in '%s' is empty or longer than 253 bytes", s);
        return -1;
    }
    for (const char *p = h; *p; p++) {
        if (!isalnum((unsigned char)*p) && !strchr(".-_:%", *p)) {
            snprintf(err, errlen, "host '%s' has a character '%c' no host name or address has", h,
                     *p);
            return -1;
        }
    }
    return 0;
}

int cfg_parse_size(const char *s, int64_t total_mem, int64_t *out, char *err, size_t errlen)
{
    /* Exact decimal arithmetic: the digits as an integer M with F fraction
     * digits, then M * unit / 10^F in 128 bits. 19 significant digits hold
     * any int64 and keep M * 2^40 and M * (total memory < 2^63) inside 128
     * bits; 9 fraction digits are finer than any byte. */
    const char *p = s;
    unsigned __int128 m = 0;
    int digits = 0, frac = 0;
    bool dot = false;
    for (; *p && (isdigit((unsigned char)*p) || *p == '.'); p++) {
        if (*p == '.') {
            if (dot) goto bad;
            dot = true;
            continue;
        }
        m = m * 10 + (unsigned)(*p - '0');
        if (m) digits++;
        if (dot) frac++;
        if (digits > 19 || frac > 9) {
            snprintf(err, errlen, "SIZE '%s' has more digits than any size needs", s);
            return -1;
        }
    }
    if (p == s || (dot && p - s == 1)) goto bad;
    if (p[-1] == '.') goto bad;
    unsigned __int128 num, den = 1;
    for (int i = 0; i < frac; i++)
        den *= 10;
    if (*p == '%') {
        if (p[1]) goto bad;
        /* m / 10^frac percent of total_mem. */
        if (m > 100 * den) {
            snprintf(err, errlen, "SIZE '%s' is more than 100%% of memory", s);
            return -1;
        }
        num = m * (unsigned __int128)(total_mem > 0 ? total_mem : 0);
        den *= 100;
    } else {
        unsigned shift = 0;
        switch (tolower((unsigned char)*p)) {
        case 'k':
            shift = 10;
            break;
        case 'm':
            shift = 20;
            break;
        case 'g':
            shift = 30;
            break;
        case 't':
            shift = 40;
            break;
        }
        if (shift) p++;
        if (*p == 'b' || *p == 'B') p++;
        if (*p) goto bad;
        num = m << shift;
    }
    unsigned __int128 v = num / den;
    if (v > (unsigned __int128)INT64_MAX) {
        snprintf(err, errlen, "SIZE '%s' overflows 64 bits", s);
        return -1;
    }
    *out = (int64_t)v;
    return 0;
bad:
    snprintf(err, errlen,
             "'%s' is not a SIZE (bytes with an optional k/m/g/t suffix, or a "
             "percentage of memory such as 80%%)",
             s);
    return -1;
}

int cfg_parse_endpoints(const char *s, cfg_endpoint_t *out, int max, int *n, char *err,
                        size_t errlen)
{
    *n = 0;
    const char *p = s;
    if (!*s) {
        snprintf(err, errlen, "empty endpoint list (expected host:port,host:port)");
        return -1;
    }
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[CFG_HOST_MAX + 16], host[CFG_HOST_MAX + 16];
        if (len == 0 || len >= sizeof item) {
            snprintf(err, errlen, "endpoint %d of '%s' is empty or too long", *n + 1, s);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        const char *port;
        if (item[0] == '[') {
            char *close = strchr(item, ']');
            if (!close || close[1] != ':') goto bad_item;
            *close = '\0';
            snprintf(host, sizeof host, "%s", item + 1);
            port = close + 2;
        } else {
            char *colon = strrchr(item, ':');
            if (!colon || strchr(item, ':') != colon) goto bad_item;
            *colon = '\0';
            snprintf(host, sizeof host, "%s", item);
            port = colon + 1;
        }
        if (cfg_check_host(host, s, err, errlen)) return -1;
        long v;
        char msg[128];
        if (cfg_parse_int(port, 1, 65535, &v, msg, sizeof msg)) {
            snprintf(err, errlen, "port of endpoint '%.*s': %s", (int)len, p, msg);
            return -1;
        }
        if (*n == max) {
            snprintf(err, errlen, "more than %d endpoints in '%s'", max, s);
            return -1;
        }
        memcpy(out[*n].host, host, strlen(host) + 1); /* check_host: at most 253 bytes */
        out[*n].port = (int)v;
        (*n)++;
        if (!end) return 0;
        p = end + 1;
        continue;
    bad_item:
        snprintf(err, errlen, "endpoint '%.*s' is not host:port", (int)len, p);
        return -1;
    }
}
