"""marsc.tensor (mt): numpy's names for the cluster's tensor ops.

Every function builds a node; nothing runs until execute() (or eager mode).
The functions below carry numpy's signatures; any other op the cluster lists
at GET /api/v1/ops is reached by its name too (mt.NAME, mt.linalg.NAME,
mt.random.NAME), its positional arguments being its inputs and then its
parameters in the listed order.
"""
import builtins
import math
import numbers

import numpy as np

from .. import core
from ..core import Entity, Node, OutRef, _after_create
from . import _infer as _inf

_BINARY = ("add", "subtract", "multiply", "divide", "floor_divide", "mod", "power", "maximum",
           "minimum", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
           "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
           "bitwise_xor", "true_divide", "remainder", "fmod", "hypot", "arctan2", "fmax",
           "fmin", "left_shift", "right_shift", "copysign", "float_power", "heaviside")
_UNARY = ("negative", "positive", "abs", "absolute", "sqrt", "exp", "log", "log1p", "expm1",
          "sin", "cos", "tan", "tanh", "square", "sign", "floor", "ceil", "logical_not",
          "isnan", "isfinite", "isinf", "exp2", "log2", "log10", "arcsin", "arccos", "arctan",
          "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "rint", "trunc", "reciprocal",
          "cbrt", "invert", "bitwise_not", "signbit", "deg2rad", "rad2deg", "degrees",
          "radians")
_REDUCE = ("sum", "prod", "mean", "min", "max", "all", "any", "nansum", "nanprod", "nanmean",
           "nanmin", "nanmax", "amin", "amax")


def _dtname(dt):
    return None if dt is None else np.dtype(dt).name


class Tensor(Entity):
    """A tensor of the cluster: numpy's operators and attributes, computed
    when executed."""

    __array_priority__ = 100

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        """numpy's ufuncs of tensors (np.sqrt(t), np.add(a, t), ndarray OP
        tensor): mt's function of the ufunc's name, on the cluster; what it
        has none for (a ufunc method, out=) is NotImplemented"""
        if method != "__call__" or kw:
            return NotImplemented
        f = globals().get(ufunc.__name__)
        if f is None:
            try:
                f = _listed(ufunc.__name__)
            except AttributeError:
                return NotImplemented
        return f(*inputs)

    def __init__(self, ref, shape=None, dtype=None, session=None):
        super().__init__(ref, session)
        if shape is None and ref.node.op is not None:
            ref.node.unsized.add(ref.key)
        self._shape = None if shape is None else tuple(int(d) for d in shape)
        self._dtype = None if dtype is None else np.dtype(dtype)

    # -- attributes --

    def _meta(self):
        s = self._session or core.Session.default()
        if s is not None and self.key in s._held:
            info = s.tensor_info(self.key)
            if "shape" in info:
                self._shape = tuple(info["shape"])
                self._dtype = np.dtype(info["dtype"])

    @property
    def shape(self):
        """The shape when the client can tell (or once executed); else None."""
        if self._shape is None:
            self._meta()
        return self._shape

    @property
    def dtype(self):
        if self._dtype is None:
            self._meta()
        return self._dtype

    @property
    def ndim(self):
        s = self.shape
        return None if s is None else len(s)

    @property
    def size(self):
        s = self.shape
        return None if s is None else math.prod(s)

    @property
    def T(self):
        return self.transpose()

    def __len__(self):
        s = self.shape
        if s is None:
            raise TypeError("len() of a tensor whose shape is not known yet: execute it first")
        if not s:
            raise TypeError("len() of a 0-d tensor")
        return s[0]

    def __iter__(self):
        n = len(self)
        return (self[i] for i in range(n))

    def __repr__(self):
        return "Tensor <op=%s, shape=%s, dtype=%s, key=%s>" % (
            self.op or "upload", self._shape, _dtname(self._dtype), self.key)

    def __bool__(self):
        raise TypeError("the truth value of a marsc tensor is unknown until it runs: use "
                        "bool(t.fetch()), or mt.all/mt.any")

    __hash__ = Entity.__hash__

    def __array__(self, dtype=None):
        a = np.asarray(self.fetch())
        return a if dtype is None else a.astype(dtype)

    def tolist(self):
        return np.asarray(self.fetch()).tolist()

    # a 0-d tensor as a Python number: it runs, as __array__ does
    def _scalar(self, what):
        a = np.asarray(self.fetch())
        if a.size != 1:
            raise TypeError("only a tensor of one element converts to %s" % what)
        return a.reshape(()).item()

    # (builtins': the module's round, float ... are numpy's)
    def __float__(self): return builtins.float(self._scalar("float"))  # noqa: E704
    def __int__(self): return builtins.int(self._scalar("int"))  # noqa: E704

    def __round__(self, ndigits=None):
        return builtins.round(self._scalar("a number"), ndigits)

    def __format__(self, spec):
        if not spec:
            return repr(self)
        return builtins.format(self._scalar("a formatted number"), spec)

    # -- operators --

    def __add__(self, o): return _binary("add", self, o)
    def __radd__(self, o): return _binary("add", o, self)
    def __sub__(self, o): return _binary("subtract", self, o)
    def __rsub__(self, o): return _binary("subtract", o, self)
    def __mul__(self, o): return _binary("multiply", self, o)
    def __rmul__(self, o): return _binary("multiply", o, self)
    def __truediv__(self, o): return _binary("divide", self, o)
    def __rtruediv__(self, o): return _binary("divide", o, self)
    def __floordiv__(self, o): return _binary("floor_divide", self, o)
    def __rfloordiv__(self, o): return _binary("floor_divide", o, self)
    def __mod__(self, o): return _binary("mod", self, o)
    def __rmod__(self, o): return _binary("mod", o, self)
    def __pow__(self, o): return _binary("power", self, o)
    def __rpow__(self, o): return _binary("power", o, self)
    def __matmul__(self, o): return matmul(self, o)
    def __rmatmul__(self, o): return matmul(o, self)
    def __eq__(self, o): return _binary("equal", self, o)  # noqa: E704
    def __ne__(self, o): return _binary("not_equal", self, o)
    def __lt__(self, o): return _binary("less", self, o)
    def __le__(self, o): return _binary("less_equal", self, o)
    def __gt__(self, o): return _binary("greater", self, o)
    def __ge__(self, o): return _binary("greater_equal", self, o)
    def __neg__(self): return _unary("negative", self)
    def __pos__(self): return self
    def __abs__(self): return _unary("abs", self)

    def _bitwise(self, logical, bitwise, a, b):
        dts = [x.dtype if isinstance(x, Tensor) else np.asarray(x).dtype for x in (a, b)]
        if builtins.all(dt is not None and dt.kind in "iu" for dt in dts):
            return _binary(bitwise, a, b)
        return _binary(logical, a, b)

    def __and__(self, o): return self._bitwise("logical_and", "bitwise_and", self, o)
    def __rand__(self, o): return self._bitwise("logical_and", "bitwise_and", o, self)
    def __or__(self, o): return self._bitwise("logical_or", "bitwise_or", self, o)
    def __ror__(self, o): return self._bitwise("logical_or", "bitwise_or", o, self)
    def __xor__(self, o): return self._bitwise("logical_xor", "bitwise_xor", self, o)
    def __rxor__(self, o): return self._bitwise("logical_xor", "bitwise_xor", o, self)

    def __invert__(self):
        dt = self.dtype
        if dt is not None and dt.kind in "iu":
            return _unary("invert", self)
        return _unary("logical_not", self)

    def __getitem__(self, index):
        return getitem(self, index)

    def __setitem__(self, index, value):
        """a[index] = value: a becomes setitem(a, value, index) (a new node;
        other handles on the old value keep it)."""
        t = setitem(self, index, value)
        self._ref = t._ref
        self._shape, self._dtype = t._shape, t._dtype

    # -- methods --

    def take(self, indices, axis=None):
        """numpy's a.take: the contract's take (mode "raise")."""
        return take(self, indices, axis=axis)

    def compress(self, condition, axis=None):
        return compress(condition, self, axis=axis)

    def astype(self, dtype, copy=True):
        return _make("astype", [self], {"dtype": np.dtype(dtype).name}, self._shape,
                     np.dtype(dtype))

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = shape[0]
        return reshape(self, shape)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (list, tuple))):
            axes = axes[0]
        return transpose(self, axes or None)

    def ravel(self):
        return ravel(self)

    flatten = ravel

    def squeeze(self, axis=None):
        return squeeze(self, axis)

    def rechunk(self, chunk_size):
        return rechunk(self, chunk_size)

    def dot(self, b):
        return dot(self, b)

    def clip(self, a_min=None, a_max=None):
        return clip(self, a_min, a_max)

    def round(self, decimals=0):
        """numpy's ndarray.round (and a scalar's, as a reduction of a Series
        gives one): half to even"""
        return _numpyfuncs.round(self, decimals)

    def sum(self, axis=None, keepdims=False, **kw): return sum(self, axis, keepdims=keepdims, **kw)
    def prod(self, axis=None, keepdims=False, **kw): return prod(self, axis, keepdims=keepdims, **kw)
    def mean(self, axis=None, keepdims=False, **kw): return mean(self, axis, keepdims=keepdims, **kw)
    def min(self, axis=None, keepdims=False, **kw): return min(self, axis, keepdims=keepdims, **kw)
    def max(self, axis=None, keepdims=False, **kw): return max(self, axis, keepdims=keepdims, **kw)
    def all(self, axis=None, keepdims=False, **kw): return all(self, axis, keepdims=keepdims, **kw)
    def any(self, axis=None, keepdims=False, **kw): return any(self, axis, keepdims=keepdims, **kw)

    def std(self, axis=None, ddof=0, keepdims=False, **kw):
        return std(self, axis, ddof=ddof, keepdims=keepdims, **kw)

    def var(self, axis=None, ddof=0, keepdims=False, **kw):
        return var(self, axis, ddof=ddof, keepdims=keepdims, **kw)

    def argmin(self, axis=None, **kw): return argmin(self, axis, **kw)
    def argmax(self, axis=None, **kw): return argmax(self, axis, **kw)
    def cumsum(self, axis=None, **kw): return cumsum(self, axis, **kw)
    def cumprod(self, axis=None, **kw): return cumprod(self, axis, **kw)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None):
        from ._numpyfuncs import trace as tr
        return tr(self, offset, axis1, axis2, dtype)


