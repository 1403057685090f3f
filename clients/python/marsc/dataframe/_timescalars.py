"""Datetime and timedelta scalars (docs/python-client.md, "Times as
scalars").

A reduction of a Series (min, max, median, mean; sum and std of
timedeltas) is a 0-d tensor on the cluster, whose values are nanoseconds:
tensors hold numbers only. Where the client can tell that the Series holds
datetimes or timedeltas, from the graph alone (read_csv's parse_dates,
to_datetime, to_timedelta, a difference of datetimes, and the ops that
keep values as they are), the tensor is marked, and a fetch gives pandas'
Timestamp or Timedelta (NaT for none). Differences and sums of marked
scalars are marked as pandas types them (a datetime minus a datetime is a
timedelta), and a timedelta scalar has pandas' `days` and
`total_seconds()`.
"""
import numpy as np

from ..core import Node
from ..tensor import Tensor
from . import Series, _Frame, _one

# Series and frame ops whose output holds its first input's values (rows
# kept, picked, reordered; a Series renamed; datetimes rounded)
_KEEPING = ("dataframe.filter", "dataframe.head", "dataframe.tail", "dataframe.sort_values",
            "dataframe.sort_index", "dataframe.sample", "dataframe.drop_duplicates",
            "dataframe.dropna", "dataframe.rename", "dataframe.iloc", "dataframe.loc",
            "dataframe.query", "dataframe.shift", "dataframe.fillna", "dataframe.reset_index",
            "dataframe.drop", "dataframe.getitem", "dataframe.set_index", "dataframe.dt.floor",
            "dataframe.dt.ceil", "dataframe.dt.round", "dataframe.dt.normalize",
            "dataframe.groupby_head", "dataframe.groupby_tail")
_DEPTH = 400  # how far back a node's lineage is read


def time_kind(node, col=None, depth=0):
    """"M" (datetime64[ns]) or "m" (timedelta64[ns]) where the graph says a
    Series node (col None), or a frame node's column col, holds them;
    None where it cannot tell"""
    if not isinstance(node, Node) or depth > _DEPTH:
        return None
    op, p = node.op, node.params
    ins = node.inputs
    first = ins[0] if ins and isinstance(ins[0], Node) else None
    if col is not None:  # a column of a frame
        if op == "dataframe.read_csv":
            dates = p.get("parse_dates") or []
            return "M" if col in dates else None
        if op == "dataframe.assign":
            names = p.get("names", [])
            if col in names:
                return time_kind(ins[1 + names.index(col)], None, depth + 1)
            return time_kind(first, col, depth + 1)
        if op == "dataframe.rename" and isinstance(p.get("columns"), dict):
            back = {new: old for old, new in p["columns"].items()}
            return time_kind(first, back.get(col, col), depth + 1)
        if op in ("dataframe.merge", "dataframe.join"):
            return time_kind(first, col, depth + 1) or time_kind(ins[1], col, depth + 1)
        if op in _KEEPING:
            return time_kind(first, col, depth + 1)
        return None
    if op == "dataframe.getitem" and _one(p.get("columns")):
        return time_kind(first, p["columns"], depth + 1)
    if op == "dataframe.to_datetime":
        return "M"
    if op == "dataframe.to_timedelta":
        return "m"
    if op == "dataframe.diff":
        return "m" if time_kind(first, None, depth + 1) else None
    if op in ("subtract", "add") and len(ins) == 2:
        a, b = (time_kind(x, None, depth + 1) for x in ins)
        return _sum_kind(op, a, b)
    if op in ("negative", "abs"):
        return "m" if time_kind(first, None, depth + 1) == "m" else None
    if op == "where" and len(ins) == 3:
        return time_kind(ins[1], None, depth + 1) or time_kind(ins[2], None, depth + 1)
    if op in _KEEPING:
        return time_kind(first, None, depth + 1)
    return None


def _sum_kind(op, a, b):
    """the kind of a + b or a - b of kinds a and b (None: no time, or not
    known)"""
    if op == "subtract" and a == "M" and b == "M":
        return "m"
    if (a, b) in (("M", "m"), ("m", "M")) and (op == "add" or a == "M"):
        return "M"
    if a == "m" and b == "m":
        return "m"
    return None


