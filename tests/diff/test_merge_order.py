#!/usr/bin/python3
"""dataframe.merge's row order against pandas 1.5, exactly (no sorting
before the comparison): `how="left"` keeps left's rows in order, each with
its matches in right's order; `how="right"` keeps right's rows in order,
each with its matches in left's order; `how="inner"` groups the rows by
key, the keys in the order they first appear in left; `how="outer"` does
the same with left's unmatched keys in place, then right's unmatched keys
in the order they first appear in right (engine/df/dfexec.c,
DFJ_MERGE_ORDER). Random frames of 0 to 60 rows in 1 to 12 row chunks,
keys with repeats and NaN (pandas matches NaN with NaN), `on` and
`left_on`/`right_on`, two keys, string keys; plus the merge's result used
by later ops of the same document (head, query, sort_values, reset_index,
a reduction), which keep the merge's index (0..n-1 over its rows) as
pandas does. A merge with a small side (read whole by each chunk of the
other, DFJ_MERGE_BCAST) is checked the same way, dtypes included.

Run: /usr/bin/python3 tests/diff/test_merge_order.py
"""
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

RNG = np.random.default_rng(20261127)
HOWS = ("inner", "left", "right", "outer")


def frame_nodes(key, cols, chunk):
    """nodes making DataFrame `key` of float64 columns (NaN where given):
    an array, a mask of NaN, where(mask, null, array), from_tensor"""
    arr = np.column_stack(list(cols.values())).astype(float)
    nan = np.isnan(arr)
    return [{"key": key + "_a", "op": "array", "data": np.where(nan, 0.0, arr).tolist(),
             "chunk_size": [chunk, arr.shape[1]]},
            {"key": key + "_m", "op": "array", "data": nan.tolist(),
             "chunk_size": [chunk, arr.shape[1]]},
            {"key": key + "_w", "op": "where", "inputs": [key + "_m", {"value": None}, key + "_a"]},
            {"key": key, "op": "dataframe.from_tensor", "inputs": [key + "_w"],
             "columns": list(cols)}]


def keys(n, nkeys, nan_frac):
    k = RNG.integers(0, nkeys, n).astype(float)
    k[RNG.random(n) < nan_frac] = np.nan
    return k


def load_frame(r, key):
    path = os.path.join(r.outdir, key + ".json")
    with open(path) as f:
        d = json.load(f)
    return d


def same(got, want):
    """None when the fetched JSON frame equals pandas', rows in order."""
    cols = got.get("columns")
    data = got.get("data")
    if cols is None or data is None:
        return "not a DataFrame: %r" % str(got)[:200]
    if list(cols) != [str(c) for c in want.columns]:
        return "columns %s, pandas %s" % (cols, list(want.columns))
    g = np.array([[np.nan if v is None else v for v in row] for row in data],
                 dtype=float).reshape(len(data), len(cols))
    w = want.to_numpy(dtype=float)
    if g.shape != w.shape:
        return "shape %s, pandas %s" % (g.shape, w.shape)
    if not np.array_equal(g, w, equal_nan=True):
        bad = np.argwhere(~((g == w) | (np.isnan(g) & np.isnan(w))))[0]
        return "row %d differs: %s, pandas %s" % (bad[0], g[bad[0]].tolist(), w[bad[0]].tolist())
    return None


