#!/usr/bin/python3
"""DataFrames through the cluster's REST API: a CSV uploaded with
PUT /api/v1/files/{name}, then read_csv, filter, groupby (tree and shuffle),
sort, merge, reductions, head and to_tensor as one task on a two-worker
cluster. Every result is compared with pandas and with mars-run's output
for the same document (DIR/KEY.json); a DataFrame also comes back as CSV
(Accept: text/csv), and the metadata route names its kind and columns.

DataFrames of one task are inputs of a later one (frames-across-tasks),
datetime columns included (dates-across-tasks). Joins on the index come in
pandas' order, sorted by key or not as the data says, and join's on= keeps
left's index (index-join-order, tests/diff/test_index_join_order.py's
cases; MARS_IJ_SEED). An outer merge where a side has no rows keeps the
other's order, the workers sending each chunk's row count (outer-empty,
test_merge_order.py's cases).

Run with Debian's python: /usr/bin/python3 tests/integration/test_df_cluster.py
(MARS_BIN_DIR=build/san/bin runs it over the sanitized programs).

random-chains-parity runs the differential suite's random DataFrame chains
(tests/diff/test_random_df_graphs.py) through the cluster and compares each
with mars-run's JSON: MARS_DF_PARITY_SEED (default 7001),
MARS_DF_PARITY_GRAPHS (default 80; chain 59 of seed 7001 found a worker bug).
"""
import io
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from harness import BIN_DIR, Cluster, Runner, check, get, request  # noqa: E402
from test_cluster_parity import run_task, session, start_cluster  # noqa: E402

sys.path.append(os.path.join(ROOT, "tests", "diff"))
import test_df  # noqa: E402
import test_df3  # noqa: E402
import test_dates  # noqa: E402
import test_index_join_order  # noqa: E402
import test_merge_order  # noqa: E402
import test_random_df_graphs  # noqa: E402

MARS_RUN = os.path.join(BIN_DIR, "mars-run")


def make_csv(path):
    rng = np.random.default_rng(11)
    test_df.gen_csv(path, rng, 1500)
    return pd.read_csv(path)


def document():
    nodes = [
        {"key": "c", "op": "dataframe.read_csv", "path": "t.csv", "chunk_bytes": 2000},
        {"key": "ci", "op": "dataframe.getitem", "inputs": ["c"], "columns": "i"},
        {"key": "m", "op": "less", "inputs": ["ci", 10]},
        {"key": "cf", "op": "dataframe.filter", "inputs": ["c", "m"]},
        {"key": "gb", "op": "dataframe.groupby_agg", "inputs": ["c"], "by": ["k"],
         "agg": {"n": ["i", "sum"], "mf": ["f", "mean"], "u": ["s", "nunique"]}},
        {"key": "gbs", "op": "dataframe.groupby_agg", "inputs": ["cf"], "by": ["s", "b"],
         "agg": {"n": ["i", "size"], "x": ["f", "max"]}},
        {"key": "so", "op": "dataframe.sort_values", "inputs": ["cf"], "by": ["f", "i"],
         "ascending": [False, True]},
        {"key": "r", "op": "dataframe.read_csv", "path": "r.csv", "chunk_bytes": 40},
        {"key": "me", "op": "dataframe.merge", "inputs": ["cf", "r"], "on": ["k"],
         "how": "outer"},
        {"key": "mq", "op": "dataframe.query", "inputs": ["me"], "expr": "i < 0"},
        {"key": "su", "op": "dataframe.sum", "inputs": ["c"]},
        {"key": "sd", "op": "dataframe.std", "inputs": ["ci"]},
        {"key": "hd", "op": "dataframe.head", "inputs": ["cf"], "n": 9},
        {"key": "tt", "op": "dataframe.to_tensor", "inputs": ["hd"]},
        {"key": "de", "op": "dataframe.describe", "inputs": ["c"]},
    ]
    return {"version": 1, "nodes": nodes,
            "fetch": ["gb", "gbs", "so", "me", "mq", "su", "sd", "hd", "tt", "de"]}


def right(pdf):
    r = pdf.groupby("k").agg(tot=("f", "sum")).reset_index()
    return r[r.k != "k2"]


def refs(pdf):
    cf = pdf[pdf.i < 10]
    gb = pdf.groupby(["k"]).agg(n=("i", "sum"), mf=("f", "mean"), u=("s", "nunique"))
    return {
        "gb": gb,
        "gbs": cf.groupby(["s", "b"]).agg(n=("i", "size"), x=("f", "max")),
        "so": cf.sort_values(["f", "i"], ascending=[False, True], kind="mergesort"),
        "me": cf.merge(right(pdf), on=["k"], how="outer"),
        # the outer merge's own order and index, kept by a query after it
        "mq": cf.merge(right(pdf), on=["k"], how="outer").query("i < 0"),
        "su": pdf.sum(numeric_only=True),
        "sd": pdf.i.std(),
        "hd": cf.head(9),
        "de": pdf.describe(),
    }


