/* frame.c: frame memory, blobs and row operations. */
#include "frame.h"

#include "../errmsg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOB_MAGIC 0x4644524du /* "MRDF" */
#define BLOB_VERSION 1u

static size_t width(ftype_t t)
{
    return t == FT_BOOL ? 1 : 8; /* STRING: no data array */
}

static bool mul_ok(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b < 0) return false;
    return !__builtin_mul_overflow(a, b, out);
}

static void *xmalloc(int64_t n)
{
    if (n < 0 || (uint64_t)n > SIZE_MAX) return NULL;
    return malloc(n ? (size_t)n : 1);
}

int frame_alloc(frame_t *f, bool series, int64_t nrows, int ncols, int nidx)
{
    memset(f, 0, sizeof *f);
    if (nrows < 0 || ncols < 0 || nidx < 1 || (series && ncols != 1)) return -1;
    f->series = series;
    f->nrows = nrows;
    f->ncols = ncols;
    f->nidx = nidx;
    f->cols = calloc((size_t)ncols + 1, sizeof(fcol_t));
    f->names = calloc((size_t)ncols + 1, sizeof(flabel_t));
    f->idx = calloc((size_t)nidx, sizeof(fcol_t));
    f->idx_names = calloc((size_t)nidx, sizeof(flabel_t));
    if (!f->cols || !f->names || !f->idx || !f->idx_names) {
        frame_free(f);
        return -1;
    }
    return 0;
}

int fcol_alloc(fcol_t *c, ftype_t t, int64_t n, int64_t nbytes, bool with_valid)
{
    memset(c, 0, sizeof *c);
    c->type = (uint8_t)t;
    c->n = n;
    int64_t sz;
    if (t == FT_STRING) {
        if (!mul_ok(n + 1, 8, &sz) || nbytes < 1 || !(c->offsets = xmalloc(sz)) ||
            !(c->bytes = xmalloc(nbytes)))
            goto fail;
        c->offsets[0] = 0;
        c->bytes[0] = 0;
    } else if (!mul_ok(n, (int64_t)width(t), &sz) || !(c->data = xmalloc(sz))) {
        goto fail;
    }
    if (with_valid) {
        if (!(c->valid = xmalloc(n))) goto fail;
        memset(c->valid, 1, (size_t)n);
    }
    return 0;
fail:
    fcol_free(c);
    return -1;
}

void fcol_free(fcol_t *c)
{
    free(c->data);
    free(c->offsets);
    free(c->bytes);
    free(c->valid);
    memset(c, 0, sizeof *c);
}

int flabel_set(flabel_t *l, const char *s, bool is_int)
{
    free(l->s);
    l->s = NULL;
    l->is_int = is_int;
    if (s && !(l->s = strdup(s))) return -1;
    return 0;
}

void frame_free(frame_t *f)
{
    if (!f->view) {
        for (int i = 0; f->cols && i < f->ncols; i++)
            fcol_free(&f->cols[i]);
        for (int i = 0; f->idx && i < f->nidx; i++)
            fcol_free(&f->idx[i]);
        for (int i = 0; f->names && i < f->ncols; i++)
            free(f->names[i].s);
        for (int i = 0; f->idx_names && i < f->nidx; i++)
            free(f->idx_names[i].s);
    }
    free(f->cols);
    free(f->names);
    free(f->idx);
    free(f->idx_names);
    memset(f, 0, sizeof *f);
}

int fcol_widen(const fcol_t *c, fcol_t *out)
{
    if (c->type != FT_INT64) return -1;
    if (fcol_alloc(out, FT_FLOAT64, c->n, 0, false)) return -1;
    for (int64_t i = 0; i < c->n; i++)
        ((double *)out->data)[i] = (double)((const int64_t *)c->data)[i];
    return 0;
}

