#!/usr/bin/python3
"""The small integer dtypes (int8, int16, uint8, uint16, uint32, uint64)
through a two-worker cluster (real PostgreSQL and Redis, harness.py), on
uneven chunks: element-wise ops with numpy's promotion, the ops that run
them widened (sum, sort, dot, percentile, take, concatenate...), uint64
values past 2**63; each result equal to numpy 1.24's and to mars-run's
bytes, fetched as .npy and as JSON. A small-dtype result kept in the
session is the input of a later task, and a document numpy refuses (the
float16 result of sqrt(int8)) is answered 400 naming the node.

Run: /usr/bin/python3 tests/integration/test_small_dtypes_cluster.py
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import Cluster, Runner, check, get, request  # noqa: E402
from test_cluster_parity import fetch, mars_run, run_task, session, start_cluster, submit  # noqa: E402

RNG = np.random.default_rng(1127)
X8 = RNG.integers(-128, 128, (13, 11)).astype(np.int8)
U8 = RNG.integers(0, 256, (13, 11)).astype(np.uint8)
U16 = RNG.integers(0, 65536, (11, 7)).astype(np.uint16)
I16 = RNG.integers(-300, 300, (17,)).astype(np.int16)
BIG = np.array([2**64 - 1, 2**63, 5, 2**63 - 1, 0, 18000000000000000000, 7], np.uint64)


def A(key, data, dtype, chunk):
    return {"key": key, "op": "array", "data": np.asarray(data).tolist(), "dtype": dtype,
            "chunk_size": chunk}


def N(key, op, inputs, **kw):
    n = {"key": key, "op": op, "inputs": inputs}
    n.update(kw)
    return n


BASE = [A("x8", X8, "int8", [4, 3]), A("u8", U8, "uint8", [5, 4]), A("u16", U16, "uint16", [4, 3]),
        A("i16", I16, "int16", 5), A("bs", BIG.astype(np.int64), "int64", 3),
        N("big", "astype", ["bs"], dtype="uint64")]
CASES = [
    (N("add", "add", ["x8", "u8"]), X8 + U8),
    (N("mul", "multiply", ["x8", {"value": 3}]), X8 * 3),
    (N("cmp", "less", ["u8", {"value": 100}]), U8 < 100),
    (N("fd", "floor_divide", ["x8", {"value": -7}]), X8 // -7),
    (N("sq", "sqrt", ["u16"]), np.sqrt(U16)),
    (N("s", "sum", ["u8"], axis=0), U8.sum(axis=0)),
    (N("m", "max", ["x8"], axis=1), X8.max(axis=1)),
    (N("mn", "mean", ["i16"]), np.asarray(I16.mean())),
    (N("cs", "cumsum", ["i16"]), np.cumsum(I16)),
    (N("so", "sort", ["x8"], axis=0), np.sort(X8, axis=0)),
    (N("as", "argsort", ["i16"]), np.argsort(I16, kind="stable")),
    (N("pc", "percentile", ["u8"], q=[10, 50], axis=1), np.percentile(U8, [10, 50], axis=1)),
    (N("dt", "dot", ["u8", "u16"]), U8.dot(U16)),
    (N("tr", "transpose", ["x8"]), X8.T),
    (N("t16", "transpose", ["u16"]), U16.T),
    (N("rc", "rechunk", ["u16"], chunk_size=[3, 5]), U16),
    (N("sl", "getitem", ["u16"], index=["1:9:2", "::-1"]), U16[1:9:2, ::-1]),
    (N("cc16", "concatenate", ["i16", "i16"]), np.concatenate([I16, I16])),
    (N("cc", "concatenate", ["x8", "u8"]), np.concatenate([X8, U8])),
    (N("tk", "take", ["i16", "u8"], axis=0), None),  # positions: U8 % 17 below
    (N("bso", "sort", ["big"]), np.sort(BIG)),
    (N("bmx", "argmax", ["big"]), np.asarray(np.argmax(BIG))),
    (N("bsum", "sum", ["big"]), np.asarray(BIG.sum())),
    (N("bdiv", "floor_divide", ["big", {"value": 1000}]), BIG // 1000),
]


def docs():
    idx = (U8 % 17).astype(np.uint8)
    base = list(BASE)
    base[1] = A("u8", U8, "uint8", [5, 4])
    nodes = base + [A("ix", idx, "uint8", [5, 4])]
    cases = []
    for node, want in CASES:
        if node["key"] == "tk":
            node = N("tk", "take", ["i16", "ix"], axis=0)
            want = np.take(I16, idx, axis=0)
        nodes.append(node)
        cases.append((node["key"], np.asarray(want)))
    return {"version": 1, "nodes": nodes, "fetch": [k for k, _ in cases]}, cases


def all_ops(web):
    sid = session(web)
    doc, cases = docs()
    body, t = run_task(web, sid, doc)
    check(t["status"] == "succeeded", "task %s: %r", t["status"], t.get("error"))
    tmp, p = mars_run(doc)
    check(p.returncode == 0, "mars-run: %s", p.stderr)
    try:
        for key, want in cases:
            got = fetch(web, sid, key)
            mr = np.load(os.path.join(tmp, "out", key + ".npy"))
            check(got.dtype == mr.dtype and got.shape == mr.shape and got.tobytes() == mr.tobytes(),
                  "%s: cluster differs from mars-run", key)
            check(got.dtype == want.dtype, "%s: dtype %s, numpy %s", key, got.dtype, want.dtype)
            if want.dtype.kind == "f":
                check(np.allclose(got, want, rtol=1e-6), "%s: values differ", key)
            else:
                check(np.array_equal(got, want), "%s: %s vs numpy %s", key, got.tolist(),
                      want.tolist())
        # JSON: exact integers, uint64 past 2**63 included, and the dtype names
        for key in ("bso", "fd", "s"):
            r = get(web, "/api/v1/sessions/%s/tensors/%s/data" % (sid, key))
            check(r.status == 200, "json of %s: %r", key, r)
            j = json.loads(r.body)
            want = dict(cases)[key]
            check(j["dtype"] == str(want.dtype), "%s: json dtype %s, numpy %s", key, j["dtype"],
                  want.dtype)
            check(j["data"] == want.tolist(), "%s: json data %s, numpy %s", key, j["data"],
                  want.tolist())
    finally:
        os.system("rm -rf '%s'" % tmp)
        request("DELETE", web, "/api/v1/sessions/%s" % sid)


def later_task(web):
    """A uint8 result kept in the session, read by a second task."""
    sid = session(web)
    doc = {"version": 1, "nodes": [A("u8", U8, "uint8", [5, 4]),
                                   N("w", "add", ["u8", {"value": 7}])], "fetch": ["w"]}
    _, t = run_task(web, sid, doc)
    check(t["status"] == "succeeded", "first task %s: %r", t["status"], t.get("error"))
    doc2 = {"version": 1, "nodes": [N("r", "sort", ["w"], axis=1),
                                    N("q", "subtract", ["w", {"value": 300}])],
            "fetch": ["r", "q"]}
    _, t = run_task(web, sid, doc2)
    check(t["status"] == "succeeded", "second task %s: %r", t["status"], t.get("error"))
    w = U8 + np.uint8(7)
    r = fetch(web, sid, "r")
    check(r.dtype == np.uint8 and np.array_equal(r, np.sort(w, axis=1)), "sort of the session "
          "tensor: %s %s", r.dtype, r[:1])
    q = fetch(web, sid, "q")
    check(q.dtype == (w - 300).dtype and np.array_equal(q, w - 300), "subtract: %s", q.dtype)
    request("DELETE", web, "/api/v1/sessions/%s" % sid)


def rejected(web):
    sid = session(web)
    doc = {"version": 1, "nodes": [A("a", [1, 2], "int8", 1), N("p", "sqrt", ["a"])],
           "fetch": ["p"]}
    r = submit(web, sid, doc)
    check(r.status == 400, "status %d", r.status)
    text = r.body.decode()
    check('node \\"p\\" (sqrt)' in text or 'node "p" (sqrt)' in text, "body %s", text)
    check("float16" in text, "body %s", text)
    request("DELETE", web, "/api/v1/sessions/%s" % sid)


def main():
    run = Runner()
    with Cluster() as c:
        web, _ = start_cluster(c, [1, 1])
        run.case("small_dtypes_match_numpy_and_mars_run", all_ops, web)
        run.case("small_dtype_session_tensor_read_later", later_task, web)
        run.case("float16_result_is_400_naming_node", rejected, web)
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
