#!/usr/bin/python3
"""The GPU suite's cluster run (docs/gpu.md): a cluster (real PostgreSQL
and Redis, tests/integration/harness.py) of one GPU worker (--cuda-devices 0,
three CPU slots and one device slot, --cache-mem 8m) and one CPU-only worker.
A device job's output stays only on the device until something reads it;
the CPU worker's reads, the gateway's, CPU jobs and spills copy it back
(the emulated device fills the host buffer with garbage meanwhile).

  * a "device": "gpu" task of random draws, an element-wise program, a
    reduction, a cumsum and a.dot(a.T): every result equal to numpy's
    (np.allclose for floats, exact for the draws against mars-run's bits);
  * the GPU worker reports its device in GET /api/v1/workers/{id}: name,
    memory, the device store and jobs run there (more than none after the
    task); the CPU worker reports none;
  * an "auto" task of many dot jobs over chunks made on CPU slots: the
    GPU worker copies in the inputs of a batch's next job while the current
    one runs (its report's "prefetched" bytes), and the product is right;
  * the same task with "device": "cpu" runs no job on the device;
  * a worker with --cuda-devices past the device count exits 2 naming it.

Run by tests/run.sh only where nvidia-smi lists a device.
Run: python3 tests/gpu/test_gpu_cluster.py [--emu]
(--emu: the GPU worker is build/emu/bin/mars-worker, whose device is
emulated on the host (docs/gpu.md); tests/diff/test_gpu_emu.py runs it so.)
"""
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "integration"))
from harness import BIN_DIR, Cluster, Runner, check, free_port, get  # noqa: E402
from test_cluster_parity import fetch, mars_run, run_task, session  # noqa: E402

EMU = "--emu" in sys.argv
# MARS_EMU_BIN_DIR: where the emulated worker is (build/emu/san/bin for the
# sanitizer build, with MARS_BIN_DIR=build/san/bin for the others)
EMU_WORKER = os.path.join(os.environ.get("MARS_EMU_BIN_DIR") or os.path.join(
    os.path.dirname(os.path.dirname(HERE)), "build", "emu", "bin"), "mars-worker")


def doc(device):
    return {"version": 1, "device": device, "nodes": [
        {"key": "a", "op": "random.rand", "shape": [1200, 900], "chunk_size": 300, "seed": 5},
        {"key": "k", "op": "random.randint", "low": -9, "high": 9, "shape": [1200, 900],
         "chunk_size": 300, "seed": 6},
        {"key": "m", "op": "multiply", "inputs": ["a", 2]},
        {"key": "e", "op": "add", "inputs": ["m", 1]},
        {"key": "s", "op": "sum", "inputs": ["e"], "axis": 0},
        {"key": "c", "op": "cumsum", "inputs": ["k"], "axis": 1},
        {"key": "t", "op": "transpose", "inputs": ["a"]},
        {"key": "d", "op": "dot", "inputs": ["a", "t"]}],
        "fetch": ["a", "k", "s", "c", "d"]}


def start(c, workers):
    env = {"MARS_PG_DSN": c.pg.dsn(), "MARS_REDIS_URL": c.redis.url()}
    port, web = free_port(), free_port()
    sup = c.start("supervisor", "mars-supervisor", ["-H", "127.0.0.1", "-p", port, "-w", web],
                  env=env)
    sup.wait_health(port)
    sup.wait_health(web)
    for i, extra in enumerate(workers):
        wp = free_port()
        gpu = EMU and extra[-1] != ""
        w = c.start("worker%d" % i, EMU_WORKER if gpu else "mars-worker",
                    ["-H", "127.0.0.1", "-p", wp, "-s", "127.0.0.1:%d" % port, "--n-cpu", 1] + extra)
        w.wait_health(wp)
    return web


def workers(web):
    return {w["id"]: w for w in get(web, "/api/v1/workers").json()["workers"]}


def gpu_total(web, field):
    """field of every device's report, summed over the workers."""
    n = 0
    for wid in workers(web):
        w = get(web, "/api/v1/workers/%s" % wid).json()
        w = w.get("worker", w)
        n += sum(g.get(field, 0) for g in w.get("gpus") or [])
    return n


def gpu_jobs(web):
    return gpu_total(web, "jobs")


def task_matches(web):
    sid = session(web)
    body, t = run_task(web, sid, doc("gpu"))
    check(t["status"] == "succeeded", "task: %r", t)
    tmp, p = mars_run(doc("cpu"))
    check(p.returncode == 0, "mars-run: %s", p.stderr)
    a = fetch(web, sid, "a")
    k = fetch(web, sid, "k")
    check(np.array_equal(a, np.load(os.path.join(tmp, "out", "a.npy"))),
          "random.rand differs from mars-run's bits")
    check(np.array_equal(k, np.load(os.path.join(tmp, "out", "k.npy"))),
          "random.randint differs from mars-run's bits")
    check(np.allclose(fetch(web, sid, "s"), (a * 2 + 1).sum(axis=0)), "sum differs")
    check(np.array_equal(fetch(web, sid, "c"), np.cumsum(k, axis=1)), "cumsum differs")
    check(np.allclose(fetch(web, sid, "d"), a.dot(a.T)), "dot differs")


