#!/usr/bin/env bash
# Runs every test suite and ends with one summary line: "N passed, N failed".
# Suites: unit tests (cmocka, under ASan+UBSan), Python suites that compare
# with numpy/pandas (each prints "RESULT passed=N failed=M"; tests/diff,
# tests/integration, tests/deploy), and the fuzzers
# (each a short libFuzzer run on its corpus; one test each).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
FUZZ_SECONDS=${FUZZ_SECONDS:-15}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export PYTHON=${PYTHON:-/usr/bin/python3}
pass=0 fail=0
failed_suites=()
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

note() { printf '%s\n' "$*"; }

run_cmocka() {
  local bin=$1 name out p f
  name=${bin#$BUILD/tests/}
  out="$log/$(echo "$name" | tr / _).log"
  timeout 600 "$bin" >"$out" 2>&1
  local rc=$?
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
  p=${p:-0} f=${f:-0}
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  pass=$((pass + p)) fail=$((fail + f))
  note "unit $name: $p passed, $f failed"
  if [ "$f" -ne 0 ]; then failed_suites+=("$name"); cat "$out"; fi
}

run_py() {
  local script=$1 limit=${2:-1200} out p f
  out="$log/$(basename "$script").log"
  timeout "$limit" "$PYTHON" "$script" >"$out" 2>&1
  local rc=$?
  p=$(sed -n 's/^RESULT passed=\([0-9]*\) failed=\([0-9]*\)$/\1/p' "$out" | tail -1)
  f=$(sed -n 's/^RESULT passed=\([0-9]*\) failed=\([0-9]*\)$/\2/p' "$out" | tail -1)
  p=${p:-0} f=${f:-0}
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  pass=$((pass + p)) fail=$((fail + f))
  note "suite $script: $p passed, $f failed"
  # a suite that cannot run on this machine says why on one line
  grep -h ': cannot run here: ' "$out" || true
  if [ "$f" -ne 0 ]; then failed_suites+=("$script"); grep -v '^ok ' "$out" | tail -60; fi
}

run_fuzz() {
  local bin=$1 name corpus work out
  name=$(basename "$bin")
  corpus=fuzz/corpus/$name
  work="$log/fuzz-$name"
  mkdir -p "$work"
  [ -d "$corpus" ] && cp -r "$corpus/." "$work/"
  out="$log/fuzz-$name.log"
  if timeout $((FUZZ_SECONDS + 60)) "$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 \
      -rss_limit_mb=2048 -artifact_prefix="$log/" "$work" >"$out" 2>&1; then
    pass=$((pass + 1)); note "fuzz $name: ${FUZZ_SECONDS}s clean"
  else
    fail=$((fail + 1)); failed_suites+=("fuzz $name"); tail -40 "$out"
  fi
}

for bin in $(find "$BUILD/tests/unit" -type f -perm -u+x 2>/dev/null | sort); do run_cmocka "$bin"; done
for script in $(ls tests/diff/test_*.py tests/integration/test_*.py 2>/dev/null | sort); do run_py "$script"; done
# Deploy suites (tests/deploy): the images built and the compose file run
# with podman, the Kubernetes manifests, several hosts in network
# namespaces. A first run builds the base image and the image's package
# layers (about 15 minutes): a longer limit. A suite that cannot run here
# (no root, no podman) says so on one line and counts nothing.
for script in $(ls tests/deploy/test_*.py 2>/dev/null | sort); do run_py "$script" 2700; done
for bin in $(find "$BUILD/fuzz" -type f -perm -u+x 2>/dev/null | sort); do run_fuzz "$bin"; done
# The GPU suite (tests/gpu, docs/gpu.md): only where nvidia-smi lists a
# device; otherwise one line and nothing counted, passed or failed.
if [ "$(tests/gpu/devices.sh)" -gt 0 ]; then
  for script in $(ls tests/gpu/test_*.py 2>/dev/null | sort); do run_py "$script"; done
else
  note "GPU suite not run: no device"
fi

if [ ${#failed_suites[@]} -ne 0 ]; then note "failing: ${failed_suites[*]}"; fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
