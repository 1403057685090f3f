/* mars-gateway: the REST API as a process of its own (stateless; run any
 * number). It learns the database and queue addresses from a supervisor of
 * -s unless --pg-dsn and --redis-url are given. */
#include <stdio.h>

#include "config.h"
#include "gateway.h"
#include "log.h"
#include "metrics.h"
#include "svc.h"

#define LOG_MODULE "gateway"

int main(int argc, char **argv)
{
    static cfg_t cfg; /* large; static keeps it off the stack */
    int code = 1;
    char err[1024];
    gw_t *gw = NULL;
    svc_signals_init();
    if (!svc_init(&cfg, CFG_GATEWAY, argc, argv, &code)) return code;
    code = 1;
    if (svc_discover(&cfg, err, sizeof err)) return 0; /* only a stop signal ends the search */
    metrics_registry_t *m = metrics_create();
    if (!m) return 1;
    svc_process_metrics(m);
    gw_opts_t o = {.host = cfg.host,
                   .port = cfg.port,
                   .max_body = cfg.max_body,
                   .quota = cfg.quota,
                   .pg_dsn = cfg.pg_dsn,
                   .redis_url = cfg.redis_url,
                   .ui_dir = cfg.ui_dir,
                   .token = cfg.token,
                   .metrics = m};
    if (gw_start(&o, &gw, err, sizeof err)) {
        log_error("%s", err);
        goto start;
    }
    log_info("gateway at %s:%d", cfg.advertise, gw_port(gw));
    while (!svc_wait(60000)) {
    }
    code = 0;
    gw_free(gw);
start:
    metrics_free(m);
    return code;
}
