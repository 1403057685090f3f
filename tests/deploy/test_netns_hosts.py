"""Several hosts, simulated with network namespaces (issue 16): three
"hosts" on one bridge, each its own network namespace joined by a veth
pair. Host A runs PostgreSQL, Redis and a supervisor (REST API on A's
address, with a token); hosts B and C run one worker each, bound to their
own addresses. Tasks run across them: W1 (ones 2000 x 2000 in chunks of
200, inner) and a groupby. Then C's link is cut in the middle of a task:
the task finishes, exact, on B. Then C's link comes back and C takes work
again.

Needs root and `ip netns` (iproute2). A machine without them gets one line
saying so, and nothing is counted as passed.

The addresses are the test's own, on a bridge it makes and removes:
10.231.7.0/24 (bridge .1, A .10, B .11, C .12). Nothing else is contacted.

Run: /usr/bin/python3 tests/deploy/test_netns_hosts.py   (about a minute)
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "integration"))
import harness  # noqa: E402
from harness import BIN_DIR, MIGRATIONS, Runner, check, wait_until  # noqa: E402

SUITE = "tests/deploy/test_netns_hosts"
TAG = "m%d" % (os.getpid() % 100000)  # names unique to this run
BRIDGE = "%sbr" % TAG
NET = "10.231.7"
HOSTS = {"A": NET + ".10", "B": NET + ".11", "C": NET + ".12"}
TOKEN = "netns-test-token-91c3"
WEB, SUP, WPORT = 7005, 7103, 7200


def sh(*args, check_rc=True, timeout=30):
    r = subprocess.run([str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    if check_rc and r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(map(str, args)), r.returncode,
                                                r.stderr.decode(errors="replace").strip()))
    return r


class Hosts:
    """The bridge, the namespaces and their veth pairs; the processes run
    in them. Everything is removed by stop(), also after a failure."""

    def __init__(self):
        self.logdir = tempfile.mkdtemp(prefix="mars-netns-")
        self.procs = []
        self.made_ns = []
        self.made_bridge = False

    def ns(self, h):
        return "%s%s" % (TAG, h)

    def veth(self, h):
        return "%s%s" % (TAG, h.lower()), "%s%sp" % (TAG, h.lower())  # inside, bridge side

    def setup(self):
        sh("ip", "link", "add", BRIDGE, "type", "bridge")
        self.made_bridge = True
        sh("ip", "addr", "add", NET + ".1/24", "dev", BRIDGE)
        sh("ip", "link", "set", BRIDGE, "up")
        for h, addr in HOSTS.items():
            ns = self.ns(h)
            inner, outer = self.veth(h)
            sh("ip", "netns", "add", ns)
            self.made_ns.append(ns)
            sh("ip", "link", "add", inner, "type", "veth", "peer", "name", outer)
            sh("ip", "link", "set", inner, "netns", ns)
            sh("ip", "link", "set", outer, "master", BRIDGE, "up")
            sh("ip", "netns", "exec", ns, "ip", "addr", "add", addr + "/24", "dev", inner)
            sh("ip", "netns", "exec", ns, "ip", "link", "set", inner, "up")
            sh("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")

    def run(self, h, name, argv, env=None, user=None):
        cmd = ["ip", "netns", "exec", self.ns(h)]
        if user:
            cmd += ["runuser", "-u", user, "--"]
        cmd += [str(a) for a in argv]
        log = open(os.path.join(self.logdir, name + ".log"), "wb")
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=harness.service_env(env),
                             start_new_session=True)
        p.name = name
        self.procs.append(p)
        return p

    def tail(self, name, n=1500):
        try:
            return open(os.path.join(self.logdir, name + ".log"), "rb").read()[-n:].decode(errors="replace")
        except OSError:
            return ""

    def link(self, h, up):
        # the host's cable: the bridge side of its veth pair
        sh("ip", "link", "set", self.veth(h)[1], "up" if up else "down")

    def stop(self):
        for p in reversed(self.procs):
            harness.stop_proc(p)
        for ns in self.made_ns:
            sh("ip", "netns", "del", ns, check_rc=False)
        if self.made_bridge:
            sh("ip", "link", "del", BRIDGE, check_rc=False)
        if os.environ.get("MARS_KEEP_LOGS"):
            sys.stderr.write("logs kept in %s\n" % self.logdir)
        else:
            shutil.rmtree(self.logdir, ignore_errors=True)


class Api:
    def __init__(self, host, port, token):
        self.host, self.port, self.token = host, port, token

    def __call__(self, method, path, body=None, timeout=30, token="default"):
        t = self.token if token == "default" else token
        return harness.request(method, self.port, path, body=body, host=self.host, timeout=timeout,
                               headers={"Authorization": "Bearer " + t} if t else {})

    def workers(self):
        r = self("GET", "/api/v1/workers")
        check(r.status == 200, "workers: %r", r)
        return {w["address"]: w for w in r.json()["workers"]}

    def submit(self, doc):
        r = self("POST", "/api/v1/sessions")
        check(r.status == 201, "session: %r", r)
        sid = r.json()["session_id"]
        r = self("POST", "/api/v1/sessions/%s/tasks" % sid, body=doc)
        check(r.status == 202, "submit: %r", r)
        return sid, r.json()["task_id"]

    def wait(self, sid, tid, timeout=240):
        def done():
            t = self("GET", "/api/v1/sessions/%s/tasks/%s?wait=10" % (sid, tid), timeout=40).json()
            return t if t["status"] in ("succeeded", "failed", "cancelled") else None
        return wait_until(done, timeout, "task %s" % tid, interval=0.1)

    def chunks_by_worker(self, sid, tid):
        r = self("GET", "/api/v1/sessions/%s/tasks/%s/chunks" % (sid, tid))
        check(r.status == 200, "chunks: %r", r)
        out = {}
        for c in r.json()["chunks"]:
            out[c.get("address")] = out.get(c.get("address"), 0) + 1
        return out

    def json_data(self, sid, key):
        r = self("GET", "/api/v1/sessions/%s/tensors/%s/data?format=json" % (sid, key), timeout=120)
        check(r.status == 200, "fetch %s: %r", key, r)
        return r.json()

    def npy(self, sid, key, logdir):
        r = self("GET", "/api/v1/sessions/%s/tensors/%s/data?format=npy" % (sid, key), timeout=120)
        check(r.status == 200, "fetch %s: %r", key, r)
        path = os.path.join(logdir, key + ".npy")
        open(path, "wb").write(r.body)
        return np.load(path)


W1 = {"version": 1, "nodes": [
    {"key": "a", "op": "ones", "shape": [2000, 2000], "chunk_size": 200},
    {"key": "b", "op": "inner", "inputs": ["a", "a"]}], "fetch": ["b"]}

GROUPBY = {"version": 1, "nodes": [
    {"key": "r", "op": "arange", "stop": 400000, "dtype": "int64", "chunk_size": 40000},
    {"key": "a", "op": "reshape", "inputs": ["r"], "newshape": [200000, 2]},
    {"key": "m", "op": "mod", "inputs": ["a", 7]},
    {"key": "df", "op": "dataframe.from_tensor", "inputs": ["m"], "columns": ["k", "v"], "chunk_rows": 20000},
    {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["df"], "by": ["k"],
     "agg": {"s": ["v", "sum"], "n": ["v", "count"]}}], "fetch": ["g"]}

# long enough on one core per worker to cut a link in its middle: the
# test sees C running a job through its heartbeats, so the task must last
# several of them (3000 was over within one on an AVX-512 machine, and C
# never showed a running job)
LONG_N = 4800
LONG = {"version": 1, "nodes": [
    {"key": "a", "op": "ones", "shape": [LONG_N, LONG_N], "chunk_size": 300},
    {"key": "b", "op": "dot", "inputs": ["a", "a"]},
    {"key": "c", "op": "sum", "inputs": ["b"], "axis": 0}], "fetch": ["c"]}


def requeued(api):
    """mars_jobs_requeued_total of host A's supervisor (its service port)."""
    r = harness.request("GET", SUP, "/metrics", host=HOSTS["A"], headers={"Authorization": "Bearer " + TOKEN})
    check(r.status == 200, "supervisor /metrics: %r", r)
    fams = harness.parse_prometheus(r.body.decode())
    fam = fams.get("mars_jobs_requeued_total")
    return sum(smp[2] for smp in fam["samples"]) if fam else 0


