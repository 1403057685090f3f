#!/usr/bin/python3
"""dataframe.read_csv over a pattern (`path: "logs/*.csv"`) in mars-run,
against pandas: the files the pattern matches, sorted by name, read as one
frame with a continuous RangeIndex, i.e. pd.concat([pd.read_csv(f) for f in
sorted(glob(pattern))], ignore_index=True). Uneven chunks within and across
files, usecols, a file with a header and no rows, column types merged
across files (an int column that has a float in another file is float64),
a groupby and a filter over the union; `sep` (semicolon files holding
commas, over a pattern; a tab-separated file with a tab line that is a row
and a space line that is blank; one file of more than 1 MiB read with ','
and with ';' in one document, both orders, which the per-process scan
cache must keep apart; `decimal` ',' over a European file, and one file
of more than 1 MiB read with decimal ',' and '.'; `dtype`, one for all
columns or per column, with its refusals in pandas' words; `header` null
and `names`: a file without a header line, its columns 0..n-1 or named,
usecols by position, a groupby by an integer label, names over a pattern);
`na_values` (a list, numbers, per column) and `keep_default_na`;
`skiprows` and `nrows` (types from those rows only); `thousands`;
`encoding` latin-1 and cp1252 (names, text, na_values decoded); a survey
export read with `header` 2 (a title, a blank line and a date before its
header), `quotechar` "'" and `true_values`/`false_values`, through a
groupby by its bool column; `quoting` 3 over a file of stray quotes; and the
refusals: no file matches, a file whose
header differs (named), a pattern reaching outside the data directory, a
separator pandas' C parser does not take."""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import pandas as pd

# pandas' own cast of a column with NA to int64, in the refusals compared
warnings.filterwarnings("ignore", "invalid value encountered in cast")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import test_df  # noqa: E402


