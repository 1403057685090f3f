"""pandas' category and period dtypes, carried by the client
(docs/python-client.md, "Categoricals" and "Periods").

Periods (dt.to_period) are held on the cluster as each period's start
(a datetime64, which sorts and groups as the periods do); the client
keeps the PeriodDtype beside the column and a fetch turns the starts, in
the values and in groupby keys' index levels, into pandas' periods.

The cluster holds a categorical column as its values: the categories'
text for pd.cut's intervals and labels, the values themselves for
astype("category"). What makes it categorical is its pandas
CategoricalDtype (the categories and whether they are ordered), which
the client keeps beside the column (`_cats` of a DataFrame or Series:
{column: dtype}, a Series' under None) and applies where pandas' result
depends on it:

- a fetch gives pandas' categorical column (values as the categories'
  codes, so every category is there, observed or not);
- value_counts counts every category, zeros too;
- groupby by a categorical key gives every category (observed=False, the
  default of pandas 1.5) in the categories' order, the missing groups
  filled as pandas fills them (0 for sum, count, size and nunique, 1 for
  prod, NaN for the others), or only the observed ones (observed=True);
- sort_values, min, max and <, <=, >, >= go by the categories' order (the
  codes), and the reductions pandas refuses are refused as pandas does.

The dtype is carried through the ops that keep values as they are (row
filters, head, tail, sorts, column selection, assign, rename, shift,
mode, concat, and fillna, where and mask by categories ...); other
ops see the plain values (object or numbers), where pandas would still
give a categorical.

Two kinds of results are fetched as pandas computes them from another
result's pandas value, because the cluster's value is not pandas':
what is made of a groupby result with categorical keys (its head, its
ratio with another ...: "replayed", the groupby results fetched for it),
and what is made of a table that can only be fetched (unstack, pivot,
pivot_table with columns, agg's MultiIndex columns: the same node, the
method run on its fetched value).
"""
import sys

import numpy as np

from ..core import Entity, execute
from . import (DataFrame, Series, _Frame, _as_fetched, _one, _series_name,
               _UNKNOWN)

# ops whose output holds its first input's values as they were (rows kept,
# picked or reordered, columns selected or renamed)
_KEEPING = ("dataframe.filter", "dataframe.head", "dataframe.tail", "dataframe.sort_values",
            "dataframe.sort_index", "dataframe.sample", "dataframe.drop_duplicates",
            "dataframe.dropna", "dataframe.getitem", "dataframe.drop", "dataframe.rename",
            "dataframe.reset_index", "dataframe.assign", "dataframe.iloc", "dataframe.loc",
            "dataframe.query", "dataframe.set_index", "dataframe.groupby_head",
            "dataframe.groupby_tail", "dataframe.shift", "dataframe.mode")


def _pd():
    import pandas as pd
    return pd


def carried(op, inputs, params, obj):
    """The categorical dtypes of op's output obj (None: none), from its
    first input's where op keeps values (_make calls this)."""
    src = inputs[0] if inputs else None
    if op in ("dataframe.merge", "dataframe.join") and len(inputs) == 2:
        # each side's columns as they were (a name both sides have is
        # suffixed, but for the keys: the left's dtype, as pandas keeps it
        # where both sides have it)
        both = dict(getattr(inputs[1], "_cats", None) or {})
        both.update(getattr(src, "_cats", None) or {})
        both.pop(None, None)
        return both or None
    if op == "dataframe.concat":
        return _concatenated(inputs, params or {})
    if op == "where" and len(inputs) == 3:
        return _where(inputs)
    if op == "dataframe.fillna" and isinstance(src, _Frame) and src._cats:
        return _filled(src, obj, params or {})
    if op not in _KEEPING or not isinstance(src, _Frame):
        return None
    cats = dict(src._cats or {})
    params = params or {}
    if op == "dataframe.assign":
        for name, v in zip(params.get("names", []), inputs[1:]):
            cats.pop(name, None)
            if isinstance(v, Series) and v._cats and None in v._cats:
                cats[name] = v._cats[None]
    if not cats:
        return None
    if op == "dataframe.getitem" and isinstance(obj, Series):
        d = cats.get(params.get("columns"))
        return None if d is None else {None: d}
    if op == "dataframe.rename" and isinstance(params.get("columns"), dict):
        ren = params["columns"]
        cats = {ren.get(c, c): d for c, d in cats.items()}
    if op == "dataframe.reset_index" and isinstance(src, Series):
        if isinstance(obj, Series):
            return cats
        nm = _series_name(src._ref)
        return None if nm is _UNKNOWN else {0 if nm is None else nm: cats[None]}
    if op == "dataframe.set_index":  # the keys leave the columns (their dtype is not kept)
        keys = params.get("keys")
        for k in [keys] if _one(keys) else list(keys or []):
            cats.pop(k, None)
    if isinstance(obj, DataFrame) and obj._columns is not None:
        cats = {c: d for c, d in cats.items() if c in obj._columns}
    return cats or None


