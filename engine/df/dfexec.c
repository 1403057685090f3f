/* dfexec.c: the DataFrame job kernels (dfexec.h). */
#include "dfexec.h"
#include "dates.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../errmsg.h"
#include "../kern/kern.h"
#include "../kern/radix.h"
#include "../ufunc.h"
#include "algo.h"
#include "algo_util.h"
#include "asof.h"
#include "cut.h"
#include "clean.h"
#include "df3.h"
#include "expr.h"
#include "gball.h"
#include "interp.h"
#include "running.h"
#include "select.h"
#include "stats.h"
#include "dfstr.h"
#include "dfgraph.h"
#include "multi.h"

#define PACK_MAGIC 0x4b43415046444d52ull /* "RMDFPACK" */
/* rows sampled per chunk for the sort's splitters: enough that parts come
 * out within a few times of each other on skew-free keys */
#define SORT_SAMPLE_ROWS 64

static int oom(char *err, size_t errlen)
{
    return errmsg(err, errlen, "out of memory");
}

/* ------------------------------------------------------------------ blobs */

static int emit(frame_t *f, void **blob, size_t *len, char *err, size_t errlen)
{
    size_t n = frame_blob_size(f);
    void *b = malloc(n);
    if (!b) return oom(err, errlen);
    frame_serialize(f, b);
    *blob = b;
    *len = n;
    return 0;
}

static int view(const dfx_in_t *in, frame_t *f, char *err, size_t errlen)
{
    return frame_view(in->data, in->len, f, err, errlen);
}

int dfx_pack_part(const void *pack, size_t len, int64_t p, const void **blob, size_t *blob_len,
                  int64_t *nparts, char *err, size_t errlen)
{
    const uint64_t *h = pack;
    /* the header holds nparts + 1 offsets after its two words */
    if (len < 24 || ((uintptr_t)pack & 7) || h[0] != PACK_MAGIC || h[1] >= (len - 16) / 8)
        return errmsg(err, errlen, "frame pack: bad header");
    uint64_t np = h[1];
    *nparts = (int64_t)np;
    if (p < 0 || (uint64_t)p >= np)
        return errmsg(err, errlen, "frame pack: no part %lld", (long long)p);
    uint64_t a = h[2 + p], b = h[3 + p];
    if (a > b || b > len || (a & 7)) return errmsg(err, errlen, "frame pack: bad offsets");
    *blob = (const char *)pack + a;
    *blob_len = (size_t)(b - a);
    return 0;
}

static size_t pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static int emit_pack(frame_t *parts, int64_t np, void **blob, size_t *len, char *err, size_t errlen)
{
    size_t head = 16 + 8 * (size_t)(np + 1), total = head;
    for (int64_t p = 0; p < np; p++)
        total += pad8(frame_blob_size(&parts[p]));
    uint8_t *b = malloc(total);
    if (!b) return oom(err, errlen);
    uint64_t *h = (uint64_t *)b;
    h[0] = PACK_MAGIC;
    h[1] = (uint64_t)np;
    size_t at = head;
    for (int64_t p = 0; p < np; p++) {
        h[2 + p] = at;
        size_t s = frame_blob_size(&parts[p]);
        frame_serialize(&parts[p], b + at);
        memset(b + at + s, 0, pad8(s) - s);
        at += pad8(s);
    }
    h[2 + np] = at;
    *blob = b;
    *len = total;
    return 0;
}

/* Part k of a lined DFJ_WHOLE's result f: its rows [at, at + n), a range
 * index renumbered from 0, as a chunk's. 0, or -1 out of memory. */
static int lined_part(const frame_t *f, int64_t at, int64_t n, frame_t *out)
{
    if (frame_slice(f, at, n, out)) return -1;
    if (out->range_index && out->nidx > 0 && out->idx[0].type == FT_INT64)
        for (int64_t i = 0; i < n; i++)
            ((int64_t *)out->idx[0].data)[i] = i;
    return 0;
}

/* A lined DFJ_WHOLE's result f (a row for each input row, in order) as a
 * pack of n parts, part k the rows of input k (rows[k] of them). Two
 * passes, one part at a time (its size, then its bytes), so that no more
 * than f, the pack and one part are held at once. */
static int emit_lined(const frame_t *f, const int64_t *rows, int n, void **blob, size_t *len,
                      char *err, size_t errlen)
{
    int64_t total = 0;
    for (int k = 0; k < n; k++)
        total += rows[k];
    if (total != f->nrows)
        return errmsg(err, errlen, "internal: %lld rows made from %lld", (long long)f->nrows,
                      (long long)total);
    size_t head = 16 + 8 * (size_t)(n + 1), size = head;
    uint64_t *h = calloc((size_t)n + 3, sizeof *h);
    if (!h) return oom(err, errlen);
    for (int64_t k = 0, at = 0; k < n; at += rows[k], k++) {
        frame_t part = {0};
        if (lined_part(f, at, rows[k], &part)) {
            free(h);
            return oom(err, errlen);
        }
        h[2 + k] = size;
        size += pad8(frame_blob_size(&part));
        frame_free(&part);
    }
    h[2 + n] = size;
    uint8_t *b = malloc(size);
    if (!b) {
        free(h);
        return oom(err, errlen);
    }
    h[0] = PACK_MAGIC;
    h[1] = (uint64_t)n;
    memcpy(b, h, head);
    free(h);
    for (int64_t k = 0, at = 0; k < n; at += rows[k], k++) {
        frame_t part = {0};
        if (lined_part(f, at, rows[k], &part)) {
            free(b);
            return oom(err, errlen);
        }
        size_t from = (size_t)((const uint64_t *)b)[2 + k], s = frame_blob_size(&part);
        frame_serialize(&part, b + from);
        memset(b + from + s, 0, pad8(s) - s);
        frame_free(&part);
    }
    *blob = b;
    *len = size;
    return 0;
}

/* ------------------------------------------------------------------ helpers */

/* An empty frame shaped as the schema of d (series or not). */
static int frame_of_schema(const df_node_t *d, bool series, int64_t nrows, frame_t *f)
{
    if (frame_alloc(f, series, nrows, d->ncols, d->nidx)) return -1;
    for (int k = 0; k < d->ncols; k++)
        if (flabel_set(&f->names[k], d->cols[k].name, d->cols[k].is_int)) return -1;
    for (int k = 0; k < d->nidx; k++)
        if (flabel_set(&f->idx_names[k], d->idx[k].name, d->idx[k].is_int)) return -1;
    return 0;
}

/* A shallow frame: columns and labels borrowed (frame_free frees only the
 * arrays of fcol_t and labels). */
static int shallow(frame_t *f, bool series, int64_t nrows, int ncols, int nidx)
{
    if (frame_alloc(f, series, nrows, ncols, nidx)) return -1;
    f->view = true;
    return 0;
}

static int positions(fcol_t *c, int64_t n, int64_t start)
{
    if (fcol_alloc(c, FT_INT64, n, 0, false)) return -1;
    int64_t *p = c->data;
    for (int64_t i = 0; i < n; i++)
        p[i] = start + i;
    return 0;
}

/* ------------------------------------------------------------------ concat */

int dfx_concat(const frame_t *const *parts, int n, frame_t *out, char *err, size_t errlen)
{
    const frame_t *p0 = parts[0];
    for (int q = 1; q < n; q++)
        if (parts[q]->ncols != p0->ncols || parts[q]->nidx != p0->nidx)
            return errmsg(err, errlen, "internal: concatenating frames of different shapes");
    /* columns whose types differ between parts: int64 and float64 become
     * float64 (frame_concat), anything else is refused */
    int nc = p0->ncols + p0->nidx;
    for (int k = 0; k < nc; k++) {
        const fcol_t *a = k < p0->ncols ? &p0->cols[k] : &p0->idx[k - p0->ncols];
        for (int q = 1; q < n; q++) {
            const fcol_t *b = k < p0->ncols ? &parts[q]->cols[k] : &parts[q]->idx[k - p0->ncols];
            bool num = (a->type == FT_INT64 || a->type == FT_FLOAT64) &&
                       (b->type == FT_INT64 || b->type == FT_FLOAT64);
            if (a->type != b->type && !num)
                return errmsg(err, errlen, "concatenating a %s and a %s column is not supported",
                              df_type_name(a->type, false), df_type_name(b->type, false));
        }
    }
    return frame_concat(parts, n, out) ? oom(err, errlen) : 0;
}

int dfx_assemble(const void *const *blobs, const size_t *lens, int64_t n, frame_t *out, char *err,
                 size_t errlen)
{
    if (n < 1 || n > INT32_MAX) return errmsg(err, errlen, "internal: no chunks");
    frame_t *v = calloc((size_t)n, sizeof(frame_t));
    const frame_t **vp = calloc((size_t)n, sizeof(frame_t *));
    int rc = -1;
    if (!v || !vp) {
        oom(err, errlen);
        goto done;
    }
    int64_t k;
    for (k = 0; k < n; k++) {
        if (frame_view(blobs[k], lens[k], &v[k], err, errlen)) goto done;
        vp[k] = &v[k];
    }
    rc = dfx_concat(vp, (int)n, out, err, errlen);
done:
    for (int64_t q = 0; v && q < n; q++)
        frame_free(&v[q]);
    free(v);
    free(vp);
    return rc;
}

/* ------------------------------------------------------------------ row-wise steps */

static int run_from_tensor(const graph_node_t *n, const job_t *j, const dfx_in_t *in, frame_t *f)
{
    const df_node_t *d = n->df;
    const jin_t *ji = &j->in[0];
    int64_t rows = ji->shape[0], nc = ji->ndim == 2 ? ji->shape[1] : 1;
    if (frame_of_schema(d, n->vkind == VK_SERIES, rows, f)) return -1;
    if (positions(&f->idx[0], rows, j->off[0])) return -1;
    dtype_t dt = ji->dt;
    int ft = dt_is_float(dt) ? FT_FLOAT64 : dt_is_int(dt) ? FT_INT64 : FT_BOOL;
    for (int64_t c = 0; c < nc; c++)
        if (fcol_alloc(&f->cols[c], (ftype_t)ft, rows, 0, false)) return -1;
    const char *src = in->data;
    for (int64_t c = 0; c < nc; c++) {
        void *o = f->cols[c].data;
        switch (dt) {
        case DT_FLOAT64:
            for (int64_t i = 0; i < rows; i++)
                ((double *)o)[i] = ((const double *)src)[i * nc + c];
            break;
        case DT_FLOAT32:
            for (int64_t i = 0; i < rows; i++)
                ((double *)o)[i] = ((const float *)src)[i * nc + c];
            break;
        case DT_INT64:
            for (int64_t i = 0; i < rows; i++)
                ((int64_t *)o)[i] = ((const int64_t *)src)[i * nc + c];
            break;
        case DT_INT32:
            for (int64_t i = 0; i < rows; i++)
                ((int64_t *)o)[i] = ((const int32_t *)src)[i * nc + c];
            break;
        default:
            for (int64_t i = 0; i < rows; i++)
                ((uint8_t *)o)[i] = ((const uint8_t *)src)[i * nc + c] != 0;
            break;
        }
    }
    return 0;
}

static int run_read_csv(const graph_node_t *n, const job_t *j, void **blob, size_t *len, char *err,
                        size_t errlen)
{
    const df_node_t *d = n->df;
    csv_file_t file = {0};
    csv_frame_t cf = {0};
    frame_t f = {0};
    char msg[1024];
    int rc = -1;
    const csv_range_t *rg = &d->ranges[j->off[0]];
    const char *path = d->npaths ? d->paths[rg->file] : d->path;
    if (csv_file_open(&file, path, msg, sizeof msg)) return errmsg(err, errlen, "%s", msg);
    if (d->npaths ? (int64_t)file.len != d->path_len[rg->file]
                  : file.len != (size_t)(d->ranges[d->nranges - 1].end)) {
        errmsg(err, errlen, "%s changed since the document was validated", path);
        goto done;
    }
    if (csv_read_range(file.buf, &d->hdr, rg, d->ctypes, &cf, msg, sizeof msg)) {
        if (d->npaths > 1) /* which of the pattern's files */
            errmsg(err, errlen, "%s: %s", path, msg);
        else
            errmsg(err, errlen, "%s", msg);
        goto done;
    }
    /* pandas' implicit index (csv.h): the file's first column is the
     * index, else the rows' positions in the file */
    int ix = d->hdr.implicit_index;
    if (frame_of_schema(d, false, cf.nrows, &f) ||
        (!ix && positions(&f.idx[0], cf.nrows, j->off[1]))) {
        oom(err, errlen);
        goto done;
    }
    for (int k = 0; k < cf.ncols && k < f.ncols + ix; k++) {
        csv_column_t *s = &cf.cols[k];
        fcol_t *c = k < ix ? &f.idx[0] : &f.cols[k - ix];
        c->unit = FU_NONE;
        c->type = (uint8_t)s->type;
        c->n = s->n;
        c->data = s->data;
        c->offsets = s->offsets;
        c->bytes = s->bytes;
        c->valid = s->valid;
        s->data = NULL;
        s->offsets = NULL;
        s->bytes = NULL;
        s->valid = NULL;
        if (k >= ix && d->cols[k - ix].unit == FU_NS && c->type == FT_STRING &&
            date_column_from_strings(c, d->cols[k - ix].name, j->off[1], d->dayfirst, err, errlen))
            goto done;
    }
    rc = emit(&f, blob, len, err, errlen);
done:
    frame_free(&f);
    csv_frame_close(&cf);
    csv_file_close(&file);
    return rc;
}

/* The columns of a shallow frame sel from s, labels from the schema. */
static int pick(const df_node_t *d, bool series, const frame_t *s, const int *sel, int nsel,
                frame_t *f)
{
    if (shallow(f, series, s->nrows, nsel, s->nidx)) return -1;
    for (int k = 0; k < nsel; k++) {
        f->cols[k] = s->cols[sel[k]];
        f->names[k] = s->names[sel[k]];
        if (d) {
            f->names[k].s = d->cols[k].name;
            f->names[k].is_int = d->cols[k].is_int;
        }
    }
    memcpy(f->idx, s->idx, sizeof(fcol_t) * (size_t)s->nidx);
    memcpy(f->idx_names, s->idx_names, sizeof(flabel_t) * (size_t)s->nidx);
    f->range_index = s->range_index;
    return 0;
}

/* One element-wise instruction over columns; registers as tile.c's. */
static int reg_new(ew_prog_t *p, dtype_t dt)
{
    int r = p->n_regs++;
    p->reg_dt[r] = (uint8_t)dt;
    p->is_const[r] = false;
    return r;
}

static int ins(ew_prog_t *p, op_t op, dtype_t cdt, dtype_t odt, int a, int b, int c)
{
    int dst = reg_new(p, odt);
    ew_ins_t *x = &p->ins[p->n_ins++];
    x->op = (int16_t)op;
    x->dt = (uint8_t)cdt;
    x->dst = (int8_t)dst;
    x->a = (int8_t)a;
    x->b = (int8_t)b;
    x->c = (int8_t)c;
    return dst;
}

static int cast(ew_prog_t *p, int r, dtype_t dt)
{
    return p->reg_dt[r] == dt ? r : ins(p, OP_ASTYPE, dt, dt, r, -1, -1);
}

static int konst(ew_prog_t *p, scalar_t s, dtype_t dt)
{
    int r = reg_new(p, dt);
    p->is_const[r] = true;
    p->konst[r] = s;
    return r;
}

static dtype_t ftdt(int t)
{
    return t == FT_INT64 ? DT_INT64 : t == FT_FLOAT64 ? DT_FLOAT64 : DT_BOOL;
}

/* Column k of an element-wise comparison of strings (columns of the frame
 * inputs v, or literals): bool, as pandas compares object columns; a
 * missing value compares unequal to everything (so != gives true); 1 when
 * an ordering meets a missing value, -1 when out of memory. */
/* add of strings (DF_EW_STRADD): each row's concatenation of the two
 * operands (columns or a literal), missing where either is. */
static int ew_stradd(const graph_node_t *n, const df_node_t *d, const frame_t *v, int k,
                     int64_t rows, fcol_t *out)
{
    const fcol_t *c[2] = {NULL, NULL};
    const char *lit[2] = {NULL, NULL};
    int q = 0;
    for (int j = 0; j < 2 && j < n->n_in; j++) {
        if (n->in[j].node < 0)
            lit[j] = n->in[j].str;
        else
            c[j] = &v[q++].cols[d->ew_col[k * n->n_in + j]];
    }
    size_t ll[2] = {lit[0] ? strlen(lit[0]) : 0, lit[1] ? strlen(lit[1]) : 0};
    int64_t nb = 1;
    bool any_na = false;
    for (int64_t i = 0; i < rows; i++) {
        bool na = false;
        int64_t len = 0;
        for (int s = 0; s < 2; s++) {
            int64_t l = (int64_t)ll[s];
            if (c[s]) {
                na |= fcol_is_na(c[s], i);
                fcol_str(c[s], i, &l);
            }
            len += l;
        }
        any_na |= na;
        if (!na) {
            if (len > INT64_MAX / 2 - nb) return -1;
            nb += len;
        }
    }
    if (fcol_alloc(out, FT_STRING, rows, nb, any_na)) return -1;
    int64_t at = 0;
    for (int64_t i = 0; i < rows; i++) {
        bool na = (c[0] && fcol_is_na(c[0], i)) || (c[1] && fcol_is_na(c[1], i));
        for (int s = 0; s < 2 && !na; s++) {
            int64_t l = (int64_t)ll[s];
            const char *p = c[s] ? fcol_str(c[s], i, &l) : lit[s];
            memcpy(out->bytes + at, p, (size_t)l);
            at += l;
        }
        if (na) out->valid[i] = 0;
        out->offsets[i + 1] = at;
    }
    out->bytes[at] = 0;
    return 0;
}