def main():
    suite = harness.Suite("test_merge_order")
    harness.require_mars_run(suite)
    cases = []
    for t in range(40):
        n1, n2 = int(RNG.integers(1, 60)), int(RNG.integers(1, 40))
        c1, c2 = int(RNG.integers(1, 13)), int(RNG.integers(1, 9))
        nk = int(RNG.integers(1, 9))
        frac = 0.15 if t % 3 == 0 else 0.0
        L = {"k": keys(n1, nk, frac), "x": np.arange(n1, dtype=float)}
        R = {"id": keys(n2, nk, frac), "y": np.arange(n2, dtype=float) * 10}
        for how in HOWS:
            if t % 2:
                R2 = {"k": R["id"], "y": R["y"]}
                node = {"op": "dataframe.merge", "on": ["k"], "how": how}
                want = pd.DataFrame(L).merge(pd.DataFrame(R2), on="k", how=how)
                cases.append(("on/%d/%s" % (t, how), L, R2, c1, c2, node, want))
            else:
                node = {"op": "dataframe.merge", "left_on": "k", "right_on": "id", "how": how}
                want = pd.DataFrame(L).merge(pd.DataFrame(R), left_on="k", right_on="id", how=how)
                cases.append(("left_on/%d/%s" % (t, how), L, R, c1, c2, node, want))
    # two keys
    for how in HOWS:
        L = {"a": keys(45, 3, 0.1), "b": keys(45, 2, 0.0), "x": np.arange(45.0)}
        R = {"a": keys(30, 3, 0.1), "b": keys(30, 2, 0.0), "y": np.arange(30.0)}
        want = pd.DataFrame(L).merge(pd.DataFrame(R), on=["a", "b"], how=how)
        cases.append(("two-keys/" + how, L, R, 7, 4,
                      {"op": "dataframe.merge", "on": ["a", "b"], "how": how}, want))
    # nothing matches
    L = {"k": np.arange(10.0), "x": np.arange(10.0)}
    R = {"k": np.arange(10.0) + 100, "y": np.arange(10.0)}
    for how in HOWS:
        cases.append(("no-match/" + how, L, R, 3, 4, {"op": "dataframe.merge", "on": ["k"],
                                                      "how": how},
                      pd.DataFrame(L).merge(pd.DataFrame(R), on="k", how=how)))
    for name, L, R, c1, c2, node, want in cases:
        nodes = frame_nodes("l", L, c1) + frame_nodes("r", R, c2)
        nodes.append(dict(node, key="m", inputs=["l", "r"]))
        d = {"version": 1, "nodes": nodes, "fetch": ["m"]}
        r = harness.run_mars(d, threads=2)
        try:
            if r.rc != 0:
                suite.fail(name, "exit %d: %s" % (r.rc, r.brief_error()), d)
                continue
            why = same(load_frame(r, "m"), want)
            suite.check(name, why is None, why, d)
        finally:
            harness.cleanup(r)
    # string keys, and the merge's result used by later ops of the document
    names = ["paris", "lyon", "nice", "lille"]
    lk = [names[i] for i in RNG.integers(0, 4, 30)]
    rk = [names[i] for i in RNG.integers(0, 4, 12)]
    ldf = pd.DataFrame({"city": lk, "x": np.arange(30)})
    rdf = pd.DataFrame({"city": rk, "y": np.arange(12) * 10})
    data = tempfile.mkdtemp(prefix="merge_order_")
    ldf.to_csv(os.path.join(data, "l.csv"), index=False)
    rdf.to_csv(os.path.join(data, "r.csv"), index=False)
    for how in HOWS:
        m = ldf.merge(rdf, on="city", how=how)
        d = {"version": 1, "nodes": [
            {"key": "l", "op": "dataframe.read_csv", "path": "l.csv", "chunk_bytes": 64},
            {"key": "r", "op": "dataframe.read_csv", "path": "r.csv", "chunk_bytes": 40},
            {"key": "m", "op": "dataframe.merge", "inputs": ["l", "r"], "on": ["city"],
             "how": how},
            {"key": "h", "op": "dataframe.head", "inputs": ["m"], "n": 7},
            {"key": "q", "op": "dataframe.query", "inputs": ["m"], "expr": "x > 12"},
            {"key": "so", "op": "dataframe.sort_values", "inputs": ["m"], "by": ["y"],
             "ascending": False},
            {"key": "ri", "op": "dataframe.reset_index", "inputs": ["q"]},
            {"key": "s", "op": "dataframe.sum", "inputs": ["m"]}],
            "fetch": ["m", "h", "q", "so", "ri", "s"]}
        r = harness.run_mars(d, threads=2, args=["--data-dir", data])
        try:
            if r.rc != 0:
                suite.fail("strings/" + how, "exit %d: %s" % (r.rc, r.brief_error()), d)
                continue
            got = load_frame(r, "m")
            want = [[None if pd.isna(v) else v for v in row] for row in m.itertuples(index=False)]
            ok = got.get("columns") == ["city", "x", "y"] and got["data"] == want
            suite.check("strings/" + how, ok, "rows differ from pandas' order", d)
            h = load_frame(r, "h")
            suite.check("strings-head/" + how, h["data"] == want[:7],
                        "head of the merge: %s, pandas %s" % (h["data"], want[:7]), d)
            # the merge's index, 0..n-1 over its rows, kept by the ops after it
            refs = {"m": m, "q": m.query("x > 12"),
                    "so": m.sort_values("y", ascending=False, kind="mergesort"),
                    "ri": m.query("x > 12").reset_index()}
            for k, ref in refs.items():
                f = load_frame(r, k)
                rows = [[None if pd.isna(v) else v for v in row]
                        for row in ref.itertuples(index=False)]
                ok = f.get("index") == list(ref.index) and f.get("data") == rows and \
                    f.get("columns") == list(ref.columns)
                suite.check("strings-index/%s/%s" % (k, how), ok,
                            "index %s, pandas %s" % (f.get("index"), list(ref.index)), d)
        finally:
            harness.cleanup(r)
        # the merge not fetched: a sum does not see its order (the merge
        # runs unordered), groupby first/last and to_tensor do, and
        # groupby idxmax sees its index (the labels it gives)
        d = {"version": 1, "nodes": d["nodes"][:3] + [
            {"key": "s", "op": "dataframe.sum", "inputs": ["m"]},
            {"key": "gf", "op": "dataframe.groupby_agg", "inputs": ["m"], "by": ["city"],
             "agg": {"fx": ["x", "first"], "ly": ["y", "last"], "n": ["x", "count"]}},
            {"key": "gi", "op": "dataframe.groupby_agg", "inputs": ["m"], "by": ["city"],
             "agg": {"ix": ["x", "idxmax"]}},
            {"key": "mx", "op": "dataframe.getitem", "inputs": ["m"], "columns": ["x", "y"]},
            {"key": "tt", "op": "dataframe.to_tensor", "inputs": ["mx"]}],
            "fetch": ["s", "gf", "gi", "tt"]}
        r = harness.run_mars(d, threads=2, args=["--data-dir", data])
        try:
            if r.rc != 0:
                suite.fail("unfetched/" + how, "exit %d: %s" % (r.rc, r.brief_error()), d)
                continue
            s_ = load_frame(r, "s")
            want_s = m.sum(numeric_only=True)
            suite.check("unfetched-sum/" + how, s_["index"] == list(want_s.index) and
                        np.allclose(s_["data"], want_s.values, rtol=1e-12),
                        "%s vs pandas %s" % (s_, want_s.to_dict()), d)
            gf = load_frame(r, "gf")
            want_g = m.groupby("city").agg(fx=("x", "first"), ly=("y", "last"), n=("x", "count"))
            rows = [[None if pd.isna(v) else v for v in row]
                    for row in want_g.itertuples(index=False)]
            suite.check("unfetched-first-last/" + how, gf["index"] == list(want_g.index) and
                        gf["data"] == rows, "%s vs pandas %s" % (gf["data"], rows), d)
            gi = load_frame(r, "gi")
            want_i = m.groupby("city").agg(ix=("x", "idxmax"))
            rows = [[None if pd.isna(v) else int(v) for v in row]
                    for row in want_i.itertuples(index=False)]
            suite.check("unfetched-idxmax/" + how, gi["index"] == list(want_i.index) and
                        gi["data"] == rows, "%s vs pandas %s" % (gi["data"], rows), d)
            tt = np.load(os.path.join(r.outdir, "tt.npy"))
            want_t = m[["x", "y"]].to_numpy(dtype=float)
            suite.check("unfetched-to-tensor/" + how, tt.shape == want_t.shape and
                        np.array_equal(tt, want_t, equal_nan=True),
                        "to_tensor differs from pandas' rows in order", d)
        finally:
            harness.cleanup(r)
    broadcast(suite, data)
    unique_index_joins(suite, data)
    key_dtypes(suite, data)
    outer_empty(suite, data)
    shutil.rmtree(data, ignore_errors=True)
    suite.finish()


