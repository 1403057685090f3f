#!/usr/bin/python3
"""Random valid graphs, each compared with npref (numpy 1.24).

A seeded generator builds a few hundred small graphs: leaves from creation and
random ops (shapes 0..40 per axis, uneven chunk sizes), then chains of
element-wise ops with scalars, reductions, shape ops, matrix products with
compatible shapes, concatenations. Random leaves are fetched too and their
values fed to npref. Graphs are batched into a few documents.

Numerical care: every node carries a level of inexactness (0: computed exactly
the same way by any correct engine; 1: element-wise rounding may differ by
ulps, as exp or sin; 2: accumulated, as a chunked sum or a matrix product) and
a bound on its magnitude. Ops that are discontinuous (floor, comparisons,
floor_divide, casts to integers, argmin, a where condition) or sensitive to
their domain (sqrt, log, division) take exact inputs only, and products and
sums take bounded ones, so that a correct engine can never be flagged for a
legitimate rounding difference.

Environment: MARS_DIFF_SEED (default 20240607), MARS_DIFF_GRAPHS (default 300),
MARS_DIFF_MAX_DIM (40) and MARS_DIFF_MAX_ELEMS (24000) for bigger tensors,
MARS_DIFF_THREADS for mars-run's --threads (default: its own).
"""

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import npref  # noqa: E402

# Per node: keeps a graph's run in milliseconds under ASan. Larger values
# (MARS_DIFF_MAX_DIM=200 MARS_DIFF_MAX_ELEMS=400000) make a slower, deeper soak.
MAX_ELEMS = int(os.environ.get("MARS_DIFF_MAX_ELEMS", "24000"))
MAX_DIM = int(os.environ.get("MARS_DIFF_MAX_DIM", "40"))

FLOATS = ("float32", "float64")
SMALL_INTS = ("int8", "int16", "uint8", "uint16", "uint32", "uint64")
INTS = ("int32", "int64") + SMALL_INTS


class Node:
    def __init__(self, key, shape, dtype, level=0, mag=1.0):
        self.key = key
        self.shape = tuple(shape)
        self.dtype = dtype
        self.level = level
        self.mag = float(mag)

    @property
    def size(self):
        return int(np.prod(self.shape)) if self.shape else 1

    @property
    def ndim(self):
        return len(self.shape)


def result_mag(*mags):
    m = 1.0
    for x in mags:
        m *= max(x, 1.0)
    return m


class GenBase:
    """What the random-graph generators share (test_random_graphs3.py's
    too): a numpy Generator, the document's nodes, the pool of values a
    later op may take, fresh keys."""

    def __init__(self, rng):
        self.r = rng
        self.nodes = []
        self.pool = []
        self.n = 0

    def key(self, what):
        self.n += 1
        return "%s%d" % (what, self.n)

    def choice(self, seq):
        return seq[int(self.r.integers(len(seq)))]

    def chance(self, p):
        return self.r.random() < p

    def emit(self, node, info):
        self.nodes.append(node)
        self.pool.append(info)
        return info


