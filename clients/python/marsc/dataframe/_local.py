"""Local data sent to the cluster: md.DataFrame of a pandas DataFrame (or
of what pandas' constructor takes: a dict of columns, a list of records
...), md.Series of a pandas Series or a list (docs/python-client.md,
"Local data").

Frames whose columns and index levels are all int64, float64 or bool go
as one binary 2-D tensor (the index levels made the index with
set_index): of their one type, or float64 with each column cast back
where float64 holds every value exactly (integers up to 2**53). Others
(larger integers beside other types, strings, datetimes, timedeltas,
categoricals, periods) go as one CSV file the client writes
with pandas and uploads before the document that reads it, named by its
content (sent once per session), read back by dataframe.read_csv with
every column's type given: floats are written as Python's repr (exact),
strings quoted as needed (commas, quotes and line ends kept), and a
missing value as a marker no value holds (so "" stays "" and "NA" stays
"NA"). Categorical and period columns are held as their values (a
period's start), their dtypes kept by the client (_carried.py).
"""
import csv
import hashlib

import numpy as np


MISSING = "\x01marsc-missing\x01"  # the CSV's missing value: no value holds it
_LEVEL = "__marsc_index_%d__"
_SERIES = "__marsc_series__"
_NUMERIC = ("int64", "float64", "bool")


def _pd():
    import pandas as pd
    return pd


def _refuse(what, name, why):
    raise TypeError("md.%s: %s %s; the cluster's columns hold one type each (numbers, "
                    "bools, strings, datetimes, timedeltas, categoricals or periods)"
                    % (what, name, why))


def _kind(values, name, what):
    """(kind, values to write) of one column or index level: kind
    'int64', 'float64', 'bool', 'object' (strings), 'datetime',
    'timedelta', or a pandas CategoricalDtype or PeriodDtype"""
    pd = _pd()
    s = pd.Series(values, copy=False).reset_index(drop=True)
    d = s.dtype
    if isinstance(d, pd.CategoricalDtype):
        cats = d.categories
        if cats.dtype.kind in "iu":
            kind = "float64" if s.isna().any() else "int64"
        elif cats.dtype.kind == "f":
            kind = "float64"
        elif cats.dtype == object and pd.api.types.infer_dtype(cats) == "string":
            kind = "object"
        else:
            _refuse(what, name, "is categorical of %s categories, which the cluster does not "
                    "hold (categories of strings or numbers are)" % cats.dtype)
        return d, (kind, s.astype(object))
    if isinstance(d, pd.PeriodDtype):
        return d, ("datetime", s.dt.start_time)
    if isinstance(d, pd.DatetimeTZDtype):
        _refuse(what, name, "has a time zone (%s), which the cluster's datetimes do not hold: "
                "tz_convert(None) or tz_localize(None) it first" % d.tz)
    if isinstance(d, pd.api.extensions.ExtensionDtype) and d.kind in "iufb" and \
            not isinstance(d, pd.SparseDtype):
        if s.isna().any():  # pandas' nullable Int64, Float64, boolean with NA
            if d.kind == "b":  # numpy's would be object
                _refuse(what, name, "is a boolean column with missing values")
            return "float64", s.astype("float64")
        d = np.dtype(d.numpy_dtype)
        s = s.astype(d)
    if isinstance(d, pd.StringDtype):
        return "object", s.astype(object)
    if not isinstance(d, np.dtype):
        _refuse(what, name, "has the dtype %s" % d)
    if d.kind == "b":
        return "bool", s
    if d.kind in "iu":
        if d == np.uint64 and len(s) and s.max() > np.iinfo(np.int64).max:
            _refuse(what, name, "holds integers past 2**63 - 1 (the cluster's are int64)")
        return "int64", s.astype(np.int64)
    if d.kind == "f":
        return "float64", s.astype(np.float64)  # float32's values, exactly
    if d.kind == "M":
        return "datetime", s.astype("datetime64[ns]")
    if d.kind == "m":
        return "timedelta", s.astype("timedelta64[ns]")
    if d.kind != "O":
        _refuse(what, name, "has the dtype %s" % d)
    inferred = pd.api.types.infer_dtype(s, skipna=True)
    if inferred in ("string", "empty"):
        return "object", s
    if inferred == "boolean" and not s.isna().any():
        return "bool", s.astype(bool)
    if inferred in ("integer", "floating", "mixed-integer-float", "decimal"):
        return _kind(pd.to_numeric(s), name, what)
    if inferred in ("datetime", "datetime64", "date"):
        return _kind(pd.to_datetime(s), name, what)
    if inferred in ("timedelta", "timedelta64"):
        return _kind(pd.to_timedelta(s), name, what)
    if inferred == "period":
        return _kind(pd.Series(pd.PeriodIndex(s)), name, what)
    _refuse(what, name, "holds %s values (pandas' infer_dtype): convert it first "
            "(astype(str), pd.to_numeric, pd.to_datetime)" % inferred)


