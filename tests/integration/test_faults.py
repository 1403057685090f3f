"""Faults end to end (issue 6): workers killed under a job until the task
gives up (--max-attempts), requeues that still give the exact answer,
zombie completions (stale attempts pushed through Redis, and a frozen worker
that wakes after its job ran elsewhere), the supervisors listing with two
supervisors, and Redis and PostgreSQL restarting under running tasks.

Run with Debian's Python: /usr/bin/python3 tests/integration/test_faults.py
"""

import io
import os
import signal
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import check, wait_until  # noqa: E402
from test_execution import Env, Redis, close  # noqa: E402

WORKER_TIMEOUT = "2"


def metric(port, name):
    fams = harness.parse_prometheus(harness.get(port, "/metrics").body.decode())
    return sum(s[2] for s in fams[name]["samples"]) if name in fams else 0


class Faults:
    def __init__(self, c, e, sup_port):
        self.c, self.e, self.sup_port = c, e, sup_port
        self.n = 0
        self.workers = []

    def worker(self, n_cpu=1):
        self.n += 1
        p = harness.free_port()
        w = self.c.start("w%d" % self.n, "mars-worker",
                         ["-H", "127.0.0.1", "-p", p, "-s", "127.0.0.1:%d" % self.sup_port, "--n-cpu", n_cpu,
                          "--cache-mem", "64m"])
        w.wait_health(p)
        self.workers.append(w)
        return w

    def wid(self, w):
        return wait_until(lambda: self.e.sql("SELECT id FROM workers WHERE pid = %d ORDER BY started_at DESC LIMIT 1" % w.proc.pid), 10,
                          "worker row of pid %d" % w.proc.pid)

    def kill_holding(self, w, want=None, timeout=60):
        """Freezes w while its processing list holds a job (of `want`:
        a predicate over the message), then SIGKILLs it. Returns the message."""
        wid = self.wid(w)
        held = []

        def frozen():
            os.kill(w.proc.pid, signal.SIGSTOP)
            msgs = [m.decode() for m in self.e.r("LRANGE", "mars:processing:%s" % wid, 0, -1)]
            msgs = [m for m in msgs if want is None or want(m)]
            if msgs:
                held.append(msgs[0])
                return True
            os.kill(w.proc.pid, signal.SIGCONT)
            time.sleep(0.005)
            return False
        wait_until(frozen, timeout, "worker %s frozen while it holds a job" % wid, interval=0)
        w.proc.send_signal(signal.SIGKILL)
        w.proc.wait(10)
        return held[0]

    def stop_all_workers(self):
        for w in self.workers:
            if w.alive():
                w.stop()
        self.workers = []


def job_of(e, tid, node):
    rows = e.sql("SELECT key FROM chunks WHERE task_id = '%s' AND node_key = '%s'" % (tid, node)).split()
    return {int(k.rsplit(":", 1)[1]) for k in rows}


def dot_doc(n, chunk):
    return {"version": 1, "nodes": [
        {"key": "a", "op": "ones", "shape": [n, n], "chunk_size": chunk},
        {"key": "b", "op": "dot", "inputs": ["a", "a"]},
        {"key": "c", "op": "sum", "inputs": ["b"], "axis": 0}], "fetch": ["c"]}


# ---- 1. a job that keeps killing its worker -----------------------------------

