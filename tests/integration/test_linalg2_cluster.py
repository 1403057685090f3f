#!/usr/bin/python3
"""linalg.qr, svd, eigh and slogdet through a two-worker cluster: TSQR of a
tall matrix in uneven row chunks (the local QRs, the merge and the blocks of
q run as separate jobs from their encoded descriptors, spread over the
workers), the one-job path for a wide matrix, eigh and slogdet; each result
equals mars-run's (same tiling) and numpy's invariants; a later task uses q
and r; a refused document is a 400 naming the node.

Run with Debian's python: /usr/bin/python3 tests/integration/test_linalg2_cluster.py
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import BIN_DIR, Cluster, Runner, check, request  # noqa: E402
from test_cluster_parity import fetch, run_task, session, start_cluster  # noqa: E402

MARS_RUN = os.path.join(BIN_DIR, "mars-run")
RNG = np.random.default_rng(7)
A = RNG.standard_normal((3000, 12))
W = RNG.standard_normal((9, 40))
S = RNG.standard_normal((30, 30))
S = S + S.T
BV = RNG.standard_normal(3000)


def N(key, op, inputs=None, **kw):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = list(inputs)
    n.update(kw)
    return n


def document():
    return {"version": 1, "nodes": [
        N("a", "array", data=A.tolist(), chunk_size=[170, 5]),
        N("qr", "linalg.qr", ["a"], outputs=["q", "r"]),
        N("sv", "linalg.svd", ["a"], full_matrices=False, outputs=["u", "s", "vh"]),
        N("w", "array", data=W.tolist(), chunk_size=4),
        N("sw", "linalg.svd", ["w"], compute_uv=False, outputs=["ws"]),
        N("sy", "array", data=S.tolist(), chunk_size=7),
        N("eh", "linalg.eigh", ["sy"], outputs=["ew", "ev"]),
        N("sl", "linalg.slogdet", ["sy"], outputs=["sg", "ld"]),
        N("bv", "array", data=BV.tolist(), chunk_size=[333]),
        N("ls", "linalg.lstsq", ["a", "bv"], rcond=None, outputs=["lx", "lres", "lrk", "lsv"])],
        "fetch": ["q", "r", "u", "s", "vh", "ws", "ew", "ev", "sg", "ld", "a", "lx", "lres", "lrk",
                  "lsv"]}


def main():
    run = Runner()
    doc = document()
    out = tempfile.mkdtemp(prefix="la2_out_")
    p = subprocess.run([MARS_RUN, "-", "-o", out], input=json.dumps(doc).encode(),
                       capture_output=True)
    check(p.returncode == 0, "mars-run: %s", p.stderr.decode())
    with Cluster() as c:
        web, _ = start_cluster(c, [1, 1])
        sid = session(web)

        def task():
            _, t = run_task(web, sid, doc)
            check(t["status"] == "succeeded", "task: %r", t)
        if not run.case("task", task):
            return run.finish()
        got = {}

        def same():
            for k in doc["fetch"]:
                got[k] = fetch(web, sid, k)
                ref = np.load(os.path.join(out, k + ".npy"))
                check(got[k].shape == ref.shape and got[k].dtype == ref.dtype, "%s", k)
                check(np.allclose(got[k], ref, rtol=1e-12, atol=1e-12), "%s differs from mars-run", k)
        if not run.case("same-as-mars-run", same):
            return run.finish()

        def invariants():
            q, r, u, s, vh = (got[k] for k in ("q", "r", "u", "s", "vh"))
            check(np.allclose(q @ r, A) and np.allclose(q.T @ q, np.eye(12)), "qr")
            check(np.allclose(np.abs(r), np.abs(np.linalg.qr(A)[1])), "|r|")
            check(np.allclose(s, np.linalg.svd(A, compute_uv=False)), "s")
            check(np.allclose((u * s) @ vh, A), "u s vh")
            check(np.allclose(got["ws"], np.linalg.svd(W, compute_uv=False)), "wide s")
            check(np.allclose(got["ew"], np.linalg.eigh(S)[0]), "eigh w")
            check(np.allclose(S @ got["ev"], got["ev"] * got["ew"]), "a v = v w")
            sg, ld = np.linalg.slogdet(S)
            check(got["sg"] == sg and np.isclose(got["ld"], ld), "slogdet")
            x, res, rk, sv = np.linalg.lstsq(A, BV, rcond=None)
            check(np.allclose(got["lx"], x) and np.allclose(got["lres"], res) and
                  int(got["lrk"]) == rk and got["lrk"].dtype == np.int32 and
                  np.allclose(got["lsv"], sv), "lstsq")
        run.case("numpy-invariants", invariants)

        def later():
            d = {"version": 1, "nodes": [N("b", "matmul", ["q", "r"]),
                                         N("d", "subtract", ["b", "a"]),
                                         N("e", "max", ["d"]),
                                         N("t", "sum", ["lres"])], "fetch": ["e", "t"]}
            _, t = run_task(web, sid, d)
            check(t["status"] == "succeeded", "task: %r", t)
            check(abs(float(fetch(web, sid, "e"))) < 1e-10, "q r - a")
            # lstsq's residuals were held: a later task reads them
            want = np.linalg.lstsq(A, BV, rcond=None)[1].sum()
            check(np.isclose(float(fetch(web, sid, "t")), want), "sum of the residuals")
        run.case("later-task-uses-q-and-r", later)

        def rejected():
            bad = {"version": 1, "nodes": [N("x", "ones", shape=[4, 3]),
                                           N("f", "linalg.eigh", ["x"], outputs=["w", "v"])],
                   "fetch": ["w"]}
            r = request("POST", web, "/api/v1/sessions/%s/tasks" % sid,
                        body=json.dumps(bad).encode(), headers={"Content-Type": "application/json"})
            check(r.status == 400 and "linalg.eigh" in r.body.decode() and "square" in
                  r.body.decode(), "%r", r)
        run.case("rejected", rejected)
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
