/* config.c: command line, configuration file and environment. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procstat.h"

#define ALL (CFG_SUPERVISOR | CFG_GATEWAY | CFG_WORKER)

typedef int (*setter_fn)(cfg_t *c, const char *v, char *err, size_t errlen);

typedef struct opt {
    const char *name; /* long name and configuration file key */
    char short_name;  /* 0: none */
    int services;     /* mask of cfg_service_t */
    const char *arg;  /* NULL: a flag without value */
    setter_fn set;
    const char *help; /* may differ per service: see help_for */
} opt_t;

/* ---- setters ------------------------------------------------------------ */

static int copy_str(char *dst, size_t cap, const char *v, const char *what, char *err,
                    size_t errlen)
{
    if (strlen(v) >= cap) {
        snprintf(err, errlen, "%s is longer than %zu bytes", what, cap - 1);
        return -1;
    }
    memcpy(dst, v, strlen(v) + 1);
    return 0;
}

static int set_host(cfg_t *c, const char *v, char *err, size_t errlen)
{
    if (cfg_check_host(v, v, err, errlen)) return -1;
    snprintf(c->host, sizeof c->host, "%s", v);
    c->host_set = true;
    return 0;
}

static int set_max_attempts(cfg_t *c, const char *v, char *err, size_t errlen)
{
    long n;
    /* 100: past that a job is not unlucky, and the task had better fail. */
    if (cfg_parse_int(v, 1, 100, &n, err, errlen)) return -1;
    c->max_attempts = (int)n;
    return 0;
}

static int set_sort_block(cfg_t *c, const char *v, char *err, size_t errlen)
{
    int64_t s;
    if (cfg_parse_size(v, c->total_mem, &s, err, errlen)) return -1;
    if (s < 16) {
        snprintf(err, errlen, "%s is below the 16-byte minimum", v);
        return -1;
    }
    c->sort_block_bytes = s;
    return 0;
}

static int set_token_file(cfg_t *c, const char *v, char *err, size_t errlen)
{
    if (!*v) {
        snprintf(err, errlen, "empty path");
        return -1;
    }
    return copy_str(c->token_file, sizeof c->token_file, v, "token file path", err, errlen);
}

/* A token travels in a header and a cookie: printable ASCII without spaces,
 * quotes, commas, semicolons or backslashes (RFC 6750's b64token and a
 * cookie value both hold it). */
static int check_token(const char *t, const char *what, char *err, size_t errlen)
{
    size_t n = strlen(t);
    if (n == 0 || n >= CFG_TOKEN_MAX) {
        snprintf(err, errlen, "%s: a token of 1 to %d bytes is needed", what, CFG_TOKEN_MAX - 1);
        return -1;
    }
    for (const char *p = t; *p; p++) {
        if (*p <= ' ' || *p >= 0x7f || strchr("\"\\,;", *p)) {
            snprintf(err, errlen,
                     "%s: the token may hold printable ASCII only, without spaces, quotes, "
                     "commas, semicolons or backslashes",
                     what);
            return -1;
        }
    }
    return 0;
}

/* The token file's first line, without its line end. */
static int read_token_file(cfg_t *c, char *err, size_t errlen)
{
    FILE *f = fopen(c->token_file, "r");
    if (!f) {
        snprintf(err, errlen, "--token-file %s: %s", c->token_file, strerror(errno));
        return -1;
    }
    char line[CFG_TOKEN_MAX + 2] = "";
    bool got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    size_t n = got ? strlen(line) : 0;
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    char what[CFG_STR_MAX + 16];
    snprintf(what, sizeof what, "--token-file %s", c->token_file);
    if (check_token(line, what, err, errlen)) return -1;
    memcpy(c->token, line, n + 1);
    return 0;
}

static int set_port(cfg_t *c, const char *v, char *err, size_t errlen)
{
    long p;
    if (cfg_parse_int(v, 0, 65535, &p, err, errlen)) return -1;
    c->port = (int)p;
    return 0;
}

static int set_web_port(cfg_t *c, const char *v, char *err, size_t errlen)
{
    long p;
    if (cfg_parse_int(v, 0, 65535, &p, err, errlen)) return -1;
    c->web_port = (int)p;
    return 0;
}

