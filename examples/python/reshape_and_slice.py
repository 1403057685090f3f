#!/usr/bin/python3
"""examples/reshape-and-slice.json in Python: reshape, negative-step
indexing, transpose, ravel, stack and cumsum, checked against numpy."""
import numpy as np

import _setup
import marsc
import marsc.tensor as mt

sess = _setup.session("reshape-and-slice")
cube = mt.arange(120, chunk_size=25).reshape(4, 5, 6)
rev = cube[::-1, 2, 1::2]
flat = cube.transpose(2, 0, 1).ravel()
both = mt.stack([flat[:10], flat[-10:]], axis=0)
run = both.cumsum(axis=1)
marsc.execute(rev, both, run)
n = np.arange(120).reshape(4, 5, 6)
nf = n.transpose(2, 0, 1).ravel()
nb = np.stack([nf[:10], nf[-10:]])
for name, t, want in (("rev", rev, n[::-1, 2, 1::2]), ("both", both, nb),
                      ("run", run, nb.cumsum(axis=1))):
    v = t.fetch()
    print(name, v.shape, v.dtype)
    print(v)
    assert (v == want).all() and v.dtype == want.dtype, name
print("reshape_and_slice: succeeded")