# ---------------------------------------------------------------------------
# building nodes


def _make(op, inputs, params=None, shape=None, dtype=None, n_outputs=0):
    ins = [as_operand(x) for x in inputs]
    sess = next((x._session for x in inputs if isinstance(x, Entity) and x._session), None)
    node = Node(op, [x._ref if isinstance(x, Entity) else x for x in ins],
                {k: v for k, v in (params or {}).items() if v is not _UNSET}, "tensor",
                n_outputs=n_outputs)
    if n_outputs:
        outs = tuple(Tensor(OutRef(node, i), session=sess) for i in range(n_outputs))
        for o in outs:
            _after_create(o)
        return outs
    return _after_create(Tensor(node, shape, dtype, session=sess))


_UNSET = object()


def _time_literal(x):
    """A Timestamp, Timedelta (pandas', numpy's or the datetime module's)
    or date as the string literal the engine reads beside a datetime or
    timedelta Series; None for anything else."""
    import datetime
    if not isinstance(x, (datetime.date, datetime.timedelta, np.datetime64, np.timedelta64)):
        return None
    import pandas as pd
    if pd.isna(x):
        raise ValueError("NaT as an operand is not supported: every result would be missing")
    if isinstance(x, (datetime.timedelta, np.timedelta64)):
        return str(pd.Timedelta(x))
    if isinstance(x, datetime.date) and not isinstance(x, datetime.datetime):
        return x.isoformat()
    return pd.Timestamp(x).isoformat()


def as_operand(x):
    """Entities stay; numbers and strings stay scalars; arrays and lists
    become local arrays uploaded as session tensors at execution."""
    if isinstance(x, Entity):
        return x
    t = _time_literal(x)
    if t is not None:
        return t
    if isinstance(x, (numbers.Number, np.generic, str)) or x is None:
        return x.item() if isinstance(x, np.generic) else x
    return tensor(x)


def _as_tensor(x):
    x = as_operand(x)
    if not isinstance(x, Entity):
        return tensor(np.asarray(x))
    return x


def _kind_of(inputs):
    kinds = [x._ref.kind for x in inputs if isinstance(x, Entity)]
    if "dataframe" in kinds:
        return "dataframe"
    if "series" in kinds:
        return "series"
    return "tensor"


def _binary(op, a, b):
    a, b = as_operand(a), as_operand(b)
    if _kind_of([a, b]) != "tensor":
        from ..dataframe import elementwise
        return elementwise(op, [a, b])
    shapes = [x._shape if isinstance(x, Tensor) else () for x in (a, b)]
    return _make(op, [a, b], None, _inf.broadcast(*shapes), _inf.ufunc_dtype(op, [a, b]))


def _unary(op, a, params=None):
    a = as_operand(a)
    if _kind_of([a]) != "tensor":
        from ..dataframe import elementwise
        return elementwise(op, [a], params)
    if not isinstance(a, Tensor):
        a = _as_tensor(a)
    return _make(op, [a], params, a._shape, _inf.ufunc_dtype(op, [a]))


def tensor(data, dtype=None, chunk_size=None):
    """A local array (or nested list) as a tensor: uploaded to the session
    (POST .../tensors?key=) when a task first needs it."""
    if isinstance(data, Tensor):
        return data if dtype is None else data.astype(dtype)
    if isinstance(data, Entity) and hasattr(data, "to_tensor"):  # a marsc DataFrame or Series
        out = data.to_tensor()
        return out if dtype is None else out.astype(dtype)
    arr = np.asarray(data, dtype=dtype)
    if arr.dtype.kind not in "biuf":
        raise TypeError("mt.tensor: dtype %s is not one the cluster stores" % arr.dtype)
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    # a copy: changing the local array later does not change the tensor
    node = Node(None, (), None, "tensor", data=np.array(arr, order="C", copy=True),
                chunk_size=chunk_size)
    return Tensor(node, arr.shape, arr.dtype)


array = asarray = tensor


def _shape_arg(shape):
    return (int(shape),) if isinstance(shape, numbers.Integral) else tuple(int(d) for d in shape)


def _create(op, shape, dtype, chunk_size, default_dtype="float64", **params):
    shape = _shape_arg(shape)
    p = {"shape": list(shape)}
    p.update(params)
    if dtype is not None:
        p["dtype"] = np.dtype(dtype).name
    if chunk_size is not None:
        p["chunk_size"] = chunk_size
    return _make(op, [], p, shape, np.dtype(dtype if dtype is not None else default_dtype))


def ones(shape, dtype=None, chunk_size=None):
    return _create("ones", shape, dtype, chunk_size)


def zeros(shape, dtype=None, chunk_size=None):
    return _create("zeros", shape, dtype, chunk_size)


def full(shape, fill_value, dtype=None, chunk_size=None):
    dt = dtype if dtype is not None else np.array(fill_value).dtype
    if isinstance(fill_value, (float, np.floating)) and not np.isfinite(fill_value):
        # JSON has no NaN or infinity: zeros plus the value (sent as a literal)
        return _create("full", shape, dtype, chunk_size, dt, fill_value=0.0) + fill_value
    return _create("full", shape, dtype, chunk_size, dt, fill_value=fill_value)


def ones_like(a, dtype=None, chunk_size=None):
    return ones(a.shape, dtype or a.dtype, chunk_size)


def zeros_like(a, dtype=None, chunk_size=None):
    return zeros(a.shape, dtype or a.dtype, chunk_size)


def arange(start, stop=None, step=1, dtype=None, chunk_size=None):
    if stop is None:
        start, stop = 0, start
    p = {"start": start, "stop": stop, "step": step}
    if dtype is not None:
        p["dtype"] = np.dtype(dtype).name
    if chunk_size is not None:
        p["chunk_size"] = chunk_size
    n = builtins.max(0, math.ceil((stop - start) / step)) if step else None
    dt = np.dtype(dtype) if dtype is not None else np.result_type(start, stop, step)
    return _make("arange", [], p, None if n is None else (n,), dt)


def linspace(start, stop, num=50, endpoint=True, chunk_size=None):
    p = {"start": start, "stop": stop, "num": num, "endpoint": endpoint}
    if chunk_size is not None:
        p["chunk_size"] = chunk_size
    return _make("linspace", [], p, (int(num),), np.float64)


def eye(N, M=None, k=0, dtype=None, chunk_size=None):
    p = {"N": N, "k": k}
    if M is not None:
        p["M"] = M
    if dtype is not None:
        p["dtype"] = np.dtype(dtype).name
    if chunk_size is not None:
        p["chunk_size"] = chunk_size
    return _make("eye", [], p, (N, N if M is None else M), np.dtype(dtype or "float64"))


def identity(n, dtype=None, chunk_size=None):
    return eye(n, dtype=dtype, chunk_size=chunk_size)


# element-wise


# numpy's other names for one function: the document names the engine's op
_ALIASES = {"absolute": "abs", "true_divide": "divide", "remainder": "mod",
            "bitwise_not": "invert", "amin": "min", "amax": "max", "deg2rad": "radians",
            "rad2deg": "degrees"}


def _ufunc(name):
    op = _ALIASES.get(name, name)
    if name in _BINARY:
        def f(x1, x2):
            return _binary(op, x1, x2)
        f.__doc__ = "numpy.%s(x1, x2), element-wise with broadcasting" % name
    else:
        def f(x):
            return _unary(op, x)
        f.__doc__ = "numpy.%s(x), element-wise" % name
    f.__name__ = name
    return f


for _n in _BINARY + _UNARY:
    globals()[_n] = _ufunc(_n)
del _n


