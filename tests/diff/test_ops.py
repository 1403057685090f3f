#!/usr/bin/python3
"""Hand-written differential cases: every op of the tensor part of the graph
format (shared/spec/graph-format.md) on chunked inputs with uneven chunks,
over the five dtypes, against numpy 1.24 through npref.

Run: /usr/bin/python3 tests/diff/test_ops.py   (MARS_RUN picks the binary)
"""

import itertools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Case, Reject  # noqa: E402

DTS = ["bool", "int32", "int64", "float32", "float64"]
RNG = np.random.default_rng(20240601)

cases = []
rejects = []


def D(nodes, fetch=None):
    if fetch is None:
        fetch = [nodes[-1]["key"]]
    return {"version": 1, "nodes": nodes, "fetch": list(fetch)}


def add(name, nodes, fetch=None, **kw):
    cases.append(Case(name, D(nodes, fetch), **kw))


def rej(name, nodes, key, op, fetch=None):
    rejects.append(Reject(name, D(nodes, fetch), key, op))


def N(key, op, inputs=None, **params):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = list(inputs)
    n.update(params)
    return n


def A(key, data, dtype=None, chunk=None):
    """An `array` node from a numpy array or a nested list."""
    if isinstance(data, np.ndarray):
        if data.size == 0 and data.ndim != 1:
            # a nested empty list loses the shape: use zeros of that shape
            n = {"key": key, "op": "zeros", "shape": list(data.shape), "dtype": dtype or "float64"}
            if chunk is not None:
                n["chunk_size"] = chunk
            return n
        data = data.tolist()
    n = {"key": key, "op": "array", "data": data}
    if dtype is not None:
        n["dtype"] = dtype
    if chunk is not None:
        n["chunk_size"] = chunk
    return n


def sample(dtype, shape, lo=-20, hi=21):
    if dtype == "bool":
        return RNG.random(shape) < 0.5
    if dtype in ("int32", "int64"):
        return RNG.integers(lo, hi, shape)
    return np.round(RNG.normal(0, 4, shape), 3)


def specials(key, dtype="float64", chunk=3):
    """Nodes giving [inf, -inf, nan, 2.5, -0.0, 0.0, 1e300 or 3e38] of dtype
    through division by zero (JSON has no NaN)."""
    big = 1e300 if dtype == "float64" else 3e38
    return [
        A(key + "_n", [1.0, -1.0, 0.0, 2.5, -0.0, 0.0, big], dtype, chunk),
        A(key + "_d", [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0], dtype, 4),
        N(key, "divide", [key + "_n", key + "_d"]),
    ]


# ---------------------------------------------------------------------------
# Creation

for dt in [None] + DTS:
    extra = {"dtype": dt} if dt else {}
    add("ones/%s" % (dt or "default"), [N("a", "ones", shape=[7, 5], chunk_size=3, **extra)])
    add("zeros/%s" % (dt or "default"), [N("a", "zeros", shape=[4, 9], chunk_size=[3, 4], **extra)])
add("ones/bare-int-shape", [N("a", "ones", shape=11, chunk_size=4)])
add("ones/0d", [N("a", "ones", shape=[])])
add("zeros/zero-size", [N("a", "zeros", shape=[0, 5], chunk_size=2)])
add("ones/3d-list-chunks", [N("a", "ones", shape=[5, 6, 7], chunk_size=[2, 5, 3], dtype="int32")])
add("ones/no-chunk-size", [N("a", "ones", shape=[13, 3])])
add("ones/chunk-larger-than-shape", [N("a", "ones", shape=[3, 4], chunk_size=100)])
for fv, dt in [(True, None), (False, None), (7, None), (-3, "int32"), (2.5, None),
               (1.5, "int64"), (3, "float32"), (0, "bool"), (-2.25, "float32"), (1, "bool"),
               (2 ** 40, None), (2 ** 40 + 3, "int32")]:
    extra = {"dtype": dt} if dt else {}
    add("full/%r/%s" % (fv, dt or "default"),
        [N("a", "full", shape=[5, 4], fill_value=fv, chunk_size=[2, 3], **extra)])
add("full/0d", [N("a", "full", shape=[], fill_value=4.5)])
arange_cases = [
    dict(stop=10), dict(stop=10, chunk_size=3), dict(start=3, stop=17, step=4, chunk_size=2),
    dict(start=10, stop=0, step=-3), dict(start=0, stop=1, step=0.1, chunk_size=4),
    dict(start=1.5, stop=7.25, step=0.5), dict(stop=10, dtype="float32"),
    dict(start=-5, stop=5, dtype="int32", chunk_size=3), dict(stop=0), dict(start=5, stop=2),
    dict(stop=7.5), dict(start=0, stop=-1, step=-0.25, chunk_size=3),
    dict(start=2, stop=9, dtype="float64"), dict(stop=1, dtype="int64"),
]
for i, kw in enumerate(arange_cases):
    add("arange/%d/%s" % (i, ",".join("%s=%s" % kv for kv in sorted(kw.items()))),
        [N("a", "arange", **kw)])
linspace_cases = [
    dict(start=0, stop=1, num=7), dict(start=0, stop=1, num=7, endpoint=False),
    dict(start=-3, stop=3, num=1), dict(start=2, stop=5, num=0), dict(start=0, stop=10),
    dict(start=5, stop=-5, num=11, chunk_size=4), dict(start=0.5, stop=0.75, num=5, endpoint=False),
    dict(start=1, stop=2, num=2),
]
for i, kw in enumerate(linspace_cases):
    add("linspace/%d/%s" % (i, ",".join("%s=%s" % kv for kv in sorted(kw.items()))),
        [N("a", "linspace", **kw)])
eye_cases = [dict(N=5), dict(N=5, M=7, k=2, chunk_size=3), dict(N=6, k=-3, chunk_size=[4, 5]),
             dict(N=4, dtype="int32"), dict(N=4, M=2, dtype="bool"), dict(N=0),
             dict(N=3, k=5), dict(N=7, M=3, k=-2, dtype="float32", chunk_size=2),
             dict(N=5, dtype="int64", k=1)]
for i, kw in enumerate(eye_cases):
    add("eye/%d/%s" % (i, ",".join("%s=%s" % kv for kv in sorted(kw.items()))),
        [N("a", "eye", **kw)])
array_cases = [
    ([[1, 2, 3], [4, 5, 6]], None, None), ([[1.5, 2], [3, 4]], None, [1, 2]),
    ([True, False, True], None, 2), ([[1, 2], [3, 4]], "float32", None),
    ([[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]], "int32", [2, 1, 2]),
    ([[True, 2], [3, 4]], None, None), ([0.1, 0.2, 0.3, 1e-300, 1e300], None, 2),
    ([0.1, 0.2, 1e-40, 3.4e38], "float32", 3), ([1, 0, 2], "bool", None),
    ([2 ** 40, -2 ** 40], "int32", None), ([2.9, -2.9, 1e10], "int64", None), ([], None, None),
    ([[1, 2, 3]], "int64", 1), ([[[]]], "float64", None), ([5], None, None),
]
for i, (data, dt, ch) in enumerate(array_cases):
    add("array/%d/%s" % (i, dt or "default"), [A("a", data, dt, ch)])
add("array/from-sample", [A("a", sample("float64", (9, 8)), "float64", [4, 3])])

# ---------------------------------------------------------------------------
# Random: values come from mars-run; here they feed other ops (npref reuses
# them). Statistics and chunk-invariance are in test_cli.py and below.

for op, kw in [("random.rand", {}), ("random.randn", {}),
               ("random.randint", dict(low=-3, high=5)), ("random.randint", dict(low=0, high=7, dtype="int32")),
               ("random.uniform", dict(low=-2.0, high=3.0)), ("random.uniform", {}),
               ("random.normal", dict(loc=5.0, scale=0.5)), ("random.normal", {})]:
    add("random/%s/%s/sum-axis0" % (op, ",".join("%s=%s" % kv for kv in sorted(kw.items()))),
        [N("r", op, shape=[9, 7], seed=42, chunk_size=4, **kw), N("s", "sum", ["r"], axis=0),
         N("m", "multiply", ["r", 2]), N("t", "transpose", ["m"])], fetch=["s", "t"])
add("random/rand-matmul-randn",
    [N("a", "random.rand", shape=[8, 11], seed=1, chunk_size=3),
     N("b", "random.randn", shape=[11, 5], seed=2, chunk_size=[4, 2]),
     N("c", "matmul", ["a", "b"])])
add("random/rand-0d-and-empty",
    [N("a", "random.rand", shape=[], seed=3), N("b", "random.randn", shape=[0, 4], seed=3),
     N("c", "random.randint", shape=[3], seed=0, low=0, high=1)], fetch=["a", "b", "c"])
add("random/no-seed", [N("a", "random.rand", shape=[5, 5], chunk_size=2), N("b", "add", ["a", 1])])

# ---------------------------------------------------------------------------
# Element-wise binary ops over every dtype pair, with broadcasting between
# different chunkings.

BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "mod", "power", "maximum",
          "minimum", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
          "logical_and", "logical_or"]
NUMPY_REFUSES_BOOL = {"subtract"}  # floor_divide, mod, power of bools: int8

for op in BINARY:
    for i, (da, db) in enumerate(itertools.product(DTS, DTS)):
        av = sample(da, (7, 5))
        if op == "power":
            bv = sample(db, (5,), 0, 6)  # int ** negative int raises in numpy
        else:
            bv = sample(db, (5,))
        if i % 3 == 0:
            nodes = [A("a", av, da, 3), A("b", bv, db, 2)]
        elif i % 3 == 1:
            nodes = [A("a", av, da, [4, 2]), A("b", np.broadcast_to(bv, (7, 5)).copy(), db, [3, 4])]
        else:
            nodes = [A("a", av[:, :1].copy(), da, [2, 1]), A("b", bv, db, 3)]
        nodes.append(N("c", op, ["a", "b"]))
        name = "%s/%s,%s" % (op, da, db)
        if da == "bool" and db == "bool" and op in NUMPY_REFUSES_BOOL:
            rej(name + "/rejected", nodes, "c", op)
        else:
            add(name, nodes)

# Python scalars and numpy 1.24 value-based casting.
scalar_cases = [
    ("add", "int32", 2 ** 31), ("add", "int32", 5), ("add", "int32", -2 ** 31),
    ("add", "int32", -2 ** 31 - 1), ("add", "int32", 2 ** 32), ("add", "float32", 1e300),
    ("add", "float32", 2), ("add", "float32", 70000), ("add", "float32", 65535),
    ("add", "float32", -32768), ("add", "float32", -32769), ("add", "float32", 3.5),
    ("add", "float32", 3.3e38), ("add", "float32", 3.5e38), ("add", "bool", 1), ("add", "bool", True),
    ("add", "bool", 1.5), ("add", "int64", 1.5), ("add", "int32", 1.5), ("add", "int64", 2 ** 62),
    ("multiply", "int32", 4), ("multiply", "float64", True), ("subtract", "int32", 2 ** 31),
    ("divide", "int32", 2), ("divide", "float32", 3), ("divide", "bool", 2),
    ("floor_divide", "int32", -3), ("floor_divide", "float32", 0.5), ("mod", "int64", -4),
    ("mod", "float32", 2.5), ("power", "int32", 2), ("power", "int32", 0), ("power", "float32", 2),
    ("power", "float32", 0.5), ("power", "int64", 1.5), ("power", "int32", 2 ** 31),
    ("power", "bool", 2), ("maximum", "int32", 2 ** 40), ("minimum", "float32", -1e300),
    ("less", "int32", 2 ** 40), ("equal", "float32", 0.1), ("greater_equal", "bool", 0),
    ("logical_and", "float64", 0), ("logical_or", "int32", 1.5), ("not_equal", "int64", True),
]
for op, dt, s in scalar_cases:
    av = sample(dt, (6, 4), 0 if op == "power" else -20)
    add("scalar/%s/%s,%r" % (op, dt, s), [A("a", av, dt, [4, 3]), N("c", op, ["a", s])])
    add("scalar-first/%s/%r,%s" % (op, s, dt), [A("a", av, dt, [4, 3]), N("c", op, [s, "a"])])
add("scalar/only-scalars-int", [N("c", "add", [1, 2])])
add("scalar/only-scalars-float-bool", [N("c", "multiply", [2.5, True])])
add("scalar/int-scalars-big", [N("c", "multiply", [2 ** 40, 3])])

# NaN and infinities, floor_divide and mod with negative operands and zero
# divisors, integer overflow, INT_MIN corner cases.
for dt in ["float32", "float64"]:
    sp = specials("x", dt)
    for op in ["add", "subtract", "multiply", "divide", "floor_divide", "mod", "power", "maximum",
               "minimum", "equal", "less", "greater_equal", "not_equal", "logical_and"]:
        add("specials/%s/%s" % (op, dt),
            sp + [A("z", [[2.0], [-0.0], [1e308 if dt == "float64" else 3e38], [-3.5]], dt, 3),
                  N("c", op, ["x", "z"])])
        add("specials/%s/%s/rev" % (op, dt),
            sp + [A("z", [[2.0], [-0.0], [-1e30], [-3.5]], dt, 2), N("c", op, ["z", "x"])])
ints_a = [-7, 7, -7, 7, 0, 5, -5, 0, 13, -13, 2 ** 31 - 1, -2 ** 31]
ints_b = [2, -2, -2, 2, 3, 0, 0, 0, -1, -1, -1, -1]
for dt in ["int32", "int64"]:
    for op in ["floor_divide", "mod", "multiply", "add", "subtract", "divide", "power"]:
        b = ints_b if op != "power" else [2, 3, 0, 1, 5, 0, 1, 2, 3, 2, 2, 2]
        add("ints/%s/%s" % (op, dt), [A("a", ints_a, dt, 5), A("b", b, dt, 4),
                                        N("c", op, ["a", "b"])])
add("ints/int64-min-floor-divide-minus-one",
    [A("a", [-2 ** 63, -2 ** 63, 2 ** 63 - 1], "int64", 2), N("c", "floor_divide", ["a", -1]),
     N("d", "mod", ["a", -1]), N("e", "multiply", ["a", -1]), N("f", "negative", ["a"]),
     N("g", "abs", ["a"]), N("h", "add", ["a", 2 ** 62]), N("i", "square", ["a"])],
    fetch=["c", "d", "e", "f", "g", "h", "i"])
add("ints/int32-overflow-wraps",
    [A("a", [2 ** 31 - 1, -2 ** 31, 65536, 46341], "int32", 3),
     N("b", "add", ["a", "a"]), N("c", "multiply", ["a", "a"]), N("d", "power", ["a", 3]),
     N("e", "subtract", ["a", 2 ** 31 - 1]), N("f", "add", ["a", 1])],
    fetch=["b", "c", "d", "e", "f"])
for dt in ["float32", "float64"]:
    fa = [-7.0, 7.0, -7.0, 7.0, 0.0, 5.0, -5.0, 0.0, 5.5, -5.5, 1e300 if dt == "float64" else 3e38, -0.0]
    fb = [2.0, -2.0, -2.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.25, -0.75, 1e-300 if dt == "float64" else 1e-38, 3.0]
    for op in ["floor_divide", "mod", "divide", "power"]:
        add("floats/%s/%s" % (op, dt), [A("a", fa, dt, 5), A("b", fb, dt, 4),
                                         N("c", op, ["a", "b"])])
    add("floats/mod-by-inf/%s" % dt,
        [A("a", [5.0, -5.0, 0.0, 3.0], dt, 3), A("z", [1.0, 1.0, 1.0, -1.0], dt, 2),
         A("w", [0.0, 0.0, 0.0, 0.0], dt), N("inf", "divide", ["z", "w"]),
         N("m", "mod", ["a", "inf"]), N("f", "floor_divide", ["a", "inf"])], fetch=["m", "f"])
add("power/float-negative-base-fraction",
    [A("a", [-8.0, -1.0, 0.0, 4.0, 2.0], None, 2), N("c", "power", ["a", 0.5]),
     N("d", "power", ["a", -1]), N("e", "power", ["a", -1.5]), N("f", "power", [2, "a"]),
     N("g", "power", ["a", 1000])], fetch=["c", "d", "e", "f", "g"])
add("power/int-scalar-base", [A("a", [0, 1, 2, 10, 62, 63, 64], "int64", 3),
                              N("c", "power", [2, "a"]), N("d", "power", [-3, "a"]),
                              N("e", "power", [0, "a"]), N("f", "power", [1.5, "a"])],
    fetch=["c", "d", "e", "f"])
add("power/zero-to-zero", [A("a", [0, 0], "int32"), N("c", "power", ["a", "a"])])

# ---------------------------------------------------------------------------
# Element-wise unary ops over every dtype.

UNARY = ["negative", "abs", "sqrt", "exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh",
         "square", "sign", "floor", "ceil", "logical_not", "isnan", "isfinite"]
REFUSES_BOOL = {"negative", "sign", "sqrt", "exp", "log", "log1p", "expm1", "sin", "cos", "tan",
                "tanh", "floor", "ceil"}  # square of bools: int8
for op in UNARY:
    for dt in DTS:
        if dt == "bool":
            nodes = [A("a", sample("bool", (5, 6)), "bool", [2, 4]), N("c", op, ["a"])]
        elif dt.startswith("int"):
            v = np.array([[-2 ** 31, -20, -7, -1, 0], [1, 2, 3, 50, 2 ** 31 - 1]])
            nodes = [A("a", v, dt, [1, 3]), N("c", op, ["a"])]
        else:
            vals = [[-100.5, -2.5, -1.0, -0.5, -0.0, 0.0], [0.25, 0.5, 1.0, 2.5, 3.14159, 88.0]]
            nodes = specials("s", dt) + [A("a", vals, dt, [1, 4]), N("r", "ravel", ["a"]),
                                         N("cat", "concatenate", ["r", "s"]), N("c", op, ["cat"])]
        name = "unary/%s/%s" % (op, dt)
        if dt == "bool" and op in REFUSES_BOOL:
            rej(name + "/rejected", nodes, "c", op)
        else:
            add(name, nodes)