static int set_worker_timeout(cfg_t *c, const char *v, char *err, size_t errlen)
{
    char *end;
    double sec = strtod(v, &end);
    /* 0.1 s: below a heartbeat's interval every worker looks dead; an hour
     * is past any pause worth waiting for. */
    if (end == v || *end || !(sec >= 0.1 && sec <= 3600)) {
        snprintf(err, errlen, "'%s' is not a number of seconds from 0.1 to 3600", v);
        return -1;
    }
    c->worker_timeout_ms = (int)(sec * 1000 + 0.5);
    return 0;
}

static int set_config_file(cfg_t *c, const char *v, char *err, size_t errlen)
{
    return copy_str(c->config_file, sizeof c->config_file, v, "config file path", err, errlen);
}

static int set_log_level(cfg_t *c, const char *v, char *err, size_t errlen)
{
    if (log_parse_level(v, &c->log.level, err, errlen)) return -1;
    c->log_level_set = true;
    return 0;
}

static int set_log_format(cfg_t *c, const char *v, char *err, size_t errlen)
{
    if (log_check_format(v, err, errlen)) return -1;
    snprintf(c->log.format, sizeof c->log.format, "%s", v);
    c->log_format_set = true;
    return 0;
}

static int set_log_conf(cfg_t *c, const char *v, char *err, size_t errlen)
{
    return copy_str(c->log_conf, sizeof c->log_conf, v, "log conf path", err, errlen);
}

static int set_supervisors(cfg_t *c, const char *v, char *err, size_t errlen)
{
    return cfg_parse_endpoints(v, c->supervisors, CFG_MAX_ENDPOINTS, &c->n_supervisors, err,
                               errlen);
}

static int set_pg_dsn(cfg_t *c, const char *v, char *err, size_t errlen)
{
    if (copy_str(c->pg_dsn, sizeof c->pg_dsn, v, "DSN", err, errlen)) return -1;
    c->has_pg_dsn = true;
    return 0;
}

static int set_redis_url(cfg_t *c, const char *v, char *err, size_t errlen)
{
    if (strncmp(v, "redis://", 8) != 0 && strncmp(v, "unix://", 7) != 0) {
        snprintf(err, errlen, "'%s' is not a redis:// or unix:// URL", v);
        return -1;
    }
    if (copy_str(c->redis_url, sizeof c->redis_url, v, "URL", err, errlen)) return -1;
    c->has_redis_url = true;
    return 0;
}

static int set_ui_dir(cfg_t *c, const char *v, char *err, size_t errlen)
{
    if (!*v) {
        snprintf(err, errlen, "empty directory");
        return -1;
    }
    return copy_str(c->ui_dir, sizeof c->ui_dir, v, "path", err, errlen);
}

static int set_migrations_dir(cfg_t *c, const char *v, char *err, size_t errlen)
{
    if (!*v) {
        snprintf(err, errlen, "empty directory");
        return -1;
    }
    return copy_str(c->migrations_dir, sizeof c->migrations_dir, v, "path", err, errlen);
}

/* A quota: a positive number (or SIZE for bytes) no larger than the
 * engine's own limit, which workers apply when they tile the same graph. */
static int set_quota(const char *v, bool size, int64_t total_mem, int64_t engine, int64_t *out,
                     char *err, size_t errlen)
{
    int64_t n;
    if (size) {
        if (cfg_parse_size(v, total_mem, &n, err, errlen)) return -1;
    } else {
        long long l;
        char *end;
        errno = 0;
        l = strtoll(v, &end, 10);
        if (errno || end == v || *end || l < 1) {
            snprintf(err, errlen, "'%s' is not a positive integer", v);
            return -1;
        }
        n = l;
    }
    if (n < 1 || n > engine) {
        snprintf(err, errlen, "%s must be between 1 and the engine's limit %lld", v,
                 (long long)engine);
        return -1;
    }
    *out = n;
    return 0;
}

#define QUOTA_SETTER(name, field, size)                                                            \
    static int name(cfg_t *c, const char *v, char *err, size_t errlen)                             \
    {                                                                                              \
        graph_limits_t d;                                                                          \
        graph_limits_default(&d);                                                                  \
        return set_quota(v, size, c->total_mem, d.field, &c->quota.field, err, errlen);            \
    }
QUOTA_SETTER(set_q_elements, max_elements, false)
QUOTA_SETTER(set_q_bytes, max_bytes, true)
QUOTA_SETTER(set_q_chunks, max_chunks, false)
QUOTA_SETTER(set_q_total, max_total_chunks, false)
QUOTA_SETTER(set_q_document, max_document_bytes, true)

