#!/usr/bin/python3
"""CPU levels: element-wise and random workloads (W3-style) timed with
mars-run built three ways (docs/deploy.md "CPU level"):

  native        build/bin/mars-run (the Makefile's default ARCH=native),
                kernels at the level chosen at run time
  v2 dispatch   build/x86-64-v2/bin/mars-run (the image's ARCH=x86-64-v2),
                kernels at the level chosen at run time
  v2 portable   the same binary with MARS_CPU_LEVEL=portable: the kernels
                compiled for x86-64-v2, as the image ran before the dispatch

Each cell is mars-run --stats' "run" time (tiling and writing excluded), one
thread, the best of RUNS runs taken in turn (a shared machine's noise only
ever adds time). Build the v2 binary first:
  make BUILD=build/x86-64-v2 ARCH=x86-64-v2 build/x86-64-v2/bin/mars-run

Usage: bench/cpu_levels.py [--runs N] [--threads N] [--n SIDE]
Benchmarks are not tests: nothing here asserts on timing.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def N(key, op, inputs=None, **p):
    n = {"key": key, "op": op}
    if inputs:
        n["inputs"] = inputs
    n.update(p)
    return n


def workloads(side):
    sh, ch = [side, side], [1000, 1000]
    rand = N("a", "random.rand", shape=sh, seed=1, chunk_size=ch)
    return [
        ("E1", "random.rand %dx%d, (a*2 + 1).sum() (W3)" % (side, side),
         [rand, N("b", "multiply", ["a", 2.0]), N("c", "add", ["b", 1.0]),
          N("s", "sum", ["c"])], "s"),
        ("E2", "random.randn %dx%d, sum(axis=0)" % (side, side),
         [N("a", "random.randn", shape=sh, seed=2, chunk_size=ch),
          N("s", "sum", ["a"], axis=0)], "s"),
        ("E3", "random.rand %dx%d, sqrt(a)*a + floor(a*10) - a/3, mean" % (side, side),
         [rand, N("r", "sqrt", ["a"]), N("m", "multiply", ["r", "a"]),
          N("t", "multiply", ["a", 10.0]), N("f", "floor", ["t"]), N("p", "add", ["m", "f"]),
          N("d", "divide", ["a", 3.0]), N("q", "subtract", ["p", "d"]), N("s", "mean", ["q"])],
         "s"),
        ("E4", "random.randint(0, 1000) %dx%d, max(axis=1)" % (side, side),
         [N("a", "random.randint", shape=sh, seed=3, low=0, high=1000, chunk_size=ch),
          N("s", "max", ["a"], axis=1)], "s"),
    ]


def run_once(binary, level, doc, threads):
    tmp = tempfile.mkdtemp(prefix="mars-cpulv-")
    try:
        gp = os.path.join(tmp, "g.json")
        with open(gp, "w") as f:
            json.dump(doc, f)
        env = dict(os.environ)
        env.pop("MARS_CPU_LEVEL", None)
        if level:
            env["MARS_CPU_LEVEL"] = level
        p = subprocess.run([binary, gp, "-o", os.path.join(tmp, "o"), "--stats",
                            "--threads", str(threads)], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=600)
        err = p.stderr.decode()
        m = re.search(r"run ([0-9.]+) s; kernels at cpu level (\w+)", err)
        if p.returncode != 0 or not m:
            raise SystemExit("%s failed: %s" % (binary, err.strip()))
        with open(os.path.join(tmp, "o", "s.npy"), "rb") as f:
            return float(m.group(1)), m.group(2), f.read()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--n", type=int, default=4000)
    a = ap.parse_args()
    native = os.path.join(ROOT, "build", "bin", "mars-run")
    v2 = os.path.join(ROOT, "build", "x86-64-v2", "bin", "mars-run")
    cols = [("native", native, None), ("v2 dispatch", v2, None), ("v2 portable", v2, "portable")]
    print("| workload | what | " + " | ".join("%s (s)" % c[0] for c in cols) +
          " | v2 dispatch / native | v2 portable / v2 dispatch |")
    print("|---|---|" + "---|" * (len(cols) + 2))
    for wid, desc, nodes, key in workloads(a.n):
        doc = {"version": 1, "nodes": nodes, "fetch": [key]}
        best = {c[0]: None for c in cols}
        levels, outs = {}, {}
        for _ in range(a.runs):
            for name, binary, level in cols:
                t, lv, out = run_once(binary, level, doc, a.threads)
                best[name] = t if best[name] is None else min(best[name], t)
                levels[name], outs[name] = lv, out
        same = len(set(outs.values())) == 1
        cells = ["%.3f [%s]" % (best[c[0]], levels[c[0]]) for c in cols]
        print("| %s | %s | %s | %.2f | %.2f |%s" % (
            wid, desc, " | ".join(cells), best["v2 dispatch"] / best["native"],
            best["v2 portable"] / best["v2 dispatch"], "" if same else " RESULTS DIFFER"),
            flush=True)


if __name__ == "__main__":
    main()