add("unary/sqrt-of-negative-int", [A("a", [-4, 4, 9], "int32", 2), N("c", "sqrt", ["a"])])
add("unary/exp-overflow-f32", [A("a", [80.0, 88.0, 89.0, 100.0, -104.0], "float32", 2),
                               N("c", "exp", ["a"])])
add("unary/on-scalar-input", [N("c", "negative", [3]), N("d", "sqrt", [2]), N("e", "exp", [1.0]),
                              N("f", "isnan", [1.0]), N("g", "logical_not", [0])],
    fetch=["c", "d", "e", "f", "g"])
add("unary/chained-fused", [A("a", sample("float64", (9, 7)), "float64", [4, 3]),
                            N("b", "abs", ["a"]), N("c", "sqrt", ["b"]), N("d", "log1p", ["c"]),
                            N("e", "multiply", ["d", -2]), N("f", "exp", ["e"]),
                            N("g", "tanh", ["f"]), N("h", "negative", ["g"])])

# where, clip, astype
WHERE_DT = [("bool", "int32", "float32"), ("int64", "int32", "int64"), ("float64", "bool", "bool"),
            ("bool", "float32", "float32"), ("int32", "float32", "int32"), ("bool", "int64", "float64")]
for cd, xd, yd in WHERE_DT:
    cv = sample(cd, (6, 1, 5)) if cd == "bool" else RNG.integers(-1, 2, (6, 1, 5))
    add("where/%s,%s,%s" % (cd, xd, yd),
        [A("cond", cv, cd, [4, 1, 2]), A("x", sample(xd, (4, 5)), xd, 3),
         A("y", sample(yd, (5,)), yd, 2), N("c", "where", ["cond", "x", "y"])])
add("where/nan-condition-is-true", specials("s") + [N("c", "where", ["s", 1.5, -1.5])])
for xs, ys in [(5, "y"), ("x", 2.5), (1, 2.5), ("x", 2 ** 40), (True, "y"), (1e300, "y")]:
    nodes = [A("cond", sample("bool", (7, 3)), "bool", [3, 2]), A("x", sample("int32", (7, 3)), "int32", 4),
             A("y", sample("float32", (3,)), "float32", 2), N("c", "where", ["cond", xs, ys])]
    add("where/scalars/%r,%r" % (xs, ys), nodes)
add("where/broadcast-cond-3d",
    [A("cond", sample("bool", (3, 1, 1)), "bool", 2), A("x", sample("float64", (1, 4, 1)), None, [1, 3, 1]),
     A("y", sample("float64", (1, 1, 5)), None, [1, 1, 2]), N("c", "where", ["cond", "x", "y"])])
clip_cases = [("float64", 0.5, 2.0), ("float64", None, 1.0), ("float64", -1.0, None),
              ("int32", 0, 10), ("int32", None, 2 ** 40), ("int32", 0.5, 3), ("int64", -5, None),
              ("float32", 0, 1e300), ("float32", -1.5, 1.5), ("float64", 3.0, 1.0),
              ("bool", 0, 0), ("int32", 10, -10), ("bool", None, True)]
for dt, lo, hi in clip_cases:
    kw = {"a_min": lo, "a_max": hi}
    add("clip/%s/%r,%r" % (dt, lo, hi), [A("a", sample(dt, (6, 7)), dt, [4, 3]), N("c", "clip", ["a"], **kw)])
add("clip/absent-a_max-field", [A("a", sample("float64", (6,)), None, 4), N("c", "clip", ["a"], a_min=0.0)])
add("clip/nan-and-inf", specials("s") + [N("c", "clip", ["s"], a_min=-1.0, a_max=1.0)])
for src in DTS:
    for dst in DTS:
        if src.startswith("float"):
            nodes = specials("s", src) + [A("a", [-2.7, 2.7, -0.5, 1e10, -1e10, 3e9, 255.9, 0.0], src, 3),
                                           N("cat", "concatenate", ["a", "s"]), N("c", "astype", ["cat"], dtype=dst)]
        elif src.startswith("int"):
            vals = [0, 1, -1, 2 ** 31 - 1, -2 ** 31, 16777217, 123456789]
            if src == "int64":
                vals += [2 ** 40 + 5, -2 ** 63, 2 ** 53 + 1]
            nodes = [A("a", vals, src, 3), N("c", "astype", ["a"], dtype=dst)]
        else:
            nodes = [A("a", [True, False, True, True, False], "bool", 2), N("c", "astype", ["a"], dtype=dst)]
        add("astype/%s->%s" % (src, dst), nodes)
add("astype/2d-chunked", [A("a", sample("float64", (7, 9)), None, [3, 4]),
                          N("b", "astype", ["a"], dtype="int32"), N("c", "astype", ["b"], dtype="float32")])

# ---------------------------------------------------------------------------
# Reductions

RED = ["sum", "prod", "mean", "min", "max", "std", "var", "all", "any"]
AXES = [None, 0, 1, -1, [0, 2], [-1, 0, 1], [2]]
for op in RED:
    for dt in DTS:
        if op == "prod" and dt.startswith("float"):
            v = RNG.uniform(0.5, 1.5, (5, 7, 3)) * RNG.choice([-1, 1], (5, 7, 3))
        elif op == "prod" and dt.startswith("int"):
            v = RNG.integers(-3, 4, (5, 7, 3))
        else:
            v = sample(dt, (5, 7, 3))
        for ai, ax in enumerate(AXES):
            for kd in ([False, True] if ai in (0, 2, 4) else [False]):
                params = {"axis": ax}
                if kd:
                    params["keepdims"] = True
                add("reduce/%s/%s/axis=%s%s" % (op, dt, ax, "/keepdims" if kd else ""),
                    [A("a", v, dt, [2, 3, 2]), N("r", op, ["a"], **params)])
        add("reduce/%s/%s/default-axis" % (op, dt), [A("a", v, dt, [4, 3, 2]), N("r", op, ["a"])])
for op in ["std", "var"]:
    for ddof in [1, 2, 3, 5]:
        for ax in [None, 0, [1, 2]]:
            add("reduce/%s/ddof=%d/axis=%s" % (op, ddof, ax),
                [A("a", sample("float64", (3, 4, 5)), None, [2, 3, 2]), N("r", op, ["a"], axis=ax, ddof=ddof)])
    add("reduce/%s/ddof=-1" % op, [A("a", sample("float64", (4, 5)), None, 3), N("r", op, ["a"], axis=1, ddof=-1)])
    add("reduce/%s/float32-ddof1" % op, [A("a", sample("float32", (40, 6)), "float32", [7, 4]),
                                         N("r", op, ["a"], axis=0, ddof=1)])
    add("reduce/%s/int32-ddof1" % op, [A("a", sample("int32", (9, 6)), "int32", [4, 4]),
                                       N("r", op, ["a"], axis=1, ddof=1, keepdims=True)])
for op in RED:
    add("reduce/%s/with-nan" % op, specials("s") + [N("r", op, ["s"])])
    add("reduce/%s/empty-axis-kept" % op,
        [N("a", "ones", shape=[0, 4], chunk_size=2), N("r", op, ["a"], axis=1)])
    if op in ("min", "max"):
        rej("reduce/%s/empty-reduced/rejected" % op,
            [N("a", "ones", shape=[0, 4], chunk_size=2), N("r", op, ["a"], axis=0)], "r", op)
        rej("reduce/%s/empty-all/rejected" % op, [N("a", "zeros", shape=[3, 0]), N("r", op, ["a"])], "r", op)
    else:
        add("reduce/%s/empty-reduced" % op, [N("a", "ones", shape=[0, 4], chunk_size=2), N("r", op, ["a"], axis=0)])
        add("reduce/%s/empty-all" % op, [N("a", "zeros", shape=[3, 0], dtype="int32"), N("r", op, ["a"])])
    add("reduce/%s/0d-input" % op, [N("a", "full", shape=[], fill_value=3.0), N("r", op, ["a"])])
    add("reduce/%s/0d-input-axis-list-empty" % op,
        [A("a", sample("float64", (4, 3)), None, 2), N("r", op, ["a"], axis=[])])
add("reduce/sum/large-f32-chunked", [A("a", RNG.uniform(0, 1, 3000).astype(np.float32), "float32", 170),
                                     N("r", "sum", ["a"])])
add("reduce/mean/int64-big", [A("a", [2 ** 62, 2 ** 62, 2 ** 62, 3], "int64", 2), N("r", "mean", ["a"]),
                              N("s", "sum", ["a"])], fetch=["r", "s"])
add("reduce/prod/int-overflow", [A("a", [2 ** 20] * 5 + [3], "int64", 2), N("r", "prod", ["a"]),
                                 A("b", [65536, 65536, 7], "int32", 1), N("s", "prod", ["b"])], fetch=["r", "s"])
