#!/usr/bin/python3
"""The Python client (clients/python/marsc) against a real cluster: PostgreSQL,
Redis, a supervisor serving the REST API (-w) and two workers, started by
harness.py. Every operator, function and method is compared with numpy,
DataFrames with pandas; futures, cancellation, eager mode, uploads with
read_csv, the error types, 50 random expression trees, GET /api/v1/ops and
an offline `pip install` of the package.

Run with Debian's python: /usr/bin/python3 tests/integration/test_pyclient.py [TestClass[.test]]
(unittest inside; the last line is `RESULT passed=N failed=M` for tests/run.sh).
"""
import contextlib
import csv
import datetime
import glob
import io
import json
import os
import pty
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import warnings

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
from harness import Cluster, free_port, get, run_program  # noqa: E402

import marsc  # noqa: E402
import marsc.dataframe as md  # noqa: E402
import marsc.tensor as mt  # noqa: E402

C = None      # the Cluster
WEB = None    # the REST API port
URL = None
SESS = None   # the suite's session


def setUpModule():
    global C, WEB, URL, SESS
    C = Cluster().__enter__()
    env = {"MARS_PG_DSN": C.pg.dsn(), "MARS_REDIS_URL": C.redis.url()}
    port, WEB = free_port(), free_port()
    sup = C.start("supervisor", "mars-supervisor", ["-H", "127.0.0.1", "-p", port, "-w", WEB],
                  env=env)
    sup.wait_health(port)
    sup.wait_health(WEB)
    for i in range(2):
        wp = free_port()
        w = C.start("worker%d" % i, "mars-worker",
                    ["-H", "127.0.0.1", "-p", wp, "-s", "127.0.0.1:%d" % port, "--n-cpu", 1])
        w.wait_health(wp)
    URL = "http://127.0.0.1:%d" % WEB
    SESS = marsc.new_session(URL)


def tearDownModule():
    if C is not None:
        C.stop()


def n_tasks(sess):
    return len(get(WEB, "/api/v1/sessions/%s/tasks" % sess.session_id).json()["tasks"])


def md_or_pd(d):
    """pandas' module for a pandas object, marsc's for a marsc one"""
    return md if isinstance(d, (md.DataFrame, md.Series)) else pd


class Base(unittest.TestCase):
    def setUp(self):
        SESS.as_default()
        marsc.options.eager_mode = False

    def same_as_pandas(self, pairs, exact=False, fix=None):
        """pairs of (marsc object, pandas Series or DataFrame), run in one
        task; each fetched result (fix(result, pandas') when given) must
        equal its pandas value (exact: to the bit)."""
        res = marsc.execute(*[q[0] for q in pairs])
        kw = {"check_exact": True} if exact else {}
        for i, ((_, want), got) in enumerate(zip(pairs, res)):
            got = got.fetch()
            if fix:
                got = fix(got, want)
            if isinstance(want, pd.Series):
                pd.testing.assert_series_equal(got, want, check_freq=False, obj="pair %d" % i,
                                               **kw)
            else:
                pd.testing.assert_frame_equal(got, want, check_freq=False, obj="pair %d" % i,
                                              **kw)

    def same_each(self, fns, local, remote):
        """each function of fns (a dict by name, or a list) of the pandas
        frame local and of the marsc frame remote (fetched) must give the
        same Series or DataFrame"""
        for name, f in (fns.items() if isinstance(fns, dict) else enumerate(fns)):
            with self.subTest(case=name):
                want, got = f(local), f(remote)
                got = got.fetch() if hasattr(got, "fetch") else got
                if isinstance(want, pd.DataFrame):
                    pd.testing.assert_frame_equal(got, want)
                else:
                    pd.testing.assert_series_equal(got, want)

    def close(self, got, want, msg="", rtol=1e-7, atol=1e-9):
        got = np.asarray(got)
        want = np.asarray(want)
        self.assertEqual(got.shape, want.shape, "shape %s" % msg)
        self.assertEqual(got.dtype, want.dtype, "dtype %s" % msg)
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=msg)
        else:
            np.testing.assert_array_equal(got, want, err_msg=msg)

    def run_all(self, pairs, **kw):
        """pairs: [(name, marsc tensor, numpy value)]: one task, compared."""
        marsc.execute(*[p[1] for p in pairs])
        for name, t, want in pairs:
            got = t.fetch()
            self.close(got, want, name, **kw)
            want = np.asarray(want)
            if t._shape is not None:  # what the client inferred is numpy's
                self.assertEqual(t._shape, want.shape, "inferred shape of %s" % name)
            if t._dtype is not None:
                self.assertEqual(t._dtype, want.dtype, "inferred dtype of %s" % name)


RNG = np.random.default_rng(7)
XN = RNG.standard_normal((6, 8))
YN = RNG.standard_normal((6, 8)) + 0.5
IN = RNG.integers(-9, 10, (6, 8))
JN = RNG.integers(1, 5, (6, 8))


class TestOperators(Base):
    def test_numpy_ufuncs_and_scalars(self):
        """numpy's ufuncs of tensors run on the cluster (np.sqrt(t), an
        ndarray op a tensor: tensors), and a 0-d tensor converts as a
        number (float, int, round, format: it runs)"""
        x, i = mt.tensor(XN, chunk_size=3), mt.tensor(IN, chunk_size=4)
        pairs = [("np.sqrt", np.sqrt(abs(x)), np.sqrt(abs(XN))),
                 ("np.add", np.add(XN, x), XN + XN), ("nd*t", XN * x, XN * XN),
                 ("nd>t", XN > x, XN > XN), ("np.maximum", np.maximum(x, 0), np.maximum(XN, 0)),
                 ("np.divide", np.divide(i, 2), IN / 2), ("np.remainder", np.remainder(i, 3),
                                                            IN % 3)]
        for name, got, _ in pairs:
            self.assertIsInstance(got, mt.Tensor, name)
        self.run_all(pairs)
        self.assertIsInstance(float(x.sum()), float)
        self.assertAlmostEqual(float(x.sum()), float(XN.sum()), places=9)
        self.assertEqual(int(i.max()), int(IN.max()))
        self.assertAlmostEqual(round(x.mean(), 3), round(float(XN.mean()), 3), places=9)
        self.assertEqual("%.4f" % x.std(), "%.4f" % XN.std())
        self.assertEqual(f"{x.std():.5f}", f"{XN.std():.5f}")
        with self.assertRaisesRegex(TypeError, "one element"):
            float(x)
        with self.assertRaises(TypeError):
            np.add.reduce(x)  # a ufunc's method: not dispatched

    def test_arithmetic_and_comparisons(self):
        x, y = mt.tensor(XN, chunk_size=3), mt.tensor(YN, chunk_size=(4, 5))
        i, j = mt.tensor(IN, chunk_size=4), mt.tensor(JN)
        pairs = [
            ("x+y", x + y, XN + YN), ("x-y", x - y, XN - YN), ("x*y", x * y, XN * YN),
            ("x/y", x / y, XN / YN), ("x//y", x // y, XN // YN), ("x%y", x % y, XN % YN),
            ("|x|**y", abs(x) ** y, abs(XN) ** YN), ("x@y.T", x @ y.T, XN @ YN.T),
            ("-x", -x, -XN), ("+x", +x, +XN), ("abs", abs(i), abs(IN)),
            ("2+x", 2 + x, 2 + XN), ("1-x", 1 - x, 1 - XN), ("3*i", 3 * i, 3 * IN),
            ("1/x", 1 / y, 1 / YN), ("7//j", 7 // j, 7 // JN), ("i%j", i % j, IN % JN),
            ("i//j", i // j, IN // JN), ("i/j", i / j, IN / JN), ("2**j", 2 ** j, 2 ** JN),
            ("i**2", i ** 2, IN ** 2), ("x*2.5", x * 2.5, XN * 2.5), ("i+0.5", i + 0.5, IN + 0.5),
            ("x==y", x == y, XN == YN), ("i==j", i == j, IN == JN), ("x!=y", x != y, XN != YN),
            ("x<y", x < y, XN < YN), ("x<=0", x <= 0, XN <= 0), ("x>y", x > y, XN > YN),
            ("i>=j", i >= j, IN >= JN), ("0<x", 0 < x, 0 < XN),
            ("&", (x > 0) & (y > 0), (XN > 0) & (YN > 0)),
            ("|", (x > 0) | (i < 0), (XN > 0) | (IN < 0)), ("~", ~(x > 0), ~(XN > 0)),
            ("nd+t", XN + y, XN + YN), ("row", x + XN[0], XN + XN[0]),
            ("col", x * mt.tensor(XN[:, :1]), XN * XN[:, :1]),
        ]
        self.run_all(pairs)

    def test_small_dtypes(self):
        """int8 ... uint64 uploaded, computed and fetched with numpy's dtypes."""
        u = RNG.integers(0, 256, (6, 8)).astype(np.uint8)
        b = RNG.integers(-128, 128, (6, 8)).astype(np.int8)
        big = np.array([2**64 - 1, 2**63, 3, 0], np.uint64)
        x, y, g = mt.tensor(u, chunk_size=4), mt.tensor(b, chunk_size=(3, 5)), mt.tensor(big)
        pairs = [("u+b", x + y, u + b), ("u*3", x * 3, u * 3), ("b//-3", y // -3, b // -3),
                 ("u<200", x < 200, u < 200), ("sum", x.sum(axis=0), u.sum(axis=0)),
                 ("max", y.max(), np.asarray(b.max())), ("sort", mt.sort(y, axis=1), np.sort(b, 1)),
                 ("astype", y.astype("uint16"), b.astype(np.uint16)),
                 ("dot", x.dot(y.T), u.dot(b.T)), ("big", mt.sort(g), np.sort(big)),
                 ("bigmax", g.max(), np.asarray(big.max()))]
        self.run_all(pairs)
        for name, t, want in pairs:
            self.assertEqual(t.fetch().dtype, np.asarray(want).dtype, name)

    def test_matmul_vectors(self):
        a, v = mt.tensor(XN), mt.tensor(XN[0])
        self.run_all([("m@v", a @ v, XN @ XN[0]), ("v@v", v @ v, XN[0] @ XN[0]),
                      ("v@mT", mt.tensor(XN[:, 0]) @ a, XN[:, 0] @ XN)])

    def test_bool_and_int_bitwise_forms(self):
        b = mt.tensor(XN) > 0
        self.assertEqual(b.document()["nodes"][-1]["op"], "greater")
        self.assertEqual((b & b)._ref.op, "logical_and")
        self.assertEqual((~b)._ref.op, "logical_not")
        i = mt.tensor(IN)
        self.assertEqual((i & i)._ref.op, "bitwise_and")  # numpy's meaning on integers
        self.assertEqual((~i)._ref.op, "invert")
        # ^ is numpy's logical_xor on booleans: run, or refused by name while the engine lacks it
        x = b ^ (mt.tensor(YN) > 0)
        self.assertEqual(x._ref.op, "logical_xor")
        try:
            self.close(x.fetch(), (XN > 0) ^ (YN > 0))
        except marsc.GraphError as e:
            self.assertIn("logical_xor", str(e))


class TestIndexing(Base):
    def test_basic(self):
        xn = np.arange(120.0).reshape(4, 5, 6)
        x = mt.tensor(xn, chunk_size=2)
        idx = [(1,), (-1, 2), (slice(1, 3),), (slice(None, None, -1),), (slice(None), 3),
               (Ellipsis, 2), (None,), (None, 1, Ellipsis, None), (1, None, slice(0, 5, 2)),
               (slice(3, 0, -2), Ellipsis, slice(None, None, 3)), (-2, -3, -4),
               (Ellipsis,), (slice(10, 20),)]
        pairs = [("x[%r]" % (ix,), x[ix], xn[ix]) for ix in idx]
        pairs.append(("x[2]", x[2], xn[2]))
        self.run_all(pairs)

    def test_tensor_indices_contract(self):
        """Integer-tensor and boolean-mask indices and setitem: the client
        builds the contract's document and the server runs it (numpy's
        values)."""
        xn = np.arange(20.0).reshape(4, 5)
        x = mt.tensor(xn)
        ii = np.array([3, 0, 3])
        cases = [("fancy", lambda: x[ii], lambda: xn[ii], [{"input": 1}]),
                 ("mask", lambda: x[x > 7], lambda: xn[xn > 7], [{"input": 1}]),
                 ("mixed", lambda: x[1:, ii[:2] - 1], lambda: xn[1:, ii[:2] - 1],
                  ["1:", {"input": 1}])]
        for name, mk, ref, index in cases:
            t = mk()
            node = t.document()["nodes"][-1]
            self.assertEqual(node["op"], "getitem", name)
            self.assertEqual(node["index"], index, name)
            self.assertEqual(len(node["inputs"]), 2, name)
            self.close(t.fetch(), ref(), name)
        # setitem: a[...] = v rebinds a to a new setitem node
        y = mt.tensor(xn)
        old = y.key
        y[1:3, 0] = -1.0
        node = y.document()["nodes"][-1]
        self.assertEqual((node["op"], node["index"], node["inputs"][0], node["inputs"][1]),
                         ("setitem", ["1:3", 0], old, -1.0))
        want = xn.copy()
        want[1:3, 0] = -1.0
        self.close(y.fetch(), want, "setitem")
        z = mt.tensor(xn)
        z[z > 5] = mt.zeros(1)
        node = z.document()["nodes"][-1]
        self.assertEqual(node["index"], [{"input": 2}])
        want = xn.copy()
        want[want > 5] = 0
        self.close(z.fetch(), want, "setitem mask")


class TestFancy(Base):
    """Advanced indexing through the client (docs/python-client.md)."""

    def test_getitem_values_and_shapes(self):
        xn = RNG.standard_normal((7, 7))
        x = mt.tensor(xn, chunk_size=(3, 4))
        i, j = np.array([6, -1, 0, 2]), np.array([[1], [5], [-6]])
        it, jt = mt.tensor(i, chunk_size=3), mt.tensor(j, chunk_size=2)
        pairs = [("x[it]", x[it], xn[i]), ("x[[0, 6, -2]]", x[[0, 6, -2]], xn[[0, 6, -2]]),
                 ("x[jt, it]", x[jt, it], xn[j, i]), ("x[:, it]", x[:, it], xn[:, i]),
                 ("x[it, 1:5:2]", x[it, 1:5:2], xn[i, 1:5:2]),
                 ("x[None, it]", x[None, it], xn[None, i]),
                 ("x[it, None, jt]", x[it[:3], None, jt.ravel()], xn[i[:3], None, j.ravel()]),
                 ("x[it].sum(0) + 1", x[it].sum(axis=0) + 1, xn[i].sum(axis=0) + 1)]
        for name, t, want in pairs:  # the client knows numpy's shape before running
            self.assertEqual(t.shape, want.shape, name)
        self.run_all(pairs)

    def test_masks_are_fetched(self):
        xn = RNG.standard_normal((5, 4))
        x = mt.tensor(xn, chunk_size=2)
        m = x > 0
        got = x[m].fetch()
        self.close(got, xn[xn > 0], "x[x > 0]")
        self.close(x[mt.tensor(np.array([True, False, True, True, False]))].fetch(),
                   xn[[True, False, True, True, False]], "row mask")
        t = x[m]
        t.execute()
        self.assertEqual(t.shape, xn[xn > 0].shape)  # read back from the server

    def test_masks_of_narrow_dtypes(self):
        """A boolean mask, compress and extract of float32, int32 and the
        small dtypes: computed on the input widened (the cluster keeps such
        results as int64, float64 or bool), numpy's dtype back"""
        xn = RNG.standard_normal((6, 5))
        cases = []
        for dt in (np.float32, np.int32, np.uint8, np.int16):
            an = (xn * 10).astype(dt)
            a = mt.tensor(an, chunk_size=4)
            c = np.array([True, False, True, True, False, True])
            cases += [("mask %s" % dt.__name__, a[a > 2], an[an > 2]),
                      ("rows %s" % dt.__name__, a[mt.tensor(c)], an[c]),
                      ("compress %s" % dt.__name__, mt.compress(c, a, axis=0),
                       np.compress(c, an, axis=0)),
                      ("extract %s" % dt.__name__, mt.extract(a % 2 == 0, a),
                       np.extract(an % 2 == 0, an)),
                      ("sum %s" % dt.__name__, a[a > 2].sum(), an[an > 2].sum())]
        marsc.execute(*[t for _, t, _ in cases])
        for name, t, want in cases:
            got = t.fetch()
            self.close(got, want, name)
            self.assertEqual(got.dtype, want.dtype, name)

    def test_held_results_downstream(self):
        """Results whose length is data feed later ops: the client runs them
        first as a task of their own (as Mars does with nan shapes), the
        later task names them as session tensors."""
        xn = RNG.standard_normal((7, 5))
        x = mt.tensor(xn, chunk_size=3)
        before = n_tasks(SESS)
        s = x[x > 0].sum()
        self.close(s.fetch(), xn[xn > 0].sum(), "x[x > 0].sum()")
        self.assertEqual(n_tasks(SESS) - before, 2)  # the mask first, then the sum
        pos = x[x > 0]
        pairs = [("(x[m]*2).mean()", (pos * 2).mean(), (xn[xn > 0] * 2).mean()),
                 ("sort(x[m])", mt.sort(pos), np.sort(xn[xn > 0])),
                 ("x[m].max()", pos.max(), xn[xn > 0].max()),
                 ("nonzero+1", mt.nonzero(x > 0)[1] + 1, np.nonzero(xn > 0)[1] + 1),
                 ("unique.cumsum", mt.cumsum(mt.unique(mt.tensor(np.arange(9) % 4))),
                  np.cumsum(np.unique(np.arange(9) % 4))),
                 ("argwhere.T", mt.argwhere(x > 1).T, np.argwhere(xn > 1).T),
                 ("nested", (pos[pos > 0.5] - 0.5).sum(), (xn[xn > 0][xn[xn > 0] > 0.5]
                                                           - 0.5).sum())]
        self.run_all(pairs)
        empty = x[x > 100]
        self.close((empty + 1).fetch(), xn[xn > 100] + 1, "empty held result")

    def test_setitem(self):
        xn = RNG.integers(-9, 10, (6, 5))
        x = mt.tensor(xn, chunk_size=4)
        keep = x * 1  # built on the old value
        x[x < 0] = 0
        x[[0, -1]] = mt.tensor(np.arange(5))
        x[:, mt.tensor(np.array([1, 3]))] = 7.9  # cast to int64, as numpy
        want = xn.copy()
        want[want < 0] = 0
        want[[0, -1]] = np.arange(5)
        want[:, [1, 3]] = 7.9
        self.close(x.fetch(), want, "setitem chain")
        self.close(keep.fetch(), xn, "the old handle keeps its value")

    def test_take_compress_and_friends(self):
        xn = RNG.standard_normal((6, 4))
        x = mt.tensor(xn, chunk_size=(4, 3))
        idx = np.array([[0, -1], [2, 3]])
        pairs = [("take", mt.take(x, idx), np.take(xn, idx)),
                 ("take axis 1", mt.take(x, idx, axis=1), np.take(xn, idx, axis=1)),
                 ("x.take", x.take([5, 0], axis=0), xn.take([5, 0], axis=0)),
                 ("take scalar", mt.take(x, -2, axis=1), np.take(xn, -2, axis=1))]
        self.run_all(pairs)
        c = np.array([True, False, True])
        self.close(mt.compress(c, x, axis=0).fetch(), np.compress(c, xn, axis=0), "compress")
        self.close(x.compress(c).fetch(), xn.compress(c), "x.compress")
        self.close(mt.extract(x > 0, x).fetch(), np.extract(xn > 0, xn), "extract")
        self.close(mt.argwhere(x > 0).fetch(), np.argwhere(xn > 0), "argwhere")
        self.close(mt.flatnonzero(x > 0).fetch(), np.flatnonzero(xn > 0), "flatnonzero")

    def test_errors(self):
        x = mt.tensor(np.arange(10), chunk_size=3)
        with self.assertRaises(marsc.TaskError) as cm:  # values are data: it fails when it runs
            x[mt.tensor(np.array([4, 12]))].fetch()
        self.assertIn("index 12 is out of bounds for axis 0 with size 10", str(cm.exception))
        with self.assertRaises(marsc.GraphError) as cm:
            x[mt.tensor(np.array([True, False]))].fetch()
        self.assertIn("boolean index did not match", str(cm.exception))
        with self.assertRaises(marsc.GraphError):
            x[mt.tensor(np.array([1.0]))].fetch()


class TestMultiOutput(Base):
    def test_outputs_contract(self):
        """Ops with several results (numpy functions returning a tuple) get
        one key per result under "outputs"; while the engine lacks them the
        server's 400 comes back as GraphError naming the op."""
        f = mt.generic("linalg.qr", {"inputs": "1", "params": ["mode"]})
        a = mt.tensor(XN)
        q, r = f(a)
        self.assertTrue(isinstance(q, mt.Tensor) and isinstance(r, mt.Tensor))
        doc = marsc.core.build_document([q, r * 2], SESS)[0]
        qr = [n for n in doc["nodes"] if n["op"] == "linalg.qr"]
        self.assertEqual(len(qr), 1)  # one node for both results
        self.assertEqual(qr[0]["outputs"], [q.key, r.key])
        self.assertNotIn(qr[0]["key"], doc["fetch"])
        mul = [n for n in doc["nodes"] if n["op"] == "multiply"][0]
        self.assertEqual(mul["inputs"], [r.key, 2])
        try:
            marsc.execute(q, r)
        except marsc.GraphError as e:
            self.assertIn("linalg.qr", str(e))
        else:
            self.close(q.fetch() @ r.fetch(), XN, "q @ r")


    def test_split_and_meshgrid(self):
        """split & co and meshgrid return tuples of tensors, one task for
        all of them, each fetched; outputs feed later ops and tasks."""
        x = mt.tensor(XN, chunk_size=(4, 3))
        parts = mt.split(x, [1, 5, -1], axis=1)
        self.assertIsInstance(parts, tuple)
        self.assertEqual(len(parts), 4)
        a3 = mt.array_split(x, 4)
        h = mt.hsplit(x, 2)
        v = mt.vsplit(x, [2])
        gx, gy = mt.meshgrid(mt.arange(5), mt.linspace(0, 1, 3))
        ix, iy, iz = mt.meshgrid(mt.arange(2), mt.arange(3), mt.arange(4), indexing="ij")
        pairs = [("split%d" % i, t, w) for i, (t, w) in
                 enumerate(zip(parts, np.split(XN, [1, 5, -1], axis=1)))]
        pairs += [("array_split%d" % i, t, w) for i, (t, w) in
                  enumerate(zip(a3, np.array_split(XN, 4)))]
        pairs += [("hsplit%d" % i, t, w) for i, (t, w) in enumerate(zip(h, np.hsplit(XN, 2)))]
        pairs += [("vsplit%d" % i, t, w) for i, (t, w) in enumerate(zip(v, np.vsplit(XN, [2])))]
        wx, wy = np.meshgrid(np.arange(5), np.linspace(0, 1, 3))
        jx, jy, jz = np.meshgrid(np.arange(2), np.arange(3), np.arange(4), indexing="ij")
        pairs += [("gx", gx, wx), ("gy", gy, wy), ("ix", ix, jx), ("iz", iz, jz),
                  ("expr", parts[1] * 2 + h[0][:, :4].sum(), np.split(XN, [1, 5, -1], axis=1)[1]
                   * 2 + np.hsplit(XN, 2)[0][:, :4].sum())]
        self.run_all(pairs)
        # a fetched output in a later task
        self.close((gx + gy).fetch(), wx + wy, "later task")
        # the op list says which ops have several outputs, and the generic
        # function of a listed op counts them from its arguments
        self.assertEqual(mt.ops()["split"]["outputs"], "sections")
        self.assertEqual(mt.ops()["meshgrid"]["outputs"], "inputs")
        f = mt.generic("array_split", mt.ops()["array_split"])
        r = f(mt.arange(10), 3)
        self.assertEqual(len(r), 3)
        self.close(r[2].fetch(), np.array_split(np.arange(10), 3)[2], "generic")
        # nonzero and one-argument where: lengths known when they run
        i, j = mt.nonzero(x > 0.5)
        (k,) = mt.where(mt.arange(7) % 3)
        marsc.execute(i, j, k)
        wi, wj = np.nonzero(XN > 0.5)
        self.close(i.fetch(), wi, "nonzero rows")
        self.close(j.fetch(), wj, "nonzero columns")
        self.close(k.fetch(), np.where(np.arange(7) % 3)[0], "where")
        # unique: plain, and with first indexes and counts
        ints = mt.tensor(IN, chunk_size=(4, 5))
        u = mt.unique(ints)
        uv, ui, uc = mt.unique(ints, return_index=True, return_counts=True)
        marsc.execute(u, uv, ui, uc)
        wv, wi, wc = np.unique(IN, return_index=True, return_counts=True)
        self.close(u.fetch(), np.unique(IN), "unique")
        for name, t, w in (("values", uv, wv), ("index", ui, wi), ("counts", uc, wc)):
            self.close(t.fetch(), w, "unique " + name)
        # histogram: bins, range and density; edges given as a list
        hc, he = mt.histogram(x, 5)
        dc, de = mt.histogram(x, [-2, 0, 0.5, 3], density=True)
        rc, re_ = mt.histogram(ints, 4, range=(-5, 5))
        self.run_all([("hist", hc, np.histogram(XN, 5)[0]), ("edges", he, np.histogram(XN, 5)[1]),
                      ("dens", dc, np.histogram(XN, [-2, 0, 0.5, 3], density=True)[0]),
                      ("range", rc, np.histogram(IN, 4, range=(-5, 5))[0]),
                      ("range-edges", re_, np.histogram(IN, 4, range=(-5, 5))[1])])
        # setops: weights, the inverse (an ordinary tensor: usable downstream), set ops
        wt = np.abs(XN) + 1
        whc, _ = mt.histogram(x, 5, weights=mt.tensor(wt, chunk_size=4))
        _, inv = mt.unique(ints, return_inverse=True)
        back = mt.unique(ints)
        marsc.execute(whc, inv, back)
        np.testing.assert_allclose(whc.fetch(), np.histogram(XN, 5, weights=wt)[0], rtol=1e-12)
        self.close(inv.fetch(), np.unique(IN, return_inverse=True)[1], "unique inverse")
        self.close((inv * 2).sum().execute().fetch(), np.unique(IN, return_inverse=True)[1].sum() * 2,
                   "inverse downstream")
        b2 = mt.tensor(IN[::2] + 1, chunk_size=3)
        iv, ia, ib = mt.intersect1d(ints, b2, return_indices=True)
        un = mt.union1d(ints, b2)
        sd = mt.setdiff1d(ints, b2)
        marsc.execute(iv, ia, ib, un, sd)
        wv, wa, wb = np.intersect1d(IN, IN[::2] + 1, return_indices=True)
        for name, t, w in (("intersect1d", iv, wv), ("ia", ia, wa), ("ib", ib, wb),
                           ("union1d", un, np.union1d(IN, IN[::2] + 1)),
                           ("setdiff1d", sd, np.setdiff1d(IN, IN[::2] + 1))):
            self.close(t.fetch(), w, name)
        # int32, float32 and small dtypes: computed widened, numpy's dtype back
        i32, f32 = IN.astype(np.int32), (XN * 4).round().astype(np.float32)
        u8 = (IN % 7).astype(np.uint8)
        t32 = mt.tensor(i32, chunk_size=(4, 5))
        tf = mt.tensor(f32, chunk_size=(4, 5))
        t8 = mt.tensor(u8, chunk_size=(4, 5))
        cases = [("unique_i32", mt.unique(t32), np.unique(i32)),
                 ("unique_f32", mt.unique(tf), np.unique(f32)),
                 ("unique_u8_counts", mt.unique(t8, return_counts=True)[0],
                  np.unique(u8, return_counts=True)[0]),
                 ("unique_u8_n", mt.unique(t8, return_counts=True)[1],
                  np.unique(u8, return_counts=True)[1]),
                 ("union_i32_u8", mt.union1d(t32, t8), np.union1d(i32, u8)),
                 ("union_i32_f32", mt.union1d(t32, tf), np.union1d(i32, f32)),
                 ("intersect_f32", mt.intersect1d(tf, tf[1:]), np.intersect1d(f32, f32[1:])),
                 ("setdiff_i32_f32", mt.setdiff1d(t32, tf), np.setdiff1d(i32, f32)),
                 ("setdiff_f32_i32", mt.setdiff1d(tf * 0.5, t32), np.setdiff1d(f32 * 0.5, i32))]
        marsc.execute(*[c[1] for c in cases])
        for name, t, w in cases:
            got = t.fetch()
            self.close(got, w, name)
            self.assertEqual(got.dtype, w.dtype, name)


class TestAttributesAndMethods(Base):
    def test_attributes(self):
        x = mt.tensor(XN, chunk_size=4)
        self.assertEqual((x.shape, x.dtype, x.ndim, x.size), ((6, 8), np.float64, 2, 48))
        self.assertEqual(x.T.shape, (8, 6))
        self.assertEqual(len(x), 6)
        self.assertEqual(x.astype("int32").dtype, np.int32)
        self.assertEqual(mt.ones((3, 4), dtype="int64").sum(axis=0).dtype, np.int64)
        # unknown shapes come from the server once executed
        m = mt.tensor(XN).sum(axis=1)
        m._shape = None
        m.execute()
        self.assertEqual(m.shape, (6,))
        # listed ops whose shape numpy tells from the inputs' shapes, before they run
        for f in (lambda m, a: m.swapaxes(a, 0, 1), lambda m, a: m.moveaxis(a, 0, -1),
                  lambda m, a: m.flip(a, 0), lambda m, a: m.diff(a, 2, axis=1),
                  lambda m, a: m.atleast_3d(a), lambda m, a: m.ptp(a, axis=0),
                  lambda m, a: m.count_nonzero(a, axis=1)):
            got, want = f(mt, mt.tensor(IN, chunk_size=4)), f(np, IN)
            self.assertEqual((got.shape, got.dtype), (want.shape, want.dtype))
            np.testing.assert_array_equal(got.fetch(), want)

    def test_methods(self):
        x, i = mt.tensor(XN, chunk_size=4), mt.tensor(IN, chunk_size=5)
        b = mt.tensor(XN > 0)
        pairs = [("T", x.T, XN.T), ("astype", x.astype("int32"), XN.astype("int32")),
                 ("astype-f32", i.astype(np.float32), IN.astype(np.float32))]
        for m in ("sum", "prod", "mean", "min", "max", "std", "var"):
            for ax in (None, 0, 1, (0, 1)):
                pairs.append(("%s(%s)" % (m, ax), getattr(x, m)(axis=ax), getattr(XN, m)(axis=ax)))
            pairs.append(("i.%s" % m, getattr(i, m)(axis=0), getattr(IN, m)(axis=0)))
        pairs += [("sum-keep", x.sum(axis=1, keepdims=True), XN.sum(axis=1, keepdims=True)),
                  ("std-ddof", x.std(axis=0, ddof=1), XN.std(axis=0, ddof=1)),
                  ("all", b.all(axis=0), (XN > 0).all(axis=0)), ("any", b.any(), (XN > 0).any()),
                  ("argmin", x.argmin(axis=1), XN.argmin(axis=1)), ("argmax", x.argmax(), XN.argmax()),
                  ("cumsum", x.cumsum(axis=0), XN.cumsum(axis=0)), ("cumprod", i.cumprod(), IN.cumprod()),
                  ("reshape", x.reshape(4, 12), XN.reshape(4, 12)),
                  ("reshape-1", x.reshape((-1, 3)), XN.reshape(-1, 3)),
                  ("transpose", x.transpose(1, 0), XN.transpose(1, 0)), ("ravel", x.ravel(), XN.ravel()),
                  ("dot", x.dot(x.T), XN.dot(XN.T)), ("clip", x.clip(-0.5, 0.5), XN.clip(-0.5, 0.5)),
                  ("squeeze", x[:1].squeeze(), XN[:1].squeeze())]
        self.run_all(pairs)


class TestFunctions(Base):
    def test_composed(self):
        """numpy functions with no op of their own, composed of the
        cluster's ops: values, shapes and dtypes as numpy's; numpy's
        constants and dtypes as mt's names"""
        x, i = mt.tensor(XN, chunk_size=4), mt.tensor(IN, chunk_size=5)
        with np.errstate(all="ignore"):
            lg = np.log(XN)
            lg0 = np.nan_to_num(lg / 0.0, nan=-1.0, posinf=9.0, neginf=-9.0)
        lgt = mt.log(x)
        w = mt.tensor(np.array([0, 5, 9, 11]), chunk_size=3)
        pairs = [("nan_to_num", mt.nan_to_num(lgt), np.nan_to_num(lg)),
                 ("nan_to_num_kw", mt.nan_to_num(lgt / 0.0, nan=-1.0, posinf=9.0, neginf=-9.0),
                  lg0),
                 ("nan_to_num_int", mt.nan_to_num(i), np.nan_to_num(IN)),
                 ("append", mt.append(x, i), np.append(XN, IN)),
                 ("append_axis", mt.append(x, i, axis=1), np.append(XN, IN, axis=1)),
                 ("delete", mt.delete(x, [0, -1], axis=0), np.delete(XN, [0, -1], axis=0)),
                 ("delete_slice", mt.delete(i, slice(1, None, 4)), np.delete(IN, slice(1, None, 4))),
                 ("delete_mask", mt.delete(x, XN[0] > 0, axis=1), np.delete(XN, XN[0] > 0, axis=1))]
        for k in range(4):
            pairs.append(("rot90_%d" % k, mt.rot90(x, k), np.rot90(XN, k)))
        pairs += [("rot90_axes", mt.rot90(i, 1, axes=(1, 0)), np.rot90(IN, 1, axes=(1, 0))),
                  ("kron", mt.kron(x[:2, :3], i[:3, :2]), np.kron(XN[:2, :3], IN[:3, :2])),
                  ("kron_1d", mt.kron(x[0], i[1, :3]), np.kron(XN[0], IN[1, :3])),
                  ("kron_mixed", mt.kron(x[0, :2], i[:2, :2]), np.kron(XN[0, :2], IN[:2, :2])),
                  ("cross", mt.cross(x[:, :3], x[:, 3:6]), np.cross(XN[:, :3], XN[:, 3:6])),
                  ("pinv", mt.linalg.pinv(x), np.linalg.pinv(XN)),
                  ("pinv_wide", mt.linalg.pinv(x.T[:4]), np.linalg.pinv(XN.T[:4]))]
        rows, cols = mt.unravel_index(w, (3, 4))
        pairs += [("unravel_rows", rows, np.unravel_index([0, 5, 9, 11], (3, 4))[0]),
                  ("unravel_cols", cols, np.unravel_index([0, 5, 9, 11], (3, 4))[1])]
        sym = XN[:5, :5] @ XN[:5, :5].T
        v = XN[0]
        pairs += [("eigvalsh", mt.linalg.eigvalsh(mt.tensor(sym, chunk_size=3)),
                   np.linalg.eigvalsh(sym)),
                  ("gradient", mt.gradient(x[0]), np.gradient(XN[0])),
                  ("gradient_ax1", mt.gradient(x, 2.0, axis=1), np.gradient(XN, 2.0, axis=1)),
                  ("gradient_int", mt.gradient(i)[0], np.gradient(IN)[0]),
                  ("convolve", mt.convolve(x[0], x[1, :3]), np.convolve(v, XN[1, :3])),
                  ("convolve_same", mt.convolve(x[1, :4], x[0], "same"),
                   np.convolve(XN[1, :4], v, "same")),
                  ("convolve_valid", mt.convolve(i[0], i[1, :2], "valid"),
                   np.convolve(IN[0], IN[1, :2], "valid")),
                  ("array_equal", mt.array_equal(x, x), np.array_equal(XN, XN)),
                  ("array_equal_nan", mt.array_equal(lgt, lgt, equal_nan=True),
                   np.array_equal(lg, lg, equal_nan=True)),
                  ("trace_method", x.trace(1), XN.trace(1)),
                  ("full_nan", mt.full((2, 3), mt.nan), np.full((2, 3), np.nan)),
                  ("full_inf32", mt.full(4, -mt.inf, dtype=mt.float32),
                   np.full(4, -np.inf, dtype=np.float32)),
                  ("triu_rows", mt.triu_indices(4, 1)[0], np.triu_indices(4, 1)[0]),
                  ("tril_cols", mt.tril_indices(3)[1], np.tril_indices(3)[1]),
                  ("ravel_multi", mt.ravel_multi_index((w, w), (12, 12), mode="clip"),
                   np.ravel_multi_index(([0, 5, 9, 11], [0, 5, 9, 11]), (12, 12), mode="clip"))]
        srt = np.sort(XN[2])
        pairs += [("trapz", mt.trapz(x[0]), np.trapz(XN[0])),
                  ("trapz_x", mt.trapz(x, mt.tensor(srt), axis=1), np.trapz(XN, srt, axis=1)),
                  ("trapz_dx", mt.trapz(i, dx=0.5, axis=0), np.trapz(IN, dx=0.5, axis=0)),
                  ("interp", mt.interp(x, [-1, 0, 0.5, 1], [0, 10, 2, 3], left=-5),
                   np.interp(XN, [-1, 0, 0.5, 1], [0, 10, 2, 3], left=-5)),
                  ("interp_int", mt.interp(i, [-3, 3], [1, 2]), np.interp(IN, [-3, 3], [1, 2])),
                  ("polyval", mt.polyval([1, -2, 0.5], x), np.polyval([1, -2, 0.5], XN)),
                  ("polyval_int", mt.polyval([3, 0, 1], i), np.polyval([3, 0, 1], IN)),
                  ("lexsort", mt.lexsort((x[0], i[0] % 3)), np.lexsort((XN[0], IN[0] % 3))),
                  ("along_median", mt.apply_along_axis(np.median, 1, x),
                   np.apply_along_axis(np.median, 1, XN)),
                  ("along_cumsum", mt.apply_along_axis(np.cumsum, 0, i),
                   np.apply_along_axis(np.cumsum, 0, IN))]
        spd = mt.tensor(sym + 5 * np.eye(5), chunk_size=3)
        y = mt.tensor(YN, chunk_size=3)
        pairs += [("logaddexp", mt.logaddexp(x, y), np.logaddexp(XN, YN)),
                  ("logaddexp2", mt.logaddexp2(x, i), np.logaddexp2(XN, IN)),
                  ("ldexp", mt.ldexp(x, i % 4), np.ldexp(XN, IN % 4)),
                  ("fabs", mt.fabs(i), np.fabs(IN)), ("deg2rad", mt.deg2rad(x), np.deg2rad(XN)),
                  ("rad2deg", mt.rad2deg(i), np.rad2deg(IN)), ("conj", mt.conj(i), np.conj(IN)),
                  ("divmod", mt.divmod(x, 0.3)[0], np.divmod(XN, 0.3)[0]),
                  ("modf", mt.modf(x)[0], np.modf(XN)[0]), ("modf_int", mt.modf(i)[1],
                                                             np.modf(IN)[1]),
                  ("select", mt.select([x > 0.5, x < -0.5], [x, 2 * x], -1.0),
                   np.select([XN > 0.5, XN < -0.5], [XN, 2 * XN], -1.0)),
                  ("choose", mt.choose(i % 3, [x, -x, x * 2]),
                   np.choose(IN % 3, [XN, -XN, XN * 2])),
                  ("block", mt.block([[x, y], [y, x]]), np.block([[XN, YN], [YN, XN]])),
                  ("sinc", mt.sinc(i), np.sinc(IN)), ("tri", mt.tri(3, 5, 1), np.tri(3, 5, 1)),
                  ("vander", mt.vander(x[0], 3), np.vander(XN[0], 3)),
                  ("bin_edges", mt.histogram_bin_edges(x, 4), np.histogram_bin_edges(XN, 4)),
                  ("matrix_power", mt.linalg.matrix_power(spd, 3),
                   np.linalg.matrix_power(sym + 5 * np.eye(5), 3)),
                  ("matrix_power_neg", mt.linalg.matrix_power(spd, -2),
                   np.linalg.matrix_power(sym + 5 * np.eye(5), -2)),
                  ("cond", mt.linalg.cond(x), np.linalg.cond(XN)),
                  ("amax_initial", mt.amax(x, axis=0, initial=0.5),
                   np.amax(XN, axis=0, initial=0.5)),
                  ("sum_initial", mt.sum(i, initial=7), np.sum(IN, initial=7))]
        self.run_all(pairs)
        with self.assertRaises(AttributeError):  # no op of the cluster computes these
            mt.gcd
        with self.assertRaisesRegex(NotImplementedError, "no Python"):
            mt.apply_along_axis(lambda r: r[0], 0, x)
        self.assertIs(mt.array_equal(x, x[:2]), False)
        self.assertEqual(x[:, mt.newaxis].shape, XN[:, np.newaxis].shape)
        self.assertEqual(mt.pi, np.pi)
        self.assertEqual(mt.unravel_index(7, (3, 4)), np.unravel_index(7, (3, 4)))
        with self.assertRaises(IndexError):
            mt.delete(x, [6], axis=0)

    def test_insert_resize_polyfit_unwrap(self):
        """insert (one index: values as a block, numpy's moveaxis; several:
        an entry each, stable in their order; a slice; values a list or a
        tensor, cast to arr's dtype), resize (repeating, shrinking, empty),
        diagflat, polyfit, trim_zeros and unwrap against numpy"""
        x, i = mt.tensor(XN, chunk_size=4), mt.tensor(IN, chunk_size=5)
        vt = mt.tensor(XN[:, 0], chunk_size=4)
        pairs = [("ins_flat", mt.insert(x, 3, 9.5), np.insert(XN, 3, 9.5)),
                 ("ins_block", mt.insert(i, 2, [7, 8, 9]), np.insert(IN, 2, [7, 8, 9])),
                 ("ins_axis1", mt.insert(x, 1, [1, 2, 3, 4, 5, 6], axis=1),
                  np.insert(XN, 1, [1, 2, 3, 4, 5, 6], axis=1)),
                 ("ins_axis0_row", mt.insert(i, -1, 5, axis=0), np.insert(IN, -1, 5, axis=0)),
                 ("ins_end", mt.insert(i, 6, [[1], [2]], axis=0),
                  np.insert(IN, 6, [[1], [2]], axis=0)),
                 ("ins_list_obj", mt.insert(x, [1], [[1], [2], [3], [4], [5], [6]], axis=1),
                  np.insert(XN, [1], [[1], [2], [3], [4], [5], [6]], axis=1)),
                 ("ins_many", mt.insert(i, [3, 0, 3, -2], [10, 20, 30, 40], axis=1),
                  np.insert(IN, [3, 0, 3, -2], [10, 20, 30, 40], axis=1)),
                 ("ins_slice", mt.insert(i, slice(0, 8, 3), 0, axis=1),
                  np.insert(IN, slice(0, 8, 3), 0, axis=1)),
                 ("ins_cast", mt.insert(i, 2, 2.7, axis=0), np.insert(IN, 2, 2.7, axis=0)),
                 ("ins_tensor", mt.insert(x, 4, vt, axis=1), np.insert(XN, 4, XN[:, 0], axis=1)),
                 ("ins_tensor_cast", mt.insert(i, [0, 2], vt[:2] * 3, axis=None),
                  np.insert(IN, [0, 2], XN[:2, 0] * 3)),
                 ("ins_nothing", mt.insert(i, [], [], axis=1), np.insert(IN, [], [], axis=1)),
                 ("resize_grow", mt.resize(i, (5, 11)), np.resize(IN, (5, 11))),
                 ("resize_shrink", mt.resize(x, 7), np.resize(XN, 7)),
                 ("resize_empty", mt.resize(x[:0], (2, 3)), np.resize(XN[:0], (2, 3))),
                 ("resize_zero", mt.resize(i, (0, 4)), np.resize(IN, (0, 4))),
                 ("diagflat", mt.diagflat(i[:2, :3]), np.diagflat(IN[:2, :3])),
                 ("diagflat_k", mt.diagflat(x[0, :4], -2), np.diagflat(XN[0, :4], -2))]
        xs = mt.tensor(XN[:, 0], chunk_size=4)
        pairs += [("polyfit", mt.polyfit(xs, mt.tensor(YN[:, 1]), 3),
                   np.polyfit(XN[:, 0], YN[:, 1], 3)),
                  ("polyfit_2d", mt.polyfit(xs, mt.tensor(YN[:, :3], chunk_size=4), 2),
                   np.polyfit(XN[:, 0], YN[:, :3], 2)),
                  ("polyfit_int", mt.polyfit(mt.tensor(IN[:, 0]), i[:, 1], 1),
                   np.polyfit(IN[:, 0], IN[:, 1], 1))]
        z = np.array([0, 0, 3, 0, -1, 2, 0, 0, 0])
        zt = mt.tensor(z, chunk_size=4)
        ph = np.cumsum(XN * 2.5, axis=1)  # jumps past pi both ways
        pt = mt.tensor(ph, chunk_size=3)
        ip = np.cumsum(IN, axis=0) * 7
        pairs += [("trim_zeros", mt.trim_zeros(zt), np.trim_zeros(z)),
                  ("trim_zeros_f", mt.trim_zeros(zt, "f"), np.trim_zeros(z, "f")),
                  ("trim_zeros_b", mt.trim_zeros(zt * 0.5, "b"), np.trim_zeros(z * 0.5, "b")),
                  ("trim_zeros_all", mt.trim_zeros(zt * 0), np.trim_zeros(z * 0)),
                  ("unwrap", mt.unwrap(pt), np.unwrap(ph)),
                  ("unwrap_axis0", mt.unwrap(pt, axis=0), np.unwrap(ph, axis=0)),
                  ("unwrap_discont", mt.unwrap(pt, discont=4.0), np.unwrap(ph, discont=4.0)),
                  ("unwrap_period", mt.unwrap(pt, period=3.0), np.unwrap(ph, period=3.0)),
                  ("unwrap_int", mt.unwrap(mt.tensor(ip), period=40, axis=0),
                   np.unwrap(ip, period=40, axis=0)),
                  ("unwrap_int_odd", mt.unwrap(mt.tensor(ip), period=41),
                   np.unwrap(ip, period=41)),
                  ("unwrap_int_float", mt.unwrap(mt.tensor(ip)), np.unwrap(ip))]
        self.run_all(pairs)
        with self.assertRaises(TypeError):
            mt.polyfit(x, xs, 1)
        with self.assertRaises(IndexError):
            mt.insert(x, 49, 1.0)
        with self.assertRaises(IndexError):
            mt.insert(x, [0, 7], 1.0, axis=0)
        with self.assertRaises(ValueError):
            mt.resize(x, (2, -1))

    def test_creation(self):
        self.run_all([
            ("ones", mt.ones((3, 4), chunk_size=2), np.ones((3, 4))),
            ("zeros-i", mt.zeros(5, dtype="int32"), np.zeros(5, dtype=np.int32)),
            ("full", mt.full((2, 3), 7), np.full((2, 3), 7)),
            ("full-f", mt.full((2, 3), 1.5), np.full((2, 3), 1.5)),
            ("arange", mt.arange(10), np.arange(10)), ("arange3", mt.arange(1, 2, 0.25), np.arange(1, 2, 0.25)),
            ("linspace", mt.linspace(0, 1, 7), np.linspace(0, 1, 7)),
            ("eye", mt.eye(4, 5, k=1), np.eye(4, 5, k=1)),
            ("tensor", mt.tensor([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]])),
            ("ones_like", mt.ones_like(mt.tensor(IN)), np.ones_like(IN)),
            ("zeros_like", mt.zeros_like(mt.tensor(XN), dtype="float32"),
             np.zeros_like(XN, dtype=np.float32)),
            ("identity", mt.identity(3), np.identity(3)),
        ])
        # numpy's other names map to the engine's ops
        x = mt.tensor(XN)
        self.assertEqual((mt.absolute(x).op, mt.amax(x).op, mt.true_divide(x, 2).op,
                          mt.remainder(x, 2).op), ("abs", "max", "divide", "mod"))
        self.close(mt.amin(x, axis=0).fetch(), np.amin(XN, axis=0))
        r = mt.random.random((2, 3)).fetch()
        self.assertTrue(r.shape == (2, 3) and ((0 <= r) & (r < 1)).all())

    def test_random(self):
        r = mt.random.rand(300, 200, chunk_size=70)
        n = mt.random.randn(1000)
        k = mt.random.randint(3, 9, size=(50, 4))
        u = mt.random.uniform(-2, -1, size=400)
        g = mt.random.normal(10, 0.1, size=400)
        marsc.execute(r, n, k, u, g)
        rv = r.fetch()
        self.assertEqual((rv.shape, rv.dtype), ((300, 200), np.float64))
        self.assertTrue(0 <= rv.min() and rv.max() < 1 and abs(rv.mean() - 0.5) < 0.02)
        self.assertLess(abs(n.fetch().mean()), 0.15)
        kv = k.fetch()
        self.assertEqual(kv.dtype, np.int64)
        self.assertTrue(kv.min() >= 3 and kv.max() < 9)
        self.assertTrue((u.fetch() >= -2).all() and (u.fetch() < -1).all())
        self.assertLess(abs(g.fetch().mean() - 10), 0.05)
        # the client draws the seed: the lineage run again repeats the values
        s = r + 0
        self.close(s.fetch(), rv, "random re-run")
        self.close(mt.random.rand(40, seed=5).fetch(), mt.random.rand(40, seed=5, chunk_size=7).fetch(),
                   "same seed, other chunks")

    def test_random_distributions(self):
        """numpy's distributions with numpy's signatures: dtypes, supports and
        means (6 standard errors), the seed's values whatever the chunks."""
        n = 40000
        cases = [(mt.random.exponential(2.0, size=n), np.float64, 2.0, 4.0),
                 (mt.random.poisson(3.0, n), np.int64, 3.0, 3.0),
                 (mt.random.binomial(10, 0.25, size=(200, 200)), np.int64, 2.5, 1.875),
                 (mt.random.gamma(2.0, 1.5, size=n), np.float64, 3.0, 4.5),
                 (mt.random.beta(2.0, 3.0, size=n), np.float64, 0.4, 0.04),
                 (mt.random.lognormal(0.0, 0.5, size=n), np.float64, np.exp(0.125),
                  (np.exp(0.25) - 1) * np.exp(0.25)),
                 (mt.random.standard_t(5.0, size=n), np.float64, 0.0, 5 / 3),
                 (mt.random.chisquare(4.0, size=n), np.float64, 4.0, 8.0)]
        marsc.execute(*[c[0] for c in cases])
        for t, dt, mean, var in cases:
            v = t.fetch()
            self.assertEqual(v.dtype, dt, t.op)
            self.assertEqual(v.shape, t.shape, t.op)
            self.assertLess(abs(v.mean() - mean), 6 * np.sqrt(var / v.size), t.op)
        self.assertTrue((cases[2][0].fetch() <= 10).all())
        a = mt.random.gamma(0.7, size=500, seed=9).fetch()
        b = mt.random.gamma(0.7, size=500, seed=9, chunk_size=33).fetch()
        self.assertEqual(a.tobytes(), b.tobytes())
        with self.assertRaises(marsc.GraphError) as cm:
            mt.random.binomial(5, 1.5, size=3).execute()
        self.assertIn("p > 1", str(cm.exception))

    def test_elementwise_functions(self):
        x, p = mt.tensor(XN), mt.tensor(np.abs(YN) + 0.1)
        pairs = []
        for f in ("negative", "abs", "exp", "sin", "cos", "tan", "tanh", "square", "sign", "floor",
                  "ceil", "expm1", "isnan", "isfinite"):
            pairs.append((f, getattr(mt, f)(x), getattr(np, f)(XN)))
        for f in ("sqrt", "log", "log1p"):
            pairs.append((f, getattr(mt, f)(p), getattr(np, f)(np.abs(YN) + 0.1)))
        for f in ("add", "subtract", "multiply", "divide", "maximum", "minimum", "power",
                  "floor_divide", "mod"):
            a, b = (p, x) if f == "power" else (x, p)
            an, bn = (np.abs(YN) + 0.1, XN) if f == "power" else (XN, np.abs(YN) + 0.1)
            pairs.append((f, getattr(mt, f)(a, b), getattr(np, f)(an, bn)))
        pairs += [("logical_and", mt.logical_and(x > 0, p > 1), np.logical_and(XN > 0, np.abs(YN) + 0.1 > 1)),
                  ("logical_not", mt.logical_not(x > 0), XN <= 0),
                  ("where", mt.where(x > 0, x, 0), np.where(XN > 0, XN, 0)),
                  ("clip", mt.clip(x, None, 0.3), np.clip(XN, None, 0.3)),
                  ("astype", mt.astype(x, "float32"), XN.astype(np.float32))]
        self.run_all(pairs, rtol=1e-6)

    def test_linalg_factorizations(self):
        """qr (TSQR over row chunks), svd, eigh, slogdet: numpy's invariants,
        shapes known client-side; full_matrices=True of a tall matrix says
        what to pass."""
        a = RNG.standard_normal((300, 6))
        ta = mt.tensor(a, chunk_size=(40, 6))
        q, r = mt.linalg.qr(ta)
        u, s, vh = mt.linalg.svd(ta, full_matrices=False)
        sv = mt.linalg.svd(ta, compute_uv=False)
        sym = a.T @ a
        w, v = mt.linalg.eigh(mt.tensor(sym))
        sg, ld = mt.linalg.slogdet(mt.tensor(sym))
        self.assertEqual((q.shape, r.shape, u.shape, s.shape, vh.shape), ((300, 6), (6, 6), (300, 6), (6,), (6, 6)))
        marsc.execute(q, r, u, s, vh, sv, w, v, sg, ld)
        self.close(q.fetch() @ r.fetch(), a, "q r", rtol=1e-9, atol=1e-9)
        self.close(np.abs(r.fetch()), np.abs(np.linalg.qr(a)[1]), "|r|", rtol=1e-9, atol=1e-9)
        self.close((u.fetch() * s.fetch()) @ vh.fetch(), a, "u s vh", rtol=1e-9, atol=1e-9)
        self.close(sv.fetch(), np.linalg.svd(a, compute_uv=False), "s", rtol=1e-9, atol=1e-9)
        self.close(w.fetch(), np.linalg.eigh(sym)[0], "w", rtol=1e-9, atol=1e-9)
        self.close(sym @ v.fetch(), v.fetch() * w.fetch(), "a v = v w", rtol=1e-8, atol=1e-8)
        nsg, nld = np.linalg.slogdet(sym)
        self.close(sg.fetch(), nsg, "sign")
        self.close(ld.fetch(), nld, "logabsdet", rtol=1e-9, atol=1e-9)
        with self.assertRaises(marsc.GraphError) as cm:
            mt.linalg.svd(ta)[1].execute()
        self.assertIn("full_matrices false", str(cm.exception))
        # lstsq: the residuals are held (their length is data), usable later
        bv = RNG.standard_normal(300)
        x, res, rk, sv2 = mt.linalg.lstsq(ta, mt.tensor(bv, chunk_size=70), rcond=None)
        self.assertEqual((x.shape, rk.shape, sv2.shape, res.shape), ((6,), (), (6,), None))
        nx, nres, nrk, nsv = np.linalg.lstsq(a, bv, rcond=None)
        total = mt.sum(res) + mt.sum(x)
        self.close(total.fetch(), nres.sum() + nx.sum(), "residuals + x", rtol=1e-9, atol=1e-9)
        self.close(x.fetch(), nx, "x", rtol=1e-9, atol=1e-9)
        self.close(res.fetch(), nres, "residuals", rtol=1e-9, atol=1e-9)
        self.assertEqual(int(rk.fetch()), nrk)

    def test_sampling(self):
        """random.choice, permutation, shuffle, multinomial and
        multivariate_normal with numpy's signatures; a tensor is sampled
        through take, with the same permutation as its length's."""
        x = np.arange(40.0).reshape(20, 2)
        tx = mt.tensor(x, chunk_size=(7, 2))
        p = mt.random.permutation(20, seed=3)
        px = mt.random.permutation(tx, seed=3)
        c = mt.random.choice(tx[:, 0], size=(4, 5), replace=False, seed=4)
        cp = mt.random.choice([1.5, 2.5], size=6, p=[0.25, 0.75], seed=1)
        m = mt.random.multinomial(10, [0.3, 0.7], size=5, seed=2)
        v = mt.random.multivariate_normal([0.0, 1.0], [[1.0, 0.0], [0.0, 2.0]], size=7, seed=2)
        self.assertEqual((p.shape, px.shape, c.shape, cp.shape, m.shape, v.shape),
                         ((20,), (20, 2), (4, 5), (6,), (5, 2), (7, 2)))
        marsc.execute(p, px, c, cp, m, v)
        pv = p.fetch()
        self.assertEqual(sorted(pv.tolist()), list(range(20)))
        np.testing.assert_array_equal(px.fetch(), x[pv])
        cv = c.fetch().ravel().tolist()
        self.assertEqual(len(set(cv)), 20)
        self.assertTrue(set(cv) <= set(x[:, 0].tolist()))
        self.assertTrue(set(cp.fetch().tolist()) <= {1.5, 2.5})
        self.assertEqual(cp.dtype, np.float64)
        np.testing.assert_array_equal(m.fetch().sum(axis=1), [10] * 5)
        self.assertEqual(v.fetch().shape, (7, 2))
        s = mt.tensor(x, chunk_size=(7, 2))
        self.assertIsNone(mt.random.shuffle(s, seed=3))
        np.testing.assert_array_equal(s.fetch(), x[pv])
        with self.assertRaises(marsc.GraphError) as cm:
            mt.random.choice(3, size=4, replace=False, seed=1).execute()
        self.assertIn("Cannot take a larger sample than population", str(cm.exception))

    def test_linalg_and_shapes(self):
        a = RNG.standard_normal((5, 4))
        b = RNG.standard_normal((4, 3))
        c = RNG.standard_normal((2, 3, 4))
        ta, tb, tc = mt.tensor(a, chunk_size=2), mt.tensor(b), mt.tensor(c)
        self.run_all([
            ("dot", mt.dot(ta, tb), np.dot(a, b)), ("matmul", mt.matmul(tc, b), np.matmul(c, b)),
            ("inner", mt.inner(ta, ta), np.inner(a, a)), ("outer", mt.outer(ta[0], tb[0]), np.outer(a[0], b[0])),
            ("tensordot", mt.tensordot(tc, tb, axes=([2], [0])), np.tensordot(c, b, axes=([2], [0]))),
            ("tensordot2", mt.tensordot(tc, mt.tensor(c.transpose(1, 2, 0)), axes=2),
             np.tensordot(c, c.transpose(1, 2, 0), axes=2)),
            ("transpose", mt.transpose(tc, (2, 0, 1)), np.transpose(c, (2, 0, 1))),
            ("reshape", mt.reshape(tc, (4, -1)), np.reshape(c, (4, -1))),
            ("ravel", mt.ravel(ta), np.ravel(a)),
            ("squeeze", mt.squeeze(mt.tensor(a[None])), np.squeeze(a[None])),
            ("expand_dims", mt.expand_dims(ta, 1), np.expand_dims(a, 1)),
            ("concatenate", mt.concatenate([ta, ta * 2], axis=1), np.concatenate([a, a * 2], axis=1)),
            ("concat-none", mt.concatenate([ta, tb], axis=None), np.concatenate([a, b], axis=None)),
            ("stack", mt.stack([tb, tb, tb], axis=1), np.stack([b, b, b], axis=1)),
            ("rechunk", mt.rechunk(ta, 3), a),
            ("hstack", mt.hstack([ta, ta[:, :1]]), np.hstack([a, a[:, :1]])),
            ("vstack", mt.vstack([tb[0], tb]), np.vstack([b[0], b])),
            ("dstack", mt.dstack([ta, ta]), np.dstack([a, a])),
            ("column_stack", mt.column_stack([ta[:, 0], ta]), np.column_stack([a[:, 0], a])),
        ])
        self.assertEqual(mt.vstack([tb[0], tb]).shape, (5, 3))
        self.assertEqual(mt.dstack([ta[0], ta[1]]).shape, (1, 4, 2))
        # shapes: creation, tiling and padding
        self.run_all([
            ("logspace", mt.logspace(0, 3, 7, base=2, chunk_size=3), np.logspace(0, 3, 7, base=2)),
            ("geomspace", mt.geomspace(-1, -1000, 9), np.geomspace(-1, -1000, 9)),
            ("indices", mt.indices((3, 4), chunk_size=[1, 2, 3]), np.indices((3, 4))),
            ("roll", mt.roll(ta, (1, -2), axis=(0, 1)), np.roll(a, (1, -2), axis=(0, 1))),
            ("roll-flat", mt.roll(ta, 7), np.roll(a, 7)),
            ("broadcast_to", mt.broadcast_to(tb[0], (3, 4, 3)), np.broadcast_to(b[0], (3, 4, 3))),
            ("tile", mt.tile(ta, (2, 1, 3)), np.tile(a, (2, 1, 3))),
            ("repeat", mt.repeat(ta, 3, axis=1), np.repeat(a, 3, axis=1)),
            ("repeat-list", mt.repeat(ta, [1, 0, 2, 1, 3], axis=0),
             np.repeat(a, [1, 0, 2, 1, 3], axis=0)),
            ("pad", mt.pad(ta, ((1, 2), (0, 3)), constant_values=-1),
             np.pad(a, ((1, 2), (0, 3)), constant_values=-1)),
            ("pad-edge", mt.pad(ta, 2, mode="edge"), np.pad(a, 2, mode="edge")),
            ("pad-reflect", mt.pad(ta, ((9, 1), (2, 0)), mode="reflect"),
             np.pad(a, ((9, 1), (2, 0)), mode="reflect")),
            ("pad-symmetric", mt.pad(ta, 3, mode="symmetric"), np.pad(a, 3, mode="symmetric")),
            ("pad-wrap", mt.pad(ta, (1, 11), mode="wrap"), np.pad(a, (1, 11), mode="wrap")),
        ])
        # the statistic modes, composed here: corners, stat_length, integer
        # rounding (half to even), float32, bools, 3-D
        ia = (np.arange(20).reshape(5, 4) * 7) % 11
        ti = mt.tensor(ia, chunk_size=3)
        f32 = a.astype(np.float32)
        bl = ia % 3 == 0
        stat = [("pad-%s" % m, mt.pad(ta, ((2, 1), (0, 3)), mode=m),
                 np.pad(a, ((2, 1), (0, 3)), mode=m)) for m in ("mean", "median", "maximum",
                                                                "minimum")]
        stat += [("pad-%s-int" % m, mt.pad(ti, ((1, 3), (2, 2)), mode=m, stat_length=((2, 3), (1, 1))),
                  np.pad(ia, ((1, 3), (2, 2)), mode=m, stat_length=((2, 3), (1, 1))))
                 for m in ("mean", "median", "maximum", "minimum")]
        stat += [("pad-mean-int-all", mt.pad(ti, 2, mode="mean"), np.pad(ia, 2, mode="mean")),
                 ("pad-median-f32", mt.pad(mt.tensor(f32), (3, 1), mode="median", stat_length=2),
                  np.pad(f32, (3, 1), mode="median", stat_length=2)),
                 ("pad-mean-bool", mt.pad(mt.tensor(bl), 1, mode="mean"),
                  np.pad(bl, 1, mode="mean")),
                 ("pad-max-3d", mt.pad(tc, ((1, 0), (0, 2), (1, 1)), mode="maximum",
                                       stat_length=9),
                  np.pad(c, ((1, 0), (0, 2), (1, 1)), mode="maximum", stat_length=9))]
        self.run_all(stat)
        # reflect_type="odd" (numpy's rounds: widths past the axis reflect
        # values earlier rounds made; uint8 wraps as numpy's; a length-1
        # axis takes its edge), linear_ramp (integer ramps floored, float32
        # in float32, per-axis end values, corners from the earlier axis)
        # and empty (undefined values: shape and dtype only), all exact
        u8 = (ia * 23 % 256).astype(np.uint8)
        row = np.array([[3.5, -1.25, 8.0]])
        odd = [("pad-odd-%s" % m, mt.pad(ti, ((9, 2), (1, 6)), mode=m, reflect_type="odd"),
                np.pad(ia, ((9, 2), (1, 6)), mode=m, reflect_type="odd")) for m in ("reflect", "symmetric")]
        odd += [("pad-odd-f", mt.pad(ta, (3, 13), mode="reflect", reflect_type="odd"),
                 np.pad(a, (3, 13), mode="reflect", reflect_type="odd")),
                ("pad-odd-u8", mt.pad(mt.tensor(u8), 2, mode="symmetric", reflect_type="odd"),
                 np.pad(u8, 2, mode="symmetric", reflect_type="odd")),
                ("pad-odd-bool", mt.pad(mt.tensor(bl), (1, 2), mode="reflect", reflect_type="odd"),
                 np.pad(bl, (1, 2), mode="reflect", reflect_type="odd")),
                ("pad-odd-row", mt.pad(mt.tensor(row), ((2, 1), (4, 4)), mode="reflect", reflect_type="odd"),
                 np.pad(row, ((2, 1), (4, 4)), mode="reflect", reflect_type="odd")),
                ("pad-odd-3d", mt.pad(tc, ((1, 0), (2, 2), (0, 3)), mode="symmetric", reflect_type="odd"),
                 np.pad(c, ((1, 0), (2, 2), (0, 3)), mode="symmetric", reflect_type="odd")),
                ("pad-even-type", mt.pad(ti, 3, mode="reflect", reflect_type="even"),
                 np.pad(ia, 3, mode="reflect", reflect_type="even"))]
        odd += [("pad-ramp-int", mt.pad(ti, ((3, 2), (4, 1)), mode="linear_ramp", end_values=((-7, 20), (5, -3))),
                 np.pad(ia, ((3, 2), (4, 1)), mode="linear_ramp", end_values=((-7, 20), (5, -3)))),
                ("pad-ramp-f", mt.pad(ta, (2, 5), mode="linear_ramp", end_values=(1.5, -2)),
                 np.pad(a, (2, 5), mode="linear_ramp", end_values=(1.5, -2))),
                ("pad-ramp-f32", mt.pad(mt.tensor(f32), 3, mode="linear_ramp", end_values=0.1),
                 np.pad(f32, 3, mode="linear_ramp", end_values=0.1)),
                ("pad-ramp-u8", mt.pad(mt.tensor(u8), (0, 4), mode="linear_ramp", end_values=255),
                 np.pad(u8, (0, 4), mode="linear_ramp", end_values=255)),
                ("pad-ramp-3d", mt.pad(tc, ((1, 2), (0, 0), (3, 1)), mode="linear_ramp"),
                 np.pad(c, ((1, 2), (0, 0), (3, 1)), mode="linear_ramp"))]
        self.run_all(odd, rtol=0, atol=0)
        got = mt.pad(ti, ((1, 2), (3, 0)), mode="empty")
        self.assertEqual(got.fetch().shape, np.pad(ia, ((1, 2), (3, 0)), mode="empty").shape)
        self.assertEqual(got.fetch().dtype, ia.dtype)
        with self.assertRaisesRegex(ValueError, "can't extend empty axis 0"):
            mt.pad(mt.zeros((0, 2)), 1, mode="linear_ramp")
        with self.assertRaisesRegex(ValueError, "unsupported keyword"):
            mt.pad(ta, 1, mode="linear_ramp", stat_length=2)
        with self.assertRaisesRegex(ValueError, "stat_length of 0"):
            mt.pad(ta, 1, mode="maximum", stat_length=0)
        with self.assertRaisesRegex(ValueError, "unsupported keyword"):
            mt.pad(ta, 1, mode="mean", constant_values=3)
        self.assertEqual(mt.tile(ta, 3).shape, (5, 12))
        self.assertEqual(mt.repeat(ta, 2).shape, (40,))
        self.assertEqual(mt.pad(ta, (1, 2)).shape, (8, 7))
        self.assertEqual(mt.indices((2, 3)).shape, (2, 2, 3))

    def test_numpy_signatures(self):
        """Sorting, searching, statistics, set ops, diagonals, einsum and the
        one-block linear algebra with numpy's arguments (the generic path
        takes inputs first, which is not numpy's order for searchsorted,
        average, cov, bincount or einsum), shapes and dtypes inferred."""
        x, i = XN, IN
        xn = x.copy()
        xn[1, 2] = xn[4, 0] = np.nan
        tx, ti, tn = mt.tensor(x, chunk_size=(4, 3)), mt.tensor(i, chunk_size=5), mt.tensor(xn)
        srt = np.sort(x.ravel())
        w = np.arange(1.0, 9.0)
        m = x[:4, :4] @ x[:4, :4].T + 4 * np.eye(4)
        tm = mt.tensor(m, chunk_size=2)
        with np.errstate(divide="ignore"):
            xinf = x / 0.0
        self.run_all([
            ("sort", mt.sort(ti, axis=0), np.sort(i, axis=0)),
            ("sort-none", mt.sort(ti, axis=None), np.sort(i, axis=None)),
            ("argsort", mt.argsort(ti), np.argsort(i, kind="stable")),
            ("partition-kth", mt.partition(tx, 3, axis=1)[:, 3], np.partition(x, 3, axis=1)[:, 3]),
            ("topk", mt.topk(ti, 3, axis=0), -np.sort(-i, axis=0)[:3]),
            ("searchsorted", mt.searchsorted(mt.tensor(srt), tx, side="right"),
             np.searchsorted(srt, x, side="right")),
            ("searchsorted-scalar", mt.searchsorted(srt, 0.25), np.searchsorted(srt, 0.25)),
            ("digitize", mt.digitize(ti, [-5, 0, 5], right=True), np.digitize(i, [-5, 0, 5], right=True)),
            ("isin", mt.isin(ti, [1, 2, 3], invert=True), np.isin(i, [1, 2, 3], invert=True)),
            ("in1d", mt.in1d(ti, [0, 4]), np.in1d(i, [0, 4])),
            ("median", mt.median(tx, axis=0), np.median(x, axis=0)),
            ("nanmedian", mt.nanmedian(tn, axis=1), np.nanmedian(xn, axis=1)),
            ("percentile", mt.percentile(tx, [10, 90], axis=1, keepdims=True),
             np.percentile(x, [10, 90], axis=1, keepdims=True)),
            ("quantile", mt.quantile(ti, 0.3), np.quantile(i, 0.3)),
            ("nanquantile", mt.nanquantile(tn, [0.5]), np.nanquantile(xn, [0.5])),
            ("average", mt.average(tx, axis=1, weights=w), np.average(x, axis=1, weights=w)),
            ("average-plain", mt.average(ti), np.average(i)),
            ("cov", mt.cov(tx), np.cov(x)), ("cov-y", mt.cov(tx[0], tx[1], ddof=0),
                                             np.cov(x[0], x[1], ddof=0)),
            ("corrcoef", mt.corrcoef(tx, rowvar=False), np.corrcoef(x, rowvar=False)),
            ("allclose", mt.allclose(tx, tx + 1e-9), np.allclose(x, x + 1e-9)),
            ("isclose", mt.isclose(tx, 0.0, atol=0.5), np.isclose(x, 0.0, atol=0.5)),
            ("diag", mt.diag(tx, -1), np.diag(x, -1)), ("diag-1d", mt.diag(tx[0], 2), np.diag(x[0], 2)),
            ("diagonal", mt.diagonal(tx, 1), np.diagonal(x, 1)),
            ("trace", mt.trace(ti, -1), np.trace(i, -1)),
            ("tril", mt.tril(tx, 1), np.tril(x, 1)), ("triu", mt.triu(ti), np.triu(i)),
            ("einsum", mt.einsum("ij,kj->ik", tx, tx), np.einsum("ij,kj->ik", x, x)),
            ("vdot", mt.vdot(tx, tx), np.vdot(x, x)),
            ("round", mt.round(tx, 2), np.round(x, 2)), ("around", mt.around(tx), np.around(x)),
            ("t.round", tx.round(2), x.round(2)), ("sum.round", tx.sum().round(1), x.sum().round(1)),
            ("isposinf", mt.isposinf(tx / 0.0), np.isposinf(xinf)),
            ("inv", mt.linalg.inv(tm), np.linalg.inv(m)), ("det", mt.linalg.det(tm), np.linalg.det(m)),
            ("solve", mt.linalg.solve(tm, mt.tensor(w[:4])), np.linalg.solve(m, w[:4])),
            ("cholesky", mt.linalg.cholesky(tm), np.linalg.cholesky(m)),
            ("norm", mt.linalg.norm(tx, axis=1), np.linalg.norm(x, axis=1)),
            ("norm-inf", mt.linalg.norm(tx, np.inf), np.linalg.norm(x, np.inf)),
            ("matrix_rank", mt.linalg.matrix_rank(tm), np.linalg.matrix_rank(m)),
        ], rtol=1e-10)
        # the lengths of these are data: fetched, they are numpy's
        for name, t, want in [
                ("bincount", mt.bincount(mt.tensor(np.abs(i).ravel()), minlength=12),
                 np.bincount(np.abs(i).ravel(), minlength=12)),
                ("bincount-w", mt.bincount(mt.tensor(np.abs(i[0])), weights=x[0]),
                 np.bincount(np.abs(i[0]), weights=x[0])),
                ("union1d", mt.union1d(ti, [100, -100]), np.union1d(i, [100, -100])),
                ("setdiff1d", mt.setdiff1d(ti, [0, 1, 2]), np.setdiff1d(i, [0, 1, 2]))]:
            self.close(t.fetch(), want, name)
        with self.assertRaises(NotImplementedError):
            mt.average(tx, weights=w, returned=True)

    def test_ops_listing(self):
        r = get(WEB, "/api/v1/ops")
        self.assertEqual(r.status, 200)
        listed = r.json()
        rc, out, err = run_program("mars-run", ["--list-ops"])
        self.assertEqual(rc, 0, err)
        self.assertEqual(json.loads(out), listed)  # one table behind both
        names = {o["name"] for o in listed["ops"]}
        for need in ("ones", "inner", "random.rand", "getitem", "dataframe.groupby_agg"):
            self.assertIn(need, names)
        for o in listed["ops"]:
            # "outputs" only on ops with several results (their count rule)
            self.assertTrue({"name", "kind", "inputs", "params"} <= set(o) <=
                            {"name", "kind", "inputs", "params", "outputs"}, o)
            name = o["name"]
            if name.startswith("dataframe.") or name in ("getitem", "setitem"):
                continue
            obj = mt
            for part in name.split("."):
                obj = getattr(obj, part)  # every listed tensor op is reachable by its name
            self.assertTrue(callable(obj), name)
        # an op known only from the list: the generic function builds its node
        f = mt.generic("clip", {"inputs": "1", "params": ["a_min", "a_max"]})
        self.close(f(mt.tensor(XN), -0.1, a_max=0.1).fetch(), np.clip(XN, -0.1, 0.1))
        with self.assertRaises(AttributeError) as cm:
            mt.no_such_op_anywhere
        self.assertIn("/api/v1/ops", str(cm.exception))


class TestExecution(Base):
    def test_reuse_and_one_task(self):
        a = mt.ones((400, 400), chunk_size=100)
        b = mt.inner(a, a)
        t0 = n_tasks(SESS)
        self.assertIs(b.execute(), b)
        self.assertEqual(n_tasks(SESS), t0 + 1)
        c = b + 1
        doc = c.document()
        self.assertEqual(len(doc["nodes"]), 1)  # b is held: named, not recomputed
        self.assertEqual(doc["nodes"][0]["inputs"], [b.key, 1])
        d, e = (c * 2).sum(), c.mean(axis=0)
        r = marsc.execute(d, e)
        self.assertEqual(r, (d, e))
        self.assertEqual(n_tasks(SESS), t0 + 2)  # several tensors, one task
        self.close(d.fetch(), np.float64(401 * 2 * 400 * 400))
        self.close(e.fetch(), np.full(400, 401.0))
        self.assertEqual(n_tasks(SESS), t0 + 2)  # fetch of executed tensors runs nothing

    def test_fetch_streams_and_uploads(self):
        big = RNG.standard_normal((1500, 1100))
        t = mt.tensor(big, chunk_size=400)
        self.assertEqual(t.document()["nodes"], [])  # a local array: uploaded, not inlined
        u = t * 1
        got = u.fetch()
        self.close(got, big)
        info = get(WEB, "/api/v1/sessions/%s/tensors/%s" % (SESS.session_id, t.key)).json()
        self.assertEqual(info["chunk_size"][0], [400, 400, 400, 300])
        # a numpy array given straight to an op is uploaded too
        v = mt.tensor(XN) + np.arange(8.0)
        self.close(v.fetch(), XN + np.arange(8.0))
        # 0-d results come back as numpy scalars
        s = mt.tensor(XN).sum().fetch()
        self.assertIsInstance(s, np.float64)

    def test_upload_edge_cases(self):
        # 0-d, empty, Fortran-ordered and boolean arrays keep their shapes and values
        for arr in (np.float64(3.5), np.zeros((0, 3)), np.asfortranarray(XN), XN > 0,
                    np.arange(7, dtype=np.int32)):
            got = (mt.tensor(arr) * 1).fetch() if np.asarray(arr).dtype != bool else \
                mt.logical_not(mt.tensor(arr)).fetch()
            want = np.asarray(arr) * 1 if np.asarray(arr).dtype != bool else ~np.asarray(arr)
            self.close(got, want[()] if want.ndim == 0 else want, "upload %r" % (arr.shape,))
        # the local array is copied when the tensor is made
        loc = np.ones(4)
        t = mt.tensor(loc)
        loc[:] = 5
        self.close(t.sum().fetch(), np.float64(4.0))
        # iteration: one tensor per row
        self.close(np.array([r.fetch() for r in mt.tensor(XN[:3])]), XN[:3])
        with self.assertRaises(TypeError):
            iter(md.DataFrame(XN))

    def test_futures(self):
        a = mt.random.rand(1200, 1200, chunk_size=300)
        b = mt.inner(a, a).sum()
        f = b.execute(wait=False)
        self.assertIsInstance(f, marsc.Future)
        p = f.progress()
        self.assertTrue(0.0 <= p <= 1.0, p)
        self.assertIs(f.result(timeout=120), b)
        self.assertTrue(f.done())
        self.assertEqual(f.progress(), 1.0)
        self.assertFalse(f.cancel())  # already ended
        an = a.fetch()
        self.close(b.fetch(), np.inner(an, an).sum(), rtol=1e-9)
        # several targets
        f2 = marsc.execute(a.max(), a.min(), wait=False)
        mx, mn = f2.result(timeout=60)
        self.close(mx.fetch(), an.max())

    def test_timeout_and_cancel(self):
        a = mt.random.rand(4000, 4000, chunk_size=250)
        b = mt.inner(a, a)
        f = b.execute(wait=False)
        with self.assertRaises(TimeoutError):
            f.result(timeout=0.2)
        self.assertTrue(f.cancel())
        with self.assertRaises(marsc.TaskError) as cm:
            f.result(timeout=60)
        self.assertEqual(cm.exception.status, "cancelled")
        self.assertIn("cancelled", str(cm.exception))
        self.assertTrue(f.done() and f.cancelled())

    def test_eager_mode(self):
        marsc.options.eager_mode = True
        try:
            t0 = n_tasks(SESS)
            a = mt.ones((30, 30), chunk_size=10)
            self.assertIn(a.key, SESS._held)  # ran when made
            b = a * 3 + mt.arange(30.0)
            self.assertIn(b.key, SESS._held)
            self.assertEqual(n_tasks(SESS), t0 + 4)  # ones, multiply, arange, add
            c = b.sum(axis=0)
            self.assertEqual(len(c.document()["nodes"]), 0)
            self.close(c.fetch(), (np.ones((30, 30)) * 3 + np.arange(30.0)).sum(axis=0))
            with self.assertRaises(marsc.GraphError):  # errors come at once too
                mt.inner(a, mt.ones((3, 4)))
        finally:
            marsc.options.eager_mode = False

    def test_progress_bar(self):
        master, slave = pty.openpty()
        old = sys.stderr
        sys.stderr = os.fdopen(slave, "w")
        try:
            a = mt.random.rand(800, 800, chunk_size=100)
            mt.inner(a, a).sum().execute(show_progress=True)
        finally:
            sys.stderr.flush()
            sys.stderr.close()
            sys.stderr = old
        out = b""
        os.set_blocking(master, False)
        try:
            while True:
                chunk = os.read(master, 65536)
                if not chunk:
                    break
                out += chunk
        except (BlockingIOError, OSError):
            pass
        os.close(master)
        text = out.decode()
        self.assertIn("100%", text)
        self.assertIn("[" + "#" * 30 + "]", text)
        self.assertEqual(text.strip().count("\n"), 0, "one line: %r" % text)  # redrawn with \r


class TestDataFrames(Base):
    def test_from_tensor(self):
        an = (np.arange(3000.0).reshape(1000, 3) * 7) % 13
        pdf = pd.DataFrame(an, columns=["x", "y", "z"])
        df = md.DataFrame(mt.tensor(an, chunk_size=250), columns=["x", "y", "z"])
        df2 = md.DataFrame(an, columns=["x", "y", "z"], chunk_rows=300)
        f = df[df.x > 5]
        g = df.groupby(["y"]).agg(out=("z", "sum"), n=("x", "count"))
        g2 = df.groupby(["y", "x"]).agg(m=("z", "max"))
        s = df2.sort_values(["y", "x"], ascending=[False, True])
        right = md.DataFrame(np.array([[0.0, 100.0], [1.0, 101.0], [5.0, 105.0]]), columns=["x", "w"])
        m = df.merge(right, on=["x"], how="inner")
        mo = df.merge(right, on=["x"], how="outer")
        c = md.concat([f, df.head(3)], ignore_index=True)
        res = marsc.execute(df.sum(), df.describe(), f, g, g2, s, m, df.mean(), df.x.sum(),
                            df.std(), (df.x * 2 + df.y).max(), df.head(7), df.count(),
                            mo[mo.z > 3], c)
        pright = pd.DataFrame({"x": [0.0, 1.0, 5.0], "w": [100.0, 101.0, 105.0]})
        pmo = pdf.merge(pright, on=["x"], how="outer")
        want = [pdf.sum(), pdf.describe(), pdf[pdf.x > 5],
                pdf.groupby(["y"]).agg(out=("z", "sum"), n=("x", "count")),
                pdf.groupby(["y", "x"]).agg(m=("z", "max")),
                pdf.sort_values(["y", "x"], ascending=[False, True], kind="mergesort"),
                pdf.merge(pd.DataFrame({"x": [0.0, 1.0, 5.0], "w": [100.0, 101.0, 105.0]}), on=["x"]),
                pdf.mean(), pdf.x.sum(), pdf.std(), (pdf.x * 2 + pdf.y).max(), pdf.head(7), pdf.count(),
                pmo[pmo.z > 3], pd.concat([pdf[pdf.x > 5], pdf.head(3)], ignore_index=True)]
        for i, (t, w) in enumerate(zip(res, want)):
            got = t.fetch()
            if isinstance(w, pd.DataFrame):
                self.assertIsInstance(got, pd.DataFrame, i)
                # merges in pandas' row order, with their index
                pd.testing.assert_frame_equal(got, w, check_index_type=False, check_dtype=False)
                self.assertEqual(list(got.index.names), list(w.index.names), "index names %d" % i)
            elif isinstance(w, pd.Series):
                self.assertIsInstance(got, pd.Series, i)
                pd.testing.assert_series_equal(got, w, check_index_type=False, check_dtype=False)
            else:
                self.assertAlmostEqual(float(got), float(w), places=6)
        # query, merge by left_on/right_on with suffixes and on the index,
        # join, set_index and reset_index, each against pandas exactly
        # (the merges take the small table whole: DFJ_MERGE_BCAST)
        r2 = md.DataFrame(np.array([[0.0, 1.0], [1.0, 2.0], [5.0, 3.0], [1.0, 4.0]]),
                          columns=["key", "z"])
        pr2 = pd.DataFrame({"key": [0.0, 1.0, 5.0, 1.0], "z": [1.0, 2.0, 3.0, 4.0]})
        q = df.query("x > 5 and z < 9")
        ml = df.merge(r2, how="left", left_on="x", right_on="key", suffixes=("_l", "_r"))
        mr = r2.merge(df, "right", left_on=["key"], right_on=["x"])
        mi = df.set_index("x").merge(r2.set_index("key"), left_index=True, right_index=True,
                                     how="inner")
        jn = df.set_index("y").join(right.set_index("x"), how="left")
        ri = q.reset_index()
        pos = df.merge(right, ["x"])  # an earlier client's positional on
        jo = df.set_index("y").join(right.set_index("x"), how="outer")
        jk = df.join(right.set_index("x"), on="x", rsuffix="_r")  # left's index kept
        jh = df.set_index("y").join(right.set_index("x"), "inner")  # join(other, how)
        # its mirror: left's index with right's columns, right's index kept
        mk = right.set_index("x").merge(df, how="outer", left_index=True, right_on="x")
        res = marsc.execute(q, ml, mr, mi, jn, ri, pos, jo, jk, jh, mk)
        pq = pdf.query("x > 5 and z < 9")
        want = [pq,
                pdf.merge(pr2, how="left", left_on="x", right_on="key", suffixes=("_l", "_r")),
                pr2.merge(pdf, "right", left_on=["key"], right_on=["x"]),
                pdf.set_index("x").merge(pr2.set_index("key"), left_index=True,
                                         right_index=True, how="inner"),
                pdf.set_index("y").join(pright.set_index("x"), how="left"),
                pq.reset_index(), pdf.merge(pright, on=["x"]),
                pdf.set_index("y").join(pright.set_index("x"), how="outer"),
                pdf.join(pright.set_index("x"), on="x", rsuffix="_r"),
                pdf.set_index("y").join(pright.set_index("x"), how="inner"),
                pright.set_index("x").merge(pdf, how="outer", left_index=True, right_on="x")]
        for i, (t, w) in enumerate(zip(res, want)):
            got = t.fetch()
            # joins on the index too in pandas' order (sorted by label where
            # a label repeats, and outer)
            pd.testing.assert_frame_equal(got, w, check_index_type=False, check_dtype=False)
            self.assertEqual(list(got.index.names), list(w.index.names), "index names %d" % i)
        # a DataFrame as a tensor again
        tt = df.head(4).to_tensor().fetch()
        self.close(tt, an[:4])

    def test_upload_read_csv(self):
        d = tempfile.mkdtemp()
        try:
            path = os.path.join(d, "pyclient.csv")
            rng = np.random.default_rng(3)
            pdf = pd.DataFrame({"k": rng.choice(["a", "b", "c"], 700), "i": rng.integers(0, 50, 700),
                                "f": rng.standard_normal(700).round(4)})
            pdf.to_csv(path, index=False)
            self.assertEqual(SESS.upload(path), "pyclient.csv")
            df = md.read_csv("pyclient.csv", chunk_bytes=2000)
            before = n_tasks(SESS)
            g = df.groupby("k").agg(tot=("i", "sum"), mf=("f", "mean"))
            self.assertIsNone(df._columns)  # not known before it runs
            self.assertEqual(df.columns, ["k", "i", "f"])  # learnt from head(0)
            self.assertEqual(n_tasks(SESS) - before, 1)
            df.execute()
            self.assertEqual(df.columns, ["k", "i", "f"])  # the server's, once executed
            self.assertEqual(df.dtypes.to_dict(), pdf.dtypes.to_dict())
            res = marsc.execute(df.describe(), g, df[df.i < 10].sort_values("f"))
            pd.testing.assert_frame_equal(res[0].fetch(), pdf.describe())
            pd.testing.assert_frame_equal(res[1].fetch(), pdf.groupby("k").agg(tot=("i", "sum"), mf=("f", "mean")))
            pd.testing.assert_frame_equal(res[2].fetch(), pdf[pdf.i < 10].sort_values("f", kind="mergesort"))
            # another separator: a semicolon file whose text holds commas,
            # and decimal commas
            semi = os.path.join(d, "semi.csv")
            pdf.assign(k=pdf.k + ", " + pdf.i.astype(str)).to_csv(semi, index=False, sep=";", decimal=",")
            SESS.upload(semi)
            want = pd.read_csv(semi, sep=";", decimal=",")
            self.assertEqual(str(want.f.dtype), "float64")
            pd.testing.assert_frame_equal(md.read_csv("semi.csv", sep=";", decimal=",").fetch(), want)
            want = pd.read_csv(semi, sep=";")
            pd.testing.assert_frame_equal(md.read_csv("semi.csv", sep=";", chunk_bytes=900).fetch(), want)
            pd.testing.assert_series_equal(md.read_csv("semi.csv", delimiter=";").groupby("k").i.sum().fetch(),
                                           want.groupby("k").i.sum())
            with self.assertRaisesRegex(marsc.GraphError, "several characters"):
                md.read_csv("semi.csv", sep=";;").fetch()
            with self.assertRaisesRegex(ValueError, "only specify one"):
                md.read_csv("semi.csv", sep=";", delimiter=";")
            # whitespace-separated, as R's write.table writes (row names:
            # pandas' implicit index), by sep r"\s+" or delim_whitespace
            rt = os.path.join(d, "rtable.txt")
            with open(rt, "w") as f:
                f.write('"k" "i" "f"\n' + "".join(
                    '"r%d" "%s"\t%d   %s \n' % (q, k, i, x)
                    for q, (k, i, x) in enumerate(zip(pdf.k, pdf.i, pdf.f))))
            SESS.upload(rt)
            want = pd.read_csv(rt, sep=r"\s+")
            self.assertEqual(want.index[0], "r0")
            pd.testing.assert_frame_equal(md.read_csv("rtable.txt", sep=r"\s+").fetch(), want)
            pd.testing.assert_series_equal(
                md.read_csv("rtable.txt", delim_whitespace=True, chunk_bytes=700)
                .groupby("k").f.max().fetch(), want.groupby("k").f.max())
            with self.assertRaisesRegex(ValueError, "only specify one"):
                md.read_csv("rtable.txt", sep=" ", delim_whitespace=True)
            # comment: a commented title, notes after values, a row commented out
            cm = os.path.join(d, "commented.csv")
            with open(cm, "w") as f:
                f.write("# from the field log\nk,i\n" + "".join(
                    "%s%s,%d%s\n" % ("#" if q % 9 == 4 else "", k, i, " # ok" if q % 5 == 0 else "")
                    for q, (k, i) in enumerate(zip(pdf.k, pdf.i))))
            SESS.upload(cm)
            want = pd.read_csv(cm, comment="#")
            self.assertLess(len(want), len(pdf))
            pd.testing.assert_frame_equal(md.read_csv("commented.csv", comment="#",
                                                      chunk_bytes=300).fetch(), want)
            # a report: a title and a date over the header (header=2),
            # quotes "'", yes/no answers (true_values/false_values); a
            # file of stray quotes read with quoting=csv.QUOTE_NONE
            rp = os.path.join(d, "report.csv")
            with open(rp, "w") as f:
                f.write("Weekly report\n\nissued 2024-05-06\nk,ok,i\n" + "".join(
                    "'%s, %d',%s,%d\n" % (k, q % 4, "yes" if i % 3 else "no", i)
                    for q, (k, i) in enumerate(zip(pdf.k, pdf.i))))
            SESS.upload(rp)
            kw = dict(header=2, quotechar="'", true_values=["yes"], false_values=["no"])
            want = pd.read_csv(rp, **kw)
            self.assertEqual(str(want.ok.dtype), "bool")
            pd.testing.assert_frame_equal(md.read_csv("report.csv", chunk_bytes=500, **kw).fetch(), want)
            pd.testing.assert_series_equal(md.read_csv("report.csv", **kw).groupby("ok").i.sum().fetch(),
                                           want.groupby("ok").i.sum())
            sq = os.path.join(d, "stray.csv")
            with open(sq, "w") as f:
                f.write("i,t\n" + "".join('%d,%s\n' % (q, ['5" tall', '"open', 'x'][q % 3]) for q in range(90)))
            SESS.upload(sq)
            pd.testing.assert_frame_equal(md.read_csv("stray.csv", quoting=csv.QUOTE_NONE).fetch(),
                                          pd.read_csv(sq, quoting=csv.QUOTE_NONE))
            # skipinitialspace: a hand-written file, spaces after the commas
            # and before quotes (a quoted comma and line end), " NA" and
            # " True"; cut in small chunks, the header's names stripped
            hw = os.path.join(d, "handwritten.csv")
            with open(hw, "w") as f:
                f.write("city, note,  n, ok\n" + "".join(
                    '%s,  %s, %s,%s\n' % (k, ['"a, b"', '"two\nlines"', "plain", "NA"][q % 4],
                                          "NA" if q % 7 == 3 else i, " True" if i % 2 else "False")
                    for q, (k, i) in enumerate(zip(pdf.k, pdf.i))))
            SESS.upload(hw)
            want = pd.read_csv(hw, skipinitialspace=True)
            self.assertEqual(list(want.columns), ["city", "note", "n", "ok"])
            got = md.read_csv("handwritten.csv", skipinitialspace=True, chunk_bytes=200)
            pd.testing.assert_frame_equal(got.fetch(), want)
            pd.testing.assert_series_equal(got.groupby("ok").n.sum().fetch(), want.groupby("ok").n.sum())
            pd.testing.assert_frame_equal(  # names as the function sees them: stripped
                md.read_csv("handwritten.csv", skipinitialspace=True, usecols=lambda c: c in ("n", "ok")).fetch(),
                pd.read_csv(hw, skipinitialspace=True, usecols=lambda c: c in ("n", "ok")))
            pd.testing.assert_frame_equal(md.read_csv("handwritten.csv", chunk_bytes=300).fetch(),
                                          pd.read_csv(hw))  # without it: " note", '  "a', ...
            # on_bad_lines="skip": lines of one field too many dropped, in
            # every chunk; nrows counts the lines kept
            bl = os.path.join(d, "badlines.csv")
            with open(bl, "w") as f:
                f.write("k,i\n" + "".join("%s,%d%s\n" % (k, i, ",x" if q % 6 == 5 else "")
                                          for q, (k, i) in enumerate(zip(pdf.k, pdf.i))))
            SESS.upload(bl)
            want = pd.read_csv(bl, on_bad_lines="skip")
            self.assertLess(len(want), len(pdf))
            got = md.read_csv("badlines.csv", on_bad_lines="skip", chunk_bytes=150)
            pd.testing.assert_frame_equal(got.fetch(), want)
            pd.testing.assert_series_equal(got.groupby("k").i.sum().fetch(), want.groupby("k").i.sum())
            pd.testing.assert_frame_equal(md.read_csv("badlines.csv", on_bad_lines="skip", nrows=40).fetch(),
                                          pd.read_csv(bl, on_bad_lines="skip", nrows=40))
            with self.assertRaisesRegex(Exception, "Expected 2 fields in line 7, saw 3"):
                md.read_csv("badlines.csv").fetch()
            with self.assertRaisesRegex(NotImplementedError, "'skip' drops the same lines"):
                md.read_csv("badlines.csv", on_bad_lines="warn")
            # skip_blank_lines=False: the blank lines are rows of NaN (in
            # every chunk), the int column float64; the default skips them
            bk = os.path.join(d, "blanks.csv")
            with open(bk, "w") as f:
                f.write("k,i\n" + "".join("%s,%d\n%s" % (k, i, "\n" if q % 5 == 2 else "")
                                          for q, (k, i) in enumerate(zip(pdf.k, pdf.i))))
            SESS.upload(bk)
            want = pd.read_csv(bk, skip_blank_lines=False)
            self.assertEqual(str(want.i.dtype), "float64")
            got = md.read_csv("blanks.csv", skip_blank_lines=False, chunk_bytes=120)
            pd.testing.assert_frame_equal(got.fetch(), want)
            pd.testing.assert_series_equal(got.i.isna().groupby(got.k).sum().fetch(),
                                           want.i.isna().groupby(want.k).sum())
            pd.testing.assert_frame_equal(md.read_csv("blanks.csv", chunk_bytes=120).fetch(), pd.read_csv(bk))
            # index_col=False: lines ending in a separator (what some
            # exporters write) are no implicit index; index_col=None makes one
            tr = os.path.join(d, "trailing.csv")
            with open(tr, "w") as f:
                f.write("k,i\n" + "".join("%s,%d,\n" % (k, i) for k, i in zip(pdf.k, pdf.i)))
            SESS.upload(tr)
            want = pd.read_csv(tr, index_col=False)
            self.assertEqual(list(want.columns), ["k", "i"])
            got = md.read_csv("trailing.csv", index_col=False, chunk_bytes=200)
            pd.testing.assert_frame_equal(got.fetch(), want)
            pd.testing.assert_series_equal(got.groupby("k").i.sum().fetch(), want.groupby("k").i.sum())
            pd.testing.assert_frame_equal(md.read_csv("trailing.csv", chunk_bytes=200).fetch(), pd.read_csv(tr))
            # skipfooter: a report's total line and a note under the data
            ft = os.path.join(d, "footer.csv")
            with open(ft, "w") as f:
                f.write("k,i\n" + "".join("%s,%d\n" % (k, i) for k, i in zip(pdf.k, pdf.i)) +
                        "Total,%d,rows,%d\n\n(exported by hand)\n" % (pdf.i.sum(), len(pdf)))
            SESS.upload(ft)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", pd.errors.ParserWarning)  # pandas' python engine
                want = pd.read_csv(ft, skipfooter=3)
            self.assertEqual(str(want.i.dtype), "int64")
            got = md.read_csv("footer.csv", skipfooter=3, chunk_bytes=200)
            pd.testing.assert_frame_equal(got.fetch(), want)
            pd.testing.assert_series_equal(got.groupby("k").i.sum().fetch(), want.groupby("k").i.sum())
            with self.assertRaisesRegex(ValueError, "'skipfooter' not supported with 'nrows'"):
                md.read_csv("footer.csv", skipfooter=1, nrows=3)
            # chunksize and iterator: pandas' TextFileReader, the chunks'
            # indexes going on; get_chunk, read and the context manager
            with pd.read_csv(path, chunksize=300) as it:
                pchunks = list(it)
            chunks = list(md.read_csv("pyclient.csv", chunksize=300, chunk_bytes=3000))
            self.assertEqual(len(chunks), 3)
            self.assertEqual(len(chunks), len(pchunks))
            for got_c, want_c in zip(chunks, pchunks):
                pd.testing.assert_frame_equal(got_c.fetch(), want_c)
            with md.read_csv("pyclient.csv", iterator=True) as it, \
                    pd.read_csv(path, iterator=True) as pit:
                pd.testing.assert_frame_equal(it.get_chunk(5).fetch(), pit.get_chunk(5))
                pd.testing.assert_frame_equal(it.read(12).fetch(), pit.read(12))
                pd.testing.assert_frame_equal(it.read().fetch(), pit.read())
                with self.assertRaises(StopIteration):
                    it.get_chunk(3)
            # dayfirst: a European file's dates through parse_dates and to_datetime
            eu = os.path.join(d, "eu_days.csv")
            days = pd.date_range("2024-01-01", periods=len(pdf), freq="37h")
            with open(eu, "w") as f:
                f.write("when,i\n" + "".join("%s,%d\n" % (t.strftime("%d/%m/%Y %H:%M"), i)
                                             for t, i in zip(days, pdf.i)))
            SESS.upload(eu)
            want = pd.read_csv(eu, parse_dates=["when"], dayfirst=True)
            self.assertTrue((want.when == days).all())
            got = md.read_csv("eu_days.csv", parse_dates=["when"], dayfirst=True, chunk_bytes=300)
            pd.testing.assert_frame_equal(got.fetch(), want)
            raw = md.read_csv("eu_days.csv")
            pd.testing.assert_series_equal(md.to_datetime(raw.when, dayfirst=True).fetch(), want.when)
            # skiprows as line numbers: the title's lines, and a units line under the header
            with open(rp) as f:
                lines = f.read().split("\n")
            lines.insert(4, "-,-,units")
            with open(rp, "w") as f:
                f.write("\n".join(lines))
            SESS.upload(rp)
            kw = dict(skiprows=[0, 1, 2, 4], quotechar="'", true_values=["yes"], false_values=["no"])
            want = pd.read_csv(rp, **kw)
            self.assertEqual(str(want.i.dtype), "int64")
            pd.testing.assert_frame_equal(md.read_csv("report.csv", chunk_bytes=300, **kw).fetch(), want)
            with self.assertRaisesRegex(NotImplementedError, "lists of header rows"):
                md.read_csv("report.csv", header=[0, 1])
            with self.assertRaisesRegex(TypeError, "Expected list, got str"):
                md.read_csv("report.csv", true_values="yes")
            # dtype: ids as text (leading zeros kept), ints as floats
            for dt in (str, {"i": np.float64, "f": "float64", "k": str}, {"i": "int64", "f": float}):
                pd.testing.assert_frame_equal(md.read_csv("pyclient.csv", dtype=dt).fetch(),
                                              pd.read_csv(path, dtype=dt))
            # index_col: what to_csv writes with an index, by position or name
            ix = os.path.join(d, "ix.csv")
            pdf.head(50).to_csv(ix)
            pdf.head(50).rename_axis("row").to_csv(os.path.join(d, "ixn.csv"))
            SESS.upload(ix)
            SESS.upload(os.path.join(d, "ixn.csv"))
            for name, ic in (("ix.csv", 0), ("ixn.csv", 0), ("ixn.csv", "row"), ("ixn.csv", [0, "k"]),
                             ("ix.csv", ["k"])):
                pd.testing.assert_frame_equal(md.read_csv(name, index_col=ic, chunk_bytes=300).fetch(),
                                              pd.read_csv(os.path.join(d, name), index_col=ic))
            # a file without a header line: header=None (columns 0..n-1), names,
            # usecols by position
            nh = os.path.join(d, "nohead.csv")
            pdf.head(80).to_csv(nh, index=False, header=False)
            SESS.upload(nh)
            for kw in ({"header": None}, {"names": ["a", "b", "c"]}, {"header": None, "usecols": [2, 0]},
                       {"names": ["a", "b", "c", "d"]}, {"names": ["a", "b", "c"], "usecols": ["c", "a"]}):
                got = md.read_csv("nohead.csv", **kw)
                pd.testing.assert_frame_equal(got.fetch(), pd.read_csv(nh, **kw))
            g = md.read_csv("nohead.csv", header=None).groupby(0)[1].sum()
            pd.testing.assert_series_equal(g.fetch(), pd.read_csv(nh, header=None).groupby(0)[1].sum())
            # na_values and keep_default_na
            na = os.path.join(d, "na.csv")
            with open(na, "w") as f:
                f.write("a,b,c\n1,-999,x\n-,2.5,n/a\n,3.5,NA\n?,-999.00,y\n")
            SESS.upload(na)
            for kw in ({"na_values": ["-", "?"]}, {"na_values": -999}, {"na_values": {"c": "n/a", "b": [-999]}},
                       {"keep_default_na": False}, {"keep_default_na": False, "na_values": [""]}):
                pd.testing.assert_frame_equal(md.read_csv("na.csv", **kw).fetch(), pd.read_csv(na, **kw))
            # thousands beside a decimal comma
            eu = os.path.join(d, "eu.csv")
            pdf.assign(big=pdf.f * 1e6).to_csv(eu, index=False, sep=";", decimal=",")
            with open(eu) as f:
                text = f.read()
            with open(eu, "w") as f:  # 1234567,8 written as 1.234.567,8
                f.write(re.sub(r"(?<=\d)(?=(\d{3})+,)", ".", text))
            SESS.upload(eu)
            kw = {"sep": ";", "decimal": ",", "thousands": "."}
            pd.testing.assert_frame_equal(md.read_csv("eu.csv", **kw).fetch(), pd.read_csv(eu, **kw))
            # skiprows and nrows
            for kw in ({"skiprows": 2}, {"nrows": 3}, {"skiprows": 1, "header": None, "nrows": 2}):
                pd.testing.assert_frame_equal(md.read_csv("na.csv", **kw).fetch(), pd.read_csv(na, **kw))
            # rename_axis: named, unnamed, by a dict, on a Series and a groupby's levels
            t = md.read_csv("pyclient.csv")
            pd.testing.assert_frame_equal(t.set_index("k").rename_axis("key").fetch(),
                                          pdf.set_index("k").rename_axis("key"))
            pd.testing.assert_series_equal(t.set_index("k").i.rename_axis(None).fetch(),
                                           pdf.set_index("k").i.rename_axis(None))
            gb = t.groupby(["k", "i"]).f.sum().rename_axis(index={"i": "n"})
            pd.testing.assert_series_equal(gb.fetch(), pdf.groupby(["k", "i"]).f.sum().rename_axis(index={"i": "n"}))
            # floats that are not whole fail the job that reads them, naming the value
            with self.assertRaisesRegex(marsc.TaskError, "column 'f': '-?[0-9.]+' does not parse as int64"):
                md.read_csv("pyclient.csv", dtype={"f": int}).fetch()
            with self.assertRaisesRegex(marsc.GraphError, "reads a column as object"):
                md.read_csv("pyclient.csv", dtype={"f": "float32"}).fetch()
        finally:
            shutil.rmtree(d)

    def test_more_frame_methods(self):
        """pandas' row, cleaning, running and ranking methods on a frame with
        missing values, each against pandas exactly (NaN literals included)."""
        d = tempfile.mkdtemp()
        try:
            path = os.path.join(d, "methods.csv")
            rng = np.random.default_rng(8)
            n = 400
            x = rng.integers(0, 40, n) * 0.25
            x[rng.random(n) < 0.2] = np.nan
            pdf = pd.DataFrame({"k": rng.choice(["a", "b", "c"], n), "i": rng.integers(-9, 9, n),
                                "x": x})
            pdf.to_csv(path, index=False)
            SESS.upload(path)
            pdf = pd.read_csv(path)
            df = md.read_csv("methods.csv", chunk_bytes=700)
            num, pnum = df[["i", "x"]], pdf[["i", "x"]]
            pairs = [
                (df.tail(6), pdf.tail(6)), (df.sort_index(ascending=False),
                                            pdf.sort_index(ascending=False)),
                (df.sample(n=7, random_state=3), pdf.sample(n=7, random_state=3)),
                (df.nlargest(9, "x"), pdf.nlargest(9, "x")),
                (df.nsmallest(5, ["i"], keep="last"), pdf.nsmallest(5, ["i"], keep="last")),
                (df.nsmallest(3, "i", keep="all"), pdf.nsmallest(3, "i", keep="all")),
                (df.i.nlargest(2, keep="all"), pdf.i.nlargest(2, keep="all")),
                (df.drop_duplicates(["k", "i"]), pdf.drop_duplicates(["k", "i"])),
                (df.dropna(), pdf.dropna()), (df.fillna(method="ffill"), pdf.fillna(method="ffill")),
                (df.fillna({"x": -1.0}), pdf.fillna({"x": -1.0})),
                (df.replace(3, 30), pdf.replace(3, 30)),
                (num.replace(np.nan, -1.0), pnum.replace(np.nan, -1.0)),
                (df.x.isin([0.5, np.nan]), pdf.x.isin([0.5, np.nan])),
                (df.sample(random_state=4), pdf.sample(random_state=4)),
                (num.clip(lower=-2, upper=4), pnum.clip(lower=-2, upper=4)),
                (num.round(1), pnum.round(1)), (df.isna(), pdf.isna()), (df.notna(), pdf.notna()),
                (df.k.isin(["a", "c"]), pdf.k.isin(["a", "c"])),
                (num.cumsum(), pnum.cumsum()), (num.cummax(), pnum.cummax()),
                (num.cummin(), pnum.cummin()), (num.diff(2), pnum.diff(2)),
                (num.ewm(span=5).mean(), pnum.ewm(span=5).mean()),
                (df.x.ewm(alpha=0.3, adjust=False).mean(),
                 pdf.x.ewm(alpha=0.3, adjust=False).mean()),
                (num.ewm(halflife=2, min_periods=3).sum(),
                 pnum.ewm(halflife=2, min_periods=3).sum()),
                (num.ewm(span=10).std(), pnum.ewm(span=10).std()),
                (df.x.ewm(com=3, adjust=False).var(bias=True),
                 pdf.x.ewm(com=3, adjust=False).var(bias=True)),
                (num.expanding().mean(), pnum.expanding().mean()),
                (df.x.expanding(min_periods=4).std(), pdf.x.expanding(min_periods=4).std()),
                (num.shift(-1), pnum.shift(-1)), (num.rank(method="min"), pnum.rank(method="min")),
                (df.k.value_counts(), pdf.k.value_counts()), (num.median(), pnum.median()),
                (df.rename(columns={"x": "xx"}), pdf.rename(columns={"x": "xx"})),
                (df.drop(columns="i"), pdf.drop(columns="i")),
                (df.pivot_table(values="i", index="k", aggfunc="sum"),
                 pdf.pivot_table(values="i", index="k", aggfunc="sum")),
                (df.pivot_table(values="x", index="k", columns="i", aggfunc="count"),
                 pdf.pivot_table(values="x", index="k", columns="i", aggfunc="count"))]
            res = marsc.execute(*[t for t, _ in pairs])
            for i, (t, (_, w)) in enumerate(zip(res, pairs)):
                got = t.fetch()
                if isinstance(w, pd.DataFrame):
                    pd.testing.assert_frame_equal(got, w, check_index_type=False,
                                                  check_column_type=False, obj="pair %d" % i)
                else:
                    pd.testing.assert_series_equal(got, w, check_index_type=False,
                                                   obj="pair %d" % i)
            # any and all: a bool Series of every column, and numpy bools
            pd.testing.assert_series_equal(df.any().fetch(), pdf.any(), check_index_type=False)
            pd.testing.assert_series_equal((num > 0).all().fetch(), (pnum > 0).all(),
                                           check_index_type=False)
            for t, w in ((df.x.any(), pdf.x.any()), ((df.i > 8).any(), (pdf.i > 8).any()),
                         (df.k.all(), pdf.k.all())):
                got = t.fetch()
                self.assertEqual((bool(got), got.dtype), (bool(w), np.dtype(bool)))
            # where, mask and between
            pairs = [(df.i.where(df.x > 3), pdf.i.where(pdf.x > 3)),
                     (df.x.where(df.i < 0, -1.5), pdf.x.where(pdf.i < 0, -1.5)),
                     (df.i.mask(df.i > 2, 0), pdf.i.mask(pdf.i > 2, 0)),
                     (num.where(num > 1), pnum.where(pnum > 1)),
                     (num.mask(num < 0, -1), pnum.mask(pnum < 0, -1)),
                     (df.x.between(2, 5), pdf.x.between(2, 5)),
                     (df.i.between(-3, 3, inclusive="neither"),
                      pdf.i.between(-3, 3, inclusive="neither")),
                     (df[df.x.between(1, 4, inclusive="left")],
                      pdf[pdf.x.between(1, 4, inclusive="left")]),
                     (df.k.where(df.i > 0), pdf.k.where(pdf.i > 0)),
                     (df.k.mask(df.x < 2, "low"), pdf.k.mask(pdf.x < 2, "low"))]
            for i, (t, w) in enumerate(zip(marsc.execute(*[t for t, _ in pairs]), pairs)):
                got, w = t.fetch(), w[1]
                if isinstance(w, pd.DataFrame):
                    pd.testing.assert_frame_equal(got, w, check_index_type=False,
                                                  obj="where %d" % i)
                else:
                    pd.testing.assert_series_equal(got, w, check_index_type=False,
                                                   obj="where %d" % i)
        finally:
            shutil.rmtree(d)

    def test_dates(self):
        """read_csv(parse_dates=...) gives datetime64[ns] columns; the dt
        accessor, a groupby by month and a sort by date come back as
        pandas gives them."""
        d = tempfile.mkdtemp()
        try:
            path = os.path.join(d, "dates.csv")
            rng = np.random.default_rng(5)
            when = (np.datetime64("2023-01-01") + rng.integers(0, 400 * 86400, 500)
                    .astype("timedelta64[s]")).astype(str)
            when[::17] = ""
            pd.DataFrame({"when": when, "v": rng.integers(0, 9, 500)}).to_csv(path, index=False)
            SESS.upload(path)
            pdf = pd.read_csv(path, parse_dates=["when"])
            df = md.read_csv("dates.csv", chunk_bytes=1500, parse_dates=["when"])
            df.execute()
            self.assertEqual(str(df.dtypes["when"]), "datetime64[ns]")
            a = df.assign(month=df.when.dt.month, wd=df.when.dt.dayofweek)
            g = df.assign(day=df.when.dt.date).groupby("day").agg(n=("v", "count"))
            res = marsc.execute(df, a, df.sort_values("when"), g)
            pd.testing.assert_frame_equal(res[0].fetch(), pdf)
            pd.testing.assert_frame_equal(
                res[1].fetch(), pdf.assign(month=pdf.when.dt.month, wd=pdf.when.dt.dayofweek))
            pd.testing.assert_frame_equal(res[2].fetch(), pdf.sort_values("when", kind="mergesort"))
            # JSON lines, uploaded and read back
            jpath = os.path.join(d, "rows.jsonl")
            pdf.assign(when=pdf.when.astype(str)).head(50).to_json(jpath, orient="records",
                                                                  lines=True)
            SESS.upload(jpath)
            pd.testing.assert_frame_equal(md.read_json("rows.jsonl", lines=True).fetch(),
                                          pd.read_json(jpath, lines=True, convert_dates=False))
            want = pdf.assign(day=pdf.when.dt.date).groupby("day").agg(n=("v", "count"))
            got = res[3].fetch()
            self.assertEqual(list(got.index), list(want.index))  # datetime.date, as pandas'
            self.assertEqual(got.n.tolist(), want.n.tolist())
            # floor to the hour then group by it; names, is_month_end, normalize
            h = df.assign(hour=df.when.dt.floor("h")).groupby("hour").agg(s=("v", "sum"))
            b = df.assign(dn=df.when.dt.day_name(), me=df.when.dt.is_month_end,
                          r=df.when.dt.round("15min"), nm=df.when.dt.normalize(),
                          ym=df.when.dt.strftime("%Y-%m"))
            res = marsc.execute(h, b)
            pd.testing.assert_frame_equal(
                res[0].fetch(), pdf.assign(hour=pdf.when.dt.floor("h")).groupby("hour")
                .agg(s=("v", "sum")))
            pd.testing.assert_frame_equal(
                res[1].fetch(), pdf.assign(dn=pdf.when.dt.day_name(), me=pdf.when.dt.is_month_end,
                                           r=pdf.when.dt.round("15min"),
                                           nm=pdf.when.dt.normalize(),
                                           ym=pdf.when.dt.strftime("%Y-%m")))
            with self.assertRaises(marsc.GraphError):
                df.when.dt.floor("W").execute()
            # ISO weeks: fetched as pandas' UInt32 (<NA> for NaT); the week's
            # max per ISO year (float64 on the cluster), and dt.week
            iso = df.when.dt.isocalendar()
            piso = pdf.when.dt.isocalendar()
            pd.testing.assert_frame_equal(iso.fetch(), piso)
            pd.testing.assert_series_equal(iso.week.head(4).fetch(), piso.week.head(4))
            pd.testing.assert_series_equal(iso.groupby("year").week.max().fetch(),
                                           piso.astype("float64").groupby("year").week.max())
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                pd.testing.assert_series_equal(df.when.dt.weekofyear.fetch(), pdf.when.dt.week)
            # between_time and at_time on the DatetimeIndex (NaT in a range
            # across midnight, as pandas)
            ix, pix = df.set_index("when"), pdf.set_index("when")
            for a, b, kw in (("09:00", "17:30", {}), ("22:00", datetime.time(1, 30), {}),
                             ("0600", "7:15AM", {"include_start": False})):
                with warnings.catch_warnings():  # include_start: deprecated in pandas 1.5
                    warnings.simplefilter("ignore", FutureWarning)
                    want = pix.between_time(a, b, **kw)
                pd.testing.assert_frame_equal(ix.between_time(a, b, **kw).fetch(), want)
            pd.testing.assert_series_equal(ix.v.between_time("12:00", "13:00").fetch(),
                                           pix.v.between_time("12:00", "13:00"))
            pd.testing.assert_frame_equal(ix.at_time("00:00").fetch(), pix.at_time("00:00"))
            with self.assertRaisesRegex(marsc.GraphError, "Index must be DatetimeIndex"):
                df.between_time("09:00", "10:00").execute()
        finally:
            shutil.rmtree(d)

    def test_groupby_methods(self):
        """GroupBy's pandas methods: reductions over every column that is no
        key (numeric ones for sum, mean...: the frame runs first to know
        its dtypes), over a selection (a Series for one column), size, head,
        tail, transform and quantile."""
        rng = np.random.default_rng(9)
        n = 300
        x = rng.random(n).round(3)
        x[rng.random(n) < 0.1] = np.nan
        with uploaded_csv("groups.csv", pd.DataFrame({
                "k": rng.choice(["a", "b", "c"], n), "g": rng.integers(0, 4, n), "x": x,
                "y": rng.integers(-9, 9, n), "s": rng.choice(["p", "q", "r"], n)})) as p:
            df = md.read_csv("groups.csv", chunk_bytes=900)
            g, pg = df.groupby("k"), p.groupby("k")
            g2, pg2 = df.groupby(["k", "g"]), p.groupby(["k", "g"])
            pairs = [
                (g.sum(), pg.sum(numeric_only=True)), (g.mean(), pg.mean(numeric_only=True)),
                (g.std(), pg.std(numeric_only=True)), (g.median(), pg.median(numeric_only=True)),
                (g.count(), pg.count()), (g.nunique(), pg.nunique()),
                (g.first(), pg.first()), (g.last(), pg.last()),
                (g2.max(), pg2.max()), (g["x"].min(), pg["x"].min()),
                (g[["x", "y"]].var(), pg[["x", "y"]].var()), (g2["y"].prod(), pg2["y"].prod()),
                (g.size(), pg.size()), (g2.size(), pg2.size()),
                (g.head(2), pg.head(2)), (g2.tail(1), pg2.tail(1)),
                (g["x"].transform("mean"), pg["x"].transform("mean")),
                (g[["x", "y"]].transform("max"), pg[["x", "y"]].transform("max")),
                (g[["x", "y"]].quantile(0.25), pg[["x", "y"]].quantile(0.25)),
                (g.x.max(), pg.x.max()), (g2.y.cumsum(), pg2.y.cumsum()),
                (g["k"].count(), pg["k"].count()), (g.k.count(), pg.k.count()),
            ]
            self.same_as_pandas(pairs)
            # a name that is no column is no attribute, as in pandas
            with self.assertRaisesRegex(AttributeError, "no attribute or column 'nope'"):
                g.nope

    def test_apply_vectorized(self):
        """s.apply(func), s.map(func) and df.apply(func, axis=1) of lambdas and
        a def against pandas' row-by-row results: arithmetic, a variable of
        the caller, a if c else b, in, round, math and numpy functions, a
        dict's lookup, str methods and slices, date parts; and refusals."""
        import math
        rng = np.random.default_rng(31)
        n = 150
        price = rng.random(n).round(2) * 20
        price[rng.random(n) < 0.1] = np.nan
        with uploaded_csv("apply.csv", pd.DataFrame({
                "qty": rng.integers(0, 12, n), "price": price,
                "code": rng.choice(["a", "b", "c"], n),
                "name": rng.choice(["north-east", "south", "west-end", "x"], n),
                "day": pd.date_range("2024-01-01", periods=n, freq="37h")})) as p:
            p["day"] = pd.to_datetime(p["day"])
            df = md.read_csv("apply.csv", chunk_bytes=900, parse_dates=["day"])
            rate = 1.2
            lookup = {"a": "alpha", "b": "beta", "c": "gamma"}

            def tier(x):
                return 2 if x > 8 else (1 if x > 3 else 0)

            series = [
                ("qty", lambda x: x * 2), ("price", lambda x: x ** 2 + 1),
                ("price", lambda x: round(x * rate, 1)), ("qty", lambda x: "high" if x > 6 else "low"),
                ("qty", lambda x: x in (1, 2, 3)), ("qty", tier), ("price", lambda x: math.sqrt(x)),
                ("price", np.log1p), ("code", lambda c: lookup[c]), ("name", len),
                ("name", lambda s: s.upper()[:3]), ("name", lambda s: s.split("-")[0]),
                ("name", lambda s: "-" in s and s.startswith("n")), ("name", lambda s: s.replace("-", "_")),
                ("day", lambda d: d.year * 100 + d.month), ("day", lambda d: d.weekday()),
                ("qty", lambda x: float(x) / 3), ("qty", lambda x: str(x) + "!"),
                ("qty", lambda x: math.floor(x / 4)), ("qty", lambda x: math.ceil(x * 0.3)),
            ]
            for col, f in series:
                pd.testing.assert_series_equal(df[col].apply(f).fetch(), p[col].apply(f))
            pd.testing.assert_series_equal(df.code.map(lambda c: lookup.get(c, "?")).fetch(),
                                           p.code.map(lambda c: lookup.get(c, "?")))
            for f in (lambda r: r.price * r.qty, lambda r: r["qty"] - 1 if r.qty > 5 else 0,
                      lambda r: r.qty + (r.price if r.qty > 2 else 0), lambda r: r["name"][:2] + r.code):
                pd.testing.assert_series_equal(df.apply(f, axis=1).fetch(), p.apply(f, axis=1))
            spread = (lambda r:  # a lambda over several lines, a comment in it
                      r.price * 2
                      - r.qty)
            pd.testing.assert_series_equal(df.apply(spread, axis=1).fetch(), p.apply(spread, axis=1))
            with self.assertRaisesRegex(NotImplementedError, "the row's label"):
                df.apply(lambda r: r.name, axis=1)
            with self.assertRaisesRegex(NotImplementedError, r"print\(x\) is not supported"):
                df.qty.apply(lambda x: print(x))
            # axis 0: func of each column (test_flex_apply_at has more)
            pd.testing.assert_series_equal(df[["qty", "price"]].apply(lambda c: c.max()),
                                           p[["qty", "price"]].apply(lambda c: c.max()))
            # strings' max too (a groupby of one key), datetimes' as Timestamps
            pd.testing.assert_series_equal(df.apply(lambda c: c.max()),
                                           p.apply(lambda c: c.max()))

    def test_loc_label_xs(self):
        """df.loc[label] and s.loc[label] as pandas gives them (a label of one
        row: the row, a Series over the columns, or a Series' value; of
        several rows: those rows), with columns, chained into a column and a
        sum; xs on a MultiIndex (the first level's key, the level dropped),
        and loc by that key; a missing label."""
        warnings.simplefilter("ignore", pd.errors.PerformanceWarning)  # pandas' side
        rng = np.random.default_rng(8)
        n = 120
        with uploaded_csv("locxs.csv", pd.DataFrame({
                "id": rng.permutation(n), "user": rng.choice(["u%02d" % i for i in range(9)], n),
                "sym": rng.choice(["AAA", "BBB", "CCC"], n), "t": np.arange(n) % 17,
                "amount": rng.integers(1, 100, n), "px": rng.random(n).round(3)})) as p:
            df = md.read_csv("locxs.csv", chunk_bytes=600)
            byu, pbyu = df.set_index("user"), p.set_index("user")
            pd.testing.assert_frame_equal(byu.loc["u05"].fetch(), pbyu.loc["u05"])
            self.assertEqual(byu.loc["u05"].amount.sum().fetch(), pbyu.loc["u05"].amount.sum())
            pd.testing.assert_series_equal(byu.loc["u05", "amount"].fetch(), pbyu.loc["u05", "amount"])
            pd.testing.assert_frame_equal(byu.loc["u05", ["px", "id"]].fetch(), pbyu.loc["u05", ["px", "id"]])
            byid, pbyid = df.set_index("id"), p.set_index("id")
            pd.testing.assert_series_equal(byid.loc[7].fetch(), pbyid.loc[7])  # a row: object
            pd.testing.assert_series_equal(byid[["amount", "px"]].loc[7].fetch(),
                                           pbyid[["amount", "px"]].loc[7])
            self.assertEqual(byid.loc[7, "amount"].fetch(), pbyid.loc[7, "amount"])
            self.assertEqual(byid.loc[7].amount.fetch(), pbyid.loc[7].amount)
            self.assertEqual(byid.amount.loc[11].fetch(), pbyid.amount.loc[11])
            pd.testing.assert_series_equal(byu.px.loc["u03"].fetch(), pbyu.px.loc["u03"])
            with self.assertRaises(KeyError):
                byid.loc[1000].fetch()
            mi, pmi = df.set_index(["sym", "t"]), p.set_index(["sym", "t"])
            pd.testing.assert_frame_equal(mi.xs("AAA").fetch(), pmi.xs("AAA"))
            pd.testing.assert_frame_equal(mi.xs("BBB").head().fetch(), pmi.xs("BBB").head())
            pd.testing.assert_frame_equal(mi.loc["CCC"].fetch(), pmi.loc["CCC"])
            pd.testing.assert_series_equal(mi.loc["CCC", "px"].fetch(), pmi.loc["CCC", "px"])
            with self.assertRaises(KeyError):
                mi.xs("ZZZ").fetch()
            # xs of another level, several levels, drop_level, a Series'
            pmi3 = p.set_index(["sym", "t", "id"])
            mi3 = df.set_index(["sym", "t", "id"])
            t0 = p.t.iloc[0]
            self.same_each([lambda d: d.xs(t0, level="t"),
                            lambda d: d.xs(t0, level=1, drop_level=False),
                            lambda d: d.xs(("AAA", t0), level=["sym", "t"]),
                            lambda d: d.px.xs("BBB")], pmi3, mi3)

    def test_groupby_apply(self):
        """g.apply(func) and g["x"].apply/agg(func) of lambdas and a def giving
        one value per group, against pandas: a weighted mean, a range, the
        group's size, a ratio of sizes, numpy over reductions, a if c else b,
        a variable of the caller; two keys; keys with missing values; and the
        refusals naming the piece."""
        rng = np.random.default_rng(41)
        n = 400
        k = rng.choice(["a", "b", "c", "d"], n).astype(object)
        k[rng.random(n) < 0.05] = None
        y = rng.random(n).round(3)
        y[rng.random(n) < 0.1] = np.nan
        with uploaded_csv("gapply.csv", pd.DataFrame({
                "k": k, "g": rng.integers(0, 3, n), "x": rng.integers(-5, 20, n), "y": y})) as p:
            df = md.read_csv("gapply.csv", chunk_bytes=1000)
            w = 0.5

            def spread(grp):
                return grp.y.max() - grp.y.min()

            cases = [
                ("k", lambda d: (d.x * d.y).sum() / d.y.sum()),
                ("k", lambda d: len(d)),
                ("k", lambda d: d.x.sum() / len(d) + w),
                ("k", lambda d: np.sqrt(d.y.var()) if d.shape[0] > 90 else -1.0),
                (["k", "g"], lambda d: d.y.mean() * 2 - d.x.median()),
                ("g", spread),
                ("g", lambda d: (d.y > 0.5).sum()),
                ("g", lambda d: (d.x ** 2).mean() - d.x.mean() ** 2),
            ]
            for by, f in cases:
                pd.testing.assert_series_equal(df.groupby(by).apply(f).fetch(),
                                               p.groupby(by).apply(f))
            pd.testing.assert_series_equal(df.groupby("k").x.apply(lambda s: s.max() - s.min()).fetch(),
                                           p.groupby("k").x.apply(lambda s: s.max() - s.min()))
            pd.testing.assert_series_equal(df.groupby("g").y.agg(lambda s: s.std() / s.mean()).fetch(),
                                           p.groupby("g").y.agg(lambda s: s.std() / s.mean()))
            pd.testing.assert_series_equal(df.groupby("k").apply("sum").x.fetch(),
                                           p.groupby("k").sum().x)
            # agg's dict, list and named aggregations holding lambdas, beside names

            def span(s):
                return s.max() - s.min()

            g, pg = df.groupby("g"), p.groupby("g")
            self.same_as_pandas([
                (g.agg({"x": lambda s: s.max() - s.min(), "y": "mean"}),
                 pg.agg({"x": lambda s: s.max() - s.min(), "y": "mean"})),
                (g.agg(r=("x", lambda s: (s * 2).sum()), m=("y", lambda s: (s + 1).max())),
                 pg.agg(r=("x", lambda s: (s * 2).sum()), m=("y", lambda s: (s + 1).max()))),
                (g.y.agg(["mean", lambda s: s.max(), span]), pg.y.agg(["mean", lambda s: s.max(), span])),
                (g.x.agg([lambda s: s.max(), lambda s: s.min()]), pg.x.agg([lambda s: s.max(), lambda s: s.min()])),
                (g[["x", "y"]].transform(lambda s: s - s.mean()), pg[["x", "y"]].transform(lambda s: s - s.mean())),
                (df.assign(s=np.where(df.x > 3, "hi", "lo")).s, p.assign(s=np.where(p.x > 3, "hi", "lo")).s),
            ])
            with self.assertRaisesRegex(NotImplementedError, "is no value per group"):
                df.groupby("k").apply(lambda d: d.x + 1)
            with self.assertRaisesRegex(NotImplementedError, r"d\.x\.cumsum is not supported"):
                df.groupby("k").apply(lambda d: d.x.cumsum().max())

    def test_groupby_transform_func(self):
        """g["x"].transform(func) of lambdas against pandas: demeaning,
        z-scores, a share of the group's total, a weighted mean broadcast,
        ranks against the group's range, by keys with missing values; and
        filter by a reduction of a row-wise product."""
        rng = np.random.default_rng(43)
        n = 300
        k = rng.choice(["a", "b", "c"], n).astype(object)
        k[rng.random(n) < 0.05] = None
        x = rng.random(n).round(3)
        x[rng.random(n) < 0.1] = np.nan
        with uploaded_csv("gtrans.csv", pd.DataFrame({
                "k": k, "g": rng.integers(0, 4, n), "x": x, "y": rng.integers(1, 9, n)})) as p:
            df = md.read_csv("gtrans.csv", chunk_bytes=900)
            for by, col, f in [
                    ("k", "x", lambda s: s - s.mean()),
                    ("g", "x", lambda s: (s - s.mean()) / s.std()),
                    ("g", "y", lambda s: s / s.sum()),
                    ("k", "y", lambda s: (s - s.min()) / (s.max() - s.min() + 1)),
                    (["k", "g"], "x", lambda s: s * len(s)),
                    ("g", "x", np.sum)]:
                got = df.groupby(by)[col].transform(f).fetch()
                pd.testing.assert_series_equal(got, p.groupby(by)[col].transform(f))
            pd.testing.assert_frame_equal(
                df.groupby("g").filter(lambda d: (d.x * d.y).sum() > 60).fetch(),
                p.groupby("g").filter(lambda d: (d.x * d.y).sum() > 60))

    def test_rolling_apply(self):
        """s.rolling(w).apply(func) and s.expanding().apply(func) of lambdas
        against pandas' per-window calls: a range, a ratio of reductions, a
        variance from two means, numpy's sum, raw=True; and refusals."""
        rng = np.random.default_rng(47)
        n = 200
        x = rng.random(n).round(3)
        x[rng.random(n) < 0.1] = np.nan
        with uploaded_csv("rapply.csv", pd.DataFrame({"x": x, "y": rng.integers(0, 9, n)})) as p:
            df = md.read_csv("rapply.csv", chunk_bytes=500)
            cases = [
                (lambda s: s.rolling(5).apply(lambda w: w.max() - w.min()), False),
                (lambda s: s.rolling(7, min_periods=2).apply(lambda w: w.sum() / w.count()), False),
                (lambda s: s.rolling(10, min_periods=3).apply(lambda w: (w * w).mean() - w.mean() ** 2),
                 False),
                (lambda s: s.rolling(4).apply(np.sum), False),
                (lambda s: s.rolling(6).apply(lambda w: w.max() - w.min(), raw=True), True),
                (lambda s: s.expanding(3).apply(lambda w: np.sqrt(w.var())), False),
            ]
            for f, _ in cases:
                for col in ("x", "y"):
                    pd.testing.assert_series_equal(f(df[col]).fetch(), f(p[col]), rtol=1e-9)
            with self.assertRaisesRegex(NotImplementedError, "the window outside a reduction"):
                df.x.rolling(3).apply(lambda w: w[-1])
            with self.assertRaisesRegex(NotImplementedError, "within a reduction of the window"):
                df.x.rolling(3).apply(lambda w: (w - w.mean()).abs().sum())
            with self.assertRaisesRegex(NotImplementedError, "roll one column"):
                df.rolling(3).apply(lambda w: w.sum())

    def test_series_groupby_fused(self):
        """Aggregations of different Series grouped by the same key Series
        (Series.groupby makes a frame of each), combined: a VWAP, a
        difference of means, a ratio with a count; rebased onto one
        groupby, equal to pandas'."""
        rng = np.random.default_rng(53)
        n = 300
        sym = rng.choice(["AAA", "BBB", "CCC"], n).astype(object)
        sym[rng.random(n) < 0.05] = None
        px = (rng.random(n) * 100).round(2)
        px[rng.random(n) < 0.05] = np.nan
        with uploaded_csv("vwap.csv", pd.DataFrame({
                "sym": sym, "px": px, "vol": rng.integers(1, 500, n), "d": rng.integers(0, 5, n)})) as p:
            df = md.read_csv("vwap.csv", chunk_bytes=800)
            pairs = [
                ((df.px * df.vol).groupby(df.sym).sum() / df.vol.groupby(df.sym).sum(),
                 (p.px * p.vol).groupby(p.sym).sum() / p.vol.groupby(p.sym).sum()),
                (df.px.groupby(df.sym).mean() - df.vol.groupby(df.sym).mean(),
                 p.px.groupby(p.sym).mean() - p.vol.groupby(p.sym).mean()),
                (df.px.groupby([df.sym, df.d]).max() / df.vol.groupby([df.sym, df.d]).count(),
                 p.px.groupby([p.sym, p.d]).max() / p.vol.groupby([p.sym, p.d]).count()),
            ]
            self.same_as_pandas(pairs)

    def test_callables_pipe(self):
        """pandas' callables: df[lambda d: ...], df.loc[lambda d: ..., cols],
        s[lambda s: ...], where/mask of a function, and pipe (a function, a
        (function, keyword) pair) in a method chain; applymap of a lambda;
        groupby nth; iterrows, itertuples and items; against pandas."""
        rng = np.random.default_rng(59)
        n = 200
        with uploaded_csv("calls.csv", pd.DataFrame({
                "a": rng.integers(-5, 10, n), "b": rng.random(n),  # no ties: pandas' sort is unstable
                "c": rng.choice(["x", "y"], n)}), float_precision="round_trip") as p:
            df = md.read_csv("calls.csv", chunk_bytes=700)

            def top(d, col, k=3):
                return d.sort_values(col, ascending=False).head(k)

            def scaled(factor, data):
                return data.assign(b=data.b * factor)

            pairs = [
                (df[lambda d: d.a > 2], p[lambda d: d.a > 2]),
                (df.loc[lambda d: d.c == "x", ["a", "b"]], p.loc[lambda d: d.c == "x", ["a", "b"]]),
                (df.b[lambda s: s > 0.5], p.b[lambda s: s > 0.5]),
                (df.a.where(lambda s: s > 0, lambda s: -s), p.a.where(lambda s: s > 0, lambda s: -s)),
                (df.b.mask(lambda s: s < 0.2), p.b.mask(lambda s: s < 0.2)),
                (df.pipe(top, "b", k=5), p.pipe(top, "b", k=5)),
                (df[lambda d: d.a != 0].pipe((scaled, "data"), 2.0).groupby("c").b.sum(),
                 p[lambda d: d.a != 0].pipe((scaled, "data"), 2.0).groupby("c").b.sum()),
                (df[["a", "b"]].applymap(lambda v: v * 2 if v > 0 else -v),
                 p[["a", "b"]].applymap(lambda v: v * 2 if v > 0 else -v)),
                (df[["c"]].applymap(lambda v: v.upper() + "!"), p[["c"]].applymap(lambda v: v.upper() + "!")),
                (df.groupby("c").nth(0), p.groupby("c").nth(0)),
                (df.groupby("c").nth(-2), p.groupby("c").nth(-2)),
                (df.groupby(["c", "a"]).b.nth(1), p.groupby(["c", "a"]).b.nth(1)),
            ]
            self.same_as_pandas(pairs)
            head, phead = df.head(4), p.head(4)
            self.assertEqual([(i, r.a, r.c) for i, r in head.iterrows()],
                             [(i, r.a, r.c) for i, r in phead.iterrows()])
            self.assertEqual(list(head.itertuples(name=None)), list(phead.itertuples(name=None)))
            self.assertEqual([k for k, _ in head.items()], list(phead.columns))
            pd.testing.assert_frame_equal(df[["a", "b"]].describe().T, p[["a", "b"]].describe().T)
            pd.testing.assert_frame_equal(head.transpose(), phead.transpose())
            # numpy's functions of a Series, as pandas dispatches them (np.std: ddof 0)
            for f in (np.sum, np.mean, np.max, np.min, np.median, np.std, np.var):
                self.assertAlmostEqual(f(df.b).fetch(), f(p.b), places=12)
            self.assertAlmostEqual(np.std(df.b, ddof=1).fetch(), np.std(p.b, ddof=1), places=12)
            pd.testing.assert_series_equal(np.round(df.b, 2).fetch(), np.round(p.b, 2))
            pd.testing.assert_series_equal(np.where(df.a > 0, df.b, -1.0).fetch(),
                                           pd.Series(np.where(p.a > 0, p.b, -1.0), name="b"))

    def test_groupby_filter(self):
        """g.filter(func) against pandas: lambdas and a def over group
        statistics (len, shape, size, sum ... nunique), arithmetic, chained
        comparisons, and/or/not, a variable of the caller; a Series
        groupby; keys with missing values (their rows in no group, also
        under not); two keys; and the refusals, naming what is not
        supported."""
        rng = np.random.default_rng(21)
        n = 300
        x = rng.random(n).round(3)
        x[rng.random(n) < 0.1] = np.nan
        k = rng.choice(["a", "b", "c", "d", "e"], n, p=[0.4, 0.3, 0.2, 0.07, 0.03]).astype(object)
        k[rng.random(n) < 0.05] = None
        with uploaded_csv("gfilter.csv", pd.DataFrame({
                "k": k, "g": rng.integers(0, 6, n), "x": x, "y": rng.integers(-9, 9, n)})) as p:
            df = md.read_csv("gfilter.csv", chunk_bytes=900)
            lim = 40

            def big_and_positive(grp):
                """a def of one return"""
                return grp.y.sum() > 0 and len(grp) >= 10

            cases = [
                (lambda d: len(d) > 70, "k"),
                (lambda d: d.shape[0] <= lim, "k"),
                (lambda d: not len(d) > 70, "k"),
                (lambda d: d["x"].mean() > 0.5 or d.y.max() == 8, "g"),
                (lambda d: 0.45 < d.x.mean() < 0.55, "g"),
                (lambda d: d.y.sum() / len(d) > 0, "k"),
                (lambda d: abs(d.y.mean()) < 0.5 and d.x.count() > 30, "g"),
                (lambda d: d.y.nunique() == 18, "k"),
                (lambda d: d.x.std() > 0.29 or d.x.median() < 0.45, ["k", "g"]),
                (big_and_positive, "g"),
                (lambda d: True, "k"),
                (lambda d: False, "g"),
            ]
            for f, by in cases:
                pd.testing.assert_frame_equal(df.groupby(by).filter(f).fetch(),
                                              p.groupby(by).filter(f))
            pd.testing.assert_series_equal(df.groupby("k").y.filter(lambda s: s.size > 70).fetch(),
                                           p.groupby("k").y.filter(lambda s: s.size > 70))
            pd.testing.assert_frame_equal(
                df.groupby("g")[["x", "y"]].filter(lambda s: s.y.min() < -8).fetch(),
                p.groupby("g")[["x", "y"]].filter(lambda s: s.y.min() < -8))
            with self.assertRaisesRegex(NotImplementedError, r"d\.x\.apply is not supported"):
                df.groupby("k").filter(lambda d: len(d.x.apply(str)) > 3)
            with self.assertRaisesRegex(TypeError, "not a bool"):
                df.groupby("k").filter(lambda d: d.y.sum())
            with self.assertRaisesRegex(NotImplementedError, "dropna=False"):
                df.groupby("k").filter(lambda d: len(d) > 3, dropna=False)

    def test_groupby_kernels(self):
        """GroupBy's transformation kernels (cumsum ... rank, pct_change,
        fillna by a method, and transform by their names) and transform's
        statistics against pandas: the input's rows and index, by a key with
        missing values too, over several chunks."""
        rng = np.random.default_rng(12)
        n = 200
        x = rng.random(n).round(3)
        x[rng.random(n) < 0.1] = np.nan
        k = rng.choice(["a", "b", "c"], n).astype(object)
        k[rng.random(n) < 0.05] = None
        with uploaded_csv("kernels.csv", pd.DataFrame({
                "k": k, "g": rng.integers(0, 4, n), "x": x,
                "y": rng.integers(-9, 9, n), "s": rng.choice(["p", "q", None], n)})) as p:
            df = md.read_csv("kernels.csv", chunk_bytes=700)
            g, pg = df.groupby("g"), p.groupby("g")
            gk, pgk = df.groupby("k"), p.groupby("k")
            pairs = [
                (g.cumsum(), pg.cumsum(numeric_only=True)),
                (g[["x", "y"]].cummax(), pg[["x", "y"]].cummax()),
                (g["y"].cumprod(), pg["y"].cumprod()), (g.cummin(), pg.cummin(numeric_only=True)),
                (g.cumcount(), pg.cumcount()), (gk.cumcount(ascending=False),
                                                pgk.cumcount(ascending=False)),
                (g.ngroup(), pg.ngroup()), (gk.ngroup(), pgk.ngroup()),
                (g.shift(), pg.shift()), (gk["x"].shift(-2), pgk["x"].shift(-2)),
                (g[["x", "y"]].diff(), pg[["x", "y"]].diff()),
                (gk.ffill(), pgk.ffill()), (g.bfill(limit=1), pg.bfill(limit=1)),
                (g.rank(), pg.rank()), (gk["x"].rank(method="dense", ascending=False, pct=True),
                                        pgk["x"].rank(method="dense", ascending=False, pct=True)),
                (g["x"].transform("cumsum"), pg["x"].transform("cumsum")),
                (gk[["y"]].cumsum(), pgk[["y"]].cumsum()),
                (g[["x", "y"]].pct_change(), pg[["x", "y"]].pct_change()),
                (gk["x"].pct_change(periods=-1, fill_method="bfill", limit=1),
                 pgk["x"].pct_change(periods=-1, fill_method="bfill", limit=1)),
                (g[["x"]].pct_change(fill_method=None), pg[["x"]].pct_change(fill_method=None)),
                # (by g: pandas 1.5's fillna misplaces rows when a key is
                # missing; the engine's equals pandas' gk.ffill() there)
                (g.fillna(method="bfill", limit=2), pg.fillna(method="bfill", limit=2)),
                (gk.fillna(method="ffill"), pgk.ffill()),
                (g[["x", "y"]].transform("std"), pg[["x", "y"]].transform("std")),
                (gk["x"].transform("mean"), pgk["x"].transform("mean")),
                # groupby_agg's funcs through transform: each row its group's
                (g[["x", "y"]].transform("median"), pg[["x", "y"]].transform("median")),
                (gk["y"].transform("prod"), pgk["y"].transform("prod")),
                (gk.transform("first"), pgk.transform("first")),
                (g["s"].transform("last"), pg["s"].transform("last")),
                (gk.transform("nunique"), pgk.transform("nunique")),
                (g.transform("size"), pg.transform("size")),
                (gk["x"].transform("size"), pgk["x"].transform("size")),
                (df.x - gk.x.transform("median"), p.x - pgk.x.transform("median")),
            ]
            self.same_as_pandas(pairs)
            with self.assertRaises(ValueError):
                g.fillna(0)

    def test_idxmax_idxmin(self):
        """idxmax and idxmin: a Series of labels per DataFrame, pandas'
        scalar label per Series (a string, an int, NaN for no value)."""
        rng = np.random.default_rng(13)
        n = 60
        x = rng.random(n).round(3)
        x[rng.random(n) < 0.1] = np.nan
        with uploaded_csv("idx.csv", pd.DataFrame({
                "name": ["c%02d" % q for q in rng.permutation(n)], "x": x,
                "y": rng.integers(-9, 9, n), "z": np.nan})) as p:
            df = md.read_csv("idx.csv", chunk_bytes=300)
            byname, pbyname = df.set_index("name"), p.set_index("name")
            num = byname[["x", "y", "z"]]
            pnum = pbyname[["x", "y", "z"]]
            pd.testing.assert_series_equal(num.idxmax().fetch(), pnum.idxmax())
            pd.testing.assert_series_equal(num.idxmin(skipna=False).fetch(),
                                           pnum.idxmin(skipna=False))
            pd.testing.assert_series_equal(df[["x", "y"]].idxmin().fetch(), p[["x", "y"]].idxmin())
            self.assertEqual(byname.x.idxmax().fetch(), pbyname.x.idxmax())
            self.assertEqual(df.y.idxmin().fetch(), p.y.idxmin())
            self.assertTrue(np.isnan(byname.z.idxmax().fetch()))
            self.assertTrue(np.isnan(byname.x.idxmax(skipna=False).fetch()))
            # value_counts().idxmax(): the most frequent value
            self.assertEqual(df.y.value_counts().idxmax().fetch(), p.y.value_counts().idxmax())
            with self.assertRaises(marsc.MarsError) as cm:
                df.idxmax().execute()
            self.assertIn("not allowed", str(cm.exception))

    def test_to_datetime(self):
        """md.to_datetime of strings (a format, ISO forms, coerce) and of
        numbers with a unit, then the dt accessor on the result."""
        days = ["03/01/2024", "15/02/2023", "x", None, "31/12/1999"]
        with uploaded_csv("raw_dates.csv", pd.DataFrame({
                "d": days * 4, "iso": ["2024-03-01 10:00", "2023-02-15", "", None, "1999-12-31"] * 4,
                "secs": [0, 86400, 1700000000, 5, -60] * 4})) as p:
            df = md.read_csv("raw_dates.csv", chunk_bytes=80)
            pairs = [
                (md.to_datetime(df.d, format="%d/%m/%Y", errors="coerce"),
                 pd.to_datetime(p.d, format="%d/%m/%Y", errors="coerce")),
                (md.to_datetime(df.iso), pd.to_datetime(p.iso)),
                (md.to_datetime(df.secs, unit="s"), pd.to_datetime(p.secs, unit="s")),
                (md.to_datetime(df.d, format="%d/%m/%Y", errors="coerce").dt.month,
                 pd.to_datetime(p.d, format="%d/%m/%Y", errors="coerce").dt.month),
            ]
            self.same_as_pandas(pairs)
            with self.assertRaises(marsc.MarsError) as cm:
                md.to_datetime(df.d, format="%d/%m/%Y").execute()
            self.assertIn("time data 'x'", str(cm.exception))
            with self.assertRaises(TypeError):
                md.to_datetime(df)

    def test_timedeltas(self):
        """A difference of datetime columns is a timedelta Series: its dt
        fields, arithmetic with pandas' and numpy's Timedelta and
        Timestamp scalars, comparisons, a filter and md.to_timedelta come
        back as pandas gives them."""
        rng = np.random.default_rng(8)
        n = 200
        start = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 90 * 86400, n),
                                                             unit="s")
        end = start + pd.to_timedelta(rng.integers(-86400, 20 * 86400, n), unit="s")
        start = start.astype(str).tolist()
        start[::13] = [""] * len(start[::13])
        d = tempfile.mkdtemp()
        try:
            path = os.path.join(d, "trips.csv")
            pd.DataFrame({"start": start, "end": end.astype(str), "k": rng.integers(0, 4, n),
                          "dur": ["%d:%02d:00" % (h, m) for h, m in
                                  zip(rng.integers(0, 30, n), rng.integers(0, 60, n))]}
                         ).to_csv(path, index=False)
            SESS.upload(path)
            p = pd.read_csv(path, parse_dates=["start", "end"])
            df = md.read_csv("trips.csv", chunk_bytes=1200, parse_dates=["start", "end"])
            dd, pd_ = df.end - df.start, p.end - p.start
            pairs = [
                (dd, pd_), (dd.dt.days, pd_.dt.days), (dd.dt.total_seconds(), pd_.dt.total_seconds()),
                (dd.dt.seconds, pd_.dt.seconds),
                (df.start + pd.Timedelta("1 days 06:00:00"), p.start + pd.Timedelta("1 days 06:00:00")),
                (df.end - np.timedelta64(90, "m"), p.end - np.timedelta64(90, "m")),
                (df.start - pd.Timestamp("2024-01-01"), p.start - pd.Timestamp("2024-01-01")),
                (dd / pd.Timedelta("1h"), pd_ / pd.Timedelta("1h")), (dd * 2, pd_ * 2),
                (dd > datetime.timedelta(days=3), pd_ > datetime.timedelta(days=3)),
                (df[dd < pd.Timedelta("1D")], p[pd_ < pd.Timedelta("1D")]),
                (df.assign(d=dd).sort_values("d").head(20),
                 p.assign(d=pd_).sort_values("d", kind="mergesort").head(20)),
                (md.to_timedelta(df.dur), pd.to_timedelta(p.dur)),
                (md.to_timedelta(df.k, unit="h") + df.start, pd.to_timedelta(p.k, unit="h") + p.start),
            ]
            self.same_as_pandas(pairs)
            got = df.assign(d=dd)
            got.execute()
            self.assertEqual(str(got.dtypes["d"]), "timedelta64[ns]")
            with self.assertRaises(marsc.MarsError) as cm:
                (df.start + df.end).execute()
            self.assertIn("add of datetime64[ns] and datetime64[ns]", str(cm.exception))
        finally:
            shutil.rmtree(d)

    def test_resample(self):
        """df.resample(rule, on=...) and s.resample(rule) through a cluster:
        sums, means, first and last, named and dict aggregations, calendar
        rules, closed, label, origin and offset given as pandas' scalars,
        each against pandas (empty bins filled as pandas fills them), the
        index's freq the rule, as pandas'."""
        rng = np.random.default_rng(12)
        n = 400
        secs = rng.integers(0, 20 * 86400, n)
        secs = secs[(secs < 6 * 86400) | (secs > 8 * 86400)]  # two quiet days
        ts = (pd.Timestamp("2024-03-04 06:00") + pd.to_timedelta(secs, unit="s")).astype(str)
        ts = ts.tolist()
        ts[::17] = [""] * len(ts[::17])
        x = rng.standard_normal(len(secs)).round(3)
        x[rng.random(len(secs)) < 0.1] = np.nan

        with uploaded_csv("rs.csv", pd.DataFrame({
                "ts": ts, "v": rng.integers(0, 50, len(secs)), "x": x,
                "k": rng.choice(["a", "b", "c"], len(secs))})) as p0:
            p = p0.assign(ts=pd.to_datetime(p0.ts))
            df = md.read_csv("rs.csv", chunk_bytes=1500, parse_dates=["ts"])
            r, pr = df.resample("6h", on="ts"), p.resample("6h", on="ts")
            s, ps = df.set_index("ts").x, p.set_index("ts").x
            pairs = [
                (r.sum(), pr.sum(numeric_only=True)), (r.mean(), pr.mean(numeric_only=True)),
                (r[["v", "k"]].first(), pr[["v", "k"]].first()),
                (r.agg(total=("v", "sum"), n=("x", "count"), last=("k", "last")),
                 pr.agg(total=("v", "sum"), n=("x", "count"), last=("k", "last"))),
                (r.agg({"v": "max", "x": "std"}), pr.agg({"v": "max", "x": "std"})),
                (r["v"].sum(), pr["v"].sum()),
                (s.resample("D").mean(), ps.resample("D").mean()),
                (s.resample("W").count(), ps.resample("W").count()),
                (s.resample("h", closed="right", label="right").max(),
                 ps.resample("h", closed="right", label="right").max()),
                (s.resample("7min", origin=pd.Timestamp("2024-01-01 00:03"),
                            offset=pd.Timedelta("2min")).sum(),
                 ps.resample("7min", origin=pd.Timestamp("2024-01-01 00:03"),
                                offset=pd.Timedelta("2min")).sum()),
                (s.resample("2D", origin="start").sum(), ps.resample("2D", origin="start").sum()),
                (r.size(), pr.size()),
                (s.resample("6h").ohlc(), ps.resample("6h").ohlc()),
                (r["v"].ohlc(), pr["v"].ohlc()),
                (df.resample("MS", on="ts")["v"].median(), p.resample("MS", on="ts")["v"].median()),
            ]
            self.same_as_pandas(pairs)
            with self.assertRaises(marsc.MarsError) as cm:
                df.resample("M", on="ts", closed="left").sum().execute()
            self.assertIn("\"closed\"", str(cm.exception))
            # upsampling: by a DatetimeIndex of unique times (NaT rows dropped)
            u = df.dropna(subset=["ts"]).drop_duplicates(subset=["ts"]).set_index("ts")
            pu = p.dropna(subset=["ts"]).drop_duplicates(subset=["ts"]).set_index("ts")
            self.same_as_pandas([
                (u.resample("3h").ffill(), pu.resample("3h").ffill()),
                (u.resample("3h", closed="right").bfill(),
                 pu.resample("3h", closed="right").bfill()),
                (u.x.resample("W").nearest(), pu.x.resample("W").nearest()),
                (u[["v", "x"]].resample("h").asfreq(), pu[["v", "x"]].resample("h").asfreq()),
                (u[["v", "x"]].resample("2h").interpolate(),
                 pu[["v", "x"]].resample("2h").interpolate()),
                (u.resample("h")["x"].asfreq(), pu.x.resample("h").asfreq()),
            ])

    def test_rolling_time(self):
        """df.rolling("2h", on=...) and s.rolling(pd.Timedelta(...)) through a
        cluster: every aggregation, closed ends, min_periods, by a column and
        by a DatetimeIndex, against pandas to the bit (its rows spread over
        many chunks); times out of order fail with pandas' words."""
        rng = np.random.default_rng(13)
        n = 500
        secs = np.cumsum(rng.choice([0, 5, 60, 900, 3600, 9000], n))
        ts = (pd.Timestamp("2024-05-01 00:00") + pd.to_timedelta(secs, unit="s")).astype(str)
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 9, n)
        x[rng.random(n) < 0.1] = np.nan
        with uploaded_csv("rt.csv", pd.DataFrame({
                "ts": ts, "v": rng.integers(0, 50, n), "x": x}), parse_dates=["ts"],
                float_precision="round_trip") as p:
            df = md.read_csv("rt.csv", chunk_bytes=1200, parse_dates=["ts"])
            s, ps = df.set_index("ts").x, p.set_index("ts").x
            pairs = []
            for agg in ("sum", "mean", "min", "max", "std", "var", "count"):
                pairs.append((getattr(df.rolling("2h", on="ts"), agg)(),
                              getattr(p.rolling("2h", on="ts"), agg)()))
            pairs += [
                (df.rolling("45min", on="ts", closed="both").sum(),
                 p.rolling("45min", on="ts", closed="both").sum()),
                (df.rolling("3h", on="ts", closed="neither", min_periods=2).mean(),
                 p.rolling("3h", on="ts", closed="neither", min_periods=2).mean()),
                (s.rolling(pd.Timedelta("90min")).std(), ps.rolling(pd.Timedelta("90min")).std()),
                (s.rolling("1D", closed="left").max(), ps.rolling("1D", closed="left").max()),
                (df.rolling("4h", on="ts").median(), p.rolling("4h", on="ts").median()),
                (df.ewm(halflife=pd.Timedelta("3h"), times="ts").mean(),
                 p[["v", "x"]].ewm(halflife=pd.Timedelta("3h"), times=p.ts).mean()),
                (s.rolling("6h").quantile(0.9, interpolation="nearest"),
                 ps.rolling("6h").quantile(0.9, interpolation="nearest")),
                (s.rolling(25, min_periods=3).median(), ps.rolling(25, min_periods=3).median()),
                (df[["v", "x"]].rolling(10).quantile(0.25),
                 p[["v", "x"]].rolling(10).quantile(0.25)),
                # centred windows of rows: median to the bit across chunks
                (s.rolling(31, center=True, min_periods=1).median(),
                 ps.rolling(31, center=True, min_periods=1).median()),
                (df[["v", "x"]].rolling(4, center=True).max(),
                 p[["v", "x"]].rolling(4, center=True).max()),
            ]
            self.same_as_pandas(pairs, exact=True)
            with self.assertRaises(marsc.MarsError) as cm:
                df.sort_values("x").rolling("h", on="ts").sum().execute()
            self.assertIn("ts values must be monotonic", str(cm.exception))

    def test_groupby_rolling(self):
        """df.groupby(by).rolling(window) through a cluster: each group's
        windows across many chunks, indexed by the keys and the rows'
        index as pandas' (a key with missing values, two keys, center, a
        column selected, windows of time by a column and by the index),
        expanding and ewm by groups, skew and kurt: every value to the
        bit."""
        rng = np.random.default_rng(21)
        n = 600
        k = rng.choice(["AAPL", "MSFT", "\u00c9DF", None], n, p=[0.4, 0.3, 0.27, 0.03])
        x = rng.standard_normal(n) * 100
        x[rng.random(n) < 0.05] = np.nan
        ts = (pd.Timestamp("2024-05-01") +
              pd.to_timedelta(np.cumsum(rng.choice([0, 60, 900, 3600], n)), unit="s"))
        with uploaded_csv("gr.csv", pd.DataFrame({
                "k": k, "d": rng.integers(0, 3, n), "x": x, "v": rng.integers(0, 1000, n),
                "ts": ts.astype(str)}), parse_dates=["ts"], float_precision="round_trip") as p:
            df = md.read_csv("gr.csv", chunk_bytes=700, parse_dates=["ts"])
            cols = ["k", "d", "x", "v"]
            g, pg = df[cols].groupby("k"), p[cols].groupby("k")
            gt, pgt = df.groupby("k"), p.groupby("k")
            pairs = [
                (g.rolling(5).mean(), pg.rolling(5).mean()),
                (g.rolling(3, min_periods=1).max(), pg.rolling(3, min_periods=1).max()),
                (g["x"].rolling(10, min_periods=2).median(),
                 pg["x"].rolling(10, min_periods=2).median()),
                (df[cols].groupby(["d", "k"]).rolling(4, center=True, min_periods=1).sum(),
                 p[cols].groupby(["d", "k"]).rolling(4, center=True, min_periods=1).sum()),
                (df[["d", "x"]].groupby("d").rolling(20).std(),
                 p[["d", "x"]].groupby("d").rolling(20).std()),
                (g[["v"]].rolling(7).quantile(0.9), pg[["v"]].rolling(7).quantile(0.9)),
                # windows of time, by a column and by the index
                (gt.rolling("3h", on="ts").sum(), pgt.rolling("3h", on="ts").sum()),
                (df.set_index("ts").groupby("k")["x"].rolling(pd.Timedelta("90min"),
                                                              closed="both").max(),
                 p.set_index("ts").groupby("k")["x"].rolling(pd.Timedelta("90min"),
                                                             closed="both").max()),
                # rolling cov and corr with a column, by rows, centred, by time
                (df[["x", "v", "d"]].rolling(20, min_periods=3).corr("v"),
                 p[["x", "v", "d"]].rolling(20, min_periods=3).corr(p["v"])),
                (df[["x", "v"]].rolling(9, center=True).cov(df["d"]),
                 p[["x", "v"]].rolling(9, center=True).cov(p["d"])),
                (df[["ts", "x", "v"]].rolling("2h", on="ts").corr("x"),
                 p[["ts", "x", "v"]].rolling("2h", on="ts").corr(p["x"])),
                # expanding and ewm by groups: pandas' recurrences to the bit
                (g.expanding().mean(), pg.expanding().mean()),
                (g["x"].expanding(min_periods=3).std(), pg["x"].expanding(min_periods=3).std()),
                (g.expanding().median(), pg.expanding().median()),
                (g.rolling(6, min_periods=2).sem(), pg.rolling(6, min_periods=2).sem()),
                # skew and kurt: pandas' shift by the column's rounded mean,
                # then its Kahan sums of the powers
                (df[["x", "v"]].rolling(15).skew(), p[["x", "v"]].rolling(15).skew()),
                (g.rolling(8, min_periods=4, center=True).kurt(),
                 pg.rolling(8, min_periods=4, center=True).kurt()),
                (gt.rolling("4h", on="ts").skew(), pgt.rolling("4h", on="ts").skew()),
                (g["x"].expanding().kurt(), pg["x"].expanding().kurt()),
                (df.v.expanding(min_periods=3).skew(), p.v.expanding(min_periods=3).skew()),
                (df[["x", "v"]].expanding(min_periods=3).corr("v"),
                 p[["x", "v"]].expanding(min_periods=3).corr(p["v"])),
                # closed over rows: the window rows before the row
                (df[["x", "v"]].rolling(5, closed="left", min_periods=1).sum(),
                 p[["x", "v"]].rolling(5, closed="left", min_periods=1).sum()),
                # pandas' pairwise matrix: a row per row and column
                (df[["x", "v", "d"]].rolling(12).corr(), p[["x", "v", "d"]].rolling(12).corr()),
                (df.set_index("ts")[["x", "v"]].rolling("3h").cov(),
                 p.set_index("ts")[["x", "v"]].rolling("3h").cov()),
                (df[["x", "v"]].expanding(min_periods=2).quantile(0.25, interpolation="lower"),
                 p[["x", "v"]].expanding(min_periods=2).quantile(0.25, interpolation="lower")),
                (g.ewm(span=10).mean(), pg.ewm(span=10).mean()),
                (gt[["ts", "x", "v"]].ewm(halflife=pd.Timedelta("2h"), times="ts").mean(),
                 p[["k", "x", "v"]].groupby("k").ewm(halflife="2h", times=p.ts).mean()),
                (df[cols].groupby(["d", "k"]).ewm(alpha=0.2, adjust=False).var(),
                 p[cols].groupby(["d", "k"]).ewm(alpha=0.2, adjust=False).var()),
            ]
            self.same_as_pandas(pairs, exact=True)

    def test_interpolate(self):
        """interpolate through a cluster: np.interp's linear, index and
        time methods over runs of missing values longer than a chunk, with
        limits, directions and areas, on a DataFrame and a Series: every
        value to the bit."""
        rng = np.random.default_rng(23)
        n = 500
        x = np.round(rng.standard_normal(n) * 50, 2)
        for s0 in rng.integers(0, n, 25):
            x[s0:s0 + rng.integers(1, 40)] = np.nan
        x[:5] = np.nan
        y = rng.standard_normal(n)
        y[rng.random(n) < 0.4] = np.nan
        ts = (pd.Timestamp("2024-05-01") +
              pd.to_timedelta(np.cumsum(rng.integers(1, 7200, n)), unit="s"))
        with uploaded_csv("ip.csv", pd.DataFrame({
                "ts": ts.astype(str), "x": x, "y": y, "k": rng.integers(0, 9, n),
                "s": rng.choice(["a", "\u00e9"], n)}), parse_dates=["ts"],
                float_precision="round_trip") as p:
            df = md.read_csv("ip.csv", chunk_bytes=600, parse_dates=["ts"])
            num, pnum = df[["x", "y", "k", "s"]], p[["x", "y", "k", "s"]]
            pairs = [
                (num.interpolate(), pnum.interpolate()),
                (df.x.interpolate(limit=3, limit_direction="both"),
                 p.x.interpolate(limit=3, limit_direction="both")),
                (num.interpolate(limit_area="inside", limit_direction="backward"),
                 pnum.interpolate(limit_area="inside", limit_direction="backward")),
                (df.set_index("ts")[["x", "y"]].interpolate(method="time"),
                 p.set_index("ts")[["x", "y"]].interpolate(method="time")),
                (df[df.k > 2].x.interpolate(method="index", limit=10),
                 p[p.k > 2].x.interpolate(method="index", limit=10)),
            ]
            self.same_as_pandas(pairs, exact=True)
            with self.assertRaisesRegex(Exception, "DatetimeIndex"):
                num.interpolate(method="time").fetch()

    def test_cut(self):
        """md.cut and md.qcut through a cluster: bins as a count (found
        over every chunk), as edges and at quantiles, codes, intervals and
        labels, equal to pandas' pd.cut and pd.qcut: categoricals, their
        categories pandas' (the cluster holds the intervals' text)."""
        rng = np.random.default_rng(27)
        n = 700
        x = np.round(rng.standard_normal(n) * 30, 2)
        x[rng.random(n) < 0.05] = np.nan
        with uploaded_csv("cut.csv", pd.DataFrame({"x": x, "i": rng.integers(0, 100, n)}),
                          float_precision="round_trip") as p:
            df = md.read_csv("cut.csv", chunk_bytes=500)
            pairs = [
                (md.cut(df.x, 5), pd.cut(p.x, 5)),
                (md.cut(df.x, 4, labels=False, right=False),
                 pd.cut(p.x, 4, labels=False, right=False)),
                (md.cut(df.i, [0, 25, 50, 100], include_lowest=True),
                 pd.cut(p.i, [0, 25, 50, 100], include_lowest=True)),
                (md.cut(df.i, [0, 10, 90, 100], labels=["low", "mid", "high"]),
                 pd.cut(p.i, [0, 10, 90, 100], labels=["low", "mid", "high"])),
                (md.qcut(df.x, 4), pd.qcut(p.x, 4)),
                (md.qcut(df.i, [0, 0.1, 0.9, 1], labels=False),
                 pd.qcut(p.i, [0, 0.1, 0.9, 1], labels=False)),
            ]
            self.same_as_pandas(pairs, exact=True)
            with self.assertRaisesRegex(Exception, "increase monotonically"):
                md.cut(df.x, [3, 1]).fetch()

    def test_categoricals(self):
        """pandas' category dtype, carried by the client: pd.cut, pd.qcut and
        astype("category") (and a CategoricalDtype) fetched as pandas'
        categoricals, through row filters, sorts, column selection and
        assign; value_counts of every category; groupby by categorical
        keys (one, two, beside a plain key, a Series of another frame)
        giving every category with pandas' fill of each aggregation, or
        the observed ones; sorts, min, max and comparisons by the
        categories' order; cat.codes; the reductions pandas refuses."""
        rng = np.random.default_rng(41)
        n = 400
        pdf = pd.DataFrame({"age": rng.integers(0, 100, n).astype(float),
                            "amt": rng.random(n).round(3), "i": rng.integers(0, 9, n),
                            "k": rng.choice(list("abc"), n),
                            "s": rng.choice(["x", "y", "z", None], n)})
        pdf.loc[[3, 50], "age"] = np.nan
        bins = [0, 18, 35, 60, 100, 200]  # the last bin is empty
        with uploaded_csv("cats.csv", pdf, keep=True) as (p, path):
            df = md.read_csv("cats.csv", chunk_bytes=3000)
            df["band"] = md.cut(df.age, bins)
            p["band"] = pd.cut(p.age, bins)
            df["kc"] = df.k.astype("category")
            p["kc"] = p.k.astype("category")
            g, h = df.groupby("band"), p.groupby("band")
            o = pd.CategoricalDtype(["z", "y", "x"], ordered=True)
            pairs = [
                (df, p),
                (md.cut(df.age, 4), pd.cut(p.age, 4)),
                (md.qcut(df.amt, [0, .1, .5, 1], labels=["lo", "mid", "hi"]),
                 pd.qcut(p.amt, [0, .1, .5, 1], labels=["lo", "mid", "hi"])),
                (md.cut(df.age, bins, labels=[1, 2, 3, 4, 5]),
                 pd.cut(p.age, bins, labels=[1, 2, 3, 4, 5])),
                (df.band.value_counts(), p.band.value_counts()),
                (df.band.value_counts(normalize=True, dropna=False),
                 p.band.value_counts(normalize=True, dropna=False)),
                (df.s.astype("category").value_counts(dropna=False),
                 p.s.astype("category").value_counts(dropna=False)),
                (df.i.astype("category").value_counts(sort=False),
                 p.i.astype("category").value_counts(sort=False)),
                (df.k.astype(pd.CategoricalDtype(["c", "a"])),
                 p.k.astype(pd.CategoricalDtype(["c", "a"]))),
                (df.astype({"i": "float64", "s": "category"}),
                 p.astype({"i": "float64", "s": "category"})),
                (df.groupby(md.cut(df.age, bins)).amt.mean(),
                 p.groupby(pd.cut(p.age, bins)).amt.mean()),
                (df.amt.groupby(df.band).sum(), p.amt.groupby(p.band).sum()),
                (g.size(), h.size()),
                (df.groupby(["band", "k"]).i.sum(), p.groupby(["band", "k"]).i.sum()),
                (df.groupby(["k", "band"]).amt.max(), p.groupby(["k", "band"]).amt.max()),
                (df.groupby(["band", "kc"]).size(), p.groupby(["band", "kc"]).size()),
                (df.groupby("band", observed=True).amt.sum(),
                 p.groupby("band", observed=True).amt.sum()),
                (df.groupby("band", as_index=False).i.sum(),
                 p.groupby("band", as_index=False).i.sum()),
                (g.agg(t=("amt", "sum"), m=("i", "max"), c=("s", "count")),
                 h.agg(t=("amt", "sum"), m=("i", "max"), c=("s", "count"))),
                (df[df.amt > 0.5].groupby("band").size(), p[p.amt > 0.5].groupby("band").size()),
                (df.groupby("kc").s.nunique(), p.groupby("kc").s.nunique()),
                (df.sort_values(["k", "band"], ascending=[True, False])[["k", "band"]],
                 p.sort_values(["k", "band"], ascending=[True, False], kind="stable")[
                     ["k", "band"]]),
                (df.band.sort_values(ascending=False).head(30),
                 p.band.sort_values(ascending=False, kind="stable").head(30)),
                (df.dropna().band.tail(3), p.dropna().band.tail(3)),
                (df[["i", "band"]].rename(columns={"band": "b2"}).b2.reset_index(),
                 p[["i", "band"]].rename(columns={"band": "b2"}).b2.reset_index()),
                (df.kc.cat.codes, p.kc.cat.codes),
                (df.kc.cat.reorder_categories(["c", "a", "b"], ordered=True).sort_values(),
                 p.kc.cat.reorder_categories(["c", "a", "b"], ordered=True).sort_values(
                     kind="stable")),
                (df.kc.cat.add_categories(["z"]).value_counts(),
                 p.kc.cat.add_categories(["z"]).value_counts()),
                (df.kc.cat.remove_categories(["b"]).value_counts(dropna=False),
                 p.kc.cat.remove_categories(["b"]).value_counts(dropna=False)),
                (df.kc.cat.set_categories(["a", "c", "q"]), p.kc.cat.set_categories(["a", "c", "q"])),
                (df.kc.cat.rename_categories({"a": "A"}), p.kc.cat.rename_categories({"a": "A"})),
                (df.band.cat.rename_categories(list("vwxyz")),
                 p.band.cat.rename_categories(list("vwxyz"))),
                (df.band.cat.remove_unused_categories().value_counts(),
                 p.band.cat.remove_unused_categories().value_counts()),
                (df.s.astype(o) < "y", p.s.astype(o) < "y"),
                (df.band.astype(str), p.band.astype(str)),
                (df.groupby("band").head(2), p.groupby("band").head(2)),
                (df.iloc[5:20], p.iloc[5:20]),
                (df.loc[df.i > 3, ["band", "kc"]], p.loc[p.i > 3, ["band", "kc"]]),
                (md.read_csv("cats.csv", dtype={"k": "category", "i": "category"}),
                 pd.read_csv(path, dtype={"k": "category", "i": "category"})),
                (md.read_csv("cats.csv", dtype="category", usecols=["k", "s"]),
                 pd.read_csv(path, dtype="category", usecols=["k", "s"])),
                (md.read_csv("cats.csv", dtype={"k": pd.CategoricalDtype(["b", "a"])}),
                 pd.read_csv(path, dtype={"k": pd.CategoricalDtype(["b", "a"])})),
                (md.read_csv("cats.csv", dtype={"s": "category"}).groupby("s").amt.sum(),
                 pd.read_csv(path, dtype={"s": "category"}).groupby("s").amt.sum()),
            ]
            tables = [  # fetched as pandas makes them of the groupby's every group
                (md.crosstab(df.band, df.k), pd.crosstab(p.band, p.k)),
                (md.crosstab(df.k, df.band), pd.crosstab(p.k, p.band)),
                (df.groupby(["band", "k"]).amt.sum().unstack(),
                 p.groupby(["band", "k"]).amt.sum().unstack()),
                (df.groupby(["band", "k"]).amt.mean().unstack(0),
                 p.groupby(["band", "k"]).amt.mean().unstack(0)),
                (df.groupby(["k", "band"]).size().unstack(fill_value=0),
                 p.groupby(["k", "band"]).size().unstack(fill_value=0)),
                (df.pivot_table(values="i", index="band", columns="kc", aggfunc="max",
                                fill_value=0),
                 p.pivot_table(values="i", index="band", columns="kc", aggfunc="max",
                               fill_value=0)),
            ]
            for f in ("sum", "mean", "count", "max"):
                tables += [(df.pivot_table(values="amt", index="band", columns="k", aggfunc=f),
                            p.pivot_table(values="amt", index="band", columns="k", aggfunc=f)),
                           (df.pivot_table(values="i", index="k", columns="band", aggfunc=f),
                            p.pivot_table(values="i", index="k", columns="band", aggfunc=f)),
                           (md.pivot_table(df, values="i", index="band", aggfunc=f),
                            pd.pivot_table(p, values="i", index="band", aggfunc=f))]
            gs, hs = g.amt.sum(), h.amt.sum()
            made = [  # what is made of the every-group results, as pandas makes it
                (df.groupby(["band", "k"]).i.sum().reset_index(),
                 p.groupby(["band", "k"]).i.sum().reset_index()),
                (g.size().reset_index(name="n").sort_values("n").tail(3),
                 h.size().reset_index(name="n").sort_values("n").tail(3)),
                (gs.reset_index(drop=True), hs.reset_index(drop=True)),
                (gs.head(2), hs.head(2)), (gs.sort_values(), hs.sort_values()),
                (gs / g.amt.count(), hs / h.amt.count()),
                ((gs / g.i.sum()).round(2), (hs / h.i.sum()).round(2)),
                (100 * g.amt.mean() / 2, 100 * h.amt.mean() / 2),
                (g.size().rename("n").to_frame(), h.size().rename("n").to_frame()),
                (g.amt.mean().fillna(0), h.amt.mean().fillna(0)), (-gs, -hs),
                (g.size() > 60, h.size() > 60),
                (df.merge(df[["i", "kc"]].drop_duplicates("i").rename(columns={"kc": "k2"}),
                          on="i").groupby(["k2", "band"]).size(),
                 p.merge(p[["i", "kc"]].drop_duplicates("i").rename(columns={"kc": "k2"}),
                         on="i").groupby(["k2", "band"]).size()),
            ]
            for got, want in tables + made:
                if isinstance(want, pd.Series):
                    pd.testing.assert_series_equal(got.fetch(), want)
                else:
                    pd.testing.assert_frame_equal(got.fetch(), want)
            for f in ("sum", "mean", "min", "max", "count", "prod", "first", "last", "nunique",
                      "median", "std"):
                cols = ["amt", "i"] + (["k"] if f in ("min", "max", "count", "first", "last",
                                                      "nunique") else [])
                pairs.append((getattr(g[cols], f)(), getattr(h[cols], f)()))
            self.same_as_pandas(pairs)  # means and std: summed chunk by chunk
            self.assertEqual(df.kc.dtype, p.kc.dtype)
            self.assertEqual(list(df.band.cat.categories), list(p.band.cat.categories))
            self.assertTrue(df.band.cat.ordered)
            for got, want in ((df.band.max(), p.band.max()), (df.s.astype(o).min(),
                                                            p.s.astype(o).min()),
                              (df.kc.cat.as_ordered().max(), p.kc.cat.as_ordered().max())):
                self.assertEqual(got.fetch(), want)
            self.assertEqual(repr(df.kc.unique().fetch()), repr(p.kc.unique()))
            with self.assertRaisesRegex(TypeError, "does not support reduction 'sum'"):
                df.kc.sum()
            with self.assertRaisesRegex(TypeError, "not ordered for operation max"):
                df.kc.max()
            with self.assertRaisesRegex(TypeError, "Unordered Categoricals"):
                df.kc < "b"
            with self.assertRaisesRegex(NotImplementedError, "observed=True"):
                g.amt.agg(lambda s: s.max() - s.min())
            want = p.groupby("band", observed=True).amt.agg(lambda s: s.max() - s.min())
            pd.testing.assert_series_equal(df.groupby("band", observed=True).amt.agg(
                lambda s: s.max() - s.min()).fetch(), want)

    def test_periods(self):
        """s.dt.to_period(freq) through a cluster, each frequency pandas
        names (M, Q, A, Y, W, D, H, T, min, S): fetched as pandas' periods
        (NaT kept), as groupby keys (one, two, as_index False), in frames,
        value_counts, unstack and pivot_table, sorts, astype(str), the
        periods' fields (-1 for NaT, as pandas) and start_time."""
        rng = np.random.default_rng(5)
        n = 300
        ts = pd.Series(pd.Timestamp("2023-01-01") +
                       pd.to_timedelta(rng.integers(0, 800 * 86400, n), unit="s"))
        ts[[4, 77]] = pd.NaT
        frame = pd.DataFrame({"ts": ts, "v": rng.integers(0, 100, n), "k": rng.choice(list("ab"), n)})
        with uploaded_csv("periods.csv", frame, parse_dates=["ts"]) as p:
            df = md.read_csv("periods.csv", parse_dates=["ts"], chunk_bytes=2000)
            pairs = []
            for f in ("M", "Q", "A", "Y", "W", "D", "H", "T", "min", "S"):
                pairs += [(df.ts.dt.to_period(f), p.ts.dt.to_period(f)),
                          (df.groupby(df.ts.dt.to_period(f)).v.sum(),
                           p.groupby(p.ts.dt.to_period(f)).v.sum())]
                if f not in ("Q", "W"):
                    pairs.append((df.ts.dt.to_period(f).astype(str),
                                  p.ts.dt.to_period(f).astype(str)))
            df["m"] = df.ts.dt.to_period("M")
            p["m"] = p.ts.dt.to_period("M")
            pairs += [
                (df, p),
                (df.m.value_counts(sort=False), p.m.value_counts(sort=False)),
                (df.groupby(["m", "k"]).v.mean(), p.groupby(["m", "k"]).v.mean()),
                (df.groupby("m", as_index=False).v.sum(), p.groupby("m", as_index=False).v.sum()),
                (df.m.dt.start_time, p.m.dt.start_time),
                (df.m.dt.year, p.m.dt.year),
                (df.m.dt.quarter, p.m.dt.quarter),
                (df.sort_values(["m", "v"])[["m", "v"]],
                 p.sort_values(["m", "v"], kind="stable")[["m", "v"]]),
                (df[df.v > 50].m.head(20), p[p.v > 50].m.head(20)),
            ]
            self.same_as_pandas(pairs, exact=True)
            for got, want in ((df.groupby(["m", "k"]).v.sum().unstack(),
                               p.groupby(["m", "k"]).v.sum().unstack()),
                              (df.pivot_table(values="v", index="m", columns="k", aggfunc="sum"),
                               p.pivot_table(values="v", index="m", columns="k", aggfunc="sum"))):
                pd.testing.assert_frame_equal(got.fetch(), want)
            with self.assertRaisesRegex(NotImplementedError, "frequencies are"):
                df.ts.dt.to_period("2M")

    def test_pandas_idioms_third(self):
        """Notebook lines against pandas: groupby(dropna=False) of
        aggregations and size (refused for the rest), df.where and df.mask
        of a bool Series (datetimes stay datetimes, NaT), df.columns and
        df.dtypes of a frame not run yet, value_counts(subset) through
        head, iterating over unique(), df.loc[df.x.idxmax()]."""
        rng = np.random.default_rng(17)
        n = 500
        frame = pd.DataFrame({
            "ts": (pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 10 ** 7, n),
                                                                 unit="s")),
            "amount": np.round(rng.gamma(2, 30, n), 2), "qty": rng.integers(1, 10, n),
            "status": rng.choice(["paid", "refunded", "pending", None], n),
            "city": rng.choice(["Paris", "Lyon", None], n)})
        with uploaded_csv("idioms3.csv", frame, parse_dates=["ts"]) as p:
            df = md.read_csv("idioms3.csv", parse_dates=["ts"], chunk_bytes=4000)
            self.assertEqual(df.columns.tolist(), p.columns.tolist())  # runs head(0)
            by_position = md.read_csv("idioms3.csv", parse_dates=[0], chunk_bytes=4000)
            pd.testing.assert_frame_equal(by_position.fetch(), p)  # its header read first
            self.assertEqual(df.dtypes.to_dict(), p.dtypes.to_dict())  # runs it
            pairs = [
                (df.groupby("status", dropna=False).size(),
                 p.groupby("status", dropna=False).size()),
                (df.groupby("status", dropna=False).amount.sum(),
                 p.groupby("status", dropna=False).amount.sum()),
                (df.groupby(["status", "city"], dropna=False).qty.agg(["min", "max"]),
                 p.groupby(["status", "city"], dropna=False).qty.agg(["min", "max"])),
                (df.groupby("status", dropna=False).agg(k=("qty", "count"), s=("amount", "sum")),
                 p.groupby("status", dropna=False).agg(k=("qty", "count"), s=("amount", "sum"))),
                (df.groupby("status", dropna=False, as_index=False).amount.mean(),
                 p.groupby("status", dropna=False, as_index=False).amount.mean()),
                (df.where(df.amount > 100), p.where(p.amount > 100)),
                (df.mask(df.amount > 100), p.mask(p.amount > 100)),
                (df.ts.where(df.qty > 4), p.ts.where(p.qty > 4)),
                (df.value_counts(["status"]).head(2), p.value_counts(["status"]).head(2)),
            ]
            self.same_as_pandas(pairs)
            with self.assertRaisesRegex(NotImplementedError, r"dropna=False\)\.transform"):
                df.groupby("status", dropna=False).amount.transform("sum")
            self.assertEqual(sorted(df.status.dropna().unique()),
                             sorted(p.status.dropna().unique()))
            self.assertEqual(df.loc[df.amount.idxmax(), "qty"].fetch(),
                             p.loc[p.amount.idxmax(), "qty"])
            # datetime and timedelta scalars: pandas' Timestamp and Timedelta
            d, q = df.ts - df.ts.shift(1), p.ts - p.ts.shift(1)
            df["t2"], p["t2"] = df.ts.dt.floor("h"), p.ts.dt.floor("h")
            scalars = [(getattr(df.ts, f)(), getattr(p.ts, f)())
                       for f in ("min", "max", "median", "mean")]
            scalars += [(getattr(d, f)(), getattr(q, f)())
                        for f in ("min", "max", "median", "mean", "sum")]
            scalars += [(df.ts.max() - df.ts.min(), p.ts.max() - p.ts.min()),
                        (df[df.qty > 5].t2.min(), p[p.qty > 5].t2.min()),
                        (md.to_datetime(df.qty * 86400, unit="s").max(),
                         pd.to_datetime(p.qty * 86400, unit="s").max())]
            for got, want in scalars:
                got = got.fetch()
                self.assertEqual(type(got), type(want))
                # (a mean is a float sum, chunk by chunk: within a microsecond)
                self.assertLessEqual(abs(got - want), pd.Timedelta("1us"), (got, want))
            # one position, one label, slices: pandas' scalars and rows
            s, q = df.amount, p.amount
            for got, want in ((s.iloc[0], q.iloc[0]), (s.iloc[-1], q.iloc[-1]),
                              (df.iloc[2, 1], p.iloc[2, 1]), (s[5], q[5]),
                              (df.qty.mode()[0], p.qty.mode()[0]),
                              (df.groupby("status").qty.sum()["paid"],
                               p.groupby("status").qty.sum()["paid"])):
                self.assertEqual(got.fetch(), want)
            pd.testing.assert_series_equal(df.iloc[7].fetch(), p.iloc[7])
            pd.testing.assert_series_equal(s[:4].fetch(), q[:4])
            pd.testing.assert_series_equal(s[[3, 1]].fetch(), q[[3, 1]])
            pd.testing.assert_series_equal(df.describe().loc["mean"].round(3).fetch(),
                                           p.describe().loc["mean"].round(3))
            with self.assertRaisesRegex(IndexError, "out-of-bounds"):
                s.iloc[10 ** 6].fetch()
            # {old: new} of numbers, and Python's regex escapes
            pd.testing.assert_series_equal(df.qty.replace({1: 100, 2: 200}).fetch(),
                                           p.qty.replace({1: 100, 2: 200}))
            pd.testing.assert_frame_equal(
                df.ts.astype(str).str.extract(r"(\d{4})-(\d\d)").fetch(),
                p.ts.astype(str).str.extract(r"(\d{4})-(\d\d)"))
            for pat in (r"\d5$", r"^\w+\s*$", r"[\d.]+0\b", r"\D", r"\bpa", r"(\d)\1"):
                pd.testing.assert_series_equal(df.amount.astype(str).str.contains(pat).fetch(),
                                               p.amount.astype(str).str.contains(pat))
            with self.assertRaisesRegex(NotImplementedError, "no POSIX extended form"):
                df.status.str.contains(r"\Apaid")
            # astype(str) of datetimes: pandas' format of the whole column
            texts = [(df.ts.astype(str), p.ts.astype(str)),
                     (df.ts.dt.normalize().astype(str), p.ts.dt.normalize().astype(str)),
                     (df.ts.where(df.qty > 5).astype(str), p.ts.where(p.qty > 5).astype(str))]
            for unit in ("ms", "us", "ns"):
                texts.append(((df.ts + md.to_timedelta(df.qty * 7, unit=unit)).astype(str),
                              (p.ts + pd.to_timedelta(p.qty * 7, unit=unit)).astype(str)))
            self.same_as_pandas(texts)
            # groupby(level=), tables' further ops, agg's MultiIndex columns, bins
            g, h = df.groupby(["status", "city"]), p.groupby(["status", "city"])
            t, u = g.size().unstack(fill_value=0), h.size().unstack(fill_value=0)
            more = [
                (g.amount.sum().groupby(level=0).max(), h.amount.sum().groupby(level=0).max()),
                (g.qty.mean().groupby(level="city").mean(),
                 h.qty.mean().groupby(level="city").mean()),
                (t.head(2), u.head(2)), (t["Paris"], u["Paris"]), (t.sum(), u.sum()),
                (t.sum(axis=1), u.sum(axis=1)), ((t / len(df)).round(3), (u / len(p)).round(3)),
                (df.pivot_table(index="city", columns="status", values="qty", aggfunc="mean",
                                fill_value=0).round(2),
                 p.pivot_table(index="city", columns="status", values="qty", aggfunc="mean",
                               fill_value=0).round(2)),
                (md.crosstab(df.city, df.status).idxmax(axis=1),
                 pd.crosstab(p.city, p.status).idxmax(axis=1)),
                (t.iloc[:1], u.iloc[:1]), (t.loc["paid"], u.loc["paid"]),
                (t.loc[["paid", "pending"], "Lyon"], u.loc[["paid", "pending"], "Lyon"]),
                (df.groupby("status").agg({"amount": ["sum", "mean"], "qty": "max"}),
                 p.groupby("status").agg({"amount": ["sum", "mean"], "qty": "max"})),
                (df.groupby("status")[["amount", "qty"]].agg(["sum", "mean"]).round(2),
                 p.groupby("status")[["amount", "qty"]].agg(["sum", "mean"]).round(2)),
                (g.agg({"qty": ["min", "max", "count"]})["qty"]["max"],
                 h.agg({"qty": ["min", "max", "count"]})["qty"]["max"]),
                (df.amount.value_counts(bins=4), p.amount.value_counts(bins=4)),
                (df.amount.value_counts(bins=[0, 50, 100, 1000], sort=False, normalize=True),
                 p.amount.value_counts(bins=[0, 50, 100, 1000], sort=False, normalize=True)),
                (df.amount.where(df.qty > 3).value_counts(bins=3, dropna=False),
                 p.amount.where(p.qty > 3).value_counts(bins=3, dropna=False)),
            ]
            more += [  # merge's indicator, groupby(sort=False), value_counts' further ops
                (df.merge(df.head(40)[["qty"]].drop_duplicates().assign(k=1), on="qty",
                          how="outer", indicator=True)._merge.value_counts(),
                 p.merge(p.head(40)[["qty"]].drop_duplicates().assign(k=1), on="qty",
                         how="outer", indicator=True)._merge.value_counts()),
                (df.groupby("city", sort=False).qty.sum(), p.groupby("city", sort=False).qty.sum()),
                (df.groupby(["city", "status"], sort=False, as_index=False).amount.mean(),
                 p.groupby(["city", "status"], sort=False, as_index=False).amount.mean()),
                (df.groupby("status", sort=False).size().head(2),
                 p.groupby("status", sort=False).size().head(2)),
                (df.ts.dt.to_period("W").value_counts().sort_index().head(3),
                 p.ts.dt.to_period("W").value_counts().sort_index().head(3)),
                (md.cut(df.amount, [0, 50, 100, 400]).value_counts().sort_index(),
                 pd.cut(p.amount, [0, 50, 100, 400]).value_counts().sort_index()),
                (df.set_index("ts").amount.resample("W").agg(["sum", "count"]),
                 p.set_index("ts").amount.resample("W").agg(["sum", "count"])),
            ]
            for kw in ({"margins": True}, {"normalize": "index"}, {"normalize": True},
                       {"normalize": "columns", "margins": True},
                       {"normalize": "all", "margins": True, "margins_name": "Total"}):
                more.append((md.crosstab(df.city, df.status, **kw).round(6),
                             pd.crosstab(p.city, p.status, **kw).round(6)))
            for f in ("sum", "mean", "count", "max"):
                more.append((df.pivot_table(values="qty", index="city", columns="status",
                                            aggfunc=f, margins=True).round(6),
                             p.pivot_table(values="qty", index="city", columns="status",
                                           aggfunc=f, margins=True).round(6)))
            more.append((df.pivot_table(values="amount", index="city", aggfunc="sum",
                                        margins=True, margins_name="Tot").round(6),
                         p.pivot_table(values="amount", index="city", aggfunc="sum",
                                       margins=True, margins_name="Tot").round(6)))
            # plot: pandas' accessor of the fetched result (matplotlib draws, where installed)
            acc = g.amount.sum().plot
            self.assertEqual(type(acc).__name__, "PlotAccessor")
            pd.testing.assert_series_equal(acc._parent, h.amount.sum())
            # rows of bools reduced, columns renamed by their str methods
            self.assertEqual(int(df.isna().any(axis=1).sum().fetch()),
                             int(p.isna().any(axis=1).sum()))
            self.assertEqual(int((df[["qty"]] > 5).all(axis=1).sum().fetch()),
                             int((p[["qty"]] > 5).all(axis=1).sum()))
            renamed = df.copy()
            renamed.columns = renamed.columns.str.upper()
            renamed["EXTRA"] = 1
            self.assertEqual(renamed.fetch().columns.tolist(),
                             p.columns.str.upper().tolist() + ["EXTRA"])
            self.assertEqual(df.fetch().columns.tolist(), p.columns.tolist())  # as it was
            # describe of strings, datetimes and categoricals: pandas' object summary
            for got, want in ((df.status.describe(), p.status.describe()),
                              (df[["status", "city"]].describe(), p[["status", "city"]].describe()),
                              (df.ts.describe(), p.ts.describe()),
                              (md.cut(df.amount, 3).describe(), pd.cut(p.amount, 3).describe()),
                              (df.describe(include="all"), p.describe(include="all"))):
                if isinstance(want, pd.Series):
                    pd.testing.assert_series_equal(got, want)
                else:
                    pd.testing.assert_frame_equal(got, want)
            for got, want in more:  # (resample's bins come without freq: documented)
                got = got.fetch()
                if isinstance(want, pd.Series):
                    pd.testing.assert_series_equal(got, want, check_freq=False)
                else:
                    pd.testing.assert_frame_equal(got, want, check_freq=False)
            # scalars as operands: the last 30 days, days since the first
            recent = [
                (df[df.ts > df.ts.max() - pd.Timedelta("30D")],
                 p[p.ts > p.ts.max() - pd.Timedelta("30D")]),
                (df[df.ts <= df.ts.min() + pd.Timedelta(hours=36)],
                 p[p.ts <= p.ts.min() + pd.Timedelta(hours=36)]),
                ((df.ts - df.ts.min()).dt.days, (p.ts - p.ts.min()).dt.days),
                (df.ts.where(df.qty > 5) < df.ts.median(), p.ts.where(p.qty > 5) < p.ts.median()),
                (df.ts != df.ts.max(), p.ts != p.ts.max()),
            ]
            self.same_as_pandas(recent)
            self.assertEqual((df.ts.max() - pd.Timedelta(days=7)).fetch(),
                             p.ts.max() - pd.Timedelta(days=7))
            span = df.ts.max() - df.ts.min()
            self.assertEqual(span.days.fetch(), (p.ts.max() - p.ts.min()).days)
            self.assertAlmostEqual(float(span.total_seconds().fetch()),
                                   (p.ts.max() - p.ts.min()).total_seconds())

    def test_to_numeric(self):
        """md.to_numeric of strings through a cluster, every errors mode:
        int64 where every value is an integer, float64 otherwise, what
        pandas reads as a number and what it refuses ("nan", " ", "1_000",
        "0x10" ...), pandas' error naming the string and its position;
        df.apply(pd.to_numeric, errors="coerce") and df[[a, b]] = ...; a
        column of numbers as it is."""
        cases = [["1", "2", "-3"], ["1", "2.5"], ["1", None], ["1", "x", "y"], [" 1", "2 "],
                 ["1e3", "inf", "-Inf", "nan"], ["", "1"], ["+5", "007", "-0"], ["1.0", "2.0"],
                 [" 1.5 ", ".5", "5.", "1e-2", "1E2", "\u22121", "infinity", "INF", "1e", "e5",
                  ".", "1.2.3", "+.5", "1e+05", " ", "\t1\t", "1 2", "- 1", "0x10", "1_000",
                  "NA", "True"], [" "], ["123456789012345678", "-5"]]
        width = max(len(v) for v in cases)
        frame = pd.DataFrame({"c%d" % i: pd.Series(v + [None] * (width - len(v)), dtype=object)
                              for i, v in enumerate(cases)})
        frame["n"] = np.arange(width)
        with uploaded_csv("tonum.csv", frame, keep=True) as (_, path):
            def read(mod, where):
                return mod.read_csv(where, dtype={c: str for c in frame.columns if c != "n"},
                                    keep_default_na=False, na_values=[""])
            df, p = read(md, "tonum.csv"), read(pd, path)
            for i, v in enumerate(cases):
                col = "c%d" % i
                m = df[col].head(len(v)) if len(v) < width else df[col]
                q = p[col].head(len(v)) if len(v) < width else p[col]
                for errors in ("raise", "coerce", "ignore"):
                    try:
                        want = pd.to_numeric(q, errors=errors)
                    except ValueError as e:
                        with self.assertRaises(ValueError) as got:
                            md.to_numeric(m, errors=errors)
                        self.assertEqual(str(got.exception), str(e))
                        continue
                    pd.testing.assert_series_equal(md.to_numeric(m, errors=errors).fetch(), want,
                                                   obj="%r %s" % (v, errors))
            pd.testing.assert_series_equal(md.to_numeric(df.n).fetch(), pd.to_numeric(p.n))
            cols = ["c1", "c3"]
            df[cols] = df[cols].apply(pd.to_numeric, errors="coerce")
            p[cols] = p[cols].apply(pd.to_numeric, errors="coerce")
            pd.testing.assert_frame_equal(df.fetch(), p)
            self.assertEqual(md.to_numeric(["1", "2.5"]).tolist(), [1.0, 2.5])

    def test_map(self):
        """s.map of a dict and of a pandas Series through a cluster, over
        many chunks: codes to names (strings), to numbers (int64 where
        every code is known, float64 with NaN where not), na_action; equal
        to pandas' Series.map. A function is refused before anything is
        sent."""
        rng = np.random.default_rng(31)
        n = 600
        code = rng.integers(0, 8, n)
        city = rng.choice(["paris", "lyon", "nice"], n).astype(object)
        city[rng.random(n) < 0.1] = None
        with uploaded_csv("map.csv", pd.DataFrame({"code": code, "city": city})) as p:
            df = md.read_csv("map.csv", chunk_bytes=400)
            names = {k: "n%d" % k for k in range(6)}
            lut = pd.Series(np.arange(8) * 10, index=np.arange(8))
            pairs = [
                (df.code.map(names), p.code.map(names)),
                (df.code.map(lut), p.code.map(lut)),
                (df.code.map({0: 1.5, 7: -2}), p.code.map({0: 1.5, 7: -2})),
                (df.city.map({"paris": 75, "nice": 6}), p.city.map({"paris": 75, "nice": 6})),
                (df.city.map({"lyon": True, np.nan: False}, na_action="ignore"),
                 p.city.map({"lyon": True, np.nan: False}, na_action="ignore")),
            ]
            self.same_as_pandas(pairs, exact=True)
            # + of strings: concatenation, missing where a side is
            named = df.code.map(names)
            self.same_as_pandas([(named + "/" + df.city, p.code.map(names) + "/" + p.city),
                                 ("#" + df.city, "#" + p.city),
                                 (df.city.str.extract(r"(?P<first>.)(.*)(.)"),
                                  p.city.str.extract(r"(?P<first>.)(.*)(.)")),
                                 (df.city.str.extract(r"([aeiou])", expand=False),
                                  p.city.str.extract(r"([aeiou])", expand=False)),
                                 (df.city.str.cat(named, sep=":"), p.city.str.cat(
                                     p.code.map(names), sep=":")),
                                 (df.city.str.cat([named, df.city], na_rep="?"), p.city.str.cat(
                                     [p.code.map(names), p.city], na_rep="?")),
                                 (named.rename("name"), p.code.map(names).rename("name"))],
                                exact=True)
            with self.assertRaisesRegex(NotImplementedError, r"open\(v\) is not supported"):
                df.code.map(lambda v: open(v))

    def test_sort_na_position(self):
        """sort_values and sort_index with na_position="first" through a
        cluster over many chunks (the sample sort's first range takes the
        rows missing a key): a DataFrame by two keys in both directions, a
        Series descending, an index with missing labels; equal to pandas'
        stable sorts. And nunique(dropna=False) of the same frame and of a
        Series, and rank with na_option top and bottom."""
        rng = np.random.default_rng(35)
        n = 700
        f = np.round(rng.standard_normal(n), 2)
        f[rng.random(n) < 0.15] = np.nan
        s = rng.choice(["a", "b", "c"], n).astype(object)
        s[rng.random(n) < 0.1] = None
        with uploaded_csv("nasort.csv", pd.DataFrame({"f": f, "s": s,
                                                      "i": rng.integers(0, 5, n)})) as p:
            df = md.read_csv("nasort.csv", chunk_bytes=500)
            pairs = [
                (df.sort_values(["s", "f"], ascending=[True, False], na_position="first"),
                 p.sort_values(["s", "f"], ascending=[True, False], na_position="first",
                               kind="mergesort")),
                (df.f.sort_values(ascending=False, na_position="first"),
                 p.f.sort_values(ascending=False, na_position="first", kind="mergesort")),
                (df.set_index("f").sort_index(na_position="first"),
                 p.set_index("f").sort_index(na_position="first", kind="mergesort")),
                (df.nunique(dropna=False), p.nunique(dropna=False)),
                (df.isnull(), p.isnull()), (df.s.notnull(), p.s.notnull()),
                (df.rank(na_option="top", pct=True), p.rank(na_option="top", pct=True)),
                (df.f.rank(method="dense", ascending=False, na_option="bottom"),
                 p.f.rank(method="dense", ascending=False, na_option="bottom")),
            ]
            self.same_as_pandas(pairs, exact=True)
            # a Series' nunique is a scalar: missing values count once
            self.assertEqual(df.s.nunique(dropna=False).execute().fetch(),
                             p.s.nunique(dropna=False))
            self.assertEqual(df.f.nunique().execute().fetch(), p.f.nunique())

    def test_rolling_step(self):
        """rolling(step=k) over many chunks: every k-th row's window, as
        pandas 1.5 (the windows over all rows, then [::k]: sums within
        rounding of pandas', whose stepped windows add and remove values in
        another order); centred and with min_periods too; a window of time
        with a step is refused as pandas refuses it."""
        rng = np.random.default_rng(39)
        n = 300
        x = np.round(rng.standard_normal(n), 3)
        x[rng.random(n) < 0.1] = np.nan
        with uploaded_csv("step.csv", pd.DataFrame({"x": x, "i": rng.integers(0, 50, n)})) as p:
            df = md.read_csv("step.csv", chunk_bytes=400)
            # min, max, count: exact; sums and means within rounding (pandas'
            # stepped windows add and remove their values in another order)
            self.same_as_pandas([
                (df.i.rolling(5, step=7).max(), p.i.rolling(5, step=7).max()),
                (df.rolling(3, min_periods=2, step=4).count(),
                 p.rolling(3, min_periods=2, step=4).count())], exact=True)
            for got, want in ((df.rolling(3, step=2).sum(), p.rolling(3, step=2).sum()),
                              (df.x.rolling(4, min_periods=1, center=True, step=3).mean(),
                               p.x.rolling(4, min_periods=1, center=True, step=3).mean())):
                got = got.execute().fetch()
                self.assertTrue(got.index.equals(want.index))
                self.close(got, want, rtol=1e-12, atol=1e-12)
            with self.assertRaisesRegex(NotImplementedError, "frequency windows"):
                df.rolling("2h", step=2)

    def test_pivot(self):
        """df.pivot through a cluster over many chunks: days by cities,
        some pairs absent (float64 then, as pandas' one block), strings;
        a repeated pair fails as pandas' does, naming the rule."""
        rng = np.random.default_rng(37)
        day = np.repeat(np.arange(40), 3)
        city = np.tile(["paris", "lyon", "nice"], 40)
        keep = rng.random(len(day)) < 0.8
        frame = pd.DataFrame({"day": day, "city": city, "temp": rng.integers(-5, 30, len(day)),
                              "sky": rng.choice(["sun", "rain"], len(day))})[keep]
        with uploaded_csv("pivot.csv", frame.iloc[rng.permutation(len(frame))]) as p:
            df = md.read_csv("pivot.csv", chunk_bytes=300)
            pairs = [(df.pivot(index="day", columns="city", values="temp"),
                      p.pivot(index="day", columns="city", values="temp")),
                     (df.pivot(index="day", columns="city", values="sky"),
                      p.pivot(index="day", columns="city", values="sky"))]
            self.same_as_pandas(pairs, exact=True)  # the columns named as pandas'
            with self.assertRaisesRegex(Exception, "duplicate entries"):
                df.pivot(index="city", columns="sky", values="temp").execute()

    def test_pandas_idioms(self):
        """What a pandas notebook writes, against pandas: groupby agg with a
        dict, a list of funcs (numpy's too) and one func; a Series'
        reset_index; a groupby by a computed Series (df.day.dt.month);
        DataFrame.value_counts; crosstab; select_dtypes; shape and len;
        to_numpy; a Series' sum or mean as the scalar of an element-wise op
        (s / s.sum()); and clear refusals: apply with a Python function, a list
        of funcs over several columns, pandas' attributes that marsc lacks."""
        rng = np.random.default_rng(43)
        n = 400
        frame = pd.DataFrame({
            "city": rng.choice(["paris", "lyon", "nice"], n), "shop": rng.choice(["a", "b"], n),
            "day": pd.date_range("2024-01-01", periods=n, freq="17H").strftime("%Y-%m-%d %H:%M"),
            "qty": rng.integers(0, 20, n), "price": np.round(rng.random(n) * 100, 2)})
        frame.loc[rng.random(n) < 0.05, "price"] = np.nan
        with uploaded_csv("idioms.csv", frame, parse_dates=["day"]) as p:
            df = md.read_csv("idioms.csv", chunk_bytes=2000, parse_dates=["day"])
            g, pg = df.groupby("city"), p.groupby("city")
            pairs = [
                (g.agg({"qty": "sum", "price": "mean"}), pg.agg({"qty": "sum", "price": "mean"})),
                (g.qty.agg(["sum", "max", np.mean]), pg.qty.agg(["sum", "max", np.mean])),
                (g.price.agg("median"), pg.price.agg("median")),
                (g.qty.agg(total="sum", most=max), pg.qty.agg(total="sum", most=max)),
                (df.groupby(["city", "shop"]).price.mean().reset_index(),
                 p.groupby(["city", "shop"]).price.mean().reset_index()),
                (g.size().reset_index(name="n"), pg.size().reset_index(name="n")),
                (df.groupby(df.day.dt.month).qty.sum(), p.groupby(p.day.dt.month).qty.sum()),
                (df.groupby([df.city, df.day.dt.dayofweek]).qty.max(),
                 p.groupby([p.city, p.day.dt.dayofweek]).qty.max()),
                (df.value_counts(["city", "shop"]), p.value_counts(["city", "shop"])),
                (df[["city"]].value_counts(), p[["city"]].value_counts()),  # a MultiIndex of one level
                (df.value_counts(["shop", "city"], normalize=True, ascending=True),
                 p.value_counts(["shop", "city"], normalize=True, ascending=True)),
                (md.crosstab(df.city, df.shop),
                 pd.crosstab(p.city, p.shop)),
                (df.select_dtypes("number"), p.select_dtypes("number")),
                (df.select_dtypes(exclude=["number", "datetime"]),
                 p.select_dtypes(exclude=["number", "datetime"])),
                # a Series' reductions (0-d tensors) as the scalars of element-wise ops
                (df.qty / df.qty.sum(), p.qty / p.qty.sum()),
                ((df.price - df.price.mean()) / df.price.std(),
                 (p.price - p.price.mean()) / p.price.std()),
                (df.qty.max() - df.qty, p.qty.max() - p.qty),
                (df[df.qty > df.qty.mean()], p[p.qty > p.qty.mean()]),
                (g.qty.sum() / df.qty.sum(), pg.qty.sum() / p.qty.sum()),
                # several aggregations of one groupby meet: one groupby_agg computes them
                (g.qty.sum() / g.qty.count(), pg.qty.sum() / pg.qty.count()),
                ((g.qty.sum() * 2 - g.price.mean()) / g.size(),
                 (pg.qty.sum() * 2 - pg.price.mean()) / pg.size()),
                (df.groupby(["city", "shop"]).price.max() - df.groupby(["city", "shop"]).price.min(),
                 p.groupby(["city", "shop"]).price.max() - p.groupby(["city", "shop"]).price.min()),
                # a transform lines up with its frame
                (df.qty - g.qty.transform("mean"), p.qty - pg.qty.transform("mean")),
                (df.assign(run=g.qty.cumsum()), p.assign(run=pg.qty.cumsum())),
            ]
            self.same_as_pandas(pairs, exact=False)
            f = df[df.qty > 10]
            self.assertEqual(f.shape, p[p.qty > 10].shape)
            self.assertEqual(len(f), len(p[p.qty > 10]))
            self.assertEqual(len(df.qty), n)
            np.testing.assert_array_equal(f.qty.to_numpy(), p[p.qty > 10].qty.to_numpy())
            with self.assertRaisesRegex(NotImplementedError, r"sorted\(x\) is not supported"):
                df.qty.apply(lambda x: sorted(x))
            pd.testing.assert_frame_equal(g[["qty", "price"]].agg(["sum", "mean"]).fetch(),
                                          pg[["qty", "price"]].agg(["sum", "mean"]))
            pd.testing.assert_series_equal(g.qty.agg(lambda x: x.sum()).fetch(),
                                           pg.qty.agg(lambda x: x.sum()))
            with self.assertRaisesRegex(NotImplementedError, r"x\.cumsum is not supported"):
                g.qty.agg(lambda x: x.cumsum())
            with self.assertRaisesRegex(AttributeError, "pandas' DataFrame.to_period is not supported"):
                df.to_period
            with self.assertRaisesRegex(AttributeError, "pandas' ohlc is not supported"):
                g.ohlc

    def test_pandas_idioms_more(self):
        """More notebook lines against pandas: reductions along each row
        (sum, mean, min, max, count with axis=1, missing values skipped, a
        bool column counted, a row of none), str predicates with na=False,
        a resampler's attribute access, assign of a callable and of
        scalars, astype(str), numpy's ufuncs of a Series, a groupby
        column's describe."""
        rng = np.random.default_rng(47)
        n = 300
        a = np.round(rng.standard_normal(n), 3)
        a[rng.random(n) < 0.2] = np.nan
        b = np.round(rng.random(n) * 10, 2)
        b[rng.random(n) < 0.2] = np.nan
        a[:3] = b[:3] = np.nan  # rows without a value
        note = rng.choice(["gift", "promo X", "Promo y", None], n).astype(object)
        frame = pd.DataFrame({"a": a, "b": b, "i": rng.integers(-5, 5, n),
                              "ok": rng.random(n) < 0.5, "note": note,
                              "ts": pd.date_range("2024-01-01", periods=n, freq="7H")})
        with uploaded_csv("more.csv", frame, parse_dates=["ts"]) as p:
            df = md.read_csv("more.csv", chunk_bytes=1500, parse_dates=["ts"])
            num, pnum = df[["a", "b", "i", "ok"]], p[["a", "b", "i", "ok"]]
            g, pg = df.groupby("i"), p.groupby("i")
            pairs = [
                (num.sum(axis=1), pnum.sum(axis=1)), (num.mean(axis=1), pnum.mean(axis=1)),
                (num.min(axis=1), pnum.min(axis=1)), (num.max(axis=1), pnum.max(axis=1)),
                (df.count(axis=1), p.count(axis=1)),
                (df[["a", "b"]].max(axis=1), p[["a", "b"]].max(axis=1)),
                (df[df.note.str.contains("promo", case=False, na=False)],
                 p[p.note.str.contains("promo", case=False, na=False)]),
                (df.note.str.startswith("g", na=True), p.note.str.startswith("g", na=True)),
                (df.resample("D", on="ts").a.sum(), p.resample("D", on="ts").a.sum()),
                (df.assign(c=lambda d: d.a * 2, k=3, s="x", t=True),
                 p.assign(c=lambda d: d.a * 2, k=3, s="x", t=True)),
                (df.i.astype(str) + "!", p.i.astype(str) + "!"),
                (np.log(df.b + 1), np.log(p.b + 1)), (np.maximum(df.i, 0), np.maximum(p.i, 0)),
                (g.b.describe(), pg.b.describe()),
                (df.b.quantile([0.1, 0.5, 0.9]), p.b.quantile([0.1, 0.5, 0.9])),
                (df[["a", "b", "i"]].quantile([0.25, 0.75]), p[["a", "b", "i"]].quantile([0.25, 0.75])),
                (g.a.idxmax(), pg.a.idxmax()), (g.b.idxmin(), pg.b.idxmin()),
                (g[["a", "b"]].idxmax(), pg[["a", "b"]].idxmax()),
                (df.set_index("ts").groupby("i").a.idxmin(),
                 p.set_index("ts").groupby("i").a.idxmin()),
                # pandas' top-level functions
                (md.merge(df, df.groupby("i", as_index=False).a.max(), on="i"),
                 pd.merge(p, p.groupby("i", as_index=False).a.max(), on="i")),
                (md.melt(df[["i", "a"]], id_vars="i"), pd.melt(p[["i", "a"]], id_vars="i")),
                (md.isna(df.b), pd.isna(p.b)), (md.notnull(df[["a", "b"]]), pd.notnull(p[["a", "b"]])),
                # groupby(as_index=False): the keys as columns
                (df.groupby("i", as_index=False).b.mean(), p.groupby("i", as_index=False).b.mean()),
                (df.groupby("i", as_index=False).size(), p.groupby("i", as_index=False).size()),
                (df.groupby("i", as_index=False).agg(m=("a", "max")),
                 p.groupby("i", as_index=False).agg(m=("a", "max"))),
                # Series.groupby by a Series, ffill/bfill, asfreq, elapsed time
                ((df.a * 2).groupby(df.i).sum(), (p.a * 2).groupby(p.i).sum()),
                (df.b.groupby([df.i, df.ok]).max(), p.b.groupby([p.i, p.ok]).max()),
                (df.a.ffill(), p.a.ffill()), (df[["a", "b"]].bfill(), p[["a", "b"]].bfill()),
                (df.set_index("ts").a.asfreq("3H"), p.set_index("ts").a.asfreq("3H")),
                (df.groupby(pd.Grouper(key="ts", freq="D")).b.sum(),
                 p.groupby(pd.Grouper(key="ts", freq="D")).b.sum()),
                (df.groupby(pd.Grouper(key="ts", freq="M"))[["a", "i"]].max(),
                 p.groupby(pd.Grouper(key="ts", freq="M"))[["a", "i"]].max()),
                (df.set_index("ts")[["a", "i"]].asfreq("D"), p.set_index("ts")[["a", "i"]]
                 .asfreq("D")),
                (df.ts - df.ts.min(), p.ts - p.ts.min()),
                (df[df.ts < df.ts.max()], p[p.ts < p.ts.max()]),
            ]
            self.same_as_pandas(pairs)
            # loc assignment by a mask: an existing column, a new one, a Series value
            d2, p2 = md.read_csv("more.csv", chunk_bytes=1500, parse_dates=["ts"]), p.copy()
            d2.loc[d2.i < 0, "i"] = 0
            p2.loc[p2.i < 0, "i"] = 0
            d2.loc[d2.a > 0.5, "flag"] = "big"
            p2.loc[p2.a > 0.5, "flag"] = "big"
            d2.loc[d2.b.isna(), ["a", "b"]] = d2.a * 10
            p2.loc[p2.b.isna(), ["a", "b"]] = p2.a * 10
            pd.testing.assert_frame_equal(d2.fetch(), p2)
            got = df.set_index("ts").a.asfreq("3H").fetch()
            self.assertEqual(got.index.freq, p.set_index("ts").a.asfreq("3H").index.freq)
            self.assertAlmostEqual(float(df.a.corr(df.b).fetch()), p.a.corr(p.b), places=12)
            self.assertAlmostEqual(float(df.a.cov(df.i).fetch()), p.a.cov(p.i), places=12)
            pt = md.pivot_table(df, values="a", index="i", aggfunc="sum").fetch()
            pd.testing.assert_frame_equal(pt, pd.pivot_table(p, values="a", index="i",
                                                             aggfunc="sum"))
            np.testing.assert_array_equal(md.unique(df.i).fetch(), pd.unique(p.i))
            pd.testing.assert_series_equal(df.note.astype("category").value_counts().fetch(),
                                           p.note.astype("category").value_counts())

    def test_pandas_cleaning(self):
        """A data-cleaning notebook against pandas: rename by a function and
        by assigning columns, del, pop and insert, dropna of columns and
        with thresh, fillna by a reduction, by a frame's means and by a
        Series, replace per column, sort with a key, numeric_only, the
        exports (to_dict, to_list, to_csv, item) and to_frame."""
        rng = np.random.default_rng(53)
        n = 200
        frame = pd.DataFrame({"Name": rng.choice(["ann", "BOB", "Cid ", None], n),
                              "Age": rng.integers(18, 80, n).astype(float),
                              "Score": np.round(rng.random(n) * 100, 1),
                              "Team": rng.choice(["red", "blue"], n), "Empty": np.nan})
        frame.loc[rng.random(n) < 0.1, "Age"] = np.nan
        frame.loc[rng.random(n) < 0.1, "Score"] = np.nan
        with uploaded_csv("clean.csv", frame) as p:
            df = md.read_csv("clean.csv", chunk_bytes=2000)
            d2, p2 = md.read_csv("clean.csv", chunk_bytes=2000), p.copy()
            d2.columns = ["n", "a", "s", "t", "e"]
            p2.columns = ["n", "a", "s", "t", "e"]
            del d2["e"]
            del p2["e"]
            self.assertEqual(d2.pop("s").sum().fetch(), p2.pop("s").sum())
            d2.insert(1, "one", 1)
            p2.insert(1, "one", 1)
            d2.insert(0, "twice", d2.a * 2)
            p2.insert(0, "twice", p2.a * 2)
            u = p.assign(k=p.Name.fillna("").str.lower())
            pairs = [
                (d2, p2), (df.rename(columns=str.lower), p.rename(columns=str.lower)),
                (df.dropna(axis=1, how="all"), p.dropna(axis=1, how="all")),
                (df.dropna(axis=1), p.dropna(axis=1)),
                (df.dropna(axis=1, subset=[0, 1, 2]), p.dropna(axis=1, subset=[0, 1, 2])),
                (df.dropna(thresh=4), p.dropna(thresh=4)),
                (df.Age.fillna(df.Age.mean()), p.Age.fillna(p.Age.mean())),
                (df[["Age", "Score"]].fillna(df[["Age", "Score"]].mean()),
                 p[["Age", "Score"]].fillna(p[["Age", "Score"]].mean())),
                (df.Age.fillna(df.Score), p.Age.fillna(p.Score)),
                (df.replace({"Team": {"red": "R"}, "Name": {"ann": "Ann"}}),
                 p.replace({"Team": {"red": "R"}, "Name": {"ann": "Ann"}})),
                (df.Team.replace({"red": "R"}), p.Team.replace({"red": "R"})),
                (df.assign(k=df.Name.fillna("").str.lower()).sort_values(["k", "Age"]),
                 u.sort_values(["k", "Age"], kind="mergesort")),
                (df.sort_values("Name", key=lambda s: s.str.len()),
                 p.sort_values("Name", key=lambda s: s.str.len(), kind="mergesort")),
                (df.mean(numeric_only=True), p.mean(numeric_only=True)),
                (df.Score.to_frame(), p.Score.to_frame()),
                # a column named like a Series-only method is an attribute of the frame
                (df.rename(columns={"Team": "item"}).item,
                 p.rename(columns={"Team": "item"}).item),
                (df.Score.to_frame("x"), p.Score.to_frame("x")),
            ]
            self.same_as_pandas(pairs)
            g, pg = df.groupby("Team"), p.groupby("Team")
            got, want = g.Score.mean().to_dict(), pg.Score.mean().to_dict()
            self.assertEqual(list(got), list(want))
            for k in want:  # a Kahan sum over several chunks: within rounding (docs)
                self.assertAlmostEqual(got[k], want[k], places=12)
            self.assertEqual(df.Age.head(3).to_list(), p.Age.head(3).to_list())
            self.assertEqual(df.head(3).to_csv(index=False), p.head(3).to_csv(index=False))
            self.assertEqual(df.Age.max().fetch().item(), p.Age.max())
            self.assertEqual(df.Name.str.cat(sep="|", na_rep="-"),
                             p.Name.str.cat(sep="|", na_rep="-"))
            # split(expand=True): the parts counted first, a column each
            for kw in ({"pat": " "}, {"pat": "n", "n": 1}, {"pat": "."}):
                pd.testing.assert_frame_equal(df.Name.str.split(expand=True, **kw).fetch(),
                                              p.Name.str.split(expand=True, **kw))
            # pandas' attributes: run or fetched as needed
            self.assertEqual((df.Age * 2).name, "Age")
            self.assertEqual(df.Score.dtype, p.Score.dtype)
            self.assertEqual((df.ndim, df.Age.ndim, df.size), (p.ndim, p.Age.ndim, p.size))
            self.assertEqual((df.Age.is_unique, df.Age.hasnans, df.Age.dropna().hasnans),
                             (p.Age.is_unique, p.Age.hasnans, p.Age.dropna().hasnans))
            self.assertEqual(list(df.head(4).index), list(p.head(4).index))
            self.assertEqual(df.columns.tolist(), p.columns.tolist())
            # a whole frame's agg: lists and dicts assembled here
            num, pn = df[["Age", "Score"]], p[["Age", "Score"]]
            pd.testing.assert_frame_equal(num.agg(["sum", "mean", "max"]),
                                          pn.agg(["sum", "mean", "max"]))
            pd.testing.assert_series_equal(df.agg({"Age": "mean", "Score": "max"}),
                                           p.agg({"Age": "mean", "Score": "max"}))
            pd.testing.assert_frame_equal(df.agg({"Age": ["mean", "min"], "Score": "max"}),
                                          p.agg({"Age": ["mean", "min"], "Score": "max"}))
            pd.testing.assert_series_equal(df.Age.agg(["min", np.max, "count"]),
                                           p.Age.agg(["min", np.max, "count"]))
            # describe of string columns: assembled here (pandas' object column)
            for inc in ("all", "object"):
                pd.testing.assert_frame_equal(df.describe(include=inc), p.describe(include=inc))
            pd.testing.assert_series_equal(df.Team.describe(include="all"), p.Team.describe())
            with self.assertRaisesRegex(TypeError, "both the how and thresh"):
                df.dropna(how="all", thresh=2)

    def test_unstack(self):
        """Series.unstack through a cluster: a groupby's counts and means by
        two keys turned into a table, by the last level, by name and with
        fill_value (int64 kept, as pandas); a frame's set_index of two
        columns; a DataFrame is refused (MultiIndex columns)."""
        rng = np.random.default_rng(41)
        n = 500
        frame = pd.DataFrame({"city": rng.choice(["paris", "lyon", "nice", "brest"], n),
                              "month": rng.integers(1, 13, n),
                              "temp": rng.integers(-5, 30, n)})
        frame = frame[~((frame.city == "brest") & (frame.month > 9))]  # cells no row reaches
        with uploaded_csv("unstack.csv", frame) as p:
            df = md.read_csv("unstack.csv", chunk_bytes=700)
            g, pg = df.groupby(["city", "month"]), p.groupby(["city", "month"])
            last = p.drop_duplicates(["city", "month"], keep="last")
            pairs = [(g.size().unstack(), pg.size().unstack()),
                     (g.size().unstack("city", fill_value=0), pg.size().unstack("city",
                                                                               fill_value=0)),
                     (g.temp.max().unstack(0), pg.temp.max().unstack(0)),
                     (df.drop_duplicates(["city", "month"], keep="last")
                      .set_index(["month", "city"]).temp.unstack(fill_value=-99),
                      last.set_index(["month", "city"]).temp.unstack(fill_value=-99))]
            self.same_as_pandas(pairs, exact=True)  # the columns named as pandas'
            # a frame's: each column's, MultiIndex columns as pandas'; duplicate
            # labels fail with pandas' words
            one = df.drop_duplicates(["city", "month"]).set_index(["city", "month"])
            pd.testing.assert_frame_equal(
                one.unstack().fetch(),
                p.drop_duplicates(["city", "month"]).set_index(["city", "month"]).unstack())
            with self.assertRaisesRegex(Exception, "Index contains duplicate entries"):
                df.set_index(["city", "month"]).unstack().fetch()

    def test_get_dummies(self):
        """md.get_dummies through a cluster: a frame's string columns found
        from its dtypes, named columns with dummy_na and drop_first, a
        Series of integers (its values as labels); the categories found
        first over many chunks; then a dummy column summed; equal to
        pandas' pd.get_dummies with the same dtype (by default pandas
        1.5's uint8)."""
        rng = np.random.default_rng(33)
        n = 500
        city = rng.choice(["paris", "lyon", "nice"], n).astype(object)
        city[rng.random(n) < 0.1] = None
        with uploaded_csv("dummies.csv", pd.DataFrame({
                "city": city, "kind": rng.choice(["a", "b"], n), "code": rng.integers(0, 4, n),
                "v": rng.integers(0, 100, n)})) as p:
            df = md.read_csv("dummies.csv", chunk_bytes=400)
            d = md.get_dummies(df)
            pairs = [
                (d, pd.get_dummies(p)),
                (md.get_dummies(df, dtype=bool), pd.get_dummies(p, dtype=bool)),
                (md.get_dummies(df, columns=["city", "code"], dummy_na=True, drop_first=True,
                                dtype=int),
                 pd.get_dummies(p, columns=["city", "code"], dummy_na=True, drop_first=True,
                                dtype=int)),
                (md.get_dummies(df.code, prefix="c", dtype=float),
                 pd.get_dummies(p.code, prefix="c", dtype=float)),
                (md.get_dummies(df.code), pd.get_dummies(p.code)),
                (md.get_dummies(df.code, prefix="k", drop_first=True).head(7),
                 pd.get_dummies(p.code, prefix="k", drop_first=True).head(7)),
            ]
            self.same_as_pandas(pairs, exact=True)
            self.assertEqual(int(d["city_nice"].sum().fetch()), int((p.city == "nice").sum()))
            self.assertEqual(list(d.dtypes), list(pd.get_dummies(p).dtypes))
            with self.assertRaisesRegex(ValueError, "int16"):
                md.get_dummies(df, dtype=np.int16)

    def test_mode(self):
        """df.mode() and s.mode(dropna=False) through a cluster over many
        chunks: tied modes padded with NaN (int64 to float64), missing
        values counted (and by value_counts(dropna=False)), equal to
        pandas'."""
        rng = np.random.default_rng(35)
        n = 400
        s = rng.choice(["x", "y", "z"], n).astype(object)
        s[rng.random(n) < 0.4] = None
        with uploaded_csv("mode.csv", pd.DataFrame({
                "i": rng.permutation(np.array([1, 2] * (n // 2))), "s": s,
                "f": rng.integers(0, 50, n) / 4})) as p:
            df = md.read_csv("mode.csv", chunk_bytes=300)
            self.same_as_pandas([(df.mode(), p.mode()), (df.s.mode(dropna=False),
                                                         p.s.mode(dropna=False)),
                                 (df.s.value_counts(dropna=False, normalize=True),
                                  p.s.value_counts(dropna=False, normalize=True)),
                                 (df.mode(numeric_only=True), p.mode(numeric_only=True))],
                                exact=True)
            u = df.s.unique().fetch()
            self.assertEqual(type(u), type(p.s.unique()))
            self.assertEqual([None if x is None or x != x else x for x in u],
                             [None if x is None or x != x else x for x in p.s.unique()])
            np.testing.assert_array_equal(df.i.unique().fetch(), p.i.unique())
            got = df.describe(percentiles=[0.1, 0.9]).fetch()
            want = p.describe(percentiles=[0.1, 0.9])
            self.assertEqual(list(got.index), list(want.index))
            self.close(got.to_numpy(), want.to_numpy(), "describe", rtol=1e-12, atol=0)

    def test_merge_asof(self):
        """md.merge_asof through a cluster: trades matched with the last
        quote of their symbol (by), the next one, the nearest within a
        Timedelta, across many chunks of both sides, equal to pandas."""
        rng = np.random.default_rng(25)
        nl, nr = 400, 900
        base = pd.Timestamp("2024-05-01 09:30")
        lt = np.sort(rng.integers(0, 20000, nl))
        rt = np.sort(rng.integers(0, 20000, nr))
        trades = pd.DataFrame({"ts": (base + pd.to_timedelta(lt, unit="s")).astype(str),
                               "sym": rng.choice(["AAPL", "MSFT", "\u00c9DF"], nl),
                               "qty": rng.integers(1, 500, nl)})
        quotes = pd.DataFrame({"ts": (base + pd.to_timedelta(rt, unit="s")).astype(str),
                               "sym": rng.choice(["AAPL", "MSFT", "\u00c9DF", "IBM"], nr),
                               "bid": np.round(rng.uniform(90, 110, nr), 2),
                               "size": rng.integers(1, 9, nr)})
        with uploaded_csv("tr.csv", trades, parse_dates=["ts"]) as pt, \
                uploaded_csv("qu.csv", quotes, parse_dates=["ts"],
                             float_precision="round_trip") as pq:
            t = md.read_csv("tr.csv", chunk_bytes=900, parse_dates=["ts"])
            q = md.read_csv("qu.csv", chunk_bytes=1500, parse_dates=["ts"])
            pairs = [
                (md.merge_asof(t, q, on="ts", by="sym"), pd.merge_asof(pt, pq, on="ts", by="sym")),
                (md.merge_asof(t, q, on="ts", by="sym", direction="forward",
                               allow_exact_matches=False),
                 pd.merge_asof(pt, pq, on="ts", by="sym", direction="forward",
                               allow_exact_matches=False)),
                (md.merge_asof(t, q, on="ts", direction="nearest",
                               tolerance=pd.Timedelta("30s")),
                 pd.merge_asof(pt, pq, on="ts", direction="nearest",
                               tolerance=pd.Timedelta("30s"))),
            ]
            self.same_as_pandas(pairs, exact=True)
            with self.assertRaisesRegex(Exception, "incompatible tolerance"):
                md.merge_asof(t, q, on="ts", tolerance=5).fetch()

    def test_selection_windows_and_stats(self):
        """iloc, loc, duplicated, rolling, quantile, skew, kurt, eval, corr,
        cov and melt with pandas' arguments, against pandas."""
        rng = np.random.default_rng(4)
        n = 120
        x = rng.random(n).round(3)
        x[rng.random(n) < 0.1] = np.nan
        with uploaded_csv("sel.csv", pd.DataFrame({
                "k": rng.choice(["a", "b"], n), "g": rng.integers(0, 5, n), "x": x,
                "y": rng.integers(-9, 9, n)})) as p:
            df = md.read_csv("sel.csv", chunk_bytes=400)
            num, pnum = df[["g", "x", "y"]], p[["g", "x", "y"]]
            pairs = [
                (df.iloc[2:40:3], p.iloc[2:40:3]), (df.iloc[[0, -1, 5]], p.iloc[[0, -1, 5]]),
                (df.iloc[1:10, [0, 2]], p.iloc[1:10, [0, 2]]), (df.x.iloc[::-2], p.x.iloc[::-2]),
                (df.set_index("g").loc[[1, 3]], p.set_index("g").loc[[1, 3]]),
                (df.set_index("y").sort_index().loc[-3:4],
                 p.set_index("y").sort_index(kind="mergesort").loc[-3:4]),
                (df.loc[df.x > 0.5, ["k", "x"]], p.loc[p.x > 0.5, ["k", "x"]]),
                (df.drop_duplicates(["k", "g"]), p.drop_duplicates(["k", "g"])),
                (num.rolling(3).mean(), pnum.rolling(3).mean()),
                (df.x.rolling(4, min_periods=2).sum(), p.x.rolling(4, min_periods=2).sum()),
                (num.rolling(5).count(), pnum.rolling(5, min_periods=0).count()),
                (num.quantile(0.3), pnum.quantile(0.3)), (num.skew(), pnum.skew()),
                (num.kurt(), pnum.kurt()), (df.eval("x * 2 + y"), p.eval("x * 2 + y")),
                (num.corr(), pnum.corr()), (num.cov(), pnum.cov()),
                (df.melt(id_vars=["k"], value_vars=["x", "y"]),
                 p.melt(id_vars=["k"], value_vars=["x", "y"])),
            ]
            self.same_as_pandas(pairs)
            dup = df.duplicated(subset=["k", "g"], keep="last").fetch()
            pd.testing.assert_series_equal(dup, p.duplicated(subset=["k", "g"], keep="last"))
            self.assertAlmostEqual(float(df.x.quantile(0.9).fetch()), p.x.quantile(0.9))
            self.assertAlmostEqual(float(df.x.skew().fetch()), p.x.skew())
            # one position: the row as pandas gives it (a Series named by its label)
            pd.testing.assert_series_equal(df.iloc[3].fetch(), p.iloc[3])
            # one label: the rows of a repeated label, as pandas gives them
            pd.testing.assert_frame_equal(df.set_index("g").loc[3].fetch(), p.set_index("g").loc[3])

    def test_str_accessor(self):
        """Series.str: each method against pandas on strings with missing
        values, spaces at the ends and Latin-1 letters; split(...).str[i],
        rsplit's last parts, findall(...).str.len(), get_dummies, s.str[i]."""
        words = ["Ab cd", " x,y ", None, "\u00e9t\u00e9", "a,b,,c", "", "ABC", "  p q  r  ",
                 "a\nc"]
        with uploaded_csv("words.csv", pd.DataFrame({"s": words * 8, "v": range(72)})) as p:
            ps = p.s
            s = md.read_csv("words.csv", chunk_bytes=60).s
            pairs = [
                (s.str.lower(), ps.str.lower()), (s.str.upper(), ps.str.upper()),
                (s.str.len(), ps.str.len()), (s.str.strip(), ps.str.strip()),
                (s.str.strip(" ,x"), ps.str.strip(" ,x")), (s.str[1:3], ps.str[1:3]),
                (s.str.slice(step=-1), ps.str.slice(step=-1)),
                (s.str.contains("b|B"), ps.str.contains("b|B")),
                (s.str.contains("ab", case=False), ps.str.contains("ab", case=False)),
                (s.str.contains(",", regex=False), ps.str.contains(",", regex=False)),
                (s.str.startswith("A"), ps.str.startswith("A")),
                (s.str.endswith(" "), ps.str.endswith(" ")),
                (s.str.replace(",", ";"), ps.str.replace(",", ";", regex=False)),
                (s.str.replace("[a-c]+", "_", regex=True), ps.str.replace("[a-c]+", "_", regex=True)),
                (s.str.split(",").str[1], ps.str.split(",").str[1]),
                (s.str.split().str[-1], ps.str.split().str[-1]),
                (s.str.split(n=1).str.get(1), ps.str.split(n=1).str.get(1)),
                (s.str[0], ps.str[0]), (s.str.get(-2), ps.str.get(-2)),
                (s.str.title(), ps.str.title()), (s.str.capitalize(), ps.str.capitalize()),
                (s.str.swapcase(), ps.str.swapcase()), (s.str.lstrip(), ps.str.lstrip()),
                (s.str.rstrip(" ,"), ps.str.rstrip(" ,")), (s.str.isalpha(), ps.str.isalpha()),
                (s.str.isupper(), ps.str.isupper()), (s.str.istitle(), ps.str.istitle()),
                (s.str.isspace(), ps.str.isspace()), (s.str.zfill(6), ps.str.zfill(6)),
                (s.str.pad(7, side="both", fillchar="*"), ps.str.pad(7, side="both", fillchar="*")),
                (s.str.center(6), ps.str.center(6)), (s.str.ljust(5, "."), ps.str.ljust(5, ".")),
                (s.str.find("c"), ps.str.find("c")), (s.str.rfind(",", 1), ps.str.rfind(",", 1)),
                (s.str.count("[a-c]"), ps.str.count("[a-c]")),
                (s.str.match("[A-Z]"), ps.str.match("[A-Z]")),
                (s.str.fullmatch("[a-z ]+", case=False), ps.str.fullmatch("[a-z ]+", case=False)),
                (s.str.repeat(2), ps.str.repeat(2)),
                (s.str.rsplit(",", n=1).str[-1], ps.str.rsplit(",", n=1).str[-1]),
                (s.str.rsplit().str[0], ps.str.rsplit().str[0]),
                (s.str.findall("[a-c]").str.len(), ps.str.findall("[a-c]").str.len()),
                (s.str.removeprefix("Ab"), ps.str.removeprefix("Ab")),
                (s.str.removesuffix("c"), ps.str.removesuffix("c")),
                (s.str.get_dummies(","), ps.str.get_dummies(",")),
                (s.str.slice_replace(1, 3, "XX"), ps.str.slice_replace(1, 3, "XX")),
                (s.str.slice_replace(4, 1), ps.str.slice_replace(4, 1)),
                (s.str.slice_replace(-2, repl="!"), ps.str.slice_replace(-2, repl="!")),
                (s.str.casefold(), ps.str.casefold()),
                (s.str.split().str.len(), ps.str.split().str.len()),
                (s.str.split(",", n=1).str.len(), ps.str.split(",", n=1).str.len()),
                (s.str.split(",,").str.len(), ps.str.split(",,").str.len()),
                (s.str.rsplit(",", n=2).str.len(), ps.str.rsplit(",", n=2).str.len()),
                (s.str.count("a.c"), ps.str.count("a.c")),
                (s.map(str.casefold, na_action="ignore"), ps.map(str.casefold, na_action="ignore")),
                (s.str.partition(","), ps.str.partition(",")),
                (s.str.rpartition(","), ps.str.rpartition(",")),
                (s.str.partition(), ps.str.partition()),
                (s.str.rpartition("b."), ps.str.rpartition("b.")),
            ]
            self.same_as_pandas(pairs)
            with self.assertRaisesRegex(NotImplementedError, "from -1 to -1"):
                s.str.rsplit(",", n=1).str[0]
            with self.assertRaises(TypeError):
                s.str["a"]
            pd.testing.assert_frame_equal(s.str.split(",", expand=True).fetch(),
                                          ps.str.split(",", expand=True))
            with self.assertRaisesRegex(NotImplementedError, "regular expression"):
                s.str.split(",+", expand=True)
            with self.assertRaises(NotImplementedError):
                s.str.repeat([1, 2])
            with self.assertRaisesRegex(ValueError, "empty separator"):
                s.str.partition("")
            # a column of strings holds no lists: explode keeps each row
            pd.testing.assert_frame_equal(s.to_frame().explode("s").fetch(),
                                          ps.to_frame().explode("s"))
            pd.testing.assert_series_equal(s.explode(ignore_index=True).fetch(),
                                           ps.explode(ignore_index=True))
            with self.assertRaisesRegex(NotImplementedError, "tuples"):
                s.str.rpartition(",", expand=False)

    def test_string_literal(self):
        """Strings are literal values ({"value": ...}); the server runs them or
        says why (GraphError) while the engine does not read literals yet."""
        d = tempfile.mkdtemp()
        try:
            path = os.path.join(d, "lit.csv")
            pd.DataFrame({"c": ["paris", "rome", "paris"], "v": [1, 2, 3]}).to_csv(path, index=False)
            SESS.upload(path)
            df = md.read_csv("lit.csv")
            f = df[df.c == "paris"]
            nodes = f.document()["nodes"]
            self.assertIn({"value": "paris"}, nodes[-2]["inputs"])
            try:
                got = f.fetch()
                self.assertEqual(got.v.tolist(), [1, 3])
            except marsc.GraphError as e:
                self.assertIn("inputs", str(e))
        finally:
            shutil.rmtree(d)

    def test_local_frames(self):
        """md.DataFrame and md.Series of local pandas data keep every
        column's type and the index: one type of numbers as a tensor, the
        rest as a CSV the client uploads (_local.py); compared with pandas"""
        n = 600
        rng = np.random.default_rng(7)
        frames = {
            "mixed": pd.DataFrame({
                "i": [1, 2, 3, -4], "f": [1.0, np.nan, 0.1 + 0.2, 1e300],
                "s": ["a,b", 'q"x', "line\nbreak", " sp "], "e": ["", None, "NA", "\u00e9"],
                "b": [True, False, True, True],
                "t": pd.to_datetime(["2020-01-01", "2020-01-02 03:04:05.123456789", None,
                                     "1969-12-31"]),
                "d": pd.to_timedelta(["1 days 02:00:00", None, "-3s", "5ns"])}),
            "ints": pd.DataFrame({"a": [1, 2, 3], "b": [4, 5, 2**62]}),
            "wide": pd.DataFrame({"a": [1, 2**53 + 1], "b": [0.5, 1.0]}),  # no float64 holds a
            "numbers": pd.DataFrame({"a": [1, 2, 3], "b": [0.5, np.inf, -0.0],
                                     "c": [True, False, True]}),
            "indexed": pd.DataFrame({"a": [1.5, 2, 3]}, index=pd.Index([10, 20, 5], name="k")),
            "labels": pd.DataFrame({"a": [1, 2, 3]}, index=["x", "y", "z"]),
            "dates": pd.DataFrame({"a": [1, 2, 3]},
                                  index=pd.date_range("2021-01-01", periods=3, freq="D")),
            "levels": pd.DataFrame({"v": [1, 2, 3]}, index=pd.MultiIndex.from_tuples(
                [("a", 1), ("a", 2), ("b", 1)], names=["g", None])),
            "categorical": pd.DataFrame({
                "c": pd.Categorical(["x", "y", None, "x"], categories=["y", "x", "z"],
                                    ordered=True),
                "n": pd.Categorical([1, 2, 1, 3])}),
            "periods": pd.DataFrame({"p": pd.period_range("2020-01", periods=3, freq="M"),
                                     "x": [1, 2, 3]}),
            "empty": pd.DataFrame({"a": pd.Series([], dtype="int64"),
                                   "s": pd.Series([], dtype=object)}),
            "big": pd.DataFrame({"k": rng.integers(0, 9, n), "x": rng.random(n),
                                 "s": np.array(["a", "bb", "c,c"])[rng.integers(0, 3, n)]}),
        }
        for name, pdf in frames.items():
            with self.subTest(frame=name):
                df = md.DataFrame(pdf, chunk_rows=100 if name == "big" else None)
                pd.testing.assert_frame_equal(df.fetch(), pdf, check_freq=False)
        big = frames["big"]
        df = md.DataFrame(big, chunk_rows=100).execute()
        self.assertGreaterEqual(df._meta()["nchunks"], 4)  # chunk_rows: about that many rows
        pd.testing.assert_series_equal(df.groupby("s").x.sum().fetch(), big.groupby("s").x.sum())
        cat = md.DataFrame(frames["categorical"])
        pd.testing.assert_series_equal(cat.c.value_counts().fetch(),
                                       frames["categorical"].c.value_counts())
        self.assertEqual(cat.c.max().fetch(), "x")  # by the categories' order
        # one type of numbers (a 2-D tensor) keeps its chunks as well
        one = pd.DataFrame({"a": np.arange(n), "b": np.arange(n) * 2})
        self.assertEqual(md.DataFrame(one, chunk_rows=100).execute()._meta()["nchunks"], 6)
        # what pandas' constructors take
        pd.testing.assert_frame_equal(md.DataFrame({"a": [1, 2], "b": ["x", None]}).fetch(),
                                      pd.DataFrame({"a": [1, 2], "b": ["x", None]}))
        recs = [{"a": 1, "b": "x"}, {"a": 2, "c": 2.5}]
        pd.testing.assert_frame_equal(md.DataFrame(recs).fetch(), pd.DataFrame(recs))
        pd.testing.assert_frame_equal(
            md.DataFrame({"a": [1, 2]}, index=["p", "q"], dtype="float64").fetch(),
            pd.DataFrame({"a": [1, 2]}, index=["p", "q"], dtype="float64"))
        pd.testing.assert_frame_equal(md.DataFrame(frames["mixed"], columns=["s", "i"]).fetch(),
                                      frames["mixed"][["s", "i"]])
        # line ends inside values, and a value of spaces alone in a one-column file
        for data in (["a", None, "c"], {"x": 1.5, "y": 2.0}, ["a\rb", "  ", "c\r\nd", "\n", ""],
                     pd.Series(["x", "  "], index=["p\rq", "r"]),
                     pd.Series([1, 2], index=["p", "q"], name="zz"),
                     pd.Series(pd.Categorical(["a", "b", "a"])), np.array([3, 1, 2])):
            with self.subTest(series=repr(data)):
                want = data if isinstance(data, pd.Series) else pd.Series(data)
                pd.testing.assert_series_equal(md.Series(data).fetch(), want)
        pd.testing.assert_series_equal(md.Series(["a", "b"], name="n", index=[5, 6]).fetch(),
                                       pd.Series(["a", "b"], name="n", index=[5, 6]))
        # a tensor without a name: an unnamed Series (pandas' pd.Series(array))
        got = md.Series(mt.tensor(np.array([1.5, 2.5]))).fetch()
        pd.testing.assert_series_equal(got, pd.Series([1.5, 2.5]))
        # the file is sent once per session: named by its content
        before = set(SESS._files)
        md.DataFrame(frames["mixed"]).fetch()
        md.DataFrame(frames["mixed"]).fetch()
        self.assertLessEqual(len(SESS._files - before), 1)
        # what the cluster cannot hold is refused, naming the column
        with self.assertRaisesRegex(TypeError, "column 'a' holds mixed-integer values"):
            md.DataFrame({"a": [1, "x"]})
        with self.assertRaisesRegex(TypeError, "time zone"):
            md.DataFrame({"t": pd.to_datetime(["2020-01-01"]).tz_localize("UTC")})
        with self.assertRaisesRegex(ValueError, "there twice"):
            md.DataFrame(pd.DataFrame([[1, 2]], columns=["a", "a"]))
        with self.assertRaisesRegex(NotImplementedError, "MultiIndex"):
            md.DataFrame(pd.DataFrame([[1, 2]], columns=pd.MultiIndex.from_tuples(
                [("a", "b"), ("a", "c")])))


    def test_categoricals_carried(self):
        """fillna, where, mask, shift, mode and concat keep a categorical as
        pandas does, and refuse a value outside its categories as pandas"""
        p = pd.DataFrame({"c": pd.Categorical(["a", None, "b", "a"], categories=["b", "a", "z"]),
                          "x": [1.0, np.nan, 3, 4]})
        q = pd.DataFrame({"c": pd.Categorical(["a"], categories=["a"]), "x": [1.0]})
        df, dq = md.DataFrame(p), md.DataFrame(q)
        cases = {
            "fillna": lambda d, e, m: d.c.fillna("z"),
            "fillna_dict": lambda d, e, m: d.fillna({"c": "a", "x": 0}),
            "ffill": lambda d, e, m: d.c.ffill(),
            "where": lambda d, e, m: d.c.where(d.x > 1),
            "where_other": lambda d, e, m: d.c.where(d.x > 1, "z"),
            "mask": lambda d, e, m: d.c.mask(d.x > 3),
            "shift": lambda d, e, m: d.c.shift(1),
            "mode": lambda d, e, m: d.c.mode(),
            "concat": lambda d, e, m: m.concat([d, d]),
            "concat_series": lambda d, e, m: m.concat([d.c, d.c]),
            "concat_other_categories": lambda d, e, m: m.concat([d, e]),  # object
            "concat_columns": lambda d, e, m: m.concat([d.c, d.x.rename("y")], axis=1),
        }
        for name, f in cases.items():
            with self.subTest(case=name):
                want, got = f(p, q, pd), f(df, dq, md).fetch()
                if isinstance(want, pd.DataFrame):
                    pd.testing.assert_frame_equal(got, want)
                else:
                    pd.testing.assert_series_equal(got, want)
        for f in (lambda d: d.c.fillna("q"), lambda d: d.c.where(d.x > 1, "q"),
                  lambda d: d.fillna({"c": "q"})):
            with self.assertRaises(TypeError) as theirs:
                f(p)
            with self.assertRaises(TypeError) as mine:
                f(df)
            self.assertEqual(str(mine.exception), str(theirs.exception))

    def test_query_eval_variables(self):
        """query and eval take @name (the caller's variables, sent as
        literals), eval assignments (one per line, inplace too), and name
        eval's Series as pandas does"""
        p = pd.DataFrame({"a": np.arange(6), "b": np.arange(6) * 1.5, "s": list("xyzxyz")})
        df = md.DataFrame(p)
        # @ reads the calling frame's variables: here the lambdas' own

        def local(d):
            here = 4
            return d.query("a < @here") if here else None
        cases = [lambda d, thr=3: d.query("a > @thr"),
                 lambda d, names=["x", "z"], lim=np.int64(2): d.query("s in @names and a >= @lim"),
                 lambda d, thr=3: d.query("s == 'x' or a > @thr"),
                 local,
                 lambda d: d.eval("c = a * b"),
                 lambda d, thr=3: d.eval("c = a * b\nd = c + @thr"),
                 lambda d, thr=3: d.eval("a + @thr"),
                 lambda d: d.eval("a > 1 and a < 4"),
                 lambda d: d.eval("a * b"),
                 lambda d: d.eval("b * 1e3")]
        for i, f in enumerate(cases):
            with self.subTest(case=i):
                want, got = f(p), f(df).fetch()
                if isinstance(want, pd.DataFrame):
                    pd.testing.assert_frame_equal(got, want)
                else:
                    pd.testing.assert_series_equal(got, want)
        q, pq = md.DataFrame(p), p.copy()
        self.assertIsNone(q.eval("z = a + 1", inplace=True))
        pq.eval("z = a + 1", inplace=True)
        pd.testing.assert_frame_equal(q.fetch(), pq)
        with self.assertRaisesRegex(NameError, "local variable 'nope' is not defined"):
            df.query("a > @nope")
        with self.assertRaisesRegex(ValueError, "all expressions contain an assignment"):
            df.eval("c = a\na + 1")

    def test_loc_datetime_index(self):
        """loc on a DatetimeIndex by Timestamps and by pandas' partial date
        strings (a slice from the start of one period to the end of
        another, a month alone), as pandas"""
        p = pd.DataFrame({"t": pd.date_range("2021-01-01", periods=300, freq="7H"),
                          "v": np.arange(300.0)})
        pi = p.set_index("t")
        df = md.DataFrame(p).set_index("t")
        for key in (slice(pd.Timestamp("2021-01-05"), pd.Timestamp("2021-01-07")),
                    slice("2021-01-05", "2021-01-07"), slice("2021-01-05", None),
                    slice(None, "2021-01-03 10"), slice("2021-01", "2021-02"), "2021-02",
                    slice(datetime.date(2021, 1, 3), datetime.datetime(2021, 1, 4, 12)),
                    [pd.Timestamp("2021-01-05 02:00"), pd.Timestamp("2021-01-01")]):
            with self.subTest(key=key):
                pd.testing.assert_frame_equal(df.loc[key].fetch(), pi.loc[key])
        pd.testing.assert_series_equal(df.v.loc["2021-01-05":"2021-01-06"].fetch(),
                                       pi.v.loc["2021-01-05":"2021-01-06"])
        pd.testing.assert_series_equal(df.loc[pd.Timestamp("2021-01-05 02:00")].fetch(),
                                       pi.loc[pd.Timestamp("2021-01-05 02:00")])
        with self.assertRaisesRegex(NotImplementedError, "index's resolution"):
            df.loc["2021-01-05"]
        # strings on an index of strings are labels as before
        ps = pd.DataFrame({"v": [1, 2, 3]}, index=["2021-01-01", "b", "c"])
        pd.testing.assert_frame_equal(md.DataFrame(ps).loc["2021-01-01":"b"].fetch(),
                                      ps.loc["2021-01-01":"b"])

    def test_sem(self):
        """sem of a Series (ddof too) and of a DataFrame's numeric columns"""
        p = pd.DataFrame({"a": [1.0, 2, np.nan, 4, 7], "b": [1, 5, 2, 9, 3], "s": list("abcde")})
        df = md.DataFrame(p)
        self.assertAlmostEqual(float(df.a.sem().fetch()), p.a.sem(), places=12)
        self.assertAlmostEqual(float(df.b.sem(ddof=0).fetch()), p.b.sem(ddof=0), places=12)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # pandas 1.5: numeric_only=None
            want = p.sem()
        pd.testing.assert_series_equal(df.sem(), want)

    def test_time_values(self):
        """fillna, clip and isin by Timestamps and Timedeltas; astype of
        another column keeps a datetime column"""
        p = pd.DataFrame({"t": pd.to_datetime(["2021-01-03", None, "2021-02-10", "2021-01-20"]),
                          "w": [1, 2, 3, 4]})
        df = md.DataFrame(p)
        d, pdd = df.t - df.t.min(), p.t - p.t.min()
        lo, hi = pd.Timestamp("2021-01-10"), pd.Timestamp("2021-02-01")
        for name, f in (("fillna", lambda x, y: x.t.fillna(lo)),
                        ("fillna_td", lambda x, y: y.fillna(pd.Timedelta("1h"))),
                        ("clip", lambda x, y: x.t.clip(lo, hi)),
                        ("clip_upper", lambda x, y: y.clip(upper=pd.Timedelta("10 days"))),
                        ("isin", lambda x, y: x.t.isin([lo, pd.Timestamp("2021-01-20")])),
                        ("isin_td", lambda x, y: y.isin([pd.Timedelta(0)])),
                        ("astype_other", lambda x, y: x.astype({"w": "float64"}))):
            with self.subTest(case=name):
                want, got = f(p, pdd), f(df, d).fetch()
                if isinstance(want, pd.DataFrame):
                    pd.testing.assert_frame_equal(got, want)
                else:
                    pd.testing.assert_series_equal(got, want)
        pd.testing.assert_series_equal(df.t.dt.tz_localize(None).fetch(), p.t.dt.tz_localize(None))
        with self.assertRaisesRegex(NotImplementedError, "no time zone"):
            df.t.dt.tz_localize("UTC")
        self.assertEqual(df.columns[1:].tolist(), ["w"])  # a slice of names stays names
        # a time scalar's attributes, fetched; a dt.date Series' min as a date
        for f in (lambda x: x.t.dt.date.min(), lambda x: x.t.dt.date.max(),
                  lambda x: x.t.min().year, lambda x: x.t.max().day_name(),
                  lambda x: (x.t.max() - x.t.min()).components.days, lambda x: x.t.min().date()):
            got, want = f(md.DataFrame(p.dropna())), f(p.dropna())  # pandas: no NaT here
            got = got.fetch() if isinstance(got, marsc.tensor.Tensor) else got
            self.assertEqual((type(got), got), (type(want), want))

    def test_flex_apply_at(self):
        """pandas' flex methods (add ... ge, with axis and fill_value),
        DataFrame.apply by column, at and iat, loc's column slices"""
        p = pd.DataFrame({"v": [1.0, np.nan, 3, 4, 5], "w": [1, 2, 3, 4, 5],
                          "u": [np.nan, 2.0, np.nan, 1, 0]}, index=[10, 11, 12, 13, 14])
        df = md.DataFrame(p)
        cases = {
            "eq": lambda d: d.w.eq(2), "ne": lambda d: d.w.ne(2), "gt": lambda d: d.v.gt(d.w),
            "mul_add": lambda d: d.w.mul(2).add(1), "rsub": lambda d: d.w.rsub(10),
            "rdiv": lambda d: d.w.rdiv(1), "pow": lambda d: d.w.pow(2),
            "rpow": lambda d: d.w.rpow(2), "mod": lambda d: d.w.mod(3),
            "floordiv": lambda d: d.w.floordiv(2), "frame_le": lambda d: d.le(2),
            "fill_series": lambda d: d.v.add(d.u, fill_value=0),
            "fill_scalar": lambda d: d.v.mul(2, fill_value=1),
            "div_rows": lambda d: d[["v", "w"]].div(d.w + 1, axis=0),
            # a Series of other rows: the frame's rows and its aligned (union, sorted)
            "sub_rows_other": lambda d: d[["v", "w"]].sub(d.u[d.u > 0], axis=0),
            "mul_rows_twice": lambda d: d.mul(md_or_pd(d).concat([d.w[d.w > 3], d.w]),
                                              axis="index"),
            "int_names_rows": lambda d: d[["v", "w"]].set_axis([0, 1], axis=1).sub(d.w, axis=0),
            "sub_means": lambda d: d.sub(d.mean(), axis=1),
            "sub_list": lambda d: d.sub([1, 2, 3]),
            "mul_dict": lambda d: d.mul({"v": 2, "w": 3, "u": 1}),
            "apply_mean": lambda d: d[["v", "w"]].apply(np.mean),
            "apply_std": lambda d: d[["v", "w"]].apply(np.std),
            "apply_range": lambda d: d[["v", "w"]].apply(lambda c: c.max() - c.min()),
            "apply_centred": lambda d: d[["v", "w"]].apply(lambda c: c - c.mean()),
            "loc_columns": lambda d: d.loc[:, "v":"w"],
            "loc_mask_columns": lambda d: d.loc[d.w > 2, "w":],
            "loc_rows_columns": lambda d: d.loc[11:13, :"w"],
        }
        self.same_each(cases, p, df)
        for name, f in {"at": lambda d: d.at[12, "v"], "iat": lambda d: d.iat[2, 2],
                        "iat_last": lambda d: d.iat[-1, 1], "series_at": lambda d: d.w.at[13],
                        "series_iat": lambda d: d.w.iat[-2]}.items():
            with self.subTest(case=name):
                want, got = f(p), f(df)
                self.assertEqual(type(got), type(want))
                self.assertTrue(got == want or (np.isnan(got) and np.isnan(want)))
        with self.assertRaises(IndexError):
            df.iat[5, 0]
        # corrwith, and a selected column's agg of (name, func) pairs
        g = pd.DataFrame({"g": list("abcabca"), "v": [1.0, np.nan, 3, 4, 5, 6, 7],
                          "w": [1, 2, 3, 4, 5, 6, 7]})
        dg = md.DataFrame(g)
        pd.testing.assert_frame_equal(
            dg.groupby("g").v.agg([("lo", "min"), ("hi", "max"), ("n", "count")]).fetch(),
            g.groupby("g").v.agg([("lo", "min"), ("hi", "max"), ("n", "count")]))
        other = pd.DataFrame({"w": g.w * 3.0 + g.v.fillna(0), "z": g.w})
        pd.testing.assert_series_equal(dg[["v", "w"]].corrwith(dg.v * 2 - dg.w),
                                       g[["v", "w"]].corrwith(g.v * 2 - g.w))
        for drop in (False, True):
            pd.testing.assert_series_equal(dg[["v", "w"]].corrwith(md.DataFrame(other), drop=drop),
                                           g[["v", "w"]].corrwith(other, drop=drop))
        # each group's n largest and smallest: ties in row order, missing values last
        t = pd.DataFrame({"g": list("abcabcadbb"), "v": [1.0, np.nan, 3, 4, 5, 6, 7, 2, 5, 5],
                          "w": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]},
                         index=pd.Index([5, 3, 1, 0, 9, 8, 7, 6, 4, 2], name="i"))
        dt = md.DataFrame(t)
        for f in (lambda d: d.groupby("g").v.nlargest(2), lambda d: d.groupby("g").w.nsmallest(1),
                  lambda d: d.groupby(["g"]).v.nlargest(5)):
            pd.testing.assert_series_equal(f(dt).fetch(), f(t))
        # row-wise methods inside a group function's reductions; kernels by lambda
        h = pd.DataFrame({"g": list("abcabcabca"),
                          "v": [1.0, np.nan, 3, -4, 5, np.nan, 7, 2, -5, 5],
                          "w": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]})
        dh = md.DataFrame(h)
        for f in (lambda d: d.groupby("g").v.apply(lambda s: s.isna().sum()),
                  lambda d: d.groupby("g").v.agg(lambda s: s.abs().max()),
                  lambda d: d.groupby("g").v.apply(lambda s: s.fillna(0).mean()),
                  lambda d: d.groupby("g").apply(lambda x: x.v.notna().sum() / len(x)),
                  lambda d: d.groupby("g").w.transform(lambda x: x.rank()),
                  lambda d: d.groupby("g").v.transform(lambda x: x.cumsum()),
                  lambda d: d.groupby("g").v.transform(lambda x: x.shift(1))):
            pd.testing.assert_series_equal(f(dh).fetch(), f(h))
        # a group's most frequent value, by pandas' idioms (no ties here)
        m = pd.DataFrame({"g": list("abcabcabcaa"),
                          "h": ["x", "y", "z", "x", "y", "y", "q", "y", "z", "x", "q"],
                          "w": [1, 2, 3, 1, 5, 3, 7, 5, 3, 1, 4]})
        dm = md.DataFrame(m)
        for f in (lambda d: d.groupby("g").h.agg(lambda x: x.value_counts().index[0]),
                  lambda d: d.groupby("g").h.agg(lambda x: x.mode()[0]),
                  lambda d: d.groupby("g").w.agg(lambda x: x.mode().iloc[0]),
                  lambda d: d.groupby("g").h.apply(lambda x: x.value_counts().idxmax())):
            pd.testing.assert_series_equal(f(dm).fetch(), f(m))
        # a function's agg over several columns: each column's, side by side
        for f in (lambda d: d.groupby("g").agg(lambda x: x.max()),
                  lambda d: d.groupby("g")[["v", "w"]].agg(lambda x: x.max() - x.min())):
            pd.testing.assert_frame_equal(f(dh).fetch(), f(h))
        # a Series of strings' min and max (pandas' lexicographic ones)
        st = pd.DataFrame({"a": ["pear", "apple", "fig", "kiwi"], "n": [1, 2, 3, 4]})
        ds = md.DataFrame(st)
        for f in (lambda d: d.a.max(), lambda d: d.a.min(), lambda d: d.a.str.upper().max(),
                  lambda d: d[d.n > 1].a.min(), lambda d: d.n.max()):
            got, want = f(ds), f(st)
            self.assertEqual(got.fetch(), want)
        self.assertTrue(np.isnan(ds.a[ds.n > 9].max().fetch()))  # none: NaN, as pandas
        for ddof in (0, 2):  # groups of one row, a missing value, n <= ddof
            for c in ("v", "w"):
                pd.testing.assert_series_equal(dg.groupby("g")[c].std(ddof=ddof).fetch(),
                                               g.groupby("g")[c].std(ddof=ddof))
                pd.testing.assert_series_equal(dg.groupby("g")[c].var(ddof=ddof).fetch(),
                                               g.groupby("g")[c].var(ddof=ddof))

    def test_groupby_resample(self):
        """g.resample(rule): each group's bins from its first row to its
        last, the empty ones filled, as pandas' groupby-resample"""
        rng = np.random.default_rng(3)
        n = 120
        p = pd.DataFrame({"g": rng.choice(["a", "b", "c"], n), "v": rng.normal(size=n).round(3),
                          "w": rng.integers(0, 9, n),
                          "t": pd.Timestamp("2021-01-01") + pd.to_timedelta(
                              rng.integers(0, 86400 * 50, n), unit="s")})
        p.loc[p.index % 13 == 0, "v"] = np.nan
        df = md.DataFrame(p)
        cases = [lambda d: d.set_index("t").groupby("g").v.resample("W").sum(),
                 lambda d: d.set_index("t").groupby("g").w.resample("D").mean(),
                 lambda d: d.groupby("g").resample("W", on="t").v.count(),
                 lambda d: d.groupby("g").resample("W", on="t")["v"].max(),
                 lambda d: d.set_index("t").groupby("g").resample("M").sum(),
                 lambda d: d.set_index("t").groupby("g").resample("2W").v.agg(["sum", "count"]),
                 lambda d: d.set_index("t").groupby("g").v.resample("W").size()]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            for i, f in enumerate(cases):
                with self.subTest(case=i):
                    want, got = f(p), f(df)
                    if isinstance(want, pd.DataFrame):
                        pd.testing.assert_frame_equal(got, want, check_freq=False)
                    else:
                        pd.testing.assert_series_equal(got, want, check_freq=False)

    def test_lined_up_transform_index_name(self):
        """rank, a group's rank and duplicated over several chunks line up
        with their frame (assigned, in arithmetic, as a mask); Series and
        DataFrame transform; loc[:, col] = value; df.index.name = x names
        the index from then on; a resample's head keeps its freq"""
        rng = np.random.default_rng(9)
        n = 60
        p = pd.DataFrame({"city": rng.choice(["Paris", "Rome", "Oslo"], n),
                          "age": rng.integers(18, 80, n), "score": rng.normal(50, 10, n).round(1),
                          "t": pd.date_range("2024-01-01", periods=n, freq="9H")})
        df = md.DataFrame(p, chunk_rows=7)  # 9 chunks, spread over both workers
        self.same_each([lambda d: d.assign(r=d.groupby("city").score.rank(ascending=False)),
                        lambda d: d.assign(r=d.score.rank(method="min"), dup=d.duplicated(["city"])),
                        lambda d: d.score / d.groupby("city").score.rank(),
                        lambda d: d[d.groupby("city").score.rank(method="first") <= 2],
                        lambda d: d[~d.city.duplicated()],
                        lambda d: d[["age", "score"]].transform(lambda x: x - x.mean()),
                        lambda d: d.transform({"age": "abs", "score": np.sqrt}),
                        lambda d: d.score.transform(lambda x: (x - x.mean()) / x.std()),
                        lambda d: d.city.transform(lambda x: x.upper()),
                        lambda d: d.age.transform(["sqrt", "cumsum"])], p, df)
        with self.assertRaisesRegex(ValueError, "did not transform"):
            df.score.transform("sum")
        q, d = p.copy(), md.DataFrame(p, chunk_rows=7)
        q["r"] = q.groupby("city").score.rank()
        d["r"] = d.groupby("city").score.rank()
        q.loc[:, "city"] = q.city.str.upper()
        d.loc[:, "city"] = d.city.str.upper()
        with warnings.catch_warnings():  # pandas 1.5: "will attempt to set the values inplace"
            warnings.simplefilter("ignore", DeprecationWarning)
            q.loc[:, ["age", "new"]] = 0
        d.loc[:, ["age", "new"]] = 0
        pd.testing.assert_frame_equal(d.fetch(), q)
        q.index.name = "row"
        d.index.name = "row"
        pd.testing.assert_frame_equal(d[d.r < 3].fetch(), q[q.r < 3])
        q = q.set_index("t")
        d = d.set_index("t")
        q.index.names = ["when"]
        d.index.names = ["when"]
        pd.testing.assert_series_equal(d.score.head().fetch(), q.score.head())
        pd.testing.assert_series_equal(d.score.resample("D").sum().head(3).fetch(),
                                       q.score.resample("D").sum().head(3))

    def test_methods_as_pandas(self):
        """isin of a dict or a Series, where/mask keep the name, clip by
        Series, round by column, fillna with a limit, replace by regex,
        combine_first, argmax, squeeze, a group's value_counts and
        sort_index by level: as pandas, over chunks of a few rows"""
        rng = np.random.default_rng(11)
        n = 45
        p = pd.DataFrame({"cust": rng.choice(["c1", "c2", "c3", "c4"], n),
                          "amt": rng.uniform(5, 500, n).round(2), "qty": rng.integers(1, 6, n),
                          "note": rng.choice(["ok", "late, refund", "gift", None, "ok"], n)})
        p.loc[rng.random(n) < 0.15, "amt"] = np.nan
        df = md.DataFrame(p, chunk_rows=4)
        p["note"] = p.note.where(p.note.notna(), np.nan)  # fetched: NaN, as read_csv's
        cases = {
            "isin_dict": lambda d: d.isin({"cust": ["c1"], "qty": [1, 2]}),
            "isin_series": lambda d: d.cust.isin(d.cust[d.qty > 4]),
            "where_other": lambda d: d.amt.where(d.amt > 100, d.qty),
            "mask_other": lambda d: d.amt.mask(d.amt > 100, d.qty * 1.5),
            "clip_series": lambda d: d.amt.clip(d.qty * 20, d.qty * 60),
            "round_dict": lambda d: d.round({"amt": 0}),
            "bfill_limit": lambda d: d.amt.fillna(method="bfill", limit=1),
            "ffill_limit": lambda d: d[["amt", "note"]].ffill(limit=2),
            "fill_first": lambda d: d.fillna({"amt": -1.0, "note": "x"}, limit=2),
            "replace_regex": lambda d: d.note.replace(r"^l.*", "LATE", regex=True),
            "replace_frame": lambda d: d.replace({"^c1$": "one", "ok": "OK"}, regex=True),
            "combine_first": lambda d: d.amt.combine_first(d.qty * 10.0),
            "iloc_argmax": lambda d: d.iloc[d.amt.argmax()],
            "vc": lambda d: d.groupby("cust").qty.value_counts(),
            "vc_norm": lambda d: d.groupby("cust").qty.value_counts(normalize=True),
            "vc_na": lambda d: d.groupby("cust").note.value_counts(dropna=False),
            "by_level": lambda d: d.groupby(["cust", "qty"]).amt.sum().sort_index(level=1),
            "by_level_desc": lambda d: d.set_index(["cust", "qty"]).sort_index(
                level="qty", ascending=False),
        }
        self.same_each(cases, p, df)
        more = {
            "vc_subset": lambda d: d.value_counts("cust"),  # pandas: a plain index here
            "vc_list": lambda d: d.value_counts(["cust"]),
            "loc_slice_col": lambda d: d.loc[5:12, "qty"],
            "filter_regex": lambda d: d.filter(regex="^[aq]"),
            "filter_items": lambda d: d.filter(items=["qty", "zz", "cust"]),
            "filter_like": lambda d: d.filter(like="u"),
            "reindex": lambda d: d.reindex(columns=["qty", "new", "cust"]),
            "reindex_fill": lambda d: d.reindex(["amt", "z"], axis=1, fill_value=0),
        }
        self.same_each(more, p, df)
        w = pd.DataFrame({"id": np.arange(12) % 4, "t": np.repeat([1, 2, 3], 4),
                          "v": rng.integers(0, 100, 12), "w": rng.standard_normal(12).round(3)})
        w.loc[[2, 7], "w"] = np.nan
        dw = md.DataFrame(w, chunk_rows=5)
        self.same_each([lambda d: d.set_index("id").stack(), lambda d: d[["v", "w"]].stack(),
                        lambda d: d.set_index(["id", "t"]).stack(),
                        lambda d: d[["w"]].stack(dropna=False),
                        lambda d: d.pivot(index="id", columns="t", values="v").stack(),
                        lambda d: d.pivot_table(index="id", columns="t", values="w",
                                                aggfunc="sum").stack(),
                        lambda d: d.set_index(["id", "t"]).v.unstack().clip(10, 60),
                        lambda d: d.set_index(["id", "t"]).v.unstack().where(lambda x: x > 40)], w, dw)
        # pivot_table by Series of the same rows (named after them)
        p["m"] = np.arange(n) % 3 + 1
        df = md.DataFrame(p, chunk_rows=4)
        for f in (lambda d: d.pivot_table(index="cust", columns=d.m * 10, values="amt",
                                          aggfunc="sum"),
                  lambda d: d.pivot_table(index=(d.m % 2).rename("odd"), values="qty",
                                          aggfunc="max"),
                  lambda d: d.pivot_table(index=[d.m + 1, "cust"], values="qty", aggfunc="count")):
            pd.testing.assert_frame_equal(f(df).fetch(), f(p))
        self.assertEqual(df.amt.argmin().fetch(), p.amt.argmin())
        self.same_each([lambda d: d.head(-3), lambda d: d.tail(-40), lambda d: d.qty.head(-44),
                        lambda d: d.fillna({"nope": 1, "note": "?"})], p, df)
        # a frame with a Series of its column names aligns on the columns,
        # as pandas; dot products; a Series as a tensor
        num, pn = df[["amt", "qty"]], p[["amt", "qty"]]
        self.same_each([lambda d: (d - d.mean()) / d.std(), lambda d: d * d.max(),
                        lambda d: d.min() - d, lambda d: d.dot(pd.Series({"amt": 0.5, "qty": 2.0})),
                        lambda d: d @ [1, -1]], pn, num)
        self.assertTrue(np.isnan(pn.qty @ pn.amt) and np.isnan((num.qty @ num.amt).fetch()))
        self.assertAlmostEqual(float(num.qty.dot(num.amt.fillna(1)).fetch()),
                               pn.qty.dot(pn.amt.fillna(1)), places=6)
        np.testing.assert_array_equal(mt.tensor(df.qty).fetch(), p.qty.to_numpy())
        self.same_each([lambda d: d.cust.map(str.upper), lambda d: d.cust.apply(str.title),
                        lambda d: d.add_prefix("r_"), lambda d: d.add_suffix("_x"),
                        lambda d: d.amt.truncate(before=5, after=8), lambda d: d.truncate(40)],
                       p, df)
        for f in (lambda d: d.amt.sum(min_count=1), lambda d: d.amt[d.qty > 99].sum(min_count=1),
                  lambda d: d.qty.prod(min_count=50), lambda d: d.qty.prod(min_count=40)):
            want, got = f(p), f(df).fetch()
            self.assertTrue(np.isclose(want, got, rtol=1e-12) or (np.isnan(want) and np.isnan(got)),
                            (want, got))
        for f in (lambda s: s.is_monotonic_increasing, lambda s: s.is_monotonic_decreasing,
                  lambda s: s.first_valid_index(), lambda s: s.last_valid_index()):
            for c in ("qty", "amt"):
                self.assertEqual(f(df[c]), f(p[c]))
        self.assertTrue(md.Series(np.arange(9.0), chunk_rows=2).is_monotonic_increasing)
        # along each row (axis=1), and agg's list keeping int columns int
        nums = ["amt", "qty", "m"]
        self.same_each([lambda d: d[nums].std(axis=1), lambda d: d[nums].var(axis=1, ddof=0),
                        lambda d: d[nums].prod(axis=1), lambda d: d[nums].idxmax(axis=1),
                        lambda d: d[nums].idxmin(axis=1), lambda d: d[nums].cumsum(axis=1),
                        lambda d: d[nums].cummax(axis=1), lambda d: d[nums].cumprod(axis=1),
                        lambda d: d[nums].diff(axis=1), lambda d: d[nums].shift(-1, axis=1),
                        lambda d: d[nums].diff(periods=2, axis=1),
                        lambda d: d[["amt", "qty"]].agg(["sum", "min"]),
                        lambda d: d[["qty", "m"]].agg(["count", "nunique", "max"]),
                        lambda d: d.median(numeric_only=True), lambda d: d.std(numeric_only=True),
                        lambda d: d.set_axis(["c%d" % i for i in range(len(d.columns))], axis=1),
                        lambda d: d.infer_objects()],
                       p, df)
        # without random_state: a seed drawn by the client, the rows p's own
        picked = df.sample(7).fetch()
        self.assertEqual(len(picked), 7)
        pd.testing.assert_frame_equal(picked, p.loc[picked.index])
        self.assertEqual(len(df.qty.sample(frac=0.5).fetch()), round(n * 0.5))
        self.assertEqual(df.qty.head(1).squeeze(), p.qty.head(1).squeeze())
        with self.assertRaisesRegex(TypeError, "list-like"):
            df.cust.isin("c1")
        with self.assertRaisesRegex(ValueError, "Limit must be greater than 0"):
            df.amt.ffill(limit=0)

    def test_time_series_methods(self):
        """a resample's freq kept through row-wise ops, rolling agg,
        autocorr and equals, as pandas"""
        rng = np.random.default_rng(21)
        n = 120
        p = pd.DataFrame({"t": pd.date_range("2022-01-01", periods=n, freq="6H"),
                          "temp": (20 + rng.normal(0, 3, n)).round(2),
                          "hum": rng.uniform(30, 90, n).round(1)})
        p.loc[rng.random(n) < 0.08, "temp"] = np.nan
        df = md.DataFrame(p, chunk_rows=13)
        self.same_each([lambda d: d.set_index("t").temp.resample("D").sum().cumsum(),
                        lambda d: d.set_index("t").temp.resample("D").mean().rolling(3).mean(),
                        lambda d: d.set_index("t").resample("D").max().hum * 2,
                        lambda d: d.set_index("t").temp.rolling(3).agg(["min", "max", np.mean]),
                        lambda d: d.set_index("t").rolling(4).agg({"temp": "sum", "hum": "max"}),
                        lambda d: d.temp.expanding(2).agg("std"),
                        lambda d: d.set_index("t").temp.shift(2, freq="H"),
                        lambda d: d.set_index("t").shift(-1, freq="D"),
                        lambda d: d.set_index("t").hum.shift(1, freq="D").rolling("2D").sum()],
                       p, df)
        with self.assertRaisesRegex(NotImplementedError, "a fixed frequency"):
            df.set_index("t").temp.shift(1, freq="M")
        # fill_value in the rows no value comes to; a Series' rolling pair
        q = p.assign(n=np.arange(n) % 7)
        dq = md.DataFrame(q, chunk_rows=13)
        self.same_each([lambda d: d.n.shift(2, fill_value=-1), lambda d: d.n.shift(-3, fill_value=0),
                        lambda d: d[["n", "temp"]].shift(2, fill_value=0),
                        lambda d: d.temp.shift(-2, fill_value=1.5),
                        lambda d: d.temp.rolling(5).corr(d.hum),
                        lambda d: d.temp.rolling(4).cov(d.n * 1.5),
                        lambda d: d.hum.expanding(3).corr(d.hum * 2 - d.n)], q, dq)
        self.assertEqual(df.set_index("t").temp.resample("D").sum().fetch().index.freq, "D")
        self.assertAlmostEqual(float(df.temp.autocorr().fetch()), p.temp.autocorr(), places=12)
        self.assertAlmostEqual(float(df.hum.autocorr(3).fetch()), p.hum.autocorr(3), places=12)
        self.assertTrue(df.hum.equals(p.hum))
        self.assertFalse(df.hum.equals(df.hum + 1))

    def test_narrow_dtypes_and_integer_labels(self):
        """astype to int8, uint8, int16, int32 and float32: numpy's values
        (wrapped, rounded), fetched in that dtype through the ops that keep
        values; frames labelled by integers keep them (df[0], df[0] = ...)"""
        rng = np.random.default_rng(23)
        n = 40
        p = pd.DataFrame({"a": rng.integers(-300, 300, n), "k": rng.choice(["x", "y"], n),
                          "f": rng.normal(0, 100, n) + 0.123456789})
        df = md.DataFrame(p, chunk_rows=7)
        self.same_each([lambda d: d.a.astype("int8"), lambda d: d.a.astype(np.uint8),
                        lambda d: d.f.astype("float32"), lambda d: d.f.astype("int16"),
                        lambda d: d.f.astype("float32").astype("float64"),
                        lambda d: d.a.astype("int8") > 50,
                        lambda d: d.astype({"a": "int8", "f": "float32"}),
                        lambda d: d.astype({"a": "int8"}).sort_values("f").head(9),
                        lambda d: d.astype({"a": "int32"})[d.f > 0],
                        lambda d: d[["a", "f"]].astype("int8"),
                        lambda d: d.astype({"a": "int8"}).groupby("k").a.sum()], p, df)
        self.assertEqual(df.astype({"a": "int8"}).a.head().dtype, np.int8)
        self.assertEqual(list(df.astype({"f": "float32"}).dtypes),
                         list(p.astype({"f": "float32"}).dtypes))
        self.assertEqual(int(df.a.astype("int8").max().fetch()), p.a.astype("int8").max())
        q = pd.DataFrame(rng.integers(0, 50, (20, 3)))
        dq = md.DataFrame(q, chunk_rows=6)
        self.assertEqual(list(dq.columns), [0, 1, 2])
        self.same_each([lambda d: d, lambda d: d[1], lambda d: d[[0, 2]],
                        lambda d: d.mean(axis=1), lambda d: d.groupby(0).sum(),
                        lambda d: d.astype({0: "int8"}), lambda d: d.rename(columns={0: "a"}),
                        lambda d: d.loc[d[0] > 20, 1]], q, dq)
        q[3], dq[3] = q[0] * 2, dq[0] * 2
        pd.testing.assert_frame_equal(dq.fetch(), q)
        self.assertEqual(list(dq.dtypes.index), [0, 1, 2, 3])

    def test_drop_rows_group_describe(self):
        """drop by index labels (index=, labels, a Series' too), beside
        columns, errors="ignore" and inplace, as pandas; a label found
        nowhere fails with pandas' words. A groupby's describe of several
        columns."""
        rng = np.random.default_rng(29)
        n = 30
        p = pd.DataFrame({"k": rng.choice(["a", "b", "c"], n), "v": rng.normal(0, 1, n),
                          "t": pd.date_range("2024-01-01", periods=n, freq="D")})
        df = md.DataFrame(p, chunk_rows=4)
        self.same_each([lambda d: d.drop(index=[0, 3, 29]), lambda d: d.drop([5, 1]),
                        lambda d: d.drop(7, errors="ignore"),
                        lambda d: d.drop([2, 99], errors="ignore"),
                        lambda d: d.drop(index=[0], columns=["t"]),
                        lambda d: d.v.drop([0, 1, 2]), lambda d: d.set_index("k").drop("b"),
                        lambda d: d.set_index("k").drop(["a", "c"]).v * 2,
                        lambda d: d.set_index("t").drop(pd.Timestamp("2024-01-03")),
                        lambda d: d.drop(columns=["nope", "v"], errors="ignore")], p, df)
        q, dq = p.copy(), df.copy()
        q.drop([1, 2], inplace=True)
        self.assertIsNone(dq.drop([1, 2], inplace=True))
        pd.testing.assert_frame_equal(dq.fetch(), q)
        with self.assertRaisesRegex(marsc.TaskError, r"\[99\] not found in axis"):
            df.drop([1, 99]).fetch()
        with self.assertRaisesRegex(KeyError, "not found in axis"):
            df.drop(columns=["nope"])
        # a groupby's describe of several columns: pandas' MultiIndex columns
        p["w"] = rng.integers(0, 9, n)
        df = md.DataFrame(p, chunk_rows=4)
        self.same_each([lambda d: d.groupby("k").describe(),
                        lambda d: d.groupby("k")[["w", "v"]].describe(),
                        lambda d: d.groupby("k")[["w", "v"]].describe()["v"].round(3)], p, df)

    def test_pivot_table_many(self):
        """pivot_table with a list of aggregations or a dict of them (pandas'
        MultiIndex columns, fetched), and without columns by any groupby
        aggregation (median, std, nunique ...), as pandas 1.5; a frame's
        unstack (MultiIndex columns, fetched)"""
        rng = np.random.default_rng(31)
        n = 50
        p = pd.DataFrame({"c": rng.choice(["x", "y", "z"], n), "q": rng.integers(1, 6, n),
                          "a": rng.uniform(0, 100, n).round(2),
                          "t": pd.Timestamp("2024-01-01") + pd.to_timedelta(np.arange(n), "h")})
        p.loc[rng.random(n) < 0.1, "a"] = np.nan
        df = md.DataFrame(p, chunk_rows=6)
        with warnings.catch_warnings():  # pandas' dropping "t" from mean
            warnings.simplefilter("ignore", FutureWarning)
            self._pivots(p, df)

    def _pivots(self, p, df):
        self.same_each([
            lambda d: d.pivot_table(index="c", values=["q", "a"], aggfunc=["sum", "mean"]),
            lambda d: d.pivot_table(index="c", values="a", aggfunc=["sum", "count"]),
            lambda d: d.pivot_table(index="c", values=["q", "a"],
                                    aggfunc={"q": "sum", "a": ["min", "max"]}),
            lambda d: d.pivot_table(index="c", aggfunc={"q": "sum", "a": "max"}),
            lambda d: d.pivot_table(index="c", columns="q", values="a", aggfunc=["sum", "max"]),
            lambda d: d.pivot_table(index=["c", "q"], values="a", aggfunc=["sum", "median"]),
            lambda d: d.pivot_table(index="c", values="q", aggfunc="median"),
            lambda d: d.pivot_table(index="c", values=["q", "a"], aggfunc="std"),
            lambda d: d.pivot_table(index="c", aggfunc="mean"),
            lambda d: d.pivot_table(index="q", aggfunc="max"),
            lambda d: d.pivot_table(index="q", values="a", aggfunc="median", fill_value=0),
            lambda d: d.groupby(["c", "q"])[["a"]].sum().unstack(),
            lambda d: d.groupby(["c", "q"])[["a", "q"]].max().unstack(0),
            lambda d: d.groupby(["c", "q"])[["a"]].count().unstack(fill_value=0)["a"]],
            p, df)

    def test_split_explode(self):
        """s.str.split(pat).explode(): a row per part in row order, labelled
        as its value's row, a missing value one missing row, as pandas; a
        frame's column assigned a split: fetched as lists, exploded with
        the other columns repeated"""
        p = pd.DataFrame({"t": ["a,b", None, "c", "", "d,e,f", "g", "h,i"] * 3,
                          "k": list("xyzxyzx") * 3})
        df = md.DataFrame(p, chunk_rows=4)
        self.same_each([lambda d: d.t.str.split(",").explode(),
                        lambda d: d.t.str.split(",", n=1).explode(),
                        lambda d: d.t.str.split(",").explode(ignore_index=True),
                        lambda d: d.set_index("k").t.str.split(",").explode().str.upper(),
                        lambda d: d.t.str.split(",").explode().value_counts(),
                        lambda d: d.assign(w=d.t.str.split(",")),
                        lambda d: d.assign(w=d.t.str.split(",")).explode("w"),
                        lambda d: d.assign(t=d.t.str.split(",", n=1)).explode("t",
                                                                          ignore_index=True),
                        lambda d: d.assign(t=d.t.str.split(",")).explode("t").groupby("t").k.count()],
                       p, df)
        dq, q = df.copy(), p.copy()
        dq["p"], q["p"] = dq.t.str.split(","), q.t.str.split(",")
        pd.testing.assert_frame_equal(dq.explode("p").fetch(), q.explode("p"))

    def test_quantile_interpolation(self):
        """quantile's interpolation lower, higher, nearest and midpoint, of
        a Series and a frame, a q and a list, int columns kept int64 where
        pandas keeps them"""
        rng = np.random.default_rng(37)
        n = 41
        p = pd.DataFrame({"f": rng.normal(0, 10, n).round(3), "i": rng.integers(-20, 20, n),
                          "j": rng.integers(0, 9, n)})
        p.loc[rng.random(n) < 0.1, "f"] = np.nan
        df = md.DataFrame(p, chunk_rows=5)
        for m in ("lower", "higher", "nearest", "midpoint"):
            with self.subTest(interpolation=m):
                for c in ("f", "i"):
                    for q in (0.3, 1 / 3, 0.5):
                        self.assertEqual(df[c].quantile(q, interpolation=m).fetch(),
                                         p[c].quantile(q, interpolation=m))
                self.same_each([lambda d: d.f.quantile([0.1, 0.5, 0.9], interpolation=m),
                                lambda d: d.i.quantile([0.25, 0.75], interpolation=m),
                                lambda d: d.quantile([0.2, 0.8], interpolation=m),
                                lambda d: d.quantile(0.3, interpolation=m),
                                lambda d: d[["i", "j"]].quantile(0.6, interpolation=m)], p, df)
        with self.assertRaisesRegex(ValueError, "interpolation can only be"):
            df.f.quantile(0.5, interpolation="cubic")

    def test_row_median_nunique(self):
        """median and nunique along each row (axis=1): missing values
        skipped, an infinity a value, a row of none NaN (median) or 0, and
        lined up with the frame (assigned to it), as pandas"""
        rng = np.random.default_rng(41)
        n = 30
        p = pd.DataFrame({"a": rng.integers(0, 4, n), "b": rng.normal(0, 1, n).round(1),
                          "c": rng.integers(0, 4, n).astype(float), "d": rng.random(n) < 0.5})
        p.loc[rng.random(n) < 0.2, "b"] = np.nan
        p.loc[rng.random(n) < 0.2, "c"] = np.nan
        p.loc[3, ["b", "c"]] = np.nan
        p.loc[5, "b"] = np.inf
        df = md.DataFrame(p, chunk_rows=7)
        self.same_each([lambda d: d.median(axis=1), lambda d: d[["b", "c"]].median(axis=1),
                        lambda d: d[["a", "b", "c"]].median(axis=1),
                        lambda d: d.assign(m=d[["a", "b", "c"]].median(axis=1)),
                        lambda d: d.nunique(axis=1), lambda d: d[["a", "c"]].nunique(axis=1),
                        lambda d: d[["a", "b", "c"]].nunique(axis=1, dropna=False)], p, df)
        t = pd.DataFrame({"x": ["a", "b", None, "a"], "y": ["a", "c", None, None],
                          "z": ["b", "c", "e", "a"]})
        self.same_each([lambda d: d.nunique(axis=1), lambda d: d.nunique(axis=1, dropna=False)],
                       t, md.DataFrame(t, chunk_rows=3))

    def test_concat_schemas_keys(self):
        """concat of frames of other columns (their union, missing values
        where a frame lacks one; join="inner"), of int64 beside float64
        (float64), of Series of other names (unnamed), and with keys (a
        first index level), as pandas; assign of None and a Timestamp"""
        rng = np.random.default_rng(43)
        n = 24
        p = pd.DataFrame({"id": np.arange(n), "k": rng.choice(["a", "b"], n),
                          "v": rng.normal(0, 1, n).round(2), "q": rng.integers(0, 9, n),
                          "t": pd.date_range("2024-02-01", periods=n, freq="H")})
        df = md.DataFrame(p, chunk_rows=5)
        self.same_each([
            lambda d: md_or_pd(d).concat([d.head(6), d[["id", "v"]].tail(5)]),
            lambda d: md_or_pd(d).concat([d[["q", "k"]].head(3), d[["t", "q"]].tail(2)]),
            lambda d: md_or_pd(d).concat([d.head(4), d[["k", "q", "id"]].tail(3)], join="inner"),
            lambda d: md_or_pd(d).concat([d[["id", "q"]].head(5), d[["id", "q"]].tail(5) / 2]),
            lambda d: md_or_pd(d).concat([d.q.head(5), d.v.tail(5)]),
            lambda d: md_or_pd(d).concat([d.q.head(5), d.q.tail(5) * 1.5]).cumsum(),
            lambda d: md_or_pd(d).concat([d.head(3), d.tail(2)], keys=["x", "y"]),
            lambda d: md_or_pd(d).concat([d.head(3), d[["id", "v"]].tail(2)], keys=[1, 2],
                                         names=["part", "row"]),
            lambda d: md_or_pd(d).concat({"a": d.v.head(3), "b": d.v.tail(3)}),
            lambda d: md_or_pd(d).concat([d.set_index("k").head(3), d.set_index("k").tail(2)],
                                         keys=["x", "y"]).loc["y"],
            lambda d: d.head(4).assign(z=None, w=pd.Timestamp("2024-01-02 03:04")),
            lambda d: md_or_pd(d).concat([d.head(3), d.tail(3)], keys=["a", "b"],
                                         names=["src", "r"]).groupby(level=0).v.sum(),
            lambda d: md_or_pd(d).concat([d.head(3), d.tail(3)], keys=["a", "b"],
                                         names=["src", "r"]).groupby(level="src").sum(
                                             numeric_only=True),
            lambda d: d.set_index(["k", "q"]).groupby(level=[0, 1]).v.mean(),
            lambda d: d.merge(d.groupby("k").v.mean().rename("avg"), left_on="k",
                              right_index=True),
            lambda d: md_or_pd(d).DataFrame({"x": d.v, "y": d.q, "z": 1}),
            lambda d: md_or_pd(d).DataFrame({"x": d.v.head(5), "y": d.q.tail(20)}),
            lambda d: md_or_pd(d).DataFrame({"x": d.v, "k": d.k}, columns=["k", "x"]),
            lambda d: md_or_pd(d).DataFrame(d.v * 2),
            lambda d: md_or_pd(d).DataFrame({"m": d.groupby("k").v.mean(),
                                             "s": d.groupby("k").q.sum()}),
            lambda d: d[["v"]].squeeze(), lambda d: d[["v", "q"]].squeeze(),
            lambda d: d.head(4).merge(d[["k", "q"]].head(3), how="cross"),
            lambda d: d.merge(d.groupby("k", as_index=False).q.sum(), on="k",
                              validate="many_to_one"),
            lambda d: d.merge(d[["k"]].drop_duplicates().assign(z=1), on="k", how="outer",
                              sort=True)], p, df)
        with self.assertRaisesRegex(pd.errors.MergeError, "not unique in left dataset"):
            df.merge(df[["k"]].drop_duplicates(), on="k", validate="1:1")
        self.same_each([lambda d: d.groupby(level=0).v.sum(),
                        lambda d: d.k.str.upper().groupby(level=0).max(),
                        lambda d: md_or_pd(d).concat([d.head(3), d.tail(3)], keys=["a", "b"])
                        .groupby(level=0).v.max(),
                        lambda d: md_or_pd(d).concat([d.v.head(3), d.v.tail(3)], keys=["a", "b"])
                        .groupby(level=0).agg(["count", "max"])], p, df)
        with self.assertRaisesRegex(KeyError, "Level nope not found"):
            df.groupby(level="nope")
        # what keeps the rows stays on the rows' index, lined up with them
        s, ps = df.groupby(["k", "q"]).v.sum(), p.groupby(["k", "q"]).v.sum()
        pd.testing.assert_series_equal((s / s.groupby(level=0).transform("sum")).fetch(),
                                       ps / ps.groupby(level=0).transform("sum"))
        self.same_each([lambda d: d.set_index(["k", "q"]).groupby(level=1)[["v", "id"]].cumsum(),
                        lambda d: d.v.groupby(level=0).shift(1),
                        lambda d: d.groupby("k").q.any(), lambda d: d.groupby("k")[["v", "q"]].all(),
                        lambda d: d.assign(b=d.q > 2).groupby("k").b.all()], p, df)
        self.assertAlmostEqual(float(md.concat([df.q, df.v]).sum().fetch()),
                               pd.concat([p.q, p.v]).sum(), places=9)

    def test_rename_reindex_rows(self):
        """rename of the index's labels (a dict, a function; mapper with
        axis) and reindex of the rows (missing rows, fill_value, a
        DatetimeIndex's name and freq), of frames and Series, as pandas"""
        rng = np.random.default_rng(47)
        n = 26
        p = pd.DataFrame({"c": rng.choice(["x", "y", "z"], n), "v": rng.normal(0, 1, n).round(2),
                          "q": rng.integers(0, 9, n),
                          "t": pd.Timestamp("2024-03-01") + pd.to_timedelta(np.arange(n), "D")})
        df = md.DataFrame(p, chunk_rows=6)
        self.same_each([
            lambda d: d.rename(index={0: 100, 1: 101}), lambda d: d.rename(index=lambda i: i * 2),
            lambda d: d.rename({3: -3}), lambda d: d.rename({"v": "w"}, axis=1),
            lambda d: d.rename(columns={"v": "w"}, index={2: -2}),
            lambda d: d.v.rename({0: 100}), lambda d: d.v.rename(lambda i: i + 1000),
            lambda d: d.set_index("c").rename(index={"x": "X"}),
            lambda d: d.reindex([3, 1, 99]), lambda d: d.v.reindex([3, 1, 99], fill_value=0),
            lambda d: d.q.reindex([25, 40]), lambda d: d[["v", "q"]].reindex([2, -1], fill_value=-7),
            lambda d: d.reindex(index=[5, 40], columns=["q", "zz"]),
            lambda d: d.set_index("t").v.reindex(pd.date_range("2024-02-27", periods=6,
                                                               freq="D"), fill_value=0.0)],
            p, df)
        with self.assertRaisesRegex(KeyError, "not found in axis"):
            df.rename(columns={"nope": "x"}, errors="raise")

    def test_read_csv_usecols_function_na_filter(self):
        """usecols as a function of the names (the header read first),
        na_filter=False (no value missing), as pandas; pandas' options that
        change no result taken, the others refused at other values"""
        frame = pd.DataFrame({"a": [1, 4, 7], "b": ["2", "", "NA"], "c": [3.5, None, 9.0]})
        for got_kw in (dict(usecols=lambda c: c != "b"), dict(na_filter=False),
                       dict(na_filter=False, na_values=["7"]),
                       dict(usecols=lambda c: c in "ab", names=["a", "b", "x"], header=0),
                       dict(low_memory=False, engine="c", float_precision="high",
                            memory_map=True, skip_blank_lines=True)):
            with self.subTest(kw=str(got_kw)):
                with uploaded_csv("cb.csv", frame, keep=True, **got_kw) as (want, path):
                    got = md.read_csv(os.path.basename(path), **got_kw).fetch()
                    pd.testing.assert_frame_equal(got, want)
        with self.assertRaisesRegex(NotImplementedError, "only {'method': name}"):
            md.read_csv("cb.csv", compression={"method": "gzip", "compresslevel": 1})
        with self.assertRaisesRegex(ValueError, "'chunksize' must be an integer >=1"):
            md.read_csv("cb.csv", chunksize=0)

    def test_read_csv_compressed(self):
        """compressed uploads (pandas' compression=, inferred from the
        name or named): each decompressed once per host, by whichever
        process reads it first, the others waiting, then cut into chunks
        read by both workers; compared with pandas' reads of the same
        files, through a groupby and nrows; read_json of a .json.gz"""
        import gzip
        import zipfile
        rng = np.random.default_rng(71)
        n = 4000
        frame = pd.DataFrame({"k": np.array(["a", "b, c", "d"], dtype=object)[rng.integers(0, 3, n)],
                              "i": rng.integers(-50, 50, n), "x": rng.random(n).round(5)})
        with tempfile.TemporaryDirectory() as d:
            paths = {}
            for name in ("sales.csv.gz", "sales.csv.bz2", "sales.csv.xz", "sales.csv.zip",
                         "sales.csv.tar.gz"):
                paths[name] = os.path.join(d, name)
                frame.to_csv(paths[name], index=False)
            paths["sales.bin"] = os.path.join(d, "sales.bin")
            with open(paths["sales.bin"], "wb") as f:
                f.write(gzip.compress(frame.to_csv(index=False).encode(), mtime=0))
            paths["two.csv.zip"] = os.path.join(d, "two.csv.zip")
            with zipfile.ZipFile(paths["two.csv.zip"], "w") as z:
                z.writestr("a.csv", "a\n1\n")
                z.writestr("b.csv", "a\n2\n")
            paths["r.json.gz"] = os.path.join(d, "r.json.gz")
            frame.to_json(paths["r.json.gz"], orient="records", lines=True)
            for p in paths.values():
                SESS.upload(p)
            for name in ("sales.csv.gz", "sales.csv.bz2", "sales.csv.xz", "sales.csv.zip",
                         "sales.csv.tar.gz"):
                with self.subTest(name=name):
                    want = pd.read_csv(paths[name])
                    pd.testing.assert_frame_equal(want, frame)
                    got = md.read_csv(name, chunk_bytes=9000)
                    pd.testing.assert_frame_equal(got.fetch(), want)
                    pd.testing.assert_frame_equal(got.groupby("k").agg({"i": "sum", "x": "max"}).fetch(),
                                                  want.groupby("k").agg({"i": "sum", "x": "max"}))
            pd.testing.assert_frame_equal(md.read_csv("sales.bin", compression="gzip", nrows=123).fetch(),
                                          pd.read_csv(paths["sales.bin"], compression="gzip", nrows=123))
            pd.testing.assert_frame_equal(
                md.read_csv("sales.bin", compression={"method": "gzip"}, usecols=lambda c: c != "x").fetch(),
                pd.read_csv(paths["sales.bin"], compression={"method": "gzip"}, usecols=lambda c: c != "x"))
            pd.testing.assert_frame_equal(md.read_json("r.json.gz", orient="records", lines=True).fetch(),
                                          pd.read_json(paths["r.json.gz"], orient="records", lines=True))
            with self.assertRaisesRegex(Exception, "Multiple files found in ZIP file"):
                md.read_csv("two.csv.zip").fetch()
            with self.assertRaisesRegex(Exception, "Unrecognized compression type: rar"):
                md.read_csv("sales.csv.gz", compression="rar").fetch()

    def test_groupby_apply_rows(self):
        """groupby apply of a func giving each group's rows (nlargest,
        nsmallest, head, tail, sort_values then head or tail; a Series'
        too): the groups in key order, indexed by the keys then the rows'
        labels, as pandas; apply(len) the groups' sizes"""
        rng = np.random.default_rng(53)
        n = 40
        p = pd.DataFrame({"k": rng.choice(["a", "b", "c"], n), "j": rng.integers(0, 2, n),
                          "v": rng.normal(0, 1, n).round(2), "q": rng.integers(0, 5, n)})
        p.loc[[4, 9], "v"] = np.nan
        df = md.DataFrame(p, chunk_rows=6)
        top = 2
        self.same_each([lambda d: d.groupby("k").apply(lambda g: g.nlargest(2, "v")),
                        lambda d: d.groupby("k").apply(lambda g: g.nsmallest(top, "q")),
                        lambda d: d.groupby("k").apply(lambda g: g.sort_values("v").head(1)),
                        lambda d: d.groupby(["k", "j"]).apply(
                            lambda g: g.sort_values(["q", "v"], ascending=[False, True]).tail(2)),
                        lambda d: d.groupby("k").apply(lambda g: g.head(3)),
                        lambda d: d.groupby("k").apply(len),
                        lambda d: d.groupby("k").v.apply(lambda x: x.nlargest(2)),
                        lambda d: d.groupby("k").q.apply(len)], p, df)

    def test_index_levels_skipna(self):
        """droplevel, swaplevel, reorder_levels, reset_index(level=) of
        frames and Series, sort_index(axis=1), a Series' reductions with
        skipna=False (NaN where a value is missing), spearman correlations,
        as pandas"""
        rng = np.random.default_rng(59)
        n = 30
        p = pd.DataFrame({"k": rng.choice(["a", "b"], n), "j": rng.integers(0, 3, n),
                          "i": np.arange(n), "v": rng.normal(0, 1, n).round(2),
                          "q": rng.integers(0, 5, n)})
        p.loc[[3, 17], "v"] = np.nan
        df = md.DataFrame(p, chunk_rows=7)
        self.same_each([lambda d: d.set_index(["k", "j"]).droplevel(0),
                        lambda d: d.set_index(["k", "j"]).droplevel("j"),
                        lambda d: d.set_index(["k", "j"]).swaplevel(),
                        lambda d: d.set_index(["k", "j", "i"]).reorder_levels(["i", "k", "j"]),
                        lambda d: d.set_index(["k", "j"]).reset_index(level=1),
                        lambda d: d.set_index(["k", "j", "i"]).reset_index(level=[2, 0]),
                        lambda d: d.set_index(["k", "j"]).reset_index(level="k", drop=True),
                        lambda d: d.groupby(["k", "j"]).v.sum().droplevel(0),
                        lambda d: d.groupby(["k", "j"]).v.sum().reset_index(level=1),
                        lambda d: d.sort_index(axis=1),
                        lambda d: d.sort_index(axis=1, ascending=False)], p, df)
        for f in ("sum", "mean", "min", "max", "std", "median"):
            for c in ("v", "q"):
                got = getattr(df[c], f)(skipna=False).fetch()
                want = getattr(p[c], f)(skipna=False)
                self.assertTrue((np.isnan(got) and np.isnan(want)) or abs(got - want) < 1e-9,
                                (f, c, got, want))
        # a frame's: NaN in the column's (row's) result where one is missing
        fr = df.assign(w=df.v * 2 + 1)[["v", "q", "w", "i"]]
        pf = p.assign(w=p.v * 2 + 1)[["v", "q", "w", "i"]]
        self.same_each([lambda d, f=f, ax=ax: getattr(d, f)(axis=ax, skipna=False)
                        for f in ("sum", "mean", "min", "max", "std", "var", "median", "prod")
                        for ax in (0, 1)], pf, fr)
        self.same_each([lambda d: d.skew(skipna=False), lambda d: d[["q", "i"]].sum(skipna=False)],
                       pf, fr)
        # spearman: the ranks' pearson, pairwise over the rows both have
        self.same_each([lambda d: d[["v", "q", "i"]].corr(method="spearman"),
                        lambda d: d[["v", "q", "i"]].fillna(0).corr(method="spearman"),
                        lambda d: d.assign(b=d.q > 2)[["b", "q", "j"]].corr(method="spearman")],
                       p, df)
        want = p[["v", "q"]].corr(method="spearman").loc["v", "q"]  # (Series': scipy's)
        self.assertAlmostEqual(float(df.v.corr(df.q, method="spearman").fetch()), want, places=12)
        with self.assertRaisesRegex(NotImplementedError, "kendall"):
            df[["v", "q"]].corr(method="kendall")
        self.same_each([lambda d: d.describe(exclude=[object]), lambda d: d.describe(exclude=["number"]),
                        lambda d: d[["v", "q"]].agg(lambda c: c.max() - c.min())], p, df)
        self.assertAlmostEqual(float(df.v.agg(lambda x: x.max() - x.min()).fetch()),
                               p.v.agg(lambda x: x.max() - x.min()), places=12)
        self.assertTrue("v" in df and "zz" not in df)  # columns, as pandas
        self.assertTrue(3 in df.v and 99 not in df.v)  # index labels

    def test_groupby_protocol(self):
        """sem, get_group, ngroups and len, groups, iteration and pipe of a
        groupby, as pandas'"""
        rng = np.random.default_rng(31)
        n = 40
        p = pd.DataFrame({"dept": rng.choice(["eng", "ops", "hr"], n),
                          "lvl": rng.integers(1, 3, n), "salary": rng.integers(40, 200, n) * 1000.0,
                          "age": rng.integers(22, 65, n)})
        p.loc[[3, 9], "salary"] = np.nan
        df = md.DataFrame(p, chunk_rows=6)
        self.same_each([lambda d: d.groupby("dept").salary.sem(),
                        lambda d: d.groupby("dept").sem(ddof=0),
                        lambda d: d.groupby("dept").get_group("hr"),
                        lambda d: d.groupby(["dept", "lvl"]).get_group(("eng", 2)),
                        lambda d: d.groupby("dept").salary.get_group("ops"),
                        lambda d: d.groupby("dept").pipe(lambda g: g.salary.sum() / g.age.sum()),
                        lambda d: d.groupby("dept").salary.agg(lambda s: s.quantile(0.9)),
                        lambda d: d.groupby("lvl").apply(lambda g: g.age.quantile(0.25) * 2)],
                       p, df)
        with self.assertRaisesRegex(NotImplementedError, "beside another reduction"):
            df.groupby("dept").salary.agg(lambda s: s.quantile(0.75) - s.quantile(0.25))
        for by in ("dept", ["dept", "lvl"]):
            g, pg = df.groupby(by), p.groupby(by)
            self.assertEqual((g.ngroups, len(g)), (pg.ngroups, len(pg)))
            self.assertEqual({k: list(v) for k, v in g.groups.items()},
                             {k: list(v) for k, v in pg.groups.items()})
            mine = [(k, v.fetch()) for k, v in g]
            self.assertEqual([k for k, _ in mine], [k for k, _ in pg])
            for (_, got), (_, want) in zip(mine, pg):
                pd.testing.assert_frame_equal(got, want)

    def test_info_fetched_values(self):
        """info() and memory_usage() print what pandas prints of the same
        file: the default index a RangeIndex, missing strings NaN"""
        d = tempfile.mkdtemp()
        try:
            path = os.path.join(d, "info.csv")
            pd.DataFrame({"a": [1, 2, 3], "s": ["x", "y", None],
                          "t": ["2020-01-01", "2020-01-02", ""]}).to_csv(path, index=False)
            SESS.upload(path)
            df = md.read_csv("info.csv", parse_dates=["t"])
            p = pd.read_csv(path, parse_dates=["t"])
            mine, theirs = io.StringIO(), io.StringIO()
            df.info(buf=mine)
            p.info(buf=theirs)
            self.assertEqual(mine.getvalue(), theirs.getvalue())
            pd.testing.assert_series_equal(df.memory_usage(deep=True), p.memory_usage(deep=True))
            self.assertIsInstance(df.fetch().index, pd.RangeIndex)
            self.assertNotIsInstance(df[df.a > 1].fetch().index, pd.RangeIndex)
            got = df.s.fetch().tolist()
            self.assertTrue(isinstance(got[2], float) and np.isnan(got[2]), got)
            self.assertEqual(df.s.str.upper().fetch().tolist()[:2], ["X", "Y"])
        finally:
            shutil.rmtree(d)

    def test_label_alignment(self):
        """Series (DataFrames of the same columns) of different rows align
        on their index labels in arithmetic, as pandas': equal indexes as
        they are (int64 kept), different ones sorted, repeated labels joined,
        names kept where both agree"""
        rng = np.random.default_rng(61)
        n = 40
        p = pd.DataFrame({"a": rng.integers(0, 5, n), "b": rng.normal(size=n).round(3),
                          "c": rng.choice(list("xyzw"), n)})
        df = md.DataFrame(p, chunk_rows=9)
        self.same_each({
            "stats": lambda d: d[["a", "b"]].mean() / d[["a", "b"]].std(),
            "counts": lambda d: d.a.value_counts() - d.a.value_counts().sort_index(),
            "ints": lambda d: d.a.value_counts() + d.a.value_counts().head(2),
            "groups": lambda d: d.groupby("c").b.sum() - d.groupby("c").b.sum().shift(1),
            "filtered": lambda d: d.b[d.a > 1] + d.b,
            "sorted": lambda d: d.b.sort_values() * d.b,
            "empty": lambda d: d.b.head(0) + d.b.tail(7),
            "repeated": lambda d: d.set_index("c").b - d.groupby("c").b.mean(),
            "level": lambda d: d.set_index("c").b.sub(d.groupby("c").b.mean(), level="c"),
            "set_index_twice": lambda d: d.set_index("c").b * d.set_index("c").a,
            "frames": lambda d: d.set_index("c")[["a", "b"]] - d.groupby("c")[["a", "b"]].mean(),
            "frames_rows": lambda d: d[["a", "b"]][d.a > 2] + d[["a", "b"]].head(30),
            "same_rows": lambda d: d.b.shift(2) + d.b.rolling(3).mean() - d.b,
            "columns": lambda d: d[["b", "a"]] + d[["a", "b"]],
            "column_union": lambda d: d[["b", "a"]].head(5) * d[["a", "c"]].tail(9).assign(
                c=1.5),
            "groups_columns": lambda d: d.groupby("c")[["a", "b"]].sum() /
            d.groupby("c")[["b"]].sum(),
            "clip_quantiles": lambda d: d.b.clip(d.b.quantile(0.05), d.b.quantile(0.95)),
            "frame_clip": lambda d: d[["b"]].assign(e=d.b * 2).clip(upper=d.b.max() / 2),
        }, p, df)
        for lib, frame in ((pd, p), (md, df)):
            got = lib.crosstab(frame.c, frame.a, values=frame.b, aggfunc="mean")
            if lib is pd:
                want = got
            else:
                pd.testing.assert_frame_equal(got.fetch(), want)
        with self.assertRaisesRegex(marsc.GraphError, "index levels of types"):
            (df.a.value_counts() + df.c.value_counts()).execute()

        # assigned, a where's cond and other, fillna's and combine_first's
        # Series: reindexed on this one's labels (combine_first: their union)
        def by_group(d):
            d2 = d.set_index("c")
            d2["gm"] = d.groupby("c").b.mean()
            return d2

        def sorted_sum(d):
            d2 = d.copy()
            d2["z"] = d.b.sort_values().cumsum()
            d2["w"] = d.a * 2
            return d2
        self.same_each({
            "by_group": by_group, "sorted_sum": sorted_sum,
            "assign": lambda d: d.assign(z=d.b[d.a > 1] * 2, y=d.a + 1),
            "where": lambda d: d.b.sort_values().where(d.a > 2, -1),
            "where_other": lambda d: d.b.where(d.b.head(5) > 0, d.b.tail(10)),
            "mask": lambda d: d.b.mask(d.b.sort_values().head(5) > 0),
            "fillna": lambda d: d.b.tail(5).fillna(d.b.head(17)),
            "combine_first": lambda d: d.b.head(6).combine_first(d.b.tail(4) * 2),
            "add_fill": lambda d: d.b.head(5).add(d.b.tail(5), fill_value=0),
            "frames_fill": lambda d: d[["a", "b"]].head(5).rsub(d[["a", "b"]].tail(5),
                                                                  fill_value=1),
            "reindex_like": lambda d: d.b.head(4).reindex_like(d[["a"]].tail(18)),
        }, p, df)
        for join in ("outer", "inner", "left", "right"):
            for k in (0, 1):
                self.same_each({join: lambda d: d.b.sort_values().align(
                    d.a.head(25), join=join, fill_value=0 if join == "left" else None)[k]},
                    p, df)

        with self.assertRaisesRegex(marsc.TaskError, "duplicate labels"):
            df.assign(z=df.set_index("a").b).execute()

        # update, in place: other's present values by label
        o = pd.DataFrame({"a": [10., np.nan, 7], "b": [5, np.nan, 1.5], "c": ["q", None, "r"],
                          "z": [1, 2, 3]}, index=[2, 0, 39])

        def upd(d, other, **kw):
            d = d.copy()
            d.update(other, **kw)
            return d

        def upd_series(d):
            s = d.b.copy()
            s.update(d.b.sort_values().head(4) * 100)
            return s
        self.same_each({"frame": lambda d: upd(d, o),
                        "keep": lambda d: upd(d.assign(b=d.b.where(d.a > 0)), o, overwrite=False),
                        "rows": lambda d: upd(d, d[["b"]].head(5) * 10),
                        "series": upd_series}, p, df)


    def test_multiindex_keys(self):
        """loc and xs of a tuple of a MultiIndex's labels, as pandas 1.5: a
        key of the first levels drops them; a key of every level is the row
        where the index is unique (a Series named by the key, a Series'
        value), else the rows with the whole index; a list of tuples their
        rows in order; (key, column)"""
        rng = np.random.default_rng(62)
        p = pd.DataFrame({"a": rng.integers(0, 3, 24), "b": rng.normal(size=24).round(2),
                          "e": rng.normal(size=24).round(2), "c": list("xyzw") * 6})
        pm = p.set_index(["c", "a"]).sort_index()
        pu = p.drop_duplicates(["c", "a"]).set_index(["c", "a"])
        p3 = p.assign(k=np.arange(24) % 2).set_index(["c", "a", "k"]).sort_index()
        for loc, rem in ((pm, md.DataFrame(p).set_index(["c", "a"]).sort_index()),
                         (pu, md.DataFrame(p).drop_duplicates(["c", "a"]).set_index(["c", "a"])),
                         (p3, md.DataFrame(p.assign(k=np.arange(24) % 2)).set_index(
                             ["c", "a", "k"]).sort_index())):
            key = loc.index[3]
            self.same_each({"full": lambda d: d.loc[key], "xs": lambda d: d.xs(key),
                            "first": lambda d: d.loc[key[:2]] if len(key) > 2 else d.loc[key[0]],
                            "col": lambda d: d.loc[key, "b"] if loc is pm else d.loc[key, ["b"]],
                            "all_cols": lambda d: d.loc[key, :],
                            "tuples": lambda d: d.loc[[loc.index[5], key]],
                            "series": lambda d: d.b.loc[key] if loc is not pu else d.b.loc[[key]]},
                           loc, rem)
        self.assertAlmostEqual(md.DataFrame(p).drop_duplicates(["c", "a"]).set_index(
            ["c", "a"]).b.loc[pu.index[2]].fetch(), pu.b.loc[pu.index[2]])
        with self.assertRaises(KeyError):
            md.DataFrame(p).set_index(["c", "a"]).loc[("q", 0)].fetch()


    def test_date_offsets(self):
        """a datetime Series plus or minus pandas' offsets: the fixed ones as
        Timedeltas, DateOffset(years, months ...), MonthEnd, MonthBegin,
        YearEnd, YearBegin, BusinessDay and Week(weekday=) rolled as pandas
        rolls them (month ends, leap days, weekends, NaT kept, the time of
        day kept)"""
        p = pd.DataFrame({"t": pd.date_range("2020-01-29 05:00", periods=40, freq="9D")})
        p.loc[3, "t"] = pd.NaT
        p.loc[5, "t"] = pd.Timestamp("2021-12-31 13:00")
        p.loc[6, "t"] = pd.Timestamp("2022-01-01")
        p.loc[8, "t"] = pd.Timestamp("2020-02-29 01:00")
        df = md.DataFrame(p, chunk_rows=7)
        offs = {"me": pd.offsets.MonthEnd(1), "me2": pd.offsets.MonthEnd(-2),
                "me0": pd.offsets.MonthEnd(0), "mb": pd.offsets.MonthBegin(1),
                "mb0": pd.offsets.MonthBegin(0), "ye": pd.offsets.YearEnd(),
                "yb": pd.offsets.YearBegin(-1), "months": pd.DateOffset(months=-13),
                "mixed": pd.DateOffset(years=1, months=2, days=3, hours=4),
                "day": pd.offsets.Day(2), "week": pd.offsets.Week(),
                "bday": pd.offsets.BDay(3), "bday0": pd.offsets.BDay(0),
                "bday_neg": pd.offsets.BusinessDay(-6),
                "bday_offset": pd.offsets.BDay(1, offset=pd.Timedelta(hours=2)),
                "week_mon": pd.offsets.Week(2, weekday=0), "week_sun0": pd.offsets.Week(0, weekday=6),
                "week_back": pd.offsets.Week(-1, weekday=3)}
        self.same_each({k + sgn: (lambda d, o=o, sgn=sgn: d.t + o if sgn == "+" else d.t - o)
                        for k, o in offs.items() for sgn in "+-"}, p, df)
        self.same_each([lambda d: pd.offsets.MonthEnd() + d.t], p, df)
        with self.assertRaisesRegex(NotImplementedError, "CustomBusinessDay.*is not supported"):
            df.t + pd.offsets.CustomBusinessDay(2)



class TestErrors(Base):
    def test_graph_error(self):
        with self.assertRaises(marsc.GraphError) as cm:
            mt.inner(mt.ones((3, 4)), mt.ones((5, 3))).execute()
        self.assertIn("not aligned", str(cm.exception))
        self.assertIn("(inner)", str(cm.exception))
        self.assertIn("nodes", cm.exception.document)
        with self.assertRaises(marsc.GraphError):
            mt.ones((2, 2)).reshape(3, 3).execute()
        with self.assertRaises(marsc.GraphError):
            md.read_csv("never-uploaded.csv").sum().execute()

    def test_task_error(self):
        t = mt.full(6, 2) ** mt.arange(-3, 3)  # integers to negative powers fail while running
        with self.assertRaises(marsc.TaskError) as cm:
            t.execute()
        self.assertEqual(cm.exception.status, "failed")
        self.assertIn("power", str(cm.exception))

    def test_connection_errors(self):
        with self.assertRaises(marsc.ConnectionError) as cm:
            marsc.new_session("http://127.0.0.1:%d" % free_port())
        self.assertIn("MARS_URL", str(cm.exception))
        self.assertIsInstance(cm.exception, ConnectionError)  # the builtin's subclass too
        # a gateway with a token refuses a session without it, or with a wrong one
        tf = os.path.join(C.logdir, "pyclient-token")
        with open(tf, "w") as f:
            f.write("s3cret-token\n")
        gp = free_port()
        gw = C.start("gateway-token", "mars-gateway",
                     ["-H", "127.0.0.1", "-p", gp, "--pg-dsn", C.pg.dsn(), "--redis-url",
                      C.redis.url(), "--token-file", tf])
        try:
            gw.wait_health(gp)
            for tok in (None, "wrong"):
                with self.assertRaises(marsc.ConnectionError) as cm:
                    marsc.new_session("http://127.0.0.1:%d" % gp, token=tok)
                self.assertIn("MARS_TOKEN", str(cm.exception))
            s = marsc.new_session("http://127.0.0.1:%d" % gp, token="s3cret-token")
            self.close(mt.arange(5).sum().execute(session=s).fetch(session=s), np.int64(10))
            s.close()
        finally:
            gw.stop()


class TestSessions(Base):
    def test_default_env_and_close(self):
        old = {k: os.environ.get(k) for k in ("MARS_URL", "MARS_TOKEN")}
        os.environ["MARS_URL"] = URL
        os.environ.pop("MARS_TOKEN", None)
        try:
            with marsc.new_session() as s:
                self.assertIs(marsc.get_default_session(), s)  # the newest is the default
                self.assertEqual(s.url, URL)
                a = mt.ones(4).sum().execute()
                self.assertIs(a._session, None)
                self.assertIn(a.key, s._held)
                sid = s.session_id
            self.assertEqual(get(WEB, "/api/v1/sessions/%s" % sid).status, 404)  # deleted
            self.assertIsNot(marsc.get_default_session(), s)
            with self.assertRaises(marsc.MarsError):
                s.upload(__file__)
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


# ---- 50 random expression trees --------------------------------------------

def random_tree(rng, leaves, depth):
    """(marsc expression, numpy expression): shapes broadcastable to (6, 8),
    int64 or float64."""
    if depth == 0 or rng.random() < 0.2:
        return leaves[rng.randrange(len(leaves))]
    k = rng.randrange(21)
    a = random_tree(rng, leaves, depth - 1)
    if k >= 15:  # numpy's sorting and statistics functions (marsc/tensor/_numpyfuncs.py)
        ax = rng.choice([0, -1]) if a[1].ndim == 2 else -1
        if k == 15:
            return mt.sort(a[0], axis=ax), np.sort(a[1], axis=ax)
        if k == 16:  # a median along an axis, kept, broadcast back
            return (a[0] - mt.median(a[0], axis=ax, keepdims=True),
                    a[1] - np.median(a[1], axis=ax, keepdims=True))
        if k == 17:
            return (mt.percentile(a[0], 30, axis=ax, keepdims=True) + a[0],
                    np.percentile(a[1], 30, axis=ax, keepdims=True) + a[1])
        if k == 18 and a[1].ndim == 2:
            kk = rng.choice([-1, 0, 2])
            return mt.tril(a[0], kk) + 0.5, np.tril(a[1], kk) + 0.5
        if k == 19 and a[1].ndim == 2:  # (round would flip on values a rounding apart)
            return mt.triu(a[0], -1) - a[0], np.triu(a[1], -1) - a[1]
        return (mt.average(a[0], axis=ax, keepdims=True) * a[0],
                np.average(a[1], axis=ax, keepdims=True) * a[1])
    if k < 5:
        b = random_tree(rng, leaves, depth - 1)
        if k == 0:
            return a[0] + b[0], a[1] + b[1]
        if k == 1:
            return a[0] - b[0], a[1] - b[1]
        if k == 2:
            return a[0] * b[0], a[1] * b[1]
        if k == 3:
            return mt.maximum(a[0], b[0]), np.maximum(a[1], b[1])
        return mt.where(a[0] > b[0], a[0], b[0] * 0.5), np.where(a[1] > b[1], a[1], b[1] * 0.5)
    if k == 5:
        c = rng.choice([0.5, 2, -1.25, 3, -2])
        return a[0] * c + 1, a[1] * c + 1
    if k == 6:
        return mt.tanh(a[0]), np.tanh(a[1])
    if k == 7:
        return mt.sqrt(abs(a[0]) + 1), np.sqrt(abs(a[1]) + 1)
    if k == 8:  # a matrix product of the (6, 8) broadcast, back to (6, 8)
        z, zn = leaves[-1]
        m, mn = a[0] + z, a[1] + zn
        return (m @ m.T) @ m / 64, (mn @ mn.T) @ mn / 64
    if k == 9:  # a reduction kept as an axis, broadcast back
        ax = rng.choice([0, 1]) if a[1].ndim == 2 else 0
        return a[0] - a[0].mean(axis=ax, keepdims=True), a[1] - a[1].mean(axis=ax, keepdims=True)
    if k == 10:  # reversed along the first axis
        return a[0][::-1], a[1][::-1]
    if k == 11:  # a boolean turned into integers (a threshold no exact value
        # sits on: x - median(x) is 0 up to rounding, and 0 would flip)
        return (a[0] > 0.3719).astype("int64") * 3 - a[0], \
            (a[1] > 0.3719).astype(np.int64) * 3 - a[1]
    if k == 12:
        return (a[0].T * 1).T, (a[1].T * 1).T
    if k == 13:  # slice and pad back by broadcasting against a leaf
        if a[1].ndim == 2 and a[1].shape[1] == 8:
            return a[0][:, 2:3] + a[0][:1], a[1][:, 2:3] + a[1][:1]
        return -a[0], -a[1]
    return mt.clip(a[0], -2, 2) / (abs(a[0]).max() + 1), np.clip(a[1], -2, 2) / (abs(a[1]).max() + 1)


@contextlib.contextmanager
def uploaded_csv(name, frame, keep=False, **read_kw):
    """frame written as CSV `name`, uploaded to the session; yields pandas'
    read of it (read_csv's keywords read_kw), with keep the pair (read,
    the file's path)."""
    d = tempfile.mkdtemp()
    try:
        path = os.path.join(d, name)
        frame.to_csv(path, index=False)
        SESS.upload(path)
        yield (pd.read_csv(path, **read_kw), path) if keep else pd.read_csv(path, **read_kw)
    finally:
        shutil.rmtree(d)


class TestRandomTrees(Base):
    def test_fifty_trees(self):
        rng = random.Random(int(os.environ.get("MARS_TREE_SEED", "20261123")))
        arrays = [RNG.standard_normal((6, 8)) for _ in range(3)] + [
            RNG.integers(-5, 6, (6, 8)), RNG.standard_normal(8), RNG.standard_normal((6, 1)),
            RNG.integers(-3, 4, (1, 8)), np.zeros((6, 8))]
        leaves = [(mt.tensor(x, chunk_size=rng.choice([2, 3, 4, 8])), x) for x in arrays]
        trees = [random_tree(rng, leaves, 4) for _ in range(50)]
        kinds = {(t[1].shape, t[1].dtype.kind) for t in trees}
        self.assertGreaterEqual(len(kinds), 3, kinds)  # shapes and dtypes vary
        for start in range(0, 50, 10):  # five tasks of ten trees
            part = trees[start:start + 10]
            marsc.execute(*[t[0] for t in part])
            for i, (t, want) in enumerate(part):
                got = t.fetch()
                name = "tree %d" % (start + i)
                self.assertEqual(t.shape, want.shape, name)
                self.assertEqual(t.dtype, want.dtype, name)
                self.assertEqual(np.asarray(got).dtype, want.dtype, name)
                np.testing.assert_allclose(got, want, rtol=1e-9,
                                           atol=1e-12 * max(1.0, float(np.abs(want).max())),
                                           err_msg=name)


class TestExamples(Base):
    def test_examples_run(self):
        """examples/python/*.py, each in its own process against the cluster."""
        d = os.path.join(ROOT, "examples", "python")
        names = sorted(f for f in os.listdir(d) if f.endswith(".py") and not f.startswith("_"))
        self.assertGreaterEqual(len(names), 8, names)
        env = dict(os.environ, MARS_URL=URL, KEEP_SESSION="0")
        env.pop("MARS_TOKEN", None)
        for n in names:
            p = subprocess.run([sys.executable, os.path.join(d, n)], capture_output=True,
                               env=env, timeout=300)
            out = p.stdout.decode()
            self.assertEqual(p.returncode, 0, "%s: %s %s" % (n, out[-1000:], p.stderr.decode()[-2000:]))
            self.assertIn("%s: succeeded" % n[:-3], out, n)
            self.assertIn("deleted session", out, n)


class TestPackaging(unittest.TestCase):
    def test_pip_install_offline(self):
        """`pip install ./clients/python` with no index (as offline), with
        pip's build isolation, into a virtual environment that sees Debian's
        numpy and pandas: the in-tree backend needs nothing from an index."""
        work = tempfile.mkdtemp()
        try:
            # a copy of the source: a build must leave nothing in the repository
            src = os.path.join(work, "python")
            shutil.copytree(os.path.join(ROOT, "clients", "python"), src,
                            ignore=shutil.ignore_patterns("__pycache__"))
            venv = os.path.join(work, "venv")
            # no pip of its own: Debian's (python3-pip) is seen through the system site
            p = subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages",
                                "--without-pip", venv], capture_output=True, timeout=120)
            self.assertEqual(p.returncode, 0, "python3 -m venv (Debian's python3-venv, "
                             "scripts/setup.sh test): %s" % p.stderr.decode()[-1000:])
            env = dict(os.environ, PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
            env.pop("PYTHONPATH", None)
            p = subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install",
                                "--no-index", src], capture_output=True, timeout=300, env=env)
            self.assertEqual(p.returncode, 0, p.stdout.decode()[-2000:] + p.stderr.decode()[-2000:])
            q = subprocess.run([os.path.join(venv, "bin", "python"), "-c",
                                "import marsc, marsc.tensor as mt, marsc.dataframe as md; "
                                "print(marsc.__file__)"], capture_output=True, env=env,
                               cwd=work, timeout=60)
            self.assertEqual(q.returncode, 0, q.stderr.decode())
            self.assertIn(os.path.join(venv, "lib"), q.stdout.decode())
            # the installed client works against the cluster
            q = subprocess.run([os.path.join(venv, "bin", "python"), "-c",
                                "import marsc, marsc.tensor as mt; marsc.new_session(%r); "
                                "print(mt.arange(5).sum().fetch())" % URL], capture_output=True,
                               env=env, cwd=work, timeout=60)
            self.assertEqual((q.returncode, q.stdout.decode().strip()), (0, "10"), q.stderr.decode())
            infos = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages",
                                           "marsc-*.dist-info"))
            self.assertEqual(len(infos), 1, infos)
            with open(os.path.join(infos[0], "METADATA")) as f:
                reqs = [ln for ln in f.read().splitlines() if ln.startswith("Requires-Dist:")]
            # numpy, and pandas for DataFrames: Debian's python3-numpy and python3-pandas
            self.assertEqual(reqs, ["Requires-Dist: numpy",
                                    'Requires-Dist: pandas; extra == "dataframe"'])
            self.assertTrue(os.path.exists(os.path.join(infos[0], "RECORD")))  # uninstallable
            self.assertEqual(sorted(os.listdir(src)), ["README.md", "_build", "marsc",
                                                       "pyproject.toml"])
        finally:
            shutil.rmtree(work)


def main():
    loader = unittest.TestLoader()
    names = sys.argv[1:]
    suite = loader.loadTestsFromNames(names, sys.modules[__name__]) if names else \
        loader.loadTestsFromModule(sys.modules[__name__])
    res = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    failed = len(res.failures) + len(res.errors) + len(res.unexpectedSuccesses)
    skipped = len(res.skipped)
    passed = res.testsRun - failed - skipped
    print("RESULT passed=%d failed=%d" % (passed, failed + skipped), flush=True)
    return 0 if failed + skipped == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
