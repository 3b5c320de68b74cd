"""Every command of the catalogue is a method of both clients, made from it: the package's
catalogue (herd/catalogue.json, the build's copy of clients/web/commands.json, which the C++ tests
hold to the server's codec) gives each method exactly the command's fields, and a field added to
it reaches the method. No server: the methods' messages are caught before the wire."""

from __future__ import annotations

import ast
import asyncio
import copy
import inspect
import json
from pathlib import Path
from typing import Any, Dict, Tuple

import pytest

import herd
import herd.aio
import herd.commands
from herd.commands import Commands, commands_from

DOCUMENT = herd.commands.load_catalogue()
CATALOGUE = DOCUMENT["commands"]
BY_NAME = {c["cmd"]: c for c in CATALOGUE}
WEB = Path(__file__).resolve().parents[3] / "clients" / "web" / "commands.json"

# Fields the client may leave out although the wire requires them, because it fills them in.
FILLED_IN = {("load_map", "width"): "the rows' length", ("load_map", "height"): "the rows' count"}


def test_the_catalogue_lists_the_commands_the_protocol_has() -> None:
    assert len(CATALOGUE) >= 27
    assert {"spawn", "set_target", "step", "kick"} <= set(BY_NAME)
    assert herd.commands.CATALOGUE == DOCUMENT
    assert (Path(herd.commands.__file__).parent / "catalogue.json").is_file()


def test_the_package_catalogue_holds_every_command_and_field_of_the_viewers() -> None:
    """herd/catalogue.json is made from clients/web/commands.json: it has each of its commands
    with each of its fields as they are there (it may be ahead of it, not behind)."""
    web = {c["cmd"]: c for c in json.loads(WEB.read_text(encoding="utf-8"))["commands"]}
    assert sorted(web) == sorted(BY_NAME)
    for cmd, entry in web.items():
        ours = {f["name"]: f for f in BY_NAME[cmd].get("fields", [])}
        for f in entry.get("fields", []):
            assert f["name"] in ours, f"{cmd}.{f['name']} is not in herd/catalogue.json"
            if f.get("item"):
                item = {i["name"]: i for i in ours[f["name"]].get("item", [])}
                for i in f["item"]:
                    assert item.get(i["name"]) == i, f"{cmd}.{f['name']}[].{i['name']}"
            mine = {k: v for k, v in ours[f["name"]].items() if k != "item"}
            assert mine == {k: v for k, v in f.items() if k != "item"}, f"{cmd}.{f['name']}"
        assert BY_NAME[cmd].get("variants") == entry.get("variants"), cmd


def test_spawn_has_team_and_sight() -> None:
    fields = {f["name"]: f for f in BY_NAME["spawn"]["fields"]}
    assert fields["team"]["kind"] == "integer" and (fields["team"]["min"], fields["team"]["max"]) == (0, 63)
    assert fields["sight"]["kind"] == "number" and fields["sight"]["max"] == 100000
    assert "sight" in {i["name"] for i in fields["agents"]["item"]}


@pytest.mark.parametrize("cls", [herd.Client, herd.aio.AsyncClient])
def test_every_command_is_a_method_and_every_method_a_command(cls: type) -> None:
    made = {name for name, fn in vars(herd.commands._Catalogue).items() if inspect.isfunction(fn)}
    assert sorted(made) == sorted(BY_NAME), "the catalogue and the client's methods differ"
    for cmd in BY_NAME:  # the catalogue's method, not one of the client's own of that name
        assert getattr(cls, cmd) is getattr(Commands, cmd), f"{cls.__name__}.{cmd} is shadowed"


