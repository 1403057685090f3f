#!/usr/bin/python3
"""A CSV file as spreadsheets in many locales export it: a title line
before the header, ';' between fields, decimal commas, '.' between
thousands, "-" and "n/a" for missing values, zip codes with leading zeros
the index pandas' to_csv wrote, in cp1252. md.read_csv reads it with
pandas' keywords (skiprows, sep, decimal, thousands, na_values, dtype,
index_col, encoding), then a groupby; every result compared with
pandas'."""
import os
import tempfile

import numpy as np
import pandas as pd

import _setup
import marsc.dataframe as md

sess = _setup.session("messy-csv")
rng = np.random.default_rng(11)
n = 3000
local = pd.DataFrame({"zip": [f"{z:05d}" for z in rng.integers(0, 99999, n)],
                      "region": rng.choice(["Nord", "Süd", "Ost", "West"], n),
                      "revenue": (rng.random(n) * 2e6).round(2)})
path = os.path.join(tempfile.mkdtemp(), "umsatz.csv")
with open(path, "w", encoding="cp1252") as f:  # as Excel writes it in Germany
    f.write("Umsatz 2026 (export)\n")
    text = local.to_csv(sep=";", decimal=",")  # with its index, unnamed
    # 1234567,89 as 1.234.567,89, and some values missing as "-" or "n/a"
    lines = text.splitlines()
    for i, line in enumerate(lines[1:], 1):
        idx, z, region, rev = line.split(";")
        whole, frac = rev.split(",") if "," in rev else (rev, "0")
        rev = f"{int(whole):,}".replace(",", ".") + "," + frac
        if i % 97 == 0:
            rev = "-" if i % 2 else "n/a"
        lines[i] = ";".join([idx, z, region, rev])
    f.write("\n".join(lines) + "\n")
sess.upload(path)  # PUT /api/v1/files/umsatz.csv

kw = dict(skiprows=1, sep=";", decimal=",", thousands=".", na_values=["-", "n/a"],
          dtype={"zip": str}, index_col=0, encoding="cp1252")
df = md.read_csv("umsatz.csv", **kw)
want = pd.read_csv(path, **kw)
got = df.fetch()
print(got.head())
pd.testing.assert_frame_equal(got, want)
assert got.zip.str.len().eq(5).all()  # leading zeros kept

by_region = df.groupby("region").revenue.agg(["sum", "count", "mean"])
print(by_region.fetch())
pd.testing.assert_frame_equal(by_region.fetch(), want.groupby("region").revenue.agg(["sum", "count", "mean"]),
                              check_exact=False, rtol=1e-12)
print("messy_csv: succeeded")