def _new_category(value, d):
    """pandas' error of setting a value outside a categorical's categories"""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return
    try:
        inside = value in d.categories
    except TypeError:
        inside = False
    if not inside:
        raise TypeError("Cannot setitem on a Categorical with a new category (%s), set the "
                        "categories first" % (value,))


def _filled(src, obj, params):
    """fillna of categorical columns: by a method they stay categorical;
    by values each must be a category (pandas' TypeError otherwise)"""
    cats = dict(src._cats)
    value = params.get("value")
    if "method" not in params:
        for c, d in cats.items():
            v = value.get(c) if isinstance(value, dict) else value
            if not isinstance(v, _Frame):
                _new_category(v, d)
    if isinstance(obj, DataFrame) and obj._columns is not None:
        cats = {c: d for c, d in cats.items() if c in obj._columns}
    return cats or None


def _where(inputs):
    """where and mask of a categorical Series ([cond, kept, other] or
    [cond, other, kept]): categorical where the other is missing or a
    category"""
    for j, k in ((1, 2), (2, 1)):
        x, other = inputs[j], inputs[k]
        d = (getattr(x, "_cats", None) or {}).get(None) if isinstance(x, Series) else None
        if d is None:
            continue
        if isinstance(other, _Frame):
            od = (other._cats or {}).get(None) if isinstance(other, Series) else None
            return {None: d} if od == d else None
        _new_category(other, d)
        return {None: d}
    return None


def _concatenated(inputs, params):
    """concat: along the rows a column stays categorical where every input
    has it of the same dtype; side by side each input's columns keep theirs"""
    frames = [x for x in inputs if isinstance(x, _Frame)]
    every = [dict(x._cats or {}) for x in frames]
    if params.get("axis") in (1, "columns"):
        out = {}
        for x, cats in zip(frames, every):
            if isinstance(x, Series):
                d = cats.get(None)
                nm = _series_name(x._ref)
                if d is not None and nm is not _UNKNOWN and nm is not None:
                    out[nm] = d
            else:
                out.update(cats)
        return out or None
    if not every or not every[0]:
        return None
    return {c: d for c, d in every[0].items() if all(e.get(c) == d for e in every[1:])} or None


def _plain(x):
    """x's values without the dtype: a handle on the same node"""
    cls = Series if isinstance(x, Series) else DataFrame
    out = cls.__new__(cls)
    Entity.__init__(out, x._ref, x._session)
    out._columns, out._index_names = x._columns, x._index_names
    return out


def _scalars(values):
    """values as JSON's scalars (numpy's as Python's)"""
    return [v.item() if isinstance(v, np.generic) else v for v in values]


def _typed(x, cats):
    """x's node again, with the dtypes cats"""
    out = _plain(x)
    out._cats = cats or None
    return out


def _lookup(dtype, values):
    """the index to match values against: the categories, or their text
    where the cluster holds text for categories that are not strings
    (cut's intervals, labels given as numbers)"""
    pd = _pd()
    cats = dtype.categories
    if cats.dtype != object and getattr(values, "dtype", None) == object:
        return pd.Index([str(c) for c in cats])
    return cats


def to_categorical(values, dtype):
    """the fetched values as pandas' Categorical of dtype"""
    pd = _pd()
    values = pd.Index(values)
    codes = _lookup(dtype, values).get_indexer(values)
    bad = (codes < 0) & np.asarray(pd.notna(values))
    if bad.any():
        raise ValueError("the value %r is none of the categories %s"
                         % (values[bad.argmax()], list(dtype.categories)))
    return pd.Categorical.from_codes(codes, dtype=dtype)


def _is_period(d):
    return isinstance(d, _pd().PeriodDtype)


def _typed_values(values, d):
    """fetched values (a Series) as dtype d: a categorical, or periods"""
    pd = _pd()
    if _is_period(d):
        return pd.Series(pd.DatetimeIndex(values).to_period(d.freq), index=values.index,
                         name=values.name)
    return pd.Series(to_categorical(values, d), index=values.index, name=values.name)


def _typed_level(level, d, name):
    """a fetched index level as dtype d: a CategoricalIndex or a PeriodIndex"""
    pd = _pd()
    if _is_period(d):
        return pd.DatetimeIndex(level).to_period(d.freq).rename(name)
    return pd.CategoricalIndex(to_categorical(level, d), name=name)


def fetched(got, cats):
    """the fetched pandas object with its categorical (or period) columns"""
    pd = _pd()
    if isinstance(got, pd.Series):
        d = cats.get(None)
        return got if d is None else _typed_values(got, d)
    if isinstance(got, pd.DataFrame):
        for c, d in cats.items():
            if c is not None and c in got.columns:
                got[c] = _typed_values(got[c], d)
    return got


