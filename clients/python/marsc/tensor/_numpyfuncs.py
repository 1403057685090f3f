"""numpy's functions of sorting and searching, statistics, set operations,
diagonals, einsum and the one-block linear algebra, with numpy's signatures.

The op list's generic functions (`mt.NAME` for a listed op) take the inputs
first, then the parameters in the listed order. That is not numpy's order
for `searchsorted(a, v, side)`, `average(a, axis, weights)`, `cov(m, y)`,
`bincount(x, weights)` or `einsum(subscripts, *operands)`, and it knows no
result shape; these functions take numpy's arguments and know the shape and
dtype of every result whose length is not data (numpy decides the dtype on
small samples, as for the ufuncs)."""
import builtins
import numbers

import numpy as np

from . import _infer as _inf
from . import _as_tensor, _make, _unary

__all__ = ["sort", "argsort", "partition", "argpartition", "topk", "searchsorted", "digitize",
           "isin", "in1d", "median", "nanmedian", "percentile", "nanpercentile", "quantile",
           "nanquantile", "average", "cov", "corrcoef", "allclose", "isclose", "bincount",
           "union1d", "setdiff1d", "einsum", "diag", "diagonal", "trace", "tril", "triu", "vdot",
           "round", "around", "round_", "isneginf", "isposinf"]


def _sample(t, ndim=None):
    """Ones of t's dtype, 2 along each of its axes (None: dtype unknown)."""
    if t._dtype is None:
        return None
    nd = ndim if ndim is not None else (len(t._shape) if t._shape is not None else 1)
    return np.ones((2,) * nd, t._dtype)


def _size(shape):
    return None if shape is None else int(np.prod(shape, dtype=np.int64))


def _axis_shape(shape, axis, length):
    """shape with axis (None: flattened) replaced by length (None: kept)."""
    if shape is None:
        return None
    if axis is None:
        return (_size(shape) if length is None else length,)
    ax = _inf.norm_axes(axis, len(shape))
    if ax is None or len(shape) == 0:
        return None
    ax = ax[0]
    return shape[:ax] + ((shape[ax] if length is None else length),) + shape[ax + 1:]


def _vec(x):
    """A tensor operand from a number, a list, an array or a tensor."""
    return _as_tensor(np.asarray(x) if isinstance(x, (numbers.Number, np.generic)) else x)


def _q(q):
    """q for the document: a number or a list of numbers; with its count
    (None for a number)."""
    if isinstance(q, (numbers.Number, np.generic)):
        return float(q), None
    qs = [float(v) for v in np.asarray(q, dtype=np.float64).ravel()]
    return qs, len(qs)


# -- sorting and searching --------------------------------------------------

def _sorting(op, a, axis, kind, order, dtype=None):
    a = _as_tensor(a)
    p = {"axis": axis, "kind": kind, "order": order}
    return _make(op, [a], {k: v for k, v in p.items() if v is not None or k == "axis"},
                 _axis_shape(a._shape, axis, None), dtype or a._dtype)


def sort(a, axis=-1, kind=None, order=None):
    """numpy.sort: stable whatever `kind`, NaN last."""
    return _sorting("sort", a, axis, kind, order)


def argsort(a, axis=-1, kind=None, order=None):
    """numpy.argsort with kind="stable" (ties keep their order), int64."""
    return _sorting("argsort", a, axis, kind, order, np.dtype(np.int64))


def _kth(kth):
    return int(kth) if isinstance(kth, numbers.Integral) else [int(k) for k in kth]


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """numpy.partition (the engine returns each line fully sorted, a valid
    partition for every kth)."""
    a = _as_tensor(a)
    p = {"kth": _kth(kth), "axis": axis}
    return _make("partition", [a], p, _axis_shape(a._shape, axis, None), a._dtype)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    a = _as_tensor(a)
    p = {"kth": _kth(kth), "axis": axis}
    return _make("argpartition", [a], p, _axis_shape(a._shape, axis, None), np.dtype(np.int64))


