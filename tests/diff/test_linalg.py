#!/usr/bin/python3
"""Differential cases of the linalg branch's ops (linalg.cholesky,
linalg.solve, linalg.inv, linalg.det, linalg.norm, linalg.matrix_rank,
trace, diagonal, vdot, einsum, diag, tril, triu) against numpy 1.24:
uneven chunks (several blocks per axis for the blocked Cholesky and the
chunked diagonals), float32/float64, integer and bool inputs promoted as
numpy promotes them, stacked matrices, the documents numpy refuses (exit 2
naming the node), numpy's LinAlgError at run time ("Singular matrix",
"Matrix is not positive definite": exit 1 naming the node), and the
single-block size limit.

Inputs are well conditioned (random + n*I; SPD as AᵀA + n*I), so float64
results agree to 1e-6 relative and float32 to 1e-3.

Run: /usr/bin/python3 tests/diff/test_linalg.py   (DIFF_ONLY=substring)
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

RNG = np.random.default_rng(20261123)
cases = []    # (name, nodes, expected value of node "r", rtol)
rejects = []  # (name, nodes, substring of the message)
errors = []   # (name, nodes, substring of the run-time message)


def N(key, op, inputs=None, **params):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = list(inputs)
    n.update(params)
    return n


def A(key, data, dtype, chunk):
    """An array node and numpy's value of it."""
    v = np.asarray(data).astype(dtype)
    return N(key, "array", data=np.asarray(data).tolist(), dtype=dtype, chunk_size=chunk), v


def spd(n):
    m = RNG.normal(size=(n, n))
    return m.T @ m + n * np.eye(n)


def well(n, *batch):
    return RNG.normal(size=batch + (n, n)) + n * np.eye(n)


def rtol_of(dt):
    return 1e-3 if dt == "float32" else 1e-6


def case(name, nodes, expected, rtol=1e-6):
    seen, uniq = set(), []
    for n in nodes:  # an operand given twice is one node
        if n["key"] not in seen:
            seen.add(n["key"])
            uniq.append(n)
    cases.append((name, uniq, np.asarray(expected), rtol))


def reject(name, nodes, text):
    rejects.append((name, nodes, text))


def error(name, nodes, text):
    errors.append((name, nodes, text))


def ints(shape, lo=-5, hi=6):
    return RNG.integers(lo, hi, size=shape)


# ---------------------------------------------------------------- cholesky
# (70, 2): 35 row chunks, more than 32 blocks a side: even blocks of 3
for n, ch in [(1, 1), (7, 3), (13, [4, 5]), (40, 7), (33, 33), (70, 2), (20, [20, 3])]:
    for dt in ["float64", "float32"]:
        a, av = A("a", spd(n), dt, ch)
        case("cholesky/%d/%s/chunks=%s" % (n, dt, ch), [a, N("r", "linalg.cholesky", ["a"])],
             np.linalg.cholesky(av), rtol_of(dt))
m = ints((6, 6), -3, 4)
a, av = A("a", m.T @ m + 6 * np.eye(6, dtype=int), "int64", 4)
case("cholesky/int64-promoted", [a, N("r", "linalg.cholesky", ["a"])], np.linalg.cholesky(av))
a, _ = A("a", [[1.0]], "float64", 1)
case("cholesky/empty", [N("a", "zeros", shape=[0, 0]), N("r", "linalg.cholesky", ["a"])],
     np.linalg.cholesky(np.zeros((0, 0))))
a, av = A("a", np.stack([spd(5), spd(5), spd(5)]), "float64", [2, 3, 2])
case("cholesky/stacked", [a, N("r", "linalg.cholesky", ["a"])], np.linalg.cholesky(av))
a, av = A("a", spd(9), "float64", 2)
case("cholesky/then-matmul", [a, N("l", "linalg.cholesky", ["a"]), N("lt", "transpose", ["l"]),
                              N("r", "matmul", ["l", "lt"])], av)
bad = spd(8)
bad[5, 5] = -50.0
a, _ = A("a", bad, "float64", 3)
error("cholesky/not-positive-definite", [a, N("r", "linalg.cholesky", ["a"])],
      "Matrix is not positive definite")
a, _ = A("a", RNG.normal(size=(3, 4)), "float64", 2)
reject("cholesky/not-square", [a, N("r", "linalg.cholesky", ["a"])],
       "Last 2 dimensions of the array must be square")
