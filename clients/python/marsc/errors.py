"""The client's exceptions. Every message says what went wrong and what to do."""
import builtins


class MarsError(Exception):
    """Base class of the errors this package raises."""


class GraphError(MarsError, ValueError):
    """The gateway rejected the document (400): the message is the server's
    (it names the node, the op and the rule)."""


class TaskError(MarsError, RuntimeError):
    """A submitted task failed or was cancelled on the cluster."""

    def __init__(self, message, task_id=None, status=None):
        super().__init__(message)
        self.task_id = task_id
        self.status = status


class ConnectionError(MarsError, builtins.ConnectionError):  # noqa: A001 - marsc.ConnectionError
    """The cluster cannot be reached, or it refused the token."""


class RequestError(MarsError):
    """Any other answer the client did not expect (status and server message)."""

    def __init__(self, message, status=None, code=None):
        super().__init__(message)
        self.status = status
        self.code = code
