#!/usr/bin/python3
"""Random graphs of the ops that move data or depend on it, against numpy.

test_random_graphs.py draws element-wise chains, reductions, products and
the first shape ops; each op added later has a suite of its own, case by
case (test_shapes2, test_sortstat, test_setops, test_fancy, test_held_stage).
This generator chains them: roll, tile, repeat, pad, broadcast_to, the flips,
swapaxes, moveaxis, diag, diagonal, tril/triu, trace, split, take, sort,
argsort, partition, topk, searchsorted, digitize, isin, median, percentile,
quantile, ptp, count_nonzero, bincount, histogram, and the results whose
length is data (boolean masks, compress, extract, argwhere, flatnonzero,
nonzero, unique, union1d, intersect1d, setdiff1d), each feeding the others,
with element-wise ops, reductions and astype between them, on uneven chunks.

Every node's value is computed here with numpy 1.24 while the graph is
built, from `array` leaves whose values are multiples of 1/4 (NaN now and
then): sums, products and differences of such values stay exact as long as
they fit the mantissa, which is checked, so most results must be equal bit
for bit. Ops that round (mean, median, percentiles) carry an error bound
and feed only ops that are continuous; ops that compare, sort or cast take
exact inputs only.

Batches run in turn with mars-run's defaults, --chunk-bytes 512 (held
results and the sort-statistics jobs work on many blocks), --sort-block-bytes
96 (1-D sorts and percentiles go through the merge network), and both.

Environment: MARS_DIFF3_SEED (default 20261128), MARS_DIFF3_GRAPHS (default
300), MARS_DIFF3_MAX_ELEMS (default 3000) for bigger tensors.
"""

import importlib.util
import math
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# this directory's harness by path: tests/integration imports the generator
# with its own module named harness already loaded
_spec = importlib.util.spec_from_file_location("diff_harness", os.path.join(HERE, "harness.py"))
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)
import test_random_graphs  # noqa: E402  (GenBase)

MAX_ELEMS = int(os.environ.get("MARS_DIFF3_MAX_ELEMS", "3000"))
MANT = {"float64": 53, "float32": 24}
INT_MAX = {"int64": 2 ** 62, "int32": 2 ** 30}
HELD_DTYPES = ("int64", "float64", "bool")


class V:
    """A tensor of the graph: its key, numpy value, and how exact it is.

    err: a bound on the absolute error a correct engine may have (0: the
    value is exact, equal bit for bit). frac: for exact floats, the
    fractional bits their values may have. held: its length is data."""

    def __init__(self, key, val, err=0.0, frac=0, held=False):
        self.key = key
        self.val = np.asarray(val)
        self.err = float(err)
        self.frac = int(frac)
        self.held = held

    @property
    def dtype(self):
        return str(self.val.dtype)

    @property
    def shape(self):
        return self.val.shape

    @property
    def exact(self):
        return self.err == 0.0

    def maxabs(self):
        v = self.val
        if v.size == 0 or v.dtype == bool:
            return 1.0
        with np.errstate(all="ignore"):
            m = np.nanmax(np.abs(v.astype(np.float64))) if v.dtype.kind == "f" else \
                float(np.max(np.abs(v.astype(np.float64))))
        return float(m) if np.isfinite(m) else 1.0

    def has_nan(self):
        return self.val.dtype.kind == "f" and bool(np.isnan(self.val).any())


def eps(dtype):
    return 2.0 ** -52 if dtype != "float32" else 2.0 ** -23


class Skip(Exception):
    """The op drawn does not fit the operands: draw another."""