def _codes(s, dtype, missing=np.nan):
    """the codes of a categorical Series (missing: what a missing value
    gets), through dataframe.map"""
    cats = list(dtype.categories)
    keys = [str(c) for c in cats] if dtype.categories.dtype != object else cats
    keys = _scalars(keys)
    out = _plain(s).map(dict(zip(keys, range(len(keys)))))
    return out if missing is np.nan else out.fillna(missing)


def categories_of(x):
    """pandas' categories of astype("category"): the sorted distinct
    values, found first (a task of its own)"""
    pd = _pd()
    vals = _plain(x).dropna().unique().fetch()
    return pd.CategoricalDtype(pd.Index(pd.unique(vals)).sort_values())


def astype(x, dtype):
    """astype("category") or astype(pd.CategoricalDtype(...)) of a Series,
    or a DataFrame's whole; None where dtype is no categorical"""
    pd = _pd()
    if not (isinstance(dtype, pd.CategoricalDtype) or (isinstance(dtype, str) and
                                                       dtype == "category")):
        return None
    if isinstance(x, DataFrame):
        cols = x.columns
        return astype_columns(x, {c: dtype for c in cols}, cols)
    if _series_cat(x) is not None:
        if dtype == "category":
            return x
        raise NotImplementedError("astype of a categorical Series to other categories is "
                                  "not supported")
    given = isinstance(dtype, pd.CategoricalDtype) and dtype.categories is not None
    d = dtype if given else categories_of(x)
    if not given and isinstance(dtype, pd.CategoricalDtype) and dtype.ordered:
        d = pd.CategoricalDtype(d.categories, ordered=True)
    src = _plain(x)
    if given:  # values in no category become missing, as pandas'
        src = src.where(src.isin(_scalars(d.categories)))
    return _typed(src, {None: d})


def astype_columns(df, want, cols):
    """df.astype({column: "category", ...}) beside other columns' dtypes
    (cols: the frame's columns): the categorical ones found first, in one
    task"""
    pd = _pd()
    todo = [c for c, t in want.items() if not (isinstance(t, pd.CategoricalDtype) and
                                               t.categories is not None)]
    if todo:
        uniq = [_plain(df[c]).dropna().unique() for c in todo]
        execute(*uniq)
        found = {c: pd.CategoricalDtype(pd.Index(pd.unique(u.fetch())).sort_values(),
                                        ordered=bool(getattr(want[c], "ordered", False)))
                 for c, u in zip(todo, uniq)}
    else:
        found = {}
    cats = dict(df._cats or {})
    out = df
    for c, t in want.items():
        if c in found:
            cats[c] = found[c]
        else:
            cats[c] = t
            col = _plain(out[c])
            out = out.assign(**{c: col.where(col.isin(_scalars(t.categories)))})
    return _typed(out, cats)


def cut_dtype(x, bins, right, labels, precision, include_lowest, duplicates, ordered,
              q=None):
    """pandas' dtype of pd.cut (q: of pd.qcut): the categories from the
    edges (a count of bins reads the column's min and max first, a qcut
    its quantiles, as pandas does, in a task of their own)"""
    pd = _pd()
    if labels is False:
        return None
    plain = _plain(x)
    if q is not None:
        qs = np.linspace(0, 1, q + 1) if isinstance(q, (int, np.integer)) else np.asarray(q)
        parts = [plain.quantile(float(v)) for v in qs]
        execute(*parts)
        edges = np.asarray([float(np.asarray(p.fetch())) for p in parts])
        r = pd.cut(pd.Series([], dtype="float64"), edges, labels=labels, precision=precision,
                   include_lowest=True, duplicates=duplicates)
        return r.dtype
    if isinstance(bins, (int, np.integer)):
        lo, hi = plain.min(), plain.max()
        execute(lo, hi)
        data = pd.Series([np.asarray(lo.fetch())[()], np.asarray(hi.fetch())[()]])
    else:
        data = pd.Series([], dtype="float64")
    return pd.cut(data, bins, right=right, labels=labels, precision=precision,
                  include_lowest=include_lowest, duplicates=duplicates, ordered=ordered).dtype


def value_counts(s, normalize, sort, ascending, dropna):
    """pandas' value_counts of a categorical Series: every category counted
    (the missing values too with dropna False), descending by count as
    pandas sorts them"""
    pd = _pd()
    d = s._cats[None]
    counts = _plain(s).value_counts(sort=False, dropna=False)
    name = _series_name(s._ref)

    def fn(got):
        k = len(d.categories)
        codes = _lookup(d, got.index).get_indexer(got.index)
        per = np.zeros(k + 1, dtype=np.int64)
        np.add.at(per, np.where(codes < 0, k, codes), got.to_numpy(dtype=np.int64))
        ix = np.arange(k)
        if not dropna and per[k] > 0:
            ix = np.append(ix, -1)
        vals = per[np.where(ix < 0, k, ix)]
        out = pd.Series(vals, index=pd.CategoricalIndex(pd.Categorical.from_codes(ix, dtype=d)),
                        dtype="int64", name=got.name if name is _UNKNOWN else name)
        if sort:
            out = out.sort_values(ascending=ascending)
        if normalize:
            out = out / vals.sum()
        return out
    out = _as_fetched(counts, fn)
    out._regrouped = True  # what is made of it is pandas' of the fetched counts (replayed)
    return out


