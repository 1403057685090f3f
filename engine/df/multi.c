/* multi.c: held outputs of ops with several results (multi.h). */
#include "multi.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../graph.h"
#include "../setops.h"

#include "../errmsg.h"
#include "../kern/radix.h"

static bool truthy(const void *p, dtype_t dt, int64_t i)
{
    switch (dt) {
    case DT_BOOL:
        return ((const uint8_t *)p)[i] != 0;
    case DT_INT32:
        return ((const int32_t *)p)[i] != 0;
    case DT_INT64:
        return ((const int64_t *)p)[i] != 0;
    case DT_FLOAT32:
        return ((const float *)p)[i] != 0; /* NaN is nonzero, -0.0 is zero */
    default:
        return ((const double *)p)[i] != 0;
    }
}

static int emit(frame_t *f, void **blob, size_t *blob_len, char *err, size_t errlen)
{
    size_t len = frame_blob_size(f);
    void *b = malloc(len ? len : 1);
    if (!b) {
        frame_free(f);
        return errmsg(err, errlen, "out of memory");
    }
    frame_serialize(f, b);
    frame_free(f);
    *blob = b;
    *blob_len = len;
    return 0;
}

/* ---- unique: entries (value, first flat index, count) */
typedef struct {
    union {
        int64_t i;
        double f;
    } v;
    int64_t first, count;
} uent_t;

static int cmp_i(const void *pa, const void *pb)
{
    const uent_t *a = pa, *b = pb;
    if (a->v.i != b->v.i) return a->v.i < b->v.i ? -1 : 1;
    return (a->first > b->first) - (a->first < b->first);
}

/* NaN after every number, all NaNs one value */
static int cmp_f(const void *pa, const void *pb)
{
    const uent_t *a = pa, *b = pb;
    bool na = a->v.f != a->v.f, nb = b->v.f != b->v.f;
    if (na != nb) return na ? 1 : -1;
    if (!na && a->v.f != b->v.f) return a->v.f < b->v.f ? -1 : 1;
    return (a->first > b->first) - (a->first < b->first);
}

static bool same(const uent_t *a, const uent_t *b, bool fl)
{
    if (!fl) return a->v.i == b->v.i;
    if (a->v.f != a->v.f) return b->v.f != b->v.f;
    return a->v.f == b->v.f;
}

/* The radix sorts' keys: the values' order, all NaNs one key, -0.0 as 0.0 */
#define UKEY_I(e) radix_key_i64((e).v.i)
#define UKEY_F(e) radix_key_f64((e).v.f)
DEFINE_RADIX_BY(radix_uent_i, uent_t, uint64_t, UKEY_I)
DEFINE_RADIX_BY(radix_uent_f, uent_t, uint64_t, UKEY_F)

/* Below this many entries qsort; from it a radix sort by value, 3-6x
 * faster on a block of 10^6. The radix sort and merge_runs take n more
 * entries of scratch (24 bytes each): past UNIQUE_SCRATCH_MAX entries
 * (192 MiB of it) the entries are sorted in place by qsort instead. */
#define UNIQUE_RADIX_MIN 256
#define UNIQUE_SCRATCH_MAX ((int64_t)1 << 23)

/* Sorts e[0..n) by value and folds equal values in place (the entry of the
 * smallest first index kept, with its value bits: -0.0 or 0.0, the NaN;
 * counts summed); the distinct count, or -1 when the scratch is not to be
 * had. sorted: e is in key order already. */
static int64_t fold(uent_t *e, int64_t n, bool fl, bool sorted)
{
    if (!sorted && n >= UNIQUE_RADIX_MIN && n <= UNIQUE_SCRATCH_MAX) {
        uent_t *tmp = malloc(sizeof *tmp * (size_t)n);
        if (!tmp) return -1;
        (fl ? radix_uent_f : radix_uent_i)(e, tmp, n);
        free(tmp);
    } else if (!sorted) {
        qsort(e, (size_t)n, sizeof *e, fl ? cmp_f : cmp_i);
    }
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (m > 0 && same(&e[m - 1], &e[i], fl)) {
            int64_t count = e[m - 1].count + e[i].count;
            if (e[i].first < e[m - 1].first) e[m - 1] = e[i];
            e[m - 1].count = count;
            continue;
        }
        e[m++] = e[i];
    }
    return m;
}

static ftype_t ftype_of(dtype_t dt)
{
    return dt == DT_BOOL ? FT_BOOL : dt == DT_FLOAT64 ? FT_FLOAT64 : FT_INT64;
}

/* cols: 0 values, 1 first indexes, 2 counts; all three (series false) or
 * column `only` (a Series) */
