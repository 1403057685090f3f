#!/usr/bin/python3
"""Side-by-side benchmarks: this engine's mars-run and local cluster against
numpy/pandas (the one-process physical reference) and Dask (the peer).

Columns: whole processes doing the same work (build the inputs, compute,
write the result): numpy/pandas, mars-run, Dask threads. In a warm
interpreter (bench/inproc.py, imports done, result in hand): numpy/pandas,
with the inputs' building timed apart, and Dask threads. The two clusters,
timed in the client from submission to result in hand: ours through the
REST API (scripts/run-cluster.sh: PostgreSQL, Redis, a supervisor serving
the REST API, two workers; each run creates a session, submits the
document, long-polls and downloads every fetched tensor) and
dask.distributed's LocalCluster (bench/dask_cluster.py). The cluster's
results are compared with mars-run's output of the same document.

Every column runs RUNS times in turn (A B C A B C ...) after one warm-up so
that drift of a shared machine hits all alike; the table gives medians (or
the best, --stat best) and ratios to numpy in-process. W9 runs once, on its
own cluster whose workers get --phy-mem 1g --cache-mem 512m, watched and
guarded (see W9_* below). Results go to stdout and, for a run of every
workload and column, to docs/benchmarks.md, with the issues' targets
computed from the run.

docs/benchmarks-notes.md (hand-written: profiles, what was done, targets
missed) is appended verbatim to docs/benchmarks.md after the tables.

Usage: bench/bench.py [--runs N] [--only W1,W8,W9,W7] [--columns cluster,mars-run,...]
                      [--stat median|best] [--no-cluster] [--no-distributed] [--no-inproc]
                      [--w7-chunks N] [--out FILE]
Environment: BENCH_ONLY, BENCH_COLUMNS, BENCH_RUNS, BENCH_HEAVY_RUNS, BENCH_STAT, BENCH_OUT
(the flags' defaults, for `make bench`), BENCH_W9_RSS_FACTOR, BENCH_W9_REDIS_CAP_GIB,
BENCH_W9_TIMEOUT, BENCH_MEM_FLOOR_GIB (W9's guards).
Benchmarks are not tests: nothing here asserts on timing.
"""
import argparse
import json
import re
import signal
import urllib.request
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARS_RUN = os.environ.get("MARS_RUN", os.path.join(ROOT, "build", "bin", "mars-run"))
PY = "/usr/bin/python3"
NOTES = os.path.join(ROOT, "docs", "benchmarks-notes.md")

# Each workload: a graph document for mars-run and the cluster, and the same
# computation in numpy/pandas and dask. np_setup builds the inputs (the
# document's creation ops), np_compute computes `r` from them; dask computes
# `r` (lazily built, then .compute()). `save` writes r to OUT in the
# whole-process columns: "npy" (np.save), "json" (pandas' to_json) or
# "json-split" (to_json(orient="split"), for a frame whose index repeats, as
# Dask's merge gives).
def _sum_t_doc(n, chunk, rechunk):
    return {"version": 1, "nodes": [
        {"key": "a", "op": "random.rand", "shape": [n, n], "chunk_size": chunk, "seed": 1},
        {"key": "t", "op": "transpose", "inputs": ["a"]},
        {"key": "r", "op": "rechunk", "inputs": ["t"], "chunk_size": rechunk},
        {"key": "s", "op": "sum", "inputs": ["r"], "axis": 0}], "fetch": ["s"]}


def _gb_transform_workload(func, what, pd_call, dask_meta=""):
    """groupby_transform's func over 10^7 rows (1,000 int keys, 10 chunks),
    then a sum: pandas' df.groupby('k')[['v']].<pd_call>.sum()"""
    dask_call = pd_call if not dask_meta else pd_call[:-1] + dask_meta + ")"
    return {
        "title": "%s over 10,000,000 rows (1,000 int keys, 1,000,000-row chunks), then sum"
                 % what,
        "df": True, "save": "json",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.randint", "shape": [10000000, 2], "low": 0, "high": 1000,
             "chunk_size": [1000000, 2], "seed": 1},
            {"key": "df", "op": "dataframe.from_tensor", "inputs": ["a"], "columns": ["k", "v"]},
            {"key": "c", "op": "dataframe.groupby_transform", "inputs": ["df"], "by": "k",
             "func": func, "columns": ["v"]},
            {"key": "s", "op": "dataframe.sum", "inputs": ["c"]}], "fetch": ["s"]},
        "np_setup": "df = pd.DataFrame(np.random.default_rng(1).integers(0, 1000, (10000000, 2)), "
                    "columns=['k', 'v'])",
        "np_compute": "r = df.groupby('k')[['v']].%s.sum()" % pd_call,
        "dask": "a = da.random.randint(0, 1000, (10000000, 2), chunks=(1000000, 2)); "
                "df = dd.from_dask_array(a, columns=['k', 'v']); "
                "r = df.groupby('k')[['v']].%s.sum().compute()" % dask_call,
    }


def _merge_workload(title, how, rows, last, pd_last, save="json-split"):
    """10,000,000 rows (1,000 int keys) merged with a table of rows keys
    (how None: pandas' default, inner), then the node last reading "m",
    fetched; pd_last the same in pandas (".sum()", say): W5m, W5o, W5i"""
    merge = {"key": "m", "op": "dataframe.merge", "inputs": ["df", "rt"], "on": "k"}
    on = "on='k'"
    if how is not None:
        merge["how"] = how
        on += ", how='%s'" % how
    table = "rt = pd.DataFrame({'k': np.arange(%d), 'w': np.arange(%d) * 3})" % (rows, rows)
    return {
        "title": title, "df": True, "save": save,
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.randint", "shape": [10000000, 2], "low": 0, "high": 1000,
             "chunk_size": [1000000, 2], "seed": 1},
            {"key": "df", "op": "dataframe.from_tensor", "inputs": ["a"], "columns": ["k", "v"]},
            {"key": "k1", "op": "arange", "stop": rows},
            {"key": "k3", "op": "multiply", "inputs": ["k1", 3]},
            {"key": "kt", "op": "stack", "inputs": ["k1", "k3"], "axis": 1},
            {"key": "rt", "op": "dataframe.from_tensor", "inputs": ["kt"], "columns": ["k", "w"]},
            merge, dict(last, inputs=["m"])], "fetch": [last["key"]]},
        "np_setup": "df = pd.DataFrame(np.random.default_rng(1).integers(0, 1000, (10000000, 2)), "
                    "columns=['k', 'v']); " + table,
        "np_compute": "r = df.merge(rt, %s)%s" % (on, pd_last),
        "dask": "a = da.random.randint(0, 1000, (10000000, 2), chunks=(1000000, 2)); "
                "df = dd.from_dask_array(a, columns=['k', 'v']); " + table + "; "
                "r = df.merge(rt, %s)%s.compute()" % (on, pd_last),
    }


def _merge_query_workload(how, what):
    """merged (how) with a 900-row table, then query: W5o, W5i"""
    return _merge_workload(
        "%s merge of 10,000,000 rows (1,000 int keys, 1,000,000-row chunks) with a "
        "900-row table, then query(\"v > 998\") (%s)" % (how, what), how, 900,
        {"key": "q", "op": "dataframe.query", "expr": "v > 998"}, ".query('v > 998')")


def _join_index_workload():
    """W5j: 10,000,000 rows indexed by their 1,000 int keys (each label
    repeated) joined "left" with a 900-row table on the index, then query:
    pandas sorts a join whose labels repeat, and so does the engine, once
    its check of the labels says so (tile_df.c, tile_index_order)"""
    table = "rt = pd.DataFrame({'k': np.arange(900), 'w': np.arange(900) * 3}).set_index('k')"
    return {
        "title": "10,000,000 rows indexed by 1,000 repeated int keys (1,000,000-row chunks) "
                 "joined with a 900-row table on the index, then query(\"v > 998\") (pandas "
                 "sorts by label)",
        "df": True, "save": "json-split",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.randint", "shape": [10000000, 2], "low": 0, "high": 1000,
             "chunk_size": [1000000, 2], "seed": 1},
            {"key": "df0", "op": "dataframe.from_tensor", "inputs": ["a"], "columns": ["k", "v"]},
            {"key": "df", "op": "dataframe.set_index", "inputs": ["df0"], "keys": "k"},
            {"key": "k1", "op": "arange", "stop": 900},
            {"key": "k3", "op": "multiply", "inputs": ["k1", 3]},
            {"key": "kt", "op": "stack", "inputs": ["k1", "k3"], "axis": 1},
            {"key": "rt0", "op": "dataframe.from_tensor", "inputs": ["kt"], "columns": ["k", "w"]},
            {"key": "rt", "op": "dataframe.set_index", "inputs": ["rt0"], "keys": "k"},
            {"key": "m", "op": "dataframe.join", "inputs": ["df", "rt"]},
            {"key": "q", "op": "dataframe.query", "inputs": ["m"], "expr": "v > 998"}],
            "fetch": ["q"]},
        "np_setup": "df = pd.DataFrame(np.random.default_rng(1).integers(0, 1000, (10000000, 2)), "
                    "columns=['k', 'v']).set_index('k'); " + table,
        "np_compute": "r = df.join(rt).query('v > 998')",
        "dask": "a = da.random.randint(0, 1000, (10000000, 2), chunks=(1000000, 2)); "
                "df = dd.from_dask_array(a, columns=['k', 'v']).set_index('k'); " + table + "; "
                "r = df.join(rt).query('v > 998').compute()",
    }


