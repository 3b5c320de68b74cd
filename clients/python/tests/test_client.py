"""The client against the real herd-server: hello and the token, commands and their answers,
snapshots in JSON and binary, callbacks, closes. The world is paused and stepped where a test
needs ticks to pass, and every wait is on a message with a timeout."""

from __future__ import annotations

import asyncio
import math
import threading
import time
from typing import Any, Dict, List

import pytest
from conftest import TIMEOUT
from planted import Planted
from server import Server

import herd
import herd.aio
from herd.binary import POSITION_SCALE, RADIUS_SCALE, SPEED_SCALE, read_header

Snapshot = Dict[str, Any]


def ids(snap: Snapshot) -> List[int]:
    return [a["id"] for a in snap["agents"]]


def shows(ack: Dict[str, Any]) -> Any:
    """A predicate: the snapshot reflects the command of this ack (PROTOCOL.md, "Session")."""
    return lambda s: s["tick"] >= ack["tick"]


def test_hello_finds_the_token_and_is_welcomed_as_commander(server: Server) -> None:
    with herd.connect(server.url, timeout=TIMEOUT) as c:
        assert c.role == "commander"
        assert c.welcome["type"] == "welcome" and c.welcome["protocol"] == 1
        assert c.welcome["world"] == {"width": 800, "height": 600}
        assert c.welcome["scenario"] == "empty"
        assert isinstance(c.session, int)
        assert c.ping()["type"] == "pong"
        me = [row for row in c.sessions()["sessions"] if row.get("you")]
        assert len(me) == 1 and me[0]["id"] == c.session
        assert me[0]["client"].startswith("herd-python/")
    assert c.closed


def test_the_viewer_url_the_server_prints_carries_the_token(server: Server, monkeypatch: Any) -> None:
    token = server.token()
    monkeypatch.setenv("HERD_RUNTIME_DIR", server.runtime_dir + "-none")  # no runtime file
    with herd.connect(f"http://localhost:{server.port}/#token={token}", timeout=TIMEOUT) as c:
        assert c.role == "commander"
        assert c.url == f"ws://localhost:{server.port}/ws"


def test_the_runtime_files_token_goes_only_to_its_address_while_its_server_runs(
    monkeypatch: Any,
) -> None:
    # Another local user may listen on [::1] at the port of a server on 127.0.0.1, or on the port
    # of a server that was killed (SIGKILL leaves its file): the hello reaches them without the token.
    srv = Server(scenario="empty", extra_args=["--command-token", "chosen-by-the-operator-for-py-1"])
    try:
        monkeypatch.setenv("HERD_RUNTIME_DIR", srv.runtime_dir)
        monkeypatch.delenv("HERD_COMMAND_TOKEN", raising=False)
        token = srv.token()
        planted = Planted("::1", srv.port)
        try:
            with pytest.raises((herd.Timeout, herd.ConnectError)):
                herd.connect(f"ws://[::1]:{srv.port}/ws", timeout=1.0)
            assert planted.first_message.wait(TIMEOUT)
            assert b'"type":"hello"' in planted.received()
            assert token.encode() not in planted.received()
        finally:
            planted.close()
        # localhost is sent to the address the file names, the server's.
        with herd.connect(f"ws://localhost:{srv.port}/ws", timeout=TIMEOUT) as c:
            assert c.role == "commander"
            assert c.url == f"ws://127.0.0.1:{srv.port}/ws"
        assert herd.address.find_token(herd.address.parse_url(f"ws://localhost:{srv.port}/ws")) is None

        srv.proc.kill()
        srv.proc.wait(TIMEOUT)
        planted = Planted("127.0.0.1", srv.port)
        try:
            with pytest.raises((herd.Timeout, herd.ConnectError)):
                herd.connect(srv.url, timeout=1.0)
            assert planted.first_message.wait(TIMEOUT)
            assert b'"type":"hello"' in planted.received()
            assert token.encode() not in planted.received()
        finally:
            planted.close()
    finally:
        srv.stop()


