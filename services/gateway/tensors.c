/* tensors.c: a session's tensors (uploads, metadata, data streamed from the
 * chunk store) and uploaded files. Deleting a session: sessdel.c.
 *
 * A tensor is a tensors row (shape, dtype, per-axis chunk bounds, chunk
 * keys in grid C order) plus its chunks in Redis. Reading one never holds
 * more than one slab of it (and two groups of its chunks): asm_stream_npy /
 * asm_stream_json pull chunks through a getter (the holders' chunk routes,
 * inline chunks from Redis) and push bytes through the HTTP server's
 * bounded stream queue. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "assemble.h"
#include "gateway_internal.h"
#include "graph.h"
#include "log.h"
#include "msg.h"
#include "df/dfexec.h"
#include "df/dfgraph.h"
#include "npy.h"
#include "plan.h"
#include "svc.h"

#define LOG_MODULE "gateway"

/* Redis pipelines: at most this many commands or bytes in flight, so that
 * an upload of a million chunks or a deleted session with a million keys
 * costs bounded memory on both ends. */
#define PIPE_CMDS 512
#define PIPE_BYTES (64u << 20)
/* Chunks of an upload that names no chunk_size: at most 16 MiB, the
 * engine's own default target (tile_opts_default). */
#define UPLOAD_CHUNK_BYTES (16 << 20)
/* File names: a plain name, no directories, at most what every file
 * system takes as one name (workers may spill or cache files under it). */
#define FILE_NAME_MAX 255

static bool valid_key(const char *k)
{
    size_t n = strlen(k);
    if (n == 0 || n > GRAPH_KEY_MAX) return false;
    for (; *k; k++) {
        char ch = *k;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '.' || ch == '-'))
            return false;
    }
    return true;
}

/* ---- reading a tensor's row --------------------------------------------- */

typedef struct tensor_arg {
    char sid[ID_MAX + 1];
    char key[GRAPH_KEY_MAX + 1];
    bool npy;
    bool csv;        /* a DataFrame or Series as text/csv */
    bool csv_format; /* ?format=csv: a tensor is then a 400 */
    int frame;       /* read_tensor: 0 a tensor, else what its dtype text says (FRAME_*) */
} tensor_arg_t;

/* Results of DataFrame ops are lists of frame blobs (engine/df/frame.h);
 * their tensors row says which by its dtype text (services/supervisor). */
enum { FRAME_NONE = 0, FRAME_DATAFRAME, FRAME_SERIES, FRAME_TENSOR };
static const char *const frame_kinds[] = {NULL, "dataframe", "series", "frame-tensor"};

/* No tensors row for key: says why, as precisely as the tasks tell. */
static void reply_missing(conns_t *c, const char *sid, const char *key, http_reply_t *out)
{
    char err[512];
    const char *params[] = {sid, key};
    PGresult *res =
        db_query(c->db,
                 "SELECT EXISTS (SELECT 1 FROM sessions WHERE id = $1),"
                 " (SELECT t.id FROM tasks t WHERE t.session_id = $1 AND t.status = 'succeeded'"
                 "   AND EXISTS (SELECT 1 FROM json_array_elements(t.graph->'nodes') n"
                 "               WHERE n->>'key' = $2)"
                 "   ORDER BY t.submitted_at DESC LIMIT 1),"
                 " (SELECT t.id || ' is ' || t.status FROM tasks t WHERE t.session_id = $1"
                 "   AND t.status IN ('pending', 'running')"
                 "   AND EXISTS (SELECT 1 FROM json_array_elements(t.graph->'nodes') n"
                 "               WHERE n->>'key' = $2)"
                 "   ORDER BY t.submitted_at DESC LIMIT 1)",
                 2, params, err, sizeof err);
    if (!res) {
        gw_reply_db_error(out, c, "reading a tensor", err);
        return;
    }
    if (strcmp(PQgetvalue(res, 0, 0), "t") != 0)
        http_reply_error(out, 404, "not_found", "no session '%s'", sid);
    else if (!PQgetisnull(res, 0, 2))
        http_reply_error(out, 404, "not_ready", "tensor \"%s\" is not ready yet: task %s", key,
                         PQgetvalue(res, 0, 2));
    else if (!PQgetisnull(res, 0, 1))
        http_reply_error(out, 404, "not_kept",
                         "tensor \"%s\" of task %s was not kept: only the nodes a document "
                         "names in \"fetch\" stay in the session; name it there to keep it",
                         key, PQgetvalue(res, 0, 1));
    else
        http_reply_error(out, 404, "not_found", "no tensor \"%s\" in session '%s'", key, sid);
    PQclear(res);
}

/* Reads the row into s (plan_src_t: shape, dtype, bounds, chunk keys) and
 * *nbytes. 1 found, 0 not (out answered), -1 error (out answered). */
