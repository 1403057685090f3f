#!/usr/bin/python3
"""Held results (length known only when they run) as inputs of later tasks,
through the cluster's REST API on a two-worker cluster.

A boolean mask, compress, extract, flatnonzero, argwhere, nonzero, unique,
union1d and a filtered DataFrame's to_tensor give results whose length is
data: one document cannot use them as inputs (400 naming the node), but once
their task has run, a later document of the session names them like any
session tensor. The gateway then lays the held blobs out as an ordinary
tensor (services/gateway/heldmat.c). Each case checks the later task's
results against numpy, the row's new description (shape and dtype, no
longer "frame-tensor"), that the download is unchanged, that a second later
task (the row already converted) still works, and that many later tasks
submitted at once all see one conversion. Then random documents of
tests/diff/test_random_graphs3.py in which ops take held results run cut
into successive tasks, as the Python client sends them (MARS_HELD_SEED,
MARS_HELD_GRAPHS), each fetched value against numpy's.

Run with Debian's python: /usr/bin/python3 tests/integration/test_held_later.py
(MARS_BIN_DIR=build/san/bin runs it over the sanitized programs).
"""
import io
import json
import os
import sys
import threading

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import Cluster, Runner, check, get  # noqa: E402
from test_cluster_parity import run_task, session, start_cluster, submit  # noqa: E402

sys.path.append(os.path.join(os.path.dirname(HERE), "diff"))
import test_random_graphs3  # noqa: E402


def N(key, op, inputs=None, **params):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = list(inputs)
    n.update(params)
    return n


def fetch(web, sid, key):
    r = get(web, "/api/v1/sessions/%s/tensors/%s/data?format=npy" % (sid, key), timeout=120)
    check(r.status == 200, "data of %s: %r", key, r)
    return np.load(io.BytesIO(r.body))


def row(web, sid, key):
    r = get(web, "/api/v1/sessions/%s/tensors/%s" % (sid, key))
    check(r.status == 200, "tensor %s: %r", key, r)
    return r.json()


def ok_task(web, sid, doc):
    _, t = run_task(web, sid, doc)
    check(t["status"] == "succeeded", "task: %r", t)


X = ((np.arange(5000) * 37) % 101 - 50) / 4.0  # negatives, zeros, positives
M = ((np.arange(60) * 7) % 13).reshape(12, 5).astype(np.int64) - 6


def first_doc():
    return {"version": 1, "nodes": [
        N("x", "array", data=X.tolist(), chunk_size=700),
        N("pos", "greater", ["x", 0]),
        N("xp", "getitem", ["x", "pos"], index=[{"input": 1}]),
        N("m", "array", data=M.tolist(), chunk_size=[5, 2]),
        N("aw", "argwhere", ["m"]),
        N("fz", "flatnonzero", ["m"]),
        N("uq", "union1d", ["x", "x"]),
        N("mb", "greater", ["m", 0]),
        N("ex", "extract", ["mb", "m"]),
    ], "fetch": ["xp", "aw", "fz", "uq", "ex"]}


