/* plan.h: a task's plan: what a supervisor taking a task over needs to
 * tile it exactly as its owner did, and what workers parse once per task
 * (plan_graph: the graph their job descriptors refer to; they never tile)
 * (docs/cluster-protocol.md, mars:plan:<tid>):
 *   {"owner": "<supervisor id>", "doc": <document, seeds filled in>,
 *    "sources": {"<key>": {"shape": [...], "dtype": "...",
 *                          "bounds": [[...], ...], "chunk_keys": [...]}}}
 * Tiling uses the defaults (tile_opts_default, keep_all false) and
 * graph_limits_default, so that every process numbers the jobs alike.
 *
 * The supervisor fills sources as graph_parse asks for session tensors (a
 * loader reading the tensors table); workers take them from the plan text. */
#ifndef MARS_SVC_PLAN_H
#define MARS_SVC_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "graph.h"
#include "tile.h"

/* A session tensor a document reads. */
typedef struct plan_src {
    char key[GRAPH_KEY_MAX + 1];
    shape_t shape;
    dtype_t dt;
    int64_t nch[MR_MAXDIM];
    int64_t *bounds[MR_MAXDIM]; /* nch[d]+1 offsets each, owned */
    int64_t n_keys;
    char **chunk_keys; /* grid C order, owned */
    /* A DataFrame (1) or Series (2) of an earlier task (dtype text
     * "dataframe" or "series": a 1-D grid of frame blobs), 0 for a tensor;
     * schema: graph_session_t.frame_schema's JSON text (owned), read from
     * the first chunk when the source is loaded and carried in the plan so
     * that workers need not read it again. */
    int frame;
    char *schema;
} plan_src_t;

typedef struct plan {
    char owner[72];
    char *doc; /* the document text (owned) */
    size_t doc_len;
    int n_src, cap_src;
    plan_src_t *src;
    /* Supervisor: fills *out for a session tensor named key. 0, or -1 when
     * the session has none (or on error; the document is then rejected). */
    int (*load)(void *ctx, const char *key, plan_src_t *out);
    void *load_ctx;
    const graph_limits_t *quota; /* NULL: the engine's limits (set by the gateway) */
    /* The queue holding uploaded files (PUT /api/v1/files/{name} stores
     * file:<name>): dataframe.read_csv reads them through a local copy
     * (plan_file_local). NULL: read_csv is refused. An rq_t. */
    void *files_rq;
    /* The cluster's token, for reading a DataFrame source's first chunk
     * from its worker (its schema); NULL or "": none. */
    const char *token;
    int64_t sort_block_bytes; /* tile_opts_t's; 0: the default */
    graph_t *g;               /* after plan_tile */
    tile_t *t;
    int *node_src; /* per graph node: index into src, or -1 */
} plan_t;

/* Parses a source description ({"shape", "dtype", "bounds", "chunk_keys"})
 * into out (key set by the caller). 0, or -1 with err. */
int plan_src_parse(json_t *obj, plan_src_t *out, char *err, size_t errlen);
void plan_src_close(plan_src_t *s);
/* The description of s as a new JSON object. */
json_t *plan_src_json(const plan_src_t *s);

/* Initialises p for the document doc (copied). */
int plan_init(plan_t *p, const char *owner, const char *doc, size_t len);
/* Parses plan text (workers). 0, or -1 with err. */
int plan_parse(plan_t *p, const char *text, size_t len, char *err, size_t errlen);
/* graph_parse only (workers: jobs come as descriptors, msg.h MSG_JOBDESC):
 * p->g and the session tensors' indexes, no tile. 0, or -1 with err. */
int plan_graph(plan_t *p, char *err, size_t errlen);
/* graph_parse and tile_build as the protocol says. 0, or -1 with err (a
 * rejected document: the message names the node). */
int plan_tile(plan_t *p, char *err, size_t errlen);
/* After plan_tile: writes the seed graph_parse drew for every random node
 * that had none into p->doc, so that whoever re-tiles the document draws
 * the same values. Returns how many were filled, or -1 on OOM. */
int plan_fill_seeds(plan_t *p);
/* The plan as text (malloc'ed; NULL on OOM). */
char *plan_dump(const plan_t *p);
void plan_close(plan_t *p);

/* The uploaded file `name` (Redis file:<name>) as a local file, written
 * under $TMPDIR/mars-files-<uid>/ (default /tmp) named after its content's
 * hash, so that a file replaced by a new upload is a new local file and
 * one already there is reused (found by the digest alone: the content
 * crosses the network once per host). Writes its path. 0, or -1 with err (no
 * such upload: a message saying how to upload it). */
int plan_file_local(void *rq, const char *name, char *path, size_t pathlen, char *err,
                    size_t errlen);

/* An upload's digest, stored beside it (Redis filesum:<name>, set with
 * file:<name> in one MSET by PUT /api/v1/files): the content's FNV-1a
 * hash and its length, "%016llx:%zu". plan_file_local reads it first and
 * fetches the content only when no local copy of that digest exists. */
void plan_file_digest(const void *buf, size_t len, char *out, size_t outlen);

/* The chunk store key of job j's output: the session tensor's chunk for
 * JK_SOURCE jobs, else chunk:<tid>:<j>. */
void plan_chunk_key(const plan_t *p, const char *tid, int32_t j, char *out, size_t cap);
/* The same for job j of tile t (p->t, or a decoded job descriptor's:
 * tile_job_id gives the task's job index). */
void plan_chunk_key_of(const plan_t *p, const tile_t *t, const char *tid, int32_t j, char *out,
                       size_t cap);

#endif
