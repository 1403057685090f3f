#!/usr/bin/env bash
# make bench: side-by-side timings against numpy and Dask (not a test).
set -euo pipefail
cd "$(dirname "$0")/.."
exec /usr/bin/python3 bench/bench.py "$@"