def check_groupby(api, sid):
    import pandas as pd
    a = np.arange(400000, dtype=np.int64).reshape(200000, 2) % 7
    want = pd.DataFrame(a, columns=["k", "v"]).groupby("k").agg(s=("v", "sum"), n=("v", "count"))
    got = api.json_data(sid, "g")
    check(list(got["columns"]) == ["s", "n"], "groupby columns %s", got["columns"])
    check([int(i) for i in got["index"]] == list(want.index), "groupby index %s", got["index"])
    check([[int(x) for x in row] for row in got["data"]] == want.values.tolist(), "groupby %s, pandas %s",
          got["data"], want.values.tolist())


def start_a(hosts):
    pg_dir = os.path.join(hosts.logdir, "pg")
    os.makedirs(pg_dir)
    shutil.chown(pg_dir, "postgres", "postgres")
    os.chmod(hosts.logdir, 0o755)
    pgbin = harness.pg_bin()
    sh("runuser", "-u", "postgres", "--", os.path.join(pgbin, "initdb"), "-D", pg_dir, "-A", "trust", "-U",
       "postgres", "--no-sync", "-E", "UTF8", "--no-locale", timeout=120)
    with open(os.path.join(pg_dir, "pg_hba.conf"), "a") as f:
        f.write("host all all %s.0/24 trust\n" % NET)
    hosts.run("A", "postgres", [os.path.join(pgbin, "postgres"), "-D", pg_dir, "-k", pg_dir, "-c",
                                "listen_addresses=%s" % HOSTS["A"], "-p", "5432", "-c", "fsync=off"],
              user="postgres")
    hosts.run("A", "redis", ["redis-server", "--bind", HOSTS["A"], "--port", "6379", "--save", "",
                             "--appendonly", "no", "--protected-mode", "no", "--dir", hosts.logdir])
    hosts.run("A", "supervisor", [os.path.join(BIN_DIR, "mars-supervisor"), "-H", HOSTS["A"], "-p", SUP,
                                  "-w", WEB, "--worker-timeout", "3",
                                  "--pg-dsn", "host=%s port=5432 user=postgres dbname=postgres" % HOSTS["A"],
                                  "--redis-url", "redis://%s:6379/0" % HOSTS["A"],
                                  "--migrations-dir", MIGRATIONS], env={"MARS_TOKEN": TOKEN})


