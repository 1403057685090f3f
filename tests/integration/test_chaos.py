"""Chaos soak (issue 6): tasks with known numpy answers run while a random
worker is SIGKILLed and a new one started every few seconds (about 60 s in
all). Every task must end with the right answer; afterwards every live
worker reports no running chunk (free slots equal total slots) and Redis
holds no chunk data beyond the fetched tensors' chunks.

Run with Debian's Python: /usr/bin/python3 tests/integration/test_chaos.py
"""

import os
import random
import signal
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import check, wait_until  # noqa: E402
from test_execution import Env, close  # noqa: E402

SOAK_S = float(os.environ.get("MARS_CHAOS_SECONDS", "60"))
KILL_EVERY_S = 3.0
N_WORKERS = 3


def graphs(i):
    """(document, fetched key, numpy answer) cycling through a few shapes."""
    n = 1200 + 200 * (i % 3)
    k = i % 4
    if k == 0:
        return ({"version": 1, "nodes": [
            {"key": "a", "op": "ones", "shape": [n, n], "chunk_size": 300},
            {"key": "b", "op": "dot", "inputs": ["a", "a"]},
            {"key": "c", "op": "sum", "inputs": ["b"], "axis": 0}], "fetch": ["c"]},
            "c", np.full(n, float(n) * n))
    if k == 1:
        return ({"version": 1, "nodes": [
            {"key": "a", "op": "arange", "stop": n * 100, "dtype": "float64", "chunk_size": 7000},
            {"key": "b", "op": "multiply", "inputs": ["a", 2]},
            {"key": "c", "op": "cumsum", "inputs": ["b"]}], "fetch": ["c"]},
            "c", np.cumsum(np.arange(n * 100, dtype=np.float64) * 2))
    if k == 2:
        return ({"version": 1, "nodes": [
            {"key": "a", "op": "full", "shape": [n, 500], "fill_value": 3.0, "chunk_size": [200, 250]},
            {"key": "t", "op": "transpose", "inputs": ["a"]},
            {"key": "m", "op": "matmul", "inputs": ["t", "a"]}], "fetch": ["m"]},
            "m", np.full((500, 500), 9.0 * n))
    return ({"version": 1, "nodes": [
        {"key": "a", "op": "arange", "stop": n * n, "dtype": "int64", "chunk_size": 100000},
        {"key": "s", "op": "sum", "inputs": ["a"]}], "fetch": ["s"]},
        "s", np.array(np.arange(n * n, dtype=np.int64).sum()))


def main():
    runner = harness.Runner()
    rng = random.Random(int(os.environ.get("MARS_CHAOS_SEED", "6")))
    with harness.Cluster() as c:
        sup_port, web_port = harness.free_port(), harness.free_port()
        sup = c.start("supervisor", "mars-supervisor",
                      ["-H", "127.0.0.1", "-p", sup_port, "-w", web_port, "--worker-timeout", "2",
                       "--max-attempts", "5", "--pg-dsn", c.pg.dsn(), "--redis-url", c.redis.url()])
        sup.wait_health(sup_port)
        e = Env(c, web_port, sup_port)
        workers = []
        count = [0]

        def start_worker():
            count[0] += 1
            p = harness.free_port()
            w = c.start("w%d" % count[0], "mars-worker", ["-H", "127.0.0.1", "-p", p, "-s",
                                                         "127.0.0.1:%d" % sup_port, "--n-cpu", "1",
                                                         "--cache-mem", "64m"])
            w.wait_health(p)
            workers.append(w)

        for _ in range(N_WORKERS):
            start_worker()
        submitted = []  # (sid, tid, key, answer)

        def soak():
            t0 = time.monotonic()
            next_kill = t0 + KILL_EVERY_S
            i = 0
            kills = 0
            while time.monotonic() - t0 < SOAK_S:
                running = int(e.sql("SELECT count(*) FROM tasks WHERE status IN ('pending', 'running')"))
                if running < 3:
                    sid = e.session()
                    doc, key, want = graphs(i)
                    submitted.append((sid, e.submit(sid, doc), key, want))
                    i += 1
                if time.monotonic() >= next_kill:
                    victim = rng.choice([w for w in workers if w.alive()])
                    victim.proc.send_signal(signal.SIGKILL)
                    victim.proc.wait(10)
                    workers.remove(victim)
                    start_worker()
                    kills += 1
                    next_kill = time.monotonic() + KILL_EVERY_S * rng.uniform(0.5, 1.5)
                time.sleep(0.1)
            print("# %d tasks, %d workers killed in %.0fs" % (len(submitted), kills, time.monotonic() - t0))
            check(kills >= SOAK_S / KILL_EVERY_S / 2, "only %d kills", kills)
            for sid, tid, key, want in submitted:
                t = e.wait(tid, 120)
                check(t["status"] == "succeeded", "task %s: %s", tid, t)
                got, _ = e.fetch(sid, key)
                close(got.reshape(want.shape), want.astype(got.dtype), "task %s" % tid)
        runner.case("soak_right_answers", soak)

        def slots_free():
            alive_ids = [e.sql("SELECT id FROM workers WHERE pid = %d ORDER BY started_at DESC LIMIT 1"
                               % w.proc.pid) for w in workers]

            def idle():
                ws = {w["id"]: w for w in harness.get(web_port, "/api/v1/workers").json()["workers"]}
                return all(ws[i]["chunks_running"] == 0 and ws[i]["status"] == "alive" for i in alive_ids)
            wait_until(idle, 20, "every live worker idle")
            check(e.r("LLEN", "mars:jobs") == 0, "jobs left in the queue")
            for wid in alive_ids:
                check(e.r("LLEN", "mars:processing:%s" % wid) == 0, "jobs left on %s's list" % wid)
        runner.case("free_slots_equal_total", slots_free)

        def nothing_left():
            keep = set()
            for sid, tid, key, _ in submitted:
                keep |= set(e.tensor_row(sid, key)["chunk_keys"])
            time.sleep(3)  # late reports of killed jobs' twins
            # chunks live in the workers' stores: mars:loc says where, and
            # names exactly the fetched ones; inline chunks left in Redis
            # are fetched ones
            have = set()
            for _, tid, _, _ in submitted:
                have |= {"chunk:%s:%s" % (tid, f.decode()) for f in e.r("HKEYS", "mars:loc:%s" % tid)}
            check(have == keep, "chunk locations: %d, fetched: %d (extra %s, missing %s)", len(have), len(keep),
                  sorted(have - keep)[:5], sorted(keep - have)[:5])
            inline = e.r.keys("chunk:*")
            check(inline <= keep, "inline chunks in Redis that nothing fetched: %s", sorted(inline - keep)[:5])
            check(not e.r.keys("mars:plan:*"), "plans left: %s", e.r.keys("mars:plan:*"))
        runner.case("no_chunk_data_left", nothing_left)
        if runner.failed and os.environ.get("MARS_SHOW_LOGS"):
            sys.stderr.write(sup.tail(6000) + "\n")
    return runner.finish()


if __name__ == "__main__":
    sys.exit(main())
