/* sbuf.h: a growable byte string (NUL-terminated at all times) for building
 * responses, metrics text and log lines. Allocation failure aborts the
 * process, as in redis: a service that cannot allocate a few KiB cannot do
 * anything useful, and checking every append would hide the real logic. */
#ifndef MARS_SVC_SBUF_H
#define MARS_SVC_SBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct sbuf {
    char *data; /* owned; NUL-terminated; NULL until the first append */
    size_t len;
    size_t cap;
} sbuf_t;

void sbuf_init(sbuf_t *b);
void sbuf_close(sbuf_t *b); /* frees data; b may be reused after sbuf_init */
void sbuf_reset(sbuf_t *b); /* empties, keeps the allocation */
void sbuf_append(sbuf_t *b, const char *s, size_t n);
void sbuf_puts(sbuf_t *b, const char *s);
void sbuf_putc(sbuf_t *b, char c);
void sbuf_printf(sbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_vprintf(sbuf_t *b, const char *fmt, va_list ap);
/* Hands the bytes to the caller (free()), leaves b empty. Never NULL. */
char *sbuf_detach(sbuf_t *b, size_t *len);
/* The contents as a string ("" when empty); owned by b. */
const char *sbuf_str(const sbuf_t *b);

#endif