def test_type_checkers_see_every_command() -> None:
    """Commands declares each method's name for type checkers (under TYPE_CHECKING): a command
    added to the catalogue is a method at once, and type checkers see it once it is listed
    there."""
    tree = ast.parse(Path(herd.commands.__file__).read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Commands")
    block = next(
        n for n in cls.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"
    )
    declared = [n.name for n in block.body if isinstance(n, ast.FunctionDef)]
    assert sorted(declared) == sorted(BY_NAME), "list the command in herd/commands.py's Commands"


@pytest.mark.parametrize("cmd", sorted(BY_NAME))
def test_each_method_takes_the_commands_fields_as_keywords(cmd: str) -> None:
    params = inspect.signature(getattr(herd.Client, cmd)).parameters
    fields = BY_NAME[cmd].get("fields", [])
    names = [p for p in params if p != "self"]
    assert names == [f["name"] for f in fields]
    for f in fields:
        p = params[f["name"]]
        assert p.kind is inspect.Parameter.KEYWORD_ONLY, f"{cmd}({f['name']}) is not keyword-only"
        required = f["presence"] == "required" and (cmd, f["name"]) not in FILLED_IN
        assert (p.default is inspect.Parameter.empty) == required, f"{cmd}({f['name']})"
        if not required:
            assert p.default is None
    doc = inspect.getdoc(getattr(herd.Client, cmd)) or ""
    first = BY_NAME[cmd]["help"].split()[0]
    assert first.lower() in doc.lower()
    for f in fields:
        assert f"``{f['name']}``" in doc, f"{cmd}'s docstring does not list {f['name']}"
        assert " ".join(f["help"].split()[:3]) in " ".join(doc.split()), f"{cmd}.{f['name']}'s help"


def test_help_lists_spawns_fields() -> None:
    sig = inspect.signature(herd.Client.spawn)
    assert {"count", "agents", "group", "team", "sight"} <= set(sig.parameters)
    bound = inspect.signature(herd.Client.spawn.__get__(object()))  # a bound method: no self
    assert "self" not in bound.parameters and "team" in bound.parameters


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


def test_spawn_sends_team_and_sight() -> None:
    r = Recorder()
    assert r.spawn(count=5, team=1, sight=150) == ("spawn", {"count": 5, "team": 1, "sight": 150})
    agents = [{"x": 1, "y": 2, "sight": 80, "target": (3, 4)}, (5, 6)]
    assert r.spawn(agents=agents, team=2) == (
        "spawn",
        {
            "agents": [{"x": 1, "y": 2, "sight": 80, "target": {"x": 3, "y": 4}}, {"x": 5, "y": 6}],
            "team": 2,
        },
    )


def test_a_team_is_a_selection() -> None:
    r = Recorder()
    assert herd.team(2) == {"team": 2}
    assert r.stop(agents=herd.team(2))[1] == {"agents": {"team": 2}}
    assert r.stop(agents=herd.team(2, group=1, rect=(0, 0, 10, 10)))[1] == {
        "agents": {"team": 2, "group": 1, "rect": {"x0": 0, "y0": 0, "x1": 10, "y1": 10}}
    }
    assert r.stop(agents={"team": 3, "rect": (1, 2, 3, 4)})[1] == {
        "agents": {"team": 3, "rect": {"x0": 1, "y0": 2, "x1": 3, "y1": 4}}
    }


def test_a_field_added_to_the_catalogue_reaches_the_method() -> None:
    document = copy.deepcopy(DOCUMENT)
    spawn = next(c for c in document["commands"] if c["cmd"] == "spawn")
    spawn["fields"].append(
        {"name": "colour", "kind": "string", "presence": "optional", "sample": "red", "help": "paint them"}
    )
    spawn["fields"].append(
        {"name": "rally", "kind": "point", "presence": "optional", "sample": {"x": 1, "y": 2}, "help": "where they gather"}
    )
    document["commands"].append(
        {"cmd": "wave", "help": "wave at them", "fields": [
            {"name": "agents", "kind": "selection", "presence": "required", "sample": "all", "help": "which agents"}
        ]}
    )  # fmt: skip

    class Newer(commands_from(document), Recorder):  # type: ignore[misc]
        pass

    r = Newer()
    assert r.spawn(count=2, colour="red", rally=(5, 6)) == (
        "spawn",
        {"count": 2, "colour": "red", "rally": {"x": 5, "y": 6}},
    )
    assert r.wave(agents=herd.group(1)) == ("wave", {"agents": {"group": 1}})
    params = inspect.signature(Newer.spawn).parameters
    assert params["colour"].kind is inspect.Parameter.KEYWORD_ONLY and params["colour"].default is None
    assert "paint them" in (inspect.getdoc(Newer.spawn) or "")
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        Recorder().spawn(count=2, colour="red")  # the package's catalogue has no colour


def test_a_catalogue_the_client_cannot_express_is_refused() -> None:
    for bad in ("timeout", "seq", "class", "two words"):
        document = {"commands": [{"cmd": "x", "fields": [{"name": bad, "kind": "integer", "presence": "optional"}]}]}
        with pytest.raises(ValueError, match="catalogue"):
            commands_from(document)


def test_the_asyncio_client_gets_an_awaitable_of_the_ack() -> None:
    class AsyncRecorder(Commands[Any]):
        async def command(self, cmd: str, /, **fields: Any) -> Dict[str, Any]:
            return {"type": "ack", "cmd": cmd, **fields}

    pending = AsyncRecorder().spawn(count=1, team=3)
    assert inspect.isawaitable(pending)

    async def ack() -> Any:
        return await pending

    assert asyncio.run(ack()) == {"type": "ack", "cmd": "spawn", "count": 1, "team": 3}
    assert herd.aio.AsyncClient.spawn is herd.Client.spawn


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
    assert r.set_behaviour(agents="all", behaviour="follow_path", path=[(1, 2), (3, 4)])[1]["path"] == [
        {"x": 1, "y": 2},
        {"x": 3, "y": 4},
    ]
    assert r.add_wall(points=((1, 2), (3, 4)), closed=None)[1] == {"points": [{"x": 1, "y": 2}, {"x": 3, "y": 4}]}
    assert r.set_tiles(tiles=[(1, 2, True)])[1] == {"tiles": [{"x": 1, "y": 2, "blocked": True}]}
    assert r.load_map(rows="###\n#.#\n", tile_size=10)[1] == {
        "width": 3,
        "height": 2,
        "tile_size": 10,
        "rows": ["###", "#.#"],
    }


def test_fields_given_as_none_are_left_out() -> None:
    r = Recorder()
    sent = r.set_target(agents="all", target=(1, 2), behaviour=None, queue=None)
    assert sent == ("set_target", {"agents": "all", "target": {"x": 1, "y": 2}})
    assert r.step(ticks=None) == ("step", {})
    assert r.pause() == ("pause", {})


def test_spawn_passes_avoidance_priority_layer_and_mask_through() -> None:
    r = Recorder()
    assert r.spawn(count=3, priority=0, layer=2, mask=5) == (
        "spawn",
        {"count": 3, "priority": 0, "layer": 2, "mask": 5},
    )
    agents = [{"x": 1, "y": 2, "priority": 99, "layer": 4, "mask": 0}]
    assert r.spawn(agents=agents)[1] == {"agents": agents}
    for name in ("priority", "layer", "mask"):
        with pytest.raises(TypeError, match=f"{name} goes with count; give each of agents its own {name}"):
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
    assert r.add_measurement(area=(1, 2, 3, 4))[1] == {"area": {"x": 1, "y": 2, "width": 3, "height": 4}}
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
    with pytest.raises(TypeError, match="exactly one of line, area"):
        r.add_measurement(line=[(0, 0), (1, 1)], area=(0, 0, 1, 1))
    with pytest.raises(ValueError, match="'everyone'"):
        r.stop(agents="everyone")
    with pytest.raises(TypeError, match=r"target must be \(x, y\)"):
        r.set_target(agents="all", target=(1, 2, 3))
    with pytest.raises(TypeError, match=r"points\[1\] must be \(x, y\)"):
        r.patrol(agents="all", points=[(1, 2), (1, 2, 3)])
    with pytest.raises(TypeError, match=r"tiles\[0\] must be \(x, y, blocked\)"):
        r.set_tiles(tiles=[(1, 2)])
    with pytest.raises(TypeError, match="at least one of"):
        r.set_avoidance()
    with pytest.raises(TypeError, match="spawn\\(\\) got an unexpected keyword argument 'colour'"):
        r.spawn(count=1, colour="red")
    with pytest.raises(TypeError, match="stop\\(\\) missing 1 required keyword-only argument: 'agents'"):
        r.stop()
    with pytest.raises(TypeError, match="missing 2 required keyword-only arguments: 'x' and 'radius'"):
        r.add_obstacle(y=1)
    with pytest.raises(TypeError, match="positional"):
        r.stop("all")  # type: ignore[call-arg]


def test_the_variant_a_field_picks_decides_the_others() -> None:
    r = Recorder()
    with pytest.raises(TypeError, match="takes exactly one of target, target_tile, agent"):
        r.set_behaviour(agents="all", behaviour="seek", target=(1, 2), agent=3)
    with pytest.raises(TypeError, match="target does not go with behaviour='pursue'"):
        r.set_behaviour(agents="all", behaviour="pursue", agent=3, target=(1, 2))
    with pytest.raises(TypeError, match="with behaviour='react' needs agent, radius"):
        r.set_behaviour(agents="all", behaviour="react")
    with pytest.raises(TypeError, match="with spread='formation' needs shape"):
        r.set_target(agents="all", target=(1, 2), spread="formation")
    assert r.set_behaviour(agents="all", behaviour="hold")[1] == {"agents": "all", "behaviour": "hold"}
    assert r.set_behaviour(agents="all", behaviour="sidle")[1]["behaviour"] == "sidle"  # the server's to refuse