def test_a_message_over_max_size_ends_the_session_with_an_error_that_says_so(
    server: Server, commander: herd.Client
) -> None:
    # The default bounds what a server (or whatever answers at the URL) makes the client hold:
    # not 256 MiB (a 200 MB snapshot cost 1.32 GB of memory).
    assert herd.aio.DEFAULT_MAX_SIZE == 32 << 20
    commander.spawn(count=200)
    with pytest.raises(herd.ConnectionClosed, match=r"over max_size \(4096 bytes\)") as closed:
        with herd.connect(server.url, role="viewer", max_size=4096, timeout=TIMEOUT) as v:
            commander.step(1)
            v.wait_for(lambda s: len(s["agents"]) >= 200)
    assert closed.value.code == 1009


def test_a_commander_without_the_token_is_refused_and_a_viewer_may_only_watch(
    server: Server, monkeypatch: Any
) -> None:
    monkeypatch.setenv("HERD_RUNTIME_DIR", server.runtime_dir + "-none")
    with pytest.raises(herd.HelloError) as refused:
        herd.connect(server.url, timeout=TIMEOUT)
    assert refused.value.code == "unauthorized"
    with pytest.raises(herd.HelloError, match="wrong command token") as wrong:
        herd.connect(server.url, token="not-the-token-of-this-server", timeout=TIMEOUT)
    assert wrong.value.code == "unauthorized"
    with herd.connect(server.url, role="viewer", timeout=TIMEOUT) as v:
        assert v.role == "viewer"
        with pytest.raises(herd.CommandError) as forbidden:
            v.spawn(count=1)
        assert forbidden.value.code == "forbidden" and forbidden.value.cmd == "spawn"


def test_spawned_agents_show_in_a_snapshot(commander: herd.Client) -> None:
    c = commander
    ack = c.spawn(count=20, group=1)
    assert ack["type"] == "ack" and len(ack["agents"]) == 20
    c.step()
    snap = c.wait_for(shows(ack))
    assert ids(snap) == ack["agents"]
    assert all(a["group"] == 1 and 0 <= a["x"] <= 800 and 0 <= a["y"] <= 600 for a in snap["agents"])


def test_a_target_moves_the_agents_there(commander: herd.Client) -> None:
    c = commander
    spawned = c.spawn(agents=[{"x": 100, "y": 100, "group": 2}, {"x": 120, "y": 100, "group": 2}])
    ack = c.set_target(agents=herd.group(2), target=(400, 300), spread="point")
    assert ack["count"] == 2
    c.step(ticks=30)
    snap = c.wait_for(shows(ack))
    for a in snap["agents"]:
        assert a["id"] in spawned["agents"]
        assert a["behaviour"] == "arrive" and (a["tx"], a["ty"]) == (400, 300)
        assert a["state"] == "moving" and a["x"] > 100  # on its way, away from the start


def test_a_refused_command_raises_its_code_and_changes_nothing(commander: herd.Client) -> None:
    c = commander
    spawned = c.spawn(agents=[{"x": 200, "y": 200}])
    mine = spawned["agents"][0]
    with pytest.raises(herd.CommandError) as refused:
        c.set_target(agents=[mine, 999999], target=(400, 300))
    assert refused.value.code == "unknown_agent"
    assert "999999" in refused.value.message
    assert refused.value.cmd == "set_target"
    with pytest.raises(herd.CommandError) as outside:
        c.spawn(agents=[{"x": 5000, "y": 10}])
    assert outside.value.code == "out_of_bounds"
    with pytest.raises(ValueError, match=r"target\.x must be finite"):
        c.set_target(agents="all", target=(math.nan, 10))  # JSON has no NaN: refused unsent
    step = c.step()
    snap = c.wait_for(shows(step))
    assert ids(snap) == [mine]  # no agent at (5000, 10)
    (agent,) = snap["agents"]
    assert agent["behaviour"] == "idle" and "tx" not in agent  # no target given
    assert (agent["x"], agent["y"]) == (200, 200)


