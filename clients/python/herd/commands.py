"""One method per command of the protocol, made from the command catalogue and shared by the
synchronous and the asyncio client.

The catalogue (``herd/catalogue.json``, the build's copy of clients/web/commands.json, which the
C++ tests hold to the server's codec) describes every ``cmd`` of protocol/PROTOCOL.md's command
message: each field's kind, presence, range, choices, default and help. Each command becomes a
method taking exactly its fields as keyword arguments, named as on the wire (its signature and
docstring list them); a field added to the catalogue is a keyword argument at once.

A method leaves out the fields that are ``None``, refuses unknown ones and those the catalogue's
presence rules forbid (:class:`TypeError`, before anything is sent), writes each field by its kind
and sends the command through ``self.command``: the synchronous client returns the ``ack``, the
asyncio client an awaitable of it. A refused command raises :class:`herd.CommandError`. Points
(and tiles) may be given as ``{"x": .., "y": ..}`` or ``(x, y)``; areas as ``(x, y, width,
height)``; items of a list as a dict or a tuple of the item's required fields (tiles ``(x, y,
blocked)``); selections as ``"all"``, agent ids, :func:`group`, :func:`rect`, :func:`team` or the
protocol's dict. :func:`commands_from` makes the methods of another catalogue.
"""

from __future__ import annotations

import inspect
import json
import keyword
import math
import textwrap
from importlib import resources
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Generic,
    Iterable,
    List,
    Literal,
    Mapping,
    Optional,
    Sequence,
    Set,
    TypeVar,
    Union,
)

__all__ = [
    "CATALOGUE",
    "Commands",
    "Point",
    "Selection",
    "Area",
    "check_finite",
    "commands_from",
    "group",
    "load_catalogue",
    "point",
    "rect",
    "selection",
    "team",
]

Point = Union[Mapping[str, float], Sequence[float]]
Selection = Union[str, int, Iterable[int], Mapping[str, Any]]
Area = Union[Mapping[str, float], Sequence[float]]

R = TypeVar("R")


# ---- selections, points and the other shapes of the wire -----------------------------------


def group(g: int, rect: Optional[Sequence[float]] = None) -> Dict[str, Any]:
    """The selection of group ``g`` (and, given ``rect=(x0, y0, x1, y1)``, only those inside)."""
    out: Dict[str, Any] = {"group": g}
    if rect is not None:
        out["rect"] = _rect(rect)
    return out


def rect(x0: float, y0: float, x1: float, y1: float) -> Dict[str, Any]:
    """The selection of the agents whose centre is inside the rectangle."""
    return {"rect": _rect((x0, y0, x1, y1))}


def team(
    t: int, group: Optional[int] = None, rect: Optional[Sequence[float]] = None
) -> Dict[str, Any]:
    """The selection of team ``t``'s agents (and, given ``group`` or ``rect=(x0, y0, x1, y1)``,
    only those of that group or inside)."""
    out: Dict[str, Any] = {"team": t}
    if group is not None:
        out["group"] = group
    if rect is not None:
        out["rect"] = _rect(rect)
    return out


def _rect(v: Any) -> Dict[str, float]:
    if isinstance(v, Mapping):
        return dict(v)
    if isinstance(v, (str, bytes)) or not isinstance(v, Sequence) or len(v) != 4:
        raise TypeError(f"a rectangle is (x0, y0, x1, y1) or a dict of those keys, not {v!r}")
    return dict(zip(("x0", "y0", "x1", "y1"), v))


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def point(v: Point, name: str = "point") -> Dict[str, Any]:
    """``(x, y)`` or ``{"x": x, "y": y}`` as the protocol's point (a tile likewise)."""
    if isinstance(v, Mapping):
        return dict(v)
    if (
        isinstance(v, Sequence)
        and not isinstance(v, (str, bytes))
        and len(v) == 2
        and all(_is_number(c) for c in v)
    ):
        return {"x": v[0], "y": v[1]}
    raise TypeError(f"{name} must be (x, y) or {{'x': x, 'y': y}}, not {v!r}")


def selection(v: Selection, name: str = "agents") -> Any:
    """Which agents, as the protocol writes it.

    ``"all"``; an agent id or an iterable of them; :func:`group`, :func:`rect` or :func:`team`;
    or the dict itself (``{"group": g}``, ``{"rect": {...}}``, ``{"team": t}``, or several keys).
    """
    if isinstance(v, str):
        if v != "all":
            raise ValueError(f"{name}: the only named selection is 'all', not {v!r}")
        return v
    if isinstance(v, Mapping):
        out = dict(v)
        if "rect" in out:
            out["rect"] = _rect(out["rect"])
        return out
    if isinstance(v, int) and not isinstance(v, bool):
        return [v]
    if isinstance(v, Iterable):
        ids = list(v)
        if not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
            raise TypeError(f"{name}: agent ids are integers, not {ids!r}")
        return ids
    raise TypeError(
        f"{name} must be 'all', agent ids, herd.group(g), herd.rect(x0, y0, x1, y1) or "
        f"herd.team(t), not {v!r}"
    )