a, _ = A("a", [1.0, 2.0], "float64", 1)
reject("cholesky/1-d", [a, N("r", "linalg.cholesky", ["a"])], "at least two-dimensional")

# ---------------------------------------------------------------- solve, inv, det
for n, ch in [(1, 1), (6, 4), (17, [5, 7])]:
    for dt in ["float64", "float32"]:
        a, av = A("a", well(n), dt, ch)
        b, bv = A("b", RNG.normal(size=n), dt, 3)
        c, cv = A("c", RNG.normal(size=(n, 3)), dt, [4, 2])
        case("solve/vector/%d/%s" % (n, dt), [a, b, N("r", "linalg.solve", ["a", "b"])],
             np.linalg.solve(av, bv), rtol_of(dt))
        case("solve/matrix/%d/%s" % (n, dt), [a, c, N("r", "linalg.solve", ["a", "c"])],
             np.linalg.solve(av, cv), rtol_of(dt))
        case("inv/%d/%s" % (n, dt), [a, N("r", "linalg.inv", ["a"])], np.linalg.inv(av),
             rtol_of(dt))
        case("det/%d/%s" % (n, dt), [a, N("r", "linalg.det", ["a"])], np.linalg.det(av),
             rtol_of(dt))
a, av = A("a", ints((5, 5)) + 9 * np.eye(5, dtype=int), "int32", 2)
b, bv = A("b", ints(5), "int64", 2)
case("solve/int-promoted", [a, b, N("r", "linalg.solve", ["a", "b"])], np.linalg.solve(av, bv))
case("inv/int-promoted", [a, N("r", "linalg.inv", ["a"])], np.linalg.inv(av))
case("det/int-promoted", [a, N("r", "linalg.det", ["a"])], np.linalg.det(av))
a, av = A("a", well(4, 3), "float64", [2, 3, 3])
b, bv = A("b", RNG.normal(size=(3, 4)), "float64", 2)
c, cv = A("c", RNG.normal(size=(3, 4, 2)), "float32", 2)
case("solve/stacked-vector", [a, b, N("r", "linalg.solve", ["a", "b"])], np.linalg.solve(av, bv))
case("solve/stacked-matrix/mixed-dtype", [a, c, N("r", "linalg.solve", ["a", "c"])],
     np.linalg.solve(av, cv))
case("inv/stacked", [a, N("r", "linalg.inv", ["a"])], np.linalg.inv(av))
case("det/stacked", [a, N("r", "linalg.det", ["a"])], np.linalg.det(av))
z = N("a", "zeros", shape=[0, 0])
case("inv/empty", [z, N("r", "linalg.inv", ["a"])], np.linalg.inv(np.zeros((0, 0))))
case("det/empty", [z, N("r", "linalg.det", ["a"])], np.linalg.det(np.zeros((0, 0))))
a, av = A("a", [[2.0, 4.0, 1.0], [1.0, 2.0, 3.0], [3.0, 6.0, 0.5]], "float64", 2)
case("det/singular-is-zero", [a, N("r", "linalg.det", ["a"])], np.linalg.det(av))
b, _ = A("b", [1.0, 2.0, 3.0], "float64", 2)
error("inv/singular", [a, N("r", "linalg.inv", ["a"])], "Singular matrix")
error("solve/singular", [a, b, N("r", "linalg.solve", ["a", "b"])], "Singular matrix")
b4, _ = A("b", [1.0, 2.0, 3.0, 4.0], "float64", 2)
reject("solve/mismatch", [a, b4, N("r", "linalg.solve", ["a", "b"])], "mismatch")
a, _ = A("a", RNG.normal(size=(2, 3)), "float64", 2)
reject("inv/not-square", [a, N("r", "linalg.inv", ["a"])], "must be square")
reject("det/unknown-field", [a, N("r", "linalg.det", ["a"], axis=0)], 'unknown field "axis"')

# ---------------------------------------------------------------- norm
x, xv = A("x", RNG.normal(size=(6, 7)), "float64", [4, 3])
v, vv = A("v", RNG.normal(size=11), "float64", 4)
t, tv = A("t", RNG.normal(size=(3, 4, 5)), "float32", [2, 3, 2])
for ordv, o in [(None, None), ("fro", "fro"), ("nuc", "nuc"), ("inf", np.inf), ("-inf", -np.inf),
                (1, 1), (-1, -1), (2, 2), (-2, -2)]:
    kw = {} if ordv is None else {"ord": ordv}
    case("norm/matrix/ord=%s" % ordv, [x, N("r", "linalg.norm", ["x"], **kw)],
         np.linalg.norm(xv, o))
    case("norm/matrix/ord=%s/axis=(2,0)/keepdims" % ordv,
         [t, N("r", "linalg.norm", ["t"], axis=[2, 0], keepdims=True, **kw)],
         np.linalg.norm(tv, o, axis=(2, 0), keepdims=True), 1e-4)
