/* config.h: the command line and configuration file of the three services
 * (shared/spec/cluster.md, "Command-line options").
 *
 * Values come from, lowest to highest: built-in defaults, the environment
 * (MARS_PG_DSN, MARS_REDIS_URL, MARS_TOKEN), the -f FILE configuration file, the command
 * line. The file holds `key = value` lines with the long option names as
 * keys (`port = 7103`, `n-cpu = 4`; `_` may stand for `-`), `#` comment
 * lines, and values optionally in double quotes (`cuda-devices = ""`).
 *
 * Everything is validated here, once, at the edge: a cfg_t that cfg_parse
 * accepted holds only values the services can use as they are. */
#ifndef MARS_SVC_CONFIG_H
#define MARS_SVC_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "log.h"
#include "sbuf.h"

typedef enum { CFG_SUPERVISOR = 1, CFG_GATEWAY = 2, CFG_WORKER = 4 } cfg_service_t;

/* Supervisor endpoints in a -s list: a cluster has a handful; 64 bounds the
 * struct, not any real deployment. */
#define CFG_MAX_ENDPOINTS 64
/* A DNS name is at most 253 bytes. */
#define CFG_HOST_MAX 256
/* DSNs, URLs and paths: a kilobyte is beyond any sane one. */
#define CFG_STR_MAX 1024
/* CUDA device indices: 64 is more GPUs than any one machine holds. */
#define CFG_MAX_CUDA 64
/* Spill directories: one per local disk. */
#define CFG_MAX_SPILL 16
/* Worker slots and I/O threads: threads per process beyond these numbers
 * are a typo, not a machine. */
#define CFG_MAX_N_CPU 1024
#define CFG_MAX_N_IO 64

#define CFG_DEFAULT_REDIS_URL "redis://127.0.0.1:6379/0"
/* --min-mem default (the contract's). */
#define CFG_DEFAULT_MIN_MEM ((int64_t)128 << 20)
/* Request bodies the gateway buffers: graph documents are kilobytes, .npy
 * uploads can be large but a single request over 256 MiB belongs in several
 * chunked uploads. h2o answers 413 above it by itself. */
#define CFG_DEFAULT_MAX_BODY ((int64_t)256 << 20)
/* --max-attempts default: a job whose worker died under it three times is
 * more likely the cause than the victim. */
#define CFG_DEFAULT_MAX_ATTEMPTS 3
/* A bearer token: 256 bytes hold any random token a person would generate
 * (32 random bytes are 64 hex digits). */
#define CFG_TOKEN_MAX 257
/* Service ports (/health, /metrics, cluster-info) take no real bodies. */
#define CFG_SERVICE_MAX_BODY ((int64_t)1 << 20)

typedef struct cfg_endpoint {
    char host[CFG_HOST_MAX];
    int port;
} cfg_endpoint_t;

typedef struct cfg {
    cfg_service_t service;
    /* Inputs of the parse, filled by cfg_init from the machine; tests may
     * set them before cfg_parse. */
    int64_t total_mem; /* what percentages in SIZE values refer to */
    int cpu_count;

    char host[CFG_HOST_MAX];      /* address to bind */
    bool host_set;                /* -H given (else: loopback, or 0.0.0.0 with a token) */
    char advertise[CFG_HOST_MAX]; /* address others reach us at: -H, or this host's name */
    int port;                     /* 0: a free one */
    char config_file[CFG_STR_MAX];
    char log_conf[CFG_STR_MAX];
    log_settings_t log;
    bool log_level_set, log_format_set; /* explicit ones win over --log-conf */

    int web_port;             /* supervisor -w; -1: none */
    int worker_timeout_ms;    /* supervisor --worker-timeout */
    int max_attempts;         /* supervisor --max-attempts */
    int64_t sort_block_bytes; /* supervisor --sort-block-bytes; 0: the engine's default */
    char token_file[CFG_STR_MAX];
    char token[CFG_TOKEN_MAX]; /* --token-file's content or MARS_TOKEN; "" : no authentication */
    int n_supervisors;
    cfg_endpoint_t supervisors[CFG_MAX_ENDPOINTS];
    bool has_pg_dsn, has_redis_url; /* given by flag, file or environment */
    char pg_dsn[CFG_STR_MAX];
    char redis_url[CFG_STR_MAX];
    char migrations_dir[CFG_STR_MAX]; /* "" : found beside the executable */
    char ui_dir[CFG_STR_MAX];         /* --ui-dir; "" : found beside the executable */
    int64_t max_body;
    /* supervisor/gateway --max-elements, --max-bytes, --max-chunks,
     * --max-total-chunks, --max-document: the submission quotas, each at
     * most the engine's own limit (graph_limits_default) */
    graph_limits_t quota;

    int n_cpu, n_io;
    int n_cuda;
    int cuda[CFG_MAX_CUDA];
    bool cuda_given; /* --cuda-devices (or cuda-devices in -f FILE) was given */
    int64_t cache_mem, phy_mem, min_mem;
    int64_t cuda_mem; /* --cuda-mem: each device's store (0: gpu_open's default) */
    /* --cache-mem / --phy-mem given (flag or file). Not given, phy_mem is
     * total_mem here and the worker's memguard takes the host share
     * instead; cache_mem then follows the effective limit. */
    bool cache_mem_given, phy_mem_given;
    int n_spill;
    char spill[CFG_MAX_SPILL][CFG_STR_MAX];
} cfg_t;

/* Defaults for the service; reads the machine's memory and CPU count. */
void cfg_init(cfg_t *c, cfg_service_t svc);
/* Parses argv (argv[0] is the program). Returns 0, 1 when --help was asked
 * (nothing else is checked then), or -1 with one line in err. */
int cfg_parse(cfg_t *c, int argc, char **argv, char *err, size_t errlen);
/* Appends the --help text of the service to out. */
void cfg_usage(cfg_service_t svc, sbuf_t *out);
const char *cfg_program(cfg_service_t svc); /* "mars-worker", ... */

/* SIZE: bytes with an optional k/m/g/t suffix (powers of 1024, optionally
 * followed by `b`; a decimal point is allowed: `1.5g`), or a percentage of
 * total_mem (`80%`, `12.5%`, at most 100%). Fractions of a byte round
 * down. Fails on anything else or on a value over 2^63-1. */
int cfg_parse_size(const char *s, int64_t total_mem, int64_t *out, char *err, size_t errlen);
/* "host:port,host:port" ("[v6]:port" for IPv6 literals). */
/* An integer in [lo, hi] (the whole string), or -1 with err. */
int cfg_parse_int(const char *s, long lo, long hi, long *out, char *err, size_t errlen);
/* A host name or address h (from option text s, for the message): at
 * most 253 bytes of letters, digits and . - _ : %; -1 with err. */
int cfg_check_host(const char *h, const char *s, char *err, size_t errlen);
int cfg_parse_endpoints(const char *s, cfg_endpoint_t *out, int max, int *n, char *err,
                        size_t errlen);

#endif
