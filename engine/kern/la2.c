/* la2.c: the jobs of linalg.qr, svd, eigh and slogdet (la2.h, kern/la.h's
 * LS_QR_* and LS_LA2_* steps), on OpenBLAS's LAPACK.
 *
 * Row-major matrices are copied into column-major float64 buffers for
 * LAPACK and back; "packed" outputs are flat buffers of the node's dtype
 * (float32 results are computed in float64 and rounded, as la.c does) that
 * the results' gathers slice (tile/la2.c):
 *   LS_QR_LOCAL   [R_i (n x n); Q_i (m_i x n)]
 *   LS_QR_MERGE   [R (n x n); Q2 (p n x n)]
 *   LS_SVD_R      [s (n); U_r (n x n); Vh (n x n)]
 *   LS_LA2_WHOLE  qr [R (k x c); Q (m x k)]; svd [s (k); U (m x k);
 *                 Vh (k x c)] (s alone without compute_uv); eigh [w (n);
 *                 V (n x n)]; slogdet [sign, logabsdet]; lstsq [x (n x K);
 *                 s (k); rank; residuals exist; residuals (K)] */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../errmsg.h"
#include "kern_internal.h"
#include "la.h"

void dgeqrf_(const blasint *m, const blasint *n, double *a, const blasint *lda, double *tau,
             double *work, const blasint *lwork, blasint *info);
void dorgqr_(const blasint *m, const blasint *n, const blasint *k, double *a, const blasint *lda,
             const double *tau, double *work, const blasint *lwork, blasint *info);
void dgesdd_(const char *jobz, const blasint *m, const blasint *n, double *a, const blasint *lda,
             double *s, double *u, const blasint *ldu, double *vt, const blasint *ldvt,
             double *work, const blasint *lwork, blasint *iwork, blasint *info, size_t);
void dsyevd_(const char *jobz, const char *uplo, const blasint *n, double *a, const blasint *lda,
             double *w, double *work, const blasint *lwork, blasint *iwork, const blasint *liwork,
             blasint *info, size_t, size_t);
void dgelsd_(const blasint *m, const blasint *n, const blasint *nrhs, double *a, const blasint *lda,
             double *b, const blasint *ldb, double *s, const double *rcond, blasint *rank,
             double *work, const blasint *lwork, blasint *iwork, blasint *info);
void dgetrf_(const blasint *m, const blasint *n, double *a, const blasint *lda, blasint *ipiv,
             blasint *info);

static int lstsq_into(const arr_t *a, const arr_t *b, double rcond, arr_t *o, char *err,
                      size_t errlen);

static double rd(const arr_t *a, int64_t i)
{
    return a->dt == DT_FLOAT64 ? ((const double *)a->data)[i] : dt_read_f64(a->dt, a->data, i);
}

static void wr(arr_t *o, int64_t i, double v)
{
    if (o->dt == DT_FLOAT32)
        ((float *)o->data)[i] = (float)v;
    else
        ((double *)o->data)[i] = v;
}

/* Column-major float64 copy of the row-major m x n matrix at element off. */
static double *colmajor(const arr_t *a, int64_t off, int64_t m, int64_t n)
{
    double *c = kern_xmalloc(sizeof(double) * (size_t)(m * n > 0 ? m * n : 1));
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            c[i + j * m] = rd(a, off + i * n + j);
    return c;
}

/* Writes the column-major m x n matrix c (leading dimension ld) row-major
 * into o at element off. */
static void put_rows(arr_t *o, int64_t off, const double *c, int64_t m, int64_t n, int64_t ld)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            wr(o, off + i * n + j, c[i + j * ld]);
}

/* QR of the column-major m x n matrix a (m >= k = min(m, n)): R (k x n,
 * upper) written at r_off, Q (m x k) at q_off of o. 0 or -1. */
