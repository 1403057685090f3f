#!/usr/bin/python3
"""examples/normal-equations.json in Python: X^T X and X^T y of a
least-squares problem, solved locally with numpy."""
import numpy as np

import _setup
import marsc
import marsc.tensor as mt

sess = _setup.session("normal-equations")
X = mt.random.randn(2000, 20, chunk_size=(500, 20), seed=11)
w = mt.arange(1.0, 21.0)
y = X.dot(w) + mt.random.normal(scale=0.1, size=2000, chunk_size=500, seed=12)
gram, Xty = X.T @ X, X.T.dot(y)
marsc.execute(gram, Xty)
coef = np.linalg.solve(gram.fetch(), Xty.fetch())
print("coefficients", np.round(coef, 2))
assert np.allclose(coef, np.arange(1.0, 21.0), atol=0.05)
print("normal_equations: succeeded")
