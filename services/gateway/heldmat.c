/* heldmat.c: a held result named by a later task becomes an ordinary tensor.
 *
 * A result whose length is known only when it runs (a boolean mask,
 * compress, nonzero, unique, a filtered DataFrame's to_tensor...) is kept
 * as frame blobs, and its tensors row says "frame-tensor" with the blobs as
 * a 1-D grid: no document can take it as an input, since its shape is not
 * known when the document is validated. Once its task has run, the length
 * is known. So when a later document of the session names it, the gateway
 * reads the blobs, lays their rows out as a C-order array, stores that as
 * an upload's chunks (the default grid) and rewrites the row: from then on
 * it is a session tensor like any other, for validation, the supervisor
 * and the workers (docs/graph-format.md, "Results whose length is data").
 *
 * The whole value is held in memory once while it is converted, as a
 * download of it already does; a held result is bounded when it is made
 * (FANCY_MAX_BYTES and the held ops' own limits). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "df/dfexec.h"
#include "df/frame.h"
#include "dtype.h"
#include "gateway_internal.h"
#include "log.h"
#include "plan.h"

#define LOG_MODULE "gateway"

/* A lost blob is made again while the conversion waits this long. */
#define HELD_LOST_WAIT_MS 120000

/* The row's old chunks, now no row's, are freed (as a replaced upload's). */
static void free_old(conns_t *c, const char *sid, const char *key, const char *old_keys)
{
    char err[256];
    const char *p[] = {old_keys};
    PGresult *r = db_query(c->db, "SELECT unnest($1::text[])", 1, p, err, sizeof err);
    if (!r) {
        log_warning("tensor %s/%s: listing the held blobs: %s", sid, key, err);
        return;
    }
    gw_free_replaced(c, sid, key, r);
    PQclear(r);
}

/* Rewrites the row if it is still the held result we read (old_keys): 1
 * done, 0 someone else did, -1 database error. */
static int swap_row(conns_t *c, const char *sid, const char *key, const char *old_keys,
                    const plan_src_t *s, size_t nbytes, char *err, size_t errlen)
{
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
    if (!bounds || !shape_s || !keys_s) abort();
    char nb[32];
    snprintf(nb, sizeof nb, "%zu", nbytes);
    const char *p[] = {sid, key, shape_s, dt_name(s->dt), bounds, keys_s, nb, old_keys};
    PGresult *r = db_query(c->db,
                           "UPDATE tensors SET task_id = NULL,"
                           " shape = ARRAY(SELECT json_array_elements_text($3::json)::bigint),"
                           " dtype = $4, bounds = $5::jsonb,"
                           " chunk_keys = ARRAY(SELECT json_array_elements_text($6::json)),"
                           " nbytes = $7::bigint, created_at = now()"
                           " WHERE session_id = $1 AND key = $2 AND dtype = 'frame-tensor'"
                           "   AND chunk_keys = $8::text[] RETURNING 1",
                           8, p, err, errlen);
    free(bounds);
    free(shape_s);
    free(keys_s);
    if (!r) return -1;
    int done = PQntuples(r) == 1;
    PQclear(r);
    return done;
}

/* 1 when the row is still the held result with these blobs, 0 not, -1. */
static int still_held(conns_t *c, const char *sid, const char *key, const char *old_keys)
{
    char err[256];
    const char *p[] = {sid, key, old_keys};
    PGresult *r = db_query(c->db,
                           "SELECT 1 FROM tensors WHERE session_id = $1 AND key = $2"
                           " AND dtype = 'frame-tensor' AND chunk_keys = $3::text[]",
                           3, p, err, sizeof err);
    if (!r) return -1;
    int n = PQntuples(r);
    PQclear(r);
    return n == 1;
}

int gw_materialize_held(conns_t *c, const char *sid, const char *key, bool *db_failed, char *err,
                        size_t errlen)
{
    const char *p[] = {sid, key};
    PGresult *res = db_query(c->db,
                             "SELECT json_build_object('shape', shape, 'dtype', 'bool',"
                             " 'bounds', bounds, 'chunk_keys', chunk_keys)::text, chunk_keys::text"
                             " FROM tensors WHERE session_id = $1 AND key = $2"
                             " AND dtype = 'frame-tensor'",
                             2, p, err, errlen);
    if (!res) {
        *db_failed = true;
        return -1;
    }
    if (PQntuples(res) == 0) {
        PQclear(res);
        return 0;
    }
    json_error_t je;
    json_t *o = json_loads(PQgetvalue(res, 0, 0), 0, &je);
    char *old_keys = strdup(PQgetvalue(res, 0, 1));
    PQclear(res);
    plan_src_t s, ns;
    memset(&s, 0, sizeof s);
    memset(&ns, 0, sizeof ns);
    snprintf(s.key, sizeof s.key, "%s", key);
    int rc = -1;
    gw_loc_t *locs = NULL;
    frame_t f;
    bool have_f = false;
    void *data = NULL;
    if (!o || !old_keys || plan_src_parse(o, &s, err, errlen)) {
        if (!o) snprintf(err, errlen, "tensor \"%s\": a bad row: %s", key, je.text);
        goto out;
    }
    if (!c->rq) {
        snprintf(err, errlen, "reading the held result \"%s\": bad redis URL", key);
        goto out;
    }
    locs = calloc((size_t)(s.n_keys ? s.n_keys : 1), sizeof *locs);
    if (!locs) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    int ok = gw_locate_chunks(c, &s, locs, HELD_LOST_WAIT_MS, err, errlen);
    if (ok <= 0 || gw_frame_read(c, &s, locs, &f, s.n_keys, err, errlen)) {
        /* another request may have converted it and freed the blobs */
        if (still_held(c, sid, key, old_keys) == 0) rc = 1;
        goto out;
    }
    have_f = true;
    dtype_t dt;
    shape_t sh;
    size_t nbytes;
    data = dfx_frame_rows(&f, f.series ? 1 : 2, &dt, &sh, &nbytes, err, errlen);
    if (!data || gw_store_array(c, key, dt, &sh, data, &ns, err, errlen)) goto out;
    int sw = swap_row(c, sid, key, old_keys, &ns, nbytes, err, errlen);
    if (sw <= 0) {
        gw_del_keys(c->rq, ns.chunk_keys, ns.n_keys);
        if (sw < 0) *db_failed = true;
        rc = sw < 0 ? -1 : 1;
        goto out;
    }
    log_info("session %s: held result \"%s\" is now a tensor of %lld rows", sid, key,
             (long long)sh.d[0]);
    free_old(c, sid, key, old_keys);
    rc = 1;
out:
    if (have_f) frame_free(&f);
    free(data);
    free(locs);
    free(old_keys);
    json_decref(o);
    plan_src_close(&s);
    plan_src_close(&ns);
    return rc;
}
