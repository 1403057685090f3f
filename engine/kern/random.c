/* random.c: counter-based random tensors with Philox4x32-10 (Salmon, Moraes,
 * Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC 2011).
 *
 * The key is the 64-bit seed; the counter of element e (its flat C-order
 * index in the whole tensor) is the block e / 2 = (lo32, hi32, stream, 0),
 * stream 0 for rand and uniform, 1 for randn and normal, 2 for randint, and
 * the block's 128 output bits give element 2b the 64-bit word (x0 | x1 << 32)
 * and element 2b + 1 the word (x2 | x3 << 32). A value so depends on the
 * seed, the tensor's shape and the element's position, never on chunking.
 *
 *   rand      (w >> 11) * 2^-53, uniform on [0, 1)
 *   uniform   low + (high - low) * rand
 *   randn     Box-Muller over the block's two words: u1 = ((w0 >> 11) + 1)
 *             * 2^-53 in (0, 1] (no log(0)), u2 = (w1 >> 11) * 2^-53;
 *             r = sqrt(-2 ln u1), element 2b gets r cos(2 pi u2), element
 *             2b + 1 r sin(2 pi u2). ln, cos and sin are polynomials in
 *             plain arithmetic (below), so the loop vectorises and the bits
 *             do not depend on the machine's libm or vector width.
 *   normal    loc + scale * randn
 *   randint   low + floor(w * (high - low) / 2^64) (Lemire's multiply-high,
 *             without rejection: bias below (high - low) / 2^64) */
#include "level.h" /* first: renames the external functions per CPU level */
#include <math.h>
#include <string.h>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "../cast.h"
#include "kern_internal.h"
#include "rand_math.h"

void kern_philox4x32_10(uint32_t ctr[4], const uint32_t key[2])
{
    philox4x32_10(ctr, key[0], key[1]);
}

/* Philox blocks per batch: 256 blocks (4 KiB of output words) amortise the
 * per-batch set-up and stay in L1 with the float values made from them. */
#define PB 256
/* A short batch is rounded up to this many blocks: a whole number of the
 * AVX2 generator's steps (four blocks per vector, two vectors in flight). */
#define PB_STEP 8

#if defined(__AVX2__)

/* Vectors (of four blocks) in flight: two hide vpmuludq's latency; four or
 * more spill the sixteen ymm registers (measured slower). */
#define PG 2

/* Writes the words of blocks b0 .. b0 + PB - 1 into w[0 .. 2 * PB): the
 * rounds of kern_philox4x32_10 on four blocks per vector, PG vectors in
 * flight, every round in registers. Each 64-bit lane holds one 32-bit word,
 * so the 32x32->64 multiplies are single vpmuludq instructions. */
