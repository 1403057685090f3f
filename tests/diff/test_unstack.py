#!/usr/bin/python3
"""dataframe.unstack through mars-run, against pandas 1.5's Series.unstack:
Series of two and three index levels (set_index of several columns, a
groupby by several keys), the last level, one by position and one by name
as the columns; values of every type with and without cells no row
reaches (one block: a missing cell makes an int64 Series float64 and a
bool one object; floats, strings, datetimes with NaT), fill_value for those
cells (an integer keeps int64, a float makes it float64, False keeps bools,
a string strings; values already missing stay missing), after a filter and
over no row. Each case runs on one-row chunks, uneven chunks and one chunk,
exactly. Then the refusals: a DataFrame (MultiIndex columns), one level, a
level not found or out of range, a float level, a fill_value of another
type, repeated labels (pandas' "Index contains duplicate entries"), a
missing label, an op after an unstack.

Usage: test_unstack.py. Prints `RESULT passed=N failed=M`."""

import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_dates as td  # noqa: E402  (its runner and report)
import test_pivot  # noqa: E402  (its data: every (day, city) pair once)
from test_rolling_time import compare  # noqa: E402  (exact)

op = td.op


def series(key, src, levels, value):
    """nodes: src's set_index(levels)[value], named key"""
    return [op(key + "_f", "set_index", src, keys=levels),
            op(key, "getitem", key + "_f", columns=value)]


def cases(P):
    """(name, nodes after read_csv "t", {key: pandas' value})"""
    out = []
    full = [op("hh", "getitem", "t", columns="h"),
            {"key": "nh", "op": "logical_not", "inputs": ["hh"]},
            {"key": "g", "op": "dataframe.filter", "inputs": ["t", "hh"]},
            {"key": "some", "op": "dataframe.filter", "inputs": ["t", "nh"]}]
    frames = {"t": P, "some": P[~P.h], "g": P[P.h]}
    nodes, want = list(full), {}
    fills = {"i": [0, 0.5], "f": [-1.0], "s": ["none"], "b": [False], "d": []}
    for v in ("i", "f", "s", "b", "d"):
        for src, ref in frames.items():
            k = "%s_%s" % (v, src)
            nodes += series(k, src, ["day", "city"], v)
            S = ref.set_index(["day", "city"])[v]
            nodes += [op(k + "_u", "unstack", k), op(k + "_0", "unstack", k, level=0),
                      op(k + "_n", "unstack", k, level="day")]
            want[k + "_u"], want[k + "_0"], want[k + "_n"] = \
                S.unstack(), S.unstack(0), S.unstack("day")
            for q, fv in enumerate(fills[v]):
                nodes.append(op("%s_fill%d" % (k, q), "unstack", k, fill_value=fv))
                want["%s_fill%d" % (k, q)] = S.unstack(fill_value=fv)
    # three levels: the middle one as the columns, rows by the other two
    nodes += series("three", "g", ["part", "day", "city"], "i")
    S3 = frames["g"].set_index(["part", "day", "city"])["i"]
    nodes += [op("three_day", "unstack", "three", level="day"),
              op("three_part", "unstack", "three", level=-3, fill_value=7)]
    want["three_day"] = S3.unstack("day")
    want["three_part"] = S3.unstack(-3, fill_value=7)
    # a groupby's results: size and a sum by two keys
    nodes += [{"key": "gs", "op": "dataframe.groupby_size", "inputs": ["g"],
               "by": ["city", "part"]},
              op("gs_u", "unstack", "gs"), op("gs_c", "unstack", "gs", level="city"),
              {"key": "ga", "op": "dataframe.groupby_agg", "inputs": ["t"], "by": ["part", "city"],
               "agg": {"i": ["i", "sum"]}},
              op("ga_f", "getitem", "ga", columns="i"),
              op("ga_u", "unstack", "ga_f", fill_value=0)]
    G = frames["g"]
    want["gs_u"] = G.groupby(["city", "part"]).size().unstack()
    want["gs_c"] = G.groupby(["city", "part"]).size().unstack("city")
    want["ga_u"] = P.groupby(["part", "city"]).i.sum().unstack(fill_value=0)
    out.append(("unstacks", nodes, want))
    out.append(("no_rows", full + [
        op("dd", "getitem", "t", columns="day"),
        {"key": "never", "op": "greater", "inputs": ["dd", 100]},
        {"key": "z", "op": "dataframe.filter", "inputs": ["t", "never"]}] +
        series("zs", "z", ["day", "city"], "i") + [op("zu", "unstack", "zs")],
        {"zu": P[P.day > 100].set_index(["day", "city"])["i"].unstack()}))
    for _, _, ws in out:
        for k, w in ws.items():
            w.columns.name = None  # not carried (docs/graph-format.md)
            # a bool column is named by its values: bool where it has no
            # missing cell (pandas: object, as the whole block; documented)
            for c in w.columns:
                if w[c].dtype == object and w[c].map(lambda x: isinstance(x, bool)).all() \
                        and len(w):
                    w[c] = w[c].astype(bool)
    return out


