#!/usr/bin/python3
"""dataframe.interpolate through mars-run, against pandas 1.5's
DataFrame.interpolate and Series.interpolate: method linear (the rows'
positions), index and values (a float index, a default index with gaps
after a filter, a datetime index) and time; every limit_direction and
limit_area with and without a limit; runs of missing values longer than
many chunks, at the start and the end, a column with no value at all,
infinite values (np.interp's NaN slope tried from the other end), and the
columns pandas leaves alone (ints, bools, strings). Each case runs on
one-row chunks, small uneven chunks and one chunk, and the values must be
pandas' to the bit. Then the rejections, at validation and when a job
meets an index that does not increase or holds NaN.

Usage: test_interpolate.py. Prints `RESULT passed=N failed=M`."""

import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_dates as td  # noqa: E402  (its runner and report)
from test_rolling_time import compare  # noqa: E402  (to the bit)

op = td.op


def make_csv(path, rng, n):
    """ts: rising times, gaps of 1 s to 3 h; xi: a rising float; f: runs
    of NaN from 1 to 30 rows, a leading and a trailing run; g: NaN and
    +-inf; z: no value at all; e: no NaN; k ints, b bools, s strings with
    missing ones"""
    ts = np.datetime64("2024-03-01T00:00:00") + np.cumsum(
        rng.integers(1, 3 * 3600, n)).astype("timedelta64[s]")
    xi = np.round(np.cumsum(rng.uniform(0.001, 5.0, n)), 4)
    f = np.round(rng.standard_normal(n) * 100, 3)
    i = 0
    while i < n:
        run = int(rng.integers(1, 31)) if rng.random() < 0.3 else 0
        f[i:i + run] = np.nan
        i += run + int(rng.integers(1, 6))
    f[:7] = np.nan
    f[-9:] = np.nan
    g = np.round(rng.standard_normal(n), 6)
    g[rng.random(n) < 0.3] = np.nan
    g[rng.random(n) < 0.06] = np.inf
    g[rng.random(n) < 0.04] = -np.inf
    # np.interp between inf and inf: NaN from either end, then inf
    g[100:109] = [np.inf, np.nan, np.nan, np.inf, np.nan, -np.inf, np.nan, 2.0, np.nan]
    s = np.array(["a", "b", "\u00e9t\u00e9"], dtype=object)[rng.integers(0, 3, n)]
    s[rng.random(n) < 0.2] = None
    pd.DataFrame({"ts": ts, "xi": xi, "f": f, "g": g, "z": np.full(n, np.nan),
                  "e": rng.standard_normal(n), "k": rng.integers(0, 4, n),
                  "b": rng.random(n) < 0.5, "s": s}).to_csv(path, index=False)


def rc_node(chunk):
    n = {"key": "t", "op": "dataframe.read_csv", "path": "t.csv", "parse_dates": ["ts"]}
    if chunk:
        n["chunk_bytes"] = chunk
    return n


def cases(P):
    """(name, nodes after the read, {key: pandas' value})"""
    out = []
    num = ["f", "g", "z", "e"]
    nodes = [op("nf", "getitem", "t", columns=num + ["k", "b", "s"]),
             op("a", "interpolate", "nf"), op("fs", "getitem", "t", columns="f")]
    want = {"a": P[num + ["k", "b", "s"]].interpolate()}
    j = 0
    for d in ("forward", "backward", "both"):
        for area in (None, "inside", "outside"):
            for lim in (None, 1, 4):
                kw = {"limit_direction": d}
                if area:
                    kw["limit_area"] = area
                if lim:
                    kw["limit"] = lim
                nodes.append(op("o%d" % j, "interpolate", "fs", **kw))
                want["o%d" % j] = P.f.interpolate(**kw)
                j += 1
    out.append(("linear", nodes, want))

    X = P.set_index("xi")[["f", "g"]]
    nodes = [op("xi", "set_index", "t", keys="xi"), op("xf", "getitem", "xi", columns=["f", "g"])]
    want = {}
    for j, (m, kw) in enumerate([("index", {}), ("values", {"limit": 3}),
                                 ("index", {"limit_direction": "both", "limit": 2}),
                                 ("values", {"limit_direction": "backward",
                                             "limit_area": "inside"})]):
        nodes.append(op("x%d" % j, "interpolate", "xf", method=m, **kw))
        want["x%d" % j] = X.interpolate(method=m, **kw)
    out.append(("float_index", nodes, want))

    T = P.set_index("ts")[["f", "g", "s"]]
    nodes = [op("ti", "set_index", "t", keys="ts"),
             op("tf", "getitem", "ti", columns=["f", "g", "s"]),
             op("y0", "interpolate", "tf", method="time"),
             op("y1", "interpolate", "tf", method="index", limit_direction="both"),
             op("y2", "interpolate", "tf", method="time", limit=2, limit_area="outside"),
             op("tg", "getitem", "ti", columns="g"),
             op("y3", "interpolate", "tg", method="time", limit_direction="backward")]
    want = {"y0": T.interpolate(method="time"),
            "y1": T.interpolate(method="index", limit_direction="both"),
            "y2": T.interpolate(method="time", limit=2, limit_area="outside"),
            "y3": T.g.interpolate(method="time", limit_direction="backward")}
    out.append(("time", nodes, want))

    # after a filter: a default index with gaps, its labels the x of
    # method index, and rows each chunk learns only when it runs
    F = P[P.k != 2][["f", "g"]]
    nodes = [op("kk", "getitem", "t", columns="k"),
             {"key": "m", "op": "not_equal", "inputs": ["kk", 2]},
             {"key": "fl", "op": "dataframe.filter", "inputs": ["t", "m"]},
             op("ff", "getitem", "fl", columns=["f", "g"]),
             op("w0", "interpolate", "ff", method="index"),
             op("w1", "interpolate", "ff", limit=5, limit_direction="both"),
             op("rs", "reset_index", "ff", drop=True),
             op("w2", "interpolate", "rs", method="index", limit_area="inside")]
    want = {"w0": F.interpolate(method="index"),
            "w1": F.interpolate(limit=5, limit_direction="both"),
            "w2": F.reset_index(drop=True).interpolate(method="index", limit_area="inside")}
    out.append(("filtered", nodes, want))
    return out


