#!/usr/bin/python3
"""Dates through mars-run, against pandas 1.5: read_csv(parse_dates=...)
gives datetime64[ns] columns (NaT for empty fields; ISO dates, times with
seconds and fractions, 'T' or a space, '/' dates, years before 1970 and
leap days); the dt accessor's year, month, day, hour, minute, second,
dayofweek, dayofyear, quarter, week (ISO) and date, and isocalendar(),
with and without NaT in the Series (every day of the weeks around many
new years too); floor, ceil and round to fixed frequencies, normalize, day_name,
month_name, strftime, days_in_month and the is_* fields; groupby by a datetime column and by a month column; sort_values,
filters, merge, head and to_csv carrying datetime columns; and the
rejections (an unknown parse_dates column, dt of a non-datetime Series, a
value that is no date, a time zone, frequencies pandas refuses, a
rounding past datetime64[ns]'s range). Each case runs on one-row chunks,
small uneven chunks and one chunk.

Usage: test_dates.py. Prints `RESULT passed=N failed=M`."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

passed = failed = 0
FIELDS = ["year", "month", "day", "hour", "minute", "second", "dayofweek", "dayofyear",
          "quarter", "week"]
# strftime: Python's forms (%f, %z and %Z of a naive datetime) and the
# C library's (which Python calls), an unknown directive and a lone %
STRFTIME = ["%Y-%m", "%d/%m/%Y %H:%M:%S.%f", "%a %A %b %B %p %I %j %U %W %y %%", "%z|%Z",
            "%G-%V-%u %e %C", "%c", "%x %X", "%D %T %R", "%Q and %", "plain"]
DT_MORE = ["normalize", "day_name", "month_name", "days_in_month", "is_month_start",
           "is_month_end", "is_quarter_start", "is_quarter_end", "is_year_start", "is_year_end",
           "is_leap_year"]


def report(name, why):
    global passed, failed
    if not why:
        passed += 1
        print("ok", name)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))


def make_csv(path, rng, n):
    """a CSV of n rows: `when` dates with times (some missing), `day` plain
    dates (none missing), a string `city`, a float `x` with NaN, an int `k`"""
    base = np.datetime64("1969-11-03T00:00:00")
    secs = rng.integers(0, 60 * 86400 * 365, n)
    frac = rng.integers(0, 1000, n)
    whens = []
    for i in range(n):
        t = base + np.timedelta64(int(secs[i]), "s")
        s = str(t)  # 1970-03-01T12:34:56
        form = i % 5
        if form == 0:
            s = s.replace("T", " ")
        elif form == 1:
            s = s[:10]
        elif form == 2:
            s = s + ".%03d" % frac[i]
        elif form == 3:
            s = s[:16].replace("T", " ")
        whens.append(s)
    missing = rng.random(n) < 0.1
    day = [str(base + np.timedelta64(int(d), "D"))[:10]
           for d in rng.integers(0, 3 * 365, n)]
    day[n // 2] = "2024-02-29"
    city = np.array(["paris", "lyon", "nice", "oslo"])[rng.integers(0, 4, n)]
    x = np.round(rng.standard_normal(n) * 10, 3)
    x[rng.random(n) < 0.1] = np.nan
    with open(path, "w") as f:
        f.write("when,day,city,x,k\n")
        for i in range(n):
            f.write("%s,%s,%s,%s,%d\n" % ("" if missing[i] else whens[i], day[i], city[i],
                                          "" if np.isnan(x[i]) else repr(float(x[i])),
                                          int(rng.integers(0, 5))))


def run(nodes, fetch, data, csv=False):
    out = tempfile.mkdtemp(prefix="dates_out_")
    args = [harness.mars_run_path(), "-", "-o", out, "--data-dir", data]
    if csv:
        args.append("--csv")
    p = subprocess.run(args, input=json.dumps({"version": 1, "nodes": nodes,
                                               "fetch": fetch}).encode(),
                       capture_output=True, timeout=300)
    got = {}
    if p.returncode == 0:
        for k in fetch:
            if not os.path.exists(os.path.join(out, k + ".json")):  # a 0-d tensor
                got[k] = np.load(os.path.join(out, k + ".npy"))
                continue
            with open(os.path.join(out, k + ".json")) as f:
                got[k] = json.load(f)
            if csv:
                with open(os.path.join(out, k + ".csv")) as f:
                    got[k + ".csv"] = f.read()
    shutil.rmtree(out, ignore_errors=True)
    return p.returncode, p.stderr.decode(errors="replace"), got


def column(vals, dtype, name=None, index=None):
    if dtype == "datetime64[ns]":
        return pd.Series(pd.to_datetime(vals), index=index, name=name)
    if dtype == "timedelta64[ns]":
        return pd.Series(pd.to_timedelta(vals), index=index, name=name)
    if dtype == "float64":
        vals = [np.nan if v is None else v for v in vals]
    return pd.Series(vals, index=index, name=name, dtype=dtype)


def index_of(doc):
    ix = doc["index"]
    names = doc.get("index_names") or [None]
    dts = doc.get("index_dtypes")
    if ix and isinstance(ix[0], list):
        levels = [[r[k] for r in ix] for k in range(len(names))]
    else:
        levels = [ix]
    out = []
    for k, lv in enumerate(levels):
        if dts and dts[k] == "datetime64[ns]":
            out.append(pd.DatetimeIndex(pd.to_datetime(lv), name=names[k]))
        elif dts and dts[k] == "timedelta64[ns]":
            out.append(pd.TimedeltaIndex(pd.to_timedelta(lv), name=names[k]))
        else:
            out.append(pd.Index(lv, name=names[k]))
    if len(out) == 1:
        return out[0]
    return pd.MultiIndex.from_arrays(out)


def as_pandas(doc):
    index = index_of(doc)
    if "columns" in doc:
        data = {}
        for j, c in enumerate(doc["columns"]):
            dt = doc["dtypes"][c if c in doc["dtypes"] else str(c)]  # (JSON's keys are text)
            data[c] = column([r[j] for r in doc["data"]], dt, c, index).values
        return pd.DataFrame(data, index=index, columns=doc["columns"])
    return column(doc["data"], doc["dtype"], doc["name"], index)


def plain(ref):
    """pandas' dt.date values (datetime.date objects) as the strings the
    engine writes"""
    if isinstance(ref, pd.Series) and ref.dtype == object:
        return ref.map(lambda v: None if pd.isna(v) else v if isinstance(v, str)
                       else v.isoformat())
    return ref


def compare(got, ref):
    rows = isinstance(ref, tuple)  # ("rows", frame): the same rows in any order
    if rows:
        ref = ref[1]
    if isinstance(got, np.ndarray):  # a 0-d tensor: pandas' numpy scalar
        ok = got.shape == () and got.dtype == np.asarray(ref).dtype and got.item() == ref
        return "" if ok else "%r vs pandas %r" % (got, ref)
    try:
        g = as_pandas(got)
        if rows:
            key = list(ref.columns)
            g = g.sort_values(key, kind="mergesort").reset_index(drop=True)
            ref = ref.sort_values(key, kind="mergesort").reset_index(drop=True)
        ref = plain(ref)
        if isinstance(ref, pd.Series):
            if ref.dtype == object:
                g = g.astype(object).where(g.notna(), None)
            pd.testing.assert_series_equal(g, ref, check_index_type=False)
        else:
            pd.testing.assert_frame_equal(g, ref, check_index_type=False)
        return ""
    except (AssertionError, ValueError, TypeError, KeyError) as e:
        return str(e).replace("\n", " ")[:500]


def over_chunkings(data, cases, chunks, parse_dates=None, cmp=None):
    """Runs each case (name, nodes after a read_csv "t" of data's t.csv,
    {key: pandas' value}) with the file read in chunks of each size in
    chunks (None: one chunk), reporting each."""
    for chunk in chunks:
        for name, nodes, want in cases:
            rd = {"key": "t", "op": "dataframe.read_csv", "path": "t.csv"}
            if parse_dates:
                rd["parse_dates"] = parse_dates
            if chunk:
                rd["chunk_bytes"] = chunk
            report("%s/chunk=%s" % (name, chunk), run_and_compare([rd] + nodes, want, data, cmp=cmp))


def run_and_compare(nodes, want, data, cmp=None):
    """'' when every fetched key of want equals its pandas value (by cmp:
    compare when None), else why."""
    rc, err, got = run(nodes, list(want), data)
    if rc:
        return "exit %d: %s" % (rc, err.strip()[:300])
    for k, ref in want.items():
        w = (cmp or compare)(got[k], ref)
        if w:
            return "%s: %s" % (k, w)
    return ""


def dt_round(s, how, freq):
    """pandas' s.dt.floor/ceil/round(freq), on the rows that hold a date:
    pandas 1.5 rounds an odd number of nanoseconds by shifting the values,
    NaT's int64 too, which overflows (graph-format.md); NaT stays NaT"""
    out = s.copy()
    m = s.notna()
    out[m] = getattr(s[m].dt, how)(freq)
    return out


def rc_node(chunk, key="t"):
    n = {"key": key, "op": "dataframe.read_csv", "path": "t.csv", "parse_dates": ["when", "day"]}
    if chunk:
        n["chunk_bytes"] = chunk
    return n


def op(key, name, src, **kw):
    d = {"key": key, "op": "dataframe." + name, "inputs": src if isinstance(src, list) else [src]}
    d.update(kw)
    return d


def cases(P):
    """(name, nodes after read_csv "t", {key: pandas result})"""
    out = [("read_csv", [], {"t": P})]
    for col in ("when", "day"):
        nodes = [op("c", "getitem", "t", columns=col)]
        want = {}
        for f in FIELDS:
            nodes.append(op(f, "dt." + f, "c"))
            with warnings.catch_warnings():  # pandas 1.5 deprecates dt.week
                warnings.simplefilter("ignore", FutureWarning)
                want[f] = getattr(P[col].dt, f)
        nodes.append(op("date", "dt.date", "c"))
        want["date"] = P[col].dt.date
        # isocalendar: pandas' UInt32 columns, here int64 (float64 with NaN)
        iso = P[col].dt.isocalendar()
        nodes.append(op("iso", "dt.isocalendar", "c"))
        want["iso"] = iso.astype("float64" if P[col].isna().any() else "int64")
        out.append(("dt_" + col, nodes, want))
        # floor, ceil and round to fixed frequencies (half to even, an odd
        # unit of nanoseconds as pandas), normalize, the names, the is_*
        # fields and days_in_month
        nodes, want = [op("c", "getitem", "t", columns=col)], {}
        for f in ("D", "h", "15min", "2h30min", "s", "ms", "3D", "1.5H", "7s", "3N", "T", "L"):
            for how in ("floor", "ceil", "round"):
                key = "%s_%s" % (how, f.replace(".", "_"))
                nodes.append(op(key, "dt." + how, "c", freq=f))
                want[key] = dt_round(P[col], how, f)
        nodes += [op(f, "dt." + f, "c") for f in DT_MORE]
        for q, fmt in enumerate(STRFTIME):
            nodes.append(op("sf%d" % q, "dt.strftime", "c", date_format=fmt))
            want["sf%d" % q] = P[col].dt.strftime(fmt)
        want.update({f: getattr(P[col].dt, f)() if f in ("normalize", "day_name", "month_name")
                     else getattr(P[col].dt, f) for f in DT_MORE})
        out.append(("dt_more_" + col, nodes, want))
    m = P.assign(month=P.day.dt.month)
    out.append(("groupby_month", [
        op("c", "getitem", "t", columns="day"), op("m", "dt.month", "c"),
        op("a", "assign", ["t", "m"], names=["month"]),
        op("g", "groupby_agg", "a", by=["month"], agg={"n": ["x", "count"], "s": ["k", "sum"]})],
        {"g": m.groupby("month").agg(n=("x", "count"), s=("k", "sum"))}))
    out.append(("groupby_datetime", [
        op("g", "groupby_agg", "t", by=["day"], agg={"s": ["k", "sum"], "m": ["x", "max"]})],
        {"g": P.groupby("day").agg(s=("k", "sum"), m=("x", "max"))}))
    out.append(("groupby_city_month", [
        op("c", "getitem", "t", columns="day"), op("m", "dt.month", "c"),
        op("a", "assign", ["t", "m"], names=["month"]),
        op("g", "groupby_agg", "a", by=["city", "month"], agg={"s": ["k", "sum"]})],
        {"g": m.groupby(["city", "month"]).agg(s=("k", "sum"))}))
    out.append(("sort_head", [
        op("s", "sort_values", "t", by=["day", "k"]), op("h", "head", "s", n=7)],
        {"s": P.sort_values(["day", "k"], kind="mergesort"),
         "h": P.sort_values(["day", "k"], kind="mergesort").head(7)}))
    out.append(("sort_nat", [
        op("s", "sort_values", "t", by=["when"]), op("d", "sort_values", "t", by=["when"],
                                                     ascending=False)],
        {"s": P.sort_values(["when"], kind="mergesort"),
         "d": P.sort_values(["when"], kind="mergesort", ascending=False)}))
    out.append(("filter_query", [
        op("c", "getitem", "t", columns="day"), op("m", "dt.month", "c"),
        {"key": "e", "op": "equal", "inputs": ["m", {"value": 2}]},
        op("f", "filter", ["t", "e"]), op("q", "query", "t", expr="k > 2 and x < 5")],
        {"f": P[P.day.dt.month == 2], "q": P.query("k > 2 and x < 5")}))
    # comparisons with date strings, as pandas: a filter by a literal, and query
    lit = sorted(set(P.day.dt.strftime("%Y-%m-%d")))[:3]
    out.append(("compare_strings", [
        op("c", "getitem", "t", columns="when"),
        {"key": "e", "op": "greater_equal", "inputs": ["c", {"value": "1975-06-01 12:00"}]},
        op("f", "filter", ["t", "e"]),
        {"key": "e2", "op": "less", "inputs": ["c", {"value": "1972-01-01"}]},
        op("f2", "filter", ["t", "e2"]),
        {"key": "e3", "op": "not_equal", "inputs": ["c", {"value": "1972-01-01"}]},
        op("f3", "filter", ["t", "e3"]),
        op("q", "query", "t", expr="when < '1980-01-01' and day >= \"1971-03-15\""),
        op("i", "query", "t", expr="day in ['%s', '%s'] or day == '%s'" % tuple(lit))],
        {"f": P[P.when >= "1975-06-01 12:00"], "f2": P[P.when < "1972-01-01"],
         "f3": P[P.when != "1972-01-01"],
         "q": P.query("when < '1980-01-01' and day >= \"1971-03-15\""),
         "i": P.query("day in ['%s', '%s'] or day == '%s'" % tuple(lit))}))
    R = pd.DataFrame({"city": ["paris", "lyon", "nice", "rome"],
                      "country": ["fr", "fr", "fr2", "it"]})
    out.append(("merge", [
        op("r", "read_csv", [], path="r.csv"),
        op("j", "merge", ["t", "r"], on=["city"], how="left"),
        op("o", "merge", ["t", "r"], on=["city"], how="outer")],
        {"j": P.merge(R, on="city", how="left"),
         # rome has no row of t: its datetimes are NaT, the column stays datetime64
         "o": ("rows", P.merge(R, on="city", how="outer"))}))
    iso = P.when.dt.date.map(lambda v: None if pd.isna(v) else v.isoformat())
    g = P.assign(date=P.when.dt.date).groupby("date").agg(s=("k", "sum"), n=("x", "count"))
    g.index = pd.Index([v.isoformat() for v in g.index], name="date")
    out.append(("groupby_date", [
        op("c", "getitem", "t", columns="when"), op("d", "dt.date", "c"),
        op("a", "assign", ["t", "d"], names=["date"]),
        op("g", "groupby_agg", "a", by=["date"], agg={"s": ["k", "sum"], "n": ["x", "count"]})],
        {"g": g}))
    out.append(("assign_date", [
        op("c", "getitem", "t", columns="when"), op("d", "dt.date", "c"),
        op("a", "assign", ["t", "d"], names=["date"]),
        op("h", "head", "a", n=20)],
        {"h": P.assign(date=iso).head(20)}))
    # frame ops carry datetimes: round and replace leave them, shift moves
    # them (NaT where no row moved in), as pandas
    out.append(("round_replace_shift", [
        op("ro", "round", "t", decimals=0), op("rp", "replace", "t", to_replace=3, value=-7),
        op("s1", "shift", "t", periods=1), op("s2", "shift", "t", periods=-2)],
        {"ro": P.round(0), "rp": P.replace(3, -7), "s1": P.shift(1), "s2": P.shift(-2)}))
    # a dt field is float64 in a chunk holding NaT and int64 in another: the
    # ops after it take both (they read float64 chunks where the schema
    # says int64)
    wm = P.when.dt.month
    out.append(("fields_downstream", [
        op("c", "getitem", "t", columns="when"), op("m", "dt.month", "c"),
        {"key": "a1", "op": "add", "inputs": ["m", 1]},
        {"key": "g2", "op": "greater", "inputs": ["m", 6]},
        op("cs", "cumsum", "m"), op("cx", "cummax", "m"), op("cn", "cummin", "m"),
        op("s0", "shift", "m", periods=0)],
        {"a1": wm + 1, "g2": wm > 6, "cs": wm.cumsum(), "cx": wm.cummax(), "cn": wm.cummin(),
         "s0": wm.shift(0)}))
    # fillna by method carries datetimes across chunks, NaT-only chunks too
    out.append(("fillna_methods", [
        op("ff", "fillna", "t", method="ffill"), op("bf", "fillna", "t", method="bfill")],
        {"ff": P.fillna(method="ffill"), "bf": P.fillna(method="bfill")}))
    # a DataFrame's numeric_only reductions, statistics, describe and
    # to_tensor leave datetime columns out, as pandas' numeric_only=True
    out.append(("reductions_skip_datetimes", [
        op("s", "sum", "t"), op("mn", "mean", "t"), op("mx", "max", "t"), op("sd", "std", "t"),
        op("md", "median", "t"), op("de", "describe", "t"), op("co", "corr", "t")],
        {"s": P.sum(numeric_only=True), "mn": P.mean(numeric_only=True),
         "mx": P.max(numeric_only=True), "sd": P.std(numeric_only=True),
         "md": P.median(numeric_only=True), "de": P.describe(), "co": P.corr(numeric_only=True)}))
    # any and all read every column: a datetime is true unless it is the
    # epoch, NaT skipped; of a datetime Series, a numpy bool
    # (floored to 100 years: 1970-01-01, the epoch, for most rows)
    fl = P.when.dt.floor("36500D")
    out.append(("any_all", [
        op("an", "any", "t"), op("al", "all", "t"), op("c", "getitem", "t", columns="when"),
        op("ca", "any", "c"), op("cl", "all", "c"), op("fl", "dt.floor", "c", freq="36500D"),
        op("fa", "any", "fl"), op("fb", "all", "fl"),
        op("fr", "assign", ["t", "fl"], names=["when"]), op("fra", "all", "fr")],
        {"an": P.any(), "al": P.all(), "ca": P.when.any(), "cl": P.when.all(),
         "fa": fl.any(), "fb": fl.all(), "fra": P.assign(when=fl).all()}))
    return out, R


def suite_main(prefix, body):
    """The main of this suite and of those that use its runner: body(data)
    reports the cases, data a temporary directory; prints RESULT and
    returns the exit status."""
    if not harness.have_mars_run():
        print("mars-run is not built")
        print("RESULT passed=0 failed=1")
        return 1
    data = tempfile.mkdtemp(prefix=prefix)
    try:
        body(data)
    finally:
        shutil.rmtree(data, ignore_errors=True)
    print("RESULT passed=%d failed=%d" % (passed, failed))
    return 1 if failed else 0


def main():
    return suite_main("dates_data_", all_cases)


def all_cases(data):
    """make_csv's frame through every case, then the rest"""
    make_csv(os.path.join(data, "t.csv"), np.random.default_rng(7), 160)
    P = pd.read_csv(os.path.join(data, "t.csv"), parse_dates=["when", "day"])
    cs, R = cases(P)
    R.to_csv(os.path.join(data, "r.csv"), index=False)
    for chunk in (1, 700, None):
        for name, nodes, want in cs:
            nodes = [rc_node(chunk)] + [dict(n) for n in nodes]
            for n in nodes:
                if n.get("op") == "dataframe.read_csv" and n["key"] == "r":
                    n.pop("inputs", None)
            report("%s/chunk=%s" % (name, chunk), run_and_compare(nodes, want, data))
    # to_csv as pandas writes it
    for chunk in (1, None):
        rc, err, got = run([rc_node(chunk), op("d", "getitem", "t",
                                               columns=["day", "city", "k"])],
                           ["t", "d"], data, csv=True)
        why = "exit %d: %s" % (rc, err.strip()[:300]) if rc else ""
        if not why and got["t.csv"] != P.to_csv():
            why = "to_csv differs: %r vs %r" % (got["t.csv"][:200], P.to_csv()[:200])
        if not why and got["d.csv"] != P[["day", "city", "k"]].to_csv():
            why = "to_csv of dates differs: %r" % got["d.csv"][:200]
        report("to_csv/chunk=%s" % chunk, why)
    rejects(data)
    tensor_of_chunk_typed(data)
    to_datetime_cases(data)
    dayfirst_dates(data)
    first_day(data)
    iso_weeks(data)
    between_times(data)


def between_times(data):
    """between_time and at_time on a DatetimeIndex with NaT (its time of
    day -1, as pandas', so in a range across midnight), over one-row and
    uneven chunks, a DataFrame and a Series: each inclusive, a range
    across midnight, the time forms pandas' to_time reads, times to the
    microsecond; and the refusals"""
    P = pd.read_csv(os.path.join(data, "t.csv"), parse_dates=["when", "day"]).set_index("when")
    ranges = [("09:00", "17:30", None), ("9:00", "1730", "neither"), ("23:00", "01:15:30", None),
              ("22:00", "0:00", "left"), ("06:12:30.5", "08:00:00.250000", "right"),
              ("12:00PM", "1:00PM", None), ("12:00AM", "6:00am", "neither")]
    for chunk in (1, 700, None):
        nodes = [rc_node(chunk), op("w", "set_index", "t", keys="when"),
                 op("x", "getitem", "w", columns="x")]
        want = {}
        for q, (a, b, inc) in enumerate(ranges):
            kw = {"start_time": a, "end_time": b}
            if inc:
                kw["inclusive"] = inc
            nodes.append(op("b%d" % q, "between_time", "w" if q % 2 else "x", **kw))
            want["b%d" % q] = (P if q % 2 else P.x).between_time(a, b, inclusive=inc or "both")
        for q, t in enumerate(["00:00", "13:14:15", "12:00AM", "6:45PM"]):
            nodes.append(op("a%d" % q, "at_time", "w", time=t))
            want["a%d" % q] = P.at_time(t)
        report("between_time/chunk=%s" % chunk, run_and_compare(nodes, want, data))
    w = [rc_node(None), op("w", "set_index", "t", keys="when")]
    for name, nodes, words in [
            ("between_time_no_dates", [rc_node(None), op("b", "between_time", "t",
                                                         start_time="1:00", end_time="2:00")],
             ["Index must be DatetimeIndex", "int64"]),
            ("between_time_bad_time", w + [op("b", "between_time", "w", start_time="9",
                                              end_time="10:00")],
             ["Cannot convert arg 9 to a time"]),
            ("between_time_hour_25", w + [op("b", "between_time", "w", start_time="25:00",
                                             end_time="10:00")], ["Cannot convert arg 25:00"]),
            ("between_time_inclusive", w + [op("b", "between_time", "w", start_time="1:00",
                                               end_time="2:00", inclusive="both_")],
             ["Inclusive has to be either"]),
            ("at_time_missing", w + [op("b", "at_time", "w")], ['"time" is missing'])]:
        expect_refused(data, name, nodes, 2, words)


def iso_weeks(data):
    """dt.week and dt.isocalendar() on every day of the fortnight around
    each new year from 1678 to 2261 (years of 53 ISO weeks, a week 1 that
    starts in December, a week 52 or 53 in January), and of datetime64's
    first and last days"""
    days = [pd.Timestamp(y, 12, 25) + pd.Timedelta(days=k) for y in range(1678, 2262)
            for k in range(15)]
    days += [pd.Timestamp("1677-09-21 00:13"), pd.Timestamp("2262-04-11 23:47")]
    with open(os.path.join(data, "iso.csv"), "w") as f:
        f.write("when\n" + "".join("%s\n" % d for d in days))
    P = pd.read_csv(os.path.join(data, "iso.csv"), parse_dates=["when"])
    for chunk in (4000, None):
        nodes = [{"key": "t", "op": "dataframe.read_csv", "path": "iso.csv",
                  "parse_dates": ["when"], **({"chunk_bytes": chunk} if chunk else {})},
                 op("w", "getitem", "t", columns="when"), op("wk", "dt.week", "w"),
                 op("iso", "dt.isocalendar", "w")]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            want = {"wk": P.when.dt.week, "iso": P.when.dt.isocalendar().astype("int64")}
        report("iso_weeks/chunk=%s" % chunk, run_and_compare(nodes, want, data))


def dayfirst_dates(data):
    """read_csv(parse_dates, dayfirst=True): a European export's DD/MM/YYYY
    and DD.MM.YYYY dates, with a time or not, beside dates whose first
    number cannot be a month (13/01) or whose second cannot (12/31: the
    31st either way), ISO dates (no change) and missing ones; and without
    dayfirst the same file month first, all against pandas, in chunks of a
    few rows and in one"""
    rng = np.random.default_rng(3)
    days = pd.Timestamp("2023-01-01") + pd.to_timedelta(rng.integers(0, 700, 90), unit="D") + \
        pd.to_timedelta(rng.integers(0, 86400, 90), unit="s")
    forms = ["%d/%m/%Y", "%d.%m.%Y", "%d/%m/%Y %H:%M", "%d-%m-%Y %H:%M:%S", "%Y-%m-%d", "%m/%d/%Y"]
    vals = [d.strftime(forms[q % len(forms)]) for q, d in enumerate(days)]
    vals[5] = ""
    with open(os.path.join(data, "eu_dates.csv"), "w") as f:
        f.write("when,v\n" + "".join("%s,%d\n" % (w, q) for q, w in enumerate(vals)))
    for dayfirst in (True, False):
        with warnings.catch_warnings():  # pandas' "Parsing dates in DD/MM/YYYY format"
            warnings.simplefilter("ignore", UserWarning)
            P = pd.read_csv(os.path.join(data, "eu_dates.csv"), parse_dates=["when"], dayfirst=dayfirst)
        for chunk in (60, None):
            nodes = [{"key": "t", "op": "dataframe.read_csv", "path": "eu_dates.csv", "parse_dates": ["when"],
                      "dayfirst": dayfirst, **({"chunk_bytes": chunk} if chunk else {})}]
            report("dayfirst=%s/chunk=%s" % (dayfirst, chunk), run_and_compare(nodes, {"t": P}, data))
    expect_refused(data, "dayfirst_not_bool", [{"key": "t", "op": "dataframe.read_csv", "path": "eu_dates.csv",
                                                "parse_dates": ["when"], "dayfirst": "yes"}], 2,
                   ['"dayfirst" must be true or false'])


def tensor_of_chunk_typed(data):
    """to_tensor of a column typed chunk by chunk (dt.month, NaN where the
    date is NaT): float64, as pandas' to_numpy() of the float64 column
    (it once failed the job, the tensor typed int64)"""
    P = pd.read_csv(os.path.join(data, "t.csv"), parse_dates=["when", "day"])
    want = P.when.dt.month.to_numpy()
    for chunk in (40, None):
        rc, err, got = run([rc_node(chunk), op("c", "getitem", "t", columns="when"),
                            op("m", "dt.month", "c"), op("v", "to_tensor", "m")], ["v"], data)
        why = "exit %d: %s" % (rc, err.strip()[:300]) if rc else ""
        if not why and (got["v"].dtype != want.dtype or
                        not np.array_equal(got["v"], want, equal_nan=True)):
            why = "%r %r vs pandas %r %r" % (got["v"].dtype, got["v"][:8], want.dtype, want[:8])
        report("tensor_of_chunk_typed/chunk=%s" % chunk, why)


def rejects(data):
    with open(os.path.join(data, "bad.csv"), "w") as f:
        f.write("when,v\n2024-01-01,1\n2024-13-01,2\n")
    with open(os.path.join(data, "tz.csv"), "w") as f:
        f.write("when,v\n2024-01-01T10:00:00Z,1\n")
    with open(os.path.join(data, "word.csv"), "w") as f:
        f.write("when,v\n2024-01-01,1\nsoon,2\n")
    with open(os.path.join(data, "edge.csv"), "w") as f:
        f.write("when,v\n2262-04-11 23:00:00,1\n")
    edge = [{"key": "t", "op": "dataframe.read_csv", "path": "edge.csv", "parse_dates": ["when"]},
            op("c", "getitem", "t", columns="when")]
    when = [rc_node(None), op("c", "getitem", "t", columns="when")]
    for name, nodes, code, words in [
        ("unknown_column", [{"key": "t", "op": "dataframe.read_csv", "path": "t.csv",
                             "parse_dates": ["nope"]}], 2,
         ["Missing column provided to 'parse_dates': 'nope'"]),
        ("not_a_list", [{"key": "t", "op": "dataframe.read_csv", "path": "t.csv",
                         "parse_dates": True}], 2, ["parse_dates", "list of column names"]),
        ("dt_of_ints", [rc_node(None), op("c", "getitem", "t", columns="k"),
                        op("y", "dt.year", "c")], 2,
         ["Can only use .dt accessor with datetimelike values", "int64"]),
        ("dt_of_frame", [rc_node(None), op("y", "dt.year", "t")], 2, ["a Series"]),
        ("clip_of_datetimes", [rc_node(None), op("c", "clip", "t", lower=0)], 2,
         ["'when' is datetime64[ns]", "takes numbers"]),
        ("abs_of_datetimes", [rc_node(None), op("a", "abs", "t")], 2,
         ["'when' is datetime64[ns]", "takes numbers"]),
        ("round_of_a_datetime_series", [rc_node(None), op("c", "getitem", "t", columns="when"),
                                        op("r", "round", "c")], 2,
         ["'when' is a datetime64[ns] Series", "Invalid frequency: 0"]),
        ("bad_month", [{"key": "t", "op": "dataframe.read_csv", "path": "bad.csv",
                        "parse_dates": ["when"]}], 1, ["'when'", "row 1", "2024-13-01",
                                                        "not a valid date"]),
        ("compare_not_a_date", [rc_node(None), op("c", "getitem", "t", columns="when"),
                                {"key": "e", "op": "less", "inputs": ["c", {"value": "soon"}]}],
         2, ["'soon' compared with a datetime Series", "not a date"]),
        ("query_not_a_date", [rc_node(None), op("q", "query", "t", expr="day > 'later'")], 2,
         ["'later' compared with a datetime column"]),
        ("time_zone", [{"key": "t", "op": "dataframe.read_csv", "path": "tz.csv",
                        "parse_dates": ["when"]}], 1, ["time zone"]),
        ("not_a_date", [{"key": "t", "op": "dataframe.read_csv", "path": "word.csv",
                         "parse_dates": ["when"]}], 1, ["'soon'", "not a date"]),
        # dt.floor, ceil and round: pandas' words for a frequency it refuses
        ("freq_calendar", when + [op("f", "dt.floor", "c", freq="W")], 2,
         ["freq: W is a non-fixed frequency"]),
        ("freq_month_start", when + [op("f", "dt.round", "c", freq="MS")], 2,
         ["MS is a non-fixed frequency"]),
        ("freq_invalid", when + [op("f", "dt.ceil", "c", freq="D2")], 2,
         ["Invalid frequency: 'D2'"]),
        ("freq_zero", when + [op("f", "dt.ceil", "c", freq="0h")], 2,
         ["'0h' is a frequency of zero"]),
        ("freq_negative", when + [op("f", "dt.floor", "c", freq="-1h")], 2,
         ["must be positive"]),
        ("freq_missing", when + [op("f", "dt.floor", "c")], 2, ['"freq" must be']),
        ("freq_not_whole_ns", when + [op("f", "dt.floor", "c", freq="0.5N")], 2,
         ["Invalid frequency: '0.5N'"]),
        ("freq_of_normalize", when + [op("f", "dt.normalize", "c", freq="D")], 2,
         ['unknown field "freq"']),
        ("strftime_without_format", when + [op("f", "dt.strftime", "c")], 2,
         ['"date_format" must be a format string']),
        ("strftime_empty_format", when + [op("f", "dt.strftime", "c", date_format="")], 2,
         ['an empty "date_format"']),
        ("ceil_past_range", edge + [op("f", "dt.ceil", "c", freq="D")], 1,
         ["2262-04-11T23:00:00", "out of datetime64[ns]'s range"]),
    ]:
        expect_refused(data, "reject/" + name, nodes, code, words)


def first_day(data):
    """datetime64[ns]'s first day (1677-09-21, from 00:12:43.145224193):
    its values written, their fields and strftime, and a timedelta's str
    of about -106752 days (day * 86400e9 passed int64 there)"""
    with open(os.path.join(data, "first.csv"), "w") as f:
        f.write("when,v\n1677-09-21 00:13:00.5,1\n1677-09-21 23:59:59,2\n2262-04-11 23:47:16,3\n")
    P = pd.read_csv(os.path.join(data, "first.csv"), parse_dates=["when"])
    w = P.when
    nodes = [{"key": "t", "op": "dataframe.read_csv", "path": "first.csv", "parse_dates": ["when"]},
             op("w", "getitem", "t", columns="when"), op("h", "dt.hour", "w"),
             op("m", "dt.minute", "w"), op("sf", "dt.strftime", "w", date_format="%Y-%m-%d %H:%M"),
             op("l", "getitem", "t", columns="when"),
             {"key": "d", "op": "subtract", "inputs": ["w", {"value": "1970-01-01"}]},
             op("dd", "dt.days", "d"), op("ds", "dt.seconds", "d")]
    d = w - pd.Timestamp("1970-01-01")
    report("first_day", run_and_compare(nodes, {
        "w": w, "h": w.dt.hour, "m": w.dt.minute, "sf": w.dt.strftime("%Y-%m-%d %H:%M"),
        "dd": d.dt.days, "ds": d.dt.seconds}, data))
    # (pandas cannot read back its own str of -106752 days: compared as text)
    rc, err, got = run(nodes, ["d"], data)
    why = "exit %d: %s" % (rc, err.strip()[:300]) if rc else ""
    if not why and got["d"]["data"] != [str(v) for v in d]:
        why = "%r vs pandas %r" % (got["d"]["data"], [str(v) for v in d])
    report("first_day/timedelta_str", why)


def expect_refused(data, name, nodes, code, words):
    """nodes' last one exits with code, its message holding every word."""
    rc, err, _ = run(nodes, [nodes[-1]["key"]], data)
    why = ""
    if rc != code:
        why = "exit %d (want %d): %s" % (rc, code, err.strip()[:300])
    else:
        for w in words:
            if w not in err:
                why = "message %r lacks %r" % (err.strip()[:300], w)
                break
    report(name, why)


# formats as users' files write dates: (strftime form to write, to_datetime format)
FORMATS = [("%d/%m/%Y", "%d/%m/%Y"), ("%m-%d-%y %H:%M", "%m-%d-%y %H:%M"),
           ("%b %d %Y %I:%M%p", "%b %d %Y %I:%M%p"), ("%Y%m%d", "%Y%m%d"),
           ("%d %B %Y, %H:%M:%S.%f", "%d %B %Y, %H:%M:%S.%f"), ("%Y-%j", "%Y-%j"),
           ("%A %d.%m.%Y", "%A %d.%m.%Y"), ("%Y-%m-%dT%H:%M:%S", None),
           # without a format, pandas' delimited dates (month first, swapped
           # where the first number cannot be a month) and dateutil's time
           ("%m/%d/%Y", None), ("%d.%m.%Y %H:%M:%S", None), ("%m/%d/%Y %I:%M %p", None),
           ("%-m/%-d/%Y %-H:%M", None), ("%m-%Y", None), ("%m/%d/%Y %H:%M:%S.%f789", None),
           ("%Y-%m-%d %H:%M:%S.%f789", None), ("%d/%m/%Y %H:%M:%S.%f", None)]


def to_datetime_cases(data):
    """pd.to_datetime of strings (ISO forms, pandas' delimited dates such
    as MM/DD/YYYY with a time or not, and strptime formats written by
    Python's strftime, with malformed values coerced to NaT) and of numbers
    with a unit, against pandas, over chunks of one and of many rows."""
    rng = np.random.default_rng(31)
    n = 120
    when = pd.Timestamp("1990-01-01") + pd.to_timedelta(rng.integers(0, 10 ** 9, n), unit="s") \
        + pd.to_timedelta(rng.integers(0, 10 ** 6, n), unit="us")
    cols = {}
    for k, (w, fmt) in enumerate(FORMATS):
        v = [t.strftime(w) for t in when]
        if "%b" in w or "%B" in w or "%A" in w:  # names in any case
            v = [x.lower() if q % 3 == 0 else x.upper() if q % 3 == 1 else x
                 for q, x in enumerate(v)]
        for q in rng.choice(n, 8, replace=False):
            # (pandas' parser without a format reads one-digit seconds too:
            # the truncated value only where a format is given)
            v[q] = ["", "n/a", v[q] + "x", v[q][:-1] if fmt else "2024-13-01", None,
                    "2024-02-30", "31/02/2020", "  " + v[q]][q % 8]
        cols["s%d" % k] = v
    nums = rng.integers(-2 * 10 ** 9, 2 * 10 ** 9, n)
    P = pd.DataFrame(dict(cols, n=nums, f=rng.random(n) * 1e4))
    P.loc[3, "f"] = np.nan
    P.to_json(os.path.join(data, "td.json"), orient="records", lines=True)
    P = pd.read_json(os.path.join(data, "td.json"), orient="records", lines=True,
                     convert_dates=False, dtype={c: object for c in cols})
    for chunk in (1, None):
        src = {"key": "t", "op": "dataframe.read_json", "path": "td.json", "orient": "records",
               "lines": True}
        nodes = [src] + ([{"key": "t1", "op": "dataframe.iloc", "inputs": ["t"], "rows": "::1"}]
                         if chunk else [])
        base = "t1" if chunk else "t"
        want = {}
        for k, (_, fmt) in enumerate(FORMATS):
            c = "s%d" % k
            nodes.append(op("c" + c, "getitem", base, columns=c))
            kw = {"errors": "coerce"}
            if fmt:
                kw["format"] = fmt
            nodes.append(op("d" + c, "to_datetime", "c" + c, **kw))
            with warnings.catch_warnings():  # pandas' "Parsing dates in DD/MM/YYYY format"
                warnings.simplefilter("ignore", UserWarning)
                want["d" + c] = pd.to_datetime(P[c], **kw)
                if not fmt:  # dayfirst: pandas' delimited dates and dateutil's, day first
                    nodes.append(op("f" + c, "to_datetime", "c" + c, dayfirst=True, **kw))
                    want["f" + c] = pd.to_datetime(P[c], dayfirst=True, **kw)
        for c, unit in (("n", "s"), ("n", "ms"), ("f", "s"), ("f", "D"), ("n", None),
                        ("f", "h"), ("f", "m")):
            key = "u%s_%s" % (c, unit)
            nodes += [op("c" + key, "getitem", base, columns=c),
                      op(key, "to_datetime", "c" + key, **({"unit": unit} if unit else {}))]
            want[key] = pd.to_datetime(P[c], **({"unit": unit} if unit else {}))
        report("to_datetime/chunk=%s" % chunk, run_and_compare(nodes, want, data))
    src = [{"key": "t", "op": "dataframe.read_json", "path": "td.json", "orient": "records",
            "lines": True}, op("c", "getitem", "t", columns="s0"),
           op("x", "getitem", "t", columns="n")]
    for name, node, code, words in [
        ("raise", op("r", "to_datetime", "c", format="%d/%m/%Y"), 1,
         ["time data", "'%d/%m/%Y'"]),
        ("raise_iso", op("r", "to_datetime", "c"), 1, ["time data", "not a date"]),
        ("bad_directive", op("r", "to_datetime", "c", format="%Q"), 2,
         ["'Q' is a bad directive"]),
        ("time_zone_directive", op("r", "to_datetime", "c", format="%Y %z"), 2,
         ["'z' is a bad directive"]),
        ("errors_ignore", op("r", "to_datetime", "c", errors="ignore"), 2, ["raise or coerce"]),
        ("unit_of_strings", op("r", "to_datetime", "c", unit="s"), 2, ["\"unit\" is for numbers"]),
        ("format_of_numbers", op("r", "to_datetime", "x", format="%Y"), 2, ["\"format\" is for strings"]),
        ("bad_unit", op("r", "to_datetime", "x", unit="H"), 2, ["D, h, m, s, ms, us or ns"]),
        ("out_of_range", op("r", "to_datetime", "x", unit="D"), 1, ["OutOfBoundsDatetime"]),
        ("of_a_frame", op("r", "to_datetime", "t"), 2, ["a Series"])]:
        expect_refused(data, "to_datetime_rejects/" + name, src + [node], code, words)


if __name__ == "__main__":
    sys.exit(main())
