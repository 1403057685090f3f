#!/usr/bin/python3
"""CPU levels of the hot kernels (engine/kern/cpu.h, docs/deploy.md "CPU
level"): element-wise ops, reductions and random tensors must give the same
bits at every level this machine can run, forced with MARS_CPU_LEVEL, and
match numpy.

  * The binaries: the sanitizer build (MARS_RUN, default build/san/bin/mars-run)
    and a release build for the container image's baseline,
    `make BUILD=build/x86-64-v2 ARCH=x86-64-v2` (built here, incrementally;
    MARS_V2_BUILD=0 skips it and counts it failed, never passed).
  * The level chosen by default: `mars-run --version` must name the highest
    level /proc/cpuinfo allows (avx2 on an x86-64-v3 CPU), even in the
    x86-64-v2 build: the dispatch, not -march, picks the vector code.
  * Per level: one document of element-wise ops (exact IEEE ops compared
    bit for bit with numpy, libm ones within harness tolerance), reductions,
    a W-style random -> element-wise -> reduction chain, and the random
    generators, compared bit for bit with numpy reimplementations of the
    Philox4x32-10 streams (random.c's formulas, in numpy float64 arithmetic).
  * Levels across: every fetched array byte-identical to the portable one.
  * MARS_CPU_LEVEL refused (exit 2, naming it) for an unknown level and for a
    level the CPU lacks.

Run: /usr/bin/python3 tests/diff/test_cpu_levels.py
"""

import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import npref  # noqa: E402

