/* stage.c: held results of a document run first (stage.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <jansson.h>

#include "df/dfexec.h"
#include "df/frame.h"
#include "exec.h"
#include "stage.h"

/* Chunks of a staged result handed to the final run: rows up to this many
 * bytes (the engine's default chunk target). */
#define STAGE_CHUNK_BYTES (16 << 20)

typedef struct {
    char key[GRAPH_KEY_MAX + 1];
    dtype_t dt;
    shape_t sh;
    char *data; /* C order */
    size_t nbytes;
    bool fetched; /* the document fetched it */
} staged_t;

struct stage {
    staged_t *v;
    int n, cap;
    graph_session_t sess;
};

static staged_t *find(const stage_t *st, const char *key)
{
    for (int i = 0; st && i < st->n; i++)
        if (!strcmp(st->v[i].key, key)) return &st->v[i];
    return NULL;
}

static int64_t rows_per_chunk(const staged_t *e)
{
    int64_t row = (int64_t)dt_size(e->dt) * (e->sh.ndim == 2 && e->sh.d[1] > 0 ? e->sh.d[1] : 1);
    int64_t r = STAGE_CHUNK_BYTES / row;
    if (r > e->sh.d[0]) r = e->sh.d[0];
    return r > 0 ? r : 1;
}

static int lookup(void *ctx, const char *key, shape_t *shape, dtype_t *dt, int64_t chunk[MR_MAXDIM])
{
    const staged_t *e = find(ctx, key);
    if (!e) return -1;
    *shape = e->sh;
    *dt = e->dt;
    chunk[0] = rows_per_chunk(e);
    if (e->sh.ndim == 2) chunk[1] = e->sh.d[1] > 0 ? e->sh.d[1] : 1;
    return 0;
}

const graph_session_t *stage_session(const stage_t *st)
{
    return st ? &st->sess : NULL;
}

int stage_source(void *ctx, const tile_t *t, int32_t job, void *dst, char *err, size_t errlen)
{
    const graph_t *g = t->g;
    const char *key = g->nodes[tile_job_node(t, job)].key;
    const staged_t *e = find(ctx, key);
    const int64_t *shape;
    int nd = tile_job_shape(t, job, &shape);
    if (!e || nd != e->sh.ndim || (nd == 2 && shape[1] != e->sh.d[1])) {
        snprintf(err, errlen, "internal: no staged chunk for session tensor \"%s\"", key);
        return -1;
    }
    /* chunks are whole rows: the grid position is the row block */
    int64_t li = tile_job_source_index(t, job), per = rows_per_chunk(e);
    size_t row = dt_size(e->dt) * (size_t)(nd == 2 ? e->sh.d[1] : 1);
    size_t off = (size_t)(li * per) * row, n = (size_t)shape[0] * row;
    if (li < 0 || off + n > e->nbytes) {
        snprintf(err, errlen, "internal: staged chunk %lld of \"%s\" out of range", (long long)li,
                 key);
        return -1;
    }
    if (n) memcpy(dst, e->data + off, n);
    return 0;
}

int stage_n_fetched(const stage_t *st)
{
    int k = 0;
    for (int i = 0; st && i < st->n; i++)
        k += st->v[i].fetched;
    return k;
}

const char *stage_fetched(const stage_t *st, int i, dtype_t *dt, shape_t *sh, const void **data,
                          size_t *nbytes)
{
    for (int k = 0; st && k < st->n; k++) {
        const staged_t *e = &st->v[k];
        if (!e->fetched || i-- > 0) continue;
        *dt = e->dt;
        *sh = e->sh;
        *data = e->data;
        *nbytes = e->nbytes;
        return e->key;
    }
    return NULL;
}

void stage_free(stage_t *st)
{
    if (!st) return;
    for (int i = 0; i < st->n; i++)
        free(st->v[i].data);
    free(st->v);
    free(st);
}

/* ---- the document ------------------------------------------------------- */

