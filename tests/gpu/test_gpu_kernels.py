#!/usr/bin/python3
"""The GPU suite (docs/gpu.md): run by tests/run.sh only where nvidia-smi
lists a device (tests/gpu/devices.sh); never counted as passed elsewhere.

  * the release build has the CUDA path (`mars-run --version`: "cuda: CUDA
    runtime ...");
  * build/tests/gpu/test_gpu on every listed device: device query, the
    element-wise kernels bit for bit against the CPU, the sum and cuBLAS's
    dot within rounding, an index past the count refused;
  * `mars-run --cuda-devices 0` accepted,
    `--cuda-devices N` (N = the device count) refused with exit 2 naming the
    flag; the same for `mars-worker`.

Run: /usr/bin/python3 tests/gpu/test_gpu_kernels.py
"""
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(REPO, "build", "bin")
passed = failed = 0


def check(name, ok, why=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok %s" % name, flush=True)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, " ".join(str(why).split())[:600]), flush=True)


def run(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except FileNotFoundError:
        return 127, "", "%s not found" % cmd[0]
    except subprocess.TimeoutExpired:
        return 124, "", "timed out"


def main():
    out = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE).stdout.decode()
    n = sum(1 for l in out.splitlines() if l.startswith("GPU "))
    print("# nvidia-smi lists %d device(s)" % n, flush=True)
    rc, so, se = run([os.path.join(BIN, "mars-run"), "--version"])
    check("build-has-cuda", rc == 0 and "cuda: CUDA runtime" in so,
          "build/bin/mars-run is not a CUDA build (make found no nvcc?): %s %s" % (so, se))
    for d in range(n):
        rc, so, se = run([os.path.join(REPO, "build", "tests", "gpu", "test_gpu"), str(d)], 600)
        for line in so.splitlines():
            if line.startswith("ok ") or line.startswith("FAIL "):
                check("device%d/%s" % (d, line.split()[1].rstrip(":")), line.startswith("ok "),
                      line)
        check("device%d/test_gpu-exit" % d, rc == 0, "exit %d: %s" % (rc, (so + se)[-400:]))
    graph = os.path.join(REPO, "examples", "seed-inner.json")
    tmp = os.path.join(REPO, "build", "gpu-suite-out")
    rc, so, se = run([os.path.join(BIN, "mars-run"), graph, "-o", tmp, "--cuda-devices", "0"])
    check("mars-run-accepts-0", rc == 0, "exit %d: %s" % (rc, se))
    rc, so, se = run([os.path.join(BIN, "mars-run"), graph, "-o", tmp, "--cuda-devices", str(n)])
    check("mars-run-refuses-%d" % n, rc == 2 and "--cuda-devices" in se and "does not exist" in se,
          "exit %d: %s" % (rc, se))
    rc, so, se = run([os.path.join(BIN, "mars-worker"), "-s", "127.0.0.1:1", "--cuda-devices",
                      str(n)], 30)
    check("worker-refuses-%d" % n, rc == 2 and "--cuda-devices" in se and "does not exist" in se,
          "exit %d: %s" % (rc, se))
    print("RESULT passed=%d failed=%d" % (passed, failed), flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
