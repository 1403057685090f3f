/* blas.c: float32 and float64 matrix products on OpenBLAS, filled into the
 * kernel table over the reference loops (table.h). */
#include <cblas.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern_internal.h"
#include "table.h"

/* This OpenBLAS takes 32-bit dimensions. The tiler keeps a chunk far below
 * 2^31 elements, so a flattened dimension never reaches INT_MAX; a caller
 * breaking that invariant must fail loudly rather than get a truncated
 * product. */
static blasint to_blasint(int64_t v)
{
    if (v > INT_MAX) {
        fprintf(stderr, "kern: matrix dimension %lld exceeds the BLAS index range\n", (long long)v);
        abort();
    }
    return (blasint)v;
}

/* The float gemm on OpenBLAS; matrix-vector shapes go to gemv. */
#define DEF_GEMM_BLAS(NAME, DT)                                                                    \
    static void NAME(int64_t M, int64_t N, int64_t K, const void *A, bool ta, const void *B,       \
                     bool tb, bool acc, void *C)                                                   \
    {                                                                                              \
        blas_gemm(DT, M, N, K, A, ta, B, tb, acc, C);                                              \
    }

static void blas_gemm(dtype_t dt, int64_t M, int64_t N, int64_t K, const void *A, bool ta,
                      const void *B, bool tb, bool acc, void *C)
{
    blasint m = to_blasint(M), n = to_blasint(N), k = to_blasint(K);
    blasint lda = ta ? m : k, ldb = tb ? k : n;
    enum CBLAS_TRANSPOSE tA = ta ? CblasTrans : CblasNoTrans;
    enum CBLAS_TRANSPOSE tB = tb ? CblasTrans : CblasNoTrans;
    if (N == 1 || M == 1) {
        /* Matrix-vector products are memory-bound: gemv streams the matrix
         * once. Both vectors are contiguous whatever the flags (a 1 x K or
         * K x 1 matrix is K consecutive values). y is zeroed first so that
         * beta = 0 never depends on how BLAS scales NaNs. */
        if (!acc) memset(C, 0, (size_t)(M * N) * dt_size(dt));
        const void *mat = N == 1 ? A : B, *vec = N == 1 ? B : A;
        /* y = op(A) x: A stored (ta ? K x M : M x K). y = op(B)ᵀ x: B stored
         * (tb ? N x K : K x N), read transposed unless already transposed. */
        blasint rows = N == 1 ? (ta ? k : m) : (tb ? n : k);
        blasint cols = N == 1 ? (ta ? m : k) : (tb ? k : n);
        enum CBLAS_TRANSPOSE t = N == 1 ? tA : (tb ? CblasNoTrans : CblasTrans);
        if (dt == DT_FLOAT64)
            cblas_dgemv(CblasRowMajor, t, rows, cols, 1.0, mat, cols, vec, 1, 1.0, C, 1);
        else
            cblas_sgemv(CblasRowMajor, t, rows, cols, 1.0f, mat, cols, vec, 1, 1.0f, C, 1);
        return;
    }
    if (dt == DT_FLOAT64)
        cblas_dgemm(CblasRowMajor, tA, tB, m, n, k, 1.0, A, lda, B, ldb, acc ? 1.0 : 0.0, C, n);
    else
        cblas_sgemm(CblasRowMajor, tA, tB, m, n, k, 1.0f, A, lda, B, ldb, acc ? 1.0f : 0.0f, C, n);
}

DEF_GEMM_BLAS(gemm_f32, DT_FLOAT32)
DEF_GEMM_BLAS(gemm_f64, DT_FLOAT64)

/* Tiles of 64 x 64 elements keep both the rows read and the columns written
 * of a transpose within L1/L2 (64*64*8 = 32 KiB per tile). */
#define TILE 64

/* Copies the strict upper triangle of the m x m matrix c onto its lower. */
static void mirror_upper(void *c, int64_t m, size_t es)
{
    char *p = c;
    for (int64_t ib = 0; ib < m; ib += TILE)
        for (int64_t jb = ib; jb < m; jb += TILE)
            for (int64_t i = ib; i < ib + TILE && i < m; i++)
                for (int64_t j = jb > i + 1 ? jb : i + 1; j < jb + TILE && j < m; j++)
                    memcpy(p + (j * m + i) * (int64_t)es, p + (i * m + j) * (int64_t)es, es);
}

/* Whether c equals its transpose bit for bit (so that the mirror of an
 * updated upper triangle is also the updated lower one, NaNs included). */
static bool is_symmetric(const void *c, int64_t m, size_t es)
{
    const char *p = c;
    for (int64_t ib = 0; ib < m; ib += TILE)
        for (int64_t jb = ib; jb < m; jb += TILE)
            for (int64_t i = ib; i < ib + TILE && i < m; i++)
                for (int64_t j = jb > i + 1 ? jb : i + 1; j < jb + TILE && j < m; j++)
                    if (memcmp(p + (j * m + i) * (int64_t)es, p + (i * m + j) * (int64_t)es, es))
                        return false;
    return true;
}

static void syrk_blas(dtype_t dt, enum CBLAS_UPLO uplo, int64_t M, int64_t K, const void *a,
                      bool acc, void *c)
{
    blasint m = to_blasint(M), k = to_blasint(K);
    if (dt == DT_FLOAT64)
        cblas_dsyrk(CblasRowMajor, uplo, CblasNoTrans, m, k, 1.0, a, k, acc ? 1.0 : 0.0, c, m);
    else
        cblas_ssyrk(CblasRowMajor, uplo, CblasNoTrans, m, k, 1.0f, a, k, acc ? 1.0f : 0.0f, c, m);
}

static void blas_syrk(dtype_t dt, int64_t M, int64_t K, const void *A, bool acc, void *C)
{
    size_t es = dt_size(dt);
    if (!acc || is_symmetric(C, M, es)) {
        /* The common case (out was overwritten, or holds an earlier syrk
         * partial sum): update the upper triangle and mirror it. */
        syrk_blas(dt, CblasUpper, M, K, A, acc, C);
        mirror_upper(C, M, es);
    } else {
        /* out's triangles differ: update each with its own syrk, which costs
         * the flops of one gemm but adds into exactly what was there. Both
         * calls update the diagonal: keep the first call's. */
        char *c = C;
        char *diag = kern_xmalloc((size_t)M * es);
        syrk_blas(dt, CblasUpper, M, K, A, true, c);
        for (int64_t i = 0; i < M; i++)
            memcpy(diag + i * (int64_t)es, c + (i * M + i) * (int64_t)es, es);
        syrk_blas(dt, CblasLower, M, K, A, true, c);
        for (int64_t i = 0; i < M; i++)
            memcpy(c + (i * M + i) * (int64_t)es, diag + i * (int64_t)es, es);
        free(diag);
    }
}

static void syrk_f32(int64_t M, int64_t K, const void *A, bool acc, void *C)
{
    blas_syrk(DT_FLOAT32, M, K, A, acc, C);
}

static void syrk_f64(int64_t M, int64_t K, const void *A, bool acc, void *C)
{
    blas_syrk(DT_FLOAT64, M, K, A, acc, C);
}

void kern_blas_fill(kern_table_t *t)
{
    t->gemm[DT_FLOAT32] = gemm_f32;
    t->gemm[DT_FLOAT64] = gemm_f64;
    t->syrk[DT_FLOAT32] = syrk_f32;
    t->syrk[DT_FLOAT64] = syrk_f64;
    t->impl[DT_FLOAT32] = t->impl[DT_FLOAT64] = "openblas";
}