static int set_max_body(cfg_t *c, const char *v, char *err, size_t errlen)
{
    int64_t s;
    if (cfg_parse_size(v, c->total_mem, &s, err, errlen)) return -1;
    /* Below 1 KiB not even a small graph document fits. */
    if (s < 1024) {
        snprintf(err, errlen, "%s is below the 1k minimum", v);
        return -1;
    }
    c->max_body = s;
    return 0;
}

static int set_n_cpu(cfg_t *c, const char *v, char *err, size_t errlen)
{
    long n;
    if (cfg_parse_int(v, 1, CFG_MAX_N_CPU, &n, err, errlen)) return -1;
    c->n_cpu = (int)n;
    return 0;
}

static int set_n_io(cfg_t *c, const char *v, char *err, size_t errlen)
{
    long n;
    if (cfg_parse_int(v, 1, CFG_MAX_N_IO, &n, err, errlen)) return -1;
    c->n_io = (int)n;
    return 0;
}

static int set_cuda(cfg_t *c, const char *v, char *err, size_t errlen)
{
    c->n_cuda = 0;
    c->cuda_given = true;
    const char *p = v;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[16];
        long d;
        if (len == 0 || len >= sizeof item) {
            snprintf(err, errlen, "'%s' is not a list of device indices such as 0,1", v);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (cfg_parse_int(item, 0, CFG_MAX_CUDA - 1, &d, err, errlen)) return -1;
        for (int i = 0; i < c->n_cuda; i++) {
            if (c->cuda[i] == d) {
                snprintf(err, errlen, "device %ld is listed twice", d);
                return -1;
            }
        }
        if (c->n_cuda == CFG_MAX_CUDA) {
            snprintf(err, errlen, "more than %d devices", CFG_MAX_CUDA);
            return -1;
        }
        c->cuda[c->n_cuda++] = (int)d;
        if (!end) break;
        p = end + 1;
        if (!*p) {
            snprintf(err, errlen, "'%s' ends with a comma", v);
            return -1;
        }
    }
    return 0;
}

static int set_cache_mem(cfg_t *c, const char *v, char *err, size_t errlen)
{
    if (cfg_parse_size(v, c->total_mem, &c->cache_mem, err, errlen)) return -1;
    c->cache_mem_given = true;
    return 0;
}

static int set_cuda_mem(cfg_t *c, const char *v, char *err, size_t errlen)
{
    if (cfg_parse_size(v, 0, &c->cuda_mem, err, errlen)) return -1;
    if (c->cuda_mem <= 0) {
        snprintf(err, errlen, "--cuda-mem must be positive");
        return -1;
    }
    return 0;
}

static int set_phy_mem(cfg_t *c, const char *v, char *err, size_t errlen)
{
    if (cfg_parse_size(v, c->total_mem, &c->phy_mem, err, errlen)) return -1;
    if (c->phy_mem <= 0) {
        snprintf(err, errlen, "'%s' leaves the worker no memory", v);
        return -1;
    }
    c->phy_mem_given = true;
    return 0;
}

static int set_min_mem(cfg_t *c, const char *v, char *err, size_t errlen)
{
    return cfg_parse_size(v, c->total_mem, &c->min_mem, err, errlen);
}

static int set_spill_dirs(cfg_t *c, const char *v, char *err, size_t errlen)
{
    c->n_spill = 0;
    const char *p = v;
    for (;;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 0) {
            snprintf(err, errlen, "'%s' has an empty directory (DIR:DIR)", v);
            return -1;
        }
        if (c->n_spill == CFG_MAX_SPILL) {
            snprintf(err, errlen, "more than %d directories", CFG_MAX_SPILL);
            return -1;
        }
        if (len >= CFG_STR_MAX) {
            snprintf(err, errlen, "directory %d is longer than %d bytes", c->n_spill + 1,
                     CFG_STR_MAX - 1);
            return -1;
        }
        memcpy(c->spill[c->n_spill], p, len);
        c->spill[c->n_spill++][len] = '\0';
        if (!end) return 0;
        p = end + 1;
    }
}

/* ---- the option table --------------------------------------------------- */

#define SIZE_NOTE "bytes with k/m/g/t, or a % of memory"

