/* log.c: leveled, formatted log lines on standard error. */
#include "log.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef enum {
    F_LITERAL,
    F_ASCTIME,
    F_CREATED,
    F_LEVEL,
    F_NAME,
    F_MESSAGE,
    F_PROCESS,
    F_THREAD
} field_t;

typedef struct piece {
    field_t field;
    int width;       /* negative: left-aligned */
    size_t off, len; /* F_LITERAL: bytes of the format string */
} piece_t;

/* A format of LOG_FORMAT_MAX bytes has at most that many pieces. */
#define MAX_PIECES (LOG_FORMAT_MAX / 2)
/* One write(2) per line: lines up to PIPE_BUF (4096) stay whole even on a
 * pipe shared by several processes; longer messages are cut. */
#define LINE_MAX_BYTES 4096

static struct {
    log_settings_t s;
    bool json;
    int n_pieces;
    piece_t pieces[MAX_PIECES];
} g_log = {.s = {.level = LOGL_INFO, .format = LOG_DEFAULT_FORMAT}};

static const char *const LEVEL_NAMES[] = {"DEBUG", "INFO", "WARNING", "ERROR"};

void log_settings_init(log_settings_t *s)
{
    memset(s, 0, sizeof *s);
    s->level = LOGL_INFO;
    snprintf(s->format, sizeof s->format, "%s", LOG_DEFAULT_FORMAT);
}

const char *log_level_name(log_level_t l)
{
    return (unsigned)l < 4 ? LEVEL_NAMES[l] : "?";
}

int log_parse_level(const char *s, log_level_t *out, char *err, size_t errlen)
{
    static const struct {
        const char *name;
        log_level_t level;
    } names[] = {{"debug", LOGL_DEBUG},
                 {"info", LOGL_INFO},
                 {"warning", LOGL_WARNING},
                 {"warn", LOGL_WARNING},
                 {"error", LOGL_ERROR}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcasecmp(s, names[i].name) == 0) {
            *out = names[i].level;
            return 0;
        }
    }
    snprintf(err, errlen, "unknown log level '%s' (debug, info, warning, error)", s);
    return -1;
}

/* Splits fmt into pieces; with out NULL only checks it. */
static int compile_format(const char *fmt, piece_t *out, int *n_out, char *err, size_t errlen)
{
    static const struct {
        const char *key;
        field_t field;
        char conv;
    } keys[] = {{"asctime", F_ASCTIME, 's'}, {"created", F_CREATED, 'f'},
                {"levelname", F_LEVEL, 's'}, {"name", F_NAME, 's'},
                {"message", F_MESSAGE, 's'}, {"process", F_PROCESS, 'd'},
                {"thread", F_THREAD, 'd'}};
    int n = 0;
    size_t len = strlen(fmt);
    if (len >= LOG_FORMAT_MAX) {
        snprintf(err, errlen, "log format is %zu bytes long (at most %d)", len, LOG_FORMAT_MAX - 1);
        return -1;
    }
    size_t i = 0;
    while (i < len) {
        piece_t p = {.field = F_LITERAL, .off = i, .len = 0};
        if (fmt[i] != '%') {
            while (i < len && fmt[i] != '%')
                i++;
            p.len = i - p.off;
        } else if (fmt[i + 1] == '%') {
            p.off = i + 1;
            p.len = 1;
            i += 2;
        } else if (fmt[i + 1] == '(') {
            const char *close = strchr(fmt + i + 2, ')');
            if (!close) {
                snprintf(err, errlen, "log format: unclosed '%%(' at offset %zu", i);
                return -1;
            }
            size_t klen = (size_t)(close - (fmt + i + 2));
            size_t j = (size_t)(close - fmt) + 1;
            bool left = false;
            int width = 0;
            if (fmt[j] == '-') left = true, j++;
            while (isdigit((unsigned char)fmt[j]) && width < 1000)
                width = width * 10 + (fmt[j++] - '0');
            int k = -1;
            for (size_t q = 0; q < sizeof keys / sizeof keys[0]; q++) {
                if (strlen(keys[q].key) == klen && strncmp(keys[q].key, fmt + i + 2, klen) == 0)
                    k = (int)q;
            }
            if (k < 0) {
                snprintf(err, errlen,
                         "log format: unknown field '%.*s' (asctime, created, levelname, "
                         "name, message, process, thread)",
                         (int)klen, fmt + i + 2);
                return -1;
            }
            char conv = fmt[j];
            if (conv != 's' && conv != keys[k].conv) {
                snprintf(err, errlen, "log format: field '%s' takes %%(%s)%c or %%(%s)s, not '%c'",
                         keys[k].key, keys[k].key, keys[k].conv, keys[k].key, conv ? conv : ' ');
                return -1;
            }
            if (width > 200) {
                snprintf(err, errlen, "log format: width %d of field '%s' is over 200", width,
                         keys[k].key);
                return -1;
            }
            p.field = keys[k].field;
            p.width = left ? -width : width;
            i = j + 1;
        } else {
            snprintf(err, errlen,
                     "log format: lone '%%' at offset %zu (write %%%% for a percent sign)", i);
            return -1;
        }
        if (out) out[n] = p;
        n++;
    }
    if (n_out) *n_out = n;
    return 0;
}

