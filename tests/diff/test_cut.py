#!/usr/bin/python3
"""dataframe.cut and dataframe.qcut through mars-run, against pandas
1.5's pd.cut and pd.qcut of a Series (qcut: edges at numpy's linear
quantiles of every value present, include_lowest): bins as a count (equal bins over the values' range, found over
every chunk first; the first edge moved down 0.1%, or the last up with
right=False; a range of one value widened) and as edges (integers and
floats, duplicates dropped, two equal edges); right and include_lowest;
labels false (codes: int64, float64 with NaN), null (the intervals'
text, pandas' rounding of the edges to `precision`, which it raises
until the edges stay apart) and a list; int and float Series with
missing values and values outside every bin. Each case runs on one-row
chunks, uneven chunks and one chunk, exactly. Then the rejections, at
validation and when the jobs meet an infinity or no row.

Usage: test_cut.py. Prints `RESULT passed=N failed=M`."""

import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_dates as td  # noqa: E402  (its runner and report)
from test_rolling_time import compare  # noqa: E402  (exact)

op = td.op


def make_csv(path, rng, n):
    x = np.round(rng.standard_normal(n) * 40 + 10, 3)
    x[rng.random(n) < 0.1] = np.nan
    small = np.round(rng.uniform(0.0001, 0.003, n), 7)
    pd.DataFrame({"x": x, "i": rng.integers(-20, 60, n), "small": small,
                  "big": rng.integers(0, 10 ** 12, n), "one": np.full(n, 7.5)}
                 ).to_csv(path, index=False)


def text(s):
    """pandas' categorical as the engine's strings: each value its
    category's text as pandas prints it (an interval of int64 edges
    "(0, 5]"), None where missing"""
    cats = [str(c) for c in s.cat.categories]
    return pd.Series([None if k < 0 else cats[k] for k in s.cat.codes], index=s.index,
                     name=s.name, dtype=object)


def cases(P):
    """(name, nodes after read_csv "t", {key: pandas' value})"""
    cols = [op(c, "getitem", "t", columns=c) for c in ("x", "i", "small", "big", "one")]
    nodes, want = list(cols), {}
    k = 0
    for src in ("x", "i", "small", "big", "one"):
        for bins in (1, 3, 10):
            for right in (True, False):
                for labels in (False, None):
                    kw = {"bins": bins, "right": right, "labels": labels}
                    if src == "i" and bins == 3:
                        kw["include_lowest"] = True
                    r = pd.cut(P[src], **kw)
                    nodes.append(op("c%d" % k, "cut", src, **kw))
                    want["c%d" % k] = r if labels is False else text(r)
                    k += 1
    out = [("bins_count", nodes, want)]
    nodes, want = list(cols), {}
    edges = [("x", [-50, 0, 10, 20.5, 100], {}), ("x", [-100, 0, 100], {"include_lowest": True}),
             ("i", [-20, 0, 0, 30], {"duplicates": "drop"}), ("i", [5, 5], {}),
             ("i", [-20, -5, 10, 59], {"right": False}), ("i", [0, 10, 50], {"include_lowest": True}),
             ("small", [0.0001, 0.0015, 0.00151, 0.003], {}),
             ("big", [0, 10 ** 11, 5 * 10 ** 11, 10 ** 12], {"include_lowest": True}),
             ("x", [-1e300, 1e-300, 1e300], {"precision": 5})]
    for q, (src, b, kw) in enumerate(edges):
        for labels in (False, None):
            r = pd.cut(P[src], b, labels=labels, **kw)
            nodes.append(op("e%d%s" % (q, labels), "cut", src, bins=b, labels=labels, **kw))
            want["e%d%s" % (q, labels)] = r if labels is False else text(r)
    r = pd.cut(P.x, [-50, 0, 50, 100], labels=["lo", "mid", "\u00e9lev\u00e9"])
    nodes.append(op("lab", "cut", "x", bins=[-50, 0, 50, 100],
                    labels=["lo", "mid", "\u00e9lev\u00e9"]))
    want["lab"] = text(r)
    r = pd.cut(P.i, 2, labels=["a", "a"], ordered=False)
    nodes.append(op("dup", "cut", "i", bins=2, labels=["a", "a"], ordered=False))
    want["dup"] = text(r)
    out.append(("bins_edges", nodes, want))
    # qcut: the edges at numpy's linear quantiles of the values present
    nodes, want = list(cols), {}
    k = 0
    for src in ("x", "i", "small", "big"):
        for q, kw in ((4, {}), (10, {"duplicates": "drop"}), ([0, 0.1, 0.5, 0.9, 1], {}),
                      (3, {"precision": 1}), (1, {})):
            for labels in (False, None):
                r = pd.qcut(P[src], q, labels=labels, **kw)
                nodes.append(op("q%d" % k, "qcut", src, q=q, labels=labels, **kw))
                want["q%d" % k] = r if labels is False else text(r)
                k += 1
    r = pd.qcut(P.x, [0, 0.25, 0.75, 1], labels=["low", "mid", "high"])
    nodes.append(op("ql", "qcut", "x", q=[0, 0.25, 0.75, 1], labels=["low", "mid", "high"]))
    want["ql"] = text(r)
    out.append(("qcut", nodes, want))
    # after a filter: rows known only when they run
    F = P[P.i > 0]
    out.append(("filtered", cols + [
        {"key": "m", "op": "greater", "inputs": ["i", 0]},
        {"key": "fl", "op": "dataframe.filter", "inputs": ["t", "m"]},
        op("fx", "getitem", "fl", columns="x"), op("fc", "cut", "fx", bins=4),
        op("fd", "cut", "fx", bins=4, labels=False), op("fq", "qcut", "fx", q=5)],
        {"fc": text(pd.cut(F.x, 4)), "fd": pd.cut(F.x, 4, labels=False),
         "fq": text(pd.qcut(F.x, 5))}))
    return out


