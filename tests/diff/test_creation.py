#!/usr/bin/python3
"""Differential cases of the creation ops of the second wave (empty,
identity, ones_like, zeros_like, empty_like, full_like) against numpy 1.24
through npref: dtypes, shapes given or taken from the input, the input's
uneven chunks kept, 0-d and zero-size inputs, fill values cast to the dtype,
and refusals naming the node. `empty` and `empty_like` give zeros (numpy's
values are whatever the memory held; the engine's are defined).

Run: /usr/bin/python3 tests/diff/test_creation.py   (DIFF_ONLY=substring)
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import npref  # noqa: E402
from harness import Case, Reject  # noqa: E402

DTS = ["bool", "int32", "int64", "float32", "float64"]
RNG = np.random.default_rng(20261127)
cases = []
rejects = []


def D(nodes, fetch=None):
    return {"version": 1, "nodes": nodes, "fetch": list(fetch or [nodes[-1]["key"]])}


def N(key, op, inputs=None, **params):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = list(inputs)
    n.update(params)
    return n


def case(name, nodes, fetch=None, key="c", op=None):
    d = D(nodes, fetch)
    try:
        npref.evaluate(d)
    except npref.Rejected:
        rejects.append(Reject(name + "/rejected", d, key, op or nodes[-1]["op"]))
        return
    cases.append(Case(name, d))


for dt in [None] + DTS:
    kw = {"dtype": dt} if dt else {}
    case("empty/%s" % dt, [N("c", "empty", shape=[4, 5], chunk_size=[3, 2], **kw)])
    case("identity/%s" % dt, [N("c", "identity", n=7, chunk_size=3, **kw)])
for op in ["ones_like", "zeros_like", "empty_like", "full_like"]:
    fill = {"fill_value": 2.7} if op == "full_like" else {}
    for src in DTS:
        a = N("a", "arange", stop=30, chunk_size=7, dtype=src if src != "bool" else "int64")
        m = N("m", "reshape", ["a"], newshape=[5, 6])
        x = N("x", "astype", ["m"], dtype=src)
        for dt in [None, "int32", "float32", "bool"]:
            kw = dict(fill)
            if dt:
                kw["dtype"] = dt
            case("%s/%s/dtype=%s" % (op, src, dt), [a, m, x, N("c", op, ["x"], **kw)])
        case("%s/%s/shape" % (op, src), [a, m, x, N("c", op, ["x"], shape=[3, 2, 2], **fill)])
        case("%s/%s/chunks" % (op, src), [a, m, x, N("c", op, ["x"], chunk_size=4, **fill)])
    case("%s/0d" % op, [N("s", "sum", [N("a", "ones", shape=[3])["key"]]),
                        N("a", "ones", shape=[3]), N("c", op, ["s"], **fill)])
    case("%s/zero-size" % op, [N("a", "zeros", shape=[0, 3], chunk_size=2), N("c", op, ["a"], **fill)])
    case("%s/feeds-product" % op, [N("a", "arange", stop=12, chunk_size=5, dtype="float64"),
                                   N("m", "reshape", ["a"], newshape=[3, 4]),
                                   N("o", op, ["m"], **fill), N("c", "inner", ["m", "o"])])
    rejects.append(Reject("%s/no-input/rejected" % op, D([N("c", op, [], **fill)]), "c", op))
    rejects.append(Reject("%s/scalar-input/rejected" % op, D([N("c", op, [3], **fill)]), "c", op))
    rejects.append(Reject("%s/negative-shape/rejected" % op,
                          D([N("a", "ones", shape=[2]), N("c", op, ["a"], shape=[-1], **fill)]),
                          "c", op))
# A fill read by a product through panels that span several of its chunks:
# each chunk's box lies in the panel with gaps (one row made, copied to
# every row), uneven chunks and 3-D boxes included.
for op, fill in [("ones", {}), ("zeros", {}), ("full", {"fill_value": -2.5})]:
    for dt in ["float64", "float32", "int32", "int64"]:
        case("%s/%s/panels-of-a-product" % (op, dt),
             [N("a", op, shape=[23, 17], chunk_size=[5, 4], dtype=dt, **fill),
              N("c", "inner", ["a", "a"])])
    case("%s/panels-3d" % op,
         [N("a", op, shape=[6, 7, 9], chunk_size=[2, 3, 4], **fill),
          N("t", "transpose", ["a"], axes=[2, 0, 1]),
          N("c", "rechunk", ["t"], chunk_size=[9, 1, 7])])
full_int = [N("a", "ones", shape=[4], dtype="int32", chunk_size=3),
            N("c", "full_like", ["a"], fill_value=-3.9)]
case("full_like/float-into-int", full_int)
rejects.append(Reject("full_like/missing-fill/rejected",
                      D([N("a", "ones", shape=[2]), N("c", "full_like", ["a"])]), "c", "full_like"))
rejects.append(Reject("identity/missing-n/rejected", D([N("c", "identity")]), "c", "identity"))
rejects.append(Reject("identity/negative/rejected", D([N("c", "identity", n=-1)]), "c", "identity"))
rejects.append(Reject("empty/no-shape/rejected", D([N("c", "empty")]), "c", "empty"))


def main():
    suite = harness.Suite("test_creation")
    harness.require_mars_run(suite)
    print("# %d cases, %d rejections" % (len(cases), len(rejects)), flush=True)
    sel = os.environ.get("DIFF_ONLY")
    harness.run_cases(suite, [c for c in cases if not sel or sel in c.name])
    harness.run_rejects(suite, [r for r in rejects if not sel or sel in r.name])
    suite.finish()


if __name__ == "__main__":
    main()
