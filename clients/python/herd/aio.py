"""The asyncio client: :func:`connect` and :class:`AsyncClient`.

The synchronous client (:func:`herd.connect`) runs this one on an event loop of its own in a
background thread, so both behave alike::

    async with herd.aio.connect("ws://localhost:8080/ws") as c:
        ack = await c.spawn(count=20, group=1)
        async for snap in c.snapshots():
            ...

One task reads the connection: it answers each command's future by ``seq``, keeps the latest
welcome and snapshot, decodes binary frames (acknowledging each, asking for a keyframe when one
cannot be decoded) and hands every snapshot to the subscribers (:meth:`AsyncClient.snapshots`,
:meth:`AsyncClient.on_snapshot`).
"""

from __future__ import annotations

import asyncio
import collections
import inspect
import json
import logging
import threading
import time
import weakref
from typing import (
    Any,
    Awaitable,
    Callable,
    Deque,
    Dict,
    Generator,
    Iterable,
    List,
    Optional,
    Set,
    Tuple,
    Union,
)

import websockets
import websockets.exceptions

from ._version import __version__
from .address import parse_url, with_token
from .binary import BinaryFeed
from .commands import Commands, check_finite
from .errors import (
    CommandError,
    ConnectError,
    ConnectionClosed,
    HelloError,
    ServerError,
    Timeout,
)

__all__ = ["connect", "AsyncClient", "AsyncSnapshotStream", "DEFAULT_TIMEOUT", "QUANTA", "DEFAULT_QUANTUM"]

log = logging.getLogger("herd")

Message = Dict[str, Any]

PROTOCOL_VERSION = 1
DEFAULT_TIMEOUT = 10.0
DEFAULT_QUEUE = 256  # snapshots a subscriber may have unread; older ones are dropped first
# The largest message taken from the server, unless connect() is given another max_size: the
# widest JSON snapshot of a world of the default 20,000 agents, with a quarter to spare, is 29.5
# MiB (operations.md, "A hostile upstream"). Decoding a message costs several times its size, so a
# server (or whatever answers at the URL) may make the client hold about that much, not more.
DEFAULT_MAX_SIZE = 32 << 20
CLIENT_NAME = f"herd-python/{__version__}"
_ROLES = ("viewer", "commander", "operator", "player", "spectator")
# The roles granted for each asked: the operator's two names, and a player (else it watches).
_GRANTED = {"commander": ("commander", "operator"), "operator": ("commander", "operator"),
            "player": ("player",)}
_FORMATS = ("json", "binary", "auto")
# The position quanta of binary snapshots a session may ask for (hello's and viewport's
# ``quantum``), world units, coarsest first; the server's is 1/64 unless hello says another.
QUANTA = (1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625)
DEFAULT_QUANTUM = 0.015625
_SEQ_MAX = 0xFFFFFFFF


def check_quantum(quantum: Any) -> float:
    """``quantum`` as a float when it is one of :data:`QUANTA`; else raises ValueError (the server
    would refuse it with ``bad_field``)."""
    if isinstance(quantum, bool) or not isinstance(quantum, (int, float)) or quantum not in QUANTA:
        raise ValueError(
            f"quantum must be one of {', '.join(str(q) for q in QUANTA)} (world units), not {quantum!r}"
        )
    return float(quantum)


class _Default:
    def __repr__(self) -> str:
        return "the client's timeout"


DEFAULT: Any = _Default()  # a parameter left to the client's default timeout


class _Closed:
    pass


_CLOSED = _Closed()  # the end of a subscription whose client was closed on purpose


