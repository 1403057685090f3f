#!/usr/bin/python3
"""Statistics of the values a mask keeps: x[x > 0].mean(), as numpy.

The length of x[x > 0] is known only when it runs, so the client runs it
first as a task of its own and the statistics in a second task that names
it (docs/python-client.md, "Results whose length is data")."""
import numpy as np

import _setup
import marsc
import marsc.tensor as mt

sess = _setup.session("masked-stats")
x = mt.random.randn(1_000_000, chunk_size=100_000, seed=3)
pos = x[x > 0]
mean, top = pos.mean(), mt.sort(pos)[-3:]
marsc.execute(mean, top)
print("positive values:", pos.shape[0], "mean:", mean.fetch(), "largest three:", top.fetch())
xn = x.fetch()
assert pos.shape == (int((xn > 0).sum()),)
assert np.isclose(mean.fetch(), xn[xn > 0].mean(), rtol=1e-12)
assert np.array_equal(top.fetch(), np.sort(xn[xn > 0])[-3:])
print("masked_stats: succeeded")