for ordv, o in [(None, None), ("inf", np.inf), ("-inf", -np.inf), (0, 0), (1, 1), (2, 2),
                (3, 3), (0.5, 0.5), (-1, -1)]:
    kw = {} if ordv is None else {"ord": ordv}
    case("norm/vector/ord=%s" % ordv, [v, N("r", "linalg.norm", ["v"], **kw)],
         np.linalg.norm(vv, o))
    case("norm/vector/ord=%s/axis=1" % ordv, [t, N("r", "linalg.norm", ["t"], axis=1, **kw)],
         np.linalg.norm(tv, o, axis=1), 1e-4)
case("norm/flat-3d", [t, N("r", "linalg.norm", ["t"])], np.linalg.norm(tv), 1e-4)
case("norm/flat-3d/keepdims", [t, N("r", "linalg.norm", ["t"], keepdims=True)],
     np.linalg.norm(tv, keepdims=True), 1e-4)
# over the single-block limit: the flat norm is chunked (sum-of-squares jobs)
case("norm/flat-over-single-block-limit",
     [N("a", "ones", shape=[4200, 4100], chunk_size=[1000, 4100]), N("r", "linalg.norm", ["a"])],
     np.sqrt(np.float64(4200 * 4100)))
i, iv = A("i", ints((4, 5)), "int32", 3)
case("norm/int-promoted", [i, N("r", "linalg.norm", ["i"], ord=1)], np.linalg.norm(iv, 1))
bo, bov = A("bo", RNG.random(7) < 0.5, "bool", 3)
case("norm/bool-promoted", [bo, N("r", "linalg.norm", ["bo"])], np.linalg.norm(bov))
reject("norm/3d-with-ord", [t, N("r", "linalg.norm", ["t"], ord=2)], "Improper number of dimensions")
reject("norm/fro-vector", [v, N("r", "linalg.norm", ["v"], ord="fro")], "Invalid norm order")
reject("norm/bad-matrix-ord", [x, N("r", "linalg.norm", ["x"], ord=3)], "Invalid norm order for matrices")
reject("norm/duplicate-axes", [x, N("r", "linalg.norm", ["x"], axis=[1, -1])], "Duplicate axes")
reject("norm/axis-out-of-bounds", [x, N("r", "linalg.norm", ["x"], axis=2)], "out of bounds")
reject("norm/bad-ord", [x, N("r", "linalg.norm", ["x"], ord="max")], '"ord" must be')

# ---------------------------------------------------------------- matrix_rank
lowrank = RNG.normal(size=(9, 3)) @ RNG.normal(size=(3, 7))
for dt in ["float64", "float32"]:
    a, av = A("a", lowrank, dt, [4, 3])
    case("matrix_rank/low/%s" % dt, [a, N("r", "linalg.matrix_rank", ["a"])],
         np.linalg.matrix_rank(av))
a, av = A("a", well(6), "float64", 4)
case("matrix_rank/full", [a, N("r", "linalg.matrix_rank", ["a"])], np.linalg.matrix_rank(av))
case("matrix_rank/tol", [a, N("r", "linalg.matrix_rank", ["a"], tol=6.5)],
     np.linalg.matrix_rank(av, tol=6.5))
a, av = A("a", np.stack([lowrank, RNG.normal(size=(9, 7))]), "float64", [1, 4, 4])
case("matrix_rank/stacked", [a, N("r", "linalg.matrix_rank", ["a"])], np.linalg.matrix_rank(av))
a, av = A("a", [0, 0, 0], "int32", 2)
case("matrix_rank/1-d-zero", [a, N("r", "linalg.matrix_rank", ["a"])], np.linalg.matrix_rank(av))
a, av = A("a", [0.0, 0.5, 0.0], "float64", 2)
case("matrix_rank/1-d", [a, N("r", "linalg.matrix_rank", ["a"])], np.linalg.matrix_rank(av))