WORKLOADS = {
    "W1": {
        "title": "ones 2000x2000 chunk 200, inner(a, a)",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "ones", "shape": [2000, 2000], "chunk_size": 200},
            {"key": "b", "op": "inner", "inputs": ["a", "a"]}], "fetch": ["b"]},
        "np_setup": "a = np.ones((2000, 2000))",
        "np_compute": "r = np.inner(a, a)",
        "dask": "a = da.ones((2000, 2000), chunks=200); r = da.tensordot(a, a, axes=(1, 1)).compute()",
    },
    "W2": {
        "title": "random.rand 2000x2000 chunk 200, inner(a, a)",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.rand", "shape": [2000, 2000], "chunk_size": 200, "seed": 1},
            {"key": "b", "op": "inner", "inputs": ["a", "a"]}], "fetch": ["b"]},
        "np_setup": "a = np.random.default_rng(1).random((2000, 2000))",
        "np_compute": "r = np.inner(a, a)",
        "dask": "a = da.random.random((2000, 2000), chunks=200); "
                "r = da.tensordot(a, a, axes=(1, 1)).compute()",
    },
    "W3": {
        "title": "random.rand 10000x10000 chunk 1000, (a*2 + 1).sum()",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.rand", "shape": [10000, 10000], "chunk_size": 1000, "seed": 1},
            {"key": "b", "op": "multiply", "inputs": ["a", 2]},
            {"key": "c", "op": "add", "inputs": ["b", 1]},
            {"key": "s", "op": "sum", "inputs": ["c"]}], "fetch": ["s"]},
        "np_setup": "a = np.random.default_rng(1).random((10000, 10000))",
        "np_compute": "r = (a * 2 + 1).sum()",
        "dask": "a = da.random.random((10000, 10000), chunks=1000); r = (a * 2 + 1).sum().compute()",
    },
    "W4": {
        "title": "random.rand 5000x5000 chunk 500, a.dot(a.T)",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.rand", "shape": [5000, 5000], "chunk_size": 500, "seed": 1},
            {"key": "t", "op": "transpose", "inputs": ["a"]},
            {"key": "b", "op": "dot", "inputs": ["a", "t"]}], "fetch": ["b"]},
        "np_setup": "a = np.random.default_rng(1).random((5000, 5000))",
        "np_compute": "r = a.dot(a.T)",
        "dask": "a = da.random.random((5000, 5000), chunks=500); r = a.dot(a.T).compute()",
    },
    "W5": {
        "title": "DataFrame(random 2,000,000 x 10, 200,000-row chunks).sum()",
        "df": True, "save": "json",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.rand", "shape": [2000000, 10], "chunk_size": [200000, 10],
             "seed": 1},
            {"key": "d", "op": "dataframe.from_tensor", "inputs": ["a"]},
            {"key": "s", "op": "dataframe.sum", "inputs": ["d"]}], "fetch": ["s"]},
        "np_setup": "d = pd.DataFrame(np.random.default_rng(1).random((2000000, 10)))",
        "np_compute": "r = d.sum()",
        "dask": "a = da.random.random((2000000, 10), chunks=(200000, 10)); "
                "r = dd.from_dask_array(a).sum().compute()",
    },
    "W6": {
        "title": "ones 4000x4000 chunk 100 (1,600 chunks), (a + 1).sum()",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "ones", "shape": [4000, 4000], "chunk_size": 100},
            {"key": "b", "op": "add", "inputs": ["a", 1]},
            {"key": "s", "op": "sum", "inputs": ["b"]}], "fetch": ["s"]},
        "np_setup": "a = np.ones((4000, 4000))",
        "np_compute": "r = (a + 1).sum()",
        "dask": "a = da.ones((4000, 4000), chunks=100); r = (a + 1).sum().compute()",
    },
    # DataFrames: the "numpy" columns run pandas, the "dask" ones dask.dataframe
    "W5g": {
        "title": "groupby over 10,000,000 rows (1,000 int keys, 1,000,000-row chunks): sum and mean",
        "df": True, "save": "json",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.randint", "shape": [10000000, 2], "low": 0, "high": 1000,
             "chunk_size": [1000000, 2], "seed": 1},
            {"key": "df", "op": "dataframe.from_tensor", "inputs": ["a"], "columns": ["k", "v"]},
            {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["df"], "by": ["k"],
             "agg": {"s": ["v", "sum"], "m": ["v", "mean"]}}], "fetch": ["g"]},
        "np_setup": "df = pd.DataFrame(np.random.default_rng(1).integers(0, 1000, (10000000, 2)), "
                    "columns=['k', 'v'])",
        "np_compute": "r = df.groupby('k').agg(s=('v', 'sum'), m=('v', 'mean'))",
        "dask": "a = da.random.randint(0, 1000, (10000000, 2), chunks=(1000000, 2)); "
                "df = dd.from_dask_array(a, columns=['k', 'v']); "
                "r = df.groupby('k').agg({'v': ['sum', 'mean']}).compute()",
    },
    # W5p: a row-wise apply. pandas' df.apply(f, axis=1) calls f once per
    # row, as Dask's does per partition; marsc reads f's expression from
    # its source and sends it as element-wise ops over whole columns (this
    # document is what it sends for the lambda); summed so the result is
    # small
    "W5p": {
        "title": "df.apply(lambda r: r.a * r.b if r.a > 500 else r.b, axis=1) of 1,000,000 "
                 "rows (100,000-row chunks), summed",
        "df": True, "save": "json",
        "doc": {"version": 1, "nodes": [
            {"key": "t", "op": "random.randint", "shape": [1000000, 2], "low": 0, "high": 1000,
             "chunk_size": [100000, 2], "seed": 1},
            {"key": "df", "op": "dataframe.from_tensor", "inputs": ["t"], "columns": ["a", "b"]},
            {"key": "a", "op": "dataframe.getitem", "inputs": ["df"], "columns": "a"},
            {"key": "b", "op": "dataframe.getitem", "inputs": ["df"], "columns": "b"},
            {"key": "ab", "op": "multiply", "inputs": ["a", "b"]},
            {"key": "c", "op": "greater", "inputs": ["a", 500]},
            {"key": "w", "op": "where", "inputs": ["c", "ab", "b"]},
            {"key": "wf", "op": "dataframe.assign", "inputs": ["df", "w"], "names": ["w"]},
            {"key": "ww", "op": "dataframe.getitem", "inputs": ["wf"], "columns": ["w"]},
            {"key": "s", "op": "dataframe.sum", "inputs": ["ww"]}], "fetch": ["s"]},
        "np_setup": "df = pd.DataFrame(np.random.default_rng(1).integers(0, 1000, (1000000, 2)), "
                    "columns=['a', 'b'])",
        "np_compute": "r = df.assign(w=df.apply(lambda r: r.a * r.b if r.a > 500 else r.b, "
                      "axis=1))[['w']].sum()",
        "dask": "a = da.random.randint(0, 1000, (1000000, 2), chunks=(100000, 2)); "
                "df = dd.from_dask_array(a, columns=['a', 'b']); "
                "r = df.assign(w=df.apply(lambda r: r.a * r.b if r.a > 500 else r.b, axis=1, "
                "meta=('w', 'i8')))[['w']].sum().compute()",
    },
    # W5y: a groupby apply of a lambda giving one value per group, a
    # weighted mean. pandas and Dask call the lambda once per group; marsc
    # reads its expression and sends one groupby_agg of the frame with the
    # product assigned (this document is what it sends), the division
    # after; the result is one row per key
    "W5y": {
        "title": "groupby('k').apply(lambda d: (d.v * d.w).sum() / d.w.sum()) of 10,000,000 "
                 "rows (1,000 int keys, 1,000,000-row chunks)",
        "df": True, "save": "json",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.randint", "shape": [10000000, 3], "low": 0,
             "high": 1000, "chunk_size": [1000000, 3], "seed": 1},
            {"key": "df", "op": "dataframe.from_tensor", "inputs": ["a"],
             "columns": ["k", "v", "w"]},
            {"key": "v", "op": "dataframe.getitem", "inputs": ["df"], "columns": "v"},
            {"key": "w", "op": "dataframe.getitem", "inputs": ["df"], "columns": "w"},
            {"key": "vw", "op": "multiply", "inputs": ["v", "w"]},
            {"key": "f", "op": "dataframe.assign", "inputs": ["df", "vw"],
             "names": ["_mars_apply0"]},
            {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["f"], "by": ["k"],
             "agg": {"s": ["_mars_apply0", "sum"], "t": ["w", "sum"]}},
            {"key": "gs", "op": "dataframe.getitem", "inputs": ["g"], "columns": "s"},
            {"key": "gt", "op": "dataframe.getitem", "inputs": ["g"], "columns": "t"},
            {"key": "r", "op": "divide", "inputs": ["gs", "gt"]}], "fetch": ["r"]},
        "np_setup": "df = pd.DataFrame(np.random.default_rng(1).integers(0, 1000, "
                    "(10000000, 3)), columns=['k', 'v', 'w'])",
        "np_compute": "r = df.groupby('k').apply(lambda d: (d.v * d.w).sum() / d.w.sum())",
        "dask": "a = da.random.randint(0, 1000, (10000000, 3), chunks=(1000000, 3)); "
                "df = dd.from_dask_array(a, columns=['k', 'v', 'w']); "
                "r = df.groupby('k').apply(lambda d: (d.v * d.w).sum() / d.w.sum(), "
                "meta=(None, 'f8')).compute()",
    },
    # W5k: a groupby transformation kernel (cumsum within each key's rows,
    # in row order; chunk by chunk, each key's running sum carried from
    # chunk to chunk), summed so the result is small
    "W5k": _gb_transform_workload("cumsum", "groupby cumsum", "cumsum()"),
    # W5t: a groupby transform statistic (each row its key's mean: every
    # chunk folded into the keys' Kahan sums along a chain, then each chunk
    # reads the final sums), summed so the result is small
    "W5t": _gb_transform_workload("mean", "groupby transform('mean')", "transform('mean')",
                                  ", meta={'v': 'f8'}"),
    # W5r: a resample by time: 10^7 rows whose times (seconds over 115
    # days, in no order) fall in 166,667 one-minute bins; the engine bins
    # each chunk and runs groupby_agg's shuffle on the keys, Dask needs a
    # sorted DatetimeIndex (set_index) before it can resample
    "W5r": {
        "title": "resample('1min') of 10,000,000 rows (times over 115 days, unsorted, "
                 "1,000,000-row chunks): sum and mean",
        "df": True, "save": "json",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.randint", "shape": [10000000, 2], "low": 0,
             "high": 10000000, "chunk_size": [1000000, 2], "seed": 1},
            {"key": "df", "op": "dataframe.from_tensor", "inputs": ["a"], "columns": ["t", "v"]},
            {"key": "t", "op": "dataframe.getitem", "inputs": ["df"], "columns": "t"},
            {"key": "ts", "op": "dataframe.to_datetime", "inputs": ["t"], "unit": "s"},
            {"key": "d", "op": "dataframe.assign", "inputs": ["df", "ts"], "names": ["ts"]},
            {"key": "r", "op": "dataframe.resample", "inputs": ["d"], "rule": "1min", "on": "ts",
             "agg": {"s": ["v", "sum"], "m": ["v", "mean"]}}], "fetch": ["r"]},
        "np_setup": "df = pd.DataFrame(np.random.default_rng(1).integers(0, 10000000, "
                    "(10000000, 2)), columns=['t', 'v'])",
        "np_compute": "df['ts'] = pd.to_datetime(df.t, unit='s'); "
                      "r = df.resample('1min', on='ts').agg(s=('v', 'sum'), m=('v', 'mean'))",
        "dask": "a = da.random.randint(0, 10000000, (10000000, 2), chunks=(1000000, 2)); "
                "df = dd.from_dask_array(a, columns=['t', 'v']); "
                "df = df.assign(ts=dd.to_datetime(df.t, unit='s')); "
                "r = df.set_index('ts').resample('1min').agg({'v': ['sum', 'mean']}).compute(); "
                "r.columns = ['s', 'm']",
    },
    # W5w: a rolling window of time: 10^7 rows 0.5 s apart on average (the
    # running sum of random gaps: rising times, about 120 rows per minute),
    # each row the mean of the minute up to it; the engine carries pandas'
    # window state from chunk to chunk, Dask needs a sorted DatetimeIndex;
    # summed so the result is small
    "W5w": {
        "title": "rolling('1min', on='ts').mean() of 10,000,000 rows (rising times over 58 "
                 "days, 1,000,000-row chunks), summed",
        "df": True, "save": "json",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.randint", "shape": [10000000, 2], "low": 0,
             "high": 1000, "chunk_size": [1000000, 2], "seed": 1},
            {"key": "df", "op": "dataframe.from_tensor", "inputs": ["a"], "columns": ["g", "v"]},
            {"key": "g", "op": "dataframe.getitem", "inputs": ["df"], "columns": "g"},
            {"key": "c", "op": "dataframe.cumsum", "inputs": ["g"]},
            {"key": "ts", "op": "dataframe.to_datetime", "inputs": ["c"], "unit": "ms"},
            {"key": "d", "op": "dataframe.assign", "inputs": ["df", "ts"], "names": ["ts"]},
            {"key": "f", "op": "dataframe.getitem", "inputs": ["d"], "columns": ["ts", "v"]},
            {"key": "r", "op": "dataframe.rolling", "inputs": ["f"], "window": "1min",
             "on": "ts", "agg": "mean"},
            {"key": "rv", "op": "dataframe.getitem", "inputs": ["r"], "columns": ["v"]},
            {"key": "s", "op": "dataframe.sum", "inputs": ["rv"]}], "fetch": ["s"]},
        "np_setup": "df = pd.DataFrame(np.random.default_rng(1).integers(0, 1000, "
                    "(10000000, 2)), columns=['g', 'v']); "
                    "df['ts'] = pd.to_datetime(df.g.cumsum(), unit='ms')",
        "np_compute": "r = df[['ts', 'v']].rolling('1min', on='ts').mean()[['v']].sum()",
        "dask": "a = da.random.randint(0, 1000, (10000000, 2), chunks=(1000000, 2)); "
                "df = dd.from_dask_array(a, columns=['g', 'v']); "
                "df = df.assign(ts=dd.to_datetime(df.g.cumsum(), unit='ms')); "
                "r = df.set_index('ts', sorted=True)[['v']].rolling('1min').mean().sum().compute()",
    },
    # W5v: a rolling window of 1,000 rows: each row the std of the 1,000
    # rows up to it; the engine carries pandas' window state (its Welford
    # variance) from chunk to chunk, each chunk run in one pass; Dask reads
    # the rows before each partition (map_overlap); summed so the result is
    # small
    "W5v": {
        "title": "rolling(1000).std() of 10,000,000 rows (1,000,000-row chunks), summed",
        "df": True, "save": "json",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.rand", "shape": [10000000, 1],
             "chunk_size": [1000000, 1], "seed": 1},
            {"key": "df", "op": "dataframe.from_tensor", "inputs": ["a"], "columns": ["v"]},
            {"key": "r", "op": "dataframe.rolling", "inputs": ["df"], "window": 1000,
             "agg": "std"},
            {"key": "s", "op": "dataframe.sum", "inputs": ["r"]}], "fetch": ["s"]},
        "np_setup": "df = pd.DataFrame(np.random.default_rng(1).random((10000000, 1)), "
                    "columns=['v'])",
        "np_compute": "r = df.rolling(1000).std().sum()",
        "dask": "a = da.random.random((10000000, 1), chunks=(1000000, 1)); "
                "df = dd.from_dask_array(a, columns=['v']); "
                "r = df.rolling(1000).std().sum().compute()",
    },
    # W5q: a groupby's rolling window of rows: 10^7 rows of 1,000 int keys,
    # each row the mean of the 50 rows of its key up to it (pandas'
    # groupby('k').rolling(50)); the engine sorts the rows by key (stably)
    # and rolls each chunk with the carry of the rows before; Dask has no
    # groupby rolling: its groupby apply shuffles the groups and rolls each
    # in pandas; summed so the result is small
    "W5q": {
        "title": "groupby('k').rolling(50).mean() of 10,000,000 rows (1,000 int keys, "
                 "1,000,000-row chunks), summed",
        "df": True, "save": "json",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.randint", "shape": [10000000, 2], "low": 0,
             "high": 1000, "chunk_size": [1000000, 2], "seed": 1},
            {"key": "df", "op": "dataframe.from_tensor", "inputs": ["a"], "columns": ["k", "v"]},
            {"key": "r", "op": "dataframe.rolling", "inputs": ["df"], "window": 50,
             "by": ["k"], "agg": "mean"},
            {"key": "s", "op": "dataframe.sum", "inputs": ["r"]}], "fetch": ["s"]},
        "np_setup": "df = pd.DataFrame(np.random.default_rng(1).integers(0, 1000, "
                    "(10000000, 2)), columns=['k', 'v'])",
        "np_compute": "r = df.groupby('k').rolling(50).mean().sum()",
        "dask": "a = da.random.randint(0, 1000, (10000000, 2), chunks=(1000000, 2)); "
                "df = dd.from_dask_array(a, columns=['k', 'v']); "
                "r = df.groupby('k').apply(lambda g: g[['v']].rolling(50).mean(), "
                "meta={'v': 'f8'}).sum().compute()",
    },
    # W5a: merge_asof by key, trades with the last quote of their key: two
    # sides of 5,000,000 rows whose times are running sums of random gaps
    # (rising, with repeats), 1,000 keys; the engine sorts both sides
    # together by time and carries each key's last right row along the
    # parts; Dask needs each side indexed by its sorted times (set_index
    # sorted=True); the matched values summed so the result is small
    "W5a": {
        "title": "merge_asof(trades, quotes, on='t', by='k') of 5,000,000 rows each (1,000 "
                 "keys, 1,000,000-row chunks), matched values summed",
        "df": True, "save": "json",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.randint", "shape": [5000000, 3], "low": 0,
             "high": 1000, "chunk_size": [1000000, 3], "seed": 1},
            {"key": "la", "op": "dataframe.from_tensor", "inputs": ["a"],
             "columns": ["g", "k", "v"]},
            {"key": "lg", "op": "dataframe.getitem", "inputs": ["la"], "columns": "g"},
            {"key": "lt", "op": "dataframe.cumsum", "inputs": ["lg"]},
            {"key": "lb", "op": "dataframe.assign", "inputs": ["la", "lt"], "names": ["t"]},
            {"key": "l", "op": "dataframe.getitem", "inputs": ["lb"], "columns": ["t", "k", "v"]},
            {"key": "b", "op": "random.randint", "shape": [5000000, 3], "low": 0,
             "high": 1000, "chunk_size": [1000000, 3], "seed": 2},
            {"key": "ra", "op": "dataframe.from_tensor", "inputs": ["b"],
             "columns": ["g", "k", "w"]},
            {"key": "rg", "op": "dataframe.getitem", "inputs": ["ra"], "columns": "g"},
            {"key": "rt", "op": "dataframe.cumsum", "inputs": ["rg"]},
            {"key": "rb", "op": "dataframe.assign", "inputs": ["ra", "rt"], "names": ["t"]},
            {"key": "r", "op": "dataframe.getitem", "inputs": ["rb"], "columns": ["t", "k", "w"]},
            {"key": "m", "op": "dataframe.merge_asof", "inputs": ["l", "r"], "on": "t",
             "by": "k"},
            {"key": "w", "op": "dataframe.getitem", "inputs": ["m"], "columns": ["w"]},
            {"key": "s", "op": "dataframe.sum", "inputs": ["w"]}], "fetch": ["s"]},
        "np_setup": "rng = np.random.default_rng(1); "
                    "L = pd.DataFrame(rng.integers(0, 1000, (5000000, 3)), "
                    "columns=['g', 'k', 'v']); L['t'] = L.g.cumsum(); "
                    "R = pd.DataFrame(rng.integers(0, 1000, (5000000, 3)), "
                    "columns=['g', 'k', 'w']); R['t'] = R.g.cumsum()",
        "np_compute": "r = pd.merge_asof(L[['t', 'k', 'v']], R[['t', 'k', 'w']], on='t', "
                      "by='k')[['w']].sum()",
        "dask": "a = da.random.randint(0, 1000, (5000000, 3), chunks=(1000000, 3)); "
                "L = dd.from_dask_array(a, columns=['g', 'k', 'v']); "
                "L = L.assign(t=L.g.cumsum())[['t', 'k', 'v']]; "
                "b = da.random.randint(0, 1000, (5000000, 3), chunks=(1000000, 3)); "
                "R = dd.from_dask_array(b, columns=['g', 'k', 'w']); "
                "R = R.assign(t=R.g.cumsum())[['t', 'k', 'w']]; "
                "r = dd.merge_asof(L, R, on='t', by='k')[['w']].sum().compute()",
    },
    # df3: a merge of 10,000,000 rows with a 1,000-row table (hash-partitioned
    # on the key), summed so that the result is small
    "W5m": _merge_workload(
        "merge of 10,000,000 rows (1,000 int keys, 1,000,000-row chunks) with a "
        "1,000-row table on the key, then sum", None, 1000,
        {"key": "s", "op": "dataframe.sum"}, ".sum()", save="json"),
    # W5o: the same rows left-merged with a table that lacks some keys, then
    # filtered: the merge's order and index are seen (pandas' row order and
    # index; the table is read whole by each chunk, DFJ_MERGE_BCAST, and
    # the index relabelled); the result is small
    "W5o": _merge_query_workload("left", "pandas' row order and index"),
    # W5i: the same inner: pandas 1.5 groups its rows by key, the keys in
    # the order they first appear; every row's place is planned ahead
    # (DFJ_MERGE_BKEYS, BPLAN, BPART), so the output chunks are even
    "W5i": _merge_query_workload("inner", "pandas' rows grouped by key, and index"),
    # W5j: a join on an index whose labels repeat, then filtered: pandas
    # sorts it by label, and so does the engine after checking the labels
    "W5j": _join_index_workload(),
    # W8 and W9: a transpose and a rechunk that moves every chunk's data to
    # other chunks (each output chunk reads parts of 2 or 4 input chunks).
    # numpy's random stream is not the engine's (Philox): the peers do the same
    # work on other numbers; the cluster's exactness is checked against
    # mars-run's output of the same document (bench prints it).
    "W8": {
        "title": "random.rand 10000x10000 chunk 1000, transpose, rechunk [500, 2000], sum(axis=0) "
                 "(800 MB)",
        "doc": _sum_t_doc(10000, 1000, [500, 2000]),
        "np_setup": "a = np.random.default_rng(1).random((10000, 10000))",
        "np_compute": "r = a.T.sum(axis=0)",
        "dask": "a = da.random.random((10000, 10000), chunks=1000); "
                "r = a.T.rechunk((500, 2000)).sum(axis=0).compute()",
        "profile": True,
    },
    # sortstat: W11 sorts 10^8 float64 (a 10000 x 10000 matrix along its
    # rows, chunks of 1,000 whole rows: the engine sorts along an unchunked
    # axis per chunk; a 1-D sort of 10^8 would pass the 256 MiB single-block
    # limit, SS_MAX_BLOCK_BYTES). Dask has no sort: map_blocks(np.sort) on the
    # same row blocks. W12: percentiles of a 1-D array of 10^8 (800 MB):
    # past the block limit, so the line is sorted by the merge network and
    # the order statistics picked from its blocks (it was scaled down to
    # 2 x 10^7 while one job had to hold the line); Dask's da.percentile is
    # approximate (it merges per-chunk percentiles).
    # BENCH_SORT_ROWS / BENCH_PCT_N scale them (this machine: 24 GiB, 2 cores).
    "W11": {
        "title": "random.rand %dx10000 rows, chunk 1000 rows, sort(axis=1) (10^8 float64 at 10000 rows)"
                 % int(os.environ.get("BENCH_SORT_ROWS", "10000")),
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.rand", "shape": [int(os.environ.get("BENCH_SORT_ROWS", "10000")), 10000],
             "chunk_size": [1000, 10000], "seed": 1},
            {"key": "r", "op": "sort", "inputs": ["a"], "axis": 1}], "fetch": ["r"]},
        "np_setup": "a = np.random.default_rng(1).random((%d, 10000))"
                    % int(os.environ.get("BENCH_SORT_ROWS", "10000")),
        "np_compute": "r = np.sort(a, axis=1)",
        "dask": "a = da.random.random((%d, 10000), chunks=(1000, 10000)); "
                "r = a.map_blocks(np.sort, axis=1).compute()" % int(os.environ.get("BENCH_SORT_ROWS", "10000")),
    },
    "W12": {
        "title": "random.rand %d (1-D, chunk 2,000,000), percentile([5, 50, 95])"
                 % int(os.environ.get("BENCH_PCT_N", "100000000")),
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.rand", "shape": [int(os.environ.get("BENCH_PCT_N", "100000000"))],
             "chunk_size": 2000000, "seed": 1},
            {"key": "r", "op": "percentile", "inputs": ["a"], "q": [5, 50, 95]}], "fetch": ["r"]},
        "np_setup": "a = np.random.default_rng(1).random(%d)" % int(os.environ.get("BENCH_PCT_N", "100000000")),
        "np_compute": "r = np.percentile(a, [5, 50, 95])",
        "dask": "a = da.random.random(%d, chunks=2000000); r = da.percentile(a, [5, 50, 95]).compute()"
                % int(os.environ.get("BENCH_PCT_N", "100000000")),
    },
    # W15: a 1-D sort of 10^8 float64 (800 MB): past the 256 MiB block, so the
    # engine's merge network (sortstat.h: six blocks, 15 comparators); a
    # strided sample of the result is fetched (moving 800 MB would time the
    # fetch). Dask has no sort of a chunked 1-D array: its user computes the
    # array and sorts it with numpy. BENCH_SORT1D_N scales it.
    "W15": {
        "title": "random.rand %d (1-D, chunks of 10^7), sort, every 10^5-th value fetched"
                 % int(os.environ.get("BENCH_SORT1D_N", "100000000")),
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.rand", "shape": [int(os.environ.get("BENCH_SORT1D_N", "100000000"))],
             "chunk_size": 10000000, "seed": 1},
            {"key": "s", "op": "sort", "inputs": ["a"]},
            {"key": "r", "op": "getitem", "inputs": ["s"], "index": ["::100000"]}], "fetch": ["r"]},
        "np_setup": "a = np.random.default_rng(1).random(%d)" % int(os.environ.get("BENCH_SORT1D_N", "100000000")),
        "np_compute": "r = np.sort(a)[::100000]",
        "dask": "a = da.random.random(%d, chunks=10000000); r = np.sort(a.compute())[::100000]"
                % int(os.environ.get("BENCH_SORT1D_N", "100000000")),
    },
    # issue 13's fancy indexing: take 10^7 random positions of 10^7 values
    "W14": {
        "title": "random.rand 10^7 and random.randint 10^7 in [0, 10^7) (chunks of 10^6), take(a, i)",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.rand", "shape": [10000000], "chunk_size": 1000000, "seed": 1},
            {"key": "i", "op": "random.randint", "shape": [10000000], "low": 0, "high": 10000000,
             "chunk_size": 1000000, "seed": 2},
            {"key": "r", "op": "take", "inputs": ["a", "i"]}], "fetch": ["r"]},
        "np_setup": "a = np.random.default_rng(1).random(10000000); "
                    "i = np.random.default_rng(2).integers(0, 10000000, 10000000)",
        "np_compute": "r = np.take(a, i)",
        "dask": "a = da.random.random(10000000, chunks=1000000); "
                "i = da.random.randint(0, 10000000, 10000000, chunks=1000000); r = da.take(a, i).compute()",
    },
    # unique of 10^7 integers with 10^6 possible values (a value's run spans
    # every block): each block's set by a radix sort, then the sets merged
    # (df/multi.c). Dask's da.unique does the same per block with np.unique.
    "W17": {
        "title": "random.randint 10^7 in [0, 10^6) (chunks of 10^6), unique",
        "doc": {"version": 1, "nodes": [
            {"key": "i", "op": "random.randint", "shape": [10000000], "low": 0, "high": 1000000,
             "chunk_size": 1000000, "seed": 2},
            {"key": "uq", "op": "unique", "inputs": ["i"], "outputs": ["r"]}], "fetch": ["r"]},
        "np_setup": "i = np.random.default_rng(2).integers(0, 1000000, 10000000)",
        "np_compute": "r = np.unique(i)",
        # (Dask's return_counts ran past two minutes here: values only)
        "dask": "i = da.random.randint(0, 1000000, 10000000, chunks=1000000); "
                "r = da.unique(i).compute()",
    },
    # issue 13's linalg.qr: a tall-and-skinny 10^6 x 100 by TSQR (ten row blocks
    # of 10^5 rows); r and the sum of q fetched, so q is computed but not moved
    "W13": {
        "title": "random.rand 10^6x100 (row chunks of 10^5), q, r = linalg.qr(a); r and q.sum()",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.rand", "shape": [1000000, 100], "chunk_size": [100000, 100],
             "seed": 1},
            {"key": "f", "op": "linalg.qr", "inputs": ["a"], "outputs": ["q", "r"]},
            {"key": "qs", "op": "sum", "inputs": ["q"]}], "fetch": ["r", "qs"]},
        "np_setup": "a = np.random.default_rng(1).random((1000000, 100))",
        "np_compute": "q, r = np.linalg.qr(a); qs = q.sum()",
        "dask": "a = da.random.random((1000000, 100), chunks=(100000, 100)); q, r = da.linalg.qr(a); "
                "r, qs = da.compute(r, q.sum())",
    },
    # issue 14's realistic analysis: a 10,000,000-row CSV (sales.csv: a
    # datetime, a string city, a float amount with 5% missing, an int qty)
    # and a 40-row dimension table (cities.csv), written once per bench run
    # (make_files). The "numpy" columns run pandas, the "dask" ones
    # dask.dataframe; {DATA} is the files' directory.
    "W16": {
        "title": "analysis of a 10,000,000-row CSV (350 MB): read_csv(parse_dates), fillna, query, "
                 "groupby by month and city, merge with a 40-row table, sort_values, head",
        "df": True, "save": "json", "files": "sales",
        # the upload is past the REST API's default 256 MiB body
        "cluster_env": {"MARS_MAX_BODY_SIZE": "512m"},
        "doc": {"version": 1, "nodes": [
            {"key": "t", "op": "dataframe.read_csv", "path": "sales.csv", "parse_dates": ["when"]},
            {"key": "f", "op": "dataframe.fillna", "inputs": ["t"], "value": {"amount": 0}},
            {"key": "q", "op": "dataframe.query", "inputs": ["f"], "expr": "amount > 10 and qty < 8"},
            {"key": "w", "op": "dataframe.getitem", "inputs": ["q"], "columns": "when"},
            {"key": "mo", "op": "dataframe.dt.month", "inputs": ["w"]},
            {"key": "a", "op": "dataframe.assign", "inputs": ["q", "mo"], "names": ["month"]},
            {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["a"], "by": ["month", "city"],
             "as_index": False, "agg": {"total": ["amount", "sum"], "n": ["qty", "count"]}},
            {"key": "c", "op": "dataframe.read_csv", "path": "cities.csv"},
            {"key": "m", "op": "dataframe.merge", "inputs": ["g", "c"], "on": ["city"]},
            {"key": "s", "op": "dataframe.sort_values", "inputs": ["m"], "by": ["total"],
             "ascending": False},
            {"key": "h", "op": "dataframe.head", "inputs": ["s"], "n": 20}], "fetch": ["h"]},
        "np_setup": "",
        "np_compute": "df = pd.read_csv('{DATA}/sales.csv', parse_dates=['when']); "
                      "df = df.fillna({'amount': 0}).query('amount > 10 and qty < 8'); "
                      "df = df.assign(month=df.when.dt.month); "
                      "g = df.groupby(['month', 'city'], as_index=False).agg("
                      "total=('amount', 'sum'), n=('qty', 'count')); "
                      "m = g.merge(pd.read_csv('{DATA}/cities.csv'), on='city'); "
                      "r = m.sort_values('total', ascending=False).head(20)",
        "dask": "df = dd.read_csv('{DATA}/sales.csv', parse_dates=['when'], blocksize=16 << 20); "
                "df = df.fillna({'amount': 0}).query('amount > 10 and qty < 8'); "
                "df = df.assign(month=df.when.dt.month); "
                "g = df.groupby(['month', 'city']).agg(total=('amount', 'sum'), "
                "n=('qty', 'count')).reset_index(); "
                "m = g.merge(pd.read_csv('{DATA}/cities.csv'), on='city'); "
                "r = m.nlargest(20, 'total').compute()",
    },
    # W9: its own cluster, whose workers get --phy-mem 1g --cache-mem 512m and a
    # spill directory; run once (no warm-up), watched (see W9_* below).
    "W9": {
        "title": "random.rand 20000x20000 chunk 2000, transpose, rechunk [1000, 4000], sum(axis=0) "
                 "(3.2 GB; workers --phy-mem 1g --cache-mem 512m)",
        "doc": _sum_t_doc(20000, 2000, [1000, 4000]),
        "np_setup": "a = np.random.default_rng(1).random((20000, 20000))",
        "np_compute": "r = a.T.sum(axis=0)",
        "dask": "a = da.random.random((20000, 20000), chunks=2000); "
                "r = a.T.rechunk((1000, 4000)).sum(axis=0).compute()",
        "heavy": True, "profile": True,
        "mem_need": 4 << 30,  # numpy's 3.2 GB input, with room
        "cluster_env": {"MARS_WORKER_PHY_MEM": "1g", "MARS_WORKER_CACHE_MEM": "512m"},
    },
    # linalg branch: the blocked Cholesky (potrf/trsm/update jobs over 1000 x
    # 1000 blocks) of an SPD 4000 x 4000 matrix built as a aᵀ + 4000 I
    "W10": {
        "title": "random.rand 4000x4000 chunk 1000, s = a.dot(a.T) + 4000*eye, linalg.cholesky(s)",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.rand", "shape": [4000, 4000], "chunk_size": 1000, "seed": 1},
            {"key": "t", "op": "transpose", "inputs": ["a"]},
            {"key": "g", "op": "dot", "inputs": ["a", "t"]},
            {"key": "e", "op": "eye", "N": 4000, "chunk_size": 1000},
            {"key": "d", "op": "multiply", "inputs": ["e", 4000]},
            {"key": "s", "op": "add", "inputs": ["g", "d"]},
            {"key": "r", "op": "linalg.cholesky", "inputs": ["s"]}], "fetch": ["r"]},
        "np_setup": "a = np.random.default_rng(1).random((4000, 4000))",
        "np_compute": "r = np.linalg.cholesky(a.dot(a.T) + 4000 * np.eye(4000))",
        "dask": "a = da.random.random((4000, 4000), chunks=1000); "
                "r = da.linalg.cholesky(a.dot(a.T) + 4000 * da.eye(4000, chunks=1000), "
                "lower=True).compute()",
    },
}