def rejects(data):
    base = [{"key": "t", "op": "dataframe.read_csv", "path": "t.csv"},
            op("x", "getitem", "t", columns="x"), op("s", "astype", "x", dtype="str")]
    for name, src, kw, words in [
        ("bins_zero", "x", {"bins": 0}, ["`bins` should be a positive integer."]),
        ("bins_falling", "x", {"bins": [3, 1, 2]}, ["bins must increase monotonically."]),
        ("bins_dup", "x", {"bins": [1, 2, 2, 3]}, ["Bin edges must be unique: [1, 2, 2, 3]",
                                                  "'duplicates' kwarg"]),
        ("bins_word", "x", {"bins": "ten"}, ["\"bins\" must be"]),
        ("bins_huge", "x", {"bins": [0, 2 ** 60]}, ["beyond 2^53"]),
        ("labels_count", "x", {"bins": [1, 2, 3], "labels": ["a"]},
         ["Bin labels must be one fewer than the number of bin edges"]),
        ("labels_dup", "x", {"bins": 2, "labels": ["a", "a"]}, ["labels must be unique"]),
        ("labels_numbers", "x", {"bins": 2, "labels": [1, 2]}, ["must be strings"]),
        ("labels_true", "x", {"bins": 2, "labels": True}, ["Bin labels must either be False"]),
        ("unordered", "x", {"bins": 2, "ordered": False}, ["'labels' must be provided"]),
        ("duplicates", "x", {"bins": 2, "duplicates": "keep"}, ["'duplicates' parameter"]),
        ("strings", "s", {"bins": 2}, ["cut takes a Series of numbers"]),
        ("frame", "t", {"bins": 2}, ["Series"]),
        ("q_zero", "x", {"q": 0}, ["\"q\" must be"]),
        ("q_range", "x", {"q": [0, 0.5, 1.5]}, ["Quantiles must be in the range [0, 1]"]),
        ("q_labels", "x", {"q": 4, "labels": ["a", "b"]}, ["Bin labels must be one fewer"]),
        ("q_right", "x", {"q": 4, "right": False}, ["right"]),
        ("q_strings", "s", {"q": 4}, ["qcut takes a Series of numbers"]),
    ]:
        node = dict({"key": "r", "op": "dataframe.qcut" if "q" in kw else "dataframe.cut",
                     "inputs": [src]}, **kw)
        td.expect_refused(data, "reject/" + name, base + [node], 2, words)
    pd.DataFrame({"x": [1.0, np.inf, 2.0]}).to_csv(os.path.join(data, "inf.csv"), index=False)
    td.expect_refused(data, "reject/infinity", [
        {"key": "t", "op": "dataframe.read_csv", "path": "inf.csv", "chunk_bytes": 1},
        op("x", "getitem", "t", columns="x"), op("r", "cut", "x", bins=3)], 1,
        ["cannot specify integer `bins` when input data contains infinity"])
    td.expect_refused(data, "reject/empty", base + [
        {"key": "m", "op": "greater", "inputs": ["x", 1e9]},
        {"key": "fl", "op": "dataframe.filter", "inputs": ["x", "m"]},
        op("r", "cut", "fl", bins=3)], 1, ["Cannot cut empty array"])
    td.expect_refused(data, "reject/qcut_empty", base + [
        {"key": "m", "op": "greater", "inputs": ["x", 1e9]},
        {"key": "fl", "op": "dataframe.filter", "inputs": ["x", "m"]},
        op("r", "qcut", "fl", q=3)], 1, ["qcut: no value to take quantiles of"])
    # rows, but no value: pandas' edges are NaN (its intervals fail; more
    # than two edges are NaN repeated)
    pd.DataFrame({"x": [np.nan] * 5, "i": range(5)}).to_csv(os.path.join(data, "nan.csv"),
                                                              index=False)
    nan = [{"key": "t", "op": "dataframe.read_csv", "path": "nan.csv", "chunk_bytes": 4},
           op("x", "getitem", "t", columns="x")]
    td.expect_refused(data, "reject/all_missing", nan + [op("r", "cut", "x", bins=1)], 1,
                      ["Categorical categories cannot be null"])
    td.expect_refused(data, "reject/all_missing_edges", nan + [op("r", "cut", "x", bins=3)], 1,
                      ["Bin edges must be unique: [nan, nan, nan, nan]"])
    td.expect_refused(data, "reject/qcut_dup", base + [op("i", "getitem", "t", columns="i"),
                                                        op("r", "qcut", "i", q=200)], 1,
                      ["Bin edges must be unique"])


def all_cases(data):
    make_csv(os.path.join(data, "t.csv"), np.random.default_rng(17), 150)
    P = pd.read_csv(os.path.join(data, "t.csv"), float_precision="round_trip")
    td.over_chunkings(data, cases(P), (1, 500, None), cmp=compare)
    rejects(data)


def main():
    return td.suite_main("cut_data_", all_cases)


if __name__ == "__main__":
    sys.exit(main())