static int ew_strcmp(const graph_node_t *n, const df_node_t *d, const frame_t *v, int k,
                     int64_t rows, fcol_t *out)
{
    if (fcol_alloc(out, FT_BOOL, rows, 0, false)) return -1;
    uint8_t *o = out->data;
    const fcol_t *c[2] = {NULL, NULL};
    const char *lit[2] = {NULL, NULL};
    int q = 0;
    for (int j = 0; j < 2 && j < n->n_in; j++) {
        if (n->in[j].node < 0) {
            lit[j] = n->in[j].str;
            continue;
        }
        c[j] = &v[q++].cols[d->ew_col[k * n->n_in + j]];
    }
    size_t ll[2] = {lit[0] ? strlen(lit[0]) : 0, lit[1] ? strlen(lit[1]) : 0};
    for (int64_t i = 0; i < rows; i++) {
        const char *a[2];
        int64_t al[2];
        bool na = false;
        for (int s = 0; s < 2; s++) {
            if (c[s]) {
                na |= fcol_is_na(c[s], i);
                a[s] = fcol_str(c[s], i, &al[s]);
            } else {
                a[s] = lit[s];
                al[s] = (int64_t)ll[s];
            }
        }
        if (na) {
            /* pandas: NaN == "x" is False and != True; an ordering raises */
            if (n->op != OP_EQUAL && n->op != OP_NOT_EQUAL) return 1;
            o[i] = n->op == OP_NOT_EQUAL;
            continue;
        }
        int64_t m = al[0] < al[1] ? al[0] : al[1];
        int r = memcmp(a[0], a[1], (size_t)m);
        if (r == 0) r = al[0] < al[1] ? -1 : al[0] > al[1];
        switch (n->op) {
        case OP_EQUAL:
            o[i] = r == 0;
            break;
        case OP_NOT_EQUAL:
            o[i] = r != 0;
            break;
        case OP_LESS:
            o[i] = r < 0;
            break;
        case OP_LESS_EQUAL:
            o[i] = r <= 0;
            break;
        case OP_GREATER:
            o[i] = r > 0;
            break;
        default:
            o[i] = r >= 0;
            break;
        }
    }
    return 0;
}

/* where's three operands for column k: c[j] the column of input j, or
 * NULL for a literal */
static void where_cols(const graph_node_t *n, const df_node_t *d, const frame_t *v, int k,
                       const fcol_t **c)
{
    int q = 0;
    for (int j = 0; j < 3; j++)
        c[j] = n->in[j].node >= 0 ? &v[q++].cols[d->ew_col[k * n->n_in + j]] : NULL;
}

/* which of where's values row i takes: 1 where the condition holds, else 2
 * (a missing condition is false, as pandas' where) */
static int where_pick(const graph_node_t *n, const fcol_t *c0, int64_t i)
{
    const scalar_t *sc = &n->in[0].sc;
    bool t = c0                    ? !fcol_is_na(c0, i) && ((const uint8_t *)c0->data)[i]
             : sc->kind == SC_BOOL ? sc->b
             : sc->kind == SC_INT  ? sc->i != 0
                                   : sc->f != 0;
    return t ? 1 : 2;
}

/* Column k of where(cond, a, b) over bools meeting NaN: bools with
 * missing values. -1 when out of memory. */
static int ew_boolwhere(const graph_node_t *n, const df_node_t *d, const frame_t *v, int k,
                        int64_t rows, fcol_t *out)
{
    const fcol_t *c[3];
    where_cols(n, d, v, k, c);
    if (fcol_alloc(out, FT_BOOL, rows, 0, true)) return -1;
    for (int64_t i = 0; i < rows; i++) {
        int j = where_pick(n, c[0], i);
        bool has, val = false;
        if (c[j]) {
            has = !fcol_is_na(c[j], i);
            val = has && ((const uint8_t *)c[j]->data)[i];
        } else {
            has = n->in[j].sc.kind == SC_BOOL;
            val = has && n->in[j].sc.b;
        }
        ((uint8_t *)out->data)[i] = val;
        out->valid[i] = has;
    }
    return 0;
}

/* Column k of where(cond, a, b) over datetimes or timedeltas (columns of
 * one unit, or NaN: NaT). -1 when out of memory. */
static int ew_timewhere(const graph_node_t *n, const df_node_t *d, const frame_t *v, int k,
                        int64_t rows, fcol_t *out)
{
    const fcol_t *c[3];
    where_cols(n, d, v, k, c);
    if (fcol_alloc(out, FT_INT64, rows, 0, false)) return -1;
    out->unit = d->cols[k].unit;
    int64_t *o = out->data;
    for (int64_t i = 0; i < rows; i++) {
        int j = where_pick(n, c[0], i);
        o[i] = c[j] ? ((const int64_t *)c[j]->data)[i] : DATE_NAT;
    }
    return 0;
}

/* Column k of where(cond, a, b) over strings: a's string where cond holds,
 * else b's; a value a literal, a column of the frame inputs v, or NaN
 * (missing; a missing condition is false, as pandas' where). -1 when out
 * of memory. */
static int ew_strwhere(const graph_node_t *n, const df_node_t *d, const frame_t *v, int k,
                       int64_t rows, fcol_t *out)
{
    const fcol_t *c[3];
    where_cols(n, d, v, k, c);
    int64_t nb = 1;
    bool missing = false;
    for (int pass = 0; pass < 2; pass++) {
        int64_t at = 0;
        for (int64_t i = 0; i < rows; i++) {
            int j = where_pick(n, c[0], i);
            const char *s = NULL;
            int64_t len = 0;
            if (c[j]) {
                if (!fcol_is_na(c[j], i)) s = fcol_str(c[j], i, &len);
            } else if (n->in[j].str) {
                s = n->in[j].str;
                len = (int64_t)strlen(s);
            }
            if (pass == 0) {
                nb += len;
                missing |= !s;
                continue;
            }
            if (s) memcpy(out->bytes + at, s, (size_t)len);
            at += len;
            out->offsets[i + 1] = at;
            if (out->valid) out->valid[i] = s != NULL;
        }
        if (pass == 0 && fcol_alloc(out, FT_STRING, rows, nb, missing)) return -1;
        if (pass == 1) out->bytes[at] = 0;
    }
    return 0;
}

/* One operand of ew_time at row i: a datetime or timedelta (its int64,
 * NaT missing) or a number (int64, or float64 whose NaN is missing). */
typedef struct {
    const fcol_t *c;
    scalar_t sc;
    bool time;
} topd_t;

static bool topd_get(const topd_t *o, int64_t i, int64_t *iv, double *fv, bool *isf)
{
    if (o->c) {
        if (o->c->type == FT_FLOAT64) {
            *fv = ((const double *)o->c->data)[i];
            *isf = true;
            return *fv == *fv;
        }
        *iv = ((const int64_t *)o->c->data)[i];
        *isf = false;
        return !(o->time && *iv == DATE_NAT);
    }
    *isf = o->sc.kind == SC_FLOAT;
    if (*isf) {
        *fv = o->sc.f;
        return *fv == *fv;
    }
    *iv = o->sc.kind == SC_INT ? o->sc.i : o->sc.b;
    return true;
}

static int64_t floor_div64(int64_t a, int64_t b)
{
    if (b == 0) return 0; /* numpy's integer floor division by zero */
    if (b == -1) return a == INT64_MIN ? INT64_MIN : -a;
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

/* Column k of an element-wise op of datetimes and timedeltas (graph_df.c's
 * ew_time_type chose the output: d->cols[k]): pandas 1.5's results, NaT
 * (NaN in a float result) where an operand is missing, and comparisons
 * false there (not_equal true). A sum or difference past int64 fails the
 * job as pandas' OverflowError; so does an int64 product (numpy wraps
 * it). Returns 0, or -1 with err set. */
static int ew_time(const graph_node_t *n, const df_node_t *d, const frame_t *v, int k, int64_t rows,
                   fcol_t *out, char *err, size_t errlen)
{
    topd_t o[2];
    int ar = op_kind(n->op) == OPK_UNARY ? 1 : 2;
    for (int j = 0, q = 0; j < ar; j++) {
        memset(&o[j], 0, sizeof o[j]);
        if (n->in[j].node >= 0) {
            o[j].c = &v[q++].cols[d->ew_col[k * n->n_in + j]];
            o[j].time = o[j].c->type == FT_INT64 && o[j].c->unit != FU_NONE;
        } else {
            o[j].sc = n->in[j].sc;
            o[j].time = d->ew_lit_unit[j] != FU_NONE;
        }
    }
    ftype_t ot = (ftype_t)d->cols[k].type;
    bool any_nat = false;
    if (ot == FT_INT64 && !d->cols[k].unit) /* a floor division: float64 where NaT meets it */
        for (int64_t i = 0; i < rows && !any_nat; i++)
            for (int j = 0; j < ar; j++) {
                int64_t iv;
                double fv;
                bool isf;
                any_nat |= !topd_get(&o[j], i, &iv, &fv, &isf);
            }
    if (any_nat) ot = FT_FLOAT64;
    if (fcol_alloc(out, ot, rows, 0, false)) return oom(err, errlen);
    out->unit = ot == FT_INT64 ? d->cols[k].unit : FU_NONE;
    int64_t *oi = out->data;
    double *of = out->data;
    uint8_t *ob = out->data;
    for (int64_t i = 0; i < rows; i++) {
        int64_t a = 0, b = 0, r = 0;
        double af = 0, bf = 0;
        bool aflt = false, bflt = false;
        bool ok = topd_get(&o[0], i, &a, &af, &aflt);
        if (ar > 1) ok &= topd_get(&o[1], i, &b, &bf, &bflt);
        if (ot == FT_BOOL) {
            bool t = false;
            if (ok) switch (n->op) {
                case OP_EQUAL:
                    t = a == b;
                    break;
                case OP_NOT_EQUAL:
                    t = a != b;
                    break;
                case OP_LESS:
                    t = a < b;
                    break;
                case OP_LESS_EQUAL:
                    t = a <= b;
                    break;
                case OP_GREATER:
                    t = a > b;
                    break;
                default:
                    t = a >= b;
                    break;
                }
            else
                t = n->op == OP_NOT_EQUAL;
            ob[i] = t;
            continue;
        }
        if (!ok) {
            if (ot == FT_FLOAT64)
                of[i] = NAN;
            else
                oi[i] = DATE_NAT;
            continue;
        }
        bool over = false;
        switch (n->op) {
        case OP_NEGATIVE:
            r = -a;
            break;
        case OP_ABS:
            r = a < 0 ? -a : a;
            break;
        case OP_ADD:
            over = __builtin_add_overflow(a, b, &r) || r == DATE_NAT;
            break;
        case OP_SUBTRACT:
            over = __builtin_sub_overflow(a, b, &r) || r == DATE_NAT;
            break;
        case OP_MULTIPLY: { /* a timedelta and a number, either way round */
            bool ta = o[0].time;
            int64_t t = ta ? a : b, ni = ta ? b : a;
            double nf = ta ? bf : af;
            if (ta ? bflt : aflt)
                r = dfa_ns_of_double((double)t * nf);
            else
                over = __builtin_mul_overflow(t, ni, &r) || r == DATE_NAT;
            break;
        }
        case OP_DIVIDE:
        case OP_FLOOR_DIVIDE:
            if (o[1].time && n->op == OP_DIVIDE) {
                of[i] = (double)a / (double)b;
                continue;
            }
            if (o[1].time) {
                r = floor_div64(a, b);
                if (ot == FT_FLOAT64) {
                    of[i] = (double)r;
                    continue;
                }
            } else if (bflt) { /* by a number: truncated, as numpy's cast */
                r = dfa_ns_of_double((double)a / bf);
            } else {
                r = b == 0 ? DATE_NAT : a / b;
            }
            break;
        default: /* OP_MOD of timedeltas: a - (a // b) * b, as pandas (in [0, b)) */
            r = (int64_t)((__int128)a - (__int128)floor_div64(a, b) * b);
            break;
        }
        if (over)
            return errmsg(err, errlen,
                          "node \"%s\" (%s): Overflow in int64 %s at row %lld of the chunk "
                          "(the result is past timedelta64[ns]'s or datetime64[ns]'s range; "
                          "pandas raises OverflowError)",
                          n->key, op_name(n->op),
                          n->op == OP_MULTIPLY ? "multiplication"
                          : n->op == OP_ADD    ? "addition"
                                               : "subtraction",
                          (long long)i);
        oi[i] = r;
    }
    return 0;
}

static int run_ew(const graph_node_t *n, const dfx_in_t *ins_, int nin, frame_t *f, char *err,
                  size_t errlen)
{
    const df_node_t *d = n->df;
    frame_t v[3] = {{0}};
    int rc = -1, nv = 0;
    for (int q = 0; q < nin && q < 3; q++, nv++)
        if (view(&ins_[q], &v[q], err, errlen)) goto done;
    if (frame_of_schema(d, n->vkind == VK_SERIES, v[0].nrows, f)) {
        oom(err, errlen);
        goto done;
    }
    for (int k = 0; k < v[0].nidx; k++)
        if (fcol_copy(&v[0].idx[k], &f->idx[k]) ||
            flabel_set(&f->idx_names[k], v[0].idx_names[k].s, v[0].idx_names[k].is_int)) {
            oom(err, errlen);
            goto done;
        }
    f->range_index = v[0].range_index;
    int64_t rows = v[0].nrows;
    for (int k = 0; k < d->ncols; k++) {
        if (d->ew_dt[k] == DF_EW_STRWHERE || d->ew_dt[k] == DF_EW_BOOLWHERE) {
            if (d->ew_dt[k] == DF_EW_STRWHERE ? ew_strwhere(n, d, v, k, rows, &f->cols[k])
                                              : ew_boolwhere(n, d, v, k, rows, &f->cols[k])) {
                oom(err, errlen);
                goto done;
            }
            continue;
        }
        if (d->ew_dt[k] == DF_EW_TIME) {
            if (ew_time(n, d, v, k, rows, &f->cols[k], err, errlen)) goto done;
            continue;
        }
        if (d->ew_dt[k] == DF_EW_TIMEWHERE) {
            if (ew_timewhere(n, d, v, k, rows, &f->cols[k])) {
                oom(err, errlen);
                goto done;
            }
            continue;
        }
        if (d->ew_dt[k] == DF_EW_STRADD) {
            if (ew_stradd(n, d, v, k, rows, &f->cols[k])) {
                errmsg(err, errlen, "node \"%s\" (add of strings): out of memory", n->key);
                goto done;
            }
            continue;
        }
        if (d->ew_dt[k] == DF_EW_STRCMP) {
            int sr = ew_strcmp(n, d, v, k, rows, &f->cols[k]);
            if (sr) {
                if (sr < 0)
                    oom(err, errlen);
                else
                    errmsg(err, errlen,
                           "node \"%s\" (%s): a missing value cannot be ordered against a "
                           "string (pandas raises TypeError)",
                           n->key, op_name(n->op));
                goto done;
            }
            continue;
        }
        ew_prog_t p;
        memset(&p, 0, sizeof p);
        arr_t in[3];
        int reg[3] = {-1, -1, -1};
        int q = 0;
        for (int jn = 0; jn < n->n_in && jn < 3; jn++) {
            if (n->in[jn].node < 0) continue;
            const fcol_t *c = &v[q].cols[d->ew_col[k * n->n_in + jn]];
            in[q].data = c->data;
            in[q].dt = ftdt(c->type);
            in[q].shape.ndim = 1;
            in[q].shape.d[0] = rows;
            reg[jn] = q;
            p.reg_dt[q] = (uint8_t)in[q].dt;
            q++;
        }
        p.n_inputs = p.n_regs = q;
        dtype_t cd = (dtype_t)d->ew_dt[k], od = ftdt(d->cols[k].type);
        /* frame.h's fcol_chunk_type, in dtypes: an input chunk float64
         * where the schema computes in int64 makes this chunk compute in
         * float64, and its result float64 too */
        for (int i = 0; i < q && n->op != OP_ASTYPE; i++)
            if (cd == DT_INT64 && in[i].dt == DT_FLOAT64) {
                cd = DT_FLOAT64;
                if (od == DT_INT64) od = DT_FLOAT64;
            }
        int r;
        if (n->op == OP_ASTYPE) {
            int a = reg[0] >= 0 ? reg[0] : konst(&p, n->in[0].sc, sc_default_dtype(n->in[0].sc));
            /* a narrower target (int8, float32 ...) converts as numpy
             * does, then widens to the column's int64 or float64 */
            r = ins(&p, OP_ASTYPE, cd, cd, a, -1, -1);
            r = cast(&p, r, od);
        } else if (n->op == OP_WHERE) {
            int c0 = reg[0] >= 0 ? cast(&p, reg[0], DT_BOOL) : konst(&p, n->in[0].sc, DT_BOOL);
            int x = reg[1] >= 0 ? cast(&p, reg[1], cd) : konst(&p, n->in[1].sc, cd);
            int y = reg[2] >= 0 ? cast(&p, reg[2], cd) : konst(&p, n->in[2].sc, cd);
            r = ins(&p, OP_WHERE, cd, od, c0, x, y);
        } else if (n->op == OP_CLIP) {
            int a = reg[0] >= 0 ? cast(&p, reg[0], cd) : konst(&p, n->in[0].sc, cd);
            int lo = n->has_a_min ? konst(&p, n->a_min, cd) : -1;
            int hi = n->has_a_max ? konst(&p, n->a_max, cd) : -1;
            r = ins(&p, OP_CLIP, cd, od, a, lo, hi);
        } else {
            int o[2] = {-1, -1};
            int ar = op_kind(n->op) == OPK_UNARY ? 1 : 2;
            for (int i = 0; i < ar; i++)
                o[i] = reg[i] >= 0 ? cast(&p, reg[i], cd) : konst(&p, n->in[i].sc, cd);
            r = ins(&p, n->op, cd, od, o[0], o[1], -1);
        }
        p.out = r;
        if (fcol_alloc(&f->cols[k], od == DT_FLOAT64 ? FT_FLOAT64 : (ftype_t)d->cols[k].type, rows,
                       0, false)) {
            oom(err, errlen);
            goto done;
        }
        arr_t out = {.data = f->cols[k].data, .dt = od};
        out.shape.ndim = 1;
        out.shape.d[0] = rows;
        if (kern_ew_eval(&p, in, &out, err, errlen)) goto done;
        /* NaT compares false (not_equal true), as pandas */
        bool cmp = op_is_comparison(n->op);
        for (int jn = 0, q2 = 0; cmp && jn < n->n_in && jn < 3; jn++) {
            if (n->in[jn].node < 0) continue;
            const fcol_t *c = &v[q2++].cols[d->ew_col[k * n->n_in + jn]];
            if (c->type != FT_INT64 || c->unit == FU_NONE) continue;
            for (int64_t i = 0; i < rows; i++)
                if (((const int64_t *)c->data)[i] == DATE_NAT)
                    ((uint8_t *)f->cols[k].data)[i] = n->op == OP_NOT_EQUAL;
        }
    }
    rc = 0;
done:
    for (int q = 0; q < nv; q++)
        frame_free(&v[q]);
    return rc;
}

static int run_filter(const dfx_in_t *ins_, frame_t *f, char *err, size_t errlen)
{
    frame_t a, m;
    if (view(&ins_[0], &a, err, errlen)) return -1;
    if (view(&ins_[1], &m, err, errlen)) {
        frame_free(&a);
        return -1;
    }
    int rc = -1;
    int64_t *rows = malloc(sizeof(int64_t) * (size_t)(a.nrows + 1)), k = 0;
    if (!rows || m.nrows != a.nrows || m.cols[0].type != FT_BOOL) {
        errmsg(err, errlen, rows ? "internal: the mask does not line up" : "out of memory");
        goto done;
    }
    const uint8_t *mv = m.cols[0].data, *ok = m.cols[0].valid;
    for (int64_t i = 0; i < a.nrows; i++)
        if (mv[i] && (!ok || ok[i])) rows[k++] = i;
    rc = frame_take(&a, rows, k, f) ? oom(err, errlen) : 0;
done:
    free(rows);
    frame_free(&a);
    frame_free(&m);
    return rc;
}

static int run_assign(const graph_node_t *n, const dfx_in_t *ins_, void **blob, size_t *len,
                      char *err, size_t errlen)
{
    const df_node_t *d = n->df;
    frame_t *v = calloc((size_t)n->n_in, sizeof(frame_t));
    frame_t f = {0};
    int rc = -1, nv = 0;
    if (!v) return oom(err, errlen);
    for (; nv < n->n_in; nv++)
        if (view(&ins_[nv], &v[nv], err, errlen)) goto done;
    if (shallow(&f, false, v[0].nrows, d->ncols, v[0].nidx)) {
        oom(err, errlen);
        goto done;
    }
    for (int k = 0; k < d->ncols; k++) {
        int s = d->assign_src[k];
        const fcol_t *c = s < 0 ? &v[0].cols[-1 - s] : &v[s].cols[0];
        if (c->n != v[0].nrows) {
            errmsg(err, errlen, "internal: assigned Series does not line up");
            goto done;
        }
        f.cols[k] = *c;
        f.names[k].s = d->cols[k].name;
        f.names[k].is_int = d->cols[k].is_int;
    }
    memcpy(f.idx, v[0].idx, sizeof(fcol_t) * (size_t)v[0].nidx);
    memcpy(f.idx_names, v[0].idx_names, sizeof(flabel_t) * (size_t)v[0].nidx);
    f.range_index = v[0].range_index;
    date_stamp_units(n->df, &f);
    rc = emit(&f, blob, len, err, errlen);
done:
    frame_free(&f);
    for (int q = 0; q < nv; q++)
        frame_free(&v[q]);
    free(v);
    return rc;
}

/* Views of every input; *v (n frames) to free with free_views. */
static int views(const dfx_in_t *ins_, int n, frame_t **v, char *err, size_t errlen)
{
    *v = calloc((size_t)n + 1, sizeof(frame_t));
    if (!*v) return oom(err, errlen);
    for (int k = 0; k < n; k++)
        if (view(&ins_[k], &(*v)[k], err, errlen)) return -1;
    return 0;
}

static void free_views(frame_t *v, int n)
{
    for (int k = 0; v && k < n; k++)
        frame_free(&v[k]);
    free(v);
}

static int concat_views(frame_t *v, int n, frame_t *out, char *err, size_t errlen)
{
    const frame_t **p = calloc((size_t)n + 1, sizeof(frame_t *));
    if (!p) return oom(err, errlen);
    for (int k = 0; k < n; k++)
        p[k] = &v[k];
    int rc = dfx_concat(p, n, out, err, errlen);
    free(p);
    return rc;
}

/* A groupby_agg's (resample's) result column the schema types float64 (a
 * merge's int64 column that may get missing values, pandas' float64 when
 * one did) but computed int64 from chunks that had none: float64, as the
 * schema says and pandas' aggregation of its float64 column gives
 * (docs/graph-format.md). */
static int gb_schema_floats(const df_node_t *d, frame_t *f, char *err, size_t errlen)
{
    for (int k = 0; k < f->ncols && k < d->ncols && f->ncols == d->ncols; k++) {
        fcol_t *c = &f->cols[k];
        if (d->cols[k].type != FT_FLOAT64 || c->type != FT_INT64 || c->unit != FU_NONE) continue;
        fcol_t w;
        if (fcol_widen(c, &w)) return oom(err, errlen);
        fcol_free(c);
        *c = w;
    }
    return 0;
}

/* unstack: the Series s seen as a frame of its index levels and its values
 * (a view: s keeps owning them), pivoted on graph_df.c's infer_unstack's
 * keys. */
static int unstack_run(const df_node_t *d, const frame_t *s, frame_t *out, char *err, size_t errlen)
{
    int nl = s->nidx;
    frame_t w = {.view = true, .nrows = s->nrows, .ncols = nl + 1, .nidx = 1};
    w.cols = calloc((size_t)nl + 1, sizeof *w.cols);
    w.names = calloc((size_t)nl + 1, sizeof *w.names);
    w.idx = calloc(1, sizeof *w.idx);
    w.idx_names = calloc(1, sizeof *w.idx_names);
    int rc = -1;
    if (s->ncols != 1) {
        rc = errmsg(err, errlen, "internal: unstack of %d columns", s->ncols);
    } else if (!w.cols || !w.names || !w.idx || !w.idx_names) {
        rc = oom(err, errlen);
    } else {
        for (int k = 0; k < nl; k++) {
            w.cols[k] = s->idx[k];
            w.names[k] = s->idx_names[k];
        }
        w.cols[nl] = s->cols[0];
        w.names[nl] = s->names[0];
        w.idx[0] = s->idx[0];
        rc = df3_pivot_reshape(d, OP_DF_UNSTACK, &w, out, err, errlen);
    }
    frame_free(&w);
    return rc;
}

static int run_head(const job_t *j, const dfx_in_t *ins_, frame_t *f, char *err, size_t errlen)
{
    frame_t *v = NULL;
    int rc = -1;
    if (views(ins_, j->n_in, &v, err, errlen)) goto done;
    int64_t left = j->off[0];
    int m = 0;
    frame_t last = {0};
    bool cut = false;
    while (m < j->n_in && (left > 0 || m == 0)) {
        if (v[m].nrows > left) {
            if (frame_slice(&v[m], 0, left, &last)) {
                oom(err, errlen);
                goto done;
            }
            frame_free(&v[m]);
            v[m] = last;
            cut = true;
        }
        left -= v[m].nrows;
        m++;
        if (cut) break;
    }
    rc = concat_views(v, m, f, err, errlen);
done:
    free_views(v, j->n_in);
    return rc;
}

/* ------------------------------------------------------------------ reductions */

typedef struct {
    double cnt, sum, m2, mn, mx, prod;
    int64_t isum, imn, imx, iprod;
    int64_t kind; /* 0 float, 1 int, 2 bool */
} part_t;

size_t dfx_partial_bytes(int ncols)
{
    return sizeof(part_t) * (size_t)(ncols > 0 ? ncols : 1);
}

static void part_init(part_t *p, int kind)
{
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->mn = INFINITY;
    p->mx = -INFINITY;
    p->prod = 1;
    p->imn = INT64_MAX;
    p->imx = INT64_MIN;
    p->iprod = 1;
}

/* Partial of a float column (stride in elements). */
static void part_f(part_t *p, dfred_t r, const double *x, int64_t n, int64_t st)
{
    double s = 0, c = 0;
    switch (r) {
    case DFR_SUM:
    case DFR_MEAN:
        for (int64_t i = 0; i < n; i++) {
            double v = x[i * st];
            if (v == v) {
                s += v;
                c++;
            }
        }
        p->sum = s;
        p->cnt = c;
        break;
    case DFR_COUNT:
        for (int64_t i = 0; i < n; i++)
            c += x[i * st] == x[i * st];
        p->cnt = c;
        break;
    case DFR_MIN:
    case DFR_MAX:
        for (int64_t i = 0; i < n; i++) {
            double v = x[i * st];
            if (v == v) {
                c++;
                if (v < p->mn) p->mn = v;
                if (v > p->mx) p->mx = v;
            }
        }
        p->cnt = c;
        break;
    case DFR_PROD:
        for (int64_t i = 0; i < n; i++) {
            double v = x[i * st];
            if (v == v) {
                p->prod *= v;
                c++;
            }
        }
        p->cnt = c;
        break;
    case DFR_ANY:
    case DFR_ALL: /* NaN skipped (skipna) */
        for (int64_t i = 0; i < n; i++) {
            double v = x[i * st];
            c += v == v;
            p->isum += v == v && v != 0;
        }
        p->cnt = c;
        break;
    default: {
        for (int64_t i = 0; i < n; i++) {
            double v = x[i * st];
            if (v == v) {
                s += v;
                c++;
            }
        }
        double mean = c > 0 ? s / c : 0, m2 = 0;
        for (int64_t i = 0; i < n; i++) {
            double v = x[i * st];
            if (v == v) m2 += (v - mean) * (v - mean);
        }
        p->sum = s;
        p->cnt = c;
        p->m2 = m2;
    }
    }
}

static void part_i(part_t *p, dfred_t r, const int64_t *x, int64_t n, int64_t st)
{
    p->cnt = (double)n;
    if (r == DFR_ANY || r == DFR_ALL) { /* the values that are not zero */
        for (int64_t i = 0; i < n; i++)
            p->isum += x[i * st] != 0;
        return;
    }
    uint64_t s = 0, pr = 1;
    double ds = 0, dp = 1;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = x[i * st];
        s += (uint64_t)v;
        ds += (double)v;
        if (r == DFR_PROD) {
            pr *= (uint64_t)v;
            dp *= (double)v;
        }
        if (v < p->imn) p->imn = v;
        if (v > p->imx) p->imx = v;
    }
    p->isum = (int64_t)s;
    p->iprod = (int64_t)pr;
    p->sum = ds;
    p->prod = dp; /* the float fields too: see part_merge */
    if (r == DFR_STD || r == DFR_VAR) {
        double mean = n > 0 ? ds / (double)n : 0, m2 = 0;
        for (int64_t i = 0; i < n; i++) {
            double e = (double)x[i * st] - mean;
            m2 += e * e;
        }
        p->m2 = m2;
    }
}

