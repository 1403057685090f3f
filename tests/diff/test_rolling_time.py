#!/usr/bin/python3
"""dataframe.rolling over a window of time through mars-run, against
pandas 1.5's df.rolling("2h", on="ts", closed=...).agg() and
Series.rolling("2h").agg(): every aggregation (sum, mean, min, max, std,
var, count, median, quantile with each interpolation) and every closed
end (right, left, both, neither), windows from "0s" to "1D", min_periods,
times with repeats and gaps, rising and falling, by a datetime column, a
timedelta column and a DatetimeIndex, and by groups (pandas'
groupby(k).rolling("2h", on="ts")); ewm weighted by the time between
rows (pandas' ewm(halflife="2h", times=...)); and the rejections (a
calendar window, a negative one, times that are not datetimes, NaT, times
out of order). Each case runs on one-row chunks, small uneven chunks and
one chunk, and the values must be pandas' to the bit: the carry holds
pandas' own window state (its Kahan sums and Welford variance).

Usage: test_rolling_time.py. Prints `RESULT passed=N failed=M`."""

import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_dates as td  # noqa: E402  (its runner and report)

op = td.op
AGGS = ["sum", "mean", "min", "max", "std", "var", "count", "median", "skew", "kurt"]
QUANTILES = [(0.25, "linear"), (0.5, "lower"), (0.9, "higher"), (0.5, "nearest"),
             (0.3, "nearest"), (0.75, "midpoint"), (0.0, "linear"), (1.0, "linear")]


def make_csv(path, rng, n, falling=False):
    """ts: rising times, gaps of 0 s (repeats) to 2 h, a quiet day; i
    ints, x floats with NaN and runs of one value, y large and small
    magnitudes (Kahan's compensation matters), d the time since the first"""
    gaps = rng.choice([0, 1, 7, 60, 600, 1800, 3600, 7200], n)
    gaps[n // 2] = 86400
    secs = np.cumsum(gaps)
    ts = pd.Timestamp("2024-03-01 06:00:00") + pd.to_timedelta(secs, "s")
    i = rng.integers(-50, 50, n)
    x = np.round(rng.standard_normal(n) * 3, 2)
    x[rng.random(n) < 0.15] = np.nan
    x[10:16] = 2.5
    y = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 12, n)
    k = rng.choice(["north", "south", "\u00e9t\u00e9", ""], n, p=[0.45, 0.3, 0.2, 0.05])
    order = range(n - 1, -1, -1) if falling else range(n)
    with open(path, "w") as f:
        f.write("ts,i,x,y,d,k\n")
        for r in order:
            f.write("%s,%d,%s,%r,%s,%s\n" % (ts[r].isoformat().replace("T", " "), i[r],
                                             "" if np.isnan(x[r]) else repr(float(x[r])),
                                             float(y[r]), ts[r] - ts[0], k[r]))


def rc_node(chunk, path="t.csv"):
    n = {"key": "t", "op": "dataframe.read_csv", "path": path, "parse_dates": ["ts"]}
    if chunk:
        n["chunk_bytes"] = chunk
    return n


def compare(got, ref):
    """test_dates' comparison, to the bit"""
    try:
        g = td.as_pandas(got)
        if isinstance(ref, pd.Series):
            pd.testing.assert_series_equal(g, ref, check_exact=True, check_index_type=False,
                                           check_freq=False)
        else:
            pd.testing.assert_frame_equal(g, ref, check_exact=True, check_index_type=False,
                                          check_freq=False)
        return ""
    except (AssertionError, ValueError, TypeError, KeyError) as e:
        return str(e).replace("\n", " ")[:500]


def run_and_compare(nodes, want, data):
    return td.run_and_compare(nodes, want, data, cmp=compare)


