/* graph_df.c: validation and inference of the DataFrame ops (the DataFrames
 * section of graph-format.md) and of element-wise ops on Series and
 * DataFrames. Column names are checked against the input's columns and
 * read_csv's header and column types are read here, from the data
 * directory, so a document naming a missing column or file is refused
 * before anything runs. Types follow pandas 1.5 (see df/dfgraph.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "df/dfgraph.h"
#include "graph_internal.h"
#include "ufunc.h"

#define NFAIL(e, n, ...) graph_fail((e)->err, (e)->errlen, (n), __VA_ARGS__)
#define XFAIL(n, ...) graph_fail(err, errlen, (n), __VA_ARGS__)

const char *df_type_name(int t, bool has_na)
{
    switch (t) {
    case FT_INT64:
        return "int64";
    case FT_FLOAT64:
        return "float64";
    case FT_BOOL:
        return has_na ? "object" : "bool";
    default:
        return "object";
    }
}

static void col_free(df_col_t *c)
{
    free(c->name);
}

void df_node_free(df_node_t *d)
{
    if (!d) return;
    for (int i = 0; i < d->ncols; i++)
        col_free(&d->cols[i]);
    for (int i = 0; i < d->nidx; i++)
        col_free(&d->idx[i]);
    free(d->cols);
    free(d->idx);
    free(d->sel);
    free(d->assign_src);
    free(d->path);
    csv_header_close(&d->hdr);
    free(d->ranges);
    free(d->range_rows);
    free(d->ctypes);
    if (d->aggs)
        for (int i = 0; i < d->gb.nagg; i++)
            free((char *)d->aggs[i].out);
    free(d->aggs);
    free(d->ew_col);
    free(d->ew_dt);
    free(d);
}

void graph_df_free(struct df_node *d)
{
    df_node_free(d);
}

/* ---------------------------------------------------------------------------
 * Fields */

static const char *const *df_fields(op_t op)
{
    static const char *const ft[] = {"columns", "chunk_rows", "name", NULL};
    static const char *const rc[] = {"path", "chunk_bytes", "usecols", NULL};
    static const char *const gi[] = {"columns", NULL};
    static const char *const none[] = {NULL};
    static const char *const as[] = {"names", NULL};
    static const char *const red[] = {"axis", NULL};
    static const char *const sv[] = {"axis", "ddof", NULL};
    static const char *const gb[] = {"by", "agg", NULL};
    static const char *const so[] = {"by", "ascending", NULL};
    static const char *const me[] = {"on", "how", NULL};
    static const char *const hd[] = {"n", NULL};
    switch (op) {
    case OP_DF_FROM_TENSOR:
        return ft;
    case OP_DF_READ_CSV:
        return rc;
    case OP_DF_GETITEM:
        return gi;
    case OP_DF_ASSIGN:
        return as;
    case OP_DF_STD:
    case OP_DF_VAR:
        return sv;
    case OP_DF_SUM:
    case OP_DF_MEAN:
    case OP_DF_MIN:
    case OP_DF_MAX:
    case OP_DF_COUNT:
    case OP_DF_PROD:
    case OP_DF_NUNIQUE:
        return red;
    case OP_DF_GROUPBY_AGG:
        return gb;
    case OP_DF_SORT_VALUES:
        return so;
    case OP_DF_MERGE:
        return me;
    case OP_DF_HEAD:
        return hd;
    default:
        return none;
    }
}