static void part_b(part_t *p, const uint8_t *x, const uint8_t *valid, int64_t n, int64_t st)
{
    int64_t c = 0, t = 0, mn = 1, mx = 0;
    for (int64_t i = 0; i < n; i++) {
        if (valid && !valid[i * st]) continue;
        int v = x[i * st] != 0;
        c++;
        t += v;
        mn &= v;
        mx |= v;
    }
    p->cnt = (double)c;
    p->isum = t;
    p->sum = (double)t;
    p->imn = c ? mn : INT64_MAX;
    p->imx = c ? mx : INT64_MIN;
    p->iprod = c == t ? 1 : 0;
    double mean = c ? (double)t / (double)c : 0;
    p->m2 = (double)t * (1 - mean) * (1 - mean) + (double)(c - t) * mean * mean;
}

/* any and all of a frame's column: cnt its values (missing ones skipped,
 * as skipna), isum those that are true as Python sees them: a number not
 * zero, a non-empty string, a datetime other than the epoch (its int64), a
 * date (always) */
static void part_truth(part_t *p, const fcol_t *c)
{
    int64_t cnt = 0, t = 0;
    for (int64_t i = 0; i < c->n; i++) {
        if (fcol_is_na(c, i)) continue;
        bool v;
        if (c->type == FT_FLOAT64) {
            double x = ((const double *)c->data)[i];
            if (x != x) continue;
            v = x != 0;
        } else if (c->type == FT_INT64) {
            int64_t x = ((const int64_t *)c->data)[i];
            if (c->unit != FU_NONE && x == DATE_NAT) continue;
            v = c->unit == FU_DATE || x != 0;
        } else if (c->type == FT_BOOL) {
            v = ((const uint8_t *)c->data)[i] != 0;
        } else {
            v = c->offsets[i + 1] > c->offsets[i];
        }
        cnt++;
        t += v;
    }
    part_init(p, c->type == FT_FLOAT64 ? 0 : c->type == FT_INT64 ? 1 : c->type == FT_BOOL ? 2 : 3);
    p->cnt = (double)cnt;
    p->isum = t;
}

/* An int partial as a float one (its sum, m2 and prod are kept as doubles
 * too). */
static void part_to_float(part_t *p)
{
    if (p->kind != 1) return;
    p->kind = 0;
    p->mn = p->cnt > 0 ? (double)p->imn : INFINITY;
    p->mx = p->cnt > 0 ? (double)p->imx : -INFINITY;
}

static void part_merge(part_t *a, const part_t *b_)
{
    /* a column int64 in some chunks and float64 in others (a merge's
     * chunk where no value went missing, a replace that matched nothing
     * there): the whole is float64, as pandas' column */
    part_t bf = *b_;
    const part_t *b = &bf;
    if (a->kind != bf.kind && a->kind <= 1 && bf.kind <= 1) {
        part_to_float(a);
        part_to_float(&bf);
    }
    double n = a->cnt + b->cnt;
    if (n > 0 && a->cnt > 0 && b->cnt > 0) {
        double d = b->sum / b->cnt - a->sum / a->cnt;
        a->m2 += b->m2 + d * d * a->cnt * b->cnt / n;
    } else if (b->cnt > 0) {
        a->m2 = b->m2;
    }
    a->cnt = n;
    a->sum += b->sum;
    a->mn = b->mn < a->mn ? b->mn : a->mn;
    a->mx = b->mx > a->mx ? b->mx : a->mx;
    a->prod *= b->prod;
    a->isum = (int64_t)((uint64_t)a->isum + (uint64_t)b->isum);
    a->iprod = (int64_t)((uint64_t)a->iprod * (uint64_t)b->iprod);
    a->imn = b->imn < a->imn ? b->imn : a->imn;
    a->imx = b->imx > a->imx ? b->imx : a->imx;
}

static int run_red_map(const tile_t *t, const job_t *j, const dfx_in_t *in, void *out, char *err,
                       size_t errlen)
{
    const graph_node_t *n = &t->g->nodes[j->node];
    const df_node_t *d = n->df;
    dfred_t r = df_red_of(n->op);
    part_t *p = out;
    if (j->off[1]) {
        /* the rows of a from_tensor: a row-major array */
        const jin_t *ji = &j->in[0];
        int64_t rows = ji->shape[0], nc = ji->ndim == 2 ? ji->shape[1] : 1;
        dtype_t dt = ji->dt;
        if (dt == DT_FLOAT64 && r == DFR_SUM && nc <= 4096) {
            /* the hot path: row by row, a running sum per column */
            const double *x = in->data;
            double *s = calloc((size_t)nc, sizeof(double));
            double *c = calloc((size_t)nc, sizeof(double));
            if (!s || !c) {
                free(s);
                free(c);
                return oom(err, errlen);
            }
            for (int64_t i = 0; i < rows; i++) {
                const double *row = x + i * nc;
                for (int64_t k = 0; k < nc; k++) {
                    double v = row[k];
                    if (v == v) {
                        s[k] += v;
                        c[k] += 1;
                    }
                }
            }
            for (int64_t k = 0; k < nc; k++) {
                part_init(&p[k], 0);
                p[k].sum = s[k];
                p[k].cnt = c[k];
            }
            free(s);
            free(c);
            return 0;
        }
        for (int64_t k = 0; k < nc; k++) {
            if (dt == DT_FLOAT64) {
                part_init(&p[k], 0);
                part_f(&p[k], r, (const double *)in->data + k, rows, nc);
            } else if (dt == DT_INT64) {
                part_init(&p[k], 1);
                part_i(&p[k], r, (const int64_t *)in->data + k, rows, nc);
            } else if (dt == DT_BOOL) {
                part_init(&p[k], 2);
                part_b(&p[k], (const uint8_t *)in->data + k, NULL, rows, nc);
            } else {
                /* 32-bit types: widen the column first */
                bool f = dt == DT_FLOAT32;
                void *tmp = malloc(8 * (size_t)(rows ? rows : 1));
                if (!tmp) return oom(err, errlen);
                for (int64_t i = 0; i < rows; i++) {
                    if (f)
                        ((double *)tmp)[i] = ((const float *)in->data)[i * nc + k];
                    else
                        ((int64_t *)tmp)[i] = ((const int32_t *)in->data)[i * nc + k];
                }
                part_init(&p[k], f ? 0 : 1);
                if (f)
                    part_f(&p[k], r, tmp, rows, 1);
                else
                    part_i(&p[k], r, tmp, rows, 1);
                free(tmp);
            }
        }
        return 0;
    }
    frame_t f;
    if (view(in, &f, err, errlen)) return -1;
    for (int k = 0; k < d->nsel; k++) {
        const fcol_t *c = &f.cols[d->sel[k]];
        if (r == DFR_ANY || r == DFR_ALL) {
            part_truth(&p[k], c);
        } else if (c->type == FT_FLOAT64) {
            part_init(&p[k], 0);
            part_f(&p[k], r, c->data, c->n, 1);
        } else if (c->type == FT_INT64) {
            part_init(&p[k], 1);
            const int64_t *x = c->data;
            int64_t m = c->n, *kept = NULL;
            if (c->unit != FU_NONE) { /* datetimes and timedeltas: NaT skipped */
                kept = malloc(sizeof *kept * (size_t)(c->n ? c->n : 1));
                if (!kept) {
                    frame_free(&f);
                    return oom(err, errlen);
                }
                m = 0;
                for (int64_t i = 0; i < c->n; i++)
                    if (x[i] != DATE_NAT) kept[m++] = x[i];
                x = kept;
            }
            part_i(&p[k], r, x, m, 1);
            free(kept);
        } else if (c->type == FT_BOOL) {
            part_init(&p[k], 2);
            part_b(&p[k], c->data, c->valid, c->n, 1);
        } else {
            /* count of a string Series */
            part_init(&p[k], 3);
            int64_t cnt = 0;
            for (int64_t i = 0; i < c->n; i++)
                cnt += !fcol_is_na(c, i);
            p[k].cnt = (double)cnt;
        }
    }
    frame_free(&f);
    return 0;
}

/* The result of reduction r over partial p, stored as type rt. */
static void red_value(dfred_t r, const part_t *p, int64_t ddof, int rt, void *dst)
{
    double v = NAN;
    int64_t iv = 0;
    bool isint = false;
    switch (r) {
    case DFR_SUM:
        if (p->kind == 0)
            v = p->sum;
        else {
            iv = p->isum;
            isint = true;
        }
        break;
    case DFR_PROD:
        if (p->kind == 0)
            v = p->prod;
        else {
            iv = p->iprod;
            isint = true;
        }
        break;
    case DFR_MEAN:
        v = p->cnt > 0 ? p->sum / p->cnt : NAN;
        break;
    case DFR_COUNT:
        iv = (int64_t)p->cnt;
        isint = true;
        break;
    case DFR_ANY:
        iv = p->isum > 0;
        isint = true;
        break;
    case DFR_ALL:
        iv = p->isum == (int64_t)p->cnt;
        isint = true;
        break;
    case DFR_MIN:
    case DFR_MAX:
        if (p->kind == 0)
            v = p->cnt > 0 ? (r == DFR_MIN ? p->mn : p->mx) : NAN;
        else if (p->cnt > 0) {
            iv = r == DFR_MIN ? p->imn : p->imx;
            isint = true;
        }
        break;
    default: {
        double den = p->cnt - (double)ddof;
        v = den > 0 ? p->m2 / den : NAN;
        if (r == DFR_STD) v = sqrt(v);
    }
    }
    if (!isint && rt != FT_FLOAT64) {
        isint = true;
        iv = v == v ? (int64_t)v : 0;
    }
    if (rt == FT_FLOAT64)
        *(double *)dst = isint ? (double)iv : v;
    else if (rt == FT_INT64)
        *(int64_t *)dst = isint ? iv : (int64_t)v;
    else
        *(uint8_t *)dst = (isint ? iv : (int64_t)v) != 0;
}

