"""The cluster's foundation against a real PostgreSQL and Redis: health,
sessions, error bodies, migrations (also two supervisors at once), workers
and supervisors listings, Prometheus metrics, command lines.

Run with Debian's python: /usr/bin/python3 tests/integration/test_cluster_basics.py
(MARS_BIN_DIR=build/san/bin runs it over the sanitized programs;
MARS_KEEP_LOGS=1 keeps the services' logs.)
"""

import datetime
import glob
import json
import os
import re
import shutil
import signal
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (MIGRATIONS, Cluster, Runner, check, free_port, get, parse_prometheus,  # noqa: E402
                     request, run_program, wait_until)

RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
N_MIGRATIONS = len(glob.glob(os.path.join(MIGRATIONS, "[0-9][0-9][0-9][0-9]_*.sql")))
N_CPU = len(os.sched_getaffinity(0))


def parse_time(s):
    check(isinstance(s, str) and RFC3339.match(s), "not an RFC 3339 UTC time: %r", s)
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))


def check_error(r, status, code=None):
    """A JSON error body of the contract: {"error": {"code", "message"}}."""
    check(r.status == status, "expected %d, got %r", status, r)
    check(r.headers.get("content-type", "").startswith("application/json"), "content type %r",
          r.headers.get("content-type"))
    body = r.json()
    check(set(body) == {"error"} and set(body["error"]) == {"code", "message"}, "error body %r", body)
    check(isinstance(body["error"]["code"], str) and body["error"]["message"], "error body %r", body)
    if code:
        check(body["error"]["code"] == code, "error code %r, expected %r", body["error"]["code"], code)
    return body["error"]


