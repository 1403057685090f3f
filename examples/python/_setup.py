"""Shared start of the examples: finds marsc (installed, or clients/python of
this repository) and opens a session on MARS_URL (default
http://127.0.0.1:7005, as `make run`) with MARS_TOKEN."""
import os
import sys

try:
    import marsc  # noqa: F401 - installed with pip install ./clients/python
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "..", "clients", "python"))
    import marsc  # noqa: F401


def session(name):
    """A new session named after the example. KEEP_SESSION=0 deletes it at the
    end (sess.close(); a `with marsc.new_session() as sess:` block does the same); by default it is kept, so that
    its tasks stay on the dashboard, as the curl examples do."""
    import atexit

    import marsc
    s = marsc.new_session(name=name)
    print("session %s at %s" % (s.session_id, s.url))
    if os.environ.get("KEEP_SESSION", "1") == "0":
        atexit.register(lambda: (s.close(), print("deleted session %s" % s.session_id)))
    else:
        atexit.register(lambda: print("kept session %s (s.close() deletes it)" % s.session_id))
    return s