int log_check_format(const char *fmt, char *err, size_t errlen)
{
    if (strcmp(fmt, "json") == 0) return 0;
    return compile_format(fmt, NULL, NULL, err, errlen);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

int log_settings_load(log_settings_t *s, const char *path, char *err, size_t errlen)
{
    char line[1024], msg[256];
    int lineno = 0, rc = -1;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "log conf %s: %s", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(err, errlen, "%s:%d: line longer than %zu bytes", path, lineno,
                     sizeof line - 2);
            goto read_line;
        }
        char *l = trim(line);
        if (*l == '\0' || *l == '#') continue;
        char *eq = strchr(l, '=');
        if (!eq) {
            snprintf(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
            goto read_line;
        }
        *eq = '\0';
        char *key = trim(l), *val = trim(eq + 1);
        if (strcmp(key, "level") == 0) {
            if (log_parse_level(val, &s->level, msg, sizeof msg)) goto bad_value;
        } else if (strcmp(key, "format") == 0) {
            if (log_check_format(val, msg, sizeof msg)) goto bad_value;
            snprintf(s->format, sizeof s->format, "%s", val);
        } else if (strncmp(key, "level.", 6) == 0 && key[6]) {
            log_level_t lv;
            if (log_parse_level(val, &lv, msg, sizeof msg)) goto bad_value;
            if (strlen(key + 6) >= LOG_NAME_MAX) {
                snprintf(err, errlen, "%s:%d: logger name '%s' longer than %d bytes", path, lineno,
                         key + 6, LOG_NAME_MAX - 1);
                goto read_line;
            }
            int i = 0;
            while (i < s->n_loggers && strcmp(s->loggers[i].name, key + 6) != 0)
                i++;
            if (i == LOG_MAX_LOGGERS) {
                snprintf(err, errlen, "%s:%d: more than %d logger levels", path, lineno,
                         LOG_MAX_LOGGERS);
                goto read_line;
            }
            snprintf(s->loggers[i].name, LOG_NAME_MAX, "%s", key + 6);
            s->loggers[i].level = lv;
            if (i == s->n_loggers) s->n_loggers++;
        } else {
            snprintf(err, errlen, "%s:%d: unknown key '%s' (level, format, level.LOGGER)", path,
                     lineno, key);
            goto read_line;
        }
        continue;
    bad_value:
        snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
        goto read_line;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "log conf %s: read error", path);
        goto read_line;
    }
    rc = 0;
read_line:
    fclose(f);
    return rc;
}

int log_apply(const log_settings_t *s, char *err, size_t errlen)
{
    if (strcmp(s->format, "json") == 0) {
        g_log.json = true;
        g_log.n_pieces = 0;
    } else {
        int n;
        if (compile_format(s->format, g_log.pieces, &n, err, errlen)) return -1;
        g_log.json = false;
        g_log.n_pieces = n;
    }
    g_log.s = *s;
    return 0;
}

bool log_enabled(const char *logger, log_level_t l)
{
    for (int i = 0; i < g_log.s.n_loggers; i++) {
        if (strcmp(g_log.s.loggers[i].name, logger) == 0) return l >= g_log.s.loggers[i].level;
    }
    return l >= g_log.s.level;
}

