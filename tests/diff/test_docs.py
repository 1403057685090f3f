#!/usr/bin/python3
"""Keeps docs/graph-format.md honest: every example there (a ```json list of
nodes followed by a plain ``` block) is run through mars-run; the engine's
result must equal numpy's (npref), and the text shown must be numpy's repr
of it. The example documents in examples/*.json must run too.

Run: /usr/bin/python3 tests/diff/test_docs.py
     /usr/bin/python3 tests/diff/test_docs.py --fix   (refills the result blocks)
"""

import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import npref  # noqa: E402
import pdref  # noqa: E402

DOC = os.path.join(harness.REPO, "docs", "graph-format.md")
EXAMPLE = re.compile(r"```json\n(\[(?:(?!```).)*?\])\n```\n```\n((?:(?!```).)*?)\n```\n", re.S)


def norm(s):
    return " ".join(s.split())


def fix():
    """--fix: rewrites the result block under every example with numpy's repr
    (after adding or changing an example, write any ``` block under it)."""
    text = open(DOC).read()

    def repl(m):
        nodes = json.loads(m.group(1))
        doc = {"version": 1, "nodes": nodes, "fetch": [nodes[-1]["key"]]}
        ev = pdref.evaluate if pdref.is_df_doc(doc) else npref.evaluate
        v = ev(doc)[nodes[-1]["key"]]
        return "```json\n%s\n```\n```\n%s\n```\n" % (m.group(1), repr(v))

    new = EXAMPLE.sub(repl, text)
    with open(DOC, "w") as f:
        f.write(new)
    print("rewrote %d result blocks in %s" % (len(EXAMPLE.findall(text)), DOC))


def run_df_case(suite, name, doc, shown):
    """A DataFrame example: pandas' repr is what the page shows, and
    mars-run's DIR/KEY.json (or .npy) holds pandas' answer."""
    import numpy as np
    import test_df
    want = pdref.evaluate(doc)
    if shown is not None:
        key = doc["nodes"][-1]["key"]
        if norm(repr(want[key])) != norm(shown):
            suite.fail(name + "/text", "the page shows %r, pandas gives %r"
                       % (shown, repr(want[key])), doc)
        else:
            suite.ok(name + "/text")
    r = harness.run_mars(doc=doc)
    try:
        if r.rc != 0:
            suite.fail(name, "exit %d: %s" % (r.rc, r.brief_error()), doc)
            return
        for key in doc["fetch"]:
            ref = want[key]
            jp = os.path.join(r.outdir, key + ".json")
            if isinstance(ref, np.ndarray):
                got = np.load(os.path.join(r.outdir, key + ".npy"))
                ok = got.shape == ref.shape and np.allclose(got.astype(float), ref.astype(float),
                                                            equal_nan=True)
                if not ok:
                    suite.fail(name, "%s: %r vs pandas %r" % (key, got, ref), doc)
                    return
                continue
            with open(jp) as f:
                joins = ("dataframe.merge", "dataframe.join")
                why = test_df.expect_frame(json.load(f), ref,
                                           sort_rows=any(n["op"] in joins for n in doc["nodes"]))
            if why:
                suite.fail(name, "%s: %s" % (key, why), doc)
                return
        suite.ok(name)
    finally:
        harness.cleanup(r)


def main():
    if sys.argv[1:] == ["--fix"]:
        fix()
        return
    suite = harness.Suite("test_docs")
    harness.require_mars_run(suite)
    text = open(DOC).read()
    cases = []
    df_cases = []
    for i, m in enumerate(EXAMPLE.finditer(text)):
        line = text[:m.start()].count("\n") + 1
        nodes = json.loads(m.group(1))
        key = nodes[-1]["key"]
        doc = {"version": 1, "nodes": nodes, "fetch": [key]}
        name = "docs/line-%d/%s" % (line, nodes[-1]["op"])
        if pdref.is_df_doc(doc):
            df_cases.append((name, doc, m.group(2)))
            continue
        try:
            want = repr(npref.evaluate(doc)[key])
        except npref.Rejected as e:
            suite.fail(name, "numpy refuses the example: %s" % e, doc)
            continue
        if norm(want) != norm(m.group(2)):
            suite.fail(name + "/text", "the page shows %r, numpy gives %r" % (m.group(2), want), doc)
        else:
            suite.ok(name + "/text")
        cases.append(harness.Case(name, doc))
    if len(cases) < 60:
        suite.fail("docs/examples-found", "only %d examples parsed from %s" % (len(cases), DOC))
    harness.run_cases(suite, cases)
    for name, doc, shown in df_cases:
        run_df_case(suite, name, doc, shown)

    # examples/*.json: each runs, and what it fetches equals numpy's answer
    ex_cases = []
    for path in sorted(glob.glob(os.path.join(harness.REPO, "examples", "*.json"))):
        name = "examples/" + os.path.basename(path)
        try:
            with open(path) as f:
                doc = json.load(f)
        except ValueError as e:
            suite.fail(name, "not JSON: %s" % e)
            continue
        if pdref.is_df_doc(doc):
            run_df_case(suite, name, doc, None)
            continue
        size = sum(int(__import__("numpy").prod(n.get("shape", [1]))) for n in doc["nodes"])
        if size > 10 ** 6:
            # the large examples run as they are (the seed example is in test_cli)
            r = harness.run_mars(graph_path=path, timeout=600)
            try:
                ok = r.rc == 0 and all(os.path.exists(os.path.join(r.outdir, k + ".npy")) for k in doc["fetch"])
                suite.check(name, ok, "exit %d: %s" % (r.rc, r.brief_error()))
            finally:
                harness.cleanup(r)
        else:
            ex_cases.append(harness.Case(name, doc))
    harness.run_cases(suite, ex_cases)
    suite.finish()


if __name__ == "__main__":
    main()
