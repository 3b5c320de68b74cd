"""Where the server is, and its command token.

A URL is ``ws://HOST[:PORT][/PATH]`` or ``wss://...`` (herd's defaults: port 80, 443 for wss, and
path ``/ws``, as herd-ctl's), or the viewer URL the server prints, ``http://HOST:PORT/#token=...``,
which carries the token in its fragment.

The token, when none is given: ``$HERD_COMMAND_TOKEN``, else, for a ``ws://`` URL, the server's
runtime file (protocol/PROTOCOL.md, "Local clients find the token"): ``server-PORT.json`` in
``$HERD_RUNTIME_DIR``, else ``$XDG_RUNTIME_DIR/herd``, else ``$HOME/.local/share/herd/runtime``,
read only when it is a regular file of this user's whose server (its ``pid``) still runs, and used
only for the exact addresses it names: a URL naming ``localhost`` is sent to the file's address
instead (``localhost`` may resolve to ``::1`` where the server holds only 127.0.0.1, and another
local user may listen there).
"""

from __future__ import annotations

import ipaddress
import json
import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional, Tuple
from urllib.parse import parse_qs, urlsplit

__all__ = ["Address", "parse_url", "runtime_dir", "local_token", "find_token", "with_token"]

_MAX_TOKEN_BYTES = 256


@dataclass(frozen=True)
class Address:
    """A parsed server URL."""

    url: str  # the WebSocket URL to connect to
    host: str  # without brackets
    port: int
    tls: bool
    token: Optional[str]  # from an http(s) URL's #token= fragment


def parse_url(url: str) -> Address:
    """Parses a server URL; raises ValueError saying what is wrong with it."""
    if not isinstance(url, str):
        raise TypeError(f"the URL must be a string, not {url!r}")
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in ("ws", "wss", "http", "https"):
        raise ValueError(f"the URL must look like ws://HOST:PORT/ws, not {url!r}")
    tls = scheme in ("wss", "https")
    host = parts.hostname
    if not host:
        raise ValueError(f"the URL names no host: {url!r}")
    try:
        port = parts.port or (443 if tls else 80)
    except ValueError:
        raise ValueError(f"the URL's port is not a port number: {url!r}") from None
    token = None
    if scheme in ("http", "https"):
        # The viewer's URL: its page is not the WebSocket; the token is in the fragment.
        path = "/ws"
        tokens = parse_qs(parts.fragment).get("token")
        token = tokens[0] if tokens else None
    else:
        path = parts.path or "/ws"
        if parts.query:
            path += "?" + parts.query
    netloc = f"[{host}]" if ":" in host else host
    ws = f"{'wss' if tls else 'ws'}://{netloc}:{port}{path}"
    return Address(url=ws, host=host, port=port, tls=tls, token=token)


def runtime_dir() -> Optional[Path]:
    """The directory where servers leave their runtime files, or None when no variable says."""
    if os.environ.get("HERD_RUNTIME_DIR"):
        return Path(os.environ["HERD_RUNTIME_DIR"])
    if os.environ.get("XDG_RUNTIME_DIR"):
        return Path(os.environ["XDG_RUNTIME_DIR"]) / "herd"
    if os.environ.get("HOME"):
        return Path(os.environ["HOME"]) / ".local" / "share" / "herd" / "runtime"
    return None


def _same_address(a: str, b: str) -> bool:
    try:
        return ipaddress.ip_address(a) == ipaddress.ip_address(b)
    except ValueError:
        return False


def _process_alive(pid: object) -> bool:
    """Whether ``pid`` is a running process of this user's (the server that wrote the file)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except (OSError, OverflowError):  # gone (ESRCH), or another user's (EPERM): not our server
        return False
    return True


def local_token(host: str, port: int) -> Optional[Tuple[str, str]]:
    """The token a server on this machine at ``port`` left for its user's clients, and the
    address to reach it at, for a client whose URL names ``host``: only from a regular file of
    this user's whose server still runs, only for an address the file names, or ``localhost``
    (then the file's first address)."""
    directory = runtime_dir()
    if directory is None:
        return None
    path = directory / f"server-{port}.json"
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_size >= 64 * 1024:
            return None
        text = os.read(fd, st.st_size)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        j = json.loads(text)
    except ValueError:
        return None
    if not isinstance(j, dict) or j.get("port") != port or not _process_alive(j.get("pid")):
        return None
    token = j.get("token")
    addresses = j.get("addresses")
    if not isinstance(token, str) or not token or len(token.encode()) > _MAX_TOKEN_BYTES:
        return None
    if not isinstance(addresses, list) or not addresses:
        return None
    if host == "localhost":
        first = addresses[0]
        return (token, first) if isinstance(first, str) and _same_address(first, first) else None
    if any(isinstance(a, str) and _same_address(host, a) for a in addresses):
        return token, host
    return None


def find_token(address: Address) -> Optional[str]:
    """The token to say hello with when none is given (see the module's text), for this very
    address: None where a runtime file's token is for another (``localhost``: see
    :func:`with_token`)."""
    used, token = with_token(address)
    return token if used == address else None


def with_token(address: Address) -> Tuple[Address, Optional[str]]:
    """The address to connect to and the token to say hello with when none is given (see the
    module's text): a runtime file's token comes with the exact address it is for."""
    if address.token:
        return address, address.token
    if os.environ.get("HERD_COMMAND_TOKEN"):
        return address, os.environ["HERD_COMMAND_TOKEN"]
    if address.tls:
        return address, None
    local = local_token(address.host, address.port)
    if local is None:
        return address, None
    token, host = local
    if host == address.host:
        return address, token
    netloc = f"[{host}]" if ":" in host else host
    path = address.url.split("/", 3)[3] if address.url.count("/") >= 3 else "ws"
    return replace(address, url=f"ws://{netloc}:{address.port}/{path}", host=host), token
