#!/usr/bin/python3
"""numpy's distributions (random.random, exponential, poisson, binomial,
gamma, beta, lognormal, standard_t, chisquare) and sampling ops (choice in
its four variants, permutation of a list, multinomial, multivariate_normal)
through a two-worker cluster:
the supervisor tiles with uneven chunks, the workers draw from their encoded
job descriptors, and every result is byte-identical to mars-run's (whose
chunks differ: chunk-invariance across processes and machines' workers); a
later task reduces them; a refused parameter is a 400 naming the node.

Run with Debian's python: /usr/bin/python3 tests/integration/test_random2_cluster.py
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
DISTS = [("random.random", {}), ("random.exponential", {"scale": 3.0}),
         ("random.poisson", {"lam": 4.0}), ("random.poisson", {"lam": 300.0}),
         ("random.binomial", {"n": 30, "p": 0.2}), ("random.binomial", {"n": 900, "p": 0.75}),
         ("random.gamma", {"shape": 0.5, "scale": 2.0}), ("random.beta", {"a": 0.5, "b": 3.0}),
         ("random.lognormal", {"sigma": 0.3}), ("random.standard_t", {"df": 4.0}),
         ("random.chisquare", {"df": 6.0}),
         # rsample.h: results of shape (203, 47) too
         ("random.choice", {"a": 1000}),
         ("random.choice", {"a": [0.5 * i for i in range(10)], "p": [0.1] * 10}),
         ("random.choice", {"a": 20000, "replace": False}),
         ("random.choice", {"a": 10000, "replace": False,
                            "p": [(i % 7 + 1) / 39994.0 for i in range(10000)]}),
         ("random.permutation", {"x": [[i * 47 + j for j in range(47)] for i in range(203)]}),
         ("random.multinomial", {"n": 100, "pvals": [1 / 47.0] * 47, "size": [203]}),
         ("random.multivariate_normal", {"mean": [float(i) for i in range(47)],
                                         "cov": [[1.0 + (i == j) for j in range(47)]
                                                 for i in range(47)], "size": [203]})]


def document(chunks):
    nodes = []
    for i, (op, kw) in enumerate(DISTS):
        n = dict({"key": "d%d" % i, "op": op, "seed": 1000 + i}, **kw)
        if "size" not in kw and "x" not in kw:
            n["size"] = [203, 47]
        if chunks is not None:
            n["chunk_size"] = chunks
        nodes.append(n)
    return {"version": 1, "nodes": nodes, "fetch": [n["key"] for n in nodes]}


def main():
    run = Runner()
    out = tempfile.mkdtemp(prefix="r2_out_")
    p = subprocess.run([MARS_RUN, "-", "-o", out], input=json.dumps(document(None)).encode(),
                       capture_output=True)
    check(p.returncode == 0, "mars-run: %s", p.stderr.decode())
    with Cluster() as c:
        web, _ = start_cluster(c, [1, 1])
        sid = session(web)
        doc = document([37, 11])

        def task():
            _, t = run_task(web, sid, doc)
            check(t["status"] == "succeeded", "task: %r", t)
        if not run.case("task", task):
            return run.finish()
        for i, (op, _) in enumerate(DISTS):
            def one(i=i, op=op):
                v = fetch(web, sid, "d%d" % i)
                ref = np.load(os.path.join(out, "d%d.npy" % i))
                check(v.dtype == ref.dtype and v.shape == ref.shape, "%s: %s %s", op, v.dtype,
                      v.shape)
                check(v.tobytes() == ref.tobytes(), "%s differs from mars-run's", op)
            run.case("same-as-mars-run-%d-%s" % (i, op), one)

        def later():
            d = {"version": 1, "nodes": [{"key": "m%d" % i, "op": "mean", "inputs": ["d%d" % i]}
                                         for i in range(len(DISTS))],
                 "fetch": ["m%d" % i for i in range(len(DISTS))]}
            _, t = run_task(web, sid, d)
            check(t["status"] == "succeeded", "task: %r", t)
            for i in range(len(DISTS)):
                ref = np.load(os.path.join(out, "d%d.npy" % i)).mean()
                check(np.isclose(fetch(web, sid, "m%d" % i), ref, rtol=1e-12), "mean %d", i)
        run.case("later-task-reduces", later)

        def rejected():
            bad = {"version": 1, "nodes": [{"key": "x", "op": "random.binomial", "size": 3,
                                            "n": 4, "p": 2.0}], "fetch": ["x"]}
            r = request("POST", web, "/api/v1/sessions/%s/tasks" % sid,
                        body=json.dumps(bad).encode(), headers={"Content-Type": "application/json"})
            body = r.body.decode()
            check(r.status == 400 and 'node \\"x\\" (random.binomial)' in body and "p > 1" in body,
                  "%r", r)
        run.case("rejected", rejected)
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
