/* la.c: the linalg branch's kernels (la.h), on OpenBLAS's LAPACK and CBLAS.
 *
 * Matrices are row-major; LAPACK is column-major, so a row-major buffer is
 * the column-major transpose: potrf('U') of it is the row-major lower factor,
 * getrf/getri of it invert the row-major matrix, getrs('T') after getrf
 * solves with the row-major matrix, and singular values are a transpose's.
 * Every computation runs in float64 (float32 data is widened and the result
 * rounded back), which agrees with numpy's float32 LAPACK within its
 * tolerances. */
#include "la.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../graph_la.h"
#include "../errmsg.h"
#include "kern_internal.h"

void dgetrf_(const blasint *m, const blasint *n, double *a, const blasint *lda, blasint *ipiv,
             blasint *info);
void dgetri_(const blasint *n, double *a, const blasint *lda, const blasint *ipiv, double *work,
             const blasint *lwork, blasint *info);
void dgetrs_(const char *trans, const blasint *n, const blasint *nrhs, const double *a,
             const blasint *lda, const blasint *ipiv, double *b, const blasint *ldb, blasint *info,
             size_t);
void dpotrf_(const char *uplo, const blasint *n, double *a, const blasint *lda, blasint *info,
             size_t);
void dgesdd_(const char *jobz, const blasint *m, const blasint *n, double *a, const blasint *lda,
             double *s, double *u, const blasint *ldu, double *vt, const blasint *ldvt,
             double *work, const blasint *lwork, blasint *iwork, blasint *info, size_t);

static void put_d(void *p, dtype_t dt, int64_t i, double v)
{
    switch (dt) {
    case DT_BOOL:
        ((uint8_t *)p)[i] = v != 0;
        break;
    case DT_INT32:
        ((int32_t *)p)[i] = (int32_t)v;
        break;
    case DT_INT64:
        ((int64_t *)p)[i] = (int64_t)v;
        break;
    case DT_FLOAT32:
        ((float *)p)[i] = (float)v;
        break;
    default:
        ((double *)p)[i] = v;
        break;
    }
}

static void put_i(void *p, dtype_t dt, int64_t i, int64_t v)
{
    switch (dt) {
    case DT_BOOL:
        ((uint8_t *)p)[i] = v != 0;
        break;
    case DT_INT32:
        ((int32_t *)p)[i] = (int32_t)(uint32_t)(uint64_t)v; /* wraps as numpy's int32 */
        break;
    case DT_INT64:
        ((int64_t *)p)[i] = v;
        break;
    case DT_FLOAT32:
        ((float *)p)[i] = (float)v;
        break;
    default:
        ((double *)p)[i] = (double)v;
        break;
    }
}

/* n elements of a starting at element off, widened to float64 (malloc'd). */
static double *widen(const arr_t *a, int64_t off, int64_t n)
{
    double *d = kern_xmalloc(sizeof(double) * (size_t)n);
    if (a->dt == DT_FLOAT64)
        memcpy(d, (const double *)a->data + off, sizeof(double) * (size_t)n);
    else
        for (int64_t i = 0; i < n; i++)
            d[i] = dt_read_f64(a->dt, a->data, off + i);
    return d;
}

static void narrow(const double *d, arr_t *o, int64_t off, int64_t n)
{
    if (o->dt == DT_FLOAT64)
        memcpy((double *)o->data + off, d, sizeof(double) * (size_t)n);
    else
        for (int64_t i = 0; i < n; i++)
            put_d(o->data, o->dt, off + i, d[i]);
}

static int64_t elems(const shape_t *s)
{
    int64_t n = 1;
    for (int d = 0; d < s->ndim; d++)
        n *= s->d[d];
    return n;
}

/* The singular values of the m x n row-major matrix a (overwritten) into s
 * (min(m, n) values, descending). 0, or -1 when LAPACK fails to converge. */
