#!/usr/bin/python3
"""Differential cases of getitem's index additions (shared/spec/graph-format.md,
"Additions to version 1"): null (numpy.newaxis) and "..." (Ellipsis) mixed
with integers and slices, on uneven chunks, against numpy 1.24 through
npref; and the documents numpy refuses (two ellipses, too many indices, an
index out of bounds) rejected naming the node.

Run: /usr/bin/python3 tests/diff/test_indexing.py   (DIFF_ONLY=substring)
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import npref  # noqa: E402
from harness import Case, Reject  # noqa: E402

RNG = np.random.default_rng(20261125)
cases = []
rejects = []


def D(nodes, fetch=None):
    return {"version": 1, "nodes": nodes, "fetch": list(fetch or [nodes[-1]["key"]])}


def case(name, index, shape=(5, 7, 4), chunk=(2, 3, 3), dtype="float64"):
    v = np.round(RNG.normal(0, 5, shape), 3) if dtype == "float64" else RNG.integers(-50, 50, shape)
    nodes = [{"key": "a", "op": "array", "data": v.tolist(), "dtype": dtype,
              "chunk_size": list(chunk)},
             {"key": "g", "op": "getitem", "inputs": ["a"], "index": index}]
    d = D(nodes)
    try:
        npref.evaluate(d)
    except npref.Rejected:
        rejects.append(Reject("getitem/%s/rejected" % name, d, "g", "getitem"))
        return
    cases.append(Case("getitem/%s" % name, d))


INDEXES = [
    [None], [None, None], ["...", None], [None, "..."], [1, None], [None, 1], ["1:4", None, 2],
    ["..."], ["...", 0], [0, "..."], [0, "...", 1], ["...", "::-2"], [None, "...", None],
    ["2:", "...", None, "1:3"], [None, 3, None, "::2", None, -1, None], ["...", None, 0, None],
    [-1, None, "...", None], ["0:0", None], [None, "4:1:-1", "..."],
    # numpy refuses these
    ["...", "..."], [1, 2, 3, 4], [None, 1, 2, 3, 4], [9, None], ["...", 5],
]
for i, ix in enumerate(INDEXES):
    case("%d/%s" % (i, ix), ix)
    case("%d/%s/int32" % (i, ix), ix, dtype="int32")
case("1d/newaxis-both-sides", [None, "3:", None], shape=(11,), chunk=(4,))
case("0d/newaxis", [None], shape=(), chunk=())
case("0d/ellipsis", ["..."], shape=(), chunk=())
case("0d/ellipsis-newaxis", ["...", None, None], shape=(), chunk=())
# the result feeds other ops: a broadcast against the new axis
cases.append(Case("getitem/newaxis-broadcast-outer", D([
    {"key": "a", "op": "arange", "stop": 6, "chunk_size": 4, "dtype": "float64"},
    {"key": "c", "op": "getitem", "inputs": ["a"], "index": [None, "..."]},
    {"key": "r", "op": "getitem", "inputs": ["a"], "index": ["...", None]},
    {"key": "p", "op": "multiply", "inputs": ["r", "c"]},
    {"key": "s", "op": "sum", "inputs": ["p"], "axis": 0}], ["p", "s"])))
rejects.append(Reject("getitem/bad-entry/rejected", D([
    {"key": "a", "op": "ones", "shape": [3]},
    {"key": "g", "op": "getitem", "inputs": ["a"], "index": [{"x": 1}]}]), "g", "getitem"))
rejects.append(Reject("getitem/dots-typo/rejected", D([
    {"key": "a", "op": "ones", "shape": [3]},
    {"key": "g", "op": "getitem", "inputs": ["a"], "index": [".."]}]), "g", "getitem"))


# ---------------------------------------------------------------------------
# Shape ops of the second wave: permutations, flips, atleast_*d.


def shape_case(name, node, shape=(4, 5, 3), chunk=(3, 2, 2)):
    v = RNG.integers(-50, 50, shape)
    nodes = [{"key": "a", "op": "array", "data": v.tolist(), "dtype": "int64",
              "chunk_size": list(chunk)}, dict(node, key="g", inputs=["a"])]
    d = D(nodes)
    try:
        npref.evaluate(d)
    except npref.Rejected:
        rejects.append(Reject("%s/rejected" % name, d, "g", node["op"]))
        return
    cases.append(Case(name, d))


for a1, a2 in [(0, 1), (0, 2), (-1, 0), (1, 1), (2, -3), (3, 0)]:
    shape_case("swapaxes/%d,%d" % (a1, a2), {"op": "swapaxes", "axis1": a1, "axis2": a2})
for src, dst in [(0, 2), (-1, 0), ([0, 1], [2, 0]), ([0, 2], [1, 0]), ([2], [-3]), ([0, 0], [1, 2]),
                 ([0, 1], [0]), (5, 0)]:
    shape_case("moveaxis/%s,%s" % (src, dst), {"op": "moveaxis", "source": src, "destination": dst})
for ax in [None, 0, 1, -1, [0, 2], [0, 1, 2], [1, 1], 3]:
    shape_case("flip/%s" % (ax,), {"op": "flip", "axis": ax})
shape_case("flip/absent-axis", {"op": "flip"})
for op in ["fliplr", "flipud", "atleast_1d", "atleast_2d", "atleast_3d"]:
    for shp, ch in [((4, 5, 3), (3, 2, 2)), ((6, 5), (4, 2)), ((7,), (3,)), ((), ())]:
        shape_case("%s/%s" % (op, "x".join(map(str, shp)) or "0d"), {"op": op}, shp, ch)
rejects.append(Reject("swapaxes/missing-axis2/rejected", D([
    {"key": "a", "op": "ones", "shape": [2, 2]},
    {"key": "g", "op": "swapaxes", "inputs": ["a"], "axis1": 0}]), "g", "swapaxes"))
rejects.append(Reject("moveaxis/bad-source/rejected", D([
    {"key": "a", "op": "ones", "shape": [2, 2]},
    {"key": "g", "op": "moveaxis", "inputs": ["a"], "source": "x", "destination": 0}]),
    "g", "moveaxis"))


def main():
    suite = harness.Suite("test_indexing")
    harness.require_mars_run(suite)
    print("# %d cases, %d rejections" % (len(cases), len(rejects)), flush=True)
    sel = os.environ.get("DIFF_ONLY")
    harness.run_cases(suite, [c for c in cases if not sel or sel in c.name])
    harness.run_rejects(suite, [r for r in rejects if not sel or sel in r.name])
    suite.finish()


if __name__ == "__main__":
    main()
