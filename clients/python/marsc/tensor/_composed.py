"""numpy functions the cluster lists no op for, composed here of ops it
has, with numpy's signatures: nan_to_num, append, delete, insert, resize,
diagflat, trim_zeros, unwrap, rot90, kron, cross, unravel_index,
ravel_multi_index, gradient, convolve, array_equal, triu_indices,
tril_indices, trapz, polyval, polyfit, interp, lexsort, apply_along_axis (of
numpy's reductions), logaddexp, logaddexp2, ldexp, fabs, conj, divmod,
modf, select, choose, block, sinc, tri, vander, histogram_bin_edges,
linalg.matrix_power, linalg.cond, linalg.pinv and linalg.eigvalsh; and numpy's constants
(nan, inf, pi, e, newaxis) and dtypes (float64 ... uint8, bool_, dtype,
iinfo, finfo). Each gives numpy's values (and its dtype,
where the ops it is made of follow numpy's promotion)."""
import numbers
import operator

import numpy as np

__all__ = ["nan_to_num", "append", "delete", "insert", "resize", "diagflat", "trim_zeros",
           "unwrap", "rot90", "kron", "cross", "unravel_index",
           "gradient", "convolve", "array_equal", "triu_indices", "tril_indices",
           "ravel_multi_index", "trapz", "polyval", "polyfit", "interp", "lexsort",
           "apply_along_axis",
           "logaddexp", "logaddexp2", "ldexp", "fabs", "conj", "conjugate", "divmod", "modf",
           "select", "choose", "block", "sinc", "tri", "vander", "histogram_bin_edges",
           "nan", "inf",
           "pi", "e", "newaxis", "NINF", "PINF", "euler_gamma", "float64", "float32", "int64",
           "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8", "bool_", "dtype",
           "iinfo", "finfo"]

# numpy's constants (mt.nan, mt.newaxis ...) and dtypes (mt.float32 ...)
nan, inf, pi, e, newaxis = np.nan, np.inf, np.pi, np.e, np.newaxis
NINF, PINF, euler_gamma = -np.inf, np.inf, np.euler_gamma
float64, float32, int64, int32, int16, int8 = (np.float64, np.float32, np.int64, np.int32,
                                               np.int16, np.int8)
uint64, uint32, uint16, uint8, bool_ = np.uint64, np.uint32, np.uint16, np.uint8, np.bool_
dtype, iinfo, finfo = np.dtype, np.iinfo, np.finfo


def _mt():
    from .. import tensor
    return tensor


def _shape(a, what):
    """a's shape, known here (these functions need it)"""
    if a.shape is None:
        raise NotImplementedError("%s needs the shape of its input, which the client does not "
                                  "know before it runs: execute() it first" % what)
    return a.shape


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN as `nan`, infinities as the largest (smallest) finite value of
    x's float dtype or as posinf (neginf); integers and bools as they are"""
    mt = _mt()
    x = mt._as_tensor(x)
    dt = x.dtype
    if dt is None or dt.kind not in "fc":
        return x
    info = np.finfo(dt)
    out = mt.where(mt.isnan(x), nan, x)
    out = mt.where(mt.isposinf(x), info.max if posinf is None else posinf, out)
    return mt.where(mt.isneginf(x), info.min if neginf is None else neginf, out)


def append(arr, values, axis=None):
    """values after arr: both flattened (axis None), or along axis"""
    mt = _mt()
    arr, values = mt._as_tensor(arr), mt._as_tensor(values)
    if axis is None:
        return mt.concatenate([mt.ravel(arr), mt.ravel(values)])
    return mt.concatenate([arr, values], axis=axis)


def _axis_of(shape, axis):
    axis = operator.index(axis)
    if not -len(shape) <= axis < len(shape):
        raise np.AxisError(axis, len(shape))
    return axis % len(shape)