def rows_of(df):
    return [[None if pd.isna(v) else v for v in row] for row in df.itertuples(index=False)]


def broadcast(suite, data):
    """A merge with a small side (tile_df.c, DFJ_MERGE_BCAST): a 400-row
    CSV in several chunks (its row count known from the scan) merged with a
    table of known rows in 1 to 3 chunks, read whole by each of the CSV's
    chunks. how left (small right) and right (small left, rows put in
    right's order) keep pandas' order, index and dtypes, through query,
    sort_values and reset_index after the merge; inner runs so when
    nothing sees its order (a sum, groupby without first/last; idxmax sees
    the index, the labels it gives), and is
    planned when something does (tile_merge_keyed: rows grouped by key).
    "filtered": the table after a query, one chunk of unknown rows."""
    big = pd.DataFrame({"k": RNG.integers(0, 40, 400), "x": np.arange(400)})
    big.to_csv(os.path.join(data, "big.csv"), index=False)
    for label, nk, chunk in (("some-keys", 25, 9), ("all-keys", 40, 40), ("repeats", 30, 7),
                             ("no-match", 10, 4), ("empty", 0, 4), ("filtered", 30, 64)):
        kk = RNG.integers(0, 40, nk) if label == "repeats" else \
            np.arange(nk) + (100 if label == "no-match" else 0)
        small = pd.DataFrame({"k": kk, "w": np.arange(nk) * 3})
        snodes = [{"key": "s_a0", "op": "array",
                   "data": small.to_numpy().tolist() if nk else [[0, 0]],
                   "chunk_size": [chunk, 2]},
                  {"key": "s_a", "op": "getitem", "inputs": ["s_a0"],
                   "index": [":" if nk else "0:0"]},
                  {"key": "s0" if label == "filtered" else "s", "op": "dataframe.from_tensor",
                   "inputs": ["s_a"], "columns": ["k", "w"]},
                  {"key": "b", "op": "dataframe.read_csv", "path": "big.csv", "chunk_bytes": 700}]
        if label == "filtered":
            snodes.append({"key": "s", "op": "dataframe.query", "inputs": ["s0"],
                           "expr": "w >= 0"})
        for how, sides in (("left", ("b", "s")), ("right", ("s", "b")), ("inner", ("b", "s"))):
            lf, rf = (big, small) if sides[0] == "b" else (small, big)
            m = lf.merge(rf, on="k", how=how)
            if not nk and how == "right":
                # pandas 1.5 moves the key behind left's columns when a
                # side is empty; the engine keeps its place (graph-format.md)
                m = m[["k", "w", "x"]]
            name = "%s/%s" % (label, how)
            d = {"version": 1, "nodes": snodes + [
                {"key": "m", "op": "dataframe.merge", "inputs": list(sides), "on": "k",
                 "how": how},
                {"key": "q", "op": "dataframe.query", "inputs": ["m"], "expr": "x % 3 == 1"},
                {"key": "so", "op": "dataframe.sort_values", "inputs": ["m"], "by": ["w"]},
                {"key": "ri", "op": "dataframe.reset_index", "inputs": ["q"]}],
                "fetch": ["m", "q", "so", "ri"]}
            r = harness.run_mars(d, threads=2, args=["--data-dir", data])
            try:
                if r.rc != 0:
                    suite.fail("broadcast/" + name, "exit %d: %s" % (r.rc, r.brief_error()), d)
                    continue
                refs = {"m": m, "q": m.query("x % 3 == 1"),
                        "so": m.sort_values("w", kind="mergesort"),
                        "ri": m.query("x % 3 == 1").reset_index()}
                for k, ref in refs.items():
                    f = load_frame(r, k)
                    want_dt = {str(c): str(t) for c, t in ref.dtypes.items()}
                    if k == "ri" and not len(ref):
                        # pandas 1.5's empty inner merge has an object
                        # index; int64 here (graph-format.md)
                        want_dt["index"] = "int64"

                    ok = f.get("index") == list(ref.index) and f.get("data") == rows_of(ref) \
                        and f.get("columns") == list(ref.columns) and f.get("dtypes") == want_dt
                    suite.check("broadcast/%s/%s" % (k, name), ok,
                                "got index %s dtypes %s, pandas %s %s" % (
                                    f.get("index", [])[:12], f.get("dtypes"),
                                    list(ref.index)[:12], want_dt), d)
            finally:
                harness.cleanup(r)
            # on the index (left_index/right_index): pandas' order too,
            # sorted by key when labels repeat (test_index_join_order.py)
            d = {"version": 1, "nodes": snodes + [
                {"key": "bi", "op": "dataframe.set_index", "inputs": ["b"], "keys": ["k"]},
                {"key": "si", "op": "dataframe.set_index", "inputs": ["s"], "keys": ["k"]},
                {"key": "m", "op": "dataframe.merge",
                 "inputs": ["bi", "si"] if sides[0] == "b" else ["si", "bi"],
                 "left_index": True, "right_index": True, "how": how}],
                "fetch": ["m"]}
            want = lf.set_index("k").merge(rf.set_index("k"), left_index=True,
                                           right_index=True, how=how)
            r = harness.run_mars(d, threads=2, args=["--data-dir", data])
            try:
                if r.rc != 0:
                    suite.fail("broadcast-index/" + name, "exit %d: %s" % (
                        r.rc, r.brief_error()), d)
                else:
                    f = load_frame(r, "m")
                    # as floats: JSON writes 3.0 of a float64 column as 3
                    got = [[-1e300 if v is None else float(v) for v in [i] + row]
                           for i, row in zip(f.get("index", []), f.get("data", []))]
                    exp = [[-1e300 if v is None else float(v) for v in [i] + row]
                           for i, row in zip(want.index.tolist(), rows_of(want))]
                    bad = [(a, b) for a, b in zip(got, exp) if a != b][:2]
                    suite.check("broadcast-index/" + name, got == exp and
                                f.get("columns") == list(want.columns),
                                "%d rows, pandas %d; first differences %s" % (
                                    len(got), len(exp), bad), d)
            finally:
                harness.cleanup(r)
            # not fetched, read by aggregations only: inner runs unordered
            d = {"version": 1, "nodes": snodes + [
                {"key": "m", "op": "dataframe.merge", "inputs": list(sides), "on": "k",
                 "how": how},
                {"key": "sm", "op": "dataframe.sum", "inputs": ["m"]},
                {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["m"], "by": ["w"],
                 "agg": {"n": ["x", "count"], "t": ["x", "sum"], "ix": ["x", "idxmax"]}}],
                "fetch": ["sm", "g"]}
            r = harness.run_mars(d, threads=2, args=["--data-dir", data])
            try:
                if r.rc != 0:
                    suite.fail("broadcast-agg/" + name, "exit %d: %s" % (r.rc, r.brief_error()),
                               d)
                    continue
                sm, g = load_frame(r, "sm"), load_frame(r, "g")
                want_s = m.sum(numeric_only=True)
                want_g = m.groupby("w").agg(n=("x", "count"), t=("x", "sum"),
                                            ix=("x", "idxmax"))
                suite.check("broadcast-agg/sum/" + name, sm["index"] == list(want_s.index) and
                            np.allclose(sm["data"], want_s.values, rtol=1e-12),
                            "%s vs pandas %s" % (sm, want_s.to_dict()), d)
                suite.check("broadcast-agg/groupby/" + name,
                            g["index"] == list(want_g.index) and g["data"] == rows_of(want_g),
                            "%s vs pandas %s" % (g["data"][:8], rows_of(want_g)[:8]), d)
            finally:
                harness.cleanup(r)


