#!/usr/bin/python3
"""The linalg branch's ops through a two-worker cluster (real PostgreSQL and
Redis from harness.py, the contract's command lines): uneven chunks, the
blocked Cholesky's potrf/trsm/update jobs spread over both workers, the
single-block paths, the chunked diagonals. Every fetched tensor must match
numpy 1.24 (allclose) and equal mars-run's bytes for the same document;
a singular matrix fails the task with numpy's "Singular matrix" naming the
node, as mars-run fails; a refused document is a 400 naming the node.
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import Cluster, Runner, check, request  # noqa: E402
import test_cluster_parity as par  # noqa: E402

RNG = np.random.default_rng(11)


def arr(key, v, chunk):
    return {"key": key, "op": "array", "data": np.asarray(v).tolist(),
            "dtype": str(np.asarray(v).dtype), "chunk_size": chunk}


def N(key, op, inputs, **kw):
    d = {"key": key, "op": op, "inputs": inputs}
    d.update(kw)
    return d


n = 50
m = RNG.normal(size=(n, n))
SPD = m.T @ m + n * np.eye(n)
W = RNG.normal(size=(n, n)) + n * np.eye(n)
b = RNG.normal(size=n)
X3 = RNG.normal(size=(6, 7, 8))
NODES = [arr("spd", SPD, [13, 17]), arr("w", W, [11, 20]), arr("b", b, 9), arr("x3", X3, [4, 3, 5])]
OPS = [
    (N("chol", "linalg.cholesky", ["spd"]), np.linalg.cholesky(SPD)),
    (N("sol", "linalg.solve", ["w", "b"]), np.linalg.solve(W, b)),
    (N("inv", "linalg.inv", ["w"]), np.linalg.inv(W)),
    (N("det", "linalg.det", ["w"]), np.linalg.det(W)),
    (N("nrm", "linalg.norm", ["x3"], ord=2, axis=[0, 2], keepdims=True),
     np.linalg.norm(X3, 2, axis=(0, 2), keepdims=True)),
    (N("rank", "linalg.matrix_rank", ["w"]), np.linalg.matrix_rank(W)),
    (N("nflat", "linalg.norm", ["x3"]), np.linalg.norm(X3)),
    (N("tr", "trace", ["x3"], offset=1, axis1=2, axis2=0), np.trace(X3, 1, 2, 0)),
    (N("dg", "diagonal", ["w"], offset=-3), np.diagonal(W, -3)),
    (N("dv", "diag", ["b"], k=2), np.diag(b, 2)),
    (N("tl", "tril", ["w"], k=2), np.tril(W, 2)),
    (N("tu", "triu", ["x3"], k=-1), np.triu(X3, -1)),
    (N("vd", "vdot", ["w", "spd"]), np.vdot(W, SPD)),
    # einsum over x3 (6, 7, 8) and the (n, 7) slice w7 of w
    ({"key": "w7", "op": "getitem", "inputs": ["w"], "index": [":", "0:7"]}, W[:, :7]),
    (N("es", "einsum", ["x3", "w7"], subscripts="ijk,lj->kil"), np.einsum("ijk,lj->kil", X3, W[:, :7])),
]


def values_case(web):
    expected = {}
    nodes = list(NODES)
    for node, exp in OPS:
        nodes.append(node)
        expected[node["key"]] = exp
    doc = {"version": 1, "nodes": nodes, "fetch": list(expected)}
    sid = par.session(web)
    body, t = par.run_task(web, sid, doc)
    tmp, p = par.mars_run(doc)
    try:
        check(t["status"] == "succeeded", "task %s: %r", t["status"], t.get("error"))
        check(p.returncode == 0, "mars-run exit %d: %s", p.returncode, p.stderr)
        for key, exp in expected.items():
            got = par.fetch(web, sid, key)
            want = np.load(os.path.join(tmp, "out", key + ".npy"))
            check(got.shape == np.shape(exp) and got.dtype == np.asarray(exp).dtype,
                  "%s: %s%s, numpy %s%s", key, got.dtype, got.shape, np.asarray(exp).dtype,
                  np.shape(exp))
            check(np.allclose(got, exp, rtol=1e-7, atol=1e-9), "%s: differs from numpy", key)
            check(got.tobytes() == want.tobytes(), "%s: differs from mars-run's bytes", key)
    finally:
        os.system("rm -rf '%s'" % tmp)
        request("DELETE", web, "/api/v1/sessions/%s" % sid)


def singular_case(web):
    doc = {"version": 1, "nodes": [arr("s", np.array([[1.0, 2.0], [2.0, 4.0]]), 1),
                                   N("r", "linalg.inv", ["s"])], "fetch": ["r"]}
    sid = par.session(web)
    _, t = par.run_task(web, sid, doc)
    tmp, p = par.mars_run(doc)
    try:
        check(t["status"] == "failed", "task %s, expected failed", t["status"])
        check("Singular matrix" in (t.get("error") or "") and '"r"' in t["error"],
              "error %r does not name the node and say Singular matrix", t.get("error"))
        check(p.returncode == 1 and "Singular matrix" in p.stderr, "mars-run: %d %s", p.returncode,
              p.stderr)
    finally:
        os.system("rm -rf '%s'" % tmp)
        request("DELETE", web, "/api/v1/sessions/%s" % sid)


def refused_case(web):
    doc = {"version": 1, "nodes": [arr("a", np.ones((2, 3)), 1),
                                   N("r", "einsum", ["a"], subscripts="ij->k")], "fetch": ["r"]}
    sid = par.session(web)
    try:
        r = request("POST", web, "/api/v1/sessions/%s/tasks" % sid, body=json.dumps(doc).encode(),
                    headers={"Content-Type": "application/json"})
        check(r.status == 400, "status %d, expected 400", r.status)
        text = r.body.decode("utf-8", "replace")
        check('node \\"r\\" (einsum)' in text or 'node "r" (einsum)' in text,
              "message does not name the node: %s", text[:300])
    finally:
        request("DELETE", web, "/api/v1/sessions/%s" % sid)


def main():
    run = Runner()
    with Cluster() as c:
        web, _ = par.start_cluster(c, [1, 1])
        run.case("linalg_values_match_numpy_and_mars_run", values_case, web)
        run.case("linalg_singular_matrix_fails_the_task", singular_case, web)
        run.case("linalg_refused_document_is_400", refused_case, web)
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