def test_a_source_spawns_and_an_exit_removes_and_the_counts_balance(commander: herd.Client) -> None:
    c = commander
    source = c.add_source(area=(50, 250, 100, 100), rate=30, total=20, target=(760, 300), max_speed=200)
    exit_ = c.add_exit(area={"x": 700, "y": 200, "width": 100, "height": 200})
    assert source["source"] == 1 and exit_["exit"] == 1

    def balances(snap: Dict[str, Any]) -> None:
        ((src,), (ex, *_)) = snap["sources"], snap["exits"]
        assert src["spawned"] + src["remaining"] == 20
        assert src["spawned"] == ex["removed"] + len(snap["agents"])

    told = 0
    for _ in range(12):  # 6 s of world time at 60 ticks a second
        step = c.step(ticks=30)
        snap = c.wait_for(lambda s, tick=step["tick"]: s["tick"] == tick)
        if "sources" in snap:  # a snapshot that told a change (absent: as last told)
            balances(snap)
            told += 1
    assert told >= 3
    # Another exit is a change: the next snapshot tells every source and exit.
    c.add_exit(area=(0, 0, 10, 10))
    step = c.step()
    snap = c.wait_for(lambda s: s["tick"] == step["tick"])
    balances(snap)
    assert snap["sources"][0]["spawned"] == 20 and snap["exits"][0]["removed"] > 0
    assert c.sources == snap["sources"] and len(c.exits) == 2
    with pytest.raises(herd.CommandError) as unknown:
        c.remove_exit(id=9)
    assert unknown.value.code == "unknown_exit"
    assert c.remove_source(id=1)["count"] == 1


def test_a_wall_is_acked_with_its_id_and_told_in_snapshots_and_the_client(
    commander: herd.Client,
) -> None:
    c = commander
    ack = c.add_wall(points=[(100, 100), (300, 120), (200, 260)], closed=True)
    wall = ack["wall"]
    c.step()
    snap = c.wait_for(lambda s: s["tick"] >= ack["tick"] and "walls" in s)
    (told,) = snap["walls"]
    assert told == {
        "id": wall,
        "points": [{"x": 100, "y": 100}, {"x": 300, "y": 120}, {"x": 200, "y": 260}],
        "closed": True,
    }
    assert c.walls == snap["walls"]
    with pytest.raises(herd.CommandError) as outside:
        c.add_wall(points=[(10, 10), (5000, 10)])
    assert outside.value.code == "out_of_bounds"
    assert c.remove_wall(wall=wall)["count"] == 1
    with pytest.raises(herd.CommandError) as gone:
        c.remove_wall(wall=wall)
    assert gone.value.code == "unknown_wall"
    removed = c.step()
    c.wait_for(lambda s: s["tick"] >= removed["tick"] and s.get("walls") == [])
    assert c.walls == []


def test_a_control_out_of_place_is_refused(commander: herd.Client) -> None:
    c = commander
    c.resume()
    with pytest.raises(herd.CommandError) as running:
        c.step()
    assert running.value.code == "not_paused"
    with pytest.raises(herd.CommandError) as unknown:
        c.load_scenario(name="no-such-scenario")
    assert unknown.value.code == "unknown_scenario"
    with pytest.raises(herd.CommandError) as bad:
        c.command("spawn", count=0)
    assert bad.value.code == "bad_field"


def test_pause_and_step_are_told_in_welcomes_and_snapshots(commander: herd.Client) -> None:
    c = commander
    # The welcome that follows pause's ack comes from the tick thread; a ping is answered by the
    # session's own thread and may overtake it: ping until it has come, within the timeout.
    deadline = time.monotonic() + TIMEOUT
    while not c.paused and time.monotonic() < deadline:
        c.ping()
    assert c.paused and c.welcome["paused"] is True
    with c.snapshots(timeout=TIMEOUT) as stream:
        ack = c.step(ticks=5)
        snap = next(stream)
        while snap["tick"] < ack["tick"]:
            snap = next(stream)
    assert snap["tick"] == ack["tick"]
    with c.snapshots(timeout=0.3) as quiet, pytest.raises(herd.Timeout):
        next(quiet)  # a paused world sends no snapshot


def test_binary_snapshots_decode_to_the_agents_of_the_json_ones(
    server: Server, commander: herd.Client
) -> None:
    c = commander
    crowd: List[Dict[str, Any]] = [{"x": 50 + 13.3 * i, "y": 80 + 7.1 * (i % 9), "group": i % 3, "radius": 4 + (i % 4)} for i in range(40)]
    crowd[0]["movement"] = "kinematic"
    c.spawn(agents=crowd)
    c.set_target(agents="all", target=(400, 300), spread="point")
    with herd.connect(server.url, role="viewer", format="binary", timeout=TIMEOUT) as b:
        frames: List[bool] = []  # whether each frame the viewer got was a delta
        feed = b._async._feed
        receive = feed.receive

        def spy(data: bytes) -> Any:
            frames.append(read_header(data).delta)
            return receive(data)

        setattr(feed, "receive", spy)
        for _ in range(4):
            ack = c.step(ticks=3)
            j = c.wait_for(shows(ack))
            q = b.wait_for(shows(ack))
            assert q["tick"] == j["tick"] == ack["tick"]
            assert ids(q) == ids(j) and len(ids(j)) == 40
            for a, e in zip(q["agents"], j["agents"]):
                same_agent(a, e)
        assert b.decode_errors == 0
        assert frames[0] is False and True in frames, f"keyframe, then deltas on acks: {frames}"


