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

docs/benchmarks-notes.md (hand-written: profiles, what was done, targets
missed) is appended verbatim to docs/benchmarks.md after the tables.

Usage: bench/bench.py [--runs N] [--only W1,W3,W7] [--no-cluster] [--no-distributed]
                      [--w7-chunks N] [--out docs/benchmarks.md]
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
NOTES = os.path.join(ROOT, "docs", "benchmarks-notes.md")

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
    "W5": {
        "title": "DataFrame(random 2,000,000 x 10, 200,000-row chunks).sum()",
        "df": True,
        "doc": {"version": 1, "nodes": [
            {"key": "a", "op": "random.rand", "shape": [2000000, 10], "chunk_size": [200000, 10],
             "seed": 1},
            {"key": "d", "op": "dataframe.from_tensor", "inputs": ["a"]},
            {"key": "s", "op": "dataframe.sum", "inputs": ["d"]}], "fetch": ["s"]},
        "numpy": "import pandas as pd\n"
                 "d = pd.DataFrame(np.random.default_rng(1).random((2000000, 10))); "
                 "s = d.sum(); open(OUT, 'w').write(s.to_json())",
        "dask": "import dask.dataframe as dd\n"
                "a = da.random.random((2000000, 10), chunks=(200000, 10)); "
                "s = dd.from_dask_array(a).sum().compute(); open(OUT, 'w').write(s.to_json())",
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
    # DataFrames: the "numpy" column runs pandas, the "dask" ones dask.dataframe
    "W5g": {
        "title": "groupby over 10,000,000 rows (1,000 int keys, 1,000,000-row chunks): sum and mean",
        "df": True,
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

# W7: a task of many tiny chunks, measured once (it is long): tiling time,
# jobs per second end to end, and how fast the REST API and the dashboard
# answer while it runs.
W7_CHUNKS = 1000000


def w7_doc(n):
    return {"version": 1, "nodes": [
        {"key": "a", "op": "ones", "shape": [n], "chunk_size": 1},
        {"key": "b", "op": "add", "inputs": ["a", 1]},
        {"key": "s", "op": "sum", "inputs": ["b"]}], "fetch": ["s"]}


def have_module(name):
    return subprocess.run([PY, "-c", "import " + name], capture_output=True).returncode == 0


def commands(name, w, tmp):
    doc = os.path.join(tmp, name + ".json")
    with open(doc, "w") as f:
        json.dump(w["doc"], f)
    out = os.path.join(tmp, "out-" + name)
    cmds = {"mars-run": [MARS_RUN, doc, "-o", out]}
    for peer in ("numpy", "dask"):
        if peer == "dask" and not have_module("dask.array"):
            continue
        script = PRELUDE[peer] + "OUT = %r\n" % os.path.join(tmp, "%s-%s.out" % (name, peer)) + w[peer]
        cmds[peer] = [PY, "-c", script]
    return cmds


class DaskDistributed:
    """bench/dask_cluster.py: a dask.distributed LocalCluster (2 workers of
    one thread) kept running; each run is timed inside it."""

    def __init__(self):
        self.p = subprocess.Popen([PY, os.path.join(ROOT, "bench", "dask_cluster.py")],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        if not json.loads(self.p.stdout.readline() or "{}").get("ready"):
            raise RuntimeError("dask.distributed LocalCluster did not start")

    def run(self, code, out):
        self.p.stdin.write(json.dumps({"code": code, "out": out}) + "\n")
        self.p.stdin.flush()
        r = json.loads(self.p.stdout.readline() or '{"error": "the dask cluster died"}')
        if "error" in r:
            raise RuntimeError("dask.distributed: " + r["error"])
        return r["seconds"]

    def stop(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.p.kill()


class LocalCluster:
    """scripts/run-cluster.sh in the background; stopped by SIGTERM."""

    def __init__(self):
        env = dict(os.environ, MARS_WEB_PORT="0")
        self.p = subprocess.Popen([os.path.join(ROOT, "scripts", "run-cluster.sh")], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  start_new_session=True)
        self.url = None
        for line in self.p.stdout:
            m = re.search(r"dashboard:\s+(http://[^/\s]+)/?(?:\?token=(\w+))?$", line.strip())
            if m:
                self.url, tok = m.group(1), m.group(2)
                break
        if not self.url:
            raise RuntimeError("the local cluster did not start")
        # make run's token (printed in the dashboard link) goes with every request
        self.headers = {"Authorization": "Bearer " + tok} if tok else {}

    def _req(self, method, path, body=None, timeout=900):
        h = dict(self.headers, **{"Content-Type": "application/json"})
        r = urllib.request.Request(self.url + path, data=body, method=method, headers=h)
        with urllib.request.urlopen(r, timeout=timeout) as f:
            return f.read()

    def submit_wait(self, doc):
        sid = json.loads(self._req("POST", "/api/v1/sessions"))["session_id"]
        tid = json.loads(self._req("POST", "/api/v1/sessions/%s/tasks" % sid,
                                   json.dumps(doc).encode()))["task_id"]
        while True:
            t = json.loads(self._req("GET", "/api/v1/sessions/%s/tasks/%s?wait=60" % (sid, tid)))
            if t["status"] not in ("pending", "running"):
                break
        if t["status"] != "succeeded":
            raise RuntimeError("cluster task %s: %s" % (t["status"], t["error"]))
        return sid, t

    def run(self, doc, out_dir, df=False):
        """Submit to result in hand; returns seconds."""
        t0 = time.perf_counter()
        sid, _ = self.submit_wait(doc)
        for key in doc["fetch"]:
            q = "" if df else "?format=npy"
            data = self._req("GET", "/api/v1/sessions/%s/tensors/%s/data%s" % (sid, key, q))
            with open(os.path.join(out_dir, key + (".json" if df else ".npy")), "wb") as f:
                f.write(data)
        dt = time.perf_counter() - t0
        self._req("DELETE", "/api/v1/sessions/%s" % sid)
        return dt

    def worker_pids(self):
        """The mars-worker processes of this cluster (its process group)."""
        pids = []
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                if os.getpgid(int(d)) != self.p.pid:
                    continue
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    if b"mars-worker" in f.read().split(b"\0")[0]:
                        pids.append(int(d))
            except OSError:
                pass
        return pids

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
        raise RuntimeError("%s failed: %s" % (cmd[0], p.stderr.decode()[-300:].strip()))
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


def vm_hwm(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def measure_w7(cluster, n, tmp):
    """Tiling time (mars-run --stats), the cluster's jobs per second, and the
    latency of /api/v1/health and of the dashboard while the task runs."""
    import threading
    r = {"chunks": n}
    doc = w7_doc(n)
    path = os.path.join(tmp, "W7.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    p = subprocess.run([MARS_RUN, path, "-o", os.path.join(tmp, "out-W7"), "--stats"],
                       capture_output=True, text=True)
    m = re.search(r"(\d+) jobs \((\d+) run\).*tile ([0-9.]+) s, run ([0-9.]+) s", p.stderr)
    if m:
        r.update(jobs=int(m.group(1)), jobs_run=int(m.group(2)), tile_s=float(m.group(3)),
                 mars_run_s=float(m.group(4)))
    if not cluster:
        return r
    lat = {"health": [], "dashboard": [], "workers": []}
    stop = threading.Event()

    def probe():
        paths = {"health": "/api/v1/health", "dashboard": "/", "workers": "/api/v1/workers"}
        while not stop.is_set():
            for k, path in paths.items():
                t0 = time.perf_counter()
                try:
                    cluster._req("GET", path, timeout=30)
                    lat[k].append(time.perf_counter() - t0)
                except Exception:  # noqa: BLE001 (a refused dashboard counts as no answer)
                    lat[k].append(float("inf"))
            stop.wait(0.1)
    th = threading.Thread(target=probe)
    th.start()
    t0 = time.perf_counter()
    try:
        sid, t = cluster.submit_wait(doc)
        r["cluster_s"] = time.perf_counter() - t0
        r["cluster_chunks"] = t["chunks_total"]
        cluster._req("DELETE", "/api/v1/sessions/%s" % sid)
    except Exception as e:  # noqa: BLE001
        r["cluster_error"] = str(e)
    stop.set()
    th.join()
    for k, v in lat.items():
        v.sort()
        if v:
            r[k + "_p50_ms"] = v[len(v) // 2] * 1e3
            r[k + "_p99_ms"] = v[min(len(v) - 1, int(len(v) * 0.99))] * 1e3
            r[k + "_max_ms"] = v[-1] * 1e3
    if "cluster_s" in r:
        r["jobs_per_s"] = r["cluster_chunks"] / r["cluster_s"]
    return r


def targets(rows, w7):
    """The issue's targets that this run measured: (target, measured, verdict)."""
    med = {name: m for name, _, m in rows}
    out = []

    def ratio(w, k, limit, text):
        m = med.get(w, {})
        if k in m and "numpy" in m:
            r = m[k] / m["numpy"]
            out.append((text, "%.2fx" % r, "met" if r <= limit else "missed by %.2fx" % (r - limit)))
    ratio("W1", "mars-run", 1.3, "W1: mars-run at most 1.3x numpy")
    ratio("W1", "cluster", 2.0, "W1: cluster at most 2x numpy")
    ratio("W3", "cluster", 1.0, "W3: cluster no slower than numpy")
    ratio("W4", "cluster", 1.5, "W4: cluster at most 1.5x numpy")
    ratio("W5", "mars-run", 1.5, "W5: mars-run at most 1.5x pandas")
    ratio("W5", "cluster", 1.5, "W5: cluster at most 1.5x pandas")
    if "cluster" in med.get("W6", {}):
        t = med["W6"]["cluster"]
        out.append(("W6: cluster at most 0.15 s end to end", "%.3f s" % t,
                    "met" if t <= 0.15 else "missed by %.3f s" % (t - 0.15)))
    if w7 and "jobs_per_s" in w7:
        j = w7["jobs_per_s"]
        out.append(("W7: at least 20,000 chunk jobs a second", "%.0f jobs/s (%d jobs for %d chunks)"
                    % (j, w7["cluster_chunks"], w7["chunks"]),
                    "met" if j >= 20000 else "missed by %.0f jobs/s" % (20000 - j)))
        for k, path in (("health", "/api/v1/health"), ("dashboard", "/")):
            if k + "_max_ms" in w7:
                v = w7[k + "_max_ms"]
                out.append(("W7: `GET %s` within 100 ms while it runs" % path, "max %.1f ms" % v,
                            "met" if v <= 100 else "missed (max %.1f ms)" % v))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="", help="workloads, e.g. W1,W3,W7")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    ap.add_argument("--no-cluster", action="store_true")
    ap.add_argument("--no-distributed", action="store_true")
    ap.add_argument("--w7-chunks", type=int, default=W7_CHUNKS)
    a = ap.parse_args()
    only = a.only.split(",") if a.only else []
    names = [n for n in WORKLOADS if not only or n in only]
    rows, errors = [], []
    tmp = tempfile.mkdtemp(prefix="mars-bench-")
    cluster = None if a.no_cluster else LocalCluster()
    dist = None
    if not a.no_distributed and have_module("distributed"):
        try:
            dist = DaskDistributed()
        except RuntimeError as e:
            errors.append(str(e))
    w7 = None
    peak = {}
    try:
        for name in names:
            w = WORKLOADS[name]
            cmds = commands(name, w, tmp)
            runners = {k: (lambda c=c: run_once(c)) for k, c in cmds.items()}
            if cluster:
                runners["cluster"] = lambda w=w: cluster.run(w["doc"], tmp, w.get("df", False))
            if dist:
                out = os.path.join(tmp, "%s-distributed.out" % name)
                runners["distributed"] = lambda w=w, out=out: dist.run(w["dask"], out)
            times = {}
            for k, fn in list(runners.items()):  # warm-up; a failing column is reported, not fatal
                try:
                    fn()
                    times[k] = []
                except Exception as e:  # noqa: BLE001
                    errors.append("%s %s: %s" % (name, k, e))
            for _ in range(a.runs):
                for k in times:
                    times[k].append(runners[k]())
            med = {k: statistics.median(v) for k, v in times.items()}
            rows.append((name, w["title"], med))
            ref = med.get("numpy")
            line = "%s %-55s " % (name, w["title"]) + "  ".join(
                "%s %.3fs (x%.2f)" % (k, med[k], med[k] / ref if ref else float("nan")) for k in med)
            print(line, flush=True)
            print("   runs: " + "  ".join("%s %s" % (k, " ".join("%.3f" % t for t in v))
                                         for k, v in times.items()), flush=True)
        if cluster:
            for pid in cluster.worker_pids():
                peak[pid] = vm_hwm(pid)
            try:
                peak_cache = {w["id"]: (w["cache_used"], w["n_cpu"]) for w in
                              json.loads(cluster._req("GET", "/api/v1/workers"))["workers"]}
            except Exception:  # noqa: BLE001
                peak_cache = {}
        if not only or "W7" in only:
            w7 = measure_w7(cluster, a.w7_chunks, tmp)
            print("W7", json.dumps(w7), flush=True)
    finally:
        if cluster:
            cluster.stop()
        if dist:
            dist.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    for e in errors:
        print("note:", e)
    md = ["# Benchmarks", "",
          "Measured by `make bench` (bench/bench.py): whole processes that build the inputs, "
          "compute and write the result (numpy/pandas, mars-run, Dask threads); for the two "
          "clusters (ours through the REST API, dask.distributed's LocalCluster with 2 worker "
          "processes of one thread) submit to result in hand, timed in the client. Median of "
          "%d runs after a warm-up, run in turn; ratio = median / numpy's (pandas' for W5) "
          "median, lower is better." % a.runs, "",
          "Machine: " + machine(), "",
          "| workload | | numpy s | mars-run s (ratio) | cluster, REST end to end s (ratio) "
          "| dask threads s (ratio) | dask.distributed s (ratio) |",
          "|---|---|---|---|---|---|---|"]

    def col(med, k):
        if k not in med:
            return "n/a"
        if "numpy" not in med:
            return "%.3f" % med[k]
        return "%.3f (%.2f)" % (med[k], med[k] / med["numpy"])
    for name, title, med in rows:
        md.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            name, title, "%.3f" % med["numpy"] if "numpy" in med else "n/a", col(med, "mars-run"),
            col(med, "cluster"), col(med, "dask"), col(med, "distributed")))
    if errors:
        md += ["", "Columns that could not run:", ""] + ["- " + e for e in errors]
    if w7:
        md += ["", "## W7: one task of %d tiny chunks (`ones` chunk 1, `(a + 1).sum()`), run once"
               % w7["chunks"], ""]
        if "tile_s" in w7:
            md.append("- mars-run: %d jobs (%d run), tiling %.3f s, running %.3f s."
                      % (w7["jobs"], w7["jobs_run"], w7["tile_s"], w7["mars_run_s"]))
        if "cluster_s" in w7:
            md.append("- cluster: %d jobs in %.1f s end to end: %.0f jobs per second "
                      "(%.0f input chunks per second)."
                      % (w7["cluster_chunks"], w7["cluster_s"], w7["jobs_per_s"],
                         w7["chunks"] / w7["cluster_s"]))
        if "cluster_error" in w7:
            md.append("- cluster: " + w7["cluster_error"])
        for k in ("health", "dashboard", "workers"):
            if k + "_p50_ms" in w7:
                md.append("- `GET %s` while it ran: median %.1f ms, p99 %.1f ms, max %.1f ms." % (
                    {"health": "/api/v1/health", "dashboard": "/", "workers": "/api/v1/workers"}[k],
                    w7[k + "_p50_ms"], w7[k + "_p99_ms"], w7[k + "_max_ms"]))
    if peak:
        md += ["", "## Worker memory", "",
               "Peak resident memory (VmHWM) of each worker after the workloads above:", ""]
        for pid, b in sorted(peak.items()):
            md.append("- pid %d: %.1f MiB" % (pid, b / 2**20))
    tg = targets(rows, w7)
    if tg:
        md += ["", "## Targets (issue 7), from this run", "",
               "| target | measured | |", "|---|---|---|"]
        md += ["| %s | %s | %s |" % t for t in tg]
    print()
    print("\n".join(l for l in md if l.startswith("|")))
    # The hand-written analysis (profiles, what was done, targets missed)
    # survives re-runs: it lives in its own file and is included verbatim.
    if os.path.exists(NOTES):
        with open(NOTES) as f:
            md += ["", f.read().rstrip()]
    if a.out:
        os.makedirs(os.path.dirname(a.out), exist_ok=True)
        with open(a.out, "w") as f:
            f.write("\n".join(md) + "\n")
        print("wrote", a.out)


if __name__ == "__main__":
    sys.exit(main())