def delete(arr, obj, axis=None):
    """arr without the entries obj (an index, a list of them, a slice or a
    bool mask) along axis (None: arr flattened), as a take of the others"""
    mt = _mt()
    arr = mt._as_tensor(arr)
    if axis is None:
        arr, axis = mt.ravel(arr), 0
    shape = _shape(arr, "delete")
    axis = _axis_of(shape, axis)
    n = shape[axis]
    if isinstance(obj, slice):
        drop = set(range(n)[obj])
    else:
        o = np.asarray(obj)
        if o.dtype == bool:
            if o.shape != (n,):
                raise ValueError("boolean array argument obj to delete must be one dimensional "
                                 "and match the axis length of %d" % n)
            drop = set(np.flatnonzero(o).tolist())
        else:
            if o.dtype.kind not in "iu" and o.size:
                raise IndexError("arrays used as indices must be of integer (or boolean) type")
            drop = set()
            for i in o.ravel().tolist():
                if not -n <= i < n:
                    raise IndexError("index %d is out of bounds for axis %d with size %d"
                                     % (i, axis, n))
                drop.add(i % n)
    keep = [i for i in range(n) if i not in drop]
    return mt.take(arr, np.asarray(keep, dtype=np.int64), axis=axis)


def _spread(mt, v, tv, target, dt):
    """insert's values (a tensor when tv, else numpy's) broadcast to target"""
    if tv:
        return mt.broadcast_to(v, target)
    if 0 in target:
        return mt.zeros(target, dtype=dt if dt is not None else v.dtype)
    return mt.array(np.broadcast_to(v, target).copy())


def insert(arr, obj, values, axis=None):
    """values inserted before the entries obj (an index, a list of them or
    a slice) along axis (None: arr flattened), cast to arr's dtype, as
    numpy 1.24's insert: one index takes values as a block (numpy's
    moveaxis of their first axis), several take one entry each"""
    mt = _mt()
    arr = mt._as_tensor(arr)
    if axis is None:
        arr, axis = mt.ravel(arr) if len(_shape(arr, "insert")) != 1 else arr, 0
    shape = list(_shape(arr, "insert"))
    axis = _axis_of(shape, axis)
    n, nd, dt = shape[axis], len(shape), arr.dtype
    if isinstance(obj, slice):
        idx = np.arange(*obj.indices(n), dtype=np.int64)
    else:
        idx = np.array(obj)
        if idx.dtype == bool:
            raise NotImplementedError("insert: a boolean obj (numpy 1.24 casts it to integers "
                                      "with a FutureWarning): pass the indexes")
        if idx.ndim > 1:
            raise ValueError("index array argument obj to insert must be one dimensional or "
                             "scalar")
        if idx.size and idx.dtype.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
    tv = hasattr(values, "_ref")
    if tv:
        v = values if dt is None else values.astype(dt)
        vshape = list(_shape(v, "insert"))
    else:
        v = np.array(values, dtype=dt) if dt is not None else np.array(values)
        vshape = list(v.shape)
    if idx.size == 1:
        index = int(idx.item())
        if not -n <= index <= n:
            raise IndexError("index %s is out of bounds for axis %d with size %d"
                             % (obj, axis, n))
        if index < 0:
            index += n
        vshape = [1] * (nd - len(vshape)) + vshape  # numpy's ndmin
        v = v.reshape(vshape)
        if idx.ndim == 0:  # numpy's moveaxis(values, 0, axis)
            v = mt.moveaxis(v, 0, axis) if tv else np.moveaxis(v, 0, axis)
            vshape = list(_shape(v, "insert")) if tv else list(v.shape)
        target = list(shape)
        target[axis] = vshape[axis]
        vb = _spread(mt, v, tv, target, dt)
        lo = [slice(None)] * nd
        hi = [slice(None)] * nd
        lo[axis], hi[axis] = slice(None, index), slice(index, None)
        return mt.concatenate([arr[tuple(lo)], vb, arr[tuple(hi)]], axis=axis)
    idx = idx.astype(np.int64).ravel()
    m = len(idx)
    if (idx < -n).any():
        raise IndexError("index %d is out of bounds for axis %d with size %d"
                         % (int(idx[idx < -n][0]), axis, n))
    idx = np.where(idx < 0, idx + n, idx)
    order = np.argsort(idx, kind="mergesort")
    pos = idx.copy()
    pos[order] += np.arange(m)
    if (pos >= n + m).any():  # numpy's message names the shifted index
        raise IndexError("index %d is out of bounds for axis %d with size %d"
                         % (int(pos[pos >= n + m][0]), axis, n + m))
    target = list(shape)
    target[axis] = m
    vb = _spread(mt, v, tv, target, dt)
    perm = np.empty(n + m, dtype=np.int64)
    old = np.ones(n + m, dtype=bool)
    old[pos] = False
    perm[old] = np.arange(n)
    perm[pos] = n + np.arange(m)
    both = mt.concatenate([arr, vb], axis=axis)
    return mt.take(both, perm, axis=axis)


