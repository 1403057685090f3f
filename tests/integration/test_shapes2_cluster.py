#!/usr/bin/python3
"""roll, broadcast_to, tile, repeat, pad (constant, edge, reflect,
symmetric, wrap), logspace, geomspace and indices through the cluster's
REST API on a two-worker cluster: the supervisor tiles, the workers run
the jobs from their encoded descriptors (gathers whose pieces read with stride 0 or walk one more
dimension than their source, element-wise programs of a constant with no
input, creation jobs of the new ops). Uneven chunks everywhere; results
are compared with numpy 1.24 and with mars-run; later nodes consume the
results; a bad document is refused with 400 naming the node.

Run with Debian's python: /usr/bin/python3 tests/integration/test_shapes2_cluster.py
(MARS_BIN_DIR=build/san/bin runs it over the sanitized programs).
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import BIN_DIR, Cluster, Runner, check, get  # noqa: E402
from test_cluster_parity import fetch, run_task, session, start_cluster, submit  # noqa: E402

MARS_RUN = os.path.join(BIN_DIR, "mars-run")


def N(key, op, inputs=None, **params):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = list(inputs)
    n.update(params)
    return n


X = (np.arange(7 * 10, dtype=np.float64).reshape(7, 10) * 1.5) % 11 - 4
V = (np.arange(23) * 5) % 17
B = np.array([[1.5], [-2.0], [3.25]])
RL = [2, 0, 1, 3, 0, 1, 4]


def document():
    nodes = [
        N("x", "array", data=X.tolist(), chunk_size=[3, 4]),
        N("v", "array", data=V.tolist(), chunk_size=5),
        N("b", "array", data=B.tolist(), chunk_size=[2, 1]),
        N("ro", "roll", ["x"], shift=[3, -4], axis=[1, 0]),
        N("rf", "roll", ["v"], shift=-9),
        N("bt", "broadcast_to", ["b"], shape=[4, 3, 6]),
        N("ti", "tile", ["x"], reps=[2, 3]),
        N("tv", "tile", ["v"], reps=[3, 40]),
        N("rp", "repeat", ["x"], repeats=5, axis=1),
        N("rl", "repeat", ["x"], repeats=RL, axis=0),
        N("rv", "repeat", ["v"], repeats=3),
        N("pc", "pad", ["x"], pad_width=[[2, 1], [0, 5]], constant_values=[[7, 8], [9, -1]]),
        N("pe", "pad", ["v"], pad_width=[4, 6], mode="edge"),
        N("pr", "pad", ["x"], pad_width=[[9, 2], [3, 14]], mode="reflect"),
        N("py", "pad", ["v"], pad_width=[20, 7], mode="symmetric"),
        N("pw", "pad", ["x"], pad_width=[[1, 17], [0, 2]], mode="wrap"),
        N("ls", "logspace", start=0, stop=3, num=13, base=2, chunk_size=4),
        N("gs", "geomspace", start=-2, stop=-500, num=11, chunk_size=3),
        N("ix", "indices", dimensions=[5, 6], chunk_size=[1, 2, 4]),
        # consumers of the results
        N("s1", "sum", ["pc"], axis=0),
        N("m1", "add", ["ti", 1]),
        N("s2", "sum", ["ix"], axis=[1, 2]),
        N("s3", "sum", ["rl"]),
    ]
    fetch = ["ro", "rf", "bt", "ti", "tv", "rp", "rl", "rv", "pc", "pe", "pr", "py", "pw", "ls",
             "gs", "ix",
             "s1", "m1", "s2", "s3"]
    return {"version": 1, "nodes": nodes, "fetch": fetch}


def expected():
    pc = np.pad(X, ((2, 1), (0, 5)), constant_values=((7, 8), (9, -1)))
    ti = np.tile(X, (2, 3))
    ix = np.indices((5, 6))
    rl = np.repeat(X, RL, axis=0)
    return {"ro": np.roll(X, (3, -4), axis=(1, 0)), "rf": np.roll(V, -9),
            "bt": np.broadcast_to(B, (4, 3, 6)).copy(), "ti": ti, "tv": np.tile(V, (3, 40)),
            "rp": np.repeat(X, 5, axis=1), "rl": rl, "rv": np.repeat(V, 3), "pc": pc,
            "pe": np.pad(V, (4, 6), mode="edge"),
            "pr": np.pad(X, ((9, 2), (3, 14)), mode="reflect"),
            "py": np.pad(V, (20, 7), mode="symmetric"),
            "pw": np.pad(X, ((1, 17), (0, 2)), mode="wrap"), "ls": np.logspace(0, 3, 13, base=2),
            "gs": np.geomspace(-2, -500, 11), "ix": ix, "s1": pc.sum(0), "m1": ti + 1,
            "s2": ix.sum((1, 2)), "s3": rl.sum()}


def main():
    run = Runner()
    doc = document()
    want = expected()
    out = tempfile.mkdtemp(prefix="sh2_out_")
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
        for key in doc["fetch"]:
            def one(key=key):
                v = fetch(web, sid, key)
                e = want[key]
                check(v.dtype == e.dtype and v.shape == e.shape,
                      "%s: %s %s vs %s %s", key, v.dtype, v.shape, e.dtype, e.shape)
                if key in ("ls", "gs"):  # numpy's power: SIMD code on AVX-512 CPUs, 1 ulp
                    check(np.all(np.abs(v - e) <= 2 * np.spacing(np.abs(e))),
                          "%s differs from numpy by more than 2 ulps", key)
                else:
                    check(np.array_equal(v, e), "%s differs from numpy", key)
                check(np.array_equal(v, np.load(os.path.join(out, key + ".npy"))),
                      "%s differs from mars-run", key)
            run.case("fetch-" + key, one)

        def later_task():
            # the results are session tensors with uneven chunks: a later
            # task's ops read them
            d = {"version": 1, "nodes": [
                N("a2", "roll", ["pc"], shift=-5, axis=1),
                N("b2", "repeat", ["ti"], repeats=2, axis=0),
                N("c2", "pad", ["rl"], pad_width=1, mode="edge"),
                N("d2", "tile", ["rv"], reps=2)], "fetch": ["a2", "b2", "c2", "d2"]}
            _, t = run_task(web, sid, d)
            check(t["status"] == "succeeded", "task: %r", t)
            exp = {"a2": np.roll(want["pc"], -5, axis=1), "b2": np.repeat(want["ti"], 2, axis=0),
                   "c2": np.pad(want["rl"], 1, mode="edge"), "d2": np.tile(want["rv"], 2)}
            for k, e in exp.items():
                v = fetch(web, sid, k)
                check(v.dtype == e.dtype and np.array_equal(v, e), "%s differs from numpy", k)
        run.case("later-task-on-session-tensors", later_task)

        def rejected():
            bad = {"version": 1, "nodes": [
                N("a", "arange", stop=6, chunk_size=4),
                N("r", "repeat", ["a"], repeats=[1, 2], axis=0)], "fetch": ["r"]}
            r = submit(web, sid, bad)
            body = r.body.decode()
            check(r.status == 400 and 'node \\"r\\" (repeat)' in body and "(6,) (2,)" in body,
                  "repeat: %r", r)
            bad["nodes"][1] = N("r", "pad", ["a"], pad_width=[[1, 2], [3, 4]])
            r = submit(web, sid, bad)
            check(r.status == 400 and 'node \\"r\\" (pad)' in r.body.decode(), "pad: %r", r)
        run.case("rejected", rejected)

        def ops_list():
            r = get(web, "/api/v1/ops")
            check(r.status == 200, "ops: %r", r)
            ops = {o["name"]: o for o in r.json()["ops"]}
            check(ops["pad"]["params"] == ["pad_width", "mode", "constant_values"], "%r",
                  ops["pad"])
            check(ops["logspace"]["inputs"] == "0", "%r", ops["logspace"])
        run.case("api-ops", ops_list)
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
