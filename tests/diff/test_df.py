#!/usr/bin/python3
"""DataFrame ops through mars-run, compared with pandas 1.5 on multi-chunk
inputs (graph-format.md, DataFrames). Results are DIR/KEY.json in pandas'
"split" orientation plus dtypes; missing values are null there.

Cases that need the algorithms of engine/df (groupby, sort, merge,
describe, nunique) are skipped with a note when the binary reports them
missing; every other case must pass. Prints `RESULT passed=N failed=M`."""

import datetime
import glob
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

passed = failed = 0


def report(name, ok, why=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok", name)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))


def run(doc, data_dir, fails=False):
    """(exit status, stderr, output folder) of mars-run over doc. Under
    replay_cases, a document not run yet stops its case until the round's
    documents have run together; one the case expects to fail (fails=True:
    an error's exit status and message) runs at once, alone."""
    r = _replay
    if r is not None and r.live and data_dir == r.data and not fails:
        return r.run(doc)
    if r is not None:
        r.processes += 1
    return _run_now(doc, data_dir)


def _run_now(doc, data_dir, timeout=300):
    out = tempfile.mkdtemp(prefix="df_out_")
    p = subprocess.run([harness.mars_run_path(), "-", "-o", out, "--data-dir", data_dir],
                       input=json.dumps(doc).encode(), capture_output=True, timeout=timeout)
    return p.returncode, p.stderr.decode(errors="replace"), out


class _Pending(BaseException):
    """A case asked for a document the round has not run yet (BaseException:
    a case's own `except Exception` does not catch it)."""


class _Replay:
    """replay_cases' rounds. Every case runs from its start each round; run()
    answers the documents already run from the cache, and the first one not
    run yet stops the case. Between rounds the documents asked for run as
    one merged document (harness.merge: keys prefixed cN.), so a suite of a
    few hundred small documents costs a few processes. A document is cached
    with the contents of the files it names (cases write their CSVs), so a
    case whose files differ from round to round only misses the cache, and
    one whose files another case changed before it ran runs in place. A
    merged run that fails, or writes to stderr, gives way: the document its
    message names (or every one) runs alone, and that run's exit status and
    message are what the case sees."""

    def __init__(self, data_dir, batch_nodes=2000):
        self.data, self.batch_nodes = data_dir, batch_nodes
        self.cache, self.pending, self.live = {}, [], True
        self.stale = set()  # documents whose files changed before they ran: run in place
        self.processes = 0

    def fingerprint(self, doc):
        """The contents of the data folder's files the document names (any
        string of a node that is a path or a glob there)."""
        names, todo = set(), [n for n in doc["nodes"]]
        while todo:
            v = todo.pop()
            if isinstance(v, dict):
                todo += v.values()
            elif isinstance(v, list):
                todo += v
            elif isinstance(v, str) and v and "\0" not in v:
                names.update(p for p in glob.glob(os.path.join(self.data, v)) if os.path.isfile(p))
        h = hashlib.sha1()
        for path in sorted(names):
            h.update(path.encode() + b"\0")
            with open(path, "rb") as fh:
                h.update(hashlib.sha1(fh.read()).digest())
        return h.hexdigest()

    def run(self, doc):
        fp = self.fingerprint(doc)
        k = json.dumps(doc, sort_keys=True) + fp
        if k in self.cache:
            rc, err, files = self.cache[k]
            out = tempfile.mkdtemp(prefix="df_out_")
            for name, data in files.items():
                with open(os.path.join(out, name), "wb") as fh:
                    fh.write(data)
            return rc, err, out
        if k in self.stale:
            if os.environ.get("DF_REPLAY_DEBUG"):
                sys.stderr.write("stale %s\n" % json.dumps(doc)[:150])
            self.processes += 1
            return _run_now(doc, self.data)
        self.pending.append((k, doc, fp))
        raise _Pending()

    def flush(self):
        todo, seen = [], set()
        for k, doc, at in self.pending:
            if k in seen or k in self.cache:
                continue
            seen.add(k)
            if at != self.fingerprint(doc):
                self.stale.add(k)
            else:
                todo.append((k, doc))
        self.pending = []
        groups = {}
        for k, doc in todo:
            extra = json.dumps({f: v for f, v in doc.items() if f not in ("nodes", "fetch")},
                               sort_keys=True)
            groups.setdefault(extra, []).append((k, doc))
        for its in groups.values():
            batch, n = [], 0
            for it in its + [None]:
                if batch and (it is None or n + len(it[1]["nodes"]) > self.batch_nodes):
                    self._run_batch(batch)
                    batch, n = [], 0
                if it is not None:
                    batch.append(it)
                    n += len(it[1]["nodes"])

    @staticmethod
    def _files(out, prefix=""):
        """The output folder's files whose names start with prefix, by name
        without it."""
        files = {}
        for name in os.listdir(out):
            if name.startswith(prefix):
                with open(os.path.join(out, name), "rb") as fh:
                    files[name[len(prefix):]] = fh.read()
        return files

    def _alone(self, k, doc):
        self.processes += 1
        rc, err, out = _run_now(doc, self.data)
        self.cache[k] = (rc, err, self._files(out))
        shutil.rmtree(out, ignore_errors=True)

    def _run_batch(self, batch):
        while len(batch) > 1:
            merged = harness.merge([doc for _, doc in batch])
            merged.update({f: v for f, v in batch[0][1].items() if f not in ("nodes", "fetch")})
            self.processes += 1
            try:
                rc, err, out = _run_now(merged, self.data, timeout=900)
            except subprocess.TimeoutExpired:
                break
            if os.environ.get("DF_REPLAY_DEBUG"):
                sys.stderr.write("batch %d docs rc %d: %s\n" % (len(batch), rc, err.strip()[:300]))
            named = {int(i) for i in re.findall(r'\bc(\d+)\.', err)}
            lines = [ln for ln in err.splitlines() if ln.strip()]
            if rc == 0 and all(re.search(r'\bc\d+\.', ln) for ln in lines):
                for i, (k, _) in enumerate(batch):
                    if i in named:
                        continue
                    self.cache[k] = (0, "", self._files(out, "c%d." % i))
                shutil.rmtree(out, ignore_errors=True)
                batch = [it for i, it in enumerate(batch) if i in named]
                break
            shutil.rmtree(out, ignore_errors=True)
            m = re.search(r'node "c(\d+)\.', err)
            if rc == 0 or not m or int(m.group(1)) >= len(batch):
                break
            i = int(m.group(1))
            self._alone(*batch[i])
            batch = batch[:i] + batch[i + 1:]
        for k, doc in batch:
            self._alone(k, doc)


_replay = None


def replay_cases(cases, data_dir, args, names=(), rounds=40):
    """Runs case functions (case(*args) -> "" or why they fail) in rounds
    (_Replay) and prints ok/FAIL per case in the order given. Returns
    (passed, failed). DF_REPLAY_DEBUG=1 shows each merged run's outcome and
    each document run in place because its files changed."""
    global _replay
    r = _replay = _Replay(data_dir)
    results, left = {}, [c for c in cases if not names or c.__name__ in names]
    try:
        for _ in range(rounds):
            if not left:
                break
            still = []
            for c in left:
                try:
                    results[c] = c(*args)
                except _Pending:
                    still.append(c)
                except Exception as e:  # a crash of the test is a failure, with its reason
                    results[c] = "exception %r" % (e,)
            left = still
            r.flush()
        r.live = False  # a case still waiting after every round runs as it stands
        for c in left:
            try:
                results[c] = c(*args)
            except Exception as e:
                results[c] = "exception %r" % (e,)
    finally:
        _replay = None
    passed = failed = 0
    for c in cases:
        if c not in results:
            continue
        if results[c]:
            failed += 1
            print("FAIL %s: %s" % (c.__name__, results[c]))
        else:
            passed += 1
            print("ok", c.__name__)
    print("# %d mars-run processes" % r.processes)
    return passed, failed


def load(out, key):
    path = os.path.join(out, key + ".json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return np.load(os.path.join(out, key + ".npy"))


def norm(v):
    if isinstance(v, np.datetime64):  # a datetime Series' .values
        v = pd.Timestamp(v)
    if v is None or v is pd.NaT:
        return float("nan")
    if isinstance(v, pd.Timestamp):  # as the engine writes datetimes in JSON
        t = v.strftime("%Y-%m-%dT%H:%M:%S")
        ns = v.microsecond * 1000 + v.nanosecond  # 3, 6 or 9 digits, as needed
        nd = 0 if ns == 0 else 3 if ns % 1000000 == 0 else 6 if ns % 1000 == 0 else 9
        return t + (".%09d" % ns)[:nd + 1] if nd else t
    if isinstance(v, datetime.date):  # dt.date values
        return v.isoformat()
    if isinstance(v, np.timedelta64):
        v = pd.Timedelta(v)
    if isinstance(v, pd.Timedelta):  # as the engine writes timedeltas: pandas' str()
        return str(v)
    if isinstance(v, float) and math.isnan(v):
        return float("nan")
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, (np.bool_,)):
        return bool(v)
    if isinstance(v, str) and v in ("inf", "-inf"):
        return float(v)
    if isinstance(v, tuple):
        return [norm(x) for x in v]
    if isinstance(v, list):
        return [norm(x) for x in v]
    return v


def row_key(row):
    """A sort key for rows compared as a multiset: numbers by value (1 and
    1.0 alike, and two floats a few ulps apart alike, so that a mean summed
    in another order sorts where pandas' does), NaN after the numbers, then
    strings; by their text, 1.0 and 1 sorted differently against 11.5."""
    def one(v):
        if isinstance(v, bool) or isinstance(v, (int, float)):
            if isinstance(v, float) and math.isnan(v):
                return (1, 0.0, "")
            return (0, float("%.9g" % v), "")
        if isinstance(v, list):
            return (2, 0.0, json.dumps([one(x) for x in v]))
        return (3, 0.0, str(v))
    return [one(v) for v in norm(list(row))]


def same(a, b):
    a, b = norm(a), norm(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and math.isnan(a):
            return isinstance(b, float) and math.isnan(b)
        if isinstance(b, float) and math.isnan(b):
            return False
        return a == b or abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    return a == b


def expect_frame(got, ref, sort_rows=False):
    """got: our JSON; ref: a pandas DataFrame or Series. Returns '' or why."""
    if isinstance(ref, pd.Series):
        if "name" not in got:
            return "a Series was expected"
        want = {"name": ref.name, "index": list(ref.index), "data": list(ref.values),
                "dtype": str(ref.dtype)}
        for k in ("name", "index", "data", "dtype"):
            if not same(got[k], want[k]):
                return "%s differs: %r vs pandas %r" % (k, str(got[k])[:300], str(want[k])[:300])
        return ""
    if "columns" not in got:
        return "a DataFrame was expected"
    if list(map(norm, got["columns"])) != [norm(c) for c in ref.columns]:
        return "columns %r vs %r" % (got["columns"], list(ref.columns))
    dt = {str(c): str(t) for c, t in ref.dtypes.items()}
    if got["dtypes"] != dt:
        return "dtypes %r vs %r" % (got["dtypes"], dt)
    rows = [[i] + r for i, r in zip(got["index"], got["data"])]
    want = [[i] + list(r) for i, r in zip(list(ref.index), ref.itertuples(index=False))]
    if sort_rows:
        # merge: the order of rows is not specified, nor their index
        key = row_key
        rows = sorted([r[1:] for r in rows], key=key)
        want = sorted([r[1:] for r in want], key=key)
    if len(rows) != len(want):
        return "%d rows vs %d" % (len(rows), len(want))
    for a, b in zip(rows, want):
        if not same(a, b):
            return "row %r vs %r" % (str(a)[:200], str(norm(b))[:200])
    return ""


def gen_csv(path, rng, nrows):
    ks = ["k%d" % i for i in range(7)]
    lines = ["i,f,b,s,k"]
    for r in range(nrows):
        f = "" if rng.random() < 0.1 else "%.6g" % rng.normal()
        s = '"x,%d\n%d"' % (r, r % 3) if r % 17 == 0 else "w%d" % (r % 11)
        lines.append("%d,%s,%s,%s,%s" % (rng.integers(-50, 50), f,
                                         "True" if rng.random() < 0.5 else "False", s,
                                         ks[rng.integers(0, 7)]))
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


MISSING = "not built"


def main():
    rng = np.random.default_rng(7)
    data = tempfile.mkdtemp(prefix="df_data_")
    gen_csv(os.path.join(data, "t.csv"), rng, 900)
    pdf = pd.read_csv(os.path.join(data, "t.csv"))
    a = rng.normal(size=(1000, 4))
    a[::13, 1] = np.nan
    ia = rng.integers(-9, 9, size=(1000, 3))
    tdf = pd.DataFrame(a, columns=["w", "x", "y", "z"])
    idf = pd.DataFrame(ia)
    # chunk_bytes 700: about 30 chunks; quoted fields with newlines cross boundaries
    # NaN cannot be written in JSON: made by 0/0 where the mask says
    nodes = [
        {"key": "a0", "op": "array", "data": np.nan_to_num(a, nan=0.0).tolist(),
         "chunk_size": [170, 4]},
        {"key": "mk", "op": "array", "data": np.isnan(a).tolist(), "chunk_size": [170, 4]},
        {"key": "az", "op": "multiply", "inputs": ["a0", 0.0]},
        {"key": "an", "op": "divide", "inputs": ["az", "az"]},
        {"key": "a", "op": "where", "inputs": ["mk", "an", "a0"]},
        {"key": "ia", "op": "array", "data": ia.tolist(), "chunk_size": [333, 3]},
        {"key": "df", "op": "dataframe.from_tensor", "inputs": ["a"],
         "columns": ["w", "x", "y", "z"], "chunk_rows": 97},
        {"key": "idf", "op": "dataframe.from_tensor", "inputs": ["ia"]},
        {"key": "csv", "op": "dataframe.read_csv", "path": "t.csv", "chunk_bytes": 700},
        {"key": "csvu", "op": "dataframe.read_csv", "path": "t.csv", "chunk_bytes": 500,
         "usecols": ["s", "i"]},
        {"key": "w", "op": "dataframe.getitem", "inputs": ["df"], "columns": "w"},
        {"key": "wx", "op": "dataframe.getitem", "inputs": ["df"], "columns": ["x", "w"]},
        {"key": "m", "op": "greater", "inputs": ["w", 0.3]},
        {"key": "f", "op": "dataframe.filter", "inputs": ["df", "m"]},
        {"key": "m0", "op": "greater", "inputs": ["w", 100]},
        {"key": "f0", "op": "dataframe.filter", "inputs": ["df", "m0"]},
        {"key": "ci", "op": "dataframe.getitem", "inputs": ["csv"], "columns": "i"},
        {"key": "cm", "op": "less", "inputs": ["ci", 0]},
        {"key": "cf", "op": "dataframe.filter", "inputs": ["csv", "cm"]},
        {"key": "e1", "op": "multiply", "inputs": ["df", 2]},
        {"key": "e2", "op": "add", "inputs": ["w", "w"]},
        {"key": "e3", "op": "floor_divide", "inputs": ["ci", 7]},
        {"key": "e4", "op": "divide", "inputs": ["idf", 2]},
        {"key": "as", "op": "dataframe.assign", "inputs": ["df", "e2", "m"],
         "names": ["v", "w"]},
        {"key": "h", "op": "dataframe.head", "inputs": ["df"], "n": 150},
        {"key": "hf", "op": "dataframe.head", "inputs": ["f"], "n": 7},
        {"key": "hc", "op": "dataframe.head", "inputs": ["csv"]},
        {"key": "tt", "op": "dataframe.to_tensor", "inputs": ["f"]},
        {"key": "tc", "op": "dataframe.to_tensor", "inputs": ["csv"]},
    ]
    fetch = ["df", "idf", "csv", "csvu", "w", "wx", "f", "f0", "cf", "e1", "e2", "e3", "e4",
             "as", "h", "hf", "hc", "tt", "tc"]
    refs = {
        "df": tdf, "idf": idf, "csv": pdf, "csvu": pdf[["i", "s"]], "w": tdf.w,
        "wx": tdf[["x", "w"]], "f": tdf[tdf.w > 0.3], "f0": tdf[tdf.w > 100],
        "cf": pdf[pdf.i < 0], "e1": tdf * 2, "e2": tdf.w + tdf.w, "e3": pdf.i // 7,
        "e4": idf / 2, "as": tdf.assign(v=tdf.w + tdf.w, w=tdf.w > 0.3), "h": tdf.head(150),
        "hf": tdf[tdf.w > 0.3].head(7), "hc": pdf.head(),
    }
    reds = ["sum", "mean", "min", "max", "count", "prod", "std", "var"]
    for src, ref in (("df", tdf), ("idf", idf), ("csv", pdf), ("f", tdf[tdf.w > 0.3]),
                     ("f0", tdf[tdf.w > 100])):
        for r in reds:
            k = "%s_%s" % (src, r)
            if r == "prod" and src in ("df", "f"):
                continue  # products of 1000 normals under/overflow differently by order
            if r in ("min", "max") and src == "csv":
                continue  # pandas: object for bool mixed with numbers (a documented divergence)
            nodes.append({"key": k, "op": "dataframe." + r, "inputs": [src]})
            fetch.append(k)
            # count counts every column (strings too), as pandas' count()
            refs[k] = ref.count() if r == "count" else getattr(ref, r)(numeric_only=True)
    # any and all: every column's truth (strings non-empty, NaN skipped)
    nodes += [{"key": "cs", "op": "dataframe.getitem", "inputs": ["csv"], "columns": "s"},
              {"key": "es", "op": "dataframe.str.slice", "inputs": ["cs"], "start": 0,
               "stop": 0}]
    for src, ref in (("df", tdf), ("idf", idf), ("csv", pdf), ("f", tdf[tdf.w > 0.3]),
                     ("f0", tdf[tdf.w > 100]), ("w", tdf.w), ("ci", pdf.i), ("cs", pdf.s),
                     ("es", pdf.s.str.slice(0, 0)), ("m", tdf.w > 0.3)):
        for r in ("any", "all"):
            k = "%s_%s" % (src, r)
            nodes.append({"key": k, "op": "dataframe." + r, "inputs": [src]})
            fetch.append(k)
            refs[k] = getattr(ref, r)()
    for r in reds:
        k = "w_" + r
        if r == "prod":
            continue
        nodes.append({"key": k, "op": "dataframe." + r, "inputs": ["w"]})
        fetch.append(k)
        refs[k] = getattr(tdf.w, r)()
    algo = [
        ("gb", {"op": "dataframe.groupby_agg", "inputs": ["csv"], "by": ["k"],
                "agg": {"n": ["i", "sum"], "m": ["f", "mean"], "c": ["f", "count"],
                        "z": ["i", "size"], "lo": ["s", "min"], "sd": ["f", "std"],
                        "u": ["s", "nunique"], "fi": ["i", "first"], "la": ["f", "last"]}},
         pdf.groupby(["k"]).agg(n=("i", "sum"), m=("f", "mean"), c=("f", "count"),
                                z=("i", "size"), lo=("s", "min"), sd=("f", "std"),
                                u=("s", "nunique"), fi=("i", "first"), la=("f", "last")),
         False),
        ("gb2", {"op": "dataframe.groupby_agg", "inputs": ["csv"], "by": ["k", "b"],
                 "agg": {"n": ["f", "max"]}},
         pdf.groupby(["k", "b"]).agg(n=("f", "max")), False),
        # a filtered input of ~30 chunks (rows unknown): the hash-shuffle path
        ("gbs", {"op": "dataframe.groupby_agg", "inputs": ["cf"], "by": ["s"],
                 "agg": {"n": ["i", "sum"], "c": ["f", "count"], "v": ["f", "var"]}},
         pdf[pdf.i < 0].groupby(["s"]).agg(n=("i", "sum"), c=("f", "count"), v=("f", "var")),
         False),
        ("gbe", {"op": "dataframe.groupby_agg", "inputs": ["f0"], "by": ["x"],
                 "agg": {"n": ["w", "sum"]}},
         tdf[tdf.w > 100].groupby(["x"]).agg(n=("w", "sum")), False),
        ("gbf", {"op": "dataframe.groupby_agg", "inputs": ["csv"], "by": ["f"],
                 "agg": {"n": ["i", "count"], "b": ["b", "max"]}},
         pdf.groupby(["f"]).agg(n=("i", "count"), b=("b", "max")), False),
        ("gbsk", {"op": "dataframe.groupby_agg", "inputs": ["csv"], "by": ["s", "k"],
                  "agg": {"n": ["f", "sum"], "l": ["s", "last"]}},
         pdf.groupby(["s", "k"]).agg(n=("f", "sum"), l=("s", "last")), False),
        ("sonan", {"op": "dataframe.sort_values", "inputs": ["csv"], "by": ["f"],
                   "ascending": False},
         pdf.sort_values(["f"], ascending=False, kind="mergesort"), False),
        ("sostr", {"op": "dataframe.sort_values", "inputs": ["csv"], "by": ["s", "b"]},
         pdf.sort_values(["s", "b"], kind="mergesort"), False),
        ("so", {"op": "dataframe.sort_values", "inputs": ["csv"], "by": ["k", "i"],
                "ascending": [True, False]},
         pdf.sort_values(["k", "i"], ascending=[True, False], kind="mergesort"), False),
        ("sof", {"op": "dataframe.sort_values", "inputs": ["f"], "by": ["x"]},
         tdf[tdf.w > 0.3].sort_values(["x"], kind="mergesort"), False),
        ("de", {"op": "dataframe.describe", "inputs": ["csv"]}, pdf.describe(), False),
        ("nu", {"op": "dataframe.nunique", "inputs": ["csv"]}, pdf.nunique(), False),
    ]
    right = pdf.groupby("k").agg(tot=("i", "sum")).reset_index()
    right = right[right.k != "k3"]
    rcsv = os.path.join(data, "r.csv")
    right.to_csv(rcsv, index=False)
    nodes.append({"key": "rc", "op": "dataframe.read_csv", "path": "r.csv", "chunk_bytes": 20})
    for how in ("inner", "left", "right", "outer"):
        algo.append(("me_" + how, {"op": "dataframe.merge", "inputs": ["csv", "rc"],
                                   "on": ["k"], "how": how},
                     pdf.merge(right, on=["k"], how=how), True))
    rc, err, out = run({"version": 1, "nodes": nodes, "fetch": fetch}, data)
    if rc != 0:
        report("df-batch", False, "exit %d: %s" % (rc, err.strip()[:500]))
    else:
        for k in fetch:
            got = load(out, k)
            ref = refs.get(k)
            if k in ("tt", "tc"):
                want = (tdf[tdf.w > 0.3] if k == "tt" else pdf[["i", "f", "b"]]).to_numpy()
                ok = got.shape == want.shape and np.allclose(got.astype(float),
                                                             want.astype(float),
                                                             equal_nan=True, rtol=1e-12)
                report(k, ok, "to_tensor %r %r" % (got.shape, want.shape))
                continue
            if ref is None:
                continue
            if isinstance(got, np.ndarray):
                ok = same(got.item(), ref.item() if hasattr(ref, "item") else ref)
                if k.endswith("_any") or k.endswith("_all"):  # numpy's bool, as pandas
                    ok = ok and got.dtype == np.bool_ and got.item() is bool(ref)
                report(k, ok, "%r vs pandas %r" % (got, ref))
                continue
            why = expect_frame(got, ref)
            report(k, not why, why)
    shutil.rmtree(out, ignore_errors=True)
    # the algorithms, one document each so that a missing kernel shows alone
    for key, node, ref, unordered in algo:
        node = dict(node, key=key)
        doc = {"version": 1, "nodes": [n for n in nodes if n["key"] in ("csv", "rc", "a0", "mk",
                                                                        "a", "df", "w", "m",
                                                                        "f", "az", "an", "ci",
                                                                        "cm", "cf", "m0",
                                                                        "f0")] + [node],
               "fetch": [key]}
        rc, err, out = run(doc, data)
        if rc != 0 and MISSING in err:
            print("skip %s: the algorithm is not built yet" % key)
            continue
        if rc != 0:
            report(key, False, "exit %d: %s" % (rc, err.strip()[:300]))
            continue
        why = expect_frame(load(out, key), ref, sort_rows=unordered)
        report(key, not why, why)
        shutil.rmtree(out, ignore_errors=True)
    # Series ops, against pdref (pandas) document by document
    series_nodes = [
        {"key": "v", "op": "array", "data": [3, 1, 2, 5, 4, 1, 2], "chunk_size": 3},
        {"key": "s", "op": "dataframe.from_tensor", "inputs": ["v"], "name": "v"},
        {"key": "u", "op": "dataframe.from_tensor", "inputs": ["v"]},
        {"key": "so", "op": "dataframe.sort_values", "inputs": ["s"], "ascending": False},
        {"key": "nu", "op": "dataframe.nunique", "inputs": ["s"]},
        {"key": "de", "op": "dataframe.describe", "inputs": ["s"]},
        {"key": "tt", "op": "dataframe.to_tensor", "inputs": ["s"]},
        {"key": "h0", "op": "dataframe.head", "inputs": ["s"], "n": 0},
        {"key": "m", "op": "equal", "inputs": ["s", 2]},
        {"key": "f", "op": "dataframe.filter", "inputs": ["s", "m"]},
        {"key": "fs", "op": "dataframe.sum", "inputs": ["f"]},
        {"key": "neg", "op": "negative", "inputs": ["s"]},
        {"key": "cl", "op": "clip", "inputs": ["s"], "a_min": 2, "a_max": 4},
        {"key": "as", "op": "astype", "inputs": ["s"], "dtype": "float64"},
        {"key": "wh", "op": "where", "inputs": ["m", "s", 0]},
        {"key": "pw", "op": "power", "inputs": ["s", 2]},
        {"key": "tr", "op": "divide", "inputs": ["s", 4]},
        {"key": "lg", "op": "logical_and", "inputs": ["m", True]},
    ]
    skeys = [n["key"] for n in series_nodes[1:]]
    sdoc = {"version": 1, "nodes": series_nodes, "fetch": skeys}
    import pdref
    swant = pdref.evaluate(sdoc)
    rc, err, out = run(sdoc, data)
    for k in skeys:
        if rc != 0:
            report("series-" + k, False, "exit %d: %s" % (rc, err.strip()[:300]))
            continue
        got, ref = load(out, k), swant[k]
        if isinstance(ref, np.ndarray):
            ok = got.shape == ref.shape and np.allclose(got.astype(float), ref.astype(float))
            report("series-" + k, ok, "%r vs pandas %r" % (got, ref))
        else:
            why = expect_frame(got, ref)
            report("series-" + k, not why, why)
    shutil.rmtree(out, ignore_errors=True)
    # rejected documents: exit 2, the node named
    bad = [
        ("abs-path", {"key": "r", "op": "dataframe.read_csv", "path": "/etc/passwd"}),
        ("dotdot", {"key": "r", "op": "dataframe.read_csv", "path": "../t.csv"}),
        ("missing-file", {"key": "r", "op": "dataframe.read_csv", "path": "nope.csv"}),
        ("bad-usecols", {"key": "r", "op": "dataframe.read_csv", "path": "t.csv",
                         "usecols": ["zz"]}),
        ("unknown-field", {"key": "r", "op": "dataframe.read_csv", "path": "t.csv",
                           "escapechar": "\\"}),
    ]
    base = [{"key": "c", "op": "dataframe.read_csv", "path": "t.csv"}]
    bad2 = [
        ("no-column", {"key": "r", "op": "dataframe.getitem", "inputs": ["c"],
                       "columns": ["nope"]}),
        ("mask-not-bool", {"key": "r", "op": "dataframe.filter", "inputs": ["c", "ci"]}),
        ("ew-string", {"key": "r", "op": "add", "inputs": ["cs", 1]}),
        ("tensor-op-on-frame", {"key": "r", "op": "sum", "inputs": ["c"]}),
        ("gb-unknown-func", {"key": "r", "op": "dataframe.groupby_agg", "inputs": ["c"],
                             "by": ["k"], "agg": {"o": ["i", "mode"]}}),
        ("merge-how", {"key": "r", "op": "dataframe.merge", "inputs": ["c", "c"],
                       "on": ["k"], "how": "cross"}),
        ("head-negative", {"key": "r", "op": "dataframe.head", "inputs": ["c"], "n": -1}),
        ("axis1", {"key": "r", "op": "dataframe.sum", "inputs": ["c"], "axis": 1}),
        ("other-frame", {"key": "r", "op": "add", "inputs": ["ci", "oi"]}),
    ]
    extra = [{"key": "ci", "op": "dataframe.getitem", "inputs": ["c"], "columns": "i"},
             {"key": "cs", "op": "dataframe.getitem", "inputs": ["c"], "columns": "s"},
             {"key": "c2", "op": "dataframe.read_csv", "path": "t.csv", "chunk_bytes": 999},
             {"key": "oi", "op": "dataframe.getitem", "inputs": ["c2"], "columns": "i"}]
    for name, node in bad + [(n, x) for n, x in bad2]:
        ns = [node] if (name, node) in bad else base + extra + [node]
        rc, err, out = run({"version": 1, "nodes": ns, "fetch": ["r"]}, data)
        ok = rc == 2 and 'node "r"' in err and "\n" not in err.strip()
        report("reject-" + name, ok, "exit %d: %s" % (rc, err.strip()[:300]))
        shutil.rmtree(out, ignore_errors=True)
    literals(data, pdf)
    shutil.rmtree(data, ignore_errors=True)
    print("RESULT passed=%d failed=%d" % (passed, failed))
    return 1 if failed else 0


def literals(data, pdf):
    """{"value": "nan"}, "inf" and "-inf" (how JSON writes missing numbers,
    and the client's NaN and infinities): numbers for tensors and numeric
    columns, where(cond, s) with NaN as pandas' s.where(cond) (the name of
    s kept), and still a string against a column of strings; where of
    strings, and of bools meeting NaN (pandas' object column)"""
    x = np.array([1.5, -2.0, 0.0, 4.0])
    nodes = [{"key": "x", "op": "array", "data": x.tolist(), "chunk_size": 3},
             {"key": "xi", "op": "multiply", "inputs": ["x", {"value": "inf"}]},
             {"key": "xn", "op": "add", "inputs": [{"value": "-inf"}, "x"]},
             {"key": "xw", "op": "where", "inputs": [True, {"value": "nan"}, "x"]},
             {"key": "c", "op": "dataframe.read_csv", "path": "t.csv", "chunk_bytes": 900},
             {"key": "ci", "op": "dataframe.getitem", "inputs": ["c"], "columns": "i"},
             {"key": "cf", "op": "dataframe.getitem", "inputs": ["c"], "columns": "f"},
             {"key": "cs", "op": "dataframe.getitem", "inputs": ["c"], "columns": "s"},
             {"key": "m", "op": "greater", "inputs": ["cf", 0]},
             {"key": "wi", "op": "where", "inputs": ["m", "ci", {"value": "nan"}]},
             {"key": "wm", "op": "where", "inputs": ["m", {"value": "-inf"}, "cf"]},
             {"key": "fi", "op": "less", "inputs": ["cf", {"value": "inf"}]},
             {"key": "sn", "op": "equal", "inputs": ["cs", {"value": "nan"}]},
             {"key": "cb", "op": "dataframe.getitem", "inputs": ["c"], "columns": "b"},
             {"key": "c3", "op": "dataframe.getitem", "inputs": ["c"], "columns": ["s"]},
             {"key": "n3", "op": "dataframe.isna", "inputs": ["c3"]},
             # where of strings, and of bools meeting NaN (object in pandas)
             {"key": "ws", "op": "where", "inputs": ["m", "cs", {"value": "low"}]},
             {"key": "wn", "op": "where", "inputs": ["m", "cs", {"value": None}]},
             {"key": "wk", "op": "where", "inputs": ["m", {"value": "up"}, "cs"]},
             {"key": "wf", "op": "where", "inputs": ["n3", {"value": "gone"}, "c3"]},
             {"key": "wb", "op": "where", "inputs": ["m", "cb", {"value": None}]},
             {"key": "wc", "op": "where", "inputs": ["m", {"value": None}, "cb"]},
             {"key": "wd", "op": "where", "inputs": ["m", "cb", False]}]
    with np.errstate(invalid="ignore"):
        want = {"xi": x * np.inf, "xn": -np.inf + x, "xw": np.where(True, np.nan, x),
                "wi": pdf.i.where(pdf.f > 0), "wm": pdf.f.mask(pdf.f > 0, -np.inf),
                "fi": pdf.f < np.inf, "sn": pdf.s == "nan",
                "ws": pdf.s.where(pdf.f > 0, "low"), "wn": pdf.s.where(pdf.f > 0),
                "wk": pdf.s.mask(pdf.f > 0, "up"),
                "wf": pdf[["s"]].mask(pdf[["s"]].isna(), "gone"),
                "wb": pdf.b.where(pdf.f > 0), "wc": pdf.b.mask(pdf.f > 0),
                "wd": pdf.b.where(pdf.f > 0, False)}
    rc, err, out = run({"version": 1, "nodes": nodes, "fetch": list(want)}, data)
    if rc != 0:
        report("literals", False, "exit %d: %s" % (rc, err.strip()[:300]))
        return
    for k, ref in want.items():
        got = load(out, k)
        if isinstance(ref, np.ndarray):
            ok = got.dtype == ref.dtype and np.array_equal(got, ref, equal_nan=True)
            report("literals-" + k, ok, "%r vs numpy %r" % (got, ref))
        else:
            why = expect_frame(got, ref)
            if not why and isinstance(ref, pd.Series) and got.get("name") != ref.name:
                why = "name %r, pandas %r" % (got.get("name"), ref.name)
            report("literals-" + k, not why, why)
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