def resize(a, new_shape):
    """numpy's resize: a's elements in order, repeated as often as the new
    shape needs (zeros when a is empty)"""
    mt = _mt()
    a = mt._as_tensor(a)
    if isinstance(new_shape, numbers.Integral):
        new_shape = (new_shape,)
    new_shape = tuple(operator.index(d) for d in new_shape)
    if any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    size = int(np.prod(_shape(a, "resize"), dtype=np.int64))
    new_size = int(np.prod(new_shape, dtype=np.int64))
    if size == 0 or new_size == 0:
        return mt.zeros(new_shape, dtype=a.dtype)
    flat = mt.ravel(a)
    reps = -(-new_size // size)
    if reps > 1:
        flat = mt.tile(flat, reps)
    return flat[:new_size].reshape(new_shape)


def diagflat(v, k=0):
    """numpy's diagflat: v flattened on the k-th diagonal of a square
    array of zeros"""
    mt = _mt()
    return mt.diag(mt.ravel(mt._as_tensor(v)), k)


def trim_zeros(filt, trim="fb"):
    """numpy's trim_zeros of a 1-D array: the leading ("f") and trailing
    ("b") zeros dropped, a boolean mask of cumulative sums (the length is
    known when it runs)"""
    mt = _mt()
    filt = mt._as_tensor(filt)
    if len(_shape(filt, "trim_zeros")) != 1:
        raise ValueError("trim_zeros: a 1-D array")
    trim = trim.upper()
    nz = (filt != 0).astype("int64")
    keep = None
    if "F" in trim:
        keep = mt.cumsum(nz) > 0
    if "B" in trim:
        back = mt.flip(mt.cumsum(mt.flip(nz, 0)), 0) > 0
        keep = back if keep is None else keep & back
    return filt[...] if keep is None else filt[keep]


def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """numpy's unwrap: jumps between neighbours larger than discont
    (period / 2 by default) taken back by multiples of period along axis,
    numpy's formula (diff, mod, the boundary rule, cumsum)"""
    mt = _mt()
    p = mt._as_tensor(p)
    shape = _shape(p, "unwrap")
    axis = _axis_of(shape, axis)
    dd = mt.diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    pdt = p.dtype if p.dtype is not None else np.dtype(np.float64)
    dt = np.result_type(np.diff(np.zeros(2, pdt)), period)
    if np.issubdtype(dt, np.integer):
        high, ambiguous = period // 2, period % 2 == 0  # (divmod is mt's here)
    else:
        high, ambiguous = period / 2, True
    dd = dd.astype(dt) if dd.dtype != dt else dd
    ddmod = mt.mod(dd + high, period) - high
    if ambiguous:
        ddmod = mt.where((ddmod == -high) & (dd > 0), high, ddmod)
    fix = mt.where(mt.abs(dd) < discont, 0, ddmod - dd).astype(dt)
    first = [slice(None)] * len(shape)
    rest = list(first)
    first[axis], rest[axis] = slice(0, 1), slice(1, None)
    pw = p.astype(dt) if pdt != dt else p
    return mt.concatenate([pw[tuple(first)], pw[tuple(rest)] + mt.cumsum(fix, axis=axis)],
                          axis=axis)


def rot90(m, k=1, axes=(0, 1)):
    """m rotated by 90 degrees k times in the plane of axes, as numpy's:
    flips and a transpose"""
    mt = _mt()
    m = mt._as_tensor(m)
    nd = len(_shape(m, "rot90"))
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == nd:
        raise ValueError("Axes must be different.")
    if not all(-nd <= a < nd for a in axes):
        raise ValueError("Axes=%s out of range for array of ndim=%d." % (axes, nd))
    k %= 4
    if k == 0:
        return m[...]
    if k == 2:
        return mt.flip(mt.flip(m, axes[0]), axes[1])
    order = list(range(nd))
    a0, a1 = axes[0] % nd, axes[1] % nd
    order[a0], order[a1] = order[a1], order[a0]
    if k == 1:
        return mt.transpose(mt.flip(m, axes[1]), order)
    return mt.flip(mt.transpose(m, order), axes[1])


def kron(a, b):
    """numpy's Kronecker product of two arrays of at most 2 dimensions:
    every product a[i, j] * b[k, l] at row i * rows(b) + k, column
    j * columns(b) + l, by broadcasting and a reshape"""
    mt = _mt()
    a, b = mt._as_tensor(a), mt._as_tensor(b)
    sa, sb = _shape(a, "kron"), _shape(b, "kron")
    if len(sa) > 2 or len(sb) > 2:
        raise NotImplementedError("kron of arrays of more than 2 dimensions is not supported")
    if max(len(sa), len(sb)) <= 1:
        a1, b1 = mt.ravel(a), mt.ravel(b)
        return (a1[:, None] * b1[None, :]).reshape(-1)
    a2 = a.reshape((1,) * (2 - len(sa)) + tuple(sa))
    b2 = b.reshape((1,) * (2 - len(sb)) + tuple(sb))
    (ra, ca), (rb, cb) = a2.shape, b2.shape
    return (a2[:, None, :, None] * b2[None, :, None, :]).reshape(ra * rb, ca * cb)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """numpy's cross product of vectors of 3 components along the last axis
    (broadcast over the others)"""
    mt = _mt()
    if axis is not None or (axisa, axisb, axisc) != (-1, -1, -1):
        raise NotImplementedError("cross along another axis than the last is not supported")
    a, b = mt._as_tensor(a), mt._as_tensor(b)
    if _shape(a, "cross")[-1:] != (3,) or _shape(b, "cross")[-1:] != (3,):
        raise NotImplementedError("cross of vectors of 3 components only (numpy's 2-component "
                                  "vectors give a scalar: a[0] * b[1] - a[1] * b[0])")
    c = [a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
         a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
         a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]]
    return mt.stack(c, axis=-1)


