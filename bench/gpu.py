#!/usr/bin/env python3
"""GPU benchmarks (docs/gpu.md; not a test): W1, W3 and W4 of bench/bench.py,
a 20000 x 20000 float64 dot and a sort of 20000 lines of 2000 (S1), through
`mars-run --cuda-devices 0` with "device": "gpu", beside numpy on the same machine's CPU cores and the CPU
path of mars-run, in the same run.

Columns (seconds, the median of --runs):
  gpu        mars-run --cuda-devices 0, the whole process (start, CUDA set-up,
             the run, writing the .npy)
  gpu-run    its run alone (--stats "run"), and the copies between host and
             device shown apart (--stats "all copies": bytes and seconds)
  gpu-warm   the run inside a warm process (mars-run --repeat 5: the median of
             runs 2 to 5; the CUDA context, cuBLAS and the kernels loaded),
             what np-warm compares with
  cpu        mars-run without a device, the whole process
  np-warm    numpy inside a warm interpreter (the compute line only)
  np-proc    numpy as a whole process (python3 -c: import, set-up, compute)
Ratios: np-warm / gpu and np-warm / gpu-warm.
For the dot: cuBLAS's dgemm of that size alone (build/tests/gpu/test_gpu
--dgemm-peak N), and the run's share of it.
With --cluster, two more columns for W1, W3 and W4, from a local cluster
(real PostgreSQL and Redis, tests/integration/harness.py) of one worker
with --cuda-devices 0 and a CPU slot per core, warm (one run first):
  cl-gpu     "device": "gpu", submit to the results in hand (GET ... ?format=npy)
  cl-cpu     "device": "cpu" on the same cluster
(--emu: that worker is build/emu/bin/mars-worker, to check the path on a
machine without a device; its times mean nothing.)

Usage: bench/gpu.py [--runs N] [--only W1,W3,W4,D20k,S1] [--bin DIR] [--skip-numpy-dot]
                    [--cluster [--emu]]
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bench"))
from bench import WORKLOADS  # noqa: E402 - the workloads' one definition

N_DOT = 20000
WL = {k: WORKLOADS[k] for k in ("W1", "W3", "W4")}
WL["D20k"] = {
    "title": "random.rand %dx%d chunk 5000, a.dot(b), float64" % (N_DOT, N_DOT),
    "doc": {"version": 1, "nodes": [
        {"key": "a", "op": "random.rand", "shape": [N_DOT, N_DOT], "chunk_size": 5000, "seed": 1},
        {"key": "b", "op": "random.rand", "shape": [N_DOT, N_DOT], "chunk_size": 5000, "seed": 2},
        {"key": "c", "op": "dot", "inputs": ["a", "b"]}], "fetch": ["c"]},
    "np_setup": "g = np.random.default_rng(1); a = g.random((%d, %d)); b = g.random((%d, %d))"
                % (N_DOT, N_DOT, N_DOT, N_DOT),
    "np_compute": "r = a.dot(b)",
}

# a sort of lines (the device's bitonic network, gpu_k_sort)
WL["S1"] = {
    "title": "random.rand 20000x2000 chunk 2000, sort(axis=1), float64",
    "doc": {"version": 1, "nodes": [
        {"key": "a", "op": "random.rand", "shape": [20000, 2000], "chunk_size": 2000, "seed": 3},
        {"key": "s", "op": "sort", "inputs": ["a"], "axis": 1}], "fetch": ["s"]},
    "np_setup": "g = np.random.default_rng(3); a = g.random((20000, 2000))",
    "np_compute": "r = np.sort(a, axis=1)",
}


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def timed(cmd, env=None):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    dt = time.perf_counter() - t0
    if p.returncode:
        raise RuntimeError("%s: exit %d: %s" % (cmd[0], p.returncode, p.stderr.decode()[-500:]))
    return dt, p.stderr.decode()


def np_warm(w, runs):
    import numpy as np  # noqa: F401 - used by the workload's lines
    ns = {"np": np}
    exec(w["np_setup"], ns)
    exec(w["np_compute"], ns)  # warm-up
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        exec(w["np_compute"], ns)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def cluster_times(names, runs):
    """{(name, "gpu" | "cpu"): median seconds} through a local cluster."""
    for d in ("integration", "gpu"):
        sys.path.insert(0, os.path.join(REPO, "tests", d))
    from harness import Cluster, get, request
    from test_gpu_cluster import start  # its --emu picks the emulated worker

    def once(web, doc):
        t0 = time.perf_counter()
        sid = request("POST", web, "/api/v1/sessions").json()["session_id"]
        r = request("POST", web, "/api/v1/sessions/%s/tasks" % sid, body=doc)
        if r.status != 202:
            raise RuntimeError("submit: %r" % r)
        tid = r.json()["task_id"]
        while True:
            t = get(web, "/api/v1/sessions/%s/tasks/%s?wait=20" % (sid, tid), timeout=40).json()
            if t["status"] not in ("pending", "running"):
                break
        if t["status"] != "succeeded":
            raise RuntimeError("cluster task %s: %s" % (t["status"], t.get("error")))
        for key in doc["fetch"]:
            r = get(web, "/api/v1/sessions/%s/tensors/%s/data?format=npy" % (sid, key), timeout=600)
            if r.status != 200:
                raise RuntimeError("data of %s: %r" % (key, r))
        dt = time.perf_counter() - t0
        request("DELETE", web, "/api/v1/sessions/%s" % sid)
        return dt

    out = {}
    with Cluster() as c:
        web = start(c, [["--n-cpu", str(os.cpu_count() or 1), "--cuda-devices", "0"]])
        for name in names:
            for dev in ("gpu", "cpu"):
                doc = dict(WL[name]["doc"], device=dev)
                once(web, doc)  # warm-up
                out[(name, dev)] = statistics.median(once(web, doc) for _ in range(runs))
    return out


def main():
    runs = int(arg("--runs", "3"))
    only = arg("--only", ",".join(WL)).split(",")
    bindir = arg("--bin", os.path.join(REPO, "build", "bin"))
    mr = os.path.join(bindir, "mars-run")
    rows = []
    tmp = tempfile.mkdtemp(prefix="mars-gpubench-")
    for name in only:
        w = WL[name]
        doc = dict(w["doc"], device="gpu")
        path = os.path.join(tmp, name + ".json")
        with open(path, "w") as f:
            json.dump(doc, f)
        out = os.path.join(tmp, name + "-out")
        g, gr, cin, cout = [], [], "", ""
        timed([mr, path, "-o", out, "--cuda-devices", "0"])  # warm-up: the driver's caches
        for _ in range(runs):
            dt, err = timed([mr, path, "-o", out, "--cuda-devices", "0", "--stats"])
            g.append(dt)
            m = re.search(r"run ([0-9.]+) s", err)
            gr.append(float(m.group(1)) if m else float("nan"))
            m = re.search(r"all copies: (\d+) bytes to devices in ([0-9.]+) s \(.*?\), (\d+) "
                          r"back in ([0-9.]+) s", err)
            if m:
                cin = "%.0f MB in %.3f s" % (int(m.group(1)) / 1e6, float(m.group(2)))
                cout = "%.0f MB in %.3f s" % (int(m.group(3)) / 1e6, float(m.group(4)))
            jobs = re.search(r"(\d+) jobs on devices", err)
        _, err = timed([mr, path, "-o", out, "--cuda-devices", "0", "--stats", "--repeat", "5"])
        reps = [float(x) for x in re.findall(r"run \d+ of \d+: ([0-9.]+) s", err)]
        gw = statistics.median(reps[1:]) if len(reps) > 1 else float("nan")
        cpu = []
        if name != "D20k":
            for _ in range(runs):
                cpu.append(timed([mr, path, "-o", out])[0])
        npw = npp = float("nan")
        if not (name == "D20k" and "--skip-numpy-dot" in sys.argv):
            npw = np_warm(w, 1 if name == "D20k" else runs)
            if name != "D20k":
                code = "import numpy as np\n%s\n%s" % (w["np_setup"], w["np_compute"])
                npp = statistics.median(timed([sys.executable, "-c", code])[0] for _ in range(runs))
        row = {"name": name, "title": w["title"], "gpu": statistics.median(g),
               "gpu_run": statistics.median(gr), "gpu_warm": gw, "copies_in": cin, "copies_out": cout,
               "device_jobs": int(jobs.group(1)) if jobs else 0,
               "cpu": statistics.median(cpu) if cpu else float("nan"), "np_warm": npw,
               "np_proc": npp}
        if name == "D20k":
            tg = os.path.join(REPO, "build", "tests", "gpu", "test_gpu")
            p = subprocess.run([tg, "--dgemm-peak", str(N_DOT)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
            m = re.search(r"dgemm \d+: ([0-9.]+) s", p.stdout.decode())
            if m:
                row["cublas_alone"] = float(m.group(1))
                row["share_of_cublas"] = float(m.group(1)) / row["gpu_warm"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    cl = {}
    if "--cluster" in sys.argv:
        cl = cluster_times([n for n in only if n in ("W1", "W3", "W4")], runs)
        for r in rows:
            r["cl_gpu"] = cl.get((r["name"], "gpu"), float("nan"))
            r["cl_cpu"] = cl.get((r["name"], "cpu"), float("nan"))
            if (r["name"], "gpu") in cl:
                print(json.dumps({"name": r["name"], "cl_gpu": r["cl_gpu"], "cl_cpu": r["cl_cpu"]}),
                      flush=True)
    print()
    print("%-5s %7s %7s %7s %7s %7s %7s %8s %8s  %s" % (
        "", "gpu", "gpu-run", "gpu-wrm", "cpu", "np-warm", "np-proc", "npw/gpu", "npw/wrm",
        "copies (one process)"))
    for r in rows:
        print("%-5s %7.3f %7.3f %7.4f %7.3f %7.3f %7.3f %8.2f %8.2f  in %s, out %s" % (
            r["name"], r["gpu"], r["gpu_run"], r["gpu_warm"], r["cpu"], r["np_warm"],
            r["np_proc"], r["np_warm"] / r["gpu"], r["np_warm"] / r["gpu_warm"], r["copies_in"],
            r["copies_out"]))
        if (r["name"], "gpu") in cl:
            print("      cluster (one GPU worker): cl-gpu %.3f s, cl-cpu %.3f s; np-warm / cl-gpu %.2f"
                  % (r["cl_gpu"], r["cl_cpu"], r["np_warm"] / r["cl_gpu"]))
        if "cublas_alone" in r:
            print("      cuBLAS dgemm %d alone %.3f s; the warm run reaches %.0f%% of its rate" % (
                N_DOT, r["cublas_alone"], 100 * r["share_of_cublas"]))


if __name__ == "__main__":
    main()
