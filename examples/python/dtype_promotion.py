#!/usr/bin/python3
"""examples/dtype-promotion.json in Python: numpy 1.24's promotion rules with
Python scalars, division, astype and sum, checked against numpy."""
import numpy as np

import _setup
import marsc
import marsc.tensor as mt

sess = _setup.session("dtype-promotion")
i = mt.arange(6, dtype="int32", chunk_size=4)
f = i.astype("float32")
results = {
    "keep_int32": i * 3, "to_int64": i + 2147483648, "to_float64": i + 0.5,
    "true_div": i / 4, "floor_div": i // -4, "keep_f32": f * 0.1, "sum_int64": i.sum(),
}
marsc.execute(*results.values())
n = np.arange(6, dtype=np.int32)
want = {"keep_int32": n * 3, "to_int64": n + 2147483648, "to_float64": n + 0.5,
        "true_div": n / 4, "floor_div": n // -4, "keep_f32": n.astype(np.float32) * 0.1,
        "sum_int64": n.sum()}
for k, t in results.items():
    v = t.fetch()
    print("%-10s %-8s %s" % (k, np.asarray(v).dtype, v))
    assert np.asarray(v).dtype == np.asarray(want[k]).dtype, k
    assert np.allclose(v, want[k]), k
print("dtype_promotion: succeeded")