# ---------------------------------------------------------------- trace, diagonal, diag
for dt in ["float64", "float32", "int32", "int64", "bool"]:
    data = RNG.random((9, 12)) < 0.5 if dt == "bool" else (
        ints((9, 12)) if dt.startswith("int") else RNG.normal(size=(9, 12)))
    a, av = A("a", data, dt, [4, 5])
    for off in [0, 2, -3, 11, -9, 20]:
        # float32 sums: numpy's in float32, the engine's in float64
        case("trace/%s/offset=%d" % (dt, off), [a, N("r", "trace", ["a"], offset=off)],
             np.trace(av, off), 1e-3 if dt == "float32" else 1e-6)
        case("diagonal/%s/offset=%d" % (dt, off), [a, N("r", "diagonal", ["a"], offset=off)],
             np.diagonal(av, off))
        case("diag/2-d/%s/k=%d" % (dt, off), [a, N("r", "diag", ["a"], k=off)], np.diag(av, off))
a, av = A("a", RNG.normal(size=(5, 6, 7, 3)), "float64", [2, 4, 3, 2])
for a1, a2, off in [(0, 1, 0), (1, 2, 1), (2, 0, -2), (-1, 1, 1), (3, 2, 0)]:
    case("diagonal/4-d/axes=%d,%d/offset=%d" % (a1, a2, off),
         [a, N("r", "diagonal", ["a"], axis1=a1, axis2=a2, offset=off)],
         np.diagonal(av, off, a1, a2))
    case("trace/4-d/axes=%d,%d/offset=%d" % (a1, a2, off),
         [a, N("r", "trace", ["a"], axis1=a1, axis2=a2, offset=off)], np.trace(av, off, a1, a2))
i, iv = A("i", ints((4, 4)), "int32", 3)
case("trace/dtype=float32", [i, N("r", "trace", ["i"], dtype="float32")],
     np.trace(iv, dtype=np.float32))
reject("trace/same-axes", [a, N("r", "trace", ["a"], axis1=1, axis2=-3)], "cannot be the same")
reject("diagonal/1-d", [v, N("r", "diagonal", ["v"])], "at least two dimensions")
for k in [0, 1, -2, 5]:
    for dt in ["float64", "int32"]:
        vd = ints(7) if dt == "int32" else RNG.normal(size=7)
        a, av = A("a", vd, dt, 3)
        case("diag/1-d/%s/k=%d" % (dt, k), [a, N("r", "diag", ["a"], k=k)], np.diag(av, k))
reject("diag/3-d", [a_ for a_ in [A("a", np.zeros((2, 2, 2)), "float64", 1)[0]]] +
       [N("r", "diag", ["a"])], "Input must be 1- or 2-d")

# ---------------------------------------------------------------- tril, triu
for op, fn in [("tril", np.tril), ("triu", np.triu)]:
    for k in [0, 1, -2, 9, -9]:
        a, av = A("a", RNG.normal(size=(7, 9)), "float64", [3, 4])
        case("%s/k=%d" % (op, k), [a, N("r", op, ["a"], k=k)], fn(av, k))
    a, av = A("a", ints((3, 5, 4)), "int32", [2, 2, 3])
    case("%s/3-d/int32" % op, [a, N("r", op, ["a"], k=1)], fn(av, 1))
    a, av = A("a", RNG.random((5, 5)) < 0.5, "bool", 2)
    case("%s/bool" % op, [a, N("r", op, ["a"], k=-1)], fn(av, -1))
    a, av = A("a", RNG.normal(size=6), "float32", 4)
    case("%s/1-d" % op, [a, N("r", op, ["a"])], fn(av))
    a, av = A("a", RNG.normal(size=(4, 5)), "float64", 3)
    for k in [2 ** 62, -2 ** 62]:
        case("%s/k=%d" % (op, k), [a, N("r", op, ["a"], k=k)], fn(av, k))
a, av = A("a", RNG.normal(size=(4, 5)), "float64", 3)
for k in [2 ** 31 - 1, -(2 ** 31 - 1)]:  # numpy 1.24 crashes on -2**31
    case("trace/offset=%d" % k, [a, N("r", "trace", ["a"], offset=k)], np.trace(av, k))
    case("diagonal/offset=%d" % k, [a, N("r", "diagonal", ["a"], offset=k)], np.diagonal(av, k))
