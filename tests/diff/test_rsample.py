#!/usr/bin/python3
"""numpy's sampling ops with list parameters (engine/rsample.h):
random.choice, random.permutation, random.multinomial and
random.multivariate_normal.

Their streams are not numpy's, so values are not compared with numpy's;
this suite checks
  * what each result must be: a permutation holds every index once, choice
    without replacement never repeats, multinomial rows sum to n, values
    come from `a` or `x`;
  * the distribution: chi-square tests of frequencies against numpy's
    probabilities (uniform positions of a permutation across seeds, choice
    with and without p, the first picks of weighted sampling without
    replacement), multinomial means and covariances, multivariate normal
    means and covariances against the parameters, within 6 standard errors;
  * chunk-invariance: byte-identical results for several chunkings and
    --threads;
  * numpy's refusals: each rejected document's message is the one numpy's
    RandomState raises for the same arguments (asked of numpy here), exit 2
    naming the node.

Run: /usr/bin/python3 tests/diff/test_rsample.py
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402


def N(key, op, **params):
    n = {"key": key, "op": op}
    n.update(params)
    return n


def run(suite, name, nodes, threads=None):
    d = {"version": 1, "nodes": nodes, "fetch": [n["key"] for n in nodes]}
    r = harness.run_mars(d, threads=threads)
    try:
        if r.rc != 0:
            suite.fail(name, "exit %d: %s" % (r.rc, r.brief_error()), d)
            return None
        return {n["key"]: r.load(n["key"]) for n in nodes}
    finally:
        harness.cleanup(r)


def chi2_ok(counts, expected):
    """Pearson's statistic under a bound that a true law exceeds with
    probability about 1e-6 (Wilson-Hilferty)."""
    counts = np.asarray(counts, dtype=float).ravel()
    expected = np.asarray(expected, dtype=float).ravel()
    keep = expected > 0
    if np.any(counts[~keep] > 0):
        return False, "a value of probability 0 was drawn"
    c, e = counts[keep], expected[keep]
    stat = float(((c - e) ** 2 / e).sum())
    k = max(len(c) - 1, 1)
    z = 4.75  # one-sided 1e-6
    bound = k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3
    return stat <= bound, "chi-square %.1f over %.1f (df %d)" % (stat, bound, k)


def permutations(suite):
    for n in (0, 1, 2, 3, 7, 100, 4097, 100003):
        got = run(suite, "perm/%d" % n, [N("p", "random.permutation", x=n, seed=n + 1,
                                           chunk_size=max(1, n // 3 + 1))])
        if got is None:
            continue
        p = got["p"]
        suite.check("perm/is-permutation-%d" % n, p.dtype == np.int64 and p.shape == (n,) and
                    np.array_equal(np.sort(p), np.arange(n)), "not a permutation of %d" % n)
    # positions uniform across seeds: value of each position, 600 seeds of 6
    nodes = [N("p%d" % s, "random.permutation", x=6, seed=s) for s in range(600)]
    got = run(suite, "perm/positions", nodes)
    if got is not None:
        tab = np.zeros((6, 6))
        for s in range(600):
            p = got["p%d" % s]
            tab[np.arange(6), p] += 1
        ok, why = chi2_ok(tab, np.full((6, 6), 100.0))
        suite.check("perm/positions-uniform", ok, why)
        # a permutation of 6 has 720 outcomes: 600 draws rarely repeat much
        seen = {tuple(got["p%d" % s]) for s in range(600)}
        suite.check("perm/distinct-across-seeds", len(seen) > 400, "%d distinct" % len(seen))
    # one long permutation: no trend, about one fixed point, cycles as random
    got = run(suite, "perm/long", [N("p", "random.permutation", x=1_000_000, seed=7,
                                     chunk_size=99_991)])
    if got is not None:
        p = got["p"].astype(float)
        i = np.arange(len(p), dtype=float)
        corr = np.corrcoef(i, p)[0, 1]
        fixed = int((got["p"] == np.arange(len(p))).sum())
        suite.check("perm/long-uncorrelated", abs(corr) < 6 / math.sqrt(len(p)),
                    "correlation %.2e" % corr)
        suite.check("perm/long-fixed-points", fixed <= 12, "%d fixed points" % fixed)
        # successive differences: sign balanced (no local order left)
        up = float((np.diff(p) > 0).mean())
        suite.check("perm/long-runs", abs(up - 0.5) < 0.005, "share of rises %.4f" % up)
    # a list is permuted along its first axis by the same permutation
    x = [[i, 10 * i] for i in range(50)]
    got = run(suite, "perm/list", [N("p", "random.permutation", x=50, seed=4),
                                   N("q", "random.permutation", x=x, seed=4, chunk_size=[7, 1]),
                                   N("f", "random.permutation", x=[0.5 * i for i in range(50)],
                                     seed=4),
                                   N("b", "random.permutation", x=[True, False, False], seed=1)])
    if got is not None:
        p = got["p"]
        suite.check("perm/list-rows", np.array_equal(got["q"], np.array(x)[p]),
                    "rows not permuted as permutation(50)")
        suite.check("perm/list-float", got["f"].dtype == np.float64 and
                    np.array_equal(got["f"], 0.5 * p), "float list")
        suite.check("perm/list-bool", got["b"].dtype == np.bool_ and int(got["b"].sum()) == 1,
                    "bool list: %r" % got["b"])
    got = run(suite, "perm/negative", [N("p", "random.permutation", x=-3, seed=1)])
    if got is not None:
        suite.check("perm/negative-empty", got["p"].shape == (0,), "numpy gives arange(-3)")


def choices(suite):
    M = 300_000
    # with replacement, uniform
    got = run(suite, "choice/uniform", [N("c", "random.choice", a=7, size=M, seed=3,
                                          chunk_size=77_777)])
    if got is not None:
        c = got["c"]
        ok, why = chi2_ok(np.bincount(c, minlength=7), np.full(7, M / 7))
        suite.check("choice/uniform-int64", c.dtype == np.int64 and c.min() >= 0 and
                    c.max() < 7, "%s in [%d, %d]" % (c.dtype, c.min(), c.max()))
        suite.check("choice/uniform-law", ok, why)
    # with replacement and p, from a list of values
    p = [0.05, 0.0, 0.25, 0.1, 0.6]
    vals = [10, 20, 30, 40, 50]
    got = run(suite, "choice/p", [N("c", "random.choice", a=vals, p=p, size=[600, 500],
                                    seed=8, chunk_size=[101, 77])])
    if got is not None:
        c = got["c"]
        counts = [(c == v).sum() for v in vals]
        ok, why = chi2_ok(counts, np.array(p) * c.size)
        suite.check("choice/p-law", ok and c.shape == (600, 500) and c.dtype == np.int64, why)
    # without replacement: no repeats, the whole population a permutation
    got = run(suite, "choice/noreplace", [
        N("a", "random.choice", a=1000, size=1000, replace=False, seed=5, chunk_size=333),
        N("b", "random.choice", a=50000, size=[100, 30], replace=False, seed=5,
          chunk_size=[9, 30]),
        N("s", "random.choice", a=[1.5, 2.5, 3.5, 4.5], size=2, replace=False, seed=2)])
    if got is not None:
        suite.check("choice/noreplace-all", np.array_equal(np.sort(got["a"]), np.arange(1000)),
                    "size == a is not a permutation")
        b = got["b"]
        suite.check("choice/noreplace-unique", len(np.unique(b)) == b.size and b.max() < 50000,
                    "repeats without replacement")
        s = got["s"]
        suite.check("choice/noreplace-values", len(set(s.tolist())) == 2 and
                    set(s.tolist()) <= {1.5, 2.5, 3.5, 4.5}, "%r" % s)
    # without replacement, first picks uniform across seeds
    nodes = [N("c%d" % s, "random.choice", a=5, size=2, replace=False, seed=s)
             for s in range(1000)]
    got = run(suite, "choice/noreplace-law", nodes)
    if got is not None:
        tab = np.zeros((5, 5))
        for s in range(1000):
            a, b = got["c%d" % s]
            tab[a, b] += 1
        exp = np.full((5, 5), 1000 / 20.0)
        np.fill_diagonal(exp, 0)
        ok, why = chi2_ok(tab, exp)
        suite.check("choice/noreplace-pairs-uniform", ok, why)
    # without replacement and with p: successive sampling's law
    p = np.array([0.1, 0.2, 0.3, 0.4, 0.0])
    nodes = [N("c%d" % s, "random.choice", a=5, size=2, replace=False, p=p.tolist(), seed=s,
               chunk_size=1) for s in range(1500)]
    got = run(suite, "choice/weighted-law", nodes)
    if got is not None:
        tab = np.zeros((5, 5))
        for s in range(1500):
            a, b = got["c%d" % s]
            tab[a, b] += 1
        # P(a, b) = p_a p_b / (1 - p_a): what numpy's draws give
        exp = np.array([[p[i] * p[j] / (1 - p[i]) if i != j else 0 for j in range(5)]
                        for i in range(5)]) * 1500
        ok, why = chi2_ok(tab, exp)
        suite.check("choice/weighted-pairs", ok, why)
        # numpy's own sampler agrees with that law (the test's reference)
        rs = np.random.RandomState(0)
        ref = np.zeros((5, 5))
        for _ in range(1500):
            a, b = rs.choice(5, 2, replace=False, p=p)
            ref[a, b] += 1
        ok2, why2 = chi2_ok(ref, exp)
        suite.check("choice/weighted-reference", ok2, "numpy itself: " + why2)
    got = run(suite, "choice/scalar", [N("c", "random.choice", a=9, seed=1),
                                       N("z", "random.choice", a=0, size=0, seed=1)])
    if got is not None:
        suite.check("choice/scalar", got["c"].shape == () and 0 <= int(got["c"]) < 9,
                    "size null gives one value")
        suite.check("choice/empty", got["z"].shape == (0,), "a=0, size=0")


def multinomials(suite):
    R = 60_000
    cases = [("dice", 20, [1 / 6.0] * 6), ("skew", 1000, [0.7, 0.2, 0.05, 0.05]),
             ("zero", 50, [0.5, 0.0, 0.5]), ("short", 40, [0.2, 0.3])]
    for name, n, pv in cases:
        got = run(suite, "multinomial/" + name,
                  [N("m", "random.multinomial", n=n, pvals=pv, size=R, seed=6,
                     chunk_size=[9999, 2])])
        if got is None:
            continue
        m = got["m"]
        k = len(pv)
        suite.check("multinomial/%s-shape" % name, m.shape == (R, k) and m.dtype == np.int64,
                    "%s %s" % (m.shape, m.dtype))
        suite.check("multinomial/%s-sums" % name, np.all(m.sum(axis=1) == n) and m.min() >= 0,
                    "rows do not sum to n")
        # numpy's law: the last count takes what is left
        p = np.array(pv, dtype=float)
        p[-1] = 1.0 - p[:-1].sum()
        mean = n * p
        cov = n * (np.diag(p) - np.outer(p, p))
        se = np.sqrt(np.maximum(np.diag(cov), 1e-300) / R)
        dm = np.abs(m.mean(axis=0) - mean)
        suite.check("multinomial/%s-mean" % name, np.all(dm <= 6 * se + 1e-12),
                    "means %s, expected %s" % (m.mean(axis=0), mean))
        c = np.cov(m.T.astype(float))
        scale = np.sqrt(np.outer(np.diag(cov), np.diag(cov)))
        suite.check("multinomial/%s-cov" % name, np.all(np.abs(c - cov) <= 0.05 * scale + 1e-9),
                    "covariance %s, expected %s" % (c, cov))


def mvns(suite):
    R = 100_000
    mean = [1.0, -2.0, 0.5]
    cov = [[2.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 0.5]]
    sing = [[1.0, 1.0], [1.0, 1.0]]  # positive semi-definite, singular
    got = run(suite, "mvn", [
        N("x", "random.multivariate_normal", mean=mean, cov=cov, size=R, seed=9,
          chunk_size=[33333, 1]),
        N("s", "random.multivariate_normal", mean=[0, 0], cov=sing, size=[200, 5], seed=9),
        N("o", "random.multivariate_normal", mean=[3.0], cov=[[4.0]], seed=1)])
    if got is None:
        return
    x = got["x"]
    suite.check("mvn/shape", x.shape == (R, 3) and x.dtype == np.float64, "%s" % (x.shape,))
    se = np.sqrt(np.diag(cov) / R)
    suite.check("mvn/mean", np.all(np.abs(x.mean(axis=0) - mean) <= 6 * se),
                "mean %s" % x.mean(axis=0))
    c = np.cov(x.T)
    d = np.sqrt(np.outer(np.diag(cov), np.diag(cov)))
    suite.check("mvn/cov", np.all(np.abs(c - cov) <= 6 * d * math.sqrt(2.0 / R)),
                "covariance %s" % c)
    s = got["s"]
    suite.check("mvn/singular", s.shape == (200, 5, 2) and np.allclose(s[..., 0], s[..., 1]),
                "a singular covariance gives equal coordinates")
    suite.check("mvn/one-value", got["o"].shape == (1,), "size null: shape (k,)")


def invariance(suite):
    nodes = [
        ("perm", {"op": "random.permutation", "x": 1000}, [1000], [37]),
        ("perm-list", {"op": "random.permutation",
                       "x": [[i, i + 1, i + 2] for i in range(200)]}, [200, 3], [7, 2]),
        ("choice", {"op": "random.choice", "a": 100, "size": [40, 30]}, [40, 30], [7, 4]),
        ("choice-p", {"op": "random.choice", "a": [1.0, 2.0, 3.0], "p": [0.2, 0.3, 0.5],
                      "size": [40, 30]}, [40, 30], [13, 1]),
        ("choice-noreplace", {"op": "random.choice", "a": 5000, "size": [40, 30],
                              "replace": False}, [40, 30], [3, 30]),
        ("choice-weighted", {"op": "random.choice", "a": 2000, "size": [40, 30],
                             "replace": False, "p": [1 / 2000.0] * 2000}, [40, 30], [40, 7]),
        ("multinomial", {"op": "random.multinomial", "n": 30, "pvals": [0.1, 0.2, 0.3, 0.4],
                         "size": [50, 3]}, [50, 3, 4], [9, 2, 3]),
        ("mvn", {"op": "random.multivariate_normal", "mean": [0.0, 1.0, 2.0],
                 "cov": [[1.0, 0.2, 0.0], [0.2, 1.0, 0.1], [0.0, 0.1, 1.0]], "size": [60]},
         [60, 3], [11, 2]),
    ]
    for name, node, shape, ch in nodes:
        outs = []
        for chunk, threads in ((None, 1), (ch, 2), (1, 3), ([max(1, d // 2) for d in shape], 4)):
            n = dict(node, key="x", seed=1234)
            if chunk is not None:
                n["chunk_size"] = chunk
            d = {"version": 1, "nodes": [n], "fetch": ["x"]}
            r = harness.run_mars(d, threads=threads)
            try:
                outs.append(r.load("x").tobytes() if r.rc == 0 else
                            "exit %d: %s" % (r.rc, r.brief_error()))
            finally:
                harness.cleanup(r)
        suite.check("invariance/" + name, isinstance(outs[0], bytes) and
                    all(o == outs[0] for o in outs),
                    "results differ between chunkings: %r" %
                    [o if isinstance(o, str) else len(o) for o in outs])


# (name, node params, numpy call raising the same ValueError)
RS = np.random.RandomState(0)
REJECTS = [
    ("choice-zero-a", {"op": "random.choice", "a": 0, "size": 3},
     lambda: RS.choice(0, 3)),
    ("choice-empty-list", {"op": "random.choice", "a": [], "size": 3},
     lambda: RS.choice([], 3)),
    ("choice-2d", {"op": "random.choice", "a": [[1, 2], [3, 4]]},
     lambda: RS.choice([[1, 2], [3, 4]])),
    ("choice-p-length", {"op": "random.choice", "a": 3, "p": [0.5, 0.5]},
     lambda: RS.choice(3, p=[0.5, 0.5])),
    ("choice-p-sum", {"op": "random.choice", "a": 3, "p": [0.5, 0.4, 0.3]},
     lambda: RS.choice(3, p=[0.5, 0.4, 0.3])),
    ("choice-p-negative", {"op": "random.choice", "a": 3, "p": [1.5, -0.5, 0.0]},
     lambda: RS.choice(3, p=[1.5, -0.5, 0.0])),
    ("choice-p-2d", {"op": "random.choice", "a": 4, "p": [[0.5, 0.5], [0.0, 0.0]]},
     lambda: RS.choice(4, p=[[0.5, 0.5], [0.0, 0.0]])),
    ("choice-too-many", {"op": "random.choice", "a": 3, "size": 4, "replace": False},
     lambda: RS.choice(3, 4, replace=False)),
    ("choice-few-nonzero", {"op": "random.choice", "a": 3, "size": 2, "replace": False,
                            "p": [1.0, 0.0, 0.0]},
     lambda: RS.choice(3, 2, replace=False, p=[1.0, 0.0, 0.0])),
    ("choice-negative-size", {"op": "random.choice", "a": 3, "size": -1},
     lambda: RS.choice(3, -1)),
    ("choice-float-a", {"op": "random.choice", "a": 2.5},
     lambda: RS.choice(2.5)),
    ("multinomial-negative-n", {"op": "random.multinomial", "n": -1, "pvals": [0.5, 0.5]},
     lambda: RS.multinomial(-1, [0.5, 0.5])),
    ("multinomial-pvals-range", {"op": "random.multinomial", "n": 3, "pvals": [1.5, -0.5]},
     lambda: RS.multinomial(3, [1.5, -0.5])),
    ("multinomial-pvals-sum", {"op": "random.multinomial", "n": 3, "pvals": [0.7, 0.6, 0.1]},
     lambda: RS.multinomial(3, [0.7, 0.6, 0.1])),
    ("multinomial-pvals-2d", {"op": "random.multinomial", "n": 3, "pvals": [[0.5], [0.5]]},
     lambda: RS.multinomial(3, [[0.5], [0.5]])),
    ("mvn-mean-2d", {"op": "random.multivariate_normal", "mean": [[0.0]], "cov": [[1.0]]},
     lambda: RS.multivariate_normal([[0.0]], [[1.0]])),
    ("mvn-cov-not-square", {"op": "random.multivariate_normal", "mean": [0.0, 0.0],
                            "cov": [[1.0, 0.0]]},
     lambda: RS.multivariate_normal([0.0, 0.0], [[1.0, 0.0]])),
    ("mvn-lengths", {"op": "random.multivariate_normal", "mean": [0.0, 0.0, 0.0],
                     "cov": [[1.0, 0.0], [0.0, 1.0]]},
     lambda: RS.multivariate_normal([0.0, 0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]])),
    ("mvn-not-psd-raise", {"op": "random.multivariate_normal", "mean": [0.0, 0.0],
                           "cov": [[1.0, 2.0], [2.0, 1.0]], "check_valid": "raise"},
     lambda: RS.multivariate_normal([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]],
                                    check_valid="raise")),
    ("mvn-check-valid", {"op": "random.multivariate_normal", "mean": [0.0], "cov": [[1.0]],
                         "check_valid": "maybe"},
     lambda: RS.multivariate_normal([0.0], [[1.0]], check_valid="maybe")),
]


def rejects(suite):
    for name, params, call in REJECTS:
        try:
            call()
            suite.fail("reject/" + name, "numpy accepts it: the case is wrong")
            continue
        except ValueError as e:
            msg = str(e)
        node = dict(params, key="x", seed=1)
        d = {"version": 1, "nodes": [node], "fetch": ["x"]}
        r = harness.run_mars(d)
        try:
            ok = r.rc == 2 and ('node "x" (%s)' % node["op"]) in r.stderr and msg in r.stderr
            suite.check("reject/" + name, ok, "exit %d: %s (numpy: %s)" % (
                r.rc, r.brief_error(), msg), d)
        finally:
            harness.cleanup(r)
    # what only documents can get wrong
    for name, params, words in [
            ("unknown-field", {"op": "random.permutation", "x": 3, "size": 3}, "unknown field"),
            ("tensor-input", {"op": "random.permutation", "x": 3, "inputs": ["y"]}, "input"),
            ("replace-type", {"op": "random.choice", "a": 3, "replace": 1}, "replace"),
            ("no-x", {"op": "random.permutation"}, "\"x\""),
            ("mvn-not-psd-warn-samples", None, None)]:
        if params is None:
            got = run(suite, "reject/" + name, [N(
                "x", "random.multivariate_normal", mean=[0.0, 0.0],
                cov=[[1.0, 2.0], [2.0, 1.0]], size=4, seed=1)])
            suite.check("reject/" + name, got is not None and got["x"].shape == (4, 2),
                        "check_valid 'warn' (the default) samples as numpy does")
            continue
        nodes = [dict(params, key="x", seed=1)]
        if "inputs" in params:
            nodes.insert(0, N("y", "ones", shape=[3]))
        d = {"version": 1, "nodes": nodes, "fetch": ["x"]}
        r = harness.run_mars(d)
        try:
            ok = r.rc == 2 and 'node "x"' in r.stderr and words in r.stderr
            suite.check("reject/" + name, ok, "exit %d: %s" % (r.rc, r.brief_error()), d)
        finally:
            harness.cleanup(r)


def main():
    suite = harness.Suite("test_rsample")
    harness.require_mars_run(suite)
    permutations(suite)
    choices(suite)
    multinomials(suite)
    mvns(suite)
    invariance(suite)
    rejects(suite)
    suite.finish()


if __name__ == "__main__":
    main()