class Suite:
    def __init__(self, c):
        self.c = c
        self.port = free_port()
        self.web = free_port()
        # The contract's command line; the addresses come from the environment fallbacks.
        self.sup = c.start("supervisor", "mars-supervisor", ["-H", "127.0.0.1", "-p", self.port, "-w", self.web],
                           env={"MARS_PG_DSN": c.pg.dsn(), "MARS_REDIS_URL": c.redis.url()})
        self.sup.wait_health(self.port)
        self.sup.wait_health(self.web)
        self.wport = free_port()
        self.worker = c.start("worker", "mars-worker", ["-H", "127.0.0.1", "-p", self.wport,
                                                       "-s", "127.0.0.1:%d" % self.port])
        self.worker.wait_health(self.wport)

    # ---- health ----

    def health(self):
        for port in (self.port, self.web, self.wport):
            r = get(port, "/health")
            check(r.status == 200 and r.json()["status"] == "ok", "port %d: %r", port, r)

    def api_health(self):
        r = get(self.web, "/api/v1/health")
        check(r.status == 200, "%r", r)
        check(r.json() == {"status": "ok", "postgres": "ok", "redis": "ok"}, "%r", r.json())

    def cluster_info(self):
        info = get(self.port, "/api/v1/cluster-info").json()
        check(info["pg_dsn"] == self.c.pg.dsn(), "pg_dsn %r", info["pg_dsn"])
        check(info["redis_url"] == self.c.redis.url(), "redis_url %r", info["redis_url"])
        check(info["supervisors"] == ["127.0.0.1:%d" % self.port], "supervisors %r", info["supervisors"])

    # ---- sessions ----

    def sessions(self):
        r = request("POST", self.web, "/api/v1/sessions")
        check(r.status == 201, "create: %r", r)
        sid = r.json()["session_id"]
        check(isinstance(sid, str) and sid, "session_id %r", sid)
        r = request("POST", self.web, "/api/v1/sessions", body={"name": "named ü"})
        check(r.status == 201, "create with a name: %r", r)
        sid2 = r.json()["session_id"]
        check(sid2 != sid, "two sessions, one id")

        listed = get(self.web, "/api/v1/sessions").json()
        check(set(listed) == {"sessions"}, "list keys %r", listed)
        by_id = {s["session_id"]: s for s in listed["sessions"]}
        check(sid in by_id and sid2 in by_id, "created sessions not listed: %r", listed)
        check(by_id[sid2]["name"] == "named ü" and by_id[sid]["name"] is None, "names %r", by_id)
        now = datetime.datetime.now(datetime.timezone.utc)
        for s in (by_id[sid], by_id[sid2]):
            check(abs((parse_time(s["created_at"]) - now).total_seconds()) < 60, "created_at %r", s)

        one = get(self.web, "/api/v1/sessions/%s" % sid).json()
        check(one["session_id"] == sid and one["tasks"] == 0, "%r", one)
        r = get(self.web, "/api/v1/sessions/%s/tasks" % sid)
        check(r.status == 200 and r.json() == {"tasks": []}, "tasks of a new session: %r", r)

        r = request("DELETE", self.web, "/api/v1/sessions/%s" % sid)
        check(r.status == 204 and r.body == b"", "delete: %r", r)
        ids = [s["session_id"] for s in get(self.web, "/api/v1/sessions").json()["sessions"]]
        check(sid not in ids and sid2 in ids, "after delete: %r", ids)
        check_error(request("DELETE", self.web, "/api/v1/sessions/%s" % sid), 404, "not_found")
        check_error(get(self.web, "/api/v1/sessions/%s/tasks" % sid), 404, "not_found")
        check_error(get(self.web, "/api/v1/sessions/%s" % sid), 404, "not_found")
        # Trailing slashes name the same resource.
        check(get(self.web, "/api/v1/sessions/").status == 200, "trailing slash")

    def error_bodies(self):
        e = check_error(get(self.web, "/api/v1/nonexistent"), 404, "not_found")
        check("/api/v1/nonexistent" in e["message"], "message %r", e)
        check_error(get(self.web, "/api/v1/sessions/no-such-session"), 404, "not_found")
        check_error(request("DELETE", self.web, "/api/v1/sessions/bad%20id%2F..x"), 404, "not_found")
        r = request("PUT", self.web, "/api/v1/sessions")
        check_error(r, 405, "method_not_allowed")
        allow = {m.strip() for m in r.headers.get("allow", "").split(",")}
        check(allow == {"GET", "POST"}, "Allow %r", r.headers.get("allow"))
        check_error(request("PATCH", self.web, "/api/v1/workers"), 405, "method_not_allowed")
        e = check_error(request("POST", self.web, "/api/v1/sessions", body=b"{not json"), 400, "invalid_json")
        check("JSON" in e["message"], "message %r", e)
        check_error(request("POST", self.web, "/api/v1/sessions", body={"nmae": "x"}), 400, "invalid_request")
        check_error(request("POST", self.web, "/api/v1/sessions", body={"name": 3}), 400, "invalid_request")
        check_error(request("POST", self.web, "/api/v1/sessions", body=[1]), 400, "invalid_request")
        # Bytes that are not UTF-8 in the path still give a JSON error body.
        with socket.create_connection(("127.0.0.1", self.web), timeout=5) as sock:
            sock.sendall(b"GET /api/v1/\xff\xfe HTTP/1.0\r\nHost: x\r\n\r\n")
            raw = b""
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                raw += chunk
        head, _, body = raw.partition(b"\r\n\r\n")
        check(head.startswith(b"HTTP/1.") and b" 404 " in head.split(b"\r\n")[0], "raw answer %r", raw[:200])
        check(json.loads(body)["error"]["code"] == "not_found", "raw body %r", body)

    # ---- workers and supervisors ----

    def _worker_entry(self, address):
        for w in get(self.web, "/api/v1/workers").json()["workers"]:
            if w["address"] == address:
                return w
        return None

    def workers(self):
        address = "127.0.0.1:%d" % self.wport
        w = wait_until(lambda: self._worker_entry(address), 10, "the worker in /api/v1/workers")
        keys = {"id", "address", "status", "n_cpu", "cpu_usage", "memory_used", "memory_limit", "cache_used",
                "cuda_devices", "chunks_running", "chunks_done", "last_heartbeat"}
        check(keys <= set(w), "missing fields %r", keys - set(w))
        check(w["status"] == "alive", "status %r", w["status"])
        check(w["n_cpu"] == N_CPU, "n_cpu %r, this machine lets us use %d", w["n_cpu"], N_CPU)
        check(isinstance(w["cpu_usage"], (int, float)) and 0 <= w["cpu_usage"] <= w["n_cpu"], "cpu_usage %r", w)
        check(w["memory_used"] > 1 << 20, "memory_used %r (resident bytes)", w["memory_used"])
        check(w["memory_limit"] > w["memory_used"], "memory_limit %r", w["memory_limit"])
        check(isinstance(w["cuda_devices"], list), "cuda_devices %r", w["cuda_devices"])
        check(w["chunks_running"] == 0 and w["chunks_done"] == 0, "chunk counts %r", w)
        t0 = parse_time(w["last_heartbeat"])
        # Heartbeats come every second.
        wait_until(lambda: parse_time(self._worker_entry(address)["last_heartbeat"]) > t0, 3.5,
                   "a newer heartbeat")

    def worker_redis_report(self):
        w = self._worker_entry("127.0.0.1:%d" % self.wport)
        key = "mars:worker:%s" % w["id"]
        h = self.c.redis.command("HGETALL", key)
        fields = dict(zip(h[::2], h[1::2]))
        check(fields.get("address") == w["address"], "hash %r", fields)
        check(0 <= float(fields["cpu_usage"]) <= N_CPU, "cpu_usage %r", fields)
        check(int(fields["memory_used"]) > 0, "memory_used %r", fields)
        ttl = self.c.redis.command("PTTL", key)
        check(0 < ttl <= 10000, "PTTL %r: the report must expire", ttl)

    def worker_flags(self):
        tmp = tempfile.mkdtemp(prefix="mars-spill-")
        try:
            spill = "%s/a:%s/b" % (tmp, tmp)
            port = free_port()
            w = self.c.start("worker2", "mars-worker", ["-H", "127.0.0.1", "-p", port, "-s", "127.0.0.1:%d" % self.port,
                                                       "--n-cpu", 1, "--n-io-process", 2, "--phy-mem", "1g",
                                                       "--cache-mem", "256m", "--cuda-devices", "",
                                                       "--spill-dirs", spill, "--min-mem", "1m"])
            w.wait_health(port)
            address = "127.0.0.1:%d" % port
            e = wait_until(lambda: self._worker_entry(address), 10, "worker2 listed")
            check(e["n_cpu"] == 1 and e["memory_limit"] == 1 << 30 and e["cuda_devices"] == [], "%r", e)
            check(0 <= e["cpu_usage"] <= 1, "cpu_usage %r", e["cpu_usage"])
            check(os.path.isdir(os.path.join(tmp, "a")) and os.path.isdir(os.path.join(tmp, "b")),
                  "spill directories not created")
            rc = w.stop()
            check(rc == 0, "SIGTERM: exit %r: %s", rc, w.tail())
            e = self._worker_entry(address)
            check(e["status"] == "dead", "a stopped worker is %r", e["status"])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def supervisors(self):
        sups = get(self.web, "/api/v1/supervisors").json()["supervisors"]
        mine = [s for s in sups if s["address"] == "127.0.0.1:%d" % self.port]
        check(len(mine) == 1, "supervisors %r", sups)
        s = mine[0]
        check(s["status"] == "alive" and s["tasks"] == [], "%r", s)
        parse_time(s["started_at"])

    # ---- metrics ----

    def metrics(self):
        for port, name in ((self.port, "supervisor"), (self.web, "gateway"), (self.wport, "worker")):
            get(port, "/health")
            r = get(port, "/metrics")
            check(r.status == 200 and r.headers["content-type"].startswith("text/plain"), "%d: %r", port, r)
            fams = parse_prometheus(r.body.decode())
            check(fams["mars_http_requests_total"]["type"] == "counter", "requests counter")
            check(fams["mars_http_request_seconds"]["type"] == "histogram", "latency histogram")
            served = [s for s in fams["mars_http_requests_total"]["samples"]
                      if s[1].get("server") == name and s[1].get("code") == "200"]
            check(served and served[0][2] >= 1, "%s: no answered request counted: %r", name, served)
            rss = fams["process_resident_memory_bytes"]["samples"][0][2]
            check(rss > 1 << 20, "rss %r", rss)
        fams = parse_prometheus(get(self.wport, "/metrics").body.decode())
        cores = fams["mars_worker_cpu_usage_cores"]["samples"][0][2]
        check(0 <= cores <= N_CPU, "worker cpu usage %r", cores)
        # the kernels' CPU level (docs/deploy.md "CPU level"): one series, 1
        lv = fams["mars_worker_kernel_cpu_level"]["samples"]
        check(len(lv) == 1 and lv[0][2] == 1 and lv[0][1].get("level") in ("portable", "avx2", "avx512"),
              "mars_worker_kernel_cpu_level %r", lv)

    # ---- migrations ----

    def migrations_concurrent(self):
        dsn = self.c.pg.createdb("race")
        ports = [free_port(), free_port()]
        sups = [self.c.start("race%d" % i, "mars-supervisor",
                             ["-H", "127.0.0.1", "-p", p, "--pg-dsn", dsn, "--redis-url", self.c.redis.url()])
                for i, p in enumerate(ports)]
        for s, p in zip(sups, ports):
            s.wait_health(p)
        rows = self.c.pg.psql("SELECT version FROM schema_migrations ORDER BY version", db="race").split()
        check(rows == [str(i) for i in range(1, N_MIGRATIONS + 1)], "schema_migrations %r", rows)
        applied = [int(re.search(r"(\d+) applied now", s.tail()).group(1)) for s in sups]
        check(sorted(applied) == [0, N_MIGRATIONS], "applied by each: %r", applied)
        n = self.c.pg.psql("SELECT count(*) FROM supervisors WHERE status = 'running'", db="race")
        check(n == "2", "registered supervisors %r", n)
        stamp = self.c.pg.psql("SELECT max(applied_at) FROM schema_migrations", db="race")
        # A restart applies nothing.
        p3 = free_port()
        s3 = self.c.start("race2", "mars-supervisor",
                          ["-H", "127.0.0.1", "-p", p3, "--pg-dsn", dsn, "--redis-url", self.c.redis.url()])
        s3.wait_health(p3)
        check("0 applied now" in s3.tail(), "restart: %s", s3.tail())
        check(self.c.pg.psql("SELECT max(applied_at) FROM schema_migrations", db="race") == stamp, "re-applied")
        for s in sups + [s3]:
            rc = s.stop()
            check(rc == 0, "%s exit code %r: %s", s.name, rc, s.tail())
        check(self.c.pg.psql("SELECT count(*) FROM supervisors WHERE status = 'stopped'", db="race") == "3",
              "stopped supervisors are not marked")

    def migrations_append_only(self):
        dsn = self.c.pg.createdb("edited")
        tmp = tempfile.mkdtemp(prefix="mars-mig-")
        try:
            for f in glob.glob(os.path.join(MIGRATIONS, "*.sql")):
                shutil.copy(f, tmp)
            args = ["-H", "127.0.0.1", "--pg-dsn", dsn, "--redis-url", self.c.redis.url(), "--migrations-dir", tmp]
            p = free_port()
            s = self.c.start("edited0", "mars-supervisor", args + ["-p", p])
            s.wait_health(p)
            rc = s.stop()
            check(rc == 0, "exit %r: %s", rc, s.tail())
            with open(os.path.join(tmp, "0001_init.sql"), "a") as f:
                f.write("\n-- edited after landing\n")
            rc, out, err = run_program("mars-supervisor", args + ["-p", free_port()], timeout=20)
            check(rc == 1 and "append-only" in err, "edited migration: rc %r: %s", rc, err[-500:])
            # a gap after the last migration there is
            last = max(int(os.path.basename(f)[:4]) for f in glob.glob(os.path.join(tmp, "*.sql")))
            with open(os.path.join(tmp, "%04d_gap.sql" % (last + 2)), "w") as f:
                f.write("SELECT 1;\n")
            rc, out, err = run_program("mars-supervisor", args + ["-p", free_port()], timeout=20)
            check(rc == 1 and "%04d" % (last + 1) in err, "numbering gap: rc %r: %s", rc, err[-500:])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    # ---- the gateway as its own process ----

    def gateway_via_supervisor(self):
        gp = free_port()
        g = self.c.start("gateway", "mars-gateway", ["-H", "127.0.0.1", "-p", gp, "-s", "127.0.0.1:%d" % self.port])
        g.wait_health(gp)
        check(get(gp, "/api/v1/health").status == 200, "api health")
        sid = request("POST", gp, "/api/v1/sessions").json()["session_id"]
        ids = [s["session_id"] for s in get(self.web, "/api/v1/sessions").json()["sessions"]]
        check(sid in ids, "a session made through one gateway is not seen by the other")
        rc = g.stop()
        check(rc == 0, "exit %r: %s", rc, g.tail())

    def gateway_config_file(self):
        tmp = tempfile.mkdtemp(prefix="mars-conf-")
        try:
            file_port, cli_port = free_port(), free_port()
            conf = os.path.join(tmp, "gateway.conf")
            with open(conf, "w") as f:
                f.write("# gateway\nport = %d\npg_dsn = \"%s\"\nredis-url = %s\nlog-level = warning\n"
                        "log-format = json\n" % (file_port, self.c.pg.dsn(), self.c.redis.url()))
            g = self.c.start("gateway-conf", "mars-gateway", ["-H", "127.0.0.1", "-f", conf, "-p", cli_port,
                                                              "--log-level", "info"])
            g.wait_health(cli_port)
            check(get(cli_port, "/api/v1/health").status == 200, "addresses from the file")
            try:
                get(file_port, "/health", timeout=1)
                raise AssertionError("the file's port answers: the command line must win")
            except OSError:
                pass
            rc = g.stop()
            check(rc == 0, "exit %r: %s", rc, g.tail())
            lines = [ln for ln in g.tail().splitlines() if ln.strip()]
            check(lines, "no log line at level info")
            for ln in lines:
                rec = json.loads(ln)
                check({"time", "level", "logger", "pid", "message"} <= set(rec), "log record %r", rec)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def gateway_dependency_down(self):
        gp = free_port()
        g = self.c.start("gateway-down", "mars-gateway", ["-H", "127.0.0.1", "-p", gp, "--pg-dsn", self.c.pg.dsn(),
                                                          "--redis-url", "redis://127.0.0.1:%d" % free_port()])
        g.wait_health(gp)
        e = check_error(get(gp, "/api/v1/health"), 503, "unavailable")
        check("redis" in e["message"] and "postgres" not in e["message"], "message %r", e["message"])
        rc = g.stop()
        check(rc == 0, "exit %r: %s", rc, g.tail())

    # ---- command lines ----

    def cli_help(self):
        common = ["-H", "-p", "-f", "--log-level", "--log-format", "--log-conf"]
        flags = {
            "mars-supervisor": common + ["-w", "-s", "--pg-dsn", "--redis-url"],
            "mars-gateway": common + ["-s", "--pg-dsn", "--redis-url"],
            "mars-worker": common + ["-s", "--pg-dsn", "--redis-url", "--n-cpu", "--n-io-process", "--cuda-devices",
                                     "--cache-mem", "--phy-mem", "--min-mem", "--spill-dirs"],
        }
        for prog, fl in flags.items():
            rc, out, err = run_program(prog, ["--help"])
            check(rc == 0 and out.startswith("Usage: %s" % prog), "%s --help: rc %r %r", prog, rc, out[:200])
            for f in fl:
                check(re.search(r"(^|[ ,])%s([ ,]|$)" % re.escape(f), out, re.M), "%s --help lacks %s", prog, f)

    def cli_rejects(self):
        s = ["-s", "127.0.0.1:1"]
        bad = [
            ("mars-worker", s + ["--n-cpu", "0"], "--n-cpu"),
            ("mars-worker", s + ["--n-cpu", "2x"], "--n-cpu"),
            ("mars-worker", s + ["--phy-mem", "12q"], "--phy-mem"),
            ("mars-worker", s + ["--phy-mem", "99999999999t"], "overflows"),
            ("mars-worker", s + ["--cache-mem", "101%"], "--cache-mem"),
            ("mars-worker", s + ["--phy-mem", "1g", "--cache-mem", "2g"], "--cache-mem"),
            ("mars-worker", s + ["--cuda-devices", "0,0"], "--cuda-devices"),
            ("mars-worker", s + ["--spill-dirs", "a::b"], "--spill-dirs"),
            ("mars-worker", [], "-s"),
            ("mars-worker", s + ["-w", "7000"], "-w"),
            ("mars-supervisor", ["-p", "70000"], "-p"),
            ("mars-supervisor", ["-s", "nohostport"], "-s"),
            ("mars-supervisor", ["--redis-url", "http://x"], "--redis-url"),
            ("mars-supervisor", ["--log-level", "loud"], "--log-level"),
            ("mars-supervisor", ["--log-format", "%(nope)s"], "--log-format"),
            ("mars-supervisor", ["--bogus"], "--bogus"),
            ("mars-supervisor", ["-f", "/nonexistent/mars.conf"], "-f"),
            ("mars-gateway", ["-p", "1", "--n-cpu", "2"], "--n-cpu"),
        ]
        for prog, args, word in bad:
            rc, out, err = run_program(prog, args)
            lines = err.strip().splitlines()
            check(rc == 2 and len(lines) == 1 and word in lines[0], "%s %s: rc %r, stderr %r", prog, args, rc, err)

    def worker_min_mem(self):
        rc, out, err = run_program("mars-worker", ["-H", "127.0.0.1", "--pg-dsn", self.c.pg.dsn(),
                                                   "--redis-url", self.c.redis.url(), "--min-mem", "100%"])
        check(rc == 1 and "--min-mem" in err, "rc %r: %s", rc, err)

    def polls_with_leaving_clients(self):
        """Many long polls at once, with clients that hang up at any moment
        (before, during and after their answer). Each gateway loop must keep
        its own socket buffers: they once shared the starting thread's, and
        a few seconds of this freed live buffers (a crash under ASan, lost
        connections without it)."""
        import random
        import threading
        sid = request("POST", self.web, "/api/v1/sessions").json()["session_id"]
        tids = [self.c.pg.psql(
            "INSERT INTO tasks (session_id, graph, status, lease_expires_at, started_at) VALUES"
            " ('%s', '{\"version\": 1, \"nodes\": [], \"fetch\": []}', 'running',"
            " now() + interval '1 hour', now()) RETURNING id" % sid).splitlines()[0] for _ in range(4)]
        answered = []

        def client(k):
            rnd = random.Random(k)
            end = time.monotonic() + 8
            while time.monotonic() < end and self.sup.alive():
                try:
                    r = get(self.web, "/api/v1/sessions/%s/tasks/%s?wait=%.2f" % (sid, rnd.choice(tids),
                                                                                  rnd.uniform(0, 1.5)),
                            timeout=rnd.uniform(0.01, 2))
                    answered.append(r.status)
                except OSError:  # this client's own timeout: it hung up
                    pass
        threads = [threading.Thread(target=client, args=(k,)) for k in range(32)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        check(self.sup.alive(), "the supervisor died under long polls: %s", self.sup.tail())
        check(answered and set(answered) == {200}, "answers %r", sorted(set(answered)))
        check(get(self.web, "/api/v1/sessions/%s" % sid).status == 200, "the gateway no longer answers")

    def stop_cleanly(self):
        rc = self.worker.stop()
        check(rc == 0, "worker exit %r: %s", rc, self.worker.tail())
        rc = self.sup.stop()
        check(rc == 0, "supervisor exit %r: %s", rc, self.sup.tail())
        st = self.c.pg.psql("SELECT status FROM supervisors WHERE address = '127.0.0.1:%d'" % self.port)
        check(st == "stopped", "supervisor row %r", st)


def main():
    run = Runner()
    try:
        with Cluster() as c:
            try:
                s = Suite(c)
            except Exception as e:  # noqa: BLE001
                run.fail("cluster_start", str(e).replace("\n", " | ")[:2000])
                return run.finish()
            for name in ["health", "api_health", "cluster_info", "sessions", "error_bodies", "workers",
                         "worker_redis_report", "worker_flags", "supervisors", "metrics", "migrations_concurrent",
                         "migrations_append_only", "gateway_via_supervisor", "gateway_config_file",
                         "gateway_dependency_down", "cli_help", "cli_rejects", "worker_min_mem",
                         "polls_with_leaving_clients", "stop_cleanly"]:
                run.case(name, getattr(s, name))
    except Exception as e:  # noqa: BLE001 - PostgreSQL or Redis did not start
        run.fail("infrastructure", str(e).replace("\n", " | ")[:2000])
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