def where(condition, x=_UNSET, y=_UNSET):
    if x is _UNSET and y is _UNSET:  # one argument: nonzero(condition)
        return _multi_nonzero("where", condition)
    if x is _UNSET or y is _UNSET:
        raise ValueError("either both or neither of x and y should be given")
    c, x, y = as_operand(condition), as_operand(x), as_operand(y)
    if _kind_of([c, x, y]) != "tensor":
        from ..dataframe import elementwise
        return elementwise("where", [c, x, y])
    shapes = [t._shape if isinstance(t, Tensor) else () for t in (c, x, y)]
    dt = _inf.ufunc_dtype("where", [np.ones(1, bool), x, y])
    return _make("where", [c, x, y], None, _inf.broadcast(*shapes), dt)


def clip(a, a_min=None, a_max=None):
    a = _as_tensor(a)
    dt = _inf.ufunc_dtype("clip", [a, a_min, a_max]) if (a_min is not None or a_max is not None) \
        else a._dtype
    return _make("clip", [a], {"a_min": a_min, "a_max": a_max}, a._shape, dt)


def astype(a, dtype):
    return _as_tensor(a).astype(dtype)


# reductions


def _reduce(op, a, axis=None, keepdims=False, **kw):
    a = _as_tensor(a)
    if _kind_of([a]) != "tensor":  # a DataFrame or Series: its own method
        return getattr(a, op)(**({} if axis is None else {"axis": axis}), **kw)
    p = {}
    if axis is not None:
        p["axis"] = list(axis) if isinstance(axis, (list, tuple)) else axis
    if keepdims:
        p["keepdims"] = True
    p.update(kw)
    shape = _inf.reduce_shape(a._shape, axis, keepdims)
    dt = None
    if a._dtype is not None and a._shape is not None:
        # numpy's dtype on a one-element sample of the same ndim
        dt = _inf.sample_dtype(getattr(np, op, None), np.ones((1,) * len(a._shape), a._dtype),
                              axis=_inf.norm_axes(axis, len(a._shape)),
                              **{k: v for k, v in kw.items() if k in ("ddof", "dtype")})
    return _make(op, [a], p, shape, dt)


def _reducer(name):
    op = _ALIASES.get(name, name)

    def f(a, axis=None, keepdims=False, **kw):
        if "initial" not in kw or op not in ("sum", "prod", "min", "max", "nansum",
                                             "nanprod", "nanmin", "nanmax"):
            return _reduce(op, a, axis, keepdims, **kw)
        # numpy's initial: one more value of the reduction
        init = kw.pop("initial")
        out = _reduce(op, a, axis, keepdims, **kw)
        if init is None or init is _UNSET:
            return out
        comb = {"sum": "add", "nansum": "add", "prod": "multiply", "nanprod": "multiply",
                "min": "minimum", "nanmin": "fmin", "max": "maximum", "nanmax": "fmax"}[op]
        return globals()[comb](out, init)
    f.__name__ = name
    f.__doc__ = "numpy.%s(a, axis=None, keepdims=False)" % name
    return f


sum, prod, mean, min, max, all, any = (_reducer(n) for n in _REDUCE[:7])  # noqa: A001
for _n in _REDUCE[7:]:
    globals()[_n] = _reducer(_n)
del _n


def std(a, axis=None, ddof=0, keepdims=False):
    return _reduce("std", a, axis, keepdims, **({"ddof": ddof} if ddof else {}))


def var(a, axis=None, ddof=0, keepdims=False):
    return _reduce("var", a, axis, keepdims, **({"ddof": ddof} if ddof else {}))


def _argreduce(op, a, axis=None):
    a = _as_tensor(a)
    p = {} if axis is None else {"axis": axis}
    return _make(op, [a], p, _inf.reduce_shape(a._shape, axis, False), np.int64)


def argmin(a, axis=None):
    return _argreduce("argmin", a, axis)


def argmax(a, axis=None):
    return _argreduce("argmax", a, axis)


def _scan(op, a, axis=None):
    a = _as_tensor(a)
    p = {} if axis is None else {"axis": axis}
    shape = None
    if a._shape is not None:
        shape = (math.prod(a._shape),) if axis is None else a._shape
    dt = None if a._dtype is None else getattr(np, op)(np.ones(1, a._dtype)).dtype
    return _make(op, [a], p, shape, dt)


def cumsum(a, axis=None):
    return _scan("cumsum", a, axis)


def cumprod(a, axis=None):
    return _scan("cumprod", a, axis)


# linear algebra


def _la_dtype(a, b):
    return _inf.ufunc_dtype("multiply", [a, b]) if isinstance(a, Tensor) and \
        isinstance(b, Tensor) else None


def dot(a, b):
    a, b = _as_tensor(a), _as_tensor(b)
    return _make("dot", [a, b], None, _inf.dot_shape(a._shape, b._shape), _la_dtype(a, b))


def matmul(a, b):
    a, b = _as_tensor(a), _as_tensor(b)
    return _make("matmul", [a, b], None, _inf.matmul_shape(a._shape, b._shape), _la_dtype(a, b))


def inner(a, b):
    a, b = _as_tensor(a), _as_tensor(b)
    return _make("inner", [a, b], None, _inf.inner_shape(a._shape, b._shape), _la_dtype(a, b))


def outer(a, b):
    a, b = _as_tensor(a), _as_tensor(b)
    shape = None if a.size is None or b.size is None else (a.size, b.size)
    return _make("outer", [a, b], None, shape, _la_dtype(a, b))


def tensordot(a, b, axes=2):
    a, b = _as_tensor(a), _as_tensor(b)
    return _make("tensordot", [a, b], {"axes": axes}, _inf.tensordot_shape(a._shape, b._shape, axes),
                 _la_dtype(a, b))


# shapes


def transpose(a, axes=None):
    a = _as_tensor(a)
    shape = None
    if a._shape is not None:
        perm = tuple(reversed(range(len(a._shape)))) if axes is None else tuple(axes)
        if sorted(p % builtins.max(len(a._shape), 1) for p in perm) == list(range(len(a._shape))):
            shape = tuple(a._shape[p] for p in perm)
    return _make("transpose", [a], {} if axes is None else {"axes": list(axes)}, shape, a._dtype)


def reshape(a, newshape, order="C"):
    a = _as_tensor(a)
    ns = [int(newshape)] if isinstance(newshape, numbers.Integral) else [int(d) for d in newshape]
    return _make("reshape", [a], {"newshape": ns}, _inf.reshape_shape(a._shape, ns), a._dtype)


def ravel(a):
    a = _as_tensor(a)
    return _make("ravel", [a], None, None if a._shape is None else (math.prod(a._shape),),
                 a._dtype)


def squeeze(a, axis=None):
    a = _as_tensor(a)
    shape = None
    if a._shape is not None:
        try:
            shape = np.broadcast_to(np.zeros((), np.int8), a._shape).squeeze(axis).shape
        except ValueError:
            shape = None
    return _make("squeeze", [a], {} if axis is None else {"axis": axis}, shape, a._dtype)


def expand_dims(a, axis):
    a = _as_tensor(a)
    shape = None
    if a._shape is not None:
        try:
            shape = np.expand_dims(np.broadcast_to(np.zeros((), np.int8), a._shape), axis).shape
        except (ValueError, np.AxisError):
            shape = None
    return _make("expand_dims", [a], {"axis": axis}, shape, a._dtype)


def _joined(op, arrays, axis):
    ts = [_as_tensor(x) for x in arrays]
    shape, dt = None, None
    if ts and builtins.all(t._shape is not None for t in ts):
        nd = len(ts[0]._shape)
        if op == "stack":
            if builtins.all(t._shape == ts[0]._shape for t in ts) and -nd - 1 <= axis <= nd:
                shape = list(ts[0]._shape)
                shape.insert(axis % (nd + 1), len(ts))
        elif axis is None:
            shape = [builtins.sum(math.prod(t._shape) for t in ts)]
        elif nd and -nd <= axis < nd and builtins.all(len(t._shape) == nd for t in ts):
            ax = axis % nd
            if builtins.all(t._shape[:ax] + t._shape[ax + 1:] == ts[0]._shape[:ax] +
                            ts[0]._shape[ax + 1:] for t in ts):
                shape = list(ts[0]._shape)
                shape[ax] = builtins.sum(t._shape[ax] for t in ts)
        shape = None if shape is None else tuple(shape)
    if builtins.all(t._dtype is not None for t in ts):
        dt = np.result_type(*[t._dtype for t in ts])
    return _make(op, ts, {"axis": axis}, shape, dt)


def concatenate(arrays, axis=0):
    return _joined("concatenate", arrays, axis)


def stack(arrays, axis=0):
    return _joined("stack", arrays, axis)


def _lift(op, shape, first_nd):
    """numpy's lift of one input of hstack/vstack/dstack/column_stack, and
    the axis the lifted inputs join on (the engine's graph_stack_lift)."""
    s = tuple(shape)
    if op == "hstack":
        return (s or (1,)), (0 if first_nd <= 1 else 1)
    if op == "vstack":
        return {0: (1, 1), 1: (1,) + s}.get(len(s), s), 0
    if op == "dstack":
        return {0: (1, 1, 1), 1: (1,) + s + (1,), 2: s + (1,)}.get(len(s), s), 2
    return {0: (1, 1), 1: s + (1,)}.get(len(s), s), 1