a, _ = A("a", [1.0, 2.0], "float64", 1)
reject("diag/huge-k", [a, N("r", "diag", ["a"], k=2 ** 62)], "more")

# ---------------------------------------------------------------- vdot
for da, db in [("float64", "float64"), ("float32", "float32"), ("int32", "int64"),
               ("int32", "float32"), ("bool", "bool")]:
    def val(dt, shape):
        if dt == "bool":
            return RNG.random(shape) < 0.5
        return ints(shape) if dt.startswith("int") else RNG.normal(size=shape)
    a, av = A("a", val(da, (4, 6)), da, [3, 4])
    b, bv = A("b", val(db, (3, 8)), db, [2, 3])
    case("vdot/%s-%s" % (da, db), [a, b, N("r", "vdot", ["a", "b"])], np.vdot(av, bv),
         1e-4 if "float32" in (da, db) else 1e-6)
b5, _ = A("b", np.ones(5), "float64", 2)
reject("vdot/sizes", [a, b5, N("r", "vdot", ["a", "b"])], "same number")

# ---------------------------------------------------------------- einsum
X, Xv = A("X", RNG.normal(size=(4, 5)), "float64", [3, 2])
Y, Yv = A("Y", RNG.normal(size=(5, 6)), "float64", [2, 4])
Z, Zv = A("Z", RNG.normal(size=(4, 4)), "float64", 3)
B3, B3v = A("B3", RNG.normal(size=(3, 4, 5)), "float32", [2, 3, 2])
C3, C3v = A("C3", RNG.normal(size=(3, 5, 2)), "float32", [2, 2, 2])
I1, I1v = A("I1", ints(5), "int32", 2)
I2, I2v = A("I2", ints((5, 3)), "int32", 2)
V, Vv = A("V", RNG.normal(size=4), "float64", 3)
ein = [
    ("ij,jk->ik", [X, Y], [Xv, Yv]),
    ("ij,jk", [X, Y], [Xv, Yv]),
    ("ij,jk->ki", [X, Y], [Xv, Yv]),
    ("ii", [Z], [Zv]),
    ("ii->i", [Z], [Zv]),
    ("ij->", [X], [Xv]),
    ("ij->j", [X], [Xv]),
    ("ji", [X], [Xv]),
    ("i,i", [V, V], [Vv, Vv]),
    ("i,j->ij", [V, I1], [Vv, I1v]),
    ("bij,bjk->bik", [B3, C3], [B3v, C3v]),
    ("bij,bjk->", [B3, C3], [B3v, C3v]),
    ("...ij,...jk->...ik", [B3, C3], [B3v, C3v]),
    ("i...->...", [B3], [B3v]),
    ("ij,jk,kl->il", [X, Y, A("W", RNG.normal(size=(6, 2)), "float64", 4)[0]], None),
    ("i,ij->j", [I1, I2], [I1v, I2v]),
    ("ij,ij->i", [I2, I2], [I2v, I2v]),
    ("ii,i->i", [Z, V], [Zv, Vv]),
    ("Ab,bC->CA", [X, Y], [Xv, Yv]),
    # lowered onto tensordot: the same operand twice (syrk blocks), a double
    # contraction against a transpose, bools, a pure transpose
    ("ij,kj->ik", [X, X], [Xv, Xv]),
    ("ij,ji->", [Z, Z], [Zv, Zv]),
    ("ij,jk->ik", [A("P", RNG.random((5, 6)) < 0.5, "bool", [2, 4])[0],
                   A("Q", RNG.random((6, 3)) < 0.5, "bool", [5, 2])[0]], None),
    ("kji->ijk", [B3], [B3v]),
]
for s, ins, vals in ein:
    if vals is None:  # the operands' values from their nodes
        vals = [np.asarray(n["data"]).astype(n["dtype"]) for n in ins]
    exp = np.einsum(s, *vals)
    case("einsum/%s" % s, list(ins) + [N("r", "einsum", [n["key"] for n in ins], subscripts=s)],
         exp, 1e-4 if any(v.dtype == np.float32 for v in vals) else 1e-6)
reject("einsum/operand-count", [X, N("r", "einsum", ["X"], subscripts="ij,jk")], "more operands")
reject("einsum/operand-count-more", [X, Y, N("r", "einsum", ["X", "Y"], subscripts="ij")],
       "fewer operands")
