#!/usr/bin/python3
"""Set operations and counting through the cluster's REST API on a
two-worker cluster (the supervisor tiles, the workers run the jobs from
their encoded descriptors): union1d, intersect1d, setdiff1d and bincount
(held results: fetched), histogram with weights and unique's inverse (an
ordinary tensor, used by a later node; its jobs read unique's merged
values), on uneven chunks (mars-run: several blocks per input), compared with numpy and with mars-run; a
runtime error (bincount of a negative) fails the task naming the node; a
bad document is refused with 400 naming the node.

Run with Debian's python: /usr/bin/python3 tests/integration/test_setops_cluster.py
(MARS_BIN_DIR=build/san/bin runs it over the sanitized programs).
"""
import io
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import BIN_DIR, Cluster, Runner, check, get  # noqa: E402
from test_cluster_parity import run_task, session, start_cluster, submit  # noqa: E402

MARS_RUN = os.path.join(BIN_DIR, "mars-run")


def N(key, op, inputs=None, **params):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = list(inputs)
    n.update(params)
    return n


G = np.arange(3000) % 41
H = (np.arange(1700) * 7) % 53
F = np.arange(7 * 10, dtype=np.float64).reshape(7, 10) / 4.0
W = (np.arange(3000) % 9) * 0.25
HW = (np.arange(70) % 5).reshape(7, 10).astype(np.int64)


def document():
    nodes = [
        N("a", "arange", stop=3000, chunk_size=700), N("g", "mod", ["a", 41]),
        N("b", "arange", stop=1700, chunk_size=450), N("b7", "multiply", ["b", 7]),
        N("h", "mod", ["b7", 53]),
        N("f", "array", data=F.tolist(), chunk_size=[3, 4]),
        N("un", "union1d", ["g", "h"]),
        N("it", "intersect1d", ["g", "h"]),
        N("sd", "setdiff1d", ["h", "g"]),
        N("uf", "union1d", ["f", "g"]),
        N("bc", "bincount", ["g"], minlength=50),
        N("wa", "mod", ["a", 9]), N("w", "multiply", ["wa", 0.25]),
        N("bw", "bincount", ["g", "w"]),
        N("hw0", "array", data=HW.tolist(), chunk_size=[4, 3]),
        N("hg", "histogram", ["f", "hw0"], bins=5, weights=True, outputs=["hc", "he"]),
        N("uq", "unique", ["f"], return_inverse=True, return_counts=True,
          outputs=["qv", "qi", "qc"]),
        N("qt", "add", ["qi", 1]),
        N("sa", "setdiff1d", ["f", "h"], assume_unique=True),
        N("ri", "intersect1d", ["h", "g"], return_indices=True, outputs=["rv", "ra", "rb"]),
    ]
    fetch = ["un", "it", "sd", "uf", "bc", "bw", "hc", "he", "qv", "qi", "qc", "qt", "rv", "ra",
             "rb", "sa"]
    return {"version": 1, "nodes": nodes, "fetch": fetch}


def expected():
    hc, he = np.histogram(F, 5, weights=HW)
    qv, qi, qc = np.unique(F, return_inverse=True, return_counts=True)
    rv, ra, rb = np.intersect1d(H, G, return_indices=True)
    return {"sa": np.setdiff1d(F, H, assume_unique=True), "rv": rv, "ra": ra, "rb": rb,
            "qv": qv, "qi": qi, "qc": qc, "qt": qi + 1, "un": np.union1d(G, H), "it": np.intersect1d(G, H), "sd": np.setdiff1d(H, G),
            "uf": np.union1d(F, G), "bc": np.bincount(G, minlength=50),
            "bw": np.bincount(G, W), "hc": hc, "he": he}


def fetch(web, sid, key):
    r = get(web, "/api/v1/sessions/%s/tensors/%s/data?format=npy" % (sid, key), timeout=60)
    check(r.status == 200, "data of %s: %r", key, r)
    return np.load(io.BytesIO(r.body))


def main():
    run = Runner()
    doc = document()
    want = expected()
    out = tempfile.mkdtemp(prefix="so_out_")
    # several blocks per input (as the supervisor's own chunk bytes below)
    p = subprocess.run([MARS_RUN, "-", "-o", out, "--chunk-bytes", "2000"],
                       input=json.dumps(doc).encode(), capture_output=True)
    check(p.returncode == 0, "mars-run: %s", p.stderr.decode())
    with Cluster() as c:
        web, _ = start_cluster(c, [1, 1])
        sid = session(web)

        def task():
            _, t = run_task(web, sid, doc)
            check(t["status"] == "succeeded", "task: %r", t)
        if not run.case("task", task):
            return run.finish()
        for key in doc["fetch"]:
            def one(key=key):
                v = fetch(web, sid, key)
                e = want[key]
                check(v.dtype == e.dtype and v.shape == e.shape,
                      "%s: %s %s vs %s %s", key, v.dtype, v.shape, e.dtype, e.shape)
                check(np.allclose(v, e, rtol=1e-12, atol=0), "%s differs from numpy", key)
                check(np.allclose(v, np.load(os.path.join(out, key + ".npy")), rtol=1e-12,
                                  atol=0), "%s differs from mars-run", key)
            run.case("fetch-" + key, one)

        def runtime_error():
            d = {"version": 1, "nodes": [
                N("x", "array", data=[3, 1, -2, 5, 0], chunk_size=2),
                N("nb", "bincount", ["x"])], "fetch": ["nb"]}
            _, t = run_task(web, sid, d)
            msg = json.dumps(t)
            check(t["status"] == "failed" and 'node \\"nb\\" (bincount)' in msg
                  and "no negative elements" in msg, "task: %r", t)
        run.case("bincount-negative-fails-naming-the-node", runtime_error)

        def rejected():
            bad = {"version": 1, "nodes": [
                N("i", "arange", stop=5, dtype="int32"), N("j", "arange", stop=5),
                N("r", "union1d", ["i", "j"])], "fetch": ["r"]}
            r = submit(web, sid, bad)
            check(r.status == 400 and 'node \\"r\\" (union1d)' in r.body.decode(), "int32: %r", r)
            bad["nodes"][2] = N("r", "bincount", ["j"], minlength=-3)
            r = submit(web, sid, bad)
            check(r.status == 400 and "minlength" in r.body.decode(), "minlength: %r", r)
        run.case("rejected", rejected)

        def ops_list():
            r = get(web, "/api/v1/ops")
            check(r.status == 200, "ops: %r", r)
            ops = {o["name"]: o for o in r.json()["ops"]}
            check(ops["intersect1d"]["params"] == ["assume_unique", "return_indices"], "%r",
                  ops["intersect1d"])
            check(ops["bincount"]["inputs"] == "1+", "%r", ops["bincount"])
            check("weights" in ops["histogram"]["params"], "%r", ops["histogram"])
        run.case("api-ops", ops_list)
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
