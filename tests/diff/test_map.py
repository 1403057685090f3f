#!/usr/bin/python3
"""dataframe.map through mars-run, against pandas 1.5's Series.map of a
dict: int64, float64 (with NaN), string (with missing values) and bool
Series; values that are integers (int64, or float64 where a value finds
no key), floats, strings, booleans (object with missing values) and
null; a key that is NaN or None, keys of another type (never equal, as
pandas with keys of one type: 1 is no bool's key), an empty dict, a key given twice (the last
value, as a dict literal), na_action "ignore"; after a filter, and many
keys (the hash table's growth). Each case runs on one-row chunks, uneven
chunks and one chunk, exactly. Then the rejections.

Usage: test_map.py. Prints `RESULT passed=N failed=M`."""

import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_dates as td  # noqa: E402  (its runner and report)
from test_rolling_time import compare  # noqa: E402  (exact)

op = td.op


def make_csv(path, rng, n):
    x = rng.integers(-3, 4, n).astype(float)
    x[rng.random(n) < 0.15] = np.nan
    s = rng.choice(["paris", "lyon", "nice", "\u00e9vry", "brest"], n).astype(object)
    s[rng.random(n) < 0.1] = None
    pd.DataFrame({"i": rng.integers(0, 6, n), "x": x, "s": s, "b": rng.random(n) < 0.4,
                  "big": rng.integers(0, 5000, n)}).to_csv(path, index=False)


def mapping(src, k, v):
    """keys and values for the node, and the dict for pandas"""
    return {"keys": k, "values": v}, dict(zip(k, v))


def cases(P):
    """(name, nodes after read_csv "t", {key: pandas' value})"""
    cols = [op(c, "getitem", "t", columns=c) for c in ("i", "x", "s", "b", "big")]
    nan = float("nan")
    maps = [
        ("i", [0, 1, 2, 3, 4, 5], [10, 11, 12, 13, 14, 15], None),   # every value: int64
        ("i", [1, 3], [100, -7], None),                                # float64 where missing
        ("i", [0, 1, 2.0], [0.5, 1.5, 2.5], None),                     # float keys, float values
        ("i", [1, 2, 4], ["one", "two", "four"], None),                # strings
        ("i", [1, 2], [True, False], None),                            # bools with missing
        ("i", [1, 2], [None, 7], None),                                # a null value
        ("i", [1.5, "1"], [1, 2], None),                               # keys of other types
        ("i", [], [], None),                                           # an empty dict
        ("i", [1, 1], [5, 6], None),                                   # the last value wins
        ("x", [-3, -1.0, 0, 2], [1, 2, 3, 4], None),
        ("x", [None, 1], ["gone", "one"], None),                       # NaN as a key
        ("x", [None, 1], ["gone", "one"], "ignore"),
        ("x", [-0.0, 3], [9, 8], None),                                # -0.0 is 0.0
        ("s", ["paris", "nice", "\u00e9vry"], [75, 6, 91], None),
        ("s", ["paris", None], ["P", "none"], None),                   # None as a key
        ("s", ["paris", None], ["P", "none"], "ignore"),
        ("s", ["lyon", 1, True], [1.5, 2.5, 3.5], None),
        ("b", [True, False], ["yes", "no"], None),
        ("b", [1, 0], [1, 2], None),                                   # 1 is no bool's key
        ("b", [False], [False], None),
    ]
    nodes, want = list(cols), {}
    for q, (src, k, v, na) in enumerate(maps):
        kw, dct = mapping(src, k, v)
        if na:
            kw["na_action"] = na
        if src in ("x", "s"):  # JSON's null is NaN, read_csv's missing value
            dct = {(nan if kk is None else kk): vv for kk, vv in dct.items()}
        if src == "i" and k == [1, 1]:
            dct = {1: 6}
        nodes.append(op("m%d" % q, "map", src, **kw))
        want["m%d" % q] = P[src].map(dct, na_action=na)
    out = [("values", nodes, want)]
    # many keys: the table grows past its first size
    ks = list(range(0, 5000, 3))
    kw, dct = mapping("big", ks, [float(k) / 7 for k in ks])
    out.append(("many_keys", cols + [op("mk", "map", "big", **kw)], {"mk": P.big.map(dct)}))
    # after a filter (rows known only when they run), and a map of a map
    F = P[P.i > 2]
    out.append(("filtered", cols + [
        {"key": "m", "op": "greater", "inputs": ["i", 2]},
        {"key": "fl", "op": "dataframe.filter", "inputs": ["t", "m"]},
        op("fs", "getitem", "fl", columns="s"),
        op("f1", "map", "fs", keys=["nice", "lyon"], values=[1, 2]),
        op("f2", "map", "f1", keys=[1, 2], values=["a", "b"])],
        {"f1": F.s.map({"nice": 1, "lyon": 2}),
         "f2": F.s.map({"nice": 1, "lyon": 2}).map({1: "a", 2: "b"})}))
    return out


def rejects(data):
    base = [{"key": "t", "op": "dataframe.read_csv", "path": "t.csv"},
            op("i", "getitem", "t", columns="i")]
    for name, src, kw, words in [
        ("frame", "t", {"keys": [1], "values": [2]}, ["Series"]),
        ("mixed", "i", {"keys": [1, 2], "values": [1, "a"]}, ["mix types in one column"]),
        ("lengths", "i", {"keys": [1, 2], "values": [1]}, ["one length"]),
        ("not_list", "i", {"keys": {"a": 1}, "values": [1]}, ["must be lists"]),
        ("missing", "i", {"keys": [1]}, ["must be lists"]),
        ("nested", "i", {"keys": [[1]], "values": [1]}, ["scalars"]),
        ("na_action", "i", {"keys": [1], "values": [1], "na_action": "skip"},
         ["na_action must either be 'ignore' or None"]),
    ]:
        node = dict({"key": "r", "op": "dataframe.map", "inputs": [src]}, **kw)
        td.expect_refused(data, "reject/" + name, base + [node], 2, words)
    td.expect_refused(data, "reject/datetime", base + [
        op("d", "to_datetime", "i", unit="s"),
        op("r", "map", "d", keys=[1], values=[2])], 2, ["map of a datetime64[ns] Series"])


def all_cases(data):
    make_csv(os.path.join(data, "t.csv"), np.random.default_rng(23), 120)
    P = pd.read_csv(os.path.join(data, "t.csv"), float_precision="round_trip")
    td.over_chunkings(data, cases(P), (1, 300, None), cmp=compare)
    rejects(data)


def main():
    return td.suite_main("map_data_", all_cases)


if __name__ == "__main__":
    sys.exit(main())
