#!/usr/bin/python3
"""Differential cases of the second wave of element-wise ops (numpy ufuncs and
round/around) against numpy 1.24 through npref: every op over the five
dtypes and every dtype pair, uneven chunks, broadcasting, Python scalars with
value-based casting, special values (inf, nan, -0.0, extremes of the integer
types), and the documents numpy refuses (float16 or int8 results, float
bitwise ops) rejected with exit 2 naming the node.

Whether numpy refuses a case is asked of npref itself (the Rejected it
raises), so the expectation never comes from the engine.

Run: /usr/bin/python3 tests/diff/test_ufuncs.py   (MARS_RUN picks the binary;
DIFF_ONLY=substring runs some cases)
"""

import itertools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import npref  # noqa: E402
from harness import Case, Reject  # noqa: E402

DTS = ["bool", "int32", "int64", "float32", "float64"]
RNG = np.random.default_rng(20261123)

cases = []
rejects = []


def D(nodes, fetch=None):
    if fetch is None:
        fetch = [nodes[-1]["key"]]
    return {"version": 1, "nodes": nodes, "fetch": list(fetch)}


def N(key, op, inputs=None, **params):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = list(inputs)
    n.update(params)
    return n


def A(key, data, dtype=None, chunk=None):
    if isinstance(data, np.ndarray):
        data = data.tolist()
    n = {"key": key, "op": "array", "data": data}
    if dtype is not None:
        n["dtype"] = dtype
    if chunk is not None:
        n["chunk_size"] = chunk
    return n


def specials(key, dtype="float64", chunk=3):
    """[inf, -inf, nan, 2.5, -0.0, 0.0, big] through division by zero."""
    big = 1e300 if dtype == "float64" else 3e38
    return [
        A(key + "_n", [1.0, -1.0, 0.0, 2.5, -0.0, 0.0, big], dtype, chunk),
        A(key + "_d", [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0], dtype, 4),
        N(key, "divide", [key + "_n", key + "_d"]),
    ]


def sample(dtype, shape, lo=-20, hi=21):
    if dtype == "bool":
        return RNG.random(shape) < 0.5
    if dtype in ("int32", "int64"):
        return RNG.integers(lo, hi, shape)
    return np.round(RNG.normal(0, 4, shape), 3)


def numpy_refuses(doc):
    try:
        npref.evaluate(doc)
    except npref.Rejected:
        return True
    return False


def case(name, nodes, fetch=None, key="c", op=None):
    """A case, or a rejection when numpy refuses the document."""
    d = D(nodes, fetch)
    if numpy_refuses(d):
        rejects.append(Reject(name + "/rejected", d, key, op or nodes[-1]["op"]))
    else:
        cases.append(Case(name, d))


# ---------------------------------------------------------------------------
# Unary ops over every dtype.

UNARY = ["log2", "log10", "exp2", "cbrt", "reciprocal", "positive", "arcsin", "arccos", "arctan",
         "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "degrees", "radians", "rint", "trunc",
         "fix", "isinf", "isneginf", "isposinf", "signbit", "invert"]
for op in UNARY:
    for dt in DTS:
        if dt == "bool":
            nodes = [A("a", sample("bool", (5, 6)), "bool", [2, 4]), N("c", op, ["a"])]
        elif dt.startswith("int"):
            v = np.array([[-2 ** 31, -20, -7, -1, 0], [1, 2, 3, 50, 2 ** 31 - 1]])
            nodes = [A("a", v, dt, [1, 3]), N("c", op, ["a"])]
        else:
            vals = [[-100.5, -2.5, -1.0, -0.5, -0.0, 0.0, 0.3], [0.25, 0.5, 1.0, 1.5, 2.5, 3.14159, 88.0]]
            nodes = specials("s", dt) + [A("a", vals, dt, [1, 4]), N("r", "ravel", ["a"]),
                                         N("cat", "concatenate", ["r", "s"]), N("c", op, ["cat"])]
        case("unary/%s/%s" % (op, dt), nodes)
    case("unary/%s/scalar-input" % op, [N("c", op, [3])])
    case("unary/%s/0d" % op, [A("a", 0.5, "float64"), N("c", op, ["a"])])
    case("unary/%s/empty" % op, [N("a", "zeros", shape=[0, 3], chunk_size=2), N("c", op, ["a"])])