int fcol_copy(const fcol_t *c, fcol_t *out)
{
    int64_t nb = c->type == FT_STRING ? c->offsets[c->n] + 1 : 0;
    if (fcol_alloc(out, (ftype_t)c->type, c->n, nb, c->valid != NULL)) return -1;
    out->unit = c->unit;
    if (c->type == FT_STRING) {
        memcpy(out->offsets, c->offsets, (size_t)(c->n + 1) * 8);
        memcpy(out->bytes, c->bytes, (size_t)nb);
    } else {
        memcpy(out->data, c->data, (size_t)c->n * width((ftype_t)c->type));
    }
    if (c->valid) memcpy(out->valid, c->valid, (size_t)c->n);
    return 0;
}

/* ---- blobs ----
 * header: u32 magic, u32 version, u64 total, i64 nrows, i32 ncols, i32 nidx,
 *         u8 series, u8 range_index, 6 bytes zero                (40 bytes)
 * then per column, index levels first: a descriptor
 *         u8 type (low nibble; high nibble: an INT64 column's unit), u8 has_valid, u8 has_label, u8
 * label_is_int, u32 label_len, i64 nbytes (STRING: string bytes with the NUL; else 0)  (16 bytes)
 * followed by label bytes, data or offsets and bytes, valid, each padded to 8. */
#define HDR 40
#define DESC 16

static size_t pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static size_t col_size(const fcol_t *c, const flabel_t *l)
{
    size_t n = (size_t)c->n, s = DESC;
    if (l->s) s += pad8(strlen(l->s) + 1);
    if (c->type == FT_STRING)
        s += (n + 1) * 8 + pad8((size_t)c->offsets[n] + 1);
    else
        s += pad8(n * width((ftype_t)c->type));
    if (c->valid) s += pad8(n);
    return s;
}

size_t frame_blob_size(const frame_t *f)
{
    size_t s = HDR;
    for (int i = 0; i < f->nidx; i++)
        s += col_size(&f->idx[i], &f->idx_names[i]);
    for (int i = 0; i < f->ncols; i++)
        s += col_size(&f->cols[i], &f->names[i]);
    return s;
}

static uint8_t *put(uint8_t *p, const void *src, size_t n)
{
    if (n) memcpy(p, src, n);
    memset(p + n, 0, pad8(n) - n);
    return p + pad8(n);
}

static uint8_t *put_col(uint8_t *p, const fcol_t *c, const flabel_t *l)
{
    size_t n = (size_t)c->n, ll = l->s ? strlen(l->s) : 0;
    uint32_t ll32 = (uint32_t)ll;
    int64_t nb = c->type == FT_STRING ? c->offsets[n] + 1 : 0;
    p[0] = (uint8_t)(c->type | (c->type == FT_INT64 ? c->unit << 4 : 0));
    p[1] = c->valid != NULL;
    p[2] = l->s != NULL;
    p[3] = l->is_int;
    memcpy(p + 4, &ll32, 4);
    memcpy(p + 8, &nb, 8);
    p += DESC;
    if (l->s) p = put(p, l->s, ll + 1);
    if (c->type == FT_STRING) {
        p = put(p, c->offsets, (n + 1) * 8);
        p = put(p, c->bytes, (size_t)nb);
    } else {
        p = put(p, c->data, n * width((ftype_t)c->type));
    }
    if (c->valid) p = put(p, c->valid, n);
    return p;
}

void frame_serialize(const frame_t *f, void *out)
{
    uint8_t *p = out;
    uint32_t magic = BLOB_MAGIC, ver = BLOB_VERSION;
    uint64_t total = frame_blob_size(f);
    int32_t nc = f->ncols, ni = f->nidx;
    memset(p, 0, HDR);
    memcpy(p, &magic, 4);
    memcpy(p + 4, &ver, 4);
    memcpy(p + 8, &total, 8);
    memcpy(p + 16, &f->nrows, 8);
    memcpy(p + 24, &nc, 4);
    memcpy(p + 28, &ni, 4);
    p[32] = f->series;
    p[33] = f->range_index;
    p[34] = f->vtype;
    p += HDR;
    for (int i = 0; i < f->nidx; i++)
        p = put_col(p, &f->idx[i], &f->idx_names[i]);
    for (int i = 0; i < f->ncols; i++)
        p = put_col(p, &f->cols[i], &f->names[i]);
}

