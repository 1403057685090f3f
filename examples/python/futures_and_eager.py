#!/usr/bin/python3
"""Futures (execute(wait=False)), cancellation and eager mode."""
import time

import numpy as np

import _setup
import marsc
import marsc.tensor as mt

sess = _setup.session("futures-and-eager")
a = mt.random.rand(2000, 2000, chunk_size=250)
f = mt.inner(a, a).sum().execute(wait=False)
while not f.done():
    print("progress %.0f%%" % (100 * f.progress()))
    time.sleep(0.2)
print("sum of inner(a, a) =", f.result().fetch())

b = mt.random.rand(4000, 4000, chunk_size=250)
slow = mt.inner(b, b).execute(wait=False)
print("cancelled:", slow.cancel())
try:
    slow.result()
except marsc.TaskError as e:
    print("as expected:", e)

marsc.options.eager_mode = True  # every op runs as soon as it is made
x = mt.arange(10.0)
y = (x * 2).cumsum()
print("eager:", y.fetch())
assert (y.fetch() == (np.arange(10.0) * 2).cumsum()).all()
marsc.options.eager_mode = False
print("futures_and_eager: succeeded")
