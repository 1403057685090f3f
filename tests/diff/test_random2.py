#!/usr/bin/python3
"""numpy's distributions beyond rand/randn/randint/uniform/normal
(engine/kern/random2.c): random.random, exponential, poisson, binomial,
gamma, beta, lognormal, standard_t, chisquare.

Their streams are Philox-based, not numpy's, so values are not compared with
numpy's; this suite checks
  * the distribution: mean and variance against the theoretical ones within
    6 standard errors (of the mean; of the variance from the 4th moment, or a
    bound), the support (integers >= 0, binomial <= n, beta in [0, 1]), and a
    binned comparison of the empirical CDF with numpy's own sampler of the
    same distribution (Kolmogorov-Smirnov two-sample bound at 1e-6);
  * dtypes as numpy's (poisson, binomial int64; the others float64);
  * chunk-invariance: byte-identical results for several chunkings and
    --threads, and random.random equal to random.rand of the same seed;
  * independence of ops sharing a seed;
  * numpy's refusals (negative scale, lam, p outside [0, 1], a <= 0, ...)
    exit 2 naming the node.

Run: /usr/bin/python3 tests/diff/test_random2.py
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

N_STAT = 200_000


def N(key, op, **params):
    n = {"key": key, "op": op}
    n.update(params)
    return n


# (name, op, params, numpy sampler, mean, variance, kind)
G = np.random.default_rng(2026)
DISTS = [
    ("random", "random.random", {}, lambda n: G.random(n), 0.5, 1 / 12, "unit"),
    ("exponential", "random.exponential", {"scale": 2.5}, lambda n: G.exponential(2.5, n),
     2.5, 6.25, "pos"),
    ("poisson-small", "random.poisson", {"lam": 3.5}, lambda n: G.poisson(3.5, n), 3.5, 3.5, "int"),
    ("poisson-zero", "random.poisson", {"lam": 0.0}, lambda n: G.poisson(0.0, n), 0.0, 0.0, "int"),
    ("poisson-large", "random.poisson", {"lam": 1234.5}, lambda n: G.poisson(1234.5, n),
     1234.5, 1234.5, "int"),
    ("binomial-small", "random.binomial", {"n": 20, "p": 0.3}, lambda n: G.binomial(20, 0.3, n),
     6.0, 4.2, "binom"),
    ("binomial-large", "random.binomial", {"n": 5000, "p": 0.62},
     lambda n: G.binomial(5000, 0.62, n), 3100.0, 5000 * 0.62 * 0.38, "binom"),
    ("binomial-edge", "random.binomial", {"n": 7, "p": 1.0}, lambda n: G.binomial(7, 1.0, n),
     7.0, 0.0, "binom"),
    ("gamma", "random.gamma", {"shape": 2.5, "scale": 2.0}, lambda n: G.gamma(2.5, 2.0, n),
     5.0, 10.0, "pos"),
    ("gamma-small-shape", "random.gamma", {"shape": 0.3}, lambda n: G.gamma(0.3, 1.0, n),
     0.3, 0.3, "pos"),
    ("beta", "random.beta", {"a": 2.0, "b": 5.0}, lambda n: G.beta(2.0, 5.0, n),
     2 / 7, 10 / (49 * 8), "unit"),
    ("beta-small", "random.beta", {"a": 0.2, "b": 0.5}, lambda n: G.beta(0.2, 0.5, n),
     0.2 / 0.7, 0.1 / (0.49 * 1.7), "unit"),
    ("lognormal", "random.lognormal", {"mean": 0.5, "sigma": 0.4},
     lambda n: G.lognormal(0.5, 0.4, n), math.exp(0.58), (math.exp(0.16) - 1) * math.exp(1.16),
     "pos"),
    ("standard_t", "random.standard_t", {"df": 7.0}, lambda n: G.standard_t(7.0, n),
     0.0, 7 / 5, "real"),
    ("chisquare", "random.chisquare", {"df": 3.0}, lambda n: G.chisquare(3.0, n), 3.0, 6.0, "pos"),
]


def ks_two_sample(a, b):
    """The two-sample Kolmogorov-Smirnov statistic, and its bound at 1e-6."""
    a = np.sort(a)
    b = np.sort(b)
    allv = np.concatenate([a, b])
    ca = np.searchsorted(a, allv, side="right") / len(a)
    cb = np.searchsorted(b, allv, side="right") / len(b)
    d = np.max(np.abs(ca - cb))
    n, m = len(a), len(b)
    bound = math.sqrt(-0.5 * math.log(1e-6 / 2)) * math.sqrt((n + m) / (n * m))
    return d, bound


def check_dist(suite, name, op, params, sampler, mean, var, kind):
    d = {"version": 1, "nodes": [N("x", op, size=[N_STAT], seed=11, chunk_size=30001, **params)],
         "fetch": ["x"]}
    r = harness.run_mars(d)
    try:
        if r.rc != 0:
            return suite.fail("dist/" + name, "exit %d: %s" % (r.rc, r.brief_error()), d)
        x = r.load("x")
        want_dt = np.int64 if kind in ("int", "binom") else np.float64
        if x.dtype != want_dt or x.shape != (N_STAT,):
            return suite.fail("dist/" + name, "%s %s, numpy gives %s" % (x.dtype, x.shape,
                                                                       np.dtype(want_dt)), d)
        why = None
        if kind in ("int", "binom") and x.min() < 0:
            why = "a negative count"
        elif kind == "binom" and x.max() > params["n"]:
            why = "more successes than trials"
        elif kind == "unit" and (x.min() < 0 or x.max() > 1):
            why = "outside [0, 1]"
        elif kind == "pos" and x.min() < 0:
            why = "a negative value"
        elif not np.all(np.isfinite(x)):
            why = "a value that is not finite"
        if why is None:
            se = math.sqrt(var / N_STAT)
            if abs(x.mean() - mean) > 6 * se + 1e-12:
                why = "mean %.6g, expected %.6g (6 se = %.3g)" % (x.mean(), mean, 6 * se)
            elif var > 0:
                m4 = np.mean((x - x.mean()) ** 4)
                se_v = math.sqrt(max(m4 - var * var, 1e-300) / N_STAT)
                if abs(x.var() - var) > 6 * se_v:
                    why = "variance %.6g, expected %.6g (6 se = %.3g)" % (x.var(), var, 6 * se_v)
            elif x.var() != 0:
                why = "a degenerate distribution varies"
        if why is None and var > 0:
            ks, bound = ks_two_sample(x, sampler(N_STAT))
            if ks > bound:
                why = "KS distance to numpy's sampler %.4f over %.4f" % (ks, bound)
        suite.check("dist/" + name, why is None, why, d)
    finally:
        harness.cleanup(r)


def invariance(suite):
    shape = [37, 29]
    for name, op, params, *_ in DISTS:
        outs = []
        for ch, threads in ((None, 1), (5, 2), ([37, 1], 3), ([4, 29], 2), (1000, 4)):
            node = N("x", op, size=shape, seed=99, **params)
            if ch is not None:
                node["chunk_size"] = ch
            d = {"version": 1, "nodes": [node], "fetch": ["x"]}
            r = harness.run_mars(d, threads=threads)
            try:
                outs.append(r.load("x").tobytes() if r.rc == 0 else ("exit %d" % r.rc))
            finally:
                harness.cleanup(r)
        suite.check("invariance/" + name, all(o == outs[0] for o in outs) and
                    isinstance(outs[0], bytes), "results differ between chunkings: %r" %
                    [o if isinstance(o, str) else len(o) for o in outs])


def aliases_and_independence(suite):
    d = {"version": 1, "nodes": [
        N("a", "random.random", size=[1000], seed=5, chunk_size=300),
        N("b", "random.rand", shape=[1000], seed=5),
        N("c", "random.exponential", shape=[1000], seed=5),  # shape: size's alias
        N("e", "random.exponential", size=1000, seed=5, chunk_size=7),
        N("g", "random.gamma", shape=1.0, size=[1000], seed=5),
        N("h", "random.chisquare", df=2.0, size=[1000], seed=5)], "fetch": list("abcegh")}
    r = harness.run_mars(d)
    try:
        if r.rc != 0:
            return suite.fail("aliases", "exit %d: %s" % (r.rc, r.brief_error()), d)
        a, b, c, e, g, h = (r.load(k) for k in "abcegh")
        suite.check("alias/random-is-rand", np.array_equal(a, b), "random.random != random.rand", d)
        suite.check("alias/shape-is-size", np.array_equal(c, e), "shape and size differ", d)
        # exponential(1), gamma(1) and chisquare(2)/2 have one law: with one
        # seed they must still be independent streams
        corr = abs(np.corrcoef(c, g)[0, 1]) + abs(np.corrcoef(g, h)[0, 1])
        suite.check("independence/ops-sharing-a-seed", corr < 0.3, "correlation %.3f" % corr, d)
    finally:
        harness.cleanup(r)


REJECTS = [
    ("exponential-negative-scale", N("x", "random.exponential", size=3, scale=-1.0), "scale < 0"),
    ("poisson-negative-lam", N("x", "random.poisson", size=3, lam=-0.5), "lam < 0"),
    ("poisson-huge-lam", N("x", "random.poisson", size=3, lam=1e19), "lam value too large"),
    ("binomial-p-above-1", N("x", "random.binomial", size=3, n=5, p=1.5), "p > 1"),
    ("binomial-negative-n", N("x", "random.binomial", size=3, n=-5, p=0.5), "n < 0"),
    ("binomial-no-n", N("x", "random.binomial", size=3, p=0.5), "\"n\""),
    ("binomial-float-n", N("x", "random.binomial", size=3, n=2.5, p=0.5), "integer"),
    ("gamma-no-shape", N("x", "random.gamma", size=3), "\"shape\""),
    ("gamma-negative-shape", N("x", "random.gamma", size=3, shape=-1.0), "shape < 0"),
    ("beta-zero-a", N("x", "random.beta", size=3, a=0.0, b=1.0), "a <= 0"),
    ("beta-no-b", N("x", "random.beta", size=3, a=1.0), "\"b\""),
    ("lognormal-negative-sigma", N("x", "random.lognormal", size=3, sigma=-1.0), "sigma < 0"),
    ("standard_t-zero-df", N("x", "random.standard_t", size=3, df=0.0), "df <= 0"),
    ("chisquare-negative-df", N("x", "random.chisquare", size=3, df=-2.0), "df <= 0"),
    ("size-and-shape", N("x", "random.exponential", size=3, shape=[3]), "not both"),
    ("unknown-field", N("x", "random.poisson", size=3, loc=1.0), "unknown field"),
    ("negative-size", N("x", "random.random", size=[-1]), "x"),
]


def rejects(suite):
    for name, node, words in REJECTS:
        d = {"version": 1, "nodes": [node], "fetch": ["x"]}
        r = harness.run_mars(d)
        try:
            ok = r.rc == 2 and ('node "x" (%s)' % node["op"]) in r.stderr and words in r.stderr
            suite.check("reject/" + name, ok, "exit %d: %s" % (r.rc, r.brief_error()), d)
        finally:
            harness.cleanup(r)


def main():
    suite = harness.Suite("test_random2")
    harness.require_mars_run(suite)
    for dist in DISTS:
        check_dist(suite, *dist)
    invariance(suite)
    aliases_and_independence(suite)
    rejects(suite)
    suite.finish()


if __name__ == "__main__":
    main()
