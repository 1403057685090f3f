#!/usr/bin/python3
"""Differential cases of the sortstat ops (sorting and searching,
statistics) against numpy 1.24: sort, argsort (numpy's stable kind, ties
included), partition and argpartition (checked by the partition property
and against the sorted values at kth), topk (Mars's), searchsorted, isin,
in1d, digitize, percentile, quantile, median and their nan forms, average,
cov, corrcoef, allclose; every dtype, NaN where numpy has rules for it,
uneven chunks along and across the axis, axis None; and the documents numpy
refuses (each must be rejected naming the node and the rule).

Run: /usr/bin/python3 tests/diff/test_sortstat.py [NAME-SUBSTRING ...]
"""

import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

DTS = ["bool", "int32", "int64", "float32", "float64"]
RNG = np.random.default_rng(20261123)
suite = harness.Suite("test_sortstat")
harness.require_mars_run(suite)
cases = []  # (name, nodes, key, expected or callable check)
rejects = []
ONLY = sys.argv[1:]


def N(key, op, inputs=None, **params):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = list(inputs)
    n.update(params)
    return n


def A(key, data, dtype, chunk=None):
    data = np.asarray(data)
    n = {"key": key, "op": "array", "data": json_safe(data), "dtype": dtype}
    if chunk is not None:
        n["chunk_size"] = chunk
    return n


def json_safe(x):
    """NaN cannot be in JSON: the suite builds NaN with divide nodes instead."""
    assert not (x.dtype.kind == "f" and np.isnan(x).any())
    return x.tolist()


def sample(dt, shape, ties=True):
    if dt == "bool":
        return RNG.random(shape) < 0.5
    if dt.startswith("int"):
        return RNG.integers(-6, 7 if ties else 10**6, shape).astype(dt)
    v = np.round(RNG.normal(0, 3, shape), 1 if ties else 6).astype(dt)
    return v


def with_nan(key, base_key, shape, frac=0.2, dt="float64"):
    """nodes making `key` = base with NaN at random places (0/0 where a mask is 1)."""
    m = (RNG.random(shape) < frac).astype(np.float64)
    return [A(key + "_m", m, "float64", None),
            N(key + "_z", "subtract", [key + "_m", key + "_m"]),
            N(key + "_q0", "divide", [key + "_z", key + "_z"]),   # NaN everywhere
            N(key + "_q", "astype", [key + "_q0"], dtype=dt),
            N(key + "_mb", "greater", [key + "_m", 0.5]),
            N(key, "where", [key + "_mb", key + "_q", base_key])], m > 0.5


def case(name, nodes, expect, key="r"):
    if ONLY and not any(o in name for o in ONLY):
        return
    cases.append((name, nodes, key, expect))


def reject(name, nodes, key="r", op=None):
    if ONLY and not any(o in name for o in ONLY):
        return
    rejects.append(harness.Reject(name, {"version": 1, "nodes": nodes, "fetch": [key]}, key,
                                  op or nodes[-1]["op"]))


def npq(f, *a, **k):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return f(*a, **k)


# ---------------------------------------------------------------- sorting
SH = (7, 9, 5)
CH = [3, 4, 2]
for dt in DTS:
    x = sample(dt, SH)
    for ax in [0, 1, 2, -1, None]:
        kw = {} if ax == -1 else {"axis": ax}
        case("sort/%s/axis=%s" % (dt, ax), [A("a", x, dt, CH), N("r", "sort", ["a"], **kw)],
             np.sort(x, axis=ax))
        case("argsort/%s/axis=%s" % (dt, ax), [A("a", x, dt, CH), N("r", "argsort", ["a"], **kw)],
             np.argsort(x, axis=ax, kind="stable"))
    for kth in [0, 3, [1, -1]]:
        def pcheck(got, x=x, kth=kth, arg=False):
            s = np.sort(x, axis=1)
            v = np.take_along_axis(x, got, axis=1) if arg else got
            if v.shape != s.shape:
                return "shape %s, expected %s" % (v.shape, s.shape)
            ks = [kth] if np.isscalar(kth) else kth
            for k in ks:
                if not np.array_equal(v[:, k], s[:, k]):
                    return "values at kth %d differ" % k
                kk = k % x.shape[1]
                if not (np.all(v[:, :kk] <= v[:, kk:kk + 1]) and np.all(v[:, kk:] >= v[:, kk:kk + 1])):
                    return "not partitioned at %d" % k
            if arg and got.dtype != np.int64:
                return "dtype %s" % got.dtype
            return None
        case("partition/%s/kth=%s" % (dt, kth),
             [A("a", x, dt, CH), N("r", "partition", ["a"], kth=kth, axis=1)], pcheck)
        case("argpartition/%s/kth=%s" % (dt, kth),
             [A("a", x, dt, CH), N("r", "argpartition", ["a"], kth=kth, axis=1)],
             lambda g, f=pcheck: f(g, arg=True))
    for k, largest, ax in [(1, True, -1), (3, True, 0), (4, False, 1), (5, True, None)]:
        s = np.sort(x.ravel() if ax is None else x, axis=-1 if ax is None else ax)
        sa = -1 if ax is None else ax
        L = s.shape[sa]
        idx = np.arange(L - 1, L - 1 - k, -1) if largest else np.arange(k)
        case("topk/%s/k=%d/largest=%s/axis=%s" % (dt, k, largest, ax),
             [A("a", x, dt, CH), N("r", "topk", ["a"], k=k, largest=largest, axis=ax)],
             np.take(s, idx, axis=sa))

