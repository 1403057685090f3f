#!/usr/bin/env bash
# Packs the release build's programs, build/tests/gpu/test_gpu and the shared
# libraries they take from Debian (not glibc, libstdc++ or the CUDA runtime,
# which a GPU host has) into one archive, for running the GPU suite and
# bench/gpu.py on a GPU host that lacks this project's build dependencies
# (docs/gpu.md). On that host:
#   mkdir -p /tmp/mars && tar -xJf ARCHIVE -C /tmp/mars
#   export LD_LIBRARY_PATH=/tmp/mars/lib; python3 tests/gpu/test_gpu_ops.py --bin /tmp/mars/bin
# With --servers it also packs PostgreSQL 15 (server, initdb, psql; under
# servers/usr/...) and redis-server with their libraries, for the suite's
# cluster run (tests/gpu/test_gpu_cluster.py) on a host that has neither:
#   cp -a /tmp/mars/servers/usr/lib/postgresql /usr/lib/
#   cp -a /tmp/mars/servers/usr/share/postgresql /usr/share/
#   useradd -r postgres; PATH=/usr/lib/postgresql/15/bin:/tmp/mars/bin:$PATH
# Usage: scripts/gpu-bundle.sh [--servers] OUT.tar.xz
set -euo pipefail
cd "$(dirname "$0")/.."
servers=0
if [ "${1:-}" = --servers ]; then servers=1; shift; fi
out=${1:?usage: scripts/gpu-bundle.sh [--servers] OUT.tar.xz}
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
if [ $servers = 1 ]; then
  pg=$(ls -d /usr/lib/postgresql/*/ | sort -V | tail -1); pg=${pg%/}; v=$(basename "$pg")
  mkdir -p "$stage/servers/usr/lib/postgresql/$v/bin" "$stage/servers/usr/share/postgresql"
  for b in postgres initdb psql pg_ctl; do cp -L "$pg/bin/$b" "$stage/servers/usr/lib/postgresql/$v/bin/"; done
  cp -a "$pg/lib" "$stage/servers/usr/lib/postgresql/$v/"
  cp -a "/usr/share/postgresql/$v" "$stage/servers/usr/share/postgresql/"
  cp -L "$(command -v redis-server)" "$stage/bin/"
  for lib in $(ldd "$pg/bin/postgres" "$pg/bin/initdb" "$pg/bin/psql" "$(command -v redis-server)" |
               awk '/=> \//{print $3}' | sort -u); do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libstdc++.so*|libgcc_s.so*) ;;
      *) cp -L "$lib" "$stage/lib/" ;;
    esac
  done
fi
tar -cJf "$out" -C "$stage" .
ls -la "$out"
