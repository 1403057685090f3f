#!/usr/bin/python3
"""The GPU suite's documents on the emulated device (docs/gpu.md, "The
emulated device"), on every machine: build/emu's mars-run and mars-worker
run the device path with gpu_emu.cc, whose device memory is host memory and
whose kernels are gpu_dev.h's work items (the code the CUDA kernels run per
element) in loops.

  * tests/gpu/test_gpu_ops.py --bin build/emu/bin: every op family against
    numpy and the CPU run, jobs counted on the device, --cuda-mem small
    enough that chunks go back and forth;
  * the same over build/emu/san/bin: gpu_exec.c and the emulator under ASan
    and UBSan;
  * tests/gpu/test_gpu_cluster.py --emu: a cluster with an emulated GPU
    worker and a CPU worker (real PostgreSQL and Redis), with the release
    programs and again with the sanitizer ones.

This is not the GPU suite: it checks what gpu_exec.c sends to a device and
the element-level code, not CUDA's kernels, launches or cuBLAS, which only
tests/gpu on a real device does.
Run: python3 tests/diff/test_gpu_emu.py
"""
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNS = [
    ("ops", ["tests/gpu/test_gpu_ops.py", "--bin", "build/emu/bin"]),
    ("ops-san", ["tests/gpu/test_gpu_ops.py", "--bin", "build/emu/san/bin"]),
    ("cluster", ["tests/gpu/test_gpu_cluster.py", "--emu"]),
    ("cluster-san", ["tests/gpu/test_gpu_cluster.py", "--emu"],
     {"MARS_BIN_DIR": "build/san/bin", "MARS_EMU_BIN_DIR": "build/emu/san/bin"}),
]


def main():
    passed = failed = 0
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    for name, argv, *more in RUNS:
        run_env = dict(env)
        for k, v in (more[0] if more else {}).items():
            run_env[k] = os.path.join(REPO, v)
        p = subprocess.run([sys.executable] + argv, cwd=REPO, env=run_env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=900)
        out = p.stdout.decode(errors="replace")
        m = re.search(r"^RESULT passed=(\d+) failed=(\d+)$", out, re.M)
        p_n, f_n = (int(m.group(1)), int(m.group(2))) if m else (0, 1)
        if p.returncode != 0 and f_n == 0:
            f_n = 1
        for line in out.splitlines():
            if line.startswith("ok "):
                print("ok %s/%s" % (name, line[3:]))
            elif line.startswith("FAIL") or not m:
                print("%s: %s" % (name, line))
        print("%s: %d passed, %d failed" % (name, p_n, f_n), flush=True)
        passed += p_n
        failed += f_n
    print("RESULT passed=%d failed=%d" % (passed, failed), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
