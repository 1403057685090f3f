/* la.h: the kernels of the linalg branch's jobs (JK_LA), on LAPACK and
 * CBLAS from OpenBLAS. Every job's step is param->la_step. */
#ifndef MARS_KERN_LA_H
#define MARS_KERN_LA_H

#include <stddef.h>

#include "../tile.h"

typedef enum {
    LS_WHOLE,  /* the node's op on whole inputs (single-block paths) */
    LS_POTRF,  /* cholesky: in [A_kk]; out L_kk */
    LS_TRSM,   /* cholesky: in [A_ik, L_kk]; out A_ik L_kk^-T */
    LS_UPDATE, /* cholesky: in [A_ij, L_ik, L_jk]; out A_ij - L_ik L_jkᵀ */
    LS_ZERO,   /* zeros (cholesky's upper blocks) */
    LS_TRI,    /* tril/triu of a chunk at job.off (last two axes); a 1-D input
                * broadcast against the rows */
    LS_TRACE,  /* in: diagonal segments (lead..., t); out[lead] = their sum */
    LS_DIAG,   /* diag of a vector into the chunk at job.off = (r0, c0, i0);
                * in: v[i0 ...] (or none) */
    LS_SUMSQ,  /* in: a chunk; out: float64 [1], the sum of its squares */
    LS_NORM2,  /* in: LS_SUMSQ partials; out: the square root of their sum */
    /* la2.h: qr, svd, eigh, slogdet. "Packed" outputs are flat float64
     * buffers that the results' gathers slice. */
    LS_QR_LOCAL,  /* in: a row block A_i (m_i x n, m_i >= n); out: [R_i (n x n); Q_i (m_i x n)] */
    LS_QR_MERGE,  /* in: the LS_QR_LOCAL outputs (their R_i read); out: [R (n x n); Q2 (p n x n)] */
    LS_QR_APPLY,  /* in: [local_i, merge]; job.off[0] = i; out: Q_i Q2[i n : (i + 1) n] (m_i x n) */
    LS_SVD_R,     /* in: the merge (R first); out: [s (n); U_r (n x n); Vh (n x n)] */
    LS_SVD_U,     /* in: [Q block (m_i x n), LS_SVD_R's]; out: Q block U_r */
    LS_LA2_WHOLE, /* in: the whole matrix; out: the op's results packed (kern/la2.c) */
} la_step_t;

/* kern/la2.c */
int la2_exec(const job_t *j, const graph_node_t *node, const arr_t *ins, arr_t *o, char *err,
             size_t errlen);

/* kern/la2.c: random.multivariate_normal's factor, as numpy makes it:
 * (u, s, vh) = svd(cov); F = sqrt(s)[:, None] * vh (k x k, row-major, into
 * f); *psd = allclose(vh.T * s @ vh, cov, rtol=tol, atol=tol). cov is
 * row-major k x k. 0, or -1 with a message. */
int kern_cov_factor(const double *cov, int64_t k, double tol, double *f, bool *psd, char *err,
                    size_t errlen);

/* Runs JK_LA job j: 0, or -1 with a message (numpy's LinAlgError text:
 * "Singular matrix", "Matrix is not positive definite"). */
int la_exec(const tile_t *t, const job_t *j, const arr_t *ins, arr_t *out, char *err,
            size_t errlen);

#endif
