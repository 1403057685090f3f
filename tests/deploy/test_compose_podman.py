"""The compose suite brought up for real, with Debian's podman and
podman-compose (issue 16): the images built from the Dockerfile, the
compose file up, the seed example and a DataFrame example run through the
published port without and with a token, a worker container killed in the
middle of a task (the answer is still exact), three workers, the opt-in
PostgreSQL volume kept across down and up, and everything torn down.

Needs root, podman, podman-compose and runc (scripts/setup.sh test installs
them) and, the first time, Debian's archive (debootstrap for the base image,
apt-get inside the image build). A machine without them gets one line
saying so, and nothing is counted as passed.

Run: /usr/bin/python3 tests/deploy/test_compose_podman.py
Time: about 5 minutes with podman's layer cache warm; the first run builds
the base image and the package layers (about 10 more minutes on 2 cores).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import deploylib  # noqa: E402
from deploylib import REPO, CannotRun, log, podman  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "tests", "integration"))
import harness  # noqa: E402
from harness import Runner, check, wait_until  # noqa: E402

PROJECT = "marsdeploy"
COMPOSE = os.path.join(REPO, "docker-compose.yml")
PG_VOLUME = os.path.join(REPO, "deploy", "compose", "postgres-volume.yml")
DB_IMAGE = "localhost/mars-c-db:latest"
TOKEN = "deploy-test-token-5e1f"
MAX_IMAGE_MB = 400


class Suite:
    def __init__(self):
        self.port = harness.free_port()
        self.token = None
        self.files = [COMPOSE]
        self.workers = 2
        self.logdir = tempfile.mkdtemp(prefix="mars-deploy-")

    # ---- podman-compose --------------------------------------------------

    def compose(self, *args, timeout=300, check_rc=True):
        env = {"MARS_WEB_PORT": str(self.port), "MARS_WORKERS": str(self.workers)}
        if self.token:
            env["MARS_TOKEN"] = self.token
        cmd = ["podman-compose", "-p", PROJECT]
        for f in self.files:
            cmd += ["-f", f]
        cmd += list(args)
        r = subprocess.run(cmd, cwd=REPO, env=deploylib.podman_env(env), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        out = r.stdout.decode(errors="replace")
        with open(os.path.join(self.logdir, "compose.log"), "a") as f:
            f.write("$ %s\n%s\n" % (" ".join(cmd), out))
        if check_rc and r.returncode != 0:
            raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd[3:]), r.returncode, out[-2000:]))
        return out

    def containers(self, service=None, all_=False):
        """Names of this project's containers (of one service)."""
        args = ["ps", "--format", "{{.Names}}", "--filter", "label=io.podman.compose.project=%s" % PROJECT]
        if all_:
            args.append("-a")
        if service:
            args += ["--filter", "label=com.docker.compose.service=%s" % service]
        return sorted(n for n in podman(*args).split() if n)

    def ip_of(self, name):
        out = podman("inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}", name)
        return out.split()

    def down(self, volumes=False):
        self.compose("down", timeout=300, check_rc=False)
        left = self.containers(all_=True)
        for n in left:
            podman("rm", "-f", n, check=False)
        if volumes:
            for v in podman("volume", "ls", "-q").split():
                if v.startswith(PROJECT + "_"):
                    podman("volume", "rm", "-f", v, check=False)

    def up(self):
        self.compose("up", "-d", "--no-build", timeout=600)
        self.wait_api()

    # ---- the REST API through the published port -------------------------

    def headers(self, token="default"):
        t = self.token if token == "default" else token
        return {"Authorization": "Bearer %s" % t} if t else {}

    def api(self, method, path, body=None, token="default", timeout=30):
        return harness.request(method, self.port, path, body=body, headers=self.headers(token), timeout=timeout)

    def wait_api(self, timeout=180):
        wait_until(lambda: self.api("GET", "/api/v1/health").status == 200, timeout,
                   "the REST API on the published port %d" % self.port, interval=0.5)

    def alive_workers(self):
        r = self.api("GET", "/api/v1/workers")
        check(r.status == 200, "GET /api/v1/workers: %r", r)
        return [w for w in r.json()["workers"] if w["status"] == "alive"]

    def wait_workers(self, n, timeout=120):
        return wait_until(lambda: (lambda ws: ws if len(ws) == n else None)(self.alive_workers()), timeout,
                          "%d alive workers" % n, interval=0.5)

    def requeued(self):
        """mars_jobs_requeued_total of the supervisor (its REST API serves
        the same registry)."""
        r = self.api("GET", "/metrics")
        check(r.status == 200, "/metrics: %r", r)
        fam = harness.parse_prometheus(r.body.decode()).get("mars_jobs_requeued_total")
        return sum(smp[2] for smp in fam["samples"]) if fam else 0

    def submit(self, doc):
        r = self.api("POST", "/api/v1/sessions")
        check(r.status == 201, "POST /sessions: %r", r)
        sid = r.json()["session_id"]
        r = self.api("POST", "/api/v1/sessions/%s/tasks" % sid, body=doc)
        check(r.status == 202, "POST /tasks: %r", r)
        return sid, r.json()["task_id"]

    def wait_task(self, sid, tid, timeout=300):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            r = self.api("GET", "/api/v1/sessions/%s/tasks/%s?wait=20" % (sid, tid), timeout=60)
            check(r.status == 200, "GET task: %r", r)
            t = r.json()
            if t["status"] in ("succeeded", "failed", "cancelled"):
                return t
        raise AssertionError("task %s not done after %ds" % (tid, timeout))

    def fetch_npy(self, sid, key):
        r = self.api("GET", "/api/v1/sessions/%s/tensors/%s/data?format=npy" % (sid, key), timeout=120)
        check(r.status == 200, "fetch %s: %r", key, r)
        path = os.path.join(self.logdir, "%s.npy" % key)
        with open(path, "wb") as f:
            f.write(r.body)
        return np.load(path)

    # ---- the examples, run as a user would -------------------------------

    def example(self, script, out):
        env = {k: v for k, v in os.environ.items() if not k.startswith("MARS_")}
        env.update({"MARS_URL": "http://127.0.0.1:%d" % self.port, "OUT": out, "KEEP_SESSION": "0"})
        if self.token:
            env["MARS_TOKEN"] = self.token
        r = subprocess.run([os.path.join(REPO, "examples", script)], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=600)
        text = r.stdout.decode(errors="replace")
        check(r.returncode == 0, "examples/%s exit %d: %s", script, r.returncode, text[-2000:])
        return text

    def run_examples(self, tag):
        out = os.path.join(self.logdir, tag)
        self.example("seed-inner.sh", os.path.join(out, "seed"))
        b = np.load(os.path.join(out, "seed", "b.npy"))
        check(b.shape == (2000, 2000) and b.dtype == np.float64, "b %s %s", b.shape, b.dtype)
        check(np.array_equal(b, np.inner(np.ones((2000, 2000)), np.ones((2000, 2000)))),
              "seed example: b differs from numpy's inner of ones (first %r)", b.ravel()[:3])
        self.example("df_sum.sh", os.path.join(out, "df"))
        got = json.load(open(os.path.join(out, "df", "s.json")))
        import pandas as pd
        want = pd.DataFrame(np.arange(60000, dtype=np.float64).reshape(15000, 4), columns=list("abcd")).sum()
        check(list(got["index"]) == list(want.index), "df_sum index %r", got["index"])
        check([float(x) for x in got["data"]] == [float(x) for x in want.values], "df_sum %r, pandas %r",
              got["data"], list(want.values))