def start_worker(hosts, h):
    hosts.run(h, "worker" + h, [os.path.join(BIN_DIR, "mars-worker"), "-H", HOSTS[h], "-p", WPORT,
                                "-s", "%s:%d" % (HOSTS["A"], SUP), "--n-cpu", "1", "--phy-mem", "2g",
                                "--cache-mem", "512m", "--spill-dirs", hosts.logdir],
              env={"MARS_TOKEN": TOKEN})


# ---- cases --------------------------------------------------------------------------

def case_three_hosts_up(st):
    hosts, api = st["hosts"], st["api"]
    hosts.setup()
    start_a(hosts)
    wait_until(lambda: api("GET", "/health", token=None).status == 200, 90, "host A's REST API",
               interval=0.3)
    check(api("GET", "/api/v1/sessions", token=None).status == 401, "host A's API open without the token")
    for h in ("B", "C"):
        start_worker(hosts, h)
    ws = wait_until(lambda: (lambda w: w if all(w.get("%s:%d" % (HOSTS[h], WPORT), {}).get("status") == "alive"
                                                 for h in ("B", "C")) else None)(api.workers()),
                    60, "workers on B and C alive")
    for h in ("B", "C"):
        w = ws["%s:%d" % (HOSTS[h], WPORT)]
        check(w["n_cpu"] == 1, "worker %s n_cpu %s", h, w["n_cpu"])
    # each worker listens on its own host's address only
    for h in ("B", "C"):
        r = sh("ip", "netns", "exec", hosts.ns(h), "ss", "-ltnH", check_rc=False).stdout.decode()
        check("%s:%d" % (HOSTS[h], WPORT) in r, "worker %s not bound to %s:%d: %s", h, HOSTS[h], WPORT, r)


def case_w1_across_hosts(st):
    api = st["api"]
    sid, tid = api.submit(W1)
    t = api.wait(sid, tid)
    check(t["status"] == "succeeded", "W1: %s", t)
    b = api.npy(sid, "b", st["hosts"].logdir)
    check(np.array_equal(b, np.full((2000, 2000), 2000.0)), "W1 b differs from numpy (%r)", b.ravel()[:3])
    used = api.chunks_by_worker(sid, tid)
    for h in ("B", "C"):
        check(used.get("%s:%d" % (HOSTS[h], WPORT)), "no W1 job ran on host %s: %s", h, used)


