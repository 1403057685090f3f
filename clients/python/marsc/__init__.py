"""marsc: the Python client of a mars-c cluster (Mars's API over the REST API).

    import marsc, marsc.tensor as mt, marsc.dataframe as md
    sess = marsc.new_session("http://127.0.0.1:7005")   # or MARS_URL, MARS_TOKEN
    a = mt.ones((2000, 2000), chunk_size=200)
    mt.inner(a, a).execute().fetch()

Standard library plus numpy; pandas where DataFrames are fetched.
"""
from .core import Future, Session, execute, get_default_session, new_session, options
from .errors import ConnectionError, GraphError, MarsError, RequestError, TaskError
from . import dataframe, tensor  # noqa: E402 - marsc.tensor.ones works after `import marsc`

__version__ = "0.1.0"


def fetch(*targets, session=None):
    """The values of several executed targets (executing those that are not)."""
    return tuple(t.fetch(session=session) for t in targets) if len(targets) != 1 \
        else targets[0].fetch(session=session)


__all__ = ["new_session", "get_default_session", "Session", "execute", "fetch", "Future", "tensor", "dataframe",
           "options", "MarsError", "GraphError", "TaskError", "ConnectionError", "RequestError"]
