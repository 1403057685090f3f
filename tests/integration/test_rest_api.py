"""The REST API's task, tensor and file routes against the real services
(a supervisor serving the gateway with -w, one worker, real PostgreSQL and
Redis): submission and validation, seeds, long polls, cancellation, uploads,
tensor metadata and data (.npy and JSON, compared with numpy), files, and
deleting a session with its chunks.

Cases marked EXEC need task execution (supervisor and worker); the others
exercise the gateway alone (some put rows in place with psql).

Run with Debian's python: /usr/bin/python3 tests/integration/test_rest_api.py
(MARS_BIN_DIR=build/san/bin runs it over the sanitized programs;
MARS_KEEP_LOGS=1 keeps the services' logs.)
"""

import io
import json
import os
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Cluster, Runner, check, free_port, get, request  # noqa: E402

# How long an EXEC case waits for a small task to end.
EXEC_WAIT_S = 45


def check_error(r, status, code=None, contains=None):
    check(r.status == status, "expected %d, got %r", status, r)
    check(r.headers.get("content-type", "").startswith("application/json"), "content type %r",
          r.headers.get("content-type"))
    body = r.json()
    check(set(body) == {"error"} and set(body["error"]) == {"code", "message"}, "error body %r", body)
    if code:
        check(body["error"]["code"] == code, "error code %r, expected %r (%r)", body["error"]["code"], code, body)
    if contains:
        check(contains in body["error"]["message"], "message %r lacks %r", body["error"]["message"], contains)
    return body["error"]


def npy_bytes(a):
    f = io.BytesIO()
    np.save(f, a)
    return f.getvalue()


TASK_FIELDS = {"task_id", "status", "progress", "chunks_total", "chunks_done", "error", "submitted_at",
               "started_at", "finished_at"}


