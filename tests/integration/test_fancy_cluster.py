#!/usr/bin/python3
"""Advanced indexing through a two-worker cluster (docs/graph-format.md,
"Advanced indexing"): getitem with integer tensors and boolean masks,
setitem, take, compress, extract, argwhere and flatnonzero on uneven
chunks spread over both workers. Every fetched result must equal numpy's
and, byte for byte, mars-run's for the same document; an index out of
bounds fails the task with numpy's message naming the node, as mars-run
does; a held result (a mask's) is fetched as .npy and JSON, and a later
task that feeds it to a tensor op is refused; session tensors made by an
earlier task (their chunks on the workers) are indexed by a later one.
"""
import io
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import Cluster, Runner, check, get, request  # noqa: E402
import test_cluster_parity as cp  # noqa: E402

RNG = np.random.default_rng(1123)


def arr(key, v, chunk=None):
    v = np.asarray(v)
    n = {"key": key, "op": "array", "data": v.tolist(), "dtype": str(v.dtype)}
    if chunk is not None:
        n["chunk_size"] = chunk
    return n


A = np.round(RNG.normal(0, 5, (11, 7)), 3)
AI = RNG.integers(-20, 20, (13,))
M = A > 0
IDX = np.array([10, -1, 0, 3, 3, 7])
J = np.array([[6], [0], [-2]])
B = A.copy()
B[M] = 0
C = A.copy()
C[IDX[:3], [1, 2, 3]] = np.array([-1.0, -2.0, -3.0])

DOC = {"version": 1, "nodes": [
    arr("a", A, [4, 3]),
    arr("ai", AI, 5),
    arr("i", IDX, 4),
    arr("j", J, [2, 1]),
    arr("v", np.array([-1.0, -2.0, -3.0]), 2),
    arr("k", np.array([1, 2, 3]), 2),
    {"key": "m", "op": "greater", "inputs": ["a", 0]},
    {"key": "rows", "op": "getitem", "inputs": ["a", "i"], "index": [{"input": 1}]},
    {"key": "pairs", "op": "getitem", "inputs": ["a", "i", "j"],
     "index": [{"input": 1}, {"input": 2}]},
    {"key": "cols", "op": "getitem", "inputs": ["a", "j"], "index": ["1:9:2", {"input": 1}]},
    {"key": "rsum", "op": "sum", "inputs": ["rows"], "axis": 1},
    {"key": "masked", "op": "getitem", "inputs": ["a", "m"], "index": [{"input": 1}]},
    {"key": "zeroed", "op": "setitem", "inputs": ["a", 0, "m"], "index": [{"input": 2}]},
    arr("i3", IDX[:3], 2),
    {"key": "set3", "op": "setitem", "inputs": ["a", "v", "i3", "k"],
     "index": [{"input": 2}, {"input": 3}]},
    {"key": "tk", "op": "take", "inputs": ["ai", "i"]},
    {"key": "tk1", "op": "take", "inputs": ["a", "j"], "axis": 1},
    {"key": "mc", "op": "greater", "inputs": ["ai", 0]},
    {"key": "cp", "op": "compress", "inputs": ["mc", "ai"], "axis": 0},
    {"key": "ex", "op": "extract", "inputs": ["m", "a"]},
    {"key": "aw", "op": "argwhere", "inputs": ["m"]},
    {"key": "fz", "op": "flatnonzero", "inputs": ["ai"]},
    # a held (N, 0) bool: no column carries its dtype, the blob does
    {"key": "z0", "op": "zeros", "shape": [13, 0], "chunk_size": [4, 1]},
    {"key": "b0", "op": "equal", "inputs": ["z0", 1]},
    {"key": "e0", "op": "getitem", "inputs": ["b0", "mc"], "index": [{"input": 1}, ":"]},
], "fetch": ["rows", "pairs", "cols", "rsum", "masked", "zeroed", "set3", "tk", "tk1", "cp", "ex",
             "aw", "fz", "e0"]}
WANT = {
    "rows": A[IDX], "pairs": A[IDX, J], "cols": A[1:9:2, J], "rsum": A[IDX].sum(axis=1),
    "masked": A[M], "zeroed": B, "set3": C, "tk": np.take(AI, IDX),
    "tk1": np.take(A, J, axis=1), "cp": np.compress(AI > 0, AI, axis=0), "ex": np.extract(M, A),
    "aw": np.argwhere(M), "fz": np.flatnonzero(AI), "e0": np.zeros((13, 0), dtype=bool)[AI > 0],
}


def close(got, want):
    if got.dtype.kind == "f":
        return np.allclose(got, want, rtol=1e-12, atol=0)
    return np.array_equal(got, want)