# ---- cases ------------------------------------------------------------------------

def case_images_build(s):
    base = deploylib.ensure_base_image()
    s.build_seconds = deploylib.build_image()
    t0 = time.monotonic()
    logpath = os.path.join(deploylib.CACHE, "image-db-build.log")
    with open(logpath, "wb") as f:
        r = subprocess.run(["podman", "build", "--layers", "--target", "db", "-t", DB_IMAGE, REPO],
                           env=deploylib.podman_env(), stdout=f, stderr=subprocess.STDOUT, timeout=2400)
    check(r.returncode == 0, "podman build --target db failed: see %s", logpath)
    log("base image %s; db image built in %.0f s" % (base, time.monotonic() - t0))


def case_image_is_lean(s):
    size = int(podman("image", "inspect", "--format", "{{.Size}}", deploylib.IMAGE).strip())
    check(size < MAX_IMAGE_MB * 1e6, "image is %.0f MB, more than %d MB", size / 1e6, MAX_IMAGE_MB)
    log("%s: %.0f MB" % (deploylib.IMAGE, size / 1e6))
    # What the runtime stage holds, and what it must not: no compiler, no
    # sanitizer build, no sources, no PostgreSQL server.
    script = ("for p in cc gcc clang make ld as node postgres initdb redis-server; do "
              "command -v $p >/dev/null && echo HAS $p; done; "
              "ls /opt/mars; ls /opt/mars/bin; ls /opt/mars/db/migrations | head -1; ls /opt/mars/ui/dist | head -3; "
              "id -u; mars-run --help >/dev/null && echo RUNS")
    out = podman("run", "--rm", deploylib.IMAGE, "sh", "-c", script)
    check("HAS " not in out, "the runtime image holds build or database programs: %s",
          [ln for ln in out.splitlines() if ln.startswith("HAS ")])
    for want in ("mars-supervisor", "mars-worker", "mars-gateway", "mars-run", "0001_", "index.html", "RUNS",
                 "10001"):
        check(want in out, "%r missing from the image: %s", want, out)
    check("build" not in out.split() and "engine" not in out.split() and "san" not in out.split(),
          "sources or build trees in /opt/mars: %s", out)


