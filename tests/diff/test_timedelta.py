#!/usr/bin/python3
"""Timedeltas through mars-run, against pandas 1.5: a difference of two
datetime columns is timedelta64[ns] (NaT where either is NaT); datetimes
plus and minus timedeltas; timedeltas added, subtracted, negated, abs'd,
where and mask of datetimes and timedeltas (NaT where a value is
missing, as pandas' s.where(cond)), astype int64 (the nanoseconds; str
and float refused), multiplied and divided by numbers
(int and float columns with NaN,
literals, by zero), divided, floor-divided and taken modulo by
timedeltas; comparisons with timedeltas and with literals in pandas'
forms ("1 days 02:00:00", "-1 days +23:00:00", "2h30min"); a date
literal subtracted from a datetime Series; the dt accessor's days,
seconds, microseconds, nanoseconds and total_seconds; timedeltas carried
by assign, filter, sort_values, head, shift and concat, and beside
astype of other columns and through melt; JSON and to_csv
as pandas writes them (whole days as "N days"); a datetime or timedelta
Series' min, max and count skipping NaT; to_timedelta of strings and of
numbers with a unit; and the rejections (datetime +
datetime, datetime * 2, timedelta + 1, timedelta * timedelta, an ordering
against a number, a datetime field of a timedelta and back, a literal
that is no timedelta, a sum past datetime64[ns]'s range). Each case runs
on one-row chunks, small uneven chunks and one chunk.

Usage: test_timedelta.py. Prints `RESULT passed=N failed=M`."""

import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_dates as td  # noqa: E402  (its runner, comparison and report)

op = td.op


def make_csv(path, rng, n):
    """start and end datetimes (NaT in some rows, fractions down to the
    nanosecond, end before start in some rows), an int n (zeros among
    them), a float x with NaN, a string k"""
    base = pd.Timestamp("2023-06-01")
    start = base + pd.to_timedelta(rng.integers(0, 400 * 86400, n), unit="s")
    frac = rng.integers(0, 1000, n)
    start = [s + pd.Timedelta(int(frac[i]) * [0, 10 ** 6, 1000, 1][i % 4], "ns")
             for i, s in enumerate(start)]
    span = rng.integers(-3 * 86400, 30 * 86400, n)
    end = [s + pd.Timedelta(int(span[i]), "s") + pd.Timedelta(int(frac[-i - 1]) * (i % 3), "us")
           for i, s in enumerate(start)]
    for i in range(0, n, 9):
        end[i] = end[i].normalize()
        start[i] = start[i].normalize()
    ns = rng.integers(-3, 5, n)
    x = np.round(rng.standard_normal(n) * 4, 3)
    x[rng.random(n) < 0.1] = np.nan
    k = np.array(["a", "b", "c"])[rng.integers(0, 3, n)]
    with open(path, "w") as f:
        f.write("start,end,n,x,k\n")
        for i in range(n):
            s = "" if i % 7 == 3 else start[i].isoformat().replace("T", " ")
            e = "" if i % 11 == 5 else end[i].isoformat()
            f.write("%s,%s,%d,%s,%s\n" % (s, e, ns[i], "" if np.isnan(x[i]) else repr(x[i]),
                                          k[i]))


def rc_node(chunk, key="t"):
    n = {"key": key, "op": "dataframe.read_csv", "path": "t.csv", "parse_dates": ["start", "end"]}
    if chunk:
        n["chunk_bytes"] = chunk
    return n


def sub(key, a, b):
    return {"key": key, "op": "subtract", "inputs": [a, b]}


def ew(key, name, *inputs):
    return {"key": key, "op": name, "inputs": list(inputs)}


def lit(v):
    return {"value": v}


