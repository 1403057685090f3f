/* gateway_internal.h: what the gateway's files share (gateway.c: sessions,
 * workers, supervisors and the route table; tasks.c: task submission,
 * status, cancellation; tensors.c: tensor uploads, metadata and data,
 * files; ui.c: the dashboard's files; dash.c: the dashboard's read-only
 * routes). Not a public interface. */
#ifndef MARS_GW_INTERNAL_H
#define MARS_GW_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "db.h"
#include "http.h"
#include "peer.h"
#include "plan.h"
#include "rq.h"
#include "df/frame.h"

/* Per pool thread: its own connections. */
typedef struct conns {
    db_t *db;
    rq_t *rq;                    /* NULL only for a bad URL (checked at start) */
    const graph_limits_t *quota; /* the gateway's submission quotas */
    peer_pool_t *pool;           /* chunk reads from workers */
    const char *token;           /* the cluster's token, for workers ("" none) */
} conns_t;

/* Ids the API hands out are UUIDs or hex; accepting up to 64 of [A-Za-z0-9_-]
 * leaves room for other schemes while keeping odd bytes out of SQL and
 * messages. */
#define ID_MAX 64

typedef struct id_arg {
    char id[ID_MAX + 1];
} id_arg_t;

/* RFC 3339 in UTC, microseconds; NULL stays NULL (JSON null). */
#define RFC3339(col) "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"

/* The API's form of a task row aliased t (GET .../tasks and .../tasks/{tid}). */
#define GW_TASK_JSON                                                                               \
    "json_build_object('task_id', t.id, 'status', t.status,"                                       \
    " 'progress', CASE WHEN t.status = 'succeeded' THEN 1.0"                                       \
    "                  WHEN t.chunks_total > 0 THEN t.chunks_done::float8 / t.chunks_total"        \
    "                  ELSE 0 END,"                                                                \
    " 'chunks_total', t.chunks_total, 'chunks_done', t.chunks_done, 'error', t.error,"             \
    " 'submitted_at', " RFC3339("t.submitted_at") ", 'started_at', " RFC3339(                      \
        "t.started_at") ", 'finished_at', " RFC3339("t.finished_at") ")"

/* A failed statement: 503 when the database is unreachable, else 500. */
void gw_reply_db_error(http_reply_t *out, const conns_t *c, const char *what, const char *err);
/* Tells the supervisors' loops that a task was submitted or cancelled, so
 * that one claims it now rather than at its next turn (msg.h MSG_WAKE). */
void gw_wake_supervisors(conns_t *c);
/* A failed Redis command: 503 (the chunk store is the service's own). */
void gw_reply_rq_error(http_reply_t *out, const char *what, const char *err);
bool gw_valid_id(const char *s);
/* Whether session sid exists; answers 404 (or the database error) and
 * returns false when it does not. */
bool gw_session_exists(http_reply_t *out, conns_t *c, const char *sid);
void gw_send_error(http_req_t *r, int status, const char *code, const char *msg);
/* Takes the {} parameter i as the id of a `what`, or answers 404 (an id
 * that cannot exist is an unknown id). Returns false when it answered. */
bool gw_take_id(http_req_t *r, int i, const char *what, id_arg_t *out);
/* The gateway's largest request body (--max-body-size). */
size_t gw_max_body(http_req_t *r);
/* The submission quotas (--max-elements ...). */
const graph_limits_t *gw_quota(http_req_t *r);
/* The dashboard's folder (--ui-dir, or found by gw_ui_find). */
const char *gw_ui_root(http_req_t *r);

/* ui.c: the dashboard's files. gw_ui_find writes --ui-dir (opt) or the
 * ui/dist of the source tree the program was built in (up to 3 levels
 * above the executable) into out; -1 when neither exists (out is then
 * "ui/dist"). */
int gw_ui_find(const char *opt, char *out, size_t cap);
void gw_h_ui_index(http_req_t *r);
void gw_h_ui_asset(http_req_t *r);

/* dash.c: the read-only routes the dashboard needs (docs/dashboard.md). */
void gw_h_recent_tasks(http_req_t *r);
void gw_h_cluster(http_req_t *r);
void gw_h_worker(http_req_t *r);
void gw_h_task_graph(http_req_t *r);
void gw_h_task_chunks(http_req_t *r);

