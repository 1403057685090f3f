#!/usr/bin/env bash
# Installs the Debian packages a target needs, only those missing.
# Usage: scripts/setup.sh build|test|run|bench
# Quick when everything is present (one dpkg-query).
set -euo pipefail
what=${1:-build}
build_pkgs="build-essential pkg-config clang libclang-rt-14-dev libjansson-dev libopenblas-dev
  libh2o-evloop-dev libhiredis-dev libpq-dev libcmocka-dev"
test_pkgs="python3 python3-numpy python3-pandas postgresql redis-server curl docker-compose"
run_pkgs="postgresql redis-server curl"
bench_pkgs="python3-numpy python3-pandas python3-dask python3-distributed libopenblas0"
case "$what" in
build) pkgs="$build_pkgs" ;;
test) pkgs="$build_pkgs $test_pkgs" ;;
run) pkgs="$build_pkgs $run_pkgs" ;;
bench) pkgs="$build_pkgs $test_pkgs $bench_pkgs" ;;
*) echo "setup.sh: unknown target '$what' (build, test, run, bench)" >&2; exit 2 ;;
esac
missing=()
for p in $pkgs; do
  st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$st" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "setup: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