def rejects(data):
    base = [{"key": "t", "op": "dataframe.read_csv", "path": "t.csv", "parse_dates": ["d"]}]
    two = base + series("s", "t", ["day", "city"], "i")
    for name, nodes, code, words in [
        ("dataframe", base + [op("f", "set_index", "t", keys=["day", "city"]),
                              op("r", "unstack", "f")], 2, ["MultiIndex columns", "Series"]),
        ("one_level", base + [op("c", "getitem", "t", columns="i"), op("r", "unstack", "c")],
         2, ["two or more index levels"]),
        ("level_not_found", two + [op("r", "unstack", "s", level="nope")], 2,
         ["Level nope not found"]),
        ("level_out_of_range", two + [op("r", "unstack", "s", level=2)], 2,
         ["Too many levels", "2 levels"]),
        ("level_list", two + [op("r", "unstack", "s", level=["day"])], 2, ["level"]),
        ("float_level", base + series("s", "t", ["day", "f"], "i") +
         [op("r", "unstack", "s")], 2, ["float64", "int64 or strings"]),
        ("fill_string_for_ints", two + [op("r", "unstack", "s", fill_value="x")], 2,
         ["fill_value", "a string", "int64"]),
        ("fill_number_for_bools", base + series("s", "t", ["day", "city"], "b") +
         [op("r", "unstack", "s", fill_value=0)], 2, ["fill_value", "a number", "bool"]),
        ("fill_for_datetimes", base + series("s", "t", ["day", "city"], "d") +
         [op("r", "unstack", "s", fill_value=0)], 2, ["fill_value", "datetime64[ns]"]),
        ("duplicate_labels", base + series("s", "t", ["part", "city"], "i") +
         [op("r", "unstack", "s")], 1, ["Index contains duplicate entries, cannot reshape"]),
        ("missing_label", base + series("s", "t", ["s", "city"], "i") +
         [op("r", "unstack", "s", level=1)], 1, ["key level s has a missing value",
                                                 "dropna first"]),
        ("op_after", two + [op("u", "unstack", "s"), op("r", "sum", "u")], 2,
         ["fetch it instead"]),
    ]:
        td.expect_refused(data, "reject/" + name, nodes, code, words)


def all_cases(data):
    test_pivot.make_csv(os.path.join(data, "t.csv"), np.random.default_rng(47))
    P = pd.read_csv(os.path.join(data, "t.csv"), float_precision="round_trip",
                    parse_dates=["d"])
    td.over_chunkings(data, cases(P), (1, 300, None), parse_dates=["d"], cmp=compare)
    rejects(data)


def main():
    return td.suite_main("unstack_data_", all_cases)


if __name__ == "__main__":
    sys.exit(main())