static int svd_values(double *a, int64_t m, int64_t n, double *s)
{
    /* the column-major n x m transpose has the same singular values */
    blasint M = (blasint)n, N = (blasint)m, lda = M > 1 ? M : 1, one = 1, lwork = -1, info = 0;
    int64_t mn = m < n ? m : n;
    if (mn == 0) return 0;
    blasint *iwork = kern_xmalloc(sizeof(blasint) * (size_t)(8 * mn));
    double wq = 0, dummy = 0;
    dgesdd_("N", &M, &N, a, &lda, s, &dummy, &one, &dummy, &one, &wq, &lwork, iwork, &info, 1);
    lwork = (blasint)wq + 1;
    double *work = kern_xmalloc(sizeof(double) * (size_t)lwork);
    dgesdd_("N", &M, &N, a, &lda, s, &dummy, &one, &dummy, &one, work, &lwork, iwork, &info, 1);
    free(work);
    free(iwork);
    return info == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- single-block ops */

static int run_cholesky(const arr_t *in, arr_t *o, char *err, size_t errlen)
{
    int nd = in->shape.ndim;
    int64_t n = in->shape.d[nd - 1], mm = n * n, P = mm ? elems(&in->shape) / mm : 0;
    for (int64_t p = 0; p < P; p++) {
        double *a = widen(in, p * mm, mm);
        blasint N = (blasint)n, lda = N > 1 ? N : 1, info = 0;
        dpotrf_("U", &N, a, &lda, &info, 1);
        if (info != 0) {
            free(a);
            return errmsg(err, errlen, "Matrix is not positive definite");
        }
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = i + 1; j < n; j++)
                a[i * n + j] = 0;
        narrow(a, o, p * mm, mm);
        free(a);
    }
    return 0;
}

static int run_inv(const arr_t *in, arr_t *o, char *err, size_t errlen)
{
    int nd = in->shape.ndim;
    int64_t n = in->shape.d[nd - 1], mm = n * n, P = mm ? elems(&in->shape) / mm : 0;
    blasint N = (blasint)n, lda = N > 1 ? N : 1, info = 0, lwork = (blasint)(n * 64 + 1);
    blasint *ipiv = kern_xmalloc(sizeof(blasint) * (size_t)(n + 1));
    double *work = kern_xmalloc(sizeof(double) * (size_t)lwork);
    int rc = 0;
    for (int64_t p = 0; p < P && rc == 0; p++) {
        double *a = widen(in, p * mm, mm);
        dgetrf_(&N, &N, a, &lda, ipiv, &info);
        if (info > 0) {
            rc = errmsg(err, errlen, "Singular matrix");
        } else {
            dgetri_(&N, a, &lda, ipiv, work, &lwork, &info);
            narrow(a, o, p * mm, mm);
        }
        free(a);
    }
    free(work);
    free(ipiv);
    return rc;
}

static void run_det(const arr_t *in, arr_t *o)
{
    int nd = in->shape.ndim;
    int64_t n = in->shape.d[nd - 1], mm = n * n, P = elems(&o->shape);
    blasint N = (blasint)n, lda = N > 1 ? N : 1, info = 0;
    blasint *ipiv = kern_xmalloc(sizeof(blasint) * (size_t)(n + 1));
    for (int64_t p = 0; p < P; p++) {
        double det = 1.0;
        if (n > 0) {
            double *a = widen(in, p * mm, mm);
            dgetrf_(&N, &N, a, &lda, ipiv, &info);
            if (info > 0) {
                det = 0.0;
            } else {
                for (int64_t i = 0; i < n; i++) {
                    det *= a[i * n + i];
                    if (ipiv[i] != (blasint)(i + 1)) det = -det;
                }
            }
            free(a);
        }
        put_d(o->data, o->dt, p, det);
    }
    free(ipiv);
}

static int run_solve(const arr_t *A, const arr_t *B, arr_t *o, char *err, size_t errlen)
{
    int nd = A->shape.ndim;
    int64_t n = A->shape.d[nd - 1], mm = n * n;
    bool vec = B->shape.ndim == nd - 1;
    int64_t k = vec ? 1 : B->shape.d[nd - 1], P = 1;
    for (int d = 0; d < nd - 2; d++)
        P *= A->shape.d[d];
    if (n == 0 || k == 0) return 0;
    blasint N = (blasint)n, K = (blasint)k, info = 0;
    blasint *ipiv = kern_xmalloc(sizeof(blasint) * (size_t)n);
    double *bc = kern_xmalloc(sizeof(double) * (size_t)(n * k));
    int rc = 0;
    for (int64_t p = 0; p < P && rc == 0; p++) {
        double *a = widen(A, p * mm, mm);
        dgetrf_(&N, &N, a, &N, ipiv, &info);
        if (info > 0) {
            rc = errmsg(err, errlen, "Singular matrix");
        } else {
            for (int64_t i = 0; i < n; i++)
                for (int64_t r = 0; r < k; r++)
                    bc[i + r * n] = dt_read_f64(B->dt, B->data, p * n * k + i * k + r);
            dgetrs_("T", &N, &K, a, &N, ipiv, bc, &N, &info, 1);
            for (int64_t i = 0; i < n; i++)
                for (int64_t r = 0; r < k; r++)
                    put_d(o->data, o->dt, p * n * k + i * k + r, bc[i + r * n]);
        }
        free(a);
    }
    free(bc);
    free(ipiv);
    return rc;
}

