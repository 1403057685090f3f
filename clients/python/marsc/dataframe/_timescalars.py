"""Datetime and timedelta scalars (docs/python-client.md, "Times as
scalars").

A reduction of a Series (min, max, median, mean; sum and std of
timedeltas) is a 0-d tensor on the cluster, whose values are nanoseconds:
tensors hold numbers only. Where the client can tell that the Series holds
datetimes or timedeltas, from the graph alone (core._time_kind:
read_csv's parse_dates, to_datetime, to_timedelta, a difference of
datetimes, and the ops that keep values as they are), the tensor is
marked (core.TIME_MARKS, so that a later document's literal of it is a
datetime's or timedelta's), and a fetch gives pandas'
Timestamp or Timedelta (NaT for none), whose other attributes (year,
day_name() ...) the tensor answers by fetching; a dt.date Series' min and
max are fetched as datetime.date. Differences and sums of marked
scalars are marked as pandas types them (a datetime minus a datetime is a
timedelta), and a timedelta scalar has pandas' `days` and
`total_seconds()`.
"""
import numpy as np

from ..core import TIME_MARKS
from ..core import _sum_kind, time_of
from ..core import _time_kind as time_kind
from ..tensor import Tensor
from . import Series, _Frame


def as_time(v, kind):
    """a fetched 0-d value of nanoseconds as pandas' Timestamp or Timedelta,
    or ("D", a dt.date Series' min or max) datetime.date"""
    import pandas as pd
    t = time_of(v, "M" if kind == "D" else kind)[()]
    if kind == "D":
        return pd.NaT if np.isnat(t) else pd.Timestamp(t).date()
    return pd.Timestamp(t) if kind == "M" else pd.Timedelta(t)


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


def _time_literal(o):
    """(nanoseconds, kind) of a pandas, numpy or Python datetime or
    timedelta; None for anything else"""
    import datetime
    import pandas as pd
    if isinstance(o, (pd.Timedelta, np.timedelta64, datetime.timedelta)):
        v = pd.Timedelta(o)
        return (None, None) if v is pd.NaT else (int(v.value), "m")
    if isinstance(o, (pd.Timestamp, np.datetime64, datetime.datetime)):
        v = pd.Timestamp(o)
        if v is pd.NaT or v.tzinfo is not None:
            return None
        return int(v.value), "M"
    return None


def _marked(out, kind):
    if isinstance(out, Tensor) and kind:
        out._time = kind
        TIME_MARKS[out._ref.node] = kind  # what a later document's literal of it is
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
                elif kind is None and op in ("min", "max") and \
                        self._ref.node.op == "dataframe.dt.date":
                    out._time = "D"  # dates: fetched as datetime.date (no literal of it)
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
            lit = _time_literal(o) if self._time else None
            if lit is not None:  # a Timestamp or Timedelta beside a marked scalar: its ns
                o, k = lit
            else:
                k = o._time if isinstance(o, Tensor) else None
            out = orig(self, o)
            a, b = (k, self._time) if flip else (self._time, k)
            return _marked(out, _sum_kind(op, a, b)) if self._time else out
        setattr(Tensor, name, arith)

    def timeattr(self, name):
        """a time scalar's other attributes (year, month, day_name(), date()
        ...): pandas' Timestamp's or Timedelta's, fetched"""
        if name.startswith("_") or self._time is None:
            raise AttributeError("'Tensor' object has no attribute %r" % name)
        return getattr(self.fetch(), name)
    Tensor.__getattr__ = timeattr

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

