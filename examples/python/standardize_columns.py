#!/usr/bin/python3
"""examples/standardize-columns.json in Python: column means and standard
deviations, z-scores and outlier counts."""
import numpy as np

import _setup
import marsc
import marsc.tensor as mt

sess = _setup.session("standardize-columns")
data = mt.random.normal(3.0, 2.0, size=(1000, 50), chunk_size=(128, 25), seed=7)
mu = data.mean(axis=0, keepdims=True)
sigma = data.std(axis=0, keepdims=True, ddof=1)
z = (data - mu) / sigma
n_outliers = (z > 3.0).sum(axis=0)
marsc.execute(mu, sigma, z, n_outliers)
d = data.fetch()  # the same values again: the client drew the seed
zv = z.fetch()
print("mu[:5]", mu.fetch()[0, :5])
print("sigma[:5]", sigma.fetch()[0, :5])
print("outliers per column", n_outliers.fetch())
want = (d - d.mean(axis=0)) / d.std(axis=0, ddof=1)
assert np.allclose(zv, want)
assert (n_outliers.fetch() == (want > 3).sum(axis=0)).all()
print("standardize_columns: succeeded")
