"""npref: a reference evaluator of graph documents (shared/spec/graph-format.md,
tensor part) written with numpy 1.24 alone.

    values = evaluate(doc, random_values={"r": array_from_mars_run})

computes every node the fetch list needs (or every node with all=True) and
returns {key: numpy.ndarray}; 0-d results are 0-d arrays, never numpy scalars.

Random ops have no numpy equivalent (the engine's streams are Philox-based):
their values must be supplied in random_values, read back from mars-run.

A document numpy refuses (a TypeError, a shape mismatch, an empty min, a
result dtype outside the contract's such as numpy's float16 for
sqrt(bool) or sqrt(int8)) raises Rejected naming the node, so a
caller can expect mars-run to reject it too (exit 2).

Two rules go beyond a plain numpy transcription, because a graph engine has to
know dtypes before it runs:
  * A 0-d tensor produced by a node (sum with axis null, say) takes part in
    type promotion by its dtype, never by its value (its value is unknown
    before running); only JSON scalars in `inputs` (and clip's bounds) are
    Python scalars with numpy's value-based casting. numpy itself would look
    at a 0-d array's value when an operand has ndim > 0 (int32 array + 0-d
    int64 of value 5 is int32 in numpy, int64 here, as in dask and Mars).
  * Scalars-only inputs (["add", 1, 2]) give a 0-d array, as np.add(1, 2).

Besides values, evaluate(..., scales=out) fills out[key] with (scale, rtol)
for nodes whose value depends on an inexact computation (float reductions,
products, transcendental functions): scale is the largest magnitude seen
along the inexact path that led to the node, rtol the relative precision of
the roughest step on it (1e-4 once a float32 computation took part, even if
the node itself is float64). The harness turns them into tolerances, since a
chunked sum may legitimately differ from numpy's pairwise sum by a few ulps of
its terms' magnitude.
"""

import json
import warnings

import numpy as np

DTYPES = {
    "bool": np.dtype(np.bool_),
    "int32": np.dtype(np.int32),
    "int64": np.dtype(np.int64),
    "float32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
    "int8": np.dtype(np.int8),
    "int16": np.dtype(np.int16),
    "uint8": np.dtype(np.uint8),
    "uint16": np.dtype(np.uint16),
    "uint32": np.dtype(np.uint32),
    "uint64": np.dtype(np.uint64),
}
CONTRACT_DTYPES = set(DTYPES.values())

LIKE_OPS = {"ones_like", "zeros_like", "empty_like", "full_like"}
CREATION_OPS = {"ones", "zeros", "full", "arange", "linspace", "eye", "array", "empty",
                "identity"} | LIKE_OPS
RANDOM_OPS = {"random.rand", "random.randn", "random.randint", "random.uniform", "random.normal"}
BINARY_OPS = {
    "add", "subtract", "multiply", "divide", "floor_divide", "mod", "power", "maximum",
    "minimum", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or",
    "arctan2", "hypot", "fmod", "remainder", "fmax", "fmin", "copysign", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "float_power",
    "heaviside", "isclose",
}
UNARY_OPS = {
    "negative", "abs", "sqrt", "exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh",
    "square", "sign", "floor", "ceil", "logical_not", "isnan", "isfinite",
    "log2", "log10", "exp2", "cbrt", "reciprocal", "positive", "arcsin", "arccos", "arctan",
    "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "degrees", "radians", "rint", "trunc", "fix",
    "isinf", "isneginf", "isposinf", "signbit", "invert",
}
ROUND_OPS = {"round", "around"}
OTHER_EW_OPS = {"where", "clip", "astype"} | ROUND_OPS
ELEMENTWISE_OPS = BINARY_OPS | UNARY_OPS | OTHER_EW_OPS
NAN_REDUCE_OPS = {"nansum", "nanprod", "nanmean", "nanmin", "nanmax", "nanstd", "nanvar"}
REDUCE_OPS = {"sum", "prod", "mean", "min", "max", "std", "var", "all", "any", "count_nonzero",
              "ptp"} | NAN_REDUCE_OPS
