#!/usr/bin/python3
"""dataframe.merge_asof through mars-run, against pandas 1.5's
pd.merge_asof: every direction (backward, forward, nearest), with and
without exact matches, by one column, by two, left_by/right_by, with a
tolerance, on int, float and datetime keys (a tolerance of "90s"),
left_on/right_on, custom suffixes; keys repeating within and across
chunks on both sides; missing by values (pandas matches them with each
other); right columns that go missing (int64 to float64, bools to
object, strings to None). Each case runs on one-row chunks (260 left
chunks times 420 right ones: the union sort's path), small uneven chunks
and one chunk (backward and forward matched in place, nearest sorted),
and equals pandas exactly. Then the rejections:
unsorted keys (within a chunk and across chunks), missing keys, key
types, tolerances, directions.

Usage: test_merge_asof.py. Prints `RESULT passed=N failed=M`."""

import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_dates as td  # noqa: E402  (its runner and report)
from test_rolling_time import compare  # noqa: E402  (exact)


def make_csvs(data, rng):
    """trades (left) and quotes (right): rising times with repeats, keys
    with missing values, ints, floats, bools, strings"""
    nl, nr = 260, 420
    base = np.datetime64("2024-05-01T09:30:00")
    lt = np.sort(rng.integers(0, 3000, nl))
    rt = np.sort(rng.integers(0, 3000, nr))
    rt[100:110] = rt[100]  # a run of one key
    L = pd.DataFrame({"ts": base + lt.astype("timedelta64[s]"), "t": lt,
                      "f": np.round(lt / 7.0, 3),
                      "k": rng.choice(["AAPL", "MSFT", "\u00c9DF", None], nl),
                      "j": rng.integers(0, 2, nl), "v": np.round(rng.standard_normal(nl), 4)})
    R = pd.DataFrame({"ts": base + rt.astype("timedelta64[s]"), "t": rt,
                      "f": np.round(rt / 7.0, 3),
                      "k": rng.choice(["AAPL", "MSFT", "\u00c9DF", "IBM", None], nr),
                      "j": rng.integers(0, 2, nr), "w": rng.integers(0, 1000, nr),
                      "ok": rng.random(nr) < 0.5, "s": rng.choice(["bid", "ask"], nr),
                      "v": np.round(rng.standard_normal(nr), 4)})
    L.to_csv(os.path.join(data, "l.csv"), index=False)
    R.to_csv(os.path.join(data, "r.csv"), index=False)


def read(data, name):
    return pd.read_csv(os.path.join(data, name), parse_dates=["ts"],
                       float_precision="round_trip")


def src(chunk):
    out = []
    for key, path in (("l", "l.csv"), ("r", "r.csv")):
        n = {"key": key, "op": "dataframe.read_csv", "path": path, "parse_dates": ["ts"]}
        if chunk:
            n["chunk_bytes"] = chunk
        out.append(n)
    return out


def asof(key, ins, **kw):
    return dict({"key": key, "op": "dataframe.merge_asof", "inputs": ins}, **kw)


def cases(L, R):
    out = []
    nodes, want = [], {}
    i = 0
    for d in ("backward", "forward", "nearest"):
        for ex in (True, False):
            for by in (None, "k", ["k", "j"]):
                for tol in (None, 15):
                    kw = {"on": "t", "direction": d, "allow_exact_matches": ex}
                    if by:
                        kw["by"] = by
                    if tol is not None:
                        kw["tolerance"] = tol
                    nodes.append(asof("m%d" % i, ["l", "r"], **kw))
                    want["m%d" % i] = pd.merge_asof(L, R, **kw)
                    i += 1
    out.append(("directions", nodes, want))
    # float keys, datetime keys with a span of time, left_on/right_on,
    # left_by/right_by, suffixes, fewer columns
    Lf, Rf = L[["f", "k", "v"]], R[["f", "k", "w", "v"]]
    Rt = R[["ts", "k", "ok", "s"]].rename(columns={"ts": "qt", "k": "sym"})
    nodes = [{"key": "lf", "op": "dataframe.getitem", "inputs": ["l"], "columns": ["f", "k", "v"]},
             {"key": "rf", "op": "dataframe.getitem", "inputs": ["r"],
              "columns": ["f", "k", "w", "v"]},
             {"key": "rt0", "op": "dataframe.getitem", "inputs": ["r"],
              "columns": ["ts", "k", "ok", "s"]},
             {"key": "rt", "op": "dataframe.rename", "inputs": ["rt0"],
              "columns": {"ts": "qt", "k": "sym"}},
             asof("a", ["lf", "rf"], on="f", direction="nearest", tolerance=0.5),
             asof("b", ["l", "r"], on="ts", by="k", tolerance="90s"),
             asof("c", ["l", "rt"], left_on="ts", right_on="qt", left_by="k", right_by="sym",
                  direction="forward", allow_exact_matches=False),
             asof("e", ["lf", "rf"], on="f", by="k", suffixes=["_trade", "_quote"])]
    want = {"a": pd.merge_asof(Lf, Rf, on="f", direction="nearest", tolerance=0.5),
            "b": pd.merge_asof(L, R, on="ts", by="k", tolerance=pd.Timedelta("90s")),
            "c": pd.merge_asof(L, Rt, left_on="ts", right_on="qt", left_by="k", right_by="sym",
                               direction="forward", allow_exact_matches=False),
            "e": pd.merge_asof(Lf, Rf, on="f", by="k", suffixes=("_trade", "_quote"))}
    out.append(("keys_and_names", nodes, want))
    return out


