#!/usr/bin/python3
"""mars-run as a program: standard input, --threads, -o, exit codes and
messages of the command line, the .npy files it writes, and the seed example.

Run: /usr/bin/python3 tests/diff/test_cli.py
"""

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import npref  # noqa: E402

REPO = harness.REPO


def N(key, op, inputs=None, **params):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = inputs
    n.update(params)
    return n


def D(nodes, fetch):
    return {"version": 1, "nodes": nodes, "fetch": fetch}


# A graph touching every stage kind: random leaves, fused element-wise ops,
# a matrix product, reductions, a scan, shape ops.
MIXED = D([
    N("a", "random.randn", shape=[67, 45], seed=11, chunk_size=[13, 8]),
    N("b", "random.rand", shape=[45, 31], seed=12, chunk_size=9),
    N("c", "matmul", ["a", "b"]),
    N("d", "exp", ["c"]), N("e", "tanh", ["d"]),
    N("s", "sum", ["c"], axis=0), N("m", "mean", ["a"]), N("v", "std", ["a"], axis=1, ddof=1),
    N("q", "cumsum", ["b"], axis=0), N("t", "transpose", ["c"]),
    N("g", "getitem", ["t"], index=["::-2", "3:40"]),
    N("i", "inner", ["a", "a"]),
    N("x", "argmax", ["a"], axis=1),
], ["a", "b", "c", "e", "s", "m", "v", "q", "g", "i", "x"])


def run_ok(suite, name, r, keys):
    if r.rc != 0:
        suite.fail(name, "exit %d: %s" % (r.rc, r.brief_error()))
        return None
    got = {}
    for k in keys:
        p = os.path.join(r.outdir, k + ".npy")
        if not os.path.exists(p):
            suite.fail(name, "%s.npy not written" % k)
            return None
        with open(p, "rb") as f:
            got[k] = f.read()
    return got


def npy_header_check(raw, expect_dtype, expect_shape):
    """Checks the .npy bytes: version 1.0 magic, little-endian descr, C order,
    the shape; returns None or a reason."""
    if raw[:8] != b"\x93NUMPY\x01\x00":
        return "magic/version %r, expected b'\\x93NUMPY\\x01\\x00'" % raw[:8]
    hlen = int.from_bytes(raw[8:10], "little")
    header = raw[10:10 + hlen].decode("latin-1")
    if (10 + hlen) % 64 != 0:
        return "header not padded to a multiple of 64 bytes (total %d)" % (10 + hlen)
    if not header.endswith("\n"):
        return "header does not end with a newline"
    import ast
    try:
        h = ast.literal_eval(header.strip())
    except Exception as e:
        return "header unreadable: %r (%s)" % (header, e)
    want = {"bool": "|b1", "int32": "<i4", "int64": "<i8", "float32": "<f4", "float64": "<f8"}[expect_dtype]
    if h.get("descr") != want:
        return "descr %r, expected %r" % (h.get("descr"), want)
    if h.get("fortran_order") is not False:
        return "fortran_order %r" % h.get("fortran_order")
    if tuple(h.get("shape", ())) != tuple(expect_shape):
        return "shape %r, expected %r" % (h.get("shape"), expect_shape)
    n = int(np.prod(expect_shape)) if expect_shape else 1
    size = {"bool": 1, "int32": 4, "int64": 8, "float32": 4, "float64": 8}[expect_dtype]
    if len(raw) - 10 - hlen != n * size:
        return "%d data bytes, expected %d" % (len(raw) - 10 - hlen, n * size)
    return None


