#!/usr/bin/python3
"""DataFrame ops of the df3 branch through mars-run, against pandas 1.5:
merge with left_on/right_on, left_index/right_index, suffixes and the
common-columns default; join; concat along the columns. Inputs are many
uneven chunks of CSVs with NaN, strings with missing values, bools and
duplicate keys, and one-row chunks.

Usage: test_df3.py [CASE...] (default: every case). Prints
`RESULT passed=N failed=M`."""

import json
import re
import os
import shutil
import sys
import tempfile

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_df as T  # noqa: E402  (run, load, expect_frame, same, norm)

CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def make_data(data):
    rng = np.random.default_rng(33)
    n = 300
    words = np.array(["paris", "lyon", "nice", "x y", "\u00e9t\u00e9"])
    s = words[rng.integers(0, len(words), n)].astype(object)
    s[rng.random(n) < 0.1] = np.nan
    f = np.round(rng.standard_normal(n) * 10, 3)
    f[rng.random(n) < 0.15] = np.nan
    left = pd.DataFrame({"k": rng.integers(0, 12, n), "i": rng.integers(-50, 50, n), "f": f,
                         "b": rng.random(n) < 0.5, "s": s,
                         "g": np.array(["a", "b", "c"])[rng.integers(0, 3, n)]})
    left.to_csv(os.path.join(data, "t.csv"), index=False)
    m = 60
    right = pd.DataFrame({"key": rng.integers(0, 15, m), "i": rng.integers(0, 9, m),
                          "w": np.round(rng.random(m), 4),
                          "g": np.array(["a", "b", "d"])[rng.integers(0, 3, m)]})
    right.to_csv(os.path.join(data, "r.csv"), index=False)
    # unique keys for index joins
    u = pd.DataFrame({"id": rng.permutation(40)[:25], "z": rng.integers(0, 100, 25),
                      "f": np.round(rng.random(25), 3)})
    u.to_csv(os.path.join(data, "u.csv"), index=False)
    return (pd.read_csv(os.path.join(data, "t.csv")), pd.read_csv(os.path.join(data, "r.csv")),
            pd.read_csv(os.path.join(data, "u.csv")))


CSV = {"key": "t", "op": "dataframe.read_csv", "path": "t.csv", "chunk_bytes": 300}
CSV1 = {"key": "t1", "op": "dataframe.read_csv", "path": "t.csv", "chunk_bytes": 1}
RC = {"key": "r", "op": "dataframe.read_csv", "path": "r.csv", "chunk_bytes": 100}
UC = {"key": "u", "op": "dataframe.read_csv", "path": "u.csv", "chunk_bytes": 60}


def op(key, name, src, **kw):
    d = {"key": key, "op": "dataframe." + name, "inputs": src if isinstance(src, list) else [src]}
    d.update(kw)
    return d


def run_doc(data, nodes, fetch):
    rc, err, out = T.run({"version": 1, "nodes": nodes, "fetch": fetch}, data)
    if rc != 0:
        shutil.rmtree(out, ignore_errors=True)
        return None, "exit %d: %s" % (rc, err.strip()[:400])
    got = {k: T.load(out, k) for k in fetch}
    shutil.rmtree(out, ignore_errors=True)
    return got, ""


def same_rows(got, ref, order):
    """order: 'exact', 'rows' (sorted, index ignored: merge's new index) or
    'index' (sorted with the index)."""
    if order == "exact":
        why = T.expect_frame(got, ref)
        if why:
            return why
    else:
        if "columns" not in got:
            return "a DataFrame was expected"
        if list(map(T.norm, got["columns"])) != [T.norm(c) for c in ref.columns]:
            return "columns %r vs %r" % (got["columns"], list(ref.columns))
        dt = {str(c): str(t) for c, t in ref.dtypes.items()}
        if got["dtypes"] != dt:
            return "dtypes %r vs %r" % (got["dtypes"], dt)
        rows = [[i] + r for i, r in zip(got["index"], got["data"])]
        want = [[i] + list(r) for i, r in zip(list(ref.index), ref.itertuples(index=False))]
        if order == "rows":
            rows = [r[1:] for r in rows]
            want = [r[1:] for r in want]
        key = lambda r: json.dumps(T.norm(r), default=str)  # noqa: E731
        rows, want = sorted(rows, key=key), sorted(want, key=key)
        if len(rows) != len(want):
            return "%d rows vs %d" % (len(rows), len(want))
        for a, b in zip(rows, want):
            if not T.same(a, b):
                return "row %r vs %r" % (str(a)[:200], str(T.norm(b))[:200])
    names = list(ref.index.names) if order != "rows" else None
    if names is not None and got.get("index_names") != names:
        return "index_names %r vs pandas %r" % (got.get("index_names"), names)
    return ""


def check(data, nodes, want):
    """want: {key: (pandas object, order)}."""
    got, why = run_doc(data, nodes, list(want))
    if why:
        return why
    for k, (ref, order) in want.items():
        why = same_rows(got[k], ref, order)
        if why:
            return "%s: %s" % (k, why)
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


# ---------------------------------------------------------------- merge and join

@case
def merge_left_right_on(data, L, R, U):
    nodes, want = [CSV, CSV1, RC], {}
    for how in ("inner", "left", "right", "outer"):
        k = "m_" + how
        nodes.append(op(k, "merge", ["t", "r"], left_on="k", right_on="key", how=how))
        want[k] = (L.merge(R, left_on="k", right_on="key", how=how), "rows")
        k = "m2_" + how
        nodes.append(op(k, "merge", ["t1", "r"], left_on=["k", "g"], right_on=["key", "g"],
                        how=how, suffixes=["_left", None]))
        want[k] = (L.merge(R, left_on=["k", "g"], right_on=["key", "g"], how=how,
                           suffixes=("_left", None)), "rows")
    nodes.append(op("m3", "merge", ["t", "r"], left_on="i", right_on="i", how="outer"))
    want["m3"] = (L.merge(R, left_on="i", right_on="i", how="outer"), "rows")
    nodes.append(op("m4", "merge", ["t", "r"], how="left"))
    want["m4"] = (L.merge(R, how="left"), "rows")
    nodes.append(op("m5", "merge", ["r", "t"], on="g", suffixes=["", "_t"], how="right"))
    want["m5"] = (R.merge(L, on="g", suffixes=("", "_t"), how="right"), "rows")
    return check(data, nodes, want)


def indexed(key, src, col):
    return op(key, "set_index", src, keys=[col])


@case
def merge_on_index(data, L, R, U):
    nodes = [CSV, RC, UC, indexed("ti", "t", "k"), indexed("ui", "u", "id"),
             indexed("ri", "r", "key")]
    Li, Ui, Ri = L.set_index("k"), U.set_index("id"), R.set_index("key")
    want = {}
    for how in ("inner", "left", "right", "outer"):
        nodes.append(op("mi_" + how, "merge", ["ti", "ui"], left_index=True, right_index=True,
                        how=how))
        want["mi_" + how] = (Li.merge(Ui, left_index=True, right_index=True, how=how), "index")
        nodes.append(op("mr_" + how, "merge", ["ui", "ri"], left_index=True, right_index=True,
                        how=how, suffixes=["_u", "_r"]))
        want["mr_" + how] = (Ui.merge(Ri, left_index=True, right_index=True, how=how,
                                      suffixes=("_u", "_r")), "index")
    return check(data, nodes, want)


