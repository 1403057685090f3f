#!/usr/bin/python3
"""What a pandas notebook writes, as it writes it: groupby with a dict of
funcs and as_index=False, a ratio of two aggregations of one groupby, a
column minus its group mean, shares of a total, a loc assignment by a mask,
describe(include="all"), idxmax per group and an unstacked count table;
the lambdas of apply, groupby apply, transform and filter (marsc reads
each one's expression and runs it over whole columns); and pandas' dtypes
the client carries: price bands of pd.cut grouped with every band,
months of dt.to_period, numbers of messy text by to_numeric, datetime
scalars; each compared with pandas."""
import os
import tempfile

import numpy as np
import pandas as pd

import _setup
import marsc
import marsc.dataframe as md

sess = _setup.session("notebook-idioms")
rng = np.random.default_rng(17)
n = 3000
local = pd.DataFrame({"shop": rng.choice(["north", "south", "east"], n),
                      "item": rng.choice(["tea", "cake", "soup", "bread"], n),
                      "qty": rng.integers(1, 6, n),
                      "price": np.round(rng.gamma(3, 2, n), 2)})
local.loc[rng.random(n) < 0.03, "price"] = np.nan
local["day"] = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 200, n), unit="D")
local["note"] = rng.choice(["12", "7.5", "n/a", "", " 3 "], n)
path = os.path.join(tempfile.mkdtemp(), "orders.csv")
local.to_csv(path, index=False)
sess.upload(path)
p = pd.read_csv(path, parse_dates=["day"], dtype={"note": str}, keep_default_na=False,
                na_values=[""])

df = md.read_csv("orders.csv", chunk_bytes=20000, parse_dates=["day"], dtype={"note": str},
                 keep_default_na=False, na_values=[""])
df["revenue"] = df.qty * df.price
p["revenue"] = p.qty * p.price
g, pg = df.groupby("shop"), p.groupby("shop")

results = {
    "per shop": (g.agg({"qty": "sum", "revenue": "mean"}), pg.agg({"qty": "sum", "revenue": "mean"})),
    "flat": (df.groupby(["shop", "item"], as_index=False).qty.sum(),
             p.groupby(["shop", "item"], as_index=False).qty.sum()),
    "price per unit": (g.revenue.sum() / g.qty.sum(), pg.revenue.sum() / pg.qty.sum()),
    "vs shop mean": (df.price - g.price.transform("mean"), p.price - pg.price.transform("mean")),
    "share of all": (g.revenue.sum() / df.revenue.sum(), pg.revenue.sum() / p.revenue.sum()),
    "best order": (g.revenue.idxmax(), pg.revenue.idxmax()),
}
marsc.execute(*[m for m, _ in results.values()])
for name, (m, want) in results.items():
    got = m.fetch()
    print("%s:\n%s\n" % (name, got.head(8)))
    if isinstance(want, pd.Series):
        pd.testing.assert_series_equal(got, want, check_exact=False)
    else:
        pd.testing.assert_frame_equal(got, want, check_exact=False)

table = df.groupby(["shop", "item"]).size().unstack(fill_value=0)
want = p.groupby(["shop", "item"]).size().unstack(fill_value=0)
print(table.fetch())
pd.testing.assert_frame_equal(table.fetch(), want)

df.loc[df.price.isna(), "price"] = df.price.mean()
p.loc[p.price.isna(), "price"] = p.price.mean()
pd.testing.assert_series_equal(df.price.fetch(), p.price, check_exact=False)

# lambdas: marsc reads each one's expression from its source and sends it
# as element-wise ops, groupby aggregations and transforms
lambdas = {
    "big order": (df.apply(lambda r: "big" if r.qty * r.price > 30 else "small", axis=1),
                  p.apply(lambda r: "big" if r.qty * r.price > 30 else "small", axis=1)),
    "weighted price": (g.apply(lambda d: (d.price * d.qty).sum() / d.qty.sum()),
                       pg.apply(lambda d: (d.price * d.qty).sum() / d.qty.sum())),
    "qty z-score": (g.qty.transform(lambda s: (s - s.mean()) / s.std()),
                    pg.qty.transform(lambda s: (s - s.mean()) / s.std())),
    "busy items": (df.groupby("item").filter(lambda d: len(d) > 740).item.value_counts(),
                   p.groupby("item").filter(lambda d: len(d) > 740).item.value_counts()),
}
for name, (m, want) in lambdas.items():
    got = m.fetch()
    print("%s:\n%s\n" % (name, got.head(6)))
    pd.testing.assert_series_equal(got, want, check_exact=False)

# pandas' dtypes, carried by the client: every price band (the empty
# one too), months as periods, text as numbers, datetimes as Timestamps
bins = [0, 5, 10, 20, 100]
typed = {
    "per band": (df.groupby(md.cut(df.price, bins)).qty.sum(),
                 p.groupby(pd.cut(p.price, bins)).qty.sum()),
    "per month": (df.groupby(df.day.dt.to_period("M")).revenue.sum(),
                  p.groupby(p.day.dt.to_period("M")).revenue.sum()),
    "note as number": (md.to_numeric(df.note, errors="coerce").describe(),
                       pd.to_numeric(p.note, errors="coerce").describe()),
}
for name, (m, want) in typed.items():
    got = m.fetch()
    print("%s:\n%s\n" % (name, got.head(6)))
    pd.testing.assert_series_equal(got, want, check_exact=False)
first, last = df.day.min().fetch(), df.day.max().fetch()
print("days from %s to %s" % (first.date(), last.date()))
assert (first, last) == (p.day.min(), p.day.max())

summary = df.drop(columns=["day", "note"]).describe(include="all")  # assembled by the client
print(summary)
pd.testing.assert_frame_equal(summary, p.drop(columns=["day", "note"]).describe(include="all"),
                              check_exact=False)
print("notebook_idioms: succeeded")
