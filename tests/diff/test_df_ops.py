#!/usr/bin/python3
"""DataFrame ops of issue 14 through mars-run, against pandas 1.5: the
fixes (index_names, to_tensor as a tensor, the byte-order mark, min/max of
nothing, count of strings, string literals) and the pandas-named ops added
since (graph-format.md, additions). Inputs are many uneven chunks of a CSV
with NaN, strings with missing values, bools and duplicate keys, and
one-row chunks.

Usage: test_df_ops.py [CASE...] (default: every case). Prints
`RESULT passed=N failed=M`."""

import json
import math
import os
import shutil
import sys
import tempfile
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_df as T  # noqa: E402  (run, load, expect_frame, same)

CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def make_data(data):
    rng = np.random.default_rng(14)
    n = 400
    words = np.array(["paris", "lyon", "nice", "Paris", "x y", "\u00e9t\u00e9"])
    s = words[rng.integers(0, len(words), n)].astype(object)
    s[rng.random(n) < 0.1] = np.nan
    f = np.round(rng.standard_normal(n) * 10, 3)
    f[rng.random(n) < 0.15] = np.nan
    df = pd.DataFrame({"k": rng.integers(0, 5, n), "i": rng.integers(-50, 50, n), "f": f,
                       "b": rng.random(n) < 0.5, "s": s,
                       "g": np.array(["a", "b", "c"])[rng.integers(0, 3, n)]})
    df.to_csv(os.path.join(data, "t.csv"), index=False)
    return pd.read_csv(os.path.join(data, "t.csv"))


# chunk_bytes 300: about 40 uneven chunks of the 400-row CSV
CSV = {"key": "t", "op": "dataframe.read_csv", "path": "t.csv", "chunk_bytes": 300}
# one-row chunks
CSV1 = {"key": "t1", "op": "dataframe.read_csv", "path": "t.csv", "chunk_bytes": 1}


def col(key, src, name):
    return {"key": key, "op": "dataframe.getitem", "inputs": [src], "columns": name}


def run_doc(data, nodes, fetch):
    rc, err, out = T.run({"version": 1, "nodes": nodes, "fetch": fetch}, data)
    if rc != 0:
        shutil.rmtree(out, ignore_errors=True)
        return None, "exit %d: %s" % (rc, err.strip()[:400])
    got = {k: T.load(out, k) for k in fetch}
    shutil.rmtree(out, ignore_errors=True)
    return got, ""


def check_frames(data, nodes, want, extra=None):
    """want: {key: pandas object}. Returns '' or why."""
    got, why = run_doc(data, nodes, list(want))
    if why:
        return why
    for k, ref in want.items():
        g = got[k]
        if isinstance(ref, np.ndarray) or np.isscalar(ref):
            ref = np.asarray(ref)
            if not isinstance(g, np.ndarray):
                return "%s: a tensor was expected, got %r" % (k, str(g)[:200])
            if g.shape != ref.shape or g.dtype != ref.dtype:
                return "%s: %s %s vs %s %s" % (k, g.shape, g.dtype, ref.shape, ref.dtype)
            if not np.allclose(g.astype(float), ref.astype(float), equal_nan=True,
                               rtol=1e-12, atol=0):
                return "%s: %r vs %r" % (k, g, ref)
            continue
        why = T.expect_frame(g, ref)
        if why:
            return "%s: %s" % (k, why)
        names = [None if x is None else x for x in ref.index.names]
        if g.get("index_names") != names:
            return "%s: index_names %r vs pandas %r" % (k, g.get("index_names"), names)
    if extra:
        return extra(got)
    return ""


def rejected(data, nodes, key, words):
    rc, err, out = T.run({"version": 1, "nodes": nodes, "fetch": [key]}, data, fails=True)
    shutil.rmtree(out, ignore_errors=True)
    if rc != 2 or ('node "%s"' % key) not in err or "\n" in err.strip():
        return "exit %d: %s" % (rc, err.strip()[:300])
    for w in words:
        if w not in err:
            return "message lacks %r: %s" % (w, err.strip()[:300])
    return ""


# ---------------------------------------------------------------- the fixes

@case
def index_names(data, pdf):
    nodes = [CSV, {"key": "g2", "op": "dataframe.groupby_agg", "inputs": ["t"],
                   "by": ["k", "b"], "agg": {"n": ["f", "sum"]}},
             {"key": "g1", "op": "dataframe.groupby_agg", "inputs": ["t"], "by": ["g"],
              "agg": {"n": ["i", "max"]}}]
    return check_frames(data, nodes, {
        "t": pdf,
        "g2": pdf.groupby(["k", "b"]).agg(n=("f", "sum")),
        "g1": pdf.groupby(["g"]).agg(n=("i", "max"))})


@case
def to_tensor_ops(data, pdf):
    nodes = [CSV, {"key": "tt", "op": "dataframe.to_tensor", "inputs": ["t"]},
             {"key": "su", "op": "sum", "inputs": ["tt"], "axis": 0},
             {"key": "nm", "op": "multiply", "inputs": ["tt", 2]},
             {"key": "tr", "op": "transpose", "inputs": ["tt"]},
             {"key": "fi", "op": "dataframe.getitem", "inputs": ["t"], "columns": "f"},
             {"key": "ft", "op": "dataframe.to_tensor", "inputs": ["fi"]},
             {"key": "fs", "op": "max", "inputs": ["ft"]}]
    a = pdf[["k", "i", "f", "b"]].to_numpy().astype(float)
    f = pdf.f.to_numpy()
    return check_frames(data, nodes, {"tt": a, "su": a.sum(axis=0), "nm": a * 2, "tr": a.T,
                                      "ft": f, "fs": np.max(f)})


@case
def to_tensor_unknown_rows(data, pdf):
    # after a filter the row count is known only when it runs: mars-run
    # runs the to_tensor first (engine/stage.h), then the ops that take it
    nodes = [CSV, col("ki", "t", "k"), {"key": "m", "op": "greater", "inputs": ["ki", 2]},
             {"key": "fl", "op": "dataframe.filter", "inputs": ["t", "m"]},
             {"key": "tt", "op": "dataframe.to_tensor", "inputs": ["fl"]},
             {"key": "r", "op": "sum", "inputs": ["tt"], "axis": 0},
             {"key": "r2", "op": "multiply", "inputs": ["tt", 2]}]
    a = pdf[pdf.k > 2][["k", "i", "f", "b"]].to_numpy().astype(float)
    return check_frames(data, nodes, {"tt": a, "r": a.sum(axis=0), "r2": a * 2})


@case
def bom(data, pdf):
    with open(os.path.join(data, "bom.csv"), "wb") as fh:
        fh.write(b"\xef\xbb\xbfa,b\n1,x\n2,y\n3,z\n")
    ref = pd.read_csv(os.path.join(data, "bom.csv"))
    nodes = [{"key": "c", "op": "dataframe.read_csv", "path": "bom.csv", "chunk_bytes": 4},
             col("ca", "c", "a")]
    return check_frames(data, nodes, {"c": ref, "ca": ref.a})


@case
def header_only(data, pdf):
    """A file with a header and no rows: object columns and no rows, as
    pandas reads it; a numeric op on such a column is refused when the
    document is validated (pandas lets it through on empty data;
    docs/graph-format.md, "Where results differ from pandas")."""
    with open(os.path.join(data, "hdr.csv"), "w") as fh:
        fh.write("k,y\n")
    ref = pd.read_csv(os.path.join(data, "hdr.csv"))
    src = {"key": "h", "op": "dataframe.read_csv", "path": "hdr.csv"}
    why = check_frames(data, [src], {"h": ref})
    if why:
        return why
    for op, words in (("less", ["column 'y'", "less of strings"]),
                      ("add", ["column 'y'", "add of strings"])):
        why = rejected(data, [src, col("hy", "h", "y"), {"key": "m", "op": op,
                                                         "inputs": ["hy", 10]}], "m", words)
        if why:
            return "%s: %s" % (op, why)
    return rejected(data, [src, {"key": "c", "op": "dataframe.cumsum", "inputs": ["h"]}], "c",
                    ["column 'k' is object", "takes numbers"])


@case
def merge_empty_side(data, pdf):
    """A merge where a side has no rows keeps the columns' order of a merge
    with rows (pandas 2.2's; pandas 1.5 moves the keys behind left's other
    columns when left is empty): the order is pandas' for one row per side,
    the dtypes pandas 1.5's for the empty sides."""
    dim = pd.DataFrame({"k": [1, 2], "w": [0.5, 1.5]})
    dim.to_csv(os.path.join(data, "dim.csv"), index=False)
    d = pd.read_csv(os.path.join(data, "dim.csv"))
    for how in ("inner", "left", "right", "outer"):
        for nl, nr in ((0, 2), (0, 0), (3, 0)):
            nodes = [CSV, {"key": "lh", "op": "dataframe.head", "inputs": ["t"], "n": nl},
                     {"key": "d", "op": "dataframe.read_csv", "path": "dim.csv"},
                     {"key": "dh", "op": "dataframe.head", "inputs": ["d"], "n": nr},
                     {"key": "m", "op": "dataframe.merge", "inputs": ["lh", "dh"], "on": "k",
                      "how": how}]
            got, why = run_doc(data, nodes, ["m"])
            if why:
                return "%s %d %d: %s" % (how, nl, nr, why)
            want = pdf.head(1).merge(d.head(1), on="k", how=how).columns
            ref = pdf.head(nl).merge(d.head(nr), on="k", how=how)
            if got["m"]["columns"] != list(want):
                return "%s %d %d: columns %r, pandas with rows %r" % (
                    how, nl, nr, got["m"]["columns"], list(want))
            if len(got["m"]["data"]) != len(ref):
                return "%s %d %d: %d rows vs pandas %d" % (how, nl, nr, len(got["m"]["data"]),
                                                          len(ref))
            dts = {c: str(t) for c, t in ref.dtypes.items()}
            if got["m"]["dtypes"] != dts:
                return "%s %d %d: dtypes %r vs pandas %r" % (how, nl, nr, got["m"]["dtypes"],
                                                            dts)
    return ""


@case
def merge_int_no_missing(data, pdf):
    """A left merge where every row matches: right's int64 column, typed
    float64 at validation (it may get missing values), comes int64. query,
    a filter, sort_values, groupby and describe over it must read it as it
    came (query read its bits as float64 and kept no row)."""
    dim = pd.DataFrame({"k": sorted(set(pdf.k)), "n": range(len(set(pdf.k)))})
    dim["n"] = dim["n"] * 7 - 3
    dim.to_csv(os.path.join(data, "dimn.csv"), index=False)
    d = pd.read_csv(os.path.join(data, "dimn.csv"))
    m = pdf.merge(d, on="k", how="left")
    nodes = [CSV, {"key": "d", "op": "dataframe.read_csv", "path": "dimn.csv", "chunk_bytes": 12},
             {"key": "m", "op": "dataframe.merge", "inputs": ["t", "d"], "on": "k",
              "how": "left"},
             {"key": "q", "op": "dataframe.query", "inputs": ["m"], "expr": "n > 4 and i < 30"},
             {"key": "q2", "op": "dataframe.query", "inputs": ["m"], "expr": "n == 11 or -n > 0"},
             col("mn", "m", "n"), {"key": "gt", "op": "greater_equal", "inputs": ["mn", 4]},
             {"key": "fl", "op": "dataframe.filter", "inputs": ["m", "gt"]},
             {"key": "gb", "op": "dataframe.groupby_agg", "inputs": ["m"], "by": ["n"],
              "agg": {"s": ["i", "sum"], "c": ["n", "count"]}}]
    return check_frames(data, nodes, {
        "m": m, "q": m.query("n > 4 and i < 30"), "q2": m.query("n == 11 or -n > 0"),
        "fl": m[m.n >= 4], "gb": m.groupby("n").agg(s=("i", "sum"), c=("n", "count"))})


@case
def concat_ignore_index(data, pdf):
    """concat with ignore_index: a new default index over the rows, the
    inputs' own (filtered, or set from a string column) dropped, kept by a
    query after it; refused along the columns."""
    f1 = pdf[pdf.i > 10]
    f2 = pdf.set_index("g")
    nodes = [CSV, col("ti", "t", "i"), {"key": "m", "op": "greater", "inputs": ["ti", 10]},
             {"key": "f1", "op": "dataframe.filter", "inputs": ["t", "m"]},
             {"key": "f2", "op": "dataframe.set_index", "inputs": ["t"], "keys": ["g"]},
             {"key": "f2c", "op": "dataframe.getitem", "inputs": ["f2"],
              "columns": ["k", "i", "f", "b", "s"]},
             {"key": "f1c", "op": "dataframe.getitem", "inputs": ["f1"],
              "columns": ["k", "i", "f", "b", "s"]},
             {"key": "c", "op": "dataframe.concat", "inputs": ["f1c", "f2c", "f1c"],
              "ignore_index": True},
             {"key": "cq", "op": "dataframe.query", "inputs": ["c"], "expr": "f > 3"},
             col("f1s", "f1", "f"), col("ts", "t", "f"),
             {"key": "cs", "op": "dataframe.concat", "inputs": ["f1s", "ts"],
              "ignore_index": True}]
    cols = ["k", "i", "f", "b", "s"]
    c = pd.concat([f1[cols], f2[cols], f1[cols]], ignore_index=True)
    why = check_frames(data, nodes, {"c": c, "cq": c.query("f > 3"),
                                     "cs": pd.concat([f1.f, pdf.f], ignore_index=True)})
    if why:
        return why
    return rejected(data, [CSV, {"key": "c", "op": "dataframe.concat", "inputs": ["t", "t"],
                                 "axis": 1, "ignore_index": True}], "c",
                    ["ignore_index", "axis"])


@case
def merge_unordered_types(data, pdf):
    """A merge read only by aggregations runs unordered, its hash parts the
    result; a part where no value of a may-miss int64 column went missing
    must still give float64, as the others, else a groupby by it or a
    nunique cannot combine them ("partials differ in layout")."""
    left = pdf.sort_values("k", kind="mergesort")[["k", "i"]]
    left.to_csv(os.path.join(data, "ls.csv"), index=False)
    dim = pd.DataFrame({"k": [0, 1, 2], "n": [10, 20, 30]})
    dim.to_csv(os.path.join(data, "dn.csv"), index=False)
    L = pd.read_csv(os.path.join(data, "ls.csv"))
    D = pd.read_csv(os.path.join(data, "dn.csv"))
    nodes = [{"key": "l", "op": "dataframe.read_csv", "path": "ls.csv", "chunk_bytes": 200},
             {"key": "d", "op": "dataframe.read_csv", "path": "dn.csv", "chunk_bytes": 8}]
    want = {}
    for how in ("left", "outer"):
        m = L.merge(D, on="k", how=how)
        nodes += [{"key": "m" + how, "op": "dataframe.merge", "inputs": ["l", "d"], "on": "k",
                   "how": how},
                  {"key": "g" + how, "op": "dataframe.groupby_agg", "inputs": ["m" + how],
                   "by": ["n"], "agg": {"c": ["i", "count"], "s": ["i", "sum"]}},
                  {"key": "u" + how, "op": "dataframe.nunique", "inputs": ["m" + how]}]
        g = m.groupby("n").agg(c=("i", "count"), s=("i", "sum"))
        if how == "outer":  # left's i may get missing values: typed float64
            g["s"] = g["s"].astype("float64")  # (graph-format.md, differences)
        want["g" + how] = g
        want["u" + how] = m.nunique()
    return check_frames(data, nodes, want)


@case
def minmax_empty(data, pdf):
    nodes = [CSV, col("ki", "t", "k"), {"key": "m", "op": "greater", "inputs": ["ki", 100]},
             {"key": "fl", "op": "dataframe.filter", "inputs": ["t", "m"]},
             {"key": "mn", "op": "dataframe.min", "inputs": ["fl"]},
             {"key": "mx", "op": "dataframe.max", "inputs": ["fl"]},
             {"key": "z", "op": "array", "data": [], "dtype": "int64"},
             {"key": "zs", "op": "dataframe.from_tensor", "inputs": ["z"], "name": "z"},
             {"key": "zmn", "op": "dataframe.min", "inputs": ["zs"]},
             {"key": "zmx", "op": "dataframe.max", "inputs": ["zs"]}]
    e = pdf[pdf.k > 100]
    zs = pd.Series([], dtype="int64", name="z")
    return check_frames(data, nodes, {
        "mn": e.min(numeric_only=True), "mx": e.max(numeric_only=True),
        "zmn": np.float64(zs.min()), "zmx": np.float64(zs.max())})


@case
def sum_prod_empty(data, pdf):
    """pandas 1.5: the sum or product of a frame with no rows is float64
    (0.0, 1.0) even when every column is int or bool; a Series' stays int.
    (Found by test_random_df_graphs.)"""
    nodes = [CSV, col("ki", "t", "k"), {"key": "m", "op": "greater", "inputs": ["ki", 100]},
             {"key": "fl", "op": "dataframe.filter", "inputs": ["t", "m"]},
             {"key": "ib", "op": "dataframe.getitem", "inputs": ["fl"], "columns": ["k", "i", "b"]},
             {"key": "su", "op": "dataframe.sum", "inputs": ["ib"]},
             {"key": "pr", "op": "dataframe.prod", "inputs": ["ib"]},
             col("ii", "fl", "i"), {"key": "si", "op": "dataframe.sum", "inputs": ["ii"]},
             {"key": "ib2", "op": "dataframe.getitem", "inputs": ["t"], "columns": ["k", "i", "b"]},
             {"key": "su2", "op": "dataframe.sum", "inputs": ["ib2"]}]
    e = pdf[pdf.k > 100][["k", "i", "b"]]
    return check_frames(data, nodes, {
        "su": e.sum(numeric_only=True), "pr": e.prod(numeric_only=True),
        "si": np.int64(e.i.sum()), "su2": pdf[["k", "i", "b"]].sum(numeric_only=True)})


@case
def count_strings(data, pdf):
    nodes = [CSV, CSV1, {"key": "c", "op": "dataframe.count", "inputs": ["t"]},
             {"key": "c1", "op": "dataframe.count", "inputs": ["t1"]},
             col("ss", "t", "s"), {"key": "cs", "op": "dataframe.count", "inputs": ["ss"]}]
    return check_frames(data, nodes, {"c": pdf.count(), "c1": pdf.count(),
                                      "cs": np.int64(pdf.s.count())})


@case
def string_literal(data, pdf):
    nodes = [CSV, col("ss", "t", "s"), col("gg", "t", "g"),
             {"key": "m", "op": "equal", "inputs": ["ss", {"value": "paris"}]},
             {"key": "fl", "op": "dataframe.filter", "inputs": ["t", "m"]},
             {"key": "ne", "op": "not_equal", "inputs": [{"value": "paris"}, "ss"]},
             {"key": "lt", "op": "less", "inputs": ["gg", {"value": "b"}]},
             {"key": "ge", "op": "greater_equal", "inputs": ["gg", "gg"]},
             {"key": "eq", "op": "equal", "inputs": ["ss", "gg"]},
             {"key": "n5", "op": "greater", "inputs": ["x", {"value": 5}]},
             col("x", "t", "i")]
    ss = pdf.s
    return check_frames(data, nodes, {
        "m": ss == "paris", "fl": pdf[ss == "paris"], "ne": "paris" != ss,
        "lt": pdf.g < "b", "ge": pdf.g >= pdf.g, "eq": ss == pdf.g,
        "n5": pdf.i > 5})