static int read_tensor(conns_t *c, tensor_arg_t *a, plan_src_t *s, int64_t *nbytes,
                       http_reply_t *out)
{
    char err[512];
    const char *params[] = {a->sid, a->key};
    PGresult *res = db_query(c->db,
                             "SELECT json_build_object('shape', shape, 'dtype', dtype,"
                             " 'bounds', bounds, 'chunk_keys', chunk_keys)::text, nbytes"
                             " FROM tensors WHERE session_id = $1 AND key = $2",
                             2, params, err, sizeof err);
    if (!res) {
        gw_reply_db_error(out, c, "reading a tensor", err);
        return -1;
    }
    if (PQntuples(res) == 0) {
        PQclear(res);
        reply_missing(c, a->sid, a->key, out);
        return 0;
    }
    json_error_t je;
    json_t *o = json_loads(PQgetvalue(res, 0, 0), 0, &je);
    *nbytes = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
    PQclear(res);
    /* a frame's row: its chunks as a 1-D grid of "bool" (no element type) */
    a->frame = FRAME_NONE;
    json_t *dtj = o ? json_object_get(o, "dtype") : NULL;
    for (int k = 1; k <= FRAME_TENSOR && json_is_string(dtj); k++)
        if (strcmp(json_string_value(dtj), frame_kinds[k]) == 0) {
            a->frame = k;
            json_object_set_new(o, "dtype", json_string("bool")); /* frees dtj */
            break;
        }
    memset(s, 0, sizeof *s);
    snprintf(s->key, sizeof s->key, "%s", a->key);
    int rc = o ? plan_src_parse(o, s, err, sizeof err) : -1;
    json_decref(o);
    if (rc) {
        http_reply_error(out, 500, "internal", "tensor \"%s\" has a bad row: %s", a->key,
                         o ? err : je.text);
        return -1;
    }
    return 1;
}

/* {"key", "shape", "dtype", "chunk_size", "nbytes"}; chunk_size: per axis
 * the list of chunk lengths (uneven chunkings are kept exactly). */
static json_t *tensor_json(const plan_src_t *s, int64_t nbytes)
{
    json_t *shape = json_array(), *cs = json_array();
    for (int d = 0; d < s->shape.ndim; d++) {
        json_array_append_new(shape, json_integer(s->shape.d[d]));
        json_t *ax = json_array();
        for (int64_t i = 0; i < s->nch[d]; i++)
            json_array_append_new(ax, json_integer(s->bounds[d][i + 1] - s->bounds[d][i]));
        json_array_append_new(cs, ax);
    }
    return json_pack("{s:s,s:o,s:s,s:o,s:I}", "key", s->key, "shape", shape, "dtype",
                     dt_name(s->dt), "chunk_size", cs, "nbytes", (json_int_t)nbytes);
}

static bool take_tensor(http_req_t *r, tensor_arg_t *a)
{
    id_arg_t sid;
    if (!gw_take_id(r, 0, "session", &sid)) return false;
    const char *key = http_param(r, 1);
    memset(a, 0, sizeof *a);
    if (!valid_key(key)) {
        char msg[300];
        snprintf(msg, sizeof msg, "no tensor \"%.*s\" (keys are 1-128 of [A-Za-z0-9_.-])",
                 GRAPH_KEY_MAX, key);
        gw_send_error(r, 404, "not_found", msg);
        return false;
    }
    memcpy(a->sid, sid.id, sizeof a->sid);
    snprintf(a->key, sizeof a->key, "%s", key);
    return true;
}

/* ---- GET /api/v1/sessions/{sid}/tensors/{key} ---------------------------- */

/* A lost chunk (its worker died) is recomputed while a request waits this
 * long before answering 500 data_lost. */
#define LOST_WAIT_MS 120000

/* {"key", "kind", "columns", "dtypes", "nrows", "nchunks", "nbytes"} of a
 * DataFrame ({"name", "dtype"} in place of columns and dtypes for a Series);
 * a to_tensor result as a tensor ({"key", "kind", "shape", "dtype", ...}). */
static json_t *frame_json(const tensor_arg_t *a, const plan_src_t *s, const frame_t *f,
                          int64_t nbytes)
{
    json_t *o = json_pack("{s:s,s:s,s:I,s:I}", "key", s->key, "kind", frame_kinds[a->frame],
                          "nchunks", (json_int_t)s->n_keys, "nbytes", (json_int_t)nbytes);
    if (a->frame == FRAME_TENSOR) {
        json_object_set_new(o, "kind", json_string("tensor"));
        json_object_set_new(o, "shape",
                            f->series ? json_pack("[I]", (json_int_t)f->nrows)
                                      : json_pack("[I,i]", (json_int_t)f->nrows, f->ncols));
        const char *dt = !f->ncols || f->cols[0].type == FT_FLOAT64 ? "float64"
                         : f->cols[0].type == FT_INT64              ? "int64"
                                                                    : "bool";
        json_object_set_new(o, "dtype", json_string(dt));
        return o;
    }
    json_object_set_new(o, "nrows", json_integer(f->nrows));
    json_t *cols = json_array(), *dts = json_object();
    for (int k = 0; k < f->ncols; k++) {
        const flabel_t *l = &f->names[k];
        json_array_append_new(cols, !l->s       ? json_null()
                                    : l->is_int ? json_integer(strtoll(l->s, NULL, 10))
                                                : json_string(l->s));
        bool na = false;
        for (int64_t i = 0; f->cols[k].valid && i < f->nrows && !na; i++)
            na = !f->cols[k].valid[i];
        json_object_set_new(dts, l->s ? l->s : "None",
                            json_string(fcol_type_name(&f->cols[k], na)));
    }
    if (a->frame == FRAME_SERIES) {
        json_object_set_new(o, "name", json_incref(json_array_get(cols, 0)));
        json_object_set_new(o, "dtype",
                            json_string(f->ncols ? fcol_type_name(&f->cols[0], false) : "float64"));
        json_decref(cols);
        json_decref(dts);
    } else {
        json_object_set_new(o, "columns", cols);
        json_object_set_new(o, "dtypes", dts);
    }
    return o;
}