def _area(v: Any, name: str) -> Dict[str, Any]:
    """``{"x", "y", "width", "height"}`` or ``(x, y, width, height)`` as the protocol's area."""
    if isinstance(v, Mapping):
        return dict(v)
    if isinstance(v, Sequence) and not isinstance(v, (str, bytes)) and len(v) == 4:
        return dict(zip(("x", "y", "width", "height"), v))
    raise TypeError(f"{name} must be (x, y, width, height) or a dict of those keys, not {v!r}")


def _rows(v: Any, name: str) -> List[str]:
    """A tile map's rows: a list of strings, or one string of lines (blank lines left out)."""
    if isinstance(v, str):
        return [line for line in v.splitlines() if line.strip()]
    if isinstance(v, (bytes, Mapping)) or not isinstance(v, Iterable):
        raise TypeError(f"{name} must be a list of strings or a string of lines, not {v!r}")
    return list(v)


def _list(item: Sequence[Mapping[str, Any]], v: Any, name: str) -> List[Any]:
    if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, Iterable):
        raise TypeError(f"{name} must be a list, not {v!r}")
    return [_item(item, x, f"{name}[{i}]") for i, x in enumerate(v)]


def _item(item: Sequence[Mapping[str, Any]], v: Any, name: str) -> Dict[str, Any]:
    """One item of a list field: a dict (its known fields written by their kind, the others as
    given) or a tuple of the item's required fields in order."""
    if isinstance(v, Mapping):
        out = dict(v)
        for f in item:
            if out.get(f["name"]) is not None:
                out[f["name"]] = _convert(f, out[f["name"]], f"{name}.{f['name']}")
        return out
    required = [f for f in item if f.get("presence") == "required"]
    if required and isinstance(v, Sequence) and not isinstance(v, (str, bytes)) and len(v) == len(required):
        return {f["name"]: _convert(f, x, f"{name}.{f['name']}") for f, x in zip(required, v)}
    shape = ", ".join(f["name"] for f in required)
    more = " and optional ones" if len(required) < len(item) else ""
    raise TypeError(f"{name} must be ({shape}) or a dict of those keys{more}, not {v!r}")


def _convert(field: Mapping[str, Any], v: Any, name: str) -> Any:
    """A field's value as the wire wants it, by the field's kind (other kinds: as given)."""
    kind = field.get("kind")
    if kind == "selection":
        return selection(v, name)
    if kind in ("point", "tile"):
        return point(v, name)
    if kind == "area":
        return _area(v, name)
    if kind == "rows":
        return _rows(v, name)
    if kind == "list":
        return _list(field.get("item") or [], v, name)
    return v


def check_finite(value: Any, where: str = "") -> None:
    """Raises ValueError naming the field for a NaN or infinite number (the wire takes finite
    numbers only; JSON has no other)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where or 'a number'} must be finite, not {value!r}")
    if isinstance(value, Mapping):
        for k, v in value.items():
            check_finite(v, f"{where}.{k}" if where else str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            check_finite(v, f"{where}[{i}]")


# ---- the catalogue --------------------------------------------------------------------------


def load_catalogue(path: Union[str, Path, None] = None) -> Dict[str, Any]:
    """The command catalogue: the package's ``catalogue.json``, or the file at ``path`` (a
    clients/web/commands.json, say, of another server)."""
    if path is not None:
        document: Dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
        return document
    where = resources.files(__package__ or "herd").joinpath("catalogue.json")
    try:
        text = where.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(
            f"herd's command catalogue {where} is missing (the build copies it from "
            "clients/web/commands.json)"
        ) from None
    document = json.loads(text)
    return document


CATALOGUE: Dict[str, Any] = load_catalogue()
"""The package's command catalogue, as loaded at import (the methods of :class:`Commands`)."""

# Names a field cannot take: the method's own, the message's, and command()'s timeout.
_RESERVED = frozenset({"self", "type", "seq", "cmd", "timeout"})

# A command with a rows field (load_map) fills these in from the rows when they are not given.
_FROM_ROWS: Dict[str, Callable[[List[str]], int]] = {
    "width": lambda rows: len(rows[0]) if rows else 0,
    "height": len,
}