# NaN sorts last, ties keep their order
for dt in ["float32", "float64"]:
    x = sample(dt, (11, 6))
    nodes, mask = with_nan("a", "a0", x.shape, dt=dt)
    xn = np.where(mask, np.nan, x).astype(dt)
    base = [A("a0", x, dt, [4, 5])] + nodes
    case("sort/nan/%s" % dt, base + [N("r", "sort", ["a"], axis=0)], np.sort(xn, axis=0))
    case("argsort/nan/%s" % dt, base + [N("r", "argsort", ["a"], axis=0)],
         np.argsort(xn, axis=0, kind="stable"))
    case("sort/nan-flat/%s" % dt, base + [N("r", "sort", ["a"], axis=None)], np.sort(xn, axis=None))

# long lines: the radix sorts (sortstat.c, from 64 values; argsort from 256).
# Values over the whole range of each dtype, with runs of equal values;
# floats with infinities, subnormals, NaN, and lines with and without -0.0
# (those with it keep the merge sort). Checked bit for bit: -0.0 and 0.0
# keep their order, as numpy's stable sort keeps them.


def bits_check(want):
    def check(got):
        if got.dtype != want.dtype or got.shape != want.shape:
            return "dtype %s shape %s, expected %s %s" % (got.dtype, got.shape, want.dtype,
                                                          want.shape)
        if want.dtype.kind == "f":
            wn, gn = np.isnan(want), np.isnan(got)
            if not np.array_equal(wn, gn):
                return "NaN in other places"
            u = "u%d" % want.dtype.itemsize
            bad = np.argwhere((want.view(u) != got.view(u)) & ~wn)
        else:
            bad = np.argwhere(want != got)
        if len(bad):
            i = tuple(bad[0])
            return "%d values differ; at %s: %r, expected %r" % (len(bad), list(i), got[i], want[i])
        return None
    return check


def wide(dt, shape, negzero):
    if dt == "bool":
        return RNG.random(shape) < 0.5
    if dt.startswith("int"):
        ii = np.iinfo(dt)
        v = RNG.integers(ii.min, ii.max, shape, dtype=dt, endpoint=True)
        v.flat[::7] = RNG.integers(-3, 4, v.flat[::7].shape)
        v.flat[::11] = ii.min
        v.flat[::13] = ii.max
        return v
    fi = np.finfo(dt)
    v = (RNG.normal(0, 1, shape) * 10.0 ** RNG.integers(-30, 30, shape)).astype(dt)
    v.flat[::5] = np.round(v.flat[::5], 0)
    v.flat[::23] = fi.tiny / 4
    v.flat[::29] = -fi.max
    v[v == 0] = 0.0  # rounding made -0.0 too
    v.flat[::31] = 0.0
    if negzero:
        v.flat[3::37] = -0.0
    return v


def with_inf(key, x, dt, chunk):
    """nodes making `key` = x with +inf and -inf at every 17th and 19th
    value (1/0 and -1/0: JSON has no infinity), and x so changed."""
    x = x.copy()
    pos = np.zeros(x.shape, bool)
    neg = np.zeros(x.shape, bool)
    pos.flat[::17] = True
    neg.flat[::19] = True
    neg &= ~pos
    x[pos] = np.inf
    x[neg] = -np.inf
    m = pos.astype(np.float64) - neg.astype(np.float64)
    return [A(key + "_b", np.where(pos | neg, 0, x), dt, chunk),
            A(key + "_m", m, "float64", chunk),
            N(key + "_z", "subtract", [key + "_m", key + "_m"]),
            N(key + "_q", "divide", [key + "_m", key + "_z"]),  # +-inf where m is +-1
            N(key + "_i", "astype", [key + "_q"], dtype=dt),
            N(key + "_mb", "not_equal", [key + "_m", 0.0]),
            N(key, "where", [key + "_mb", key + "_i", key + "_b"])], x


for dt in DTS:
    for n in (64, 255, 256, 3000):
        for negzero in ((False, True) if dt.startswith("float") else (False,)):
            x = wide(dt, (3, n), negzero)
            if dt.startswith("float"):
                srct, xt = with_inf("a", np.ascontiguousarray(x.T), dt, [n, 2])
                src, x = with_inf("a", x, dt, [2, n])
            else:
                src = [A("a", x, dt, [2, n])]
                xt = np.ascontiguousarray(x.T)
                srct = [A("a", xt, dt, [n, 2])]
            tag = "%s/%d%s" % (dt, n, "/-0" if negzero else "")
            case("radix/sort/" + tag, src + [N("r", "sort", ["a"], axis=1)],
                 bits_check(np.sort(x, axis=1, kind="stable")))
            case("radix/argsort/" + tag, src + [N("r", "argsort", ["a"], axis=1)],
                 np.argsort(x, axis=1, kind="stable"))
            case("radix/sort-axis0/" + tag, srct + [N("r", "sort", ["a"], axis=0)],
                 bits_check(np.sort(xt, axis=0, kind="stable")))
            case("radix/argsort-axis0/" + tag, srct + [N("r", "argsort", ["a"], axis=0)],
                 np.argsort(xt, axis=0, kind="stable"))
            s = np.sort(x, axis=1, kind="stable")
            case("radix/topk/" + tag, src + [N("r", "topk", ["a"], k=9, axis=1)],
                 bits_check(s[:, ::-1][:, :9].copy()))