def test_a_coarser_quantum_puts_binary_positions_in_its_steps(
    server: Server, commander: herd.Client
) -> None:
    c = commander
    crowd = [{"x": 50 + 13.3 * i, "y": 80 + 7.1 * (i % 9)} for i in range(30)]
    c.spawn(agents=crowd)
    c.set_target(agents="all", target=(400, 300), spread="point")

    def on_grid(s: Snapshot, q: float) -> bool:
        return all((a["x"] / q).is_integer() and (a["y"] / q).is_integer() for a in s["agents"])

    with herd.connect(server.url, role="viewer", format="binary", quantum=0.25, timeout=TIMEOUT) as b:
        assert b.quantum == 0.25
        for _ in range(3):
            ack = c.step(ticks=3)
            j = c.wait_for(shows(ack))
            q = b.wait_for(shows(ack))
            assert q["tick"] == j["tick"] and ids(q) == ids(j) and len(ids(j)) == 30
            assert on_grid(q, 0.25), q["agents"]
            # Half a quantum plus the 1/128 of the first rounding to 1/64, plus JSON's 3 decimals.
            for a, e in zip(q["agents"], j["agents"]):
                assert abs(a["x"] - e["x"]) <= 1 / 8 + 1 / 128 + 0.0005, (a, e)
                assert abs(a["y"] - e["y"]) <= 1 / 8 + 1 / 128 + 0.0005, (a, e)
        assert not on_grid(j, 0.25), "the crowd is not on quarters by itself"
        # A whole unit from now on, the rectangle unchanged (the whole world).
        with pytest.raises(ValueError, match="quantum must be one of"):
            b.viewport(quantum=0.3)
        assert b.quantum == 0.25
        b.viewport(quantum=1)
        assert b.quantum == 1
        ack = c.step(ticks=3)
        q = b.wait_for(shows(ack))
        assert on_grid(q, 1), q["agents"]
        assert b.decode_errors == 0


def same_agent(a: Snapshot, e: Snapshot) -> None:
    """A binary agent against the JSON one, within the format's quantisation (PROTOCOL.md: 1/64
    unit, heading within 1.5 of 256 steps, speed within 1.5/16) and JSON's 3 decimals."""
    json_step = 0.0005
    assert abs(a["x"] - e["x"]) <= 0.5 / POSITION_SCALE + json_step, (a, e)
    assert abs(a["y"] - e["y"]) <= 0.5 / POSITION_SCALE + json_step, (a, e)
    assert abs(a["r"] - e["r"]) <= 0.5 / RADIUS_SCALE + json_step
    assert (a["group"], a["state"]) == (e["group"], e["state"])
    assert a.get("collided", False) == e.get("collided", False)
    assert a.get("movement", "inertial") == e.get("movement", "inertial")
    speed = math.hypot(e["vx"], e["vy"])
    assert abs(math.hypot(a["vx"], a["vy"]) - speed) <= 1.5 / SPEED_SCALE + json_step
    heading_error = 1.5 * 2 * math.pi / 256
    assert math.hypot(a["vx"] - e["vx"], a["vy"] - e["vy"]) <= speed * heading_error + 1.5 / SPEED_SCALE + 0.002


def test_the_density_layer_comes_to_a_client_that_asks_in_json_and_binary(
    server: Server, commander: herd.Client
) -> None:
    c = commander
    c.spawn(agents=[{"x": x, "y": y, "radius": 2} for x, y in ((100.5, 220.25), (106, 222), (700, 500))])
    with herd.connect(server.url, role="viewer", format="binary", timeout=TIMEOUT) as b:
        c.density(True)
        b.density()
        c.ping()
        b.ping()
        ack = c.step()
        for client in (c, b):
            snap = client.wait_for(lambda s: s["tick"] >= ack["tick"] and "density" in s)
            d = snap["density"]
            # The 800 x 600 world in cells of 12.5: 64 x 48; empty cells as negative runs.
            assert (d["cell"], d["cols"], d["rows"]) == (12.5, 64, 48)
            assert sum(n for n in d["count"] if n > 0) == 3
            assert sum(-n if n < 0 else 1 for n in d["count"]) == 64 * 48
            assert len(d["speed"]) == sum(1 for n in d["count"] if n > 0)
            assert 2 in d["count"], "the two agents of cell (8, 17) together"
        c.density(False)
        c.ping()
        for _ in range(16):  # past the next layer's time
            assert "density" not in c.wait_for(shows(c.step()))


