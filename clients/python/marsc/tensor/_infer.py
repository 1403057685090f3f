"""Client-side shapes and dtypes, where they are cheap: numpy itself decides
dtypes on one-element samples (so promotion is numpy's exactly), shapes
follow numpy's rules by arithmetic. None means "not known here": the
server's validation is the truth."""
import math
import warnings

import numpy as np


def sample(dtype):
    return np.ones(1, dtype=dtype)


def operand_sample(x):
    """A tensor operand as a 1-element array of its dtype; a scalar as itself
    (numpy 1.24's value-based casting then applies, as in the engine)."""
    from . import Tensor
    if isinstance(x, Tensor):
        dt = x._dtype
        return None if dt is None else sample(dt)
    return x


def sample_result(fn, *samples, **kw):
    """What numpy's fn gives on samples, as an array; None when a sample is
    unknown (None) or numpy refuses them (the server then says why)."""
    if fn is None or any(s is None for s in samples):
        return None
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(fn(*samples, **kw))
    except Exception:  # noqa: BLE001 - numpy refuses: let the server say why
        return None


def sample_dtype(fn, *samples, **kw):
    """The dtype numpy's fn gives on samples (sample_result); None where
    unknown."""
    out = sample_result(fn, *samples, **kw)
    return None if out is None else out.dtype


def ufunc_dtype(name, operands, **kw):
    return sample_dtype(getattr(np, name, None), *[operand_sample(x) for x in operands], **kw)


def broadcast(*shapes):
    if any(s is None for s in shapes):
        return None
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


def norm_axes(axis, ndim):
    """axis (None, int or sequence) as a sorted tuple of non-negative axes,
    or None when out of range."""
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (list, tuple)) else (axis,)
    out = []
    for a in axes:
        a = int(a)
        if a < -ndim or a >= ndim:
            return None
        out.append(a % ndim)
    return tuple(sorted(set(out)))


def reduce_shape(shape, axis, keepdims):
    if shape is None:  # a whole reduction is a scalar whatever the input's length
        return () if axis is None and not keepdims else None
    axes = norm_axes(axis, len(shape))
    if axes is None:
        return None
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def reshape_shape(shape, newshape):
    if shape is None:
        return None
    if isinstance(newshape, int):
        newshape = (newshape,)
    newshape = tuple(int(d) for d in newshape)
    size = math.prod(shape)
    if newshape.count(-1) == 1:
        rest = math.prod(d for d in newshape if d != -1)
        if rest == 0 or size % rest:
            return None
        newshape = tuple(size // rest if d == -1 else d for d in newshape)
    if math.prod(newshape) != size or any(d < 0 for d in newshape):
        return None
    return newshape


def matmul_shape(a, b):
    if a is None or b is None or not a or not b:
        return None
    a1, b1 = len(a) == 1, len(b) == 1
    A = (1,) + tuple(a) if a1 else tuple(a)
    B = tuple(b) + (1,) if b1 else tuple(b)
    if A[-1] != B[-2]:
        return None
    batch = broadcast(A[:-2], B[:-2])
    if batch is None:
        return None
    out = batch + (A[-2], B[-1])
    if a1:
        out = out[:-2] + out[-1:]
    if b1:
        out = out[:-1]
    return out


def dot_shape(a, b):
    if a is None or b is None:
        return None
    if len(a) == 0 or len(b) == 0:
        return broadcast(a, b)
    if len(b) == 1:
        return tuple(a[:-1]) if a[-1] == b[0] else None
    if a[-1] != b[-2]:
        return None
    return tuple(a[:-1]) + tuple(b[:-2]) + tuple(b[-1:])


def inner_shape(a, b):
    if a is None or b is None:
        return None
    if len(a) == 0 or len(b) == 0:
        return broadcast(a, b)
    if a[-1] != b[-1]:
        return None
    return tuple(a[:-1]) + tuple(b[:-1])


def tensordot_shape(a, b, axes):
    if a is None or b is None:
        return None
    if isinstance(axes, int):
        if axes > len(a) or axes > len(b):
            return None
        ax_a = list(range(len(a) - axes, len(a)))
        ax_b = list(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = [x % len(a) for x in (ax_a if isinstance(ax_a, (list, tuple)) else [ax_a])]
        ax_b = [x % len(b) for x in (ax_b if isinstance(ax_b, (list, tuple)) else [ax_b])]
    if len(ax_a) != len(ax_b) or any(a[i] != b[j] for i, j in zip(ax_a, ax_b)):
        return None
    return tuple(d for i, d in enumerate(a) if i not in ax_a) + \
        tuple(d for i, d in enumerate(b) if i not in ax_b)


def basic_index_shape(shape, index):
    """numpy's result shape for an index of ints, slices, None and Ellipsis,
    computed on a zero-stride view (no memory)."""
    if shape is None:
        return None
    try:
        v = np.broadcast_to(np.zeros((), np.int8), shape)
        return tuple(v[index].shape)
    except (IndexError, TypeError, ValueError):
        return None
