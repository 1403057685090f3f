#!/usr/bin/python3
"""read_csv of files past CSV_INFER_PARALLEL_BYTES (32 MiB), whose scan at
validation runs on threads (engine/graph_df.c, infer_ranges): the types
pandas infers over the whole file (an int column whose one float is in the
last chunk is float64, a column whose one word is in the middle is object),
the rows and values, against pandas; and the message of a bad row late in
the file names the same line as the serial scan of a small file does.

Run: /usr/bin/python3 tests/diff/test_csv_big.py
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

passed = failed = 0


def report(name, why):
    global passed, failed
    if not why:
        passed += 1
        print("ok", name)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))


def run(data, nodes, fetch):
    out = tempfile.mkdtemp(prefix="csvbig_out_")
    p = subprocess.run([harness.mars_run_path(), "-", "-o", out, "--data-dir", data],
                       input=json.dumps({"version": 1, "nodes": nodes, "fetch": fetch}).encode(),
                       capture_output=True, timeout=600)
    got = {}
    if p.returncode == 0:
        for k in fetch:
            path = os.path.join(out, k + ".json")
            if os.path.exists(path):
                with open(path) as f:
                    got[k] = json.load(f)
            else:
                got[k] = np.load(os.path.join(out, k + ".npy"))
    shutil.rmtree(out, ignore_errors=True)
    return p.returncode, p.stderr.decode(errors="replace"), got


def write(path, n, late_float=True, bad_line=None):
    rng = np.random.default_rng(11)
    i = rng.integers(-10**6, 10**6, n).astype(str).astype(object)
    j = rng.integers(0, 100, n).astype(str).astype(object)
    if late_float:
        i[n - 3] = "2.5"
    j[n // 2] = "word"
    s = np.array(["alpha", "beta", "gamma", "delta"])[rng.integers(0, 4, n)].astype(object)
    lines = pd.Series(i) + "," + pd.Series(j) + "," + pd.Series(s)
    rows = lines.tolist()
    if bad_line is not None:
        rows[bad_line] = rows[bad_line] + ",extra"
    with open(path, "w") as f:
        f.write("i,j,s\n" + "\n".join(rows) + "\n")


def main():
    if not harness.have_mars_run():
        print("RESULT passed=0 failed=1")
        return 1
    data = tempfile.mkdtemp(prefix="csvbig_")
    try:
        n = 2400000
        write(os.path.join(data, "big.csv"), n)
        size = os.path.getsize(os.path.join(data, "big.csv"))
        report("file past 32 MiB", "" if size > 32 << 20 else "only %d bytes" % size)
        # low_memory=False: pandas' types over the whole file, as the engine's
        P = pd.read_csv(os.path.join(data, "big.csv"), low_memory=False)
        nodes = [{"key": "t", "op": "dataframe.read_csv", "path": "big.csv", "chunk_bytes": 1 << 20},
                 {"key": "h", "op": "dataframe.tail", "inputs": ["t"], "n": 5},
                 {"key": "c", "op": "dataframe.count", "inputs": ["t"]},
                 {"key": "m", "op": "dataframe.getitem", "inputs": ["t"], "columns": "i"},
                 {"key": "s", "op": "dataframe.sum", "inputs": ["m"]}]
        rc, err, got = run(data, nodes, ["h", "c", "s"])
        why = "exit %d: %s" % (rc, err[:300]) if rc else ""
        if not why:
            want = {"i": "float64", "j": "object", "s": "object"}
            if got["h"]["dtypes"] != want:
                why = "dtypes %r, pandas %r" % (got["h"]["dtypes"], dict(P.dtypes.astype(str)))
        if not why and got["h"]["index"] != P.tail(5).index.tolist():
            why = "tail index %r" % got["h"]["index"]
        if not why and got["h"]["data"] != [[float(a), b, c] for a, b, c in
                                             P.tail(5).itertuples(index=False)]:
            why = "tail rows %r vs %r" % (got["h"]["data"], P.tail(5).values.tolist())
        if not why and got["c"]["data"] != P.count().tolist():
            why = "count %r vs %r" % (got["c"]["data"], P.count().tolist())
        if not why and not np.isclose(float(got["s"]), P.i.sum(), rtol=1e-12):
            why = "sum %r vs %r" % (got["s"], P.i.sum())
        report("types and values over threads", why)
        # a bad row late in the file: the same message as a small file's
        write(os.path.join(data, "bad.csv"), n, bad_line=n - 10)
        write(os.path.join(data, "bad_small.csv"), 3000, bad_line=2990)
        msgs = []
        for name in ("bad.csv", "bad_small.csv"):
            rc, err, _ = run(data, [{"key": "t", "op": "dataframe.read_csv", "path": name,
                                     "chunk_bytes": 1 << 20}], ["t"])
            msgs.append((rc, err.strip()))
        why = ""
        if msgs[0][0] != 2 or "Expected 3 fields in line %d, saw 4" % (n - 10 + 2) not in msgs[0][1]:
            why = "big file: %r" % (msgs[0],)
        elif msgs[1][0] != 2 or "Expected 3 fields in line %d, saw 4" % (2990 + 2) not in msgs[1][1]:
            why = "small file: %r" % (msgs[1],)
        report("late bad row named", why)
    finally:
        shutil.rmtree(data, ignore_errors=True)
    print("RESULT passed=%d failed=%d" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