/* Appends at most the room left; returns the new length. */
static size_t put(char *buf, size_t len, const char *s, size_t n)
{
    size_t room = LINE_MAX_BYTES - 1 - len;
    if (n > room) n = room;
    memcpy(buf + len, s, n);
    return len + n;
}

static size_t put_padded(char *buf, size_t len, const char *s, int width)
{
    size_t n = strlen(s);
    int pad = abs(width) > (int)n ? abs(width) - (int)n : 0;
    if (width > 0)
        for (int i = 0; i < pad; i++)
            len = put(buf, len, " ", 1);
    len = put(buf, len, s, n);
    if (width < 0)
        for (int i = 0; i < pad; i++)
            len = put(buf, len, " ", 1);
    return len;
}

/* Control characters would break "one line per event": escape them. For
 * JSON, quotes and backslashes too. */
static size_t put_escaped(char *buf, size_t len, const char *s, bool json)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        if (c == '\n')
            len = put(buf, len, "\\n", 2);
        else if (c == '\r')
            len = put(buf, len, "\\r", 2);
        else if (c == '\t')
            len = put(buf, len, "\\t", 2);
        else if (json && (c == '"' || c == '\\')) {
            esc[0] = '\\', esc[1] = (char)c;
            len = put(buf, len, esc, 2);
        } else if (c < 0x20 || c == 0x7f) {
            snprintf(esc, sizeof esc, json ? "\\u%04x" : "\\x%02x", c);
            len = put(buf, len, esc, strlen(esc));
        } else
            len = put(buf, len, (const char *)s, 1);
    }
    return len;
}

void log_write(log_level_t l, const char *logger, const char *fmt, ...)
{
    if (!log_enabled(logger, l)) return;
    int saved_errno = errno;
    char msg[LINE_MAX_BYTES], line[LINE_MAX_BYTES], asct[40], num[48];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);

    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(asct, sizeof asct, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(asct + n, sizeof asct - n, ".%03ldZ", ts.tv_nsec / 1000000);

    size_t len = 0;
    if (g_log.json) {
        snprintf(num, sizeof num, "%d", (int)getpid());
        len = put(line, len, "{\"time\":\"", 9);
        len = put(line, len, asct, strlen(asct));
        len = put(line, len, "\",\"level\":\"", 11);
        len = put(line, len, log_level_name(l), strlen(log_level_name(l)));
        len = put(line, len, "\",\"logger\":\"", 12);
        len = put_escaped(line, len, logger, true);
        len = put(line, len, "\",\"pid\":", 8);
        len = put(line, len, num, strlen(num));
        len = put(line, len, ",\"message\":\"", 12);
        len = put_escaped(line, len, msg, true);
        /* Leave room for the closing bytes even when the message was cut. */
        if (len > LINE_MAX_BYTES - 4) len = LINE_MAX_BYTES - 4;
        len = put(line, len, "\"}", 2);
    } else {
        for (int i = 0; i < g_log.n_pieces; i++) {
            const piece_t *p = &g_log.pieces[i];
            switch (p->field) {
            case F_LITERAL:
                len = put(line, len, g_log.s.format + p->off, p->len);
                break;
            case F_ASCTIME:
                len = put_padded(line, len, asct, p->width);
                break;
            case F_CREATED:
                snprintf(num, sizeof num, "%lld.%06ld", (long long)ts.tv_sec, ts.tv_nsec / 1000);
                len = put_padded(line, len, num, p->width);
                break;
            case F_LEVEL:
                len = put_padded(line, len, log_level_name(l), p->width);
                break;
            case F_NAME:
                len = put_padded(line, len, logger, p->width);
                break;
            case F_MESSAGE:
                len = put_escaped(line, len, msg, false);
                break;
            case F_PROCESS:
                snprintf(num, sizeof num, "%d", (int)getpid());
                len = put_padded(line, len, num, p->width);
                break;
            case F_THREAD:
                snprintf(num, sizeof num, "%ld", (long)syscall(SYS_gettid));
                len = put_padded(line, len, num, p->width);
                break;
            }
        }
    }
    line[len++] = '\n';
    /* A failed write to stderr has nowhere to be reported. */
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
    errno = saved_errno;
}
