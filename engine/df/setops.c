/* setops.c: the merge and counting steps of union1d, intersect1d,
 * setdiff1d and bincount (setops.h; DFJ_MULTIOUT jobs, step job.off[2]). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../errmsg.h"
#include "../graph.h"
#include "../kern/radix.h"
#include "../setops.h"
#include "frame.h"
#include "multi.h"

typedef struct {
    double f;  /* the value in the comparison's type (float64 domain) */
    int64_t i; /* the value (int or bool domain, and a's own value) */
    int64_t first;
    int src; /* 0: a, 1: b */
    bool fl; /* the entry came from a float64 block */
} sent_t;

/* qsort has no context: the merge's domain (float64 or not), per thread
 * (sort_entries' short sets) */
static _Thread_local bool dom_fl;

static int cmp_e(const void *pa, const void *pb)
{
    const sent_t *a = pa, *b = pb;
    if (dom_fl) {
        bool na = a->f != a->f, nb = b->f != b->f;
        if (na != nb) return na ? 1 : -1;
        if (!na && a->f != b->f) return a->f < b->f ? -1 : 1;
    } else if (a->i != b->i) {
        return a->i < b->i ? -1 : 1;
    }
    if (a->src != b->src) return a->src - b->src;
    return (a->first > b->first) - (a->first < b->first);
}

static int cmp_src_first(const void *pa, const void *pb)
{
    const sent_t *a = pa, *b = pb;
    if (a->src != b->src) return a->src - b->src;
    return (a->first > b->first) - (a->first < b->first);
}

/* cmp_e's order by keys: the value (all NaNs one key, -0.0 as 0.0) */
#define SKEY_F(e) radix_key_f64((e).f)
#define SKEY_I(e) radix_key_i64((e).i)
DEFINE_RADIX_BY(radix_sent_f, sent_t, uint64_t, SKEY_F)
DEFINE_RADIX_BY(radix_sent_i, sent_t, uint64_t, SKEY_I)

/* e[0..n) in cmp_e's order: from 256 entries a radix sort by value, then
 * each run of one value by (src, first) (a run holds one entry of each
 * block's set at most); -1 when the scratch is not to be had. The radix
 * sort takes n more entries of scratch (32 bytes each): past
 * SO_SCRATCH_MAX entries (192 MiB of it) qsort sorts in place instead. */
#define SO_SCRATCH_MAX ((int64_t)6 << 20)
static int sort_entries(sent_t *e, int64_t n, bool fl)
{
    if (n < 256 || n > SO_SCRATCH_MAX) {
        dom_fl = fl;
        qsort(e, (size_t)n, sizeof *e, cmp_e);
        return 0;
    }
    sent_t *tmp = malloc(sizeof *tmp * (size_t)n);
    if (!tmp) return -1;
    (fl ? radix_sent_f : radix_sent_i)(e, tmp, n);
    free(tmp);
    for (int64_t s = 0; s < n;) {
        uint64_t k = fl ? SKEY_F(e[s]) : SKEY_I(e[s]);
        int64_t t = s + 1;
        while (t < n && (fl ? SKEY_F(e[t]) : SKEY_I(e[t])) == k)
            t++;
        if (t - s > 1) qsort(e + s, (size_t)(t - s), sizeof *e, cmp_src_first);
        s = t;
    }
    return 0;
}

static const char *key_of(const graph_node_t *n)
{
    return n->n_outputs ? n->op_key : n->key;
}

static int emit_frame(frame_t *f, void **blob, size_t *blob_len, char *err, size_t errlen)
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

/* A one-column Series frame of m rows of type ft, range index. */
static int series(frame_t *f, ftype_t ft, int64_t m)
{
    if (frame_alloc(f, true, m, 1, 1) || fcol_alloc(&f->idx[0], FT_INT64, m, 0, false) ||
        fcol_alloc(&f->cols[0], ft, m, 0, false))
        return -1;
    f->range_index = true;
    for (int64_t i = 0; i < m; i++)
        ((int64_t *)f->idx[0].data)[i] = i;
    return 0;
}

