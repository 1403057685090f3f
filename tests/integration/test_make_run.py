"""`make run`'s cluster script, scripts/run-cluster.sh, driven as a user
would: check mode end to end (the seed example over REST with curl, the
result compared with numpy), every examples/NAME.sh curl script against the
foreground cluster (results compared with mars-run's for the same document),
the foreground mode stopped with SIGTERM and with Ctrl-C (SIGINT to the
process group), a worker killed with SIGKILL (restarted with one line, the
cluster computes on), and a service that fails to start.

Debian's /usr/bin/python3 with numpy. Every run uses free ports
(MARS_WEB_PORT=0) so a cluster already on 7005 does not matter.
"""

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

from harness import REPO, BIN_DIR as _BIN_DIR, Runner, check, get, kill_pid, wait_until  # noqa: E402

BIN_DIR = os.path.abspath(_BIN_DIR)

SCRIPT = os.path.join(REPO, "scripts", "run-cluster.sh")


def script_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MARS_")}
    env.update({"MARS_WEB_PORT": "0", "MARS_BIN_DIR": BIN_DIR})
    env.update(extra)
    return env


def token_in(text):
    m = re.search(r"^  token: +([0-9a-f]{48})$", text, re.M)
    return m.group(1) if m else None


def base_dir(text):
    m = re.search(r"logs: +(/\S+)/logs", text)
    return m.group(1) if m else None


def ports_in(text):
    return sorted({int(p) for p in re.findall(r"127\.0\.0\.1:(\d+)", text)})


def listening(port):
    import socket
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def check_all_gone(text):
    base = base_dir(text)
    check(base is not None, "no logs line in the output: %s", text[-1500:])
    check(not os.path.exists(base), "temporary directory %s left behind", base)
    still = [p for p in ports_in(text) if listening(p)]
    check(not still, "ports still listening after the stop: %s", still)