def case_max_attempts(f):
    e = f.e
    sid = e.session()
    # one dot job big enough (~0.3 s on one core) to be caught running
    tid = e.submit(sid, {"version": 1, "nodes": [
        {"key": "a", "op": "random.rand", "shape": [2500, 2500], "chunk_size": 2500, "seed": 3},
        {"key": "b", "op": "dot", "inputs": ["a", "a"]}], "fetch": ["b"]})
    wait_until(lambda: job_of(e, tid, "b"), 30, "chunk rows of the task")
    jb = job_of(e, tid, "b")
    for i in range(3):
        w = f.worker()
        msg = f.kill_holding(w, lambda m: m.startswith(tid + " ") and int(m.split()[1]) in jb)
        check(int(msg.split()[2]) == i, "attempt %d held, expected %d (%s)", int(msg.split()[2]), i, msg)
        if i < 2:
            # requeued with attempt+1 once the heartbeat lapses
            wait_until(lambda: any(m.decode().startswith(tid + " ") for m in e.r("LRANGE", "mars:jobs", 0, -1)),
                       20, "the job queued again")
    t = e.wait(tid, 30)
    check(t["status"] == "failed", "status %s", t)
    err = t["error"] or ""
    for want in ('node "b" (dot)', "chunk [0, 0]", "3 times", "--max-attempts 3", "attempts 0 to 2"):
        check(want in err, "error %r lacks %r", err, want)
    check(not e.r.keys("chunk:%s:*" % tid), "chunks left after the failure")
    f.stop_all_workers()


def case_requeue_exact(f):
    """One kill: the job runs again elsewhere and the answer is exact."""
    e = f.e
    f.worker()
    victim = f.worker()
    before = metric(f.sup_port, "mars_jobs_requeued_total")
    sid = e.session()
    tid = e.submit(sid, dot_doc(2400, 400))
    f.kill_holding(victim, lambda m: m.startswith(tid + " "))
    f.worker()
    t = e.wait(tid, 90)
    check(t["status"] == "succeeded", "status %s", t)
    c, _ = e.fetch(sid, "c")
    close(c, np.full(2400, 2400.0 * 2400.0), "sum of ones @ ones after a requeue")
    check(metric(f.sup_port, "mars_jobs_requeued_total") > before, "nothing was requeued")
    e.only_fetched_left(sid, tid, ["c"])


# ---- 2. zombie completions -------------------------------------------------------

def case_stale_completions(f):
    """Completions with stale attempts (ok and err) pushed straight into
    Redis while the task runs change nothing."""
    e = f.e
    sup_id = e.sql("SELECT id FROM supervisors WHERE status <> 'stopped' ORDER BY started_at LIMIT 1")
    before = metric(f.sup_port, "mars_jobs_stale_total")
    sid = e.session()
    tid = e.submit(sid, dot_doc(2400, 400))
    wait_until(lambda: int(e.task(tid)["done"] or 0) > 3, 60, "the task to make progress")
    rows = [r.split("|") for r in e.sql("SELECT key, attempt, status FROM chunks WHERE task_id = '%s'"
                                        % tid).splitlines()]
    pushed = 0
    for key, attempt, status in rows:
        j = int(key.rsplit(":", 1)[1])
        # an older attempt than any real one, then a duplicate of a done one
        e.r("RPUSH", "mars:done:%s" % sup_id, "%s %d %d zombie err boom from the past" % (tid, j, int(attempt) + 50))
        e.r("RPUSH", "mars:done:%s" % sup_id, "%s %d %d zombie ok 8" % (tid, j, int(attempt) + 51))
        pushed += 2
        if status == "done":
            e.r("RPUSH", "mars:done:%s" % sup_id, "%s %d %s zombie ok 8" % (tid, j, attempt))
            pushed += 1
    t = e.wait(tid, 90)
    check(t["status"] == "succeeded", "a stale completion changed the task: %s", t)
    check(t["done"] == t["total"], "progress %s", t)
    n_done = int(e.sql("SELECT count(*) FROM chunks WHERE task_id = '%s' AND status IN ('done', 'freed')" % tid))
    check(n_done == t["total"], "%d chunk rows done of %d", n_done, t["total"])
    check(e.sql("SELECT count(*) FROM chunks WHERE task_id = '%s' AND worker_id = 'zombie'" % tid) == "0",
          "a zombie is recorded as a chunk's worker")
    c, _ = e.fetch(sid, "c")
    close(c, np.full(2400, 2400.0 * 2400.0), "result")
    # the task may end before the supervisor has popped the last zombie
    # lines (they come after the real completions): each is counted once read
    try:
        wait_until(lambda: metric(f.sup_port, "mars_jobs_stale_total") - before >= pushed, 30,
                   "the stale completions to be counted")
    except RuntimeError:  # timed out: the check below says how many
        pass
    stale = metric(f.sup_port, "mars_jobs_stale_total") - before
    check(stale >= pushed, "%d stale completions counted, %d pushed", stale, pushed)