def _column_names(pdf, what):
    pd = _pd()
    if isinstance(pdf.columns, pd.MultiIndex):
        raise NotImplementedError("md.%s: columns of a MultiIndex are not supported (the "
                                  "cluster's columns have one name each)" % what)
    names = [str(c) for c in pdf.columns]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError("md.%s: the column name %r is there twice; the cluster's columns "
                         "have unique names" % (what, dup))
    if not names:
        raise ValueError("md.%s: a frame of no columns" % what)
    bad = [n for n in names if n.startswith("__marsc_index_")]
    if bad:
        raise ValueError("md.%s: the column name %r is one marsc uses itself" % (what, bad[0]))
    return names


def frame(pdf, chunk_rows=None, session=None, what="DataFrame"):
    """md.DataFrame of the pandas DataFrame pdf"""
    pd = _pd()
    names = _column_names(pdf, what)
    idx = pdf.index
    plain = isinstance(idx, pd.RangeIndex) and idx.start == 0 and idx.step == 1 and \
        idx.name is None
    levels = [] if plain else [_LEVEL % i for i in range(idx.nlevels)]
    kinds, dtypes = {}, {}
    for i, lv in enumerate(levels):
        k, w = _kind(idx.get_level_values(i), "the index level %r" % idx.names[i], what)
        if not isinstance(k, str):
            raise NotImplementedError("md.%s: an index of %s is not supported: "
                                      "reset_index() it into a column" % (what, k))
        kinds[lv] = (k, w)
    for n, c in zip(names, range(pdf.shape[1])):
        k, w = _kind(pdf.iloc[:, c], "the column %r" % n, what)
        if not isinstance(k, str):  # categorical or period: held as values
            dtypes[n], (k, w) = k, w
        kinds[n] = (k, w)
    if all(k in _NUMERIC and (k != "int64" or _exact(w)) for k, w in kinds.values()) or \
            len({k for k, _ in kinds.values()}) == 1 and kinds[names[0]][0] in _NUMERIC:
        out = _binary(kinds, levels, names, chunk_rows)
    else:
        out = _csv(kinds, levels, names, len(pdf), chunk_rows, session)
    ints = {n: c for n, c in zip(names, pdf.columns) if isinstance(c, (int, np.integer))
            and not isinstance(c, (bool, np.bool_))}
    if ints:  # uploaded by their text, labelled as pandas' again (df[0])
        out = out.rename(columns={n: int(c) for n, c in ints.items()})
    if levels:
        out = out.set_index(levels)
        out = out.rename_axis(list(idx.names) if len(levels) > 1 else idx.name)
    if dtypes:
        out._cats = dict(out._cats or {}, **dtypes)
    return out


def _exact(ints):
    """whether float64 holds each of these int64 values exactly"""
    return not len(ints) or int(np.abs(ints).max()) <= 2**53


def _binary(kinds, levels, names, chunk_rows):
    """the frame of numeric columns as one 2-D tensor: of their one type,
    or float64 (exact for bools and integers up to 2**53) with each column
    cast back to its type (dataframe.astype)"""
    from . import DataFrame
    from ..tensor import tensor
    cols = levels + names  # session: the default one, as md.DataFrame(ndarray)'s
    types = {c: kinds[c][0] for c in cols}
    one = len(set(types.values())) == 1
    arrays = [kinds[c][1].to_numpy(dtype=None if one else np.float64) for c in cols]
    t = tensor(np.stack(arrays, axis=1))
    out = DataFrame(t, columns=cols, chunk_rows=chunk_rows)
    return out if one else out.astype({c: k for c, k in types.items() if k != "float64"})


def _csv(kinds, levels, names, n, chunk_rows, session):
    """the frame of mixed columns, a CSV file read back with its types"""
    pd = _pd()
    from . import read_csv, to_timedelta
    cols = levels + names
    w = pd.DataFrame({c: kinds[c][1].to_numpy() for c in cols}, columns=cols)
    # lines end "\r\n": a value holding "\r" or "\n" is quoted (csv's minimal
    # quoting looks for the line terminator's characters), read back whole;
    # one column's text all quoted: a line of spaces alone would be a blank
    # line, skipped as pandas skips it
    data = w.to_csv(index=False, na_rep=MISSING, lineterminator="\r\n",
                    quoting=csv.QUOTE_NONNUMERIC if len(cols) == 1 else csv.QUOTE_MINIMAL)
    data = data.encode("utf-8")
    name = "marsc-frame-%s.csv" % hashlib.sha256(data).hexdigest()[:32]
    dtype = {c: k for c, (k, _) in kinds.items() if k in _NUMERIC + ("object",)}
    dtype.update({c: "object" for c, (k, _) in kinds.items() if k == "timedelta"})
    dates = [c for c in cols if kinds[c][0] == "datetime"]
    chunk_bytes = None if chunk_rows is None else max(1, len(data) * int(chunk_rows) // max(n, 1))
    df = read_csv(name, header=0, names=cols, dtype=dtype, parse_dates=dates or None,
                  keep_default_na=False, na_values=[MISSING], chunk_bytes=chunk_bytes,
                  session=session, _file=(name, data))
    for c in cols:
        if kinds[c][0] == "timedelta":
            df[c] = to_timedelta(df[c])
    return df


def series(s, name, chunk_rows=None, session=None):
    """md.Series of the pandas Series s, named name"""
    pd = _pd()
    df = frame(pd.DataFrame({_SERIES: s}, index=s.index), chunk_rows, session, "Series")
    return df[_SERIES].rename(name)
