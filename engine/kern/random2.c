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
    default:
        return false;
    }
    r2_ctx_t c = {.g = g, .out = out, .stream = op_stream(g->op)};
    kern_for_each_segment(&out->shape, &g->shape, off, seg, &c);
    return true;
}
