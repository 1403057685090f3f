"""docker-compose.yml and the Dockerfile, checked without a container engine:
`docker-compose config` (Debian's docker-compose 1.29) must accept the file,
and what it resolves must be the cluster of shared/spec/cluster.md: postgres,
redis, a supervisor serving the gateway published on ${MARS_WEB_PORT:-7005},
and two scalable workers, every one from the project's image built on
debian:bookworm with the README's steps (scripts/setup.sh's packages, make).

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
    check(sup[0] == "mars-supervisor" and wrk[0] == "mars-worker", "programs: %s / %s", sup[0], wrk[0])
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


def case_one_image_from_dockerfile():
    s = compose_config()["services"]
    images = {name: svc.get("image") for name, svc in s.items()}
    check(len(set(images.values())) == 1 and None not in images.values(), "images: %s", images)
    for name, svc in s.items():
        b = svc.get("build")
        check(b and os.path.realpath(b["context"]) == os.path.realpath(REPO) and b.get("dockerfile", "Dockerfile")
              == "Dockerfile", "%s build: %s", name, b)


def setup_packages(target):
    text = open(os.path.join(REPO, "scripts", "setup.sh")).read()
    m = re.search(r'%s_pkgs="([^"]*)"' % target, text)
    check(m, "no %s_pkgs in scripts/setup.sh", target)
    return set(m.group(1).split())


def case_dockerfile_follows_readme():
    text = open(DOCKERFILE).read()
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("#")]
    body = "\n".join(lines)
    froms = re.findall(r"^FROM\s+(\S+)", body, re.M)
    check(froms == ["debian:bookworm"], "FROM %s, want debian:bookworm", froms)
    # The packages come from scripts/setup.sh itself (so the lists cannot
    # drift apart), for a target that covers building and running.
    m = re.search(r"scripts/setup\.sh\s+(build|test|run|bench)\b", body)
    check(m, "the Dockerfile should install packages with scripts/setup.sh")
    target = m.group(1)
    have = setup_packages("build") | (setup_packages(target) if target != "build" else set())
    need = setup_packages("build") | setup_packages("run")
    check(need <= have, "setup.sh %s misses %s", target, sorted(need - have))
    check(re.search(r"^RUN\b.*\bmake\b", body, re.M), "the Dockerfile should build with make")
    check(re.search(r"^COPY\s+\.\s", body, re.M), "the Dockerfile should copy the source tree")


def main():
    run = Runner()
    run.case("config_is_valid", case_config_is_valid)
    run.case("web_port_published", case_web_port_published)
    run.case("contract_command_lines", case_contract_command_lines)
    run.case("workers_scale", case_workers_scale)
    run.case("one_image_from_dockerfile", case_one_image_from_dockerfile)
    run.case("dockerfile_follows_readme", case_dockerfile_follows_readme)
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
