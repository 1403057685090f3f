/* dfout.c: frames written as JSON, CSV and .npy (dfexec.h). Output goes
 * through a 64 KiB buffer to the sink. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fpfmt.h"
#include "../npy.h"
#include "dfexec.h"
#include "dates.h"
#include "dfgraph.h"

typedef struct {
    dfx_sink_fn sink;
    void *ctx;
    char buf[65536];
    size_t used;
    int failed;
} wr_t;

static int flush(wr_t *w)
{
    if (w->used && !w->failed && w->sink(w->ctx, w->buf, w->used)) w->failed = 1;
    w->used = 0;
    return w->failed ? -1 : 0;
}

static void put(wr_t *w, const char *s, size_t n)
{
    while (n && !w->failed) {
        if (w->used == sizeof w->buf) flush(w);
        size_t k = sizeof w->buf - w->used < n ? sizeof w->buf - w->used : n;
        memcpy(w->buf + w->used, s, k);
        w->used += k;
        s += k;
        n -= k;
    }
}

static void puts_(wr_t *w, const char *s)
{
    put(w, s, strlen(s));
}

/* A JSON string (escaped). */
static void jstr(wr_t *w, const char *s, size_t n)
{
    put(w, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x20 && ch != '"' && ch != '\\') continue;
        put(w, s + run, i - run);
        char e[8];
        if (ch == '"' || ch == '\\')
            snprintf(e, sizeof e, "\\%c", ch);
        else if (ch == '\n')
            snprintf(e, sizeof e, "\\n");
        else
            snprintf(e, sizeof e, "\\u%04x", ch);
        puts_(w, e);
        run = i + 1;
    }
    put(w, s + run, n - run);
    put(w, "\"", 1);
}

static void jlabel(wr_t *w, const flabel_t *l)
{
    if (!l->s)
        puts_(w, "null");
    else if (l->is_int)
        puts_(w, l->s);
    else
        jstr(w, l->s, strlen(l->s));
}

static void jval(wr_t *w, const fcol_t *c, int64_t i)
{
    char b[40];
    if (fcol_is_na(c, i)) {
        puts_(w, "null");
        return;
    }
    switch (c->type) {
    case FT_INT64:
        if (c->unit != FU_NONE) {
            b[0] = '"';
            int l =
                date_format(((const int64_t *)c->data)[i], c->unit, 'T', -2, b + 1, sizeof b - 2);
            b[l + 1] = '"';
            b[l + 2] = 0;
        } else {
            snprintf(b, sizeof b, "%lld", (long long)((const int64_t *)c->data)[i]);
        }
        puts_(w, b);
        return;
    case FT_FLOAT64: {
        double v = ((const double *)c->data)[i];
        if (isinf(v))
            puts_(w, v > 0 ? "\"inf\"" : "\"-inf\"");
        else {
            fp_json(b, sizeof b, v);
            puts_(w, b);
        }
        return;
    }
    case FT_BOOL:
        puts_(w, ((const uint8_t *)c->data)[i] ? "true" : "false");
        return;
    default: {
        int64_t n;
        const char *s = fcol_str(c, i, &n);
        jstr(w, s, (size_t)n);
    }
    }
}

/* An index label: a float64 level's whole numbers keep their ".0", so that
 * a client tells a float index from an int64 one (the index has no dtypes
 * beside it, unlike the columns). */
static void jlevel(wr_t *w, const fcol_t *c, int64_t i)
{
    if (c->type != FT_FLOAT64 || fcol_is_na(c, i) || !isfinite(((const double *)c->data)[i])) {
        jval(w, c, i);
        return;
    }
    char b[48];
    int n = fp_json(b, sizeof b - 2, ((const double *)c->data)[i]);
    if (n > 0 && (size_t)n < sizeof b - 2 && !strpbrk(b, ".e")) memcpy(b + n, ".0", 3);
    puts_(w, b);
}

static bool has_na(const fcol_t *c)
{
    if (!c->valid) return false;
    for (int64_t i = 0; i < c->n; i++)
        if (!c->valid[i]) return true;
    return false;
}

static bool is_date(const fcol_t *c)
{
    return c->type == FT_INT64 && c->unit == FU_DATE;
}

/* `"key": [k, ...]`, the positions of the columns (or levels) holding
 * dates (dt.date), whose dtype is "object" as pandas': a client makes
 * datetime.date values of their ISO strings. Absent when there are none. */