@case
def join(data, L, R, U):
    nodes = [CSV, CSV1, RC, UC, indexed("ti", "t1", "k"), indexed("ui", "u", "id"),
             indexed("ri", "r", "key"), {"key": "z", "op": "dataframe.getitem",
                                         "inputs": ["ui"], "columns": "z"}]
    Li, Ui, Ri = L.set_index("k"), U.set_index("id"), R.set_index("key")
    want = {}
    for how in ("left", "inner", "right", "outer"):
        nodes.append(op("j_" + how, "join", ["ti", "ui"], how=how, lsuffix="_l", rsuffix="_r"))
        want["j_" + how] = (Li.join(Ui, how=how, lsuffix="_l", rsuffix="_r"), "index")
    nodes.append(op("jd", "join", ["ti", "ri"], rsuffix="_r"))
    want["jd"] = (Li.join(Ri, rsuffix="_r"), "index")
    nodes.append(op("js", "join", ["ri", "z"], how="outer"))
    want["js"] = (Ri.join(Ui.z, how="outer"), "index")
    return check(data, nodes, want)


@case
def merge_join_rejects(data, L, R, U):
    base = [CSV, RC, UC, indexed("ti", "t", "k"), indexed("ui", "u", "id")]
    for extra, words in (
            ({"left_on": "k"}, ["right_on"]),
            ({"left_on": "k", "right_on": ["key", "i"]}, ["len(right_on)"]),
            ({"left_on": "nope", "right_on": "key"}, ["no column 'nope'"]),
            ({"on": "k", "left_on": "k", "right_on": "key"}, ["not a combination"]),
            ({"left_index": True, "right_on": ["key", "i"]},
             ['len(right_on) must equal the number of levels in the index of "left"',
              "(1, not 2)"]),
            ({"left_index": True, "right_on": "nope"}, ["no column 'nope'"]),
            ({"left_index": 1, "right_index": True}, ["boolean"]),
            ({"on": "g", "suffixes": [None, None]}, ["columns overlap", "'i'"]),
            ({"on": "g", "suffixes": ["_a"]}, ["two strings"]),
            ({"on": "g", "how": "cross"}, ["how"]),
            ({"on": "g", "sort": True}, ["sort"]),
            ({"left_on": "s", "right_on": "key"}, ["object and int64"])):
        nodes = base + [op("x", "merge", ["t", "r"], **extra)]
        why = rejected(data, nodes, "x", words)
        if why:
            return "%r: %s" % (extra, why)
    nodes = base + [op("x", "merge", ["t", "u"], left_on="g", right_on="z")]
    why = rejected(data, nodes, "x", ["object and int64"])
    if why:
        return why
    nodes = base + [op("x", "merge", ["ti", "t"], left_index=True, right_on="s")]
    why = rejected(data, nodes, "x", ["int64 and object", "'s'"])
    if why:
        return "left_index with right_on: " + why
    for extra, words in (({}, ["columns overlap", "'f'"]), ({"how": "x"}, ["how"]),
                         ({"on": "k"}, ["on", "no column 'k'"]),
                         ({"on": ["i", "b"], "rsuffix": "_r"},
                          ["len(on) must equal the number of levels", "(1, not 2)"])):
        nodes = base + [op("x", "join", ["ti", "ui"], **extra)]
        why = rejected(data, nodes, "x", words)
        if why:
            return "join %r: %s" % (extra, why)
    return ""


# ---------------------------------------------------------------- concat along the columns

def col(key, src, name):
    return {"key": key, "op": "dataframe.getitem", "inputs": [src], "columns": name}


@case
def concat_columns(data, L, R, U):
    nodes = [CSV, CSV1, RC, UC, col("f", "t", "f"), col("gs", "t", ["g", "s"]),
             {"key": "fx", "op": "multiply", "inputs": ["f", 2]},
             {"key": "fk", "op": "greater", "inputs": ["f", 0]},
             {"key": "flt", "op": "dataframe.filter", "inputs": ["t", "fk"]},
             col("fi", "flt", "i"),
             indexed("ui", "u", "id"), indexed("ri", "t1", "k"),
             op("rd", "drop_duplicates", "ri", subset=None),
             col("zz", "ui", "z"),
             # lined up: chunk by chunk
             op("c1", "concat", ["gs", "f", "fx", "t"], axis=1),
             # different rows: aligned on the index (outer, inner)
             op("c2", "concat", ["t1", "fi"], axis=1),
             op("c3", "concat", ["fi", "gs"], axis=1, join="inner"),
             op("c4", "concat", ["ui", "zz", "u"], axis="columns"),
             op("c5", "concat", ["r", "u"], axis=1),
             op("c6", "concat", ["u", "r"], axis=1, join="inner")]
    fx = L.f * 2
    gs = L[["g", "s"]]
    fi = L[L.f > 0].i
    Ui = U.set_index("id")
    want = {
        "c1": (pd.concat([gs, L.f, fx, L], axis=1), "exact"),
        "c2": (pd.concat([L, fi], axis=1), "exact"),
        "c3": (pd.concat([fi, gs], axis=1, join="inner"), "exact"),
        "c4": (pd.concat([Ui, Ui.z, U], axis=1), "exact"),
        "c5": (pd.concat([R, U], axis=1), "exact"),
        "c6": (pd.concat([U, R], axis=1, join="inner"), "exact"),
    }
    return check(data, nodes, want)


@case
def concat_columns_rejects(data, L, R, U):
    base = [CSV, RC, indexed("ti", "t", "g")]
    for extra, words in (({"axis": 2}, ["axis"]), ({"axis": 1, "join": "right"}, ["join"]),
                         ({"join": "inner"}, ["axis"])):
        why = rejected(data, base + [op("x", "concat", ["t", "r"], **extra)], "x", words)
        if why:
            return "%r: %s" % (extra, why)
    why = rejected(data, base + [op("x", "concat", ["t", "ti"], axis=1)], "x",
                   ["index levels of types"])
    if why:
        return why
    # a repeated index value where rows must be aligned: pandas' error, at run time
    nodes = [CSV, RC, indexed("ti", "t", "k"), op("x", "concat", ["ti", "r"], axis=1)]
    rc, err, out = T.run({"version": 1, "nodes": nodes, "fetch": ["x"]}, data, fails=True)
    shutil.rmtree(out, ignore_errors=True)
    if rc == 0 or "uniquely valued" not in err or '"x"' not in err:
        return "repeated index: exit %d: %s" % (rc, err.strip()[:300])
    return ""