int graph_df_check_fields(const graph_df_env_t *e, graph_node_t *n, json_t *obj)
{
    const char *name;
    json_t *val;
    const char *const *f = df_fields(n->op);
    json_object_foreach(obj, name, val)
    {
        if (!strcmp(name, "key") || !strcmp(name, "op") || !strcmp(name, "inputs")) continue;
        bool ok = false;
        for (int i = 0; f[i] && !ok; i++)
            ok = !strcmp(name, f[i]);
        if (!ok) {
            char b[64];
            snprintf(b, sizeof b, "%.40s", name);
            for (char *p = b; *p; p++)
                if ((unsigned char)*p < 0x20) *p = ' ';
            return NFAIL(e, n, "unknown field \"%s\"", b);
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Schemas */

static df_node_t *df_new(void)
{
    df_node_t *d = calloc(1, sizeof *d);
    if (d) {
        d->rowsrc = -1;
        d->nrows = -1;
    }
    return d;
}

static int set_col(df_col_t *c, const char *name, bool is_int, int type)
{
    c->name = name ? strdup(name) : NULL;
    c->is_int = is_int;
    c->type = (uint8_t)type;
    return name && !c->name ? -1 : 0;
}

static int alloc_cols(df_node_t *d, int ncols, int nidx)
{
    d->cols = calloc((size_t)ncols + 1, sizeof(df_col_t));
    d->idx = calloc((size_t)nidx + 1, sizeof(df_col_t));
    if (!d->cols || !d->idx) return -1;
    d->ncols = ncols;
    d->nidx = nidx;
    return 0;
}

/* d's index := s's index. */
static int copy_index(df_node_t *d, const df_node_t *s)
{
    for (int i = 0; i < s->nidx; i++)
        if (set_col(&d->idx[i], s->idx[i].name, s->idx[i].is_int, s->idx[i].type)) return -1;
    return 0;
}

static int default_index(df_node_t *d)
{
    return set_col(&d->idx[0], NULL, false, FT_INT64);
}

static bool is_numeric(int t)
{
    return t == FT_INT64 || t == FT_FLOAT64 || t == FT_BOOL;
}

static dtype_t ft_dtype(int t)
{
    return t == FT_INT64 ? DT_INT64 : t == FT_FLOAT64 ? DT_FLOAT64 : DT_BOOL;
}

static int dtype_ft(dtype_t t)
{
    return dt_is_float(t) ? FT_FLOAT64 : dt_is_int(t) ? FT_INT64 : FT_BOOL;
}

/* A label from JSON: a string or an integer. 0, or -1 when v is neither. */
static int label_of(json_t *v, char *buf, size_t len, bool *is_int)
{
    if (json_is_string(v)) {
        snprintf(buf, len, "%s", json_string_value(v));
        *is_int = false;
        return strlen(json_string_value(v)) < len ? 0 : -1;
    }
    if (json_is_integer(v)) {
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
        *is_int = true;
        return 0;
    }
    return -1;
}

static void label_text(const df_col_t *c, char *buf, size_t len)
{
    if (!c->name)
        snprintf(buf, len, "None");
    else if (c->is_int)
        snprintf(buf, len, "%.100s", c->name);
    else
        snprintf(buf, len, "'%.100s'", c->name);
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20) *p = ' ';
}

/* The column of d labelled by JSON value v, or -1 (message written). */
static int find_col(const df_node_t *d, json_t *v, const graph_node_t *n, const char *field,
                    char *err, size_t errlen)
{
    char b[1024];
    bool is_int;
    if (label_of(v, b, sizeof b, &is_int))
        return XFAIL(n, "\"%s\" must name columns (strings or integers)", field);
    for (int i = 0; i < d->ncols; i++)
        if (d->cols[i].name && d->cols[i].is_int == is_int && !strcmp(d->cols[i].name, b)) return i;
    b[100] = 0;
    for (char *p = b; *p; p++)
        if ((unsigned char)*p < 0x20) *p = ' ';
    return XFAIL(n, "%s: no column %s%s%s in the input", field, is_int ? "" : "'", b,
                 is_int ? "" : "'");
}

/* A list of column labels (a bare label counts as a list of one). */
static int find_cols(const df_node_t *d, json_t *v, const graph_node_t *n, const char *field,
                     int **out, int *nout, char *err, size_t errlen)
{
    bool list = json_is_array(v);
    size_t cnt = list ? json_array_size(v) : 1;
    if (cnt > (size_t)INT_MAX / 2) return XFAIL(n, "\"%s\": too many names", field);
    *out = calloc(cnt + 1, sizeof(int));
    if (!*out) return XFAIL(n, "out of memory");
    *nout = (int)cnt;
    for (size_t i = 0; i < cnt; i++) {
        int c = find_col(d, list ? json_array_get(v, i) : v, n, field, err, errlen);
        if (c < 0) return -1;
        (*out)[i] = c;
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Parameters needing no inputs */

static int parse_read_csv(const graph_df_env_t *e, graph_node_t *n, json_t *obj)
{
    df_node_t *d = n->df;
    json_t *p = json_object_get(obj, "path");
    if (!p) return NFAIL(e, n, "\"path\" is missing");
    if (!json_is_string(p)) return NFAIL(e, n, "\"path\" must be a string");
    const char *rel = json_string_value(p);
    int64_t chunk = e->lim->csv_chunk_bytes > 0 ? e->lim->csv_chunk_bytes : 16LL << 20;
    json_t *cb = json_object_get(obj, "chunk_bytes");
    if (cb) {
        if (!json_is_integer(cb) || json_integer_value(cb) < 1)
            return NFAIL(e, n, "\"chunk_bytes\" must be a positive integer");
        chunk = (int64_t)json_integer_value(cb);
    }
    json_t *uc = json_object_get(obj, "usecols");
    const char **names = NULL;
    int nuse = 0;
    if (uc && !json_is_null(uc)) {
        if (!json_is_array(uc)) return NFAIL(e, n, "\"usecols\" must be a list of column names");
        nuse = (int)json_array_size(uc);
        names = calloc((size_t)nuse + 1, sizeof(char *));
        if (!names) return NFAIL(e, n, "out of memory");
        for (int i = 0; i < nuse; i++) {
            json_t *s = json_array_get(uc, (size_t)i);
            if (!json_is_string(s)) {
                free(names);
                return NFAIL(e, n, "\"usecols\" must be a list of column names");
            }
            names[i] = json_string_value(s);
        }
    }
    char path[4096], msg[1024];
    int rc = 1;
    /* the path rules first, whatever resolves it */
    if (!*rel || rel[0] == '/') rc = -2;
    for (const char *c = rel; rc == 1 && *c;) {
        const char *s = strchr(c, '/');
        size_t l = s ? (size_t)(s - c) : strlen(c);
        if (l == 2 && c[0] == '.' && c[1] == '.') rc = -2;
        c += l + (s ? 1 : 0);
    }
    if (rc == -2) {
        free(names);
        if (!*rel) return NFAIL(e, n, "\"path\" is empty");
        return NFAIL(e, n,
                     "path '%.200s': absolute paths and '..' are refused (paths are "
                     "relative to the data directory)",
                     rel);
    }
    if (e->sess && e->sess->file)
        rc = e->sess->file(e->sess->ctx, rel, path, sizeof path, msg, sizeof msg);
    if (rc == 1)
        rc = csv_resolve_path(e->lim->data_dir ? e->lim->data_dir : ".", rel, path, sizeof path,
                              msg, sizeof msg);
    if (rc) {
        free(names);
        return NFAIL(e, n, "%s", msg);
    }
    d->path = strdup(path);
    csv_file_t f = {0};
    if (!d->path || csv_file_open(&f, path, msg, sizeof msg)) {
        free(names);
        return NFAIL(e, n, "%s", d->path ? msg : "out of memory");
    }
    rc = -1;
    /* the ranges are counted against the chunk quota before any is made */
    if ((int64_t)(f.len / (size_t)chunk) >= e->lim->max_chunks) {
        NFAIL(e, n,
              "%s: %zu bytes in chunks of %lld would make more than %lld chunks (limit "
              "max_chunks)",
              rel, f.len, (long long)chunk, (long long)e->lim->max_chunks);
        goto done;
    }
    if (csv_header_parse(f.buf, f.len, names, nuse, &d->hdr, msg, sizeof msg) ||
        csv_split(f.buf, f.len, &d->hdr, chunk, &d->ranges, &d->nranges, msg, sizeof msg)) {
        NFAIL(e, n, "%s: %s", rel, msg);
        goto done;
    }
    int nsel = d->hdr.nsel;
    uint32_t *kinds = calloc((size_t)nsel + 1, sizeof(uint32_t));
    uint32_t *part = calloc((size_t)nsel + 1, sizeof(uint32_t));
    d->range_rows = calloc((size_t)d->nranges + 1, sizeof(int64_t));
    d->ctypes = calloc((size_t)nsel + 1, sizeof(csv_type_t));
    if (!kinds || !part || !d->range_rows || !d->ctypes || alloc_cols(d, nsel, 1)) {
        free(kinds);
        free(part);
        NFAIL(e, n, "out of memory");
        goto done;
    }
    int64_t total = 0;
    for (int64_t r = 0; r < d->nranges; r++) {
        memset(part, 0, sizeof(uint32_t) * (size_t)nsel);
        if (csv_infer_range(f.buf, &d->hdr, &d->ranges[r], part, &d->range_rows[r], msg,
                            sizeof msg)) {
            free(kinds);
            free(part);
            NFAIL(e, n, "%s: %s", rel, msg);
            goto done;
        }
        for (int k = 0; k < nsel; k++)
            kinds[k] = csv_kinds_merge(kinds[k], part[k]);
        total += d->range_rows[r];
    }
    for (int k = 0; k < nsel; k++) {
        d->ctypes[k] = csv_kinds_type(kinds[k], total);
        if (set_col(&d->cols[k], d->hdr.names[d->hdr.sel[k]], false, (int)d->ctypes[k])) {
            free(kinds);
            free(part);
            NFAIL(e, n, "out of memory");
            goto done;
        }
    }
    free(kinds);
    free(part);
    if (default_index(d)) {
        NFAIL(e, n, "out of memory");
        goto done;
    }
    d->nrows = total;
    rc = 0;
done:
    csv_file_close(&f);
    free(names);
    return rc;
}

int graph_df_parse(const graph_df_env_t *e, graph_node_t *n, json_t *obj)
{
    n->df = df_new();
    if (!n->df) return NFAIL(e, n, "out of memory");
    /* parameters needing the input's schema are read in inference, from
     * the document (alive until graph_parse returns) */
    n->df->json = obj;
    if (n->op == OP_DF_READ_CSV) return parse_read_csv(e, n, obj);
    return 0;
}

/* ---------------------------------------------------------------------------
 * Inference */

static const df_node_t *in_df(const graph_t *g, const graph_node_t *n, int j)
{
    int m = n->in[j].node;
    return m >= 0 ? g->nodes[m].df : NULL;
}

static uint8_t in_vk(const graph_t *g, const graph_node_t *n, int j)
{
    int m = n->in[j].node;
    return m >= 0 ? g->nodes[m].vkind : VK_TENSOR;
}

static const char *vk_name(uint8_t v)
{
    return v == VK_DATAFRAME ? "a DataFrame" : v == VK_SERIES ? "a Series" : "a tensor";
}

static void set_frame_shape(graph_node_t *n, uint8_t vk)
{
    n->vkind = vk;
    n->oshape.ndim = 1;
    n->oshape.d[0] = n->df->nrows > 0 ? n->df->nrows : 0;
    n->odtype = DT_FLOAT64;
}

static int want_frame(const graph_t *g, const graph_node_t *n, int j, bool series_ok, bool df_ok,
                      char *err, size_t errlen)
{
    uint8_t v = in_vk(g, n, j);
    const graph_node_t *m = &g->nodes[n->in[j].node];
    if ((v == VK_SERIES && series_ok) || (v == VK_DATAFRAME && df_ok)) return 0;
    return XFAIL(n, "input \"%s\" is %s; %s takes %s", m->key, vk_name(v), op_name(n->op),
                 df_ok && series_ok ? "a DataFrame or a Series"
                 : df_ok            ? "a DataFrame"
                                    : "a Series");
}

static int json_axis0(json_t *obj, const graph_node_t *n, char *err, size_t errlen)
{
    json_t *a = json_object_get(obj, "axis");
    if (!a || json_is_null(a)) return 0;
    if (json_is_integer(a) && json_integer_value(a) == 0) return 0;
    if (json_is_string(a) && !strcmp(json_string_value(a), "index")) return 0;
    return XFAIL(n, "only \"axis\" 0 (reducing over the rows) is supported");
}

static int infer_from_tensor(graph_t *g, graph_node_t *n, df_node_t *d, json_t *obj, char *err,
                             size_t errlen)
{
    const graph_node_t *t = &g->nodes[n->in[0].node];
    if (t->vkind != VK_TENSOR || (t->df && t->df->held))
        return XFAIL(n, "input \"%s\" must be a tensor", t->key);
    int nd = t->oshape.ndim;
    if (nd != 1 && nd != 2)
        return XFAIL(n, "input \"%s\" has %d dimensions; a DataFrame needs 1 or 2", t->key, nd);
    int ncols = nd == 2 ? (int)(t->oshape.d[1] < INT_MAX / 2 ? t->oshape.d[1] : -1) : 1;
    /* columns are described one by one in every chunk: the CSV reader's bound */
    if (ncols < 0 || ncols > CSV_MAX_COLS)
        return XFAIL(n, "%lld columns, more than the %d a DataFrame may have",
                     (long long)t->oshape.d[1], CSV_MAX_COLS);
    json_t *cols = json_object_get(obj, "columns"), *name = json_object_get(obj, "name");
    json_t *cr = json_object_get(obj, "chunk_rows");
    if (cr) {
        if (!json_is_integer(cr) || json_integer_value(cr) < 1)
            return XFAIL(n, "\"chunk_rows\" must be a positive integer");
        d->chunk_rows = (int64_t)json_integer_value(cr);
    }
    bool series = nd == 1 && name;
    if (name && nd != 1) return XFAIL(n, "\"name\" is for a 1-D tensor (a Series)");
    if (name && cols) return XFAIL(n, "give \"name\" (a Series) or \"columns\", not both");
    if (cols && !json_is_null(cols)) {
        if (!json_is_array(cols)) return XFAIL(n, "\"columns\" must be a list of names");
        if (json_array_size(cols) != (size_t)ncols)
            return XFAIL(n, "%zu columns passed, passed data had %d columns", json_array_size(cols),
                         ncols);
    }
    if (alloc_cols(d, ncols, 1) || default_index(d)) return XFAIL(n, "out of memory");
    int type = dtype_ft(t->odtype);
    for (int k = 0; k < ncols; k++) {
        char b[1024];
        bool is_int = true;
        snprintf(b, sizeof b, "%d", k);
        json_t *v = series                        ? name
                    : cols && !json_is_null(cols) ? json_array_get(cols, (size_t)k)
                                                  : NULL;
        if (v && json_is_null(v) && series) {
            if (set_col(&d->cols[k], NULL, false, type)) return XFAIL(n, "out of memory");
            continue;
        }
        if (v && label_of(v, b, sizeof b, &is_int))
            return XFAIL(n, "\"%s\" must hold strings or integers", series ? "name" : "columns");
        for (int q = 0; q < k; q++)
            if (d->cols[q].is_int == is_int && !strcmp(d->cols[q].name, b))
                return XFAIL(n, "duplicate column name %.100s", b);
        if (set_col(&d->cols[k], b, is_int, type)) return XFAIL(n, "out of memory");
    }
    d->nrows = t->oshape.d[0];
    d->rowsrc = (int)(n - g->nodes);
    set_frame_shape(n, series ? VK_SERIES : VK_DATAFRAME);
    return 0;
}

static int infer_getitem(graph_t *g, graph_node_t *n, df_node_t *d, json_t *obj, char *err,
                         size_t errlen)
{
    if (want_frame(g, n, 0, false, true, err, errlen)) return -1;
    const df_node_t *s = in_df(g, n, 0);
    json_t *c = json_object_get(obj, "columns");
    if (!c) return XFAIL(n, "\"columns\" is missing");
    if (find_cols(s, c, n, "columns", &d->sel, &d->nsel, err, errlen)) return -1;
    d->sel_series = !json_is_array(c);
    if (alloc_cols(d, d->nsel, s->nidx) || copy_index(d, s)) return XFAIL(n, "out of memory");
    for (int k = 0; k < d->nsel; k++) {
        const df_col_t *sc = &s->cols[d->sel[k]];
        if (set_col(&d->cols[k], sc->name, sc->is_int, sc->type)) return XFAIL(n, "out of memory");
    }
    d->nrows = s->nrows;
    d->rowsrc = s->rowsrc;
    set_frame_shape(n, d->sel_series ? VK_SERIES : VK_DATAFRAME);
    return 0;
}

static int copy_schema(df_node_t *d, const df_node_t *s)
{
    if (alloc_cols(d, s->ncols, s->nidx) || copy_index(d, s)) return -1;
    for (int k = 0; k < s->ncols; k++)
        if (set_col(&d->cols[k], s->cols[k].name, s->cols[k].is_int, s->cols[k].type)) return -1;
    return 0;
}

static int same_rows(const graph_t *g, const graph_node_t *n, int a, int b, char *err,
                     size_t errlen)
{
    const df_node_t *x = in_df(g, n, a), *y = in_df(g, n, b);
    if (x->rowsrc != y->rowsrc)
        return XFAIL(n,
                     "inputs \"%s\" and \"%s\" do not come from the same DataFrame (rows "
                     "must line up chunk for chunk)",
                     g->nodes[n->in[a].node].key, g->nodes[n->in[b].node].key);
    return 0;
}

static int infer_filter(graph_t *g, graph_node_t *n, df_node_t *d, char *err, size_t errlen)
{
    if (want_frame(g, n, 0, true, true, err, errlen) ||
        want_frame(g, n, 1, true, false, err, errlen) || same_rows(g, n, 0, 1, err, errlen))
        return -1;
    const df_node_t *s = in_df(g, n, 0), *m = in_df(g, n, 1);
    if (m->cols[0].type != FT_BOOL)
        return XFAIL(n, "the mask \"%s\" is a %s Series; it must be bool",
                     g->nodes[n->in[1].node].key, df_type_name(m->cols[0].type, false));
    if (copy_schema(d, s)) return XFAIL(n, "out of memory");
    d->rowsrc = (int)(n - g->nodes);
    set_frame_shape(n, in_vk(g, n, 0));
    return 0;
}

static int infer_assign(graph_t *g, graph_node_t *n, df_node_t *d, json_t *obj, char *err,
                        size_t errlen)
{
    if (want_frame(g, n, 0, false, true, err, errlen)) return -1;
    json_t *names = json_object_get(obj, "names");
    if (!names) return XFAIL(n, "\"names\" is missing");
    if (!json_is_array(names) || json_array_size(names) != (size_t)(n->n_in - 1))
        return XFAIL(n, "\"names\" must be a list with one name per Series input (%d)",
                     n->n_in - 1);
    for (int j = 1; j < n->n_in; j++)
        if (want_frame(g, n, j, true, false, err, errlen) || same_rows(g, n, 0, j, err, errlen))
            return -1;
    const df_node_t *s = in_df(g, n, 0);
    int cap = s->ncols + n->n_in;
    d->assign_src = calloc((size_t)cap, sizeof(int));
    if (!d->assign_src || alloc_cols(d, cap, s->nidx) || copy_index(d, s))
        return XFAIL(n, "out of memory");
    d->ncols = 0;
    for (int k = 0; k < s->ncols; k++) {
        if (set_col(&d->cols[k], s->cols[k].name, s->cols[k].is_int, s->cols[k].type))
            return XFAIL(n, "out of memory");
        d->assign_src[k] = -1 - k;
        d->ncols++;
    }
    for (int j = 1; j < n->n_in; j++) {
        json_t *v = json_array_get(names, (size_t)j - 1);
        if (!json_is_string(v)) return XFAIL(n, "\"names\" must hold strings");
        const char *nm = json_string_value(v);
        int at = -1;
        for (int k = 0; k < d->ncols && at < 0; k++)
            if (d->cols[k].name && !d->cols[k].is_int && !strcmp(d->cols[k].name, nm)) at = k;
        int type = in_df(g, n, j)->cols[0].type;
        if (at < 0) {
            at = d->ncols++;
            if (set_col(&d->cols[at], nm, false, type)) return XFAIL(n, "out of memory");
        }
        d->cols[at].type = (uint8_t)type;
        d->assign_src[at] = j;
    }
    d->nrows = s->nrows;
    d->rowsrc = s->rowsrc;
    set_frame_shape(n, VK_DATAFRAME);
    return 0;
}

dfred_t df_red_of(op_t op)
{
    switch (op) {
    case OP_DF_SUM:
        return DFR_SUM;
    case OP_DF_MEAN:
        return DFR_MEAN;
    case OP_DF_MIN:
        return DFR_MIN;
    case OP_DF_MAX:
        return DFR_MAX;
    case OP_DF_COUNT:
        return DFR_COUNT;
    case OP_DF_PROD:
        return DFR_PROD;
    case OP_DF_STD:
        return DFR_STD;
    default:
        return DFR_VAR;
    }
}

/* pandas' result type of reduction r over a column of type t. */
static int red_type(dfred_t r, int t)
{
    switch (r) {
    case DFR_COUNT:
        return FT_INT64;
    case DFR_MEAN:
    case DFR_STD:
    case DFR_VAR:
        return FT_FLOAT64;
    case DFR_SUM:
    case DFR_PROD:
        return t == FT_FLOAT64 ? FT_FLOAT64 : FT_INT64;
    default:
        return t;
    }
}

/* The index of a Series whose labels are columns of s (sel): integer when
 * every label is an integer. */
static int label_index(df_node_t *d, const df_node_t *s, const int *sel, int nsel)
{
    bool all_int = nsel > 0;
    for (int k = 0; k < nsel; k++)
        all_int &= s->cols[sel[k]].is_int;
    return set_col(&d->idx[0], NULL, false, all_int ? FT_INT64 : FT_STRING);
}

static int infer_reduce(graph_t *g, graph_node_t *n, df_node_t *d, json_t *obj, char *err,
                        size_t errlen)
{
    if (want_frame(g, n, 0, true, true, err, errlen) || json_axis0(obj, n, err, errlen)) return -1;
    if (n->op == OP_DF_STD || n->op == OP_DF_VAR) {
        d->ddof = 1;
        json_t *v = json_object_get(obj, "ddof");
        if (v) {
            if (!json_is_integer(v)) return XFAIL(n, "\"ddof\" must be an integer");
            d->ddof = (int64_t)json_integer_value(v);
        }
    }
    const df_node_t *s = in_df(g, n, 0);
    bool series = in_vk(g, n, 0) == VK_SERIES;
    d->sel = calloc((size_t)s->ncols + 1, sizeof(int));
    if (!d->sel) return XFAIL(n, "out of memory");
    for (int k = 0; k < s->ncols; k++)
        if (n->op == OP_DF_NUNIQUE || is_numeric(s->cols[k].type)) d->sel[d->nsel++] = k;
    if (series) {
        if (d->nsel == 0 && n->op != OP_DF_COUNT)
            return XFAIL(n, "the Series is of type object; %s takes numbers", op_name(n->op));
        if (d->nsel == 0) d->sel[d->nsel++] = 0;
        int t = s->cols[0].type;
        int rt = n->op == OP_DF_NUNIQUE ? FT_INT64 : red_type(df_red_of(n->op), t);
        n->vkind = VK_TENSOR;
        n->oshape.ndim = 0;
        n->odtype = ft_dtype(rt);
        return 0;
    }
    if (alloc_cols(d, 1, 1) || label_index(d, s, d->sel, d->nsel)) return XFAIL(n, "out of memory");
    int rt = FT_FLOAT64;
    if (n->op == OP_DF_NUNIQUE || n->op == OP_DF_COUNT) {
        rt = FT_INT64;
    } else if (d->nsel > 0) {
        bool any_f = false, any_i = false, any_b = false;
        for (int k = 0; k < d->nsel; k++) {
            int t = red_type(df_red_of(n->op), s->cols[d->sel[k]].type);
            any_f |= t == FT_FLOAT64;
            any_i |= t == FT_INT64;
            any_b |= t == FT_BOOL;
        }
        /* pandas gives object for bool mixed with numbers (min/max); this
         * engine gives the numeric type (docs/graph-format.md) */
        rt = any_f ? FT_FLOAT64 : any_i ? FT_INT64 : any_b ? FT_BOOL : FT_FLOAT64;
    }
    if (set_col(&d->cols[0], NULL, false, rt)) return XFAIL(n, "out of memory");
    d->nrows = d->nsel;
    d->rowsrc = (int)(n - g->nodes);
    set_frame_shape(n, VK_SERIES);
    return 0;
}

static int infer_describe(graph_t *g, graph_node_t *n, df_node_t *d, char *err, size_t errlen)
{
    if (want_frame(g, n, 0, true, true, err, errlen)) return -1;
    const df_node_t *s = in_df(g, n, 0);
    bool series = in_vk(g, n, 0) == VK_SERIES;
    d->sel = calloc((size_t)s->ncols + 1, sizeof(int));
    if (!d->sel) return XFAIL(n, "out of memory");
    for (int k = 0; k < s->ncols; k++)
        if (s->cols[k].type == FT_INT64 || s->cols[k].type == FT_FLOAT64) d->sel[d->nsel++] = k;
    if (d->nsel == 0)
        return XFAIL(n, "the input has no numeric (int64 or float64) columns to describe");
    if (alloc_cols(d, d->nsel, 1) || set_col(&d->idx[0], NULL, false, FT_STRING))
        return XFAIL(n, "out of memory");
    for (int k = 0; k < d->nsel; k++) {
        const df_col_t *c = &s->cols[d->sel[k]];
        if (set_col(&d->cols[k], c->name, c->is_int, FT_FLOAT64)) return XFAIL(n, "out of memory");
    }
    d->nrows = 8;
    d->rowsrc = (int)(n - g->nodes);
    set_frame_shape(n, series ? VK_SERIES : VK_DATAFRAME);
    return 0;
}

static const char *const agg_names[] = {"sum", "mean", "min",     "max",   "count", "size",
                                        "std", "var",  "nunique", "first", "last"};

static int infer_groupby(graph_t *g, graph_node_t *n, df_node_t *d, json_t *obj, char *err,
                         size_t errlen)
{
    if (want_frame(g, n, 0, false, true, err, errlen)) return -1;
    const df_node_t *s = in_df(g, n, 0);
    json_t *by = json_object_get(obj, "by"), *agg = json_object_get(obj, "agg");
    if (!by) return XFAIL(n, "\"by\" is missing");
    if (!agg) return XFAIL(n, "\"agg\" is missing");
    int *sel = NULL, nsel = 0;
    if (find_cols(s, by, n, "by", &sel, &nsel, err, errlen)) {
        free(sel);
        return -1;
    }
    d->sel = sel;
    d->nsel = nsel;
    if (nsel < 1 || nsel > DF_MAX_KEYS)
        return XFAIL(n, "\"by\" must name 1 to %d columns", DF_MAX_KEYS);
    for (int i = 0; i < nsel; i++)
        for (int j = 0; j < i; j++)
            if (sel[i] == sel[j]) return XFAIL(n, "\"by\" names a column twice");
    if (!json_is_object(agg) || json_object_size(agg) == 0)
        return XFAIL(n, "\"agg\" must be an object {\"out\": [\"column\", \"func\"], ...}");
    int na = (int)json_object_size(agg);
    d->aggs = calloc((size_t)na, sizeof(agg_spec_t));
    if (!d->aggs || alloc_cols(d, na, nsel)) return XFAIL(n, "out of memory");
    d->gb.nby = nsel;
    for (int i = 0; i < nsel; i++) {
        d->gb.by[i] = sel[i];
        const df_col_t *c = &s->cols[sel[i]];
        if (set_col(&d->idx[i], c->name, c->is_int, c->type)) return XFAIL(n, "out of memory");
    }
    const char *out;
    json_t *spec;
    int k = 0;
    json_object_foreach(agg, out, spec)
    {
        if (!json_is_array(spec) || json_array_size(spec) != 2 ||
            !json_is_string(json_array_get(spec, 1)))
            return XFAIL(n, "agg \"%.100s\" must be [\"column\", \"func\"]", out);
        int col = find_col(s, json_array_get(spec, 0), n, "agg", err, errlen);
        if (col < 0) return -1;
        const char *fn = json_string_value(json_array_get(spec, 1));
        int f = -1;
        for (int q = 0; q < (int)(sizeof agg_names / sizeof *agg_names); q++)
            if (!strcmp(fn, agg_names[q])) f = q;
        if (f < 0)
            return XFAIL(n,
                         "agg \"%.100s\": unknown func \"%.40s\" (sum, mean, min, max, count, "
                         "size, std, var, nunique, first, last)",
                         out, fn);
        int t = s->cols[col].type, rt = t;
        if (t == FT_STRING && (f == AGG_MEAN || f == AGG_STD || f == AGG_VAR || f == AGG_SUM))
            return XFAIL(n, "agg \"%.100s\": %s of an object column is not supported", out, fn);
        if (f == AGG_MEAN || f == AGG_STD || f == AGG_VAR) rt = FT_FLOAT64;
        if (f == AGG_COUNT || f == AGG_SIZE || f == AGG_NUNIQUE) rt = FT_INT64;
        if (f == AGG_SUM && t == FT_BOOL) rt = FT_INT64;
        d->aggs[k].out = strdup(out);
        d->aggs[k].col = col;
        d->aggs[k].func = (agg_func_t)f;
        d->gb.nagg = k + 1;
        if (!d->aggs[k].out || set_col(&d->cols[k], out, false, rt))
            return XFAIL(n, "out of memory");
        k++;
    }
    d->gb.agg = d->aggs;
    d->rowsrc = (int)(n - g->nodes);
    set_frame_shape(n, VK_DATAFRAME);
    return 0;
}

static int infer_sort(graph_t *g, graph_node_t *n, df_node_t *d, json_t *obj, char *err,
                      size_t errlen)
{
    if (want_frame(g, n, 0, true, true, err, errlen)) return -1;
    const df_node_t *s = in_df(g, n, 0);
    json_t *by = json_object_get(obj, "by"), *asc = json_object_get(obj, "ascending");
    if (in_vk(g, n, 0) == VK_SERIES) {
        if (by) return XFAIL(n, "\"by\" is for DataFrames (a Series sorts by its values)");
        d->sel = calloc(1, sizeof(int));
        if (!d->sel) return XFAIL(n, "out of memory");
        d->nsel = 1;
    } else {
        if (!by) return XFAIL(n, "\"by\" is missing");
        if (find_cols(s, by, n, "by", &d->sel, &d->nsel, err, errlen)) return -1;
    }
    if (d->nsel < 1 || d->nsel > DF_MAX_KEYS)
        return XFAIL(n, "\"by\" must name 1 to %d columns", DF_MAX_KEYS);
    d->sort.nby = d->nsel;
    for (int i = 0; i < d->nsel; i++) {
        d->sort.by[i] = d->sel[i];
        d->sort.asc[i] = true;
    }
    if (asc && json_is_boolean(asc)) {
        for (int i = 0; i < d->nsel; i++)
            d->sort.asc[i] = json_is_true(asc);
    } else if (asc) {
        if (!json_is_array(asc) || json_array_size(asc) != (size_t)d->nsel)
            return XFAIL(n, "Length of ascending (%zu) != length of by (%d)",
                         json_is_array(asc) ? json_array_size(asc) : 0, d->nsel);
        for (int i = 0; i < d->nsel; i++) {
            json_t *v = json_array_get(asc, (size_t)i);
            if (!json_is_boolean(v)) return XFAIL(n, "\"ascending\" must hold booleans");
            d->sort.asc[i] = json_is_true(v);
        }
    }
    if (copy_schema(d, s)) return XFAIL(n, "out of memory");
    d->nrows = s->nrows;
    d->rowsrc = (int)(n - g->nodes);
    set_frame_shape(n, in_vk(g, n, 0));
    return 0;
}

static int infer_merge(graph_t *g, graph_node_t *n, df_node_t *d, json_t *obj, char *err,
                       size_t errlen)
{
    if (want_frame(g, n, 0, false, true, err, errlen) ||
        want_frame(g, n, 1, false, true, err, errlen))
        return -1;
    const df_node_t *l = in_df(g, n, 0), *r = in_df(g, n, 1);
    json_t *on = json_object_get(obj, "on"), *how = json_object_get(obj, "how");
    if (!on) return XFAIL(n, "\"on\" is missing");
    d->merge.how = MERGE_INNER;
    if (how) {
        static const char *const hows[] = {"inner", "left", "right", "outer"};
        int h = -1;
        for (int i = 0; i < 4 && json_is_string(how); i++)
            if (!strcmp(json_string_value(how), hows[i])) h = i;
        if (h < 0) return XFAIL(n, "\"how\" must be one of inner, left, right, outer");
        d->merge.how = (merge_how_t)h;
    }
    int *lon = NULL, *ron = NULL, nl = 0, nr = 0;
    int rc = -1;
    if (find_cols(l, on, n, "on (left)", &lon, &nl, err, errlen) ||
        find_cols(r, on, n, "on (right)", &ron, &nr, err, errlen))
        goto done;
    if (nl < 1 || nl > DF_MAX_KEYS) {
        XFAIL(n, "\"on\" must name 1 to %d columns", DF_MAX_KEYS);
        goto done;
    }
    d->merge.n_on = nl;
    for (int i = 0; i < nl; i++) {
        d->merge.lon[i] = lon[i];
        d->merge.ron[i] = ron[i];
        int lt = l->cols[lon[i]].type, rt = r->cols[ron[i]].type;
        if ((lt == FT_STRING) != (rt == FT_STRING)) {
            XFAIL(n, "You are trying to merge on %s and %s columns for key '%.100s'",
                  df_type_name(lt, false), df_type_name(rt, false),
                  l->cols[lon[i]].name ? l->cols[lon[i]].name : "");
            goto done;
        }
    }
    if (alloc_cols(d, l->ncols + r->ncols, 1) || default_index(d)) {
        XFAIL(n, "out of memory");
        goto done;
    }
    d->ncols = 0;
    for (int side = 0; side < 2; side++) {
        const df_node_t *s = side ? r : l;
        const df_node_t *o = side ? l : r;
        const int *son = side ? ron : lon;
        for (int k = 0; k < s->ncols; k++) {
            bool key = false;
            for (int i = 0; i < nl; i++)
                key |= son[i] == k;
            if (key && side) continue;
            const df_col_t *c = &s->cols[k];
            bool clash = false;
            if (!key && c->name)
                for (int q = 0; q < o->ncols; q++) {
                    bool okey = false;
                    for (int i = 0; i < nl; i++)
                        okey |= (side ? lon : ron)[i] == q;
                    if (!okey && o->cols[q].name && o->cols[q].is_int == c->is_int &&
                        !strcmp(o->cols[q].name, c->name))
                        clash = true;
                }
            char b[1100];
            snprintf(b, sizeof b, "%s%s", c->name ? c->name : "",
                     clash ? (side ? "_y" : "_x") : "");
            int t = c->type;
            bool may_miss =
                !key && (d->merge.how == MERGE_OUTER || (side == 1 && d->merge.how == MERGE_LEFT) ||
                         (side == 0 && d->merge.how == MERGE_RIGHT));
            if (may_miss && t == FT_INT64) t = FT_FLOAT64;
            if (set_col(&d->cols[d->ncols++], b, c->is_int && !clash, t)) {
                XFAIL(n, "out of memory");
                goto done;
            }
        }
    }
    d->rowsrc = (int)(n - g->nodes);
    set_frame_shape(n, VK_DATAFRAME);
    rc = 0;
done:
    free(lon);
    free(ron);
    return rc;
}

static int infer_head(graph_t *g, graph_node_t *n, df_node_t *d, json_t *obj, char *err,
                      size_t errlen)
{
    if (want_frame(g, n, 0, true, true, err, errlen)) return -1;
    const df_node_t *s = in_df(g, n, 0);
    d->n = 5;
    json_t *v = json_object_get(obj, "n");
    if (v) {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return XFAIL(n, "\"n\" must be a non-negative integer");
        d->n = (int64_t)json_integer_value(v);
    }
    if (copy_schema(d, s)) return XFAIL(n, "out of memory");
    d->nrows = s->nrows >= 0 ? (s->nrows < d->n ? s->nrows : d->n) : -1;
    d->rowsrc = (int)(n - g->nodes);
    set_frame_shape(n, in_vk(g, n, 0));
    return 0;
}

static int infer_to_tensor(graph_t *g, graph_node_t *n, df_node_t *d, char *err, size_t errlen)
{
    if (want_frame(g, n, 0, true, true, err, errlen)) return -1;
    const df_node_t *s = in_df(g, n, 0);
    bool series = in_vk(g, n, 0) == VK_SERIES;
    d->sel = calloc((size_t)s->ncols + 1, sizeof(int));
    if (!d->sel) return XFAIL(n, "out of memory");
    bool any_f = false, any_i = false;
    for (int k = 0; k < s->ncols; k++) {
        int t = s->cols[k].type;
        if (!is_numeric(t)) continue;
        d->sel[d->nsel++] = k;
        any_f |= t == FT_FLOAT64;
        any_i |= t == FT_INT64;
    }
    if (series && d->nsel == 0)
        return XFAIL(n, "the Series is of type object; to_tensor takes numbers");
    d->tdt = any_f ? DT_FLOAT64 : any_i ? DT_INT64 : d->nsel ? DT_BOOL : DT_FLOAT64;
    d->held = true;
    d->nrows = s->nrows;
    n->vkind = VK_TENSOR;
    n->oshape.ndim = series ? 1 : 2;
    n->oshape.d[0] = s->nrows >= 0 ? s->nrows : 0;
    n->oshape.d[1] = d->nsel;
    n->odtype = d->tdt;
    return 0;
}

/* Element-wise ops with a Series or DataFrame among the inputs. */
static int infer_ew_frame(graph_t *g, graph_node_t *n, char *err, size_t errlen)
{
    int first = -1;
    bool any_df = false;
    if (n->op == OP_ISCLOSE) return XFAIL(n, "isclose is not supported on Series and DataFrames");
    if ((n->op == OP_ROUND || n->op == OP_AROUND) && n->decimals != 0)
        return XFAIL(n, "\"decimals\" other than 0 is not supported on Series and DataFrames");
    for (int j = 0; j < n->n_in; j++) {
        if (n->in[j].node < 0) continue;
        uint8_t v = in_vk(g, n, j);
        const graph_node_t *m = &g->nodes[n->in[j].node];
        if (v == VK_TENSOR)
            return XFAIL(n,
                         "input \"%s\" is a tensor; element-wise ops on Series and "
                         "DataFrames take Series or DataFrames of the same DataFrame and scalars",
                         m->key);
        if (first < 0)
            first = j;
        else if (same_rows(g, n, first, j, err, errlen))
            return -1;
        any_df |= v == VK_DATAFRAME;
    }
    const df_node_t *s = in_df(g, n, first);
    for (int j = 0; j < n->n_in; j++) {
        if (n->in[j].node < 0) continue;
        const df_node_t *o = in_df(g, n, j);
        if (any_df && in_vk(g, n, j) != VK_DATAFRAME)
            return XFAIL(n, "a DataFrame and a Series: only DataFrames with DataFrames or "
                            "scalars, or Series with Series or scalars, are supported");
        if (any_df) {
            bool same = o->ncols == s->ncols;
            for (int k = 0; same && k < s->ncols; k++)
                same = s->cols[k].is_int == o->cols[k].is_int && s->cols[k].name &&
                       o->cols[k].name && !strcmp(s->cols[k].name, o->cols[k].name);
            if (!same)
                return XFAIL(n, "DataFrames \"%s\" and \"%s\" have different columns",
                             g->nodes[n->in[first].node].key, g->nodes[n->in[j].node].key);
        }
    }
    df_node_t *d = n->df = df_new();
    if (!d || copy_schema(d, s)) return XFAIL(n, "out of memory");
    d->ew_col = calloc((size_t)s->ncols * (size_t)n->n_in + 1, sizeof(int));
    d->ew_dt = calloc((size_t)s->ncols + 1, 1);
    if (!d->ew_col || !d->ew_dt) return XFAIL(n, "out of memory");
    /* a Series result keeps the name when every Series input has it */
    if (!any_df) {
        for (int j = 0; j < n->n_in; j++) {
            if (n->in[j].node < 0) continue;
            const df_col_t *c = &in_df(g, n, j)->cols[0];
            if (!c->name || !d->cols[0].name || c->is_int != d->cols[0].is_int ||
                strcmp(c->name, d->cols[0].name)) {
                free(d->cols[0].name);
                d->cols[0].name = NULL;
            }
        }
    }
    for (int k = 0; k < s->ncols; k++) {
        dtype_t in_dt[3] = {DT_BOOL, DT_BOOL, DT_BOOL};
        int in_nd[3] = {0, 0, 0};
        for (int j = 0; j < n->n_in && j < 3; j++) {
            d->ew_col[k * n->n_in + j] = -1;
            if (n->in[j].node < 0) continue;
            int t = in_df(g, n, j)->cols[k].type;
            if (!is_numeric(t)) {
                char lb[128];
                label_text(&s->cols[k], lb, sizeof lb);
                return XFAIL(n, "column %s is of type object; %s takes numbers", lb,
                             op_name(n->op));
            }
            in_dt[j] = ft_dtype(t);
            in_nd[j] = 1;
            d->ew_col[k * n->n_in + j] = k;
        }
        ew_types_t ty;
        char msg[512];
        if (ew_node_types(n, in_dt, in_nd, &ty, msg, sizeof msg)) return XFAIL(n, "%s", msg);
        if (ty.out == DT_FLOAT32 || ty.out == DT_INT32)
            return XFAIL(n, "the result would be %s, which DataFrames do not hold",
                         dt_name(ty.out));
        d->ew_dt[k] = (uint8_t)ty.compute;
        d->cols[k].type = (uint8_t)dtype_ft(ty.out);
    }
    d->nrows = s->nrows;
    d->rowsrc = s->rowsrc;
    set_frame_shape(n, any_df ? VK_DATAFRAME : VK_SERIES);
    return 0;
}

int graph_df_infer(graph_t *g, int i, char *err, size_t errlen)
{
    graph_node_t *n = &g->nodes[i];
    if (op_kind(n->op) != OPK_DF) {
        bool frames = false;
        for (int j = 0; j < n->n_in; j++) {
            int m = n->in[j].node;
            if (m < 0) continue;
            const graph_node_t *M = &g->nodes[m];
            if (M->vkind != VK_TENSOR)
                frames = true;
            else if (M->df && M->df->held)
                return XFAIL(n,
                             "input \"%s\" (dataframe.to_tensor) can only be fetched, not "
                             "computed on",
                             M->key);
        }
        if (!frames) return 1;
        if (op_is_elementwise(n->op)) return infer_ew_frame(g, n, err, errlen);
        for (int j = 0; j < n->n_in; j++) {
            int m = n->in[j].node;
            if (m >= 0 && g->nodes[m].vkind != VK_TENSOR)
                return XFAIL(n, "input \"%s\" is %s; %s takes tensors (see the dataframe.* ops)",
                             g->nodes[m].key, vk_name(g->nodes[m].vkind), op_name(n->op));
        }
        return 1;
    }
    df_node_t *d = n->df;
    json_t *obj = d->json;
    int rc;
    switch (n->op) {
    case OP_DF_FROM_TENSOR:
        rc = infer_from_tensor(g, n, d, obj, err, errlen);
        break;
    case OP_DF_READ_CSV:
        d->rowsrc = i;
        set_frame_shape(n, VK_DATAFRAME);
        rc = 0;
        break;
    case OP_DF_GETITEM:
        rc = infer_getitem(g, n, d, obj, err, errlen);
        break;
    case OP_DF_FILTER:
        rc = infer_filter(g, n, d, err, errlen);
        break;
    case OP_DF_ASSIGN:
        rc = infer_assign(g, n, d, obj, err, errlen);
        break;
    case OP_DF_DESCRIBE:
        rc = infer_describe(g, n, d, err, errlen);
        break;
    case OP_DF_GROUPBY_AGG:
        rc = infer_groupby(g, n, d, obj, err, errlen);
        break;
    case OP_DF_SORT_VALUES:
        rc = infer_sort(g, n, d, obj, err, errlen);
        break;
    case OP_DF_MERGE:
        rc = infer_merge(g, n, d, obj, err, errlen);
        break;
    case OP_DF_HEAD:
        rc = infer_head(g, n, d, obj, err, errlen);
        break;
    case OP_DF_TO_TENSOR:
        rc = infer_to_tensor(g, n, d, err, errlen);
        break;
    default:
        rc = infer_reduce(g, n, d, obj, err, errlen);
        break;
    }
    d->json = NULL;
    return rc;
}
