/* proto.h: what the services agree on between them: Redis key names,
 * heartbeat timing and the thresholds that turn a heartbeat's age into a
 * status. These are formats (STYLE 10): a value that has shipped keeps its
 * meaning; add new names rather than changing one. */
#ifndef MARS_SVC_PROTO_H
#define MARS_SVC_PROTO_H

/* Workers and supervisors report every second. */
#define PROTO_HEARTBEAT_MS 1000
/* `suspect` after one missed heartbeat: the next was due at 1 s, allow
 * 1.5 s more for a busy database write. */
#define PROTO_SUSPECT_MS 2500
/* `dead` after ten missed heartbeats: long enough to ride out a database
 * failover or a stop-the-world pause, short enough to reschedule soon. */
#define PROTO_DEAD_MS 10000

/* Hash of a worker's live report (fields as in GET /api/v1/workers),
 * expiring PROTO_DEAD_MS after its last heartbeat: a worker whose key is
 * gone is dead for the dispatcher. Key: PROTO_WORKER_KEY + worker id. */
#define PROTO_WORKER_KEY "mars:worker:"
/* The worker's hash also holds `slots`: a JSON array, one item per slot,
 * null when idle, else {"task_id", "job", "node", "op", "started_at"} (ms
 * since the epoch, the worker's clock). */
/* List of the worker's recent heartbeats, newest first, for the dashboard's
 * charts: "<ms since the epoch> <cpu_usage> <memory_used> <cache_used>
 * <chunks_running> <chunks_done>". Key: PROTO_WORKER_KEY + id +
 * PROTO_HISTORY_SUFFIX. */
#define PROTO_HISTORY_SUFFIX ":history"
/* Ten minutes at one heartbeat a second: "the last minutes" of a chart,
 * about 50 bytes each, 30 KB per worker. */
#define PROTO_HISTORY_LEN 600
/* Kept an hour past the last heartbeat: a dead worker's page still shows
 * its end, and Redis drops it afterwards by itself. */
#define PROTO_HISTORY_TTL_MS 3600000
/* String holding a supervisor's address, same expiry. */
#define PROTO_SUPERVISOR_KEY "mars:supervisor:"
/* The data plane's keys and messages (mars:free:<id>, mars:loc:<tid>, ...)
 * are in msg.h. */

#endif