def _stacked(op, arrays):
    ts = [_as_tensor(x) for x in arrays]
    shape, dt = None, None
    if ts and builtins.all(t._shape is not None for t in ts):
        nd0 = len(ts[0]._shape)
        lifted = [_lift(op, t._shape, nd0) for t in ts]
        ax = lifted[0][1]
        s0 = lifted[0][0]
        if builtins.all(len(s) == len(s0) and s[:ax] + s[ax + 1:] == s0[:ax] + s0[ax + 1:]
                        for s, _ in lifted):
            shape = s0[:ax] + (builtins.sum(s[ax] for s, _ in lifted),) + s0[ax + 1:]
    if builtins.all(t._dtype is not None for t in ts):
        dt = np.result_type(*[t._dtype for t in ts])
    return _make(op, ts, {}, shape, dt)


def hstack(tup):
    return _stacked("hstack", tup)


def vstack(tup):
    return _stacked("vstack", tup)


def dstack(tup):
    return _stacked("dstack", tup)


def column_stack(tup):
    return _stacked("column_stack", tup)


# shapes: numpy's logspace, geomspace, indices, roll, broadcast_to, tile,
# repeat and pad, their shapes inferred here as the engine infers them
def _space(op, start, stop, num, endpoint, dtype, chunk_size, **extra):
    p = {"start": start.item() if isinstance(start, np.generic) else start,
         "stop": stop.item() if isinstance(stop, np.generic) else stop,
         "num": int(num), "endpoint": bool(endpoint)}
    p.update(extra)
    if dtype is not None:
        p["dtype"] = np.dtype(dtype).name
    if chunk_size is not None:
        p["chunk_size"] = chunk_size
    return _make(op, [], p, (int(num),), np.dtype(dtype if dtype is not None else "float64"))


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, chunk_size=None):
    return _space("logspace", start, stop, num, endpoint, dtype, chunk_size, base=float(base))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, chunk_size=None):
    return _space("geomspace", start, stop, num, endpoint, dtype, chunk_size)


def indices(dimensions, dtype=int, chunk_size=None):
    dims = tuple(int(d) for d in dimensions)
    p = {"dimensions": list(dims), "dtype": np.dtype(dtype).name}
    if chunk_size is not None:
        p["chunk_size"] = chunk_size
    return _make("indices", [], p, (len(dims),) + dims, np.dtype(dtype))


def _ints(v):
    return int(v) if isinstance(v, numbers.Integral) else [int(x) for x in v]


def roll(a, shift, axis=None):
    a = _as_tensor(a)
    p = {"shift": _ints(shift), "axis": None if axis is None else _ints(axis)}
    return _make("roll", [a], p, a._shape, a._dtype)


def broadcast_to(array, shape):
    a = _as_tensor(array)
    shape = _shape_arg(shape)
    return _make("broadcast_to", [a], {"shape": list(shape)}, shape, a._dtype)


def tile(A, reps):
    a = _as_tensor(A)
    r = (int(reps),) if isinstance(reps, numbers.Integral) else tuple(int(x) for x in reps)
    shape = None
    if a._shape is not None:
        d = builtins.max(len(r), len(a._shape))
        s = (1,) * (d - len(a._shape)) + tuple(a._shape)
        r2 = (1,) * (d - len(r)) + r
        shape = tuple(x * y for x, y in zip(s, r2))
    return _make("tile", [a], {"reps": list(r) if not isinstance(reps, numbers.Integral)
                               else int(reps)}, shape, a._dtype)


def repeat(a, repeats, axis=None):
    a = _as_tensor(a)
    rep = _ints(repeats)
    shape = None
    if a._shape is not None:
        s = tuple(a._shape)
        flat = axis is None or len(s) == 0
        n = int(np.prod(s)) if flat else s[axis]
        total = rep * n if isinstance(rep, int) else (
            rep[0] * n if len(rep) == 1 else builtins.sum(rep))
        if flat:
            shape = (total,)
        else:
            ax = axis % len(s)
            shape = s[:ax] + (total,) + s[ax + 1:]
    return _make("repeat", [a], {"repeats": rep, "axis": axis}, shape, a._dtype)


def _jsonable(v):
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v


_PAD_STATS = ("maximum", "minimum", "mean", "median")


def _pad_pairs(x, nd, what):
    """numpy's _as_pairs(x, nd, as_index=True): a (before, after) pair of
    non-negative integers per axis"""
    w = np.asarray(x)
    if w.size and w.dtype.kind not in "iu":
        raise TypeError("`%s` must be of integral type." % what)
    w = w.astype(np.int64)
    if w.size <= 2 and w.shape != (2, 1):
        w = w.ravel()[[0, -1]] if w.size else w
    if (w < 0).any():
        raise ValueError("index can't contain negative values")
    return np.broadcast_to(w, (nd, 2)).tolist()


def _pad_axes(a, pad_width, mode):
    """(shape, widths, empty) for a composed pad, after numpy's refusal of
    widening an empty axis: empty is the result when some axis is empty
    (numpy returns the array widened, its values whatever the mode: zeros
    here), else None"""
    shape = a._shape
    if shape is None:
        raise NotImplementedError("pad(mode=%r) needs its input's shape: execute() it first"
                                  % mode)
    widths = _pad_pairs(pad_width, len(shape), "pad_width")
    for d, (n, w) in enumerate(zip(shape, widths)):
        if n == 0 and builtins.any(w):
            raise ValueError("can't extend empty axis %d using modes other than 'constant' or "
                             "'empty'" % d)
    empty = None
    if builtins.any(n == 0 for n in shape):
        empty = zeros([n + w[0] + w[1] for n, w in zip(shape, widths)], dtype=a._dtype)
    return shape, widths, empty


def _axis_slice(nd, d, s):
    sl = [slice(None)] * nd
    sl[d] = s
    return tuple(sl)


def _pad_stat(a, pad_width, mode, stat_length):
    """numpy 1.24's pad with a statistic of each axis's edge area, axis by
    axis (earlier axes' padding in later axes' statistics, numpy's
    corners): the statistic over at most stat_length positions at each end,
    rounded half to even for an integer array, cast to a's dtype and
    broadcast over the pad's width. The cluster has no such mode: made of
    its slices, reductions and concatenations here."""
    shape, widths, empty = _pad_axes(a, pad_width, mode)
    nd, dt = len(shape), a._dtype
    lengths = ([[None, None]] * nd if stat_length is None
               else _pad_pairs(stat_length, nd, "stat_length"))
    if empty is not None:
        return empty
    func = {"maximum": max, "minimum": min, "mean": mean}.get(mode)
    cur, cshape = a, list(shape)
    for d, ((wb, wa), (lb, la)) in enumerate(zip(widths, lengths)):
        if not (wb or wa):
            continue
        n = shape[d]
        lb = n if lb is None or lb > n else lb
        la = n if la is None or la > n else la
        if (lb == 0 or la == 0) and mode in ("maximum", "minimum"):
            raise ValueError("stat_length of 0 yields no value for padding")
        parts = []
        for width, lo, hi in ((wb, 0, lb), (wa, n - la, n)):
            if not width:
                parts.append(None)
                continue
            sl = [slice(None)] * nd
            sl[d] = slice(lo, hi)
            area = cur[tuple(sl)]
            st = (func(area, axis=d, keepdims=True) if func is not None
                  else _numpyfuncs.median(area, axis=d, keepdims=True))
            if dt is not None and np.issubdtype(dt, np.integer):
                st = round(st)
            if dt is not None:
                st = st.astype(dt)
            target = list(cshape)
            target[d] = width
            parts.append(broadcast_to(st, target))
        cur = concatenate([x for x in (parts[0], cur, parts[1]) if x is not None], axis=d)
        cshape[d] += wb + wa
    return cur


def _pad_odd(a, pad_width, mode):
    """numpy 1.24's reflect and symmetric with reflect_type="odd", axis by
    axis in numpy's rounds: each round reflects at most the current length
    (less the edge for reflect) on each side, as 2 * edge - value, so
    widths past the axis reflect the values the earlier rounds made. A
    length-1 axis is padded with its edge (numpy's legacy rule)."""
    shape, widths, empty = _pad_axes(a, pad_width, mode)
    if empty is not None:
        return empty
    dt = a._dtype
    nd, cur, cshape = len(shape), a, list(shape)
    keep = 1 if mode == "symmetric" else 0
    for d, (left, right) in enumerate(widths):
        if not (left or right):
            continue
        if shape[d] == 1:
            w = [(0, 0)] * nd
            w[d] = (left, right)
            cur = pad(cur, w, mode="edge")
            cshape[d] += left + right
            continue
        while left or right:
            n = cshape[d]
            old = n - 1 + keep
            parts, grew = [None, None], 0
            if left:
                ch = builtins.min(old, left)
                grew += ch
                lo = ch - 1 if keep else ch
                stop = lo - ch
                chunk = cur[_axis_slice(nd, d, slice(lo, None if stop < 0 else stop, -1))]
                parts[0] = (2 * cur[_axis_slice(nd, d, slice(0, 1))] - chunk).astype(dt)
                left -= ch
            if right:
                ch = builtins.min(old, right)
                grew += ch
                hi = n - 1 if keep else n - 2
                stop = hi - ch
                chunk = cur[_axis_slice(nd, d, slice(hi, None if stop < 0 else stop, -1))]
                parts[1] = (2 * cur[_axis_slice(nd, d, slice(n - 1, n))] - chunk).astype(dt)
                right -= ch
            cur = concatenate([x for x in (parts[0], cur, parts[1]) if x is not None], axis=d)
            cshape[d] = n + grew
    return cur