static int run_rank(const graph_node_t *node, const arr_t *in, arr_t *o, char *err, size_t errlen)
{
    const la_node_t *la = node->la;
    int nd = in->shape.ndim;
    if (nd < 2) {
        int64_t n = elems(&in->shape), any = 0;
        for (int64_t i = 0; i < n && !any; i++)
            any = dt_read_f64(in->dt, in->data, i) != 0;
        ((int64_t *)o->data)[0] = any;
        return 0;
    }
    int64_t m = in->shape.d[nd - 2], n = in->shape.d[nd - 1], mm = m * n, P = elems(&o->shape);
    int64_t mn = m < n ? m : n;
    double eps = in->dt == DT_FLOAT32 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
    double *s = kern_xmalloc(sizeof(double) * (size_t)(mn + 1));
    int rc = 0;
    for (int64_t p = 0; p < P && rc == 0; p++) {
        int64_t r = 0;
        if (mn > 0) {
            double *a = widen(in, p * mm, mm);
            if (svd_values(a, m, n, s) < 0) rc = errmsg(err, errlen, "SVD did not converge");
            free(a);
            double tol = la->has_tol ? la->tol : s[0] * (double)(m > n ? m : n) * eps;
            if (in->dt == DT_FLOAT32 && !la->has_tol) tol = (double)(float)tol;
            for (int64_t i = 0; i < mn; i++) {
                double sv = in->dt == DT_FLOAT32 ? (double)(float)s[i] : s[i];
                r += sv > tol;
            }
        }
        ((int64_t *)o->data)[p] = r;
    }
    free(s);
    return rc;
}