class Gen(GenBase):
    def __init__(self, rng, gid, small=False):
        super().__init__(rng)
        self.gid = gid
        self.small = small  # astype may also give the small integer dtypes

    def rand_shape(self, ndim=None):
        if ndim is None:
            ndim = self.choice([0, 1, 1, 2, 2, 2, 3, 3])
        while True:
            shape = []
            for _ in range(ndim):
                u = self.r.random()
                if u < 0.05:
                    shape.append(0)
                elif u < 0.15:
                    shape.append(1)
                else:
                    shape.append(int(self.r.integers(2, MAX_DIM + 1)))
            if int(np.prod(shape)) <= MAX_ELEMS:
                return shape

    def rand_chunks(self, shape):
        if not shape:
            return None
        u = self.r.random()
        if u < 0.1:
            return None
        if u < 0.45:
            m = max(shape) if shape else 1
            return int(self.r.integers(max(1, math.ceil(m / 6)), max(m, 1) + 2))
        return [int(self.r.integers(max(1, math.ceil(d / 6)), max(d, 1) + 2)) for d in shape]

    # -- leaves ------------------------------------------------------------
    def leaf(self, shape=None, dtype=None):
        if shape is None:
            shape = self.rand_shape()
        if dtype is None:
            dtype = self.choice(["float64", "float64", "float32", "int64", "int32", "bool"]
                                + (list(SMALL_INTS) if self.small else []))
        k = self.key("L")
        ch = self.rand_chunks(shape)
        extra = {"chunk_size": ch} if ch is not None else {}
        size = int(np.prod(shape)) if shape else 1
        seed = int(self.r.integers(0, 2 ** 31))
        u = self.r.random()
        if dtype in FLOATS:
            if 0 < size <= 30 and u < 0.25:
                data = np.round(self.r.normal(0, 3, shape), 2)
                n = {"key": k, "op": "array", "data": data.tolist() if shape else [float(data)], "dtype": dtype}
                if not shape:
                    n = {"key": k, "op": "full", "shape": [], "fill_value": float(data), "dtype": dtype}
                n.update(extra if shape else {})
                return self.emit(n, Node(k, shape, dtype, 0, 10))
            if u < 0.7:
                op, kw, mag = self.choice([("random.randn", {}, 6), ("random.rand", {}, 1),
                                           ("random.uniform", {"low": -3.0, "high": 5.0}, 5),
                                           ("random.normal", {"loc": 1.0, "scale": 2.0}, 13)])
                n = dict({"key": k, "op": op, "shape": shape, "seed": seed}, **kw, **extra)
                if dtype == "float64":
                    return self.emit(n, Node(k, shape, "float64", 0, mag))
                self.nodes.append(n)
                k2 = self.key("F")
                return self.emit({"key": k2, "op": "astype", "inputs": [k], "dtype": dtype},
                                 Node(k2, shape, dtype, 0, mag))
            if u < 0.85 and len(shape) == 1:
                start = float(self.r.integers(-10, 10))
                stop = start + float(self.r.integers(1, 20))
                n = dict({"key": k, "op": "linspace", "start": start, "stop": stop, "num": shape[0],
                          "endpoint": bool(self.chance(0.7))}, **extra)
                if dtype == "float32":
                    self.nodes.append(n)
                    k2 = self.key("F")
                    return self.emit({"key": k2, "op": "astype", "inputs": [k], "dtype": dtype},
                                     Node(k2, shape, dtype, 1, 20))
                return self.emit(n, Node(k, shape, dtype, 1, 20))
            fill = float(np.round(self.r.normal(0, 3), 2))
            op = self.choice(["full", "ones", "zeros"])
            n = dict({"key": k, "op": op, "shape": shape, "dtype": dtype}, **extra)
            if op == "full":
                n["fill_value"] = fill
            return self.emit(n, Node(k, shape, dtype, 0, max(abs(fill), 1)))
        if dtype in INTS:
            if u < 0.6:
                lo = int(self.r.integers(-50, 1))
                if dtype.startswith("u"):  # randint's low must fit the dtype
                    lo = -lo
                hi = lo + int(self.r.integers(1, 100))
                n = dict({"key": k, "op": "random.randint", "shape": shape, "seed": seed, "low": lo,
                          "high": hi, "dtype": dtype}, **extra)
                return self.emit(n, Node(k, shape, dtype, 0, max(abs(lo), abs(hi))))
            if u < 0.8 and size > 0 and shape:
                start = int(self.r.integers(-20, 20))
                if dtype.startswith("u"):
                    start = abs(start)
                n = dict({"key": k, "op": "arange", "start": start, "stop": start + size, "dtype": dtype},
                         **({"chunk_size": int(self.r.integers(1, size + 2))}))
                if len(shape) == 1:
                    return self.emit(n, Node(k, shape, dtype, 0, abs(start) + size))
                self.nodes.append(n)
                k2 = self.key("R")
                return self.emit({"key": k2, "op": "reshape", "inputs": [k], "newshape": shape},
                                 Node(k2, shape, dtype, 0, abs(start) + size))
            if len(shape) == 2 and u < 0.9:
                kk = int(self.r.integers(-3, 4))
                n = dict({"key": k, "op": "eye", "N": shape[0], "M": shape[1], "k": kk, "dtype": dtype}, **extra)
                return self.emit(n, Node(k, shape, dtype, 0, 1))
            fill = int(self.r.integers(-9, 10))
            n = dict({"key": k, "op": "full", "shape": shape, "fill_value": fill, "dtype": dtype}, **extra)
            return self.emit(n, Node(k, shape, dtype, 0, max(abs(fill), 1)))
        # bool: rand < p, or a full, or eye
        if u < 0.75:
            n = dict({"key": k, "op": "random.rand", "shape": shape, "seed": seed}, **extra)
            self.nodes.append(n)
            k2 = self.key("B")
            return self.emit({"key": k2, "op": "less", "inputs": [k, float(np.round(self.r.random(), 2))]},
                             Node(k2, shape, "bool", 0, 1))
        n = dict({"key": k, "op": "full", "shape": shape, "fill_value": bool(self.chance(0.5))}, **extra)
        return self.emit(n, Node(k, shape, "bool", 0, 1))

    def pick(self, pred=lambda n: True):
        cands = [n for n in self.pool if pred(n)]
        if not cands:
            return None
        # prefer recent nodes: chains grow deeper
        w = np.arange(1, len(cands) + 1, dtype=float) ** 2
        return cands[int(self.r.choice(len(cands), p=w / w.sum()))]

    # -- steps -------------------------------------------------------------
    def step(self):
        kinds = ["unary", "binary", "binary", "scalar", "reduce", "shape", "shape", "linalg",
                 "concat", "where", "clip", "astype", "scan", "argred", "sort", "take", "stack2"]
        return getattr(self, "s_" + self.choice(kinds))()

    def s_unary(self):
        a = self.pick()
        if a is None:
            return None
        f = a.dtype in FLOATS
        ops = ["abs", "isnan", "isfinite", "logical_not"]
        if a.dtype != "bool":
            ops += ["negative", "square"]
            if a.level == 0:
                ops += ["sign", "floor", "ceil", "sqrt", "log", "log1p", "exp", "expm1", "sin", "cos",
                        "tan", "tanh"]
            else:
                ops += ["tanh"]
                if a.mag <= 5:
                    ops += ["exp", "expm1"]
                if a.mag <= 50:
                    ops += ["sin", "cos"]
        # the second wave of ufuncs (tests/diff/test_ufuncs.py has their edge cases)
        if a.dtype == "bool":
            ops += ["invert", "isinf", "signbit", "isposinf"]
        else:
            ops += ["positive", "arctan"]
            if a.level == 0:
                ops += ["rint", "trunc", "fix", "cbrt", "log2", "log10", "exp2", "degrees",
                        "radians", "arcsinh", "reciprocal", "signbit", "isinf", "isneginf",
                        "isposinf"]
            if a.dtype in INTS:
                ops += ["invert"]
        if a.level > 0:
            ops = [o for o in ops if o not in ("isnan", "isfinite", "logical_not")] or ["abs"]
        op = self.choice(ops)
        wave2 = self.unary_wave2(a, op)
        if wave2 is not None:
            return wave2
        if op == "square" and a.mag > 1e3 and a.level > 0:
            op = "abs"
        k = self.key("u")
        dt = a.dtype
        level, mag = a.level, a.mag
        if op in ("isnan", "isfinite", "logical_not"):
            dt, mag = "bool", 1
        elif op in ("sqrt", "log", "log1p", "exp", "expm1", "sin", "cos", "tan", "tanh", "floor", "ceil"):
            dt = a.dtype if f else "float64"
            if op in ("floor", "ceil"):
                level = 0
            else:
                level = max(level, 1)
            mag = {"sqrt": math.sqrt(max(a.mag, 1)), "log": math.inf, "log1p": math.inf,
                   "exp": math.exp(min(a.mag, 700)), "expm1": math.exp(min(a.mag, 700)),
                   "sin": 1, "cos": 1, "tan": math.inf, "tanh": 1, "floor": a.mag + 1,
                   "ceil": a.mag + 1}[op]
        elif op == "square":
            mag = a.mag ** 2
        elif op == "sign":
            mag = 1
        if dt in INTS:
            mag = min(mag, 2.0 ** 63)
        return self.emit({"key": k, "op": op, "inputs": [a.key]}, Node(k, a.shape, dt, level, mag))

    def unary_wave2(self, a, op):
        """The node of a second-wave unary op, or None for the others."""
        f = a.dtype in FLOATS
        fdt = a.dtype if f else "float64"
        k = self.key("u")
        dt, level, mag = a.dtype, a.level, a.mag
        if op in ("signbit", "isinf", "isneginf", "isposinf"):
            dt, level, mag = "bool", 0, 1
        elif op == "invert":
            mag = 1 if a.dtype == "bool" else min(a.mag + 1, 2.0 ** 63)
        elif op == "positive":
            pass
        elif op in ("rint", "trunc", "fix"):
            dt, level, mag = fdt, 0, a.mag + 1
        elif op == "reciprocal":
            mag = 2.0 ** 63 if a.dtype in INTS else math.inf
        elif op in ("arctan", "cbrt", "log2", "log10", "exp2", "degrees", "radians", "arcsinh"):
            dt, level = fdt, max(level, 1)
            mag = {"arctan": 2, "cbrt": max(a.mag, 1) ** (1 / 3) + 1, "log2": math.inf,
                   "log10": math.inf, "exp2": 2.0 ** min(a.mag, 1100), "degrees": a.mag * 58,
                   "radians": a.mag / 57 + 1, "arcsinh": math.log(max(a.mag, 1)) * 2 + 2}[op]
        else:
            return None
        return self.emit({"key": k, "op": op, "inputs": [a.key]}, Node(k, a.shape, dt, level, mag))

    def compatible_shape(self, shape):
        """A shape that broadcasts with `shape` (fewer axes, or 1s)."""
        s = list(shape)
        nd = len(s)
        keep = int(self.r.integers(0, nd + 1)) if self.chance(0.5) else nd
        out = [d if self.chance(0.7) else 1 for d in s[nd - keep:]]
        if self.chance(0.1) and nd < 3:
            out = [int(self.r.integers(1, 4))] + list(s)
            if int(np.prod(out)) > MAX_ELEMS:
                out = list(s)
        return out

    def partner(self, a, dtype=None):
        """Another node broadcast-compatible with a: an existing one, or a new leaf."""
        if self.chance(0.3):
            b = self.pick(lambda n: n is not a and _broadcastable(n.shape, a.shape)
                          and int(np.prod(np.broadcast_shapes(n.shape, a.shape))) <= MAX_ELEMS)
            if b is not None and (dtype is None or b.dtype == dtype):
                return b
        if self.chance(0.1):
            return a
        return self.leaf(self.compatible_shape(a.shape), dtype)

    def s_binary(self):
        a = self.pick()
        if a is None:
            return None
        b = self.partner(a)
        if self.chance(0.5):
            a, b = b, a
        both_bool = a.dtype == "bool" and b.dtype == "bool"
        exact = a.level == 0 and b.level == 0
        ops = ["add", "multiply", "maximum", "minimum", "logical_and", "logical_or"]
        if not both_bool:
            ops += ["subtract"]
        if exact:
            ops += ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "divide"]
            if not both_bool:
                ops += ["floor_divide", "mod"]
        else:
            ops = [o for o in ops if not o.startswith("logical")]
        # the second wave: fmax/fmin/hypot are continuous, the rest take exact inputs
        no_float = a.dtype not in FLOATS and b.dtype not in FLOATS
        ops += ["fmax", "fmin"]
        if not both_bool:
            ops += ["hypot"]
        if exact:
            ops += ["logical_xor"]
            if not both_bool:
                ops += ["fmod", "remainder", "copysign", "heaviside", "arctan2"]
            if no_float:
                ops += ["bitwise_and", "bitwise_or", "bitwise_xor"]
                if not both_bool:
                    ops += ["left_shift", "right_shift"]
        op = self.choice(ops)
        if op == "multiply" and (a.level or b.level) and max(a.mag, b.mag) > 100:
            op = "add"
        if op == "multiply" and (a.level or b.level) and (a.dtype in INTS and a.mag > 1e4 or
                                                          b.dtype in INTS and b.mag > 1e4):
            op = "maximum"
        k = self.key("b")
        try:
            shape = np.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            return None
        dt = str(np.result_type(np.dtype(a.dtype), np.dtype(b.dtype)))
        level = max(a.level, b.level)
        mag = max(a.mag, b.mag)
        if op in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                  "logical_and", "logical_or", "logical_xor"):
            dt, mag, level = "bool", 1, 0
        elif op in ("hypot", "copysign", "heaviside", "arctan2"):
            dt = dt if dt in FLOATS else "float64"
            mag = {"hypot": a.mag + b.mag, "copysign": a.mag, "heaviside": 1,
                   "arctan2": 4}[op]
            if op == "arctan2":
                level = max(level, 1)
        elif op in ("fmod", "remainder"):
            mag = math.inf if dt in FLOATS else mag
        elif op in ("left_shift", "right_shift"):
            mag = 2.0 ** 63
        elif op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
            mag = 2.0 ** 63 if dt != "bool" else 1
        elif op == "divide":
            dt = dt if dt in FLOATS else "float64"
            mag = math.inf
        elif op == "multiply":
            mag = result_mag(a.mag, b.mag)
        elif op in ("add", "subtract"):
            mag = a.mag + b.mag
        elif op in ("floor_divide", "mod"):
            mag = math.inf if dt in FLOATS else mag
        if dt in INTS:
            mag = min(mag, 2.0 ** 63)
        return self.emit({"key": k, "op": op, "inputs": [a.key, b.key]}, Node(k, shape, dt, level, mag))

    def s_scalar(self):
        a = self.pick()
        if a is None:
            return None
        cands = ["add", "multiply", "subtract", "maximum", "minimum"]
        if a.level == 0:
            cands += ["power", "divide", "floor_divide", "mod", "less", "greater_equal", "equal"]
        elif a.dtype in FLOATS:
            cands += ["divide"]
        op = self.choice(cands)
        if a.dtype == "bool" and op in ("subtract", "floor_divide", "mod", "power"):
            op = "add"
        u = self.r.random()
        if op == "power":
            s = self.choice([0, 1, 2, 3, 2.0, 0.5]) if a.dtype != "bool" else self.choice([2, 1.5])
        elif op == "divide" and a.level > 0:
            s = self.choice([2, 0.5, -4.0, 3])
        elif u < 0.35:
            s = int(self.r.integers(-5, 6))
        elif u < 0.7:
            s = float(np.round(self.r.normal(0, 2), 2))
        elif u < 0.8:
            s = bool(self.chance(0.5))
        elif u < 0.9:
            s = self.choice([2 ** 31, -2 ** 31 - 1, 70000, 1e300, 3.5e38, 2 ** 40])
        else:
            s = self.choice([0, 0.0, -1, 1.5])
        if op == "multiply" and a.level > 0 and abs(float(s)) > 10:
            s = 3
        if isinstance(s, float) and abs(s) > 1e30 and (a.level > 0 or op in ("multiply", "power")):
            s = 2.5
        first = self.chance(0.3) and op not in ("power",)
        ins = [s, a.key] if first else [a.key, s]
        try:
            with np.errstate(all="ignore"):
                dt = np.result_type(np.zeros(1, a.dtype), s)
                if op in ("divide",) and dt.kind != "f":
                    dt = np.dtype("float64")
                if op in ("less", "greater_equal", "equal"):
                    dt = np.dtype("bool")
                if op == "power":
                    dt = np.power(np.zeros(1, a.dtype) if not first else s, s if not first else np.zeros(1, a.dtype)).dtype
        except Exception:
            return None
        dt = str(dt)
        if dt not in npref.DTYPES:
            return None
        sm = abs(float(s))
        mag = {"add": a.mag + sm, "subtract": a.mag + sm, "multiply": result_mag(a.mag, sm),
               "maximum": max(a.mag, sm), "minimum": max(a.mag, sm), "power": math.inf,
               "divide": math.inf if sm < 0.5 else a.mag / sm, "floor_divide": math.inf, "mod": math.inf,
               "less": 1, "greater_equal": 1, "equal": 1}[op]
        if op == "power" and isinstance(s, int) and a.dtype in INTS + ("bool",):
            mag = 2.0 ** 63
        level = a.level
        if op == "power" and dt in FLOATS:
            level = max(level, 1)
        if dt == "bool":
            level, mag = 0, 1
        if dt in INTS:
            mag = min(mag, 2.0 ** 63)
        k = self.key("s")
        return self.emit({"key": k, "op": op, "inputs": ins}, Node(k, a.shape, dt, level, mag))

    def rand_axis(self, nd, allow_list=True):
        u = self.r.random()
        if nd == 0 or u < 0.25:
            return None
        if u < 0.7 or not allow_list:
            ax = int(self.r.integers(0, nd))
            return ax - nd if self.chance(0.3) else ax
        axes = sorted(set(int(x) for x in self.r.integers(0, nd, int(self.r.integers(1, nd + 1)))))
        return [ax - nd if self.chance(0.3) else ax for ax in axes]

    def s_reduce(self):
        a = self.pick(lambda n: n.level <= 1 and (n.mag <= 1e6 or n.dtype not in FLOATS))
        if a is None:
            return None
        op = self.choice(["sum", "sum", "mean", "min", "max", "prod", "std", "var", "all", "any"])
        ax = self.rand_axis(a.ndim)
        axes = list(range(a.ndim)) if ax is None else [x % a.ndim for x in (ax if isinstance(ax, list) else [ax])]
        red = int(np.prod([a.shape[i] for i in axes])) if axes else 1
        if op in ("min", "max") and red == 0:
            op = "sum"
        if op == "prod" and (a.dtype in FLOATS and a.mag > 1.5 or a.level > 0):
            op = "max" if red else "sum"
        if op in ("all", "any") and a.level > 0:
            op = "sum"
        if self.chance(0.1):  # statistics: count_nonzero (exact inputs), ptp (not of bool)
            if a.level == 0:
                op = "count_nonzero"
            elif a.dtype != "bool" and red:
                op = "ptp"
        kd = bool(self.chance(0.3))
        p = {"key": self.key("r"), "op": op, "inputs": [a.key]}
        if ax is not None or self.chance(0.5):
            p["axis"] = ax
        if kd:
            p["keepdims"] = True
        if op in ("std", "var") and self.chance(0.5) and red > 2:
            p["ddof"] = int(self.r.integers(0, 2))
        shape = [1 if i in axes else d for i, d in enumerate(a.shape)] if kd else \
            [d for i, d in enumerate(a.shape) if i not in axes]
        if op in ("all", "any"):
            dt = "bool"
        elif op == "count_nonzero":
            dt = "int64"
        elif op in ("min", "max", "ptp"):
            dt = a.dtype
        elif op in ("sum", "prod"):
            dt = a.dtype if a.dtype in FLOATS or a.dtype == "int64" else "int64"
        else:
            dt = a.dtype if a.dtype in FLOATS else "float64"
        if dt in FLOATS and op not in ("min", "max", "ptp"):
            level = 2
        elif op in ("all", "any", "count_nonzero"):
            level = 0
        else:
            level = a.level
        mag = {"sum": a.mag * max(red, 1), "mean": a.mag, "min": a.mag, "max": a.mag, "prod": 2.0 ** 63,
               "std": a.mag * 2, "var": (a.mag * 2) ** 2, "all": 1, "any": 1,
               "count_nonzero": max(red, 1), "ptp": 2 * a.mag}[op]
        if dt in FLOATS and op == "prod":
            mag = 1.5 ** min(max(red, 1), 1500) if a.mag <= 1.5 else math.inf
        if dt in INTS:
            mag = min(mag, 2.0 ** 63)
        if op not in ("all", "any", "count_nonzero", "ptp") and self.chance(0.3):
            p["op"] = "nan" + op  # the same on data without NaN; NaN skipped else
        return self.emit(p, Node(p["key"], shape, dt, level, mag))

    def s_argred(self):
        a = self.pick(lambda n: n.level == 0 and n.size > 0)
        if a is None:
            return None
        op = self.choice(["argmin", "argmax"])
        p = {"key": self.key("g"), "op": op, "inputs": [a.key]}
        if a.ndim and self.chance(0.6):
            ax = int(self.r.integers(0, a.ndim))
            if a.shape[ax] == 0:
                return None
            p["axis"] = ax - a.ndim if self.chance(0.3) else ax
            shape = [d for i, d in enumerate(a.shape) if i != ax]
            if self.chance(0.3):
                p["keepdims"] = True
                shape = [1 if i == ax else d for i, d in enumerate(a.shape)]
        else:
            shape = []
        # nanargmin/nanargmax of floats: a slice of NaN only (a mod by a
        # zero broadcast over it) raises in numpy and fails the engine's
        # job alike, which this generator cannot tell from a wrong answer
        if a.dtype not in FLOATS and self.chance(0.3):
            p["op"] = "nan" + op
        return self.emit(p, Node(p["key"], shape, "int64", 0, max(a.shape + (1,))))

    def s_scan(self):
        a = self.pick(lambda n: n.level <= 1 and n.size <= 4000 and (n.mag <= 1e4 or n.dtype not in FLOATS))
        if a is None:
            return None
        op = self.choice(["cumsum", "cumsum", "cumprod"])
        if op == "cumprod" and (a.mag > 1.2 and a.dtype in FLOATS or a.level > 0):
            op = "cumsum"
        p = {"key": self.key("c"), "op": op, "inputs": [a.key]}
        if a.ndim and self.chance(0.7):
            ax = int(self.r.integers(0, a.ndim))
            p["axis"] = ax - a.ndim if self.chance(0.3) else ax
            shape = a.shape
        else:
            if self.chance(0.5):
                p["axis"] = None
            shape = (a.size,)
        dt = a.dtype if a.dtype in FLOATS or a.dtype == "int64" else "int64"
        level = 2 if dt in FLOATS else 0
        mag = a.mag * a.size if op == "cumsum" else (1.2 ** min(a.size, 3000) if dt in FLOATS else 2.0 ** 63)
        if self.chance(0.3):
            p["op"] = "nan" + op
        return self.emit(p, Node(p["key"], shape, dt, level, min(mag, 2.0 ** 63) if dt in INTS else mag))

    def s_linalg(self):
        a = self.pick(lambda n: n.ndim >= 1 and n.level <= 1 and (n.mag <= 1e3 or n.dtype not in FLOATS)
                      and n.mag < math.inf)
        if a is None:
            return None
        op = self.choice(["matmul", "dot", "inner", "tensordot", "outer", "matmul"])
        dt_b = self.choice([a.dtype, a.dtype, "float64", "float32", "int32", "bool"])
        s = list(a.shape)
        m = int(self.r.integers(0, 12)) if self.chance(0.1) else int(self.r.integers(1, 30))
        p = {"key": self.key("m"), "op": op}
        if op in ("matmul", "dot"):
            k = s[-1]
            if a.ndim == 1:
                bshape = [k, m] if self.chance(0.7) else [k]
            elif op == "matmul" and a.ndim == 3 and self.chance(0.5):
                bshape = [self.choice([1, s[0]]), k, m]
            else:
                bshape = [k, m] if self.chance(0.8) else [k]
            if op == "dot" and a.ndim >= 2 and self.chance(0.2):
                bshape = [int(self.r.integers(1, 4)), k, m]
        elif op == "inner":
            k = s[-1]
            bshape = [m, k] if self.chance(0.7) else [k]
        elif op == "outer":
            bshape = [m]
        else:
            n_ax = int(self.r.integers(0, min(a.ndim, 2) + 1))
            if n_ax == 0 and a.size * m > MAX_ELEMS:
                n_ax = 1
            cont = s[a.ndim - n_ax:]
            if self.chance(0.5) and n_ax >= 1:
                # explicit axes: contract a's first axis with b's last
                ax_a = [0]
                bshape = [m, s[0]]
                p["axes"] = [ax_a, [1]]
                cont = [s[0]]
            else:
                bshape = cont + [m]
                p["axes"] = n_ax
        b = self.leaf(bshape, dt_b)
        if b.mag > 1e3 and b.dtype in FLOATS:
            return None
        va = np.zeros(a.shape, a.dtype)
        vb = np.zeros(b.shape, b.dtype)
        try:
            fn = {"matmul": np.matmul, "dot": np.dot, "inner": np.inner, "outer": np.outer}.get(op)
            r = fn(va, vb) if fn else np.tensordot(va, vb, axes=tuple(p["axes"]) if isinstance(p["axes"], list) else p["axes"])
        except ValueError:
            return None
        r = np.asarray(r)
        if r.size > MAX_ELEMS * 2:
            return None
        p["inputs"] = [a.key, b.key]
        dt = str(r.dtype)
        level = 2 if dt in FLOATS else 0
        mag = a.mag * b.mag * max(s[-1], 1) * 4
        if dt in INTS:
            mag = min(mag, 2.0 ** 63)
        return self.emit(p, Node(p["key"], r.shape, dt, level, mag))

    def s_shape(self):
        a = self.pick()
        if a is None:
            return None
        ops = ["transpose", "reshape", "ravel", "getitem", "getitem", "rechunk", "expand_dims"]
        if 1 in a.shape:
            ops.append("squeeze")
        # the second wave: shape ops computed with numpy itself below
        ops += ["flip", "atleast_2d", "like"]
        if a.ndim >= 2:
            ops += ["swapaxes", "moveaxis", "fliplr"]
        if a.ndim >= 1 and a.dtype != "bool":
            ops += ["diff"]
        op = self.choice(ops)
        p = {"key": self.key("h"), "op": op, "inputs": [a.key]}
        s = list(a.shape)
        if op == "diff":
            p["n"] = int(self.r.integers(0, 3))
            p["axis"] = int(self.r.integers(-a.ndim, a.ndim))
            shape = list(np.diff(np.zeros(s), n=p["n"], axis=p["axis"]).shape)
            return self.emit(p, Node(p["key"], shape, a.dtype, a.level,
                                     min(a.mag * 4, 2.0 ** 63) if a.dtype in INTS else a.mag * 4))
        if op in ("flip", "atleast_2d", "swapaxes", "moveaxis", "fliplr", "like"):
            z = np.zeros(s, dtype=bool)
            dt = a.dtype
            level, mag = a.level, a.mag
            if op == "flip":
                if a.ndim and self.chance(0.6):
                    p["axis"] = int(self.r.integers(-a.ndim, a.ndim))
                shape = s
            elif op == "swapaxes":
                p["axis1"], p["axis2"] = [int(x) for x in self.r.integers(-a.ndim, a.ndim, 2)]
                shape = list(np.swapaxes(z, p["axis1"], p["axis2"]).shape)
            elif op == "moveaxis":
                k = int(self.r.integers(1, a.ndim + 1))
                p["source"] = [int(x) for x in self.r.permutation(a.ndim)[:k]]
                p["destination"] = [int(x) for x in self.r.permutation(a.ndim)[:k]]
                shape = list(np.moveaxis(z, p["source"], p["destination"]).shape)
            elif op == "like":
                p["op"] = self.choice(["ones_like", "zeros_like", "full_like", "empty_like"])
                if p["op"] == "full_like":
                    p["fill_value"] = self.choice([2, -1.5, True])
                if self.chance(0.3):
                    dt = self.choice(["int32", "float64", "bool"])
                    p["dtype"] = dt
                shape, level, mag = s, 0, 2
            else:
                shape = list(getattr(np, op)(z).shape)
            return self.emit(p, Node(p["key"], shape, dt, level, mag))
        if op == "transpose":
            if self.chance(0.4):
                shape = s[::-1]
                if self.chance(0.5):
                    p["axes"] = None
            else:
                perm = [int(x) for x in self.r.permutation(a.ndim)]
                p["axes"] = perm
                shape = [s[i] for i in perm]
        elif op == "reshape":
            shape = self.factor(a.size)
            ns = list(shape)
            if ns and self.chance(0.4) and a.size > 0:
                ns[int(self.r.integers(len(ns)))] = -1
            p["newshape"] = ns
        elif op == "ravel":
            shape = [a.size]
        elif op == "squeeze":
            ones = [i for i, d in enumerate(s) if d == 1]
            if self.chance(0.4):
                shape = [d for d in s if d != 1]
            else:
                ax = self.choice(ones)
                p["axis"] = ax
                shape = [d for i, d in enumerate(s) if i != ax]
        elif op == "expand_dims":
            if a.ndim >= 4:
                return None
            ax = int(self.r.integers(0, a.ndim + 1))
            p["axis"] = ax
            shape = s[:ax] + [1] + s[ax:]
        elif op == "rechunk":
            ch = self.rand_chunks(s) or 3
            p["chunk_size"] = ch
            shape = s
        else:  # getitem
            if a.ndim == 0:
                return None
            idx = []
            for d in s[:int(self.r.integers(1, a.ndim + 1))]:
                if d > 0 and self.chance(0.25):
                    i = int(self.r.integers(-d, d))
                    idx.append(i)
                else:
                    st = self.choice([1, 1, 2, 3, -1, -2])
                    lo = self.choice(["", str(int(self.r.integers(-d - 2, d + 3)))])
                    hi = self.choice(["", str(int(self.r.integers(-d - 2, d + 3)))])
                    idx.append("%s:%s%s" % (lo, hi, "" if st == 1 and self.chance(0.5) else ":%d" % st))
            p["index"] = idx
            shape = list(np.zeros(s, dtype=bool)[npref.to_index(idx)].shape)
        return self.emit(p, Node(p["key"], shape, a.dtype, a.level, a.mag))

    def factor(self, n):
        if n == 0:
            return self.choice([[0], [0, 3], [2, 0]])
        nd = self.choice([1, 2, 2, 3])
        dims = []
        rest = n
        for _ in range(nd - 1):
            divs = [d for d in range(1, min(rest, MAX_DIM) + 1) if rest % d == 0]
            d = self.choice(divs)
            dims.append(d)
            rest //= d
        dims.append(rest)
        return dims

    def s_concat(self):
        a = self.pick(lambda n: n.ndim >= 1)
        if a is None:
            return None
        if self.chance(0.5):
            ax = int(self.r.integers(0, a.ndim))
            parts = [a]
            for _ in range(int(self.r.integers(1, 3))):
                s = list(a.shape)
                s[ax] = int(self.r.integers(0, 12))
                if int(np.prod(s)) > MAX_ELEMS // 3:
                    return None
                parts.append(self.leaf(s) if self.chance(0.8) else a)
            self.r.shuffle(parts)
            shape = list(a.shape)
            shape[ax] = sum(p.shape[ax] for p in parts)
            axp = ax - a.ndim if self.chance(0.3) else ax
            p = {"key": self.key("k"), "op": "concatenate", "inputs": [x.key for x in parts]}
            if axp != 0 or self.chance(0.5):
                p["axis"] = axp
        else:
            if a.size * 3 > MAX_ELEMS or a.ndim >= 3:
                return None
            parts = [a] + [self.leaf(list(a.shape)) if self.chance(0.7) else a
                           for _ in range(int(self.r.integers(1, 3)))]
            ax = int(self.r.integers(0, a.ndim + 1))
            shape = list(a.shape[:ax]) + [len(parts)] + list(a.shape[ax:])
            p = {"key": self.key("k"), "op": "stack", "inputs": [x.key for x in parts], "axis": ax}
        dt = str(np.result_type(*[np.dtype(x.dtype) for x in parts]))
        return self.emit(p, Node(p["key"], shape, dt, max(x.level for x in parts), max(x.mag for x in parts)))

    # -- the second wave: sort, take, the stacks (exact: the level is kept)
    def s_sort(self):
        a = self.pick(lambda n: n.ndim >= 1)
        if a is None:
            return None
        ax = self.choice([None, -1, 0, a.ndim - 1, "default"])
        k = self.key("so")
        p = {"key": k, "op": "sort", "inputs": [a.key]}
        if ax != "default":
            p["axis"] = ax
        shape = (a.size,) if ax is None else a.shape
        # -0.0 and 0.0 are equal to a sort, so where each lands is the
        # algorithm's: float results are no longer exact for floor, 1/x...
        level = max(a.level, 1) if a.dtype in FLOATS else a.level
        return self.emit(p, Node(k, shape, a.dtype, level, a.mag))

    def s_take(self):
        a = self.pick(lambda n: n.ndim >= 1 and n.size > 0)
        if a is None:
            return None
        ax = self.choice([None, 0, a.ndim - 1, -1])
        n = a.size if ax is None else a.shape[ax]
        if n == 0:
            return None
        ishape = self.choice([[int(self.r.integers(0, 9))], [2, 3], []])
        idx = self.r.integers(-n, n, ishape).astype(np.int64)
        ik = self.key("ix")
        inode = {"key": ik, "op": "array", "data": idx.tolist() if ishape else [int(idx)],
                 "dtype": "int64"}
        if ishape:
            inode["chunk_size"] = int(self.r.integers(1, max(ishape) + 2))
        else:
            inode = {"key": ik, "op": "full", "shape": [], "fill_value": int(idx), "dtype": "int64"}
        self.nodes.append(inode)
        if ax is None:
            shape = tuple(ishape)
        else:
            axp = ax % a.ndim
            shape = a.shape[:axp] + tuple(ishape) + a.shape[axp + 1:]
        if int(np.prod(shape)) > MAX_ELEMS:
            return None
        k = self.key("tk")
        p = {"key": k, "op": "take", "inputs": [a.key, ik]}
        if ax is not None or self.chance(0.5):
            p["axis"] = ax
        return self.emit(p, Node(k, shape, a.dtype, a.level, a.mag))

    def s_stack2(self):
        a = self.pick(lambda n: n.ndim in (1, 2) and n.size * 3 <= MAX_ELEMS)
        if a is None:
            return None
        op = self.choice(["hstack", "vstack", "column_stack", "dstack"])
        parts = [a]
        for _ in range(int(self.r.integers(1, 3))):
            s = list(a.shape)
            if op == "hstack":
                s[-1] = int(self.r.integers(0, 9)) if a.ndim == 2 or self.chance(0.5) else s[-1]
            elif op == "vstack" and a.ndim == 2:
                s[0] = int(self.r.integers(0, 9))
            parts.append(self.leaf(s) if self.chance(0.8) else a)
        try:
            want = getattr(np, op)([np.zeros(p.shape, p.dtype) for p in parts])
        except ValueError:
            return None
        if want.size > MAX_ELEMS:
            return None
        k = self.key("st")
        return self.emit({"key": k, "op": op, "inputs": [p.key for p in parts]},
                         Node(k, want.shape, str(want.dtype), max(p.level for p in parts),
                              max(p.mag for p in parts)))

    def s_where(self):
        c = self.pick(lambda n: n.level == 0)
        if c is None:
            return None
        x = self.partner(c)
        y = self.partner(c) if self.chance(0.7) else float(np.round(self.r.normal(), 2))
        xs = x.key if self.chance(0.85) else int(self.r.integers(-3, 4))
        ins = [c.key, xs, y.key if isinstance(y, Node) else y]
        arrs = [n for n in (c, x if not isinstance(xs, int) else None, y if isinstance(y, Node) else None) if n]
        try:
            shape = np.broadcast_shapes(*[n.shape for n in arrs])
            dt = np.where(np.zeros(1, bool), np.zeros(1, x.dtype) if not isinstance(xs, int) else xs,
                          np.zeros(1, y.dtype) if isinstance(y, Node) else y).dtype
        except ValueError:
            return None
        if int(np.prod(shape)) > MAX_ELEMS:
            return None
        vals = [n for n in arrs[1:]]
        level = max([n.level for n in vals] + [0])
        mag = max([n.mag for n in vals] + [4])
        k = self.key("w")
        return self.emit({"key": k, "op": "where", "inputs": ins}, Node(k, shape, str(dt), level, mag))

    def s_clip(self):
        a = self.pick(lambda n: n.dtype != "bool")
        if a is None:
            return None
        lo = float(np.round(self.r.normal(-1, 2), 1)) if self.chance(0.5) else int(self.r.integers(-5, 1))
        hi = lo + (float(np.round(self.r.random() * 4, 1)) if self.chance(0.5) else int(self.r.integers(0, 6)))
        p = {"key": self.key("p"), "op": "clip", "inputs": [a.key]}
        u = self.r.random()
        if u < 0.2:
            p["a_min"] = None
            p["a_max"] = hi
            lo = None
        elif u < 0.4:
            p["a_min"] = lo
            hi = None
        else:
            p["a_min"], p["a_max"] = lo, hi
        bounds = [v for v in (lo, hi) if v is not None]
        dt = str(np.clip(np.zeros(1, a.dtype), lo, hi).dtype)
        mag = max([abs(v) for v in bounds] + [0])
        if lo is None or hi is None:
            mag = max(a.mag, mag)
        return self.emit(p, Node(p["key"], a.shape, dt, a.level, mag))

    def s_astype(self):
        a = self.pick()
        if a is None:
            return None
        if a.level > 0 or a.mag == math.inf:
            to = self.choice(FLOATS)
        else:
            to = self.choice(["bool", "int32", "int64", "float32", "float64"]
                             + (list(SMALL_INTS) if self.small else []))
        if to in INTS and a.dtype in FLOATS and a.mag > 2e9:
            to = "float64"
        k = self.key("t")
        mag = {"bool": 1}.get(to, a.mag)
        lvl = a.level if to in FLOATS else 0
        if to == "float32" and a.dtype == "float64" and a.level == 0 and a.mag > 3e38:
            mag = math.inf
        return self.emit({"key": k, "op": "astype", "inputs": [a.key], "dtype": to},
                         Node(k, a.shape, to, lvl, mag))

    def build(self, n_ops):
        self.leaf()
        tries = 0
        while len(self.nodes) < n_ops and tries < n_ops * 6:
            tries += 1
            try:
                self.step()
            except (ValueError, OverflowError):
                pass
        last = self.nodes[-1]["key"]
        inner = [n.key for n in self.pool[:-1] if n.key != last]
        fetch = [last]
        for k in self.r.permutation(inner)[:int(self.r.integers(0, 3))]:
            fetch.append(str(k))
        # The document lists nodes shuffled now and then: order is free.
        nodes = list(self.nodes)
        if self.chance(0.2):
            self.r.shuffle(nodes)
        return {"version": 1, "nodes": nodes, "fetch": fetch}


