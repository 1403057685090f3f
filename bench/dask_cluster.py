#!/usr/bin/python3
"""The dask.distributed peer of bench/bench.py: a LocalCluster with 2 worker
processes of one thread each (the shape of our local cluster), started once.
Reads one JSON request per line on stdin, {"code": ..., "out": ...}, runs the
code (bench.py's dask snippets: they compute `r`, nothing is written) with the
cluster's Client as dask's default scheduler and answers one line,
{"seconds": ...} or {"error": ...}, timed in this process (submit to result
in hand, like the cluster column)."""
import json
import sys
import time
import warnings

warnings.filterwarnings("ignore")
import dask  # noqa: E402
import dask.array as da  # noqa: E402,F401
import dask.dataframe as dd  # noqa: E402,F401
import numpy as np  # noqa: E402,F401
import pandas as pd  # noqa: E402,F401
from distributed import Client, LocalCluster  # noqa: E402


def main():
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=50)
    client = Client(cluster)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        scope = {"np": np, "da": da, "dd": dd, "pd": pd, "dask": dask, "client": client,
                 "OUT": req["out"]}
        t0 = time.perf_counter()
        try:
            exec(req["code"], scope)
            print(json.dumps({"seconds": time.perf_counter() - t0}), flush=True)
        except Exception as e:  # reported, the bench goes on
            print(json.dumps({"error": "%s: %s" % (type(e).__name__, e)}), flush=True)
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()
