#!/usr/bin/python3
"""dataframe.resample through mars-run, against pandas 1.5's
df.resample(rule, on=...).agg(...) and Series.resample(rule).func():
tick rules (h, 15min, 7min, D, 2D) with closed and label left or right,
every origin (epoch, start_day, start, end, end_day, a timestamp) and an
offset; calendar rules (W, W-MON, 2W, M, MS, 2M, 3MS, Q, QS, A, AS);
every aggregation groupby_agg has but idxmin/idxmax, over ints, floats
with NaN, bools, strings, datetimes and timedeltas, empty bins filled as
pandas fills them (0 for count, size, nunique and sum, 1 for prod, NaN
or NaT else, an int column then float64); NaT times dropped; a
DataFrame by its DatetimeIndex and a Series (a Series' ohlc() too);
upsampling (asfreq, ffill, bfill, nearest, interpolate); and the
rejections. Each
case runs on one-row chunks (the groupby's shuffle), small uneven chunks
(its combine tree) and one chunk.

Usage: test_resample.py. Prints `RESULT passed=N failed=M`."""

import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_dates as td  # noqa: E402  (its runner, comparison and report)

op = td.op


def make_csv(path, rng, n):
    """ts: times over ten days at second resolution, some NaT, a quiet day
    (empty bins); wide: times over two years; i ints, x floats with NaN,
    b bools, k strings"""
    base = pd.Timestamp("2024-02-27 05:00:00")
    secs = rng.integers(0, 10 * 86400, n)
    secs = secs[(secs < 4 * 86400) | (secs > 5 * 86400)]  # day 4 holds nothing
    n = len(secs)
    ts = [base + pd.Timedelta(int(s), "s") for s in secs]
    wide = [pd.Timestamp("2023-11-13 08:00") + pd.Timedelta(int(s), "s")
            for s in rng.integers(0, 730 * 86400, n)]
    i = rng.integers(-5, 9, n)
    x = np.round(rng.standard_normal(n) * 3, 2)
    x[rng.random(n) < 0.15] = np.nan
    b = rng.random(n) < 0.5
    k = np.array(["p", "q", "r", "s"])[rng.integers(0, 4, n)]
    with open(path, "w") as f:
        f.write("ts,wide,i,x,b,k\n")
        for r in range(n):
            f.write("%s,%s,%d,%s,%s,%s\n" % (
                "" if r % 13 == 6 else ts[r].isoformat().replace("T", " "),
                "" if r % 17 == 9 else wide[r].isoformat(), i[r],
                "" if np.isnan(x[r]) else repr(float(x[r])), b[r], k[r]))


def rc_node(chunk):
    n = {"key": "t", "op": "dataframe.read_csv", "path": "t.csv", "parse_dates": ["ts", "wide"]}
    if chunk:
        n["chunk_bytes"] = chunk
    return n


def no_freq(ref):
    """pandas' result without its index's freq (the engine's index has
    none)"""
    ref = ref.copy()
    ref.index = pd.DatetimeIndex(ref.index.values, name=ref.index.name)
    return ref


AGGS = {"isum": ["i", "sum"], "imin": ["i", "min"], "imax": ["i", "max"],
        "imean": ["i", "mean"], "icount": ["i", "count"], "isize": ["i", "size"],
        "xsum": ["x", "sum"], "xmean": ["x", "mean"], "xstd": ["x", "std"], "xvar": ["x", "var"],
        "xfirst": ["x", "first"], "xlast": ["x", "last"], "xcount": ["x", "count"],
        "knu": ["k", "nunique"], "kfirst": ["k", "first"], "kmax": ["k", "max"],
        "bmax": ["b", "max"], "bsum": ["b", "sum"], "wmin": ["wide", "min"],
        "wlast": ["wide", "last"], "wcount": ["wide", "count"]}
WHOLE = {"imed": ["i", "median"], "iprod": ["i", "prod"], "xmed": ["x", "median"],
         "xprod": ["x", "prod"], "isum": ["i", "sum"], "bmin": ["b", "min"],
         "bfirst": ["b", "first"], "klast": ["k", "last"]}