def sort_values(s, ascending, na_position):
    """a categorical Series sorted by its categories' order"""
    d = s._cats[None]
    frame = _plain(s).to_frame("_mars_v").assign(_mars_c=_codes(s, d))
    out = frame.sort_values("_mars_c", ascending, na_position)["_mars_v"]
    name = _series_name(s._ref)
    return _typed(out.rename(s.name if name is _UNKNOWN else name), {None: d})


def sort_key(df, by):
    """DataFrame.sort_values' key for categorical columns among by: the
    codes (None when no column of by is categorical)"""
    cats = {c: d for c, d in (df._cats or {}).items() if not _is_period(d)}
    if not any(b in cats for b in by):
        return None

    def key(col):
        nm = _series_name(col._ref)
        return _codes(col, cats[nm]) if nm in cats else col
    return key


def reduce(s, op):
    """min or max of an ordered categorical Series (a category), pandas'
    TypeError for the others"""
    d = s._cats[None]
    if op not in ("min", "max"):
        raise TypeError("'Categorical' with dtype category does not support reduction '%s'"
                        % op)
    if not d.ordered:
        raise TypeError("Categorical is not ordered for operation %s\nyou can use "
                        ".as_ordered() to change the Categorical to an ordered one\n" % op)
    top = _codes(s, d).sort_values(ascending=op == "min").head(1)

    def fn(got):
        return np.nan if len(got) == 0 or got.iloc[0] != got.iloc[0] else \
            d.categories[int(got.iloc[0])]
    return _as_fetched(top, fn)


def compare(s, op, other):
    """s <, <=, >, >= other of an ordered categorical Series: by the codes"""
    d = s._cats[None]
    if not d.ordered:
        raise TypeError("Unordered Categoricals can only compare equality or not")
    if other not in d.categories:
        raise TypeError("Invalid comparison between dtype=category and %s"
                        % type(other).__name__)
    code = int(d.categories.get_loc(other))
    c = _codes(s, d)
    return {"less": c < code, "less_equal": c <= code, "greater": c > code,
            "greater_equal": c >= code}[op]


# the ops after which codes are still codes, fetched as pandas' small ints
_CODES_KEPT = ("dataframe.head", "dataframe.tail", "dataframe.sort_values",
               "dataframe.sort_index", "dataframe.filter", "dataframe.sample", "dataframe.iloc",
               "dataframe.rename", "dataframe.loc")


class CatAccessor:
    """pandas' s.cat: categories, ordered, codes, as_ordered, as_unordered"""

    def __init__(self, s):
        if not (s._cats and s._cats.get(None) is not None):
            raise AttributeError("Can only use .cat accessor with a 'category' dtype")
        self._s, self._d = s, s._cats[None]

    @property
    def categories(self):
        return self._d.categories

    @property
    def ordered(self):
        return self._d.ordered

    @property
    def codes(self):
        """the codes (-1 for a missing value): int64 on the cluster (its
        frames' integers), fetched as pandas' int8 up to 127 categories
        (int16, int32 beyond)"""
        n = len(self._d.categories)
        t = "int8" if n < 127 else "int16" if n < 32767 else "int32"
        return _as_fetched(_codes(self._s, self._d, -1).astype("int64").rename(None),
                           lambda got: got.astype(t), _CODES_KEPT.__contains__)

    def _with(self, ordered, categories=None, values=None):
        """the Series with categories (the same by default) and ordered;
        values: its values anew (a renaming, or some missing)"""
        pd = _pd()
        cats = self._d.categories if categories is None else categories
        return _typed(self._s if values is None else values,
                      {None: pd.CategoricalDtype(cats, ordered)})

    def as_ordered(self):
        return self._with(True)

    def as_unordered(self):
        return self._with(False)

    def reorder_categories(self, new_categories, ordered=None):
        """the same categories in another order (pandas' ValueError
        otherwise)"""
        if set(new_categories) != set(self._d.categories) or \
                len(new_categories) != len(self._d.categories):
            raise ValueError("items in new_categories are not the same as in old categories")
        return self._with(self._d.ordered if ordered is None else ordered, list(new_categories))

    def add_categories(self, new_categories):
        """more categories, after the present ones"""
        new = [new_categories] if _one(new_categories) else list(new_categories)
        if any(c in self._d.categories for c in new):
            raise ValueError("new categories must not include old categories")
        return self._with(self._d.ordered, list(self._d.categories) + new)

    def _kept(self, keep):
        """the values in the categories keep, the others missing"""
        known = _lookup(self._d, _pd().Index([], dtype=object))  # (the text of intervals)
        text = [k for k, c in zip(known, self._d.categories) if c in keep]
        plain = _plain(self._s)
        return plain.where(plain.isin(_scalars(text)))

    def remove_categories(self, removals):
        """fewer categories, a removed one's values missing"""
        gone = [removals] if _one(removals) else list(removals)
        if any(c not in self._d.categories for c in gone):
            raise ValueError("removals must all be in old categories")
        keep = [c for c in self._d.categories if c not in gone]
        return self._with(self._d.ordered, keep, self._kept(keep))

    def set_categories(self, new_categories, ordered=None):
        """these categories: the values in none of them missing"""
        new = list(new_categories)
        return self._with(self._d.ordered if ordered is None else ordered, new,
                          self._kept([c for c in self._d.categories if c in new]))

    def rename_categories(self, new_categories):
        """each category renamed (a list in order, or a dict), the values
        with it"""
        old = list(self._d.categories)
        if isinstance(new_categories, dict):
            new = [new_categories.get(c, c) for c in old]
        else:
            new = list(new_categories)
            if len(new) != len(old):
                raise ValueError("new categories need to have the same number of items as "
                                 "the old categories!")
        keys = _scalars(_lookup(self._d, _pd().Index([], dtype=object)))
        values = _plain(self._s).map(dict(zip(keys, _scalars(new))))
        return self._with(self._d.ordered, new, values)

    def remove_unused_categories(self):
        """the categories some value has (found first, a task of its own)"""
        have = set(_plain(self._s).dropna().unique().fetch().tolist())
        known = _lookup(self._d, _pd().Index([], dtype=object))
        keep = [c for k, c in zip(known, self._d.categories) if k in have]
        return self._with(self._d.ordered, keep)