ARG_OPS = {"argmin", "argmax", "nanargmin", "nanargmax"}
SCAN_OPS = {"cumsum", "cumprod", "nancumsum", "nancumprod"}
LINALG_OPS = {"dot", "matmul", "inner", "outer", "tensordot"}
SHAPE_OPS = {
    "transpose", "reshape", "ravel", "squeeze", "expand_dims", "concatenate", "stack",
    "rechunk", "getitem", "swapaxes", "moveaxis", "flip", "fliplr", "flipud", "atleast_1d",
    "atleast_2d", "atleast_3d", "diff", "ediff1d",
}
ALL_OPS = (CREATION_OPS | RANDOM_OPS | ELEMENTWISE_OPS | REDUCE_OPS | ARG_OPS | SCAN_OPS
           | LINALG_OPS | SHAPE_OPS)

# Ops whose float results numpy and a chunked engine may round differently.
INEXACT_UNARY = {"exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh",
                 "log2", "log10", "exp2", "cbrt", "arcsin", "arccos", "arctan", "sinh", "cosh",
                 "arcsinh", "arccosh", "arctanh", "degrees", "radians"}
INEXACT_OPS = INEXACT_UNARY | {"power", "float_power", "arctan2", "hypot"} \
    | REDUCE_OPS - {"min", "max", "all", "any", "nanmin", "nanmax", "count_nonzero", "ptp"} \
    | SCAN_OPS | LINALG_OPS \
    | {"linspace", "arange"}

# Parameters each op may carry besides key, op and inputs (for doc checks).
PARAMS = {
    "ones": {"shape", "dtype", "chunk_size"},
    "zeros": {"shape", "dtype", "chunk_size"},
    "full": {"shape", "fill_value", "dtype", "chunk_size"},
    "arange": {"start", "stop", "step", "dtype", "chunk_size"},
    "linspace": {"start", "stop", "num", "endpoint", "chunk_size"},
    "eye": {"N", "M", "k", "dtype", "chunk_size"},
    "array": {"data", "dtype", "chunk_size"},
    "empty": {"shape", "dtype", "chunk_size"},
    "identity": {"n", "dtype", "chunk_size"},
    "ones_like": {"shape", "dtype", "chunk_size"},
    "zeros_like": {"shape", "dtype", "chunk_size"},
    "empty_like": {"shape", "dtype", "chunk_size"},
    "full_like": {"shape", "fill_value", "dtype", "chunk_size"},
    "random.rand": {"shape", "seed", "chunk_size"},
    "random.randn": {"shape", "seed", "chunk_size"},
    "random.randint": {"shape", "seed", "chunk_size", "low", "high", "dtype"},
    "random.uniform": {"shape", "seed", "chunk_size", "low", "high"},
    "random.normal": {"shape", "seed", "chunk_size", "loc", "scale"},
    "clip": {"a_min", "a_max"},
    "astype": {"dtype"},
    "argmin": {"axis", "keepdims"},
    "argmax": {"axis", "keepdims"},
    "cumsum": {"axis"},
    "cumprod": {"axis"},
    "nancumsum": {"axis"},
    "nancumprod": {"axis"},
    "nanargmin": {"axis", "keepdims"},
    "nanargmax": {"axis", "keepdims"},
    "tensordot": {"axes"},
    "transpose": {"axes"},
    "reshape": {"newshape"},
    "ravel": set(),
    "squeeze": {"axis"},
    "expand_dims": {"axis"},
    "concatenate": {"axis"},
    "stack": {"axis"},
    "rechunk": {"chunk_size"},
    "getitem": {"index"},
    "round": {"decimals"},
    "swapaxes": {"axis1", "axis2"},
    "moveaxis": {"source", "destination"},
    "flip": {"axis"},
    "fliplr": set(),
    "flipud": set(),
    "atleast_1d": set(),
    "atleast_2d": set(),
    "atleast_3d": set(),
    "diff": {"n", "axis"},
    "ediff1d": set(),
    "around": {"decimals"},
}
for _op in REDUCE_OPS:
    PARAMS[_op] = {"axis", "keepdims"} | ({"ddof"} if _op in ("std", "var", "nanstd", "nanvar")
                                          else set())
