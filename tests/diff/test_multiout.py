#!/usr/bin/python3
"""Ops with several results ("outputs": docs/graph-format.md, "Ops with
several results") through mars-run, against numpy 1.24: split, array_split,
hsplit, vsplit and meshgrid on uneven chunks over the dtypes, outputs used
as inputs of later nodes, and the validation rules (duplicate keys, output
counts, the op's own key neither fetchable nor an input).

Run: /usr/bin/python3 tests/diff/test_multiout.py [NAME-SUBSTRING]
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

DTS = ["bool", "int32", "int64", "float32", "float64"]
RNG = np.random.default_rng(20261123)

cases = []  # (name, nodes, fetch, {key: expected array}, mars-run arguments)
rejects = []  # (name, doc, key named in the message, op)


def N(key, op, inputs=None, **params):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = list(inputs)
    n.update(params)
    return n


def sample(dtype, shape):
    if dtype == "bool":
        return RNG.random(shape) < 0.5
    if dtype in ("int32", "int64"):
        return RNG.integers(-20, 21, shape).astype(dtype)
    return np.round(RNG.normal(0, 4, shape), 3).astype(dtype)


def A(key, arr, chunk):
    if arr.size == 0:  # a nested empty list loses the shape
        return N(key, "zeros", shape=list(arr.shape), dtype=str(arr.dtype), chunk_size=chunk)
    return N(key, "array", data=arr.tolist(), dtype=str(arr.dtype), chunk_size=chunk)


def add(name, nodes, exp, fetch=None, args=()):
    cases.append((name, nodes, list(fetch or exp.keys()), exp, list(args)))


def outs(prefix, n):
    return ["%s%d" % (prefix, i) for i in range(n)]


# ---- split family: sections, indices (negative, past the end, decreasing), axes
SPLITS = [
    ("split", (12,), 3, {}, 4),
    ("split", (12,), 4, {}, [5]),
    ("split", (7, 6), 2, {"axis": 1}, [3, 4]),
    ("split", (7, 6), [2, -3, 20], {}, [3, 2]),
    ("split", (7, 6), [4, 2], {"axis": -1}, [5, 4]),
    ("split", (5, 4, 6), [1, 1, 3], {"axis": 2}, [2, 3, 4]),
    ("split", (6,), [], {}, 4),
    ("split", (0, 3), 2, {}, [2, 2]),
    ("array_split", (10,), 3, {}, 4),
    ("array_split", (10,), 4, {}, [3]),
    ("array_split", (3, 7), 5, {"axis": 1}, [2, 3]),
    ("array_split", (2, 9), 12, {"axis": -1}, [2, 4]),
    ("array_split", (8, 5), [-100, 3, 100], {}, [3, 2]),
    ("hsplit", (6,), 3, {}, 4),
    ("hsplit", (4, 8), [3, 5], {}, [3, 3]),
    ("hsplit", (3, 4, 5), 2, {}, [2, 3, 2]),
    ("vsplit", (9, 4), 3, {}, [4, 3]),
    ("vsplit", (9, 4, 2), [2, 7], {}, [4, 3, 2]),
]
for i, (op, shape, ios, kw, chunk) in enumerate(SPLITS):
    for dt in (DTS if i % 3 == 0 else DTS[i % 5:i % 5 + 1]):
        a = sample(dt, shape)
        res = getattr(np, op)(a, ios, **kw)
        ks = outs("s", len(res))
        add("%s/%s/%s/%s/%s" % (op, "x".join(map(str, shape)), ios, kw.get("axis", ""), dt),
            [A("a", a, chunk), N("sp", op, ["a"], indices_or_sections=ios, outputs=ks, **kw)],
            dict(zip(ks, res)))

# outputs feed later nodes, and only some are fetched
a = np.arange(30, dtype=np.float64).reshape(5, 6)
p = np.split(a, [2, 4], axis=1)
add("split/outputs-as-inputs",
    [N("a", "arange", stop=30, dtype="float64", chunk_size=7),
     N("r", "reshape", ["a"], newshape=[5, 6]),
     N("sp", "split", ["r"], indices_or_sections=[2, 4], axis=1, outputs=["p0", "p1", "p2"]),
     N("m", "multiply", ["p0", "p2"]), N("s", "sum", ["p1"], axis=0),
     N("c", "concatenate", ["p2", "p0"], axis=1)],
    {"m": p[0] * p[2], "s": p[1].sum(axis=0), "c": np.concatenate([p[2], p[0]], axis=1),
     "p1": p[1]})
# split of a split
b = np.arange(24, dtype=np.int64)
q = np.array_split(b, 3)
r = np.split(q[1], [3])
add("split/of-a-split",
    [N("b", "arange", stop=24, chunk_size=5),
     N("s1", "array_split", ["b"], indices_or_sections=3, outputs=["q0", "q1", "q2"]),
     N("s2", "split", ["q1"], indices_or_sections=[3], outputs=["r0", "r1"])],
    {"q0": q[0], "r0": r[0], "r1": r[1], "q2": q[2]})

# ---- meshgrid
MESH = [
    ([(5,), (3,)], {}, [2, 2]),
    ([(5,), (3,)], {"indexing": "ij"}, [4, 1]),
    ([(4,), (3,), (2,)], {}, [3, 2, 1]),
    ([(4,), (3,), (2,)], {"indexing": "ij"}, [3, 2, 2]),
    ([(6,)], {}, [4]),
    ([(2, 3), (4,)], {}, [2, 3]),
    ([(0,), (3,)], {}, [1, 2]),
    ([(5,), (3,)], {"sparse": True}, [2, 2]),
    ([(4,), (3,), (2,)], {"indexing": "ij", "sparse": True, "copy": False}, [3, 2, 2]),
]
for i, (shapes, kw, chunk) in enumerate(MESH):
    for dts in ([["int64", "float32", "bool"][:len(shapes)], ["float64"] * len(shapes)]
                if i % 2 == 0 else [[DTS[(i + j) % 5] for j in range(len(shapes))]]):
        xs = [sample(dt, s) for dt, s in zip(dts, shapes)]
        res = np.meshgrid(*xs, **kw)
        nodes = [A("x%d" % j, x, chunk[j] if j < len(chunk) else 2) for j, x in enumerate(xs)]
        ks = outs("g", len(res))
        nodes.append(N("mg", "meshgrid", ["x%d" % j for j in range(len(xs))], outputs=ks, **kw))
        add("meshgrid/%s/%s/%s" % ("+".join("x".join(map(str, s)) for s in shapes),
                                    ",".join("%s=%s" % kv for kv in sorted(kw.items())),
                                    "+".join(dts)), nodes, dict(zip(ks, res)))
# a big grid: chunked by the default chunk size, not one chunk of the whole
x = np.linspace(0, 1, 3000)
y = np.arange(2000, dtype=np.int32)
gx, gy = np.meshgrid(x, y)
add("meshgrid/3000x2000-then-reduce",
    [N("x", "linspace", start=0, stop=1, num=3000), N("y", "arange", stop=2000, dtype="int32",
                                                       chunk_size=300),
     N("mg", "meshgrid", ["x", "y"], outputs=["gx", "gy"]),
     N("t", "multiply", ["gx", "gy"]), N("s", "sum", ["t"], axis=0), N("m", "max", ["gy"])],
    {"s": (gx * gy).sum(axis=0), "m": gy.max()})


# ---- nonzero and one-argument where: lengths known when they run; small
# --chunk-bytes split the input into many row blocks
NZ = [((13,), 3), ((7, 5), [3, 2]), ((4, 3, 5), [3, 2, 2]), ((0, 4), 2), ((6, 0), 2), ((3, 4), 4)]
for i, (shape, chunk) in enumerate(NZ):
    for dt in DTS if i % 2 == 0 else DTS[1::2]:
        a = sample(dt, shape)
        if a.size and dt != "bool":
            a = np.where(sample("bool", shape), a, np.zeros_like(a))
        if dt.startswith("float") and a.size > 3:
            a.flat[2] = -0.0  # zero
        for op in ("nonzero", "where"):
            res = np.nonzero(a)
            ks = outs("n", len(res))
            for cb in ("16m", "24"):
                add("%s/%s/%s/chunk-bytes=%s" % (op, "x".join(map(str, shape)), dt, cb),
                    [A("a", a, chunk), N("nz", op, ["a"], outputs=ks)], dict(zip(ks, res)),
                    args=["--chunk-bytes", cb])
# nonzero of a computed tensor, only some outputs fetched
b = (np.arange(60).reshape(6, 10) % 7 == 3)
add("nonzero/of-expression",
    [N("a", "arange", stop=60, chunk_size=11), N("r", "reshape", ["a"], newshape=[6, 10]),
     N("m", "mod", ["r", 7]), N("e", "equal", ["m", 3]),
     N("nz", "nonzero", ["e"], outputs=["i", "j"])], {"j": np.nonzero(b)[1]})

with np.errstate(all="ignore"):
    q = np.array([0.0, 1.0, 0.0, -0.0, 2.0]) / np.array([0.0, 1.0, 1.0, 1.0, 0.0])
add("nonzero/nan-and-inf-are-nonzero",
    [N("x", "array", data=[0.0, 1.0, 0.0, -0.0, 2.0], chunk_size=2),
     N("y", "array", data=[0.0, 1.0, 1.0, 1.0, 0.0], chunk_size=3),
     N("q", "divide", ["x", "y"]), N("nz", "nonzero", ["q"], outputs=["i"])],
    {"i": np.nonzero(q)[0]})


# ---- unique: per-block sets merged in one job; flags in numpy's order
UQ = [((40,), 7), ((9, 7), [4, 3]), ((3, 4, 5), [2, 3, 2]), ((0,), 2), ((1,), 1)]
FLAGS = [{}, {"return_index": True}, {"return_counts": True},
         {"return_index": True, "return_counts": True}]
for i, (shape, chunk) in enumerate(UQ):
    for dt in ("bool", "int64", "float64"):
        a = sample(dt, shape)
        if dt != "bool":
            a = (a // 3).astype(dt)  # repeated values
        for fl in FLAGS if i < 3 else FLAGS[3:]:
            res = np.unique(a, **fl)
            res = res if isinstance(res, tuple) else (res,)
            ks = outs("u", len(res))
            for cb in ("16m", "40"):
                add("unique/%s/%s/%s/chunk-bytes=%s" % ("x".join(map(str, shape)), dt,
                                                        "+".join(sorted(fl)) or "plain", cb),
                    [A("a", a, chunk), N("uq", "unique", ["a"], outputs=ks, **fl)],
                    dict(zip(ks, res)), args=["--chunk-bytes", cb])
with np.errstate(all="ignore"):
    q = np.array([1.5, 0.0, -2.0, 1.5, 0.5, 0.0, 3.0]) / np.array([1.0, 0.0, 1.0, 1.0, 0.0, 0.0,
                                                                    -0.0])
u = np.unique(q, return_index=True, return_counts=True)
add("unique/nan-inf-one-nan",
    [N("x", "array", data=[1.5, 0.0, -2.0, 1.5, 0.5, 0.0, 3.0], chunk_size=2),
     N("y", "array", data=[1.0, 0.0, 1.0, 1.0, 0.0, 0.0, -0.0], chunk_size=3),
     N("q", "divide", ["x", "y"]),
     N("uq", "unique", ["q"], return_index=True, return_counts=True, axis=None, equal_nan=True,
       outputs=["v", "i", "c"])], {"v": u[0], "i": u[1], "c": u[2]}, args=["--chunk-bytes", "16"])
g = np.arange(1000) % 37
add("unique/of-expression-many-blocks",
    [N("a", "arange", stop=1000, chunk_size=130), N("m", "mod", ["a", 37]),
     N("uq", "unique", ["m"], return_counts=True, outputs=["v", "c"])],
    dict(zip(["v", "c"], np.unique(g, return_counts=True))), args=["--chunk-bytes", "800"])


# ---- histogram: bins, range, density, edges as inputs[1]; uneven chunks
HI = [((50,), 7, {}), ((9, 7), [4, 3], {"bins": 5}), ((9, 7), [4, 3], {"bins": 4, "range": [-3, 3]}),
      ((30,), 8, {"bins": 6, "density": True}), ((4, 3, 5), [3, 2, 2], {"range": [0, 0]}),
      ((0,), 3, {"bins": 3}), ((12,), 5, {"bins": 1})]
for i, (shape, chunk, kw) in enumerate(HI):
    for dt in ("int32", "int64", "float32", "float64") if i % 2 == 0 else ("float64",):
        a = sample(dt, shape)
        nkw = dict(kw)
        if "range" in nkw:
            nkw["range"] = tuple(nkw["range"])
        res = np.histogram(a, **nkw)
        add("histogram/%s/%s/%s" % ("x".join(map(str, shape)), dt,
                                    ",".join("%s=%s" % kv for kv in sorted(kw.items()))),
            [A("a", a, chunk), N("h", "histogram", ["a"], outputs=["c", "e"], **kw)],
            {"c": res[0], "e": res[1]})
for i, edges in enumerate([[-5, -1, 0, 2.5, 7], [0, 10], [-20, 0, 20]]):
    a = sample("float64", (11, 4))
    for dens in (False, True):
        res = np.histogram(a, np.array(edges, dtype=np.float64), density=dens)
        add("histogram/edges-input/%d/density=%s" % (i, dens),
            [A("a", a, [5, 3]), N("ed", "array", data=edges, dtype="float64", chunk_size=2),
             N("h", "histogram", ["a", "ed"], density=dens, outputs=["c", "e"])],
            {"c": res[0], "e": res[1]})
hc, he = np.histogram(np.arange(100) % 13, bins=4)
add("histogram/outputs-as-inputs",
    [N("a", "arange", stop=100, chunk_size=30), N("m", "mod", ["a", 13]),
     N("h", "histogram", ["m"], bins=4, outputs=["c", "e"]), N("s", "sum", ["c"]),
     N("w", "diff", ["e"])], {"s": hc.sum(), "w": np.diff(he)})


# ---- rejected documents: exit 2, one line naming the op's key
def D(nodes, fetch):
    return {"version": 1, "nodes": nodes, "fetch": fetch}


ar = N("a", "arange", stop=12, chunk_size=5)
# a held result as an input of the same document: mars-run runs it first
# (engine/stage.h; the cluster takes it in a later task)
add("held/nonzero-output-as-input", [ar, N("nz", "nonzero", ["a"], outputs=["u"]),
                                     N("b", "add", ["u", 1])],
    {"b": np.nonzero(np.arange(12))[0] + 1})
add("held/unique-output-as-input", [ar, N("uq", "unique", ["a"], outputs=["u"]),
                                    N("s", "sum", ["u"])], {"s": np.unique(np.arange(12)).sum()})
# unique without a return_* flag has one result, as numpy's: "outputs" is
# optional there (the contract names unique "with a return_* flag"), and its
# key is the tensor, fetched and taken as an input
q = np.array([3, 1, 3, 7, 1, 0, 7, 7], dtype=np.int64)
add("unique/alone-without-outputs", [A("q", q, 3), N("uq", "unique", ["q"]),
                                     N("s", "sum", ["uq"]), N("m", "multiply", ["uq", 2])],
    {"uq": np.unique(q), "s": np.unique(q).sum(), "m": np.unique(q) * 2})
add("unique/flags-false-without-outputs",
    [A("q", q, 5), N("uq", "unique", ["q"], return_index=False, return_counts=False)],
    {"uq": np.unique(q)}, args=["--chunk-bytes", "16"])
rejects += [
    ("reject/fetch-op-key", D([ar, N("sp", "split", ["a"], indices_or_sections=2,
                                    outputs=["u", "v"])], ["sp"]), None, None),
    ("reject/input-op-key", D([ar, N("sp", "split", ["a"], indices_or_sections=2,
                                    outputs=["u", "v"]), N("b", "add", ["sp", 1])], ["b"]),
     "b", "add"),
    ("reject/too-few-outputs", D([ar, N("sp", "split", ["a"], indices_or_sections=3,
                                       outputs=["u", "v"])], ["u"]), "sp", "split"),
    ("reject/too-many-outputs", D([ar, N("sp", "split", ["a"], indices_or_sections=[4],
                                        outputs=["u", "v", "w"])], ["u"]), "sp", "split"),
    ("reject/meshgrid-count", D([ar, N("mg", "meshgrid", ["a", "a"], outputs=["u"])], ["u"]),
     "mg", "meshgrid"),
    ("reject/outputs-missing", D([ar, N("sp", "split", ["a"], indices_or_sections=2)], []),
     "sp", "split"),
    ("reject/outputs-on-one-result-op", D([ar, N("b", "sum", ["a"], outputs=["u"])], ["u"]),
     "b", "sum"),
    ("reject/output-dup-node-key", D([ar, N("sp", "split", ["a"], indices_or_sections=2,
                                           outputs=["u", "a"])], ["u"]), "sp", "split"),
    ("reject/output-dup-within", D([ar, N("sp", "split", ["a"], indices_or_sections=2,
                                         outputs=["u", "u"])], ["u"]), "sp", "split"),
    ("reject/output-is-op-key", D([ar, N("sp", "split", ["a"], indices_or_sections=2,
                                        outputs=["sp", "u"])], ["u"]), "sp", "split"),
    ("reject/op-key-dup-of-output", D([ar, N("sp", "split", ["a"], indices_or_sections=2,
                                            outputs=["u", "v"]),
                                      N("u", "ones", shape=[2])], ["v"]), "u", "ones"),
    ("reject/op-key-dup-node", D([ar, N("a", "split", ["a"], indices_or_sections=2,
                                       outputs=["u", "v"])], ["u"]), "a", "split"),
    ("reject/outputs-not-list", D([ar, N("sp", "split", ["a"], indices_or_sections=2,
                                        outputs="u")], ["u"]), "sp", None),
    ("reject/outputs-empty", D([ar, N("sp", "split", ["a"], indices_or_sections=2,
                                     outputs=[])], []), "sp", None),
    ("reject/outputs-bad-key", D([ar, N("sp", "split", ["a"], indices_or_sections=2,
                                       outputs=["u", "a b"])], ["u"]), "sp", None),
    ("reject/unequal-split", D([ar, N("sp", "split", ["a"], indices_or_sections=5,
                                     outputs=outs("u", 5))], ["u0"]), "sp", "split"),
    ("reject/zero-sections", D([ar, N("sp", "array_split", ["a"], indices_or_sections=0,
                                     outputs=["u"])], ["u"]), "sp", "array_split"),
    ("reject/split-axis-out-of-range", D([ar, N("sp", "split", ["a"], indices_or_sections=2,
                                               axis=1, outputs=["u", "v"])], ["u"]),
     "sp", "split"),
    ("reject/vsplit-1d", D([ar, N("sp", "vsplit", ["a"], indices_or_sections=2,
                                 outputs=["u", "v"])], ["u"]), "sp", "vsplit"),
    ("reject/split-unknown-field", D([ar, N("sp", "split", ["a"], indices_or_sections=2,
                                           axes=0, outputs=["u", "v"])], ["u"]),
     "sp", "split"),
    ("reject/split-scalar-input", D([N("sp", "split", [3], indices_or_sections=1,
                                       outputs=["u"])], ["u"]), "sp", "split"),
    ("reject/meshgrid-indexing", D([ar, N("mg", "meshgrid", ["a"], indexing="xx",
                                         outputs=["u"])], ["u"]), "mg", "meshgrid"),
    ("reject/nonzero-count", D([ar, N("nz", "nonzero", ["a"], outputs=["u", "v"])], ["u"]),
     "nz", "nonzero"),
    ("reject/nonzero-0d", D([N("z", "full", shape=[], fill_value=1),
                             N("nz", "nonzero", ["z"], outputs=["u"])], ["u"]), "nz", "nonzero"),
    ("reject/where-1-input-without-outputs", D([ar, N("w", "where", ["a"])], ["w"]),
     "w", "where"),
    ("reject/where-3-inputs-with-outputs", D([ar, N("w", "where", ["a", "a", "a"],
                                                    outputs=["u"])], ["u"]), "w", "where"),
    ("reject/unique-count", D([ar, N("uq", "unique", ["a"], return_counts=True,
                                     outputs=["u"])], ["u"]), "uq", "unique"),
    ("reject/unique-flag-without-outputs", D([ar, N("uq", "unique", ["a"], return_counts=True)],
                                             ["uq"]), "uq", "unique"),
    ("reject/unique-inverse-count", D([ar, N("uq", "unique", ["a"], return_inverse=True,
                                             outputs=["u"])], ["u"]), "uq", "unique"),
    ("reject/unique-axis", D([ar, N("uq", "unique", ["a"], axis=0, outputs=["u"])], ["u"]),
     "uq", "unique"),
    ("reject/unique-int32", D([N("a", "arange", stop=5, dtype="int32"),
                               N("uq", "unique", ["a"], outputs=["u"])], ["u"]), "uq", "unique"),
    ("reject/histogram-count", D([ar, N("h", "histogram", ["a"], outputs=["u"])], ["u"]),
     "h", "histogram"),
    ("reject/histogram-bins-0", D([ar, N("h", "histogram", ["a"], bins=0, outputs=["u", "v"])],
                                  ["u"]), "h", "histogram"),
    ("reject/histogram-range", D([ar, N("h", "histogram", ["a"], range=[2, 1],
                                        outputs=["u", "v"])], ["u"]), "h", "histogram"),
    ("reject/histogram-bool", D([N("b", "ones", shape=[3], dtype="bool"),
                                 N("h", "histogram", ["b"], outputs=["u", "v"])], ["u"]),
     "h", "histogram"),
    ("reject/histogram-bins-twice", D([ar, N("h", "histogram", ["a", "a"], bins=3,
                                             outputs=["u", "v"])], ["u"]), "h", "histogram"),
    ("reject/meshgrid-no-inputs", D([N("mg", "meshgrid", [], outputs=["u"])], ["u"]),
     "mg", "meshgrid"),
]


def run_case(suite, name, nodes, fetch, exp, args):
    d = {"version": 1, "nodes": nodes, "fetch": fetch}
    r = harness.run_mars(d, threads=2, args=args)
    try:
        if r.rc != 0:
            return suite.fail(name, "exit %d: %s" % (r.rc, r.brief_error()), d)
        for k in fetch:
            p = os.path.join(r.outdir, k + ".npy")
            if not os.path.exists(p):
                return suite.fail(name, "%s.npy not written" % k, d)
            why = harness.compare(exp[k], np.load(p, allow_pickle=False))
            if why:
                return suite.fail(name, "%s: %s" % (k, why), d)
        suite.ok(name)
    finally:
        harness.cleanup(r)


def main():
    suite = harness.Suite("test_multiout")
    harness.require_mars_run(suite)
    sel = sys.argv[1] if len(sys.argv) > 1 else None
    print("# %d cases, %d rejections" % (len(cases), len(rejects)), flush=True)
    for name, nodes, fetch, exp, args in cases:
        if not sel or sel in name:
            run_case(suite, name, nodes, fetch, exp, args)
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
    # --list-ops: the ops with several results say so, the others do not
    r = harness.run_mars(None, args=["--list-ops"], text="")
    try:
        import json
        ops = {o["name"]: o for o in json.loads(r.stdout)["ops"]}
        want = {"split": "sections", "array_split": "sections", "hsplit": "sections",
                "vsplit": "sections", "meshgrid": "inputs", "nonzero": "ndim",
                "unique": "flags", "histogram": 2,
                "linalg.qr": 2, "linalg.svd": "compute_uv", "linalg.eigh": 2,
                "linalg.slogdet": 2, "linalg.lstsq": 4}
        bad = [k for k, v in want.items() if ops.get(k, {}).get("outputs") != v]
        bad += [k for k, o in ops.items() if "outputs" in o and k not in want]
        suite.check("list-ops/outputs", not bad, "wrong \"outputs\" for %s" % bad)
    except Exception as e:
        suite.fail("list-ops/outputs", "no op list: %r (%s)" % (e, r.stderr[:200]))
    finally:
        harness.cleanup(r)
    suite.finish()


if __name__ == "__main__":
    main()