static void job_get_tensor(void *state, void *arg, http_reply_t *out)
{
    conns_t *c = state;
    tensor_arg_t *a = arg;
    plan_src_t s;
    int64_t nbytes;
    if (read_tensor(state, arg, &s, &nbytes, out) != 1) return;
    if (a->frame) {
        frame_t f;
        char err[512];
        gw_loc_t *locs = calloc((size_t)(s.n_keys ? s.n_keys : 1), sizeof *locs);
        int ok =
            !c->rq || !locs ? -1 : gw_locate_chunks(c, &s, locs, LOST_WAIT_MS, err, sizeof err);
        if (!c->rq || !locs)
            gw_reply_rq_error(out, "reading chunks", !locs ? "out of memory" : "bad redis URL");
        else if (ok < 0)
            gw_reply_rq_error(out, "reading chunks", err);
        else if (ok == 0 || gw_frame_read(c, &s, locs, &f, s.n_keys, err, sizeof err))
            http_reply_error(out, 500, "data_lost", "%s", err);
        else {
            http_reply_json(out, 200, frame_json(a, &s, &f, nbytes));
            frame_free(&f);
        }
        free(locs);
        plan_src_close(&s);
        return;
    }
    http_reply_json(out, 200, tensor_json(&s, nbytes));
    plan_src_close(&s);
}

void gw_h_get_tensor(http_req_t *r)
{
    tensor_arg_t a;
    if (take_tensor(r, &a)) http_defer(r, job_get_tensor, &a, sizeof a);
}

/* ---- GET /api/v1/sessions/{sid}/tensors/{key}/data ----------------------- */

/* Chunks are read ahead in groups: the rest of the assembler's row band
 * from the chunk asked for (it asks in order), at most this many chunks and
 * bytes at once, the workers' read in parallel (gw_read_chunks). While the
 * assembler gathers and sends one group, a thread reads the next: two
 * groups in memory at most. */
#define AHEAD_CHUNKS 64
#define AHEAD_BYTES ((size_t)32 << 20)

typedef struct group {
    int64_t lo; /* chunks lo .. lo + n - 1 */
    int n;
    size_t sizes[AHEAD_CHUNKS];
    char *bufs[AHEAD_CHUNKS];
    size_t caps[AHEAD_CHUNKS];
    int rc;
    char err[256];
} group_t;

typedef struct getter {
    conns_t *c;
    const plan_src_t *s;
    const gw_loc_t *locs;
    group_t g[2]; /* g[cur]: the assembler's (kept until it asks past it,
                   * asm_get_fn's contract); the other: being read ahead */
    int cur;
    bool ahead; /* th is reading g[!cur]: the only reader of c meanwhile */
    pthread_t th;
    char err[256];
} getter_t;

static int64_t chunk_bytes(const plan_src_t *s, int64_t li)
{
    int64_t n = (int64_t)dt_size(s->dt);
    for (int d = s->shape.ndim - 1; d >= 0; d--) {
        int64_t i = li % s->nch[d];
        li /= s->nch[d];
        n *= s->bounds[d][i + 1] - s->bounds[d][i];
    }
    return n;
}

/* The group from li to the end of its row band (chunks sharing the first
 * axis' chunk), bounded. */
static void group_plan(const plan_src_t *s, group_t *gr, int64_t li)
{
    int64_t band = s->shape.ndim > 0 && s->nch[0] > 0 ? s->n_keys / s->nch[0] : 1;
    int64_t end = (li / band + 1) * band;
    size_t total = 0;
    int n = 0;
    while (li + n < end && n < AHEAD_CHUNKS) {
        size_t b = (size_t)chunk_bytes(s, li + n);
        if (n > 0 && total + b > AHEAD_BYTES) break;
        gr->sizes[n++] = b;
        total += b;
    }
    gr->lo = li;
    gr->n = n;
}

static int group_read(getter_t *g, group_t *gr)
{
    gr->err[0] = '\0';
    gr->rc = gw_read_chunks(g->c, g->s, g->locs, gr->lo, gr->n, gr->sizes, gr->bufs, gr->caps,
                            gr->err, sizeof gr->err);
    return gr->rc;
}

static void *read_ahead(void *arg)
{
    getter_t *g = arg;
    group_read(g, &g->g[!g->cur]);
    return NULL;
}

/* Waits for the group read ahead; true when it starts at li and arrived. */
static bool ahead_join(getter_t *g, int64_t li)
{
    if (!g->ahead) return false;
    pthread_join(g->th, NULL);
    g->ahead = false;
    const group_t *nx = &g->g[!g->cur];
    return nx->lo == li && nx->n > 0 && nx->rc == 0;
}