def unique_index_joins(suite, data):
    """join, and merge on both indexes, with unique index labels on each
    side: pandas 1.5 then gives "left" in left's order, "inner" in left's
    order, "right" in right's order (Index.join), "outer" sorted by label
    (the union); so does the engine, read whole or partitioned, fetched
    and through head, tail and query. Labels that repeat:
    test_index_join_order.py."""
    rng = np.random.default_rng(77)
    for t, (nl, nr, cl, cr) in enumerate(((200, 150, 300, 300), (200, 6, 300, 100000),
                                          (9, 120, 100000, 200), (60, 60, 40, 40))):
        top = 4 * max(nl, nr)
        lk, rk = rng.permutation(top)[:nl], rng.permutation(top)[:nr]
        lf = pd.DataFrame({"k": lk, "a": rng.integers(0, 9, nl)})
        rf = pd.DataFrame({"k": rk, "b": rng.integers(0, 9, nr)})
        lf.to_csv(os.path.join(data, "ul.csv"), index=False)
        rf.to_csv(os.path.join(data, "ur.csv"), index=False)
        L, R = lf.set_index("k"), rf.set_index("k")
        for how in ("left", "inner", "right", "outer"):
            for kind in ("join", "merge"):
                node = {"key": "m", "op": "dataframe." + kind, "inputs": ["l", "r"], "how": how}
                if kind == "merge":
                    node.update(left_index=True, right_index=True)
                    m = L.merge(R, left_index=True, right_index=True, how=how)
                else:
                    m = L.join(R, how=how)
                d = {"version": 1, "nodes": [
                    {"key": "l0", "op": "dataframe.read_csv", "path": "ul.csv",
                     "chunk_bytes": cl},
                    {"key": "r0", "op": "dataframe.read_csv", "path": "ur.csv",
                     "chunk_bytes": cr},
                    {"key": "l", "op": "dataframe.set_index", "inputs": ["l0"], "keys": "k"},
                    {"key": "r", "op": "dataframe.set_index", "inputs": ["r0"], "keys": "k"},
                    node,
                    {"key": "h", "op": "dataframe.head", "inputs": ["m"], "n": 7},
                    {"key": "tl", "op": "dataframe.tail", "inputs": ["m"], "n": 7},
                    {"key": "q", "op": "dataframe.query", "inputs": ["m"], "expr": "a > 4"}],
                    "fetch": ["m", "h", "tl", "q"]}
                want = {"m": m, "h": m.head(7), "tl": m.tail(7), "q": m.query("a > 4")}
                name = "unique-index/%d/%s/%s" % (t, kind, how)
                r = harness.run_mars(d, threads=2, args=["--data-dir", data])
                try:
                    if r.rc != 0:
                        suite.fail(name, "exit %d: %s" % (r.rc, r.brief_error()), d)
                        continue
                    bad = []
                    for k, ref in want.items():
                        f = load_frame(r, k)
                        if f.get("index") != list(ref.index) or \
                                [[float(v) if v is not None else None for v in row]
                                 for row in f.get("data", [])] != \
                                [[float(v) if v is not None else None for v in row]
                                 for row in rows_of(ref)]:
                            bad.append("%s: index %s, pandas %s" % (
                                k, f.get("index", [])[:8], list(ref.index)[:8]))
                    suite.check(name, not bad, "; ".join(bad), d)
                finally:
                    harness.cleanup(r)