static int unique_frame(const uent_t *e, int64_t m, dtype_t dt, int only, frame_t *f)
{
    int nc = only >= 0 ? 1 : 3;
    if (frame_alloc(f, only >= 0, m, nc, 1) || fcol_alloc(&f->idx[0], FT_INT64, m, 0, false))
        return -1;
    f->range_index = true;
    for (int64_t i = 0; i < m; i++)
        ((int64_t *)f->idx[0].data)[i] = i;
    for (int k = 0; k < nc; k++) {
        int what = only >= 0 ? only : k;
        ftype_t ft = what == 0 ? ftype_of(dt) : FT_INT64;
        if (fcol_alloc(&f->cols[k], ft, m, 0, false)) return -1;
        for (int64_t i = 0; i < m; i++) {
            if (what == 1)
                ((int64_t *)f->cols[k].data)[i] = e[i].first;
            else if (what == 2)
                ((int64_t *)f->cols[k].data)[i] = e[i].count;
            else if (ft == FT_BOOL)
                ((uint8_t *)f->cols[k].data)[i] = (uint8_t)e[i].v.i;
            else if (ft == FT_FLOAT64)
                ((double *)f->cols[k].data)[i] = e[i].v.f;
            else
                ((int64_t *)f->cols[k].data)[i] = e[i].v.i;
        }
    }
    return 0;
}

/* e[at[q] .. at[q + 1]), q < nb, are runs in key order (blocks' sets):
 * merged pairwise, runs of the left first among equal keys, into one run
 * in key order; -1 when the scratch is not to be had. */
static int merge_runs(uent_t *e, int64_t *at, int nb, bool fl)
{
    int64_t total = at[nb];
    if (nb < 2) return 0;
    uent_t *tmp = malloc(sizeof *tmp * (size_t)total);
    if (!tmp) return -1;
    uent_t *src = e, *dst = tmp;
    while (nb > 1) {
        int w = 0;
        for (int q = 0; q < nb; q += 2) {
            int64_t lo = at[q], mid = at[q + 1], hi = q + 2 <= nb ? at[q + 2] : mid;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                uint64_t a = fl ? UKEY_F(src[i]) : UKEY_I(src[i]);
                uint64_t b = fl ? UKEY_F(src[j]) : UKEY_I(src[j]);
                dst[k++] = b < a ? src[j++] : src[i++];
            }
            memcpy(dst + k, src + i, sizeof *src * (size_t)(mid - i));
            k += mid - i;
            memcpy(dst + k, src + j, sizeof *src * (size_t)(hi - j));
            at[w++] = lo;
        }
        at[w] = total;
        nb = w;
        uent_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != e) memcpy(e, src, sizeof *e * (size_t)total);
    free(tmp);
    return 0;
}

static int run_unique_map(const job_t *j, const dfx_in_t *ins, void **blob, size_t *blob_len,
                          char *err, size_t errlen)
{
    const jin_t *in = &j->in[0];
    int64_t n = 1;
    for (int d = 0; d < in->ndim; d++)
        n *= in->shape[d];
    if ((size_t)n * dt_size(in->dt) > ins[0].len)
        return errmsg(err, errlen, "internal: unique block of %lld elements", (long long)n);
    bool fl = in->dt == DT_FLOAT64;
    uent_t *e = malloc(sizeof *e * (size_t)(n ? n : 1));
    if (!e) return errmsg(err, errlen, "out of memory");
    for (int64_t i = 0; i < n; i++) {
        if (fl)
            e[i].v.f = ((const double *)ins[0].data)[i];
        else if (in->dt == DT_BOOL)
            e[i].v.i = ((const uint8_t *)ins[0].data)[i] != 0;
        else
            e[i].v.i = ((const int64_t *)ins[0].data)[i];
        e[i].first = j->off[1] + i;
        e[i].count = 1;
    }
    int64_t m = fold(e, n, fl, false);
    if (m < 0) {
        free(e);
        return errmsg(err, errlen, "out of memory");
    }
    frame_t f = {0};
    int rc = unique_frame(e, m, in->dt, -1, &f);
    free(e);
    if (rc) {
        frame_free(&f);
        return errmsg(err, errlen, "out of memory");
    }
    return emit(&f, blob, blob_len, err, errlen);
}