_PRESENCE_GROUPS = ("exactly_one", "at_most_one", "at_least_one")

# What the catalogue does not say: what the ack carries, and a few words of the client's.
_NOTES = {
    "set_target": "The ack's ``count``: how many agents received it.",
    "spawn": "The ack's ``agents``: the new ids.",
    "add_obstacle": "The ack's ``obstacle``: its id.",
    "add_wall": "The ack's ``wall``: its id.",
    "add_measurement": "The ack's ``measurement``: its id; snapshots report it once a second in "
    "``measurements``.",
    "add_source": "The ack's ``source``: its id; snapshots' ``sources`` count what it made.",
    "add_exit": "The ack's ``exit``: its id; snapshots' ``exits`` count who left.",
    "set_tiles": "The ack's ``count``: how many tiles changed.",
    "formation": "The ack's ``formation``: its id, which snapshots report while it has members.",
    "pause": "No snapshots until ``step`` or ``resume``.",
    "kick": "Closes the session (its welcome's ``session``; ``sessions()`` lists them) with close "
    "code 4000.",
}


def _check_name(name: Any, what: str) -> None:
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"catalogue: {what} {name!r} is not a Python name")


def _annotation(field: Mapping[str, Any]) -> Any:
    kind = field.get("kind")
    if kind == "selection":
        return Selection
    if kind in ("point", "tile"):
        return Point
    if kind == "area":
        return Area
    if kind == "rows":
        return Union[str, Sequence[str]]
    if kind == "list":
        names = [f.get("name") for f in field.get("item") or []]
        return Iterable[Point] if names == ["x", "y"] else Iterable[Union[Mapping[str, Any], Sequence[Any]]]
    if kind in ("integer", "agent", "obstacle"):
        return int
    if kind == "number":
        return float
    if kind == "boolean":
        return bool
    if kind == "string":
        return str
    if kind == "enum" and field.get("choices"):
        return Literal[tuple(field["choices"])]
    return Any


def _or(words: Sequence[str], last: str = "or") -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {last} {words[-1]}"


def _describe(field: Mapping[str, Any], groups: Mapping[str, List[str]], filled: bool) -> str:
    """A field's line of the docstring: its kind, range, presence and default, then its help."""
    kind = field.get("kind", "?")
    what = kind
    lo, hi = field.get("min"), field.get("max")
    if kind == "enum" and field.get("choices"):
        what = "one of " + ", ".join(json.dumps(c) for c in field["choices"])
    elif kind == "list":
        what = f"list of {field.get('min_items', 0)} to {field.get('max_items', '...')}"
    elif kind == "string" and field.get("choices_from"):
        what = f"string, one of the welcome's {field['choices_from']}"
    elif lo is not None and hi is not None:
        what = f"{kind} in {'(' if field.get('min_exclusive') else '['}{lo}, {hi}]"
    elif lo is not None:
        what = f"{kind} {'>' if field.get('min_exclusive') else '>='} {lo}"
    presence = field.get("presence", "optional")
    if presence in groups:
        presence = presence.replace("_", " ") + " of " + ", ".join(groups[presence])
    parts = [what, "required, filled in from rows when left out" if filled else presence]
    if "default" in field:
        parts.append(f"default {json.dumps(field['default'])}")
    if field.get("with"):
        parts.append(f"with {field['with']}")
    return f"``{field['name']}`` ({'; '.join(parts)}): {field.get('help', '')}"


_WIDTH = 96  # the docstrings' lines


def _bullet(text: str, indent: str = "") -> str:
    return textwrap.fill(text, _WIDTH, initial_indent=indent + "- ", subsequent_indent=indent + "  ")


def _docstring(entry: Mapping[str, Any], groups: Mapping[str, List[str]], filled: Iterable[str]) -> str:
    cmd = entry["cmd"]
    text = str(entry.get("help", cmd))
    lines = [textwrap.fill(text[:1].upper() + text[1:] + ("" if text.endswith(".") else "."), _WIDTH), ""]
    lines.append(
        textwrap.fill(
            f"Sends ``{cmd}`` and returns its ack (herd.aio: an awaitable of it), or raises "
            "herd.CommandError." + (f" {_NOTES[cmd]}" if cmd in _NOTES else ""),
            _WIDTH,
        )
    )
    fields = entry.get("fields") or []
    if fields:
        lines += ["", "Fields, named as on the wire (None leaves one out):", ""]
        for f in fields:
            lines.append(_bullet(_describe(f, groups, f["name"] in filled)))
            for i in f.get("item") or []:
                lines.append(_bullet(_describe(i, {}, False), "    "))
    variants = entry.get("variants")
    if variants:
        lines += ["", f"By ``{variants['field']}``:", ""]
        for case in variants.get("cases", []):
            takes = ", ".join(
                n if p == "optional" else f"{n} ({p.replace('_', ' ')})"
                for n, p in case.get("fields", {}).items()
            )
            lines.append(
                _bullet(
                    f"``{json.dumps(case['value'])}``: {case.get('help', '')}"
                    + (f" (takes {takes})" if takes else "")
                )
            )
    return "\n".join(lines)


