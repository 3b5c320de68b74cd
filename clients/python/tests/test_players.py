"""Players and fog of war through the Python client, against a real server with ``--players``:
a player is welcomed with its name and team, commands only its own agents, and receives only
what its team sees; a spectator commands nothing."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Iterator

import pytest
from conftest import TIMEOUT
from server import Server

import herd

RED = "red-token-0123456789"


@pytest.fixture(scope="module")
def players_server() -> Iterator[Server]:
    fd, path = tempfile.mkstemp(prefix="herd-players-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump({"players": [{"name": "red", "team": 1, "token": RED},
                               {"name": "blue", "team": 2, "token": "blue-token-0123456789"}]}, f)
    srv = Server(scenario="empty", extra_args=["--players", path, "--spectator-delay", "0"])
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HERD_RUNTIME_DIR", srv.runtime_dir)
        mp.delenv("HERD_COMMAND_TOKEN", raising=False)
        try:
            yield srv
        finally:
            srv.stop()
            os.unlink(path)


def test_a_player_commands_and_sees_its_team_only(players_server: Server) -> None:
    with herd.connect(players_server.url, role="operator", timeout=TIMEOUT) as op:
        assert op.role == "operator"
        op.pause()
        mine = op.spawn(team=1, agents=[{"x": 100, "y": 100}])["agents"]
        near = op.spawn(team=2, agents=[{"x": 250, "y": 100}])["agents"]
        far = op.spawn(team=2, agents=[{"x": 700, "y": 500}])["agents"]
        with herd.connect(players_server.url, role="player", token=RED, timeout=TIMEOUT) as red:
            assert red.role == "player"
            assert red.welcome["player"] == "red" and red.welcome["team"] == 1
            assert red.command("stop", agents="all")["count"] == 1
            with pytest.raises(herd.CommandError) as seen:
                red.command("stop", agents=near)
            assert seen.value.code == "not_yours"
            with pytest.raises(herd.CommandError) as unseen:
                red.command("stop", agents=far)
            assert unseen.value.code == "unknown_agent"
            with pytest.raises(herd.CommandError) as control:
                red.pause()
            assert control.value.code == "forbidden"
            tick = op.step()["tick"]
            snap = red.wait_for(lambda s: s["tick"] >= tick)
            ids = {a["id"] for a in snap["agents"]}
            assert ids == {mine[0], near[0]}, "its own and the enemy in sight, not the far one"
            assert all("team" in a for a in snap["agents"])
        op.resume()


def test_a_spectator_commands_nothing(players_server: Server) -> None:
    with herd.connect(players_server.url, role="spectator", timeout=TIMEOUT) as s:
        assert s.role == "spectator"
        with pytest.raises(herd.CommandError) as refused:
            s.command("stop", agents="all")
        assert refused.value.code == "forbidden"
