#!/usr/bin/python3
"""The DataFrame algorithms (engine/df: groupby, sort, merge, describe,
nunique) through mars-run on many-chunk CSV inputs, against pandas 1.5:
string keys with missing values, NaN keys dropped (groupby) or matched
(merge), float and bool keys, groups only some chunks have, the hash
shuffle on a filtered input with many groups, int keys merged with float
keys, stable multi-key sorts with NaN last (or first: na_position) in either
direction.
Prints `RESULT passed=N failed=M`."""

import os
import shutil
import sys
import tempfile

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_df as T  # noqa: E402  (run, load, expect_frame, report)


def frame(n, seed):
    rng = np.random.default_rng(seed)
    words = np.array(["a", "b", "ab", "ba", "zz", "B", "\u00e9t\u00e9", "x y"])
    k = words[rng.integers(0, len(words), n)].astype(object)
    k[rng.random(n) < 0.07] = np.nan
    s = words[rng.integers(0, len(words), n)].astype(object)
    s[rng.random(n) < 0.1] = np.nan
    f = np.round(rng.standard_normal(n) * 100, 3)
    f[rng.random(n) < 0.1] = np.nan
    kf = rng.integers(-3, 4, n).astype(float) / 2
    kf[rng.random(n) < 0.05] = np.nan
    return pd.DataFrame({
        "k": k, "k2": rng.integers(0, 5, n), "kf": kf, "f": f,
        "i": rng.integers(-1000, 1000, n), "s": s, "b": rng.random(n) < 0.4,
        "u": rng.integers(0, 1500, n),
    })