static const opt_t OPTS[] = {
    {"host", 'H', ALL, "HOST", set_host,
     "address to bind and to advertise (default: 127.0.0.1 without a token; with a token, bind "
     "0.0.0.0 and advertise this host's name)"},
    {"port", 'p', ALL, "PORT", set_port, NULL},
    {"config-file", 'f', ALL, "FILE", set_config_file,
     "configuration file of `key = value` lines (long option names as keys); the command line "
     "wins over it"},
    {"log-level", 0, ALL, "LEVEL", set_log_level, "debug, info (default), warning or error"},
    {"log-format", 0, ALL, "FMT", set_log_format,
     "line format with Python logging fields: %(asctime)s %(levelname)s %(name)s %(message)s "
     "%(process)d %(thread)d %(created)f; or `json` (default: " LOG_DEFAULT_FORMAT ")"},
    {"log-conf", 0, ALL, "FILE", set_log_conf,
     "logging file of `key = value` lines: level, format, level.LOGGER (per-module level); "
     "--log-level and --log-format win over it"},
    {"web-port", 'w', CFG_SUPERVISOR, "PORT", set_web_port,
     "also serve the gateway (REST API) in this process on PORT (0: a free one)"},
    {"supervisors", 's', ALL, "LIST", set_supervisors, NULL},
    {"pg-dsn", 0, ALL, "DSN", set_pg_dsn, NULL},
    {"redis-url", 0, ALL, "URL", set_redis_url, NULL},
    {"worker-timeout", 0, CFG_SUPERVISOR, "SECONDS", set_worker_timeout,
     "a worker whose heartbeat is older than this is dead: its running jobs are queued "
     "again (default 10)"},
    {"max-attempts", 0, CFG_SUPERVISOR, "N", set_max_attempts,
     "a job whose worker died while running it this many times fails its task, with an error "
     "naming the node and chunk (default 3, at most 100)"},
    {"sort-block-bytes", 0, CFG_SUPERVISOR, "SIZE", set_sort_block,
     "most bytes one sort job reads: a longer 1-D sort runs as a merge network of blocks of "
     "half this (default 256m)"},
    {"token-file", 0, ALL, "FILE", set_token_file,
     "file whose first line is the cluster's token (environment MARS_TOKEN): every route but "
     "/health then needs `Authorization: Bearer TOKEN` (or the mars_token cookie), and this "
     "service sends it to the supervisors; without a token nothing is asked"},
    {"migrations-dir", 0, CFG_SUPERVISOR, "DIR", set_migrations_dir,
     "where the NNNN_*.sql migrations are (default: db/migrations of the source tree the "
     "program was built in, else ./db/migrations)"},
    {"ui-dir", 0, CFG_SUPERVISOR | CFG_GATEWAY, "DIR", set_ui_dir,
     "the built dashboard served at / (default: ui/dist of the source tree the program was "
     "built in, else ./ui/dist)"},
    {"max-body-size", 0, CFG_SUPERVISOR | CFG_GATEWAY, "SIZE", set_max_body,
     "largest request body the REST API accepts, larger ones get 413 (default 256m)"},
    {"max-elements", 0, CFG_SUPERVISOR | CFG_GATEWAY, "N", set_q_elements,
     "quota: a submitted graph whose tensor has more elements is refused with 400 (default and "
     "most: the engine's limit)"},
    {"max-bytes", 0, CFG_SUPERVISOR | CFG_GATEWAY, "SIZE", set_q_bytes,
     "quota: largest byte size of one tensor of a submitted graph"},
    {"max-chunks", 0, CFG_SUPERVISOR | CFG_GATEWAY, "N", set_q_chunks,
     "quota: most chunks of one tensor of a submitted graph"},
    {"max-total-chunks", 0, CFG_SUPERVISOR | CFG_GATEWAY, "N", set_q_total,
     "quota: most chunk jobs of one submitted graph"},
    {"max-document", 0, CFG_SUPERVISOR | CFG_GATEWAY, "SIZE", set_q_document,
     "quota: largest graph document in bytes"},
    {"n-cpu", 0, CFG_WORKER, "N", set_n_cpu,
     "slots that run chunk kernels at once, each single-threaded: never more cores than this "
     "(default: all CPUs this process may use)"},
    {"n-io-process", 0, CFG_WORKER, "N", set_n_io,
     "event loops serving chunk transfers to peers and the gateway on the -p port, with 4 "
     "stream threads each (default 1)"},
    {"cuda-devices", 0, CFG_WORKER, "LIST", set_cuda,
     "CUDA device indices such as 0,1; \"\" for none (default: every /dev/nvidiaN present); "
     "reported as cuda_devices; refused (exit 2) when this build has no CUDA or a listed device "
     "does not exist; jobs a GPU can run go to the devices, one more slot each (docs/gpu.md)"},
    {"cuda-mem", 0, CFG_WORKER, "SIZE", set_cuda_mem,
     "chunks kept on each CUDA device for the next jobs there, bytes with k/m/g/t (default 90% of "
     "the device's free memory at start); past it the least recently used are dropped"},
    {"cache-mem", 0, CFG_WORKER, "SIZE", set_cache_mem,
     "memory for chunk data in the worker's store; colder chunks are spilled to --spill-dirs "
     "(copies of peers' chunks dropped first), " SIZE_NOTE " (default 40% of --phy-mem, "
     "following the host share when --phy-mem is not given)"},
    {"phy-mem", 0, CFG_WORKER, "SIZE", set_phy_mem,
     "total memory the worker process may use, " SIZE_NOTE "; above 75% it spills and takes "
     "no new job, a job that would pass 90% fails with an error naming the limit and is "
     "retried elsewhere (default: the host's memory divided by the workers running on this "
     "host); reported as memory_limit"},
    {"min-mem", 0, CFG_WORKER, "SIZE", set_min_mem,
     "refuse to start with less available memory than this (default 128m)"},
    {"spill-dirs", 0, CFG_WORKER, "DIR:DIR", set_spill_dirs,
     "where chunks are spilled when the store is over --cache-mem, round-robin, in "
     "DIR/mars-worker-PID (removed at a clean stop; a dead worker's are removed at the next "
     "start) (default: $TMPDIR/mars-spill or /tmp/mars-spill)"},
    {"help", 0, ALL, NULL, NULL, "print this help and exit"},
};
#define N_OPTS (int)(sizeof OPTS / sizeof OPTS[0])