class Suite:
    def __init__(self, c):
        self.c = c
        self.port = free_port()
        self.web = free_port()
        env = {"MARS_PG_DSN": c.pg.dsn(), "MARS_REDIS_URL": c.redis.url()}
        self.sup = c.start("supervisor", "mars-supervisor", ["-H", "127.0.0.1", "-p", self.port, "-w", self.web],
                           env=env)
        self.sup.wait_health(self.port)
        self.sup.wait_health(self.web)
        self.wport = free_port()
        self.worker = c.start("worker", "mars-worker", ["-H", "127.0.0.1", "-p", self.wport, "--n-cpu", "2",
                                                       "-s", "127.0.0.1:%d" % self.port])
        self.worker.wait_health(self.wport)

    # ---- helpers ----

    def session(self):
        r = request("POST", self.web, "/api/v1/sessions")
        check(r.status == 201, "create session: %r", r)
        return r.json()["session_id"]

    def submit(self, sid, doc, status=202):
        r = request("POST", self.web, "/api/v1/sessions/%s/tasks" % sid, body=doc)
        check(r.status == status, "submit: expected %d, got %r", status, r)
        return r

    def task(self, sid, tid, wait=None, timeout=10):
        path = "/api/v1/sessions/%s/tasks/%s" % (sid, tid)
        if wait is not None:
            path += "?wait=%s" % wait
        r = get(self.web, path, timeout=timeout)
        check(r.status == 200, "task: %r", r)
        t = r.json()
        check(set(t) == TASK_FIELDS, "task fields %r", sorted(t))
        return t

    def wait_done(self, sid, tid):
        deadline = time.monotonic() + EXEC_WAIT_S
        while True:
            left = deadline - time.monotonic()
            t = self.task(sid, tid, wait=max(0, min(30, int(left))), timeout=40)
            if t["status"] not in ("pending", "running") or left <= 0:
                break
        check(t["status"] == "succeeded", "task %s did not succeed (execution): %r", tid, t)
        return t

    def fetch_npy(self, sid, key, how="query"):
        path = "/api/v1/sessions/%s/tensors/%s/data" % (sid, key)
        if how == "query":
            r = get(self.web, path + "?format=npy", timeout=60)
        else:
            r = get(self.web, path, headers={"Accept": "application/x-npy"}, timeout=60)
        check(r.status == 200, "data of %s: %r", key, r)
        check(r.headers.get("content-type") == "application/x-npy", "content type %r", r.headers)
        check(int(r.headers.get("content-length", -1)) == len(r.body), "content-length %r vs %d",
              r.headers.get("content-length"), len(r.body))
        return np.load(io.BytesIO(r.body))

    def fetch_json(self, sid, key):
        r = get(self.web, "/api/v1/sessions/%s/tensors/%s/data" % (sid, key), timeout=60)
        check(r.status == 200, "data of %s: %r", key, r)
        check(r.headers.get("content-type", "").startswith("application/json"), "content type %r", r.headers)
        return r.json()

    def upload(self, sid, key, arr, chunk_size=None, status=201):
        path = "/api/v1/sessions/%s/tensors?key=%s" % (sid, key)
        if chunk_size is not None:
            path += "&chunk_size=%s" % chunk_size
        r = request("POST", self.web, path, body=npy_bytes(arr), headers={"Content-Type": "application/x-npy"},
                    timeout=60)
        check(r.status == status, "upload %s: expected %d, got %r", key, status, r)
        return r

    def fake_task(self, sid, status, graph, lease="now() + interval '1 hour'"):
        """A task row put in place directly (no supervisor takes it: running
        with a live lease, or already ended)."""
        return self.c.pg.psql(
            "INSERT INTO tasks (session_id, graph, status, lease_expires_at, started_at, finished_at)"
            " VALUES ('%s', '%s', '%s', %s, now(), %s) RETURNING id"
            % (sid, json.dumps(graph).replace("'", "''"), status, lease,
               "now()" if status not in ("pending", "running") else "NULL")).splitlines()[0]

    # ---- submission (gateway) ----

    def submit_rejects(self):
        sid = self.session()
        e = check_error(self.submit(sid, {"version": 1, "nodes": [
            {"key": "a", "op": "ones", "shape": [3, 4]},
            {"key": "c", "op": "ones", "shape": [5, 3]},
            {"key": "b", "op": "inner", "inputs": ["a", "c"]}], "fetch": ["b"]}, 400), 400, "invalid_graph")
        check('node "b"' in e["message"] and "inner" in e["message"], "message %r", e["message"])
        e = check_error(self.submit(sid, {"version": 2, "nodes": [], "fetch": []}, 400), 400)
        check("version" in e["message"], "message %r", e["message"])
        r = request("POST", self.web, "/api/v1/sessions/%s/tasks" % sid, body=b"{not json")
        check_error(r, 400)
        e = check_error(self.submit(sid, {"version": 1, "nodes": [
            {"key": "a", "op": "ones", "shape": [3], "shpe": 1}], "fetch": ["a"]}, 400), 400)
        check('node "a"' in e["message"], "message %r", e["message"])
        e = check_error(self.submit(sid, {"version": 1, "nodes": [
            {"key": "b", "op": "add", "inputs": ["nosuch", 1]}], "fetch": ["b"]}, 400), 400)
        check("nosuch" in e["message"], "message %r", e["message"])
        check_error(self.submit("0123456789abcdef", {"version": 1, "nodes": [], "fetch": []}, 404), 404,
                    "not_found")
        # Nothing invalid was stored.
        check(self.c.pg.psql("SELECT count(*) FROM tasks WHERE session_id = '%s'" % sid) == "0", "rows stored")

    def submit_and_status(self):
        sid = self.session()
        doc = {"version": 1, "nodes": [{"key": "a", "op": "ones", "shape": [40, 30], "chunk_size": 10},
                                      {"key": "b", "op": "inner", "inputs": ["a", "a"]}], "fetch": ["b"]}
        r = self.submit(sid, doc)
        body = r.json()
        check(set(body) == {"task_id", "seeds"} and body["seeds"] == {}, "answer %r", body)
        tid = body["task_id"]
        t = self.task(sid, tid)
        check(t["task_id"] == tid and t["status"] in ("pending", "running", "succeeded"), "%r", t)
        check(t["submitted_at"].endswith("Z"), "%r", t)
        listed = get(self.web, "/api/v1/sessions/%s/tasks" % sid).json()["tasks"]
        check([x["task_id"] for x in listed] == [tid], "list %r", listed)
        check(set(listed[0]) == TASK_FIELDS, "list fields %r", listed[0])
        stored = json.loads(self.c.pg.psql("SELECT graph::text FROM tasks WHERE id = '%s'" % tid))
        check(stored["nodes"] == doc["nodes"], "stored %r", stored)
        r = get(self.web, "/api/v1/sessions/%s/tasks/nosuchtask" % sid)
        check_error(r, 404, "not_found")
        self.seed_task = (sid, tid)

    def seeds_filled(self):
        sid = self.session()
        doc = {"version": 1, "nodes": [{"key": "r", "op": "random.rand", "shape": [50, 20], "chunk_size": 16},
                                      {"key": "n", "op": "random.normal", "shape": [7], "seed": 42},
                                      {"key": "s", "op": "sum", "inputs": ["r"]}], "fetch": ["r", "s", "n"]}
        body = self.submit(sid, doc).json()
        seeds = body["seeds"]
        check(set(seeds) == {"r", "n"} and seeds["n"] == 42 and isinstance(seeds["r"], int) and seeds["r"] >= 0,
              "seeds %r", seeds)
        stored = json.loads(self.c.pg.psql("SELECT graph::text FROM tasks WHERE id = '%s'" % body["task_id"]))
        by_key = {n["key"]: n for n in stored["nodes"]}
        check(by_key["r"]["seed"] == seeds["r"] and by_key["n"]["seed"] == 42 and "seed" not in by_key["s"],
              "stored %r", stored)
        self.random_task = (sid, body["task_id"], seeds["r"])

    # ---- long polls and cancellation (gateway) ----

    def long_poll(self):
        sid = self.session()
        tid = self.fake_task(sid, "running", {"version": 1, "nodes": [], "fetch": []})
        t0 = time.monotonic()
        t = self.task(sid, tid, wait=1)
        dt = time.monotonic() - t0
        check(t["status"] == "running" and 0.9 <= dt < 3, "wait=1 took %.2fs: %r", dt, t)
        t0 = time.monotonic()
        t = self.task(sid, tid, wait=0)
        check(time.monotonic() - t0 < 0.5, "wait=0 should answer at once")

        def finish():
            time.sleep(0.5)
            self.c.pg.psql("UPDATE tasks SET status = 'succeeded', finished_at = now() WHERE id = '%s'" % tid)
        th = threading.Thread(target=finish)
        th.start()
        t0 = time.monotonic()
        t = self.task(sid, tid, wait=20, timeout=30)
        dt = time.monotonic() - t0
        th.join()
        check(t["status"] == "succeeded" and t["progress"] == 1 and dt < 3, "ended after %.2fs: %r", dt, t)
        # Many waiting clients at once do not hold the pool: a plain request still answers quickly.
        tid2 = self.fake_task(sid, "running", {"version": 1, "nodes": [], "fetch": []})
        results = []
        ths = [threading.Thread(target=lambda: results.append(self.task(sid, tid2, wait=2, timeout=10)))
               for _ in range(12)]
        for x in ths:
            x.start()
        time.sleep(0.3)
        t0 = time.monotonic()
        r = get(self.web, "/api/v1/sessions/%s" % sid)
        check(r.status == 200 and time.monotonic() - t0 < 0.5, "blocked by waiting clients: %r", r)
        for x in ths:
            x.join()
        check(len(results) == 12, "waiting clients answered: %d", len(results))
        for bad in ("x", "-1", "301", "nan"):
            check_error(get(self.web, "/api/v1/sessions/%s/tasks/%s?wait=%s" % (sid, tid, bad)), 400)

    def cancel(self):
        sid = self.session()
        tid = self.fake_task(sid, "running", {"version": 1, "nodes": [], "fetch": []})
        r = request("DELETE", self.web, "/api/v1/sessions/%s/tasks/%s" % (sid, tid))
        check(r.status == 200 and r.json()["task_id"] == tid, "cancel running: %r", r)
        check(self.c.pg.psql("SELECT cancel_requested FROM tasks WHERE id = '%s'" % tid) == "t", "flag")
        check(self.c.redis.command("GET", "mars:task:%s:cancel" % tid) == "1", "cancel key")
        done = self.fake_task(sid, "succeeded", {"version": 1, "nodes": [], "fetch": []}, lease="NULL")
        check_error(request("DELETE", self.web, "/api/v1/sessions/%s/tasks/%s" % (sid, done)), 409, "conflict")
        check_error(request("DELETE", self.web, "/api/v1/sessions/%s/tasks/nosuch" % sid), 404)

    def cancel_submitted(self):
        """EXEC-tolerant: a real task cancelled right after submission ends
        cancelled (the gateway ends a task nobody claimed yet; a claimed one
        needs its supervisor)."""
        sid = self.session()
        doc = {"version": 1, "nodes": [{"key": "a", "op": "random.rand", "shape": [3000, 3000], "chunk_size": 300},
                                      {"key": "b", "op": "matmul", "inputs": ["a", "a"]},
                                      {"key": "c", "op": "matmul", "inputs": ["b", "b"]}], "fetch": ["c"]}
        tid = self.submit(sid, doc).json()["task_id"]
        r = request("DELETE", self.web, "/api/v1/sessions/%s/tasks/%s" % (sid, tid))
        if r.status == 409:  # it already ended: only possible with a very fast cluster
            return
        check(r.status == 200, "cancel: %r", r)
        t = self.task(sid, tid, wait=30, timeout=40)
        check(t["status"] == "cancelled", "after cancel (EXEC when claimed): %r", t)
        check_error(request("DELETE", self.web, "/api/v1/sessions/%s/tasks/%s" % (sid, tid)), 409)

    # ---- tensors (gateway) ----

    def upload_and_metadata(self):
        sid = self.session()
        a = np.arange(7 * 5, dtype=np.float64).reshape(7, 5) / 3
        body = self.upload(sid, "x", a, "3,2").json()
        check(body == {"key": "x", "shape": [7, 5], "dtype": "float64", "chunk_size": [[3, 3, 1], [2, 2, 1]],
                       "nbytes": a.nbytes}, "upload answer %r", body)
        r = get(self.web, "/api/v1/sessions/%s/tensors/x" % sid)
        check(r.status == 200 and r.json() == body, "metadata %r", r)
        keys = self.c.redis.command("KEYS", "chunk:up:*")
        check(len(keys) == 9, "chunk keys %r", keys)
        check(np.array_equal(self.fetch_npy(sid, "x"), a), "npy differs")
        check(np.array_equal(self.fetch_npy(sid, "x", how="accept"), a), "npy (Accept) differs")
        j = self.fetch_json(sid, "x")
        check(j["shape"] == [7, 5] and j["dtype"] == "float64" and np.array_equal(np.array(j["data"]), a),
              "json %r", j)
        # Every dtype, 0-d and 1-d, uneven and default chunks.
        for arr, cs in [(np.array([[True, False], [False, True]]), "1"), (np.arange(10, dtype=np.int32), "4"),
                        (np.float32(2.5) * np.ones((3, 4, 5), dtype=np.float32), None),
                        (np.array(7, dtype=np.int64), None), (np.zeros((0, 3)), "2")]:
            self.upload(sid, "y", arr, cs)
            got = self.fetch_npy(sid, "y")
            check(got.dtype == arr.dtype and got.shape == arr.shape and np.array_equal(got, arr),
                  "round trip of %r: %r", arr, got)
            if arr.dtype == np.bool_:
                check(self.fetch_json(sid, "y")["data"] == arr.tolist(), "bool json")
        # Replacing y freed the chunks of the earlier uploads.
        meta = json.loads(self.c.pg.psql("SELECT array_to_json(chunk_keys) FROM tensors WHERE key = 'y'"
                                         " AND session_id = '%s'" % sid))
        all_up = self.c.redis.command("KEYS", "chunk:up:*")
        check(sorted(all_up) == sorted(meta + json.loads(self.c.pg.psql(
            "SELECT array_to_json(chunk_keys) FROM tensors WHERE key = 'x' AND session_id = '%s'" % sid))),
            "stale chunk keys: %r", all_up)
        # NaN and infinities in JSON.
        self.upload(sid, "f", np.array([1.5, np.nan, np.inf, -np.inf]))
        check(self.fetch_json(sid, "f")["data"] == [1.5, "nan", "inf", "-inf"], "nan json")

    def upload_rejects(self):
        sid = self.session()
        a = np.ones((4, 4))
        check_error(self.upload(sid, "bad%20key", a, status=400), 400)
        check_error(request("POST", self.web, "/api/v1/sessions/%s/tensors" % sid, body=npy_bytes(a)), 400)
        check_error(self.upload(sid, "x", a, "0", status=400), 400)
        check_error(self.upload(sid, "x", a, "2,2,2", status=400), 400)
        check_error(self.upload(sid, "x", a, "a", status=400), 400)
        r = request("POST", self.web, "/api/v1/sessions/%s/tensors?key=x" % sid, body=b"not a npy file")
        check_error(r, 400, "invalid_npy")
        r = request("POST", self.web, "/api/v1/sessions/%s/tensors?key=x" % sid, body=npy_bytes(a)[:-8])
        check_error(r, 400, "invalid_npy")
        check_error(self.upload("0123456789abcdef", "x", a, status=404), 404)
        check_error(get(self.web, "/api/v1/sessions/%s/tensors/nosuch" % sid), 404, "not_found")
        check_error(get(self.web, "/api/v1/sessions/%s/tensors/nosuch/data" % sid), 404, "not_found")
        self.upload(sid, "x", a)
        check_error(get(self.web, "/api/v1/sessions/%s/tensors/x/data?format=csv" % sid), 400)

    def large_stream(self):
        sid = self.session()
        a = np.random.default_rng(5).standard_normal((1500, 3000))  # 36 MB: many stream pieces
        self.upload(sid, "big", a, "500,700")
        got = self.fetch_npy(sid, "big")
        check(np.array_equal(got, a), "large npy differs")
        j = self.fetch_json(sid, "big")
        check(np.array_equal(np.array(j["data"]), a), "large json differs")

    def stream_client_leaves(self):
        """Clients that hang up in the middle of a download free their pool
        thread: afterwards every thread still answers."""
        import socket
        sid = self.session()
        a = np.zeros((2000, 2000))  # 32 MB: far more than the stream queue holds
        self.upload(sid, "z", a, "250")
        for _ in range(6):  # more than the pool's threads
            s = socket.create_connection(("127.0.0.1", self.web), timeout=10)
            s.sendall(b"GET /api/v1/sessions/%s/tensors/z/data?format=npy HTTP/1.1\r\nHost: x\r\n\r\n"
                      % sid.encode())
            got = s.recv(65536)
            check(got.startswith(b"HTTP/1.1 200"), "start %r", got[:100])
            s.close()
        for _ in range(8):
            r = get(self.web, "/api/v1/sessions/%s/tensors/z" % sid, timeout=5)
            check(r.status == 200, "after hang-ups: %r", r)
        # Stalled downloads (clients that do not read) hold stream threads,
        # never the pool that answers short requests.
        stalled = []
        for _ in range(6):
            s = socket.create_connection(("127.0.0.1", self.web), timeout=10)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(b"GET /api/v1/sessions/%s/tensors/z/data?format=npy HTTP/1.1\r\nHost: x\r\n\r\n"
                      % sid.encode())
            stalled.append(s)
        time.sleep(0.5)
        for _ in range(8):
            t0 = time.monotonic()
            r = get(self.web, "/api/v1/sessions/%s/tensors/z" % sid, timeout=5)
            check(r.status == 200 and time.monotonic() - t0 < 1, "with stalled downloads: %r", r)
        for s in stalled:
            s.close()
        # Two downloads at once, both whole.
        out = []
        ths = [threading.Thread(target=lambda: out.append(self.fetch_npy(sid, "z"))) for _ in range(2)]
        for t in ths:
            t.start()
        for t in ths:
            t.join()
        check(len(out) == 2 and all(np.array_equal(x, a) for x in out), "concurrent downloads")

    def missing_chunk(self):
        sid = self.session()
        self.upload(sid, "m", np.ones((6, 6)), "3")
        keys = json.loads(self.c.pg.psql("SELECT array_to_json(chunk_keys) FROM tensors WHERE session_id = '%s'"
                                         % sid))
        self.c.redis.command("DEL", keys[2])
        check_error(get(self.web, "/api/v1/sessions/%s/tensors/m/data?format=npy" % sid), 500, "data_lost")

    def not_kept(self):
        sid = self.session()
        self.fake_task(sid, "succeeded", {"version": 1, "nodes": [{"key": "tmp", "op": "ones", "shape": [2]},
                                                                  {"key": "out", "op": "negative",
                                                                   "inputs": ["tmp"]}], "fetch": ["out"]},
                       lease="NULL")
        e = check_error(get(self.web, "/api/v1/sessions/%s/tensors/tmp/data" % sid), 404, "not_kept")
        check("fetch" in e["message"] and "tmp" in e["message"], "message %r", e["message"])
        check_error(get(self.web, "/api/v1/sessions/%s/tensors/tmp" % sid), 404, "not_kept")
        self.fake_task(sid, "running", {"version": 1, "nodes": [{"key": "later", "op": "ones", "shape": [2]}],
                                        "fetch": ["later"]})
        check_error(get(self.web, "/api/v1/sessions/%s/tensors/later/data" % sid), 404, "not_ready")

    def upload_as_input(self):
        sid = self.session()
        a = np.arange(12, dtype=np.int64).reshape(3, 4)
        self.upload(sid, "u", a, "2")
        e = check_error(self.submit(sid, {"version": 1, "nodes": [
            {"key": "v", "op": "matmul", "inputs": ["u", "u"]}], "fetch": ["v"]}, 400), 400)
        check('node "v"' in e["message"], "message %r", e["message"])
        tid = self.submit(sid, {"version": 1, "nodes": [
            {"key": "v", "op": "multiply", "inputs": ["u", 3]},
            {"key": "w", "op": "sum", "inputs": ["v"], "axis": 0}], "fetch": ["v", "w"]}).json()["task_id"]
        self.upload_task = (sid, tid, a)

    # ---- files (gateway) ----

    def files(self):
        csv = b"a,b\n1,2.5\n3,4.5\n"
        r = request("PUT", self.web, "/api/v1/files/data.csv", body=csv)
        check(r.status == 201 and r.json() == {"name": "data.csv", "nbytes": len(csv)}, "put: %r", r)
        check(self.c.redis.command("GET", "file:data.csv") == csv.decode(), "stored file")
        r = request("PUT", self.web, "/api/v1/files/data.csv", body=b"x\n1\n")
        check(r.status == 201 and self.c.redis.command("GET", "file:data.csv") == "x\n1\n", "replace: %r", r)
        for bad in ("..", "a..b", "a%20b", "%2e%2e"):
            r = request("PUT", self.web, "/api/v1/files/%s" % bad, body=b"x")
            check(r.status in (400, 404), "name %r accepted: %r", bad, r)

    # ---- deleting a session (gateway) ----

    def delete_session_frees(self):
        sid = self.session()
        other = self.session()
        self.upload(sid, "x", np.ones((4, 4)), "2")
        self.upload(other, "keep", np.ones((2, 2)), "1")
        tid = self.fake_task(sid, "running", {"version": 1, "nodes": [], "fetch": []})
        for i in range(3):
            self.c.redis.command("SET", "chunk:%s:%d" % (tid, i), "data")
        self.c.redis.command("SET", "mars:plan:%s" % tid, "{}")
        mine = json.loads(self.c.pg.psql("SELECT array_to_json(chunk_keys) FROM tensors WHERE session_id = '%s'"
                                         % sid))
        theirs = json.loads(self.c.pg.psql("SELECT array_to_json(chunk_keys) FROM tensors"
                                           " WHERE session_id = '%s'" % other))
        r = request("DELETE", self.web, "/api/v1/sessions/%s" % sid)
        check(r.status == 204, "delete: %r", r)
        left = [k for k in mine if self.c.redis.command("EXISTS", k)]
        check(not left, "tensor chunks left: %r", left)
        check(self.c.redis.command("KEYS", "chunk:%s:*" % tid) == [], "task chunks left")
        check(self.c.redis.command("EXISTS", "mars:plan:%s" % tid) == 0, "plan left")
        check(all(self.c.redis.command("EXISTS", k) for k in theirs), "another session's chunks went")
        check(self.c.pg.psql("SELECT count(*) FROM tensors WHERE session_id = '%s'" % sid) == "0", "rows left")
        check_error(request("DELETE", self.web, "/api/v1/sessions/%s" % sid), 404)

    # ---- EXEC: results of real tasks ----

    def exec_seed_example(self):
        sid, tid = self.seed_task
        t = self.wait_done(sid, tid)
        check(t["progress"] == 1 and t["chunks_total"] > 0 and t["finished_at"], "%r", t)
        a = np.ones((40, 30))
        want = np.inner(a, a)
        check(np.allclose(self.fetch_npy(sid, "b"), want), "b differs")
        j = self.fetch_json(sid, "b")
        check(j["shape"] == [40, 40] and np.allclose(np.array(j["data"]), want), "json b differs")
        meta = get(self.web, "/api/v1/sessions/%s/tensors/b" % sid).json()
        check(meta["shape"] == [40, 40] and meta["dtype"] == "float64" and meta["nbytes"] == want.nbytes, "%r", meta)
        e = check_error(get(self.web, "/api/v1/sessions/%s/tensors/a/data" % sid), 404, "not_kept")
        check("fetch" in e["message"], "%r", e)

    def exec_seeds_repeat(self):
        sid, tid, seed = self.random_task
        self.wait_done(sid, tid)
        r1 = self.fetch_npy(sid, "r")
        check(r1.shape == (50, 20) and (r1 >= 0).all() and (r1 < 1).all(), "rand %r", r1)
        check(np.allclose(self.fetch_npy(sid, "s"), r1.sum()), "sum")
        # The reported seed repeats the values, whatever the chunking.
        tid2 = self.submit(sid, {"version": 1, "nodes": [
            {"key": "r2", "op": "random.rand", "shape": [50, 20], "chunk_size": 7, "seed": seed}],
            "fetch": ["r2"]}).json()["task_id"]
        self.wait_done(sid, tid2)
        check(np.array_equal(self.fetch_npy(sid, "r2"), r1), "seed did not repeat the values")

    def exec_upload_input(self):
        sid, tid, a = self.upload_task
        self.wait_done(sid, tid)
        check(np.array_equal(self.fetch_npy(sid, "v"), a * 3), "v")
        check(np.array_equal(self.fetch_npy(sid, "w"), (a * 3).sum(axis=0)), "w")
        # A result used by the next task of the session.
        tid2 = self.submit(sid, {"version": 1, "nodes": [{"key": "z", "op": "add", "inputs": ["v", "u"]}],
                                 "fetch": ["z"]}).json()["task_id"]
        self.wait_done(sid, tid2)
        check(np.array_equal(self.fetch_npy(sid, "z"), a * 4), "z")

    def exec_monte_carlo(self):
        sid = self.session()
        with open(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "monte-carlo-pi.json")) as f:
            doc = json.load(f)
        tid = self.submit(sid, doc).json()["task_id"]
        self.wait_done(sid, tid)
        pi = float(self.fetch_npy(sid, "pi"))
        check(abs(pi - 3.14159) < 0.02, "pi %r", pi)
        check(abs(float(self.fetch_json(sid, "pi")["data"]) - pi) < 1e-12, "json pi")

    def exec_cancel_running(self):
        sid = self.session()
        doc = {"version": 1, "nodes": [{"key": "a", "op": "random.rand", "shape": [4000, 4000], "chunk_size": 250},
                                      {"key": "b", "op": "matmul", "inputs": ["a", "a"]},
                                      {"key": "c", "op": "matmul", "inputs": ["b", "b"]},
                                      {"key": "d", "op": "matmul", "inputs": ["c", "c"]}], "fetch": ["d"]}
        tid = self.submit(sid, doc).json()["task_id"]
        deadline = time.monotonic() + 20
        while self.task(sid, tid)["status"] == "pending" and time.monotonic() < deadline:
            time.sleep(0.05)
        t = self.task(sid, tid)
        check(t["status"] == "running", "not claimed (execution): %r", t)
        r = request("DELETE", self.web, "/api/v1/sessions/%s/tasks/%s" % (sid, tid))
        check(r.status == 200 and r.json()["status"] in ("running", "cancelled"), "cancel: %r", r)
        t = self.task(sid, tid, wait=30, timeout=40)
        check(t["status"] == "cancelled" and t["finished_at"], "after cancel (execution): %r", t)
        time.sleep(0.5)  # jobs in flight finish and their chunks go
        wait_keys = time.monotonic() + 10
        while self.c.redis.command("KEYS", "chunk:%s:*" % tid) and time.monotonic() < wait_keys:
            time.sleep(0.2)
        check(self.c.redis.command("KEYS", "chunk:%s:*" % tid) == [], "chunks of a cancelled task left")

    def exec_delete_session(self):
        sid = self.session()
        tid = self.submit(sid, {"version": 1, "nodes": [
            {"key": "a", "op": "arange", "stop": 100, "chunk_size": 10},
            {"key": "b", "op": "multiply", "inputs": ["a", 2]}], "fetch": ["b"]}).json()["task_id"]
        self.wait_done(sid, tid)
        keys = json.loads(self.c.pg.psql("SELECT array_to_json(chunk_keys) FROM tensors WHERE session_id = '%s'"
                                         % sid))
        check(len(keys) == 10 and all(self.c.redis.command("EXISTS", k) for k in keys), "kept chunks %r", keys)
        check(request("DELETE", self.web, "/api/v1/sessions/%s" % sid).status == 204, "delete")
        check(not any(self.c.redis.command("EXISTS", k) for k in keys), "chunks left after delete")
        check(self.c.redis.command("KEYS", "chunk:%s:*" % tid) == [], "task chunks left")

    def exec_uneven_chunks(self):
        sid = self.session()
        tid = self.submit(sid, {"version": 1, "nodes": [
            {"key": "a", "op": "arange", "stop": 10, "chunk_size": 4},
            {"key": "g", "op": "getitem", "inputs": ["a"], "index": ["1:"]},
            {"key": "m", "op": "arange", "stop": 35, "chunk_size": 6},
            {"key": "m2", "op": "reshape", "inputs": ["m"], "newshape": [5, 7]},
            {"key": "t", "op": "transpose", "inputs": ["m2"]}], "fetch": ["g", "t"]}).json()["task_id"]
        self.wait_done(sid, tid)
        meta = get(self.web, "/api/v1/sessions/%s/tensors/g" % sid).json()
        check(meta["shape"] == [9] and sum(meta["chunk_size"][0]) == 9, "meta %r", meta)
        check(np.array_equal(self.fetch_npy(sid, "g"), np.arange(10)[1:]), "g")
        want = np.arange(35).reshape(5, 7).T
        check(np.array_equal(self.fetch_npy(sid, "t"), want), "t npy")
        check(np.array_equal(np.array(self.fetch_json(sid, "t")["data"]), want), "t json")
        meta = get(self.web, "/api/v1/sessions/%s/tensors/t" % sid).json()
        check([sum(x) for x in meta["chunk_size"]] == [7, 5], "meta %r", meta)
        # A later task reads the result with its exact (maybe uneven) chunks.
        tid2 = self.submit(sid, {"version": 1, "nodes": [{"key": "s", "op": "sum", "inputs": ["t"], "axis": 1}],
                                 "fetch": ["s"]}).json()["task_id"]
        self.wait_done(sid, tid2)
        check(np.array_equal(self.fetch_npy(sid, "s"), want.sum(axis=1)), "s")

    def failed_task_status(self):
        sid = self.session()
        # Valid, but fails while running? Nothing in the engine fails at run
        # time for a valid document, so check the failed state's shape via a
        # row: error is reported as given.
        tid = self.fake_task(sid, "failed", {"version": 1, "nodes": [], "fetch": []}, lease="NULL")
        self.c.pg.psql("UPDATE tasks SET error = 'node \"k\" (sum): boom' WHERE id = '%s'" % tid)
        t = self.task(sid, tid, wait=5)
        check(t["status"] == "failed" and t["error"] == 'node "k" (sum): boom', "%r", t)


GATEWAY_CASES = ["submit_rejects", "submit_and_status", "seeds_filled", "long_poll", "cancel", "upload_and_metadata",
                 "upload_rejects", "large_stream", "stream_client_leaves", "missing_chunk", "not_kept", "upload_as_input", "files",
                 "delete_session_frees", "failed_task_status"]
EXEC_CASES = ["cancel_submitted", "exec_seed_example", "exec_seeds_repeat", "exec_upload_input", "exec_monte_carlo",
              "exec_cancel_running", "exec_delete_session", "exec_uneven_chunks"]


def main():
    run = Runner()
    only = set(sys.argv[1:])
    try:
        with Cluster() as c:
            try:
                s = Suite(c)
            except Exception as e:  # noqa: BLE001
                run.fail("cluster_start", str(e).replace("\n", " | ")[:2000])
                return run.finish()
            for name in GATEWAY_CASES + EXEC_CASES:
                if only and name not in only:
                    continue
                run.case(name, getattr(s, name))
    except Exception as e:  # noqa: BLE001 - PostgreSQL or Redis did not start
        run.fail("infrastructure", str(e).replace("\n", " | ")[:2000])
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
