"""The exceptions herd raises. Every one is a :class:`HerdError`."""

from __future__ import annotations

from typing import Any, Dict, Optional

__all__ = [
    "HerdError",
    "ServerError",
    "CommandError",
    "HelloError",
    "ConnectError",
    "ConnectionClosed",
    "Timeout",
    "DecodeError",
]


class HerdError(Exception):
    """Base class of herd's exceptions."""


class ServerError(HerdError):
    """The server answered with an ``error`` message.

    ``code`` is the protocol's error code (``"unknown_agent"``, ``"rate_limited"``, ...; the
    table is in protocol/PROTOCOL.md, "Error codes"), ``message`` the server's sentence for
    people, ``reply`` the whole message.
    """

    def __init__(self, reply: Dict[str, Any], what: str = "") -> None:
        self.reply = dict(reply)
        self.code: str = str(reply.get("code", ""))
        self.message: str = str(reply.get("message", ""))
        self.seq: Optional[int] = reply.get("seq")
        prefix = f"{what}: " if what else ""
        super().__init__(f"{prefix}{self.code}: {self.message}")


class CommandError(ServerError):
    """A command was refused: the world is unchanged (a command applies whole or not at all).

    ``cmd`` is the command's name and ``fields`` what was sent with it.
    """

    def __init__(self, reply: Dict[str, Any], cmd: str, fields: Dict[str, Any]) -> None:
        self.cmd = cmd
        self.fields = dict(fields)
        super().__init__(reply, cmd)


class HelloError(ServerError):
    """The server refused the session's ``hello``.

    ``unauthorized``: a commander without the server's command token (the server would have
    let the session watch as a viewer; connect with ``role="viewer"`` for that), or
    ``protocol_mismatch``, ``bad_field`` and the like.
    """


class ConnectError(HerdError, ConnectionError):
    """The server could not be reached, or refused the WebSocket upgrade (an HTTP status such as
    403 for a refused Origin or Host, 503 over a connection cap)."""


class ConnectionClosed(HerdError):
    """The connection is closed: by the server (``code`` and ``reason`` say why, e.g. 4000 for a
    ``kick``, 1001 when the server shuts down) or by this client's ``close()``."""

    def __init__(self, code: Optional[int], reason: str = "", what: str = "") -> None:
        self.code = code
        self.reason = reason
        text = "the connection is closed"
        if code is not None:
            text += f" (code {code}{': ' + reason if reason else ''})"
        super().__init__(f"{what}: {text}" if what else text)


class Timeout(HerdError, TimeoutError):
    """Nothing came within the time allowed."""


class DecodeError(HerdError, ValueError):
    """A binary snapshot frame that cannot be decoded (truncated, corrupt, or without the
    baseline it is built on)."""