def main():
    run = Runner()
    data = tempfile.mkdtemp(prefix="dfc_")
    path = os.path.join(data, "t.csv")
    pdf = make_csv(path)
    right(pdf).to_csv(os.path.join(data, "r.csv"), index=False)
    doc = document()
    out = tempfile.mkdtemp(prefix="dfc_out_")
    p = subprocess.run([MARS_RUN, "-", "-o", out, "--data-dir", data],
                       input=json.dumps(doc).encode(), capture_output=True)
    check(p.returncode == 0, "mars-run: %s", p.stderr.decode())
    want = refs(pdf)
    with Cluster() as c:
        web, _ = start_cluster(c, [1, 1])
        def upload():
            for name in ("t.csv", "r.csv"):
                with open(os.path.join(data, name), "rb") as f:
                    body = f.read()
                r = request("PUT", web, "/api/v1/files/" + name, body=body,
                            headers={"Content-Type": "text/csv"})
                check(r.status == 201, "upload: %r", r)
        run.case("upload", upload)
        sid = session(web)

        def rejected():
            bad = {"version": 1, "nodes": [{"key": "r", "op": "dataframe.read_csv",
                                            "path": "nope.csv"}], "fetch": ["r"]}
            r = request("POST", web, "/api/v1/sessions/%s/tasks" % sid,
                        body=json.dumps(bad).encode(), headers={"Content-Type": "application/json"})
            check(r.status == 400 and 'node \\"r\\"' in r.body.decode(), "missing file: %r", r)
            bad["nodes"][0]["path"] = "../t.csv"
            r = request("POST", web, "/api/v1/sessions/%s/tasks" % sid,
                        body=json.dumps(bad).encode(), headers={"Content-Type": "application/json"})
            check(r.status == 400, "..: %r", r)
        run.case("rejected", rejected)

        def glob_files():
            # read_csv over a pattern of uploaded files: sorted by name, one
            # frame with a continuous index, as pd.concat of each file's read
            parts = {"part-2.csv": pdf.iloc[150:], "part-0.csv": pdf.iloc[:70],
                     "part-1.csv": pdf.iloc[70:150], "other.csv": pdf.iloc[:3]}
            for name, part in parts.items():
                r = request("PUT", web, "/api/v1/files/" + name,
                            body=part.to_csv(index=False).encode(),
                            headers={"Content-Type": "text/csv"})
                check(r.status == 201, "upload %s: %r", name, r)
            d = {"version": 1, "nodes": [
                {"key": "g", "op": "dataframe.read_csv", "path": "part-*.csv", "chunk_bytes": 700},
                {"key": "s", "op": "dataframe.groupby_agg", "inputs": ["g"], "by": ["k"],
                 "agg": {"n": ["i", "count"], "t": ["f", "sum"]}}], "fetch": ["g", "s"]}
            _, t = run_task(web, sid, d)
            check(t["status"] == "succeeded", "task: %r", t)
            union = pd.concat([pd.read_csv(io.StringIO(parts[n].to_csv(index=False)))
                               for n in sorted(x for x in parts if x.startswith("part-"))],
                              ignore_index=True)
            for key, ref in (("g", union),
                             ("s", union.groupby(["k"]).agg(n=("i", "count"), t=("f", "sum")))):
                r = get(web, "/api/v1/sessions/%s/tensors/%s/data" % (sid, key))
                check(r.status == 200, "data %s: %r", key, r)
                why = test_df.expect_frame(r.json(), ref)
                check(not why, "%s: %s", key, why)
            bad = {"version": 1, "nodes": [{"key": "r", "op": "dataframe.read_csv",
                                            "path": "nope-*.csv"}], "fetch": ["r"]}
            r = request("POST", web, "/api/v1/sessions/%s/tasks" % sid,
                        body=json.dumps(bad).encode(), headers={"Content-Type": "application/json"})
            check(r.status == 400 and "no file matches" in r.body.decode(), "no match: %r", r)
        run.case("glob_files", glob_files)

        res = {}

        def task():
            _, t = run_task(web, sid, doc)
            check(t["status"] == "succeeded", "task: %r", t)
        if not run.case("task", task):
            return run.finish()
        for key in doc["fetch"]:
            def one(key=key):
                if key == "sd":
                    r = get(web, "/api/v1/sessions/%s/tensors/%s/data?format=npy" % (sid, key))
                    check(r.status == 200, "data: %r", r)
                    v = np.load(io.BytesIO(r.body))
                    check(abs(float(v) - want[key]) < 1e-9 * abs(want[key]), "%r vs %r", v,
                          want[key])
                    check(np.array_equal(v, np.load(os.path.join(out, key + ".npy"))),
                          "differs from mars-run")
                    return
                if key == "tt":
                    r = get(web, "/api/v1/sessions/%s/tensors/%s/data?format=npy" % (sid, key))
                    check(r.status == 200, "data: %r", r)
                    v = np.load(io.BytesIO(r.body))
                    check(np.array_equal(v, np.load(os.path.join(out, key + ".npy")),
                                         equal_nan=True), "differs from mars-run")
                    w = want["hd"][["i", "f", "b"]].to_numpy().astype(float)
                    check(np.allclose(v, w, equal_nan=True), "%r vs %r", v, w)
                    return
                r = get(web, "/api/v1/sessions/%s/tensors/%s/data" % (sid, key))
                check(r.status == 200, "data: %r", r)
                got = r.json()
                res[key] = got
                why = test_df.expect_frame(got, want[key], sort_rows=False)
                check(not why, "%s", why)
                check(got.get("index_names") == list(want[key].index.names),
                      "index_names %r vs %r", got.get("index_names"), list(want[key].index.names))
                with open(os.path.join(out, key + ".json")) as f:
                    mine = json.load(f)
                if key != "me":  # merge: the order of rows is not specified
                    check(test_df.same([got["index"], got["data"]],
                                       [mine["index"], mine["data"]]), "differs from mars-run")
            run.case("result-" + key, one)

        def csv_and_meta():
            r = get(web, "/api/v1/sessions/%s/tensors/hd/data" % sid,
                    headers={"Accept": "text/csv"})
            check(r.status == 200 and r.headers.get("content-type", "").startswith("text/csv"),
                  "csv: %r", r)
            back = pd.read_csv(io.StringIO(r.body.decode()), index_col=0)
            ref = want["hd"]
            check(list(back.columns) == list(ref.columns), "csv columns %r", list(back.columns))
            check(back.index.tolist() == ref.index.tolist(), "csv index")
            check(np.allclose(back.f.to_numpy(), ref.f.to_numpy(), equal_nan=True), "csv f")
            # the text itself is pandas' to_csv
            for key in ("hd", "gbs"):  # exact values (no float sums)
                r = get(web, "/api/v1/sessions/%s/tensors/%s/data?format=csv" % (sid, key))
                check(r.status == 200, "csv of %s: %r", key, r)
                check(r.body.decode() == want[key].to_csv(), "csv of %s: %r vs pandas %r", key,
                      r.body.decode()[:300], want[key].to_csv()[:300])
            m = get(web, "/api/v1/sessions/%s/tensors/gb" % sid).json()
            check(m["kind"] == "dataframe" and m["columns"] == ["n", "mf", "u"], "meta %r", m)
            check(m["dtypes"] == {"n": "int64", "mf": "float64", "u": "int64"}, "meta %r", m)
            m = get(web, "/api/v1/sessions/%s/tensors/su" % sid).json()
            check(m["kind"] == "series", "meta %r", m)
        run.case("csv-and-metadata", csv_and_meta)

        def session_tensor():
            # a tensor uploaded to the session, as a DataFrame's input
            a = np.arange(3000, dtype=np.float64).reshape(1000, 3) % 7
            f = io.BytesIO()
            np.save(f, a)
            r = request("POST", web, "/api/v1/sessions/%s/tensors?key=up&chunk_size=300" % sid,
                        body=f.getvalue())
            check(r.status == 201, "upload: %r", r)
            d = {"version": 1, "nodes": [
                {"key": "udf", "op": "dataframe.from_tensor", "inputs": ["up"],
                 "columns": ["p", "q", "r"], "chunk_rows": 250},
                {"key": "um", "op": "dataframe.mean", "inputs": ["udf"]}], "fetch": ["um"]}
            _, t = run_task(web, sid, d)
            check(t["status"] == "succeeded", "task: %r", t)
            got = get(web, "/api/v1/sessions/%s/tensors/um/data" % sid).json()
            why = test_df.expect_frame(got, pd.DataFrame(a, columns=["p", "q", "r"]).mean())
            check(not why, "%s", why)
        run.case("session-tensor", session_tensor)

        def frames_across_tasks():
            # DataFrames and Series of an earlier task are inputs of a later one
            d = {"version": 1, "nodes": [
                {"key": "z", "op": "dataframe.sum", "inputs": ["gb"]},
                {"key": "g2", "op": "dataframe.groupby_agg", "inputs": ["so"], "by": ["k", "b"],
                 "agg": {"n": ["i", "count"]}},
                {"key": "ks", "op": "dataframe.getitem", "inputs": ["so"], "columns": "k"},
                {"key": "eq", "op": "equal", "inputs": ["ks", {"value": "k1"}]},
                {"key": "fl", "op": "dataframe.filter", "inputs": ["so", "eq"]},
                {"key": "h", "op": "dataframe.head", "inputs": ["fl"], "n": 7},
                {"key": "ss", "op": "dataframe.sum", "inputs": ["su"]},
                {"key": "fw", "op": "dataframe.fillna", "inputs": ["so"], "method": "ffill"},
                {"key": "bw", "op": "dataframe.fillna", "inputs": ["so"], "method": "bfill"},
                {"key": "dn", "op": "dataframe.dropna", "inputs": ["so"], "subset": ["f", "s"]},
                {"key": "rp", "op": "dataframe.replace", "inputs": ["so"], "to_replace": "k1",
                 "value": "K1"},
                {"key": "ri", "op": "dataframe.reset_index", "inputs": ["so"]},
                {"key": "dd", "op": "dataframe.drop_duplicates", "inputs": ["so"],
                 "subset": ["k", "b"], "keep": "last"},
                {"key": "tl", "op": "dataframe.tail", "inputs": ["so"], "n": 11},
                {"key": "si", "op": "dataframe.sort_index", "inputs": ["so"]},
                {"key": "sa", "op": "dataframe.sample", "inputs": ["so"], "n": 25,
                 "random_state": 3},
                {"key": "nm", "op": "dataframe.getitem", "inputs": ["so"],
                 "columns": ["i", "f"]},
                {"key": "cs", "op": "dataframe.cumsum", "inputs": ["nm"]},
                {"key": "df", "op": "dataframe.diff", "inputs": ["nm"], "periods": 2},
                {"key": "sh", "op": "dataframe.shift", "inputs": ["so"], "periods": -3},
                {"key": "rl", "op": "dataframe.rolling", "inputs": ["nm"], "window": 5,
                 "min_periods": 2, "agg": "std"},
                {"key": "sk", "op": "dataframe.getitem", "inputs": ["so"], "columns": "k"},
                {"key": "su2", "op": "dataframe.str.upper", "inputs": ["sk"]},
                {"key": "sc", "op": "dataframe.str.contains", "inputs": ["sk"],
                 "pat": "k[1-3]"},
                {"key": "md", "op": "dataframe.median", "inputs": ["nm"]},
                {"key": "vc", "op": "dataframe.value_counts", "inputs": ["sk"]},
                {"key": "cc", "op": "dataframe.concat", "inputs": ["so", "so"]},
                {"key": "qy", "op": "dataframe.query", "inputs": ["so"],
                 "expr": "f > 0 and k in ['k1', 'k2'] or i < -40"},
                {"key": "ev", "op": "dataframe.eval", "inputs": ["so"], "expr": "i * 2 - f"}],
                "fetch": ["z", "g2", "h", "ss", "fw", "bw", "dn", "rp", "ri", "dd", "tl", "si",
                          "sa", "cs", "df", "sh", "rl", "su2", "sc", "md", "vc", "cc", "qy", "ev"]}
            _, t = run_task(web, sid, d)
            check(t["status"] == "succeeded", "task: %r", t)
            pw = {"z": want["gb"].sum(numeric_only=True),
                  "g2": want["so"].groupby(["k", "b"]).agg(n=("i", "count")),
                  "h": want["so"][want["so"].k == "k1"].head(7),
                  "fw": want["so"].ffill(), "bw": want["so"].bfill(),
                  "dn": want["so"].dropna(subset=["f", "s"]),
                  "rp": want["so"].replace("k1", "K1"), "ri": want["so"].reset_index(),
                  "dd": want["so"].drop_duplicates(subset=["k", "b"], keep="last"),
                  "tl": want["so"].tail(11), "si": want["so"].sort_index(kind="mergesort"),
                  "sa": want["so"].sample(n=25, random_state=3),
                  "cs": want["so"][["i", "f"]].cumsum(), "df": want["so"][["i", "f"]].diff(2),
                  "sh": want["so"].shift(-3),
                  "rl": want["so"][["i", "f"]].rolling(5, min_periods=2).std(),
                  "su2": want["so"].k.str.upper(), "sc": want["so"].k.str.contains("k[1-3]"),
                  "md": want["so"][["i", "f"]].median(), "vc": want["so"].k.value_counts(),
                  "cc": pd.concat([want["so"], want["so"]]),
                  "qy": want["so"].query("f > 0 and k in ['k1', 'k2'] or i < -40"),
                  "ev": want["so"].eval("i * 2 - f").rename(None)}
            for key, ref in pw.items():
                got = get(web, "/api/v1/sessions/%s/tensors/%s/data" % (sid, key)).json()
                why = test_df.expect_frame(got, ref)
                check(not why, "%s: %s", key, why)
                check(got.get("index_names") == list(ref.index.names), "%s index_names %r", key,
                      got.get("index_names"))
            r = get(web, "/api/v1/sessions/%s/tensors/ss/data?format=npy" % sid)
            v = np.load(io.BytesIO(r.body))
            w = want["su"].sum()
            check(abs(float(v) - w) <= 1e-9 * abs(w), "ss %r vs %r", v, w)
        run.case("frames-across-tasks", frames_across_tasks)

        def df3_joins():
            # df3: merge by left_on/right_on and on the index, join, concat along the columns
            # (chunk by chunk and aligned in one job), over session frames and a new read
            recs = [{"k": "k%d" % (i % 4), "v": i * 0.25, "n": i} for i in range(40)]
            r = request("PUT", web, "/api/v1/files/j.json", body=json.dumps(recs).encode(),
                        headers={"Content-Type": "application/json"})
            check(r.status == 201, "upload: %r", r)
            d = {"version": 1, "nodes": [
                {"key": "rj", "op": "dataframe.read_json", "path": "j.json",
                 "orient": "records"},
                {"key": "rjg", "op": "dataframe.groupby_transform", "inputs": ["rj"], "by": "k",
                 "func": "sum"},
                {"key": "r2", "op": "dataframe.read_csv", "path": "r.csv", "chunk_bytes": 40},
                {"key": "ri2", "op": "dataframe.set_index", "inputs": ["r2"], "keys": ["k"]},
                {"key": "ml", "op": "dataframe.merge", "inputs": ["so", "r2"], "left_on": "k",
                 "right_on": "k", "how": "left"},
                # r.csv in one chunk: read whole by each chunk of so (DFJ_MERGE_BCAST)
                {"key": "r1", "op": "dataframe.read_csv", "path": "r.csv",
                 "chunk_bytes": 1000000},
                {"key": "mb", "op": "dataframe.merge", "inputs": ["so", "r1"], "on": "k",
                 "how": "left"},
                {"key": "mbq", "op": "dataframe.query", "inputs": ["mb"], "expr": "i % 3 == 1"},
                {"key": "mbr", "op": "dataframe.merge", "inputs": ["r1", "so"], "on": "k",
                 "how": "right"},
                # inner, seen in order: each row's place planned ahead (tile_merge_keyed)
                {"key": "mbi", "op": "dataframe.merge", "inputs": ["so", "r1"], "on": "k",
                 "how": "inner"},
                {"key": "mbiq", "op": "dataframe.query", "inputs": ["mbi"], "expr": "i % 3 == 1"},
                {"key": "ms", "op": "dataframe.merge", "inputs": ["so", "gb"], "left_on": "i",
                 "right_on": "n", "how": "outer", "suffixes": ["_l", "_r"]},
                {"key": "mx", "op": "dataframe.merge", "inputs": ["gb", "ri2"],
                 "left_index": True, "right_index": True, "how": "inner"},
                {"key": "jn", "op": "dataframe.join", "inputs": ["gb", "ri2"], "how": "outer"},
                {"key": "nm2", "op": "dataframe.getitem", "inputs": ["so"], "columns": ["i", "f"]},
                {"key": "sk2", "op": "dataframe.getitem", "inputs": ["so"], "columns": "k"},
                {"key": "ca", "op": "dataframe.concat", "inputs": ["nm2", "sk2"], "axis": 1},
                {"key": "cb", "op": "dataframe.concat", "inputs": ["gb", "ri2"], "axis": 1},
                {"key": "p1", "op": "dataframe.pivot_table", "inputs": ["so"], "values": "i",
                 "index": "s", "columns": "k", "aggfunc": "count"},
                {"key": "p2", "op": "dataframe.pivot_table", "inputs": ["so"],
                 "values": ["f", "i"], "index": ["k", "b"], "aggfunc": "mean",
                 "fill_value": 0},
                {"key": "gs", "op": "dataframe.groupby_size", "inputs": ["so"], "by": ["k", "b"]},
                {"key": "gq", "op": "dataframe.groupby_quantile", "inputs": ["so"], "by": "k",
                 "q": 0.25},
                {"key": "gt", "op": "dataframe.groupby_transform", "inputs": ["so"], "by": "s",
                 "func": "mean"},
                {"key": "gh", "op": "dataframe.groupby_head", "inputs": ["so"], "by": "k",
                 "n": 2},
                {"key": "gl", "op": "dataframe.groupby_tail", "inputs": ["so"], "by": "k",
                 "n": 3},
                # transformation kernels: a frame, and a Series of positions
                {"key": "gc", "op": "dataframe.groupby_transform", "inputs": ["so"], "by": "s",
                 "func": "cumsum", "columns": ["i", "f"]},
                {"key": "gf", "op": "dataframe.groupby_transform", "inputs": ["so"], "by": "k",
                 "func": "shift", "periods": -1},
                {"key": "gn", "op": "dataframe.groupby_transform", "inputs": ["so"], "by": "k",
                 "func": "cumcount", "ascending": False}],
                "fetch": ["ml", "mb", "mbq", "mbr", "mbi", "mbiq", "ms", "mx", "jn", "ca", "cb", "p1", "p2", "gs", "gq", "gt", "gh",
                          "gl", "rj", "rjg", "gc", "gf", "gn"]}
            _, t = run_task(web, sid, d)
            check(t["status"] == "succeeded", "task: %r", t)
            so, gb = want["so"], want["gb"]
            ri = right(pdf).set_index("k")
            # a left merge on columns comes in pandas' row order (DFJ_MERGE_ORDER)
            mb = so.merge(right(pdf), on="k", how="left")
            pw = {"ml": (so.merge(right(pdf), left_on="k", right_on="k", how="left"), "exact"),
                  "mb": (mb, "exact"), "mbq": (mb.query("i % 3 == 1"), "exact"),
                  "mbr": (right(pdf).merge(so, on="k", how="right"), "exact"),
                  "mbi": (so.merge(right(pdf), on="k"), "exact"),
                  "mbiq": (so.merge(right(pdf), on="k").query("i % 3 == 1"), "exact"),
                  "ms": (so.merge(gb, left_on="i", right_on="n", how="outer",
                                  suffixes=("_l", "_r")), "rows"),
                  "mx": (gb.merge(ri, left_index=True, right_index=True), "index"),
                  "jn": (gb.join(ri, how="outer"), "index"),
                  "ca": (pd.concat([so[["i", "f"]], so.k], axis=1), "exact"),
                  "cb": (pd.concat([gb, ri], axis=1), "exact"),
                  "p1": (pd.pivot_table(so, values="i", index="s", columns="k",
                                        aggfunc="count"), "exact"),
                  "p2": (pd.pivot_table(so, values=["f", "i"], index=["k", "b"],
                                        aggfunc="mean", fill_value=0), "exact"),
                  "gq": (so.groupby("k")[["i", "f"]].quantile(0.25), "exact"),
                  "gt": (so.groupby("s")[["i", "f"]].transform("mean"), "exact"),
                  "gh": (so.groupby("k").head(2), "exact"),
                  "gl": (so.groupby("k").tail(3), "exact"),
                  "gc": (so.groupby("s")[["i", "f"]].cumsum(), "exact"),
                  "gf": (so.groupby("k").shift(-1), "exact"),
                  "rj": (pd.DataFrame(recs), "exact"),
                  "rjg": (pd.DataFrame(recs).groupby("k")[["v", "n"]].transform("sum"),
                          "exact")}
            got = get(web, "/api/v1/sessions/%s/tensors/gs/data" % sid).json()
            why = test_df.expect_frame(got, so.groupby(["k", "b"]).size())
            check(not why, "gs: %s", why)
            got = get(web, "/api/v1/sessions/%s/tensors/gn/data" % sid).json()
            why = test_df.expect_frame(got, so.groupby("k").cumcount(ascending=False))
            check(not why, "gn: %s", why)
            for key, (ref, order) in pw.items():
                got = get(web, "/api/v1/sessions/%s/tensors/%s/data" % (sid, key)).json()
                why = test_df3.same_rows(got, ref, order)
                check(not why, "%s: %s", key, why)
        run.case("df3-joins", df3_joins)

        def small_inline_merges():
            # chunks small enough to live in Redis (inline): a planned inner
            # merge's part job reads a whole chunk, then a part of the plan's
            # pack; the worker fetched the part while the chunk's GET was
            # queued and failed the task ("appended commands not flushed").
            # The data and graph of the random chain that found it.
            import random
            rng = random.Random(7001 * 1000 + 59)
            csv, dim = test_random_df_graphs.write_data(rng, data, 59)
            for name in (csv, dim):
                with open(os.path.join(data, name), "rb") as f:
                    r = request("PUT", web, "/api/v1/files/" + name, body=f.read(),
                                headers={"Content-Type": "text/csv"})
                check(r.status == 201, "upload %s: %r", name, r)
            sm = pd.read_csv(os.path.join(data, csv))
            dm = pd.read_csv(os.path.join(data, dim))
            nodes = [{"key": "s", "op": "dataframe.read_csv", "path": csv, "chunk_bytes": 150},
                     {"key": "d", "op": "dataframe.read_csv", "path": dim,
                      "chunk_bytes": 100000},
                     {"key": "m", "op": "dataframe.merge", "inputs": ["s", "d"], "on": "k",
                      "how": "inner"},
                     {"key": "n", "op": "dataframe.nlargest", "inputs": ["m"], "n": 1,
                      "columns": ["y"]},
                     {"key": "t", "op": "dataframe.groupby_tail", "inputs": ["n"], "by": ["g"],
                      "n": 2},
                     {"key": "q", "op": "dataframe.query", "inputs": ["m"], "expr": "y > -20"}]
            m = sm.merge(dm, on="k")
            want = {"t": m.nlargest(1, "y").groupby(["g"]).tail(2), "q": m.query("y > -20")}
            _, t = run_task(web, sid, {"version": 1, "nodes": nodes, "fetch": list(want)})
            check(t["status"] == "succeeded", "task: %r", t)
            for key, ref in want.items():
                got = get(web, "/api/v1/sessions/%s/tensors/%s/data" % (sid, key)).json()
                why = test_df.expect_frame(got, ref)
                check(not why, "%s: %s", key, why)
        run.case("small-inline-merges", small_inline_merges)

        def random_chains():
            # the differential suite's random DataFrame chains through the
            # cluster: each result equals mars-run's JSON byte for byte, or
            # both refuse the graph (400, or a failed task where mars-run
            # exits 1)
            import random
            seed = int(os.environ.get("MARS_DF_PARITY_SEED", "7001"))
            count = int(os.environ.get("MARS_DF_PARITY_GRAPHS", "80"))
            cases = []
            for gid in range(count):
                rng = random.Random(seed * 1000 + gid)
                names = test_random_df_graphs.write_data(rng, data, 1000 + gid)
                g = test_random_df_graphs.Gen(rng, gid, names[0], names[1])
                for _ in range(rng.randint(1, 5)):
                    g.step()
                g.finish()
                cases.append((gid, g.doc(), g.cur, names))
                for name in names:
                    with open(os.path.join(data, name), "rb") as f:
                        r = request("PUT", web, "/api/v1/files/" + name, body=f.read(),
                                    headers={"Content-Type": "text/csv"})
                    check(r.status == 201, "upload %s: %r", name, r)
            bad = []
            for gid, doc, cur, _ in cases:
                out = tempfile.mkdtemp(prefix="dfc_rc_")
                p = subprocess.run([MARS_RUN, "-", "-o", out, "--data-dir", data],
                                   input=json.dumps(doc).encode(), capture_output=True)
                r = request("POST", web, "/api/v1/sessions/%s/tasks" % sid,
                            body=json.dumps(doc).encode(),
                            headers={"Content-Type": "application/json"})
                if r.status == 400:
                    if p.returncode != 2:
                        bad.append("g%d: 400 where mars-run exits %d" % (gid, p.returncode))
                    continue
                if r.status != 202:
                    bad.append("g%d: submit %d" % (gid, r.status))
                    continue
                tid = r.json()["task_id"]
                while True:
                    t = get(web, "/api/v1/sessions/%s/tasks/%s?wait=20" % (sid, tid),
                            timeout=40).json()
                    if t["status"] not in ("pending", "running"):
                        break
                if p.returncode != 0:
                    if not (p.returncode == 1 and t["status"] == "failed"):
                        bad.append("g%d: task %s where mars-run exits %d" % (
                            gid, t["status"], p.returncode))
                    continue
                if t["status"] != "succeeded":
                    bad.append("g%d: task %s: %s" % (gid, t["status"], t.get("error")))
                    continue
                got = get(web, "/api/v1/sessions/%s/tensors/%s/data" % (sid, cur)).json()
                with open(os.path.join(out, cur + ".json")) as f:
                    want = json.load(f)
                if got != want:
                    bad.append("g%d: %s vs mars-run %s; doc %s" % (
                        gid, json.dumps(got)[:200], json.dumps(want)[:200], json.dumps(doc)))
            check(not bad, "%d of %d chains: %s", len(bad), len(cases), "; ".join(bad)[:3000])
        run.case("random-chains-parity", random_chains)

        def index_join_order():
            # joins on the index in pandas' order, sorted or not as the
            # data says (DFJ_JOIN_KEYS packs, DFJ_JOIN_CHECK reading a part
            # of each from the workers, the splitters deciding): the
            # differential suite's random cases, ten joins to a task
            rng = np.random.default_rng(int(os.environ.get("MARS_IJ_SEED", "4242")))
            cases = [test_index_join_order.draw_case(rng, i, data) for i in range(60)]
            for c in cases:
                for name in c.files:
                    with open(os.path.join(data, name), "rb") as f:
                        r = request("PUT", web, "/api/v1/files/" + name, body=f.read(),
                                    headers={"Content-Type": "text/csv"})
                    check(r.status == 201, "upload %s: %r", name, r)
            bad = []
            for b in range(0, len(cases), 10):
                batch = cases[b:b + 10]
                doc = {"version": 1, "nodes": [n for c in batch for n in c.nodes],
                       "fetch": [k for c in batch for k in c.want]}
                _, t = run_task(web, sid, doc)
                if t["status"] != "succeeded":
                    bad.append("batch %d: %s" % (b, t.get("error")))
                    continue
                for c in batch:
                    for key in c.want:
                        got = get(web, "/api/v1/sessions/%s/tensors/%s/data" % (sid, key)).json()
                        why = test_index_join_order.result_differs(c, key, got)
                        if why:
                            bad.append("%s %s: %s" % (c.name, key, why))
            check(not bad, "%d differences: %s", len(bad), "; ".join(bad)[:3000])
        run.case("index-join-order", index_join_order)

        def outer_empty():
            # each pack's last part, its chunk's row count, fetched alone
            # by the count job (tile_job_pack_part) and read by every part
            bad = []
            for i, (name, doc, want) in enumerate(test_merge_order.outer_empty_docs(data)):
                for f in ("oel.csv", "oer.csv") if i == 0 else ():  # written by the first
                    with open(os.path.join(data, f), "rb") as fh:
                        r = request("PUT", web, "/api/v1/files/" + f, body=fh.read(),
                                    headers={"Content-Type": "text/csv"})
                    check(r.status == 201, "upload %s: %r", f, r)
                _, t = run_task(web, sid, doc)
                if t["status"] != "succeeded":
                    bad.append("%s: %s" % (name, t.get("error")))
                    continue
                for key, ref in want.items():
                    got = get(web, "/api/v1/sessions/%s/tensors/%s/data" % (sid, key)).json()
                    why = test_merge_order.frame_differs(got, ref)
                    if why:
                        bad.append("%s %s: %s" % (name, key, why))
            check(not bad, "%d differences: %s", len(bad), "; ".join(bad)[:3000])
        run.case("outer-empty", outer_empty)

        def dates_across_tasks():
            # read_csv(parse_dates) on uneven chunks of two workers; the
            # sorted frame is the input of a later task (its schema keeps
            # the datetime column), with the dt accessor and groupbys
            test_dates.make_csv(os.path.join(data, "dates.csv"), np.random.default_rng(9), 300)
            with open(os.path.join(data, "dates.csv"), "rb") as f:
                r = request("PUT", web, "/api/v1/files/dates.csv", body=f.read(),
                            headers={"Content-Type": "text/csv"})
            check(r.status == 201, "upload: %r", r)
            P = pd.read_csv(os.path.join(data, "dates.csv"), parse_dates=["when", "day"])
            d1 = {"version": 1, "nodes": [
                {"key": "dt", "op": "dataframe.read_csv", "path": "dates.csv",
                 "parse_dates": ["when", "day"], "chunk_bytes": 900},
                {"key": "ds", "op": "dataframe.sort_values", "inputs": ["dt"],
                 "by": ["when"]}], "fetch": ["ds"]}
            _, t = run_task(web, sid, d1)
            check(t["status"] == "succeeded", "task: %r", t)
            d2 = {"version": 1, "nodes": [
                {"key": "dw", "op": "dataframe.getitem", "inputs": ["ds"], "columns": "when"},
                {"key": "dm", "op": "dataframe.dt.month", "inputs": ["dw"]},
                {"key": "dd", "op": "dataframe.dt.date", "inputs": ["dw"]},
                {"key": "da", "op": "dataframe.assign", "inputs": ["ds", "dm"],
                 "names": ["month"]},
                {"key": "dg", "op": "dataframe.groupby_agg", "inputs": ["da"],
                 "by": ["city", "month"], "agg": {"s": ["k", "sum"]}},
                {"key": "dy", "op": "dataframe.groupby_agg", "inputs": ["ds"], "by": ["day"],
                 "agg": {"m": ["x", "max"]}}],
                "fetch": ["ds", "dm", "dd", "dg", "dy"]}
            _, t = run_task(web, sid, d2)
            check(t["status"] == "succeeded", "task: %r", t)
            S = P.sort_values("when", kind="mergesort")
            pw = {"ds": S, "dm": S.when.dt.month, "dd": S.when.dt.date,
                  "dg": S.assign(month=S.when.dt.month).groupby(["city", "month"])
                  .agg(s=("k", "sum")),
                  "dy": S.groupby("day").agg(m=("x", "max"))}
            for key, ref in pw.items():
                got = get(web, "/api/v1/sessions/%s/tensors/%s/data" % (sid, key)).json()
                why = test_dates.compare(got, ref)
                check(not why, "%s: %s", key, why)
            r = get(web, "/api/v1/sessions/%s/tensors/ds/data?format=csv" % sid)
            check(r.body.decode() == S.to_csv(), "ds as CSV: %r", r.body[:200])
        run.case("dates-across-tasks", dates_across_tasks)

        def reupload():
            # a file past the scan cache's 1 MiB (csv_cache.h) uploaded,
            # read, then replaced by other content of the same size: the
            # next task reads the new content (a new digest, a new local
            # copy, a new cache key), in the same worker processes
            rng = np.random.default_rng(4)
            sums = []
            for round_ in range(2):
                v = rng.integers(100000, 999999, 200000)
                body = ("v\n" + "\n".join(map(str, v)) + "\n").encode()
                check(len(body) == 200000 * 7 + 2, "fixed size: %d", len(body))
                r = request("PUT", web, "/api/v1/files/same.csv", body=body,
                            headers={"Content-Type": "text/csv"})
                check(r.status == 201, "upload: %r", r)
                d = {"version": 1, "nodes": [
                    {"key": "t", "op": "dataframe.read_csv", "path": "same.csv",
                     "chunk_bytes": 100000},
                    {"key": "s", "op": "dataframe.sum", "inputs": ["t"]}], "fetch": ["s"]}
                _, t = run_task(web, sid, d)
                check(t["status"] == "succeeded", "task: %r", t)
                got = get(web, "/api/v1/sessions/%s/tensors/s/data" % sid).json()
                check(got["data"] == [int(v.sum())], "round %d: %r vs %d", round_, got["data"],
                      int(v.sum()))
                sums.append(int(v.sum()))
            check(sums[0] != sums[1], "the two contents differ")
        run.case("reupload", reupload)
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