REPO = harness.REPO
LEVELS = ["portable", "avx2", "avx512"]
# x86-64-v3's flags as /proc/cpuinfo names them. LZCNT ("abm") is left out:
# some hypervisors' guests do not list it while CPUID (what libgcc's
# __builtin_cpu_supports reads) has it, and no CPU with AVX2 lacks it.
V3 = {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "movbe", "xsave"}
V4 = {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


FLAGS = cpu_flags()
SUPPORTED = ["portable"] + (["avx2"] if V3 <= FLAGS else []) + \
    (["avx512"] if V3 <= FLAGS and V4 <= FLAGS else [])
EXPECTED_AUTO = SUPPORTED[-1]

# ---- numpy reference of random.c's streams ---------------------------------
M32 = np.uint64(0xFFFFFFFF)


def philox_words(seed, stream, n):
    """The 64-bit words of elements 0 .. n-1 (random.c's header comment)."""
    nb = (n + 1) // 2
    b = np.arange(nb, dtype=np.uint64)
    x0, x1 = b & M32, b >> np.uint64(32)
    x2 = np.full(nb, stream, np.uint64)
    x3 = np.zeros(nb, np.uint64)
    k0, k1 = seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF
    for _ in range(10):
        p0 = np.uint64(0xD2511F53) * x0
        p1 = np.uint64(0xCD9E8D57) * x2
        n0 = (p1 >> np.uint64(32)) ^ x1 ^ np.uint64(k0)
        n2 = (p0 >> np.uint64(32)) ^ x3 ^ np.uint64(k1)
        x1, x3, x0, x2 = p1 & M32, p0 & M32, n0, n2
        k0 = (k0 + 0x9E3779B9) & 0xFFFFFFFF
        k1 = (k1 + 0xBB67AE85) & 0xFFFFFFFF
    w = np.empty(2 * nb, np.uint64)
    w[0::2] = x0 | (x1 << np.uint64(32))
    w[1::2] = x2 | (x3 << np.uint64(32))
    return w[:n]


def u2d(u):
    return np.asarray(u, np.uint64).view(np.float64)


def d2u(x):
    return np.asarray(x, np.float64).view(np.uint64)


def small_to_double(k):
    return u2d(np.uint64(0x4330000000000000) | k) - 2.0 ** 52


def unit53(w):
    b = w >> np.uint64(11)
    return small_to_double(b & np.uint64(0xFFFFFFFFFFFFF)) * 2.0 ** -53 + \
        u2d((np.uint64(0) - (b >> np.uint64(52))) & np.uint64(0x3FE0000000000000))


def log_pos(x):
    u = d2u(x)
    e = (u >> np.uint64(52)) + np.uint64(77)
    mb = (u & np.uint64(0xFFFFFFFFFFFFF)) | np.uint64(0x3FF0000000000000)
    big = (mb > np.uint64(0x3FF6A09E667F3BCD)).astype(np.uint64)
    m = u2d(mb - (big << np.uint64(52)))
    ed = small_to_double(e + big) - 1100.0
    sx = (m - 1.0) / (m + 1.0)
    z = sx * sx
    p = np.full_like(z, 0.047619047619047616)
    for c in (0.052631578947368418, 0.058823529411764705, 0.066666666666666666,
              0.076923076923076927, 0.090909090909090912, 0.1111111111111111,
              0.14285714285714285, 0.20000000000000001, 0.33333333333333331):
        p = p * z + c
    lm = 2.0 * sx + 2.0 * sx * z * p
    return ed * 6.93147180369123816490e-01 + (lm + ed * 1.90821492927058770002e-10)


def cis_unit(w):
    b = w >> np.uint64(11)
    q = b >> np.uint64(51)
    f = small_to_double(b & np.uint64(0x7FFFFFFFFFFFF)) * 2.0 ** -51
    ph = (f - 0.5) * 1.5707963267948966
    z = ph * ph
    sp = np.full_like(z, 2.8114572543455206e-15)
    for c in (-7.6471637318198164e-13, 1.6059043836821613e-10, -2.505210838544172e-08,
              2.7557319223985893e-06, -0.00019841269841269841, 0.0083333333333333332,
              -0.16666666666666666):
        sp = sp * z + c if c > 0 else sp * z - (-c)
    sp = ph + ph * z * sp
    cp = np.full_like(z, 4.7794773323873853e-14)
    for c in (-1.1470745597729725e-11, 2.08767569878681e-09, -2.7557319223985888e-07,
              2.4801587301587302e-05, -0.0013888888888888889, 0.041666666666666664, -0.5):
        cp = cp * z + c if c > 0 else cp * z - (-c)
    cp = 1.0 + z * cp
    c = (cp - sp) * 0.70710678118654757
    s = (cp + sp) * 0.70710678118654757
    odd = np.uint64(0) - (q & np.uint64(1))
    flip = (q & np.uint64(2)) << np.uint64(62)
    ns, cb, sb = d2u(s) ^ np.uint64(0x8000000000000000), d2u(c), d2u(s)
    return u2d(((ns & odd) | (cb & ~odd)) ^ flip), u2d(((cb & odd) | (sb & ~odd)) ^ flip)


def random_ref(node):
    """numpy's values of a random.* node (C order)."""
    op, shape, seed = node["op"], node["shape"], node["seed"]
    n = int(np.prod(shape))
    if op in ("random.rand", "random.uniform"):
        v = unit53(philox_words(seed, 0, n))
        if op == "random.uniform":
            lo, hi = float(node["low"]), float(node["high"])
            v = lo + (hi - lo) * v
    elif op in ("random.randn", "random.normal"):
        w = philox_words(seed, 1, n + (n & 1))
        t = np.sqrt(-2.0 * log_pos(unit53(w[0::2]) + 2.0 ** -53))
        co, si = cis_unit(w[1::2])
        v = np.empty(len(w), np.float64)
        v[0::2], v[1::2] = t * co, t * si
        v = v[:n]
        if op == "random.normal":
            v = float(node["loc"]) + float(node["scale"]) * v
    elif op == "random.randint":
        lo, hi = node["low"], node["high"]
        rng = (hi - lo) % 2 ** 64
        w = philox_words(seed, 2, n)
        vals = [(lo + ((int(x) * rng) >> 64)) % 2 ** 64 for x in w]
        v = np.array(vals, dtype=np.uint64).view(np.int64)
        if node.get("dtype") == "int32":
            v = v.astype(np.int32)
    else:
        raise ValueError(op)
    return v.reshape(shape)


# ---- the documents -----------------------------------------------------------
RNG = np.random.default_rng(20261123)
N_EL = 4099  # not a multiple of any vector width: the loops' tails run too


def A(key, arr, chunk):
    arr = np.asarray(arr)
    return {"key": key, "op": "array", "data": arr.tolist(), "dtype": str(arr.dtype),
            "chunk_size": chunk}


def N(key, op, inputs=None, **params):
    n = {"key": key, "op": op}
    if inputs is not None:
        n["inputs"] = list(inputs)
    n.update(params)
    return n


def floats(key, dtype, chunk):
    """Normal values with inf, -inf and nan (made by dividing by zero: JSON
    has none), -0.0, 0.0, a subnormal and halves (rounding ties)."""
    x = RNG.normal(0, 50, N_EL).astype(dtype)
    x[:8] = [1.0, -1.0, 0.0, -0.0, 0.0, 1e-310 if dtype == "float64" else 1e-40, -1.5, 2.5]
    d = np.ones(N_EL, dtype)
    d[:3] = 0.0
    return [A(key + "_n", x, chunk), A(key + "_d", d, 1024),
            N(key, "divide", [key + "_n", key + "_d"])]


EXACT = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax"]
EXACT_UN = ["sqrt", "floor", "ceil", "abs", "negative", "square", "sign", "isnan", "isfinite"]
LIBM_UN = ["exp", "log", "sin", "cos", "tanh", "expm1", "log1p"]
REDS = [("sum", {}), ("sum", {"axis": 0}), ("prod", {"axis": 1}), ("mean", {"axis": 1}),
        ("max", {"axis": 0}), ("min", {}), ("std", {"axis": 0}), ("var", {"axis": 1}),
        ("argmax", {"axis": 1}), ("argmin", {"axis": 0}), ("nansum", {"axis": 1}),
        ("nanmean", {}), ("cumsum", {"axis": 1}), ("count_nonzero", {"axis": 0}),
        ("any", {"axis": 1}), ("all", {"axis": 0})]
GENS = [N("g_rand", "random.rand", shape=[97, 61], seed=1234, chunk_size=[40, 33]),
        N("g_randn", "random.randn", shape=[97, 61], seed=1234, chunk_size=[50, 61]),
        N("g_unif", "random.uniform", shape=[3001], seed=77, low=-2.0, high=5.0, chunk_size=999),
        N("g_norm", "random.normal", shape=[3001], seed=77, loc=10.0, scale=2.0, chunk_size=1000),
        N("g_int", "random.randint", shape=[2003], seed=5, low=-2 ** 62, high=2 ** 62,
          chunk_size=700),
        N("g_int32", "random.randint", shape=[2003], seed=99, low=0, high=2 ** 31 - 1,
          dtype="int32", chunk_size=2003)]


def build_doc():
    nodes, exact, approx = [], [], []
    for dt in ("float64", "float32"):
        a, b = "a_" + dt, "b_" + dt
        nodes += floats(a, dt, 1000) + floats(b, dt, 777)
        for op in EXACT:
            k = "%s_%s" % (op, dt)
            nodes.append(N(k, op, [a, b]))
            exact.append(k)
        for op in EXACT_UN:
            k = "%s_%s" % (op, dt)
            nodes.append(N(k, op, [a]))
            exact.append(k)
        for op in LIBM_UN:
            k = "%s_%s" % (op, dt)
            nodes.append(N(k, op, ["abs_" + dt] if op in ("log", "log1p") else [a]))
            approx.append(k)
    for dt in ("int32", "int64"):
        a, b = "a_" + dt, "b_" + dt
        nodes += [A(a, RNG.integers(-2 ** 30, 2 ** 30, N_EL).astype(dt), 1000),
                  A(b, RNG.integers(-100, 100, N_EL).astype(dt), 600)]
        for op in ("add", "subtract", "multiply", "floor_divide", "mod", "maximum"):
            k = "%s_%s" % (op, dt)
            nodes.append(N(k, op, [a, b]))
            exact.append(k)
    # reductions over a 2-d float64 tensor with uneven chunks
    m, md = RNG.normal(0, 3, (67, 91)), np.ones((67, 91))
    m[5, 7] = md[5, 7] = 0.0  # 0 / 0: a NaN for the nan-reductions
    nodes += [A("m_n", m, [30, 40]), A("m_d", md, [67, 91]), N("m", "divide", ["m_n", "m_d"])]
    for i, (op, p) in enumerate(REDS):
        k = "r%d_%s" % (i, op)
        nodes.append(N(k, op, ["m"], **p))
        approx.append(k)
    # W-style: random -> element-wise -> reduction
    nodes += [N("w_x", "random.rand", shape=[300, 257], seed=42, chunk_size=[100, 100]),
              N("w_y", "random.randn", shape=[300, 257], seed=43, chunk_size=[100, 100]),
              N("w_e", "add", ["w_x", "w_y"]),
              N("w_s", "sqrt", ["w_x"]),
              N("w_p", "multiply", ["w_e", "w_s"]),
              N("w_sum", "sum", ["w_p"], axis=0),
              N("w_mean", "mean", ["w_p"])]
    exact += ["w_e", "w_s", "w_p"]
    approx += ["w_sum", "w_mean"]
    nodes += GENS
    gens = [g["key"] for g in GENS]
    fetch = exact + approx + gens
    return {"version": 1, "nodes": nodes, "fetch": fetch}, exact, approx, gens


def run_level(binary, level, doc):
    os.environ["MARS_RUN"] = binary
    os.environ["MARS_CPU_LEVEL"] = level
    try:
        r = harness.run_mars(doc, args=["--stats"])
    finally:
        del os.environ["MARS_CPU_LEVEL"]
    if r.rc != 0:
        err = r.brief_error()
        harness.cleanup(r)
        return None, "exit %d: %s" % (r.rc, err)
    if "kernels at cpu level %s" % level not in r.stderr:
        harness.cleanup(r)
        return None, "--stats does not name level %s: %s" % (level, r.stderr.strip()[-300:])
    vals = {k: r.load(k) for k in doc["fetch"]}
    harness.cleanup(r)
    return vals, None


def version(binary, level=None):
    env = dict(os.environ)
    env.pop("MARS_CPU_LEVEL", None)
    if level is not None:
        env["MARS_CPU_LEVEL"] = level
    p = subprocess.run([binary, "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env, timeout=60)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def build_v2(suite):
    """build/x86-64-v2/bin/mars-run, the image's flags (and, as the image,
    without nvcc: the CUDA stub); None when not built."""
    path = os.path.join(REPO, "build", "x86-64-v2", "bin", "mars-run")
    if os.environ.get("MARS_V2_BUILD", "1") == "0":
        suite.fail("build-x86-64-v2", "MARS_V2_BUILD=0: the x86-64-v2 build was not made")
        return None
    p = subprocess.run(["make", "--no-print-directory", "-j%d" % max(os.cpu_count() or 1, 1),
                        "BUILD=build/x86-64-v2", "ARCH=x86-64-v2", "NVCC=/nonexistent",
                        "build/x86-64-v2/bin/mars-run"],
                       cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=1200)
    if p.returncode != 0 or not os.path.exists(path):
        suite.fail("build-x86-64-v2", "make failed", detail=p.stdout.decode()[-2000:])
        return None
    suite.ok("build-x86-64-v2")
    return path


def check_isa(suite, binary):
    """The x86-64-v2 build: wide vector registers (ymm, zmm) only in the level
    copies' sections (.mars.kern.avx2, .mars.kern.avx512; the Makefile), so
    that the program starts, and runs its portable kernels, on an x86-64-v2
    CPU; and the copies are there."""
    import re
    p = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    if p.returncode != 0:
        suite.fail("x86-64-v2/isa", "objdump failed: %s" % p.stderr.decode()[-300:])
        return
    section, wide, copies = None, {}, {}
    for line in p.stdout.decode(errors="replace").splitlines():
        if line.startswith("Disassembly of section "):
            section = line[len("Disassembly of section "):].rstrip(":")
            continue
        n = len(re.findall(r"%[yz]mm\d+", line))
        if n:
            if section.startswith(".mars.kern."):
                copies[section] = copies.get(section, 0) + n
            else:
                wide[section] = wide.get(section, 0) + n
    suite.check("x86-64-v2/isa-baseline", not wide,
                "wide registers outside the level copies: %s" % wide)
    suite.check("x86-64-v2/isa-copies",
                copies.get(".mars.kern.avx2", 0) > 100 and copies.get(".mars.kern.avx512", 0) > 100,
                "the avx2 and avx512 copies should use ymm/zmm registers: %s" % copies)


def main():
    suite = harness.Suite("test_cpu_levels")
    harness.require_mars_run(suite)
    san = harness.mars_run_path()
    doc, exact, approx, gens = build_doc()
    gen_nodes = {g["key"]: g for g in doc["nodes"] if g["op"].startswith("random.")}
    refs = {k: random_ref(n) for k, n in gen_nodes.items()}
    expected = npref.evaluate(doc, random_values=refs)
    scales = {}
    npref.evaluate(doc, random_values=refs, scales=scales)

    binaries = [("san", san)]
    v2 = build_v2(suite)
    if v2:
        binaries.append(("x86-64-v2", v2))
        check_isa(suite, v2)

    for bname, binary in binaries:
        rc, out, err = version(binary)
        suite.check("%s/auto-level" % bname,
                    rc == 0 and ("cpu level %s (auto" % EXPECTED_AUTO) in out,
                    "--version should choose %s on this CPU (flags %s): rc %d, %s %s" % (
                        EXPECTED_AUTO, "v3" if V3 <= FLAGS else "below v3", rc, out.strip(),
                        err.strip()))
        for bad, why in (("bogus", "is not a level"),) + tuple(
                (l, "lacks") for l in LEVELS if l not in SUPPORTED):
            rc, out, err = version(binary, bad)
            suite.check("%s/refuse-%s" % (bname, bad),
                        rc == 2 and "MARS_CPU_LEVEL" in err and why in err,
                        "MARS_CPU_LEVEL=%s: want exit 2 naming it, got %d: %s" % (bad, rc,
                                                                                  err.strip()))
        base = None
        for level in SUPPORTED:
            vals, why = run_level(binary, level, doc)
            name = "%s/%s" % (bname, level)
            if vals is None:
                suite.fail(name + "/run", why)
                continue
            suite.ok(name + "/run")
            bad = []
            for k in exact + gens:
                e, g = np.asarray(expected[k]), vals[k]
                if e.dtype != g.dtype or e.shape != g.shape or e.tobytes() != g.tobytes():
                    if e.dtype.kind == "f" and e.dtype == g.dtype and e.shape == g.shape:
                        nd = int(np.sum(e.view("u%d" % e.itemsize) != g.view("u%d" % e.itemsize)))
                        bad.append("%s (%d of %d values differ in bits)" % (k, nd, e.size))
                    else:
                        bad.append("%s (%s%s vs numpy %s%s)" % (k, g.dtype, g.shape, e.dtype,
                                                                e.shape))
            suite.check(name + "/bits-vs-numpy", not bad,
                        "%d arrays differ from numpy: %s" % (len(bad), "; ".join(bad[:6])))
            bad = []
            for k in approx:
                e = np.asarray(expected[k])
                scale, rt = scales.get(k, (0.0, None))
                if rt is not None and e.dtype in harness.RTOL:
                    rt = max(rt, harness.RTOL[e.dtype])
                why = harness.compare(e, vals[k], rtol=rt, scale=scale)
                if why:
                    bad.append("%s: %s" % (k, why))
            suite.check(name + "/close-to-numpy", not bad,
                        "%d arrays off: %s" % (len(bad), "; ".join(bad[:4])))
            if base is None:
                base = (level, vals)
                continue
            diff = [k for k in doc["fetch"] if vals[k].dtype != base[1][k].dtype
                    or vals[k].tobytes() != base[1][k].tobytes()]
            suite.check(name + "/bits-vs-" + base[0], not diff,
                        "%d arrays differ from level %s: %s" % (len(diff), base[0],
                                                                ", ".join(diff[:10])))
    os.environ["MARS_RUN"] = san  # the RESULT footer names the suite's default binary
    suite.finish()


if __name__ == "__main__":
    main()