def cases(P):
    """(name, nodes after read_csv "t", {key: pandas result})"""
    out = []
    F = P[["ts", "i", "x", "y"]]
    base = [op("f", "getitem", "t", columns=["ts", "i", "x", "y"])]
    for closed in ("right", "left", "both", "neither"):
        nodes, want = list(base), {}
        for w in ("2h", "30min", "1D", "90s", "0s"):
            for a in AGGS:
                k = "%s_%s" % (w, a)
                nodes.append(op(k, "rolling", "f", window=w, on="ts", closed=closed, agg=a))
                want[k] = getattr(F.rolling(w, on="ts", closed=closed), a)()
        out.append(("closed_" + closed, nodes, want))
    nodes, want = list(base), {}
    for mp in (0, 3):
        for a in AGGS:
            k = "mp%d_%s" % (mp, a)
            nodes.append(op(k, "rolling", "f", window="3h", on="ts", min_periods=mp, agg=a))
            want[k] = getattr(F.rolling("3h", on="ts", min_periods=mp), a)()
    out.append(("min_periods", nodes, want))
    nodes, want = list(base), {}
    for i, (q, how) in enumerate(QUANTILES):
        closed = ("right", "left", "both", "neither")[i % 4]
        nodes.append(op("q%d" % i, "rolling", "f", window="3h", on="ts", closed=closed,
                        agg="quantile", quantile=q, interpolation=how))
        want["q%d" % i] = F.rolling("3h", on="ts", closed=closed).quantile(q, interpolation=how)
    out.append(("quantile", nodes, want))
    # by a DatetimeIndex (a frame and a Series), by a timedelta column
    S = P.set_index("ts")
    nodes = [op("si", "set_index", "t", keys=["ts"]),
             op("sf", "getitem", "si", columns=["i", "x"]),
             op("sx", "getitem", "si", columns="x"),
             op("ds", "getitem", "t", columns="d"), op("dd", "to_timedelta", "ds"),
             op("da", "assign", ["t", "dd"], names=["d"]),
             op("td", "getitem", "da", columns=["d", "x", "y"])]
    want = {}
    for a in AGGS:
        nodes += [op("fi_" + a, "rolling", "sf", window="4h", agg=a),
                  op("sx_" + a, "rolling", "sx", window="45min", closed="both", agg=a),
                  op("td_" + a, "rolling", "td", window="2h", on="d", agg=a)]
        want["fi_" + a] = getattr(S[["i", "x"]].rolling("4h"), a)()
        want["sx_" + a] = getattr(S.x.rolling("45min", closed="both"), a)()
        want["td_" + a] = getattr(P[["d", "x", "y"]].rolling("2h", on="d"), a)()
    out.append(("index_series_timedelta", nodes, want))
    # pandas 1.5 sorts the columns but "on" by name and puts "on" back
    # where it was (Index.difference, then _insert_on_column)
    O = P[["y", "x", "ts", "i"]]
    out.append(("column_order", [op("o", "getitem", "t", columns=["y", "x", "ts", "i"]),
                                 op("r", "rolling", "o", window="2h", on="ts", agg="sum"),
                                 op("c", "rolling", "o", window="2h", on="ts", agg="count")],
                {"r": O.rolling("2h", on="ts").sum(), "c": O.rolling("2h", on="ts").count()}))
    # ewm weighted by the time between rows: pandas' ewm(halflife=...,
    # times=...), the times column left out of the result
    nodes, want = list(base), {}
    for q, kw in enumerate(({"halflife": "2h"}, {"halflife": "30min", "span": 5},
                            {"halflife": "1 days", "com": 0.5, "ignore_na": True},
                            {"halflife": "90s", "min_periods": 3})):
        for agg in ("mean", "sum", "std"):
            k = "ew%d%s" % (q, agg)
            nodes.append(op(k, "ewm", "f", times="ts", agg=agg, **kw))
            want[k] = getattr(F.drop(columns="ts").ewm(times=F.ts, **kw), agg)()
    # by groups: pandas' groupby(k).ewm(halflife, times=...), each group's
    # times apart, the keys in the index
    G = P[["ts", "k", "i", "x", "y"]]
    nodes.append(op("g", "getitem", "t", columns=["ts", "k", "i", "x", "y"]))
    for q, kw in enumerate(({"halflife": "2h"}, {"halflife": "15min", "min_periods": 2})):
        for agg in ("mean", "sum"):
            k = "ewg%d%s" % (q, agg)
            nodes.append(op(k, "ewm", "g", times="ts", by="k", agg=agg, **kw))
            want[k] = getattr(G.drop(columns="ts").groupby("k").ewm(times=G.ts, **kw), agg)()
    out.append(("ewm_times", nodes, want))
    # by groups: pandas' groupby(k).rolling("2h", on="ts"), each group's
    # windows alone (its GroupbyIndexer), keys missing in some rows
    G = P[["ts", "k", "i", "x", "y"]]
    for closed in ("right", "left", "both", "neither"):
        nodes = [op("g", "getitem", "t", columns=["ts", "k", "i", "x", "y"])]
        want = {}
        for a in AGGS:
            key = "g_%s" % a
            nodes.append(op(key, "rolling", "g", window="2h", on="ts", by="k", closed=closed,
                            agg=a))
            want[key] = getattr(G.groupby("k").rolling("2h", on="ts", closed=closed), a)()
        out.append(("groupby_" + closed, nodes, want))
    SG = P.set_index("ts")[["x", "k", "y"]]
    out.append(("groupby_index_two_keys", [
        op("si", "set_index", "t", keys=["ts"]), op("sg", "getitem", "si", columns=["x", "k", "y"]),
        op("a", "rolling", "sg", window="90min", by=["k"], min_periods=2, agg="mean"),
        op("b", "rolling", "g", window="1D", on="ts", by=["k", "i"], agg="sum"),
        op("c", "rolling", "g", window="3h", on="ts", by="k", agg="quantile", quantile=0.3,
           interpolation="nearest"),
        op("ax", "getitem", "a", columns="x"),
        op("g", "getitem", "t", columns=["ts", "k", "i", "x", "y"])], {
        "a": SG.groupby("k").rolling("90min", min_periods=2).mean(),
        "b": G.groupby(["k", "i"]).rolling("1D", on="ts").sum(),
        "c": G.groupby("k").rolling("3h", on="ts").quantile(0.3, interpolation="nearest"),
        "ax": SG.groupby("k").rolling("90min", min_periods=2).mean()["x"]}))
    # a rolling then more ops
    R = F.rolling("2h", on="ts").mean()
    out.append(("then", base + [op("r", "rolling", "f", window="2h", on="ts", agg="mean"),
                         op("rx", "getitem", "r", columns="x"),
                         {"key": "g", "op": "greater", "inputs": ["rx", 0]},
                         op("fl", "filter", ["r", "g"])],
                {"fl": R[R.x > 0]}))
    return out


