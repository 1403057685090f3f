#!/usr/bin/python3
"""dataframe.mode through mars-run, against pandas 1.5's DataFrame.mode
and Series.mode: columns of one mode and of several tied ones (int64
padded as float64, bools as object with NaN, strings with NaN, datetimes
with NaT), dropna false (NaN counted and sorted last, NaT first as pandas
sorts datetimes and timedeltas; dt.date's dates beside NaT in order of
first appearance), numeric_only,
a column of no value (all NaN), strings whose modes hold a missing value
(pandas cannot sort them: first appearance), a Series (its name kept), after a filter
(rows known only when they run) and over no row. Each case runs on
one-row chunks, uneven chunks and one chunk, exactly. Then the
rejections.

Usage: test_mode.py. Prints `RESULT passed=N failed=M`."""

import os
import sys

import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_dates as td  # noqa: E402  (its runner and report)
from test_rolling_time import compare  # noqa: E402  (exact)

op = td.op


def make_csv(path, rng, n):
    """i: 3 and 1 tie; f: 2.5 and 0.5 tie, NaN more frequent than either;
    s: "b" alone, missing more frequent; b: True and False tie (bn, bq:
    True, False and missing tie); d: two
    days tie; v: one value alone; e: no value at all"""
    i = np.array([3, 1] * (n // 2))
    i[:6] = [0, 2, 4, 5, 6, 7]
    f = np.array([2.5, 0.5, np.nan, np.nan] * (n // 4))
    s = np.array(["b", "b", "b", None, None, None, None, "a", "c", "\u00e9"] * (n // 10), dtype=object)
    b = np.array([True, False] * (n // 2))
    d = pd.Timestamp("2024-03-01") + pd.to_timedelta(np.array([1, 2] * (n // 2)), unit="D")
    d = d.astype(str).to_numpy(dtype=object)
    d[::5] = ""
    # dn: NaT as frequent as the most frequent day (pandas sorts NaT first)
    dn = np.array(["2024-05-02", "2024-05-01", "", "2024-05-03"] * (n // 4), dtype=object)
    dn[3::4] = ["2024-05-%02d" % (4 + q % 20) for q in range(n // 4)]
    u = np.array(["w%03d" % q for q in rng.permutation(n)], dtype=object)
    u[17] = None  # every value a mode, missing among them: pandas cannot sort those
    # bn, bq: True, False and missing tie (an object column in pandas, which
    # sorts its modes by numpy's insertion sort: NaN compares with nothing)
    # first seen in the orders True, missing, False and missing, True, False
    rest = np.array([True, False, None] * (n // 3 - 1), dtype=object)
    bn = np.concatenate([np.array([True, None, False], dtype=object), rng.permutation(rest)])
    bq = np.concatenate([np.array([None, True, False], dtype=object), rng.permutation(rest)])
    pd.DataFrame({"i": rng.permutation(i), "f": rng.permutation(f), "s": rng.permutation(s), "u": u,
                  "b": rng.permutation(b), "d": rng.permutation(d), "dn": rng.permutation(dn),
                  "bn": bn, "bq": bq,
                  "v": np.full(n, 7), "e": np.full(n, np.nan)}).to_csv(path, index=False)


def cases(P):
    """(name, nodes after read_csv "t", {key: pandas' value})"""
    cols = [op(c, "getitem", "t", columns=c)
            for c in ("i", "f", "s", "b", "d", "e", "u", "dn", "bn", "bq")]
    nodes, want = list(cols), {}
    # (numeric_only and an empty frame leave out bn and bq: their type is
    # fixed before the rows are read, bool here, object in pandas: documented)
    old = [c for c in P.columns if c not in ("bn", "bq")]
    nodes.append(op("t0", "getitem", "t", columns=old))
    for k, kw in (("a", {}), ("n", {"dropna": False}), ("nu", {"numeric_only": True}),
                  ("nun", {"numeric_only": True, "dropna": False})):
        nodes.append(op(k, "mode", "t" if k in ("a", "n") else "t0", **kw))
        want[k] = (P if k in ("a", "n") else P[old]).mode(**kw)
    for c in ("i", "f", "s", "b", "d", "e", "u", "dn", "bn", "bq"):
        for dn in (True, False):
            k = "%s%s" % (c, dn)
            nodes.append(op(k, "mode", c, dropna=dn))
            want[k] = P[c].mode(dropna=dn)
            if c in ("bn", "bq") and dn:  # no missing value left: bool (documented)
                want[k] = want[k].astype(bool)
    # a timedelta's and dt.date's modes beside NaT: NaT first; dates (object)
    # in order of first appearance, as pandas cannot sort them
    nodes += [{"key": "td", "op": "subtract", "inputs": ["dn", "d"]},
              op("tdm", "mode", "td", dropna=False), op("dd", "dt.date", "dn"),
              op("ddm", "mode", "dd", dropna=False)]
    want["tdm"] = (P.dn - P.d).mode(dropna=False)
    ddm = P.dn.dt.date.mode(dropna=False)
    want["ddm"] = td.plain(ddm)  # dates as the ISO strings the engine writes
    out = [("frames_and_series", nodes, want)]
    F = P[P.i > 2]
    out.append(("filtered", [
        op("t0", "getitem", "t", columns=old),
        op("ii", "getitem", "t", columns="i"), {"key": "m", "op": "greater", "inputs": ["ii", 2]},
        {"key": "fl", "op": "dataframe.filter", "inputs": ["t", "m"]},
        op("fm", "mode", "fl"),
        {"key": "none", "op": "greater", "inputs": ["ii", 100]},
        {"key": "fz", "op": "dataframe.filter", "inputs": ["t0", "none"]},
        op("zm", "mode", "fz")],
        {"fm": F.mode(), "zm": P[old][P.i > 100].mode()}))
    return out


def rejects(data):
    base = [{"key": "t", "op": "dataframe.read_csv", "path": "t.csv"},
            op("i", "getitem", "t", columns="i")]
    for name, src, kw, words in [
        ("axis", "t", {"axis": 1}, ["axis"]),
        ("series_numeric_only", "i", {"numeric_only": True}, ["for DataFrames"]),
        ("dropna_word", "t", {"dropna": "yes"}, ["dropna"]),
    ]:
        node = dict({"key": "r", "op": "dataframe.mode", "inputs": [src]}, **kw)
        td.expect_refused(data, "reject/" + name, base + [node], 2, words)


def all_cases(data):
    warnings.simplefilter("ignore", UserWarning)  # pandas' "Unable to sort modes"
    make_csv(os.path.join(data, "t.csv"), np.random.default_rng(41), 120)
    P = pd.read_csv(os.path.join(data, "t.csv"), float_precision="round_trip",
                    parse_dates=["d", "dn"])
    td.over_chunkings(data, cases(P), (1, 300, None), parse_dates=["d", "dn"], cmp=compare)
    rejects(data)


def main():
    return td.suite_main("mode_data_", all_cases)


if __name__ == "__main__":
    sys.exit(main())