static const void *get_chunk(void *ctx, int64_t li)
{
    getter_t *g = ctx;
    const plan_src_t *s = g->s;
    if (li < 0 || li >= s->n_keys) return NULL;
    group_t *cur = &g->g[g->cur];
    if (li < cur->lo || li >= cur->lo + cur->n) {
        if (ahead_join(g, li)) {
            g->cur = !g->cur;
        } else { /* not read ahead (the first group), or that read failed: here */
            group_plan(s, cur, li);
            if (group_read(g, cur)) {
                snprintf(g->err, sizeof g->err, "%s", cur->err);
                cur->n = 0;
                return NULL;
            }
        }
        cur = &g->g[g->cur];
        int64_t next = cur->lo + cur->n;
        if (next < s->n_keys) {
            group_plan(s, &g->g[!g->cur], next);
            g->ahead = pthread_create(&g->th, NULL, read_ahead, g) == 0;
        }
    }
    /* A chunk of zero bytes: any non-NULL pointer will do. */
    return chunk_bytes(s, li) ? (const void *)cur->bufs[li - cur->lo] : (const void *)"";
}

static void getter_free(getter_t *g)
{
    if (g->ahead) pthread_join(g->th, NULL);
    g->ahead = false;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < AHEAD_CHUNKS; i++)
            free(g->g[k].bufs[i]);
}

typedef struct sink_ctx {
    http_stream_t *st;
    bool client_gone; /* a write failed: the client hung up (or we stop) */
} sink_ctx_t;

static int sink(void *ctx, const void *data, size_t n)
{
    sink_ctx_t *sc = ctx;
    if (http_stream_write(sc->st, data, n) == 0) return 0;
    sc->client_gone = true;
    return -1;
}

/* The frame of a result: chunks [0, upto) read whole, viewed and
 * concatenated (dfx_assemble). The whole value is held in memory. */
int gw_frame_read(conns_t *c, const plan_src_t *s, const gw_loc_t *locs, frame_t *f, int64_t upto,
                  char *err, size_t errlen)
{
    int64_t n = upto < s->n_keys ? upto : s->n_keys;
    void **blobs = calloc((size_t)n + 1, sizeof(void *));
    size_t *lens = calloc((size_t)n + 1, sizeof(size_t));
    int rc = -1;
    if (!blobs || !lens) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        /* a blob is read in place: malloc'ed memory is 8-aligned */
        size_t cap = 0;
        char *b = NULL;
        if (gw_read_chunk(c, s, &locs[i], i, 0, &b, &cap, &lens[i], err, errlen)) {
            free(b);
            goto done;
        }
        blobs[i] = b;
    }
    rc = dfx_assemble((const void *const *)blobs, lens, n, f, err, errlen);
done:
    for (int64_t i = 0; blobs && i < n; i++)
        free(blobs[i]);
    free(blobs);
    free(lens);
    return rc;
}

static int frame_sink(void *ctx, const void *data, size_t n)
{
    return sink(ctx, data, n);
}

static void frame_data(conns_t *c, tensor_arg_t *a, const plan_src_t *s, const gw_loc_t *locs,
                       http_stream_t *st, http_reply_t *out)
{
    frame_t f;
    char err[512];
    if (gw_frame_read(c, s, locs, &f, s->n_keys, err, sizeof err)) {
        http_reply_error(out, 500, "data_lost", "%s", err);
        return;
    }
    sink_ctx_t sc = {.st = st};
    int rc;
    int nd = f.series ? 1 : 2;
    if (a->frame == FRAME_TENSOR && a->npy) {
        http_stream_begin(st, 200, "application/x-npy", SIZE_MAX);
        rc = dfx_write_tensor_npy(&f, nd, frame_sink, &sc);
    } else if (a->frame == FRAME_TENSOR) {
        http_stream_begin(st, 200, "application/json", SIZE_MAX);
        rc = dfx_write_tensor_json(&f, nd, frame_sink, &sc);
    } else if (a->csv) {
        http_stream_begin(st, 200, "text/csv", SIZE_MAX);
        rc = dfx_write_csv(&f, frame_sink, &sc);
    } else {
        http_stream_begin(st, 200, "application/json", SIZE_MAX);
        rc = dfx_write_json(&f, frame_sink, &sc);
    }
    if (rc) http_stream_fail(st);
    frame_free(&f);
}