size_t frame_blob_len(const void *buf, size_t len)
{
    uint32_t magic, ver;
    uint64_t total;
    if (len < HDR) return 0;
    memcpy(&magic, buf, 4);
    memcpy(&ver, (const char *)buf + 4, 4);
    memcpy(&total, (const char *)buf + 8, 8);
    if (magic != BLOB_MAGIC || ver != BLOB_VERSION || total < HDR || total > len) return 0;
    return (size_t)total;
}

typedef struct {
    const uint8_t *p;
    size_t left;
} cur_t;

/* Takes n bytes (padded to 8) from the cursor, or NULL past the end. */
static const uint8_t *take(cur_t *c, size_t n)
{
    if (n > c->left || pad8(n) > c->left) return NULL;
    const uint8_t *r = c->p;
    c->p += pad8(n);
    c->left -= pad8(n);
    return r;
}

static int view_col(cur_t *cu, int64_t nrows, fcol_t *c, flabel_t *l, char *err, size_t errlen)
{
    const uint8_t *d = take(cu, DESC);
    if (!d) return errmsg(err, errlen, "frame blob: truncated column descriptor");
    uint32_t ll;
    int64_t nb;
    memcpy(&ll, d + 4, 4);
    memcpy(&nb, d + 8, 8);
    uint8_t ty = d[0] & 15, unit = d[0] >> 4;
    if (ty > FT_STRING || unit > FU_LAST || (unit && ty != FT_INT64) || d[1] > 1 || d[2] > 1 ||
        d[3] > 1)
        return errmsg(err, errlen, "frame blob: bad column descriptor");
    memset(c, 0, sizeof *c);
    c->type = ty;
    c->unit = unit;
    c->n = nrows;
    l->is_int = d[3];
    l->s = NULL;
    if (d[2]) {
        const uint8_t *s = ll < UINT32_MAX ? take(cu, (size_t)ll + 1) : NULL;
        if (!s || s[ll] != 0 || memchr(s, 0, ll))
            return errmsg(err, errlen, "frame blob: bad column label");
        l->s = (char *)s;
    }
    size_t n = (size_t)nrows;
    if (c->type == FT_STRING) {
        const uint8_t *o = take(cu, (n + 1) * 8);
        if (!o || nb < 1 || (uint64_t)nb > cu->left)
            return errmsg(err, errlen, "frame blob: truncated string column");
        const uint8_t *b = take(cu, (size_t)nb);
        if (!b) return errmsg(err, errlen, "frame blob: truncated string bytes");
        c->offsets = (int64_t *)o;
        c->bytes = (char *)b;
        if (c->offsets[0] != 0 || c->offsets[n] != nb - 1 || c->bytes[nb - 1] != 0)
            return errmsg(err, errlen, "frame blob: bad string offsets");
        for (size_t i = 0; i < n; i++)
            if (c->offsets[i + 1] < c->offsets[i])
                return errmsg(err, errlen, "frame blob: bad string offsets");
    } else {
        if (nb != 0) return errmsg(err, errlen, "frame blob: bad column descriptor");
        const uint8_t *v = take(cu, n * width((ftype_t)c->type));
        if (!v) return errmsg(err, errlen, "frame blob: truncated column");
        c->data = (void *)v;
    }
    if (d[1]) {
        const uint8_t *v = take(cu, n);
        if (!v) return errmsg(err, errlen, "frame blob: truncated validity");
        c->valid = (uint8_t *)v;
    }
    return 0;
}

int frame_copy_index(const frame_t *in, frame_t *out)
{
    out->range_index = in->range_index;
    for (int k = 0; k < in->nidx; k++)
        if (fcol_copy(&in->idx[k], &out->idx[k]) ||
            flabel_set(&out->idx_names[k], in->idx_names[k].s, in->idx_names[k].is_int))
            return -1;
    return 0;
}