static int run_red_final(const tile_t *t, const job_t *j, const part_t *p, void **blob, size_t *len,
                         void *fixed, char *err, size_t errlen)
{
    const graph_node_t *n = &t->g->nodes[j->node];
    const df_node_t *d = n->df;
    const graph_node_t *src = &t->g->nodes[n->in[0].node];
    dfred_t r = df_red_of(n->op);
    bool minmax = r == DFR_MIN || r == DFR_MAX;
    if (n->vkind == VK_TENSOR) {
        int rt = n->odtype == DT_FLOAT64 ? FT_FLOAT64 : n->odtype == DT_INT64 ? FT_INT64 : FT_BOOL;
        if (minmax && rt != FT_FLOAT64 && p[0].cnt == 0)
            return errmsg(err, errlen,
                          "node \"%s\" (%s): the Series is empty, and its %s is NaN, which the "
                          "%s scalar fixed when the document was validated cannot hold",
                          n->key, op_name(n->op), r == DFR_MIN ? "min" : "max", dt_name(n->odtype));
        red_value(r, &p[0], d->ddof, rt, fixed);
        return 0;
    }
    frame_t f;
    if (frame_of_schema(d, true, d->nsel, &f)) return oom(err, errlen);
    int rt = d->cols[0].type;
    /* pandas: the min or max of an empty column is NaN, so the Series is
     * float64 */
    for (int k = 0; minmax && rt != FT_FLOAT64 && k < d->nsel; k++)
        if (p[k].cnt == 0) rt = FT_FLOAT64;
    /* and the sum or product of a frame with no rows is 0.0 or 1.0 (int
     * and bool columns have no missing values: no count, no rows) */
    bool none = d->nsel > 0;
    for (int k = 0; k < d->nsel; k++)
        none &= p[k].cnt == 0;
    if ((r == DFR_SUM || r == DFR_PROD) && none) rt = FT_FLOAT64;
    const df_node_t *s = src->df;
    int it = d->idx[0].type;
    int64_t nb = 1;
    for (int k = 0; k < d->nsel; k++)
        nb += s->cols[d->sel[k]].name ? (int64_t)strlen(s->cols[d->sel[k]].name) : 0;
    if (fcol_alloc(&f.cols[0], (ftype_t)rt, d->nsel, 0, false) ||
        fcol_alloc(&f.idx[0], (ftype_t)it, d->nsel, nb, false)) {
        frame_free(&f);
        return oom(err, errlen);
    }
    int64_t at = 0;
    for (int k = 0; k < d->nsel; k++) {
        const df_col_t *c = &s->cols[d->sel[k]];
        if (it == FT_INT64) {
            ((int64_t *)f.idx[0].data)[k] = strtoll(c->name, NULL, 10);
        } else {
            size_t l = c->name ? strlen(c->name) : 0;
            memcpy(f.idx[0].bytes + at, c->name ? c->name : "", l);
            at += (int64_t)l;
            f.idx[0].offsets[k + 1] = at;
        }
        void *dst = (char *)f.cols[0].data + (size_t)k * (rt == FT_BOOL ? 1 : 8);
        red_value(r, &p[k], d->ddof, rt, dst);
    }
    if (it == FT_STRING) f.idx[0].bytes[at] = 0;
    int rc = emit(&f, blob, len, err, errlen);
    frame_free(&f);
    return rc;
}

/* ------------------------------------------------------------------ to_tensor */

static int run_to_tensor(const graph_node_t *n, const job_t *j, const dfx_in_t *ins_, frame_t *f,
                         char *err, size_t errlen)
{
    const df_node_t *d = n->df;
    frame_t *v = NULL, all = {0};
    int rc = -1;
    if (views(ins_, j->n_in, &v, err, errlen) || concat_views(v, j->n_in, &all, err, errlen))
        goto done;
    int ft = d->tdt == DT_FLOAT64 ? FT_FLOAT64 : d->tdt == DT_INT64 ? FT_INT64 : FT_BOOL;
    if (frame_alloc(f, false, all.nrows, d->nsel, 1) || positions(&f->idx[0], all.nrows, 0)) {
        oom(err, errlen);
        goto done;
    }
    for (int k = 0; k < d->nsel; k++) {
        const fcol_t *c = &all.cols[d->sel[k]];
        fcol_t *o = &f->cols[k];
        if (fcol_alloc(o, (ftype_t)ft, all.nrows, 0, false)) {
            oom(err, errlen);
            goto done;
        }
        for (int64_t i = 0; i < all.nrows; i++) {
            double x = c->type == FT_FLOAT64 ? ((double *)c->data)[i]
                       : c->type == FT_INT64 ? (double)((int64_t *)c->data)[i]
                                             : (double)((uint8_t *)c->data)[i];
            if (ft == FT_INT64 && c->type == FT_FLOAT64 && x != x) {
                /* an int64 column's float64 chunk holds a missing value
                 * where validation made the tensor int64 (a guard: the
                 * columns typed chunk by chunk make it float64) */
                const char *nm = all.names[d->sel[k]].s;
                errmsg(err, errlen,
                       "column '%s' holds a missing value (NaN), which an int64 tensor cannot "
                       "hold; astype it to float64 first",
                       nm ? nm : "");
                goto done;
            }
            if (ft == FT_FLOAT64)
                ((double *)o->data)[i] = x;
            else if (ft == FT_INT64)
                ((int64_t *)o->data)[i] =
                    c->type == FT_INT64 ? ((int64_t *)c->data)[i] : (int64_t)x;
            else
                ((uint8_t *)o->data)[i] = x != 0;
        }
    }
    rc = 0;
done:
    frame_free(&all);
    free_views(v, j->n_in);
    return rc;
}

/* ------------------------------------------------------------------ algorithms */

static int run_pack_part(const dfx_in_t *in, int64_t p, frame_t *f, bool *have, char *err,
                         size_t errlen)
{
    const void *b = NULL;
    size_t bl = 0;
    int64_t np = 0;
    *have = false;
    if (dfx_pack_part(in->data, in->len, 0, &b, &bl, &np, err, errlen)) return -1;
    if (p >= np) return 0;
    if (dfx_pack_part(in->data, in->len, p, &b, &bl, &np, err, errlen) ||
        frame_view(b, bl, f, err, errlen))
        return -1;
    *have = true;
    return 0;
}

/* Part p of packs ins_[0..n) concatenated (an empty frame shaped as part 0
 * of the first pack when no pack has the part). */
static int gather_part_as(const dfx_in_t *ins_, int n, int64_t p, const gb_spec_t *gb, frame_t *out,
                          char *err, size_t errlen);

static int gather_part(const dfx_in_t *ins_, int n, int64_t p, frame_t *out, char *err,
                       size_t errlen)
{
    return gather_part_as(ins_, n, p, NULL, out, err, errlen);
}

/* gather_part, or with gb (groupby partials) their combine: df_gb_combine
 * reads each partial's own state types (a nunique set int64 in one chunk,
 * float64 in another), which one concatenated frame would not keep. */
static int gather_part_as(const dfx_in_t *ins_, int n, int64_t p, const gb_spec_t *gb, frame_t *out,
                          char *err, size_t errlen)
{
    frame_t *v = calloc((size_t)n + 1, sizeof(frame_t));
    int m = 0, rc = -1;
    if (!v) return oom(err, errlen);
    for (int k = 0; k < n; k++) {
        bool have;
        if (run_pack_part(&ins_[k], p, &v[m], &have, err, errlen)) goto done;
        m += have;
    }
    if (gb && m > 0) {
        const frame_t **vp = calloc((size_t)m + 1, sizeof(frame_t *));
        if (!vp) {
            rc = oom(err, errlen);
            goto done;
        }
        for (int k = 0; k < m; k++)
            vp[k] = &v[k];
        rc = df_gb_combine(vp, m, gb, out, err, errlen);
        free(vp);
        goto done;
    }
    if (m == 0) {
        frame_t z;
        bool have;
        if (run_pack_part(&ins_[0], 0, &z, &have, err, errlen)) goto done;
        rc = frame_slice(&z, 0, 0, out) ? oom(err, errlen) : 0;
        frame_free(&z);
        goto done;
    }
    rc = concat_views(v, m, out, err, errlen);
done:
    free_views(v, m);
    return rc;
}

/* DFJ_MERGE_ORDER's hidden column of positions (chunk << 32 | row): left's
 * rows carry MERGE_POS, right's MERGE_RPOS (right and outer merges); names
 * no document can give (labels are printable). The order job sorts by
 * MERGE_POS. */
static const char MERGE_POS[] = "\x01pos", MERGE_RPOS[] = "\x01rpos";

static int named_col(const frame_t *f, const char *name)
{
    for (int c = f->ncols - 1; c >= 0; c--)
        if (f->names[c].s && !strcmp(f->names[c].s, name)) return c;
    return -1;
}

static int pos_col(const frame_t *f)
{
    return named_col(f, MERGE_POS);
}

/* f with the position column appended, sharing f's columns (w's arrays
 * and the new column are the caller's to free: pos_free): chunk << 32 |
 * row, or with piece > 0, (chunk + row / piece) << 32 | row (tile_df.c,
 * hash_packs) */
static int pos_add(const frame_t *f, int64_t chunk, int64_t piece, const char *name, frame_t *w)
{
    *w = *f;
    w->series = false; /* a Series side (join's other): its column and the positions */
    w->cols = calloc((size_t)f->ncols + 1, sizeof(fcol_t));
    w->names = calloc((size_t)f->ncols + 1, sizeof(flabel_t));
    if (!w->cols || !w->names || fcol_alloc(&w->cols[f->ncols], FT_INT64, f->nrows, 0, false)) {
        free(w->cols);
        free(w->names);
        return -1;
    }
    memcpy(w->cols, f->cols, sizeof(fcol_t) * (size_t)f->ncols);
    memcpy(w->names, f->names, sizeof(flabel_t) * (size_t)f->ncols);
    w->names[f->ncols].s = (char *)name;
    int64_t *p = w->cols[f->ncols].data;
    for (int64_t i = 0; i < f->nrows; i++)
        p[i] = ((chunk + (piece > 0 ? i / piece : 0)) << 32) | i;
    w->ncols = f->ncols + 1;
    return 0;
}

static void pos_free(frame_t *w)
{
    fcol_free(&w->cols[w->ncols - 1]);
    free(w->cols);
    free(w->names);
}

/* pandas' inner merge groups the rows by key, the keys in the order they
 * first appear in left: each row's position becomes its key's first
 * position (all rows of a key are in one part), and the order job's stable
 * sort by position puts each key's rows together in the order the part
 * gave them. f is a merge part's result: its keys are left's key columns
 * in place (or the index levels with left_index/right_index, right's key
 * columns after left's lncols columns with lindex). */
static int pos_by_key(frame_t *f, const merge_spec_t *s, int lncols, char *err, size_t errlen)
{
    int pc = pos_col(f);
    if (pc < 0) return errmsg(err, errlen, "internal: merge part without positions");
    int64_t n = f->nrows, *pos = f->cols[pc].data;
    dfa_keys_t ks = {.nk = s->n_on};
    for (int k = 0; k < s->n_on; k++)
        ks.k[k] = s->index    ? &f->idx[k]
                  : s->lindex ? &f->cols[lncols + s->ron[k]]
                              : &f->cols[s->lon[k]];
    dfa_htab_t t = {0};
    int64_t *gid = malloc(sizeof(int64_t) * (size_t)(n + 1)), *first = NULL;
    int rc = 0;
    if (!gid || dfa_group(&ks, n, NULL, gid, &t) ||
        !(first = malloc(sizeof(int64_t) * (size_t)(t.ngroups + 1)))) {
        rc = oom(err, errlen);
        goto done;
    }
    for (int64_t q = 0; q < t.ngroups; q++)
        first[q] = INT64_MAX;
    for (int64_t i = 0; i < n; i++)
        if (pos[i] < first[gid[i]]) first[gid[i]] = pos[i];
    for (int64_t i = 0; i < n; i++)
        pos[i] = first[gid[i]];
done:
    dfa_htab_free(&t);
    free(gid);
    free(first);
    return rc;
}

/* An outer merge seen in order (its hash packs carry positions, off[3];
 * its parts split by output chunk, off[2]): its packs end with the chunk's
 * row count and its parts read them all (tile_df.c, tile_merge). */
static bool outer_order(const graph_node_t *n, const job_t *j)
{
    if ((n->op != OP_DF_MERGE && n->op != OP_DF_JOIN) || n->df->merge.how != MERGE_OUTER ||
        n->df->merge.index)
        return false;
    dfjob_t k = (dfjob_t)j->param->dfk;
    return k == DFJ_HASH_PART ? j->off[3] != 0 : k == DFJ_MERGE_PART && j->off[2] > 0;
}

/* *empty: whether left's chunks (the first nl of the counts, a
 * DFJ_JOIN_COUNT column) or right's (the rest) hold no row at all. */
static int side_empty(const dfx_in_t *in, int nl, bool *empty, char *err, size_t errlen)
{
    frame_t c = {0};
    if (view(in, &c, err, errlen)) return -1;
    if (c.ncols != 1 || c.cols[0].type != FT_INT64 || c.nrows < nl) {
        frame_free(&c);
        return errmsg(err, errlen, "internal: a merge part without its chunks' counts");
    }
    const int64_t *cnt = c.cols[0].data;
    int64_t tot[2] = {0, 0};
    for (int64_t q = 0; q < c.nrows; q++)
        tot[q >= nl] += cnt[q];
    *empty = tot[0] == 0 || tot[1] == 0;
    frame_free(&c);
    return 0;
}

/* pandas' right merge keeps right's rows in order, each with its matches
 * in left's order; its outer merge groups the rows by key, left's keys in
 * the order they first appear in left, then right's other keys in the
 * order they first appear in right, each key's left rows in order with
 * their matches in right's order. A part's rows come in left's order,
 * each with its matches in right's order, then right's unmatched rows in
 * order (merge.c): so each row's position becomes its right row's
 * (right), or its key's first left position, else its key's first right
 * position placed after every left chunk (outer); the order job sorts by
 * it stably (an outer join on the index, or an outer merge where a side
 * has no rows at all, own: each row's own position, pandas' order then).
 * The position columns both sides carried are dropped and the
 * new one appended as MERGE_POS. l, r: the part's inputs; nl: left's
 * chunks. */
static int pos_right_outer(frame_t *f, const frame_t *l, const frame_t *r, const df_merge_rows_t *m,
                           const merge_spec_t *s, int64_t nl, bool own, char *err, size_t errlen)
{
    int lpc = named_col(l, MERGE_POS), rpc = named_col(r, MERGE_RPOS);
    if (rpc < 0 || (s->how == MERGE_OUTER && lpc < 0) || m->n != f->nrows)
        return errmsg(err, errlen, "internal: merge part without positions");
    const int64_t *lp = lpc < 0 ? NULL : l->cols[lpc].data, *rp = r->cols[rpc].data;
    int64_t n = m->n, ng = 0, *first = NULL;
    fcol_t key;
    if (fcol_alloc(&key, FT_INT64, n, 0, false)) return oom(err, errlen);
    int64_t *k = key.data;
    if (s->how == MERGE_OUTER) {
        for (int64_t i = 0; i < n; i++)
            ng = m->group[i] >= ng ? m->group[i] + 1 : ng;
        if (!(first = malloc(sizeof(int64_t) * (size_t)(ng + 1)))) {
            fcol_free(&key);
            return oom(err, errlen);
        }
        for (int64_t g = 0; g < ng; g++)
            first[g] = INT64_MAX;
        /* a key with left rows has only rows with a left row */
        for (int64_t i = 0; i < n; i++) {
            int64_t p = m->left[i] >= 0 ? lp[m->left[i]] : (nl << 32) + rp[m->right[i]];
            if (p < first[m->group[i]]) first[m->group[i]] = p;
            k[i] = p;
        }
        /* on the index, each row keeps its own place (left's rows in order,
         * then right's other rows in order: either side as it is when the
         * other has no rows, pandas' order then; tile_index_order sorts
         * the rest) */
        for (int64_t i = 0; i < n && !s->index && !own; i++)
            k[i] = first[m->group[i]];
        free(first);
    } else {
        for (int64_t i = 0; i < n; i++)
            k[i] = rp[m->right[i]];
    }
    /* drop the carried positions (at least one: room for the new one) */
    int at = 0;
    for (int c = 0; c < f->ncols; c++) {
        const char *nm = f->names[c].s;
        if (nm && (!strcmp(nm, MERGE_POS) || !strcmp(nm, MERGE_RPOS))) {
            fcol_free(&f->cols[c]);
            free(f->names[c].s);
            continue;
        }
        f->cols[at] = f->cols[c];
        f->names[at++] = f->names[c];
    }
    if (at < f->ncols) memset(&f->names[at], 0, sizeof f->names[at]); /* moved or freed */
    if (at == f->ncols || flabel_set(&f->names[at], MERGE_POS, false)) {
        fcol_free(&key);
        return at == f->ncols ? errmsg(err, errlen, "internal: merge part without positions")
                              : oom(err, errlen);
    }
    f->cols[at] = key;
    f->ncols = at + 1;
    return 0;
}

/* A merge's int64 columns (and index levels) that the document typed
 * float64 (a side that may get missing values, graph_df.c) made float64
 * in every chunk: a chunk where no value went missing would otherwise
 * keep int64 beside float64 chunks, and ops after the merge (a groupby by
 * such a column, nunique) combine chunks of one layout. */
static int merge_conform(frame_t *f, const df_node_t *d, char *err, size_t errlen)
{
    for (int k = 0; k < f->ncols + f->nidx; k++) {
        bool col = k < f->ncols;
        if (col ? k >= d->ncols : k - f->ncols >= d->nidx) break;
        fcol_t *c = col ? &f->cols[k] : &f->idx[k - f->ncols];
        int want = col ? d->cols[k].type : d->idx[k - f->ncols].type;
        if (c->type != FT_INT64 || want != FT_FLOAT64) continue;
        fcol_t o;
        if (fcol_widen(c, &o)) return oom(err, errlen);
        fcol_free(c);
        *c = o;
    }
    return 0;
}

