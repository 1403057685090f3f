#!/usr/bin/python3
"""linalg.qr, linalg.svd, linalg.eigh, linalg.slogdet and linalg.lstsq
through mars-run against numpy 1.24 (engine/la2.h).

Factorisations are unique only up to signs (and, for repeated values, a
basis), so the checks are numpy's own invariants: q r equals a, q's columns
are orthonormal, |r| equals numpy's |r| (both from Householder QR: equal up
to the signs of r's rows), singular values and eigenvalues equal numpy's,
u s vh equals a with orthonormal u and vh, a v equals v w, and slogdet's
sign and logarithm equal numpy's (0 and -inf for a singular matrix). The
shapes and dtypes are numpy's (float32 stays float32, integers become
float64). Tall matrices in several row chunks go through TSQR (uneven row
chunks, chunks shorter than the columns, one row per chunk), the others
through one job. lstsq's x, residuals, rank and s equal numpy's (both
LAPACK's gelsd) for full-rank and rank-deficient, tall, square and wide
matrices, one and several right-hand sides and each rcond; the residuals
are empty where numpy's are. The refusals name the node.

Run: /usr/bin/python3 tests/diff/test_linalg2.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

RNG = np.random.default_rng(20261124)


def N(key, op, inputs=None, **kw):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = list(inputs)
    n.update(kw)
    return n


def arr(key, a, chunk):
    n = N(key, "array", data=a.tolist(), dtype=str(a.dtype))
    if chunk is not None:
        n["chunk_size"] = chunk
    return n


def tol(dt):
    return (2e-4, 2e-4) if dt == np.float32 else (1e-9, 1e-9)


def out_dt(a):
    return np.float32 if a.dtype == np.float32 else np.float64


def check_qr(a, q, r):
    rt, at = tol(out_dt(a))
    k = min(a.shape)
    if q.shape != (a.shape[0], k) or r.shape != (k, a.shape[1]):
        return "shapes %s %s" % (q.shape, r.shape)
    if q.dtype != out_dt(a) or r.dtype != out_dt(a):
        return "dtypes %s %s" % (q.dtype, r.dtype)
    scale = max(1.0, np.abs(a).max())
    if not np.allclose(q.astype(float) @ r.astype(float), a, rtol=rt, atol=at * scale * 10):
        return "q r differs from a"
    if not np.allclose(q.T.astype(float) @ q.astype(float), np.eye(k), atol=at * 100):
        return "q's columns are not orthonormal"
    if not np.allclose(np.triu(r), r):
        return "r is not upper triangular"
    nr = np.linalg.qr(a.astype(float))[1]
    if not np.allclose(np.abs(r), np.abs(nr), rtol=rt * 100, atol=at * scale * 100):
        return "|r| differs from numpy's"
    return None


def check_svd(a, u, s, vh, uv=True):
    rt, at = tol(out_dt(a))
    k = min(a.shape)
    ns = np.linalg.svd(a.astype(float), compute_uv=False)
    scale = max(1.0, np.abs(a).max())
    if s.shape != (k,) or s.dtype != out_dt(a):
        return "s: %s %s" % (s.shape, s.dtype)
    if not np.allclose(s, ns, rtol=rt * 100, atol=at * scale * 100):
        return "singular values differ from numpy's"
    if not uv:
        return None
    if u.shape != (a.shape[0], k) or vh.shape != (k, a.shape[1]):
        return "shapes %s %s" % (u.shape, vh.shape)
    if not np.allclose((u.astype(float) * s) @ vh.astype(float), a, rtol=rt, atol=at * scale * 100):
        return "u s vh differs from a"
    if not np.allclose(u.T.astype(float) @ u.astype(float), np.eye(k), atol=at * 1000):
        return "u is not orthonormal"
    return None


cases = []  # (name, nodes, fetch, check(results) -> None or why)


def add_qr(name, a, chunk):
    cases.append((name, [arr("a", a, chunk), N("f", "linalg.qr", ["a"], outputs=["q", "r"])],
                  ["q", "r"], lambda g, a=a: check_qr(a, g["q"], g["r"])))


def add_svd(name, a, chunk, uv=True):
    nodes = [arr("a", a, chunk)]
    if uv:
        nodes.append(N("f", "linalg.svd", ["a"], full_matrices=False, outputs=["u", "s", "vh"]))
        cases.append((name, nodes, ["u", "s", "vh"],
                      lambda g, a=a: check_svd(a, g["u"], g["s"], g["vh"])))
    else:
        nodes.append(N("f", "linalg.svd", ["a"], compute_uv=False, outputs=["s"]))
        cases.append((name, nodes, ["s"], lambda g, a=a: check_svd(a, None, g["s"], None, False)))


for shape, chunk in [((200, 5), [37, 5]), ((200, 5), [3, 2]), ((64, 8), [1, 8]),
                     ((97, 13), [20, 13]), ((12, 12), [5, 5]), ((30, 4), None),
                     ((9, 14), [4, 4]), ((1, 6), None), ((6, 1), [2, 1]), ((50, 50), [10, 50])]:
    for dt in ("float64", "float32"):
        a = RNG.standard_normal(shape).astype(dt)
        add_qr("qr/%dx%d-%s-%s" % (shape + (chunk, dt)), a, chunk)
        add_svd("svd/%dx%d-%s-%s" % (shape + (chunk, dt)), a, chunk)
add_qr("qr/int64", RNG.integers(-5, 6, (40, 6)), [7, 6])
add_svd("svd/int64", RNG.integers(-5, 6, (40, 6)), [7, 6])
add_svd("svd/values-only-tall", RNG.standard_normal((300, 6)), [45, 3], uv=False)
add_svd("svd/values-only-wide", RNG.standard_normal((6, 30)), 4, uv=False)
rank1 = np.outer(np.arange(1.0, 41), np.arange(1.0, 6))
add_qr("qr/rank-deficient", rank1, [9, 5])
add_svd("svd/rank-deficient", rank1, [9, 5])
sq = RNG.standard_normal((7, 7))
cases.append(("svd/square-full-matrices", [arr("a", sq, 3), N("f", "linalg.svd", ["a"],
                                                                outputs=["u", "s", "vh"])],
              ["u", "s", "vh"], lambda g: check_svd(sq, g["u"], g["s"], g["vh"])))


def check_eigh(a, w, v, uplo):
    rt, at = tol(out_dt(a))
    full = np.tril(a) + np.tril(a, -1).T if uplo == "L" else np.triu(a) + np.triu(a, 1).T
    nw = np.linalg.eigh(a.astype(float), UPLO=uplo)[0]
    n = a.shape[0]
    if w.shape != (n,) or v.shape != (n, n) or w.dtype != out_dt(a):
        return "shapes/dtype %s %s %s" % (w.shape, v.shape, w.dtype)
    scale = max(1.0, np.abs(a).max()) * n
    if not np.allclose(w, nw, rtol=rt * 100, atol=at * scale * 100):
        return "eigenvalues differ from numpy's"
    if not np.allclose(full.astype(float) @ v.astype(float), v.astype(float) * w,
                       atol=at * scale * 100):
        return "a v != v w"
    if not np.allclose(v.T.astype(float) @ v.astype(float), np.eye(n), atol=at * 1000):
        return "v is not orthonormal"
    return None


for n, chunk in [(6, 4), (20, 7), (1, None), (33, [10, 33])]:
    for dt in ("float64", "float32"):
        s = RNG.standard_normal((n, n)).astype(dt)
        for uplo in ("L", "U"):
            kw = {} if uplo == "L" else {"UPLO": "U"}
            cases.append(("eigh/%d-%s-%s" % (n, dt, uplo),
                          [arr("a", s, chunk), N("f", "linalg.eigh", ["a"], outputs=["w", "v"],
                                                 **kw)],
                          ["w", "v"], lambda g, s=s, uplo=uplo: check_eigh(s, g["w"], g["v"], uplo)))


def check_slogdet(a, sg, ld):
    nsg, nld = np.linalg.slogdet(a.astype(float))
    dt = out_dt(a)
    if sg.shape != () or ld.shape != () or sg.dtype != dt or ld.dtype != dt:
        return "shapes/dtypes %s %s %s" % (sg.shape, ld.shape, sg.dtype)
    if sg != nsg:
        return "sign %s, numpy %s" % (sg, nsg)
    if np.isinf(nld):
        return None if np.isinf(ld) and ld < 0 else "logdet %s, numpy -inf" % ld
    rt, _ = tol(dt)
    return None if np.isclose(ld, nld, rtol=rt * 100, atol=rt * 100) else "logdet %s, numpy %s" % (ld, nld)


for name, m in [("random", RNG.standard_normal((9, 9))), ("negative", -np.eye(3) * 2),
                ("singular", np.outer(np.arange(4.0), np.arange(4.0))),
                ("float32", RNG.standard_normal((5, 5)).astype(np.float32)),
                ("int", RNG.integers(-3, 4, (6, 6))), ("big-logdet", np.eye(50) * 1e10),
                ("empty", np.zeros((0, 0)))]:
    cases.append(("slogdet/" + name, [arr("a", m, 4) if m.size else
                                      N("a", "zeros", shape=[0, 0]),
                                      N("f", "linalg.slogdet", ["a"], outputs=["sg", "ld"])],
                  ["sg", "ld"], lambda g, m=m: check_slogdet(m, g["sg"], g["ld"])))

import warnings  # noqa: E402


def check_lstsq(a, b, rcond, g):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's rcond="warn" FutureWarning
        kw = {} if rcond == "absent" else {"rcond": rcond}
        want = np.linalg.lstsq(a, b, **kw)
    dt = np.float32 if a.dtype == np.float32 and b.dtype == np.float32 else np.float64
    rt, at = tol(dt)
    scale = max(1.0, np.abs(a).max(), np.abs(b).max())
    for key, w in zip(("x", "res", "rk", "s"), want):
        got = g[key]
        w = np.asarray(w)
        wdt = np.float64 if key == "res" else w.dtype  # residuals are held: float64
        if got.shape != w.shape or got.dtype != wdt:
            return "%s: %s %s, numpy %s %s" % (key, got.shape, got.dtype, w.shape, w.dtype)
        if key == "rk":
            if int(got) != int(w):
                return "rank %d, numpy %d" % (got, w)
        elif not np.allclose(got, w, rtol=rt * 1000, atol=at * scale * 1000):
            return "%s differs from numpy's: %r vs %r" % (key, got, w)
    return None


def add_lstsq(name, a, b, achunk=None, bchunk=None, rcond="absent"):
    kw = {} if rcond == "absent" else {"rcond": rcond}
    nodes = [arr("a", a, achunk), arr("b", b, bchunk),
             N("f", "linalg.lstsq", ["a", "b"], outputs=["x", "res", "rk", "s"], **kw)]
    cases.append((name, nodes, ["x", "res", "rk", "s"],
                  lambda g, a=a, b=b, r=rcond: check_lstsq(a, b, r, g)))


for (m, c, k), ach in [((50, 4, None), [13, 3]), ((50, 4, 3), [7, 4]), ((6, 6, None), None),
                       ((5, 9, 2), [2, 5]), ((1, 3, None), None), ((40, 1, 2), [9, 1])]:
    for dt in ("float64", "float32"):
        a = RNG.standard_normal((m, c)).astype(dt)
        b = RNG.standard_normal((m,) if k is None else (m, k)).astype(dt)
        add_lstsq("lstsq/%dx%d-k%s-%s" % (m, c, k, dt), a, b, ach, [5] if k is None else [5, 1])
rd = np.outer(np.arange(1.0, 31), [1.0, 2.0, 3.0])  # rank 1: no residuals
add_lstsq("lstsq/rank-deficient", rd, np.arange(30.0), [8, 2])
add_lstsq("lstsq/rank-deficient-2d", rd, np.stack([np.arange(30.0), np.ones(30)], 1))
near = np.column_stack([np.arange(20.0), np.arange(20.0) + 1e-12, np.ones(20)])
for rc in ("absent", None, -1, 1e-3, "warn"):
    add_lstsq("lstsq/rcond-%s" % rc, near, np.sin(np.arange(20.0)), None, None, rc)
TA, TB = RNG.standard_normal((25, 3)), RNG.standard_normal((25, 2))
cases.append(("lstsq/held-residuals-used-in-the-document",
              [arr("a", TA, [6, 2]), arr("b", TB, [7, 2]),
               N("f", "linalg.lstsq", ["a", "b"], outputs=["x", "res", "rk", "s"]),
               N("t", "multiply", ["res", 2.0])], ["t"],
              lambda g: None if np.allclose(g["t"], 2 * np.linalg.lstsq(TA, TB, rcond=-1)[1])
              else "2 residuals %r" % g["t"]))
add_lstsq("lstsq/int64", RNG.integers(-4, 5, (12, 3)), RNG.integers(-4, 5, 12))
add_lstsq("lstsq/mixed-float32-float64", RNG.standard_normal((12, 3)).astype("float32"),
          RNG.standard_normal(12))

A2 = [N("a", "ones", shape=[4, 3])]
REJECTS = [
    ("qr-3d", [N("a", "ones", shape=[2, 3, 3]), N("f", "linalg.qr", ["a"], outputs=["q", "r"])],
     "must be two-dimensional"),
    ("qr-one-output", A2 + [N("f", "linalg.qr", ["a"], outputs=["q"])], "gives 2 results"),
    ("qr-mode-complete", A2 + [N("f", "linalg.qr", ["a"], mode="complete", outputs=["q", "r"])],
     "not supported"),
    ("qr-mode-bad", A2 + [N("f", "linalg.qr", ["a"], mode="x", outputs=["q", "r"])],
     "Unrecognized mode"),
    ("svd-full-non-square", A2 + [N("f", "linalg.svd", ["a"], outputs=["u", "s", "vh"])],
     "full_matrices"),
    ("svd-hermitian", A2 + [N("f", "linalg.svd", ["a"], hermitian=True, full_matrices=False,
                              outputs=["u", "s", "vh"])], "hermitian"),
    ("svd-values-3-outputs", A2 + [N("f", "linalg.svd", ["a"], compute_uv=False,
                                     outputs=["u", "s", "vh"])], "gives 1 result"),
    ("eigh-not-square", A2 + [N("f", "linalg.eigh", ["a"], outputs=["w", "v"])], "square"),
    ("eigh-uplo", [N("a", "ones", shape=[3, 3]),
                   N("f", "linalg.eigh", ["a"], UPLO="X", outputs=["w", "v"])], "UPLO"),
    ("slogdet-not-square", A2 + [N("f", "linalg.slogdet", ["a"], outputs=["s", "l"])], "square"),
    ("slogdet-no-outputs", A2 + [N("f", "linalg.slogdet", ["a"])], "several results"),
    ("lstsq-rows", A2 + [N("b", "ones", shape=[5]),
                         N("f", "linalg.lstsq", ["a", "b"], outputs=["x", "r", "k", "s"])],
     "Incompatible dimensions"),
    ("lstsq-b-3d", A2 + [N("b", "ones", shape=[4, 1, 1]),
                         N("f", "linalg.lstsq", ["a", "b"], outputs=["x", "r", "k", "s"])],
     "two-dimensional"),
    ("lstsq-one-input", A2 + [N("f", "linalg.lstsq", ["a"], outputs=["x", "r", "k", "s"])],
     "takes 2 inputs"),
    ("lstsq-outputs", A2 + [N("b", "ones", shape=[4]),
                            N("f", "linalg.lstsq", ["a", "b"], outputs=["x"])], "gives 4 results"),
    ("lstsq-rcond", A2 + [N("b", "ones", shape=[4]),
                          N("f", "linalg.lstsq", ["a", "b"], rcond="big",
                            outputs=["x", "r", "k", "s"])], "rcond"),
    ("unknown-field", A2 + [N("f", "linalg.qr", ["a"], axis=0, outputs=["q", "r"])],
     "unknown field"),
    ("whole-over-limit", [N("a", "ones", shape=[5000, 5000]),
                          N("f", "linalg.eigh", ["a"], outputs=["w", "v"])],
     "LA_SINGLE_MAX_ELEMS"),
    ("tsqr-merge-over-limit", [N("a", "ones", shape=[2000000, 600], chunk_size=[600, 600]),
                               N("f", "linalg.qr", ["a"], outputs=["q", "r"])],
     "LA2_MERGE_MAX_ELEMS"),
]


def main():
    suite = harness.Suite("test_linalg2")
    harness.require_mars_run(suite)
    for name, nodes, fetch, check in cases:
        d = {"version": 1, "nodes": nodes, "fetch": fetch}
        r = harness.run_mars(d)
        try:
            if r.rc != 0:
                suite.fail(name, "exit %d: %s" % (r.rc, r.brief_error()), d)
                continue
            why = check({k: r.load(k) for k in fetch})
            suite.check(name, why is None, why, d)
        finally:
            harness.cleanup(r)
    for name, nodes, words in REJECTS:
        d = {"version": 1, "nodes": nodes, "fetch": [nodes[-1].get("outputs", ["f"])[0]]}
        r = harness.run_mars(d)
        try:
            ok = r.rc == 2 and 'node "' in r.stderr and words in r.stderr
            suite.check("reject/" + name, ok, "exit %d: %s" % (r.rc, r.brief_error()), d)
        finally:
            harness.cleanup(r)
    suite.finish()


if __name__ == "__main__":
    main()