PARAMS["isclose"] = {"rtol", "atol", "equal_nan"}
for _op in BINARY_OPS | UNARY_OPS | {"where"} | {"dot", "matmul", "inner", "outer"}:
    PARAMS.setdefault(_op, set())


# linalg branch: single-result linear algebra (numpy's own functions)
LA_BRANCH_PARAMS = {
    "linalg.cholesky": set(), "linalg.solve": set(), "linalg.inv": set(), "linalg.det": set(),
    "linalg.norm": {"ord", "axis", "keepdims"}, "linalg.matrix_rank": {"tol", "hermitian"},
    "trace": {"offset", "axis1", "axis2", "dtype"}, "diagonal": {"offset", "axis1", "axis2"},
    "vdot": set(), "einsum": {"subscripts", "optimize"}, "diag": {"k"}, "tril": {"k"},
    "triu": {"k"},
}
LA_BRANCH_OPS = set(LA_BRANCH_PARAMS)
ALL_OPS = ALL_OPS | LA_BRANCH_OPS
PARAMS.update(LA_BRANCH_PARAMS)

# Second-wave ops the random-graph generator draws (numpy's function of the
# same name; sort, take and the stacks are exact).
WAVE2_PARAMS = {"sort": {"axis"}, "take": {"axis"}, "hstack": set(), "vstack": set(),
                "column_stack": set(), "dstack": set()}
WAVE2_OPS = set(WAVE2_PARAMS)
ALL_OPS = ALL_OPS | WAVE2_OPS
PARAMS.update(WAVE2_PARAMS)


def _eval_wave2(node, ins):
    op = node["op"]
    if any(not isinstance(x, np.ndarray) for x in ins):
        raise Rejected("%s takes tensors" % op)
    if op == "sort":
        if len(ins) != 1:
            raise Rejected("sort takes 1 input")
        return np.sort(ins[0], axis=node.get("axis", -1))
    if op == "take":
        if len(ins) != 2 or ins[1].dtype.kind not in "iu":
            raise Rejected("take takes a tensor and integer indices")
        return np.take(ins[0], ins[1], axis=node.get("axis"))
    return getattr(np, op)(ins)


def _eval_la(node, ins):
    op = node["op"]
    try:
        if op == "einsum":
            if "subscripts" not in node:
                raise Rejected('"subscripts" is missing')
            return np.asarray(np.einsum(node["subscripts"], *ins)).copy()
        if op in ("linalg.solve", "vdot"):
            if len(ins) != 2:
                raise Rejected("%s takes 2 inputs" % op)
            fn = np.vdot if op == "vdot" else np.linalg.solve
            return np.asarray(fn(ins[0], ins[1])).copy()
        if len(ins) != 1:
            raise Rejected("%s takes 1 input" % op)
        a = ins[0]
        if op == "linalg.norm":
            o = node.get("ord")
            o = {"inf": np.inf, "-inf": -np.inf}.get(o, o) if isinstance(o, str) else o
            ax = node.get("axis")
            return np.asarray(np.linalg.norm(a, o, tuple(ax) if isinstance(ax, list) else ax,
                                             node.get("keepdims", False)))
        if op == "linalg.matrix_rank":
            return np.asarray(np.linalg.matrix_rank(a, node.get("tol"),
                                                    node.get("hermitian", False)))
        if op in ("trace", "diagonal"):
            kw = dict(offset=node.get("offset", 0), axis1=node.get("axis1", 0),
                      axis2=node.get("axis2", 1))
            if op == "trace":
                return np.asarray(np.trace(a, dtype=_dtype(node), **kw))
            return np.diagonal(a, **kw).copy()
        if op in ("diag", "tril", "triu"):
            return np.asarray(getattr(np, op)(a, node.get("k", 0))).copy()
        return np.asarray(getattr(np.linalg, op.split(".")[1])(a)).copy()
    except (ValueError, TypeError, np.AxisError, np.linalg.LinAlgError) as e:
        raise Rejected(str(e))


