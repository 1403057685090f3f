/* random2.c: numpy's distributions beyond rand, randn, randint, uniform and
 * normal, chunk-invariant as those are (random.c).
 *
 * Rejection samplers draw a data-dependent number of uniforms, so each
 * element has a stream of its own: element e's draws are the Philox4x32-10
 * blocks (lo32(e), hi32(e), stream, j) for j = 0, 1, ..., each giving two
 * 64-bit words, under the seed as key (stream: a number of each op from 16
 * on, apart from random.c's 0..2; beta's second gamma uses j from 2^31). A value so depends
 * on the seed, the tensor's shape and the element's position only.
 *
 *   exponential  -scale ln(u), u uniform on (0, 1)
 *   lognormal    exp(mean + sigma z), z standard normal (Box-Muller)
 *   gamma        Marsaglia and Tsang (2000) for shape >= 1; for shape < 1,
 *                gamma(shape + 1) u^(1 / shape); times scale
 *   beta         X / (X + Y) with X, Y gamma(a), gamma(b); when a or b is
 *                below 1, in logarithms (small shapes underflow to 0)
 *   chisquare    2 gamma(df / 2)
 *   standard_t   z / sqrt(chisquare(df) / df)
 *   poisson      lam < 10: products of uniforms (Knuth); else PTRS
 *                (Hoermann 1993, transformed rejection with squeeze)
 *   binomial     n min(p, 1 - p) < 10: inversion; else BTRS (Hoermann
 *                1993); p > 1/2 as n - binomial(n, 1 - p)
 *
 * The samplers, and ln, exp and ln Gamma made of +, -, *, /, sqrt and floor
 * (no libm), are rand_math.h's, shared with the CUDA kernel: a value is the
 * same bit for bit wherever it is drawn, CPU or GPU, whatever the C library
 * (the normal's angle is cis_unit's of a word, u^(1/k) is exp(ln(u) / k)). */
#include <math.h>
#include <string.h>

#include "../rsample.h"
#include "kern_internal.h"
#include "rand_math.h"

int kern_random2_kind(op_t op)
{
    switch (op) {
    case OP_EXPONENTIAL:
        return RM_EXPONENTIAL;
    case OP_POISSON:
        return RM_POISSON;
    case OP_BINOMIAL:
        return RM_BINOMIAL;
    case OP_GAMMA:
        return RM_GAMMA;
    case OP_BETA:
        return RM_BETA;
    case OP_LOGNORMAL:
        return RM_LOGNORMAL;
    case OP_STANDARD_T:
        return RM_STANDARD_T;
    case OP_CHISQUARE:
        return RM_CHISQUARE;
    default:
        return -1;
    }
}

typedef struct {
    const kern_gen_t *g;
    arr_t *out;
} r2_ctx_t;

static void seg(void *vc, int64_t e0, int64_t l0, int64_t len)
{
    r2_ctx_t *c = vc;
    const kern_gen_t *g = c->g;
    int kind = kern_random2_kind(g->op);
    double a = sc_as_double(g->loc), b = sc_as_double(g->scale);
    for (int64_t i = 0; i < len; i++) {
        int64_t e = e0 + i;
        if (g->op == OP_POISSON || g->op == OP_BINOMIAL) {
            ((int64_t *)c->out->data)[l0 + i] =
                rm_draw_i(kind, a, sc_as_double(g->high), g->low.i, g->seed, e);
        } else {
            double v = rm_draw_f(kind, a, b, g->seed, e);
            if (c->out->dt == DT_FLOAT32)
                ((float *)c->out->data)[l0 + i] = (float)v;
            else
                ((double *)c->out->data)[l0 + i] = v;
        }
    }
}

/* ---- rsample.h: choice, permutation, multinomial, multivariate_normal ----
 *
 * permutation(n) is a keyed bijection of [0, n): a six-round Feistel network
 * on 2h bits (4^h >= n) whose round function is splitmix64's finaliser of
 * the half xor a round key drawn from the seed, walked along its cycle
 * until the value falls inside [0, n) (Black and Rogaway's cycle walking).
 * Element i of the result is perm(i): every value is computed on its own,
 * so a permutation is generated chunk by chunk like any random op.
 * choice without replacement and without p is the permutation's first
 * `size` values; with p it ranks the population by Efraimidis and
 * Spirakis's keys ln(u_i) / p_i (the order of successive sampling, the
 * distribution numpy's draws have); with replacement it is a uniform
 * integer per element, or with p the first cumulative sum above a uniform
 * (numpy's searchsorted side='right'). multinomial draws a row's counts as
 * numpy does, by binomials on what is left; multivariate_normal is
 * mean + z F, z a row of k normals, F numpy's factor (graph_rsample.c).
 * Rows have a stream each; a chunk that splits a row computes it whole. */