def _fill(col, func, missing):
    """an aggregated column after the unobserved groups were added:
    pandas' value for them (0, 1, NaN or None)"""
    v = {"sum": 0, "count": 0, "size": 0, "nunique": 0, "prod": 1}.get(func)
    if v is not None:
        col = col.copy()
        col[missing] = v
        return col
    if func in ("first", "last") and col.dtype == object:
        col = col.copy()
        col[missing] = None
    return col


def regrouped(gb, out, fill):
    """out, a groupby result of gb indexed by its keys (or with them as its
    first columns, as_index False), fetched with pandas' categorical keys:
    every category (observed False) or the observed ones, in their order.
    fill: the aggregation of each column (a name for all, or a dict), None
    where not known (a function: refused unless observed)."""
    pd = _pd()
    typed = {k: d for k, d in (gb._df._cats or {}).items() if k in gb._by}
    cats = {k: d for k, d in typed.items() if not _is_period(d)}
    by = list(gb._by)
    if not typed:
        return out
    if cats and fill is None and not gb._observed:
        raise NotImplementedError(
            "groupby by a categorical key of a function or of what it makes: pandas gives "
            "the groups of unobserved categories too (observed=False), whose values only "
            "the function knows; pass observed=True")
    prev, as_index = out._fetched, gb._as_index

    def full(got):  # (the result, the dtype(s) before the unobserved groups were added)
        if prev is not None:
            got = prev(got)
        series = isinstance(got, pd.Series)
        if not as_index:
            got = got.set_index(by)
        arrays = [_typed_level(got.index.get_level_values(i), typed[k], k) if k in typed
                  else got.index.get_level_values(i) for i, k in enumerate(by)]
        have = pd.MultiIndex.from_arrays(arrays, names=by) if len(by) > 1 else arrays[0]
        dtypes = got.dtypes if not series else None
        orig = got.dtype if series else None
        before = orig if series else dtypes
        got.index = have
        if not cats:  # periods: the observed groups, in order already
            pass
        elif gb._observed:
            got = got.sort_index()
        else:
            levels = [pd.CategoricalIndex(cats[k].categories, dtype=cats[k], name=k)
                      if k in cats else pd.Index(a.unique(), name=k).sort_values()
                      for k, a in zip(by, arrays)]
            full = pd.MultiIndex.from_product(levels, names=by) if len(by) > 1 else levels[0]
            missing = ~np.asarray(full.isin(have))
            got = got.reindex(full)
            if series:
                f = fill if isinstance(fill, str) else next(iter(fill.values()))
                got = _fill(got, f, missing)
                if f in ("sum", "count", "size", "nunique", "prod"):
                    got = got.astype(orig)
            else:
                for c in got.columns:
                    f = fill if isinstance(fill, str) else fill.get(c)
                    got[c] = _fill(got[c], f, missing)
                    if f in ("sum", "count", "size", "nunique", "prod"):
                        got[c] = got[c].astype(dtypes[c])
        if not as_index:
            got = got.reset_index()
        return got, before
    out = _as_fetched(out, lambda got: full(got)[0])
    out._regrouped, out._regroup_args = full, (gb, fill)
    return out


