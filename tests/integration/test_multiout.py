#!/usr/bin/python3
"""Ops with several results ("outputs") through the cluster's REST API on a
two-worker cluster: each output of split, array_split, hsplit, vsplit and
meshgrid (uneven chunks) is fetched and compared with numpy and with
mars-run's output; nonzero and one-argument where (lengths known when they run) fetched;
an output is a session tensor of a later task; fetching
or using the op's own key is refused with 400 naming the node; GET
/api/v1/ops says which ops have several outputs.

Run with Debian's python: /usr/bin/python3 tests/integration/test_multiout.py
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


A = np.arange(7 * 10, dtype=np.float64).reshape(7, 10) / 3.0
X = np.arange(9, dtype=np.int32) - 4
Y = np.linspace(-1, 1, 5)


def document():
    nodes = [
        N("a", "array", data=A.tolist(), chunk_size=[3, 4]),
        N("sp", "split", ["a"], indices_or_sections=[2, -3, 20], axis=1,
          outputs=["s0", "s1", "s2", "s3"]),
        N("as", "array_split", ["a"], indices_or_sections=3, outputs=["q0", "q1", "q2"]),
        N("hs", "hsplit", ["a"], indices_or_sections=2, outputs=["h0", "h1"]),
        N("vs", "vsplit", ["a"], indices_or_sections=[5], outputs=["v0", "v1"]),
        N("x", "arange", start=-4, stop=5, dtype="int32", chunk_size=4),
        N("y", "linspace", start=-1, stop=1, num=5),
        N("mg", "meshgrid", ["x", "y"], outputs=["gx", "gy"]),
        N("mi", "meshgrid", ["x", "y"], indexing="ij", outputs=["ix", "iy"]),
        N("t", "multiply", ["s1", 2]),
        N("gt", "greater", ["a", 15.0]),
        N("nz", "nonzero", ["gt"], outputs=["nr", "nc"]),
        N("wz", "where", ["x"], outputs=["wx"]),
        N("fl", "floor", ["a"]), N("md", "mod", ["fl", 6.0]),
        N("uq", "unique", ["md"], return_index=True, return_counts=True,
          outputs=["uv", "ui", "uc"]),
        N("hg", "histogram", ["a"], bins=6, outputs=["hc", "he"]),
        N("hd", "histogram", ["a"], bins=3, range=[1, 20], density=True, outputs=["dc", "de"]),
    ]
    fetch = ["s0", "s1", "s2", "s3", "q0", "q1", "q2", "h0", "h1", "v0", "v1", "gx", "gy",
             "ix", "iy", "t", "nr", "nc", "wx", "uv", "ui", "uc", "hc", "he", "dc", "de"]
    return {"version": 1, "nodes": nodes, "fetch": fetch}


def expected():
    s = np.split(A, [2, -3, 20], axis=1)
    q = np.array_split(A, 3)
    h = np.hsplit(A, 2)
    v = np.vsplit(A, [5])
    gx, gy = np.meshgrid(X, Y)
    ix, iy = np.meshgrid(X, Y, indexing="ij")
    e = {"s%d" % i: s[i] for i in range(4)}
    e.update({"q%d" % i: q[i] for i in range(3)})
    e.update({"h0": h[0], "h1": h[1], "v0": v[0], "v1": v[1], "gx": gx, "gy": gy, "ix": ix,
              "iy": iy, "t": s[1] * 2})
    nr, nc = np.nonzero(A > 15.0)
    e.update({"nr": nr, "nc": nc, "wx": np.where(X)[0]})
    u = np.unique(np.mod(np.floor(A), 6.0), return_index=True, return_counts=True)
    e.update({"uv": u[0], "ui": u[1], "uc": u[2]})
    h = np.histogram(A, 6)
    d = np.histogram(A, 3, range=(1, 20), density=True)
    e.update({"hc": h[0], "he": h[1], "dc": d[0], "de": d[1]})
    return e


def fetch(web, sid, key):
    r = get(web, "/api/v1/sessions/%s/tensors/%s/data?format=npy" % (sid, key), timeout=60)
    check(r.status == 200, "data of %s: %r", key, r)
    return np.load(io.BytesIO(r.body))


def main():
    run = Runner()
    doc = document()
    want = expected()
    out = tempfile.mkdtemp(prefix="mo_out_")
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
                check(v.dtype == want[key].dtype and v.shape == want[key].shape,
                      "%s: %s %s vs %s %s", key, v.dtype, v.shape, want[key].dtype,
                      want[key].shape)
                check(np.array_equal(v, want[key]), "%s differs from numpy", key)
                check(np.array_equal(v, np.load(os.path.join(out, key + ".npy"))),
                      "%s differs from mars-run", key)
            run.case("fetch-" + key, one)

        def metadata():
            m = get(web, "/api/v1/sessions/%s/tensors/s1" % sid).json()
            check(m["shape"] == [7, 5] and m["dtype"] == "float64", "meta %r", m)
            r = get(web, "/api/v1/sessions/%s/tensors/sp" % sid)
            check(r.status == 404, "the op's own key is no tensor: %r", r)
            m = get(web, "/api/v1/sessions/%s/tensors/nc" % sid).json()
            check(m.get("kind") == "tensor" and m.get("dtype") == "int64", "meta of nc %r", m)
        run.case("metadata", metadata)

        def later_task():
            # outputs of the first task are session tensors of this one
            d = {"version": 1, "nodes": [
                N("u", "add", ["gx", "gy"]),
                N("w", "sum", ["s1"], axis=0),
                N("sp2", "split", ["v0"], indices_or_sections=[1], outputs=["z0", "z1"]),
                N("z", "subtract", ["z1", 1]), N("hs", "sum", ["hc"])],
                "fetch": ["u", "w", "z0", "z", "hs"]}
            _, t = run_task(web, sid, d)
            check(t["status"] == "succeeded", "task: %r", t)
            v0 = np.vsplit(A, [5])[0]
            ref = {"u": want["gx"] + want["gy"], "w": want["s1"].sum(axis=0),
                   "z0": v0[:1], "z": v0[1:] - 1, "hs": np.array(A.size)}
            for k, e in ref.items():
                v = fetch(web, sid, k)
                check(v.shape == e.shape and np.allclose(v, e), "%s: %r vs %r", k, v, e)
        run.case("output-as-session-tensor", later_task)

        def rejected():
            bad = {"version": 1, "nodes": [
                N("a2", "ones", shape=[4]),
                N("sp3", "split", ["a2"], indices_or_sections=2, outputs=["k0", "k1"])],
                "fetch": ["sp3"]}
            r = submit(web, sid, bad)
            check(r.status == 400 and "sp3" in r.body.decode()
                  and "several results" in r.body.decode(), "fetch op key: %r", r)
            bad["fetch"] = ["k0"]
            bad["nodes"][1]["outputs"] = ["k0"]
            r = submit(web, sid, bad)
            check(r.status == 400 and 'node \\"sp3\\" (split)' in r.body.decode(),
                  "count: %r", r)
            bad["nodes"][1]["outputs"] = ["k0", "a2"]
            r = submit(web, sid, bad)
            check(r.status == 400 and "duplicate key" in r.body.decode(), "dup: %r", r)
        run.case("rejected", rejected)

        def ops_list():
            r = get(web, "/api/v1/ops")
            check(r.status == 200, "ops: %r", r)
            ops = {o["name"]: o for o in r.json()["ops"]}
            for k, v in (("split", "sections"), ("array_split", "sections"),
                         ("hsplit", "sections"), ("vsplit", "sections"),
                         ("meshgrid", "inputs"), ("nonzero", "ndim"), ("unique", "flags"), ("histogram", 2)):
                check(ops[k].get("outputs") == v, "%s: %r", k, ops[k])
            check("outputs" not in ops["add"], "add: %r", ops["add"])
            check(ops["split"]["params"] == ["indices_or_sections", "axis"], "%r", ops["split"])
        run.case("api-ops", ops_list)
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