def case_check_mode_inner():
    out = tempfile.mkdtemp(prefix="mars-mr-")
    try:
        r = subprocess.run([SCRIPT, "--check"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           env=script_env(MARS_OUT=out), cwd=REPO, timeout=600)
        text = r.stdout.decode(errors="replace")
        check(r.returncode == 0, "exit %d: %s", r.returncode, text[-3000:])
        check(re.search(r"dashboard: +http://127\.0\.0\.1:\d+/", text), "no dashboard URL: %s", text[-1500:])
        check("seed-inner: succeeded" in text, "no success line: %s", text[-1500:])
        b = np.load(os.path.join(out, "b.npy"))
        a = np.ones((2000, 2000))
        want = np.inner(a, a)
        check(b.shape == want.shape and b.dtype == want.dtype, "b is %s %s", b.shape, b.dtype)
        check(np.allclose(b, want, rtol=1e-12, atol=0), "b differs from numpy: b[0, :3] = %s", b[0, :3])
        check(os.path.getsize(os.path.join(out, "b.json")) > 0, "b.json is empty")
        check_all_gone(text)
    finally:
        subprocess.run(["rm", "-rf", out])


def start_foreground(**env):
    p = subprocess.Popen([SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=script_env(**env),
                         cwd=REPO, start_new_session=True)
    buf = b""
    deadline = time.monotonic() + 120
    while b"Press Ctrl-C" not in buf:
        if time.monotonic() > deadline or p.poll() is not None:
            rest = p.stdout.read() if p.poll() is not None else b""
            kill_pid(p.pid, signal.SIGKILL)
            raise AssertionError("cluster did not come up: %s" % (buf + rest).decode(errors="replace")[-3000:])
        chunk = p.stdout.read1(65536)
        if not chunk:
            time.sleep(0.05)
        buf += chunk
    text = buf.decode(errors="replace")
    m = re.search(r"dashboard: +http://127\.0\.0\.1:(\d+)/", text)
    check(m, "no dashboard URL: %s", text[-1500:])
    check(token_in(text), "no token printed: %s", text[-1500:])
    return p, text, int(m.group(1))


def stop_with(sig, group, want_rc):
    p, text, web = start_foreground()
    try:
        tok = token_in(text)
        auth = {"Authorization": "Bearer " + tok}
        check(get(web, "/api/v1/health").status == 401, "the API answers without the token")
        check(get(web, "/health").status == 200, "/health needs no token")
        r = get(web, "/api/v1/health", headers=auth)
        check(r.status == 200, "health: %r", r)
        check(re.search(r"dashboard: +http://127\.0\.0\.1:%d/\?token=%s$" % (web, tok), text, re.M),
              "the dashboard URL does not carry the token: %s", text[-1500:])
        r = get(web, "/?token=" + tok)
        check(r.status in (302, 303) and "mars_token=" in r.headers.get("set-cookie", ""),
              "the dashboard link does not set the cookie: %r", r)
        workers = get(web, "/api/v1/workers", headers=auth).json()["workers"]
        alive = [w for w in workers if w["status"] == "alive"]
        check(len(alive) == 2, "want 2 alive workers: %s", workers)
        if group:
            os.killpg(p.pid, sig)
        else:
            kill_pid(p.pid, sig)
        rest = p.communicate(timeout=60)[0].decode(errors="replace")
    finally:
        if p.poll() is None:
            kill_pid(p.pid, signal.SIGKILL)
    check(p.returncode == want_rc, "exit %s, want %d: %s", p.returncode, want_rc, rest[-1500:])
    check_all_gone(text + rest)


def case_every_example_script():
    work = tempfile.mkdtemp(prefix="mars-ex-")
    p, text, web = start_foreground()
    try:
        names = sorted(f[:-5] for f in os.listdir(os.path.join(REPO, "examples")) if f.endswith(".json"))
        check(names, "no examples")
        for name in names:
            script = os.path.join(REPO, "examples", name + ".sh")
            check(os.access(script, os.X_OK), "%s is missing or not executable", script)
            out = os.path.join(work, "rest", name)
            r = subprocess.run([script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300, cwd=work,
                               env=dict(script_env(), MARS_URL="http://127.0.0.1:%d" % web, OUT=out,
                                        MARS_TOKEN=token_in(text), KEEP_SESSION="0"))
            log = r.stdout.decode(errors="replace")
            check(r.returncode == 0 and "%s: succeeded" % name in log, "%s: exit %d: %s", name, r.returncode,
                  log[-1500:])
            check(re.search(r"^deleted session ", log, re.M), "%s did not delete its session: %s", name, log[-500:])
            ref = os.path.join(work, "ref", name)
            r = subprocess.run([os.path.join(BIN_DIR, "mars-run"), os.path.join(REPO, "examples", name + ".json"),
                                "-o", ref], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
            check(r.returncode == 0, "mars-run %s: %s", name, r.stdout.decode(errors="replace")[-500:])
            # DataFrame and Series results: mars-run's KEY.json equals the REST API's JSON
            for f in sorted(f for f in os.listdir(ref) if f.endswith(".json")):
                with open(os.path.join(ref, f)) as a, open(os.path.join(out, f)) as b:
                    got, want = json.load(b), json.load(a)
                check(got == want, "%s/%s: REST %s, mars-run %s", name, f, str(got)[:300], str(want)[:300])
            keys = sorted(f for f in os.listdir(ref) if f.endswith(".npy"))
            check(keys or any(f.endswith(".json") for f in os.listdir(ref)), "%s: no results", name)
            check(sorted(f for f in os.listdir(out) if f.endswith(".npy")) == keys,
                  "%s: fetched %s, mars-run wrote %s", name, os.listdir(out), keys)
            for f in keys:
                got, want = np.load(os.path.join(out, f)), np.load(os.path.join(ref, f))
                check(got.shape == want.shape and got.dtype == want.dtype, "%s/%s: %s %s, want %s %s", name, f,
                      got.shape, got.dtype, want.shape, want.dtype)
                if want.dtype.kind == "f":
                    check(np.allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True), "%s/%s differs", name, f)
                else:
                    check(np.array_equal(got, want), "%s/%s differs", name, f)
    finally:
        if p.poll() is None:
            kill_pid(p.pid, signal.SIGTERM)
            p.communicate(timeout=60)
        subprocess.run(["rm", "-rf", work])
    check(p.returncode == 143, "exit %s after SIGTERM", p.returncode)


def case_sigterm_stops_everything():
    stop_with(signal.SIGTERM, False, 143)


def case_ctrl_c_stops_everything():
    stop_with(signal.SIGINT, True, 130)


def worker_pids(group):
    """pid -> command line of the mars-worker processes in process group `group`."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            if os.getpgid(int(d)) != group:
                continue
            with open("/proc/%s/cmdline" % d, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if os.path.basename(argv[0]) == b"mars-worker":
            out[int(d)] = [a.decode() for a in argv if a]
    return out


def read_until(p, pattern, timeout):
    """Reads the script's output until `pattern` matches what came after the
    call; returns (match, text read)."""
    import select
    buf = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = re.search(pattern, buf.decode(errors="replace"), re.M)
        if m:
            return m, buf.decode(errors="replace")
        r, _, _ = select.select([p.stdout], [], [], 0.5)
        if r:
            chunk = p.stdout.read1(65536)
            if not chunk:
                break
            buf += chunk
    return None, buf.decode(errors="replace")


def stop_script(p):
    """After a failure: SIGTERM lets the script stop what it started and
    remove its directory; SIGKILL to its whole group if it does not go."""
    if p.poll() is not None:
        return
    kill_pid(p.pid, signal.SIGTERM)
    try:
        p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait(10)


def case_dead_worker_is_restarted():
    p, text, web = start_foreground()
    rest = ""
    try:
        tok = token_in(text)
        auth = {"Authorization": "Bearer " + tok}
        check(re.search(r"starting mars-worker 1 on 127\.0\.0\.1:\d+ \(--n-cpu \d+ --phy-mem \d+ --cache-mem \d+\)",
                        text), "no memory settings in the start lines: %s", text[-1500:])
        before = worker_pids(p.pid)
        check(len(before) == 2, "want 2 mars-worker processes in the group: %s", before)
        base = base_dir(text)
        for argv in before.values():
            i = argv.index("--phy-mem")
            j = argv.index("--cache-mem")
            check(int(argv[i + 1]) > 0 and 0 < int(argv[j + 1]) <= int(argv[i + 1]), "memory flags: %s", argv)
            spill = argv[argv.index("--spill-dirs") + 1]
            check(spill.startswith(base + "/spill/") and os.path.isdir(spill), "spill dir %s", spill)
        ids = {w["id"] for w in get(web, "/api/v1/workers", headers=auth).json()["workers"]}
        # worker 2: the one whose spill directory is worker-2
        victim = [pid for pid, argv in before.items() if argv[argv.index("--spill-dirs") + 1].endswith("/worker-2")]
        check(len(victim) == 1, "worker 2 not found: %s", before)
        victim = victim[0]
        os.kill(victim, signal.SIGKILL)
        m, got = read_until(p, r"^run-cluster: mars-worker 2 \(pid %d\) died \(killed by SIGKILL\); "
                               r"restarted as pid (\d+)$" % victim, 30)
        rest += got
        check(m, "no restart line: %s", got[-1500:])
        new = int(m.group(1))
        check(p.poll() is None, "the script stopped: %s", got[-1500:])
        after = wait_until(lambda: (lambda w: w if new in w else None)(worker_pids(p.pid)), 10,
                           "pid %d to become mars-worker" % new)
        check(new in after and victim not in after, "workers now %s (killed %d, new %d)", after, victim, new)
        check(after[new] == before[victim],
              "a different command line: %s, was %s", after[new], before[victim])

        def registered():
            ws = get(web, "/api/v1/workers", headers=auth).json()["workers"]
            return [w for w in ws if w["id"] not in ids and w["status"] == "alive"]
        wait_until(registered, 60, "the restarted worker to register")
        # the cluster still computes the seed example exactly
        work = tempfile.mkdtemp(prefix="mars-rs-")
        try:
            r = subprocess.run([os.path.join(REPO, "examples", "seed-inner.sh")], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=300, cwd=work,
                               env=dict(script_env(), MARS_URL="http://127.0.0.1:%d" % web, OUT=work,
                                        MARS_TOKEN=tok, KEEP_SESSION="0"))
            log = r.stdout.decode(errors="replace")
            check(r.returncode == 0 and "seed-inner: succeeded" in log, "seed-inner: exit %d: %s", r.returncode,
                  log[-1500:])
            b = np.load(os.path.join(work, "b.npy"))
            want = np.full((2000, 2000), 2000.0)
            check(b.shape == want.shape and b.dtype == want.dtype and np.array_equal(b, want),
                  "b differs from numpy: %s %s, b[0, :3] = %s", b.shape, b.dtype, b[0, :3])
        finally:
            subprocess.run(["rm", "-rf", work])
        check(p.poll() is None, "the script stopped after the restart")
        kill_pid(p.pid, signal.SIGTERM)
        rest += p.communicate(timeout=60)[0].decode(errors="replace")
    finally:
        stop_script(p)
    check(p.returncode == 143, "exit %s after SIGTERM: %s", p.returncode, rest[-1500:])
    check(len(re.findall(r"died", rest)) == 1 and not re.search(r"\bKilled\b", rest),
          "more than the one line about the dead worker: %s", rest[-1500:])
    check_all_gone(text + rest)


def case_worker_restarts_are_bounded():
    """MARS_WORKER_RESTARTS=1: the second death within a minute stops the cluster."""
    p, text, web = start_foreground(MARS_WORKER_RESTARTS="1", MARS_WORKER_PHY_MEM="1g",
                                    MARS_WORKER_CACHE_MEM="256m")
    rest = ""
    try:
        pids = worker_pids(p.pid)
        check(len(pids) == 2, "want 2 workers: %s", pids)
        for argv in pids.values():
            check(argv[argv.index("--phy-mem") + 1] == str(1 << 30), "--phy-mem: %s", argv)
            check(argv[argv.index("--cache-mem") + 1] == str(256 << 20), "--cache-mem: %s", argv)
        victim = [pid for pid, argv in pids.items() if argv[argv.index("--spill-dirs") + 1].endswith("/worker-1")][0]
        os.kill(victim, signal.SIGKILL)
        m, got = read_until(p, r"^run-cluster: mars-worker 1 \(pid %d\) died \(killed by SIGKILL\); "
                               r"restarted as pid (\d+)$" % victim, 30)
        rest += got
        check(m, "no restart line: %s", got[-1500:])
        new = int(m.group(1))
        wait_until(lambda: new in worker_pids(p.pid), 10, "pid %d to become mars-worker" % new)
        os.kill(new, signal.SIGTERM)
        rest += p.communicate(timeout=60)[0].decode(errors="replace")
    finally:
        stop_script(p)
    check(p.returncode == 1, "exit %s, want 1: %s", p.returncode, rest[-1500:])
    check(re.search(r"^run-cluster: mars-worker 1 \(pid %d\) died \((exit status 0|killed by SIGTERM)\) after 1 "
                    r"restarts within a minute: stopping$" % new, rest, re.M), "no stop line: %s", rest[-1500:])
    check(not re.search(r"\bKilled\b", rest), "bash's own job notice is in the output: %s", rest[-1500:])
    check_all_gone(text + rest)


def case_bad_memory_setting_is_refused():
    r = subprocess.run([SCRIPT, "--check"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       env=script_env(MARS_WORKER_PHY_MEM="lots"), cwd=REPO, timeout=60)
    text = r.stdout.decode(errors="replace")
    check(r.returncode == 1, "exit %d: %s", r.returncode, text[-1500:])
    check("MARS_WORKER_PHY_MEM must be a size such as 1073741824, 512m, 2g or 25%, not 'lots'" in text,
          "no clear message: %s", text[-1500:])
    check("starting PostgreSQL" not in text, "it started services first: %s", text[-1500:])


def case_failed_start_is_reported():
    fake = tempfile.mkdtemp(prefix="mars-fake-")
    try:
        with open(os.path.join(fake, "mars-supervisor"), "w") as f:
            f.write("#!/bin/sh\necho 'mars-supervisor: cannot bind 0.0.0.0:1: Permission denied' >&2\nexit 1\n")
        os.chmod(os.path.join(fake, "mars-supervisor"), 0o755)
        os.symlink(os.path.join(BIN_DIR, "mars-worker"), os.path.join(fake, "mars-worker"))
        r = subprocess.run([SCRIPT, "--check"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           env=script_env(MARS_BIN_DIR=fake), cwd=REPO, timeout=120)
        text = r.stdout.decode(errors="replace")
        check(r.returncode == 1, "exit %d: %s", r.returncode, text[-1500:])
        check("mars-supervisor exited while starting" in text, "no clear message: %s", text[-1500:])
        check("cannot bind 0.0.0.0:1" in text, "log tail not shown: %s", text[-1500:])
        m = re.search(r"last lines of (/tmp/mars-cluster\.[A-Za-z0-9]+)/", text)
        check(m and not os.path.exists(m.group(1)), "temporary directory left behind: %s", text[-800:])
    finally:
        subprocess.run(["rm", "-rf", fake])


CASES = [
    ("failed_start_is_reported", case_failed_start_is_reported),
    ("sigterm_stops_everything", case_sigterm_stops_everything),
    ("ctrl_c_stops_everything", case_ctrl_c_stops_everything),
    ("check_mode_inner", case_check_mode_inner),
    ("dead_worker_is_restarted", case_dead_worker_is_restarted),
    ("worker_restarts_are_bounded", case_worker_restarts_are_bounded),
    ("bad_memory_setting_is_refused", case_bad_memory_setting_is_refused),
    ("every_example_script", case_every_example_script),
]


def main():
    """Runs every case, or those named on the command line."""
    want = sys.argv[1:]
    unknown = [n for n in want if n not in dict(CASES)]
    if unknown:
        print("unknown case(s): %s; cases: %s" % (", ".join(unknown), ", ".join(n for n, _ in CASES)))
        return 2
    run = Runner()
    for name, fn in CASES:
        if not want or name in want:
            run.case(name, fn)
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
