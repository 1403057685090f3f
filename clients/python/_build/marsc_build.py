"""An in-tree PEP 517 build backend for marsc, on the standard library only.

With it `pip install ./clients/python` needs nothing from an index: build
isolation installs no build requirements (pyproject.toml lists none), so it
works offline with Debian's python3-pip, in a virtual environment or not. It
builds a pure-Python wheel (py3-none-any) of the `marsc` package, an sdist,
and an editable wheel (a .pth file naming this folder) for `pip install -e`.
The metadata comes from pyproject.toml's [project] table.
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "marsc"


def _project():
    path = os.path.join(HERE, "pyproject.toml")
    try:
        import tomllib
        with open(path, "rb") as f:
            return tomllib.load(f)["project"]
    except ImportError:  # Python < 3.11: the few keys this file uses, as written there
        with open(path, encoding="utf-8") as f:
            text = f.read()
        proj = text.split("[project]", 1)[1].split("\n[", 1)[0]

        def s(key):
            m = re.search(r'^%s\s*=\s*"([^"]*)"' % key, proj, re.M)
            return m.group(1) if m else None

        def lst(key, body):
            m = re.search(r'^%s\s*=\s*\[([^\]]*)\]' % key, body, re.M)
            return re.findall(r'"([^"]*)"', m.group(1)) if m else []
        extras = text.split("[project.optional-dependencies]", 1)
        opt = {}
        if len(extras) == 2:
            for m in re.finditer(r'^(\w+)\s*=\s*\[([^\]]*)\]', extras[1].split("\n[", 1)[0], re.M):
                opt[m.group(1)] = re.findall(r'"([^"]*)"', m.group(2))
        return {"name": s("name"), "version": s("version"), "description": s("description"),
                "requires-python": s("requires-python"), "readme": s("readme"),
                "dependencies": lst("dependencies", proj), "optional-dependencies": opt}


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", "Name: %s" % p["name"], "Version: %s" % p["version"]]
    if p.get("description"):
        lines.append("Summary: %s" % p["description"])
    if p.get("requires-python"):
        lines.append("Requires-Python: %s" % p["requires-python"])
    for d in p.get("dependencies", []):
        lines.append("Requires-Dist: %s" % d)
    for extra, deps in sorted(p.get("optional-dependencies", {}).items()):
        lines.append("Provides-Extra: %s" % extra)
        for d in deps:
            lines.append('Requires-Dist: %s; extra == "%s"' % (d, extra))
    body = ""
    if p.get("readme"):
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(HERE, p["readme"]), encoding="utf-8") as f:
            body = "\n" + f.read()
    return p, "\n".join(lines) + "\n" + body


def _sources():
    """(path in the archive, path on disk) of the package's .py files."""
    out = []
    for root, dirs, files in os.walk(os.path.join(HERE, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                full = os.path.join(root, f)
                out.append((os.path.relpath(full, HERE).replace(os.sep, "/"), full))
    return out


class _Wheel:
    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.record = []

    def add(self, name, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append("%s,sha256=%s,%d" % (name, digest, len(data)))

    def close(self, dist_info):
        self.record.append("%s/RECORD,," % dist_info)
        info = zipfile.ZipInfo("%s/RECORD" % dist_info, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        self.zip.writestr(info, "\n".join(self.record) + "\n")
        self.zip.close()


def _wheel(wheel_directory, files):
    p, meta = _metadata()
    name, version = p["name"].replace("-", "_"), p["version"]
    dist_info = "%s-%s.dist-info" % (name, version)
    filename = "%s-%s-py3-none-any.whl" % (name, version)
    w = _Wheel(os.path.join(wheel_directory, filename))
    for arc, data in files:
        w.add(arc, data)
    w.add("%s/METADATA" % dist_info, meta)
    w.add("%s/WHEEL" % dist_info, "Wheel-Version: 1.0\nGenerator: marsc_build\n"
          "Root-Is-Purelib: true\nTag: py3-none-any\n")
    w.add("%s/top_level.txt" % dist_info, PACKAGE + "\n")
    w.close(dist_info)
    return filename


# ---- the PEP 517 and PEP 660 hooks ------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = []
    for arc, full in _sources():
        with open(full, "rb") as f:
            files.append((arc, f.read()))
    return _wheel(wheel_directory, files)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, [("__editable__.%s.pth" % PACKAGE, HERE + "\n")])


def build_sdist(sdist_directory, config_settings=None):
    p, meta = _metadata()
    base = "%s-%s" % (p["name"], p["version"])
    filename = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as t:
        def add(arc, data):
            info = tarfile.TarInfo("%s/%s" % (base, arc))
            info.size = len(data)
            info.mtime = int(time.time())
            info.mode = 0o644
            t.addfile(info, io.BytesIO(data))
        for arc, full in _sources() + [("pyproject.toml", os.path.join(HERE, "pyproject.toml")),
                                       ("README.md", os.path.join(HERE, "README.md")),
                                       ("_build/marsc_build.py", os.path.abspath(__file__))]:
            with open(full, "rb") as f:
                add(arc, f.read())
        add("PKG-INFO", meta.encode("utf-8"))
    return filename
