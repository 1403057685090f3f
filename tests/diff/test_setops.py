#!/usr/bin/python3
"""Set operations and counting (docs/graph-format.md, "Set operations and
bincount") through mars-run, against numpy 1.24: union1d, intersect1d,
setdiff1d, bincount (weights, minlength) and histogram's weights, over the
dtypes, NaNs, empty inputs, uneven chunks and several blocks per input
(--chunk-bytes), and the rules they refuse.

Run: /usr/bin/python3 tests/diff/test_setops.py [NAME-SUBSTRING]
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

RNG = np.random.default_rng(20261124)

cases = []  # (name, nodes, {key: expected}, mars-run arguments, rtol)
rejects = []  # (name, doc, key, op)
runtime_errors = []  # (name, doc, key, words the message holds)


def N(key, op, inputs=None, **params):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = list(inputs)
    n.update(params)
    return n


def D(nodes, fetch):
    return {"version": 1, "nodes": nodes, "fetch": fetch}


def sample(dtype, shape, lo=-6, hi=7):
    if dtype == "bool":
        return RNG.random(shape) < 0.5
    if dtype in ("int32", "int64"):
        return RNG.integers(lo, hi, shape).astype(dtype)
    return (RNG.integers(lo, hi, shape) / 2.0).astype(dtype)


def A(key, arr, chunk):
    if arr.size == 0:  # a nested empty list loses the shape
        return N(key, "zeros", shape=list(arr.shape), dtype=str(arr.dtype), chunk_size=chunk)
    data = [None if v != v else v for v in arr.ravel().tolist()]
    if any(v is None for v in data):  # NaN: made as 0/0 below
        return None
    return N(key, "array", data=arr.tolist(), dtype=str(arr.dtype), chunk_size=chunk)


def add(name, nodes, exp, args=(), rtol=None):
    cases.append((name, nodes, exp, list(args), rtol))


def with_nans(key, arr, chunk):
    """Nodes making arr (float64) with NaNs where it has them: arr with NaNs
    replaced by 0, plus 0/0 where they were."""
    m = np.isnan(arr)
    base = np.where(m, 0.0, arr)
    num = np.where(m, 0.0, 1.0)
    return [N(key + "_b", "array", data=base.tolist(), dtype="float64", chunk_size=chunk),
            N(key + "_m", "array", data=num.tolist(), dtype="float64", chunk_size=chunk),
            N(key + "_q", "divide", [key + "_m", key + "_m"]),  # 1, or NaN where 0/0
            N(key, "multiply", [key + "_b", key + "_q"])]


SETOPS = {"union1d": np.union1d, "intersect1d": np.intersect1d, "setdiff1d": np.setdiff1d}
SHAPES = [((23,), (17,), 5, 4), ((6, 5), (9,), [4, 2], 4), ((3, 4, 2), (2, 7), [2, 3, 1], [1, 3]),
          ((0,), (8,), 3, 3), ((8,), (0,), 3, 3), ((1,), (1,), 1, 1)]
PAIRS = [("int64", "int64"), ("float64", "float64"), ("bool", "bool"), ("int64", "float64"),
         ("float64", "int64"), ("bool", "int64"), ("int64", "bool"), ("bool", "float64")]
for op, f in SETOPS.items():
    for i, (sa, sb, ca, cb) in enumerate(SHAPES):
        for da, db in PAIRS if i < 3 else PAIRS[:3]:
            a, b = sample(da, sa), sample(db, sb)
            exp = f(a, b)
            for cbytes in ("16m", "24"):
                add("%s/%s+%s/%s+%s/chunk-bytes=%s" % (op, "x".join(map(str, sa)),
                                                       "x".join(map(str, sb)), da, db, cbytes),
                    [A("a", a, ca), A("b", b, cb), N("r", op, ["a", "b"])], {"r": exp},
                    args=["--chunk-bytes", cbytes])
    # assume_unique where numpy's result is the same (intersect1d of unique inputs)
a, b = np.unique(sample("int64", (30,), -40, 40)), np.unique(sample("int64", (25,), -40, 40))
add("intersect1d/assume_unique", [A("a", a, 7), A("b", b, 6),
                                  N("r", "intersect1d", ["a", "b"], assume_unique=True)],
    {"r": np.intersect1d(a, b, assume_unique=True)}, args=["--chunk-bytes", "40"])
# setdiff1d with assume_unique: a's order and duplicates kept (numpy's result
# for a unique a; a with duplicates where numpy's result is exact membership too)
for i, (sa, sb, ca, cb) in enumerate(SHAPES):
    for da, db in PAIRS if i < 3 else PAIRS[:3]:
        a, b = sample(da, sa), sample(db, sb)
        if da != "bool":
            a = RNG.permutation(np.unique(a))  # unique, unsorted
        exp = np.setdiff1d(a, b, assume_unique=True)
        for cbytes in ("16m", "24"):
            add("setdiff1d/assume_unique/%s+%s/%s+%s/chunk-bytes=%s" % (
                "x".join(map(str, a.shape)), "x".join(map(str, sb)), da, db, cbytes),
                [A("a", a, ca if a.ndim == len(sa) else 5), A("b", b, cb),
                 N("r", "setdiff1d", ["a", "b"], assume_unique=True)], {"r": exp},
                args=["--chunk-bytes", cbytes])
add("setdiff1d/assume_unique-false", [A("a", a, 7), A("b", b, 6),
                                      N("r", "setdiff1d", ["a", "b"], assume_unique=False)],
    {"r": np.setdiff1d(a, b)})
# intersect1d with return_indices: three held results (values, first index in a, in b)
for i, (sa, sb, ca, cb) in enumerate(SHAPES):
    for da, db in PAIRS[:5] if i < 3 else PAIRS[:1]:
        a, b = sample(da, sa), sample(db, sb)
        res = np.intersect1d(a, b, return_indices=True)
        for cbytes in ("16m", "24"):
            add("intersect1d/return_indices/%s+%s/%s+%s/chunk-bytes=%s" % (
                "x".join(map(str, sa)), "x".join(map(str, sb)), da, db, cbytes),
                [A("a", a, ca), A("b", b, cb),
                 N("r", "intersect1d", ["a", "b"], return_indices=True,
                   outputs=["v", "ia", "ib"])], dict(zip(["v", "ia", "ib"], res)),
                args=["--chunk-bytes", cbytes])
res = np.intersect1d(na := np.array([1.0, np.nan, 2.0, 5.0, 2.0]),
                     nb := np.array([np.nan, 2.0, 7.0, 1.0]), return_indices=True)
add("intersect1d/return_indices/nan",
    with_nans("a", na, 2) + with_nans("b", nb, 3) + [
        N("r", "intersect1d", ["a", "b"], return_indices=True, assume_unique=False,
          outputs=["v", "ia", "ib"])], dict(zip(["v", "ia", "ib"], res)),
    args=["--chunk-bytes", "16"])
# sets of more than 256 values together (df/setops.c's radix sort, then each
# value's entries by input and first index): many blocks, shared values,
# NaN, -0.0 beside 0.0, the int and float domains mixed
for da, db in PAIRS[:5]:
    a, b = sample(da, (2000,), -900, 900), sample(db, (1500,), -700, 1100)
    src = []
    for key, x, ch in (("a", a, 300), ("b", b, 250)):
        if x.dtype.kind == "f":
            x[::17] = np.nan
            x[5::23] = -0.0
            src += with_nans(key, x, ch)
        else:
            src.append(A(key, x, ch))
    for op, f in SETOPS.items():
        add("%s/big/%s+%s" % (op, da, db), src + [N("r", op, ["a", "b"])], {"r": f(a, b)})
    res = np.intersect1d(a, b, return_indices=True)
    add("intersect1d/return_indices/big/%s+%s" % (da, db),
        src + [N("r", "intersect1d", ["a", "b"], return_indices=True,
                 outputs=["v", "ia", "ib"])], dict(zip(["v", "ia", "ib"], res)))
# NaNs: union1d keeps one, intersect1d none, setdiff1d keeps a's
na = np.array([1.0, np.nan, 2.0, np.nan, -0.0, 3.5, 1e300])
nb = np.array([np.nan, 2.0, 0.0, -1e300, 7.0])
for op, f in SETOPS.items():
    for cbytes in ("16m", "16"):
        add("%s/nan/chunk-bytes=%s" % (op, cbytes),
            with_nans("a", na, 3) + with_nans("b", nb, 2) + [N("r", op, ["a", "b"])],
            {"r": f(na, nb)}, args=["--chunk-bytes", cbytes])
        add("setdiff1d/assume_unique/nan/chunk-bytes=%s" % cbytes,
            with_nans("a", na[[0, 1, 2, 4, 5]], 3) + with_nans("b", nb, 2) +
            [N("r", "setdiff1d", ["a", "b"], assume_unique=True)],
            {"r": np.setdiff1d(na[[0, 1, 2, 4, 5]], nb, assume_unique=True)},
            args=["--chunk-bytes", cbytes]) if op == "setdiff1d" else None
        add("%s/nan-b-side/chunk-bytes=%s" % (op, cbytes),
            with_nans("a", nb, 2) + with_nans("b", na, 3) + [N("r", op, ["a", "b"])],
            {"r": f(nb, na)}, args=["--chunk-bytes", cbytes])
# of computed inputs, many blocks
g, h = np.arange(500) % 41, (np.arange(300) * 7) % 53
for op, f in SETOPS.items():
    add("%s/of-expression-many-blocks" % op,
        [N("a", "arange", stop=500, chunk_size=70), N("m", "mod", ["a", 41]),
         N("b", "arange", stop=300, chunk_size=90), N("b7", "multiply", ["b", 7]),
         N("n", "mod", ["b7", 53]), N("r", op, ["m", "n"])], {"r": f(g, h)},
        args=["--chunk-bytes", "400"])

# ---- bincount
BC = [(40, 7, 0), (40, 7, 50), (25, 25, 3), (1, 1, 0), (0, 3, 0), (0, 3, 4), (60, 11, 2)]
for i, (n, chunk, ml) in enumerate(BC):
    for xdt in ("int64", "int32", "bool"):
        x = sample(xdt, (n,), 0, 15)
        kw = {"minlength": ml} if ml else {}
        for cbytes in ("16m", "32"):
            add("bincount/n=%d/%s/minlength=%d/chunk-bytes=%s" % (n, xdt, ml, cbytes),
                [A("x", x, chunk), N("r", "bincount", ["x"], **kw)],
                {"r": np.bincount(x, minlength=ml)}, args=["--chunk-bytes", cbytes])
        for wdt in ("float64", "float32", "int64", "int32", "bool"):
            if i % 2 and wdt not in ("float64", "int32"):
                continue
            w = sample(wdt, (n,), -9, 10)
            add("bincount/n=%d/%s/weights=%s/minlength=%d" % (n, xdt, wdt, ml),
                [A("x", x, chunk), A("w", w, max(1, chunk - 2)),
                 N("r", "bincount", ["x", "w"], **kw)],
                {"r": np.bincount(x, w, minlength=ml)}, args=["--chunk-bytes", "24"], rtol=1e-12)
add("bincount/minlength-null", [A("x", np.array([3, 1, 3]), 2),
                                N("r", "bincount", ["x"], minlength=None)],
    {"r": np.bincount(np.array([3, 1, 3]), minlength=0)})
add("bincount/of-expression",
    [N("a", "arange", stop=1000, chunk_size=130), N("m", "mod", ["a", 37]),
     N("r", "bincount", ["m"], minlength=40)],
    {"r": np.bincount(np.arange(1000) % 37, minlength=40)}, args=["--chunk-bytes", "800"])

# ---- histogram weights
HW = [((50,), 7, {}), ((9, 7), [4, 3], {"bins": 5}), ((9, 7), [4, 3], {"bins": 4, "range": [-3, 3]}),
      ((30,), 8, {"bins": 6, "density": True}), ((0,), 3, {"bins": 3}), ((12,), 5, {"bins": 1})]
for i, (shape, chunk, kw) in enumerate(HW):
    for wdt in ("float64", "float32", "int64", "int32"):
        a = sample("float64", shape)
        w = sample(wdt, shape, -5, 9)
        nkw = dict(kw)
        if "range" in nkw:
            nkw["range"] = tuple(nkw["range"])
        res = np.histogram(a, weights=w, **nkw)
        add("histogram-weights/%s/%s/%s" % ("x".join(map(str, shape)), wdt,
                                            ",".join("%s=%s" % kv for kv in sorted(kw.items()))),
            [A("a", a, chunk), A("w", w, chunk if i % 2 else 3),
             N("h", "histogram", ["a", "w"], weights=True, outputs=["c", "e"], **kw)],
            {"c": res[0], "e": res[1]}, rtol=1e-6 if wdt == "float32" else 1e-12)
for i, edges in enumerate([[-5, -1, 0, 2.5, 7], [0, 10]]):
    a = sample("float64", (11, 4))
    w = sample("int64", (11, 4), -3, 5)
    for dens in (False, True):
        res = np.histogram(a, np.array(edges, dtype=np.float64), weights=w, density=dens)
        add("histogram-weights/edges-input/%d/density=%s" % (i, dens),
            [A("a", a, [5, 3]), N("ed", "array", data=edges, dtype="float64", chunk_size=2),
             A("w", w, [3, 4]),
             N("h", "histogram", ["a", "ed", "w"], density=dens, weights=True,
               outputs=["c", "e"])], {"c": res[0], "e": res[1]}, rtol=1e-12)
hc, _ = np.histogram(np.arange(100) % 13, bins=4, weights=np.arange(100) * 0.5)
add("histogram-weights/outputs-as-inputs",
    [N("a", "arange", stop=100, chunk_size=30), N("m", "mod", ["a", 13]),
     N("wa", "arange", stop=100, chunk_size=45), N("w", "multiply", ["wa", 0.5]),
     N("h", "histogram", ["m", "w"], bins=4, weights=True, outputs=["c", "e"]),
     N("s", "sum", ["c"])], {"s": hc.sum()}, rtol=1e-12)

# ---- unique with return_inverse: an ordinary tensor (usable downstream)
UQ = [((40,), 7), ((9, 7), [4, 3]), ((3, 4, 5), [2, 3, 2]), ((0,), 2), ((1,), 1), ((), ())]
FLAGS = [{"return_inverse": True}, {"return_index": True, "return_inverse": True},
         {"return_inverse": True, "return_counts": True},
         {"return_index": True, "return_inverse": True, "return_counts": True}]
for i, (shape, chunk) in enumerate(UQ):
    for dt in ("bool", "int64", "float64"):
        a = sample(dt, shape)
        for fl in FLAGS if i < 3 else FLAGS[3:]:
            res = np.unique(a, **fl)
            ks = ["u%d" % k for k in range(len(res))]
            node = (A("a", a, chunk) if a.ndim else
                    N("a", "full", shape=[], fill_value=a.item(), dtype=dt))
            for cbytes in ("16m", "40"):
                add("unique-inverse/%s/%s/%s/chunk-bytes=%s" % (
                    "x".join(map(str, shape)) or "0d", dt, "+".join(sorted(fl)), cbytes),
                    [node, N("uq", "unique", ["a"], outputs=ks, **fl)], dict(zip(ks, res)),
                    args=["--chunk-bytes", cbytes])
qa = np.array([[1.5, np.nan, -2.0], [1.5, np.nan, 0.0], [-0.0, 3.0, 1e300]])
u = np.unique(qa, return_inverse=True)
add("unique-inverse/nan", with_nans("a", qa, [2, 2]) + [
    N("uq", "unique", ["a"], return_inverse=True, outputs=["v", "inv"]),
    N("t", "multiply", ["inv", 2])], {"v": u[0], "inv": u[1], "t": u[1] * 2},
    args=["--chunk-bytes", "16"])
add("unique-inverse/of-expression-many-blocks",
    [N("a", "arange", stop=1000, chunk_size=130), N("m", "mod", ["a", 37]),
     N("uq", "unique", ["m"], return_inverse=True, outputs=["v", "inv"]),
     N("t", "sum", ["inv"])],
    {"inv": np.unique(np.arange(1000) % 37, return_inverse=True)[1],
     "t": np.unique(np.arange(1000) % 37, return_inverse=True)[1].sum()},
    args=["--chunk-bytes", "800"])

# ---- unique of blocks of more than 256 values (df/multi.c): each block's
# values radix sorted, then the blocks' sets merged in order; runs of equal
# values, the ends of int64, -0.0 beside 0.0, NaN (one value), huge floats
for dt, chunk in (("int64", 700), ("float64", 900), ("bool", 600)):
    if dt == "int64":
        a = RNG.integers(-2**62, 2**62, 5000)
        a[::3] = RNG.integers(-50, 50, a[::3].shape)
        a[::97] = np.iinfo(np.int64).min
        a[5::101] = np.iinfo(np.int64).max
        src = [A("a", a, chunk)]
    elif dt == "float64":
        a = np.round(RNG.normal(0, 100, 5000), 0)
        a[::7] = 0.0
        a[3::11] = -0.0
        a[::13] = np.nan
        a[::29] = -1e300
        src = with_nans("a", a, chunk)
    else:
        a = RNG.random(5000) < 0.3
        src = [A("a", a, chunk)]
    for fl in [{}] + FLAGS[3:]:
        res = np.unique(a, **fl)
        res = res if isinstance(res, tuple) else (res,)
        ks = ["u%d" % k for k in range(len(res))]
        add("unique-radix/%s/%s" % (dt, "+".join(sorted(fl)) or "values"),
            src + [N("uq", "unique", ["a"], outputs=ks, **fl)], dict(zip(ks, res)))

# ---- rejected documents: exit 2, one line naming the node
ar = N("a", "arange", stop=12, chunk_size=5)
# a held result as an input of the same document: mars-run runs it first
add("held/intersect1d-index-as-input",
    [ar, N("r", "intersect1d", ["a", "a"], return_indices=True, outputs=["u", "v", "w"]),
     N("s", "sum", ["v"])],
    {"s": np.intersect1d(np.arange(12), np.arange(12), return_indices=True)[1].sum()})
add("held/union1d-output-as-input", [ar, N("r", "union1d", ["a", "a"]), N("s", "sum", ["r"])],
    {"s": np.union1d(np.arange(12), np.arange(12)).sum()})
i32 = N("i", "arange", stop=5, dtype="int32")
f32 = N("f", "arange", stop=5, dtype="float32")
rejects += [
    ("reject/unique-inverse-int32", D([i32, N("uq", "unique", ["i"], return_inverse=True,
                                              outputs=["u", "v"])], ["v"]), "uq", "unique"),
    ("reject/unique-inverse-count", D([ar, N("uq", "unique", ["a"], return_inverse=True,
                                             return_counts=True, outputs=["u", "v"])], ["v"]),
     "uq", "unique"),
    ("reject/union1d-one-input", D([ar, N("r", "union1d", ["a"])], ["r"]), "r", "union1d"),
    ("reject/union1d-three-inputs", D([ar, N("r", "union1d", ["a", "a", "a"])], ["r"]),
     "r", "union1d"),
    ("reject/union1d-int32", D([ar, i32, N("r", "union1d", ["a", "i"])], ["r"]), "r", "union1d"),
    ("reject/intersect1d-float32", D([ar, f32, N("r", "intersect1d", ["f", "a"])], ["r"]),
     "r", "intersect1d"),
    ("reject/setdiff1d-int32-b", D([ar, i32, N("r", "setdiff1d", ["a", "i"])], ["r"]),
     "r", "setdiff1d"),
    ("reject/union1d-unknown-field", D([ar, N("r", "union1d", ["a", "a"], assume_unique=True)],
                                       ["r"]), "r", "union1d"),
    ("reject/union1d-outputs", D([ar, N("r", "union1d", ["a", "a"], outputs=["u"])], ["u"]),
     "r", "union1d"),
    ("reject/intersect1d-return-indices-without-outputs",
     D([ar, N("r", "intersect1d", ["a", "a"], return_indices=True)], ["r"]), "r", "intersect1d"),
    ("reject/intersect1d-outputs-without-return-indices",
     D([ar, N("r", "intersect1d", ["a", "a"], outputs=["u", "v", "w"])], ["u"]),
     "r", "intersect1d"),
    ("reject/intersect1d-return-indices-two-outputs",
     D([ar, N("r", "intersect1d", ["a", "a"], return_indices=True, outputs=["u", "v"])],
       ["u"]), "r", "intersect1d"),
    ("reject/intersect1d-assume-unique-not-bool",
     D([ar, N("r", "intersect1d", ["a", "a"], assume_unique=1)], ["r"]), "r", "intersect1d"),
    ("reject/union1d-scalar-input", D([ar, N("r", "union1d", ["a", 3])], ["r"]), "r", "union1d"),
    ("reject/bincount-no-input", D([N("r", "bincount", [])], ["r"]), "r", "bincount"),
    ("reject/bincount-float", D([N("x", "ones", shape=[3]), N("r", "bincount", ["x"])], ["r"]),
     "r", "bincount"),
    ("reject/bincount-2d", D([N("x", "ones", shape=[2, 3], dtype="int64"),
                              N("r", "bincount", ["x"])], ["r"]), "r", "bincount"),
    ("reject/bincount-0d", D([N("x", "full", shape=[], fill_value=1, dtype="int64"),
                              N("r", "bincount", ["x"])], ["r"]), "r", "bincount"),
    ("reject/bincount-weights-length", D([ar, N("w", "ones", shape=[5]),
                                          N("r", "bincount", ["a", "w"])], ["r"]),
     "r", "bincount"),
    ("reject/bincount-weights-2d", D([ar, N("w", "ones", shape=[2, 6]),
                                      N("r", "bincount", ["a", "w"])], ["r"]), "r", "bincount"),
    ("reject/bincount-minlength-negative", D([ar, N("r", "bincount", ["a"], minlength=-1)],
                                             ["r"]), "r", "bincount"),
    ("reject/bincount-minlength-float", D([ar, N("r", "bincount", ["a"], minlength=2.5)],
                                          ["r"]), "r", "bincount"),
    ("reject/bincount-minlength-huge", D([ar, N("r", "bincount", ["a"], minlength=1 << 40)],
                                         ["r"]), "r", "bincount"),
    ("reject/histogram-weights-shape", D([ar, N("w", "ones", shape=[11]),
                                          N("h", "histogram", ["a", "w"], weights=True,
                                            outputs=["c", "e"])], ["c"]), "h", "histogram"),
    ("reject/histogram-weights-missing", D([N("h", "histogram", [ar["key"]], weights=True,
                                              outputs=["c", "e"]), ar], ["c"]), None, None),
    ("reject/histogram-weights-not-bool", D([ar, N("h", "histogram", ["a", "a"], weights=1,
                                                   outputs=["c", "e"])], ["c"]), "h", "histogram"),
    ("reject/histogram-weights-bool", D([ar, N("w", "ones", shape=[12], dtype="bool"),
                                         N("h", "histogram", ["a", "w"], weights=True,
                                           outputs=["c", "e"])], ["c"]), "h", "histogram"),
    ("reject/histogram-too-many-inputs", D([ar, N("h", "histogram", ["a", "a", "a", "a"],
                                                  weights=True, outputs=["c", "e"])], ["c"]),
     "h", "histogram"),
]
# errors only the data shows: a clear message naming the node
runtime_errors += [
    ("runtime/bincount-negative", D([N("x", "array", data=[1, 4, -2, 0], chunk_size=3),
                                     N("r", "bincount", ["x"])], ["r"]), "r",
     "must have no negative elements"),
    ("runtime/bincount-too-large", D([N("x", "array", data=[1, 1 << 40], chunk_size=3),
                                      N("r", "bincount", ["x"])], ["r"]), "r",
     "one bincount job holds"),
]


def expected(exp, rtol):
    """The check of one case: every fetched key as numpy has it, dtype included."""
    def check(got):
        for k, v in exp.items():
            e = np.asarray(v)
            if got[k].dtype != e.dtype:
                return "%s: dtype %s, numpy %s" % (k, got[k].dtype, e.dtype)
            why = harness.compare(e, got[k], rtol=rtol)
            if why:
                return "%s: %s" % (k, why)
        return None
    return check


def main():
    suite = harness.Suite("test_setops")
    harness.require_mars_run(suite)
    sel = sys.argv[1] if len(sys.argv) > 1 else None
    print("# %d cases, %d rejections, %d runtime errors" %
          (len(cases), len(rejects), len(runtime_errors)), flush=True)
    items = []
    for name, nodes, exp, args, rtol in cases:
        if sel and sel not in name:
            continue
        if any(n is None for n in nodes):
            suite.fail(name, "internal: a node could not be written", None)
            continue
        items.append((name, D(nodes, list(exp.keys())), args, 2, expected(exp, rtol)))
    # cases with the same --chunk-bytes run merged, one process each
    harness.run_grouped(suite, items)
    for name, d, key, op in rejects:
        if sel and sel not in name:
            continue
        r = harness.run_mars(d)
        try:
            why = harness.check_rejected(r, key, op)
        finally:
            harness.cleanup(r)
        if why:
            suite.fail(name, why, d)
        else:
            suite.ok(name)
            print("    %s" % r.stderr.strip(), flush=True)
    for name, d, key, words in runtime_errors:
        if sel and sel not in name:
            continue
        r = harness.run_mars(d)
        try:
            err = r.stderr.strip()
            ok = r.rc != 0 and ('node "%s"' % key) in err and words in err and not [
                f for f in r.files() if f.endswith(".npy")]
        finally:
            harness.cleanup(r)
        suite.check(name, ok, "exit %d: %r" % (r.rc, err[:300]))
        if ok:
            print("    %s" % err, flush=True)
    suite.finish()


if __name__ == "__main__":
    main()
