"""Reads the trajectory databases herd-server writes with ``--trajectories FILE``, into numpy arrays.

::

    from herd import trajectories

    t = trajectories.read("run.db")
    t.meta["scenario"], t.meta["frame_rate"]      # the meta table, as text
    t.frames, t.ticks, t.times                     # one entry per frame
    t.id, t.x, t.y, t.vx, t.vy, t.state, t.group   # one entry per agent and frame, by (frame, id)
    last = t[-1]                                   # a Frame: the same names, that frame's rows
    print(last.tick, len(last), last.x.mean())

The schema is docs/operations.md's ("Trajectories"). A database a killed server left behind reads
like any other: it holds every batch the server committed. This module needs numpy (Debian 12:
``apt install python3-numpy``; ``pip install herd[trajectories]``); the rest of the package does
not.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Union

import numpy as np

from .errors import HerdError

__all__ = ["read", "Trajectories", "Frame", "World", "TrajectoryFileError", "SCHEMA_VERSION"]

#: The schema version this module reads (the database's meta ``schema_version``).
SCHEMA_VERSION = 1
_FORMAT = "herd-trajectories"
_CHUNK = 65536  # rows fetched at a time: the arrays are filled without a list of every row

_AGENT = np.dtype(
    [("frame", "i8"), ("id", "u4"), ("x", "f8"), ("y", "f8"), ("vx", "f8"), ("vy", "f8"),
     ("state", "u1"), ("group", "u1")]
)  # fmt: skip
_FRAME = np.dtype([("frame", "i8"), ("world", "u4"), ("tick", "i8"), ("time", "f8"), ("agents", "i8")])
_LINE = np.dtype([("frame", "i8"), ("id", "u4"), ("forward", "i8"), ("backward", "i8")])
_AREA = np.dtype([("frame", "i8"), ("id", "u4"), ("count", "i8"), ("density", "f8"), ("mean_speed", "f8")])


class TrajectoryFileError(HerdError, ValueError):
    """The file is not a herd trajectory database this module reads (or cannot be opened)."""


@dataclass(frozen=True)
class World:
    """A world of the run (a row of the ``worlds`` table): the first, and one more for every
    ``reset``, ``load_scenario`` or restart from a checkpoint."""

    world: int
    began: str  # "start", "replaced" (reset, load_scenario) or "checkpoint"
    scenario: str
    seed: int
    tick: int  # the tick it began at
    tick_rate: float
    frame_rate: float
    width: float
    height: float


@dataclass(frozen=True)
class Frame:
    """One frame: its number, world, tick and time, and its agents' rows (views into the
    :class:`Trajectories` arrays, by id)."""

    frame: int
    world: int
    tick: int
    time: float
    id: np.ndarray
    x: np.ndarray
    y: np.ndarray
    vx: np.ndarray
    vy: np.ndarray
    state: np.ndarray
    group: np.ndarray

    def __len__(self) -> int:
        return len(self.id)

    @property
    def speed(self) -> np.ndarray:
        """Each agent's speed, units per second."""
        return np.hypot(self.vx, self.vy)

    def positions(self) -> np.ndarray:
        """The agents' positions as an (n, 2) array."""
        return np.column_stack((self.x, self.y))


class Trajectories:
    """A trajectory database read into arrays.

    Per frame (``len(t)`` entries, in frame order): ``frames`` (the numbers), ``ticks``,
    ``times`` (seconds of world time), ``frame_worlds``, ``frame_agents``. Per agent and frame
    (in (frame, id) order): ``frame``, ``id``, ``x``, ``y``, ``vx``, ``vy``, ``state``
    (``states`` names each value), ``group``. ``lines`` and ``areas`` are the measurement tables
    as dicts of arrays (``mean_speed`` NaN where an area was empty). ``t[i]`` is the i-th frame
    (negative counts from the end), ``t.at_frame(n)`` the frame numbered n, ``t.at_tick(k)`` the
    last frame of tick k; iterating gives every frame.
    """

    def __init__(
        self,
        path: str,
        meta: Dict[str, str],
        states: Dict[int, str],
        worlds: List[World],
        frames: np.ndarray,
        rows: np.ndarray,
        lines: np.ndarray,
        areas: np.ndarray,
    ) -> None:
        self.path = path
        self.meta = meta
        self.states = states
        self.worlds = worlds
        self.frames: np.ndarray = frames["frame"]
        self.frame_worlds: np.ndarray = frames["world"]
        self.ticks: np.ndarray = frames["tick"]
        self.times: np.ndarray = frames["time"]
        self.frame_agents: np.ndarray = frames["agents"]
        self.frame: np.ndarray = rows["frame"]
        self.id: np.ndarray = rows["id"]
        self.x: np.ndarray = rows["x"]
        self.y: np.ndarray = rows["y"]
        self.vx: np.ndarray = rows["vx"]
        self.vy: np.ndarray = rows["vy"]
        self.state: np.ndarray = rows["state"]
        self.group: np.ndarray = rows["group"]
        self.lines: Dict[str, np.ndarray] = {n: lines[n] for n in _LINE.names}
        self.areas: Dict[str, np.ndarray] = {n: areas[n] for n in _AREA.names}
        # Where each frame's rows begin and end.
        self._starts = np.searchsorted(self.frame, self.frames, side="left")
        self._ends = np.searchsorted(self.frame, self.frames, side="right")

    def __len__(self) -> int:
        return len(self.frames)

    def __getitem__(self, i: int) -> Frame:
        n = len(self.frames)
        if not -n <= i < n:
            raise IndexError(f"frame index {i} out of range for {n} frames")
        i %= n
        s = slice(int(self._starts[i]), int(self._ends[i]))
        return Frame(
            int(self.frames[i]), int(self.frame_worlds[i]), int(self.ticks[i]), float(self.times[i]),
            self.id[s], self.x[s], self.y[s], self.vx[s], self.vy[s], self.state[s], self.group[s],
        )  # fmt: skip

    def __iter__(self) -> Iterator[Frame]:
        for i in range(len(self.frames)):
            yield self[i]

    def at_frame(self, number: int) -> Frame:
        """The frame numbered ``number`` (KeyError when the file has none)."""
        i = int(np.searchsorted(self.frames, number))
        if i >= len(self.frames) or self.frames[i] != number:
            raise KeyError(f"no frame {number} in {self.path}")
        return self[i]

    def at_tick(self, tick: int, world: Optional[int] = None) -> Frame:
        """The last frame of ``tick`` (of ``world``, by default the last world that has one)."""
        mask = self.ticks == tick
        if world is not None:
            mask &= self.frame_worlds == world
        (found,) = np.nonzero(mask)
        if len(found) == 0:
            raise KeyError(f"no frame of tick {tick} in {self.path}")
        return self[int(found[-1])]

    @property
    def speed(self) -> np.ndarray:
        """Every row's speed, units per second."""
        return np.hypot(self.vx, self.vy)

    @property
    def complete(self) -> bool:
        """True when the server closed the file (a killed one leaves it False)."""
        return self.meta.get("complete") == "1"