case("unary/arc-domain-edges", [A("a", [-1.0, -0.999, 0.999, 1.0, 1.0001], "float64", 2),
                                N("c", "arcsin", ["a"]), N("d", "arccos", ["a"]),
                                N("e", "arctanh", ["a"]), N("f", "arccosh", ["a"])],
     fetch=["c", "d", "e", "f"])
case("unary/int64-extremes", [A("a", [-2 ** 63, -1, 0, 1, 2 ** 63 - 1], "int64", 2),
                              N("c", "invert", ["a"]), N("d", "reciprocal", ["a"]),
                              N("e", "positive", ["a"]), N("f", "signbit", ["a"])],
     fetch=["c", "d", "e", "f"])
case("unary/rint-halves", [A("a", [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 1e16 + 1], "float64", 3),
                           N("c", "rint", ["a"]), N("d", "fix", ["a"]), N("e", "trunc", ["a"])],
     fetch=["c", "d", "e"])
case("unary/fused-chain", [A("a", sample("float64", (9, 7)), "float64", [4, 3]),
                           N("b", "arctan", ["a"]), N("c", "degrees", ["b"]), N("d", "cbrt", ["c"]),
                           N("e", "rint", ["d"]), N("f", "isposinf", ["e"]),
                           N("g", "logical_xor", ["f", "e"]), N("h", "sum", ["c"], axis=0)],
     fetch=["g", "h"])

# ---------------------------------------------------------------------------
# Binary ops over every dtype pair, with broadcasting and uneven chunks.

BINARY = ["arctan2", "hypot", "fmod", "remainder", "fmax", "fmin", "copysign", "logical_xor",
          "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "float_power",
          "heaviside"]
for op in BINARY:
    for i, (da, db) in enumerate(itertools.product(DTS, DTS)):
        av = sample(da, (7, 5))
        if op in ("left_shift", "right_shift"):
            bv = sample(db, (5,), -2, 70)  # counts outside [0, bits) too
        elif op == "float_power":
            bv = sample(db, (5,), 0, 6)
        else:
            bv = sample(db, (5,))
        if i % 3 == 0:
            nodes = [A("a", av, da, 3), A("b", bv, db, 2)]
        elif i % 3 == 1:
            nodes = [A("a", av, da, [4, 2]), A("b", np.broadcast_to(bv, (7, 5)).copy(), db, [3, 4])]
        else:
            nodes = [A("a", av[:, :1].copy(), da, [2, 1]), A("b", bv, db, 3)]
        nodes.append(N("c", op, ["a", "b"]))
        case("%s/%s,%s" % (op, da, db), nodes)
    # specials against specials (floats), both orders
    case("%s/specials" % op, specials("s") + specials("t") +
         [N("u", "negative", ["t"]), N("c", op, ["s", "u"]), N("d", op, ["u", "s"])],
         fetch=["c", "d"])

# Python scalars and numpy 1.24 value-based casting.
SCALARS = [("left_shift", "int32", 3), ("right_shift", "int64", 65), ("left_shift", "int32", 2 ** 40),
           ("arctan2", "float32", 2), ("arctan2", "int32", 2.5), ("hypot", "float32", 1e300),
           ("copysign", "float32", -1), ("fmod", "int32", 7), ("fmod", "float32", 0.5),
           ("remainder", "int64", -3), ("fmax", "float32", 3.5), ("fmin", "int32", 2 ** 31),
           ("bitwise_and", "bool", True), ("bitwise_or", "int32", -1), ("bitwise_xor", "int64", 5),
           ("logical_xor", "float64", 0), ("float_power", "int32", 2), ("heaviside", "float32", 0.5),
           ("heaviside", "int32", 1), ("bitwise_and", "float64", 1)]
for op, dt, s in SCALARS:
    nodes = [A("a", sample(dt, (6, 4)), dt, [4, 3]), N("c", op, ["a", s]), N("d", op, [s, "a"])]
    case("scalar/%s/%s/%r" % (op, dt, s), nodes, fetch=["c", "d"])
case("scalar/both-scalars", [N("c", "arctan2", [1, 2]), N("d", "left_shift", [1, 62]),
                             N("e", "fmax", [1.5, 2])], fetch=["c", "d", "e"])
