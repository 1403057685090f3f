"""Bad input on every route of the REST API (shared/spec/cluster.md), and
authentication (issue 6): each malformed, empty, oversized, deeply nested
or wrongly typed body and each unknown id gets a 4xx with an error object;
a declared Content-Length over --max-body-size is refused before the body
is sent; shapes and chunk counts over the quotas are refused at submission;
with a token every route but /health needs it (header or cookie), the
?token= exchange sets the cookie, workers authenticate to supervisors, the
default bind follows docs/security.md, and Redis passwords in the URL are
sent with AUTH. Also audits that every SQL statement is parametrised.

Run with Debian's Python: /usr/bin/python3 tests/integration/test_bad_input.py
"""

import glob
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import check, wait_until  # noqa: E402

MAX_BODY = 1 << 20
def _npy():
    import io
    import numpy as np
    b = io.BytesIO()
    np.save(b, np.zeros(2))
    return b.getvalue()


NPY = _npy()


def is_error(r, status=None):
    """A 4xx whose body is {"error": {"code": str, "message": str}}."""
    check(400 <= r.status < 500, "status %r", r)
    if status is not None:
        check(r.status == status, "status %d, want %d: %r", r.status, status, r)
    doc = r.json()
    check(isinstance(doc, dict) and set(doc) == {"error"}, "body %r", r.body[:200])
    check(isinstance(doc["error"].get("code"), str) and isinstance(doc["error"].get("message"), str),
          "error object %r", doc)
    return doc["error"]