def _pad_ramp(a, pad_width, end_values):
    """numpy 1.24's linear_ramp, axis by axis (the edges of earlier axes'
    padding in later ones, numpy's corners): linspace(end_value, edge,
    width, endpoint=False) in numpy's own arithmetic (the ramp's dtype
    numpy's result_type of the two and a float, floored for an integer
    array) cast to the array's dtype, reversed on the right."""
    shape, widths, empty = _pad_axes(a, pad_width, "linear_ramp")
    dt = a._dtype
    nd = len(shape)
    e = np.array(end_values)  # numpy's _as_pairs(end_values, nd)
    if e.ndim < 3 and (e.size == 1 or (e.size == 2 and e.shape != (2, 1))):
        e = e.ravel()[[0, -1]]
    ends = np.broadcast_to(e, (nd, 2))
    if empty is not None:
        return empty
    cur, cshape = a, list(shape)
    for d, (left, right) in enumerate(widths):
        if not (left or right):
            continue
        n = cshape[d]
        parts = []
        for width, end, at in ((left, ends[d][0], 0), (right, ends[d][1], n - 1)):
            if not width:
                parts.append(None)
                continue
            edge = cur[_axis_slice(nd, d, slice(at, at + 1))]
            start = np.asarray(end)[()] * 1.0  # numpy's linspace: start * 1.0, stop * 1.0
            stop_dt = np.result_type(np.empty(1, dtype=dt), 1.0)
            rdt = np.result_type(start, np.empty(1, dtype=stop_dt), float(width))
            shp = [1] * nd
            shp[d] = width
            delta = (edge.astype(stop_dt) - start).astype(rdt)
            steps = delta / width
            pos = arange(width, dtype=rdt).reshape(shp)
            # numpy: where any step is 0 (denormals), every value is
            # position / width * delta, else position * step
            ramp = where(any(steps == 0), pos / width * delta, pos * steps) + start
            if np.issubdtype(dt, np.integer) or dt == np.bool_:
                ramp = _unary("floor", ramp)
            ramp = ramp.astype(dt)
            if at:
                ramp = ramp[_axis_slice(nd, d, slice(None, None, -1))]
            parts.append(ramp)
        cur = concatenate([x for x in (parts[0], cur, parts[1]) if x is not None], axis=d)
        cshape[d] = n + left + right
    return cur


def pad(array, pad_width, mode="constant", **kwargs):
    a = _as_tensor(array)
    if mode in ("reflect", "symmetric") and "reflect_type" in kwargs:
        if kwargs.pop("reflect_type") == "odd":  # numpy takes any other as "even"
            if kwargs:
                raise ValueError("unsupported keyword arguments for mode '%s': %s"
                                 % (mode, set(kwargs)))
            return _pad_odd(a, pad_width, mode)
    if mode == "linear_ramp":
        end_values = kwargs.pop("end_values", 0)
        if kwargs:
            raise ValueError("unsupported keyword arguments for mode '%s': %s"
                             % (mode, set(kwargs)))
        return _pad_ramp(a, pad_width, end_values)
    if mode == "empty":  # numpy leaves the pad's values undefined: zeros here
        if kwargs:
            raise ValueError("unsupported keyword arguments for mode 'empty': %s" % set(kwargs))
        mode = "constant"
    if mode in _PAD_STATS:
        stat_length = kwargs.pop("stat_length", None)
        if kwargs:
            raise ValueError("unsupported keyword arguments for mode '%s': %s"
                             % (mode, set(kwargs)))
        return _pad_stat(a, pad_width, mode, stat_length)
    p = {"pad_width": _jsonable(pad_width), "mode": mode}
    if "constant_values" in kwargs:
        p["constant_values"] = _jsonable(kwargs.pop("constant_values"))
    if kwargs:
        raise TypeError("pad: unsupported arguments %s" % sorted(kwargs))
    shape = None
    if a._shape is not None:
        nd = len(a._shape)
        try:
            w = _pad_pairs(pad_width, nd, "pad_width")
            shape = tuple(int(d + w[i][0] + w[i][1]) for i, d in enumerate(a._shape))
        except (ValueError, TypeError):
            shape = None  # the engine refuses it, naming the node
    return _make("pad", [a], p, shape, a._dtype)


def rechunk(a, chunk_size):
    a = _as_tensor(a)
    return _make("rechunk", [a], {"chunk_size": chunk_size}, a._shape, a._dtype)


# indexing


def _slice_text(s):
    def part(v):
        return "" if v is None else str(int(v))
    return "%s:%s%s" % (part(s.start), part(s.stop), "" if s.step is None else ":" + part(s.step))


def _index_doc(a, index, first=1):
    """(index entries, extra inputs, is_basic, index tuple) in the document's
    form; a tensor index is {"input": N}, N counting from `first` (1 for
    getitem's [a, i1, ...], 2 for setitem's [a, value, i1, ...])."""
    if not isinstance(index, tuple):
        index = (index,)
    entries, extra, basic = [], [], True
    for e in index:
        if isinstance(e, (bool, np.bool_)):
            e = tensor(np.array(e))
        if isinstance(e, numbers.Integral):
            entries.append(int(e))
        elif isinstance(e, slice):
            entries.append(_slice_text(e))
        elif e is None:
            entries.append(None)
        elif e is Ellipsis:
            entries.append("...")
        else:
            t = _as_tensor(e)
            extra.append(t)
            entries.append({"input": first + len(extra) - 1})
            basic = False
    return entries, extra, basic, index


def _lower_basic(a, entries):
    """A basic index on a tensor of known ndim, in the form every engine
    version reads: Ellipsis expanded to whole slices, None entries applied as
    expand_dims after the getitem."""
    nd = len(a._shape)
    n_real = builtins.sum(1 for e in entries if e is not None and e != "...")
    out, newaxes, pos = [], [], 0
    for e in entries:
        if e == "...":
            for _ in range(nd - n_real):
                out.append(":")
                pos += 1
        elif e is None:
            newaxes.append(pos)
            pos += 1
        else:
            out.append(e)
            if not isinstance(e, int):
                pos += 1
    return out, newaxes


def getitem(a, index):
    a = _as_tensor(a)
    entries, extra, basic, index = _index_doc(a, index)
    if basic and a._shape is not None and entries.count("...") <= 1:
        shape = _inf.basic_index_shape(a._shape, index)
        if shape is None:  # numpy refuses it: the server will say why
            return _make("getitem", [a], {"index": entries}, None, a._dtype)
        out, newaxes = _lower_basic(a, entries)
        r = _make("getitem", [a], {"index": out}, None if newaxes else shape, a._dtype) \
            if builtins.any(e != ":" for e in out) or not newaxes else a
        if newaxes:
            r = _make("expand_dims", [r], {"axis": newaxes}, shape, a._dtype)
        return r
    if basic:
        shape = _inf.basic_index_shape(a._shape, index)
    else:
        shape = _fancy_shape(a._shape, index)
    if shape is None and builtins.any(t._dtype == np.bool_ for t in extra):
        return _held_back(a, lambda w: _make("getitem", [w] + extra, {"index": entries}, None,
                                             w._dtype))
    return _make("getitem", [a] + extra, {"index": entries}, shape, a._dtype)


def _cast_back(v, dt):
    """a held result's values in numpy's dtype dt (None: as they are)"""
    return v if dt is None else v.astype(dt)


def _held_back(a, build):
    """build(a) for a result whose length is known only when it runs: on a
    widened when the cluster keeps no such result of a's dtype (int32,
    float32, the small dtypes), cast back to a's dtype after"""
    w, dt = _held_wide(a)
    return _cast_back(build(w), dt)


