/* plan.c: task plans (see plan.h). */
#include "plan.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "df/csv.h"
#include "df/frame.h"
#include "chunkget.h"
#include "rq.h"

void plan_src_close(plan_src_t *s)
{
    for (int d = 0; d < MR_MAXDIM; d++) {
        free(s->bounds[d]);
        s->bounds[d] = NULL;
    }
    for (int64_t i = 0; s->chunk_keys && i < s->n_keys; i++)
        free(s->chunk_keys[i]);
    free(s->chunk_keys);
    s->chunk_keys = NULL;
    s->n_keys = 0;
    free(s->schema);
    s->schema = NULL;
}

static const char *const frame_dtypes[] = {NULL, "dataframe", "series"};

int plan_src_parse(json_t *obj, plan_src_t *out, char *err, size_t errlen)
{
    json_t *shape = json_object_get(obj, "shape"), *dt = json_object_get(obj, "dtype");
    json_t *bounds = json_object_get(obj, "bounds"), *keys = json_object_get(obj, "chunk_keys");
    char key[GRAPH_KEY_MAX + 1];
    memcpy(key, out->key, sizeof key);
    memset(out, 0, sizeof *out);
    memcpy(out->key, key, sizeof key);
    for (int k = 1; k <= 2 && json_is_string(dt); k++)
        if (!strcmp(json_string_value(dt), frame_dtypes[k])) out->frame = k;
    json_t *sch = json_object_get(obj, "schema");
    if (out->frame && json_is_string(sch) && !(out->schema = strdup(json_string_value(sch)))) {
        snprintf(err, errlen, "session tensor \"%s\": out of memory", key);
        return -1;
    }
    if (!json_is_array(shape) || !json_is_string(dt) || !json_is_array(bounds) ||
        !json_is_array(keys) || json_array_size(shape) > MR_MAXDIM ||
        json_array_size(bounds) != json_array_size(shape) ||
        (out->frame ? (out->dt = DT_BOOL, 0) : dt_parse(json_string_value(dt), &out->dt))) {
        plan_src_close(out);
        snprintf(err, errlen, "session tensor \"%s\": malformed description", key);
        return -1;
    }
    out->shape.ndim = (int)json_array_size(shape);
    int64_t total = 1;
    for (int d = 0; d < out->shape.ndim; d++) {
        json_t *b = json_array_get(bounds, (size_t)d);
        out->shape.d[d] = json_integer_value(json_array_get(shape, (size_t)d));
        size_t nb = json_is_array(b) ? json_array_size(b) : 0;
        if (out->shape.d[d] < 0 || nb < 2) goto bad;
        out->nch[d] = (int64_t)nb - 1;
        out->bounds[d] = malloc(sizeof(int64_t) * nb);
        if (!out->bounds[d]) goto bad;
        for (size_t i = 0; i < nb; i++) {
            json_t *v = json_array_get(b, i);
            if (!json_is_integer(v)) goto bad;
            out->bounds[d][i] = json_integer_value(v);
            if (i > 0 && out->bounds[d][i] < out->bounds[d][i - 1]) goto bad;
        }
        if (out->bounds[d][0] != 0 || out->bounds[d][nb - 1] != out->shape.d[d]) goto bad;
        total *= out->nch[d];
    }
    if ((int64_t)json_array_size(keys) != total) goto bad;
    out->chunk_keys = calloc((size_t)(total ? total : 1), sizeof(char *));
    if (!out->chunk_keys) goto bad;
    out->n_keys = total;
    for (int64_t i = 0; i < total; i++) {
        json_t *v = json_array_get(keys, (size_t)i);
        if (!json_is_string(v) || !(out->chunk_keys[i] = strdup(json_string_value(v)))) goto bad;
    }
    return 0;
bad:
    plan_src_close(out);
    snprintf(err, errlen, "session tensor \"%s\": inconsistent shape, bounds or chunk keys", key);
    return -1;
}

