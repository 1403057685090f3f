"""Helpers of the differential suite: run mars-run on graph documents, load its
.npy outputs and compare them with npref (numpy 1.24).

The binary is $MARS_RUN, default build/san/bin/mars-run (ASan + UBSan) under
the repository root. Every suite prints one line per case, `ok NAME` or
`FAIL NAME: reason` (a failing case may add indented detail lines, such as
the document that reproduces it), and ends with exactly one line
`RESULT passed=N failed=M` (tests/run.sh parses it); the exit status is 1 when
anything failed.

Cases are batched: many small documents are merged into one (keys prefixed
`cN.`) so that one process start serves dozens of cases. When a batch is
rejected or crashes, or one of its cases mismatches, the cases concerned are
run again alone, so every failure is reported with its own minimal document.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npref  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

os.environ.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
os.environ.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")

RTOL = {np.dtype(np.float64): 1e-6, np.dtype(np.float32): 1e-4}
# A run under ASan of a small document takes well under a second; the limit
# only stops a hung engine from stalling the suite.
RUN_TIMEOUT = float(os.environ.get("MARS_RUN_TIMEOUT", "120"))


def mars_run_path():
    p = os.environ.get("MARS_RUN")
    if p:
        return p if os.path.isabs(p) else os.path.join(REPO, p)
    return os.path.join(REPO, "build", "san", "bin", "mars-run")


def dumps(doc):
    """JSON text of a document; NaN can never slip into one."""
    return json.dumps(doc, allow_nan=False, separators=(",", ":"))


class RunResult:
    def __init__(self, rc, stdout, stderr, outdir, elapsed):
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.outdir = outdir
        self.elapsed = elapsed

    def stderr_lines(self):
        return [l for l in self.stderr.splitlines() if l.strip()]

    def files(self):
        if not self.outdir or not os.path.isdir(self.outdir):
            return []
        return sorted(os.listdir(self.outdir))

    def load(self, key):
        return np.load(os.path.join(self.outdir, key + ".npy"), allow_pickle=False)

    def brief_error(self):
        """The most telling line of stderr: a sanitizer report's headline, or
        the last line."""
        lines = self.stderr_lines()
        for l in lines:
            if ("ERROR: " in l and "Sanitizer" in l) or "runtime error:" in l:
                return l.strip()[:400]
        if self.rc == 124:
            return "timed out"
        return (lines[-1].strip()[:400] if lines else "(no message)")


def run_mars(doc=None, text=None, args=(), threads=None, outdir=None, use_stdin=False,
             graph_path=None, timeout=RUN_TIMEOUT, make_outdir=True):
    """Runs mars-run on a document (dict `doc`, or raw `text`, or an existing
    file `graph_path`). Returns a RunResult whose outdir the caller removes
    with cleanup(result) (outdir is a fresh temp dir unless given)."""
    tmp = tempfile.mkdtemp(prefix="mars-diff-")
    if outdir is None:
        outdir = os.path.join(tmp, "out")
    if text is None and doc is not None:
        text = dumps(doc)
    # Options go before the graph here, so that the suites run whatever the
    # order the binary accepts; test_cli.py checks the contract's order
    # (`mars-run GRAPH.json -o DIR`) itself.
    cmd = [mars_run_path(), "-o", outdir]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    cmd += list(args)
    stdin_data = None
    if graph_path is not None:
        cmd.append(graph_path)
    elif use_stdin:
        cmd.append("-")
        stdin_data = text.encode() if isinstance(text, str) else text
    else:
        gp = os.path.join(tmp, "graph.json")
        with open(gp, "wb") as f:
            f.write(text.encode() if isinstance(text, str) else text)
        cmd.append(gp)
    t0 = time.time()
    try:
        p = subprocess.run(cmd, input=stdin_data, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout,
                           stdin=None if use_stdin else subprocess.DEVNULL)
        rc, so, se = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, so, se = 124, e.stdout or b"", e.stderr or b""
    except FileNotFoundError:
        rc, so, se = 127, b"", ("mars-run not found at %s" % cmd[0]).encode()
    r = RunResult(rc, so.decode("utf-8", "replace"), se.decode("utf-8", "replace"), outdir,
                  time.time() - t0)
    r._tmp = tmp
    return r


def cleanup(r):
    tmp = getattr(r, "_tmp", None)
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)


def _fmt(v):
    if isinstance(v, (np.floating, float)):
        return repr(float(v))
    return repr(v.item() if hasattr(v, "item") else v)


def compare(expected, actual, rtol=None, scale=0.0, atol=None):
    """None when actual matches expected, else a reason. Shapes and dtypes must
    be equal; integers and bools exactly; floats with NaN and infinities in
    the same places and the rest within rtol (1e-6 float64, 1e-4 float32)
    plus an absolute tolerance of rtol * scale * 4 (scale: npref's error scale
    for values computed inexactly, 0 otherwise)."""
    expected = np.asarray(expected)
    actual = np.asarray(actual)
    if actual.dtype != expected.dtype:
        return "dtype %s, expected %s" % (actual.dtype, expected.dtype)
    if actual.shape != expected.shape:
        return "shape %s, expected %s" % (actual.shape, expected.shape)
    if expected.dtype.kind in "biu":
        if np.array_equal(expected, actual):
            return None
        bad = np.argwhere(expected != actual)
        i = tuple(bad[0])
        return "%d of %d values differ; at %s: %s, expected %s" % (
            len(bad), expected.size, list(i), _fmt(actual[i]), _fmt(expected[i]))
    if rtol is None:
        rtol = RTOL[expected.dtype]
    if atol is None:
        atol = rtol * scale * 4
    e = expected.astype(np.float64)
    a = actual.astype(np.float64)
    en, an = np.isnan(e), np.isnan(a)
    ei, ai = np.isinf(e), np.isinf(a)
    fin = ~(en | ei)
    with np.errstate(all="ignore"):
        close = np.abs(a - e) <= atol + rtol * np.abs(e)
    ok = np.where(en, an, np.where(ei, ai & (np.sign(a) == np.sign(e)), close & ~an & ~ai))
    ok = ok | (en & an)
    if np.all(ok):
        return None
    bad = np.argwhere(~ok) if ok.ndim else np.array([[]], dtype=int)
    i = tuple(bad[0]) if ok.ndim else ()
    with np.errstate(all="ignore"):
        md = np.max(np.abs(a - e)[fin & ~ok]) if np.any(fin & ~ok) else float("nan")
    return "%d of %d values differ (rtol %g, atol %.3g, max abs diff %.3g); at %s: %s, expected %s" % (
        int(np.sum(~ok)), expected.size, rtol, atol, md, list(i), _fmt(actual[i]),
        _fmt(expected[i]))


class Suite:
    """Counts and prints results; finish() prints the RESULT line and exits."""

    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0
        self.failures = []
        self.t0 = time.time()

    def ok(self, name):
        self.passed += 1
        print("ok %s" % name, flush=True)

    def fail(self, name, reason, doc=None, detail=None):
        self.failed += 1
        reason = " ".join(str(reason).split())
        print("FAIL %s: %s" % (name, reason), flush=True)
        if doc is not None:
            text = doc if isinstance(doc, str) else dumps(doc)
            if len(text) > 4000:
                text = text[:4000] + " ...(%d chars)" % len(text)
            print("    doc: %s" % text, flush=True)
        if detail:
            for l in str(detail).splitlines()[:20]:
                print("    %s" % l, flush=True)
        self.failures.append(name)

    def check(self, name, cond, reason, doc=None):
        if cond:
            self.ok(name)
        else:
            self.fail(name, reason, doc)
        return cond

    def finish(self):
        print("# %s: %.1f s with %s" % (self.name, time.time() - self.t0, mars_run_path()),
              flush=True)
        print("RESULT passed=%d failed=%d" % (self.passed, self.failed), flush=True)
        sys.exit(1 if self.failed else 0)


class Case:
    """A document whose fetched results must equal npref's.

    rtol: override of the float tolerance. check: an optional callable
    check(values: {key: array}, doc) -> None or reason, run in addition (or
    instead, with compare=False) on the fetched values. stats: random nodes
    are fetched as well and checked against their distribution's support."""

    def __init__(self, name, doc, rtol=None, check=None, compare=True, threads=None):
        self.name = name
        self.doc = doc
        self.rtol = rtol
        self.check = check
        self.compare = compare
        self.threads = threads


