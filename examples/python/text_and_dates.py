#!/usr/bin/python3
"""Free text and dates from a CSV: the str accessor, read_csv's parse_dates
and the dt fields, a groupby's methods and a rolling mean, compared with
pandas."""
import os
import tempfile

import numpy as np
import pandas as pd

import _setup
import marsc
import marsc.dataframe as md

sess = _setup.session("text-and-dates")
rng = np.random.default_rng(11)
n = 4000
days = np.datetime64("2024-01-01") + rng.integers(0, 366, n).astype("timedelta64[D]")
local = pd.DataFrame({"when": days.astype(str),
                      "who": rng.choice(["Ada Lovelace", "alan turing", " Grace Hopper "], n),
                      "amount": rng.integers(1, 500, n)})
path = os.path.join(tempfile.mkdtemp(), "orders.csv")
local.to_csv(path, index=False)
sess.upload(path)  # PUT /api/v1/files/orders.csv

df = md.read_csv("orders.csv", parse_dates=["when"])
df = df.assign(name=df.who.str.strip().str.lower(), last=df.who.str.split().str[-1],
               month=df.when.dt.month)
monthly = df.groupby("month")["amount"].sum()
per_name = df.groupby("name").agg(orders=("amount", "count"), total=("amount", "sum"))
smooth = df.sort_values("when")["amount"].rolling(30).mean()
marsc.execute(monthly, per_name, smooth)
print(monthly.fetch().head())
print(per_name.fetch())

p = pd.read_csv(path, parse_dates=["when"])
p = p.assign(name=p.who.str.strip().str.lower(), last=p.who.str.split().str[-1],
             month=p.when.dt.month)
pd.testing.assert_series_equal(monthly.fetch(), p.groupby("month")["amount"].sum())
pd.testing.assert_frame_equal(per_name.fetch(), p.groupby("name").agg(
    orders=("amount", "count"), total=("amount", "sum")))
pd.testing.assert_series_equal(smooth.fetch(),
                               p.sort_values("when", kind="mergesort")["amount"].rolling(30).mean())
print("text_and_dates: succeeded")