add("reduce/sum/int32-to-int64", [A("a", [2 ** 31 - 1] * 4, "int32", 3), N("r", "sum", ["a"])])
add("reduce/min-max/inf", specials("s") + [N("t", "getitem", ["s"], index=["::3"]),
                                           N("mn", "min", ["t"]), N("mx", "max", ["t"])], fetch=["mn", "mx"])

for op in ["argmin", "argmax"]:
    for dt in DTS:
        v = sample(dt, (6, 9), -3, 4)
        for ax in [None, 0, 1, -1, -2]:
            add("%s/%s/axis=%s" % (op, dt, ax), [A("a", v, dt, [4, 4]), N("r", op, ["a"], axis=ax)])
        add("%s/%s/keepdims" % (op, dt), [A("a", v, dt, [4, 4]), N("r", op, ["a"], axis=1, keepdims=True)])
        add("%s/%s/keepdims-none" % (op, dt), [A("a", v, dt, [4, 4]), N("r", op, ["a"], keepdims=True)])
    add("%s/ties-across-chunks" % op, [A("a", [5, 1, 9, 3, 1, 9, 0, 9, 0, 1], "int64", 3),
                                       N("r", op, ["a"])])
    add("%s/ties-2d-axis0" % op, [A("a", [[1, 1, 2], [0, 1, 2], [0, 3, 2], [3, 3, 2]], "int32", [3, 2]),
                                  N("r", op, ["a"], axis=0)])
    add("%s/nan-first-wins" % op, specials("s") + [N("r", op, ["s"])])
    add("%s/nan-later-chunk" % op,
        [A("n", [1.0, 2.0, 0.0, 4.0, 0.0, -9.0, 0.0], None, 2), A("d", [1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0], None, 3),
         N("x", "divide", ["n", "d"]), N("r", op, ["x"]), N("r2", op, ["x"], axis=0)], fetch=["r", "r2"])
    add("%s/all-equal" % op, [N("a", "ones", shape=[5, 7], chunk_size=[2, 3]), N("r", op, ["a"]),
                              N("q", op, ["a"], axis=1)], fetch=["r", "q"])
    add("%s/3d-flat" % op, [A("a", sample("float32", (4, 5, 6)), "float32", [3, 2, 4]), N("r", op, ["a"])])
    add("%s/0d" % op, [N("a", "full", shape=[], fill_value=2), N("r", op, ["a"])])
    rej("%s/empty/rejected" % op, [N("a", "ones", shape=[0, 3]), N("r", op, ["a"])], "r", op)

for op in ["cumsum", "cumprod"]:
    for dt in DTS:
        v = sample(dt, (5, 7), -2, 3) if op == "cumprod" else sample(dt, (5, 7))
        if op == "cumprod" and dt.startswith("float"):
            v = RNG.uniform(0.6, 1.4, (5, 7))
        for ax in [None, 0, 1, -1]:
            add("%s/%s/axis=%s" % (op, dt, ax), [A("a", v, dt, [2, 3]), N("r", op, ["a"], axis=ax)])
    add("%s/default-axis-3d" % op, [A("a", RNG.uniform(0.9, 1.1, (3, 4, 5)), None, [2, 3, 2]), N("r", op, ["a"])])
    add("%s/3d-axis1" % op, [A("a", RNG.uniform(0.9, 1.1, (3, 4, 5)), None, [2, 3, 2]), N("r", op, ["a"], axis=1)])
    add("%s/empty" % op, [N("a", "ones", shape=[0, 3], chunk_size=2), N("r", op, ["a"], axis=0),
                          N("q", op, ["a"])], fetch=["r", "q"])
    add("%s/nan" % op, specials("s") + [N("r", op, ["s"])])
    add("%s/long-1d-many-chunks" % op, [A("a", RNG.uniform(0.99, 1.01, 200), None, 7), N("r", op, ["a"])])
    add("%s/0d" % op, [N("a", "full", shape=[], fill_value=3), N("r", op, ["a"])])
add("cumsum/int32-overflow-in-int64", [A("a", [2 ** 31 - 1] * 5, "int32", 2), N("r", "cumsum", ["a"])])

# ---------------------------------------------------------------------------
# Linear algebra

LINALG_SHAPES = {
    "dot": [((5,), (5,)), ((4, 5), (5,)), ((5,), (5, 3)), ((7, 6), (6, 4)), ((2, 3, 6), (6, 4)),
            ((3, 6), (2, 6, 4)), ((2, 3, 5), (4, 5, 2)), ((0, 5), (5, 3)), ((3, 0), (0, 4))],
    "matmul": [((7, 6), (6, 4)), ((6,), (6, 4)), ((7, 6), (6,)), ((6,), (6,)), ((2, 4, 5), (5, 3)),
               ((4, 5), (2, 5, 3)), ((1, 4, 5), (3, 5, 2)), ((3, 4, 5), (3, 5, 2)), ((0, 5), (5, 2)),
               ((2, 3, 0), (0, 4))],
    "inner": [((5,), (5,)), ((4, 5), (5,)), ((5,), (3, 5)), ((7, 6), (4, 6)), ((2, 3, 6), (4, 6)),
              ((3, 6), (2, 4, 6)), ((4, 0), (3, 0))],
    "outer": [((5,), (4,)), ((2, 3), (4,)), ((3,), (2, 2)), ((0,), (3,))],
}
LCHUNKS = [(3, 4), (2, 2), (4, 3), (10, 1)]
for op, shapes in LINALG_SHAPES.items():
    for si, (sa, sb) in enumerate(shapes):
        for dt_a, dt_b in [("float64", "float64"), ("float32", "float32"), ("int32", "int32"),
                           ("int64", "int64"), ("bool", "bool"), ("int32", "float32"), ("bool", "int64")]:
            ca, cb = LCHUNKS[(si + len(dt_a)) % len(LCHUNKS)]
            av = sample(dt_a, sa, -5, 6)
            bv = sample(dt_b, sb, -5, 6)
            add("%s/%s@%s/%s,%s/chunks=%d,%d" % (op, sa, sb, dt_a, dt_b, ca, cb),
                [A("a", av, dt_a, ca), A("b", bv, dt_b, cb), N("c", op, ["a", "b"])])
for op in ["dot", "matmul", "inner", "outer"]:
    rej("%s/scalar-input/rejected" % op, [A("a", [1.0, 2.0]), N("c", op, ["a", 2])], "c", op)
TD = [((4, 5), (5, 6), 1), ((4, 5, 3), (5, 3, 2), 2), ((3, 4), (2, 5), 0),
      ((4, 5, 3), (3, 4, 2), [[2, 0], [0, 1]]), ((4, 5, 3), (3, 2), [[2], [0]]),
      ((6, 7), (7, 6), [[0, 1], [1, 0]]), ((3, 4), (4, 3), [[-1], [0]]), ((5,), (5,), 1),
      ((2, 3, 4), (2, 3, 4), 3), ((4, 5), (5, 6), [[1], [0]])]
for i, (sa, sb, axes) in enumerate(TD):
    for dt in ["float64", "float32", "int64"]:
        add("tensordot/%d/%s,%s/axes=%s/%s" % (i, sa, sb, axes, dt),
            [A("a", sample(dt, sa, -5, 6), dt, [3, 2, 4][:len(sa)]),
             A("b", sample(dt, sb, -5, 6), dt, [4, 3, 2][:len(sb)]),
             N("c", "tensordot", ["a", "b"], axes=axes)])
add("tensordot/default-axes-2", [A("a", sample("float64", (3, 4, 5)), None, 2),
                                 A("b", sample("float64", (4, 5, 2)), None, 3), N("c", "tensordot", ["a", "b"])])
# Symmetric products (numpy uses syrk): inner(a, a), dot(a, a.T), a @ a.T
for dt in ["float64", "float32", "int32", "bool"]:
    for sh, ch in [((9, 7), [4, 3]), ((20, 13), 6), ((1, 5), 2), ((6, 0), 3)]:
        v = sample(dt, sh, -4, 5)
        base = [A("a", v, dt, ch)]
        add("symmetric/inner(a,a)/%s/%s" % (dt, sh), base + [N("c", "inner", ["a", "a"])])
        add("symmetric/dot(a,a.T)/%s/%s" % (dt, sh),
            base + [N("t", "transpose", ["a"]), N("c", "dot", ["a", "t"])])
        add("symmetric/matmul(a.T,a)/%s/%s" % (dt, sh),
            base + [N("t", "transpose", ["a"]), N("c", "matmul", ["t", "a"])])
add("symmetric/seed-like", [N("a", "ones", shape=[60, 50], chunk_size=7), N("b", "inner", ["a", "a"])])
add("linalg/different-chunkings-contracted",
    [A("a", sample("float64", (9, 13)), None, [4, 3]), A("b", sample("float64", (13, 8)), None, [4, 5]),
     N("c", "dot", ["a", "b"]), N("d", "matmul", ["a", "b"]),
     N("e", "tensordot", ["a", "b"], axes=1)], fetch=["c", "d", "e"])
