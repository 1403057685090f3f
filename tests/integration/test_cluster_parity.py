#!/usr/bin/python3
"""The cluster gives mars-run's answers, and a worker keeps to its cores.

1. Parity: random valid graphs (the differential suite's generator: uneven
   chunks, every kind of op) go through the REST API of a two-worker cluster
   started with the contract's command lines; every fetched tensor must equal
   what mars-run computes for the same document (with the seeds the gateway
   drew), byte for byte: tiling and kernels are deterministic, so the same
   jobs give the same bits wherever they run. The same with the generator of
   test_random_graphs3 (data movement, sorting, statistics, set ops; results
   whose length is data fetched, never taken by a later op of the document).
2. CPU: a worker started with `--n-cpu 1` runs a task with many jobs ready at
   once; the CPU time the kernel accounts to its process (/proc/PID/stat)
   never exceeds one core over a sampling interval, and the `cpu_usage` it
   reports stays within [0, 1] and follows the kernel's figure.

Environment: MARS_PARITY_SEED (default 7), MARS_PARITY_GRAPHS (default 60),
MARS_PARITY_G3_SEED (31), MARS_PARITY_G3_GRAPHS (120); MARS_PARITY_ONLY=1
leaves out the CPU case (the sanitized run).
"""
import io
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from harness import Cluster, Runner, check, free_port, get, request  # noqa: E402

# The differential suite's generator; its own `harness` import finds this
# directory's module already loaded, which is fine: only generate() is used.
sys.path.append(os.path.join(ROOT, "tests", "diff"))
import test_random_graphs  # noqa: E402
import test_random_graphs3  # noqa: E402

MARS_RUN = os.path.join(ROOT, "build", "bin", "mars-run")
CLK_TCK = os.sysconf("SC_CLK_TCK")


def start_cluster(c, workers, sup_args=()):
    env = {"MARS_PG_DSN": c.pg.dsn(), "MARS_REDIS_URL": c.redis.url()}
    port, web = free_port(), free_port()
    sup = c.start("supervisor", "mars-supervisor",
                  ["-H", "127.0.0.1", "-p", port, "-w", web] + list(sup_args), env=env)
    sup.wait_health(port)
    sup.wait_health(web)
    ws = []
    for i, n_cpu in enumerate(workers):
        wp = free_port()
        w = c.start("worker%d" % i, "mars-worker",
                    ["-H", "127.0.0.1", "-p", wp, "-s", "127.0.0.1:%d" % port, "--n-cpu", n_cpu])
        w.wait_health(wp)
        ws.append(w)
    return web, ws


def session(web):
    r = request("POST", web, "/api/v1/sessions")
    check(r.status == 201, "session: %r", r)
    return r.json()["session_id"]


def submit(web, sid, doc):
    """POSTs a graph document as a task of session sid: the response."""
    return request("POST", web, "/api/v1/sessions/%s/tasks" % sid, body=json.dumps(doc).encode(),
                   headers={"Content-Type": "application/json"})


def run_task(web, sid, doc, timeout=300):
    r = submit(web, sid, doc)
    check(r.status == 202, "submit: %r", r)
    body = r.json()
    tid = body["task_id"]
    deadline = time.monotonic() + timeout
    while True:
        t = get(web, "/api/v1/sessions/%s/tasks/%s?wait=20" % (sid, tid), timeout=40).json()
        if t["status"] not in ("pending", "running") or time.monotonic() > deadline:
            break
    return body, t


def fetch(web, sid, key):
    r = get(web, "/api/v1/sessions/%s/tensors/%s/data?format=npy" % (sid, key), timeout=120)
    check(r.status == 200, "data of %s: %r", key, r)
    return np.load(io.BytesIO(r.body))


def mars_run(doc):
    tmp = tempfile.mkdtemp(prefix="mars-parity-")
    gp = os.path.join(tmp, "g.json")
    with open(gp, "w") as f:
        json.dump(doc, f)
    p = subprocess.run([MARS_RUN, gp, "-o", os.path.join(tmp, "out")], capture_output=True, text=True,
                       timeout=300)
    return tmp, p


def parity_case(web, doc):
    sid = session(web)
    body, t = run_task(web, sid, doc)
    seeded = json.loads(json.dumps(doc))
    for n in seeded["nodes"]:
        if n["key"] in body["seeds"]:
            n["seed"] = body["seeds"][n["key"]]
    tmp, p = mars_run(seeded)
    try:
        if t["status"] != "succeeded":
            # the document fails at run time: mars-run must fail the same way
            check(t["status"] == "failed" and p.returncode == 1,
                  "cluster %s (%r) but mars-run exit %d (%s)", t["status"], t["error"], p.returncode,
                  p.stderr.strip())
            check(t["error"] and t["error"] in p.stderr, "errors differ: %r vs %r", t["error"], p.stderr)
            return
        check(p.returncode == 0, "cluster succeeded, mars-run exit %d: %s", p.returncode, p.stderr)
        for key in doc["fetch"]:
            got = fetch(web, sid, key)
            want = np.load(os.path.join(tmp, "out", key + ".npy"))
            check(got.dtype == want.dtype and got.shape == want.shape, "%s: %s%s vs mars-run %s%s", key,
                  got.dtype, got.shape, want.dtype, want.shape)
            check(got.tobytes() == want.tobytes(), "%s: values differ from mars-run's", key)
    finally:
        subprocess.run(["rm", "-rf", tmp])
        request("DELETE", web, "/api/v1/sessions/%s" % sid)