def cases(sid, tid):
    """(method, path, body, headers, status or None for any 4xx)."""
    nested = b"[" * 100000
    nested_obj = b'{"a":' * 100000
    big = b"x" * (MAX_BODY // 2)
    S = "/api/v1/sessions"
    T = "%s/%s/tasks" % (S, sid)
    out = []
    for body in (b"{", b"\xff\xfe", b"[]", b'"x"', b"1", b'{"name": 5}', b'{"name": "a", "x": 1}',
                 b'{"name": "%s"}' % (b"n" * 300), nested[:60000], nested_obj[:60000],
                 b'{"name": "a", "name": "b"}'):
        out.append(("POST", S, body, None, 400))
    for body in (nested, nested_obj):  # over the route's 64 KiB
        out.append(("POST", S, body, None, 413))
    out.append(("POST", S, b'{"name": "%s"}' % (b"n" * 70000), None, 413))
    for p in ("%s/nope" % S, "%s/%s" % (S, "x" * 65), "%s/bad%%20id" % S, "%s/nope/tasks" % S,
              "%s/nope/tasks/nope" % S, "%s/%s/tasks/nope" % (S, sid), "%s/%s/tensors/nope" % (S, sid),
              "%s/%s/tensors/nope/data" % (S, sid), "%s/nope/tensors/k" % S):
        out.append(("GET", p, None, None, 404))
    for p in ("%s/nope" % S, "%s/nope/tasks/nope" % S, "%s/%s/tasks/nope" % (S, sid)):
        out.append(("DELETE", p, None, None, 404))
    for body in (b"", b"{", nested, nested_obj, b"[]", b'{"version": "1"}', b'{"version": 1}',
                 b'{"version": 1, "nodes": {}, "fetch": []}', b'{"version": 1, "nodes": [], "fetch": ["a"]}',
                 b'{"version": 1, "nodes": [{"key": "a", "op": "ones", "shape": "big"}], "fetch": ["a"]}',
                 b'{"version": 1, "nodes": [{"key": "a", "op": "ones", "shape": [-1]}], "fetch": ["a"]}',
                 b'{"version": 1, "nodes": [{"key": "a", "op": "exec", "code": "import os"}], "fetch": ["a"]}',
                 # quotas: elements per tensor, chunks per tensor
                 b'{"version": 1, "nodes": [{"key": "a", "op": "ones", "shape": [4194304, 4194304]}],'
                 b' "fetch": ["a"]}',
                 b'{"version": 1, "nodes": [{"key": "a", "op": "ones", "shape": [100000, 100000],'
                 b' "chunk_size": 10}], "fetch": ["a"]}'):
        out.append(("POST", T, body, None, 400))
    out.append(("POST", "%s/nope/tasks" % S, b'{"version": 1, "nodes": [], "fetch": []}', None, 404))
    out.append(("GET", "%s/%s?wait=abc" % (T, tid), None, None, 400))
    out.append(("GET", "%s/%s?wait=1e9" % (T, tid), None, None, 400))
    out.append(("GET", "%s/%s?wait=-1" % (T, tid), None, None, 400))
    U = "%s/%s/tensors" % (S, sid)
    for q, body in (("?key=t", b""), ("?key=t", b"not npy"), ("?key=t", nested), ("", NPY),
                    ("?key=a%20b", NPY), ("?key=t&chunk_size=0", NPY), ("?key=t&chunk_size=x", NPY),
                    ("?key=t&chunk_size=-5", NPY), ("?key=t", big)):
        out.append(("POST", U + q, body, None, 400))
    out.append(("POST", "%s/nope/tensors?key=t" % S, NPY, None, 404))
    for name in ("%00", "a%20b", "%FF"):
        out.append(("PUT", "/api/v1/files/%s" % name, b"x", None, 400))
    for name in ("..", ".", "a%2Fb", "a%2F..%2F..%2Fetc"):  # normalised by the path: another route or none
        out.append(("PUT", "/api/v1/files/%s" % name, b"x", None, None))
    out.append(("GET", "/api/v1/nope", None, None, 404))
    out.append(("PATCH", S, b"{}", None, 405))
    out.append(("POST", "/api/v1/workers", b"{}", None, 405))
    out.append(("DELETE", "/api/v1/supervisors", None, None, 405))
    return out


def case_every_route(port):
    sid = harness.request("POST", port, "/api/v1/sessions", body={}).json()["session_id"]
    tid = harness.request("POST", port, "/api/v1/sessions/%s/tasks" % sid,
                          body={"version": 1, "nodes": [{"key": "a", "op": "ones", "shape": [3]}],
                                "fetch": ["a"]}).json()["task_id"]
    n = 0
    for method, path, body, headers, status in cases(sid, tid):
        r = harness.request(method, port, path, body=body, headers=headers, timeout=30)
        try:
            is_error(r, status)
        except AssertionError as e:
            raise AssertionError("%s %s (%d bytes): %s" % (method, path[:80], len(body or b""), e))
        n += 1
    # the service still answers after all that
    check(harness.get(port, "/api/v1/health").status == 200, "health after bad input")
    print("# %d bad requests answered with 4xx error objects" % n)


def raw(port, data, timeout=5):
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        got = b""
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before all of it was sent: the answer may be there
        try:
            while True:
                b = s.recv(65536)
                if not b:
                    break
                got += b
                if b"\r\n\r\n" in got:  # noqa: SIM102
                    head, _, rest = got.partition(b"\r\n\r\n")
                    m = re.search(rb"(?i)content-length: *(\d+)", head)
                    if m and len(rest) >= int(m.group(1)):
                        break
        except (socket.timeout, ConnectionResetError):
            pass  # h2o closes a connection whose body it refused
        return got


def case_declared_length_refused_early(port, sid):
    """Only the headers of a request declaring 16 MiB: the answer comes
    without the body ever being sent."""
    for path in ("/api/v1/sessions/%s/tasks" % sid, "/api/v1/sessions/%s/tensors?key=t" % sid, "/api/v1/sessions"):
        t0 = time.monotonic()
        got = raw(port, b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        b"Content-Length: %d\r\n\r\n" % (path.encode(), 16 << 20))
        check(got.startswith(b"HTTP/1.1 413"), "%s: answer %r", path, got[:200])
        check(time.monotonic() - t0 < 4, "%s: answered only after %.1fs", path, time.monotonic() - t0)
    # and a body over the limit that is sent is refused too
    got = raw(port, b"POST /api/v1/sessions/%s/tasks HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s"
              % (sid.encode(), MAX_BODY + 10, b"[" * (MAX_BODY + 10)))
    check(got.startswith(b"HTTP/1.1 413"), "oversized body: %r", got[:200])


def case_sql_parametrised():
    """Every statement goes through PQexecParams with $n parameters: no
    PQexec but the migration runner's, and no SQL text built with printf."""
    srcs = glob.glob(os.path.join(harness.REPO, "services", "*", "*.c"))
    for path in srcs:
        text = open(path).read()
        for m in re.finditer(r"\bPQexec\s*\(", text):
            line = text.count("\n", 0, m.start()) + 1
            ok = path.endswith("common/db.c") or re.match(r'\s*[\w>-]+\s*,\s*"(LISTEN|UNLISTEN) [a-z_]+"\s*\)',
                                                          text[m.end():m.end() + 80])
            check(ok, "%s:%d: PQexec outside the migration runner", os.path.relpath(path, harness.REPO), line)
        for m in re.finditer(r"(s?n?printf|sbuf_printf)\s*\([^;]*?\"\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b", text,
                             re.S):
            line = text.count("\n", 0, m.start()) + 1
            raise AssertionError("%s:%d: SQL built with printf" % (os.path.relpath(path, harness.REPO), line))
        for m in re.finditer(r"\bPQexecParams\s*\(", text):
            check(path.endswith("common/db.c"), "%s: PQexecParams outside db.c" % path)


# ---- authentication -------------------------------------------------------------

TOKEN = "t0ken-" + os.urandom(12).hex()


def listen_addr(port):
    """The local address a TCP socket listens on for port (from /proc/net/tcp)."""
    for line in open("/proc/net/tcp").read().splitlines()[1:]:
        f = line.split()
        addr, p = f[1].split(":")
        if int(p, 16) == port and f[3] == "0A":
            return socket.inet_ntoa(bytes.fromhex(addr)[::-1])
    return None


def case_token_routes(port, ok_path="/api/v1/sessions"):
    check(harness.get(port, "/health").status == 200, "/health stays open")
    for method, path in (("GET", "/api/v1/sessions"), ("POST", "/api/v1/sessions"), ("GET", "/metrics"),
                         ("GET", "/api/v1/health"), ("GET", "/api/v1/workers"), ("GET", "/api/v1/supervisors"),
                         ("GET", "/"), ("PUT", "/api/v1/files/x"), ("DELETE", "/api/v1/sessions/x"),
                         ("GET", "/api/v1/nope")):
        for hdr in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic " + TOKEN},
                    {"Authorization": "Bearer " + TOKEN + "x"}, {"Authorization": "Bearer " + TOKEN[:-1]},
                    {"Cookie": "mars_token=nope"}, {"Authorization": TOKEN}):
            r = harness.request(method, port, path, body=b"", headers=hdr)
            e = is_error(r, 401)
            check(e["code"] == "unauthorized", "code %s", e)
            check(r.headers.get("www-authenticate", "").startswith("Bearer"), "WWW-Authenticate %r", r.headers)
    for hdr in ({"Authorization": "Bearer " + TOKEN}, {"Authorization": "bearer  %s " % TOKEN},
                {"Cookie": "a=b; mars_token=%s; c=d" % TOKEN}):
        r = harness.get(port, ok_path, headers=hdr)
        check(r.status == 200, "%s: %r", hdr, r)
    if ok_path == "/api/v1/sessions":
        r = harness.request("POST", port, ok_path, body={}, headers={"Authorization": "Bearer " + TOKEN})
        check(r.status == 201, "create with the token: %r", r)


