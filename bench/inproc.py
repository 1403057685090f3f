#!/usr/bin/python3
"""The in-process peers of bench/bench.py: one warm interpreter, the way a
notebook user times numpy, pandas or Dask. numpy, pandas and dask (threads
scheduler) are imported before anything is timed. Reads one JSON request per
line on stdin, {"setup": CODE, "compute": CODE}, runs both in a fresh scope
and answers one line, {"setup_s": ..., "compute_s": ...} or {"error": ...}:
`setup` builds the inputs (numpy: the arrays the graph document creates;
Dask: empty, its inputs are lazy), `compute` makes `r`, the result in hand
(nothing is written). The scope is dropped after each request."""
import gc
import json
import sys
import time
import warnings

warnings.filterwarnings("ignore")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

try:
    import dask  # noqa: E402
    import dask.array as da  # noqa: E402
    import dask.dataframe as dd  # noqa: E402

    dask.config.set(scheduler="threads")
except ImportError:  # the numpy columns still run
    dask = da = dd = None


def main():
    print(json.dumps({"ready": True, "dask": dask is not None}), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        scope = {"np": np, "pd": pd, "da": da, "dd": dd, "dask": dask}
        try:
            t0 = time.perf_counter()
            exec(req.get("setup") or "", scope)
            t1 = time.perf_counter()
            exec(req["compute"], scope)
            t2 = time.perf_counter()
            if "r" not in scope:
                raise RuntimeError("the code made no `r`")
            ans = {"setup_s": t1 - t0, "compute_s": t2 - t1}
        except Exception as e:  # reported, the bench goes on
            ans = {"error": "%s: %s" % (type(e).__name__, e)}
        scope.clear()
        gc.collect()
        print(json.dumps(ans), flush=True)


if __name__ == "__main__":
    main()