def case_zombie_worker(f):
    """A worker frozen under a job: the job is requeued and the task ends;
    then the worker wakes, finishes, stores the chunk again and reports a
    stale completion. The answer stays exact, nothing is left behind."""
    e = f.e
    f.worker()
    sleeper = f.worker()
    before = metric(f.sup_port, "mars_jobs_stale_total")
    sid = e.session()
    tid = e.submit(sid, dot_doc(2400, 400))
    wid = f.wid(sleeper)
    held = []

    def frozen():
        os.kill(sleeper.proc.pid, signal.SIGSTOP)
        msgs = [m.decode() for m in e.r("LRANGE", "mars:processing:%s" % wid, 0, -1) if m.decode().startswith(tid)]
        if msgs:
            held.append(msgs[0])
            return True
        os.kill(sleeper.proc.pid, signal.SIGCONT)
        time.sleep(0.005)
        return False
    wait_until(frozen, 60, "the worker frozen under a job", interval=0)
    t = e.wait(tid, 90)
    check(t["status"] == "succeeded", "status %s", t)
    c, _ = e.fetch(sid, "c")
    os.kill(sleeper.proc.pid, signal.SIGCONT)
    # Woken, the worker either finishes the job (its chunk written again, its
    # completion stale) or, frozen before it looked, finds the task's plan
    # gone and drops the job unrun. Either way its list empties and nothing
    # changes.
    wait_until(lambda: not e.r("LLEN", "mars:processing:%s" % wid), 30, "the zombie's list to empty")
    print("# the zombie %s" % ("reported late (stale completion)"
                               if metric(f.sup_port, "mars_jobs_stale_total") > before
                               else "dropped its job unrun (the task's plan was gone)"))
    time.sleep(0.5)
    close(e.fetch(sid, "c")[0], c, "result after the zombie wrote its chunk")
    close(c, np.full(2400, 2400.0 * 2400.0), "result")
    e.only_fetched_left(sid, tid, ["c"])
    f.stop_all_workers()


# ---- 3. two supervisors ------------------------------------------------------------

def case_supervisors_listing(f, second_port):
    e = f.e
    f.worker(2)
    sid = e.session()
    tids = [e.submit(sid, dot_doc(2000, 250)) for _ in range(4)]
    owners = {}

    def listed():
        r = harness.get(e.web, "/api/v1/supervisors")
        check(r.status == 200, "GET supervisors: %r", r)
        sups = r.json()["supervisors"]
        owners.clear()
        for s in sups:
            for tid in s["tasks"]:
                owners[tid] = s["id"]
        return all(t in owners for t in tids)
    wait_until(listed, 30, "every task listed under an owner")
    sups = harness.get(e.web, "/api/v1/supervisors").json()["supervisors"]
    alive = [s for s in sups if s["status"] == "alive"]
    check(len(alive) >= 2, "two supervisors alive: %s", sups)
    for s in sups:
        check(set(s) >= {"id", "address", "status", "started_at", "last_heartbeat", "tasks"}, "fields %s", s)
    for tid in tids:
        db_owner = e.sql("SELECT owner_id FROM tasks WHERE id = '%s'" % tid)
        if e.task(tid)["status"] == "running":
            check(owners[tid] == db_owner, "task %s listed under %s, owned by %s", tid, owners[tid], db_owner)
    for tid in tids:
        check(e.wait(tid, 120)["status"] == "succeeded", "task %s", tid)
    final = harness.get(e.web, "/api/v1/supervisors").json()["supervisors"]
    check(not any(set(tids) & set(s["tasks"]) for s in final), "ended tasks still listed: %s", final)
    f.stop_all_workers()