@case
def concat_columns_sort(data, L, R, U):
    """"sort": true sorts the rows by the index (pandas' concat(sort=True),
    even where the indexes are equal); "differing" aligns as pandas'
    arithmetic aligns two Series (Series.align): equal indexes as they are,
    int64 kept, different ones sorted, repeated labels joined (their
    product), an empty one giving the other as it is"""
    nodes = [CSV, CSV1, RC, indexed("ti", "t", "k"), indexed("rk", "r", "key"),
             col("tik", "ti", "i"), col("rkw", "rk", "w"), col("i0", "t", "i"),
             col("i1", "t1", "i"), col("ff", "t", "f"),
             {"key": "fk", "op": "greater", "inputs": ["ff", 0]},
             {"key": "flt", "op": "dataframe.filter", "inputs": ["t", "fk"]},
             col("fi", "flt", "i"),
             op("sv", "sort_values", "t", by="f"), col("svi", "sv", "i"),
             op("h0", "head", "tik", n=0),
             op("s1", "concat", ["tik", "rkw"], axis=1, sort="differing"),
             op("s2", "concat", ["fi", "i1"], axis=1, sort="differing"),
             op("s3", "concat", ["i0", "i1"], axis=1, sort="differing"),
             op("s4", "concat", ["sv", "svi"], axis=1, sort=True),
             op("s5", "concat", ["tik", "rkw"], axis=1, sort="differing", join="inner"),
             op("s6", "concat", ["h0", "rkw"], axis=1, sort="differing"),
             op("s7", "concat", ["svi", "i1"], axis=1, sort="differing"),
             UC, indexed("ui", "u", "id"), col("uz", "ui", "z"),
             op("s8", "concat", ["svi", "uz"], axis=1, sort=True),
             op("gm", "groupby_agg", "t", by=["k"], agg={"m": ["f", "mean"], "n": ["i", "max"]}),
             op("s9", "concat", ["ti", "gm"], axis=1, join="left"),
             op("rv", "sort_index", "i0", ascending=False),
             op("s10", "concat", ["rv", "i1", "uz"], axis=1, join="left"),
             op("s11", "concat", ["i0", "i1"], axis=1, join="left")]
    Ti, Rw = L.set_index("k").i, R.set_index("key").w
    Fi, Svi = L[L.f > 0].i, L.sort_values("f").i

    def aligned(a, b, join="outer"):
        x, y = a.align(b, join=join)
        return pd.concat([x, y], axis=1)

    def left(a, *others):  # join "left": the others reindexed on the first's index
        return pd.concat([a] + [o.reindex(a.index) for o in others], axis=1)
    want = {
        "s1": (aligned(Ti, Rw), "exact"),
        "s2": (aligned(Fi, L.i), "exact"),
        "s3": (aligned(L.i, L.i), "exact"),
        "s4": (pd.concat([L.sort_values("f"), Svi], axis=1, sort=True), "exact"),
        "s5": (aligned(Ti, Rw, "inner"), "exact"),
        "s6": (aligned(Ti.head(0), Rw), "exact"),
        "s7": (aligned(Svi, L.i), "exact"),
        "s8": (pd.concat([Svi, U.set_index("id").z], axis=1, sort=True), "exact"),
        "s9": (left(L.set_index("k"), L.groupby("k").agg(m=("f", "mean"), n=("i", "max"))),
               "exact"),
        "s10": (left(L.i.sort_index(ascending=False), L.i, U.set_index("id").z), "exact"),
        "s11": (left(L.i, L.i), "exact"),
    }
    why = check(data, nodes, want)
    if why:
        return why
    for extra, words in (({"sort": True}, ["axis"]), ({"axis": 1, "sort": "x"}, ["sort"]),
                         ({"join": "left"}, ["axis"]),
                         ({"axis": 1, "join": "left", "sort": True}, ["sort", "left"])):
        why = rejected(data, [CSV, RC, op("x", "concat", ["t", "r"], **extra)], "x", words)
        if why:
            return "%r: %s" % (extra, why)
    # join "left" of another input repeating a label: pandas' reindex error, at run time
    nodes = [CSV, RC, indexed("ti", "t", "k"), indexed("rk", "r", "key"),
             op("x", "concat", ["ti", "rk"], axis=1, join="left")]
    rc, err, out = T.run({"version": 1, "nodes": nodes, "fetch": ["x"]}, data, fails=True)
    shutil.rmtree(out, ignore_errors=True)
    if rc == 0 or "duplicate labels" not in err or '"x"' not in err:
        return "left join of repeated labels: exit %d: %s" % (rc, err.strip()[:300])
    return ""


# ---------------------------------------------------------------- pivot_table

@case
def pivot_table(data, L, R, U):
    nodes = [CSV, CSV1, RC]
    want = {}
    specs = [
        ("p1", "t", dict(values="f", index="g", columns="k", aggfunc="sum")),
        ("p2", "t1", dict(values="i", index=["g"], columns="k", aggfunc="mean")),
        ("p3", "t", dict(values="i", index=["g", "b"], columns="s", aggfunc="count")),
        ("p4", "t", dict(values="f", index="s", columns="g", aggfunc="max", fill_value=0)),
        ("p5", "t1", dict(values="i", index="k", columns="g", aggfunc="min")),
        ("p6", "t", dict(values=["i", "f"], index=["g", "k"], aggfunc="sum")),
        ("p7", "t", dict(values=["f", "i"], index="s")),
        ("p8", "t", dict(index="g", aggfunc="count")),
        ("p9", "r", dict(values="w", index="g", columns="key", aggfunc="mean", fill_value=-1)),
        ("p10", "r", dict(values="i", index="g", columns="key", aggfunc="sum", fill_value=0)),
        ("p11", "t", dict(values="i", index="g", aggfunc="mean")),
        ("p12", "t", dict(values=["f", "i"], index=["g", "k", "b"], aggfunc="mean")),
        ("p13", "t", dict(values="i", index=["g", "b"], columns="k", aggfunc="count")),
    ]
    frames = {"t": L, "t1": L, "r": R}
    for key, src, kw in specs:
        nodes.append(op(key, "pivot_table", src, **kw))
        want[key] = (pd.pivot_table(frames[src], **kw), "exact")
    return check(data, nodes, want)


@case
def pivot_table_rejects(data, L, R, U):
    for extra, words in (({"values": "f"}, ["index"]),
                         ({"values": "f", "index": "g", "aggfunc": "median"}, ["aggfunc"]),
                         ({"values": "s", "index": "g", "aggfunc": "sum"}, ["object"]),
                         ({"values": ["f", "i"], "index": "g", "columns": "k"}, ["MultiIndex"]),
                         ({"values": "f", "index": "g", "columns": "f"}, ["float64"]),
                         ({"values": "f", "index": "g", "margins": True}, ["margins"]),
                         ({"values": "f", "index": "nope"}, ["no column 'nope'"]),
                         ({"values": "f", "index": "g", "fill_value": "x"}, ["fill_value"])):
        why = rejected(data, [CSV, op("x", "pivot_table", "t", **extra)], "x", words)
        if why:
            return "%r: %s" % (extra, why)
    # with "columns" its column names come only when it runs: no op may
    # follow it (they saw a frame of no columns: sum gave an empty Series)
    pv = op("p", "pivot_table", "t", values="f", index="g", columns="k", aggfunc="sum")
    for after in (op("x", "sum", "p"), op("x", "cumsum", "p"), op("x", "reset_index", "p"),
                  op("x", "to_tensor", "p"), {"key": "x", "op": "multiply", "inputs": ["p", 2]}):
        why = rejected(data, [CSV, pv, after], "x", ["pivot_table with \"columns\"",
                                                     "fetch it instead"])
        if why:
            return "%s after pivot_table: %s" % (after["op"], why)
    return ""


# ---------------------------------------------------------------- groupby additions

@case
def groupby_more(data, L, R, U):
    nodes = [CSV, CSV1, RC]
    want = {}
    for key, src, opn, kw, ref in (
            ("sz1", "t", "groupby_size", dict(by="g"), L.groupby("g").size()),
            ("sz2", "t1", "groupby_size", dict(by=["s", "b"]), L.groupby(["s", "b"]).size()),
            ("q1", "t", "groupby_quantile", dict(by="g", q=0.3),
             L.groupby("g")[["k", "i", "f"]].quantile(0.3)),
            ("q2", "t1", "groupby_quantile", dict(by=["s", "k"], columns=["f"]),
             L.groupby(["s", "k"])[["f"]].quantile()),
            ("q3", "r", "groupby_quantile", dict(by="g", q=1), R.groupby("g")[["key", "i", "w"]]
             .quantile(1.0)),
            ("h1", "t", "groupby_head", dict(by="g", n=3), L.groupby("g").head(3)),
            ("h2", "t1", "groupby_head", dict(by=["s"]), L.groupby(["s"]).head()),
            ("t1x", "t", "groupby_tail", dict(by=["k", "b"], n=2), L.groupby(["k", "b"]).tail(2)),
            ("t2", "t", "groupby_tail", dict(by="s", n=0), L.groupby("s").tail(0))):
        nodes.append(op(key, opn, src, **kw))
        want[key] = (ref, "exact")
    for f in ("sum", "mean", "count", "min", "max", "std", "var"):
        nodes.append(op("tf_" + f, "groupby_transform", "t", by="g", func=f))
        cols = ["k", "i", "f", "b", "s"] if f == "count" else ["k", "i", "f"]
        want["tf_" + f] = (L.groupby("g")[cols].transform(f), "exact")
        nodes.append(op("tn_" + f, "groupby_transform", "t1", by=["s"], func=f,
                        columns=["i", "f"]))
        want["tn_" + f] = (L.groupby(["s"])[["i", "f"]].transform(f), "exact")
    nodes.append(op("tc", "groupby_transform", "t", by=["k"], func="count"))
    want["tc"] = (L.groupby(["k"])[["i", "f", "b", "s", "g"]].transform("count"), "exact")
    # by a key with missing values: the rows in no group make an int64
    # column float64 (typed so when validated), and the ops after it read
    # float64 (they read its bits as int64 before: garbage)
    for f in ("sum", "count", "max"):
        nodes += [op("tx_" + f, "groupby_transform", "t1", by=["s"], func=f, columns=["i"]),
                  op("tr_" + f, "round", "tx_" + f, decimals=0),
                  op("tl_" + f, "clip", "tx_" + f, upper=40),
                  op("tu_" + f, "cumsum", "tx_" + f),
                  op("tp_" + f, "replace", "tx_" + f, to_replace=3, value=-1)]
        tx = L.groupby(["s"])[["i"]].transform(f)
        want["tr_" + f] = (tx.round(0), "exact")
        want["tl_" + f] = (tx.clip(upper=40), "exact")
        want["tu_" + f] = (tx.cumsum(), "exact")
        want["tp_" + f] = (tx.replace(3, -1), "exact")
    return check(data, nodes, want)