def doc(nodes, fetch):
    return {"version": 1, "nodes": nodes, "fetch": list(fetch)}


def random_keys(d):
    return [n["key"] for n in d["nodes"] if n.get("op") in npref.RANDOM_OPS]


def with_random_fetched(d):
    d = json.loads(json.dumps(d))
    for k in random_keys(d):
        if k not in d["fetch"]:
            d["fetch"].append(k)
    return d


def _prefixed(d, prefix):
    nodes = []
    for n in d["nodes"]:
        m = dict(n)
        m["key"] = prefix + n["key"]
        if "inputs" in n and isinstance(n["inputs"], list):
            m["inputs"] = [prefix + i if isinstance(i, str) else i for i in n["inputs"]]
        if isinstance(n.get("outputs"), list):  # an op with several results
            m["outputs"] = [prefix + o if isinstance(o, str) else o for o in n["outputs"]]
        nodes.append(m)
    return nodes, [prefix + k for k in d["fetch"]]


def merge(docs):
    """One document holding every document of docs, keys prefixed cN."""
    nodes, fetch = [], []
    for i, d in enumerate(docs):
        n, f = _prefixed(d, "c%d." % i)
        nodes += n
        fetch += f
    return {"version": 1, "nodes": nodes, "fetch": fetch}


def evaluate_case(case, got):
    """Compares the values mars-run gave for one case (dict key -> array, the
    case's own keys, random nodes included) with npref. None or a reason."""
    d = case.doc
    rnd = {}
    for n in d["nodes"]:
        if n.get("op") in npref.RANDOM_OPS:
            k = n["key"]
            if k not in got:
                return "random node %s not written" % k
            why = npref.random_sanity(n, got[k])
            if why:
                return "random node %s: %s" % (k, why)
            rnd[k] = got[k]
    if case.compare:
        scales = {}
        try:
            exp = npref.evaluate(d, random_values=rnd, scales=scales)
        except npref.Rejected as e:
            return "npref rejects the document (the case is wrong): %s" % e
        for k in d["fetch"]:
            if k not in got:
                return "%s.npy not written" % k
            scale, rt = scales.get(k, (0.0, None))
            if case.rtol is not None:
                rt = case.rtol
            elif rt is not None and exp[k].dtype in RTOL:
                rt = max(rt, RTOL[exp[k].dtype])
            why = compare(exp[k], got[k], rtol=rt, scale=scale)
            if why:
                return "%s: %s" % (k, why)
    if case.check:
        try:
            why = case.check(got, d)
        except Exception as e:  # a check that breaks is a failure, not a crash
            why = "check raised %r" % e
        if why:
            return why
    return None


