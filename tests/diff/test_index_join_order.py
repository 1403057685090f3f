#!/usr/bin/python3
"""Joins on the index (dataframe.join, and dataframe.merge with left_index
and right_index) in pandas 1.5's row order, exactly: no sorting before the
comparison.

pandas' Index.join gives "left" and "inner" in left's order and "right" in
right's when each side's labels are unique; it sorts the result by key
(each key's rows as they come: left's in order, each with its matches in
right's order; right's first for "right") when a side's labels repeat, and
sorts an "outer" join unless both sides hold the same labels in the same
order. A side without rows leaves the other's order. The engine decides
this when the join runs (tile_df.c, tile_index_order).

Random sides of 0 to 90 rows read from CSV in chunks of random size: int,
float (NaN included) and string labels, unique or repeated, one or two
index levels; either side emptied by a query now and then, the very same
index on both sides (read twice, chunked differently, or filtered alike),
or the same labels in another order; a named Series on the right of a
join now and then; the join fetched, and through head, tail, query and a
sum. Three cases in ten join left's key columns with right's index
instead (join's on=, merge with left_on and right_index), or, four in ten
of those, left's index with right's key columns (merge with left_index
and right_on): rows in the order of a merge on columns, the index of the
side of key columns kept and its name as the engine gives it
(docs/graph-format.md). Cases are batched, many joins to a
document, and a failing batch is run again case by case.

Run: /usr/bin/python3 tests/diff/test_index_join_order.py
Env: MARS_IJ_SEED (default 20261129), MARS_IJ_CASES (default 240).
"""
import json
import math
import os
import shutil
import sys
import tempfile

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

HOWS = ("left", "inner", "right", "outer")
WORDS = ["ant", "bee", "cat", "Dog", "eel", "fox", "gnu", "hen", "ibis", "jay", "kiwi",
         "lynx", "mole", "newt", "owl", "pig", "yak", "zebu"]