@case
def groupby_more_rejects(data, L, R, U):
    for opn, extra, words in (
            ("groupby_size", {}, ["by"]),
            ("groupby_size", {"by": "nope"}, ["no column 'nope'"]),
            ("groupby_quantile", {"by": "g", "q": 1.5}, ["q"]),
            ("groupby_quantile", {"by": "g", "columns": ["s"]}, ["object"]),
            ("groupby_transform", {"by": "g"}, ["func"]),
            ("groupby_transform", {"by": "g", "func": "sem"}, ["func"]),
            ("groupby_transform", {"by": "g", "func": "median", "columns": ["s"]},
             ["column 's' is object", "median takes"]),
            ("groupby_transform", {"by": "g", "func": "prod", "columns": ["s"]},
             ["prod takes int64, float64 and bool"]),
            ("groupby_transform", {"by": "g", "func": "first", "columns": ["g"]}, ["key"]),
            ("groupby_transform", {"by": "g", "func": "size", "columns": ["nope"]},
             ["no column 'nope'"]),
            ("groupby_transform", {"by": "g", "func": "sum", "periods": 2},
             ["\"periods\" is not a parameter of sum"]),
            ("groupby_transform", {"by": "g", "func": "median", "limit": 1},
             ["\"limit\" is not a parameter of median"]),
            ("groupby_transform", {"by": "g", "func": "size", "ascending": False},
             ["\"ascending\" is not a parameter of size"]),
            ("groupby_transform", {"by": "g", "func": "sum", "columns": ["g"]}, ["key"]),
            ("groupby_head", {"by": "g", "n": -1}, ["n"]),
            ("groupby_tail", {"by": "g", "m": 1}, ["m"])):
        why = rejected(data, [CSV, op("x", opn, "t", **extra)], "x", words)
        if why:
            return "%s %r: %s" % (opn, extra, why)
    return ""


# ------------------------------------- groupby_agg's funcs through transform

LOOKUPS = ("median", "prod", "first", "last", "nunique")


def lookup_cols(L, keys, f):
    """pandas' columns for transform(f): numbers for median and prod (its
    numeric_only default, which drops datetimes and strings), else every
    column that is no key"""
    return [c for c in L.columns if c not in keys and
            (f not in ("median", "prod") or L[c].dtype != object)]


@case
def groupby_transform_lookup(data, L, R, U):
    """median, prod, first, last, nunique and size through
    groupby_transform: each row its group's groupby_agg value, against
    pandas' g.transform(f), by a key never missing, by one with missing
    values (rows in no group: NaN, an int64 result float64) and by two
    keys, over uneven and one-row chunks, with default and chosen columns;
    size a Series (named as g[name]'s); and the result meets the frame's
    own Series (a row minus its group's median, the rows above it)."""
    nodes, want = [CSV, CSV1], {}
    for by, src in (("g", "t"), (["s"], "t1"), (["k", "b"], "t"), ("i", "t1")):
        keys = [by] if isinstance(by, str) else by
        G = L.groupby(by)
        for f in LOOKUPS:
            k = "x%d_%s" % (len(nodes), f)
            nodes.append(op(k, "groupby_transform", src, by=by, func=f))
            want[k] = (G[lookup_cols(L, keys, f)].transform(f), "exact")
        k = "x%d_size" % len(nodes)
        nodes.append(op(k, "groupby_transform", src, by=by, func="size"))
        want[k] = (G.transform("size"), "exact")
    for f in LOOKUPS:
        nodes.append(op("sel_" + f, "groupby_transform", "t1", by="g", func=f,
                        columns=["f", "i"]))
        want["sel_" + f] = (L.groupby("g")[["f", "i"]].transform(f), "exact")
    nodes.append(op("szv", "groupby_transform", "t", by="s", func="size", columns="f"))
    want["szv"] = (L.groupby("s")["f"].transform("size"), "exact")
    nodes.append(op("szl", "groupby_transform", "t", by="s", func="size", columns=["f"]))
    want["szl"] = (L.groupby("s")[["f"]].transform("size"), "exact")
    for f in ("first", "last", "nunique"):
        nodes.append(op("str_" + f, "groupby_transform", "t1", by="k", func=f,
                        columns=["s", "b"]))
        want["str_" + f] = (L.groupby("k")[["s", "b"]].transform(f), "exact")
    for src, by in (("t", "g"), ("t1", "s")):
        p = src + "_"
        nodes += [op(p + "fi", "getitem", src, columns="f"),
                  op(p + "md", "groupby_transform", src, by=by, func="median", columns=["f"]),
                  op(p + "m", "getitem", p + "md", columns="f"),
                  {"key": p + "dm", "op": "subtract", "inputs": [p + "fi", p + "m"]},
                  {"key": p + "above", "op": "greater", "inputs": [p + "fi", p + "m"]},
                  {"key": p + "rows", "op": "dataframe.filter", "inputs": [src, p + "above"]},
                  op(p + "sz", "groupby_transform", src, by=by, func="size"),
                  op(p + "with", "assign", [src, p + "sz"], names=["n"])]
        m = L.groupby(by).f.transform("median")
        want[p + "dm"] = (L.f - m, "exact")
        want[p + "rows"] = (L[L.f > m], "exact")
        want[p + "with"] = (L.assign(n=L.groupby(by).f.transform("size")), "exact")
    return check(data, nodes, want)


@case
def groupby_transform_lookup_dates(data, L, R, U):
    """datetimes and timedeltas with NaT: median (chosen: pandas' default
    drops them) skips NaT as Series.median (pandas 1.5's groupby median
    counts NaT as the smallest value: docs/graph-format.md), first and last
    keep their dtype, nunique counts them"""
    rng = np.random.default_rng(9)
    n = 150
    when = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 10 ** 6, n), unit="s")
    D = pd.DataFrame({"k": rng.integers(0, 5, n), "when": when, "v": rng.integers(0, 9, n)})
    D.loc[rng.random(n) < 0.2, "when"] = pd.NaT
    D.to_csv(os.path.join(data, "d2.csv"), index=False)
    D = pd.read_csv(os.path.join(data, "d2.csv"), parse_dates=["when"])
    src = {"key": "d", "op": "dataframe.read_csv", "path": "d2.csv", "parse_dates": ["when"],
           "chunk_bytes": 150}
    nodes = [src, op("w", "getitem", "d", columns="when"),
             {"key": "gap", "op": "subtract", "inputs": ["w", {"value": "2024-01-01"}]},
             op("dd", "assign", ["d", "gap"], names=["gap"])]
    want = {}
    DD = D.assign(gap=D.when - pd.Timestamp("2024-01-01"))
    for f in ("median", "first", "last", "nunique"):
        nodes.append(op("d_" + f, "groupby_transform", "dd", by="k", func=f,
                        columns=["when", "gap"]))
        ref = DD.groupby("k")[["when", "gap"]].transform(f)
        if f == "median":
            ref = pd.concat([DD.groupby("k")[c].transform(lambda s: s.median())
                             for c in ("when", "gap")], axis=1)
        want["d_" + f] = (ref, "exact")
    nodes.append(op("d_def", "groupby_transform", "dd", by="k", func="median"))
    want["d_def"] = (DD.groupby("k")[["v"]].transform("median"), "exact")
    return check(data, nodes, want)