def rejects(data):
    base = [rc_node(None)]
    for name, extra, src, words in [
        ("method", {"method": "nearest"}, "nf", ["\"method\" must be linear, index"]),
        ("pad", {"method": "pad"}, "nf", ["fillna"]),
        ("limit_zero", {"limit": 0}, "nf", ["Limit must be greater than 0"]),
        ("limit_float", {"limit": 1.5}, "nf", ["Limit must be an integer"]),
        ("direction", {"limit_direction": "up"}, "nf", ["Invalid limit_direction"]),
        ("area", {"limit_area": "middle"}, "nf", ["Invalid limit_area"]),
        ("axis", {"axis": 1}, "nf", ["axis"]),
        ("time_ints", {"method": "time"}, "nf", ["DatetimeIndex"]),
        ("index_strings", {"method": "index"}, "si", ["the index is object", "numeric"]),
        ("multiindex", {"method": "values"}, "mi", ["Only `method=linear`"]),
        ("datetime_column", {}, "t", ["Invalid fill method", "ts", "datetime64[ns]"]),
        ("strings_only", {}, "ss", ["Cannot interpolate with all object-dtype columns"]),
        ("unknown", {"order": 2}, "nf", ["order"]),
    ]:
        node = dict({"key": "r", "op": "dataframe.interpolate", "inputs": [src]}, **extra)
        td.expect_refused(data, "reject/" + name,
                          base + [op("nf", "getitem", "t", columns=["f", "k"]),
                                  op("si", "set_index", "t", keys="s"),
                                  op("mi", "set_index", "t", keys=["k", "xi"]),
                                  op("ss", "getitem", "t", columns=["s"]), node], 2, words)
    # the index read as x must rise from row to row, and hold no NaN:
    # checked by the jobs, across chunks too
    for name, chunk, keys, words in [
        ("falling_index", 900, "k", ["increases from row to row", "sort_index"]),
        ("repeated_times", 1, "k", ["increases from row to row"]),
        ("nan_index", None, "g", ["Interpolation with NaNs in the index"]),
    ]:
        node = {"key": "r", "op": "dataframe.interpolate", "inputs": ["q"], "method": "index"}
        td.expect_refused(data, "reject/" + name,
                          [rc_node(chunk), op("q0", "set_index", "t", keys=keys),
                           op("q", "getitem", "q0", columns=["f"]), node], 1, words)


def all_cases(data):
    make_csv(os.path.join(data, "t.csv"), np.random.default_rng(9), 240)
    P = pd.read_csv(os.path.join(data, "t.csv"), parse_dates=["ts"], float_precision="round_trip")
    cs = cases(P)
    for chunk in (1, 900, None):
        for name, nodes, want in cs:
            td.report("%s/chunk=%s" % (name, chunk),
                      td.run_and_compare([rc_node(chunk)] + nodes, want, data, cmp=compare))
    rejects(data)


def main():
    return td.suite_main("interpolate_data_", all_cases)


if __name__ == "__main__":
    sys.exit(main())