static uint64_t mix64(uint64_t z)
{
    z += UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

#define PERM_ROUNDS 6

typedef struct {
    uint64_t key[PERM_ROUNDS], mask, n;
    int h;
} perm_t;

static void perm_init(perm_t *p, uint64_t seed, uint64_t n, uint32_t stream)
{
    int b = 2;
    while (b < 64 && (UINT64_C(1) << b) < n)
        b += 2;
    p->h = b / 2;
    p->mask = (UINT64_C(1) << p->h) - 1;
    p->n = n;
    for (int r = 0; r < PERM_ROUNDS; r++)
        p->key[r] = mix64(seed ^ mix64((uint64_t)stream << 32 | (uint64_t)r));
}

static uint64_t perm_at(const perm_t *p, uint64_t x)
{
    do {
        uint64_t l = x >> p->h, r = x & p->mask;
        for (int k = 0; k < PERM_ROUNDS; k++) {
            uint64_t t = l ^ (mix64(r ^ p->key[k]) & p->mask);
            l = r;
            r = t;
        }
        x = l << p->h | r;
    } while (x >= p->n);
    return x;
}

typedef struct {
    double key;
    int64_t i;
} rank_t;

static int rank_cmp(const void *a, const void *b)
{
    const rank_t *x = a, *y = b;
    if (x->key != y->key) return x->key > y->key ? -1 : 1; /* largest first */
    return x->i < y->i ? -1 : x->i > y->i;
}

typedef struct {
    const kern_gen_t *g;
    arr_t *out;
    int64_t pop, flags, k;
    const double *cdf;   /* choice with p */
    const uint64_t *val; /* choice, permutation: values (8-byte slots) */
    perm_t perm;
    int64_t *order; /* choice without replacement, with p: the ranked population */
    int64_t row;    /* multinomial, multivariate_normal: the cached row */
    void *cache;
} rs_ctx_t;

static void put_slot(arr_t *o, int64_t l, uint64_t bits)
{
    switch (o->dt) {
    case DT_FLOAT64:
    case DT_INT64:
        ((uint64_t *)o->data)[l] = bits;
        break;
    case DT_BOOL:
        ((uint8_t *)o->data)[l] = bits != 0;
        break;
    default:
        break;
    }
}

static int64_t choice_index(rs_ctx_t *c, int64_t e)
{
    const kern_gen_t *g = c->g;
    rm_est_t s;
    if (c->flags & RS_REPLACE) {
        rm_est_init(&s, g->seed, 26, e, 0);
        if (!(c->flags & RS_P))
            return (int64_t)(((unsigned __int128)rm_word(&s) * (uint64_t)c->pop) >> 64);
        double u = rm_uni(&s);
        int64_t lo = 0, hi = c->pop; /* the first cdf[i] > u */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (c->cdf[mid] > u)
                hi = mid;
            else
                lo = mid + 1;
        }
        return lo < c->pop ? lo : c->pop - 1;
    }
    if (c->order) return c->order[e];
    return (int64_t)perm_at(&c->perm, (uint64_t)e);
}

static void rs_row(rs_ctx_t *c, int64_t row)
{
    const kern_gen_t *g = c->g;
    const double *t = g->data;
    int64_t k = c->k;
    rm_est_t s;
    if (g->op == OP_MULTINOMIAL) {
        int64_t *x = c->cache, left = g->low.i;
        double rem = 1.0;
        rm_est_init(&s, g->seed, 24, row, 0);
        for (int64_t j = 0; j < k; j++)
            x[j] = 0;
        for (int64_t j = 0; j + 1 < k; j++) {
            double p = rem > 0 ? t[j] / rem : 1.0;
            p = p < 0 ? 0 : p > 1 ? 1 : p;
            int64_t d =
                p > 0.5 ? left - rm_binomial_low(&s, left, 1.0 - p) : rm_binomial_low(&s, left, p);
            x[j] = d;
            left -= d;
            if (left <= 0) break;
            rem -= t[j];
        }
        if (left > 0) x[k - 1] = left;
    } else {
        double *x = c->cache, *z = x + k;
        rm_est_init(&s, g->seed, 25, row, 0);
        for (int64_t i = 0; i < k; i++)
            z[i] = rm_normal(&s);
        for (int64_t j = 0; j < k; j++)
            x[j] = t[j];
        for (int64_t i = 0; i < k; i++)
            for (int64_t j = 0; j < k; j++)
                x[j] += z[i] * t[k + i * k + j];
    }
    c->row = row;
}