def key_dtypes(suite, data):
    """int64 keys met by float64 keys, as pandas 1.5 types the result's key:
    an index join's labels take the type both sides share (float64); a
    merge's key column (on columns, join's on=, left_index with right_on)
    keeps its own side's type unless a row only the other side has fills
    it, then the shared one. Every kind and how, with and without such
    rows; the values and the index are compared too."""
    combos = (([10, 20, 30], [20.0, 10, 20, 40]), ([10.0, 20, 30], [20, 10, 20, 40]),
              ([10, 20, 40], [20.0, 10, 20, 40]), ([10.0, 20, 40], [20, 10, 20, 40]),
              ([10.0, 20, float("nan")], [20, 10, 20, 40]), ([1.5, 20, 40], [20, 1.5, 40, 20]))
    nodes, fetch, want = [], [], {}
    for c, (lk, rk) in enumerate(combos):
        lf = pd.DataFrame({"k": lk, "a": range(len(lk))})
        rf = pd.DataFrame({"k": rk, "b": range(len(rk)), "ri": range(100, 100 + len(rk))})
        lf.to_csv(os.path.join(data, "kt%dl.csv" % c), index=False)
        rf.to_csv(os.path.join(data, "kt%dr.csv" % c), index=False)
        L = pd.read_csv(os.path.join(data, "kt%dl.csv" % c))
        R = pd.read_csv(os.path.join(data, "kt%dr.csv" % c))
        p = "kt%d" % c
        nodes += [{"key": p + "l", "op": "dataframe.read_csv", "path": "kt%dl.csv" % c,
                   "chunk_bytes": 16},
                  {"key": p + "r", "op": "dataframe.read_csv", "path": "kt%dr.csv" % c,
                   "chunk_bytes": 16},
                  {"key": p + "li", "op": "dataframe.set_index", "inputs": [p + "l"],
                   "keys": "k"},
                  {"key": p + "ri", "op": "dataframe.set_index", "inputs": [p + "r"],
                   "keys": "k"},
                  {"key": p + "rr", "op": "dataframe.set_index", "inputs": [p + "r"],
                   "keys": "ri"}]
        Li, Ri, Rr = L.set_index("k"), R.set_index("k"), R.set_index("ri")
        for how in HOWS:
            for kind, ins, extra, m in (
                    ("on", ["l", "r"], {"on": "k"}, L.merge(R, on="k", how=how)),
                    ("index", ["li", "ri"], {"left_index": True, "right_index": True},
                     Li.merge(Ri, left_index=True, right_index=True, how=how)),
                    ("rindex", ["l", "ri"], {"left_on": "k", "right_index": True},
                     L.merge(Ri, left_on="k", right_index=True, how=how)),
                    ("lindex", ["li", "rr"], {"left_index": True, "right_on": "k"},
                     Li.merge(Rr, left_index=True, right_on="k", how=how))):
                key = "%s.%s.%s" % (p, kind, how)
                nodes.append(dict(extra, key=key, op="dataframe.merge",
                                  inputs=[p + q for q in ins], how=how))
                fetch.append(key)
                want[key] = m
    d = {"version": 1, "nodes": nodes, "fetch": fetch}
    r = harness.run_mars(d, threads=2, args=["--data-dir", data])
    try:
        if r.rc != 0:
            suite.fail("key-dtypes", "exit %d: %s" % (r.rc, r.brief_error()), d)
            return
        for key, m in want.items():
            f = load_frame(r, key)
            bad = []
            wd = {c: str(t) for c, t in m.dtypes.items()}
            if "k" in wd and f.get("dtypes", {}).get("k") != wd["k"]:
                bad.append("key k %s, pandas %s" % (f.get("dtypes", {}).get("k"), wd["k"]))
            if key.split(".")[1] == "index":  # the labels' type: ints or floats in JSON
                lab = f.get("index", [])
                if lab and all(isinstance(v, int) for v in lab) != (m.index.dtype.kind == "i"):
                    bad.append("index labels %s, pandas %s" % (lab[:4], m.index.dtype))
            got = [[None if v is None else float(v) for v in row] for row in f.get("data", [])]
            exp = [[None if v is None else float(v) for v in row] for row in rows_of(m)]
            gi = [None if v is None else float(v) for v in f.get("index", [])]
            ei = [None if isinstance(v, float) and np.isnan(v) else float(v)
                  for v in m.index.tolist()]
            if got != exp or gi != ei:
                bad.append("rows %s index %s, pandas %s index %s" % (got[:4], gi[:4], exp[:4],
                                                                     ei[:4]))
            suite.check("key-dtypes/" + key, not bad, "; ".join(bad), d)
    finally:
        harness.cleanup(r)