def _gzipped(w):
    """W16 reading sales.csv.gz (the same rows, gzip'd once per bench run):
    the engine decompresses it once into a local copy and reads that in
    chunks; pandas decompresses as it parses; Dask cannot split a gzip
    file (blocksize=None: one partition)."""
    w = json.loads(json.dumps(w))
    w["title"] = w["title"].replace("CSV (350 MB)", "gzip'd CSV (350 MB, sales.csv.gz)")
    w["files"] = "sales_gz"
    w["doc"]["nodes"][0]["path"] = "sales.csv.gz"
    for k in ("np_compute", "dask"):
        w[k] = w[k].replace("'{DATA}/sales.csv'", "'{DATA}/sales.csv.gz'")
    w["dask"] = w["dask"].replace("blocksize=16 << 20", "blocksize=None")
    return w


WORKLOADS["W16z"] = _gzipped(WORKLOADS["W16"])


def prelude(peer, w):
    """The imports of a whole-process peer: pandas and dask.dataframe only for
    the DataFrame workloads (their import is part of what a process pays)."""
    if peer == "numpy":
        return "import numpy as np\n" + ("import pandas as pd\n" if w.get("df") else "")
    return ("import numpy as np, dask, dask.array as da\n"
            + ("import pandas as pd, dask.dataframe as dd\n" if w.get("df") else "")
            + "dask.config.set(scheduler='threads')\n")