reject("einsum/dims", [X, N("r", "einsum", ["X"], subscripts="ijk")], "dimensions")
reject("einsum/output-label", [X, N("r", "einsum", ["X"], subscripts="ij->k")], "never appeared")
reject("einsum/sizes", [X, Z, N("r", "einsum", ["X", "Z"], subscripts="ij,jk")],
       "could not be broadcast")
reject("einsum/bad-char", [X, N("r", "einsum", ["X"], subscripts="i2")], "invalid subscript")
reject("einsum/missing", [X, N("r", "einsum", ["X"])], '"subscripts" is missing')

# ---------------------------------------------------------------- the single-block limit
reject("inv/over-single-block-limit",
       [N("a", "ones", shape=[4097, 4097], chunk_size=1024), N("r", "linalg.inv", ["a"])],
       "single-block limit")


# ---------------------------------------------------------------- running
def prefixed(nodes, p):
    out = []
    for n in nodes:
        m = dict(n)
        m["key"] = p + n["key"]
        if "inputs" in m:
            m["inputs"] = [p + k if isinstance(k, str) else k for k in m["inputs"]]
        out.append(m)
    return out


def check_values(suite, batch, r):
    bad = []
    for idx, (name, nodes, exp, rtol) in batch:
        p = os.path.join(r.outdir, "c%d.r.npy" % idx)
        if not os.path.exists(p):
            bad.append((idx, name, nodes, "c%d.r.npy not written" % idx))
            continue
        got = np.load(p, allow_pickle=False)
        why = harness.compare(exp, got, rtol=rtol, atol=rtol * 1e-2)
        if why:
            bad.append((idx, name, nodes, why))
        else:
            suite.ok(name)
    return bad


def run_values(suite, items):
    batch = list(enumerate(items))
    nodes, fetch = [], []
    for idx, (name, ns, exp, rtol) in batch:
        nodes += prefixed(ns, "c%d." % idx)
        fetch.append("c%d.r" % idx)
    r = harness.run_mars({"version": 1, "nodes": nodes, "fetch": fetch})
    try:
        if r.rc == 0:
            bad = check_values(suite, batch, r)
        else:
            bad = [(idx, name, ns, None) for idx, (name, ns, _, _) in batch]
    finally:
        harness.cleanup(r)
    for idx, name, ns, why in bad:
        if why is None:  # the batch failed: this case alone
            r = harness.run_mars({"version": 1, "nodes": prefixed(ns, "c%d." % idx),
                                  "fetch": ["c%d.r" % idx]})
            try:
                if r.rc != 0:
                    suite.fail(name, "exit %d: %s" % (r.rc, r.brief_error()),
                               {"version": 1, "nodes": ns, "fetch": ["r"]})
                    continue
                rest = check_values(suite, [(idx, items[idx])], r)
            finally:
                harness.cleanup(r)
            if rest:
                suite.fail(name, rest[0][3], {"version": 1, "nodes": ns, "fetch": ["r"]})
        else:
            suite.fail(name, why, {"version": 1, "nodes": ns, "fetch": ["r"]})


def run_failures(suite, items, want_rc):
    for name, nodes, text in items:
        d = {"version": 1, "nodes": nodes, "fetch": ["r"]}
        r = harness.run_mars(d)
        try:
            lines = r.stderr_lines()
            op = nodes[-1]["op"]
            want = 'node "r" (%s):' % op
            if r.rc != want_rc:
                why = "exit %d, expected %d: %s" % (r.rc, want_rc, r.brief_error())
            elif not any(want in ln and text in ln for ln in lines):
                why = "stderr does not say %s ... %s: %r" % (want, text, r.stderr[:400])
            elif [f for f in r.files() if f.endswith(".npy")]:
                why = "wrote .npy files although it failed"
            else:
                why = None
        finally:
            harness.cleanup(r)
        if why:
            suite.fail(name, why, d)
        else:
            suite.ok(name)


def main():
    suite = harness.Suite("test_linalg")
    harness.require_mars_run(suite)
    sel = os.environ.get("DIFF_ONLY")
    cs = [c for c in cases if not sel or sel in c[0]]
    print("# %d cases, %d rejections, %d run-time errors" % (len(cs), len(rejects), len(errors)),
          flush=True)
    run_values(suite, cs)
    run_failures(suite, [x for x in rejects if not sel or sel in x[0]], 2)
    run_failures(suite, [x for x in errors if not sel or sel in x[0]], 1)
    suite.finish()


if __name__ == "__main__":
    main()