const char *cfg_program(cfg_service_t svc)
{
    switch (svc) {
    case CFG_SUPERVISOR:
        return "mars-supervisor";
    case CFG_GATEWAY:
        return "mars-gateway";
    case CFG_WORKER:
        return "mars-worker";
    }
    return "mars";
}

/* Help texts that depend on the service. */
static const char *help_for(const opt_t *o, cfg_service_t svc)
{
    if (o->help) return o->help;
    if (strcmp(o->name, "port") == 0) {
        switch (svc) {
        case CFG_SUPERVISOR:
            return "service port: /health, /metrics and /api/v1/cluster-info, where workers and "
                   "gateways learn the database and queue addresses (absent or 0: a free one)";
        case CFG_WORKER:
            return "service port: /health and /metrics (absent or 0: a free one)";
        case CFG_GATEWAY:
            return "port of the REST API, /health and /metrics (absent or 0: a free one)";
        }
    }
    if (strcmp(o->name, "supervisors") == 0) {
        return svc == CFG_SUPERVISOR
                   ? "all supervisor endpoints host:port,... sharing the database; handed to "
                     "workers in /api/v1/cluster-info (tasks are shared through leases)"
                   : "supervisor endpoints host:port,...: the first that answers tells the "
                     "database and queue addresses not given by --pg-dsn/--redis-url";
    }
    if (strcmp(o->name, "pg-dsn") == 0) {
        return svc == CFG_SUPERVISOR
                   ? "PostgreSQL connection string or URI (environment MARS_PG_DSN; default: "
                     "libpq's defaults and PG* variables)"
                   : "PostgreSQL connection string (environment MARS_PG_DSN; default: asked from "
                     "a supervisor of -s)";
    }
    if (strcmp(o->name, "redis-url") == 0) {
        return svc == CFG_SUPERVISOR
                   ? "Redis URL redis://[:PASSWORD@]HOST[:PORT][/DB] or unix:///PATH "
                     "(environment MARS_REDIS_URL; default " CFG_DEFAULT_REDIS_URL ")"
                   : "Redis URL (environment MARS_REDIS_URL; default: asked from a supervisor "
                     "of -s)";
    }
    return "";
}

/* Appends text wrapped at 100 columns, continuation lines indented by
 * indent, the first line starting at column col. */
