#!/usr/bin/python3
"""dataframe.read_csv and dataframe.read_json of compressed files in
mars-run, against pandas 1.5 reading the same files (compression="infer",
its default, and the methods named): gzip (one member, several members,
zero padding), bz2, xz and the older .lzma, zip (deflate, stored, bzip2,
with a prepended stub), zstd (pandas needs the zstandard module, which
Debian's pandas lacks: compared with pandas' read of `zstd -d`'s output),
tar plain and over gzip, bz2 and xz (a pax long name); the extension in
upper case; files of exactly 2 MiB decompressed (the output buffer full
as a stream ends); a pattern of .gz files; nrows, usecols, skipfooter and a
groupby over a compressed file cut into many chunks; compression named
explicitly on a file without an extension, as {"method": ...}, and null on
a plain file named .gz; a file replaced by another of the same name (the
local copy follows it). And the refusals, each also refused by pandas: not
gzip data under a .gz name (saying the method came from the name), a
truncated stream, two members in a zip and in a tar, an empty zip, a bad
CRC-32, a zip member compressed by LZMA, an unknown method; the disk
reserve (MARS_INFLATE_DISK_RESERVE) failing the read and removing the
partial copy."""

import bz2
import gzip
import io
import json
import lzma
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import test_csv_glob  # noqa: E402
import test_df  # noqa: E402


def frame(n, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "k": np.array(["north", "south", "east, west", "q\"uote"], dtype=object)[rng.integers(0, 4, n)],
        "n": rng.integers(-1000, 1000, n),
        "x": rng.random(n).round(6),
        "note": np.array(["plain", "two\nlines", "", "x"], dtype=object)[rng.integers(0, 4, n)],
    })


def tar_bytes(members, mode="w", fmt=tarfile.PAX_FORMAT):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode=mode, format=fmt) as t:
        for name, data in members:
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
    return b.getvalue()


def zip_bytes(members, method=zipfile.ZIP_DEFLATED):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", method) as z:
        for name, data in members:
            z.writestr(name, data)
    return b.getvalue()