# the methods and element-wise ops whose result of a groupby result with
# categorical keys is fetched as pandas' of its pandas result (replayed)
_REPLAYED = ("head", "tail", "round", "sort_values", "sort_index", "rename", "to_frame",
             "nlargest", "nsmallest", "fillna", "abs", "rank", "cumsum", "pct_change", "diff",
             "shift", "reset_index", "rename_axis")
# what else a table that can only be fetched runs on its fetched value
_FETCHED_ONLY = ("__getitem__", "astype", "sum", "mean", "min", "max", "count", "idxmax",
                 "idxmin", "describe", "div", "mul", "apply", "stack", "melt", "filter",
                 "reindex", "transform", "dropna", "isin", "clip", "where", "mask", "std", "var",
                 "median", "prod", "quantile", "isna", "notna", "any", "all", "nunique", "agg",
                 "corr", "cov", "cumprod", "cummax", "cummin", "add", "sub", "pipe")
_OPERATORS = {"add": "__add__", "subtract": "__sub__", "multiply": "__mul__",
              "divide": "__truediv__", "floor_divide": "__floordiv__", "mod": "__mod__",
              "power": "__pow__", "equal": "__eq__", "not_equal": "__ne__", "less": "__lt__",
              "less_equal": "__le__", "greater": "__gt__", "greater_equal": "__ge__",
              "logical_and": "__and__", "logical_or": "__or__", "negative": "__neg__",
              "abs": "__abs__", "logical_not": "__invert__"}


def replayed(out, fn):
    """out, computed from groupby results with categorical keys (every
    category, their index pandas'): fetched as fn makes of those results'
    pandas values (fetched for it: a task of their own, small), so that it
    is pandas' (the cluster's out has the observed groups only)"""
    out = _as_fetched(out, lambda got: fn())
    out._regrouped = True
    return out


def _on_fetched(f, fn):
    """what fn makes of the pandas value of f, a result that can only be
    fetched (unstack, pivot, pivot_table's columns, agg's MultiIndex
    columns): the same node, fn run on its fetched value"""
    prev = f._fetched
    out = _as_fetched(_typed(f, f._cats), lambda got: fn(prev(got) if prev is not None else got))
    out._fetch_only = True
    return out


def indexed_fetched(f, how, key):
    """f.iloc[key] or f.loc[key] (how) of a table that can only be fetched"""
    return _on_fetched(f, lambda v: getattr(v, how)[key])


def _replay_method(name, replay=True):
    """Series' and DataFrame's method name: of a table that can only be
    fetched, run on its fetched value; with replay, of a groupby result
    with categorical keys (or what is made of one), fetched as pandas'
    method of that result's pandas value; otherwise as it is"""
    def method(self, orig, *a, **kw):
        lazy = any(isinstance(v, Entity) for v in list(a) + list(kw.values()))
        if self._fetch_only and not lazy:
            return _on_fetched(self, lambda v: getattr(v, name)(*a, **kw))
        out = orig(self, *a, **kw)
        if not replay or not self._regrouped or lazy:
            return out
        if name == "reset_index" and self._regroup_args is not None and \
                not kw.get("drop", a[0] if a else False):  # the keys as columns
            gb, fill = self._regroup_args
            from . import GroupBy
            return regrouped(GroupBy(gb._df, gb._by, gb._sel, False, gb._observed), out, fill)
        return replayed(out, lambda: getattr(self.fetch(), name)(*a, **kw))
    return method


def _replay_elementwise(orig):
    """the package's elementwise, replayed where its inputs are groupby
    results with categorical keys"""
    def elementwise(op, inputs, params=None):
        ents = [x for x in inputs if isinstance(x, Entity)]
        only = next((x for x in ents if getattr(x, "_fetch_only", False)), None)
        if only is not None and not params and op in _OPERATORS:
            # a table that can only be fetched: the op of the fetched values
            def value(x, got):
                if x is only:
                    return got if x._fetched is None else x._fetched(got)
                return x.fetch() if isinstance(x, Entity) else x

            def fn(got):
                vals = [value(x, got) for x in inputs]
                if not isinstance(inputs[0], Entity):
                    return getattr(vals[1], _OPERATORS[op].replace("__", "__r", 1))(vals[0])
                return getattr(vals[0], _OPERATORS[op])(*vals[1:])
            out = _as_fetched(_typed(only, only._cats), fn)
            out._fetch_only = True
            return out
        out = orig(op, inputs, params)
        if params or op not in _OPERATORS or not ents or \
                not all(getattr(x, "_regrouped", False) for x in ents):
            return out

        def fn():
            vals = [x.fetch() if isinstance(x, Entity) else x for x in inputs]
            if not isinstance(inputs[0], Entity):  # 2 - s: the right side's reflected op
                return getattr(vals[1], _OPERATORS[op].replace("__", "__r", 1))(vals[0])
            return getattr(vals[0], _OPERATORS[op])(*vals[1:])
        return replayed(out, fn)
    return elementwise


