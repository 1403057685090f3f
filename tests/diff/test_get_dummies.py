#!/usr/bin/python3
"""dataframe.get_dummies through mars-run, against pandas 1.5's
pd.get_dummies: a DataFrame's string columns by default, or the columns
named (int, float, bool and string ones); a Series (its values as the
columns' labels, integers too); prefix as a string, a list and an object,
prefix_sep; dummy_na (pandas' float labels beside integers: "i_1.0"),
drop_first, dtype bool, int64 and float64; categories the sorted distinct
values (pandas' own), and categories of one's own, in one's order, with
one no row holds and values no category holds; a datetime column kept (pandas' get_dummies of a
Categorical of those categories: such a value counts as missing); after a filter, and the result used by
later ops (a selection of its columns and their sums). Each case runs on one-row
chunks, uneven chunks and one chunk, exactly. Then the rejections, and a chunk whose
dummies would pass 2 GiB.

Usage: test_get_dummies.py. Prints `RESULT passed=N failed=M`."""

import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_dates as td  # noqa: E402  (its runner and report)
from test_rolling_time import compare  # noqa: E402  (exact)

op = td.op


def make_csv(path, rng, n):
    s = rng.choice(["paris", "lyon", "nice", "\u00e9vry"], n).astype(object)
    s[rng.random(n) < 0.15] = None
    pd.DataFrame({"s": s, "i": rng.integers(0, 4, n), "x": rng.integers(0, 3, n) * 0.25,
                  "b": rng.random(n) < 0.4, "t": rng.choice(["u", "v"], n),
                  "v": np.round(rng.standard_normal(n), 3),
                  "when": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 10 ** 6, n),
                                                                      unit="s")}
                 ).to_csv(path, index=False)


def cats(P, c):
    return sorted(P[c].dropna().unique().tolist())


def cases(P):
    """(name, nodes after read_csv "t", {key: pandas' value})"""
    out = []
    allc = {c: cats(P, c) for c in ("s", "i", "x", "b", "t")}
    nodes, want = [], {}
    for q, (kw, pkw) in enumerate([
            ({}, {}),
            ({"dtype": "int64"}, {"dtype": "int64"}),
            ({"columns": ["s", "i", "x", "b"], "dtype": "float64"},
             {"columns": ["s", "i", "x", "b"], "dtype": float}),
            ({"columns": ["i", "b"], "dummy_na": True}, {"columns": ["i", "b"], "dummy_na": True}),
            ({"drop_first": True, "prefix_sep": "::"}, {"drop_first": True, "prefix_sep": "::"}),
            ({"columns": ["s"], "dummy_na": True, "drop_first": True},
             {"columns": ["s"], "dummy_na": True, "drop_first": True}),
            ({"prefix": ["S", "T"]}, {"prefix": ["S", "T"]}),
            ({"prefix": {"s": "city", "t": "kind"}}, {"prefix": {"s": "city", "t": "kind"}}),
            ({"columns": ["t"], "prefix": "only"}, {"columns": ["t"], "prefix": "only"}),
            ({"columns": []}, {"columns": []})]):
        enc = kw.get("columns", ["s", "t"])
        nodes.append(op("d%d" % q, "get_dummies", "t", categories={c: allc[c] for c in enc}, **kw))
        pkw.setdefault("dtype", bool)
        want["d%d" % q] = pd.get_dummies(P, **pkw)
    out.append(("frames", nodes, want))
    # a Series: labels the values themselves, or prefixed
    nodes = [op(c, "getitem", "t", columns=c) for c in ("s", "i", "x", "b")]
    want = {}
    for q, (src, kw) in enumerate([("s", {}), ("i", {}), ("i", {"dtype": "int64"}),
                                   ("x", {"prefix": "x"}), ("b", {"prefix": "flag"}),
                                   ("i", {"prefix": "p", "dummy_na": True}),
                                   ("s", {"drop_first": True})]):
        nodes.append(op("e%d" % q, "get_dummies", src, categories=allc[src], **kw))
        pkw = dict(kw, dtype=bool if "dtype" not in kw else kw["dtype"])
        want["e%d" % q] = pd.get_dummies(P[src], **pkw)
    out.append(("series", nodes, want))
    # categories of one's own: pandas' get_dummies of a Categorical of them
    own = ["nice", "brest", "paris"]
    C = P.assign(s=pd.Categorical(P.s, categories=own))
    nodes = [op("o1", "get_dummies", "t", columns=["s"], categories={"s": own}, dummy_na=True),
             op("o2", "get_dummies", "t", columns=["i"], categories={"i": [3, 0, 7]},
                dtype="int64")]
    out.append(("own_categories", nodes, {
        "o1": pd.get_dummies(C, columns=["s"], dummy_na=True, dtype=bool),
        "o2": pd.get_dummies(P.assign(i=pd.Categorical(P.i, categories=[3, 0, 7])),
                             columns=["i"], dtype="int64")}))
    # after a filter, then used: a column's sum, and to_tensor of the codes
    F = P[P.v > 0]
    D = pd.get_dummies(F[["s", "v"]], dtype="int64")
    out.append(("used", [
        {"key": "m", "op": "greater", "inputs": ["v", 0]},
        op("v", "getitem", "t", columns="v"), op("sv", "getitem", "t", columns=["s", "v"]),
        {"key": "fl", "op": "dataframe.filter", "inputs": ["sv", "m"]},
        op("fd", "get_dummies", "fl", categories={"s": allc["s"]}, dtype="int64"),
        op("two", "getitem", "fd", columns=["s_paris", "s_lyon"]), op("tot", "sum", "two")],
        {"fd": D, "tot": D[["s_paris", "s_lyon"]].sum()}))
    return out