def main():
    data = tempfile.mkdtemp(prefix="df_algo_")
    pdf = frame(3000, 1)
    pdf.to_csv(os.path.join(data, "t.csv"), index=False)
    # the right side: a float key where the left's k2 is int, strings with NaN
    rdf = pd.DataFrame({"k": ["a", "b", np.nan, "zz", "a", "q"],
                        "k2": [1.0, 2.0, 0.0, 4.0, 3.0, 9.0],
                        "r": [10, 20, 30, 40, 50, 60],
                        "f": [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]})
    rdf.to_csv(os.path.join(data, "r.csv"), index=False)
    rd = pd.read_csv(os.path.join(data, "r.csv"))
    pd_ = pd.read_csv(os.path.join(data, "t.csv"))  # pandas' own typing of the file
    aggs = {"n": ["i", "sum"], "m": ["f", "mean"], "c": ["f", "count"], "z": ["f", "size"],
            "sd": ["f", "std"], "va": ["i", "var"], "mn": ["f", "min"], "mx": ["i", "max"],
            "u": ["s", "nunique"], "fi": ["s", "first"], "la": ["f", "last"],
            "sb": ["b", "sum"], "lb": ["b", "last"]}
    named = {o: (c, fn) for o, (c, fn) in aggs.items()}
    nodes = [{"key": "t", "op": "dataframe.read_csv", "path": "t.csv", "chunk_bytes": 4000},
             {"key": "r", "op": "dataframe.read_csv", "path": "r.csv", "chunk_bytes": 30},
             {"key": "ui", "op": "dataframe.getitem", "inputs": ["t"], "columns": "u"},
             {"key": "m", "op": "greater", "inputs": ["ui", 300]},
             {"key": "tf", "op": "dataframe.filter", "inputs": ["t", "m"]}]
    cases = []

    def gb(key, src, ref, by, agg=aggs):
        nodes.append({"key": key, "op": "dataframe.groupby_agg", "inputs": [src], "by": by,
                      "agg": agg})
        cases.append((key, ref.groupby(by).agg(**{o: (c, fn) for o, (c, fn) in agg.items()}),
                      False))

    gb("gb_k", "t", pd_, ["k"])
    gb("gb_k_k2", "t", pd_, ["k", "k2"])
    gb("gb_kf", "t", pd_, ["kf"])
    gb("gb_b_k", "t", pd_, ["b", "k"], {"n": ["i", "sum"], "u": ["k", "nunique"]})
    # a filtered input (rows unknown) with ~1200 groups: the hash shuffle
    gb("gb_shuffle", "tf", pd_[pd_.u > 300], ["u"])
    gb("gb_shuffle2", "tf", pd_[pd_.u > 300], ["s", "k2"])
    # the shuffle moves each chunk's partial aggregates: few groups (and a
    # float key with NaN, dropped) and keys seen in every chunk
    gb("gb_shuffle_few", "tf", pd_[pd_.u > 300], ["kf"])
    gb("gb_shuffle_few2", "tf", pd_[pd_.u > 300], ["k", "kf"])
    for key, by, asc in [("so_s_f", ["s", "f"], [False, True]), ("so_f", ["f"], [False]),
                         ("so_kf_k", ["kf", "k"], [True, False]), ("so_b", ["b"], [True])]:
        nodes.append({"key": key, "op": "dataframe.sort_values", "inputs": ["t"], "by": by,
                      "ascending": asc})
        cases.append((key, pd_.sort_values(by, ascending=asc, kind="mergesort"), False))
    # na_position="first": rows missing a key before the others, in their
    # order, whatever the direction; per key with several keys
    for key, by, asc in [("so_nf_s_f", ["s", "f"], [False, True]), ("so_nf_f", ["f"], [False]),
                         ("so_nf_fa", ["f"], [True]), ("so_nf_kf_k", ["kf", "k"], [True, False]),
                         ("so_nf_k", ["k"], [True]), ("so_nf_i", ["i"], [True])]:
        nodes.append({"key": key, "op": "dataframe.sort_values", "inputs": ["t"], "by": by,
                      "ascending": asc, "na_position": "first"})
        cases.append((key, pd_.sort_values(by, ascending=asc, kind="mergesort",
                                           na_position="first"), False))
    nodes.append({"key": "fser", "op": "dataframe.getitem", "inputs": ["tf"], "columns": "f"})
    nodes.append({"key": "so_nf_ser", "op": "dataframe.sort_values", "inputs": ["fser"],
                  "na_position": "first", "ascending": False})
    cases.append(("so_nf_ser", pd_[pd_.u > 300].f.sort_values(ascending=False, kind="mergesort",
                                                              na_position="first"), False))
    nodes.append({"key": "kfidx", "op": "dataframe.set_index", "inputs": ["t"], "keys": "kf"})
    for key, asc, nap in [("sx_nf", True, "first"), ("sx_nf_d", False, "first"),
                          ("sx_nl_d", False, "last")]:
        nodes.append({"key": key, "op": "dataframe.sort_index", "inputs": ["kfidx"],
                      "ascending": asc, "na_position": nap})
        cases.append((key, pd_.set_index("kf").sort_index(ascending=asc, kind="mergesort",
                                                          na_position=nap), False))
    nodes.append({"key": "so_filt", "op": "dataframe.sort_values", "inputs": ["tf"],
                  "by": ["k", "i"]})
    cases.append(("so_filt", pd_[pd_.u > 300].sort_values(["k", "i"], kind="mergesort"), False))
    for how in ("inner", "left", "right", "outer"):
        key = "me_" + how
        nodes.append({"key": key, "op": "dataframe.merge", "inputs": ["t", "r"],
                      "on": ["k", "k2"], "how": how})
        # inner and left: pandas' row order too (DFJ_MERGE_ORDER)
        cases.append((key, pd_.merge(rd, on=["k", "k2"], how=how), how in ("right", "outer")))
    nodes.append({"key": "de", "op": "dataframe.describe", "inputs": ["t"]})
    cases.append(("de", pd_.describe(), False))
    nodes.append({"key": "de_f", "op": "dataframe.describe", "inputs": ["tf"]})
    cases.append(("de_f", pd_[pd_.u > 300].describe(), False))
    nodes.append({"key": "nu", "op": "dataframe.nunique", "inputs": ["t"]})
    cases.append(("nu", pd_.nunique(), False))
    nodes.append({"key": "nu_f", "op": "dataframe.nunique", "inputs": ["tf"]})
    cases.append(("nu_f", pd_[pd_.u > 300].nunique(), False))
    # dropna false: a column's missing value counts once, whether one chunk
    # or many saw it (the partials carry it), and not where none is missing
    nodes.append({"key": "nu_na", "op": "dataframe.nunique", "inputs": ["t"], "dropna": False})
    cases.append(("nu_na", pd_.nunique(dropna=False), False))
    nodes.append({"key": "nu_na_f", "op": "dataframe.nunique", "inputs": ["tf"], "dropna": False})
    cases.append(("nu_na_f", pd_[pd_.u > 300].nunique(dropna=False), False))
    del named
    rc, err, out = T.run({"version": 1, "nodes": nodes, "fetch": [c[0] for c in cases]}, data)
    if rc != 0:
        T.report("df-algo-batch", False, "exit %d: %s" % (rc, err.strip()[:500]))
    else:
        for key, ref, unordered in cases:
            why = T.expect_frame(T.load(out, key), ref, sort_rows=unordered)
            T.report(key, not why, why)
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(data, ignore_errors=True)
    print("RESULT passed=%d failed=%d" % (T.passed, T.failed))
    return 1 if T.failed else 0


if __name__ == "__main__":
    sys.exit(main())
