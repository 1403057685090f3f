#!/usr/bin/env bash
# Installs the Debian packages a target needs, only those missing.
# Usage: scripts/setup.sh build|test|run|bench
# Quick when everything is present (one dpkg-query).
set -euo pipefail
what=${1:-build}
build_pkgs="build-essential pkg-config clang libclang-rt-14-dev libjansson-dev libopenblas-dev
  libh2o-evloop-dev libhiredis-dev libpq-dev libcmocka-dev nodejs"
# python3-pip, python3-venv: test_pyclient installs clients/python offline into a venv.
# chromium and npm: tests/ui (the dashboard in a headless browser, driven by
# ui/'s one npm package, playwright-core, installed from its lockfile below).
test_pkgs="clang-format python3 python3-numpy python3-pandas python3-pip python3-venv postgresql redis-server curl docker-compose
  chromium npm"
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
  # nodejs packages from elsewhere (NodeSource) bring npm and conflict with
  # Debian's npm package: an npm command is enough.
  [ "$p" = npm ] && command -v npm >/dev/null && continue
  st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$st" = installed ] || missing+=("$p")
done
# tests/ui drive Chromium with playwright-core (ui/package-lock.json).
npm_ci() {
  if [ "$what" = test ] || [ "$what" = bench ]; then
    if [ ! -d "$(dirname "$0")/../ui/node_modules/playwright-core" ]; then
      echo "setup: npm ci in ui/ (playwright-core for tests/ui)" >&2
      (cd "$(dirname "$0")/../ui" && npm ci --no-audit --no-fund >&2)
    fi
  fi
}
if [ ${#missing[@]} -eq 0 ]; then npm_ci; exit 0; fi
echo "setup: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
npm_ci