class Mailbox:
    """One subscriber's unread snapshots: the newest ``size``, the oldest dropped first.

    ``put`` and ``finish`` are called on the client's event loop; the subclasses say how a reader
    waits (in the loop, or in another thread).
    """

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"queue_size must be 1 or more, not {size}")
        self.items: Deque[Message] = collections.deque(maxlen=size)
        self.dropped = 0  # snapshots replaced by newer ones before they were read
        self.end: Union[None, _Closed, ConnectionClosed] = None

    def put(self, snapshot: Message) -> None:
        if len(self.items) == self.items.maxlen:
            self.dropped += 1
        self.items.append(snapshot)
        self._wake()

    def finish(self, end: Union[_Closed, ConnectionClosed]) -> None:
        if self.end is None:
            self.end = end
        self._wake()

    def _wake(self) -> None:
        raise NotImplementedError


class _AsyncMailbox(Mailbox):
    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.ready = asyncio.Event()

    def _wake(self) -> None:
        self.ready.set()


class ThreadMailbox(Mailbox):
    """A mailbox read from another thread than the loop's (the synchronous client's)."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.cond = threading.Condition()

    def put(self, snapshot: Message) -> None:
        with self.cond:
            super().put(snapshot)

    def finish(self, end: Union[_Closed, ConnectionClosed]) -> None:
        with self.cond:
            super().finish(end)

    def _wake(self) -> None:
        self.cond.notify_all()

    def get(self, timeout: Optional[float]) -> Message:
        """The next snapshot; raises StopIteration at the end of a client closed on purpose,
        ConnectionClosed when the server closed it, Timeout after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self.cond:
            while not self.items:
                if isinstance(self.end, ConnectionClosed):
                    raise self.end
                if self.end is not None:
                    raise StopIteration
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise Timeout(f"no snapshot within {timeout} s")
                self.cond.wait(left)
            return self.items.popleft()


class AsyncSnapshotStream:
    """Snapshots as they arrive, from the moment the stream was made (``async for``).

    Each one is a ``snapshot`` message as protocol/PROTOCOL.md describes it (binary frames
    decoded into the same dict). A reader slower than the snapshot rate gets the newest
    ``queue_size`` and ``dropped`` counts the others. Waiting longer than ``timeout`` for one
    raises :class:`herd.Timeout` (a paused world sends none); the stream ends when the client is
    closed, and raises :class:`herd.ConnectionClosed` when the server closed the connection.
    """

    def __init__(self, client: "AsyncClient", timeout: Optional[float], queue_size: int) -> None:
        self._client = client
        self._timeout = timeout
        self._box = _AsyncMailbox(queue_size)
        client._subscribe(self._box)

    @property
    def dropped(self) -> int:
        return self._box.dropped

    def __aiter__(self) -> "AsyncSnapshotStream":
        return self

    async def __anext__(self) -> Message:
        box = self._box
        while not box.items:
            if isinstance(box.end, ConnectionClosed):
                raise box.end
            if box.end is not None:
                raise StopAsyncIteration
            box.ready.clear()
            try:
                await asyncio.wait_for(box.ready.wait(), self._timeout)
            except asyncio.TimeoutError:
                raise Timeout(f"no snapshot within {self._timeout} s") from None
        return box.items.popleft()

    def close(self) -> None:
        """Stops receiving snapshots."""
        self._client._unsubscribe(self._box)


