"""Integration harness: a real PostgreSQL and a real Redis in temporary
directories on free loopback ports, and the real service binaries.

Debian's /usr/bin/python3 only (standard library; numpy where a suite needs
it). Everything started here is stopped by pid at the end, also when a test
fails or the script is interrupted (Cluster is a context manager and also
registers an atexit hook).

PostgreSQL refuses to run as root, so initdb and the server run as the
`postgres` user (runuser) in a directory that user owns, with fsync off.
"""

import atexit
import glob
import http.client
import json
import os
import pwd
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN_DIR = os.environ.get("MARS_BIN_DIR", os.path.join(REPO, "build", "bin"))
MIGRATIONS = os.path.join(REPO, "db", "migrations")


def service_env(extra=None):
    """The environment of a mars-* process: ours without MARS_* settings (a
    test says what it means), plus extra."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MARS_")}
    env.update(extra or {})
    return env


def pg_bin():
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(d.split("/")[-2]))
    if not dirs:
        raise RuntimeError("PostgreSQL server binaries not found under /usr/lib/postgresql")
    return dirs[-1]


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Fatal(Exception):
    """Raised inside a wait_until condition: stop waiting, nothing will change."""


def wait_until(fn, timeout, what, interval=0.05):
    """Calls fn until it returns a true value, or raises after timeout s."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            v = fn()
            if v:
                return v
        except Fatal:
            raise
        except Exception as e:  # noqa: BLE001 - retried until the deadline
            last = e
        time.sleep(interval)
    raise RuntimeError("timed out after %.1fs waiting for %s%s" % (timeout, what, ": %s" % last if last else ""))


def kill_pid(pid, sig=signal.SIGTERM):
    try:
        os.kill(pid, sig)
        return True
    except ProcessLookupError:
        return False