def reports_device(web):
    # the heartbeat after the task counts its device jobs
    deadline = time.monotonic() + 15
    while gpu_jobs(web) == 0 and time.monotonic() < deadline:
        time.sleep(0.5)
    ws = workers(web)
    seen_gpu = seen_cpu = False
    for wid in ws:
        w = get(web, "/api/v1/workers/%s" % wid).json()
        w = w.get("worker", w)
        gpus = w.get("gpus") or []
        if w.get("cuda_devices"):
            seen_gpu = True
            check(len(gpus) == 1, "gpus of the GPU worker: %r", gpus)
            g = gpus[0]
            check(g["index"] == 0 and g["name"] and g["memory_total"] > 0, "device report %r", g)
            check(g["store_limit"] > 0 and g["jobs"] > 0, "device store/jobs %r", g)
        else:
            seen_cpu = True
            check(gpus == [], "a CPU worker reports devices: %r", gpus)
    check(seen_gpu and seen_cpu, "workers %r", list(ws.values()))


def worker_prefetches(web):
    # "auto": the small element-wise jobs run on the CPU, the 256 dot jobs on
    # the device, whichever slot takes them; while one runs there, the job
    # waiting for the device has its inputs copied in (heartbeat
    # "prefetched"), and the result is right
    sid = session(web)
    d = {"version": 1, "device": "auto", "nodes": [
        {"key": "a", "op": "random.rand", "shape": [1600, 400], "chunk_size": 100, "seed": 9},
        {"key": "e", "op": "multiply", "inputs": ["a", 2]},
        {"key": "t", "op": "transpose", "inputs": ["e"]},
        {"key": "d", "op": "dot", "inputs": ["e", "t"]}], "fetch": ["a", "d"]}
    _, t = run_task(web, sid, d)
    check(t["status"] == "succeeded", "task: %r", t)
    a = fetch(web, sid, "a")
    check(np.allclose(fetch(web, sid, "d"), (a * 2).dot((a * 2).T)), "dot differs")
    deadline = time.monotonic() + 15
    while gpu_total(web, "prefetched") == 0 and time.monotonic() < deadline:
        time.sleep(0.5)
    check(gpu_total(web, "prefetched") > 0, "no input prefetched: %r",
          [get(web, "/api/v1/workers/%s" % w).json() for w in workers(web)])


def cpu_task_stays_on_cpu(web):
    time.sleep(2.5)  # the earlier task's jobs reported
    before = gpu_jobs(web)
    sid = session(web)
    _, t = run_task(web, sid, doc("cpu"))
    check(t["status"] == "succeeded", "task: %r", t)
    time.sleep(2.5)  # a heartbeat or two
    check(gpu_jobs(web) == before, "device \"cpu\" ran jobs on the device")


def refuses_missing_device():
    if EMU:
        n = 1  # gpu_emu.cc's one device
    else:
        out = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE).stdout.decode()
        n = sum(1 for l in out.splitlines() if l.startswith("GPU "))
    p = subprocess.run([EMU_WORKER if EMU else os.path.join(BIN_DIR, "mars-worker"),
                        "-s", "127.0.0.1:1",
                        "--cuda-devices", str(n)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=30)
    err = p.stderr.decode()
    check(p.returncode == 2 and "--cuda-devices" in err and "does not exist" in err,
          "exit %d: %s", p.returncode, err)


def main():
    # --dry: no device (both workers CPU-only): checks the documents and the
    # harness on a machine without one; not part of the suite
    dry = "--dry" in sys.argv
    run = Runner()
    with Cluster() as c:
        # the GPU worker's store is small: device outputs are spilled (copied back
        # first) and read back; three CPU slots beside its device slot, every
        # one of them may take device jobs (they wait for the device in turn)
        web = start(c, [["--n-cpu", 3, "--cache-mem", "8m", "--cuda-devices",
                         "" if dry else "0"], ["--cuda-devices", ""]])
        run.case("gpu_task_matches_numpy", task_matches, web)
        # again: chunks kept on the device must never answer for a reused buffer
        run.case("gpu_task_again_matches_numpy", task_matches, web)
        if not dry:
            run.case("workers_report_devices", reports_device, web)
            run.case("worker_prefetches_next_inputs", worker_prefetches, web)
        run.case("device_cpu_runs_no_device_job", cpu_task_stays_on_cpu, web)
    if not dry:
        run.case("worker_refuses_missing_device", refuses_missing_device)
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