def case_image_baseline_isa(s):
    """The programs are built for x86-64-v2: no AVX (ymm/zmm registers) in
    their own code, so they start on any x86-64-v2 CPU, except in the hot
    kernels' per-level copies (sections .mars.kern.avx2 and .mars.kern.avx512,
    run only where the CPU has them: docs/deploy.md "CPU level"), which must be
    there."""
    if shutil.which("objdump") is None:
        raise AssertionError("objdump (binutils) is needed to read the programs' instructions")
    cid = podman("create", deploylib.IMAGE).strip()
    try:
        for prog in ("mars-worker", "mars-run"):
            dst = os.path.join(s.logdir, prog)
            podman("cp", "%s:/opt/mars/bin/%s" % (cid, prog), dst)
            dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", dst], stdout=subprocess.PIPE,
                                 timeout=300).stdout.decode(errors="replace")
            check(len(dis) > 100000, "objdump of %s printed little", prog)
            wide, copies, section = [], 0, ""
            for line in dis.splitlines():
                if line.startswith("Disassembly of section "):
                    section = line[len("Disassembly of section "):].rstrip(":")
                    continue
                regs = re.findall(r"%[yz]mm\d+", line)
                if section.startswith(".mars.kern."):
                    copies += len(regs)
                else:
                    wide += regs
            check(not wide, "%s uses %d AVX registers (%s) outside the kernels' level copies: not built for "
                  "x86-64-v2", prog, len(wide), wide[:3])
            check(copies > 100, "%s has no AVX kernel copies (.mars.kern.*): no run-time dispatch", prog)
    finally:
        podman("rm", "-f", cid, check=False)