def make_files(kind, d, rows=10000000):
    """The input files of a workload with "files" (W16), written into d once:
    sales.csv (rows rows: when, city, amount, qty) and cities.csv; for
    "sales_gz" (W16z) also sales.csv.gz."""
    import numpy as np
    import pandas as pd
    os.makedirs(d, exist_ok=True)
    done = os.path.join(d, kind + ".done")
    if os.path.exists(done):
        return
    if kind == "sales_gz":
        import gzip
        make_files("sales", d, rows)
        with open(os.path.join(d, "sales.csv"), "rb") as src, \
                gzip.open(os.path.join(d, "sales.csv.gz"), "wb", compresslevel=6) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        open(done, "w").close()
        return
    rng = np.random.default_rng(1)
    hours = pd.date_range("2023-01-01", periods=365 * 24, freq="H").strftime(
        "%Y-%m-%d %H:%M:%S").to_numpy()
    cities = np.array(["city%02d" % i for i in range(40)])
    with open(os.path.join(d, "sales.csv"), "w") as f:
        f.write("when,city,amount,qty\n")
        for s in range(0, rows, 1000000):
            m = min(1000000, rows - s)
            amount = np.char.mod("%.2f", np.round(rng.gamma(2.0, 20.0, m), 2)).astype(object)
            amount[rng.random(m) < 0.05] = ""
            lines = (pd.Series(hours[rng.integers(0, len(hours), m)], dtype=object) + ","
                     + cities[rng.integers(0, len(cities), m)].astype(object) + "," + amount + ","
                     + rng.integers(1, 10, m).astype(str).astype(object))
            f.write("\n".join(lines.tolist()) + "\n")
    pd.DataFrame({"city": cities, "region": ["region%d" % (i % 5) for i in range(40)]}).to_csv(
        os.path.join(d, "cities.csv"), index=False)
    open(done, "w").close()