static void philox_batch(uint64_t b0, uint32_t k0, uint32_t k1, uint32_t stream, int nb,
                         uint64_t *restrict w)
{
    const __m256i m0 = _mm256_set1_epi64x((long long)PHILOX_M0);
    const __m256i m1 = _mm256_set1_epi64x((long long)PHILOX_M1);
    const __m256i low = _mm256_set1_epi64x(0xffffffffLL);
    __m256i ka[10], kb[10];
    uint32_t a = k0, b = k1;
    for (int r = 0; r < 10; r++) {
        ka[r] = _mm256_set1_epi64x(a);
        kb[r] = _mm256_set1_epi64x(b);
        a += PHILOX_W0;
        b += PHILOX_W1;
    }
    for (int i = 0; i < nb; i += 4 * PG) {
        __m256i x0[PG], x1[PG], x2[PG], x3[PG];
        for (int g = 0; g < PG; g++) {
            uint64_t c = b0 + (uint64_t)(i + 4 * g);
            __m256i cv = _mm256_set_epi64x((long long)(c + 3), (long long)(c + 2),
                                           (long long)(c + 1), (long long)c);
            x0[g] = _mm256_and_si256(cv, low);
            x1[g] = _mm256_srli_epi64(cv, 32);
            x2[g] = _mm256_set1_epi64x((long long)stream);
            x3[g] = _mm256_setzero_si256();
        }
        for (int r = 0; r < 10; r++) {
            for (int g = 0; g < PG; g++) {
                __m256i p0 = _mm256_mul_epu32(x0[g], m0), p1 = _mm256_mul_epu32(x2[g], m1);
                x0[g] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), x1[g]), ka[r]);
                x2[g] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), x3[g]), kb[r]);
                x1[g] = _mm256_and_si256(p1, low);
                x3[g] = _mm256_and_si256(p0, low);
            }
        }
        for (int g = 0; g < PG; g++) {
            /* block words (x0 | x1 << 32) and (x2 | x3 << 32), interleaved */
            __m256i wa = _mm256_or_si256(x0[g], _mm256_slli_epi64(x1[g], 32));
            __m256i wb = _mm256_or_si256(x2[g], _mm256_slli_epi64(x3[g], 32));
            __m256i lo = _mm256_unpacklo_epi64(wa, wb), hi = _mm256_unpackhi_epi64(wa, wb);
            uint64_t *o = w + 2 * (i + 4 * g);
            _mm256_storeu_si256((__m256i *)(void *)o, _mm256_permute2x128_si256(lo, hi, 0x20));
            _mm256_storeu_si256((__m256i *)(void *)(o + 4),
                                _mm256_permute2x128_si256(lo, hi, 0x31));
        }
    }
}
#else
static void philox_batch(uint64_t b0, uint32_t k0, uint32_t k1, uint32_t stream, int nb,
                         uint64_t *restrict w)
{
    for (int i = 0; i < nb; i++) {
        uint64_t c = b0 + (uint64_t)i;
        uint32_t ctr[4] = {(uint32_t)c, (uint32_t)(c >> 32), stream, 0}, key[2] = {k0, k1};
        kern_philox4x32_10(ctr, key);
        w[2 * i] = (uint64_t)ctr[0] | (uint64_t)ctr[1] << 32;
        w[2 * i + 1] = (uint64_t)ctr[2] | (uint64_t)ctr[3] << 32;
    }
}
#endif

typedef struct {
    const kern_gen_t *n;
    arr_t *out;
    uint32_t k0, k1, stream;
    double a, b;                  /* uniform: low, high - low; normal: loc, scale */
    int64_t ilow;                 /* randint */
    uint64_t range;               /* randint: high - low */
    uint64_t w[2 * PB];           /* words of one batch */
    double v[2 * PB];             /* float values of one batch */
    double t[PB], cs[PB], sn[PB]; /* Box-Muller: -2 ln u1, cos and sin */
} rnd_ctx_t;

/* r = sqrt(t): with the default -fmath-errno the compiler keeps sqrt()
 * scalar; the instruction gives the same IEEE result. */
static void sqrt_block(double *r, const double *t, int n)
{
    int i = 0;
#if defined(__AVX__)
    for (; i + 4 <= n; i += 4)
        _mm256_storeu_pd(r + i, _mm256_sqrt_pd(_mm256_loadu_pd(t + i)));
#endif
    for (; i < n; i++)
        r[i] = sqrt(t[i]);
}

/* Float values of the batch's 2 * nb elements into v. */
static void float_values(rnd_ctx_t *c, op_t op, int nb, double *restrict v)
{
    const uint64_t *restrict w = c->w;
    if (op == OP_RANDN || op == OP_NORMAL) {
        double *restrict t = c->t, *restrict cs = c->cs, *restrict sn = c->sn;
        for (int i = 0; i < nb; i++) {
            /* u1 in (0, 1]: no log(0) */
            t[i] = -2.0 * log_pos(unit53(w[2 * i]) + 0x1p-53);
            cis_unit(w[2 * i + 1], &cs[i], &sn[i]);
        }
        sqrt_block(t, t, nb);
        for (int i = 0; i < nb; i++) {
            v[2 * i] = t[i] * cs[i];
            v[2 * i + 1] = t[i] * sn[i];
        }
    } else {
        for (int i = 0; i < 2 * nb; i++)
            v[i] = unit53(w[i]);
    }
    if (op == OP_UNIFORM || op == OP_NORMAL) {
        double a = c->a, b = c->b;
        for (int i = 0; i < 2 * nb; i++)
            v[i] = a + b * v[i];
    }
}