static void job_tensor_data(void *state, void *arg, http_stream_t *st, http_reply_t *out)
{
    conns_t *c = state;
    tensor_arg_t *a = arg;
    plan_src_t s;
    int64_t nbytes;
    char err[512];
    gw_loc_t *locs = NULL;
    if (read_tensor(c, a, &s, &nbytes, out) != 1) return;
    if (a->csv_format && (a->frame == FRAME_NONE || a->frame == FRAME_TENSOR)) {
        http_reply_error(out, 400, "invalid_request",
                         "\"%s\" is a tensor: format csv is for DataFrames and Series", a->key);
        goto row;
    }
    if (!c->rq) {
        gw_reply_rq_error(out, "reading chunks", "bad redis URL");
        goto row;
    }
    locs = calloc((size_t)(s.n_keys ? s.n_keys : 1), sizeof *locs);
    if (!locs) {
        http_reply_error(out, 500, "internal", "out of memory");
        goto row;
    }
    int ok = gw_locate_chunks(c, &s, locs, LOST_WAIT_MS, err, sizeof err);
    if (ok < 0) {
        gw_reply_rq_error(out, "reading chunks", err);
        goto row;
    }
    if (ok == 0) {
        http_reply_error(out, 500, "data_lost", "%s", err);
        goto row;
    }
    if (a->frame) {
        frame_data(c, a, &s, locs, st, out);
        goto row;
    }

    /* Only shape, dt, nchunks and bounds are read by the assembler. */
    tgrid_t G;
    memset(&G, 0, sizeof G);
    G.shape = s.shape;
    G.dt = s.dt;
    G.total = s.n_keys;
    for (int d = 0; d < s.shape.ndim; d++) {
        G.nchunks[d] = s.nch[d];
        G.bounds[d] = s.bounds[d];
    }
    getter_t g = {.c = c, .s = &s, .locs = locs};
    sink_ctx_t sc = {.st = st};
    int rc;
    if (a->npy) {
        http_stream_begin(st, 200, "application/x-npy", (size_t)asm_npy_size(&G));
        rc = asm_stream_npy(&G, get_chunk, &g, sink, &sc, err, sizeof err);
    } else {
        http_stream_begin(st, 200, "application/json", SIZE_MAX);
        rc = asm_stream_json(&G, get_chunk, &g, sink, &sc, err, sizeof err);
    }
    getter_free(&g);
    if (rc && sc.client_gone) {
        log_debug("tensor %s/%s: the client left during the download", a->sid, a->key);
        http_stream_fail(st);
    } else if (rc) {
        /* Started already: the client sees a truncated answer. */
        log_warning("tensor %s/%s: streaming stopped: %s%s%s", a->sid, a->key, err,
                    g.err[0] ? ": " : "", g.err);
        http_stream_fail(st);
    }
row:
    free(locs);
    plan_src_close(&s);
}

/* .npy when asked by ?format=npy or an Accept naming application/x-npy;
 * JSON otherwise (?format=json forces it). */
void gw_h_tensor_data(http_req_t *r)
{
    tensor_arg_t a;
    if (!take_tensor(r, &a)) return;
    const char *fmt = http_query(r, "format");
    const char *accept = http_header(r, "accept");
    if (fmt && strcmp(fmt, "npy") != 0 && strcmp(fmt, "json") != 0 && strcmp(fmt, "csv") != 0) {
        gw_send_error(r, 400, "invalid_request", "format must be npy, json or csv");
        return;
    }
    a.npy = fmt ? strcmp(fmt, "npy") == 0 : accept && strstr(accept, "application/x-npy");
    /* DataFrames and Series: CSV when asked (?format=csv or Accept: text/csv) */
    a.csv = fmt ? strcmp(fmt, "csv") == 0 : accept && strstr(accept, "text/csv");
    a.csv_format = fmt && strcmp(fmt, "csv") == 0;
    http_defer_stream(r, job_tensor_data, &a, sizeof a);
}

/* ---- POST /api/v1/sessions/{sid}/tensors?key=K&chunk_size=C -------------- */

typedef struct upload_arg {
    char sid[ID_MAX + 1];
    char key[GRAPH_KEY_MAX + 1];
    int n_chunk; /* 0: absent; 1: one length for every axis; else one per axis */
    int64_t chunk[MR_MAXDIM];
    size_t len;
    char body[]; /* the .npy image: travels in the job's argument */
} upload_arg_t;

/* "C" or "C1,C2,...": positive integers. -1 when malformed. */
static int parse_chunk_size(const char *s, int64_t *out)
{
    int n = 0;
    const char *p = s;
    for (;;) {
        char *end;
        if (*p < '0' || *p > '9' || n == MR_MAXDIM) return -1;
        long long v = strtoll(p, &end, 10);
        if (v <= 0 || end == p) return -1;
        out[n++] = v;
        if (*end == '\0') return n;
        if (*end != ',') return -1;
        p = end + 1;
    }
}

/* The chunk lengths when the upload names none: whole axes, halving the
 * longest until a chunk is at most UPLOAD_CHUNK_BYTES. */
static void default_chunks(const shape_t *sh, dtype_t dt, int64_t *chunk)
{
    for (int d = 0; d < sh->ndim; d++)
        chunk[d] = sh->d[d] > 0 ? sh->d[d] : 1;
    for (;;) {
        int64_t bytes = (int64_t)dt_size(dt);
        int big = 0;
        for (int d = 0; d < sh->ndim; d++) {
            bytes *= chunk[d];
            if (chunk[d] > chunk[big]) big = d;
        }
        if (sh->ndim == 0 || bytes <= UPLOAD_CHUNK_BYTES || chunk[big] == 1) return;
        chunk[big] = (chunk[big] + 1) / 2;
    }
}

/* Copies the box at off with lengths len out of the C-order array src
 * (shape sh) into dst, contiguous. */