for dt in ("float32", "float64"):
    for negzero in (False, True):
        x = wide(dt, (2, 700), negzero)
        nodes, mask = with_nan("a", "a0", x.shape, 0.15, dt)
        xn = np.where(mask, np.nan, x).astype(dt)
        base = [A("a0", x, dt, [1, 700])] + nodes
        tag = "%s%s" % (dt, "/-0" if negzero else "")
        case("radix/sort-nan/" + tag, base + [N("r", "sort", ["a"], axis=1)],
             bits_check(np.sort(xn, axis=1, kind="stable")))
        case("radix/argsort-nan/" + tag, base + [N("r", "argsort", ["a"], axis=1)],
             np.argsort(xn, axis=1, kind="stable"))
# isin sorts its test values (the radix sort past 64 of them)
for dt in ("int64", "float64"):
    t = wide(dt, (500,), False)
    x = np.concatenate([t[::3], wide(dt, (200,), False)])
    case("radix/isin/" + dt, [A("x", x, dt, 100), A("t", t, dt, 120), N("r", "isin", ["x", "t"])],
         np.isin(x, t))

# ---------------------------------------------------------------- searching
for dt in DTS:
    a = np.sort(sample(dt, (23,)))
    for vdt in DTS:
        v = sample(vdt, (5, 8))
        for side in ["left", "right"]:
            case("searchsorted/%s/%s/%s" % (dt, vdt, side),
                 [A("a", a, dt, 6), A("v", v, vdt, [2, 3]),
                  N("r", "searchsorted", ["a", "v"], side=side)],
                 np.searchsorted(a, v, side=side))
    perm = RNG.permutation(23)
    u = a[perm]
    vv = sample(dt, (9,))
    srt = np.argsort(u, kind="stable")
    case("searchsorted/sorter/%s" % dt,
         [A("a", u, dt, 5), A("v", vv, dt, 4), A("s", srt, "int64", 7),
          N("r", "searchsorted", ["a", "v", "s"])], np.searchsorted(u, vv, sorter=srt))
    # isin / in1d
    e = sample(dt, (6, 7))
    t = sample(dt, (13,))
    for inv in [False, True]:
        case("isin/%s/invert=%s" % (dt, inv),
             [A("e", e, dt, [4, 3]), A("t", t, dt, 5), N("r", "isin", ["e", "t"], invert=inv)],
             np.isin(e, t, invert=inv))
        case("in1d/%s/invert=%s" % (dt, inv),
             [A("e", e, dt, [4, 3]), A("t", t, dt, 5), N("r", "in1d", ["e", "t"], invert=inv)],
             np.in1d(e, t, invert=inv))
    # digitize
    if dt != "bool":
        bins = np.unique(sample(dt, (8,)))
        xs = sample(dt, (5, 6))
        for right in [False, True]:
            case("digitize/%s/right=%s" % (dt, right),
                 [A("x", xs, dt, [2, 4]), A("b", bins, dt, 3), N("r", "digitize", ["x", "b"], right=right)],
                 np.digitize(xs, bins, right=right))
            case("digitize/%s/decreasing/right=%s" % (dt, right),
                 [A("x", xs, dt, [2, 4]), A("b", bins[::-1].copy(), dt, 3),
                  N("r", "digitize", ["x", "b"], right=right)],
                 np.digitize(xs, bins[::-1], right=right))
for dt in ["float32", "float64"]:
    x = sample(dt, (13,))
    nodes, mask = with_nan("v", "v0", x.shape, 0.3, dt)
    xn = np.where(mask, np.nan, x).astype(dt)
    a = np.sort(sample(dt, (10,)))
    case("searchsorted/nan-values/%s" % dt,
         [A("v0", x, dt, 4)] + nodes + [A("a", a, dt, 3), N("r", "searchsorted", ["a", "v"])],
         np.searchsorted(a, xn))
    case("isin/nan/%s" % dt,
         [A("v0", x, dt, 4)] + nodes + [N("r", "isin", ["v", "v"])], np.isin(xn, xn))