def _collect(r, keys):
    got, missing = {}, []
    for k in keys:
        p = os.path.join(r.outdir, k + ".npy")
        if os.path.exists(p):
            try:
                got[k] = np.load(p, allow_pickle=False)
            except Exception as e:
                missing.append("%s.npy unreadable: %s" % (k, e))
        else:
            missing.append(k)
    return got, missing


def run_case_alone(case):
    """Runs one case in a document of its own. Returns None or a reason."""
    return _run_one(with_random_fetched(case.doc), [], case.threads,
                    lambda got: evaluate_case(case, got))


def run_cases(suite, cases, batch_nodes=400, threads=None):
    """Runs cases in merged documents of about batch_nodes nodes each; prints
    ok/FAIL per case. Cases with their own thread count run alone.
    MARS_DIFF_THREADS sets --threads for the batches."""
    if threads is None and os.environ.get("MARS_DIFF_THREADS"):
        threads = int(os.environ["MARS_DIFF_THREADS"])
    checked = []
    for c in cases:
        # a document numpy refuses is a mistake of the case, not of the engine
        try:
            npref.evaluate(c.doc, random_values=_stand_in_random(c.doc))
        except npref.Rejected as e:
            suite.fail(c.name, "the case is wrong: numpy refuses its document: %s" % e, c.doc)
            continue
        checked.append(c)
    cases = checked
    alone = [c for c in cases if c.threads is not None]
    rest = [c for c in cases if c.threads is None]
    batches, cur, n = [], [], 0
    for c in rest:
        if cur and n + len(c.doc["nodes"]) > batch_nodes:
            batches.append(cur)
            cur, n = [], 0
        cur.append(c)
        n += len(c.doc["nodes"])
    if cur:
        batches.append(cur)
    for b in batches:
        _run_batch(suite, b, threads)
    for c in alone:
        why = run_case_alone(c)
        if why:
            suite.fail(c.name, why, with_random_fetched(c.doc))
        else:
            suite.ok(c.name)