static void copy_box(const char *src, const shape_t *sh, size_t isz, const int64_t *off,
                     const int64_t *len, char *dst)
{
    int nd = sh->ndim;
    if (nd == 0) {
        memcpy(dst, src, isz);
        return;
    }
    int64_t total = 1;
    for (int d = 0; d < nd; d++)
        total *= len[d];
    if (total == 0) return;
    int64_t stride[MR_MAXDIM], idx[MR_MAXDIM] = {0};
    stride[nd - 1] = 1;
    for (int d = nd - 2; d >= 0; d--)
        stride[d] = stride[d + 1] * sh->d[d + 1];
    size_t row = (size_t)len[nd - 1] * isz;
    for (;;) {
        int64_t at = 0;
        for (int d = 0; d < nd; d++)
            at += (off[d] + idx[d]) * stride[d];
        memcpy(dst, src + at * (int64_t)isz, row);
        dst += row;
        int d = nd - 2;
        while (d >= 0 && ++idx[d] == len[d])
            idx[d--] = 0;
        if (d < 0) return;
    }
}

void gw_del_keys(rq_t *rq, char **keys, int64_t n)
{
    char err[256];
    if (!rq) return;
    for (int64_t i0 = 0; i0 < n; i0 += PIPE_CMDS) {
        int64_t m = n - i0 < PIPE_CMDS ? n - i0 : PIPE_CMDS;
        for (int64_t i = 0; i < m; i++)
            rq_append(rq, err, sizeof err, "DEL %s", keys[i0 + i]);
        if (rq_flush(rq, err, sizeof err)) {
            log_warning("freeing %lld chunk keys: %s", (long long)n, err);
            return;
        }
    }
}

/* Fills s's grid for an array of shape sh: chunk lengths per axis, chunk
 * keys "chunk:up:<random id>:<index>" in C order; *most gets the largest
 * chunk's bytes. */
static void grid_fill(const char *key, dtype_t dt, const shape_t *sh, const int64_t *chunk,
                      plan_src_t *s, int64_t *most)
{
    snprintf(s->key, sizeof s->key, "%s", key);
    s->shape = *sh;
    s->dt = dt;
    s->n_keys = 1;
    for (int d = 0; d < sh->ndim; d++) {
        int64_t ext = sh->d[d];
        s->nch[d] = ext == 0 ? 1 : (ext + chunk[d] - 1) / chunk[d];
        s->bounds[d] = malloc(sizeof(int64_t) * (size_t)(s->nch[d] + 1));
        if (!s->bounds[d]) abort();
        for (int64_t i = 0; i <= s->nch[d]; i++)
            s->bounds[d][i] = i * chunk[d] < ext ? i * chunk[d] : ext;
        s->n_keys *= s->nch[d];
    }
}

static void grid_keys(plan_src_t *s, int64_t *most)
{
    char id[33];
    svc_random_id(id);
    s->chunk_keys = calloc((size_t)s->n_keys, sizeof *s->chunk_keys);
    if (!s->chunk_keys) abort();
    *most = 0;
    for (int64_t li = 0; li < s->n_keys; li++) {
        char key[128];
        snprintf(key, sizeof key, "chunk:up:%s:%lld", id, (long long)li);
        s->chunk_keys[li] = strdup(key);
        if (!s->chunk_keys[li]) abort();
        if (chunk_bytes(s, li) > *most) *most = chunk_bytes(s, li);
    }
}

/* The grid of an upload: bounds per axis (chunk_size, or the default),
 * chunk keys in C order. 0, or -1 having answered. */
static int upload_grid(conns_t *c, const upload_arg_t *a, dtype_t dt, const shape_t *sh,
                       plan_src_t *s, int64_t *most, http_reply_t *out)
{
    int64_t chunk[MR_MAXDIM];
    if (a->n_chunk == 0)
        default_chunks(sh, dt, chunk);
    else if (a->n_chunk == 1 || a->n_chunk == sh->ndim)
        for (int d = 0; d < sh->ndim; d++)
            chunk[d] = a->chunk[a->n_chunk == 1 ? 0 : d];
    else {
        http_reply_error(out, 400, "invalid_request",
                         "chunk_size has %d lengths for a tensor of %d axes", a->n_chunk, sh->ndim);
        return -1;
    }
    grid_fill(a->key, dt, sh, chunk, s, most);
    if (s->n_keys > c->quota->max_chunks) {
        http_reply_error(out, 400, "invalid_request",
                         "%lld chunks, more than the %lld a tensor may have: use a larger "
                         "chunk_size",
                         (long long)s->n_keys, (long long)c->quota->max_chunks);
        return -1;
    }
    grid_keys(s, most);
    return 0;
}

/* SETs the chunks, pipelined, each copied out of the body into buf
 * (hiredis copies the value into its output buffer at append, so one
 * buffer serves every chunk). Uploads stay in Redis: nothing could make
 * them again (docs/cluster-protocol.md, "Data plane"). 0, or -1 with err. */
