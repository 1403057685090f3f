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
} la_step_t;

/* Runs JK_LA job j: 0, or -1 with a message (numpy's LinAlgError text:
 * "Singular matrix", "Matrix is not positive definite"). */
int la_exec(const tile_t *t, const job_t *j, const arr_t *ins, arr_t *out, char *err,
            size_t errlen);

#endif