# ------------------------------------------- groupby_transform's kernels

KERNELS = (("cumsum", {}), ("cumprod", {}), ("cummin", {}), ("cummax", {}),
           ("cumcount", {}), ("cumcount", {"ascending": False}), ("ngroup", {}),
           ("ngroup", {"ascending": False}), ("shift", {}), ("shift", {"periods": -2}),
           ("shift", {"periods": 3}), ("shift", {"periods": 0}), ("diff", {}),
           ("diff", {"periods": -3}), ("ffill", {}), ("ffill", {"limit": 1}), ("bfill", {}),
           ("bfill", {"limit": 2}), ("rank", {}),
           ("rank", {"method": "dense", "ascending": False, "pct": True}),
           ("rank", {"method": "first"}), ("rank", {"method": "min", "pct": True}),
           ("rank", {"method": "max", "ascending": False}), ("pct_change", {}),
           ("pct_change", {"periods": -2, "fill_method": "bfill", "limit": 1}),
           ("pct_change", {"fill_method": None}), ("pct_change", {"periods": 3}),
           ("pct_change", {"periods": 2, "limit": 1}), ("pct_change", {"fill_method": "bfill"}))


def kernel_ref(L, by, f, kw, cols=None):
    """pandas 1.5's df.groupby(by).<f>(**kw), with the differences
    docs/graph-format.md names: every column on its own (pandas types an
    int64 cumprod by its block of int64 columns), a bool cumprod, cummin or
    cummax with rows in no group bools with missing values (pandas: float64),
    diff of bools float64 (pandas: object)."""
    G = L.groupby(by)
    if f in ("cumcount", "ngroup"):
        return getattr(G, f)(**kw)
    if cols is None:
        keys = [by] if isinstance(by, str) else by
        num = ("cumsum", "cumprod", "cummin", "cummax", "diff")
        cols = [c for c in L.columns if c not in keys and
                (f not in num or L[c].dtype != object) and
                (f != "pct_change" or L[c].dtype in (np.int64, np.float64))]
    parts = []
    for c in cols:
        r = getattr(G[[c]], f)(**kw)
        if L[c].dtype == bool and f in ("cumprod", "cummin", "cummax") and r[c].dtype != bool:
            r[c] = r[c].map({1.0: True, 0.0: False})
        if L[c].dtype == bool and f == "diff":
            r[c] = r[c].astype(float)
        parts.append(r)
    return pd.concat(parts, axis=1)


@case
def groupby_kernels(data, L, R, U):
    """cumsum ... rank through groupby_transform's func, against pandas'
    groupby methods: by a key never missing, by one with missing values (rows
    in no group) and by two keys, on uneven and one-row chunks."""
    nodes, want = [CSV, CSV1], {}
    for by, src in (("g", "t"), (["s"], "t1"), (["k", "b"], "t"), ("i", "t1")):
        for f, kw in KERNELS:
            k = "x%d_%s" % (len(nodes), f)
            nodes.append(op(k, "groupby_transform", src, by=by, func=f, **kw))
            want[k] = (kernel_ref(L, by, f, kw), "exact")
    # a selection, and ops after a kernel read its chunk types
    nodes += [op("sel", "groupby_transform", "t", by="g", func="cummax", columns=["f", "i"]),
              op("sh", "groupby_transform", "t1", by="s", func="shift", columns=["i"]),
              {"key": "sh2", "op": "add", "inputs": ["sh", 1]},
              op("cc", "groupby_transform", "t1", by="s", func="cumcount"),
              {"key": "cc2", "op": "multiply", "inputs": ["cc", 2]}]
    want["sel"] = (L.groupby("g")[["f", "i"]].cummax(), "exact")
    want["sh2"] = (L.groupby("s")[["i"]].shift() + 1, "exact")
    want["cc2"] = (L.groupby("s").cumcount() * 2, "exact")
    return check(data, nodes, want)


@case
def transform_lines_up(data, L, R, U):
    """A transform keeps its frame's rows chunk for chunk (the statistics,
    ngroup, cumcount and the chunked kernels), so it meets the frame's own
    Series in element-wise ops, filters and assign: the demeaned column,
    the rows above their group's mean, a running share of the group's sum;
    by a key with missing values too (NaN for rows in no group). Over
    uneven and one-row chunks. rank and pct_change filling against their
    periods read every row in one job: new rows, refused beside the frame's
    Series, as before."""
    nodes, want = [CSV, CSV1], {}
    for src, by in (("t", "g"), ("t1", "s")):
        G = L.groupby(by)
        p = src + "_"
        nodes += [op(p + "fi", "getitem", src, columns="f"),
                  op(p + "ii", "getitem", src, columns="i"),
                  op(p + "mean", "groupby_transform", src, by=by, func="mean", columns=["f"]),
                  op(p + "m", "getitem", p + "mean", columns="f"),
                  {"key": p + "dm", "op": "subtract", "inputs": [p + "fi", p + "m"]},
                  {"key": p + "above", "op": "greater", "inputs": [p + "fi", p + "m"]},
                  {"key": p + "rows", "op": "dataframe.filter", "inputs": [src, p + "above"]},
                  op(p + "cs", "groupby_transform", src, by=by, func="cumsum", columns=["i"]),
                  op(p + "sm", "groupby_transform", src, by=by, func="sum", columns=["i"]),
                  op(p + "csi", "getitem", p + "cs", columns="i"),
                  op(p + "smi", "getitem", p + "sm", columns="i"),
                  {"key": p + "share", "op": "divide", "inputs": [p + "csi", p + "smi"]},
                  op(p + "cc", "groupby_transform", src, by=by, func="cumcount"),
                  op(p + "ng", "groupby_transform", src, by=by, func="ngroup"),
                  op(p + "sh", "groupby_transform", src, by=by, func="shift", columns=["i"]),
                  op(p + "shi", "getitem", p + "sh", columns="i"),
                  {"key": p + "delta", "op": "subtract", "inputs": [p + "ii", p + "shi"]},
                  {"key": p + "with", "op": "dataframe.assign",
                   "inputs": [src, p + "cc", p + "ng", p + "delta"],
                   "names": ["n_in_group", "group", "delta"]}]
        m = G.f.transform("mean")
        want[p + "dm"] = (L.f - m, "exact")
        want[p + "rows"] = (L[L.f > m], "exact")
        want[p + "share"] = (G.i.cumsum() / G.i.transform("sum"), "exact")
        want[p + "with"] = (L.assign(n_in_group=G.cumcount(), group=G.ngroup(),
                                     delta=L.i - G.i.shift()), "exact")
    if not L.s.isna().any():
        return "the data no longer has missing keys"
    return check(data, nodes, want)