static void put_wrapped(sbuf_t *out, const char *text, int col, int indent)
{
    const int width = 100;
    const char *p = text;
    while (*p) {
        int room = width - col;
        size_t n = strlen(p);
        if ((int)n > room) {
            n = (size_t)room;
            while (n > 0 && p[n] != ' ')
                n--;
            if (n == 0) n = strcspn(p, " "); /* one word longer than the line */
        }
        sbuf_append(out, p, n);
        p += n;
        while (*p == ' ')
            p++;
        if (*p) sbuf_printf(out, "\n%*s", indent, "");
        col = indent;
    }
    sbuf_putc(out, '\n');
}

void cfg_usage(cfg_service_t svc, sbuf_t *out)
{
    static const char *const WHAT[] = {
        [CFG_SUPERVISOR] = "keeps task and chunk metadata in PostgreSQL, tracks workers and, "
                           "with -w, serves the REST API; applies db/migrations at start, claims "
                           "tasks under a lease, tiles them and dispatches their chunk jobs.",
        [CFG_GATEWAY] = "serves the REST API (stateless; run any number).",
        [CFG_WORKER] = "registers with the cluster, runs chunk jobs in --n-cpu slots and "
                       "reports its resources every second.",
    };
    sbuf_printf(out, "Usage: %s [OPTION]...\n", cfg_program(svc));
    sbuf_t what;
    sbuf_init(&what);
    sbuf_printf(&what, "%s %s", cfg_program(svc), WHAT[svc]);
    put_wrapped(out, sbuf_str(&what), 0, 0);
    sbuf_close(&what);
    sbuf_puts(out, "\nOptions:\n");
    for (int i = 0; i < N_OPTS; i++) {
        const opt_t *o = &OPTS[i];
        if (!(o->services & svc)) continue;
        char lhs[64];
        if (o->short_name)
            snprintf(lhs, sizeof lhs, "-%c, --%s%s%s", o->short_name, o->name, o->arg ? " " : "",
                     o->arg ? o->arg : "");
        else
            snprintf(lhs, sizeof lhs, "    --%s%s%s", o->name, o->arg ? " " : "",
                     o->arg ? o->arg : "");
        sbuf_printf(out, "  %-28s ", lhs);
        put_wrapped(out, help_for(o, svc), 31, 31);
    }
}

void cfg_init(cfg_t *c, cfg_service_t svc)
{
    memset(c, 0, sizeof *c);
    c->service = svc;
    c->total_mem = procstat_mem_total();
    c->cpu_count = procstat_cpu_count();
    log_settings_init(&c->log);
    c->web_port = -1;
    c->worker_timeout_ms = 10000;
    c->max_attempts = CFG_DEFAULT_MAX_ATTEMPTS;
    c->max_body = svc == CFG_WORKER ? CFG_SERVICE_MAX_BODY : CFG_DEFAULT_MAX_BODY;
    graph_limits_default(&c->quota);
    c->n_io = 1;
    c->n_cuda = -1; /* not given: every device present, found at finish */
    c->cache_mem = -1;
    c->phy_mem = -1;
    c->min_mem = CFG_DEFAULT_MIN_MEM;
}

/* ---- parsing ------------------------------------------------------------ */

typedef struct pair {
    const opt_t *opt;
    char *value;    /* owned */
    char where[64]; /* "-p" or "FILE:LINE" for messages */
} pair_t;

/* Options a command line can give: every option once, with slack for
 * repeats (the last one wins). */
#define MAX_PAIRS 256

static const opt_t *find_long(const char *name, size_t len)
{
    for (int i = 0; i < N_OPTS; i++) {
        if (strlen(OPTS[i].name) != len) continue;
        bool same = true;
        for (size_t k = 0; k < len && same; k++) {
            char a = name[k] == '_' ? '-' : name[k];
            same = a == OPTS[i].name[k];
        }
        if (same) return &OPTS[i];
    }
    return NULL;
}

static const opt_t *find_short(char ch)
{
    for (int i = 0; i < N_OPTS; i++) {
        if (OPTS[i].short_name == ch) return &OPTS[i];
    }
    return NULL;
}

