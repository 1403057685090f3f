/* log.h: one line per event on standard error.
 *
 * The format follows Python's logging (what Mars's --log-format takes):
 * placeholders %(asctime)s %(created)f %(levelname)s %(name)s %(message)s
 * %(process)d %(thread)d, with an optional '-' and width (%(name)-12s), and
 * %% for a percent sign. The word `json` instead gives one JSON object per
 * line: {"time","level","logger","pid","message"}. asctime is RFC 3339 in UTC.
 *
 * Settings are installed once at start (log_apply) before any thread is
 * started; log_write is then safe from every thread: each line is formatted
 * in a stack buffer and written with a single write(2), so lines from
 * different threads never interleave. */
#ifndef MARS_SVC_LOG_H
#define MARS_SVC_LOG_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { LOGL_DEBUG = 0, LOGL_INFO, LOGL_WARNING, LOGL_ERROR } log_level_t;

/* Per-logger overrides a --log-conf file may give (`level.gateway = debug`);
 * 32 is far more than the services' modules. */
#define LOG_MAX_LOGGERS 32
#define LOG_NAME_MAX 32
/* A format longer than this is a mistake, not a need. */
#define LOG_FORMAT_MAX 512
#define LOG_DEFAULT_FORMAT "%(asctime)s %(levelname)s %(name)s: %(message)s"

typedef struct log_settings {
    log_level_t level;
    char format[LOG_FORMAT_MAX];
    int n_loggers;
    struct {
        char name[LOG_NAME_MAX];
        log_level_t level;
    } loggers[LOG_MAX_LOGGERS];
} log_settings_t;

void log_settings_init(log_settings_t *s); /* level info, default format */
/* "debug", "info", "warning" (or "warn"), "error", any case. */
int log_parse_level(const char *s, log_level_t *out, char *err, size_t errlen);
const char *log_level_name(log_level_t l);
int log_check_format(const char *fmt, char *err, size_t errlen);
/* Reads a --log-conf file: `key = value` lines, # comments; keys `level`,
 * `format` and `level.LOGGER`. Errors name the file and line. */
int log_settings_load(log_settings_t *s, const char *path, char *err, size_t errlen);
/* Installs s for the whole process; `process` is kept by pointer. */
int log_apply(const log_settings_t *s, char *err, size_t errlen);

bool log_enabled(const char *logger, log_level_t l);
void log_write(log_level_t l, const char *logger, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Each .c file defines LOG_MODULE (its logger name) before using these. */
#define log_debug(...) log_write(LOGL_DEBUG, LOG_MODULE, __VA_ARGS__)
#define log_info(...) log_write(LOGL_INFO, LOG_MODULE, __VA_ARGS__)
#define log_warning(...) log_write(LOGL_WARNING, LOG_MODULE, __VA_ARGS__)
#define log_error(...) log_write(LOGL_ERROR, LOG_MODULE, __VA_ARGS__)

#endif