def write(data):
    rng = np.random.default_rng(5)
    os.makedirs(os.path.join(data, "logs"))
    os.makedirs(os.path.join(data, "bad"))
    sizes = {"2024-01.csv": 120, "2024-02.csv": 0, "2024-03.csv": 333, "2024-04.csv": 7}
    for name, n in sizes.items():
        k = np.array(["a", "b", "c"], dtype=object)[rng.integers(0, 3, n)]
        v = rng.integers(-100, 100, n).astype(object)
        if name == "2024-03.csv" and n:
            v[5] = 2.5  # a float here: v is float64 in the union
        df = pd.DataFrame({"k": k, "v": v, "x": rng.random(n).round(4)})
        df.to_csv(os.path.join(data, "logs", name), index=False)
    # not matched by logs/2024-*.csv
    pd.DataFrame({"k": ["z"], "v": [1], "x": [0.5]}).to_csv(os.path.join(data, "logs", "notes.txt"),
                                                          index=False)
    pd.DataFrame({"k": ["a"], "v": [1]}).to_csv(os.path.join(data, "bad", "a.csv"), index=False)
    pd.DataFrame({"k": ["a"], "w": [1]}).to_csv(os.path.join(data, "bad", "b.csv"), index=False)
    os.makedirs(os.path.join(data, "semi"))
    for i, n in enumerate((50, 7, 91)):
        df = pd.DataFrame({"city": np.array(["Lyon", "Köln, Nord", "a;b"], dtype=object)[rng.integers(0, 3, n)],
                           "n": rng.integers(0, 9, n), "x": rng.random(n).round(3)})
        df.to_csv(os.path.join(data, "semi", "p%d.csv" % i), index=False, sep=";")
    with open(os.path.join(data, "titled.csv"), "w") as f:
        f.write("title\n\na,b\n1,2\n")
    with open(os.path.join(data, "tabs.tsv"), "w") as f:
        f.write("a\tb\tc\n1\t\"x\ty\"\t2.5\n\t\n   \n3\tz\t\n")
    # more than the scan cache's 1 MiB: under ';' two columns (a int64),
    # under ',' one column "a;b" of twice the rows (the quote is a plain
    # byte mid-field, so each line end ends a record)
    with open(os.path.join(data, "big.csv"), "w") as f:
        f.write("a;b\n" + '1;"2\n3"\n' * 150000)
    # more than the scan cache's 1 MiB, with a quote after a space: with
    # skipinitialspace it opens a field holding a line end, without it is
    # a byte (two records per pair of lines)
    with open(os.path.join(data, "spaced.csv"), "w") as f:
        f.write("a, b\n" + '1, "2\n3"\n' * 120000)
    eu = pd.DataFrame({"Stadt": np.array(["Köln", "Lyon", "Zürich"], dtype=object)[rng.integers(0, 3, 200)],
                       "Betrag": (rng.random(200) * 1000).round(2), "n": rng.integers(0, 9, 200)})
    eu.to_csv(os.path.join(data, "eu.csv"), index=False, sep=";", decimal=",")
    with open(os.path.join(data, "ids.csv"), "w") as f:
        f.write("id,n,x,b,s,nb,z,w,m\n007,1,1.5,True,a,True,0,1.0,5\n0042, 2 ,2,False,NA,,1,0,\n"
                "1e3,3,,true,c,False,1,1e0,6\n-0,4,4.25,FALSE,d,True,0,0.0,7\n")
    with open(os.path.join(data, "big_dec.csv"), "w") as f:
        f.write("a;b\n" + "1,5;2\n" * 200000)
    with open(os.path.join(data, "commented.csv"), "w") as f:
        f.write("# exported 2024-05-01\n# columns: tag, v\ntag,v\n")
        for i in range(120):
            f.write('%s,%d%s\n' % ('"#%d"' % (i % 4) if i % 3 else "t%d" % (i % 4), i,
                                    "  # checked" if i % 7 == 0 else ""))
            if i % 11 == 0:
                f.write("#%s,%d\n" % ("old", -i))
    # a survey export: two lines and a blank one before the header, quotes
    # "'", yes/no answers; a log whose quotes are stray (quoting 3)
    with open(os.path.join(data, "survey.csv"), "w") as f:
        f.write("Survey export\n\ngenerated 2024-05-01\nname,answer,score,note\n")
        for i in range(150):
            f.write("'R%d, %s',%s,%d,%s\n" % (i, "ABC"[i % 3], ["yes", "no", "No", "YES"][i % 4] if i % 13
                                               else "", i % 7, "'said ''ok'''" if i % 5 == 0 else "x'y"))
    # a sensor log: a units line under the header, and every 40th line a
    # repeated header (skiprows as a list of line numbers)
    with open(os.path.join(data, "units.csv"), "w") as f:
        f.write("sensor,temp,hum\n-,degC,%\n")
        for i in range(400):
            f.write("s%d,%.1f,%d\n" % (i % 5, 15 + (i * 7 % 100) / 10, 30 + i % 50) if i % 40 != 39
                    else "sensor,temp,hum\n")
    with open(os.path.join(data, "stray.csv"), "w") as f:
        f.write("id,text\n")
        for i in range(80):
            f.write('%d,%s\n' % (i, ['5" screen', '"unterminated', 'plain', 'a "b" c'][i % 4]))
    # whitespace-aligned tables (sep "\s+"): one as R's write.table gives
    # (row names, the header one field short: pandas' implicit index),
    # and one of padded columns with a quoted name holding a space
    n = 300
    city = np.array(["Paris", "Lyon", "St Etienne"], dtype=object)[rng.integers(0, 3, n)]
    temp, rain = (rng.random(n) * 30).round(1), rng.integers(0, 40, n)
    with open(os.path.join(data, "rtable.txt"), "w") as f:
        f.write('"city" "temp" "rain"\n')
        for i in range(n):
            f.write('"r%d" "%s" %s %d\n' % (i + 1, city[i], temp[i], rain[i]))
    with open(os.path.join(data, "aligned.txt"), "w") as f:
        f.write("  city           temp   rain\n")
        for i in range(n):
            f.write("%-16s %6.1f %5d  \n" % ('"%s"' % city[i], temp[i], rain[i]))
            if i % 50 == 7:
                f.write("   \t \n")


def union(data, pattern, **kw):
    files = sorted(glob.glob(os.path.join(data, pattern)))
    return pd.concat([pd.read_csv(f, **kw) for f in files], ignore_index=True)


def run(doc, data):
    out = tempfile.mkdtemp(prefix="mars-glob-")
    p = subprocess.run([harness.mars_run_path(), "-", "-o", out, "--data-dir", data],
                       input=json.dumps(doc).encode(), capture_output=True, timeout=120)
    return p, out


def check_cases(suite, cases, runner):
    """Each case (name, nodes, key fetched, pandas' frame) run by
    runner(doc) -> (process, output dir), its frame compared."""
    for name, nodes, key, want in cases:
        doc = {"version": 1, "nodes": nodes, "fetch": [key]}
        p, out = runner(doc)
        try:
            if p.returncode != 0:
                suite.fail(name, "exit %d: %s" % (p.returncode, p.stderr.decode()[-400:]), doc)
                continue
            with open(os.path.join(out, key + ".json")) as f:
                why = test_df.expect_frame(json.load(f), want)
            suite.check(name, not why, why, doc)
        finally:
            shutil.rmtree(out, ignore_errors=True)