# ---------------------------------------------------------------- statistics
SH2 = (8, 6, 5)
CH2 = [3, 4, 2]
for dt in DTS:
    x = sample(dt, SH2)
    for ax in [None, 0, 1, 2, -1]:
        for op, q in [("percentile", 37), ("percentile", [0, 25, 50, 100, 99.5]),
                      ("quantile", 0.5), ("quantile", [0.1, 0.9]), ("median", None),
                      ("nanpercentile", [5, 95]), ("nanquantile", 0.3), ("nanmedian", None)]:
            kw = {"axis": ax}
            if q is not None:
                kw["q"] = q
            name = "%s/%s/axis=%s/q=%s" % (op, dt, ax, q)
            nodes = [A("a", x, dt, CH2), N("r", op, ["a"], **kw)]
            f = getattr(np, op)
            try:
                want = npq(f, x, *([q] if q is not None else []), axis=ax)
            except Exception:
                reject(name + "/rejected", nodes)
                continue
            case(name, nodes, np.asarray(want))
        case("median/%s/keepdims/axis=%s" % (dt, ax),
             [A("a", x, dt, CH2), N("r", "median", ["a"], axis=ax, keepdims=True)],
             np.asarray(np.median(x, axis=ax, keepdims=True)))
        case("average/%s/axis=%s" % (dt, ax), [A("a", x, dt, CH2), N("r", "average", ["a"], axis=ax)],
             np.asarray(np.average(x, axis=ax)))
    for wdt in ["int64", "float32", "float64"]:
        w = np.abs(sample(wdt, SH2)) + 1
        case("average/%s/weights-%s/axis=None" % (dt, wdt),
             [A("a", x, dt, CH2), A("w", w, wdt, [5, 2, 3]), N("r", "average", ["a", "w"])],
             np.asarray(np.average(x, weights=w)))
        case("average/%s/weights-%s/axis=1" % (dt, wdt),
             [A("a", x, dt, CH2), A("w", w, wdt, [5, 2, 3]), N("r", "average", ["a", "w"], axis=1)],
             np.asarray(np.average(x, weights=w, axis=1)))
        w1 = w[0, :, 0]
        case("average/%s/weights1d-%s/axis=1" % (dt, wdt),
             [A("a", x, dt, CH2), A("w", w1, wdt, 4), N("r", "average", ["a", "w"], axis=1)],
             np.asarray(np.average(x, weights=w1, axis=1)))
    m = sample(dt, (4, 9))
    y = sample(dt, (2, 9))
    for kw in [{}, {"rowvar": False}, {"bias": True}, {"ddof": 3}]:
        case("cov/%s/%s" % (dt, kw), [A("m", m, dt, [3, 4]), N("r", "cov", ["m"], **kw)],
             np.asarray(npq(np.cov, m, **kw)))
    case("cov/%s/y" % dt, [A("m", m, dt, [3, 4]), A("y", y, dt, 5), N("r", "cov", ["m", "y"])],
         np.asarray(np.cov(m, y)))
    case("cov/%s/1d" % dt, [A("m", m[0], dt, 4), N("r", "cov", ["m"])], np.asarray(np.cov(m[0])))
    case("corrcoef/%s" % dt, [A("m", m, dt, [3, 4]), N("r", "corrcoef", ["m"])],
         np.asarray(npq(np.corrcoef, m)))
    case("corrcoef/%s/rowvar=False" % dt,
         [A("m", m.T.copy(), dt, [4, 3]), N("r", "corrcoef", ["m"], rowvar=False)],
         np.asarray(npq(np.corrcoef, m.T, rowvar=False)))
    for dt2 in DTS:
        b = sample(dt2, (6, 1))
        aa = sample(dt, (5, 6, 7))
        case("allclose/%s/%s/differ" % (dt, dt2),
             [A("x", aa, dt, [2, 4, 3]), A("y", b, dt2, [4, 1]), N("r", "allclose", ["x", "y"])],
             np.asarray(np.allclose(aa, b)))
        close = (aa.astype(np.float64) * (1 + 1e-7)).astype(dt) if dt != "bool" else aa
        case("allclose/%s/close" % dt,
             [A("x", aa, dt, [2, 4, 3]), A("y", close, dt, 3), N("r", "allclose", ["x", "y"])],
             np.asarray(np.allclose(aa, close)))

# long lines (the selection's partitioning paths), with many ties
for dt in ["int32", "int64", "float32", "float64"]:
    for hi in [3, 10**6]:
        x = (RNG.integers(-hi, hi, (4, 3001)) if dt.startswith("int") else
             np.round(RNG.normal(0, hi, (4, 3001)), 0)).astype(dt)
        qs = [0, 0.1, 1, 12.5, 33.3, 50, 66.7, 99, 99.9, 100]
        for op, q in [("percentile", qs), ("nanpercentile", qs), ("median", None), ("nanmedian", None)]:
            for ax in [None, 1]:
                kw = {"axis": ax}
                if q is not None:
                    kw["q"] = q
                case("%s/long/%s/hi=%d/axis=%s" % (op, dt, hi, ax),
                     [A("a", x, dt, [3, 1000]), N("r", op, ["a"], **kw)],
                     np.asarray(npq(getattr(np, op), x, *([q] if q is not None else []), axis=ax)))
            case("median/long-even/%s/hi=%d" % (dt, hi),
                 [A("a", x[:, :3000], dt, [3, 1000]), N("r", "median", ["a"], axis=1)],
                 np.median(x[:, :3000], axis=1))

# NaN in statistics
for dt in ["float32", "float64"]:
    x = sample(dt, (9, 7))
    nodes, mask = with_nan("a", "a0", x.shape, 0.25, dt)
    mask[:, 3] = True  # an all-NaN column
    nodes[0]["data"] = mask.astype(np.float64).tolist()
    xn = np.where(mask, np.nan, x).astype(dt)
    base = [A("a0", x, dt, [4, 3])] + nodes
    for op, q in [("percentile", [10, 50]), ("nanpercentile", [10, 50]), ("median", None),
                  ("nanmedian", None), ("nanquantile", 0.75)]:
        kw = {"axis": 0}
        if q is not None:
            kw["q"] = q
        want = npq(getattr(np, op), xn, *([q] if q is not None else []), axis=0)
        case("%s/nan/%s" % (op, dt), base + [N("r", op, ["a"], **kw)], np.asarray(want))
    case("allclose/nan/%s" % dt, base + [N("r", "allclose", ["a", "a"])], np.asarray(np.allclose(xn, xn)))
    case("allclose/nan-equal/%s" % dt, base + [N("r", "allclose", ["a", "a"], equal_nan=True)],
         np.asarray(np.allclose(xn, xn, equal_nan=True)))

