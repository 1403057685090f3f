#!/usr/bin/python3
"""Exports arrive compressed: a day of orders as orders.csv.gz, the
month's returns as a one-file returns.zip, last year's archive as a
.tar.xz. md.read_csv reads each as pandas does (the method from the
extension, or compression= naming it), the cluster decompressing a file
once per host and then reading it in chunks; a merge and a groupby over
them, every result compared with pandas'."""
import gzip
import io
import os
import tarfile
import tempfile
import zipfile

import numpy as np
import pandas as pd

import _setup
import marsc.dataframe as md

sess = _setup.session("compressed-csv")
rng = np.random.default_rng(11)
d = tempfile.mkdtemp()
n = 20000
orders = pd.DataFrame({"order": np.arange(n), "shop": np.array(["Lyon", "Porto", "Graz"])[rng.integers(0, 3, n)],
                       "amount": rng.gamma(2.0, 30.0, n).round(2)})
orders.to_csv(os.path.join(d, "orders.csv.gz"), index=False)  # pandas infers gzip from the name
returns = orders.sample(900, random_state=3)[["order"]].assign(reason="damaged")
with zipfile.ZipFile(os.path.join(d, "returns.zip"), "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("returns-2026-11.csv", returns.to_csv(index=False))
archive = orders.assign(amount=orders.amount * 0.9)
with tarfile.open(os.path.join(d, "2025.tar.xz"), "w:xz") as t:
    blob = archive.to_csv(index=False).encode()
    info = tarfile.TarInfo("export/orders-2025.csv")
    info.size = len(blob)
    t.addfile(info, io.BytesIO(blob))
with open(os.path.join(d, "orders.bin"), "wb") as f:  # a name that says nothing
    f.write(gzip.compress(orders.to_csv(index=False).encode()))
for name in ("orders.csv.gz", "returns.zip", "2025.tar.xz", "orders.bin"):
    sess.upload(os.path.join(d, name))  # PUT /api/v1/files/<name>, as they are

got = md.read_csv("orders.csv.gz", chunk_bytes=100000)
want = pd.read_csv(os.path.join(d, "orders.csv.gz"))
pd.testing.assert_frame_equal(got.fetch(), want)
print(got.head().fetch())

ret = md.read_csv("returns.zip")
kept = got.merge(ret, on="order", how="left")
kept = kept[kept.reason.isna()]
want_kept = want.merge(pd.read_csv(os.path.join(d, "returns.zip")), on="order", how="left")
want_kept = want_kept[want_kept.reason.isna()]
by_shop = kept.groupby("shop").amount.sum()
print(by_shop.fetch())
pd.testing.assert_series_equal(by_shop.fetch(), want_kept.groupby("shop").amount.sum(), check_exact=False,
                               rtol=1e-12)

last = md.read_csv("2025.tar.xz").groupby("shop").amount.mean()
pd.testing.assert_series_equal(last.fetch(), pd.read_csv(os.path.join(d, "2025.tar.xz")).groupby("shop").amount.mean(),
                               check_exact=False, rtol=1e-12)
pd.testing.assert_frame_equal(md.read_csv("orders.bin", compression="gzip").fetch(), want)
print("compressed_csv: succeeded")