def main():
    suite = harness.Suite("test_csv_glob")
    data = tempfile.mkdtemp(prefix="mars-glob-data-")
    try:
        write(data)
        u = union(data, "logs/2024-*.csv")
        cases = []
        for cb in (40, 300, 100000):
            cases.append(("whole_%d" % cb, [{"key": "t", "op": "dataframe.read_csv",
                                             "path": "logs/2024-*.csv", "chunk_bytes": cb}], "t", u))
        cases.append(("usecols", [{"key": "t", "op": "dataframe.read_csv", "path": "logs/2024-0[13].csv",
                                   "usecols": ["x", "k"], "chunk_bytes": 64}], "t",
                      union(data, "logs/2024-0[13].csv", usecols=["x", "k"])))
        cases.append(("groupby", [
            {"key": "t", "op": "dataframe.read_csv", "path": "logs/*.csv", "chunk_bytes": 200},
            {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["t"], "by": ["k"],
             "agg": {"n": ["v", "count"], "s": ["x", "sum"]}}], "g",
            union(data, "logs/*.csv").groupby(["k"]).agg(n=("v", "count"), s=("x", "sum"))))
        cases.append(("filter", [
            {"key": "t", "op": "dataframe.read_csv", "path": "logs/2024-??.csv", "chunk_bytes": 90},
            {"key": "x", "op": "dataframe.getitem", "inputs": ["t"], "columns": "x"},
            {"key": "m", "op": "greater", "inputs": ["x", 0.7]},
            {"key": "f", "op": "dataframe.filter", "inputs": ["t", "m"]}], "f",
            u[u.x > 0.7]))
        cases.append(("sep_glob", [{"key": "t", "op": "dataframe.read_csv", "path": "semi/*.csv",
                                    "sep": ";", "chunk_bytes": 97}], "t",
                      union(data, "semi/*.csv", sep=";")))
        cases.append(("sep_tab", [{"key": "t", "op": "dataframe.read_csv", "path": "tabs.tsv",
                                   "sep": "\t", "chunk_bytes": 5}], "t",
                      pd.read_csv(os.path.join(data, "tabs.tsv"), sep="\t")))
        # one document reads spaced.csv both ways: the scan cache must not
        # give one read's chunks to the other
        for name, first, fetch in (("skipinitialspace_after", False, "t2"), ("skipinitialspace_before", True, "t2"),
                                   ("skipinitialspace_plain", True, "t1")):
            cases.append((name, [{"key": "t1", "op": "dataframe.read_csv", "path": "spaced.csv",
                                  "skipinitialspace": first, "chunk_bytes": 100000},
                                 {"key": "t2", "op": "dataframe.read_csv", "path": "spaced.csv",
                                  "skipinitialspace": not first, "chunk_bytes": 100000}], fetch,
                          pd.read_csv(os.path.join(data, "spaced.csv"),
                                      skipinitialspace=first if fetch == "t1" else not first)))
        eu = pd.read_csv(os.path.join(data, "eu.csv"), sep=";", decimal=",")
        cases.append(("decimal_groupby", [
            {"key": "t", "op": "dataframe.read_csv", "path": "eu.csv", "sep": ";", "decimal": ",",
             "chunk_bytes": 300},
            {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["t"], "by": ["Stadt"],
             "agg": {"s": ["Betrag", "sum"], "m": ["Betrag", "max"]}}], "g",
            eu.groupby(["Stadt"]).agg(s=("Betrag", "sum"), m=("Betrag", "max"))))
        ids = os.path.join(data, "ids.csv")
        for name, dt in [("dtype_str_all", "str"),
                         ("dtype_per_column", {"id": "object", "n": "float64", "b": "bool",
                                               "x": "float64", "zz": "int64", "s": "str"}),
                         ("dtype_int", {"n": "int64", "nb": "object"}),
                         # pandas' conversions: bools as 1/0 and 1.0/0.0, whole floats
                         # (1e3, -0) as int64, 0/1 numbers as bools
                         ("dtype_convert", {"id": "int64", "b": "int64", "nb": "float64",
                                            "z": "bool", "w": "bool"})]:
            pdt = {k: (str if v in ("str", "object") else v) for k, v in dt.items()} \
                if isinstance(dt, dict) else str
            cases.append((name, [{"key": "t", "op": "dataframe.read_csv", "path": "ids.csv",
                                  "dtype": dt, "chunk_bytes": 20}], "t",
                          pd.read_csv(ids, dtype=pdt)))
        with open(os.path.join(data, "nohead.csv"), "w") as f:
            f.write("".join("%s,%d,%.2f\n" % ("abc"[i % 3], i, i / 7) for i in range(60)))
        nh = os.path.join(data, "nohead.csv")
        for name, kw in [("header_none", {"header": None}), ("header_none_usecols", {"header": None, "usecols": [2, 0]}),
                         ("names", {"names": ["k", "n", "x"]}),
                         ("names_header0", {"header": 0, "names": ["k", "n", "x"]})]:
            cases.append((name, [dict({"key": "t", "op": "dataframe.read_csv", "path": "nohead.csv",
                                       "chunk_bytes": 100}, **kw)], "t", pd.read_csv(nh, **kw)))
        # more names than fields: the others missing (pandas pads them so, but
        # fails when usecols picks one: documented)
        cases.append(("names_more", [{"key": "t", "op": "dataframe.read_csv", "path": "nohead.csv",
                                      "names": ["k", "n", "x", "y"], "usecols": ["y", "k"]}], "t",
                      pd.read_csv(nh, names=["k", "n", "x", "y"])[["k", "y"]]))
        cases.append(("header_none_groupby", [
            {"key": "t", "op": "dataframe.read_csv", "path": "nohead.csv", "header": None, "chunk_bytes": 100},
            {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["t"], "by": [0],
             "agg": {"s": [1, "sum"]}}], "g",
            pd.read_csv(nh, header=None).groupby([0]).agg(s=(1, "sum"))))
        cases.append(("names_glob", [{"key": "t", "op": "dataframe.read_csv", "path": "logs/2024-0[13].csv",
                                      "header": 0, "names": ["a", "b", "c"], "chunk_bytes": 64}], "t",
                      union(data, "logs/2024-0[13].csv", header=0, names=["a", "b", "c"])))
        with open(os.path.join(data, "na.csv"), "w") as f:
            f.write("a,b,c\n1,-999,x\n-,2.5,n/a\n,3.5,NA\n?,-999.00,y\n7,8,\n")
        nacsv = os.path.join(data, "na.csv")
        for name, kw in [("na_values", {"na_values": ["-", "?"]}), ("na_values_number", {"na_values": -999}),
                         ("na_values_columns", {"na_values": {"b": [-999], "c": "n/a"}}),
                         ("na_no_default", {"keep_default_na": False}),
                         ("na_no_default_values", {"keep_default_na": False, "na_values": ["NA", ""]})]:
            cases.append((name, [dict({"key": "t", "op": "dataframe.read_csv", "path": "na.csv",
                                       "chunk_bytes": 12}, **kw)], "t", pd.read_csv(nacsv, **kw)))
        with open(os.path.join(data, "sk.csv"), "w") as f:
            f.write("exported 2026-11-30\n\nsource: x, y\nk,v\n" + "".join(
                "%s,%d\n" % ("abc"[i % 3], i) for i in range(200)) + "z,2.5\n")
        sk = os.path.join(data, "sk.csv")
        for name, kw in [("skiprows", {"skiprows": 3}), ("skiprows_nrows", {"skiprows": 3, "nrows": 150}),
                         ("nrows_zero", {"skiprows": 3, "nrows": 0}),
                         ("skiprows_no_header", {"skiprows": 4, "header": None, "nrows": 7})]:
            cases.append((name, [dict({"key": "t", "op": "dataframe.read_csv", "path": "sk.csv",
                                       "chunk_bytes": 64}, **kw)], "t", pd.read_csv(sk, **kw)))
        cases.append(("nrows_groupby", [
            {"key": "t", "op": "dataframe.read_csv", "path": "sk.csv", "skiprows": 3, "nrows": 100,
             "chunk_bytes": 50},
            {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["t"], "by": ["k"],
             "agg": {"s": ["v", "sum"]}}], "g",
            pd.read_csv(sk, skiprows=3, nrows=100).groupby(["k"]).agg(s=("v", "sum"))))
        with open(os.path.join(data, "th.csv"), "w") as f:
            f.write("k;n;x\n" + "".join("%s;%s;%s\n" % ("ab"[i % 2], "{:,}".format(i * 9973).replace(",", "."),
                                                        "{:,.2f}".format(i * 1234.5).replace(",", " ").replace(".", ","))
                                         for i in range(120)))
        th = os.path.join(data, "th.csv")
        kw = {"sep": ";", "decimal": ",", "thousands": "."}
        cases.append(("thousands", [dict({"key": "t", "op": "dataframe.read_csv", "path": "th.csv",
                                          "chunk_bytes": 100}, **kw)], "t", pd.read_csv(th, **kw)))
        with open(os.path.join(data, "l1.csv"), "w", encoding="cp1252") as f:
            f.write("Stadt;Betrag;Notiz\n" + "".join("%s;%d;%s\n" % (["Köln", "München", "Zürich"][i % 3], i,
                                                                   ["\u20ac gezahlt", "\u201eoffen\u201c", "n/v"][i % 3])
                                                     for i in range(90)))
        l1 = os.path.join(data, "l1.csv")
        for enc in ("cp1252", "latin-1"):
            kw = {"sep": ";", "encoding": enc, "na_values": ["n/v", "Zürich"]}
            cases.append(("encoding_" + enc, [dict({"key": "t", "op": "dataframe.read_csv", "path": "l1.csv",
                                                    "chunk_bytes": 80}, **kw)], "t", pd.read_csv(l1, **kw)))
        cases.append(("encoding_groupby", [
            {"key": "t", "op": "dataframe.read_csv", "path": "l1.csv", "sep": ";", "encoding": "cp1252"},
            {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["t"], "by": ["Stadt"],
             "agg": {"s": ["Betrag", "sum"]}}], "g",
            pd.read_csv(l1, sep=";", encoding="cp1252").groupby(["Stadt"]).agg(s=("Betrag", "sum"))))
        with open(os.path.join(data, "empty.csv"), "w") as f:
            f.write("a,b,c,d\n")
        dt = {"a": "int64", "b": "float64", "c": "bool", "d": "object"}
        cases.append(("dtype_no_rows", [{"key": "t", "op": "dataframe.read_csv", "path": "empty.csv",
                                         "dtype": dt}], "t",
                      pd.read_csv(os.path.join(data, "empty.csv"), dtype=dt)))
        bd = os.path.join(data, "big_dec.csv")
        for dec in (",", "."):
            nodes = [{"key": "t%d" % i, "op": "dataframe.read_csv", "path": "big_dec.csv", "sep": ";",
                      "decimal": d, "chunk_bytes": 1 << 16} for i, d in enumerate((dec, "," if dec == "." else "."))]
            cases.append(("decimal_cache_%s" % ("comma" if dec == "," else "point"), nodes, "t1",
                          pd.read_csv(bd, sep=";", decimal=nodes[1]["decimal"])))
        big = os.path.join(data, "big.csv")
        semi, comma = pd.read_csv(big, sep=";"), pd.read_csv(big)
        for order in ((";", ","), (",", ";")):
            nodes = [{"key": "t%d" % i, "op": "dataframe.read_csv", "path": "big.csv", "sep": sp,
                      "usecols": ["a"] if sp == ";" else ["a;b"], "chunk_bytes": 1 << 16}
                     for i, sp in enumerate(order)]
            want = (semi[["a"]] if order[0] == ";" else comma)
            cases.append(("sep_cache_%s" % ("semi_first" if order[0] == ";" else "comma_first"),
                          nodes, "t0", want))
            cases.append(("sep_cache_%s_t1" % ("semi_first" if order[0] == ";" else "comma_first"),
                          nodes, "t1", comma if order[0] == ";" else semi[["a"]]))
        # comment: a commented export (a title, notes after values, a
        # commented-out row, '#' inside quotes), over uneven chunks
        cm = pd.read_csv(os.path.join(data, "commented.csv"), comment="#")
        for cb in (30, 100000):
            cases.append(("comment_%d" % cb, [{"key": "t", "op": "dataframe.read_csv",
                                               "path": "commented.csv", "comment": "#",
                                               "chunk_bytes": cb}], "t", cm))
        cases.append(("comment_groupby", [
            {"key": "t", "op": "dataframe.read_csv", "path": "commented.csv", "comment": "#",
             "chunk_bytes": 64},
            {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["t"], "by": ["tag"],
             "agg": {"s": ["v", "sum"]}}], "g", cm.groupby(["tag"]).agg(s=("v", "sum"))))
        # header=2, quotechar, true_values/false_values, and a groupby by
        # the bool column they make; quoting 3 over stray quotes
        sv_kw = dict(header=2, quotechar="'", true_values=["yes", "YES"], false_values=["no", "No"])
        sv = pd.read_csv(os.path.join(data, "survey.csv"), **sv_kw)
        for cb in (50, 100000):
            cases.append(("survey_%d" % cb, [dict({"key": "t", "op": "dataframe.read_csv",
                                                   "path": "survey.csv", "chunk_bytes": cb}, **sv_kw)],
                          "t", sv))
        cases.append(("survey_groupby", [
            dict({"key": "t", "op": "dataframe.read_csv", "path": "survey.csv", "chunk_bytes": 64},
                 **sv_kw),
            {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["t"], "by": ["answer"],
             "agg": {"s": ["score", "sum"], "n": ["name", "count"]}}], "g",
            sv.groupby(["answer"]).agg(s=("score", "sum"), n=("name", "count"))))
        for cb in (30, 100000):
            cases.append(("quote_none_%d" % cb, [{"key": "t", "op": "dataframe.read_csv",
                                                  "path": "stray.csv", "quoting": 3, "chunk_bytes": cb}],
                          "t", pd.read_csv(os.path.join(data, "stray.csv"), quoting=3)))
        # skiprows as a list: the units line and the repeated headers
        skip = [1] + [i + 2 for i in range(400) if i % 40 == 39]
        un = pd.read_csv(os.path.join(data, "units.csv"), skiprows=skip)
        for cb in (37, 100000):
            cases.append(("skiprows_list_%d" % cb, [{"key": "t", "op": "dataframe.read_csv",
                                                     "path": "units.csv", "skiprows": skip,
                                                     "chunk_bytes": cb}], "t", un))
        cases.append(("skiprows_list_groupby", [
            {"key": "t", "op": "dataframe.read_csv", "path": "units.csv", "skiprows": skip,
             "chunk_bytes": 200},
            {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["t"], "by": ["sensor"],
             "agg": {"m": ["temp", "mean"], "h": ["hum", "max"]}}], "g",
            un.groupby(["sensor"]).agg(m=("temp", "mean"), h=("hum", "max"))))
        # sep "\s+" and pandas' implicit index, through a groupby and a filter
        rt = pd.read_csv(os.path.join(data, "rtable.txt"), sep=r"\s+")
        al = pd.read_csv(os.path.join(data, "aligned.txt"), sep=r"\s+")
        for cb in (40, 1000, 100000):
            cases.append(("ws_rtable_%d" % cb, [{"key": "t", "op": "dataframe.read_csv",
                                                 "path": "rtable.txt", "sep": "\\s+",
                                                 "chunk_bytes": cb}], "t", rt))
            cases.append(("ws_aligned_%d" % cb, [{"key": "t", "op": "dataframe.read_csv",
                                                  "path": "aligned.txt", "sep": "\\s+",
                                                  "chunk_bytes": cb}], "t", al))
        cases.append(("ws_groupby", [
            {"key": "t", "op": "dataframe.read_csv", "path": "rtable.txt", "sep": "\\s+",
             "chunk_bytes": 500},
            {"key": "g", "op": "dataframe.groupby_agg", "inputs": ["t"], "by": ["city"],
             "agg": {"s": ["rain", "sum"], "m": ["temp", "mean"]}}], "g",
            rt.groupby(["city"]).agg(s=("rain", "sum"), m=("temp", "mean"))))
        cases.append(("implicit_index_filter", [
            {"key": "t", "op": "dataframe.read_csv", "path": "rtable.txt", "sep": "\\s+",
             "usecols": ["rain"], "chunk_bytes": 700},
            {"key": "x", "op": "dataframe.getitem", "inputs": ["t"], "columns": "rain"},
            {"key": "m", "op": "greater", "inputs": ["x", 30]},
            {"key": "f", "op": "dataframe.filter", "inputs": ["t", "m"]}], "f",
            (lambda d: d[d.rain > 30])(pd.read_csv(os.path.join(data, "rtable.txt"), sep=r"\s+",
                                                   usecols=["rain"]))))
        check_cases(suite, cases, lambda doc: run(doc, data))
        # values dtype cannot convert fail the job that reads them, naming
        # the line, the column and the value (pandas refuses them too)
        with open(os.path.join(data, "conv.csv"), "w") as f:
            f.write("f,n\n1.0,0\n2.5,1\n3,2\n")
        for name, dt, want in [("dtype_job_int", {"f": "int64"}, "line 3, column 'f': '2.5' does not parse as int64"),
                               ("dtype_job_bool", {"n": "bool"}, "line 4, column 'n': '2' does not parse as bool")]:
            doc = {"version": 1, "nodes": [{"key": "t", "op": "dataframe.read_csv", "path": "conv.csv",
                                            "dtype": dt, "chunk_bytes": 8}], "fetch": ["t"]}
            p, out = run(doc, data)
            shutil.rmtree(out, ignore_errors=True)
            err = p.stderr.decode()
            try:
                pd.read_csv(os.path.join(data, "conv.csv"), dtype=dt)
                refused = False
            except ValueError:
                refused = True
            suite.check(name, p.returncode == 1 and want in err and refused,
                        "exit %d: %s (pandas refuses: %s)" % (p.returncode, err[-300:], refused), doc)
        # the union's column types: v has a float in 2024-03.csv
        suite.check("types", str(u.v.dtype) == "float64", "pandas' union has v %s" % u.v.dtype)
        for name, path, want in [
                ("no_match", "logs/*.parquet", "no file matches the pattern"),
                ("header_differs", "bad/*.csv", "b.csv: its header differs from that of bad/a.csv"),
                ("outside", "../*.csv", "'..' are refused"),
                ("sep_regex", {"path": "tabs.tsv", "sep": "[,;]"}, "sep '[,;]' has several characters"),
                ("comment_long", {"path": "ids.csv", "comment": "//"},
                 "Only length-1 comment characters supported"),
                ("comment_sep", {"path": "ids.csv", "comment": ","}, "comment ',' is the separator too"),
                ("comment_quote", {"path": "ids.csv", "comment": '"'}, "cannot start a comment"),
                ("comment_decimal", {"path": "eu.csv", "sep": ";", "decimal": ",", "comment": ","},
                 "comment ',' is the decimal point too"),
                ("usecols_pos_implicit", {"path": "rtable.txt", "sep": "\\s+", "usecols": [1]},
                 "usecols by position with an implicit index"),
                ("sep_long", {"path": "tabs.tsv", "sep": "::"}, "sep '::' has several characters"),
                ("sep_quote", {"path": "tabs.tsv", "sep": '"'}, "sep '\"' is the quote character"),
                ("decimal_long", {"path": "eu.csv", "sep": ";", "decimal": ",,"},
                 "Only length-1 decimal markers supported"),
                ("decimal_digit", {"path": "eu.csv", "sep": ";", "decimal": "0"},
                 "decimal '0' cannot be a decimal point"),
                ("dtype_int_na", {"path": "ids.csv", "dtype": {"m": "int64"}},
                 "Integer column has NA values in column 'm'"),
                ("dtype_int_float_na", {"path": "ids.csv", "dtype": {"x": "int64"}},
                 "cannot safely convert passed user dtype of int64 for float64 dtyped data in column 'x'"),
                ("dtype_int_text", {"path": "ids.csv", "dtype": {"s": "int64"}},
                 "invalid literal for int() with base 10: column 's' holds text"),
                ("dtype_int_frac", {"path": "ids.csv", "dtype": {"nb": "int64"}},
                 "cannot safely convert passed user dtype of int64 for bool dtyped data in column 'nb' "
                 "due to NA values"),
                ("dtype_bool_na", {"path": "ids.csv", "dtype": {"nb": "bool"}},
                 "Bool column has NA values in column 'nb'"),
                ("dtype_float_text", {"path": "ids.csv", "dtype": {"s": "float64"}},
                 "could not convert string to float"),
                ("dtype_name", {"path": "ids.csv", "dtype": {"x": "float32"}},
                 "dtype 'float32': read_csv reads a column as object (str), float64, int64 or bool"),
                ("dtype_shape", {"path": "ids.csv", "dtype": ["x"]}, "\"dtype\" must be a type name"),
                ("header_rows", {"path": "ids.csv", "header": [0, 1]}, "lists of header rows"),
                ("header_negative", {"path": "ids.csv", "header": -1}, "\"header\" must be a row number"),
                ("header_past", {"path": "ids.csv", "header": 99}, "Passed header=99 but only 5 lines in file"),
                ("quotechar_long", {"path": "ids.csv", "quotechar": "''"}, "must be a 1-character string"),
                ("quotechar_sep", {"path": "ids.csv", "quotechar": ","}, "quotechar ',' is the separator too"),
                ("quotechar_comment", {"path": "ids.csv", "quotechar": "#", "comment": "#"},
                 "quotechar '#' is the comment too"),
                ("quoting_nonnumeric", {"path": "ids.csv", "quoting": 2}, "QUOTE_NONNUMERIC"),
                ("quoting_value", {"path": "ids.csv", "quoting": 7}, "\"quoting\" must be 0"),
                ("on_bad_lines_warn", {"path": "ids.csv", "on_bad_lines": "warn"},
                 "\"on_bad_lines\" \"warn\" is not supported: \"skip\" drops"),
                ("on_bad_lines_value", {"path": "ids.csv", "on_bad_lines": True},
                 "\"on_bad_lines\" must be \"error\" or \"skip\""),
                ("skipfooter_negative", {"path": "ids.csv", "skipfooter": -1},
                 "\"skipfooter\" must be an integer >= 0"),
                ("skipfooter_nrows", {"path": "ids.csv", "skipfooter": 1, "nrows": 2},
                 "'skipfooter' not supported with 'nrows'"),
                ("index_col_column", {"path": "ids.csv", "index_col": 0},
                 "\"index_col\" must be false (no implicit index)"),
                ("skip_blank_lines_str", {"path": "ids.csv", "skip_blank_lines": 0},
                 "\"skip_blank_lines\" must be true or false"),
                ("skip_blank_lines_header", {"path": "titled.csv", "skip_blank_lines": False, "header": 1},
                 "line 2, where the header is, is blank (skip_blank_lines=False)"),
                ("skipinitialspace_str", {"path": "ids.csv", "skipinitialspace": "yes"},
                 "\"skipinitialspace\" must be true or false"),
                ("skipinitialspace_comment", {"path": "tabs.tsv", "sep": "\t", "comment": " ",
                                              "skipinitialspace": True},
                 "skipinitialspace with the comment ' '"),
                ("true_values_str", {"path": "ids.csv", "true_values": "yes"},
                 "\"true_values\" must be a list"),
                ("false_values_int", {"path": "ids.csv", "false_values": ["no", 0]},
                 "\"false_values\"[1] must be a string"),
                ("names_dup", {"path": "ids.csv", "names": ["a", "a"]}, "Duplicate names are not allowed."),
                ("names_short", {"path": "ids.csv", "names": ["a", "b"]}, "Expected 2 fields in line 1, saw 9"),
                ("usecols_mixed", {"path": "ids.csv", "usecols": [0, "n"]}, "all names, or all non-negative"),
                ("na_values_bool", {"path": "ids.csv", "na_values": [True]}, "\"na_values\" must be a string"),
                ("na_values_many", {"path": "ids.csv", "na_values": ["v%d" % i for i in range(10001)]},
                 "na_values: 10001 values, more than the 10000 allowed"),
                # a duplicate among 200000 names is found by sorting, not by pairs
                ("names_many_dup", {"path": "ids.csv", "names": ["c%d" % i for i in range(200000)] + ["c7"]},
                 "Duplicate names are not allowed."),
                ("keep_default_na_str", {"path": "ids.csv", "keep_default_na": "no"},
                 "\"keep_default_na\" must be true or false"),
                ("skiprows_list_float", {"path": "ids.csv", "skiprows": [1, 2.5]},
                 "\"skiprows\"[1] must be an integer"),
                ("skiprows_str", {"path": "ids.csv", "skiprows": "1"}, "or a list of 0-based line numbers"),
                ("nrows_negative", {"path": "ids.csv", "nrows": -1}, "\"nrows\" must be an integer >= 0"),
                ("nrows_glob", {"path": "logs/*.csv", "nrows": 5}, "not supported with a pattern"),
                ("thousands_long", {"path": "ids.csv", "thousands": ",,"}, "Only length-1 thousands markers"),
                ("encoding_name", {"path": "ids.csv", "encoding": "utf-16"},
                 "encoding 'utf-16': read_csv reads utf-8, latin-1 (iso-8859-1) or cp1252"),
                ("thousands_digit", {"path": "ids.csv", "thousands": "1"}, "cannot separate thousands"),
                ("usecols_pos", {"path": "ids.csv", "usecols": [0, 12]},
                 "Usecols do not match columns, columns expected but not found: [0, 12]")]:
            node = {"key": "t", "op": "dataframe.read_csv"}
            node.update(path if isinstance(path, dict) else {"path": path})
            doc = {"version": 1, "nodes": [node], "fetch": ["t"]}
            p, out = run(doc, data)
            shutil.rmtree(out, ignore_errors=True)
            err = p.stderr.decode()
            if name.startswith("dtype_") and name not in ("dtype_name", "dtype_shape"):  # pandas refuses too
                try:
                    pd.read_csv(ids, dtype=node.get("dtype"))
                    suite.fail(name + "_pandas", "pandas read it", doc)
                except (ValueError, TypeError):
                    pass
            suite.check(name, p.returncode == 2 and want in err and 'node "t"' in err,
                        "exit %d: %s" % (p.returncode, err[-300:]), doc)
    finally:
        shutil.rmtree(data, ignore_errors=True)
    suite.finish()


if __name__ == "__main__":
    main()