# ---- 4. Redis and PostgreSQL restarting ----------------------------------------------

def restart_redis(c, down_s):
    port = c.redis.port
    harness.stop_proc(c.redis.proc, signal.SIGKILL)
    time.sleep(down_s)
    c.redis.proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                     "--appendonly", "no", "--dir", c.redis.dir, "--daemonize", "no"],
                                    stdout=c.redis.log, stderr=subprocess.STDOUT)
    wait_until(lambda: c.redis.command("PING") == "PONG", 15, "Redis back")


def case_redis_restart(f):
    """Redis killed and started empty mid-task: the supervisor rebuilds the
    queue from PostgreSQL and the task ends with the right answer; a finished
    task's result whose location went with Redis is made again from its
    lineage when read; a task reading an upload, which lived only in Redis,
    fails naming the chunk."""
    e = f.e
    w = f.worker(2)
    # a finished task's result lives only in Redis: reading it later is data_lost
    sid2 = e.session()
    done_tid = e.run(sid2, {"version": 1, "nodes": [
        {"key": "x", "op": "arange", "stop": 10, "dtype": "float64"}], "fetch": ["x"]})
    check(done_tid, "small task")
    up = io.BytesIO()
    np.save(up, np.arange(6, dtype=np.float64))
    r = harness.request("POST", e.web, "/api/v1/sessions/%s/tensors?key=u" % sid2, body=up.getvalue(),
                        headers={"Content-Type": "application/x-npy"})
    check(r.status == 201, "upload: %r", r)
    sid = e.session()
    # big enough (81 block products of 9 pairs) that the worker is caught
    # mid-task on a quiet machine too
    tid = e.submit(sid, dot_doc(3600, 400))
    wait_until(lambda: int(e.task(tid)["done"] or 0) > 2, 60, "the task to make progress")
    # the worker frozen: the task is surely still running when Redis goes
    os.kill(w.proc.pid, signal.SIGSTOP)
    try:
        check(e.task(tid)["status"] == "running", "the task ended before Redis restarted")
        before = metric(f.sup_port, "mars_redis_data_lost_total")
        restart_redis(f.c, 1.0)
        e.r = Redis(f.c.redis.port)
    finally:
        os.kill(w.proc.pid, signal.SIGCONT)
    t0 = time.monotonic()
    t = e.wait(tid, 90)
    check(t["status"] == "succeeded", "status %s", t)
    c, _ = e.fetch(sid, "c")
    close(c, np.full(3600, 3600.0 * 3600.0), "result after Redis restarted empty")
    check(metric(f.sup_port, "mars_redis_data_lost_total") > before, "the loss was not noticed")
    print("# task ended %.1fs after the Redis restart" % (time.monotonic() - t0))
    # the result computed before: made again from its lineage
    x, _ = e.fetch(sid2, "x")
    close(x, np.arange(10, dtype=np.float64), "a result whose location went with Redis")
    # the upload: nothing can make it again
    r = harness.get(e.web, "/api/v1/sessions/%s/tensors/u/data" % sid2)
    check(r.status == 500 and r.json()["error"]["code"] == "data_lost", "lost upload: %r", r)
    # a task reading the lost upload fails with a clear error, never hangs
    tid3 = e.submit(sid2, {"version": 1, "nodes": [
        {"key": "y", "op": "add", "inputs": ["u", 1]}], "fetch": ["y"]})
    t3 = e.wait(tid3, 30)
    check(t3["status"] == "failed" and "missing" in (t3["error"] or ""), "task on lost data: %s", t3)
    f.stop_all_workers()