# ---------------------------------------------------------------- refusals
X = A("a", np.arange(12.0).reshape(3, 4), "float64", 2)
reject("sort/axis-out-of-bounds", [X, N("r", "sort", ["a"], axis=2)])
reject("sort/unknown-field", [X, N("r", "sort", ["a"], axsi=0)])
reject("sort/bad-kind", [X, N("r", "sort", ["a"], kind="bogo")])
reject("partition/kth-out-of-bounds", [X, N("r", "partition", ["a"], kth=4)])
reject("partition/kth-missing", [X, N("r", "partition", ["a"])])
reject("topk/k-too-big", [X, N("r", "topk", ["a"], k=5)])
reject("searchsorted/2d", [X, N("r", "searchsorted", ["a", "a"])])
reject("searchsorted/bad-side", [A("s", [1, 2], "int64"), N("r", "searchsorted", ["s", "s"], side="up")])
reject("percentile/q-range", [X, N("r", "percentile", ["a"], q=101)])
reject("quantile/q-range", [X, N("r", "quantile", ["a"], q=[0.5, -0.1])])
reject("percentile/method", [X, N("r", "percentile", ["a"], q=5, method="nearest")])
reject("percentile/bool", [A("a", [True, False], "bool"), N("r", "percentile", ["a"], q=5)])
reject("percentile/axis-tuple", [X, N("r", "percentile", ["a"], q=5, axis=[0, 1])])
reject("average/weights-shape", [X, A("w", [1.0, 2.0], "float64"), N("r", "average", ["a", "w"], axis=1)])
reject("average/weights-no-axis", [X, A("w", [1.0, 2.0, 3.0, 4.0], "float64"), N("r", "average", ["a", "w"])])
reject("digitize/2d-bins", [X, N("r", "digitize", ["a", "a"])])
reject("cov/3d", [A("a", np.zeros((2, 2, 2)), "float64"), N("r", "cov", ["a"])])
reject("allclose/broadcast", [X, A("b", [1.0, 2.0, 3.0], "float64"), N("r", "allclose", ["a", "b"])])
reject("isin/arity", [X, N("r", "isin", ["a"])])


def run_case_docs(batch):
    nodes, fetch = [], []
    for i, (name, ns, key, _) in enumerate(batch):
        p = "c%d." % i
        for n in ns:
            m = dict(n)
            m["key"] = p + n["key"]
            if "inputs" in m:
                m["inputs"] = [p + k if isinstance(k, str) else k for k in m["inputs"]]
            nodes.append(m)
        fetch.append(p + key)
    doc = {"version": 1, "nodes": nodes, "fetch": fetch}
    r = harness.run_mars(doc)
    try:
        if r.rc != 0:
            return None, doc, r.brief_error()
        return [r.load(f) for f in fetch], doc, None
    finally:
        harness.cleanup(r)


def judge(name, got, expect, doc):
    if callable(expect):
        why = expect(got)
    else:
        why = harness.compare(np.asarray(expect), got)
    if why:
        suite.fail(name, why, doc)
    else:
        suite.ok(name)


B = 60
for s in range(0, len(cases), B):
    batch = cases[s:s + B]
    vals, doc, err = run_case_docs(batch)
    if vals is None:
        for c in batch:
            v, d1, e1 = run_case_docs([c])
            if v is None:
                suite.fail(c[0], "mars-run failed: %s" % e1, d1)
            else:
                judge(c[0], v[0], c[3], d1)
        continue
    for c, v in zip(batch, vals):
        judge(c[0], v, c[3], None)
harness.run_rejects(suite, rejects)

# ---------------------------------------------------------------- sort network
# a 1-D sort or argsort (or axis None) longer than --sort-block-bytes: blocks
# sorted, then Batcher's merge network (sortstat.h); small limits make many
# blocks; argsort ties in index order (numpy's stable kind)
NET = []
for n, chunk, blk in [(1, 1, 16), (2, 1, 16), (31, 4, 16), (32, 5, 32), (33, 33, 16),
                      (1000, 77, 256), (4097, 300, 1024), (20000, 999, 8000)]:
    for dt in DTS:
        if ONLY and not any(o in "sortnet/%s/%d" % (dt, n) for o in ONLY):
            continue
        x = sample(dt, (n,), ties=n % 2 == 0)
        NET.append(("sortnet/%s/%d-blk%d" % (dt, n, blk), [A("a", x, dt, chunk),
                                                          N("r", "sort", ["a"])],
                    np.sort(x), blk))
        NET.append(("argsortnet/%s/%d-blk%d" % (dt, n, blk), [A("a", x, dt, chunk),
                                                             N("r", "argsort", ["a"])],
                    np.argsort(x, kind="stable"), blk * 2))
for dt in ("float32", "float64"):
    x = sample(dt, (500,))
    nn, mask = with_nan("a", "b", (500,), 0.1, dt)
    xn = np.where(mask, np.nan, x).astype(dt)
    NET.append(("sortnet/nan/%s" % dt, [A("b", x, dt, 37)] + nn + [N("r", "sort", ["a"])],
                np.sort(xn), 160))
    NET.append(("argsortnet/nan/%s" % dt, [A("b", x, dt, 37)] + nn + [N("r", "argsort", ["a"])],
                np.argsort(xn, kind="stable"), 320))
x2 = sample("float64", (41, 23))
NET.append(("sortnet/axis-none-2d", [A("a", x2, "float64", [7, 5]),
                                     N("r", "sort", ["a"], axis=None)], np.sort(x2, axis=None), 400))
NET.append(("argsortnet/axis-none-2d", [A("a", x2, "float64", [7, 5]),
                                        N("r", "argsort", ["a"], axis=None)],
            np.argsort(x2, axis=None, kind="stable"), 800))
