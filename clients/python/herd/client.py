"""The synchronous client: :func:`connect` and :class:`Client`.

Each client runs an :class:`herd.aio.AsyncClient` on an event loop of its own, in a background
thread, and waits for its answers; every call has a timeout. Snapshots come through iterators
(:meth:`Client.snapshots`), callbacks on a thread of their own (:meth:`Client.on_snapshot`), or
:meth:`Client.wait_for`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from typing import Any, Callable, Coroutine, Dict, Iterable, Iterator, List, Optional, TypeVar

from . import aio
from .aio import CLIENT_NAME, DEFAULT, DEFAULT_MAX_SIZE, DEFAULT_QUEUE, DEFAULT_TIMEOUT, ThreadMailbox
from .commands import Commands
from .errors import ConnectionClosed, Timeout

__all__ = ["connect", "Client", "SnapshotStream"]

log = logging.getLogger("herd")

Message = Dict[str, Any]
T = TypeVar("T")

# How much longer than a call's own timeout its caller waits for the loop to report it: the loop
# raises herd.Timeout itself; this only guards against a loop that stopped answering.
_GRACE = 5.0


class _Loop:
    """An event loop running in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        running = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(running,), name="herd-client", daemon=True)
        self.thread.start()
        running.wait()

    def _run(self, running: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(running.set)
        self.loop.run_forever()

    def run(self, coro: Coroutine[Any, Any, T], timeout: Optional[float]) -> T:
        if threading.current_thread() is self.thread:
            coro.close()
            raise RuntimeError("herd: a blocking call from the client's own event loop")
        if self.loop.is_closed() or not self.loop.is_running():
            coro.close()
            raise ConnectionClosed(None, "", "the client is closed")
        fut = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return fut.result(None if timeout is None else timeout + _GRACE)
        except concurrent.futures.TimeoutError:
            fut.cancel()
            raise Timeout(f"the client's event loop did not answer within {timeout} s") from None

    def stop(self) -> None:
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        if threading.current_thread() is not self.thread:
            self.thread.join()
            self.loop.close()


class SnapshotStream(Iterator[Message]):
    """Snapshots as they arrive, from the moment the stream was made (``for snap in ...``).

    Each one is a ``snapshot`` message as protocol/PROTOCOL.md describes it (binary frames
    decoded into the same dict). A reader slower than the snapshot rate gets the newest
    ``queue_size`` and ``dropped`` counts the others. Waiting longer than ``timeout`` for one
    raises :class:`herd.Timeout` (a paused world sends none); the stream ends when the client is
    closed, and raises :class:`herd.ConnectionClosed` when the server closed the connection.
    Close it (or use it in a ``with``) to stop receiving.
    """

    def __init__(self, client: aio.AsyncClient, timeout: Optional[float], queue_size: int) -> None:
        self._client = client
        self.timeout = timeout
        self._box = ThreadMailbox(queue_size)
        client._subscribe(self._box)

    @property
    def dropped(self) -> int:
        return self._box.dropped

    def __iter__(self) -> "SnapshotStream":
        return self

    def __next__(self) -> Message:
        return self._box.get(self.timeout)

    def next(self, timeout: Any = DEFAULT) -> Message:
        """The next snapshot, waiting at most ``timeout`` seconds (default the stream's)."""
        return self._box.get(self.timeout if timeout is DEFAULT else timeout)

    def close(self) -> None:
        """Stops receiving snapshots."""
        self._client._unsubscribe(self._box)

    def __enter__(self) -> "SnapshotStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Client(Commands[Message]):
    """A session with a herd server. Made by :func:`connect`; close it, or use it in ``with``.

    Every command of the protocol is a method taking its fields as keyword arguments
    (``c.spawn(count=20, group=1)``, ``c.set_target(agents="all", target=(400, 300))``); it
    returns the ``ack`` or raises :class:`herd.CommandError` with the server's ``code`` and
    ``message``. :meth:`command` sends any command by name. Its methods may be called from any
    thread.
    """

    def __init__(self, loop: _Loop, client: aio.AsyncClient) -> None:
        self._loop = loop
        self._async = client
        self._callbacks: List[Callable[[Message], Any]] = []
        self._callbacks_lock = threading.Lock()
        self._dispatch_box: Optional[ThreadMailbox] = None
        self._dispatcher: Optional[threading.Thread] = None
        self._closed = False

    # ---- what the server said -------------------------------------------------------------

    @property
    def welcome(self) -> Message:
        """The latest ``welcome`` (a new one comes whenever it changes: a pause, a new world,
        new rates)."""
        return self._async.welcome

    @property
    def latest(self) -> Optional[Message]:
        """The latest snapshot received, or None."""
        return self._async.latest

    @property
    def obstacles(self) -> List[Message]:
        """Every static obstacle, as last told (welcome, or a snapshot that carried them)."""
        return self._async.obstacles

    @property
    def walls(self) -> List[Message]:
        """Every wall, as last told (welcome, or a snapshot that carried them)."""
        return self._async.walls

    @property
    def map(self) -> Optional[Message]:
        """The tile map, as last told, or None."""
        return self._async.map

    @property
    def sources(self) -> List[Message]:
        """Every source (add_source) with its counts, as last told by a snapshot."""
        return self._async.sources

    @property
    def exits(self) -> List[Message]:
        """Every exit (add_exit) with its count, as last told by a snapshot."""
        return self._async.exits

    @property
    def errors(self) -> List[Message]:
        """Errors the server sent that answer no request of this client's (the latest 64)."""
        return list(self._async.errors)

    @property
    def role(self) -> str:
        """The role the server granted: ``"viewer"``, ``"commander"`` (``"operator"`` when asked by
        that name), ``"player"`` or ``"spectator"``."""
        return self._async.role

    @property
    def session(self) -> Optional[int]:
        """This session's id (what :meth:`sessions` lists and :meth:`kick` names)."""
        return self._async.session

    @property
    def paused(self) -> bool:
        """Whether the world is paused, as the latest welcome says."""
        return self._async.paused

    @property
    def url(self) -> str:
        return self._async.url

    @property
    def format(self) -> str:
        return self._async.format

    @property
    def quantum(self) -> float:
        """The position quantum of binary snapshots last asked for (connect, :meth:`viewport`),
        world units; 1/64 unless one was."""
        return self._async.quantum

    @property
    def timeout(self) -> Optional[float]:
        """The default timeout of every call, in seconds (None: none)."""
        return self._async.timeout

    @property
    def closed(self) -> bool:
        """Whether the connection is closed (by :meth:`close` or by the server)."""
        return self._async.closed

    @property
    def decode_errors(self) -> int:
        """Binary frames that could not be decoded (each answered with a keyframe request)."""
        return self._async.decode_errors

    def _t(self, timeout: Any) -> Optional[float]:
        return self._async._timeout(timeout)

    # ---- requests -------------------------------------------------------------------------

    def command(self, cmd: str, /, *, timeout: Any = DEFAULT, **fields: Any) -> Message:
        """Sends command ``cmd`` with ``fields`` (those that are None are left out) and returns
        its ``ack``; raises :class:`herd.CommandError` (``.code``, ``.message``) when the server
        refuses it, :class:`herd.Timeout` when no answer comes within ``timeout`` seconds."""
        return self._loop.run(self._async.command(cmd, timeout=timeout, **fields), self._t(timeout))

    def sessions(self, *, timeout: Any = DEFAULT) -> Message:
        """The server's sessions (commanders only): the ``sessions`` message, whose
        ``sessions`` lists a row per session (``you`` marks this one's)."""
        return self._loop.run(self._async.sessions(timeout=timeout), self._t(timeout))

    def ping(self, *, timeout: Any = DEFAULT) -> Message:
        """Round trip to the server: its ``pong`` (with the world's current ``tick``)."""
        return self._loop.run(self._async.ping(timeout=timeout), self._t(timeout))

    def inspect(self, agents: Iterable[int]) -> None:
        """Asks for the avoidance traces of up to 16 agents in every snapshot's ``inspect``
        (``[]`` stops it). Nothing is answered."""
        self._loop.run(self._async.inspect(list(agents)), self.timeout)

    def density(self, on: bool = True) -> None:
        """Asks for the density layer (``on``) in snapshots, about twice a second: a snapshot's
        ``density`` (agents per cell of a grid over the world and their mean speed); ``False``
        stops it. Nothing is answered."""
        self._loop.run(self._async.density(on), self.timeout)

    def viewport(
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
        units, one of ``herd.aio.QUANTA`` (1, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625; else
        ValueError); the next frame is then a keyframe, so change it in steps, not every frame.
        None: unchanged. Nothing is answered."""
        if quantum is not None:
            aio.check_quantum(quantum)  # raised here, not from the client's loop
        self._loop.run(self._async.viewport(x0, y0, x1, y1, quantum=quantum), self.timeout)

    def request_keyframe(self) -> None:
        """Asks for the next binary snapshot whole."""
        self._loop.run(self._async.request_keyframe(), self.timeout)

    # ---- snapshots ------------------------------------------------------------------------

    def snapshots(
        self, *, timeout: Any = DEFAULT, queue_size: Optional[int] = None
    ) -> SnapshotStream:
        """Snapshots from now on, for ``for snap in c.snapshots():`` (see
        :class:`SnapshotStream`). ``timeout``: seconds to wait for each (default the client's;
        None: for ever)."""
        return SnapshotStream(self._async, self._t(timeout), queue_size or self._async.queue_size)

    def wait_for(self, predicate: Callable[[Message], bool], *, timeout: Any = DEFAULT) -> Message:
        """The first snapshot, the latest one received included, for which ``predicate`` is
        true; raises :class:`herd.Timeout` when none comes within ``timeout`` seconds.

        ``c.wait_for(lambda s: s["tick"] >= ack["tick"])`` is the first snapshot that shows
        what a command did.
        """
        t = self._t(timeout)
        with self.snapshots(timeout=t) as stream:
            latest = self.latest
            if latest is not None and predicate(latest):
                return latest
            deadline = None if t is None else time.monotonic() + t
            while True:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                try:
                    snap = stream.next(left)
                except Timeout:
                    tick = self.latest["tick"] if self.latest else None
                    raise Timeout(f"no snapshot as wanted within {t} s (latest tick: {tick})") from None
                except StopIteration:
                    raise ConnectionClosed(None, "", "wait_for") from None
                if predicate(snap):
                    return snap

    def on_snapshot(self, callback: Callable[[Message], Any]) -> Callable[[], None]:
        """Calls ``callback(snapshot)`` for every snapshot from now on, in order, on a thread of
        the client's (so it may call the client's methods; one that is slower than the snapshot
        rate misses the oldest). Returns a function that stops it."""
        if not callable(callback):
            raise TypeError(f"on_snapshot takes a callable, not {callback!r}")
        with self._callbacks_lock:
            self._callbacks.append(callback)
            if self._dispatcher is None:
                self._dispatch_box = ThreadMailbox(self._async.queue_size)
                self._async._subscribe(self._dispatch_box)
                self._dispatcher = threading.Thread(
                    target=self._dispatch, name="herd-callbacks", daemon=True
                )
                self._dispatcher.start()

        def cancel() -> None:
            with self._callbacks_lock:
                if callback in self._callbacks:
                    self._callbacks.remove(callback)

        return cancel

    def _dispatch(self) -> None:
        box = self._dispatch_box
        assert box is not None
        while True:
            try:
                snap = box.get(None)
            except (StopIteration, ConnectionClosed):
                return
            with self._callbacks_lock:
                callbacks = list(self._callbacks)
            for cb in callbacks:
                try:
                    cb(snap)
                except Exception:
                    log.exception("herd: a snapshot callback failed")

    # ---- closing --------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the connection and ends the snapshot streams and callbacks. Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            self._loop.run(self._async.close(), self.timeout)
        finally:
            self._loop.stop()
            if self._dispatch_box is not None:
                self._async._unsubscribe(self._dispatch_box)
                self._dispatch_box.finish(aio._CLOSED)
            d = self._dispatcher
            if d is not None and d is not threading.current_thread():
                d.join(self.timeout)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<herd.Client {self.url} {self.role or '?'} session {self.session} {state}>"


def connect(
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
) -> Client:
    """Connects to a herd server, says hello and returns the :class:`Client` once welcomed.

    ``url``: ``ws://HOST:PORT/ws`` (``wss://`` through a TLS proxy), or the viewer URL the server
    prints (``http://HOST:PORT/#token=...``). ``role``: ``"commander"`` (the default; also
    ``"operator"``), ``"player"`` (with a player's token: its team's agents, fog of war),
    ``"spectator"`` or ``"viewer"`` (watch only). ``token``: the server's command token; by default
    ``$HERD_COMMAND_TOKEN``, or the one the server left for its user's clients in its runtime
    file (only while that server runs, and only for the address the file names: ``localhost`` is
    sent there). A commander refused for want of it raises
    :class:`herd.HelloError` with code ``unauthorized``. ``format``: snapshots as ``"json"``,
    ``"binary"`` (decoded into the same dicts) or ``"auto"`` (binary beyond 1,000 agents).
    ``timeout``: seconds for connecting and for every call after (None: no limit).
    ``queue_size``: snapshots a slow reader may leave unread before the oldest are dropped.
    ``max_size``: the largest message taken from the server, in bytes (32 MiB by default, the
    widest snapshot of a 20,000-agent world with room to spare; None: no limit); a larger one ends
    the session with :class:`herd.ConnectionClosed`, code 1009, saying so. ``quantum``: binary
    snapshots' position quantum, world units: 1, 0.5, 0.25, 0.125, 0.0625, 0.03125 or 0.015625
    (the server's default, 1/64); a coarser one costs fewer bytes (ValueError for any other).

    Raises :class:`herd.ConnectError` when the server cannot be reached.
    """
    loop = _Loop()
    try:
        c = loop.run(
            aio._open(
                url,
                role=role,
                token=token,
                format=format,
                timeout=timeout,
                client=client,
                queue_size=queue_size,
                max_size=max_size,
                quantum=quantum,
            ),
            None if timeout is None else 2 * timeout,  # the WebSocket, then the welcome
        )
    except BaseException:
        loop.stop()
        raise
    return Client(loop, c)
