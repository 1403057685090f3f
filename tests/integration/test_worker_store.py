"""The worker's data plane against a real PostgreSQL, Redis and supervisor
(issue 11, docs/data-plane.md): --help text, spill directories (stale ones
of dead workers removed at start, the worker's own removed at a clean
stop), the effective memory limit (--phy-mem, or the host share), the chunk
route's answers and its token, and the drain of mars:free:<worker id>.
Running tasks over the store is the dispatcher's part (its own suites).

Run with Debian's python: /usr/bin/python3 tests/integration/test_worker_store.py [CASE...]
(MARS_BIN_DIR=build/san/bin runs it over the sanitized programs;
MARS_KEEP_LOGS=1 keeps the services' logs.)
"""

import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (Cluster, Runner, check, free_port, get, parse_prometheus,  # noqa: E402
                     request, run_program, wait_until)

TOKEN = "worker-store-token-0123456789"
GiB = 1 << 30


def dead_pid():
    """A pid that no longer exists (a child that has exited and been reaped)."""
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def metric(port, name, headers=None):
    r = get(port, "/metrics", headers=headers or {})
    check(r.status == 200, "/metrics: %r", r)
    fams = parse_prometheus(r.body.decode())
    check(name in fams and fams[name]["samples"], "no %s in /metrics", name)
    return fams[name]["samples"][0][2]


def host_total():
    """procstat_mem_total: MemTotal, or the cgroup v2 limit when lower."""
    with open("/proc/meminfo") as f:
        total = next(int(l.split()[1]) * 1024 for l in f if l.startswith("MemTotal:"))
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            v = f.read().strip()
            if v.isdigit() and 0 < int(v) < total:
                total = int(v)
    except OSError:
        pass
    return total