static int qr_into(double *a, int64_t m, int64_t n, arr_t *o, int64_t r_off, int64_t q_off,
                   char *err, size_t errlen)
{
    int64_t k = m < n ? m : n;
    blasint M = (blasint)m, N = (blasint)n, K = (blasint)k, lda = M > 1 ? M : 1, info = 0,
            lwork = -1;
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = 0; j < n; j++)
            wr(o, r_off + i * n + j, 0.0);
    if (k == 0) {
        for (int64_t i = 0; i < m * k; i++)
            wr(o, q_off + i, 0.0);
        return 0;
    }
    double *tau = kern_xmalloc(sizeof(double) * (size_t)k), q;
    dgeqrf_(&M, &N, a, &lda, tau, &q, &lwork, &info);
    lwork = (blasint)q > N ? (blasint)q : N;
    double *work = kern_xmalloc(sizeof(double) * (size_t)lwork);
    dgeqrf_(&M, &N, a, &lda, tau, work, &lwork, &info);
    if (info == 0)
        for (int64_t i = 0; i < k; i++)
            for (int64_t j = i; j < n; j++)
                wr(o, r_off + i * n + j, a[i + j * m]);
    blasint lw2 = -1;
    if (info == 0) dorgqr_(&M, &K, &K, a, &lda, tau, &q, &lw2, &info);
    if (info == 0 && (blasint)q > lwork) {
        free(work);
        lwork = (blasint)q;
        work = kern_xmalloc(sizeof(double) * (size_t)lwork);
    }
    if (info == 0) dorgqr_(&M, &K, &K, a, &lda, tau, work, &lwork, &info);
    if (info == 0) put_rows(o, q_off, a, m, k, m);
    free(work);
    free(tau);
    return info == 0 ? 0
                     : errmsg(err, errlen, "QR factorization failed (LAPACK info %d)", (int)info);
}

/* SVD of the column-major m x n matrix a (destroyed): s (k), U (m x k),
 * Vh (k x n) at s_off, u_off, vh_off of o (u_off < 0: values only). */
static int svd_into(double *a, int64_t m, int64_t n, arr_t *o, int64_t s_off, int64_t u_off,
                    int64_t vh_off, char *err, size_t errlen)
{
    int64_t k = m < n ? m : n;
    if (k == 0) return 0;
    blasint M = (blasint)m, N = (blasint)n, lda = M > 1 ? M : 1, ldu = lda,
            ldvt = (blasint)k > 1 ? (blasint)k : 1, info = 0, lwork = -1;
    char jobz = u_off < 0 ? 'N' : 'S';
    double *s = kern_xmalloc(sizeof(double) * (size_t)k);
    double *u = u_off < 0 ? NULL : kern_xmalloc(sizeof(double) * (size_t)(m * k));
    double *vt = u_off < 0 ? NULL : kern_xmalloc(sizeof(double) * (size_t)(k * n));
    blasint *iw = kern_xmalloc(sizeof(blasint) * (size_t)(8 * k));
    double q;
    dgesdd_(&jobz, &M, &N, a, &lda, s, u ? u : &q, &ldu, vt ? vt : &q, &ldvt, &q, &lwork, iw, &info,
            1);
    lwork = (blasint)q + 1;
    double *work = kern_xmalloc(sizeof(double) * (size_t)lwork);
    dgesdd_(&jobz, &M, &N, a, &lda, s, u ? u : &q, &ldu, vt ? vt : &q, &ldvt, work, &lwork, iw,
            &info, 1);
    int rc = 0;
    if (info > 0)
        rc = errmsg(err, errlen, "SVD did not converge");
    else if (info < 0)
        rc = errmsg(err, errlen, "internal: dgesdd argument %d", (int)-info);
    if (rc == 0) {
        for (int64_t i = 0; i < k; i++)
            wr(o, s_off + i, s[i]);
        if (u) {
            put_rows(o, u_off, u, m, k, m);
            put_rows(o, vh_off, vt, k, n, k);
        }
    }
    free(work);
    free(iw);
    free(vt);
    free(u);
    free(s);
    return rc;
}

