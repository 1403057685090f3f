"""Task execution end to end: a real PostgreSQL and Redis, a supervisor and
two workers (--n-cpu 1 each) started with the contract's command lines.
Graphs go in through POST /api/v1/sessions/{sid}/tasks when the gateway
answers it with 202, else as tasks rows inserted directly (with a NOTIFY),
which is what the gateway does. Results are read back through the REST API
(chunks live in the workers' stores, small ones inline in Redis) and
compared with numpy.

Run with Debian's Python: /usr/bin/python3 tests/integration/test_execution.py
"""

import io
import json
import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import check, wait_until  # noqa: E402

NP_DT = {"float64": np.float64, "float32": np.float32, "int64": np.int64, "int32": np.int32,
         "bool": np.bool_}


# ---- a binary-safe Redis client (chunks are raw bytes) ----------------------

class Redis:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.f = self.s.makefile("rb")

    def __call__(self, *args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.s.sendall(out)
        return harness._resp(self.f, raw=True)

    def keys(self, pattern):
        cur, found = b"0", []
        while True:
            cur, batch = self("SCAN", cur, "MATCH", pattern, "COUNT", 1000)
            found += [k.decode() for k in batch]
            if cur == b"0":
                return set(found)


class Env:
    def __init__(self, cluster, web_port, sup_port):
        self.c = cluster
        self.web = web_port
        self.sup_port = sup_port
        self.r = Redis(cluster.redis.port)
        self.via_gateway = None

    def sql(self, q):
        return self.c.pg.psql(q)

    def session(self):
        r = harness.request("POST", self.web, "/api/v1/sessions", body={})
        check(r.status == 201, "POST session: %r", r)
        return r.json()["session_id"]

    def submit(self, sid, doc):
        if self.via_gateway is not False:
            r = harness.request("POST", self.web, "/api/v1/sessions/%s/tasks" % sid, body=doc)
            if r.status == 202:
                self.via_gateway = True
                return r.json()["task_id"]
            check(self.via_gateway is None, "gateway answered %r after accepting tasks", r)
            self.via_gateway = False
        text = json.dumps(doc)
        check("$doc$" not in text, "document holds the quoting tag")
        tid = self.sql("INSERT INTO tasks (session_id, graph) VALUES ('%s', $doc$%s$doc$) RETURNING id"
                       % (sid, text)).splitlines()[0]
        self.sql("SELECT pg_notify('mars_task', '%s')" % tid)
        return tid

    def task(self, tid):
        row = self.sql("SELECT json_build_object('status', status, 'error', error, 'done', chunks_done,"
                       " 'total', chunks_total)::text FROM tasks WHERE id = '%s'" % tid)
        return json.loads(row)

    def wait(self, tid, timeout=60, until=("succeeded", "failed", "cancelled")):
        return wait_until(lambda: (lambda t: t if t["status"] in until else None)(self.task(tid)),
                          timeout, "task %s to end" % tid, interval=0.05)

    def tensor_row(self, sid, key):
        row = self.sql("SELECT json_build_object('shape', shape, 'dtype', dtype, 'bounds', bounds,"
                       " 'chunk_keys', chunk_keys, 'task_id', task_id, 'nbytes', nbytes)::text"
                       " FROM tensors WHERE session_id = '%s' AND key = '%s'" % (sid, key))
        check(row, "no tensors row for %s", key)
        return json.loads(row)

    def fetch(self, sid, key):
        t = self.tensor_row(sid, key)
        # 503 is the gateway's "try again" (its database or Redis connection
        # is being reopened after a restart): a client retries
        for _ in range(40):
            r = harness.request("GET", self.web, "/api/v1/sessions/%s/tensors/%s/data?format=npy" % (sid, key),
                                timeout=180)
            if r.status != 503:
                break
            time.sleep(0.5)
        check(r.status == 200, "GET %s: %s %s", key, r.status, r.body[:300])
        out = np.load(io.BytesIO(r.body), allow_pickle=False)
        check(list(out.shape) == list(t["shape"]), "shape %s, row %s", out.shape, t["shape"])
        return out, t

    def run(self, sid, doc, timeout=60):
        tid = self.submit(sid, doc)
        t = self.wait(tid, timeout)
        check(t["status"] == "succeeded", "task %s: %s", tid, t)
        check(t["done"] == t["total"] and t["total"] > 0, "progress %s", t)
        return tid

    def only_fetched_left(self, sid, tid, keys):
        want = set()
        for k in keys:
            want |= set(self.tensor_row(sid, k)["chunk_keys"])
        want = {k for k in want if k.startswith("chunk:%s:" % tid)}
        # where each chunk lives (mars:loc) names exactly the fetched ones;
        # inline chunks left in Redis are fetched ones
        have = {"chunk:%s:%s" % (tid, f.decode()) for f in self.r("HKEYS", "mars:loc:%s" % tid)}
        check(have == want, "chunks left after the task: %d, fetched: %d (extra %s)", len(have), len(want),
              sorted(have - want)[:5])
        inline = self.r.keys("chunk:%s:*" % tid)
        check(inline <= want, "inline chunks left: %s", sorted(inline - want)[:5])
        check(self.r("EXISTS", "mars:plan:%s" % tid) == 0, "the plan outlived the task")


def close(a, b, what):
    check(a.shape == b.shape, "%s: shape %s, numpy %s", what, a.shape, b.shape)
    check(a.dtype == b.dtype, "%s: dtype %s, numpy %s", what, a.dtype, b.dtype)
    if a.dtype.kind == "f":
        check(np.allclose(a, b, rtol=1e-9, atol=1e-9, equal_nan=True), "%s: values differ (max %g)", what,
              float(np.nanmax(np.abs(a - b))) if a.size else 0)
    else:
        check(np.array_equal(a, b), "%s: values differ", what)


# ---- cases --------------------------------------------------------------------

def case_seed_inner(e):
    sid = e.session()
    doc = {"version": 1, "nodes": [{"key": "a", "op": "ones", "shape": [2000, 2000], "chunk_size": 200},
                                   {"key": "b", "op": "inner", "inputs": ["a", "a"]}], "fetch": ["b"]}
    tid = e.run(sid, doc)
    b, row = e.fetch(sid, "b")
    close(b, np.full((2000, 2000), 2000.0), "inner")
    check(row["task_id"] == tid and row["nbytes"] == 2000 * 2000 * 8, "tensors row %s", row)
    e.only_fetched_left(sid, tid, ["b"])


def case_reduction(e):
    sid = e.session()
    x = np.arange(60000, dtype=np.int64).reshape(300, 200)
    doc = {"version": 1, "nodes": [
        {"key": "a", "op": "arange", "stop": 60000},
        {"key": "m", "op": "reshape", "inputs": ["a"], "newshape": [300, 200]},
        {"key": "x", "op": "rechunk", "inputs": ["m"], "chunk_size": [70, 45]},
        {"key": "s0", "op": "sum", "inputs": ["x"], "axis": 0},
        {"key": "mx", "op": "max", "inputs": ["x"], "axis": 1, "keepdims": True},
        {"key": "mean", "op": "mean", "inputs": ["x"]},
        {"key": "sd", "op": "std", "inputs": ["x"], "axis": 0, "ddof": 1}],
        "fetch": ["s0", "mx", "mean", "sd"]}
    tid = e.run(sid, doc)
    close(e.fetch(sid, "s0")[0], x.sum(axis=0), "sum")
    close(e.fetch(sid, "mx")[0], x.max(axis=1, keepdims=True), "max")
    close(e.fetch(sid, "mean")[0], np.asarray(x.mean()), "mean")
    close(e.fetch(sid, "sd")[0], x.std(axis=0, ddof=1), "std")
    e.only_fetched_left(sid, tid, ["s0", "mx", "mean", "sd"])


def case_cumsum(e):
    sid = e.session()
    doc = {"version": 1, "nodes": [
        {"key": "a", "op": "arange", "start": 0, "stop": 5000, "dtype": "float64"},
        {"key": "r", "op": "rechunk", "inputs": ["a"], "chunk_size": 333},
        {"key": "c", "op": "cumsum", "inputs": ["r"]},
        {"key": "m", "op": "reshape", "inputs": ["r"], "newshape": [50, 100]},
        {"key": "cp", "op": "cumsum", "inputs": ["m"], "axis": 1}],
        "fetch": ["c", "cp"]}
    tid = e.run(sid, doc)
    a = np.arange(5000, dtype=np.float64)
    close(e.fetch(sid, "c")[0], np.cumsum(a), "cumsum")
    close(e.fetch(sid, "cp")[0], np.cumsum(a.reshape(50, 100), axis=1), "cumsum axis 1")
    e.only_fetched_left(sid, tid, ["c", "cp"])


def case_getitem(e):
    sid = e.session()
    doc = {"version": 1, "nodes": [
        {"key": "a", "op": "arange", "stop": 10000, "dtype": "int32"},
        {"key": "m", "op": "reshape", "inputs": ["a"], "newshape": [100, 100]},
        {"key": "x", "op": "rechunk", "inputs": ["m"], "chunk_size": 30},
        {"key": "g", "op": "getitem", "inputs": ["x"], "index": ["5:95:7", "::-2"]},
        {"key": "h", "op": "getitem", "inputs": ["x"], "index": [-3]},
        {"key": "t", "op": "transpose", "inputs": ["g"]}],
        "fetch": ["g", "h", "t"]}
    tid = e.run(sid, doc)
    m = np.arange(10000, dtype=np.int32).reshape(100, 100)
    close(e.fetch(sid, "g")[0], m[5:95:7, ::-2], "getitem slices")
    close(e.fetch(sid, "h")[0], m[-3], "getitem int")
    close(e.fetch(sid, "t")[0], m[5:95:7, ::-2].T, "transpose of getitem")
    e.only_fetched_left(sid, tid, ["g", "h", "t"])


def case_random_matches_mars_run(e):
    """The seed in the document makes the cluster and mars-run agree."""
    sid = e.session()
    doc = {"version": 1, "nodes": [
        {"key": "r", "op": "random.rand", "shape": [400, 300], "chunk_size": [128, 100], "seed": 12345},
        {"key": "n", "op": "random.normal", "shape": [300], "chunk_size": 64, "seed": 99, "loc": 1, "scale": 2},
        {"key": "y", "op": "add", "inputs": ["r", "n"]},
        {"key": "d", "op": "dot", "inputs": ["y", "n"]}],
        "fetch": ["y", "d"]}
    e.run(sid, doc)
    out = os.path.join(e.c.logdir, "mr-%s" % sid)
    p = subprocess.run([os.path.join(harness.BIN_DIR, "mars-run"), "-", "-o", out, "--threads", "2"],
                       input=json.dumps(doc).encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60)
    check(p.returncode == 0, "mars-run: %s", p.stderr.decode())
    for k in ("y", "d"):
        close(e.fetch(sid, k)[0], np.load(os.path.join(out, k + ".npy")), "random %s" % k)


def case_seedless_row(e):
    """A tasks row written without seeds (not through the gateway): the
    supervisor draws them, writes them into the row, and every worker uses
    them; mars-run on the row's document gives the same values."""
    sid = e.session()
    doc = {"version": 1, "nodes": [
        {"key": "r", "op": "random.randn", "shape": [300, 200], "chunk_size": [64, 50]},
        {"key": "m", "op": "mean", "inputs": ["r"], "axis": 1}], "fetch": ["r", "m"]}
    via, e.via_gateway = e.via_gateway, False
    try:
        tid = e.run(sid, doc)
    finally:
        e.via_gateway = via
    row = json.loads(e.sql("SELECT graph::text FROM tasks WHERE id = '%s'" % tid))
    check("seed" in row["nodes"][0], "no seed written into the row: %s", row)
    out = os.path.join(e.c.logdir, "mr-%s" % sid)
    p = subprocess.run([os.path.join(harness.BIN_DIR, "mars-run"), "-", "-o", out, "--threads", "2"],
                       input=json.dumps(row).encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60)
    check(p.returncode == 0, "mars-run: %s", p.stderr.decode())
    r, _ = e.fetch(sid, "r")
    close(r, np.load(os.path.join(out, "r.npy")), "random with a drawn seed")
    close(e.fetch(sid, "m")[0], r.mean(axis=1), "mean of it")


def case_error(e):
    sid = e.session()
    doc = {"version": 1, "nodes": [
        {"key": "a", "op": "arange", "start": -3, "stop": 3},
        {"key": "b", "op": "full", "shape": [6], "fill_value": 2},
        {"key": "c", "op": "power", "inputs": ["b", "a"]}],
        "fetch": ["c"]}
    tid = e.submit(sid, doc)
    t = e.wait(tid)
    check(t["status"] == "failed", "status %s", t)
    check('node "c" (power)' in (t["error"] or ""), "error %r", t["error"])
    check(not e.r.keys("chunk:%s:*" % tid), "chunks left after failure")
    check(not e.r("EXISTS", "mars:loc:%s" % tid), "chunk locations left after failure")
    check(e.sql("SELECT count(*) FROM tensors WHERE session_id = '%s'" % sid) == "0", "tensor rows")


def case_session_reuse(e):
    sid = e.session()
    d1 = {"version": 1, "nodes": [
        {"key": "a", "op": "arange", "stop": 100, "dtype": "float64"},
        {"key": "r", "op": "rechunk", "inputs": ["a"], "chunk_size": 30},
        {"key": "x", "op": "add", "inputs": ["r", 1]}], "fetch": ["x"]}
    e.run(sid, d1)
    x = np.arange(100, dtype=np.float64) + 1
    close(e.fetch(sid, "x")[0], x, "first task")
    old_keys = e.tensor_row(sid, "x")["chunk_keys"]
    d2 = {"version": 1, "nodes": [
        {"key": "y", "op": "multiply", "inputs": ["x", 2]},
        {"key": "z", "op": "cumsum", "inputs": ["x"]},
        {"key": "s", "op": "rechunk", "inputs": ["x"], "chunk_size": 45}], "fetch": ["y", "z", "s"]}
    tid2 = e.run(sid, d2)
    close(e.fetch(sid, "y")[0], x * 2, "session tensor input")
    close(e.fetch(sid, "z")[0], np.cumsum(x), "cumsum of a session tensor")
    close(e.fetch(sid, "s")[0], x, "rechunked session tensor")
    check(all(e.r("EXISTS", k) == 1 for k in old_keys), "the input's chunks were freed")
    e.only_fetched_left(sid, tid2, ["y", "z", "s"])
    # A third task replaces x: the old chunks go once nothing references them.
    # (a document's own key shadows the session's: x here is a new tensor)
    d3 = {"version": 1, "nodes": [{"key": "x", "op": "arange", "stop": 100, "dtype": "float64"}],
          "fetch": ["x"]}
    e.run(sid, d3)
    close(e.fetch(sid, "x")[0], x - 1, "replaced tensor")
    # (s may share a chunk with the old x where the rechunk kept one whole)
    shared = set(e.tensor_row(sid, "s")["chunk_keys"])
    left = [k for k in old_keys if e.r("EXISTS", k) and k not in shared]
    check(not left, "replaced chunks still stored: %s", left)
    check(all(e.r("EXISTS", k) for k in shared), "a chunk s still uses was deleted")
    close(e.fetch(sid, "s")[0], x, "tensor sharing a replaced chunk")
    # y's chunks belong to y's row still
    close(e.fetch(sid, "y")[0], x * 2, "other tensors stay")


def case_uploaded_input(e):
    """An uploaded .npy (uneven chunk bounds are possible) as a graph input,
    when the gateway's upload route is there."""
    import io
    sid = e.session()
    u = np.arange(35 * 26, dtype=np.float32).reshape(35, 26) / 7
    buf = io.BytesIO()
    np.save(buf, u)
    r = harness.request("POST", e.web, "/api/v1/sessions/%s/tensors?key=u&chunk_size=10" % sid,
                        body=buf.getvalue(), headers={"Content-Type": "application/x-npy"})
    if r.status == 501:
        print("# upload route not there yet: uploaded_input checks nothing")
        return
    check(r.status in (200, 201), "upload: %r", r)
    doc = {"version": 1, "nodes": [
        {"key": "v", "op": "matmul", "inputs": ["u", "ut"]},
        {"key": "ut", "op": "transpose", "inputs": ["u"]},
        {"key": "w", "op": "sqrt", "inputs": ["u"]}], "fetch": ["v", "w"]}
    tid = e.run(sid, doc)
    v, _ = e.fetch(sid, "v")
    check(np.allclose(v, u @ u.T, rtol=1e-5), "matmul of an upload")
    close(e.fetch(sid, "w")[0], np.sqrt(u), "sqrt of an upload")
    check(all(e.r("EXISTS", k) for k in e.tensor_row(sid, "u")["chunk_keys"]), "upload chunks freed")
    e.only_fetched_left(sid, tid, ["v", "w"])


def case_odd_messages(e):
    """Job messages a worker cannot use: malformed, of a task that does not
    exist, with a huge job index. The take script looks each one up with its
    batch (or leaves it to the worker); every one is dropped from the
    processing lists, and a task right after runs as usual."""
    odd = ["garbage", "no-such-task 3 0", "no-such-task 99999999999 0", "x y z",
           "\u00e9t\u00e9 1 0", " 4 0"]
    for m in odd:
        e.r("LPUSH", "mars:jobs", m)
    sid = e.session()
    x = np.arange(40000, dtype=np.float64).reshape(200, 200)
    doc = {"version": 1, "nodes": [
        {"key": "a", "op": "array", "data": x.tolist(), "chunk_size": 50},
        {"key": "s", "op": "sum", "inputs": ["a"], "axis": 0}], "fetch": ["s"]}
    e.run(sid, doc)
    s_, _ = e.fetch(sid, "s")
    close(s_, x.sum(axis=0), "sum after odd messages")
    deadline = time.time() + 10
    left = None
    while time.time() < deadline:
        left = [k for k in e.r.keys("mars:processing:*") if e.r("LLEN", k) != 0]
        queued = e.r("LLEN", "mars:jobs")
        if not left and queued == 0:
            break
        time.sleep(0.1)
    check(not left and e.r("LLEN", "mars:jobs") == 0,
          "messages left: processing %s, mars:jobs %s", left, e.r("LLEN", "mars:jobs"))


def big_doc(seed):
    return {"version": 1, "nodes": [
        {"key": "a", "op": "random.rand", "shape": [6000, 6000], "chunk_size": 1000, "seed": seed},
        {"key": "b", "op": "dot", "inputs": ["a", "a"]},
        {"key": "c", "op": "sum", "inputs": ["b"], "axis": 0}], "fetch": ["c"]}


def cancel(e, sid, tid):
    if e.via_gateway:
        r = harness.request("DELETE", e.web, "/api/v1/sessions/%s/tasks/%s" % (sid, tid))
        if r.status in (200, 202, 204):
            return
    e.sql("UPDATE tasks SET cancel_requested = true WHERE id = '%s'" % tid)
    e.r("SET", "mars:task:%s:cancel" % tid, "1")
    e.sql("SELECT pg_notify('mars_task', '%s')" % tid)


def case_cancel(e):
    sid = e.session()
    tid = e.submit(sid, big_doc(5))
    wait_until(lambda: e.task(tid)["done"] > 0, 30, "the task to start running")
    cancel(e, sid, tid)
    t = e.wait(tid, 10)
    check(t["status"] == "cancelled", "status %s", t)
    # jobs that were running finish, and their chunks are deleted as they report
    wait_until(lambda: not e.r.keys("chunk:%s:*" % tid) and not e.r("EXISTS", "mars:loc:%s" % tid), 20,
               "the cancelled task's chunks to go")
    check(e.r("EXISTS", "mars:plan:%s" % tid) == 0, "plan left")


def case_dead_worker(e, extra):
    """A worker killed mid-task: its jobs are queued again after --worker-timeout."""
    sid = e.session()
    tid = e.submit(sid, big_doc(6))
    # A job of this task: the queue may still hold messages of the task
    # cancelled before, which the new worker takes (and drops) first; those
    # are never queued again.
    def holds_ours(w):
        msgs = e.r("LRANGE", "mars:processing:%s" % w, 0, -1) or []
        return any((m.decode() if isinstance(m, bytes) else m).split()[0] == tid for m in msgs)
    wid = wait_until(lambda: [w for w in e.sql("SELECT id FROM workers WHERE pid = %d" % extra.proc.pid).split()
                              if holds_ours(w)], 60, "the extra worker to take a job")[0]
    # Freeze it while it holds a job, then kill it: a job it finished between
    # our look at its list and the kill would leave nothing to requeue.
    # A job it has not reported: its chunk not stored yet (a worker stores
    # the chunk, then pushes the completion, then drops the message, in one
    # pipeline; frozen half way through a batch's pipeline, its list may
    # still name jobs whose completions went out).
    def holds_unreported(w):
        msgs = [(m.decode() if isinstance(m, bytes) else m).split()
                for m in (e.r("LRANGE", "mars:processing:%s" % w, 0, -1) or [])]
        return any(m[0] == tid and not e.r("HEXISTS", "mars:loc:%s" % tid, m[1]) for m in msgs)

    def frozen_holding_a_job():
        os.kill(extra.proc.pid, signal.SIGSTOP)
        time.sleep(0.05)  # what it had sent before the stop has reached Redis
        if holds_unreported(wid):
            return True
        os.kill(extra.proc.pid, signal.SIGCONT)
        time.sleep(0.01)
        return False
    wait_until(frozen_holding_a_job, 60, "the extra worker frozen while it holds a job", interval=0)
    extra.proc.send_signal(signal.SIGKILL)
    extra.proc.wait(10)
    t = e.wait(tid, 120)
    check(t["status"] == "succeeded", "status %s", t)
    c, _ = e.fetch(sid, "c")
    check(c.shape == (6000,) and np.all(np.isfinite(c)), "result")
    e.big6 = c
    check(e.r("LLEN", "mars:processing:%s" % wid) == 0, "dead worker's list not emptied")
    fams = harness.parse_prometheus(harness.get(e.sup_port, "/metrics").body.decode())
    req = sum(s[2] for s in fams["mars_jobs_requeued_total"]["samples"])
    check(req >= 1, "mars_jobs_requeued_total %s", req)


def case_takeover(e, second):
    """The owning supervisor dies mid-task: the other takes the task over once
    the lease lapses, keeps the chunks done and stored, and runs the rest."""
    sid = e.session()
    tid = e.submit(sid, big_doc(6))
    wait_until(lambda: e.task(tid)["done"] > 5, 60, "the task to make progress")
    owner = e.sql("SELECT s.pid FROM tasks t JOIN supervisors s ON s.id = t.owner_id WHERE t.id = '%s'" % tid)
    victim = [sv for sv in (e.sup, second) if sv.proc.pid == int(owner)]
    check(len(victim) == 1, "owner pid %s is none of ours", owner)
    victim[0].proc.send_signal(signal.SIGKILL)
    victim[0].proc.wait(10)
    if victim[0] is e.sup:  # its gateway went with it: read through the other's
        e.web = e.second_web
    t = e.wait(tid, 120)
    check(t["status"] == "succeeded", "status %s", t)
    new_owner = e.sql("SELECT owner_id FROM tasks WHERE id = '%s'" % tid)
    check(new_owner and new_owner != owner, "owner %s", new_owner)
    c, _ = e.fetch(sid, "c")
    if getattr(e, "big6", None) is not None:
        close(c, e.big6, "result after a takeover")
    e.only_fetched_left(sid, tid, ["c"])


def case_metrics(e):
    fams = harness.parse_prometheus(harness.get(e.sup_port, "/metrics").body.decode())
    for name in ("mars_jobs_dispatched_total", "mars_jobs_completed_total"):
        v = sum(s[2] for s in fams[name]["samples"])
        check(v > 0, "%s = %s", name, v)
    check(fams["mars_tiling_seconds"]["type"] == "histogram", "tiling histogram")
    n = [s for s in fams["mars_tiling_seconds"]["samples"] if s[0] == "mars_tiling_seconds_count"]
    check(n and n[0][2] > 0, "no tiling observed")
    done = int(e.sql("SELECT coalesce(sum(chunks_done), 0) FROM workers"))
    check(done > 0, "workers report %d chunks done", done)
    ok = hits = 0
    for port in e.worker_ports:
        wf = harness.parse_prometheus(harness.get(port, "/metrics").body.decode())
        ok += sum(v for n, lab, v in wf["mars_worker_jobs_total"]["samples"] if lab.get("result") == "ok")
        hits += sum(v for n, lab, v in wf["mars_worker_cache_lookups_total"]["samples"]
                    if lab.get("result") == "hit")
        check(wf["mars_worker_job_seconds"]["type"] == "histogram", "job histogram")
    check(ok > 0 and hits > 0, "worker metrics: %d jobs ok, %d cache hits", ok, hits)


def main():
    runner = harness.Runner()
    with harness.Cluster() as c:
        sup_port, web_port = harness.free_port(), harness.free_port()
        common = ["--pg-dsn", c.pg.dsn(), "--redis-url", c.redis.url()]
        sup = c.start("supervisor", "mars-supervisor",
                      ["-H", "127.0.0.1", "-p", sup_port, "-w", web_port, "--worker-timeout", "3"] + common)
        sup.wait_health(sup_port)
        workers, worker_ports = [], []
        for i in range(2):
            p = harness.free_port()
            w = c.start("worker%d" % i, "mars-worker",
                        ["-H", "127.0.0.1", "-p", p, "-s", "127.0.0.1:%d" % sup_port, "--n-cpu", "1",
                         "--cache-mem", "256m"])
            w.wait_health(p)
            workers.append(w)
            worker_ports.append(p)
        e = Env(c, web_port, sup_port)
        e.worker_ports = worker_ports
        ok = runner.case("seed_inner", case_seed_inner, e)
        if not ok:
            sys.stderr.write(sup.tail(3000) + "\n" + workers[0].tail(2000) + "\n")
        runner.case("reduction", case_reduction, e)
        runner.case("cumsum", case_cumsum, e)
        runner.case("getitem", case_getitem, e)
        runner.case("random_matches_mars_run", case_random_matches_mars_run, e)
        runner.case("seedless_row", case_seedless_row, e)
        runner.case("error_names_node", case_error, e)
        runner.case("session_reuse", case_session_reuse, e)
        runner.case("uploaded_input", case_uploaded_input, e)
        runner.case("odd_messages_dropped", case_odd_messages, e)
        runner.case("cancel", case_cancel, e)
        p = harness.free_port()
        extra = c.start("worker-extra", "mars-worker",
                        ["-H", "127.0.0.1", "-p", p, "-s", "127.0.0.1:%d" % sup_port, "--n-cpu", "2"])
        extra.wait_health(p)
        runner.case("dead_worker_requeued", case_dead_worker, e, extra)
        runner.case("metrics", case_metrics, e)

        second_port, e.second_web = harness.free_port(), harness.free_port()
        second = c.start("supervisor2", "mars-supervisor",
                         ["-H", "127.0.0.1", "-p", second_port, "-w", e.second_web, "--worker-timeout", "3"]
                         + common)
        second.wait_health(second_port)
        e.sup = sup
        runner.case("takeover_after_lease", case_takeover, e, second)

        def clean_stop():
            for w in workers + [sup, second]:
                if not w.alive():
                    continue
                rc = w.stop()
                check(rc == 0, "%s exit %r: %s", w.name, rc, w.tail(3000))
        runner.case("clean_stop", clean_stop)
        print("# tasks submitted %s" % ("through the gateway" if e.via_gateway else "as rows (no gateway route yet)"))
        if runner.failed and os.environ.get("MARS_SHOW_LOGS"):
            sys.stderr.write(sup.tail(6000) + "\n")
    return runner.finish()


if __name__ == "__main__":
    sys.exit(main())