static int run_unique_merge(const tile_t *t, const job_t *j, const dfx_in_t *ins, void **blob,
                            size_t *blob_len, char *err, size_t errlen)
{
    const graph_node_t *n = &t->g->nodes[j->node];
    dtype_t dt = t->g->nodes[n->in[0].node].odtype;
    bool fl = dt == DT_FLOAT64;
    frame_t *v = calloc((size_t)j->n_in + 1, sizeof *v);
    if (!v) return errmsg(err, errlen, "out of memory");
    int rc = -1, k = 0;
    int64_t total = 0;
    uent_t *e = NULL;
    for (; k < j->n_in; k++) {
        if (frame_view(ins[k].data, ins[k].len, &v[k], err, errlen)) goto done;
        if (v[k].ncols != 3) {
            errmsg(err, errlen, "internal: a unique block's set has %d columns", v[k].ncols);
            k++;
            goto done;
        }
        total += v[k].nrows;
    }
    if (total > MO_UNIQUE_MAX) {
        errmsg(err, errlen,
               "node \"%s\" (unique): the blocks hold %lld distinct values together, more than "
               "the %lld one merge job takes (docs/graph-format.md, unique)",
               n->n_outputs ? n->op_key : n->key, (long long)total, (long long)MO_UNIQUE_MAX);
        goto done;
    }
    e = malloc(sizeof *e * (size_t)(total ? total : 1));
    if (!e) {
        errmsg(err, errlen, "out of memory");
        goto done;
    }
    int64_t at = 0, *runs = malloc(sizeof(int64_t) * (size_t)(j->n_in + 1));
    if (!runs) {
        errmsg(err, errlen, "out of memory");
        goto done;
    }
    for (int q = 0; q < j->n_in; q++) {
        const frame_t *f = &v[q];
        runs[q] = at;
        for (int64_t i = 0; i < f->nrows; i++, at++) {
            if (fl)
                e[at].v.f = ((const double *)f->cols[0].data)[i];
            else if (dt == DT_BOOL)
                e[at].v.i = ((const uint8_t *)f->cols[0].data)[i];
            else
                e[at].v.i = ((const int64_t *)f->cols[0].data)[i];
            e[at].first = ((const int64_t *)f->cols[1].data)[i];
            e[at].count = ((const int64_t *)f->cols[2].data)[i];
        }
    }
    runs[j->n_in] = at;
    /* each block's set is in key order (fold's): merged, not sorted again
     * (past the scratch bound: sorted in place) */
    bool merge = total <= UNIQUE_SCRATCH_MAX;
    int mr = merge ? merge_runs(e, runs, j->n_in, fl) : 0;
    free(runs);
    int64_t m = mr ? -1 : fold(e, total, fl, merge);
    if (m < 0) {
        errmsg(err, errlen, "out of memory");
        goto done;
    }
    frame_t out = {0};
    if (unique_frame(e, m, dt, (int)j->off[3], &out)) {
        frame_free(&out);
        errmsg(err, errlen, "out of memory");
        goto done;
    }
    rc = emit(&out, blob, blob_len, err, errlen);
done:
    for (int q = 0; q < k; q++)
        frame_free(&v[q]);
    free(v);
    free(e);
    return rc;
}

/* ---- histogram */
static double at_f(const void *p, dtype_t dt, int64_t i)
{
    switch (dt) {
    case DT_BOOL:
        return ((const uint8_t *)p)[i];
    case DT_INT32:
        return ((const int32_t *)p)[i];
    case DT_INT64:
        return (double)((const int64_t *)p)[i];
    case DT_FLOAT32:
        return ((const float *)p)[i];
    default:
        return ((const double *)p)[i];
    }
}

static int64_t jin_elems(const jin_t *in)
{
    int64_t n = 1;
    for (int d = 0; d < in->ndim; d++)
        n *= in->shape[d];
    return n;
}

/* setops: histogram's sum of weighted counts (float64 sums of each
 * chunk's; input np the edges with density): as weights' dtype, or the
 * density, float64 */
static int hist_wsum(const job_t *j, const dfx_in_t *ins, int np, void *out, char *err,
                     size_t errlen)
{
    int64_t nb = j->shape[0];
    double *tot = calloc((size_t)(nb ? nb : 1), sizeof(double));
    if (!tot) return errmsg(err, errlen, "out of memory");
    for (int k = 0; k < np; k++)
        for (int64_t b = 0; b < nb; b++)
            tot[b] += ((const double *)ins[k].data)[b];
    if (np < j->n_in) { /* density */
        const jin_t *ein = &j->in[np];
        double all = 0;
        for (int64_t b = 0; b < nb; b++)
            all += tot[b];
        for (int64_t b = 0; b < nb; b++) {
            double w = at_f(ins[np].data, ein->dt, b + 1) - at_f(ins[np].data, ein->dt, b);
            ((double *)out)[b] = tot[b] / w / all;
        }
    } else {
        for (int64_t b = 0; b < nb; b++) {
            if (j->dt == DT_INT32)
                ((int32_t *)out)[b] = (int32_t)tot[b];
            else if (j->dt == DT_INT64)
                ((int64_t *)out)[b] = (int64_t)tot[b];
            else if (j->dt == DT_FLOAT32)
                ((float *)out)[b] = (float)tot[b];
            else
                ((double *)out)[b] = tot[b];
        }
    }
    free(tot);
    return 0;
}

