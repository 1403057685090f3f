#!/usr/bin/python3
"""hstack, vstack, dstack and column_stack against numpy 1.24: inputs of 0
to 3 dimensions with uneven chunks and mixed dtypes (the result promotes as
numpy's), one input or several, zero-length axes; and numpy's refusals
(dimensions that differ, no input) as exit 2 naming the node.

The inputs are random or integer tensors fetched beside the result, so the
expected value is numpy's function of exactly those values."""

import os
import random
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

FUNCS = {"hstack": np.hstack, "vstack": np.vstack, "dstack": np.dstack,
         "column_stack": np.column_stack}


def leaf(rng, key, shape, dtype):
    chunk = [rng.randint(1, max(1, d)) if d else 1 for d in shape]
    if dtype == "float64":
        node = {"key": key, "op": "random.rand", "shape": shape, "seed": rng.randint(0, 999)}
    else:
        node = {"key": key, "op": "random.randint", "shape": shape, "low": -9, "high": 9,
                "seed": rng.randint(0, 999), "dtype": dtype}
    if shape:
        node["chunk_size"] = chunk
    return node


def shapes_for(rng, fn, n):
    """n input shapes that numpy's fn accepts."""
    nd = rng.choice([0, 1, 2, 3]) if fn != "column_stack" else rng.choice([0, 1, 2])
    base = [rng.randint(0, 6) for _ in range(nd)]
    out = []
    for _ in range(n):
        s = list(base)
        if fn == "hstack" and nd >= 1:
            s[0 if nd == 1 else 1] = rng.randint(0, 6)
        elif fn == "vstack" and nd >= 2:
            s[0] = rng.randint(0, 6)
        elif fn == "dstack" and nd == 3:
            s[2] = rng.randint(0, 6)
        elif fn == "column_stack" and nd == 2:
            s[1] = rng.randint(0, 6)
        out.append(s)
    if fn == "column_stack" and nd == 2 and rng.random() < 0.5:
        out.append([base[0]])  # a 1-D column beside 2-D blocks
    return out


def main():
    suite = harness.Suite("test_stacks")
    rng = random.Random(20261124)
    for i in range(120):
        fn = rng.choice(sorted(FUNCS))
        shapes = shapes_for(rng, fn, rng.randint(1, 4))
        nodes, keys = [], []
        for k, s in enumerate(shapes):
            key = "x%d" % k
            nodes.append(leaf(rng, key, s, rng.choice(["float64", "int64", "int32"])))
            keys.append(key)
        nodes.append({"key": "r", "op": fn, "inputs": keys})
        doc = {"version": 1, "nodes": nodes, "fetch": keys + ["r"]}
        name = "%s_%d" % (fn, i)
        r = harness.run_mars(doc=doc)
        try:
            if r.rc != 0:
                suite.fail(name, "exit %d: %s" % (r.rc, r.brief_error()), doc)
                continue
            ins = [np.load(os.path.join(r.outdir, k + ".npy")) for k in keys]
            got = np.load(os.path.join(r.outdir, "r.npy"))
            want = FUNCS[fn](ins)
            suite.check(name, got.dtype == want.dtype and got.shape == want.shape and
                        np.array_equal(got, want),
                        "%s %s vs numpy %s %s" % (got.dtype, got.shape, want.dtype, want.shape), doc)
        finally:
            harness.cleanup(r)
    # numpy's refusals
    bad = [("hstack", [[2, 3], [3, 3]], "along dimension 0"),
           ("vstack", [[2, 3], [2, 4]], "along dimension 1"),
           ("dstack", [[2, 3, 1], [2, 4]], "along dimension 1"),
           ("column_stack", [[4], [5]], "along dimension 0"),
           ("vstack", [[2, 3], [2, 3, 1]], "same number of dimensions")]
    for k, (fn, shapes, want) in enumerate(bad):
        nodes = [leaf(rng, "x%d" % j, s, "float64") for j, s in enumerate(shapes)]
        nodes.append({"key": "r", "op": fn, "inputs": ["x%d" % j for j in range(len(shapes))]})
        doc = {"version": 1, "nodes": nodes, "fetch": ["r"]}
        r = harness.run_mars(doc=doc)
        try:
            err = r.stderr if isinstance(r.stderr, str) else r.stderr.decode()
            suite.check("refused_%s_%d" % (fn, k), r.rc == 2 and want in err and 'node "r"' in err,
                        "exit %d: %s" % (r.rc, err[-300:]), doc)
        finally:
            harness.cleanup(r)
    doc = {"version": 1, "nodes": [{"key": "r", "op": "hstack", "inputs": []}], "fetch": ["r"]}
    r = harness.run_mars(doc=doc)
    try:
        err = r.stderr if isinstance(r.stderr, str) else r.stderr.decode()
        suite.check("refused_empty", r.rc == 2 and "need at least one array" in err,
                    "exit %d: %s" % (r.rc, err[-300:]), doc)
    finally:
        harness.cleanup(r)
    suite.finish()


if __name__ == "__main__":
    main()