typedef struct {
    uint64_t pos;
    int64_t row;
} posrow_t;
#define POSROW_KEY(x) ((x).pos)
DEFINE_RADIX_BY(sort_posrows, posrow_t, uint64_t, POSROW_KEY)

/* a merge part's result split by output chunk (the position's high half) */
static int pos_split(const frame_t *f, int64_t nch, frame_t *outs, char *err, size_t errlen)
{
    int pc = pos_col(f);
    if (pc < 0) return errmsg(err, errlen, "internal: merge part without positions");
    const int64_t *pos = f->cols[pc].data;
    int64_t *cnt = calloc((size_t)nch + 1, sizeof(int64_t));
    int64_t *rows = malloc(sizeof(int64_t) * (size_t)(f->nrows + 1));
    int rc = 0;
    if (!cnt || !rows) {
        free(cnt);
        free(rows);
        return oom(err, errlen);
    }
    for (int64_t i = 0; i < f->nrows; i++) {
        int64_t k = pos[i] >> 32;
        if (k < 0 || k >= nch) {
            rc = errmsg(err, errlen, "internal: merge row of left chunk %lld of %lld", (long long)k,
                        (long long)nch);
            goto done;
        }
        cnt[k + 1]++;
    }
    for (int64_t k = 0; k < nch; k++)
        cnt[k + 1] += cnt[k];
    /* the rows grouped by chunk, each group in f's order (a counting sort) */
    int64_t *at = malloc(sizeof(int64_t) * (size_t)(nch + 1));
    if (!at) {
        rc = oom(err, errlen);
        goto done;
    }
    memcpy(at, cnt, sizeof(int64_t) * (size_t)(nch + 1));
    for (int64_t i = 0; i < f->nrows; i++)
        rows[at[pos[i] >> 32]++] = i;
    free(at);
    for (int64_t k = 0; k < nch && rc == 0; k++)
        if (frame_take(f, rows + cnt[k], cnt[k + 1] - cnt[k], &outs[k])) rc = oom(err, errlen);
done:
    free(cnt);
    free(rows);
    return rc;
}

/* pos_order's tail: rows[0..n) of f, the position column pc dropped (rows freed) */
static int pos_take(const frame_t *f, int pc, int64_t *rows, frame_t *out, char *err, size_t errlen)
{
    int64_t n = f->nrows;
    int rc = frame_take(f, rows, n, out) ? oom(err, errlen) : 0;
    free(rows);
    if (rc) return rc;
    fcol_free(&out->cols[pc]);
    free(out->names[pc].s);
    memmove(&out->cols[pc], &out->cols[pc + 1], sizeof(fcol_t) * (size_t)(out->ncols - pc - 1));
    memmove(&out->names[pc], &out->names[pc + 1], sizeof(flabel_t) * (size_t)(out->ncols - pc - 1));
    out->ncols--;
    out->range_index = f->range_index;
    if (out->range_index) /* positions 0.. of this chunk (frame.h) */
        for (int64_t i = 0; i < n; i++)
            ((int64_t *)out->idx[0].data)[i] = i;
    return 0;
}

/* Positions that are the rows' places 0..n-1 in this chunk (the low half;
 * each once): the rows put in place, no sort. */
static int pos_place(const frame_t *f, int pc, frame_t *out, char *err, size_t errlen)
{
    const int64_t *pos = f->cols[pc].data;
    int64_t n = f->nrows;
    int64_t *rows = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!rows) return oom(err, errlen);
    for (int64_t i = 0; i < n; i++)
        rows[i] = -1;
    for (int64_t i = 0; i < n; i++) {
        int64_t at = pos[i] & 0xffffffff;
        if (at >= n || rows[at] >= 0) {
            free(rows);
            return errmsg(err, errlen, "internal: merged rows' places are not 0..%lld",
                          (long long)n - 1);
        }
        rows[at] = i;
    }
    return pos_take(f, pc, rows, out, err, errlen);
}

/* the rows of f by position (ties, one left row's matches, in f's order),
 * the position column dropped; dense: the positions are places */
static int pos_order(const frame_t *f, bool dense, frame_t *out, char *err, size_t errlen)
{
    int pc = pos_col(f);
    if (pc < 0) return errmsg(err, errlen, "internal: merge part without positions");
    const int64_t *pos = f->cols[pc].data;
    int64_t n = f->nrows;
    if (dense) /* each row's place in this chunk (keyed_part): put there */
        return pos_place(f, pc, out, err, errlen);
    /* positions are chunk << 32 | row, never negative: a radix sort of
     * (position, row) pairs by position, stable */
    posrow_t *pr = malloc(sizeof(posrow_t) * 2 * (size_t)(n + 1));
    int64_t *rows = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!pr || !rows) {
        free(pr);
        free(rows);
        return oom(err, errlen);
    }
    for (int64_t i = 0; i < n; i++) {
        pr[i].pos = (uint64_t)pos[i];
        pr[i].row = i;
    }
    sort_posrows(pr, pr + n, n);
    for (int64_t i = 0; i < n; i++)
        rows[i] = pr[i].row;
    free(pr);
    return pos_take(f, pc, rows, out, err, errlen);
}

/* mr's pairs grouped by bucket[i] (each in [0, nb)), in their order
 * within a bucket (a counting sort): (*lsub)[p], (*rsub)[p] for p in
 * [(*start)[b], (*start)[b + 1]), bucket b's; all three the caller's to
 * free. 0, or -1 when out of memory (err set). */
static int pairs_grouped(const df_merge_rows_t *mr, const int64_t *bucket, int64_t nb,
                         int64_t **lsub, int64_t **rsub, int64_t **start, char *err, size_t errlen)
{
    int64_t n = mr->n;
    int64_t *at = calloc((size_t)nb + 2, sizeof(int64_t));
    *lsub = malloc(sizeof(int64_t) * (size_t)(n + 1));
    *rsub = malloc(sizeof(int64_t) * (size_t)(n + 1));
    *start = at;
    if (!at || !*lsub || !*rsub) return oom(err, errlen);
    for (int64_t i = 0; i < n; i++)
        at[bucket[i] + 2]++;
    for (int64_t b = 0; b < nb; b++)
        at[b + 2] += at[b + 1];
    for (int64_t i = 0; i < n; i++) { /* at[b + 1]: where bucket b's pairs go next */
        int64_t p = at[bucket[i] + 1]++;
        (*lsub)[p] = mr->left[i];
        (*rsub)[p] = mr->right[i];
    }
    return 0; /* at[b]: bucket b's first pair, at[b + 1] its end */
}

/* how left, a part split by output chunk (the high half of the position
 * left's rows carry, pos_split's): the pairs grouped by it, each output
 * chunk's frame built once from l and r (no copy of the whole part first) */
static int merge_split_left(const frame_t *l, const frame_t *r, const merge_spec_t *s,
                            int64_t nouts, frame_t *outs, char *err, size_t errlen)
{
    int pc = pos_col(l);
    if (pc < 0) return errmsg(err, errlen, "internal: merge part without positions");
    const int64_t *pos = l->cols[pc].data;
    df_merge_rows_t mr;
    if (df_merge_pairs(l, r, s, &mr, err, errlen)) return -1;
    int64_t n = mr.n, *chunk = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *lsub = NULL, *rsub = NULL, *at = NULL;
    int rc = chunk ? 0 : oom(err, errlen);
    for (int64_t i = 0; i < n && rc == 0; i++) {
        int64_t k = mr.left[i] >= 0 && mr.left[i] < l->nrows ? pos[mr.left[i]] >> 32 : -1;
        if (k < 0 || k >= nouts)
            rc = errmsg(err, errlen, "internal: merge row of left chunk %lld of %lld", (long long)k,
                        (long long)nouts);
        else
            chunk[i] = k;
    }
    if (rc == 0) rc = pairs_grouped(&mr, chunk, nouts, &lsub, &rsub, &at, err, errlen);
    for (int64_t k = 0; k < nouts && rc == 0; k++)
        rc = df_merge_take(l, r, s, lsub + at[k], rsub + at[k], at[k + 1] - at[k], &outs[k], err,
                           errlen);
    free(chunk);
    free(at);
    free(lsub);
    free(rsub);
    df_merge_rows_free(&mr);
    return rc;
}

/* how right, rows in pandas' order: right's rows in order, each followed
 * by its left matches in left's order. df_merge_rows gives the pairs in
 * left's order (each row's matches in right's order), then the unmatched
 * right rows: a stable counting sort by right row. */
static int merge_right_order(const frame_t *l, const frame_t *r, const merge_spec_t *s,
                             frame_t *out, char *err, size_t errlen)
{
    df_merge_rows_t mr;
    if (df_merge_pairs(l, r, s, &mr, err, errlen)) return -1;
    int64_t *lsub = NULL, *rsub = NULL, *at = NULL;
    int rc = 0;
    for (int64_t i = 0; i < mr.n && rc == 0; i++)
        if (mr.right[i] < 0 || mr.right[i] >= r->nrows)
            rc = errmsg(err, errlen, "internal: a right merge's row without a right row");
    if (rc == 0) rc = pairs_grouped(&mr, mr.right, r->nrows, &lsub, &rsub, &at, err, errlen);
    if (rc == 0) rc = df_merge_take(l, r, s, lsub, rsub, mr.n, out, err, errlen);
    free(at);
    free(lsub);
    free(rsub);
    df_merge_rows_free(&mr);
    return rc;
}

/* ---- an inner merge in order with a small right side (tile_df.c,
 * tile_merge_keyed) ---- */

/* A frame of int64 columns named names[0..nc) (n rows, default index). */
static int int_frame(frame_t *f, int64_t n, int nc, const char *const *names)
{
    if (frame_alloc(f, false, n, nc, 1) || positions(&f->idx[0], n, 0)) return -1;
    f->range_index = true;
    for (int k = 0; k < nc; k++)
        if (fcol_alloc(&f->cols[k], FT_INT64, n, 0, false) ||
            flabel_set(&f->names[k], names[k], false))
            return -1;
    return 0;
}

static const char *const KEYED_KEYS[] = {"first", "rows"};
static const char *const KEYED_PLAN[] = {"first", "start", "per_chunk"};

/* DFJ_MERGE_BKEYS: left's chunk l against right r: the keys it matches,
 * as right's first row with the key, in the order they first appear in l,
 * and the rows of the merge each gives (l's rows with it times right's). */
static int keyed_keys(const frame_t *l, const frame_t *r, const merge_spec_t *s, frame_t *out,
                      char *err, size_t errlen)
{
    int64_t nl = l->nrows, nr = r->nrows, nk = 0;
    int64_t *lfirst = malloc(sizeof(int64_t) * (size_t)(nl + 1));
    int64_t *gsize = malloc(sizeof(int64_t) * (size_t)(nr + 1));
    int64_t *rows = calloc((size_t)nr + 1, sizeof(int64_t));
    int64_t *order = malloc(sizeof(int64_t) * (size_t)(nr + 1));
    int rc = 0;
    if (!lfirst || !gsize || !rows || !order) {
        rc = oom(err, errlen);
        goto done;
    }
    if ((rc = df_merge_match(l, r, s, lfirst, gsize, err, errlen))) goto done;
    for (int64_t i = 0; i < nl; i++) {
        int64_t f = lfirst[i];
        if (f < 0) continue;
        if (rows[f] == 0) order[nk++] = f;
        rows[f] += gsize[f]; /* at most nl * nr: both are chunk sizes */
    }
    if (int_frame(out, nk, 2, KEYED_KEYS)) {
        rc = oom(err, errlen);
        goto done;
    }
    for (int64_t q = 0; q < nk; q++) {
        ((int64_t *)out->cols[0].data)[q] = order[q];
        ((int64_t *)out->cols[1].data)[q] = rows[order[q]];
    }
done:
    free(lfirst);
    free(gsize);
    free(rows);
    free(order);
    return rc;
}

static bool keyed_layout(const frame_t *f, int nc)
{
    if (f->ncols != nc) return false;
    for (int k = 0; k < nc; k++)
        if (f->cols[k].type != FT_INT64) return false;
    return true;
}

/* DFJ_MERGE_BPLAN: every chunk's keys (keyed_keys, in left's order) to
 * np parts: part k, where chunk k's rows of each of its keys start in the
 * whole merge, and the rows per output chunk (np chunks, even). */
static int keyed_plan(const frame_t *v, int nv, int64_t np, frame_t **outs, int64_t *nouts,
                      char *err, size_t errlen)
{
    int64_t nf = 0, nranks = 0, total = 0;
    for (int k = 0; k < nv; k++) {
        if (!keyed_layout(&v[k], 2))
            return errmsg(err, errlen, "internal: a merge's key list of another layout");
        for (int64_t q = 0; q < v[k].nrows; q++) {
            int64_t f = ((const int64_t *)v[k].cols[0].data)[q];
            int64_t n = ((const int64_t *)v[k].cols[1].data)[q];
            if (f < 0 || f >= INT64_MAX - 1 || n < 0)
                return errmsg(err, errlen, "internal: a merge's key list out of range");
            if (f + 1 > nf) nf = f + 1;
            if (__builtin_add_overflow(total, n, &total))
                return errmsg(err, errlen, "merge: too many rows");
        }
    }
    int64_t *rank = malloc(sizeof(int64_t) * (size_t)(nf + 1));
    int64_t *at = calloc((size_t)nf + 1, sizeof(int64_t)); /* per rank: rows, then start */
    int rc = 0;
    if (!rank || !at) {
        rc = oom(err, errlen);
        goto done;
    }
    for (int64_t f = 0; f < nf; f++)
        rank[f] = -1;
    for (int k = 0; k < nv; k++)
        for (int64_t q = 0; q < v[k].nrows; q++) {
            int64_t f = ((const int64_t *)v[k].cols[0].data)[q];
            if (rank[f] < 0) rank[f] = nranks++;
            at[rank[f]] += ((const int64_t *)v[k].cols[1].data)[q];
        }
    for (int64_t r = 0, sum = 0; r < nranks; r++) {
        int64_t n = at[r];
        at[r] = sum;
        sum += n;
    }
    int64_t per = np > 0 ? total / np + (total % np != 0) : 0;
    if (per < 1) per = 1;
    if (!(*outs = calloc((size_t)np + 1, sizeof(frame_t)))) {
        rc = oom(err, errlen);
        goto done;
    }
    *nouts = np;
    for (int64_t k = 0; k < np; k++) {
        int64_t n = k < nv ? v[k].nrows : 0;
        if (int_frame(&(*outs)[k], n, 3, KEYED_PLAN)) {
            rc = oom(err, errlen);
            goto done;
        }
        for (int64_t q = 0; q < n; q++) {
            int64_t f = ((const int64_t *)v[k].cols[0].data)[q];
            ((int64_t *)(*outs)[k].cols[0].data)[q] = f;
            ((int64_t *)(*outs)[k].cols[1].data)[q] = at[rank[f]];
            ((int64_t *)(*outs)[k].cols[2].data)[q] = per;
            at[rank[f]] += ((const int64_t *)v[k].cols[1].data)[q];
        }
    }
done:
    free(rank);
    free(at);
    return rc;
}

/* f with an int64 column named name appended (*col: its values) */
static int append_int_col(frame_t *f, const char *name, int64_t **col)
{
    fcol_t *c = realloc(f->cols, sizeof(fcol_t) * ((size_t)f->ncols + 1));
    if (c) f->cols = c;
    flabel_t *nm = c ? realloc(f->names, sizeof(flabel_t) * ((size_t)f->ncols + 1)) : NULL;
    if (nm) f->names = nm;
    if (!nm) return -1;
    memset(&nm[f->ncols], 0, sizeof *nm);
    if (fcol_alloc(&c[f->ncols], FT_INT64, f->nrows, 0, false)) return -1;
    if (flabel_set(&nm[f->ncols], name, false)) {
        fcol_free(&c[f->ncols]);
        return -1;
    }
    *col = c[f->ncols].data;
    f->ncols++;
    return 0;
}

typedef struct {
    int64_t start, q;
} kstart_t;

static int kstart_cmp(const void *a, const void *b)
{
    int64_t x = ((const kstart_t *)a)->start, y = ((const kstart_t *)b)->start;
    return (x > y) - (x < y);
}

/* DFJ_MERGE_BPART: left's chunk l merged with right r, each row at its
 * place from the plan's part for l (plan: each key's first right row, the
 * place its rows of l start at, the rows per output chunk). A key's rows
 * of l are consecutive places in l's order, so the pairs sorted by their
 * key's start are in place order: the output chunks are runs of them,
 * each built once from l and r (no second copy), with its places in
 * MERGE_POS (chunk << 32 | place there, as the partitioned merge gives
 * DFJ_MERGE_ORDER) and its labels the places in the whole merge. */
