"""One method per command of the protocol, shared by the synchronous and the asyncio client.

Each method takes the command's fields as keyword arguments, named as on the wire
(protocol/PROTOCOL.md, "command"; clients/web/commands.json describes each field), leaves out
those that are ``None``, and sends the command through ``self.command``: the synchronous client
returns the ``ack``, the asyncio client an awaitable of it. A refused command raises
:class:`herd.CommandError`. Points may be given as ``{"x": .., "y": ..}`` or ``(x, y)``;
selections as ``"all"``, agent ids, :func:`group`, :func:`rect` or the protocol's dict.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Generic, Iterable, List, Mapping, Optional, Sequence, TypeVar, Union

__all__ = ["Commands", "Point", "Selection", "group", "rect", "point", "selection"]

Point = Union[Mapping[str, float], Sequence[float]]
Selection = Union[str, int, Iterable[int], Mapping[str, Any]]

R = TypeVar("R")


def group(g: int, rect: Optional[Sequence[float]] = None) -> Dict[str, Any]:
    """The selection of group ``g`` (and, given ``rect=(x0, y0, x1, y1)``, only those inside)."""
    out: Dict[str, Any] = {"group": g}
    if rect is not None:
        out["rect"] = _rect(rect)
    return out


def rect(x0: float, y0: float, x1: float, y1: float) -> Dict[str, Any]:
    """The selection of the agents whose centre is inside the rectangle."""
    return {"rect": _rect((x0, y0, x1, y1))}


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

    ``"all"``; an agent id or an iterable of them; :func:`group` or :func:`rect`; or the dict
    itself (``{"group": g}``, ``{"rect": {...}}``, both keys).
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
        f"{name} must be 'all', agent ids, herd.group(g) or herd.rect(x0, y0, x1, y1), not {v!r}"
    )


def _given(fields: Dict[str, Any]) -> List[str]:
    return [k for k, v in fields.items() if v is not None]


def _exactly_one(cmd: str, **fields: Any) -> None:
    given = _given(fields)
    if len(given) != 1:
        names = ", ".join(fields)
        have = ", ".join(given) or "none"
        raise TypeError(f"{cmd}() takes exactly one of {names} (given: {have})")


def _at_most_one(cmd: str, **fields: Any) -> None:
    given = _given(fields)
    if len(given) > 1:
        raise TypeError(f"{cmd}() takes at most one of {', '.join(fields)} (given: {', '.join(given)})")


def _at_least_one(cmd: str, **fields: Any) -> None:
    if not _given(fields):
        raise TypeError(f"{cmd}() needs at least one of {', '.join(fields)}")


def _opt(convert: Any, v: Any, name: str) -> Any:
    return None if v is None else convert(v, name)


def _points(v: Iterable[Point], name: str) -> List[Dict[str, Any]]:
    return [point(p, f"{name}[{i}]") for i, p in enumerate(v)]


def _spawned(v: Iterable[Mapping[str, Any]], name: str) -> List[Dict[str, Any]]:
    out = []
    for i, a in enumerate(v):
        if not isinstance(a, Mapping):
            raise TypeError(f"{name}[{i}] must be a dict with x and y, not {a!r}")
        a = dict(a)
        if a.get("target") is not None:
            a["target"] = point(a["target"], f"{name}[{i}].target")
        out.append(a)
    return out


def _area(v: Any, name: str) -> Dict[str, Any]:
    """``{"x", "y", "width", "height"}`` or ``(x, y, width, height)`` as the protocol's area."""
    if isinstance(v, Mapping):
        return dict(v)
    if isinstance(v, Sequence) and not isinstance(v, (str, bytes)) and len(v) == 4:
        return dict(zip(("x", "y", "width", "height"), v))
    raise TypeError(f"{name} must be (x, y, width, height) or a dict of those keys, not {v!r}")


def _tiles(v: Iterable[Any], name: str) -> List[Dict[str, Any]]:
    out = []
    for i, t in enumerate(v):
        if isinstance(t, Mapping):
            out.append(dict(t))
        elif isinstance(t, Sequence) and len(t) == 3:
            out.append({"x": t[0], "y": t[1], "blocked": t[2]})
        else:
            raise TypeError(f"{name}[{i}] must be (x, y, blocked) or a dict of those, not {t!r}")
    return out


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


