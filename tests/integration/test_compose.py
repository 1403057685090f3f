"""docker-compose.yml and the Dockerfile, checked without a container engine:
`docker-compose config` (Debian's docker-compose 1.29) must accept the file,
and what it resolves must be the cluster of shared/spec/cluster.md: postgres,
redis, a supervisor serving the gateway published on ${MARS_WEB_PORT:-7005},
and two scalable workers sized by MARS_WORKER_CPUS and MARS_WORKER_MEM, from
the project's two images built by the multi-stage Dockerfile on
debian:bookworm (scripts/setup.sh's image-* package lists, make ARCH=...).
The variables reach the containers in the form podman-compose reads too
(issue 16). tests/deploy/test_compose_podman.py brings it up for real.

Debian's /usr/bin/python3; yaml is python3-yaml, which docker-compose
depends on. Nothing is skipped: without docker-compose every case fails,
saying that `make test` installs it.
"""

import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import REPO, Runner, check  # noqa: E402

COMPOSE = os.path.join(REPO, "docker-compose.yml")
DOCKERFILE = os.path.join(REPO, "Dockerfile")
MISSING = ("docker-compose is not installed: `make test` installs it (scripts/setup.sh test), "
           "or apt-get install docker-compose")


def compose_config(web_port=None):
    exe = shutil.which("docker-compose")
    if exe is None:
        raise AssertionError(MISSING)
    try:
        import yaml
    except ImportError:
        raise AssertionError("python3-yaml is missing (a dependency of docker-compose): " + MISSING)
    env = {k: v for k, v in os.environ.items() if k != "MARS_WEB_PORT"}
    if web_port is not None:
        env["MARS_WEB_PORT"] = str(web_port)
    r = subprocess.run([exe, "-f", COMPOSE, "--project-directory", REPO, "config"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env, cwd=REPO, timeout=120)
    check(r.returncode == 0, "docker-compose config exit %d: %s", r.returncode,
          r.stderr.decode(errors="replace")[-2000:])
    return yaml.safe_load(r.stdout)


def args_of(svc):
    cmd = svc.get("command")
    check(isinstance(cmd, list), "command of a mars service should be a list: %r", cmd)
    return [str(a) for a in cmd]


def opt(args, name):
    check(name in args, "%s missing from %s", name, args)
    return args[args.index(name) + 1]


def published(svc):
    out = []
    for p in svc.get("ports") or []:
        if isinstance(p, dict):
            out.append((int(p["published"]), int(p["target"])))
        else:
            host, _, target = str(p).rpartition(":")
            out.append((int(host.rpartition(":")[2]), int(target)))
    return out


def case_config_is_valid():
    cfg = compose_config()
    check(set(cfg["services"]) == {"postgres", "redis", "supervisor", "worker"}, "services: %s",
          sorted(cfg["services"]))


def case_web_port_published():
    sup = compose_config()["services"]["supervisor"]
    web = int(opt(args_of(sup), "-w"))
    check(published(sup) == [(7005, web)], "supervisor ports %s, want [(7005, %d)]", published(sup), web)
    sup = compose_config(7123)["services"]["supervisor"]
    check(published(sup) == [(7123, web)], "with MARS_WEB_PORT=7123: %s", published(sup))
    for name, svc in compose_config()["services"].items():
        if name != "supervisor":
            check(not svc.get("ports"), "%s publishes %s: only the REST API is published", name, svc.get("ports"))


def case_contract_command_lines():
    s = compose_config()["services"]
    sup, wrk = args_of(s["supervisor"]), args_of(s["worker"])
    # the worker runs through a shell that finds its address and its share of
    # the host, then execs mars-worker
    check(sup[0] == "mars-supervisor" and wrk[:2] == ["sh", "-ec"], "programs: %s / %s", sup[0], wrk[:2])
    wrk = re.sub(r"\\\n\s*", " ", wrk[2]).split()
    check("mars-worker" in wrk and wrk[wrk.index("mars-worker") - 1] == "exec", "worker script: %s", wrk)
    sup_port = opt(sup, "-p")
    check(opt(wrk, "-s") == "supervisor:%s" % sup_port, "worker -s %s, supervisor -p %s", opt(wrk, "-s"), sup_port)
    dsn = opt(sup, "--pg-dsn")
    check(re.search(r"\bhost=postgres\b", dsn) and re.search(r"\bport=5432\b", dsn), "pg dsn %r", dsn)
    check(opt(sup, "--redis-url").startswith("redis://redis:6379"), "redis url %r", opt(sup, "--redis-url"))
    check(s["supervisor"].get("hostname") == "supervisor", "the supervisor must advertise the name workers use")
    pg = " ".join(args_of(s["postgres"]))
    check("listen_addresses='*'" in pg and "initdb" in pg, "postgres command: %s", pg)
    check(s["postgres"].get("user") == "postgres", "PostgreSQL refuses root: user postgres")
    rd = args_of(s["redis"])
    check(rd[0] == "redis-server" and opt(rd, "--bind") == "0.0.0.0", "redis command: %s", rd)


def case_workers_scale():
    w = compose_config()["services"]["worker"]
    check(int(w.get("scale", 1)) == 2, "two workers by default: scale %r", w.get("scale"))
    # podman-compose 1.0 reads only deploy.replicas; docker compose v2 refuses
    # a scale and replicas that differ.
    replicas = (w.get("deploy") or {}).get("replicas")
    check(replicas is not None and int(replicas) == 2, "deploy.replicas %r, want 2", replicas)
    check("container_name" not in w and "hostname" not in w and not w.get("ports"),
          "a fixed name or host port stops --scale worker=N: %s", w)
    deps = w.get("depends_on") or {}
    check("supervisor" in deps, "worker should start after the supervisor: %s", deps)


def case_images_from_dockerfile():
    s = compose_config()
    s = s["services"]
    want = {"postgres": ("localhost/mars-c-db:latest", "db"), "redis": ("localhost/mars-c-db:latest", "db"),
            "supervisor": ("localhost/mars-c:latest", None), "worker": ("localhost/mars-c:latest", None)}
    for name, svc in s.items():
        image, target = want[name]
        check(svc.get("image") == image, "%s image %s, want %s", name, svc.get("image"), image)
        b = svc.get("build")
        check(b and os.path.realpath(b["context"]) == os.path.realpath(REPO) and b.get("dockerfile", "Dockerfile")
              == "Dockerfile", "%s build: %s", name, b)
        check(b.get("target") == target, "%s build target %s, want %s", name, b.get("target"), target)
        check(svc.get("restart") == "unless-stopped", "%s restart %s", name, svc.get("restart"))


def case_environment_both_engines():
    """Variables pass as bare names (the host's value as it is): podman-compose
    1.0 does not expand ${VAR:-} in environment: and passes it literally."""
    text = "\n".join(ln for ln in open(COMPOSE).read().splitlines() if not ln.lstrip().startswith("#"))
    check(not re.search(r"\$\{[A-Z_]+:-\}", text), "an empty ${VAR:-} default, which podman-compose 1.0 "
          "passes literally")
    s = compose_config()["services"]
    for name in ("supervisor", "worker"):
        env = s[name].get("environment") or {}
        check("MARS_TOKEN" in env and env["MARS_TOKEN"] in (None, ""), "%s MARS_TOKEN %r: pass it bare", name,
              env.get("MARS_TOKEN"))
    env = s["worker"]["environment"]
    for var in ("MARS_WORKER_CPUS", "MARS_WORKER_MEM"):
        check(var in env, "worker environment lacks %s", var)


def case_workers_sized():
    w = compose_config()["services"]["worker"]
    script = " ".join(args_of(w))
    for want in ("--n-cpu", "--phy-mem", "MARS_WORKER_CPUS", "MARS_WORKER_MEM", "-p 7200", "--spill-dirs"):
        check(want in script, "worker command lacks %r: %s", want, script)


def case_postgres_volume_overlay():
    exe = shutil.which("docker-compose")
    if exe is None:
        raise AssertionError(MISSING)
    import yaml
    r = subprocess.run([exe, "-f", COMPOSE, "-f", os.path.join(REPO, "deploy", "compose", "postgres-volume.yml"),
                        "--project-directory", REPO, "config"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       cwd=REPO, timeout=120)
    check(r.returncode == 0, "config with the volume overlay: %s", r.stderr.decode(errors="replace")[-2000:])
    cfg = yaml.safe_load(r.stdout)
    check("pgdata" in (cfg.get("volumes") or {}), "no named volume pgdata: %s", cfg.get("volumes"))
    pg = cfg["services"]["postgres"]
    vols = [v if isinstance(v, str) else "%s:%s" % (v.get("source"), v.get("target")) for v in pg.get("volumes", [])]
    check(any(v.startswith("pgdata:/var/lib/postgresql/mars") for v in vols), "postgres volumes %s", vols)
    check(str((pg.get("environment") or {}).get("MARS_PG_FSYNC")) == "on", "fsync on with the volume")
    # opt-in: nothing persistent without the overlay
    check(not compose_config()["services"]["postgres"].get("volumes"), "the base file keeps a volume")


def setup_packages(target):
    text = open(os.path.join(REPO, "scripts", "setup.sh")).read()
    m = re.search(r'%s_pkgs="([^"]*)"' % target, text)
    check(m, "no %s_pkgs in scripts/setup.sh", target)
    return set(m.group(1).split())


def case_dockerfile_multistage():
    text = open(DOCKERFILE).read()
    body = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("#"))
    body = re.sub(r"\\\n\s*", " ", body)  # continuation lines joined
    froms = re.findall(r"^FROM\s+(\S+)(?:\s+AS\s+(\S+))?", body, re.M)
    check([f[0] for f in froms] == ["debian:bookworm"] * 3, "FROM %s, want debian:bookworm thrice", froms)
    check([f[1] for f in froms] == ["build", "db", "runtime"], "stages %s, want build, db, runtime (last: the "
          "default target)", [f[1] for f in froms])
    stages = re.split(r"^FROM\s.*$", body, flags=re.M)[1:]
    build, db, runtime = stages
    check(re.search(r"scripts/setup\.sh image-build\b", build), "build stage: setup.sh image-build")
    check(re.search(r"\bmake\b.*ARCH=\"?\$ARCH", build) and re.search(r"^ARG ARCH=x86-64-v2$", build, re.M),
          "build stage: make ARCH=$ARCH with ARG ARCH=x86-64-v2")
    check("build/san" not in build and not re.search(r"\bmake[^\n]*\b(unit|test|fuzz)\b", build),
          "the sanitizer build or tests in the image build")
    check(re.search(r"setup\.sh image-db\b", db), "db stage: setup.sh image-db")
    check(re.search(r"setup\.sh image-run\b", runtime), "runtime stage: setup.sh image-run")
    copies = re.findall(r"^COPY\s+(.*)$", runtime, re.M)
    check(not any(re.match(r"(--\S+\s+)*\.\s", c) for c in copies), "the runtime stage copies the source tree")
    for want in ("db/migrations", "ui/dist", "mars-worker", "mars-supervisor", "mars-gateway"):
        check(any(want in c for c in copies), "the runtime stage lacks %s: %s", want, copies)
    # the lists: the runtime holds no -dev package and no compiler
    run_pkgs = setup_packages("image_run")
    check(not [p for p in run_pkgs if p.endswith("-dev") or p in ("build-essential", "gcc", "clang", "make")],
          "image_run_pkgs has build packages: %s", sorted(run_pkgs))
    check({"postgresql-15", "redis-server"} <= setup_packages("image_db"), "image_db_pkgs %s",
          setup_packages("image_db"))


def case_makefile_arch():
    text = open(os.path.join(REPO, "Makefile")).read()
    check(re.search(r"^ARCH \?= native$", text, re.M), "the Makefile should take ARCH ?= native")
    check("-march=$(ARCH)" in text and "-march=native" not in text, "OPT should use -march=$(ARCH)")


def main():
    run = Runner()
    run.case("config_is_valid", case_config_is_valid)
    run.case("web_port_published", case_web_port_published)
    run.case("contract_command_lines", case_contract_command_lines)
    run.case("workers_scale", case_workers_scale)
    run.case("images_from_dockerfile", case_images_from_dockerfile)
    run.case("environment_both_engines", case_environment_both_engines)
    run.case("workers_sized", case_workers_sized)
    run.case("postgres_volume_overlay", case_postgres_volume_overlay)
    run.case("dockerfile_multistage", case_dockerfile_multistage)
    run.case("makefile_arch", case_makefile_arch)
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