def topk(a, k, axis=-1, largest=True, sorted=True):  # noqa: A002 - Mars's keyword
    """Mars's topk: the k largest (smallest) along the axis, sorted."""
    a = _as_tensor(a)
    p = {"k": int(k), "axis": axis, "largest": bool(largest), "sorted": bool(sorted)}
    return _make("topk", [a], p, _axis_shape(a._shape, axis, int(k)), a._dtype)


def searchsorted(a, v, side="left", sorter=None):
    """numpy.searchsorted: a 1-D and sorted (or sorted by `sorter`)."""
    a, v = _as_tensor(a), _vec(v)
    ins = [a, v] + ([_as_tensor(sorter)] if sorter is not None else [])
    return _make("searchsorted", ins, {"side": side}, v._shape, np.dtype(np.int64))


def digitize(x, bins, right=False):
    x = _vec(x)
    return _make("digitize", [x, _as_tensor(bins)], {"right": bool(right)}, x._shape,
                 np.dtype(np.int64))


def isin(element, test_elements, assume_unique=False, invert=False):
    e = _vec(element)
    return _make("isin", [e, _vec(test_elements)],
                 {"assume_unique": bool(assume_unique), "invert": bool(invert)}, e._shape,
                 np.dtype(bool))


def in1d(ar1, ar2, assume_unique=False, invert=False):
    a = _vec(ar1)
    s = _size(a._shape)
    return _make("in1d", [a, _vec(ar2)],
                 {"assume_unique": bool(assume_unique), "invert": bool(invert)},
                 None if s is None else (s,), np.dtype(bool))


# -- statistics ---------------------------------------------------------------

def _axis_param(axis):
    if axis is None or isinstance(axis, numbers.Integral):
        return axis
    raise TypeError("axis must be None or an integer (a tuple of axes is not supported)")


def _order_stat(op, a, q, axis, keepdims, method):
    a = _as_tensor(a)
    if method != "linear":
        raise ValueError("only method='linear' (numpy's default) is supported, not %r" % method)
    p = {"axis": _axis_param(axis)}
    if keepdims:
        p["keepdims"] = True
    n_q = None
    if q is not None:
        p["q"], n_q = _q(q)
    shape = _inf.reduce_shape(a._shape, axis, keepdims)
    if shape is not None and n_q is not None:
        shape = (n_q,) + shape
    if op.endswith("median"):
        dt = _inf.sample_dtype(np.median, _sample(a))
    else:
        dt = np.dtype(np.float64)  # the contract's dtype, whatever numpy's NaN shortcut says
    return _make(op, [a], p, shape, dt)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return _order_stat("median", a, None, axis, keepdims, "linear")


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return _order_stat("nanmedian", a, None, axis, keepdims, "linear")


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False):
    return _order_stat("percentile", a, q, axis, keepdims, method)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False):
    return _order_stat("nanpercentile", a, q, axis, keepdims, method)


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    return _order_stat("quantile", a, q, axis, keepdims, method)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False):
    return _order_stat("nanquantile", a, q, axis, keepdims, method)


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """numpy.average; `returned=True` is not supported (take the weights'
    sum with mt.sum)."""
    if returned:
        raise NotImplementedError("average(returned=True) is not supported: the weights' sum "
                                  "is mt.sum(weights, axis)")
    a = _as_tensor(a)
    ins = [a]
    ws = None
    if weights is not None:
        w = _as_tensor(weights)
        ins.append(w)
        ws = np.ones(w._shape, w._dtype) if w._shape is not None and w._dtype is not None and \
            _size(w._shape) <= 64 else None
    p = {"axis": _axis_param(axis)}
    if keepdims:
        p["keepdims"] = True
    shape = _inf.reduce_shape(a._shape, axis, keepdims)
    sa = None
    if a._shape is not None and a._dtype is not None and _size(a._shape) <= 64:
        sa = np.ones(a._shape, a._dtype)
    dt = _inf.sample_dtype(np.average, sa, axis=axis, weights=ws) if (weights is None or ws is not None) \
        else None
    return _make("average", ins, p, shape, dt)


