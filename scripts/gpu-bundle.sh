#!/usr/bin/env bash
# Packs the release build's programs, build/tests/gpu/test_gpu and the shared
# libraries they take from Debian (not glibc, libstdc++ or the CUDA runtime,
# which a GPU host has) into one archive, for running the GPU suite and
# bench/gpu.py on a GPU host that lacks this project's build dependencies
# (docs/gpu.md). On that host:
#   mkdir -p /tmp/mars && tar -xJf ARCHIVE -C /tmp/mars
#   export LD_LIBRARY_PATH=/tmp/mars/lib; python3 tests/gpu/test_gpu_ops.py --bin /tmp/mars/bin
# Usage: scripts/gpu-bundle.sh OUT.tar.xz
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu-bundle.sh OUT.tar.xz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/tests"
progs="build/bin/mars-run build/bin/mars-worker build/bin/mars-supervisor build/bin/mars-gateway"
for p in $progs; do strip -o "$stage/bin/$(basename "$p")" "$p"; done
strip -o "$stage/tests/test_gpu" build/tests/gpu/test_gpu
for lib in $(ldd $progs build/tests/gpu/test_gpu | awk '/=> \//{print $3}' | sort -u); do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libstdc++.so*|libgcc_s.so*|libcudart*) ;;
    *) cp -L "$lib" "$stage/lib/" ;;
  esac
done
tar -cJf "$out" -C "$stage" .
ls -la "$out"