def test_callbacks_get_every_snapshot_in_order_until_cancelled(commander: herd.Client) -> None:
    c = commander
    got: List[int] = []
    changed = threading.Condition()

    def on(snap: Snapshot) -> None:
        with changed:
            got.append(snap["tick"])
            changed.notify_all()

    cancel = c.on_snapshot(on)
    last = None
    for _ in range(3):
        last = c.step()
    assert last is not None
    # A snapshot of the tick before the first step may still be on its way when the
    # callback is added, so wait for the last step's tick rather than for a count.
    with changed:
        assert changed.wait_for(lambda: bool(got) and got[-1] >= last["tick"], TIMEOUT), got
    assert got == sorted(got) and got[-1] == last["tick"] and len(got) >= 3
    cancel()
    after = len(got)
    c.wait_for(shows(c.step()))  # a snapshot comes, and the callback is not called
    c.ping()
    assert len(got) == after


def test_a_kicked_client_sees_its_stream_end_with_the_close_code(
    server: Server, commander: herd.Client
) -> None:
    c = commander
    c.resume()
    with herd.connect(server.url, role="viewer", timeout=TIMEOUT) as v:
        stream = v.snapshots()
        assert next(stream)["type"] == "snapshot"
        assert v.session is not None
        c.kick(session=v.session)
        with pytest.raises(herd.ConnectionClosed) as closed:
            while True:
                next(stream)
        assert closed.value.code == 4000
        assert v.closed
        with pytest.raises(herd.ConnectionClosed):
            v.ping()


def test_closing_ends_the_streams_and_later_calls_raise(server: Server) -> None:
    c = herd.connect(server.url, role="viewer", timeout=TIMEOUT)
    stream = c.snapshots()
    assert next(stream)["type"] == "snapshot"
    c.close()
    c.close()  # idempotent
    assert c.closed
    with pytest.raises(StopIteration):
        while True:
            next(stream)  # what was already received, then the end
    assert list(c.snapshots()) == []
    with pytest.raises(herd.ConnectionClosed, match="the client is closed"):
        c.ping()


def test_no_server_is_a_connect_error() -> None:
    with pytest.raises(herd.ConnectError, match="cannot connect to ws://127.0.0.1:1/ws"):
        herd.connect("ws://127.0.0.1:1/ws", timeout=TIMEOUT)
    with pytest.raises(ValueError, match="ws://HOST:PORT/ws"):
        herd.connect("ftp://localhost/")
    with pytest.raises(ValueError, match="format"):
        herd.connect("ws://127.0.0.1:1/ws", format="xml")
    # Refused before connecting: port 1 would be a ConnectError.
    for quantum in (0.3, 2, 1 / 128, 0, "0.25", True):
        with pytest.raises(ValueError, match=r"^quantum must be one of 1\.0, 0\.5, 0\.25, 0\.125, 0\.0625, 0\.03125, 0\.015625"):
            herd.connect("ws://127.0.0.1:1/ws", format="binary", quantum=quantum)  # type: ignore[arg-type]


def test_the_asyncio_client(server: Server) -> None:
    async def run() -> None:
        async with herd.aio.connect(server.url, timeout=TIMEOUT) as c:
            await c.reset()
            ack = await c.spawn(count=3, group=4)
            async for snap in c.snapshots():
                if snap["tick"] >= ack["tick"]:
                    break
            assert ids(snap) == ack["agents"]
            with pytest.raises(herd.CommandError) as refused:
                await c.remove(agents=[12345])
            assert refused.value.code == "unknown_agent"
            seen = asyncio.Event()
            c.on_snapshot(lambda s: seen.set())
            await asyncio.wait_for(seen.wait(), TIMEOUT)

    asyncio.run(run())
