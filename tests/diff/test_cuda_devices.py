#!/usr/bin/python3
"""--cuda-devices without a usable device (docs/gpu.md): never silently
ignored. Runs on any machine; the GPU suite (tests/gpu) covers a device.

For mars-run and mars-worker, release (build/bin: the CUDA path when make
found nvcc) and sanitizer (build/san/bin: always without CUDA) builds:
  * a list naming a device is refused with exit 2 and one line naming
    --cuda-devices and the reason: "this build has no CUDA" for a build
    without it, "finds no device" for a CUDA build on a machine without one,
    "does not exist" for an index past the devices present;
  * "" (no device) is accepted;
  * malformed lists (1,1 / x / 64 / "0,") are refused naming the flag.
Expectations come from `mars-run --version` ("cuda: ...") and nvidia-smi.

Run: /usr/bin/python3 tests/diff/test_cuda_devices.py
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

REPO = harness.REPO


def run(cmd, timeout=60):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return 124, "", "timed out (the flag was not refused at start)"
    except FileNotFoundError:
        return 127, "", "%s not found" % cmd[0]


def devices():
    if not shutil.which("nvidia-smi"):
        return 0
    p = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return sum(1 for l in p.stdout.decode().splitlines() if l.startswith("GPU "))


def main():
    suite = harness.Suite("test_cuda_devices")
    ndev = devices()
    graph = os.path.join(REPO, "examples", "seed-inner.json")
    tmp = tempfile.mkdtemp(prefix="mars-cuda-")
    try:
        for flavour, bindir in (("release", "build/bin"), ("san", "build/san/bin")):
            mr = os.path.join(REPO, bindir, "mars-run")
            wk = os.path.join(REPO, bindir, "mars-worker")
            rc, so, se = run([mr, "--version"])
            cuda = "cuda: CUDA runtime" in so
            if not suite.check("%s/version-says-cuda" % flavour, rc == 0 and "cuda: " in so,
                               "mars-run --version: exit %d, %s %s" % (rc, so, se)):
                continue
            if flavour == "san":
                suite.check("san/without-cuda", not cuda,
                            "the sanitizer build must link the stub: %s" % so.strip())
            if not cuda:
                want = "this build has no CUDA"
            elif ndev == 0:
                want = "finds no device"
            else:
                want = "does not exist"
            lists = ["0", "1,3"] if ndev == 0 or not cuda else [str(ndev), "0,%d" % ndev]
            for lst in lists:
                rc, so, se = run([mr, graph, "-o", tmp, "--cuda-devices", lst])
                suite.check("%s/mars-run-refuses-%s" % (flavour, lst),
                            rc == 2 and "--cuda-devices" in se and want in se
                            and len(se.strip().splitlines()) == 1,
                            "want exit 2 and one line naming --cuda-devices and %r: exit %d, %s"
                            % (want, rc, se))
                rc, so, se = run([wk, "-s", "127.0.0.1:1", "--cuda-devices", lst], 30)
                suite.check("%s/worker-refuses-%s" % (flavour, lst),
                            rc == 2 and "--cuda-devices" in se and want in se,
                            "want exit 2 naming --cuda-devices and %r: exit %d, %s"
                            % (want, rc, se))
            rc, so, se = run([mr, graph, "-o", tmp, "--cuda-devices", ""])
            suite.check("%s/mars-run-accepts-empty" % flavour,
                        rc == 0 and os.path.exists(os.path.join(tmp, "b.npy")),
                        "--cuda-devices \"\": exit %d, %s" % (rc, se))
            for bad, why in (("1,1", "listed twice"), ("x", "not a device index"),
                             ("64", "not a device index"), ("0,", "ends with a comma")):
                rc, so, se = run([mr, graph, "-o", tmp, "--cuda-devices", bad])
                suite.check("%s/mars-run-malformed-%s" % (flavour, bad),
                            rc == 2 and "--cuda-devices" in se and why in se,
                            "want exit 2 naming --cuda-devices and %r: exit %d, %s"
                            % (why, rc, se))
            # the document's "device" (docs/gpu.md): auto, gpu and cpu run on any build (without
            # a device every job runs on the CPU, with the same bytes); anything else is refused
            base = None
            for dv in ("auto", "gpu", "cpu"):
                d = os.path.join(tmp, "dev-" + dv)
                doc = {"version": 1, "device": dv, "nodes": [
                    {"key": "a", "op": "random.rand", "shape": [300, 200], "chunk_size": 70, "seed": 3},
                    {"key": "b", "op": "dot", "inputs": ["a", "t"]},
                    {"key": "t", "op": "transpose", "inputs": ["a"]}], "fetch": ["b"]}
                gp = os.path.join(tmp, "dev-%s.json" % dv)
                with open(gp, "w") as f:
                    json.dump(doc, f)
                rc, so, se = run([mr, gp, "-o", d, "--stats"])
                ok = rc == 0 and os.path.exists(os.path.join(d, "b.npy"))
                data = open(os.path.join(d, "b.npy"), "rb").read() if ok else b""
                base = data if base is None else base
                suite.check("%s/device-%s-runs" % (flavour, dv), ok and data == base,
                            "exit %d, %s" % (rc, se))
            doc["device"] = "tpu"
            with open(gp, "w") as f:
                json.dump(doc, f)
            rc, so, se = run([mr, gp, "-o", tmp])
            suite.check("%s/device-tpu-refused" % flavour,
                        rc == 2 and '"device" must be "auto", "gpu" or "cpu"' in se,
                        "exit %d, %s" % (rc, se))
            for flag, val, why in (("--cuda-mem", "0", "--cuda-mem"), ("--cuda-mem", "x", "--cuda-mem"),
                                   ("--repeat", "0", "--repeat"), ("--repeat", "1001", "--repeat")):
                rc, so, se = run([mr, graph, "-o", tmp, flag, val])
                suite.check("%s/mars-run-refuses%s-%s" % (flavour, flag, val),
                            rc == 2 and why in se, "exit %d, %s" % (rc, se))
            rc, so, se = run([mr, graph, "-o", tmp, "--repeat", "3", "--stats"])
            suite.check("%s/mars-run-repeat" % flavour,
                        rc == 0 and se.count("run 3 of 3") == 1 and se.count(" of 3: ") == 3,
                        "exit %d, %s" % (rc, se))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    suite.finish()


if __name__ == "__main__":
    main()
