/* linalg.c: tensordot, matmul and syrk on blocks, over the matrix-product
 * primitives of the kernel table (table.h: reference loops for every dtype,
 * OpenBLAS over them for floats).
 *
 * Everything reduces to one operation, C (M x N, row-major) = op(A) op(B)
 * (+ C), where A is M x K stored either as M x K (no transpose) or as K x M
 * (transposed), and B likewise K x N or N x K. tensordot picks the pairing
 * of contracted axes and the transpose flags so that the operands are used
 * in place whenever their contracted axes are leading or trailing; only an
 * operand that cannot be read that way is permuted into scratch. */
#include "kern.h"
#include "kern_internal.h"
#include "table.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kern_table_t table;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_fill(void)
{
    kern_ref_fill(&table);
    const char *k = getenv("MARS_KERNELS");
    if (!(k && strcmp(k, "reference") == 0)) kern_blas_fill(&table);
}

const kern_table_t *kern_table(void)
{
    pthread_once(&table_once, table_fill);
    return &table;
}

/* C (M x N) = op(A) op(B), or C += with acc, for any sizes. */
static void gemm(dtype_t dt, int64_t M, int64_t N, int64_t K, const void *A, bool ta, const void *B,
                 bool tb, bool acc, void *C)
{
    if (M == 0 || N == 0) return;
    if (K == 0) {
        /* An empty sum: BLAS would reject the zero leading dimensions. */
        if (!acc) memset(C, 0, (size_t)(M * N) * dt_size(dt));
        return;
    }
    kern_table()->gemm[dt](M, N, K, A, ta, B, tb, acc, C);
}

/* ---------------------------------------------------------------------------
 * Permuted copy: dst (contiguous) gets src transposed by perm, i.e.
 * dst[i_0, ..., i_{n-1}] = src[.., i_k at axis perm[k], ..]. */
static void permute_copy(const void *src, const shape_t *shape, const int *perm, size_t es,
                         void *dst)
{
    int nd = shape->ndim;
    int64_t sstride[MR_MAXDIM], dshape[MR_MAXDIM] = {0}, pst[MR_MAXDIM] = {0}, idx[MR_MAXDIM];
    int64_t total = 1;
    int64_t st = 1;
    for (int d = nd - 1; d >= 0; d--) {
        sstride[d] = st;
        st *= shape->d[d];
    }
    for (int d = 0; d < nd; d++) {
        dshape[d] = shape->d[perm[d]];
        pst[d] = sstride[perm[d]];
        total *= dshape[d];
        idx[d] = 0;
    }
    if (total == 0) return;
    if (nd == 0) {
        memcpy(dst, src, es);
        return;
    }
    /* Rows of the innermost destination axis, read with the source stride of
     * that axis; the outer index advances like an odometer. */
    int64_t inner = dshape[nd - 1], ist = pst[nd - 1], soff = 0;
    char *o = dst;
    const char *s = src;
    for (int64_t done = 0; done < total; done += inner) {
        switch (es) {
        case 1:
            for (int64_t j = 0; j < inner; j++)
                ((uint8_t *)o)[j] = ((const uint8_t *)s)[soff + j * ist];
            break;
        case 2:
            for (int64_t j = 0; j < inner; j++)
                memcpy(o + j * 2, s + (soff + j * ist) * 2, 2);
            break;
        case 4:
            for (int64_t j = 0; j < inner; j++)
                memcpy(o + j * 4, s + (soff + j * ist) * 4, 4);
            break;
        default:
            for (int64_t j = 0; j < inner; j++)
                memcpy(o + j * 8, s + (soff + j * ist) * 8, 8);
            break;
        }
        o += inner * (int64_t)es;
        for (int d = nd - 2; d >= 0; d--) {
            soff += pst[d];
            if (++idx[d] < dshape[d]) break;
            soff -= pst[d] * dshape[d];
            idx[d] = 0;
        }
    }
}

/* ---------------------------------------------------------------------------
 * tensordot */

/* How an operand can be read in place: its contracted axes (in pairing
 * order) are its leading axes, or its trailing axes, in that order. */
static bool axes_are(const int *ax, int n, int first)
{
    for (int i = 0; i < n; i++)
        if (ax[i] != first + i) return false;
    return true;
}

/* Orders the pairs (ca[i], cb[i]) by key[i] ascending (n <= MR_MAXDIM, an
 * insertion sort is plenty). */