def cases(P):
    """(name, nodes after read_csv "t", {key: pandas result})"""
    s, e, n, x = P.start, P.end, P.n, P.x
    d = e - s
    d2 = e - pd.Timestamp("2023-09-01 12:00:00")  # no zero: pandas' 0 // 0
    base = [op("s", "getitem", "t", columns="start"), op("e", "getitem", "t", columns="end"),
            op("n", "getitem", "t", columns="n"), op("x", "getitem", "t", columns="x"),
            sub("d", "e", "s"), sub("d2", "e", lit("2023-09-01 12:00:00"))]
    out = [("difference", base, {"d": d, "d2": d2})]
    out.append(("datetime_plus_minus", base + [
        ew("p1", "add", "s", "d"), ew("p2", "add", "d", "s"), sub("p3", "e", "d"),
        ew("p4", "add", "s", lit("1 days 02:00:00")), sub("p5", "s", lit("2h30min")),
        ew("p6", "add", lit("-1 days +23:00:00"), "e"), sub("p7", lit("2024-01-01"), "s")],
        {"p1": s + d, "p2": d + s, "p3": e - d, "p4": s + pd.Timedelta("1 days 02:00:00"),
         "p5": s - pd.Timedelta("2h30min"), "p6": pd.Timedelta("-1 days +23:00:00") + e,
         "p7": pd.Timestamp("2024-01-01") - s}))
    out.append(("timedelta_arithmetic", base + [
        ew("a1", "add", "d", "d2"), sub("a2", "d", "d2"), ew("a3", "negative", "d"),
        ew("a4", "abs", "d"), ew("a5", "add", "d", lit("90min")),
        sub("a6", "d", lit("1 days"))],
        {"a1": d + d2, "a2": d - d2, "a3": -d, "a4": abs(d), "a5": d + pd.Timedelta("90min"),
         "a6": d - pd.Timedelta("1 days")}))
    out.append(("by_numbers", base + [
        ew("m1", "multiply", "d", 1.5), ew("m2", "multiply", 3, "d"), ew("m3", "multiply", "d", "n"),
        ew("m4", "multiply", "x", "d"), ew("q1", "divide", "d", 2), ew("q2", "divide", "d", 0),
        ew("q3", "divide", "d", "x"), ew("q4", "divide", "d", "n"), ew("q5", "divide", "d", 2.5),
        ew("f1", "floor_divide", "d", 3), ew("f2", "floor_divide", "d", -2.5)],
        {"m1": d * 1.5, "m2": 3 * d, "m3": d * n, "m4": x * d, "q1": d / 2, "q2": d / 0,
         "q3": d / x, "q4": d / n, "q5": d / 2.5, "f1": d // 3, "f2": d // -2.5}))
    out.append(("by_timedeltas", base + [
        ew("r1", "divide", "d", "d2"), ew("r2", "floor_divide", "d", "d2"),
        ew("r3", "mod", "d", "d2"), ew("r4", "divide", "d", lit("1h")),
        ew("r5", "floor_divide", "d", lit("1 days")), ew("r6", "mod", "d", lit("1 days"))],
        {"r1": d / d2, "r2": d // d2, "r3": d % d2, "r4": d / pd.Timedelta("1h"),
         "r5": d // pd.Timedelta("1 days"), "r6": d % pd.Timedelta("1 days")}))
    out.append(("comparisons", base + [
        ew("c1", "greater", "d", lit("1 days")), ew("c2", "equal", "d", "d2"),
        ew("c3", "not_equal", "d", "d2"), ew("c4", "less_equal", "d", lit("-1 days +23:00:00")),
        ew("c5", "less", lit("2 days 00:00:00.5"), "d"), ew("c6", "greater_equal", "s", "e")],
        {"c1": d > pd.Timedelta("1 days"), "c2": d == d2, "c3": d != d2,
         "c4": d <= pd.Timedelta("-1 days +23:00:00"), "c5": pd.Timedelta("2 days 00:00:00.5") < d,
         "c6": s >= e}))
    out.append(("as_int64", base + [op("i1", "astype", "s", dtype="int64"),
                                    op("i2", "astype", "d2", dtype="int64")],
                {"i1": s.astype("int64"), "i2": d2.astype("int64")}))  # NaT: int64's min
    # astype of other columns and melt keep datetimes (their unit)
    out.append(("times_kept", base + [
        op("ak", "astype", "t", dtype={"n": "float64"}),
        op("me", "melt", "t", id_vars=["start"], value_vars=["end"]),
        op("mv", "melt", "t", id_vars=["k"], value_vars=["start", "end"])],
        {"ak": P.astype({"n": "float64"}),
         "me": P.melt(id_vars=["start"], value_vars=["end"]),
         "mv": P.melt(id_vars=["k"], value_vars=["start", "end"])}))
    big = d > pd.Timedelta("3 days")
    out.append(("where", base + [
        ew("big", "greater", "d", lit("3 days")), ew("w1", "where", "big", "s", lit(None)),
        ew("w2", "where", "big", lit(None), "e"), ew("w3", "where", "big", "d", lit(None)),
        ew("s2", "add", "s", lit("1 days")), ew("w4", "where", "big", "s", "s2"),
        ew("w5", "where", "big", "d", "d2")],
        {"w1": s.where(big), "w2": e.mask(big), "w3": d.where(big),
         "w4": s.where(big, s + pd.Timedelta("1 days")),
         "w5": d.where(big, d2)}))
    fields = ["days", "seconds", "microseconds", "nanoseconds", "total_seconds"]
    out.append(("dt_rounding", base + [op("fl", "dt.floor", "d", freq="h"),
                                        op("ce", "dt.ceil", "d2", freq="D"),
                                        op("ro", "dt.round", "d", freq="15min")],
                {"fl": d.dt.floor("h"), "ce": d2.dt.ceil("D"), "ro": d.dt.round("15min")}))
    out.append(("dt_fields", base + [op("t" + f, "dt." + f, "d") for f in fields] +
                [op("u" + f, "dt." + f, "d2") for f in fields],
                dict([("t" + f, getattr(d.dt, f)() if f == "total_seconds" else getattr(d.dt, f))
                      for f in fields] +
                     [("u" + f, getattr(d2.dt, f)() if f == "total_seconds"
                       else getattr(d2.dt, f)) for f in fields])))
    # frame ops carry timedeltas
    A = P.assign(d=d, w=e.dt.normalize() - s.dt.normalize())
    out.append(("carried", base + [
        op("nw", "dt.normalize", "e"), op("ns", "dt.normalize", "s"), sub("w", "nw", "ns"),
        op("a", "assign", ["t", "d", "w"], names=["d", "w"]),
        ew("m", "greater", "d", lit("3 days")), op("fl", "filter", ["a", "m"]),
        op("so", "sort_values", "a", by=["d", "n"]), op("h", "head", "a", n=7),
        op("sh", "shift", "a", periods=2), op("cc", "concat", ["a", "a"]),
        op("ds", "diff", "s"), op("dd", "diff", "d", periods=-3),
        op("sel", "getitem", "a", columns=["start", "n", "d", "w"]),
        op("df", "diff", "sel", periods=2), op("cmn", "cummin", "s"), op("cmx", "cummax", "d"),
        op("csm", "cumsum", "d")],
        {"a": A, "fl": A[A.d > pd.Timedelta("3 days")],
         "so": A.sort_values(["d", "n"], kind="mergesort"), "h": A.head(7), "sh": A.shift(2),
         "cc": pd.concat([A, A]), "ds": s.diff(), "dd": d.diff(-3),
         "df": A[["start", "n", "d", "w"]].diff(2), "cmn": s.cummin(), "cmx": d.cummax(),
         # (pandas 1.5 writes garbage in the row after a NaT: its cumsum of
         # timedeltas adds NaT's int64 there; skipped, as pandas means)
         "csm": d.fillna(pd.Timedelta(0)).cumsum().where(d.notna())}))
    # groupby_agg of datetimes and timedeltas: NaT skipped, the picked
    # values, a timedelta's sum, means and medians keep their dtype
    G = P.assign(d=d)
    # (a datetime's mean is compared apart: pandas sums 1.7e18s in float64
    # in row order, the chunks' partial sums round otherwise)
    aggs = {"dmin": ["d", "min"], "dmax": ["d", "max"], "dsum": ["d", "sum"],
            "dmean": ["d", "mean"], "dfirst": ["d", "first"], "dlast": ["d", "last"],
            "dcount": ["d", "count"], "smin": ["start", "min"], "smax": ["start", "max"],
            "slast": ["start", "last"]}
    named = {k: tuple(v) for k, v in aggs.items()}
    med = {"dmed": ["d", "median"], "smed": ["start", "median"], "dmax": ["d", "max"]}
    # pandas 1.5's groupby median counts NaT as the smallest value (its
    # Series.median skips it, as the engine does): the reference is each
    # group's Series.median
    gk = G.groupby("k")
    med_ref = pd.DataFrame({"dmed": gk.d.apply(lambda x: x.median()),
                            "smed": gk.start.apply(lambda x: x.median()),
                            "dmax": gk.d.max()})
    out.append(("groupby_agg", base + [
        op("g0", "assign", ["t", "d"], names=["d"]),
        op("ga", "groupby_agg", "g0", by=["k"], agg=aggs),
        op("gn", "groupby_agg", "g0", by=["n"], agg=aggs),
        op("gm", "groupby_agg", "g0", by=["k"], agg=med),
        op("gk", "groupby_agg", "g0", by=["k"], agg=aggs, dropna=False),
        op("gf", "groupby_agg", "g0", by=["start"], agg={"x": ["d", "max"]}, as_index=False)],
        {"ga": G.groupby("k").agg(**named), "gn": G.groupby("n").agg(**named),
         "gm": med_ref,
         "gk": G.groupby("k", dropna=False).agg(**named),
         "gf": G.groupby("start", as_index=False).agg(x=("d", "max"))}))
    # groupby_transform's statistics of them, chunk by chunk along the
    # carry chain: the same dtypes
    F = G[["k", "n", "d", "start"]]
    tnodes = [op("g0", "assign", ["t", "d"], names=["d"]),
              op("f", "getitem", "g0", columns=["k", "n", "d", "start"])]
    twant = {}
    for fn in ("min", "max", "mean", "count"):
        # (a mean of datetimes alone: beside numbers pandas 1.5 drops them)
        cols = ["d", "start"] if fn == "mean" else ["n", "d", "start"]
        tnodes.append(op("t" + fn, "groupby_transform", "f", by="k", func=fn, columns=cols))
        twant["t" + fn] = F.groupby("k")[cols].transform(fn)
    tnodes.append(op("tsum", "groupby_transform", "f", by="n", func="sum", columns=["d"]))
    twant["tsum"] = F.groupby("n")[["d"]].transform("sum")
    out.append(("groupby_transform", base + tnodes, twant))
    out.append(("reductions_skip_nat", base + [
        op("mn", "min", "d"), op("mx", "max", "d"), op("ct", "count", "d"),
        op("smn", "min", "s"), op("emx", "max", "e"), op("sct", "count", "s")],
        {"mn": np.int64(d.min().value), "mx": np.int64(d.max().value), "ct": np.int64(d.count()),
         "smn": np.int64(s.min().value), "emx": np.int64(e.max().value),
         "sct": np.int64(s.count())}))
    return out, A


def datetime_mean(data, P):
    """groupby_agg's mean of datetimes against pandas' within a
    microsecond (float64 sums of 1.7e18 round by the order of adding)"""
    for chunk in (1, 700, None):
        nodes = [rc_node(chunk), op("g", "groupby_agg", "t", by=["k"],
                                    agg={"m": ["start", "mean"], "e": ["end", "mean"]})]
        rc, err, got = td.run(nodes, ["g"], data)
        why = "exit %d: %s" % (rc, err.strip()[:300]) if rc else ""
        if not why:
            g = td.as_pandas(got["g"])
            ref = P.groupby("k").agg(m=("start", "mean"), e=("end", "mean"))
            if list(g.index) != list(ref.index) or list(g.dtypes) != list(ref.dtypes):
                why = "index or dtypes differ: %r vs %r" % (g.dtypes, ref.dtypes)
            else:
                diff = (g - ref).abs().max().max()
                if not diff <= pd.Timedelta(1, "us"):
                    why = "means differ by %s" % diff
        td.report("groupby_datetime_mean/chunk=%s" % chunk, why)


def rejects(data):
    src = [rc_node(None)] + [op("s", "getitem", "t", columns="start"),
                             op("e", "getitem", "t", columns="end"),
                             op("n", "getitem", "t", columns="n"), sub("d", "e", "s"),
                             op("a", "assign", ["t", "d"], names=["d"])]
    for name, node, code, words in [
        ("datetime_plus_datetime", ew("r", "add", "s", "e"), 2,
         ["add of datetime64[ns] and datetime64[ns]", "TypeError"]),
        ("datetime_times_two", ew("r", "multiply", "s", 2), 2,
         ["multiply of datetime64[ns] and int64"]),
        ("timedelta_plus_int", ew("r", "add", "d", 1), 2, ["add of timedelta64[ns] and int64"]),
        ("timedelta_times_timedelta", ew("r", "multiply", "d", "d"), 2,
         ["multiply of timedelta64[ns] and timedelta64[ns]"]),
        ("timedelta_less_than_number", ew("r", "less", "d", "n"), 2,
         ["less of timedelta64[ns] and int64"]),
        ("timedelta_minus_datetime", sub("r", "d", "s"), 2,
         ["subtract of timedelta64[ns] and datetime64[ns]"]),
        ("negative_datetime", ew("r", "negative", "s"), 2, ["negative of datetime64[ns]"]),
        ("sum_of_datetimes", op("r", "groupby_agg", "t", by=["k"], agg={"x": ["start", "sum"]}),
         2, ["sum of datetime64[ns] is not defined"]),
        ("cumsum_of_datetimes", op("r", "cumsum", "s"), 2,
         ["cumsum of datetime64[ns] is not defined"]),
        ("cumprod_of_timedeltas", op("r", "cumprod", "d"), 2,
         ["cumprod of timedelta64[ns] is not defined"]),
        ("transform_sum_of_datetimes", op("r", "groupby_transform", "t", by="k", func="sum",
                                          columns=["start"]),
         2, ["column 'start': sum of datetime64[ns] is not defined"]),
        ("prod_of_timedeltas", op("r", "groupby_agg", "a", by=["k"], agg={"x": ["d", "prod"]}), 2,
         ["prod of timedelta64[ns] is not defined"]),
        ("year_of_timedelta", op("r", "dt.year", "d"), 2,
         ["dataframe.dt.year of a timedelta Series", "AttributeError"]),
        ("day_name_of_timedelta", op("r", "dt.day_name", "d"), 2,
         ["dataframe.dt.day_name of a timedelta Series"]),
        ("days_of_datetime", op("r", "dt.days", "s"), 2,
         ["dataframe.dt.days of a datetime Series"]),
        ("days_of_numbers", op("r", "dt.days", "n"), 2, ["Can only use .dt accessor"]),
        ("bad_literal", ew("r", "add", "d", lit("soon")), 2,
         ["'soon' beside a timedelta Series is neither a timedelta"]),
        ("sign_inside", ew("r", "add", "d", lit("1 days -01:00:00")), 2,
         ["neither a timedelta"]),
        ("bad_compared_literal", ew("r", "less", "d", lit("2024-01-01")), 2,
         ["compared with a timedelta Series"]),
        ("overflow", ew("r", "add", "s", lit("106000 days")), 1,
         ["Overflow in int64 addition", "OverflowError"]),
        ("datetime_as_text", op("r", "astype", "s", dtype="str"), 2,
         ["astype(str) of datetime64[ns] is not supported here", "dt.strftime"]),
        ("timedelta_as_text", op("r", "astype", "d", dtype="str"), 2,
         ["astype(str) of timedelta64[ns]"]),
        ("melt_times_and_numbers", op("r", "melt", "t", id_vars=["k"],
                                      value_vars=["start", "n"]), 2,
         ["the value columns mix datetime64[ns] and int64"]),
        ("datetime_as_float", op("r", "astype", "s", dtype="float64"), 2,
         ["cannot astype a datetime64[ns] to float64", "TypeError"])]:
        td.expect_refused(data, "rejects/" + name, src + [node], code, words)


def literal_forms(data):
    """pandas' Timedelta string forms, each compared with pandas' reading"""
    forms = ["1 days 02:00:00", "-1 days +23:00:00", "1 day", "3 days", "02:30:00",
             "00:00:00.5", "1 days 00:00:00.000000001", "1D", "2h30min", "1.5h", "-90min",
             "45s", "10ms", "7us", "3ns", "0 days", "-2 days 01:00:00", "1day", "- 1 days",
             "1 day, 02:00:00", "+1 days 01:00:00", "-01:00:00"]
    nodes = [rc_node(None), op("s", "getitem", "t", columns="start"),
             op("e", "getitem", "t", columns="end"), sub("d", "e", "s")]
    want = {}
    P = pd.read_csv(os.path.join(data, "t.csv"), parse_dates=["start", "end"])
    d = P.end - P.start
    for i, f in enumerate(forms):
        nodes.append(ew("l%d" % i, "add", "d", lit(f)))
        want["l%d" % i] = d + pd.Timedelta(f)
    td.report("literal_forms", td.run_and_compare(nodes, want, data))


def to_timedelta_cases(data):
    """pd.to_timedelta of strings in pandas' forms (bad ones coerced to
    NaT), of ints and floats with each unit (pandas' rounding of the
    fraction), against pandas, over chunks of one row and of all"""
    rng = np.random.default_rng(5)
    n = 90
    forms = ["1 days 02:00:00", "-1 days +23:00:00", "02:30:00.25", "1D", "2h30min", "45s",
             "3 days", "-90min", "0 days 00:00:00.000000001"]
    strs = [forms[i % len(forms)] for i in range(n)]
    for q in rng.choice(n, 6, replace=False):
        strs[q] = ["", "soon", None, "1 days -01:00:00", "12", "1x"][q % 6]
    P = pd.DataFrame({"s": strs, "i": rng.integers(-10 ** 6, 10 ** 6, n),
                      "f": np.round(rng.standard_normal(n) * 1000, 4)})
    P.loc[4, "f"] = np.nan
    P.loc[5, "f"] = 1e-7
    P.to_json(os.path.join(data, "tt.json"), orient="records", lines=True)
    P = pd.read_json(os.path.join(data, "tt.json"), orient="records", lines=True,
                     dtype={"s": object})
    for chunk in (1, None):
        nodes = [{"key": "t", "op": "dataframe.read_json", "path": "tt.json",
                  "orient": "records", "lines": True}]
        base = "t"
        if chunk:
            nodes.append({"key": "t1", "op": "dataframe.iloc", "inputs": ["t"], "rows": "::1"})
            base = "t1"
        nodes += [op("cs", "getitem", base, columns="s"), op("ci", "getitem", base, columns="i"),
                  op("cf", "getitem", base, columns="f"),
                  op("ts", "to_timedelta", "cs", errors="coerce")]
        want = {"ts": pd.to_timedelta(P.s, errors="coerce")}
        for c, unit in (("i", "s"), ("i", "ms"), ("i", None), ("f", "D"), ("f", "h"), ("f", "m"),
                        ("f", "s"), ("f", "ms"), ("f", "us"), ("f", "ns")):
            key = "u%s_%s" % (c, unit)
            nodes.append(op(key, "to_timedelta", "c" + c, **({"unit": unit} if unit else {})))
            want[key] = pd.to_timedelta(P[c], **({"unit": unit} if unit else {}))
        td.report("to_timedelta/chunk=%s" % chunk, td.run_and_compare(nodes, want, data))
    src = [{"key": "t", "op": "dataframe.read_json", "path": "tt.json", "orient": "records",
            "lines": True}, op("cs", "getitem", "t", columns="s"),
           op("ci", "getitem", "t", columns="i")]
    for name, node, code, words in [
        ("raise", op("r", "to_timedelta", "cs"), 1, ["to_timedelta: 'soon'", "not a timedelta"]),
        ("unit_of_strings", op("r", "to_timedelta", "cs", unit="s"), 2,
         ["\"unit\" is for numbers"]),
        ("bad_unit", op("r", "to_timedelta", "ci", unit="W"), 2, ["D, h, m, s, ms, us or ns"]),
        ("format", op("r", "to_timedelta", "ci", format="%H"), 2, ["format"]),
        ("out_of_range", op("r", "to_timedelta", "ci", unit="D"), 1, ["OutOfBoundsTimedelta"])]:
        td.expect_refused(data, "to_timedelta_rejects/" + name, src + [node], code, words)


def main():
    return td.suite_main("timedelta_data_", all_cases)


def all_cases(data):
    """every case, on t.csv and its own files in data"""
    make_csv(os.path.join(data, "t.csv"), np.random.default_rng(11), 150)
    P = pd.read_csv(os.path.join(data, "t.csv"), parse_dates=["start", "end"])
    cs, A = cases(P)
    for chunk in (1, 700, None):
        for name, nodes, want in cs:
            report_case = "%s/chunk=%s" % (name, chunk)
            td.report(report_case, td.run_and_compare([rc_node(chunk)] + nodes, want, data))
    # JSON and to_csv as pandas writes them: each value's str, and a
    # column of whole days as "N days"
    for chunk in (1, None):
        nodes = [rc_node(chunk), op("s", "getitem", "t", columns="start"),
                 op("e", "getitem", "t", columns="end"), sub("d", "e", "s"),
                 op("nw", "dt.normalize", "e"), op("ns", "dt.normalize", "s"),
                 sub("w", "nw", "ns"), op("a", "assign", ["t", "d", "w"], names=["d", "w"])]
        rc, err, got = td.run(nodes, ["a", "d"], data, csv=True)
        why = "exit %d: %s" % (rc, err.strip()[:300]) if rc else ""
        if not why and got["a.csv"] != A.to_csv():
            why = "to_csv differs: %r vs %r" % (got["a.csv"][:300], A.to_csv()[:300])
        if not why:
            strs = [None if pd.isna(v) else str(v) for v in A.d]
            if got["d"]["data"] != strs:
                why = "JSON values differ: %r vs %r" % (got["d"]["data"][:5], strs[:5])
        td.report("to_csv_json/chunk=%s" % chunk, why)
    literal_forms(data)
    datetime_mean(data, P)
    rejects(data)
    to_timedelta_cases(data)


if __name__ == "__main__":
    sys.exit(main())