static int add_pair(pair_t *pairs, int *n, const opt_t *o, const char *v, const char *where,
                    char *err, size_t errlen)
{
    if (*n == MAX_PAIRS) {
        snprintf(err, errlen, "more than %d options", MAX_PAIRS);
        return -1;
    }
    pairs[*n].opt = o;
    pairs[*n].value = strdup(v ? v : "");
    if (!pairs[*n].value) abort();
    snprintf(pairs[*n].where, sizeof pairs[*n].where, "%s", where);
    (*n)++;
    return 0;
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

static int read_file(cfg_t *c, const char *path, pair_t *pairs, int *n, char *err, size_t errlen)
{
    /* Lines longer than a DSN and its key are not configuration. */
    char line[CFG_STR_MAX + 128], where[64];
    int lineno = 0, rc = -1;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "-f %s: %s", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(err, errlen, "%s:%d: line longer than %zu bytes", path, lineno,
                     sizeof line - 2);
            goto parse_line;
        }
        char *l = trim(line);
        if (!*l || *l == '#') continue;
        char *eq = strchr(l, '=');
        if (!eq) {
            snprintf(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
            goto parse_line;
        }
        *eq = '\0';
        char *key = trim(l), *val = trim(eq + 1);
        size_t vlen = strlen(val);
        if (vlen >= 2 && val[0] == '"' && val[vlen - 1] == '"') {
            val[vlen - 1] = '\0';
            val++;
        }
        const opt_t *o = find_long(key, strlen(key));
        if (!o || !o->arg || strcmp(o->name, "config-file") == 0) {
            snprintf(err, errlen, "%s:%d: unknown key '%s'", path, lineno, key);
            goto parse_line;
        }
        if (!(o->services & c->service)) {
            snprintf(err, errlen, "%s:%d: '%s' is not an option of %s", path, lineno, key,
                     cfg_program(c->service));
            goto parse_line;
        }
        snprintf(where, sizeof where, "%.40s:%d", path, lineno);
        if (add_pair(pairs, n, o, val, where, err, errlen)) goto parse_line;
    }
    rc = 0;
parse_line:
    fclose(f);
    return rc;
}

static int finish(cfg_t *c, char *err, size_t errlen)
{
    if (c->log_conf[0]) {
        log_settings_t s;
        log_settings_init(&s);
        if (log_settings_load(&s, c->log_conf, err, errlen)) return -1;
        if (c->log_level_set) s.level = c->log.level;
        if (c->log_format_set) memcpy(s.format, c->log.format, sizeof s.format);
        c->log = s;
    }
    if (!c->has_pg_dsn && getenv("MARS_PG_DSN")) {
        if (set_pg_dsn(c, getenv("MARS_PG_DSN"), err, errlen)) return -1;
    }
    if (!c->has_redis_url && getenv("MARS_REDIS_URL")) {
        char msg[256];
        if (set_redis_url(c, getenv("MARS_REDIS_URL"), msg, sizeof msg)) {
            snprintf(err, errlen, "MARS_REDIS_URL: %s", msg);
            return -1;
        }
    }
    if (c->token_file[0]) {
        if (read_token_file(c, err, errlen)) return -1;
    } else if (getenv("MARS_TOKEN") && getenv("MARS_TOKEN")[0]) {
        /* An empty MARS_TOKEN is no token: compose files pass ${MARS_TOKEN:-}. */
        if (check_token(getenv("MARS_TOKEN"), "MARS_TOKEN", err, errlen)) return -1;
        snprintf(c->token, sizeof c->token, "%s", getenv("MARS_TOKEN"));
    }
    if (c->service == CFG_SUPERVISOR) {
        if (!c->has_redis_url) snprintf(c->redis_url, sizeof c->redis_url, CFG_DEFAULT_REDIS_URL);
        /* An empty DSN is libpq's defaults (PGHOST, PGUSER, ... or the local socket). */
    } else if (c->n_supervisors == 0 && !(c->has_pg_dsn && c->has_redis_url)) {
        snprintf(err, errlen, "%s needs -s SUPERVISORS, or both --pg-dsn and --redis-url",
                 cfg_program(c->service));
        return -1;
    }
    if (c->web_port >= 0 && c->port != 0 && c->web_port == c->port) {
        snprintf(err, errlen, "-w %d is the same port as -p", c->web_port);
        return -1;
    }

    if (c->service == CFG_WORKER) {
        if (c->n_cpu == 0) c->n_cpu = c->cpu_count > CFG_MAX_N_CPU ? CFG_MAX_N_CPU : c->cpu_count;
        if (c->phy_mem < 0) c->phy_mem = c->total_mem;
        if (c->cache_mem < 0) c->cache_mem = c->phy_mem / 10 * 4;
        if (c->cache_mem > c->phy_mem) {
            snprintf(err, errlen, "--cache-mem %lld is more than --phy-mem %lld",
                     (long long)c->cache_mem, (long long)c->phy_mem);
            return -1;
        }
        if (c->n_cuda < 0) {
            c->n_cuda = 0;
            char dev[32];
            for (int i = 0; i < CFG_MAX_CUDA; i++) {
                snprintf(dev, sizeof dev, "/dev/nvidia%d", i);
                if (access(dev, F_OK) == 0) c->cuda[c->n_cuda++] = i;
            }
        }
    } else if (c->n_cuda < 0) {
        c->n_cuda = 0;
    }

    /* Without -H: loopback, unless a token protects the service
     * (docs/security.md says why). */
    if (!c->host_set)
        snprintf(c->host, sizeof c->host, "%s", c->token[0] ? "0.0.0.0" : "127.0.0.1");
    bool wildcard = strcmp(c->host, "0.0.0.0") == 0 || strcmp(c->host, "::") == 0;
    if (wildcard) {
        if (gethostname(c->advertise, sizeof c->advertise) != 0 || !c->advertise[0])
            snprintf(c->advertise, sizeof c->advertise, "localhost");
        c->advertise[sizeof c->advertise - 1] = '\0';
    } else {
        snprintf(c->advertise, sizeof c->advertise, "%s", c->host);
    }
    return 0;
}

