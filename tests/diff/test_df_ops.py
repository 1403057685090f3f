#!/usr/bin/python3
"""DataFrame ops of issue 14 through mars-run, against pandas 1.5: the
fixes (index_names, to_tensor as a tensor, the byte-order mark, min/max of
nothing, count of strings, string literals) and the pandas-named ops added
since (graph-format.md, additions). Inputs are many uneven chunks of a CSV
with NaN, strings with missing values, bools and duplicate keys, and
one-row chunks.

Usage: test_df_ops.py [CASE...] (default: every case). Prints
`RESULT passed=N failed=M`."""

import os
import shutil
import sys
import tempfile

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
    rc, err, out = T.run({"version": 1, "nodes": nodes, "fetch": [key]}, data)
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
    # after a filter the row count is known only when it runs: fetch works,
    # tensor ops are refused with a clear message
    nodes = [CSV, col("ki", "t", "k"), {"key": "m", "op": "greater", "inputs": ["ki", 2]},
             {"key": "fl", "op": "dataframe.filter", "inputs": ["t", "m"]},
             {"key": "tt", "op": "dataframe.to_tensor", "inputs": ["fl"]},
             {"key": "r", "op": "sum", "inputs": ["tt"]}]
    return rejected(data, nodes, "r", ["row count"])


@case
def bom(data, pdf):
    with open(os.path.join(data, "bom.csv"), "wb") as fh:
        fh.write(b"\xef\xbb\xbfa,b\n1,x\n2,y\n3,z\n")
    ref = pd.read_csv(os.path.join(data, "bom.csv"))
    nodes = [{"key": "c", "op": "dataframe.read_csv", "path": "bom.csv", "chunk_bytes": 4},
             col("ca", "c", "a")]
    return check_frames(data, nodes, {"c": ref, "ca": ref.a})


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
            ([{"key": "r", "op": "add", "inputs": ["ss", {"value": "a"}]}], ["comparisons"]),
            ([{"key": "r", "op": "equal", "inputs": ["x", {"value": "a"}]}], ["strings"]),
            ([{"key": "r", "op": "equal", "inputs": ["ss", 3]}], ["strings"]),
            ([{"key": "r", "op": "equal", "inputs": ["z", {"value": "a"}]}], ["string"]),
            ([{"key": "r", "op": "equal", "inputs": ["z", {"valu": "a"}]}], ["literal"])):
        why = rejected(data, base + nodes, "r", words)
        if why:
            return why
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
    for c in CASES:
        if names and c.__name__ not in names:
            continue
        try:
            why = c(data, pdf)
        except Exception as e:  # a crash of the test is a failure, with its reason
            why = "exception %r" % (e,)
        if why:
            failed += 1
            print("FAIL %s: %s" % (c.__name__, why))
        else:
            passed += 1
            print("ok", c.__name__)
    shutil.rmtree(data, ignore_errors=True)
    print("RESULT passed=%d failed=%d" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