int frame_view(const void *buf, size_t len, frame_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (((uintptr_t)buf & 7) != 0) return errmsg(err, errlen, "frame blob: not 8-byte aligned");
    size_t total = frame_blob_len(buf, len);
    if (!total) return errmsg(err, errlen, "frame blob: bad header");
    const uint8_t *p = buf;
    int64_t nrows;
    int32_t nc, ni;
    memcpy(&nrows, p + 16, 8);
    memcpy(&nc, p + 24, 4);
    memcpy(&ni, p + 28, 4);
    /* every row takes at least one byte per column, so nrows <= total */
    if (nrows < 0 || (uint64_t)nrows > total || nc < 0 || ni < 1 || p[32] > 1 || p[33] > 1 ||
        p[34] > FT_STRING + 1 || (size_t)nc + (size_t)ni > (total - HDR) / DESC ||
        (p[32] && nc != 1))
        return errmsg(err, errlen, "frame blob: bad header");
    if (frame_alloc(out, p[32], nrows, nc, ni))
        return errmsg(err, errlen, "frame blob: out of memory");
    out->view = true;
    out->range_index = p[33];
    out->vtype = p[34];
    cur_t cu = {p + HDR, total - HDR};
    for (int i = 0; i < ni; i++)
        if (view_col(&cu, nrows, &out->idx[i], &out->idx_names[i], err, errlen)) goto bad;
    for (int i = 0; i < nc; i++)
        if (view_col(&cu, nrows, &out->cols[i], &out->names[i], err, errlen)) goto bad;
    return 0;
bad:
    frame_free(out);
    return -1;
}

/* ---- row operations ---- */

static int frame_like(const frame_t *src, int64_t nrows, frame_t *out)
{
    if (frame_alloc(out, src->series, nrows, src->ncols, src->nidx)) return -1;
    out->range_index = src->range_index;
    out->vtype = src->vtype;
    for (int i = 0; i < src->ncols; i++)
        if (flabel_set(&out->names[i], src->names[i].s, src->names[i].is_int)) goto fail;
    for (int i = 0; i < src->nidx; i++)
        if (flabel_set(&out->idx_names[i], src->idx_names[i].s, src->idx_names[i].is_int))
            goto fail;
    return 0;
fail:
    frame_free(out);
    return -1;
}

static int take_col(const fcol_t *c, const int64_t *rows, int64_t n, fcol_t *out)
{
    int64_t nb = 1;
    if (c->type == FT_STRING)
        for (int64_t i = 0; i < n; i++)
            nb += c->offsets[rows[i] + 1] - c->offsets[rows[i]];
    if (fcol_alloc(out, (ftype_t)c->type, n, nb, c->valid != NULL)) return -1;
    out->unit = c->unit;
    if (c->type == FT_STRING) {
        int64_t at = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t len;
            const char *s = fcol_str(c, rows[i], &len);
            memcpy(out->bytes + at, s, (size_t)len);
            at += len;
            out->offsets[i + 1] = at;
        }
        out->bytes[at] = 0;
    } else if (c->type == FT_BOOL) {
        const uint8_t *s = c->data;
        uint8_t *d = out->data;
        for (int64_t i = 0; i < n; i++)
            d[i] = s[rows[i]];
    } else {
        const int64_t *s = c->data;
        int64_t *d = out->data;
        for (int64_t i = 0; i < n; i++)
            d[i] = s[rows[i]];
    }
    if (c->valid)
        for (int64_t i = 0; i < n; i++)
            out->valid[i] = c->valid[rows[i]];
    return 0;
}

int fcol_take(const fcol_t *c, const int64_t *rows, int64_t n, fcol_t *out)
{
    return take_col(c, rows, n, out);
}

