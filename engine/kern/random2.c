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
 * ln, exp, pow and lgamma are libm's: the values are the same wherever the
 * same libm runs (the cluster's workers share one build), not necessarily
 * bit for bit across C libraries, unlike random.c's polynomials. */
#include <math.h>
#include <string.h>

#include "../rsample.h"
#include "kern_internal.h"

/* Each op's stream: fixed numbers, so that a seed keeps its values. */
static uint32_t op_stream(op_t op)
{
    switch (op) {
    case OP_EXPONENTIAL:
        return 16;
    case OP_POISSON:
        return 17;
    case OP_BINOMIAL:
        return 18;
    case OP_GAMMA:
        return 19;
    case OP_BETA:
        return 20;
    case OP_LOGNORMAL:
        return 21;
    case OP_STANDARD_T:
        return 22;
    default: /* OP_CHISQUARE */
        return 23;
    }
}

typedef struct {
    uint32_t key[2];
    uint32_t e0, e1, stream;
    uint32_t j; /* the next block */
    uint64_t w[2];
    int left;     /* words of w not used yet */
    double spare; /* Box-Muller's second normal */
    bool has_spare;
} est_t;

static void est_init(est_t *s, uint64_t seed, uint32_t stream, int64_t e, uint32_t j0)
{
    s->key[0] = (uint32_t)seed;
    s->key[1] = (uint32_t)(seed >> 32);
    s->e0 = (uint32_t)(uint64_t)e;
    s->e1 = (uint32_t)((uint64_t)e >> 32);
    s->stream = stream;
    s->j = j0;
    s->left = 0;
    s->has_spare = false;
}

static uint64_t next_word(est_t *s)
{
    if (s->left == 0) {
        uint32_t ctr[4] = {s->e0, s->e1, s->stream, s->j++};
        kern_philox4x32_10(ctr, s->key);
        s->w[0] = (uint64_t)ctr[0] | (uint64_t)ctr[1] << 32;
        s->w[1] = (uint64_t)ctr[2] | (uint64_t)ctr[3] << 32;
        s->left = 2;
    }
    return s->w[2 - s->left--];
}

/* uniform on (0, 1): never 0 (logarithms) nor 1 */
static double uni(est_t *s)
{
    return ((double)(next_word(s) >> 11) + 0.5) * 0x1p-53;
}

static double normal(est_t *s)
{
    if (s->has_spare) {
        s->has_spare = false;
        return s->spare;
    }
    double r = sqrt(-2.0 * log(uni(s))), t = 6.283185307179586 * uni(s);
    s->spare = r * sin(t);
    s->has_spare = true;
    return r * cos(t);
}

/* gamma(k, 1), k >= 1: Marsaglia and Tsang's squeeze and rejection. */
static double gamma_ge1(est_t *s, double k)
{
    double d = k - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = normal(s);
            v = 1.0 + c * x;
        } while (v <= 0);
        v = v * v * v;
        double u = uni(s);
        if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return d * v;
        if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v))) return d * v;
    }
}

/* ln gamma(k, 1): for k < 1, ln gamma(k + 1) + ln(u) / k, which stays finite
 * where the value itself underflows. */
static double log_gamma_draw(est_t *s, double k)
{
    if (k >= 1) return log(gamma_ge1(s, k));
    double g = gamma_ge1(s, k + 1.0);
    return log(g) + log(uni(s)) / k;
}

static double gamma_draw(est_t *s, double k)
{
    if (k <= 0) return 0.0;
    if (k >= 1) return gamma_ge1(s, k);
    return gamma_ge1(s, k + 1.0) * pow(uni(s), 1.0 / k);
}

static double lgam(double x)
{
    int sg;
    return lgamma_r(x, &sg);
}

static int64_t poisson_draw(est_t *s, double lam)
{
    if (lam <= 0) return 0;
    if (lam < 10) {
        double l = exp(-lam), p = 1.0;
        int64_t k = 0;
        for (;;) {
            p *= uni(s);
            if (p <= l) return k;
            k++;
        }
    }
    double sl = sqrt(lam), ll = log(lam);
    double b = 0.931 + 2.53 * sl, a = -0.059 + 0.02483 * b;
    double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
        double u = uni(s) - 0.5, v = uni(s), us = 0.5 - fabs(u);
        double kf = floor((2 * a / us + b) * u + lam + 0.43);
        if (us >= 0.07 && v <= vr) return (int64_t)kf;
        if (kf < 0 || (us < 0.013 && v > us)) continue;
        if (log(v) + log(inv_alpha) - log(a / (us * us) + b) <= -lam + kf * ll - lgam(kf + 1))
            return (int64_t)kf;
    }
}

