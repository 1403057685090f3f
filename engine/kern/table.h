/* table.h: the matrix-product primitives behind a table, per dtype, as BLIS
 * fills its context: reference C loops for every dtype first (ref.c), then
 * OpenBLAS over them for float32 and float64 (blas.c). The framework around
 * them (tensordot's axis pairing, matmul's batches, linalg.c) is plain C and
 * reaches them only through kern_table(). Internal to engine/kern. */
#ifndef MARS_KERN_TABLE_H
#define MARS_KERN_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "../dtype.h"

/* C (M x N, row-major) = op(A) op(B), or C += with acc. A is M x K stored as
 * M x K, or as K x M when ta; B is K x N, or N x K when tb. M, N, K > 0. */
typedef void (*kern_gemm_fn)(int64_t M, int64_t N, int64_t K, const void *A, bool ta, const void *B,
                             bool tb, bool acc, void *C);
/* C (M x M) = A Aᵀ for A (M x K), or C += with acc; the whole of C is
 * written, whatever it held. M, K > 0. */
typedef void (*kern_syrk_fn)(int64_t M, int64_t K, const void *A, bool acc, void *C);

typedef struct {
    kern_gemm_fn gemm[DT_NTYPES];
    kern_syrk_fn syrk[DT_NTYPES];
    const char *impl[DT_NTYPES]; /* "reference" or "openblas", for --stats and tests */
} kern_table_t;

/* The table in use, filled once on first use: the reference loops, then
 * OpenBLAS over them unless the environment says MARS_KERNELS=reference. */
const kern_table_t *kern_table(void);

void kern_ref_fill(kern_table_t *t);
void kern_blas_fill(kern_table_t *t);

#endif