def _missing(cmd: str, names: List[str]) -> TypeError:
    quoted = [repr(n) for n in names]
    if len(quoted) > 2:
        listed = ", ".join(quoted[:-1]) + ", and " + quoted[-1]
    else:
        listed = " and ".join(quoted)
    s = "s" if len(names) > 1 else ""
    return TypeError(f"{cmd}() missing {len(names)} required keyword-only argument{s}: {listed}")


def _check_groups(cmd: str, groups: Mapping[str, List[str]], given: Mapping[str, Any], how: str = "") -> None:
    for presence, names in groups.items():
        have = [n for n in names if n in given]
        if presence == "exactly_one" and len(have) != 1:
            raise TypeError(
                f"{cmd}(){how} takes exactly one of {', '.join(names)} (given: {', '.join(have) or 'none'})"
            )
        if presence == "at_most_one" and len(have) > 1:
            raise TypeError(
                f"{cmd}(){how} takes at most one of {', '.join(names)} (given: {', '.join(have)})"
            )
        if presence == "at_least_one" and not have:
            raise TypeError(f"{cmd}(){how} needs at least one of {', '.join(names)}")


def _grouped(presences: Iterable[Any]) -> Dict[str, List[str]]:
    out: Dict[str, List[str]] = {}
    for name, presence in presences:
        if presence in _PRESENCE_GROUPS:
            out.setdefault(presence, []).append(name)
    return out


def _method(entry: Mapping[str, Any], owner: str) -> Callable[..., Any]:
    """The method of one command of the catalogue."""
    cmd = entry["cmd"]
    _check_name(cmd, "the command")
    fields: List[Mapping[str, Any]] = list(entry.get("fields") or [])
    by_name: Dict[str, Mapping[str, Any]] = {}
    for f in fields:
        _check_name(f.get("name"), f"{cmd}'s field")
        if f["name"] in _RESERVED:
            raise ValueError(f"catalogue: {cmd}'s field {f['name']!r} clashes with the client's own")
        if f["name"] in by_name:
            raise ValueError(f"catalogue: {cmd} has two fields {f['name']!r}")
        by_name[f["name"]] = f
    rows = next((f["name"] for f in fields if f.get("kind") == "rows"), None)
    filled = [
        f["name"] for f in fields if rows and f["name"] in _FROM_ROWS and f.get("kind") == "integer"
    ]
    required = [f["name"] for f in fields if f.get("presence") == "required" and f["name"] not in filled]
    groups = _grouped((f["name"], f.get("presence")) for f in fields)
    companions = {f["name"]: f["with"] for f in fields if f.get("with")}
    variants = entry.get("variants") or None
    cases: Dict[Any, Mapping[str, str]] = {}
    varying: Set[str] = set()
    if variants:
        cases = {c["value"]: c.get("fields", {}) for c in variants.get("cases", [])}
        varying = {n for case in cases.values() for n in case}

    def check(given: Dict[str, Any]) -> None:
        missing = [n for n in required if n not in given]
        if missing:
            raise _missing(cmd, missing)
        _check_groups(cmd, groups, given)
        for name, other in companions.items():
            if name in given and other not in given:
                lists = [
                    n for n in given if any(i.get("name") == name for i in by_name[n].get("item") or [])
                ]
                hint = f"; give each of {lists[0]} its own {name}" if lists else ""
                raise TypeError(f"{cmd}(): {name} goes with {other}{hint}")
        if variants and variants["field"] in given:
            value = given[variants["field"]]
            case = cases.get(value) if isinstance(value, (str, int)) else None
            if case is None:
                return  # not one of the cases: the server names the valid ones
            how = f" with {variants['field']}={value!r}"
            for name in given:
                if name in varying and name not in case:
                    raise TypeError(f"{cmd}(): {name} does not go{how}")
            missing = [n for n, p in case.items() if p == "required" and n not in given]
            if missing:
                raise TypeError(f"{cmd}(){how} needs {', '.join(missing)}")
            _check_groups(cmd, _grouped(case.items()), given, how)

    def method(self: Any, /, **kwargs: Any) -> Any:
        for name in kwargs:
            if name not in by_name:
                raise TypeError(f"{cmd}() got an unexpected keyword argument {name!r}")
        given = {n: kwargs[n] for n in by_name if kwargs.get(n) is not None}
        check(given)
        wire = {n: _convert(by_name[n], v, n) for n, v in given.items()}
        for name in filled:
            if name not in wire:
                wire[name] = _FROM_ROWS[name](wire[rows])  # type: ignore[index]
        return self.command(cmd, **{n: wire[n] for n in by_name if n in wire})

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for f in fields:
        needed = f["name"] in required
        annotation = _annotation(f)
        params.append(
            inspect.Parameter(
                f["name"],
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if needed else None,
                annotation=annotation if needed else Optional[annotation],
            )
        )
    method.__name__ = cmd
    method.__qualname__ = f"{owner}.{cmd}"
    method.__module__ = __name__
    method.__doc__ = _docstring(entry, groups, filled)
    method.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    return method