static int keyed_part(const frame_t *l, const frame_t *r, const frame_t *plan,
                      const merge_spec_t *s, int64_t nouts, frame_t *outs, char *err, size_t errlen)
{
    if (!keyed_layout(plan, 3))
        return errmsg(err, errlen, "internal: a merge plan of another layout");
    int64_t nr = r->nrows, nq = plan->nrows;
    const int64_t *pf = plan->cols[0].data, *ps = plan->cols[1].data;
    int64_t per = nq > 0 ? ((const int64_t *)plan->cols[2].data)[0] : 1;
    df_merge_rows_t mr = {0};
    int64_t *first = malloc(sizeof(int64_t) * (size_t)(nr + 1));
    int64_t *kq = malloc(sizeof(int64_t) * (size_t)(nr + 1)); /* key (first row) -> start order */
    kstart_t *ks = malloc(sizeof(kstart_t) * (size_t)(nq + 1));
    int64_t *perm = NULL, *lsub = NULL, *rsub = NULL, *at = NULL;
    int rc = 0;
    if (per < 1 || per > 0xffffffff) { /* a place in its chunk: MERGE_POS's low 32 bits */
        rc = errmsg(err, errlen, "merge: %lld rows an output chunk (1 to 2^32)", (long long)per);
        goto done;
    }
    if (!first || !kq || !ks) {
        rc = oom(err, errlen);
        goto done;
    }
    if ((rc = df_merge_first(l, r, s, first, err, errlen)) ||
        (rc = df_merge_pairs(l, r, s, &mr, err, errlen)))
        goto done;
    for (int64_t f = 0; f < nr; f++)
        kq[f] = -1;
    for (int64_t q = 0; q < nq; q++) {
        if (pf[q] < 0 || pf[q] >= nr) {
            rc = errmsg(err, errlen, "internal: a merge plan's key out of range");
            goto done;
        }
        ks[q] = (kstart_t){ps[q], q};
    }
    qsort(ks, (size_t)nq, sizeof *ks, kstart_cmp);
    for (int64_t o = 0; o < nq; o++)
        kq[pf[ks[o].q]] = o;
    /* the pairs by their key's start order, each key's in l's order */
    int64_t n = mr.n;
    if (!(perm = malloc(sizeof(int64_t) * (size_t)(n + 1)))) {
        rc = oom(err, errlen);
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t o = mr.right[i] >= 0 && mr.right[i] < nr ? kq[first[mr.right[i]]] : -1;
        if (o < 0) {
            rc = errmsg(err, errlen, "internal: a merged row without its place in the plan");
            goto done;
        }
        perm[i] = o; /* for now: the key's start order */
    }
    if ((rc = pairs_grouped(&mr, perm, nq, &lsub, &rsub, &at, err, errlen))) goto done;
    /* place of the p-th pair: its key's start and how many of its key
     * come before it (key o's run: at[o] to at[o + 1]) */
    int64_t *place = perm; /* reused: place by sorted pair */
    for (int64_t o = 0; o < nq; o++)
        for (int64_t p = at[o]; p < at[o + 1]; p++)
            place[p] = ks[o].start + (p - at[o]);
    for (int64_t a = 0, j = 0; j < nouts && rc == 0; j++) {
        int64_t b = a;
        while (b < n && place[b] / per == j)
            b++;
        if (b < n && place[b] / per < j) {
            rc = errmsg(err, errlen, "internal: merged rows' places out of order");
            break;
        }
        int64_t *pos;
        if ((rc = df_merge_take(l, r, s, lsub + a, rsub + a, b - a, &outs[j], err, errlen))) break;
        if (append_int_col(&outs[j], MERGE_POS, &pos)) {
            rc = oom(err, errlen);
            break;
        }
        outs[j].range_index = false;
        int64_t *label = outs[j].idx[0].data;
        for (int64_t p = a; p < b; p++) {
            pos[p - a] = j << 32 | (place[p] - j * per);
            label[p - a] = place[p];
        }
        a = b;
        if (j == nouts - 1 && a != n)
            rc = errmsg(err, errlen, "internal: merged rows past the last output chunk");
    }
done:
    free(first);
    free(kq);
    free(ks);
    free(at);
    free(perm);
    free(lsub);
    free(rsub);
    df_merge_rows_free(&mr);
    return rc;
}

/* groupby with as_index false: the result's key levels become its first
 * columns, under a default index (the result is one chunk) */
static int gb_flatten(const df_node_t *d, frame_t *in, frame_t *out, char *err, size_t errlen)
{
    int nby = in->nidx;
    if (nby + in->ncols != d->ncols || frame_alloc(out, false, in->nrows, d->ncols, 1) ||
        fcol_alloc(&out->idx[0], FT_INT64, in->nrows, 0, false)) {
        frame_free(out);
        return errmsg(err, errlen, "internal: a groupby result of other columns");
    }
    for (int k = 0; k < d->ncols; k++) {
        if (flabel_set(&out->names[k], d->cols[k].name, d->cols[k].is_int)) {
            frame_free(out);
            return oom(err, errlen);
        }
        fcol_t *src = k < nby ? &in->idx[k] : &in->cols[k - nby];
        out->cols[k] = *src; /* moved */
        memset(src, 0, sizeof *src);
    }
    for (int64_t q = 0; q < in->nrows; q++)
        ((int64_t *)out->idx[0].data)[q] = q;
    return 0;
}

/* A join on the index seen in order (tile_df.c, tile_index_order). */
static bool index_join(const graph_node_t *n)
{
    return (n->op == OP_DF_MERGE || n->op == OP_DF_JOIN) && n->df->merge.index;
}

/* A one-row frame of int64 values v[0..n) (labels none), default index. */
static int int_row(const int64_t *v, int n, frame_t *out, char *err, size_t errlen)
{
    if (frame_alloc(out, false, 1, n, 1) || fcol_alloc(&out->idx[0], FT_INT64, 1, 0, false))
        goto nomem;
    ((int64_t *)out->idx[0].data)[0] = 0;
    for (int q = 0; q < n; q++) {
        if (fcol_alloc(&out->cols[q], FT_INT64, 1, 0, false)) goto nomem;
        ((int64_t *)out->cols[q].data)[0] = v[q];
    }
    return 0;
nomem:
    frame_free(out);
    return oom(err, errlen);
}

/* DFJ_JOIN_KEYS: chunk k's index levels alone with each row's position
 * k << 32 | row, hashed into np parts (outs[0..np)), and the chunk's row
 * count as part np (a one-row frame, for DFJ_JOIN_COUNT). */
static int join_keys(const frame_t *f, const merge_spec_t *s, int64_t np, int64_t k, frame_t *outs,
                     char *err, size_t errlen)
{
    fcol_t pos = {0};
    if (fcol_alloc(&pos, FT_INT64, f->nrows, 0, false)) return oom(err, errlen);
    int64_t *p = pos.data;
    for (int64_t i = 0; i < f->nrows; i++)
        p[i] = (k << 32) | i;
    flabel_t name = {(char *)MERGE_POS, false};
    frame_t w = *f;
    w.series = false;
    w.ncols = 1;
    w.cols = &pos;
    w.names = &name;
    int cols[DF_MAX_KEYS];
    for (int q = 0; q < s->n_on; q++)
        cols[q] = -1 - q;
    int rc = df_hash_partition(&w, cols, s->n_on, (int)np, outs, err, errlen);
    fcol_free(&pos);
    if (rc == 0 && (rc = int_row(&f->nrows, 1, &outs[np], err, errlen)))
        for (int64_t q = 0; q < np; q++)
            frame_free(&outs[q]);
    return rc;
}

/* join_keys' positions chunk << 32 | row of f (chunks first.. of the
 * side) made places in the whole side: counts, every chunk's rows of both
 * sides (DFJ_JOIN_COUNT's column), first the side's first chunk, n its
 * chunks */
static int join_places(frame_t *f, const frame_t *counts, int64_t first, int64_t n, char *err,
                       size_t errlen)
{
    int pc = named_col(f, MERGE_POS);
    if (pc < 0) return errmsg(err, errlen, "internal: join labels without positions");
    if (counts->ncols != 1 || counts->cols[0].type != FT_INT64 || first + n > counts->nrows)
        return errmsg(err, errlen, "internal: %lld chunk counts for %lld chunks",
                      (long long)counts->nrows, (long long)(first + n));
    const int64_t *cnt = (const int64_t *)counts->cols[0].data + first;
    int64_t *start = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!start) return oom(err, errlen);
    start[0] = 0;
    for (int64_t k = 0; k < n; k++)
        start[k + 1] = start[k] + cnt[k];
    int64_t *p = f->cols[pc].data;
    for (int64_t i = 0; i < f->nrows; i++) {
        int64_t k = p[i] >> 32;
        if (k < 0 || k >= n) {
            free(start);
            return errmsg(err, errlen, "internal: join label of chunk %lld of %lld", (long long)k,
                          (long long)n);
        }
        p[i] = start[k] + (p[i] & 0xffffffff);
    }
    free(start);
    return 0;
}

/* DFJ_JOIN_COUNT: the row count part (off[0]) of every chunk's
 * join_keys pack, left's then right's, as one column */
static int join_counts(const dfx_in_t *ins_, int n, int64_t part, frame_t *out, char *err,
                       size_t errlen)
{
    if (frame_alloc(out, false, n, 1, 1) || fcol_alloc(&out->cols[0], FT_INT64, n, 0, false) ||
        fcol_alloc(&out->idx[0], FT_INT64, n, 0, false)) {
        frame_free(out);
        return oom(err, errlen);
    }
    for (int q = 0; q < n; q++) {
        frame_t c = {0};
        bool have = false;
        if (run_pack_part(&ins_[q], part, &c, &have, err, errlen)) {
            frame_free(out);
            return -1;
        }
        bool ok = have && c.ncols == 1 && c.nrows == 1 && c.cols[0].type == FT_INT64;
        if (ok) ((int64_t *)out->cols[0].data)[q] = ((const int64_t *)c.cols[0].data)[0];
        ((int64_t *)out->idx[0].data)[q] = q;
        if (have) frame_free(&c);
        if (!ok) {
            frame_free(out);
            return errmsg(err, errlen, "internal: a join chunk without its row count");
        }
    }
    return 0;
}

/* The counts DFJ_JOIN_CHECK gives for its part, one column each. */
enum { JC_LROWS, JC_RROWS, JC_LREP, JC_RREP, JC_MOVED, JC__N };

/* A label as a radix key and its row's position (join_check's fast way). */
typedef struct {
    uint64_t k;
    int64_t pos;
} kpos_t;
#define KPOS_KEY(x) ((x).k)
DEFINE_RADIX_BY(sort_kpos, kpos_t, uint64_t, KPOS_KEY)

/* One level of int64 or float64 labels, the same type on both sides: each
 * side's labels radix sorted with their positions (equal labels adjacent:
 * -0.0 as 0.0, NaN with NaN, as pandas matches them); else the hash
 * tables of the general way. */
static int sorted_labels(const frame_t *f, kpos_t **out)
{
    int64_t n = f->nrows;
    const fcol_t *c = &f->idx[0];
    const int64_t *pos = f->cols[named_col(f, MERGE_POS)].data;
    kpos_t *a = malloc(sizeof(kpos_t) * (size_t)(2 * n + 1));
    if (!a) return -1;
    for (int64_t i = 0; i < n; i++)
        a[i] = (kpos_t){c->type == FT_INT64 ? radix_key_i64(((const int64_t *)c->data)[i])
                                            : radix_key_f64(((const double *)c->data)[i]),
                        pos[i]};
    sort_kpos(a, a + n, n);
    *out = a;
    return 0;
}

static bool repeats(const kpos_t *a, int64_t n)
{
    for (int64_t i = 1; i < n; i++)
        if (a[i].k == a[i - 1].k) return true;
    return false;
}

/* DFJ_JOIN_CHECK: of one part's labels (l, r: join_keys' rows of each
 * side), the rows of each side, whether a label repeats on either, and
 * (an outer join with no label repeated) the labels not on both sides at
 * one place (all rows of a label are in this part) */
static int join_check(const frame_t *l, const frame_t *r, const merge_spec_t *s, frame_t *out,
                      char *err, size_t errlen)
{
    int64_t nl = l->nrows, nr = r->nrows, c[JC__N] = {nl, nr, 0, 0, 0};
    int lp = named_col(l, MERGE_POS), rp = named_col(r, MERGE_POS);
    if (lp < 0 || rp < 0) return errmsg(err, errlen, "internal: join labels without positions");
    const int64_t *lpos = l->cols[lp].data, *rpos = r->cols[rp].data;
    bool outer = s->how == MERGE_OUTER;
    int ty = l->idx[0].type;
    if (s->n_on == 1 && r->idx[0].type == ty && (ty == FT_INT64 || ty == FT_FLOAT64)) {
        kpos_t *a = NULL, *b = NULL;
        if (sorted_labels(l, &a) || sorted_labels(r, &b)) {
            free(a);
            return oom(err, errlen);
        }
        c[JC_LREP] = repeats(a, nl);
        c[JC_RREP] = repeats(b, nr);
        c[JC_MOVED] = nl != nr;
        for (int64_t i = 0; outer && i < nl && nl == nr; i++)
            c[JC_MOVED] += a[i].k != b[i].k || a[i].pos != b[i].pos;
        free(a);
        free(b);
        return int_row(c, JC__N, out, err, errlen);
    }
    int64_t *gid = malloc(sizeof(int64_t) * (size_t)(nl + 1));
    int64_t *lfirst = malloc(sizeof(int64_t) * (size_t)(nl + 1));
    int64_t *gsize = malloc(sizeof(int64_t) * (size_t)(nr + 1));
    dfa_htab_t t = {0};
    dfa_keys_t lk = {.nk = s->n_on};
    for (int q = 0; q < s->n_on; q++)
        lk.k[q] = &l->idx[q];
    int rc = -1;
    if (!gid || !lfirst || !gsize || dfa_group(&lk, nl, NULL, gid, &t)) {
        oom(err, errlen);
        goto done;
    }
    c[JC_LREP] = t.ngroups < nl;
    /* right's groups (and, outer, each left label's right row) */
    if (df_merge_match(l, r, s, lfirst, gsize, err, errlen)) goto done;
    for (int64_t i = 0; i < nr; i++)
        c[JC_RREP] |= gsize[i] > 1;
    c[JC_MOVED] = nl != nr;
    for (int64_t i = 0; outer && i < nl; i++)
        c[JC_MOVED] += lfirst[i] < 0 || rpos[lfirst[i]] != lpos[i];
    rc = int_row(c, JC__N, out, err, errlen);
done:
    dfa_htab_free(&t);
    free(gid);
    free(lfirst);
    free(gsize);
    return rc;
}

/* DFJ_SORT_SPLIT of an index join: the samples' splitters where pandas
 * sorts (checks: every part's join_check), else a frame of no columns
 * and nparts - 1 rows: each chunk kept whole and in order */
static int join_splitters(const frame_t *const *samples, int ns, const frame_t *checks, int nc,
                          const df_node_t *d, int nparts, frame_t *out, char *err, size_t errlen)
{
    int64_t c[JC__N] = {0};
    for (int p = 0; p < nc; p++) {
        if (checks[p].ncols != JC__N || checks[p].nrows != 1)
            return errmsg(err, errlen, "internal: a join check of %d columns", checks[p].ncols);
        for (int q = 0; q < JC__N; q++)
            c[q] += ((const int64_t *)checks[p].cols[q].data)[0];
    }
    /* pandas 1.5 (Index.join): a side without rows leaves the other's
     * order; repeated labels are sorted (_join_non_unique), and so is an
     * outer join (the union) of labels not the same on both sides */
    bool sort = c[JC_LROWS] > 0 && c[JC_RROWS] > 0 &&
                (c[JC_LREP] || c[JC_RREP] || (d->merge.how == MERGE_OUTER && c[JC_MOVED]));
    if (sort) return df_sort_splitters(samples, ns, &d->sort, nparts, out, err, errlen);
    if (frame_alloc(out, false, nparts - 1, 0, 1) ||
        fcol_alloc(&out->idx[0], FT_INT64, nparts - 1, 0, false)) {
        frame_free(out);
        return oom(err, errlen);
    }
    for (int64_t i = 0; i < nparts - 1; i++)
        ((int64_t *)out->idx[0].data)[i] = i;
    return 0;
}

/* DFJ_SORT_RANGE with join_splitters' frame of no columns: chunk k of nch
 * whole into part k * nparts / nch, the others empty */
static int keep_range(const frame_t *in, int64_t k, int64_t nch, int64_t nparts, frame_t *outs,
                      char *err, size_t errlen)
{
    int64_t to = nch > 0 ? k * nparts / nch : 0;
    for (int64_t p = 0; p < nparts; p++) {
        if (frame_slice(in, 0, p == to ? in->nrows : 0, &outs[p])) {
            for (int64_t q = 0; q < p; q++)
                frame_free(&outs[q]);
            return oom(err, errlen);
        }
    }
    return 0;
}

/* merge_asof in place: the right rows routed to left chunk p, at most
 * DF3_WHOLE_MAX_BYTES (they are read together; a left chunk whose key
 * range holds more of right's rows fails, naming the limit) */
static int asof_part_check(const dfx_in_t *ins_, int n, int64_t p, char *err, size_t errlen)
{
    uint64_t total = 0;
    for (int k = 0; k < n; k++) {
        const void *b;
        size_t bl = 0;
        int64_t np = 0;
        if (dfx_pack_part(ins_[k].data, ins_[k].len, 0, &b, &bl, &np, err, errlen)) return -1;
        if (p < np && dfx_pack_part(ins_[k].data, ins_[k].len, p, &b, &bl, &np, err, errlen))
            return -1;
        total += p < np ? bl : 0;
    }
    if (total > (uint64_t)DF3_WHOLE_MAX_BYTES)
        return errmsg(err, errlen,
                      "merge_asof: the right rows whose keys fall in left chunk %lld's range are "
                      "%llu bytes, more than the limit of %lld (2 GiB) one job reads; cut left "
                      "into more chunks",
                      (long long)p, (unsigned long long)total, (long long)DF3_WHOLE_MAX_BYTES);
    return 0;
}

/* merge_asof matched in place (tile_df.c marks its sort jobs off[3] = 1):
 * they route right's rows to the left chunks (asof.h); else they sort the
 * union of both sides */
static bool asof_inplace(const graph_node_t *n, const job_t *j)
{
    return n->op == OP_DF_MERGE_ASOF && j->off[3] == 1;
}