# Relative tolerance of a value computed inexactly in each float dtype.
RTOL_OF = {np.dtype(np.float64): 1e-6, np.dtype(np.float32): 1e-4}


class Rejected(Exception):
    """numpy (or the contract) refuses this document: mars-run must exit 2."""


def is_scalar(x):
    return isinstance(x, (bool, int, float)) and not isinstance(x, str)


def parse_slice(s):
    parts = s.split(":")
    if len(parts) not in (2, 3):
        raise Rejected("bad slice %r" % s)
    vals = []
    for p in parts:
        p = p.strip()
        vals.append(int(p) if p else None)
    if len(vals) == 3 and vals[2] == 0:
        raise Rejected("slice step cannot be zero")
    return slice(*vals)


def to_index(index):
    out = []
    for e in index:
        if isinstance(e, bool):
            raise Rejected("bool index")
        if isinstance(e, int):
            out.append(e)
        elif e is None:
            out.append(None)  # numpy.newaxis
        elif e == "...":
            out.append(Ellipsis)
        elif isinstance(e, str):
            out.append(parse_slice(e))
        else:
            raise Rejected("bad index entry %r" % (e,))
    return tuple(out)


def _axis(v):
    if v is None:
        return None
    if isinstance(v, list):
        return tuple(v)
    return v


def _dtype(node, default=None):
    name = node.get("dtype")
    if name is None:
        return default
    if name not in DTYPES:
        raise Rejected("unknown dtype %r" % name)
    return DTYPES[name]


def _shape(v):
    if isinstance(v, int):
        return (v,)
    return tuple(v)


def ew_call(fn, args, promo=None):
    """Calls a numpy function element-wise with numpy broadcasting, where 0-d
    arrays count by dtype (not value) in type promotion: they are lifted to
    shape (1,) for the call and the result reshaped to the broadcast shape.
    promo: the indexes of the operands that take part in promotion (where's
    condition does not), default all."""
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    promo_arrays = [a for i, a in enumerate(args)
                    if isinstance(a, np.ndarray) and (promo is None or i in promo)]
    # With no promoting operand of ndim > 0 numpy uses no value-based casting
    # at all: 0-d arrays and Python scalars promote by dtype (default
    # int64/float64), and numpy's own call gives that.
    if any(a.ndim == 0 for a in promo_arrays) and any(a.ndim > 0 for a in promo_arrays):
        shape = np.broadcast_shapes(*[a.shape for a in arrays])
        lifted = [a.reshape(1) if isinstance(a, np.ndarray) and a.ndim == 0 else a for a in args]
        r = np.asarray(fn(*lifted))
        return r.reshape(shape)
    return np.asarray(fn(*args))


def topo_order(doc):
    nodes = doc["nodes"]
    by_key = {}
    for n in nodes:
        if n["key"] in by_key:
            raise Rejected("duplicate key %r" % n["key"])
        by_key[n["key"]] = n
    order, state = [], {}

    def visit(k):
        st = state.get(k)
        if st == 2:
            return
        if st == 1:
            raise Rejected("cycle through %r" % k)
        if k not in by_key:
            raise Rejected("missing input %r" % k)
        state[k] = 1
        for i in by_key[k].get("inputs", []) or []:
            if isinstance(i, str):
                visit(i)
        state[k] = 2
        order.append(k)

    for n in nodes:
        visit(n["key"])
    return order, by_key


def _maxabs(a):
    if a.dtype.kind != "f" or a.size == 0:
        return 0.0
    f = np.abs(a[np.isfinite(a)])
    return float(f.max()) if f.size else 0.0