case("shift/int32-by-int32-range", [A("a", [-3, -3, -3, -3, -3, -3, 5, 2 ** 31 - 1], "int32", 3),
                                    A("b", [0, 1, 31, 32, 33, -1, 30, 1], "int32", 5),
                                    N("c", "left_shift", ["a", "b"]),
                                    N("d", "right_shift", ["a", "b"])], fetch=["c", "d"])
case("fmod/int-by-zero-and-minus-one", [A("a", [-2 ** 31, 7, -7, 0, 5], "int32", 2),
                                        A("b", [-1, 0, 3, 0, -1], "int32", 3),
                                        N("c", "fmod", ["a", "b"]), N("d", "remainder", ["a", "b"])],
     fetch=["c", "d"])

# ---------------------------------------------------------------------------
# isclose: every dtype pair, specials, tolerances, equal_nan.

for i, (da, db) in enumerate(itertools.product(DTS, DTS)):
    av = sample(da, (6, 5))
    bv = av[0] + (sample(db, (5,)) * 1e-6 if db.startswith("float") else sample(db, (5,)))
    if db == "bool":
        bv = sample(db, (5,))
    for kw in [{}, {"rtol": 0.1, "atol": 0.5}, {"rtol": 0, "atol": 0}]:
        case("isclose/%s,%s/%s" % (da, db, kw),
             [A("a", av, da, [4, 2]), A("b", np.asarray(bv).astype(db).tolist(), db, 3),
              N("c", "isclose", ["a", "b"], **kw)])
for en in [False, True]:
    case("isclose/specials/equal_nan=%s" % en, specials("s") + specials("t", "float32") +
         [N("c", "isclose", ["s", "t"], equal_nan=en), N("d", "isclose", ["s", "s"], equal_nan=en)],
         fetch=["c", "d"])
case("isclose/scalar", [A("a", [1.0, 1.00001, 1.1, 0.0], "float32", 3),
                        N("c", "isclose", ["a", 1.0]), N("d", "isclose", [1, "a"], atol=0.2)],
     fetch=["c", "d"])
case("isclose/near-the-edge", [A("a", [1.0, 1.0, 1.0, 1.0], "float64", 2),
                               A("b", [1.0 + 1e-5, 1.0 + 1.1e-5, 1.0 - 1e-5, 1.00002], "float64", 3),
                               N("c", "isclose", ["a", "b"])])
rejects.append(Reject("isclose/rtol-not-number/rejected",
                      D([A("a", [1.0]), N("c", "isclose", ["a", "a"], rtol="x")]), "c", "isclose"))
rejects.append(Reject("isclose/one-input/rejected",
                      D([A("a", [1.0]), N("c", "isclose", ["a"])]), "c", "isclose"))

# ---------------------------------------------------------------------------
# round and around with decimals.

for op in ["round", "around"]:
    for dt in DTS:
        for dec in [-2, -1, 0, 1, 2, 3]:
            if dt == "bool":
                v = sample("bool", (4, 5))
            elif dt.startswith("int"):
                v = RNG.integers(-300, 301, (4, 5))
                v[0, :4] = [15, 25, -15, -25]
            else:
                v = np.round(RNG.normal(0, 40, (4, 5)), 4)
                v[0, :4] = [2.5, 0.125, 1.005, -12.35]
            case("%s/%s/decimals=%d" % (op, dt, dec),
                 [A("a", v, dt, [3, 2]), N("c", op, ["a"], decimals=dec)])
    case("%s/default-decimals" % op, specials("s") + [N("c", op, ["s"])])
    case("%s/specials/decimals=2" % op, specials("s", "float32") + [N("c", op, ["s"], decimals=2)])
    case("%s/scalar" % op, [N("c", op, [2.675], decimals=2)])
    rejects.append(Reject("%s/decimals-not-int/rejected" % op,
                          D([A("a", [1.5]), N("c", op, ["a"], decimals=1.5)]), "c", op))
    rejects.append(Reject("%s/decimals-out-of-range/rejected" % op,
                          D([A("a", [1.5]), N("c", op, ["a"], decimals=10 ** 6)]), "c", op))
    rejects.append(Reject("%s/two-inputs/rejected" % op,
                          D([A("a", [1.5]), N("c", op, ["a", "a"])]), "c", op))
rejects.append(Reject("unknown-field/rejected",
                      D([A("a", [1.5]), N("c", "rint", ["a"], decimals=1)]), "c", "rint"))


def main():
    suite = harness.Suite("test_ufuncs")
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