def _table(
    db: sqlite3.Connection, sql: str, dtype: np.dtype, params: tuple = (), nullable: bool = False
) -> np.ndarray:
    count = db.execute(f"SELECT count(*) FROM ({sql})", params).fetchone()[0]
    out = np.empty(count, dtype=dtype)
    cursor = db.execute(sql, params)
    at = 0
    while True:
        chunk = cursor.fetchmany(_CHUNK)
        if not chunk:
            break
        if nullable:  # NULL (an empty area's mean speed) becomes NaN
            chunk = [tuple(np.nan if v is None else v for v in r) for r in chunk]
        out[at : at + len(chunk)] = chunk
        at += len(chunk)
    return out[:at]


def _connect(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise FileNotFoundError(f"no trajectory database at {path}")
    # Read-write, so that SQLite can replay the write-ahead log a killed server left; read-only
    # when the file may not be written.
    for mode in ("rw", "ro"):
        try:
            db = sqlite3.connect(f"{path.resolve().as_uri()}?mode={mode}", uri=True, timeout=5.0)
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return db
        except sqlite3.Error as e:
            error = e
    raise TrajectoryFileError(f"{path} cannot be opened as a SQLite database: {error}")


def read(path: Union[str, Path], world: Optional[int] = None) -> Trajectories:
    """Reads the trajectory database at ``path`` (every world, or only ``world``)."""
    p = Path(path)
    db = _connect(p)
    try:
        try:
            meta = {str(k): str(v) for k, v in db.execute("SELECT key, value FROM meta")}
        except sqlite3.Error:
            meta = {}
        if meta.get("format") != _FORMAT:
            raise TrajectoryFileError(f"{p} is not a herd trajectory database")
        if meta.get("schema_version") != str(SCHEMA_VERSION):
            raise TrajectoryFileError(
                f"{p} has schema version {meta.get('schema_version')}; this module reads {SCHEMA_VERSION}"
            )
        states = {int(s): str(n) for s, n in db.execute("SELECT state, name FROM states")}
        worlds = [
            World(int(w), str(b), str(sc), int(seed), int(tick), float(tr), float(fr), float(wd), float(ht))
            for w, b, sc, seed, tick, tr, fr, wd, ht in db.execute(
                "SELECT world, began, scenario, seed, tick, tick_rate, frame_rate, width, height "
                "FROM worlds ORDER BY world"
            )
        ]
        # One snapshot of the file for every table: a server may be writing it meanwhile.
        db.execute("BEGIN")
        where, params = ("", ()) if world is None else (" WHERE world = ?", (world,))
        frames = _table(
            db, "SELECT frame, world, tick, time, agents FROM frames" + where + " ORDER BY frame", _FRAME, params
        )
        within = "" if world is None else " WHERE frame IN (SELECT frame FROM frames WHERE world = ?)"
        rows = _table(
            db,
            "SELECT frame, id, x, y, vx, vy, state, grp FROM trajectory" + within + " ORDER BY frame, id",
            _AGENT,
            params,
        )
        lines = _table(
            db, "SELECT frame, id, forward, backward FROM measurement_lines" + within + " ORDER BY frame, id",
            _LINE, params,
        )  # fmt: skip
        areas = _table(
            db,
            "SELECT frame, id, count, density, mean_speed FROM measurement_areas" + within + " ORDER BY frame, id",
            _AREA,
            params,
            nullable=True,
        )
        db.execute("COMMIT")
    finally:
        db.close()
    if world is not None:
        worlds = [w for w in worlds if w.world == world]
    return Trajectories(str(p), meta, states, worlds, frames, rows, lines, areas)