static int run_algo(const tile_t *t, const job_t *j, const dfx_in_t *ins_, void **blob, size_t *len,
                    void *fixed, char *err, size_t errlen)
{
    const graph_node_t *n = &t->g->nodes[j->node];
    const df_node_t *d = n->df;
    dfjob_t k = (dfjob_t)j->param->dfk;
    frame_t *v = NULL, out = {0}, tmp = {0}, tmp2 = {0};
    frame_t *outs = NULL;
    int64_t nouts = 0;
    int rc = -1, nv = 0;
    const frame_t **vp = NULL;
    bool inputs_are_blobs = k != DFJ_GB_PART && k != DFJ_SORT_PART && k != DFJ_MERGE_PART &&
                            k != DFJ_MERGE_ORDER && k != DFJ_MERGE_BPART && k != DFJ_JOIN_CHECK &&
                            k != DFJ_JOIN_COUNT;
    if (inputs_are_blobs) {
        if (views(ins_, j->n_in, &v, err, errlen)) {
            nv = j->n_in;
            goto done;
        }
        nv = j->n_in;
        vp = calloc((size_t)nv + 1, sizeof(frame_t *));
        if (!vp) {
            oom(err, errlen);
            goto done;
        }
        for (int q = 0; q < nv; q++)
            vp[q] = &v[q];
    }
    switch (k) {
    case DFJ_NU_MAP:
        rc = df_nunique_map(&v[0], &out, err, errlen);
        break;
    case DFJ_NU_COMBINE:
        rc = df_nunique_combine(vp, nv, &out, err, errlen);
        break;
    case DFJ_NU_FINAL:
        rc = df_nunique_final(&v[0], !d->nu_keepna, &out, err, errlen);
        if (rc == 0 && n->vkind == VK_TENSOR) {
            *(int64_t *)fixed = out.nrows > 0 && out.cols[0].type == FT_INT64
                                    ? ((int64_t *)out.cols[0].data)[0]
                                    : 0;
            frame_free(&out);
            goto done_free;
        }
        if (rc == 0) out.series = true;
        break;
    case DFJ_DESCRIBE: {
        if (concat_views(v, nv, &tmp, err, errlen)) goto done;
        frame_t num;
        if (pick(NULL, n->vkind == VK_SERIES, &tmp, d->sel, d->nsel, &num)) {
            oom(err, errlen);
            goto done;
        }
        rc = d->ds_q ? df_describe_q(&num, d->ds_q, (const char *const *)d->ds_lab, d->nds, &out,
                                     err, errlen)
                     : df_describe(&num, &out, err, errlen);
        frame_free(&num);
        break;
    }
    case DFJ_RS_SPAN:
        rc = rs_span(&d->rs, vp, nv, nv > 1, &out, err, errlen);
        break;
    case DFJ_RS_BIN:
        /* the keys and the columns read: no unit from the node's schema */
        if (rs_bin(&d->rs, &v[0], nv > 1 ? &v[1] : NULL, d->key, d->nkey, d->sort.nby > 0, &out,
                   err, errlen))
            goto done;
        rc = emit(&out, blob, len, err, errlen);
        goto done;
    case DFJ_RS_FILL:
        rc = rs_fill(&d->rs, d->aggs, d->gb.nagg, &v[0], DF3_WHOLE_MAX_BYTES, &out, err, errlen);
        /* the schema's labels (a Series' name, not its aggregation's) */
        for (int q = 0; rc == 0 && q < out.ncols && q < d->ncols; q++)
            if (flabel_set(&out.names[q], d->cols[q].name, d->cols[q].is_int))
                rc = oom(err, errlen);
        out.series = n->vkind == VK_SERIES && out.ncols == 1;
        break;
    case DFJ_GB_MAP:
        rc = df_gb_map(&v[0], &d->gb, &out, err, errlen);
        break;
    case DFJ_GB_COMBINE:
        rc = df_gb_combine(vp, nv, &d->gb, &out, err, errlen);
        break;
    case DFJ_GB_FINAL:
        rc = df_gb_final(&v[0], &d->gb, d->gb_flat ? &tmp : &out, err, errlen);
        if (rc == 0 && d->gb_flat) rc = gb_flatten(d, &tmp, &out, err, errlen);
        if (rc == 0) rc = gb_schema_floats(d, &out, err, errlen);
        break;
    case DFJ_GB_MERGE:
        if (n->op == OP_DF_GROUPBY_QUANTILE) { /* keys in the index, a column per value */
            gb_spec_t qs = {.nby = d->nkey, .nagg = d->nsel};
            rc = df_gb_merge_sorted(vp, nv, &qs, &out, err, errlen);
            break;
        }
        rc = df_gb_merge_sorted(vp, nv, &d->gb, d->gb_flat ? &tmp : &out, err, errlen);
        if (rc == 0 && d->gb_flat) rc = gb_flatten(d, &tmp, &out, err, errlen);
        break;
    case DFJ_HASH_PART: {
        nouts = j->off[0];
        /* an outer merge seen in order: the chunk's row count as a last part
         * (DFJ_JOIN_COUNT's, for whether a side is empty) */
        bool count = outer_order(n, j);
        outs = calloc((size_t)nouts + count, sizeof(frame_t));
        if (!outs) {
            oom(err, errlen);
            goto done;
        }
        int cols[DF_MAX_KEYS], nc;
        if (n->op == OP_DF_MERGE || n->op == OP_DF_JOIN) {
            nc = d->merge.n_on;
            memcpy(cols, j->off[1] ? d->merge.ron : d->merge.lon, sizeof(int) * (size_t)nc);
        } else if (n->op == OP_DF_GROUPBY_QUANTILE) {
            nc = d->nkey;
            memcpy(cols, d->key, sizeof(int) * (size_t)nc);
        } else if (j->off[1]) { /* groupby partials: the keys are the index */
            nc = d->gb.nby;
            for (int q = 0; q < nc; q++)
                cols[q] = -1 - q;
        } else {
            nc = d->gb.nby;
            memcpy(cols, d->gb.by, sizeof(int) * (size_t)nc);
        }
        if (j->off[3]) { /* merge's rows: with their positions */
            frame_t w;
            if (pos_add(&v[0], j->off[2], j->off[3] - 1, j->off[1] ? MERGE_RPOS : MERGE_POS, &w)) {
                oom(err, errlen);
                goto done;
            }
            int bad = df_hash_partition(&w, cols, nc, (int)nouts, outs, err, errlen);
            pos_free(&w);
            if (bad) goto done;
        } else if (df_hash_partition(&v[0], cols, nc, (int)nouts, outs, err, errlen)) {
            goto done;
        }
        if (count && int_row(&v[0].nrows, 1, &outs[nouts++], err, errlen)) goto done;
        rc = emit_pack(outs, nouts, blob, len, err, errlen);
        goto done;
    }
    case DFJ_GB_PART: {
        if (j->off[1] == 2) { /* rows: the part's groups aggregated whole */
            if (gather_part(ins_, j->n_in, j->off[0], &tmp, err, errlen) == 0)
                rc = n->op == OP_DF_GROUPBY_QUANTILE
                         ? df3_groupby(d, n->op, &tmp, &out, err, errlen)
                         : df_gb_whole(d, &tmp, &out, err, errlen);
            if (rc == 0 && n->op != OP_DF_GROUPBY_QUANTILE)
                rc = gb_schema_floats(d, &out, err, errlen);
            break;
        }
        if (j->off[1]) { /* partials: combined as they are */
            if (gather_part_as(ins_, j->n_in, j->off[0], &d->gb, &tmp2, err, errlen)) goto done;
        } else if (gather_part(ins_, j->n_in, j->off[0], &tmp, err, errlen) ||
                   df_gb_map(&tmp, &d->gb, &tmp2, err, errlen)) {
            goto done;
        }
        rc = df_gb_final(&tmp2, &d->gb, &out, err, errlen);
        if (rc == 0) rc = gb_schema_floats(d, &out, err, errlen);
        break;
    }
    case DFJ_SORT_SAMPLE:
        rc = df_sort_sample(&v[0], &d->sort, SORT_SAMPLE_ROWS, &out, err, errlen);
        break;
    case DFJ_SORT_SPLIT:
        if (asof_inplace(n, j)) { /* the left chunks' bounds, in order */
            rc = frame_concat(vp, nv, &out) ? oom(err, errlen) : 0;
            break;
        }
        if (index_join(n)) {
            int ns = (int)j->off[1];
            rc = join_splitters(vp, ns, v + ns, nv - ns, d, (int)j->off[0], &out, err, errlen);
            break;
        }
        rc = df_sort_splitters(vp, nv, &d->sort, (int)j->off[0], &out, err, errlen);
        break;
    case DFJ_SORT_RANGE: {
        nouts = v[1].nrows + !asof_inplace(n, j);
        outs = calloc((size_t)nouts, sizeof(frame_t));
        if (!outs) {
            oom(err, errlen);
            goto done;
        }
        int bad = asof_inplace(n, j)
                      ? df_asof_route(d, &v[0], nv > 2 ? &v[2] : NULL, &v[1], outs, err, errlen)
                  : index_join(n) && v[1].ncols == 0
                      ? keep_range(&v[0], j->off[0], j->off[1], nouts, outs, err, errlen)
                      : df_range_partition(&v[0], &v[1], &d->sort, outs, err, errlen);
        if (bad) goto done;
        rc = emit_pack(outs, nouts, blob, len, err, errlen);
        goto done;
    }
    case DFJ_JOIN_KEYS:
        nouts = j->off[0] + 1; /* the parts, then the chunk's row count */
        if (!(outs = calloc((size_t)nouts, sizeof(frame_t)))) {
            oom(err, errlen);
            goto done;
        }
        if (join_keys(&v[0], &d->merge, j->off[0], j->off[1], outs, err, errlen)) {
            nouts = 0; /* join_keys frees what it made */
            goto done;
        }
        rc = emit_pack(outs, nouts, blob, len, err, errlen);
        goto done;
    case DFJ_JOIN_COUNT:
        rc = join_counts(ins_, j->n_in, j->off[0], &out, err, errlen);
        break;
    case DFJ_JOIN_CHECK: {
        /* in: left's packs (off[1] of them), right's, then DFJ_JOIN_COUNT */
        int nl = (int)j->off[1], nr = j->n_in - 1 - nl;
        frame_t counts = {0};
        if (nl < 1 || nr < 1) {
            errmsg(err, errlen, "internal: a join check of %d inputs", j->n_in);
            goto done;
        }
        if (gather_part(ins_, nl, j->off[0], &tmp, err, errlen) ||
            gather_part(ins_ + nl, nr, j->off[0], &tmp2, err, errlen) ||
            view(&ins_[j->n_in - 1], &counts, err, errlen))
            goto done;
        if (join_places(&tmp, &counts, 0, nl, err, errlen) == 0 &&
            join_places(&tmp2, &counts, nl, nr, err, errlen) == 0)
            rc = join_check(&tmp, &tmp2, &d->merge, &out, err, errlen);
        frame_free(&counts);
        break;
    }
    case DFJ_SORT_PART: {
        if (asof_inplace(n, j)) {
            /* in: every right chunk's pack, then (the match, off[1] 2) the
             * left chunk, then (off[2]) the carry */
            int nr = j->n_in - (j->off[1] == 2) - (int)j->off[2];
            frame_t lf = {0}, cf = {0};
            if (asof_part_check(ins_, nr, j->off[0], err, errlen) == 0 &&
                gather_part(ins_, nr, j->off[0], &tmp, err, errlen) == 0 &&
                (j->off[1] != 2 || view(&ins_[nr], &lf, err, errlen) == 0) &&
                (!j->off[2] || view(&ins_[j->n_in - 1], &cf, err, errlen) == 0))
                rc = j->off[1] == 2
                         ? df_asof_rmap(d, &lf, j->off[2] ? &cf : NULL, &tmp, &out, err, errlen)
                         : df_asof_rstate(d, j->off[2] ? &cf : NULL, &tmp, &out, err, errlen);
            frame_free(&lf);
            frame_free(&cf);
            break;
        }
        /* an index join's parts read the splitters last: none, no sort */
        int npk = j->n_in - index_join(n);
        sort_spec_t keep = {0};
        const sort_spec_t *ss = &d->sort;
        if (npk < j->n_in) {
            if (view(&ins_[npk], &tmp2, err, errlen)) goto done;
            if (tmp2.ncols == 0) ss = &keep;
        }
        frame_t *pv = calloc((size_t)j->n_in + 1, sizeof(frame_t));
        const frame_t **pp = calloc((size_t)j->n_in + 1, sizeof(frame_t *));
        int m = 0;
        if (!pv || !pp) {
            free(pv);
            free(pp);
            oom(err, errlen);
            goto done;
        }
        bool bad = false;
        for (int q = 0; q < npk && !bad; q++) {
            bool have;
            bad = run_pack_part(&ins_[q], j->off[0], &pv[m], &have, err, errlen) != 0;
            pp[m] = &pv[m];
            m += have && !bad;
        }
        if (!bad && m == 0) {
            bool have;
            if (run_pack_part(&ins_[0], 0, &pv[0], &have, err, errlen) == 0 &&
                frame_slice(&pv[0], 0, 0, &out) == 0)
                rc = 0;
            frame_free(&pv[0]);
        } else if (!bad) {
            rc = df_sort_part(pp, m, ss, &out, err, errlen);
        }
        for (int q = 0; q < m; q++)
            frame_free(&pv[q]);
        free(pv);
        free(pp);
        break;
    }
    case DFJ_MERGE_PART: {
        /* in: left's packs (off[1]), right's, then (an outer merge seen in
         * order) every chunk's row count, DFJ_JOIN_COUNT's */
        int nl = (int)j->off[1];
        bool counted = outer_order(n, j);
        bool own = false; /* a side without rows: each row keeps its own place */
        if (gather_part(ins_, nl, j->off[0], &tmp, err, errlen) ||
            gather_part(ins_ + nl, j->n_in - nl - counted, j->off[0], &tmp2, err, errlen) ||
            (counted && side_empty(&ins_[j->n_in - 1], nl, &own, err, errlen)))
            goto done;
        /* with DFJ_MERGE_ORDER after it: split by output chunk */
        bool ro = j->off[2] > 0 && (d->merge.how == MERGE_RIGHT || d->merge.how == MERGE_OUTER);
        if (j->off[2] > 0 && d->merge.how == MERGE_LEFT) { /* each chunk's rows built once */
            nouts = j->off[2];
            if (!(outs = calloc((size_t)nouts, sizeof(frame_t)))) {
                oom(err, errlen);
                goto done;
            }
            rc = merge_split_left(&tmp, &tmp2, &d->merge, nouts, outs, err, errlen);
            if (rc == 0) rc = emit_pack(outs, nouts, blob, len, err, errlen);
            goto done;
        }
        df_merge_rows_t mr;
        rc = df_merge_rows(&tmp, &tmp2, &d->merge, &out, ro ? &mr : NULL, err, errlen);
        if (rc == 0 && j->off[3]) rc = merge_conform(&out, d, err, errlen);
        if (rc == 0 && j->off[2] > 0) {
            nouts = j->off[2];
            if (!(outs = calloc((size_t)nouts, sizeof(frame_t)))) rc = oom(err, errlen);
            if (rc == 0 && d->merge.how == MERGE_INNER)
                rc = pos_by_key(&out, &d->merge, tmp.ncols, err, errlen);
            if (rc == 0 && ro)
                rc = pos_right_outer(&out, &tmp, &tmp2, &mr, &d->merge, nl, own, err, errlen);
            if (ro) df_merge_rows_free(&mr);
            if (rc == 0) rc = pos_split(&out, nouts, outs, err, errlen);
            if (rc == 0) rc = emit_pack(outs, nouts, blob, len, err, errlen);
            goto done;
        }
        break;
    }
    case DFJ_MERGE_BCAST: {
        /* v[0]: a chunk of the large side; the rest: the small side */
        if (concat_views(v + 1, nv - 1, &tmp, err, errlen)) goto done;
        bool big_left = j->off[0] == 0;
        const frame_t *l = big_left ? &v[0] : &tmp, *r = big_left ? &tmp : &v[0];
        if (j->off[1]) {
            rc = merge_right_order(l, r, &d->merge, &out, err, errlen);
        } else {
            rc = df_merge_part(l, r, &d->merge, &out, err, errlen);
        }
        if (rc == 0 && j->off[3]) rc = merge_conform(&out, d, err, errlen);
        break;
    }
    case DFJ_MERGE_BKEYS:
        if (concat_views(v + 1, nv - 1, &tmp, err, errlen)) goto done;
        rc = keyed_keys(&v[0], &tmp, &d->merge, &out, err, errlen);
        break;
    case DFJ_MERGE_BPLAN:
        if (keyed_plan(v, nv, j->off[0], &outs, &nouts, err, errlen)) goto done;
        rc = emit_pack(outs, nouts, blob, len, err, errlen);
        goto done;
    case DFJ_MERGE_BPART: {
        /* in: left's chunk, the plan (a pack), right's chunks */
        frame_t l = {0}, plan = {0};
        bool have = false;
        if (j->n_in < 3 || views(ins_ + 2, j->n_in - 2, &v, err, errlen)) {
            nv = j->n_in - 2;
            if (j->n_in < 3) errmsg(err, errlen, "internal: a merge part without its inputs");
            goto done;
        }
        nv = j->n_in - 2;
        nouts = j->off[2];
        if (concat_views(v, nv, &tmp, err, errlen) || view(&ins_[0], &l, err, errlen) ||
            run_pack_part(&ins_[1], j->off[0], &plan, &have, err, errlen) ||
            !(outs = calloc((size_t)nouts + 1, sizeof(frame_t)))) {
            if (!outs) oom(err, errlen);
            frame_free(&l);
            frame_free(&plan);
            goto done;
        }
        if (!have) frame_free(&plan);
        rc = have ? keyed_part(&l, &tmp, &plan, &d->merge, nouts, outs, err, errlen)
                  : errmsg(err, errlen, "internal: a merge plan without part %lld",
                           (long long)j->off[0]);
        frame_free(&l);
        frame_free(&plan);
        if (rc == 0) rc = emit_pack(outs, nouts, blob, len, err, errlen);
        goto done;
    }
    case DFJ_MERGE_ORDER:
        if (gather_part(ins_, j->n_in, j->off[0], &tmp, err, errlen)) goto done;
        rc = pos_order(&tmp, j->off[1] != 0, &out, err, errlen);
        break;
    default:
        errmsg(err, errlen, "internal: unknown DataFrame step %d", (int)k);
        goto done;
    }
    if (rc == 0) date_stamp_units(d, &out);
    if (rc == 0) rc = emit(&out, blob, len, err, errlen);
done:
    frame_free(&out);
done_free:
    frame_free(&tmp);
    frame_free(&tmp2);
    for (int64_t q = 0; outs && q < nouts; q++)
        frame_free(&outs[q]);
    free(outs);
    free(vp);
    free_views(v, nv);
    return rc;
}

/* query: the rows where the expression holds; eval: its values */
static int run_expr(const graph_node_t *n, const frame_t *a, frame_t *f, char *err, size_t errlen)
{
    const df_node_t *d = n->df;
    fcol_t v = {0};
    if (dfexpr_eval(d->expr, a, &v)) return oom(err, errlen);
    int rc = 0;
    if (n->op == OP_DF_QUERY) {
        int64_t *rows = malloc(sizeof(int64_t) * (size_t)(a->nrows + 1)), m = 0;
        if (!rows) {
            fcol_free(&v);
            return oom(err, errlen);
        }
        for (int64_t i = 0; i < a->nrows; i++)
            if (((const uint8_t *)v.data)[i]) rows[m++] = i;
        rc = frame_take(a, rows, m, f) ? oom(err, errlen) : 0;
        free(rows);
        fcol_free(&v);
        return rc;
    }
    if (frame_of_schema(d, true, a->nrows, f)) {
        fcol_free(&v);
        return oom(err, errlen);
    }
    f->cols[0] = v;
    f->range_index = a->range_index;
    for (int k = 0; k < a->nidx; k++)
        if (fcol_copy(&a->idx[k], &f->idx[k])) return oom(err, errlen);
    return 0;
}

/* merge_asof's jobs (asof.h): a tag job (DFJ_MAP, off[2] = 1: side off[0],
 * chunk off[1]; b the last key of the chunks before), the chain of last
 * keys (edge and combine, off[1] = 3), the carry of right rows (edge and
 * combine; off[1] = 1: nearest's backward chain), and the output (DFJ_MAP:
 * off[0] bit 1 the carry, forward's from the parts after; bit 2 the carry
 * after, nearest's) */