static void rs_seg(void *vc, int64_t e0, int64_t l0, int64_t len)
{
    rs_ctx_t *c = vc;
    const kern_gen_t *g = c->g;
    for (int64_t i = 0; i < len; i++) {
        int64_t e = e0 + i, l = l0 + i;
        switch (g->op) {
        case OP_CHOICE: {
            int64_t ix = choice_index(c, e);
            put_slot(c->out, l, c->val ? c->val[ix] : (uint64_t)ix);
            break;
        }
        case OP_PERMUTATION: {
            int64_t row = e / c->k, col = e % c->k;
            int64_t src = (int64_t)perm_at(&c->perm, (uint64_t)row);
            put_slot(c->out, l, c->val ? c->val[src * c->k + col] : (uint64_t)src);
            break;
        }
        default: {
            int64_t row = e / c->k;
            if (row != c->row) rs_row(c, row);
            uint64_t bits;
            memcpy(&bits, (const char *)c->cache + (e % c->k) * 8, 8);
            put_slot(c->out, l, bits);
            break;
        }
        }
    }
}

static void rs_fill(const kern_gen_t *g, const int64_t *off, arr_t *out)
{
    rs_ctx_t c = {.g = g, .out = out, .row = -1, .k = 1};
    const double *t = g->data;
    switch (g->op) {
    case OP_CHOICE:
        c.pop = g->low.i;
        c.flags = g->high.i;
        if (c.flags & RS_P) c.cdf = t;
        if (c.flags & RS_VALUES) c.val = (const uint64_t *)(t + (c.flags & RS_P ? c.pop : 0));
        if (!(c.flags & RS_REPLACE) && (c.flags & RS_P)) {
            /* rank the population; the result is its first elements */
            rank_t *r = kern_xmalloc(sizeof *r * (size_t)(c.pop ? c.pop : 1));
            int64_t m = 0;
            for (int64_t i = 0; i < c.pop; i++) {
                if (!(t[i] > 0)) continue;
                rm_est_t s;
                rm_est_init(&s, g->seed, 28, i, 0);
                r[m].key = rm_log(rm_uni(&s)) / t[i];
                r[m++].i = i;
            }
            qsort(r, (size_t)m, sizeof *r, rank_cmp);
            c.order = kern_xmalloc(sizeof(int64_t) * (size_t)(m ? m : 1));
            for (int64_t i = 0; i < m; i++)
                c.order[i] = r[i].i;
            free(r);
        } else if (!(c.flags & RS_REPLACE)) {
            perm_init(&c.perm, g->seed, (uint64_t)c.pop, 27);
        }
        break;
    case OP_PERMUTATION:
        c.pop = g->low.i;
        if (g->high.i & RS_VALUES) c.val = (const uint64_t *)t;
        for (int d = 1; d < g->shape.ndim; d++)
            c.k *= g->shape.d[d];
        if (c.k == 0) c.k = 1;
        perm_init(&c.perm, g->seed, (uint64_t)c.pop, 29);
        break;
    default: /* multinomial, multivariate_normal: rows of the last axis */
        c.k = g->shape.d[g->shape.ndim - 1];
        if (c.k == 0) return;
        c.cache = kern_xmalloc(sizeof(double) * (size_t)(2 * c.k));
        break;
    }
    kern_for_each_segment(&out->shape, &g->shape, off, rs_seg, &c);
    free(c.order);
    free(c.cache);
}

bool kern_random2(const kern_gen_t *g, const int64_t *off, arr_t *out)
{
    switch (g->op) {
    case OP_EXPONENTIAL:
    case OP_POISSON:
    case OP_BINOMIAL:
    case OP_GAMMA:
    case OP_BETA:
    case OP_LOGNORMAL:
    case OP_STANDARD_T:
    case OP_CHISQUARE:
        break;
    case OP_CHOICE:
    case OP_PERMUTATION:
    case OP_MULTINOMIAL:
    case OP_MULTIVARIATE_NORMAL:
        rs_fill(g, off, out);
        return true;
    default:
        return false;
    }
    r2_ctx_t c = {.g = g, .out = out};
    kern_for_each_segment(&out->shape, &g->shape, off, seg, &c);
    return true;
}