def restart_pg(c, down_s):
    pg = c.pg
    pid = int(open(os.path.join(pg.data, "postmaster.pid")).readline())
    os.kill(pid, signal.SIGINT)  # fast shutdown: connections are cut
    pg.proc.wait(20)
    time.sleep(down_s)
    pg.proc = subprocess.Popen(
        pg._as_postgres([os.path.join(pg.bin, "postgres"), "-D", pg.data, "-p", str(pg.port), "-k", pg.dir,
                         "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
                         "-c", "full_page_writes=off"]),
        stdout=pg.log, stderr=subprocess.STDOUT, cwd=pg.dir)
    wait_until(lambda: pg.psql("SELECT 1") == "1", 30, "PostgreSQL back", interval=0.2)


def case_pg_restart(f):
    e = f.e
    f.worker(2)
    sid = e.session()
    tids = [e.submit(sid, dot_doc(2400, 400))]
    wait_until(lambda: int(e.task(tids[0])["done"] or 0) > 5, 60, "the task to make progress")
    restart_pg(f.c, 3.0)
    # the gateway reconnects: a new task goes in through it
    def submitted():
        r = harness.request("POST", e.web, "/api/v1/sessions/%s/tasks" % sid, body=dot_doc(800, 200))
        return r.json()["task_id"] if r.status == 202 else None
    tids.append(wait_until(submitted, 30, "the gateway to accept a task again", interval=0.3))
    for tid, n in zip(tids, (2400, 800)):
        t = e.wait(tid, 90)
        check(t["status"] == "succeeded", "task %s: %s", tid, t)
        check(t["done"] == t["total"], "progress %s", t)
    sid_c = harness.get(e.web, "/api/v1/sessions/%s/tasks/%s" % (sid, tids[1]))
    check(sid_c.status == 200 and sid_c.json()["status"] == "succeeded", "REST status %r", sid_c)
    # both tasks wrote the session's tensor c; the later one holds it now
    c, _ = e.fetch(sid, "c")
    check(c.shape in ((2400,), (800,)), "shape %s", c.shape)
    close(c, np.full(c.shape[0], float(c.shape[0]) ** 2), "result after PostgreSQL restarted")
    f.stop_all_workers()


class Only(harness.Runner):
    """Case names on the command line run only those."""

    def case(self, name, fn, *args):
        if sys.argv[1:] and name not in sys.argv[1:]:
            return True
        return super().case(name, fn, *args)


def main():
    runner = Only()
    with harness.Cluster() as c:
        sup_port, web_port = harness.free_port(), harness.free_port()
        common = ["--pg-dsn", c.pg.dsn(), "--redis-url", c.redis.url()]
        sup = c.start("supervisor", "mars-supervisor",
                      ["-H", "127.0.0.1", "-p", sup_port, "-w", web_port, "--worker-timeout", WORKER_TIMEOUT,
                       "--max-attempts", "3"] + common)
        sup.wait_health(sup_port)
        e = Env(c, web_port, sup_port)
        f = Faults(c, e, sup_port)
        runner.case("max_attempts_fails_task", case_max_attempts, f)
        runner.case("requeue_exact_answer", case_requeue_exact, f)
        runner.case("stale_completions_ignored", case_stale_completions, f)
        f.stop_all_workers()
        runner.case("zombie_worker_harmless", case_zombie_worker, f)
        runner.case("redis_restart_rebuilds_queue", case_redis_restart, f)
        runner.case("pg_restart", case_pg_restart, f)
        second_port = harness.free_port()
        second = c.start("supervisor2", "mars-supervisor",
                         ["-H", "127.0.0.1", "-p", second_port, "--worker-timeout", WORKER_TIMEOUT] + common)
        second.wait_health(second_port)
        runner.case("supervisors_listing", case_supervisors_listing, f, second_port)
        if runner.failed and os.environ.get("MARS_SHOW_LOGS"):
            sys.stderr.write(sup.tail(8000) + "\n")
    return runner.finish()


if __name__ == "__main__":
    sys.exit(main())