/* tasks.c */
/* plan_t's loader (plan.h) for the tensors of session sid; db_failed and
 * err tell a database failure from a missing tensor. */
typedef struct gw_load_ctx {
    conns_t *c;
    const char *sid;
    bool db_failed;
    bool held_failed; /* a held result named could not be converted (heldmat.c) */
    char held_key[GRAPH_KEY_MAX + 1];
    char err[512];
} gw_load_ctx_t;
int gw_load_src(void *ctx, const char *key, plan_src_t *out);
void gw_h_submit_task(http_req_t *r);
void gw_h_get_task(http_req_t *r);
void gw_h_cancel_task(http_req_t *r);

/* tensors.c */
/* Deletes keys[0..n) from Redis, pipelined in bounded batches. Best effort:
 * a failure is logged (the keys are garbage, not data anyone reads). */
void gw_del_keys(rq_t *rq, char **keys, int64_t n);
void gw_h_upload_tensor(http_req_t *r);
void gw_h_get_tensor(http_req_t *r);
void gw_h_tensor_data(http_req_t *r);
void gw_h_put_file(http_req_t *r);
/* DELETE /api/v1/sessions/{sid}: the rows and every chunk of the session
 * in the store. */
void gw_h_delete_session(http_req_t *r);

/* ---- chunkread.c: result chunks, wherever they live -------------------- */

/* Where each chunk of a tensor lives: inline in Redis, or on a worker at
 * an address. */
typedef struct {
    bool inl;
    char addr[300];
    char wid[72]; /* the holder's id */
} gw_loc_t;

/* Finds every chunk of s: mars:loc of the task that made it, then the
 * holder's address. A chunk whose holder is gone is made again: its task
 * is revived (msg.h) and the locations are read again until they are all
 * there or wait_ms passes. 1 all found, 0 not (msg says which), -1 Redis
 * failed (msg). */
int gw_locate_chunks(conns_t *c, const plan_src_t *s, gw_loc_t *locs, int wait_ms, char *msg,
                     size_t msglen);
/* Reads chunk i of s whole into buf (n bytes: its size, when known; for a
 * frame blob n is 0 and the size comes from the holder): 0 with *got, or
 * -1 with err. *buf is grown (realloc) as needed. */
int gw_read_chunk(conns_t *c, const plan_src_t *s, const gw_loc_t *loc, int64_t i, size_t n,
                  char **buf, size_t *cap, size_t *got, char *err, size_t errlen);

/* Reads chunks lo .. lo + n - 1 of s whole, chunk lo + k into bufs[k]
 * (grown as needed; sizes[k] bytes, known), the workers' in parallel (one
 * connection each, as a job's inputs). 0, or -1 with err. */
int gw_read_chunks(conns_t *c, const plan_src_t *s, const gw_loc_t *locs, int64_t lo, int n,
                   const size_t *sizes, char **bufs, size_t *caps, char *err, size_t errlen);

/* Frees chunks named by key wherever they live: inline or uploaded (DEL),
 * or on their worker (a free message); their location goes. */
void gw_free_chunks(rq_t *rq, char **keys, int n);

/* tensors.c, for heldmat.c */
/* The frame of a result: chunks [0, upto) read whole and concatenated
 * (the whole value in memory). 0, or -1 with err. */
int gw_frame_read(conns_t *c, const plan_src_t *s, const gw_loc_t *locs, frame_t *f, int64_t upto,
                  char *err, size_t errlen);
/* Stores the C-order array data (shape sh) in Redis as an upload's chunks
 * (the default grid) and fills s; on failure deletes what it stored. */
int gw_store_array(conns_t *c, const char *key, dtype_t dt, const shape_t *sh, const void *data,
                   plan_src_t *s, char *err, size_t errlen);
/* Frees the chunks listed in res (one key per row) that no tensors row
 * references any more. */
void gw_free_replaced(conns_t *c, const char *sid, const char *key, PGresult *res);

/* heldmat.c */
/* When `key` of session sid is a held result (dtype text "frame-tensor":
 * its length was known only when it ran), makes it an ordinary tensor of
 * the session: its rows, now known, stored as an upload's chunks. Returns
 * 1 when it did (or another request did meanwhile), 0 when key is no held
 * result, -1 with err (db_failed set for a database failure). */
int gw_materialize_held(conns_t *c, const char *sid, const char *key, bool *db_failed, char *err,
                        size_t errlen);

#endif