def stop_proc(proc, sig=signal.SIGTERM, timeout=10):
    """Signals a Popen by its pid and waits; SIGKILL after timeout. Returns the exit code."""
    if proc.poll() is None:
        kill_pid(proc.pid, sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            kill_pid(proc.pid, signal.SIGKILL)
            proc.wait(5)
    return proc.returncode


# ---- HTTP -------------------------------------------------------------------

class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        return json.loads(self.body.decode("utf-8"))

    def __repr__(self):
        return "<%d %r>" % (self.status, self.body[:200])


def request(method, port, path, body=None, headers=None, host="127.0.0.1", timeout=10):
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            headers = dict(headers or {}, **{"Content-Type": "application/json"})
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return Response(r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
    finally:
        conn.close()


def get(port, path, **kw):
    return request("GET", port, path, **kw)


# ---- PostgreSQL -------------------------------------------------------------

class Postgres:
    def __init__(self, logdir):
        self.bin = pg_bin()
        self.user = pwd.getpwnam("postgres")
        self.dir = tempfile.mkdtemp(prefix="mars-pg-")
        os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)
        self.data = os.path.join(self.dir, "data")
        self.port = None
        self.proc = None
        self.log = open(os.path.join(logdir, "postgres.log"), "wb")
        self.conns = {}  # database -> _PgWire
        self.lock = threading.Lock()

    def _as_postgres(self, args, **kw):
        return ["runuser", "-u", "postgres", "--"] + args

    def start(self):
        r = subprocess.run(self._as_postgres([os.path.join(self.bin, "initdb"), "-D", self.data, "-U", "postgres",
                                              "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"]),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=self.dir)
        if r.returncode != 0:
            raise RuntimeError("initdb failed: %s" % r.stdout.decode(errors="replace")[-2000:])
        self.port = free_port()
        self.proc = subprocess.Popen(
            self._as_postgres([os.path.join(self.bin, "postgres"), "-D", self.data, "-p", str(self.port),
                               "-k", self.dir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
                               "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]),
            stdout=self.log, stderr=subprocess.STDOUT, cwd=self.dir)
        def ready():
            if self.proc.poll() is not None:
                raise Fatal("postgres exited with %s" % self.proc.returncode)
            return self.psql("SELECT 1") == "1"
        wait_until(ready, 30, "PostgreSQL to accept connections",
                   interval=0.1)
        return self

    def dsn(self, db="postgres"):
        return "host=127.0.0.1 port=%d user=postgres dbname=%s" % (self.port, db)

    def psql(self, sql, db="postgres"):
        """What `psql -X -At -v ON_ERROR_STOP=1 -d DB -c SQL` prints (rows as
        a|b|c, NULL as nothing; the command tag of a statement without rows,
        and of INSERT/UPDATE/DELETE ... RETURNING after its rows), over one
        connection per database kept open (_PgWire): a psql process costs
        about 80 ms, which suites that poll the tasks table paid thousands of
        times. Raises RuntimeError with the server's message."""
        if self.proc is not None and self.proc.poll() is not None:
            raise RuntimeError("PostgreSQL exited with %s" % self.proc.returncode)
        with self.lock:
            for attempt in (0, 1):
                conn = self.conns.get(db)
                fresh = conn is None
                if fresh:
                    conn = self.conns[db] = _PgWire(self.port, db)
                try:
                    return conn.query(sql)
                except _PgGone:
                    # a connection kept from before a restart of the server:
                    # nothing was run, a new one runs the statement
                    conn.close()
                    del self.conns[db]
                    if fresh or attempt:
                        raise RuntimeError("psql %r: the connection to PostgreSQL closed" % sql)
                except (OSError, ValueError):
                    conn.close()
                    del self.conns[db]
                    raise

    def createdb(self, name):
        self.psql('CREATE DATABASE "%s"' % name)
        return self.dsn(name)

    def stop(self):
        with self.lock:
            for conn in self.conns.values():
                conn.close()
            self.conns.clear()
        if self.proc is not None and self.proc.poll() is None:
            # The postmaster's own pid (runuser forks it); SIGINT is a fast shutdown.
            pid = None
            try:
                with open(os.path.join(self.data, "postmaster.pid")) as f:
                    pid = int(f.readline())
            except (OSError, ValueError):
                pass
            if pid:
                kill_pid(pid, signal.SIGINT)
            stop_proc(self.proc, signal.SIGINT, timeout=15)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class _PgGone(Exception):
    """The server closed a connection before answering a statement."""


class _PgWire:
    """One connection speaking PostgreSQL's simple query protocol (version
    3.0; the harness's server trusts loopback, so no password exchange)."""

    def __init__(self, port, db, user="postgres"):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.f = self.sock.makefile("rb")
        body = struct.pack("!i", 196608) + b"user\0" + user.encode() + b"\0database\0" + \
            db.encode() + b"\0\0"
        try:
            self.sock.sendall(struct.pack("!i", len(body) + 4) + body)
            while True:
                t, data = self._message()
                if t == b"R" and struct.unpack("!i", data[:4])[0] != 0:
                    raise RuntimeError("PostgreSQL asks for a password (method %d); the harness's "
                                       "server trusts loopback" % struct.unpack("!i", data[:4])[0])
                if t == b"E":
                    raise RuntimeError("connecting to PostgreSQL: %s" % self._error(data))
                if t == b"Z":
                    break
        except BaseException:
            self.close()
            raise

    def _message(self):
        head = self.f.read(5)
        if len(head) < 5:
            raise _PgGone()
        n = struct.unpack("!i", head[1:])[0]
        data = self.f.read(n - 4)
        if len(data) < n - 4:
            raise OSError("PostgreSQL's connection closed in the middle of a message")
        return head[:1], data

    @staticmethod
    def _error(data):
        fields = {f[:1]: f[1:].decode(errors="replace") for f in data.split(b"\0") if f}
        return "%s:  %s" % (fields.get(b"S", "ERROR"), fields.get(b"M", "?"))

    def query(self, sql):
        q = sql.encode() + b"\0"
        try:
            self.sock.sendall(b"Q" + struct.pack("!i", len(q) + 4) + q)
        except (BrokenPipeError, ConnectionResetError):
            raise _PgGone()
        out, err, rows, first = [], None, None, True
        while True:
            try:
                t, data = self._message()
            except ConnectionResetError:
                t = None
            if t is None:
                if first:
                    raise _PgGone()
                raise OSError("PostgreSQL's connection closed during %r" % sql)
            first = False
            if t == b"T":  # a statement with rows
                rows = []
            elif t == b"D":
                vals, pos = [], 2
                for _ in range(struct.unpack("!h", data[:2])[0]):
                    ln = struct.unpack("!i", data[pos:pos + 4])[0]
                    pos += 4
                    vals.append("" if ln < 0 else data[pos:pos + ln].decode(errors="replace"))
                    pos += max(ln, 0)
                rows.append("|".join(vals))
            elif t == b"C":
                tag = data.rstrip(b"\0").decode()
                if rows is not None:
                    out += rows
                    if tag.split(" ")[0] in ("INSERT", "UPDATE", "DELETE", "MERGE"):
                        out.append(tag)
                else:
                    out.append(tag)
                rows = None
            elif t == b"E":
                err = self._error(data)
            elif t == b"Z":
                break
            # I (an empty statement), N (a notice), S (a parameter): nothing printed
        if err:
            raise RuntimeError("psql %r: %s" % (sql, err))
        return "\n".join(out).strip()

    def close(self):
        try:
            self.f.close()
            self.sock.close()
        except OSError:
            pass


# ---- Redis ------------------------------------------------------------------

class Redis:
    def __init__(self, logdir):
        self.dir = tempfile.mkdtemp(prefix="mars-redis-")
        self.port = None
        self.proc = None
        self.log = open(os.path.join(logdir, "redis.log"), "wb")

    def start(self):
        self.port = free_port()
        self.proc = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                                      "--save", "", "--appendonly", "no", "--dir", self.dir,
                                      "--daemonize", "no"],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        wait_until(lambda: self.command("PING") == "PONG", 15, "Redis to answer PING")
        return self

    def url(self):
        return "redis://127.0.0.1:%d/0" % self.port

    def command(self, *args):
        """One command over RESP; returns a str, int, list or None."""
        if self.proc.poll() is not None:
            raise RuntimeError("redis-server exited with %s" % self.proc.returncode)
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            out = b"*%d\r\n" % len(args)
            for a in args:
                a = a.encode() if isinstance(a, str) else a
                out += b"$%d\r\n%s\r\n" % (len(a), a)
            s.sendall(out)
            f = s.makefile("rb")
            return _resp(f)

    def stop(self):
        if self.proc is not None:
            stop_proc(self.proc)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _resp(f, raw=False):
    """One RESP reply from file f; bulk strings as str, or as bytes when raw."""
    line = f.readline().rstrip(b"\r\n")
    t, rest = line[:1], line[1:]
    if t == b"+":
        return rest.decode()
    if t == b"-":
        raise RuntimeError(rest.decode())
    if t == b":":
        return int(rest)
    if t == b"$":
        n = int(rest)
        if n < 0:
            return None
        data = f.read(n + 2)[:-2]
        return data if raw else data.decode(errors="replace")
    if t == b"*":
        n = int(rest)
        return None if n < 0 else [_resp(f, raw) for _ in range(n)]
    raise RuntimeError("bad RESP line %r" % line)


# ---- services ---------------------------------------------------------------

class Service:
    """One mars-* process; output goes to a log file in the cluster's log dir."""

    def __init__(self, cluster, name, program, args, env=None):
        self.name = name
        self.program = program
        self.args = [str(a) for a in args]
        self.logpath = os.path.join(cluster.logdir, "%s.log" % name)
        self.log = open(self.logpath, "wb")
        self.proc = subprocess.Popen([os.path.join(BIN_DIR, program)] + self.args, stdout=self.log,
                                     stderr=subprocess.STDOUT, env=service_env(env), cwd=REPO)

    def alive(self):
        return self.proc.poll() is None

    def wait_health(self, port, timeout=20):
        def ok():
            if not self.alive():
                raise Fatal("%s exited with %s: %s" % (self.name, self.proc.returncode, self.tail()))
            return get(port, "/health", timeout=2).status == 200
        try:
            wait_until(ok, timeout, "%s /health on port %d" % (self.name, port))
        except (Fatal, RuntimeError) as e:
            if self.alive():
                raise RuntimeError("%s; log: %s" % (e, self.tail()))
            raise
        return self

    def stop(self, sig=signal.SIGTERM):
        rc = stop_proc(self.proc, sig)
        self.log.close()
        return rc

    def tail(self, n=2000):
        if not self.log.closed:
            self.log.flush()
        try:
            with open(self.logpath, "rb") as f:
                return f.read().decode(errors="replace")[-n:]
        except OSError:
            return ""


class Cluster:
    """PostgreSQL, Redis and any number of services, all stopped at exit."""

    def __init__(self):
        self.logdir = tempfile.mkdtemp(prefix="mars-it-")
        self.pg = Postgres(self.logdir)
        self.redis = Redis(self.logdir)
        self.services = []
        self._stopped = False
        atexit.register(self.stop)

    def __enter__(self):
        try:
            self.pg.start()
            self.redis.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self, name, program, args, env=None):
        s = Service(self, name, program, args, env)
        self.services.append(s)
        return s

    def stop(self):
        if self._stopped:
            return
        self._stopped = True
        for s in reversed(self.services):
            if s.alive():
                s.stop()
        self.redis.stop()
        self.pg.stop()
        if os.environ.get("MARS_KEEP_LOGS"):
            sys.stderr.write("logs kept in %s\n" % self.logdir)
        else:
            shutil.rmtree(self.logdir, ignore_errors=True)


def run_program(program, args, timeout=10, env=None):
    """Runs a mars-* binary to completion: (exit code, stdout, stderr)."""
    r = subprocess.run([os.path.join(BIN_DIR, program)] + [str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout, env=service_env(env), cwd=REPO)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


# ---- Prometheus text exposition (format 0.0.4) ------------------------------

_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
_SAMPLE = re.compile(r"^(%s)(\{(?:%s(?:,%s)*)?,?\})? (\S+)(?: (-?\d+))?$" % (_NAME, _LABEL, _LABEL))
_VALUE = re.compile(r"^(?:[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|NaN|[+-]Inf)$")


def parse_prometheus(text):
    """Parses and checks an exposition. Returns {family: {"type", "help",
    "samples": [(name, {labels}, value)]}}; raises ValueError naming the
    offending line."""
    fams = {}
    seen_samples = set()
    if text and not text.endswith("\n"):
        raise ValueError("exposition does not end with a newline")
    for i, line in enumerate(text.split("\n")[:-1], 1):
        if line == "":
            continue
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                name = parts[2]
                if not re.fullmatch(_NAME, name):
                    raise ValueError("line %d: bad metric name %r" % (i, name))
                f = fams.setdefault(name, {"type": None, "help": None, "samples": []})
                if parts[1] == "TYPE":
                    t = parts[3] if len(parts) > 3 else ""
                    if t not in ("counter", "gauge", "histogram", "summary", "untyped"):
                        raise ValueError("line %d: bad type %r" % (i, t))
                    if f["type"] is not None or f["samples"]:
                        raise ValueError("line %d: TYPE of %s repeated or after its samples" % (i, name))
                    f["type"] = t
                else:
                    if f["help"] is not None:
                        raise ValueError("line %d: HELP of %s repeated" % (i, name))
                    f["help"] = parts[3] if len(parts) > 3 else ""
            continue
        m = _SAMPLE.match(line)
        if not m or not _VALUE.match(m.group(3)):
            raise ValueError("line %d: not a sample: %r" % (i, line))
        name, labels_s, value = m.group(1), m.group(2) or "", m.group(3)
        labels = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', labels_s))
        key = (name, tuple(sorted(labels.items())))
        if key in seen_samples:
            raise ValueError("line %d: duplicate sample %r" % (i, line))
        seen_samples.add(key)
        fam = name
        for suffix in ("_bucket", "_sum", "_count"):
            if name.endswith(suffix) and name[: -len(suffix)] in fams and fams[name[: -len(suffix)]]["type"] == "histogram":
                fam = name[: -len(suffix)]
        if fam not in fams:
            fams[fam] = {"type": None, "help": None, "samples": []}
        fams[fam]["samples"].append((name, labels, float(value.replace("Inf", "inf"))))
    for name, f in fams.items():
        if f["type"] == "counter":
            for s in f["samples"]:
                if s[2] < 0:
                    raise ValueError("counter %s is negative" % name)
        if f["type"] == "histogram":
            series = {}
            for n, labels, v in f["samples"]:
                base = tuple(sorted((k, x) for k, x in labels.items() if k != "le"))
                series.setdefault(base, {"buckets": [], "count": None})
                if n == name + "_bucket":
                    series[base]["buckets"].append((float(labels["le"].replace("Inf", "inf")), v))
                elif n == name + "_count":
                    series[base]["count"] = v
            for base, s in series.items():
                b = s["buckets"]
                if not b or b[-1][0] != float("inf"):
                    raise ValueError("histogram %s%s has no +Inf bucket" % (name, base))
                if any(b[k][1] > b[k + 1][1] or b[k][0] >= b[k + 1][0] for k in range(len(b) - 1)):
                    raise ValueError("histogram %s%s buckets are not cumulative" % (name, base))
                if s["count"] != b[-1][1]:
                    raise ValueError("histogram %s%s: _count %s != +Inf bucket %s" % (name, base, s["count"], b[-1][1]))
    return fams


# ---- running cases ----------------------------------------------------------

class Runner:
    """Runs named cases, printing `ok NAME` or `FAIL NAME: reason`, then the
    one summary line tests/run.sh reads."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def case(self, name, fn, *args):
        try:
            fn(*args)
        except Exception as e:  # noqa: BLE001 - every failure is reported, none stops the suite
            self.failed += 1
            msg = ("%s: %s" % (type(e).__name__, e)).replace("\n", " | ")
            print("FAIL %s: %s" % (name, msg[:2000]), flush=True)
            return False
        self.passed += 1
        print("ok %s" % name, flush=True)
        return True

    def fail(self, name, reason):
        self.failed += 1
        print("FAIL %s: %s" % (name, reason), flush=True)

    def finish(self):
        print("RESULT passed=%d failed=%d" % (self.passed, self.failed), flush=True)
        return 0 if self.failed == 0 else 1


def check(cond, msg, *args):
    if not cond:
        raise AssertionError(msg % args if args else msg)