@case
def transform_whole_lined_up(data, L, R, U):
    """a groupby's rank runs as one job over every row, its result cut back
    into the input's chunks: it lines up with the frame's columns (it was
    once refused, "do not come from the same DataFrame")"""
    td_nodes = [CSV, op("fi", "getitem", "t", columns="f"),
                op("rk", "groupby_transform", "t", by="g", func="rank", columns=["f"]),
                op("rkf", "getitem", "rk", columns="f"),
                {"key": "r", "op": "subtract", "inputs": ["fi", "rkf"]}]
    return check(data, td_nodes, {"r": (L.f - L.groupby("g").f.rank(), "exact")})


@case
def groupby_kernels_dates(data, L, R, U):
    """datetime columns with NaT: cummin and cummax skip NaT (pandas 1.5
    takes NaT for the smallest value there; computed here as pandas 2
    does), shift, ffill, bfill and rank keep pandas' rules, diff gives a
    timedelta64[ns], exact (pandas' x - x.shift())."""
    rng = np.random.default_rng(8)
    n = 120
    when = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 10 ** 6, n), unit="s")
    D = pd.DataFrame({"k": rng.integers(0, 4, n), "when": when, "v": rng.integers(0, 9, n)})
    D.loc[rng.random(n) < 0.15, "when"] = pd.NaT
    D.to_csv(os.path.join(data, "d.csv"), index=False)
    D = pd.read_csv(os.path.join(data, "d.csv"), parse_dates=["when"])
    src = {"key": "d", "op": "dataframe.read_csv", "path": "d.csv", "parse_dates": ["when"],
           "chunk_bytes": 200}
    nodes, want = [src], {}
    ns = D["when"].astype("int64").astype(float).where(D["when"].notna())
    G = D.assign(when=ns).groupby("k")
    for f in ("cummin", "cummax"):
        nodes.append(op("d_" + f, "groupby_transform", "d", by="k", func=f, columns=["when"]))
        r = getattr(G[["when"]], f)()
        want["d_" + f] = (r.assign(when=pd.to_datetime(r["when"])), "exact")
    nodes.append(op("d_diff", "groupby_transform", "d", by="k", func="diff", periods=2))
    want["d_diff"] = (D.groupby("k")[["when", "v"]].diff(2), "exact")
    # a timedelta's diff is one too, to the nanosecond (past 2^53)
    nodes += [op("sub", "getitem", "d", columns="when"),
              {"key": "far", "op": "subtract", "inputs": ["sub", {"value": "1800-01-01"}]},
              {"key": "df2", "op": "dataframe.assign", "inputs": ["d", "far"], "names": ["far"]},
              op("d_tdiff", "groupby_transform", "df2", by="k", func="diff", columns=["far"],
                 periods=-1)]
    want["d_tdiff"] = (D.assign(far=D.when - pd.Timestamp("1800-01-01")).groupby("k")[["far"]]
                       .diff(-1), "exact")
    for f, kw in (("shift", {}), ("shift", {"periods": -1}), ("ffill", {}), ("bfill", {}),
                  ("rank", {}), ("cummax", {})):
        k = "d%d_%s" % (len(nodes), f)
        nodes.append(op(k, "groupby_transform", "d", by="k", func=f, columns=["v"], **kw))
        want[k] = (getattr(D.groupby("k")[["v"]], f)(**kw), "exact")
        k = "e%d_%s" % (len(nodes), f)
        if f != "cummax":
            nodes.append(op(k, "groupby_transform", "d", by="k", func=f, columns=["when"], **kw))
            want[k] = (getattr(D.groupby("k")[["when"]], f)(**kw), "exact")
    return check(data, nodes, want)


@case
def groupby_kernels_exact(data, L, R, U):
    """float64 cumsum (Kahan, as pandas' group_cumsum), cumprod, cummin and
    diff equal pandas' to the bit over 5,000 values of mixed magnitude."""
    rng = np.random.default_rng(5)
    n = 5000
    B = pd.DataFrame({"k": rng.integers(0, 7, n),
                      "x": rng.standard_normal(n) * 10.0 ** rng.integers(-3, 6, n)})
    B.loc[rng.random(n) < 0.05, "x"] = np.nan
    B.to_csv(os.path.join(data, "bx.csv"), index=False, float_format="%.17g")
    B = pd.read_csv(os.path.join(data, "bx.csv"), float_precision="round_trip")
    nodes = [{"key": "bx", "op": "dataframe.read_csv", "path": "bx.csv", "chunk_bytes": 5000}]
    fs = ("cumsum", "cumprod", "cummin", "cummax", "diff")
    for f in fs:
        nodes.append(op("b_" + f, "groupby_transform", "bx", by="k", func=f))
    got, why = run_doc(data, nodes, ["b_" + f for f in fs])
    if why:
        return why
    for f in fs:
        why = same_bits(got["b_" + f], getattr(B.groupby("k"), f)())
        if why:
            return "%s: %s" % (f, why)
    return ""


def same_bits(got, ref):
    """got (a fetched frame) has ref's dtypes and every value to the bit
    (null for NaN, "inf" and "-inf" for infinities)."""
    if got["dtypes"] != {c: str(t) for c, t in ref.dtypes.items()}:
        return "dtypes %r vs pandas %r" % (got["dtypes"], dict(ref.dtypes))
    for j, c in enumerate(got["columns"]):
        col = (float(r[j]) if r[j] in ("inf", "-inf") else r[j] for r in got["data"])
        for q, (a, b) in enumerate(zip(col, ref[c])):
            if not (a == b or (a is None and b != b)):
                return "%s row %d: %r vs pandas %r" % (c, q, a, b)
    return ""


@case
def groupby_transform_stats_exact(data, L, R, U):
    """transform's statistics fold each chunk into every group's state in
    row order as pandas' cython loops do (Kahan sums, Welford's variance),
    so over 60 chunks they equal pandas' to the bit; int64 sums, minima and
    maxima past 2^53 exactly."""
    rng = np.random.default_rng(9)
    n = 20000
    B = pd.DataFrame({"k": rng.integers(0, 40, n),
                      "x": rng.standard_normal(n) * 10.0 ** rng.integers(-3, 6, n),
                      "i": rng.integers(-10 ** 15, 10 ** 15, n)})
    B.loc[rng.random(n) < 0.1, "x"] = np.nan
    B.to_csv(os.path.join(data, "bt.csv"), index=False, float_format="%.17g")
    B = pd.read_csv(os.path.join(data, "bt.csv"), float_precision="round_trip")
    nodes = [{"key": "bt", "op": "dataframe.read_csv", "path": "bt.csv", "chunk_bytes": 10000}]
    fs = ("sum", "mean", "std", "var", "min", "max", "count")
    for f in fs:
        nodes.append(op("t_" + f, "groupby_transform", "bt", by="k", func=f))
    got, why = run_doc(data, nodes, ["t_" + f for f in fs])
    if why:
        return why
    for f in fs:
        why = same_bits(got["t_" + f], B.groupby("k")[["x", "i"]].transform(f))
        if why:
            return "%s: %s" % (f, why)
    return ""


