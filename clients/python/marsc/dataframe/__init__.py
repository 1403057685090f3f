"""marsc.dataframe (md): pandas' names for the cluster's DataFrame ops.

DataFrames are chunked by rows on the cluster; a fetch returns a
pandas.DataFrame or pandas.Series (index names kept). A DataFrame is never
an input of a later task on the cluster, so each execution submits a
DataFrame's whole lineage (tensors it starts from are reused).
"""
import copy
import datetime
import json
import numbers
import re
import sys
import weakref

import numpy as np

from ..core import Entity, Node, _after_create, execute
from ..tensor import Tensor, _as_tensor, _time_literal, as_operand

_KEEP = object()
_REDUCTIONS = ("sum", "mean", "min", "max", "count", "prod", "nunique")


_FLEX_DOC = """axis "index" (0) with a Series of
the same rows applies it to every column row by row; with a Series, dict or
list by column (axis "columns", a DataFrame's default) each column takes its
own value (a marsc Series runs first); fill_value fills a missing value on
one side of a Series (or scalar) operation, as pandas'."""


def _lit(v):
    """A literal for the document: NaN becomes null (JSON has no NaN; the
    ops read null as NaN), also inside lists and dicts."""
    if isinstance(v, float) and v != v:
        return None
    if isinstance(v, (list, tuple)):
        return [_lit(x) for x in v]
    if isinstance(v, dict):
        return {k: _lit(x) for k, x in v.items()}
    return v


def _time_text(t):
    """a time of day for between_time and at_time: a string as given, a
    datetime.time as its ISO form (to the microsecond, as pandas)"""
    if isinstance(t, datetime.time):
        if t.tzinfo is not None:
            raise NotImplementedError("a time with a time zone is not supported")
        return t.isoformat()
    if not isinstance(t, str):
        raise ValueError("Cannot convert arg %r to a time" % (t,))
    return t


def _one(v):
    """Whether v is one column label (a name, or an integer label as
    read_csv(header=None) gives), not a list of them."""
    return isinstance(v, (str, int, np.integer)) and not isinstance(v, bool)


def _names(v):
    """A column name or a list of them as a list (None stays None)."""
    return None if v is None else [v] if _one(v) else list(v)


def _make(op, inputs, params=None, kind="dataframe", columns=None, index_names=_KEEP):
    sess = next((x._session for x in inputs if isinstance(x, Entity) and x._session), None)
    node = Node(op, [x._ref if isinstance(x, Entity) else x for x in inputs], params, kind)
    if kind == "tensor":
        return _after_create(Tensor(node, session=sess))
    cls = DataFrame if kind == "dataframe" else Series
    obj = cls.__new__(cls)
    Entity.__init__(obj, node, sess)
    obj._columns = list(columns) if columns is not None else None
    if index_names is _KEEP:  # rows kept: the first frame input's index names
        index_names = next((x._index_names for x in inputs if isinstance(x, _Frame)), None)
    obj._index_names = index_names
    if any(isinstance(x, _Frame) and x._cats for x in inputs):
        obj._cats = _cat_carried(op, inputs, params, obj)
    src = inputs[0] if inputs else None
    keeps = src._fetched_keeps if isinstance(src, _Frame) else None
    if keeps and (keeps(op) if callable(keeps) else op in _ROWS_KEPT):
        _as_fetched(obj, src._fetched, keeps)
        obj._narrow = src._narrow
    if isinstance(src, _LocOneRows) and op in _ROWS_KEPT:  # df.loc["mean"].round(3)
        obj = src._wrap(obj)
    return _after_create(obj)


# ops whose output's rows are some of their first input's, index and all
_ROWS_KEPT = ("dataframe.head", "dataframe.tail", "dataframe.sort_values",
              "dataframe.sort_index", "dataframe.filter", "dataframe.rename", "dataframe.round",
              "dataframe.sample", "dataframe.dropna", "dataframe.fillna", "dataframe.iloc")


def elementwise(op, inputs, params=None):
    """An element-wise op with a DataFrame or Series among its inputs.
    Series of several groupby aggregations of one frame by the same keys
    (g.x.sum() / g.x.count()) are rebased onto one groupby_agg computing
    them all (_fuse_groupbys), so that their rows line up."""
    ins = _fuse_groupbys([as_operand(x) for x in inputs])
    ins = _labels_aligned(op, ins)
    kinds = [x._ref.kind for x in ins if isinstance(x, Entity)]
    kind = "dataframe" if "dataframe" in kinds else "series"
    cols = next((x._columns for x in ins if isinstance(x, DataFrame)), None)
    return _make(op, ins, params, kind, cols)



# ops whose Series (DataFrame) holds the rows of its input, row for row, so
# that the engine lines up an element-wise op of it with the input's other
# Series (graph-format.md, "Element-wise ops"): what _row_origin walks up
_SAME_ROWS = ("dataframe.getitem", "dataframe.rename", "dataframe.fillna", "dataframe.astype",
              "dataframe.round", "dataframe.abs", "dataframe.clip", "dataframe.isna",
              "dataframe.notna", "dataframe.replace", "dataframe.assign", "dataframe.map",
              "astype", "abs", "negative", "floor", "ceil", "round", "sqrt", "log", "exp",
              "logical_not", "where", "dataframe.shift", "dataframe.diff", "dataframe.cumsum",
              "dataframe.cumprod", "dataframe.cummin", "dataframe.cummax", "dataframe.rank",
              "dataframe.pct_change", "dataframe.rolling", "dataframe.expanding",
              "dataframe.ewm", "dataframe.interpolate", "dataframe.isin", "dataframe.cut",
              "dataframe.qcut", "dataframe.groupby_transform", "dataframe.to_datetime",
              "dataframe.to_timedelta", "dataframe.duplicated", "dataframe.get_dummies",
              "dataframe.eval")


def _row_origin(node):
    """the node whose rows a Series or DataFrame node's rows are, row for
    row, as far as the client can tell (itself where it cannot)"""
    for _ in range(500):
        op = node.op or ""
        # (an op of the tensor part over Series: element-wise, row for row)
        if not (op in _SAME_ROWS or not op.startswith("dataframe.") or
                op.startswith(("dataframe.str.", "dataframe.dt."))):
            return node
        nxt = next((i for i in node.inputs if isinstance(i, Node) and
                    i.kind in ("series", "dataframe")), None)
        if nxt is None:
            return node
        node = nxt
    return node


def _same_rows(a, b):
    """whether two frames' rows line up, as far as the client can tell: the
    same origin (_row_origin), or set_index written twice alike of one
    frame (the engine lines those up chunk for chunk)"""
    x, y = _row_origin(a._ref), _row_origin(b._ref)
    if x is y:
        return True
    return x.op == y.op == "dataframe.set_index" and len(x.inputs) == len(y.inputs) and \
        all(i is j for i, j in zip(x.inputs, y.inputs)) and \
        json.dumps(x.params, sort_keys=True, default=repr) == \
        json.dumps(y.params, sort_keys=True, default=repr)


def _labels_aligned(op, ins, own_names=False):
    """Two Series of different rows (df.mean() / df.std(), a.value_counts()
    + b.value_counts(), s[mask] + s): pandas aligns them on their index
    labels. They are put side by side by one concat along the columns, its
    rows the union of their labels, sorted where the indexes differ and as
    they are where they are equal (concat's "sort": "differing"); the op
    then takes its two columns, which line up, named as pandas names the
    op's result (own_names: each its own, as align's). Anything else as it
    is."""
    ents = [i for i, x in enumerate(ins) if isinstance(x, _Frame)]
    if len(ents) != 2:
        return ins
    a, b = (ins[i] for i in ents)
    if isinstance(a, DataFrame) and isinstance(b, DataFrame):
        a, b = _columns_unioned(a, b)
        ins = list(ins)
        ins[ents[0]], ins[ents[1]] = a, b
    if _same_rows(a, b):
        return ins
    if isinstance(a, DataFrame) and isinstance(b, DataFrame):
        return _frames_aligned(ins, ents, a, b)
    if not (isinstance(a, Series) and isinstance(b, Series)):
        return ins
    na, nb = _series_name(a._ref), _series_name(b._ref)
    name = na if na is not _UNKNOWN and nb is not _UNKNOWN and repr(na) == repr(nb) else None
    names = [None if x is _UNKNOWN else x for x in (na, nb)] if own_names else [name, name]
    out = list(ins)
    out[ents[0]], out[ents[1]] = _aligned_apart([a, b], names)
    return out


def _aligned_apart(xs, names=None):
    """DataFrames and Series of different rows aligned on their index
    labels: their columns numbered apart, put side by side by one concat
    along the columns (concat's "sort": "differing": the union of the
    labels, sorted where the indexes differ, as they are where they are
    equal), then each taken back: a DataFrame under its own columns, a
    Series named names[i]"""
    names = names or [None] * len(xs)
    parts, spans, off = [], [], 0
    for x in xs:
        if isinstance(x, DataFrame):
            cols = list(x._columns if x._columns is not None else x.columns)
            span = list(range(off, off + len(cols)))
            parts.append(_make("dataframe.rename", [x],
                               {"columns": {str(c): k for c, k in zip(cols, span)}},
                               "dataframe", span))
            spans.append((span, cols))
            off += len(cols)
        else:
            parts.append(_make("dataframe.rename", [x], {"name": off}, "series"))
            spans.append((off, None))
            off += 1
    same = all(x._index_names == xs[0]._index_names for x in xs)
    side = _make("dataframe.concat", parts, {"axis": 1, "sort": "differing"}, "dataframe",
                 list(range(off)), index_names=xs[0]._index_names if same else None)
    out = []
    for (span, cols), nm in zip(spans, names):
        if cols is None:
            col = _make("dataframe.getitem", [side], {"columns": span}, "series")
            out.append(_make("dataframe.rename", [col], {"name": nm}, "series"))
        else:
            part = _make("dataframe.getitem", [side], {"columns": span}, "dataframe", span)
            out.append(_make("dataframe.rename", [part],
                             {"columns": {str(k): c for k, c in zip(span, cols)}},
                             "dataframe", cols))
    return out


def _left_aligned(me, xs, missing_cond):
    """me (a Series) and xs (cond, other ... of where and mask: Series or
    anything else) where a Series of xs has other rows: pandas aligns it on
    me's index (Series.align, join "right"), a missing label NaN, and a
    missing cond (the first of xs) missing_cond. One concat with "join":
    "left" puts them beside me's rows; all are taken from it."""
    far = [i for i, x in enumerate(xs) if isinstance(x, Series) and
           not _same_rows(x, me)]
    if not far or not isinstance(me, Series):
        return me, xs
    parts = [i for i, x in enumerate(xs) if isinstance(x, Series)]
    side = _make("dataframe.concat", [_make("dataframe.rename", [me], {"name": 0}, "series")] +
                 [_make("dataframe.rename", [xs[i]], {"name": 1 + k}, "series")
                  for k, i in enumerate(parts)],
                 {"axis": 1, "join": "left"}, "dataframe", list(range(1 + len(parts))),
                 index_names=me._index_names)
    nm = _series_name(me._ref)

    def take(k, name):
        col = _make("dataframe.getitem", [side], {"columns": k}, "series")
        return _make("dataframe.rename", [col], {"name": name}, "series")
    out = list(xs)
    for k, i in enumerate(parts):
        xn = _series_name(xs[i]._ref) if i else None
        out[i] = take(1 + k, None if xn is _UNKNOWN else xn)
        if i == 0:  # cond: a label it lacks as pandas fills it
            out[0] = out[0].fillna(bool(missing_cond))
    return take(0, None if nm is _UNKNOWN else nm), out


def _columns_unioned(a, b):
    """two DataFrames of different columns on the union of them, as pandas
    aligns the columns of an op (sorted where they differ; a column one
    lacks all NaN in it); as they are where the client does not know them"""
    ca, cb = a._columns, b._columns
    if ca is None or cb is None or list(ca) == list(cb) or \
            len(set(map(repr, ca))) != len(ca) or len(set(map(repr, cb))) != len(cb):
        return a, b
    union = list(ca) + [c for c in cb if repr(c) not in set(map(repr, ca))]
    try:
        union = sorted(union)
    except TypeError:  # labels of several types: as they come
        pass

    def widened(x, have):
        have = set(map(repr, have))
        missing = [c for c in union if repr(c) not in have]
        if missing:
            x = x._assigned([(c, np.nan) for c in missing])
        return _make("dataframe.getitem", [x], {"columns": union}, "dataframe", union)
    return widened(a, ca), widened(b, cb)


def _frame_series_aligned(f, s):
    """a DataFrame and a Series of other rows, aligned on their index labels
    as pandas aligns df.sub(s, axis=0) (DataFrame.align, join "outer"):
    _aligned_apart's"""
    cols = list(f.columns)
    if len(set(map(repr, cols))) != len(cols):
        raise NotImplementedError("a DataFrame of repeated column names aligned with a Series "
                                  "of other rows is not supported")
    nm = _series_name(s._ref)
    return _aligned_apart([f, s], [None, None if nm is _UNKNOWN else nm])


def _frames_aligned(ins, ents, a, b):
    """Two DataFrames of the same columns (in the same order) and different
    rows, aligned on their index labels as _labels_aligned aligns two
    Series: their columns numbered apart, side by side, then each frame's
    taken back under its names. Frames whose columns differ as they are."""
    cols = a._columns
    if cols is None or b._columns is None or list(cols) != list(b._columns) or \
            len(set(map(repr, cols))) != len(cols):
        return ins
    out = list(ins)
    out[ents[0]], out[ents[1]] = _aligned_apart([a, b])
    return out


# the ops a Series expression over groupby results may pass through when
# _fuse_groupbys rebases it (row for row, the rows of their input)
_REBASE_OPS = ("dataframe.rename", "dataframe.fillna", "dataframe.round", "dataframe.abs",
               "dataframe.astype", "dataframe.clip", "dataframe.isna", "dataframe.notna",
               "dataframe.replace")


def _gb_leaf(node):
    """(the groupby node, its output column) when node is a Series column of a
    groupby_agg (None for a groupby_size: its one column); else None"""
    if node.op == "dataframe.getitem" and node.kind == "series" and \
            isinstance(node.params.get("columns"), (str, int)):
        src = node.inputs[0]
        if isinstance(src, Node) and src.op == "dataframe.groupby_agg":
            return src, node.params["columns"]
    if node.op == "dataframe.groupby_size":
        return node, None
    return None


def _gb_bases(node, found, depth=0, seen=None):
    """the groupby nodes a Series expression's leaves read (into found, by
    id); False when it reads anything else (another frame's rows); seen:
    the nodes already walked (each once)"""
    seen = {} if seen is None else seen
    if id(node) in seen:
        return seen[id(node)]
    seen[id(node)] = out = _gb_bases_of(node, found, depth, seen)
    return out


def _gb_bases_of(node, found, depth, seen):
    leaf = _gb_leaf(node)
    if leaf:
        found[id(leaf[0])] = leaf[0]
        return True
    if depth > 50 or node.kind != "series" or not node.op or \
            (node.op.startswith("dataframe.") and node.op not in _REBASE_OPS):
        return False
    ok = False
    for i in node.inputs:
        if isinstance(i, Node):
            if not _gb_bases(i, found, depth + 1, seen):
                return False
            ok = True
        elif hasattr(i, "node"):  # a tensor's output: not rows
            return False
    return ok


def _gb_signature(gb):
    """what two groupby nodes must share for their groups to line up: the
    frame, the keys, dropna and as_index"""
    p = gb.params
    by = p.get("by")
    return (id(gb.inputs[0]), json.dumps(by if isinstance(by, list) else [by]),
            p.get("dropna", True) is not False, p.get("as_index", True) is not False)


def _node_key(node, depth=0, memo=None):
    """A node's structure (op, params, inputs'), so that two nodes built
    alike (df.sym written twice) compare equal; inputs that are no nodes by
    identity. (memo: each node's once; a shared part is one key object)"""
    if not isinstance(node, Node) or depth > 30:
        return ("id", id(node))
    memo = {} if memo is None else memo
    if (id(node), depth) not in memo:
        memo[(id(node), depth)] = (
            node.op, node.kind, json.dumps(node.params, sort_keys=True, default=repr),
            tuple(_node_key(i, depth + 1, memo) for i in node.inputs))
    return memo[(id(node), depth)]


def _side_by_side(node):
    """[(column name, Series node)] of a concat of Series along the columns
    (what Series.groupby groups), else None"""
    if node.op != "dataframe.concat" or node.params.get("axis") != 1:
        return None
    out = []
    for i in node.inputs:
        if not isinstance(i, Node) or i.kind != "series":
            return None
        name = _series_name(i)
        if name is _UNKNOWN:
            return None
        out.append((name, i))
    return out


def _merge_side_by_side(bases):
    """Groupbys of different concats of Series (s1.groupby(k), s2.groupby(k):
    each its own frame) by the same key columns: one concat of the keys and
    every grouped Series, and each groupby's column names in it; None when
    they do not fit (another frame, keys that differ)."""
    frames = {}
    for b in bases.values():
        cols = _side_by_side(b.inputs[0])
        if cols is None:
            return None
        frames[id(b)] = cols
    by = next(iter(bases.values())).params["by"]
    by = by if isinstance(by, list) else [by]
    keys = {}
    for cols in frames.values():
        for name, n in cols:
            if name in by:
                k = _node_key(n)
                if keys.setdefault(name, (k, n))[0] != k:
                    return None  # a key of that name made otherwise
    if set(keys) != set(by):
        return None
    inputs = [keys[name][1] for name in by]
    taken, made = set(by), {}
    colmap = {}
    for bid, cols in frames.items():
        m = {name: name for name in by}
        for name, n in cols:
            if name in by:
                continue
            k = _node_key(n)
            if k not in made:
                new = name
                while new in taken:
                    new = "%s_%d" % (name, len(taken))
                taken.add(new)
                made[k] = new
                inputs.append(n if new == name else
                              Node("dataframe.rename", [n], {"name": new}, "series"))
            m[name] = made[k]
        colmap[bid] = m
    return Node("dataframe.concat", inputs, {"axis": 1}, "dataframe"), colmap


def _fuse_groupbys(ins):
    """ins with the Series that read several compatible groupby results
    rebased onto one groupby_agg of all their aggregations (each leaf a
    column of it, named back as it was); ins unchanged when there is
    nothing to fuse or anything else is read"""
    series = [x for x in ins if isinstance(x, Series)]
    if len(series) < 2:
        return ins
    bases = {}
    for x in series:
        if not _gb_bases(x._ref.node, bases):
            return ins
    if len(bases) < 2:
        return ins
    frame, colmap = None, None
    if len({_gb_signature(b) for b in bases.values()}) != 1:
        # different frames: Series.groupby's concats of one frame's rows
        # by the same keys can be merged into one
        if len({_gb_signature(b)[1:] for b in bases.values()}) != 1:
            return ins
        merged = _merge_side_by_side(bases)
        if merged is None:
            return ins
        frame, colmap = merged
    first = next(iter(bases.values()))
    agg, names = {}, {}  # merged out -> spec; (id(node), out) -> merged out
    for b in bases.values():
        specs = [(None, [b.params["by"][0] if isinstance(b.params["by"], list)
                         else b.params["by"], "size"])] if b.op == "dataframe.groupby_size" \
            else list(b.params["agg"].items())
        for out, spec in specs:
            spec = list(spec)
            if colmap is not None:
                spec[0] = colmap[id(b)].get(spec[0], spec[0])
            hit = next((k for k, v in agg.items() if v == spec), None)
            if hit is None:
                hit = "_mars_agg%d" % len(agg)
                agg[hit] = spec
            names[(id(b), out)] = hit
    p = {k: v for k, v in first.params.items() if k not in ("agg",)}
    p["agg"] = agg
    if first.op == "dataframe.groupby_size":
        p = {"by": first.params["by"], "agg": agg}
    merged = Node("dataframe.groupby_agg", [first.inputs[0] if frame is None else frame], p,
                  "dataframe")
    memo = {}

    def clone(node):
        if id(node) in memo:
            return memo[id(node)]
        leaf = _gb_leaf(node)
        if leaf:
            col = Node("dataframe.getitem", [merged], {"columns": names[(id(leaf[0]),
                                                                          leaf[1])]}, "series")
            out = Node("dataframe.rename", [col], {"name": leaf[1]}, "series")
        else:
            out = Node(node.op, [clone(i) if isinstance(i, Node) else i for i in node.inputs],
                       node.params, node.kind)
        memo[id(node)] = out
        return out

    res = []
    for x in ins:
        if isinstance(x, Series):
            y = Series.__new__(Series)
            Entity.__init__(y, clone(x._ref.node), x._session)
            y._columns, y._index_names = x._columns, x._index_names
            x = _after_create(y)
        res.append(x)
    return res


# a parameter sent as JSON null (None leaves a parameter out)
_NULL = object()


class _Frame(Entity):
    """What DataFrame and Series share: operators and reductions."""

    __array_priority__ = 100
    _columns = None
    _index_names = None  # known here when the server's JSON lacks "index_names"
    # what the fetched pandas object becomes, where the engine's JSON cannot
    # say it all (a column axis's name, a one-level MultiIndex ...): _as_fetched
    _fetched = None
    _fetched_keeps = False
    # pandas' CategoricalDtype of categorical columns ({column: dtype}, a
    # Series' under None): _carried.py
    _cats = None
    # numpy's narrower dtypes (int8, float32 ...) of columns an astype made
    # ({column: dtype}, a Series' under None): held widened on the cluster,
    # fetched as pandas holds them (_narrowed)
    _narrow = None
    _regrouped = False  # a groupby result of categorical keys (_carried.regrouped)

    # the pandas Index that `index` last gave and its names then: a user's
    # df.index.name = "x" renames this frame's index from then on (_ref)
    _index_given = None

    @property
    def _ref(self):
        given = self._index_given
        if given is not None and list(given[0].names) != given[1]:
            self._index_given = None
            self.__dict__["_node_ref"] = self.rename_axis(list(given[0].names))._ref
            self._index_names = list(given[0].names)
        return self.__dict__["_node_ref"]

    @_ref.setter
    def _ref(self, ref):
        self.__dict__["_node_ref"] = ref

    def __hash__(self):
        return id(self)

    def fetch(self, session=None):
        got = Entity.fetch(self, session)
        if self._cats:
            got = _cat_fetched(got, self._cats)
        return got if self._fetched is None else self._fetched(got)

    def __bool__(self):
        raise TypeError("the truth value of a marsc %s is unknown until it runs"
                        % type(self).__name__)

    def __iter__(self):
        raise TypeError("a marsc %s is not iterable: fetch() it into pandas first"
                        % type(self).__name__)

    def __contains__(self, key):
        """pandas' `key in df` (a column's name) and `key in s` (an index
        label: the index is fetched)"""
        if isinstance(self, DataFrame):
            return key in self.columns
        return key in self.index

    def _bin(op):  # noqa: N805 - a factory used in the class body
        def f(self, o):
            if _is_offset(o) and op in ("add", "subtract"):  # s + pd.DateOffset(months=1)
                return _offset_added(self, o, 1 if op == "add" else -1)
            if _by_column_labels(self, o):  # df - df.mean(): aligned on the columns
                return _flex_op(self, o, _FLEX_NAMES[op], False, 1, None, None)
            if _by_column_labels(o, self):  # df.mean() - df
                return _flex_op(o, self, _FLEX_NAMES[op], True, 1, None, None)
            return elementwise(op, [self, o])

        def r(self, o):
            if _is_offset(o) and op == "add":
                return _offset_added(self, o, 1)
            if _by_column_labels(self, o):
                return _flex_op(self, o, _FLEX_NAMES[op], True, 1, None, None)
            return elementwise(op, [o, self])
        return f, r

    __add__, __radd__ = _bin("add")
    __sub__, __rsub__ = _bin("subtract")
    __mul__, __rmul__ = _bin("multiply")
    __truediv__, __rtruediv__ = _bin("divide")
    __floordiv__, __rfloordiv__ = _bin("floor_divide")
    __mod__, __rmod__ = _bin("mod")
    __pow__, __rpow__ = _bin("power")
    __and__, __rand__ = _bin("logical_and")
    __or__, __ror__ = _bin("logical_or")
    __eq__, _ = _bin("equal")
    __ne__, _ = _bin("not_equal")
    __lt__, _ = _bin("less")
    __le__, _ = _bin("less_equal")
    __gt__, _ = _bin("greater")
    __ge__, _ = _bin("greater_equal")
    del _bin, _

    def _flex(name, rev=False):  # noqa: N805 - a factory used in the class body
        def f(self, other, axis="columns", level=None, fill_value=None):
            return _flex_op(self, other, name, rev, axis, level, fill_value)
        f.__name__ = ("r" if rev else "") + name
        f.__doc__ = ("pandas' %s: the operator's, other on the left; " if rev else
                     "pandas' %s: the operator's; ") % f.__name__ + _FLEX_DOC
        return f

    add, radd = _flex("add"), _flex("add", True)
    sub, rsub = _flex("sub"), _flex("sub", True)
    mul, rmul = _flex("mul"), _flex("mul", True)
    truediv, rtruediv = _flex("truediv"), _flex("truediv", True)
    div, rdiv = truediv, rtruediv
    floordiv, rfloordiv = _flex("floordiv"), _flex("floordiv", True)
    mod, rmod = _flex("mod"), _flex("mod", True)
    pow, rpow = _flex("pow"), _flex("pow", True)
    subtract, multiply, divide = sub, mul, truediv
    eq, ne, lt, le, gt, ge = (_flex("eq"), _flex("ne"), _flex("lt"), _flex("le"), _flex("gt"),
                              _flex("ge"))
    del _flex

    def __neg__(self):
        return elementwise("negative", [self])

    def __abs__(self):
        return elementwise("abs", [self])

    def __invert__(self):
        return elementwise("logical_not", [self])

    def abs(self):
        return elementwise("abs", [self])

    def astype(self, dtype):
        """pandas' astype: to str (and object), int64, float64 and bool
        through dataframe.astype, as pandas converts (numbers written as
        Python's str() writes them, strings parsed, NaN to int64 refused);
        between other numeric types the element-wise astype; a dict
        {column: dtype} of a DataFrame."""
        def name(t):
            if t in (str, "str", "string", object, "object") or t is np.str_:
                return "str"
            return np.dtype(t).name
        if isinstance(dtype, dict):
            wide = {c: t for c, t in dtype.items() if name(t) not in _NARROW}
            out = _make("dataframe.astype", [self], {"dtype": {c: name(t) for c, t in
                                                               wide.items()}},
                        "dataframe" if isinstance(self, DataFrame) else "series",
                        self._columns) if wide or not dtype else self
            for c, t in dtype.items():
                if name(t) in _NARROW:
                    out = out.copy()
                    out[c] = out[c].astype(t)
            return _narrowed(out, {c: name(t) for c, t in dtype.items() if name(t) in _NARROW},
                             dict(self._narrow or {}))
        if name(dtype) in ("str", "int64", "float64", "bool"):
            return _make("dataframe.astype", [self], {"dtype": name(dtype)},
                         "dataframe" if isinstance(self, DataFrame) else "series", self._columns)
        out = elementwise("astype", [self], {"dtype": name(dtype)})
        if name(dtype) not in _NARROW:
            return out
        return _narrowed(out, {c: name(dtype) for c in self._columns}
                         if isinstance(self, DataFrame) else {None: name(dtype)})

    def __array_function__(self, func, types, args, kwargs):
        """numpy's np.where(cond, a, b) of Series: the element-wise where
        (a Series of the rows), as pandas' users write it."""
        if func is np.where and len(args) == 3 and not kwargs:
            return elementwise("where", list(args))
        one = len(args) >= 1 and args[0] is self
        reductions = {np.sum: "sum", np.mean: "mean", np.amax: "max", np.amin: "min",
                      np.median: "median", np.prod: "prod"}
        if one and func in reductions and len(args) == 1 and not kwargs:
            return getattr(self, reductions[func])()  # pandas' np.mean(s) is s.mean()
        if one and func in (np.std, np.var) and len(args) == 1 and set(kwargs) <= {"ddof"}:
            return getattr(self, func.__name__)(ddof=kwargs.get("ddof", 0))  # numpy's ddof 0
        if one and func in (np.round, np.around) and len(args) <= 2 and \
                set(kwargs) <= {"decimals"}:
            return self.round(args[1] if len(args) > 1 else kwargs.get("decimals", 0))
        # any other function as numpy runs it without the protocol (np.sum(s)
        # calls s.sum(), np.log(s) the ufunc above)
        impl = getattr(func, "_implementation", None)
        return NotImplemented if impl is None else impl(*args, **kwargs)

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        """numpy's ufuncs of Series and DataFrames (np.log(s), np.maximum(s,
        0)) as the engine's element-wise ops of the same names."""
        from .. import tensor as mt
        f = getattr(mt, ufunc.__name__, None)
        if method != "__call__" or kw or f is None:
            return NotImplemented
        return f(*inputs)

    def unstack(self, level=-1, fill_value=None):
        """pandas' Series.unstack of a Series of two or more index levels
        (a groupby by several keys, a set_index of several columns): the
        level's values (a name or a position) become the columns, the other
        levels the rows; fill_value for the cells no row reaches. One
        level only (a list would make MultiIndex columns); it can only be
        fetched. A DataFrame's: each column's, put side by side with
        pandas' MultiIndex columns (column, label) when fetched."""
        if isinstance(level, (list, tuple)):
            raise NotImplementedError("unstack of several levels makes MultiIndex columns, "
                                      "which are not supported")
        if isinstance(self, DataFrame) and not self._fetch_only:
            import pandas as pd
            cols = list(self.columns)
            return _tables_side_by_side([self[c].unstack(level, fill_value) for c in cols],
                                 lambda every: pd.concat(every, axis=1, keys=cols))
        p = {"level": level} if level != -1 else {}
        if fill_value is not None:
            p["fill_value"] = fill_value.item() if isinstance(fill_value, np.generic) \
                else fill_value
        names, axis = self._index_names, None
        if names is not None and len(names) > 1:
            at = names.index(level) if level in names else level if isinstance(level, int) \
                else None
            if at is not None:
                axis = names[at % len(names)]
            names = [x for q, x in enumerate(names) if at is None or q != at % len(names)]
        else:
            names = None
        out = _make("dataframe.unstack", [self], p, "dataframe", index_names=names)
        if axis is not None:  # the unstacked level's name names the columns, as pandas'
            _as_fetched(out, _axis_named(axis))
        out._fetch_only = True  # its columns are its data's: further ops run on the fetched
        return out

    def rename_axis(self, mapper=None, index=None, columns=None, axis=0):
        """pandas' rename_axis of the index: its name (a list: one per
        level; None unnames it), or with index= a dict or function of the
        old names. The columns' axis has no name here (refused)."""
        if columns is not None or axis in (1, "columns"):
            raise NotImplementedError("rename_axis of the columns: the column axis has no name "
                                      "here")
        have = self._index_names
        names = mapper if index is None else index
        if callable(names) or isinstance(names, dict):
            if have is None:
                self._ran()
                have = self._meta().get("index_names") or [None]
            names = [names(x) if callable(names) else names.get(x, x) for x in have]
        elif not isinstance(names, (list, tuple)):
            names = [names]
        names = [x.item() if isinstance(x, np.generic) else x for x in names]
        if have is not None and len(names) != len(have):
            raise ValueError("Length of names must match number of levels in MultiIndex.")
        kind = "dataframe" if isinstance(self, DataFrame) else "series"
        return _make("dataframe.rename", [self], {"index_names": names}, kind, self._columns,
                     index_names=names)

    def _meta(self):
        """The server's metadata once executed (GET .../tensors/KEY), else None."""
        from ..core import Session
        sess = self._session or Session.default()
        if sess is None or self.key not in sess._frames:
            return None
        return sess.tensor_info(self.key)

    def _ran(self):
        """The server's metadata, running this first when it has not run."""
        m = self._meta()
        if m is None:
            self.execute()
            m = self._meta()
        return m

    @property
    def shape(self):
        """pandas' shape: (rows, columns) of a DataFrame, (rows,) of a
        Series; the row count is known once it runs, so this runs it."""
        m = self._ran()
        if isinstance(self, DataFrame):
            return (int(m["nrows"]), len(m["columns"]))
        return (int(m["nrows"]),)

    def __len__(self):
        """The row count (runs it, as shape)."""
        return self.shape[0]

    @property
    def ndim(self):
        return 2 if isinstance(self, DataFrame) else 1

    @property
    def size(self):
        """rows times columns (runs it, as shape)"""
        sh = self.shape
        return sh[0] * (sh[1] if len(sh) > 1 else 1)

    @property
    def index(self):
        """pandas' Index of the result: it is fetched (as to_list). Naming
        it (df.index.name = "x", df.index.names = [...]) renames this
        frame's index, as in pandas (rename_axis from then on)."""
        got = self.fetch().index.copy()
        self._index_given = (got, list(got.names))
        return got

    @property
    def empty(self):
        return self.shape[0] == 0 or (isinstance(self, DataFrame) and self.shape[1] == 0)

    def to_numpy(self, dtype=None):
        """The values fetched into a numpy array, as pandas' to_numpy."""
        return self.fetch().to_numpy(dtype=dtype)

    @property
    def values(self):
        return self.to_numpy()

    # pandas' exports: the fetched pandas object's
    def to_pandas(self):
        return self.fetch()

    def _export(name):  # noqa: N805 - a factory used in the class body
        def f(self, *args, **kw):
            return getattr(self.fetch(), name)(*args, **kw)
        f.__name__ = name
        f.__doc__ = "pandas' %s of the fetched result" % name
        return f

    # (only what pandas' DataFrame and Series both have: the others are on
    # their own class, so that a column named like them stays reachable as
    # df.item, as in pandas)
    to_dict, to_csv, to_json = _export("to_dict"), _export("to_csv"), _export("to_json")
    to_string, to_markdown, to_latex = _export("to_string"), _export("to_markdown"), \
        _export("to_latex")
    _export_one = _export
    # pandas' summaries, of the fetched result: df.info(), df.memory_usage()
    info, memory_usage = _export("info"), _export("memory_usage")
    del _export

    @property
    def plot(self):
        """pandas' plot accessor of the fetched result (it runs):
        df.plot(kind="bar"), s.plot.hist() ..., drawn by matplotlib where
        it is installed"""
        return self.fetch().plot

    def hist(self, *args, **kw):
        """pandas' hist of the fetched result (matplotlib's)"""
        return self.fetch().hist(*args, **kw)

    def agg(self, func=None, axis=0, **kw):
        """pandas' agg of a whole frame or Series: a func name (the
        reduction of that name, lazy); a list of them (a row per func), a
        dict {column: func or [funcs]}: those reductions run as one task
        and pandas' table (or Series) is assembled here, already fetched.
        Functions are names or numpy's (np.sum ...)."""
        if axis not in (0, "index") or kw:
            raise NotImplementedError("agg: axis 0 and no keywords only")
        if callable(func) and not isinstance(func, str) and not _numpy_agg(func):
            # pandas: a Series' func of the whole Series, a frame's of each column
            return func(self) if isinstance(self, Series) else self.apply(func)
        if not isinstance(func, (list, tuple, dict)):
            return getattr(self, _func_name(func))()
        import pandas as pd
        from ..core import execute
        if isinstance(func, dict):
            if not isinstance(self, DataFrame):
                raise NotImplementedError("a Series' agg takes a func or a list of them")
            plan = {c: ([_func_name(f) for f in fs] if isinstance(fs, (list, tuple))
                        else _func_name(fs)) for c, fs in func.items()}
            jobs = {(c, f): getattr(self[c], f)() for c, fs in plan.items()
                    for f in (fs if isinstance(fs, list) else [fs])}
            execute(*jobs.values())
            vals = {k: _scalar(v.fetch()) for k, v in jobs.items()}
            if all(not isinstance(fs, list) for fs in plan.values()):
                return pd.Series({c: vals[(c, f)] for c, f in plan.items()})
            rows = []
            for fs in plan.values():
                for f in (fs if isinstance(fs, list) else [fs]):
                    if f not in rows:
                        rows.append(f)
            return pd.DataFrame({c: [vals.get((c, f), np.nan) for f in rows]
                                 for c in plan}, index=rows)
        fs = [_func_name(f) for f in func]
        labels = [f if isinstance(f, str) else getattr(f, "__name__", str(f)) for f in func]
        jobs = [getattr(self, f)() for f in fs]
        execute(*jobs)
        got = [j.fetch() for j in jobs]
        if isinstance(self, Series):
            nm = _series_name(self._ref)
            return pd.Series([_scalar(g) for g in got], index=labels,
                             name=None if nm is _UNKNOWN else nm)
        # a column per column, its values by func (each column keeps its type,
        # int64 where every func gives an integer, as pandas' agg)
        cols = list(got[0].index)
        out = pd.DataFrame({c: [g[c] for g in got] for c in cols}, index=labels, columns=cols)
        # an int64 column's sum, min, max ... is an integer (its row of the
        # fetched Series of every column went float64 beside the floats)
        counts = all(f in ("count", "nunique", "size") for f in fs)
        keep = all(f in ("sum", "min", "max", "count", "nunique", "size", "prod", "first",
                         "last") for f in fs)
        types = self.head(0)._ran().get("dtypes", {}) if keep and not counts else {}
        for c in cols:
            if (counts or types.get(str(c), types.get(c)) == "int64") and out[c].notna().all():
                out[c] = out[c].astype("int64")
        return out

    aggregate = agg

    def apply(self, func, *args, **kw):
        """s.apply(func) and df.apply(func, axis=1): func's expression (a
        lambda, or a def of one return, read from its source) run over
        whole columns, element-wise: its value (s's) or its row's columns
        (row.x, row["x"]) are Series, so `lambda x: x * 2`, `lambda r:
        r.price * r.qty`, `lambda x: "hi" if x > 5 else "lo"` and
        `lambda s: s.upper()[:3]` give pandas' results without Python on the
        workers. Missing values stay missing where pandas' function would
        fail on them (NaN.upper()). df.apply(pd.to_numeric, errors=...) is
        md.to_numeric of each column, as pandas gives it."""
        if _is_to_numeric(func) and isinstance(self, DataFrame) and \
                kw.get("axis", args[0] if args else 0) in (0, "index"):
            kw = {k: v for k, v in kw.items() if k != "axis"}
            cols = self.columns
            out = concat([to_numeric(self[c], **kw) for c in cols], axis=1)
            out._columns = list(cols)
            return out
        if _is_to_numeric(func) and isinstance(self, Series):
            return to_numeric(self, **kw)
        axis = kw.pop("axis", args[0] if args and isinstance(self, DataFrame) else 0)
        if isinstance(self, DataFrame):
            args = args[1:]
        extra = {k: v for k, v in kw.items() if v not in (None, (), False) and
                 not (k == "convert_dtype" and v is True)}
        if args or extra:
            raise NotImplementedError("apply: arguments for the function (args, raw, "
                                      "result_type, ...) are not supported")
        if isinstance(self, DataFrame):
            if axis not in (1, "columns"):
                return _by_columns(self, func)
            return _vectorized(func, _Row(self), "apply").rename(None)
        if getattr(func, "__objclass__", None) is str and hasattr(_StrAccessorProbe, func.__name__):
            # str.upper, str.strip ...: the str accessor's method of that name
            out = getattr(self.str, func.__name__)()
        else:
            out = _vectorized(func, self, "apply")
        nm = _series_name(self._ref)
        return out if nm is _UNKNOWN else out.rename(nm)

    def _reduce(self, op, axis=0, **params):
        if axis in (1, "columns") and isinstance(self, DataFrame) and \
                op in ("sum", "mean", "min", "max", "count", "any", "all", "prod"):
            return self._across(op)
        if axis in (1, "columns") and isinstance(self, DataFrame) and op in ("var", "std"):
            return self._across_var(op, params.get("ddof", 1))
        p = {} if axis in (0, None, "index") else {"axis": axis}
        p.update(params)
        out = "series" if isinstance(self, DataFrame) else "tensor"
        return _make("dataframe." + op, [self], p, out, index_names=None)

    def _opts(self, numeric_only, skipna, axis=0):
        """pandas' numeric_only (the engine's reductions take the numeric
        columns: True and None are those) and skipna: a function of the
        reduction's result, NaN where skipna=False meets a missing value"""
        if numeric_only is False and isinstance(self, DataFrame):
            raise NotImplementedError("numeric_only=False is not supported: the reductions "
                                      "take the numeric columns")
        if skipna is True:
            return lambda out: out
        if not isinstance(self, Series):
            return self._missing_gives_nan(axis)
        kind = self.dtype.kind
        if kind in "iub":  # no value can be missing
            return lambda out: out
        if kind != "f":
            raise NotImplementedError("skipna=False of a Series of %s is not supported (of "
                                      "numbers it is)" % self.dtype)

        def missing_gives_nan(out):  # pandas: NaN where a value is missing
            from .. import tensor as mt
            return mt.where(self.isna().any(), np.nan, out)
        return missing_gives_nan

    def sum(self, axis=0, numeric_only=None, skipna=True, min_count=0):
        keep = self._opts(numeric_only, skipna, axis)
        return keep(_min_count(self, self._reduce("sum", axis), min_count, axis))

    def mean(self, axis=0, numeric_only=None, skipna=True):
        keep = self._opts(numeric_only, skipna, axis)
        return keep(self._reduce("mean", axis))

    def min(self, axis=0, numeric_only=None, skipna=True):
        keep = self._opts(numeric_only, skipna, axis)
        if isinstance(self, Series) and _holds_text(self):
            return keep(_text_extreme(self, "min"))
        return keep(self._reduce("min", axis))

    def max(self, axis=0, numeric_only=None, skipna=True):
        keep = self._opts(numeric_only, skipna, axis)
        if isinstance(self, Series) and _holds_text(self):
            return keep(_text_extreme(self, "max"))
        return keep(self._reduce("max", axis))

    def count(self, axis=0, numeric_only=False):
        return self._reduce("count", axis)

    def prod(self, axis=0, numeric_only=None, skipna=True, min_count=0):
        keep = self._opts(numeric_only, skipna, axis)
        return keep(_min_count(self, self._reduce("prod", axis), min_count, axis))
    def nunique(self, axis=0, dropna=True):
        if axis in (1, "columns") and isinstance(self, DataFrame):
            return self._across_nunique(dropna)
        return self._reduce("nunique", axis, **({} if dropna else {"dropna": False}))
    def any(self, axis=0): return self._reduce("any", axis)
    def all(self, axis=0): return self._reduce("all", axis)

    def idxmax(self, axis=0, skipna=True):
        """The label of each column's largest value (the first of equal
        ones): a Series per DataFrame, the label itself per Series."""
        return self._idx("idxmax", axis, skipna)

    def idxmin(self, axis=0, skipna=True):
        return self._idx("idxmin", axis, skipna)

    def _idx(self, op, axis, skipna):
        if axis in (1, "columns") and isinstance(self, DataFrame) and skipna:
            return self._across_idx(op[3:])
        if axis not in (0, "index"):
            raise NotImplementedError("%s: only axis=0 is supported" % op)
        p = {} if skipna else {"skipna": False}
        out = _make("dataframe." + op, [self], p, "series", index_names=None)
        if isinstance(self, Series):  # pandas' scalar: the one row's value
            out.__class__ = _Label
        return out

    def where(self, cond, other=np.nan):
        """pandas' where: this value where cond holds, else other (a number,
        NaN by default, or a frame like this one); cond a bool Series for a
        Series, a bool DataFrame of the same columns for a DataFrame
        (strings take strings or NaN); either may be a function of this
        object, called with it, as pandas calls it. A DataFrame's cond may
        be a bool Series of its rows: each column's where of it, as pandas
        broadcasts it."""
        cond, other = _called(cond, self), _called(other, self)
        if isinstance(self, DataFrame) and isinstance(cond, Series):
            return self._each_column(lambda c: self[c].where(cond, other))
        me, (cond, other) = _left_aligned(self, [cond, other], False)
        return _named_as(self, elementwise("where", [cond, me, other]))

    def mask(self, cond, other=np.nan):
        """pandas' mask: other where cond holds, else this value."""
        cond, other = _called(cond, self), _called(other, self)
        if isinstance(self, DataFrame) and isinstance(cond, Series):
            return self._each_column(lambda c: self[c].mask(cond, other))
        me, (cond, other) = _left_aligned(self, [cond, other], True)
        return _named_as(self, elementwise("where", [cond, other, me]))

    def _each_column(self, fn):
        """this frame with each column c replaced by fn(c), a Series of its
        rows"""
        cols = list(self.columns)
        return _make("dataframe.assign", [self] + [fn(c) for c in cols], {"names": cols},
                     "dataframe", cols)

    def pipe(self, func, *args, **kwargs):
        """pandas' pipe: func(self, *args, **kwargs), or with func a
        (function, keyword) pair the function with self as that keyword."""
        if isinstance(func, tuple):
            func, kw = func
            if kw in kwargs:
                raise ValueError("%s is both the pipe target and a keyword argument" % kw)
            kwargs[kw] = self
            return func(*args, **kwargs)
        return func(self, *args, **kwargs)

    def transform(self, func, axis=0, *args, **kwargs):
        """pandas' transform: a result of this object's shape. func a name
        (a method: "cumsum", "abs", "rank"; else numpy's: "sqrt"), a
        function (element-wise as apply, else called with the Series, as
        pandas tries them; a DataFrame's gets each column), a
        list of them (a Series' gives a column each, named as pandas names
        them) or a DataFrame's {column: func}. A reduction ("sum", x.mean())
        is refused, as pandas: "Function did not transform"."""
        if axis not in (0, "index"):
            raise NotImplementedError("transform: axis 0 only")
        if isinstance(func, dict):
            if not isinstance(self, DataFrame):
                raise NotImplementedError("a Series' transform takes a func or a list of them")
            if any(isinstance(f, (list, tuple)) for f in func.values()):
                raise NotImplementedError("transform({column: [funcs]}) gives MultiIndex "
                                          "columns, which are not supported")
            out = concat([self[c].transform(f, 0, *args, **kwargs) for c, f in func.items()],
                         axis=1)
            out._columns = list(func)
            return out
        if isinstance(func, (list, tuple)):
            if isinstance(self, DataFrame):
                raise NotImplementedError("transform of a DataFrame by a list of funcs gives "
                                          "MultiIndex columns, which are not supported")
            names = [f if isinstance(f, str) else getattr(f, "__name__", "<lambda>")
                     for f in func]
            out = concat([self.transform(f, 0, *args, **kwargs).rename(nm)
                          for f, nm in zip(func, names)], axis=1)
            out._columns = names
            return out
        if isinstance(self, DataFrame):
            cols = list(self.columns)
            out = concat([self[c].transform(func, 0, *args, **kwargs) for c in cols], axis=1)
            out._columns = cols
            return out
        if isinstance(func, str):
            if func in _NOT_TRANSFORMS:
                raise ValueError("Function did not transform")
            if hasattr(type(self), func):
                out = getattr(self, func)(*args, **kwargs)
            elif isinstance(getattr(np, func, None), np.ufunc):
                out = getattr(np, func)(self, *args, **kwargs)
            else:
                raise AttributeError("'%s' is not a valid function for 'Series' object" % func)
        elif args or kwargs:
            out = func(self, *args, **kwargs)
        else:  # pandas: element-wise (apply), else called with the Series
            try:
                out = self.apply(func)
            except Exception as e:
                try:
                    out = func(self)
                except Exception:
                    raise e from None
        if not isinstance(out, Series):
            raise ValueError("Function did not transform")
        return out

    def std(self, axis=0, ddof=1, numeric_only=None, skipna=True):
        keep = self._opts(numeric_only, skipna, axis)
        return keep(self._reduce("std", axis, **({} if ddof == 1 else {"ddof": ddof})))

    def var(self, axis=0, ddof=1, numeric_only=None, skipna=True):
        keep = self._opts(numeric_only, skipna, axis)
        return keep(self._reduce("var", axis, **({} if ddof == 1 else {"ddof": ddof})))

    def sem(self, axis=0, skipna=True, ddof=1, numeric_only=None):
        """pandas' standard error of the mean, std(ddof) / sqrt(count): a
        Series' a scalar tensor; a DataFrame's of its numeric columns
        (their std and count as one task), already fetched: pandas' Series"""
        if axis not in (0, "index", None) or not skipna:
            raise NotImplementedError("sem: along the rows, skipping missing values, only")
        if isinstance(self, Series):
            return self.std(ddof=ddof) / self.count() ** 0.5
        if ddof != 1:
            raise NotImplementedError("a DataFrame's sem: ddof 1 only")
        dt = self.dtypes
        cols = [c for c, t in dt.items() if t != object and t.kind in "biuf"]
        got = self[cols].agg(["std", "count"])  # fetched: pandas' table of mixed rows
        got = got if not hasattr(got, "_ref") else got.fetch()
        return (got.loc["std"] / np.sqrt(got.loc["count"].astype(float))).rename(None)

    def describe(self, percentiles=None, include=None, exclude=None,
                 datetime_is_numeric=False):
        """pandas' numeric describe; datetimes as pandas 1.5's default
        (datetime_is_numeric=False: count, unique, top, freq, first and
        last; True is refused); percentiles a list of numbers in [0, 1]
        (0.5 is added, as pandas adds it). include "object" (or "O",
        [object]) and "all" describe string columns too: count, unique, top
        and freq, which mix numbers and strings in one column, as pandas'
        object column; the engine's columns cannot, so those are computed
        as tasks (counts, nunique, value_counts) and assembled here: the
        result is a pandas DataFrame, already fetched."""
        if datetime_is_numeric:
            raise NotImplementedError("describe(datetime_is_numeric=True) is not supported: "
                                      "pandas 1.5's default (False) describes datetimes")
        if exclude is not None:  # pandas: the columns left, each described by its type
            if isinstance(self, Series):
                raise ValueError("exclude must be None when describing a Series")
            return self.select_dtypes(include=include, exclude=exclude).describe(
                percentiles, include="all")
        if include is None and isinstance(self, Series) and \
                (self._cats or self.dtype.kind in "OM"):
            include = "object"  # pandas' describe of strings, categoricals, datetimes (it ran)
        if include is None and isinstance(self, DataFrame):
            m = self._meta() or self.head(0)._ran()  # the columns' types, from head(0)
            if not any(np.issubdtype(np.dtype(object if t in ("string", "object") else t),
                                     np.number) for t in m["dtypes"].values()):
                include = "object"  # a frame of no numbers: its strings' and datetimes'
        if include is None or include in ("number", np.number, ["number"], [np.number]):
            p = None if percentiles is None else {"percentiles": [float(q) for q in percentiles]}
            return _make("dataframe.describe", [self], p,
                         "dataframe" if isinstance(self, DataFrame) else "series",
                         index_names=None)
        return self._describe_objects(percentiles, include)

    def _describe_objects(self, percentiles, include):
        import pandas as pd
        inc = include if isinstance(include, (list, tuple)) else [include]
        every = "all" in inc
        objs = every or any(x in ("object", "O", object, "str", str) for x in inc)
        if not objs:
            raise NotImplementedError("describe: include is \"all\", \"object\" or "
                                      "\"number\" here")
        frame = self if isinstance(self, DataFrame) else None
        dt = self.dtypes if frame is not None else None
        cols = list(dt.index) if frame is not None else [None]
        kinds = {}
        for c in cols:
            t = dt[c] if frame is not None else None
            if frame is None:
                kinds[c] = "object"
            elif t == object or (t.kind == "M" and (every or include is None)):
                kinds[c] = "object"
            elif every and np.issubdtype(t, np.number):
                kinds[c] = "number"
        if frame is None:  # a Series of strings (or datetimes, categoricals)
            kinds = {None: "object"}
        want = [c for c in cols if c in kinds]
        if not want:
            raise ValueError("No objects to concatenate")
        num = [c for c in want if kinds[c] == "number"]
        targets, plan = [], {}
        for c in want:
            s = self if frame is None else self[c]
            if kinds[c] == "object":
                plan[c] = [s.count(), s.nunique(), s.value_counts().head(1)]
                if (dt[c] if frame is not None else s.dtype).kind == "M":
                    plan[c] += [s.min(), s.max()]  # pandas' first and last of datetimes
                targets += plan[c]
        desc = None
        if num:
            desc = self[num].describe(percentiles)
            targets.append(desc)
        from ..core import execute
        execute(*targets)
        ldesc = []
        for c in want:
            if kinds[c] == "number":
                ldesc.append(desc.fetch()[c])
                continue
            cnt, uniq, vc, *ends = [x.fetch() for x in plan[c]]
            top = vc.index[0] if len(vc) else np.nan
            freq = vc.iloc[0] if len(vc) else np.nan
            ldesc.append(pd.Series([int(cnt), int(uniq), top, freq] + ends,
                                   index=["count", "unique", "top", "freq", "first",
                                          "last"][:4 + len(ends)], name=c, dtype=object))
        names = []
        for idx in sorted((x.index for x in ldesc), key=len):
            for nm in idx:
                if nm not in names:
                    names.append(nm)
        out = pd.concat([x.reindex(names) for x in ldesc], axis=1, sort=False)
        if frame is None:
            nm = _series_name(self._ref)
            return out.iloc[:, 0].rename(None if nm is _UNKNOWN else nm)
        out.columns = want
        return out

    def head(self, n=5):
        """the first n rows; n negative: all but the last -n, as pandas"""
        if int(n) < 0:
            return self.iloc[:int(n)]
        return _make("dataframe.head", [self], {"n": int(n)}, self._ref.kind, self._columns)

    def _drop_rows(self, index, level, errors):
        """the rows whose index label is none of index (dataframe.loc with
        drop)"""
        if level is not None:
            raise NotImplementedError("drop(level=...) is not supported: the rows of a "
                                      "one-level index only")
        if errors not in ("raise", "ignore"):
            raise ValueError("errors must be 'raise' or 'ignore'")
        rows = index.tolist() if hasattr(index, "tolist") and not isinstance(index, str) \
            else list(index) if isinstance(index, (list, tuple, set)) else [index]
        rows = _time_labels(self, rows)
        p = {"labels": [jsonable_col(v) for v in rows], "drop": True}
        if errors == "ignore":
            p["errors"] = "ignore"
        return _make("dataframe.loc", [self], p, self._ref.kind, self._columns)

    def copy(self, deep=True):
        """pandas' copy: a handle of its own on the same values (a frame's
        results are never changed in place on the cluster; df["x"] = ...
        on the copy leaves this one as it is)"""
        out = copy.copy(self)
        return out

    def to_tensor(self):
        return _make("dataframe.to_tensor", [self], None, "tensor")

    # rows kept or picked, columns unchanged: the op of the same name, its
    # pandas keywords as fields (docs/graph-format.md)
    def _rows(self, op, **params):
        p = {k: v for k, v in params.items() if v is not None}
        return _make("dataframe." + op, [self], p, self._ref.kind, self._columns)

    def tail(self, n=5):
        """the last n rows; n negative: all but the first -n, as pandas"""
        if int(n) < 0:
            return self.iloc[-int(n):]
        return self._rows("tail", n=int(n))
    def explode(self, column, ignore_index=False):
        """pandas' DataFrame.explode of a column assigned a split
        (df.assign(w=df.s.str.split(","))): a row per part, the other
        columns repeated, in row order (the split's explode, joined with
        the other columns by the rows' labels: an index of unique labels).
        Of any other column, which holds scalars (the cluster's columns hold
        no lists), each value is its own row: the frame as it is, as pandas"""
        splits = getattr(self, "_splits", None) or {}
        given = [column] if _one(column) else list(column)
        if not any(_one(c) and c in splits for c in given):
            have = list(self.columns)
            lost = [c for c in given if c not in have]
            if lost or not given:
                raise KeyError(lost or "column must be nonempty")
            return self.reset_index(drop=True) if ignore_index else self.copy()
        if _one(column) and column in splits:
            cols = list(self.columns)
            parts = splits[column].explode().rename(column)
            out = parts.to_frame().join(self.drop(columns=[column]), how="inner")[cols]
            return out.reset_index(drop=True) if ignore_index else out
        raise NotImplementedError("explode: a column assigned a split (df.assign(w=df.s.str"
                                  ".split(\",\"))) is supported; the cluster's columns hold no "
                                  "lists")

    def squeeze(self, axis=None):
        """pandas' DataFrame.squeeze: a frame of one column its Series (and
        of one row too, the value: Series.squeeze), else the frame"""
        if axis in (0, "index"):
            raise NotImplementedError("squeeze(axis=0): a row of the frame is not supported")
        cols = self.columns
        if len(cols) != 1:
            return self
        s = self[cols[0]]
        return s if axis in (1, "columns") else s.squeeze()

    def droplevel(self, level, axis=0):
        """pandas' droplevel of index levels (names or positions)"""
        if axis not in (0, "index"):
            raise NotImplementedError("droplevel: the index's levels only")
        return _levels_kept(self, level, drop=True)

    def swaplevel(self, i=-2, j=-1, axis=0):
        """pandas' swaplevel: index levels i and j (names or positions)
        swapped"""
        if axis not in (0, "index"):
            raise NotImplementedError("swaplevel: the index's levels only")

        def order(names):
            a, b = _level_at(names, i), _level_at(names, j)
            out = list(range(len(names)))
            out[a], out[b] = out[b], out[a]
            return out
        return _levels_kept(self, order)

    def reorder_levels(self, order, axis=0):
        """pandas' reorder_levels: the index levels in that order (names or
        positions, each once)"""
        if axis not in (0, "index"):
            raise NotImplementedError("reorder_levels: the index's levels only")
        return _levels_kept(self, lambda names: [_level_at(names, x) for x in order])

    def sort_index(self, ascending=True, na_position="last", level=None, sort_remaining=True,
                   axis=0, kind=None, ignore_index=False):
        """pandas' sort_index; level (a name or position, or a list): by
        those levels, then the others (sort_remaining), as a sort_values of
        the levels as columns (their names known here); axis=1: the
        columns by name"""
        if axis in (1, "columns"):
            if isinstance(self, Series) or level is not None:
                raise NotImplementedError("sort_index(axis=1) of a DataFrame's one column level")
            return self[sorted(self.columns, reverse=not ascending)]
        if ignore_index:
            return self.sort_index(ascending, na_position, level, sort_remaining) \
                .reset_index(drop=True)
        if level is None:
            return self._rows("sort_index", ascending=ascending,
                              na_position=None if na_position == "last" else na_position)
        names = self._index_names
        if not names or any(n is None for n in names):
            raise NotImplementedError("sort_index(level=...) needs the index levels' names, "
                                      "known here: name them (rename_axis) first")
        want = [level] if _one(level) else list(level)
        want = [names[x] if isinstance(x, (int, np.integer)) and x not in names else x
                for x in want]
        if any(x not in names for x in want):
            raise KeyError("Level %s not found" % [x for x in want if x not in names][0])
        keys = want + ([x for x in names if x not in want] if sort_remaining else [])
        cols = None if isinstance(self, Series) else self.columns
        if cols is not None and any(x in cols for x in names):
            raise NotImplementedError("sort_index(level=...): an index level's name is a "
                                      "column's too")
        flat = self.reset_index()
        if ascending is False:  # pandas: the ascending order reversed, ties and all
            flip = {"last": "first", "first": "last"}.get(na_position, na_position)
            out = flat.sort_values(keys, na_position=flip).iloc[::-1].set_index(list(names))
        else:
            out = flat.sort_values(keys, ascending=ascending, na_position=na_position) \
                .set_index(list(names))
        if isinstance(self, Series):
            return out[out.columns[0]] if len(out.columns) == 1 else out
        return out
    def sample(self, n=None, frac=None, replace=False, random_state=None):
        if n is None and frac is None:
            n = 1  # pandas' default
        if random_state is None:  # drawn here: re-running the lineage repeats the rows
            from ..tensor import _seed
            random_state = _seed(None)
        elif hasattr(random_state, "randint"):  # numpy's RandomState: a seed from it
            random_state = int(random_state.randint(0, 2 ** 32 - 1))
        elif hasattr(random_state, "integers"):  # numpy's Generator
            random_state = int(random_state.integers(0, 2 ** 32 - 1))
        return self._rows("sample", n=n, frac=frac, replace=replace or None,
                          random_state=random_state)
    def nlargest(self, n, columns=None, keep="first"):
        return self._rows("nlargest", n=int(n), columns=_names(columns), keep=keep)
    def nsmallest(self, n, columns=None, keep="first"):
        return self._rows("nsmallest", n=int(n), columns=_names(columns), keep=keep)
    def drop_duplicates(self, subset=None, keep="first"):
        return self._rows("drop_duplicates", subset=_names(subset), keep=keep)

    def between_time(self, start_time, end_time, include_start=None, include_end=None,
                     inclusive=None):
        """pandas' between_time on a DatetimeIndex: the rows whose time of
        day is in [start_time, end_time] (across midnight when the start
        is after the end); times as "09:30", "0930", "9:30AM" or
        datetime.time; inclusive "both", "neither", "left" or "right" (or
        pandas 1.5's include_start and include_end)."""
        if inclusive is not None and (include_start is not None or include_end is not None):
            raise ValueError("Deprecated arguments `include_start` and `include_end` cannot be "
                             "passed if `inclusive` has been given.")
        if inclusive is None and (include_start is not None or include_end is not None):
            s, e = include_start is not False, include_end is not False
            inclusive = {(True, True): "both", (True, False): "left", (False, True): "right",
                         (False, False): "neither"}[(s, e)]
        return self._rows("between_time", start_time=_time_text(start_time),
                          end_time=_time_text(end_time),
                          inclusive=None if inclusive in (None, "both") else inclusive)

    def at_time(self, time):
        """pandas' at_time on a DatetimeIndex: the rows at that time of day"""
        return self._rows("at_time", time=_time_text(time))
    def dropna(self, axis=0, how=None, thresh=None, subset=None):
        """pandas' dropna: rows (axis 0) with a missing value (how "any"),
        only missing values ("all"), or fewer than thresh values; axis 1
        drops such columns (their counts are computed first: the frame
        runs, as a task of its own)."""
        if how is not None and thresh is not None:
            raise TypeError("You cannot set both the how and thresh arguments at the same time.")
        if axis in (1, "columns"):
            if not isinstance(self, DataFrame):
                raise ValueError("No axis named 1 for object type Series")
            # (subset: the row labels whose values count)
            src = self if subset is None else self.loc[_names(subset)]
            n = len(src) if thresh is None else None
            counts = src.count().fetch()
            keep = [c for c, k in counts.items()
                    if (k >= thresh if thresh is not None else
                        k > 0 if how == "all" else k == n)]
            return self[keep]
        return self._rows("dropna", how=how if thresh is None else None, thresh=thresh,
                          subset=_names(subset))
    def fillna(self, value=None, method=None, limit=None):
        """pandas' fillna: a scalar, a dict {column: value} (with a limit:
        the first that many missing values of each column), a method
        (ffill, bfill; with a limit: at most that many in a row); a
        Series' reduction (s.fillna(s.mean())) or another Series of the
        same rows (its value where this one misses); of a DataFrame a
        Series by column name (df.fillna(df.mean()): it runs first, then is
        the dict)."""
        if limit is not None and method is not None:
            return _fill_limited(self, method, limit)
        if limit is not None:  # the first `limit` missing values of each column
            if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
                raise ValueError("Limit must be greater than 0")
            if isinstance(self, DataFrame):
                vals = value if isinstance(value, dict) else {c: value for c in self.columns}
                return self._each_column(lambda c: self[c].fillna(vals[c], limit=limit)
                                         if c in vals else self[c])
            na = self.isna()
            return self.mask(na & (na.astype("int64").cumsum() <= int(limit)), value)
        if isinstance(value, Tensor) or (isinstance(value, Series) and isinstance(self, Series)) \
                or (isinstance(self, Series) and _time_literal(value) is not None):
            # a time fills through where, by a Series of that time
            if _time_literal(value) is not None:
                value = _time_const(self, value)
            out = self.where(self.notna(), value)
            nm = _series_name(self._ref) if isinstance(self, Series) else _UNKNOWN
            return out.rename(nm) if isinstance(value, Series) and nm is not _UNKNOWN else out
        if isinstance(value, Series):
            value = value.fetch().to_dict()
        if isinstance(value, dict) and isinstance(self, DataFrame):
            have = self.columns  # pandas leaves names that are no column aside
            value = {k: v for k, v in value.items() if k in have}
            if not value:
                return self
        return self._rows("fillna", value=value, method=method)
    def ffill(self, limit=None):
        """pandas' ffill: fillna(method="ffill", limit=limit)."""
        return self.fillna(method="ffill", limit=limit)
    def bfill(self, limit=None):
        return self.fillna(method="bfill", limit=limit)
    pad, backfill = ffill, bfill
    def asfreq(self, freq):
        """pandas' asfreq(freq) of a DatetimeIndex (unique, sorted): a row at
        each time from the first by freq, missing where none was (as
        resample(freq, origin="start").asfreq())."""
        return self.resample(freq, origin="start").asfreq()
    def interpolate(self, method="linear", axis=0, limit=None, limit_direction=None,
                    limit_area=None):
        """pandas' interpolate with np.interp's methods (linear, index,
        values, time); axis 0 only."""
        return self._rows("interpolate", method=method, axis=axis or None, limit=limit,
                          limit_direction=limit_direction, limit_area=limit_area)
    def replace(self, to_replace=None, value=None, regex=False):
        """pandas' replace: values, lists, {old: new}, {column: {old: new}};
        with regex=True (or regex the pattern) a pattern's matches within
        the strings (POSIX extended regular expressions, as str.replace;
        the replacement literal text), the columns of strings alone"""
        if regex is not False:
            return _replace_regex(self, to_replace, value, regex)
        if isinstance(self, DataFrame) and isinstance(to_replace, dict) and to_replace and \
                all(isinstance(v, dict) for v in to_replace.values()):
            # {column: {old: new}}: each column's own replacement
            return self.assign(**{c: self[c].replace(m) for c, m in to_replace.items()})
        # NaN (np.nan, None) is the document's null, sent as such; a
        # mapping {old: new} whose keys are not all strings goes as two
        # lists (a JSON object's keys are strings: {1: 100} would match "1")
        if isinstance(to_replace, dict) and value is None and \
                not all(isinstance(k, str) for k in to_replace):
            def scalar(x):
                return x.item() if isinstance(x, np.generic) else x
            to_replace, value = ([scalar(k) for k in to_replace],
                                 [scalar(v) for v in to_replace.values()])
        p = {"to_replace": _lit(to_replace)}
        if not (isinstance(to_replace, dict) and value is None):
            p["value"] = _lit(value)
        return _make("dataframe.replace", [self], p, self._ref.kind, self._columns)
    def clip(self, lower=None, upper=None):
        """pandas' clip by numbers; a Series' by times (Timestamps,
        Timedeltas: each bound through mask, NaT kept), by Series or by
        scalar tensors (a quantile: each bound through mask)"""
        bounds = (lower, upper)
        if isinstance(self, DataFrame) and any(isinstance(b, Tensor) for b in bounds):
            return self._each_column(lambda c: self[c].clip(lower, upper))
        if any(isinstance(b, (Series, Tensor)) for b in bounds) or \
                (isinstance(self, Series) and any(_time_literal(b) is not None for b in bounds)):
            # each bound through mask: Series of the same rows (a missing
            # bound: none), or times (NaT kept)
            if isinstance(self, DataFrame):
                raise NotImplementedError("clip of a DataFrame by Series bounds (axis) is not "
                                          "supported: clip each column")
            def value(b):
                return _time_const(self, b) if _time_literal(b) is not None else b
            out = self
            if lower is not None:
                out = out.mask(out < lower, value(lower))
            if upper is not None:
                out = out.mask(out > upper, value(upper))
            return out
        return self._rows("clip", lower=lower, upper=upper)
    def round(self, decimals=0):
        """pandas' round: decimals an integer, or a DataFrame's {column:
        decimals} (a pandas Series too; the other columns as they are)"""
        if hasattr(decimals, "items"):
            if not isinstance(self, DataFrame):
                raise TypeError("a Series' round takes an integer")
            d = dict(decimals.items())
            return self._each_column(lambda c: self[c].round(d[c]) if c in d else self[c])
        return self._rows("round", decimals=int(decimals))
    def isna(self): return self._rows("isna")
    def notna(self): return self._rows("notna")
    isnull = isna  # pandas' aliases
    notnull = notna
    def isin(self, values):
        """pandas' isin of a list of values (a set, an array, a pandas or
        marsc Series: its values); times (Timestamps, datetimes,
        Timedeltas) as the engine holds them, nanoseconds. A DataFrame's
        isin of a dict {column: values}: those columns' isin, False in the
        others, as pandas'."""
        import pandas as pd
        if isinstance(values, dict):
            if not isinstance(self, DataFrame):
                raise TypeError("only list-like objects are allowed to be passed to isin(), you "
                                "passed a [dict]")
            return self._each_column(lambda c: self[c].isin(values.get(c, [])))
        if isinstance(values, DataFrame) or isinstance(values, pd.DataFrame):
            raise NotImplementedError("isin of a DataFrame (aligned on index and columns) is not "
                                      "supported: give a dict {column: values}")
        if isinstance(values, Series):  # its values, found first
            values = values.unique().fetch()
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise TypeError("only list-like objects are allowed to be passed to isin(), you "
                            "passed a [%s]" % type(values).__name__)
        values = list(values.tolist() if hasattr(values, "tolist") else values)
        values = [pd.Timestamp(v).value if _is_time(v) else
                  pd.Timedelta(v).value if isinstance(v, (datetime.timedelta, np.timedelta64))
                  else v for v in values]
        return self._rows("isin", values=_lit(values))
    def _cum(self, op, axis, periods=1):
        """op along the rows, or with axis 1 along each row (a DataFrame's
        columns, each from the ones before it)"""
        if axis in (1, "columns") and isinstance(self, DataFrame):
            return self._along_columns(op, periods)
        if axis not in (0, None, "index"):
            raise ValueError("No axis named %r" % (axis,))
        return self._rows(op, **({"periods": int(periods)} if op in ("diff", "shift") else {}))
    def cumsum(self, axis=None, skipna=True): return self._cum("cumsum", axis)
    def cumprod(self, axis=None, skipna=True): return self._cum("cumprod", axis)
    def cummax(self, axis=None, skipna=True): return self._cum("cummax", axis)
    def cummin(self, axis=None, skipna=True): return self._cum("cummin", axis)
    def diff(self, periods=1, axis=0): return self._cum("diff", axis, periods)
    def shift(self, periods=1, freq=None, axis=0, fill_value=None):
        """pandas' shift: the values moved by periods rows (missing where
        none comes, or fill_value there); with freq (a fixed frequency:
        "D", "H", "15min" ...) the labels of a DatetimeIndex moved by
        periods times it instead, the values as they are"""
        if freq is None:
            out = self._cum("shift", axis, periods)
            if fill_value is None:
                return out
            if axis not in (0, "index"):
                raise NotImplementedError("shift(fill_value=..., axis=1) is not supported")
            return _shift_filled(self, out, int(periods), fill_value)
        import pandas as pd
        from pandas.tseries.frequencies import to_offset
        off = to_offset(freq)
        if not isinstance(off, pd.offsets.Tick):
            raise NotImplementedError("shift(freq=%r): a fixed frequency (days and shorter) is "
                                      "supported, not calendar ones" % (freq,))
        if not _datetime_index(self):
            raise NotImplementedError("shift(freq=...) takes a DatetimeIndex of one level")
        delta = pd.Timedelta(off) * int(periods)

        def moved(flat, idx, names):
            flat = flat.copy()
            flat[idx[0]] = flat[idx[0]] + delta
            return flat, idx, names
        return _relevelled(self, moved)
    def pct_change(self, periods=1): return self._rows("pct_change", periods=int(periods))
    def rank(self, method="average", ascending=True, na_option="keep", pct=False):
        return self._rows("rank", method=method, ascending=ascending,
                          na_option=None if na_option == "keep" else na_option,
                          pct=bool(pct) or None)

    # statistics: a Series of a DataFrame, a 0-d tensor of a Series
    def _stat(self, op, **params):
        p = {k: v for k, v in params.items() if v is not None}
        return _make("dataframe." + op, [self], p,
                     "series" if isinstance(self, DataFrame) else "tensor", index_names=None)

    def median(self, axis=0, numeric_only=None, skipna=True):
        keep = self._opts(numeric_only, skipna, axis)
        if axis in (1, "columns") and isinstance(self, DataFrame):
            return keep(self._across_median())
        if axis not in (0, None, "index"):
            raise NotImplementedError("median: axis 0 or 1")
        return keep(self._stat("median"))

    def mode(self, axis=0, numeric_only=False, dropna=True):
        """pandas' mode: the most frequent values of each column (of the
        Series), sorted, one per row from 0 (dataframe.mode)."""
        if axis not in (0, "index"):
            raise NotImplementedError("mode: axis 0 only")
        p = {"dropna": bool(dropna)}
        if numeric_only:
            if not isinstance(self, DataFrame):
                raise TypeError("mode: numeric_only is for DataFrames")
            p["numeric_only"] = True
        kind = "dataframe" if isinstance(self, DataFrame) else "series"
        return _make("dataframe.mode", [self], p, kind,
                     None if numeric_only else self._columns, index_names=[None])

    def quantile(self, q=0.5, axis=0, numeric_only=None, interpolation="linear"):
        """q a number (a Series' is a 0-d tensor, a frame's a Series per
        column), or a list of them: a row per q, indexed by q (a Series'
        a Series, a frame's a DataFrame), as pandas'. interpolation as
        numpy's (linear, lower, higher, nearest, midpoint; the three that
        pick a value keep int columns int64, as pandas), along the rows
        (numeric_only: the engine's takes the numeric columns)."""
        if axis not in (0, None, "index"):
            raise NotImplementedError("quantile: along the rows only")
        if interpolation not in ("linear", "lower", "higher", "nearest", "midpoint"):
            raise ValueError("interpolation can only be 'linear', 'lower' 'higher', "
                             "'midpoint', or 'nearest'")
        self._opts(numeric_only, True)
        ip = None if interpolation == "linear" else interpolation
        if isinstance(q, (int, float, np.number)):
            out = self._stat("quantile", q=float(q), interpolation=ip)
        else:
            p = {"q": [float(x) for x in q]}
            if ip:
                p["interpolation"] = ip
            out = _make("dataframe.quantile", [self], p,
                        "dataframe" if isinstance(self, DataFrame) else "series",
                        None, index_names=[None])
        if interpolation not in ("lower", "higher", "nearest"):
            return out
        # a value of the column itself: an int column's stays int64
        if isinstance(self, Series):
            return out.astype("int64") if self.dtype.kind in "iu" else out
        dt = self.dtypes
        nums = [c for c, t in dt.items() if np.issubdtype(t, np.number) or t == np.bool_]
        ints = [c for c in nums if dt[c].kind in "iu"]
        if isinstance(out, DataFrame):  # a column per column: its own type
            return out.astype({c: "int64" for c in ints}) if ints else out
        # a Series across the columns: int64 when every one is
        return out.astype("int64") if nums and len(ints) == len(nums) else out

    def skew(self, axis=0, numeric_only=None, skipna=True):
        keep = self._opts(numeric_only, skipna)
        return keep(self._stat("skew"))

    def kurt(self, axis=0, numeric_only=None, skipna=True):
        keep = self._opts(numeric_only, skipna)
        return keep(self._stat("kurt"))
    kurtosis = kurt

    def duplicated(self, subset=None, keep="first"):
        """A bool Series (in one chunk: drop the rows with drop_duplicates)."""
        return _make("dataframe.duplicated", [self], {k: v for k, v in
                     {"subset": _names(subset), "keep": keep}.items() if v is not None},
                     "series")

    def rolling(self, window, min_periods=None, center=False, on=None, closed=None, step=None):
        """pandas' rolling: window a number of rows, or a span of time
        ("2h", "30min", a Timedelta) over the DatetimeIndex or the datetime
        column `on`, closed "right" (its default), "left", "both" or
        "neither"; then .sum(), .mean(), .min(), .max(), .std(), .var(),
        .count(), .median(), .quantile(q). center=True centres windows of
        rows as pandas does; step (windows of rows) keeps every step-th
        row's window, as pandas 1.5. The values are pandas' to the bit."""
        rows = isinstance(window, (int, np.integer)) and not isinstance(window, bool)
        if step is not None:
            if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 0:
                raise ValueError("step must be >= 0")
            if not rows:
                raise NotImplementedError("step is not supported with frequency windows")
            step = int(step)
        if rows:
            window = int(window)
        else:
            window = _time_literal(window) or window
        r = _Rolling(self, window, min_periods, on, closed, step)
        if center:
            r._kw["center"] = True
        return r

    def ewm(self, com=None, span=None, halflife=None, alpha=None, min_periods=0, adjust=True,
            ignore_na=False, times=None):
        """pandas' ewm: .mean(), .sum(), .var(), .std(), exactly as pandas'
        recurrences (one of com, span, halflife, alpha). times: the name of
        a datetime column, with halflife a timedelta ("2h", a Timedelta):
        the weights decay with the time between rows, as pandas'."""
        return _Ewm(self, _ewm_params(com, span, halflife, alpha, min_periods, adjust,
                                      ignore_na, times))

    def resample(self, rule, on=None, closed=None, label=None, origin="start_day", offset=None):
        """pandas' resample by time: rule a tick ("15min", "h", "D", "2D")
        or a calendar rule ("W", "W-MON", "M", "MS", "Q", "QS", "A",
        "AS", with a multiple); on a datetime column (a DataFrame), else
        the DatetimeIndex; closed, label, origin ("epoch", "start_day",
        "start", "end", "end_day" or a timestamp) and offset (a timedelta)
        as pandas'. Then .sum(), .mean(), .min(), .max(), .count(),
        .std(), .var(), .median(), .prod(), .first(), .last(),
        .nunique(), .agg(out=("column", "func"), ...); r[cols] selects
        columns. Every bin from the first to the last holding a row is in
        the result, the empty ones as pandas fills them."""
        p = {"rule": rule}
        for k, v in (("on", on), ("closed", closed), ("label", label), ("offset", offset)):
            if v is not None:
                p[k] = _time_literal(v) or v
        if origin != "start_day":
            p["origin"] = _time_literal(origin) or origin
        return _Resampler(self, p, on)

    def expanding(self, min_periods=1):
        """pandas' expanding: .sum(), .mean(), .min(), .max(), .std(),
        .var(), .count(), .median(), .quantile(q, interpolation), with
        pandas' own window arithmetic."""
        return _Expanding(self, int(min_periods))

    @property
    def iloc(self):
        """Rows (and columns) by position: a slice or a list of integers."""
        return _ILoc(self)

    @property
    def loc(self):
        """Rows by label: a list of labels, a label slice (both ends
        included), or a bool Series; then columns by name (or a slice of
        names, both ends included)."""
        return _Loc(self)

    @property
    def at(self):
        """pandas' at[label, column] (a Series' at[label]): the value, as
        loc gives it (fetched)"""
        return _At(self, False)

    @property
    def iat(self):
        """pandas' iat[i, j] (a Series' iat[i]): the value at those
        positions, fetched"""
        return _At(self, True)


def _positions(key, what):
    if isinstance(key, slice):
        return ":".join("" if v is None else str(int(v)) for v in (key.start, key.stop, key.step))
    if isinstance(key, (list, tuple, np.ndarray)):
        return [int(v) for v in key]
    raise TypeError("iloc takes a slice or a list of %s positions here (one %s would give a "
                    "Series of mixed types, which is not supported)" % (what, what[:-1]))


class _ILoc:
    def __init__(self, f):
        self._f = f

    def __getitem__(self, key):
        if self._f._fetch_only:  # a table that can only be fetched: its fetched value's
            return _carried_on_fetched(self._f, "iloc", key)
        rows, cols = (key if isinstance(key, tuple) else (key, None))
        if isinstance(rows, (_Label, Tensor)):  # df.iloc[s.argmax()]: the position first
            rows = rows.fetch()
            rows = rows.item() if np.ndim(rows) == 0 and hasattr(rows, "item") else rows
        if isinstance(rows, (int, np.integer)) and not isinstance(rows, bool):
            # one position: its row, fetched as pandas gives it (a Series'
            # value, a frame's row as a Series named by its label, or with
            # one column its value)
            i = int(rows)
            one = slice(i, i + 1) if i != -1 else slice(-1, None)
            col1 = isinstance(cols, (int, np.integer)) and not isinstance(cols, bool)
            out = self[(one, [int(cols)] if col1 else cols) if cols is not None else one]

            def fn(got):
                if len(got) == 0:
                    raise IndexError("single positional indexer is out-of-bounds")
                row = got.iloc[0]
                return row.iloc[0] if col1 and hasattr(row, "iloc") else row
            return _as_fetched(out, fn)
        p = {"rows": _positions(rows, "row")}
        if cols is not None and not (isinstance(cols, slice) and cols == slice(None)):
            p["columns"] = _positions(cols, "column")
        names = None
        f = self._f
        if isinstance(f, DataFrame) and f._columns is not None:
            names = list(f._columns)
            if "columns" in p:
                c = p["columns"]
                names = [names[i] for i in c] if isinstance(c, list) else \
                    names[slice(*[int(v) if v else None for v in c.split(":")])]
        return _make("dataframe.iloc", [f], p, f._ref.kind, names)


class _At:
    def __init__(self, f, positions):
        self._f, self._pos = f, positions

    def __getitem__(self, key):
        f = self._f
        if isinstance(f, DataFrame) and not (isinstance(key, tuple) and len(key) == 2):
            raise TypeError("Invalid call for scalar access (getting)!")  # pandas'
        if not self._pos:
            out = f.loc[key]  # the label's rows, fetched as pandas gives them
            return out.fetch() if isinstance(out, Entity) else out
        i = key[0] if isinstance(key, tuple) else key
        if not isinstance(i, (int, np.integer)) or (isinstance(key, tuple) and not
                                                    isinstance(key[1], (int, np.integer))):
            raise ValueError("iAt based indexing can only have integer indexers")
        n = len(f)
        if not -n <= i < n:
            raise IndexError("index %d is out of bounds for axis 0 with size %d" % (i, n))
        rows = f.iloc[[i % n]] if isinstance(f, Series) else f.iloc[[i % n], [key[1]]]
        got = rows.fetch()
        return got.iat[0] if isinstance(f, Series) else got.iat[0, 0]


class _Loc:
    def __init__(self, f):
        self._f = f

    def __getitem__(self, key):
        if self._f._fetch_only:  # a table that can only be fetched: its fetched value's
            return _carried_on_fetched(self._f, "loc", key)
        f = self._f
        multi = _multi_key(f, key)
        if multi is not None:  # a MultiIndex's key of its first levels (a tuple)
            return _loc_levels(f, key, None)
        rows, cols = (key if isinstance(key, tuple) else (key, None))
        if isinstance(cols, slice) and cols == slice(None):  # loc[rows, :]: every column
            cols = None
        if isinstance(rows, tuple) and _multi_key(f, rows) is not None:
            return _loc_levels(f, rows, cols)
        if isinstance(rows, list) and rows and all(isinstance(r, tuple) for r in rows) and \
                all(_multi_key(f, r) for r in rows):
            return _loc_tuples(f, rows, cols)
        rows, cols = _called(rows, f), _called(cols, f)  # loc[lambda d: ...], as pandas
        if isinstance(cols, slice):  # names from one to the other, both included
            have = list(f.columns)
            a = 0 if cols.start is None else have.index(cols.start)
            b = len(have) - 1 if cols.stop is None else have.index(cols.stop)
            cols = have[a:b + 1:cols.step]
        if isinstance(rows, _Label):  # df.loc[df.x.idxmax()]: the label is found first
            rows = rows.fetch()
        if isinstance(rows, Series) and not _is_mask(rows):
            # df.loc[g.x.idxmax()]: a Series of labels (it runs to tell)
            got = rows.fetch()
            if got.dtype != bool:
                rows = got.tolist()
        if type(rows).__module__.startswith("pandas") and hasattr(rows, "tolist") and \
                getattr(rows, "dtype", None) != bool:  # a pandas Index or Series of labels
            rows = rows.tolist()
        if isinstance(rows, Series):
            out = _make("dataframe.loc", [f, rows], None, f._ref.kind, f._columns)
            return out if cols is None else out[cols]
        if isinstance(rows, slice) and rows == slice(None):  # loc[:, cols]: every row
            return f if cols is None else f[cols if _one(cols) else list(cols)]
        rows = _time_labels(f, rows)
        p = {}
        if isinstance(rows, slice):
            if rows.step is not None:
                raise NotImplementedError("loc: a label slice with a step is not supported")
            if rows.start is not None:
                p["start"] = jsonable_col(rows.start)
            if rows.stop is not None:
                p["stop"] = jsonable_col(rows.stop)
        elif isinstance(rows, (list, tuple, np.ndarray)):
            p["labels"] = [jsonable_col(v) for v in rows]
        else:
            return _loc_one(f, key[0] if isinstance(key, tuple) else key, cols, rows)
        kind, names = f._ref.kind, f._columns
        if cols is not None:
            p["columns"] = [cols] if _one(cols) else list(cols)
            names = p["columns"]
        out = _make("dataframe.loc", [f], p, kind, names)
        # one column named: its Series, as pandas' loc[rows, "x"]
        return out[cols] if cols is not None and _one(cols) and kind == "dataframe" else out

    def __setitem__(self, key, value):
        """df.loc[mask, cols] = value and s.loc[mask] = value with mask a
        bool Series of the same rows: each column becomes
        column.mask(mask, value) (a new column NaN elsewhere), value a
        scalar or a Series of the same rows, as pandas'. df.loc[:, cols] =
        value sets every row (as df[col] = value)."""
        rows, cols = (key if isinstance(key, tuple) else (key, None))
        f = self._f
        if isinstance(rows, slice) and rows == slice(None) and isinstance(f, DataFrame) and \
                cols is not None and not isinstance(value, DataFrame):
            # df.loc[:, cols] = value: every row, as df[col] = value
            for c in ([cols] if _one(cols) else list(cols)):
                f[c] = value
            return
        if not isinstance(rows, Series):
            raise NotImplementedError("loc[...] = value takes a bool Series of the same rows, "
                                      "or loc[:, columns] = value (by labels or slices of "
                                      "labels it is not supported)")
        if isinstance(f, Series):
            if cols is not None:
                raise TypeError("a Series' loc takes rows only")
            new = f.mask(rows, value)
            f._ref = new._ref
            return
        have = f.columns
        names = have if cols is None else [cols] if isinstance(cols, (str, int)) else list(cols)
        upd = {}
        for c in names:
            # a new column: value where the mask holds, else missing
            upd[c] = f[c].mask(rows, value) if c in have else \
                elementwise("where", [rows, value, np.nan])
        new = f.assign(**upd)
        f._ref, f._columns = new._ref, new._columns


# the ops whose Series is a bool one (a mask), told without running it
_MASK_OPS = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
             "logical_and", "logical_or", "logical_xor", "logical_not", "isnan", "isinf",
             "isfinite", "dataframe.isna", "dataframe.notna", "dataframe.isin",
             "dataframe.duplicated", "dataframe.str.contains", "dataframe.str.startswith",
             "dataframe.str.endswith", "dataframe.str.match", "dataframe.str.fullmatch")


def _is_mask(s):
    """whether Series s is known to hold bools from its op (loc[s] is then
    a filter; else it runs to tell a mask from labels)"""
    op = s._ref.node.op or ""
    return op in _MASK_OPS or op.startswith("dataframe.str.is")


def _replace_regex(f, to_replace, value, regex):
    """replace(..., regex=...): str.replace of each string column"""
    pat = regex if isinstance(regex, str) else to_replace
    if regex is not True and not isinstance(regex, str):
        raise TypeError("regex must be a bool or a string")
    if isinstance(regex, str) and to_replace is not None:
        value = to_replace if value is None else value
    if isinstance(pat, dict) and value is None and all(isinstance(k, str) for k in pat):
        out = f
        for k, v in pat.items():
            out = _replace_regex(out, k, v, True)
        return out
    if not isinstance(pat, str) or not isinstance(value, str):
        raise NotImplementedError("replace with regex: a pattern string and a replacement "
                                  "string (or a dict of them)")
    if "\\" in value:
        raise NotImplementedError("replace with regex: group references in the replacement "
                                  "are not supported (it is literal text)")
    if isinstance(f, Series):
        if not (_holds_text(f) or f.head(0)._ran().get("dtype") in ("object", "string")):
            return f
        return _named_as(f, f.str.replace(pat, value, regex=True))
    # the columns of strings: from head(0) (the first chunk's pipeline)
    text = [c for c, t in f.head(0)._ran()["dtypes"].items() if t in ("object", "string")]
    if not text:
        return f
    return f._each_column(lambda c: f[c].str.replace(pat, value, regex=True) if c in text
                          else f[c])


def _fill_limited(f, method, limit):
    """f.fillna(method=..., limit=limit): the groupby kernels' ffill and
    bfill (which take a limit) over one group of every row"""
    how = {"ffill": "ffill", "pad": "ffill", "bfill": "bfill", "backfill": "bfill"}.get(method)
    if how is None:
        raise ValueError("Invalid fill method. Expecting pad (ffill) or backfill (bfill). Got %s"
                         % method)
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
        raise ValueError("Limit must be greater than 0")
    if isinstance(f, Series):
        nm = f.name  # (it runs when the client does not know it)
        frame = f.to_frame(_ALL_KEY + "v")
        cols = [_ALL_KEY + "v"]
    else:
        frame, cols = f, list(f.columns)
        if _ALL_KEY in cols:
            raise ValueError("a column is named %r, which fillna's limit uses" % _ALL_KEY)
    out = getattr(_one_group(frame, cols), how)(limit=int(limit))
    if isinstance(f, Series):
        return (out[cols[0]] if isinstance(out, DataFrame) else out).rename(nm)
    out._columns = cols
    return out


_ALL_KEY = "_marsc_all_"  # the key column of _one_group


def _index_as_columns(f):
    """f's rows with its index levels as columns (_marsc_i0 ...): (that
    frame, the levels' columns, the index's names)"""
    names = f._index_names
    if names is None:
        names = f.head(0)._ran().get("index_names") or [None]
    names = list(names)
    idx = ["_marsc_i%d" % k for k in range(len(names))]
    return f.rename_axis(idx).reset_index(), idx, names


def _numbered_rows(f):
    """_index_as_columns, with the rows' positions as _marsc_pos (a
    cumcount of one group), for a melt sorted back into row order"""
    flat, idx, names = _index_as_columns(f)
    return flat.assign(_marsc_pos=_one_group(flat).cumcount()), idx, names


def _shift_filled(f, out, periods, fill):
    """shift's out with fill in the rows no value came to (the first
    periods rows, or the last ones), its int columns int64 again where
    fill is an integer, as pandas keeps them"""
    first = f if isinstance(f, Series) else f[f.columns[0]]
    one = (first.notna() | first.isna()).astype("int64")
    pos = one.cumsum() - 1  # each row's position
    new = pos < periods if periods >= 0 else pos >= one.sum() + periods
    if isinstance(f, Series):
        res = out.mask(new, fill)
        return res.astype("int64") if isinstance(fill, (int, np.integer)) and \
            f.dtype.kind in "iu" else res
    dt = f.dtypes
    res = out.copy()
    for c in f.columns:
        res[c] = out[c].mask(new, fill)
        if isinstance(fill, (int, np.integer)) and dt[c].kind in "iu":
            res[c] = res[c].astype("int64")
    return res


def _one_group(frame, sel=None):
    """a groupby of every row of frame in one group (a key column of one
    value assigned): the groupby kernels and aggregations over the whole"""
    return GroupBy(frame.assign(**{_ALL_KEY: 0}), [_ALL_KEY], sel)


def _min_count(f, out, min_count, axis):
    """a Series' sum or prod (out) NaN where fewer than min_count values
    are present, as pandas' min_count"""
    if not min_count:
        return out
    if isinstance(f, DataFrame) or axis not in (0, None, "index"):
        raise NotImplementedError("min_count of a DataFrame's sum or prod is not supported (of "
                                  "a Series it is)")
    from .. import tensor as mt
    return mt.where(f.count() >= int(min_count), out, np.nan)


class _StrAccessorProbe:
    """the str methods that map(str.NAME) and apply(str.NAME) route to the
    str accessor (those taking no argument)"""
    upper = lower = strip = lstrip = rstrip = title = capitalize = swapcase = casefold = None
    isalpha = isdigit = isalnum = isspace = islower = isupper = istitle = isnumeric = None
    isdecimal = None


def _named_as(src, out):
    """out (a Series) named as src's Series, where the client knows the name
    (pandas keeps the caller's through where and mask)"""
    if isinstance(src, Series) and isinstance(out, Series):
        nm = _series_name(src._ref)
        if nm is not _UNKNOWN:
            return out.rename(nm)
    return out


def _sort_kind(kind):
    """pandas' sort kinds: the engine's sort is stable, which every kind
    allows (quicksort's order of equal keys is unspecified)"""
    if kind not in (None, "quicksort", "mergesort", "heapsort", "stable"):
        raise ValueError("sort kind must be quicksort, mergesort, heapsort or stable, not %r"
                         % (kind,))


def _called(key, obj):
    """pandas' callable indexers and conditions (df[lambda d: d.x > 0],
    loc, where, mask): a function is called with the object; anything else
    is as it is."""
    if callable(key) and not isinstance(key, (_Frame, type, np.ufunc)):
        return key(obj)
    return key


def _by_columns(df, func):
    """pandas' df.apply(func) (axis 0): func of each column; a reduction
    of each (a scalar, or a marsc scalar tensor: run together in one task)
    gives pandas' Series of them, fetched; Series of each column's rows
    give a DataFrame of them"""
    import pandas as pd
    names = {np.sum: "sum", np.mean: "mean", np.min: "min", np.max: "max",
             np.median: "median", np.prod: "prod", np.nanmean: "mean", np.nansum: "sum",
             np.nanmin: "min", np.nanmax: "max", np.nanmedian: "median"}
    named = names.get(func, func if isinstance(func, str) else None)
    if named is not None:
        return df.agg(named)
    if func in (np.std, np.var):  # numpy's own default: ddof 0
        func = (lambda c: c.std(ddof=0)) if func is np.std else (lambda c: c.var(ddof=0))
    cols = list(df.columns)
    outs = [func(df[c]) for c in cols]
    if all(isinstance(o, Series) and not isinstance(o, _Label) for o in outs):
        out = concat([o.rename(c) for o, c in zip(outs, cols)], axis=1)
        out._columns = cols
        return out
    if all(isinstance(o, (Tensor, _Label, numbers.Number, np.generic, str)) for o in outs):
        run = [o for o in outs if isinstance(o, (Tensor, _Label))]  # a string's max: a _Label
        if run:
            execute(*run)
        vals = [o.fetch() if isinstance(o, (Tensor, _Label)) else o for o in outs]
        return pd.Series([v.item() if isinstance(v, np.ndarray) and v.ndim == 0 else v
                          for v in vals], index=cols)
    raise NotImplementedError("DataFrame.apply (axis 0): func must give a scalar (a "
                              "reduction) or a Series of the column's rows for every column")


# the operators' ops by the operator module's names (_flex_op)
_FLEX_NAMES = {"add": "add", "subtract": "sub", "multiply": "mul", "divide": "truediv",
               "floor_divide": "floordiv", "mod": "mod", "power": "pow", "logical_and": "and_",
               "logical_or": "or_", "equal": "eq", "not_equal": "ne", "less": "lt",
               "less_equal": "le", "greater": "gt", "greater_equal": "ge"}
# a DataFrame's reductions: Series indexed by its column names
_COLUMN_STATS = tuple("dataframe." + x for x in (
    "sum", "mean", "std", "var", "min", "max", "median", "count", "nunique", "prod", "sem",
    "skew", "kurt", "quantile", "any", "all"))


def _by_column_labels(f, o):
    """whether f op o is a DataFrame's with a Series indexed by its column
    names, which pandas aligns on the columns (df - df.mean()): a pandas
    Series, or a marsc one made by a reduction of a DataFrame"""
    import pandas as pd
    if not isinstance(f, DataFrame):
        return False
    if isinstance(o, pd.Series):
        return True
    if not isinstance(o, Series) or isinstance(o, (_Label, _LocOneRows)):
        return False
    node = o._ref.node
    return node.op in _COLUMN_STATS and bool(node.inputs) and \
        getattr(node.inputs[0], "kind", None) == "dataframe"


def _flex_op(self, other, name, rev, axis, level, fill_value):
    """pandas' flex methods (add, sub, ..., eq, ...) of a Series or DataFrame"""
    import operator
    import pandas as pd
    fn = getattr(operator, name)
    if level is not None:  # of a one-level index: that level is the index itself
        names = self._index_names or _index_as_columns(self)[2]
        if len(names) != 1 or (level not in (0, -1) and level != names[0]):
            raise NotImplementedError("%s: level of a MultiIndex is not supported" % name)

    def run(a, b):
        return fn(b, a) if rev else fn(a, b)
    if fill_value is not None and isinstance(self, DataFrame) and isinstance(other, DataFrame) \
            and self._columns is not None and other._columns is not None and \
            list(self._columns) == list(other._columns):
        # column by column, the frames aligned on their labels first
        a, b = _labels_aligned("add", [self, other])
        return a._each_column(lambda c: _flex_op(a[c], b[c], name, rev, 0, None, fill_value))
    if fill_value is not None:
        if isinstance(other, DataFrame) or isinstance(self, DataFrame) and \
                isinstance(other, Series):
            raise NotImplementedError("%s: fill_value with a DataFrame is not supported (of a "
                                      "Series or a scalar it is)" % name)
        if isinstance(other, Series):
            self, other = _labels_aligned("add", [self, other])
            a = self.where(self.notna() | other.isna(), fill_value)
            b = other.where(other.notna() | self.isna(), fill_value)
            return run(a, b)
        return run(self.fillna(fill_value), other)
    if isinstance(self, DataFrame):
        by_rows = axis in (0, "index", "rows")
        if isinstance(other, Series) and by_rows:
            if not _same_rows(self, other):  # pandas aligns the rows first
                self, other = _frame_series_aligned(self, other)
            return self._each_column(lambda c: run(self[c], other))
        if isinstance(other, Series) and not by_rows:
            other = other.fetch()
        if isinstance(other, (pd.Series, dict, list, tuple, np.ndarray)):
            cols = list(self.columns)
            vals = dict(other) if isinstance(other, (pd.Series, dict)) else \
                dict(zip(cols, other)) if len(other) == len(cols) else None
            if vals is None:
                raise ValueError("Unable to coerce to Series, length must be %d: given %d"
                                 % (len(cols), len(other)))
            if set(vals) != set(cols):
                raise NotImplementedError("%s by column: other must have exactly the frame's "
                                          "columns (pandas aligns them, adding missing ones)"
                                          % name)
            return self._each_column(lambda c: run(self[c], vals[c]))
    return run(self, other)


def _is_offset(o):
    """whether o is one of pandas' date offsets (pd.DateOffset, pd.offsets.*)"""
    mod = type(o).__module__ or ""
    return mod.startswith("pandas") and hasattr(o, "rollforward") and hasattr(o, "n")


# pandas' offsets of a fixed length, and DateOffset's keywords that are
_FIXED_KWDS = ("weeks", "days", "hours", "minutes", "seconds", "milliseconds", "microseconds",
               "nanoseconds")


def _offset_added(s, off, sign):
    """a datetime Series plus (sign 1) or minus (-1) pandas' offset: a
    fixed one (Day, Hour ..., DateOffset(days=...)) as its Timedelta; the
    calendar ones (DateOffset(months=, years=), MonthEnd, MonthBegin,
    YearEnd, YearBegin, any n) as pandas rolls them, the time of day kept,
    a day past the month's end clipped to it; NaT stays NaT"""
    import pandas as pd
    name = type(off).__name__
    if isinstance(s, DataFrame):
        raise NotImplementedError("a DataFrame plus a date offset: add it to each column")
    if getattr(off, "normalize", False):
        raise NotImplementedError("date offsets with normalize=True are not supported")
    kw = dict(getattr(off, "kwds", {}) or {})
    if isinstance(off, pd.offsets.Tick) or (name == "DateOffset" and
                                            set(kw) <= set(_FIXED_KWDS)):
        step = pd.Timedelta(off) if isinstance(off, pd.offsets.Tick) else \
            pd.Timedelta(**kw) * off.n
        return s + step if sign > 0 else s - step
    n = off.n * sign
    if name == "Week" and getattr(off, "weekday", None) is None:  # seven days each
        return s + pd.Timedelta(weeks=n)
    if name == "Week":  # to the weekday first (a move of its own forward), then whole weeks
        wday = s.fillna(pd.Timestamp("2000-01-03")).dt.dayofweek
        ahead = (int(off.weekday) - wday) % 7
        weeks = n - (ahead != 0).astype("int64") if n > 0 else n
        return _days_added(s, ahead + weeks * 7)
    if name == "BusinessDay":  # (its offset= added after, whichever the sign, as pandas)
        out = _days_added(s, _bdays(s, n))
        return out + pd.Timedelta(off.offset) if off.offset else out
    if name == "DateOffset" and set(kw) <= set(_FIXED_KWDS) | {"months", "years"}:
        months = (kw.get("years", 0) * 12 + kw.get("months", 0)) * n
        fixed = {k: v for k, v in kw.items() if k in _FIXED_KWDS}
        rest = pd.Timedelta(**fixed) * n if fixed else pd.Timedelta(0)
        out = _months_shifted(s, lambda y, m, d, dim: (months, None))
        return out + rest if rest != pd.Timedelta(0) else out
    if name == "MonthEnd":
        return _months_shifted(s, lambda y, m, d, dim: (
            n - (d < dim).astype("int64") if n > 0 else n, "end"))
    if name == "MonthBegin":
        return _months_shifted(s, lambda y, m, d, dim: (
            n if n > 0 else n + (d > 1).astype("int64"), 1))
    if name == "YearEnd" and getattr(off, "month", 12) == 12:
        return _months_shifted(s, lambda y, m, d, dim: (
            (n - (~((m == 12) & (d == 31))).astype("int64") if n > 0 else n) * 12 + 12 - m,
            "end"))
    if name == "YearBegin" and getattr(off, "month", 1) == 1:
        return _months_shifted(s, lambda y, m, d, dim: (
            (n if n > 0 else n + (~((m == 1) & (d == 1))).astype("int64")) * 12 + 1 - m, 1))
    raise NotImplementedError("%s is not supported here: DateOffset of years, months and "
                              "fixed units, MonthEnd, MonthBegin, YearEnd, YearBegin, Week, "
                              "BusinessDay (BDay) and the fixed offsets (Day, Hour ...) are" % off)


def _civil_days(y, m, d):
    """days since 1970-01-01 of the proleptic Gregorian dates (y, m, d):
    integer arithmetic of Series (Hinnant's days_from_civil)"""
    y = y - (m <= 2).astype("int64")
    era = y // 400
    yoe = y - era * 400
    doy = (153 * ((m + 9) % 12) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _days_added(s, days):
    """s plus a Series of whole days (int64), the time of day kept, NaT
    kept"""
    return _named_as(s, s + to_timedelta(days * 86400000000000, unit="ns"))


def _bdays(s, n):
    """the days pandas' BusinessDay(n) moves each date of s by: whole weeks
    first, then the rest over Monday to Friday (pandas' shift_bdays: from
    a weekend date, n 0 and 1 give the Monday after, -1 the Friday
    before)"""
    import pandas as pd
    wday = s.fillna(pd.Timestamp("2000-01-03")).dt.dayofweek
    weeks = n // 5
    weekend = wday > 4
    rest = (n + weekend.astype("int64") if n <= 0 else wday * 0 + n) - 5 * weeks
    days = (rest + 2).where(wday + rest > 4, rest)
    days = days.where(~weekend, (7 - wday) + (rest - 1))
    days = days.where(~(weekend & (rest == 0)), 4 - wday)
    return days + 7 * weeks


def _months_shifted(s, plan):
    """s moved by whole months, the time of day kept: plan(year, month,
    day, days in that month) gives the months to move (a number or a
    Series) and the day of the month it lands on (None: the same, clipped
    to the month's length; "end": the month's last; a number)"""
    import pandas as pd
    t = s.fillna(pd.Timestamp("2000-01-01"))  # NaT as some date, put back at the end
    y, m, d = t.dt.year, t.dt.month, t.dt.day
    total0 = y * 12 + (m - 1)
    dim0 = _civil_days((total0 + 1) // 12, (total0 + 1) % 12 + 1, d * 0 + 1) - \
        _civil_days(y, m, d * 0 + 1)
    months, day = plan(y, m, d, dim0)
    total = total0 + months
    ny, nm = total // 12, total % 12 + 1
    dim = _civil_days((total + 1) // 12, (total + 1) % 12 + 1, d * 0 + 1) - \
        _civil_days(ny, nm, d * 0 + 1)
    nd = (d.where(d < dim, dim) if day is None else dim if day == "end" else d * 0 + day)
    tod = (t - t.dt.normalize()).astype("int64")
    ns = _civil_days(ny, nm, nd) * 86400000000000 + tod
    out = to_datetime(ns, unit="ns")
    return _named_as(s, out.where(s.notna()))


def _time_const(s, v):
    """a Series of the time v on s's rows (where's other: the engine reads
    time literals in comparisons and arithmetic, not as where's values)"""
    import pandas as pd
    td = isinstance(v, (datetime.timedelta, np.timedelta64))
    ns = pd.Timedelta(v).value if td else pd.Timestamp(v).value
    zeros = s.isna().astype("int64") * 0 + ns
    return (to_timedelta if td else to_datetime)(zeros, unit="ns")


def _is_time(v):
    return isinstance(v, (datetime.datetime, np.datetime64)) or \
        (isinstance(v, datetime.date) and not isinstance(v, datetime.datetime))


def _datetime_index(f):
    """whether f's index is one level of datetimes: its head(0) fetched
    (the engine's frames hold datetimes as nanoseconds)"""
    if len(f._index_names or [None]) > 1:
        return False
    got = getattr(f, "_dt_index", None)
    if got is None:
        got = f.head(0).fetch().index.dtype.kind == "M"
        f._dt_index = got
    return got


def _time_labels(f, rows):
    """loc's labels on a DatetimeIndex as the engine's nanoseconds:
    Timestamps, datetimes and dates as they are; date strings as pandas'
    partial string indexing reads them in a slice (the start of the
    period the string names, the end of the period its stop names:
    "2021-01" is all of January), and alone where they name a month, a
    quarter or a year (a slice of that period)"""
    import pandas as pd
    ends = (rows.start, rows.stop) if isinstance(rows, slice) else \
        list(rows) if isinstance(rows, (list, tuple)) else [rows]
    strs = [v for v in ends if isinstance(v, str)]
    if not any(_is_time(v) for v in ends) and not strs:
        return rows
    if strs:
        try:
            [pd.Timestamp(v) for v in strs]
        except ValueError:
            return rows  # labels of strings
    if not _datetime_index(f):
        return rows

    def ns(v, end=False):
        if v is None:
            return None
        if isinstance(v, str):
            try:
                per = pd.Period(v)
                return (per.end_time if end else per.start_time).value
            except ValueError:
                pass
        return pd.Timestamp(v).value
    if isinstance(rows, slice):
        return slice(ns(rows.start), ns(rows.stop, True), rows.step)
    if isinstance(rows, str):
        per = pd.Period(rows)
        if per.freqstr[0] in "MQA":
            return slice(ns(rows), ns(rows, True))
        raise NotImplementedError(
            "loc[%r] on a DatetimeIndex: pandas reads a day or a time alone as one label or "
            "as a period by the index's resolution; write loc[pd.Timestamp(%r)] for the label "
            "or loc[%r:%r] for the period" % (rows, rows, rows, rows))
    if isinstance(rows, (list, tuple)):
        return [ns(v) for v in rows]
    return ns(rows)


def _multi_key(f, key):
    """the number of index levels of f when key (a tuple of labels) is a key
    of its MultiIndex's first levels, as pandas' loc reads it first; else
    None (a DataFrame's (rows, columns), where key[1] names a column)"""
    if not isinstance(key, tuple) or len(key) < 2 or \
            not all(isinstance(k, (str, int, float, np.number, np.bool_)) for k in key):
        return None
    if isinstance(f, DataFrame) and any(repr(key[1]) == repr(c) for c in f.columns):
        return None
    names = f._index_names
    if names is None:
        names = f.head(0)._ran().get("index_names") or [None]
    n = len(names)
    return n if 2 <= n and len(key) <= n else None


def _loc_levels(f, key, cols):
    """f.loc[key] of a tuple of the first levels' labels: a key of some of
    them is xs(key) (those levels dropped, as pandas'); a key of every level
    gives that row where the index is unique (a frame's: a Series named by
    the key; a Series': its value), else its rows with the whole index, as
    pandas 1.5 (no row: KeyError)"""
    flat, idx, names = _index_as_columns(f)
    if len(key) < len(names):
        out = f.xs(key)
        return out if cols is None else out[cols]

    def make(flat, idx, nms):
        for q, k in enumerate(key):
            flat = flat[flat[idx[q]] == k]
        return flat, idx, nms
    out = _relevelled(f, make)
    if cols is not None:
        out = out[cols]
    repeats = flat.duplicated(subset=idx).any()

    def one(got):
        if len(got) == 0:
            raise KeyError(key)
        if not bool(repeats.fetch()):
            return got.iloc[0]
        return got
    return _as_fetched(out, one)


def _loc_tuples(f, keys, cols):
    """f.loc[[tuple, ...]] of a MultiIndex: each key's rows in the keys'
    order, every level kept (a key of no row: KeyError, as pandas')"""
    if len(keys) > 100:
        raise NotImplementedError("loc of more than 100 MultiIndex keys: filter by the "
                                  "levels as columns")
    parts = []
    for key in keys:
        def make(flat, idx, nms, key=key):
            for q, k in enumerate(key):
                flat = flat[flat[idx[q]] == k]
            return flat, idx, nms
        parts.append(_relevelled(f, make))
    out = concat(parts)
    return out if cols is None else out[cols]


def _loc_one(f, label, cols=None, sent=None):
    """f.loc[label] (and f.loc[label, cols]): the rows of that label, fetched
    as pandas gives them (_LocOne); on a MultiIndex, f.xs(label). sent:
    the label as the engine reads it (a time's nanoseconds)"""
    if len(f._index_names or [None]) > 1:
        out = f.xs(label)
        return out if cols is None else out[cols]
    p = {"labels": [jsonable_col(label if sent is None else sent)]}
    kind, names = f._ref.kind, f._columns
    if cols is not None:
        p["columns"] = [cols] if _one(cols) else list(cols)
        names = p["columns"]
    out = _make("dataframe.loc", [f], p, kind, names)
    if cols is not None and _one(cols):
        out = out[cols]
    out.__class__ = _LocOneSeries if isinstance(out, Series) else _LocOne
    out._label = label
    return out


class _Rolling:
    def __init__(self, f, window, min_periods, on=None, closed=None, step=None):
        self._f, self._w, self._mp, self._step = f, window, min_periods, step
        self._kw = {k: v for k, v in (("on", on), ("closed", closed)) if v is not None}

    def _agg(self, agg):
        p = dict({"window": self._w, "agg": agg}, **self._kw)
        if self._mp is not None:
            p["min_periods"] = int(self._mp)
        out = _make("dataframe.rolling", [self._f], p, self._f._ref.kind, self._f._columns)
        # pandas' step: the windows of every step-th row, as [::step] of all
        return out.iloc[::self._step] if self._step and self._step > 1 else out

    def sum(self): return self._agg("sum")  # noqa: E704
    def mean(self): return self._agg("mean")  # noqa: E704
    def min(self): return self._agg("min")  # noqa: E704
    def max(self): return self._agg("max")  # noqa: E704
    def std(self): return self._agg("std")  # noqa: E704
    def var(self): return self._agg("var")  # noqa: E704
    def count(self): return self._agg("count")  # noqa: E704
    def median(self): return self._agg("median")  # noqa: E704
    def skew(self): return self._agg("skew")  # noqa: E704
    def kurt(self): return self._agg("kurt")  # noqa: E704

    def agg(self, func):
        """pandas' rolling (expanding) agg: a func name (or numpy's
        function), a list of them (a Series' window: a column each, named
        as the funcs), or a DataFrame's {column: func}"""
        if isinstance(func, dict):
            if not isinstance(self._f, DataFrame):
                raise NotImplementedError("a Series' rolling agg takes a func or a list")
            if any(isinstance(f, (list, tuple)) for f in func.values()):
                raise NotImplementedError("rolling agg({column: [funcs]}) gives MultiIndex "
                                          "columns, which are not supported")
            r = copy.copy(self)
            outs = []
            for c, fn in func.items():
                r._f = self._f[c]
                outs.append(r.agg(fn))
            out = concat(outs, axis=1)
            out._columns = list(func)
            return out
        if isinstance(func, (list, tuple)):
            if isinstance(self._f, DataFrame):
                raise NotImplementedError("rolling agg of a DataFrame by a list gives "
                                          "MultiIndex columns, which are not supported")
            names = [_func_name(f) for f in func]
            out = concat([self.agg(f).rename(n) for f, n in zip(func, names)], axis=1)
            out._columns = names
            return out
        name = _func_name(func)
        if not hasattr(type(self), name) or name.startswith("_") or name in ("agg", "apply"):
            raise AttributeError("'%s' is not a valid function for the window" % name)
        return getattr(self, name)()

    aggregate = agg

    def sem(self, ddof=1):
        """pandas' rolling (expanding) sem: std / sqrt(count - 1)."""
        if ddof != 1:
            raise NotImplementedError("sem: ddof 1 only")
        return self._agg("sem")

    def quantile(self, quantile, interpolation="linear"):
        """pandas' rolling quantile: q in [0, 1], interpolation linear,
        lower, higher, nearest or midpoint."""
        r = copy.copy(self)
        r._kw = dict(self._kw, quantile=float(quantile), interpolation=interpolation)
        return r._agg("quantile")

    def _pair(self, agg, other, ddof):
        if ddof != 1:
            raise NotImplementedError("rolling %s: ddof 1 only" % agg)
        if other is None:
            # pandas' pairwise matrix (a DataFrame's; a Series with itself):
            # indexed by the index, then the columns' labels
            out = self._agg(agg)
            if isinstance(self._f, DataFrame):
                out._index_names = list(self._f._index_names or [None]) + [None]
            return out
        if not isinstance(self._f, DataFrame):
            # a Series with another of its rows: the two side by side, rolled
            # (pandas names the result only where the two share a name)
            if not isinstance(other, Series):
                raise TypeError("rolling %s of a Series takes a Series" % agg)
            names = [_series_name(x._ref) for x in (self._f, other)]
            names = [x.head(0).name if n is _UNKNOWN else n
                     for x, n in zip((self._f, other), names)]
            r = copy.copy(self)
            r._f = self._f.to_frame("_mars_a")._assigned([("_mars_b", other)])
            r._kw = dict(self._kw, other="_mars_b")
            out = r._agg(agg)["_mars_a"]
            return out.rename(names[0] if names[0] == names[1] else None)
        r = copy.copy(self)
        tmp = None
        if isinstance(other, Series):
            tmp = "_mars_other"
            r._f = self._f.assign(**{tmp: other})
            other = tmp
        r._kw = dict(self._kw, other=other)
        out = r._agg(agg)
        return out.drop(columns=[tmp]) if tmp else out

    def apply(self, func, raw=False, engine=None, engine_kwargs=None, args=None, kwargs=None):
        """pandas' rolling (expanding) apply of a Series: func's expression
        (a lambda or a def of one return, read from its source), each
        reduction of its window a rolling aggregation: w.max() - w.min(),
        (w * w).sum() / w.count(), np.sqrt(w.var()). Not Python per window."""
        if engine is not None or args or kwargs:
            raise NotImplementedError("rolling apply: engine, args and kwargs are not supported")
        return _window_apply(self, func, raw)

    def cov(self, other=None, ddof=1):
        """pandas' rolling cov of each column with other (a column's name,
        or a Series of the same rows), its values to the bit."""
        return self._pair("cov", other, ddof)

    def corr(self, other=None, ddof=1):
        """pandas' rolling corr of each column with other (as cov)."""
        return self._pair("corr", other, ddof)


class _Aggregations:
    """The aggregation methods groupby and resample share: each one
    self._reduce(its name)."""

    def _numeric(self, func, numeric_only):
        """func over the numeric columns (pandas' numeric_only None or
        True: the engine's numeric aggregations take those)"""
        if numeric_only is False:
            raise NotImplementedError("%s(numeric_only=False) is not supported: the numeric "
                                      "columns are aggregated" % func)
        return self._reduce(func)

    def sum(self, numeric_only=None): return self._numeric("sum", numeric_only)  # noqa: E704
    def mean(self, numeric_only=None): return self._numeric("mean", numeric_only)  # noqa: E704
    def min(self): return self._reduce("min")  # noqa: E704
    def max(self): return self._reduce("max")  # noqa: E704
    def count(self): return self._reduce("count")  # noqa: E704
    def median(self, numeric_only=None): return self._numeric("median", numeric_only)  # noqa
    def prod(self, numeric_only=None): return self._numeric("prod", numeric_only)  # noqa: E704
    def first(self): return self._reduce("first")  # noqa: E704
    def last(self): return self._reduce("last")  # noqa: E704
    def nunique(self): return self._reduce("nunique")  # noqa: E704


class _Resampler(_Aggregations):
    """df.resample(...) / s.resample(...): the aggregations, as pandas'
    Resampler."""

    def __init__(self, f, params, on, sel=None):
        self._f, self._p, self._on, self._sel = f, params, on, sel

    def __getitem__(self, cols):
        if isinstance(self._f, Series):
            raise TypeError("a Series' resample has no columns to select")
        return _Resampler(self._f, self._p, self._on, cols if _one(cols)
                          else list(cols))

    def __getattr__(self, name):
        """r.amount is r["amount"], as pandas' Resampler allows"""
        if name.startswith("_") or isinstance(self._f, Series):
            raise AttributeError(name)
        cols = self._f._columns
        if (cols is not None and name not in cols) or _pandas_has("Resampler", name):
            raise AttributeError("marsc's Resampler has no attribute or column %r" % name)
        return self[name]

    def _index(self):
        return [self._on] if self._on is not None else (self._f._index_names or [None])[:1]

    def _freq(self, out):
        """out's fetched DatetimeIndex carries the rule as its freq, as
        pandas' resample results do (and their head and tail)"""
        return _as_fetched(out, _with_freq(self._p["rule"]), _keeps_index)

    def _series(self, func):
        if not isinstance(self._f, Series) and func != "size":
            raise TypeError("a DataFrame's resample takes agg(...) or a func for every column")
        return self._freq(_make("dataframe.resample", [self._f], dict(self._p, func=func),
                                "series", index_names=self._index()))

    def _reduce(self, func):
        if isinstance(self._f, Series):
            return self._series(func)
        cols = GroupBy(self._f, [self._on] if self._on is not None else [],
                       self._sel)._columns_for(func)
        out = self._frame({c: [c, func] for c in cols})
        return out[self._sel] if _one(self._sel) else out

    def _frame(self, agg):
        return self._freq(_make("dataframe.resample", [self._f], dict(self._p, agg=agg),
                                "dataframe", list(agg), index_names=self._index()))

    def std(self): return self._reduce("std")  # noqa: E704
    def var(self): return self._reduce("var")  # noqa: E704

    def size(self):
        """Rows per bin, an int64 Series (without a name for a
        DataFrame's, as pandas)."""
        return self._series("size")

    def _upsample(self, method):
        f = self._f
        if not isinstance(f, Series) and self._sel is not None:
            f = f[self._sel]
        kind = "series" if isinstance(f, Series) else "dataframe"
        return self._freq(_make("dataframe.resample", [f], dict(self._p, func=method), kind,
                                None if kind == "series" else f._columns,
                                index_names=self._index()))

    def asfreq(self):
        """Upsampling, as pandas': the row at each bin's label, else
        missing (by the DatetimeIndex; its times unique)."""
        return self._upsample("asfreq")

    def ffill(self):
        """The last row at or before each bin's label."""
        return self._upsample("ffill")

    pad = ffill

    def bfill(self):
        """The first row at or after each bin's label."""
        return self._upsample("bfill")

    backfill = bfill

    def nearest(self):
        """The row nearest each bin's label (the later one on a tie)."""
        return self._upsample("nearest")

    def interpolate(self, method="linear"):
        """asfreq, then linear interpolation over the labels (numbers
        only), as pandas' default."""
        if method != "linear":
            raise NotImplementedError("interpolate(method=%r): only 'linear' is supported" % method)
        return self._upsample("interpolate")

    def ohlc(self):
        """A Series' open, high, low and close per bin (its first, max, min
        and last in time): a DataFrame, as pandas'. A DataFrame's (pandas:
        two levels of columns) is not supported: select a column first."""
        if isinstance(self._f, Series):
            return self._freq(_make("dataframe.resample", [self._f], dict(self._p, func="ohlc"),
                                    "dataframe", ["open", "high", "low", "close"],
                                    index_names=self._index()))
        if not _one(self._sel):
            raise NotImplementedError("ohlc() of a DataFrame's resample: select one column "
                                      "first, r['price'].ohlc()")
        c = self._sel
        return self._frame({"open": [c, "first"], "high": [c, "max"], "low": [c, "min"],
                            "close": [c, "last"]})

    def agg(self, arg=None, **named):
        """A func name, {"column": "func"} (columns named as theirs), or
        named aggregations out=("column", "func"); of a Series' resample a
        list of func names too (a column per func)."""
        if isinstance(arg, str) and not named:
            return self._reduce(arg)
        if isinstance(self._f, Series) and isinstance(arg, (list, tuple)) and not named and \
                all(isinstance(f, str) for f in arg):
            # a column per func, named after it, side by side (pandas' frame)
            out = concat([self._series(f).rename(f) for f in arg], axis=1)
            out._columns, out._index_names = list(arg), self._index()
            return self._freq(out)
        if isinstance(self._f, Series):
            raise TypeError("a Series' resample takes a func name or a list of them here")
        agg = {}
        if isinstance(arg, dict):
            for c, fn in arg.items():
                if not isinstance(fn, str):
                    raise TypeError("agg({%r: %r}): one func name per column here" % (c, fn))
                agg[c] = [c, fn]
        elif arg is not None:
            raise TypeError("agg takes a func name, a dict or named aggregations")
        for out, spec in named.items():
            if not (isinstance(spec, (tuple, list)) and len(spec) == 2):
                raise TypeError("agg(%s=%r): expected (column, func)" % (out, spec))
            agg[out] = [spec[0], spec[1]]
        if not agg:
            raise TypeError("agg needs a func, a dict or named aggregations")
        return self._frame(agg)

    aggregate = agg


class _Expanding(_Rolling):
    """expanding's aggregations: rolling's (median and quantile too)"""

    def __init__(self, f, min_periods):
        self._f, self._mp, self._kw = f, min_periods, {}

    def _params(self, agg):
        p = dict({"agg": agg}, **self._kw)
        if self._mp != 1:
            p["min_periods"] = self._mp
        return p

    def _agg(self, agg):
        return _make("dataframe.expanding", [self._f], self._params(agg), self._f._ref.kind,
                     self._f._columns)


def _ewm_params(com, span, halflife, alpha, min_periods, adjust, ignore_na, times):
    if times is not None:
        if not isinstance(times, str):
            raise TypeError("ewm(times=...): pass the name of a datetime column of the frame")
        halflife = _time_literal(halflife) or halflife
    p = {k: v for k, v in (("com", com), ("span", span), ("halflife", halflife),
                           ("alpha", alpha), ("times", times)) if v is not None}
    if min_periods:
        p["min_periods"] = int(min_periods)
    if not adjust:
        p["adjust"] = False
    if ignore_na:
        p["ignore_na"] = True
    return p


class _Ewm:
    def __init__(self, f, params):
        self._f, self._p = f, params

    def _agg(self, agg, **kw):
        return _make("dataframe.ewm", [self._f], dict(self._p, agg=agg, **kw), self._f._ref.kind,
                     self._f._columns)

    def mean(self): return self._agg("mean")  # noqa: E704
    def sum(self): return self._agg("sum")  # noqa: E704

    def var(self, bias=False):
        """pandas' ewm var (its ewmcov of each column with itself)."""
        return self._agg("var", **({"bias": True} if bias else {}))

    def std(self, bias=False):
        return self._agg("std", **({"bias": True} if bias else {}))

    vol = std


def _grouped(g, extra=None):
    """groupby g's frame cut to its keys and its selection (and the column
    extra, a rolling's "on"), for the ops that take
    "by"."""
    f = g._df
    if g._sel is not None:
        cols = [g._sel] if _one(g._sel) else list(g._sel)
        if extra is not None and extra not in cols:
            cols.append(extra)
        f = f[list(g._by) + [c for c in cols if c not in g._by]]
    return f


def _by_make(op, f, by, sel, p, ordered=False):
    """op with "by" over f: indexed by the keys and then f's index, its
    columns f's that are no key (ordered: by name, the result says), a
    Series when sel names one column"""
    cols, inames = f._columns, f._index_names
    out = _make(op, [f], dict(p, by=list(by)), "dataframe",
                None if cols is None or ordered else [c for c in cols if c not in by],
                index_names=list(by) + list(inames if inames is not None else [None]))
    return out[sel] if _one(sel) else out


class _GroupRolling(_Rolling):
    """df.groupby(by).rolling(window): each group's windows, the result
    indexed by the keys and then the rows' index, groups in key order (a
    column selection: g["x"] gives a Series)."""

    def __init__(self, g, window, min_periods, center, on=None, closed=None):
        _Rolling.__init__(self, _grouped(g, on), window, min_periods, on, closed)
        if center:
            self._kw["center"] = True
        self._by, self._sel = g._by, g._sel

    def _agg(self, agg):
        p = dict({"window": self._w, "agg": agg}, **self._kw)
        if self._mp is not None:
            p["min_periods"] = int(self._mp)
        # with "on", pandas orders the columns by name (the result says)
        return _by_make("dataframe.rolling", self._f, self._by, self._sel, p, "on" in self._kw)


class _GroupExpanding(_Expanding):
    def __init__(self, g, min_periods):
        _Expanding.__init__(self, _grouped(g), min_periods)
        self._by, self._sel = g._by, g._sel

    def _agg(self, agg):
        return _by_make("dataframe.expanding", self._f, self._by, self._sel, self._params(agg))


class _GroupEwm(_Ewm):
    def __init__(self, g, params):
        _Ewm.__init__(self, _grouped(g), params)
        self._by, self._sel = g._by, g._sel

    def _agg(self, agg, **kw):
        return _by_make("dataframe.ewm", self._f, self._by, self._sel, dict(self._p, agg=agg, **kw))


class DataFrame(_Frame):
    """md.DataFrame(data, columns=None, chunk_rows=None, index=None,
    dtype=None): data a marsc tensor (1-D or 2-D), a numpy array of
    numbers, a pandas DataFrame (its columns' types and its index kept), or
    what pandas' DataFrame takes (a dict of columns, a list of records:
    made a pandas DataFrame with index, columns and dtype first)."""

    def __init__(self, data, columns=None, chunk_rows=None, index=None, dtype=None):
        import pandas as pd
        made = _frame_of_series(data, columns, index, dtype)
        if made is not None:  # marsc Series: side by side, as pandas aligns them
            self.__dict__.update(made.__dict__)
            return
        if not isinstance(data, (Entity, pd.DataFrame)) and (
                index is not None or dtype is not None or not _numbers(data)):
            data = pd.DataFrame(data, index=index, columns=columns, dtype=dtype)
            columns = None
        if isinstance(data, pd.DataFrame):
            if columns is not None:
                data = data[list(columns)]
            self.__dict__.update(_local.frame(data, chunk_rows).__dict__)
            return
        t = _as_tensor(data)
        p = {}
        if columns is not None:
            p["columns"] = [c if isinstance(c, str) else jsonable_col(c) for c in columns]
        if chunk_rows is not None:
            p["chunk_rows"] = int(chunk_rows)
        node = Node("dataframe.from_tensor", [t._ref], p, "dataframe")
        Entity.__init__(self, node, t._session)
        self._columns = list(columns) if columns is not None else None
        _after_create(self)

    @property
    def columns(self):
        """The column names: known here, or the server's once executed, or
        else learnt by running head(0) of this frame (a file's header, the
        first chunk's pipeline), as pandas users expect them. A list (with
        pandas' tolist() and to_list())."""
        if self._columns is None:
            m = self._meta()
            if not (m and "columns" in m):
                m = self.head(0)._ran()
            self._columns = list(m["columns"])
        return _Names(self._columns)

    @columns.setter
    def columns(self, names):
        """df.columns = [...]: the columns renamed in order (as rename)."""
        have = self.columns
        names = list(names)
        if len(names) != len(have):
            raise ValueError("Length mismatch: Expected axis has %d elements, new values have "
                             "%d elements" % (len(have), len(names)))
        new = self.rename(columns=dict(zip(have, names)))
        self._ref, self._columns, self._cats = new._ref, names, new._cats


    @property
    def dtypes(self):
        """pandas.Series of column dtypes, the server's (it runs first when it
        has not run: a column's type can depend on every value)"""
        import pandas as pd
        m = self._ran()
        narrow = self._narrow or {}
        # the JSON's keys are text: integer labels as this frame's own
        labels = {str(c): c for c in self._columns or ()}
        return pd.Series({labels.get(c, c): np.dtype(object if d in ("string", "object") else
                                                     narrow.get(labels.get(c, c), d))
                          for c, d in m["dtypes"].items()}, dtype=object)

    def __repr__(self):
        return "DataFrame <op=%s, columns=%s, key=%s>" % (self.op, self._columns, self.key)

    to_records, to_html = _Frame._export_one("to_records"), _Frame._export_one("to_html")
    # pandas' iterations: over the fetched frame (it runs first)
    iterrows, itertuples = _Frame._export_one("iterrows"), _Frame._export_one("itertuples")
    items = _Frame._export_one("items")
    # the transpose, of the fetched frame (its columns' types mix in one
    # column, which the engine's frames cannot hold): df.describe().T
    transpose = _Frame._export_one("transpose")

    @property
    def T(self):  # noqa: N802 - pandas' name
        return self.fetch().T

    def applymap(self, func, na_action=None):
        """pandas' applymap: func's expression (read as apply's) over every
        column, element-wise; the columns must be known here."""
        cols = self.columns
        if na_action not in (None, "ignore"):
            raise ValueError("na_action must be 'ignore' or None")
        return concat([_vectorized(func, self[c], "applymap").rename(c) for c in cols], axis=1)

    def __getitem__(self, key):
        key = _called(key, self)  # df[lambda d: d.x > 0], as pandas calls it
        if isinstance(key, Series):
            return _make("dataframe.filter", [self, key], None, "dataframe", self._columns)
        if isinstance(key, (list, tuple)):
            return _make("dataframe.getitem", [self], {"columns": list(key)}, "dataframe",
                         list(key))
        return _make("dataframe.getitem", [self], {"columns": key}, "series")

    def __getattr__(self, name):
        if name.startswith("_") and not (self._columns is not None and name in self._columns):
            raise AttributeError(name)  # (a column such as merge's "_merge" is one)
        if self._columns is not None and name not in self._columns:
            raise AttributeError("DataFrame has no attribute or column %r (columns: %s)"
                                 % (name, self._columns))
        if _pandas_has("DataFrame", name):
            # pandas' own attribute shadows a column of that name there too
            raise AttributeError("marsc's DataFrame has no %r (pandas' DataFrame.%s is not "
                                 "supported; a column of that name is df[%r])"
                                 % (name, name, name))
        return self[name]

    def dot(self, other):
        """pandas' DataFrame.dot of weights by column (a pandas Series
        indexed by the column names, a dict, or a list or array in column
        order): each row's sum of its values times the weights, a Series"""
        import pandas as pd
        cols = list(self.columns)
        if isinstance(other, (pd.Series, dict)):
            w = dict(other)
            if set(w) != set(cols):
                raise ValueError("matrices are not aligned")
        elif isinstance(other, (list, tuple, np.ndarray)) and np.ndim(other) == 1:
            if len(other) != len(cols):
                raise ValueError("Dot product shape mismatch, %s vs %s"
                                 % ((None, len(cols)), (len(other),)))
            w = dict(zip(cols, other))
        else:
            raise NotImplementedError("DataFrame.dot takes weights by column (a pandas Series, "
                                      "a dict, a list or a 1-D array) here")
        out = None
        for c in cols:
            v = w[c].item() if isinstance(w[c], np.generic) else w[c]
            term = self[c] * v
            out = term if out is None else out + term
        return out.rename(None)

    __matmul__ = dot

    def set_axis(self, labels, axis=0, copy=True):
        """pandas' set_axis of the columns (axis 1): df.columns = labels, on
        a new frame; the index's (axis 0) is not supported"""
        if axis not in (1, "columns"):
            raise NotImplementedError("set_axis of the index is not supported (of the columns, "
                                      "axis=1, it is)")
        out = self.copy()
        out.columns = labels
        return out

    def infer_objects(self):
        """pandas' infer_objects: the engine's columns already have their
        types (a copy)"""
        return self.copy()

    def add_prefix(self, prefix):
        """the columns renamed prefix + name"""
        return self.rename(columns={c: "%s%s" % (prefix, c) for c in self.columns})

    def add_suffix(self, suffix):
        return self.rename(columns={c: "%s%s" % (c, suffix) for c in self.columns})

    def truncate(self, before=None, after=None, axis=None):
        """the rows whose labels are from before to after (a sorted index),
        as loc[before:after]"""
        if axis not in (None, 0, "index"):
            raise NotImplementedError("truncate of the columns is not supported")
        return self.loc[before:after]

    def filter(self, items=None, like=None, regex=None, axis=None):
        """pandas' DataFrame.filter of the column labels: those of items
        that are columns, in items' order; those containing like; those
        where regex matches (Python's re.search), in the frame's order"""
        if axis not in (None, 1, "columns"):
            raise NotImplementedError("filter of the index labels (axis 0) is not supported: "
                                      "the columns only")
        if sum(x is not None for x in (items, like, regex)) != 1:
            raise TypeError("Keyword arguments `items`, `like`, or `regex` are mutually "
                            "exclusive")
        cols = list(self.columns)
        if items is not None:
            keep = [c for c in items if c in cols]
        elif like is not None:
            keep = [c for c in cols if like in str(c)]
        else:
            pat = re.compile(regex)
            keep = [c for c in cols if pat.search(str(c))]
        return self[keep]

    def reindex(self, labels=None, index=None, columns=None, axis=None, fill_value=np.nan):
        """pandas' reindex of the columns: those named, in that order, a
        name that is no column a column of fill_value (NaN); of the rows
        (index=, or labels): _reindexed_rows."""
        if labels is not None and axis in (1, "columns"):
            columns, labels = labels, None
        if labels is not None or index is not None:
            out = _reindexed_rows(self, labels if labels is not None else index, fill_value)
            return out if columns is None else out.reindex(columns=columns,
                                                           fill_value=fill_value)
        if columns is None:
            return self
        have = list(self.columns)
        names = list(columns)
        missing = [c for c in names if c not in have]
        out = self[[c for c in names if c in have]] if len(missing) < len(names) else None
        if out is None:
            raise NotImplementedError("reindex to columns none of which is the frame's")
        for c in missing:
            out[c] = out._const(fill_value)
        return out[names]

    def select_dtypes(self, include=None, exclude=None):
        """pandas' select_dtypes: the columns whose dtypes are (not) of the
        kinds given ("number", "object", "bool", "datetime", np.int64 ...);
        the dtypes are the server's, so this runs the frame first."""
        import pandas as pd
        dt = self.dtypes
        probe = pd.DataFrame({c: pd.Series([], dtype=t) for c, t in dt.items()})
        return self[list(probe.select_dtypes(include=include, exclude=exclude).columns)]

    def value_counts(self, subset=None, normalize=False, sort=True, ascending=False,
                     dropna=True):
        """pandas' DataFrame.value_counts: the count of each distinct row of
        the subset columns (default all), as groupby(subset).size() sorted
        by count (stable: equal counts in key order, as pandas' sort for up
        to 16 rows); normalize divides by the total. Its index has a level
        per column; for a single column the engine's is a plain index,
        fetched as pandas' MultiIndex of one level (but for a subset named
        by a string of more than one letter, as pandas 1.5's len check)."""
        cols = _names(subset) if subset is not None else self.columns
        p = {"by": list(cols), "agg": {"n": [cols[0], "size"]}}
        if not dropna:
            p["dropna"] = False  # rows missing a key are counted, those keys sorted last
        out = _make("dataframe.groupby_agg", [self], p, "dataframe", ["n"],
                    index_names=list(cols))["n"].rename(None)
        if sort:
            out = out.sort_values(ascending=ascending)
        if normalize:
            out = out / out.sum()
        # pandas 1.5's MultiIndex of one level (the engine's is plain) where
        # len(subset) == 1: a list of one, or a one-letter name (its check)
        if len(cols) == 1 and (not isinstance(subset, str) or len(subset) == 1):
            _as_fetched(out, _one_level, keep=True)
        return out

    def __setitem__(self, name, value):
        """df[name] = series: the frame becomes df.assign(name=series);
        df[[a, b]] = frame assigns frame's columns in order, as pandas."""
        if isinstance(name, (list, tuple)):
            if not isinstance(value, DataFrame):
                raise NotImplementedError("df[[...]] = value takes a DataFrame of as many "
                                          "columns")
            have = value.columns
            if len(have) != len(name):
                raise ValueError("Columns must be same length as key")
            new = self._assigned([(k, value[c]) for k, c in zip(name, have)])
            self._ref, self._cats, self._columns = new._ref, new._cats, new._columns
            return
        new = self._assigned([(name, value)])
        self._ref, self._cats = new._ref, new._cats
        self._columns = new._columns
        self._splits = getattr(new, "_splits", None)

    def assign(self, **series):
        """pandas' assign: Series of this frame's rows, callables of the
        frame (each sees the columns assigned before it) and scalars (a
        column of that value)."""
        return self._assigned(list(series.items()))

    def update(self, other, join="left", overwrite=True, filter_func=None, errors="ignore"):
        """pandas' update, in place: each column other shares with this
        frame takes other's values where they are present (overwrite=False:
        only where this one misses a value), other's rows found by label
        (a DataFrame, or a named Series); its int columns become float64,
        as pandas 1.5 sets them"""
        import pandas as pd
        if join != "left" or filter_func is not None or errors not in ("ignore", "raise"):
            raise NotImplementedError("update: join='left', no filter_func")
        if isinstance(other, Series):
            other = other.to_frame()
        elif isinstance(other, (pd.DataFrame, pd.Series)):
            other = _local.frame(pd.DataFrame(other), session=self._session)
        if not isinstance(other, DataFrame):
            raise TypeError("update takes a DataFrame or a named Series")
        cols = [c for c in other.columns if c in self.columns]
        if not cols:
            return
        tmp = ["__marsc_update_%d" % k for k in range(len(cols))]
        both = self._assigned([(t, other[c]) for c, t in zip(cols, tmp)])
        if errors == "raise" and overwrite:
            clash = [(both[c].notna() & both[t].notna()).any() for c, t in zip(cols, tmp)]
            execute(*clash)  # one task for every column's answer
            if any(bool(x.fetch()) for x in clash):
                raise ValueError("Data overlaps.")
        new, pairs = {}, list(zip(cols, tmp))
        if not overwrite:  # (int and bool columns miss no value: as they are)
            dt = self.dtypes
            pairs = [(c, t) for c, t in pairs if dt[c].kind not in "iub"]
            if not pairs:
                return
        for c, t in pairs:
            new[c] = both[c].mask(both[t].notna(), both[t]) if overwrite else \
                both[c].fillna(both[t])
        out = both._assigned(list(new.items()))[list(self.columns)]
        self._ref, self._columns = out._ref, out._columns

    def _assigned(self, pairs):
        """assign of [(name, value)]: names of any label (df[0] = ...); a
        split's lists (s.str.split(pat)) are held as the strings, the split
        kept beside the column for explode"""
        if any(isinstance(v, _Split) for _, v in pairs):
            splits = dict(getattr(self, "_splits", None) or {})
            plain = []
            for k, v in pairs:
                if isinstance(v, _Split):
                    splits[k] = v
                    v = v._s
                else:
                    splits.pop(k, None)
                plain.append((k, v))
            out = self._assigned(plain)
            out._splits = splits
            prev = out._fetched

            def lists(got):  # fetched: pandas' lists of the split strings
                got = prev(got) if prev is not None else got
                for k, sp in splits.items():
                    if k in getattr(got, "columns", ()):
                        got[k] = got[k].str.split(sp._pat, n=-1 if sp._n is None else sp._n)
                return got
            return _as_fetched(out, lists, _VALUES_KEPT.__contains__)
        if any(callable(v) or not isinstance(v, _Frame) for _, v in pairs):
            out = self
            for k, v in pairs:
                v = v(out) if callable(v) else v
                out = out._assigned([(k, v if isinstance(v, _Frame) else out._const(v))])
            return out
        far = [k for k, v in pairs if isinstance(v, Series) and
               not _same_rows(v, self)]
        if far and self._columns is not None and len(far) == len(set(map(repr, far))):
            return self._assigned_by_label(pairs, far)
        names = [k for k, _ in pairs]
        cols = None if self._columns is None else \
            self._columns + [n for n in names if n not in self._columns]
        return _make("dataframe.assign", [self] + [v for _, v in pairs], {"names": names},
                     "dataframe", cols)

    def _assigned_by_label(self, pairs, far):
        """assign of Series of other rows (df["m"] = df.groupby("k").x.mean()
        of a frame indexed by k, a sorted or filtered column): pandas
        reindexes each on this frame's index, a missing label NaN. The
        Series of this frame's rows are assigned first; then one concat
        with "join": "left" puts the others beside this frame's rows (in
        their order; a label such a Series repeats is refused, as pandas'
        reindex), and they are assigned from it."""
        far_ids = {repr(k) for k in far}
        near = [(k, v) for k, v in pairs if repr(k) not in far_ids]
        out = self._assigned(near) if near else self
        tmp = ["__marsc_aligned_%d" % i for i in range(len(far))]
        vals = {repr(k): v for k, v in pairs}
        side = _make("dataframe.concat",
                     [out] + [_make("dataframe.rename", [vals[repr(k)]], {"name": t}, "series")
                              for k, t in zip(far, tmp)],
                     {"axis": 1, "join": "left"}, "dataframe", out._columns + tmp,
                     index_names=out._index_names)
        side = side._assigned([(k, _make("dataframe.getitem", [side], {"columns": t}, "series"))
                               for k, t in zip(far, tmp)])
        cols = list(self._columns)
        for k, _ in pairs:
            if repr(k) not in map(repr, cols):
                cols.append(k)
        return _make("dataframe.getitem", [side], {"columns": cols}, "dataframe", cols)

    def _across(self, op):
        """the row-wise reduction (_row_reduce), unnamed as pandas'"""
        return self._row_reduce(op).rename(None)

    def _row_reduce(self, op):
        """sum, mean, min, max or count along each row (axis=1), as
        element-wise ops over the columns left to right: the numeric and
        bool columns (count: every column), missing values skipped (a row
        of none: sum 0, mean, min and max NaN), pandas' values (its nansum
        adds the row's values in column order too)."""
        dt = self.dtypes
        if op in ("any", "all"):  # of bool columns (isna(), comparisons): | or & of them
            if not len(dt) or any(t != np.bool_ for t in dt):
                raise NotImplementedError("%s(axis=1) of a frame whose columns are not all "
                                          "bools" % op)
            parts = [self[c] for c in dt.index]
            out = parts[0]
            for x in parts[1:]:
                out = (out | x) if op == "any" else (out & x)
            return out
        cols = list(dt.index) if op == "count" else self._numeric_columns(dt)
        if not cols:
            raise NotImplementedError("%s(axis=1) of a frame without numeric columns" % op)
        parts = [self[c] for c in cols]
        if op in ("count", "count_numbers"):
            out = parts[0].notna().astype("int64")
            for x in parts[1:]:
                out = out + x.notna().astype("int64")
            return out
        parts = [x.astype("int64") if dt[c] == np.bool_ else x for c, x in zip(cols, parts)]
        if op == "prod":
            out = parts[0].fillna(1)
            for x in parts[1:]:
                out = out * x.fillna(1)
            return out
        if op in ("sum", "mean"):
            out = parts[0].fillna(0)
            for x in parts[1:]:
                out = out + x.fillna(0)
            if op == "mean":
                n = parts[0].notna().astype("int64")
                for x in parts[1:]:
                    n = n + x.notna().astype("int64")
                out = out / n
            return out
        out = parts[0]
        for x in parts[1:]:
            better = (x > out) if op == "max" else (x < out)
            out = x.where(better | out.isna(), out)
        return out

    def _across_var(self, op, ddof):
        """var or std along each row: the squared deviations from the row's
        mean of its present numbers over (count - ddof), NaN where count <=
        ddof, as pandas"""
        n, mean = self._row_reduce("count_numbers"), self._across("mean")
        dt, ss = self.dtypes, None
        for c in self._numeric_columns(dt):
            x = self[c].astype("float64") if dt[c] == np.bool_ else self[c]
            d = ((x - mean) ** 2).fillna(0)
            ss = d if ss is None else ss + d
        out = (ss / (n - ddof)).where(n > ddof)
        return (out ** 0.5 if op == "std" else out).rename(None)

    def _missing_gives_nan(self, axis):
        """skipna=False of a reduction: NaN in each column's (axis 0) or
        row's (axis 1) result where one of its numeric values is missing,
        as pandas' (int and bool columns cannot miss one)"""
        cols = [c for c, t in self.dtypes.items() if t.kind == "f"]
        if not cols:
            return lambda out: out
        if axis in (1, "columns"):
            seen = self[cols].isna()._row_reduce("any")
            return lambda out: out.where(~seen, np.nan)

        def by_column(out):
            # out holds the numeric columns in the frame's order: their
            # missing flags in the same order, as a Series of those labels
            # (a Series of other rows: added, as pandas aligns them by label)
            nums = self._numeric_columns(self.dtypes)
            return out + self[nums].isna().any().astype("float64").replace(1.0, np.nan)
        return by_column

    @staticmethod
    def _numeric_columns(dtypes):
        """the numeric and bool columns of dtypes (the row-wise reductions')"""
        return [c for c, t in dtypes.items() if np.issubdtype(t, np.number) or t == np.bool_]

    def _across_median(self):
        """median along each row (numpy's nanmedian of the numeric
        columns): each row's values sorted by a network of element-wise
        minimum and maximum (a missing value as +inf, after the present
        ones), then the middle one, or the mean of the two middle ones, of
        the present ones; NaN where none is"""
        dt = self.dtypes
        cols = self._numeric_columns(dt)
        if not cols:
            raise NotImplementedError("median(axis=1) of a frame without numeric columns")
        if len(cols) > 24:
            raise NotImplementedError("median(axis=1) of more than 24 columns is not supported "
                                      "(it sorts each row element-wise)")
        xs = [self[c] if dt[c] == np.float64 else self[c].astype("float64") for c in cols]
        n = self._row_reduce("count_numbers")
        v = [elementwise("where", [x.notna(), x, np.inf]) for x in xs]
        for i in range(len(v)):
            for j in range(len(v) - 1 - i):
                v[j], v[j + 1] = (elementwise("minimum", [v[j], v[j + 1]]),
                                  elementwise("maximum", [v[j], v[j + 1]]))

        def pick(at):  # v[at] of each row
            out = v[-1]
            for j in reversed(range(len(v) - 1)):
                out = elementwise("where", [at == j, v[j], out])
            return out
        lo, hi = pick((n - 1) // 2), pick(n // 2)
        mid = elementwise("where", [n % 2 == 1, lo, (lo + hi) / 2])
        return elementwise("where", [n > 0, mid, np.nan]).rename(None)

    def _across_nunique(self, dropna):
        """nunique along each row: a column's value counts where no column
        before it holds the same (missing values once, unless dropna)"""
        dt = self.dtypes
        cols = list(dt.index)
        kinds = {"text" if t == object else "number" if (np.issubdtype(t, np.number) or
                                                         t == np.bool_) else str(t)
                 for t in dt}
        if len(kinds) != 1 or kinds - {"text", "number"}:
            raise NotImplementedError("nunique(axis=1) of columns all numbers (and bools) or "
                                      "all strings")
        total = None
        for j, c in enumerate(cols):
            new = self[c].notna()
            for b in cols[:j]:
                new = new & (self[c] != self[b])
            t = new.astype("int64")
            total = t if total is None else total + t
        if not dropna:
            miss = self[cols[0]].isna()
            for c in cols[1:]:
                miss = miss | self[c].isna()
            total = total + miss.astype("int64")
        return total.rename(None)

    def _across_idx(self, how):
        """idxmax or idxmin along each row: the first column holding the
        row's max (min), missing where the row has no number"""
        best = self._across(how)
        cols = self._numeric_columns(self.dtypes)
        out = elementwise("where", [self[cols[-1]] == best, str(cols[-1]), np.nan])
        for c in reversed(cols[:-1]):
            out = elementwise("where", [self[c] == best, str(c), out])
        return out.rename(None)

    def _along_columns(self, op, periods=1):
        """cumsum, cumprod, cummax, cummin, diff or shift along each row:
        each column from the ones before it (a frame of its columns)"""
        cols = list(self.columns)
        acc, out = None, {}
        for q, c in enumerate(cols):
            x = self[c]
            if op in ("diff", "shift"):
                k = q - periods
                prev = self[cols[k]] if 0 <= k < len(cols) else None
                if op == "shift":
                    out[c] = prev if prev is not None else x * np.nan
                else:
                    out[c] = x - prev if prev is not None else x * np.nan
                continue
            if acc is None:
                acc = x
            elif op == "cumsum":
                acc = (acc.fillna(0) + x).where(x.notna())
            elif op == "cumprod":
                acc = (acc.fillna(1) * x).where(x.notna())
            else:
                better = (x > acc) if op == "cummax" else (x < acc)
                acc = x.where(better | acc.isna(), acc).where(x.notna())
            out[c] = acc
        return self._each_column(out.__getitem__)

    def _const(self, v):
        """a Series of this frame's rows, every value v (a number, a bool or a
        string)"""
        cols = self.columns
        if not cols:
            raise NotImplementedError("assign of a scalar to a frame without columns")
        base = self[cols[0]].isna()
        if isinstance(v, (bool, np.bool_)):
            return base.map({True: bool(v), False: bool(v)})
        if isinstance(v, (numbers.Number, np.generic)):
            return base * 0 + (v.item() if isinstance(v, np.generic) else v)
        if isinstance(v, str):
            return base.map({True: v, False: v})
        import pandas as pd
        if v is None:  # pandas' object column of None
            return base.map({True: "", False: ""}).where(base & ~base)
        if v is pd.NaT or isinstance(v, (pd.Timestamp, datetime.datetime, np.datetime64)):
            text = None if pd.isna(v) else str(pd.Timestamp(v))
            return to_datetime(self._const(text))
        raise TypeError("assign: %r is no Series, callable or scalar" % (v,))

    def groupby(self, by=None, as_index=True, observed=False, dropna=True, sort=True,
                level=None):
        """pandas' groupby by column names, or by Series of this frame's
        rows (df.day.dt.month): such a Series is assigned as the column of
        its name (replacing a column of that name, as the key then), so its
        name must be known here (a column, and what the accessors and
        element-wise ops make of one; rename() names any). observed: of
        categorical keys, only the categories present (pandas 1.5's
        default False gives every category). dropna=False: rows whose key
        is missing form groups too (sorted last), for the aggregations
        (sum, mean ..., agg of names, size). sort=False: the groups in
        the order their keys first appear (read when fetched, a task of
        its own), as pandas'. level: index levels (names or positions),
        named (rename_axis names them): the index made columns, grouped by
        them."""
        import pandas as pd
        if level is not None:
            if by is not None:
                raise TypeError("groupby takes by or level, not both")
            f, names, keys, tmp = _levels_named(self, level, _index_as_columns(self)[2])
            if len(set(names)) != len(names) or any(k in f.columns for k in names):
                raise NotImplementedError(
                    "groupby(level=%r): the index's levels must differ from each other and "
                    "from the columns (they are %r; rename_axis names them)" % (level, names))
            flat = f.reset_index()
            flat._columns = names + list(f.columns)
            other = [n for n in names if n not in keys]  # the levels not grouped by: dropped
            g = (flat.drop(columns=other) if other else flat).groupby(
                keys, as_index=as_index, observed=observed, dropna=dropna, sort=sort)
            return _LevelsShown(g, tmp, self)
        if isinstance(by, pd.Grouper):
            # pd.Grouper(key=..., freq=...): bins of time, as resample
            if by.freq is None or by.key is None:
                raise NotImplementedError("groupby(pd.Grouper(...)) takes key and freq (a "
                                          "resample); by a level it is not supported")
            rule = getattr(by.freq, "freqstr", by.freq)
            return self.resample(rule, on=by.key, closed=by.closed, label=by.label)
        keys = [by] if not isinstance(by, (list, tuple)) else list(by)
        if any(isinstance(k, pd.Grouper) for k in keys):
            raise NotImplementedError("groupby by keys and a pd.Grouper together is not "
                                      "supported")
        frame, names = self, []
        for k in keys:
            if isinstance(k, Series):
                nm = _series_name(k._ref)
                if nm is _UNKNOWN or nm is None:
                    raise NotImplementedError(
                        "groupby by a Series whose name is not known here: give it one "
                        "(s.rename(\"key\")) or assign it as a column first")
                if not (k._ref.op == "dataframe.getitem" and k._ref.inputs[0] is frame._ref):
                    frame = frame.assign(**{nm: k})
                names.append(nm)
            else:
                names.append(k)
        g = GroupBy(frame, names, as_index=bool(as_index), observed=bool(observed),
                    dropna=bool(dropna))
        g._sort = bool(sort)
        return g

    def sort_values(self, by, ascending=True, na_position="last", key=None, kind=None,
                    ignore_index=False):
        """pandas' stable sort (kind="mergesort", whatever kind says: pandas'
        default quicksort orders equal keys in no specified way): by one
        column or several, missing values last or first (na_position); key
        a function of each by column's Series (s.str.lower() ...), sorted by
        what it gives."""
        _sort_kind(kind)
        if ignore_index:
            return self.sort_values(by, ascending, na_position, key).reset_index(drop=True)
        if key is not None:
            bys = [by] if _one(by) else list(by)
            tmp = {"_mars_key%d" % q: key(self[b]) for q, b in enumerate(bys)}
            out = self.assign(**tmp).sort_values(list(tmp), ascending, na_position)
            cols = self._columns
            return out.drop(columns=list(tmp)) if cols is None else out[cols]
        p = {"by": [by] if _one(by) else list(by)}
        if ascending is not True:
            p["ascending"] = ascending if isinstance(ascending, bool) else list(ascending)
        if na_position != "last":
            p["na_position"] = na_position
        return _make("dataframe.sort_values", [self], p, "dataframe", self._columns)

    def merge(self, right, how="inner", on=None, left_on=None, right_on=None, left_index=False,
              right_index=False, sort=False, suffixes=("_x", "_y"), indicator=False,
              validate=None):
        """pandas' merge: on columns (on, or left_on and right_on), on the
        index (left_index and right_index), or one side's columns with the
        other's index (left_on with right_index, left_index with right_on:
        the side of columns keeps its index); rows in pandas 1.5's order. The
        second argument is how, as in pandas, unless it names no how (an
        earlier client took on there). indicator (True, or a column's name):
        pandas' "_merge" column, a categorical of left_only, right_only and
        both (each side marked before the merge). A named Series as right
        is its one-column frame, as pandas'."""
        if isinstance(right, Series):
            if right.name is None:
                raise ValueError("Cannot merge a Series without a name")
            right = right.to_frame()
        if how == "cross":  # every pair of rows: a merge on one constant key
            if on is not None or left_on is not None or right_on is not None or \
                    left_index or right_index:
                raise ValueError("Can not pass on, right_on, left_on or set right_index=True "
                                 "or left_index=True")
            both = self.assign(_marsc_x=0).merge(right.assign(_marsc_x=0), "inner", "_marsc_x",
                                                 sort=False, suffixes=suffixes,
                                                 indicator=indicator)
            return both.drop(columns=["_marsc_x"])
        if validate is not None:
            _merge_validated(self, right, on, left_on, right_on, left_index, right_index,
                             validate)
        if sort:
            keys = on if on is not None else left_on
            if keys is None or left_index or right_index:
                raise NotImplementedError("merge(sort=True) of keys that are columns (on, or "
                                          "left_on/right_on) only")
            out = self.merge(right, how, on, left_on, right_on, suffixes=suffixes,
                             indicator=indicator)
            return out.sort_values(keys if on is not None else left_on, kind="stable") \
                .reset_index(drop=True)
        if indicator:
            import pandas as pd
            name = indicator if isinstance(indicator, str) else "_merge"
            both = self.assign(_mars_left=True).merge(
                right.assign(_mars_right=True), how, on, left_on, right_on, left_index,
                right_index, suffixes)
            lm, rm = both["_mars_left"].notna(), both["_mars_right"].notna()
            side = elementwise("where", [rm, "right_only", "left_only"])
            cols = [c for c in both.columns if c not in ("_mars_left", "_mars_right")]
            out = both[cols].assign(
                **{name: elementwise("where", [lm & rm, "both", side])})
            out._cats = dict(out._cats or {}, **{name: pd.CategoricalDtype(
                ["left_only", "right_only", "both"])})
            return out

        def names(v):
            return [v] if _one(v) else list(v)
        if how not in ("inner", "left", "right", "outer") and on is None:
            how, on = "inner", how
        p = {"how": how}
        if on is not None:
            p["on"] = names(on)
        if left_on is not None:
            p["left_on"] = names(left_on)
        if right_on is not None:
            p["right_on"] = names(right_on)
        if left_index:
            p["left_index"] = True
        if right_index:
            p["right_index"] = True
        if tuple(suffixes) != ("_x", "_y"):
            p["suffixes"] = list(suffixes)
        return _make("dataframe.merge", [self, right], p, "dataframe", index_names=None)

    def join(self, other, on=None, how="left", lsuffix="", rsuffix=""):
        """pandas' join: on both sides' index, or with on, this frame's
        columns against other's index (this frame's index kept). A second
        argument that is a how is taken as how (an earlier client's
        join(other, how))."""
        if isinstance(on, str) and on in ("inner", "left", "right", "outer") and how == "left":
            how, on = on, None
        p = {"how": how}
        if on is not None:
            p["on"] = [on] if _one(on) else list(on)
        if lsuffix:
            p["lsuffix"] = lsuffix
        if rsuffix:
            p["rsuffix"] = rsuffix
        return _make("dataframe.join", [self, other], p, "dataframe")

    def query(self, expr, inplace=False, local_dict=None, global_dict=None):
        """The rows where expr holds (docs/graph-format.md, "Expressions");
        @name is the caller's variable (or local_dict's, global_dict's),
        sent as its literal value, as pandas resolves it."""
        expr = _at_names(expr, sys._getframe(1), local_dict, global_dict)
        out = _make("dataframe.query", [self], {"expr": expr}, "dataframe", self._columns)
        return _in_place(self, out) if inplace else out

    def eval(self, expr, inplace=False, local_dict=None, global_dict=None):
        """The Series expr computes over the columns (dataframe.eval); an
        assignment ("z = a * b", one per line) gives the frame with that
        column added or replaced, as pandas' (inplace: this frame); @name
        as query's."""
        expr = _at_names(expr, sys._getframe(1), local_dict, global_dict)
        lines = [x.strip() for x in re.split(r"[\n;]", expr) if x.strip()]
        targets = [_ASSIGN.match(x) for x in lines]
        if not any(targets):
            if inplace:
                raise ValueError("Cannot operate inplace if there is no assignment")
            out = _make("dataframe.eval", [self], {"expr": expr}, "series")
            names = _expr_names(expr)
            # pandas' name: a Series' ops with scalars (or with Series of its
            # name) keep it; of several columns there is none
            return out.rename(names.pop()) if len(names) == 1 else out
        if not all(targets):
            raise ValueError("Multi-line expressions are only valid if all expressions "
                             "contain an assignment")
        out = self
        for m in targets:
            name, rhs = m.group(1).strip("`"), m.group(2).strip()
            out = out.assign(**{name: _make("dataframe.eval", [out], {"expr": rhs}, "series")})
        return _in_place(self, out) if inplace else out

    def corr(self, method="pearson", min_periods=1, numeric_only=True):
        """pandas' corr of the numeric columns (numeric_only True, pandas
        1.5's default; False fails as pandas' where a column is no number:
        the dtypes are needed, so an unrun frame runs first)"""
        if numeric_only is False:
            dt = self.dtypes
            if any(not (np.issubdtype(t, np.number) or t == np.bool_) for t in dt):
                raise ValueError("could not convert string to float: a column is no number "
                                 "(numeric_only=True leaves such columns out)")
        if method == "spearman":
            return self._spearman(int(min_periods))
        if method != "pearson":
            raise NotImplementedError("corr: method %r is not supported (pearson, spearman)"
                                      % (method,))
        return _make("dataframe.corr", [self], {"method": method, "min_periods": int(min_periods)},
                     "dataframe", index_names=None)

    def _spearman(self, min_periods):
        """pandas' spearman correlations of the numeric columns: pearson's of
        their ranks; where a value is missing (a check of its own) each
        pair's over the rows both have, run as one task, the table made
        here and sent back"""
        import pandas as pd
        from ..core import execute
        dt = self.dtypes
        cols = [c for c, t in dt.items() if np.issubdtype(t, np.number) or t == np.bool_]
        num = self[cols].astype({c: "int64" for c in cols if dt[c] == np.bool_}) \
            if any(dt[c] == np.bool_ for c in cols) else self[cols]
        miss = num.isna().sum().sum()
        if int(miss.fetch()) == 0:
            return num.rank().corr(min_periods=min_periods)
        pairs = {(a, b): num[a].corr(num[b], method="spearman", min_periods=min_periods)
                 for q, a in enumerate(cols) for b in cols[q + 1:]}
        counts = {c: num[c].count() for c in cols}
        execute(*pairs.values(), *counts.values())
        table = pd.DataFrame(np.eye(len(cols)), index=cols, columns=cols)
        for c in cols:  # a column of fewer values than min_periods: NaN on its diagonal
            if int(counts[c].fetch()) < max(min_periods, 1):
                table.loc[c, c] = np.nan
        for (a, b), t in pairs.items():
            table.loc[a, b] = table.loc[b, a] = float(t.fetch())
        return DataFrame(table)

    def corrwith(self, other, axis=0, drop=False, method="pearson", numeric_only=True):
        """pandas' corrwith of a Series of the same rows (each numeric
        column's corr with it) or of a DataFrame (the columns both have, by
        name): the correlations run as one task, fetched as pandas' Series"""
        import pandas as pd
        if axis not in (0, "index"):
            raise NotImplementedError("corrwith: axis 0 only")
        dt = self.dtypes
        cols = [c for c, t in dt.items() if t != object and t.kind in "biuf"]
        if isinstance(other, DataFrame):
            theirs = set(other.columns)
            pairs = [(c, self[c].corr(other[c], method=method)) for c in cols if c in theirs]
            if not drop:  # pandas: NaN for the columns only one side has, sorted, after
                both = {c for c, _ in pairs}
                pairs += [(c, np.nan) for c in sorted((set(cols) | theirs) - both)]
        elif isinstance(other, Series):
            pairs = [(c, self[c].corr(other, method=method)) for c in cols]
        else:
            raise TypeError("corrwith takes a marsc Series or DataFrame")
        run = [v for _, v in pairs if isinstance(v, Tensor)]
        if run:
            execute(*run)
        vals = [float(v.fetch()) if isinstance(v, Tensor) else v for _, v in pairs]
        return pd.Series(vals, index=[c for c, _ in pairs], dtype="float64")

    def cov(self, min_periods=None, ddof=1):
        if ddof != 1:
            raise NotImplementedError("cov: ddof other than 1 is not supported")
        p = {} if min_periods is None else {"min_periods": int(min_periods)}
        return _make("dataframe.cov", [self], p, "dataframe", index_names=None)

    def stack(self, level=-1, dropna=True):
        """pandas' DataFrame.stack of one level of columns: a Series indexed
        by each row's labels then the column names, row by row, missing
        values dropped (dropna). As a melt of the rows, numbered first
        (a cumcount of one group), sorted back into row order."""
        if level not in (-1, 0):
            raise NotImplementedError("stack: the columns have one level")
        cols = list(self.columns)
        flat, idx, names = _numbered_rows(self)
        pos, var, val, cpos = "_marsc_pos", "_marsc_col", "_marsc_val", "_marsc_cpos"
        long = flat.melt(id_vars=idx + [pos], value_vars=cols, var_name=var, value_name=val)
        long = long.assign(**{cpos: long[var].map({c: i for i, c in enumerate(cols)})})
        long = long.sort_values([pos, cpos])
        if dropna:
            long = long.dropna(subset=[val])
        out = long.set_index(idx + [var])[val]
        # the new level: the columns' name (a pivot's, an unstack's), as pandas
        axis = getattr(self._fetched, "axis_name", None)
        return out.rename_axis(names + [axis]).rename(None)

    def melt(self, id_vars=None, value_vars=None, var_name=None, value_name="value"):
        p = {"id_vars": _names(id_vars), "value_vars": _names(value_vars),
             "var_name": var_name, "value_name": value_name}
        p = {k: v for k, v in p.items() if v is not None}
        return _make("dataframe.melt", [self], p, "dataframe", index_names=None)

    def set_index(self, keys, drop=True, append=False):
        keys = [keys] if _one(keys) else list(keys)
        p = {"keys": keys}
        if not drop:
            p["drop"] = False
        if append:
            p["append"] = True
        cols = None if self._columns is None or not drop else \
            [c for c in self._columns if c not in keys]
        names = (list(self._index_names or [None]) if append else []) + keys
        return _make("dataframe.set_index", [self], p, "dataframe", cols, index_names=names)

    def rename(self, mapper=None, index=None, columns=None, axis=None, inplace=False,
               errors="ignore"):
        """pandas' rename: of columns (columns=, or mapper with axis=1), a
        dict {old: new} or a function of each name (str.lower: the frame
        runs first when its columns are not known here); of the index's
        labels (index=, or mapper), a dict or a function of each label
        (_relabelled)."""
        if mapper is not None:
            if index is not None or columns is not None:
                raise TypeError("Cannot specify both 'mapper' and any of 'index' or 'columns'")
            if axis in (1, "columns"):
                columns = mapper
            else:
                index = mapper
        if errors == "raise" and isinstance(columns, dict):
            miss = [c for c in columns if c not in self.columns]
            if miss:
                raise KeyError("%s not found in axis" % miss)
        out = self if index is None else _relabelled(self, index)
        if columns is not None:
            out = out._renamed_columns(columns)
        return _in_place(self, out) if inplace else out

    def _renamed_columns(self, columns):
        """dataframe.rename of the columns (a dict or a function)"""
        if callable(columns):
            have = self.columns
            columns = {c: columns(c) for c in have}
        cols = None if self._columns is None else [columns.get(c, c) for c in self._columns]
        return _make("dataframe.rename", [self], {"columns": dict(columns)}, "dataframe", cols)

    def __delitem__(self, name):
        """del df[name]: the frame without that column."""
        new = self.drop(columns=[name])
        self._ref, self._columns, self._cats = new._ref, new._columns, new._cats

    def pop(self, name):
        """the column, and the frame goes on without it"""
        out = self[name]
        del self[name]
        return out

    def insert(self, loc, column, value, allow_duplicates=False):
        """the column at position loc (a Series of the same rows or a
        scalar), as pandas' insert (in place)"""
        have = self.columns
        if column in have and not allow_duplicates:
            raise ValueError("cannot insert %s, already exists" % column)
        order = list(have)
        order.insert(int(loc), column)
        new = self.assign(**{column: value})[order]
        self._ref, self._columns, self._cats = new._ref, new._columns, new._cats

    def drop(self, labels=None, axis=0, index=None, columns=None, level=None, inplace=False,
             errors="raise"):
        """pandas' drop: columns by name (columns=, or labels with axis=1),
        rows by index label (index=, or labels): the rows of none of them,
        in order; a label found nowhere is pandas' KeyError (the rows' when
        it runs), but with errors="ignore"."""
        if labels is not None and (index is not None or columns is not None):
            raise ValueError("Cannot specify both 'labels' and 'index'/'columns'")
        if labels is not None:
            if axis in (1, "columns"):
                columns = labels
            else:
                index = labels
        out = self._drop_rows(index, level, errors) if index is not None else self
        if columns is not None:
            names = _names(columns)
            if errors == "ignore" and self._columns is not None:
                names = [c for c in names if c in self._columns]
            elif self._columns is not None and any(c not in self._columns for c in names):
                raise KeyError("%s not found in axis" % [c for c in names
                                                         if c not in self._columns])
            cols = None if out._columns is None else [c for c in out._columns if c not in names]
            out = _make("dataframe.drop", [out], {"columns": names}, "dataframe", cols) \
                if names else out
        return _in_place(self, out) if inplace else out

    def pivot_table(self, values=None, index=None, columns=None, aggfunc="mean",
                    fill_value=None, margins=False, margins_name="All"):
        """pandas' pivot_table; with columns a table (further ops run on its
        fetched value). margins (one values column, one index key, an
        aggregation's name): pandas' "All" row and column, the aggregation
        of each column's, each row's and all the values (groupby results
        fetched with it)."""
        keys = [] if index is None else [index] if not isinstance(index, (list, tuple)) \
            else list(index)
        if isinstance(columns, Series) or any(isinstance(k, Series) for k in keys):
            # Series of the same rows as keys: columns of their own, then
            # named as the Series (pandas names the levels so)
            tmp, real = {}, {}
            for q, k in enumerate(keys + [columns]):
                if isinstance(k, Series):
                    tmp["_marsc_key%d" % q] = k
                    real["_marsc_key%d" % q] = k.name
            it = iter(tmp)
            keys = [next(it) if isinstance(k, Series) else k for k in keys]
            cols = next(it) if isinstance(columns, Series) else columns
            out = self.assign(**tmp).pivot_table(values, keys or None, cols, aggfunc,
                                                 fill_value, margins, margins_name)
            if isinstance(columns, Series):
                _as_fetched(out, _axis_named(real[cols]))
            if any(k in real for k in keys):
                out = out.rename_axis([real.get(k, k) for k in keys])
            return out
        if isinstance(aggfunc, (list, tuple, dict)):
            if margins:
                raise NotImplementedError("pivot_table(margins=True) takes an aggregation's "
                                          "name")
            return self._pivot_many(values, index, columns, aggfunc, fill_value)
        if margins:
            return self._margins(values, index, columns, aggfunc, fill_value, margins_name)
        aggfunc = _func_name(aggfunc)
        if columns is None:
            return self._pivot_grouped(values, index, aggfunc, fill_value)
        p = {"index": _names(index), "aggfunc": aggfunc}
        if values is not None:
            p["values"] = _names(values)
        if columns is not None:
            p["columns"] = columns
        if fill_value is not None:
            p["fill_value"] = fill_value
        out = _make("dataframe.pivot_table", [self], p, "dataframe", index_names=_names(index))
        if columns is not None:  # the columns named after it, as pandas'
            _as_fetched(out, _axis_named(columns))
            out._fetch_only = True
        return out

    def _pivot_grouped(self, values, index, aggfunc, fill_value):
        """pivot_table without columns as pandas 1.5 computes it: the
        groupby's aggregation of the values (every column that is no key,
        the numeric ones for numeric aggregations), rows all missing
        dropped, columns sorted, and an int column's results that are all
        whole numbers cast back to int64"""
        keys = _names(index)
        dt = self.dtypes
        if values is None:
            vals = [c for c in dt.index if c not in keys and (
                aggfunc not in GroupBy._NUMERIC or np.issubdtype(dt[c], np.number))]
        else:
            vals = _names(values)
        vals = sorted(vals)
        out = self.groupby(keys)[vals].agg(aggfunc)
        if fill_value is not None:
            out = out.fillna(fill_value)
        out = out.dropna(how="all")
        ints = [c for c in vals if dt[c].kind in "iu"]
        if not ints:
            return out

        def fn(got):
            for c in ints:
                v = got[c]
                if v.dtype.kind == "f" and v.notna().all() and (v == v.round()).all():
                    got[c] = v.astype(dt[c])
            return got
        prev = out._fetched
        return _as_fetched(out, (lambda g: fn(prev(g))) if prev is not None else fn)

    def _pivot_many(self, values, index, columns, aggfunc, fill_value):
        """pivot_table with a list of aggregations (pandas' columns (func,
        ...)) or a dict {column: func or list} (its columns, (column, func)
        where a list is given, sorted): a table per aggregation, put side
        by side as pandas' when fetched (a table that can only be
        fetched)"""
        import pandas as pd
        if isinstance(aggfunc, dict):
            many = any(isinstance(f, (list, tuple)) for f in aggfunc.values())
            parts = [((c, _func_name(f)) if many else c,
                      self.pivot_table(c, index, columns, f, fill_value))
                     for c, fs in aggfunc.items()
                     for f in (fs if isinstance(fs, (list, tuple)) else [fs])]
        else:
            if not aggfunc:
                raise ValueError("No objects to concatenate")
            many = True
            parts = [(_func_name(f), self.pivot_table(values, index, columns, f, fill_value))
                     for f in aggfunc]
        by_dict = isinstance(aggfunc, dict)

        def put(every):
            if by_dict and columns is None:  # a column each: its (column, func) or name
                for (key, _), g in zip(parts, every):
                    g.columns = pd.MultiIndex.from_tuples([key]) if many else [key]
                return pd.concat(every, axis=1).sort_index(axis=1)
            out = pd.concat(every, axis=1, keys=[k for k, _ in parts])
            return out.sort_index(axis=1) if by_dict else out
        return _tables_side_by_side([t for _, t in parts], put)

    def _margins(self, values, index, columns, aggfunc, fill_value, name):
        """pivot_table(margins=True): the table, with the aggregation by
        the index key (the margin column), by the columns key (the margin
        row) and of all the values, assembled as pandas' when fetched"""
        from ..core import execute
        if not (_one(values) and _one(index) and (columns is None or _one(columns)) and
                isinstance(aggfunc, str)):
            raise NotImplementedError("pivot_table(margins=True) takes one values column, one "
                                      "index key, at most one columns key and an "
                                      "aggregation's name")
        table = self.pivot_table(values, index, columns, aggfunc, fill_value)
        # pandas' margins are of the rows with every key and the value present
        keys = [index] + ([] if columns is None else [columns])
        seen = self[values].notna()
        for k in keys:
            seen = seen & self[k].notna()
        sub = self[seen]
        by_row = sub.groupby(index)[values].agg(aggfunc)
        by_col = None if columns is None else sub.groupby(columns)[values].agg(aggfunc)
        whole = sub[[values]].agg(aggfunc)
        parts = [x for x in (by_row, by_col, whole) if x is not None]

        def fn(t):
            execute(*parts)
            got = [x.fetch() for x in parts]
            total = got[-1][values]
            if columns is not None:
                t[name] = got[0].reindex(t.index)
                t.loc[name] = list(got[1].reindex(t.columns[:-1])) + [total]
            else:
                t.loc[name] = [total]
            return t
        return _carried_on_fetched_fn(table, fn)

    def pivot(self, index=None, columns=None, values=None):
        """pandas' DataFrame.pivot: a reshape without aggregation (one row
        per (index, columns) pair, else it fails as pandas' does); one
        values column; it can only be fetched."""
        if index is None or columns is None or values is None:
            raise ValueError("pivot needs index, columns and values (pandas' default index and "
                             "MultiIndex columns are not supported)")
        out = _make("dataframe.pivot", [self],
                    {"index": _names(index), "columns": columns, "values": values},
                    "dataframe", index_names=_names(index))
        out._fetch_only = True
        return _as_fetched(out, _axis_named(columns))  # the columns named as pandas' 

    def reset_index(self, level=None, drop=False):
        """pandas' reset_index: every level made columns (or dropped); with
        level (names or positions), those levels only, in the index's
        order, the others left as the index"""
        if level is not None:
            names = _index_as_columns(self)[2]
            want = [level] if _one(level) else list(level)
            at = sorted({_level_at(names, x) for x in want})
            if len(at) < len(names):
                rest = [q for q in range(len(names)) if q not in at]
                out = _levels_kept(self, lambda _: rest, keep_columns=not drop)
                if drop:
                    return out
                # the levels made columns come first, as pandas puts them
                moved = [names[q] if names[q] is not None else
                         ("level_%d" % q if len(names) > 1 else "index") for q in at]
                return out[moved + [c for c in out.columns if c not in moved]]
        p = {"drop": True} if drop else {}
        return _make("dataframe.reset_index", [self], p, "dataframe",
                     self._columns if drop else None, index_names=None)

    def xs(self, key, axis=0, level=None, drop_level=True):
        """pandas' df.xs(key, level): on a MultiIndex, the rows whose levels
        (the first ones, or level: names or positions) hold key (a tuple
        for several), those levels dropped (drop_level; a DataFrame, in
        the rows' order; none: KeyError); on one level, df.loc[key]."""
        if axis not in (0, "index"):
            raise NotImplementedError("xs: axis 0 only")
        names = _index_as_columns(self)[2]
        keys = list(key) if isinstance(key, tuple) else [key]
        if level is None:
            at = list(range(len(keys)))
        else:
            at = [_level_at(names, x) for x in ([level] if _one(level) else list(level))]
        if len(at) != len(keys) or len(at) > len(names):
            raise ValueError("xs: %d keys for %d levels" % (len(keys), len(at)))
        if len(names) < 2:
            return _loc_one(self, key) if drop_level else self.loc[[key]]
        if drop_level and level is None and len(keys) == len(names):  # a row's key
            return _loc_levels(self, tuple(keys), None)

        def make(flat, idx, nms):
            for q, k in zip(at, keys):
                flat = flat[flat[idx[q]] == k]
            rest = [q for q in range(len(nms)) if not (drop_level and q in at)]
            if not rest:
                raise NotImplementedError("xs of a key of every level (a row): loc[key]")
            return flat.drop(columns=[idx[q] for q in range(len(nms)) if q not in rest]), \
                [idx[q] for q in rest], [nms[q] for q in rest]
        return _as_fetched(_relevelled(self, make), _some_rows(key))

class Series(_Frame):
    """A column of a DataFrame, or md.Series(data, name=None,
    chunk_rows=None, index=None, dtype=None): data a 1-D marsc tensor, a
    numpy array of numbers, a pandas Series (its type and index kept), or
    what pandas' Series takes (a list, a dict)."""

    def __init__(self, data, name=None, chunk_rows=None, index=None, dtype=None):
        import pandas as pd
        if not isinstance(data, (Entity, pd.Series)) and (
                index is not None or dtype is not None or not _numbers(data, 1)):
            data = pd.Series(data, index=index, dtype=dtype, name=name)
        if isinstance(data, pd.Series):
            self.__dict__.update(_local.series(data, data.name if name is None else name,
                                               chunk_rows).__dict__)
            return
        t = _as_tensor(data)
        # the engine's Series has a name: an unnamed one is renamed None
        p = {"name": "0" if name is None else name}
        if chunk_rows is not None:
            p["chunk_rows"] = int(chunk_rows)
        node = Node("dataframe.from_tensor", [t._ref], p, "series")
        if name is None:
            node = Node("dataframe.rename", [node], {"name": None}, "series")
        Entity.__init__(self, node, t._session)
        _after_create(self)

    def __repr__(self):
        return "Series <op=%s, key=%s>" % (self.op, self.key)

    def __getitem__(self, mask):
        """pandas' s[key]: a bool Series (the rows where it holds), a label
        (its value, fetched as pandas gives it: s.loc[label]), a list of
        labels, or a slice (of positions, of labels where they are not
        integers)"""
        mask = _called(mask, self)  # s[lambda x: x > 0], as pandas calls it
        if isinstance(mask, Series):
            return _make("dataframe.filter", [self, mask], None, "series")
        if isinstance(mask, slice):
            ends = (mask.start, mask.stop)
            if all(v is None or isinstance(v, (int, np.integer)) for v in ends):
                return self.iloc[mask]
            return self.loc[mask]
        if isinstance(mask, (list, tuple, np.ndarray)) or _one(mask) or \
                isinstance(mask, (float, np.floating, datetime.date)):
            return self.loc[mask]
        raise TypeError("a marsc Series is indexed by a boolean Series, a label, a list of "
                        "labels or a slice")

    def map(self, arg, na_action=None):
        """pandas' Series.map of a dict or a pandas Series (its index to its
        values): dataframe.map; of a function, as apply (its expression run
        over the whole column)."""
        series = hasattr(arg, "index") and hasattr(arg, "tolist")  # a pandas Series
        if callable(arg) and not series and not isinstance(arg, dict):
            return self.apply(arg)  # its expression over the whole column
        if series:
            keys, values = arg.index.tolist(), arg.tolist()
        elif isinstance(arg, dict):
            keys, values = list(arg.keys()), list(arg.values())
        else:
            raise TypeError("map takes a dict or a pandas Series, not %s" % type(arg).__name__)

        def scalar(x):
            return _lit(x.item() if isinstance(x, np.generic) else x)
        return _make("dataframe.map", [self], {"keys": [scalar(k) for k in keys],
                                               "values": [scalar(v) for v in values],
                                               "na_action": na_action},
                     "series", self._columns)

    def between(self, left, right, inclusive="both"):
        """pandas' between: left <= s <= right ("both"), or with "left",
        "right" or "neither" the ends that count; missing values are
        false."""
        if inclusive not in ("both", "left", "right", "neither"):
            raise ValueError('inclusive must be "both", "left", "right" or "neither"')
        lo = self >= left if inclusive in ("both", "left") else self > left
        hi = self <= right if inclusive in ("both", "right") else self < right
        return lo & hi

    def drop(self, labels=None, axis=0, index=None, columns=None, level=None, inplace=False,
             errors="raise"):
        """pandas' Series.drop: the rows whose index label is none of
        labels (or index), in order; a label found nowhere fails when it
        runs (pandas' KeyError), but with errors="ignore"."""
        if labels is not None and index is not None:
            raise ValueError("Cannot specify both 'labels' and 'index'/'columns'")
        rows = labels if labels is not None else index
        if rows is None:
            raise ValueError("Need to specify at least one of 'labels', 'index' or 'columns'")
        out = self._drop_rows(rows, level, errors)
        return _in_place(self, out) if inplace else out

    xs = DataFrame.xs  # of a Series of several index levels alike

    def reindex(self, index=None, fill_value=np.nan):
        """pandas' Series.reindex: a row per label (_reindexed_rows)"""
        if index is None:
            return self
        return _reindexed_rows(self, index, fill_value)

    def rename(self, index=None, inplace=False):
        """pandas' Series.rename: a name (a string, an integer or None)
        names the values anew; a dict or a function relabels the index
        (_relabelled)."""
        if callable(index) or isinstance(index, dict) or type(index).__module__.startswith(
                "pandas") and hasattr(index, "to_dict"):
            out = _relabelled(self, index if callable(index) or isinstance(index, dict)
                              else index.to_dict())
        else:
            out = _make("dataframe.rename", [self], {"name": index}, "series")
        return _in_place(self, out) if inplace else out

    def groupby(self, by=None, as_index=True, observed=False, dropna=True, level=None,
                sort=True):
        """pandas' s.groupby(by) with by Series of the same rows (or names of
        them): the Series and its keys side by side (their names known
        here), grouped; as df.groupby's. level: index levels (names or
        positions; s.groupby(level=0) of a groupby's result), their names
        known here: the index made columns, grouped by them."""
        me = _series_name(self._ref)
        if level is not None:
            if by is not None:
                raise TypeError("groupby takes by or level, not both")
            have = self._index_names
            if have is None:
                have = self.head(0)._ran().get("index_names") or [None]
            f, names, keys, tmp = _levels_named(self, level, list(have))
            if len(set(names)) != len(names):
                raise NotImplementedError(
                    "groupby(level=%r): the index's levels must differ (they are %r; "
                    "rename_axis names them)" % (level, names))
            col = me if me is not _UNKNOWN and me is not None and me not in names \
                else "_mars_values"
            flat = (f if col == me else f.rename(col)).reset_index()
            flat._columns = names + [col]
            g = _GroupByRenamed(flat.groupby(keys, as_index=as_index, observed=observed,
                                             dropna=dropna, sort=sort)[col],
                                me if col == me else None)
            return _LevelsShown(g, tmp, self)
        keys = list(by) if isinstance(by, (list, tuple)) else [by]
        if not all(isinstance(k, Series) for k in keys):
            raise NotImplementedError("Series.groupby takes Series of the same rows as keys")
        names = [_series_name(k._ref) for k in keys]
        if any(nm is _UNKNOWN or nm is None for nm in names) or me in names or \
                len(set(names)) != len(names):
            raise NotImplementedError("Series.groupby: the keys' names must be known here and "
                                      "differ from each other and from the Series' (rename() "
                                      "them)")
        values = self
        if me is _UNKNOWN or me is None:  # a name of its own while grouped, None after
            values = self.rename("_mars_values")
        both = concat([values] + keys, axis=1)
        col = "_mars_values" if values is not self else me
        both._columns = [col] + names
        both._cats = {n: k._cats[None] for n, k in zip(names, keys)
                      if k._cats and None in k._cats} or None
        return _GroupByRenamed(both.groupby(names, as_index=as_index, observed=observed,
                                            dropna=dropna, sort=sort)[col],
                               None if values is not self else me)

    def corr(self, other, method="pearson", min_periods=None):
        """pandas' Series.corr: the correlation of the rows where both have
        a value (a 0-d tensor)."""
        return self._pair("corr", other, method=method, min_periods=min_periods)

    def cov(self, other, min_periods=None, ddof=1):
        if ddof != 1:
            raise NotImplementedError("cov: ddof other than 1 is not supported")
        return self._pair("cov", other, min_periods=min_periods)

    def _pair(self, op, other, **kw):
        both = concat([self.rename("a"), other.rename("b")], axis=1)
        both._columns = ["a", "b"]
        if kw.get("method") == "spearman":  # pearson's of the ranks where both are present
            both = both.dropna().rank()
            both._columns = ["a", "b"]
            kw["method"] = "pearson"
        elif kw.get("method") not in (None, "pearson"):
            raise NotImplementedError("corr: method %r is not supported (pearson, spearman)"
                                      % (kw.get("method"),))
        m = getattr(both, op)(**{k: v for k, v in kw.items() if v is not None and
                                 not (k == "method" and v == "pearson")})
        return m.to_tensor()[0, 1]

    to_list, tolist, item = _Frame._export_one("to_list"), _Frame._export_one("tolist"), \
        _Frame._export_one("item")
    items = _Frame._export_one("items")

    def _monotonic(self, rising):
        """whether no value goes the other way from the one before, none
        missing (one task)"""
        from ..core import execute
        step = self.diff()
        bad, miss = ((step < 0) if rising else (step > 0)).sum(), self.isna().sum()
        execute(bad, miss)
        return int(bad.fetch()) == 0 and int(miss.fetch()) == 0

    @property
    def is_monotonic_increasing(self):
        """whether each value is at least the one before (it runs)"""
        return self._monotonic(True)

    @property
    def is_monotonic_decreasing(self):
        return self._monotonic(False)

    is_monotonic = is_monotonic_increasing

    def first_valid_index(self):
        """the label of the first value present (None: none; it runs)"""
        got = self.dropna().head(1).fetch()
        return got.index[0] if len(got) else None

    def last_valid_index(self):
        got = self.dropna().tail(1).fetch()
        return got.index[0] if len(got) else None

    def truncate(self, before=None, after=None):
        """the rows whose labels are from before to after (a sorted index),
        as loc[before:after]"""
        return self.loc[before:after]

    def keys(self):
        """the index (fetched)"""
        return self.index

    @property
    def array(self):
        """pandas' array of the fetched values"""
        return self.fetch().array

    def dot(self, other):
        """pandas' Series.dot of a Series of the same rows: the sum of the
        products (a scalar tensor), NaN where one is missing (numpy's dot)"""
        if not isinstance(other, Series):
            raise NotImplementedError("Series.dot takes a Series of the same rows here")
        from .. import tensor as mt
        prod = self * other
        return mt.where(prod.isna().any(), np.nan, prod.sum())

    __matmul__ = dot

    def autocorr(self, lag=1):
        """pandas' autocorr: the correlation with this Series shifted by lag
        (a scalar tensor)"""
        return self.corr(self.shift(int(lag)))

    def equals(self, other):
        """pandas' equals of the fetched values (both run)"""
        mine = self.fetch()
        return mine.equals(other.fetch() if isinstance(other, Entity) else other)

    def update(self, other):
        """pandas' Series.update, in place: other's values where they are
        present, found by label (a Series, or pandas' data)"""
        import pandas as pd
        if not isinstance(other, Series):
            other = Series(pd.Series(other))
        me, (_, that) = _left_aligned(self, [None, other], False)  # (no cond)
        new = _named_as(self, me.mask(that.notna(), that))
        self._ref = new._ref

    def align(self, other, join="outer", axis=None, level=None, copy=True, fill_value=None):
        """pandas' align of two Series: both on the union of their labels
        (join "outer": sorted where they differ, repeated labels joined),
        the labels both have ("inner": in this one's order), this one's
        ("left") or other's ("right"), a label one lacks NaN (or
        fill_value); a pair of Series"""
        if not isinstance(other, Series) or level is not None or axis not in (None, 0, "index"):
            raise NotImplementedError("align of two Series, along the rows, without level")
        if join not in ("outer", "inner", "left", "right"):
            raise ValueError("join must be 'outer', 'inner', 'left' or 'right'")
        if _same_rows(self, other):
            a, b = self, other
        elif join == "outer":
            a, b = _labels_aligned("add", [self, other], own_names=True)
        else:
            first, second = (other, self) if join == "right" else (self, other)
            side = _make("dataframe.concat",
                         [_make("dataframe.rename", [x], {"name": k}, "series")
                          for k, x in ((0, first), (1, second))],
                         {"axis": 1, "join": "inner" if join == "inner" else "left"},
                         "dataframe", [0, 1], index_names=first._index_names
                         if join != "inner" or first._index_names == second._index_names
                         else None)
            got = []
            for k, x in ((0, first), (1, second)):
                nm = _series_name(x._ref)
                col = _make("dataframe.getitem", [side], {"columns": k}, "series")
                got.append(_make("dataframe.rename", [col],
                                 {"name": None if nm is _UNKNOWN else nm}, "series"))
            a, b = got if join != "right" else got[::-1]
        if fill_value is not None:
            a, b = a.fillna(fill_value), b.fillna(fill_value)
        return a, b

    def reindex_like(self, other, method=None, copy=True, limit=None, tolerance=None):
        """pandas' reindex_like of a Series: this one's values on other's
        labels (a Series or DataFrame), NaN where it has none"""
        if method is not None or limit is not None or tolerance is not None:
            raise NotImplementedError("reindex_like: method, limit and tolerance are not "
                                      "supported")
        if not isinstance(other, _Frame):
            raise TypeError("reindex_like takes a Series or DataFrame")
        like = other if isinstance(other, Series) else \
            _make("dataframe.getitem", [other], {"columns": other.columns[0]}, "series")
        return self.align(like, join="right")[0]

    def combine_first(self, other):
        """pandas' combine_first of another Series of the same rows: this
        value, else other's"""
        if not isinstance(other, Series):
            raise NotImplementedError("combine_first takes a Series")
        me, other = _labels_aligned("add", [self, other])  # the union of the labels
        return _named_as(self, me.where(me.notna(), other))

    def argmax(self, axis=None, skipna=True):
        """the position of the largest value (the first of equal ones)"""
        return self.reset_index(drop=True).idxmax(skipna=skipna)

    def argmin(self, axis=None, skipna=True):
        return self.reset_index(drop=True).idxmin(skipna=skipna)

    def squeeze(self, axis=None):
        """pandas' squeeze: a Series of one row is its value (it runs to
        tell), else itself"""
        return self.iloc[0].fetch() if len(self) == 1 else self

    def to_frame(self, name=None):
        """pandas' Series.to_frame: a DataFrame of this one column (named
        name, else the Series' name, else 0)."""
        return concat([self if name is None else self.rename(name)], axis=1)

    @property
    def name(self):
        """the Series' name: known here, else the server's (it runs)"""
        nm = _series_name(self._ref)
        return self._ran().get("name") if nm is _UNKNOWN else nm

    @property
    def dtype(self):
        """numpy's dtype of the values (the server's: it runs)"""
        d = self._ran().get("dtype")
        narrow = self._narrow or {}
        d = narrow.get(None, narrow.get(self.name, d)) if narrow else d
        return np.dtype(object if d in ("string", "object") else d)

    @property
    def is_unique(self):
        """whether no value repeats (missing values count as one; it runs)"""
        return int(self.nunique(dropna=False).fetch()) == len(self)

    @property
    def hasnans(self):
        """whether a value is missing (it runs)"""
        return bool(self.isna().any().fetch())

    def reset_index(self, level=None, drop=False, name=None):
        """pandas' Series.reset_index: the index levels as columns before
        the values (named name, else the Series' own, else 0), a default
        index; drop=True keeps a Series with a default index. level: those
        levels only (DataFrame.reset_index's, of the Series' frame)."""
        if level is not None:
            names = _index_as_columns(self)[2]
            want = [level] if _one(level) else list(level)
            if len({_level_at(names, x) for x in want}) < len(names):
                if drop:
                    return _levels_kept(self, level, drop=True)
                nm = name if name is not None else _series_name(self._ref)
                nm = self.head(0).name if nm is _UNKNOWN else nm
                return concat([self.rename(0 if nm is None else nm)], axis=1).reset_index(level)
        s = self if name is None else self.rename(name)
        if drop:
            return _make("dataframe.reset_index", [s], {"drop": True}, "series", index_names=None)
        return _make("dataframe.reset_index", [s], None, "dataframe", index_names=None)

    def sort_values(self, ascending=True, na_position="last", kind=None):
        """pandas' Series.sort_values, stable (kind="mergesort", whatever
        kind says), missing values last or first (na_position)."""
        _sort_kind(kind)
        return self._rows("sort_values", ascending=None if ascending is True else bool(ascending),
                          na_position=None if na_position == "last" else na_position)

    def unique(self):
        """pandas' Series.unique: the distinct values in order of first
        appearance, missing values too (drop_duplicates); fetched as an
        array, as pandas returns one."""
        out = _make("dataframe.drop_duplicates", [self], None, "series", self._columns)
        out.__class__ = _Unique
        return out

    def explode(self, ignore_index=False):
        """pandas' Series.explode: the cluster's Series hold scalars, each
        its own row (a split's parts: s.str.split(pat).explode())"""
        return self.reset_index(drop=True) if ignore_index else self.copy()

    def value_counts(self, normalize=False, sort=True, ascending=False, dropna=True):
        """Counts per value, descending (the values become the index);
        pandas' keywords (dataframe.value_counts)."""
        p = {"normalize": bool(normalize) or None, "sort": None if sort else False,
             "ascending": bool(ascending) or None, "dropna": None if dropna else False}
        return _make("dataframe.value_counts", [self], {k: v for k, v in p.items() if v is not None},
                     "series", index_names=None)

    @property
    def dt(self):
        """pandas' dt accessor of a datetime64[ns] Series (read_csv's
        parse_dates): year, month, day, hour, minute, second, dayofweek,
        dayofyear, quarter, date ...; of a timedelta64[ns] Series (a
        difference of datetimes): days, seconds, microseconds, nanoseconds,
        total_seconds(), floor, ceil, round."""
        return _Dt(self)

    @property
    def str(self):
        """pandas' str accessor of a Series of strings: lower, upper,
        title, capitalize, swapcase, casefold, len, strip, lstrip, rstrip, slice (and
        s.str[a:b]), get (and s.str[i]), contains, startswith, endswith,
        match, fullmatch, count, find, rfind, replace, zfill, pad, center,
        ljust, rjust, repeat, isalpha ... istitle, and split(...).str[i]
        (the ops dataframe.str.*)."""
        return _Str(self)


class _LocOneRows:
    """What one label selects, fetched as pandas gives it: a label of one
    row gives that row (a frame's: a Series named by the label, over the
    columns; a Series': its value), a label of several rows gives them all
    (pandas' result for a repeated label), no row a KeyError."""
    _label = None

    def _one(self, got):
        if len(got) == 0:
            raise KeyError(self._label)
        return got.iloc[0] if len(got) == 1 else got

    def _wrap(self, out):
        if isinstance(out, (DataFrame, Series)) and type(out) in (DataFrame, Series):
            out.__class__ = _LocOneSeries if isinstance(out, Series) else _LocOne
            out._label = self._label
        return out


    def _got(self, cls, session):
        from ..errors import TaskError
        try:
            return self._one(cls.fetch(self, session))
        except TaskError as e:
            if "not in index" in str(e):  # the label's job: pandas' KeyError
                raise KeyError(self._label) from e
            raise


class _LocOneSeries(_LocOneRows, Series):
    def fetch(self, session=None):
        return self._got(Series, session)


class _LocOne(_LocOneRows, DataFrame):
    def fetch(self, session=None):
        return self._got(DataFrame, session)

    def __getitem__(self, key):
        out = DataFrame.__getitem__(self, key)
        return out if isinstance(key, Series) else self._wrap(out)

    def __getattr__(self, name):
        return self._wrap(DataFrame.__getattr__(self, name))


def _as_fetched(out, fn, keep=False):
    """out, fetched as fn makes of the fetched pandas object; keep: fn is
    of the index's shape only (a one-level MultiIndex), so the ops that
    keep rows as they are (head, sort_values ...) keep it too (_make); a
    function of the op: where it says"""
    out._fetched, out._fetched_keeps = fn, keep
    return out


# the frame ops after which the index is the input's, row for row (the
# element-wise ops, named as numpy's, all keep it)
_INDEX_KEPT = ("dataframe.head", "dataframe.tail", "dataframe.getitem", "dataframe.cumsum",
               "dataframe.cumprod", "dataframe.cummax", "dataframe.cummin", "dataframe.diff",
               "dataframe.shift", "dataframe.pct_change", "dataframe.rolling",
               "dataframe.expanding", "dataframe.ewm", "dataframe.round", "dataframe.fillna",
               "dataframe.abs", "dataframe.clip", "dataframe.astype", "dataframe.rename",
               "dataframe.isna", "dataframe.notna", "dataframe.interpolate", "dataframe.rank",
               "dataframe.replace", "dataframe.assign")


# the numeric dtypes a frame's column is held widened to int64 or float64
# as (docs/python-client.md, "Local data")
_NARROW = ("int8", "int16", "int32", "uint8", "uint16", "uint32", "uint64", "float32")
# the ops whose output keeps its input's values as they are: a narrower dtype
# (_narrowed) and a split's lists (_assigned) are fetched through them
_VALUES_KEPT = ("dataframe.head", "dataframe.tail", "dataframe.sort_values",
                "dataframe.sort_index", "dataframe.filter", "dataframe.iloc", "dataframe.loc",
                "dataframe.sample", "dataframe.dropna", "dataframe.getitem", "dataframe.query",
                "dataframe.drop_duplicates", "dataframe.nlargest", "dataframe.nsmallest")


def _narrowed(out, types, before=None):
    """out, fetched with numpy's narrower dtypes types ({column: name}, a
    Series' values under None) beside those it had (before): the values
    were converted on the cluster (int8's wrap-around, float32's rounding)
    and held widened"""
    import pandas as pd
    if None not in types and before:
        types = {**before, **types}
    if not types:
        return out

    def fn(got):
        if isinstance(got, pd.Series):
            t = types.get(None, types.get(got.name))
            return got if t is None or got.dtype.kind not in "iuf" else got.astype(t)
        if isinstance(got, pd.DataFrame):
            return got.astype({c: t for c, t in types.items()
                               if c in got.columns and got[c].dtype.kind in "iuf"})
        return got
    out = _as_fetched(out, fn, _VALUES_KEPT.__contains__)
    out._narrow = types
    return out


def _keeps_index(op):
    """whether op's output has its first input's index (a resample's freq
    stays on it, as pandas')"""
    return op in _INDEX_KEPT or not op.startswith("dataframe.")


def _with_freq(rule):
    """the fetched index given pandas' freq `rule` where its labels keep
    to it (pandas checks; else it stays None, as after a filter)"""
    def fn(got):
        from pandas.tseries.frequencies import to_offset
        try:
            if len(got):
                got.index.freq = to_offset(rule)
        except (ValueError, TypeError, AttributeError):
            pass
        return got
    return fn


def _axis_named(name):
    """the fetched frame's columns named (unstack's level, pivot's
    `columns`: pandas' columns.name, which the engine's frames lack)"""
    def fn(got):
        got.columns.name = name
        return got
    fn.axis_name = name  # (stack names its new level so)
    return fn


def _one_level(got):
    """the fetched index as pandas' MultiIndex of one level"""
    import pandas as pd
    got.index = pd.MultiIndex.from_arrays([got.index])
    return got


def _nan_levels(got):
    """a groupby(dropna=False) result's MultiIndex as pandas builds it: a
    missing key is NaN among its level's values (the engine's codes it -1)"""
    import pandas as pd
    idx = got.index
    if not isinstance(idx, pd.MultiIndex):
        return got
    levels, codes = [], []
    for i in range(idx.nlevels):
        lev, code = idx.levels[i], np.asarray(idx.codes[i])
        if (code < 0).any():
            lev = lev.append(pd.Index([np.nan], dtype=object if lev.dtype == object
                                      else np.float64))
            code = np.where(code < 0, len(lev) - 1, code)
        levels.append(lev)
        codes.append(code)
    got.index = pd.MultiIndex(levels=levels, codes=codes, names=idx.names)
    return got


def _some_rows(label):
    """no fetched row is pandas' KeyError of the label (xs)"""
    def fn(got):
        if len(got) == 0:
            raise KeyError(label)
        return got
    return fn


class _Unique(Series):
    """A Series' unique(): its distinct values in order of first appearance
    (drop_duplicates), fetched as pandas gives them, an array."""

    def __repr__(self):
        return "Unique <op=%s, key=%s>" % (self.op, self.key)

    def fetch(self, session=None):
        return Series.fetch(self, session).unique()

    def __iter__(self):
        """pandas' unique() is an array: iterating fetches it"""
        return iter(self.fetch())



_TEXT_OPS = {"dataframe.str." + x for x in (
    "lower", "upper", "title", "capitalize", "swapcase", "casefold", "strip", "lstrip", "rstrip",
    "slice",
    "get", "replace", "zfill", "pad", "center", "ljust", "rjust", "repeat", "cat", "extract")} | \
    {"dataframe.dt.strftime", "dataframe.dt.day_name", "dataframe.dt.month_name"}


_FILE_TYPES = weakref.WeakKeyDictionary()  # read_csv node -> its columns' dtypes


def _holds_text(s):
    """whether the Series s holds strings, as far as its meta (it ran) or
    the graph tell: a str method's or strftime's result, astype(str), a
    column read_csv was told is str, through the ops that keep values; a
    column of a file's own type is learnt from head(0) of the file (its
    schema: no chunk is parsed for it)"""
    from ..core import _ROW_OPS
    m = s._meta()
    if m and "dtype" in m:
        return m["dtype"] in ("object", "string")
    node, col = s._ref.node, None
    for _ in range(200):
        op, p = node.op or "", node.params
        if op in _TEXT_OPS:
            return True
        if op == "dataframe.astype":
            d = p.get("dtype")
            d = d.get(col) if isinstance(d, dict) else d
            if d is not None:
                return d in ("object", "str")
        elif op == "dataframe.read_csv":
            d = p.get("dtype")
            d = d.get(col) if isinstance(d, dict) else d
            if d is not None:
                return d == "object"
            if col is None or col in (p.get("parse_dates") or []):
                return False
            if node not in _FILE_TYPES:  # once per read_csv node
                head = DataFrame.__new__(DataFrame)
                Entity.__init__(head, node, s._session)
                head._columns, head._index_names = None, [None]
                _FILE_TYPES[node] = head.head(0)._ran()["dtypes"]
            return _FILE_TYPES[node].get(col) in ("object", "string")
        elif op == "dataframe.getitem" and isinstance(p.get("columns"), (str, int)):
            col = p["columns"]
        elif op == "dataframe.assign" and col is not None and col in p.get("names", []):
            node, col = node.inputs[1 + p["names"].index(col)].node, None
            continue
        elif op == "dataframe.rename" and col is not None and isinstance(p.get("columns"), dict):
            col = {new: old for old, new in p["columns"].items()}.get(col, col)
        elif not (op in _ROW_OPS or op == "dataframe.assign"):
            return False
        if not node.inputs or not hasattr(node.inputs[0], "node"):
            return False
        node = node.inputs[0].node
    return False


def _text_extreme(s, how):
    """a Series of strings' min or max (the engine's reductions take
    numbers): the groupby aggregation of one key over every row, fetched as
    pandas' scalar"""
    out = getattr(_one_group(s.rename("__marsc_v__").to_frame(), "__marsc_v__"), how)()
    out.__class__ = _Label
    return out


class _Label(Series):
    """A Series' idxmax or idxmin: the engine's one-row Series, fetched as
    pandas' scalar label."""

    def __repr__(self):
        return "Label <op=%s, key=%s>" % (self.op, self.key)

    def fetch(self, session=None):
        got = Series.fetch(self, session)
        v = got.iloc[0] if len(got) else None
        return np.nan if v is None or v != v else v  # no value: pandas' NaN


_CLASSES = {"d": "0-9", "s": "[:space:]", "w": "[:alnum:]_"}
_CONTROLS = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\v"}


_ERE_SPECIAL = ".^$*+?{}[]\\|()"


def _ere_literal(text):
    """text as a POSIX extended expression matching it literally: its
    special characters escaped (regcomp's own syntax, not _posix's)"""
    return "".join("\\" + c if c in _ERE_SPECIAL else c for c in text)


def _posix(pat):
    """Python's re pattern pat as the POSIX extended pattern the cluster
    runs (glibc's regcomp, which reads \\b \\B and back-references as re,
    other escaped letters as the letter, and a backslash inside brackets as
    itself; the cluster refuses those): \\d \\s \\w and \\D \\S \\W as
    bracket classes (inside brackets too, the lowercase ones), \\t \\n \\r
    \\f \\v as the characters, an escaped punctuation character as it is;
    what has no such form (\\A, \\Z ...) is refused by name. A dot outside
    brackets is [^\\n], as re's (regcomp's dot takes a line end too)."""
    if not isinstance(pat, str) or ("\\" not in pat and "." not in pat):
        return pat
    out, i, inside = [], 0, False
    while i < len(pat):
        c = pat[i]
        if inside and c == "[" and pat[i + 1:i + 2] in (":", ".", "="):
            end = pat.find(pat[i + 1] + "]", i + 2)  # [:alpha:] as it is
            if end < 0:
                break
            out.append(pat[i:end + 2])
            i = end + 2
            continue
        if c == "\\" and i + 1 < len(pat):
            e = pat[i + 1]
            i += 2
            if e in _CLASSES:
                out.append(_CLASSES[e] if inside else "[" + _CLASSES[e] + "]")
            elif e.lower() in _CLASSES and not inside:
                out.append("[^" + _CLASSES[e.lower()] + "]")
            elif e in _CONTROLS:
                out.append(_CONTROLS[e])
            elif not inside and e in "bB123456789":  # as re's, in glibc's regcomp
                out.append("\\" + e)
            elif not e.isalnum() and not (inside and e in "]^-"):
                out.append(e if inside else "\\" + e)
            else:
                raise NotImplementedError(
                    "the pattern %r: \\%s has no POSIX extended form (the cluster's regular "
                    "expressions are regcomp's)" % (pat, e))
            continue
        if not inside and c == "[":
            inside = True
            out.append(c)
            i += 1
            if pat[i:i + 1] == "^":
                out.append("^")
                i += 1
            if pat[i:i + 1] == "]":  # a leading ] is one of the set
                out.append("]")
                i += 1
            continue
        if inside and c == "]":
            inside = False
        out.append("[^\n]" if c == "." and not inside else c)
        i += 1
    return "".join(out)


class _Str:
    def __init__(self, s):
        self._s = s

    def _op(self, name, **params):
        return _make("dataframe.str." + name, [self._s],
                     {k: v for k, v in params.items() if v is not None}, "series")

    def lower(self):
        return self._op("lower")

    def upper(self):
        return self._op("upper")

    def len(self):
        return self._op("len")

    def strip(self, to_strip=None):
        return self._op("strip", to_strip=to_strip)

    def slice(self, start=None, stop=None, step=None):
        return self._op("slice", start=start, stop=stop, step=step)

    def __getitem__(self, key):
        """s.str[a:b:c] and s.str[i] (missing past either end), as pandas."""
        if isinstance(key, slice):
            return self.slice(key.start, key.stop, key.step)
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            return self.get(int(key))
        raise TypeError("s.str[...] takes a slice or an integer")

    def get(self, i):
        return self._op("get", i=int(i))

    def lstrip(self, to_strip=None):
        return self._op("lstrip", to_strip=to_strip)

    def rstrip(self, to_strip=None):
        return self._op("rstrip", to_strip=to_strip)

    def title(self): return self._op("title")  # noqa: E704
    def capitalize(self): return self._op("capitalize")  # noqa: E704
    def swapcase(self): return self._op("swapcase")  # noqa: E704
    def casefold(self): return self._op("casefold")  # noqa: E704
    def isalpha(self): return self._op("isalpha")  # noqa: E704
    def isalnum(self): return self._op("isalnum")  # noqa: E704
    def isdigit(self): return self._op("isdigit")  # noqa: E704
    def isdecimal(self): return self._op("isdecimal")  # noqa: E704
    def isnumeric(self): return self._op("isnumeric")  # noqa: E704
    def isspace(self): return self._op("isspace")  # noqa: E704
    def islower(self): return self._op("islower")  # noqa: E704
    def isupper(self): return self._op("isupper")  # noqa: E704
    def istitle(self): return self._op("istitle")  # noqa: E704

    def zfill(self, width):
        return self._op("zfill", width=int(width))

    def pad(self, width, side="left", fillchar=" "):
        return self._op("pad", width=int(width), side=side,
                        fillchar=None if fillchar == " " else fillchar)

    def center(self, width, fillchar=" "):
        return self._op("center", width=int(width), fillchar=None if fillchar == " " else fillchar)

    def ljust(self, width, fillchar=" "):
        return self._op("ljust", width=int(width), fillchar=None if fillchar == " " else fillchar)

    def rjust(self, width, fillchar=" "):
        return self._op("rjust", width=int(width), fillchar=None if fillchar == " " else fillchar)

    def find(self, sub, start=0, end=None):
        return self._op("find", sub=sub, start=int(start) if start else None,
                        end=None if end is None else int(end))

    def rfind(self, sub, start=0, end=None):
        return self._op("rfind", sub=sub, start=int(start) if start else None,
                        end=None if end is None else int(end))

    def count(self, pat, flags=0):
        if flags:
            raise NotImplementedError("str.count: flags are not supported")
        return self._op("count", pat=_posix(pat))

    def cat(self, others=None, sep=None, na_rep=None, join="left"):
        """pandas' str.cat with others (a Series or a list of them, of the
        same rows): each row's strings joined by sep, missing where one is
        (na_rep: written in its place). Without others, the whole Series
        joined into one Python string (fetched, as pandas returns a str)."""
        if others is None:
            # one string of the whole Series, as pandas returns: fetched here
            return self._s.fetch().str.cat(sep=sep, na_rep=na_rep)
        if join != "left":
            raise NotImplementedError("str.cat: join other than 'left' is not supported")
        parts = [self._s] + (list(others) if isinstance(others, (list, tuple)) else [others])
        if na_rep is not None:
            parts = [p.fillna(na_rep) for p in parts]
        out = parts[0]
        for p in parts[1:]:
            out = out + sep + p if sep else out + p
        # pandas names the result after the caller: known here when it is a
        # column taken from a frame (else the engine's rule: no name)
        node = self._s._ref
        if node.op == "dataframe.getitem" and isinstance(node.params.get("columns"), (str, int)):
            return out.rename(node.params["columns"])
        if node.op == "dataframe.rename" and "name" in node.params:
            return out.rename(node.params["name"])
        return out

    def slice_replace(self, start=None, stop=None, repl=None):
        """pandas' str.slice_replace: the text before start, repl, then (stop
        given) the text from stop, or from start where [start:stop] holds
        nothing, as pandas' Python does; of slices and a where"""
        repl = "" if repl is None else repl
        s = self._s
        out = s.str.slice(0, start) + repl if start is not None else \
            s.str.slice(0, 0) + repl
        if stop is None:
            return _named_as(s, out)
        empty = s.str.slice(start, stop).str.len() == 0
        tail = s.str.slice(start).where(empty, s.str.slice(stop))
        return _named_as(s, out + tail)

    def partition(self, sep=" ", expand=True):
        """pandas' str.partition: columns 0, 1, 2: the text before the first
        sep, sep, the text after it; (value, '', '') where sep is absent;
        missing where the value is"""
        return self._parted(sep, expand, False)

    def rpartition(self, sep=" ", expand=True):
        """pandas' str.rpartition: as partition at the last sep; ('', '',
        value) where sep is absent"""
        return self._parted(sep, expand, True)

    def _parted(self, sep, expand, last):
        if not expand:
            raise NotImplementedError("str.%spartition(expand=False): a column of tuples is not "
                                      "held" % ("r" if last else ""))
        if not isinstance(sep, str):
            raise TypeError("must be str, not %s" % type(sep).__name__)
        if not sep:
            raise ValueError("empty separator")
        s = self._s
        empty = s.str.slice(0, 0)  # '' where s holds a value, missing where it does not
        has = self.contains(sep, regex=False, na=False)
        if last:  # POSIX's leftmost-longest: the first group runs to the last sep
            # (regcomp's own pattern, not _posix's: its dot takes line ends too)
            ext = _make("dataframe.str.extract", [s],
                        {"pat": "^(.*)" + _ere_literal(sep) + "(.*)$"},
                        "dataframe", [0, 1])
            before, after = ext[0].where(has, empty), ext[1].where(has, s)
        else:
            sp = _Split(s, sep, 1)
            before, after = sp.get(0), sp.get(1).where(has, empty)
        return concat([before.rename(0), empty.mask(has, sep).rename(1), after.rename(2)],
                      axis=1)

    def extract(self, pat, flags=0, expand=True):
        """pandas' str.extract: a column of strings per capture group (POSIX
        extended, with Python's (?P<name>...) and (?:...) groups); expand
        False with one group gives a Series. flags: 0 or re.IGNORECASE."""
        import re
        if flags not in (0, re.IGNORECASE):
            raise NotImplementedError("str.extract: flags other than re.IGNORECASE")
        one = not expand and re.compile(pat).groups == 1
        return _make("dataframe.str.extract", [self._s],
                     {"pat": _posix(pat), "flags": int(flags) or None,
                      "expand": None if expand else False},
                     "series" if one else "dataframe")

    def match(self, pat, case=True, flags=0, na=None):
        if flags or na is not None:
            raise NotImplementedError("str.match: flags and na are not supported")
        return self._op("match", pat=_posix(pat), case=None if case else False)

    def fullmatch(self, pat, case=True, flags=0, na=None):
        if flags or na is not None:
            raise NotImplementedError("str.fullmatch: flags and na are not supported")
        return self._op("fullmatch", pat=_posix(pat), case=None if case else False)

    def repeat(self, repeats):
        if not isinstance(repeats, (int, np.integer)):
            raise NotImplementedError("str.repeat: a sequence of counts is not supported")
        return self._op("repeat", repeats=int(repeats))

    def contains(self, pat, case=True, flags=0, na=None, regex=True):
        """na: the result where a value is missing (pandas' na=False, the
        usual mask); flags: re.IGNORECASE only (case=False)."""
        import re
        if flags & ~re.IGNORECASE:
            raise NotImplementedError("str.contains: flags other than re.IGNORECASE are not "
                                      "supported")
        if flags:
            case = False
        return self._na(self._op("contains", pat=_posix(pat) if regex else pat,
                                 case=None if case else False,
                                 regex=None if regex else False), na)

    def startswith(self, pat, na=None):
        return self._na(self._op("startswith", pat=pat), na)

    def endswith(self, pat, na=None):
        return self._na(self._op("endswith", pat=pat), na)

    @staticmethod
    def _na(out, na):
        """a predicate's missing values (where the string is) as na"""
        if na is None or (isinstance(na, float) and na != na):
            return out
        if not isinstance(na, (bool, np.bool_)):
            raise NotImplementedError("str predicates: na must be True or False (a value of "
                                      "another type would mix types in the column)")
        return out.fillna(bool(na))

    def replace(self, pat, repl, n=-1, case=None, flags=0, regex=False):
        """regex defaults to False (pandas 2's default; 1.5's was True)."""
        if flags or callable(repl):
            raise NotImplementedError("str.replace: flags and a callable repl are not supported")
        return self._op("replace", pat=_posix(pat) if regex else pat, repl=repl,
                        n=None if n == -1 else n,
                        regex=True if regex else None, case=case)

    def split(self, pat=None, n=-1, expand=False):
        """s.str.split(pat, n): index it, .str[i] or .str.get(i) (negative
        from the end); a column of lists is not held."""
        if expand:
            return self._split_expand(pat, n)
        return _Split(self._s, pat, n)

    def rsplit(self, pat=None, n=-1, expand=False):
        """s.str.rsplit(pat, n): split's parts, from the right: without n
        split's own; with n its last n parts (.str[-k], k <= n), which
        are split's too"""
        if n in (-1, None, 0):
            out = self.split(pat, -1, expand)
            if isinstance(out, _Split):
                out._literal = True  # (rsplit's pat is never a regular expression)
            return out
        if expand:
            raise NotImplementedError("str.rsplit(n=..., expand=True) is not supported")
        return _Split(self._s, pat, -1, last=int(n))

    def findall(self, pat, flags=0):
        """s.str.findall(pat): a column of lists is not held; its
        .str.len() is count(pat)"""
        return _Findall(self, pat, flags)

    def removeprefix(self, prefix):
        """the value without prefix where it starts with it"""
        s = self._s
        return s.where(~self.startswith(prefix, na=False), self.slice(len(prefix)))

    def removesuffix(self, suffix):
        """the value without suffix where it ends with it"""
        s = self._s
        if not suffix:
            return s.copy()
        return s.where(~self.endswith(suffix, na=False), self.slice(None, -len(suffix)))

    def get_dummies(self, sep="|"):
        """pandas' str.get_dummies: a column per token (the values split by
        sep; the tokens found first, a task of their own), sorted, 1 where
        the value holds it (int64)"""
        from ..core import execute
        toks = _Split(self._s, sep, -1).explode().dropna().drop_duplicates()
        execute(toks)
        names = sorted(t for t in toks.fetch().tolist() if t != "")
        wrapped = (sep + self._s + sep).fillna("")
        cols = [wrapped.str.contains(sep + t + sep, regex=False).astype("int64").rename(t)
                for t in names]
        if not cols:
            raise NotImplementedError("str.get_dummies of values without a token")
        return concat(cols, axis=1)

    def _split_expand(self, pat, n):
        """split(pat, n, expand=True): a column per part, 0 .. the most parts
        of any value (counted first: the counts run as a task), missing
        where a value has fewer, as pandas'. pat a literal (a single
        character, or text pandas 1.5 takes as a regular expression only
        when it has none of its special characters)."""
        if pat is None or pat == "":
            raise NotImplementedError("str.split(expand=True) takes a separator here (pat)")
        if len(pat) > 1 and set(_ERE_SPECIAL) & set(pat):
            raise NotImplementedError("str.split(expand=True): pat %r would be a regular "
                                      "expression in pandas; a literal is supported" % pat)
        most = self._s.str.count(_ere_literal(pat)).max().fetch()
        most = 0 if most is None or np.isnan(most) else int(most)
        parts = most + 1 if n in (-1, None, 0) else min(most, int(n)) + 1
        sp = _Split(self._s, pat, n)
        cols = [sp.get(i).rename(i) for i in range(parts)]
        return concat(cols, axis=1)


class _Findall:
    """s.str.findall(pat) before its .str.len()"""

    def __init__(self, st, pat, flags):
        self._st, self._pat, self._flags = st, pat, flags

    @property
    def str(self):
        return self

    def len(self):
        return self._st.count(self._pat, self._flags)


# Python's str.isspace code points as a POSIX bracket's inside (the
# cluster's expressions run in C.UTF-8, whose [:space:] lacks the
# no-break spaces and the separators \x1c-\x1f, \x85)
_PY_SPACE = "[:space:]" + "".join(c for c in map(chr, range(0x3001)) if c.isspace())


class _Split:
    """s.str.split(pat, n) before its .str[i] (an rsplit of n: its last
    parts only)."""

    def __init__(self, s, pat, n, last=None):
        self._s, self._pat, self._n, self._last = s, pat, n, last
        self._literal = last is not None

    @property
    def str(self):
        return self

    def get(self, i):
        if self._last is not None and not -self._last <= int(i) < 0:
            raise NotImplementedError("str.rsplit(n=%d) takes .str[i] for i from -%d to -1 here"
                                      % (self._last, self._last))
        p = {"get": int(i)}
        if self._pat is not None:
            p["pat"] = self._pat
        if self._n not in (-1, None):
            p["n"] = int(self._n)
        return _make("dataframe.str.split", [self._s], p, "series")

    def __getitem__(self, i):
        if not isinstance(i, int):
            raise TypeError("split(...).str[i] takes an integer")
        return self.get(i)

    def len(self):
        """the parts' count, as pandas' s.str.split(pat, n).str.len(): the
        separators counted, plus one (pat of one character, and rsplit's:
        literal; any other a regular expression, as pandas 1.5 splits by
        it), or without pat the runs of what Python's isspace does not
        hold; at most n + 1; missing stays missing"""
        s = self._s
        n = self._last if self._last is not None else \
            None if self._n in (-1, None, 0) else int(self._n)
        if self._pat is None:
            parts = s.str.count("[^" + _PY_SPACE + "]+")
        elif len(self._pat) == 1 or self._literal:
            parts = s.str.count(_ere_literal(self._pat)) + 1
        else:
            parts = s.str.count(self._pat) + 1
        return parts if n is None else parts.clip(upper=n + 1)

    def explode(self, ignore_index=False):
        """pandas' s.str.split(pat).explode(): a row per part, in order,
        each labelled as its value's row (a missing value stays one missing
        row). The parts as split(expand=True)'s columns (the most parts
        counted first), melted into rows numbered first, sorted back into
        row order, the parts past a value's own dropped."""
        s = self._s
        wide = _Str(s)._split_expand(self._pat, self._n)
        k = len(wide.columns)
        pos, var, val = "_marsc_pos", "_marsc_col", "_marsc_val"
        cols = ["_marsc_p%d" % q for q in range(k)]
        flat, idx, names = _numbered_rows(wide.rename(columns=dict(zip(range(k), cols))))
        long = flat.melt(id_vars=idx + [pos], value_vars=cols, var_name=var, value_name=val)
        long = long.assign(**{var: long[var].map({c: q for q, c in enumerate(cols)})})
        # a value has its first part (a missing one: one missing row)
        long = long[long[val].notna() | (long[var] == 0)]
        long = long.sort_values([pos, var])
        if ignore_index:
            return long[val].reset_index(drop=True).rename(_series_name(s._ref))
        return long.set_index(idx)[val].rename_axis(names).rename(_series_name(s._ref))


class _Dt:
    def __init__(self, s):
        self._s = s

    def _field(name):  # noqa: N805 - a factory used in the class body
        def get(self):
            out = _make("dataframe.dt." + name, [self._s], None, "series")
            if self._periods():  # pandas' fields of periods: -1 for NaT, int64
                return out.fillna(-1).astype("int64")
            return out
        get.__name__ = name
        get.__doc__ = "Series.dt.%s (dataframe.dt.%s)" % (name, name)
        return property(get)

    year = _field("year")
    month = _field("month")
    day = _field("day")
    hour = _field("hour")
    minute = _field("minute")
    second = _field("second")
    dayofweek = _field("dayofweek")
    weekday = dayofweek
    dayofyear = _field("dayofyear")
    quarter = _field("quarter")
    week = _field("week")  # pandas 1.5's (deprecated there): the ISO week
    weekofyear = week
    date = _field("date")
    days_in_month = _field("days_in_month")
    daysinmonth = days_in_month
    is_month_start = _field("is_month_start")
    is_month_end = _field("is_month_end")
    is_quarter_start = _field("is_quarter_start")
    is_quarter_end = _field("is_quarter_end")
    is_year_start = _field("is_year_start")
    is_year_end = _field("is_year_end")
    is_leap_year = _field("is_leap_year")
    # a timedelta Series' fields (a difference of datetimes)
    days = _field("days")
    seconds = _field("seconds")
    microseconds = _field("microseconds")
    nanoseconds = _field("nanoseconds")
    del _field

    def isocalendar(self):
        """Series.dt.isocalendar(): a DataFrame of the ISO year, week and
        day (Monday 1), fetched as pandas' UInt32 columns (<NA> for NaT;
        the cluster's are int64, float64 where a NaT is)"""
        out = _make("dataframe.dt.isocalendar", [self._s], None, "dataframe",
                    ["year", "week", "day"])
        return _as_fetched(out, lambda got: got.astype("UInt32"), _VALUES_KEPT.__contains__)

    def _to(self, how, freq):
        if not isinstance(freq, str):
            raise TypeError("dt.%s: freq must be a string such as 'D', 'h' or '15min'" % how)
        return _make("dataframe.dt." + how, [self._s], {"freq": freq}, "series")

    def floor(self, freq):
        """Series.dt.floor(freq): to a fixed frequency ('D', 'h', '15min' ...)"""
        return self._to("floor", freq)

    def ceil(self, freq):
        """Series.dt.ceil(freq)"""
        return self._to("ceil", freq)

    def round(self, freq):
        """Series.dt.round(freq), half to even as pandas"""
        return self._to("round", freq)

    def normalize(self):
        """Series.dt.normalize(): each datetime at midnight"""
        return _make("dataframe.dt.normalize", [self._s], None, "series")

    def tz_localize(self, tz, ambiguous="raise", nonexistent="raise"):
        """pandas' tz_localize(None) of naive datetimes: the Series as it is
        (the cluster's datetimes hold no time zone; another tz is refused)"""
        if tz is not None:
            raise NotImplementedError("dt.tz_localize(%r): the cluster's datetimes hold no time "
                                      "zone (convert them to naive local or UTC times first)"
                                      % (tz,))
        return self._s

    def day_name(self):
        """Series.dt.day_name(): 'Monday' ... (English, as pandas' default)"""
        return _make("dataframe.dt.day_name", [self._s], None, "series")

    def month_name(self):
        """Series.dt.month_name(): 'January' ..."""
        return _make("dataframe.dt.month_name", [self._s], None, "series")

    def strftime(self, date_format):
        """Series.dt.strftime(date_format): strings as Python's strftime"""
        return _make("dataframe.dt.strftime", [self._s], {"date_format": date_format},
                     "series")

    def total_seconds(self):
        """Series.dt.total_seconds() of a timedelta Series: float64"""
        return _make("dataframe.dt.total_seconds", [self._s], None, "series")

    def to_period(self, freq=None):
        """Series.dt.to_period(freq): pandas' periods (D, H, T/min, S, W, M,
        Q, A/Y), held on the cluster as each period's start
        (_carried.to_period)"""
        if freq is None:
            raise NotImplementedError("dt.to_period takes a freq here (the data's own is not "
                                      "known)")
        return _carried_to_period(self._s, freq)

    @property
    def start_time(self):
        """of periods (dt.to_period): each period's start, a datetime"""
        return self._period_start("start_time")

    def to_timestamp(self):
        """of periods (dt.to_period): each period's start, a datetime"""
        return self._period_start("to_timestamp")

    def _periods(self):
        """whether the Series holds periods (dt.to_period)"""
        d = self._s._cats.get(None) if self._s._cats else None
        return d is not None and str(d).startswith("period")

    def _period_start(self, what):
        if not self._periods():
            raise AttributeError("dt.%s is of periods (dt.to_period)" % what)
        return _carried_plain(self._s)


# ---- groupby filter: the function's expression, over groupby transforms ----

def _function_expr(func, what="groupby filter"):
    """The expression a groupby filter's function returns, as an ast node:
    a lambda's body (found in its source line(s) by its argument names, the
    names and the constants it uses), or a def's single return."""
    import ast
    import inspect
    import textwrap
    code = getattr(func, "__code__", None)
    if code is None:
        raise TypeError("%s takes a function (a lambda or a def), got %r" % (what, func))
    try:
        src = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        raise NotImplementedError("%s: the source of %r is not available (marsc reads the "
                                  "function's expression from its source)" % (what, func))
    args = list(code.co_varnames[:code.co_argcount])
    if len(args) != 1:
        raise TypeError("%s: the function takes one argument, not %d" % (what, len(args)))
    if func.__name__ != "<lambda>":
        try:
            tree = ast.parse(src)
        except SyntaxError:
            tree = None
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.FunctionDef) and node.name == func.__name__:
                body = [s for s in node.body
                        if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
                if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value:
                    return body[0].value, args[0]
                raise NotImplementedError("%s: %s must be one return of an expression (marsc "
                                          "runs it over whole columns)" % (what, func.__name__))
        raise NotImplementedError("%s: the definition of %s was not found in its source"
                                  % (what, func.__name__))
    names = set(code.co_names) | set(code.co_freevars) | set(code.co_varnames)
    def lit(c):  # a constant as compared (Python folds -8 into one)
        return abs(c) if isinstance(c, (int, float)) else c
    def flat(cs):  # constants, those inside tuples too ({"a": 1}, x in ("a", "b"))
        for c in cs:
            if isinstance(c, (tuple, frozenset)):
                yield from flat(c)
            else:
                yield c
    consts = {lit(c) for c in flat(code.co_consts) if isinstance(c, (int, float, str)) and
              not isinstance(c, bool)}
    found = []  # (the lambda, whether its constants are the code's exactly)
    start = src.find("lambda")
    while start >= 0:
        # the longest text from here that is a lambda: it ends at the end or
        # before a closing bracket, a comma or a line end
        ends = [len(src)] + [i for i in range(len(src) - 1, start, -1) if src[i] in ",)]}\n"]
        for end in ends:
            try:  # in parentheses: a lambda over several lines parses too
                e = ast.parse("(" + src[start:end].strip() + "\n)", mode="eval").body
            except SyntaxError:
                continue
            if isinstance(e, ast.Lambda):
                used = {n.id for n in ast.walk(e) if isinstance(n, ast.Name)}
                used |= {n.attr for n in ast.walk(e) if isinstance(n, ast.Attribute)}
                used |= {a.arg for a in e.args.args}
                lits = {lit(n.value) for n in ast.walk(e) if isinstance(n, ast.Constant) and
                        isinstance(n.value, (int, float, str)) and not isinstance(n.value, bool)}
                if [a.arg for a in e.args.args] == args and used == names and lits <= consts:
                    found.append((e, lits == consts))
                break
        start = src.find("lambda", start + 1)
    if not found:
        raise NotImplementedError("%s: the lambda was not found in its source line" % what)
    found = [e for e, exact in found if exact] or [e for e, _ in found]
    if len(found) > 1 and len({ast.dump(e.body) for e in found}) > 1:
        raise NotImplementedError("%s: two lambdas alike on one line; give the function a "
                                  "name (def)" % what)
    return found[0].body, args[0]


def _func_names(func):
    """How func's expression reads a name: its closure's, then its module's,
    then the builtins' value."""
    import builtins
    code = func.__code__
    env = dict(zip(code.co_freevars, [c.cell_contents for c in func.__closure__ or ()]))

    def lookup(name):
        for scope in (env, func.__globals__):
            if name in scope:
                return scope[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise NameError("name %r is not defined" % name)
    return lookup


def _ast_ops():
    """The arithmetic and comparison operators of an expression's nodes."""
    import ast
    import operator as op
    return ({ast.Add: op.add, ast.Sub: op.sub, ast.Mult: op.mul, ast.Div: op.truediv,
             ast.FloorDiv: op.floordiv, ast.Mod: op.mod, ast.Pow: op.pow, ast.BitAnd: op.and_,
             ast.BitOr: op.or_},
            {ast.Gt: op.gt, ast.GtE: op.ge, ast.Lt: op.lt, ast.LtE: op.le, ast.Eq: op.eq,
             ast.NotEq: op.ne})


def _group_mode_of(expr, arg):
    """arg when expr is one of pandas' idioms for a group's most frequent
    value of arg (a Series): arg.mode()[0], arg.mode().iloc[0],
    arg.value_counts().index[0], arg.value_counts().idxmax(); else None"""
    import ast

    def call_of(node, name):
        return isinstance(node, ast.Call) and not node.args and not node.keywords and \
            isinstance(node.func, ast.Attribute) and node.func.attr == name and \
            isinstance(node.func.value, ast.Name) and node.func.value.id == arg

    def first(node):
        return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and \
            node.slice.value == 0 and not isinstance(node.slice.value, bool)
    if first(expr):
        v = expr.value
        if call_of(v, "mode"):
            return arg
        if isinstance(v, ast.Attribute) and (v.attr == "iloc" and call_of(v.value, "mode") or
                                             v.attr == "index" and
                                             call_of(v.value, "value_counts")):
            return arg
    if isinstance(expr, ast.Call) and not expr.args and isinstance(expr.func, ast.Attribute) \
            and expr.func.attr == "idxmax" and call_of(expr.func.value, "value_counts"):
        return arg
    return None


_COUNT = _ALL_KEY + "n"  # the count column of _group_counts


def _group_counts(gb, col, dropna=True, normalize=False, desc=True, asc=False):
    """a frame of gb's keys, col's values and their count (_COUNT) per
    group (a share of the group's rows: normalize), sorted by the keys then
    the count (descending: desc, ascending: asc, else unsorted), equal counts
    by value (a missing one first, as pandas sorts its codes)"""
    by = list(gb._by)
    flat = GroupBy(gb._df, by + [col], observed=gb._observed, dropna=dropna).size() \
        .reset_index(name=_COUNT)
    if normalize:
        flat = flat.assign(**{_COUNT: flat[_COUNT] /
                              GroupBy(flat, by)[_COUNT].transform("sum")})
    if desc or asc:
        keys, order = by + [_COUNT], [True] * len(by) + [asc]
        if not dropna:
            flat = flat.assign(**{_ALL_KEY + "na": flat[col].isna()})
            keys, order = keys + [_ALL_KEY + "na"], order + [False]
        flat = flat.sort_values(keys, ascending=order)
    return flat


def _group_mode(df, gb, col):
    """each group's most frequent value of col (the smallest of those
    tied, as pandas' mode()[0]), indexed by the keys: each group's first
    of its sorted counts"""
    by = list(gb._by)
    top = _group_counts(GroupBy(df, by, observed=gb._observed), col)
    return GroupBy(top, by).head(1).set_index(by)[col]


class _GroupArg:
    """The group a function of groupby apply, agg, transform or filter
    receives, as its expression reads it: the frame (col None), or one
    column of it (col: its name)."""

    def __init__(self, gb, col=None):
        self.gb, self.col = gb, col


# ---- apply and map of a function: its expression, element-wise ----

_STR_METHODS = ("lower", "upper", "strip", "lstrip", "rstrip", "title", "capitalize", "swapcase",
                "casefold",
                "isalpha", "isalnum", "isdigit", "isdecimal", "isnumeric", "isspace", "islower",
                "isupper", "istitle", "zfill", "center", "ljust", "rjust", "find", "rfind",
                "startswith", "endswith", "replace", "split")
_DT_ATTRS = ("year", "month", "day", "hour", "minute", "second", "microsecond", "nanosecond",
             "dayofweek", "dayofyear", "quarter", "days_in_month", "is_month_start",
             "is_month_end", "is_leap_year")
_DT_METHODS = ("weekday", "day_name", "month_name", "normalize", "strftime", "date")


_WINDOW_REDUCTIONS = ("sum", "mean", "min", "max", "std", "var", "count", "median", "skew",
                      "kurt")


def _window_apply(roll, func, raw):
    """rolling (expanding) apply of func over a Series' windows: each
    reduction of the window in func's expression (w.max() - w.min(),
    (w * w).sum()) is the rolling aggregation of that row-wise Series."""
    import ast
    what = "rolling apply"
    if not isinstance(roll._f, Series):
        raise NotImplementedError("%s of a DataFrame: roll one column (df.x.rolling(w)"
                                  ".apply(f))" % what)
    if _numpy_agg(func) or getattr(func, "__code__", None) is None:
        name = _func_name(func)  # np.sum, np.mean, max ...: the aggregation itself
        if name not in ("sum", "mean", "min", "max", "median"):
            raise NotImplementedError("%s: %r (numpy's std and var are ddof 0, pandas' "
                                      "rolling ones ddof 1)" % (what, func))
        return roll._agg(name)
    expr, arg = _function_expr(func, what)

    def check(node, inside):
        """the window only within one reduction, none inside another"""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in _WINDOW_REDUCTIONS and not node.args:
            if inside:
                raise NotImplementedError("%s: %s reduces within a reduction of the window, "
                                          "which is not supported" % (what, ast.unparse(node)))
            if raw and node.func.attr in ("std", "var"):
                raise NotImplementedError("%s: raw=True's %s is numpy's (ddof 0); use raw=False "
                                          "(pandas' ddof 1)" % (what, node.func.attr))
            return check(node.func.value, True)
        if isinstance(node, ast.Name) and node.id == arg and not inside:
            raise NotImplementedError("%s: the window outside a reduction (the function must "
                                      "give one value per window: w.sum(), w.max() - w.min() "
                                      "...)" % what)
        for c in ast.iter_child_nodes(node):
            check(c, inside)
    check(expr, False)

    def reducer(series, name):
        r = copy.copy(roll)
        r._f = series
        return r._agg(name)
    return _vectorized(func, roll._f, what, reducer)


class _Row:
    """A row a function of DataFrame.apply(axis=1) receives: row.x and
    row["x"] are the column x."""

    def __init__(self, df):
        self.df = df


def _vectorized(func, bound, what, reducer=None):
    """func's expression (a lambda, or a def of one return) with its
    argument bound to `bound` (a Series, or a _Row of a frame), run as
    element-wise ops over whole columns: what pandas' apply gives row by
    row, without running Python on the workers. reducer(series, name),
    when given, is what a reduction of a Series in it (.sum(), ...,
    _WINDOW_REDUCTIONS) becomes: a rolling window's, for rolling apply."""
    import ast
    import math
    if getattr(func, "__code__", None) is None:  # a builtin or a numpy ufunc: s.apply(len)
        if isinstance(func, np.ufunc) or func in (abs, round, int, float, str, bool, len) or \
                getattr(func, "__module__", None) == "math":
            f = func
            return _vectorized(lambda x: f(x), bound, what)
        raise NotImplementedError("%s: %r cannot run on the cluster (give a lambda or a def "
                                  "of one expression)" % (what, func))
    expr, arg = _function_expr(func, what)
    lookup = _func_names(func)
    binops, cmps = _ast_ops()

    def unsupported(node):
        return NotImplementedError(
            "%s: %s is not supported (marsc runs the function's expression over whole "
            "columns: arithmetic, comparisons, and/or/not, a if c else b, in, abs, round, int, "
            "float, str, len, numpy and math functions, a dict's lookup, the str methods and "
            "slices of strings, the date parts of datetimes)" % (what, ast.unparse(node)))

    def is_col(v):
        return isinstance(v, (Series, _Split))

    def ev(node):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return bound if node.id == arg else lookup(node.id)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return [ev(e) for e in node.elts]
        if isinstance(node, ast.Dict):
            return {ev(k): ev(v) for k, v in zip(node.keys, node.values)}
        if isinstance(node, ast.Attribute):
            base = ev(node.value)
            if isinstance(base, _Row):
                if node.attr == "name":
                    raise NotImplementedError("%s: row.name is the row's label in pandas, which "
                                              "is not supported (row[\"name\"] is the column)"
                                              % what)
                return base.df[node.attr]
            if base is math and node.attr in ("floor", "ceil", "trunc"):
                return getattr(math, node.attr)  # an int of each value (below)
            if base is math and hasattr(np, node.attr):
                return getattr(np, node.attr)  # element-wise, as math's of each value
            if isinstance(base, Series):
                if node.attr in _DT_ATTRS:
                    return getattr(base.dt, node.attr)
                if reducer is not None and node.attr in _WINDOW_REDUCTIONS:
                    return ("reduce", base, node.attr)
                if node.attr in _STR_METHODS or node.attr in _DT_METHODS:
                    return ("method", base, node.attr)
                raise unsupported(node)
            if is_col(base):
                raise unsupported(node)
            return getattr(base, node.attr)
        if isinstance(node, ast.Subscript):
            base, key = ev(node.value), node.slice
            if isinstance(base, _Row):
                return base.df[ev(key)]
            if isinstance(base, Series):
                if isinstance(key, ast.Slice):
                    parts = [None if k is None else ev(k) for k in (key.lower, key.upper, key.step)]
                    return base.str.slice(*parts)
                return base.str.get(ev(key))
            if isinstance(base, _Split):
                return base[ev(key)]
            k = ev(key)
            if isinstance(k, Series) and isinstance(base, dict):
                return k.map(base)
            if isinstance(k, Series) and isinstance(base, (list, tuple)):
                return k.map(dict(enumerate(base)))
            if is_col(k):
                raise unsupported(node)
            return base[k]
        if isinstance(node, ast.Call):
            if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
                raise unsupported(node)
            f = ev(node.func)
            a = [ev(x) for x in node.args]
            if isinstance(f, tuple) and f[0] == "reduce" and not a:
                return reducer(f[1], f[2])
            if isinstance(f, tuple) and f[0] == "method":
                _, base, name = f
                if name in _DT_METHODS:  # d.weekday(), d.date(): dt's properties
                    got = getattr(base.dt, name)
                    return got if name in ("weekday", "date") else got(*a)
                if name == "split":
                    return base.str.split(*a[:1], **({"n": a[1]} if len(a) > 1 else {}))
                if name == "replace":
                    return base.str.replace(a[0], a[1], *([a[2]] if len(a) > 2 else []))
                if name in ("startswith", "endswith") and isinstance(a[0], list):
                    a[0] = tuple(a[0])
                return getattr(base.str, name)(*a)
            if not any(is_col(x) for x in a):
                return f(*a)
            if f is abs:
                return abs(a[0])
            if f is round:
                return a[0].round(*a[1:])
            if f in (math.floor, math.ceil, math.trunc) and len(a) == 1:
                # math's give ints, so pandas' column is int64 (NaN: refused, as math's)
                return getattr(np, f.__name__)(a[0]).astype("int64")
            if f in (int, float, str, bool):
                return a[0].astype({int: "int64", float: "float64", str: str, bool: bool}[f])
            if f is len:
                return a[0].str.len()
            if isinstance(f, np.ufunc):
                return f(*a)
            if getattr(f, "__name__", "") == "get" and isinstance(getattr(f, "__self__", None),
                                                                  dict):
                out = a[0].map(f.__self__)
                return out if len(a) < 2 or a[1] is None else out.fillna(a[1])
            raise unsupported(node)
        if isinstance(node, ast.BinOp) and type(node.op) in binops:
            return binops[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp):
            v = ev(node.operand)
            if isinstance(node.op, ast.Not):
                return ~v if is_col(v) else not v
            if isinstance(node.op, ast.USub):
                return -v
            if isinstance(node.op, ast.UAdd):
                return v
            if isinstance(node.op, ast.Invert):
                return ~v
        if isinstance(node, ast.BoolOp):
            vals = [ev(v) for v in node.values]
            out = vals[0]
            for v in vals[1:]:
                out = (out & v) if isinstance(node.op, ast.And) else (out | v)
            return out
        if isinstance(node, ast.IfExp):
            c, a, b = ev(node.test), ev(node.body), ev(node.orelse)
            if not is_col(c):
                return a if c else b
            return elementwise("where", [c, a, b])
        if isinstance(node, ast.Compare):
            left, out = ev(node.left), None
            for o, c in zip(node.ops, node.comparators):
                right = ev(c)
                if isinstance(o, (ast.In, ast.NotIn)):
                    if isinstance(left, Series) and not is_col(right):
                        r = left.isin(list(right))
                    elif isinstance(right, Series) and isinstance(left, str):
                        r = right.str.contains(left, regex=False)
                    else:
                        raise unsupported(node)
                    if isinstance(o, ast.NotIn):
                        r = ~r
                elif type(o) in cmps:
                    r = cmps[type(o)](left, right)
                else:
                    raise unsupported(node)
                out = r if out is None else out & r
                left = right
            return out
        raise unsupported(node)

    out = ev(expr)
    if not isinstance(out, Series):
        raise NotImplementedError("%s: the function gives %r whatever the row (no column in its "
                                  "result)" % (what, out))
    return out


_GROUP_REDUCTIONS = ("sum", "mean", "min", "max", "count", "std", "var", "median", "prod",
                     "nunique")
# row-wise methods of a group's column inside a reduction's operand
_GROUP_ROWWISE = ("isna", "notna", "isnull", "notnull", "abs", "fillna", "round", "clip",
                  "astype")
# a transform's function that is one of these of the group's column: the kernel
_GROUP_KERNELS = ("rank", "cumsum", "cumprod", "cummin", "cummax", "shift", "diff", "ffill",
                  "bfill")


def _group_rows(gb, func):
    """apply of a func giving each group's rows in an order: g.nlargest(n,
    col) and g.nsmallest(n, col) (keep "first"; a Series' x.nlargest(n)),
    g.head(n), g.tail(n), g.sort_values(by, ascending) alone or then
    .head(n) or .tail(n): the frame sorted (stably) and each group's
    first (last) rows, the groups in key order, indexed by the keys then
    the rows' own labels, as pandas' group_keys; None when func is none of
    these"""
    import ast
    try:
        expr, arg = _function_expr(func, "groupby apply")
    except (NotImplementedError, TypeError):
        return None
    lookup = _func_names(func)

    def val(node):
        if isinstance(node, ast.Name):
            return lookup(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -val(node.operand)
        if isinstance(node, (ast.List, ast.Tuple)):
            return [val(x) for x in node.elts]
        return ast.literal_eval(node)
    chain, node = [], expr
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        chain.append(node)
        node = node.func.value
    if not chain or not (isinstance(node, ast.Name) and node.id == arg):
        return None
    try:
        calls = [(c.func.attr, [val(a) for a in c.args], {k.arg: val(k.value) for k in c.keywords})
                 for c in reversed(chain)]
    except (ValueError, NameError, SyntaxError, TypeError):
        return None
    series = _one(gb._sel)
    if gb._sel is not None and not series:
        return None

    def arg_of(a, kw, q, name, default=None):
        return a[q] if len(a) > q else kw.get(name, default)
    order, asc, take = None, None, None
    name, a, kw = calls[0]
    if name in ("nlargest", "nsmallest") and len(calls) == 1:
        n = arg_of(a, kw, 0, "n", 5)
        col = gb._sel if series else arg_of(a, kw, 1, "columns")
        if arg_of(a, kw, 1 if series else 2, "keep", "first") != "first" or not _one(col):
            return None
        order, asc, take = [col], [name == "nsmallest"], ("head", n)
    elif name == "sort_values" and len(calls) <= 2:
        by = gb._sel if series else arg_of(a, kw, 0, "by")
        ascending = arg_of(a, kw, 0 if series else 1, "ascending", True)
        if by is None:
            return None
        order = [by] if _one(by) else list(by)
        asc = list(ascending) if isinstance(ascending, (list, tuple)) else \
            [bool(ascending)] * len(order)
        if len(calls) == 2:
            name2, a2, kw2 = calls[1]
            if name2 not in ("head", "tail"):
                return None
            take = (name2, arg_of(a2, kw2, 0, "n", 5))
    elif name in ("head", "tail") and len(calls) == 1:
        take = (name, arg_of(a, kw, 0, "n", 5))
    else:
        return None
    src, by = gb._df, list(gb._by)
    if take is not None and calls[0][0] in ("nlargest", "nsmallest"):
        src = src[src[order[0]].notna()]  # pandas' nlargest leaves missing values out
    if order is not None:
        src = src.sort_values(order, ascending=asc, kind="stable")
    sub = GroupBy(src, by, observed=gb._observed)
    rows = getattr(sub, take[0])(int(take[1])) if take is not None else src
    for k in by:  # rows of a missing key are in no group
        rows = rows[rows[k].notna()]
    rows = rows.sort_values(by, kind="stable")  # the groups in key order
    keys = ["_marsc_g%d" % q for q in range(len(by))]
    out = _relevelled(rows, lambda flat, idx, names: (
        flat.assign(**{t: flat[k] for t, k in zip(keys, by)}), keys + idx, by + names))
    return out[gb._sel] if series else out


def _group_apply(gb, func, what, mode="agg"):
    """func's expression over gb's groups, each reduction of its group's
    columns (g.x.sum(), (g.x * g.y).sum(), len(g) ...) of one frame (the
    row-wise operands it reduces assigned to gb's frame as columns):
    mode "agg": a groupby aggregation (every one of them one groupby_agg),
    the result a Series indexed by the keys; "transform" and "filter": a
    groupby transform (each row its group's value), the result a Series
    of the frame's rows, where "transform" also reads the group's columns
    row by row outside reductions. Returns (result, the frame, the names
    of the columns assigned to it)."""
    import ast
    expr, arg = _function_expr(func, what)
    lookup = _func_names(func)
    df, sel = gb._df, gb._sel if _one(gb._sel) else None
    binops, cmps = _ast_ops()
    reduced = []  # pass one: (id of the reducing node, its row-wise Series)
    plan = {}     # pass two: id of the reducing node -> the column of `frame` it reduces
    frame = [None]
    quantiles = []  # the x.quantile(q) reductions (a groupby_quantile each)

    def unsupported(node, why="is not supported"):
        return NotImplementedError(
            "%s: %s %s (marsc runs the function's expression over all groups at once: "
            "reductions of the group's columns (g.x.sum(), (g.x * g.y).sum(), %s), len(g), "
            "and arithmetic, comparisons, a if c else b and numpy functions over them)"
            % (what, ast.unparse(node), why, ", ".join(_GROUP_REDUCTIONS)))

    def reduce(node, rows, fn):
        if frame[0] is None:
            reduced.append((id(node), rows))
            if isinstance(fn, tuple):
                quantiles.append(node)
            return rows  # a stand-in with the same operators
        col = plan[id(node)]
        if isinstance(fn, tuple):  # ("quantile", q): groupby_quantile
            if mode != "agg":
                raise unsupported(node, "is supported in agg and apply only")
            return GroupBy(frame[0], gb._by, col, observed=gb._observed).quantile(fn[1])
        if mode != "agg":
            return GroupBy(frame[0], gb._by, None if fn == "size" else col,
                           observed=gb._observed).transform(fn)
        if fn == "size":
            return GroupBy(frame[0], gb._by, observed=gb._observed).size()
        return getattr(GroupBy(frame[0], gb._by, col, observed=gb._observed), fn)()

    def val(x, node, inside):
        """x as an operand: the group's column is a row-wise Series within a
        reduction's operand, and no value outside one"""
        if isinstance(x, _GroupArg):
            if x.col is not None and (inside or mode == "transform"):
                return (df if frame[0] is None else frame[0])[x.col]
            raise unsupported(node, "is no value per group (reduce it: .sum(), .mean() ...)")
        if isinstance(x, tuple):
            raise unsupported(node)
        return x

    def ev(node, inside):
        """inside: within a reduction's operand, where the group's columns
        are row-wise Series; outside, only reductions give values"""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return _GroupArg(gb, sel) if node.id == arg else lookup(node.id)
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            base = ev(node.value, inside)
            if isinstance(base, _GroupArg):
                key = node.attr if isinstance(node, ast.Attribute) else ev(node.slice, inside)
                if key == "shape":
                    return ("shape", base)
                if key == "size" and base.col is not None:
                    return reduce(node, df[base.col], "size")
                if base.col is None and isinstance(key, (str, numbers.Integral)) and \
                        key not in _GROUP_REDUCTIONS:
                    return _GroupArg(gb, key)
                if isinstance(node, ast.Attribute) and key in _GROUP_REDUCTIONS:
                    return ("reduce", base, key)
                raise unsupported(node)
            if isinstance(base, tuple) and base[0] == "shape" and isinstance(node, ast.Subscript):
                if ev(node.slice, inside) == 0:
                    return reduce(node, df[gb._by[0]], "size")
                raise unsupported(node)
            if isinstance(base, Series) and isinstance(node, ast.Attribute) and \
                    node.attr in _GROUP_REDUCTIONS:
                if not inside:
                    raise unsupported(node)
                return ("reduce", base, node.attr)
            if isinstance(base, Series):
                raise unsupported(node)
            if isinstance(node, ast.Attribute):
                return getattr(base, node.attr)
            return base[ev(node.slice, inside)]
        if isinstance(node, ast.Call):
            if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
                raise unsupported(node)
            if isinstance(node.func, ast.Attribute) and node.func.attr in _GROUP_REDUCTIONS \
                    and not node.args:
                # a reduction: its operand row-wise (the group's columns)
                base = ev(node.func.value, True)
                if isinstance(base, _GroupArg):
                    if base.col is None:
                        raise unsupported(node, "of the whole group is not supported (name a "
                                                "column)")
                    base = df[base.col]
                if not isinstance(base, Series):
                    raise unsupported(node)
                return reduce(node, base, node.func.attr)
            if isinstance(node.func, ast.Attribute) and node.func.attr == "quantile" and \
                    len(node.args) == 1:
                # x.quantile(q): the group's quantile (q a number)
                q = ev(node.args[0], inside)
                base = ev(node.func.value, True)
                if isinstance(base, _GroupArg) and base.col is not None:
                    base = df[base.col]
                if isinstance(q, numbers.Real) and not isinstance(q, bool) and \
                        isinstance(base, Series):
                    return reduce(node, base, ("quantile", float(q)))
                raise unsupported(node)
            if isinstance(node.func, ast.Attribute) and node.func.attr in _GROUP_ROWWISE:
                # x.isna().sum(), x.abs().max(), x.fillna(0).mean(): row-wise first
                base = val(ev(node.func.value, inside), node, inside)
                if isinstance(base, Series):
                    return getattr(base, node.func.attr)(
                        *[val(ev(x, inside), node, inside) for x in node.args])
            f = ev(node.func, inside)
            a = [ev(x, inside) for x in node.args]
            if f is len and len(a) == 1 and isinstance(a[0], _GroupArg):
                return reduce(node, df[a[0].col if a[0].col is not None else gb._by[0]], "size")
            a = [val(x, node, inside) for x in a]
            if f is abs or isinstance(f, np.ufunc):
                return f(*a)
            if f in (float, int, round, min, max) and all(isinstance(x, numbers.Number) for x in a):
                return f(*a)
            raise unsupported(node)
        if isinstance(node, ast.BinOp) and type(node.op) in binops:
            return binops[type(node.op)](val(ev(node.left, inside), node, inside),
                                         val(ev(node.right, inside), node, inside))
        if isinstance(node, ast.UnaryOp):
            v = val(ev(node.operand, inside), node, inside)
            if isinstance(node.op, ast.USub):
                return -v
            if isinstance(node.op, ast.UAdd):
                return v
            if isinstance(node.op, ast.Not):
                return ~v if isinstance(v, Series) else not v
        if isinstance(node, ast.Compare):
            left, out = val(ev(node.left, inside), node, inside), None
            for o, c in zip(node.ops, node.comparators):
                if type(o) not in cmps:
                    raise unsupported(node)
                right = val(ev(c, inside), node, inside)
                r = cmps[type(o)](left, right)
                out = r if out is None else out & r
                left = right
            return out
        if isinstance(node, ast.BoolOp):
            vals = [val(ev(v, inside), node, inside) for v in node.values]
            out = vals[0]
            for v in vals[1:]:
                out = (out & v) if isinstance(node.op, ast.And) else (out | v)
            return out
        if isinstance(node, ast.IfExp):
            c, a, b = (val(ev(x, inside), node, inside) for x in (node.test, node.body,
                                                                node.orelse))
            return elementwise("where", [c, a, b]) if isinstance(c, Series) else (a if c else b)
        raise unsupported(node)

    def run():
        out = ev(expr, False)
        if isinstance(out, _GroupArg) and mode == "transform":
            out = val(out, expr, False)
        if isinstance(out, (_GroupArg, tuple)):
            raise unsupported(expr, "gives no value per group")
        return out

    col = _group_mode_of(expr, arg) if mode == "agg" else None
    if col is not None:  # x.mode()[0], x.value_counts().index[0]: the group's mode
        base = ev(ast.Name(id=col, ctx=ast.Load()), False) if col == arg else None
        base = base if isinstance(base, _GroupArg) else None
        if base is not None and base.col is not None:
            return _group_mode(df, gb, base.col), df, []
    if mode == "transform" and isinstance(expr, ast.Call) and not expr.keywords and \
            isinstance(expr.func, ast.Attribute) and expr.func.attr in _GROUP_KERNELS:
        # transform(lambda x: x.rank()): the groupby kernel of that name
        base = ev(expr.func.value, False)
        if isinstance(base, _GroupArg) and base.col is not None:
            kernel = getattr(GroupBy(df, gb._by, base.col, observed=gb._observed), expr.func.attr)
            return kernel(*[ev(x, False) for x in expr.args]), df, []
    run()  # pass one: the row-wise Series each reduction reads
    if not reduced:
        raise NotImplementedError("%s: the function reduces no column of its group (g.x.sum(), "
                                  "len(g) ...)" % what)
    if quantiles and len(reduced) > 1:
        raise unsupported(quantiles[0], "beside another reduction is not supported (a quantile "
                                        "is a task of its own: compute each apart)")
    cols = list(df._columns or [])
    extra = {}
    for key, rows in reduced:
        node = rows._ref.node
        name = node.params.get("columns") if node.op == "dataframe.getitem" and \
            node.inputs and node.inputs[0] is df._ref.node else None
        if not isinstance(name, (str, numbers.Integral)):
            name = "_mars_apply%d" % len(extra)
            extra[name] = rows
        plan[key] = name
    frame[0] = df.assign(**extra) if extra else df
    if extra and df._columns is not None:
        frame[0]._columns = cols + list(extra)
    out = run()  # pass two: the aggregations of one frame
    if not isinstance(out, Series):
        raise NotImplementedError("%s: the function gives %r whatever the group" % (what, out))
    return out, frame[0], list(extra)


class GroupBy(_Aggregations):
    """df.groupby(by): .agg(out=("column", "func"), ...) as pandas' named
    aggregation; g[cols] selects columns; .sum(), .mean(), .min(), .max(),
    .count(), .std(), .var(), .median(), .prod(), .first(), .last(),
    .nunique(), .size(), .head(n), .tail(n), .transform(func),
    .filter(func) (a lambda over group statistics), .quantile(q), and the transformation kernels .cumsum(), .cumprod(),
    .cummin(), .cummax(), .cumcount(), .ngroup(), .shift(periods),
    .diff(periods), .ffill(limit), .bfill(limit) and .rank(...) as
    pandas'."""

    def __init__(self, df, by, sel=None, as_index=True, observed=False, dropna=True):
        self._df = df
        self._by = by
        self._sel = sel  # a column name (Series results) or a list, or None: all
        self._as_index = as_index
        self._observed = observed  # of categorical keys (_carried.regrouped)
        self._dropna = dropna  # False: missing keys form groups (aggregations only)

    _sort = True  # False: the groups in the order their keys first appear (_keyed)

    def __getitem__(self, cols):
        g = GroupBy(self._df, self._by, cols if _one(cols) else list(cols),
                    self._as_index, self._observed, self._dropna)
        g._sort = self._sort
        return g

    def _agg_params(self, agg):
        """groupby_agg's fields for the aggregations agg"""
        p = {"by": self._by, "agg": agg}
        if not self._dropna:
            p["dropna"] = False
        return p

    def _keyed(self, out, name=None, fill=None):
        """an aggregation's result: indexed by the keys, or with as_index
        False the keys as its first columns and a default index (a Series'
        values as the column of its name, or of name). Categorical keys
        are fetched as pandas', fill the aggregation of each column (a
        name, or a dict {column: name}) for the groups of unobserved
        categories."""
        if not self._as_index:
            if name is not None:
                out = out.rename(name)
            out = out.reset_index()
        elif not self._dropna and len(self._by) > 1 and out._fetched is None:
            _as_fetched(out, _nan_levels, keep=True)
        out = _cat_regrouped(self, out, fill) if self._df._cats else out
        return out if self._sort else self._unsorted(out)

    def _unsorted(self, out):
        """out's groups in the order their keys first appear in the frame
        (sort=False): the distinct keys, in order, are fetched with it"""
        import pandas as pd
        if any(k in (self._df._cats or {}) for k in self._by):
            raise NotImplementedError("groupby(sort=False) by categorical keys is not supported")
        first, by, prev = self._df[list(self._by)].drop_duplicates(), list(self._by), \
            out._fetched
        as_index = self._as_index

        def fn(got):
            got = prev(got) if prev is not None else got
            keys = first.fetch()
            idx = pd.MultiIndex.from_frame(keys) if len(by) > 1 else pd.Index(keys[by[0]])
            if not as_index:
                got = got.set_index(by)
            idx = idx[idx.isin(got.index)]
            got = got.reindex(idx)
            return got.reset_index() if not as_index else got
        out = _as_fetched(out, fn)
        out._regrouped = True  # what is made of it: pandas' of the fetched groups
        return out

    def __getattr__(self, name):
        """g.temp is g["temp"], as pandas allows for a column whose name
        is no method's."""
        if name.startswith("_"):
            raise AttributeError(name)
        cols = self._df._columns
        if cols is not None and name not in cols:
            raise AttributeError("GroupBy has no attribute or column %r (columns: %s)"
                                 % (name, cols))
        if _pandas_has("GroupBy", name):
            raise AttributeError("marsc's GroupBy has no %r (pandas' %s is not supported; a "
                                 "column of that name is g[%r])" % (name, name, name))
        return self[name]

    _NUMERIC = ("sum", "mean", "std", "var", "median", "prod")

    def _columns_for(self, func):
        """The columns func aggregates: the selection, else every column
        that is no key (numbers and bools only for the numeric funcs, as
        pandas' numeric_only: the frame's dtypes are needed, so an unrun
        frame is run first)."""
        if self._sel is not None:
            return [self._sel] if _one(self._sel) else list(self._sel)
        if func in self._NUMERIC:
            dt = self._df.dtypes
            return [c for c, t in dt.items() if c not in self._by and
                    (np.issubdtype(t, np.number) or t == np.bool_)]
        cols = self._df.columns
        return [c for c in cols if c not in self._by]

    def _reduce(self, func, **kw):
        cols = self._columns_for(func)
        agg = {str(c): [c, func] for c in cols}
        p = self._agg_params(agg)
        p.update(kw)
        out = _make("dataframe.groupby_agg", [self._df], p, "dataframe", cols,
                    index_names=list(self._by))
        ints = {str(c): c for c in cols if not isinstance(c, str)}
        if ints:  # an output is named by a JSON key: integer labels come back as such
            out = _make("dataframe.rename", [out], {"columns": ints}, "dataframe", cols)
        if _one(self._sel):
            out = _make("dataframe.getitem", [out], {"columns": self._sel}, "series")
        return self._keyed(out, fill=func)


    def std(self, ddof=1):
        if ddof != 1:
            return self._var_ddof(ddof) ** 0.5
        return self._reduce("std")

    def var(self, ddof=1):
        if ddof != 1:
            return self._var_ddof(ddof)
        return self._reduce("var")

    def sem(self, ddof=1):
        """pandas' standard error of each group's mean: std(ddof) over the
        square root of the count (of each column of numbers, or the
        selected one)"""
        if not _one(self._sel):
            cols = self._columns_for("std")
            out = concat([self[c].sem(ddof) for c in cols], axis=1)
            out._columns = list(cols)
            return out
        if not self._as_index:
            raise NotImplementedError("groupby sem with as_index=False is not supported")
        return (self.std(ddof) / self.count() ** 0.5).rename(self._sel)

    def get_group(self, name):
        """pandas' get_group: the rows of the group whose key is name (a
        tuple of several keys), every column (the selected ones)"""
        keys = list(name) if len(self._by) > 1 else [name]
        if len(keys) != len(self._by):
            raise ValueError("must supply a tuple to get_group with multiple grouping keys")
        mask = None
        for k, v in zip(self._by, keys):
            m = self._df[k] == v
            mask = m if mask is None else mask & m
        out = self._df[mask]
        return out if self._sel is None else out[self._sel]

    @property
    def ngroups(self):
        """the number of groups (it runs)"""
        return len(GroupBy(self._df, self._by, observed=self._observed,
                           dropna=self._dropna).size())

    def __len__(self):
        return self.ngroups

    def __bool__(self):  # a groupby is true, as pandas' (not len(), which runs)
        return True

    @property
    def groups(self):
        """pandas' {key: Index of row labels} of the fetched keys"""
        return self._df[list(self._by)].fetch().groupby(list(self._by) if len(self._by) > 1
                                                        else self._by[0],
                                                        dropna=self._dropna).groups

    def __iter__(self):
        """(key, rows of that group) in key order, as pandas: the keys
        fetched, each group a filter of the frame (get_group)"""
        keys = GroupBy(self._df, self._by, observed=self._observed,
                       dropna=self._dropna).size().fetch().index
        for k in keys:
            yield k, self.get_group(k)

    def pipe(self, func, *args, **kwargs):
        """pandas' pipe: func(self, *args, **kwargs)"""
        if isinstance(func, tuple):
            func, kw = func
            kwargs[kw] = self
            return func(*args, **kwargs)
        return func(self, *args, **kwargs)

    def _var_ddof(self, ddof):
        """a selected column's var by ddof: the engine's (ddof 1) times
        (n - 1) / (n - ddof), NaN where n <= ddof, as pandas"""
        if not (_one(self._sel) and self._as_index):
            raise NotImplementedError("groupby std and var with ddof other than 1: of one "
                                      "selected column (g[\"x\"].std(ddof=0)) only")
        f = self.agg(__var__="var", __n__="count")
        n = f["__n__"]
        out = f["__var__"].fillna(0) * (n - 1) / (n - ddof)
        return out.where(n > ddof).rename(self._sel)

    def size(self):
        """Rows per group: an int64 Series indexed by the keys (as_index
        False: a frame of the keys and "size")."""
        if not self._dropna:  # groupby_agg's size counts the groups of missing keys
            agg = {"n": [self._by[0], "size"]}
            out = _make("dataframe.groupby_agg", [self._df], self._agg_params(agg), "dataframe",
                        ["n"], index_names=list(self._by))["n"].rename(None)
            return self._keyed(out, "size", "size")
        return self._keyed(_make("dataframe.groupby_size", [self._df], {"by": self._by},
                                 "series", index_names=list(self._by)), "size", "size")

    def value_counts(self, normalize=False, sort=True, ascending=False, bins=None,
                     dropna=True):
        """pandas' SeriesGroupBy.value_counts of the selected column: each
        group's counts of each value, indexed by the keys and the value,
        groups in key order, within a group the most frequent first (equal
        counts by value), as pandas 1.5; normalize: shares of the group"""
        if not _one(self._sel):
            raise NotImplementedError("groupby value_counts: select one column "
                                      "(g[\"x\"].value_counts())")
        if bins is not None:
            raise NotImplementedError("groupby value_counts(bins=...) is not supported")
        col, by = self._sel, list(self._by)
        if col in by:
            raise ValueError("groupby value_counts: the column %r is a key" % col)
        flat = _group_counts(self, col, dropna, normalize, sort and not ascending,
                             sort and ascending)
        return flat.set_index(by + [col])[_COUNT].rename(col)

    def _rows(self, op, n):
        out = _make(op, [self._df], {"by": self._by, "n": int(n)}, "dataframe",
                    self._df._columns)
        if self._sel is not None:
            return out[self._sel]
        return out

    def head(self, n=5):
        return self._rows("dataframe.groupby_head", n)

    def nth(self, n, dropna=None):
        """pandas 1.5's g.nth(n): each group's n-th row (from the end when
        negative), indexed by the keys in key order, the keys' columns
        dropped; groups of fewer rows give none."""
        if dropna is not None or not isinstance(n, (int, np.integer)) or isinstance(n, bool):
            raise NotImplementedError("groupby nth: one integer position (no dropna)")
        if not self._as_index:
            raise NotImplementedError("groupby nth with as_index=False is not supported")
        pos = self.cumcount() if n >= 0 else self.cumcount(ascending=False)
        rows = self._df[pos == (n if n >= 0 else -n - 1)]
        out = rows.set_index(list(self._by)).sort_index()
        return out if self._sel is None else out[self._sel]

    def tail(self, n=5):
        return self._rows("dataframe.groupby_tail", n)

    def resample(self, rule, on=None, **kw):
        """pandas' g.resample(rule, on=None, ...): each group's resample
        (every bin from its first row's to its last's), as _GroupResampler
        runs it"""
        return _GroupResampler(self, rule, on, kw)

    def nlargest(self, n=5, keep="first"):
        """pandas' g.x.nlargest(n): each group's n largest values (ties in
        the rows' order), indexed by the keys and the rows' labels, the
        groups in key order"""
        return self._top(n, keep, False)

    def nsmallest(self, n=5, keep="first"):
        return self._top(n, keep, True)

    def _top(self, n, keep, small):
        """nlargest and nsmallest: the rows sorted by keys then value (a
        stable sort), each group's first n, the keys and labels made the
        index"""
        if not _one(self._sel):
            raise NotImplementedError("groupby nlargest and nsmallest: of one selected column "
                                      "(g[\"x\"].nlargest(n))")
        if keep != "first":
            raise NotImplementedError("groupby nlargest: keep=\"first\" only")
        by, col = list(self._by), self._sel
        names = list(self._df._index_names or [None])
        if len(names) > 1 or col in by:
            raise NotImplementedError("groupby nlargest: of a frame with one index level, by "
                                      "other columns than the selected one")
        label = "__marsc_label__"
        f = self._df[by + [col]].dropna(subset=by).reset_index()  # missing values last
        f = f.rename(columns={f.columns[0]: label})
        f = f.sort_values(by + [col], ascending=[True] * len(by) + [small])
        top = GroupBy(f, by).head(int(n))
        return top.set_index(by + [label]).rename_axis(by + names)[col]

    def apply(self, func, *args, **kwargs):
        """pandas' g.apply(func) of a func giving one value per group: a
        Series indexed by the keys (unnamed; a selected column's name for
        g["x"].apply). func (a lambda, or a def of one return, read from its
        source) runs over all groups at once: each reduction of its group's
        columns (g.x.sum(), (g.x * g.y).sum() / g.y.sum(), len(g),
        g.x.max() - g.x.min()) is a groupby aggregation, all of them one
        groupby_agg, with arithmetic, comparisons and numpy functions over
        them. len: the groups' sizes. A func giving some of the group's rows
        in an order (g.nlargest(n, col), g.nsmallest, g.head(n), g.tail(n),
        g.sort_values(by).head(n) ...): _group_rows. Other funcs giving a
        frame are not supported."""
        if args or kwargs:
            raise NotImplementedError("groupby apply: arguments for the function are not "
                                      "supported (use the values in the function)")
        if not self._as_index:
            raise NotImplementedError("groupby apply with as_index=False is not supported")
        if func is len:  # each group's row count
            out = self.size()
            return out.rename(self._sel) if _one(self._sel) else out
        if isinstance(func, str) or _numpy_agg(func):
            return self.agg(func)
        rows = _group_rows(self, func)
        if rows is not None:
            return rows
        out = _group_apply(self, func, "groupby apply")[0]
        return out.rename(self._sel if _one(self._sel) else None)

    def filter(self, func, dropna=True, *args, **kwargs):
        """pandas' g.filter(func): the rows of the groups for which func
        is true, in their order (the selection's columns, a Series for
        one). func is read from its source, a lambda or a def of one
        return, and runs over the groups at once: its group statistics
        (len(g), g.shape[0], g.x.size, g[col].sum() ... .nunique()) become
        groupby transforms, with comparisons, arithmetic, abs, and, or and
        not over them; variables it uses are read when filter is called.
        Rows whose key is missing belong to no group and are dropped, as
        pandas."""
        if not dropna:
            raise NotImplementedError("groupby filter: dropna=False (failing groups' rows as "
                                      "NaN) is not supported")
        if args or kwargs:
            raise NotImplementedError("groupby filter: arguments for the function are not "
                                      "supported (use the values in the function)")
        import ast
        expr, _ = _function_expr(func)
        if not isinstance(expr, (ast.Compare, ast.BoolOp, ast.UnaryOp)) and not (
                isinstance(expr, ast.Constant) and isinstance(expr.value, bool)):
            raise TypeError("groupby filter: the function returns %s, not a bool (a comparison, "
                            "and/or/not of them): pandas refuses a filter that returns no "
                            "scalar bool" % ast.unparse(expr))
        if isinstance(expr, ast.Constant):
            df, extra = self._df, []
            mask = df[self._by[0]].notna() if expr.value else df[self._by[0]].isna() & False
        else:
            mask, df, extra = _group_apply(self, func, "groupby filter", "filter")
        for k in self._by:  # rows with a missing key are in no group
            mask = mask & df[k].notna()
        out = df[mask]
        if extra:
            out = out.drop(columns=extra)
        return out if self._sel is None else out[self._sel]

    def transform(self, func, **kw):
        """Each row its group's statistic (func sum, mean, count, min, max,
        std, var, median, prod, first, last, nunique, or size: a Series)
        or one of pandas' transformation kernels (cumsum, cumprod, cummin,
        cummax, cumcount, ngroup, shift, diff, ffill, bfill, rank), a name,
        with the kernel's arguments."""
        if callable(func) and not _numpy_agg(func):
            # a lambda or a def: its expression, each reduction a transform
            if kw or self._sel is None:
                raise NotImplementedError("groupby transform of a function: select the columns "
                                          "(g[\"x\"].transform(func)), no arguments")
            if not _one(self._sel):  # each column's, side by side
                cols = list(self._sel)
                out = concat([GroupBy(self._df, self._by, c, observed=self._observed)
                              .transform(func) for c in cols], axis=1)
                out._columns = cols
                return out
            return _group_apply(self, func, "groupby transform", "transform")[0].rename(self._sel)
        if not isinstance(func, str):
            func = _func_name(func)
        p = {"by": self._by, "func": func}
        p.update({k: None if v is _NULL else v for k, v in kw.items() if v is not None})
        if func in ("cumcount", "ngroup"):
            return _make("dataframe.groupby_transform", [self._df], p, "series")
        if func == "size":  # a Series, named as g[name]'s (one name: a string)
            if self._sel is not None:
                p["columns"] = self._sel if _one(self._sel) else list(self._sel)
            return _make("dataframe.groupby_transform", [self._df], p, "series")
        if self._sel is not None:
            p["columns"] = [self._sel] if _one(self._sel) else list(self._sel)
        out = _make("dataframe.groupby_transform", [self._df], p, "dataframe",
                    p.get("columns"))
        if _one(self._sel):
            return out[self._sel]
        return out

    # pandas' transformation kernels: the input's rows and index, each row
    # computed within its group (groups by key, rows in their order)
    def cumsum(self): return self.transform("cumsum")  # noqa: E704
    def cumprod(self): return self.transform("cumprod")  # noqa: E704
    def cummin(self): return self.transform("cummin")  # noqa: E704
    def cummax(self): return self.transform("cummax")  # noqa: E704

    def any(self, skipna=True):
        """each group's any: a value is true where it is no zero, False, or
        empty string, missing values skipped (bool)"""
        return self._truth("any", skipna)

    def all(self, skipna=True):
        """each group's all (missing values skipped: true)"""
        return self._truth("all", skipna)

    def _truth(self, how, skipna):
        if not skipna:
            raise NotImplementedError("groupby %s(skipna=False) is not supported" % how)
        if not self._as_index:
            raise NotImplementedError("groupby %s with as_index=False is not supported" % how)
        cols = self._columns_for("count")
        dt = self._df.dtypes
        marks = {}
        for q, c in enumerate(cols):
            x = self._df[c]
            if dt[c] == object:
                t = x.str.len() > 0
            elif dt[c] == np.bool_:
                t = x
            elif np.issubdtype(dt[c], np.number):
                t = x != 0
            else:
                raise NotImplementedError("groupby %s of a column of %s" % (how, dt[c]))
            # any: a true value present; all: no false value present
            marks["_marsc_t%d" % q] = ((t & x.notna()) if how == "any" else
                                       (~t & x.notna())).astype("int64")
        frame = self._df._assigned(list(marks.items()))
        g = GroupBy(frame, self._by, list(marks), self._as_index, self._observed, self._dropna)
        g._sort = self._sort
        counts = g.sum()
        out = counts > 0 if how == "any" else counts == 0
        out = out.rename(columns=dict(zip(marks, cols)))
        out._columns = cols
        return out[cols[0]] if _one(self._sel) else out

    def cumcount(self, ascending=True):
        """Each row's position in its group (from the end: ascending False),
        an int64 Series."""
        return self.transform("cumcount", ascending=bool(ascending))

    def ngroup(self, ascending=True):
        """Each row's group number, groups in key order, an int64 Series."""
        return self.transform("ngroup", ascending=bool(ascending))

    def shift(self, periods=1):
        return self.transform("shift", periods=int(periods))

    def diff(self, periods=1):
        return self.transform("diff", periods=int(periods))

    def ffill(self, limit=None):
        return self.transform("ffill", limit=None if limit is None else int(limit))

    def bfill(self, limit=None):
        return self.transform("bfill", limit=None if limit is None else int(limit))

    pad = ffill
    backfill = bfill

    def rolling(self, window, min_periods=None, center=False, on=None, closed=None):
        """pandas' groupby(by).rolling(window): a number of rows, or a span
        of time ("2h", a Timedelta) over the DatetimeIndex or the datetime
        column `on` (closed as DataFrame.rolling's); then .sum(), .mean(),
        .min(), .max(), .std(), .var(), .count(), .median(), .quantile(q),
        indexed by the keys and then the rows' index, groups in key order,
        rows with a missing key left out."""
        if isinstance(window, (int, np.integer)) and not isinstance(window, bool):
            window = int(window)
        else:
            window = _time_literal(window) or window
        return _GroupRolling(self, window, min_periods, center, on, closed)

    def expanding(self, min_periods=1):
        """pandas' groupby(by).expanding(): .sum(), .mean(), .min(), .max(),
        .std(), .var(), .count(), each group's rows from its first, indexed
        as rolling's."""
        return _GroupExpanding(self, int(min_periods))

    def ewm(self, com=None, span=None, halflife=None, alpha=None, min_periods=0, adjust=True,
            ignore_na=False, times=None):
        """pandas' groupby(by).ewm(...): .mean(), .sum(), .var(), .std(),
        each group's recurrence from its first row, indexed as rolling's;
        times the name of a datetime column (halflife then a timedelta)."""
        return _GroupEwm(self, _ewm_params(com, span, halflife, alpha, min_periods, adjust,
                                           ignore_na, times))

    def fillna(self, value=None, method=None, limit=None):
        """pandas' groupby fillna with a method ("ffill"/"pad", "bfill"/
        "backfill"): the group's nearest present value; a fill value is the
        frame's own fillna (df.fillna(value))."""
        if value is not None or method is None:
            raise ValueError("groupby fillna takes a method (ffill, pad, bfill, backfill); "
                             "to fill with a value use df.fillna(value)")
        if method in ("ffill", "pad"):
            return self.ffill(limit)
        if method in ("bfill", "backfill"):
            return self.bfill(limit)
        raise ValueError("method must be ffill, pad, bfill or backfill, not %r" % (method,))

    def pct_change(self, periods=1, fill_method="pad", limit=None):
        """pandas' groupby pct_change: each group's values filled
        (fill_method, None: not filled), then the change against the filled
        value `periods` rows before, float64."""
        return self.transform("pct_change", periods=int(periods),
                              fill_method=_NULL if fill_method is None else fill_method,
                              limit=None if limit is None else int(limit))

    def rank(self, method="average", ascending=True, na_option="keep", pct=False):
        return self.transform("rank", method=method, ascending=bool(ascending),
                              na_option=na_option, pct=bool(pct))

    def idxmax(self, skipna=True):
        """The index label of each group's largest value (the first of equal
        ones), as pandas': the frame's rows that equal their group's
        transform("max"), the first of each group's label. A group whose
        values are all missing has no row here (pandas: NaN)."""
        return self._idx("max", skipna)

    def idxmin(self, skipna=True):
        return self._idx("min", skipna)

    def _idx(self, func, skipna):
        if not skipna:
            raise NotImplementedError("groupby idx%s: skipna=False is not supported" % func)
        names = self._df._index_names
        if names is None or len(names) != 1:
            raise NotImplementedError("groupby idx%s needs a frame of one index level whose "
                                      "name the client knows" % func)
        cols = [self._sel] if _one(self._sel) else self._columns_for("max")
        label = names[0] if names[0] is not None else "index"
        if label in self._df.columns or label in self._by:
            raise NotImplementedError("groupby idx%s: the index's name %r is a column too"
                                      % (func, label))
        flat = self._df.reset_index()
        g = GroupBy(flat, self._by, observed=self._observed)
        outs = []
        for c in cols:
            best = g[c].transform(func)
            rows = flat[flat[c] == best]
            outs.append(GroupBy(rows, self._by, observed=self._observed)[label].first()
                        .rename(c))
        out = outs[0] if _one(self._sel) else concat(outs, axis=1)
        return self._keyed(out)

    def describe(self):
        """pandas' SeriesGroupBy.describe of one selected column of numbers:
        count, mean, std, min, 25%, 50%, 75% and max per group (float64), as
        a groupby_agg and three groupby_quantile side by side. Of several
        columns (the numeric ones of the selection, else of the frame's
        columns that are no key, as pandas'): each's, side by side, fetched
        with pandas' MultiIndex columns (column, statistic); then it can
        only be fetched (further ops run on the fetched frame)."""
        if not _one(self._sel):
            import pandas as pd
            dt = self._df.dtypes
            cols = [c for c in (self._sel if self._sel is not None else dt.index)
                    if c not in self._by and np.issubdtype(dt[c], np.number)]
            if not cols:
                raise NotImplementedError("groupby describe of columns without numbers is not "
                                          "supported")
            stats = ["count", "mean", "std", "min", "25%", "50%", "75%", "max"]
            parts = [GroupBy(self._df, self._by, c, self._as_index, self._observed,
                             self._dropna).describe()
                     .rename(columns={t: "_mars_d%d_%d" % (i, j) for j, t in enumerate(stats)})
                     for i, c in enumerate(cols)]
            out = concat(parts, axis=1)

            def fn(got):
                got.columns = pd.MultiIndex.from_tuples([(c, t) for c in cols for t in stats])
                return got
            out = _as_fetched(out, fn)
            out._fetch_only = True
            return out
        g = GroupBy(self._df, self._by, self._sel, observed=self._observed)
        a = g.agg(count="count", mean="mean", std="std", min="min", max="max")
        qs = [g.quantile(q).rename(n) for q, n in ((0.25, "25%"), (0.5, "50%"), (0.75, "75%"))]
        parts = [a["count"].astype("float64"), a["mean"], a["std"], a["min"].astype("float64")] \
            + qs + [a["max"].astype("float64")]
        return self._keyed(concat(parts, axis=1))

    def quantile(self, q=0.5):
        p = {"by": self._by, "q": float(q)}
        if self._sel is not None:
            p["columns"] = [self._sel] if _one(self._sel) else list(self._sel)
        out = _make("dataframe.groupby_quantile", [self._df], p, "dataframe", p.get("columns"),
                    index_names=list(self._by))
        if _one(self._sel):
            out = out[self._sel]
        return self._keyed(out, fill="quantile")

    def agg(self, arg=None, *args, **named):
        """pandas' groupby agg: a func (g.agg("sum") is g.sum()), a list of
        funcs of one selected column (columns named after the funcs), a
        dict {column: func} (columns named as theirs), or named
        aggregations out=("column", "func") (of one selected column also
        out="func", or a list of (name, func) pairs). A func is a name or
        numpy's (np.sum, np.mean ...).
        What would make MultiIndex columns (a list of funcs over several
        columns, a list in a dict) is not supported."""
        if args:
            raise TypeError("agg takes one func, list or dict, or named aggregations")
        one = _one(self._sel)
        if one and isinstance(arg, (list, tuple)) and arg and all(
                isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) for x in arg):
            # pandas' [("lo", "min"), ("hi", "max")]: columns named so, in order
            if len({x[0] for x in arg}) != len(arg):
                raise NotImplementedError("agg: a name given twice among the (name, func) pairs")
            return self.agg(**dict(arg))
        if arg is not None and named:
            raise TypeError("agg takes a func, a list or a dict, or named aggregations, "
                            "not both")
        fused = self._agg_functions(arg, named, one)
        if fused is not None:
            return fused
        if arg is not None and not isinstance(arg, (list, tuple, dict)):
            if callable(arg) and not _numpy_agg(arg):
                if not one:  # each column's, side by side (pandas' frame of them)
                    if not self._as_index:
                        raise NotImplementedError("agg of a function over several columns with "
                                                  "as_index=False is not supported")
                    cols = list(self._sel) if self._sel is not None else \
                        [c for c in self._df.columns if c not in self._by]
                    out = concat([self[c].agg(arg) for c in cols], axis=1)
                    out._columns = cols
                    return out
                return self._keyed(_group_apply(self, arg, "groupby agg")[0].rename(self._sel),
                                   self._sel)
            return self._reduce(_func_name(arg))
        agg = {}
        if isinstance(arg, (list, tuple)):
            if not one:  # pandas' MultiIndex columns (column, func)
                cols = self._columns_for("sum" if all(
                    _func_name(fn) in self._NUMERIC for fn in arg) else "count")
                return self._multi_agg([(c, fn) for c in cols for fn in arg])
            for fn in arg:
                agg[_func_name(fn)] = [self._sel, _func_name(fn)]
        elif isinstance(arg, dict):
            if one:
                raise NotImplementedError("a selected column's agg takes a func or a list of "
                                          "them (pandas' dict renaming is deprecated)")
            if any(isinstance(fn, (list, tuple)) for fn in arg.values()):
                # pandas' MultiIndex columns (column, func)
                return self._multi_agg([(c, f) for c, fn in arg.items()
                                        for f in (fn if isinstance(fn, (list, tuple)) else [fn])])
            for c, fn in arg.items():
                agg[c] = [c, _func_name(fn)]
        for out, spec in named.items():
            if one and not isinstance(spec, (tuple, list)):
                agg[out] = [self._sel, _func_name(spec)]
                continue
            if not (isinstance(spec, (tuple, list)) and len(spec) == 2):
                raise TypeError("agg(%s=%r): expected (column, func)" % (out, spec))
            agg[out] = [spec[0], _func_name(spec[1])]
        if not agg:
            raise TypeError("agg needs a func, a list or a dict of funcs, or named "
                            "aggregations out=(\"column\", \"func\")")
        return self._keyed(_make("dataframe.groupby_agg", [self._df],
                                 self._agg_params(agg), "dataframe", list(agg),
                                 index_names=list(self._by)),
                           fill={o: spec[1] for o, spec in agg.items()})

    aggregate = agg

    def _multi_agg(self, pairs):
        """agg of several funcs per column: pandas' MultiIndex columns
        (column, func), which the engine's frames lack: the named
        aggregations, fetched with those columns (then it can only be
        fetched: further ops run on the fetched frame)"""
        import pandas as pd
        if not self._as_index:
            raise NotImplementedError("agg with MultiIndex columns and as_index=False is not "
                                      "supported")
        if any(callable(f) and not isinstance(f, str) and not _numpy_agg(f) for _, f in pairs):
            raise NotImplementedError("agg with MultiIndex columns takes the funcs' names (or "
                                      "numpy's): name a function's output, agg(out=(col, f))")
        named = {"_mars_agg%d" % i: (c, f) for i, (c, f) in enumerate(pairs)}
        out = GroupBy(self._df, self._by, None, self._as_index, self._observed,
                      self._dropna).agg(**named)
        tuples = [(c, _func_name(f)) for c, f in pairs]
        prev = out._fetched

        def fn(got):
            got = prev(got) if prev is not None else got
            got.columns = pd.MultiIndex.from_tuples(tuples)
            return got
        out = _as_fetched(out, fn)
        out._fetch_only = True
        return out

    def _agg_functions(self, arg, named, one):
        """agg's dict, list or named aggregations holding lambdas (or defs):
        each output its column's aggregation (a function read as apply's),
        all rebased onto one groupby, side by side; None when none is a
        function"""
        def is_fn(fn):
            return callable(fn) and not isinstance(fn, str) and not _numpy_agg(fn)
        specs = []
        if isinstance(arg, dict) and not one:
            specs = [(c, c, fn) for c, fn in arg.items() if not isinstance(fn, (list, tuple))]
        elif isinstance(arg, (list, tuple)) and one:
            lams = [fn for fn in arg if is_fn(fn) and fn.__name__ == "<lambda>"]
            for fn in arg:  # pandas' names: <lambda_0>, ... (one lambda among funcs too)
                name = "<lambda_%d>" % lams.index(fn) if fn in lams else \
                    fn.__name__ if is_fn(fn) else _func_name(fn)
                specs.append((name, self._sel, fn))
        for out, spec in named.items():
            if one and not isinstance(spec, (tuple, list)):
                specs.append((out, self._sel, spec))
            elif isinstance(spec, (tuple, list)) and len(spec) == 2:
                specs.append((out, spec[0], spec[1]))
        if not any(is_fn(fn) for _, _, fn in specs):
            return None
        if not self._dropna:
            raise NotImplementedError("groupby(dropna=False) of a function is not supported")
        parts = [GroupBy(self._df, self._by, col, observed=self._observed).agg(fn).rename(out)
                 for out, col, fn in specs]
        out = concat(_fuse_groupbys(parts), axis=1)
        out._columns, out._index_names = [o for o, _, _ in specs], list(self._by)
        return self._keyed(out)


def _aggregations_only(name):
    """GroupBy's method name, refused with dropna=False (which the cluster
    has for the aggregations only)"""
    orig = getattr(GroupBy, name)

    def method(self, *a, **kw):
        if not self._dropna:
            raise NotImplementedError("groupby(dropna=False).%s is not supported (the "
                                      "aggregations and size are)" % name)
        return orig(self, *a, **kw)
    method.__name__, method.__doc__ = orig.__name__, orig.__doc__
    setattr(GroupBy, name, method)


for _name in ("head", "tail", "nth", "apply", "filter", "transform", "cumcount", "ngroup",
              "shift", "diff", "ffill", "bfill", "rolling", "expanding", "ewm", "fillna",
              "pct_change", "rank", "idxmax", "idxmin", "describe", "quantile"):
    _aggregations_only(_name)
del _name


_NUMPY_FUNCS = {"sum": "sum", "nansum": "sum", "mean": "mean", "nanmean": "mean",
                "amin": "min", "min": "min", "nanmin": "min", "amax": "max", "max": "max",
                "nanmax": "max", "median": "median", "nanmedian": "median", "std": "std",
                "nanstd": "std", "var": "var", "nanvar": "var", "prod": "prod",
                "nanprod": "prod", "product": "prod", "len": "size"}


_UNKNOWN = object()
# ops whose Series keeps its input's name (the first Series input's)
_NAME_KEEPING = ("dataframe.dt.", "dataframe.str.", "dataframe.fillna", "dataframe.astype",
                 "dataframe.round", "dataframe.abs", "dataframe.clip", "dataframe.isna",
                 "dataframe.notna", "dataframe.replace", "dataframe.map", "dataframe.cut",
                 "dataframe.qcut", "astype", "abs", "negative", "floor", "ceil", "round", "sqrt",
                 "log", "exp", "logical_not") + _ROWS_KEPT + tuple(
                     o for o in _SAME_ROWS if o.startswith("dataframe.") and
                     o not in ("dataframe.getitem", "dataframe.assign", "dataframe.rename")) + (
                     "dataframe.value_counts", "dataframe.nlargest", "dataframe.nsmallest",
                     "dataframe.drop_duplicates", "dataframe.mode")
_ELEMENTWISE = ("add", "subtract", "multiply", "divide", "floor_divide", "mod", "power",
                "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                "logical_and", "logical_or")


def _series_name(node, memo=None):
    """The name the engine gives a Series node, where the client can tell:
    a column's, a rename's, and what name-keeping ops and element-wise ops
    (of Series of one name, or a Series and scalars) keep; else _UNKNOWN.
    (memo: each node's once, so that a deep expression reusing its parts
    costs its size, not its paths)"""
    if memo is None:
        memo = {}
    if id(node) in memo:
        return memo[id(node)]
    if node.op == "dataframe.getitem" and isinstance(node.params.get("columns"), (str, int)):
        out = node.params["columns"]
    elif node.op == "dataframe.rename" and "name" in node.params:
        out = node.params["name"]
    else:
        ins = [x for x in node.inputs if hasattr(x, "op") and
               getattr(x, "kind", None) == "series"]
        out = _UNKNOWN
        if node.op and (node.op.startswith(_NAME_KEEPING[:2]) or node.op in _NAME_KEEPING) \
                and ins:
            out = _series_name(ins[0], memo)
        elif node.op in _ELEMENTWISE and ins:
            names = {repr(_series_name(x, memo)) for x in ins}
            out = _series_name(ins[0], memo) if len(names) == 1 else None
    memo[id(node)] = out
    return out


class _GroupResampler:
    """g.resample(rule).agg(): the groups' keys are found first (a task),
    then each group's rows are resampled (a filter and dataframe.resample
    per group, all in one task) and the results fetched and put together as
    pandas' (the keys, then the bins), returned fetched. One key column;
    at most _MAX groups."""

    _MAX = 1000

    def __init__(self, g, rule, on, kw):
        self._g, self._rule, self._on, self._kw = g, rule, on, kw

    def __getitem__(self, cols):
        return _GroupResampler(self._g[cols], self._rule, self._on, self._kw)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in _GROUP_RESAMPLED:
            if self._g._sel is None and name in self._g._df.columns:
                return self[name]  # r.x: the column, as r["x"]
            raise AttributeError("marsc's groupby resample has no %r (%s are)"
                                 % (name, ", ".join(_GROUP_RESAMPLED)))
        return lambda *a, **k: self._run(name, a, k)

    def agg(self, func=None, **named):
        return self._run("agg", (func,) if func is not None else (), named)

    aggregate = agg

    def _run(self, name, args, kw):
        import pandas as pd
        g = self._g
        if len(g._by) != 1 or not g._as_index:
            raise NotImplementedError("groupby resample: by one key column (as_index True)")
        key, df = g._by[0], g._df
        keys = df[key].dropna().unique().fetch()
        if len(keys) > self._MAX:
            raise NotImplementedError("groupby resample: %d groups, more than %d: resample "
                                      "by the key with groupby([key, pd.Grouper(...)])"
                                      % (len(keys), self._MAX))
        keys = sorted(keys.tolist() if hasattr(keys, "tolist") else list(keys))
        sel = g._sel
        parts = []
        for k in keys:
            rows = df[df[key] == k]
            if sel is None:  # the other columns, as pandas drops the key
                cols = [c for c in df.columns if c != key]
                rows = rows[cols]
            if _one(sel) and self._on is None:  # a Series' resample (agg of a list ...)
                r = rows[sel].resample(self._rule, **self._kw)
            else:
                r = rows.resample(self._rule, on=self._on, **self._kw)
                r = r if sel is None else r[sel]
            parts.append(getattr(r, name)(*args, **kw))
        if not parts:
            raise ValueError("groupby resample: no group")
        execute(*parts)
        got = [x.fetch() for x in parts]
        out = pd.concat(got, keys=keys, names=[key])
        if name == "size" and _one(sel):  # pandas names a column's sizes after it
            out = out.rename(sel)
        return out


_GROUP_RESAMPLED = ("sum", "mean", "min", "max", "count", "std", "var", "median", "prod",
                    "first", "last", "nunique", "size", "ohlc")


def _levels_named(f, level, names):
    """groupby(level=...)'s levels (names or positions) of f, whose index
    levels are names: (f with its unnamed levels among them named for the
    grouping, the levels' names then, the keys, those temporary names)"""
    want = list(level) if isinstance(level, (list, tuple)) else [level]
    at = [_level_at(names, lv) for lv in want]
    tmp = {"_marsc_l%d" % q for q, nm in enumerate(names) if nm is None}
    if tmp:  # every unnamed level (reset_index makes them columns)
        names = ["_marsc_l%d" % q if nm is None else nm for q, nm in enumerate(names)]
        f = f.rename_axis(names)
    return f, names, [names[q] for q in at], tmp


class _LevelsShown:
    """A groupby by index levels of rows (the frame or Series grouped,
    its index made columns): its results' levels unnamed again where they
    were (tmp: the names given for the grouping), and what keeps the rows
    (transform, cumsum, shift, rank ...) on the rows' own index again, as
    pandas' (lined up with them: reset_index keeps the rows)."""

    _ROW_WISE = ("transform", "cumsum", "cumprod", "cummax", "cummin", "cumcount", "shift",
                 "diff", "ffill", "bfill", "fillna", "pct_change", "rank", "ngroup")

    def __init__(self, g, tmp, rows):
        self._g, self._tmp, self._rows = g, tmp, rows

    def _back(self, out):
        names = getattr(out, "_index_names", None) if isinstance(out, _Frame) else None
        if names and any(n in self._tmp for n in names):
            return out.rename_axis([None if n in self._tmp else n for n in names])
        return out

    def _rows_back(self, out):
        """a row-wise result (lined up with the rows made of the index) on
        the rows' index: a where whose condition (always true) is of the
        rows, so the result is theirs, index and all"""
        rows = self._rows
        first = rows if isinstance(rows, Series) else rows[rows.columns[0]]
        every = first.notna() | first.isna()
        if isinstance(out, Series):
            return elementwise("where", [every, out, out])
        if isinstance(out, DataFrame):
            cols = list(out.columns)
            res = rows[cols].copy()
            for c in cols:
                res[c] = elementwise("where", [every, out[c], out[c]])
            return res
        return out

    def __getitem__(self, key):
        return _LevelsShown(self._g[key], self._tmp, self._rows)

    def __getattr__(self, attr):
        f = getattr(self._g, attr)
        if isinstance(f, (GroupBy, _GroupByRenamed)):
            return _LevelsShown(f, self._tmp, self._rows)
        if not callable(f):
            return f

        def shown(*a, **kw):
            out = f(*a, **kw)
            return self._rows_back(out) if attr in self._ROW_WISE else self._back(out)
        return shown


class _GroupByRenamed:
    """A Series' groupby whose values were named for the grouping: its
    results named back (None, as pandas' for an unnamed Series)."""

    def __init__(self, g, name):
        self._g, self._name = g, name

    def __getattr__(self, attr):
        f = getattr(self._g, attr)
        if self._name is not None or not callable(f):
            return f

        def named(*a, **kw):
            out = f(*a, **kw)
            return out.rename(None) if isinstance(out, Series) else out
        return named


class _Names(list):
    """column names: a list, with pandas' Index's tolist(), to_list(), str
    and map (which give a pandas Index: df.columns =
    df.columns.str.lower() renames)"""

    def tolist(self):
        return list(self)

    to_list = tolist

    def __getitem__(self, k):  # a slice stays names: df.columns[1:3].tolist()
        got = list.__getitem__(self, k)
        return _Names(got) if isinstance(k, slice) else got

    @property
    def str(self):
        import pandas as pd
        return pd.Index(list(self)).str

    def map(self, mapper):
        import pandas as pd
        return pd.Index(list(self)).map(mapper)


def _scalar(v):
    """a fetched 0-d tensor as numpy's scalar (pandas' reductions give one)"""
    return v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v


def _pandas_has(cls, name):
    """Whether pandas' class (DataFrame, Series, or groupby's) has an
    attribute of that name: attribute access to a column of that name does
    not reach the column in pandas either."""
    import pandas as pd
    from pandas.core.groupby import DataFrameGroupBy
    from pandas.core.resample import Resampler
    c = {"GroupBy": DataFrameGroupBy, "Resampler": Resampler}.get(cls) or getattr(pd, cls)
    return hasattr(c, name)


def _numpy_agg(fn):
    """Whether fn is one of numpy's or the builtins' aggregations that
    _func_name names (np.sum, len ...)"""
    try:
        _func_name(fn)
        return True
    except NotImplementedError:
        return False


# reductions: what transform refuses, as pandas ("Function did not transform")
_NOT_TRANSFORMS = ("sum", "mean", "min", "max", "count", "std", "var", "median", "prod", "nunique",
                   "any", "all", "sem", "skew", "kurt", "size", "first", "last", "idxmax", "idxmin",
                   "quantile", "mode", "describe", "agg", "aggregate")


def _func_name(fn):
    """An aggregation's name: a string as it is; numpy's functions and the
    builtins sum, min, max and len by what they compute (pandas maps them
    to its own, which skip missing values: np.std is ddof 1 there)."""
    if isinstance(fn, str):
        return fn
    name = getattr(fn, "__name__", None)
    if callable(fn) and name in _NUMPY_FUNCS and \
            (getattr(fn, "__module__", "") in ("numpy", "builtins") or isinstance(fn, np.ufunc)
             or fn is getattr(np, name, None)):
        return _NUMPY_FUNCS[name]
    raise NotImplementedError("agg: %r is not one of the engine's aggregations (a name such as "
                              "\"sum\", or numpy's np.sum, np.mean ...); a lambda or a def of "
                              "one expression runs over a selected column (g[\"x\"].agg(f))"
                              % (fn,))


def jsonable_col(c):
    if isinstance(c, np.generic):
        return c.item()
    return c


def _convert(op, arg, errors, **params):
    """dataframe.to_datetime or to_timedelta of a Series; params left out
    where None."""
    if not isinstance(arg, Series):
        raise TypeError("marsc %s takes a Series (a column of strings or numbers)" % op)
    if errors not in ("raise", "coerce"):
        raise NotImplementedError('%s: errors must be "raise" or "coerce"' % op)
    p = {"errors": errors} if errors != "raise" else {}
    p.update({k: v for k, v in params.items() if v is not None})
    return _make("dataframe." + op, [arg], p, "series")


# what pandas' to_numeric reads as a number (POSIX extended, fullmatch):
# an integer of int64 (18 digits at most here), else a float (a point, an
# exponent, inf or infinity; not nan), spaces around either
_NUM_SPACE = "[[:space:]]*"
_INT_TEXT = _NUM_SPACE + "[+-]?[0-9]{1,18}" + _NUM_SPACE
_FLOAT_TEXT = (_NUM_SPACE + "[+-]?(([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?|"
               "[iI][nN][fF]([iI][nN][iI][tT][yY])?)" + _NUM_SPACE)


def _is_to_numeric(func):
    """whether func is pandas' to_numeric or marsc's"""
    return func is to_numeric or (getattr(func, "__name__", None) == "to_numeric" and
                                  getattr(func, "__module__", "").startswith("pandas"))


def to_numeric(arg, errors="raise", downcast=None):
    """pd.to_numeric of a Series: numbers and bools as they are; strings
    parsed as pandas parses them, int64 where every value is an integer,
    else float64 (a missing value or "" is NaN); errors "raise" (pandas'
    'Unable to parse string "x" at position 3'), "coerce" (NaN) or
    "ignore" (the Series as it was). pandas' result type depends on every
    value, so the strings are read first, as a task of their own: which
    are no number (the first of them, for the error) and whether all are
    integers. Integers of 19 digits or more are read as float64 (pandas:
    int64 to 2**63 - 1, then uint64). A scalar, a list or an array is
    pandas' own."""
    import pandas as pd
    from ..core import execute
    if errors not in ("raise", "coerce", "ignore"):
        raise ValueError("invalid error value specified")
    if downcast is not None:
        raise NotImplementedError("to_numeric: downcast is not supported (the cluster's "
                                  "frames hold int64 and float64)")
    if not isinstance(arg, _Frame):
        return pd.to_numeric(arg, errors=errors)
    if not isinstance(arg, Series):
        raise TypeError("arg must be a list, tuple, 1-d array, or Series")
    if arg.dtype != object:
        if arg.dtype.kind not in "biuf":
            raise NotImplementedError("to_numeric of %s values is not supported" % arg.dtype)
        return arg
    text = arg.notna()
    num = arg.str.fullmatch(_FLOAT_TEXT).fillna(False).astype(bool)
    ints = arg.str.fullmatch(_INT_TEXT).fillna(False).astype(bool)
    bad = text & ~num & (arg != "")
    rows = arg.reset_index(drop=True)
    first = rows[bad.reset_index(drop=True)].head(1)
    floats, nbad = (~ints).any(), bad.any()
    execute(first, floats, nbad)
    if bool(nbad.fetch()):
        if errors == "ignore":
            return arg
        if errors == "raise":
            got = first.fetch()
            raise ValueError('Unable to parse string "%s" at position %d'
                             % (got.iloc[0], got.index[0]))
    return _make("dataframe.astype", [arg.str.strip().where(num)],
                 {"dtype": "float64" if bool(floats.fetch()) else "int64"}, "series")


def to_datetime(arg, errors="raise", format=None, unit=None, dayfirst=False):
    """pd.to_datetime of a Series: strings (ISO 8601 forms, or `format`,
    strptime's directives), numbers of `unit` (D, h, m, s, ms, us, ns) since
    1970-01-01, datetimes as they are; errors "raise" or "coerce" (NaT).
    dayfirst=True reads 01/02/2024 as the 1st of February, as pandas."""
    return _convert("to_datetime", arg, errors, format=format, unit=unit,
                    dayfirst=True if dayfirst else None)


def to_timedelta(arg, unit=None, errors="raise"):
    """pd.to_timedelta of a Series: strings in pandas' forms ("1 days
    02:00:00", "-1 days +23:00:00", "02:30:00", "2h30min", "45s"), numbers
    of `unit` (D, h, m, s, ms, us, ns; default ns), timedeltas as they
    are; errors "raise" or "coerce" (NaT)."""
    return _convert("to_timedelta", arg, errors, unit=unit)


def concat(objs, axis=0, join="outer", ignore_index=False, keys=None, names=None):
    """pd.concat: DataFrames (or Series) one after the other (axis 0; with
    ignore_index a new default index 0..n-1; with keys, or a dict of
    them, a first index level of each one's key, named by names), or side
    by side (axis 1, join "outer" or "inner")."""
    if isinstance(objs, dict):
        keys = list(objs) if keys is None else list(keys)
        objs = [objs[k] for k in keys]
    objs = list(objs)
    if not objs:
        raise ValueError("No objects to concatenate")
    rows = axis in (0, "index")
    if not rows and axis not in (1, "columns"):
        raise ValueError("axis must be 0 (rows) or 1 (columns), not %r" % (axis,))
    if keys is not None and not ignore_index:
        if not rows:
            raise NotImplementedError("concat(keys=...) along the columns makes MultiIndex "
                                      "columns, which are not supported")
        keys = list(keys)
        if len(keys) != len(objs):
            raise ValueError("concat: %d keys for %d objects" % (len(keys), len(objs)))
        out = concat([_keyed_rows(o, k) for o, k in zip(objs, keys)], join=join)
        if names is not None:
            have = list(out._index_names)
            names = list(names)
            out = out.rename_axis(names + have[len(names):])
        return out
    if rows and len(objs) > 1:
        objs = _one_schema(objs, join)
    p = {} if rows else {"axis": 1}
    if join != "outer" and not rows:
        p["join"] = join
    if ignore_index:
        p["ignore_index"] = True
    series = rows and all(isinstance(o, Series) for o in objs)
    cols = objs[0]._columns if rows and isinstance(objs[0], DataFrame) else None
    return _make("dataframe.concat", objs, p, "series" if series else "dataframe", cols,
                 index_names=None if ignore_index else _KEEP)


def _one_schema(objs, join):
    """concat's frames along the rows made of one schema, as pandas puts
    them together: Series of different names unnamed; DataFrames of other
    columns or orders given the union of the columns in order of first
    appearance (join="inner": the columns all have), a column a frame
    lacks all missing there (NaN, None or NaT, as its type is where it is
    held). int64 beside float64 is float64 (the engine's)."""
    if all(isinstance(o, Series) for o in objs):
        names = [_series_name(o._ref) for o in objs]
        names = [o.head(0).name if nm is _UNKNOWN else nm for o, nm in zip(objs, names)]
        if len({repr(nm) for nm in names}) > 1:
            return [o.rename(None) for o in objs]
        return objs
    if not all(isinstance(o, DataFrame) for o in objs):
        return objs
    cols = [list(o.columns) for o in objs]
    if all(c == cols[0] for c in cols):
        return objs
    import pandas as pd
    if join == "inner":
        want = [c for c in cols[0] if all(c in have for have in cols)]
    else:
        want = []
        for have in cols:
            want += [c for c in have if c not in want]
    typed = {}
    for c in want:
        if any(c not in have for have in cols):
            t = objs[next(q for q, have in enumerate(cols) if c in have)].dtypes[c]
            if t.kind in "iuf":
                typed[c] = np.nan
            elif t == object:
                typed[c] = None
            elif t.kind == "M":
                typed[c] = pd.NaT
            else:
                raise NotImplementedError("concat: the column %r (%s) is missing from a frame; "
                                          "pandas would make it object" % (c, t))
    out = []
    for o, have in zip(objs, cols):
        miss = [c for c in want if c not in have]
        o = o._assigned([(c, o._const(typed[c])) for c in miss]) if miss else o
        out.append(o if have + miss == want else o[want])
    return out


def _frame_of_series(data, columns, index, dtype):
    """md.DataFrame of a marsc Series or a dict of them (and scalars, a
    column of that value): the Series side by side (concat along the
    columns, aligned on their index), named by the dict's keys; None for
    other data"""
    if isinstance(data, DataFrame) and columns is None and index is None and dtype is None:
        return copy.copy(data)
    if isinstance(data, Series):
        data = {_series_name(data._ref) if _series_name(data._ref) is not _UNKNOWN
                else data.name: data}
        if columns is not None and list(data) == [None]:
            data = {columns[0]: data[None]}
    if not (isinstance(data, dict) and any(isinstance(v, Series) for v in data.values())):
        return None
    if index is not None or dtype is not None:
        raise NotImplementedError("md.DataFrame of marsc Series takes no index or dtype (use "
                                  "set_index, astype)")
    names = list(data) if columns is None else [c for c in columns if c in data]
    series = [(k, data[k]) for k in names if isinstance(data[k], Series)]
    out = concat([v.rename(0 if k is None else k) for k, v in series], axis=1)
    consts = [(k, data[k]) for k in names if not isinstance(data[k], Series)]
    if consts:
        out = out._assigned([(k, out._const(v)) for k, v in consts])
    want = [0 if k is None else k for k in names]
    return out if list(out.columns) == want else out[want]


def _tables_side_by_side(tables, put):
    """a table that can only be fetched: the first of tables, fetched
    with the others (one task) and put(their pandas values) made of
    them"""
    from ..core import execute
    first, prev = tables[0], tables[0]._fetched

    def fn(got):
        got = prev(got) if prev is not None else got
        if len(tables) > 1:
            execute(*tables[1:])
        return put([got] + [t.fetch() for t in tables[1:]])
    out = _as_fetched(copy.copy(first), fn)
    out._fetch_only = True
    return out


def _level_at(names, level):
    """the position of an index level (a name, or a position)"""
    if level is None:  # (an unnamed level is reached by its position)
        raise KeyError("Level None not found")
    if isinstance(level, (int, np.integer)) and not isinstance(level, bool) and \
            level not in names:
        if not -len(names) <= level < len(names):
            raise IndexError("Too many levels: Index has only %d levels, not %d"
                             % (len(names), level + 1))
        return int(level) % len(names)
    if level not in names:
        raise KeyError("Level %s not found" % (level,))
    return names.index(level)


def _levels_kept(f, which, drop=False, keep_columns=False):
    """f with the index levels which(names) gives (positions, in order),
    or, with drop, all but the ones which names; keep_columns: the others
    become columns (named as reset_index names them), else dropped"""
    def make(flat, idx, names):
        if drop:
            gone = {_level_at(names, x) for x in ([which] if _one(which) else which)}
            if len(gone) >= len(names):
                raise ValueError("Cannot remove %d levels from an index with %d levels: at "
                                 "least one level must be left." % (len(gone), len(names)))
            order = [q for q in range(len(names)) if q not in gone]
        else:
            order = which(names)
        other = [q for q in range(len(names)) if q not in order]
        if keep_columns:
            shown = {idx[q]: (names[q] if names[q] is not None else
                              "level_%d" % q if len(names) > 1 else "index") for q in other}
            flat = flat.rename(columns=shown)
        elif other:
            flat = flat.drop(columns=[idx[q] for q in other])
        return flat, [idx[q] for q in order], [names[q] for q in order]
    return _relevelled(f, make)


def _relevelled(f, make):
    """f (a frame or a Series) with its index made anew from its levels
    as columns: make(frame, the levels' columns, their names) gives the
    frame, the columns to index it by and their names"""
    series = isinstance(f, Series)
    flat, idx, names = _index_as_columns(f.rename("_marsc_v") if series else f)
    flat, levels, names = make(flat, idx, names)
    out = flat.set_index(levels).rename_axis(names)
    if not series:
        return out
    name = _series_name(f._ref)
    return out["_marsc_v"].rename(f.head(0).name if name is _UNKNOWN else name)


def _keyed_rows(f, key):
    """f's rows with the index level key before its own (concat's keys)"""
    return _relevelled(f, lambda flat, idx, names: (
        flat.assign(_marsc_key=key), ["_marsc_key"] + idx, [None] + names))


def _reindexed_rows(f, labels, fill_value=np.nan):
    """pandas' reindex of the rows of a one-level index: a row per label,
    in their order, f's row of that label or missing values (fill_value
    where given): the labels uploaded with their positions, merged with
    f's rows by label (a label f holds twice gives both rows, where pandas
    refuses duplicate labels)"""
    import pandas as pd
    series = isinstance(f, Series)
    src = f.rename("_marsc_v") if series else f
    flat, idx, names = _index_as_columns(src)
    if len(idx) != 1:
        raise NotImplementedError("reindex of the rows of an index of one level")
    freq = getattr(labels, "freqstr", None)  # a DatetimeIndex's, kept as pandas'
    if isinstance(labels, pd.Index):  # pandas' result has that index, its name too
        names = [labels.name]
    labels = pd.Index(labels)
    keys = _local.frame(pd.DataFrame({idx[0]: labels, "_marsc_o": np.arange(len(labels))}),
                        session=f._session)
    both = keys.merge(flat, on=idx[0], how="left",
                      indicator="_marsc_m" if fill_value is not np.nan and
                      not (isinstance(fill_value, float) and np.isnan(fill_value)) else False)
    both = both.sort_values("_marsc_o", kind="stable")
    cols = ["_marsc_v"] if series else list(src.columns)
    if "_marsc_m" in both.columns:  # fill_value in the new rows, as pandas keeps types
        new = both["_marsc_m"] == "left_only"
        dt = src.dtypes if not series else {"_marsc_v": src.dtype}
        text = isinstance(fill_value, str)
        for c in cols:
            if (dt[c] == object) != text:
                raise NotImplementedError("reindex: fill_value %r into the column %r (%s) "
                                          "would mix types" % (fill_value, c, dt[c]))
            both[c] = both[c].mask(new, fill_value)
            if dt[c].kind in "iu" and isinstance(fill_value, (int, np.integer)):
                both[c] = both[c].astype("int64")
    out = both.set_index(idx[0])[cols].rename_axis(names)
    if series:
        name = _series_name(f._ref)
        out = out["_marsc_v"].rename(f.head(0).name if name is _UNKNOWN else name)
    return _as_fetched(out, _with_freq(freq), keep=True) if freq else out


def _relabelled(f, how):
    """f with its one-level index's labels renamed by how (a dict: the
    labels it holds, others kept; a function of each label, as map
    runs it), as pandas' rename(index=...)"""
    def make(flat, idx, names):
        if len(idx) != 1:
            raise NotImplementedError("rename(index=...) of an index of one level")
        lv = flat[idx[0]]
        if isinstance(how, dict):
            pairs = {k: v for k, v in how.items()}
            new = lv.replace(pairs) if pairs else lv
        else:
            new = lv.map(how)
        flat = flat.copy()
        flat[idx[0]] = new
        return flat, idx, names
    return _relevelled(f, make)


def merge(left, right, how="inner", on=None, left_on=None, right_on=None, left_index=False,
          right_index=False, sort=False, suffixes=("_x", "_y"), indicator=False,
          validate=None):
    """pd.merge(left, right, ...): left.merge(right, ...)."""
    return left.merge(right, how=how, on=on, left_on=left_on, right_on=right_on,
                      left_index=left_index, right_index=right_index, sort=sort,
                      suffixes=suffixes, indicator=indicator, validate=validate)


def _merge_validated(left, right, on, left_on, right_on, left_index, right_index, validate):
    """pandas' merge validate: the side that must be unique has no key
    twice (a task of its own), else pandas' MergeError"""
    import pandas as pd
    from ..core import execute
    kinds = {"one_to_one": "11", "1:1": "11", "one_to_many": "1m", "1:m": "1m",
             "many_to_one": "m1", "m:1": "m1", "many_to_many": "mm", "m:m": "mm"}
    if validate not in kinds:
        raise ValueError('"%s" is not a valid argument. Valid arguments are:\n- "1:1"\n- '
                         '"1:m"\n- "m:1"\n- "m:m"\n- "one_to_one"\n- "one_to_many"\n- '
                         '"many_to_one"\n- "many_to_many"' % validate)

    def dup(f, keys, by_index):
        if by_index:
            return f.index.duplicated().any()  # the index: fetched
        keys = [keys] if _one(keys) else list(keys)
        return f[keys].duplicated().sum()
    checks, sides = [], []
    for side, f, keys, by_index in (("left", left, left_on if on is None else on, left_index),
                                    ("right", right, right_on if on is None else on,
                                     right_index)):
        if kinds[validate][0 if side == "left" else 1] == "1":
            checks.append(dup(f, keys, by_index))
            sides.append(side)
    lazy = [c for c in checks if isinstance(c, Entity)]
    if lazy:
        execute(*lazy)
    for side, c in zip(sides, checks):
        if bool(c.fetch() if isinstance(c, Entity) else c):
            raise pd.errors.MergeError("Merge keys are not unique in %s dataset; not a %s "
                                       "merge" % (side, {"11": "one-to-one",
                                                         "1m": "one-to-many",
                                                         "m1": "many-to-one"}[kinds[validate]]))


def pivot_table(data, values=None, index=None, columns=None, aggfunc="mean", fill_value=None,
                margins=False, margins_name="All"):
    """pd.pivot_table(data, ...): data.pivot_table(...)."""
    return data.pivot_table(values=values, index=index, columns=columns, aggfunc=aggfunc,
                            fill_value=fill_value, margins=margins, margins_name=margins_name)


def melt(frame, id_vars=None, value_vars=None, var_name=None, value_name="value"):
    """pd.melt(frame, ...): frame.melt(...)."""
    return frame.melt(id_vars=id_vars, value_vars=value_vars, var_name=var_name,
                      value_name=value_name)


def isna(obj):
    """pd.isna of a DataFrame or Series (isnull too)."""
    return obj.isna()


def notna(obj):
    return obj.notna()


isnull, notnull = isna, notna


def unique(values):
    """pd.unique of a Series: its distinct values in order of appearance."""
    return values.unique()


def crosstab(index, columns, values=None, aggfunc=None, dropna=True, margins=False,
             margins_name="All", normalize=False):
    """pd.crosstab(index, columns) of two Series of one frame's rows: the
    count of each pair, index's values as the rows, columns' as the
    columns, 0 where no row has the pair (groupby of both, size, unstack
    with fill_value 0). Their names must be known here and differ; values
    and aggfunc are not supported. margins (the totals, named
    margins_name) and normalize (True or "all", "index", "columns": shares
    of the grand, row or column totals) are pandas', worked out on the
    fetched table. A table, as unstack's."""
    if not (isinstance(index, Series) and isinstance(columns, Series)):
        raise NotImplementedError("crosstab takes two Series (lists of several are not "
                                  "supported)")
    if not dropna:
        raise NotImplementedError("crosstab: dropna=False is not supported")
    names = [_series_name(index._ref), _series_name(columns._ref)]
    if any(nm is _UNKNOWN or nm is None for nm in names) or names[0] == names[1]:
        raise NotImplementedError("crosstab of Series whose names are not known here or are "
                                  "the same: rename() them (%r, %r)" % tuple(names))
    if (values is None) != (aggfunc is None):
        raise ValueError("aggfunc cannot be used without values." if values is None else
                         "values cannot be used without an aggfunc.")
    if values is not None:  # values' aggfunc per pair: pivot_table's table
        if not isinstance(values, Series) or margins or normalize is not False:
            raise NotImplementedError("crosstab with values: a Series, without margins or "
                                      "normalize")
        both = concat([index.rename(names[0]), columns.rename(names[1]),
                       values.rename("_marsc_values")], axis=1)
        both._columns = names + ["_marsc_values"]
        return both.pivot_table(index=names[0], columns=names[1], values="_marsc_values",
                                aggfunc=aggfunc)
    both = concat([index, columns], axis=1)
    both._columns = names
    both._cats = {n: s._cats[None] for n, s in zip(names, (index, columns))
                  if s._cats and None in s._cats} or None
    # pandas' crosstab: the observed categories of categorical Series
    table = both.groupby(names, observed=True).size().unstack(fill_value=0)
    if normalize not in (False, True, "all", "index", "columns", 0, 1):
        raise ValueError("Not a valid normalize argument")
    if not margins and normalize is False:
        return table

    def shares(t):
        how = None if normalize is False else "all" if normalize is True else \
            {0: "index", 1: "columns"}.get(normalize, normalize)
        total = t.to_numpy().sum()
        rows, cols = t.sum(axis=1), t.sum(axis=0)
        if how == "index":
            out = t.div(rows, axis=0)
        elif how == "columns":
            out = t / cols
        elif how == "all":
            out = t / total
        else:
            out = t
        if margins:
            def share(x):
                return x / total if how else x
            if how in (None, "all", "columns"):  # the column of row totals
                out[margins_name] = share(rows)
            if how in (None, "all", "index"):  # the row of column totals
                last = share(cols)
                if how != "index":
                    last[margins_name] = share(total)
                out.loc[margins_name] = last
        return out
    return _carried_on_fetched_fn(table, shares)


def cut(x, bins, right=True, labels=None, retbins=False, precision=3, include_lowest=False,
        duplicates="raise", ordered=True):
    """pd.cut of a Series of numbers: bins a count or the edges; labels
    False (the bins' codes), None (the intervals) or a list: pandas'
    categorical (the cluster holds the intervals' text, "(0.991, 4.0]";
    _carried.py keeps the dtype)."""
    if retbins:
        raise NotImplementedError("cut(retbins=True) is not supported")
    if not isinstance(x, Series):
        raise TypeError("cut takes a Series (a DataFrame's column)")
    p = {"bins": bins if isinstance(bins, (int, np.integer)) else [
        int(b) if isinstance(b, (int, np.integer)) else float(b) for b in bins]}
    if isinstance(p["bins"], np.integer):
        p["bins"] = int(p["bins"])
    if not right:
        p["right"] = False
    if labels is not None:
        p["labels"] = False if labels is False else [str(v) for v in labels]
    if precision != 3:
        p["precision"] = int(precision)
    if include_lowest:
        p["include_lowest"] = True
    if duplicates != "raise":
        p["duplicates"] = duplicates
    if not ordered:
        p["ordered"] = False
    out = _make("dataframe.cut", [x], p, "series", x._columns)
    d = _cat_cut_dtype(x, bins, right, labels, precision, include_lowest, duplicates, ordered)
    out._cats = None if d is None else {None: d}
    return out


def qcut(x, q, labels=None, retbins=False, precision=3, duplicates="raise"):
    """pd.qcut of a Series of numbers: edges at the quantiles of its values
    (q a count or a list of quantiles), then as cut (include_lowest)."""
    if retbins:
        raise NotImplementedError("qcut(retbins=True) is not supported")
    if not isinstance(x, Series):
        raise TypeError("qcut takes a Series (a DataFrame's column)")
    p = {"q": int(q) if isinstance(q, (int, np.integer)) else [float(v) for v in q]}
    if labels is not None:
        p["labels"] = False if labels is False else [str(v) for v in labels]
    if precision != 3:
        p["precision"] = int(precision)
    if duplicates != "raise":
        p["duplicates"] = duplicates
    out = _make("dataframe.qcut", [x], p, "series", x._columns)
    d = _cat_cut_dtype(x, None, True, labels, precision, True, duplicates, True, q=q)
    out._cats = None if d is None else {None: d}
    return out


def get_dummies(data, prefix=None, prefix_sep="_", dummy_na=False, columns=None,
                drop_first=False, dtype=None):
    """pandas' pd.get_dummies of a DataFrame or a Series (dataframe.get_dummies).
    The categories are the sorted distinct values of each encoded column,
    as pandas': they are found first, as a task of their own (with the
    frame's dtypes when `columns` is None, to pick its string columns).
    dtype: pandas 1.5's uint8 by default (int64 on the cluster, the
    dummy columns fetched as uint8: _narrowed), bool, int or float."""
    import pandas as pd
    from ..core import execute
    names = {None: "int64", np.uint8: "int64", "uint8": "int64", bool: "bool", np.bool_: "bool", "bool": "bool", int: "int64",
             np.int64: "int64", "int64": "int64", "int": "int64", float: "float64",
             np.float64: "float64", "float64": "float64", "float": "float64"}
    if dtype not in names:
        raise ValueError("get_dummies: dtype %r is not held here (uint8, bool, int64 or "
                         "float64)" % (dtype,))
    series = isinstance(data, Series)
    if series:
        enc = [None]
        if columns is not None:
            raise ValueError("get_dummies: columns is for DataFrames")
    elif columns is not None:
        enc = _names(columns)
    else:
        dt = data.dtypes
        enc = [c for c, t in dt.items() if t == object]
    cats = {}
    if enc:
        uniq = [(data if series else data[c]).drop_duplicates() for c in enc]
        execute(*uniq)
        for c, u in zip(enc, uniq):
            v = u.fetch()
            cats[c] = sorted(x.item() if isinstance(x, np.generic) else x
                             for x in v.dropna().tolist())
    params = {"categories": cats[None] if series else cats, "prefix": prefix,
              "prefix_sep": prefix_sep, "dummy_na": bool(dummy_na) or None,
              "drop_first": bool(drop_first) or None, "dtype": names[dtype]}
    if not series:
        params["columns"] = enc
    out = _make("dataframe.get_dummies", [data], {k: v for k, v in params.items()
                                                  if v is not None}, "dataframe")
    if dtype not in (None, np.uint8, "uint8"):
        return out
    # the dummy columns' names, as pandas names them (of the categories alone)
    if series:
        probe = pd.get_dummies(pd.Series(cats[None], dtype=object), prefix=prefix,
                               prefix_sep=prefix_sep, dummy_na=dummy_na, drop_first=drop_first)
    else:
        probe = pd.get_dummies(pd.DataFrame({c: pd.Series(cats[c], dtype=object)
                                             for c in enc} if enc else {}),
                               prefix=prefix, prefix_sep=prefix_sep, dummy_na=dummy_na,
                               columns=enc, drop_first=drop_first)
    return _narrowed(out, {c: "uint8" for c in probe.columns})


def merge_asof(left, right, on=None, left_on=None, right_on=None, left_index=False,
               right_index=False, by=None, left_by=None, right_by=None, suffixes=("_x", "_y"),
               tolerance=None, allow_exact_matches=True, direction="backward"):
    """pd.merge_asof: each left row with the right row of the nearest key
    before it (direction backward), after it (forward) or either
    (nearest), among those of the same by values; both sides sorted by the
    key; a tolerance a number, or a Timedelta for datetime keys. Keys are
    columns (on, or left_on and right_on): reset_index first to join on
    the index."""
    if left_index or right_index:
        raise NotImplementedError("merge_asof on the index: reset_index() first and pass on=")
    p = {k: v for k, v in (("on", on), ("left_on", left_on), ("right_on", right_on),
                           ("by", _names(by)), ("left_by", _names(left_by)),
                           ("right_by", _names(right_by))) if v is not None}
    if tuple(suffixes) != ("_x", "_y"):
        p["suffixes"] = list(suffixes)
    if tolerance is not None:
        p["tolerance"] = _time_literal(tolerance) or tolerance
    if allow_exact_matches is not True:
        p["allow_exact_matches"] = allow_exact_matches
    if direction != "backward":
        p["direction"] = direction
    return _make("dataframe.merge_asof", [left, right], p, "dataframe", index_names=None)


_ASSIGN = re.compile(r"^\s*([A-Za-z_]\w*|`[^`]+`)\s*=(?!=)(.*)$", re.S)


def _in_place(df, new):
    """df becomes new (pandas' inplace=True); returns None as pandas"""
    df._ref, df._columns, df._cats = new._ref, new._columns, new._cats
    df._index_names = new._index_names


def _literal(v, name):
    """v as a literal of the engine's expression language"""
    import pandas as pd
    if isinstance(v, (pd.Series, pd.Index, np.ndarray, list, tuple, set, frozenset)):
        items = sorted(v, key=repr) if isinstance(v, (set, frozenset)) else list(v)
        return "[%s]" % ", ".join(_literal(x, name) for x in items)
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, (int, float)):
        if v != v or v in (float("inf"), float("-inf")):
            raise ValueError("@%s is %r, which the cluster's expressions cannot name: compare "
                             "with isna() or a number" % (name, v))
        return repr(v)
    if isinstance(v, str):
        if "'" not in v:
            return "'%s'" % v
        if '"' not in v:
            return '"%s"' % v
        raise ValueError("@%s holds both quote characters, which the cluster's expression "
                         "strings cannot hold" % name)
    raise TypeError("@%s is a %s: the cluster's expressions take numbers, strings, bools and "
                    "lists of them" % (name, type(v).__name__))


def _expr_names(expr):
    """the column names an expression reads (bare or in backticks)"""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", " ", expr)
    names = set(re.findall(r"`([^`]+)`", text))
    text = re.sub(r"`[^`]+`", " ", text)
    names.update(w for w in re.findall(r"(?<![\w.])[A-Za-z_]\w*", text)
                 if w not in ("and", "or", "not", "in", "True", "False"))
    return names


def _at_names(expr, frame, local_dict=None, global_dict=None):
    """expr with each @name (outside quotes) replaced by the literal of the
    variable it names in the caller's frame, as pandas' query and eval
    resolve them"""
    if "@" not in expr:
        return expr
    scopes = [d for d in (local_dict, frame.f_locals if local_dict is None else None,
                          global_dict, frame.f_globals if global_dict is None else None)
              if d is not None]
    out, i, quote = [], 0, None
    while i < len(expr):
        ch = expr[i]
        if quote is None and ch == "@":
            m = re.match(r"[A-Za-z_]\w*", expr[i + 1:])
            if not m:
                raise SyntaxError("invalid syntax: @ names a variable (%r)" % expr)
            name = m.group(0)
            if not any(name in d for d in scopes):
                raise NameError("local variable '%s' is not defined" % name)  # as pandas
            # the name with its attributes, calls and subscripts (@df.v.mean(),
            # @limits["hi"]): Python's value in the caller's scopes
            end = _trailer_end(expr, i + 1 + len(name))
            text = expr[i + 1:end]
            v = eval(text, dict(global_dict if global_dict is not None else frame.f_globals),
                     dict(local_dict if local_dict is not None else frame.f_locals))
            if hasattr(v, "fetch") and isinstance(v, Entity):  # a marsc scalar: its value
                v = v.fetch()
            if isinstance(v, np.ndarray) and v.ndim == 0:
                v = v.item()
            out.append(_literal(v, text))
            i = end
            continue
        quote = _quote_after(ch, quote)
        out.append(ch)
        i += 1
    return "".join(out)


def _quote_after(ch, quote):
    """the quote a scan of an expression is inside after ch (None:
    outside), quote the one it was inside before"""
    if quote is not None:
        return None if ch == quote else quote
    return ch if ch in "'\"`" else None


def _trailer_end(expr, i):
    """where the attributes, calls and subscripts after a name at expr[i:]
    end (.x, (...), [...], brackets balanced, strings skipped)"""
    while i < len(expr):
        if expr[i] == "." and re.match(r"\.[A-Za-z_]", expr[i:i + 2]):
            i += 1 + re.match(r"[A-Za-z_]\w*", expr[i + 1:]).end()
        elif expr[i] in "([":
            depth, quote = 0, None
            while i < len(expr):
                ch, was = expr[i], quote
                quote = _quote_after(ch, quote)
                if was is None and quote is None and ch in "([{":
                    depth += 1
                elif was is None and quote is None and ch in ")]}":
                    depth -= 1
                    if depth == 0:
                        break
                i += 1
            if i >= len(expr):
                raise SyntaxError("invalid syntax: unbalanced brackets after @ (%r)" % expr)
            i += 1
        else:
            break
    return i


def _numbers(data, ndim=2):
    """whether data is a numpy array (or a nested list) of numbers or
    bools of at most ndim dimensions: a tensor's data"""
    if isinstance(data, np.ndarray):
        return data.dtype.kind in "biuf"
    if not isinstance(data, (list, tuple)):
        return False
    try:
        a = np.asarray(data)
    except ValueError:  # ragged
        return False
    return a.dtype.kind in "biuf" and 1 <= a.ndim <= ndim


def _csv_dtype(t):
    """read_csv's dtype name for a Python type, a numpy dtype or a name"""
    if t in (str, object, "str", "object", "O"):
        return "object"
    if str(t) == "category":  # "category" or a CategoricalDtype
        return "category"
    if t in (float, int, bool):
        return {float: "float64", int: "int64", bool: "bool"}[t]
    try:
        import numpy as np
        return np.dtype(t).name
    except TypeError:
        return str(t)


def _csv_header(p, session):
    """the column names of read_csv's fields p, from head(0) of the file
    read without parse_dates (its schema: no chunk is parsed for it)"""
    probe = {k: v for k, v in p.items() if k != "parse_dates"}
    head = DataFrame.__new__(DataFrame)
    Entity.__init__(head, Node("dataframe.read_csv", [], probe, "dataframe"), session)
    head._columns, head._index_names = None, [None]
    return head.columns


class CsvReader:
    """pandas' TextFileReader, what read_csv(chunksize=N) or iterator=True
    gives: the read's rows in chunks of chunksize, each a marsc DataFrame
    (the whole read's iloc, its index going on from the chunk before, as
    pandas'), computed when fetched; get_chunk(size), read(nrows), and a
    context manager. The row count is the read's (it runs once for it)."""

    def __init__(self, frame, chunksize):
        self._frame, self.chunksize, self._pos, self._n = frame, chunksize, 0, None

    def _rows(self):
        if self._n is None:
            self._n = len(self._frame)
        return self._n

    def read(self, nrows=None):
        """the next nrows rows (all that are left: None); empty at the end"""
        n = self._rows()
        end = n if nrows is None else min(n, self._pos + int(nrows))
        out = self._frame.iloc[self._pos:end]
        self._pos = max(self._pos, end)
        return out

    def get_chunk(self, size=None):
        """the next size rows (chunksize by default); StopIteration at the end"""
        if self._pos >= self._rows():
            raise StopIteration
        return self.read(self.chunksize if size is None else size)

    def __iter__(self):
        return self

    def __next__(self):
        return self.get_chunk()

    def close(self):
        self._pos = self._rows() if self._n is not None else self._pos

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def read_csv(path, sep=None, delimiter=None, header="infer", names=None, index_col=None,
             usecols=None, dtype=None, skiprows=None, nrows=None, thousands=None, decimal=None,
             na_values=None, keep_default_na=True, parse_dates=None, encoding=None,
             delim_whitespace=False, comment=None, quotechar='"', quoting=0, true_values=None,
             false_values=None, na_filter=True, chunk_bytes=None, session=None, _file=None,
             low_memory=True, engine=None, memory_map=False, float_precision=None,
             infer_datetime_format=False, cache_dates=True, skip_blank_lines=True,
             skipinitialspace=False, skipfooter=0, on_bad_lines="error", compression="infer",
             dayfirst=False, iterator=False, chunksize=None, verbose=False):
    """A CSV file on the cluster: one uploaded with sess.upload(path) (named
    by its base name), or a path under the workers' data directory.
    sep (or its alias delimiter): one character separating the fields, ","
    by default, as pandas' C parser takes it, or r"\s+" (as
    delim_whitespace=True): runs of spaces and tabs. A first data line of
    one field more than the header makes its first field the index
    (pandas' implicit index, as R's write.table files have). decimal: the decimal point
    ("." by default; "," for the semicolon files of many locales).
    parse_dates: column names read as datetime64[ns]. dtype: one type for
    every column or a dict of column to type, among str (object),
    float64, int64 and bool, converted as pandas converts, and "category"
    (read as str, then astype("category")). index_col: a
    column (name or position) or a list of them made the index, as
    set_index; a column whose header was empty ("Unnamed: 0", what
    to_csv writes for an unnamed index) gives an unnamed index, as
    pandas. A position needs the header: marsc runs head(0) of the file
    to learn it. index_col=False: no implicit index, for files whose
    lines end in a separator (the fields past the names dropped). header: "infer" (0, or None when names are given), 0 or
    None (no header line: the columns are 0..n-1 unless named); names:
    the columns' names (more than the fields: the others missing).
    usecols: names, or positions. na_values: more strings (or numbers)
    read as missing, for every column or a dict per column;
    keep_default_na=False: only those. skiprows: a number of lines
    before the header, or a list of 0-based line numbers whose records are
    dropped (a units line under the header: skiprows=[1]); nrows: the
    first rows only (their types).
    thousands: a separator numbers may hold ("1,234"). encoding: "utf-8"
    (the default), "latin-1" or "cp1252". comment: one character; outside
    quotes the rest of its line is ignored, and a line that starts with it
    is skipped. header=k: line k (blank and comment lines not counted)
    names the columns, those before it are dropped. quotechar: the quote
    ('"' by default); quoting=csv.QUOTE_NONE (3): quotes are plain text.
    true_values, false_values: lists of more strings read as True and
    False (a column of only those, the default spellings and missing
    values is bool). usecols may be a function of a column's name (the
    header is read first, head(0)); na_filter=False reads no value as
    missing (keep_default_na=False, na_values ignored, as pandas).
    skipinitialspace=True drops the spaces that start each field and
    header name ("a, b"), and a quote after them opens a quoted field.
    on_bad_lines="skip" drops the lines of more fields than the header
    ("error", the default, refuses them as pandas does).
    skip_blank_lines=False reads an empty line as a row of missing values.
    skipfooter: the file's last lines dropped (a total line under the
    data), counted as pandas' python parser counts them. dayfirst=True:
    parse_dates reads 01/02/2024 as the 1st of February, as pandas.
    compression: "infer" (the default: by the extension, .gz, .bz2, .zip,
    .xz, .zst, .tar, .tar.gz, ...), None (the file as it is), or "gzip",
    "bz2", "zip", "xz", "zstd", "tar" (or {"method": name}): the cluster
    decompresses the file once per host, then reads it in chunks.
    pandas' options of how it reads that change no result are taken
    (low_memory, engine, memory_map, float_precision: the values are
    parsed exactly, infer_datetime_format, cache_dates, verbose).
    chunksize=N (or iterator=True)
    gives a CsvReader, pandas' TextFileReader: the rows in DataFrames of N
    (chunk_bytes is how the cluster cuts the file)."""
    if iterator or chunksize is not None:  # pandas' TextFileReader of the whole read
        if chunksize is not None and (isinstance(chunksize, bool) or
                                      not isinstance(chunksize, (int, np.integer)) or chunksize < 1):
            raise ValueError("'chunksize' must be an integer >=1")
        kw = {k: v for k, v in locals().items() if k not in ("iterator", "chunksize")}
        return CsvReader(read_csv(**kw), None if chunksize is None else int(chunksize))
    if engine not in (None, "c", "python", "pyarrow"):
        raise ValueError("Unknown engine: %s (valid options are \"c\", \"python\", or "
                         "\"pyarrow\")" % (engine,))
    if sep is not None and delimiter is not None:
        raise ValueError("Specified a sep and a delimiter; you can only specify one.")
    sep = delimiter if sep is None else sep
    if delim_whitespace:
        if sep is not None:
            raise ValueError("Specified a delimiter with both sep and delim_whitespace=True; "
                             "you can only specify one.")
        sep = r"\s+"
    p = {"path": path}
    _compression(p, compression)
    if sep is not None and sep != ",":
        p["sep"] = sep
    if decimal is not None and decimal != ".":
        p["decimal"] = decimal
    if thousands is not None:
        p["thousands"] = thousands
    if comment is not None:
        p["comment"] = comment
    if encoding is not None:
        p["encoding"] = encoding
    cats = None  # columns read as text, then categoricals (_carried.astype_columns)
    if dtype is not None:
        p["dtype"] = ({str(k): _csv_dtype(v) for k, v in dtype.items()} if isinstance(dtype, dict)
                      else _csv_dtype(dtype))
        if isinstance(dtype, dict):
            cats = {k: v for k, v in dtype.items() if p["dtype"][str(k)] == "category"}
            p["dtype"].update({str(k): "object" for k in cats})
        elif p["dtype"] == "category":
            cats, p["dtype"] = dtype, "object"
    if parse_dates is not None:
        p["parse_dates"] = [parse_dates] if isinstance(parse_dates, str) else list(parse_dates)
    if chunk_bytes is not None:
        p["chunk_bytes"] = int(chunk_bytes)
    if usecols is not None and not callable(usecols):
        p["usecols"] = [int(u) if isinstance(u, np.integer) else u for u in usecols]
    if header != "infer":
        if header is not None and (isinstance(header, bool) or
                                   not isinstance(header, (int, np.integer)) or header < 0):
            raise NotImplementedError("read_csv: header is a row number or None here (lists of "
                                      "header rows are not supported)")
        p["header"] = None if header is None else int(header)
    if quotechar != '"':
        p["quotechar"] = quotechar
    if quoting:
        p["quoting"] = int(quoting)
    if skipinitialspace:
        p["skipinitialspace"] = True
    if callable(on_bad_lines) or on_bad_lines not in ("error", "skip", "warn"):
        raise (NotImplementedError if callable(on_bad_lines) else ValueError)(
            "read_csv: on_bad_lines is 'error' or 'skip' here, not %r" % (on_bad_lines,))
    if on_bad_lines == "warn":
        raise NotImplementedError("read_csv: on_bad_lines='warn' is not supported: 'skip' drops "
                                  "the same lines without printing them")
    if on_bad_lines == "skip":
        p["on_bad_lines"] = "skip"
    if not skip_blank_lines:
        p["skip_blank_lines"] = False
    if index_col is False:  # no implicit index (a malformed file's trailing separators)
        p["index_col"] = False
    if dayfirst:
        p["dayfirst"] = True
    if skipfooter:
        if isinstance(skipfooter, bool) or not isinstance(skipfooter, (int, np.integer)) or \
                skipfooter < 0:
            raise ValueError("skipfooter must be an integer >=0")
        if nrows is not None:
            raise ValueError("'skipfooter' not supported with 'nrows'")
        p["skipfooter"] = int(skipfooter)
    for key, vals in (("true_values", true_values), ("false_values", false_values)):
        if vals is not None:
            if not isinstance(vals, list):
                raise TypeError("Expected list, got %s" % type(vals).__name__)
            p[key] = list(vals)
    if names is not None:
        p["names"] = [str(x) for x in names]

    def na_list(v):
        v = [v] if isinstance(v, (str, int, float, np.generic)) else list(v)
        return [x.item() if isinstance(x, np.generic) else x for x in v]
    if not na_filter:  # pandas: no value is missing, na_values ignored
        na_values, keep_default_na = None, False
    if na_values is not None:
        p["na_values"] = ({str(k): na_list(v) for k, v in na_values.items()}
                          if isinstance(na_values, dict) else na_list(na_values))
    if not keep_default_na:
        p["keep_default_na"] = False
    if skiprows is not None:
        if callable(skiprows):
            raise NotImplementedError("read_csv: skiprows is a number of lines or a list of line "
                                      "numbers here (functions are not supported)")
        p["skiprows"] = (int(skiprows) if isinstance(skiprows, (int, np.integer))
                         else [int(k) for k in skiprows])
    if nrows is not None:
        p["nrows"] = int(nrows)
    dates = p.get("parse_dates") or []
    if any(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in dates):
        # columns by position: their names, from the header
        cols = _csv_header(p, session)
        p["parse_dates"] = [cols[int(k)] if isinstance(k, (int, np.integer)) else k
                            for k in dates]
    if callable(usecols):  # the header's names it keeps
        usecols = [c for c in _csv_header(p, session) if usecols(c)]
        p["usecols"] = usecols
    node = Node("dataframe.read_csv", [], p, "dataframe")
    node.file = _file  # a local frame's CSV (_local.py)
    df = DataFrame.__new__(DataFrame)
    Entity.__init__(df, node, session)
    by_pos = usecols is not None and any(isinstance(u, (int, np.integer)) for u in usecols)
    cols = p.get("names")
    if usecols is not None and not by_pos:
        cols = [c for c in cols if c in usecols] if cols else list(usecols)
    df._columns = None if by_pos else cols
    df._index_names = [None]  # a default index
    df = _after_create(df)
    if cats:
        df = df.astype(cats)
    if index_col is None or index_col is False:
        return df
    keys = list(index_col) if isinstance(index_col, (list, tuple)) else [index_col]
    if any(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in keys):
        cols = df.columns
        keys = [cols[int(k)] if isinstance(k, (int, np.integer)) else k for k in keys]
    out = df.set_index(keys)
    names = [None if str(k).startswith("Unnamed: ") else k for k in keys]
    return out.rename_axis(names) if names != keys else out


def _compression(p, compression):
    """pandas' compression= of read_csv and read_json into the node's
    parameters: "infer" is the graph's default; None reads the file as it
    is; a method's name or {"method": name} (the decompressors' options are
    not supported)"""
    if isinstance(compression, dict):
        if set(compression) != {"method"}:
            raise NotImplementedError("compression: only {'method': name} is supported (not the "
                                      "decompressors' options %s)"
                                      % sorted(k for k in compression if k != "method"))
        compression = compression["method"]
    if compression != "infer":
        if compression is not None and not isinstance(compression, str):
            raise ValueError("Unrecognized compression type: %r" % (compression,))
        p["compression"] = compression


def read_json(path, orient=None, lines=False, compression="infer", session=None):
    """A JSON file on the cluster (uploaded, or under the workers' data
    directory) as pandas' read_json: orient "columns" or "records", or
    lines=True for JSON lines; compression as read_csv's (a .json.gz)."""
    p = {"path": path}
    _compression(p, compression)
    if orient is not None:
        p["orient"] = orient
    if lines:
        p["lines"] = True
    node = Node("dataframe.read_json", [], p, "dataframe")
    df = DataFrame.__new__(DataFrame)
    Entity.__init__(df, node, session)
    df._columns = None
    df._index_names = [None]  # a default index
    return _after_create(df)


def _times(v, dtype):
    """datetime and timedelta values (ISO and str forms) as pandas'; other
    values as they are"""
    import pandas as pd
    if dtype == "datetime64[ns]":
        return pd.to_datetime(v)
    if dtype == "timedelta64[ns]":
        return pd.to_timedelta(v)
    return v


def _values(v, dtype):
    if dtype in ("datetime64[ns]", "timedelta64[ns]"):
        return _times(v, dtype)
    if dtype in ("float64", "float32"):
        return [float(x) if isinstance(x, str) else (np.nan if x is None else x) for x in v]
    return v


def _dates(v):
    """ISO date strings (dt.date's values) as pandas holds them:
    datetime.date objects, NaT where missing"""
    import pandas as pd
    return [pd.NaT if x is None else datetime.date.fromisoformat(x) for x in v]


def _index(ix, names, dtypes=None, dates=()):
    import pandas as pd
    if dates and ix:  # levels of dates (dt.date): datetime.date labels
        if isinstance(ix[0], list):
            cols = [list(c) for c in zip(*ix)]
            for k in dates:
                cols[k] = _dates(cols[k])
            return pd.MultiIndex.from_arrays(
                [pd.Index(c, dtype=object) if k in dates else _times(c, dtypes[k] if dtypes else None)
                 for k, c in enumerate(cols)], names=names)
        return pd.Index(_dates(ix), dtype=object, name=(names or [None])[0])
    if not ix and dtypes:  # no rows: the levels' types from index_dtypes
        levels = [pd.Index([], dtype=object if dt in ("string", "object") else dt)
                  for dt in dtypes]
        if len(levels) > 1:
            return pd.MultiIndex.from_arrays(levels, names=names)
        return levels[0].rename((names or [None])[0])
    if ix and isinstance(ix[0], list):
        if dtypes:  # levels of datetimes: index_dtypes
            levels = [[r[k] for r in ix] for k in range(len(dtypes))]
            levels = [_times(lv, dt) for lv, dt in zip(levels, dtypes)]
            return pd.MultiIndex.from_arrays(levels, names=names)
        return pd.MultiIndex.from_tuples([tuple(x) for x in ix], names=names)
    out = pd.Index(_times(ix, dtypes[0] if dtypes else None), name=(names or [None])[0])
    if out.name is None and out.dtype == np.int64 and len(out) and out[0] == 0 and \
            out[-1] == len(out) - 1 and out.is_monotonic_increasing and out.is_unique:
        # 0..n-1 unnamed: the default index pandas holds as a RangeIndex
        # (df.info() and memory_usage() print it so)
        return pd.RangeIndex(len(out))
    return out


def _objects(vals):
    """strings as pandas holds them: an object array, NaN where missing
    (what read_csv and the str methods give)"""
    out = np.empty(len(vals), dtype=object)
    out[:] = vals
    out[np.equal(out, None)] = np.nan
    return out


def _column(vals, dt):
    """one fetched column's values (a list, or pandas' times) as an array
    of its dtype; pandas' inference where they are not of it"""
    import pandas as pd
    if isinstance(vals, pd.Index):  # times: datetime64 or timedelta64 values
        return vals.to_numpy()
    if not isinstance(vals, list):
        return vals
    if dt in ("string", "object"):
        return _objects(vals)
    if dt is not None and None not in vals:  # numpy would read None as False or fail
        try:
            return np.array(vals, dtype=dt)
        except (TypeError, ValueError, OverflowError):
            pass
    return pd.Series(vals).to_numpy()


def frame_from_json(doc, index_names=None):
    """The JSON form of a fetched DataFrame or Series as pandas; index_names
    stand in when the server's JSON carries none."""
    import pandas as pd
    names = doc.get("index_names") or index_names
    index = _index(doc["index"], names, doc.get("index_dtypes"), doc.get("index_dates") or ())
    if "columns" in doc:
        dtypes = doc.get("dtypes") or {}
        cols = doc["columns"]
        rows = doc["data"]
        dates = set(doc.get("date_columns") or ())
        data = {}
        for j, c in enumerate(cols):
            dt = dtypes.get(str(c), dtypes.get(c) if isinstance(dtypes, dict) else None)
            vals = _values([r[j] for r in rows], dt)
            if j in dates:
                vals = _dates(vals)
            data[c] = _column(vals, dt)
        # arrays, not Series: nothing to align (a million rows in a second)
        return pd.DataFrame(data, index=index, columns=cols)
    dt = doc.get("dtype")
    vals = _values(doc["data"], dt)
    if doc.get("dates"):
        vals = _dates(vals)
    elif dt in ("string", "object"):
        vals = _objects(vals)
    try:
        return pd.Series(vals, index=index, name=doc.get("name"),
                         dtype=dt if dt != "string" else object)
    except (TypeError, ValueError):
        return pd.Series(vals, index=index, name=doc.get("name"))


from ._carried import carried as _cat_carried, cut_dtype as _cat_cut_dtype  # noqa: E402
from ._carried import fetched as _cat_fetched, regrouped as _cat_regrouped  # noqa: E402
from ._carried import _plain as _carried_plain, to_period as _carried_to_period  # noqa: E402
from ._carried import indexed_fetched as _carried_on_fetched  # noqa: E402
from ._carried import _on_fetched as _carried_on_fetched_fn  # noqa: E402
from ._timescalars import install as _install_timescalars  # noqa: E402
from . import _local  # noqa: E402

_install_timescalars()  # datetime and timedelta scalars of reductions