json_t *plan_src_json(const plan_src_t *s)
{
    json_t *shape = json_array(), *bounds = json_array(), *keys = json_array();
    for (int d = 0; d < s->shape.ndim; d++) {
        json_array_append_new(shape, json_integer(s->shape.d[d]));
        json_t *b = json_array();
        for (int64_t i = 0; i <= s->nch[d]; i++)
            json_array_append_new(b, json_integer(s->bounds[d][i]));
        json_array_append_new(bounds, b);
    }
    for (int64_t i = 0; i < s->n_keys; i++)
        json_array_append_new(keys, json_string(s->chunk_keys[i]));
    json_t *o = json_pack("{s:o,s:s,s:o,s:o}", "shape", shape, "dtype",
                          s->frame ? frame_dtypes[s->frame] : dt_name(s->dt), "bounds", bounds,
                          "chunk_keys", keys);
    if (o && s->schema) json_object_set_new(o, "schema", json_string(s->schema));
    return o;
}

int plan_init(plan_t *p, const char *owner, const char *doc, size_t len)
{
    memset(p, 0, sizeof *p);
    snprintf(p->owner, sizeof p->owner, "%s", owner);
    p->doc = malloc(len + 1);
    if (!p->doc) return -1;
    memcpy(p->doc, doc, len);
    p->doc[len] = '\0';
    p->doc_len = len;
    return 0;
}

static plan_src_t *src_find(plan_t *p, const char *key)
{
    for (int i = 0; i < p->n_src; i++)
        if (strcmp(p->src[i].key, key) == 0) return &p->src[i];
    return NULL;
}

static plan_src_t *src_add(plan_t *p)
{
    if (p->n_src == p->cap_src) {
        int cap = p->cap_src ? p->cap_src * 2 : 4;
        plan_src_t *n = realloc(p->src, sizeof *n * (size_t)cap);
        if (!n) return NULL;
        p->src = n;
        p->cap_src = cap;
    }
    plan_src_t *s = &p->src[p->n_src];
    memset(s, 0, sizeof *s);
    return s;
}

int plan_parse(plan_t *p, const char *text, size_t len, char *err, size_t errlen)
{
    json_error_t je;
    memset(p, 0, sizeof *p);
    json_t *root = json_loadb(text, len, 0, &je);
    json_t *owner = json_object_get(root, "owner"), *doc = json_object_get(root, "doc");
    json_t *srcs = json_object_get(root, "sources");
    if (!json_is_string(owner) || !json_is_object(doc) || (srcs && !json_is_object(srcs))) {
        snprintf(err, errlen, "plan: malformed (%s)",
                 root ? "missing owner, doc or sources" : je.text);
        json_decref(root);
        return -1;
    }
    snprintf(p->owner, sizeof p->owner, "%s", json_string_value(owner));
    p->doc = json_dumps(doc, JSON_COMPACT);
    if (!p->doc) goto oom;
    p->doc_len = strlen(p->doc);
    const char *k;
    json_t *v;
    json_object_foreach(srcs, k, v)
    {
        plan_src_t *s = src_add(p);
        if (!s) goto oom;
        snprintf(s->key, sizeof s->key, "%s", k);
        if (plan_src_parse(v, s, err, errlen)) {
            json_decref(root);
            plan_close(p);
            return -1;
        }
        p->n_src++;
    }
    json_decref(root);
    return 0;
oom:
    snprintf(err, errlen, "plan: out of memory");
    json_decref(root);
    plan_close(p);
    return -1;
}

static int lookup(void *ctx, const char *key, shape_t *shape, dtype_t *dt, int64_t chunk[MR_MAXDIM])
{
    plan_t *p = ctx;
    plan_src_t *s = src_find(p, key);
    if (!s && p->load) {
        s = src_add(p);
        if (!s) return -1;
        snprintf(s->key, sizeof s->key, "%s", key);
        if (p->load(p->load_ctx, key, s)) return -1;
        p->n_src++;
    }
    if (!s) return -1;
    *shape = s->shape;
    *dt = s->dt;
    for (int d = 0; d < s->shape.ndim; d++) {
        int64_t c = s->bounds[d][1] - s->bounds[d][0];
        chunk[d] = c > 0 ? c : 1;
    }
    return 0;
}

/* [name, is_int, type]: type's high nibble is an INT64 column's unit
 * (frame.h's FU_*), as in frame blobs */