def _n_vars(t, rowvar):
    s = t._shape
    if s is None or len(s) > 2:
        return None
    if len(s) < 2:
        return 1
    return s[0] if rowvar else s[1]


def _cov_like(op, m, y, rowvar, p):
    m = _as_tensor(m)
    ins = [m]
    n = _n_vars(m, rowvar)
    if y is not None:
        yt = _as_tensor(y)
        ins.append(yt)
        k = _n_vars(yt, rowvar)
        n = None if n is None or k is None else n + k
    p["rowvar"] = bool(rowvar)
    shape = None if n is None else (() if n == 1 else (n, n))
    return _make(op, ins, p, shape, np.dtype(np.float64))


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    if fweights is not None or aweights is not None or dtype is not None:
        raise NotImplementedError("cov: fweights, aweights and dtype are not supported")
    p = {"bias": bool(bias)}
    if ddof is not None:
        p["ddof"] = int(ddof)
    return _cov_like("cov", m, y, rowvar, p)


def corrcoef(x, y=None, rowvar=True):
    return _cov_like("corrcoef", x, y, rowvar, {})


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """A 0-d bool tensor (numpy returns a bool: fetch it, or bool(t.fetch()))."""
    return _make("allclose", [_vec(a), _vec(b)],
                 {"rtol": float(rtol), "atol": float(atol), "equal_nan": bool(equal_nan)}, (),
                 np.dtype(bool))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b = _vec(a), _vec(b)
    return _make("isclose", [a, b],
                 {"rtol": float(rtol), "atol": float(atol), "equal_nan": bool(equal_nan)},
                 _inf.broadcast(a._shape, b._shape), np.dtype(bool))


# -- counting and set operations (lengths are data) ----------------------------

def bincount(x, weights=None, minlength=0):
    x = _as_tensor(x)
    ins = [x] + ([_as_tensor(weights)] if weights is not None else [])
    p = {"minlength": int(minlength)} if minlength else {}
    return _make("bincount", ins, p, None,
                 np.dtype(np.float64 if weights is not None else np.int64))


def union1d(ar1, ar2):
    from . import _cast_back, _set_wide
    a, b, dt = _set_wide(_vec(ar1), _vec(ar2), "union1d")
    return _cast_back(_make("union1d", [a, b]), dt)


def setdiff1d(ar1, ar2, assume_unique=False):
    from . import _cast_back, _set_wide
    a, b, dt = _set_wide(_vec(ar1), _vec(ar2), "setdiff1d")
    return _cast_back(_make("setdiff1d", [a, b], {"assume_unique": bool(assume_unique)}), dt)


# -- diagonals, einsum, vdot ---------------------------------------------------

def _diag_len(r, c, k):
    return builtins.max(0, builtins.min(r, c - k) if k >= 0 else builtins.min(r + k, c))


def diag(v, k=0):
    v = _as_tensor(v)
    s, k = v._shape, int(k)
    shape = None
    if s is not None and len(s) == 1:
        shape = (s[0] + abs(k),) * 2
    elif s is not None and len(s) == 2:
        shape = (_diag_len(s[0], s[1], k),)
    return _make("diag", [v], {"k": k}, shape, v._dtype)


def diagonal(a, offset=0, axis1=0, axis2=1):
    a = _as_tensor(a)
    s, shape = a._shape, None
    if s is not None and len(s) >= 2:
        x, y = axis1 % len(s), axis2 % len(s)
        rest = tuple(d for i, d in enumerate(s) if i not in (x, y))
        shape = rest + (_diag_len(s[x], s[y], int(offset)),)
    return _make("diagonal", [a], {"offset": int(offset), "axis1": axis1, "axis2": axis2}, shape,
                 a._dtype)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    a = _as_tensor(a)
    s, shape = a._shape, None
    if s is not None and len(s) >= 2:
        x, y = axis1 % len(s), axis2 % len(s)
        shape = tuple(d for i, d in enumerate(s) if i not in (x, y))
    p = {"offset": int(offset), "axis1": axis1, "axis2": axis2}
    if dtype is not None:
        p["dtype"] = np.dtype(dtype).name
    dt = _inf.sample_dtype(np.trace, _sample(a, 2), dtype=dtype) if a._dtype is not None else None
    return _make("trace", [a], p, shape, dt)