class AsyncClient(Commands[Awaitable[Message]]):
    """A session with a herd server, on asyncio. Made by :func:`connect`.

    Every command of the protocol is a coroutine method taking its fields as keyword arguments
    (``await c.spawn(count=20)``); it returns the ``ack`` or raises :class:`herd.CommandError`.
    """

    def __init__(
        self,
        ws: Any,
        *,
        url: str,
        format: str,
        timeout: Optional[float],
        queue_size: int,
        quantum: Optional[float] = None,
    ) -> None:
        self._ws = ws
        self.url = url
        self.format = format
        self._hello_quantum = quantum  # said in hello when given
        self.quantum: float = DEFAULT_QUANTUM if quantum is None else quantum
        """The position quantum of binary snapshots last asked for (hello, :meth:`viewport`),
        world units."""
        self.timeout = timeout
        self.queue_size = queue_size
        self.welcome: Message = {}
        """The latest ``welcome``: the server sends a new one whenever it changes (a pause, a
        new world, new rates)."""
        self.latest: Optional[Message] = None
        """The latest snapshot received, or None."""
        self.obstacles: List[Message] = []
        """Every static obstacle, as last told (welcome, or a snapshot that carried them)."""
        self.walls: List[Message] = []
        """Every wall, as last told (welcome, or a snapshot that carried them)."""
        self.map: Optional[Message] = None
        """The tile map, as last told, or None."""
        self.sources: List[Message] = []
        """Every source (add_source) with its counts, as last told by a snapshot."""
        self.exits: List[Message] = []
        """Every exit (add_exit) with its count, as last told by a snapshot."""
        self.errors: Deque[Message] = collections.deque(maxlen=64)
        """Errors the server sent that answer no request of this client's (the latest 64)."""
        self.decode_errors = 0
        """Binary frames that could not be decoded (each answered with a keyframe request)."""
        self._loop = asyncio.get_running_loop()
        self._seq = 0
        self._ping_id = 0
        self._pending: Dict[Tuple[str, int], "asyncio.Future[Message]"] = {}
        self._boxes: "weakref.WeakSet[Mailbox]" = weakref.WeakSet()
        self._boxes_lock = threading.Lock()  # the synchronous client subscribes from its thread
        self._callbacks: List[Callable[[Message], Any]] = []
        self._callback_tasks: Set["asyncio.Task[Any]"] = set()
        self._feed = BinaryFeed()
        self._hello: "asyncio.Future[Tuple[Message, Optional[Message]]]" = self._loop.create_future()
        self._unauthorized: Optional[Message] = None
        self._closing = False
        self._closed: Optional[ConnectionClosed] = None
        self._too_big = False  # the connection ended on a message over max_size
        self._reader = self._loop.create_task(self._read())

    # ---- the session ----------------------------------------------------------------------

    @property
    def role(self) -> str:
        """The role the server granted: ``"viewer"``, ``"commander"`` (``"operator"`` when asked by
        that name), ``"player"`` or ``"spectator"``."""
        return str(self.welcome.get("role", ""))

    @property
    def session(self) -> Optional[int]:
        """This session's id (what :meth:`sessions` lists and ``kick`` names)."""
        return self.welcome.get("session")

    @property
    def paused(self) -> bool:
        """Whether the world is paused, as the latest welcome says."""
        return bool(self.welcome.get("paused", False))

    @property
    def closed(self) -> bool:
        return self._closed is not None

    def _timeout(self, timeout: Any) -> Optional[float]:
        return self.timeout if timeout is DEFAULT else timeout

    async def _greet(self, role: str, token: Optional[str], client: str) -> None:
        hello: Message = {"type": "hello", "protocol": PROTOCOL_VERSION, "role": role}
        if client:
            hello["client"] = client
        if token:
            hello["token"] = token
        if self.format != "json":
            hello["format"] = self.format
        if self._hello_quantum is not None:
            hello["quantum"] = self._hello_quantum
        await self._send(hello, "hello")
        try:
            welcome, refusal = await asyncio.wait_for(asyncio.shield(self._hello), self.timeout)
        except asyncio.TimeoutError:
            raise Timeout(f"hello: no welcome within {self.timeout} s") from None
        if role in _GRANTED and welcome.get("role") not in _GRANTED[role]:
            # Welcomed as a viewer (spectator) for want of the token: the caller asked to command.
            reply = refusal or {"code": "unauthorized", "message": "welcomed as a viewer"}
            if refusal is None or not token:
                reply = dict(reply)
                reply["message"] = (
                    f"{reply.get('message', '')} (no token given: pass token=, set "
                    "HERD_COMMAND_TOKEN, or run on the server's machine; role='viewer' to watch)"
                ).strip()
            raise HelloError(reply, "hello")

    # ---- reading --------------------------------------------------------------------------

    async def _read(self) -> None:
        try:
            while True:
                data = await self._ws.recv()
                if isinstance(data, (bytes, bytearray, memoryview)):
                    await self._on_binary(bytes(data))
                else:
                    self._on_text(data)
        except websockets.exceptions.ConnectionClosed as err:
            sent = getattr(err, "sent", None)
            if sent is not None and sent.code == 1009:  # this client refused a message's size
                self._too_big = True
        except Exception:  # a bug of this client's: end the session loudly rather than hang
            log.exception("herd: reading from %s failed", self.url)
            await self._ws.close(1011, "client error")
        finally:
            self._finish()

    def _on_text(self, text: str) -> None:
        try:
            msg = json.loads(text)
        except ValueError:
            log.warning("herd: a message that is not JSON: %.200s", text)
            return
        if not isinstance(msg, dict):
            log.warning("herd: a message that is not a JSON object: %.200s", text)
            return
        kind = msg.get("type")
        if kind == "snapshot":
            self._on_snapshot(msg)
        elif kind in ("ack", "error", "sessions") and ("seq", msg.get("seq")) in self._pending:
            fut = self._pending.pop(("seq", msg["seq"]))
            if not fut.done():
                fut.set_result(msg)
        elif kind == "pong" and ("ping", msg.get("id")) in self._pending:
            fut = self._pending.pop(("ping", msg["id"]))
            if not fut.done():
                fut.set_result(msg)
        elif kind == "welcome":
            self._on_welcome(msg)
        elif kind == "error":
            self._on_error(msg)
        else:
            log.debug("herd: unexpected message %.200s", text)

    def _on_welcome(self, msg: Message) -> None:
        # A welcome whose tick is below the latest snapshot's is a new world (a reset, another
        # scenario, an upstream restarted): what the client last saw is no longer there.
        if self.latest is not None and msg.get("tick", 0) < self.latest.get("tick", 0):
            self.latest = None
        self.welcome = msg
        self.obstacles = list(msg.get("obstacles") or [])
        self.walls = list(msg.get("walls") or [])
        self.map = msg.get("map")
        if not self._hello.done():
            self._hello.set_result((msg, self._unauthorized))

    def _on_error(self, msg: Message) -> None:
        if not self._hello.done():
            if msg.get("code") == "unauthorized":
                self._unauthorized = msg  # a welcome as viewer follows
                return
            self._hello.set_exception(HelloError(msg, "hello"))
            return
        self.errors.append(msg)
        log.warning("herd: the server says %s: %s", msg.get("code"), msg.get("message"))

    async def _on_binary(self, data: bytes) -> None:
        snapshot, reply, err = self._feed.receive(data)
        if err is not None:
            self.decode_errors += 1
            log.warning("herd: %s (asking for a keyframe)", err)
        try:
            await self._ws.send(json.dumps(reply))
        except websockets.exceptions.ConnectionClosed:
            return
        if snapshot is not None:
            self._on_snapshot(snapshot)

    def _on_snapshot(self, snap: Message) -> None:
        self.latest = snap
        if "obstacles" in snap:
            self.obstacles = list(snap["obstacles"] or [])
        if "walls" in snap:
            self.walls = list(snap["walls"] or [])
        if "map" in snap:
            self.map = snap["map"]
        if "sources" in snap:
            self.sources = list(snap["sources"] or [])
            self.exits = list(snap.get("exits") or [])
        with self._boxes_lock:
            boxes = list(self._boxes)
        for box in boxes:
            box.put(snap)
        for cb in list(self._callbacks):
            try:
                result = cb(snap)
                if inspect.isawaitable(result):
                    task = asyncio.ensure_future(result)
                    self._callback_tasks.add(task)
                    task.add_done_callback(self._callback_done)
            except Exception:
                log.exception("herd: a snapshot callback failed")

    def _callback_done(self, task: "asyncio.Task[Any]") -> None:
        self._callback_tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("herd: a snapshot callback failed", exc_info=task.exception())

    def _finish(self) -> None:
        code = getattr(self._ws, "close_code", None)
        reason = getattr(self._ws, "close_reason", "") or ""
        if self._too_big:
            code = 1009
            reason = (
                f"the server sent a message over max_size ({getattr(self._ws, 'max_size', None)} "
                "bytes); connect with a larger max_size= to take it"
            )
        self._closed = ConnectionClosed(code, reason)
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(ConnectionClosed(code, reason))
        self._pending.clear()
        if not self._hello.done():
            self._hello.set_exception(ConnectionClosed(code, reason, "hello"))
        if not self._hello.cancelled():
            self._hello.exception()  # marks it retrieved: no "never retrieved" warning
        end: Union[_Closed, ConnectionClosed] = _CLOSED if self._closing else self._closed
        with self._boxes_lock:
            boxes = list(self._boxes)
        for box in boxes:
            box.finish(end)

    # ---- subscriptions --------------------------------------------------------------------

    def _subscribe(self, box: Mailbox) -> None:
        with self._boxes_lock:
            self._boxes.add(box)
            if self._closed is not None:
                box.finish(_CLOSED if self._closing else self._closed)

    def _unsubscribe(self, box: Mailbox) -> None:
        with self._boxes_lock:
            self._boxes.discard(box)

    def snapshots(
        self, *, timeout: Any = DEFAULT, queue_size: Optional[int] = None
    ) -> AsyncSnapshotStream:
        """Snapshots from now on, for ``async for`` (see :class:`AsyncSnapshotStream`).

        ``timeout``: seconds to wait for each (default the client's; None: for ever).
        """
        return AsyncSnapshotStream(self, self._timeout(timeout), queue_size or self.queue_size)

    def on_snapshot(self, callback: Callable[[Message], Any]) -> Callable[[], None]:
        """Calls ``callback(snapshot)`` for every snapshot from now on, on the event loop (a
        coroutine function's coroutines are run as tasks). Returns a function that stops it."""
        if not callable(callback):
            raise TypeError(f"on_snapshot takes a callable, not {callback!r}")
        self._callbacks.append(callback)

        def cancel() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return cancel

    async def wait_for(
        self, predicate: Callable[[Message], bool], *, timeout: Any = DEFAULT
    ) -> Message:
        """The first snapshot, the latest one received included, for which ``predicate``
        is true; raises :class:`herd.Timeout` when none comes within ``timeout``."""
        t = self._timeout(timeout)
        stream = self.snapshots(timeout=None)
        try:
            if self.latest is not None and predicate(self.latest):
                return self.latest

            async def first() -> Message:
                async for snap in stream:
                    if predicate(snap):
                        return snap
                raise ConnectionClosed(None, "", "wait_for")

            try:
                return await asyncio.wait_for(first(), t)
            except asyncio.TimeoutError:
                tick = self.latest["tick"] if self.latest else None
                raise Timeout(
                    f"no snapshot as wanted within {t} s (latest tick: {tick})"
                ) from None
        finally:
            stream.close()

    # ---- requests -------------------------------------------------------------------------

    def _encode(self, msg: Message, what: str) -> str:
        try:
            return json.dumps(msg, allow_nan=False, separators=(",", ":"))
        except ValueError:
            check_finite(msg, what)  # names the field
            raise
        except TypeError as err:
            raise TypeError(f"{what}: {err}") from None

    async def _send(self, msg: Message, what: str) -> None:
        text = self._encode(msg, what)
        if self._closed is not None:
            raise ConnectionClosed(self._closed.code, self._closed.reason, what)
        try:
            await self._ws.send(text)
        except websockets.exceptions.ConnectionClosed as err:
            raise ConnectionClosed(
                getattr(self._ws, "close_code", None), getattr(self._ws, "close_reason", ""), what
            ) from err

    async def _request(self, key: Tuple[str, int], msg: Message, timeout: Any, what: str) -> Message:
        t = self._timeout(timeout)
        fut: "asyncio.Future[Message]" = self._loop.create_future()
        self._pending[key] = fut
        try:
            await self._send(msg, what)
            return await asyncio.wait_for(fut, t)
        except asyncio.TimeoutError:
            raise Timeout(f"{what}: no answer within {t} s") from None
        finally:
            self._pending.pop(key, None)

    def _next_seq(self) -> int:
        while True:
            self._seq = self._seq + 1 if self._seq < _SEQ_MAX else 0
            if ("seq", self._seq) not in self._pending:
                return self._seq

    async def command(self, cmd: str, /, *, timeout: Any = DEFAULT, **fields: Any) -> Message:
        """Sends command ``cmd`` with ``fields`` (those that are None are left out) and returns
        its ``ack``; raises :class:`herd.CommandError` (``.code``, ``.message``) when the server
        refuses it, :class:`herd.Timeout` when no answer comes within ``timeout``."""
        if not isinstance(cmd, str) or not cmd:
            raise TypeError(f"a command's name is a non-empty string, not {cmd!r}")
        for reserved in ("type", "seq", "cmd"):
            if reserved in fields:
                raise TypeError(f"{cmd}: '{reserved}' is the client's to set, not a field")
        fields = {k: v for k, v in fields.items() if v is not None}
        seq = self._next_seq()
        msg = {"type": "command", "seq": seq, "cmd": cmd, **fields}
        reply = await self._request(("seq", seq), msg, timeout, cmd)
        if reply.get("type") != "ack":
            raise CommandError(reply, cmd, fields)
        return reply

    async def sessions(self, *, timeout: Any = DEFAULT) -> Message:
        """The server's sessions (commanders only): the ``sessions`` message, whose
        ``sessions`` lists a row per session (``you`` marks this one's)."""
        seq = self._next_seq()
        reply = await self._request(
            ("seq", seq), {"type": "sessions", "seq": seq}, timeout, "sessions"
        )
        if reply.get("type") != "sessions":
            raise ServerError(reply, "sessions")
        return reply

    async def ping(self, *, timeout: Any = DEFAULT) -> Message:
        """Round trip to the server: its ``pong`` (with the world's current ``tick``)."""
        self._ping_id = self._ping_id + 1 if self._ping_id < _SEQ_MAX else 0
        key = ("ping", self._ping_id)
        return await self._request(key, {"type": "ping", "id": self._ping_id}, timeout, "ping")

    async def inspect(self, agents: Iterable[int]) -> None:
        """Asks for the avoidance traces of up to 16 agents in every snapshot's ``inspect``
        (``[]`` stops it). Nothing is answered."""
        await self._send({"type": "inspect", "agents": list(agents)}, "inspect")

    async def density(self, on: bool = True) -> None:
        """Asks for the density layer (``on``) in snapshots, about twice a second: a snapshot's
        ``density`` (agents per cell of a grid over the world and their mean speed); ``False``
        stops it. Nothing is answered."""
        await self._send({"type": "density", "on": bool(on)}, "density")

    async def viewport(
        self,
        x0: Optional[float] = None,
        y0: Optional[float] = None,
        x1: Optional[float] = None,
        y1: Optional[float] = None,
        *,
        quantum: Optional[float] = None,
    ) -> None:
        """Binary snapshots carry only the agents in this rectangle (plus a margin); no
        rectangle: the whole world again. ``quantum``: their position quantum from now on, world
        units, one of :data:`QUANTA` (else ValueError); the next frame is then a keyframe, so
        change it in steps, not every frame. None: unchanged. Nothing is answered."""
        given = [v for v in (x0, y0, x1, y1) if v is not None]
        if len(given) not in (0, 4):
            raise TypeError("viewport() takes all four of x0, y0, x1, y1, or none")
        msg: Message = {"type": "viewport"}
        if given:
            msg.update(x0=x0, y0=y0, x1=x1, y1=y1)
        if quantum is not None:
            msg["quantum"] = check_quantum(quantum)
        await self._send(msg, "viewport")
        if quantum is not None:
            self.quantum = msg["quantum"]

    async def request_keyframe(self) -> None:
        """Asks for the next binary snapshot whole (the client does so by itself when a frame
        cannot be decoded)."""
        await self._send({"type": "keyframe"}, "keyframe")

    # ---- closing --------------------------------------------------------------------------

    async def close(self) -> None:
        """Closes the connection (normal closure) and ends the snapshot streams."""
        self._closing = True
        if self._closed is None:
            try:
                await self._ws.close()
            except Exception:  # already failing: closing is all that is left
                log.debug("herd: closing %s", self.url, exc_info=True)
        await asyncio.gather(self._reader, return_exceptions=True)
        for task in list(self._callback_tasks):
            task.cancel()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<herd.AsyncClient {self.url} {self.role or '?'} session {self.session} {state}>"


