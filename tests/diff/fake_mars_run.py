#!/usr/bin/python3
"""A stand-in for mars-run built on npref, for checking the differential suite
itself: MARS_RUN=tests/diff/fake_mars_run.py /usr/bin/python3 tests/diff/test_ops.py

It computes float sums, means and products with wider accumulators than numpy
(npref's perturb mode), so the suite's tolerances meet results that a correct
engine could give. Random nodes use numpy's Philox over the whole tensor.
It validates far less than the engine must; it is not a reference for errors.
"""

import json
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npref  # noqa: E402

KEY_RE = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


def reject(msg):
    sys.stderr.write(msg.replace("\n", " ") + "\n")
    sys.exit(2)


def random_values(node):
    op = node["op"]
    shape = npref._shape(node["shape"])
    seed = node.get("seed", 12345)
    g = np.random.Generator(np.random.Philox(seed))
    if op == "random.rand":
        return g.random(shape)
    if op == "random.randn":
        return g.standard_normal(shape)
    if op == "random.uniform":
        return g.uniform(node.get("low", 0.0), node.get("high", 1.0), shape)
    if op == "random.normal":
        return g.normal(node.get("loc", 0.0), node.get("scale", 1.0), shape)
    if op == "random.randint":
        dt = npref._dtype(node, np.dtype(np.int64))
        return g.integers(node.get("low", 0), node["high"], shape).astype(dt)
    raise ValueError(op)


def main(argv):
    path, out = None, None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "-o":
            out = argv[i + 1]
            i += 2
        elif a in ("--threads", "--data-dir"):
            i += 2
        else:
            path = a
            i += 1
    if path is None or out is None:
        reject("usage: mars-run GRAPH.json -o DIR [--threads N]")
    try:
        text = sys.stdin.read() if path == "-" else open(path).read()
    except OSError as e:
        reject("cannot read %s: %s" % (path, e.strerror))
    try:
        doc = json.loads(text)
    except ValueError as e:
        reject("invalid JSON: %s" % e)
    if not isinstance(doc, dict):
        reject("the document is not an object")
    if doc.get("version") != 1 or isinstance(doc.get("version"), bool):
        reject("version must be 1")
    if not isinstance(doc.get("nodes"), list):
        reject("nodes must be a list")
    if not isinstance(doc.get("fetch"), list):
        reject("fetch must be a list")
    for n in doc["nodes"]:
        if not isinstance(n, dict) or not isinstance(n.get("key"), str) \
                or not KEY_RE.match(n["key"]):
            reject("bad node key %r" % (n.get("key") if isinstance(n, dict) else n))
        if n.get("op") not in npref.ALL_OPS:
            reject('node "%s" (%s): unknown op' % (n["key"], n.get("op")))
        if "shape" in n:
            s = npref._shape(n["shape"])
            if any(d < 0 for d in s):
                reject('node "%s" (%s): negative shape' % (n["key"], n["op"]))
            if int(np.prod([float(d) for d in s])) > 2 ** 31:
                reject('node "%s" (%s): too large' % (n["key"], n["op"]))
        cs = n.get("chunk_size")
        if cs is not None and (cs == 0 or (isinstance(cs, list) and 0 in cs)):
            reject('node "%s" (%s): chunk_size 0' % (n["key"], n["op"]))
    rnd = {n["key"]: random_values(n) for n in doc["nodes"] if n["op"] in npref.RANDOM_OPS}
    try:
        vals = npref.evaluate(doc, random_values=rnd, all=True, perturb=True)
    except npref.Rejected as e:
        if "negative integer powers" in str(e):
            sys.stderr.write("%s\n" % e)
            sys.exit(1)
        reject(str(e))
    os.makedirs(out, exist_ok=True)
    for k in doc["fetch"]:
        np.save(os.path.join(out, k + ".npy"), np.array(vals[k], order="C"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