def with_data(w, d):
    """w with {DATA} in its peers' code replaced by the files' directory."""
    w = dict(w)
    for k in ("np_setup", "np_compute", "dask"):
        w[k] = w[k].replace("{DATA}", d)
    return w


def save_code(w):
    save = w.get("save")
    if save == "json-split":
        return "r.to_json(OUT, orient='split')\n"
    return "r.to_json(OUT)\n" if save == "json" else "np.save(OUT, r)\n"


W7_CHUNKS = 1000000

# W9's guards (the bench must never get a process OOM-killed on a shared
# machine): the cluster run is aborted (the cluster stopped) when a worker's
# resident memory passes W9_RSS_FACTOR x its --phy-mem, Redis's passes
# W9_REDIS_CAP, the host's MemAvailable falls under MEM_FLOOR, or it runs
# longer than W9_TIMEOUT seconds. A peer's run of a workload with mem_need is
# skipped (reported) when MemAvailable < mem_need + MEM_FLOOR.
W9_RSS_FACTOR = float(os.environ.get("BENCH_W9_RSS_FACTOR", "2"))
W9_REDIS_CAP = int(float(os.environ.get("BENCH_W9_REDIS_CAP_GIB", "4")) * 2**30)
W9_TIMEOUT = float(os.environ.get("BENCH_W9_TIMEOUT", "900"))
MEM_FLOOR = int(float(os.environ.get("BENCH_MEM_FLOOR_GIB", "2")) * 2**30)
REDIS_TARGET = 64 << 20  # issue 11: Redis peak memory under 64 MiB during W9


def mem_available():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 1 << 62


def w7_doc(n):
    return {"version": 1, "nodes": [
        {"key": "a", "op": "ones", "shape": [n], "chunk_size": 1},
        {"key": "b", "op": "add", "inputs": ["a", 1]},
        {"key": "s", "op": "sum", "inputs": ["b"]}], "fetch": ["s"]}


def have_module(name):
    return subprocess.run([PY, "-c", "import " + name], capture_output=True).returncode == 0


def commands(name, w, tmp):
    """The whole-process commands: mars-run, numpy (pandas), Dask threads."""
    doc = os.path.join(tmp, name + ".json")
    with open(doc, "w") as f:
        json.dump(w["doc"], f)
    cmds = {"mars-run": [MARS_RUN, doc, "-o", os.path.join(tmp, "out-" + name)]
            + (["--data-dir", os.path.join(tmp, "data")] if w.get("files") else [])}
    out = "OUT = %r\n" % os.path.join(tmp, "%s-peer.out" % name)
    cmds["numpy"] = [PY, "-c", prelude("numpy", w) + out + w["np_setup"] + "\n" + w["np_compute"] + "\n"
                     + save_code(w)]
    if have_module("dask.array"):
        cmds["dask"] = [PY, "-c", prelude("dask", w) + out + w["dask"] + "\n" + save_code(w)]
    return cmds