class Gen(test_random_graphs.GenBase):
    def __init__(self, rng):
        super().__init__(rng)
        self.unfetchable = set()

    # -- helpers -----------------------------------------------------------
    def ri(self, lo, hi):
        """An integer in [lo, hi]."""
        return int(self.r.integers(lo, hi + 1))

    def node(self, op, ins, v_or_val, err=0.0, frac=0, held=False, **params):
        k = self.key(op.split(".")[-1][:3])
        n = {"key": k, "op": op}
        if ins:
            n["inputs"] = [x.key if isinstance(x, V) else x for x in ins]
        n.update(params)
        v = V(k, v_or_val, err, frac, held)
        self.check_size(v.val)
        return self.emit(n, v)

    def check_size(self, val):
        if val.size > MAX_ELEMS * 4:
            raise Skip("too big")

    def chunks(self, shape):
        if not shape or self.chance(0.15):
            return None
        if self.chance(0.3):
            m = max(shape)
            return self.ri(1, max(m, 1) + 1)
        return [self.ri(max(1, d // 5), max(d, 1) + 1) for d in shape]

    def rand_shape(self, ndim=None):
        if ndim is None:
            ndim = self.choice([0, 1, 1, 1, 2, 2, 2, 3])
        while True:
            shape = []
            for _ in range(ndim):
                u = self.r.random()
                shape.append(0 if u < 0.04 else 1 if u < 0.12 else self.ri(2, 24))
            if int(np.prod(shape)) <= MAX_ELEMS:
                return tuple(shape)

    def pick(self, pred=lambda v: True):
        cands = [v for v in self.pool if pred(v)]
        if not cands:
            raise Skip("no operand")
        w = np.arange(1, len(cands) + 1, dtype=float) ** 2
        return cands[int(self.r.choice(len(cands), p=w / w.sum()))]

    def axis_of(self, v, allow_none=True):
        if v.val.ndim == 0:
            if allow_none:
                return None
            raise Skip("0-d")
        if allow_none and self.chance(0.25):
            return None
        ax = self.ri(0, v.val.ndim - 1)
        return ax - v.val.ndim if self.chance(0.3) else ax

    # -- leaves ------------------------------------------------------------
    def leaf(self, shape=None, dtype=None):
        if shape is None:
            shape = self.rand_shape()
        if dtype is None:
            dtype = self.choice(["float64", "float64", "int64", "int64", "float32", "int32", "bool"])
        size = int(np.prod(shape)) if shape else 1
        spread = self.choice([3, 6, 20, 1000])
        if dtype == "bool":
            val = self.r.random(shape) < self.r.random()
        elif dtype in ("int64", "int32"):
            val = self.r.integers(-spread, spread + 1, shape).astype(dtype)
        else:
            q = self.choice([1, 2, 4])
            val = (self.r.integers(-spread * q, spread * q + 1, shape) / q).astype(dtype)
        val = np.asarray(val, dtype=dtype)
        k = self.key("L")
        n = {"key": k, "op": "array", "dtype": dtype}
        if val.ndim == 0:
            n["data"] = val.item()
        elif size == 0:  # nested lists cannot say (0, 3) from (0,)
            n = {"key": k, "op": "zeros", "shape": list(shape), "dtype": dtype}
        else:
            n["data"] = self.nest(val.ravel().tolist(), val.shape)
        ch = self.chunks(val.shape)
        if ch is not None:
            n["chunk_size"] = ch
        frac = {1: 0, 2: 1, 4: 2}[q] if dtype in MANT else 0
        v = self.emit(n, V(k, val, 0.0, frac))
        if dtype in MANT and size and self.chance(0.25):
            # NaN where a mask says: JSON has none, 0/0 makes it
            m = self.r.random(shape) < 0.1
            mk, zk, nk = self.key("N"), self.key("Z"), self.key("Q")
            self.nodes.append({"key": mk, "op": "array", "dtype": "bool",
                               "data": self.nest(m.ravel().tolist(), m.shape) if m.ndim else bool(m)})
            self.nodes.append({"key": zk, "op": "full", "shape": [], "fill_value": 0, "dtype": dtype})
            self.nodes.append({"key": nk, "op": "divide", "inputs": [zk, zk]})
            self.pool.pop()
            return self.node("where", [mk, nk, v], np.where(m, np.array(np.nan, dtype), val), frac=frac)
        return v

    @staticmethod
    def nest(flat, shape):
        if len(shape) <= 1:
            return list(flat)
        step = int(np.prod(shape[1:]))
        return [Gen.nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]

    # -- exactness ---------------------------------------------------------
    def exact_float(self, dtype, frac, bound):
        """Whether values of frac fractional bits bounded by bound are exact."""
        return bound * 2.0 ** frac < 2.0 ** MANT[dtype] and frac < 40

    def arith(self, op, a, b, out):
        """err and frac of an add/subtract/multiply result, or Skip."""
        dt = str(out.dtype)
        if dt in INT_MAX:
            if dt == "int32" or dt == "int64":
                bound = float(np.max(np.abs(out.astype(np.float64)))) if out.size else 0.0
                # the exact value (in float64) must fit: no wrap-around
                if bound >= INT_MAX[dt]:
                    raise Skip("overflow")
            return 0.0, 0
        if dt not in MANT:
            return 0.0, 0
        fa = a.frac if isinstance(a, V) else 2
        fb = b.frac if isinstance(b, V) else 2
        ea = a.err if isinstance(a, V) else 0.0
        eb = b.err if isinstance(b, V) else 0.0
        ma = a.maxabs()
        mb = b.maxabs() if isinstance(b, V) else abs(float(b))
        mr = V("", out).maxabs()
        frac = fa + fb if op == "multiply" else max(fa, fb)
        if ea == 0 and eb == 0 and self.exact_float(dt, frac, mr):
            return 0.0, frac
        if op == "multiply":
            err = ea * mb + eb * ma + ea * eb + eps(dt) * mr
        else:
            err = ea + eb + eps(dt) * mr
        return err, 0

    # -- steps -------------------------------------------------------------
    def step(self):
        kinds = ["binary", "binary", "scalar", "unary", "reduce", "move", "move", "move", "move",
                 "sortish", "sortish", "sortish", "held", "held", "held", "astype", "cumsum",
                 "join", "nanred", "nanred", "index", "index"]
        getattr(self, "s_" + self.choice(kinds))()

    def red_bound(self, a, ax):
        """The largest sum of |values| over one reduced line (NaN as 0)."""
        with np.errstate(all="ignore"):
            s = np.nansum(np.abs(a.val.astype(np.float64)), axis=ax)
        return float(np.max(s)) if np.size(s) else 0.0

    def s_nanred(self):
        """The NaN-aware reductions, std/var, argmin/argmax, diff, average."""
        op = self.choice(["nansum", "nanmin", "nanmax", "nanmean", "nanstd", "nanvar", "nanargmin",
                          "nanargmax", "argmin", "argmax", "std", "var", "nanmedian",
                          "nanpercentile", "nancumsum", "diff", "ediff1d", "average", "allclose"])
        a = self.pick(lambda v: v.dtype != "bool" or op in ("nansum", "argmax", "argmin", "diff"))
        v, nd = a.val, a.val.ndim
        ax = self.axis_of(a)
        n_red = v.size if ax is None else v.shape[ax]
        params = {"axis": ax} if ax is not None else {}
        if op in ("nanargmin", "nanargmax", "argmin", "argmax"):
            if not a.exact or n_red == 0:
                raise Skip("arg of inexact or empty")
            if op.startswith("nan") and v.dtype.kind == "f":
                with np.errstate(all="ignore"):
                    if np.any(np.all(np.isnan(v), axis=ax)):
                        raise Skip("all-NaN line")  # numpy raises
            out = np.asarray(getattr(np, op)(v, axis=ax)).astype(np.int64)
            return self.node(op, [a], out, **params)
        if op in ("nansum", "nancumsum"):
            with np.errstate(all="ignore"):
                out = np.asarray(getattr(np, op)(v, axis=ax))
            dt = str(out.dtype)
            bound = self.red_bound(a, ax if op == "nansum" else None)
            if dt in INT_MAX:
                if bound >= INT_MAX[dt]:
                    raise Skip("overflow")
                return self.node(op, [a], out, **params)
            if a.exact and self.exact_float(dt, a.frac, bound):
                return self.node(op, [a], out, frac=a.frac, **params)
            return self.node(op, [a], out, err=n_red * a.err + (n_red + 1) * eps(dt) * bound, **params)
        if op in ("nanmin", "nanmax"):
            if n_red == 0:
                raise Skip("empty")
            with np.errstate(all="ignore"):
                out = np.asarray(getattr(np, op)(v, axis=ax))
            return self.node(op, [a], out, err=a.err, frac=a.frac, **params)
        if op in ("nanmean", "std", "var", "nanstd", "nanvar", "average"):
            ddof = self.choice([0, 0, 1]) if op in ("std", "var", "nanstd", "nanvar") else None
            if ddof:
                params["ddof"] = ddof
            if op == "average":
                if n_red == 0:
                    raise Skip("empty average")
                if self.chance(0.5):
                    wsh = v.shape if ax is None else (v.shape[ax],)
                    if self.chance(0.5) and ax is not None:
                        wsh = v.shape
                    w = self.leaf(wsh, self.choice(["float64", "int64"]))
                    if not w.exact or w.has_nan():
                        raise Skip("weights")
                    with np.errstate(all="ignore"):
                        if np.any(np.sum(w.val, axis=ax if len(wsh) == nd else None) == 0):
                            raise Skip("weights sum to zero")
                        out = np.asarray(np.average(v, axis=ax, weights=w.val))
                    wb = w.maxabs()
                    err = (a.err * wb + (n_red + 4) * 4 * eps("float64") * wb * max(a.maxabs(), 1.0)) * n_red
                    # a weighted mean divides by the weights' sum, at least 1 in size here
                    return self.node("average", [a, w], out, err=err, **params)
                with np.errstate(all="ignore"):
                    out = np.asarray(np.average(v, axis=ax))
                err = a.err + (n_red + 2) * eps(str(out.dtype) if out.dtype.kind == "f" else "float64") \
                    * max(self.red_bound(a, ax), 1.0)
                return self.node("average", [a], out, err=err, **params)
            with np.errstate(all="ignore"):
                f = getattr(np, op)
                out = np.asarray(f(v, axis=ax, ddof=ddof) if ddof is not None else f(v, axis=ax))
            odt = str(out.dtype) if out.dtype.kind == "f" else "float64"
            m = max(a.maxabs(), 1.0)
            if op == "nanmean":
                err = a.err + (n_red + 2) * eps(odt) * max(self.red_bound(a, ax), 1.0)
            else:
                # var: mean of squared deviations; std its square root
                ev = (4 * m * a.err + 8 * (n_red + 4) * eps(odt) * m * m)
                err = ev if "var" in op else math.sqrt(ev) + eps(odt) * m * 4
            return self.node(op, [a], out, err=err, **params)
        if op in ("nanmedian", "nanpercentile"):
            if v.size == 0 or (ax is not None and v.shape[ax] == 0):
                raise Skip("empty")
            if not a.exact:
                raise Skip("sorting inexact")
            with np.errstate(all="ignore"):
                if op == "nanmedian":
                    out = np.asarray(np.nanmedian(v, axis=ax))
                else:
                    q = round(float(self.r.random() * 100), 2)
                    out = np.asarray(np.nanpercentile(v, q, axis=ax), dtype=np.float64)
                    params["q"] = q
            odt = str(out.dtype) if out.dtype.kind == "f" else "float64"
            return self.node(op, [a], out, err=16 * eps(odt) * max(a.maxabs(), 1.0), **params)
        if op in ("diff", "ediff1d"):
            if nd == 0 or (op == "ediff1d" and a.dtype == "bool"):
                raise Skip("diff")
            if op == "ediff1d":
                out = np.ediff1d(v)
                params = {}
            else:
                n = self.ri(1, 3)
                dax = self.ri(-nd, nd - 1)
                out = np.diff(v, n=n, axis=dax)
                params = {"n": n, "axis": dax}
            if out.dtype.kind in "iu":
                if a.maxabs() * 8 >= INT_MAX.get(str(out.dtype), 2 ** 62):
                    raise Skip("overflow")
                return self.node(op, [a], out, **params)
            if out.dtype.kind == "f":
                k = params.get("n", 1)
                if a.exact and self.exact_float(str(out.dtype), a.frac, a.maxabs() * 2 ** k):
                    return self.node(op, [a], out, frac=a.frac, **params)
                return self.node(op, [a], out, err=2 ** k * (a.err + eps(str(out.dtype)) * a.maxabs()),
                                 **params)
            return self.node(op, [a], out, **params)
        if op == "allclose":
            b = self.pick(lambda x: x.exact and x.dtype != "bool" and _bcast(x.shape, v.shape))
            if not a.exact:
                raise Skip("inexact")
            out = np.asarray(np.allclose(v, b.val))
            return self.node("allclose", [a, b], out)
        raise Skip(op)

    def s_index(self):
        """Integer-array getitem, setitem with a mask, a slice or integers."""
        a = self.pick(lambda x: x.val.ndim >= 1)
        v, nd = a.val, a.val.ndim
        keep = dict(err=a.err, frac=a.frac)
        op = self.choice(["take_rows", "take_cols", "set_mask", "set_slice", "set_ints"])
        d0 = v.shape[0]
        if op in ("take_rows", "take_cols", "set_ints"):
            axis = 1 if op == "take_cols" else 0
            if nd <= axis or v.shape[axis] == 0:
                raise Skip("no axis")
            n = v.shape[axis]
            ind = self.r.integers(-n, n, self.ri(0, 12))
            ik = self.key("I")
            self.nodes.append({"key": ik, "op": "array", "dtype": "int64", "data": ind.tolist()}
                              if ind.size else {"key": ik, "op": "zeros", "shape": [0], "dtype": "int64"})
            if op == "set_ints":
                val = self.choice([0, 1, -2.5, 7])
                if a.dtype == "bool":
                    val = bool(self.chance(0.5))
                b = v.copy()
                b[ind] = val
                return self.node("setitem", [a, val, ik], b, index=[{"input": 2}],
                                 err=a.err, frac=max(a.frac, 1) if a.exact else 0)
            idx = [{"input": 1}] if axis == 0 else [":", {"input": 1}]
            out = v[ind] if axis == 0 else v[:, ind]
            return self.node("getitem", [a, ik], np.asarray(out), index=idx, **keep)
        if op == "set_mask":
            if not a.exact or a.dtype == "bool":
                raise Skip("mask of inexact")
            thr = float(self.r.integers(-3, 4))
            mk = self.key("m")
            self.nodes.append({"key": mk, "op": "less", "inputs": [a.key, thr]})
            val = self.choice([0, 3, -1.5])
            b = v.copy()
            with np.errstate(all="ignore"):
                b[v < thr] = val
            return self.node("setitem", [a, val, mk], b, index=[{"input": 2}], frac=max(a.frac, 1))
        # a slice of the first axis set to a partner broadcast into it
        lo, hi = sorted((self.ri(0, d0), self.ri(0, d0)))
        view_shape = (hi - lo,) + v.shape[1:]
        src = self.pick(lambda x: x is not a and _bcast_to(x.shape, view_shape) and
                        (x.dtype != "bool" or a.dtype == "bool") and
                        not (x.val.dtype.kind == "f" and a.val.dtype.kind != "f"))
        b = v.copy()
        b[lo:hi] = src.val
        err = max(a.err, src.err)
        if a.dtype == "float32" and src.dtype in ("float64", "int64", "int32"):
            if not (src.exact and self.exact_float("float32", src.frac, src.maxabs())):
                err = max(err, eps("float32") * src.maxabs() + src.err)
        return self.node("setitem", [a, src], b, index=["%d:%d" % (lo, hi)], err=err,
                         frac=0 if err else max(a.frac, src.frac))

    def s_astype(self):
        a = self.pick(lambda v: v.exact)
        to = self.choice(["int64", "float64", "int32", "float32", "bool"])
        if to == a.dtype:
            raise Skip("same")
        if to in ("int64", "int32") and a.val.dtype.kind == "f":
            if a.has_nan() or a.maxabs() >= 2 ** 30:
                raise Skip("cast of NaN or big")
        if to == "float32" and a.val.dtype.kind in "iu" and a.maxabs() >= 2 ** 24:
            raise Skip("inexact cast")
        if to == "float32" and a.dtype == "float64" and not self.exact_float("float32", a.frac, a.maxabs()):
            raise Skip("inexact cast")
        out = a.val.astype(to)
        frac = a.frac if to in MANT and a.val.dtype.kind == "f" else 0
        self.node("astype", [a], out, frac=frac, dtype=to)

    def s_binary(self):
        a = self.pick()
        # a partner of a broadcastable shape: a value in the pool or a new leaf
        def fits(v):
            if v is a:
                return False
            try:
                np.broadcast_shapes(v.shape, a.shape)
                return True
            except ValueError:
                return False
        cands = [v for v in self.pool if fits(v)]
        if cands and self.chance(0.7):
            b = self.choice(cands)
        else:
            sh = list(a.shape)
            for i in range(len(sh)):
                if self.chance(0.3):
                    sh[i] = 1
            if sh and self.chance(0.3):
                sh = sh[self.ri(0, len(sh)):]
            b = self.leaf(tuple(sh))
        ops = ["add", "subtract", "multiply", "maximum", "minimum", "equal", "less",
               "greater_equal", "not_equal"]
        if a.dtype == "bool" and b.dtype == "bool":
            ops = ["logical_and", "logical_or", "logical_xor", "equal", "add", "maximum"]
        op = self.choice(ops + ["where", "isclose"])
        if op == "where":
            c = self.pick(lambda v: v.dtype == "bool" and v.exact and _bcast(v.shape, a.shape, b.shape))
            out = np.where(c.val, a.val, b.val)
            out = out.astype(np.result_type(a.val.dtype, b.val.dtype))  # 0-d: by dtype
            err = max(a.err, b.err)
            frac = max(a.frac, b.frac)
            return self.node("where", [c, a, b], out, err=err, frac=frac if not err else 0)
        if op == "isclose":
            if not (a.exact and b.exact):
                raise Skip("isclose of inexact")
            if a.dtype == "bool" or b.dtype == "bool":
                raise Skip("isclose of bool")
            out = np.isclose(a.val, b.val)
            return self.node("isclose", [a, b], out)
        if op in ("equal", "less", "greater_equal", "not_equal") and not (a.exact and b.exact):
            raise Skip("comparison of inexact")
        with np.errstate(all="ignore"):
            out = getattr(np, op)(a.val, b.val)
            # a 0-d tensor takes part in promotion by its dtype, never by its
            # value (graph-format.md, "0-d tensors count by dtype")
            dt = np.result_type(a.val.dtype, b.val.dtype)
            if out.dtype != bool and out.dtype != dt:
                out = getattr(np, op)(a.val.astype(dt), b.val.astype(dt))
        if op in ("maximum", "minimum"):
            err = max(a.err, b.err)
            frac = max(a.frac, b.frac) if not err else 0
        elif out.dtype == bool:
            err, frac = 0.0, 0
        else:
            err, frac = self.arith(op, a, b, out)
        self.node(op, [a, b], out, err=err, frac=frac)

    def s_scalar(self):
        a = self.pick(lambda v: v.dtype != "bool")
        s = self.choice([2, -3, 0.5, 1.25, 7])
        op = self.choice(["add", "multiply", "subtract", "maximum", "less", "greater"])
        if op in ("less", "greater") and not a.exact:
            raise Skip("comparison of inexact")
        with np.errstate(all="ignore"):
            out = getattr(np, op)(a.val, s)
        if out.dtype == bool:
            err, frac = 0.0, 0
        elif op == "maximum":
            err, frac = a.err, max(a.frac, 2) if a.exact else 0
        else:
            err, frac = self.arith(op, a, s, out)
        self.node(op, [a, s], out, err=err, frac=frac)

    def s_unary(self):
        a = self.pick(lambda v: v.dtype != "bool")
        op = self.choice(["abs", "negative", "sign", "floor", "square"])
        if op in ("sign", "floor") and not a.exact:
            raise Skip("discontinuous of inexact")
        if op == "floor" and a.val.dtype.kind != "f":
            raise Skip("floor of int")
        with np.errstate(all="ignore"):
            out = getattr(np, op)(a.val)
        if op == "square":
            err, frac = self.arith("multiply", a, a, out)
        elif op in ("sign", "floor"):
            err, frac = 0.0, 0
        else:
            err, frac = a.err, a.frac
        self.node(op, [a], out, err=err, frac=frac)

    def s_reduce(self):
        a = self.pick()
        op = self.choice(["sum", "min", "max", "any", "all", "mean", "count_nonzero", "ptp", "prod"])
        ax = self.axis_of(a)
        kd = self.chance(0.2)
        params = {}
        if ax is not None:
            params["axis"] = ax
        if kd and op != "count_nonzero":
            params["keepdims"] = True
        n_red = a.val.size if ax is None else a.shape[ax] if a.val.ndim else 1
        if op in ("min", "max", "ptp") and n_red == 0:
            raise Skip("empty min")
        if op == "ptp" and a.dtype == "bool":
            raise Skip("ptp of bool")
        if op in ("any", "all", "count_nonzero") and not a.exact:
            raise Skip("truth of inexact")
        if op == "prod" and (a.maxabs() > 4 or n_red > 12):
            raise Skip("big prod")
        f = getattr(np, op)
        with np.errstate(all="ignore"):
            out = f(a.val, axis=ax, keepdims=kd) if op != "count_nonzero" else f(a.val, axis=ax)
        out = np.asarray(out)
        dt = str(out.dtype)
        err, frac = 0.0, 0
        if op in ("sum", "prod"):
            if dt in INT_MAX and V("", out).maxabs() >= INT_MAX[dt]:
                raise Skip("overflow")
            if dt in MANT:
                with np.errstate(all="ignore"):
                    bound = float(np.nansum(np.abs(a.val.astype(np.float64)))) if op == "sum" else \
                        V("", out).maxabs() * 2
                frac = a.frac * (n_red if op == "prod" else 1)
                if not (a.exact and self.exact_float(dt, frac, bound)):
                    err = n_red * a.err * (a.maxabs() ** max(n_red - 1, 1) if op == "prod" else 1) \
                        + n_red * eps(dt) * bound
                    frac = 0
        elif op == "mean":
            with np.errstate(all="ignore"):
                bound = float(np.nansum(np.abs(a.val.astype(np.float64)))) if a.val.size else 0.0
            err = a.err + (n_red + 2) * eps(dt) * max(bound, 1.0)
        elif op == "ptp":
            if dt in INT_MAX and V("", out).maxabs() >= INT_MAX[dt]:
                raise Skip("overflow")
            if dt in MANT:
                err = 2 * a.err if not a.exact else 0.0
                frac = a.frac if a.exact else 0
                if a.exact and not self.exact_float(dt, frac, 2 * a.maxabs()):
                    err, frac = eps(dt) * 2 * a.maxabs(), 0
        elif op in ("min", "max"):
            err, frac = a.err, a.frac
        self.node(op, [a], out, err=err, frac=frac, **params)

    def s_cumsum(self):
        a = self.pick()
        ax = self.axis_of(a)
        out = np.cumsum(a.val, axis=ax)
        dt = str(out.dtype)
        n_red = a.val.size if ax is None else a.shape[ax] if a.val.ndim else 1
        err, frac = 0.0, 0
        if dt in INT_MAX:
            with np.errstate(all="ignore"):
                if float(np.sum(np.abs(a.val.astype(np.float64)))) >= INT_MAX[dt]:
                    raise Skip("overflow")
        elif dt in MANT:
            with np.errstate(all="ignore"):
                bound = float(np.nansum(np.abs(a.val.astype(np.float64))))
            frac = a.frac
            if not (a.exact and self.exact_float(dt, frac, bound)):
                err = n_red * a.err + n_red * eps(dt) * bound
                frac = 0
        params = {"axis": ax} if ax is not None else {}
        self.node("cumsum", [a], out, err=err, frac=frac, **params)

    # -- data movement -----------------------------------------------------
    def s_move(self):
        a = self.pick()
        op = self.choice(["roll", "tile", "repeat", "pad", "broadcast_to", "flip", "swapaxes",
                          "moveaxis", "transpose", "diag", "diagonal", "tril", "triu", "trace",
                          "getitem", "reshape", "rechunk", "split", "take", "expand_dims"])
        keep = dict(err=a.err, frac=a.frac)
        v, nd = a.val, a.val.ndim
        if op == "roll":
            if self.chance(0.3) or nd == 0:
                shift = self.ri(-30, 30)
                return self.node("roll", [a], np.roll(v, shift), shift=shift, **keep)
            k = self.ri(1, nd)
            axes = [int(x) for x in self.r.permutation(nd)[:k]]
            shifts = [self.ri(-30, 30) for _ in axes]
            if k == 1 and self.chance(0.5):
                return self.node("roll", [a], np.roll(v, shifts[0], axis=axes[0]),
                                 shift=shifts[0], axis=axes[0], **keep)
            return self.node("roll", [a], np.roll(v, shifts, axis=axes), shift=shifts, axis=axes, **keep)
        if op == "tile":
            reps = [self.ri(0, 3) for _ in range(self.ri(1, 3))]
            if self.chance(0.3):
                reps = reps[0]
            out = np.tile(v, reps)
            return self.node("tile", [a], out, reps=reps, **keep)
        if op == "repeat":
            ax = self.axis_of(a)
            n = v.size if ax is None else v.shape[ax]
            if self.chance(0.5) or n == 0:
                reps = self.ri(0, 3)
            else:
                reps = [self.ri(0, 3) for _ in range(n)]
            out = np.repeat(v, reps, axis=ax)
            params = {"repeats": reps}
            if ax is not None:
                params["axis"] = ax
            return self.node("repeat", [a], out, **params, **keep)
        if op == "pad":
            if nd == 0:
                raise Skip("pad 0-d")
            pw = [[self.ri(0, 3), self.ri(0, 3)] for _ in range(nd)]
            if self.chance(0.3):
                pw = self.ri(0, 3)
            if self.chance(0.6) and v.size:
                mode = self.choice(["edge", "edge", "reflect", "symmetric", "wrap"])
                return self.node("pad", [a], np.pad(v, pw, mode=mode), pad_width=pw, mode=mode,
                                 **keep)
            cv = self.choice([0, 1, 2.5, -4])
            if a.dtype == "bool":
                cv = self.choice([0, 1])
            out = np.pad(v, pw, mode="constant", constant_values=cv)
            return self.node("pad", [a], out, pad_width=pw, constant_values=cv,
                             err=a.err, frac=max(a.frac, 1) if a.exact else 0)
        if op == "broadcast_to":
            sh = [1 if d == 1 and self.chance(0.3) else d for d in v.shape]
            sh = [self.ri(1, 4) if d == 1 else d for d in sh]
            if self.chance(0.5):
                sh = [self.ri(0, 3)] + sh
            out = np.broadcast_to(v, sh).copy()
            return self.node("broadcast_to", [a], out, shape=sh, **keep)
        if op == "flip":
            ax = self.axis_of(a)
            return self.node("flip", [a], np.flip(v, axis=ax), **({"axis": ax} if ax is not None else {}),
                             **keep)
        if op in ("swapaxes", "moveaxis"):
            if nd < 2:
                raise Skip("1-d")
            x, y = self.ri(0, nd - 1), self.ri(0, nd - 1)
            if op == "swapaxes":
                return self.node(op, [a], np.swapaxes(v, x, y), axis1=x, axis2=y, **keep)
            return self.node(op, [a], np.moveaxis(v, x, y), source=x, destination=y, **keep)
        if op == "transpose":
            axes = [int(x) for x in self.r.permutation(nd)]
            return self.node("transpose", [a], np.transpose(v, axes), axes=axes, **keep)
        if op == "diag":
            if nd not in (1, 2):
                raise Skip("diag")
            k = self.ri(-3, 3)
            out = np.diag(v, k)
            return self.node("diag", [a], out, k=k, err=a.err, frac=a.frac)
        if op in ("diagonal", "trace"):
            if nd < 2:
                raise Skip("diagonal")
            x, y = self.r.permutation(nd)[:2]
            off = self.ri(-3, 3)
            if op == "diagonal":
                return self.node(op, [a], np.diagonal(v, off, int(x), int(y)), offset=off,
                                 axis1=int(x), axis2=int(y), **keep)
            out = np.asarray(np.trace(v, off, int(x), int(y)))
            dt = str(out.dtype)
            err, frac = 0.0, 0
            with np.errstate(all="ignore"):
                bound = float(np.nansum(np.abs(v.astype(np.float64))))
            if dt in INT_MAX and bound >= INT_MAX[dt]:
                raise Skip("overflow")
            if dt in MANT:
                frac = a.frac
                if not (a.exact and self.exact_float(dt, frac, bound)):
                    err, frac = 30 * a.err + 30 * eps(dt) * bound, 0
            return self.node("trace", [a], out, err=err, frac=frac, offset=off, axis1=int(x),
                             axis2=int(y))
        if op in ("tril", "triu"):
            if nd < 1 or (nd == 1 and v.size > 40):
                raise Skip("tri")
            k = self.ri(-3, 3)
            return self.node(op, [a], getattr(np, op)(v, k), k=k, **keep)
        if op == "getitem":
            if nd == 0:
                raise Skip("0-d")
            idx = []
            for d in v.shape:
                u = self.r.random()
                if u < 0.3:
                    idx.append(":")
                elif u < 0.45 and d > 0:
                    idx.append(self.ri(-d, d - 1))
                else:
                    st = self.choice([1, 1, 2, 3, -1, -2])
                    lo, hi = self.ri(-d - 2, d + 2), self.ri(-d - 2, d + 2)
                    idx.append("%d:%d:%d" % (lo, hi, st))
            npidx = tuple(int(e) if isinstance(e, int) else slice(*[int(p) if p else None for p in e.split(":")])
                          for e in idx)
            return self.node("getitem", [a], np.asarray(v[npidx]), index=idx, **keep)
        if op == "reshape":
            if self.chance(0.5):
                sh = [-1]
            else:
                sh = list(self.r.permutation(list(v.shape))) + ([1] if self.chance(0.3) else [])
                sh = [int(x) for x in sh]
            return self.node("reshape", [a], v.reshape(sh), newshape=sh, **keep)
        if op == "expand_dims":
            ax = self.ri(0, nd)
            return self.node("expand_dims", [a], np.expand_dims(v, ax), axis=ax, **keep)
        if op == "rechunk":
            ch = self.chunks(v.shape)
            if ch is None:
                raise Skip("rechunk")
            return self.node("rechunk", [a], v, chunk_size=ch, **keep)
        if op == "split":
            if nd == 0:
                raise Skip("0-d")
            ax = self.ri(0, nd - 1)
            d = v.shape[ax]
            which = self.choice(["split", "array_split"])
            if self.chance(0.5):
                ios = sorted(self.ri(-d - 1, d + 1) for _ in range(self.ri(1, 3)))
            else:
                ios = self.ri(1, 4)
                if which == "split" and d % ios:
                    which = "array_split"
            parts = getattr(np, which)(v, ios, axis=ax)
            ks = [self.key("sp") for _ in parts]
            n = {"key": self.key("split"), "op": which, "inputs": [a.key],
                 "indices_or_sections": ios, "axis": ax, "outputs": ks}
            self.nodes.append(n)
            for k, p in zip(ks, parts):
                self.pool.append(V(k, p, a.err, a.frac))
            return None
        if op == "take":
            ax = self.axis_of(a)
            n = v.size if ax is None else v.shape[ax]
            if n == 0:
                raise Skip("take of empty")
            ish = self.rand_shape(self.choice([0, 1, 1, 2]))
            ind = self.r.integers(-n, n, ish)
            ik = self.key("I")
            if ind.size == 0:
                inode = {"key": ik, "op": "zeros", "shape": list(ind.shape), "dtype": "int64"}
            else:
                inode = {"key": ik, "op": "array", "dtype": "int64",
                         "data": self.nest(ind.ravel().tolist(), ind.shape) if ind.ndim else int(ind)}
            self.nodes.append(inode)
            out = np.take(v, ind, axis=ax)
            params = {"axis": ax} if ax is not None else {}
            return self.node("take", [a, ik], out, **params, **keep)
        raise Skip(op)

    def s_join(self):
        a = self.pick()
        nd = a.val.ndim
        if nd == 0:
            raise Skip("0-d")
        ax = self.ri(0, nd - 1)
        same = [v for v in self.pool if v.dtype == a.dtype and v.val.ndim == nd and v is not a
                and all(v.shape[i] == a.shape[i] for i in range(nd) if i != ax)]
        if not same:
            b = self.leaf(tuple(self.ri(0, 5) if i == ax else a.shape[i] for i in range(nd)), a.dtype)
        else:
            b = self.choice(same)
        err, frac = max(a.err, b.err), max(a.frac, b.frac)
        if err:
            frac = 0
        if self.chance(0.7) or a.shape != b.shape:
            out = np.concatenate([a.val, b.val, a.val], axis=ax)
            return self.node("concatenate", [a, b, a], out, err=err, frac=frac, axis=ax)
        sax = self.ri(0, nd)
        return self.node("stack", [a, b], np.stack([a.val, b.val], axis=sax), err=err, frac=frac, axis=sax)

    # -- sort, search, statistics -------------------------------------------
    def s_sortish(self):
        op = self.choice(["sort", "argsort", "partition", "topk", "searchsorted", "digitize", "isin",
                          "in1d", "median", "percentile", "quantile", "bincount", "histogram"])
        a = self.pick(lambda v: v.exact)
        v, nd = a.val, a.val.ndim
        if op in ("sort", "argsort"):
            ax = self.axis_of(a)
            if nd == 0 and ax is None:
                raise Skip("0-d")
            if ax is None and self.chance(0.5):
                ax = -1
            params = {"axis": ax}
            if op == "sort":
                out = np.sort(v, axis=ax)
                return self.node("sort", [a], out, frac=a.frac, **params)
            out = np.argsort(v, axis=ax, kind="stable")
            return self.node("argsort", [a], out, **params)
        if op == "partition":
            if nd == 0:
                raise Skip("0-d")
            ax = self.ri(0, nd - 1)
            d = v.shape[ax]
            if d == 0:
                raise Skip("empty")
            kth = self.ri(-d, d - 1)
            pk = self.key("par")
            self.nodes.append({"key": pk, "op": self.choice(["partition", "argpartition"]),
                               "inputs": [a.key], "kth": kth, "axis": ax})
            self.unfetchable.add(pk)
            if self.nodes[-1]["op"] == "argpartition":
                if nd != 1:
                    self.nodes.pop()
                    raise Skip("argpartition of n-d")
                tk = self.key("tk")
                self.nodes.append({"key": tk, "op": "take", "inputs": [a.key, pk]})
                self.unfetchable.add(tk)
                pk = tk
            idx = [":"] * nd
            idx[ax] = kth
            srt = np.sort(v, axis=ax)
            out = np.asarray(srt[tuple(kth if i == ax else slice(None) for i in range(nd))])
            k = self.key("kth")
            n = {"key": k, "op": "getitem", "inputs": [pk], "index": idx}
            return self.emit(n, V(k, out, 0.0, a.frac))
        if op == "topk":
            if nd == 0 or a.has_nan() or a.dtype == "bool":
                raise Skip("topk")
            ax = self.ri(0, nd - 1)
            d = v.shape[ax]
            if d == 0:
                raise Skip("empty")
            k = self.ri(1, d)
            largest = self.chance(0.6)
            srt = np.sort(v, axis=ax)
            if largest:
                srt = np.flip(srt, axis=ax)
            out = np.take(srt, np.arange(k), axis=ax)
            return self.node("topk", [a], out, frac=a.frac, k=k, axis=ax, largest=largest)
        if op in ("searchsorted", "digitize"):
            s = self.pick(lambda x: x.exact and x.val.ndim == 1 and x.dtype != "bool")
            bins = np.sort(s.val)
            sk = self.key("so")
            self.nodes.append({"key": sk, "op": "sort", "inputs": [s.key]})
            if op == "searchsorted":
                side = self.choice(["left", "right"])
                if a.dtype == "bool":
                    raise Skip("bool v")
                out = np.searchsorted(bins, v, side=side)
                return self.node("searchsorted", [V(sk, bins), a], np.asarray(out, dtype=np.int64),
                                 side=side)
            if np.isnan(bins).any() if bins.dtype.kind == "f" else False:
                raise Skip("NaN bins")
            if a.dtype == "bool":
                raise Skip("bool x")
            right = self.chance(0.5)
            binv = V(sk, bins)
            if self.chance(0.4):
                fk = self.key("fl")
                self.nodes.append({"key": fk, "op": "flip", "inputs": [sk]})
                bins = bins[::-1]
                binv = V(fk, bins)
            out = np.digitize(v, bins, right=right)
            return self.node("digitize", [a, binv], np.asarray(out, dtype=np.int64), right=right)
        if op in ("isin", "in1d"):
            t = self.pick(lambda x: x.exact)
            invert = self.chance(0.3)
            if op == "isin":
                out = np.isin(v, t.val, invert=invert)
            else:
                out = np.in1d(v, t.val, invert=invert)
            return self.node(op, [a, t], out, invert=invert)
        if op in ("median", "percentile", "quantile"):
            if a.dtype == "bool" or v.size == 0:
                raise Skip("stat")
            ax = None if nd == 0 or self.chance(0.4) else self.ri(0, nd - 1)
            if ax is not None and v.shape[ax] == 0:
                raise Skip("empty axis")
            params = {"axis": ax} if ax is not None else {}
            if op == "median":
                with np.errstate(all="ignore"):
                    out = np.asarray(np.median(v, axis=ax))
            else:
                qs = [round(float(x), 3) for x in self.r.random(self.ri(1, 3))]
                q = qs if self.chance(0.5) else qs[0]
                scale = 100 if op == "percentile" else 1
                qv = [x * scale for x in qs] if isinstance(q, list) else q * scale
                with np.errstate(all="ignore"):
                    # float64 always (graph-format.md; numpy 1.24 gives a float32 NaN
                    # for a float32 input holding NaN with a scalar q over all axes)
                    out = np.asarray(getattr(np, op)(v, qv, axis=ax), dtype=np.float64)
                params["q"] = qv
            dt = str(out.dtype)
            err = 4 * eps(dt if dt in MANT else "float64") * max(a.maxabs(), 1.0) * 4
            return self.node(op, [a], out, err=err, **params)
        if op == "bincount":
            x = self.pick(lambda w: w.exact and w.val.ndim == 1 and w.dtype in ("int64", "int32", "bool")
                          and (w.val.size == 0 or int(w.val.min()) >= 0) and (w.val.size == 0 or
                                                                            int(w.val.max()) < 5000))
            ml = self.choice([None, 0, 3, 30])
            params = {"minlength": ml} if ml is not None else {}
            if self.chance(0.3):
                w = self.pick(lambda u: u.exact and u.val.ndim == 1 and u.val.size == x.val.size
                              and u.dtype != "bool")
                out = np.bincount(x.val, weights=w.val, minlength=ml or 0)
                with np.errstate(all="ignore"):
                    bound = float(np.nansum(np.abs(w.val.astype(np.float64))))
                frac = w.frac
                err = 0.0 if self.exact_float("float64", frac, bound) else eps("float64") * bound * 4
                return self.node("bincount", [x, w], out, err=err, frac=0 if err else frac, held=True,
                                 **params)
            out = np.bincount(x.val, minlength=ml or 0)
            return self.node("bincount", [x], out, held=True, **params)
        if op == "histogram":
            if a.dtype == "bool" or a.has_nan():
                raise Skip("histogram")
            bins = self.ri(1, 8)
            lo = float(np.min(v)) if v.size else 0.0
            hi = float(np.max(v)) if v.size else 1.0
            rng_ = [lo - self.ri(0, 2), hi + self.ri(0, 2)] if self.chance(0.6) else None
            if rng_ is None and v.size and lo == hi:
                rng_ = [lo - 1, hi + 1]
            params = {"bins": bins}
            if rng_ is not None:
                params["range"] = rng_
            hist, edges = np.histogram(v, bins=bins, range=rng_)
            hk, ek = self.key("hh"), self.key("he")
            self.nodes.append(dict({"key": self.key("hist"), "op": "histogram", "inputs": [a.key],
                                    "outputs": [hk, ek]}, **params))
            self.pool.append(V(hk, hist))
            self.pool.append(V(ek, edges, 4 * eps(str(edges.dtype)) * max(abs(lo), abs(hi), 1.0) * 4))
            return None
        raise Skip(op)

    # -- results whose length is data ---------------------------------------
    def held_input(self, a):
        """a as int64/float64/bool: astype a float32 or int32 first."""
        if a.dtype in HELD_DTYPES:
            return a
        to = "float64" if a.dtype == "float32" else "int64"
        return self.node("astype", [a], a.val.astype(to), frac=a.frac, dtype=to)

    def s_held(self):
        op = self.choice(["mask", "mask", "compress", "extract", "argwhere", "flatnonzero", "nonzero",
                          "unique", "union1d", "intersect1d", "setdiff1d"])
        if op == "mask":
            a = self.pick(lambda v: v.val.ndim in (1, 2) and v.exact)
            a = self.held_input(a)
            if self.chance(0.5) or a.val.ndim == 1:
                thr = float(np.round(self.r.normal(0, 2), 1))
                mk = self.key("m")
                if a.dtype == "bool":
                    self.nodes.append({"key": mk, "op": "logical_not", "inputs": [a.key]})
                    m = ~a.val
                else:
                    self.nodes.append({"key": mk, "op": "greater", "inputs": [a.key, thr]})
                    with np.errstate(all="ignore"):
                        m = a.val > thr
                return self.node("getitem", [a, mk], a.val[m], frac=a.frac, held=True,
                                 index=[{"input": 1}])
            m = self.r.random(a.shape[0]) < 0.5
            mk = self.key("M")
            self.nodes.append({"key": mk, "op": "array", "dtype": "bool", "data": m.tolist()})
            return self.node("getitem", [a, mk], a.val[m], frac=a.frac, held=True,
                             index=[{"input": 1}, ":"])
        if op in ("compress", "extract"):
            a = self.held_input(self.pick(lambda v: v.exact and v.val.ndim >= 1))
            if op == "extract":
                c = self.pick(lambda v: v.exact and v.dtype == "bool" and v.val.size == a.val.size)
                out = np.extract(c.val, a.val)
                return self.node("extract", [c, a], out, frac=a.frac, held=True)
            n = a.val.size if self.chance(0.5) else a.shape[0]
            ax = None if n == a.val.size and self.chance(0.5) else 0
            if ax == 0:
                n = a.shape[0]
            c = self.r.random(self.ri(0, n)) < 0.5
            ck = self.key("C")
            self.nodes.append({"key": ck, "op": "array", "dtype": "bool", "data": c.tolist()})
            out = np.compress(c, a.val, axis=ax)
            if ax == 0 and a.val.ndim > 2:
                raise Skip("held of 3-d")
            params = {"axis": ax} if ax is not None else {}
            return self.node("compress", [ck, a], out, frac=a.frac, held=True, **params)
        if op in ("argwhere", "flatnonzero", "nonzero"):
            a = self.pick(lambda v: v.exact and v.val.ndim >= 1)
            if op == "nonzero":
                outs = np.nonzero(a.val)
                ks = [self.key("nz") for _ in outs]
                self.nodes.append({"key": self.key("nonzero"), "op": "nonzero", "inputs": [a.key],
                                   "outputs": ks})
                for k, o in zip(ks, outs):
                    self.pool.append(V(k, o.astype(np.int64), held=True))
                return None
            out = getattr(np, op)(a.val).astype(np.int64)
            return self.node(op, [a], out, held=True)
        if op == "unique":
            a = self.held_input(self.pick(lambda v: v.exact))
            ri, rv, rc = self.chance(0.3), self.chance(0.3), self.chance(0.4)
            res = np.unique(a.val, return_index=ri, return_inverse=rv, return_counts=rc)
            if not (ri or rv or rc):
                return self.node("unique", [a], res, frac=a.frac, held=True)
            ks = [self.key("u") for _ in res]
            params = {"return_index": ri, "return_inverse": rv, "return_counts": rc}
            self.nodes.append(dict({"key": self.key("unique"), "op": "unique", "inputs": [a.key],
                                    "outputs": ks}, **params))
            names = ["values"] + (["index"] if ri else []) + (["inverse"] if rv else []) + \
                (["counts"] if rc else [])
            for k, o, nm in zip(ks, res, names):
                o = np.asarray(o)
                if nm == "inverse":
                    # numpy 1.24 gives the inverse flat; the contract's is a's size, 1-D
                    o = o.reshape(-1).astype(np.int64)
                    self.pool.append(V(k, o))
                elif nm == "values":
                    self.pool.append(V(k, o, 0.0, a.frac, held=True))
                else:
                    self.pool.append(V(k, o.astype(np.int64), held=True))
            return None
        a = self.held_input(self.pick(lambda v: v.exact))
        b = self.held_input(self.pick(lambda v: v.exact))
        out = getattr(np, op)(a.val, b.val)
        return self.node(op, [a, b], out, frac=max(a.frac, b.frac), held=True)

    def build(self, n_ops):
        self.leaf()
        tries = 0
        while len(self.pool) < n_ops and tries < n_ops * 8:
            tries += 1
            n0 = len(self.nodes)
            try:
                self.step()
            except (Skip, ValueError, ZeroDivisionError):  # numpy refuses: another draw
                del self.nodes[n0:]
                self.pool = [v for v in self.pool if any(n["key"] == v.key or v.key in n.get("outputs", ())
                                                         for n in self.nodes)]
        fetchable = [v for v in self.pool if v.key not in self.unfetchable]
        last = fetchable[-1]
        fetch = [last]
        others = fetchable[:-1]
        for i in self.r.permutation(len(others))[:self.ri(0, 3)]:
            fetch.append(others[int(i)])
        return {"version": 1, "nodes": list(self.nodes), "fetch": [v.key for v in fetch]}, \
            {v.key: v for v in fetch}


def _bcast_to(shape, target):
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


def _bcast(*shapes):
    try:
        np.broadcast_shapes(*shapes)
        return True
    except ValueError:
        return False


def generate(seed, count, held_inputs=None):
    """count (document, {fetched key: V}, held keys) triples. held_inputs:
    None any document; False only those in which no op takes a result whose
    length is data (the cluster takes those in a later task only,
    docs/graph-format.md); True only those in which one does."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        g = Gen(rng)
        with warnings.catch_warnings():  # numpy's warnings on empty or all-NaN lines
            warnings.simplefilter("ignore", RuntimeWarning)
            doc, want = g.build(int(rng.integers(3, 14)))
        held = {v.key for v in g.pool if v.held}
        takes = any(i in held for n in doc["nodes"] for i in n.get("inputs", ())
                    if isinstance(i, str))
        if held_inputs is None or held_inputs == takes:
            out.append((doc, want, held))
    return out


def check(doc, want, got):
    """None when mars-run's values equal numpy's, else the reason."""
    for k, v in want.items():
        if k not in got:
            return "%s.npy not written" % k
        g = got[k]
        e = v.val
        if v.exact or e.dtype.kind not in "fc":
            why = harness.compare(e, g, rtol=0.0, atol=0.0)
        else:
            why = harness.compare(e, g, rtol=1e-12 if e.dtype == np.float64 else 1e-6,
                                  atol=v.err * 4 + 1e-300)
        if why:
            return "%s (%s): %s" % (k, next(n["op"] for n in doc["nodes"]
                                            if n["key"] == k or k in n.get("outputs", ())), why)
    return None


def run_batch(batch, args):
    docs = [d for (_, d, _) in batch]
    merged = harness.merge(docs)
    r = harness.run_mars(merged, args=args)
    try:
        if r.rc != 0:
            return None, r
        results = []
        for i, (name, d, want) in enumerate(batch):
            got = {}
            for k in d["fetch"]:
                p = os.path.join(r.outdir, "c%d.%s.npy" % (i, k))
                if os.path.exists(p):
                    got[k] = np.load(p, allow_pickle=False)
            results.append(check(d, want, got))
        return results, r
    finally:
        harness.cleanup(r)


# mars-run's options per batch, in turn: small chunks make many blocks for the
# held results and the sort-statistics jobs; small sort blocks run 1-D sorts
# (and percentiles) through the merge network
ARGS = [[], ["--chunk-bytes", "512"], ["--sort-block-bytes", "96"],
        ["--chunk-bytes", "512", "--sort-block-bytes", "200"]]


def main():
    seed = int(os.environ.get("MARS_DIFF3_SEED", "20261128"))
    count = int(os.environ.get("MARS_DIFF3_GRAPHS", "300"))
    suite = harness.Suite("test_random_graphs3")
    print("# seed %d (MARS_DIFF3_SEED), %d graphs (MARS_DIFF3_GRAPHS)" % (seed, count), flush=True)
    harness.require_mars_run(suite)
    cases = [("g3-%d-%d" % (seed, i), d, w) for i, (d, w, _) in enumerate(generate(seed, count))]
    print("# %d nodes" % sum(len(d["nodes"]) for _, d, _ in cases), flush=True)
    batches, cur, n = [], [], 0
    for c in cases:
        if cur and n + len(c[1]["nodes"]) > 300:
            batches.append(cur)
            cur, n = [], 0
        cur.append(c)
        n += len(c[1]["nodes"])
    if cur:
        batches.append(cur)
    for bi, b in enumerate(batches):
        args = ARGS[bi % len(ARGS)]
        results, r = run_batch(b, args)
        if results is None:
            # refused or failed as a whole: each case alone names the culprit
            for c in b:
                res, r1 = run_batch([c], args)
                if res is None and r1.rc == 2 and "over the sort block limit" in r1.stderr:
                    # a small --sort-block-bytes refuses n-D lines of wide chunks
                    # (documented); the case runs with the default limit
                    i = args.index("--sort-block-bytes")
                    res, r1 = run_batch([c], args[:i] + args[i + 2:])
                if res is None:
                    suite.fail(c[0], "exit %d: %s%s" % (r1.rc, r1.brief_error(),
                                                        " (with %s)" % " ".join(args) if args else ""),
                               c[1])
                elif res[0]:
                    suite.fail(c[0], res[0], c[1])
                else:
                    suite.ok(c[0])
            continue
        for c, why in zip(b, results):
            if why:
                suite.fail(c[0], why + (" (with %s)" % " ".join(args) if args else ""), c[1])
            else:
                suite.ok(c[0])
    suite.finish()


if __name__ == "__main__":
    main()
