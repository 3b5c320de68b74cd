"""Every command of the catalogue (clients/web/commands.json, which the C++ tests hold to the
server's codec) is a method of both clients, taking exactly the command's fields and sending
them as given. No server: the methods' messages are caught before the wire."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any, Dict, Tuple

import pytest

import herd
import herd.aio
from herd.commands import Commands

CATALOGUE = json.loads(
    (Path(__file__).resolve().parents[3] / "clients" / "web" / "commands.json").read_text()
)["commands"]
BY_NAME = {c["cmd"]: c for c in CATALOGUE}

# Fields the client may leave out although the wire requires them, because it fills them in.
FILLED_IN = {("load_map", "width"): "the rows' length", ("load_map", "height"): "the rows' count"}


def methods(cls: type) -> Dict[str, Any]:
    return {
        name: fn
        for name, fn in inspect.getmembers(cls, inspect.isfunction)
        if name in Commands.__dict__ and not name.startswith("_") and name != "command"
    }


def test_the_catalogue_lists_the_commands_the_protocol_has() -> None:
    assert len(CATALOGUE) >= 27
    assert {"spawn", "set_target", "step", "kick"} <= set(BY_NAME)


@pytest.mark.parametrize("cls", [herd.Client, herd.aio.AsyncClient])
def test_every_command_is_a_method_and_every_method_a_command(cls: type) -> None:
    have = methods(cls)
    assert sorted(have) == sorted(BY_NAME), "commands.json and the client's methods differ"


@pytest.mark.parametrize("cmd", sorted(BY_NAME))
def test_each_method_takes_the_commands_fields_as_keywords(cmd: str) -> None:
    params = inspect.signature(getattr(herd.Client, cmd)).parameters
    fields = BY_NAME[cmd].get("fields", [])
    names = [p for p in params if p != "self"]
    assert sorted(names) == sorted(f["name"] for f in fields)
    for f in fields:
        p = params[f["name"]]
        assert p.kind is inspect.Parameter.KEYWORD_ONLY, f"{cmd}({f['name']}) is not keyword-only"
        required = f["presence"] == "required" and (cmd, f["name"]) not in FILLED_IN
        assert (p.default is inspect.Parameter.empty) == required, f"{cmd}({f['name']})"


class Recorder(Commands[Tuple[str, Dict[str, Any]]]):
    """Catches what a method would send."""

    def command(self, cmd: str, /, **fields: Any) -> Tuple[str, Dict[str, Any]]:
        return cmd, {k: v for k, v in fields.items() if v is not None}


def sample_call(entry: Dict[str, Any]) -> Dict[str, Any]:
    """Keyword arguments from the command's samples: its fields, the first of each choice
    (exactly one, at most one), and for a command with variants the fields of the case its
    variant field's sample picks."""
    fields = entry.get("fields", [])
    presence = {f["name"]: f["presence"] for f in fields}
    variants = entry.get("variants")
    if variants:
        by_case = {c["value"]: c["fields"] for c in variants["cases"]}
        sample = next(f["sample"] for f in fields if f["name"] == variants["field"])
        varying = {name for case in by_case.values() for name in case}
        presence = {
            name: by_case[sample].get(name, "absent") if name in varying else p
            for name, p in presence.items()
        }
    kwargs: Dict[str, Any] = {}
    chosen: Dict[str, str] = {}
    for f in fields:
        p = presence[f["name"]]
        if p == "absent" or f.get("sample") is None:
            continue
        if p in ("exactly_one", "at_most_one"):
            if p in chosen:
                continue
            chosen[p] = f["name"]
        kwargs[f["name"]] = f["sample"]
    return kwargs


@pytest.mark.parametrize("cmd", sorted(BY_NAME))
def test_each_method_sends_its_fields_under_their_names(cmd: str) -> None:
    kwargs = sample_call(BY_NAME[cmd])
    sent_cmd, sent = getattr(Recorder(), cmd)(**kwargs)
    assert sent_cmd == cmd
    expected = dict(kwargs)
    if cmd == "load_map":
        expected.setdefault("width", len(kwargs["rows"][0]))
        expected.setdefault("height", len(kwargs["rows"]))
    assert sent == expected