static json_t *schema_cols(const flabel_t *names, const fcol_t *cols, int n)
{
    json_t *a = json_array();
    for (int k = 0; a && k < n; k++)
        json_array_append_new(
            a, json_pack("[o,b,i]", names[k].s ? json_string(names[k].s) : json_null(),
                         names[k].is_int, (int)(cols[k].type | cols[k].unit << 4)));
    return a;
}

/* The schema of frame source s from its first chunk, wherever it lives
 * (chunkget.h; files_rq: the queue). 0, or -1. */
static int load_schema(plan_t *p, plan_src_t *s)
{
    if (!p->files_rq || s->n_keys < 1) return -1;
    char err[512];
    void *buf = NULL; /* malloc'ed: 8-aligned, as frame_view wants */
    size_t n = 0;
    if (chunk_get_whole(p->files_rq, p->token, s->chunk_keys[0], (uint64_t)1 << 40, &buf, &n, err,
                        sizeof err))
        return -1;
    int rc = -1;
    frame_t f = {0};
    if (frame_view(buf, n, &f, err, sizeof err) == 0) {
        json_t *o = json_pack("{s:b,s:o,s:o}", "series", f.series, "columns",
                              schema_cols(f.names, f.cols, f.ncols), "index",
                              schema_cols(f.idx_names, f.idx, f.nidx));
        s->schema = o ? json_dumps(o, JSON_COMPACT) : NULL;
        json_decref(o);
        rc = s->schema ? 0 : -1;
        frame_free(&f);
    }
    free(buf);
    return rc;
}

static const char *frame_schema(void *ctx, const char *key)
{
    plan_t *p = ctx;
    plan_src_t *s = src_find(p, key);
    if (!s || !s->frame) return NULL;
    if (!s->schema && load_schema(p, s)) return "";
    return s->schema;
}

static int source_bounds(void *ctx, const graph_node_t *n, int64_t *nch, const int64_t **bounds)
{
    plan_t *p = ctx;
    plan_src_t *s = src_find(p, n->key);
    if (!s) return -1;
    for (int d = 0; d < s->shape.ndim; d++) {
        nch[d] = s->nch[d];
        bounds[d] = s->bounds[d];
    }
    return 0;
}

static uint64_t fnv1a(const void *buf, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ ((const unsigned char *)buf)[i]) * 1099511628211ull;
    return h;
}

void plan_file_digest(const void *buf, size_t len, char *out, size_t outlen)
{
    snprintf(out, outlen, "%016llx:%zu", (unsigned long long)fnv1a(buf, len), len);
}

/* The local copy's path for content hash h; 0, or -1 with err. */
static int local_path(const char *name, uint64_t h, char *path, size_t pathlen, char *err,
                      size_t errlen)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/mars-files-%d", tmp && *tmp ? tmp : "/tmp", (int)getuid());
    if (mkdir(dir, 0700) && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    if (snprintf(path, pathlen, "%s/%s.%016llx", dir, name, (unsigned long long)h) >=
        (int)pathlen) {
        snprintf(err, errlen, "path '%.200s': too long", name);
        return -1;
    }
    return 0;
}

