#!/usr/bin/python3
"""A CSV file uploaded with sess.upload, read with md.read_csv, described,
filtered, grouped and sorted, compared with pandas."""
import os
import tempfile

import numpy as np
import pandas as pd

import _setup
import marsc
import marsc.dataframe as md

sess = _setup.session("csv-groupby")
rng = np.random.default_rng(5)
local = pd.DataFrame({"city": rng.choice(["paris", "rome", "oslo"], 5000),
                      "year": rng.integers(2000, 2010, 5000),
                      "temp": rng.normal(12, 6, 5000).round(2)})
path = os.path.join(tempfile.mkdtemp(), "weather.csv")
local.to_csv(path, index=False)
sess.upload(path)  # PUT /api/v1/files/weather.csv

df = md.read_csv("weather.csv")
warm = df[df.temp > 20]
by_city = df.groupby(["city", "year"]).agg(mean_temp=("temp", "mean"), days=("temp", "count"))
top = warm.sort_values("temp", ascending=False).head(5)
marsc.execute(df.describe(), by_city, top)
print(df.describe().fetch())
print(by_city.fetch().head(12))
print(top.fetch())
pd.testing.assert_frame_equal(
    by_city.fetch(), local.groupby(["city", "year"]).agg(mean_temp=("temp", "mean"),
                                                         days=("temp", "count")))
pd.testing.assert_frame_equal(
    top.fetch(), local[local.temp > 20].sort_values("temp", ascending=False,
                                                    kind="mergesort").head(5))
print("csv_groupby: succeeded")
