/* errmsg.h: the library error convention (STYLE.md): a function that fails
 * writes one line into the caller's buffer (which may be NULL) and returns
 * -1. */
#ifndef MARS_ERRMSG_H
#define MARS_ERRMSG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

static inline int errmsg(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int errmsg(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

#endif