def case_token_cookie_exchange(port):
    r = harness.get(port, "/?token=" + TOKEN)
    check(r.status == 303 and r.headers.get("location") == "/", "exchange: %r %s", r, r.headers)
    ck = r.headers.get("set-cookie", "")
    parts = [p.strip() for p in ck.split(";")]
    check(parts[0] == "mars_token=" + TOKEN, "cookie %r", ck)
    low = [p.lower() for p in parts[1:]]
    check("httponly" in low and "samesite=strict" in low and "path=/" in low, "cookie attributes %r", ck)
    r = harness.get(port, "/?token=wrong")
    check(r.status == 401 and "set-cookie" not in r.headers, "wrong token: %r %s", r, r.headers)
    r = harness.get(port, "/api/v1/workers", headers={"Cookie": parts[0]})
    check(r.status == 200, "cookie accepted: %r", r)


def case_workers_authenticate(c, sup_port, token_file):
    """A worker given the token finds the database through the supervisor's
    cluster-info; one without it is refused (401) and says so."""
    p = harness.free_port()
    w = c.start("tokworker", "mars-worker", ["-p", p, "-s", "127.0.0.1:%d" % sup_port, "--n-cpu", "1",
                                             "--token-file", token_file])
    w.wait_health(p)
    check(harness.get(p, "/metrics").status == 401, "worker metrics open without the token")
    check(harness.get(p, "/metrics", headers={"Authorization": "Bearer " + TOKEN}).status == 200, "worker metrics")
    check(listen_addr(p) == "0.0.0.0", "a worker with a token binds %s" % listen_addr(p))
    bad = c.start("notokworker", "mars-worker", ["-H", "127.0.0.1", "-p", harness.free_port(),
                                                 "-s", "127.0.0.1:%d" % sup_port, "--n-cpu", "1"])
    wait_until(lambda: "401" in bad.tail(), 10, "the worker without a token to be refused")
    check("token" in bad.tail(), "the refusal does not mention the token: %s" % bad.tail())
    bad.stop()
    w.stop()


