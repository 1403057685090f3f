#!/usr/bin/python3
"""Broken documents: mars-run must reject each before running anything, with
exit 2, exactly one line on stderr that names the offending node and op
(`node "b" (inner): ...`) where a node is at fault, and no .npy in the output
directory. Failures only the data can reveal (an integer to a negative power)
exit 1 instead, with a message.

Run: /usr/bin/python3 tests/diff/test_errors.py
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

cases = []  # (name, doc dict or raw text, key or None, op or None, [substrings], extra args)


def D(nodes, fetch=None):
    return {"version": 1, "nodes": nodes, "fetch": [nodes[-1]["key"]] if fetch is None else fetch}


def N(key, op, inputs=None, **params):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = inputs
    n.update(params)
    return n


def bad(name, doc, key=None, op=None, contains=(), args=()):
    cases.append((name, doc, key, op, list(contains), list(args)))


A34 = N("a", "ones", shape=[3, 4], chunk_size=2)
A53 = N("c", "ones", shape=[5, 3])
V3 = N("v", "array", data=[1.0, 2.0, 3.0])

# -- shapes that do not fit ---------------------------------------------------
bad("inner-not-aligned", D([A34, A53, N("b", "inner", ["a", "c"])]), "b", "inner")
bad("inner-not-aligned-message", D([A34, A53, N("b", "inner", ["a", "c"])]), "b", "inner",
    ["(3, 4)", "(5, 3)"])
bad("matmul-not-aligned", D([A34, N("c", "ones", shape=[3, 4]), N("m", "matmul", ["a", "c"])]), "m", "matmul")
bad("matmul-batch-mismatch", D([N("a", "ones", shape=[2, 3, 4]), N("c", "ones", shape=[3, 4, 5]),
                                N("m", "matmul", ["a", "c"])]), "m", "matmul")
bad("dot-not-aligned", D([A34, A53, N("d", "dot", ["a", "c"])]), "d", "dot")
bad("tensordot-axes-mismatch", D([A34, A53, N("t", "tensordot", ["a", "c"], axes=[[1], [0]])]), "t", "tensordot")
bad("tensordot-axes-too-many", D([A34, A53, N("t", "tensordot", ["a", "c"], axes=3)]), "t", "tensordot")
bad("tensordot-axis-out-of-range", D([A34, A53, N("t", "tensordot", ["a", "c"], axes=[[2], [0]])]),
    "t", "tensordot")
bad("broadcast-mismatch", D([A34, N("c", "ones", shape=[5]), N("s", "add", ["a", "c"])]), "s", "add")
bad("broadcast-mismatch-where", D([A34, N("c", "ones", shape=[4], dtype="bool"), N("y", "ones", shape=[2, 1]),
                                   N("w", "where", ["c", "a", "y"])]), "w", "where")
bad("concatenate-shape-mismatch", D([A34, A53, N("k", "concatenate", ["a", "c"], axis=0)]), "k", "concatenate")
bad("concatenate-ndim-mismatch", D([A34, V3, N("k", "concatenate", ["a", "v"])]), "k", "concatenate")
bad("concatenate-0d", D([N("z", "ones", shape=[]), N("k", "concatenate", ["z", "z"])]), "k", "concatenate")
bad("stack-shape-mismatch", D([A34, N("c", "ones", shape=[4, 3]), N("k", "stack", ["a", "c"])]), "k", "stack")
bad("reshape-size-mismatch", D([A34, N("r", "reshape", ["a"], newshape=[5, 3])]), "r", "reshape")
bad("reshape-two-minus-one", D([A34, N("r", "reshape", ["a"], newshape=[-1, -1])]), "r", "reshape")
bad("reshape-minus-two", D([A34, N("r", "reshape", ["a"], newshape=[-2, -6])]), "r", "reshape")
bad("reshape-minus-one-not-dividing", D([A34, N("r", "reshape", ["a"], newshape=[5, -1])]), "r", "reshape")
bad("matmul-0d", D([N("z", "ones", shape=[]), V3, N("m", "matmul", ["z", "v"])]), "m", "matmul")
bad("min-of-empty", D([N("e", "ones", shape=[0, 3]), N("m", "min", ["e"])]), "m", "min")
bad("argmax-of-empty", D([N("e", "ones", shape=[3, 0]), N("m", "argmax", ["e"], axis=1)]), "m", "argmax")

# -- axes -------------------------------------------------------------------------
bad("sum-axis-out-of-range", D([A34, N("s", "sum", ["a"], axis=2)]), "s", "sum")
bad("sum-axis-negative-out-of-range", D([A34, N("s", "sum", ["a"], axis=-3)]), "s", "sum")
bad("sum-axis-repeated", D([A34, N("s", "sum", ["a"], axis=[0, 0])]), "s", "sum")
bad("sum-axis-repeated-negative", D([A34, N("s", "sum", ["a"], axis=[1, -1])]), "s", "sum")
bad("sum-axis-string", D([A34, N("s", "sum", ["a"], axis="0")]), "s", "sum")
bad("sum-axis-float", D([A34, N("s", "sum", ["a"], axis=0.5)]), "s", "sum")
bad("argmin-axis-list", D([A34, N("s", "argmin", ["a"], axis=[0, 1])]), "s", "argmin")
bad("cumsum-axis-out-of-range", D([A34, N("s", "cumsum", ["a"], axis=2)]), "s", "cumsum")
bad("transpose-bad-perm", D([A34, N("t", "transpose", ["a"], axes=[0, 0])]), "t", "transpose")
bad("transpose-perm-length", D([A34, N("t", "transpose", ["a"], axes=[1, 0, 2])]), "t", "transpose")
bad("squeeze-not-one", D([A34, N("q", "squeeze", ["a"], axis=1)]), "q", "squeeze")
bad("expand_dims-out-of-range", D([A34, N("e", "expand_dims", ["a"], axis=4)]), "e", "expand_dims")
bad("concatenate-axis-out-of-range", D([A34, N("k", "concatenate", ["a", "a"], axis=2)]), "k", "concatenate")
bad("stack-axis-out-of-range", D([A34, N("k", "stack", ["a", "a"], axis=3)]), "k", "stack")
bad("keepdims-not-bool", D([A34, N("s", "sum", ["a"], keepdims="yes")]), "s", "sum")

# -- ops, fields, inputs ----------------------------------------------------------
bad("unknown-op", D([A34, N("x", "frobnicate", ["a"])]), "x", None, ["frobnicate"])
bad("unknown-op-numpy-name", D([A34, N("x", "bitwise_xor", ["a", "a"])]), "x", None, ["bitwise_xor"])
bad("unknown-field-typo", D([A34, N("s", "sum", ["a"], axsi=0)]), "s", "sum", ["axsi"])
bad("unknown-field-on-creation", D([N("a", "ones", shape=[3], chunks=2)]), "a", "ones", ["chunks"])
bad("field-of-another-op", D([A34, N("s", "add", ["a", 1], axis=0)]), "s", "add", ["axis"])
bad("chunk_size-on-non-creation", D([A34, N("s", "exp", ["a"], chunk_size=2)]), "s", "exp", ["chunk_size"])
bad("missing-input-key", D([A34, N("b", "add", ["a", "nope"])]), "b", "add", ["nope"])
bad("input-null", D([A34, N("b", "add", ["a", None])]), "b", "add")
bad("input-list", D([A34, N("b", "add", ["a", [1, 2]])]), "b", "add")
bad("inputs-not-list", D([A34, N("b", "negative", "a")]), "b", "negative")
bad("too-few-inputs", D([A34, N("b", "add", ["a"])]), "b", "add")
bad("too-many-inputs", D([A34, N("b", "negative", ["a", "a"])]), "b", "negative")
bad("where-two-inputs", D([A34, N("w", "where", ["a", "a"])]), "w", "where")
bad("sum-two-inputs", D([A34, N("s", "sum", ["a", "a"])]), "s", "sum")
bad("creation-with-inputs", D([A34, N("o", "ones", ["a"], shape=[2])]), "o", "ones")
bad("no-inputs-for-add", D([N("b", "add")]), "b", "add")
bad("scalar-to-sum", D([N("s", "sum", [3])]), "s", "sum")
bad("scalar-to-matmul", D([A34, N("m", "matmul", ["a", 2])]), "m", "matmul")
bad("scalar-to-transpose", D([N("t", "transpose", [1.5])]), "t", "transpose")
bad("scalar-to-concatenate", D([V3, N("k", "concatenate", ["v", 1])]), "k", "concatenate")
bad("scalar-to-reshape", D([N("r", "reshape", [4], newshape=[1])]), "r", "reshape")
# JSON integers past int64: the JSON reader refuses them, at document level.
bad("scalar-too-big-for-int64", D([A34, N("b", "add", ["a", 2 ** 64])]))
bad("cycle", D([N("a", "add", ["b", 1]), N("b", "add", ["a", 1])]), None, None, ["cycl"])
bad("self-cycle", D([N("a", "negative", ["a"])]), "a", "negative")
bad("cycle-three", D([N("a", "exp", ["c"]), N("b", "exp", ["a"]), N("c", "exp", ["b"]),
                      N("d", "ones", shape=[2])], fetch=["d"]), None, None, ["cycl"])
bad("duplicate-key", D([N("a", "ones", shape=[2]), N("a", "zeros", shape=[2])]), None, None, ['"a"'])
for i, k in enumerate(["a b", "a/b", "", "x" * 129, "é", "a:b", "../x", "a\nb"]):
    bad("bad-key-%d" % i, D([N(k, "ones", shape=[2])]))
bad("key-128-ok-but-input-missing", D([N("x" * 128, "ones", shape=[2]), N("b", "add", ["x" * 127, 1])]), "b", "add")
bad("key-not-string", D([{"key": 5, "op": "ones", "shape": [2]}]))
bad("key-missing", D([{"op": "ones", "shape": [2], "key": "a"}, {"op": "ones", "shape": [2]}], fetch=["a"]))
bad("op-missing", D([{"key": "a", "shape": [2]}]))
bad("op-not-string", D([{"key": "a", "op": 3, "shape": [2]}]))
bad("node-not-object", {"version": 1, "nodes": [["a", "ones"]], "fetch": []})

# -- document --------------------------------------------------------------------
ONE = [N("a", "ones", shape=[2])]
bad("version-2", {"version": 2, "nodes": ONE, "fetch": ["a"]}, None, None, ["version"])
bad("version-string", {"version": "1", "nodes": ONE, "fetch": ["a"]}, None, None, ["version"])
bad("version-float", {"version": 1.0, "nodes": ONE, "fetch": ["a"]}, None, None, ["version"])
bad("version-true", {"version": True, "nodes": ONE, "fetch": ["a"]}, None, None, ["version"])
bad("version-missing", {"nodes": ONE, "fetch": ["a"]}, None, None, ["version"])
bad("nodes-not-list", {"version": 1, "nodes": {"a": {"op": "ones"}}, "fetch": ["a"]}, None, None, ["nodes"])
bad("nodes-missing", {"version": 1, "fetch": []}, None, None, ["nodes"])
bad("fetch-unknown-key", {"version": 1, "nodes": ONE, "fetch": ["zz"]}, None, None, ["zz"])
bad("fetch-not-list", {"version": 1, "nodes": ONE, "fetch": "a"}, None, None, ["fetch"])
bad("fetch-number", {"version": 1, "nodes": ONE, "fetch": [1]}, None, None, ["fetch"])
bad("unknown-top-level-field", {"version": 1, "nodes": ONE, "fetch": ["a"], "fecth": []}, None, None, ["fecth"])
bad("document-is-a-list", "[1, 2, 3]")
bad("document-is-a-number", "1")
bad("invalid-json", '{"version": 1, "nodes": [', None, None, ["JSON"])
bad("invalid-json-trailing-comma", '{"version": 1, "nodes": [], "fetch": [],}')
bad("invalid-json-nan-literal", '{"version":1,"nodes":[{"key":"a","op":"add","inputs":[NaN, 1]}],"fetch":["a"]}')
bad("invalid-json-garbage-after", '{"version":1,"nodes":[],"fetch":[]} xyz')
bad("duplicate-object-field", '{"version":1,"nodes":[{"key":"a","op":"sum","axis":0,"axis":1,'
    '"inputs":["b"]},{"key":"b","op":"ones","shape":[2,2]}],"fetch":["a"]}')
bad("empty-body", "")
bad("whitespace-body", "   \n")
bad("not-utf8", b'{"version":1,"nodes":[{"key":"a","op":"ones","shape":[2],"dtype":"\xff"}],"fetch":["a"]}')

# -- parameters -------------------------------------------------------------------
bad("dtype-unknown", D([N("a", "ones", shape=[2], dtype="float16")]), "a", "ones", ["float16"])
bad("dtype-int128", D([N("a", "zeros", shape=[2], dtype="int128")]), "a", "zeros")
bad("dtype-numpy-alias", D([N("a", "ones", shape=[2], dtype="double")]), "a", "ones")
bad("astype-bad-dtype", D([V3, N("t", "astype", ["v"], dtype="complex128")]), "t", "astype")
bad("astype-no-dtype", D([V3, N("t", "astype", ["v"])]), "t", "astype")
bad("shape-negative", D([N("a", "ones", shape=[-1, 3])]), "a", "ones")
bad("shape-negative-bare", D([N("a", "zeros", shape=-4)]), "a", "zeros")
bad("shape-float", D([N("a", "ones", shape=[2.5])]), "a", "ones")
bad("shape-string", D([N("a", "ones", shape="3")]), "a", "ones")
bad("shape-missing", D([N("a", "ones")]), "a", "ones")
bad("shape-huge-overflow", D([N("a", "ones", shape=[2 ** 40, 2 ** 40, 2 ** 40])]), "a", "ones")
bad("shape-huge-int64-overflow", D([N("a", "zeros", shape=[2 ** 62, 4])]), "a", "zeros")
bad("shape-over-uint64", D([N("a", "zeros", shape=[2 ** 64])]))
bad("shape-huge-bytes", D([N("a", "zeros", shape=[2 ** 21, 2 ** 21, 2 ** 3])]), "a", "zeros")
bad("shape-huge-after-outer", D([N("a", "ones", shape=[2 ** 22]), N("o", "outer", ["a", "a"])]), "o", "outer")
bad("shape-too-many-dims", D([N("a", "ones", shape=[1] * 33)]), "a", "ones")
bad("chunk_size-0", D([N("a", "ones", shape=[4, 4], chunk_size=0)]), "a", "ones")
bad("chunk_size-list-with-0", D([N("a", "ones", shape=[4, 4], chunk_size=[2, 0])]), "a", "ones")
bad("chunk_size-negative", D([N("a", "ones", shape=[4], chunk_size=-2)]), "a", "ones")
bad("chunk_size-wrong-length", D([N("a", "ones", shape=[4, 4], chunk_size=[2])]), "a", "ones")
bad("chunk_size-float", D([N("a", "ones", shape=[4], chunk_size=1.5)]), "a", "ones")
bad("rechunk-chunk_size-0", D([A34, N("r", "rechunk", ["a"], chunk_size=0)]), "r", "rechunk")
bad("rechunk-missing-chunk_size", D([A34, N("r", "rechunk", ["a"])]), "r", "rechunk")
bad("getitem-out-of-range", D([A34, N("g", "getitem", ["a"], index=[3])]), "g", "getitem")
bad("getitem-negative-out-of-range", D([A34, N("g", "getitem", ["a"], index=[0, -5])]), "g", "getitem")
bad("getitem-step-0", D([A34, N("g", "getitem", ["a"], index=["::0"])]), "g", "getitem")
bad("getitem-too-many", D([A34, N("g", "getitem", ["a"], index=[0, 0, 0])]), "g", "getitem")
bad("getitem-bad-slice-text", D([A34, N("g", "getitem", ["a"], index=["1:2:3:4"])]), "g", "getitem")
bad("getitem-slice-letters", D([A34, N("g", "getitem", ["a"], index=["a:b"])]), "g", "getitem")
bad("getitem-index-not-list", D([A34, N("g", "getitem", ["a"], index=1)]), "g", "getitem")
bad("getitem-float-entry", D([A34, N("g", "getitem", ["a"], index=[1.0])]), "g", "getitem")
bad("getitem-on-0d", D([N("z", "ones", shape=[]), N("g", "getitem", ["z"], index=[0])]), "g", "getitem")
bad("arange-step-0", D([N("a", "arange", stop=5, step=0)]), "a", "arange")
bad("arange-no-stop", D([N("a", "arange", start=5)]), "a", "arange")
bad("linspace-negative-num", D([N("a", "linspace", start=0, stop=1, num=-1)]), "a", "linspace")
bad("eye-negative-N", D([N("a", "eye", N=-2)]), "a", "eye")
bad("full-no-fill", D([N("a", "full", shape=[2])]), "a", "full")
bad("full-string-fill", D([N("a", "full", shape=[2], fill_value="x")]), "a", "full")
bad("array-ragged", D([N("a", "array", data=[[1, 2], [3]])]), "a", "array")
bad("array-strings", D([N("a", "array", data=["x", "y"])]), "a", "array")
bad("array-no-data", D([N("a", "array")]), "a", "array")
bad("randint-high-le-low", D([N("r", "random.randint", shape=[3], low=5, high=5, seed=1)]),
    "r", "random.randint")
bad("randint-no-high", D([N("r", "random.randint", shape=[3], seed=1)]), "r", "random.randint")
bad("random-negative-seed", D([N("r", "random.rand", shape=[3], seed=-1)]), "r", "random.rand")
bad("random-float-seed", D([N("r", "random.rand", shape=[3], seed=1.5)]), "r", "random.rand")
bad("normal-negative-scale", D([N("r", "random.normal", shape=[3], scale=-1.0, seed=1)]), "r", "random.normal")
bad("clip-no-bounds", D([V3, N("c", "clip", ["v"], a_min=None, a_max=None)]), "c", "clip")
bad("clip-string-bound", D([V3, N("c", "clip", ["v"], a_min="0")]), "c", "clip")

# -- dtype rules numpy refuses, or results outside the contract's dtypes -------------
B = N("p", "array", data=[True, False])
bad("bool-subtract", D([B, N("x", "subtract", ["p", "p"])]), "x", "subtract")
bad("bool-negative", D([B, N("x", "negative", ["p"])]), "x", "negative")
bad("bool-sqrt-float16", D([B, N("x", "sqrt", ["p"])]), "x", "sqrt")
bad("int8-sqrt-float16", D([N("p", "array", data=[1, 2], dtype="int8"), N("x", "sqrt", ["p"])]),
    "x", "sqrt")
bad("uint8-sin-float16", D([N("p", "array", data=[1, 2], dtype="uint8"), N("x", "sin", ["p"])]),
    "x", "sin")
bad("bool-sign", D([B, N("x", "sign", ["p"])]), "x", "sign")

# -- limits given on the command line ------------------------------------------------
bad("limit-max-elements", D([N("a", "ones", shape=[100, 100])]), "a", "ones", [], ["--max-elements", "1000"])
bad("limit-max-bytes", D([N("a", "ones", shape=[100, 100])]), "a", "ones", [], ["--max-bytes", "1k"])
bad("limit-max-document", D([N("a", "ones", shape=[100, 100])]), None, None, [], ["--max-document", "10"])
bad("limit-max-elements-derived", D([N("a", "ones", shape=[100]), N("o", "outer", ["a", "a"])]),
    "o", "outer", [], ["--max-elements", "5000"])


def check_runtime_errors(suite):
    """Exit 1, with a message, for failures only the data reveals."""
    docs = [
        ("runtime/int-negative-power",
         D([N("b", "array", data=[2, 3, 4], chunk_size=2), N("e", "array", data=[1, 2, -1], chunk_size=2),
            N("x", "power", ["b", "e"])])),
        ("runtime/int32-negative-power-late-chunk",
         D([N("b", "arange", stop=50, dtype="int32", chunk_size=7),
            N("e", "subtract", [48, "b"]), N("x", "power", ["b", "e"]), N("s", "sum", ["x"])])),
        ("runtime/int-negative-power-from-random",
         D([N("r", "random.randint", shape=[1000], low=-1, high=3, seed=7, chunk_size=100),
            N("x", "power", [2, "r"])])),
    ]
    # A negative scalar exponent is visible before running: numpy raises at
    # the call, so rejecting it (2) or failing at run time (1) both fit.
    docs.append(("runtime-or-reject/int-to-negative-scalar-power",
                 D([N("i", "array", data=[1, 2, 3]), N("x", "power", ["i", -1])])))
    for name, d in docs:
        r = harness.run_mars(d)
        try:
            lines = r.stderr_lines()
            if r.rc not in ((1, 2) if name.startswith("runtime-or-reject") else (1,)):
                why = "exit %d, expected 1 (stderr: %s)" % (r.rc, r.brief_error())
            elif not lines:
                why = "no message on stderr"
            elif not any("power" in l or "negative" in l for l in lines):
                why = "message does not say what failed: %r" % lines[-1]
            elif any("Sanitizer" in l or "runtime error" in l for l in lines):
                why = "sanitizer report: %s" % r.brief_error()
            else:
                why = None
        finally:
            harness.cleanup(r)
        if why:
            suite.fail(name, why, d)
        else:
            suite.ok(name)


def main():
    suite = harness.Suite("test_errors")
    harness.require_mars_run(suite)
    for name, d, key, op, contains, args in cases:
        if isinstance(d, dict):
            r = harness.run_mars(d, args=args)
            shown = d
        else:
            r = harness.run_mars(text=d, args=args)
            shown = d if isinstance(d, str) else d.decode("latin-1")
        try:
            why = harness.check_rejected(r, key, op)
            if not why:
                line = r.stderr_lines()[0]
                for s in contains:
                    if s.lower() not in line.lower():
                        why = "message lacks %r: %r" % (s, line)
                        break
            if not why and key is None and isinstance(d, dict) and "node \"" in r.stderr and \
                    name.startswith("version"):
                why = "document-level error reported against a node: %r" % r.stderr.strip()
            if not why and (r.rc == 2) and ("Sanitizer" in r.stderr or "runtime error" in r.stderr):
                why = "sanitizer report: %s" % r.brief_error()
        finally:
            harness.cleanup(r)
        if why:
            suite.fail("reject/" + name, why, shown if isinstance(shown, dict) else json.dumps(shown))
        else:
            suite.ok("reject/" + name)
    check_runtime_errors(suite)
    suite.finish()


if __name__ == "__main__":
    main()