static int upload_store(conns_t *c, const plan_src_t *s, const void *data, char *buf, char *err,
                        size_t errlen)
{
    int queued = 0;
    size_t queued_bytes = 0, isz = dt_size(s->dt);
    for (int64_t li = 0; li < s->n_keys; li++) {
        int64_t off[MR_MAXDIM], len[MR_MAXDIM], rest = li;
        for (int d = s->shape.ndim - 1; d >= 0; d--) {
            int64_t i = rest % s->nch[d];
            rest /= s->nch[d];
            off[d] = s->bounds[d][i];
            len[d] = s->bounds[d][i + 1] - s->bounds[d][i];
        }
        size_t cb = (size_t)chunk_bytes(s, li);
        copy_box(data, &s->shape, isz, off, len, buf);
        if (rq_append(c->rq, err, errlen, "SET %s %b", s->chunk_keys[li], buf, cb)) return -1;
        queued++;
        queued_bytes += cb;
        if (queued == PIPE_CMDS || queued_bytes >= PIPE_BYTES || li == s->n_keys - 1) {
            if (rq_flush(c->rq, err, errlen)) return -1;
            queued = 0;
            queued_bytes = 0;
        }
    }
    return 0;
}

int gw_store_array(conns_t *c, const char *key, dtype_t dt, const shape_t *sh, const void *data,
                   plan_src_t *s, char *err, size_t errlen)
{
    int64_t chunk[MR_MAXDIM], most;
    default_chunks(sh, dt, chunk);
    grid_fill(key, dt, sh, chunk, s, &most);
    grid_keys(s, &most);
    char *buf = malloc(most ? (size_t)most : 1);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = upload_store(c, s, data, buf, err, errlen);
    free(buf);
    if (rc) gw_del_keys(c->rq, s->chunk_keys, s->n_keys);
    return rc;
}

/* Frees the chunks of a replaced row that no row references any more
 * (another session's row or a task's may share none of an upload's, but a
 * task's may). */
void gw_free_replaced(conns_t *c, const char *sid, const char *key, PGresult *res)
{
    char err[512];
    int n_old = PQntuples(res);
    if (n_old == 0) return;
    json_t *olds = json_array();
    for (int i = 0; i < n_old; i++)
        json_array_append_new(olds, json_string(PQgetvalue(res, i, 0)));
    char *olds_s = json_dumps(olds, JSON_COMPACT);
    json_decref(olds);
    const char *op[] = {olds_s};
    PGresult *fr = db_query(c->db,
                            "SELECT k FROM json_array_elements_text($1::json) k"
                            " WHERE NOT EXISTS (SELECT 1 FROM tensors t"
                            "                   WHERE t.chunk_keys @> ARRAY[k])",
                            1, op, err, sizeof err);
    free(olds_s);
    if (!fr) {
        log_warning("tensor %s/%s: finding the replaced chunks: %s", sid, key, err);
        return;
    }
    int nf = PQntuples(fr);
    char **fk = malloc(sizeof *fk * (size_t)(nf ? nf : 1));
    if (!fk) abort();
    for (int i = 0; i < nf; i++)
        fk[i] = PQgetvalue(fr, i, 0);
    gw_free_chunks(c->rq, fk, nf);
    free(fk);
    PQclear(fr);
}

/* The tensors row, replacing one of the same key. 0, or -1 having
 * answered. */
static int upload_row(conns_t *c, const upload_arg_t *a, const plan_src_t *s, size_t nbytes,
                      http_reply_t *out)
{
    char err[512];
    json_t *srcj = plan_src_json(s);
    char *bounds = json_dumps(json_object_get(srcj, "bounds"), JSON_COMPACT);
    json_t *shape = json_array(), *keys = json_array();
    for (int d = 0; d < s->shape.ndim; d++)
        json_array_append_new(shape, json_integer(s->shape.d[d]));
    for (int64_t li = 0; li < s->n_keys; li++)
        json_array_append_new(keys, json_string(s->chunk_keys[li]));
    char *shape_s = json_dumps(shape, JSON_COMPACT), *keys_s = json_dumps(keys, JSON_COMPACT);
    json_decref(srcj);
    json_decref(shape);
    json_decref(keys);
    char nb[32];
    snprintf(nb, sizeof nb, "%zu", nbytes);
    const char *params[] = {a->sid, a->key, shape_s, dt_name(s->dt), bounds, keys_s, nb};
    PGresult *res = db_query(
        c->db,
        "WITH old AS (SELECT chunk_keys FROM tensors WHERE session_id = $1 AND key = $2),"
        " up AS (INSERT INTO tensors (session_id, key, task_id, shape, dtype, bounds,"
        "         chunk_keys, nbytes)"
        "   SELECT $1, $2, NULL,"
        "    ARRAY(SELECT json_array_elements_text($3::json)::bigint), $4, $5::jsonb,"
        "    ARRAY(SELECT json_array_elements_text($6::json)), $7::bigint"
        "   ON CONFLICT (session_id, key) DO UPDATE SET task_id = NULL, shape = EXCLUDED.shape,"
        "    dtype = EXCLUDED.dtype, bounds = EXCLUDED.bounds, chunk_keys = EXCLUDED.chunk_keys,"
        "    nbytes = EXCLUDED.nbytes, created_at = now())"
        " SELECT k FROM old, unnest(old.chunk_keys) k",
        7, params, err, sizeof err);
    free(bounds);
    free(shape_s);
    free(keys_s);
    if (!res) {
        if (strcmp(db_sqlstate(c->db), "23503") == 0)
            http_reply_error(out, 404, "not_found", "no session '%s'", a->sid);
        else
            gw_reply_db_error(out, c, "recording the tensor", err);
        return -1;
    }
    gw_free_replaced(c, a->sid, a->key, res);
    PQclear(res);
    return 0;
}