add("linalg/int32-overflow-wraps",
    [A("a", [[2 ** 20, 2 ** 20], [3, 4]], "int32", 1), A("b", [[2 ** 12, 1], [2 ** 12, 1]], "int32", 1),
     N("c", "matmul", ["a", "b"])])
add("linalg/dot-1d-1d-gives-0d", [A("a", sample("float64", (11,)), None, 4),
                                  A("b", sample("float64", (11,)), None, 3), N("c", "dot", ["a", "b"])])
add("linalg/nan-propagates", specials("s") + [N("c", "outer", ["s", "s"]), N("d", "dot", ["s", "s"])],
    fetch=["c", "d"])
# numpy 1.24 searches the integer loops of floor_divide, remainder, fmod,
# power, the bitwise ops and the shifts in order (int8, uint8, int16, ...)
# beside a Python int, which can differ from result_type: 70000 // a uint8
# array is int32 (result_type says uint32), a uint32 array & 2**32 + 5 int64
for dt in ("uint8", "uint16", "uint32", "int8"):
    for op, v, first in (("floor_divide", 70000, True), ("remainder", 300, False),
                         ("fmod", 70000, False), ("power", 2, False),
                         ("bitwise_and", 300, False), ("bitwise_or", 4294967301, False),
                         ("bitwise_xor", 70000, True), ("left_shift", 1, True),
                         ("right_shift", 70000, True), ("mod", 4294967301, True)):
        add("promotion/loop-search/%s/%s/%d" % (dt, op, v),
            [A("a", [5, 6, 7, 1, 3], dt, 2), N("c", op, [v, "a"] if first else ["a", v])])
# outer multiplies as numpy does: a negative times zero is -0.0, which a
# division turns into -inf (a gemm summing into a zeroed output gave +0.0)
for dt in ("float64", "float32"):
    add("linalg/outer-signed-zero/%s" % dt,
        [A("a", [-1.5, 2.0, -0.0, 3.0, -7.25], dt, 2), A("b", [0.0, 1.0, -2.0, 0.0], dt, 3),
         A("m", [False, True, False], None, 2),
         N("c", "outer", ["a", "b"]), N("d", "divide", [1.0, "c"]),
         N("e", "outer", ["a", "m"]), N("f", "divide", [-4.0, "e"])], fetch=["c", "d", "e", "f"])

# ---------------------------------------------------------------------------
# Shape and indexing

T3 = sample("float64", (4, 5, 6))
for axes in [None, [2, 0, 1], [0, 1, 2], [1, 0, 2], [-1, 0, 1]]:
    for dt in ["float64", "int32", "bool"]:
        params = {} if axes is None else {"axes": axes}
        add("transpose/%s/%s" % (axes, dt), [A("a", sample(dt, (4, 5, 6)), dt, [3, 2, 4]),
                                             N("t", "transpose", ["a"], **params)])
add("transpose/axes-null-explicit", [A("a", T3, None, 3), N("t", "transpose", ["a"], axes=None)])
add("transpose/1d-0d-empty", [A("a", [1, 2, 3], None, 2), N("t", "transpose", ["a"]),
                              N("z", "ones", shape=[]), N("u", "transpose", ["z"]),
                              N("e", "ones", shape=[0, 3]), N("v", "transpose", ["e"])], fetch=["t", "u", "v"])
RESHAPES = [((6, 10), [4, 15], [4, 3]), ((6, 10), [-1], 4), ((60,), [3, 4, 5], 7),
            ((60,), [5, -1, 2], 13), ((6, 10), [10, 6], [5, 3]), ((2, 3, 10), [6, 10], [1, 2, 3]),
            ((6, 10), [2, 30], [6, 10]), ((6, 10), 60, 7), ((1,), [], 1), ((4, 6), [24, 1], 5),
            ((0, 5), [5, 0], 2), ((3, 4, 5), [-1, 5], [2, 3, 2]), ((12,), [1, 12, 1], 5)]
for i, (src, ns, ch) in enumerate(RESHAPES):
    for dt in ["float64", "int64"]:
        add("reshape/%d/%s->%s/%s" % (i, src, ns, dt),
            [A("a", np.arange(int(np.prod(src))).reshape(src) * 3 - 7, dt, ch) if np.prod(src) else
             N("a", "zeros", shape=list(src), dtype=dt), N("r", "reshape", ["a"], newshape=ns)])
add("reshape/from-0d", [N("a", "full", shape=[], fill_value=7.0), N("r", "reshape", ["a"], newshape=[1, 1, 1])])
add("reshape/of-transpose", [A("a", sample("float64", (6, 8)), None, [4, 3]), N("t", "transpose", ["a"]),
                             N("r", "reshape", ["t"], newshape=[4, 12])])
add("reshape/chain", [A("a", sample("int32", (4, 9)), "int32", [3, 4]), N("r", "reshape", ["a"], newshape=[6, 6]),
                      N("s", "reshape", ["r"], newshape=[-1, 4]), N("t", "reshape", ["s"], newshape=[36])])
for src, ch in [((5, 7), [2, 3]), ((3, 4, 5), [2, 3, 2]), ((9,), 4), ((0, 3), 2)]:
    add("ravel/%s" % (src,), [A("a", sample("int64", src), "int64", ch) if np.prod(src) else
                              N("a", "ones", shape=list(src), chunk_size=ch), N("r", "ravel", ["a"])])
add("ravel/of-transpose", [A("a", sample("float64", (5, 7)), None, [2, 3]), N("t", "transpose", ["a"]),
                           N("r", "ravel", ["t"])])
add("ravel/0d", [N("a", "ones", shape=[]), N("r", "ravel", ["a"])])
SQUEEZES = [((1, 5, 1, 3), None), ((1, 5, 1, 3), 0), ((1, 5, 1, 3), [0, 2]), ((1, 5, 1, 3), -2),
            ((1, 1), None), ((5, 1), [-1]), ((1,), 0)]
for sh, ax in SQUEEZES:
    params = {} if ax is None else {"axis": ax}
    add("squeeze/%s/axis=%s" % (sh, ax), [A("a", sample("float32", sh), "float32", 2),
                                          N("s", "squeeze", ["a"], **params)])
rej("squeeze/not-size-1/rejected", [N("a", "ones", shape=[2, 3]), N("s", "squeeze", ["a"], axis=0)], "s", "squeeze")
for sh, ax in [((4, 5), 0), ((4, 5), 1), ((4, 5), 2), ((4, 5), -1), ((4, 5), [0, 2]), ((4, 5), [-1, 0]),
               ((), 0), ((3,), [0, 1, 3])]:
    add("expand_dims/%s/axis=%s" % (sh, ax),
        [A("a", sample("int32", sh), "int32", 3) if sh else N("a", "full", shape=[], fill_value=2),
         N("e", "expand_dims", ["a"], axis=ax)])
CONCATS = [([(4, 5), (3, 5)], 0, [2, 3]), ([(4, 5), (4, 2)], 1, [3, 1]), ([(4, 5), (4, 3), (4, 1)], -1, [2, 2, 3]),
           ([(2, 3, 4), (2, 3, 1)], 2, [1, 2, 3]), ([(5,), (0,), (3,)], 0, [2, 1, 2]), ([(7,)], 0, [3]),
           ([(3, 4), (3, 4)], 0, [2, 3])]
for shapes, ax, chs in CONCATS:
    for dts in [("float64",) * len(shapes), ("int32",) + ("float32",) * (len(shapes) - 1),
                ("bool",) + ("int64",) * (len(shapes) - 1), ("bool",) * len(shapes)]:
        nodes = [A("x%d" % i, sample(dt, sh), dt, ch) if np.prod(sh) else N("x%d" % i, "zeros", shape=list(sh), dtype=dt)
                 for i, (sh, dt, ch) in enumerate(zip(shapes, dts, chs))]
        nodes.append(N("c", "concatenate", ["x%d" % i for i in range(len(shapes))], axis=ax))
        add("concatenate/%s/axis=%d/%s" % (shapes, ax, ",".join(dts)), nodes)
add("concatenate/axis-null-flattens", [A("a", sample("float64", (2, 3)), None, 1), A("b", sample("int32", (4,)), "int32", 3),
                                      N("c", "concatenate", ["a", "b"], axis=None)])
add("concatenate/default-axis", [A("a", sample("float64", (2, 3)), None, 1), A("b", sample("float64", (4, 3)), None, 3),
                                 N("c", "concatenate", ["a", "b"])])
for ax in [0, 1, 2, -1, -3]:
    for dts in [("float64", "float64", "float64"), ("int32", "int64", "bool"), ("float32", "int32", "float32")]:
        add("stack/axis=%d/%s" % (ax, ",".join(dts)),
            [A("x", sample(dts[0], (4, 5)), dts[0], [3, 2]), A("y", sample(dts[1], (4, 5)), dts[1], [1, 4]),
             A("z", sample(dts[2], (4, 5)), dts[2], 5), N("s", "stack", ["x", "y", "z"], axis=ax)])
