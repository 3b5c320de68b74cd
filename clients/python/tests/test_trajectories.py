"""herd.trajectories against databases the real herd-server writes: a headless bottleneck run read
back as the final snapshot of the same run on a live server, every table and way in, a live
server's worlds, files it refuses, and the fundamental diagram example."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest
from conftest import TIMEOUT
from server import REPO_ROOT, SCENARIO_DIR, SERVER_BIN, Server

import herd
from herd import trajectories

EXAMPLE = REPO_ROOT / "clients" / "python" / "examples" / "fundamental_diagram.py"
# Not a multiple of 3: at 60 ticks a second and 20 frames, the last tick is a frame of its own.
TICKS = 301


def headless(db: Path, scenario: str = "bottleneck", ticks: int = TICKS) -> str:
    args = [str(SERVER_BIN), "--headless", "--scenario-dir", str(SCENARIO_DIR), "--scenario", scenario,
            "--ticks", str(ticks), "--trajectories", str(db)]  # fmt: skip
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"$ {' '.join(args)}\n{r.stdout}{r.stderr}"
    return r.stdout


@pytest.fixture(scope="module")
def bottleneck_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("trajectories") / "bottleneck.db"
    out = headless(db)
    assert f"herd: {TICKS // 3 + 2} trajectory frames written to {db}" in out, out
    return db


@pytest.fixture(scope="module")
def bottleneck_server() -> Iterator[Server]:
    srv = Server(scenario="bottleneck")
    try:
        yield srv
    finally:
        srv.stop()


def test_a_headless_bottleneck_run_reads_back_as_its_final_snapshot(
    bottleneck_db: Path, bottleneck_server: Server
) -> None:
    t = trajectories.read(bottleneck_db)
    last = t[-1]
    assert last.tick == TICKS
    # The same scenario, seed and ticks on a live server: paused, rebuilt at tick 0, stepped.
    with herd.connect(bottleneck_server.url, token=bottleneck_server.token(), timeout=TIMEOUT) as c:
        c.pause()
        c.reset()
        ack = c.step(ticks=TICKS)
        snap = c.wait_for(lambda s: s["tick"] >= ack["tick"])
    assert snap["tick"] == TICKS
    agents = sorted(snap["agents"], key=lambda a: a["id"])
    assert len(last) == len(agents) == 150
    assert last.id.tolist() == [a["id"] for a in agents]
    # Snapshots carry 3 decimals; the database the exact doubles.
    np.testing.assert_allclose(last.x, [a["x"] for a in agents], rtol=0, atol=0.0005 + 1e-12)
    np.testing.assert_allclose(last.y, [a["y"] for a in agents], rtol=0, atol=0.0005 + 1e-12)
    np.testing.assert_allclose(last.vx, [a["vx"] for a in agents], rtol=0, atol=0.0005 + 1e-12)
    names = [t.states[s] for s in last.state]
    assert names == [a.get("state", "idle") for a in agents]
    assert last.group.tolist() == [a.get("group", 0) for a in agents]


def test_every_table_and_every_way_into_it(bottleneck_db: Path) -> None:
    t = trajectories.read(bottleneck_db)
    assert t.complete
    assert t.meta["format"] == "herd-trajectories"
    assert t.meta["schema_version"] == str(trajectories.SCHEMA_VERSION)
    assert (t.meta["scenario"], t.meta["tick_rate"], t.meta["frame_rate"]) == ("bottleneck", "60", "20")
    assert (t.meta["width"], t.meta["height"], t.meta["frames_dropped"]) == ("20", "10", "0")
    assert t.states == {0: "idle", 1: "moving", 2: "arrived", 3: "unreachable"}
    assert t.worlds == [trajectories.World(0, "start", "bottleneck", 1, 0, 60.0, 20.0, 20.0, 10.0)]
    n = TICKS // 3 + 2
    assert len(t) == n
    assert t.frames.tolist() == list(range(n))
    assert t.ticks.tolist() == [3 * k for k in range(n - 1)] + [TICKS]
    np.testing.assert_array_equal(t.times, t.ticks * (1 / 60.0))  # tick * dt, as the world has it
    assert (t.frame_agents == 150).all() and len(t.x) == 150 * n
    assert all(len(f) == 150 and (np.diff(f.id.astype(np.int64)) > 0).all() for f in t)
    assert t.at_frame(10).tick == 30 and t.at_tick(30).frame == 10
    with pytest.raises(KeyError):
        t.at_tick(31)
    with pytest.raises(IndexError):
        t[n]
    first = t[0]
    assert (first.speed == 0).all()  # standing still before the first step
    assert first.positions().shape == (150, 2)
    np.testing.assert_array_equal(t.speed, np.hypot(t.vx, t.vy))
    assert t[-1].speed.max() > 0.5  # walking towards the door
    # The measurement tables are read as arrays, rows or none.
    assert set(t.lines) == {"frame", "id", "forward", "backward"}
    assert set(t.areas) == {"frame", "id", "count", "density", "mean_speed"}
    assert all(len(v) == len(t.lines["frame"]) for v in t.lines.values())


def test_the_measurements_are_written_with_every_frame(bottleneck_db: Path) -> None:
    """The bottleneck's line across the door (id 1) and area before it (id 2), in every frame: the
    line's crossings never go down, and the area's count is the agents of that frame's rows inside
    it, its density that count over its 4 m²."""
    t = trajectories.read(bottleneck_db)
    n = len(t)
    lines, areas = t.lines, t.areas
    assert lines["frame"].tolist() == list(range(n)) and set(lines["id"].tolist()) == {1}
    assert areas["frame"].tolist() == list(range(n)) and set(areas["id"].tolist()) == {2}
    assert (np.diff(lines["forward"].astype(np.int64)) >= 0).all()
    assert lines["forward"][-1] > 0  # by 5 s some are through the door
    for k, frame in enumerate(t):
        inside = (frame.x >= 8) & (frame.x <= 10) & (frame.y >= 4) & (frame.y <= 6)
        assert areas["count"][k] == int(inside.sum()), k
        assert areas["density"][k] == pytest.approx(inside.sum() / 4.0, rel=1e-12), k
        if inside.any():
            assert areas["mean_speed"][k] == pytest.approx(frame.speed[inside].mean(), rel=1e-9), k
    assert areas["count"].max() > 0


def test_a_live_servers_worlds_are_read_apart(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    srv = Server(scenario="default", extra_args=["--trajectories", str(db)])
    try:
        with herd.connect(srv.url, token=srv.token(), timeout=TIMEOUT) as c:
            c.pause()
            c.step(ticks=9)
            c.reset()
            c.step(ticks=6)
    finally:
        srv.stop()
    t = trajectories.read(db)
    assert t.complete and [w.began for w in t.worlds] == ["start", "replaced"]
    second = trajectories.read(db, world=1)
    assert second.ticks.tolist() == [0, 3, 6]  # its start, its 20 Hz ticks, and it stopped on 6
    assert (second.frame_worlds == 1).all() and len(second.x) == 3 * 48
    assert [w.world for w in second.worlds] == [1]
    assert second.frames[0] == t.frames[np.nonzero(t.frame_worlds == 1)[0][0]]


def test_what_is_not_a_trajectory_database_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        trajectories.read(tmp_path / "missing.db")
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n")
    with pytest.raises(trajectories.TrajectoryFileError):
        trajectories.read(text)
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE meta(key TEXT, value TEXT)")
    with pytest.raises(trajectories.TrajectoryFileError, match="not a herd trajectory database"):
        trajectories.read(other)
    assert issubclass(trajectories.TrajectoryFileError, herd.HerdError)


def test_the_fundamental_diagram_example_plots_against_weidmann(tmp_path: Path) -> None:
    out = tmp_path / "fd.png"
    r = subprocess.run(
        [sys.executable, str(EXAMPLE), "--server", str(SERVER_BIN), "--scenario", "bottleneck",
         "--ticks", "1200", "--out", str(out), "--db", str(tmp_path / "fd.db")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"^(\d+) of 401 frames had agents in the area: density ([\d.]+) /m², mean speed ([\d.]+) m/s", r.stdout, re.M)
    assert m, r.stdout
    assert int(m.group(1)) > 100 and 0 < float(m.group(2)) < 5.4 and 0 < float(m.group(3)) < 1.34
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "fd.db").is_file()


def test_the_example_says_when_the_server_cannot_run(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, str(EXAMPLE), "--server", str(SERVER_BIN), "--scenario", "no_such_scenario",
         "--out", str(tmp_path / "fd.png")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 2
    assert "the server did not run" in r.stderr
    assert not (tmp_path / "fd.png").exists()