def falling(data):
    """falling times: each window looks the other way (pandas'
    index_growth_sign)"""
    make_csv(os.path.join(data, "down.csv"), np.random.default_rng(8), 150, falling=True)
    P = pd.read_csv(os.path.join(data, "down.csv"), parse_dates=["ts"], float_precision="round_trip")[["ts", "i", "x", "y"]]
    nodes, want = [], {}
    for closed in ("right", "left", "both", "neither"):
        for a in AGGS:
            k = "%s_%s" % (closed, a)
            nodes.append(op(k, "rolling", "t", window="2h", on="ts", closed=closed, agg=a))
            want[k] = getattr(P.rolling("2h", on="ts", closed=closed), a)()
    # each group falling: pandas' groups look their own way
    G = pd.read_csv(os.path.join(data, "down.csv"), parse_dates=["ts"],
                    float_precision="round_trip")[["ts", "k", "x"]]
    for a in AGGS:
        nodes.append(op("g_" + a, "rolling", "tg", window="2h", on="ts", by="k", agg=a))
        want["g_" + a] = getattr(G.groupby("k").rolling("2h", on="ts"), a)()
    pick = [op("t", "getitem", "t0", columns=["ts", "i", "x", "y"]),
            op("tg", "getitem", "t0", columns=["ts", "k", "x"])]
    for chunk in (1, 700, None):
        src = dict(rc_node(chunk, "down.csv"), key="t0")
        td.report("falling/chunk=%s" % chunk, run_and_compare([src] + pick + nodes, want, data))