int plan_file_local(void *rq, const char *name, char *path, size_t pathlen, char *err,
                    size_t errlen)
{
    struct stat st;
    /* the digest first: a local copy of it needs no transfer */
    redisReply *dg = rq_command(rq, err, errlen, "GET filesum:%s", name);
    if (!dg) return -1;
    unsigned long long dh;
    size_t dlen;
    char tail;
    bool have =
        dg->type == REDIS_REPLY_STRING && sscanf(dg->str, "%16llx:%zu%c", &dh, &dlen, &tail) == 2;
    freeReplyObject(dg);
    if (have && local_path(name, dh, path, pathlen, err, errlen) == 0 && stat(path, &st) == 0 &&
        (size_t)st.st_size == dlen)
        return 0;
    redisReply *rep = rq_command(rq, err, errlen, "GET file:%s", name);
    if (!rep) return -1;
    if (rep->type != REDIS_REPLY_STRING) {
        freeReplyObject(rep);
        snprintf(err, errlen,
                 "path '%.200s': no uploaded file of that name (upload it with PUT "
                 "/api/v1/files/%.200s)",
                 name, name);
        return -1;
    }
    if (local_path(name, fnv1a(rep->str, rep->len), path, pathlen, err, errlen)) {
        freeReplyObject(rep);
        return -1;
    }
    char tmpf[1200];
    int rc = 0;
    if (stat(path, &st) != 0 || (size_t)st.st_size != rep->len) {
        /* written apart, then renamed: a reader never sees half a file */
        snprintf(tmpf, sizeof tmpf, "%s.tmp%d.%lx", path, (int)getpid(),
                 (unsigned long)pthread_self());
        FILE *f = fopen(tmpf, "wb");
        if (!f || fwrite(rep->str, 1, rep->len, f) != rep->len || fclose(f) || rename(tmpf, path)) {
            snprintf(err, errlen, "writing a local copy of '%.200s': %s", name, strerror(errno));
            unlink(tmpf);
            rc = -1;
        }
    }
    freeReplyObject(rep);
    return rc;
}

static int plan_file(void *ctx, const char *name, char *path, size_t pathlen, char *err,
                     size_t errlen)
{
    plan_t *p = ctx;
    if (!p->files_rq) {
        snprintf(err, errlen, "path '%.200s': files cannot be read here", name);
        return -1;
    }
    return plan_file_local(p->files_rq, name, path, pathlen, err, errlen);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* read_csv over a pattern: the uploaded files whose names match it (Redis
 * SCAN of file:<pattern>; Redis matches *, ? and [...] as glob(3) does),
 * sorted by name. */
static int plan_list(void *ctx, const char *pattern, char ***names, int *n, char *err,
                     size_t errlen)
{
    plan_t *p = ctx;
    *names = NULL;
    *n = 0;
    if (!p->files_rq) {
        snprintf(err, errlen, "path '%.200s': files cannot be read here", pattern);
        return -1;
    }
    for (const char *c = pattern; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("._-*?[]!^", *c)) {
            snprintf(err, errlen,
                     "path '%.200s': uploaded file names are [A-Za-z0-9._-]; a pattern over them "
                     "adds only *, ? and [...]",
                     pattern);
            return -1;
        }
    char cursor[32] = "0", **out = NULL;
    int m = 0, cap = 0;
    do {
        redisReply *r = rq_command(p->files_rq, err, errlen, "SCAN %s MATCH file:%s COUNT 1000",
                                   cursor, pattern);
        if (!r) goto fail;
        if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 || !r->element[0]->str ||
            r->element[1]->type != REDIS_REPLY_ARRAY) {
            freeReplyObject(r);
            snprintf(err, errlen, "listing uploaded files: unexpected reply");
            goto fail;
        }
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        const redisReply *ks = r->element[1];
        for (size_t i = 0; i < ks->elements; i++) {
            const char *k = ks->element[i]->str;
            if (!k || strncmp(k, "file:", 5) != 0) continue;
            if (m == cap) {
                cap = cap ? cap * 2 : 64;
                char **o2 = cap > CSV_GLOB_MAX_FILES * 2
                                ? NULL
                                : realloc(out, sizeof(char *) * (size_t)cap);
                if (!o2) {
                    freeReplyObject(r);
                    snprintf(err, errlen, "path '%.200s': more than %d files match", pattern,
                             CSV_GLOB_MAX_FILES);
                    goto fail;
                }
                out = o2;
            }
            if (!(out[m] = strdup(k + 5))) {
                freeReplyObject(r);
                snprintf(err, errlen, "out of memory");
                goto fail;
            }
            m++;
        }
        freeReplyObject(r);
    } while (strcmp(cursor, "0") != 0);
    if (m > 1) qsort(out, (size_t)m, sizeof *out, cmp_name);
    *names = out;
    *n = m;
    return 0;
fail:
    for (int i = 0; i < m; i++)
        free(out[i]);
    free(out);
    return -1;
}