def evaluate(doc, random_values=None, all=False, scales=None, perturb=False):
    """Evaluates the document. random_values: {key: array} for random nodes.
    scales: a dict to fill with error scales of inexact nodes (see module doc).
    perturb: compute float sums and products another way (float64/longdouble
    accumulation), to emulate a correct engine that rounds differently; used
    to check that the harness's tolerances hold for correct results."""
    if isinstance(doc, (str, bytes)):
        doc = json.loads(doc)
    random_values = random_values or {}
    order, by_key = topo_order(doc)
    need = set(by_key) if all else set()
    if not all:
        stack = list(doc.get("fetch", []))
        while stack:
            k = stack.pop()
            if k in need:
                continue
            if k not in by_key:
                raise Rejected("fetch of unknown key %r" % k)
            need.add(k)
            stack.extend(i for i in by_key[k].get("inputs", []) or [] if isinstance(i, str))
    vals = {}
    inexact = {}
    sc = scales if scales is not None else {}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for k in order:
            if k not in need:
                continue
            node = by_key[k]
            ins = [vals[i] if isinstance(i, str) else i for i in node.get("inputs", []) or []]
            try:
                v = _eval_node(node, ins, random_values, perturb)
            except Rejected as e:
                raise Rejected('node "%s" (%s): %s' % (k, node.get("op"), e)) from None
            except (ValueError, TypeError, IndexError, np.AxisError, OverflowError,
                    MemoryError) as e:
                raise Rejected('node "%s" (%s): %s' % (k, node.get("op"), e)) from None
            v = np.asarray(v)
            if v.dtype not in CONTRACT_DTYPES:
                raise Rejected('node "%s" (%s): numpy gives dtype %s, outside the contract'
                               % (k, node.get("op"), v.dtype))
            vals[k] = v
            in_keys = [i for i in node.get("inputs", []) or [] if isinstance(i, str)]
            op = node["op"]
            own = op in INEXACT_OPS and v.dtype.kind == "f"
            if op in ("mean", "std", "var", "sum", "prod") \
                    or op in NAN_REDUCE_OPS - {"nanmin", "nanmax"} \
                    or op in LINALG_OPS \
                    or op in SCAN_OPS:
                own = own or v.dtype.kind == "f"
            up = [i for i in in_keys if inexact.get(i)]
            inexact[k] = own or bool(up)
            if inexact[k]:
                s = _maxabs(v)
                for i in up:
                    s = max(s, sc[i][0] if i in sc else 0.0)
                if own:
                    for i in in_keys:
                        s = max(s, _maxabs(vals[i].astype(np.float64))
                                if vals[i].dtype.kind in "biu" else _maxabs(vals[i]))
                    if op in ("sum", "mean", "std", "var", "nansum", "nanmean", "nanstd",
                              "nanvar") or op in LINALG_OPS or op in ("cumsum", "nancumsum"):
                        # the magnitude of partial sums, not only of terms
                        s = max(s, _partial_scale(node, ins))
                # the precision of the roughest inexact step on the way
                rt = RTOL_OF.get(v.dtype, 1e-6) if own else 0.0
                for i in up:
                    rt = max(rt, sc[i][1] if i in sc else 0.0)
                sc[k] = (s, rt or RTOL_OF.get(v.dtype, 1e-6))
    return {k: vals[k] for k in vals}


def _partial_scale(node, ins):
    try:
        a = ins[0]
        if not isinstance(a, np.ndarray) or a.size == 0:
            return 0.0
        x = np.abs(a.astype(np.float64))
        x = x[np.isfinite(x)]
        if node["op"] in LINALG_OPS and len(ins) > 1 and isinstance(ins[1], np.ndarray):
            b = np.abs(ins[1].astype(np.float64))
            b = b[np.isfinite(b)]
            if x.size == 0 or b.size == 0:
                return 0.0
            k = max(a.shape[-1] if a.ndim else 1, 1)
            return float(x.max() * b.max() * min(k, 8))
        return float(x.max()) * 8.0
    except Exception:
        return 0.0