def test_points_selections_and_tiles_are_written_as_the_wire_wants() -> None:
    r = Recorder()
    _, f = r.set_target(agents=herd.group(2, rect=(0, 0, 100, 50)), target=(400, 300.5))
    assert f == {
        "agents": {"group": 2, "rect": {"x0": 0, "y0": 0, "x1": 100, "y1": 50}},
        "target": {"x": 400, "y": 300.5},
    }
    assert r.stop(agents=range(1, 4))[1] == {"agents": [1, 2, 3]}
    assert r.remove(agents=7)[1] == {"agents": [7]}
    assert r.stop(agents=herd.rect(1, 2, 3, 4))[1] == {"agents": {"rect": {"x0": 1, "y0": 2, "x1": 3, "y1": 4}}}
    assert r.patrol(agents="all", points=[(1, 2), {"x": 3, "y": 4}])[1]["points"] == [
        {"x": 1, "y": 2},
        {"x": 3, "y": 4},
    ]
    assert r.set_tiles(tiles=[(1, 2, True)])[1] == {"tiles": [{"x": 1, "y": 2, "blocked": True}]}
    assert r.load_map(rows="###\n#.#\n", tile_size=10)[1] == {
        "width": 3,
        "height": 2,
        "tile_size": 10,
        "rows": ["###", "#.#"],
    }


def test_spawn_passes_avoidance_priority_layer_and_mask_through() -> None:
    r = Recorder()
    assert r.spawn(count=3, priority=0, layer=2, mask=5) == (
        "spawn",
        {"count": 3, "priority": 0, "layer": 2, "mask": 5},
    )
    agents = [{"x": 1, "y": 2, "priority": 99, "layer": 4, "mask": 0}]
    assert r.spawn(agents=agents)[1] == {"agents": agents}
    for name in ("priority", "layer", "mask"):
        with pytest.raises(TypeError, match=f"{name} goes with count"):
            r.spawn(agents=[{"x": 1, "y": 1}], **{name: 1})
    assert r.set_avoidance(mode="orca") == ("set_avoidance", {"mode": "orca"})


def test_areas_may_be_tuples() -> None:
    r = Recorder()
    _, f = r.add_source(area=(1, 2, 3, 4), rate=2.5, total=10, target=(5, 6))
    assert f == {
        "area": {"x": 1, "y": 2, "width": 3, "height": 4},
        "rate": 2.5,
        "total": 10,
        "target": {"x": 5, "y": 6},
    }
    assert r.add_exit(area={"x": 1, "y": 2, "width": 3, "height": 4})[1] == {
        "area": {"x": 1, "y": 2, "width": 3, "height": 4}
    }
    with pytest.raises(TypeError, match=r"area must be \(x, y, width, height\)"):
        r.add_exit(area=(1, 2, 3))


def test_bad_input_is_refused_before_anything_is_sent() -> None:
    r = Recorder()
    with pytest.raises(TypeError, match="exactly one of count, agents"):
        r.spawn()
    with pytest.raises(TypeError, match="exactly one of count, agents"):
        r.spawn(count=3, agents=[{"x": 1, "y": 1}])
    with pytest.raises(TypeError, match="exactly one of target, target_tile"):
        r.set_target(agents="all")
    with pytest.raises(ValueError, match="'everyone'"):
        r.stop(agents="everyone")
    with pytest.raises(TypeError, match=r"target must be \(x, y\)"):
        r.set_target(agents="all", target=(1, 2, 3))
    with pytest.raises(TypeError, match="at least one of"):
        r.set_avoidance()
    with pytest.raises(TypeError, match="unexpected keyword"):
        r.spawn(count=1, colour="red")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'agents'"):
        r.stop()  # type: ignore[call-arg]
