/* sbuf.c: growable byte string. */
#include "sbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sbuf_init(sbuf_t *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void sbuf_close(sbuf_t *b)
{
    free(b->data);
    sbuf_init(b);
}

void sbuf_reset(sbuf_t *b)
{
    b->len = 0;
    if (b->data) b->data[0] = '\0';
}

static void sbuf_reserve(sbuf_t *b, size_t extra)
{
    if (b->cap - b->len > extra) return;
    /* Doubling keeps appends amortised O(1); 256 bytes covers most small
     * bodies without a second allocation. */
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len <= extra) {
        if (cap > SIZE_MAX / 2) abort();
        cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (!p) abort();
    b->data = p;
    b->cap = cap;
}

void sbuf_append(sbuf_t *b, const char *s, size_t n)
{
    sbuf_reserve(b, n);
    if (n) memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sbuf_puts(sbuf_t *b, const char *s)
{
    sbuf_append(b, s, strlen(s));
}

void sbuf_putc(sbuf_t *b, char c)
{
    sbuf_append(b, &c, 1);
}

void sbuf_vprintf(sbuf_t *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        sbuf_append(b, small, (size_t)n);
        return;
    }
    sbuf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void sbuf_printf(sbuf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *sbuf_detach(sbuf_t *b, size_t *len)
{
    if (!b->data) {
        sbuf_reserve(b, 0);
        b->data[0] = '\0';
    }
    char *p = b->data;
    if (len) *len = b->len;
    sbuf_init(b);
    return p;
}

const char *sbuf_str(const sbuf_t *b)
{
    return b->data ? b->data : "";
}
