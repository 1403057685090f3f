#!/usr/bin/python3
"""Differential cases of the nan-reductions (nansum, nanprod, nanmean, nanmin,
nanmax, nanstd, nanvar, nanargmin, nanargmax, nancumsum, nancumprod) against
numpy 1.24 through npref: every dtype, axes None / one / several, keepdims,
ddof, uneven chunks over several chunks per reduced axis (the partials are
combined across jobs), NaN in some chunks only, all-NaN slices (NaN results,
or for nanargmin/nanargmax a run-time error naming the node), fused
element-wise inputs, and the documents numpy refuses.

Run: /usr/bin/python3 tests/diff/test_nanfuncs.py   (DIFF_ONLY=substring)
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import npref  # noqa: E402
from harness import Case, Reject  # noqa: E402

DTS = ["bool", "int32", "int64", "float32", "float64"]
RNG = np.random.default_rng(20261124)
RED = ["nansum", "nanprod", "nanmean", "nanmin", "nanmax", "nanstd", "nanvar"]
ARG = ["nanargmin", "nanargmax"]
SCAN = ["nancumsum", "nancumprod"]

cases = []
rejects = []
errors = []  # (name, doc, key, op, text): runs that must fail naming the node


def D(nodes, fetch=None):
    if fetch is None:
        fetch = [nodes[-1]["key"]]
    return {"version": 1, "nodes": nodes, "fetch": list(fetch)}


def N(key, op, inputs=None, **params):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = list(inputs)
    n.update(params)
    return n


def A(key, data, dtype=None, chunk=None):
    if isinstance(data, np.ndarray):
        data = data.tolist()
    n = {"key": key, "op": "array", "data": data}
    if dtype is not None:
        n["dtype"] = dtype
    if chunk is not None:
        n["chunk_size"] = chunk
    return n


def with_nans(key, dt, shape, chunk, frac=0.25, scale=1.0):
    """Node `key` of dtype dt and shape: floats with NaN at some places (a
    division 0/0 there: JSON has no NaN), others plain samples."""
    if dt == "bool":
        return [A(key, RNG.random(shape) < 0.5, "bool", chunk)]
    if dt in ("int32", "int64"):
        return [A(key, RNG.integers(-9, 10, shape), dt, chunk)]
    v = np.round(RNG.normal(0, 3, shape) * scale, 3)
    nan = RNG.random(shape) < frac
    num = np.where(nan, 0.0, v)
    den = np.where(nan, 0.0, 1.0)
    return [A(key + "_n", num, dt, chunk), A(key + "_d", den, dt, chunk),
            N(key, "divide", [key + "_n", key + "_d"])]


def case(name, nodes, fetch=None, key="r", op=None):
    d = D(nodes, fetch)
    try:
        npref.evaluate(d)
    except npref.Rejected as e:
        if "All-NaN" in str(e):
            errors.append((name + "/all-nan-error", d, key, op or nodes[-1]["op"]))
        else:
            rejects.append(Reject(name + "/rejected", d, key, op or nodes[-1]["op"]))
        return
    cases.append(Case(name, d))


for op in RED + ARG:
    for dt in DTS:
        axes = [None, 0, 1, -1] if op in ARG else [None, 0, 1, [0, 2], -1]
        for ax in axes:
            nodes = with_nans("a", dt, (7, 9, 5), [3, 4, 2],
                              scale=0.3 if op == "nanprod" else 1.0)
            kw = {"axis": ax}
            if op in ("nanstd", "nanvar") and ax == 1:
                kw["ddof"] = 1
            nodes.append(N("r", op, ["a"], **kw))
            case("%s/%s/axis=%s" % (op, dt, ax), nodes)
        nodes = with_nans("a", dt, (6, 4), [4, 3])
        case("%s/%s/keepdims" % (op, dt), nodes + [N("r", op, ["a"], axis=0, keepdims=True)])
    # an all-NaN column among others: NaN result (warning in numpy) or an error
    nodes = [A("n", [[0.0, 1.0, 2.0], [0.0, 3.0, 0.0], [0.0, -1.0, 4.0]], "float64", 2),
             A("d", [[0.0, 1.0, 1.0], [0.0, 1.0, 0.0], [0.0, 1.0, 1.0]], "float64", 2),
             N("a", "divide", ["n", "d"]), N("r", op, ["a"], axis=0)]
    case("%s/all-nan-column" % op, nodes)
    case("%s/fused-input" % op, with_nans("a", "float64", (8, 6), [3, 5]) +
         [N("m", "multiply", ["a", 2.0]), N("s", "sqrt", ["m"]), N("r", op, ["s"], axis=1)])
    case("%s/many-chunks" % op, with_nans("a", "float64", (200,), 7, frac=0.1) + [N("r", op, ["a"])])
    case("%s/0d" % op, [A("a", 2.5), N("r", op, ["a"])])
for op in ["nanmin", "nanmax"]:
    rejects.append(Reject("%s/empty-axis/rejected" % op,
                          D([N("a", "zeros", shape=[0, 3]), N("r", op, ["a"], axis=0)]), "r", op))
for op in ARG:
    rejects.append(Reject("%s/empty/rejected" % op,
                          D([N("a", "zeros", shape=[0]), N("r", op, ["a"])]), "r", op))
    rejects.append(Reject("%s/axis-list/rejected" % op,
                          D([N("a", "ones", shape=[2, 2]), N("r", op, ["a"], axis=[0, 1])]), "r", op))
    case("%s/nan-before-inf" % op,
         [A("n", [0.0, -1.0, 1.0, 0.0], "float64", 3), A("d", [0.0, 0.0, 0.0, 0.0], "float64", 3),
          N("a", "divide", ["n", "d"]), N("r", op, ["a"])])
for op in ["nanstd", "nanvar"]:
    for ddof in [0, 2, 5]:
        case("%s/ddof=%d" % (op, ddof), with_nans("a", "float32", (5, 6), [2, 4], frac=0.4) +
             [N("r", op, ["a"], axis=0, ddof=ddof)])

for op in SCAN:
    for dt in DTS:
        for ax in [None, 0, 1]:
            nodes = with_nans("a", dt, (6, 7), [4, 3], scale=0.3 if op == "nancumprod" else 1.0)
            case("%s/%s/axis=%s" % (op, dt, ax), nodes + [N("r", op, ["a"], axis=ax)])
    case("%s/nan-at-chunk-edges" % op,
         [A("n", [0.0, 1.0, 2.0, 0.0, 3.0, 0.0, 0.5], "float64", 2),
          A("d", [0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0], "float64", 3),
          N("a", "divide", ["n", "d"]), N("r", op, ["a"])])


def run_errors(suite, errs):
    for name, d, key, op in errs:
        r = harness.run_mars(d)
        try:
            lines = r.stderr_lines()
            want = 'node "%s" (%s):' % (key, op)
            if r.rc == 0:
                why = "exit 0, expected a failure"
            elif not any(want in ln and "All-NaN slice encountered" in ln for ln in lines):
                why = "stderr does not say %s ... All-NaN slice encountered: %r" % (want, r.stderr[:300])
            else:
                why = None
        finally:
            harness.cleanup(r)
        if why:
            suite.fail(name, why, d)
        else:
            suite.ok(name)


def main():
    suite = harness.Suite("test_nanfuncs")
    harness.require_mars_run(suite)
    print("# %d cases, %d rejections, %d run-time errors" % (len(cases), len(rejects), len(errors)),
          flush=True)
    sel = os.environ.get("DIFF_ONLY")
    cs = [c for c in cases if not sel or sel in c.name]
    rs = [r for r in rejects if not sel or sel in r.name]
    harness.run_cases(suite, cs)
    harness.run_rejects(suite, rs)
    run_errors(suite, [e for e in errors if not sel or sel in e[0]])
    suite.finish()


if __name__ == "__main__":
    main()
