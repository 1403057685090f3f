#!/usr/bin/env bash
# make bench: side-by-side timings against numpy and Dask (not a test).
set -euo pipefail
cd "$(dirname "$0")/.."
/usr/bin/python3 bench/bench.py "$@"
# with a CUDA device (and a CUDA build): W1, W3, W4 and a 20000^2 dot on the
# GPU beside numpy (docs/gpu.md)
if [ "$(tests/gpu/devices.sh)" -gt 0 ] && build/bin/mars-run --version | grep -q "cuda: CUDA runtime"; then
  exec /usr/bin/python3 bench/gpu.py
fi
