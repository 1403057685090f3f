"""pandas 1.5's answer to a graph document with DataFrame ops
(graph-format.md, DataFrames): tensor nodes through npref, dataframe.* and
element-wise ops on frames through pandas. Used by test_docs.py for the
DataFrame examples of docs/graph-format.md and examples/df_*.json.

evaluate(doc, data_dir) -> {key: value} (numpy arrays, pandas objects)."""

import os

import numpy as np
import pandas as pd

import npref

EW = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "floor_divide": np.floor_divide, "mod": np.mod, "power": np.power,
    "maximum": np.maximum, "minimum": np.minimum, "equal": np.equal,
    "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
    "greater": np.greater, "greater_equal": np.greater_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or,
    "negative": np.negative, "abs": np.abs, "sqrt": np.sqrt, "exp": np.exp, "log": np.log,
    "log1p": np.log1p, "expm1": np.expm1, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "tanh": np.tanh, "square": np.square, "sign": np.sign, "floor": np.floor,
    "ceil": np.ceil, "logical_not": np.logical_not, "isnan": np.isnan,
    "isfinite": np.isfinite,
}


# ops whose fields are pandas' keywords of the method of the same name
CLEAN = {"dataframe." + x for x in ("fillna", "interpolate", "dropna", "isna", "notna", "isin", "astype",
                                    "rename", "drop", "replace", "clip", "abs", "round")}


SELECT = {"dataframe." + x for x in ("set_index", "reset_index", "tail", "nlargest",
                                     "nsmallest", "sample", "drop_duplicates", "duplicated",
                                     "melt")}


RUNNING = {"dataframe." + x for x in ("cumsum", "cumprod", "cummax", "cummin", "diff", "shift",
                                      "pct_change")}


STATS = {"dataframe." + x for x in ("median", "quantile", "skew", "kurt", "corr", "cov",
                                    "value_counts", "rank", "mode")}


def merge_columns(left, right, kw):
    """The columns of a merge of non-empty sides. pandas 1.5 moves the key
    columns behind the others when a side is empty (pandas issues 9937,
    43087, 51929; fixed in pandas 2.2); the engine types its frames before
    it reads them, so its order never depends on emptiness. One row of
    missing values per side, with the same index names, gives the order."""
    def one_row(f):
        d = pd.DataFrame({c: [None] for c in f.columns}, columns=f.columns)
        d.index = pd.MultiIndex.from_arrays([[0]] * f.index.nlevels, names=f.index.names) \
            if f.index.nlevels > 1 else pd.Index([0], name=f.index.name)
        return d
    return list(one_row(left).merge(one_row(right), **kw).columns)


def is_df_doc(doc):
    return any(n["op"].startswith("dataframe.") for n in doc["nodes"])


def time_literals(ins):
    """string literals beside a datetime or timedelta Series as pandas'
    Timedelta (when one reads) or Timestamp, which the engine reads them as
    and pandas' operators take"""
    if not any(isinstance(x, pd.Series) and x.dtype.kind in "mM" for x in ins):
        return ins
    out = []
    for x in ins:
        if isinstance(x, str):
            try:
                x = pd.Timedelta(x)
            except ValueError:
                x = pd.Timestamp(x)
        out.append(x)
    return out