class Suite:
    def __init__(self, c):
        self.c = c
        self.tmp = tempfile.mkdtemp(prefix="mars-ws-", dir=c.logdir)
        self.port = free_port()
        self.sup = c.start("supervisor", "mars-supervisor", ["-H", "127.0.0.1", "-p", self.port],
                           env={"MARS_PG_DSN": c.pg.dsn(), "MARS_REDIS_URL": c.redis.url()})
        self.sup.wait_health(self.port)
        self.d1 = os.path.join(self.tmp, "spill1")
        self.d2 = os.path.join(self.tmp, "spill2")
        os.makedirs(self.d1)
        # A dead worker's leftovers, and a directory that is none of ours.
        self.stale = os.path.join(self.d1, "mars-worker-%d" % dead_pid())
        os.makedirs(self.stale)
        with open(os.path.join(self.stale, "1-7.chunk"), "wb") as f:
            f.write(b"x" * 1000)
        self.other = os.path.join(self.d1, "keep-me")
        os.makedirs(self.other)
        self.wtmp = os.path.join(self.tmp, "wtmp")  # TMPDIR: the worker registrations
        os.makedirs(self.wtmp)
        self.wport = free_port()
        self.worker = c.start("worker", "mars-worker",
                              ["-H", "127.0.0.1", "-p", self.wport, "-s", "127.0.0.1:%d" % self.port,
                               "--spill-dirs", "%s:%s" % (self.d1, self.d2), "--cache-mem", "64m",
                               "--phy-mem", "1g", "--n-io-process", "2"],
                              env={"TMPDIR": self.wtmp})
        self.worker.wait_health(self.wport)
        self.wid = self.worker_id(self.wport)

    def worker_id(self, port):
        def find():
            for key in self.c.redis.command("KEYS", "mars:worker:*") or []:
                key = key.decode() if isinstance(key, bytes) else key
                if key.endswith(":history"):
                    continue
                addr = self.c.redis.command("HGET", key, "address")
                addr = addr.decode() if isinstance(addr, bytes) else addr
                if addr == "127.0.0.1:%d" % port:
                    return key[len("mars:worker:"):]
            return None
        return wait_until(find, 10, "the worker's Redis report")

    # ---- cases ----

    def help_text(self):
        rc, out, err = run_program("mars-worker", ["--help"])
        text = out + err
        check(rc == 0, "rc %r: %s", rc, text)
        for word in ["--spill-dirs", "mars-worker-PID", "--cache-mem", "--phy-mem", "75%", "90%",
                     "host", "--n-io-process", "chunk transfers"]:
            check(word in text, "--help lacks %r: %s", word, text)
        check("not implemented" not in text and "not enforced" not in text and "not yet used" not in text,
              "--help still says the options are not real: %s", text)

    def stale_spill_dir_removed(self):
        check(not os.path.exists(self.stale), "stale %s still there", self.stale)
        check(os.path.isdir(self.other), "%s was removed", self.other)
        for d in (self.d1, self.d2):
            own = os.path.join(d, "mars-worker-%d" % self.worker.proc.pid)
            check(os.path.isdir(own), "no %s", own)
            check(os.path.isfile(os.path.join(own, "owner")), "no owner file in %s", own)

    def memory_limit_reported(self):
        check(metric(self.wport, "mars_worker_memory_limit_bytes") == GiB, "metric limit")
        check(metric(self.wport, "mars_store_memory_bytes") == 0, "store memory")
        lim = self.c.redis.command("HGET", "mars:worker:" + self.wid, "memory_limit")
        check(int(lim) == GiB, "Redis memory_limit %r", lim)
        row = self.c.pg.psql("SELECT memory_limit, cache_limit FROM workers WHERE id = '%s'" % self.wid)
        check(row.replace(" ", "") == "%d|%d" % (GiB, 64 << 20), "workers row %r", row)

    def chunk_route(self):
        r = get(self.wport, "/api/v1/chunks/chunk:nope:0")
        check(r.status == 404, "%r", r)
        check(r.json()["error"]["code"] == "not_found", "%r", r.json())
        check("chunk:nope:0" in r.json()["error"]["message"], "%r", r.json())
        for q in ["offset=-1", "ofset=1", "offset=1&box=0:1&shape=1&itemsize=1",
                  "shape=2&itemsize=1&box=0:3", "offset=99999999999999999999999"]:
            r = get(self.wport, "/api/v1/chunks/chunk:nope:0?" + q)
            check(r.status == 400 and r.json()["error"]["code"] == "bad_request", "%s: %r", q, r)

    def free_list_drained(self):
        key = "mars:free:" + self.wid
        self.c.redis.command("RPUSH", key, "chunk:a:1", "chunk:a:2", "chunk:a:3")
        wait_until(lambda: int(self.c.redis.command("LLEN", key)) == 0, 10, "the free list drained")
        wait_until(lambda: metric(self.wport, "mars_chunks_freed_total") >= 3, 5, "3 frees counted")

    def host_share(self):
        # A second worker without --phy-mem, beside a registration of a
        # live process (this test) and one of a dead pid: the host's memory
        # over two workers.
        reg = os.path.join(self.wtmp, "share", "mars-workers-%d" % os.getuid())
        os.makedirs(reg)
        with open(os.path.join(reg, str(os.getpid())), "w") as f:
            f.write("")
        gone = dead_pid()
        with open(os.path.join(reg, str(gone)), "w") as f:
            f.write("1\n")
        port = free_port()
        w = self.c.start("worker2", "mars-worker", ["-H", "127.0.0.1", "-p", port, "-s", "127.0.0.1:%d" % self.port],
                         env={"TMPDIR": os.path.join(self.wtmp, "share")})
        w.wait_health(port)
        want = host_total() // 2
        got = metric(port, "mars_worker_memory_limit_bytes")
        check(got == want, "host share %r, expected %r", got, want)
        check(not os.path.exists(os.path.join(reg, str(gone))), "the dead pid's registration is still there")
        check(os.path.exists(os.path.join(reg, str(w.proc.pid))), "no registration of worker2")
        # The default spill directory under TMPDIR.
        own = os.path.join(self.wtmp, "share", "mars-spill", "mars-worker-%d" % w.proc.pid)
        check(os.path.isdir(own), "no default spill dir %s", own)
        # Our registration goes: the share grows back within a few seconds.
        os.unlink(os.path.join(reg, str(os.getpid())))
        wait_until(lambda: metric(port, "mars_worker_memory_limit_bytes") == host_total(), 10,
                   "the share back to the whole host")
        rc = w.stop()
        check(rc == 0, "worker2 exit %r: %s", rc, w.tail())
        check(not os.path.exists(own), "%s left behind", own)
        check(not os.path.exists(os.path.join(reg, str(w.proc.pid))), "registration left behind")

    def token(self):
        tport, twport = free_port(), free_port()
        env = {"MARS_PG_DSN": self.c.pg.dsn(), "MARS_REDIS_URL": self.c.redis.url(), "MARS_TOKEN": TOKEN}
        tsup = self.c.start("tsupervisor", "mars-supervisor", ["-H", "127.0.0.1", "-p", tport], env=env)
        tsup.wait_health(tport)
        tw = self.c.start("tworker", "mars-worker", ["-H", "127.0.0.1", "-p", twport, "-s", "127.0.0.1:%d" % tport,
                                                    "--phy-mem", "1g"],
                          env={"MARS_TOKEN": TOKEN, "TMPDIR": self.wtmp})
        tw.wait_health(twport)
        r = get(twport, "/api/v1/chunks/chunk:x:0")
        check(r.status == 401, "no token: %r", r)
        r = get(twport, "/api/v1/chunks/chunk:x:0", headers={"Authorization": "Bearer wrong"})
        check(r.status == 401, "wrong token: %r", r)
        r = get(twport, "/api/v1/chunks/chunk:x:0", headers={"Authorization": "Bearer " + TOKEN})
        check(r.status == 404, "with the token: %r", r)
        check(get(twport, "/health").status == 200, "/health needs no token")
        check(tw.stop() == 0, "tworker exit: %s", tw.tail())
        check(tsup.stop() == 0, "tsupervisor exit: %s", tsup.tail())

    def clean_stop(self):
        pid = self.worker.proc.pid
        own = [os.path.join(d, "mars-worker-%d" % pid) for d in (self.d1, self.d2)]
        check(all(os.path.isdir(d) for d in own), "spill dirs missing before the stop")
        rc = self.worker.stop(signal.SIGTERM)
        check(rc == 0, "worker exit %r: %s", rc, self.worker.tail())
        for d in own:
            check(not os.path.exists(d), "%s left behind after SIGTERM", d)
        reg = os.path.join(self.wtmp, "mars-workers-%d" % os.getuid(), str(pid))
        check(not os.path.exists(reg), "registration %s left behind", reg)
        check(os.path.isdir(self.other), "%s was removed", self.other)


CASES = ["help_text", "stale_spill_dir_removed", "memory_limit_reported", "chunk_route", "free_list_drained",
         "host_share", "token", "clean_stop"]


def main():
    run = Runner()
    wanted = sys.argv[1:] or CASES
    try:
        with Cluster() as c:
            try:
                s = Suite(c)
            except Exception as e:  # noqa: BLE001
                run.fail("cluster_start", str(e).replace("\n", " | ")[:2000])
                return run.finish()
            for name in CASES:
                if name in wanted:
                    run.case(name, getattr(s, name))
    except Exception as e:  # noqa: BLE001 - PostgreSQL or Redis did not start
        run.fail("infrastructure", str(e).replace("\n", " | ")[:2000])
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