def pandas_agg(r, aggs):
    # pandas' resample max of bools is bool where no bin is empty; the
    # engine's is float64 always (docs/graph-format.md)
    out = r.agg(**{k: tuple(v) for k, v in aggs.items()})
    for c, (src, fn) in aggs.items():
        if src == "b" and fn in ("min", "max", "first", "last"):
            out[c] = out[c].astype("float64")
    return no_freq(out)


def cases(P):
    """(name, nodes after read_csv "t", {key: pandas result})"""
    out = []

    def rs(key, rule, aggs=AGGS, src="t", **kw):
        return op(key, "resample", src, rule=rule, on=kw.pop("on", "ts"), agg=aggs, **kw)

    def want(rule, aggs=AGGS, **kw):
        return pandas_agg(P.resample(rule, on=kw.pop("on", "ts"), **kw), aggs)

    out.append(("tick", [rs("h", "h"), rs("m15", "15min"), rs("d1", "D"),
                         rs("hr", "2h", closed="right", label="right"),
                         rs("hl", "2h", label="right"), rs("hc", "3h", closed="right")],
                {"h": want("h"), "m15": want("15min"), "d1": want("D"),
                 "hr": want("2h", closed="right", label="right"),
                 "hl": want("2h", label="right"), "hc": want("3h", closed="right")}))
    small = {"isum": ["i", "sum"], "xmean": ["x", "mean"], "kfirst": ["k", "first"],
             "icount": ["i", "count"]}
    origins = [("o1", "7min", {}), ("o2", "7min", {"origin": "epoch"}),
               ("o3", "7min", {"origin": "start"}), ("o4", "7min", {"origin": "end"}),
               ("o5", "7min", {"origin": "end_day"}),
               ("o6", "7min", {"origin": "2024-01-01 00:03:00"}),
               ("o7", "2h", {"offset": "25min"}), ("o8", "2D", {}),
               ("o9", "2D", {"origin": "start", "closed": "right"}),
               ("o10", "7min", {"origin": "end", "closed": "right", "label": "right"}),
               ("o11", "90min", {"origin": "start_day", "offset": "-10min"}),
               ("o12", "D", {"closed": "right", "label": "right"}),
               ("o13", "3D", {"closed": "right", "origin": "epoch"}),
               ("o14", "2D", {"closed": "right", "label": "right", "origin": "start"}),
               ("o15", "36h", {"closed": "right", "origin": "start"})]
    out.append(("origins", [rs(k, r, small, **kw) for k, r, kw in origins],
                {k: want(r, small, **kw) for k, r, kw in origins}))
    cal = ["W", "W-MON", "2W", "M", "MS", "2M", "3MS", "Q", "QS", "A", "AS", "Y", "2Q"]
    wide = {"isum": ["i", "sum"], "xmax": ["x", "max"], "icount": ["i", "count"],
            "kl": ["k", "last"], "tmin": ["ts", "min"]}
    out.append(("calendar", [rs("c%d" % q, r, wide, on="wide") for q, r in enumerate(cal)],
                {"c%d" % q: want(r, wide, on="wide") for q, r in enumerate(cal)}))
    out.append(("calendar_dense", [rs("w", "W", small), rs("m", "M", small)],
                {"w": want("W", small), "m": want("M", small)}))
    out.append(("whole_funcs", [rs("wh", "h", WHOLE), rs("wd", "3D", WHOLE, on="wide")],
                {"wh": want("h", WHOLE), "wd": want("3D", WHOLE, on="wide")}))
    # timedeltas: sum (0 in an empty bin), min, mean keep the dtype
    D = P.assign(d=P.ts - P.wide)
    tda = {"dsum": ["d", "sum"], "dmin": ["d", "min"], "dmean": ["d", "mean"],
           "dcount": ["d", "count"]}
    out.append(("timedeltas", [
        {"key": "dd", "op": "subtract", "inputs": ["ts", "wd"]},
        op("ts", "getitem", "t", columns="ts"), op("wd", "getitem", "t", columns="wide"),
        op("a", "assign", ["t", "dd"], names=["d"]), rs("r", "6h", tda, src="a")],
        {"r": pandas_agg(D.resample("6h", on="ts"), tda)}))
    # by a DatetimeIndex, and a Series
    S = P.set_index("ts")
    out.append(("index_and_series", [
        op("si", "set_index", "t", keys=["ts"]),
        op("ri", "resample", "si", rule="4h", agg=small),
        op("sx", "getitem", "si", columns="x"),
        op("rs", "resample", "sx", rule="4h", func="mean"),
        op("rc", "resample", "sx", rule="h", func="count", closed="right"),
        op("sk", "getitem", "si", columns="k"),
        op("rk", "resample", "sk", rule="W", func="last"),
        op("ro", "resample", "sx", rule="4h", func="ohlc"),
        op("si2", "getitem", "si", columns="i"),
        op("roi", "resample", "si2", rule="D", func="ohlc", closed="right", label="right"),
        op("sz", "resample", "t", rule="6h", on="ts", func="size"),
        op("szi", "resample", "si", rule="D", func="size")],
        {"ri": pandas_agg(S.resample("4h"), small), "rs": no_freq(S.x.resample("4h").mean()),
         "rc": no_freq(S.x.resample("h", closed="right").count()),
         "rk": no_freq(S.k.resample("W").last()),
         "ro": no_freq(S.x.resample("4h").ohlc()),
         "roi": no_freq(S.i.resample("D", closed="right", label="right").ohlc()),
         "sz": no_freq(P.resample("6h", on="ts").size()),
         "szi": no_freq(S.resample("D").size())}))
    # a resample then more ops: the filled frame is a frame like any other
    H = want("h", small)
    out.append(("then", [rs("h", "h", small), op("f", "filter", ["h", "m"]),
                         {"key": "m", "op": "greater", "inputs": ["hs", 3]},
                         op("hs", "getitem", "h", columns="isum"),
                         op("so", "sort_values", "h", by=["isum"], ascending=False)],
                {"f": H[H.isum > 3], "so": H.sort_values("isum", ascending=False,
                                                         kind="mergesort")}))
    return out