/* eigh of the row-major symmetric n x n a: w (ascending) at 0, V at n. */
static int eigh_into(const arr_t *in, bool upper, arr_t *o, char *err, size_t errlen)
{
    int64_t n = in->shape.d[0];
    if (n == 0) return 0;
    /* the row-major buffer is the column-major transpose: numpy's lower
     * triangle is LAPACK's upper */
    double *a = kern_xmalloc(sizeof(double) * (size_t)(n * n));
    for (int64_t i = 0; i < n * n; i++)
        a[i] = rd(in, i);
    char jobz = 'V', uplo = upper ? 'L' : 'U';
    blasint N = (blasint)n, lda = N, info = 0, lwork = -1, liwork = -1, qi;
    double *w = kern_xmalloc(sizeof(double) * (size_t)n), q;
    dsyevd_(&jobz, &uplo, &N, a, &lda, w, &q, &lwork, &qi, &liwork, &info, 1, 1);
    lwork = (blasint)q + 1;
    liwork = qi + 1;
    double *work = kern_xmalloc(sizeof(double) * (size_t)lwork);
    blasint *iw = kern_xmalloc(sizeof(blasint) * (size_t)liwork);
    dsyevd_(&jobz, &uplo, &N, a, &lda, w, work, &lwork, iw, &liwork, &info, 1, 1);
    int rc = 0;
    if (info > 0)
        rc = errmsg(err, errlen, "Eigenvalues did not converge");
    else if (info < 0)
        rc = errmsg(err, errlen, "internal: dsyevd argument %d", (int)-info);
    if (rc == 0) {
        for (int64_t i = 0; i < n; i++)
            wr(o, i, w[i]);
        put_rows(o, n, a, n, n, n); /* column j of a is eigenvector j */
    }
    free(iw);
    free(work);
    free(w);
    free(a);
    return rc;
}

static void slogdet_into(const arr_t *in, arr_t *o)
{
    int64_t n = in->shape.d[0];
    double *a = kern_xmalloc(sizeof(double) * (size_t)(n * n > 0 ? n * n : 1));
    for (int64_t i = 0; i < n * n; i++)
        a[i] = rd(in, i);
    blasint N = (blasint)n, lda = N > 1 ? N : 1, info = 0;
    blasint *ipiv = kern_xmalloc(sizeof(blasint) * (size_t)(n + 1));
    double sign = 1.0, logdet = 0.0;
    if (n > 0) dgetrf_(&N, &N, a, &lda, ipiv, &info);
    if (info > 0) {
        sign = 0.0;
        logdet = -INFINITY;
    } else {
        for (int64_t i = 0; i < n; i++) {
            double d = a[i + i * n];
            if (d < 0) sign = -sign;
            if (ipiv[i] != (blasint)(i + 1)) sign = -sign;
            logdet += log(fabs(d));
        }
    }
    wr(o, 0, sign);
    wr(o, 1, logdet);
    free(ipiv);
    free(a);
}