add("stack/0d-inputs", [N("a", "full", shape=[], fill_value=1.5), N("b", "zeros", shape=[]),
                        N("s", "stack", ["a", "b"])])
add("stack/default-axis-single", [A("a", [1, 2, 3], None, 2), N("s", "stack", ["a"])])
for ch in [1, 2, [3, 1], 100, [7, 4], [1, 100]]:
    add("rechunk/%s" % ch, [A("a", sample("int64", (7, 4)), "int64", [3, 3]), N("r", "rechunk", ["a"], chunk_size=ch),
                            N("s", "add", ["r", "a"])], fetch=["r", "s"])
add("rechunk/then-matmul", [A("a", sample("float64", (9, 8)), None, 2), N("r", "rechunk", ["a"], chunk_size=[5, 3]),
                            A("b", sample("float64", (8, 3)), None, 3), N("c", "matmul", ["r", "b"])])
GETITEMS = [[1], [-1], [0, 2], [-7, -1], ["1:5"], ["::2"], ["::-1"], ["5:1:-2"], ["-3:"], [":", "::-3"],
            ["2:2"], ["5:2"], [":", 3], [2, "1:7:3"], ["::-1", "::-1"], [":", ":", 1], [1, 2, 3],
            ["10:"], ["-100:100"], ["1:-1", "-2::-1"], [":"], [], ["::3", -4, "::-2"], ["6:0:-4"]]
G = sample("int64", (7, 9, 5))
for i, idx in enumerate(GETITEMS):
    add("getitem/%d/%s" % (i, idx), [A("a", G, "int64", [3, 4, 2]), N("g", "getitem", ["a"], index=idx)])
add("getitem/1d-negative-step-across-chunks", [A("a", list(range(23)), None, 5),
                                               N("g", "getitem", ["a"], index=["20:2:-3"])])
add("getitem/of-transpose", [A("a", G, "int64", [3, 4, 2]), N("t", "transpose", ["a"]),
                             N("g", "getitem", ["t"], index=[1, "::-2"])])
add("getitem/then-reduce", [A("a", sample("float64", (10, 10)), None, 3),
                            N("g", "getitem", ["a"], index=["1::2", "::-3"]), N("s", "sum", ["g"], axis=0)])
add("getitem/empty-then-ops", [A("a", sample("float64", (6, 6)), None, 4), N("g", "getitem", ["a"], index=["4:1"]),
                               N("s", "sum", ["g"], axis=0), N("m", "multiply", ["g", 2])], fetch=["s", "m"])
rej("getitem/out-of-range/rejected", [A("a", [1, 2, 3]), N("g", "getitem", ["a"], index=[3])], "g", "getitem")
rej("getitem/negative-out-of-range/rejected", [A("a", [1, 2, 3]), N("g", "getitem", ["a"], index=[-4])],
    "g", "getitem")
rej("getitem/step-0/rejected", [A("a", [1, 2, 3]), N("g", "getitem", ["a"], index=["::0"])], "g", "getitem")
rej("getitem/too-many-indices/rejected", [A("a", [1, 2, 3]), N("g", "getitem", ["a"], index=[0, 0])],
    "g", "getitem")

# ---------------------------------------------------------------------------
# Broadcasting across different chunkings; zero-size; 0-d results.

for sa, ca, sb, cb in [((6, 8), [4, 3], (8,), 5), ((6, 1), 2, (1, 8), 3), ((3, 1, 5), [2, 1, 3], (4, 1), [3, 1]),
                       ((1,), 1, (9, 7), [4, 5]), ((5, 0), 2, (1,), 1), ((2, 1, 3), 1, (2, 4, 1), [1, 3, 1]),
                       ((), None, (4, 5), 3)]:
    for op in ["add", "multiply", "greater"]:
        na = A("a", sample("float64", sa), None, ca) if sa and np.prod(sa) else \
            (N("a", "full", shape=list(sa), fill_value=1.5) if not sa else N("a", "zeros", shape=list(sa)))
        add("broadcast/%s/%s+%s" % (op, sa, sb), [na, A("b", sample("float64", sb), None, cb),
                                                  N("c", op, ["a", "b"])])
rej("broadcast/mismatch/rejected", [N("a", "ones", shape=[3, 4]), N("b", "ones", shape=[5]),
                                    N("c", "add", ["a", "b"])], "c", "add")
add("zero-size/elementwise-chain", [N("a", "ones", shape=[0, 3], chunk_size=2), N("b", "exp", ["a"]),
                                    N("c", "add", ["b", 1]), N("d", "transpose", ["c"])], fetch=["c", "d"])
add("zero-size/matmul-gives-zeros", [N("a", "ones", shape=[3, 0]), N("b", "ones", shape=[0, 4], dtype="int32"),
                                     N("c", "matmul", ["a", "b"])])
add("zero-size/every-axis", [N("a", "zeros", shape=[0, 0, 0], dtype="bool"), N("b", "logical_not", ["a"]),
                             N("s", "sum", ["b"], axis=[0, 1])], fetch=["b", "s"])
add("0d/sum-axis-null", [A("a", sample("float64", (5, 7)), None, 3), N("s", "sum", ["a"])])
add("0d/arith", [A("a", sample("int32", (5, 7)), "int32", 3), N("s", "sum", ["a"]), N("m", "max", ["a"]),
                 N("c", "add", ["s", "m"]), N("d", "multiply", ["c", 1.5]), N("e", "sqrt", ["d"])],
    fetch=["c", "d", "e"])
add("0d/with-array-promotes-by-dtype", [A("a", sample("int32", (4, 3)), "int32", 2), N("s", "sum", ["a"]),
                                        N("c", "add", ["a", "s"])])
add("0d/f32-array-plus-f64-0d", [A("a", sample("float32", (4, 3)), "float32", 2), N("s", "mean", ["a"]),
                                 N("x", "astype", ["s"], dtype="float64"), N("c", "add", ["a", "x"])])
add("0d/0d-int32-plus-python-int-is-int64", [N("a", "full", shape=[], fill_value=-9, dtype="int32"),
                                             N("c", "maximum", ["a", -2]), N("d", "add", [3, "a"])], fetch=["c", "d"])
add("0d/0d-float32-plus-python-float-is-float64", [N("a", "ones", shape=[], dtype="float32"),
                                                   N("c", "multiply", ["a", 0.5]), N("w", "where", [True, "a", 0])],
    fetch=["c", "w"])
add("0d/0d-int32-and-0d-float32", [N("a", "ones", shape=[], dtype="float32"), N("b", "full", shape=[], fill_value=3, dtype="int32"),
                                   N("c", "add", ["a", "b"]), N("m", "maximum", ["b", "b"])], fetch=["c", "m"])
add("0d/where-0d-tensors-and-scalar", [N("c", "full", shape=[], fill_value=2.0), N("x", "ones", shape=[], dtype="float32"),
                                       N("w", "where", ["c", 0, "x"]), N("v", "where", ["c", "x", 1.5])], fetch=["w", "v"])
add("0d/clip-0d-int32", [N("a", "full", shape=[], fill_value=7, dtype="int32"), N("c", "clip", ["a"], a_min=0, a_max=5)])
add("0d/int32-array-plus-0d-int64-is-int64", [A("a", [1, 2, 3], "int32", 2), N("s", "full", shape=[], fill_value=5),
                                              N("c", "add", ["a", "s"])])
add("0d/float32-array-plus-0d-float64-is-float64", [A("a", [1.5, 2.5], "float32", 1), N("s", "full", shape=[], fill_value=0.5),
                                                    N("c", "multiply", ["a", "s"])])
add("0d/getitem-all-ints", [A("a", G, "int64", 3), N("g", "getitem", ["a"], index=[6, -1, 2])])
add("0d/dot-then-broadcast", [A("a", [1.0, 2.0, 3.0], None, 2), N("d", "dot", ["a", "a"]),
                              N("c", "divide", ["a", "d"])], fetch=["d", "c"])

# ---------------------------------------------------------------------------
# Larger tensors: many chunks in every direction, chunkings that disagree.

L = [N("a", "random.randn", shape=[300, 257], seed=5, chunk_size=[64, 50]),
     N("b", "random.rand", shape=[257, 130], seed=6, chunk_size=[33, 71])]
add("large/inner-syrk", L + [N("c", "inner", ["a", "a"])])
add("large/dot-a-aT", L + [N("t", "transpose", ["a"]), N("c", "dot", ["a", "t"])])
add("large/matmul-rechunked", L + [N("c", "matmul", ["a", "b"]), N("s", "sum", ["c"], axis=0)], fetch=["c", "s"])
add("large/batched-matmul", [N("x", "random.randn", shape=[5, 30, 40], seed=7, chunk_size=[2, 7, 9]),
                             N("y", "random.randn", shape=[5, 40, 20], seed=8, chunk_size=[3, 11, 6]),
                             N("c", "matmul", ["x", "y"])])
