"""The dashboard against a real cluster: PostgreSQL, Redis, a supervisor
serving the gateway and the dashboard (-w), two workers (--n-cpu 1 and 2).

Checks the static serving (index.html, assets, Content-Security-Policy,
path traversal refused, --ui-dir), the dashboard's read-only routes
(docs/dashboard.md), then runs tests/ui/test_dashboard.mjs, which drives
Debian's Chromium through playwright-core against the cluster's own `/`, and
counts its ok/FAIL lines. Screenshots go to build/ui-artifacts/.

Run with Debian's python: /usr/bin/python3 tests/integration/test_dashboard.py
(needs `make build`, ui/node_modules from `npm ci` in ui/, /usr/bin/chromium;
MARS_BIN_DIR=build/san/bin runs it over the sanitized programs).
"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import REPO, Cluster, Runner, check, free_port, get, request, wait_until  # noqa: E402

XSS = "<img src=x onerror=alert(1)>"
ARTIFACTS = os.path.join(REPO, "build", "ui-artifacts")
# docs/dashboard/*.png are refreshed only when asked (UPDATE_SCREENSHOTS=1):
# a test run leaves the checkout as it found it.
DOCS = os.path.join(REPO, "docs", "dashboard") if os.environ.get("UPDATE_SCREENSHOTS") == "1" else None
CSP_PARTS = ["default-src 'self'", "script-src 'self'", "object-src 'none'", "frame-ancestors 'none'"]


GPU_JSON = ('{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984,'
            ' "memory_used": 1057816576, "utilization": 37, "store_used": 209715200,'
            ' "store_limit": 76016694067, "jobs": 155,'
            ' "prefetched": 52428800}')


def raw_get(port, path):
    """GET with the path sent exactly as given (no client normalisation)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode("latin-1"))
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, body


