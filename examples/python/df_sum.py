#!/usr/bin/python3
"""examples/df_sum.json in Python: md.DataFrame(a).sum(), a 15000 x 4 tensor
as a DataFrame of 2000-row chunks summed per column, fetched as a
pandas.Series."""
import numpy as np
import pandas as pd

import _setup
import marsc.dataframe as md
import marsc.tensor as mt

sess = _setup.session("df_sum")
a = mt.arange(60000, dtype="float64", chunk_size=8000).reshape(15000, 4)
s = md.DataFrame(a, columns=["a", "b", "c", "d"], chunk_rows=2000).sum()
v = s.execute().fetch()
print(v)
want = pd.DataFrame(np.arange(60000.0).reshape(15000, 4), columns=list("abcd")).sum()
pd.testing.assert_series_equal(v, want)
print("df_sum: succeeded")