int la2_exec(const job_t *j, const graph_node_t *node, const arr_t *ins, arr_t *o, char *err,
             size_t errlen)
{
    switch ((la_step_t)j->param->la_step) {
    case LS_QR_LOCAL: {
        int64_t m = ins[0].shape.d[0], n = ins[0].shape.d[1];
        double *a = colmajor(&ins[0], 0, m, n);
        int rc = qr_into(a, m, n, o, 0, n * n, err, errlen);
        free(a);
        return rc;
    }
    case LS_QR_MERGE: {
        /* the stacked R_i (the first n x n of each local output) */
        int64_t p = j->n_in, n = (int64_t)llround(sqrt((double)o->shape.d[0] / (double)(p + 1)));
        int64_t m = p * n;
        double *a = kern_xmalloc(sizeof(double) * (size_t)(m * n > 0 ? m * n : 1));
        for (int64_t b = 0; b < p; b++)
            for (int64_t i = 0; i < n; i++)
                for (int64_t c = 0; c < n; c++)
                    a[(b * n + i) + c * m] = rd(&ins[b], i * n + c);
        int rc = qr_into(a, m, n, o, 0, n * n, err, errlen);
        free(a);
        return rc;
    }
    case LS_QR_APPLY:
    case LS_SVD_U: {
        /* QR_APPLY: Q_i (after local_i's R) times the merge's rows i n ..
         * of Q2; SVD_U: the Q block times U_r (after s in LS_SVD_R's) */
        bool apply = j->param->la_step == LS_QR_APPLY;
        int64_t m = o->shape.d[0], n = o->shape.d[1], i = apply ? j->off[0] : 0;
        int64_t a_off = apply ? n * n : 0, b_off = apply ? n * n + i * n * n : n;
        double *A = kern_xmalloc(sizeof(double) * (size_t)(m * n > 0 ? m * n : 1));
        double *B = kern_xmalloc(sizeof(double) * (size_t)(n * n > 0 ? n * n : 1));
        double *C = kern_xmalloc(sizeof(double) * (size_t)(m * n > 0 ? m * n : 1));
        for (int64_t x = 0; x < m * n; x++)
            A[x] = rd(&ins[0], a_off + x);
        for (int64_t x = 0; x < n * n; x++)
            B[x] = rd(&ins[1], b_off + x);
        if (m > 0 && n > 0)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)m, (blasint)n,
                        (blasint)n, 1.0, A, (blasint)n, B, (blasint)n, 0.0, C, (blasint)n);
        for (int64_t x = 0; x < m * n; x++)
            wr(o, x, C[x]);
        free(C);
        free(B);
        free(A);
        return 0;
    }
    case LS_SVD_R: {
        int64_t n = (int64_t)llround((sqrt(1.0 + 8.0 * (double)o->shape.d[0]) - 1.0) / 4.0);
        double *a = colmajor(&ins[0], 0, n, n);
        int rc = svd_into(a, n, n, o, 0, n, n + n * n, err, errlen);
        free(a);
        return rc;
    }
    case LS_LA2_WHOLE:
        break;
    default:
        return errmsg(err, errlen, "internal: not a la2 step");
    }
    if (node->op == OP_LA_LSTSQ) return lstsq_into(&ins[0], &ins[1], node->mo_lo, o, err, errlen);
    const arr_t *in = &ins[0];
    int64_t m = in->shape.d[0], c = in->shape.d[1], k = m < c ? m : c;
    switch (node->op) {
    case OP_LA_QR: {
        double *a = colmajor(in, 0, m, c);
        int rc = qr_into(a, m, c, o, 0, k * c, err, errlen);
        free(a);
        return rc;
    }
    case OP_LA_SVD: {
        double *a = colmajor(in, 0, m, c);
        bool uv = node->mo_sparse;
        int rc = svd_into(a, m, c, o, 0, uv ? k : -1, k + m * k, err, errlen);
        free(a);
        return rc;
    }
    case OP_LA_EIGH:
        return eigh_into(in, node->mo_col != 0, o, err, errlen);
    case OP_LA_SLOGDET:
        slogdet_into(in, o);
        return 0;
    default:
        return errmsg(err, errlen, "internal: not a la2 op");
    }
}

/* numpy's lstsq: dgelsd on a (m x c) and b (m, or m x K); residuals when
 * the rank is c and m > c, the squares of b's rows c.. after the solve. */