def case_default_bind(c):
    p = harness.free_port()
    g = c.start("loopgw", "mars-gateway", ["-p", p, "--pg-dsn", c.pg.dsn(), "--redis-url", c.redis.url()])
    g.wait_health(p)
    check(listen_addr(p) == "127.0.0.1", "no token, no -H: bound to %s" % listen_addr(p))
    g.stop()
    p = harness.free_port()
    g = c.start("opengw", "mars-gateway", ["-H", "0.0.0.0", "-p", p, "--pg-dsn", c.pg.dsn(), "--redis-url",
                                           c.redis.url()])
    g.wait_health(p)
    check(listen_addr(p) == "0.0.0.0", "-H 0.0.0.0: bound to %s" % listen_addr(p))
    g.stop()


def case_redis_password(c):
    rdir = tempfile.mkdtemp(prefix="mars-redis-pw-")
    rport = harness.free_port()
    pw = "pw-" + os.urandom(6).hex()
    proc = subprocess.Popen(["redis-server", "--port", str(rport), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", rdir, "--requirepass", pw],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.3)
        for url, want in (("redis://:%s@127.0.0.1:%d/0" % (pw, rport), 200),
                          ("redis://127.0.0.1:%d/0" % rport, 503),
                          ("redis://:wrong@127.0.0.1:%d/0" % rport, 503)):
            p = harness.free_port()
            g = c.start("pwgw", "mars-gateway", ["-H", "127.0.0.1", "-p", p, "--pg-dsn", c.pg.dsn(),
                                                 "--redis-url", url])
            g.wait_health(p)
            r = wait_until(lambda: harness.get(p, "/api/v1/health"), 10, "health")
            check(r.status == want, "%s: %r", url.replace(pw, "PW"), r)
            if want == 503:
                check("redis" in r.json()["error"]["message"], "message %r", r.json())
            g.stop()
    finally:
        harness.stop_proc(proc)


def case_quotas(c):
    """--max-elements, --max-chunks, --max-total-chunks, --max-document on a
    gateway: over-quota documents are refused at submission with 400 naming
    the node; bad values and values over the engine's limits stop the start."""
    p = harness.free_port()
    g = c.start("qgw", "mars-gateway", ["-H", "127.0.0.1", "-p", p, "--pg-dsn", c.pg.dsn(),
                                        "--redis-url", c.redis.url(), "--max-elements", "1000000",
                                        "--max-chunks", "100", "--max-total-chunks", "500",
                                        "--max-document", "4k"])
    g.wait_health(p)
    sid = harness.request("POST", p, "/api/v1/sessions", body={}).json()["session_id"]
    path = "/api/v1/sessions/%s/tasks" % sid

    def submit(nodes):
        return harness.request("POST", p, path, body={"version": 1, "nodes": nodes,
                                                      "fetch": [nodes[-1]["key"]]})
    r = submit([{"key": "big", "op": "ones", "shape": [1001, 1000], "chunk_size": 1001}])
    check(r.status == 400 and "big" in r.json()["error"]["message"], "elements quota: %r", r)
    r = submit([{"key": "many", "op": "ones", "shape": [101], "chunk_size": 1}])
    check(r.status == 400 and "many" in r.json()["error"]["message"], "chunks quota: %r", r)
    r = submit([{"key": "a", "op": "ones", "shape": [90], "chunk_size": 1},
                {"key": "b", "op": "add", "inputs": ["a", 1]},
                {"key": "c", "op": "multiply", "inputs": ["b", 2]},
                {"key": "d", "op": "cumsum", "inputs": ["c"]},
                {"key": "e", "op": "cumsum", "inputs": ["d"]},
                {"key": "f", "op": "cumsum", "inputs": ["e"]},
                {"key": "h", "op": "cumsum", "inputs": ["f"]},
                {"key": "i", "op": "cumsum", "inputs": ["h"]},
                {"key": "j", "op": "cumsum", "inputs": ["i"]}])
    check(r.status == 400 and "chunk" in r.json()["error"]["message"], "total chunks quota: %r", r)
    r = harness.request("POST", p, path, body=b'{"version": 1, "nodes": [], "fetch": []' + b" " * 5000 + b"}",
                        headers={"Content-Type": "application/json"})
    check(r.status == 413, "document quota: %r", r)
    r = submit([{"key": "ok", "op": "ones", "shape": [1000, 1000], "chunk_size": 100}])
    check(r.status == 202, "within the quotas: %r", r)
    g.stop()
    for args in (["--max-chunks", "0"], ["--max-elements", "x"], ["--max-total-chunks", "1e99"],
                 ["--max-chunks", str(10 ** 15)]):
        r = subprocess.run([os.path.join(harness.BIN_DIR, "mars-gateway"), "-p", "0"] + args,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
        check(r.returncode == 2 and args[0] in r.stdout.decode(), "%s: exit %d %s", args, r.returncode,
              r.stdout[-300:])


def main():
    runner = harness.Runner()
    with harness.Cluster() as c:
        sup_port, web_port = harness.free_port(), harness.free_port()
        common = ["--pg-dsn", c.pg.dsn(), "--redis-url", c.redis.url()]
        sup = c.start("supervisor", "mars-supervisor", ["-H", "127.0.0.1", "-p", sup_port, "-w", web_port,
                                                        "--max-body-size", str(MAX_BODY)] + common)
        sup.wait_health(sup_port)
        runner.case("every_route_4xx_error_object", case_every_route, web_port)
        sid = harness.request("POST", web_port, "/api/v1/sessions", body={}).json()["session_id"]
        runner.case("declared_length_refused_early", case_declared_length_refused_early, web_port, sid)
        runner.case("sql_parametrised", case_sql_parametrised)
        runner.case("default_bind", case_default_bind, c)
        runner.case("redis_password", case_redis_password, c)
        runner.case("quotas", case_quotas, c)

        tf = os.path.join(c.logdir, "token")
        with open(tf, "w") as f:
            f.write(TOKEN + "\n")
        tsup_port, tweb_port = harness.free_port(), harness.free_port()
        tsup = c.start("tsupervisor", "mars-supervisor", ["-p", tsup_port, "-w", tweb_port] + common,
                       env={"MARS_TOKEN": TOKEN})
        tsup.wait_health(tsup_port)
        runner.case("token_every_route", case_token_routes, tweb_port)
        runner.case("token_service_port", case_token_routes, tsup_port, "/api/v1/cluster-info")
        runner.case("token_cookie_exchange", case_token_cookie_exchange, tweb_port)
        runner.case("workers_authenticate", case_workers_authenticate, c, tsup_port, tf)
        if runner.failed and os.environ.get("MARS_SHOW_LOGS"):
            sys.stderr.write(sup.tail(4000) + "\n")
    return runner.finish()


if __name__ == "__main__":
    sys.exit(main())