/* linalg.norm: in's normed axes are last (tile/la.c permuted them). */
static int run_norm(const graph_node_t *node, const arr_t *in, arr_t *o, char *err, size_t errlen)
{
    const la_node_t *la = node->la;
    int nd = in->shape.ndim;
    int64_t P = elems(&o->shape), total = elems(&in->shape);
    int kind = la->ord_kind;
    double ord = la->ord;
    if (la->n_axis <= 1) {
        int64_t V = P ? total / P : 0;
        if (la->n_axis == 0) kind = LA_ORD_NONE;
        for (int64_t p = 0; p < P; p++) {
            const int64_t b = p * V;
            double r = 0;
            if (kind == LA_ORD_NONE || (kind == LA_ORD_NUM && ord == 2)) {
                for (int64_t i = 0; i < V; i++) {
                    double x = dt_read_f64(in->dt, in->data, b + i);
                    r += x * x;
                }
                r = sqrt(r);
            } else if (isinf(ord)) {
                r = ord > 0 ? 0 : INFINITY;
                if (V == 0 && ord < 0) r = INFINITY;
                for (int64_t i = 0; i < V; i++) {
                    double x = fabs(dt_read_f64(in->dt, in->data, b + i));
                    if (isnan(x)) {
                        r = x;
                        break;
                    }
                    r = ord > 0 ? (x > r ? x : r) : (x < r ? x : r);
                }
                if (V == 0)
                    return errmsg(err, errlen,
                                  "zero-size array to reduction operation %s which has no "
                                  "identity",
                                  ord > 0 ? "maximum" : "minimum");
            } else if (ord == 0) {
                for (int64_t i = 0; i < V; i++)
                    r += dt_read_f64(in->dt, in->data, b + i) != 0;
            } else if (ord == 1) {
                for (int64_t i = 0; i < V; i++)
                    r += fabs(dt_read_f64(in->dt, in->data, b + i));
            } else {
                for (int64_t i = 0; i < V; i++)
                    r += pow(fabs(dt_read_f64(in->dt, in->data, b + i)), ord);
                r = pow(r, 1.0 / ord);
            }
            put_d(o->data, o->dt, p, r);
        }
        return 0;
    }
    int64_t R = in->shape.d[nd - 2], C = in->shape.d[nd - 1], mm = R * C, mn = R < C ? R : C;
    double *s = kern_xmalloc(sizeof(double) * (size_t)(mn + 1));
    double *acc = kern_xmalloc(sizeof(double) * (size_t)(R > C ? R + 1 : C + 1));
    int rc = 0;
    for (int64_t p = 0; p < P && rc == 0; p++) {
        double *a = widen(in, p * mm, mm);
        double r = 0;
        if (kind == LA_ORD_NONE || kind == LA_ORD_FRO) {
            for (int64_t i = 0; i < mm; i++)
                r += a[i] * a[i];
            r = sqrt(r);
        } else if (kind == LA_ORD_NUC || ord == 2 || ord == -2) {
            if (mn == 0) {
                rc = errmsg(err, errlen, "zero-size array to reduction operation");
            } else if (svd_values(a, R, C, s) < 0) {
                rc = errmsg(err, errlen, "SVD did not converge");
            } else if (kind == LA_ORD_NUC) {
                for (int64_t i = 0; i < mn; i++)
                    r += s[i];
            } else {
                r = ord > 0 ? s[0] : s[mn - 1];
            }
        } else {
            /* 1/-1: sums over the rows (per column); inf/-inf: over the columns (per row) */
            bool cols = ord == 1 || ord == -1;
            int64_t na = cols ? C : R;
            for (int64_t q = 0; q < na; q++)
                acc[q] = 0;
            for (int64_t i = 0; i < R; i++)
                for (int64_t j = 0; j < C; j++)
                    acc[cols ? j : i] += fabs(a[i * C + j]);
            if (na == 0) rc = errmsg(err, errlen, "zero-size array to reduction operation");
            r = na ? acc[0] : 0;
            for (int64_t q = 1; q < na; q++)
                r = ord > 0 ? (acc[q] > r ? acc[q] : r) : (acc[q] < r ? acc[q] : r);
        }
        free(a);
        put_d(o->data, o->dt, p, r);
    }
    free(acc);
    free(s);
    return rc;
}

/* einsum: one loop over every label's range (numpy's optimize=False). */
static int run_einsum(const graph_node_t *node, const arr_t *ins, arr_t *o, char *err,
                      size_t errlen)
{
    const la_node_t *la = node->la;
    int nop = la->n_opnd;
    unsigned char labs[MR_MAXDIM * (LA_EINSUM_MAX_OPERANDS + 1)];
    int nl = 0;
    int64_t size[256];
    for (int i = 0; i < 256; i++)
        size[i] = -1;
    for (int k = 0; k < nop; k++)
        for (int d = 0; d < la->nlab[k]; d++) {
            unsigned char L = la->lab[k][d];
            if (size[L] < 0) labs[nl++] = L;
            if (size[L] < 0 || size[L] == 1) size[L] = ins[k].shape.d[d];
        }
    int64_t total = 1;
    for (int i = 0; i < nl; i++) {
        if (size[labs[i]] == 0) total = 0;
        if (total && mul_ovf_i64(total, size[labs[i]], &total)) total = INT64_MAX;
    }
    if (total > LA_EINSUM_MAX_OPS)
        return errmsg(err, errlen,
                      "einsum would loop %lld times, more than the single-block limit of %lld "
                      "(LA_EINSUM_MAX_OPS)",
                      (long long)total, (long long)LA_EINSUM_MAX_OPS);
    /* strides per label: operands (repeated labels add up: diagonals), output */
    int64_t(*st)[MR_MAXDIM * (LA_EINSUM_MAX_OPERANDS + 1)] =
        kern_xmalloc(sizeof(*st) * (size_t)(nop + 1));
    for (int k = 0; k <= nop; k++) {
        for (int i = 0; i < nl; i++)
            st[k][i] = 0;
        int n = k < nop ? la->nlab[k] : la->nout;
        const unsigned char *lab = k < nop ? la->lab[k] : la->out;
        const shape_t *sh = k < nop ? &ins[k].shape : &o->shape;
        int64_t cs = 1;
        for (int d = n - 1; d >= 0; d--) {
            for (int i = 0; i < nl; i++)
                if (labs[i] == lab[d] && sh->d[d] != 1) st[k][i] += cs;
            cs *= sh->d[d];
        }
    }
    int64_t no = elems(&o->shape);
    bool fl = dt_is_float(o->dt);
    double *accd = fl ? calloc((size_t)(no ? no : 1), sizeof(double)) : NULL;
    int64_t *acci = fl ? NULL : calloc((size_t)(no ? no : 1), sizeof(int64_t));
    if (!accd && !acci) abort();
    int64_t idx[MR_MAXDIM * (LA_EINSUM_MAX_OPERANDS + 1)] = {0};
    int64_t off[LA_EINSUM_MAX_OPERANDS + 1] = {0};
    for (int64_t it = 0; it < total; it++) {
        if (fl) {
            double v = 1;
            for (int k = 0; k < nop; k++)
                v *= dt_read_f64(ins[k].dt, ins[k].data, off[k]);
            accd[off[nop]] += v;
        } else {
            int64_t v = 1;
            for (int k = 0; k < nop; k++)
                v = (int64_t)((uint64_t)v * (uint64_t)dt_read_i64(ins[k].dt, ins[k].data, off[k]));
            acci[off[nop]] = (int64_t)((uint64_t)acci[off[nop]] + (uint64_t)v);
        }
        for (int i = nl - 1; i >= 0; i--) {
            for (int k = 0; k <= nop; k++)
                off[k] += st[k][i];
            if (++idx[i] < size[labs[i]]) break;
            for (int k = 0; k <= nop; k++)
                off[k] -= st[k][i] * size[labs[i]];
            idx[i] = 0;
        }
    }
    for (int64_t i = 0; i < no; i++) {
        if (fl)
            put_d(o->data, o->dt, i, accd[i]);
        else
            put_i(o->data, o->dt, i, acci[i]);
    }
    free(accd);
    free(acci);
    free(st);
    return 0;
}

