"""A small HTTP client over http.client for the REST API
(shared/spec/cluster.md): JSON in and out, bearer token, errors mapped to
marsc's exceptions."""
import http.client
import json
import socket
import urllib.parse

from .errors import ConnectionError, RequestError


class Response:
    def __init__(self, status, body, headers):
        self.status = status
        self.body = body
        self.headers = headers

    def json(self):
        return json.loads(self.body.decode("utf-8")) if self.body else None

    def message(self):
        """The server's error message, or the body's start."""
        try:
            err = self.json()["error"]
            return "%s (%s)" % (err["message"], err["code"])
        except Exception:  # noqa: BLE001 - any body that is not the error form
            return self.body[:500].decode("utf-8", "replace")


class Http:
    def __init__(self, url, token=None, timeout=60.0):
        u = urllib.parse.urlsplit(url if "://" in url else "http://" + url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError("cluster URL %r: expected http://HOST:PORT" % url)
        self.url = "%s://%s" % (u.scheme, u.netloc)
        self.scheme = u.scheme
        self.host = u.hostname
        self.port = u.port or (443 if u.scheme == "https" else 80)
        self.prefix = u.path.rstrip("/")
        self.token = token
        self.timeout = timeout

    def _conn(self, timeout):
        cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        return cls(self.host, self.port, timeout=timeout)

    def _headers(self, extra):
        h = {"Connection": "close"}
        if self.token:
            h["Authorization"] = "Bearer " + self.token
        h.update(extra or {})
        return h

    def _unreachable(self, e):
        return ConnectionError(
            "cannot reach the cluster at %s (%s): start one with `make run`, or pass "
            "marsc.new_session(url) / set MARS_URL to its REST API address" % (self.url, e))

    def _check_auth(self, status, msg):
        if status in (401, 403):
            raise ConnectionError(
                "the cluster at %s refused the token (%d: %s): pass token= or set MARS_TOKEN to "
                "the token `make run` printed (or the first line of the cluster's --token-file)"
                % (self.url, status, msg))

    def open(self, method, path, body=None, headers=None, timeout=None):
        """Sends a request; returns (connection, http.client response) with the
        body unread, for streaming. The caller closes the connection."""
        c = self._conn(timeout or self.timeout)
        try:
            c.request(method, self.prefix + path, body=body, headers=self._headers(headers))
            r = c.getresponse()
        except (OSError, http.client.HTTPException, socket.timeout) as e:
            c.close()
            raise self._unreachable(e) from None
        if r.status in (401, 403):
            body = r.read()
            c.close()
            self._check_auth(r.status, Response(r.status, body, r.headers).message())
        return c, r

    def request(self, method, path, body=None, headers=None, timeout=None):
        c, r = self.open(method, path, body, headers, timeout)
        try:
            data = r.read()
        except (OSError, http.client.HTTPException) as e:
            raise self._unreachable(e) from None
        finally:
            c.close()
        return Response(r.status, data, r.headers)

    def json(self, method, path, doc=None, expect=(200,), timeout=None):
        """A JSON request whose status must be in expect, else RequestError."""
        body = None if doc is None else json.dumps(doc).encode()
        h = {"Content-Type": "application/json"} if body is not None else {}
        r = self.request(method, path, body, h, timeout)
        if r.status not in expect:
            raise self.error(r, "%s %s" % (method, path))
        return r

    def error(self, r, what):
        code = None
        try:
            code = r.json()["error"]["code"]
        except Exception:  # noqa: BLE001
            pass
        return RequestError("%s: %d %s" % (what, r.status, r.message()), r.status, code)