def _fancy_shape(shape, index):
    """numpy's result shape of an index with integer tensors (None where it
    is not known here: unknown shapes, boolean masks, indexes numpy refuses,
    which the server then names)."""
    if shape is None:
        return None
    items = []
    for e in index:
        if e is None:
            items.append(("new",))
        elif e is Ellipsis:
            items.append(("ell",))
        elif isinstance(e, slice):
            items.append(("sl", e))
        elif isinstance(e, (bool, np.bool_)):
            return None
        elif isinstance(e, numbers.Integral):
            items.append(("int",))
        else:
            if isinstance(e, Entity):
                shp, dt = e._shape, e._dtype
            else:
                v = np.asarray(e)
                shp, dt = v.shape, v.dtype
            if shp is None or dt is None or np.dtype(dt).kind not in "iu":
                return None
            items.append(("arr", tuple(shp)))
    used = builtins.sum(1 for it in items if it[0] in ("arr", "sl", "int"))
    if used > len(shape) or builtins.sum(1 for it in items if it[0] == "ell") > 1:
        return None
    ents, d = [], 0
    for it in items:
        if it[0] == "ell":
            for _ in range(len(shape) - used):
                ents.append(("sl", slice(None), shape[d]))
                d += 1
        elif it[0] == "new":
            ents.append(it)
        else:
            ents.append(it + (shape[d],))
            d += 1
    while d < len(shape):
        ents.append(("sl", slice(None), shape[d]))
        d += 1
    adv = [k for k, e in enumerate(ents) if e[0] in ("arr", "int")]
    try:
        b = np.broadcast_shapes(*[e[1] if e[0] == "arr" else () for e in ents
                                  if e[0] in ("arr", "int")])
    except ValueError:
        return None
    adjacent = builtins.all(ents[k][0] in ("arr", "int", "new") for k in range(adv[0], adv[-1] + 1))
    out = [] if adjacent else list(b)
    for k, e in enumerate(ents):
        if e[0] in ("arr", "int"):
            if adjacent and k == adv[0]:
                out += list(b)
        elif e[0] == "new":
            out.append(1)
        else:
            out.append(len(range(*e[1].indices(e[2]))))
    return tuple(out)


def setitem(a, index, value):
    """A new tensor equal to a with a[index] = value (the contract's setitem)."""
    a = _as_tensor(a)
    entries, extra, _, _ = _index_doc(a, index, first=2)
    v = as_operand(value)
    return _make("setitem", [a, v] + extra, {"index": entries}, a._shape, a._dtype)


def take(a, indices, axis=None):
    """numpy.take (mode "raise"; an index out of range fails the task)."""
    a = _as_tensor(a)
    i = indices if isinstance(indices, numbers.Integral) else _as_tensor(indices)
    shape = None
    if a._shape is not None:
        ishape = () if isinstance(i, numbers.Integral) else i._shape
        if ishape is not None and axis is None:
            shape = tuple(ishape)
        elif ishape is not None and -len(a._shape) <= axis < len(a._shape):
            ax = axis % len(a._shape)
            shape = tuple(a._shape[:ax]) + tuple(ishape) + tuple(a._shape[ax + 1:])
    return _make("take", [a, int(i) if isinstance(i, numbers.Integral) else i], {"axis": axis},
                 shape, a._dtype)


def compress(condition, a, axis=None):
    """numpy.compress: its length is known when it runs (fetch it; no op
    takes it, docs/graph-format.md "Advanced indexing")."""
    a, c = _as_tensor(a), _as_tensor(condition)
    return _held_back(a, lambda w: _make("compress", [c, w], {"axis": axis}, None, w._dtype))


def extract(condition, arr):
    a, c = _as_tensor(arr), _as_tensor(condition)
    return _held_back(a, lambda w: _make("extract", [c, w], {}, None, w._dtype))


def argwhere(a):
    return _make("argwhere", [_as_tensor(a)], {}, None, np.dtype(np.int64))


def flatnonzero(a):
    return _make("flatnonzero", [_as_tensor(a)], {}, None, np.dtype(np.int64))


# random


class _Namespace:
    """mt.random / mt.linalg: explicit functions plus any op of the cluster's
    list under that prefix."""

    def __init__(self, prefix, funcs):
        self._prefix = prefix
        self.__dict__.update(funcs)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return _listed(self._prefix + name)

    def __dir__(self):
        names = set(k for k in self.__dict__ if not k.startswith("_"))
        names.update(n[len(self._prefix):] for n in _cluster_ops() if n.startswith(self._prefix))
        return sorted(names)


def _seed(seed):
    import random as _r
    return _r.SystemRandom().getrandbits(31) if seed is None else int(seed)


def _rand_node(op, size, params, dtype, chunk_size, seed):
    shape = () if size is None else _shape_arg(size)
    p = dict(params)
    p["shape"] = list(shape)
    p["seed"] = _seed(seed)  # drawn here: re-running the lineage repeats the values
    if chunk_size is not None:
        p["chunk_size"] = chunk_size
    return _make(op, [], p, shape, np.dtype(dtype))


def _rand(*shape, chunk_size=None, seed=None):
    return _rand_node("random.rand", shape, {}, "float64", chunk_size, seed)


def _randn(*shape, chunk_size=None, seed=None):
    return _rand_node("random.randn", shape, {}, "float64", chunk_size, seed)


def _randint(low, high=None, size=None, dtype="int64", chunk_size=None, seed=None):
    if high is None:
        low, high = 0, low
    p = {"low": low, "high": high}
    if dtype is not None and np.dtype(dtype) != np.int64:
        p["dtype"] = np.dtype(dtype).name
    return _rand_node("random.randint", size, p, dtype or "int64", chunk_size, seed)


def _uniform(low=0.0, high=1.0, size=None, chunk_size=None, seed=None):
    return _rand_node("random.uniform", size, {"low": low, "high": high}, "float64", chunk_size,
                      seed)


def _normal(loc=0.0, scale=1.0, size=None, chunk_size=None, seed=None):
    return _rand_node("random.normal", size, {"loc": loc, "scale": scale}, "float64", chunk_size,
                      seed)


def _random_sample(size=None, chunk_size=None, seed=None):
    return _rand_node("random.rand", size, {}, "float64", chunk_size, seed)


def _dist_node(op, size, params, dtype, chunk_size, seed):
    """numpy's other distributions: numpy's keywords, size the result's shape."""
    shape = () if size is None else _shape_arg(size)
    p = dict(params)
    p["size"] = list(shape)
    p["seed"] = _seed(seed)
    if chunk_size is not None:
        p["chunk_size"] = chunk_size
    return _make(op, [], p, shape, np.dtype(dtype))


def _exponential(scale=1.0, size=None, chunk_size=None, seed=None):
    return _dist_node("random.exponential", size, {"scale": scale}, "float64", chunk_size, seed)


def _poisson(lam=1.0, size=None, chunk_size=None, seed=None):
    return _dist_node("random.poisson", size, {"lam": lam}, "int64", chunk_size, seed)


def _binomial(n, p, size=None, chunk_size=None, seed=None):
    return _dist_node("random.binomial", size, {"n": n, "p": p}, "int64", chunk_size, seed)


def _gamma(shape, scale=1.0, size=None, chunk_size=None, seed=None):
    return _dist_node("random.gamma", size, {"shape": shape, "scale": scale}, "float64",
                      chunk_size, seed)


def _beta(a, b, size=None, chunk_size=None, seed=None):
    return _dist_node("random.beta", size, {"a": a, "b": b}, "float64", chunk_size, seed)


def _lognormal(mean=0.0, sigma=1.0, size=None, chunk_size=None, seed=None):
    return _dist_node("random.lognormal", size, {"mean": mean, "sigma": sigma}, "float64",
                      chunk_size, seed)


def _standard_t(df, size=None, chunk_size=None, seed=None):
    return _dist_node("random.standard_t", size, {"df": df}, "float64", chunk_size, seed)


def _chisquare(df, size=None, chunk_size=None, seed=None):
    return _dist_node("random.chisquare", size, {"df": df}, "float64", chunk_size, seed)


def _sample_node(op, shape, params, dtype, chunk_size, seed):
    """rsample ops (choice, permutation, multinomial, multivariate_normal):
    numpy's keywords, lists as JSON lists."""
    p = dict(params)
    p["seed"] = _seed(seed)
    if chunk_size is not None:
        p["chunk_size"] = chunk_size
    return _make(op, [], p, shape, np.dtype(dtype))


def _values(x, name):
    if isinstance(x, Entity):
        raise TypeError("%s must be a list or an array here, not a cluster tensor" % name)
    return np.asarray(x)


def _tensor_len(x, what):
    if x.shape is None or len(x.shape) == 0:
        raise ValueError("%s of a tensor needs its length: execute it first, or pass an "
                         "integer" % what)
    return int(x.shape[0])


def _choice(a, size=None, replace=True, p=None, chunk_size=None, seed=None):
    """numpy's random.choice; a tensor `a` is take(a, choice(len(a), ...))."""
    shape = () if size is None else _shape_arg(size)
    params = {"replace": bool(replace)}
    if size is not None:
        params["size"] = list(shape)
    if p is not None:
        params["p"] = _values(p, "p").astype(float).tolist()
    if isinstance(a, Tensor):
        params["a"] = _tensor_len(a, "choice")
        idx = _sample_node("random.choice", shape, params, "int64", chunk_size, seed)
        return take(a, idx, axis=0)
    if isinstance(a, numbers.Integral):
        params["a"] = int(a)
        return _sample_node("random.choice", shape, params, "int64", chunk_size, seed)
    arr = _values(a, "a")
    params["a"] = arr.tolist()
    dt = arr.dtype if arr.dtype in (np.bool_, np.int64, np.float64) else (
        np.float64 if arr.dtype.kind == "f" else np.int64)
    return _sample_node("random.choice", shape, params, dt, chunk_size, seed)