def unstacked(long, out, level, fill_value):
    """out, the unstack of long (a groupby result with categorical keys):
    fetched as pandas unstacks long's result, categories and filled groups
    included (long is fetched for it, as a task of its own: a table is
    small, and can only be fetched)"""
    def fn(got):
        t = long.fetch().unstack(level, fill_value=fill_value)
        return t
    return _as_fetched(out, fn)


def pivot_table(df, out, values, index, columns, aggfunc, fill_value):
    """out, df.pivot_table(...) with categorical keys: fetched as pandas'
    (its groupby with observed=False, the groups of no value dropped, the
    columns' key unstacked, fill_value, columns sorted)"""
    vals = [values] if _one(values) else list(values or [])
    if len(vals) != 1 or not isinstance(aggfunc, str):
        raise NotImplementedError("pivot_table by categorical keys takes one values column "
                                  "and an aggregation's name")
    keys = ([index] if _one(index) else list(index)) + ([] if columns is None else [columns])
    long = df.groupby(keys)[vals[0]].agg(aggfunc)

    def fn(got):
        t, before = long._regrouped(Entity.fetch(long))
        t = t.dropna()
        if before.kind in "iu" and t.dtype.kind == "f" and (t == t.round()).all():
            t = t.astype(before)  # pandas' downcast of an integer column's aggregation
        if columns is None:
            t = t.to_frame(vals[0])
        else:
            t = t.unstack(columns)
            t = t.sort_index(axis=1)
        if fill_value is not None:
            t = t.fillna(fill_value, downcast="infer")
        return t
    return _as_fetched(out, fn)


# -- the methods of Series and DataFrame that see a categorical ------------

def _series_cat(s):
    """a Series' CategoricalDtype (None: it is none)"""
    d = s._cats.get(None) if s._cats else None
    return None if d is None or _is_period(d) else d


def _series_period(s):
    d = s._cats.get(None) if s._cats else None
    return d if d is not None and _is_period(d) else None


# pandas' text of a period of each frequency (astype(str)), as strftime's
_PERIOD_TEXT = {"M": "%Y-%m", "A-DEC": "%Y", "D": "%Y-%m-%d", "H": "%Y-%m-%d %H:00",
                "T": "%Y-%m-%d %H:%M", "S": "%Y-%m-%d %H:%M:%S"}


def to_period(s, freq):
    """s.dt.to_period(freq) of a datetime Series: each period's start (the
    day, hour, minute or second for D, H, T/min, S; the month's, quarter's,
    year's or Monday-to-Sunday week's first day for M, Q, A/Y, W), typed
    as pandas' PeriodDtype"""
    pd = _pd()
    from . import to_timedelta
    try:
        d = pd.PeriodDtype(freq)
    except (TypeError, ValueError) as e:
        raise ValueError("Invalid frequency: %s" % (freq,)) from e
    code = d.freq.freqstr
    plain = _plain(s)
    day = plain.dt.normalize()

    def days(n):
        return to_timedelta(n, unit="D")
    if code in ("H", "T", "S"):
        start = plain.dt.floor({"H": "h", "T": "min", "S": "s"}[code])
    elif code == "D":
        start = day
    elif code == "W-SUN":
        start = day - days(plain.dt.dayofweek)
    elif code == "M":
        start = day - days(plain.dt.day - 1)
    elif code == "A-DEC":
        start = day - days(plain.dt.dayofyear - 1)
    elif code == "Q-DEC":  # 28 days back per month from the month's first day lands in
        month = day - days(plain.dt.day - 1)  # the month that many before: its start
        back = month - days(((plain.dt.month - 1) % 3) * 28)
        start = back - days(back.dt.day - 1)
    else:
        raise NotImplementedError("dt.to_period(%r): the frequencies are D, H, T (min), S, "
                                  "W, M, Q and A (Y)" % (freq,))
    nm = _series_name(s._ref)
    return _typed(start.rename(s.name if nm is _UNKNOWN else nm), {None: d})


def _wrap(cls, name, fn):
    orig = getattr(cls, name)

    def method(self, *a, **kw):
        return fn(self, orig, *a, **kw)
    method.__name__, method.__doc__ = orig.__name__, orig.__doc__
    setattr(cls, name, method)