def outer_empty_docs(data):
    """An outer merge where a side has no rows at all: pandas 1.5 keeps the
    other side's rows in their own order (not grouped by key). The engine
    learns it from every chunk's row count when the merge runs; the side is
    emptied by a query (its rows unknown until then). On columns, join's
    on= and its mirror, fetched and through head and query. Writes the CSV
    files (oel.csv, oer.csv) into data; yields (name, document, {key:
    pandas' frame}) (test_df_cluster.py runs them on a cluster too)."""
    rng = np.random.default_rng(5)
    L = pd.DataFrame({"k": rng.integers(0, 12, 90), "a": np.arange(90)})
    R = pd.DataFrame({"k": rng.integers(0, 12, 40), "b": np.arange(40)})
    L.to_csv(os.path.join(data, "oel.csv"), index=False)
    R.to_csv(os.path.join(data, "oer.csv"), index=False)
    base = [{"key": "l", "op": "dataframe.read_csv", "path": "oel.csv", "chunk_bytes": 60},
            {"key": "r", "op": "dataframe.read_csv", "path": "oer.csv", "chunk_bytes": 50},
            {"key": "le", "op": "dataframe.query", "inputs": ["l"], "expr": "a > 1000"},
            {"key": "re", "op": "dataframe.query", "inputs": ["r"], "expr": "b > 1000"},
            {"key": "ri", "op": "dataframe.set_index", "inputs": ["r"], "keys": "k"},
            {"key": "rie", "op": "dataframe.query", "inputs": ["ri"], "expr": "b > 1000"},
            {"key": "li", "op": "dataframe.set_index", "inputs": ["l"], "keys": "k"},
            {"key": "lie", "op": "dataframe.query", "inputs": ["li"], "expr": "a > 1000"}]
    Le, Re = L.query("a > 1000"), R.query("b > 1000")
    Ri, Li = R.set_index("k"), L.set_index("k")
    cases = (
        ("on/right-empty", ["l", "re"], {"on": "k"}, L.merge(Re, on="k", how="outer")),
        # pandas 1.5 moves the key behind left's columns when left is empty
        # (graph-format.md); frame_differs compares in the engine's order
        ("on/left-empty", ["le", "r"], {"on": "k"}, Le.merge(R, on="k", how="outer")),
        ("on/both-empty", ["le", "re"], {"on": "k"}, Le.merge(Re, on="k", how="outer")),
        ("join-on/right-empty", ["l", "rie"], {"left_on": "k", "right_index": True},
         L.merge(Ri.query("b > 1000"), left_on="k", right_index=True, how="outer")),
        ("mirror/left-empty", ["lie", "r"], {"left_index": True, "right_on": "k"},
         Li.query("a > 1000").merge(R, left_index=True, right_on="k", how="outer")),
        ("on/nothing-empty", ["l", "r"], {"on": "k"}, L.merge(R, on="k", how="outer")))
    for name, ins, extra, m in cases:
        d = {"version": 1, "nodes": base + [
            dict(extra, key="m", op="dataframe.merge", inputs=ins, how="outer"),
            {"key": "h", "op": "dataframe.head", "inputs": ["m"], "n": 7},
            {"key": "q", "op": "dataframe.query", "inputs": ["m"], "expr": "k > 5"}],
            "fetch": ["m", "h", "q"]}
        yield name, d, {"m": m, "h": m.head(7), "q": m.query("k > 5")}