static int run_hist(const tile_t *t, const job_t *j, const dfx_in_t *ins, void *out, char *err,
                    size_t errlen)
{
    const graph_node_t *n = &t->g->nodes[j->node];
    const char *key = n->n_outputs ? n->op_key : n->key;
    switch (j->off[2]) {
    case MO_HIST_MINMAX: {
        const jin_t *in = &j->in[0];
        double lo = INFINITY, hi = -INFINITY;
        bool nan = false;
        for (int64_t i = 0, m = jin_elems(in); i < m; i++) {
            double v = at_f(ins[0].data, in->dt, i);
            nan |= v != v;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        ((double *)out)[0] = nan ? NAN : lo;
        ((double *)out)[1] = nan ? NAN : hi;
        return 0;
    }
    case MO_HIST_EDGES: {
        double lo = n->mo_lo, hi = n->mo_hi;
        if (!n->mo_has_range) {
            lo = INFINITY;
            hi = -INFINITY;
            bool nan = false;
            for (int k = 0; k < j->n_in; k++) {
                const double *p = ins[k].data;
                nan |= p[0] != p[0] || p[1] != p[1];
                lo = p[0] < lo ? p[0] : lo;
                hi = p[1] > hi ? p[1] : hi;
            }
            if (lo > hi) { /* no elements */
                lo = 0;
                hi = 1;
            } else if (nan || !isfinite(lo) || !isfinite(hi)) {
                return errmsg(err, errlen,
                              "node \"%s\" (histogram): autodetected range of [%g, %g] is not "
                              "finite",
                              key, nan ? NAN : lo, nan ? NAN : hi);
            }
        }
        if (lo == hi) {
            lo -= 0.5;
            hi += 0.5;
        }
        int64_t nb = j->shape[0] - 1;
        double step = (hi - lo) / (double)nb;
        for (int64_t i = 0; i <= nb; i++) {
            double v = i == nb ? hi : lo + (double)i * step; /* as numpy.linspace */
            if (j->dt == DT_FLOAT32)
                ((float *)out)[i] = (float)v;
            else
                ((double *)out)[i] = v;
        }
        return 0;
    }
    case MO_HIST_COUNT: {
        const jin_t *in = &j->in[0], *ein = &j->in[1];
        int64_t ne = jin_elems(ein), nb = ne - 1;
        double *e = malloc(sizeof(double) * (size_t)ne);
        if (!e) return errmsg(err, errlen, "out of memory");
        for (int64_t i = 0; i < ne; i++) {
            e[i] = at_f(ins[1].data, ein->dt, i);
            if (i > 0 && !(e[i] >= e[i - 1])) {
                free(e);
                return errmsg(err, errlen,
                              "node \"%s\" (histogram): `bins` must increase monotonically, "
                              "when an array",
                              key);
            }
        }
        int64_t *c = out;
        double *cw = out; /* setops: with weights (input 2), their sums */
        bool wtd = j->n_in > 2;
        memset(c, 0, sizeof(int64_t) * (size_t)(nb > 0 ? nb : 0));
        for (int64_t i = 0, m = jin_elems(in); nb > 0 && i < m; i++) {
            double v = at_f(ins[0].data, in->dt, i);
            if (!(v >= e[0] && v <= e[nb])) continue; /* outside, or NaN */
            int64_t lo = 0, hi = ne;                  /* the first edge > v */
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (e[mid] > v)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            int64_t b = lo - 1;
            if (b >= nb) b = nb - 1; /* the last bin holds its right edge */
            if (wtd)
                cw[b] += at_f(ins[2].data, j->in[2].dt, i);
            else
                c[b]++;
        }
        free(e);
        return 0;
    }
    case MO_HIST_SUM: {
        int64_t nb = j->shape[0];
        int np = n->mo_density ? j->n_in - 1 : j->n_in;
        if (n->mo_weighted) return hist_wsum(j, ins, np, out, err, errlen); /* setops */
        int64_t *tot = calloc((size_t)(nb ? nb : 1), sizeof(int64_t));
        if (!tot) return errmsg(err, errlen, "out of memory");
        for (int k = 0; k < np; k++)
            for (int64_t b = 0; b < nb; b++)
                tot[b] += ((const int64_t *)ins[k].data)[b];
        if (!n->mo_density) {
            memcpy(out, tot, sizeof(int64_t) * (size_t)nb);
        } else {
            const jin_t *ein = &j->in[np];
            int64_t all = 0;
            for (int64_t b = 0; b < nb; b++)
                all += tot[b];
            for (int64_t b = 0; b < nb; b++) {
                double w = at_f(ins[np].data, ein->dt, b + 1) - at_f(ins[np].data, ein->dt, b);
                ((double *)out)[b] = (double)tot[b] / w / (double)all;
            }
        }
        free(tot);
        return 0;
    }
    default:
        return errmsg(err, errlen, "internal: unknown histogram step");
    }
}

/* lstsq's residuals: K values, or none (the flag before them is 0) */
static int run_lstsq_res(const job_t *j, const dfx_in_t *ins, void **blob, size_t *blob_len,
                         char *err, size_t errlen)
{
    const jin_t *in = &j->in[0];
    int64_t at = j->off[1], kk = j->off[3];
    if ((size_t)(at + 1 + kk) * dt_size(in->dt) > ins[0].len)
        return errmsg(err, errlen, "internal: lstsq buffer of %zu bytes", ins[0].len);
    int64_t cnt = at_f(ins[0].data, in->dt, at) != 0 ? kk : 0;
    frame_t f = {0};
    if (frame_alloc(&f, true, cnt, 1, 1) || fcol_alloc(&f.cols[0], FT_FLOAT64, cnt, 0, false) ||
        fcol_alloc(&f.idx[0], FT_INT64, cnt, 0, false)) {
        frame_free(&f);
        return errmsg(err, errlen, "out of memory");
    }
    f.range_index = true;
    double *v = f.cols[0].data;
    int64_t *ix = f.idx[0].data;
    for (int64_t i = 0; i < cnt; i++) {
        v[i] = at_f(ins[0].data, in->dt, at + 1 + i);
        ix[i] = i;
    }
    return emit(&f, blob, blob_len, err, errlen);
}

int df_multi_run(const tile_t *t, int32_t ji, const dfx_in_t *ins, void **blob, size_t *blob_len,
                 void *fixed_out, char *err, size_t errlen)
{
    const job_t *j = &t->jobs[ji];
    if (j->off[2] >= MO_SET_FIRST) /* setops: df/setops.c */
        return df_setops_run(t, ji, ins, blob, blob_len, fixed_out, err, errlen);
    if (j->off[2] == MO_LSTSQ_RES) return run_lstsq_res(j, ins, blob, blob_len, err, errlen);
    if (j->off[2] >= MO_HIST_MINMAX) return run_hist(t, j, ins, fixed_out, err, errlen);
    if (j->off[2] == MO_UNIQUE_MAP) return run_unique_map(j, ins, blob, blob_len, err, errlen);
    if (j->off[2] == MO_UNIQUE_MERGE)
        return run_unique_merge(t, j, ins, blob, blob_len, err, errlen);
    const jin_t *in = &j->in[0];
    int nd = in->ndim, axis = (int)j->off[1];
    int64_t r0 = j->off[0], n = 1, st[MR_MAXDIM];
    for (int d = nd - 1; d >= 0; d--) {
        st[d] = n;
        n *= in->shape[d];
    }
    if ((size_t)n * dt_size(in->dt) > ins[0].len) {
        errmsg(err, errlen, "internal: nonzero block of %lld elements, %zu bytes", (long long)n,
               ins[0].len);
        return -1;
    }
    int64_t cnt = 0;
    for (int64_t i = 0; i < n; i++)
        cnt += truthy(ins[0].data, in->dt, i);
    frame_t f = {0};
    if (frame_alloc(&f, true, cnt, 1, 1) || fcol_alloc(&f.cols[0], FT_INT64, cnt, 0, false) ||
        fcol_alloc(&f.idx[0], FT_INT64, cnt, 0, false)) {
        frame_free(&f);
        errmsg(err, errlen, "out of memory");
        return -1;
    }
    f.range_index = true;
    int64_t *v = f.cols[0].data, *ix = f.idx[0].data, k = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!truthy(ins[0].data, in->dt, i)) continue;
        int64_t c = (i / st[axis]) % in->shape[axis];
        v[k] = axis == 0 ? c + r0 : c;
        ix[k] = k;
        k++;
    }
    return emit(&f, blob, blob_len, err, errlen);
}