def _install():
    for op, name in (("less", "__lt__"), ("less_equal", "__le__"), ("greater", "__gt__"),
                     ("greater_equal", "__ge__")):
        _wrap(Series, name, lambda self, orig, o, op=op:
              compare(self, op, o) if _series_cat(self) is not None else orig(self, o))
    for op in ("sum", "mean", "min", "max", "median", "std", "var", "prod", "skew", "kurt"):
        _wrap(Series, op, lambda self, orig, *a, op=op, **kw:
              reduce(self, op) if _series_cat(self) is not None else orig(self, *a, **kw))

    def vc(self, orig, normalize=False, sort=True, ascending=False, bins=None, dropna=True):
        if bins is not None:  # pandas' value_counts of cut(s, bins, include_lowest=True)
            from . import cut
            counts = value_counts(cut(self, bins, include_lowest=True), False, False, False,
                                  False)
            prev = counts._fetched

            def binned(got):
                got = prev(got)
                total = got.sum()  # normalize: by every row, as pandas'
                got = got[got.index.notna()]
                got.index = got.index.astype("interval")
                got = got.sort_index()
                if dropna and (got.to_numpy() == 0).all():
                    got = got.iloc[0:0]
                if sort:
                    got = got.sort_values(ascending=ascending)
                return got / total if normalize else got
            out = _as_fetched(counts, binned)
            out._regrouped = True
            return out
        per = _series_period(self)
        if per is not None:
            out = orig(_plain(self), normalize, sort, ascending, dropna)
            return _as_fetched(out, lambda got: got.set_axis(
                _typed_level(got.index, per, got.index.name), axis=0), keep=True)
        if _series_cat(self) is None:
            return orig(self, normalize, sort, ascending, dropna)
        return value_counts(self, normalize, sort, ascending, dropna)
    _wrap(Series, "value_counts", vc)

    def sv(self, orig, ascending=True, na_position="last", kind=None):
        if _series_cat(self) is None:
            return orig(self, ascending, na_position, kind)
        return sort_values(self, ascending, na_position)
    _wrap(Series, "sort_values", sv)

    def dsv(self, orig, by, ascending=True, na_position="last", key=None, kind=None,
            ignore_index=False):
        bys = [by] if _one(by) else list(by)
        ck = sort_key(self, bys) if key is None else None
        return orig(self, by, ascending, na_position, ck or key, kind, ignore_index)
    _wrap(DataFrame, "sort_values", dsv)

    def unique(self, orig):
        out = orig(self)
        out._cats = self._cats
        return out
    _wrap(Series, "unique", unique)

    def ast(self, orig, dtype):
        got = astype(self, dtype)
        if got is not None:
            return got
        if _series_cat(self) is not None and dtype in (str, "str", object, "object"):
            return orig(_plain(self), dtype).fillna("nan")  # pandas' text of a missing value
        per = _series_period(self)
        if per is not None and dtype in (str, "str", object, "object"):
            fmt = _PERIOD_TEXT.get(per.freq.freqstr)
            if fmt is None:
                raise NotImplementedError("astype(str) of %s periods is not supported" % per)
            return _plain(self).dt.strftime(fmt).fillna("NaT")
        if isinstance(dtype, dict) and isinstance(self, DataFrame):
            pd = _pd()
            cat = {c: t for c, t in dtype.items() if isinstance(t, pd.CategoricalDtype) or
                   (isinstance(t, str) and t == "category")}
            rest = {c: t for c, t in dtype.items() if c not in cat}
            out = orig(self, rest) if rest else self
            if rest:
                out._cats = {c: d for c, d in (self._cats or {}).items() if c not in rest} \
                    or None
            return astype_columns(out, cat, out._columns) if cat else out
        return orig(self, dtype)
    _wrap(_Frame, "astype", ast)

    def to_frame(self, orig, name=None):
        out = orig(self, name)
        d = _series_cat(self)
        if d is not None:
            nm = name if name is not None else _series_name(self._ref)
            if nm is not _UNKNOWN:
                out._cats = {0 if nm is None else nm: d}
        return out
    _wrap(Series, "to_frame", to_frame)

    for cls in (Series, DataFrame):
        for name in _REPLAYED + _FETCHED_ONLY:
            if hasattr(cls, name):
                _wrap(cls, name, _replay_method(name, name in _REPLAYED))
    _Frame._regroup_args = None
    _Frame._fetch_only = False
    package = sys.modules[__package__]
    package.elementwise = _replay_elementwise(package.elementwise)

    def ust(self, orig, level=-1, fill_value=None):
        out = orig(self, level, fill_value)
        return unstacked(self, out, level, fill_value) if self._regrouped else out
    _wrap(Series, "unstack", ust)

    def pvt(self, orig, values=None, index=None, columns=None, aggfunc="mean",
            fill_value=None, margins=False, margins_name="All"):
        keys = ([index] if _one(index) or isinstance(index, Entity) else
                list(index if index is not None else [])) + [columns]
        typed = any(not isinstance(k, Entity) and k in (self._cats or {}) for k in keys)
        if margins and typed:
            raise NotImplementedError("pivot_table(margins=True) by categorical keys is not "
                                      "supported")
        out = orig(self, values, index, columns, aggfunc, fill_value, margins, margins_name)
        if not typed:
            return out
        return pivot_table(self, out, values, index, columns, aggfunc, fill_value)
    _wrap(DataFrame, "pivot_table", pvt)

    Series.cat = property(lambda self: CatAccessor(self),
                          doc="pandas' cat accessor of a categorical Series")
    dtype = Series.dtype
    Series.dtype = property(lambda self: _series_cat(self) if _series_cat(self) is not None
                            else dtype.fget(self), doc=dtype.__doc__)


_install()
