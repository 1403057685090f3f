"""deploy/k8s checked without a Kubernetes cluster (none can run here):
the kustomizations are rendered with kubectl (`kubectl kustomize`, offline),
every rendered object is validated against the Kubernetes API schemas by
the npm package kubernetes-models (tests/deploy/k8s-schema), and what the
objects say is checked against what mars needs: PostgreSQL and Redis as
StatefulSets (or gone, with the DSN in a Secret, in external-db), two
supervisors, a gateway Deployment behind a Service, workers whose CPU and
memory limits reach --n-cpu and --phy-mem through the downward API,
probes on /health, Prometheus annotations, the token from a Secret, and
command lines whose options the programs accept.

`kubectl create --dry-run=client` is not used: every kubectl asks an API
server for the objects' kinds even then, and none runs here.

Run: /usr/bin/python3 tests/deploy/test_k8s_manifests.py
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "integration"))
from harness import BIN_DIR, REPO, Runner, check  # noqa: E402

K8S = os.path.join(REPO, "deploy", "k8s")
SCHEMA = os.path.join(REPO, "tests", "deploy", "k8s-schema")
SUPERVISORS = "supervisor-0.supervisor:7103,supervisor-1.supervisor:7103"
MARS_UID = 10001


def render(path):
    exe = shutil.which("kubectl")
    if exe is None:
        raise AssertionError("kubectl is not installed: `make test` installs Debian's kubernetes-client "
                             "(scripts/setup.sh test)")
    import yaml
    r = subprocess.run([exe, "kustomize", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    check(r.returncode == 0, "kubectl kustomize %s: %s", path, r.stderr.decode(errors="replace")[-2000:])
    return [d for d in yaml.safe_load_all(r.stdout) if d]


def by_kind(objs):
    out = {}
    for o in objs:
        out[(o["kind"], o["metadata"]["name"])] = o
    return out


def schema_check(objs):
    if not os.path.isdir(os.path.join(SCHEMA, "node_modules", "kubernetes-models")):
        raise AssertionError("tests/deploy/k8s-schema/node_modules is missing: `npm ci` there "
                             "(scripts/setup.sh test does it)")
    docs = json.loads(json.dumps(objs))
    for o in docs:
        # kustomize folds long base64 values over lines, which the API
        # server's decoder skips and the schema's "byte" format does not
        if o["kind"] == "Secret":
            o["data"] = {k: re.sub(r"\s", "", v) for k, v in (o.get("data") or {}).items()}
    r = subprocess.run(["node", os.path.join(SCHEMA, "validate.mjs")], input=json.dumps(docs).encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=SCHEMA, timeout=120)
    out = r.stdout.decode(errors="replace")
    check(r.returncode == 0, "schema: %s %s", [ln for ln in out.splitlines() if ln.startswith("FAIL")],
          r.stderr.decode(errors="replace")[-500:])
    check(out.count("\nok ") + out.startswith("ok ") == len(objs), "schema checked %s of %d objects", out, len(objs))


def pod_spec(o):
    return o["spec"]["template"]["spec"]


def container(o, name=None):
    cs = pod_spec(o)["containers"]
    check(len(cs) == 1 or name, "%s: %d containers", o["metadata"]["name"], len(cs))
    return cs[0] if name is None else [c for c in cs if c["name"] == name][0]


def env_of(c):
    return {e["name"]: e for e in c.get("env", [])}


def opt(args, name):
    check(name in args, "%s missing from %s", name, args)
    return args[args.index(name) + 1]


def m_name(args, flag):
    return re.fullmatch(r"\$\((\w+)\)", opt(args, flag)).group(1)


def quantity(q):
    """A Kubernetes quantity as a number: 500m, 4, 8Gi, 1G."""
    q = str(q)
    units = {"m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30,
             "Ti": 2 ** 40}
    m = re.fullmatch(r"([0-9.]+)([a-zA-Z]*)", q)
    check(m and (m.group(2) in units or not m.group(2)), "quantity %r", q)
    return float(m.group(1)) * units.get(m.group(2), 1)


def help_of(program):
    exe = os.path.join(BIN_DIR, program)
    check(os.access(exe, os.X_OK), "%s is not built (make)", exe)
    r = subprocess.run([exe, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
    return r.stdout.decode(errors="replace")


def check_mars_container(o, program, port):
    c = container(o)
    args = c.get("args") or c.get("command")
    check(args[0] == program, "%s runs %s, not %s", o["metadata"]["name"], args[0], program)
    check(c["image"].split(":")[0].endswith("/mars-c"), "%s image %s", program, c["image"])
    env = env_of(c)
    # binds and advertises the pod's own IP
    check(opt(args, "-H") == "$(POD_IP)", "%s -H %s", program, opt(args, "-H"))
    check(env["POD_IP"]["valueFrom"]["fieldRef"]["fieldPath"] == "status.podIP", "%s POD_IP", program)
    check(opt(args, "-p") == str(port), "%s -p %s, want %d", program, opt(args, "-p"), port)
    check(opt(args, "-s") == SUPERVISORS, "%s -s %s", program, opt(args, "-s"))
    ref = env["MARS_TOKEN"]["valueFrom"]["secretKeyRef"]
    check(ref["name"] == "mars-token" and ref["key"] == "token" and not ref.get("optional"),
          "%s token from %s", program, ref)
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    check(port in ports.values(), "%s declares ports %s", program, ports)
    for probe in ("readinessProbe", "livenessProbe"):
        h = c[probe]["httpGet"]
        check(h["path"] == "/health", "%s %s path %s", program, probe, h["path"])
        check(ports.get(h["port"], h["port"]) == port, "%s %s port %s", program, probe, h["port"])
    ann = o["spec"]["template"]["metadata"].get("annotations", {})
    check(ann.get("prometheus.io/scrape") == "true" and ann.get("prometheus.io/port") == str(port)
          and ann.get("prometheus.io/path") == "/metrics", "%s prometheus annotations %s", program, ann)
    sc = pod_spec(o).get("securityContext", {})
    check(sc.get("runAsNonRoot") is True and sc.get("runAsUser") == MARS_UID, "%s securityContext %s", program, sc)
    # every option is one the program has
    text = help_of(program)
    for a in args[1:]:
        if a.startswith("-"):
            check(re.search(r"(^|[\s,])%s\b" % re.escape(a), text), "%s has no option %s", program, a)
    return c, args, env


# ---- cases ----------------------------------------------------------------------

def case_render(state):
    state["base"] = render(K8S)


def case_schema(state):
    schema_check(state["base"])


def case_render_external(state):
    state["ext"] = render(os.path.join(K8S, "external-db"))


def case_schema_external(state):
    schema_check(state["ext"])


def case_database_statefulsets(state):
    k = by_kind(state["base"])
    for name, port, image in (("postgres", 5432, "mars-c-db"), ("redis", 6379, "mars-c-db")):
        s = k.get(("StatefulSet", name))
        check(s, "no StatefulSet %s: %s", name, sorted(k))
        check(s["spec"]["serviceName"] == name and ("Service", name) in k, "%s service", name)
        c = container(s)
        check(c["image"].split(":")[0].endswith("/" + image), "%s image %s", name, c["image"])
        check(c["ports"][0]["containerPort"] == port, "%s port", name)
        check(c.get("readinessProbe") and c.get("livenessProbe"), "%s probes", name)
        check(("NetworkPolicy", name) in k, "%s: no NetworkPolicy (it trusts its network)", name)
    pg = k[("StatefulSet", "postgres")]
    check(pg["spec"]["volumeClaimTemplates"], "postgres keeps no volume")
    # the supervisors read the DSN and URL from a Secret naming these Services
    sec = [o for o in state["base"] if o["kind"] == "Secret" and o["metadata"]["name"].startswith("mars-db")]
    check(len(sec) == 1, "Secret mars-db: %s", sec)
    import base64
    data = {kk: base64.b64decode(re.sub(r"\s", "", v)).decode() for kk, v in sec[0]["data"].items()}
    check("host=postgres" in data["pg-dsn"] and data["redis-url"].startswith("redis://redis:6379"), "%s", data)
    state["db_secret"] = sec[0]["metadata"]["name"]


def case_external_db(state):
    k = by_kind(state["ext"])
    for kind, name in (("StatefulSet", "postgres"), ("StatefulSet", "redis"), ("Service", "postgres"),
                       ("Service", "redis")):
        check((kind, name) not in k, "external-db still has %s %s", kind, name)
    sec = [o for o in state["ext"] if o["kind"] == "Secret" and o["metadata"]["name"].startswith("mars-db")]
    check(len(sec) == 1, "Secret mars-db: %s", sec)
    import base64
    data = {kk: base64.b64decode(re.sub(r"\s", "", v)).decode() for kk, v in sec[0]["data"].items()}
    want = dict(ln.split("=", 1) for ln in open(os.path.join(K8S, "external-db", "db.env")).read().splitlines()
                if ln and not ln.startswith("#"))
    check(data == want, "external-db Secret %s, db.env %s", data, want)
    sup = container(k[("StatefulSet", "supervisor")])
    refs = {e["name"]: e["valueFrom"]["secretKeyRef"]["name"] for e in sup["env"] if "secretKeyRef" in
            e.get("valueFrom", {})}
    check(refs.get("MARS_PG_DSN") == sec[0]["metadata"]["name"] == refs.get("MARS_REDIS_URL"),
          "the supervisors read %s, the Secret is %s", refs, sec[0]["metadata"]["name"])
    for kind in ("Deployment", "StatefulSet"):
        for (kd, name), o in k.items():
            if kd == kind and name in ("gateway", "worker", "supervisor"):
                check(o == by_kind(state["base"])[(kd, name)] or kd == "StatefulSet",
                      "%s %s differs from the base", kd, name)


def case_supervisors(state):
    k = by_kind(state["base"])
    s = k[("StatefulSet", "supervisor")]
    check(s["spec"]["replicas"] == 2, "supervisors: %s", s["spec"]["replicas"])
    check(s["spec"]["serviceName"] == "supervisor", "serviceName %s", s["spec"]["serviceName"])
    svc = k[("Service", "supervisor")]
    check(svc["spec"].get("clusterIP") == "None", "the supervisor Service must be headless (stable pod names)")
    # -s names each supervisor pod: NAME-i.SERVICE
    names = ["supervisor-%d.supervisor:7103" % i for i in range(s["spec"]["replicas"])]
    check(",".join(names) == SUPERVISORS, "-s %s, pods %s", SUPERVISORS, names)
    c, args, env = check_mars_container(s, "mars-supervisor", 7103)
    check("-w" not in args, "the REST API is the gateway's")
    for var, key in (("MARS_PG_DSN", "pg-dsn"), ("MARS_REDIS_URL", "redis-url")):
        ref = env[var]["valueFrom"]["secretKeyRef"]
        check(ref["name"] == state["db_secret"] and ref["key"] == key, "%s from %s", var, ref)


def case_gateway(state):
    k = by_kind(state["base"])
    d = k[("Deployment", "gateway")]
    check_mars_container(d, "mars-gateway", 7005)
    svc = k[("Service", "mars-gateway")]
    sel = svc["spec"]["selector"]
    labels = d["spec"]["template"]["metadata"]["labels"]
    check(all(labels.get(a) == b for a, b in sel.items()), "Service selector %s, pod labels %s", sel, labels)
    check(svc["spec"]["ports"][0]["port"] == 7005, "gateway Service port %s", svc["spec"]["ports"])


def case_workers_limits(state):
    k = by_kind(state["base"])
    d = k[("Deployment", "worker")]
    c, args, env = check_mars_container(d, "mars-worker", 7200)
    lim = c["resources"]["limits"]
    check("cpu" in lim and "memory" in lim, "worker limits %s", lim)
    for flag, resource in (("--n-cpu", "limits.cpu"), ("--phy-mem", "limits.memory")):
        v = opt(args, flag)
        m = re.fullmatch(r"\$\((\w+)\)", v)
        check(m, "%s %s: not a variable", flag, v)
        ref = env[m.group(1)]["valueFrom"]["resourceFieldRef"]
        check(ref["resource"] == resource and ref.get("containerName") == c["name"] and str(ref.get("divisor")) == "1",
              "%s from %s", flag, ref)
    check("--spill-dirs" in args, "worker without --spill-dirs")
    # The command line as the kubelet makes it (downward API values: whole
    # cores rounded up, bytes), given to the real program, which must accept
    # it: with --min-mem above any machine it then stops at once with exit 1
    # (a rejected command line is exit 2).
    values = {"POD_IP": "127.0.0.1", m_name(args, "--n-cpu"): str(int(-(-quantity(lim["cpu"]) // 1))),
              m_name(args, "--phy-mem"): str(int(quantity(lim["memory"])))}
    spill = tempfile.mkdtemp(prefix="mars-k8s-spill-")
    argv = [re.sub(r"\$\((\w+)\)", lambda m: values[m.group(1)], a) for a in args[1:]]
    argv[argv.index("--spill-dirs") + 1] = spill
    r = subprocess.run([os.path.join(BIN_DIR, "mars-worker")] + argv + ["--min-mem", "1000t"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30, env={"PATH": "/usr/bin:/bin"})
    shutil.rmtree(spill, ignore_errors=True)
    out = r.stdout.decode(errors="replace")
    check(r.returncode == 1 and "--min-mem" in out, "mars-worker %s: exit %d: %s", argv, r.returncode, out[-500:])


def case_job(state):
    """deploy/k8s/job: a Job that submits a graph to the gateway Service with
    the token, from a ConfigMap (its script runs for real in
    tests/deploy/test_compose_podman.py)."""
    objs = render(os.path.join(K8S, "job"))
    schema_check(objs)
    k = by_kind(objs)
    job, cm = k[("Job", "mars-submit")], k[("ConfigMap", "mars-graph")]
    spec = job["spec"]["template"]["spec"]
    c = spec["containers"][0]
    check(c["image"].split(":")[0].endswith("/mars-c"), "job image %s", c["image"])
    check(spec["restartPolicy"] == "Never" and job["spec"]["backoffLimit"] == 0, "the job retries: %s", job["spec"])
    ref = env_of(c)["MARS_TOKEN"]["valueFrom"]["secretKeyRef"]
    check(ref["name"] == "mars-token" and ref["key"] == "token", "job token %s", ref)
    check(spec["volumes"][0]["configMap"]["name"] == "mars-graph", "job volume %s", spec["volumes"])
    doc = json.loads(cm["data"]["graph.json"])
    check(doc["version"] == 1 and doc["fetch"], "graph %s", doc)
    base = by_kind(state["base"])
    check("http://mars-gateway:%d" % base[("Service", "mars-gateway")]["spec"]["ports"][0]["port"]
          in cm["data"]["submit.sh"], "the job's script does not call the gateway Service")


def case_token_secret_everywhere(state):
    for o in state["base"]:
        if o["kind"] == "Secret":
            check(not o["metadata"]["name"].startswith("mars-token"),
                  "the token Secret must not be in the repository: %s", o["metadata"]["name"])


def main():
    run = Runner()
    state = {}
    if run.case("render", case_render, state):
        run.case("schema", case_schema, state)
        run.case("database_statefulsets", case_database_statefulsets, state)
        run.case("supervisors", case_supervisors, state)
        run.case("gateway", case_gateway, state)
        run.case("workers_limits", case_workers_limits, state)
        run.case("token_secret_everywhere", case_token_secret_everywhere, state)
        run.case("job", case_job, state)
        if run.case("render_external", case_render_external, state):
            run.case("schema_external", case_schema_external, state)
            run.case("external_db", case_external_db, state)
    return run.finish()


if __name__ == "__main__":
    sys.exit(main())
