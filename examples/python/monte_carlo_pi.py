#!/usr/bin/python3
"""examples/monte-carlo-pi.json in Python: pi from 400 000 random points."""
import _setup
import marsc.tensor as mt

sess = _setup.session("monte-carlo-pi")
x = mt.random.rand(400000, chunk_size=50000, seed=1)
y = mt.random.rand(400000, chunk_size=50000, seed=2)
pi = ((x ** 2 + y ** 2) < 1.0).mean() * 4
v = pi.execute().fetch()
print("pi ~", v)
assert abs(v - 3.14159) < 0.02
print("monte_carlo_pi: succeeded")