static const char *node_key(json_t *node)
{
    return json_string_value(json_object_get(node, "key"));
}

/* {key or output key: node index} of the document's nodes. */
static json_t *makers(json_t *nodes)
{
    json_t *m = json_object();
    size_t i, j;
    json_t *n, *o;
    json_array_foreach(nodes, i, n)
    {
        const char *k = node_key(n);
        if (k && m) json_object_set_new(m, k, json_integer((json_int_t)i));
        json_array_foreach(json_object_get(n, "outputs"), j, o)
        {
            if (json_is_string(o) && m)
                json_object_set_new(m, json_string_value(o), json_integer((json_int_t)i));
        }
    }
    return m;
}

static int maker_in(json_t *m, const char *key)
{
    json_t *v = json_object_get(m, key);
    return v ? (int)json_integer_value(v) : -1;
}

static int maker(json_t *nodes, const char *key)
{
    json_t *m = makers(nodes);
    int at = maker_in(m, key);
    json_decref(m);
    return at;
}

/* Marks in keep[] the maker of key and all it reads, in the document
 * (iteratively: documents may be long chains). -1 out of memory. */
static int closure(json_t *nodes, const char *key, bool *keep)
{
    json_t *m = makers(nodes);
    size_t nn = json_array_size(nodes);
    int *stack = malloc((nn + 1) * sizeof *stack);
    size_t sp = 0;
    if (!m || !stack) {
        json_decref(m);
        free(stack);
        return -1;
    }
    int at = maker_in(m, key);
    if (at >= 0) {
        keep[at] = true;
        stack[sp++] = at;
    }
    while (sp > 0) {
        size_t j;
        json_t *in, *ins = json_object_get(json_array_get(nodes, (size_t)stack[--sp]), "inputs");
        json_array_foreach(ins, j, in)
        {
            int k = json_is_string(in) ? maker_in(m, json_string_value(in)) : -1;
            if (k >= 0 && !keep[k]) {
                keep[k] = true;
                stack[sp++] = k;
            }
        }
    }
    json_decref(m);
    free(stack);
    return 0;
}

/* Writes a drawn seed into every random node that has none. */
static int fill_seeds(json_t *nodes, FILE *report, char *err, size_t errlen)
{
    size_t i;
    json_t *n;
    json_array_foreach(nodes, i, n)
    {
        op_t op;
        const char *name = json_string_value(json_object_get(n, "op"));
        if (!name || op_parse(name, &op) || op_kind(op) != OPK_RANDOM || json_object_get(n, "seed"))
            continue;
        uint64_t s;
        ssize_t got;
        do {
            got = getrandom(&s, sizeof s, 0);
        } while (got < 0 && errno == EINTR);
        if (got != (ssize_t)sizeof s) {
            snprintf(err, errlen, "cannot draw a seed");
            return -1;
        }
        s >>= 1; /* 63 bits, as graph.c draws them */
        json_object_set_new(n, "seed", json_integer((json_int_t)s));
        if (report)
            fprintf(report, "mars-run: node \"%s\" (%s): drew seed %llu\n",
                    node_key(n) ? node_key(n) : "?", name, (unsigned long long)s);
    }
    return 0;
}

static char *dump(json_t *root, size_t *len)
{
    char *s = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (s) *len = strlen(s);
    return s;
}

static staged_t *add(stage_t *st)
{
    if (st->n == st->cap) {
        int nc = st->cap ? 2 * st->cap : 4;
        staged_t *nv = realloc(st->v, (size_t)nc * sizeof *nv);
        if (!nv) return NULL;
        st->v = nv;
        st->cap = nc;
    }
    staged_t *e = &st->v[st->n];
    memset(e, 0, sizeof *e);
    return e;
}

typedef struct {
    const graph_limits_t *lim;
    const tile_opts_t *topts;
    int threads;
    stage_t *st;
    char *err;
    size_t errlen;
} sctx_t;

/* Runs the document of key's maker and its ancestors, fetching key, and
 * keeps key's value. 0, 2 (refused) or 1 (failed to run). */