def _reduce(op, a, axis, keepdims, ddof, perturb):
    fn = getattr(np, op)
    kw = {"axis": axis, "keepdims": keepdims}
    if op in ("std", "var", "nanstd", "nanvar"):
        kw["ddof"] = ddof
    r = np.asarray(fn(a, **kw))
    if perturb and a.dtype.kind == "f" and op in ("sum", "mean") and a.size:
        # a naive left-to-right sum in the dtype: the least accurate a correct
        # engine might be, against numpy's pairwise sum
        ax = tuple(range(a.ndim)) if axis is None else \
            tuple(x % a.ndim for x in ((axis,) if isinstance(axis, int) else axis))
        if ax and all(a.shape[x] for x in ax):
            rest = [x for x in range(a.ndim) if x not in ax]
            t = np.transpose(a, rest + list(ax)).reshape([a.shape[x] for x in rest] + [-1])
            s = np.cumsum(t, axis=-1)[..., -1]
            if op == "mean":
                s = s / t.shape[-1]
            if keepdims:
                s = s.reshape([1 if x in ax else a.shape[x] for x in range(a.ndim)])
            r = np.asarray(s).astype(r.dtype)
    elif perturb and a.dtype.kind == "f" and op in ("prod", "std", "var"):
        r = np.asarray(fn(a.astype(np.longdouble), **kw)).astype(r.dtype)
    return r