/* ---------------------------------------------------------------- blocked and per-chunk steps */

static int step_potrf(const arr_t *a, arr_t *o, char *err, size_t errlen)
{
    return run_cholesky(a, o, err, errlen);
}

/* o = a L^-T, L lower (row-major) */
static void step_trsm(const arr_t *a, const arr_t *l, arr_t *o)
{
    int64_t m = a->shape.d[0], n = a->shape.d[1];
    if (m == 0 || n == 0) return;
    double *b = widen(a, 0, m * n), *L = widen(l, 0, n * n);
    cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, (blasint)m,
                (blasint)n, 1.0, L, (blasint)n, b, (blasint)n);
    narrow(b, o, 0, m * n);
    free(b);
    free(L);
}

/* o = a - li ljᵀ */
static void step_update(const arr_t *a, const arr_t *li, const arr_t *lj, arr_t *o)
{
    int64_t m = a->shape.d[0], n = a->shape.d[1], k = li->shape.d[1];
    if (m == 0 || n == 0) return;
    double *c = widen(a, 0, m * n), *x = widen(li, 0, m * k), *y = widen(lj, 0, n * k);
    if (k > 0)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (blasint)m, (blasint)n, (blasint)k,
                    -1.0, x, (blasint)k, y, (blasint)k, 1.0, c, (blasint)n);
    narrow(c, o, 0, m * n);
    free(c);
    free(x);
    free(y);
}

static void step_tri(const graph_node_t *node, const job_t *j, const arr_t *in, arr_t *o)
{
    int nd = o->shape.ndim;
    int64_t R = o->shape.d[nd - 2], C = o->shape.d[nd - 1],
            P = R > 0 && C > 0 ? elems(&o->shape) / (R * C) : 0;
    int64_t r0 = j->off[nd - 2], c0 = j->off[nd - 1], k = node->la->k;
    bool lower = node->op == OP_TRIL, vec = in->shape.ndim == 1;
    size_t es = dt_size(o->dt);
    char *dst = o->data;
    const char *src = in->data;
    for (int64_t p = 0; p < P; p++)
        for (int64_t i = 0; i < R; i++)
            for (int64_t c = 0; c < C; c++) {
                int64_t d = (c0 + c) - (r0 + i);
                bool keep = lower ? d <= k : d >= k;
                char *e = dst + ((p * R + i) * C + c) * (int64_t)es;
                if (keep)
                    memcpy(e, src + (vec ? c : (p * R + i) * C + c) * (int64_t)es, es);
                else
                    memset(e, 0, es);
            }
}