def _permutation(x, chunk_size=None, seed=None):
    """numpy's random.permutation: of an integer, a list or array (its
    first axis), or a tensor (take(x, permutation(len(x)), axis=0))."""
    if isinstance(x, Tensor):
        idx = _sample_node("random.permutation", (_tensor_len(x, "permutation"),),
                           {"x": _tensor_len(x, "permutation")}, "int64", chunk_size, seed)
        return take(x, idx, axis=0)
    if isinstance(x, numbers.Integral):
        n = int(x) if int(x) > 0 else 0  # numpy: arange(x); `max` here is mt.max
        return _sample_node("random.permutation", (n,), {"x": int(x)}, "int64", chunk_size, seed)
    arr = _values(x, "x")
    if arr.ndim < 1:
        raise IndexError("x must be an integer or at least 1-dimensional")
    dt = arr.dtype if arr.dtype in (np.bool_, np.int64, np.float64) else (
        np.float64 if arr.dtype.kind == "f" else np.int64)
    return _sample_node("random.permutation", arr.shape, {"x": arr.tolist()}, dt, chunk_size,
                        seed)


def _shuffle(x, chunk_size=None, seed=None):
    """numpy's random.shuffle, as Mars has it: x (a tensor) becomes its rows
    in a random order; returns None."""
    if not isinstance(x, Tensor):
        raise TypeError("shuffle takes a tensor (numpy.random.shuffle shuffles local arrays)")
    new = _permutation(x, chunk_size, seed)
    x._ref = new._ref
    x._shape, x._dtype = new._shape, new._dtype


def _multinomial(n, pvals, size=None, chunk_size=None, seed=None):
    pv = _values(pvals, "pvals").astype(float)
    shape = (() if size is None else _shape_arg(size)) + tuple(pv.shape[-1:])
    params = {"n": int(n), "pvals": pv.tolist()}
    if size is not None:
        params["size"] = list(_shape_arg(size))
    return _sample_node("random.multinomial", shape, params, "int64", chunk_size, seed)


def _multivariate_normal(mean, cov, size=None, check_valid="warn", tol=1e-8, chunk_size=None,
                         seed=None):
    m = _values(mean, "mean").astype(float)
    shape = (() if size is None else _shape_arg(size)) + tuple(m.shape[-1:])
    params = {"mean": m.tolist(), "cov": _values(cov, "cov").astype(float).tolist(),
              "check_valid": check_valid, "tol": float(tol)}
    if size is not None:
        params["size"] = list(_shape_arg(size))
    return _sample_node("random.multivariate_normal", shape, params, "float64", chunk_size, seed)


random = _Namespace("random.", {"rand": _rand, "randn": _randn, "randint": _randint,
                                "uniform": _uniform, "normal": _normal,
                                "random": _random_sample, "random_sample": _random_sample,
                                "exponential": _exponential, "poisson": _poisson,
                                "binomial": _binomial, "gamma": _gamma, "beta": _beta,
                                "lognormal": _lognormal, "standard_t": _standard_t,
                                "chisquare": _chisquare, "choice": _choice,
                                "permutation": _permutation, "shuffle": _shuffle,
                                "multinomial": _multinomial,
                                "multivariate_normal": _multivariate_normal})
def _la_dt(a):
    return np.float32 if a.dtype == np.float32 else np.float64


def _qr(a, mode="reduced"):
    """numpy's linalg.qr (mode "reduced"): (q, r); TSQR across row chunks
    for a tall matrix."""
    a = as_operand(a)
    p = {} if mode == "reduced" else {"mode": mode}
    q, r = _make("linalg.qr", [a], p, n_outputs=2)
    if a._shape is not None and len(a._shape) == 2:
        m, n = a._shape
        k = builtins.min(m, n)
        q._shape, r._shape = (m, k), (k, n)
    if a._dtype is not None:
        q._dtype = r._dtype = np.dtype(_la_dt(a))
    return q, r


def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """numpy's linalg.svd: (u, s, vh), or s with compute_uv=False.
    full_matrices=True (numpy's default) is for square matrices only: pass
    full_matrices=False for a tall or wide one (Mars's reduced SVD)."""
    a = as_operand(a)
    p = {"full_matrices": bool(full_matrices), "compute_uv": bool(compute_uv)}
    if hermitian:
        p["hermitian"] = True
    outs = _make("linalg.svd", [a], p, n_outputs=3 if compute_uv else 1)
    if a._shape is not None and len(a._shape) == 2:
        m, n = a._shape
        k = builtins.min(m, n)
        shapes = [(m, k), (k,), (k, n)] if compute_uv else [(k,)]
        for t, sh in zip(outs, shapes):
            t._shape = sh
    if a._dtype is not None:
        for t in outs:
            t._dtype = np.dtype(_la_dt(a))
    return outs if compute_uv else outs[0]


def _eigh(a, UPLO="L"):
    """numpy's linalg.eigh: (w, v), eigenvalues ascending."""
    a = as_operand(a)
    w, v = _make("linalg.eigh", [a], {} if UPLO == "L" else {"UPLO": UPLO}, n_outputs=2)
    if a._shape is not None and len(a._shape) == 2:
        w._shape, v._shape = (a._shape[0],), a._shape
    if a._dtype is not None:
        w._dtype = v._dtype = np.dtype(_la_dt(a))
    return w, v


def _slogdet(a):
    """numpy's linalg.slogdet: (sign, logabsdet)."""
    a = as_operand(a)
    sg, ld = _make("linalg.slogdet", [a], {}, n_outputs=2)
    sg._shape = ld._shape = ()
    if a._dtype is not None:
        sg._dtype = ld._dtype = np.dtype(_la_dt(a))
    return sg, ld


def _lstsq(a, b, rcond="warn"):
    """numpy's linalg.lstsq: (x, residuals, rank, s), LAPACK's gelsd in one
    job. residuals' length is known when it runs (empty unless the rank is
    N and M > N), float64; rank is int32 as numpy's."""
    a, b = as_operand(a), as_operand(b)
    p = {} if isinstance(rcond, str) and rcond == "warn" else {"rcond": rcond}
    x, res, rk, s = _make("linalg.lstsq", [a, b], p, n_outputs=4)
    rk._shape, rk._dtype = (), np.dtype(np.int32)
    res._dtype = np.dtype(np.float64)
    sa = getattr(a, "_shape", None)
    sb = getattr(b, "_shape", None)
    if sa is not None and len(sa) == 2 and sb is not None and len(sb) in (1, 2):
        x._shape = (sa[1],) + tuple(sb[1:])
        s._shape = (builtins.min(sa),)
    if getattr(a, "_dtype", None) is not None and getattr(b, "_dtype", None) is not None:
        dt = np.float32 if a._dtype == np.float32 and b._dtype == np.float32 else np.float64
        x._dtype = s._dtype = np.dtype(dt)
    return x, res, rk, s  # all four stay "unsized": used later, the op runs first as a whole


linalg = _Namespace("linalg.", {"qr": _qr, "svd": _svd, "eigh": _eigh, "slogdet": _slogdet,
                                "lstsq": _lstsq})
fft = _Namespace("fft.", {})

# ---------------------------------------------------------------------------
# multiout: ops with several results, each a tuple of tensors (one per
# "outputs" key of the document; docs/graph-format.md)


def _n_sections(ios):
    """Results of split & co: N sections, or len(indices) + 1."""
    if np.ndim(ios) == 0:
        return int(ios)
    return len(ios) + 1


def _sections_param(ios):
    return int(ios) if np.ndim(ios) == 0 else [int(i) for i in ios]


def split(ary, indices_or_sections, axis=0):
    return _make("split", [_as_tensor(ary)],
                 {"indices_or_sections": _sections_param(indices_or_sections), "axis": axis},
                 n_outputs=_n_sections(indices_or_sections))


def array_split(ary, indices_or_sections, axis=0):
    return _make("array_split", [_as_tensor(ary)],
                 {"indices_or_sections": _sections_param(indices_or_sections), "axis": axis},
                 n_outputs=_n_sections(indices_or_sections))


def hsplit(ary, indices_or_sections):
    return _make("hsplit", [_as_tensor(ary)],
                 {"indices_or_sections": _sections_param(indices_or_sections)},
                 n_outputs=_n_sections(indices_or_sections))


def vsplit(ary, indices_or_sections):
    return _make("vsplit", [_as_tensor(ary)],
                 {"indices_or_sections": _sections_param(indices_or_sections)},
                 n_outputs=_n_sections(indices_or_sections))


def meshgrid(*xi, indexing="xy", sparse=False, copy=True):
    ts = [_as_tensor(x) for x in xi]
    if not ts:
        return ()
    return _make("meshgrid", ts, {"indexing": indexing, "sparse": bool(sparse)},
                 n_outputs=len(ts))


def _multi_nonzero(op, a):
    a = _as_tensor(a)
    if a._shape is None:
        raise ValueError("%s: the input's number of dimensions is unknown here; execute it "
                         "first" % op)
    return _make(op, [a], {}, n_outputs=len(a._shape))