def _stand_in_random(d):
    """Values of the random nodes' shapes and dtypes, for checking a case."""
    out = {}
    for n in d["nodes"]:
        if n.get("op") in npref.RANDOM_OPS:
            shape = npref._shape(n.get("shape", []))
            if n["op"] == "random.randint":
                out[n["key"]] = np.full(shape, n.get("low", 0), npref._dtype(n, np.dtype(np.int64)))
            else:
                out[n["key"]] = np.full(shape, 0.5)
    return out


def _run_batch(suite, batch, threads):
    docs = [with_random_fetched(c.doc) for c in batch]
    merged = merge(docs)
    r = run_mars(merged, threads=threads)
    try:
        if r.rc != 0:
            # Rejected or crashed as a whole: find the culprits one by one.
            results = [None] * len(batch)
            for i, c in enumerate(batch):
                results[i] = run_case_alone(c)
            if all(x is None for x in results):
                for c in batch:
                    suite.ok(c.name)
                path = os.path.join(tempfile.gettempdir(), "mars-diff-batch-%d.json" % os.getpid())
                with open(path, "w") as f:
                    f.write(dumps(merged))
                suite.fail("batch(%s..%s)" % (batch[0].name, batch[-1].name),
                           "every case passes alone, but their merged document of %d nodes "
                           "failed: exit %d: %s; document saved in %s"
                           % (len(merged["nodes"]), r.rc, r.brief_error(), path))
                return
            for c, why in zip(batch, results):
                if why:
                    suite.fail(c.name, why, with_random_fetched(c.doc))
                else:
                    suite.ok(c.name)
            return
        for i, (c, d) in enumerate(zip(batch, docs)):
            prefix = "c%d." % i
            got, missing = _collect(r, [prefix + k for k in d["fetch"]])
            got = {k[len(prefix):]: v for k, v in got.items()}
            if missing:
                why = "missing outputs in batch: %s" % ", ".join(missing[:5])
            else:
                why = evaluate_case(c, got)
            if why:
                alone = run_case_alone(c)
                if alone:
                    suite.fail(c.name, alone, with_random_fetched(c.doc))
                else:
                    suite.fail(c.name, "only in a batch: %s (passes alone)" % why)
            else:
                suite.ok(c.name)
    finally:
        cleanup(r)


def run_grouped(suite, items, batch_nodes=2000):
    """Runs documents that need command-line settings of their own (threads,
    --sort-block-bytes, --chunk-bytes...): items are (name, doc, args,
    threads, check), check(got) -> None or a reason, got a dict fetch key ->
    array. Documents with the same settings run merged (keys prefixed cN.),
    about batch_nodes nodes per process; a merged run that fails, or a case
    that does not pass in it, runs again alone, so every failure is reported
    with its own document and settings."""
    groups = {}
    for it in items:
        groups.setdefault((tuple(it[2]), it[3]), []).append(it)
    for (args, threads), its in groups.items():
        batch, n = [], 0
        for it in its + [None]:
            if batch and (it is None or n + len(it[1]["nodes"]) > batch_nodes):
                _run_group(suite, batch, list(args), threads)
                batch, n = [], 0
            if it is not None:
                batch.append(it)
                n += len(it[1]["nodes"])


def _run_one(doc, args, threads, check):
    r = run_mars(doc, threads=threads, args=args)
    try:
        if r.rc != 0:
            return "exit %d: %s" % (r.rc, r.brief_error())
        got, missing = _collect(r, doc["fetch"])
        if missing:
            return "missing outputs: %s" % ", ".join(missing[:5])
        return _checked(check, got)
    finally:
        cleanup(r)


def _checked(check, got):
    try:
        return check(got)
    except Exception as e:  # a check that breaks is a failure, not a crash
        return "check raised %r" % e