def rejects(data):
    base = [rc_node(None)]
    agg = {"s": ["i", "sum"]}
    for name, extra, words in [
        ("bad_rule", {"rule": "3X", "on": "ts", "agg": agg}, ["\"rule\"", "3X"]),
        ("zero_rule", {"rule": "0min", "on": "ts", "agg": agg}, ["frequency of zero"]),
        ("zero_months", {"rule": "0M", "on": "ts", "agg": agg}, ["zero periods"]),
        ("calendar_closed", {"rule": "M", "on": "ts", "agg": agg, "closed": "left"},
         ["\"closed\"", "rule M"]),
        ("closed_word", {"rule": "h", "on": "ts", "agg": agg, "closed": "middle"},
         ["\"closed\" must be"]),
        ("on_int", {"rule": "h", "on": "i", "agg": agg}, ["\"on\" is int64", "datetime64"]),
        ("index_not_dates", {"rule": "h", "agg": agg}, ["the index is int64"]),
        ("no_agg", {"rule": "h", "on": "ts"}, ["\"agg\" must be an object"]),
        ("func_for_frame", {"rule": "h", "on": "ts", "func": "sum"}, ["\"func\" is for Series"]),
        ("idxmax", {"rule": "h", "on": "ts", "agg": {"s": ["i", "idxmax"]}},
         ["idxmax is not supported by resample"]),
        ("datetime_sum", {"rule": "h", "on": "ts", "agg": {"s": ["wide", "sum"]}},
         ["sum of datetime64[ns] is not defined"]),
        ("string_mean", {"rule": "h", "on": "ts", "agg": {"s": ["k", "mean"]}},
         ["mean of an object column"]),
        ("bad_origin", {"rule": "h", "on": "ts", "agg": agg, "origin": "noon"},
         ["\"origin\" \"noon\""]),
        ("bad_offset", {"rule": "h", "on": "ts", "agg": agg, "offset": "soon"},
         ["\"offset\" must be a timedelta"]),
        ("unknown_field", {"rule": "h", "on": "ts", "agg": agg, "how": "sum"}, ["how"]),
        ("frame_ohlc", {"rule": "h", "on": "ts", "func": "ohlc"}, ["ohlc() is for a Series"]),
    ]:
        node = dict({"key": "r", "op": "dataframe.resample", "inputs": ["t"]}, **extra)
        td.expect_refused(data, "reject/" + name, base + [node], 2, words)
    sx = [rc_node(None), op("sx", "getitem", "t", columns="x")]
    td.expect_refused(data, "reject/on_for_series", sx + [
        op("r", "resample", "sx", rule="h", on="ts", func="sum")], 2, ["\"on\" is for DataFrames"])
    td.expect_refused(data, "reject/agg_for_series", sx + [
        op("r", "resample", "sx", rule="h", agg=agg)], 2, ["\"agg\" is for DataFrames"])
    # bins past the limit fail the job, naming it; bins past the range too
    td.expect_refused(data, "reject/too_many_bins", base + [
        op("r", "resample", "t", rule="1ns", on="ts", agg=agg)], 1,
        ["resample", "limit of 2147483648 bytes"])
    with open(os.path.join(data, "edge.csv"), "w") as f:
        f.write("ts,i\n2262-04-11 23:00:00,1\n")
    td.expect_refused(data, "reject/label_past_range", [
        {"key": "t", "op": "dataframe.read_csv", "path": "edge.csv", "parse_dates": ["ts"]},
        op("r", "resample", "t", rule="D", on="ts", agg=agg, label="right")], 1,
        ["outside datetime64[ns]'s range"])