def unravel_index(indices, shape, order="C"):
    """the coordinates of flat indices into an array of shape: numpy's
    tuple of arrays (of a tensor of indices: tensors, each its // and %)"""
    mt = _mt()
    if not isinstance(indices, mt.Tensor):
        return np.unravel_index(indices, shape, order=order)
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    dims = [operator.index(d) for d in (shape if not isinstance(shape, numbers.Integral)
                                        else (shape,))]
    out, rest = [], indices
    for d in (reversed(dims) if order == "C" else dims):
        out.append(rest % d)
        rest = rest // d
    return tuple(reversed(out)) if order == "C" else tuple(out)


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """the flat indices of coordinates into an array of shape dims: of
    local coordinates numpy's own; of tensors each coordinate times its
    stride, summed, with mode "wrap" or "clip" (a check that raises is
    numpy's for local data only)"""
    mt = _mt()
    if not any(isinstance(x, mt.Tensor) for x in multi_index):
        return np.ravel_multi_index(multi_index, dims, mode=mode, order=order)
    dims = [operator.index(d) for d in dims]
    if len(multi_index) != len(dims):
        raise ValueError("parameter multi_index must be a sequence of length %d" % len(dims))
    modes = [mode] * len(dims) if isinstance(mode, str) else list(mode)
    if any(m not in ("wrap", "clip") for m in modes):
        raise NotImplementedError("ravel_multi_index of tensors takes mode 'wrap' or 'clip' "
                                  "(the bounds are not checked when it runs)")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    strides, acc = [], 1
    for d in (reversed(dims) if order == "C" else dims):
        strides.append(acc)
        acc *= d
    if order == "C":
        strides.reverse()
    out = None
    for x, d, st, m in zip(multi_index, dims, strides, modes):
        x = mt._as_tensor(x)
        x = x % d if m == "wrap" else mt.clip(x, 0, d - 1)
        term = x * st
        out = term if out is None else out + term
    return out


def pinv(a, rcond=1e-15, hermitian=False):
    """numpy's pseudo-inverse of a matrix from its reduced SVD: singular
    values at most rcond times the largest count as zero"""
    mt = _mt()
    a = mt._as_tensor(a)
    if len(_shape(a, "pinv")) != 2:
        raise NotImplementedError("pinv of a stack of matrices is not supported")
    u, s, vt = mt.linalg.svd(a, full_matrices=False)
    big = s > rcond * s.max()
    inv = mt.where(big, 1.0 / mt.where(big, s, 1.0), 0.0)
    return mt.matmul(vt.T * inv, u.T)


def eigvalsh(a, UPLO="L"):  # noqa: N803 - numpy's name
    """numpy's eigenvalues of a symmetric matrix, ascending: linalg.eigh's"""
    return _mt().linalg.eigh(a, UPLO)[0]


