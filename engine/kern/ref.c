/* ref.c: the reference matrix products, plain loops for every dtype with
 * numpy's semantics: integers wrap (accumulated in the unsigned type of the
 * same width, since signed overflow is undefined in C), bool is the OR of
 * ANDs. Floats sum in order; OpenBLAS replaces them for speed (blas.c). */
#include <string.h>

#include "table.h"

/* Element (i, k) of op(A) is A[i*K + k] untransposed
 * and A[k*M + i] transposed; (k, j) of op(B) is B[k*N + j] or B[j*K + k].
 * With B untransposed the loop order is i-k-j (unit stride over C and B);
 * with B transposed it is i-j-k, a dot product of two unit-stride rows when
 * A is untransposed. Integers are accumulated in the unsigned type of the
 * same width: signed overflow is undefined in C, numpy wraps. */
#define DEF_GEMM_LOOP(NAME, UT, SKIP_ZERO)                                                         \
    static void NAME(int64_t M, int64_t N, int64_t K, const void *Av, bool ta, const void *Bv,     \
                     bool tb, bool acc, void *Cv)                                                  \
    {                                                                                              \
        const UT *A = Av, *B = Bv;                                                                 \
        UT *C = Cv;                                                                                \
        if (!acc) memset(C, 0, (size_t)(M * N) * sizeof(UT));                                      \
        for (int64_t i = 0; i < M; i++) {                                                          \
            UT *c = C + i * N;                                                                     \
            if (tb) {                                                                              \
                for (int64_t j = 0; j < N; j++) {                                                  \
                    const UT *b = B + j * K;                                                       \
                    UT s = 0;                                                                      \
                    if (!ta) {                                                                     \
                        const UT *a = A + i * K;                                                   \
                        for (int64_t k = 0; k < K; k++)                                            \
                            s += a[k] * b[k];                                                      \
                    } else {                                                                       \
                        for (int64_t k = 0; k < K; k++)                                            \
                            s += A[k * M + i] * b[k];                                              \
                    }                                                                              \
                    c[j] += s;                                                                     \
                }                                                                                  \
            } else {                                                                               \
                for (int64_t k = 0; k < K; k++) {                                                  \
                    UT aik = ta ? A[k * M + i] : A[i * K + k];                                     \
                    if (SKIP_ZERO && aik == 0) continue;                                           \
                    const UT *b = B + k * N;                                                       \
                    for (int64_t j = 0; j < N; j++)                                                \
                        c[j] += aik * b[j];                                                        \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

/* Integers may skip zero factors; floats may not (0 * NaN is NaN). */
DEF_GEMM_LOOP(gemm_u32, uint32_t, 1)
DEF_GEMM_LOOP(gemm_u64, uint64_t, 1)
DEF_GEMM_LOOP(gemm_f32, float, 0)
DEF_GEMM_LOOP(gemm_f64, double, 0)

/* Bools are read as bytes (any non-zero byte is true) and written as 0/1:
 * numpy's bool dot is any(a[i, :] & b[:, j]); accumulating ORs it in. */
static void gemm_bool(int64_t M, int64_t N, int64_t K, const void *Av, bool ta, const void *Bv,
                      bool tb, bool acc, void *Cv)
{
    const uint8_t *A = Av, *B = Bv;
    uint8_t *C = Cv;
    if (!acc) memset(C, 0, (size_t)(M * N));
    for (int64_t i = 0; i < M; i++) {
        uint8_t *c = C + i * N;
        if (tb) {
            for (int64_t j = 0; j < N; j++) {
                const uint8_t *b = B + j * K;
                uint8_t s = c[j] != 0;
                for (int64_t k = 0; k < K && !s; k++)
                    s = (ta ? A[k * M + i] : A[i * K + k]) && b[k];
                c[j] = s;
            }
        } else {
            for (int64_t j = 0; j < N; j++)
                c[j] = c[j] != 0;
            for (int64_t k = 0; k < K; k++) {
                if (!(ta ? A[k * M + i] : A[i * K + k])) continue;
                const uint8_t *b = B + k * N;
                for (int64_t j = 0; j < N; j++)
                    c[j] |= b[j] != 0;
            }
        }
    }
}

/* Integer and bool syrk: each dot product of rows i <= j is computed once
 * and added to both (i, j) and (j, i), which is exact under accumulate
 * whatever out held. */
#define DEF_SYRK_LOOP(NAME, UT)                                                                    \
    static void NAME(int64_t m, int64_t k, const void *av, bool acc, void *cv)                     \
    {                                                                                              \
        const UT *a = av;                                                                          \
        UT *c = cv;                                                                                \
        if (!acc) memset(c, 0, (size_t)(m * m) * sizeof(UT));                                      \
        for (int64_t i = 0; i < m; i++)                                                            \
            for (int64_t j = i; j < m; j++) {                                                      \
                UT s = 0;                                                                          \
                for (int64_t t = 0; t < k; t++)                                                    \
                    s += a[i * k + t] * a[j * k + t];                                              \
                c[i * m + j] += s;                                                                 \
                if (j != i) c[j * m + i] += s;                                                     \
            }                                                                                      \
    }

DEF_SYRK_LOOP(syrk_u32, uint32_t)
DEF_SYRK_LOOP(syrk_u64, uint64_t)
DEF_SYRK_LOOP(syrk_f32, float)
DEF_SYRK_LOOP(syrk_f64, double)

static void syrk_bool(int64_t m, int64_t k, const void *av, bool acc, void *cv)
{
    const uint8_t *a = av;
    uint8_t *c = cv;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = i; j < m; j++) {
            uint8_t s = 0;
            for (int64_t t = 0; t < k && !s; t++)
                s = a[i * k + t] && a[j * k + t];
            c[i * m + j] = s || (acc && c[i * m + j]);
            if (j != i) c[j * m + i] = s || (acc && c[j * m + i]);
        }
}

void kern_ref_fill(kern_table_t *t)
{
    static const kern_gemm_fn gemm[DT_NTYPES] = {[DT_BOOL] = gemm_bool,
                                                 [DT_INT32] = gemm_u32,
                                                 [DT_INT64] = gemm_u64,
                                                 [DT_FLOAT32] = gemm_f32,
                                                 [DT_FLOAT64] = gemm_f64};
    static const kern_syrk_fn syrk[DT_NTYPES] = {[DT_BOOL] = syrk_bool,
                                                 [DT_INT32] = syrk_u32,
                                                 [DT_INT64] = syrk_u64,
                                                 [DT_FLOAT32] = syrk_f32,
                                                 [DT_FLOAT64] = syrk_f64};
    for (int d = 0; d < DT_NTYPES; d++) {
        t->gemm[d] = gemm[d];
        t->syrk[d] = syrk[d];
        t->impl[d] = "reference";
    }
}