def case_groupby_across_hosts(st):
    api = st["api"]
    sid, tid = api.submit(GROUPBY)
    t = api.wait(sid, tid)
    check(t["status"] == "succeeded", "groupby: %s", t)
    check_groupby(api, sid)


def case_cut_c_mid_task(st):
    hosts, api = st["hosts"], st["api"]
    c_addr = "%s:%d" % (HOSTS["C"], WPORT)
    before = requeued(api)
    sid, tid = api.submit(LONG)
    wait_until(lambda: api.workers()[c_addr]["chunks_running"] > 0, 60, "host C running a job", interval=0.05)
    t_cut = time.monotonic()
    hosts.link("C", False)
    st["cut"] = True
    t = api.wait(sid, tid, 300)
    check(t["status"] == "succeeded", "task after C's link was cut: %s", t)
    c = api.npy(sid, "c", hosts.logdir)
    check(np.array_equal(c, np.full(LONG_N, float(LONG_N) * LONG_N)), "after the cut: %r", c[:4])
    w = api.workers()[c_addr]
    check(w["status"] != "alive", "C still alive with its link down: %s", w)
    check(requeued(api) > before, "C's job was not requeued (mars_jobs_requeued_total %s)", requeued(api))
    # what ran after the cut ran on B
    r = api("GET", "/api/v1/sessions/%s/tasks/%s/chunks?limit=20000" % (sid, tid)).json()
    check(any(ch.get("address") == "%s:%d" % (HOSTS["B"], WPORT) for ch in r["chunks"]), "nothing ran on B")
    print("# task finished %.1f s after C's link was cut" % (time.monotonic() - t_cut), flush=True)


def case_c_comes_back(st):
    hosts, api = st["hosts"], st["api"]
    c_addr = "%s:%d" % (HOSTS["C"], WPORT)
    hosts.link("C", True)
    st["cut"] = False
    wait_until(lambda: any(w["status"] == "alive" and w["address"] == c_addr for w in api.workers().values()),
               90, "host C alive again")
    sid, tid = api.submit(W1)
    t = api.wait(sid, tid)
    check(t["status"] == "succeeded", "W1 after C came back: %s", t)
    b = api.npy(sid, "b", hosts.logdir)
    check(np.array_equal(b, np.full((2000, 2000), 2000.0)), "W1 after C came back differs")
    used = api.chunks_by_worker(sid, tid)
    check(used.get(c_addr), "host C took no work after it came back: %s", used)


def can_run():
    if os.geteuid() != 0:
        return "needs root (ip netns, veth, bridge)"
    if shutil.which("ip") is None:
        return "ip (iproute2) is not installed"
    for prog in ("mars-supervisor", "mars-worker"):
        if not os.access(os.path.join(BIN_DIR, prog), os.X_OK):
            return None  # a failure, not a skip: the first case reports it
    probe = "%sprobe" % TAG
    r = subprocess.run(["ip", "netns", "add", probe], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        return "`ip netns add` is refused here: %s" % r.stderr.decode(errors="replace").strip()
    subprocess.run(["ip", "netns", "del", probe])
    r = subprocess.run(["ip", "link", "add", probe, "type", "bridge"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        return "a bridge cannot be made here: %s" % r.stderr.decode(errors="replace").strip()
    subprocess.run(["ip", "link", "del", probe])
    return None


def main():
    why = can_run()
    if why:
        print("%s: cannot run here: %s; nothing counted as passed" % (SUITE, why), flush=True)
        print("RESULT passed=0 failed=0", flush=True)
        return 0
    hosts = Hosts()
    st = {"hosts": hosts, "api": Api(HOSTS["A"], WEB, TOKEN)}
    run = Runner()
    try:
        if run.case("three_hosts_up", case_three_hosts_up, st):
            run.case("w1_across_hosts", case_w1_across_hosts, st)
            run.case("groupby_across_hosts", case_groupby_across_hosts, st)
            if run.case("cut_c_mid_task", case_cut_c_mid_task, st):
                run.case("c_comes_back", case_c_comes_back, st)
            else:
                run.fail("c_comes_back", "not run: the cut did not go as planned")
        else:
            for n in ("w1_across_hosts", "groupby_across_hosts", "cut_c_mid_task", "c_comes_back"):
                run.fail(n, "not run: the hosts did not come up")
        if run.failed:
            for p in hosts.procs:
                print("--- %s (exit %s):\n%s" % (p.name, p.poll(), hosts.tail(p.name)), flush=True)
    finally:
        hosts.stop()
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
