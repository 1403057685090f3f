#!/usr/bin/python3
"""DataFrame ops two by two, each pair compared with pandas 1.5 (pdref.py).

Every producer (a filter, each `how` of a merge, groupby_agg,
groupby_transform by a key that may be missing or not, set_index, sorts,
drop_duplicates, shift, dropna, concat, head, tail, iloc, fillna, a
pivot_table, reset_index, sample, groupby_head, nlargest, replace, astype,
assign, query) feeds every consumer (the reductions, describe, nunique, the
running ops, sorts, drop_duplicates, head, tail, reset_index, fillna,
dropna, round, clip, abs, rank, isna, groupby_agg, value_counts, median,
quantile, to_tensor, concat, merge, nsmallest, cov, std, iloc), over a CSV
of 90 rows in chunks of a few rows. A pair is where the chunks of one frame
can differ: a merge's chunk where no value went missing is int64 beside
float64 chunks, a transform's rows in no group are NaN, a replace may match
in one chunk only. Such pairs gave wrong sums, failed nunique, sorts and
groupbys, and read float64 bits as int64 (round, clip) before this suite.

One document per producer fetches every consumer pandas accepts (a failing
batch is run again pair by pair, so a failure names its pair); a pair that
pandas refuses must be refused by the engine too (exit 2 at validation, or
1 with a message naming the node when it runs), each in a document of its
own. The data avoid what graph-format.md lists as differences: no bool
column (pandas makes one with missing values object, the engine names it
by its values), floats that are multiples of 1/4 (sums exact in any order),
no join on the index (its row order is unspecified here).

Environment: MARS_PAIRS_SEED (default 1), MARS_PAIRS_CHUNK (bytes per chunk,
default 60).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import pdref  # noqa: E402
import test_df  # noqa: E402


def write_data(data, seed):
    rng = np.random.default_rng(seed)
    n = 90
    k = np.array(["a", "b", "c", None], dtype=object)[rng.integers(0, 4, n)]
    x = rng.integers(-8, 8, n) * 0.25
    x[rng.random(n) < 0.2] = np.nan
    pd.DataFrame({"k": k, "g": rng.integers(0, 4, n), "x": x,
                  "y": rng.integers(-20, 20, n)}).to_csv(os.path.join(data, "t.csv"), index=False)
    # "d" is in no row of t: right and outer merges get rows with no left values
    pd.DataFrame({"k": ["a", "b", "d"], "w": [1, 2, 3]}).to_csv(os.path.join(data, "d.csv"),
                                                                index=False)


def df(op, key, inputs, **kw):
    return dict({"key": key, "op": "dataframe." + op, "inputs": inputs}, **kw)


def producers(chunk):
    t = {"key": "t", "op": "dataframe.read_csv", "path": "t.csv", "chunk_bytes": chunk}
    d = {"key": "d", "op": "dataframe.read_csv", "path": "d.csv", "chunk_bytes": 8}
    get = {"key": "s", "op": "dataframe.getitem", "inputs": ["t"], "columns": "y"}
    out = {
        "filter": [get, {"key": "m", "op": "greater", "inputs": ["s", 0]},
                   df("filter", "p", ["t", "m"])],
        "gb": [df("groupby_agg", "p", ["t"], by=["g"],
                  agg={"sx": ["x", "sum"], "my": ["y", "max"], "fk": ["k", "first"]})],
        "gb2": [df("groupby_agg", "p", ["t"], by=["k", "g"],
                   agg={"cx": ["x", "count"], "my": ["y", "mean"]})],
        "tf_k": [df("groupby_transform", "p", ["t"], by=["k"], columns=["y", "x"], func="sum")],
        "tf_g": [df("groupby_transform", "p", ["t"], by=["g"], columns=["y", "x"], func="max")],
        "set_index": [df("set_index", "p", ["t"], keys="g")],
        "sort": [df("sort_values", "p", ["t"], by=["x"])],
        "dedup": [df("drop_duplicates", "p", ["t"], subset=["k"])],
        "shift": [df("shift", "p", ["t"], periods=2)],
        "dropna": [df("dropna", "p", ["t"])],
        "concat": [df("concat", "p", ["t", "t"])],
        "head": [df("head", "p", ["t"], n=40)],
        "tail": [df("tail", "p", ["t"], n=40)],
        "iloc": [df("iloc", "p", ["t"], rows="3:80:2")],
        "ffill": [df("fillna", "p", ["t"], method="ffill")],
        "fillv": [df("fillna", "p", ["t"], value={"x": 0.5})],
        "pivot": [df("pivot_table", "p", ["t"], index=["g"], values=["x", "y"], aggfunc="sum")],
        "reset": [df("set_index", "q", ["t"], keys="g"), df("reset_index", "p", ["q"])],
        "sample": [df("sample", "p", ["t"], frac=0.7, random_state=3)],
        "gb_head": [df("groupby_head", "p", ["t"], by=["k"], n=4)],
        "nlargest": [df("nlargest", "p", ["t"], n=30, columns=["y"])],
        "replace": [df("replace", "p", ["t"], to_replace=3, value=2.5)],
        "astype": [df("astype", "p", ["t"], dtype={"y": "float64"})],
        "assign": [{"key": "s", "op": "dataframe.getitem", "inputs": ["t"], "columns": "x"},
                   {"key": "v", "op": "multiply", "inputs": ["s", 2]},
                   df("assign", "p", ["t", "v"], names=["z"])],
        "query": [df("query", "p", ["t"], expr="y > 0 or x < 0.5")],
    }
    for how in ("left", "right", "outer", "inner"):
        out["merge_" + how] = [d, df("merge", "p", ["t", "d"], on="k", how=how)]
    return t, out


# "C": the producer's first column that is no key, "N": its first numeric one
CONSUMERS = {
    "sum": [df("sum", "z", ["p"])], "mean": [df("mean", "z", ["p"])],
    "describe": [df("describe", "z", ["p"])], "nunique": [df("nunique", "z", ["p"])],
    "cumsum": [df("cumsum", "z", ["p"])], "cummax": [df("cummax", "z", ["p"])],
    "diff": [df("diff", "z", ["p"])], "shift": [df("shift", "z", ["p"], periods=-1)],
    "sort": [df("sort_values", "z", ["p"], by=["C"])], "sort_index": [df("sort_index", "z", ["p"])],
    "dedup": [df("drop_duplicates", "z", ["p"])], "head": [df("head", "z", ["p"], n=7)],
    "tail": [df("tail", "z", ["p"], n=7)], "reset": [df("reset_index", "z", ["p"])],
    "bfill": [df("fillna", "z", ["p"], method="bfill")], "dropna": [df("dropna", "z", ["p"])],
    "round": [df("round", "z", ["p"], decimals=1)], "clip": [df("clip", "z", ["p"], lower=0)],
    "abs": [df("abs", "z", ["p"])], "rank": [df("rank", "z", ["p"])],
    "isna": [df("isna", "z", ["p"])],
    "groupby": [df("groupby_agg", "z", ["p"], by=["C"], agg={"n": ["C", "count"]})],
    "value_counts": [{"key": "c", "op": "dataframe.getitem", "inputs": ["p"], "columns": "C"},
                     df("value_counts", "z", ["c"])],
    "median": [df("median", "z", ["p"])], "quantile": [df("quantile", "z", ["p"], q=0.3)],
    "to_tensor": [df("to_tensor", "z", ["p"])], "concat": [df("concat", "z", ["p", "p"])],
    "merge": [{"key": "d2", "op": "dataframe.read_csv", "path": "d.csv", "chunk_bytes": 8},
              df("merge", "z", ["p", "d2"], on="k", how="left")],
    "nsmallest": [df("nsmallest", "z", ["p"], n=5, columns=["N"])],
    "cov": [df("cov", "z", ["p"])], "std": [df("std", "z", ["p"])],
    "iloc": [df("iloc", "z", ["p"], rows=":5")],
}

# Refusals that graph-format.md documents where pandas computes something:
# running ops and clip of string columns (pandas concatenates or compares
# the strings), a merge on an index level name.
DOCUMENTED_REFUSALS = ("takes numbers", "clip takes numbers", "no column 'k' in the input")


def consumer_nodes(name, value, tag):
    """The consumer's nodes with its keys prefixed (tag) for a batch, or
    None when the producer has no column it needs."""
    text = json.dumps(CONSUMERS[name])
    if isinstance(value, pd.DataFrame):
        cols = [c for c in value.columns if c != "k"]
        nums = [c for c in value.columns if str(value[c].dtype) in ("int64", "float64")]
    else:
        cols = nums = []
    if '"C"' in text:
        if not cols:
            return None
        text = text.replace('"C"', json.dumps(str(cols[0])))
    if '"N"' in text:
        if not nums:
            return None
        text = text.replace('"N"', json.dumps(str(nums[0])))
    nodes = json.loads(text)
    for nd in nodes:
        nd["key"] = tag + nd["key"]
        nd["inputs"] = [i if i == "p" else tag + i for i in nd.get("inputs", [])]
    return nodes


def compare(got, want):
    if isinstance(want, np.ndarray) or np.isscalar(want):
        want = np.asarray(want)
        if not isinstance(got, np.ndarray) or got.shape != want.shape:
            return "tensor %r vs pandas %r" % (got, want)
        if not np.allclose(got.astype(float), want.astype(float), equal_nan=True, rtol=1e-12):
            return "tensor %r vs pandas %r" % (got, want)
        return ""
    return test_df.expect_frame(got, want)


def run(doc, data):
    out = tempfile.mkdtemp(prefix="mars-pairs-")
    p = subprocess.run([harness.mars_run_path(), "-", "-o", out, "--data-dir", data],
                       input=harness.dumps(doc).encode(), capture_output=True,
                       timeout=harness.RUN_TIMEOUT)
    return p.returncode, p.stderr.decode(), out


def judge(suite, case, base, cname, nodes, why):
    if why:
        suite.fail(case, why, {"version": 1, "nodes": base + nodes, "fetch": [cname + ".z"]})
    else:
        suite.ok(case)


def judge_alone(suite, case, base, consumer, data):
    """A consumer in a document of its own with its producer: its result, or
    a refusal the docs name."""
    cname, nodes, want = consumer
    alone = {"version": 1, "nodes": base + nodes, "fetch": [cname + ".z"]}
    rc, msg, out = run(alone, data)
    try:
        if rc != 0:
            if any(w in msg for w in DOCUMENTED_REFUSALS) and rc == 2:
                suite.ok(case + "/documented-refusal")
            else:
                suite.fail(case, "exit %d: %s" % (rc, msg.strip()[-300:]), alone)
            return
        judge(suite, case, base, cname, nodes, compare(test_df.load(out, cname + ".z"), want))
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main():
    seed = int(os.environ.get("MARS_PAIRS_SEED", "1"))
    chunk = int(os.environ.get("MARS_PAIRS_CHUNK", "60"))
    suite = harness.Suite("test_df_pairs")
    data = tempfile.mkdtemp(prefix="mars-pairs-data-")
    try:
        write_data(data, seed)
        t, prods = producers(chunk)
        for pname, pnodes in prods.items():
            base = [t] + pnodes
            try:
                pv = pdref.evaluate({"version": 1, "nodes": base, "fetch": ["p"]}, data)["p"]
            except Exception as e:  # noqa: BLE001
                suite.fail(pname, "pandas refuses the producer: %s" % e)
                continue
            batch, refused = [], []
            for cname in CONSUMERS:
                tag = "%s." % cname
                nodes = consumer_nodes(cname, pv, tag)
                if nodes is None:
                    continue
                doc = {"version": 1, "nodes": base + nodes, "fetch": [tag + "z"]}
                try:
                    want = pdref.evaluate(doc, data)[tag + "z"]
                    batch.append((cname, nodes, want))
                except Exception as e:  # noqa: BLE001
                    refused.append((cname, doc, str(e)))
            # the consumers pandas accepts: one document, each result compared;
            # a consumer the engine refuses is named by the message: judged
            # alone, and the document run again without it
            while batch:
                doc = {"version": 1, "nodes": base + [n for _, ns, _ in batch for n in ns],
                       "fetch": ["%s.z" % c for c, _, _ in batch]}
                rc, msg, out = run(doc, data)
                try:
                    if rc == 0:
                        for cname, nodes, want in batch:
                            judge(suite, "%s/%s" % (pname, cname), base, cname, nodes,
                                  compare(test_df.load(out, cname + ".z"), want))
                        break
                finally:
                    shutil.rmtree(out, ignore_errors=True)
                named = [c for c in batch if ('node "%s.' % c[0]) in msg]
                for c in named or batch:  # no consumer named: each alone
                    judge_alone(suite, "%s/%s" % (pname, c[0]), base, c, data)
                batch = [c for c in batch if c not in named] if named else []
            # the consumers pandas refuses: the engine must refuse them too
            for cname, doc, perr in refused:
                case = "%s/%s/refused" % (pname, cname)
                rc1, msg1, out1 = run(doc, data)
                shutil.rmtree(out1, ignore_errors=True)
                if harness.refused(rc1, msg1):
                    suite.ok(case)
                else:
                    suite.fail(case, "pandas refuses it (%s), mars-run exit %d" % (perr[:120], rc1),
                               doc)
    finally:
        shutil.rmtree(data, ignore_errors=True)
    suite.finish()


if __name__ == "__main__":
    main()