def parity_values(web):
    """Every result equals numpy's, and mars-run's byte for byte."""
    cp.parity_case(web, DOC)
    sid = cp.session(web)
    try:
        _, t = cp.run_task(web, sid, DOC)
        check(t["status"] == "succeeded", "task %r", t)
        for k, want in WANT.items():
            got = cp.fetch(web, sid, k)
            check(got.dtype == want.dtype and got.shape == want.shape, "%s: %s%s, want %s%s", k,
                  got.dtype, got.shape, want.dtype, want.shape)
            check(close(got, want), "%s: values differ from numpy's", k)
        # a held result as JSON too
        r = get(web, "/api/v1/sessions/%s/tensors/masked/data" % sid)
        check(r.status == 200, "json: %r", r)
        j = r.json()
        check(j["shape"] == [int(M.sum())] and j["dtype"] == "float64", "json head %r", j)
        check(np.allclose(np.array(j["data"]), A[M]), "json values")
    finally:
        request("DELETE", web, "/api/v1/sessions/%s" % sid)


def out_of_bounds(web):
    doc = {"version": 1, "nodes": [arr("a", np.arange(10), 3), arr("i", np.array([4, 12]), 1),
                                   {"key": "g", "op": "getitem", "inputs": ["a", "i"],
                                    "index": [{"input": 1}]}], "fetch": ["g"]}
    cp.parity_case(web, doc)  # fails the same way as mars-run
    sid = cp.session(web)
    try:
        _, t = cp.run_task(web, sid, doc)
        check(t["status"] == "failed", "task %r", t)
        check('node "g" (getitem)' in t["error"] and
              "index 12 is out of bounds for axis 0 with size 10" in t["error"], "error %r",
              t["error"])
    finally:
        request("DELETE", web, "/api/v1/sessions/%s" % sid)


def session_sources(web):
    """A later task indexes the session tensors an earlier one left on the
    workers (uneven chunks), and feeds a held one (its length known now) to
    a tensor op."""
    sid = cp.session(web)
    try:
        d1 = {"version": 1, "nodes": [arr("a", A, [4, 3]), arr("i", IDX, 4),
                                      {"key": "m", "op": "less", "inputs": ["a", 1]},
                                      {"key": "h", "op": "getitem", "inputs": ["a", "m"],
                                       "index": [{"input": 1}]},
                                      {"key": "z0", "op": "zeros", "shape": [6, 0], "dtype": "bool"},
                                      {"key": "mm", "op": "greater", "inputs": ["i", 1]},
                                      {"key": "h0", "op": "getitem", "inputs": ["z0", "mm"],
                                       "index": [{"input": 1}, ":"]}],
              "fetch": ["a", "i", "m", "h", "h0"]}
        _, t = cp.run_task(web, sid, d1)
        check(t["status"] == "succeeded", "task 1 %r", t)
        d2 = {"version": 1, "nodes": [
            {"key": "g", "op": "getitem", "inputs": ["a", "i"], "index": [{"input": 1}, "::-1"]},
            {"key": "s", "op": "setitem", "inputs": ["a", 5, "m"], "index": [{"input": 2}]}],
            "fetch": ["g", "s"]}
        _, t = cp.run_task(web, sid, d2)
        check(t["status"] == "succeeded", "task 2 %r", t)
        check(close(cp.fetch(web, sid, "g"), A[IDX, ::-1]), "g differs")
        S = A.copy()
        S[A < 1] = 5
        check(close(cp.fetch(web, sid, "s"), S), "s differs")
        # a held result of an earlier task is a tensor of known length now
        d3 = {"version": 1, "nodes": [{"key": "x", "op": "add", "inputs": ["h", 1]},
                                      {"key": "x0", "op": "add", "inputs": ["h0", "h0"]}],
              "fetch": ["x", "x0"]}
        _, t = cp.run_task(web, sid, d3)
        check(t["status"] == "succeeded", "task 3 %r", t)
        check(close(cp.fetch(web, sid, "x"), A[A < 1] + 1), "x differs")
        # a held (N, 0) bool stays bool once its length is known
        x0 = cp.fetch(web, sid, "x0")
        check(x0.dtype == np.bool_ and x0.shape == (int((IDX > 1).sum()), 0), "x0: %s%s", x0.dtype,
              x0.shape)
    finally:
        request("DELETE", web, "/api/v1/sessions/%s" % sid)


def main():
    run = Runner()
    with Cluster() as c:
        web, _ = cp.start_cluster(c, [1, 1])
        run.case("fancy_values_match_numpy_and_mars_run", parity_values, web)
        run.case("fancy_out_of_bounds_fails_task", out_of_bounds, web)
        run.case("fancy_session_tensors", session_sources, web)
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