def main():
    suite = harness.Suite("test_cli")
    harness.require_mars_run(suite)
    mr = harness.mars_run_path()

    # -- the seed example: ones(2000, 2000) chunk 200, inner(a, a) ------------
    seed_doc = os.path.join(REPO, "examples", "seed-inner.json")
    r = harness.run_mars(graph_path=seed_doc, timeout=600)
    try:
        got = run_ok(suite, "seed-example", r, ["b"])
        if got is not None:
            b = r.load("b")
            a = np.ones((2000, 2000))
            want = np.inner(a, a)
            why = harness.compare(want, b, scale=2000.0)
            suite.check("seed-example", why is None, why)
            print("# seed example: %.2f s with %s" % (r.elapsed, os.path.basename(os.path.dirname(os.path.dirname(mr)))))
    finally:
        harness.cleanup(r)

    # -- '-' reads standard input ---------------------------------------------
    r1 = harness.run_mars(MIXED, threads=2)
    r2 = harness.run_mars(MIXED, threads=2, use_stdin=True)
    try:
        g1 = run_ok(suite, "stdin/file-run", r1, MIXED["fetch"])
        g2 = run_ok(suite, "stdin/stdin-run", r2, MIXED["fetch"])
        if g1 is not None and g2 is not None:
            diff = [k for k in MIXED["fetch"] if g1[k] != g2[k]]
            suite.check("stdin/same-as-file", not diff, "outputs differ: %s" % diff)
            # and the mixed graph is right
            rnd = {k: np.load(os.path.join(r1.outdir, k + ".npy")) for k in ("a", "b")}
            sc = {}
            exp = npref.evaluate(MIXED, random_values=rnd, scales=sc)
            bad = []
            for k in MIXED["fetch"]:
                s, rt = sc.get(k, (0.0, None))
                why = harness.compare(exp[k], np.load(os.path.join(r1.outdir, k + ".npy")),
                                      rtol=rt, scale=s)
                if why:
                    bad.append("%s: %s" % (k, why))
            suite.check("mixed-graph-vs-numpy", not bad, "; ".join(bad), MIXED)
    finally:
        harness.cleanup(r1)
        harness.cleanup(r2)

    # -- --threads 1 vs 2 vs 5: byte-identical ----------------------------------
    runs = {t: harness.run_mars(MIXED, threads=t) for t in (1, 2, 5)}
    try:
        outs = {t: run_ok(suite, "threads/%d" % t, runs[t], MIXED["fetch"]) for t in runs}
        if all(o is not None for o in outs.values()):
            for t in (2, 5):
                diff = [k for k in MIXED["fetch"] if outs[1][k] != outs[t][k]]
                suite.check("threads/1-vs-%d-identical-bytes" % t, not diff,
                            "outputs differ between --threads 1 and %d: %s" % (t, diff))
            # the same run twice gives the same bytes
            r3 = harness.run_mars(MIXED, threads=2)
            try:
                o3 = run_ok(suite, "threads/repeat", r3, MIXED["fetch"])
                if o3 is not None:
                    diff = [k for k in MIXED["fetch"] if outs[2][k] != o3[k]]
                    suite.check("threads/repeat-identical-bytes", not diff, "differ: %s" % diff)
            finally:
                harness.cleanup(r3)
    finally:
        for r in runs.values():
            harness.cleanup(r)

    # -- -o creates the directory (nested), and replaces old files ------------
    tmp = tempfile.mkdtemp(prefix="mars-cli-")
    try:
        out = os.path.join(tmp, "x", "y", "z")
        d = D([N("a", "arange", stop=5)], ["a"])
        r = harness.run_mars(d, outdir=out)
        try:
            ok = r.rc == 0 and os.path.exists(os.path.join(out, "a.npy"))
            suite.check("output/creates-nested-dir", ok, "exit %d: %s; files %s" % (
                r.rc, r.brief_error(), os.listdir(out) if os.path.isdir(out) else "no dir"))
            if ok:
                extra = [f for f in os.listdir(out) if f != "a.npy"]
                suite.check("output/no-stray-files", not extra, "left %s" % extra)
        finally:
            harness.cleanup(r)
        with open(os.path.join(out, "a.npy"), "wb") as f:
            f.write(b"old")
        d2 = D([N("a", "arange", stop=7)], ["a"])
        r = harness.run_mars(d2, outdir=out)
        try:
            ok = r.rc == 0 and np.load(os.path.join(out, "a.npy")).tolist() == list(range(7))
            suite.check("output/replaces-existing", ok, "exit %d: %s" % (r.rc, r.brief_error()))
        finally:
            harness.cleanup(r)
        # -o pointing at a regular file: a failure with a message, never a crash
        fpath = os.path.join(tmp, "plainfile")
        with open(fpath, "w") as f:
            f.write("x")
        r = harness.run_mars(d, outdir=fpath)
        try:
            suite.check("output/dir-is-a-file", r.rc in (1, 2) and r.stderr_lines() and
                        "Sanitizer" not in r.stderr,
                        "exit %d, stderr %r" % (r.rc, r.stderr[:300]))
        finally:
            harness.cleanup(r)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    # -- keys that look like paths stay file names; an empty fetch writes nothing
    d = D([N(".", "ones", shape=[3]), N("..", "zeros", shape=[2]), N("-", "arange", stop=4),
           N("x" * 128, "full", shape=[1], fill_value=True)], [".", "..", "-", "x" * 128])
    r = harness.run_mars(d)
    try:
        ok = r.rc == 0 and sorted(r.files()) == sorted(k + ".npy" for k in d["fetch"])
        if ok:
            ok = r.load("..").tolist() == [0.0, 0.0] and r.load("-").tolist() == [0, 1, 2, 3]
        suite.check("output/odd-keys", ok, "exit %d, files %s: %s" % (r.rc, r.files(), r.brief_error()))
    finally:
        harness.cleanup(r)
    r = harness.run_mars(D([N("a", "ones", shape=[3])], []))
    try:
        suite.check("output/empty-fetch", r.rc == 0 and not [f for f in r.files() if f.endswith(".npy")],
                    "exit %d, files %s" % (r.rc, r.files()))
    finally:
        harness.cleanup(r)

    # -- nodes nothing fetched depends on are not run (docs/graph-format.md):
    # an integer to a negative power there does not fail the run
    d = D([N("b", "array", data=[2]), N("e", "array", data=[-1]), N("x", "power", ["b", "e"]),
           N("o", "ones", shape=[2])], ["o"])
    r = harness.run_mars(d)
    try:
        suite.check("output/unfetched-branch-not-run", r.rc == 0 and r.files() == ["o.npy"],
                    "exit %d, files %s: %s" % (r.rc, r.files(), r.brief_error()))
    finally:
        harness.cleanup(r)

    # -- command-line mistakes --------------------------------------------------
    def raw(args, stdin=None):
        p = subprocess.run([mr] + args, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")

    tmp = tempfile.mkdtemp(prefix="mars-cli-")
    try:
        missing = os.path.join(tmp, "does-not-exist.json")
        rc, so, se = raw([missing, "-o", os.path.join(tmp, "o")])
        lines = [l for l in se.splitlines() if l.strip()]
        suite.check("cli/missing-file", rc == 2 and len(lines) == 1 and "does-not-exist.json" in lines[0]
                    and ("No such file" in lines[0] or "cannot" in lines[0].lower()),
                    "exit %d, stderr %r (want exit 2 and one line naming the file)" % (rc, se[:300]))
        suite.check("cli/missing-file-no-output-dir", not os.path.exists(os.path.join(tmp, "o")) or
                    not os.listdir(os.path.join(tmp, "o")), "wrote into the output directory")
        gp = os.path.join(tmp, "g.json")
        with open(gp, "w") as f:
            f.write(harness.dumps(D([N("a", "ones", shape=[2])], ["a"])))
        rc, so, se = raw([gp])
        suite.check("cli/no-o", rc == 2 and len(se.strip().splitlines()) == 1, "exit %d, stderr %r" % (rc, se[:200]))
        rc, so, se = raw([gp, "-o", os.path.join(tmp, "o2"), "--threads", "0"])
        suite.check("cli/threads-0", rc == 2 and len(se.strip().splitlines()) == 1, "exit %d, stderr %r" % (rc, se[:200]))
        rc, so, se = raw([gp, "-o", os.path.join(tmp, "o2"), "--threads", "two"])
        suite.check("cli/threads-not-a-number", rc == 2, "exit %d, stderr %r" % (rc, se[:200]))
        rc, so, se = raw([gp, "-o", os.path.join(tmp, "o2"), "--frobnicate"])
        suite.check("cli/unknown-option", rc == 2 and len(se.strip().splitlines()) == 1,
                    "exit %d, stderr %r" % (rc, se[:200]))
        rc, so, se = raw([gp, gp, "-o", os.path.join(tmp, "o2")])
        suite.check("cli/two-graphs", rc == 2, "exit %d, stderr %r" % (rc, se[:200]))
        rc, so, se = raw(["--help"])
        suite.check("cli/help", rc == 0 and "mars-run" in so, "exit %d, stdout %r" % (rc, so[:200]))
        rc, so, se = raw([os.path.join(tmp), "-o", os.path.join(tmp, "o3")])
        suite.check("cli/graph-is-a-directory", rc in (1, 2) and se.strip() and "Sanitizer" not in se,
                    "exit %d, stderr %r" % (rc, se[:200]))
        rc, so, se = raw(["-", "-o", os.path.join(tmp, "o4")], stdin=b"")
        suite.check("cli/empty-stdin", rc == 2 and len(se.strip().splitlines()) == 1,
                    "exit %d, stderr %r" % (rc, se[:200]))
        rc, so, se = raw([gp, "-o", os.path.join(tmp, "o5"), "--threads", "3"])
        suite.check("cli/options-after-o", rc == 0 and os.path.exists(os.path.join(tmp, "o5", "a.npy")),
                    "exit %d, stderr %r" % (rc, se[:200]))
        rc, so, se = raw(["--threads", "1", "-o", os.path.join(tmp, "o6"), gp])
        suite.check("cli/options-before-graph", rc == 0 and os.path.exists(os.path.join(tmp, "o6", "a.npy")),
                    "exit %d, stderr %r" % (rc, se[:200]))
        rc, so, se = raw([gp, "-o", os.path.join(tmp, "o7"), "--data-dir", os.path.join(tmp, "nope")])
        suite.check("cli/data-dir-missing", rc == 2, "exit %d, stderr %r" % (rc, se[:200]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    # -- .npy files: 0-d and every dtype, headers numpy writes ------------------
    d = D([N("f", "random.rand", shape=[5, 3], seed=1, chunk_size=2),
           N("s", "sum", ["f"]),
           N("b", "less", ["f", 0.5]),
           N("i", "astype", ["f"], dtype="int32"),
           N("j", "arange", stop=7),
           N("k", "astype", ["f"], dtype="float32"),
           N("z", "zeros", shape=[0, 4]),
           N("t", "transpose", ["f"]),
           N("m", "max", ["b"])],
          ["s", "b", "i", "j", "k", "z", "t", "m", "f"])
    r = harness.run_mars(d)
    try:
        got = run_ok(suite, "npy/run", r, d["fetch"])
        if got is not None:
            exp_meta = {"s": ("float64", ()), "b": ("bool", (5, 3)), "i": ("int32", (5, 3)),
                        "j": ("int64", (7,)), "k": ("float32", (5, 3)), "z": ("float64", (0, 4)),
                        "t": ("float64", (3, 5)), "m": ("bool", ()), "f": ("float64", (5, 3))}
            for k, (dt, sh) in exp_meta.items():
                why = npy_header_check(got[k], dt, sh)
                suite.check("npy/header/%s-%s-%s" % (k, dt, sh), why is None, why)
            s = r.load("s")
            suite.check("npy/0d-loads", isinstance(s, np.ndarray) and s.shape == () and s.dtype == np.float64
                        and abs(float(s) - float(r.load("f").sum())) < 1e-12,
                        "got %r" % (s,))
            t = r.load("t")
            suite.check("npy/transpose-values", np.array_equal(t, r.load("f").T), "transposed values differ")
    finally:
        harness.cleanup(r)

    # -- a random node without a seed: the seed drawn is reported and repeats it
    d = D([N("r", "random.rand", shape=[40, 30], chunk_size=7)], ["r"])
    r = harness.run_mars(d)
    try:
        if r.rc != 0:
            suite.fail("seed/drawn", "exit %d: %s" % (r.rc, r.brief_error()))
        else:
            import re
            m = re.search(r'node "r" \(random\.rand\): drew seed (\d+)', r.stderr)
            if not suite.check("seed/drawn-reported", m is not None,
                               "no 'drew seed N' line for node r on stderr: %r" % r.stderr[:300]):
                pass
            else:
                seed = int(m.group(1))
                first = r.load("r")
                d2 = D([N("r", "random.rand", shape=[40, 30], chunk_size=11, seed=seed)], ["r"])
                r2 = harness.run_mars(d2)
                try:
                    ok = r2.rc == 0 and np.array_equal(first, r2.load("r"))
                    suite.check("seed/drawn-repeats", ok, "rerun with seed %d differs (exit %d)" % (seed, r2.rc))
                finally:
                    harness.cleanup(r2)
                r3 = harness.run_mars(d)
                try:
                    ok = r3.rc == 0 and not np.array_equal(first, r3.load("r"))
                    suite.check("seed/drawn-differs-between-runs", ok, "two runs without seed gave the same tensor")
                finally:
                    harness.cleanup(r3)
    finally:
        harness.cleanup(r)

    # -- a failing run (exit 1) writes no partial outputs -----------------------
    d = D([N("b", "array", data=[2, 3, 4], chunk_size=1), N("e", "array", data=[1, 2, -1], chunk_size=1),
           N("x", "power", ["b", "e"]), N("ok", "ones", shape=[3])], ["ok", "x"])
    r = harness.run_mars(d)
    try:
        npy = [f for f in r.files() if f.endswith(".npy")]
        suite.check("exit1/no-partial-output", r.rc == 1 and not npy,
                    "exit %d, files %s" % (r.rc, npy))
        tmpfiles = [f for f in r.files() if f.startswith(".")]
        suite.check("exit1/no-temp-files", not tmpfiles, "left %s" % tmpfiles)
    finally:
        harness.cleanup(r)

    suite.finish()


if __name__ == "__main__":
    main()