def case_up_open(s):
    s.down(volumes=True)
    s.token = None
    s.up()
    ws = s.wait_workers(2)
    ncpu = os.cpu_count() or 1
    want_cpu = max(1, ncpu // 2)
    mem = int(open("/proc/meminfo").read().split("MemTotal:")[1].split()[0]) * 1024
    for w in ws:
        check(w["n_cpu"] == want_cpu, "worker n_cpu %s, want half the host's %d cores", w["n_cpu"], ncpu)
        check(abs(w["memory_limit"] - 0.4 * mem) < 0.01 * mem, "worker memory_limit %s, want 40%% of %d",
              w["memory_limit"], mem)
        host, _, port = w["address"].rpartition(":")
        check(port == "7200", "worker address %s: port 7200", w["address"])
    # each worker advertises its own container's address
    ips = {ip for n in s.containers("worker") for ip in s.ip_of(n)}
    check({w["address"].rpartition(":")[0] for w in ws} <= ips, "worker addresses %s, container IPs %s",
          [w["address"] for w in ws], ips)
    # no token: the API is open
    check(s.api("GET", "/api/v1/sessions", token=None).status == 200, "no token, but the API is closed")


def case_examples_open(s):
    s.run_examples("open")


def case_worker_killed_mid_task(s):
    # three products of 8 x 8 x 8 blocks of 500 in a chain: the victim is
    # caught running a chunk of the first (a heartbeat can lag a job, so a
    # single product could be over on that worker by the time of the kill),
    # and the later products read the chunks it held, so its jobs are
    # queued again or its chunks made again from their lineage either way
    n = 4000
    doc = {"version": 1, "nodes": [
        {"key": "a", "op": "ones", "shape": [n, n], "chunk_size": 500},
        {"key": "b", "op": "dot", "inputs": ["a", "a"]},
        {"key": "b2", "op": "dot", "inputs": ["b", "a"]},
        {"key": "b3", "op": "dot", "inputs": ["b2", "a"]},
        {"key": "c", "op": "sum", "inputs": ["b3"], "axis": 0}], "fetch": ["c"]}
    before = s.requeued()
    sid, tid = s.submit(doc)
    busy = wait_until(lambda: [w for w in s.alive_workers() if w["chunks_running"] > 0], 120,
                      "a worker running a chunk", interval=0.1)
    victim_ip = busy[0]["address"].rpartition(":")[0]
    victim = [c for c in s.containers("worker") if victim_ip in s.ip_of(c)]
    check(len(victim) == 1, "container of %s: %s", victim_ip, victim)
    podman("kill", "-s", "KILL", victim[0])
    log("killed %s (%s) while it ran a chunk" % (victim[0], busy[0]["address"]))
    t = s.wait_task(sid, tid, 600)
    check(t["status"] == "succeeded", "task after the kill: %s", t)
    c = s.fetch_npy(sid, "c")
    # every partial sum an integer below 2**53: exact
    check(np.array_equal(c, np.full(n, float(n) ** 4)), "sum of ones @ ones @ ones @ ones after a "
          "kill: %r", c[:4])
    check(s.requeued() > before, "the killed worker's job was not requeued (mars_jobs_requeued_total)")


def case_scale_to_three(s):
    s.workers = 3
    s.compose("up", "-d", "--no-build", timeout=600)
    # the killed worker may have been restarted (restart: unless-stopped) or
    # not; either way three workers are alive once podman-compose is done
    for c in s.containers("worker", all_=True):
        if c not in s.containers("worker"):
            podman("start", c)
    ws = s.wait_workers(3, 180)
    check(len(s.containers("worker")) == 3, "worker containers: %s", s.containers("worker"))
    sid, tid = s.submit({"version": 1, "nodes": [
        {"key": "a", "op": "ones", "shape": [2000, 2000], "chunk_size": 200},
        {"key": "b", "op": "inner", "inputs": ["a", "a"]}], "fetch": ["b"]})
    t = s.wait_task(sid, tid)
    check(t["status"] == "succeeded", "task on three workers: %s", t)
    b = s.fetch_npy(sid, "b")
    check(np.array_equal(b, np.full((2000, 2000), 2000.0)), "inner on three workers differs")
    r = s.api("GET", "/api/v1/sessions/%s/tasks/%s/chunks?limit=20000" % (sid, tid))
    check(r.status == 200, "chunks: %r", r)
    used = {c.get("worker_id") for c in r.json()["chunks"]} - {None}
    check(len(used) >= 2, "jobs ran on %d of %d workers", len(used), len(ws))


def case_up_with_token(s):
    s.down()
    s.workers = 2
    s.token = TOKEN
    s.files = [COMPOSE, PG_VOLUME]
    s.up()
    s.wait_workers(2)
    check(s.api("GET", "/api/v1/sessions", token=None).status == 401, "no token: not 401")
    check(s.api("GET", "/api/v1/sessions", token="wrong-token").status == 401, "a wrong token: not 401")
    check(s.api("GET", "/health", token=None).status == 200, "/health needs no token")
    check(s.api("GET", "/api/v1/sessions").status == 200, "the right token refused")


def case_examples_token(s):
    s.run_examples("token")


def case_k8s_job_script(s):
    """deploy/k8s/job's script (submit, wait, fetch) run in the mars-c image
    on the compose network against the supervisor's REST API, with the
    token: what the Kubernetes Job does against the gateway Service."""
    import yaml
    docs = list(yaml.safe_load_all(open(os.path.join(REPO, "deploy", "k8s", "job", "submit-job.yaml"))))
    cm = [d for d in docs if d and d["kind"] == "ConfigMap"][0]
    jobdir = os.path.join(s.logdir, "job")
    os.makedirs(jobdir, exist_ok=True)
    for name, text in cm["data"].items():
        with open(os.path.join(jobdir, name), "w") as f:
            f.write(text)
    os.chmod(s.logdir, 0o755)
    os.chmod(jobdir, 0o755)
    sup = s.containers("supervisor")[0]
    nets = podman("inspect", "--format", "{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}", sup).split()
    check(nets, "no network of %s", sup)
    out = podman("run", "--rm", "--network", nets[0], "-v", "%s:/job:ro" % jobdir, "-e",
                 "MARS_URL=http://supervisor:7005", "-e", "MARS_TOKEN=%s" % s.token, deploylib.IMAGE,
                 "sh", "/job/submit.sh", timeout=600)
    check(re.search(r"task \S+: succeeded", out), "the job's script: %s", out[-2000:])
    lines = out.strip().splitlines()
    graph = json.loads(cm["data"]["graph.json"])
    check(graph["fetch"] == ["s"] and float(json.loads(lines[-1])["data"]) == 2000.0 ** 3,
          "the job fetched %s", lines[-1][:500])


def case_pg_volume_kept(s):
    r = s.api("POST", "/api/v1/sessions")
    check(r.status == 201, "POST /sessions: %r", r)
    sid = r.json()["session_id"]
    vols = [v for v in podman("volume", "ls", "-q").split() if v.startswith(PROJECT + "_")]
    check(vols, "no named volume of the project: %s", podman("volume", "ls"))
    s.down()
    check(not s.containers(all_=True), "containers left after down")
    s.up()
    r = s.api("GET", "/api/v1/sessions/%s" % sid)
    check(r.status == 200, "session %s lost across down and up with the volume: %r", sid, r)


def case_teardown(s):
    s.down(volumes=True)
    podman("network", "rm", "-f", PROJECT + "_default", check=False)
    check(not s.containers(all_=True), "containers left: %s", s.containers(all_=True))
    left = [v for v in podman("volume", "ls", "-q").split() if v.startswith(PROJECT + "_")]
    check(not left, "volumes left: %s", left)


def main():
    try:
        deploylib.need_podman()
    except CannotRun as e:
        return deploylib.cannot_run("tests/deploy/test_compose_podman", e)
    s = Suite()
    run = Runner()
    t0 = time.monotonic()
    try:
        try:
            deploylib.ensure_base_image()
        except CannotRun as e:
            return deploylib.cannot_run("tests/deploy/test_compose_podman", e)
        if not run.case("images_build", case_images_build, s):
            run.fail("compose", "nothing else runs without the images")
            return run.finish()
        run.case("image_is_lean", case_image_is_lean, s)
        run.case("image_baseline_isa", case_image_baseline_isa, s)
        if run.case("up_open", case_up_open, s):
            run.case("examples_open", case_examples_open, s)
            run.case("worker_killed_mid_task", case_worker_killed_mid_task, s)
            run.case("scale_to_three", case_scale_to_three, s)
        else:
            run.fail("open_suite", "not run: the compose file did not come up")
        if run.case("up_with_token", case_up_with_token, s):
            run.case("examples_token", case_examples_token, s)
            run.case("k8s_job_script", case_k8s_job_script, s)
            run.case("pg_volume_kept", case_pg_volume_kept, s)
        else:
            run.fail("token_suite", "not run: the compose file did not come up with a token")
    finally:
        if run.failed:
            for c in s.containers(all_=True):
                logs = podman("logs", "--tail", "30", c, check=False)
                print("--- logs of %s:\n%s" % (c, logs[-3000:]))
        run.case("teardown", case_teardown, s)
        if run.failed or os.environ.get("MARS_KEEP_LOGS"):
            log("deploy compose suite: %.0f s (logs in %s)" % (time.monotonic() - t0, s.logdir))
        else:
            shutil.rmtree(s.logdir, ignore_errors=True)
            log("deploy compose suite: %.0f s" % (time.monotonic() - t0))
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