static void jdates(wr_t *w, const char *key, const fcol_t *c, int n)
{
    bool any = false;
    for (int k = 0; k < n; k++) {
        if (!is_date(&c[k])) continue;
        if (!any) {
            puts_(w, ", \"");
            puts_(w, key);
            puts_(w, "\": [");
        } else {
            put(w, ", ", 2);
        }
        char b[16];
        snprintf(b, sizeof b, "%d", k);
        puts_(w, b);
        any = true;
    }
    if (any) put(w, "]", 1);
}

static void jindex(wr_t *w, const frame_t *f)
{
    puts_(w, "\"index\": [");
    for (int64_t i = 0; i < f->nrows; i++) {
        if (i) put(w, ", ", 2);
        if (f->nidx == 1) {
            jlevel(w, &f->idx[0], i);
            continue;
        }
        put(w, "[", 1);
        for (int k = 0; k < f->nidx; k++) {
            if (k) put(w, ", ", 2);
            jlevel(w, &f->idx[k], i);
        }
        put(w, "]", 1);
    }
    put(w, "]", 1);
    /* the level names (graph-format.md, additions): a groupby by several
     * keys keeps them */
    puts_(w, ", \"index_names\": [");
    for (int k = 0; k < f->nidx; k++) {
        if (k) put(w, ", ", 2);
        jlabel(w, &f->idx_names[k]);
    }
    put(w, "]", 1);
    /* index levels of datetimes or dates: their dtypes, so that a client
     * can tell them from strings; and every level's of a frame of no rows,
     * whose index has no value to tell its type by (absent otherwise) */
    bool units = f->nrows == 0;
    for (int k = 0; k < f->nidx; k++)
        units |= f->idx[k].type == FT_INT64 && f->idx[k].unit != FU_NONE;
    if (!units) return;
    puts_(w, ", \"index_dtypes\": [");
    for (int k = 0; k < f->nidx; k++) {
        if (k) put(w, ", ", 2);
        put(w, "\"", 1);
        puts_(w, fcol_type_name(&f->idx[k], has_na(&f->idx[k])));
        put(w, "\"", 1);
    }
    put(w, "]", 1);
    jdates(w, "index_dates", f->idx, f->nidx);
}

static wr_t *wr_new(dfx_sink_fn sink, void *ctx)
{
    wr_t *w = malloc(sizeof *w);
    if (!w) return NULL;
    w->sink = sink;
    w->ctx = ctx;
    w->used = 0;
    w->failed = 0;
    return w;
}

int dfx_write_json(const frame_t *f, dfx_sink_fn sink, void *ctx)
{
    wr_t *w = wr_new(sink, ctx);
    if (!w) return -1;
    if (f->series) {
        puts_(w, "{\"name\": ");
        jlabel(w, &f->names[0]);
        puts_(w, ", ");
        jindex(w, f);
        puts_(w, ", \"data\": [");
        for (int64_t i = 0; i < f->nrows; i++) {
            if (i) put(w, ", ", 2);
            jval(w, &f->cols[0], i);
        }
        puts_(w, "], \"dtype\": \"");
        puts_(w, fcol_type_name(&f->cols[0], has_na(&f->cols[0])));
        puts_(w, is_date(&f->cols[0]) ? "\", \"dates\": true}\n" : "\"}\n");
    } else {
        puts_(w, "{\"columns\": [");
        for (int k = 0; k < f->ncols; k++) {
            if (k) put(w, ", ", 2);
            jlabel(w, &f->names[k]);
        }
        puts_(w, "], ");
        jindex(w, f);
        puts_(w, ", \"data\": [");
        for (int64_t i = 0; i < f->nrows; i++) {
            put(w, i ? ", [" : "[", i ? 3 : 1);
            for (int k = 0; k < f->ncols; k++) {
                if (k) put(w, ", ", 2);
                jval(w, &f->cols[k], i);
            }
            put(w, "]", 1);
        }
        puts_(w, "], \"dtypes\": {");
        for (int k = 0; k < f->ncols; k++) {
            if (k) put(w, ", ", 2);
            const char *s = f->names[k].s ? f->names[k].s : "None";
            jstr(w, s, strlen(s));
            puts_(w, ": \"");
            puts_(w, fcol_type_name(&f->cols[k], has_na(&f->cols[k])));
            put(w, "\"", 1);
        }
        put(w, "}", 1);
        jdates(w, "date_columns", f->cols, f->ncols);
        puts_(w, "}\n");
    }
    int rc = flush(w);
    free(w);
    return rc;
}