def rejects(data, L):
    base = src(None)
    for name, kw, words in [
        ("direction", {"on": "t", "direction": "up"}, ["direction invalid: up"]),
        ("exact", {"on": "t", "allow_exact_matches": 1}, ["allow_exact_matches must be boolean"]),
        ("tolerance_negative", {"on": "t", "tolerance": -1}, ["tolerance must be positive"]),
        ("tolerance_float", {"on": "t", "tolerance": 1.5}, ["incompatible tolerance"]),
        ("tolerance_time", {"on": "ts", "tolerance": 5}, ["incompatible tolerance"]),
        ("key_types", {"left_on": "t", "right_on": "f"}, ["incompatible merge keys"]),
        ("key_string", {"on": "k"}, ["merge_asof's key is a number"]),
        ("no_key", {}, ["merge_asof needs \"on\""]),
        ("by_float", {"on": "t", "by": "f"}, ["by columns"]),
        ("by_sides", {"on": "t", "left_by": "k"}, ["missing right_by"]),
        ("unknown", {"on": "t", "how": "left"}, ["how"]),
    ]:
        td.expect_refused(data, "reject/" + name, base + [asof("m", ["l", "r"], **kw)], 2, words)
    # pandas' checks when the rows are read: keys sorted (within a chunk
    # and across chunks) and present
    L.iloc[::-1].to_csv(os.path.join(data, "down.csv"), index=False)
    Lm = L.copy()
    Lm.loc[50, "f"] = np.nan
    Lm.to_csv(os.path.join(data, "miss.csv"), index=False)
    for name, path, chunk, on, words in [
        ("unsorted", "down.csv", None, "t", ["left keys must be sorted"]),
        ("unsorted_across_chunks", "down.csv", 1, "t", ["left keys must be sorted"]),
        ("missing_key", "miss.csv", 500, "f", ["Merge keys contain null values on left side"]),
    ]:
        rd = {"key": "l", "op": "dataframe.read_csv", "path": path}
        if chunk:
            rd["chunk_bytes"] = chunk
        td.expect_refused(data, "reject/" + name, [
            rd, {"key": "r", "op": "dataframe.read_csv", "path": "r.csv", "parse_dates": ["ts"]},
            asof("m", ["l", "r"], on=on)], 1, words)
    # right's keys out of order only across two chunks of sorted rows
    R = read(data, "r.csv")
    pd.concat([R.iloc[200:], R.iloc[:200]]).to_csv(os.path.join(data, "rot.csv"), index=False)
    td.expect_refused(data, "reject/right_unsorted_across_chunks", [
        {"key": "l", "op": "dataframe.read_csv", "path": "l.csv"},
        {"key": "r", "op": "dataframe.read_csv", "path": "rot.csv", "chunk_bytes": 2000},
        asof("m", ["l", "r"], on="t")], 1, ["right keys must be sorted"])


def all_cases(data):
    make_csvs(data, np.random.default_rng(12))
    L, R = read(data, "l.csv"), read(data, "r.csv")
    cs = cases(L, R)
    for chunk in (1, 700, None):
        for name, nodes, want in cs:
            td.report("%s/chunk=%s" % (name, chunk),
                      td.run_and_compare(src(chunk) + nodes, want, data, cmp=compare))
    rejects(data, L)


def main():
    return td.suite_main("merge_asof_data_", all_cases)


if __name__ == "__main__":
    sys.exit(main())
