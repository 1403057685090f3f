"""Shared parts of the deploy suites (tests/deploy): podman set up the way
these machines need it, the debian:bookworm base image made from Debian's
archive when podman lacks it, the project's image built once per run, and
the one-line notice a suite prints when it cannot run here.

podman on these machines (shared/STACK-NOTES.md): runc rather than crun,
cgroupfs rather than systemd, no default ulimits, through a containers.conf
named by CONTAINERS_CONF. The base image tarball is cached in
MARS_DEPLOY_CACHE (default /var/cache/mars-deploy); podman's own store keeps
the image's layers between runs, so a second run rebuilds only what changed.
"""

import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "integration"))
from harness import REPO  # noqa: E402,F401

CACHE = os.environ.get("MARS_DEPLOY_CACHE", "/var/cache/mars-deploy")
IMAGE = "localhost/mars-c:latest"
BASE = "docker.io/library/debian:bookworm"
CONTAINERS_CONF = """# written by tests/deploy (shared/STACK-NOTES.md: podman on these machines)
[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
"""


class CannotRun(Exception):
    """This machine cannot run the suite (not root, no podman, ...): the
    suite says so on one line and counts nothing as passed."""


def cannot_run(suite, why):
    print("%s: cannot run here: %s; nothing counted as passed" % (suite, why), flush=True)
    print("RESULT passed=0 failed=0", flush=True)
    return 0


def log(msg):
    print("# %s %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


def podman_env(extra=None):
    """Our environment with CONTAINERS_CONF set (written once to the cache),
    without MARS_* settings of the caller's shell."""
    os.makedirs(CACHE, exist_ok=True)
    conf = os.path.join(CACHE, "containers.conf")
    if not os.path.exists(conf) or open(conf).read() != CONTAINERS_CONF:
        with open(conf + ".tmp", "w") as f:
            f.write(CONTAINERS_CONF)
        os.replace(conf + ".tmp", conf)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MARS_")}
    env["CONTAINERS_CONF"] = conf
    env.update(extra or {})
    return env


def need_podman():
    """Raises CannotRun when podman, podman-compose or root are missing."""
    if os.geteuid() != 0:
        raise CannotRun("needs root (podman with runc and cgroupfs, as set up here, runs rootful)")
    for prog in ("podman", "podman-compose", "runc"):
        if shutil.which(prog) is None:
            raise CannotRun("%s is not installed (`make test` installs it: scripts/setup.sh test)" % prog)
    r = subprocess.run(["podman", "info", "--format", "{{.Host.OCIRuntime.Name}}"], env=podman_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if r.returncode != 0:
        raise CannotRun("podman does not work here: %s" % r.stderr.decode(errors="replace").strip()[-300:])


def podman(*args, check=True, timeout=600, capture=True, env=None):
    r = subprocess.run(["podman"] + [str(a) for a in args], env=env or podman_env(), timeout=timeout,
                       stdout=subprocess.PIPE if capture else None, stderr=subprocess.PIPE if capture else None)
    if check and r.returncode != 0:
        raise RuntimeError("podman %s: exit %d: %s" % (" ".join(map(str, args[:3])), r.returncode,
                                                       (r.stderr or b"").decode(errors="replace")[-1500:]))
    return (r.stdout or b"").decode(errors="replace")


def image_exists(name):
    return subprocess.run(["podman", "image", "exists", name], env=podman_env()).returncode == 0


def ensure_base_image():
    """debian:bookworm in podman's store: already there, imported from the
    cached tarball, or made with debootstrap (raises CannotRun when that is
    impossible: no debootstrap, or Debian's archive unreachable)."""
    if image_exists(BASE):
        return "present"
    tarball = os.path.join(CACHE, "debian-bookworm-minbase.tar")
    if not os.path.exists(tarball):
        if shutil.which("debootstrap") is None:
            raise CannotRun("debian:bookworm is not in podman's store and debootstrap is not installed")
        log("debian:bookworm is missing: building it from Debian's archive with debootstrap "
            "(a few minutes, once; cached in %s)" % CACHE)
    r = subprocess.run([os.path.join(REPO, "deploy", "podman", "base-image.sh"), CACHE], env=podman_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=1800)
    out = r.stdout.decode(errors="replace")
    if r.returncode != 0:
        if "debootstrap failed" in out and ("Failed getting release file" in out or "Couldn't download" in out
                                            or "Temporary failure resolving" in out):
            raise CannotRun("Debian's archive is unreachable for debootstrap: %s" % out.strip()[-300:])
        raise RuntimeError("deploy/podman/base-image.sh failed: %s" % out[-2000:])
    log(out.strip().splitlines()[-1])
    return "made"


def build_image():
    """Builds the project's image from the working tree with podman (layers
    cached between runs). Returns (seconds, how): how says whether the
    package layers had to be built."""
    before = podman("images", "-q", "--filter", "reference=" + IMAGE, check=False).strip()
    if not before:
        log("no %s yet: first build, with apt-get inside (3 to 10 minutes on 2 cores, by load)" % IMAGE)
    else:
        log("building %s (cached layers: only what changed is rebuilt)" % IMAGE)
    logpath = os.path.join(CACHE, "image-build.log")
    t0 = time.monotonic()
    with open(logpath, "wb") as f:
        r = subprocess.run(["podman", "build", "--layers", "-t", IMAGE, REPO], env=podman_env(), stdout=f,
                           stderr=subprocess.STDOUT, timeout=2400)
    dt = time.monotonic() - t0
    if r.returncode != 0:
        tail = open(logpath, "rb").read()[-3000:].decode(errors="replace")
        raise RuntimeError("podman build failed (exit %d, log %s): %s" % (r.returncode, logpath, tail))
    after = podman("images", "-q", "--filter", "reference=" + IMAGE).strip()
    if before and before != after:
        # The previous build's image (and the layers only it used): keeps the
        # store from growing by one image per run.
        podman("rmi", before, check=False)
    # Untagged leftovers of earlier builds (their build stages): all but the
    # newest, which is this build's build stage, the cache of the next run.
    # Their shared package layers stay, being parents of the newest.
    for old in podman("images", "-q", "--filter", "dangling=true", check=False).split()[1:]:
        podman("rmi", old, check=False)
    log("image built in %.0f s (log %s)" % (dt, logpath))
    return dt