static int lstsq_into(const arr_t *a, const arr_t *b, double rcond, arr_t *o, char *err,
                      size_t errlen)
{
    int64_t m = a->shape.d[0], c = a->shape.d[1], k = m < c ? m : c;
    int64_t nrhs = b->shape.ndim == 2 ? b->shape.d[1] : 1, ldb = m > c ? m : c;
    if (ldb < 1) ldb = 1;
    int64_t xs = 0, so = c * nrhs, ro = so + k, fo = ro + 1, reso = fo + 1;
    double *aa = colmajor(a, 0, m, c);
    double *bb = kern_xmalloc(sizeof(double) * (size_t)(ldb * (nrhs > 0 ? nrhs : 1)));
    memset(bb, 0, sizeof(double) * (size_t)(ldb * (nrhs > 0 ? nrhs : 1)));
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < nrhs; j++)
            bb[i + j * ldb] = rd(b, i * nrhs + j);
    double *s = kern_xmalloc(sizeof(double) * (size_t)(k > 0 ? k : 1));
    blasint rank = 0, info = 0;
    int rc = 0;
    if (k > 0 && nrhs > 0) {
        blasint M = (blasint)m, N = (blasint)c, NR = (blasint)nrhs, lda = M > 1 ? M : 1,
                LDB = (blasint)ldb, lwork = -1, iq = 0;
        double q = 0;
        dgelsd_(&M, &N, &NR, aa, &lda, bb, &LDB, s, &rcond, &rank, &q, &lwork, &iq, &info);
        lwork = (blasint)q + 1;
        blasint liw = iq > 1 ? iq : 1;
        double *work = kern_xmalloc(sizeof(double) * (size_t)lwork);
        blasint *iw = kern_xmalloc(sizeof(blasint) * (size_t)liw);
        dgelsd_(&M, &N, &NR, aa, &lda, bb, &LDB, s, &rcond, &rank, work, &lwork, iw, &info);
        free(work);
        free(iw);
        if (info > 0)
            rc = errmsg(err, errlen, "SVD did not converge in Linear Least Squares");
        else if (info < 0)
            rc = errmsg(err, errlen, "internal: dgelsd argument %d", (int)-info);
    } else {
        /* numpy: an empty a or b gives zeros (x), rank 0 */
        for (int64_t i = 0; i < ldb * nrhs; i++)
            if (i % ldb < c) bb[i] = 0.0;
    }
    if (rc == 0) {
        for (int64_t i = 0; i < c; i++)
            for (int64_t j = 0; j < nrhs; j++)
                wr(o, xs + i * nrhs + j, bb[i + j * ldb]);
        for (int64_t i = 0; i < k; i++)
            wr(o, so + i, s[i]);
        wr(o, ro, (double)rank);
        bool has = rank == c && m > c;
        wr(o, fo, has ? 1.0 : 0.0);
        for (int64_t j = 0; j < nrhs; j++) {
            double r = 0.0;
            for (int64_t i = c; has && i < m; i++)
                r += bb[i + j * ldb] * bb[i + j * ldb];
            wr(o, reso + j, r);
        }
    }
    free(s);
    free(bb);
    free(aa);
    return rc;
}

int kern_cov_factor(const double *cov, int64_t k, double tol, double *f, bool *psd, char *err,
                    size_t errlen)
{
    /* BLAS runs on one thread in mars-run and in the workers (kern_init,
     * before they read a document), so the factor has the same bits in
     * both; the gateway's and supervisor's copies only validate */
    /* column-major copy (cov need not be symmetric: numpy's check says so) */
    double *a = kern_xmalloc(sizeof(double) * (size_t)(k * k));
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = 0; j < k; j++)
            a[i + j * k] = cov[i * k + j];
    blasint K = (blasint)k, info = 0, lwork = -1;
    double *s = kern_xmalloc(sizeof(double) * (size_t)k);
    double *u = kern_xmalloc(sizeof(double) * (size_t)(k * k));
    double *vt = kern_xmalloc(sizeof(double) * (size_t)(k * k));
    blasint *iw = kern_xmalloc(sizeof(blasint) * (size_t)(8 * k));
    double q;
    dgesdd_("A", &K, &K, a, &K, s, u, &K, vt, &K, &q, &lwork, iw, &info, 1);
    lwork = (blasint)q + 1;
    double *work = kern_xmalloc(sizeof(double) * (size_t)lwork);
    dgesdd_("A", &K, &K, a, &K, s, u, &K, vt, &K, work, &lwork, iw, &info, 1);
    int rc = 0;
    if (info != 0) {
        rc = errmsg(err, errlen, info > 0 ? "SVD did not converge" : "internal: dgesdd argument %d",
                    (int)-info);
    } else {
        /* vt is column-major: vh[i][j] = vt[i + j k] */
        for (int64_t i = 0; i < k; i++) {
            double r = sqrt(s[i]);
            for (int64_t j = 0; j < k; j++)
                f[i * k + j] = r * vt[i + j * k];
        }
        bool ok = true;
        for (int64_t i = 0; i < k && ok; i++)
            for (int64_t j = 0; j < k && ok; j++) {
                double x = 0.0;
                for (int64_t l = 0; l < k; l++)
                    x += vt[l + i * k] * s[l] * vt[l + j * k];
                double y = cov[i * k + j];
                ok = fabs(x - y) <= tol + tol * fabs(y);
            }
        *psd = ok;
    }
    free(work);
    free(iw);
    free(vt);
    free(u);
    free(s);
    free(a);
    return rc;
}