class Peer:
    """A line-oriented JSON child (bench/inproc.py, bench/dask_cluster.py)."""

    def __init__(self, script, what):
        self.what = what
        self.p = subprocess.Popen([PY, os.path.join(ROOT, "bench", script)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        self.hello = json.loads(self.p.stdout.readline() or "{}")
        if not self.hello.get("ready"):
            self.stop()
            raise RuntimeError("%s did not start" % what)

    def ask(self, req):
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        r = json.loads(self.p.stdout.readline() or '{"error": "it died"}')
        if "error" in r:
            raise RuntimeError("%s: %s" % (self.what, r["error"]))
        return r

    def stop(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.p.kill()
            self.p.wait()


class InProc(Peer):
    """bench/inproc.py: numpy/pandas and Dask threads in a warm interpreter
    (imports done; numpy's inputs built, and timed, apart from the compute)."""

    def __init__(self):
        super().__init__("inproc.py", "in-process interpreter")

    def numpy(self, w):
        r = self.ask({"setup": w["np_setup"], "compute": w["np_compute"]})
        return {"numpy-in": r["setup_s"] + r["compute_s"], "numpy-in-compute": r["compute_s"]}

    def dask(self, w):
        r = self.ask({"setup": "", "compute": w["dask"]})
        return r["compute_s"]


class DaskDistributed(Peer):
    """bench/dask_cluster.py: a dask.distributed LocalCluster (2 workers of
    one thread) kept running; each run is timed inside it, result in hand."""

    def __init__(self):
        super().__init__("dask_cluster.py", "dask.distributed LocalCluster")

    def run(self, code, out):
        return self.ask({"code": code, "out": out})["seconds"]


def proc_status(pid, field):
    """A memory field of /proc/PID/status (VmRSS, VmHWM) in bytes; 0 if gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cpu_times(pid):
    """(user, system) CPU seconds of a process, 0s if gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        hz = os.sysconf("SC_CLK_TCK")
        return int(fields[11]) / hz, int(fields[12]) / hz
    except (OSError, IndexError, ValueError):
        return 0.0, 0.0


def vm_hwm(pid):
    return proc_status(pid, "VmHWM")


class LocalCluster:
    """scripts/run-cluster.sh in the background (its own process group);
    stopped by SIGTERM to the group. `env` adds settings (MARS_WORKER_PHY_MEM,
    ...). A thread drains the script's output, so worker restarts it reports
    are seen (and the pipe never fills)."""

    def __init__(self, env=None):
        import threading
        env = dict(os.environ, MARS_WEB_PORT="0", **(env or {}))
        self.p = subprocess.Popen([os.path.join(ROOT, "scripts", "run-cluster.sh")], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  start_new_session=True)
        self.url = None
        self.redis_port = None
        self.lines = []
        for line in self.p.stdout:
            self.lines.append(line)
            m = re.search(r"Redis on :(\d+)", line)
            if m:
                self.redis_port = int(m.group(1))
            m = re.search(r"dashboard:\s+(http://[^/\s]+)/?(?:\?token=(\w+))?$", line.strip())
            if m:
                self.url, tok = m.group(1), m.group(2)
                break
        if not self.url:
            self.p.wait()
            raise RuntimeError("the local cluster did not start: " + "".join(self.lines[-15:]).strip())
        # make run's token (printed in the dashboard link) goes with every request
        self.headers = {"Authorization": "Bearer " + tok} if tok else {}
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()

    def _drain(self):
        for line in self.p.stdout:
            self.lines.append(line)

    def restarts(self):
        return [l.strip() for l in self.lines if "restarted as pid" in l]

    def _req(self, method, path, body=None, timeout=900):
        h = dict(self.headers, **{"Content-Type": "application/json"})
        r = urllib.request.Request(self.url + path, data=body, method=method, headers=h)
        with urllib.request.urlopen(r, timeout=timeout) as f:
            return f.read()

    def submit_wait(self, doc, deadline=None):
        sid = json.loads(self._req("POST", "/api/v1/sessions"))["session_id"]
        tid = json.loads(self._req("POST", "/api/v1/sessions/%s/tasks" % sid,
                                   json.dumps(doc).encode()))["task_id"]
        while True:
            if deadline and time.monotonic() > deadline:
                raise RuntimeError("still running after the time limit")
            t = json.loads(self._req("GET", "/api/v1/sessions/%s/tasks/%s?wait=%d" % (
                sid, tid, 60 if not deadline else max(1, min(60, deadline - time.monotonic())))))
            if t["status"] not in ("pending", "running"):
                break
        if t["status"] != "succeeded":
            raise RuntimeError("cluster task %s: %s" % (t["status"], t["error"]))
        return sid, t

    def upload(self, path):
        """PUT /api/v1/files/{name}: a data file for read_csv."""
        with open(path, "rb") as f:
            body = f.read()
        h = dict(self.headers, **{"Content-Type": "text/csv"})
        r = urllib.request.Request(self.url + "/api/v1/files/" + os.path.basename(path), data=body,
                                   method="PUT", headers=h)
        with urllib.request.urlopen(r, timeout=900) as f:
            f.read()

    def _get_into(self, path, timeout=900):
        """GET into one buffer of the answer's Content-Length, read in place
        (readinto), the way the Python client fills its numpy array."""
        r = urllib.request.Request(self.url + path, headers=self.headers)
        with urllib.request.urlopen(r, timeout=timeout) as f:
            n = f.headers.get("Content-Length")
            if n is None:
                return f.read()
            buf = bytearray(int(n))
            view, got = memoryview(buf), 0
            while got < len(buf):
                k = f.readinto(view[got:])
                if not k:
                    raise RuntimeError("%s: the answer ended after %d of %d bytes" % (path, got, len(buf)))
                got += k
            return buf

    def run(self, doc, out_dir, df=False, deadline=None):
        """Submit to result in hand (in this process' memory, as the Python
        client holds it); returns seconds. The files for the exactness check
        are written after the clock stops: numpy in-process and Dask write
        nothing either."""
        t0 = time.perf_counter()
        sid, _ = self.submit_wait(doc, deadline)
        got = []
        for key in doc["fetch"]:
            q = "" if df else "?format=npy"
            got.append((key, self._get_into("/api/v1/sessions/%s/tensors/%s/data%s" % (sid, key, q))))
        dt = time.perf_counter() - t0
        os.makedirs(out_dir, exist_ok=True)
        for key, data in got:
            with open(os.path.join(out_dir, key + (".json" if df else ".npy")), "wb") as f:
                f.write(data)
        del got
        self._req("DELETE", "/api/v1/sessions/%s" % sid)
        return dt

    def group_procs(self, name):
        """pid -> argv of this cluster's processes (its group) named `name`."""
        out = {}
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                if os.getpgid(int(d)) != self.p.pid:
                    continue
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
            except OSError:
                continue
            # PostgreSQL's backends retitle themselves "postgres: ..."
            # and Redis "redis-server HOST:PORT": the first word counts
            if argv and re.split(r"[:\s]", os.path.basename(argv[0]))[0] == name:
                out[int(d)] = argv
        return out

    def cpu_by_role(self):
        """{role: (user, system) seconds} summed over this cluster's processes
        now alive: workers, Redis, the supervisor, PostgreSQL."""
        roles = {"mars-worker": "workers", "redis-server": "Redis", "mars-supervisor": "supervisor",
                 "postgres": "PostgreSQL"}
        out = {}
        for name, role in roles.items():
            for pid in self.group_procs(name):
                u, s = cpu_times(pid)
                pu, ps = out.get(role, (0.0, 0.0))
                out[role] = (pu + u, ps + s)
        return out

    def worker_pids(self):
        return sorted(self.group_procs("mars-worker"))

    def worker_flag(self, argv, flag):
        return argv[argv.index(flag) + 1] if flag in argv else None

    def spill_files(self):
        """Chunk files left under the workers' --spill-dirs (a running
        worker's directory holds its `owner` marker: not a chunk)."""
        left = []
        for argv in self.group_procs("mars-worker").values():
            for d in (self.worker_flag(argv, "--spill-dirs") or "").split(":"):
                for top, _, files in os.walk(d) if d else ():
                    left += [os.path.join(top, f) for f in files if f != "owner"]
        return left

    def redis_info(self):
        """Redis's INFO memory fields (redis-cli, installed with redis-server)."""
        r = subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(self.redis_port), "INFO", "memory"],
                           capture_output=True, text=True, timeout=10)
        return dict(l.strip().split(":", 1) for l in r.stdout.splitlines() if ":" in l)

    def stop(self):
        try:
            os.killpg(self.p.pid, signal.SIGTERM)
            self.p.wait(timeout=60)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass


class MemWatch:
    """Samples the cluster's workers and Redis every 0.2 s while a run goes
    on; aborts it (stops the cluster) past the W9 guards above."""

    def __init__(self, cluster):
        import threading
        self.c = cluster
        self.peak_rss = {}  # worker pid -> highest VmRSS seen
        self.redis_rss = 0
        self.reason = None
        self.stop_ev = threading.Event()
        self.phy = {}
        for pid, argv in cluster.group_procs("mars-worker").items():
            self.phy[pid] = parse_size(cluster.worker_flag(argv, "--phy-mem") or "0")
        self.th = threading.Thread(target=self._loop, daemon=True)
        self.th.start()

    def _loop(self):
        while not self.stop_ev.wait(0.2):
            over = []
            for pid, argv in self.c.group_procs("mars-worker").items():
                if pid not in self.phy:
                    self.phy[pid] = parse_size(self.c.worker_flag(argv, "--phy-mem") or "0")
                rss = proc_status(pid, "VmRSS")
                self.peak_rss[pid] = max(self.peak_rss.get(pid, 0), rss, vm_hwm(pid))
                if self.phy[pid] and rss > W9_RSS_FACTOR * self.phy[pid]:
                    over.append("worker pid %d resident %.0f MiB, over %gx its --phy-mem (%.0f MiB)" % (
                        pid, rss / 2**20, W9_RSS_FACTOR, self.phy[pid] / 2**20))
            for pid in self.c.group_procs("redis-server"):
                rss = proc_status(pid, "VmRSS")
                self.redis_rss = max(self.redis_rss, rss)
                if rss > W9_REDIS_CAP:
                    over.append("Redis resident %.0f MiB, over the %.0f MiB guard" % (
                        rss / 2**20, W9_REDIS_CAP / 2**20))
            if mem_available() < MEM_FLOOR:
                over.append("the host's MemAvailable fell under %.1f GiB" % (MEM_FLOOR / 2**30))
            if over:
                self.abort("; ".join(over))

    def abort(self, reason):
        if self.reason:
            return
        self.reason = reason
        print("W9 guard: %s: stopping its cluster" % reason, flush=True)
        self.stop_ev.set()
        self.c.stop()

    def done(self):
        self.stop_ev.set()
        self.th.join()


def parse_size(v):
    m = re.fullmatch(r"(\d+)([kmgtKMGT]?)", v.strip())
    if not m:
        return 0
    return int(m.group(1)) << (10 * " kmgt".index(m.group(2).lower() or " "))


def run_once(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError("%s failed: %s" % (cmd[0], p.stderr.decode()[-300:].strip()))
    return dt


def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return "%s, %d cores, %.0f GiB, %s" % (cpu, os.cpu_count(), mem, platform.platform())


def measure_w7(cluster, n, tmp):
    """Tiling time (mars-run --stats), the cluster's jobs per second, and the
    latency of /api/v1/health and of the dashboard while the task runs."""
    import threading
    r = {"chunks": n}
    doc = w7_doc(n)
    path = os.path.join(tmp, "W7.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    p = subprocess.run([MARS_RUN, path, "-o", os.path.join(tmp, "out-W7"), "--stats"],
                       capture_output=True, text=True)
    m = re.search(r"(\d+) jobs \((\d+) run\).*tile ([0-9.]+) s, run ([0-9.]+) s", p.stderr)
    if m:
        r.update(jobs=int(m.group(1)), jobs_run=int(m.group(2)), tile_s=float(m.group(3)),
                 mars_run_s=float(m.group(4)))
    if not cluster:
        return r
    lat = {"health": [], "dashboard": [], "workers": []}
    stop = threading.Event()

    def probe():
        paths = {"health": "/api/v1/health", "dashboard": "/", "workers": "/api/v1/workers"}
        while not stop.is_set():
            for k, path in paths.items():
                t0 = time.perf_counter()
                try:
                    cluster._req("GET", path, timeout=30)
                    lat[k].append(time.perf_counter() - t0)
                except Exception:  # noqa: BLE001 (a refused dashboard counts as no answer)
                    lat[k].append(float("inf"))
            stop.wait(0.1)
    th = threading.Thread(target=probe)
    th.start()
    t0 = time.perf_counter()
    try:
        sid, t = cluster.submit_wait(doc)
        r["cluster_s"] = time.perf_counter() - t0
        r["cluster_chunks"] = t["chunks_total"]
        cluster._req("DELETE", "/api/v1/sessions/%s" % sid)
    except Exception as e:  # noqa: BLE001
        r["cluster_error"] = str(e)
    stop.set()
    th.join()
    for k, v in lat.items():
        v.sort()
        if v:
            r[k + "_p50_ms"] = v[len(v) // 2] * 1e3
            r[k + "_p99_ms"] = v[min(len(v) - 1, int(len(v) * 0.99))] * 1e3
            r[k + "_max_ms"] = v[-1] * 1e3
    if "cluster_s" in r:
        r["jobs_per_s"] = r["cluster_chunks"] / r["cluster_s"]
    return r


def targets7(rows, w7):
    """Issue 7's targets (ratios to the whole-process numpy column)."""
    med = {name: m for name, _, m, _ in rows}
    out = []

    def ratio(w, k, limit, text):
        m = med.get(w, {})
        if k in m and "numpy" in m:
            r = m[k] / m["numpy"]
            out.append((text, "%.2fx" % r, "met" if r <= limit else "missed by %.2fx" % (r - limit)))
    ratio("W1", "mars-run", 1.3, "W1: mars-run at most 1.3x numpy")
    ratio("W1", "cluster", 2.0, "W1: cluster at most 2x numpy")
    ratio("W3", "cluster", 1.0, "W3: cluster no slower than numpy")
    ratio("W4", "cluster", 1.5, "W4: cluster at most 1.5x numpy")
    ratio("W5", "mars-run", 1.5, "W5: mars-run at most 1.5x pandas")
    ratio("W5", "cluster", 1.5, "W5: cluster at most 1.5x pandas")
    if "cluster" in med.get("W6", {}):
        t = med["W6"]["cluster"]
        out.append(("W6: cluster at most 0.15 s end to end", "%.3f s" % t,
                    "met" if t <= 0.15 else "missed by %.3f s" % (t - 0.15)))
    if w7 and "jobs_per_s" in w7:
        j = w7["jobs_per_s"]
        out.append(("W7: at least 20,000 chunk jobs a second", "%.0f jobs/s (%d jobs for %d chunks)"
                    % (j, w7["cluster_chunks"], w7["chunks"]),
                    "met" if j >= 20000 else "missed by %.0f jobs/s" % (20000 - j)))
        for k, path in (("health", "/api/v1/health"), ("dashboard", "/")):
            if k + "_max_ms" in w7:
                v = w7[k + "_max_ms"]
                out.append(("W7: `GET %s` within 100 ms while it runs" % path, "max %.1f ms" % v,
                            "met" if v <= 100 else "missed (max %.1f ms)" % v))
    return out


def targets11(rows):
    """Issue 11's targets, from this run: (target, measured, verdict)."""
    med = {name: m for name, _, m, _ in rows}
    info = {name: x for name, _, _, x in rows}
    out = []

    def ratio(w, k, base, limit, text, also=None):
        m = med.get(w, {})
        if k not in m or base not in m:
            if w in med:
                out.append((text, "not measured (%s or %s missing)" % (k, base), "unknown"))
            return
        r = m[k] / m[base]
        meas = "%.2fx (%.3f s / %.3f s)" % (r, m[k], m[base])
        if also and also in m:
            meas += "; %.2fx against %s" % (m[k] / m[also], COLS.get(also, also))
        out.append((text, meas, "met" if r <= limit else "missed by %.2fx" % (r - limit)))
    ratio("W8", "cluster", "mars-run", 2.0, "W8: cluster at most 2x mars-run")
    ratio("W8", "cluster", "dask-in", 1.0, "W8: cluster faster than Dask threads (in-process)", "dask")
    x = info.get("W9", {})
    if "W9" in med or x:
        if x.get("cluster_error"):
            out.append(("W9: completes with the exact result", "did not complete: " + x["cluster_error"],
                        "missed"))
        elif "exact" in x:
            out.append(("W9: completes with the exact result", "%.1f s; %s" % (
                med["W9"].get("cluster", float("nan")), x["exact"]),
                "met" if x["exact"].startswith("identical") else "missed"))
        if x.get("worker_peak"):
            worst = max(x["worker_peak"], key=lambda t: t[1] / max(t[2], 1))
            over = [t for t in x["worker_peak"] if t[2] and t[1] >= t[2]]
            out.append(("W9: every worker's peak RSS under its --phy-mem",
                        "; ".join("pid %d %.0f MiB of %.0f" % (p, b / 2**20, l / 2**20)
                                  for p, b, l in x["worker_peak"]),
                        "missed (worst %.1fx)" % (worst[1] / worst[2]) if over else
                        "met" if "cluster" in med["W9"] else "unknown (the run did not complete)"))
        if "redis_peak" in x:
            v = x["redis_peak"]
            out.append(("W9: Redis peak memory under 64 MiB", "used_memory_peak %.1f MiB" % (v / 2**20),
                        ("met" if "cluster" in med["W9"] else "unknown (the run did not complete)")
                        if v < REDIS_TARGET else "missed by %.1f MiB" % ((v - REDIS_TARGET) / 2**20)))
        if "spill_left" in x:
            n = len(x["spill_left"])
            out.append(("W9: no spill file left behind", "%d files left" % n, "met" if n == 0 else "missed"))
    ratio("W1", "cluster", "numpy-in", 2.0, "W1: cluster at most 2x numpy in-process", "numpy-in-compute")
    ratio("W4", "cluster", "numpy-in", 1.5, "W4: cluster at most 1.5x numpy in-process", "numpy-in-compute")
    ratio("W5g", "cluster", "numpy-in", 1.5, "W5g: cluster at most 1.5x pandas in-process",
          "numpy-in-compute")
    return out


COLS = {"numpy": "numpy/pandas, process", "numpy-in": "numpy/pandas in-process",
        "numpy-in-compute": "numpy/pandas in-process, inputs ready", "mars-run": "mars-run",
        "cluster": "cluster", "dask": "Dask threads, process", "dask-in": "Dask threads in-process",
        "distributed": "dask.distributed"}


def same_result(ref_dir, got_dir, keys, df):
    """The cluster's fetched results against mars-run's, as a phrase."""
    import numpy as np
    notes = []
    for key in keys:
        ext = ".json" if df else ".npy"
        a, b = os.path.join(ref_dir, key + ext), os.path.join(got_dir, key + ext)
        if not (os.path.exists(a) and os.path.exists(b)):
            return "not checked (%s missing)" % (a if not os.path.exists(a) else b)
        if df:
            with open(a) as fa, open(b) as fb:
                if json.load(fa) != json.load(fb):
                    return "DIFFERS from mars-run (%s)" % key
            continue
        x, y = np.load(a), np.load(b)
        if x.shape != y.shape or x.dtype != y.dtype:
            return "DIFFERS from mars-run: %s %s %s against %s %s" % (key, y.shape, y.dtype, x.shape, x.dtype)
        if not np.array_equal(x, y, equal_nan=x.dtype.kind == "f"):
            d = float(np.max(np.abs(x - y) / np.maximum(np.abs(x), 1e-300)))
            return "DIFFERS from mars-run: %s max relative difference %.3g" % (key, d)
        notes.append(key)
    return "identical to mars-run's output (%s)" % ", ".join(notes or keys)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_RUNS", "5")))
    ap.add_argument("--heavy-runs", type=int, default=int(os.environ.get("BENCH_HEAVY_RUNS", "1")),
                    help="runs of W9 (no warm-up)")
    ap.add_argument("--only", default=os.environ.get("BENCH_ONLY", ""),
                    help="workloads, e.g. W1,W8,W9 (or BENCH_ONLY)")
    ap.add_argument("--out", default=os.environ.get("BENCH_OUT") or None, help="(or BENCH_OUT) ""the markdown written (default docs/benchmarks.md "
                    "for a run of every workload and column; none for a subset)")
    ap.add_argument("--columns", default=os.environ.get("BENCH_COLUMNS", ""),
                    help="only these columns, e.g. cluster,mars-run (or BENCH_COLUMNS): " + ", ".join(
                        ["numpy", "numpy-in", "mars-run", "cluster", "dask", "dask-in", "distributed"]))
    ap.add_argument("--stat", choices=("median", "best"), default=os.environ.get("BENCH_STAT", "median"),
                    help="what a cell shows of its runs (or BENCH_STAT): the median, or the best "
                    "(least disturbed on a shared machine)")
    ap.add_argument("--no-cluster", action="store_true")
    ap.add_argument("--no-distributed", action="store_true")
    ap.add_argument("--no-inproc", action="store_true")
    ap.add_argument("--w7-chunks", type=int, default=W7_CHUNKS)
    a = ap.parse_args()
    a.load0 = os.getloadavg()[0]
    only = [n.strip() for n in a.only.split(",") if n.strip()]
    bad = [n for n in only if n not in WORKLOADS and n != "W7"]
    if bad:
        print("bench: unknown workload(s) %s; known: %s, W7" % (", ".join(bad), ", ".join(WORKLOADS)),
              file=sys.stderr)
        return 2
    a.columns = [c.strip() for c in a.columns.split(",") if c.strip()]
    known = ["numpy", "numpy-in", "mars-run", "cluster", "dask", "dask-in", "distributed"]
    if [c for c in a.columns if c not in known]:
        print("bench: unknown column(s) %s; known: %s" % (
            ", ".join(c for c in a.columns if c not in known), ", ".join(known)), file=sys.stderr)
        return 2
    if a.columns:
        a.no_cluster |= "cluster" not in a.columns
        a.no_distributed |= "distributed" not in a.columns
        a.no_inproc |= "numpy-in" not in a.columns and "dask-in" not in a.columns
    if a.out is None:
        a.out = "" if only or a.columns else os.path.join(ROOT, "docs", "benchmarks.md")
    names = [n for n in WORKLOADS if not only or n in only]
    light = [n for n in names if not WORKLOADS[n].get("heavy")]
    heavy = [n for n in names if WORKLOADS[n].get("heavy")]
    rows, errors = [], []
    tmp = tempfile.mkdtemp(prefix="mars-bench-")
    state = {"cluster": None, "env": None}
    peak = {}

    def cluster_for(env):
        """The local cluster with these settings (one at a time: another is
        stopped first, the main one's worker peaks recorded)."""
        if a.no_cluster:
            return None
        if state["cluster"] and state["env"] == env:
            return state["cluster"]
        stop_cluster()
        try:
            state["cluster"] = LocalCluster(env)
            state["env"] = env
        except RuntimeError as e:
            errors.append(str(e))
            state["cluster"], state["env"] = None, None
        return state["cluster"]

    def stop_cluster():
        c = state["cluster"]
        if not c:
            return
        if not state["env"]:
            for pid in c.worker_pids():
                peak[pid] = vm_hwm(pid)
        c.stop()
        state["cluster"] = None

    dist = None
    if not a.no_distributed and have_module("distributed"):
        try:
            dist = DaskDistributed()
        except RuntimeError as e:
            errors.append(str(e))
    w7 = None
    try:
        for name in light + (["W7"] if not only or "W7" in only else []) + heavy:
            if name == "W7":
                w7 = measure_w7(cluster_for({}), a.w7_chunks, tmp)
                print("W7", json.dumps(w7), flush=True)
                continue
            rows.append(run_workload(name, WORKLOADS[name], a, tmp, cluster_for, dist, errors))
    finally:
        stop_cluster()
        if dist:
            dist.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    for e in errors:
        print("note:", e)
    md = report(rows, errors, w7, peak, a)
    print()
    print("\n".join(l for l in md if l.startswith("|")))
    # The hand-written analysis (profiles, what was done, targets missed)
    # survives re-runs: it lives in its own file and is included verbatim.
    if os.path.exists(NOTES):
        with open(NOTES) as f:
            md += ["", f.read().rstrip()]
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w") as f:
            f.write("\n".join(md) + "\n")
        print("wrote", a.out)
    return 0


def run_workload(name, w, a, tmp, cluster_for, dist, errors):
    """One workload's columns, run in turn; returns (name, title, medians, info)."""
    heavy = w.get("heavy", False)
    info = {}
    if w.get("files"):
        make_files(w["files"], os.path.join(tmp, "data"))
        w = with_data(w, os.path.join(tmp, "data"))
    cmds = commands(name, w, tmp)
    runners = {k: (lambda c=c: run_once(c)) for k, c in cmds.items()}
    inproc = None
    if not a.no_inproc:
        try:
            inproc = InProc()
            runners["numpy-in"] = lambda: inproc.numpy(w)
            if inproc.hello.get("dask"):
                runners["dask-in"] = lambda: inproc.dask(w)
        except RuntimeError as e:
            errors.append("%s: %s" % (name, e))
    cluster = cluster_for(w.get("cluster_env") or {})
    cdir = os.path.join(tmp, "cluster-" + name)
    if cluster and w.get("files"):  # uploaded once, not timed
        try:
            for f in sorted(os.listdir(os.path.join(tmp, "data"))):
                if f.endswith(".csv") or f.endswith(".csv.gz"):
                    cluster.upload(os.path.join(tmp, "data", f))
        except Exception as e:  # noqa: BLE001 (reported; the other columns go on)
            errors.append("%s cluster: upload: %s" % (name, e))
            cluster = None
    if cluster:
        def run_cluster():
            before = cluster.cpu_by_role() if w.get("profile") else {}
            if heavy:
                t = heavy_cluster_run(cluster, w, cdir, info)
            else:
                t = cluster.run(w["doc"], cdir, w.get("df", False))
            if w.get("profile"):  # CPU seconds per role over the timed runs
                after = cluster.cpu_by_role()
                cpu = info.setdefault("cluster_cpu", {})
                for role, (u, s_) in after.items():
                    bu, bs = before.get(role, (0.0, 0.0))
                    cu, cs = cpu.get(role, (0.0, 0.0))
                    cpu[role] = (cu + u - bu, cs + s_ - bs)
                info["cluster_cpu_runs"] = info.get("cluster_cpu_runs", 0) + 1
            return t
        runners["cluster"] = run_cluster
    if dist:
        runners["distributed"] = lambda: dist.run(w["dask"], os.path.join(tmp, name + "-distributed.out"))
    need = w.get("mem_need", 0)
    times = {}
    selected = [k for k in runners if not a.columns or k in a.columns]
    live = list(selected)

    def one(k):
        if need and k in ("numpy", "numpy-in") and mem_available() < need + MEM_FLOOR:
            raise RuntimeError("skipped: MemAvailable %.1f GiB, it needs ~%.1f GiB and %.1f GiB stay free"
                               % (mem_available() / 2**30, need / 2**30, MEM_FLOOR / 2**30))
        r = runners[k]()
        for col, t in (r.items() if isinstance(r, dict) else [(k, r)]):
            times.setdefault(col, []).append(t)

    n_runs = a.heavy_runs if heavy else a.runs
    warm = 0 if heavy else 1
    try:
        for i in range(warm + n_runs):
            for k in list(live):
                try:
                    if i < warm:
                        r = runners[k]()  # warm-up, not counted (printed: a cold cache's time)
                        for col, t in (r.items() if isinstance(r, dict) else [(k, r)]):
                            info.setdefault("warmup", {})[col] = t
                        info.pop("cluster_cpu", None)
                        info.pop("cluster_cpu_runs", None)
                    else:
                        one(k)
                except Exception as e:  # noqa: BLE001 (a failing column is reported, not fatal)
                    errors.append("%s %s: %s" % (name, COLS.get(k, k), e))
                    live.remove(k)
                    for col in [c for c in times if c == k or c.startswith(k + "-")]:
                        del times[col]
    finally:
        if inproc:
            inproc.stop()
    info["runs"] = times
    pick = min if a.stat == "best" else statistics.median
    med = {k: pick(v) for k, v in times.items() if v}
    if "cluster" in med:
        info["exact"] = same_result(os.path.join(tmp, "out-" + name), cdir, w["doc"]["fetch"], w.get("df"))
    elif heavy and "cluster" in selected and "cluster_error" not in info:
        info["cluster_error"] = next((e.split(": ", 1)[1] for e in errors
                                      if e.startswith(name + " cluster")), "not run")
    ref = med.get("numpy-in")
    print("%s %s" % (name, w["title"]), flush=True)
    print("   " + "  ".join("%s %.3fs%s" % (k, med[k], " (x%.2f)" % (med[k] / ref) if ref else "")
                           for k in med), flush=True)
    print("   runs: " + "  ".join("%s %s" % (k, " ".join("%.3f" % t for t in v))
                                 for k, v in times.items()), flush=True)
    if "warmup" in info:
        print("   warm-up runs: " + "  ".join("%s %.3f" % kv for kv in info["warmup"].items()),
              flush=True)
    if "exact" in info:
        print("   cluster result: " + info["exact"], flush=True)
    for k in ("worker_peak", "redis_peak", "spill_left", "restarts", "cluster_error", "cluster_cpu"):
        if k in info:
            print("   %s: %s" % (k, info[k]), flush=True)
    return name, w["title"], med, info


def heavy_cluster_run(cluster, w, out_dir, info):
    """W9 on its own cluster, watched: peak RSS of every worker, Redis's peak,
    the spill directories after the run. Raises (reported) when the task
    fails, a guard stops it or it passes W9_TIMEOUT."""
    watch = MemWatch(cluster)
    try:
        t = cluster.run(w["doc"], out_dir, w.get("df", False), deadline=time.monotonic() + W9_TIMEOUT)
    except Exception as e:  # noqa: BLE001
        watch.done()
        info["cluster_error"] = watch.reason and "aborted: " + watch.reason or str(e)
        if not watch.reason:
            cluster.stop()  # a timed-out task must not run on
        raise RuntimeError(info["cluster_error"])
    finally:
        watch.done()
        info["restarts"] = cluster.restarts() or []
        if not info["restarts"]:
            del info["restarts"]
        pids = cluster.group_procs("mars-worker")
        for pid, argv in pids.items():
            watch.peak_rss[pid] = max(watch.peak_rss.get(pid, 0), vm_hwm(pid))
        info["worker_peak"] = [(pid, b, watch.phy.get(pid, 0)) for pid, b in sorted(watch.peak_rss.items())]
        if pids:
            try:
                mi = cluster.redis_info()
                info["redis_peak"] = int(mi["used_memory_peak"])
                info["redis_rss_peak"] = watch.redis_rss
            except (OSError, KeyError, ValueError, subprocess.SubprocessError) as e:
                info["redis_error"] = str(e)
            # the session is deleted: its spill files may go a moment later
            end = time.monotonic() + 10
            while cluster.spill_files() and time.monotonic() < end:
                time.sleep(0.2)
            info["spill_left"] = cluster.spill_files()
    return t


def report(rows, errors, w7, peak, a):
    md = ["# Benchmarks", "",
          "Measured by `make bench` (bench/bench.py). Whole processes that build the inputs, "
          "compute and write the result: numpy/pandas, mars-run, Dask threads. In a warm "
          "interpreter (bench/inproc.py; imports done before timing, the result in hand, "
          "nothing written), the way a notebook user compares: numpy/pandas, timed with "
          "building the inputs (the document's creation ops) and, in parentheses, without "
          "(inputs ready), and Dask threads (graph built and computed). For the two clusters "
          "(ours through the REST API, dask.distributed's LocalCluster with 2 worker processes "
          "of one thread) submit to result in hand, timed in the client (ours: the .npy read "
          "into memory, as the Python client reads it; the check's file written after). %s of %d runs "
          "after a warm-up, run in turn (W9: %d run, no warm-up); ratio = that / numpy "
          "in-process's (with its inputs built), lower is better. Load average (1 min) at the "
          "start %.1f, at the end %.1f." % ("Best" if a.stat == "best" else "Median", a.runs,
                                           a.heavy_runs, a.load0, os.getloadavg()[0]), "",
          "Machine: " + machine(), "",
          "| workload | | numpy, process s | numpy in-process s (inputs ready) | mars-run s (ratio) "
          "| cluster, REST s (ratio) | Dask threads, process s | Dask threads in-process s (ratio) "
          "| dask.distributed s (ratio) |",
          "|---|---|---|---|---|---|---|---|---|"]

    def col(med, k):
        if k not in med:
            return "n/a"
        if "numpy-in" not in med:
            return "%.3f" % med[k]
        return "%.3f (%.2f)" % (med[k], med[k] / med["numpy-in"])

    def plain(med, k):
        return "%.3f" % med[k] if k in med else "n/a"
    for name, title, med, info in rows:
        npin = plain(med, "numpy-in")
        if "numpy-in-compute" in med:
            npin += " (%.3f)" % med["numpy-in-compute"]
        md.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, title, plain(med, "numpy"), npin, col(med, "mars-run"), col(med, "cluster"),
            plain(med, "dask"), col(med, "dask-in"), col(med, "distributed")))
    exact = [(n, x["exact"]) for n, _, _, x in rows if "exact" in x]
    if exact:
        md += ["", "The cluster's results against mars-run's output of the same document: "
               + "; ".join("%s %s" % e for e in exact) + "."]
    md += ["", "Every run, in seconds, in the order taken:", ""]
    for n, _, _, x in rows:
        md.append("- %s: " % n + "; ".join("%s %s" % (COLS.get(k, k), " ".join("%.3f" % t for t in v))
                                          for k, v in x.get("runs", {}).items()))
    cpu = [(n, x) for n, _, _, x in rows if x.get("cluster_cpu")]
    if cpu:
        md += ["", "CPU seconds (user + system) of the cluster's processes per cluster run "
               "(/proc/PID/stat before and after each timed run):", ""]
        for n, x in cpu:
            k = x["cluster_cpu_runs"]
            md.append("- %s: " % n + ", ".join("%s %.1f + %.1f" % (role, u / k, s_ / k)
                                              for role, (u, s_) in sorted(x["cluster_cpu"].items())))
    if errors:
        md += ["", "Columns that could not run:", ""] + ["- " + e for e in errors]
    for name, title, med, x in rows:
        if not WORKLOADS[name].get("heavy"):
            continue
        md += ["", "## %s on a memory-bound cluster" % name, "",
               "Its own `scripts/run-cluster.sh` cluster: 2 workers started with `--phy-mem 1g "
               "--cache-mem 512m --spill-dirs DIR` (MARS_WORKER_PHY_MEM, MARS_WORKER_CACHE_MEM); "
               "watched every 0.2 s, and stopped if a worker's resident memory passes %gx its "
               "--phy-mem, Redis's %.0f MiB, the host's MemAvailable falls under %.1f GiB, or "
               "after %.0f s." % (W9_RSS_FACTOR, W9_REDIS_CAP / 2**20, MEM_FLOOR / 2**30, W9_TIMEOUT), ""]
        if "cluster" in med:
            md.append("- completed in %.1f s; %s." % (med["cluster"], x.get("exact", "?")))
        if x.get("cluster_error"):
            md.append("- did not complete: %s." % x["cluster_error"])
        for pid, b, lim in x.get("worker_peak", []):
            md.append("- worker pid %d: peak resident %.1f MiB (--phy-mem %.0f MiB)" % (
                pid, b / 2**20, lim / 2**20))
        if "redis_peak" in x:
            md.append("- Redis: used_memory_peak %.1f MiB, peak resident %.1f MiB" % (
                x["redis_peak"] / 2**20, x.get("redis_rss_peak", 0) / 2**20))
        if "spill_left" in x:
            md.append("- spill files left after the run: %d%s" % (
                len(x["spill_left"]), (" (" + ", ".join(x["spill_left"][:5]) + ")") if x["spill_left"] else ""))
        for r in x.get("restarts", []):
            md.append("- " + r)
    if w7:
        md += ["", "## W7: one task of %d tiny chunks (`ones` chunk 1, `(a + 1).sum()`), run once"
               % w7["chunks"], ""]
        if "tile_s" in w7:
            md.append("- mars-run: %d jobs (%d run), tiling %.3f s, running %.3f s."
                      % (w7["jobs"], w7["jobs_run"], w7["tile_s"], w7["mars_run_s"]))
        if "cluster_s" in w7:
            md.append("- cluster: %d jobs in %.1f s end to end: %.0f jobs per second "
                      "(%.0f input chunks per second)."
                      % (w7["cluster_chunks"], w7["cluster_s"], w7["jobs_per_s"],
                         w7["chunks"] / w7["cluster_s"]))
        if "cluster_error" in w7:
            md.append("- cluster: " + w7["cluster_error"])
        for k in ("health", "dashboard", "workers"):
            if k + "_p50_ms" in w7:
                md.append("- `GET %s` while it ran: median %.1f ms, p99 %.1f ms, max %.1f ms." % (
                    {"health": "/api/v1/health", "dashboard": "/", "workers": "/api/v1/workers"}[k],
                    w7[k + "_p50_ms"], w7[k + "_p99_ms"], w7[k + "_max_ms"]))
    if peak:
        md += ["", "## Worker memory", "",
               "Peak resident memory (VmHWM) of each worker of the main cluster after the "
               "workloads above (W9 has its own):", ""]
        for pid, b in sorted(peak.items()):
            md.append("- pid %d: %.1f MiB" % (pid, b / 2**20))
    for title, tg in (("Targets (issue 11), from this run", targets11(rows)),
                      ("Targets (issue 7: ratios to the whole-process numpy column), from this run",
                       targets7(rows, w7))):
        if tg:
            md += ["", "## " + title, "", "| target | measured | |", "|---|---|---|"]
            md += ["| %s | %s | %s |" % t for t in tg]
    return md


if __name__ == "__main__":
    # a SIGTERM (timeout(1), a CI's stop) unwinds like an error, so main's
    # finally stops the clusters it started (their own process groups)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