static void job_upload(void *state, void *arg, http_reply_t *out)
{
    conns_t *c = state;
    upload_arg_t *a = arg;
    char err[512];
    dtype_t dt;
    shape_t sh;
    const void *data;
    size_t nbytes;
    plan_src_t s;
    memset(&s, 0, sizeof s);
    if (npy_parse(a->body, a->len, &dt, &sh, &data, &nbytes, err, sizeof err)) {
        http_reply_error(out, 400, "invalid_npy", "the body is not a .npy this engine reads: %s",
                         err);
        return;
    }
    int64_t most;
    if (!gw_session_exists(out, c, a->sid)) return;
    if (!c->rq) {
        gw_reply_rq_error(out, "storing chunks", "bad redis URL");
        return;
    }
    if (upload_grid(c, a, dt, &sh, &s, &most, out)) goto grid;
    char *buf = malloc(most ? (size_t)most : 1);
    if (!buf) abort();
    if (upload_store(c, &s, data, buf, err, sizeof err)) {
        gw_reply_rq_error(out, "storing chunks", err);
        gw_del_keys(c->rq, s.chunk_keys, s.n_keys);
    } else if (upload_row(c, a, &s, nbytes, out)) {
        gw_del_keys(c->rq, s.chunk_keys, s.n_keys);
    } else {
        http_reply_json(out, 201, tensor_json(&s, (int64_t)nbytes));
    }
    free(buf);
grid:
    plan_src_close(&s);
}

void gw_h_upload_tensor(http_req_t *r)
{
    id_arg_t sid;
    if (!gw_take_id(r, 0, "session", &sid)) return;
    const char *key = http_query(r, "key");
    const char *cs = http_query(r, "chunk_size");
    if (!key || !valid_key(key)) {
        gw_send_error(r, 400, "invalid_request",
                      "key=K is required: 1-128 characters of [A-Za-z0-9_.-]");
        return;
    }
    int64_t chunk[MR_MAXDIM];
    int n_chunk = 0;
    if (cs && (n_chunk = parse_chunk_size(cs, chunk)) < 0) {
        gw_send_error(r, 400, "invalid_request",
                      "chunk_size must be a positive integer or a comma list of them, one per "
                      "axis");
        return;
    }
    size_t len;
    const char *body = http_body(r, &len);
    upload_arg_t *a = malloc(sizeof *a + len);
    if (!a) abort();
    memset(a, 0, sizeof *a);
    memcpy(a->sid, sid.id, sizeof a->sid);
    snprintf(a->key, sizeof a->key, "%s", key);
    a->n_chunk = n_chunk;
    memcpy(a->chunk, chunk, sizeof(int64_t) * (size_t)n_chunk);
    a->len = len;
    memcpy(a->body, body, len);
    http_defer(r, job_upload, a, sizeof *a + len);
    free(a);
}

/* ---- PUT /api/v1/files/{name} -------------------------------------------- */

typedef struct file_arg {
    char name[FILE_NAME_MAX + 1];
    size_t len;
    char body[];
} file_arg_t;

static bool valid_file_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > FILE_NAME_MAX || strstr(s, "..")) return false;
    for (; *s; s++) {
        char ch = *s;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '.' || ch == '-'))
            return false;
    }
    return true;
}

static void job_put_file(void *state, void *arg, http_reply_t *out)
{
    conns_t *c = state;
    file_arg_t *a = arg;
    char err[512];
    if (!c->rq) {
        gw_reply_rq_error(out, "storing a file", "bad redis URL");
        return;
    }
    char dg[64];
    plan_file_digest(a->body, a->len, dg, sizeof dg);
    /* the file and its digest in one command (plan_file_local reads the digest) */
    redisReply *rr = rq_command(c->rq, err, sizeof err, "MSET file:%s %b filesum:%s %s", a->name,
                                a->body, a->len, a->name, dg);
    if (!rr) {
        gw_reply_rq_error(out, "storing a file", err);
        return;
    }
    freeReplyObject(rr);
    http_reply_json(out, 201,
                    json_pack("{s:s,s:I}", "name", a->name, "nbytes", (json_int_t)a->len));
}

void gw_h_put_file(http_req_t *r)
{
    const char *name = http_param(r, 0);
    if (!valid_file_name(name)) {
        gw_send_error(r, 400, "invalid_request",
                      "a file name is 1-255 characters of [A-Za-z0-9._-], without \"..\"");
        return;
    }
    size_t len;
    const char *body = http_body(r, &len);
    file_arg_t *a = malloc(sizeof *a + len);
    if (!a) abort();
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->len = len;
    memcpy(a->body, body, len);
    http_defer(r, job_put_file, a, sizeof *a + len);
    free(a);
}