def gradient(f, *varargs, axis=None, edge_order=1):
    """numpy's gradient with uniform spacing (a number per axis, 1 by
    default): central differences inside, one-sided at the edges
    (edge_order 1); a tensor for one axis, else a list, one per axis"""
    mt = _mt()
    f = mt._as_tensor(f)
    shape = _shape(f, "gradient")
    if edge_order != 1:
        raise NotImplementedError("gradient: edge_order 1 only")
    axes = list(range(len(shape))) if axis is None else \
        [axis] if isinstance(axis, numbers.Integral) else list(axis)
    axes = [operator.index(a) % len(shape) for a in axes]
    if len(varargs) > 1 and len(varargs) != len(axes):
        raise TypeError("invalid number of arguments")
    if any(not isinstance(h, numbers.Number) for h in varargs):
        raise NotImplementedError("gradient: spacing by numbers only (not coordinates)")
    steps = list(varargs) * len(axes) if len(varargs) == 1 else list(varargs) or [1] * len(axes)
    if f.dtype is not None and f.dtype.kind in "iub":
        f = f.astype("float64")
    out = []
    for ax, h in zip(axes, steps):
        n = shape[ax]
        if n < 2:
            raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                             "least (edge_order + 1) elements are required.")

        def part(a, b):
            idx = [slice(None)] * len(shape)
            idx[ax] = slice(a, b)
            return f[tuple(idx)]
        first = (part(1, 2) - part(0, 1)) / h
        last = (part(n - 1, n) - part(n - 2, n - 1)) / h
        pieces = [first] + ([(part(2, n) - part(0, n - 2)) / (2.0 * h)] if n > 2 else []) + \
            [last]
        out.append(mt.concatenate(pieces, axis=ax))
    return out[0] if len(out) == 1 else out


def convolve(a, v, mode="full"):
    """numpy's discrete linear convolution of two 1-D arrays: the shorter
    (at most 256 values) slid along the longer, a shifted copy of the
    longer scaled by each of its values and summed; mode full, same or
    valid"""
    mt = _mt()
    a, v = mt._as_tensor(a), mt._as_tensor(v)
    (n,), (m,) = _shape(a, "convolve"), _shape(v, "convolve")
    if n == 0 or m == 0:
        raise ValueError("v cannot be empty" if m == 0 else "a cannot be empty")
    if m > n:
        a, v, n, m = v, a, m, n
    if m > 256:
        raise NotImplementedError("convolve: the shorter array is at most 256 values here")
    dt = np.result_type(a.dtype or np.float64, v.dtype or np.float64)
    full = None
    for j in range(m):
        parts = ([mt.zeros(j, dtype=dt)] if j else []) + [a * v[j]] + \
            ([mt.zeros(m - 1 - j, dtype=dt)] if m - 1 - j else [])
        term = mt.concatenate(parts) if len(parts) > 1 else parts[0]
        full = term if full is None else full + term
    if mode == "full":
        return full
    if mode == "same":
        start = (m - 1) // 2
        return full[start:start + n]
    if mode == "valid":
        return full[m - 1:n]
    raise ValueError("mode must be 'full', 'same' or 'valid'")


def array_equal(a1, a2, equal_nan=False):
    """numpy's array_equal: same shape and every element equal (NaN equal
    to NaN with equal_nan); a bool, the shapes known here (a 0-d bool
    tensor, fetched or bool(t.fetch()) for numpy's bool, when they match)"""
    mt = _mt()
    a1, a2 = mt._as_tensor(a1), mt._as_tensor(a2)
    if _shape(a1, "array_equal") != _shape(a2, "array_equal"):
        return False
    same = a1 == a2
    if equal_nan:
        same = same | (mt.isnan(a1) & mt.isnan(a2))
    return mt.all(same)


def triu_indices(n, k=0, m=None):
    """numpy's (rows, columns) of an upper triangle: data of their own"""
    mt = _mt()
    return tuple(mt.tensor(x) for x in np.triu_indices(n, k, m))


def tril_indices(n, k=0, m=None):
    """numpy's (rows, columns) of a lower triangle: data of their own"""
    mt = _mt()
    return tuple(mt.tensor(x) for x in np.tril_indices(n, k, m))