def evaluate(doc, data_dir="."):
    nodes = {n["key"]: n for n in doc["nodes"]}
    pure = {}

    def is_pure(k):
        if k not in pure:
            n = nodes[k]
            pure[k] = not n["op"].startswith("dataframe.") and all(
                is_pure(i) for i in n.get("inputs", []) if isinstance(i, str))
        return pure[k]
    tensor = [n for n in doc["nodes"] if is_pure(n["key"])]
    vals = {}

    def frame_input(n):
        return any(isinstance(vals.get(k), (pd.DataFrame, pd.Series))
                   for k in n.get("inputs", []) if isinstance(k, str))

    def ev(key):
        if key in vals:
            return vals[key]
        n = nodes[key]
        for k in n.get("inputs", []):
            if isinstance(k, str):
                ev(k)
        op = n["op"]
        # a literal {"value": X} is X (null: NaN)
        ins = [vals[k] if isinstance(k, str) else
               (np.nan if k["value"] is None else k["value"]) if isinstance(k, dict) else k
               for k in n.get("inputs", [])]
        if not op.startswith("dataframe.") and not frame_input(n):
            sub = [t for t in tensor]
            v = npref.evaluate({"version": 1, "nodes": sub, "fetch": [key]})[key]
        elif op in EW:
            v = EW[op](*time_literals(ins))
        elif op == "astype":
            v = ins[0].astype(n["dtype"])
        elif op == "where":
            v = ins[1].where(ins[0], ins[2])
        elif op == "clip":
            v = ins[0].clip(n.get("a_min"), n.get("a_max"))
        elif op == "dataframe.from_tensor":
            a = ins[0]
            if a.ndim == 1 and "name" in n:
                v = pd.Series(a, name=n["name"])
            else:
                v = pd.DataFrame(a, columns=n.get("columns"))
        elif op == "dataframe.read_csv":
            v = pd.read_csv(os.path.join(data_dir, n["path"]), usecols=n.get("usecols"),
                            parse_dates=n.get("parse_dates", False))
        elif op == "dataframe.getitem":
            v = ins[0][n["columns"]]
        elif op == "dataframe.filter":
            v = ins[0][ins[1]]
        elif op == "dataframe.assign":
            v = ins[0].assign(**dict(zip(n["names"], ins[1:])))
        elif op in ("dataframe.std", "dataframe.var"):
            f = getattr(ins[0], op.split(".")[1])
            kw = {"ddof": n.get("ddof", 1)}
            v = f(numeric_only=True, **kw) if isinstance(ins[0], pd.DataFrame) else f(**kw)
        elif op == "dataframe.nunique":
            v = ins[0].nunique(dropna=n.get("dropna", True))
        elif op in ("dataframe.any", "dataframe.all"):
            v = getattr(ins[0], op.split(".")[1])()
        elif op == "dataframe.count":
            v = ins[0].count()
        elif op.split(".")[1] in ("sum", "mean", "min", "max", "count", "prod"):
            f = getattr(ins[0], op.split(".")[1])
            v = f(numeric_only=True) if isinstance(ins[0], pd.DataFrame) else f()
        elif op == "dataframe.describe":
            v = ins[0].describe(percentiles=n.get("percentiles"))
        elif op == "dataframe.groupby_agg":
            v = ins[0].groupby(n["by"], dropna=n.get("dropna", True),
                               as_index=n.get("as_index", True)).agg(
                **{k: tuple(s) for k, s in n["agg"].items()})
        elif op in ("dataframe.to_datetime", "dataframe.to_timedelta"):
            kw = {k: n[k] for k in ("unit", "format", "errors") if k in n}
            v = getattr(pd, op.split(".")[1])(ins[0], **kw)
        elif op == "dataframe.resample":
            kw = {k: n[k] for k in ("on", "closed", "label", "origin", "offset") if k in n}
            r = ins[0].resample(n["rule"], **kw)
            if "func" in n:
                v = getattr(r, n["func"])()
            else:
                v = r.agg(**{k: tuple(s) for k, s in n["agg"].items()})
                for c, (src, fn) in n["agg"].items():  # the engine's bool picks are float64
                    if ins[0][src].dtype == bool and fn in ("min", "max", "first", "last"):
                        v[c] = v[c].astype("float64")
            v.index = pd.DatetimeIndex(v.index.values, name=v.index.name)  # no freq
        elif op == "dataframe.sort_values":
            if isinstance(ins[0], pd.Series):
                v = ins[0].sort_values(ascending=n.get("ascending", True), kind="mergesort",
                                       na_position=n.get("na_position", "last"))
            else:
                v = ins[0].sort_values(n["by"], ascending=n.get("ascending", True),
                                       kind="mergesort", na_position=n.get("na_position", "last"))
        elif op == "dataframe.merge":
            kw = {k: v for k, v in n.items() if k not in ("key", "op", "inputs")}
            if "suffixes" in kw:
                kw["suffixes"] = tuple(kw["suffixes"])
            v = ins[0].merge(ins[1], **kw)
            if len(ins[0]) == 0 or len(ins[1]) == 0:
                v = v[merge_columns(ins[0], ins[1], kw)]
        elif op in ("dataframe.cut", "dataframe.qcut"):
            kw = {k: v for k, v in n.items() if k not in ("key", "op", "inputs")}
            v = (pd.cut if op == "dataframe.cut" else pd.qcut)(ins[0], **kw)
            if kw.get("labels") is not False:  # the categories' text, as the engine writes it
                cats = [str(c) for c in v.cat.categories]
                v = pd.Series([np.nan if k < 0 else cats[k] for k in v.cat.codes],
                              index=v.index, name=v.name, dtype=object)
        elif op == "dataframe.merge_asof":
            kw = {k: v for k, v in n.items() if k not in ("key", "op", "inputs")}
            if "suffixes" in kw:
                kw["suffixes"] = tuple(kw["suffixes"])
            if isinstance(kw.get("tolerance"), str):  # a span of time
                kw["tolerance"] = pd.Timedelta(kw["tolerance"])
            v = pd.merge_asof(ins[0], ins[1], **kw)
        elif op == "dataframe.pivot":
            v = ins[0].pivot(index=n["index"], columns=n["columns"], values=n["values"])
            v.columns.name = None  # not carried (docs/graph-format.md)
        elif op == "dataframe.unstack":
            v = ins[0].unstack(n.get("level", -1), fill_value=n.get("fill_value"))
            v.columns.name = None  # not carried (docs/graph-format.md)
        elif op == "dataframe.pivot_table":
            kw = {k: v for k, v in n.items() if k not in ("key", "op", "inputs")}
            v = pd.pivot_table(ins[0], **kw)
        elif op.startswith("dataframe.groupby_") and op != "dataframe.groupby_agg":
            kw = {k: v for k, v in n.items() if k not in ("key", "op", "inputs", "by",
                                                          "columns")}
            g = ins[0].groupby(n["by"])
            if "columns" in n:
                g = g[n["columns"]]
            meth = op.split("_", 1)[1]
            if meth == "transform" and kw["func"] in ("sum", "mean", "count", "min", "max",
                                                       "std", "var", "median", "prod",
                                                       "first", "last", "nunique", "size"):
                v = g.transform(kw["func"])
            elif meth == "transform":  # a kernel: pandas' method of its name
                v = getattr(g, kw.pop("func"))(**kw)
            else:
                v = getattr(g, meth)(**kw)
        elif op == "dataframe.join":
            kw = {k: v for k, v in n.items() if k not in ("key", "op", "inputs")}
            v = ins[0].join(ins[1], **kw)
        elif op == "dataframe.head":
            v = ins[0].head(n.get("n", 5))
        elif op == "dataframe.to_tensor":
            f = ins[0]
            if isinstance(f, pd.DataFrame):
                f = f.select_dtypes(include=["number", "bool"])
            v = f.to_numpy()
        elif op == "dataframe.iloc":
            r = n.get("rows")
            rs = slice(*[int(x) if x else None for x in r.split(":")]) if isinstance(r, str) \
                else (slice(None) if r is None else r)
            c = n.get("columns")
            cs = slice(*[int(x) if x else None for x in c.split(":")]) if isinstance(c, str) \
                else (slice(None) if c is None else c)
            v = ins[0].iloc[rs] if isinstance(ins[0], pd.Series) else ins[0].iloc[rs, cs]
        elif op == "dataframe.loc":
            if len(ins) == 2:
                v = ins[0].loc[ins[1]]
            else:
                r = n["labels"] if "labels" in n else slice(n.get("start"), n.get("stop"))
                v = ins[0].loc[r] if "columns" not in n else ins[0].loc[r, n["columns"]]
        elif op == "dataframe.sort_index":
            v = ins[0].sort_index(ascending=n.get("ascending", True), kind="mergesort",
                                  na_position=n.get("na_position", "last"))
        elif op == "dataframe.expanding":
            src = ins[0].groupby(n["by"]) if n.get("by") else ins[0]
            e = src.expanding(min_periods=n.get("min_periods", 1))
            v = e.quantile(n["quantile"], interpolation=n.get("interpolation", "linear")) \
                if n["agg"] == "quantile" else getattr(e, n["agg"])()
        elif op == "dataframe.ewm":
            kw = {k: n[k] for k in ("com", "span", "halflife", "alpha", "min_periods", "adjust",
                                    "ignore_na", "times") if k in n}
            r = (ins[0].groupby(n["by"]) if n.get("by") else ins[0]).ewm(**kw)
            v = getattr(r, n.get("agg", "mean"))(**({"bias": n["bias"]} if "bias" in n else {}))
        elif op == "dataframe.rolling":
            src = ins[0].groupby(n["by"]) if n.get("by") else ins[0]
            r = src.rolling(n["window"], min_periods=n.get("min_periods"),
                            center=n.get("center", False), on=n.get("on"),
                            closed=n.get("closed"))
            if n["agg"] == "quantile":
                v = r.quantile(n["quantile"], interpolation=n.get("interpolation", "linear"))
            elif n["agg"] in ("cov", "corr"):
                v = getattr(r, n["agg"])(ins[0][n["other"]])
            else:
                v = getattr(r, n["agg"])()
        elif op.startswith("dataframe.str."):
            kw = {k: v for k, v in n.items() if k not in ("key", "op", "inputs", "get")}
            m = op.split(".")[2]
            if m == "extract" and "flags" in kw:
                kw["flags"] = int(kw["flags"])
            if m in ("replace", "contains") and "regex" not in kw:
                kw["regex"] = m == "contains"
            v = getattr(ins[0].str, m)(**kw)
            if m == "split":
                v = v.str[n["get"]]
        elif op.startswith("dataframe.dt."):
            v = getattr(ins[0].dt, op.split(".")[2])
            if callable(v):  # total_seconds()
                v = v()
        elif op == "dataframe.query":
            v = ins[0].query(n["expr"])
        elif op == "dataframe.eval":
            v = ins[0].eval(n["expr"])
            if isinstance(v, pd.Series):
                v = v.rename(None)
        elif op == "dataframe.concat" and n.get("sort") == "differing" and len(ins) == 2:
            a, b = ins[0].align(ins[1], join=n.get("join", "outer"), axis=0)
            v = pd.concat([a, b], axis=1)
        elif op == "dataframe.concat":
            v = pd.concat(ins, axis=n.get("axis", 0), join=n.get("join", "outer"),
                          sort=n.get("sort", False) is True)
        elif op in ("dataframe.idxmax", "dataframe.idxmin"):
            kw = {k: v for k, v in n.items() if k not in ("key", "op", "inputs")}
            v = getattr(ins[0], op.split(".")[1])(**kw)
            if not isinstance(ins[0], pd.DataFrame):  # a Series': one row here
                v = pd.Series([v], index=[ins[0].name])
        elif op in STATS:
            kw = {k: v for k, v in n.items() if k not in ("key", "op", "inputs")}
            if isinstance(ins[0], pd.DataFrame) and op not in ("dataframe.rank", "dataframe.mode",
                                                                "dataframe.value_counts"):
                kw.setdefault("numeric_only", True)
            v = getattr(ins[0], op.split(".")[1])(**kw)
        elif op in SELECT or op in RUNNING:
            kw = {k: v for k, v in n.items() if k not in ("key", "op", "inputs")}
            v = getattr(ins[0], op.split(".")[1])(**kw)
        elif op == "dataframe.get_dummies":
            kw = {k: v for k, v in n.items() if k not in ("key", "op", "inputs", "categories")}
            kw["dtype"] = {"bool": bool, "int64": "int64", "float64": float}[kw.get("dtype", "bool")]
            x = ins[0]
            if isinstance(x, pd.Series):
                if n["categories"] != sorted(x.dropna().unique().tolist()):
                    x = pd.Series(pd.Categorical(x, categories=n["categories"]), index=x.index,
                                  name=x.name)
            else:  # categories other than the values present: a Categorical of them
                x = x.copy()
                for c, cs in n["categories"].items():
                    if cs != sorted(x[c].dropna().unique().tolist()):
                        x[c] = pd.Categorical(x[c], categories=cs)
                if kw.get("columns") is None:
                    kw["columns"] = list(n["categories"])
            v = pd.get_dummies(x, **kw)
            if kw.get("dummy_na") and isinstance(ins[0], pd.DataFrame):
                # pandas labels an int column's levels beside NaN as floats
                # ("g_1.0"), but a Categorical's as ints: the plain column's
                sep = kw.get("prefix_sep", "_")
                ren = {}
                for c, cs in n["categories"].items():
                    if str(ins[0][c].dtype) == "int64" and not isinstance(x[c].dtype, np.dtype):
                        ren.update({"%s%s%s" % (c, sep, w): "%s%s%s" % (c, sep, float(w))
                                    for w in cs})
                v = v.rename(columns=ren)
        elif op == "dataframe.map":  # a dict's keys and values; null is NaN
            keys = [np.nan if x is None else x for x in n["keys"]]
            v = ins[0].map(dict(zip(keys, n["values"])), na_action=n.get("na_action"))
        elif op in CLEAN:
            kw = {k: v for k, v in n.items() if k not in ("key", "op", "inputs")}
            if op == "dataframe.isin":
                kw = {"values": [np.nan if x is None else x for x in kw["values"]]}
            if op == "dataframe.replace" and kw.get("to_replace", 0) is None:
                kw["to_replace"] = np.nan
            v = getattr(ins[0], op.split(".")[1])(**kw)
        else:
            raise ValueError("pdref: no reference for %s" % op)
        if isinstance(v, (np.generic, float, int, bool)):
            v = np.array(v)
        vals[key] = v
        return v

    for k in doc.get("fetch", []):
        ev(k)
    return vals
