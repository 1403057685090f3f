#!/usr/bin/python3
"""Held results used by later ops of the same document (mars-run).

A boolean mask, compress, extract, argwhere, flatnonzero, nonzero, unique,
the set ops and a filtered DataFrame's to_tensor give results whose length
is known only when they run. mars-run runs each one an op takes first (its
ancestors, as a document of their own), then the rest with it as a tensor
of known shape (engine/stage.h). Every case here is checked against numpy
on uneven chunks: reductions, element-wise ops, sorting, products, nested
masks, multi-output ops, results fetched or not, empty results, a held
result over 16 MiB (several chunks in the later run), random inputs drawn
once (the same values in both runs), and the errors: a refused later node
still exits 2 naming it, a failing stage exits 1 naming its node.

Run: /usr/bin/python3 tests/diff/test_held_stage.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

RNG = np.random.default_rng(20261124)


def arr(key, v, chunk=None):
    v = np.asarray(v)
    n = {"key": key, "op": "array", "data": v.tolist(), "dtype": str(v.dtype)}
    if chunk is not None and v.ndim:
        n["chunk_size"] = chunk
    return n


def N(key, op, inputs=None, **kw):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = list(inputs)
    n.update(kw)
    return n


def mask(key, src, m):
    return N(key, "getitem", [src, m], index=[{"input": 1}])


X = np.round(RNG.normal(0, 3, 997), 3)
M2 = RNG.integers(-3, 4, (13, 7))
cases = []  # (name, nodes, {key: expected}, rtol)


def add(name, nodes, want, rtol=1e-12):
    cases.append((name, nodes, want, rtol))


xp = X[X > 0]
add("mask-reductions", [arr("x", X, 100), N("p", "greater", ["x", 0]), mask("xp", "x", "p"),
                        N("s", "sum", ["xp"]), N("mn", "mean", ["xp"]), N("sd", "std", ["xp"]),
                        N("mx", "max", ["xp"]), N("am", "argmin", ["xp"])],
    {"s": xp.sum(), "mn": xp.mean(), "sd": xp.std(), "mx": xp.max(), "am": np.argmin(xp)})
add("mask-elementwise-and-fetched", [arr("x", X, 70), N("p", "greater", ["x", 1]),
                                     mask("xp", "x", "p"), N("e", "exp", ["xp"]),
                                     N("d", "subtract", ["xp", 1.5])],
    {"xp": X[X > 1], "e": np.exp(X[X > 1]), "d": X[X > 1] - 1.5})
add("mask-sort-cumsum-dot", [arr("x", X, 333), N("p", "less", ["x", 0]), mask("xn", "x", "p"),
                             N("so", "sort", ["xn"]), N("cs", "cumsum", ["xn"]),
                             N("dd", "dot", ["xn", "xn"])],
    {"so": np.sort(X[X < 0]), "cs": np.cumsum(X[X < 0]), "dd": X[X < 0] @ X[X < 0]})
inner = X[X > 0]
add("nested-masks", [arr("x", X, 101), N("p", "greater", ["x", 0]), mask("a", "x", "p"),
                     N("q", "greater", ["a", 2]), mask("b", "a", "q"),
                     N("bs", "sum", ["b"]), N("r", "multiply", ["b", "b"])],
    {"bs": inner[inner > 2].sum(), "r": inner[inner > 2] ** 2})
add("two-held-combined", [arr("x", X, 250), N("p", "greater", ["x", 0]), mask("a", "x", "p"),
                          N("q", "less", ["x", 0]), mask("b", "x", "q"),
                          N("sa", "sum", ["a"]), N("sb", "sum", ["b"]),
                          N("t", "add", ["sa", "sb"]), N("cc", "concatenate", ["a", "b"])],
    {"t": X[X > 0].sum() + X[X < 0].sum(), "cc": np.concatenate([X[X > 0], X[X < 0]])})
add("nonzero-outputs", [arr("m", M2, [5, 3]), N("nz", "nonzero", ["m"], outputs=["r", "c"]),
                        N("r1", "add", ["r", 1]), N("cm", "max", ["c"])],
    {"r1": np.nonzero(M2)[0] + 1, "cm": np.nonzero(M2)[1].max(), "c": np.nonzero(M2)[1]})
add("argwhere-2d", [arr("m", M2, [4, 4]), N("aw", "argwhere", ["m"]),
                    N("s0", "sum", ["aw"], axis=0), N("tr", "transpose", ["aw"])],
    {"s0": np.argwhere(M2).sum(axis=0), "tr": np.argwhere(M2).T})
add("flatnonzero-compress-extract", [
    arr("m", M2, [6, 5]), N("fz", "flatnonzero", ["m"]), N("f2", "multiply", ["fz", 2]),
    arr("c", np.array([True, False, True, True, False, False, True, True, False, True, False,
                       True, True])),
    N("cp", "compress", ["c", "m"], axis=0), N("cps", "sum", ["cp"], axis=1),
    N("gt", "greater", ["m", 0]), N("ex", "extract", ["gt", "m"]), N("exm", "mean", ["ex"])],
    {"f2": np.flatnonzero(M2) * 2,
     "cps": np.compress([True, False, True, True, False, False, True, True, False, True, False,
                         True, True], M2, axis=0).sum(axis=1),
     "exm": np.extract(M2 > 0, M2).mean()})
V = RNG.integers(0, 40, 500)
W = RNG.integers(20, 60, 300)
add("setops-then-ops", [arr("v", V, 77), arr("w", W, 50), N("u", "union1d", ["v", "w"]),
                        N("i", "intersect1d", ["v", "w"]), N("us", "cumsum", ["u"]),
                        N("ii", "multiply", ["i", "i"])],
    {"us": np.cumsum(np.union1d(V, W)), "ii": np.intersect1d(V, W) ** 2})
add("empty-held", [arr("x", X, 100), N("p", "greater", ["x", 1000]), mask("e", "x", "p"),
                   N("es", "sum", ["e"]), N("ea", "add", ["e", 1])],
    {"es": np.float64(0), "ea": np.zeros(0)})
# a held (N, 0) result has no column to carry its dtype: the blob does
# (frame_t.vtype); bool and int64 stay so when fetched and in the later run
E0 = np.zeros((9, 0), dtype=bool)
R9 = np.array([1, 1, 0, 1, 0, 0, 1, 1, 1], dtype=bool)
add("held-no-columns-keeps-dtype",
    [N("z", "zeros", shape=[9, 0], dtype="float64", chunk_size=[2, 1]),
     N("b", "equal", ["z", 3]), arr("r", R9), N("i", "astype", ["z"], dtype="int64"),
     N("hb", "getitem", ["b", "r"], index=[{"input": 1}, ":"]),
     N("hi", "getitem", ["i", "r"], index=[{"input": 1}, ":"]),
     N("bb", "add", ["hb", "hb"]), N("ii", "add", ["hi", "hi"])],
    {"hb": E0[R9], "hi": np.zeros((9, 0), dtype=np.int64)[R9], "bb": E0[R9] + E0[R9],
     "ii": np.zeros((6, 0), dtype=np.int64)})
BIG = np.arange(3_000_000, dtype=np.float64)  # 24 MB: two chunks in the later run
add("big-held", [N("a", "arange", stop=3_000_000, dtype="float64", chunk_size=400_000),
                 N("p", "greater_equal", ["a", 0]), mask("b", "a", "p"),
                 N("bs", "sum", ["b"]), N("bl", "getitem", ["b"], index=["2999990:"])],
    {"bs": BIG.sum(), "bl": BIG[2999990:]})
add("held-only-fetched", [arr("x", X, 90), N("p", "greater", ["x", 0]), mask("xp", "x", "p"),
                          N("unused", "sum", ["xp"])],
    {"xp": X[X > 0]})


def random_consistent(suite):
    """A random input without a seed is drawn once: the values of the mask's
    source and of the later run agree."""
    d = {"version": 1, "nodes": [
        N("r", "random.rand", shape=[5000], chunk_size=777), N("p", "greater", ["r", 0.5]),
        mask("rp", "r", "p"), N("s", "sum", ["rp"]), N("r2", "multiply", ["r", 2])],
        "fetch": ["r", "s", "r2"]}
    res = harness.run_mars(d)
    try:
        if res.rc != 0:
            return suite.fail("random-drawn-once", res.brief_error(), doc=d)
        r = res.load("r")
        ok = np.isclose(res.load("s"), r[r > 0.5].sum(), rtol=1e-12) and np.array_equal(
            res.load("r2"), r * 2)
        seeds = [ln for ln in res.stderr_lines() if "drew seed" in ln]
        suite.check("random-drawn-once", ok and len(seeds) == 1,
                    "values differ between the runs, or seeds reported %r" % seeds, doc=d)
    finally:
        harness.cleanup(res)


def errors(suite):
    base = [arr("x", X, 100), N("p", "greater", ["x", 0]), mask("xp", "x", "p")]
    bad = [("later-node-refused", base + [N("s", "sum", ["xp"], axis=3)], "s", "sum", 2),
           ("later-node-bad-shape", base + [N("d", "dot", ["xp", "x"])], "d", "dot", 2),
           ("stage-fails-at-run", [arr("x", X, 100), arr("i", np.array([3, 5000])),
                                   N("g", "getitem", ["x", "i"], index=[{"input": 1}]),
                                   N("p", "greater", ["g", 0]), mask("gp", "g", "p"),
                                   N("s", "sum", ["gp"])], "g", "getitem", 1)]
    for name, nodes, key, op, rc in bad:
        d = {"version": 1, "nodes": nodes, "fetch": [nodes[-1]["key"]]}
        r = harness.run_mars(d)
        try:
            want = 'node "%s" (%s)' % (key, op)
            suite.check("error/" + name, r.rc == rc and want in r.stderr,
                        "exit %d (want %d), message %r lacks %r" % (r.rc, rc, r.brief_error(),
                                                                   want), doc=d)
        finally:
            harness.cleanup(r)


def main():
    suite = harness.Suite("held_stage")
    harness.require_mars_run(suite)
    for name, nodes, want, rtol in cases:
        d = {"version": 1, "nodes": nodes, "fetch": list(want)}
        r = harness.run_mars(d)
        try:
            if r.rc != 0:
                suite.fail(name, "exit %d: %s" % (r.rc, r.brief_error()), doc=d)
                continue
            why = ""
            for k, e in want.items():
                got = r.load(k)
                e = np.asarray(e)
                if got.shape != e.shape or got.dtype != e.dtype:
                    why = "%s: %s %s, numpy %s %s" % (k, got.shape, got.dtype, e.shape, e.dtype)
                elif not np.allclose(got, e, rtol=rtol, atol=1e-9):
                    why = "%s differs from numpy" % k
                if why:
                    break
            suite.check(name, not why, why, doc=d)
        finally:
            harness.cleanup(r)
    random_consistent(suite)
    errors(suite)
    suite.finish()


if __name__ == "__main__":
    main()