int plan_graph(plan_t *p, char *err, size_t errlen)
{
    graph_limits_t lim;
    graph_limits_default(&lim);
    if (p->quota) lim = *p->quota;
    /* in the cluster read_csv reads uploaded files only (plan_file) */
    graph_session_t sess = {.ctx = p,
                            .lookup = lookup,
                            .file = plan_file,
                            .list = plan_list,
                            .frame_schema = frame_schema};
    if (graph_parse(p->doc, p->doc_len, &lim, &sess, &p->g, err, errlen)) return -1;
    p->node_src = malloc(sizeof(int) * (size_t)(p->g->n_nodes ? p->g->n_nodes : 1));
    if (!p->node_src) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < p->g->n_nodes; i++) {
        p->node_src[i] = -1;
        if (p->g->nodes[i].op != OP_SESSION_TENSOR) continue;
        plan_src_t *s = src_find(p, p->g->nodes[i].key);
        if (s) p->node_src[i] = (int)(s - p->src);
    }
    return 0;
}

int plan_tile(plan_t *p, char *err, size_t errlen)
{
    if (plan_graph(p, err, errlen)) return -1;
    graph_limits_t lim;
    graph_limits_default(&lim);
    if (p->quota) lim = *p->quota;
    tile_opts_t o;
    tile_opts_default(&o);
    o.source_bounds = source_bounds;
    o.source_ctx = p;
    if (p->sort_block_bytes > 0) o.sort_block_bytes = p->sort_block_bytes;
    return tile_build(p->g, &lim, &o, &p->t, err, errlen);
}

char *plan_dump(const plan_t *p)
{
    json_error_t je;
    json_t *doc = json_loadb(p->doc, p->doc_len, 0, &je);
    json_t *srcs = json_object();
    /* Only the sources the graph uses (a failed lookup may have left none). */
    for (int i = 0; i < p->n_src; i++)
        json_object_set_new(srcs, p->src[i].key, plan_src_json(&p->src[i]));
    json_t *root = json_pack("{s:s,s:o,s:o}", "owner", p->owner, "doc", doc ? doc : json_null(),
                             "sources", srcs);
    char *s = root ? json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    return s;
}

void plan_close(plan_t *p)
{
    if (p->t) tile_free(p->t);
    if (p->g) graph_free(p->g);
    for (int i = 0; i < p->n_src; i++)
        plan_src_close(&p->src[i]);
    free(p->src);
    free(p->doc);
    free(p->node_src);
    memset(p, 0, sizeof *p);
}

void plan_chunk_key(const plan_t *p, const char *tid, int32_t j, char *out, size_t cap)
{
    plan_chunk_key_of(p, p->t, tid, j, out, cap);
}

void plan_chunk_key_of(const plan_t *p, const tile_t *t, const char *tid, int32_t j, char *out,
                       size_t cap)
{
    if (tile_job_is_source(t, j)) {
        int si = p->node_src[tile_job_node(t, j)];
        int64_t x = tile_job_source_index(t, j);
        if (si >= 0 && x >= 0 && x < p->src[si].n_keys) {
            snprintf(out, cap, "%s", p->src[si].chunk_keys[x]);
            return;
        }
    }
    snprintf(out, cap, "chunk:%s:%d", tid, (int)tile_job_id(t, j));
}

int plan_fill_seeds(plan_t *p)
{
    int filled = 0;
    json_error_t je;
    json_t *doc = json_loadb(p->doc, p->doc_len, 0, &je);
    json_t *nodes = json_object_get(doc, "nodes");
    for (size_t i = 0; p->g && i < json_array_size(nodes); i++) {
        json_t *n = json_array_get(nodes, i);
        int gi = graph_find(p->g, json_string_value(json_object_get(n, "key")));
        if (gi < 0) continue;
        const graph_node_t *gn = &p->g->nodes[gi];
        if (op_kind(gn->op) != OPK_RANDOM || gn->has_seed || json_object_get(n, "seed")) continue;
        /* Drawn seeds are 63-bit (graph.c): they fit a JSON int64. */
        json_object_set_new(n, "seed", json_integer((json_int_t)gn->seed));
        filled++;
    }
    char *text = filled ? json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(doc);
    if (filled && !text) return -1;
    if (text) {
        free(p->doc);
        p->doc = text;
        p->doc_len = strlen(text);
    }
    return filled;
}