@case
def string_literal_rejects(data, pdf):
    base = [CSV, col("ss", "t", "s"), col("x", "t", "i"),
            {"key": "z", "op": "zeros", "shape": [3]}]
    for nodes, words in (
            ([{"key": "r", "op": "subtract", "inputs": ["ss", {"value": "a"}]}],
             ["comparisons and add"]),
            ([{"key": "r", "op": "equal", "inputs": ["x", {"value": "a"}]}], ["strings"]),
            ([{"key": "r", "op": "equal", "inputs": ["ss", 3]}], ["strings"]),
            ([{"key": "r", "op": "equal", "inputs": ["z", {"value": "a"}]}], ["string"]),
            ([{"key": "r", "op": "equal", "inputs": ["z", {"valu": "a"}]}], ["literal"])):
        why = rejected(data, base + nodes, "r", words)
        if why:
            return why
    return ""


# ---------------------------------------------------------------- cleaning

def op(key, name, src, **kw):
    return dict({"key": key, "op": "dataframe." + name, "inputs": [src]}, **kw)


@case
def fillna(data, pdf):
    nodes = [CSV, CSV1, col("ff", "t", "f"), col("ss", "t", "s"),
             op("v", "fillna", "t", value={"f": 0.5, "s": "zz"}),
             op("vs", "fillna", "ss", value="q"),
             op("vf", "fillna", "ff", value=-1),
             op("fw", "fillna", "t", method="ffill"),
             op("bw", "fillna", "t", method="bfill"),
             op("fw1", "fillna", "t1", method="pad"),
             op("bw1", "fillna", "t1", method="backfill"),
             op("sf", "fillna", "ff", method="ffill")]
    return check_frames(data, nodes, {
        "v": pdf.fillna({"f": 0.5, "s": "zz"}), "vs": pdf.s.fillna("q"),
        "vf": pdf.f.fillna(-1), "fw": pdf.ffill(), "bw": pdf.bfill(), "fw1": pdf.ffill(),
        "bw1": pdf.bfill(), "sf": pdf.f.ffill()})


@case
def fillna_edges(data, pdf):
    # leading and trailing NaN runs across many one-row chunks; bool with NA
    d = pd.DataFrame({"a": [np.nan, np.nan, 1.5, np.nan, np.nan, 2.5, np.nan],
                      "s": [None, "x", None, None, "y", None, None],
                      "b": [None, True, None, False, None, None, True]})
    d.to_csv(os.path.join(data, "e.csv"), index=False)
    e = pd.read_csv(os.path.join(data, "e.csv"))
    src = {"key": "e", "op": "dataframe.read_csv", "path": "e.csv", "chunk_bytes": 1}
    nodes = [src, op("fw", "fillna", "e", method="ffill"), op("bw", "fillna", "e", method="bfill"),
             op("v", "fillna", "e", value={"b": False})]
    return check_frames(data, nodes, {"fw": e.ffill(), "bw": e.bfill(),
                                      "v": e.fillna({"b": False})})


@case
def dropna(data, pdf):
    nodes = [CSV, CSV1, col("ss", "t", "s"), op("a", "dropna", "t"),
             op("al", "dropna", "t", how="all"), op("su", "dropna", "t", subset=["s"]),
             op("th", "dropna", "t1", thresh=6), op("se", "dropna", "ss")]
    return check_frames(data, nodes, {
        "a": pdf.dropna(), "al": pdf.dropna(how="all"), "su": pdf.dropna(subset=["s"]),
        "th": pdf.dropna(thresh=6), "se": pdf.s.dropna()})


@case
def isna_isin(data, pdf):
    nodes = [CSV, col("ss", "t", "s"), op("na", "isna", "t"), op("nn", "notna", "ss"),
             op("in", "isin", "t", values=[1, 2, "paris", True, None]),
             op("is", "isin", "ss", values=["nice", "lyon"])]
    return check_frames(data, nodes, {
        "na": pdf.isna(), "nn": pdf.s.notna(),
        "in": pdf.isin([1, 2, "paris", True, np.nan]), "is": pdf.s.isin(["nice", "lyon"])})


@case
def astype(data, pdf):
    nodes = [CSV, col("ff", "t", "f"), col("ii", "t", "i"),
             op("a", "astype", "t", dtype={"i": "float64", "b": "int64", "k": "str"}),
             op("fs", "astype", "ff", dtype="str"), op("ib", "astype", "ii", dtype="bool"),
             op("fb", "astype", "ff", dtype="bool"),
             op("bs", "astype", "t", dtype={"b": "str", "s": "object"})]
    return check_frames(data, nodes, {
        "a": pdf.astype({"i": "float64", "b": "int64", "k": "str"}),
        "fs": pdf.f.astype(str), "ib": pdf.i.astype(bool), "fb": pdf.f.astype(bool),
        "bs": pdf.astype({"b": "str", "s": "object"})})


@case
def astype_strings(data, pdf):
    d = pd.DataFrame({"n": ["1", "-20", "300"], "x": ["1.5", "nan", "-2e3"],
                      "f": [1e16, 1e-5, 123456.789]})
    d.to_csv(os.path.join(data, "n.csv"), index=False)
    e = pd.read_csv(os.path.join(data, "n.csv"), dtype={"n": str, "x": str})
    src = {"key": "e", "op": "dataframe.read_csv", "path": "n.csv", "chunk_bytes": 1}
    nodes = [src, col("fc", "e", "f"), op("fs", "astype", "fc", dtype="str")]
    why = check_frames(data, nodes, {"fs": e.f.astype(str)})
    if why:
        return why
    # int parsing fails when it runs on a float text, as pandas' astype raises
    e2 = pd.DataFrame({"n": ["1", "x"]})
    e2.to_csv(os.path.join(data, "n2.csv"), index=False)
    nodes = [{"key": "e", "op": "dataframe.read_csv", "path": "n2.csv"},
             op("r", "astype", "e", dtype="int64")]
    rc, err, out = T.run({"version": 1, "nodes": nodes, "fetch": ["r"]}, data, fails=True)
    shutil.rmtree(out, ignore_errors=True)
    if rc == 0 or "invalid literal" not in err:
        return "astype of 'x' to int64: exit %d %s" % (rc, err[:200])
    return ""


@case
def rename_index_names(data, pdf):
    """rename's index_names (pandas' rename_axis): a frame's index named
    and unnamed, two levels of a groupby, a Series' level, with and
    without columns renamed, over chunks; and the refusals"""
    nodes = [CSV, op("si", "set_index", "t", keys=["g"]),
             op("a", "rename", "si", index_names=["label"]),
             op("b", "rename", "a", index_names=[None], columns={"i": "ii"}),
             {"key": "gb", "op": "dataframe.groupby_agg", "inputs": ["t"], "by": ["g", "k"],
              "agg": {"s": ["i", "sum"]}},
             op("c", "rename", "gb", index_names=["G", 7]),
             col("ss", "si", "f"), op("d", "rename", "ss", index_names=["x"]),
             dict(op("e", "rename", "ss", index_names=[None]), name="z"),
             op("h", "head", "c", n=3)]
    gb = pdf.groupby(["g", "k"]).agg(s=("i", "sum"))
    why = check_frames(data, nodes, {
        "a": pdf.set_index("g").rename_axis("label"),
        "b": pdf.set_index("g").rename_axis(None).rename(columns={"i": "ii"}),
        "c": gb.rename_axis(["G", 7]), "d": pdf.set_index("g").f.rename_axis("x"),
        "e": pdf.set_index("g").f.rename_axis(None).rename("z"),
        "h": gb.rename_axis(["G", 7]).head(3)})
    if why:
        return why
    for bad, words in [(["a", "b"], "must be a list of 1 names"), ([1.5], "\"index_names\"[0] must be")]:
        why = rejected(data, [CSV, op("r", "rename", "t", index_names=bad)], "r", [words])
        if why:
            return why
    return rejected(data, [CSV, op("r", "drop", "t", columns=["b"], index_names=["x"])], "r",
                    ["unknown field \"index_names\""])


@case
def rename_drop_replace(data, pdf):
    nodes = [CSV, col("ii", "t", "i"), col("ff", "t", "f"),
             op("rn", "rename", "t", columns={"i": "ii", "s": "city", "nope": "x"}),
             op("dr", "drop", "t", columns=["b", "g"]), op("d1", "drop", "t", columns="s"),
             op("r1", "replace", "t", to_replace="paris", value="PARIS"),
             op("r2", "replace", "ii", to_replace=[1, 2, 3], value=[10, 20, 30]),
             op("r3", "replace", "t", to_replace={"nice": "NICE", "lyon": "LYON"}),
             op("r4", "replace", "ii", to_replace=5, value=0.5),
             op("r5", "replace", "ff", to_replace=None, value=0),
             op("r6", "replace", "ii", to_replace=1000, value=0.5),
             op("r7", "replace", "ii", to_replace=int(pdf.i.iloc[-1]), value=0.5),
             op("r8", "head", "r7", n=4)]
    return check_frames(data, nodes, {
        "rn": pdf.rename(columns={"i": "ii", "s": "city", "nope": "x"}),
        "dr": pdf.drop(columns=["b", "g"]), "d1": pdf.drop(columns="s"),
        "r1": pdf.replace("paris", "PARIS"), "r2": pdf.i.replace([1, 2, 3], [10, 20, 30]),
        "r3": pdf.replace({"nice": "NICE", "lyon": "LYON"}), "r4": pdf.i.replace(5, 0.5),
        "r5": pdf.f.replace(np.nan, 0),
        # nothing matches 1000: pandas keeps int64, the engine types the
        # column float64 when it validates (docs/graph-format.md)
        "r6": pdf.i.replace(1000, 0.5).astype("float64"),
        # only the last chunk holds the value: the first chunk is float64
        # too (head said int64 before)
        "r7": pdf.i.replace(int(pdf.i.iloc[-1]), 0.5),
        "r8": pdf.i.replace(int(pdf.i.iloc[-1]), 0.5).head(4)},
        extra=lambda got: "" if int(pdf.i.iloc[-1]) not in set(pdf.i.head(4)) else
        "the first rows hold the replaced value: r8 checks nothing")


@case
def clip_abs_round(data, pdf):
    num = {"key": "nu", "op": "dataframe.getitem", "inputs": ["t"], "columns": ["k", "i", "f"]}
    nodes = [CSV, num, col("ff", "t", "f"),
             op("c1", "clip", "nu", lower=-5, upper=5), op("c2", "clip", "nu", lower=0.5),
             op("c3", "clip", "ff", upper=1.25), op("ab", "abs", "nu"),
             op("r0", "round", "t"), op("r1", "round", "nu", decimals=1),
             op("rm", "round", "nu", decimals=-1)]
    nf = pdf[["k", "i", "f"]]
    return check_frames(data, nodes, {
        "c1": nf.clip(-5, 5), "c2": nf.clip(0.5), "c3": pdf.f.clip(upper=1.25), "ab": nf.abs(),
        "r0": pdf.round(), "r1": nf.round(1), "rm": nf.round(-1)})


@case
def cleaning_rejects(data, pdf):
    base = [CSV]
    for node, words in (
            (op("r", "fillna", "t", value=1), ["mix types"]),
            (op("r", "fillna", "t"), ["value", "method"]),
            (op("r", "fillna", "t", method="up"), ["Invalid fill method"]),
            (op("r", "dropna", "t", how="some"), ["how"]),
            (op("r", "drop", "t", columns=["zz"]), ["not found"]),
            (op("r", "astype", "t", dtype="int8"), ["not understood"]),
            (op("r", "replace", "t", to_replace="paris", value=1), ["mix types"]),
            (op("r", "clip", "t", lower=0), ["takes numbers"]),
            (op("r", "abs", "t"), ["object"]),
            (op("r", "isin", "t", values=3), ["list-like"])):
        why = rejected(data, base + [node], "r", words)
        if why:
            return "%s: %s" % (node["op"], why)
    return ""


# ---------------------------------------------------------------- selection and index

@case
def set_reset_index(data, pdf):
    nodes = [CSV, CSV1, op("si", "set_index", "t", keys="g"),
             op("s2", "set_index", "t", keys=["k", "b"], drop=False),
             op("sa", "set_index", "t1", keys="k", append=True),
             op("rd", "reset_index", "si", drop=True),
             op("gb", "groupby_agg", "t", by=["k", "g"], agg={"n": ["f", "sum"]}),
             op("gr", "reset_index", "gb"), col("ff", "t", "f"),
             op("ss", "reset_index", "ff"),
             {"key": "ki", "op": "dataframe.getitem", "inputs": ["t"], "columns": "k"},
             {"key": "m", "op": "greater", "inputs": ["ki", 1]},
             {"key": "fl", "op": "dataframe.filter", "inputs": ["t", "m"]},
             op("rf", "reset_index", "fl")]
    s2 = pdf.set_index(["k", "b"], drop=False)
    return check_frames(data, nodes, {
        "si": pdf.set_index("g"), "s2": s2, "sa": pdf.set_index("k", append=True),
        "rd": pdf.set_index("g").reset_index(drop=True),
        "gr": pdf.groupby(["k", "g"]).agg(n=("f", "sum")).reset_index(),
        "ss": pdf.f.reset_index(), "rf": pdf[pdf.k > 1].reset_index()})


@case
def iloc_loc_tail(data, pdf):
    si = pdf.set_index("g")
    srt = pdf.set_index("i").sort_index(kind="mergesort")  # stable, as documented
    nodes = [CSV, CSV1, op("it", "iloc", "t", rows=[0, 5, -1, 399, 17]),
             op("is", "iloc", "t", rows="10:300:7", columns=[0, -1]),
             op("ir", "iloc", "t1", rows="::-50", columns="1:4"),
             op("ic", "iloc", "t", columns="::2"),
             op("tl", "tail", "t", n=13), op("tl1", "tail", "t1", n=3), op("t0", "tail", "t", n=0),
             op("sg", "set_index", "t", keys="g"), op("lb", "loc", "sg", labels=["b", "a"]),
             op("si", "set_index", "t", keys="i"), op("so", "sort_index", "si"),
             op("ls", "loc", "so", start=-10, stop=12, columns=["f", "s"]),
             op("lo", "loc", "so", stop=-40),
             {"key": "ki", "op": "dataframe.getitem", "inputs": ["t"], "columns": "k"},
             {"key": "m", "op": "greater", "inputs": ["ki", 2]},
             {"key": "lm", "op": "dataframe.loc", "inputs": ["t", "m"]},
             op("sd", "sort_index", "si", ascending=False)]
    return check_frames(data, nodes, {
        "it": pdf.iloc[[0, 5, -1, 399, 17]], "is": pdf.iloc[10:300:7, [0, -1]],
        "ir": pdf.iloc[::-50, 1:4], "ic": pdf.iloc[:, ::2], "tl": pdf.tail(13),
        "tl1": pdf.tail(3), "t0": pdf.tail(0), "lb": si.loc[["b", "a"]],
        "so": srt, "ls": srt.loc[-10:12, ["f", "s"]], "lo": srt.loc[:-40],
        "lm": pdf.loc[pdf.k > 2],
        "sd": pdf.set_index("i").sort_index(ascending=False, kind="mergesort")})


@case
def nlargest_dups_sample(data, pdf):
    nodes = [CSV, CSV1, col("ff", "t", "f"),
             op("nl", "nlargest", "t", n=7, columns=["k", "i"]),
             op("ns", "nsmallest", "t1", n=9, columns="f"),
             op("nk", "nlargest", "t", n=5, columns="k", keep="last"),
             op("sl", "nlargest", "ff", n=4),
             op("dd", "drop_duplicates", "t", subset=["k", "g"]),
             op("dl", "drop_duplicates", "t1", subset=["k"], keep="last"),
             op("dn", "drop_duplicates", "t", subset=["g", "b"], keep=False),
             op("da", "drop_duplicates", "t"),
             op("du", "duplicated", "t", subset=["s"]),
             op("sa", "sample", "t", n=20, random_state=42),
             op("sf", "sample", "t1", frac=0.1, random_state=7)]
    return check_frames(data, nodes, {
        "nl": pdf.nlargest(7, ["k", "i"]), "ns": pdf.nsmallest(9, "f"),
        "nk": pdf.nlargest(5, "k", keep="last"), "sl": pdf.f.nlargest(4),
        "dd": pdf.drop_duplicates(subset=["k", "g"]),
        "dl": pdf.drop_duplicates(subset=["k"], keep="last"),
        "dn": pdf.drop_duplicates(subset=["g", "b"], keep=False),
        "da": pdf.drop_duplicates(), "du": pdf.duplicated(subset=["s"]),
        "sa": pdf.sample(n=20, random_state=42), "sf": pdf.sample(frac=0.1, random_state=7)})


@case
def nlargest_missing_keys(data, pdf):
    """pandas 1.5's nlargest and nsmallest of one key: when fewer than n
    rows have a key, rows with a missing key follow, in their order, up to
    n; when n is at least the row count the whole is sorted, missing keys
    last (at most 16 keys there: pandas' quicksort is stable only so far).
    Chunks of a few rows, so the ranking job reads every chunk's
    candidates."""
    rng = np.random.default_rng(21)
    x = rng.integers(0, 6, 30).astype(float)  # ties
    x[rng.random(30) < 0.45] = np.nan
    pd.DataFrame({"x": x, "i": np.arange(30)}).to_csv(os.path.join(data, "nl.csv"),
                                                        index=False)
    F = pd.read_csv(os.path.join(data, "nl.csv"))
    short = F.head(12)
    nodes = [{"key": "f", "op": "dataframe.read_csv", "path": "nl.csv", "chunk_bytes": 20},
             col("fx", "f", "x"), op("h", "head", "f", n=12)]
    want = {}
    for key, src, frame, method, n, keep in (
            ("a", "f", F, "nlargest", 20, "first"), ("b", "f", F, "nsmallest", 25, "last"),
            ("c", "f", F, "nlargest", 3, "last"), ("d", "f", F, "nsmallest", 0, "first"),
            ("e", "h", short, "nlargest", 12, "last"), ("g", "h", short, "nsmallest", 40, "first"),
            ("s", "fx", F.x, "nlargest", 22, "first")):
        kw = {"n": n, "keep": keep}
        if src != "fx":
            kw["columns"] = ["x"]
        nodes.append(op(key, method, src, **kw))
        want[key] = getattr(frame, method)(n, "x", keep=keep) if src != "fx" else \
            getattr(frame, method)(n, keep=keep)
    if F.x.notna().sum() >= 20 or short.x.notna().sum() > 16:
        return "the data no longer has fewer keys than n (%d)" % F.x.notna().sum()
    return check_frames(data, nodes, want)