async def _open(
    url: str,
    *,
    role: str,
    token: Optional[str],
    format: str,
    timeout: Optional[float],
    client: str,
    queue_size: int,
    max_size: Optional[int],
    quantum: Optional[float] = None,
) -> AsyncClient:
    if role not in _ROLES:
        raise ValueError(
            "role must be 'operator' (or 'commander'), 'player', 'spectator' or 'viewer', "
            f"not {role!r}"
        )
    if format not in _FORMATS:
        raise ValueError(f"format must be 'json', 'binary' or 'auto', not {format!r}")
    if quantum is not None:
        quantum = check_quantum(quantum)
    if queue_size < 1:
        raise ValueError(f"queue_size must be 1 or more, not {queue_size}")
    address = parse_url(url)
    if token is None and role in ("commander", "operator"):
        address, token = with_token(address)
    try:
        # websockets.connect: the asyncio client (imported lazily by the package, hence unseen
        # by type checkers), in 10.4 as in later versions.
        ws = await websockets.connect(  # type: ignore[attr-defined]
            address.url,
            open_timeout=timeout,
            close_timeout=timeout,
            max_size=max_size,
            # herd's snapshots are compact already; compressing them costs both ends CPU.
            compression=None,
            user_agent_header=CLIENT_NAME,
        )
    except asyncio.TimeoutError:
        raise Timeout(f"{address.url}: no WebSocket within {timeout} s") from None
    except (OSError, websockets.exceptions.InvalidHandshake, websockets.exceptions.InvalidURI) as err:
        raise ConnectError(f"cannot connect to {address.url}: {err}") from err
    c = AsyncClient(ws, url=address.url, format=format, timeout=timeout, queue_size=queue_size, quantum=quantum)
    try:
        await c._greet(role, token, client)
    except BaseException:
        await c.close()
        raise
    return c