def _eval_node(node, ins, random_values, perturb):
    op = node["op"]
    key = node["key"]
    if op not in ALL_OPS:
        raise Rejected("unknown op %r" % op)
    extra = set(node) - {"key", "op", "inputs"} - PARAMS.get(op, set())
    if extra:
        raise Rejected("unknown field %r" % sorted(extra)[0])
    for x in ins:
        if not is_scalar(x) and not isinstance(x, np.ndarray):
            raise Rejected("bad input %r" % (x,))
    if any(is_scalar(x) for x in ins) and op not in ELEMENTWISE_OPS:
        raise Rejected("scalar input to %s" % op)

    if op in RANDOM_OPS:
        if key not in random_values:
            raise KeyError("random node %r needs its values from mars-run" % key)
        return np.asarray(random_values[key])
    if op in LA_BRANCH_OPS:
        return _eval_la(node, ins)
    if op in WAVE2_OPS:
        return _eval_wave2(node, ins)

    if op in ("ones", "zeros", "empty"):
        # the engine's empty gives zeros (numpy's holds whatever memory held)
        fn = np.zeros if op == "empty" else getattr(np, op)
        return fn(_shape(node["shape"]), dtype=_dtype(node, np.float64))
    if op == "identity":
        n = node["n"]
        if not isinstance(n, int) or isinstance(n, bool):
            raise Rejected("n must be an integer")
        return np.identity(n, dtype=_dtype(node, np.float64))
    if op in LIKE_OPS:
        if len(ins) != 1 or not isinstance(ins[0], np.ndarray):
            raise Rejected("%s takes 1 tensor input" % op)
        kw = {}
        if "dtype" in node:
            kw["dtype"] = _dtype(node)
        if "shape" in node:
            kw["shape"] = _shape(node["shape"])
        if op == "full_like":
            if "fill_value" not in node:
                raise Rejected("fill_value missing")
            return np.full_like(ins[0], node["fill_value"], **kw)
        fn = np.zeros_like if op == "empty_like" else getattr(np, op)
        return fn(ins[0], **kw)
    if op == "full":
        return np.full(_shape(node["shape"]), node["fill_value"], dtype=_dtype(node))
    if op == "arange":
        start = node.get("start", 0)
        stop = node["stop"]
        step = node.get("step", 1)
        if step == 0:
            raise Rejected("step 0")
        return np.arange(start, stop, step, dtype=_dtype(node))
    if op == "linspace":
        kw = {}
        if "dtype" in node:
            kw["dtype"] = _dtype(node)
        return np.linspace(node["start"], node["stop"], node.get("num", 50),
                           endpoint=node.get("endpoint", True), **kw)
    if op == "eye":
        return np.eye(node["N"], node.get("M"), node.get("k", 0), dtype=_dtype(node, np.float64))
    if op == "array":
        return np.array(node["data"], dtype=_dtype(node))

    if op == "isclose":
        if len(ins) != 2:
            raise Rejected("isclose takes 2 inputs")
        kw = {k: node[k] for k in ("rtol", "atol", "equal_nan") if k in node}
        for k in ("rtol", "atol"):
            if k in kw and (isinstance(kw[k], bool) or not isinstance(kw[k], (int, float))):
                raise Rejected("%s must be a number" % k)
        if "equal_nan" in kw and not isinstance(kw["equal_nan"], bool):
            raise Rejected("equal_nan must be a boolean")
        return ew_call(lambda x, y: np.isclose(x, y, **kw), ins)
    if op in BINARY_OPS:
        if len(ins) != 2:
            raise Rejected("%s takes 2 inputs" % op)
        return ew_call(getattr(np, op), ins)
    if op in UNARY_OPS:
        if len(ins) != 1:
            raise Rejected("%s takes 1 input" % op)
        return ew_call(getattr(np, op), ins)
    if op == "where":
        if len(ins) != 3:
            raise Rejected("where takes 3 inputs")
        return ew_call(np.where, ins, promo=(1, 2))
    if op == "clip":
        if len(ins) != 1:
            raise Rejected("clip takes 1 input")
        lo, hi = node.get("a_min"), node.get("a_max")
        if lo is None and hi is None:
            raise Rejected("clip needs a_min or a_max")
        args = [ins[0]]
        if lo is None:
            return ew_call(lambda a, h: np.clip(a, None, h), [ins[0], hi])
        if hi is None:
            return ew_call(lambda a, l: np.clip(a, l, None), [ins[0], lo])
        return ew_call(np.clip, args + [lo, hi])
    if op in ROUND_OPS:
        if len(ins) != 1:
            raise Rejected("%s takes 1 input" % op)
        d = node.get("decimals", 0)
        if not isinstance(d, int) or isinstance(d, bool):
            raise Rejected("decimals must be an integer")
        return ew_call(lambda a: np.round(a, d), ins)
    if op == "astype":
        (a,) = ins
        if is_scalar(a):
            a = np.asarray(a)
        return a.astype(_dtype(node))

    if len(ins) < 1:
        raise Rejected("%s needs inputs" % op)
    a = ins[0]

    if op in REDUCE_OPS:
        if len(ins) != 1:
            raise Rejected("%s takes 1 input" % op)
        return _reduce(op, a, _axis(node.get("axis")), node.get("keepdims", False),
                       node.get("ddof", 0), perturb)
    if op in ARG_OPS:
        if len(ins) != 1:
            raise Rejected("%s takes 1 input" % op)
        axis = node.get("axis")
        if isinstance(axis, list):
            raise Rejected("%s takes one axis" % op)
        return getattr(np, op)(a, axis=axis, keepdims=node.get("keepdims", False))
    if op in SCAN_OPS:
        if len(ins) != 1:
            raise Rejected("%s takes 1 input" % op)
        axis = node.get("axis")
        if isinstance(axis, list):
            raise Rejected("%s takes one axis" % op)
        r = getattr(np, op)(a, axis=axis)
        if perturb and a.dtype.kind == "f":
            # numpy's cumsum is sequential already; accumulate wider instead
            r = getattr(np, op)(a.astype(np.longdouble), axis=axis).astype(r.dtype)
        return r
    if op in LINALG_OPS:
        if len(ins) != 2:
            raise Rejected("%s takes 2 inputs" % op)
        b = ins[1]
        if op == "tensordot":
            axes = node.get("axes", 2)
            if isinstance(axes, list):
                if len(axes) != 2:
                    raise Rejected("axes must be a pair")
                axes = tuple(axes)
            r = np.tensordot(a, b, axes=axes)
            want = np.result_type(a.dtype, b.dtype)
            if perturb and want.kind == "f":
                r = np.tensordot(a.astype(np.longdouble), b.astype(np.longdouble), axes=axes)
            return np.asarray(r).astype(want) if np.asarray(r).dtype != want else r
        fn = getattr(np, op)
        if op == "matmul" and (a.ndim == 0 or b.ndim == 0):
            raise Rejected("matmul of a 0-d array")
        r = np.asarray(fn(a, b))
        if perturb and r.dtype.kind == "f":
            r = np.asarray(fn(a.astype(np.longdouble), b.astype(np.longdouble))).astype(r.dtype)
        return r

    if op == "transpose":
        if len(ins) != 1:
            raise Rejected("transpose takes 1 input")
        return np.transpose(a, node.get("axes"))
    if op == "reshape":
        ns = node["newshape"]
        return np.reshape(a, tuple(ns) if isinstance(ns, list) else ns).copy()
    if op == "ravel":
        return np.ravel(a)
    if op == "squeeze":
        return np.squeeze(a, axis=_axis(node.get("axis")))
    if op == "expand_dims":
        ax = node.get("axis")
        if ax is None:
            raise Rejected("expand_dims needs axis")
        return np.expand_dims(a, _axis(ax))
    if op == "concatenate":
        ax = node.get("axis", 0)
        if ax is not None and any(x.ndim == 0 for x in ins):
            raise Rejected("zero-dimensional arrays cannot be concatenated")
        return np.concatenate(ins, axis=ax)
    if op == "stack":
        return np.stack(ins, axis=node.get("axis", 0))
    if op == "rechunk":
        return a
    if op == "ediff1d":
        if len(ins) != 1:
            raise Rejected("ediff1d takes 1 input")
        try:
            return np.asarray(np.ediff1d(a))
        except TypeError as e:
            raise Rejected(str(e))
    if op == "diff":
        if len(ins) != 1:
            raise Rejected("diff takes 1 input")
        nn, ax = node.get("n", 1), node.get("axis", -1)
        if not isinstance(nn, int) or isinstance(nn, bool) or not isinstance(ax, int) \
                or isinstance(ax, bool):
            raise Rejected("n and axis must be integers")
        try:
            return np.asarray(np.diff(a, n=nn, axis=ax))
        except (ValueError, np.AxisError) as e:
            raise Rejected(str(e))
    if op in ("swapaxes", "moveaxis", "flip", "fliplr", "flipud", "atleast_1d", "atleast_2d",
              "atleast_3d"):
        if len(ins) != 1:
            raise Rejected("%s takes 1 input" % op)
        try:
            if op == "swapaxes":
                if "axis1" not in node or "axis2" not in node:
                    raise Rejected("axis1 and axis2 are required")
                return np.swapaxes(a, node["axis1"], node["axis2"]).copy()
            if op == "moveaxis":
                return np.moveaxis(a, node["source"], node["destination"]).copy()
            if op == "flip":
                ax = node.get("axis")
                return np.flip(a, axis=tuple(ax) if isinstance(ax, list) else ax).copy()
            return np.asarray(getattr(np, op)(a)).copy()
        except (ValueError, np.AxisError) as e:
            raise Rejected(str(e))
    if op == "getitem":
        idx = node["index"]
        if not isinstance(idx, list):
            raise Rejected("index must be a list")
        ix = to_index(idx)
        if sum(1 for e in ix if e is not None and e is not Ellipsis) > a.ndim:
            raise Rejected("too many indices")
        try:
            return np.asarray(a[ix]).copy()
        except IndexError as e:
            raise Rejected(str(e))
    raise Rejected("op %r not handled" % op)


