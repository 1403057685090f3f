#!/usr/bin/env bash
# Prints how many CUDA devices nvidia-smi lists (0 when nvidia-smi is missing
# or lists none). tests/run.sh runs the GPU suite (tests/gpu/test_*.py) only
# when this is above 0, and otherwise prints one line,
# "GPU suite not run: no device", counting nothing (docs/gpu.md).
n=0
if command -v nvidia-smi >/dev/null 2>&1; then
  n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU [0-9]')
fi
echo "${n:-0}"