def empty_input(data):
    """no time at all (every ts NaT): no rows (pandas 1.5 raises
    AttributeError in _adjust_dates_anchored: NaT has no normalize)"""
    with open(os.path.join(data, "nat.csv"), "w") as f:
        f.write("ts,i\n,1\n,2\n")
    nodes = [{"key": "t", "op": "dataframe.read_csv", "path": "nat.csv", "parse_dates": ["ts"]},
             op("r", "resample", "t", rule="h", on="ts", agg={"s": ["i", "sum"]})]
    rc, err, got = td.run(nodes, ["r"], data)
    why = "exit %d: %s" % (rc, err.strip()[:300]) if rc else ""
    if not why and got["r"]["data"] != []:
        why = "rows %r, not none" % (got["r"]["data"],)
    td.report("all_nat", why)


def upsampling(data):
    """asfreq, ffill, bfill, nearest and interpolate: the rows (unsorted,
    unique times, a NaN among them) reindexed at the bins' labels as
    pandas' Resampler does, with tick and calendar rules closed either
    way, on a DataFrame and a Series, compared to the bit and dtype (an int
    column with a missing value float64, a bool one object)"""
    rng = np.random.default_rng(5)
    n = 60
    secs = rng.choice(np.arange(0, 400 * 86400, 3600), n, replace=False)
    ts = pd.Timestamp("2024-01-01 03:00") + pd.to_timedelta(secs, "s")
    with open(os.path.join(data, "u.csv"), "w") as f:
        f.write("ts,x,i,b,k\n")
        for r in range(n):
            x = "" if r == 3 else repr(float(np.round(rng.standard_normal(), 3)))
            f.write("%s,%s,%d,%s,%s\n" % (ts[r].isoformat().replace("T", " "), x,
                                          rng.integers(0, 9), rng.random() < 0.5,
                                          "ab"[rng.integers(0, 2)]))
    P = pd.read_csv(os.path.join(data, "u.csv"), parse_dates=["ts"],
                    float_precision="round_trip").set_index("ts")
    base = [op("si", "set_index", "u", keys=["ts"]), op("sn", "getitem", "si", columns=["x", "i"]),
            op("sx", "getitem", "si", columns="x")]
    nodes, want = list(base), {}
    # (pandas 1.5 fails "5D" closed on the right: Values falls before first bin)
    for rule, ends in (("12h", ("left", "right")), ("36h", ("left", "right")), ("5D", ("left",)),
                       ("W", (None,)), ("M", (None,)), ("MS", (None,)), ("Q", (None,))):
        for closed in ends:
            kw = {"closed": closed} if closed else {}
            for m in ("asfreq", "ffill", "bfill", "nearest", "interpolate"):
                k = "%s_%s_%s" % (rule, closed, m)
                src = "sn" if m == "interpolate" else "si"
                nodes.append(op(k, "resample", src, rule=rule, func=m, **kw))
                want[k] = no_freq(getattr((P[["x", "i"]] if m == "interpolate" else P)
                                          .resample(rule, **kw), m)())
    nodes += [op("s_pad", "resample", "sx", rule="6h", func="pad"),
              op("s_int", "resample", "sx", rule="30min", func="interpolate")]
    want["s_pad"] = no_freq(P.x.resample("6h").ffill())  # (pad: ffill's old name)
    want["s_int"] = no_freq(P.x.resample("30min").interpolate())

    def node(chunk):
        n = {"key": "u", "op": "dataframe.read_csv", "path": "u.csv", "parse_dates": ["ts"]}
        if chunk:
            n["chunk_bytes"] = chunk
        return n
    for chunk in (200, None):
        td.report("upsample/chunk=%s" % chunk, td.run_and_compare([node(chunk)] + nodes, want, data))
    # refused as pandas refuses them: by "on", duplicate times, NaT, strings
    # interpolated
    td.expect_refused(data, "reject/upsample_on", [node(None), op(
        "r", "resample", "u", rule="h", on="ts", func="ffill")], 2,
        ["Upsampling from level= or on= selection is not supported"])
    td.expect_refused(data, "reject/upsample_strings", base[:1] + [node(None), op(
        "r", "resample", "si", rule="h", func="interpolate")], 2,
        ["interpolate takes numbers"])
    with open(os.path.join(data, "dup.csv"), "w") as f:
        f.write("ts,x\n2024-01-01 00:00,1\n2024-01-01 02:00,2\n2024-01-01 00:00,3\n")
    with open(os.path.join(data, "unat.csv"), "w") as f:
        f.write("ts,x\n2024-01-01 00:00,1\n,2\n")
    for name, path, m, words in [
            ("dup_ffill", "dup.csv", "ffill", ["cannot reindex a non-unique index"]),
            ("dup_asfreq", "dup.csv", "asfreq", ["cannot reindex on an axis with duplicate"]),
            ("nat", "unat.csv", "bfill", ["NaT is not supported"])]:
        td.expect_refused(data, "reject/upsample_" + name, [
            {"key": "u", "op": "dataframe.read_csv", "path": path, "parse_dates": ["ts"],
             "chunk_bytes": 20},
            op("si", "set_index", "u", keys=["ts"]),
            op("r", "resample", "si", rule="h", func=m)], 1, words)


def main():
    return td.suite_main("resample_data_", all_cases)


def all_cases(data):
    """every case, on t.csv and its own files in data"""
    make_csv(os.path.join(data, "t.csv"), np.random.default_rng(5), 180)
    P = pd.read_csv(os.path.join(data, "t.csv"), parse_dates=["ts", "wide"])
    cs = cases(P)
    for chunk in (1, 900, None):
        for name, nodes, want in cs:
            td.report("%s/chunk=%s" % (name, chunk),
                      td.run_and_compare([rc_node(chunk)] + nodes, want, data))
    rejects(data)
    empty_input(data)
    upsampling(data)


if __name__ == "__main__":
    sys.exit(main())
