"""Graph nodes, sessions, execution and futures.

Every tensor, DataFrame or Series of the client is a handle on a node of a
graph document (docs/graph-format.md). Nothing runs until `execute` (or
`fetch`, or eager mode): then the smallest document that computes the
targets is built, stopping at tensors the session already holds (those are
named by key), and submitted as one task.
"""
import io
import itertools
import json
import os
import random
import sys
import threading
import weakref
import time

import numpy as np

from ._http import Http
from .errors import ConnectionError, GraphError, MarsError, RequestError, TaskError

DEFAULT_URL = "http://127.0.0.1:7005"


class Options:
    """marsc.options: eager_mode (run every op as soon as it is made),
    show_progress (the default of execute's show_progress), poll_seconds."""

    def __init__(self):
        self.eager_mode = False
        self.show_progress = False
        self.poll_seconds = 20.0


options = Options()

# Keys are unique across processes (a random prefix) and in this process.
_prefix = "%08x" % random.SystemRandom().getrandbits(32)
_counter = itertools.count(1)
_counter_lock = threading.Lock()


def new_key(hint="t"):
    with _counter_lock:
        n = next(_counter)
    return "%s%s_%d" % (hint, _prefix, n)


def _json_scalar(v):
    """A Python, numpy or string scalar as a document input."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if f != f:
            return {"value": None}  # JSON has no NaN: the engine reads null as NaN
        if f in (float("inf"), float("-inf")):
            # nor infinity: a literal the engine reads as the number
            return {"value": "inf" if f > 0 else "-inf"}
        return f
    if isinstance(v, str) or v is None:
        return {"value": v}
    raise TypeError("%r is no scalar operand" % (v,))


def jsonable(v):
    """A parameter value as JSON: tuples to lists, numpy scalars and dtypes
    to their Python forms."""
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
        return np.dtype(v).name
    if v is float:
        return "float64"
    if v is int:
        return "int64"
    if v is bool:
        return "bool"
    if isinstance(v, (np.bool_,)):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    return v


class Node:
    """One node of a document. kind: 'tensor', 'dataframe' or 'series'.
    inputs: Node, OutRef or scalars. data: a local numpy array to upload as
    a session tensor (op None). outputs: keys of a multi-output op. file:
    (name, bytes) the op reads, uploaded as that file before the document
    that names the node is sent (a local pandas frame's CSV)."""

    __slots__ = ("key", "op", "inputs", "params", "kind", "data", "chunk_size", "outputs", "unsized",
                 "file", "__weakref__")

    def __init__(self, op, inputs=(), params=None, kind="tensor", data=None, chunk_size=None,
                 n_outputs=0, key=None):
        self.key = key or new_key("t" if kind == "tensor" else "d")
        self.op = op
        self.inputs = list(inputs)
        self.params = dict(params or {})
        self.kind = kind
        self.data = data
        self.chunk_size = chunk_size
        self.outputs = [self.key + "_o%d" % i for i in range(n_outputs)] if n_outputs else None
        self.unsized = set()  # keys of results whose shape the client cannot tell
        self.file = None

    @property
    def node(self):
        return self

    def document_entry(self):
        d = {"key": self.key, "op": self.op}
        ins = []
        for i in self.inputs:
            if isinstance(i, (Node, OutRef)):
                ins.append(i.key)
            else:
                ins.append(_json_scalar(i))
        if ins:
            d["inputs"] = ins
        for k, v in self.params.items():
            d[k] = jsonable(v)
        if self.outputs:
            d["outputs"] = list(self.outputs)
        return d


class OutRef:
    """Result i of a multi-output node."""

    __slots__ = ("node", "index", "kind")

    def __init__(self, node, index):
        self.node = node
        self.index = index
        self.kind = "tensor"

    @property
    def key(self):
        return self.node.outputs[self.index]


def _default_session_or_new():
    s = Session.default()
    if s is None:
        s = new_session()
    return s


class Entity:
    """Base of Tensor, DataFrame and Series: a handle on a node."""

    _ref = None  # Node or OutRef
    _session = None

    def __init__(self, ref, session=None):
        self._ref = ref
        self._session = session

    @property
    def key(self):
        return self._ref.key

    @property
    def op(self):
        return self._ref.node.op

    def _sess(self, session=None):
        return session or self._session or _default_session_or_new()

    def execute(self, session=None, wait=True, show_progress=None, timeout=None):
        """Runs what computes this (one task); returns self, or a Future when
        wait is False."""
        return execute(self, session=session, wait=wait, show_progress=show_progress,
                       timeout=timeout)

    def fetch(self, session=None):
        s = self._sess(session)
        if not s._holds(self):
            execute(self, session=s)
        return s._fetch(self)

    def document(self, session=None):
        """The document execute would submit (without uploading anything)."""
        s = session or self._session or Session.default()
        doc, _ = build_document([self], s)
        return doc


def _after_create(ent):
    """Called on every new entity: eager mode runs it at once."""
    if options.eager_mode and ent._ref.node.op is not None:
        execute(ent)
    return ent


# ---------------------------------------------------------------------------
# documents


def build_document(targets, session):
    """(document, uploads): the nodes that compute targets, in topological
    order, stopping at tensors the session holds; uploads are the local
    arrays the document names that the session does not hold yet, and the
    nodes whose file (Node.file) the document needs."""
    held = session._held if session is not None else set()
    nodes, uploads, seen = [], [], set()
    # iterative post-order walk: deep graphs (eager chains) need no recursion
    for t in targets:
        stack = [(t._ref.node, False)]
        while stack:
            n, expanded = stack.pop()
            if n.key in seen:
                continue
            if not expanded:
                if n.data is not None:  # a local array
                    seen.add(n.key)
                    if n.key not in held:
                        uploads.append(n)
                    continue
                if n.kind == "tensor" and (n.key in held or (n.outputs and all(
                        k in held for k in n.outputs))):
                    seen.add(n.key)
                    continue
                stack.append((n, True))
                for i in reversed(n.inputs):
                    if isinstance(i, (Node, OutRef)):
                        if isinstance(i, OutRef) and i.key in held:
                            continue
                        stack.append((i.node, False))
            else:
                seen.add(n.key)
                nodes.append(n.document_entry())
                if n.file is not None:
                    uploads.append(n)
    fetch = []
    for t in targets:  # held tensors and local arrays are the session's already
        if t._ref.node.data is None and t.key not in fetch and not (
                t._ref.kind == "tensor" and t.key in held):
            fetch.append(t.key)
    return {"version": 1, "nodes": nodes, "fetch": fetch}, uploads


def scalar_inputs(targets):
    """(node, j, tensor ref): tensors (a Series' sum, a DataFrame's mean
    ...) that element-wise ops of Series and DataFrames take as inputs. The
    engine takes Series or DataFrames of one DataFrame and scalars there, so
    such tensors run first as a task of their own and their values (0-d)
    become the ops' literals: s / s.sum() is two tasks, the second computing
    s again (docs/python-client.md)."""
    found, seen = [], set()
    stack = [t._ref.node for t in targets]
    while stack:
        n = stack.pop()
        if n.key in seen or n.data is not None:
            continue
        seen.add(n.key)
        frame_ew = n.kind in ("dataframe", "series") and n.op and \
            not n.op.startswith("dataframe.")
        for j, i in enumerate(n.inputs):
            if not isinstance(i, (Node, OutRef)):
                continue
            if frame_ew and i.kind == "tensor":
                found.append((n, j, i))
            stack.append(i.node)
    return found


_ROW_OPS = {"dataframe." + x for x in (
    "filter", "sort_values", "sort_index", "head", "tail", "iloc", "loc", "dropna", "sample",
    "drop_duplicates", "nlargest", "nsmallest", "set_index", "reset_index", "getitem", "rename",
    "fillna", "shift", "query", "concat", "cummin", "cummax", "drop", "groupby_head",
    "groupby_tail")}
# 0-d tensors the client knows hold a datetime's or timedelta's
# nanoseconds: node -> "M" or "m" (marsc.dataframe._timescalars marks
# reductions and their sums and differences)
TIME_MARKS = weakref.WeakKeyDictionary()


def _time_kind(node, col=None, memo=None):
    """_time_kind_of, each (node, column) once: a deep expression reusing
    its parts costs its size, not its paths"""
    memo = {} if memo is None else memo
    key = (id(node), repr(col))
    if key not in memo:
        memo[key] = None  # (a cycle, which a graph has not, reads as none)
        memo[key] = _time_kind_of(node, col, memo)
    return memo[key]


def _time_kind_of(node, col, memo):
    """"M" when node's Series (or column col of its frame) holds datetimes,
    "m" timedeltas, as far as the client can tell from the ops that made
    it (read_csv's parse_dates, to_datetime, differences of datetimes, and
    the ops that move values); else None."""
    for _ in range(200):
        op = node.op or ""
        if op in ("dataframe.read_csv", "dataframe.read_json"):
            pd_ = node.params.get("parse_dates") or []
            return "M" if col is not None and col in pd_ else None
        if op == "dataframe.to_datetime" or op in ("dataframe.dt.floor", "dataframe.dt.ceil",
                                                   "dataframe.dt.round",
                                                   "dataframe.dt.normalize"):
            return "M"
        if op == "dataframe.to_timedelta":
            return "m"
        if op in ("subtract", "add") and len(node.inputs) == 2:
            # a string literal beside a time Series: a date where it reads as
            # one, else a timedelta ("1 days"), as the engine reads it
            ks = [_time_kind(i.node, None, memo) if hasattr(i, "node") else
                  ("M" if _looks_date(i) else "m") if isinstance(i, str) else None
                  for i in node.inputs]
            return _sum_kind(op, *ks)
        if node in TIME_MARKS:
            return TIME_MARKS[node]
        if op == "dataframe.diff" and node.inputs and hasattr(node.inputs[0], "node"):
            return "m" if _time_kind(node.inputs[0].node, None, memo) else None
        if op in ("negative", "abs") and node.inputs and hasattr(node.inputs[0], "node"):
            return "m" if _time_kind(node.inputs[0].node, None, memo) == "m" else None
        if op == "where" and len(node.inputs) == 3:
            return next((k for k in (_time_kind(i.node, None, memo) for i in node.inputs[1:]
                                     if hasattr(i, "node")) if k), None)
        if op == "dataframe.assign" and col is not None and \
                col not in node.params.get("names", []):
            node = node.inputs[0].node
            continue
        if op == "dataframe.rename" and col is not None and \
                isinstance(node.params.get("columns"), dict):
            back = {new: old for old, new in node.params["columns"].items()}
            node, col = node.inputs[0].node, back.get(col, col)
            continue
        if op in ("dataframe.merge", "dataframe.join") and col is not None:
            return next((k for k in (_time_kind(i.node, col, memo) for i in node.inputs
                                     if hasattr(i, "node")) if k), None)
        if op == "dataframe.getitem" and isinstance(node.params.get("columns"), (str, int)):
            node, col = node.inputs[0].node, node.params["columns"]
            continue
        if op == "dataframe.concat" and node.params.get("axis") == 1 and col is not None:
            # (Series aligned on their labels: each renamed to its column)
            part = next((i.node for i in node.inputs if hasattr(i, "node") and
                         i.node.op == "dataframe.rename" and
                         "name" in i.node.params and i.node.params["name"] == col), None)
            if part is not None:
                node, col = part.inputs[0].node, None
                continue
            # (frames: each one's columns renamed to numbers)
            part = next((i.node for i in node.inputs if hasattr(i, "node") and
                         i.node.op == "dataframe.rename" and
                         col in dict(i.node.params.get("columns") or {}).values()), None)
            if part is None:
                return None
            node = part
            continue
        if op == "dataframe.assign" and col is not None and col in node.params.get("names", []):
            node, col = node.inputs[1 + node.params["names"].index(col)].node, None
            continue
        if op in _ROW_OPS and node.inputs and hasattr(node.inputs[0], "node"):
            node = node.inputs[0].node
            continue
        return None
    return None


def time_of(v, kind):
    """a fetched 0-d value of nanoseconds (int64, or float64 for a median
    or mean; NaN or int64's minimum for none) as numpy's datetime64 ("M")
    or timedelta64 ("m"), NaT for none"""
    v = np.asarray(v)[()]
    ns = np.iinfo(np.int64).min if v != v else int(v)
    return np.asarray(ns).astype("datetime64[ns]" if kind == "M" else "timedelta64[ns]")


def _sum_kind(op, a, b):
    """the kind of a + b or a - b ("add", "subtract") of kinds a and b
    ("M", "m" or None), as pandas types them; None: no time, or refused"""
    if op == "subtract" and a == "M" and b == "M":
        return "m"
    if (a, b) in (("M", "m"), ("m", "M")) and (op == "add" or a == "M"):
        return "M"
    if a == "m" and b == "m":
        return "m"
    return None


def _looks_date(s):
    return len(s) >= 10 and s[4] == "-" and s[:4].isdigit()


def _time_kind_of_reduction(node):
    """the time kind of the Series a reduction (min, max, sum, median ...)
    of nanoseconds came from: min, max, median, first, last keep it; sum
    and mean of timedeltas too; count never"""
    op = node.op or ""
    if node in TIME_MARKS:
        return TIME_MARKS[node]
    if not op.startswith("dataframe.") or not node.inputs or not hasattr(node.inputs[0], "node"):
        return None
    red = op[len("dataframe."):]
    k = _time_kind(node.inputs[0].node)
    if red in ("min", "max", "median", "first", "last"):
        return k
    if red in ("sum", "mean") and k == "m":
        return "m"
    return None


def unsized_inputs(targets, held):
    """The results in what computes targets whose shape the client cannot
    tell (a boolean mask, nonzero, unique, ...), that the session does not
    hold yet and that another node takes as an input. The server keeps such
    a result "held" (its length is data) and refuses it as an input of the
    same document, so these run first as a task of their own; the later
    document names them as session tensors (docs/python-client.md)."""
    found, seen = [], set()
    stack = [t._ref.node for t in targets]
    while stack:
        n = stack.pop()
        if n.key in seen or n.data is not None:
            continue
        seen.add(n.key)
        if n.kind == "tensor" and (n.key in held or (n.outputs and all(
                k in held for k in n.outputs))):
            continue
        for i in n.inputs:
            if not isinstance(i, (Node, OutRef)) or i.key in held:
                continue
            if i.kind == "tensor" and i.key in i.node.unsized and i.node.data is None \
                    and all(f.key != i.key for f in found):
                found.append(i)
            stack.append(i.node)
    return found


def execute(*targets, session=None, wait=True, show_progress=None, timeout=None):
    """Runs several tensors, DataFrames or Series in one task. Returns the
    target (one) or the tuple of targets, or a Future when wait is False."""
    if len(targets) == 1 and isinstance(targets[0], (list, tuple)):
        targets = tuple(targets[0])
    if not targets:
        raise ValueError("execute: nothing to run")
    for t in targets:
        if not isinstance(t, Entity):
            raise TypeError("execute: %r is no marsc tensor, DataFrame or Series" % (t,))
    s = session or next((t._session for t in targets if t._session), None) \
        or _default_session_or_new()
    if show_progress is None:
        show_progress = options.show_progress
    fut = s._submit(targets)
    if not wait:
        return fut
    fut.result(timeout=timeout, show_progress=show_progress)
    return targets[0] if len(targets) == 1 else targets


class Future:
    """A submitted task: done(), progress(), result(timeout), cancel()."""

    def __init__(self, session, targets, task_id, seeds=None):
        self.session = session
        self.targets = targets
        self.task_id = task_id
        self.seeds = seeds or {}
        self._final = None  # the task's last fields once it ended
        if task_id is None:  # nothing to run: every target is held already
            self._final = {"status": "succeeded", "progress": 1.0}

    def _path(self):
        return "/api/v1/sessions/%s/tasks/%s" % (self.session.session_id, self.task_id)

    def status(self, wait=0):
        """The task's fields (GET .../tasks/TID), holding up to wait seconds."""
        if self._final is not None:
            return self._final
        wait = round(min(wait, 300.0), 3)  # the gateway takes 0 to 300 s, in plain decimals
        path = self._path() + ("?wait=%.3f" % wait if wait > 0 else "")
        t = self.session._http.json("GET", path, timeout=wait + 30).json()
        if t["status"] not in ("pending", "running"):
            self._final = t
            if t["status"] == "succeeded":
                self.session._mark_done(self.targets)
        return t

    def done(self):
        return self.status()["status"] not in ("pending", "running")

    def progress(self):
        return float(self.status().get("progress") or 0.0)

    def cancelled(self):
        return self.status()["status"] == "cancelled"

    def cancel(self):
        """Asks the cluster to cancel the task: True when it was still
        running (it ends cancelled), False when it had already ended."""
        if self._final is not None:
            return False
        r = self.session._http.request("DELETE", self._path())
        if r.status == 200:
            return True
        if r.status == 409:
            return False
        raise self.session._http.error(r, "cancelling task %s" % self.task_id)

    def result(self, timeout=None, show_progress=False):
        """Waits for the task: the target (or tuple of targets) once it
        succeeded; TaskError when it failed or was cancelled; TimeoutError
        when timeout seconds pass first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        bar = _Bar() if show_progress and sys.stderr.isatty() else None
        try:
            while True:
                left = options.poll_seconds if deadline is None else deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("task %s has not ended within %gs; call result() again "
                                       "to keep waiting, or cancel()" % (self.task_id, timeout))
                t = self.status(wait=min(left, 0.5 if bar else options.poll_seconds))
                if bar:
                    bar.draw(t)
                if t["status"] not in ("pending", "running"):
                    break
        finally:
            if bar:
                bar.end()
        st = t["status"]
        if st == "failed":
            raise TaskError("task %s failed: %s. The node named is the tensor whose .key it is: "
                            "fix that op or its inputs and execute again"
                            % (self.task_id, t.get("error") or "(no message)"), self.task_id, st)
        if st == "cancelled":
            raise TaskError("task %s was cancelled (Future.cancel() or DELETE on the task); "
                            "execute again to run it" % self.task_id, self.task_id, st)
        return self.targets[0] if len(self.targets) == 1 else tuple(self.targets)


class _Bar:
    """A one-line text progress bar on standard error."""

    def __init__(self, width=30):
        self.width = width
        self.drawn = False

    def draw(self, t):
        p = float(t.get("progress") or 0.0)
        fill = int(round(p * self.width))
        sys.stderr.write("\r[%s%s] %3d%% %s %s/%s chunks" % (
            "#" * fill, "." * (self.width - fill), int(p * 100), t["status"],
            t.get("chunks_done", "?"), t.get("chunks_total", "?")))
        sys.stderr.flush()
        self.drawn = True

    def end(self):
        if self.drawn:
            sys.stderr.write("\n")
            sys.stderr.flush()


# ---------------------------------------------------------------------------
# sessions

_sessions = []  # open sessions, newest last: the newest is the default
_sessions_lock = threading.Lock()


class Session:
    """A session of the cluster (POST /api/v1/sessions). The newest open one
    is the default; `with` closes it; close() deletes it and its data."""

    def __init__(self, url=None, token=None, name=None, timeout=60.0):
        url = url or os.environ.get("MARS_URL") or DEFAULT_URL
        if token is None:
            token = os.environ.get("MARS_TOKEN") or None
        self._http = Http(url, token, timeout)
        self.url = self._http.url
        body = {"name": name} if name else None
        r = self._http.json("POST", "/api/v1/sessions", body, expect=(201,))
        self.session_id = r.json()["session_id"]
        self._held = set()     # tensor keys the session holds (usable as inputs)
        self._files = set()    # the Node.file names uploaded
        self._frames = set()   # DataFrame and Series keys it can answer (not inputs)
        self._lock = threading.Lock()
        self.closed = False
        with _sessions_lock:
            _sessions.append(self)

    @staticmethod
    def default():
        with _sessions_lock:
            return _sessions[-1] if _sessions else None

    def as_default(self):
        with _sessions_lock:
            if self in _sessions:
                _sessions.remove(self)
            _sessions.append(self)
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return "<marsc.Session %s at %s%s>" % (self.session_id, self.url,
                                              " closed" if self.closed else "")

    def close(self):
        """Deletes the session on the server with all its data."""
        with _sessions_lock:
            if self in _sessions:
                _sessions.remove(self)
        if self.closed:
            return
        self.closed = True
        r = self._http.request("DELETE", "/api/v1/sessions/%s" % self.session_id)
        if r.status not in (204, 404):
            raise self._http.error(r, "deleting session %s" % self.session_id)

    def _check_open(self):
        if self.closed:
            raise MarsError("session %s is closed: create one with marsc.new_session()"
                            % self.session_id)

    # -- files and tensors --

    def upload(self, path, name=None):
        """Stores a local file on the cluster (PUT /api/v1/files/NAME) where
        md.read_csv(NAME) reads it; NAME defaults to the file's base name.
        Returns NAME."""
        self._check_open()
        name = name or os.path.basename(path)
        with open(path, "rb") as f:
            data = f.read()
        return self._upload_bytes(name, data, path)

    def _upload_bytes(self, name, data, path=None):
        r = self._http.request("PUT", "/api/v1/files/%s" % name, data,
                               {"Content-Type": "application/octet-stream"})
        if r.status != 201:
            raise self._http.error(r, "uploading %s as %r" % (path or "a local frame", name))
        return name

    def _upload_array(self, node):
        # streamed: the .npy header, then the array's own bytes (no copy)
        arr = np.require(node.data, requirements="C")
        hdr = io.BytesIO()
        np.lib.format.write_array_header_1_0(hdr, np.lib.format.header_data_from_array_1_0(arr))
        parts = [hdr.getvalue()]
        if arr.size:
            parts.append(memoryview(arr.reshape(-1).view(np.uint8)))
        q = "key=%s" % node.key
        if node.chunk_size is not None:
            cs = node.chunk_size
            q += "&chunk_size=" + (",".join(str(int(c)) for c in cs)
                                   if isinstance(cs, (list, tuple)) else str(int(cs)))
        r = self._http.request("POST", "/api/v1/sessions/%s/tensors?%s" % (self.session_id, q),
                               parts, {"Content-Type": "application/x-npy",
                                       "Content-Length": str(sum(len(p) for p in parts))},
                               timeout=max(self._http.timeout, 600))
        if r.status == 400:
            raise GraphError("uploading a local array (%s, %s) as tensor %s: %s"
                             % (node.data.shape, node.data.dtype, node.key, r.message()))
        if r.status != 201:
            raise self._http.error(r, "uploading tensor %s" % node.key)
        with self._lock:
            self._held.add(node.key)

    def tensor_info(self, key):
        """GET /api/v1/sessions/SID/tensors/KEY: shape, dtype, chunk sizes."""
        return self._http.json("GET", "/api/v1/sessions/%s/tensors/%s"
                               % (self.session_id, key)).json()

    # -- tasks --

    def _holds(self, ent):
        return ent.key in self._held or ent.key in self._frames

    def _submit(self, targets):
        self._check_open()
        first = unsized_inputs(targets, self._held)
        if first:  # their lengths are data: they run first (unsized_inputs)
            from .tensor import Tensor
            self._submit(tuple(Tensor(r, session=self) for r in first)).result()
        scal = scalar_inputs(targets)
        if scal:  # 0-d tensors beside Series: run first, then literals (scalar_inputs)
            from .tensor import Tensor
            refs = list({id(r): r for _, _, r in scal}.values())
            run = [r for r in refs if r.node.data is None]
            if run:
                self._submit(tuple(Tensor(r, session=self) for r in run)).result()
            values = {}
            for r in refs:
                v = r.node.data if r.node.data is not None else self.fetch_npy(r.key)
                if np.ndim(v) != 0:
                    raise GraphError("an element-wise op of Series or DataFrames takes a tensor "
                                     "only as a scalar (0-d); %s has shape %s"
                                     % (r.key, np.shape(v)))
                v = np.asarray(v)
                kind = _time_kind_of_reduction(r.node)
                if kind and v.dtype.kind in "if":  # the engine's nanoseconds of one
                    v = time_of(v, kind)
                if v.dtype.kind in "mM":  # a datetime's min, a timedelta's sum ...
                    from .tensor import _time_literal
                    if np.isnat(v):
                        raise GraphError("%s is NaT: as an operand every result would be "
                                         "missing" % r.key)
                    values[id(r)] = _time_literal(v[()])
                else:
                    values[id(r)] = v.item()
            for node, j, r in scal:
                node.inputs[j] = values[id(r)]
        doc, uploads = build_document(targets, self)
        for n in uploads:
            if n.data is not None:
                self._upload_array(n)
            elif n.file[0] not in self._files:  # named by its content: once is enough
                self._upload_bytes(n.file[0], n.file[1])
                self._files.add(n.file[0])
        if not doc["nodes"]:
            return Future(self, targets, None)
        r = self._http.request("POST", "/api/v1/sessions/%s/tasks" % self.session_id,
                               json.dumps(doc).encode(), {"Content-Type": "application/json"})
        if r.status == 400:
            raise _graph_error(r, doc)
        if r.status == 413:
            raise GraphError("the document is too large for the cluster (%s): execute "
                             "intermediate results first so that later tasks name them"
                             % r.message())
        if r.status == 404:
            raise MarsError("session %s no longer exists on the cluster: create a new one "
                            "with marsc.new_session()" % self.session_id)
        if r.status != 202:
            raise self._http.error(r, "submitting a task")
        body = r.json()
        return Future(self, targets, body["task_id"], body.get("seeds"))

    def _mark_done(self, targets):
        with self._lock:
            for t in targets:
                if t._ref.kind == "tensor":
                    self._held.add(t.key)
                else:
                    self._frames.add(t.key)

    def _data_path(self, key):
        return "/api/v1/sessions/%s/tensors/%s/data" % (self.session_id, key)

    def _fetch(self, ent):
        if ent._ref.kind == "tensor":
            return self.fetch_npy(ent.key)
        from .dataframe import frame_from_json
        r = self._http.request("GET", self._data_path(ent.key) + "?format=json", timeout=600)
        if r.status != 200:
            raise self._http.error(r, "fetching %s" % ent.key)
        doc = r.json()
        if isinstance(doc, dict) and ("columns" in doc or "index" in doc):
            return frame_from_json(doc, getattr(ent, "_index_names", None))
        return _from_json_tensor(doc)

    def fetch_npy(self, key):
        """Streams GET .../tensors/KEY/data?format=npy into a numpy array."""
        c, r = self._http.open("GET", self._data_path(key) + "?format=npy",
                               headers={"Accept": "application/x-npy"}, timeout=600)
        try:
            if r.status != 200:
                from ._http import Response
                resp = Response(r.status, r.read(), r.headers)
                if r.status == 404:
                    raise MarsError("session %s does not hold %s (%s): execute it first"
                                    % (self.session_id, key, resp.message()))
                raise self._http.error(resp, "fetching %s" % key)
            if r.headers.get("Content-Type", "").startswith("application/json"):
                # a 0-d DataFrame reduction or a to_tensor result may come as JSON
                return _from_json_tensor(json.loads(r.read()))
            version = np.lib.format.read_magic(r)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(r)
            else:
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(r)
            out = np.empty(shape, dtype=dtype, order="F" if fortran else "C")
            view = memoryview(out.reshape(-1, order="A").view(np.uint8)) if out.size else None
            got = 0
            while view is not None and got < len(view):
                n = r.readinto(view[got:])
                if not n:
                    raise ConnectionError("the cluster closed the stream of %s after %d of %d "
                                          "bytes; fetch again" % (key, got, len(view)))
                got += n
            return out[()] if out.ndim == 0 else out
        finally:
            c.close()


def _graph_error(r, doc):
    """The server's message, with the node it names as the client built it
    (keys are generated: the op and its inputs say which call made it)."""
    msg = r.message()
    node = next((n for n in doc["nodes"] if '"%s"' % n["key"] in msg), None)
    hint = ""
    if node is not None:
        text = json.dumps(node)
        hint = "; that node is %s" % (text if len(text) <= 400 else text[:400] + "...")
    e = GraphError("the cluster rejected the document: %s%s. Fix that call's arguments "
                   "(the whole document is in this error's .document)" % (msg, hint))
    e.document = doc
    return e


def _from_json_tensor(doc):
    def fix(v):
        if isinstance(v, list):
            return [fix(x) for x in v]
        if isinstance(v, str):
            return float(v)
        return v
    if isinstance(doc, dict) and "data" in doc and "dtype" in doc:
        a = np.array(fix(doc["data"]), dtype=doc["dtype"]).reshape(doc.get("shape", ()))
        return a[()] if a.ndim == 0 else a
    return doc


def new_session(url=None, token=None, name=None, timeout=60.0):
    """Creates a session on the cluster at url (default $MARS_URL, else
    http://127.0.0.1:7005) with token (default $MARS_TOKEN); it becomes the
    default session."""
    return Session(url, token, name, timeout)


def get_default_session():
    return Session.default()


__all__ = ["Options", "options", "Node", "OutRef", "Entity", "Session", "Future", "execute",
           "new_session", "get_default_session", "build_document", "RequestError",
           "ConnectionError"]