@case
def nlargest_keep_all(data, pdf):
    """keep "all": the first n rows and every row tied with the n-th (pandas
    1.5's SelectNSeries), over chunks of a few rows so that the ranking job
    reads each chunk's candidates, ties spread across chunks; when fewer
    than n rows have a key, every row without one follows (n past the row
    count: 12 rows, as pandas' quicksort is stable only so far). Several
    keys (none missing): ties of the whole key."""
    rng = np.random.default_rng(23)
    n = 40
    x = rng.integers(0, 5, n).astype(float)
    x[rng.random(n) < 0.3] = np.nan
    pd.DataFrame({"x": x, "a": rng.integers(0, 3, n), "b": rng.integers(0, 3, n),
                  "i": np.arange(n)}).to_csv(os.path.join(data, "ka.csv"), index=False)
    F = pd.read_csv(os.path.join(data, "ka.csv"))
    nodes = [{"key": "f", "op": "dataframe.read_csv", "path": "ka.csv", "chunk_bytes": 30},
             col("fx", "f", "x"), col("fa", "f", "a"), op("h", "head", "f", n=12)]
    want = {}
    for key, src, method, k, cols in (
            ("l1", "f", "nlargest", 1, "x"), ("l3", "f", "nlargest", 3, "x"),
            ("s4", "f", "nsmallest", 4, "x"), ("l33", "f", "nlargest", 33, "x"),
            ("s40", "h", "nsmallest", 40, "x"), ("l0", "f", "nlargest", 0, "x"),
            ("ab", "f", "nlargest", 6, ["a", "b"]), ("sab", "f", "nsmallest", 7, ["b", "a"]),
            ("ia", "f", "nsmallest", 2, "a"), ("sx", "fx", "nlargest", 6, None),
            ("sxm", "fx", "nsmallest", 33, None), ("sa", "fa", "nlargest", 1, None)):
        kw = {"n": k, "keep": "all"}
        if cols is not None:
            kw["columns"] = cols
        nodes.append(op(key, method, src, **kw))
        frame = F if src == "f" else F.head(12) if src == "h" else F[src[1]]
        want[key] = getattr(frame, method)(k, keep="all", **({"columns": cols} if cols else {}))
    if not (len(want["l3"]) > 3 and len(want["s4"]) > 4 and F.x.notna().sum() < 33
            and len(want["ab"]) > 6 and len(want["sab"]) > 7):
        return "the data no longer has the ties and missing keys this case needs"
    return check_frames(data, nodes, want)


@case
def merge_seen_types(data, pdf):
    """A merge whose order is seen (a groupby with first after it): each
    chunk of a "right" merge keeps int64 where none of left's values went
    missing and float64 where some did; the groupby's partials combine
    them as float64 (they failed with "partials differ in layout"), and a
    sort by that column compares int64 chunks with float64 splitters (it
    failed with "key 0 is 0 in the chunk, 1 in splitters"), and sum, max
    and nunique after a filter combine int64 and float64 partials (the sum
    left the int64 chunks out, nunique failed)."""
    L = pdf[["k", "i"]].copy()
    L["k"] = L["k"] % 3
    L.to_csv(os.path.join(data, "lt.csv"), index=False)
    pd.DataFrame({"k": [0, 1, 2, 3], "w": [1.5, -2.0, 3.25, 0.5]}).to_csv(
        os.path.join(data, "dm.csv"), index=False)
    Lr = pd.read_csv(os.path.join(data, "lt.csv"))
    D = pd.read_csv(os.path.join(data, "dm.csv"))
    nodes = [{"key": "l", "op": "dataframe.read_csv", "path": "lt.csv", "chunk_bytes": 300},
             col("li", "l", "i"), {"key": "lm", "op": "greater", "inputs": ["li", 5]},
             {"key": "lf", "op": "dataframe.filter", "inputs": ["l", "lm"]},
             op("ld", "drop_duplicates", "lf", subset=["k"]),
             {"key": "d", "op": "dataframe.read_csv", "path": "dm.csv", "chunk_bytes": 6}]
    want = {}
    for how in ("right", "outer"):
        m = Lr[Lr.i > 5].drop_duplicates(subset=["k"]).merge(D, on="k", how=how)
        nodes += [{"key": "m" + how, "op": "dataframe.merge", "inputs": ["ld", "d"], "on": "k",
                   "how": how},
                  {"key": "g" + how, "op": "dataframe.groupby_agg", "inputs": ["m" + how],
                   "by": ["k"], "agg": {"f": ["i", "first"], "x": ["i", "max"],
                                        "w": ["w", "last"]}},
                  {"key": "s" + how, "op": "dataframe.sort_values", "inputs": ["m" + how],
                   "by": ["i"], "ascending": [False]},
                  col("w" + how, "m" + how, "w"),
                  {"key": "c" + how, "op": "greater", "inputs": ["w" + how, -5]},
                  {"key": "f" + how, "op": "dataframe.filter", "inputs": ["m" + how, "c" + how]},
                  col("i" + how, "f" + how, ["i"]),
                  {"key": "su" + how, "op": "dataframe.sum", "inputs": ["i" + how]},
                  {"key": "mx" + how, "op": "dataframe.max", "inputs": ["i" + how]},
                  {"key": "nu" + how, "op": "dataframe.nunique", "inputs": ["i" + how]}]
        want["g" + how] = m.groupby("k").agg(f=("i", "first"), x=("i", "max"), w=("w", "last"))
        want["s" + how] = m.sort_values("i", ascending=False, kind="mergesort")
        # reductions after a filter (the merge's order is seen: no
        # conforming): int64 partials beside float64 ones, summed as
        # float64 (the int64 chunks were left out of the sum before)
        f = m[m.w > -5][["i"]]
        want["su" + how] = f.sum()
        want["mx" + how] = f.max()
        want["nu" + how] = f.nunique()
        # a head of rows none of which went missing, aggregated: float64 as
        # the schema says and pandas' float64 column gives (it was int64:
        # random-graph soak seed 894)
        nodes += [op("h" + how, "head", "m" + how, n=2),
                  {"key": "hg" + how, "op": "dataframe.groupby_agg", "inputs": ["h" + how],
                   "by": ["k"], "agg": {"s": ["i", "sum"], "f": ["i", "first"],
                                        "n": ["i", "count"]}}]
        want["hg" + how] = m.head(2).groupby("k").agg(s=("i", "sum"), f=("i", "first"),
                                                      n=("i", "count"))
        if not m.head(2).i.notna().all() or m.i.notna().all():
            return "the data no longer has a head of present values in a column with missing"
    return check_frames(data, nodes, want)


@case
def merge_wide_right(data, pdf):
    """A right side with more columns than left (merge_schema read left's key
    flags past their end for right's extra columns: ASan in the cluster)."""
    narrow = pdf[["k", "i"]].head(40)
    narrow.to_csv(os.path.join(data, "nw.csv"), index=False)
    wide = pd.DataFrame({"k": [0, 1, 2, 5], "a": [1, 2, 3, 4], "b": [0.5, 1.5, 2.5, 3.5],
                         "c": ["x", "y", "z", "w"], "d": [7, 8, 9, 10], "i": [3, 4, 5, 6]})
    wide.to_csv(os.path.join(data, "wd.csv"), index=False)
    N = pd.read_csv(os.path.join(data, "nw.csv"))
    W = pd.read_csv(os.path.join(data, "wd.csv"))
    nodes = [{"key": "n", "op": "dataframe.read_csv", "path": "nw.csv", "chunk_bytes": 100},
             {"key": "w", "op": "dataframe.read_csv", "path": "wd.csv", "chunk_bytes": 30}]
    want = {}
    for how in ("inner", "left", "right", "outer"):
        nodes.append({"key": "m" + how, "op": "dataframe.merge", "inputs": ["n", "w"],
                      "on": "k", "how": how})
        want["m" + how] = N.merge(W, on="k", how=how)
    return check_frames(data, nodes, want)


@case
def float_index_labels(data, pdf):
    """A float64 index keeps its whole numbers' ".0" in the JSON result (the
    index has no dtypes beside it): value_counts of a float column."""
    nodes = [CSV, col("ff", "t", "f"), {"key": "fr", "op": "floor", "inputs": ["ff"]},
             {"key": "vc", "op": "dataframe.value_counts", "inputs": ["fr"]}]
    rc, err, out = T.run({"version": 1, "nodes": nodes, "fetch": ["vc"]}, data)
    try:
        if rc != 0:
            return "exit %d: %s" % (rc, err.strip()[:300])
        with open(os.path.join(out, "vc.json")) as f:
            got = json.load(f)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    want = np.floor(pdf.f).value_counts()
    if not got["index"] or not all(isinstance(v, float) for v in got["index"] if v is not None):
        return "index labels %r: not floats" % got["index"][:8]
    if sorted(got["index"]) != sorted(float(v) for v in want.index):
        return "labels %r vs pandas %r" % (got["index"], list(want.index))
    return ""


@case
def selection_rejects(data, pdf):
    base = [CSV, op("sg", "set_index", "t", keys="g")]
    for node, words in (
            (op("r", "iloc", "t", rows=3), ["list of integers"]),
            (op("r", "iloc", "t", columns=[9]), ["out-of-bounds"]),
            (op("r", "loc", "sg", labels=[1]), ["index's type"]),
            (op("r", "set_index", "t", keys="zz"), ["no column"]),
            (op("r", "nlargest", "t", n=3, columns="s"), ["dtype"]),
            (op("r", "sample", "t", n=3), ["random_state"]),
            (op("r", "drop_duplicates", "t", keep="middle"), ["keep"])):
        why = rejected(data, base + [node], "r", words)
        if why:
            return "%s: %s" % (node["op"], why)
    return ""


# ---------------------------------------------------------------- running ops

@case
def cumulative(data, pdf):
    num = {"key": "nu", "op": "dataframe.getitem", "inputs": ["t"], "columns": ["k", "i", "f"]}
    num1 = {"key": "nu1", "op": "dataframe.getitem", "inputs": ["t1"], "columns": ["k", "f", "b"]}
    nodes = [CSV, CSV1, num, num1, col("ff", "t", "f"),
             op("cs", "cumsum", "nu"), op("cp", "cumprod", "ff"), op("cx", "cummax", "nu"),
             op("cn", "cummin", "nu"), op("c1", "cumsum", "nu1")]
    nf = pdf[["k", "i", "f"]]
    return check_frames(data, nodes, {
        "cs": nf.cumsum(), "cp": pdf.f.cumprod(),
        "cx": nf.cummax(), "cn": nf.cummin(), "c1": pdf[["k", "f", "b"]].cumsum()})


@case
def diff_shift_pct(data, pdf):
    num = {"key": "nu", "op": "dataframe.getitem", "inputs": ["t"], "columns": ["k", "i", "f"]}
    num1 = {"key": "nu1", "op": "dataframe.getitem", "inputs": ["t1"], "columns": ["k", "i", "f"]}
    nodes = [CSV, CSV1, num, num1,
             op("d1", "diff", "nu"), op("d3", "diff", "nu1", periods=3),
             op("dm", "diff", "nu", periods=-2), op("s1", "shift", "t"),
             op("s5", "shift", "t1", periods=5), op("sm", "shift", "t", periods=-3),
             op("s0", "shift", "t", periods=0), op("p1", "pct_change", "nu"),
             op("p4", "pct_change", "nu1", periods=4)]
    nf = pdf[["k", "i", "f"]]
    return check_frames(data, nodes, {
        "d1": nf.diff(), "d3": nf.diff(3), "dm": nf.diff(-2), "s1": pdf.shift(),
        "s5": pdf.shift(5), "sm": pdf.shift(-3), "s0": pdf.shift(0), "p1": nf.pct_change(),
        "p4": nf.pct_change(4)})


@case
def rolling(data, pdf):
    num = {"key": "nu", "op": "dataframe.getitem", "inputs": ["t"], "columns": ["k", "i", "f"]}
    num1 = {"key": "nu1", "op": "dataframe.getitem", "inputs": ["t1"], "columns": ["k", "f"]}
    nodes = [CSV, CSV1, num, num1]
    want = {}
    nf = pdf[["k", "i", "f"]]
    for agg in ("sum", "mean", "min", "max", "std", "var", "count"):
        nodes.append(op("r" + agg, "rolling", "nu", window=7, agg=agg))
        want["r" + agg] = getattr(nf.rolling(7, min_periods=0 if agg == "count" else None),
                                  agg)()
        nodes.append(op("m" + agg, "rolling", "nu1", window=4, min_periods=2, agg=agg))
        want["m" + agg] = getattr(pdf[["k", "f"]].rolling(4, min_periods=2), agg)()
    nodes.append(op("w1", "rolling", "nu", window=1, agg="sum"))
    want["w1"] = nf.rolling(1).sum()
    # median and quantile: the window's order statistics, pandas' numbers
    nodes += [op("md", "rolling", "nu", window=6, agg="median"),
              op("md2", "rolling", "nu1", window=5, min_periods=2, agg="median")]
    want["md"] = nf.rolling(6).median()
    want["md2"] = pdf[["k", "f"]].rolling(5, min_periods=2).median()
    for i, (q, how) in enumerate([(0.25, "linear"), (0.5, "lower"), (0.9, "higher"),
                                  (0.5, "nearest"), (0.3, "nearest"), (0.75, "midpoint"),
                                  (0.0, "linear"), (1.0, "linear")]):
        nodes.append(op("q%d" % i, "rolling", "nu", window=5, min_periods=1, agg="quantile",
                        quantile=q, interpolation=how))
        want["q%d" % i] = nf.rolling(5, min_periods=1).quantile(q, interpolation=how)
    return check_frames(data, nodes, want)


@case
def rolling_center(data, pdf):
    """rolling(center=True): each window moved (window - 1) // 2 rows on,
    as pandas' FixedWindowIndexer, its rows after a chunk read from the
    chunks after it (a second carry, backwards): every aggregation, even
    and odd windows, min_periods, windows wider than the chunks, on uneven
    chunks, one-row chunks, and one chunk"""
    num = {"key": "nu", "op": "dataframe.getitem", "inputs": ["t"], "columns": ["k", "i", "f"]}
    num1 = {"key": "nu1", "op": "dataframe.getitem", "inputs": ["t1"], "columns": ["k", "f"]}
    one = {"key": "t0", "op": "dataframe.read_csv", "path": "t.csv"}
    num0 = {"key": "nu0", "op": "dataframe.getitem", "inputs": ["t0"], "columns": ["i", "f"]}
    nodes = [CSV, CSV1, one, num, num1, num0]
    want = {}
    nf, nf1, nf0 = pdf[["k", "i", "f"]], pdf[["k", "f"]], pdf[["i", "f"]]
    for agg in ("sum", "mean", "min", "max", "std", "var", "count", "median"):
        nodes.append(op("c" + agg, "rolling", "nu", window=7, center=True, agg=agg))
        want["c" + agg] = getattr(nf.rolling(7, center=True,
                                             min_periods=0 if agg == "count" else None), agg)()
        nodes.append(op("e" + agg, "rolling", "nu1", window=4, min_periods=1, center=True,
                        agg=agg))
        want["e" + agg] = getattr(nf1.rolling(4, min_periods=1, center=True), agg)()
        nodes.append(op("o" + agg, "rolling", "nu0", window=6, min_periods=2, center=True,
                        agg=agg))
        want["o" + agg] = getattr(nf0.rolling(6, min_periods=2, center=True), agg)()
    # wider than many chunks put together, and center false said
    nodes += [op("wide", "rolling", "nu", window=101, min_periods=3, center=True, agg="mean"),
              op("w1", "rolling", "nu1", window=1, center=True, agg="sum"),
              op("w2", "rolling", "nu1", window=2, center=True, agg="max"),
              op("cf", "rolling", "nu", window=3, center=False, agg="sum"),
              op("cq", "rolling", "nu", window=9, min_periods=1, center=True, agg="quantile",
                 quantile=0.3, interpolation="nearest")]
    want["wide"] = nf.rolling(101, min_periods=3, center=True).mean()
    want["w1"] = nf1.rolling(1, center=True).sum()
    want["w2"] = nf1.rolling(2, center=True).max()
    want["cf"] = nf.rolling(3).sum()
    want["cq"] = nf.rolling(9, min_periods=1, center=True).quantile(0.3, interpolation="nearest")
    return check_frames(data, nodes, want)


@case
def groupby_rolling(data, pdf):
    """df.groupby(by).rolling(...) as "by" of dataframe.rolling: the rows
    sorted by key (stable), windows cut at each group's ends and carried
    across chunks, indexed by the keys and then the input's index; string,
    int, bool and two keys, a key with NaN (those rows in no group), every
    aggregation, center and min_periods, on uneven chunks, one-row chunks
    and one chunk, then a column of it and a reduction"""
    one = {"key": "t0", "op": "dataframe.read_csv", "path": "t.csv"}

    def sel(key, src, cols):
        return {"key": key, "op": "dataframe.getitem", "inputs": [src], "columns": cols}

    nodes = [CSV, CSV1, one, sel("gi", "t", ["g", "i", "f"]), sel("sf", "t", ["s", "f"]),
             sel("kg", "t", ["k", "g", "i", "f"]), sel("k1", "t1", ["k", "f", "i"]),
             sel("bf", "t", ["b", "f"]), sel("g0", "t0", ["i", "g", "f"])]
    want = {}
    gi = pdf[["g", "i", "f"]].groupby("g")
    for agg in ("sum", "mean", "min", "max", "std", "var", "count", "median"):
        nodes.append(op("g" + agg, "rolling", "gi", window=3, by="g", agg=agg))
        want["g" + agg] = getattr(gi.rolling(3, min_periods=0 if agg == "count" else None),
                                  agg)()
    nodes += [op("s4", "rolling", "sf", window=4, min_periods=1, by=["s"], agg="max"),
              op("kc", "rolling", "kg", window=5, min_periods=2, center=True, by=["k", "g"],
                 agg="median"),
              op("k2", "rolling", "k1", window=2, by="k", agg="var"),
              op("b3", "rolling", "bf", window=3, min_periods=1, by="b", agg="sum"),
              op("gq", "rolling", "g0", window=6, min_periods=1, by="g", agg="quantile",
                 quantile=0.75, interpolation="lower"),
              op("gc", "rolling", "gi", window=8, min_periods=1, center=True, by="g", agg="mean"),
              col("gf", "gmean", "f"),
              {"key": "gs", "op": "dataframe.sum", "inputs": ["gsum"]}]
    want["s4"] = pdf[["s", "f"]].groupby("s").rolling(4, min_periods=1).max()
    want["kc"] = pdf[["k", "g", "i", "f"]].groupby(["k", "g"]).rolling(
        5, min_periods=2, center=True).median()
    want["k2"] = pdf[["k", "f", "i"]].groupby("k").rolling(2).var()
    want["b3"] = pdf[["b", "f"]].groupby("b").rolling(3, min_periods=1).sum()
    want["gq"] = pdf[["i", "g", "f"]].groupby("g").rolling(6, min_periods=1).quantile(
        0.75, interpolation="lower")
    want["gc"] = gi.rolling(8, min_periods=1, center=True).mean()
    want["gf"] = gi.rolling(3).mean()["f"]
    want["gs"] = gi.rolling(3).sum().sum()
    return check_frames(data, nodes, want)


