#!/usr/bin/python3
"""A CSV file typed by hand, or by a tool that writes one the way people
type: a space after each comma ("city, temp"), a comma at the end of every
line, quoted notes that hold commas after that space, a few lines with a
stray extra field, and blank lines between the days. md.read_csv reads it
with pandas' keywords (skipinitialspace, index_col=False, on_bad_lines,
skip_blank_lines), then a groupby; every result compared with pandas'."""
import os
import tempfile

import numpy as np
import pandas as pd

import _setup
import marsc.dataframe as md

sess = _setup.session("handwritten-csv")
rng = np.random.default_rng(5)
cities = ["Lyon", "Porto", "Graz", "Turku"]
path = os.path.join(tempfile.mkdtemp(), "readings.csv")
with open(path, "w") as f:
    f.write("city, temp, note\n")  # the lines below end in a comma, the header not
    for i in range(2000):
        note = ["ok", '"windy, cold"', '"sun, then rain"', ""][i % 4]
        extra = ", oops" if i % 151 == 150 else ""  # one field too many: a bad line
        f.write(f"{cities[i % 4]}, {rng.normal(12, 6):.1f}, {note},{extra}\n")
        if i % 50 == 49:
            f.write("\n")  # a blank line between the days
sess.upload(path)  # PUT /api/v1/files/readings.csv

kw = dict(skipinitialspace=True, index_col=False, on_bad_lines="skip")
df = md.read_csv("readings.csv", chunk_bytes=8192, **kw)
want = pd.read_csv(path, **kw)
got = df.fetch()
print(got.head())
pd.testing.assert_frame_equal(got, want)
assert list(got.columns) == ["city", "temp", "note"]  # no " temp", no implicit index
assert got.note.str.contains(",").any()  # quoted commas after the space kept

# the blank lines as rows of missing values, counted per city
rows = md.read_csv("readings.csv", skip_blank_lines=False, **kw)
want_rows = pd.read_csv(path, skip_blank_lines=False, **kw)
pd.testing.assert_frame_equal(rows.fetch(), want_rows)
print(rows.city.isna().sum().fetch(), "blank lines")

by_city = df.groupby("city").temp.agg(["count", "mean", "max"])
print(by_city.fetch())
pd.testing.assert_frame_equal(by_city.fetch(), want.groupby("city").temp.agg(["count", "mean", "max"]),
                              check_exact=False, rtol=1e-12)
print("handwritten_csv: succeeded")