def proc_cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime


def cpu_case(web, worker):
    """Many jobs ready at once for a worker with --n-cpu 1: it must still use one core."""
    doc = {"version": 1, "nodes": [
        {"key": "a", "op": "random.rand", "shape": [6000, 6000], "chunk_size": 500, "seed": 3},
        {"key": "b", "op": "inner", "inputs": ["a", "a"]},
        {"key": "s", "op": "sum", "inputs": ["b"]}], "fetch": ["s"]}
    sid = session(web)
    r = request("POST", web, "/api/v1/sessions/%s/tasks" % sid, body=json.dumps(doc).encode(),
                headers={"Content-Type": "application/json"})
    check(r.status == 202, "submit: %r", r)
    tid = r.json()["task_id"]
    pid = worker.proc.pid
    samples, reported = [], []
    last_t, last_c = time.monotonic(), proc_cpu_seconds(pid)
    status = "running"
    while status in ("pending", "running"):
        time.sleep(0.5)
        now, cpu = time.monotonic(), proc_cpu_seconds(pid)
        samples.append((cpu - last_c) / (now - last_t))
        last_t, last_c = now, cpu
        ws = get(web, "/api/v1/workers").json()["workers"]
        mine = [w for w in ws if w["status"] == "alive"]
        check(len(mine) == 1, "workers %r", ws)
        reported.append(mine[0]["cpu_usage"])
        status = get(web, "/api/v1/sessions/%s/tasks/%s" % (sid, tid)).json()["status"]
    check(status == "succeeded", "task ended %s", status)
    busy = samples[1:-1]  # the first and last intervals straddle the task's start and end
    check(len(busy) >= 3, "the task was too short to sample (%d samples)", len(samples))
    # clock ticks are 10 ms: 0.5 s intervals read within 0.04 cores; the
    # process's other threads (heartbeat, I/O) add a few percent at most
    check(max(busy) <= 1.1, "a --n-cpu 1 worker used %.2f cores (samples %s)", max(busy),
          ["%.2f" % s for s in busy])
    check(sum(busy) / len(busy) >= 0.6, "the worker was not busy (samples %s)", ["%.2f" % s for s in busy])
    check(all(0 <= u <= 1 for u in reported), "cpu_usage outside [0, 1]: %r", reported)
    # what it reports follows what the kernel measured (its heartbeat lags a second)
    rep = reported[2:-1]
    mean_rep, mean_meas = sum(rep) / len(rep), sum(busy) / len(busy)
    check(abs(mean_rep - mean_meas) <= 0.25, "reported %.2f cores on average, the kernel measured %.2f",
          mean_rep, mean_meas)


def main():
    run = Runner()
    seed = int(os.environ.get("MARS_PARITY_SEED", "7"))
    count = int(os.environ.get("MARS_PARITY_GRAPHS", "60"))
    docs, _ = test_random_graphs.generate(seed, count)
    with Cluster() as c:
        web, _ = start_cluster(c, [1, 1])
        for i, d in enumerate(docs):
            run.case("parity-%d-%d" % (seed, i), parity_case, web, d)
        # the ops that move data or depend on it (test_random_graphs3's
        # generator), in documents where no op takes a result whose length
        # is data (those the cluster takes in a later task only)
        seed3 = int(os.environ.get("MARS_PARITY_G3_SEED", "31"))
        for i, (d, _, _) in enumerate(test_random_graphs3.generate(
                seed3, int(os.environ.get("MARS_PARITY_G3_GRAPHS", "120")), held_inputs=False)):
            run.case("parity3-%d-%d" % (seed3, i), parity_case, web, d)
        # the stacks (hstack, vstack, dstack, column_stack) with uneven chunks
        for fn, shapes in [("hstack", [[7, 5], [7, 3]]), ("vstack", [[9], [9]]),
                           ("dstack", [[4, 6], [4, 6, 3]]), ("column_stack", [[11], [11, 4]])]:
            nodes = [{"key": "x%d" % k, "op": "random.rand", "shape": s, "seed": 3 + k,
                      "chunk_size": [max(1, d // 2 + 1) for d in s]} for k, s in enumerate(shapes)]
            nodes.append({"key": "r", "op": fn, "inputs": ["x%d" % k for k in range(len(shapes))]})
            run.case("stack-" + fn, parity_case, web, {"version": 1, "nodes": nodes, "fetch": ["r"]})
    # the CPU case measures the worker process's own time: under ASan and
    # UBSan their runtime's threads count in it too (the sanitized run of
    # this suite, test_cluster_parity_sanitized.py, is about parity only)
    if not os.environ.get("MARS_PARITY_ONLY"):
        with Cluster() as c:
            web, ws = start_cluster(c, [1])
            run.case("n_cpu_1_uses_one_core", cpu_case, web, ws[0])
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