class connect:  # noqa: N801 - used as a function: await connect(...) or async with connect(...)
    """Connects to a herd server and says hello; ``await`` it for an :class:`AsyncClient`, or
    use it as ``async with connect(url) as c:``.

    Parameters are those of :func:`herd.connect`.
    """

    def __init__(
        self,
        url: str = "ws://localhost:8080/ws",
        *,
        role: str = "commander",
        token: Optional[str] = None,
        format: str = "json",
        timeout: Optional[float] = DEFAULT_TIMEOUT,
        client: str = CLIENT_NAME,
        queue_size: int = DEFAULT_QUEUE,
        max_size: Optional[int] = DEFAULT_MAX_SIZE,
        quantum: Optional[float] = None,
    ) -> None:
        self._open = _open(
            url,
            role=role,
            token=token,
            format=format,
            timeout=timeout,
            client=client,
            queue_size=queue_size,
            max_size=max_size,
            quantum=quantum,
        )
        self._client: Optional[AsyncClient] = None

    def __await__(self) -> Generator[Any, None, AsyncClient]:
        return self._open.__await__()

    async def __aenter__(self) -> AsyncClient:
        self._client = await self
        return self._client

    async def __aexit__(self, *exc: Any) -> None:
        if self._client is not None:
            await self._client.close()