static int run_asof(const tile_t *t, const graph_node_t *n, const job_t *j, const frame_t *a,
                    const frame_t *b, const frame_t *c3, frame_t *f, char *err, size_t errlen)
{
    const df_node_t *d = n->df;
    dfjob_t k = (dfjob_t)j->param->dfk;
    if (k == DFJ_MAP && j->off[2] == 2) return df_asof_bounds(d, a, b, f, err, errlen);
    if (k == DFJ_MAP && j->off[2] == 1)
        return df_asof_tag(d, t->g->nodes[n->in[0].node].df, t->g->nodes[n->in[1].node].df,
                           (int)j->off[0], j->off[1], a, b, f, err, errlen);
    if (k != DFJ_MAP && j->off[1] == 3)
        return df_asof_key_edge(d, (int)j->off[0], k == DFJ_CARRY_EDGE ? NULL : a,
                                k == DFJ_CARRY_EDGE ? a : b, f, err, errlen);
    if (k == DFJ_CARRY_EDGE) return df_asof_state(d, NULL, a, j->off[1] == 1, f, err, errlen);
    if (k == DFJ_CARRY_COMBINE) return df_asof_state(d, a, b, j->off[1] == 1, f, err, errlen);
    const frame_t *c1 = j->off[0] & 1 ? b : NULL;
    const frame_t *c2 = !(j->off[0] & 2) ? NULL : c1 ? c3 : b;
    if (d->adir == DF_AD_FORWARD) return df_asof_map(d, a, NULL, c1, f, err, errlen);
    return df_asof_map(d, a, c1, c2, f, err, errlen);
}

/* ------------------------------------------------------------------ dispatch */

int dfx_run(const tile_t *t, int32_t ji, const dfx_in_t *ins_, void **blob, size_t *blob_len,
            void *fixed_out, char *err, size_t errlen)
{
    const job_t *j = &t->jobs[ji];
    const graph_node_t *n = &t->g->nodes[j->node];
    const df_node_t *d = n->df;
    frame_t f = {0};
    int rc = -1;
    int64_t *lined = NULL; /* a lined DFJ_WHOLE's input row counts */
    *blob = NULL;
    *blob_len = 0;
    switch ((dfjob_t)j->param->dfk) {
    case DFJ_WHOLE_PART: {
        /* part off[0] of the whole job's pack: its bytes are a frame blob */
        const void *b = NULL;
        size_t bl = 0;
        int64_t np = 0;
        if (dfx_pack_part(ins_[0].data, ins_[0].len, 0, &b, &bl, &np, err, errlen) ||
            dfx_pack_part(ins_[0].data, ins_[0].len, j->off[0], &b, &bl, &np, err, errlen))
            return -1;
        if (!(*blob = malloc(bl ? bl : 1))) return oom(err, errlen);
        memcpy(*blob, b, bl);
        *blob_len = bl;
        return 0;
    }
    case DFJ_FROM_TENSOR:
        rc = run_from_tensor(n, j, &ins_[0], &f) ? oom(err, errlen) : 0;
        break;
    case DFJ_READ_CSV:
        return run_read_csv(n, j, blob, blob_len, err, errlen);
    case DFJ_GETITEM: {
        frame_t s;
        if (view(&ins_[0], &s, err, errlen)) return -1;
        if (pick(d, n->vkind == VK_SERIES, &s, d->sel, d->nsel, &f)) {
            frame_free(&s);
            return oom(err, errlen);
        }
        rc = emit(&f, blob, blob_len, err, errlen);
        frame_free(&f);
        frame_free(&s);
        return rc;
    }
    case DFJ_EW:
        rc = run_ew(n, ins_, j->n_in, &f, err, errlen);
        break;
    case DFJ_FILTER:
        rc = run_filter(ins_, &f, err, errlen);
        break;
    case DFJ_ASSIGN:
        return run_assign(n, ins_, blob, blob_len, err, errlen);
    case DFJ_HEAD:
        rc = run_head(j, ins_, &f, err, errlen);
        break;
    case DFJ_TO_TENSOR:
        rc = run_to_tensor(n, j, ins_, &f, err, errlen);
        if (rc == 0 && !j->blob) {
            /* a tensor chunk: the columns side by side, row-major */
            size_t es = d->tdt == DT_BOOL ? 1 : 8;
            int64_t expect = j->shape[0];
            if (f.nrows != expect) {
                rc = errmsg(err, errlen, "internal: to_tensor chunk of %lld rows, %lld expected",
                            (long long)f.nrows, (long long)expect);
            } else {
                for (int k = 0; k < f.ncols; k++)
                    for (int64_t i = 0; i < f.nrows; i++)
                        memcpy((char *)fixed_out + ((size_t)i * (size_t)f.ncols + (size_t)k) * es,
                               (const char *)f.cols[k].data + (size_t)i * es, es);
            }
            frame_free(&f);
            return rc;
        }
        break;
    case DFJ_RED_MAP:
        return run_red_map(t, j, &ins_[0], fixed_out, err, errlen);
    case DFJ_RED_COMBINE:
    case DFJ_RED_FINAL: {
        int nc = d->nsel > 0 ? d->nsel : 1;
        part_t *acc = malloc(sizeof(part_t) * (size_t)nc);
        if (!acc) return oom(err, errlen);
        for (int k = 0; k < j->n_in; k++) {
            if (ins_[k].len < sizeof(part_t) * (size_t)nc) {
                free(acc);
                return errmsg(err, errlen, "internal: short reduction partial");
            }
            const part_t *p = ins_[k].data;
            for (int c = 0; c < nc; c++) {
                if (k == 0)
                    acc[c] = p[c];
                else
                    part_merge(&acc[c], &p[c]);
            }
        }
        if (j->param->dfk == DFJ_RED_COMBINE) {
            memcpy(fixed_out, acc, sizeof(part_t) * (size_t)nc);
            rc = 0;
        } else {
            rc = run_red_final(t, j, acc, blob, blob_len, fixed_out, err, errlen);
        }
        free(acc);
        return rc;
    }
    case DFJ_MAP:
    case DFJ_CARRY_EDGE:
    case DFJ_CARRY_COMBINE: {
        if ((n->op == OP_DF_CUT && j->param->dfk == DFJ_CARRY_COMBINE) ||
            (n->op == OP_DF_QCUT && j->param->dfk == DFJ_CARRY_EDGE)) {
            /* cut's ranges combined (up to DF_FANIN partials); qcut's
             * quantiles of every chunk (at most 2 GiB) */
            if (n->op == OP_DF_QCUT && df3_whole_check(n, ins_, j->n_in, err, errlen)) return -1;
            frame_t *v = NULL;
            if (views(ins_, j->n_in, &v, err, errlen)) {
                free_views(v, j->n_in);
                return -1;
            }
            const frame_t **pp = malloc(sizeof(frame_t *) * (size_t)(j->n_in + 1));
            for (int q = 0; pp && q < j->n_in; q++)
                pp[q] = &v[q];
            rc = !pp                   ? oom(err, errlen)
                 : n->op == OP_DF_QCUT ? df_qcut_edges(d, pp, j->n_in, &f, err, errlen)
                                       : df_cut_range(pp, j->n_in, false, &f, err, errlen);
            free(pp);
            free_views(v, j->n_in);
            break;
        }
        frame_t a = {0}, b = {0}, c3 = {0}, gs = {0};
        int nin = j->n_in;
        df_node_t dm; /* skew and kurt: the node with its moment pass (running.h) */
        bool moment_pass = df_run_moments(d, n->op) && j->param->dfk != DFJ_MAP && j->off[1] == 2;
        if (df_run_moments(d, n->op) && !moment_pass) {
            if (view(&ins_[--nin], &gs, err, errlen)) return -1;
            dm = *d;
            dm.run_stat = &gs;
            d = &dm;
        }
        bool two = nin > 1;
        if (view(&ins_[0], &a, err, errlen)) {
            frame_free(&gs);
            return -1;
        }
        if (two && view(&ins_[1], &b, err, errlen)) {
            frame_free(&a);
            frame_free(&gs);
            return -1;
        }
        if (nin > 2 && view(&ins_[2], &c3, err, errlen)) {
            frame_free(&a);
            frame_free(&b);
            frame_free(&gs);
            return -1;
        }
        bool running = n->op == OP_DF_CUMSUM || n->op == OP_DF_CUMPROD || n->op == OP_DF_CUMMAX ||
                       n->op == OP_DF_CUMMIN || n->op == OP_DF_DIFF || n->op == OP_DF_SHIFT ||
                       n->op == OP_DF_PCT_CHANGE || n->op == OP_DF_ROLLING || n->op == OP_DF_EWM ||
                       n->op == OP_DF_EXPANDING;
        bool str = df_op_is_str(n->op);
        bool relabel = n->op == OP_DF_RESET_INDEX || n->op == OP_DF_MERGE || n->op == OP_DF_JOIN ||
                       n->op == OP_DF_CONCAT;
        if (relabel && j->param->dfk != DFJ_MAP) {
            /* the carry: rows before the chunk (edge: the chunk's count) */
            int64_t cnt =
                j->param->dfk == DFJ_CARRY_EDGE
                    ? a.nrows
                    : ((const int64_t *)a.cols[0].data)[0] + ((const int64_t *)b.cols[0].data)[0];
            rc = frame_alloc(&f, false, 1, 1, 1) || fcol_alloc(&f.cols[0], FT_INT64, 1, 0, false) ||
                         fcol_alloc(&f.idx[0], FT_INT64, 1, 0, false)
                     ? oom(err, errlen)
                     : 0;
            if (rc == 0) {
                ((int64_t *)f.cols[0].data)[0] = cnt;
                ((int64_t *)f.idx[0].data)[0] = 0;
            }
        } else if (n->op == OP_DF_RESET_INDEX && two) {
            rc = df_select_map(d, n->op, &a, ((const int64_t *)b.cols[0].data)[0], &f, err, errlen);
        } else if (n->op == OP_DF_CONCAT) { /* ignore_index: reset_index(drop=True) */
            int64_t row0 = two ? ((const int64_t *)b.cols[0].data)[0] : 0;
            rc = df_select_map(d, OP_DF_RESET_INDEX, &a, row0, &f, err, errlen);
        } else if (relabel && n->op != OP_DF_RESET_INDEX) {
            /* a merge's default index: the rows before the chunk, then 0.. */
            int64_t row0 = two ? ((const int64_t *)b.cols[0].data)[0] : 0;
            rc = frame_slice(&a, 0, a.nrows, &f) ? oom(err, errlen) : 0;
            for (int64_t i = 0; rc == 0 && i < f.nrows; i++)
                ((int64_t *)f.idx[0].data)[i] = row0 + i;
            f.range_index = false;
        } else if (n->op == OP_DF_QUERY || n->op == OP_DF_EVAL)
            rc = run_expr(n, &a, &f, err, errlen);
        else if (str)
            rc = df_str_map(d, n->op, &a, &f, err, errlen);
        else if (n->op >= OP_DF_DT_YEAR && n->op <= OP_DF_DT_DATE)
            rc = df_dt_map(d, n->op, &a, &f, err, errlen);
        else if (n->op == OP_DF_TO_DATETIME || n->op == OP_DF_TO_TIMEDELTA)
            rc = df_to_datetime(d, &a, &f, err, errlen);
        else if (n->op == OP_DF_GROUPBY_TRANSFORM || n->op == OP_DF_GROUPBY_HEAD ||
                 n->op == OP_DF_GROUPBY_TAIL || n->op == OP_DF_GROUPBY_SIZE)
            /* chunk by chunk (df3_gb_carry); size's and ngroup's job
             * sorting the groups reads the carry alone (off[0] = 2) */
            rc = j->param->dfk == DFJ_MAP && j->off[0] == 2
                     ? df3_gb_final(d, n->op, &a, &f, err, errlen)
                 : j->param->dfk == DFJ_MAP
                     ? df3_gb_carry(d, n->op, &a, two ? &b : NULL, &f, NULL, err, errlen)
                 : j->param->dfk == DFJ_CARRY_EDGE
                     ? df3_gb_carry(d, n->op, &a, NULL, NULL, &f, err, errlen)
                     : df3_gb_carry(d, n->op, &b, &a, NULL, &f, err, errlen);
        else if ((n->op == OP_DF_CUT || n->op == OP_DF_QCUT) && j->param->dfk == DFJ_MAP)
            rc = df_cut_map(d, &a, two ? &b : NULL, &f, err, errlen);
        else if (n->op == OP_DF_CUT) /* a chunk's range (combines: before the views) */
            rc = df_cut_range((const frame_t *const[]){&a}, 1, true, &f, err, errlen);
        else if (n->op == OP_DF_MERGE_ASOF)
            rc = run_asof(t, n, j, &a, two ? &b : NULL, nin > 2 ? &c3 : NULL, &f, err, errlen);
        else if (n->op == OP_DF_INTERPOLATE && j->param->dfk == DFJ_MAP) {
            /* off[0] bit 1: the carry before; bit 2: the carry after */
            const frame_t *bef = j->off[0] & 1 ? &b : NULL;
            const frame_t *aft = !(j->off[0] & 2) ? NULL : bef ? &c3 : &b;
            rc = df_interp_map(d, &a, bef, aft, &f, err, errlen);
        } else if (n->op == OP_DF_INTERPOLATE && j->param->dfk == DFJ_CARRY_EDGE)
            rc = df_interp_edge(d, &a, j->off[1] == 1, &f, err, errlen);
        else if (n->op == OP_DF_INTERPOLATE)
            rc = df_interp_combine(&a, &b, &f, err, errlen);
        else if (moment_pass)
            rc = df_run_stat(d, two ? &a : NULL, two ? &b : &a, &f, err, errlen);
        else if (running && j->param->dfk == DFJ_MAP && df_run_after(d, n->op)) {
            /* a centred window: off[0] bit 1, the carry before; bit 2, the
             * carry after (inputs in that order) */
            const frame_t *bef = j->off[0] & 1 ? &b : NULL;
            const frame_t *aft = !(j->off[0] & 2) ? NULL : bef ? &c3 : &b;
            rc = df_run_map(d, n->op, &a, bef, aft, &f, err, errlen);
        } else if (running && j->param->dfk == DFJ_MAP)
            rc = df_run_map(d, n->op, &a, two ? &b : NULL, NULL, &f, err, errlen);
        else if (running && j->param->dfk == DFJ_CARRY_EDGE)
            rc = df_run_edge(d, n->op, &a, j->off[1] == 1, &f, err, errlen);
        else if (running)
            rc = df_run_combine(d, n->op, &a, &b, j->off[1] == 1, &f, err, errlen);
        else if (j->param->dfk == DFJ_MAP &&
                 (n->op == OP_DF_SET_INDEX || n->op == OP_DF_RESET_INDEX ||
                  n->op == OP_DF_NLARGEST || n->op == OP_DF_NSMALLEST))
            rc = df_select_map(d, n->op, &a, j->off[1], &f, err, errlen);
        else if (j->param->dfk == DFJ_MAP)
            rc = df_clean_map(d, n->op, &a, two ? &b : NULL, &f, err, errlen);
        else if (j->param->dfk == DFJ_CARRY_EDGE)
            rc = df_clean_edge(d, &a, &f, err, errlen);
        else
            rc = df_clean_combine(d, &a, &b, &f, err, errlen);
        frame_free(&a);
        frame_free(&b);
        frame_free(&c3);
        frame_free(&gs);
        d = n->df; /* not dm, which ends here */
        break;
    }
    case DFJ_MULTIOUT:
        return df_multi_run(t, ji, ins_, blob, blob_len, fixed_out, err, errlen);
    case DFJ_WHOLE: {
        frame_t *v = NULL, all = {0};
        bool stats = (n->op >= OP_DF_MEDIAN && n->op <= OP_DF_RANK) || n->op == OP_DF_IDXMAX ||
                     n->op == OP_DF_IDXMIN || n->op == OP_DF_MODE;
        /* one job over every row: bounded (statistics and idxmax too) */
        bool up = n->op == OP_DF_RESAMPLE && d->rs.up;
        if ((stats || up || n->op == OP_DF_PIVOT || n->op == OP_DF_UNSTACK ||
             (n->op >= OP_DF_PIVOT_TABLE && n->op <= OP_DF_GROUPBY_TAIL)) &&
            df3_whole_check(n, ins_, j->n_in, err, errlen))
            return -1;
        bool viewed = views(ins_, j->n_in, &v, err, errlen) == 0;
        if (viewed && j->off[3] == 1 &&
            !(lined = malloc(sizeof(int64_t) * (size_t)(j->n_in + 1)))) {
            free_views(v, j->n_in);
            return oom(err, errlen);
        }
        for (int k = 0; lined && k < j->n_in; k++)
            lined[k] = v[k].nrows;
        if (viewed && concat_views(v, j->n_in, &all, err, errlen) == 0)
            rc = up ? rs_upsample(&d->rs, &all, DF3_WHOLE_MAX_BYTES, &f, err, errlen)
                 : n->op == OP_DF_GROUPBY_AGG || n->op == OP_DF_RESAMPLE
                     ? (df_gb_whole(d, &all, &f, err, errlen) ||
                        gb_schema_floats(d, &f, err, errlen))
                 : n->op == OP_DF_PIVOT_TABLE ? df3_pivot(d, &all, &f, err, errlen)
                 : n->op == OP_DF_PIVOT       ? df3_pivot_reshape(d, n->op, &all, &f, err, errlen)
                 : n->op == OP_DF_UNSTACK     ? unstack_run(d, &all, &f, err, errlen)
                 : n->op >= OP_DF_GROUPBY_SIZE && n->op <= OP_DF_GROUPBY_TAIL
                     ? df3_groupby(d, n->op, &all, &f, err, errlen)
                 : stats ? df_stats_whole(d, n->op, &all, &f, err, errlen)
                         : df_select_whole(d, n->op, &all, &f, err, errlen);
        frame_free(&all);
        free_views(v, j->n_in);
        if (rc == 0 && !j->blob) {
            /* a Series statistic: its one value as a 0-d float64 tensor */
            *(double *)fixed_out =
                f.nrows > 0 && f.cols[0].type == FT_FLOAT64 ? ((double *)f.cols[0].data)[0] : NAN;
            frame_free(&f);
            return 0;
        }
        break;
    }
    case DFJ_MULTI:
        rc = df3_run_multi(n, j, ins_, &f, err, errlen);
        break;
    default:
        return run_algo(t, j, ins_, blob, blob_len, fixed_out, err, errlen);
    }
    if (rc == 0) date_stamp_units(d, &f);
    if (rc == 0)
        rc = lined ? emit_lined(&f, lined, j->n_in, blob, blob_len, err, errlen)
                   : emit(&f, blob, blob_len, err, errlen);
    free(lined);
    frame_free(&f);
    return rc;
}
