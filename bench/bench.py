#!/usr/bin/python3
"""Side-by-side benchmarks: this engine's mars-run against numpy (the one-process
physical reference) and Dask (the peer), each as a whole process doing the same
work: build the inputs, compute, and write the result to a .npy file.

Every command runs RUNS times in turn (A B C A B C ...) after one warm-up so
that drift of a shared machine hits all alike; the table gives medians and
ratios to numpy. Results go to stdout and to docs/benchmarks.md.

The cluster column: a local cluster (scripts/run-cluster.sh: PostgreSQL,
Redis, a supervisor serving the REST API, two workers) is started once; each
run creates a session, submits the document, long-polls until it ends and
downloads every fetched tensor as .npy ("submit to result in hand"), timed in
this process (no client start-up, unlike the other columns, which pay a
process and numpy's import).

Usage: bench/bench.py [--runs N] [--only W1,W3] [--no-cluster] [--out docs/benchmarks.md]
Benchmarks are not tests: nothing here asserts on timing.
"""
import argparse
import json
import re
import signal
import urllib.request
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARS_RUN = os.environ.get("MARS_RUN", os.path.join(ROOT, "build", "bin", "mars-run"))
PY = "/usr/bin/python3"

# Each workload: a graph document for mars-run and the same computation in
# numpy and dask.array. Python snippets receive OUT (the .npy path to write).
WORKLOADS = {
    "W1": {
        "title": "ones 2000x2000 chunk 200, inner(a, a)",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "ones", "shape": [2000, 2000], "chunk_size": 200},
            {"key": "b", "op": "inner", "inputs": ["a", "a"]}], "fetch": ["b"]},
        "numpy": "a = np.ones((2000, 2000)); b = np.inner(a, a); np.save(OUT, b)",
        "dask": "a = da.ones((2000, 2000), chunks=200); b = da.tensordot(a, a, axes=(1, 1)); "
                "np.save(OUT, b.compute())",
    },
    "W2": {
        "title": "random.rand 2000x2000 chunk 200, inner(a, a)",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.rand", "shape": [2000, 2000], "chunk_size": 200, "seed": 1},
            {"key": "b", "op": "inner", "inputs": ["a", "a"]}], "fetch": ["b"]},
        "numpy": "a = np.random.default_rng(1).random((2000, 2000)); b = np.inner(a, a); np.save(OUT, b)",
        "dask": "a = da.random.random((2000, 2000), chunks=200); "
                "b = da.tensordot(a, a, axes=(1, 1)); np.save(OUT, b.compute())",
    },
    "W3": {
        "title": "random.rand 10000x10000 chunk 1000, (a*2 + 1).sum()",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.rand", "shape": [10000, 10000], "chunk_size": 1000, "seed": 1},
            {"key": "b", "op": "multiply", "inputs": ["a", 2]},
            {"key": "c", "op": "add", "inputs": ["b", 1]},
            {"key": "s", "op": "sum", "inputs": ["c"]}], "fetch": ["s"]},
        "numpy": "a = np.random.default_rng(1).random((10000, 10000)); s = (a * 2 + 1).sum(); "
                 "np.save(OUT, s)",
        "dask": "a = da.random.random((10000, 10000), chunks=1000); "
                "np.save(OUT, (a * 2 + 1).sum().compute())",
    },
    "W4": {
        "title": "random.rand 5000x5000 chunk 500, a.dot(a.T)",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.rand", "shape": [5000, 5000], "chunk_size": 500, "seed": 1},
            {"key": "t", "op": "transpose", "inputs": ["a"]},
            {"key": "b", "op": "dot", "inputs": ["a", "t"]}], "fetch": ["b"]},
        "numpy": "a = np.random.default_rng(1).random((5000, 5000)); b = a.dot(a.T); np.save(OUT, b)",
        "dask": "a = da.random.random((5000, 5000), chunks=500); np.save(OUT, a.dot(a.T).compute())",
    },
    "W6": {
        "title": "ones 4000x4000 chunk 100 (1,600 chunks), (a + 1).sum()",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "ones", "shape": [4000, 4000], "chunk_size": 100},
            {"key": "b", "op": "add", "inputs": ["a", 1]},
            {"key": "s", "op": "sum", "inputs": ["b"]}], "fetch": ["s"]},
        "numpy": "a = np.ones((4000, 4000)); np.save(OUT, (a + 1).sum())",
        "dask": "a = da.ones((4000, 4000), chunks=100); np.save(OUT, (a + 1).sum().compute())",
    },
    # DataFrames: the "numpy" column runs pandas, the "dask" one dask.dataframe
    "D1": {
        "title": "DataFrame(random 2,000,000x10, 200,000-row chunks).sum() (pandas, dask.dataframe)",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.rand", "shape": [2000000, 10], "chunk_size": [200000, 10],
             "seed": 1},
            {"key": "df", "op": "dataframe.from_tensor", "inputs": ["a"]},
            {"key": "s", "op": "dataframe.sum", "inputs": ["df"]}], "fetch": ["s"]},
        "numpy": "import pandas as pd; a = np.random.default_rng(1).random((2000000, 10)); "
                 "pd.DataFrame(a).sum().to_json(OUT)",
        "dask": "import dask.dataframe as dd, pandas as pd; "
                "a = da.random.random((2000000, 10), chunks=(200000, 10)); "
                "dd.from_dask_array(a).sum().compute().to_json(OUT)",
    },
    "D2": {
        "title": "groupby over 10,000,000 rows (1,000 int keys, 1,000,000-row chunks): sum and mean "
                 "(pandas, dask.dataframe)",
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.randint", "shape": [10000000, 2], "low": 0, "high": 1000,
             "chunk_size": [1000000, 2], "seed": 1},
            {"key": "df", "op": "dataframe.from_tensor", "inputs": ["a"], "columns": ["k", "v"]},
            {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["df"], "by": ["k"],
             "agg": {"s": ["v", "sum"], "m": ["v", "mean"]}}], "fetch": ["g"]},
        "numpy": "import pandas as pd; a = np.random.default_rng(1).integers(0, 1000, (10000000, 2)); "
                 "df = pd.DataFrame(a, columns=['k', 'v']); "
                 "df.groupby('k').agg(s=('v', 'sum'), m=('v', 'mean')).to_json(OUT)",
        "dask": "import dask.dataframe as dd; "
                "a = da.random.randint(0, 1000, (10000000, 2), chunks=(1000000, 2)); "
                "df = dd.from_dask_array(a, columns=['k', 'v']); "
                "df.groupby('k').agg({'v': ['sum', 'mean']}).compute().to_json(OUT)",
    },
}