def rejects(data):
    base = [{"key": "t", "op": "dataframe.read_csv", "path": "t.csv", "parse_dates": ["when"]},
            op("x", "getitem", "t", columns="x"), op("d", "getitem", "t", columns="when"),
            op("i", "getitem", "t", columns="i")]
    for name, src, kw, words in [
        ("no_categories", "t", {}, ["\"categories\" must be an object"]),
        ("series_object", "i", {"categories": {"i": [1]}}, ["\"categories\" must be a list"]),
        ("missing_list", "t", {"categories": {"s": ["a"]}}, ["no list for column 't'"]),
        ("extra", "t", {"categories": {"s": ["a"], "t": ["u"], "i": [1]}}, ["not encoded"]),
        ("null_category", "t", {"categories": {"s": [None], "t": ["u"]}}, ["not null"]),
        ("wrong_kind", "t", {"categories": {"s": [1], "t": ["u"]}}, ["must be object values"]),
        ("dtype", "t", {"categories": {"s": ["a"], "t": ["u"]}, "dtype": "uint8"},
         ["uint8"]),
        ("prefix_len", "t", {"categories": {"s": ["a"], "t": ["u"]}, "prefix": ["a"]},
         ["Length of 'prefix' (1) did not match the length of the columns being encoded (2)."]),
        ("prefix_same", "t", {"categories": {"s": ["a"], "t": ["a"]}, "prefix": "p"},
         ["two columns 'p_a'"]),
        ("float_labels", "x", {"categories": [0.25]}, ["give a prefix"]),
        ("nan_label", "i", {"categories": [1], "dummy_na": True}, ["give a prefix"]),
        ("datetime", "d", {"categories": [1], "prefix": "p"}, ["datetime64[ns]"]),
        ("columns_twice", "t", {"columns": ["s", "s"], "categories": {"s": ["a"]}}, ["twice"]),
        ("no_column", "t", {"columns": ["zz"], "categories": {}}, ["no column 'zz'"]),
    ]:
        node = dict({"key": "r", "op": "dataframe.get_dummies", "inputs": [src]}, **kw)
        td.expect_refused(data, "reject/" + name, base + [node], 2, words)
    # a chunk whose dummies would pass 2 GiB fails its job, naming the limit
    pd.DataFrame({"i": range(2200)}).to_csv(os.path.join(data, "big.csv"), index=False)
    td.expect_refused(data, "reject/two_gib", [
        {"key": "t", "op": "dataframe.read_csv", "path": "big.csv"},
        op("i", "getitem", "t", columns="i"),
        op("r", "get_dummies", "i", categories=list(range(1000000)))], 1,
        ["a chunk of 2200 rows makes 1000000 columns", "(2 GiB)"])


def all_cases(data):
    make_csv(os.path.join(data, "t.csv"), np.random.default_rng(29), 110)
    P = pd.read_csv(os.path.join(data, "t.csv"), float_precision="round_trip",
                    parse_dates=["when"])
    td.over_chunkings(data, cases(P), (1, 300, None), parse_dates=["when"], cmp=compare)
    rejects(data)


def main():
    return td.suite_main("dummies_data_", all_cases)


if __name__ == "__main__":
    sys.exit(main())