/* ---- CSV ---- */

static void cfield(wr_t *w, const char *s, size_t n)
{
    bool q = false;
    for (size_t i = 0; i < n && !q; i++)
        q = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (!q) {
        put(w, s, n);
        return;
    }
    put(w, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '"') continue;
        put(w, s + run, i + 1 - run);
        put(w, "\"", 1);
        run = i + 1;
    }
    put(w, s + run, n - run);
    put(w, "\"", 1);
}

/* to_csv writes a datetime column whose values are all at midnight as
 * dates, else every value with the fraction digits the column needs
 * (pandas decides over the whole column; here over the frame): -1 for
 * dates, else 0, 3, 6 or 9; a timedelta column -1 or -2 */
static int col_digits(const fcol_t *c)
{
    if (c->type == FT_INT64 && c->unit == FU_TD) {
        /* timedeltas: "N days" when every one is whole days, else each
         * one's str (pandas' get_format_timedelta64) */
        for (int64_t i = 0; i < c->n; i++) {
            int64_t v = ((const int64_t *)c->data)[i];
            if (v != DATE_NAT && v % DATE_NS_PER_DAY != 0) return -2;
        }
        return -1;
    }
    if (c->type != FT_INT64 || c->unit != FU_NS) return 0;
    int nd = -1;
    for (int64_t i = 0; i < c->n; i++) {
        int64_t v = ((const int64_t *)c->data)[i];
        if (v == DATE_NAT) continue;
        int f = date_frac_digits(v);
        if (nd < 0 && v % DATE_NS_PER_DAY != 0) nd = 0;
        if (f > 0 && f > nd) nd = f;
    }
    return nd;
}

static void cval(wr_t *w, const fcol_t *c, int64_t i, int digits)
{
    char b[48];
    if (fcol_is_na(c, i)) return;
    switch (c->type) {
    case FT_INT64:
        if (c->unit != FU_NONE)
            date_format(((const int64_t *)c->data)[i], c->unit, ' ', digits, b, sizeof b);
        else
            snprintf(b, sizeof b, "%lld", (long long)((const int64_t *)c->data)[i]);
        break;
    case FT_FLOAT64: /* Python's repr, as pandas' to_csv: 1000000000000000.0, 1e+16, inf */
        fp_repr(b, sizeof b, ((const double *)c->data)[i]);
        break;
    case FT_BOOL:
        snprintf(b, sizeof b, "%s", ((const uint8_t *)c->data)[i] ? "True" : "False");
        break;
    default: {
        int64_t n;
        const char *s = fcol_str(c, i, &n);
        cfield(w, s, (size_t)n);
        return;
    }
    }
    puts_(w, b);
}

static void clabel(wr_t *w, const flabel_t *l)
{
    if (l->s) cfield(w, l->s, strlen(l->s));
}

int dfx_write_csv(const frame_t *f, dfx_sink_fn sink, void *ctx)
{
    wr_t *w = wr_new(sink, ctx);
    if (!w) return -1;
    for (int k = 0; k < f->nidx; k++) {
        if (k) put(w, ",", 1);
        clabel(w, &f->idx_names[k]);
    }
    for (int k = 0; k < f->ncols; k++) {
        put(w, ",", 1);
        if (f->series && !f->names[k].s)
            puts_(w, "0");
        else
            clabel(w, &f->names[k]);
    }
    put(w, "\n", 1);
    int *day = calloc((size_t)f->nidx + (size_t)f->ncols, sizeof *day);
    if (!day) w->failed = 1;
    for (int k = 0; day && k < f->nidx; k++)
        day[k] = col_digits(&f->idx[k]);
    for (int k = 0; day && k < f->ncols; k++)
        day[f->nidx + k] = col_digits(&f->cols[k]);
    for (int64_t i = 0; i < f->nrows && !w->failed; i++) {
        for (int k = 0; k < f->nidx; k++) {
            if (k) put(w, ",", 1);
            cval(w, &f->idx[k], i, day[k]);
        }
        for (int k = 0; k < f->ncols; k++) {
            put(w, ",", 1);
            cval(w, &f->cols[k], i, day[f->nidx + k]);
        }
        put(w, "\n", 1);
    }
    free(day);
    int rc = flush(w);
    free(w);
    return rc;
}