def frame_differs(f, ref):
    """None, or how a fetched frame's JSON differs from pandas' ref: rows
    in order and the index, numbers as floats; the columns as a set (in
    f's order: pandas 1.5 moves an empty merge's keys, graph-format.md)"""
    cols = f.get("columns", [])
    if set(cols) != set(ref.columns):
        return "columns %s, pandas %s" % (cols, list(ref.columns))
    got = [[None if v is None else float(v) for v in row] for row in f.get("data", [])]
    exp = [[None if v is None else float(v) for v in row] for row in rows_of(ref[cols])]
    gi = [None if v is None else float(v) for v in f.get("index", [])]
    ei = [None if isinstance(v, float) and np.isnan(v) else float(v) for v in ref.index.tolist()]
    if got != exp or gi != ei:
        return "%d rows %s index %s, pandas %d rows %s index %s" % (
            len(got), got[:4], gi[:4], len(exp), exp[:4], ei[:4])
    return None


def outer_empty(suite, data):
    for name, d, want in outer_empty_docs(data):
        r = harness.run_mars(d, threads=2, args=["--data-dir", data])
        try:
            if r.rc != 0:
                suite.fail("outer-empty/" + name, "exit %d: %s" % (r.rc, r.brief_error()), d)
                continue
            bad = ["%s: %s" % (k, why) for k, ref in want.items()
                   for why in [frame_differs(load_frame(r, k), ref)] if why]
            suite.check("outer-empty/" + name, not bad, "; ".join(bad), d)
        finally:
            harness.cleanup(r)


if __name__ == "__main__":
    main()