static int run_one(sctx_t *c, json_t *root, const char *key, int depth);
static int drop_key(json_t *root, const char *key, bool *fetched);

/* Parses text; a refusal for a held input stages that input and retries.
 * 0 with *g, or 2 / 1. */
static int parse_staging(sctx_t *c, json_t *root, graph_t **g, int depth)
{
    int n_nodes = (int)json_array_size(json_object_get(root, "nodes"));
    for (int round = 0; round <= n_nodes; round++) {
        size_t len;
        char *text = dump(root, &len);
        if (!text) {
            snprintf(c->err, c->errlen, "document: out of memory");
            return 2;
        }
        char held[GRAPH_KEY_MAX + 1];
        int rc =
            graph_parse_held(text, len, c->lim, stage_session(c->st), g, held, c->err, c->errlen);
        free(text);
        if (rc == 0) return 0;
        if (!held[0] || depth > n_nodes) return 2;
        staged_t *e = find(c->st, held);
        if (!e) { /* runs it, then drops its maker from root */
            if ((rc = run_one(c, root, held, depth + 1))) return rc;
            continue;
        }
        /* staged by a sub-document already: this document drops it too */
        bool fetched;
        if (drop_key(root, held, &fetched)) return 2;
        e->fetched |= fetched;
    }
    return 2;
}

static int keep_value(sctx_t *c, const tile_t *t, const exec_result_t *res, int node,
                      const char *key)
{
    int64_t total = tile_grid_total(t, node);
    const void **blobs = calloc((size_t)(total > 0 ? total : 1), sizeof *blobs);
    size_t *lens = calloc((size_t)(total > 0 ? total : 1), sizeof *lens);
    frame_t f;
    int rc = 1;
    if (!blobs || !lens) {
        snprintf(c->err, c->errlen, "out of memory");
        goto done;
    }
    for (int64_t k = 0; k < total; k++) {
        blobs[k] = exec_result_chunk(res, tile_grid_job(t, node, k));
        lens[k] = exec_result_chunk_len(res, tile_grid_job(t, node, k));
    }
    if (dfx_assemble(blobs, lens, total, &f, c->err, c->errlen)) goto done;
    staged_t *e = add(c->st);
    if (!e) {
        frame_free(&f);
        snprintf(c->err, c->errlen, "out of memory");
        goto done;
    }
    e->data = dfx_frame_rows(&f, t->g->nodes[node].oshape.ndim, &e->dt, &e->sh, &e->nbytes, c->err,
                             c->errlen);
    frame_free(&f);
    if (!e->data) goto done;
    snprintf(e->key, sizeof e->key, "%s", key);
    c->st->n++;
    rc = 0;
done:
    free(blobs);
    free(lens);
    return rc;
}

/* The document without key's maker (or with key's place in its "outputs"
 * taken by an unused name), and without key in "fetch". */
static int drop_key(json_t *root, const char *key, bool *fetched)
{
    json_t *nodes = json_object_get(root, "nodes");
    int at = maker(nodes, key);
    if (at < 0) return -1;
    json_t *n = json_array_get(nodes, (size_t)at);
    json_t *outs = json_object_get(n, "outputs");
    if (outs) {
        char alt[GRAPH_KEY_MAX + 1];
        json_t *m = makers(nodes);
        for (int k = 0;; k++) {
            snprintf(alt, sizeof alt, "staged_%d", k);
            if (maker_in(m, alt) < 0) break;
        }
        json_decref(m);
        size_t j;
        json_t *o;
        json_array_foreach(outs, j, o)
        {
            if (json_is_string(o) && !strcmp(json_string_value(o), key))
                json_array_set_new(outs, j, json_string(alt));
        }
    } else {
        json_array_remove(nodes, (size_t)at);
    }
    json_t *fetch = json_object_get(root, "fetch");
    *fetched = false;
    for (size_t j = json_array_size(fetch); j-- > 0;)
        if (!strcmp(json_string_value(json_array_get(fetch, j)) ?: "", key)) {
            json_array_remove(fetch, j);
            *fetched = true;
        }
    return 0;
}