def main():
    run = Runner()
    xp = X[X > 0]
    with Cluster() as c:
        web, _ = start_cluster(c, [1, 1])
        sid = session(web)

        def same_document_refused():
            d = first_doc()
            d["nodes"].append(N("s", "sum", ["xp"]))
            d["fetch"] = ["s"]
            r = submit(web, sid, d)
            body = r.body.decode()
            check(r.status == 400 and 'node \\"s\\" (sum)' in body and "fetch it" in body,
                  "%r", r)
        run.case("same-document-refused", same_document_refused)

        if not run.case("first-task", ok_task, web, sid, first_doc()):
            return run.finish()

        def held_rows():
            for k in ("xp", "aw", "fz", "uq", "ex"):
                check(row(web, sid, k)["dtype"] in ("float64", "int64"), "%s: %r", k,
                      row(web, sid, k))
            check(np.array_equal(fetch(web, sid, "xp"), xp), "xp differs")
        run.case("held-before", held_rows)

        def later_reductions():
            d = {"version": 1, "nodes": [
                N("s", "sum", ["xp"]), N("mn", "mean", ["xp"]), N("mx", "max", ["xp"]),
                N("sd", "std", ["xp"]), N("n2", "multiply", ["xp", 2]),
                N("srt", "sort", ["xp"]), N("cs", "cumsum", ["xp"]),
                N("awt", "transpose", ["aw"]), N("fz2", "add", ["fz", 1]),
                N("uqs", "sum", ["uq"]), N("exs", "sum", ["ex"])],
                "fetch": ["s", "mn", "mx", "sd", "n2", "srt", "cs", "awt", "fz2", "uqs", "exs"]}
            ok_task(web, sid, d)
            want = {"s": xp.sum(), "mn": xp.mean(), "mx": xp.max(), "sd": xp.std(),
                    "n2": xp * 2, "srt": np.sort(xp), "cs": np.cumsum(xp),
                    "awt": np.argwhere(M).T, "fz2": np.flatnonzero(M) + 1,
                    "uqs": np.unique(X).sum(), "exs": np.extract(M > 0, M).sum()}
            for k, e in want.items():
                v = fetch(web, sid, k)
                e = np.asarray(e)
                check(v.shape == e.shape and v.dtype == e.dtype, "%s: %s %s vs %s %s", k,
                      v.shape, v.dtype, e.shape, e.dtype)
                check(np.allclose(v, e, rtol=1e-12, atol=1e-12), "%s differs from numpy", k)
        run.case("later-task-uses-held", later_reductions)

        def converted_row():
            r = row(web, sid, "xp")
            check(r["shape"] == [len(xp)] and r["dtype"] == "float64", "xp row: %r", r)
            r = row(web, sid, "aw")
            check(r["shape"] == [int(np.count_nonzero(M)), 2] and r["dtype"] == "int64",
                  "aw row: %r", r)
            check(np.array_equal(fetch(web, sid, "xp"), xp), "xp download changed")
            check(np.array_equal(fetch(web, sid, "aw"), np.argwhere(M)), "aw download changed")
        run.case("row-is-a-tensor-now", converted_row)

        def again():
            d = {"version": 1, "nodes": [N("s2", "prod", ["fz"]), N("d2", "dot", ["xp", "xp"])],
                 "fetch": ["s2", "d2"]}
            ok_task(web, sid, d)
            check(fetch(web, sid, "s2") == np.prod(np.flatnonzero(M)), "s2")
            check(np.isclose(fetch(web, sid, "d2"), xp @ xp, rtol=1e-12), "d2")
        run.case("second-later-task", again)

        def concurrent():
            d = first_doc()
            d["nodes"] = [N(n["key"], n["op"], n.get("inputs"),
                            **{k: v for k, v in n.items() if k not in ("key", "op", "inputs")})
                          for n in d["nodes"]]
            sid2 = session(web)
            ok_task(web, sid2, d)
            errs = []

            def one(i):
                try:
                    dd = {"version": 1, "nodes": [N("c%d" % i, "add", ["xp", i])],
                          "fetch": ["c%d" % i]}
                    ok_task(web, sid2, dd)
                    check(np.array_equal(fetch(web, sid2, "c%d" % i), xp + i), "c%d" % i)
                except Exception as e:  # noqa: BLE001
                    errs.append(repr(e))
            ts = [threading.Thread(target=one, args=(i,)) for i in range(6)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            check(not errs, "%r", errs)
            check(row(web, sid2, "xp")["dtype"] == "float64", "row")
        run.case("concurrent-later-tasks", concurrent)

        def empty_held():
            sid3 = session(web)
            ok_task(web, sid3, {"version": 1, "nodes": [
                N("x", "array", data=[-1.0, -2.0, -3.0], chunk_size=2),
                N("p", "greater", ["x", 0]),
                N("e", "getitem", ["x", "p"], index=[{"input": 1}])], "fetch": ["e"]})
            ok_task(web, sid3, {"version": 1, "nodes": [
                N("es", "sum", ["e"]), N("ec", "concatenate", ["e", "e"])],
                "fetch": ["es", "ec"]})
            check(fetch(web, sid3, "es") == 0.0, "sum of nothing")
            v = fetch(web, sid3, "ec")
            check(v.shape == (0,) and v.dtype == np.float64, "%r", v)
        run.case("empty-held-result", empty_held)

        def dataframe_to_tensor():
            sid4 = session(web)
            ok_task(web, sid4, {"version": 1, "nodes": [
                N("a", "arange", stop=1000, chunk_size=300),
                N("a2", "reshape", ["a"], newshape=[1000, 1]), N("df", "dataframe.from_tensor", ["a2"], columns=["v"]),
                N("v", "dataframe.getitem", ["df"], columns="v"),
                N("big", "greater", ["v", 600]),
                N("f", "dataframe.filter", ["df", "big"]),
                N("t", "dataframe.to_tensor", ["f"])], "fetch": ["t"]})
            ok_task(web, sid4, {"version": 1, "nodes": [N("ts", "sum", ["t"])],
                                "fetch": ["ts"]})
            check(fetch(web, sid4, "ts") == np.arange(601, 1000).sum(), "sum")
        run.case("filtered-dataframe-to-tensor", dataframe_to_tensor)

        # random documents in which ops take held results, cut into the
        # tasks a client would send (the Python client's way); each fetched
        # value equals numpy's, computed by the generator
        seed = int(os.environ.get("MARS_HELD_SEED", "51"))
        for i, (d, want, held) in enumerate(test_random_graphs3.generate(
                seed, int(os.environ.get("MARS_HELD_GRAPHS", "100")), held_inputs=True)):
            run.case("staged-%d-%d" % (seed, i), staged_case, web, d, want, held)
    return run.finish()


def stages(doc, held):
    """doc as a list of documents, run in turn in one session: no op takes
    a held result of its own document; each fetches what later ones take
    (they name it as a session tensor) and what doc fetches."""
    remaining, done, parts = list(doc["nodes"]), set(), []
    while remaining:
        part, keys, rest = [], set(), []
        for n in remaining:
            ins = [i for i in n.get("inputs", ()) if isinstance(i, str)]
            if all(i in done or (i in keys and i not in held) for i in ins):
                part.append(n)
                keys |= set(n.get("outputs", [n["key"]]))
            else:
                rest.append(n)
        check(part, "no node can run")
        parts.append((part, keys))
        done |= keys
        remaining = rest
    docs = []
    for k, (part, keys) in enumerate(parts):
        later = {i for p, _ in parts[k + 1:] for n in p for i in n.get("inputs", ())
                 if isinstance(i, str)}
        fetch_ = sorted(keys & (later | set(doc["fetch"]))) or [sorted(keys)[0]]
        docs.append({"version": 1, "nodes": part, "fetch": fetch_})
    return docs


def staged_case(web, doc, want, held):
    sid = session(web)
    tasks = stages(doc, held)
    for d in tasks:
        ok_task(web, sid, d)
    got = {k: fetch(web, sid, k) for k in doc["fetch"]}
    why = test_random_graphs3.check(doc, want, got)
    check(why is None, "%s (%d tasks; document %s)", why, len(tasks), json.dumps(doc)[:2000])


if __name__ == "__main__":
    sys.exit(main())