static int run_set_merge(const tile_t *t, const job_t *j, const dfx_in_t *ins, void **blob,
                         size_t *blob_len, char *err, size_t errlen)
{
    const graph_node_t *n = &t->g->nodes[j->node];
    dtype_t adt = t->g->nodes[n->in[0].node].odtype, bdt = t->g->nodes[n->in[1].node].odtype;
    bool fl = adt == DT_FLOAT64 || bdt == DT_FLOAT64;
    dtype_t odt = n->odtype;
    int64_t na = j->off[0];
    frame_t *v = calloc((size_t)j->n_in + 1, sizeof *v);
    if (!v) return errmsg(err, errlen, "out of memory");
    int rc = -1, k = 0;
    int64_t total = 0;
    sent_t *e = NULL;
    for (; k < j->n_in; k++) {
        if (frame_view(ins[k].data, ins[k].len, &v[k], err, errlen)) goto done;
        if (v[k].ncols != 3) {
            errmsg(err, errlen, "internal: a set op block's set has %d columns", v[k].ncols);
            k++;
            goto done;
        }
        total += v[k].nrows;
    }
    if (total > SO_MERGE_MAX) {
        errmsg(err, errlen,
               "node \"%s\" (%s): the blocks of both inputs hold %lld distinct values together, "
               "more than the %lld one merge job takes (docs/graph-format.md, set operations)",
               key_of(n), op_name(n->op), (long long)total, (long long)SO_MERGE_MAX);
        goto done;
    }
    e = malloc(sizeof *e * (size_t)(total ? total : 1));
    if (!e) {
        errmsg(err, errlen, "out of memory");
        goto done;
    }
    int64_t at = 0;
    for (int q = 0; q < j->n_in; q++) {
        const frame_t *f = &v[q];
        int ty = f->cols[0].type;
        for (int64_t i = 0; i < f->nrows; i++, at++) {
            sent_t *x = &e[at];
            x->fl = ty == FT_FLOAT64;
            if (ty == FT_FLOAT64) {
                x->f = ((const double *)f->cols[0].data)[i];
                x->i = 0;
            } else {
                x->i = ty == FT_BOOL ? ((const uint8_t *)f->cols[0].data)[i] != 0
                                     : ((const int64_t *)f->cols[0].data)[i];
                x->f = (double)x->i;
            }
            x->first = ((const int64_t *)f->cols[1].data)[i];
            x->src = q < na ? 0 : 1;
        }
    }
    if (sort_entries(e, total, fl)) {
        errmsg(err, errlen, "out of memory");
        goto done;
    }
    /* groups of equal values (NaNs one group for union1d, never equal for
     * intersect1d and setdiff1d: numpy compares them with ==) */
    int64_t m = 0;
    for (int64_t s = 0; s < total;) {
        int64_t t2 = s + 1;
        bool nan = fl && e[s].f != e[s].f;
        while (t2 < total &&
               (fl ? (nan ? e[t2].f != e[t2].f : e[t2].f == e[s].f) : e[t2].i == e[s].i))
            t2++;
        bool has_a = e[s].src == 0, has_b = e[t2 - 1].src == 1;
        bool keep = n->op == OP_UNION1D || j->off[1] == 1 ? true
                    : n->op == OP_INTERSECT1D             ? has_a && has_b && !nan
                                                          : has_a && (!has_b || nan);
        if (keep) {
            int64_t fb = -1; /* b's first index of the value */
            for (int64_t q = s; q < t2 && fb < 0; q++)
                if (e[q].src == 1) fb = e[q].first;
            e[m] = e[s]; /* of a when a has the value, a's first index */
            if (j->off[3] == 2) e[m].first = fb;
            m++;
        }
        s = t2;
    }
    frame_t out = {0};
    ftype_t ft = odt == DT_BOOL ? FT_BOOL : odt == DT_FLOAT64 ? FT_FLOAT64 : FT_INT64;
    if (j->off[1] == 1) ft = fl ? FT_FLOAT64 : FT_INT64; /* b's set, in the comparison's type */
    bool idx = j->off[3] > 0;                            /* intersect1d's indexes */
    if (series(&out, ft, m)) {
        frame_free(&out);
        errmsg(err, errlen, "out of memory");
        goto done;
    }
    for (int64_t i = 0; i < m; i++) {
        if (idx)
            ((int64_t *)out.cols[0].data)[i] = e[i].first;
        else if (ft == FT_FLOAT64)
            ((double *)out.cols[0].data)[i] = e[i].fl ? e[i].f : (double)e[i].i;
        else if (ft == FT_BOOL)
            ((uint8_t *)out.cols[0].data)[i] = e[i].i != 0;
        else
            ((int64_t *)out.cols[0].data)[i] = e[i].i;
    }
    rc = emit_frame(&out, blob, blob_len, err, errlen);
done:
    for (int q = 0; q < k; q++)
        frame_free(&v[q]);
    free(v);
    free(e);
    return rc;
}