static void step_trace(const arr_t *ins, int n_in, arr_t *o)
{
    int64_t P = elems(&o->shape);
    bool fl = dt_is_float(o->dt);
    for (int64_t p = 0; p < P; p++) {
        double sd = 0;
        int64_t si = 0;
        for (int k = 0; k < n_in; k++) {
            int nd = ins[k].shape.ndim;
            int64_t L = ins[k].shape.d[nd - 1];
            for (int64_t t = 0; t < L; t++) {
                if (fl)
                    sd += dt_read_f64(ins[k].dt, ins[k].data, p * L + t);
                else
                    si = (int64_t)((uint64_t)si +
                                   (uint64_t)dt_read_i64(ins[k].dt, ins[k].data, p * L + t));
            }
        }
        if (fl)
            put_d(o->data, o->dt, p, sd);
        else
            put_i(o->data, o->dt, p, si);
    }
}

static void step_diag(const graph_node_t *node, const job_t *j, const arr_t *ins, int n_in,
                      arr_t *o)
{
    int64_t R = o->shape.d[0], C = o->shape.d[1], k = node->la->k;
    int64_t rk = k < 0 ? -k : 0, ck = k > 0 ? k : 0;
    size_t es = dt_size(o->dt);
    memset(o->data, 0, (size_t)(R * C) * es);
    if (n_in == 0) return;
    int64_t r0 = j->off[0], c0 = j->off[1], i0 = j->off[2], n = ins[0].shape.d[0];
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i0 + i + rk - r0, c = i0 + i + ck - c0;
        memcpy((char *)o->data + (r * C + c) * (int64_t)es,
               (const char *)ins[0].data + i * (int64_t)es, es);
    }
}

int la_exec(const tile_t *t, const job_t *j, const arr_t *ins, arr_t *o, char *err, size_t errlen)
{
    const graph_node_t *node = &t->g->nodes[j->node];
    switch ((la_step_t)j->param->la_step) {
    case LS_POTRF:
        return step_potrf(&ins[0], o, err, errlen);
    case LS_TRSM:
        step_trsm(&ins[0], &ins[1], o);
        return 0;
    case LS_UPDATE:
        step_update(&ins[0], &ins[1], &ins[2], o);
        return 0;
    case LS_ZERO:
        memset(o->data, 0, (size_t)elems(&o->shape) * dt_size(o->dt));
        return 0;
    case LS_TRI:
        step_tri(node, j, &ins[0], o);
        return 0;
    case LS_TRACE:
        step_trace(ins, j->n_in, o);
        return 0;
    case LS_DIAG:
        step_diag(node, j, ins, j->n_in, o);
        return 0;
    case LS_SUMSQ: {
        double s = 0;
        int64_t n = elems(&ins[0].shape);
        for (int64_t i = 0; i < n; i++) {
            double x = dt_read_f64(ins[0].dt, ins[0].data, i);
            s += x * x;
        }
        ((double *)o->data)[0] = s;
        return 0;
    }
    case LS_NORM2: {
        double s = 0;
        for (int k = 0; k < j->n_in; k++)
            s += ((const double *)ins[k].data)[0];
        put_d(o->data, o->dt, 0, sqrt(s));
        return 0;
    }
    case LS_WHOLE:
        break;
    case LS_QR_LOCAL:
    case LS_QR_MERGE:
    case LS_QR_APPLY:
    case LS_SVD_R:
    case LS_SVD_U:
    case LS_LA2_WHOLE:
        return la2_exec(j, node, ins, o, err, errlen);
    }
    switch (node->op) {
    case OP_LA_CHOLESKY:
        return run_cholesky(&ins[0], o, err, errlen);
    case OP_LA_INV:
        return run_inv(&ins[0], o, err, errlen);
    case OP_LA_DET:
        run_det(&ins[0], o);
        return 0;
    case OP_LA_SOLVE:
        return run_solve(&ins[0], &ins[1], o, err, errlen);
    case OP_LA_MATRIX_RANK:
        return run_rank(node, &ins[0], o, err, errlen);
    case OP_LA_NORM:
        return run_norm(node, &ins[0], o, err, errlen);
    case OP_EINSUM:
        return run_einsum(node, ins, o, err, errlen);
    default:
        return errmsg(err, errlen, "internal: %s has no single-block kernel", op_name(node->op));
    }
}
