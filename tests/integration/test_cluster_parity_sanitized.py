#!/usr/bin/python3
"""test_cluster_parity.py (random graphs of both generators, byte for byte
against mars-run) over the programs built with ASan and UBSan
(sanitized.py): the gateway, supervisor and workers tile, run and serve
every kind of op with memory errors, undefined behaviour and leaks
reported. Its CPU case is left out here (MARS_PARITY_ONLY): the sanitizers'
own threads count in the worker's CPU time; the plain run keeps it."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sanitized  # noqa: E402

if __name__ == "__main__":
    os.environ["MARS_PARITY_ONLY"] = "1"
    sys.exit(sanitized.main("test_cluster_parity"))