/* Elements [e0, e0 + len) of the tensor, written at local index l0. */
static void random_seg(void *vc, int64_t e0, int64_t l0, int64_t len)
{
    rnd_ctx_t *c = vc;
    op_t op = c->n->op;
    dtype_t dt = c->out->dt;
    int64_t end = e0 + len;
    for (int64_t base = e0 & ~(int64_t)1; base < end; base += 2 * PB) {
        /* only the blocks this segment needs (narrow chunks have short
         * segments), rounded up to the generator's vector width */
        int64_t need = (end - base + 1) / 2;
        int nb = need >= PB ? PB : (int)((need + PB_STEP - 1) / PB_STEP * PB_STEP);
        philox_batch((uint64_t)base / 2, c->k0, c->k1, c->stream, nb, c->w);
        /* this batch covers elements [base, base + 2 PB) */
        int64_t lo = base > e0 ? base : e0;
        int64_t hi = base + 2 * PB < end ? base + 2 * PB : end;
        int64_t k = lo - base, cnt = hi - lo;
        int64_t dst = l0 + (lo - e0);
        if (op == OP_RANDINT) {
            const uint64_t *restrict w = c->w + k;
            uint64_t low = (uint64_t)c->ilow, range = c->range;
            if (dt == DT_INT32) {
                int32_t *restrict o = (int32_t *)c->out->data + dst;
                for (int64_t i = 0; i < cnt; i++)
                    o[i] = (int32_t)(uint32_t)(low +
                                               (uint64_t)(((unsigned __int128)w[i] * range) >> 64));
            } else if (dt_is_small(dt)) {
                for (int64_t i = 0; i < cnt; i++)
                    dt_store_u64(dt, c->out->data, dst + i,
                                 low + (uint64_t)(((unsigned __int128)w[i] * range) >> 64));
            } else {
                int64_t *restrict o = (int64_t *)c->out->data + dst;
                for (int64_t i = 0; i < cnt; i++)
                    o[i] = (int64_t)(low + (uint64_t)(((unsigned __int128)w[i] * range) >> 64));
            }
            continue;
        }
        if (dt == DT_FLOAT64 && cnt == 2 * PB) { /* the whole batch: no copy */
            float_values(c, op, PB, (double *)c->out->data + dst);
            continue;
        }
        float_values(c, op, nb, c->v);
        if (dt == DT_FLOAT32) {
            float *restrict o = (float *)c->out->data + dst;
            for (int64_t i = 0; i < cnt; i++)
                o[i] = (float)c->v[k + i];
        } else {
            memcpy((double *)c->out->data + dst, c->v + k, (size_t)cnt * sizeof(double));
        }
    }
}

void kern_random(const kern_gen_t *n, const int64_t *off, arr_t *out)
{
    if (kern_random2(n, off, out)) return;
    rnd_ctx_t *c = kern_xmalloc(sizeof *c);
    c->n = n;
    c->out = out;
    c->k0 = (uint32_t)n->seed;
    c->k1 = (uint32_t)(n->seed >> 32);
    /* uniform draws (rand, uniform), normal draws (randn, normal) and
     * integers each have their own stream, so that ops of one seed are
     * independent of each other */
    c->stream = n->op == OP_RANDN || n->op == OP_NORMAL ? 1u : n->op == OP_RANDINT ? 2u : 0u;
    c->a = 0;
    c->b = 1;
    c->ilow = 0;
    c->range = 0;
    switch (n->op) {
    case OP_UNIFORM: {
        double low = sc_as_double(n->low), high = sc_as_double(n->high);
        c->a = low;
        c->b = high - low;
        break;
    }
    case OP_NORMAL:
        c->a = sc_as_double(n->loc);
        c->b = sc_as_double(n->scale);
        break;
    case OP_RANDINT: {
        int64_t low = n->low.kind == SC_INT ? n->low.i : cast_f64_i64(sc_as_double(n->low));
        int64_t high = n->high.kind == SC_INT ? n->high.i : cast_f64_i64(sc_as_double(n->high));
        c->ilow = low;
        c->range = (uint64_t)high - (uint64_t)low;
        break;
    }
    default:
        break;
    }
    kern_for_each_segment(&out->shape, &n->shape, off, random_seg, c);
    free(c);
}