class Commands(Generic[R]):
    """Every command of the protocol as a method. Subclasses provide :meth:`command`."""

    def command(self, cmd: str, /, **fields: Any) -> R:  # pragma: no cover - overridden
        raise NotImplementedError

    # ---- orders to a point ----------------------------------------------------------------

    def set_target(
        self,
        *,
        agents: Selection,
        target: Optional[Point] = None,
        target_tile: Optional[Point] = None,
        behaviour: Optional[str] = None,
        spread: Optional[str] = None,
        shape: Optional[str] = None,
        spacing: Optional[float] = None,
        queue: Optional[bool] = None,
    ) -> R:
        """Sends agents towards a point (``target``, or the centre of ``target_tile``).

        ``behaviour``: ``"arrive"`` (stops there, the default) or ``"seek"`` (circles it).
        ``spread``: ``"keep"`` (each keeps its offset from the group's centre), ``"point"`` (all
        to the point, settling where they touch) or ``"formation"`` (then ``shape``: circle,
        line, lines, block, wedge). ``spacing``: units between neighbours. ``queue=True``: after
        the agents' current orders. The ack's ``count``: how many agents received it.
        """
        _exactly_one("set_target", target=target, target_tile=target_tile)
        return self.command(
            "set_target",
            agents=selection(agents),
            target=_opt(point, target, "target"),
            target_tile=_opt(point, target_tile, "target_tile"),
            behaviour=behaviour,
            spread=spread,
            shape=shape,
            spacing=spacing,
            queue=queue,
        )

    def attack_move(
        self,
        *,
        agents: Selection,
        target: Optional[Point] = None,
        target_tile: Optional[Point] = None,
        spread: Optional[str] = None,
        queue: Optional[bool] = None,
        radius: Optional[float] = None,
    ) -> R:
        """Sends agents to a point, engaging enemies (agents of other groups) that come within
        ``radius`` (their sight, default 200) on the way."""
        _exactly_one("attack_move", target=target, target_tile=target_tile)
        return self.command(
            "attack_move",
            agents=selection(agents),
            target=_opt(point, target, "target"),
            target_tile=_opt(point, target_tile, "target_tile"),
            spread=spread,
            queue=queue,
            radius=radius,
        )

    def patrol(
        self,
        *,
        agents: Selection,
        target: Optional[Point] = None,
        target_tile: Optional[Point] = None,
        points: Optional[Iterable[Point]] = None,
        spread: Optional[str] = None,
        queue: Optional[bool] = None,
    ) -> R:
        """Agents go from where each is through the point (or the route ``points``, 1 to 64)
        and back, round and round until given another order."""
        _exactly_one("patrol", target=target, target_tile=target_tile, points=points)
        return self.command(
            "patrol",
            agents=selection(agents),
            target=_opt(point, target, "target"),
            target_tile=_opt(point, target_tile, "target_tile"),
            points=_opt(_points, points, "points"),
            spread=spread,
            queue=queue,
        )

    def stop(self, *, agents: Selection) -> R:
        """Agents brake to a stop where they are and forget their queued orders and routes."""
        return self.command("stop", agents=selection(agents))

    # ---- agents ---------------------------------------------------------------------------

    def spawn(
        self,
        *,
        count: Optional[int] = None,
        agents: Optional[Iterable[Mapping[str, Any]]] = None,
        group: Optional[int] = None,
        priority: Optional[int] = None,
        layer: Optional[int] = None,
        mask: Optional[int] = None,
    ) -> R:
        """Adds agents: ``count`` of them at random places (in ``group``, with avoidance
        ``priority``, ``layer`` and ``mask``), or ``agents``, a list of dicts ``{"x", "y"}`` with
        optional ``group``, ``radius``, ``max_speed``, ``max_force``, ``mass``, ``target``,
        ``movement``, ``priority`` (0, the most important, to 99; default 50), ``layer`` and
        ``mask`` (uint32 bit sets: an agent avoids those whose layer shares a bit with its mask).
        The ack's ``agents``: the new ids."""
        _exactly_one("spawn", count=count, agents=agents)
        per_count = {"group": group, "priority": priority, "layer": layer, "mask": mask}
        for name, value in per_count.items():
            if value is not None and count is None:
                raise TypeError(
                    f"spawn(): {name} goes with count; give each of agents its own {name}"
                )
        return self.command(
            "spawn",
            count=count,
            agents=_opt(_spawned, agents, "agents"),
            group=group,
            priority=priority,
            layer=layer,
            mask=mask,
        )

    def remove(self, *, agents: Selection) -> R:
        """Removes agents from the world (their ids are never given out again)."""
        return self.command("remove", agents=selection(agents))

    def set_behaviour(
        self,
        *,
        agents: Selection,
        behaviour: str,
        target: Optional[Point] = None,
        target_tile: Optional[Point] = None,
        agent: Optional[int] = None,
        radius: Optional[float] = None,
        response: Optional[str] = None,
        distance: Optional[float] = None,
        jitter: Optional[float] = None,
        separation: Optional[float] = None,
        alignment: Optional[float] = None,
        cohesion: Optional[float] = None,
        path: Optional[Sequence[Point]] = None,
        loop: Optional[bool] = None,
        offset: Optional[Point] = None,
    ) -> R:
        """Gives agents a behaviour, replacing what they were doing.

        ``behaviour``: idle, hold, seek, arrive, flee, pursue, evade, attack, react, patrol,
        attack_move, wander, flock, follow_path, follow or queue; each takes a point (``target``
        or ``target_tile``) or another ``agent`` as protocol/PROTOCOL.md's table says, and flee,
        evade, react, attack_move, wander, flock and follow_path a ``radius``; react a
        ``response`` (``"pursue"`` or ``"evade"``); wander ``distance`` and ``jitter``; flock the
        weights ``separation``, ``alignment`` and ``cohesion``; follow_path a ``path`` (points in
        order) and ``loop``; follow (``agent``: the leader) an ``offset`` in the leader's frame.
        """
        _at_most_one("set_behaviour", target=target, target_tile=target_tile, agent=agent)
        return self.command(
            "set_behaviour",
            agents=selection(agents),
            behaviour=behaviour,
            target=_opt(point, target, "target"),
            target_tile=_opt(point, target_tile, "target_tile"),
            agent=agent,
            radius=radius,
            response=response,
            distance=distance,
            jitter=jitter,
            separation=separation,
            alignment=alignment,
            cohesion=cohesion,
            path=None if path is None else [point(p) for p in path],
            loop=loop,
            offset=_opt(point, offset, "offset"),
        )

    def set_movement(self, *, agents: Selection, movement: str) -> R:
        """How steering moves agents: ``"inertial"`` (a force on momentum) or ``"kinematic"``
        (the heading follows at once, only the speed changes gradually)."""
        return self.command("set_movement", agents=selection(agents), movement=movement)

    def set_group(self, *, agents: Selection, group: int) -> R:
        """Puts agents in another group (0 to 255)."""
        return self.command("set_group", agents=selection(agents), group=group)

    # ---- obstacles and avoidance ----------------------------------------------------------

    def add_obstacle(self, *, x: float, y: float, radius: float) -> R:
        """Places a static circular obstacle. The ack's ``obstacle``: its id."""
        return self.command("add_obstacle", x=x, y=y, radius=radius)

    def remove_obstacle(self, *, id: int) -> R:  # noqa: A002 - the wire's name
        """Removes a static obstacle by id."""
        return self.command("remove_obstacle", id=id)

    # ---- walls ------------------------------------------------------------------------------

    def add_wall(self, *, points: Sequence[Point], closed: Optional[bool] = None) -> R:
        """A static wall through ``points`` (2 to 256): a segment, an open polyline, or with
        ``closed`` a polygon (3 or more; the last point joins the first). No agent's centre ever
        crosses it. The ack's ``wall``: its id."""
        fields: Dict[str, Any] = {"points": [point(p, "points") for p in points]}
        if closed is not None:
            fields["closed"] = closed
        return self.command("add_wall", **fields)

    def remove_wall(self, *, wall: int) -> R:
        """Removes a wall by id."""
        return self.command("remove_wall", wall=wall)

    # ---- measurements -----------------------------------------------------------------------

    def add_measurement(
        self,
        *,
        line: Optional[Sequence[Point]] = None,
        area: Optional[Mapping[str, float]] = None,
    ) -> R:
        """A measurement line (two points: agents crossing it each way, flow, time gaps) or area
        (``{"x", "y", "width", "height"}``: count, density, mean speed), reported once a second in
        snapshots' ``measurements``. The ack's ``measurement``: its id."""
        fields: Dict[str, Any] = {}
        if line is not None:
            fields["line"] = [point(p) for p in line]
        if area is not None:
            fields["area"] = dict(area)
        return self.command("add_measurement", **fields)

    def remove_measurement(self, *, id: int) -> R:  # noqa: A002 - the wire's name
        """Removes a measurement line or area by id."""
        return self.command("remove_measurement", id=id)

    # ---- sources and exits ------------------------------------------------------------------

    def add_source(
        self,
        *,
        area: Union[Mapping[str, float], Sequence[float]],
        rate: float,
        total: int,
        behaviour: Optional[str] = None,
        target: Optional[Point] = None,
        group: Optional[int] = None,
        radius: Optional[float] = None,
        max_speed: Optional[float] = None,
        max_force: Optional[float] = None,
        mass: Optional[float] = None,
        movement: Optional[str] = None,
        pathing: Optional[str] = None,
        neighbours: Optional[int] = None,
        priority: Optional[int] = None,
        layer: Optional[int] = None,
        mask: Optional[int] = None,
    ) -> R:
        """A source: ``area`` (``{"x", "y", "width", "height"}`` or ``(x, y, width, height)``)
        spawns ``rate`` agents a second, ``total`` in all, each with the spawn fields given and
        ``behaviour`` towards ``target`` (arrive when only a target is given, idle without one);
        ``pathing`` on a tile map. Counts in snapshots' ``sources``. The ack's ``source``: its id."""
        return self.command(
            "add_source",
            area=_area(area, "area"),
            rate=rate,
            total=total,
            behaviour=behaviour,
            target=_opt(point, target, "target"),
            group=group,
            radius=radius,
            max_speed=max_speed,
            max_force=max_force,
            mass=mass,
            movement=movement,
            pathing=pathing,
            neighbours=neighbours,
            priority=priority,
            layer=layer,
            mask=mask,
        )

    def remove_source(self, *, id: int) -> R:  # noqa: A002 - the wire's name
        """Removes a source by id (the agents it made stay)."""
        return self.command("remove_source", id=id)

    def add_exit(self, *, area: Union[Mapping[str, float], Sequence[float]]) -> R:
        """An exit: ``area`` (as add_source's) removes the agents whose centre reaches it and
        counts them (snapshots' ``exits``). The ack's ``exit``: its id."""
        return self.command("add_exit", area=_area(area, "area"))

    def remove_exit(self, *, id: int) -> R:  # noqa: A002 - the wire's name
        """Removes an exit by id."""
        return self.command("remove_exit", id=id)

    def set_avoidance(
        self,
        *,
        mode: Optional[str] = None,
        personal_space: Optional[float] = None,
        cardioid_exponent: Optional[float] = None,
        preferred_side: Optional[str] = None,
        split_fix: Optional[str] = None,
        push_epsilon: Optional[float] = None,
        crossing: Optional[bool] = None,
        crossing_activation: Optional[float] = None,
        lookahead: Optional[float] = None,
        max_neighbours: Optional[int] = None,
    ) -> R:
        """Changes the world's avoidance settings; those not given keep their values.

        ``mode``: ``"none"``, ``"circle"``, ``"cardioid"`` or ``"orca"``; the others as in
        protocol/PROTOCOL.md's ``set_avoidance`` table.
        """
        fields = dict(
            mode=mode,
            personal_space=personal_space,
            cardioid_exponent=cardioid_exponent,
            preferred_side=preferred_side,
            split_fix=split_fix,
            push_epsilon=push_epsilon,
            crossing=crossing,
            crossing_activation=crossing_activation,
            lookahead=lookahead,
            max_neighbours=max_neighbours,
        )
        _at_least_one("set_avoidance", **fields)
        return self.command("set_avoidance", **fields)

    # ---- tile maps ------------------------------------------------------------------------

    def load_map(
        self,
        *,
        rows: Union[str, Sequence[str]],
        tile_size: float,
        width: Optional[int] = None,
        height: Optional[int] = None,
    ) -> R:
        """Replaces the tile map: ``rows`` top row first, ``#`` blocked and ``.`` walkable (a
        list of strings, or one string of lines). ``width`` and ``height`` default to the rows'."""
        if isinstance(rows, str):
            rows = [line for line in rows.splitlines() if line.strip()]
        rows = list(rows)
        if width is None:
            width = len(rows[0]) if rows else 0
        if height is None:
            height = len(rows)
        return self.command("load_map", width=width, height=height, tile_size=tile_size, rows=rows)

    def clear_map(self) -> R:
        """Removes the tile map."""
        return self.command("clear_map")

    def set_tiles(self, *, tiles: Iterable[Any]) -> R:
        """Blocks or clears tiles: each ``(x, y, blocked)`` or ``{"x", "y", "blocked"}``. The
        ack's ``count``: how many changed."""
        return self.command("set_tiles", tiles=_tiles(tiles, "tiles"))

    def set_pathing(
        self, *, agents: Selection, pathing: str, neighbours: Optional[int] = None
    ) -> R:
        """How agents find their way on the map: ``"direct"``, ``"no_backtrack"``, ``"astar"``
        or ``"flow"``; ``neighbours`` 8 (default) or 4 for astar and flow."""
        return self.command(
            "set_pathing", agents=selection(agents), pathing=pathing, neighbours=neighbours
        )

    # ---- formations and the demo's moves --------------------------------------------------

    def formation(
        self,
        *,
        agents: Selection,
        shape: str,
        centre: Point,
        spacing: Optional[float] = None,
        facing: Optional[float] = None,
        radius: Optional[float] = None,
        orientation: Optional[str] = None,
        count: Optional[int] = None,
        columns: Optional[int] = None,
        regroup: Optional[bool] = None,
        assignment: Optional[str] = None,
    ) -> R:
        """Sends agents to places in a ``shape`` (circle, line, lines, block, wedge) around
        ``centre``. The ack's ``formation``: its id, which snapshots report while it has
        members."""
        return self.command(
            "formation",
            agents=selection(agents),
            shape=shape,
            centre=point(centre, "centre"),
            spacing=spacing,
            facing=facing,
            radius=radius,
            orientation=orientation,
            count=count,
            columns=columns,
            regroup=regroup,
            assignment=assignment,
        )

    def swap_places(self, *, agents: Selection) -> R:
        """Each agent goes to another's place (at least two agents)."""
        return self.command("swap_places", agents=selection(agents))

    def opposite(self, *, agents: Selection, groups: Optional[int] = None) -> R:
        """Splits the agents into ``groups`` sectors round their centre (default 3), each a
        group, and each crosses to the opposite side."""
        return self.command("opposite", agents=selection(agents), groups=groups)

    def exchange(self, *, agents: Selection) -> R:
        """The selection's two groups (of the same size) trade places."""
        return self.command("exchange", agents=selection(agents))

    def invert(self, *, agents: Selection) -> R:
        """Everyone goes to the point opposite through the selection's centre."""
        return self.command("invert", agents=selection(agents))

    # ---- server controls ------------------------------------------------------------------

    def pause(self) -> R:
        """Stops stepping the world (no snapshots until :meth:`step` or :meth:`resume`)."""
        return self.command("pause")

    def resume(self) -> R:
        """Steps the world again from now on."""
        return self.command("resume")

    def step(self, *, ticks: Optional[int] = None) -> R:
        """While paused: runs ``ticks`` ticks at once (default 1) and sends a snapshot."""
        return self.command("step", ticks=ticks)

    def reset(self, *, seed: Optional[int] = None) -> R:
        """Rebuilds the running scenario (with its seed, or ``seed``)."""
        return self.command("reset", seed=seed)

    def load_scenario(self, *, name: str, seed: Optional[int] = None) -> R:
        """Builds another of the server's scenarios (``welcome["scenarios"]`` names them)."""
        return self.command("load_scenario", name=name, seed=seed)

    def set_param(
        self, *, tick_rate: Optional[float] = None, snapshot_rate: Optional[float] = None
    ) -> R:
        """Ticks and snapshots per second of wall time (the snapshot rate at most the tick
        rate)."""
        _at_least_one("set_param", tick_rate=tick_rate, snapshot_rate=snapshot_rate)
        return self.command("set_param", tick_rate=tick_rate, snapshot_rate=snapshot_rate)

    def kick(self, *, session: int) -> R:
        """Closes a session (its welcome's ``session``; :meth:`sessions` lists them) with close
        code 4000."""
        return self.command("kick", session=session)