static int run_one(sctx_t *c, json_t *root, const char *key_in, int depth)
{
    char key[GRAPH_KEY_MAX + 1];
    snprintf(key, sizeof key, "%s", key_in);
    json_t *nodes = json_object_get(root, "nodes");
    size_t nn = json_array_size(nodes);
    bool *keep = calloc(nn + 1, sizeof *keep);
    json_t *sub = json_copy(root), *subn = json_array();
    int rc = 2;
    graph_t *g = NULL;
    tile_t *t = NULL;
    exec_result_t *res = NULL;
    if (!keep || !sub || !subn) {
        snprintf(c->err, c->errlen, "document: out of memory");
        goto done;
    }
    if (closure(nodes, key, keep)) {
        snprintf(c->err, c->errlen, "document: out of memory");
        goto done;
    }
    for (size_t i = 0; i < nn; i++)
        if (keep[i]) json_array_append(subn, json_array_get(nodes, i));
    json_object_set(sub, "nodes", subn);
    json_object_set_new(sub, "fetch", json_pack("[s]", key));
    /* the sub-document may itself take a held result: staged first */
    if ((rc = parse_staging(c, sub, &g, depth))) goto done;
    rc = 2;
    if (tile_build(g, c->lim, c->topts, &t, c->err, c->errlen)) goto done;
    rc = 1;
    exec_opts_t eo = {.threads = c->threads, .source = stage_source, .source_ctx = c->st};
    if (exec_run(t, &eo, &res, c->err, c->errlen)) goto done;
    int node = graph_find(g, key);
    if (node < 0 || keep_value(c, t, res, node, key)) {
        if (node < 0) snprintf(c->err, c->errlen, "internal: staged \"%s\" not found", key);
        goto done;
    }
    bool fetched = false;
    drop_key(root, key, &fetched);
    c->st->v[c->st->n - 1].fetched |= fetched;
    rc = 0;
done:
    exec_result_free(res);
    tile_free(t);
    graph_free(g);
    json_decref(subn);
    json_decref(sub);
    free(keep);
    return rc;
}

int stage_run(char **doc, size_t *len, const graph_limits_t *lim, const tile_opts_t *topts,
              int threads, FILE *seeds, graph_t **g, stage_t **out, char *err, size_t errlen)
{
    *g = NULL;
    *out = NULL;
    char held[GRAPH_KEY_MAX + 1];
    if (graph_parse_held(*doc, *len, lim, NULL, g, held, err, errlen) == 0) return 0;
    if (!held[0]) return 2;
    /* an op takes a held result of the document: stage */
    json_error_t je;
    json_t *root = json_loadb(*doc, *len, 0, &je);
    stage_t *st = calloc(1, sizeof *st);
    if (!root || !st) {
        json_decref(root);
        free(st);
        return 2; /* err says why already */
    }
    st->sess.ctx = st;
    st->sess.lookup = lookup;
    sctx_t c = {
        .lim = lim, .topts = topts, .threads = threads, .st = st, .err = err, .errlen = errlen};
    int rc = fill_seeds(json_object_get(root, "nodes"), seeds, err, errlen) ? 1 : 0;
    if (rc == 0 && json_array_size(json_object_get(root, "fetch")) > 0) {
        rc = parse_staging(&c, root, g, 0);
        /* every fetched key may have been staged: nothing more to run */
        if (rc == 2 && json_array_size(json_object_get(root, "fetch")) == 0) rc = 0;
    }
    if (rc == 0) {
        size_t nl;
        char *text = dump(root, &nl);
        if (text) {
            free(*doc);
            *doc = text;
            *len = nl;
        }
        *out = st;
    } else {
        graph_free(*g);
        *g = NULL;
        stage_free(st);
    }
    json_decref(root);
    return rc;
}