def _broadcastable(s1, s2):
    try:
        np.broadcast_shapes(s1, s2)
        return True
    except ValueError:
        return False


def fake_random(doc):
    """Random values standing in for mars-run's, to validate generated docs."""
    out = {}
    g = np.random.default_rng(0)
    for n in doc["nodes"]:
        if n["op"] in npref.RANDOM_OPS:
            shape = npref._shape(n["shape"])
            if n["op"] == "random.randint":
                out[n["key"]] = g.integers(n.get("low", 0), n["high"], shape).astype(n.get("dtype", "int64"))
            else:
                out[n["key"]] = g.normal(0, 1, shape)
    return out


def generate(seed, count, small=False):
    """count graphs; small: astype draws the small integer dtypes too, and
    every node (not only those the fetch list needs) must be one numpy
    takes, since mars-run validates them all."""
    rng = np.random.default_rng(seed)
    docs = []
    discarded = 0
    while len(docs) < count:
        g = Gen(rng, len(docs), small)
        d = g.build(int(rng.integers(4, 20)))
        try:
            npref.evaluate(d, random_values=fake_random(d), all=small)
        except npref.Rejected as e:
            discarded += 1
            if os.environ.get("MARS_DIFF_VERBOSE"):
                print("# discarded: %s" % e)
            continue
        docs.append(d)
    return docs, discarded


