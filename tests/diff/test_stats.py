#!/usr/bin/python3
"""Differential cases of the statistics reductions count_nonzero and ptp
against numpy 1.24 through npref: every dtype, axes None / one / several /
negative, keepdims, uneven chunks with several chunks per reduced axis,
NaN and infinities, integer wrap-around of ptp, fused element-wise inputs,
and the documents numpy refuses (ptp of bool, ptp over an empty axis).

Run: /usr/bin/python3 tests/diff/test_stats.py   (DIFF_ONLY=substring)
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import npref  # noqa: E402
from harness import Case, Reject  # noqa: E402

DTS = ["bool", "int32", "int64", "float32", "float64"]
RNG = np.random.default_rng(20261126)
cases = []
rejects = []


def D(nodes, fetch=None):
    return {"version": 1, "nodes": nodes, "fetch": list(fetch or [nodes[-1]["key"]])}


def N(key, op, inputs=None, **params):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = list(inputs)
    n.update(params)
    return n


def A(key, data, dtype=None, chunk=None):
    n = {"key": key, "op": "array", "data": np.asarray(data).tolist()}
    if dtype is not None:
        n["dtype"] = dtype
    if chunk is not None:
        n["chunk_size"] = chunk
    return n


def sample(dt, shape):
    if dt == "bool":
        return RNG.random(shape) < 0.5
    if dt.startswith("int"):
        v = RNG.integers(-4, 5, shape)
        return v
    v = np.asarray(np.round(RNG.normal(0, 3, shape), 2))
    v[RNG.random(shape) < 0.3] = 0.0
    return v


def case(name, nodes, fetch=None, key="r", op=None):
    d = D(nodes, fetch)
    try:
        npref.evaluate(d)
    except npref.Rejected:
        rejects.append(Reject(name + "/rejected", d, key, op or nodes[-1]["op"]))
        return
    cases.append(Case(name, d))


for op in ["count_nonzero", "ptp"]:
    for dt in DTS:
        for ax in [None, 0, 1, 2, -1, [0, 2], [0, 1, 2]]:
            case("%s/%s/axis=%s" % (op, dt, ax),
                 [A("a", sample(dt, (6, 7, 5)), dt, [4, 3, 2]), N("r", op, ["a"], axis=ax)])
        case("%s/%s/keepdims" % (op, dt),
             [A("a", sample(dt, (6, 7)), dt, [4, 3]), N("r", op, ["a"], axis=1, keepdims=True)])
        case("%s/%s/default-axis" % (op, dt), [A("a", sample(dt, (9,)), dt, 4), N("r", op, ["a"])])
    case("%s/specials" % op,
         [A("n", [1.0, -1.0, 0.0, 2.5, -0.0, 0.0, 3.0, 1.0], "float64", 3),
          A("d", [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0], "float64", 5),
          N("s", "divide", ["n", "d"]), N("r", op, ["s"])])
    case("%s/inf-no-nan" % op,
         [A("n", [1.0, -1.0, 2.0, 0.0], "float64", 3), A("d", [0.0, 0.0, 1.0, 1.0], "float64", 3),
          N("s", "divide", ["n", "d"]), N("r", op, ["s"])])
    case("%s/fused" % op, [A("a", sample("float64", (8, 9)), "float64", [3, 4]),
                           N("b", "multiply", ["a", 2.0]), N("c", "floor", ["b"]),
                           N("r", op, ["c"], axis=0)])
    case("%s/many-chunks" % op, [N("a", "arange", start=-500, stop=500, chunk_size=7),
                                 N("m", "mod", ["a", 5]), N("r", op, ["m"])])
    case("%s/0d" % op, [A("a", 2.5), N("r", op, ["a"])])
    case("%s/empty-kept-axis" % op, [N("a", "zeros", shape=[0, 4], chunk_size=2),
                                     N("r", op, ["a"], axis=1)])
case("ptp/int32-wraps", [A("a", [-2 ** 31, 2 ** 31 - 1, 0], "int32", 2), N("r", "ptp", ["a"])])
case("ptp/int64-wraps", [A("a", [-2 ** 63, 2 ** 63 - 1], "int64", 1), N("r", "ptp", ["a"])])
case("count_nonzero/empty", [N("a", "zeros", shape=[0, 4], chunk_size=2),
                             N("r", "count_nonzero", ["a"], axis=0)])
case("ptp/empty-axis", [N("a", "zeros", shape=[0, 4], chunk_size=2), N("r", "ptp", ["a"], axis=0)])
case("ptp/bool", [A("a", [True, False]), N("r", "ptp", ["a"])])

for dt in DTS:
    for nn, ax in [(1, -1), (1, 0), (2, 1), (3, 0), (0, 1), (7, 0), (9, 1), (1, -2)]:
        case("diff/%s/n=%d,axis=%d" % (dt, nn, ax),
             [A("a", sample(dt, (7, 6)), dt, [3, 4]), N("r", "diff", ["a"], n=nn, axis=ax)])
    case("diff/%s/default" % dt, [A("a", sample(dt, (11,)), dt, 4), N("r", "diff", ["a"])])
case("diff/3d-middle-axis", [A("a", sample("float64", (4, 9, 3)), "float64", [3, 2, 2]),
                             N("r", "diff", ["a"], n=2, axis=1)])
case("diff/int32-wraps", [A("a", [-2 ** 31, 2 ** 31 - 1], "int32", 1), N("r", "diff", ["a"])])
case("diff/empty-axis", [N("a", "zeros", shape=[0, 3], chunk_size=2), N("r", "diff", ["a"], axis=0)])
case("diff/of-fused", [A("a", sample("float64", (8,)), "float64", 3), N("b", "exp", ["a"]),
                       N("r", "diff", ["b"], n=2)])
case("diff/0d", [A("a", 2.0), N("r", "diff", ["a"])])
case("diff/axis-out-of-range", [A("a", [1.0, 2.0]), N("r", "diff", ["a"], axis=1)])
case("diff/negative-n", [A("a", [1.0, 2.0]), N("r", "diff", ["a"], n=-1)])

for dt in DTS:
    for shp, ch in [((7, 6), [3, 4]), ((11,), 4), ((), None), ((0, 3), 2), ((2, 3, 4), [1, 2, 3])]:
        case("ediff1d/%s/%s" % (dt, "x".join(map(str, shp)) or "0d"),
             [A("a", sample(dt, shp), dt, ch), N("r", "ediff1d", ["a"])])
case("ediff1d/int64-wraps", [A("a", [2 ** 63 - 1, -2 ** 63, 5], "int64", 2),
                             N("r", "ediff1d", ["a"])])


def main():
    suite = harness.Suite("test_stats")
    harness.require_mars_run(suite)
    print("# %d cases, %d rejections" % (len(cases), len(rejects)), flush=True)
    sel = os.environ.get("DIFF_ONLY")
    harness.run_cases(suite, [c for c in cases if not sel or sel in c.name])
    harness.run_rejects(suite, [r for r in rejects if not sel or sel in r.name])
    suite.finish()


if __name__ == "__main__":
    main()
