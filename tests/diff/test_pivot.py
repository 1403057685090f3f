#!/usr/bin/python3
"""dataframe.pivot through mars-run, against pandas 1.5's DataFrame.pivot
(a reshape without aggregation): a string and an int64 columns key, one
and two index keys, values of every type (int64 and bools with and
without a missing cell: one block, so one missing cell makes every int64
column float64 and every bool column object; floats, strings, datetimes
with NaT), after a filter (rows known only when they run) and over no
row. Each case runs on one-row chunks, uneven chunks and one chunk,
exactly. Then the refusals: a repeated (index, columns) pair (pandas'
"Index contains duplicate entries"), a missing key, MultiIndex columns,
an op after a pivot.

Usage: test_pivot.py. Prints `RESULT passed=N failed=M`."""

import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_dates as td  # noqa: E402  (its runner and report)
from test_rolling_time import compare  # noqa: E402  (exact)

op = td.op


def make_csv(path, rng):
    """every (day, city) pair once: 12 days by 3 cities, rows shuffled,
    some pairs left out (holes) where h is set; the full grid where h is
    false"""
    day = np.repeat(np.arange(12), 3)
    city = np.tile(["paris", "lyon", "\u00e9vry"], 12)
    n = len(day)
    hole = rng.random(n) < 0.25
    s = np.array(["s%d" % q for q in range(n)], dtype=object)
    s[rng.random(n) < 0.1] = None
    f = np.round(rng.standard_normal(n), 3)
    f[rng.random(n) < 0.1] = np.nan
    d = (pd.Timestamp("2024-03-01") + pd.to_timedelta(rng.integers(0, 50, n), unit="D"))
    d = d.astype(str).to_numpy(dtype=object)
    d[rng.random(n) < 0.1] = ""
    frame = pd.DataFrame({"day": day, "city": city, "code": np.tile([3, 1, 2], 12),
                          "part": day % 2, "h": hole,
                          "i": rng.integers(-50, 50, n), "f": f, "s": s,
                          "b": rng.random(n) < 0.5, "d": d})
    frame.iloc[rng.permutation(n)].to_csv(path, index=False)


def cases(P):
    """(name, nodes after read_csv "t", {key: pandas' value})"""
    out = []
    full = [op("hh", "getitem", "t", columns="h"),
            {"key": "nh", "op": "logical_not", "inputs": ["hh"]},
            {"key": "g", "op": "dataframe.filter", "inputs": ["t", "hh"]},
            {"key": "full", "op": "dataframe.filter", "inputs": ["t", "nh"]}]
    F, G = P[~P.h], P[P.h]
    nodes, want = list(full), {}
    for v in ("i", "f", "s", "b", "d"):
        for src, ref, tag in (("t", P, "all"), ("full", F, "some"), ("g", G, "holes")):
            k = "%s_%s" % (v, tag)
            nodes.append(op(k, "pivot", src, index="day", columns="city", values=v))
            want[k] = ref.pivot(index="day", columns="city", values=v)
        k = "%s_code" % v
        nodes.append(op(k, "pivot", "t", index=["part", "day"], columns="code", values=v))
        want[k] = P.pivot(index=["part", "day"], columns="code", values=v)
    # the day as columns, the city as index: an int64 columns key
    nodes.append(op("by_city", "pivot", "g", index="city", columns="day", values="i"))
    want["by_city"] = G.pivot(index="city", columns="day", values="i")
    out.append(("pivots", nodes, want))
    out.append(("no_rows", full + [
        op("dd", "getitem", "t", columns="day"),
        {"key": "never", "op": "greater", "inputs": ["dd", 100]},
        {"key": "z", "op": "dataframe.filter", "inputs": ["t", "never"]},
        op("zp", "pivot", "z", index="day", columns="city", values="i")],
        {"zp": P[P.day > 100].pivot(index="day", columns="city", values="i")}))
    for _, _, ws in out:
        for w in ws.values():
            w.columns.name = None  # not carried (docs/graph-format.md)
    return out


def rejects(data):
    base = [{"key": "t", "op": "dataframe.read_csv", "path": "t.csv"}]
    for name, kw, code, words in [
        ("duplicate_pair", {"index": "part", "columns": "city", "values": "i"}, 1,
         ["Index contains duplicate entries, cannot reshape"]),
        ("missing_key", {"index": "f", "columns": "city", "values": "i"}, 1,
         ["key column f has a missing value", "dropna first"]),
        ("no_values", {"index": "day", "columns": "city"}, 2, ["MultiIndex", "values"]),
        ("values_list", {"index": "day", "columns": "city", "values": ["i", "f"]}, 2,
         ["MultiIndex"]),
        ("two_columns", {"index": "day", "columns": ["city", "code"], "values": "i"}, 2,
         ["one column"]),
        ("float_columns_key", {"index": "day", "columns": "f", "values": "i"}, 2,
         ["float64", "int64 or string"]),
        ("index_is_values", {"index": "i", "columns": "city", "values": "i"}, 2,
         ["values"]),
        ("no_index", {"columns": "city", "values": "i"}, 2, ["index"]),
        ("unknown_column", {"index": "day", "columns": "city", "values": "nope"}, 2,
         ["nope"]),
    ]:
        node = dict({"key": "r", "op": "dataframe.pivot", "inputs": ["t"]}, **kw)
        td.expect_refused(data, "reject/" + name, base + [node], code, words)
    # 20,000 rows by 20,000 columns: 4e8 cells, past 2^28 (2 GiB), refused
    # before the table is allocated
    with open(os.path.join(data, "wide.csv"), "w") as f:
        f.write("r,c,v\n" + "".join("%d,%d,1\n" % (q, q) for q in range(20000)))
    td.expect_refused(data, "reject/too_many_cells", [
        {"key": "t", "op": "dataframe.read_csv", "path": "wide.csv"},
        op("r", "pivot", "t", index="r", columns="c", values="v")], 1,
        ["20000 rows by 20000 columns is too large", "2^28 cells"])
    # its columns are known only when it runs: nothing may follow it
    td.expect_refused(data, "reject/op_after", base + [
        op("p", "pivot", "t", index="day", columns="city", values="i"),
        op("r", "sum", "p")], 2, ["fetch it instead"])


def all_cases(data):
    make_csv(os.path.join(data, "t.csv"), np.random.default_rng(43))
    P = pd.read_csv(os.path.join(data, "t.csv"), float_precision="round_trip",
                    parse_dates=["d"])
    td.over_chunkings(data, cases(P), (1, 300, None), parse_dates=["d"], cmp=compare)
    rejects(data)


def main():
    return td.suite_main("pivot_data_", all_cases)


if __name__ == "__main__":
    sys.exit(main())
