#!/usr/bin/python3
"""A pandas DataFrame of strings, datetimes, a categorical and an index,
sent as it is (md.DataFrame(pdf)), then grouped, filtered by @variables
and compared with pandas: the types and the index survive the trip."""
import numpy as np
import pandas as pd

import _setup
import marsc
import marsc.dataframe as md

sess = _setup.session("from-pandas")
rng = np.random.default_rng(5)
n = 3000
local = pd.DataFrame({
    "city": rng.choice(["Paris", "Lyon", "Nice, FR", None], n),
    "size": pd.Categorical(rng.choice(["S", "M", "L"], n), categories=["S", "M", "L"],
                           ordered=True),
    "amount": rng.normal(50, 20, n).round(2),
    "qty": rng.integers(1, 9, n),
    "when": pd.Timestamp("2024-03-01") + pd.to_timedelta(rng.integers(0, 90 * 86400, n), "s"),
}, index=pd.Index(rng.permutation(n) + 1000, name="order_id"))

df = md.DataFrame(local, chunk_rows=500)  # uploaded as a CSV, read back with every type
floor = 40
big = df.query("amount > @floor and qty >= 2")
by_size = df.groupby("size").amount.mean()  # categorical keys: every size, in order
weekly = df.set_index("when").groupby("city").amount.resample("W").sum()
marsc.execute(big, by_size)
print(by_size.fetch())

pd.testing.assert_frame_equal(df.fetch(), local)
pd.testing.assert_frame_equal(big.fetch(), local.query("amount > @floor and qty >= 2"))
pd.testing.assert_series_equal(by_size.fetch(), local.groupby("size").amount.mean())
pd.testing.assert_series_equal(
    weekly, local.set_index("when").groupby("city").amount.resample("W").sum(), check_freq=False)
print("from_pandas: succeeded")