add("large/batched-matmul-broadcast", [N("x", "random.randn", shape=[4, 1, 12, 16], seed=7, chunk_size=[3, 1, 5, 7]),
                                       N("y", "random.randn", shape=[3, 16, 9], seed=8, chunk_size=[2, 6, 4]),
                                       N("c", "matmul", ["x", "y"])])
add("large/tensordot-2-axes-permuted", [N("x", "random.randn", shape=[20, 30, 25], seed=9, chunk_size=[7, 8, 9]),
                                        N("y", "random.randn", shape=[25, 11, 20], seed=10, chunk_size=[6, 5, 4]),
                                        N("c", "tensordot", ["x", "y"], axes=[[0, 2], [2, 0]])])
add("large/dot-3d-3d", [N("x", "random.randn", shape=[6, 10, 14], seed=11, chunk_size=[4, 3, 5]),
                        N("y", "random.randn", shape=[3, 14, 8], seed=12, chunk_size=[2, 6, 3]),
                        N("c", "dot", ["x", "y"])])
add("large/reductions-middle-axis", [N("x", "random.randn", shape=[40, 50, 60], seed=13, chunk_size=[7, 9, 11])] +
    [N(op, op, ["x"], axis=1, keepdims=True) for op in ["sum", "mean", "std", "var", "min", "max"]] +
    [N("am", "argmax", ["x"], axis=1), N("an", "argmin", ["x"]), N("cs", "cumsum", ["x"], axis=1),
     N("s02", "sum", ["x"], axis=[0, 2])],
    fetch=["sum", "mean", "std", "var", "min", "max", "am", "an", "cs", "s02"])
add("large/float32-cumsum-axis0", [N("x", "random.rand", shape=[500, 7], seed=14, chunk_size=[13, 3]),
                                   N("f", "astype", ["x"], dtype="float32"), N("c", "cumsum", ["f"], axis=0),
                                   N("p", "cumprod", ["f"], axis=1)], fetch=["c", "p"])
add("large/reshape-3d-to-3d", [N("x", "arange", stop=30 * 28 * 9, chunk_size=97),
                               N("r", "reshape", ["x"], newshape=[30, 28, 9]), N("q", "rechunk", ["r"], chunk_size=[7, 5, 4]),
                               N("s", "reshape", ["q"], newshape=[36, 70, 3]), N("t", "transpose", ["s"], axes=[1, 2, 0]),
                               N("u", "reshape", ["t"], newshape=[-1, 45])])
add("large/getitem-strided", [N("x", "random.randint", shape=[101, 97], seed=15, low=-1000, high=1000, chunk_size=[10, 13]),
                              N("g", "getitem", ["x"], index=["95:3:-7", "-1::-5"]),
                              N("h", "getitem", ["x"], index=[50, "7:90:6"]),
                              N("k", "concatenate", ["g", "h", "g"], axis=None), N("m", "cumsum", ["k"])],
    fetch=["g", "h", "m"])
add("large/argmin-nan-late", [N("x", "random.rand", shape=[200, 30], seed=16, chunk_size=[17, 7]),
                              N("y", "less", ["x", 0.0001]), N("z", "where", ["y", 0.0, 1.0]),
                              N("n", "divide", ["z", "z"]), N("m", "multiply", ["x", "n"]),
                              N("a", "argmin", ["m"]), N("b", "argmax", ["m"], axis=0), N("mx", "max", ["m"], axis=1)],
    fetch=["a", "b", "mx"])
add("large/broadcast-3-chunkings", [N("x", "random.randn", shape=[60, 1, 45], seed=17, chunk_size=[11, 1, 8]),
                                    N("y", "random.randn", shape=[33, 1], seed=18, chunk_size=[7, 1]),
                                    N("z", "random.randn", shape=[45], seed=19, chunk_size=13),
                                    N("w", "where", ["x", "y", "z"]), N("s", "add", ["w", "x"]),
                                    N("t", "sum", ["s"], axis=[0, 2])], fetch=["s", "t"])

# ---------------------------------------------------------------------------
# Edges: 0-d inputs everywhere, extreme slice values, casts of odd fills,
# bool through reductions and products, NaN through logical ops.

def Dx(nodes, fetch=None):
    return nodes, fetch


EDGES = {
    "0d-chunk-empty-list": Dx([N("a", "ones", shape=[], chunk_size=[])]),
    "0d-rechunk": Dx([N("a", "ones", shape=[]), N("r", "rechunk", ["a"], chunk_size=1)]),
    "0d-getitem-empty": Dx([N("a", "full", shape=[], fill_value=3), N("g", "getitem", ["a"], index=[])]),
    "0d-sum-axis0": Dx([N("a", "full", shape=[], fill_value=3), N("g", "sum", ["a"], axis=0)]),
    "0d-argmax-axis0": Dx([N("a", "full", shape=[], fill_value=3), N("g", "argmax", ["a"], axis=0)]),
    "0d-cumsum-axis0": Dx([N("a", "full", shape=[], fill_value=3), N("g", "cumsum", ["a"], axis=0)]),
    "0d-squeeze": Dx([N("a", "full", shape=[], fill_value=3), N("g", "squeeze", ["a"])]),
    "0d-reshape-minus1": Dx([N("a", "full", shape=[], fill_value=3), N("g", "reshape", ["a"], newshape=[-1])]),
    "0d-dot": Dx([N("a", "full", shape=[], fill_value=3), N("b", "array", data=[1,2]), N("g", "dot", ["a", "b"])]),
    "0d-inner": Dx([N("a", "full", shape=[], fill_value=3), N("b", "array", data=[1,2]), N("g", "inner", ["b", "a"])]),
    "0d-outer": Dx([N("a", "full", shape=[], fill_value=3), N("b", "array", data=[1,2]), N("g", "outer", ["b", "a"])]),
    "0d-tensordot0": Dx([N("a", "full", shape=[], fill_value=3), N("b", "array", data=[1,2]), N("g", "tensordot", ["b", "a"], axes=0)]),
    "0d-stack-axis-neg": Dx([N("a", "full", shape=[], fill_value=3), N("g", "stack", ["a", "a"], axis=-1)]),
    "squeeze-none-no-ones": Dx([N("a", "ones", shape=[2, 3]), N("g", "squeeze", ["a"])]),
    "expand-dims-neg-list": Dx([N("a", "ones", shape=[2, 3]), N("g", "expand_dims", ["a"], axis=[-1, -4])]),
    "transpose-neg": Dx([N("a", "arange", stop=24), N("r", "reshape", ["a"], newshape=[2, 3, 4]), N("g", "transpose", ["r"], axes=[-1, -3, -2])]),
    "reshape-int-newshape-minus1": Dx([N("a", "ones", shape=[2, 3]), N("g", "reshape", ["a"], newshape=-1)]),
    "getitem-big-slice-values": Dx([N("a", "arange", stop=10, chunk_size=3), N("g", "getitem", ["a"], index=["-9223372036854775808:9223372036854775807:3"])]),
    "getitem-huge-neg-step": Dx([N("a", "arange", stop=10, chunk_size=3), N("g", "getitem", ["a"], index=["::-9223372036854775807"])]),
    "getitem-min-step": Dx([N("a", "arange", stop=10, chunk_size=3), N("g", "getitem", ["a"], index=["::-9223372036854775808"])]),
    "tensordot-neg-axes": Dx([N("a", "ones", shape=[3, 4]), N("b", "ones", shape=[4, 5]), N("g", "tensordot", ["a", "b"], axes=[[-1], [-2]])]),
    "tensordot-int-axes-list": Dx([N("a", "ones", shape=[3, 4]), N("b", "ones", shape=[4, 5]), N("g", "tensordot", ["a", "b"], axes=[1, 0])]),
    "linspace-num1-endpoint-false": Dx([N("a", "linspace", start=2, stop=5, num=1, endpoint=False)]),
    "linspace-int-bool": Dx([N("a", "linspace", start=True, stop=10, num=4)]),
    "arange-bool": Dx([N("a", "arange", stop=2, dtype="bool")]),
    "arange-neg-float": Dx([N("a", "arange", start=-1.5, stop=-10, step=-0.7, dtype="float32", chunk_size=4)]),
    "arange-int32-big": Dx([N("a", "arange", start=2**31 - 3, stop=2**31 + 2, dtype="int32")]),
    "eye-k-beyond": Dx([N("a", "eye", N=3, M=2, k=-5)]),
    "full-bool-fill-int": Dx([N("a", "full", shape=[3], fill_value=True, dtype="int32")]),
    "full-float-fill-bool": Dx([N("a", "full", shape=[3], fill_value=0.0, dtype="bool")]),
    "full-nan-fill-int": Dx([N("a", "full", shape=[3], fill_value=1e300, dtype="int32")]),
    "array-float-into-bool": Dx([N("a", "array", data=[0.0, 0.5, -0.0], dtype="bool")]),
    "array-big-ints-float32": Dx([N("a", "array", data=[16777217, 2**40], dtype="float32")]),
    "clip-int-float-bounds-f32": Dx([N("a", "array", data=[1, 2, 3], dtype="int32"), N("c", "clip", ["a"], a_min=1.5, a_max=2.5)]),
    "where-scalar-cond": Dx([N("a", "array", data=[1, 2]), N("c", "where", [True, "a", 0.5])]),
    "where-all-scalars": Dx([N("a", "array", data=[True, False]), N("c", "where", ["a", 1, 2])]),
    "astype-same": Dx([N("a", "array", data=[1, 2], dtype="int32"), N("c", "astype", ["a"], dtype="int32")]),
    "power-float32-int-scalar": Dx([N("a", "array", data=[1.5, -2.0], dtype="float32"), N("c", "power", ["a", 3])]),
    "power-int-float-scalar-neg": Dx([N("a", "array", data=[2, 4]), N("c", "power", ["a", -0.5])]),
    "mod-float32-neg0": Dx([N("a", "array", data=[-0.0, 0.0, -4.0], dtype="float32"), N("c", "mod", ["a", -2])]),
    "floor-divide-int-by-float0": Dx([N("a", "array", data=[1, -1, 0]), N("c", "floor_divide", ["a", 0.0])]),
    "sign-nan-int": Dx([N("a", "array", data=[-3, 0, 5], dtype="int32"), N("c", "sign", ["a"])]),
    "logical-float-nan": Dx([N("a", "array", data=[0.0, 1.0]), N("z", "divide", ["a", 0]), N("c", "logical_and", ["z", 1]), N("d", "logical_not", ["z"])], fetch=["c", "d"]),
    "maximum-nan-f32": Dx([N("a", "array", data=[0.0, 1.0], dtype="float32"), N("z", "divide", ["a", 0]), N("c", "maximum", ["z", 0.5]), N("d", "minimum", [0.5, "z"])], fetch=["c", "d"]),
    "all-float-nan": Dx([N("a", "array", data=[0.0, 1.0]), N("z", "divide", ["a", 0]), N("c", "all", ["z"]), N("d", "any", ["z"])], fetch=["c", "d"]),
    "std-0d": Dx([N("a", "full", shape=[], fill_value=2.0), N("c", "std", ["a"])]),
    "var-ddof-big": Dx([N("a", "array", data=[[1.0, 2.0], [3.0, 5.0]]), N("c", "var", ["a"], axis=0, ddof=2), N("d", "var", ["a"], axis=0, ddof=7)], fetch=["c", "d"]),
    "prod-bool": Dx([N("a", "array", data=[True, True, False]), N("c", "prod", ["a"])]),
    "mean-bool-axis": Dx([N("a", "array", data=[[True, True], [False, True]]), N("c", "mean", ["a"], axis=1)]),
    "min-bool": Dx([N("a", "array", data=[[True, True], [False, True]]), N("c", "min", ["a"], axis=0)]),
    "cumprod-bool": Dx([N("a", "array", data=[True, True, False, True]), N("c", "cumprod", ["a"])]),
    "matmul-bool-int32": Dx([N("a", "array", data=[[True, False], [True, True]]), N("b", "array", data=[[3, 4], [5, 6]], dtype="int32"), N("c", "matmul", ["a", "b"])]),
    "dot-int32-int64": Dx([N("a", "array", data=[[1, 2]], dtype="int32"), N("b", "array", data=[[3], [4]]), N("c", "dot", ["a", "b"])]),
    "inner-1d-0len": Dx([N("a", "ones", shape=[0]), N("c", "inner", ["a", "a"])]),
    "outer-empty": Dx([N("a", "ones", shape=[0]), N("b", "ones", shape=[3]), N("c", "outer", ["b", "a"])]),
    "concat-bool-float32": Dx([N("a", "array", data=[True]), N("b", "array", data=[1.5], dtype="float32"), N("c", "concatenate", ["a", "b"])]),
    "stack-3-diff-chunks": Dx([N("a", "arange", stop=10, chunk_size=3), N("b", "arange", stop=10, chunk_size=4), N("c", "stack", ["a", "b", "a"], axis=1)]),
    "rechunk-0size": Dx([N("a", "ones", shape=[0, 5], chunk_size=2), N("r", "rechunk", ["a"], chunk_size=[3, 3])]),
    "eye-big-k-chunks": Dx([N("a", "eye", N=20, M=31, k=7, chunk_size=[3, 4], dtype="int32"), N("s", "sum", ["a"], axis=1)]),
}
for _name, (_nodes, _fetch) in EDGES.items():
    add("edge/" + _name, _nodes, _fetch)