def labels(rng, kind, n, repeat, nan_ok):
    """n index labels of a kind, unique or drawn with repeats"""
    if kind == "str":
        pool = WORDS + ["%s%d" % (w, i) for i in range(6) for w in WORDS]
        if repeat:
            return list(rng.choice(WORDS[:max(2, min(len(WORDS), n // 2 + 1))], n))
        return list(rng.permutation(pool)[:n])
    top = max(2, n // 2) if repeat else 3 * n + 3
    v = rng.integers(0, top, n) if repeat else rng.permutation(top)[:n]
    if kind == "int":
        return [int(x) for x in v]
    v = v.astype(float) / 2
    if rng.random() < 0.5 and n and nan_ok:  # NaN labels (they match each other, as in pandas)
        v[rng.random(n) < (0.15 if repeat else 1.0 / n)] = np.nan
        if not repeat:  # one NaN at most: a unique index
            nan = np.flatnonzero(np.isnan(v))
            v[nan[1:]] = np.arange(len(nan) - 1) + 1000.5
    return list(v)


def side(rng, n, kind, repeat, levels, col, vals):
    # NaN in one level of several: pandas sorts tuples holding NaN, whose
    # order Python leaves undefined (graph-format.md); one level only
    d = {"k": labels(rng, kind, n, repeat, levels == 1)}
    if levels == 2:
        d["k2"] = list(rng.integers(0, 2 if repeat else 1, n))
    d[col] = vals
    return pd.DataFrame(d)


def make_on_case(rng, i, data):
    """one join of left's key columns with right's index (join's on=, or
    merge with left_on and right_index): pandas orders it as a merge on
    columns and keeps left's index; or (4 in 10) its mirror, merge with
    left_index and right_on, which keeps right's index. The side of key
    columns is L below, the indexed side R, whichever side of the merge
    each is."""
    p = "c%d." % i
    kind = rng.choice(["int", "float", "str"])
    levels = 2 if rng.random() < 0.15 else 1
    how = HOWS[rng.integers(0, 4)]
    mirror = rng.random() < 0.4
    op = "merge" if mirror or rng.random() < 0.4 else "join"
    # the how that keeps only the rows of L's side, or the matched ones
    lhows = ("right", "inner") if mirror else ("left", "inner")
    nl, nr = int(rng.integers(1, 91)), int(rng.integers(1, 40))
    lf = side(rng, nl, kind, True, levels, "a", list(rng.integers(0, 10, nl)))
    rf = side(rng, nr, kind, rng.random() < 0.3, levels, "b", list(rng.integers(0, 10, nr)))
    if rng.random() < 0.5:  # left indexed by a column of its own, else 0..n-1
        lf["i"] = rng.permutation(nl) * 3
    lname, rname = "%sl.csv" % p, "%sr.csv" % p
    lf.to_csv(os.path.join(data, lname), index=False)
    rf.to_csv(os.path.join(data, rname), index=False)
    keys = ["k", "k2"] if levels == 2 else ["k"]
    L = pd.read_csv(os.path.join(data, lname))
    R = pd.read_csv(os.path.join(data, rname)).set_index(keys)
    nodes = [{"key": p + "l0", "op": "dataframe.read_csv", "path": lname,
              "chunk_bytes": int(rng.integers(24, 400))},
             {"key": p + "r0", "op": "dataframe.read_csv", "path": rname,
              "chunk_bytes": int(rng.integers(24, 400))},
             {"key": p + "r", "op": "dataframe.set_index", "inputs": [p + "r0"], "keys": keys}]
    lk, rk = p + "l0", p + "r"
    if "i" in lf:
        nodes.append({"key": p + "l", "op": "dataframe.set_index", "inputs": [lk], "keys": "i"})
        L, lk = L.set_index("i"), p + "l"
    if rng.random() < 0.15 and how in lhows:
        # L emptied (pandas then indexes the other hows by R's labels: not
        # drawn, graph-format.md)
        nodes.append({"key": p + "lq", "op": "dataframe.query", "inputs": [lk],
                      "expr": "a > 100"})
        L, lk = L.query("a > 100"), p + "lq"
    elif rng.random() < 0.15:
        # R emptied (an outer merge then keeps L's rows in their order)
        nodes.append({"key": p + "rq", "op": "dataframe.query", "inputs": [rk],
                      "expr": "b > 100"})
        R, rk = R.query("b > 100"), p + "rq"
    on = keys if levels == 2 else "k"
    if op == "join":
        node = {"on": on}
        m = L.join(R, on=on, how=how)
    elif mirror:
        node = {"left_index": True, "right_on": on}
        m = R.merge(L, left_index=True, right_on=on, how=how)
    else:
        node = {"left_on": on, "right_index": True}
        m = L.merge(R, left_on=on, right_index=True, how=how)
    # the hows that keep R's unmatched rows: index labels missing there
    rhows = ("left", "outer") if mirror else ("right", "outer")
    if levels == 2 and how in rhows:
        # pandas labels R's unmatched rows with L's last label (its take of
        # -1 when R's index has several levels); here they are missing
        # (graph-format.md)
        m = m.copy()
        lab = m.index.to_numpy(dtype=float, na_value=np.nan)
        lab[m["a"].isna().to_numpy()] = np.nan
        m.index = pd.Index(lab, name=m.index.name)
    inputs = [rk, lk] if mirror else [lk, rk]
    nodes.append(dict(node, key=p + "m", op="dataframe." + op, inputs=inputs, how=how))
    want = {p + "m": m}
    if rng.random() < 0.3:
        nodes.append({"key": p + "q", "op": "dataframe.query", "inputs": [p + "m"],
                      "expr": "b > 4"})
        want[p + "q"] = m.query("b > 4")
    desc = "on/%s%s/%s/%s%s/%d-%d" % (op, "-mirror" if mirror else "", how, kind,
                                      "x2" if levels == 2 else "", len(L), len(R))
    c = Case("%d/%s" % (i, desc), [lname, rname], nodes, want)
    # the index's name: L's, or (R's unmatched rows kept) none, where pandas
    # keeps it only when every row of R found a match (graph-format.md)
    if len(L):  # (L without rows: pandas names the empty index after R's)
        c.index_names = {k: [None] if how in rhows and levels == 1
                         else list(m.index.names) for k in want}
    return c


def norm(v):
    if isinstance(v, list):
        return tuple(norm(x) for x in v)
    if isinstance(v, tuple):
        return tuple(norm(x) for x in v)
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, float, np.integer, np.floating)):
        return float(v)
    return v


def frame_rows(f):
    return [norm(i) for i in f.get("index", [])], [norm(r) for r in f.get("data", [])]


def pandas_rows(df):
    return [norm(list(i) if isinstance(i, tuple) else i) for i in df.index.tolist()], \
        [norm(list(r)) for r in df.itertuples(index=False)]


class Case:
    def __init__(self, name, files, nodes, want):
        self.name, self.files, self.nodes, self.want = name, files, nodes, want
        self.index_names = {}  # key: the index names wanted, where checked


def make_case(rng, i, data):
    """one join: its CSV files, its nodes (keys prefixed) and pandas' results"""
    p = "c%d." % i
    kind = rng.choice(["int", "float", "str"])
    levels = 2 if rng.random() < 0.15 else 1
    how = HOWS[rng.integers(0, 4)]
    op = "join" if rng.random() < 0.5 else "merge"
    shape = rng.random()
    # at least a row each: a CSV of no rows types its columns as strings;
    # a side without rows comes from a query below
    nl = int(rng.integers(1, 91))
    nr = int(rng.integers(1, 91)) if rng.random() < 0.6 else int(rng.integers(1, 8))
    if rng.random() < 0.3:
        nl, nr = nr, nl
    lrep, rrep = rng.random() < 0.4, rng.random() < 0.4
    same = shape < 0.15  # the very same index on both sides
    lf = side(rng, nl, kind, lrep, levels, "a", list(rng.integers(0, 10, nl)))
    if same or shape < 0.22:  # or the same labels in another order
        rf = lf.rename(columns={"a": "b"}).copy()
        rf["b"] = list(rng.integers(0, 10, len(rf)))
        if not same:
            rf = rf.iloc[rng.permutation(len(rf))]
    else:
        rf = side(rng, nr, kind, rrep, levels, "b", list(rng.integers(0, 10, nr)))
    lname, rname = "%sl.csv" % p, "%sr.csv" % p
    lf.to_csv(os.path.join(data, lname), index=False)
    rf.to_csv(os.path.join(data, rname), index=False)
    keys = ["k", "k2"] if levels == 2 else "k"
    L0 = pd.read_csv(os.path.join(data, lname)).set_index(keys)
    R0 = pd.read_csv(os.path.join(data, rname)).set_index(keys)
    nodes = [{"key": p + "l0", "op": "dataframe.read_csv", "path": lname,
              "chunk_bytes": int(rng.integers(24, 400))},
             {"key": p + "r0", "op": "dataframe.read_csv", "path": rname,
              "chunk_bytes": int(rng.integers(24, 400))},
             {"key": p + "l", "op": "dataframe.set_index", "inputs": [p + "l0"], "keys": keys},
             {"key": p + "r", "op": "dataframe.set_index", "inputs": [p + "r0"], "keys": keys}]
    L, R, lk, rk = L0, R0, p + "l", p + "r"
    # filters: a side emptied, or (the same index) both filtered alike
    filt = rng.random()
    if filt < 0.1 or (same and filt < 0.4):
        e = "a > 4" if filt >= 0.1 else "a > 100"
        nodes.append({"key": p + "lq", "op": "dataframe.query", "inputs": [lk], "expr": e})
        L, lk = L.query(e), p + "lq"
        if same:
            e = e.replace("a", "b")
            if filt >= 0.1:
                e = "b == b"  # the same rows kept: rows unknown on both sides
                nodes[-1]["expr"] = "a == a"
                L = L0.query("a == a")
            nodes.append({"key": p + "rq", "op": "dataframe.query", "inputs": [rk], "expr": e})
            R, rk = R.query(e), p + "rq"
    elif filt < 0.2:
        nodes.append({"key": p + "rq", "op": "dataframe.query", "inputs": [rk],
                      "expr": "b > 100"})
        R, rk = R.query("b > 100"), p + "rq"
    if op == "join" and rng.random() < 0.3:  # a named Series on the right
        nodes.append({"key": p + "rs", "op": "dataframe.getitem", "inputs": [rk],
                      "columns": "b"})
        R, rk = R["b"], p + "rs"
    node = {"key": p + "m", "op": "dataframe." + op, "inputs": [lk, rk], "how": how}
    if op == "merge":
        node.update(left_index=True, right_index=True)
        m = L.merge(R, left_index=True, right_index=True, how=how)
    else:
        m = L.join(R, how=how)
    nodes.append(node)
    after = rng.random()
    want = {p + "m": m}
    if after < 0.25:
        nodes.append({"key": p + "h", "op": "dataframe.head", "inputs": [p + "m"], "n": 5})
        want[p + "h"] = m.head(5)
    elif after < 0.45:
        nodes.append({"key": p + "t", "op": "dataframe.tail", "inputs": [p + "m"], "n": 5})
        want[p + "t"] = m.tail(5)
    elif after < 0.65:
        nodes.append({"key": p + "q", "op": "dataframe.query", "inputs": [p + "m"],
                      "expr": "a > 3"})
        want[p + "q"] = m.query("a > 3")
    elif after < 0.75:
        # not fetched, summed only: the join runs unordered
        nodes[-1] = dict(node)
        want = {}
        nodes.append({"key": p + "s", "op": "dataframe.sum", "inputs": [p + "m"]})
        want[p + "s"] = m.sum(numeric_only=True)
    desc = "%s/%s/%s%s/%s%s/%d-%d%s" % (op, how, kind, "x2" if levels == 2 else "",
                                         "rep" if lrep else "uni", "rep" if rrep else "uni",
                                         len(L), len(R), "/same" if same else "")
    return Case("%d/%s" % (i, desc), [lname, rname], nodes, want)


def differs(got, ref):
    """None, or why a result (its JSON) differs from pandas' ref, order
    included"""
    if isinstance(ref, pd.Series):  # the sum: a value per column
        if got.get("index") != list(ref.index) or \
                not np.allclose(got.get("data"), ref.values, equal_nan=True):
            return "%s, pandas %s" % (got, ref.to_dict())
        return None
    gi, gd = frame_rows(got)
    wi, wd = pandas_rows(ref)
    if got.get("columns") != list(ref.columns):
        return "columns %s, pandas %s" % (got.get("columns"), list(ref.columns))
    if gi != wi or gd != wd:
        at = next((q for q in range(min(len(gi), len(wi)))
                   if gi[q] != wi[q] or gd[q] != wd[q]), min(len(gi), len(wi)))
        return "%d rows, pandas %d; from row %d: index %s, pandas %s" % (
            len(gi), len(wi), at, gi[at:at + 6], wi[at:at + 6])
    return None


def draw_case(rng, i, data):
    """a join on both indexes, or (3 in 10) of columns with an index"""
    return (make_on_case if rng.random() < 0.3 else make_case)(rng, i, data)


def result_differs(case, key, got):
    """None, or why result key of a case (its JSON) is not pandas'"""
    why = differs(got, case.want[key])
    names = case.index_names.get(key)
    if not why and names is not None and got.get("index_names") != names:
        why = "index names %s, want %s" % (got.get("index_names"), names)
    return why


def check(case, outdir):
    """None, or why the case's results differ from pandas'"""
    for key in case.want:
        path = os.path.join(outdir, key + ".json")
        if not os.path.exists(path):
            return "%s: no result" % key
        with open(path) as f:
            why = result_differs(case, key, json.load(f))
        if why:
            return "%s: %s" % (key, why)
    return None


def run(cases, data):
    nodes = [n for c in cases for n in c.nodes]
    fetch = [k for c in cases for k in c.want]
    d = {"version": 1, "nodes": nodes, "fetch": fetch}
    return d, harness.run_mars(d, threads=2, args=["--data-dir", data])


def main():
    suite = harness.Suite("index_join_order")
    harness.require_mars_run(suite)
    seed = int(os.environ.get("MARS_IJ_SEED", "20261129"))
    count = int(os.environ.get("MARS_IJ_CASES", "240"))
    rng = np.random.default_rng(seed)
    data = tempfile.mkdtemp(prefix="ijoin_")
    try:
        cases = [draw_case(rng, i, data) for i in range(count)]
        for b in range(0, len(cases), 40):
            batch = cases[b:b + 40]
            d, r = run(batch, data)
            try:
                if r.rc == 0:
                    whys = [(c, check(c, r.outdir)) for c in batch]
                    if all(w is None for _, w in whys):
                        for c, _ in whys:
                            suite.check(c.name, True, None)
                        continue
            finally:
                harness.cleanup(r)
            for c in batch:  # again alone: each failure with its own document
                d, r = run([c], data)
                try:
                    if r.rc != 0:
                        suite.fail(c.name, "exit %d: %s" % (r.rc, r.brief_error()), d)
                        continue
                    why = check(c, r.outdir)
                    suite.check(c.name, why is None, why, d)
                finally:
                    harness.cleanup(r)
    finally:
        shutil.rmtree(data, ignore_errors=True)
    suite.finish()


if __name__ == "__main__":
    main()