def _tri(op, m, k):
    m = _as_tensor(m)
    s = m._shape
    shape = (s[0], s[0]) if s is not None and len(s) == 1 else s
    return _make(op, [m], {"k": int(k)}, shape, m._dtype)


def tril(m, k=0):
    return _tri("tril", m, k)


def triu(m, k=0):
    return _tri("triu", m, k)


def einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe",
           optimize=False):
    """numpy.einsum(subscripts, *operands) with optimize=False's result;
    the shape is the server's."""
    if out is not None or dtype is not None:
        raise NotImplementedError("einsum: out and dtype are not supported")
    ops = [_as_tensor(o) for o in operands]
    dt = np.result_type(*[o._dtype for o in ops]) if ops and builtins.all(
        o._dtype is not None for o in ops) else None
    return _make("einsum", ops, {"subscripts": str(subscripts)}, None, dt)


def vdot(a, b):
    a, b = _as_tensor(a), _as_tensor(b)
    return _make("vdot", [a, b], None, (), _inf.sample_dtype(np.vdot, _sample(a, 1), _sample(b, 1)))


def round(a, decimals=0, out=None):  # noqa: A001 - numpy's name
    return _unary("round", a, {"decimals": int(decimals)})


around = round_ = round


def isneginf(x, out=None):
    return _unary("isneginf", x)


def isposinf(x, out=None):
    return _unary("isposinf", x)


# -- one-block linear algebra (mt.linalg) ------------------------------------

def _la_float(a):
    return None if a._dtype is None else np.dtype(np.float32 if a._dtype == np.float32
                                                  else np.float64)


def _inv(a):
    a = _as_tensor(a)
    return _make("linalg.inv", [a], None, a._shape, _la_float(a))


def _det(a):
    a = _as_tensor(a)
    return _make("linalg.det", [a], None, None if a._shape is None else a._shape[:-2],
                 _la_float(a))


def _solve(a, b):
    a, b = _as_tensor(a), _as_tensor(b)
    dt = _inf.sample_dtype(np.linalg.solve, np.eye(2, dtype=a._dtype) if a._dtype is not None else None,
                   np.ones(2, b._dtype) if b._dtype is not None else None)
    return _make("linalg.solve", [a, b], None, b._shape, dt)


def _cholesky(a):
    a = _as_tensor(a)
    return _make("linalg.cholesky", [a], None, a._shape, _la_float(a))


def _norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - numpy's keyword
    x = _as_tensor(x)
    o = ord
    if isinstance(o, float) and np.isinf(o):
        o = "inf" if o > 0 else "-inf"
    p = {"ord": o, "axis": list(axis) if isinstance(axis, (list, tuple)) else axis}
    if keepdims:
        p["keepdims"] = True
    shape = _inf.reduce_shape(x._shape, axis, keepdims) if x._shape is not None else None
    return _make("linalg.norm", [x], p, shape, _la_float(x))


def _matrix_rank(A, tol=None, hermitian=False):
    a = _as_tensor(A)
    p = {"hermitian": bool(hermitian)}
    if tol is not None:
        p["tol"] = float(tol)
    return _make("linalg.matrix_rank", [a], p, None if a._shape is None else a._shape[:-2],
                 np.dtype(np.int64))


LINALG = {"inv": _inv, "det": _det, "solve": _solve, "cholesky": _cholesky, "norm": _norm,
          "matrix_rank": _matrix_rank}