PRELUDE = {"numpy": "import numpy as np\n",
           "dask": "import numpy as np, dask, dask.array as da\n"
                   "dask.config.set(scheduler='threads')\n"}


def have_dask():
    return subprocess.run([PY, "-c", "import dask.array, dask.dataframe"],
                          capture_output=True).returncode == 0


def commands(name, w, tmp):
    doc = os.path.join(tmp, name + ".json")
    with open(doc, "w") as f:
        json.dump(w["doc"], f)
    out = os.path.join(tmp, "out-" + name)
    cmds = {"mars-run": [MARS_RUN, doc, "-o", out]}
    for peer in ("numpy", "dask"):
        if peer == "dask" and not have_dask():
            continue
        script = PRELUDE[peer] + "OUT = %r\n" % os.path.join(tmp, "%s-%s.npy" % (name, peer)) + w[peer]
        cmds[peer] = [PY, "-c", script]
    return cmds


class LocalCluster:
    """scripts/run-cluster.sh in the background; stopped by SIGTERM."""

    def __init__(self):
        env = dict(os.environ, MARS_WEB_PORT="0")
        self.p = subprocess.Popen([os.path.join(ROOT, "scripts", "run-cluster.sh")], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  start_new_session=True)
        self.url = None
        for line in self.p.stdout:
            m = re.search(r"dashboard:\s+(http://\S+?)/?$", line.strip())
            if m:
                self.url = m.group(1)
                break
        if not self.url:
            raise RuntimeError("the local cluster did not start")

    def _req(self, method, path, body=None, timeout=600):
        r = urllib.request.Request(self.url + path, data=body, method=method,
                                   headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(r, timeout=timeout) as f:
            return f.read()

    def run(self, doc, out_dir):
        """Submit to result in hand; returns seconds."""
        t0 = time.perf_counter()
        sid = json.loads(self._req("POST", "/api/v1/sessions"))["session_id"]
        tid = json.loads(self._req("POST", "/api/v1/sessions/%s/tasks" % sid,
                                   json.dumps(doc).encode()))["task_id"]
        while True:
            t = json.loads(self._req("GET", "/api/v1/sessions/%s/tasks/%s?wait=60" % (sid, tid)))
            if t["status"] not in ("pending", "running"):
                break
        if t["status"] != "succeeded":
            raise RuntimeError("cluster task %s: %s" % (t["status"], t["error"]))
        for key in doc["fetch"]:
            data = self._req("GET", "/api/v1/sessions/%s/tensors/%s/data?format=npy" % (sid, key))
            with open(os.path.join(out_dir, key + ".npy"), "wb") as f:
                f.write(data)
        dt = time.perf_counter() - t0
        self._req("DELETE", "/api/v1/sessions/%s" % sid)
        return dt

    def stop(self):
        try:
            os.killpg(self.p.pid, signal.SIGTERM)
            self.p.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass


def run_once(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError("%s failed: %s" % (cmd[0], p.stderr.decode()[-500:]))
    return dt


def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return "%s, %d cores, %.0f GiB, %s" % (cpu, os.cpu_count(), mem, platform.platform())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    ap.add_argument("--no-cluster", action="store_true")
    a = ap.parse_args()
    names = [n for n in WORKLOADS if not a.only or n in a.only.split(",")]
    rows = []
    tmp = tempfile.mkdtemp(prefix="mars-bench-")
    cluster = None if a.no_cluster else LocalCluster()
    try:
        for name in names:
            w = WORKLOADS[name]
            cmds = commands(name, w, tmp)
            for c in cmds.values():  # warm-up: page cache, first-touch
                run_once(c)
            times = {k: [] for k in cmds}
            if cluster:
                cluster.run(w["doc"], tmp)
                times["cluster"] = []
            for _ in range(a.runs):
                for k, c in cmds.items():
                    times[k].append(run_once(c))
                if cluster:
                    times["cluster"].append(cluster.run(w["doc"], tmp))
            med = {k: statistics.median(v) for k, v in times.items()}
            rows.append((name, w["title"], med, {k: (min(v), max(v)) for k, v in times.items()}))
            line = "%s %-55s " % (name, w["title"]) + "  ".join(
                "%s %.3fs (x%.2f)" % (k, med[k], med[k] / med["numpy"]) for k in med)
            print(line, flush=True)
    finally:
        if cluster:
            cluster.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    md = ["# Benchmarks", "",
          "Measured by `make bench` (bench/bench.py): whole processes that build the inputs, "
          "compute and write the result as .npy; median of %d runs after a warm-up, run in "
          "turn; ratio = median / numpy's median (lower is better)." % a.runs, "",
          "Machine: " + machine(), "",
          "| workload | | numpy s | mars-run s (ratio) | cluster, REST end to end s (ratio) "
          "| dask threads s (ratio) |",
          "|---|---|---|---|---|---|"]

    def col(med, k):
        return "%.3f (%.2f)" % (med[k], med[k] / med["numpy"]) if k in med else "n/a"
    for name, title, med, _ in rows:
        md.append("| %s | %s | %.3f | %s | %s | %s |" % (
            name, title, med["numpy"], col(med, "mars-run"), col(med, "cluster"), col(med, "dask")))
    if a.out:
        os.makedirs(os.path.dirname(a.out), exist_ok=True)
        with open(a.out, "w") as f:
            f.write("\n".join(md) + "\n")
        print("wrote", a.out)


if __name__ == "__main__":
    sys.exit(main())