def matrix_power(a, n):
    """numpy's matrix_power: a square matrix to the integer power n by
    repeated squaring (n 0: the identity; negative: of the inverse)"""
    mt = _mt()
    a = mt._as_tensor(a)
    shape = _shape(a, "matrix_power")
    if len(shape) != 2 or shape[0] != shape[1]:
        raise NotImplementedError("matrix_power of one square matrix")
    n = operator.index(n)
    if n == 0:
        return mt.eye(shape[0], dtype=a.dtype)
    if n < 0:
        a, n = mt.linalg.inv(a), -n
    out, sq = None, a
    while n:
        if n & 1:
            out = sq if out is None else mt.matmul(out, sq)
        n >>= 1
        if n:
            sq = mt.matmul(sq, sq)
    return out


def cond(x, p=None):
    """numpy's condition number in the 2-norm (p None or 2: the largest
    singular value over the smallest; -2: the inverse)"""
    mt = _mt()
    if p not in (None, 2, -2):
        raise NotImplementedError("cond: the 2-norm only (p None, 2 or -2)")
    s = mt.linalg.svd(mt._as_tensor(x), full_matrices=False)[1]
    return s.min() / s.max() if p == -2 else s.max() / s.min()


LINALG = {"pinv": pinv, "eigvalsh": eigvalsh, "matrix_power": matrix_power, "cond": cond}


def trapz(y, x=None, dx=1.0, axis=-1):
    """numpy's trapz: the trapezoidal rule along axis, spacing dx or the
    sample points x (a 1-D array along axis, or y's shape)"""
    mt = _mt()
    y = mt._as_tensor(y)
    shape = _shape(y, "trapz")
    ax = operator.index(axis) % len(shape)

    def part(t, a, b):
        idx = [slice(None)] * len(shape)
        idx[ax] = slice(a, b)
        return t[tuple(idx)]
    if x is None:
        d = dx
    else:
        x = mt._as_tensor(x)
        xs = _shape(x, "trapz")
        d = x[1:] - x[:-1] if len(xs) == 1 else part(x, 1, None) - part(x, None, -1)
        if len(xs) == 1 and len(shape) > 1:  # along axis, broadcast over the others
            d = d.reshape([-1 if k == ax else 1 for k in range(len(shape))])
    return (d * (part(y, 1, None) + part(y, None, -1)) / 2.0).sum(axis=ax)


