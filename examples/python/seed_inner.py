#!/usr/bin/python3
"""The Mars documents' first example, examples/seed-inner.json in Python:
inner(ones((2000, 2000)), itself) in 10 x 10 chunks of 200 x 200."""
import _setup
import marsc.tensor as mt

sess = _setup.session("seed-inner")
a = mt.ones((2000, 2000), chunk_size=200)
b = mt.inner(a, a)
b.execute(show_progress=True)
v = b.fetch()
print("b", v.shape, v.dtype, "b[0, :3] =", v[:1, :3])
assert v.shape == (2000, 2000) and (v == 2000).all()
print("seed_inner: succeeded")