def nonzero(a):
    """A tuple of int64 index tensors, one per axis; their length is known
    only once they run, so they can be fetched but not used in other ops."""
    return _multi_nonzero("nonzero", a)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           equal_nan=True):
    """numpy.unique: the sorted values alone, or a tuple with the first
    indexes, the inverse and/or the counts. The values, indexes and counts
    have a length known only once they run (fetch them); the inverse has
    the input's size and is an ordinary tensor."""
    p = {"return_index": bool(return_index), "return_inverse": bool(return_inverse),
         "return_counts": bool(return_counts), "axis": axis, "equal_nan": bool(equal_nan)}
    n = 1 + bool(return_index) + bool(return_inverse) + bool(return_counts)
    a = _as_tensor(ar)
    wide, dt = _held_wide(a)
    res = _make("unique", [wide], p, n_outputs=n)
    res = (_cast_back(res[0], dt),) + tuple(res[1:])  # values computed widened
    return res if n > 1 else res[0]


# The dtypes whose values an int64 or float64 holds exactly, in order: a
# result whose length is known only when it runs (unique, the set ops) is
# computed in those and cast back (the cluster keeps such results as int64,
# float64 or bool; graph-format.md refuses the others).
_HELD_WIDE = {np.dtype(t): np.dtype(w) for t, w in
              [(np.int8, np.int64), (np.int16, np.int64), (np.int32, np.int64),
               (np.uint8, np.int64), (np.uint16, np.int64), (np.uint32, np.int64),
               (np.float16, np.float64), (np.float32, np.float64)]}


def _held_wide(a):
    """(a widened for a held result, its dtype to cast back to) or (a, None)"""
    dt = a._dtype
    if dt is None or np.dtype(dt) not in _HELD_WIDE:
        return a, None
    return a.astype(_HELD_WIDE[np.dtype(dt)]), np.dtype(dt)


def histogram(a, bins=10, range=None, density=None, weights=None):
    """numpy.histogram: (hist, bin_edges); bins an integer or edges (a
    tensor, an array or a list); weights a tensor or array of a's shape."""
    ins = [_as_tensor(a)]
    p = {"density": bool(density)}
    if np.ndim(bins) == 0 and not isinstance(bins, Entity):
        p["bins"] = int(bins)
    else:
        ins.append(_as_tensor(bins))
    if range is not None:
        p["range"] = [float(range[0]), float(range[1])]
    if weights is not None:  # the last input (graph-format.md, histogram)
        p["weights"] = True
        ins.append(_as_tensor(weights))
    return _make("histogram", ins, p, n_outputs=2)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """numpy.intersect1d: the sorted common values; with return_indices a
    tuple (values, first indexes in ar1, first indexes in ar2). Lengths are
    known only once they run: fetch them."""
    p = {"assume_unique": bool(assume_unique), "return_indices": bool(return_indices)}
    a, b, dt = _set_wide(ar1, ar2, "intersect1d")
    if return_indices:
        v, i1, i2 = _make("intersect1d", [a, b], p, n_outputs=3)
        return _cast_back(v, dt), i1, i2
    return _cast_back(_make("intersect1d", [a, b], p), dt)


def _set_wide(ar1, ar2, op):
    """a set op's operands widened for its held result, and numpy's dtype
    to cast the values back to (None: as the cluster gives them)"""
    a, b = _as_tensor(ar1), _as_tensor(ar2)
    if a._dtype is None or b._dtype is None:
        return a, b, None
    want = np.dtype(a._dtype) if op == "setdiff1d" else np.result_type(a._dtype, b._dtype)
    # each operand widened on its own (its values exactly; setdiff1d
    # compares int32 with float32 values as numpy does)
    (a, _), (b, _) = _held_wide(a), _held_wide(b)
    return a, b, (want if want in _HELD_WIDE else None)


def _n_outputs(rule, inputs, p):
    """An op list's "outputs": a count, or the rule giving it ("inputs":
    one per input; "sections": from indices_or_sections)."""
    if isinstance(rule, int):
        return rule
    if rule == "inputs":
        return len(inputs)
    if rule == "flags":
        return 1 + sum(bool(p.get(k)) for k in ("return_index", "return_inverse",
                                                 "return_counts"))
    if rule == "ndim":
        s = getattr(inputs[0], "_shape", None) if inputs else None
        return len(s) if s is not None else 0
    if rule == "sections":
        return _n_sections(p.get("indices_or_sections", 1))
    return 0


# ---------------------------------------------------------------------------
# the cluster's op list (GET /api/v1/ops)

_ops_cache = {}

# Ops whose numpy function returns a tuple: how many results.
MULTI_OUTPUT = {"linalg.qr": 2, "linalg.svd": 3, "linalg.eigh": 2, "linalg.eig": 2,
                "linalg.slogdet": 2, "linalg.lstsq": 4, "histogram": 2}


def _cluster_ops(session=None):
    """{name: entry} of GET /api/v1/ops on the default session's cluster
    (cached per cluster); empty without a session."""
    s = session or core.Session.default()
    if s is None:
        return {}
    if s.url not in _ops_cache:
        doc = s._http.json("GET", "/api/v1/ops").json()
        _ops_cache[s.url] = {o["name"]: o for o in doc["ops"]}
    return _ops_cache[s.url]


def ops(session=None):
    """The cluster's op list: {name: {"kind", "inputs", "params"}}."""
    return dict(_cluster_ops(session))


def _listed(name):
    entry = _cluster_ops().get(name)
    if entry is None:
        raise AttributeError(
            "marsc.tensor has no %r, and the cluster does not list an op of that name at "
            "GET /api/v1/ops (create a session first with marsc.new_session() so that "
            "the cluster's list is read)" % name)
    return generic(name, entry)


# listed ops whose shape and dtype follow from their inputs' and their
# parameters alone, as numpy's function of the same name and keywords
_SHAPE_ONLY = ("swapaxes", "moveaxis", "rollaxis", "flip", "fliplr", "flipud", "diff",
               "atleast_1d", "atleast_2d", "atleast_3d", "ptp", "count_nonzero", "ediff1d")


def _sampled(name, ins, params):
    """(shape, dtype) of op `name` over tensors of known shapes, as numpy's
    function gives them on zeros of those shapes (views of one zero, up to
    4M elements); (None, None) where unknown here (the server's validation
    is the truth)"""
    fn = getattr(np, name, None) if name in _SHAPE_ONLY else None
    if fn is None or not builtins.all(isinstance(x, Tensor) and x._shape is not None and
                                      x._dtype is not None for x in ins) or \
            builtins.sum(math.prod(x._shape) for x in ins) > 1 << 22:
        return None, None
    out = _inf.sample_result(fn, *[np.broadcast_to(np.zeros((), x._dtype), x._shape)
                                  for x in ins], **params)
    return (None, None) if out is None else (out.shape, out.dtype)


def generic(name, entry):
    """A function for op `name` from its listing: positional arguments are
    its inputs (a list for ops of N+ inputs) then its parameters in order;
    keywords are parameters under their own names."""
    n_in = entry.get("inputs", "1")
    params = list(entry.get("params", []))
    n_out = entry.get("outputs") or MULTI_OUTPUT.get(name, 0)

    def f(*args, **kw):
        args = list(args)
        if n_in.endswith("+"):
            if not args:
                raise TypeError("%s: expects a sequence of tensors" % name)
            first = args.pop(0)
            inputs = list(first) if isinstance(first, (list, tuple)) else [first]
        else:
            k = int(n_in)
            inputs, args = args[:k], args[k:]
        if len(args) > len(params):
            raise TypeError("%s takes at most %d parameters (%s), got %d"
                            % (name, len(params), ", ".join(params), len(args)))
        p = dict(zip(params, args))
        for k, v in kw.items():
            if k == "size" and "shape" in params and "size" not in params:
                k = "shape"
            p[k] = v
        if name.startswith("random.") and "seed" in params and p.get("seed") is None:
            p["seed"] = _seed(None)
        if "dtype" in p and p["dtype"] is not None:
            p["dtype"] = np.dtype(p["dtype"]).name
        ins = [as_operand(x) for x in inputs]
        kind = _kind_of(ins)
        if kind != "tensor":
            from ..dataframe import elementwise
            return elementwise(name, ins, p)
        n = _n_outputs(n_out, ins, p)
        shape, dtype = _sampled(name, ins, p) if not n else (None, None)
        return _make(name, ins, p, shape, dtype, n_outputs=n)
    f.__name__ = name.rsplit(".", 1)[-1]
    f.__doc__ = "the cluster's op %s: inputs %s, parameters %s" % (name, n_in, ", ".join(params))
    return f


# numpy's signatures for sorting, statistics, set ops, diagonals, einsum and
# the one-block linear algebra (the generic path's argument order is not
# numpy's for several of them: _numpyfuncs), and numpy functions with no op
# of their own, composed of the cluster's ops (_composed)
from . import _composed, _numpyfuncs  # noqa: E402

for _m in (_numpyfuncs, _composed):
    for _n in _m.__all__:
        globals()[_n] = getattr(_m, _n)
    linalg.__dict__.update(_m.LINALG)
del _m, _n


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(name)
    return _listed(name)


def __dir__():
    return sorted(set(globals()) | set(n for n in _cluster_ops() if "." not in n))