static void sort_pairs(int n, const int *ca, const int *cb, const int *key, int *oa, int *ob)
{
    int ord[MR_MAXDIM];
    for (int i = 0; i < n; i++) {
        int j = i;
        while (j > 0 && key[ord[j - 1]] > key[i]) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = i;
    }
    for (int i = 0; i < n; i++) {
        oa[i] = ca[ord[i]];
        ob[i] = cb[ord[i]];
    }
}

static void td_inplace(int nda, int ndb, int n, const int *ca, const int *cb, kern_td_plan_t *p)
{
    p->a_inplace = p->a_trans = p->b_inplace = p->b_trans = false;
    if (axes_are(ca, n, nda - n))
        p->a_inplace = true;
    else if (axes_are(ca, n, 0))
        p->a_inplace = p->a_trans = true;
    if (axes_are(cb, n, 0))
        p->b_inplace = true;
    else if (axes_are(cb, n, ndb - n))
        p->b_inplace = p->b_trans = true;
}

void kern_td_plan(const shape_t *as, const shape_t *bs, int n, const int *ca, const int *cb,
                  kern_td_plan_t *p)
{
    int nda = as->ndim, ndb = bs->ndim;
    bool a_con[MR_MAXDIM] = {0}, b_con[MR_MAXDIM] = {0};
    p->M = p->N = p->K = 1;
    for (int i = 0; i < n; i++) {
        a_con[ca[i]] = b_con[cb[i]] = true;
        p->K *= as->d[ca[i]];
    }
    for (int d = 0; d < nda; d++)
        if (!a_con[d]) p->M *= as->d[d];
    for (int d = 0; d < ndb; d++)
        if (!b_con[d]) p->N *= bs->d[d];

    /* The order in which the pairs are flattened into K is free. Ordering
     * them by a's axes lets a be read in place when its contracted axes are
     * leading or trailing, ordering by b's does the same for b; keep the
     * order that needs fewer copies, preferring to copy the smaller operand. */
    kern_td_plan_t c[2] = {0};
    int64_t cost[2];
    for (int k = 0; k < 2; k++) {
        sort_pairs(n, ca, cb, k ? cb : ca, c[k].oa, c[k].ob);
        td_inplace(nda, ndb, n, c[k].oa, c[k].ob, &c[k]);
        cost[k] = (c[k].a_inplace ? 0 : p->M * p->K) + (c[k].b_inplace ? 0 : p->K * p->N);
    }
    const kern_td_plan_t *w = &c[cost[1] < cost[0] ? 1 : 0];
    p->a_inplace = w->a_inplace;
    p->a_trans = w->a_trans;
    p->b_inplace = w->b_inplace;
    p->b_trans = w->b_trans;
    memcpy(p->oa, w->oa, sizeof p->oa);
    memcpy(p->ob, w->ob, sizeof p->ob);
    /* the copies' axis orders: a as (free axes..., contracted in pairing
     * order), b as (contracted in pairing order, free axes...) */
    int k = 0;
    for (int d = 0; d < nda; d++)
        if (!a_con[d]) p->perm_a[k++] = d;
    for (int i = 0; i < n; i++)
        p->perm_a[k++] = p->oa[i];
    k = 0;
    for (int i = 0; i < n; i++)
        p->perm_b[k++] = p->ob[i];
    for (int d = 0; d < ndb; d++)
        if (!b_con[d]) p->perm_b[k++] = d;
}

void kern_tensordot(const arr_t *a, const arr_t *b, int n, const int *ca, const int *cb,
                    bool accumulate, arr_t *out)
{
    size_t es = dt_size(out->dt);
    kern_td_plan_t p;
    kern_td_plan(&a->shape, &b->shape, n, ca, cb, &p);
    int64_t M = p.M, N = p.N, K = p.K;

    if (M == 0 || N == 0) return;
    if (K == 0) {
        if (!accumulate) memset(out->data, 0, (size_t)(M * N) * es);
        return;
    }

    const void *A = a->data, *B = b->data;
    void *scratch_a = NULL, *scratch_b = NULL;
    if (!p.a_inplace) { /* an M x K matrix */
        scratch_a = kern_xmalloc((size_t)(M * K) * es);
        permute_copy(a->data, &a->shape, p.perm_a, es, scratch_a);
        A = scratch_a;
    }
    if (!p.b_inplace) { /* a K x N matrix */
        scratch_b = kern_xmalloc((size_t)(K * N) * es);
        permute_copy(b->data, &b->shape, p.perm_b, es, scratch_b);
        B = scratch_b;
    }
    gemm(out->dt, M, N, K, A, p.a_inplace && p.a_trans, B, p.b_inplace && p.b_trans, accumulate,
         out->data);
    free(scratch_a);
    free(scratch_b);
}