rej("edge/0d-mean-axis0/rejected", [N("a", "full", shape=[], fill_value=3), N("g", "mean", ["a"], axis=0)],
    "g", "mean")


# ---------------------------------------------------------------------------
# Document structure

add("doc/nodes-out-of-order", [N("d", "sum", ["c"], axis=1), N("c", "multiply", ["a", "b"]),
                               A("b", sample("float64", (4, 6)), None, 3), N("a", "ones", shape=[4, 6], chunk_size=5)],
    fetch=["d", "c", "a"])
add("doc/same-input-twice", [A("a", sample("float64", (5, 6)), None, [2, 4]), N("b", "add", ["a", "a"]),
                             N("c", "multiply", ["a", "a"]), N("d", "subtract", ["a", "a"]),
                             N("e", "where", ["a", "a", "a"]), N("f", "maximum", ["a", "a"]),
                             N("g", "concatenate", ["a", "a", "a"], axis=1), N("h", "stack", ["a", "a"])],
    fetch=["b", "c", "d", "e", "f", "g", "h"])
add("doc/diamond", [A("a", sample("float64", (6, 6)), None, 4), N("b", "exp", ["a"]), N("c", "transpose", ["a"]),
                    N("d", "matmul", ["b", "c"]), N("e", "add", ["d", "b"]), N("f", "sum", ["e"], axis=-1)],
    fetch=["f", "e", "b"])
add("doc/fetch-intermediate-and-leaf", [N("a", "arange", stop=24, chunk_size=5), N("b", "reshape", ["a"], newshape=[4, 6]),
                                        N("c", "cumsum", ["b"], axis=1), N("d", "getitem", ["c"], index=["::-1"])],
    fetch=["a", "b", "c", "d"])
add("doc/unfetched-branches", [A("a", sample("float64", (5, 5)), None, 2), N("unused", "exp", ["a"]),
                               N("b", "sqrt", ["a"]), N("c", "add", ["a", 1])])
add("doc/long-chain", [N("x0", "arange", stop=30, chunk_size=7, dtype="float64")] +
    [N("x%d" % (i + 1), ["add", "multiply", "subtract", "divide"][i % 4], ["x%d" % i, 1.5 + i % 3])
     for i in range(40)])
# Fused element-wise programs have a bounded size: longer chains and wider
# trees must still come out right.
add("doc/chain-of-150-elementwise", [N("x0", "arange", stop=50, chunk_size=9, dtype="float64")] +
    [N("x%d" % (i + 1), ["add", "multiply", "subtract", "maximum", "negative", "abs"][i % 6],
       ["x%d" % i] + ([] if i % 6 >= 4 else [[0.5, 1.01, 0.25, -3.0][i % 4]])) for i in range(150)])
wide = [N("l%d" % i, "full", shape=[7, 5], fill_value=float(i), chunk_size=[3, 2 + i % 3]) for i in range(100)]
acc = "l0"
for i in range(1, 100):
    wide.append(N("w%d" % i, "add" if i % 2 else "maximum", [acc, "l%d" % i]))
    acc = "w%d" % i
add("doc/tree-of-100-leaves", wide)
add("doc/concatenate-30-inputs", [N("p%d" % i, "arange", start=i, stop=i + 1 + i % 4, chunk_size=2) for i in range(30)] +
    [N("c", "concatenate", ["p%d" % i for i in range(30)])])
add("doc/2000-nodes", [N("n0", "ones", shape=[4], chunk_size=3)] +
    [N("n%d" % (i + 1), "add", ["n%d" % i, 1]) for i in range(1999)], fetch=["n1999", "n1000"])
add("doc/reduce-of-many-chunks", [N("a", "arange", stop=200000, chunk_size=1000, dtype="float64"),
                                  N("s", "sum", ["a"]), N("m", "mean", ["a"]), N("v", "var", ["a"]),
                                  N("x", "argmax", ["a"])], fetch=["s", "m", "v", "x"])
add("doc/keys-with-dots-dashes", [N("a.b-c_1", "ones", shape=[3]), N("X-9", "add", ["a.b-c_1", 2])])


def main():
    suite = harness.Suite("test_ops")
    harness.require_mars_run(suite)
    print("# %d cases, %d rejections" % (len(cases), len(rejects)), flush=True)
    sel = os.environ.get("DIFF_ONLY")
    cs = [c for c in cases if not sel or sel in c.name]
    rs = [r for r in rejects if not sel or sel in r.name]
    harness.run_cases(suite, cs)
    harness.run_rejects(suite, rs)
    suite.finish()


if __name__ == "__main__":
    main()