def commands_from(catalogue: Union[Mapping[str, Any], Iterable[Mapping[str, Any]]], name: str = "Catalogue") -> type:
    """A class whose methods are the commands of ``catalogue`` (a document like
    clients/web/commands.json, or its ``commands`` list), to mix in before a class that provides
    ``command(cmd, **fields)``: ``class MyClient(commands_from(doc), herd.Client): ...``."""
    entries = catalogue["commands"] if isinstance(catalogue, Mapping) else catalogue
    namespace: Dict[str, Any] = {
        "__doc__": "The commands of a catalogue, one method each (made by herd.commands.commands_from).",
        "__module__": __name__,
        "__slots__": (),
    }
    for entry in entries:
        if entry["cmd"] in namespace:
            raise ValueError(f"catalogue: two commands {entry['cmd']!r}")
        namespace[entry["cmd"]] = _method(entry, name)
    return type(name, (), namespace)


if TYPE_CHECKING:
    _Catalogue = object
else:
    _Catalogue = commands_from(CATALOGUE)


class Commands(_Catalogue, Generic[R]):
    """Every command of the protocol as a method, made from :data:`CATALOGUE` (keyword arguments
    named as on the wire; ``help(herd.Client.spawn)`` lists them). Subclasses provide
    :meth:`command`."""

    def command(self, cmd: str, /, **fields: Any) -> R:  # pragma: no cover - overridden
        raise NotImplementedError

    if TYPE_CHECKING:
        # Type checkers do not read the catalogue: they see each command's name, taking any
        # field (the methods made at import take exactly the catalogue's; tests/test_commands.py
        # holds these names to it).
        def set_target(self, **fields: Any) -> R: ...
        def attack_move(self, **fields: Any) -> R: ...
        def patrol(self, **fields: Any) -> R: ...
        def stop(self, **fields: Any) -> R: ...
        def spawn(self, **fields: Any) -> R: ...
        def set_behaviour(self, **fields: Any) -> R: ...
        def set_movement(self, **fields: Any) -> R: ...
        def add_obstacle(self, **fields: Any) -> R: ...
        def remove_obstacle(self, **fields: Any) -> R: ...
        def add_wall(self, **fields: Any) -> R: ...
        def remove_wall(self, **fields: Any) -> R: ...
        def add_measurement(self, **fields: Any) -> R: ...
        def remove_measurement(self, **fields: Any) -> R: ...
        def add_source(self, **fields: Any) -> R: ...
        def remove_source(self, **fields: Any) -> R: ...
        def add_exit(self, **fields: Any) -> R: ...
        def remove_exit(self, **fields: Any) -> R: ...
        def set_avoidance(self, **fields: Any) -> R: ...
        def load_map(self, **fields: Any) -> R: ...
        def clear_map(self, **fields: Any) -> R: ...
        def set_tiles(self, **fields: Any) -> R: ...
        def set_pathing(self, **fields: Any) -> R: ...
        def set_group(self, **fields: Any) -> R: ...
        def formation(self, **fields: Any) -> R: ...
        def swap_places(self, **fields: Any) -> R: ...
        def opposite(self, **fields: Any) -> R: ...
        def exchange(self, **fields: Any) -> R: ...
        def invert(self, **fields: Any) -> R: ...
        def remove(self, **fields: Any) -> R: ...
        def pause(self, **fields: Any) -> R: ...
        def resume(self, **fields: Any) -> R: ...
        def step(self, **fields: Any) -> R: ...
        def reset(self, **fields: Any) -> R: ...
        def load_scenario(self, **fields: Any) -> R: ...
        def set_param(self, **fields: Any) -> R: ...
        def kick(self, **fields: Any) -> R: ...
