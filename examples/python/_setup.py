"""Shared start of the examples: finds marsc (installed, or clients/python of
this repository) and opens a session on MARS_URL (default
http://127.0.0.1:7005, as `make run`) with MARS_TOKEN."""
import importlib.util
import os
import sys

if importlib.util.find_spec("marsc") is None:  # not installed: this repository's copy
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "..", "clients", "python"))


def session(name):
    """A new session named after the example. KEEP_SESSION=0 deletes it at
    the end (sess.close(), as a `with marsc.new_session() as sess:` block
    does); by default it is kept, so that its tasks stay on the dashboard,
    as the curl examples do."""
    import atexit

    import marsc
    s = marsc.new_session(name=name)
    print("session %s at %s" % (s.session_id, s.url))
    if os.environ.get("KEEP_SESSION", "1") == "0":
        atexit.register(lambda: (s.close(), print("deleted session %s" % s.session_id)))
    else:
        atexit.register(lambda: print("kept session %s (s.close() deletes it)" % s.session_id))
    return s