def as_time(v, kind):
    """a fetched 0-d value of nanoseconds as pandas' Timestamp or Timedelta"""
    import pandas as pd
    v = np.asarray(v)[()]
    if v != v or v == np.iinfo(np.int64).min:
        return pd.NaT
    return pd.Timestamp(int(v)) if kind == "M" else pd.Timedelta(int(v))


# the reductions giving a time, per kind of Series
_REDUCED = {"M": ("min", "max", "median", "mean"),
            "m": ("min", "max", "median", "mean", "sum", "std")}


def as_text(s):
    """s.astype(str) of a datetime Series, as pandas writes the column: the
    date alone where every value is a midnight, else to the second, with
    as many fraction digits (3, 6, 9) as the finest value needs; NaT as
    "NaT". Which, is read first (a task of its own); then dt.strftime."""
    from ..core import execute
    frac = s - s.dt.floor("s")
    us = frac.dt.microseconds.fillna(0)  # (NaT is none of these)
    checks = [((s != s.dt.normalize()) & s.notna()).any(),
              (frac.dt.nanoseconds.fillna(0) != 0).any(), (us % 1000 != 0).any(), (us != 0).any()]
    execute(*checks)
    times, ns, us, ms = (bool(c.fetch()) for c in checks)
    if not times:
        return s.dt.strftime("%Y-%m-%d").fillna("NaT")
    if not (ns or us or ms):
        return s.dt.strftime("%Y-%m-%d %H:%M:%S").fillna("NaT")
    text = s.dt.strftime("%Y-%m-%d %H:%M:%S.%f")
    if ns:
        text = text.str.cat(frac.dt.nanoseconds.astype(str).str.zfill(3))
    elif not us:
        text = text.str.slice(0, -3)
    return text.fillna("NaT")


def _marked(out, kind):
    if isinstance(out, Tensor):
        out._time = kind
    return out


def install():
    """the marks, their fetch and arithmetic, on Tensor and the reductions"""
    Tensor._time = None

    def reduce(orig):
        def method(self, op, *a, **kw):
            out = orig(self, op, *a, **kw)
            if isinstance(self, Series) and isinstance(out, Tensor):
                kind = time_kind(self._ref)
                if kind and op in _REDUCED[kind]:
                    _marked(out, kind)
            return out
        return method
    _Frame._reduce = reduce(_Frame._reduce)
    _Frame._stat = reduce(_Frame._stat)

    fetch = Tensor.fetch

    def fetched(self, session=None):
        got = fetch(self, session)
        return got if self._time is None else as_time(got, self._time)
    Tensor.fetch = fetched

    for name, op, flip in (("__add__", "add", False), ("__radd__", "add", True),
                           ("__sub__", "subtract", False), ("__rsub__", "subtract", True)):
        def arith(self, o, orig=getattr(Tensor, name), op=op, flip=flip):
            out = orig(self, o)
            k = o._time if isinstance(o, Tensor) else None
            a, b = (k, self._time) if flip else (self._time, k)
            return _marked(out, _sum_kind(op, a, b)) if self._time else out
        setattr(Tensor, name, arith)

    def days(self):
        """of a timedelta scalar: whole days (pandas' Timedelta.days, floored)"""
        if self._time != "m":
            raise AttributeError("'Tensor' object has no attribute 'days'")
        return self // 86400000000000
    Tensor.days = property(days)

    def total_seconds(self):
        """of a timedelta scalar: seconds, float64 (pandas' total_seconds())"""
        if self._time != "m":
            raise AttributeError("'Tensor' object has no attribute 'total_seconds'")
        return self / 1e9
    Tensor.total_seconds = total_seconds

    astype = Series.astype

    def astyped(self, dtype):
        if isinstance(self, Series) and dtype in (str, "str", object, "object") and \
                not (self._cats and None in self._cats) and time_kind(self._ref) == "M":
            return as_text(self)
        return astype(self, dtype)
    astyped.__doc__ = astype.__doc__
    Series.astype = astyped

