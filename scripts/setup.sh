#!/usr/bin/env bash
# Installs the Debian packages a target needs, only those missing.
# Usage: scripts/setup.sh build|test|run|bench|image-build|image-run|image-db
# Quick when everything is present (one dpkg-query).
set -euo pipefail
what=${1:-build}
# zlib1g-dev ... libzstd-dev: read_csv and read_json of compressed files
# (engine/df/inflate.c: gzip and zip, bz2, xz, zstd).
build_pkgs="build-essential pkg-config clang libclang-rt-14-dev libjansson-dev libopenblas-dev
  libh2o-evloop-dev libhiredis-dev libpq-dev libcmocka-dev nodejs zlib1g-dev libbz2-dev liblzma-dev
  libzstd-dev"
# python3-pip, python3-venv: test_pyclient installs clients/python offline into a venv.
# chromium and npm: tests/ui (the dashboard in a headless browser, driven by
# ui/'s one npm package, playwright-core, installed from its lockfile below).
# podman ... iproute2: tests/deploy (the image built and the compose file run
# with podman, the base image made with debootstrap, the Kubernetes manifests
# rendered with kubectl, several hosts in network namespaces). kubectl is
# Debian's kubernetes-client unless a kubectl is already installed. The
# dnsname CNI plugin gives compose networks their DNS (services find each
# other by name): podman recommends it, and without it (a host installed
# without recommends) containers cannot resolve "postgres" or "supervisor".
# zstd: tests/diff/test_csv_compression.py makes .zst files with its command.
test_pkgs="clang-format python3 python3-numpy python3-pandas python3-pip python3-venv postgresql redis-server
  curl docker-compose chromium npm podman podman-compose runc debootstrap kubernetes-client iproute2
  golang-github-containernetworking-plugin-dnsname zstd"
run_pkgs="postgresql redis-server curl"
# The container images (Dockerfile): what the build stage needs to compile
# the release programs and the dashboard; what the runtime stage (the mars-c
# image) holds: the shared libraries the programs load and curl for health
# checks; and what the db stage (the mars-c-db image the compose file runs
# PostgreSQL and Redis from) holds.
image_build_pkgs="build-essential pkg-config libjansson-dev libopenblas-dev libh2o-evloop-dev libhiredis-dev
  libpq-dev nodejs zlib1g-dev libbz2-dev liblzma-dev libzstd-dev"
image_run_pkgs="libjansson4 libopenblas0-pthread libh2o-evloop0.13 libhiredis0.14 libpq5 curl zlib1g libbz2-1.0
  liblzma5 libzstd1"
image_db_pkgs="postgresql-15 redis-server"
bench_pkgs="python3-numpy python3-pandas python3-dask python3-distributed python3-scipy libopenblas0"
case "$what" in
build) pkgs="$build_pkgs" ;;
test) pkgs="$build_pkgs $test_pkgs" ;;
run) pkgs="$build_pkgs $run_pkgs" ;;
bench) pkgs="$build_pkgs $test_pkgs $bench_pkgs" ;;
image-build) pkgs="$image_build_pkgs" ;;
image-run) pkgs="$image_run_pkgs" ;;
image-db) pkgs="$image_db_pkgs" ;;
*) echo "setup.sh: unknown target '$what' (build, test, run, bench, image-build, image-run, image-db)" >&2; exit 2 ;;
esac
missing=()
for p in $pkgs; do
  # nodejs packages from elsewhere (NodeSource) bring npm and conflict with
  # Debian's npm package: an npm command is enough.
  [ "$p" = npm ] && command -v npm >/dev/null && continue
  # Some machines carry another vendor's kubectl package, which Debian's
  # kubernetes-client may not overwrite: any kubectl will do.
  [ "$p" = kubernetes-client ] && command -v kubectl >/dev/null && continue
  st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$st" = installed ] || missing+=("$p")
done
# tests/ui drive Chromium with playwright-core (ui/package-lock.json);
# tests/deploy check the Kubernetes manifests with kubernetes-models
# (tests/deploy/k8s-schema/package-lock.json).
npm_ci() {
  if [ "$what" = test ] || [ "$what" = bench ]; then
    if [ ! -d "$(dirname "$0")/../ui/node_modules/playwright-core" ]; then
      echo "setup: npm ci in ui/ (playwright-core for tests/ui)" >&2
      (cd "$(dirname "$0")/../ui" && npm ci --no-audit --no-fund >&2)
    fi
    if [ ! -d "$(dirname "$0")/../tests/deploy/k8s-schema/node_modules/kubernetes-models" ]; then
      echo "setup: npm ci in tests/deploy/k8s-schema (kubernetes-models for tests/deploy)" >&2
      (cd "$(dirname "$0")/../tests/deploy/k8s-schema" && npm ci --no-audit --no-fund >&2)
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