def _report(suite, it, why, extra=""):
    name, doc, args, threads, _ = it
    if why:
        settings = " ".join(list(args) + (["--threads", str(threads)] if threads else []))
        suite.fail(name, why + extra + (" (with %s)" % settings if settings else ""), doc)
    else:
        suite.ok(name)


def _run_group(suite, batch, args, threads):
    if len(batch) == 1:
        it = batch[0]
        _report(suite, it, _run_one(it[1], args, threads, it[4]))
        return
    merged = merge([it[1] for it in batch])
    r = run_mars(merged, threads=threads, args=args)
    try:
        results, error = None, "exit %d: %s" % (r.rc, r.brief_error())
        if r.rc == 0:
            results = []
            for i, it in enumerate(batch):
                prefix = "c%d." % i
                got, missing = _collect(r, [prefix + k for k in it[1]["fetch"]])
                got = {k[len(prefix):]: v for k, v in got.items()}
                results.append("missing outputs in batch: %s" % ", ".join(missing[:5])
                               if missing else _checked(it[4], got))
    finally:
        cleanup(r)
    all_alone_pass = True
    for i, it in enumerate(batch):
        if results is not None and results[i] is None:
            suite.ok(it[0])
            continue
        alone = _run_one(it[1], args, threads, it[4])
        all_alone_pass = all_alone_pass and alone is None
        if alone or results is None:
            _report(suite, it, alone)
        else:
            _report(suite, it, "only in a batch: %s (passes alone)" % results[i])
    if results is None and all_alone_pass:
        path = os.path.join(tempfile.gettempdir(), "mars-diff-batch-%d.json" % os.getpid())
        with open(path, "w") as f:
            f.write(dumps(merged))
        suite.fail("batch(%s..%s)" % (batch[0][0], batch[-1][0]),
                   "every case passes alone, but their merged document of %d nodes failed: "
                   "%s; document saved in %s" % (len(merged["nodes"]), error, path))


def have_mars_run():
    return os.path.isfile(mars_run_path()) and os.access(mars_run_path(), os.X_OK)


def refused(rc, stderr):
    """Whether mars-run refused a document as it should: exit 2 with a
    message (validation), or exit 1 with a job's message naming the node
    (when it runs, as a sample larger than the rows a filter left); never a
    crash or a sanitizer report."""
    return (rc == 2 and bool(stderr.strip())) or (
        rc == 1 and stderr.startswith("mars-run: node ") and "Sanitizer" not in stderr and
        "runtime error" not in stderr)


def require_mars_run(suite):
    """A suite cannot pass without the binary: one failure, then finish."""
    if not have_mars_run():
        suite.fail("mars-run-present", "no executable at %s (make build)" % mars_run_path())
        suite.finish()


def check_rejected(r, key=None, op=None):
    """None when a run was a proper rejection: exit 2, exactly one line on
    stderr naming the node (`node "KEY" (OP):`) when key is given, and no
    .npy written. Else a reason."""
    lines = r.stderr_lines()
    if r.rc != 2:
        return "exit %d, expected 2 (stderr: %s)" % (r.rc, r.brief_error())
    if len(lines) != 1:
        return "%d lines on stderr, expected 1: %r" % (len(lines), r.stderr[:300])
    if key is not None:
        want = 'node "%s"' % key + (" (%s):" % op if op else "")
        if want not in lines[0]:
            return "message does not name %s: %r" % (want, lines[0])
    npy = [f for f in r.files() if f.endswith(".npy")]
    if npy:
        return "wrote %s although the document was rejected" % ", ".join(npy[:3])
    return None


class Reject:
    """A document mars-run must reject (exit 2) naming node `key` and `op`."""

    def __init__(self, name, doc, key=None, op=None):
        self.name = name
        self.doc = doc
        self.key = key
        self.op = op


def run_rejects(suite, rejects):
    for c in rejects:
        r = run_mars(c.doc) if isinstance(c.doc, dict) else run_mars(text=c.doc)
        try:
            why = check_rejected(r, c.key, c.op)
        finally:
            cleanup(r)
        if why:
            suite.fail(c.name, why, c.doc)
        else:
            suite.ok(c.name)