def write(data):
    df = frame(6000, 1)
    text = df.to_csv(index=False).encode()
    files = {
        "d.csv.gz": gzip.compress(text, mtime=0),
        # members one after another, zero padding between them (gzip.py reads both)
        "multi.csv.gz": gzip.compress(text[:text.index(b"\n", 50000) + 1], mtime=0) + b"\0" * 7 +
        gzip.compress(text[text.index(b"\n", 50000) + 1:], mtime=0),
        "d.csv.bz2": bz2.compress(text),
        "d.csv.xz": lzma.compress(text),
        "alone.csv.xz": lzma.compress(text, format=lzma.FORMAT_ALONE),
        "d.csv.zip": zip_bytes([("d.csv", text)]),
        "stored.csv.zip": zip_bytes([("d.csv", text)], zipfile.ZIP_STORED),
        "bzip2.csv.zip": zip_bytes([("inner/d.csv", text)], zipfile.ZIP_BZIP2),
        # a stub before the archive (a self-extractor's): zipfile.py finds it
        "stub.csv.zip": b"#!/bin/sh\necho stub\n" + zip_bytes([("d.csv", text)]),
        "d.csv.tar": tar_bytes([("d.csv", text)]),
        "d.csv.tar.gz": tar_bytes([("dir/" + "long_name" * 20 + ".csv", text)], "w:gz"),
        "d.csv.tar.bz2": tar_bytes([("d.csv", text)], "w:bz2", tarfile.GNU_FORMAT),
        "d.csv.tar.xz": tar_bytes([("d.csv", text)], "w:xz", tarfile.USTAR_FORMAT),
        "UPPER.CSV.GZ": gzip.compress(text, mtime=0),
        "gzdata": gzip.compress(text, mtime=0),
        "plain.csv.gz": text,
        "two.csv.zip": zip_bytes([("a.csv", text), ("b.csv", text)]),
        "empty.csv.zip": zip_bytes([]),
        "two.csv.tar": tar_bytes([("a.csv", text), ("b.csv", text)]),
        "cut.csv.gz": gzip.compress(text, mtime=0)[:-9000],
        "lzma.csv.zip": zip_bytes([("d.csv", text)], zipfile.ZIP_LZMA),
    }
    crc = bytearray(zip_bytes([("d.csv", text)], zipfile.ZIP_STORED))
    crc[40 + text.index(b"north")] ^= 1  # a byte of the stored data
    files["badcrc.csv.zip"] = bytes(crc)
    for name, blob in files.items():
        with open(os.path.join(data, name), "wb") as f:
            f.write(blob)
    with open(os.path.join(data, "d.csv"), "wb") as f:
        f.write(text)
    subprocess.run(["zstd", "-q", "-f", "-19", os.path.join(data, "d.csv"), "-o",
                    os.path.join(data, "d.csv.zst")], check=True)
    # exactly 2 MiB once decompressed: the last output buffer fills just
    # as the frame ends
    exact = b"a\n" + b"1\n" * ((2 << 20) // 2 - 1)
    with open(os.path.join(data, "exact.csv"), "wb") as f:
        f.write(exact)
    for ext, comp in (("gz", lambda b: gzip.compress(b, mtime=0)), ("xz", lzma.compress), ("bz2", bz2.compress)):
        with open(os.path.join(data, "exact.csv." + ext), "wb") as f:
            f.write(comp(exact))
    subprocess.run(["zstd", "-q", "-f", os.path.join(data, "exact.csv"), "-o",
                    os.path.join(data, "exact.csv.zst")], check=True)
    os.makedirs(os.path.join(data, "parts"))
    for i, n in enumerate((300, 5, 1200)):
        frame(n, 10 + i).to_csv(os.path.join(data, "parts", "p%d.csv.gz" % i), index=False)
    with open(os.path.join(data, "footer.csv.bz2"), "wb") as f:
        f.write(bz2.compress(text + b"total,1,2,x\nend\n"))
    recs = frame(500, 7).drop(columns=["note"]).to_json(orient="records", lines=True)
    with open(os.path.join(data, "r.jsonl.gz"), "wb") as f:
        f.write(gzip.compress(recs.encode(), mtime=0))
    return df


def run(doc, data, env=None):
    out = tempfile.mkdtemp(prefix="mars-comp-")
    p = subprocess.run([harness.mars_run_path(), "-", "-o", out, "--data-dir", data],
                       input=json.dumps(doc).encode(), capture_output=True, timeout=300,
                       env=env)
    return p, out


def node(path, **kw):
    return dict({"key": "t", "op": "dataframe.read_csv", "path": path, "chunk_bytes": 20000}, **kw)


def main():
    suite = harness.Suite("test_csv_compression")
    data = tempfile.mkdtemp(prefix="mars-comp-data-")
    tmp = tempfile.mkdtemp(prefix="mars-comp-tmp-")
    env = dict(os.environ, TMPDIR=tmp)
    try:
        write(data)
        P = lambda name: os.path.join(data, name)  # noqa: E731
        ref = pd.read_csv(P("d.csv"))
        cases = []
        for name in ("d.csv.gz", "multi.csv.gz", "d.csv.bz2", "d.csv.xz", "alone.csv.xz", "d.csv.zip",
                     "stored.csv.zip", "bzip2.csv.zip", "stub.csv.zip", "d.csv.tar", "d.csv.tar.gz",
                     "d.csv.tar.bz2", "d.csv.tar.xz", "UPPER.CSV.GZ"):
            want = pd.read_csv(P(name))
            suite.check("pandas_" + name, want.equals(ref), "pandas' read differs from the plain file's")
            cases.append((name, [node(name)], "t", want))
        # pandas reads .zst with the zstandard module only: the plain file's read
        cases.append(("d.csv.zst", [node("d.csv.zst")], "t", ref))
        for ext in ("zst", "gz", "xz", "bz2"):
            cases.append(("exact_2mib_" + ext, [node("exact.csv." + ext, chunk_bytes=1 << 20)], "t",
                          pd.read_csv(P("exact.csv"))))
        cases.append(("explicit_gzip", [node("gzdata", compression="gzip")], "t",
                      pd.read_csv(P("gzdata"), compression="gzip")))
        cases.append(("explicit_dict", [node("gzdata", compression={"method": "gzip"})], "t",
                      pd.read_csv(P("gzdata"), compression={"method": "gzip"})))
        cases.append(("null_plain", [node("plain.csv.gz", compression=None)], "t",
                      pd.read_csv(P("plain.csv.gz"), compression=None)))
        cases.append(("infer_named", [node("d.csv.xz", compression="infer")], "t", pd.read_csv(P("d.csv.xz"))))
        cases.append(("pattern", [node("parts/*.csv.gz", chunk_bytes=3000)], "t",
                      pd.concat([pd.read_csv(P("parts/p%d.csv.gz" % i)) for i in range(3)], ignore_index=True)))
        cases.append(("nrows_usecols", [node("d.csv.bz2", nrows=777, usecols=["x", "k"])], "t",
                      pd.read_csv(P("d.csv.bz2"), nrows=777, usecols=["x", "k"])))
        cases.append(("skipfooter", [node("footer.csv.bz2", skipfooter=2)], "t",
                      pd.read_csv(P("footer.csv.bz2"), skipfooter=2, engine="python")))
        cases.append(("groupby", [node("d.csv.tar.xz", chunk_bytes=7000),
                                  {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["t"], "by": ["k"],
                                   "agg": {"s": ["n", "sum"], "m": ["x", "max"], "c": ["note", "count"]}}], "g",
                      ref.groupby(["k"]).agg(s=("n", "sum"), m=("x", "max"), c=("note", "count"))))
        cases.append(("read_json", [{"key": "t", "op": "dataframe.read_json", "path": "r.jsonl.gz",
                                     "orient": "records", "lines": True}], "t",
                      pd.read_json(P("r.jsonl.gz"), orient="records", lines=True)))
        test_csv_glob.check_cases(suite, cases, lambda doc: run(doc, data, env))
        # one local copy per compressed file read, named by its method
        copies = os.listdir(os.path.join(tmp, "mars-inflate-%d" % os.getuid()))
        suite.check("copies", any(c.startswith("zstd-") for c in copies) and
                    not any(".tmp" in c or c.endswith(".lock") for c in copies),
                    "local copies: %s" % sorted(copies))
        # a file replaced under the same name: its new content is read
        doc = {"version": 1, "nodes": [node("swap.csv.gz")], "fetch": ["t"]}
        for i, n in enumerate((40, 41)):
            frame(n, 20 + i).to_csv(P("swap.csv.gz"), index=False)
            os.utime(P("swap.csv.gz"), ns=(10**18 + i, 10**18 + i))
            p, out = run(doc, data, env)
            try:
                why = "exit %d: %s" % (p.returncode, p.stderr.decode()[-300:]) if p.returncode else \
                    test_df.expect_frame(json.load(open(os.path.join(out, "t.json"))), pd.read_csv(P("swap.csv.gz")))
                suite.check("replaced_%d" % i, not why, why, doc)
            finally:
                shutil.rmtree(out, ignore_errors=True)
        # refusals: each refused by pandas too, and here at validation
        for name, kw, want in [
                ("not_gzip", {"path": "plain.csv.gz"},
                 "not a gzip file (Not a gzipped file) (compression 'gzip', from the name"),
                ("truncated", {"path": "cut.csv.gz"},
                 "Compressed file ended before the end-of-stream marker was reached"),
                ("zip_two", {"path": "two.csv.zip"},
                 "Multiple files found in ZIP file. Only one file per ZIP: ['a.csv', 'b.csv']"),
                ("zip_empty", {"path": "empty.csv.zip"}, "Zero files found in ZIP file"),
                ("tar_two", {"path": "two.csv.tar"}, "Multiple files found in TAR archive"),
                ("zip_crc", {"path": "badcrc.csv.zip"}, "Bad CRC-32 for file 'd.csv'"),
                ("zip_lzma", {"path": "lzma.csv.zip"}, "method 14 (LZMA), which is not supported"),
                ("method_name", {"path": "d.csv.gz", "compression": "rar"}, "Unrecognized compression type: rar"),
                ("method_dict", {"path": "d.csv.gz", "compression": {"method": "gzip", "mtime": 1}},
                 "takes only \"method\"")]:
            doc = {"version": 1, "nodes": [dict({"key": "t", "op": "dataframe.read_csv"}, **kw)], "fetch": ["t"]}
            p, out = run(doc, data, env)
            shutil.rmtree(out, ignore_errors=True)
            err = p.stderr.decode()
            if name not in ("zip_lzma", "method_dict"):  # pandas reads those two
                try:
                    pd.read_csv(P(kw["path"]), compression=kw.get("compression", "infer"))
                    suite.fail(name + "_pandas", "pandas read it", doc)
                except Exception:
                    pass
            suite.check(name, p.returncode == 2 and want in err and 'node "t"' in err,
                        "exit %d: %s" % (p.returncode, err[-400:]), doc)
        # the disk reserve: a reserve no disk has fails the read, naming it,
        # and leaves no partial copy; the same read then succeeds
        shutil.copy(P("d.csv.gz"), P("reserve.csv.gz"))
        doc = {"version": 1, "nodes": [node("reserve.csv.gz")], "fetch": ["t"]}
        p, out = run(doc, data, dict(env, MARS_INFLATE_DISK_RESERVE=str(1 << 62)))
        shutil.rmtree(out, ignore_errors=True)
        err = p.stderr.decode()
        left = [c for c in os.listdir(os.path.join(tmp, "mars-inflate-%d" % os.getuid())) if ".tmp" in c]
        suite.check("disk_reserve", p.returncode == 2 and "MARS_INFLATE_DISK_RESERVE" in err and not left,
                    "exit %d: %s; left %s" % (p.returncode, err[-300:], left))
        p, out = run(doc, data, env)
        try:
            why = "exit %d: %s" % (p.returncode, p.stderr.decode()[-300:]) if p.returncode else \
                test_df.expect_frame(json.load(open(os.path.join(out, "t.json"))), ref)
            suite.check("disk_reserve_after", not why, why)
        finally:
            shutil.rmtree(out, ignore_errors=True)
    finally:
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
    suite.finish()


if __name__ == "__main__":
    main()
