#!/usr/bin/python3
"""The sortstat ops (sort, argsort, topk, searchsorted, isin, digitize,
percentile, nanmedian, average, cov, corrcoef, allclose) through a
two-worker cluster (real PostgreSQL and Redis, harness.py): with uneven
chunks, so jobs of one op run in both worker processes and read chunks the
other made; every result must equal numpy 1.24's and mars-run's bytes. Also
a run-time failure (bins that are not monotonic) reported as the task's
error, and a refused document answered 400 naming the node and the rule.
The supervisor runs with --sort-block-bytes 4096, so that a 1-D sort of
20,000 values runs as the merge network (sortstat.h) across both workers,
and so does an argsort: equal to np.sort and np.argsort (stable); average
of lines that long runs as a part per chunk and one sum of the parts.

Run: /usr/bin/python3 tests/integration/test_sortstat_cluster.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import Cluster, Runner, check, request  # noqa: E402
from test_cluster_parity import fetch, mars_run, run_task, session, start_cluster, submit  # noqa: E402

RNG = np.random.default_rng(1123)
X = np.round(RNG.normal(0, 5, (13, 11)), 1)
XI = RNG.integers(-20, 20, (17,))
SA = np.sort(RNG.integers(-20, 20, (9,)))
W = RNG.integers(1, 5, (13, 11))
M2 = np.round(RNG.normal(0, 9, (3000, 4)), 1)
W1 = RNG.random(3000) + 0.5


def A(key, data, dtype, chunk):
    return {"key": key, "op": "array", "data": np.asarray(data).tolist(), "dtype": dtype,
            "chunk_size": chunk}


def N(key, op, inputs, **kw):
    n = {"key": key, "op": op, "inputs": inputs}
    n.update(kw)
    return n


BASE = [A("x", X, "float64", [4, 3]), A("xi", XI, "int64", 5), A("sa", SA, "int64", 4),
        A("w", W, "int32", [5, 4]), A("x32", X, "float32", [6, 5])]
CASES = [
    (N("s0", "sort", ["x"], axis=0), np.sort(X, axis=0)),
    (N("s1", "sort", ["x32"]), np.sort(X.astype(np.float32))),
    (N("as", "argsort", ["xi"], axis=None), np.argsort(XI, kind="stable")),
    (N("tk", "topk", ["x"], k=3, axis=0), -np.sort(-X, axis=0)[:3]),
    (N("ss", "searchsorted", ["sa", "xi"], side="right"), np.searchsorted(SA, XI, side="right")),
    (N("ii", "isin", ["xi", "sa"], invert=True), np.isin(XI, SA, invert=True)),
    (N("dg", "digitize", ["xi", "sa"]), None),
    (N("pc", "percentile", ["x"], q=[5, 50, 95], axis=1), np.percentile(X, [5, 50, 95], axis=1)),
    (N("qa", "quantile", ["x32"], q=0.25), np.asarray(np.quantile(X.astype(np.float32), 0.25))),
    (N("nm", "nanmedian", ["x"], axis=0, keepdims=True), np.nanmedian(X, axis=0, keepdims=True)),
    (N("av", "average", ["x", "w"], axis=1), np.average(X, weights=W, axis=1)),
    (N("cv", "cov", ["x"], rowvar=False), np.cov(X, rowvar=False)),
    (N("cc", "corrcoef", ["x"]), np.corrcoef(X)),
    (N("ac", "allclose", ["x", "x32"]), np.asarray(np.allclose(X, X.astype(np.float32)))),
]


def all_ops(web):
    sid = session(web)
    doc = {"version": 1, "nodes": BASE + [c[0] for c in CASES], "fetch": [c[0]["key"] for c in CASES]}
    body, t = run_task(web, sid, doc)
    check(t["status"] == "succeeded", "task %s: %r", t["status"], t.get("error"))
    tmp, p = mars_run(doc)
    check(p.returncode == 0, "mars-run: %s", p.stderr)
    try:
        for node, want in CASES:
            key = node["key"]
            got = fetch(web, sid, key)
            mr = np.load(os.path.join(tmp, "out", key + ".npy"))
            check(got.dtype == mr.dtype and got.shape == mr.shape and got.tobytes() == mr.tobytes(),
                  "%s: cluster differs from mars-run", key)
            if key == "dg":
                # SA may repeat values: still monotonic
                want = np.digitize(XI, SA)
            want = np.asarray(want)
            check(got.shape == want.shape, "%s: shape %s, numpy %s", key, got.shape, want.shape)
            if want.dtype.kind == "f":
                check(got.dtype == want.dtype, "%s: dtype %s, numpy %s", key, got.dtype, want.dtype)
                check(np.allclose(got, want, rtol=1e-6, equal_nan=True), "%s: values differ", key)
            else:
                check(got.dtype == want.dtype and np.array_equal(got, want), "%s: %s vs numpy %s",
                      key, got.tolist(), want.tolist())
    finally:
        os.system("rm -rf '%s'" % tmp)
        request("DELETE", web, "/api/v1/sessions/%s" % sid)


def sort_network(web):
    sid = session(web)
    v = np.round(RNG.normal(0, 100, 20000), 2)
    mask = RNG.random(20000) < 0.25  # NaN there, for the nan-statistics' network
    vn = np.where(mask, np.nan, v)
    doc = {"version": 1, "nodes": [A("v", v, "float64", 1500), N("s", "sort", ["v"]),
                                   N("t", "sum", ["s"]), N("as", "argsort", ["v"]),
                                   N("pc", "percentile", ["v"], q=[1, 50, 99.5]),
                                   A("m", M2, "float64", [500, 2]), N("sm", "sort", ["m"], axis=0),
                                   A("mk", mask, "bool", 1500),
                                   N("vn", "where", ["mk", {"value": None}, "v"]),
                                   N("np", "nanpercentile", ["vn"], q=[1, 50, 99.5]),
                                   N("nm", "nanmedian", ["vn"]),
                                   N("pm", "percentile", ["m"], q=[10, 50, 90], axis=0),
                                   N("tk", "topk", ["m"], k=7, axis=0),
                                   N("pa", "partition", ["m"], kth=[3, 900], axis=0),
                                   A("mm", mask[:12000].reshape(3000, 4), "bool", [500, 2]),
                                   N("mn", "where", ["mm", {"value": None}, "m"]),
                                   N("nq", "nanquantile", ["mn"], q=[0.2, 0.7], axis=0),
                                   N("pk", "median", ["m"], axis=0, keepdims=True),
                                   A("wl", W1, "float64", 700),
                                   N("av", "average", ["m", "wl"], axis=0),
                                   N("a0", "average", ["v"])],
           "fetch": ["s", "t", "as", "pc", "sm", "np", "nm", "pm", "tk", "pa", "nq", "pk", "av",
                     "a0"]}
    body, t = run_task(web, sid, doc)
    check(t["status"] == "succeeded", "task %s: %r", t["status"], t.get("error"))
    tasks = request("GET", web, "/api/v1/sessions/%s/tasks/%s" % (sid, body["task_id"])).json()
    got = fetch(web, sid, "s")
    check(got.dtype == np.float64 and np.array_equal(got, np.sort(v)), "network sort differs")
    check(np.isclose(float(fetch(web, sid, "t")), v.sum()), "sum of the sorted values")
    check(np.array_equal(fetch(web, sid, "as"), np.argsort(v, kind="stable")),
          "network argsort differs from numpy's stable argsort")
    check(np.array_equal(fetch(web, sid, "pc"), np.percentile(v, [1, 50, 99.5])),
          "percentile through the network differs from numpy's")
    check(np.array_equal(fetch(web, sid, "sm"), np.sort(M2, axis=0)),
          "sort along axis 0 through the network differs from numpy's")
    check(np.array_equal(fetch(web, sid, "np"), np.nanpercentile(vn, [1, 50, 99.5])),
          "nanpercentile through the network differs from numpy's")
    check(np.array_equal(fetch(web, sid, "nm"), np.nanmedian(vn)),
          "nanmedian through the network differs from numpy's")
    check(np.array_equal(fetch(web, sid, "pm"), np.percentile(M2, [10, 50, 90], axis=0)),
          "percentile along axis 0 through the network differs from numpy's")
    check(np.array_equal(fetch(web, sid, "tk"), np.sort(M2, axis=0)[::-1][:7]),
          "topk along axis 0 through the network differs")
    pa = fetch(web, sid, "pa")
    check(np.array_equal(np.sort(pa, axis=0), np.sort(M2, axis=0)) and
          np.array_equal(pa[[3, 900]], np.sort(M2, axis=0)[[3, 900]]),
          "partition along axis 0 through the network is no partition")
    mn = np.where(mask[:12000].reshape(3000, 4), np.nan, M2)
    check(np.array_equal(fetch(web, sid, "nq"), np.nanquantile(mn, [0.2, 0.7], axis=0)),
          "nanquantile along axis 0 through the network differs from numpy's")
    check(np.array_equal(fetch(web, sid, "pk"), np.median(M2, axis=0, keepdims=True)),
          "median with keepdims through the network differs from numpy's")
    # average of long lines: a part per chunk, summed in one job per column chunk
    check(np.allclose(fetch(web, sid, "av"), np.average(M2, weights=W1, axis=0), rtol=1e-9),
          "average of long lines with weights differs from numpy's")
    check(np.allclose(fetch(web, sid, "a0"), np.average(v), rtol=1e-9),
          "average of one long line differs from numpy's")
    # many jobs: the blocks (20000 x 8 / 2048 bytes = 79 of them) and their comparators
    check(tasks["chunks_total"] > 200, "only %s chunk jobs: no merge network",
          tasks["chunks_total"])
    request("DELETE", web, "/api/v1/sessions/%s" % sid)


def runtime_error(web):
    sid = session(web)
    doc = {"version": 1, "nodes": [A("b", [1, 5, 2], "int64", 2), A("v", [1, 2, 3], "int64", 2),
                                   N("d", "digitize", ["v", "b"])], "fetch": ["d"]}
    _, t = run_task(web, sid, doc)
    check(t["status"] == "failed", "status %s", t["status"])
    check("bins must be monotonically increasing or decreasing" in (t["error"] or ""),
          "error %r", t["error"])
    request("DELETE", web, "/api/v1/sessions/%s" % sid)


def rejected(web):
    sid = session(web)
    doc = {"version": 1, "nodes": [A("a", [[1.0, 2.0]], "float64", 1),
                                   N("p", "percentile", ["a"], q=150)], "fetch": ["p"]}
    r = submit(web, sid, doc)
    check(r.status == 400, "status %d", r.status)
    text = r.body.decode()
    check('node \\"p\\" (percentile)' in text or 'node "p" (percentile)' in text, "body %s", text)
    check("Percentiles must be in the range [0, 100]" in text, "body %s", text)
    request("DELETE", web, "/api/v1/sessions/%s" % sid)


def main():
    run = Runner()
    with Cluster() as c:
        web, _ = start_cluster(c, [1, 1], sup_args=["--sort-block-bytes", "4096"])
        run.case("sortstat_ops_match_numpy_and_mars_run", all_ops, web)
        run.case("sort_network_across_workers", sort_network, web)
        run.case("sortstat_runtime_error_is_the_task_error", runtime_error, web)
        run.case("sortstat_refusal_is_400_naming_node", rejected, web)
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