def random_sanity(node, value):
    """Checks a random node's values against its distribution's support.
    Returns None or a reason."""
    op = node["op"]
    shape = _shape(node["shape"])
    v = np.asarray(value)
    if v.shape != shape:
        return "shape %s, expected %s" % (v.shape, shape)
    if op == "random.randint":
        want = _dtype(node, np.dtype(np.int64))
        if v.dtype != want:
            return "dtype %s, expected %s" % (v.dtype, want)
        low = node.get("low", 0)
        high = node["high"]
        if v.size and (v.min() < low or v.max() >= high):
            return "values outside [%s, %s): min %s max %s" % (low, high, v.min(), v.max())
        return None
    if v.dtype != np.float64:
        return "dtype %s, expected float64" % v.dtype
    if v.size and not np.all(np.isfinite(v)):
        return "non-finite values"
    if op in ("random.rand", "random.uniform"):
        low = node.get("low", 0.0) if op == "random.uniform" else 0.0
        high = node.get("high", 1.0) if op == "random.uniform" else 1.0
        lo, hi = min(low, high), max(low, high)
        if v.size and (v.min() < lo or v.max() > hi or (v.max() == hi and hi != lo)):
            return "values outside [%s, %s): min %r max %r" % (lo, hi, v.min(), v.max())
    return None