int frame_take(const frame_t *src, const int64_t *rows, int64_t n, frame_t *out)
{
    if (frame_like(src, n, out)) return -1;
    for (int i = 0; i < src->nidx; i++)
        if (take_col(&src->idx[i], rows, n, &out->idx[i])) goto fail;
    for (int i = 0; i < src->ncols; i++)
        if (take_col(&src->cols[i], rows, n, &out->cols[i])) goto fail;
    return 0;
fail:
    frame_free(out);
    return -1;
}

int frame_slice(const frame_t *src, int64_t start, int64_t n, frame_t *out)
{
    if (start < 0 || n < 0 || start > src->nrows || n > src->nrows - start) return -1;
    int64_t *rows = xmalloc(n * 8);
    if (!rows) return -1;
    for (int64_t i = 0; i < n; i++)
        rows[i] = start + i;
    int rc = frame_take(src, rows, n, out);
    free(rows);
    return rc;
}

static bool numeric_type(int t)
{
    return t == FT_INT64 || t == FT_FLOAT64;
}

/* int64 beside float64 becomes float64 (a chunk where no value went
 * missing beside one where some did); other differences fail. */
static int concat_col(const frame_t *const *parts, int n, bool is_idx, int k, int64_t total,
                      fcol_t *out)
{
    const fcol_t *c0 = is_idx ? &parts[0]->idx[k] : &parts[0]->cols[k];
    int ty = c0->type;
    bool valid = false;
    int64_t nb = 1;
    for (int p = 0; p < n; p++) {
        const fcol_t *c = is_idx ? &parts[p]->idx[k] : &parts[p]->cols[k];
        if (c->type != ty) {
            if (!numeric_type(c->type) || !numeric_type(ty)) return -1;
            ty = FT_FLOAT64;
        }
        valid |= c->valid != NULL;
        if (c->type == FT_STRING && __builtin_add_overflow(nb, c->offsets[c->n], &nb)) return -1;
    }
    if (fcol_alloc(out, (ftype_t)ty, total, nb, valid)) return -1;
    out->unit = ty == c0->type ? c0->unit : FU_NONE;
    int64_t row = 0, at = 0;
    size_t w = width((ftype_t)ty);
    for (int p = 0; p < n; p++) {
        const fcol_t *c = is_idx ? &parts[p]->idx[k] : &parts[p]->cols[k];
        if (c->type == FT_STRING) {
            memcpy(out->bytes + at, c->bytes, (size_t)c->offsets[c->n]);
            for (int64_t i = 0; i < c->n; i++)
                out->offsets[row + i + 1] = at + c->offsets[i + 1];
            at += c->offsets[c->n];
        } else if (c->type != ty) { /* int64 into float64 */
            for (int64_t i = 0; i < c->n; i++)
                ((double *)out->data)[row + i] = (double)((const int64_t *)c->data)[i];
        } else if (c->n) {
            memcpy((char *)out->data + (size_t)row * w, c->data, (size_t)c->n * w);
        }
        if (c->valid) memcpy(out->valid + row, c->valid, (size_t)c->n);
        row += c->n;
    }
    if (ty == FT_STRING) out->bytes[at] = 0;
    return 0;
}

int frame_concat(const frame_t *const *parts, int n, frame_t *out)
{
    if (n < 1) return -1;
    int64_t total = 0;
    for (int p = 0; p < n; p++) {
        if (parts[p]->ncols != parts[0]->ncols || parts[p]->nidx != parts[0]->nidx ||
            __builtin_add_overflow(total, parts[p]->nrows, &total))
            return -1;
    }
    if (frame_like(parts[0], total, out)) return -1;
    for (int i = 0; i < parts[0]->nidx; i++)
        if (concat_col(parts, n, true, i, total, &out->idx[i])) goto fail;
    for (int i = 0; i < parts[0]->ncols; i++)
        if (concat_col(parts, n, false, i, total, &out->cols[i])) goto fail;
    if (out->range_index && out->idx[0].type == FT_INT64)
        for (int64_t i = 0; i < total; i++)
            ((int64_t *)out->idx[0].data)[i] = i;
    return 0;
fail:
    frame_free(out);
    return -1;
}
