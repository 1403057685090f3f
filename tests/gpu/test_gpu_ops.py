#!/usr/bin/python3
"""The GPU suite's op checks (docs/gpu.md): every op family a device runs,
through `mars-run --cuda-devices 0`, against numpy and against the CPU run
of the same document.

  * random draws (rand, uniform, randn, normal, randint int32/int64): the
    bits of the CPU's draw;
  * integer and bool results: equal to numpy's and the CPU's;
  * float results: np.allclose (numpy's defaults) against numpy, computed
    from the CPU run's inputs;
  * each document ran jobs on the device ("N jobs on devices" of --stats),
    except "device": "cpu", which runs none;
  * --cuda-mem small enough that chunks go back and forth still gives the
    same results.

Run by tests/run.sh only where nvidia-smi lists a device; on every machine,
tests/diff/test_gpu_emu.py runs it with --bin build/emu/bin (the emulated
device, docs/gpu.md).
Run: python3 tests/gpu/test_gpu_ops.py [--bin DIR]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(REPO, "build", "bin")
if "--bin" in sys.argv:
    BIN = sys.argv[sys.argv.index("--bin") + 1]
passed = failed = 0
# --dry: both runs on the CPU (checks the documents and references on a
# machine without a device; not part of the suite)
DRY = "--dry" in sys.argv


def check(name, ok, why=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok %s" % name, flush=True)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, " ".join(str(why).split())[:600]), flush=True)


def mars_run(doc, out, extra=()):
    path = out + ".json"
    with open(path, "w") as f:
        json.dump(doc, f)
    p = subprocess.run([os.path.join(BIN, "mars-run"), path, "-o", out, "--stats"] + list(extra),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    err = p.stderr.decode(errors="replace")
    m = re.search(r"(\d+) jobs on devices", err)
    res = {}
    if p.returncode == 0:
        for k in doc["fetch"]:
            res[k] = np.load(os.path.join(out, k + ".npy"))
    return p.returncode, res, int(m.group(1)) if m else 0, err


def rnd(key, shape, chunk, seed, op="random.rand", **kw):
    n = {"key": key, "op": op, "shape": list(shape), "chunk_size": chunk, "seed": seed}
    n.update(kw)
    return n


def node(key, op, inputs, **kw):
    n = {"key": key, "op": op, "inputs": inputs}
    n.update(kw)
    return n


def same(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and (
        np.array_equal(a, b, equal_nan=True) if a.dtype.kind == "f" else np.array_equal(a, b))


def close(a, b):
    return a.shape == b.shape and np.allclose(a, b, equal_nan=True)


def run_case(tmp, name, nodes, refs, device="gpu", extra=(), want_gpu=True, no_copy_in=False,
             exact=()):
    """refs: key -> function(cpu results) giving numpy's answer; keys with
    None are compared with the CPU run only (bit for bit); keys in exact
    (floats) are compared with the CPU run bit for bit too."""
    doc = {"version": 1, "device": device, "nodes": nodes, "fetch": list(refs)}
    rc_c, cpu, _, err_c = mars_run(doc, os.path.join(tmp, name + "-cpu"))
    dev = [] if DRY else ["--cuda-devices", "0"] + list(extra)
    rc_g, gpu, njobs, err_g = mars_run(doc, os.path.join(tmp, name + "-gpu"), dev)
    check("%s/runs" % name, rc_c == 0 and rc_g == 0,
          "cpu exit %d: %s | gpu exit %d: %s" % (rc_c, err_c[-300:], rc_g, err_g[-300:]))
    if rc_c or rc_g:
        return
    if no_copy_in and not DRY:
        m = re.search(r"all copies: (\d+) bytes to devices", err_g)
        check("%s/made-on-device" % name, m and m.group(1) == "0",
              "inputs were copied to the device: %s" % err_g[-300:])
    if DRY:
        pass
    elif want_gpu:
        check("%s/ran-on-device" % name, njobs > 0, "no job ran on the device: %s" % err_g[-300:])
    else:
        check("%s/ran-on-cpu" % name, njobs == 0, "%d jobs ran on the device" % njobs)
    for k, ref in refs.items():
        g, c = gpu[k], cpu[k]
        if g.dtype.kind in "biu" or ref is None or k in exact:
            check("%s/%s-cpu-bits" % (name, k), same(g, c),
                  "dtype %s/%s; first differences %s" % (g.dtype, c.dtype, diff(g, c)))
        else:
            check("%s/%s-cpu" % (name, k), g.dtype == c.dtype and close(g, c),
                  "dtype %s/%s; %s" % (g.dtype, c.dtype, diff(g, c)))
        if ref is not None:
            want = np.asarray(ref(cpu))
            ok = same(g, want) if g.dtype.kind in "biu" else (g.dtype == want.dtype and close(g, want))
            check("%s/%s-numpy" % (name, k), ok, "dtype %s want %s; %s" % (g.dtype, want.dtype,
                                                                           diff(g, want)))


def diff(a, b):
    try:
        if a.shape != b.shape:
            return "shapes %s and %s" % (a.shape, b.shape)
        bad = np.argwhere(~np.isclose(a.astype(np.float64), b.astype(np.float64), equal_nan=True))
        return "%d differ, e.g. %s" % (len(bad), [(tuple(i), a[tuple(i)], b[tuple(i)])
                                                  for i in bad[:3]])
    except Exception as e:  # noqa: BLE001 - a message only
        return str(e)


def main():
    tmp = tempfile.mkdtemp(prefix="mars-gpu-")
    try:
        cases(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("RESULT passed=%d failed=%d" % (passed, failed), flush=True)
    sys.exit(1 if failed else 0)


def cases(tmp):
    A = (700, 500)
    # random draws: the CPU's bits
    run_case(tmp, "random", [
        rnd("r", A, 200, 7),
        rnd("u", A, [300, 170], 8, "random.uniform", low=-2.5, high=4.0),
        rnd("n", A, 256, 9, "random.randn"),
        rnd("m", (1001,), 100, 10, "random.normal", loc=3.0, scale=0.5),
        rnd("i", A, 200, 11, "random.randint", low=-50, high=1000),
        rnd("i4", A, 200, 12, "random.randint", low=0, high=7, dtype="int32"),
        rnd("r3", (30, 40, 50), [7, 40, 13], 13),
    ], {"r": None, "u": None, "n": None, "m": None, "i": None, "i4": None, "r3": None})

    # random2.c's distributions (rand_math.h's samplers, shared): the CPU's
    # bits, both sides of each sampler's branches, and sane values
    def dist(key, size, chunk, seed, op, **params):
        n = {"key": key, "op": op, "size": list(size), "chunk_size": chunk, "seed": seed}
        n.update(params)
        return n
    R = (400, 300)
    dists = [
        dist("ex", R, 100, 21, "random.exponential", scale=2.5),
        dist("ps", R, 100, 22, "random.poisson", lam=3.5),
        dist("pl", R, 100, 23, "random.poisson", lam=1234.5),
        dist("bs", R, 100, 24, "random.binomial", n=20, p=0.3),
        dist("bl", R, 100, 25, "random.binomial", n=5000, p=0.62),
        dist("ga", R, 100, 26, "random.gamma", shape=2.5, scale=2.0),
        dist("gs", R, 100, 27, "random.gamma", shape=0.3),
        dist("be", R, 100, 28, "random.beta", a=2.0, b=5.0),
        dist("bt", R, 100, 29, "random.beta", a=0.2, b=0.5),
        dist("ln", R, 100, 30, "random.lognormal", mean=0.5, sigma=0.4),
        dist("st", R, 100, 31, "random.standard_t", df=7.0),
        dist("cs", (30, 40, 50), [7, 40, 13], 32, "random.chisquare", df=3.0),
    ]
    run_case(tmp, "random-dists", dists, {n["key"]: None for n in dists})
    rc, res, njobs, err = mars_run({"version": 1, "device": "gpu", "nodes": dists,
                                    "fetch": [n["key"] for n in dists]},
                                   os.path.join(tmp, "dists-means"),
                                   [] if DRY else ["--cuda-devices", "0"])
    if rc == 0:
        means = {"ex": 2.5, "ps": 3.5, "pl": 1234.5, "bs": 6.0, "bl": 3100.0, "ga": 5.0,
                 "gs": 0.3, "be": 2 / 7, "bt": 0.2 / 0.7, "ln": np.exp(0.58), "st": 0.0,
                 "cs": 3.0}
        for k, m in means.items():
            x = res[k].astype(np.float64)
            check("random-dists/%s-mean" % k, abs(x.mean() - m) < 6 * x.std() / np.sqrt(x.size) + 1e-12,
                  "mean %g, expected %g" % (x.mean(), m))
    else:
        check("random-dists/means-run", False, err[-300:])

    # element-wise programs
    ew = [
        rnd("a", A, 200, 1), rnd("b", A, 200, 2, "random.randn"),
        rnd("k", A, 200, 3, "random.randint", low=-20, high=20),
        rnd("k4", A, 200, 4, "random.randint", low=-9, high=9, dtype="int32"),
        rnd("row", (500,), 200, 5),
        node("add", "add", ["a", "b"]), node("lin", "add", [node_ref("m2"), 1]),
        node("m2", "multiply", ["a", 2]),
        node("sub", "subtract", ["a", "row"]), node("div", "divide", ["b", "a"]),
        node("mx", "maximum", ["a", "b"]), node("mn", "minimum", ["b", 0.25]),
        node("lt", "less", ["a", "b"]), node("eq", "equal", ["k", 3]),
        node("wh", "where", [node_ref("lt"), "a", "b"]),
        node("cl", "clip", ["b"], a_min=-0.5, a_max=0.7),
        node("f4", "astype", ["b"], dtype="float32"),
        node("i8", "astype", [node_ref("m10"), ], dtype="int64"),
        node("m10", "multiply", ["b", 10]),
        node("i4", "astype", ["b"], dtype="int32"),
        node("kf", "astype", ["k"], dtype="float64"),
        node("sq", "sqrt", ["a"]), node("ex", "exp", ["b"]), node("lg", "log", ["a"]),
        node("sn", "sin", ["b"]), node("th", "tanh", ["b"]), node("ab", "absolute" if False else "abs", ["b"]),
        node("ng", "negative", ["k"]), node("sq2", "square", ["k"]), node("fl", "floor", ["m10"]),
        node("pw", "power", ["a", 2.5]),
        node("ki", "add", ["k", "k4"]), node("km", "multiply", ["k", 7]),
        node("band", "bitwise_and", ["k", 6]),
        node("land", "logical_and", [node_ref("lt"), node_ref("eq")]),
        node("f32", "add", [node_ref("f4"), node_ref("f4")]),
    ]
    run_case(tmp, "elementwise", ew, {
        "add": lambda c: c["a"] + c["b"], "lin": lambda c: c["a"] * 2 + 1,
        "sub": lambda c: c["a"] - c["row"], "div": lambda c: c["b"] / c["a"],
        "mx": lambda c: np.maximum(c["a"], c["b"]), "mn": lambda c: np.minimum(c["b"], 0.25),
        "lt": lambda c: c["a"] < c["b"], "eq": lambda c: c["k"] == 3,
        "wh": lambda c: np.where(c["a"] < c["b"], c["a"], c["b"]),
        "cl": lambda c: np.clip(c["b"], -0.5, 0.7),
        "f4": lambda c: c["b"].astype(np.float32),
        "i8": lambda c: (c["b"] * 10).astype(np.int64),
        "i4": lambda c: c["b"].astype(np.int32), "kf": lambda c: c["k"].astype(np.float64),
        "sq": lambda c: np.sqrt(c["a"]), "ex": lambda c: np.exp(c["b"]),
        "lg": lambda c: np.log(c["a"]), "sn": lambda c: np.sin(c["b"]),
        "th": lambda c: np.tanh(c["b"]), "ab": lambda c: np.abs(c["b"]),
        "ng": lambda c: -c["k"], "sq2": lambda c: np.square(c["k"]),
        "fl": lambda c: np.floor(c["b"] * 10), "pw": lambda c: np.power(c["a"], 2.5),
        "ki": lambda c: c["k"] + c["k4"].astype(np.int64), "km": lambda c: c["k"] * 7,
        "band": lambda c: c["k"] & 6,
        "land": lambda c: np.logical_and(c["a"] < c["b"], c["k"] == 3),
        "f32": lambda c: c["b"].astype(np.float32) + c["b"].astype(np.float32),
        "a": None, "b": None, "k": None, "k4": None, "row": None,
    })

    # reductions, plain and fused
    rd = [
        rnd("a", (300, 200, 50), [100, 80, 50], 21),
        rnd("k", (600, 400), 150, 22, "random.randint", low=-100, high=100),
        rnd("k4", (600, 400), 150, 23, "random.randint", low=0, high=3, dtype="int32"),
        node("s", "sum", ["a"]), node("s0", "sum", ["a"], axis=0), node("s12", "sum", ["a"], axis=[1, 2]),
        node("s02", "sum", ["a"], axis=[0, 2]),
        node("me", "mean", ["a"], axis=1), node("mx", "max", ["a"], axis=2), node("mn", "min", ["a"]),
        node("pr", "prod", [node_ref("ap")], axis=0), node("ap", "add", ["a", 0.5]),
        node("fu", "sum", [node_ref("f2")]), node("f2", "add", [node_ref("f1"), 1]),
        node("f1", "multiply", ["a", 2]),
        node("ks", "sum", ["k"], axis=1), node("kmx", "max", ["k"], axis=0), node("kt", "sum", ["k"]),
        node("k4s", "sum", ["k4"], axis=0), node("k4m", "mean", ["k4"]),
        node("gt", "greater", ["k", 0]), node("al", "all", [node_ref("gt")], axis=1),
        node("an", "any", [node_ref("gt")], axis=0), node("cnt", "sum", [node_ref("gt")]),
        node("f4", "astype", ["a"], dtype="float32"), node("f4s", "sum", [node_ref("f4")], axis=1),
    ]
    run_case(tmp, "reductions", rd, {
        "s": lambda c: c["a"].sum(), "s0": lambda c: c["a"].sum(axis=0),
        "s12": lambda c: c["a"].sum(axis=(1, 2)), "s02": lambda c: c["a"].sum(axis=(0, 2)),
        "me": lambda c: c["a"].mean(axis=1), "mx": lambda c: c["a"].max(axis=2),
        "mn": lambda c: c["a"].min(), "pr": lambda c: (c["a"] + 0.5).prod(axis=0),
        "fu": lambda c: (c["a"] * 2 + 1).sum(),
        "ks": lambda c: c["k"].sum(axis=1), "kmx": lambda c: c["k"].max(axis=0),
        "kt": lambda c: c["k"].sum(), "k4s": lambda c: c["k4"].sum(axis=0).astype(np.int64),
        "k4m": lambda c: c["k4"].mean(),
        "al": lambda c: (c["k"] > 0).all(axis=1), "an": lambda c: (c["k"] > 0).any(axis=0),
        "cnt": lambda c: (c["k"] > 0).sum(),
        "f4s": lambda c: c["a"].astype(np.float32).sum(axis=1),
        "a": None, "k": None, "k4": None,
    })

    # scans
    sc = [
        rnd("a", (900, 300), [250, 120], 31),
        rnd("k", (900, 300), [250, 120], 32, "random.randint", low=-5, high=6),
        rnd("k4", (2000,), 700, 33, "random.randint", low=1, high=3, dtype="int32"),
        rnd("long", (20000,), 6000, 34),
        node("c0", "cumsum", ["a"], axis=0), node("c1", "cumsum", ["a"], axis=1),
        node("p1", "cumprod", [node_ref("ap")], axis=1), node("ap", "add", ["a", 0.5]),
        node("kc", "cumsum", ["k"], axis=0), node("kp", "cumprod", ["k"], axis=1),
        node("k4c", "cumsum", ["k4"]), node("lc", "cumsum", ["long"]),
        node("f4", "astype", ["a"], dtype="float32"), node("f4c", "cumsum", [node_ref("f4")], axis=1),
    ]
    run_case(tmp, "scans", sc, {
        "c0": lambda c: np.cumsum(c["a"], axis=0), "c1": lambda c: np.cumsum(c["a"], axis=1),
        "p1": lambda c: np.cumprod(c["a"] + 0.5, axis=1),
        "kc": lambda c: np.cumsum(c["k"], axis=0), "kp": lambda c: np.cumprod(c["k"], axis=1),
        "k4c": lambda c: np.cumsum(c["k4"]).astype(np.int64), "lc": lambda c: np.cumsum(c["long"]),
        "f4c": lambda c: np.cumsum(c["a"].astype(np.float32), axis=1),
        "a": None, "k": None, "k4": None, "long": None,
    })

    # the dot family through cuBLAS
    la = [
        rnd("a", (600, 450), [200, 150], 41), rnd("b", (450, 350), [150, 175], 42),
        rnd("c", (600, 350), [200, 175], 43), rnd("t3", (20, 30, 40), [10, 15, 20], 44),
        rnd("t2", (30, 40), [15, 20], 45),
        rnd("k", (200, 150), 50, 46, "random.randint", low=-9, high=9),
        node("dot", "dot", ["a", "b"]), node("mm", "matmul", ["a", "b"]),
        node("inn", "inner", ["a", "a"]), node("at", "transpose", ["a"]),
        node("aat", "dot", ["a", node_ref("at")]),
        node("td0", "tensordot", ["a", "c"], axes=[[0], [0]]),
        node("td1", "tensordot", ["b", "c"], axes=[[1], [1]]),
        node("td2", "tensordot", ["t3", "t2"], axes=[[1, 2], [0, 1]]),
        node("a4", "astype", ["a"], dtype="float32"), node("b4", "astype", ["b"], dtype="float32"),
        node("d4", "dot", [node_ref("a4"), node_ref("b4")]),
        node("kt", "transpose", ["k"]), node("kd", "dot", ["k", node_ref("kt")]),
    ]
    run_case(tmp, "linalg", la, {
        "dot": lambda c: c["a"].dot(c["b"]), "mm": lambda c: c["a"] @ c["b"],
        "inn": lambda c: np.inner(c["a"], c["a"]), "aat": lambda c: c["a"].dot(c["a"].T),
        "td0": lambda c: np.tensordot(c["a"], c["c"], axes=([0], [0])),
        "td1": lambda c: np.tensordot(c["b"], c["c"], axes=([1], [1])),
        "td2": lambda c: np.tensordot(c["t3"], c["t2"], axes=([1, 2], [0, 1])),
        "d4": lambda c: c["a"].astype(np.float32).dot(c["b"].astype(np.float32)),
        "kd": lambda c: c["k"].dot(c["k"].T),
        "a": None, "b": None, "c": None, "t3": None, "t2": None, "k": None,
    })

    # batched matmul (strided batches, broadcasting either side) and
    # tensordot axis orders that need an operand permuted on the device
    bm = [
        rnd("x", (6, 40, 30), [2, 20, 15], 81), rnd("y", (6, 30, 25), [3, 15, 25], 82),
        rnd("w", (30, 25), 15, 83), rnd("v", (40, 30), 20, 84),
        rnd("p", (3, 1, 20, 10), [2, 1, 10, 5], 85), rnd("q", (1, 4, 10, 15), [1, 3, 5, 15], 86),
        rnd("t3", (20, 30, 40), [10, 15, 20], 87), rnd("u", (40, 20), [20, 10], 88),
        rnd("s3", (30, 5, 20), [15, 5, 10], 89), rnd("m2", (30, 7), [15, 7], 90),
        node("xy", "matmul", ["x", "y"]), node("xw", "matmul", ["x", "w"]),
        node("vy", "matmul", ["v", "y"]), node("pq", "matmul", ["p", "q"]),
        node("x4", "astype", ["x"], dtype="float32"), node("y4", "astype", ["y"], dtype="float32"),
        node("xy4", "matmul", [node_ref("x4"), node_ref("y4")]),
        node("tu", "tensordot", ["t3", "u"], axes=[[2, 0], [0, 1]]),
        node("ts", "tensordot", ["t3", "s3"], axes=[[0, 1], [2, 0]]),
        node("tm", "tensordot", ["t3", "m2"], axes=[[1], [0]]),
        # integer and bool products: a kernel of their own (wrapping; any)
        rnd("ki", (6, 40, 30), [2, 20, 15], 91, "random.randint", low=-50, high=50),
        rnd("kj", (6, 30, 25), [3, 15, 25], 92, "random.randint", low=-50, high=50),
        node("kmm", "matmul", ["ki", "kj"]),
        node("b1", "less", ["x", 0.2]), node("b2", "less", ["y", 0.2]),
        node("bmm", "matmul", [node_ref("b1"), node_ref("b2")]),
        node("k4", "astype", ["ki"], dtype="int32"),
        node("ktd", "tensordot", [node_ref("k4"), node_ref("k4")], axes=[[0, 2], [0, 2]]),
        node("kt2", "transpose", ["m2i"]), rnd("m2i", (300, 70), [100, 35], 93, "random.randint",
                                               low=-9, high=9),
        node("kxx", "dot", ["m2i", node_ref("kt2")]),
    ]
    run_case(tmp, "batched", bm, {
        "xy": lambda c: c["x"] @ c["y"], "xw": lambda c: c["x"] @ c["w"],
        "vy": lambda c: c["v"] @ c["y"], "pq": lambda c: c["p"] @ c["q"],
        "xy4": lambda c: c["x"].astype(np.float32) @ c["y"].astype(np.float32),
        "tu": lambda c: np.tensordot(c["t3"], c["u"], axes=([2, 0], [0, 1])),
        "ts": lambda c: np.tensordot(c["t3"], c["s3"], axes=([0, 1], [2, 0])),
        "tm": lambda c: np.tensordot(c["t3"], c["m2"], axes=([1], [0])),
        "kmm": lambda c: c["ki"] @ c["kj"], "bmm": lambda c: (c["x"] < 0.2) @ (c["y"] < 0.2),
        "ktd": lambda c: np.tensordot(c["ki"].astype(np.int32), c["ki"].astype(np.int32),
                                      axes=([0, 2], [0, 2])),
        "kxx": lambda c: c["m2i"].dot(c["m2i"].T), "ki": None, "kj": None, "m2i": None,
        "x": None, "y": None, "p": None, "q": None, "w": None, "v": None, "t3": None, "u": None,
        "s3": None, "m2": None,
    })

    # creation ops feeding the device, and W1's shape
    run_case(tmp, "creation", [
        {"key": "o", "op": "ones", "shape": [800, 800], "chunk_size": 200},
        {"key": "f", "op": "full", "shape": [800, 800], "fill_value": 2.5, "chunk_size": 200},
        node("inn", "inner", ["o", "o"]), node("fs", "sum", [node_ref("ff")], axis=0),
        node("ff", "multiply", ["f", "o"]),
    ], {"inn": lambda c: np.inner(np.ones((800, 800)), np.ones((800, 800))),
        "fs": lambda c: np.full((800, 800), 2.5).sum(axis=0)}, no_copy_in=True)

    # the position-dependent creation ops, made on the device bit for bit
    # (kern/create.c's arithmetic), alone and inside a product's job
    run_case(tmp, "creation-positions", [
        {"key": "af", "op": "arange", "start": -3.25, "stop": 40000.5, "step": 0.75,
         "chunk_size": 7000},
        {"key": "as", "op": "arange", "start": 1.5, "stop": 9000, "step": 0.3, "dtype": "float32",
         "chunk_size": 4000},
        {"key": "ai", "op": "arange", "start": -70000, "stop": 300000, "step": 7, "chunk_size": 9999},
        {"key": "a32", "op": "arange", "start": 5, "stop": 90000, "step": 3, "dtype": "int32",
         "chunk_size": 8000},
        {"key": "l", "op": "linspace", "start": -2.5, "stop": 7.0, "num": 100001, "chunk_size": 9000},
        {"key": "lf", "op": "linspace", "start": 0, "stop": 1, "num": 50000, "endpoint": False,
         "chunk_size": 7000},
        {"key": "e", "op": "eye", "N": 600, "M": 500, "k": 3, "chunk_size": 128},
        {"key": "ei", "op": "eye", "N": 300, "k": -7, "dtype": "int32", "chunk_size": 64},
        {"key": "eb", "op": "eye", "N": 257, "dtype": "bool", "chunk_size": 100},
        {"key": "e2", "op": "eye", "N": 400, "k": 1, "chunk_size": 100},
        rnd("r", (400, 300), 100, 71), node("p", "dot", ["e2", "r"]),
    ], {"af": lambda c: np.arange(-3.25, 40000.5, 0.75),
        "as": lambda c: np.arange(1.5, 9000, 0.3, dtype=np.float32),
        "ai": lambda c: np.arange(-70000, 300000, 7),
        "a32": lambda c: np.arange(5, 90000, 3, dtype=np.int32),
        "l": lambda c: np.linspace(-2.5, 7.0, 100001),
        "lf": lambda c: np.linspace(0, 1, 50000, endpoint=False),
        "e": lambda c: np.eye(600, 500, k=3), "ei": lambda c: np.eye(300, k=-7, dtype=np.int32),
        "eb": lambda c: np.eye(257, dtype=bool),
        "p": lambda c: np.eye(400, k=1).dot(c["r"]), "r": None},
        no_copy_in=True, exact=("af", "as", "l", "lf", "e"))

    # argmin / argmax map stages on the device: NaN and ties go to the
    # smallest index (an order-free rule: the CPU's partials exactly)
    def with_nan(c):
        with np.errstate(invalid="ignore"):
            z = np.where(c["a"] < 0.001, 0.0, 1.0)
            return c["a"] * (z / z)
    run_case(tmp, "argminmax", [
        rnd("a", (3000, 800), [1000, 400], 81), node("y", "less", ["a", 0.001]),
        node("z", "where", ["y", 0.0, 1.0]), node("n", "divide", ["z", "z"]),
        node("m", "multiply", ["a", "n"]),
        node("m0", "argmin", ["m"]), node("m1", "argmax", ["m"], axis=0),
        node("m2", "argmin", ["m"], axis=1),
        node("f", "astype", ["a"], dtype="float32"), node("f1", "argmax", ["f"], axis=1),
        rnd("k", (2000, 900), [500, 450], 82, op="random.randint", low=0, high=5),
        node("k0", "argmax", ["k"], axis=0), node("k1", "argmin", ["k"]),
        node("b", "less", ["a", 0.5]), node("b1", "argmax", ["b"], axis=1),
    ], {"m0": lambda c: np.argmin(with_nan(c)), "m1": lambda c: np.argmax(with_nan(c), axis=0),
        "m2": lambda c: np.argmin(with_nan(c), axis=1),
        "f1": lambda c: np.argmax(c["a"].astype(np.float32), axis=1),
        "k0": lambda c: np.argmax(c["k"], axis=0), "k1": lambda c: np.argmin(c["k"]),
        "b1": lambda c: np.argmax(c["a"] < 0.5, axis=1), "a": None, "k": None})

    # var and std map stages on the device (Welford and Chan's merge: within
    # rounding of the CPU's), ddof, float32, ints, a fused program, NaN
    run_case(tmp, "varstd", [
        rnd("a", (3000, 800), [1000, 400], 91), node("v0", "var", ["a"]),
        node("v1", "var", ["a"], axis=0), node("s1", "std", ["a"], axis=1, ddof=1),
        node("f", "astype", ["a"], dtype="float32"), node("fs", "std", ["f"], axis=0),
        rnd("k", (2000, 900), [500, 450], 92, op="random.randint", low=-50, high=50),
        node("kv", "var", ["k"], axis=1),
        node("e", "exp", ["a"]), node("ev", "var", [node_ref("e")], axis=0),
        node("y", "less", ["a", 0.001]), node("z", "where", ["y", 0.0, 1.0]),
        node("n", "divide", ["z", "z"]), node("m", "multiply", ["a", "n"]),
        node("mv", "var", ["m"], axis=1),
    ], {"v0": lambda c: np.var(c["a"]), "v1": lambda c: np.var(c["a"], axis=0),
        "s1": lambda c: np.std(c["a"], axis=1, ddof=1),
        "fs": lambda c: np.std(c["a"].astype(np.float32), axis=0),
        "kv": lambda c: np.var(c["k"], axis=1), "ev": lambda c: np.var(np.exp(c["a"]), axis=0),
        "mv": lambda c: np.var(with_nan(c), axis=1), "a": None, "k": None})

    # the nan-reductions of floats skip NaN on the device (float64 and
    # float32 values; full and partial axes)
    def nan_of(c, f32=False):
        with np.errstate(invalid="ignore"):
            z = np.where(c["a"] < 0.01, 0.0, 1.0)
            m = c["a"] * (z / z)
        return m.astype(np.float32) if f32 else m
    run_case(tmp, "nanreductions", [
        rnd("a", (3000, 800), [1000, 400], 93), node("y", "less", ["a", 0.01]),
        node("z", "where", ["y", 0.0, 1.0]), node("n", "divide", ["z", "z"]),
        node("m", "multiply", ["a", "n"]), node("f", "astype", ["m"], dtype="float32"),
        node("s0", "nansum", ["m"]), node("s1", "nansum", ["m"], axis=0),
        node("w", "add", ["m", 0.5]), node("p1", "nanprod", ["w"], axis=1),
        node("me", "nanmean", ["m"], axis=0), node("mf", "nanmean", ["f"]),
        node("v1", "nanvar", ["m"], axis=1), node("sd", "nanstd", ["f"], axis=0, ddof=1),
    ], {"s0": lambda c: np.nansum(nan_of(c)), "s1": lambda c: np.nansum(nan_of(c), axis=0),
        "p1": lambda c: np.nanprod(nan_of(c) + 0.5, axis=1),
        "me": lambda c: np.nanmean(nan_of(c), axis=0),
        "mf": lambda c: np.nanmean(nan_of(c, True)),
        "v1": lambda c: np.nanvar(nan_of(c), axis=1),
        "sd": lambda c: np.nanstd(nan_of(c, True), axis=0, ddof=1), "a": None})
    # ptp and count_nonzero (NaN propagates, counts as nonzero; -0.0 does
    # not), and nancumsum/nancumprod of floats (NaN as 0 or 1), both scan
    # paths (a line per thread, and segments)
    run_case(tmp, "ptp-cnz-nanscan", [
        rnd("a", (3000, 800), [1000, 400], 93), node("y", "less", ["a", 0.01]),
        node("z", "where", ["y", 0.0, 1.0]), node("n", "divide", ["z", "z"]),
        node("m", "multiply", ["a", "n"]), node("f", "astype", ["m"], dtype="float32"),
        rnd("k", (3000, 800), [1000, 400], 94, op="random.randint", low=-5, high=5),
        node("pa", "ptp", ["a"], axis=0), node("pm", "ptp", ["m"], axis=1),
        node("pk", "ptp", ["k"]), node("k4", "astype", ["k"], dtype="int32"),
        node("pk4", "ptp", [node_ref("k4")], axis=1),
        node("c0", "count_nonzero", ["k"], axis=0), node("cm", "count_nonzero", ["m"], axis=1),
        node("ng", "negative", ["z"]), node("cz", "count_nonzero", [node_ref("ng")]),
        node("ns", "nancumsum", ["m"], axis=0), node("np1", "nancumprod", [node_ref("w")], axis=1),
        node("w", "add", ["m", 0.5]), node("nf", "nancumsum", ["f"], axis=1),
    ], {"pa": lambda c: np.ptp(c["a"], axis=0), "pm": lambda c: np.ptp(nan_of(c), axis=1),
        "pk": lambda c: np.ptp(c["k"]),
        "pk4": lambda c: np.ptp(c["k"].astype(np.int32), axis=1),
        "c0": lambda c: np.count_nonzero(c["k"], axis=0),
        "cm": lambda c: np.count_nonzero(nan_of(c), axis=1),
        "cz": lambda c: np.count_nonzero(-np.where(c["a"] < 0.01, 0.0, 1.0)),
        "ns": lambda c: np.nancumsum(nan_of(c), axis=0),
        "np1": lambda c: np.nancumprod(nan_of(c) + 0.5, axis=1),
        "nf": lambda c: np.nancumsum(nan_of(c, True), axis=1), "a": None, "k": None})
    # nanmin/nanmax (NaN where a column is all NaN) and nanargmin/nanargmax
    # (a NaN counts as +-inf; ties to the smallest index)
    def nan_cols(c):
        m = nan_of(c)
        m[:, 7] = np.nan
        return m

    def nanmax_quiet(m):
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanmax(m, axis=0)
    run_case(tmp, "nanextrema", [
        rnd("a", (3000, 800), [1000, 400], 94), node("y", "less", ["a", 0.01]),
        node("z", "where", ["y", 0.0, 1.0]), node("n", "divide", ["z", "z"]),
        node("m", "multiply", ["a", "n"]), node("f", "astype", ["m"], dtype="float32"),
        node("mn", "nanmin", ["m"], axis=0), node("mx", "nanmax", ["f"], axis=1),
        node("amn", "nanargmin", ["m"]), node("amx", "nanargmax", ["f"], axis=1),
        node("ama", "nanargmin", ["m"], axis=0),
        # a column of NaN: nanmax gives NaN there (numpy warns)
        {"key": "c7", "op": "eye", "N": 1, "M": 800, "k": 7}, node("nc", "equal", ["c7", 1.0]),
        node("w", "where", ["nc", node_ref("nn"), "m"]),
        node("nn", "divide", [0.0, 0.0]), node("wx", "nanmax", ["w"], axis=0),
    ], {"mn": lambda c: np.nanmin(nan_of(c), axis=0),
        "mx": lambda c: np.nanmax(nan_of(c, True), axis=1),
        "amn": lambda c: np.nanargmin(nan_of(c)),
        "amx": lambda c: np.nanargmax(nan_of(c, True), axis=1),
        "ama": lambda c: np.nanargmin(nan_of(c), axis=0),
        "wx": lambda c: nanmax_quiet(nan_cols(c)), "a": None})

    # sorts of lines on the device (a bitonic network over (value, position)
    # pairs): numpy's stable order, NaN last, ties, -0.0 and 0.0 in their
    # order (bit for bit with the CPU's merge sort), along either axis;
    # argsort, topk (largest and smallest), partition and argpartition (fully
    # sorted, as the CPU does); bool, int32, int64, float32 and float64
    def ties(c):
        a = c["a"]
        with np.errstate(invalid="ignore"):
            nn = np.divide(np.zeros(1), np.zeros(1))[0]  # x86's NaN, sign bit set, as 0.0 / 0.0
            m = np.where(a < 0.03, nn, np.floor(a * 20.0))
        return np.where(a > 0.97, -0.0, m)

    def topk(x, k, axis, largest=True):
        s = np.sort(x, axis=axis)
        if largest:
            s = np.flip(s, axis=axis)
        return np.take(s, np.arange(k), axis=axis)
    def nanned(c):
        with np.errstate(invalid="ignore"):
            return np.where(c["a"] < 0.002, np.nan, c["a"])

    def nan40(x, below):
        with np.errstate(invalid="ignore"):
            return np.where(x < below, np.nan, np.floor(x * 40.0))

    def topk_stable(x, k, axis):
        # the k largest from the end of the stable sort, as the CPU takes them
        s = np.flip(np.sort(x, axis=axis, kind="stable"), axis=axis)
        return np.take(s, np.arange(k), axis=axis)
    run_case(tmp, "sorts", [
        rnd("a", (600, 500), [200, 250], 97), node("f20", "multiply", ["a", 20.0]),
        node("fl", "floor", ["f20"]), node("lo", "less", ["a", 0.03]),
        node("nn", "divide", [0.0, 0.0]), node("m0", "where", ["lo", node_ref("nn"), "fl"]),
        node("hi", "greater", ["a", 0.97]), node("m", "where", ["hi", -0.0, "m0"]),
        node("s0", "sort", ["m"], axis=0), node("s1", "sort", ["m"], axis=1),
        node("g0", "argsort", ["m"], axis=0), node("g1", "argsort", ["m"], axis=1),
        node("t1", "topk", ["m"], k=5, axis=1), node("t0", "topk", ["m"], k=7, axis=0,
                                                      largest=False),
        node("p1", "partition", ["m"], kth=3, axis=1),
        node("q0", "argpartition", ["m"], kth=[2, 9], axis=0),
        node("f", "astype", ["m"], dtype="float32"), node("fs", "sort", ["f"], axis=1),
        node("fg", "argsort", ["f"], axis=0),
        rnd("k", (600, 500), [200, 250], 98, op="random.randint", low=-5, high=5),
        node("ks", "sort", ["k"], axis=1), node("kg", "argsort", ["k"], axis=0),
        node("k4", "astype", ["k"], dtype="int32"), node("k4s", "sort", [node_ref("k4")], axis=0),
        node("b", "less", ["a", 0.5]), node("bg", "argsort", ["b"], axis=1),
        node("bs", "sort", ["b"], axis=0),
        # the zeros' signs: -0.0 and 0.0 keep their order
        node("z0", "signbit", ["s0"]), node("z1", "signbit", [node_ref("t1")]),
    ], {"z0": lambda c: np.signbit(np.sort(ties(c), axis=0, kind="stable")),
        "z1": lambda c: np.signbit(topk_stable(ties(c), 5, 1)),
        "s0": lambda c: np.sort(ties(c), axis=0), "s1": lambda c: np.sort(ties(c), axis=1),
        "g0": lambda c: np.argsort(ties(c), axis=0, kind="stable"),
        "g1": lambda c: np.argsort(ties(c), axis=1, kind="stable"),
        "t1": lambda c: topk(ties(c), 5, 1), "t0": lambda c: topk(ties(c), 7, 0, False),
        "p1": lambda c: np.sort(ties(c), axis=1),
        "q0": lambda c: np.argsort(ties(c), axis=0, kind="stable"),
        "fs": lambda c: np.sort(ties(c).astype(np.float32), axis=1),
        "fg": lambda c: np.argsort(ties(c).astype(np.float32), axis=0, kind="stable"),
        "ks": lambda c: np.sort(c["k"], axis=1),
        "kg": lambda c: np.argsort(c["k"], axis=0, kind="stable"),
        "k4s": lambda c: np.sort(c["k"].astype(np.int32), axis=0),
        "bg": lambda c: np.argsort(c["a"] < 0.5, axis=1, kind="stable"),
        "bs": lambda c: np.sort(c["a"] < 0.5, axis=0), "a": None, "k": None},
        exact=("s0", "s1", "t1", "t0", "p1", "fs"))
    # medians, quantiles and percentiles of lines on the device: the lines
    # sorted, then kern/quant_math.h's arithmetic (the CPU's bits); NaN for
    # a line holding one, the nan-variants skip them; float32 medians stay
    # float32; integer lines
    run_case(tmp, "quantiles", [
        rnd("a", (600, 500), [200, 250], 97), node("f20", "multiply", ["a", 20.0]),
        node("fl", "floor", ["f20"]), node("lo", "less", ["a", 0.002]),
        node("nn", "divide", [0.0, 0.0]), node("m", "where", ["lo", node_ref("nn"), "a"]),
        node("md0", "median", ["m"], axis=0), node("nmd1", "nanmedian", ["m"], axis=1),
        node("q1", "quantile", ["m"], q=[0.1, 0.5, 0.9], axis=1),
        node("nq0", "nanquantile", ["m"], q=[0.25, 0.75], axis=0),
        node("f", "astype", ["m"], dtype="float32"), node("fmd", "median", ["f"], axis=1),
        node("fnp", "nanpercentile", ["f"], q=30, axis=0),
        rnd("k", (600, 500), [200, 250], 98, op="random.randint", low=-50, high=50),
        node("kp", "percentile", ["k"], q=[5, 50, 95], axis=1),
        node("k4", "astype", ["k"], dtype="int32"), node("k4m", "median", [node_ref("k4")], axis=0),
        node("tm", "median", ["fl"], axis=1),
    ], {"md0": lambda c: np.median(nanned(c), axis=0),
        "nmd1": lambda c: np.nanmedian(nanned(c), axis=1),
        "q1": lambda c: np.quantile(nanned(c), [0.1, 0.5, 0.9], axis=1),
        "nq0": lambda c: np.nanquantile(nanned(c), [0.25, 0.75], axis=0),
        "fmd": lambda c: np.median(nanned(c).astype(np.float32), axis=1),
        "fnp": lambda c: np.nanpercentile(nanned(c).astype(np.float32), 30, axis=0),
        "kp": lambda c: np.percentile(c["k"], [5, 50, 95], axis=1),
        "k4m": lambda c: np.median(c["k"].astype(np.int32), axis=0),
        "tm": lambda c: np.median(np.floor(c["a"] * 20.0), axis=1), "a": None, "k": None},
        exact=("md0", "nmd1", "q1", "nq0", "fmd", "fnp", "kp", "k4m", "tm"))
    # searchsorted on the device (a binary search per value): left and
    # right, ties, NaN on both sides (last), float values in integer bins
    # and the reverse; a sorter stays on the CPU
    run_case(tmp, "searchsorted", [
        rnd("a", (5000,), 2000, 103), node("f", "multiply", ["a", 40.0]),
        node("fl", "floor", ["f"]), node("lo", "less", ["a", 0.01]),
        node("nn", "divide", [0.0, 0.0]), node("m", "where", ["lo", node_ref("nn"), "fl"]),
        node("srt", "sort", ["m"]),
        rnd("v", (300, 200), [100, 100], 104), node("v40", "multiply", ["v", 40.0]),
        node("vf", "floor", ["v40"]), node("vl", "less", ["v", 0.02]),
        node("vm", "where", ["vl", node_ref("nn"), "vf"]),
        node("sl", "searchsorted", ["srt", "vm"]),
        node("sr", "searchsorted", ["srt", "vm"], side="right"),
        node("sv", "searchsorted", ["srt", "v40"]),
        rnd("k", (4000,), 1500, 105, op="random.randint", low=-30, high=30),
        node("ks", "sort", ["k"]), node("ki", "searchsorted", ["ks", "vf"], side="right"),
        node("kk", "searchsorted", ["ks", node_ref("k")]),
    ], {"sl": lambda c: np.searchsorted(np.sort(nan40(c["a"], 0.01)), nan40(c["v"], 0.02)),
        "sr": lambda c: np.searchsorted(np.sort(nan40(c["a"], 0.01)), nan40(c["v"], 0.02),
                                        side="right"),
        "sv": lambda c: np.searchsorted(np.sort(nan40(c["a"], 0.01)), c["v"] * 40.0),
        "ki": lambda c: np.searchsorted(np.sort(c["k"]), np.floor(c["v"] * 40.0), side="right"),
        "kk": lambda c: np.searchsorted(np.sort(c["k"]), c["k"]),
        "a": None, "v": None, "k": None})
    # a long 1-D sort: blocks sorted on the device, merged by the network's
    # split jobs (--sort-block-bytes); a line shorter than a power of two
    # (the blocks sorted or packed, and the comparators' merges, on the
    # device), with ties, NaN and -0.0; along an axis of a 2-D input too
    def tied(x):
        with np.errstate(invalid="ignore"):
            nn = np.divide(np.zeros(1), np.zeros(1))[0]
            m = np.where(x < 0.03, nn, np.floor(x * 50.0))
        return np.where(x > 0.97, -0.0, m)
    run_case(tmp, "sort-network", [
        rnd("a", (100003,), 30000, 99), node("s", "sort", ["a"]), node("g", "argsort", ["a"]),
        node("md", "median", ["a"]),
        node("f50", "multiply", ["a", 50.0]), node("fl", "floor", ["f50"]),
        node("lo", "less", ["a", 0.03]), node("nn", "divide", [0.0, 0.0]),
        node("m0", "where", ["lo", node_ref("nn"), "fl"]), node("hi", "greater", ["a", 0.97]),
        node("t", "where", ["hi", -0.0, "m0"]), node("ts", "sort", ["t"]),
        node("tg", "argsort", ["t"]), node("tz", "signbit", [node_ref("ts")]),
        rnd("b", (4, 60001), [2, 20000], 100), node("bs", "sort", ["b"], axis=1),
        node("bg", "argsort", ["b"], axis=1),
        rnd("k", (50001,), 20000, 101, op="random.randint", low=-9, high=9),
        node("kg", "argsort", ["k"]), node("k4", "astype", ["k"], dtype="int32"),
        node("k4s", "sort", [node_ref("k4")]),
    ], {"s": lambda c: np.sort(c["a"]), "g": lambda c: np.argsort(c["a"], kind="stable"),
        "md": lambda c: np.median(c["a"]), "ts": lambda c: np.sort(tied(c["a"]), kind="stable"),
        "tg": lambda c: np.argsort(tied(c["a"]), kind="stable"),
        "tz": lambda c: np.signbit(np.sort(tied(c["a"]), kind="stable")),
        "bs": lambda c: np.sort(c["b"], axis=1),
        "bg": lambda c: np.argsort(c["b"], axis=1, kind="stable"),
        "kg": lambda c: np.argsort(c["k"], kind="stable"),
        "k4s": lambda c: np.sort(c["k"].astype(np.int32)),
        "a": None, "b": None, "k": None}, extra=["--sort-block-bytes", "200k"],
        exact=("s", "ts", "bs"))

    # integer and float floor_divide / mod / fmod (zero and -1 divisors),
    # shifts past the width, invert: kern/ew.c's rules bit for bit
    def q(f, *a):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return f(*a)
    run_case(tmp, "intops", [
        rnd("k", (1500, 800), [500, 400], 95, op="random.randint", low=-1000, high=1000),
        rnd("d", (1500, 800), [500, 400], 96, op="random.randint", low=-3, high=4),
        node("fd", "floor_divide", ["k", "d"]), node("md", "mod", ["k", "d"]),
        node("fm", "fmod", ["k", "d"]), node("k32", "astype", ["k"], dtype="int32"),
        node("d32", "astype", ["d"], dtype="int32"), node("f32", "floor_divide", ["k32", "d32"]),
        node("r32", "remainder", ["k32", "d32"]),
        rnd("s", (1500, 800), [500, 400], 97, op="random.randint", low=0, high=70),
        node("sl", "left_shift", ["k", "s"]), node("sr", "right_shift", ["k", "s"]),
        node("s32", "astype", ["s"], dtype="int32"), node("sl32", "left_shift", ["k32", "s32"]),
        node("sr32", "right_shift", ["k32", "s32"]), node("iv", "invert", ["k32"]),
        node("bb", "less", ["k", 0]), node("ib", "invert", ["bb"]),
        rnd("x", (1500, 800), [500, 400], 98, op="random.randn"),
        rnd("y", (1500, 800), [500, 400], 99, op="random.randn"),
        node("x10", "multiply", ["x", 10.0]), node("xf", "floor_divide", ["x10", "y"]),
        node("xm", "mod", ["x10", "y"]), node("xr", "fmod", ["x10", "y"]),
        node("xs", "astype", ["x10"], dtype="float32"), node("ys", "astype", ["y"], dtype="float32"),
        node("xsf", "floor_divide", ["xs", "ys"]), node("xsm", "mod", ["xs", "ys"]),
        node("xz", "floor_divide", ["x10", 0.0]), node("dv", "divide", ["k", "d"]),
        node("p3", "power", ["k", 3]), node("p7", "power", ["k32", 7]), node("p0", "power", ["k", 0]),
    ], {"dv": lambda c: q(np.divide, c["k"], c["d"]), "p3": lambda c: np.power(c["k"], 3),
        "p7": lambda c: np.power(c["k"].astype(np.int32), 7), "p0": lambda c: np.power(c["k"], 0),"fd": lambda c: q(np.floor_divide, c["k"], c["d"]), "md": lambda c: q(np.mod, c["k"], c["d"]),
        "fm": lambda c: q(np.fmod, c["k"], c["d"]),
        "f32": lambda c: q(np.floor_divide, c["k"].astype(np.int32), c["d"].astype(np.int32)),
        "r32": lambda c: q(np.remainder, c["k"].astype(np.int32), c["d"].astype(np.int32)),
        "sl": lambda c: np.left_shift(c["k"], c["s"]), "sr": lambda c: np.right_shift(c["k"], c["s"]),
        "sl32": lambda c: np.left_shift(c["k"].astype(np.int32), c["s"].astype(np.int32)),
        "sr32": lambda c: np.right_shift(c["k"].astype(np.int32), c["s"].astype(np.int32)),
        "iv": lambda c: np.invert(c["k"].astype(np.int32)), "ib": lambda c: np.invert(c["k"] < 0),
        "xf": lambda c: q(np.floor_divide, c["x"] * 10.0, c["y"]),
        "xm": lambda c: q(np.mod, c["x"] * 10.0, c["y"]), "xr": lambda c: q(np.fmod, c["x"] * 10.0, c["y"]),
        "xsf": lambda c: q(np.floor_divide, (c["x"] * 10.0).astype(np.float32), c["y"].astype(np.float32)),
        "xsm": lambda c: q(np.mod, (c["x"] * 10.0).astype(np.float32), c["y"].astype(np.float32)),
        "xz": lambda c: q(np.floor_divide, c["x"] * 10.0, 0.0),
        "k": None, "d": None, "s": None, "x": None, "y": None},
        exact=("xf", "xm", "xr", "xsf", "xsm", "xz", "dv"))

    # round / around with decimals, as kern/ew.c (numpy's PyArray_Round)
    run_case(tmp, "round", [
        rnd("x", (1500, 800), [500, 400], 101, op="random.randn"),
        node("x9", "multiply", ["x", 987.654]), node("r0", "round", ["x9"]),
        node("r2", "round", ["x9"], decimals=2), node("rm", "around", ["x9"], decimals=-1),
        node("xs", "astype", ["x9"], dtype="float32"), node("r3", "round", ["xs"], decimals=3),
        rnd("k", (1500, 800), [500, 400], 102, op="random.randint", low=-100000, high=100000),
        node("ki", "round", ["k"], decimals=-2), node("kp", "round", ["k"], decimals=1),
        node("k32", "astype", ["k"], dtype="int32"), node("k3", "around", ["k32"], decimals=-3),
    ], {"r0": lambda c: np.round(c["x"] * 987.654), "r2": lambda c: np.round(c["x"] * 987.654, 2),
        "rm": lambda c: np.around(c["x"] * 987.654, -1),
        "r3": lambda c: np.round((c["x"] * 987.654).astype(np.float32), 3),
        "ki": lambda c: np.round(c["k"], -2), "kp": lambda c: np.round(c["k"], 1),
        "k3": lambda c: np.around(c["k"].astype(np.int32), -3), "x": None, "k": None},
        exact=("r0", "r2", "rm", "r3"))

    # the small integer dtypes in element-wise programs (ew_int.c's rules:
    # wrapping, x // 0 and x % 0 give 0, shifts past the width, floats to
    # narrow integers as x86-64 converts them), uint64 past 2**63 included
    def sm(c, dt):
        return c["k"].astype(dt)
    run_case(tmp, "small-dtypes", [
        rnd("k", (600, 400), [200, 100], 111, op="random.randint", low=-400, high=400),
        rnd("d", (600, 400), [200, 100], 112, op="random.randint", low=-3, high=4),
        rnd("x", (600, 400), [200, 100], 113, op="random.randn"),
        node("i1", "astype", ["k"], dtype="int8"), node("i2", "astype", ["k"], dtype="int16"),
        node("u1", "astype", ["k"], dtype="uint8"), node("u2", "astype", ["k"], dtype="uint16"),
        node("u4", "astype", ["k"], dtype="uint32"), node("u8", "astype", ["k"], dtype="uint64"),
        node("d1", "astype", ["d"], dtype="int8"), node("e1", "astype", ["d"], dtype="uint8"),
        node("a1", "add", [node_ref("i1"), node_ref("i1")]),
        node("m2", "multiply", [node_ref("i2"), node_ref("i2")]),
        node("f1", "floor_divide", [node_ref("i1"), node_ref("d1")]),
        node("r1", "mod", [node_ref("i1"), node_ref("d1")]),
        node("g1", "fmod", [node_ref("i1"), node_ref("d1")]),
        node("fu", "floor_divide", [node_ref("u1"), node_ref("e1")]),
        node("sh", "right_shift", [node_ref("i2"), 3]), node("sl", "left_shift", [node_ref("u1"), 3]),
        node("iv", "invert", [node_ref("u2")]), node("ab", "abs", [node_ref("i1")]),
        node("ng", "negative", [node_ref("u4")]), node("sg", "sign", [node_ref("i2")]),
        node("mx", "maximum", [node_ref("u1"), node_ref("e1")]),
        node("cl", "clip", [node_ref("i1")], a_min=-10, a_max=10),
        node("lt", "less", [node_ref("u2"), 300]),
        node("rd", "round", [node_ref("i2")], decimals=-1),
        node("ud", "floor_divide", [node_ref("u8"), 7]), node("um", "mod", [node_ref("u8"), 7]),
        node("ug", "greater", [node_ref("u8"), 1000]), node("us", "right_shift", [node_ref("u8"), 60]),
        node("uf", "astype", [node_ref("u8")], dtype="float64"),
        node("up", "power", [node_ref("u8"), 3]), node("ux", "maximum", [node_ref("u8"), 5]),
        node("ua", "abs", [node_ref("u8")]), node("usn", "sign", [node_ref("u8")]),
        node("un", "minimum", [node_ref("u8"), 7]), node("ul", "less", [node_ref("u8"), 1000]),
        node("uc", "clip", [node_ref("u8")], a_min=100, a_max=2 ** 62),
        node("x3", "multiply", ["x", 300.0]), node("xi1", "astype", [node_ref("x3")], dtype="int8"),
        node("xu2", "astype", [node_ref("x3")], dtype="uint16"),
        node("xu4", "astype", [node_ref("x3")], dtype="uint32"),
        node("xu8", "astype", [node_ref("x3")], dtype="uint64"),
        node("s1", "sum", [node_ref("i1")], axis=0),
    ], {"a1": lambda c: sm(c, np.int8) + sm(c, np.int8),
        "m2": lambda c: sm(c, np.int16) * sm(c, np.int16),
        "f1": lambda c: q(np.floor_divide, sm(c, np.int8), c["d"].astype(np.int8)),
        "r1": lambda c: q(np.mod, sm(c, np.int8), c["d"].astype(np.int8)),
        "g1": lambda c: q(np.fmod, sm(c, np.int8), c["d"].astype(np.int8)),
        "fu": lambda c: q(np.floor_divide, sm(c, np.uint8), c["d"].astype(np.uint8)),
        "sh": lambda c: np.right_shift(sm(c, np.int16), 3),
        "sl": lambda c: np.left_shift(sm(c, np.uint8), 3),
        "iv": lambda c: np.invert(sm(c, np.uint16)), "ab": lambda c: np.abs(sm(c, np.int8)),
        "ng": lambda c: np.negative(sm(c, np.uint32)), "sg": lambda c: np.sign(sm(c, np.int16)),
        "mx": lambda c: np.maximum(sm(c, np.uint8), c["d"].astype(np.uint8)),
        "cl": lambda c: np.clip(sm(c, np.int8), -10, 10),
        "lt": lambda c: sm(c, np.uint16) < 300, "rd": lambda c: np.round(sm(c, np.int16), -1),
        "ud": lambda c: sm(c, np.uint64) // 7, "um": lambda c: sm(c, np.uint64) % 7,
        "ug": lambda c: sm(c, np.uint64) > 1000, "us": lambda c: sm(c, np.uint64) >> 60,
        "uf": lambda c: sm(c, np.uint64).astype(np.float64),
        "up": lambda c: sm(c, np.uint64) ** 3, "ux": lambda c: np.maximum(sm(c, np.uint64), 5),
        "ua": lambda c: np.abs(sm(c, np.uint64)), "usn": lambda c: np.sign(sm(c, np.uint64)),
        "un": lambda c: np.minimum(sm(c, np.uint64), 7), "ul": lambda c: sm(c, np.uint64) < 1000,
        "uc": lambda c: np.clip(sm(c, np.uint64), 100, 2 ** 62),
        "xi1": None, "xu2": None, "xu4": None, "xu8": None,
        "s1": lambda c: sm(c, np.int8).sum(axis=0), "k": None, "d": None, "x": None})

    # a small device store: chunks go back to host memory and return
    run_case(tmp, "small-store", [
        rnd("a", (2000, 2000), 250, 51), node("t", "transpose", ["a"]),
        node("d", "dot", ["a", node_ref("t")]), node("s", "sum", [node_ref("e")], axis=1),
        node("e", "exp", ["a"]),
    ], {"d": lambda c: c["a"].dot(c["a"].T), "s": lambda c: np.exp(c["a"]).sum(axis=1),
        "a": None}, extra=["--cuda-mem", "8m"])

    # chunks made on the CPU ("auto": small element-wise jobs stay there)
    # and read by device jobs: the next device job's inputs come in while
    # the current one's kernels run (--stats "prefetched"), and the results
    # are right
    pf = [rnd("a", (900, 600), 150, 63), node("e", "multiply", ["a", 2.0]),
          node("t", "transpose", [node_ref("e")]), node("d", "dot", ["e", node_ref("t")])]
    run_case(tmp, "prefetch", pf, {"d": lambda c: (c["a"] * 2.0).dot((c["a"] * 2.0).T),
                                   "a": None}, device="auto")
    if not DRY:
        rc, _, _, err = mars_run({"version": 1, "device": "auto", "nodes": pf, "fetch": ["d"]},
                                 os.path.join(tmp, "prefetch-stats"), ["--cuda-devices", "0"])
        m = re.search(r"\((\d+) of them prefetched", err)
        check("prefetch/copied-ahead", rc == 0 and m and int(m.group(1)) > 0,
              "no chunk prefetched: %s" % err[-400:])

    # "auto" puts the dot family on the device; "cpu" nothing
    run_case(tmp, "auto", [rnd("a", (400, 300), 100, 61), node("d", "dot", ["a", node_ref("t")]),
                           node("t", "transpose", ["a"])],
             {"d": lambda c: c["a"].dot(c["a"].T), "a": None}, device="auto")
    run_case(tmp, "cpu-only", [rnd("a", (400, 300), 100, 61), node("d", "dot", ["a", node_ref("t")]),
                               node("t", "transpose", ["a"])],
             {"d": lambda c: c["a"].dot(c["a"].T), "a": None}, device="cpu", want_gpu=False)


def node_ref(k):
    return k


if __name__ == "__main__":
    main()