def main():
    seed = int(os.environ.get("MARS_DIFF_SEED", "20240607"))
    count = int(os.environ.get("MARS_DIFF_GRAPHS", "300"))
    suite = harness.Suite("test_random_graphs")
    print("# seed %d (MARS_DIFF_SEED), %d graphs (MARS_DIFF_GRAPHS)" % (seed, count), flush=True)
    harness.require_mars_run(suite)
    docs, discarded = generate(seed, count)
    n_nodes = sum(len(d["nodes"]) for d in docs)
    print("# %d graphs, %d nodes (%d generated graphs discarded: numpy refuses them)"
          % (len(docs), n_nodes, discarded), flush=True)
    cases = [harness.Case("graph-%d-%d" % (seed, i), d) for i, d in enumerate(docs)]
    # graphs whose astypes also make the small integer dtypes
    sseed = int(os.environ.get("MARS_DIFF_SMALL_SEED", "20261127"))
    sdocs, sdisc = generate(sseed, max(count // 3, 1), small=True)
    print("# %d graphs with small integer dtypes (seed %d, MARS_DIFF_SMALL_SEED; %d discarded)"
          % (len(sdocs), sseed, sdisc), flush=True)
    cases += [harness.Case("small-%d-%d" % (sseed, i), d) for i, d in enumerate(sdocs)]
    harness.run_cases(suite, cases)
    suite.finish()


if __name__ == "__main__":
    main()