# percentile, quantile and median of one long line: the network, then the
# order statistics gathered (exact: numpy's linear method on the same values)
for n, blk in [(1, 16), (2, 16), (101, 64), (1000, 256), (4097, 2048)]:
    for dt in DTS[1:]:
        x = sample(dt, (n,))
        for op, kw, ref in (("percentile", {"q": [0, 12.5, 50, 99, 100]},
                             lambda a: np.percentile(a, [0, 12.5, 50, 99, 100])),
                            ("quantile", {"q": 0.37}, lambda a: np.asarray(np.quantile(a, 0.37))),
                            ("median", {}, lambda a: np.asarray(np.median(a)))):
            NET.append(("qnet/%s/%s/%d" % (op, dt, n),
                        [A("a", x, dt, max(1, n // 5)), N("r", op, ["a"], **kw)], ref(x), blk))
for dt in ("float32", "float64"):
    x = sample(dt, (300,))
    nn, mask = with_nan("a", "b", (300,), 0.02, dt)
    xn = np.where(mask, np.nan, x).astype(dt)
    NET.append(("qnet/nan/%s" % dt, [A("b", x, dt, 37)] + nn +
                [N("r", "percentile", ["a"], q=[10, 90])],
                npq(np.percentile, xn, [10, 90]), 160))
# nanpercentile, nanquantile and nanmedian of one long line: the NaN sort
# last in the network's blocks; every block counts its own, and the ranks
# are taken among the values that are not NaN (some NaN, a whole block of
# NaN, no NaN, all NaN; ints have none)
for n, blk, frac in [(300, 160, 0.02), (1000, 256, 0.3), (401, 128, 0.0), (90, 64, 1.0),
                     (1, 16, 1.0), (2049, 1024, 0.6)]:
    for dt in ("float32", "float64"):
        x = sample(dt, (n,))
        nn, mask = with_nan("a", "b", (n,), frac, dt)
        if frac == 1.0:
            mask[:] = True
            nn[0] = A("a_m", np.ones(n), "float64", None)
        xn = np.where(mask, np.nan, x).astype(dt)
        for op, kw, ref in (("nanpercentile", {"q": [0, 10, 50, 90, 100]},
                             lambda a: npq(np.nanpercentile, a, [0, 10, 50, 90, 100])),
                            ("nanquantile", {"q": 0.37},
                             lambda a: np.asarray(npq(np.nanquantile, a, 0.37))),
                            ("nanmedian", {}, lambda a: np.asarray(npq(np.nanmedian, a)))):
            if frac == 1.0 and dt == "float32" and op != "nanmedian":
                continue  # numpy gives float64 for an all-NaN float32 (its dtype is the data's)
            NET.append(("qnet-nan/%s/%s/%d/%g" % (op, dt, n, frac),
                        [A("b", x, dt, max(1, n // 7))] + nn + [N("r", op, ["a"], **kw)],
                        ref(xn), blk))
for dt in ("int64", "int32"):
    x = sample(dt, (500,))
    NET.append(("qnet-nan/nanmedian/%s" % dt, [A("a", x, dt, 61), N("r", "nanmedian", ["a"])],
                np.asarray(np.nanmedian(x)), 256))
NET.append(("qnet/axis-none-2d", [A("a", x2, "float64", [7, 5]),
                                  N("r", "median", ["a"], axis=None)],
            np.asarray(np.median(x2)), 400))
# partition and argpartition of one long line: the network's sorted line
# (a partition for any kth); checked by the partition property


def pcheck1(got, x, kth, arg):
    v = x[got] if arg else got
    s = np.sort(x)
    if v.shape != s.shape or (arg and got.dtype != np.int64):
        return "shape %s dtype %s" % (v.shape, got.dtype)
    if not np.array_equal(np.sort(v), s):
        return "not the input's values"
    for k in kth:
        if v[k] != s[k] or not (np.all(v[:k] <= v[k]) and np.all(v[k:] >= v[k])):
            return "not partitioned at %d" % k
    return None


for n, blk in [(50, 64), (1000, 256)]:
    for dt in ("int64", "float64", "float32"):
        x = sample(dt, (n,))
        for op in ("partition", "argpartition"):
            NET.append(("pnet/%s/%s/%d" % (op, dt, n),
                        [A("a", x, dt, max(1, n // 6)), N("r", op, ["a"], kth=[0, n // 3, n - 1])],
                        lambda g, x=x, n=n, op=op: pcheck1(g, x, [0, n // 3, n - 1],
                                                           op == "argpartition"),
                        blk * (2 if op == "argpartition" else 1)))
# sort along an axis of a matrix whose lines (times the other axes' chunk)
# pass the block: the network per chunk of the other axes
for shape, ch, ax, blk in [((40, 7), [6, 3], 0, 64), ((40, 7), [6, 7], 0, 200),
                           ((5, 300), [2, 41], 1, 128), ((9, 10, 33), [4, 1, 5], 2, 96),
                           ((33, 4, 5), [7, 2, 1], 0, 64), ((40, 7), [6, 3], -2, 64)]:
    for dt in DTS:
        x = sample(dt, shape)
        NET.append(("sortnet-axis/%s/%s/axis=%d" % (dt, "x".join(map(str, shape)), ax),
                    [A("a", x, dt, ch), N("r", "sort", ["a"], axis=ax)], np.sort(x, axis=ax),
                    blk))
        NET.append(("argsortnet-axis/%s/%s/axis=%d" % (dt, "x".join(map(str, shape)), ax),
                    [A("a", x, dt, ch), N("r", "argsort", ["a"], axis=ax)],
                    np.argsort(x, axis=ax, kind="stable"), blk * 2))
# partition and argpartition along an axis with long lines: the axis
# network's sorted lines, checked line by line by the partition property


def pcheck_axis(got, x, ax, kth, arg):
    g = np.moveaxis(got, ax, -1).reshape(-1, x.shape[ax])
    xs = np.moveaxis(x, ax, -1).reshape(-1, x.shape[ax])
    if got.shape != x.shape:
        return "shape %s" % (got.shape,)
    for line in range(g.shape[0]):
        why = pcheck1(g[line], xs[line], kth, arg)
        if why:
            return "line %d: %s" % (line, why)
    return None


for shape, ch, ax, blk in [((40, 7), [6, 3], 0, 64), ((5, 300), [2, 41], 1, 128),
                           ((9, 10, 33), [4, 1, 5], 2, 96), ((33, 4, 5), [7, 2, 1], -3, 64)]:
    for dt in ("int64", "float64", "float32", "int32"):
        x = sample(dt, shape)
        n = shape[ax]
        kth = [0, n // 3, n - 1]
        for op in ("partition", "argpartition"):
            NET.append(("pnet-axis/%s/%s/%s/axis=%d" % (op, dt, "x".join(map(str, shape)), ax),
                        [A("a", x, dt, ch), N("r", op, ["a"], kth=kth, axis=ax)],
                        lambda g, x=x, ax=ax, kth=kth, op=op: pcheck_axis(
                            g, x, ax, kth, op == "argpartition"),
                        blk * (2 if op == "argpartition" else 1)))
# percentile, quantile and median along an axis with long lines: the axis
# network, then per chunk of the other axes a gather of every line's order
# statistics and one job interpolating them (the q axis first)
for shape, ch, ax, blk in [((40, 7), [6, 3], 0, 64), ((5, 300), [2, 41], 1, 128),
                           ((9, 10, 33), [4, 1, 5], 2, 96), ((33, 4, 5), [7, 2, 1], 0, 64),
                           ((9, 10, 33), [2, 3, 1], 1, 48)]:
    for dt in ("int64", "float64", "float32", "int32"):
        x = sample(dt, shape)
        nodes = [A("a", x, dt, ch)]
        if dt.startswith("float"):  # a NaN in a line makes its statistics NaN
            nn, mask = with_nan("a", "b", shape, 0.03, dt)
            nn[0]["chunk_size"] = ch
            nodes = [A("b", x, dt, ch)] + nn
            x = np.where(mask, np.nan, x).astype(dt)
        for op, kw, ref in (("percentile", {"q": [0, 12.5, 50, 99, 100]},
                             lambda a, ax: npq(np.percentile, a, [0, 12.5, 50, 99, 100], axis=ax)),
                            ("quantile", {"q": 0.37},
                             lambda a, ax: npq(np.quantile, a, 0.37, axis=ax)),
                            ("median", {}, lambda a, ax: npq(np.median, a, axis=ax)),
                            ("nanpercentile", {"q": [0, 12.5, 50, 99, 100]},
                             lambda a, ax: npq(np.nanpercentile, a, [0, 12.5, 50, 99, 100],
                                               axis=ax)),
                            ("nanquantile", {"q": 0.37},
                             lambda a, ax: npq(np.nanquantile, a, 0.37, axis=ax)),
                            ("nanmedian", {}, lambda a, ax: npq(np.nanmedian, a, axis=ax))):
            NET.append(("qnet-axis/%s/%s/%s/axis=%d" % (op, dt, "x".join(map(str, shape)), ax),
                        nodes + [N("r", op, ["a"], axis=ax, **kw)], ref(x, ax), blk))
# keepdims: the same networks, the axis kept with extent 1
for shape, ch, ax, blk in [((40, 7), [6, 3], 0, 64), ((5, 300), [2, 41], 1, 128)]:
    x = sample("float64", shape)
    for op, kw, ref in (("percentile", {"q": [10, 50]},
                         lambda a, ax: np.percentile(a, [10, 50], axis=ax, keepdims=True)),
                        ("nanmedian", {}, lambda a, ax: np.nanmedian(a, axis=ax, keepdims=True)),
                        ("quantile", {"q": 0.3},
                         lambda a, ax: np.quantile(a, 0.3, axis=ax, keepdims=True))):
        NET.append(("qnet-axis-keepdims/%s/axis=%d" % (op, ax),
                    [A("a", x, "float64", ch), N("r", op, ["a"], axis=ax, keepdims=True, **kw)],
                    ref(x, ax), blk))
for op, kw, ref in (("percentile", {"q": [10, 50]},
                     lambda a: np.percentile(a, [10, 50], keepdims=True)),
                    ("nanquantile", {"q": 0.3}, lambda a: np.nanquantile(a, 0.3, keepdims=True)),
                    ("median", {}, lambda a: np.median(a, keepdims=True))):
    x = sample("float64", (30, 11))
    NET.append(("qnet-keepdims/%s/axis-none" % op,
                [A("a", x, "float64", [7, 5]), N("r", op, ["a"], keepdims=True, **kw)], ref(x),
                400))
# nan-statistics along an axis where whole lines are NaN, and lines with none
for dt in ("float64", "float32"):
    x = sample(dt, (6, 40))
    m = np.zeros((6, 40))
    m[2, :] = 1
    m[4, ::3] = 1
    nn, _ = with_nan("a", "b", (6, 40), 0.0, dt)
    nn[0] = A("a_m", m, "float64", [2, 40])
    xn = np.where(m > 0.5, np.nan, x).astype(dt)
    for op, kw, ref in (("nanpercentile", {"q": [5, 50]},
                         lambda a: npq(np.nanpercentile, a, [5, 50], axis=1)),
                        ("nanmedian", {}, lambda a: npq(np.nanmedian, a, axis=1))):
        if op == "nanpercentile" and dt == "float32":
            continue  # numpy: float64 when a line is all NaN
        NET.append(("qnet-axis-allnan/%s/%s" % (op, dt),
                    [A("b", x, dt, [2, 40])] + nn + [N("r", op, ["a"], axis=1, **kw)], ref(xn),
                    128))
# topk along an axis with long lines: the axis network, then per chunk of
# the other axes one gather of the k ends of every line
for shape, ch, ax, blk, k in [((40, 7), [6, 3], 0, 64, 5), ((5, 300), [2, 41], 1, 128, 37),
                              ((9, 10, 33), [4, 1, 5], 2, 96, 33), ((33, 4, 5), [7, 2, 1], 0, 64, 1)]:
    for dt in ("int64", "float64", "float32"):
        x = sample(dt, shape)
        srt = np.sort(x, axis=ax)
        for largest in (True, False):
            want = np.take(np.flip(srt, axis=ax) if largest else srt, np.arange(k), axis=ax)
            NET.append(("topknet-axis/%s/%s/axis=%d/k=%d/largest=%s" % (
                dt, "x".join(map(str, shape)), ax, k, largest),
                [A("a", x, dt, ch), N("r", "topk", ["a"], k=k, axis=ax, largest=largest)],
                want, blk))
# topk of one long line: the network, then one gather of the k ends
for n, k, blk in [(50, 1, 64), (1000, 37, 256), (1000, 1000, 512), (4097, 300, 1024)]:
    for dt in ("int64", "float64", "int32", "float32"):
        x = sample(dt, (n,))
        s_ = np.sort(x)
        for largest in (True, False):
            NET.append(("topknet/%s/%d/k=%d/largest=%s" % (dt, n, k, largest),
                        [A("a", x, dt, max(1, n // 7)),
                         N("r", "topk", ["a"], k=k, largest=largest)],
                        s_[::-1][:k] if largest else s_[:k], blk))
# average of lines longer than a job's block: a part per chunk, then the sum of the parts
# (sums in another order than numpy's: an absolute tolerance scaled by the values)


def near(want, scale):
    want = np.asarray(want)

    def check(got):
        if got.dtype != want.dtype or got.shape != want.shape:
            return "%s %s, expected %s %s" % (got.dtype, got.shape, want.dtype, want.shape)
        rt = 1e-4 if want.dtype == np.float32 else 1e-9
        if not np.allclose(got, want, rtol=rt, atol=rt * scale):
            return "values differ: %s vs %s" % (got.ravel()[:4], want.ravel()[:4])
        return None
    return check


for dt in ("float64", "float32", "int64", "int32", "bool"):
    x = sample(dt, (61, 9))
    w2 = np.abs(sample("float64", (61, 9))) + 0.5
    w1 = np.abs(sample("float32", (61,))) + 0.5
    for ax in (0, 1, None):
        NET.append(("avgnet/%s/axis=%s" % (dt, ax), [A("a", x, dt, [13, 4]),
                                                     N("r", "average", ["a"], axis=ax)],
                    near(np.average(x, axis=ax), 20), 256))
        NET.append(("avgnet/%s/weights/axis=%s" % (dt, ax),
                    [A("a", x, dt, [13, 4]), A("w", w2, "float64", [20, 3]),
                     N("r", "average", ["a", "w"], axis=ax)],
                    near(np.average(x, weights=w2, axis=ax), 20), 256))
    NET.append(("avgnet/%s/weights1d/axis=0/keepdims" % dt,
                [A("a", x, dt, [13, 4]), A("w", w1, "float32", 17),
                 N("r", "average", ["a", "w"], axis=0, keepdims=True)],
                near(np.average(x, weights=w1, axis=0, keepdims=True), 20), 256))
x3 = sample("float64", (5, 70, 4))
NET.append(("avgnet/3d/axis=1", [A("a", x3, "float64", [2, 9, 3]),
                                 N("r", "average", ["a"], axis=1)], near(np.average(x3, axis=1), 20),
            512))
NET.append(("sortnet/then-sum-and-slice",
            [A("a", np.arange(3000.0)[::-1].copy(), "float64", 250), N("s", "sort", ["a"]),
             N("r", "getitem", ["s"], index=["100:2900:7"])], np.arange(3000.0)[100:2900:7], 512))
zw = np.ones((40, 3))
zw[:, 1] = 0
zdoc = {"version": 1, "nodes": [A("a", sample("float64", (40, 3)), "float64", [7, 2]),
                                A("w", zw, "float64", [9, 3]), N("r", "average", ["a", "w"], axis=0)],
        "fetch": ["r"]}
zr = harness.run_mars(zdoc, args=["--sort-block-bytes", "128"])
try:
    suite.check("avgnet/weights-sum-to-zero", zr.rc == 1 and
                "Weights sum to zero, can't be normalized" in zr.stderr,
                "exit %d: %s" % (zr.rc, zr.brief_error()), zdoc)
finally:
    harness.cleanup(zr)


def verdict(want):
    if callable(want):
        return lambda got: want(got["r"])
    return lambda got: harness.compare(np.asarray(want), got["r"])


# documents with the same block size and threads run merged, one process each
harness.run_grouped(suite, [("%s/t%d" % (name, threads), {"version": 1, "nodes": nodes, "fetch": ["r"]},
                             ["--sort-block-bytes", str(blk)], threads, verdict(want))
                            for name, nodes, want, blk in NET for threads in (1, 3)])
suite.finish()