#define OUTER_LOOP(T)                                                                              \
    do {                                                                                           \
        const T *x = a->data, *y = b->data;                                                        \
        T *o = out->data;                                                                          \
        for (int64_t i = 0; i < M; i++)                                                            \
            for (int64_t k = 0; k < N; k++)                                                        \
                o[i * N + k] = x[i] * y[k];                                                        \
    } while (0)

void kern_outer(const arr_t *a, const arr_t *b, arr_t *out)
{
    int64_t M = shape_size(&a->shape), N = shape_size(&b->shape);
    if (out->dt == DT_FLOAT64) {
        OUTER_LOOP(double);
    } else if (out->dt == DT_FLOAT32) {
        OUTER_LOOP(float);
    } else { /* integers and bool: the reference product, exact */
        int none = 0;
        kern_tensordot(a, b, 0, &none, &none, false, out);
    }
}

/* ---------------------------------------------------------------------------
 * matmul */

void kern_mm_batch(const shape_t *a, const shape_t *b, const shape_t *out, kern_mm_batch_t *m)
{
    int nda = a->ndim, ndb = b->ndim;
    int64_t sa = 1, sb = 1;
    m->nb = out->ndim - 2;
    m->nbatch = m->bbatch = 1;
    for (int d = m->nb - 1; d >= 0; d--) {
        int da = d - (m->nb - (nda - 2)), db = d - (m->nb - (ndb - 2));
        int64_t la = da >= 0 ? a->d[da] : 1, lb = db >= 0 ? b->d[db] : 1;
        m->bshape[d] = out->d[d];
        m->ast[d] = la == 1 ? 0 : sa;
        m->bst[d] = lb == 1 ? 0 : sb;
        sa *= la;
        sb *= lb;
        m->nbatch *= out->d[d];
        m->bbatch *= lb;
    }
}

void kern_matmul(const arr_t *a, const arr_t *b, bool accumulate, arr_t *out)
{
    int nda = a->shape.ndim, ndb = b->shape.ndim;
    int64_t M = a->shape.d[nda - 2], K = a->shape.d[nda - 1], N = b->shape.d[ndb - 1];
    int nb = out->shape.ndim - 2;
    size_t es = dt_size(out->dt);
    int64_t amat = M * K, bmat = K * N, omat = M * N;

    kern_mm_batch_t mb;
    kern_mm_batch(&a->shape, &b->shape, &out->shape, &mb);
    const int64_t *bshape = mb.bshape, *ast = mb.ast, *bst = mb.bst;
    int64_t nbatch = mb.nbatch, bbatch = mb.bbatch, idx[MR_MAXDIM] = {0};
    if (nbatch == 0 || omat == 0) return;

    /* b shared by every batch element: then out's batch axes are a's (a is
     * not broadcast), and a's batches stacked are one (nbatch*M) x K matrix,
     * so one gemm does them all. */
    if (bbatch == 1) {
        gemm(out->dt, nbatch * M, N, K, a->data, false, b->data, false, accumulate, out->data);
        return;
    }

    const char *A = a->data, *B = b->data;
    char *C = out->data;
    int64_t aoff = 0, boff = 0;
    for (int64_t t = 0; t < nbatch; t++) {
        gemm(out->dt, M, N, K, A + aoff * amat * (int64_t)es, false, B + boff * bmat * (int64_t)es,
             false, accumulate, C + t * omat * (int64_t)es);
        for (int d = nb - 1; d >= 0; d--) {
            aoff += ast[d];
            boff += bst[d];
            if (++idx[d] < bshape[d]) break;
            aoff -= ast[d] * bshape[d];
            boff -= bst[d] * bshape[d];
            idx[d] = 0;
        }
    }
}

/* ---------------------------------------------------------------------------
 * syrk */

void kern_syrk(const arr_t *a, bool accumulate, arr_t *out)
{
    int64_t m = a->shape.d[0], k = a->shape.d[1];
    if (m == 0) return;
    if (k == 0) {
        if (!accumulate) memset(out->data, 0, (size_t)(m * m) * dt_size(out->dt));
        return;
    }
    kern_table()->syrk[out->dt](m, k, a->data, accumulate, out->data);
}
