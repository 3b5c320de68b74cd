"""herd: a Python client for the herd simulation server.

::

    import herd

    with herd.connect("ws://localhost:8080/ws") as c:
        ack = c.spawn(count=20, group=1)
        c.set_target(agents=herd.group(1), target=(400, 300))
        snap = c.wait_for(lambda s: s["tick"] >= ack["tick"])

:func:`connect` returns a synchronous :class:`Client`; :mod:`herd.aio` has the same on asyncio.
Every command of the protocol (protocol/PROTOCOL.md) is a method with keyword arguments, made from
the command catalogue the package carries (:mod:`herd.commands`).
"""

from ._version import __version__
from .address import parse_url
from .client import Client, SnapshotStream, connect
from .commands import group, rect, team
from . import errors
from .errors import (
    CommandError,
    ConnectError,
    ConnectionClosed,
    DecodeError,
    HelloError,
    HerdError,
    ServerError,
    Timeout,
)

__all__ = [
    "__version__",
    "connect",
    "Client",
    "SnapshotStream",
    "group",
    "rect",
    "team",
    "parse_url",
]
__all__ += errors.__all__