@case
def ewm(data, pdf):
    """ewm's mean, sum, var and std (bias or not), pandas' own recurrences
    (ewm, ewmcov) carried from chunk to chunk: com, span, halflife and
    alpha, adjust, ignore_na and min_periods, over NaN and bools, on many
    chunks and on one-row ones"""
    num = {"key": "nu", "op": "dataframe.getitem", "inputs": ["t"], "columns": ["k", "i", "f"]}
    num1 = {"key": "nu1", "op": "dataframe.getitem", "inputs": ["t1"], "columns": ["k", "f"]}
    fs = {"key": "fs", "op": "dataframe.getitem", "inputs": ["t1"], "columns": "f"}
    nodes = [CSV, CSV1, num, num1, fs]
    nf, nf1 = pdf[["k", "i", "f"]], pdf[["k", "f"]]
    want = {}
    for q, (kw, src, ref) in enumerate((
            ({"span": 5}, "nu", nf), ({"com": 0.5}, "nu1", nf1), ({"halflife": 3}, "nu", nf),
            ({"alpha": 0.3}, "nu1", nf1), ({"alpha": 1}, "nu", nf),
            ({"span": 4, "adjust": False}, "nu", nf), ({"com": 2, "ignore_na": True}, "nu1", nf1),
            ({"alpha": 0.2, "adjust": False, "ignore_na": True}, "nu1", nf1),
            ({"span": 3, "min_periods": 4}, "nu", nf), ({"com": 1}, "fs", pdf.f))):
        for agg in ("mean", "sum", "var", "std"):
            if agg == "sum" and kw.get("adjust") is False:
                continue  # pandas: not implemented
            k = "e%d%s" % (q, agg)
            nodes.append(op(k, "ewm", src, agg=agg, **kw))
            want[k] = getattr(ref.ewm(**kw), agg)()
        for agg in ("var", "std"):  # the biased estimates
            k = "e%d%sb" % (q, agg)
            nodes.append(op(k, "ewm", src, agg=agg, bias=True, **kw))
            want[k] = getattr(ref.ewm(**kw), agg)(bias=True)
    # bools become floats, as pandas
    nodes += [{"key": "b", "op": "greater", "inputs": ["fs", 0.5]},
              op("eb", "ewm", "b", span=3)]
    want["eb"] = (pdf.f > 0.5).ewm(span=3).mean()
    return check_frames(data, nodes, want)


@case
def expanding(data, pdf):
    """expanding's aggregations with pandas' own window state carried from
    chunk to chunk (Kahan sums, Welford's variance, runs of equal values),
    with and without min_periods, on many chunks and one-row ones"""
    num = {"key": "nu", "op": "dataframe.getitem", "inputs": ["t"], "columns": ["k", "i", "f"]}
    num1 = {"key": "nu1", "op": "dataframe.getitem", "inputs": ["t1"], "columns": ["k", "f"]}
    fs = {"key": "fs", "op": "dataframe.getitem", "inputs": ["t1"], "columns": "f"}
    nodes = [CSV, CSV1, num, num1, fs, {"key": "b", "op": "greater", "inputs": ["fs", 0.5]}]
    want = {}
    for agg in ("sum", "mean", "min", "max", "std", "var", "count"):
        for k, src, ref, kw in (("x" + agg, "nu", pdf[["k", "i", "f"]], {}),
                                ("y" + agg, "nu1", pdf[["k", "f"]], {"min_periods": 5}),
                                ("z" + agg, "fs", pdf.f, {"min_periods": 0}),
                                ("w" + agg, "b", pdf.f > 0.5, {})):
            nodes.append(op(k, "expanding", src, agg=agg, **kw))
            want[k] = getattr(ref.expanding(**kw), agg)()
    return check_frames(data, nodes, want)


def nan_tensor(key, x, chunk):
    """nodes making float64 tensor key of x, NaN kept (JSON has none)"""
    return [{"key": key + "0", "op": "array", "data": np.nan_to_num(x).tolist(),
             "chunk_size": chunk},
            {"key": key + "m", "op": "array", "data": np.isnan(x).tolist(), "chunk_size": chunk},
            {"key": key, "op": "where", "inputs": [key + "m", {"value": "nan"}, key + "0"]}]


def same_bits(data, nodes, want):
    """want: {key: pandas frame with a column x}; each key fetched as a
    tensor (JSON's floats are shorter than float64): '' when its values
    are pandas' very bits"""
    nodes = nodes + [op(key + "T", "to_tensor", key) for key in want]
    got, why = run_doc(data, nodes, [key + "T" for key in want])
    if why:
        return why
    for key, ref in want.items():
        g, r = got[key + "T"][:, 0], ref["x"].to_numpy()
        if g.shape != r.shape:
            return "%s: %s values, pandas %s" % (key, g.shape, r.shape)
        if not np.array_equal(g, r, equal_nan=True):
            return "%s: %d values differ from pandas', by up to %g" % (
                key, int(np.sum(~((g == r) | (np.isnan(g) & np.isnan(r))))),
                float(np.nanmax(np.abs(g - r))))
    return ""


def bits_over_chunks(data, path, nodes, want, bytes_mid, key="t"):
    """nodes (after read_csv `key` of path) on one-row chunks, chunks of
    bytes_mid bytes and one chunk: '' when each fetched key of want (a
    pandas frame or Series) holds pandas' very values, else why"""
    for cb in (1, bytes_mid, None):
        rd = {"key": key, "op": "dataframe.read_csv", "path": path}
        if cb:
            rd["chunk_bytes"] = cb
        got, why = run_doc(data, [rd] + nodes + [op(k + "T", "to_tensor", k) for k in want],
                           [k + "T" for k in want])
        if why:
            return "chunk_bytes %s: %s" % (cb, why)
        for k, ref in want.items():
            g, r = got[k + "T"], ref.to_numpy()
            if g.shape != r.shape:
                return "chunk_bytes %s, %s: shape %s vs %s" % (cb, k, g.shape, r.shape)
            if not np.array_equal(g, r, equal_nan=True):
                return "chunk_bytes %s, %s: %d values differ from pandas'" % (
                    cb, k, int(np.sum(~((g == r) | (np.isnan(g) & np.isnan(r))))))
    return ""


@case
def scans_bit_exact(data, pdf):
    """expanding (median and quantile too), ewm (mean, var, std) and
    rolling over rows give pandas' very bits: 3,000 float64 values (a
    run of equal ones among them) in 18 chunks, read from a tensor (a CSV
    would not do: pandas' default float parser does not round correctly)
    and fetched as a tensor (JSON's floats are shorter than float64)"""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(3000) * 1e3
    x[100:130] = 7.25
    x[rng.random(3000) < 0.05] = np.nan
    P = pd.DataFrame({"x": x})
    nodes = nan_tensor("a", x, 170) + [
        {"key": "t", "op": "dataframe.from_tensor", "inputs": ["a"], "columns": ["x"]}]
    want = {}
    for agg in ("sum", "mean", "std", "var", "min", "max", "count", "sem"):
        nodes.append(op(agg, "expanding", "t", agg=agg))
        want[agg] = getattr(P.expanding(), agg)()
        # windows of rows: pandas' running sums, carried from chunk to chunk
        nodes += [op("r" + agg, "rolling", "t", window=50, agg=agg),
                  op("m" + agg, "rolling", "t", window=400, min_periods=3, agg=agg)]
        want["r" + agg] = getattr(P.rolling(50, min_periods=0 if agg == "count" else None),
                                  agg)()
        want["m" + agg] = getattr(P.rolling(400, min_periods=3), agg)()
        # centred: each chunk's windows reach into the chunks after it
        nodes += [op("c" + agg, "rolling", "t", window=51, center=True, agg=agg),
                  op("d" + agg, "rolling", "t", window=400, min_periods=1, center=True,
                     agg=agg)]
        want["c" + agg] = getattr(P.rolling(51, center=True,
                                            min_periods=0 if agg == "count" else None), agg)()
        want["d" + agg] = getattr(P.rolling(400, min_periods=1, center=True), agg)()
    # pandas makes a halflife's center of mass with numpy's exp, which on a
    # CPU with AVX-512 is numpy's own SIMD exp: 1 ulp away from libm's
    # correctly rounded exp for halflife 30 (0.977159968434246 against
    # ...459). The engine uses libm's, so pandas is given the center of
    # mass libm's exp makes: the comparison is of the recurrences.
    com30 = 1.0 / (1.0 - math.exp(math.log(0.5) / 30)) - 1.0
    # expanding median and quantile: every row so far, its order statistics
    nodes += [op("xmed", "expanding", "t", agg="median"),
              op("xq", "expanding", "t", agg="quantile", quantile=0.3, interpolation="nearest",
                 min_periods=5)]
    want["xmed"] = P.expanding().median()
    want["xq"] = P.expanding(min_periods=5).quantile(0.3, interpolation="nearest")
    for q, kw in enumerate(({"span": 7}, {"alpha": 0.1, "adjust": False},
                            {"halflife": 30, "ignore_na": True})):
        pkw = {"com": com30, "ignore_na": True} if "halflife" in kw else kw
        nodes.append(op("e%d" % q, "ewm", "t", **kw))
        want["e%d" % q] = P.ewm(**pkw).mean()
        for agg in ("var", "std"):
            nodes.append(op("e%d%s" % (q, agg), "ewm", "t", agg=agg, **kw))
            want["e%d%s" % (q, agg)] = getattr(P.ewm(**pkw), agg)()
    return same_bits(data, nodes, want)


@case
def groupby_scans_bit_exact(data, pdf):
    """groupby(k).expanding(), .ewm() (mean, sum, std, var; ewm with
    adjust, ignore_na, min_periods) and .rolling(30) (centred too) give
    pandas' very bits: 3,000 float64 values with NaN in 18 chunks, 7 int
    keys, each group's recurrence from its first row and carried across
    chunks when the group goes on (read from a tensor, fetched as one)"""
    rng = np.random.default_rng(9)
    x = rng.standard_normal(3000) * 1e3
    x[rng.random(3000) < 0.05] = np.nan
    k = rng.integers(0, 7, 3000)
    P = pd.DataFrame({"k": k, "x": x})
    nodes = nan_tensor("a", x, 170) + [
        {"key": "kk", "op": "array", "data": k.astype(float).tolist(), "chunk_size": 170},
        {"key": "st", "op": "stack", "inputs": ["kk", "a"], "axis": 1},
        {"key": "t0", "op": "dataframe.from_tensor", "inputs": ["st"], "columns": ["k", "x"]},
        {"key": "t", "op": "dataframe.astype", "inputs": ["t0"], "dtype": {"k": "int64"}}]
    want = {}
    G = P.groupby("k")
    for agg in ("sum", "mean", "std", "var", "min", "max", "count", "sem"):
        nodes.append(op("x" + agg, "expanding", "t", by="k", agg=agg))
        want["x" + agg] = getattr(G.expanding(), agg)()
        nodes.append(op("r" + agg, "rolling", "t", by="k", window=30, min_periods=2, agg=agg))
        want["r" + agg] = getattr(G.rolling(30, min_periods=2), agg)()
        nodes.append(op("c" + agg, "rolling", "t", by="k", window=40, min_periods=1,
                        center=True, agg=agg))
        want["c" + agg] = getattr(G.rolling(40, min_periods=1, center=True), agg)()
    nodes += [op("xmed", "expanding", "t", by="k", agg="median"),
              op("xq", "expanding", "t", by="k", agg="quantile", quantile=0.9,
                 interpolation="midpoint")]
    want["xmed"] = G.expanding().median()
    want["xq"] = G.expanding().quantile(0.9, interpolation="midpoint")
    for q, kw in enumerate(({"span": 7}, {"alpha": 0.1, "adjust": False},
                            {"com": 4, "ignore_na": True, "min_periods": 3})):
        for agg in ("mean", "sum", "var", "std"):
            if agg == "sum" and kw.get("adjust") is False:
                continue
            nodes.append(op("e%d%s" % (q, agg), "ewm", "t", by="k", agg=agg, **kw))
            want["e%d%s" % (q, agg)] = getattr(G.ewm(**kw), agg)()
    why = same_bits(data, nodes, want)
    if why:
        return why
    # and the index: the keys, then the rows' positions, groups in order
    got, why = run_doc(data, nodes[:7] + [op("ix", "expanding", "t", by="k", agg="mean")],
                       ["ix"])
    return why or T.expect_frame(got["ix"], G.expanding().mean())