@case
def groupby_kernels_chunked(data, L, R, U):
    """The kernels, groupby_size and groupby_head run chunk by chunk, each
    group's running state (or the rows a chunk may read: shift, diff,
    ffill) carried from chunk to chunk:
    over 1,000,000 rows (30% of x missing) in 2 MB chunks of CSV
    the peak chunk memory mars-run reports stays below the input's size
    (one job over every row held it all, and more), and the results equal
    pandas' (summed: int64 exactly)."""
    import subprocess
    n = 1000000
    rng = np.random.default_rng(3)
    D = pd.DataFrame({"k": rng.integers(0, 5000, n), "v": rng.integers(0, 1000, n),
                      "x": rng.standard_normal(n)})
    D.loc[rng.random(n) < 0.3, "x"] = np.nan
    D.to_csv(os.path.join(data, "big.csv"), index=False, float_format="%.17g")
    D = pd.read_csv(os.path.join(data, "big.csv"), float_precision="round_trip")
    src = {"key": "d", "op": "dataframe.read_csv", "path": "big.csv", "chunk_bytes": 2 << 20}
    # (cumcount descending carries backwards: every chunk is read before
    # the carry from the end reaches it)
    G = D.groupby("k")
    for f, kw in (("cumsum", {}), ("cumcount", {}), ("shift", {"periods": 2}), ("ffill", {}),
                  ("diff", {"periods": 3}), ("size", {}), ("head", {"n": 2})):
        node = (op("t", "groupby_" + f, "d", by="k", **kw) if f in ("size", "head") else
                op("t", "groupby_transform", "d", by="k", func=f, **kw))
        doc = {"version": 1, "nodes": [src, node, op("s", "sum", "t")], "fetch": ["s"]}
        out = tempfile.mkdtemp(prefix="df3_scan_")
        try:
            p = subprocess.run([T.harness.mars_run_path(), "-", "-o", out, "--data-dir", data,
                                "--stats", "--threads", "2"], input=json.dumps(doc).encode(),
                               capture_output=True, timeout=600)
            if p.returncode != 0:
                return "%s: exit %d: %s" % (f, p.returncode, p.stderr.decode()[:300])
            m = re.search(r"peak chunk memory (\d+) bytes", p.stderr.decode())
            if not m or int(m.group(1)) >= n * 24:
                return "%s: peak chunk memory not below the input's %d bytes: %r" % (
                    f, n * 24, p.stderr.decode()[:300])
            ref = getattr(G, f)(**kw).sum(numeric_only=True)
            got = T.load(out, "s")
            g = got["data"] if isinstance(got, dict) else [got]
            r = list(ref.values) if isinstance(ref, pd.Series) else [ref]
            # int64 sums exact; the float64 column's sum is added in another
            # order than pandas' (its cumsum equals pandas' to the bit:
            # groupby_kernels_exact)
            if len(g) != len(r) or not all(
                    a == b if isinstance(a, int) else abs(a - b) <= 1e-9 * abs(b)
                    for a, b in zip(g, (x.item() if hasattr(x, "item") else x for x in r))):
                return "%s: %r vs pandas %r" % (f, g, r)
        finally:
            shutil.rmtree(out, ignore_errors=True)
    return ""


@case
def groupby_kernels_rejects(data, L, R, U):
    for extra, words in (
            ({"func": "cumsum", "columns": ["s"]}, ["column 's' is object", "cumsum"]),
            ({"func": "diff", "columns": ["g2"]}, ["no column"]),
            ({"func": "cummax", "columns": ["s"]}, ["object", "cummax"]),
            ({"func": "cumsum", "periods": 2}, ["\"periods\" is not a parameter of cumsum"]),
            ({"func": "shift", "periods": 1.5}, ["periods", "integer"]),
            ({"func": "shift", "periods": 2 ** 63 - 1}, ["periods", "2^62"]),
            ({"func": "ffill", "limit": 0}, ["limit", "positive"]),
            ({"func": "bfill", "periods": 1}, ["periods"]),
            ({"func": "rank", "method": "bogus"}, ["method"]),
            ({"func": "rank", "na_option": "middle"}, ["na_option must be one of"]),
            ({"func": "rank", "pct": "yes"}, ["pct"]),
            ({"func": "cumcount", "columns": ["i"]}, ["columns", "one Series"]),
            ({"func": "cumcount", "ascending": 1}, ["ascending"]),
            ({"func": "shift", "columns": ["g"]}, ["key"]),
            ({"func": "pct_change", "columns": ["b"]}, ["bool", "int64 and float64"]),
            ({"func": "pct_change", "fill_method": "nearest"}, ["fill_method", "backfill"]),
            ({"func": "pct_change", "limit": -1}, ["limit", "positive"]),
            ({"func": "shift", "fill_method": "ffill"}, ["fill_method", "not a parameter"]),
            ({"func": "pct_rank"}, ["func", "cumcount", "pct_change"])):
        why = rejected(data, [CSV, op("x", "groupby_transform", "t", by="g", **extra)], "x",
                       words)
        if why:
            return "%r: %s" % (extra, why)
    return ""


# ---------------------------------------------------------------- idxmax, idxmin

@case
def idxmax_idxmin(data, L, R, U):
    """the label of each column's largest or smallest value (first of
    ties): default, string, datetime and float indexes, all-NaN columns,
    skipna false, a Series (one row), against pandas' idxmax/idxmin."""
    rng = np.random.default_rng(21)
    n = 90
    when = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.permutation(n), unit="h")
    D = pd.DataFrame({"name": ["r%03d" % q for q in rng.permutation(n)], "when": when,
                      "i": rng.integers(-5, 5, n), "f": rng.standard_normal(n).round(2),
                      "nan": np.nan, "b": rng.random(n) < 0.3,
                      "x": rng.integers(0, 1000, n) / 8.0})
    D.loc[rng.random(n) < 0.2, "f"] = np.nan
    D.to_csv(os.path.join(data, "ix.csv"), index=False)
    D = pd.read_csv(os.path.join(data, "ix.csv"), parse_dates=["when"])
    src = {"key": "d", "op": "dataframe.read_csv", "path": "ix.csv", "parse_dates": ["when"],
           "chunk_bytes": 300}
    nodes = [src,
             op("num", "getitem", "d", columns=["i", "f", "nan", "b", "x", "when"]),
             op("byname", "set_index", "d", keys=["name"]),
             op("nb", "getitem", "byname", columns=["i", "f", "nan", "b", "when"]),
             op("bywhen", "set_index", "d", keys=["when"]),
             op("nw", "getitem", "bywhen", columns=["i", "f", "b"]),
             op("byx", "set_index", "d", keys=["x"]),
             op("nx", "getitem", "byx", columns=["i", "f"]),
             op("fser", "getitem", "byname", columns="f"),
             op("iser", "getitem", "d", columns="i")]
    want = {}
    frames = {"num": D[["i", "f", "nan", "b", "x", "when"]],
              "nb": D.set_index("name")[["i", "f", "nan", "b", "when"]],
              "nw": D.set_index("when")[["i", "f", "b"]],
              "nx": D.set_index("x")[["i", "f"]],
              "fser": D.set_index("name")["f"], "iser": D["i"]}
    for src_key, P in frames.items():
        for f in ("idxmax", "idxmin"):
            for skipna in (True, False):
                k = "%s_%s_%d" % (src_key, f, skipna)
                nodes.append(op(k, f, src_key, **({} if skipna else {"skipna": False})))
                r = getattr(P, f)(skipna=skipna)
                if not isinstance(r, pd.Series):  # a Series': pandas' scalar, one row here
                    r = pd.Series([r], index=[P.name],
                                  dtype=object if P.index.dtype == object else None)
                want[k] = (r, "exact")
    return check(data, nodes, want)


@case
def idxmax_rejects(data, L, R, U):
    for src, extra, words in (
            ("t", {}, ["column 's' is object", "argmax", "not allowed"]),
            ("t", {"axis": 1}, ["axis"]),
            ("t", {"skipna": "no"}, ["skipna"])):
        why = rejected(data, [CSV, op("x", "idxmax", src, **extra)], "x", words)
        if why:
            return "%r: %s" % (extra, why)
    nodes = [CSV, op("two", "set_index", "t", keys=["k", "g"]),
             op("num", "getitem", "two", columns=["i", "f"]), op("x", "idxmin", "num")]
    why = rejected(data, nodes, "x", ["2 levels", "tuples"])
    if why:
        return "two levels: " + why
    # no rows: pandas' ValueError, when it runs
    nodes = [CSV, op("e", "head", "t", n=0), op("num", "getitem", "e", columns=["i"]),
             op("x", "idxmax", "num")]
    rc, err, out = T.run({"version": 1, "nodes": nodes, "fetch": ["x"]}, data, fails=True)
    shutil.rmtree(out, ignore_errors=True)
    if rc == 0 or "argmax of an empty sequence" not in err:
        return "no rows: exit %d: %s" % (rc, err.strip()[:300])
    return ""