def rejects(data):
    base = [rc_node(None)]
    for name, extra, words in [
        ("calendar", {"window": "M", "on": "ts"}, ["non-fixed frequency"]),
        ("week", {"window": "W", "on": "ts"}, ["non-fixed frequency"]),
        ("negative", {"window": "-1h", "on": "ts"}, ["negative"]),
        ("not_a_span", {"window": "soon", "on": "ts"}, ["not a span of time"]),
        ("on_int", {"window": "h", "on": "i"}, ["\"on\" is int64", "datetime64"]),
        ("index_ints", {"window": "h"}, ["the index is int64"]),
        ("closed_word", {"window": "h", "on": "ts", "closed": "middle"}, ["closed must be"]),
        ("center", {"window": "h", "on": "ts", "center": True}, ["center"]),
        ("rows_on", {"window": 3, "on": "ts"}, ["\"on\" is for windows of time"]),
        ("rows_closed_center", {"window": 3, "closed": "left", "center": True},
         ["\"closed\" with \"center\""]),
        ("rows_closed_word", {"window": 3, "closed": "middle"}, ["closed must be"]),
        # pandas 1.5 drops a datetime column from a window of rows; the
        # engine once rolled its nanoseconds
        ("rows_datetime", {"window": 3}, ["column 'ts' is datetime64[ns]",
                                          "select the numeric columns first"]),
        ("agg", {"window": "h", "on": "ts", "agg": "mode"}, ["\"agg\" must be"]),
        ("quantile_range", {"window": "h", "on": "ts", "agg": "quantile", "quantile": 1.5},
         ["quantile value", "not in [0, 1]"]),
        ("quantile_missing", {"window": "h", "on": "ts", "agg": "quantile"},
         ["\"quantile\" must be a number"]),
        ("interpolation", {"window": "h", "on": "ts", "agg": "quantile", "quantile": 0.5,
                           "interpolation": "cubic"}, ["interpolation must be"]),
        ("quantile_for_sum", {"window": "h", "on": "ts", "quantile": 0.5},
         ["are for agg quantile"]),
        ("min_periods", {"window": "h", "on": "ts", "min_periods": -1}, ["min_periods"]),
        ("by_on", {"window": "h", "on": "ts", "by": "ts"}, ["\"on\" names a key"]),
        ("by_center", {"window": "h", "on": "ts", "by": "i", "center": True}, ["center"]),
    ]:
        node = dict({"key": "r", "op": "dataframe.rolling", "inputs": ["f"], "agg": "sum"},
                    **extra)
        td.expect_refused(data, "reject/" + name,
                          base + [op("f", "getitem", "t", columns=["ts", "i", "x"]), node], 2,
                          words)
    for name, extra, words in [
            ("ewm_times_ints", {"times": "i", "halflife": "1h"}, ["times must be datetime64"]),
            ("ewm_halflife_number", {"times": "ts", "halflife": 3}, ["timedelta convertible"]),
            ("ewm_halflife_no_times", {"halflife": "1h"}, ["if times is not None"]),
            ("ewm_times_not_adjusted", {"times": "ts", "halflife": "1h", "adjust": False},
             ["times is not supported with adjust=False"]),
            ("ewm_times_key", {"times": "ts", "halflife": "1h", "by": "ts"},
             ["\"times\" names a key"])]:
        td.expect_refused(data, "reject/" + name, base + [
            op("f", "getitem", "t", columns=["ts", "i", "x"]),
            dict({"key": "r", "op": "dataframe.ewm", "inputs": ["f"]}, **extra)], 2, words)
    td.expect_refused(data, "reject/timedelta_column", base + [
        op("ds", "getitem", "t", columns="d"), op("dd", "to_timedelta", "ds"),
        op("da", "assign", ["t", "dd"], names=["d"]),
        op("r", "rolling", "da", window="h", on="ts", agg="sum")], 2,
        ["column 'd' is timedelta64[ns]", "select the numeric columns first"])
    # times out of order, or missing, fail the job as pandas raises
    with open(os.path.join(data, "bad.csv"), "w") as f:
        f.write("ts,i\n2024-01-01 00:00,1\n2024-01-01 01:00,2\n2024-01-01 00:30,3\n"
                "2024-01-01 02:00,4\n")
    with open(os.path.join(data, "nat.csv"), "w") as f:
        f.write("ts,i\n2024-01-01 00:00,1\n,2\n2024-01-01 02:00,4\n")
    for name, path, words in [("unordered", "bad.csv", ["ts values must be monotonic"]),
                              ("nat", "nat.csv", ["ts values must not have NaT"])]:
        for chunk in (1, None):
            td.expect_refused(data, "reject/%s/chunk=%s" % (name, chunk), [
                rc_node(chunk, path), op("r", "rolling", "t", window="h", on="ts", agg="sum")],
                1, words)
    # by groups: each group's times must be monotonic (pandas' words), and
    # NaT fails even in a row of no group, as pandas checks before grouping
    with open(os.path.join(data, "gbad.csv"), "w") as f:
        f.write("ts,k,i\n2024-01-01 00:00,a,1\n2024-01-01 01:00,b,2\n2024-01-01 00:30,a,3\n"
                "2024-01-01 00:10,a,4\n2024-01-01 02:00,b,5\n")
    with open(os.path.join(data, "gnat.csv"), "w") as f:
        f.write("ts,k,i\n2024-01-01 00:00,a,1\n,,2\n2024-01-01 02:00,b,4\n")
    for name, path, words in [
            ("group_unordered", "gbad.csv",
             ["Each group within ts must be monotonic. Sort the values in ts first."]),
            ("group_nat", "gnat.csv", ["ts values must not have NaT"])]:
        for chunk in (1, None):
            td.expect_refused(data, "reject/%s/chunk=%s" % (name, chunk), [
                rc_node(chunk, path),
                op("r", "rolling", "t", window="h", on="ts", by="k", agg="sum")], 1, words)
    td.expect_refused(data, "reject/ewm_times_nat", [
        rc_node(1, "nat.csv"), op("r", "ewm", "t", times="ts", halflife="1h")], 1,
        ["Cannot convert NaT values to integer"])


def main():
    return td.suite_main("rolling_time_data_", all_cases)


def all_cases(data):
    """every case, on t.csv and its own files in data"""
    make_csv(os.path.join(data, "t.csv"), np.random.default_rng(4), 160)
    P = pd.read_csv(os.path.join(data, "t.csv"), parse_dates=["ts"], float_precision="round_trip")
    P["d"] = pd.to_timedelta(P["d"])
    cs = cases(P)
    for chunk in (1, 900, None):
        for name, nodes, want in cs:
            td.report("%s/chunk=%s" % (name, chunk),
                      run_and_compare([rc_node(chunk)] + nodes, want, data))
    falling(data)
    rejects(data)


if __name__ == "__main__":
    sys.exit(main())