@case
def rolling_random_bits(data, pdf):
    """60 random windows of rows against pandas to the bit, in one
    document: 1 to 120 rows, chunks of 1 to 40, windows of 1 to 24 rows,
    centred or not, min_periods, every aggregation, by a key or not,
    values over nine magnitudes with NaN and runs of one value"""
    nodes, want = [], {}
    for c in range(60):
        rng = np.random.default_rng(c)
        n = int(rng.integers(1, 120))
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 6, n)
        x[rng.random(n) < rng.random() * 0.5] = np.nan
        if rng.random() < 0.3:
            x[: n // 2] = 3.25
        k = rng.integers(0, int(rng.integers(1, 6)), n)
        ch, w = int(rng.integers(1, 40)), int(rng.integers(1, 25))
        center, by = bool(rng.random() < 0.5), bool(rng.random() < 0.6)
        mp = None if rng.random() < 0.4 else int(rng.integers(0, w + 1))
        agg = str(rng.choice(["sum", "mean", "std", "var", "min", "max", "count", "median"]))
        p = "c%d" % c
        nodes += nan_tensor(p + "a", x, ch) + [
            {"key": p + "k", "op": "array", "data": k.astype(float).tolist(), "chunk_size": ch},
            {"key": p + "s", "op": "stack", "inputs": [p + "k", p + "a"], "axis": 1},
            {"key": p + "f", "op": "dataframe.from_tensor", "inputs": [p + "s"],
             "columns": ["k", "x"]},
            {"key": p + "t", "op": "dataframe.astype", "inputs": [p + "f"],
             "dtype": {"k": "int64"}}]
        kw = dict({"window": w, "agg": agg, "center": center},
                  **({"min_periods": mp} if mp is not None else {}),
                  **({"by": ["k"]} if by else {}))
        nodes.append(op(p, "rolling", p + "t", **kw))
        P = pd.DataFrame({"k": k, "x": x})
        src = P.groupby("k") if by else P
        want[p] = getattr(src.rolling(w, center=center, min_periods=mp if mp is not None else
                                      (0 if agg == "count" else None)), agg)()[["x"]]
        if not by:
            nodes[-1] = op(p + "r", "rolling", p + "t", **kw)
            nodes.append(op(p, "getitem", p + "r", columns=["x"]))
    return same_bits(data, nodes, want)


@case
def rolling_cov_corr(data, pdf):
    """rolling cov and corr of each column with another (pandas'
    df.rolling(w).cov(df[other])): pandas' means of X * Y, X and Y, its
    count and variances, each a running state carried from chunk to chunk,
    so the values are its bits; by rows, centred, by groups and over a
    window of time (where pandas leaves "on" out), and the refusals"""
    rng = np.random.default_rng(12)
    n = 500
    xs = {c: rng.standard_normal(n) * 10.0 ** rng.integers(-2, 4, n) for c in "xyz"}
    for c, v in xs.items():
        v[rng.random(n) < 0.1] = np.nan
    xs["y"][40:60] = 2.5
    k = rng.integers(0, 3, n)
    secs = np.cumsum(rng.choice([0, 30, 60, 600, 3600], n))
    ts = pd.Timestamp("2024-01-01") + pd.to_timedelta(secs, unit="s")
    P = pd.DataFrame({"ts": ts, "k": k, "x": xs["x"], "y": xs["y"], "z": xs["z"]})
    nodes = nan_tensor("ax", xs["x"], 37) + nan_tensor("ay", xs["y"], 37) + \
        nan_tensor("az", xs["z"], 37) + [
            {"key": "ak", "op": "array", "data": k.astype(float).tolist(), "chunk_size": 37},
            {"key": "st", "op": "stack", "inputs": ["ak", "ax", "ay", "az"], "axis": 1},
            {"key": "t0", "op": "dataframe.from_tensor", "inputs": ["st"],
             "columns": ["k", "x", "y", "z"]},
            {"key": "t", "op": "dataframe.astype", "inputs": ["t0"], "dtype": {"k": "int64"}},
            op("f", "getitem", "t", columns=["x", "y", "z"])]
    F = P[["x", "y", "z"]]
    want = {}
    for agg in ("cov", "corr"):
        nodes += [op(agg + "r", "rolling", "f", window=20, agg=agg, other="y"),
                  op(agg + "m", "rolling", "f", window=50, min_periods=2, agg=agg, other="x"),
                  op(agg + "c", "rolling", "f", window=15, center=True, min_periods=1, agg=agg,
                     other="z")]
        want[agg + "r"] = getattr(F.rolling(20), agg)(F.y)
        want[agg + "m"] = getattr(F.rolling(50, min_periods=2), agg)(F.x)
        want[agg + "c"] = getattr(F.rolling(15, center=True, min_periods=1), agg)(F.z)
    for key, ref in want.items():
        for c in ("x", "y", "z"):
            nodes.append(op("%s_%s" % (key, c), "getitem", key, columns=[c]))
    why = same_bits(data, nodes, {"%s_%s" % (key, c): ref[[c]].rename(columns={c: "x"})
                                  for key, ref in want.items() for c in ("x", "y", "z")})
    if why:
        return why
    # by groups (each group's columns with its own "y") and a window of time
    with open(os.path.join(data, "cc.csv"), "w") as f:
        P.to_csv(f, index=False, float_format="%r")
    Q = pd.read_csv(os.path.join(data, "cc.csv"), parse_dates=["ts"],
                    float_precision="round_trip")
    parts = []
    for key, g in Q.groupby("k"):
        r = g[["x", "y", "z"]].rolling(10, min_periods=2).corr(g["y"])
        r.index = pd.MultiIndex.from_arrays([[key] * len(r), r.index], names=["k", None])
        parts.append(r)
    nodes = [{"key": "c", "op": "dataframe.read_csv", "path": "cc.csv", "parse_dates": ["ts"],
              "chunk_bytes": 900},
             op("g", "getitem", "c", columns=["k", "x", "y", "z"]),
             op("gc", "rolling", "g", window=10, min_periods=2, by="k", agg="corr", other="y"),
             op("h", "getitem", "c", columns=["z", "ts", "x", "y"]),
             op("hc", "rolling", "h", window="2h", on="ts", agg="cov", other="x")]
    got, why = run_doc(data, nodes, ["gc", "hc"])
    if why:
        return why
    for key, ref in (("gc", pd.concat(parts)),
                     ("hc", Q[["z", "ts", "x", "y"]].rolling("2h", on="ts").cov(Q.x))):
        why = T.expect_frame(got[key], ref)
        if why:
            return "%s: %s" % (key, why)
    return ""


@case
def rolling_moments(data, pdf):
    """rolling and expanding skew and kurt as pandas 1.5's roll_skew and
    roll_kurt, to the bit: its Kahan sums of x to x^4 added and removed
    chunk after chunk, after its shift of every value by the column's
    mean rounded (a pass over all rows first; none when the minimum lies
    far below the mean, as for y), runs of one value (0 and -3), windows
    by rows, centred, by groups (keys missing in some rows, rows pandas
    leaves out of the mean) and expanding, on one-row chunks, uneven
    chunks and one chunk"""
    rng = np.random.default_rng(31)
    n = 260
    x = np.round(rng.standard_normal(n) * 10 + 1e4, 3)
    x[rng.random(n) < 0.1] = np.nan
    x[40:52] = 9999.5
    x[100] = np.inf
    y = rng.standard_normal(n) * 1e6
    k = rng.integers(0, 3, n).astype(float)
    k[rng.random(n) < 0.05] = np.nan
    x[np.isnan(k)] = 0.0  # rows in no group: not in the groups' mean
    pd.DataFrame({"k": k, "x": x, "y": y}).to_csv(os.path.join(data, "mo.csv"), index=False)
    P = pd.read_csv(os.path.join(data, "mo.csv"), float_precision="round_trip")
    F, G = P[["x", "y"]], P[["k", "x", "y"]]
    want = {"r1": F.rolling(10).skew(), "r2": F.rolling(7, min_periods=2).kurt(),
            "r3": F.rolling(9, center=True).skew(), "r4": F.rolling(20, center=True).kurt(),
            "g1": G.groupby("k").rolling(5).kurt(), "g2": G.groupby("k").rolling(8).skew(),
            "e1": F.expanding().skew(), "e2": F.expanding(min_periods=6).kurt(),
            "e3": G.groupby("k").expanding(min_periods=5).kurt()}
    nodes = [op("f", "getitem", "t", columns=["x", "y"]),
             op("r1", "rolling", "f", window=10, agg="skew"),
             op("r2", "rolling", "f", window=7, min_periods=2, agg="kurt"),
             op("r3", "rolling", "f", window=9, center=True, agg="skew"),
             op("r4", "rolling", "f", window=20, center=True, agg="kurt"),
             op("g1", "rolling", "t", window=5, by="k", agg="kurt"),
             op("g2", "rolling", "t", window=8, by="k", agg="skew"),
             op("e1", "expanding", "f", agg="skew"),
             op("e2", "expanding", "f", min_periods=6, agg="kurt"),
             op("e3", "expanding", "t", by="k", min_periods=5, agg="kurt")]
    return bits_over_chunks(data, "mo.csv", nodes, {k: w[["x", "y"]] for k, w in want.items()},
                            90)


@case
def transform_chunk_typed(data, pdf):
    """groupby_transform over an int64 column typed chunk by chunk (a
    chunk with a missing value float64, the others int64: cut's codes,
    str.len): cumsum, cummax and the statistics carry one state across
    both kinds of chunk (they once split it, an int64 chunk's sums apart
    from a float64 chunk's); values as pandas', whose column is float64"""
    nodes = [CSV, col("ff", "t", "f"), col("ss", "t", "s"),
             op("c", "cut", "ff", bins=[-100, -1, 0, 2.5, 50, 1000], labels=False),
             op("n", "str.len", "ss"),
             {"key": "a", "op": "dataframe.assign", "inputs": ["t", "c", "n"],
              "names": ["z", "ln"]}]
    P = pdf.assign(z=pd.cut(pdf.f, [-100, -1, 0, 2.5, 50, 1000], labels=False),
                   ln=pdf.s.str.len())
    want = {}
    for fn in ("cumsum", "cummax", "sum", "max", "mean"):
        nodes.append({"key": "g" + fn, "op": "dataframe.groupby_transform", "inputs": ["a"],
                      "by": ["k"], "columns": ["z", "ln"], "func": fn})
        want["g" + fn] = P.groupby("k")[["z", "ln"]].transform(fn)
    return check_frames(data, nodes, want)


@case
def whole_ops_lined_up(data, pdf):
    """rank, a groupby's rank and pct_change, and duplicated run as one job
    over every row; their result is cut back into the input's chunks, so
    it lines up with the frame: assigned to it, in arithmetic with its
    columns, as a filter's mask (they once failed "inputs with 40 and 1
    chunks" or "do not come from the same DataFrame"). Over about 40
    chunks and over one-row chunks."""
    nodes, want = [CSV, CSV1], {}
    for src in ("t", "t1"):
        nodes += [col(src + "f", src, "f"), col(src + "i", src, "i"),
                  op(src + "rk", "rank", src + "f", method="min"),
                  op(src + "rkf", "rank", src, method="dense"),
                  {"key": src + "grk", "op": "dataframe.groupby_transform", "inputs": [src],
                   "by": ["g"], "columns": ["i"], "func": "rank", "pct": True},
                  col(src + "gr", src + "grk", "i"),
                  {"key": src + "gpc", "op": "dataframe.groupby_transform", "inputs": [src],
                   "by": ["k"], "columns": ["f"], "func": "pct_change", "periods": 2,
                   "fill_method": "bfill"},
                  col(src + "gpf", src + "gpc", "f"),
                  op(src + "du", "duplicated", src, subset=["k", "g"]),
                  {"key": src + "a", "op": "dataframe.assign",
                   "inputs": [src, src + "rk", src + "gr", src + "du"],
                   "names": ["r", "gr", "dup"]},
                  {"key": src + "x", "op": "subtract", "inputs": [src + "i", src + "gr"]},
                  {"key": src + "y", "op": "divide", "inputs": [src + "rkf", 2]},
                  {"key": src + "z", "op": "add", "inputs": [src + "gpf", src + "rk"]},
                  {"key": src + "m", "op": "logical_not", "inputs": [src + "du"]},
                  {"key": src + "fl", "op": "dataframe.filter", "inputs": [src, src + "m"]}]
        grk = pdf.groupby("g")["i"].rank(pct=True)
        gpc = pdf.groupby("k")[["f"]].pct_change(periods=2, fill_method="bfill")
        want[src + "a"] = pdf.assign(r=pdf.f.rank(method="min"), gr=grk,
                                     dup=pdf.duplicated(subset=["k", "g"]))
        want[src + "x"] = pdf.i - grk
        want[src + "z"] = gpc.f + pdf.f.rank(method="min")
        want[src + "fl"] = pdf[~pdf.duplicated(subset=["k", "g"])]
    why = check_frames(data, nodes, want)
    if why:
        return why
    got, why = run_doc(data, nodes, ["ty"])
    ref = pdf.rank(method="dense") / 2
    return why or T.expect_frame(got["ty"], ref) or ""


@case
def astype_narrow_int_labels(data, pdf):
    """astype of a column to a narrower dtype converts as numpy does (int8
    wraps, float32 rounds) and the column holds the result widened to
    int64 or float64 (it once wrote int8 bytes into the int64 column,
    fetched as garbage); assign takes integer labels, as pandas' df[0] = s.
    Over about 40 chunks and over one-row chunks."""
    def ew(key, src, dtype):  # the element-wise astype
        return {"key": key, "op": "astype", "inputs": [src], "dtype": dtype}
    nodes, want = [CSV, CSV1], {}
    for src in ("t", "t1"):
        nodes += [col(src + "i", src, "i"), col(src + "f", src, "f"),
                  {"key": src + "i7", "op": "multiply", "inputs": [src + "i", 7]},
                  ew(src + "n8", src + "i7", "int8"),
                  ew(src + "u8", src + "i7", "uint8"),
                  ew(src + "f4", src + "f", "float32"),
                  ew(src + "h", src + "f", "int16"),
                  {"key": src + "a", "op": "dataframe.assign",
                   "inputs": [src, src + "n8", src + "f4"], "names": [0, "f4"]},
                  {"key": src + "p", "op": "add", "inputs": [src + "n8", src + "u8"]}]
        i7 = pdf.i * 7
        want[src + "n8"] = i7.astype("int8").astype("int64")
        want[src + "f4"] = pdf.f.astype("float32").astype("float64")
        want[src + "a"] = pdf.assign(**{"f4": pdf.f.astype("float32").astype("float64")})
        want[src + "a"].insert(len(pdf.columns), 0, i7.astype("int8").astype("int64"))
        want[src + "p"] = i7.astype("int8").astype("int64") + i7.astype("uint8").astype("int64")
    return check_frames(data, nodes, want)


@case
def loc_drop(data, pdf):
    """loc with "drop": the rows of none of the labels, in their order
    (pandas' drop), on the default index and on a string index; a label of
    no row fails when it runs with pandas' words, but with errors
    "ignore"; "drop" without "labels" and a bad "errors" are refused"""
    nodes, want = [CSV, CSV1], {}
    for src in ("t", "t1"):
        nodes += [op(src + "d", "loc", src, labels=[0, 5, 399, 17], drop=True),
                  op(src + "e", "loc", src, labels=[3, 1000], drop=True, errors="ignore"),
                  op(src + "g", "set_index", src, keys=["g"]),
                  op(src + "gd", "loc", src + "g", labels=["b"], drop=True),
                  col(src + "f", src, "f"),
                  op(src + "fd", "loc", src + "f", labels=list(range(0, 400, 3)), drop=True)]
        want[src + "d"] = pdf.drop([0, 5, 399, 17])
        want[src + "e"] = pdf.drop([3, 1000], errors="ignore")
        want[src + "gd"] = pdf.set_index("g").drop("b")
        want[src + "fd"] = pdf.f.drop(list(range(0, 400, 3)))
    why = check_frames(data, nodes, want)
    if why:
        return why
    rc, err, out = T.run({"version": 1, "nodes": [CSV, op("x", "loc", "t", labels=[2, 777],
                                                        drop=True)], "fetch": ["x"]}, data, fails=True)
    shutil.rmtree(out, ignore_errors=True)
    if rc == 0 or "drop: [777] not found in axis" not in err:
        return "an absent label: exit %d: %s" % (rc, err.strip()[:300])
    return rejected(data, [CSV, op("x", "loc", "t", start=1, drop=True)], "x",
                    ['"drop" takes "labels"']) or \
        rejected(data, [CSV, op("x", "loc", "t", labels=[1], drop=True, errors="warn")], "x",
                 ['"errors" must be "raise" or "ignore"'])


@case
def agg_chunk_typed(data, pdf):
    """groupby_agg over int64 columns typed chunk by chunk (str.len and
    map: float64 in a chunk with a missing value): nunique's sets of both
    types meet in one union (it once read a float64 set's bytes as int64
    values and counted 2 and 2.0 apart), and the one-job groupby (median
    beside) sums, picks and multiplies a float64 column as float64 (its
    sum once read the doubles as bytes); values and types as pandas',
    whose columns are float64; one-row and uneven chunks, and partials
    combined by a tree or shuffled by key (which once concatenated a
    part's sets as one type)"""
    # tf: every row through a filter, so their count is known only when
    # they run: the partials are shuffled by key (hash parts), not a tree
    want = {}
    nodes = [col("ii", "t", "i"), {"key": "keep", "op": "greater", "inputs": ["ii", -1000]},
             {"key": "tf", "op": "dataframe.filter", "inputs": ["t", "keep"]}]
    P = pdf.assign(ln=pdf.s.str.len(), m=pdf.g.map({"a": 1, "b": 2}))
    for src in ("t", "t1", "tf"):
        nodes += [col("ss" + src, src, "s"), col("gg" + src, src, "g"),
                  op("n" + src, "str.len", "ss" + src),
                  op("m" + src, "map", "gg" + src, keys=["a", "b"], values=[1, 2]),
                  {"key": "a" + src, "op": "dataframe.assign",
                   "inputs": [src, "n" + src, "m" + src], "names": ["ln", "m"]}]
        for name, agg in (("part", {"u": ("ln", "nunique"), "v": ("m", "nunique"),
                                    "w": ("ln", "sum"), "x": ("m", "max")}),
                          ("whole", {"u": ("ln", "sum"), "v": ("m", "first"), "w": ("ln", "prod"),
                                     "x": ("m", "min"), "y": ("ln", "median"),
                                     "z": ("ln", "nunique")})):
            nodes.append({"key": name + src, "op": "dataframe.groupby_agg", "inputs": ["a" + src],
                          "by": ["k"], "agg": {k: list(v) for k, v in agg.items()}})
            want[name + src] = P.groupby("k").agg(**agg)
    return check_frames(data, [CSV, CSV1] + nodes, want)


@case
def chunk_typed_filled(data, pdf):
    """interpolate and fillna of int64 columns typed chunk by chunk
    (str.len, map: float64 in pandas where a value is missing): their
    missing values get fractions, so the columns are float64 from there on
    (they once stayed int64, and a groupby transform after them folded the
    fractions as integers); a fill by an integer keeps them int64 typed
    chunk by chunk; values as pandas', over uneven and one-row chunks"""
    want, nodes = {}, []
    P = pdf.assign(ln=pdf.s.str.len(), m=pdf.g.map({"a": 1, "b": 2}))
    for src in ("t", "t1"):
        nodes += [col("ss" + src, src, "s"), col("gg" + src, src, "g"),
                  op("n" + src, "str.len", "ss" + src),
                  op("m" + src, "map", "gg" + src, keys=["a", "b"], values=[1, 2]),
                  {"key": "a" + src, "op": "dataframe.assign",
                   "inputs": [src, "n" + src, "m" + src], "names": ["ln", "m"]},
                  col("w" + src, "a" + src, ["k", "ln", "m"]),
                  op("ip" + src, "interpolate", "w" + src),
                  op("fh" + src, "fillna", "w" + src, value=0.5),
                  op("fi" + src, "fillna", "w" + src, value=7),
                  {"key": "ts" + src, "op": "dataframe.groupby_transform", "inputs": ["ip" + src],
                   "by": ["k"], "columns": ["ln", "m"], "func": "sum"},
                  {"key": "tc" + src, "op": "dataframe.groupby_transform", "inputs": ["fh" + src],
                   "by": ["k"], "columns": ["ln", "m"], "func": "cumsum"}]
        W = P[["k", "ln", "m"]]
        want.update({"ip" + src: W.interpolate(), "fh" + src: W.fillna(0.5),
                     "fi" + src: W.fillna(7),
                     "ts" + src: W.interpolate().groupby("k")[["ln", "m"]].transform("sum"),
                     "tc" + src: W.fillna(0.5).groupby("k")[["ln", "m"]].cumsum()})
    why = check_frames(data, [CSV, CSV1] + nodes, want)
    if why:
        return why
    # a string into such a column would mix types (pandas' object column)
    rc, err, out = T.run({"version": 1, "nodes": [CSV, col("ss", "t", "s"),
                                                   op("n", "str.len", "ss"),
                                                   op("f", "fillna", "n", value="x")],
                          "fetch": ["f"]}, data, fails=True)
    shutil.rmtree(out, ignore_errors=True)
    if rc != 2 or "would mix types" not in err:
        return "fillna of str.len by a string: exit %d %s" % (rc, err.strip()[:200])
    return ""


@case
def gb_sum_infinity(data, pdf):
    """groupby_agg sum and mean over infinities, partials combined across
    one-row, uneven and whole chunks: pandas' one pass (group_add) gives
    a group +-inf when its last value is the only infinity and NaN once any
    value follows one (its compensation is NaN), missing values skipped;
    the combine of partials once made every group holding an infinity NaN,
    then every group whose infinity a partial of missing values followed"""
    rng = np.random.default_rng(45)
    n = 300
    x = np.round(rng.standard_normal(n), 2)
    for v in (np.inf, -np.inf, np.nan):
        x[rng.random(n) < 0.04] = v
    k = rng.integers(0, 60, n)
    # an infinity followed only by missing values (in later chunks): still
    # the group's last value, +-inf (partials of no value once made it NaN)
    extra = [(1000, 1.5), (1000, np.inf), (1000, np.nan), (1000, np.nan), (1001, -np.inf),
             (1001, np.nan), (1002, np.nan), (1002, -np.inf), (1002, np.nan), (1002, 2.0)]
    k = np.concatenate([k, [e[0] for e in extra]])
    x = np.concatenate([x, [e[1] for e in extra]])
    pd.DataFrame({"k": k, "x": x}).to_csv(os.path.join(data, "inf.csv"), index=False)
    P = pd.read_csv(os.path.join(data, "inf.csv"), float_precision="round_trip")
    want = P.groupby("k").agg(s=("x", "sum"), m=("x", "mean"))
    if not np.isinf(want.s).any() or not want.s.isna().any() or \
            not np.isinf(want.s[[1000, 1001]]).all() or not np.isnan(want.m[1002]):
        return "the data holds no group of each kind"
    for cb in (1, 200, 10 ** 6):
        why = check_frames(data, [
            {"key": "t", "op": "dataframe.read_csv", "path": "inf.csv", "chunk_bytes": cb},
            {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["t"], "by": ["k"],
             "agg": {"s": ["x", "sum"], "m": ["x", "mean"]}}], {"g": want})
        if why:
            return "chunk_bytes %d: %s" % (cb, why)
    return ""


@case
def median_quantile_infinity(data, pdf):
    """median, quantile and describe of columns with infinities and values
    of every magnitude, as pandas: median is numpy's (the middle value, or
    the mean of the two middle ones: it once interpolated, which differs in
    the last bit and made an infinity beside the middle NaN); quantile
    interpolates as numpy does, so q 1 of a column whose largest value is
    inf is NaN (it once gave inf), and qcut's last edge then too (codes as
    pandas', intervals refused as pandas refuses them), and with -inf too
    its first edge (pandas' unique keeps one NaN of the two); over uneven
    and one-row chunks"""
    rng = np.random.default_rng(47)
    n = 41
    cols = {}
    for c in range(6):
        v = rng.standard_normal(n) * 10.0 ** rng.integers(0, 300, n)
        v[rng.random(n) < 0.1] = np.nan
        if c >= 2:
            v[rng.integers(0, n, c - 1)] = np.inf if c % 2 else -np.inf
        cols["c%d" % c] = v
    cols["c1"][0] = np.nan  # an even count of values in c1
    cols["mid"] = np.r_[[1.0, 2.0, np.inf], np.full(n - 3, np.nan)]  # inf beside the middle
    both = rng.standard_normal(n)  # -inf and inf: qcut's first and last edges NaN
    both[[3, 9]], both[[5, 20, 30]] = -np.inf, np.inf
    cols["both"] = both
    P = pd.DataFrame(cols)
    P.to_csv(os.path.join(data, "mq.csv"), index=False)
    P = pd.read_csv(os.path.join(data, "mq.csv"), float_precision="round_trip")
    with np.errstate(invalid="ignore"):  # numpy's inf - inf
        want = {"me": P.median(), "de": P.describe(percentiles=[0, 0.3, 1])}
        for q in (0, 0.3, 0.5, 1):
            want["q%s" % q] = P.quantile(q)
        for c in P.columns:
            want["sm" + c] = np.float64(P[c].median())
    for cb in (1, 300, 10 ** 6):
        nodes = [{"key": "t", "op": "dataframe.read_csv", "path": "mq.csv", "chunk_bytes": cb},
                 op("me", "median", "t"), op("de", "describe", "t", percentiles=[0, 0.3, 1])]
        nodes += [op("q%s" % q, "quantile", "t", q=q) for q in (0, 0.3, 0.5, 1)]
        for c in P.columns:
            nodes += [col("s" + c, "t", c), op("sm" + c, "median", "s" + c)]
        # qcut of a column whose largest value is inf: its last edge NaN;
        # codes as pandas', intervals refused as pandas refuses them
        nodes.append(op("qc", "qcut", "sc3", q=2, labels=False))
        want["qc"] = pd.qcut(P.c3, 2, labels=False)
        # both ends NaN: pandas' unique keeps the first NaN only, so values
        # past the last number are in no bin
        nodes.append(op("qb", "qcut", "sboth", q=5, labels=False, duplicates="drop"))
        with np.errstate(invalid="ignore"):
            want["qb"] = pd.qcut(P.both, 5, labels=False, duplicates="drop")
        why = check_frames(data, nodes, want)
        if why:
            return "chunk_bytes %d: %s" % (cb, why)
        rc, err, out = T.run({"version": 1, "nodes": nodes[:-1] + [
            op("qi", "qcut", "sc3", q=2)], "fetch": ["qi"]}, data, fails=True)
        shutil.rmtree(out, ignore_errors=True)
        if rc != 1 or "missing values must be missing in the same location" not in err:
            return "qcut intervals of a NaN edge: exit %d: %s" % (rc, err.strip()[:300])
    return ""


@case
def quantile_lists(data, pdf):
    """quantile with a list of q (pandas' s.quantile([...]) and
    df.quantile([...])): a row per q in the list's order (repeats kept),
    indexed by q, a Series keeping its name, a DataFrame its numeric
    columns (datetimes and strings left out); an empty list gives no row;
    over uneven and one-row chunks; a q outside [0, 1] refused."""
    P = pdf[["i", "f", "k", "s"]]
    qs = [0.9, 0.1, 0.5, 0.5, 0, 1, 1 / 3]
    nodes = [CSV, CSV1, col("fi", "t", "f"), col("ii", "t1", "i"),
             col("num", "t", ["i", "f", "k", "s"]),
             op("qs", "quantile", "fi", q=qs), op("qi", "quantile", "ii", q=[0.25, 0.75]),
             op("qf", "quantile", "num", q=qs), op("qe", "quantile", "fi", q=[]),
             col("nb", "t1", ["k", "i", "f", "s"]), op("q1", "quantile", "nb", q=[0.5])]
    want = {"qs": P.f.quantile(qs), "qi": P.i.quantile([0.25, 0.75]),
            "qf": P[["i", "f", "k"]].quantile(qs), "qe": P.f.quantile([]),
            "q1": pdf[["k", "i", "f"]].quantile([0.5])}
    why = check_frames(data, nodes, want)
    if why:
        return why
    why = rejected(data, [CSV, col("fi", "t", "f"), op("r", "quantile", "fi", q=[0.5, 2])],
                   "r", ["\"q\"[1] must be a number in [0, 1]"])
    if why:
        return why
    # a million qs over 300 columns would be 2.4 GB of float64: refused
    # before anything is allocated (pivot's bound on cells)
    with open(os.path.join(data, "wide.csv"), "w") as f:
        f.write(",".join("c%d" % k for k in range(300)) + "\n" + ",".join(["1.5"] * 300) + "\n")
    wide = {"key": "w", "op": "dataframe.read_csv", "path": "wide.csv"}
    return rejected(data, [wide, op("r", "quantile", "w", q=[0.5] * 1000000)], "r",
                    ["1000000 quantiles of 300 columns make 300000000 values, more than the "
                     "268435456 a table may hold"])


@case
def quantile_interpolation(data, pdf):
    """quantile's interpolation as numpy's (lower, higher, nearest with ties
    to the even position, midpoint), of a Series and a frame, a q and a
    list of them, over uneven and one-row chunks (values as float64: the
    client casts int columns back); another method refused"""
    P = pdf[["i", "f", "k"]]
    qs = [0.0, 0.1, 0.25, 0.5, 0.9, 1.0, 1 / 3, 0.375]
    nodes, want = [CSV, CSV1, col("fi", "t", "f"), col("ii", "t1", "i"),
                   col("num", "t", ["i", "f", "k"])], {}
    for m in ("lower", "higher", "nearest", "midpoint"):
        nodes += [op("s" + m, "quantile", "fi", q=qs, interpolation=m),
                  op("i" + m, "quantile", "ii", q=[0.3, 0.5, 0.7], interpolation=m),
                  op("f" + m, "quantile", "num", q=qs, interpolation=m),
                  op("o" + m, "quantile", "num", q=0.3, interpolation=m)]
        want["s" + m] = P.f.quantile(qs, interpolation=m)
        want["i" + m] = P.i.quantile([0.3, 0.5, 0.7], interpolation=m).astype("float64")
        want["f" + m] = P.quantile(qs, interpolation=m).astype("float64")
        want["o" + m] = P.quantile(0.3, interpolation=m).astype("float64")
    why = check_frames(data, nodes, want)
    if why:
        return why
    return rejected(data, [CSV, col("fi", "t", "f"),
                           op("r", "quantile", "fi", q=0.5, interpolation="cubic")],
                    "r", ["interpolation must be linear, lower, higher, nearest or midpoint"])


@case
def rank_na_option(data, pdf):
    """rank with na_option top and bottom: the missing values one group
    ranked before (after) the others whatever the direction, every method,
    pct over every row (dense: over the groups); a DataFrame of floats,
    strings and ints and a Series, and within groups (groupby_transform),
    against pandas exactly"""
    nodes, want = [CSV], {}
    frame = pdf[["f", "s", "i", "k"]]
    nodes.append(col("fr", "t", ["f", "s", "i", "k"]))
    nodes.append(col("ff", "t", "f"))
    for how in ("average", "min", "max", "first", "dense"):
        for na in ("top", "bottom"):
            for asc in (True, False):
                for pct in (False, True):
                    k = "r_%s_%s_%d_%d" % (how, na, asc, pct)
                    kw = {"method": how, "na_option": na, "ascending": asc, "pct": pct}
                    nodes.append(op(k, "rank", "fr", **kw))
                    want[k] = frame.rank(**kw)
                    nodes.append(op("s" + k, "rank", "ff", **kw))
                    want["s" + k] = pdf.f.rank(**kw)
    # within groups (groupby_transform), pct over each group's rows; rows
    # whose key is missing NaN
    for how in ("average", "first", "dense"):
        for na in ("top", "bottom"):
            for src in ("t", "t1"):
                k = "g_%s_%s_%s" % (how, na, src)
                kw = {"method": how, "na_option": na, "pct": how != "first"}
                nodes.append({"key": k, "op": "dataframe.groupby_transform", "inputs": [src],
                              "by": ["s"], "columns": ["f", "i"], "func": "rank", **kw})
                want[k] = pdf.groupby("s")[["f", "i"]].rank(**kw)
    why = check_frames(data, [CSV1] + nodes, want)
    return why or rejected(data, [CSV, op("r", "rank", "t", na_option="middle")], "r",
                           ["na_option must be one of 'keep', 'top', or 'bottom'"])


@case
def describe_percentiles(data, pdf):
    """describe(percentiles=...) of a frame and of a Series: 0.5 added,
    sorted, rows labelled as pandas' format_percentiles labels them (the
    fewest decimals that keep them apart: "33.3%", "12.35%", "0.1%"),
    values np.percentile's linear ones; refusals with pandas' words"""
    nodes, want = [CSV, col("ff", "t", "f")], {}
    for q, ps in enumerate([[0.1, 0.9], [0.333, 0.5, 0.667], [0, 1], [0.001, 0.002], [],
                            [0.9999, 0.123456], [0.05, 0.95, 0.3]]):
        nodes += [op("d%d" % q, "describe", "t", percentiles=ps),
                  op("e%d" % q, "describe", "ff", percentiles=ps)]
        want["d%d" % q] = pdf.describe(percentiles=ps)
        want["e%d" % q] = pdf.f.describe(percentiles=ps)
    why = check_frames(data, nodes, want)
    for ps, words in (([0.5, 0.5], "percentiles cannot contain duplicates"),
                      ([1.5], "percentiles should all be in the interval [0,1]"),
                      ("x", "must be a list")):
        why = why or rejected(data, [CSV, op("r", "describe", "t", percentiles=ps)], "r",
                              [words])
    return why


@case
def transform_of_counts(data, pdf):
    """groupby_transform over a transform's counts (float64 where a row's
    key is missing, int64 in the chunks where none is): sum, max, cumsum
    and mean by another key fold the int64 chunks as the float64 ones
    (sum once kept them apart, giving a fraction of each group's sum);
    values as pandas', over uneven and one-row chunks"""
    want, nodes = {}, []
    C = pdf.groupby("s")[["k", "f", "i"]].transform("count")
    for src in ("t", "t1"):
        nodes.append({"key": "c" + src, "op": "dataframe.groupby_transform", "inputs": [src],
                      "by": ["s"], "columns": ["k", "f", "i"], "func": "count"})
        for fn in ("sum", "max", "cumsum", "mean"):
            nodes.append({"key": fn + src, "op": "dataframe.groupby_transform",
                          "inputs": ["c" + src], "by": ["k"], "columns": ["f", "i"], "func": fn})
            want[fn + src] = C.groupby("k")[["f", "i"]].transform(fn)
    return check_frames(data, [CSV, CSV1] + nodes, want)


@case
def transform_typed_by_chunk(data, pdf):
    """groupby_transform by a key that may be missing (strings): its int64
    results are typed chunk by chunk, as str.len's. Fetched, pandas' exact
    column (float64 where a key is missing, int64 by "g", which has none);
    to_tensor float64 as pandas' to_numpy() of the float64 column; an
    aggregation of a head of one-row chunks (rows in no group skipped) is
    int64, as its int64 chunks (the schema once said float64 there, and
    the aggregation gave int64 against it)"""
    nodes, want = [CSV, CSV1], {}
    for src in ("t", "t1"):
        for fn in ("sum", "min", "count", "cumsum", "cummax", "ffill"):
            for by in ("s", "g"):
                k = "%s_%s_%s" % (fn, by, src)
                nodes.append({"key": k, "op": "dataframe.groupby_transform", "inputs": [src],
                              "by": [by], "columns": ["k", "i"], "func": fn})
                want[k] = pdf.groupby(by)[["k", "i"]].transform(fn)
        k = "cc_" + src
        nodes.append({"key": k, "op": "dataframe.groupby_transform", "inputs": [src],
                      "by": ["s"], "func": "cumcount"})
        want[k] = pdf.groupby("s").cumcount()
        nodes.append({"key": "tt_" + src, "op": "dataframe.to_tensor", "inputs": ["sum_s_" + src]})
        want["tt_" + src] = want["sum_s_" + src].to_numpy()
        nodes.append({"key": "ct_" + src, "op": "dataframe.to_tensor", "inputs": [k]})
        want["ct_" + src] = want[k].to_numpy()
    # query and eval read such a column as float64 whatever its chunk's
    # type (they once read a float64 chunk's doubles as int64s: no row kept)
    for src in ("t", "t1"):
        nodes += [{"key": "q_" + src, "op": "dataframe.query", "inputs": ["count_s_" + src],
                   "expr": "i < 300 and k >= 1"},
                  {"key": "e_" + src, "op": "dataframe.eval", "inputs": ["count_s_" + src],
                   "expr": "i * 2 + k"}]
        C = want["count_s_" + src]
        want["q_" + src] = C.query("i < 300 and k >= 1")
        want["e_" + src] = C.eval("i * 2 + k")
    # the rows of a head whose keys are all present: their chunks int64
    head = pdf[pdf.s.notna()].head(3).index.max() + 1
    nodes += [{"key": "h", "op": "dataframe.head", "inputs": ["min_s_t1"], "n": int(head)},
              {"key": "hg", "op": "dataframe.groupby_agg", "inputs": ["h"], "by": ["k"],
               "agg": {"last": ["i", "last"], "n": ["i", "sum"]}}]
    H = want["min_s_t1"].head(int(head)).dropna()
    want["hg"] = H.astype("int64").groupby("k").agg(last=("i", "last"), n=("i", "sum"))
    return check_frames(data, nodes, want)


@case
def string_add(data, pdf):
    """add of strings, pandas' concatenation: two string Series, a Series
    and a literal either way round, a frame of strings and a literal;
    missing where either side is; other types beside strings refused; a
    Series renamed (Series.rename(name): str.cat's result is named after
    its caller)"""
    nodes = [CSV, CSV1, col("ss", "t", "s"), col("gg", "t", "g"), col("s1", "t1", "s"),
             {"key": "sg", "op": "add", "inputs": ["ss", "gg"]},
             {"key": "sl", "op": "add", "inputs": ["ss", {"value": " \u00e9t\u00e9"}]},
             {"key": "ls", "op": "add", "inputs": [{"value": "<"}, "s1"]},
             col("fr", "t", ["s", "g"]),
             {"key": "fl", "op": "add", "inputs": ["fr", {"value": "!"}]},
             {"key": "nested", "op": "add", "inputs": ["sg", "sl"]},
             {"key": "named", "op": "dataframe.rename", "inputs": ["sg"], "name": "joined"},
             {"key": "num", "op": "dataframe.rename", "inputs": ["ss"], "name": 7}]
    want = {"sg": pdf.s + pdf.g, "sl": pdf.s + " \u00e9t\u00e9", "ls": "<" + pdf.s,
            "fl": pdf[["s", "g"]] + "!", "nested": (pdf.s + pdf.g) + (pdf.s + " \u00e9t\u00e9"),
            "named": (pdf.s + pdf.g).rename("joined"), "num": pdf.s.rename(7)}
    for k, w in want.items():
        want[k] = w.rename(None) if k in ("sg", "nested") else w
    why = rejected(data, [CSV, {"key": "r", "op": "dataframe.rename", "inputs": ["t"],
                                "name": "x"}], "r", ["\"name\" is for a Series"])
    if why:
        return why
    why = check_frames(data, nodes, want)
    return why or rejected(data, [CSV, col("ss", "t", "s"), col("ff", "t", "f"),
                                  {"key": "r", "op": "add", "inputs": ["ss", "ff"]}], "r",
                           ["add of strings takes strings", "concatenation"])


@case
def str_extract(data, pdf):
    """str.extract: a column per capture group (numbered, or named by
    (?P<name>...)), (?:...) grouping without capturing, expand false with
    one group a Series named after the group or the input, a group that
    took no part missing, flags re.IGNORECASE; and the patterns of every
    regex op see code points ('.' one character of "été", [éè] a class of
    two), as Python's re does; patterns that would make regcomp's memory
    explode (a fuzzer's "9++++...") or mean another thing than in Python
    (lazy "*?") refused"""
    vals = ["a1b", "x22", None, "zz", "Q7-abc", "\u00e912\u00fc", "", "b-3", "(9)", "[x]",
            "\u00e9t\u00e9", "\u00c9T\u00c9"] * 4
    pd.DataFrame({"s": vals}).to_csv(os.path.join(data, "ex.csv"), index=False)
    P = pd.read_csv(os.path.join(data, "ex.csv")).s
    cases = [(r"([a-z])([0-9]+)", {}), (r"(?P<letter>[a-z])(?:[0-9]+)", {}),
             (r"([0-9]+)", {"expand": False}), (r"(?P<num>[0-9]+)", {"expand": False}),
             (r"(a)|(x)", {}), (r"([A-Z])", {"flags": 2}), (r"\(([0-9])\)", {}),
             (r"[[]([a-z])[]]", {}), ("(\u00e9)([0-9]*)(\u00fc?)", {}), (r"^(.)(.)", {}),
             (r"(-)?([0-9])", {}), ("([\u00e9\u00e8])", {"flags": 2})]
    nodes = [{"key": "t", "op": "dataframe.read_csv", "path": "ex.csv", "chunk_bytes": 25},
             col("s", "t", "s")]
    want = {}
    for q, (pat, kw) in enumerate(cases):
        nodes.append(op("e%d" % q, "str.extract", "s", pat=pat, **kw))
        with warnings.catch_warnings():  # re's "Possible nested set" of "[[]"
            warnings.simplefilter("ignore", FutureWarning)
            want["e%d" % q] = P.str.extract(pat, **kw)
    # glibc's \w \s \b read as re's: compared with pandas
    for q, (m, pat) in enumerate((("count", "."), ("contains", "^.{3}$"), ("match", "\u00e9."),
                                  ("count", r"\w"), ("contains", r"\s"), ("contains", r"\bb"),
                                  ("match", r"\W*[a-z]\B")), len(cases)):
        nodes.append(op("e%d" % q, "str." + m, "s", pat=pat))
        want["e%d" % q] = getattr(P.str, m)(pat)
    why = check_frames(data, nodes, want)
    for pat, words in (("[0-9]+", "pattern contains no capture groups"),
                       ("(?=a)(b)", "not supported in a POSIX pattern"),
                       ("(a*?)b", "multiple repeat at position 3"),
                       ("(9+++++++++++++++++++++++)", "multiple repeat"),
                       ("(a{2000})", "too large"), ("(((a){100}){100}){100}", "too large"),
                       # escapes the C library reads otherwise than re (\d as "d")
                       (r"(\d+)", "'\\d' at position 1"), (r"([\s,])", "'\\s' at position 2"),
                       (r"(a)\n", "no POSIX extended form")):
        why = why or rejected(data, nodes[:2] + [op("r", "str.extract", "s", pat=pat)], "r",
                              [words])
    return why or rejected(data, nodes[:2] + [op("r", "str.extract", "s", pat="(a)", flags=8)],
                           "r", ["flags"])


@case
def fill_over_empty_chunks(data, pdf):
    """fillna by method over chunks a filter left empty, of an int64 column
    typed chunk by chunk (str.len): an empty chunk passes no value on
    (it once passed 0: bfill filled NaN with 0 from the empty chunks after
    them)"""
    nodes = [CSV1, col("ss", "t1", "s"), op("n", "str.len", "ss"),
             {"key": "a", "op": "dataframe.assign", "inputs": ["t1", "n"], "names": ["ln"]},
             col("kk", "a", "k"), {"key": "m", "op": "greater", "inputs": ["kk", 2]},
             {"key": "fl", "op": "dataframe.filter", "inputs": ["a", "m"]},
             col("w", "fl", ["k", "ln", "f"]),
             op("b", "fillna", "w", method="bfill"), op("f", "fillna", "w", method="ffill")]
    W = pdf.assign(ln=pdf.s.str.len())
    W = W[W.k > 2][["k", "ln", "f"]]
    return check_frames(data, nodes, {"b": W.fillna(method="bfill"), "f": W.fillna(method="ffill")})


@case
def sort_na_position_rejects(data, pdf):
    """na_position is "first" or "last" (pandas: "invalid na_position")"""
    for bad in ("middle", True, 1):
        for node in (op("r", "sort_values", "t", by=["f"], na_position=bad),
                     op("r", "sort_index", "t", na_position=bad)):
            why = rejected(data, [CSV, node], "r", ["na_position", '"first" or "last"'])
            if why:
                return why
    return ""


@case
def nunique_dropna_rejects(data, pdf):
    """nunique's dropna is a boolean"""
    for bad in ("no", 0, [False]):
        why = rejected(data, [CSV, op("r", "nunique", "t", dropna=bad)], "r",
                       ['"dropna" must be a boolean'])
        if why:
            return why
    return ""


@case
def expanding_cov_corr(data, pdf):
    """expanding cov and corr with a column (pandas' expanding().cov(s)):
    a window of rows from the first through rolling's path, pandas' own
    running means and variances, to the bit on one-row, uneven and whole
    chunks"""
    rng = np.random.default_rng(33)
    n = 240
    x = np.round(rng.standard_normal(n) * 10, 3)
    x[rng.random(n) < 0.1] = np.nan
    y = np.round(rng.standard_normal(n) * 3 + x / 2, 3)
    y[rng.random(n) < 0.1] = np.nan
    pd.DataFrame({"x": x, "y": y}).to_csv(os.path.join(data, "ec.csv"), index=False)
    P = pd.read_csv(os.path.join(data, "ec.csv"), float_precision="round_trip")
    want = {"a": P.expanding().cov(P.y), "b": P.expanding(min_periods=5).corr(P.x)}
    nodes = [op("a", "expanding", "t", agg="cov", other="y"),
             op("b", "expanding", "t", agg="corr", other="x", min_periods=5)]
    return bits_over_chunks(data, "ec.csv", nodes, want, 70)


@case
def rolling_pairwise(data, pdf):
    """pandas' pairwise rolling cov and corr (other None): a row per row
    and column, indexed by the index and the columns' labels, every pair's
    running means and variances carried as pandas' to the bit; over rows
    and over a DatetimeIndex, on one-row, uneven and whole chunks; a
    Series with itself; the refusals"""
    from test_rolling_time import compare  # exact, MultiIndex and datetimes
    rng = np.random.default_rng(35)
    n = 120
    x = np.round(rng.standard_normal(n) * 10, 3)
    x[rng.random(n) < 0.1] = np.nan
    y = np.round(rng.standard_normal(n) * 3 + x / 2, 3)
    y[rng.random(n) < 0.1] = np.nan
    ts = pd.Timestamp("2024-01-01") + pd.to_timedelta(np.cumsum(rng.integers(1, 3000, n)),
                                                      unit="s")
    pd.DataFrame({"ts": ts, "x": x, "y": y, "z": rng.integers(0, 9, n)}).to_csv(
        os.path.join(data, "pw.csv"), index=False)
    P = pd.read_csv(os.path.join(data, "pw.csv"), parse_dates=["ts"],
                    float_precision="round_trip")
    F = P[["x", "y", "z"]]
    want = {"a": F.rolling(10).corr(), "b": F.rolling(7, min_periods=2).cov(),
            "c": P.set_index("ts").rolling("3h").corr(), "d": P.x.rolling(5).cov()}
    for cb in (1, 100, None):
        rd = {"key": "t", "op": "dataframe.read_csv", "path": "pw.csv", "parse_dates": ["ts"]}
        if cb:
            rd["chunk_bytes"] = cb
        nodes = [rd, op("f", "getitem", "t", columns=["x", "y", "z"]),
                 op("a", "rolling", "f", window=10, agg="corr"),
                 op("b", "rolling", "f", window=7, min_periods=2, agg="cov"),
                 op("si", "set_index", "t", keys="ts"),
                 op("c", "rolling", "si", window="3h", agg="corr"),
                 op("xs", "getitem", "t", columns="x"),
                 op("d", "rolling", "xs", window=5, agg="cov")]
        got, why = run_doc(data, nodes, list(want))
        if why:
            return "chunk_bytes %s: %s" % (cb, why)
        for k, ref in want.items():
            why = compare(got[k], ref)
            if why:
                return "chunk_bytes %s, %s: %s" % (cb, k, why)
    base = [{"key": "t", "op": "dataframe.read_csv", "path": "pw.csv", "parse_dates": ["ts"]},
            op("f", "getitem", "t", columns=["x", "y", "z"])]
    for node, words in ((op("r", "rolling", "f", window=3, center=True, agg="corr"), ["pairwise"]),
                        (op("r", "rolling", "f", window=3, by="z", agg="cov"), ["pairwise"]),
                        (op("r", "rolling", "t", window="2h", on="ts", agg="corr"), ["pairwise"]),
                        (op("r", "expanding", "f", agg="corr"), ["pairwise"])):
        why = rejected(data, base + [node], "r", words)
        if why:
            return "%s: %s" % (node, why)
    # a row per row and column: a chunk whose result passes 2 GiB fails
    _, why = run_doc(data, [{"key": "a", "op": "random.rand", "shape": [10000, 200],
                             "chunk_size": [10000, 200], "seed": 1},
                            {"key": "df", "op": "dataframe.from_tensor", "inputs": ["a"]},
                            op("r", "rolling", "df", window=3, agg="corr")], ["r"])
    if "more than the limit of 2 GiB" not in why:
        return "a result past 2 GiB: %r" % why
    # after a merge: its new default index
    pd.DataFrame({"z": range(9), "w": np.arange(9) * 0.5}).to_csv(os.path.join(data, "pz.csv"),
                                                                  index=False)
    Z = pd.read_csv(os.path.join(data, "pz.csv"))
    got, why = run_doc(data, base + [{"key": "dz", "op": "dataframe.read_csv", "path": "pz.csv",
                                      "chunk_bytes": 20},
                                     {"key": "m", "op": "dataframe.merge", "inputs": ["f", "dz"],
                                      "on": "z", "how": "left"},
                                     op("r", "rolling", "m", window=3, agg="corr")], ["r"])
    return why or compare(got["r"], F.merge(Z, on="z", how="left").rolling(3).corr())


@case
def rolling_closed_rows(data, pdf):
    """closed on windows of rows (pandas' FixedWindowIndexer: left and
    both start one row back, left and neither end one row back), every
    aggregation and by groups, to the bit on one-row, uneven and whole
    chunks"""
    rng = np.random.default_rng(37)
    n = 160
    x = np.round(rng.standard_normal(n) * 10, 3)
    x[rng.random(n) < 0.1] = np.nan
    pd.DataFrame({"k": rng.integers(0, 3, n), "x": x}).to_csv(os.path.join(data, "cl.csv"),
                                                              index=False)
    P = pd.read_csv(os.path.join(data, "cl.csv"), float_precision="round_trip")
    nodes, want = [col("f", "c", ["x"])], {}
    for c in ("left", "both", "neither"):
        for agg, mp in (("sum", None), ("mean", 1), ("max", 1), ("std", None), ("median", 2),
                        ("count", 0), ("skew", None)):
            kw = {} if mp is None else {"min_periods": mp}
            key = "%s_%s" % (c, agg)
            nodes.append(op(key, "rolling", "f", window=6, closed=c, agg=agg, **kw))
            want[key] = getattr(P[["x"]].rolling(6, closed=c, **kw), agg)()
        nodes.append(op("g_" + c, "rolling", "c", window=4, closed=c, by="k", agg="sum",
                        min_periods=1))
        want["g_" + c] = P.groupby("k").rolling(4, closed=c, min_periods=1).sum()
    return bits_over_chunks(data, "cl.csv", nodes, want, 60, key="c")


@case
def windows_infinite(data, pdf):
    """rolling, expanding and ewm see +-inf as missing, as pandas 1.5's
    _prep_values makes them NaN (cumsum keeps them): values with inf, -inf
    and NaN in chunks of 3, plain and by groups, to the bit"""
    rng = np.random.default_rng(5)
    x = rng.standard_normal(60)
    x[[3, 17, 18, 40]] = np.inf
    x[[9, 41, 59]] = -np.inf
    x[[5, 30]] = np.nan
    k = rng.integers(0, 3, 60)
    P = pd.DataFrame({"k": k, "x": x})
    code = np.where(np.isnan(x), 1, np.where(x == np.inf, 2, np.where(x == -np.inf, 3, 0)))
    nodes = [{"key": "a0", "op": "array", "data": np.where(code > 0, 0, x).tolist(),
              "chunk_size": 3},
             {"key": "c", "op": "array", "data": code.tolist(), "chunk_size": 3}]
    prev = "a0"
    for i, v in ((1, "nan"), (2, "inf"), (3, "-inf")):
        nodes += [{"key": "m%d" % i, "op": "equal", "inputs": ["c", i]},
                  {"key": "a%d" % i, "op": "where", "inputs": ["m%d" % i, {"value": v}, prev]}]
        prev = "a%d" % i
    nodes += [{"key": "kk", "op": "array", "data": k.astype(float).tolist(), "chunk_size": 3},
              {"key": "st", "op": "stack", "inputs": ["kk", prev], "axis": 1},
              {"key": "t0", "op": "dataframe.from_tensor", "inputs": ["st"],
               "columns": ["k", "x"]},
              {"key": "t", "op": "dataframe.astype", "inputs": ["t0"], "dtype": {"k": "int64"}},
              op("tx", "getitem", "t", columns=["x"])]
    X = P[["x"]]
    want = {"rs": X.rolling(4, min_periods=1).sum(), "rc": X.rolling(5, center=True).max(),
            "xm": X.expanding().mean(), "xd": X.expanding().median(),
            "em": X.ewm(span=3).mean(), "ev": X.ewm(alpha=0.5).var(),
            "gs": P.groupby("k").rolling(3, min_periods=1).std(),
            "cs": X.cumsum()}
    nodes += [op("rs", "rolling", "tx", window=4, min_periods=1, agg="sum"),
              op("rc", "rolling", "tx", window=5, center=True, agg="max"),
              op("xm", "expanding", "tx", agg="mean"), op("xd", "expanding", "tx", agg="median"),
              op("em", "ewm", "tx", span=3), op("ev", "ewm", "tx", alpha=0.5, agg="var"),
              op("gs", "rolling", "t", window=3, min_periods=1, by="k", agg="std"),
              op("cs", "cumsum", "tx")]
    return same_bits(data, nodes, want)


@case
def running_rejects(data, pdf):
    for node, words in (
            (op("r", "cumsum", "t"), ["takes numbers"]),
            (op("r", "rolling", "t", window=0, agg="sum"), ["window"]),
            (op("r", "rolling", "t", window=3, agg="mode"), ["agg"]),
            (op("r", "rolling", "t", window=3, agg="sum", center=1), ["center"]),
            (op("r", "rolling", "ts", window=3, agg="sum", by="k"), ["a Series has no columns"]),
            (op("r", "rolling", "t", window=3, agg="sum", by=["k", "k"]), ["twice"]),
            (op("r", "rolling", "t", window=3, agg="sum", by="nope"), ["nope"]),
            (op("r", "rolling", "t", window=3, agg="sum", by="s"), ["takes numbers"]),
            (op("r", "rolling", "kk", window=3, agg="sum", by="k"), ["no column to roll"]),
            (op("r", "expanding", "ts", agg="sum", by="k"), ["a Series has no columns"]),
            (op("r", "ewm", "t", span=2, by="s"), ["takes numbers"]),
            (op("r", "pct_change", "t", periods=-1), ["negative"]),
            (op("r", "ewm", "t", span=3), ["takes numbers", "select the numeric columns"]),
            (op("r", "ewm", "t"), ["Must pass one of comass, span, halflife, or alpha"]),
            (op("r", "ewm", "t", span=3, com=1), ["mutually exclusive"]),
            (op("r", "ewm", "t", alpha=0), ["alpha must satisfy: 0 < alpha <= 1"]),
            (op("r", "ewm", "t", span=0.5), ["span must satisfy: span >= 1"]),
            (op("r", "ewm", "t", halflife=0), ["halflife must satisfy: halflife > 0"]),
            (op("r", "ewm", "t", com=-1), ["comass must satisfy: comass >= 0"]),
            (op("r", "ewm", "t", span=3, agg="max"), ["mean, sum, var or std"]),
            (op("r", "ewm", "t", span=3, agg="mean", bias=True), ["\"bias\" is for var and std"]),
            (op("r", "expanding", "t", agg="sum"), ["takes numbers"]),
            (op("r", "expanding", "t", agg="mode"), ["agg"]),
            (op("r", "expanding", "ts", agg="quantile", quantile=2), ["not in [0, 1]"]),
            (op("r", "rolling", "kk", window=3, agg="corr", center=True), ["pairwise"]),
            (op("r", "rolling", "kk", window=3, agg="cov", other="k", ddof=0), ["ddof"]),
            (op("r", "rolling", "kk", window=3, agg="sum", other="k"), ["cov and corr"]),
            (op("r", "expanding", "kk", agg="cov"), ["pairwise"]),
            (op("r", "expanding", "t", agg="sum", min_periods=-1), ["min_periods must be >= 0"]),
            (op("r", "ewm", "t", span=3, agg="sum", adjust=False),
             ["sum is not implemented with adjust=False"])):
        why = rejected(data, [CSV, col("ts", "t", "f"), col("kk", "t", ["k"]), node], "r",
                       words)
        if why:
            return "%s: %s" % (node["op"], why)
    return ""


# ---------------------------------------------------------------- strings

def sop(key, name, src, **kw):
    return dict({"key": key, "op": "dataframe.str." + name, "inputs": [src]}, **kw)


@case
def str_methods(data, pdf):
    d = pd.DataFrame({"s": ["a b", "xYz", None, " \u00e9t\u00e9 ", "a,b,,c", "", "Stra\u00dfe",
                            "  lead", "x.y.z", "aaa", " p q  r  "] * 7})
    d.to_csv(os.path.join(data, "s.csv"), index=False)
    e = pd.read_csv(os.path.join(data, "s.csv"))
    s = e.s
    nodes = [{"key": "e", "op": "dataframe.read_csv", "path": "s.csv", "chunk_bytes": 9},
             col("s", "e", "s"),
             sop("lo", "lower", "s"), sop("up", "upper", "s"), sop("ln", "len", "s"),
             sop("c1", "contains", "s", pat="b", regex=False), sop("c2", "contains", "s", pat="^a+$"),
             sop("c3", "contains", "s", pat="X[a-z]", case=False),
             sop("sw", "startswith", "s", pat="a"), sop("ew", "endswith", "s", pat="z"),
             sop("sl", "slice", "s", start=1, stop=3), sop("sr", "slice", "s", step=-1),
             sop("st", "strip", "s"), sop("sc", "strip", "s", to_strip=" a"),
             sop("p1", "split", "s", pat=",", get=1), sop("p0", "split", "s", get=0),
             sop("pn", "split", "s", pat=".", n=1, get=1),
             sop("pl", "split", "s", pat=",", get=-1), sop("pm", "split", "s", get=-2),
             sop("pw", "split", "s", n=1, get=1),
             sop("r1", "replace", "s", pat="a", repl="A"),
             sop("r2", "replace", "s", pat="[.,]+", repl="_", regex=True),
             sop("r3", "replace", "s", pat="a", repl="-", n=1)]
    return check_frames(data, nodes, {
        "lo": s.str.lower(), "up": s.str.upper(), "ln": s.str.len(),
        "c1": s.str.contains("b", regex=False), "c2": s.str.contains("^a+$"),
        "c3": s.str.contains("X[a-z]", case=False), "sw": s.str.startswith("a"),
        "ew": s.str.endswith("z"), "sl": s.str.slice(1, 3), "sr": s.str.slice(step=-1),
        "st": s.str.strip(), "sc": s.str.strip(" a"), "p1": s.str.split(",").str[1],
        "p0": s.str.split().str[0], "pn": s.str.split(".", n=1).str[1],
        "pl": s.str.split(",").str[-1], "pm": s.str.split().str[-2],
        "pw": s.str.split(n=1).str[1],
        "r1": s.str.replace("a", "A", regex=False),
        "r2": s.str.replace("[.,]+", "_", regex=True),
        "r3": s.str.replace("a", "-", n=1, regex=False)})


# letters of several scripts with their case pairs, digits of several
# kinds (Arabic-Indic, superscripts, fractions), spaces beyond ASCII, a
# titlecase letter, a combining mark, final-sigma words, and what grows
# under a case mapping (ß, ŉ, ﬁ, İ)
UNI = ("aZ \u00e9\u00c9\u00df\u0149\ufb01\u0130\u01c5\u03a3\u03c3\u03c2\u0391\u03b2"
       "\u0416\u0436\u0301'.-_0129\u0663\u00b2\u00bd\u2167\u00a0\u3000\u2028\t\u00aa"
       "\u02b0\u1f88\u4e2d+\uab70\u13a0\u1e9e\u00b5")
WORDS = ["\u039f\u0394\u039f\u03a3", "\u03a3\u0391\u03a3 \u03a3", "hello World", "Hello World",
         "HELLO", "123", "-42", "+7", "\u0663\u0664", "\u00bd", "   ", "", "\u01c5ungla",
         "\u1f88\u03b9", "a\u0301b", "\u00dfe", "x1y2", "\u2167"]


def random_strings(rng, n):
    out = []
    for _ in range(n):
        if rng.random() < 0.35:
            out.append(WORDS[rng.integers(len(WORDS))])
        else:
            k = int(rng.integers(0, 9))
            out.append("".join(UNI[int(q)] for q in rng.integers(0, len(UNI), k)))
    return out


@case
def str_unicode_methods(data, pdf):
    """the str methods as Python's own str methods compute them (full case
    mappings, final sigma, Unicode classes) over random strings of several
    scripts, against pandas."""
    rng = np.random.default_rng(17)
    vals = random_strings(rng, 400)
    # no missing values in the file's sense: empty strings and spaces stay
    d = pd.DataFrame({"s": vals, "k": range(len(vals))})
    d.loc[rng.random(len(vals)) < 0.06, "s"] = None
    d.to_json(os.path.join(data, "u.json"), orient="records", lines=True)
    e = pd.read_json(os.path.join(data, "u.json"), orient="records", lines=True)
    s = e.s
    nodes = [{"key": "e", "op": "dataframe.read_json", "path": "u.json", "orient": "records",
              "lines": True},
             {"key": "e2", "op": "dataframe.iloc", "inputs": ["e"], "rows": "::1"},
             col("s", "e", "s")]
    want = {}
    for m in ("lower", "upper", "title", "capitalize", "swapcase", "casefold", "isalpha", "isalnum",
              "isdigit", "isdecimal", "isnumeric", "isspace", "islower", "isupper", "istitle",
              "len", "strip", "lstrip", "rstrip"):
        nodes.append(sop("m_" + m, m, "s"))
        want["m_" + m] = getattr(s.str, m)()
    for k, (m, kw, pkw) in enumerate((
            ("zfill", {"width": 6}, (6,)), ("pad", {"width": 5}, (5,)),
            ("pad", {"width": 7, "side": "right", "fillchar": "\u00e9"},
             (7, "right", "\u00e9")),
            ("pad", {"width": 6, "side": "both", "fillchar": "*"}, (6, "both", "*")),
            ("center", {"width": 7}, (7,)), ("center", {"width": 8, "fillchar": "-"}, (8, "-")),
            ("ljust", {"width": 4, "fillchar": "."}, (4, ".")), ("rjust", {"width": 9}, (9,)),
            ("find", {"sub": "a"}, ("a",)), ("find", {"sub": "\u03a3", "start": 1}, ("\u03a3", 1)),
            ("find", {"sub": "", "start": 3, "end": -1}, ("", 3, -1)),
            ("find", {"sub": "l", "start": -4, "end": 50}, ("l", -4, 50)),
            ("rfind", {"sub": "l"}, ("l",)), ("rfind", {"sub": "", "start": 20}, ("", 20)),
            ("rfind", {"sub": "\u00e9", "end": -2}, ("\u00e9", 0, -2)),
            ("count", {"pat": "l"}, ("l",)), ("count", {"pat": "[0-9]+"}, ("[0-9]+",)),
            ("count", {"pat": "x*"}, ("x*",)), ("count", {"pat": "\u03a3"}, ("\u03a3",)),
            ("match", {"pat": "[A-Z]"}, ("[A-Z]",)), ("match", {"pat": "h|he"}, ("h|he",)),
            ("match", {"pat": "[a-z]+ ", "case": False}, ("[a-z]+ ",), ),
            ("fullmatch", {"pat": "[0-9+-]+"}, ("[0-9+-]+",)),
            ("fullmatch", {"pat": "hello world", "case": False}, ("hello world",)),
            ("repeat", {"repeats": 2}, (2,)), ("repeat", {"repeats": -1}, (-1,)),
            ("get", {"i": 0}, (0,)), ("get", {"i": -2}, (-2,)), ("get", {"i": 4}, (4,)),
            ("lstrip", {"to_strip": "a\u00e9 "}, ("a\u00e9 ",)),
            ("rstrip", {"to_strip": "\u00df+e"}, ("\u00df+e",)),
            ("strip", {"to_strip": "\u03a3\u03c3"}, ("\u03a3\u03c3",)),
            ("split", {"get": 1}, None))):
        key = "p%d_%s" % (k, m)
        nodes.append(sop(key, m, "s", **kw))
        if m == "split":
            want[key] = s.str.split().str[1]
        elif m in ("match", "fullmatch") and kw.get("case") is False:
            want[key] = getattr(s.str, m)(*pkw, case=False)
        else:
            want[key] = getattr(s.str, m)(*pkw)
    # the same methods through one-row chunks
    nodes += [col("s1", "e2", "s"), sop("one_title", "title", "s1"),
              sop("one_lower", "lower", "s1")]
    want["one_title"] = s.str.title()
    want["one_lower"] = s.str.lower()
    return check_frames(data, nodes, want)


@case
def str_more_rejects(data, pdf):
    for node, words in ((sop("r", "zfill", "gg"), ["width"]),
                        (sop("r", "pad", "gg", width=3, side="up"), ["side"]),
                        (sop("r", "center", "gg", width=3, fillchar="ab"), ["fillchar",
                                                                            "character"]),
                        (sop("r", "find", "gg"), ["sub"]),
                        (sop("r", "count", "gg", pat="("), ["regular expression"]),
                        (sop("r", "repeat", "gg", repeats=[1, 2]), ["repeats"]),
                        (sop("r", "get", "gg"), ["\"i\""]),
                        (sop("r", "istitle", "ii"), ["str accessor"]),
                        (sop("r", "match", "gg", pat="a", flags=2), ["flags"])):
        why = rejected(data, [CSV, col("ii", "t", "i"), col("gg", "t", "g"), node], "r", words)
        if why:
            return "%s: %s" % (node["op"], why)
    # a result past one chunk's limit fails the job, naming it
    nodes = [CSV, col("gg", "t", "g"), sop("r", "repeat", "gg", repeats=2 ** 40)]
    rc, err, out = T.run({"version": 1, "nodes": nodes, "fetch": ["r"]}, data, fails=True)
    shutil.rmtree(out, ignore_errors=True)
    if rc == 0 or "1 GiB" not in err:
        return "repeat 2^40: exit %d: %s" % (rc, err.strip()[:300])
    return ""


@case
def str_filter_and_rejects(data, pdf):
    # a mask with missing values is refused by pandas: the g column has none
    nodes = [CSV, col("gg", "t", "g"), sop("m", "contains", "gg", pat="a|b"),
             {"key": "f", "op": "dataframe.filter", "inputs": ["t", "m"]}]
    why = check_frames(data, nodes, {"f": pdf[pdf.g.str.contains("a|b")]})
    if why:
        return why
    for node, words in ((sop("r", "lower", "ii"), ["str accessor"]),
                        (sop("r", "contains", "gg", pat="("), ["regular expression"]),
                        (sop("r", "split", "gg", pat=","), ["get"])):
        why = rejected(data, [CSV, col("ii", "t", "i"), col("gg", "t", "g"), node], "r", words)
        if why:
            return "%s: %s" % (node["op"], why)
    return ""


# ---------------------------------------------------------------- statistics, concat

@case
def statistics(data, pdf):
    num = {"key": "nu", "op": "dataframe.getitem", "inputs": ["t"], "columns": ["k", "i", "f"]}
    num1 = {"key": "nu1", "op": "dataframe.getitem", "inputs": ["t1"], "columns": ["k", "f"]}
    nodes = [CSV, CSV1, num, num1, col("ff", "t", "f"), col("ii", "t", "i"), col("gg", "t", "g"),
             col("ss", "t", "s")]
    nf = pdf[["k", "i", "f"]]
    want = {}
    for st in ("median", "skew", "kurt"):
        nodes += [op("d" + st, st, "nu"), op("s" + st, st, "ff")]
        want["d" + st] = getattr(nf, st)()
        want["s" + st] = np.float64(getattr(pdf.f, st)())
    # value_counts: few distinct values (pandas' sort of the counts is
    # stable only for small results)
    nodes += [op("q3", "quantile", "nu1", q=0.3), op("qs", "quantile", "ii", q=0.75),
              op("co", "corr", "t"), op("cv", "cov", "nu1"),
              op("vc", "value_counts", "gg"), op("vn", "value_counts", "ss", normalize=True),
              op("vd", "value_counts", "ss", dropna=False),
              op("vdn", "value_counts", "ss", dropna=False, normalize=True),
              op("vfd", "value_counts", "ff", dropna=False, sort=False),
              op("ra", "rank", "t"), op("rm", "rank", "ff", method="min", ascending=False),
              op("rd", "rank", "ii", method="dense", pct=True),
              op("rf", "rank", "ii", method="first"), op("rx", "rank", "t1", method="max")]
    want.update({
        "q3": pdf[["k", "f"]].quantile(0.3), "qs": np.float64(pdf.i.quantile(0.75)),
        "co": pdf.corr(numeric_only=True), "cv": pdf[["k", "f"]].cov(),
        "vc": pdf.g.value_counts(), "vn": pdf.s.value_counts(normalize=True),
        "vd": pdf.s.value_counts(dropna=False),
        "vdn": pdf.s.value_counts(dropna=False, normalize=True),
        "vfd": pdf.f.value_counts(dropna=False, sort=False),
        "ra": pdf.rank(), "rm": pdf.f.rank(method="min", ascending=False),
        "rd": pdf.i.rank(method="dense", pct=True), "rf": pdf.i.rank(method="first"),
        "rx": pdf.rank(method="max")})
    return check_frames(data, nodes, want)


@case
def concat_rows(data, pdf):
    nodes = [CSV, CSV1, col("ki", "t", "k"), {"key": "m", "op": "greater", "inputs": ["ki", 2]},
             {"key": "fl", "op": "dataframe.filter", "inputs": ["t", "m"]},
             {"key": "c", "op": "dataframe.concat", "inputs": ["t", "fl", "t1"]},
             op("h", "tail", "c", n=450), col("f1", "t", "f"), col("f2", "t1", "f"),
             {"key": "cs", "op": "dataframe.concat", "inputs": ["f1", "f2"]},
             op("sm", "sum", "cs")]
    c = pd.concat([pdf, pdf[pdf.k > 2], pdf])
    return check_frames(data, nodes, {"c": c, "h": c.tail(450),
                                      "cs": pd.concat([pdf.f, pdf.f]),
                                      "sm": np.float64(pd.concat([pdf.f, pdf.f]).sum())})


@case
def concat_int_float(data, pdf):
    """a column int64 in some inputs and float64 in others concatenates
    as pandas' float64 (it once refused "differ in ... their types"),
    either way round, of frames and Series, and computes on as float64
    (sum, cumsum, a groupby); other type pairs stay refused"""
    nodes = [CSV, CSV1, col("ii", "t", "i"), col("f0", "t1", "f"),
             {"key": "ff", "op": "dataframe.rename", "inputs": ["f0"], "name": "i"},
             {"key": "if", "op": "dataframe.concat", "inputs": ["ii", "ff", "ii"]},
             {"key": "fi", "op": "dataframe.concat", "inputs": ["ff", "ii"]},
             op("sm", "sum", "if"), op("cs", "cumsum", "fi"),
             col("gi", "t", ["g", "i"]), col("gf", "t1", ["g", "f"]),
             op("gf2", "rename", "gf", columns={"f": "i"}),
             {"key": "gc", "op": "dataframe.concat", "inputs": ["gi", "gf2"]},
             op("ga", "groupby_agg", "gc", by=["g"], agg={"s": ["i", "sum"], "m": ["i", "max"]})]
    i2, f2 = pdf.i, pdf.f.rename("i")
    gc = pd.concat([pdf[["g", "i"]], pdf[["g", "f"]].rename(columns={"f": "i"})])
    want = {"if": pd.concat([i2, f2, i2]), "fi": pd.concat([f2, i2]),
            "sm": np.float64(pd.concat([i2, f2, i2]).sum()), "cs": pd.concat([f2, i2]).cumsum(),
            "ga": gc.groupby("g").agg(s=("i", "sum"), m=("i", "max"))}
    why = check_frames(data, nodes, want)
    if why:
        return why
    return rejected(data, [CSV, col("ii", "t", "i"), col("ss", "t", "s"),
                           {"key": "x", "op": "dataframe.concat", "inputs": ["ii", "ss"]}],
                    "x", ["differ in columns, their types or index levels"])


# ---------------------------------------------------------------- groupby: one job, or shuffled whole

@case
def groupby_more(data, pdf):
    gb = "groupby_agg"
    nodes = [CSV, CSV1,
             op("g1", gb, "t", by=["k", "g"], agg={"md": ["f", "median"], "pr": ["i", "prod"],
                                                 "lo": ["f", "idxmin"], "hi": ["i", "idxmax"],
                                                 "n": ["s", "count"], "u": ["s", "nunique"],
                                                 "mx": ["g", "max"], "fs": ["s", "first"]}),
             op("g2", gb, "t1", by=["s"], dropna=False,
                agg={"n": ["i", "sum"], "m": ["f", "mean"], "z": ["f", "size"],
                     "sd": ["f", "std"], "lb": ["b", "last"]}),
             op("g3", gb, "t", by=["g", "b"], as_index=False,
                agg={"n": ["i", "sum"], "v": ["f", "var"], "mn": ["f", "min"]}),
             op("g4", gb, "t", by=["s", "k"], dropna=False, as_index=False,
                agg={"c": ["i", "count"]}),
             # as_index false over many chunks of unknown length: the shuffle, its
             # one result chunk flattened
             op("q5", "query", "t1", expr="i > -1000"),
             op("g5", gb, "q5", by=["g", "k"], as_index=False,
                agg={"n": ["i", "sum"], "m": ["f", "max"], "c": ["s", "count"]})]
    a = pdf.groupby(["k", "g"]).agg(md=("f", "median"), pr=("i", "prod"), lo=("f", "idxmin"),
                                    hi=("i", "idxmax"), n=("s", "count"), u=("s", "nunique"),
                                    mx=("g", "max"), fs=("s", "first"))
    return check_frames(data, nodes, {
        "g1": a,
        "g2": pdf.groupby(["s"], dropna=False).agg(n=("i", "sum"), m=("f", "mean"),
                                                   z=("f", "size"), sd=("f", "std"),
                                                   lb=("b", "last")),
        "g3": pdf.groupby(["g", "b"], as_index=False).agg(n=("i", "sum"), v=("f", "var"),
                                                         mn=("f", "min")),
        "g4": pdf.groupby(["s", "k"], dropna=False, as_index=False).agg(c=("i", "count")),
        "g5": pdf.query("i > -1000").groupby(["g", "k"], as_index=False).agg(
            n=("i", "sum"), m=("f", "max"), c=("s", "count"))})


# ---------------------------------------------------------------- expressions

QUERIES = [
    "k > 2", "f < 0.5 and s == 'paris'", "i % 3 == 1 | b", "not b & (k <= 1 or g != 'a')",
    "s in ['nice', 'lyon']", "g not in ('a', 'c')", "f != f", "-i ** 2 > -100",
    "(i + k) * 2 >= f", "i // 7 == -1", "`f` / 2 < k - 1.5", "~(k == 3)", "b == True",
    "g < 'b'", "k in [1, 3] and f > -1e1",
]
EVALS = ["i + k * 2", "f / (k + 1)", "i // 4 + i % 4", "k > 2", "-f + 1.25", "i ** 2", "b + k",
         "2 ** k"]


@case
def query_eval(data, pdf):
    nodes = [CSV, CSV1]
    want = {}
    for q, x in enumerate(QUERIES):
        nodes.append(op("q%d" % q, "query", "t" if q % 2 else "t1", expr=x))
        want["q%d" % q] = pdf.query(x)
    for q, x in enumerate(EVALS):
        nodes.append(op("e%d" % q, "eval", "t", expr=x))
        r = pdf.eval(x)
        want["e%d" % q] = r.rename(None) if isinstance(r, pd.Series) else r
    return check_frames(data, nodes, want)


@case
def query_rejects(data, pdf):
    for x, words in (("k >", ["missing"]), ("zz > 1", ["not a column"]),
                     ("s + 1", ["string"]), ("k == 'a'", ["string"]),
                     ("k > 1 2", ["unexpected"]), ("__import__('os')", ["not a column"]),
                     ("k +", ["missing"]), ("'abc", ["unterminated"]),
                     ("(" * 100 + "k" + ")" * 100, ["deeply"]), ("k", ["booleans"])):
        why = rejected(data, [CSV, op("r", "query", "t", expr=x)], "r", words)
        if why:
            return "%r: %s" % (x, why)
    return ""


@case
def melt(data, pdf):
    nodes = [CSV, CSV1, op("m1", "melt", "t", id_vars=["g"], value_vars=["k", "i", "f"]),
             op("m2", "melt", "t1", id_vars=["k", "b"], value_vars=["s", "g"],
                var_name="col", value_name="val"),
             op("m3", "melt", "t", id_vars="s", value_vars=["i", "k"]),
             op("m4", "melt", "t", value_vars=["b"])]
    return check_frames(data, nodes, {
        "m1": pdf.melt(id_vars=["g"], value_vars=["k", "i", "f"]),
        "m2": pdf.melt(id_vars=["k", "b"], value_vars=["s", "g"], var_name="col",
                       value_name="val"),
        "m3": pdf.melt(id_vars="s", value_vars=["i", "k"]),
        "m4": pdf.melt(value_vars=["b"])})


# ---------------------------------------------------------------- random DataFrame chains

def random_chain(rng, n_ops):
    """A chain of random DataFrame ops over the CSV (uneven chunks, one-row
    chunks), as (nodes, key of the last node)."""
    src = CSV if rng.random() < 0.6 else CSV1
    nodes = [dict(src)]
    cur, cols = src["key"], ["k", "i", "f", "b", "s", "g"]
    for q in range(n_ops):
        key = "n%d" % q
        num = [c for c in cols if c in ("k", "i", "f")]
        choices = ["fillna_f", "dropna", "query", "rename", "drop", "cumsum", "shift", "diff",
                   "sort", "head", "tail", "isna", "replace", "rolling", "dedup", "concat",
                   "reset", "clip", "astype"]
        c = choices[rng.integers(len(choices))]
        nd = None
        if c == "fillna_f" and "f" in cols:
            nd = op(key, "fillna", cur, method=["ffill", "bfill"][rng.integers(2)])
        elif c == "dropna":
            nd = op(key, "dropna", cur, how=["any", "all"][rng.integers(2)])
        elif c == "query" and "k" in cols:
            nd = op(key, "query", cur, expr="k %s %d" % (["<", ">=", "!="][rng.integers(3)],
                                                          rng.integers(0, 5)))
        elif c == "rename" and "g" in cols:
            nd = op(key, "rename", cur, columns={"g": "gg"})
            cols = ["gg" if x == "g" else x for x in cols]
        elif c == "drop" and "b" in cols:
            nd = op(key, "drop", cur, columns=["b"])
            cols = [x for x in cols if x != "b"]
        # shift runs on numeric columns here: a bool column with missing
        # values stays object in pandas after rows are dropped, where this
        # engine names the dtype by the values (docs: where results differ)
        elif c in ("cumsum", "diff", "rolling", "clip", "replace", "shift") and num:
            sel = {"key": key + "s", "op": "dataframe.getitem", "inputs": [cur], "columns": num}
            nodes.append(sel)
            cur, cols = sel["key"], num
            kw = {"cumsum": {}, "diff": {"periods": int(rng.integers(-3, 4))},
                  "rolling": {"window": int(rng.integers(1, 6)), "agg": "mean"},
                  "clip": {"lower": -2, "upper": 3}, "replace": {"to_replace": 1, "value": 7},
                  "shift": {"periods": int(rng.integers(-2, 3))}}[c]
            nd = op(key, c, cur, **kw)
        elif c == "sort" and "i" in cols:
            nd = op(key, "sort_values", cur, by=["i"])
        elif c == "head":
            nd = op(key, "head", cur, n=int(rng.integers(0, 300)))
        elif c == "tail":
            nd = op(key, "tail", cur, n=int(rng.integers(0, 300)))
        elif c == "isna":
            nd = op(key, "isna", cur)
            nodes.append(nd)
            return nodes, key
        elif c == "dedup" and "k" in cols:
            nd = op(key, "drop_duplicates", cur, subset=["k"], keep=["first", "last"][rng.integers(2)])
        elif c == "concat":
            nd = {"key": key, "op": "dataframe.concat", "inputs": [cur, cur]}
        elif c == "reset":
            nd = op(key, "reset_index", cur, drop=True)
        elif c == "astype" and "k" in cols:
            nd = op(key, "astype", cur, dtype={"k": "float64"})
        if nd is None:
            continue
        nodes.append(nd)
        cur = key
    return nodes, cur


@case
def random_chains(data, pdf):
    import pdref
    rng = np.random.default_rng(int(os.environ.get("DF_CHAIN_SEED", "20")))
    for t in range(25):
        nodes, last = random_chain(rng, int(rng.integers(1, 6)))
        doc = {"version": 1, "nodes": nodes, "fetch": [last]}
        try:
            want = pdref.evaluate(doc, data)[last]
        except Exception as e:  # pandas refuses it: so must the engine
            rc, err, out = T.run(doc, data)
            shutil.rmtree(out, ignore_errors=True)
            if rc == 0:
                return "chain %d: pandas raised %r, the engine accepted: %s" % (
                    t, e, json.dumps(nodes)[:400])
            continue
        why = check_frames(data, nodes, {last: want})
        if why:
            return "chain %d %s: %s" % (t, json.dumps(nodes)[:600], why)
    return ""


def main():
    names = sys.argv[1:]
    data = tempfile.mkdtemp(prefix="df_ops_")
    pdf = make_data(data)
    passed = failed = 0
    known = {c.__name__ for c in CASES}
    for n in names:
        if n not in known:
            print("unknown case %s (cases: %s)" % (n, " ".join(sorted(known))))
            failed += 1
    p, f = T.replay_cases(CASES, data, (data, pdf), names)
    passed, failed = passed + p, failed + f
    shutil.rmtree(data, ignore_errors=True)
    print("RESULT passed=%d failed=%d" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
