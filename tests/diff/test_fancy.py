#!/usr/bin/python3
"""Differential cases of advanced indexing (docs/graph-format.md, "Advanced
indexing"): getitem with integer-tensor and boolean-mask inputs, setitem,
take, compress, argwhere, flatnonzero and extract, through mars-run on
uneven chunks, against numpy 1.24 computed here; and the documents and data
numpy refuses (out-of-bounds indices, shapes that do not broadcast, masks
that do not match), refused naming the node.

Run: /usr/bin/python3 tests/diff/test_fancy.py   (DIFF_ONLY=substring)
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

RNG = np.random.default_rng(20261123)
ONLY = os.environ.get("DIFF_ONLY", "")

cases = []   # (name, nodes, {key: expected})
errors = []  # (name, nodes, key, op, substring, rc)


def arr(key, v, chunk=None, dtype=None):
    v = np.asarray(v)
    n = {"key": key, "op": "array", "data": v.tolist(),
         "dtype": dtype or str(v.dtype)}
    if chunk is not None and v.ndim:
        n["chunk_size"] = chunk
    return n


def values(shape, dtype="float64"):
    if dtype == "float64":
        return np.round(RNG.normal(0, 5, shape), 3)
    if dtype == "bool":
        return RNG.random(shape) < 0.5
    return RNG.integers(-50, 50, shape).astype(dtype)


def np_index(index, ins):
    out = []
    for e in index:
        if e is None:
            out.append(None)
        elif e == "...":
            out.append(Ellipsis)
        elif isinstance(e, dict):
            out.append(ins[e["input"]])
        elif isinstance(e, str):
            parts = [int(p) if p.strip() else None for p in e.split(":")]
            out.append(slice(*parts))
        else:
            out.append(e)
    return tuple(out)


def add(name, nodes, expected):
    if ONLY and ONLY not in name:
        return
    cases.append((name, nodes, expected))


def add_error(name, nodes, key, op, substring, rc=None):
    if ONLY and ONLY not in name:
        return
    errors.append((name, nodes, key, op, substring, rc))


def getitem_case(name, a, index, idx_arrays, chunk, ichunk=None):
    """a[index] where {"input": k} names idx_arrays[k - 1]."""
    nodes = [arr("a", a, chunk)]
    ins = [a]
    inputs = ["a"]
    for k, ia in enumerate(idx_arrays):
        if isinstance(ia, (int, np.integer)) and not isinstance(ia, bool):
            inputs.append(int(ia))
            ins.append(int(ia))
            continue
        nodes.append(arr("i%d" % k, ia, ichunk if ichunk else max(1, np.asarray(ia).shape[0] // 2 + 1) if np.ndim(ia) else None))
        inputs.append("i%d" % k)
        ins.append(np.asarray(ia))
    nodes.append({"key": "g", "op": "getitem", "inputs": inputs, "index": index})
    add("getitem/" + name, nodes, {"g": a[np_index(index, ins)]})


def setitem_case(name, a, index, idx_arrays, value, chunk):
    nodes = [arr("a", a, chunk)]
    ins = [a, None]
    inputs = ["a"]
    if isinstance(value, np.ndarray):
        nodes.append(arr("v", value, max(1, value.shape[0] // 2) if value.ndim else None))
        inputs.append("v")
    else:
        inputs.append(value)
    for k, ia in enumerate(idx_arrays):
        nodes.append(arr("i%d" % k, ia, 3 if np.ndim(ia) else None))
        inputs.append("i%d" % k)
        ins.append(np.asarray(ia))
    nodes.append({"key": "s", "op": "setitem", "inputs": inputs, "index": index})
    b = a.copy()
    b[np_index(index, ins)] = value
    add("setitem/" + name, nodes, {"s": b})


# ---------------------------------------------------------------------------
# getitem with integer tensors

for dt in ("float64", "int32", "bool"):
    a1 = values((10,), dt)
    getitem_case("1d/neg-dup/%s" % dt, a1, [{"input": 1}], [np.array([3, -1, 0, 3, 9, -10])], 3)
    getitem_case("1d/2d-index/%s" % dt, a1, [{"input": 1}], [np.array([[1, 2], [-3, 4], [0, 0]])], 4)
a2 = values((7, 5))
a3 = values((4, 5, 6))
I = np.array([2, -1, 0, 3])
getitem_case("2d/rows", a2, [{"input": 1}], [I], [3, 2])
getitem_case("2d/cols", a2, [":", {"input": 1}], [np.array([4, 0, -2])], [3, 2])
getitem_case("2d/pairs", a2, [{"input": 1}, {"input": 2}], [I, np.array([0, 4, 1, -5])], [4, 3])
getitem_case("2d/broadcast", a2, [{"input": 1}, {"input": 2}],
             [np.array([[0], [3], [-1]]), np.array([1, 2, 4, 0])], [2, 2])
getitem_case("2d/int32-index", a2, [{"input": 1}], [I.astype(np.int32)], [3, 3])
getitem_case("2d/empty-index", a2, [{"input": 1}], [np.zeros(0, dtype=np.int64)], [3, 3])
getitem_case("2d/slice-then-array", a2, ["1:6:2", {"input": 1}], [np.array([0, 4, 4])], [3, 2])
getitem_case("2d/reversed-slice-array", a2, ["::-1", {"input": 1}], [np.array([1, -1])], [2, 2])
getitem_case("2d/array-int", a2, [{"input": 1}, 2], [I], [3, 2])
getitem_case("2d/scalar-input", a2, [{"input": 1}, {"input": 2}], [I, -2], [3, 2])
getitem_case("3d/adjacent-middle", a3, [":", {"input": 1}, {"input": 2}],
             [np.array([0, 4, 2]), np.array([5, 0, -1])], [3, 2, 4])
getitem_case("3d/separated-front", a3, [{"input": 1}, ":", {"input": 2}],
             [np.array([0, 3, -1]), np.array([5, 0, 1])], [3, 2, 4])
getitem_case("3d/int-slice-array", a3, [1, ":", {"input": 1}], [np.array([0, 5, 2, 2])], [3, 2, 4])
getitem_case("3d/newaxis-between", a3, [{"input": 1}, None, {"input": 2}],
             [np.array([0, 1]), np.array([4, 3])], [2, 2, 5])
getitem_case("3d/ellipsis-array", a3, ["...", {"input": 1}], [np.array([[0, 5], [1, 2]])], [2, 3, 4])
getitem_case("3d/newaxis-array", a3, [None, {"input": 1}, "1:4"], [np.array([3, 0])], [3, 3, 3])
getitem_case("3d/array-2d-broadcast", a3, [{"input": 1}, {"input": 2}, {"input": 3}],
             [np.array([[0], [3]]), np.array([[1, 2, 4]]), np.array([0])], [2, 2, 2])

# the split tiling: bands of the source along the axes kept whole, chunks of the index
big = np.arange(40 * 30, dtype=np.float64).reshape(40, 30)
getitem_case("split/rows-by-index-chunks", big, [{"input": 1}],
             [RNG.integers(-40, 40, (23,))], [7, 9], ichunk=5)
getitem_case("split/cols", big, [":", {"input": 1}], [RNG.integers(-30, 30, (4, 6))], [11, 4],
             ichunk=[3, 4])
getitem_case("split/3d-middle", values((5, 9, 7)), [":", {"input": 1}, "::-1"],
             [RNG.integers(-9, 9, (10,))], [2, 4, 3], ichunk=3)
add("split/take-axis-1", [arr("a", big, [7, 9]), arr("i", np.array([29, 0, -1, 5, 5]), 2),
                          {"key": "t", "op": "take", "inputs": ["a", "i"], "axis": 1}],
    {"t": np.take(big, [29, 0, -1, 5, 5], axis=1)})

# boolean masks (the result's length is known when it runs)
for dt in ("float64", "int64", "bool"):
    v = values((6, 7), dt)
    m = values((6, 7), "bool")
    getitem_case("mask/full/%s" % dt, v, [{"input": 1}], [m], [4, 3])
    getitem_case("mask/rows/%s" % dt, v, [{"input": 1}], [values((6,), "bool")], [4, 3])
getitem_case("mask/none-true", a2, [{"input": 1}], [np.zeros((7, 5), dtype=bool)], [3, 3])
getitem_case("mask/all-true", a2, [{"input": 1}], [np.ones((7,), dtype=bool)], [3, 3])
getitem_case("mask/3d-leading-2", values((4, 3, 5)), [{"input": 1}, 2],
             [values((4, 3), "bool")], [3, 2, 2])
getitem_case("mask/1d-then-index", a2, [{"input": 1}, {"input": 2}],
             [np.array([True, False, True, False, False, True, False]), np.array([4, 0, -1])], [3, 3])

# mask computed by the graph: a[a > 0]
for shape, chunk in (((13,), 4), ((5, 6), [2, 4])):
    v = values(shape)
    add("mask/computed/%s" % (shape,), [
        arr("a", v, chunk),
        {"key": "m", "op": "greater", "inputs": ["a", 0]},
        {"key": "g", "op": "getitem", "inputs": ["a", "m"], "index": [{"input": 1}]}],
        {"g": v[v > 0]})

# a fancy result feeds other ops, its chunk against uneven ones
v = values((9, 4))
add("feeds/sum-add", [
    arr("a", v, [4, 3]),
    arr("i", np.array([8, 0, -3, 2, 2]), 2),
    {"key": "g", "op": "getitem", "inputs": ["a", "i"], "index": [{"input": 1}]},
    {"key": "b", "op": "ones", "shape": [5, 4], "chunk_size": [2, 3]},
    {"key": "s", "op": "add", "inputs": ["g", "b"]},
    {"key": "t", "op": "sum", "inputs": ["s"], "axis": 0}],
    {"s": v[[8, 0, -3, 2, 2]] + 1, "t": (v[[8, 0, -3, 2, 2]] + 1).sum(axis=0)})
# the index itself computed by the graph
add("feeds/computed-index", [
    arr("a", v, [4, 3]),
    {"key": "r", "op": "arange", "start": 8, "stop": -1, "step": -3, "chunk_size": 2},
    {"key": "g", "op": "getitem", "inputs": ["a"], "index": [":", "1:", None]},
    {"key": "h", "op": "getitem", "inputs": ["a", "r"], "index": [{"input": 1}, "1:"]}],
    {"g": v[:, 1:, None], "h": v[np.arange(8, -1, -3), 1:]})

# ---------------------------------------------------------------------------
# setitem

for dt in ("float64", "int64", "bool", "float32"):
    v = values((7, 5), dt)
    setitem_case("scalar-int-index/%s" % dt, v, [{"input": 2}], [np.array([0, -1, 3])], 1, [3, 2])
    setitem_case("scalar-mask/%s" % dt, v, [{"input": 2}], [values((7, 5), "bool")], 0, [3, 2])
setitem_case("float-into-int", values((8,), "int64"), [{"input": 2}], [np.array([1, 5])], 7.9, 3)
setitem_case("row-broadcast", a2, [{"input": 2}], [np.array([6, 0])],
             np.arange(5, dtype=np.float64), [3, 2])
setitem_case("column-broadcast", a2, [":", {"input": 2}], [np.array([4, 1])],
             np.array([[1.5], [2.5], [3.5], [4.5], [5.5], [6.5], [7.5]]), [3, 2])
setitem_case("pairs", a2, [{"input": 2}, {"input": 3}], [np.array([0, 6, 3]), np.array([4, 0, -1])],
             np.array([-1.0, -2.0, -3.0]), [4, 3])
setitem_case("duplicates-last-wins", values((6,)), [{"input": 2}], [np.array([1, 1, 4, 1])],
             np.array([10.0, 20.0, 30.0, 40.0]), 4)
setitem_case("int-value-into-float", a2, [{"input": 2}], [np.array([2])],
             np.array([1, 2, 3, 4, 5], dtype=np.int64), [3, 3])
setitem_case("rows-mask-row-value", a2, [{"input": 2}],
             [np.array([True, False, True, True, False, False, True])],
             np.arange(5, dtype=np.float64), [3, 3])
setitem_case("mask-value-per-element", values((9,)), [{"input": 2}],
             [np.array([True, False, True, True, False, False, True, False, False])],
             np.array([1.0, 2.0, 3.0, 4.0]), 4)
setitem_case("basic-slice", a2, ["1:5", "::2"], [], np.array([9.0, 8.0, 7.0]), [3, 3])
setitem_case("basic-int", a3, [2], [], 0.5, [3, 2, 4])
setitem_case("separated-front", a3, [{"input": 2}, ":", {"input": 3}],
             [np.array([0, 3]), np.array([5, 1])], 3.0, [3, 2, 4])
# setitem then another op; the mask computed by the graph: a[a < 0] = 0
v = values((6, 5))
w = v.copy()
w[w < 0] = 0
add("setitem/clip-negatives-then-sum", [
    arr("a", v, [4, 2]),
    {"key": "m", "op": "less", "inputs": ["a", 0]},
    {"key": "s", "op": "setitem", "inputs": ["a", 0, "m"], "index": [{"input": 2}]},
    {"key": "t", "op": "sum", "inputs": ["s"], "axis": 1}], {"s": w, "t": w.sum(axis=1)})

# ---------------------------------------------------------------------------
# take, compress, extract, argwhere, flatnonzero

for axis in (None, 0, 1, -1):
    v = values((6, 5))
    idx = np.array([[0, -1], [3, 2]])
    nodes = [arr("a", v, [4, 2]), arr("i", idx, [1, 2]),
             {"key": "t", "op": "take", "inputs": ["a", "i"], "axis": axis}]
    add("take/axis=%s" % axis, nodes, {"t": np.take(v, idx, axis=axis)})
# the source read through its row chunks (even, uneven after a rechunk, one
# row per chunk), int64 and int32 indices, negatives, each dtype's gather
for dt in ("float64", "int32", "bool", "float32"):
    v = values((97,), dt)
    idx = RNG.integers(-97, 97, 300)
    for ch, uneven in ((10, False), (7, True), (1, False)):
        nodes = [arr("a", v, ch)]
        src = "a"
        if uneven:  # bounds 0, 7, ..., 49, 50, 60, ...: a concatenation's
            nodes = [arr("a1", v[:50], 7), arr("a2", v[50:], 10),
                     {"key": "r", "op": "concatenate", "inputs": ["a1", "a2"]}]
            src = "r"
        nodes += [arr("i", idx, 64), {"key": "t", "op": "take", "inputs": [src, "i"]},
                  arr("j", idx.astype(np.int32), 50),
                  {"key": "g", "op": "getitem", "inputs": [src, "j"], "index": [{"input": 1}]}]
        add("take/through-chunks-%s-%s-%s" % (dt, ch, "uneven" if uneven else "even"), nodes,
            {"t": np.take(v, idx), "g": v[idx.astype(np.int32)]})
v2 = values((9, 4))
add("take/flat-through-row-chunks", [arr("a", v2, [2, 4]), arr("i", np.array([35, -36, 7, 8]), 3),
                                     {"key": "t", "op": "take", "inputs": ["a", "i"]}],
    {"t": np.take(v2, [35, -36, 7, 8])})
add("take/scalar-index", [arr("a", a3, [3, 2, 4]),
                          {"key": "t", "op": "take", "inputs": ["a", -2], "axis": 2}],
    {"t": np.take(a3, -2, axis=2)})
vb = values((5,))
add("take/bool-indices", [arr("a", vb, 2), arr("i", np.array([True, False, True])),
                          {"key": "t", "op": "take", "inputs": ["a", "i"]}],
    {"t": np.take(vb, np.array([True, False, True]))})

for axis in (None, 0):
    v = values((7, 4))
    c = np.array([True, False, True, True, False])
    nodes = [arr("c", c), arr("a", v, [3, 3]),
             {"key": "t", "op": "compress", "inputs": ["c", "a"], "axis": axis}]
    add("compress/short-cond/axis=%s" % axis, nodes, {"t": np.compress(c, v, axis=axis)})
v = values((6,), "int64")
c = np.array([0, 2, 0, -1, 5, 0], dtype=np.int64)
add("compress/int-condition", [arr("c", c, 4), arr("a", v, 4),
                               {"key": "t", "op": "compress", "inputs": ["c", "a"]}],
    {"t": np.compress(c, v)})
for shape, chunk in (((11,), 4), ((4, 6), [3, 4]), ((3, 4, 2), [2, 3, 1])):
    v = values(shape)
    cond = values(shape, "bool")
    add("extract/%s" % (shape,), [arr("c", cond, chunk), arr("a", v, chunk),
                                  {"key": "t", "op": "extract", "inputs": ["c", "a"]}],
        {"t": np.extract(cond, v)})
    vi = RNG.integers(-1, 2, shape)
    add("argwhere/%s" % (shape,), [arr("a", vi, chunk), {"key": "w", "op": "argwhere",
                                                          "inputs": ["a"]}],
        {"w": np.argwhere(vi)})
    add("flatnonzero/%s" % (shape,), [arr("a", vi, chunk), {"key": "w", "op": "flatnonzero",
                                                             "inputs": ["a"]}],
        {"w": np.flatnonzero(vi)})
add("extract/short-condition", [arr("c", np.array([1, 0, 1])), arr("a", np.arange(6), 4),
                                {"key": "t", "op": "extract", "inputs": ["c", "a"]}],
    {"t": np.extract(np.array([1, 0, 1]), np.arange(6))})
add("argwhere/none", [{"key": "a", "op": "zeros", "shape": [3, 4], "chunk_size": 2},
                      {"key": "w", "op": "argwhere", "inputs": ["a"]}],
    {"w": np.argwhere(np.zeros((3, 4)))})

# ---------------------------------------------------------------------------
# refusals: at validation (exit 2) and when the job runs (exit 1)

A = [arr("a", np.arange(10), 3)]
add_error("oob-positive-runs", A + [arr("i", np.array([4, 12, 0])),
          {"key": "g", "op": "getitem", "inputs": ["a", "i"], "index": [{"input": 1}]}],
          "g", "getitem", "index 12 is out of bounds for axis 0 with size 10", 1)
add_error("oob-negative-runs", A + [arr("i", np.array([-11])),
          {"key": "g", "op": "getitem", "inputs": ["a", "i"], "index": [{"input": 1}]}],
          "g", "getitem", "index -11 is out of bounds for axis 0 with size 10", 1)
add_error("take-oob-runs", A + [arr("i", np.array([10])),
          {"key": "t", "op": "take", "inputs": ["a", "i"]}],
          "t", "take", "index 10 is out of bounds", 1)
add_error("take-negative-out-of-bounds-through-chunks",
          [arr("a", np.arange(10), 3), arr("i", np.array([2, -11, 0]), 2),
           {"key": "t", "op": "take", "inputs": ["a", "i"]}],
          "t", "take", "index -11 is out of bounds for axis 0 with size 10", 1)
add_error("setitem-oob-runs", A + [arr("i", np.array([3, 99])),
          {"key": "s", "op": "setitem", "inputs": ["a", 1, "i"], "index": [{"input": 2}]}],
          "s", "setitem", "index 99 is out of bounds for axis 0 with size 10", 1)
add_error("compress-long-condition-runs", A + [arr("c", np.array([0] * 10 + [1])),
          {"key": "t", "op": "compress", "inputs": ["c", "a"]}],
          "t", "compress", "index 10 is out of bounds for axis 0 with size 10", 1)
add_error("mask-value-shape-runs", A + [{"key": "m", "op": "greater", "inputs": ["a", 6]},
          arr("v", np.array([1, 2])),
          {"key": "s", "op": "setitem", "inputs": ["a", "v", "m"], "index": [{"input": 2}]}],
          "s", "setitem", "could not be broadcast to indexing result of shape (3,)", 1)
add_error("scalar-oob", A + [{"key": "g", "op": "getitem", "inputs": ["a", 10],
                              "index": [{"input": 1}]}],
          "g", "getitem", "index 10 is out of bounds for axis 0 with size 10", 2)
add_error("too-many-indices", A + [arr("i", np.array([1])),
          {"key": "g", "op": "getitem", "inputs": ["a", "i"], "index": [{"input": 1}, 0]}],
          "g", "getitem", "too many indices for array", 2)
add_error("mask-shape", A + [arr("m", np.array([True, False])),
          {"key": "g", "op": "getitem", "inputs": ["a", "m"], "index": [{"input": 1}]}],
          "g", "getitem", "boolean index did not match indexed array along dimension 0; "
          "dimension is 10 but corresponding boolean dimension is 2", 2)
add_error("broadcast", [arr("a", np.zeros((4, 4)))] + [arr("i", np.array([1, 2])),
          arr("j", np.array([1, 2, 3])),
          {"key": "g", "op": "getitem", "inputs": ["a", "i", "j"],
           "index": [{"input": 1}, {"input": 2}]}],
          "g", "getitem", "shape mismatch: indexing arrays could not be broadcast together", 2)
add_error("float-index", A + [arr("i", np.array([1.0])),
          {"key": "g", "op": "getitem", "inputs": ["a", "i"], "index": [{"input": 1}]}],
          "g", "getitem", "arrays used as indices must be of integer (or boolean) type", 2)
add_error("input-out-of-range", A + [arr("i", np.array([1])),
          {"key": "g", "op": "getitem", "inputs": ["a", "i"], "index": [{"input": 2}]}],
          "g", "getitem", "names no index input", 2)
add_error("value-shape", A + [arr("i", np.array([1, 2])), arr("v", np.array([1, 2, 3])),
          {"key": "s", "op": "setitem", "inputs": ["a", "v", "i"], "index": [{"input": 2}]}],
          "s", "setitem", "value array of shape (3,) could not be broadcast to indexing result "
          "of shape (2,)", 2)
add("held-feeds-op", A + [{"key": "m", "op": "greater", "inputs": ["a", 3]},
    {"key": "g", "op": "getitem", "inputs": ["a", "m"], "index": [{"input": 1}]},
    {"key": "h", "op": "add", "inputs": ["g", 1]}], {"h": np.arange(4, 10) + 1})
add_error("held-not-leading", [arr("a", np.zeros((3, 4))), arr("m", np.array([1, 0, 1, 1]) > 0),
          {"key": "g", "op": "getitem", "inputs": ["a", "m"], "index": [":", {"input": 1}]}],
          "g", "getitem", "first axis of the result", 2)
add_error("held-float32", [arr("a", np.zeros(4, dtype=np.float32)), arr("m", np.ones(4) > 0),
          {"key": "g", "op": "getitem", "inputs": ["a", "m"], "index": [{"input": 1}]}],
          "g", "getitem", "must be int64, float64 or bool", 2)
add_error("compress-2d-condition", A + [arr("c", np.ones((2, 5)) > 0),
          {"key": "t", "op": "compress", "inputs": ["c", "a"]}],
          "t", "compress", "condition must be a 1-d array", 2)
add_error("take-axis", A + [arr("i", np.array([1])),
          {"key": "t", "op": "take", "inputs": ["a", "i"], "axis": 1}],
          "t", "take", "axis 1 is out of bounds for array of dimension 1", 2)
add_error("take-float", A + [arr("i", np.array([1.5])),
          {"key": "t", "op": "take", "inputs": ["a", "i"]}],
          "t", "take", "Cannot cast array data", 2)
add_error("one-job-limit", [{"key": "a", "op": "ones", "shape": [70000, 1000],
                             "chunk_size": [1000, 1000]}, arr("i", np.array([1, 2])),
                            {"key": "g", "op": "getitem", "inputs": ["a", "i"],
                             "index": [{"input": 1}]}],
          "g", "getitem", "more than the limit of 536870912 (FANCY_MAX_BYTES)", 2)
add_error("held-limit", [{"key": "a", "op": "ones", "shape": [70000, 1000],
                          "chunk_size": [1000, 1000]},
                         {"key": "m", "op": "greater", "inputs": ["a", 0]},
                         {"key": "g", "op": "getitem", "inputs": ["a", "m"],
                          "index": [{"input": 1}]}],
          "g", "getitem", "(FANCY_MAX_BYTES)", 2)
add_error("getitem-extra-input", A + [arr("i", np.array([1])),
          {"key": "g", "op": "getitem", "inputs": ["a", "i"], "index": [0]}],
          "g", "getitem", "takes 1 input when the index has no", 2)


# ---------------------------------------------------------------------------
# running


def prefixed(nodes, p):
    keys = {n["key"] for n in nodes}
    out = []
    for n in nodes:
        m = dict(n)
        m["key"] = p + n["key"]
        if "inputs" in n:
            m["inputs"] = [p + x if isinstance(x, str) and x in keys else x for x in n["inputs"]]
        out.append(m)
    return out


def run_one(suite, name, nodes, expected):
    d = {"version": 1, "nodes": nodes, "fetch": list(expected)}
    r = harness.run_mars(d)
    try:
        if r.rc != 0:
            suite.fail(name, "exit %d: %s" % (r.rc, r.brief_error()), doc=d)
            return
        for k, e in expected.items():
            try:
                got = r.load(k)
            except Exception as ex:  # noqa: BLE001
                suite.fail(name, "no result %s: %s" % (k, ex), doc=d)
                return
            why = harness.compare(np.asarray(e), got)
            if why:
                suite.fail(name, "%s: %s" % (k, why), doc=d)
                return
        suite.ok(name)
    finally:
        harness.cleanup(r)


def run_batch(suite, batch):
    nodes, fetch = [], {}
    for i, (name, ns, exp) in enumerate(batch):
        p = "c%d." % i
        nodes += prefixed(ns, p)
        for k, e in exp.items():
            fetch[p + k] = (i, k, e)
    d = {"version": 1, "nodes": nodes, "fetch": list(fetch)}
    r = harness.run_mars(d)
    try:
        if r.rc != 0:
            for name, ns, exp in batch:
                run_one(suite, name, ns, exp)
            return
        bad = set()
        for pk, (i, k, e) in fetch.items():
            try:
                why = harness.compare(np.asarray(e), r.load(pk))
            except Exception as ex:  # noqa: BLE001
                why = str(ex)
            if why:
                bad.add(i)
        for i, (name, ns, exp) in enumerate(batch):
            if i in bad:
                run_one(suite, name, ns, exp)
            else:
                suite.ok(name)
    finally:
        harness.cleanup(r)


def main():
    suite = harness.Suite("fancy")
    harness.require_mars_run(suite)
    for k in range(0, len(cases), 25):
        run_batch(suite, cases[k:k + 25])
    for name, nodes, key, op, sub, rc in errors:
        d = {"version": 1, "nodes": nodes, "fetch": [nodes[-1]["key"]]}
        r = harness.run_mars(d)
        try:
            msg = r.stderr
            want = 'node "%s" (%s)' % (key, op)
            if r.rc == 0:
                suite.fail("error/" + name, "accepted", doc=d)
            elif rc is not None and r.rc != rc:
                suite.fail("error/" + name, "exit %d (want %d): %s" % (r.rc, rc, r.brief_error()),
                           doc=d)
            elif want not in msg or sub not in msg:
                suite.fail("error/" + name, "message %r lacks %r / %r" % (
                    r.brief_error(), want, sub), doc=d)
            else:
                suite.ok("error/" + name)
        finally:
            harness.cleanup(r)
    suite.finish()


if __name__ == "__main__":
    main()