# ---------------------------------------------------------------- read_json

JSON_DOCS = {
    "j1.json": [{"a": 1, "b": 1.5, "c": "x", "d": True, "e": 2.0, "f": "12", "g": None, "h": 1},
                {"a": 2, "b": None, "c": None, "d": False, "e": 3.0, "f": "7", "g": None,
                 "h": 2.5},
                {"a": 3, "b": 2.5, "c": "z\u00e9", "d": None, "e": None, "f": "x", "g": None,
                 "h": 3},
                {"a": -4, "z": "only here", "d": True}],
    "j2.json": {"a": {"0": 1, "1": 2, "5": 3}, "s": {"0": "p", "1": "q", "5": None},
                "f": {"0": 1.0, "1": 2.0, "5": 4.0}, "b": {"0": True, "1": False, "5": True}},
    "j3.json": {"a": {"x": 1, "y": 2}, "s": {"x": "p", "y": None}, "n": {"x": "1.5", "y": "2"}},
    "j4.json": [{"k": i % 3, "v": i * 0.5} for i in range(50)],
}


@case
def read_json(data, L, R, U):
    for name, doc in JSON_DOCS.items():
        with open(os.path.join(data, name), "w") as f:
            json.dump(doc, f)
    nodes, want = [], {}
    for q, (name, orient) in enumerate((("j1.json", "records"), ("j2.json", None),
                                        ("j3.json", "columns"), ("j4.json", "records"))):
        nd = {"key": "r%d" % q, "op": "dataframe.read_json", "path": name}
        kw = {}
        if orient:
            nd["orient"] = orient
            kw["orient"] = orient
        nodes.append(nd)
        want["r%d" % q] = (pd.read_json(os.path.join(data, name), **kw), "exact")
    # JSON lines (lines=True): a record per line, CRLF and a blank line
    with open(os.path.join(data, "j5.jsonl"), "w", newline="") as f:
        for i, rec in enumerate(JSON_DOCS["j1.json"] + JSON_DOCS["j4.json"][:7]):
            f.write(json.dumps(rec) + ("\r\n" if i % 2 else "\n") + ("\n" if i == 3 else ""))
    nodes.append({"key": "r4", "op": "dataframe.read_json", "path": "j5.jsonl", "lines": True})
    want["r4"] = (pd.read_json(os.path.join(data, "j5.jsonl"), lines=True), "exact")
    # a read_json frame as an input
    nodes.append(op("g", "groupby_size", "r3", by="k"))
    want["g"] = (pd.read_json(os.path.join(data, "j4.json"), orient="records")
                 .groupby("k").size(), "exact")
    got, why = run_doc(data, nodes, list(want))
    if why:
        return why
    for k, (ref, order) in want.items():
        if isinstance(ref, pd.Series):
            why = T.expect_frame(got[k], ref)
        else:
            why = same_rows(got[k], ref, order)
        if why:
            return "%s: %s" % (k, why)
    return ""


@case
def read_json_rejects(data, L, R, U):
    for name, text in (("b1.json", "[1, 2]"), ("b2.json", '{"a": [1, 2]}'),
                       ("b3.json", '[{"a": 1}, {"a": "x"}]'), ("b4.json", "[{"),
                       ("b5.json", '[{"a": [1]}]'), ("b6.jsonl", '{"a": 1}\n{"a": \n'),
                       ("b7.jsonl", '{"a": 1}\n[2]\n')):
        with open(os.path.join(data, name), "w") as f:
            f.write(text)
    for nd, words in (({"path": "b1.json", "orient": "records"}, ["no object"]),
                      ({"path": "b2.json"}, ["no object of rows"]),
                      ({"path": "b3.json", "orient": "records"}, ["mixes"]),
                      ({"path": "b4.json", "orient": "records"}, ["line"]),
                      ({"path": "b5.json", "orient": "records"}, ["lists"]),
                      ({"path": "nope.json"}, ["nope.json"]),
                      ({"path": "../x.json"}, [".."]),
                      ({"path": "b1.json", "orient": "split"}, ["orient"]),
                      ({"path": "b6.jsonl", "lines": True}, ["line 2"]),
                      ({"path": "b7.jsonl", "lines": True}, ["record 1 is no object"]),
                      ({"path": "b6.jsonl", "lines": 1}, ["lines", "true or false"]),
                      ({"path": "b6.jsonl", "lines": True, "orient": "columns"}, ["lines"])):
        nd = dict(nd, key="x", op="dataframe.read_json")
        why = rejected(data, [nd], "x", words)
        if why:
            return "%r: %s" % (nd, why)
    return ""


# ---------------------------------------------------------------- to_csv (mars-run --csv)

@case
def to_csv(data, L, R, U):
    """mars-run --csv writes pandas' to_csv text: a head, a groupby size, a
    pivot table, a sum, and floats as Python's repr (fixed up to 1e16:
    1000000000000000.0; shortest digits; inf; NaN an empty field)."""
    import subprocess
    x = [1e15, 1e16, 2.5e15, 123456789012345.6, 1e-5, 1e-4, 0.1, 1 / 3, 5e-324, 1e22, -0.0,
         float("nan"), float("inf"), 9007199254740993.0, 2.0 ** 60, 100.0]
    F = pd.DataFrame({"x": x, "k": range(len(x))})
    F.to_csv(os.path.join(data, "fl.csv"), index=False, float_format="%.17g")
    F = pd.read_csv(os.path.join(data, "fl.csv"), float_precision="round_trip")
    nodes = [CSV, RC, op("h", "head", "t", n=40), op("gs", "groupby_size", "t", by=["g", "b"]),
             op("pv", "pivot_table", "r", values="i", index="g", columns="key", aggfunc="count"),
             op("su", "sum", "r"),
             {"key": "fl", "op": "dataframe.read_csv", "path": "fl.csv", "chunk_bytes": 64}]
    doc = {"version": 1, "nodes": nodes, "fetch": ["h", "gs", "pv", "su", "fl"]}
    out = tempfile.mkdtemp(prefix="df3_csv_")
    try:
        p = subprocess.run([T.harness.mars_run_path(), "-", "-o", out, "--data-dir", data,
                            "--csv"], input=json.dumps(doc).encode(), capture_output=True,
                           timeout=300)
        if p.returncode != 0:
            return "exit %d: %s" % (p.returncode, p.stderr.decode()[:300])
        want = {"h": L.head(40), "gs": L.groupby(["g", "b"]).size(),
                "pv": pd.pivot_table(R, values="i", index="g", columns="key", aggfunc="count"),
                "su": R.sum(numeric_only=True), "fl": F}
        for k, ref in want.items():
            with open(os.path.join(out, k + ".csv")) as f:
                text = f.read()
            if text != ref.to_csv():
                return "%s: %r vs pandas %r" % (k, text[:300], ref.to_csv()[:300])
        if not os.path.exists(os.path.join(out, "h.json")):
            return "the JSON is not written with --csv"
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return ""


def main():
    names = sys.argv[1:]
    data = tempfile.mkdtemp(prefix="df3_")
    frames = make_data(data)
    passed = failed = 0
    known = {c.__name__ for c in CASES}
    for n in names:
        if n not in known:
            print("unknown case %s (cases: %s)" % (n, " ".join(sorted(known))))
            failed += 1
    p, f = T.replay_cases(CASES, data, (data,) + tuple(frames), names)
    passed, failed = passed + p, failed + f
    shutil.rmtree(data, ignore_errors=True)
    print("RESULT passed=%d failed=%d" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