def polyval(p, x):
    """numpy's polyval: the polynomial of coefficients p (highest power
    first, local numbers) at x, by Horner's rule"""
    mt = _mt()
    if hasattr(p, "execute"):
        raise NotImplementedError("polyval: the coefficients as local numbers")
    p = np.asarray(p)
    x = mt._as_tensor(x)
    out = x * 0 + p[0] if len(p) else x * 0
    for c in p[1:]:
        out = out * x + c
    return out


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """numpy's polyfit by least squares: the Vandermonde matrix of x with
    its columns scaled to unit norm, lstsq, the coefficients scaled back
    (numpy's own steps); the coefficients only (highest power first)"""
    mt = _mt()
    if full or w is not None or cov:
        raise NotImplementedError("polyfit: full, w and cov are not supported (the "
                                  "coefficients only)")
    deg = operator.index(deg)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    x, y = _float_of(x), _float_of(y)
    sx, sy = _shape(x, "polyfit"), _shape(y, "polyfit")
    if len(sx) != 1:
        raise TypeError("expected 1D vector for x")
    if sx[0] == 0:
        raise TypeError("expected non-empty vector for x")
    if len(sy) not in (1, 2):
        raise TypeError("expected 1D or 2D array for y")
    if sx[0] != sy[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = sx[0] * np.finfo(x.dtype if x.dtype is not None else np.float64).eps
    lhs = vander(x, deg + 1)
    scale = mt.sqrt((lhs * lhs).sum(axis=0))
    c = mt.linalg.lstsq(lhs / scale, y, rcond=rcond)[0]
    return c / scale if len(sy) == 1 else (c.T / scale).T


def interp(x, xp, fp, left=None, right=None, period=None):
    """numpy's interp: the piecewise linear interpolant of the local points
    (xp increasing, at most 1024 of them) at x; fp[0] (left) below xp[0],
    fp[-1] (right) above xp[-1], NaN at NaN"""
    mt = _mt()
    if period is not None:
        raise NotImplementedError("interp: period is not supported")
    if hasattr(xp, "execute") or hasattr(fp, "execute"):
        raise NotImplementedError("interp: xp and fp as local numbers")
    xp, fp = np.asarray(xp, dtype=np.float64), np.asarray(fp)
    if xp.ndim != 1 or fp.ndim != 1 or len(xp) != len(fp):
        raise ValueError("fp and xp are not of the same length.")
    if len(xp) == 0:
        raise ValueError("array of sample points is empty")
    if len(xp) > 1024:
        raise NotImplementedError("interp: at most 1024 sample points here")
    if fp.dtype.kind == "c":
        raise NotImplementedError("interp: complex values are not supported")
    fp = fp.astype(np.float64)
    x = mt._as_tensor(x).astype("float64")
    lo = fp[0] if left is None else float(left)
    hi = fp[-1] if right is None else float(right)
    out = mt.where(x > xp[-1], hi, fp[-1])  # at xp[-1]: fp[-1]
    for i in range(len(xp) - 2, -1, -1):  # each segment [xp[i], xp[i+1])
        if xp[i + 1] == xp[i]:
            continue
        slope = (fp[i + 1] - fp[i]) / (xp[i + 1] - xp[i])
        out = mt.where(x < xp[i + 1], fp[i] + (x - xp[i]) * slope, out)
    out = mt.where(x < xp[0], lo, out)
    return mt.where(mt.isnan(x), np.nan, out)


def lexsort(keys, axis=-1):
    """numpy's lexsort of 1-D keys: the order that sorts by the last key,
    ties by the one before it, and so on (stable argsorts, first key
    first)"""
    mt = _mt()
    if hasattr(keys, "execute"):
        raise NotImplementedError("lexsort: keys as a sequence of 1-D tensors")
    keys = [mt._as_tensor(k) for k in keys]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if any(len(_shape(k, "lexsort")) != 1 for k in keys):
        raise NotImplementedError("lexsort of 1-D keys only")
    order = mt.argsort(keys[0], kind="stable")
    for k in keys[1:]:
        order = order[mt.argsort(k[order], kind="stable")]
    return order


# numpy's reductions that take an axis: apply_along_axis(f, axis, a) is f(a, axis=axis)
_ALONG = ("sum", "prod", "mean", "std", "var", "min", "max", "amin", "amax", "median", "ptp",
          "argmin", "argmax", "nansum", "nanmean", "nanstd", "nanvar", "nanmin", "nanmax",
          "nanmedian", "all", "any", "count_nonzero", "cumsum", "cumprod", "sort")


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """numpy's apply_along_axis of numpy's reductions and cumulative
    functions (np.sum, np.median, np.cumsum ...): the function along that
    axis; other functions are refused (the workers run no Python)"""
    mt = _mt()
    name = getattr(func1d, "__name__", None)
    if func1d not in (getattr(np, name or "", None), getattr(mt, name or "", None)) or \
            name not in _ALONG or args or kwargs:
        raise NotImplementedError("apply_along_axis of numpy's reductions (np.sum, np.mean, "
                                  "np.median, np.cumsum ...) only: the workers run no Python")
    return getattr(mt, name)(mt._as_tensor(arr), axis=axis)


def _float_of(x):
    """x as numpy's float loops take it: float64 unless already a float"""
    mt = _mt()
    x = mt._as_tensor(x) if not hasattr(x, "_ref") else x
    dt = getattr(x, "dtype", None)
    return x if dt is not None and np.dtype(dt).kind == "f" else x.astype("float64")


def logaddexp(x1, x2):
    """numpy's logaddexp, log(exp(x1) + exp(x2)) without overflow: the
    larger plus log1p(exp(-|x1 - x2|)); x1 + log(2) where they are equal
    (infinities too), as numpy's loop"""
    mt = _mt()
    a, b = _float_of(x1), _float_of(x2)
    big = mt.maximum(a, b)
    out = big + mt.log1p(mt.exp(-mt.abs(a - b)))
    return mt.where(a == b, a + np.log(2.0), out)


def logaddexp2(x1, x2):
    """numpy's logaddexp2, log2(2**x1 + 2**x2): the larger plus
    log1p(2**-|x1 - x2|) / log(2); x1 + 1 where they are equal"""
    mt = _mt()
    a, b = _float_of(x1), _float_of(x2)
    big = mt.maximum(a, b)
    out = big + mt.log1p(mt.exp2(-mt.abs(a - b))) * (1.0 / np.log(2.0))
    return mt.where(a == b, a + 1.0, out)


def ldexp(x1, x2):
    """numpy's ldexp, x1 * 2**x2 (x2 integers), in x1's float type"""
    mt = _mt()
    a = _float_of(x1)
    e = mt._as_tensor(x2) if not hasattr(x2, "_ref") else x2
    dt = getattr(a, "dtype", None) or np.dtype(np.float64)
    return (a * mt.exp2(e.astype("float64"))).astype(np.dtype(dt).name)


def fabs(x):
    """numpy's fabs: the absolute value as a float"""
    return _mt().abs(_float_of(x))


def conj(x):
    """numpy's conj of real values: the values themselves"""
    mt = _mt()
    return mt._as_tensor(x) if not hasattr(x, "_ref") else x


conjugate = conj


def divmod(x1, x2):  # noqa: A001 - numpy's name
    """numpy's divmod: (floor_divide, mod)"""
    mt = _mt()
    return mt.floor_divide(x1, x2), mt.mod(x1, x2)


def modf(x):
    """numpy's modf: the fractional and integral parts, each with x's sign"""
    mt = _mt()
    x = _float_of(x)
    whole = mt.trunc(x)
    frac = mt.where(mt.isinf(x), mt.copysign(0.0, x), x - whole)
    return frac, whole


def select(condlist, choicelist, default=0):
    """numpy's select: where the first true condition's choice, else
    default (a where per condition, the last first)"""
    mt = _mt()
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if not condlist:
        raise ValueError("select with an empty condition list is not possible")
    out = default
    for c, v in zip(reversed(condlist), reversed(choicelist)):
        out = mt.where(c, v, out)
    return out


def choose(a, choices, mode="raise"):
    """numpy's choose: each element of choices[a] (a the index; mode
    "wrap" or "clip" for those out of range; "raise": they are NaN-free
    only where every index is in range, which is not checked here)"""
    mt = _mt()
    a = mt._as_tensor(a) if not hasattr(a, "_ref") else a
    n = len(choices)
    if mode == "wrap":
        a = a % n
    elif mode == "clip":
        a = mt.clip(a, 0, n - 1)
    elif mode != "raise":
        raise ValueError("clipmode must be one of 'clip', 'raise', or 'wrap'")
    out = choices[-1]
    for k in range(n - 2, -1, -1):
        out = mt.where(a == k, choices[k], out)
    return out


def block(arrays):
    """numpy's block of nested lists: the innermost lists joined along the
    last axis, each level out along the axis before it"""
    mt = _mt()

    def depth(x):
        return 1 + depth(x[0]) if isinstance(x, list) and x else 0
    d = depth(arrays)
    if d == 0:
        return mt._as_tensor(arrays)
    ndim = max(d, len(_shape(_first_leaf(arrays), "block")))

    def join(x, level):
        if not isinstance(x, list):
            t = mt._as_tensor(x)
            sh = _shape(t, "block")
            return t.reshape((1,) * (ndim - len(sh)) + tuple(sh)) if len(sh) < ndim else t
        return mt.concatenate([join(y, level + 1) for y in x], axis=ndim - d + level)
    return join(arrays, 0)


def _first_leaf(x):
    while isinstance(x, list):
        x = x[0]
    return _mt()._as_tensor(x)


def sinc(x):
    """numpy's sinc: sin(pi x) / (pi x), 1 at 0 (numpy's own formula)"""
    mt = _mt()
    x = _float_of(x)
    y = np.pi * mt.where(x == 0, 1.0e-20, x)
    return mt.sin(y) / y


def tri(N, M=None, k=0, dtype=float):  # noqa: N803 - numpy's names
    """numpy's tri: ones at and below the k-th diagonal"""
    mt = _mt()
    return mt.tril(mt.ones((N, N if M is None else M), dtype=dtype), k)


def vander(x, N=None, increasing=False):  # noqa: N803 - numpy's name
    """numpy's Vandermonde matrix: the columns x**(N-1) ... x**0"""
    mt = _mt()
    x = mt._as_tensor(x) if not hasattr(x, "_ref") else x
    (n,) = _shape(x, "vander")
    N = n if N is None else N  # noqa: N806
    pw = list(range(N)) if increasing else list(range(N - 1, -1, -1))
    cols = [x ** p if p else x * 0 + 1 for p in pw]
    return mt.stack(cols, axis=1) if cols else mt.zeros((n, 0), dtype=x.dtype)


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """numpy's histogram_bin_edges: histogram's edges"""
    return _mt().histogram(a, bins=bins, range=range, weights=weights)[1]