/* binomial(n, p) for p <= 1/2 */
static int64_t binomial_low(est_t *s, int64_t n, double p)
{
    if (n == 0 || p <= 0) return 0;
    double q = 1.0 - p;
    if ((double)n * p < 10) {
        /* inversion: the cumulative sum of the probabilities, term by term */
        for (;;) {
            double r = pow(q, (double)n), u = uni(s), ratio = p / q;
            int64_t k = 0;
            while (u > r && k < n) {
                u -= r;
                k++;
                r *= ratio * (double)(n - k + 1) / (double)k;
            }
            if (u <= r || k == n) return k;
        }
    }
    double nd = (double)n, spq = sqrt(nd * p * q);
    double b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * p, c = nd * p + 0.5;
    double vr = 0.92 - 4.2 / b, alpha = (2.83 + 5.1 / b) * spq, lpq = log(p / q);
    double m = floor((nd + 1) * p), h = lgam(m + 1) + lgam(nd - m + 1);
    for (;;) {
        double u = uni(s) - 0.5, v = uni(s), us = 0.5 - fabs(u);
        double kf = floor((2 * a / us + b) * u + c);
        if (kf < 0 || kf > nd) continue;
        if (us >= 0.07 && v <= vr) return (int64_t)kf;
        double lv = log(v * alpha / (a / (us * us) + b));
        if (lv <= h - lgam(kf + 1) - lgam(nd - kf + 1) + (kf - m) * lpq) return (int64_t)kf;
    }
}

typedef struct {
    const kern_gen_t *g;
    arr_t *out;
    uint32_t stream;
} r2_ctx_t;

static double draw_f(const kern_gen_t *g, est_t *s, int64_t e, uint32_t stream)
{
    double a = sc_as_double(g->loc), b = sc_as_double(g->scale);
    switch (g->op) {
    case OP_EXPONENTIAL:
        return -log(uni(s)) * b;
    case OP_LOGNORMAL:
        return exp(a + b * normal(s));
    case OP_GAMMA:
        return gamma_draw(s, a) * b;
    case OP_CHISQUARE:
        return 2.0 * gamma_draw(s, a / 2);
    case OP_STANDARD_T: {
        double z = normal(s), ch = 2.0 * gamma_draw(s, a / 2);
        return z / sqrt(ch / a);
    }
    case OP_BETA: {
        est_t s2;
        est_init(&s2, g->seed, stream, e, UINT32_C(1) << 31);
        if (a < 1 || b < 1) {
            double lx = log_gamma_draw(s, a), ly = log_gamma_draw(&s2, b);
            return 1.0 / (1.0 + exp(ly - lx));
        }
        double x = gamma_ge1(s, a), y = gamma_ge1(&s2, b);
        return x / (x + y);
    }
    default:
        return 0.0;
    }
}

static void seg(void *vc, int64_t e0, int64_t l0, int64_t len)
{
    r2_ctx_t *c = vc;
    const kern_gen_t *g = c->g;
    for (int64_t i = 0; i < len; i++) {
        int64_t e = e0 + i;
        est_t s;
        est_init(&s, g->seed, c->stream, e, 0);
        if (g->op == OP_POISSON) {
            ((int64_t *)c->out->data)[l0 + i] = poisson_draw(&s, sc_as_double(g->loc));
        } else if (g->op == OP_BINOMIAL) {
            int64_t n = g->low.i;
            double p = sc_as_double(g->high);
            int64_t k = p > 0.5 ? n - binomial_low(&s, n, 1.0 - p) : binomial_low(&s, n, p);
            ((int64_t *)c->out->data)[l0 + i] = k;
        } else {
            double v = draw_f(g, &s, e, c->stream);
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
    est_t s;
    if (c->flags & RS_REPLACE) {
        est_init(&s, g->seed, 26, e, 0);
        if (!(c->flags & RS_P))
            return (int64_t)(((unsigned __int128)next_word(&s) * (uint64_t)c->pop) >> 64);
        double u = uni(&s);
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
    est_t s;
    if (g->op == OP_MULTINOMIAL) {
        int64_t *x = c->cache, left = g->low.i;
        double rem = 1.0;
        est_init(&s, g->seed, 24, row, 0);
        for (int64_t j = 0; j < k; j++)
            x[j] = 0;
        for (int64_t j = 0; j + 1 < k; j++) {
            double p = rem > 0 ? t[j] / rem : 1.0;
            p = p < 0 ? 0 : p > 1 ? 1 : p;
            int64_t d =
                p > 0.5 ? left - binomial_low(&s, left, 1.0 - p) : binomial_low(&s, left, p);
            x[j] = d;
            left -= d;
            if (left <= 0) break;
            rem -= t[j];
        }
        if (left > 0) x[k - 1] = left;
    } else {
        double *x = c->cache, *z = x + k;
        est_init(&s, g->seed, 25, row, 0);
        for (int64_t i = 0; i < k; i++)
            z[i] = normal(&s);
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
                est_t s;
                est_init(&s, g->seed, 28, i, 0);
                r[m].key = log(uni(&s)) / t[i];
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
    r2_ctx_t c = {.g = g, .out = out, .stream = op_stream(g->op)};
    kern_for_each_segment(&out->shape, &g->shape, off, seg, &c);
    return true;
}