class Suite:
    def __init__(self, c):
        self.c = c
        self.port = free_port()
        self.web = free_port()
        env = {"MARS_PG_DSN": c.pg.dsn(), "MARS_REDIS_URL": c.redis.url()}
        self.sup = c.start("supervisor", "mars-supervisor",
                           ["-H", "127.0.0.1", "-p", self.port, "-w", self.web], env=env)
        self.sup.wait_health(self.port)
        self.sup.wait_health(self.web)
        self.workers = []
        for i, n in enumerate((1, 2)):
            wp = free_port()
            w = c.start("worker%d" % i, "mars-worker", ["-H", "127.0.0.1", "-p", wp, "--n-cpu", n,
                                                       "-s", "127.0.0.1:%d" % self.port])
            w.wait_health(wp)
            self.workers.append(("127.0.0.1:%d" % wp, n))
        wait_until(lambda: len(self.api("/api/v1/workers")["workers"]) == 2, 20, "two workers listed")

    def api(self, path, status=200):
        r = get(self.web, path, timeout=30)
        check(r.status == status, "GET %s: expected %d, got %r", path, status, r)
        return r.json()

    def run_task(self, name, doc):
        r = request("POST", self.web, "/api/v1/sessions", body={"name": name})
        check(r.status == 201, "session: %r", r)
        sid = r.json()["session_id"]
        r = request("POST", self.web, "/api/v1/sessions/%s/tasks" % sid, body=doc)
        check(r.status == 202, "submit: %r", r)
        tid = r.json()["task_id"]
        t = self.api("/api/v1/sessions/%s/tasks/%s?wait=60" % (sid, tid))
        check(t["status"] in ("succeeded", "failed"), "task did not end: %r", t)
        return sid, tid, t

    # ---- cases ----

    def setup_tasks(self):
        with open(os.path.join(REPO, "examples", "seed-inner.json")) as f:
            self.seed = json.load(f)
        self.good = self.run_task("seed-inner", self.seed)
        check(self.good[2]["status"] == "succeeded", "seed task: %r", self.good[2])
        # Fails at run time (an integer to a negative power); its session is
        # named with hostile text. Node keys cannot carry it, so the stored
        # error message gets it appended, as a message echoing user input
        # would carry it.
        self.bad_doc = {"version": 1, "nodes": [
            {"key": "base", "op": "array", "data": [2, 3], "dtype": "int64"},
            {"key": "exp", "op": "array", "data": [-1, 2], "dtype": "int64"},
            {"key": "pow_of_base", "op": "power", "inputs": ["base", "exp"]}], "fetch": ["pow_of_base"]}
        self.bad = self.run_task(XSS, self.bad_doc)
        check(self.bad[2]["status"] == "failed", "failing task: %r", self.bad[2])
        tid = self.bad[1]
        self.c.pg.psql("UPDATE tasks SET error = error || ' (input %s)' WHERE id = '%s';"
                       "UPDATE chunks SET error = error || ' (input %s)' WHERE task_id = '%s' AND status = 'failed'"
                       % (XSS, tid, XSS, tid))
        self.bad_error = self.api("/api/v1/sessions/%s/tasks/%s" % self.bad[:2])["error"]
        check(XSS in self.bad_error, "error text: %r", self.bad_error)

    def index_and_assets(self):
        r = get(self.web, "/")
        check(r.status == 200, "GET /: %r", r)
        check(r.headers.get("content-type", "").startswith("text/html"), "type %r", r.headers)
        csp = r.headers.get("content-security-policy", "")
        for p in CSP_PARTS:
            check(p in csp, "CSP %r lacks %r", csp, p)
        check(r.headers.get("x-content-type-options") == "nosniff", "nosniff: %r", r.headers)
        check(r.headers.get("cache-control") == "no-cache", "index cache-control: %r", r.headers)
        html = r.body.decode()
        assets = re.findall(r'(?:src|href)="\./(assets/[^"]+)"', html)
        check(any(a.endswith(".js") for a in assets) and any(a.endswith(".css") for a in assets),
              "assets named in index.html: %r", assets)
        check("<script>" not in html and "style=" not in html, "inline script or style in index.html")
        for a in assets:
            r = get(self.web, "/" + a)
            check(r.status == 200, "GET /%s: %r", a, r)
            want = "text/javascript" if a.endswith(".js") else "text/css"
            check(r.headers.get("content-type", "").startswith(want), "%s type %r", a, r.headers)
            check("immutable" in r.headers.get("cache-control", ""), "%s cache: %r", a, r.headers)
            check("script-src 'self'" in r.headers.get("content-security-policy", ""), "%s CSP", a)
        check(get(self.web, "/?token=abc").status == 200, "GET /?token= answers the page")
        r = get(self.web, "/assets/nope.js")
        check(r.status == 404 and r.json()["error"]["code"] == "not_found", "missing asset: %r", r)

    def traversal(self):
        paths = ["/assets/../../etc/passwd", "/assets/%2e%2e/%2e%2e/etc/passwd",
                 "/assets/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/assets/..%2f..%2f..%2fetc%2fpasswd",
                 "/assets/%2E%2E/%2E%2E/%2E%2E/etc/passwd", "/assets/.%2e/.%2e/etc/passwd",
                 "/assets/..", "/assets/%2e%2e", "/assets/.htaccess", "/assets/x%00.js",
                 "/assets/%00", "/assets//etc/passwd", "/assets/%2fetc%2fpasswd",
                 "/%2e%2e/%2e%2e/etc/passwd", "/../../../etc/passwd", "/assets/..\\..\\etc\\passwd",
                 "/assets/%5c..%5c..%5cetc%5cpasswd", "/index.html/../../etc/passwd"]
        index = get(self.web, "/").body
        for p in paths:
            status, body = raw_get(self.web, p)
            # h2o resolves "/assets/.." to "/": the page itself, no file.
            check(status in (400, 404) or (status == 200 and body == index), "%s answered %d", p, status)
            check(b"root:" not in body, "%s leaked a file", p)

    def ui_dir_option(self):
        """--ui-dir on a separate mars-gateway; a link out of the folder is
        refused; a folder without index.html answers 503."""
        d = tempfile.mkdtemp(prefix="mars-ui-")
        try:
            os.makedirs(os.path.join(d, "assets"))
            with open(os.path.join(d, "index.html"), "w") as f:
                f.write("<!doctype html><title>custom</title>")
            with open(os.path.join(d, "assets", "a.css"), "w") as f:
                f.write("body{}")
            os.symlink("/etc/passwd", os.path.join(d, "assets", "leak.css"))
            os.symlink("/etc", os.path.join(d, "assets", "etc"))
            gp = free_port()
            g = self.c.start("gateway", "mars-gateway", ["-H", "127.0.0.1", "-p", gp, "--ui-dir", d,
                                                         "--pg-dsn", self.c.pg.dsn(), "--redis-url",
                                                         self.c.redis.url()])
            g.wait_health(gp)
            r = get(gp, "/")
            check(r.status == 200 and b"custom" in r.body, "--ui-dir index: %r", r)
            check(get(gp, "/assets/a.css").status == 200, "--ui-dir asset")
            for p in ("/assets/leak.css", "/assets/etc/passwd", "/assets/etc"):
                status, body = raw_get(gp, p)
                check(status == 404 and b"root:" not in body, "%s through a link: %d", p, status)
            os.remove(os.path.join(d, "index.html"))
            r = get(gp, "/")
            check(r.status == 503 and "not built" in r.json()["error"]["message"], "no index.html: %r", r)
            g.stop()
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def recent_tasks(self):
        j = self.api("/api/v1/tasks")
        ids = [t["task_id"] for t in j["tasks"]]
        check(ids[:2] == [self.bad[1], self.good[1]], "newest first: %r", ids)
        check(j["total"] >= 2, "total %r", j)
        t = j["tasks"][0]
        check(t["session_id"] == self.bad[0] and t["session_name"] == XSS, "session fields %r", t)
        check(t["status"] == "failed" and XSS in t["error"], "task fields %r", t)
        check(len(self.api("/api/v1/tasks?limit=1")["tasks"]) == 1, "limit=1")
        for bad in ("0", "-1", "x", "1001"):
            self.api("/api/v1/tasks?limit=%s" % bad, status=400)

    def cluster(self):
        j = self.api("/api/v1/cluster")
        check(j["workers"]["alive"] == 2 and j["workers"]["total"] == 2, "workers %r", j)
        check(j["n_cpu"] == 3, "n_cpu %r", j)
        check(0 <= j["cpu_usage"] <= 3, "cpu_usage %r", j)
        check(isinstance(j["jobs_queued"], int) and j["jobs_queued"] >= 0, "jobs_queued %r", j)
        check(j["jobs_running"] >= 0 and j["tasks"]["succeeded"] >= 1 and j["tasks"]["failed"] >= 1,
              "tasks %r", j)
        check(j["supervisors"] == 1 and j["sessions"] >= 2, "supervisors, sessions %r", j)

    def worker_page(self):
        ws = self.api("/api/v1/workers")["workers"]
        for w in ws:
            wait_until(lambda: len(self.api("/api/v1/workers/%s" % w["id"])["history"]) >= 3, 15,
                       "three heartbeats in the history")
            j = self.api("/api/v1/workers/%s" % w["id"])
            check(j["worker"]["address"] == w["address"] and j["worker"]["n_cpu"] == w["n_cpu"], "%r", j)
            h = j["history"]
            check(all(0 <= x["cpu_usage"] <= w["n_cpu"] for x in h), "cpu within n_cpu: %r", h)
            check(all(h[i]["t"] <= h[i + 1]["t"] for i in range(len(h) - 1)), "history oldest first")
            check(all(x["memory_used"] > 0 for x in h), "memory in the history")
            check(isinstance(j["slots"], list) and len(j["slots"]) == w["n_cpu"], "slots %r", j["slots"])
            check([s["slot"] for s in j["slots"]] == list(range(w["n_cpu"])), "slot numbers %r", j["slots"])
        self.api("/api/v1/workers/nope", status=404)
        self.api("/api/v1/workers/%3Cx%3E", status=404)

    def graph(self):
        sid, tid, _ = self.good
        j = self.api("/api/v1/sessions/%s/tasks/%s/graph" % (sid, tid))
        check(j["status"] == "succeeded" and j["error"] is None, "%r", j)
        nodes = {n["key"]: n for n in j["nodes"]}
        check(set(nodes) == {"a", "b"}, "nodes %r", list(nodes))
        check(nodes["b"]["inputs"] == ["a", "a"] and nodes["b"]["op"] == "inner", "b %r", nodes["b"])
        check(nodes["b"]["shape"] == [2000, 2000] and nodes["b"]["dtype"] == "float64", "b %r", nodes["b"])
        check(nodes["b"]["fetch"] and not nodes["a"]["fetch"], "fetch flags")
        check(all(n["status"] == "done" for n in j["nodes"]), "all done %r", j["nodes"])
        b = nodes["b"]
        check(b["chunks_total"] > 0 and b["chunks_done"] == b["chunks_total"], "b chunks %r", b)
        check(b["started_at"] and b["finished_at"], "b times %r", b)
        sid, tid, _ = self.bad
        j = self.api("/api/v1/sessions/%s/tasks/%s/graph" % (sid, tid))
        nodes = {n["key"]: n for n in j["nodes"]}
        check(nodes["pow_of_base"]["status"] == "failed", "failed node %r", nodes)
        check("negative integer powers" in (nodes["pow_of_base"]["error"] or ""), "node error %r", nodes)
        self.api("/api/v1/sessions/%s/tasks/%s/graph" % (self.good[0], tid), status=404)

    def chunks(self):
        sid, tid, t = self.good
        j = self.api("/api/v1/sessions/%s/tasks/%s/chunks" % (sid, tid))
        cs = j["chunks"]
        check(len(cs) > 0 and j["ran"] == len(cs), "ran %r of %d", j["ran"], len(cs))
        ncpu = dict(self.workers)
        for ch in cs:
            check(ch["address"] in ncpu, "job on an unknown worker %r", ch)
            check(0 <= ch["slot"] < ncpu[ch["address"]], "slot %r", ch)
            check(ch["started_at"] <= ch["finished_at"], "times %r", ch)
            check(ch["op"] and ch["node"], "op %r", ch)
        check(len({c["address"] for c in cs}) == 2, "both workers ran jobs")
        check(len(self.api("/api/v1/sessions/%s/tasks/%s/chunks?limit=2" % (sid, tid))["chunks"]) == 2, "limit")
        self.api("/api/v1/sessions/%s/tasks/%s/chunks?limit=0" % (sid, tid), status=400)
        self.api("/api/v1/sessions/%s/tasks/nope/chunks" % sid, status=404)

    def fill(self):
        """10,000 more tasks and 98 more workers (not alive) in the database,
        for the scale check; the API's lists stay bounded."""
        self.c.pg.psql(
            "INSERT INTO sessions (id, name) VALUES ('scale-session', 'scale');"
            "INSERT INTO tasks (session_id, graph, status, chunks_total, chunks_done, submitted_at,"
            " started_at, finished_at) SELECT 'scale-session', '{}', 'succeeded', 4, 4,"
            " now() - interval '1 day' + i * interval '1 ms', now() - interval '1 day',"
            " now() - interval '1 day' FROM generate_series(1, 10000) i;"
            "INSERT INTO workers (id, address, hostname, pid, n_cpu, n_io, memory_limit,"
            " cache_limit, last_heartbeat) SELECT 'scale-w' || i, '10.0.0.' || i || ':7000',"
            " 'h' || i, i, 4, 1, 1 << 30, 1 << 28, now() - interval '1 hour'"
            " FROM generate_series(1, 98) i;"
            # one of them with a CUDA device as a GPU worker's heartbeat reports it (docs/gpu.md)
            "UPDATE workers SET cuda_devices = '{0}', gpus = '[" + GPU_JSON + "]' WHERE id = 'scale-w1';")
        g = self.api("/api/v1/workers/scale-w1")["worker"]["gpus"]
        check(g == [json.loads(GPU_JSON)], "gpus of scale-w1: %r", g)
        check(self.api("/api/v1/workers/scale-w2")["worker"]["gpus"] == [], "gpus of a CPU worker")
        j = self.api("/api/v1/tasks")
        check(len(j["tasks"]) == 50 and j["total"] >= 10002, "bounded tasks %r", j["total"])
        ws = self.api("/api/v1/workers")["workers"]
        check(len(ws) == 100, "100 workers listed: %d", len(ws))
        dead = [w for w in ws if w["id"].startswith("scale-w")]
        check(all(w["status"] == "dead" and 0 <= w["cpu_usage"] <= w["n_cpu"] for w in dead),
              "old heartbeats are dead workers: %r", dead[:1])

    def browser(self, r, scale=None):
        """tests/ui/test_dashboard.mjs in headless Chromium; each of its
        ok/FAIL lines counts as a case here."""
        os.makedirs(ARTIFACTS, exist_ok=True)
        facts = {"url": "http://127.0.0.1:%d" % self.web, "scale": scale,
                 "artifacts": ARTIFACTS, "docs": DOCS}
        if not scale:
            facts = {"url": "http://127.0.0.1:%d" % self.web,
                 "workers": [{"address": a, "n_cpu": n} for a, n in self.workers],
                 "good": {"sid": self.good[0], "tid": self.good[1]},
                 "bad": {"sid": self.bad[0], "tid": self.bad[1], "error": self.bad_error},
                 "seed": self.seed, "xss": XSS, "artifacts": ARTIFACTS,
                 "docs": DOCS}
        try:
            p = subprocess.run(["node", os.path.join(REPO, "tests", "ui", "test_dashboard.mjs"),
                                json.dumps(facts)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=300, cwd=REPO)
        except (OSError, subprocess.TimeoutExpired) as e:
            r.fail("browser", "%s" % e)
            return
        out = p.stdout.decode(errors="replace")
        n = 0
        for line in out.splitlines():
            if line.startswith("ok "):
                r.passed += 1
                n += 1
                print("ok browser: %s" % line[3:], flush=True)
            elif line.startswith("FAIL "):
                r.failed += 1
                n += 1
                print("FAIL browser: %s" % line[5:], flush=True)
            elif line.startswith("#"):
                print(line, flush=True)
        if p.returncode != 0 and r.failed == 0 or n == 0:
            r.fail("browser", "exit %d: %s" % (p.returncode, out[-2000:]))


def main():
    r = Runner()
    if not os.path.exists(os.path.join(REPO, "ui", "dist", "index.html")):
        subprocess.run(["node", os.path.join(REPO, "ui", "build.mjs")], check=True)
    with Cluster() as c:
        try:
            s = Suite(c)
        except Exception as e:  # noqa: BLE001
            r.fail("cluster", e)
            return r.finish()
        if not r.case("tasks", s.setup_tasks):
            return r.finish()
        for name in ("index_and_assets", "traversal", "ui_dir_option", "recent_tasks", "cluster",
                     "worker_page", "graph", "chunks"):
            r.case(name, getattr(s, name))
        s.browser(r)
        if r.case("fill", s.fill):
            s.browser(r, scale={"tasks": 10000, "workers": 100})
    return r.finish()


if __name__ == "__main__":
    sys.exit(main())