/* ---- to_tensor results ---- */

static dtype_t col_dt(const frame_t *f)
{
    int t = f->ncols ? f->cols[0].type : f->vtype ? f->vtype - 1 : FT_FLOAT64;
    return t == FT_INT64 ? DT_INT64 : t == FT_BOOL ? DT_BOOL : DT_FLOAT64;
}

void *dfx_frame_rows(const frame_t *f, int ndim, dtype_t *dt, shape_t *sh, size_t *nbytes,
                     char *err, size_t errlen)
{
    int type = f->ncols ? f->cols[0].type : FT_FLOAT64;
    for (int k = 1; k < f->ncols; k++)
        if (f->cols[k].type != type) {
            snprintf(err, errlen, "internal: a held result with columns of several types");
            return NULL;
        }
    *dt = col_dt(f);
    sh->ndim = ndim;
    sh->d[0] = f->nrows;
    sh->d[1] = f->ncols;
    size_t es = dt_size(*dt), nc = (size_t)f->ncols, rows = (size_t)f->nrows;
    if (f->nrows < 0 || (ndim == 1 && f->ncols != 1) || (nc && rows > SIZE_MAX / nc / es)) {
        snprintf(err, errlen, "a held result of %lld rows and %d columns is not a %d-D tensor",
                 (long long)f->nrows, f->ncols, ndim);
        return NULL;
    }
    *nbytes = rows * nc * es;
    char *out = malloc(*nbytes ? *nbytes : 1);
    if (!out) {
        snprintf(err, errlen, "out of memory laying out a held result of %zu bytes", *nbytes);
        return NULL;
    }
    for (size_t k = 0; k < nc; k++) {
        const char *src = f->cols[k].data;
        for (size_t i = 0; i < rows; i++)
            memcpy(out + (i * nc + k) * es, src + i * es, es);
    }
    return out;
}

int dfx_write_tensor_npy(const frame_t *f, int ndim, dfx_sink_fn sink, void *ctx)
{
    dtype_t dt = col_dt(f);
    shape_t s = {.ndim = ndim};
    s.d[0] = f->nrows;
    s.d[1] = f->ncols;
    char hdr[4096];
    size_t hl;
    if (npy_header(dt, &s, hdr, sizeof hdr, &hl)) return -1;
    wr_t *w = wr_new(sink, ctx);
    if (!w) return -1;
    put(w, hdr, hl);
    size_t es = dt_size(dt);
    for (int64_t i = 0; i < f->nrows && !w->failed; i++)
        for (int k = 0; k < f->ncols; k++)
            put(w, (const char *)f->cols[k].data + (size_t)i * es, es);
    int rc = flush(w);
    free(w);
    return rc;
}

int dfx_write_tensor_json(const frame_t *f, int ndim, dfx_sink_fn sink, void *ctx)
{
    wr_t *w = wr_new(sink, ctx);
    if (!w) return -1;
    char b[64];
    if (ndim == 1)
        snprintf(b, sizeof b, "{\"shape\": [%lld], \"dtype\": \"", (long long)f->nrows);
    else
        snprintf(b, sizeof b, "{\"shape\": [%lld, %d], \"dtype\": \"", (long long)f->nrows,
                 f->ncols);
    puts_(w, b);
    puts_(w, dt_name(col_dt(f)));
    puts_(w, "\", \"data\": [");
    for (int64_t i = 0; i < f->nrows; i++) {
        if (i) put(w, ", ", 2);
        if (ndim == 2) put(w, "[", 1);
        for (int k = 0; k < f->ncols; k++) {
            if (k) put(w, ", ", 2);
            const fcol_t *c = &f->cols[k];
            if (c->type == FT_FLOAT64) {
                double v = ((const double *)c->data)[i];
                if (v != v)
                    puts_(w, "\"nan\"");
                else if (isinf(v))
                    puts_(w, v > 0 ? "\"inf\"" : "\"-inf\"");
                else {
                    fp_json(b, sizeof b, v);
                    puts_(w, b);
                }
            } else {
                jval(w, c, i);
            }
        }
        if (ndim == 2) put(w, "]", 1);
    }
    puts_(w, "]}\n");
    int rc = flush(w);
    free(w);
    return rc;
}