int cfg_parse(cfg_t *c, int argc, char **argv, char *err, size_t errlen)
{
    pair_t *cmd = calloc(MAX_PAIRS, sizeof *cmd), *file = calloc(MAX_PAIRS, sizeof *file);
    int n_cmd = 0, n_file = 0, rc = -1;
    char msg[512], where[64];
    if (!cmd || !file) abort();

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const opt_t *o = NULL;
        const char *val = NULL;
        if (a[0] == '-' && a[1] == '-' && a[2]) {
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            o = find_long(a + 2, len);
            if (eq) val = eq + 1;
            snprintf(where, sizeof where, "--%.*s", (int)(len < 40 ? len : 40), a + 2);
        } else if (a[0] == '-' && a[1] && a[1] != '-') {
            o = find_short(a[1]);
            if (a[2]) val = a + 2;
            snprintf(where, sizeof where, "-%c", a[1]);
        } else {
            snprintf(err, errlen, "unexpected argument '%s' (see --help)", a);
            goto parse_argv;
        }
        if (!o || !(o->services & c->service)) {
            snprintf(err, errlen, "%s: unknown option '%s' (see --help)", cfg_program(c->service),
                     a);
            goto parse_argv;
        }
        if (!o->arg) {
            if (val) {
                snprintf(err, errlen, "%s takes no value", where);
                goto parse_argv;
            }
            if (strcmp(o->name, "help") == 0) {
                rc = 1;
                goto parse_argv;
            }
        } else if (!val) {
            if (i + 1 >= argc) {
                snprintf(err, errlen, "%s needs a value (%s)", where, o->arg);
                goto parse_argv;
            }
            val = argv[++i];
        }
        if (add_pair(cmd, &n_cmd, o, val, where, err, errlen)) goto parse_argv;
    }

    for (int i = 0; i < n_cmd; i++) {
        if (cmd[i].opt->set == set_config_file &&
            set_config_file(c, cmd[i].value, msg, sizeof msg)) {
            snprintf(err, errlen, "%s: %s", cmd[i].where, msg);
            goto parse_argv;
        }
    }
    if (c->config_file[0] && read_file(c, c->config_file, file, &n_file, err, errlen))
        goto parse_argv;

    /* The file first, then the command line over it. */
    for (int pass = 0; pass < 2; pass++) {
        pair_t *p = pass ? cmd : file;
        int n = pass ? n_cmd : n_file;
        for (int i = 0; i < n; i++) {
            if (p[i].opt->set(c, p[i].value, msg, sizeof msg)) {
                snprintf(err, errlen, "%s: %s", p[i].where, msg);
                goto parse_argv;
            }
        }
    }
    rc = finish(c, err, errlen);
parse_argv:
    for (int i = 0; i < n_cmd; i++)
        free(cmd[i].value);
    for (int i = 0; i < n_file; i++)
        free(file[i].value);
    free(cmd);
    free(file);
    return rc;
}