static double wat(const void *p, dtype_t dt, int64_t i)
{
    switch (dt) {
    case DT_BOOL:
        return ((const uint8_t *)p)[i] != 0;
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

static int64_t xat(const void *p, dtype_t dt, int64_t i)
{
    if (dt == DT_BOOL) return ((const uint8_t *)p)[i] != 0;
    if (dt == DT_INT32) return ((const int32_t *)p)[i];
    return ((const int64_t *)p)[i];
}

/* bincount: a block's counts (int64) or weight sums (float64), max + 1 long */
static int run_bin_map(const tile_t *t, const job_t *j, const dfx_in_t *ins, void **blob,
                       size_t *blob_len, char *err, size_t errlen)
{
    const graph_node_t *n = &t->g->nodes[j->node];
    const jin_t *in = &j->in[0];
    int64_t cnt = in->ndim ? in->shape[0] : 1;
    bool w = j->n_in > 1;
    if ((size_t)cnt * dt_size(in->dt) > ins[0].len ||
        (w && (size_t)cnt * dt_size(j->in[1].dt) > ins[1].len))
        return errmsg(err, errlen, "internal: bincount block of %lld elements", (long long)cnt);
    int64_t mx = -1;
    for (int64_t i = 0; i < cnt; i++) {
        int64_t x = xat(ins[0].data, in->dt, i);
        if (x < 0)
            return errmsg(err, errlen,
                          "node \"%s\" (bincount): 'list' argument must have no negative "
                          "elements",
                          key_of(n));
        if (x > mx) mx = x;
    }
    if (mx >= SO_BIN_MAX_BYTES / 8)
        return errmsg(err, errlen,
                      "node \"%s\" (bincount): the largest value %lld gives more than the %lld "
                      "counts one bincount job holds (docs/graph-format.md, bincount)",
                      key_of(n), (long long)mx, (long long)(SO_BIN_MAX_BYTES / 8));
    frame_t f = {0};
    if (series(&f, w ? FT_FLOAT64 : FT_INT64, mx + 1)) {
        frame_free(&f);
        return errmsg(err, errlen, "out of memory");
    }
    memset(f.cols[0].data, 0, (size_t)(mx + 1) * 8);
    for (int64_t i = 0; i < cnt; i++) {
        int64_t x = xat(ins[0].data, in->dt, i);
        if (w)
            ((double *)f.cols[0].data)[x] += wat(ins[1].data, j->in[1].dt, i);
        else
            ((int64_t *)f.cols[0].data)[x]++;
    }
    return emit_frame(&f, blob, blob_len, err, errlen);
}

static int run_bin_merge(const tile_t *t, const job_t *j, const dfx_in_t *ins, void **blob,
                         size_t *blob_len, char *err, size_t errlen)
{
    const graph_node_t *n = &t->g->nodes[j->node];
    bool w = n->odtype == DT_FLOAT64; /* weights, x not empty */
    frame_t *v = calloc((size_t)j->n_in + 1, sizeof *v);
    if (!v) return errmsg(err, errlen, "out of memory");
    int rc = -1, k = 0;
    int64_t len = n->so_minlength, total = 0;
    for (; k < j->n_in; k++) {
        if (frame_view(ins[k].data, ins[k].len, &v[k], err, errlen)) goto done;
        if (v[k].ncols != 1) {
            errmsg(err, errlen, "internal: a bincount block has %d columns", v[k].ncols);
            k++;
            goto done;
        }
        total += v[k].nrows;
        if (v[k].nrows > len) len = v[k].nrows;
    }
    if ((total + len) > SO_BIN_MAX_BYTES / 8) {
        errmsg(err, errlen,
               "node \"%s\" (bincount): the blocks' %lld counts and the %lld of the result pass "
               "the %lld one bincount job holds (docs/graph-format.md, bincount); use larger "
               "chunks",
               key_of(n), (long long)total, (long long)len, (long long)(SO_BIN_MAX_BYTES / 8));
        goto done;
    }
    frame_t out = {0};
    if (series(&out, w ? FT_FLOAT64 : FT_INT64, len)) {
        frame_free(&out);
        errmsg(err, errlen, "out of memory");
        goto done;
    }
    memset(out.cols[0].data, 0, (size_t)len * 8);
    for (int q = 0; q < j->n_in; q++)
        for (int64_t i = 0; i < v[q].nrows; i++) {
            if (w)
                ((double *)out.cols[0].data)[i] += ((const double *)v[q].cols[0].data)[i];
            else
                ((int64_t *)out.cols[0].data)[i] += ((const int64_t *)v[q].cols[0].data)[i];
        }
    rc = emit_frame(&out, blob, blob_len, err, errlen);
done:
    for (int q = 0; q < k; q++)
        frame_free(&v[q]);
    free(v);
    return rc;
}

/* setdiff1d with assume_unique: the elements of a block of a (its order,
 * duplicates kept) not in b's set (sorted, distinct; float64 when either
 * input is); a NaN is kept (numpy compares with ==) */
static int run_set_filter(const tile_t *t, const job_t *j, const dfx_in_t *ins, void **blob,
                          size_t *blob_len, char *err, size_t errlen)
{
    const jin_t *in = &j->in[0];
    int64_t cnt = 1;
    for (int d = 0; d < in->ndim; d++)
        cnt *= in->shape[d];
    if ((size_t)cnt * dt_size(in->dt) > ins[0].len)
        return errmsg(err, errlen, "internal: setdiff1d block of %lld elements", (long long)cnt);
    frame_t v = {0};
    if (frame_view(ins[1].data, ins[1].len, &v, err, errlen)) return -1;
    int ty = v.ncols == 1 ? v.cols[0].type : -1;
    if (ty != FT_FLOAT64 && ty != FT_INT64) {
        frame_free(&v);
        return errmsg(err, errlen, "internal: b's set is no one-column Series");
    }
    ftype_t ft = in->dt == DT_BOOL ? FT_BOOL : in->dt == DT_FLOAT64 ? FT_FLOAT64 : FT_INT64;
    frame_t f = {0};
    if (series(&f, ft, cnt)) {
        frame_free(&f);
        frame_free(&v);
        return errmsg(err, errlen, "out of memory");
    }
    int64_t m = v.nrows, k = 0;
    for (int64_t i = 0; i < cnt; i++) {
        double xd = 0;
        int64_t xi = 0;
        if (in->dt == DT_FLOAT64)
            xd = ((const double *)ins[0].data)[i];
        else
            xd = (double)(xi = in->dt == DT_BOOL ? ((const uint8_t *)ins[0].data)[i] != 0
                                                 : ((const int64_t *)ins[0].data)[i]);
        bool found = false;
        if (xd == xd) {
            int64_t lo = 0, hi = m;
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                bool less = ty == FT_FLOAT64 ? ((const double *)v.cols[0].data)[mid] < xd
                                             : ((const int64_t *)v.cols[0].data)[mid] < xi;
                if (less)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            found = lo < m && (ty == FT_FLOAT64 ? ((const double *)v.cols[0].data)[lo] == xd
                                                : ((const int64_t *)v.cols[0].data)[lo] == xi);
        }
        if (found) continue;
        if (ft == FT_FLOAT64)
            ((double *)f.cols[0].data)[k] = xd;
        else if (ft == FT_BOOL)
            ((uint8_t *)f.cols[0].data)[k] = (uint8_t)xi;
        else
            ((int64_t *)f.cols[0].data)[k] = xi;
        k++;
    }
    frame_free(&v);
    f.nrows = k;
    f.cols[0].n = k;
    f.idx[0].n = k;
    (void)t;
    return emit_frame(&f, blob, blob_len, err, errlen);
}

/* unique's inverse: each element's position among the merged values
 * (sorted, NaN last and one value) */
static int run_unique_inv(const job_t *j, const dfx_in_t *ins, void *out, char *err, size_t errlen)
{
    const jin_t *in = &j->in[0];
    int64_t cnt = j->shape[0];
    if ((size_t)cnt * dt_size(in->dt) > ins[0].len)
        return errmsg(err, errlen, "internal: unique inverse block of %lld elements",
                      (long long)cnt);
    frame_t v = {0};
    if (frame_view(ins[1].data, ins[1].len, &v, err, errlen)) return -1;
    int rc = 0;
    int64_t m = v.nrows, *o = out;
    int ty = v.ncols == 1 ? v.cols[0].type : -1;
    if (ty != FT_FLOAT64 && ty != FT_INT64 && ty != FT_BOOL) {
        frame_free(&v);
        return errmsg(err, errlen, "internal: unique's values are no one-column Series");
    }
    const void *vd = v.cols[0].data;
    for (int64_t i = 0; i < cnt && rc == 0; i++) {
        int64_t lo = 0, hi = m; /* the first value >= x (NaN: the last, NaN) */
        if (ty == FT_FLOAT64) {
            double x = ((const double *)ins[0].data)[i];
            const double *p = vd;
            if (x != x) {
                lo = m - 1;
            } else {
                while (lo < hi) {
                    int64_t mid = lo + (hi - lo) / 2;
                    if (p[mid] < x) /* NaN is not < x: it stays right */
                        lo = mid + 1;
                    else
                        hi = mid;
                }
            }
        } else {
            int64_t x = ty == FT_BOOL ? ((const uint8_t *)ins[0].data)[i] != 0
                                      : ((const int64_t *)ins[0].data)[i];
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                int64_t y = ty == FT_BOOL ? ((const uint8_t *)vd)[mid] : ((const int64_t *)vd)[mid];
                if (y < x)
                    lo = mid + 1;
                else
                    hi = mid;
            }
        }
        if (lo < 0 || lo >= m)
            rc = errmsg(err, errlen, "internal: a value missing from unique's values");
        o[i] = lo;
    }
    frame_free(&v);
    return rc;
}

int df_setops_run(const tile_t *t, int32_t ji, const dfx_in_t *ins, void **blob, size_t *blob_len,
                  void *fixed_out, char *err, size_t errlen)
{
    const job_t *j = &t->jobs[ji];
    switch (j->off[2]) {
    case MO_SET_MERGE:
        return run_set_merge(t, j, ins, blob, blob_len, err, errlen);
    case MO_BIN_MAP:
        return run_bin_map(t, j, ins, blob, blob_len, err, errlen);
    case MO_BIN_MERGE:
        return run_bin_merge(t, j, ins, blob, blob_len, err, errlen);
    case MO_UNIQUE_INV:
        return run_unique_inv(j, ins, fixed_out, err, errlen);
    case MO_SET_FILTER:
        return run_set_filter(t, j, ins, blob, blob_len, err, errlen);
    default:
        return errmsg(err, errlen, "internal: unknown set op step");
    }
}

bool df_multiout_step_ok(const job_t *j)
{
    switch (j->off[2]) {
    case MO_NONZERO:
    case MO_UNIQUE_MAP:
    case MO_UNIQUE_MERGE:
    case MO_HIST_MINMAX:
    case MO_HIST_EDGES:
    case MO_HIST_COUNT:
    case MO_HIST_SUM:
        return true;
    case MO_LSTSQ_RES:
        return j->blob && j->n_in == 1 && j->off[1] >= 0 && j->off[3] >= 0 && j->in[0].ndim == 1 &&
               j->off[1] + 1 + j->off[3] <= j->in[0].shape[0];
    case MO_SET_MERGE:
        return j->blob && j->off[0] >= 0 && j->off[0] <= j->n_in && j->off[3] >= 0 &&
               j->off[3] <= 2 && (j->off[1] == 0 || j->off[1] == 1);
    case MO_SET_FILTER:
        return j->blob && j->n_in == 2;
    case MO_BIN_MAP:
        return j->blob && (j->n_in == 1 || j->n_in == 2);
    case MO_BIN_MERGE:
        return j->blob;
    case MO_UNIQUE_INV:
        return !j->blob && j->n_in == 2 && j->dt == DT_INT64 && j->ndim == 1;
    default:
        return false;
    }
}
