"""What the real server cannot be made to do on demand: a server that never answers (the
timeouts), and one that sends chosen binary frames (the fixtures: what the client sends back for
each). A WebSocket server of the test's own, in the test's event loop."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Awaitable, Callable, List

import websockets

import herd
import herd.aio

FIXTURES = Path(__file__).resolve().parents[3] / "protocol" / "fixtures" / "binary"
KEYFRAME = bytes.fromhex((FIXTURES / "keyframe.hex").read_text())
DELTA = bytes.fromhex((FIXTURES / "delta.hex").read_text())

WELCOME = {
    "type": "welcome", "protocol": 1, "server": "fake", "session": 1, "role": "commander",
    "tick_rate": 60, "snapshot_rate": 20, "dt": 0.017, "tick": 0,
    "world": {"width": 800, "height": 600}, "limits": {"max_message_bytes": 65536, "max_agents": 100},
    "obstacles": [], "scenarios": [], "paused": False,
}  # fmt: skip
SHORT = 0.3  # seconds: the client's timeout against a server that is known not to answer


def serve(handler: Callable[[Any], Awaitable[None]], test: Callable[[str], Awaitable[None]]) -> None:
    async def main() -> None:
        async with websockets.serve(handler, "127.0.0.1", 0) as server:  # type: ignore[attr-defined]
            port = next(iter(server.sockets)).getsockname()[1]
            await asyncio.wait_for(test(f"ws://127.0.0.1:{port}/ws"), 10)

    asyncio.run(main())


def test_no_welcome_is_a_timeout() -> None:
    async def silent(ws: Any) -> None:
        await ws.recv()  # the hello
        await ws.wait_closed()

    async def test(url: str) -> None:
        try:
            await herd.aio.connect(url, timeout=SHORT)
        except herd.Timeout as err:
            assert "no welcome" in str(err)
        else:
            raise AssertionError("connected without a welcome")

    serve(silent, test)


def test_a_command_without_an_answer_is_a_timeout_and_the_next_one_still_works() -> None:
    async def acks_the_second(ws: Any) -> None:
        await ws.recv()
        await ws.send(json.dumps(WELCOME))
        await ws.recv()  # the first command: no answer
        second = json.loads(await ws.recv())
        await ws.send(json.dumps({"type": "ack", "seq": second["seq"], "tick": 5, "count": 0}))
        await ws.wait_closed()

    async def test(url: str) -> None:
        async with herd.aio.connect(url, timeout=SHORT) as c:
            try:
                await c.pause()
            except herd.Timeout as err:
                assert "pause: no answer within 0.3 s" in str(err)
            else:
                raise AssertionError("an answer from a server that sends none")
            ack = await c.clear_map()
            assert ack == {"type": "ack", "seq": 2, "tick": 5, "count": 0}

    serve(acks_the_second, test)


def test_the_quantum_is_said_in_hello_and_in_viewport_messages_and_checked_before_sending() -> None:
    sessions: List[List[Any]] = []  # each connection's messages

    async def records(ws: Any) -> None:
        sent: List[Any] = []
        sessions.append(sent)
        sent.append(json.loads(await ws.recv()))
        await ws.send(json.dumps(WELCOME))
        async for text in ws:
            sent.append(json.loads(text))

    async def test(url: str) -> None:
        async with herd.aio.connect(url, role="viewer", format="binary", quantum=0.25, timeout=5) as c:
            assert c.quantum == 0.25
            await c.viewport(0, 0, 100, 50, quantum=0.5)
            await c.viewport(10, 20, 30, 40)
            await c.viewport(quantum=1)
            for bad in (0.3, 2, 1 / 128, "0.5", False):
                try:
                    await c.viewport(quantum=bad)  # type: ignore[arg-type]
                except ValueError as err:
                    assert "quantum must be one of" in str(err)
                else:
                    raise AssertionError(f"quantum {bad!r} was taken")
            assert c.quantum == 1
            await c.viewport()
        async with herd.aio.connect(url, role="viewer", timeout=5) as plain:
            assert plain.quantum == 1 / 64

    serve(records, test)
    first, second = sessions
    assert first[0]["type"] == "hello" and (first[0]["format"], first[0]["quantum"]) == ("binary", 0.25)
    assert first[1:] == [
        {"type": "viewport", "x0": 0, "y0": 0, "x1": 100, "y1": 50, "quantum": 0.5},
        {"type": "viewport", "x0": 10, "y0": 20, "x1": 30, "y1": 40},
        {"type": "viewport", "quantum": 1.0},
        {"type": "viewport"},
    ]
    assert second[0]["type"] == "hello" and "quantum" not in second[0], "none asked: none said"


def test_binary_frames_are_acknowledged_and_an_undecodable_one_asks_for_a_keyframe() -> None:
    replies: List[Any] = []

    async def frames(ws: Any) -> None:
        hello = json.loads(await ws.recv())
        assert hello["format"] == "binary"
        await ws.send(json.dumps(WELCOME))
        await ws.send(DELTA)  # no baseline yet
        replies.append(json.loads(await ws.recv()))
        await ws.send(KEYFRAME)
        replies.append(json.loads(await ws.recv()))
        await ws.send(DELTA)  # on the keyframe
        replies.append(json.loads(await ws.recv()))
        await ws.wait_closed()

    async def test(url: str) -> None:
        async with herd.aio.connect(url, role="viewer", format="binary", timeout=5) as c:
            stream = c.snapshots()
            first = await stream.__anext__()
            second = await stream.__anext__()
            assert (first["tick"], second["tick"]) == (30, 33)
            assert [a["id"] for a in second["agents"]] == [1, 2, 3, 5, 6, 9]
            assert c.obstacles == [{"id": 1, "x": 40, "y": 20, "r": 5}]  # from the delta's side section
            assert c.decode_errors == 1

    serve(frames, test)
    assert replies == [{"type": "keyframe"}, {"type": "ack", "tick": 30}, {"type": "ack", "tick": 33}]
