"""Binary snapshots (protocol/PROTOCOL.md, "Binary snapshots").

A frame is decoded against the quantised agents the client holds for the frame's baseline tick,
as the JavaScript client's decoder (clients/js/src/binary.js, the browser viewer's too) and the
server's codec do; all three are checked against the shared fixtures in protocol/fixtures/binary.
Positions are in quanta of 1 / 2^scale unit, the frame's scale (its header's ``scale``, which the
session's ``quantum`` chooses): 1 unit at scale 0 down to 1/64 at :data:`MAX_SCALE`.

Most programs never call this module: a client connected with ``format="binary"`` decodes every
frame into the same dict as a JSON snapshot. It is public for tools that read recorded frames.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from .errors import DecodeError

__all__ = [
    "MAX_SCALE",
    "POSITION_SCALE",
    "SPEED_SCALE",
    "RADIUS_SCALE",
    "QuantAgent",
    "Header",
    "Frame",
    "read_header",
    "decode_frame",
    "dequantise",
    "to_snapshot",
    "BinaryFeed",
]

MAX_SCALE = 6  # the finest position scale: quanta of 1/64 unit, the default
POSITION_SCALE = 1 << MAX_SCALE  # quanta a unit at the finest scale
SPEED_SCALE = 16  # speed in 1/16 unit/s
RADIUS_SCALE = 64  # radius in 1/64 unit, whatever the frame's scale

_MAGIC = 0x48
_VERSION = 4
_MAX_LEAD = 65535  # a delta's lead, in 1/1024 s
# Dead reckoning: round(16384 cos(2 pi h / 256)) for each heading step h (no entry is near a tie).
_COS = [round(16384 * math.cos(2 * math.pi * h / 256)) for h in range(256)]
_MAX_AGENTS = 1 << 24  # far above any world's limit: a count beyond it is a corrupt frame
_MAX_SAFE = (1 << 53) - 1  # the JSON side's integers: ticks and serials fit a double exactly
_STATES = ("idle", "moving", "arrived", "unreachable")
_AVOIDANCE = ("none", "circle", "cardioid", "orca", "cfsm")
# How many states BinaryFeed keeps: the server keeps its last 32 snapshots as baselines.
_KEPT_STATES = 32

# An agent as a frame carries it, in the format's integer units:
# {"id", "x", "y", "heading", "speed", "flags", "radius", "group", "team"} (positions in
# 1/2^scale unit, the frame's scale, speed in 1/16 unit/s, radius in 1/64 unit, heading in 1/256 turn; flags: state in bits
# 0-1, collided bit 2, kinematic bit 3; team 0 nobody's, else 1-63). The fixtures' expected.json lists agents in this shape.
QuantAgent = Dict[str, int]


@dataclass
class Header:
    """A frame's header, as read by :func:`read_header`."""

    delta: bool
    filtered: bool  # limited by a viewport
    avoidance: str
    tick: int
    baseline_tick: int  # tick - back; equal to tick for a keyframe
    lead: int  # deltas: the time from the baseline, in 1/1024 s (0 for a keyframe)
    serial: int  # 0: none
    time: float
    x_bits: int
    y_bits: int
    scale: int  # positions in quanta of 1 / 2^scale unit, scale in [0, MAX_SCALE]
    baseline_count: int
    agent_count: int
    side: Optional[str]  # the side section's JSON text
    body_at: int  # the byte the agents start at


@dataclass
class Frame:
    """A decoded frame: its header and its quantised agents, ordered by id."""

    header: Header
    agents: List[QuantAgent] = field(default_factory=list)


class _Truncated(Exception):
    pass


class _BitReader:
    """Least significant bit first, as BitReader in protocol/bit_stream.hpp."""

    __slots__ = ("data", "pos", "end")

    def __init__(self, data: bytes, at: int = 0) -> None:
        self.data = data
        self.pos = at * 8  # in bits
        self.end = len(data) * 8

    def bits(self, n: int) -> int:
        if n == 0:
            return 0
        pos = self.pos
        stop = pos + n
        if stop > self.end:
            raise _Truncated()
        self.pos = stop
        chunk = int.from_bytes(self.data[pos >> 3 : (stop + 7) >> 3], "little")
        return (chunk >> (pos & 7)) & ((1 << n) - 1)

    def bit(self) -> bool:
        pos = self.pos
        if pos >= self.end:
            raise _Truncated()
        self.pos = pos + 1
        return (self.data[pos >> 3] >> (pos & 7)) & 1 == 1

    def varint(self) -> int:
        out = 0
        for shift in range(0, 70, 7):
            g = self.bits(8)
            out |= (g & 0x7F) << shift
            if g & 0x80 == 0:
                if out > _MAX_SAFE:
                    raise DecodeError("varint too large")
                return out
        raise DecodeError("varint too long")

    def f64(self) -> float:
        at = self.pos >> 3
        if at + 8 > len(self.data):
            raise _Truncated()
        self.pos += 64
        return float(struct.unpack_from("<d", self.data, at)[0])


def _unzigzag(z: int) -> int:
    return z >> 1 if z & 1 == 0 else -((z + 1) >> 1)


def _fail(why: str) -> DecodeError:
    return DecodeError("binary snapshot: " + why)


def read_header(data: bytes) -> Header:
    """Reads a frame's header; raises :class:`herd.DecodeError` saying what is wrong."""
    r = _BitReader(data)
    try:
        if r.bits(8) != _MAGIC:
            raise DecodeError("bad magic byte")
        if r.bits(8) != _VERSION:
            raise DecodeError("unknown format version")
        flags = r.bits(8)
        if flags & ~15:
            raise DecodeError("unknown flags")
        mode = r.bits(8)
        if mode >= len(_AVOIDANCE):
            raise DecodeError("bad avoidance mode")
        delta = flags & 1 != 0
        tick = r.varint()
        back = r.varint() if delta else 0
        if back > tick:
            raise DecodeError("baseline before tick 0")
        # The time from the baseline, in 1/1024 s: what positions are predicted over.
        lead = r.varint() if delta else 0
        if lead > _MAX_LEAD:
            raise DecodeError("lead over 64 s")
        # Flags bit 3: the snapshot's serial, the server's count of snapshots made.
        serial = r.varint() if flags & 8 else 0
        if flags & 8 and serial == 0:
            raise DecodeError("serial 0")
        time = r.f64()
        x_bits = r.bits(8)
        y_bits = r.bits(8)
        if not (1 <= x_bits <= 32 and 1 <= y_bits <= 32):
            raise DecodeError("bad position widths")
        scale = r.bits(8)
        if scale > MAX_SCALE:
            raise DecodeError("bad position scale")
        baseline_count = r.varint() if delta else 0
        agent_count = r.varint()
        if agent_count > _MAX_AGENTS or baseline_count > _MAX_AGENTS:
            raise DecodeError("too many agents")
        side = None
        if flags & 2:
            n = r.varint()
            at = r.pos >> 3
            if n == 0 or at + n > len(data):
                raise DecodeError("truncated side section")
            try:
                side = bytes(data[at : at + n]).decode("utf-8")
            except UnicodeDecodeError:
                raise DecodeError("side section is not UTF-8") from None
            r.pos += n * 8
    except _Truncated:
        raise _fail("truncated header") from None
    except DecodeError as err:
        raise _fail(str(err)) from None
    return Header(
        delta=delta,
        filtered=flags & 4 != 0,
        avoidance=_AVOIDANCE[mode],
        tick=tick,
        baseline_tick=tick - back,
        lead=lead,
        serial=serial,
        time=time,
        x_bits=x_bits,
        y_bits=y_bits,
        scale=scale,
        baseline_count=baseline_count,
        agent_count=agent_count,
        side=side,
        body_at=r.pos >> 3,
    )


def _read_full(r: _BitReader, prev: QuantAgent, xb: int, yb: int) -> QuantAgent:
    # A new agent, written whole but for what it shares with the one before it (prev; the first
    # agent's prev has id 0 and zeros): after its heading, '0' when its speed, flags, radius,
    # group and team are all the previous agent's, else '1' and each of the four parts with a bit
    # of its own.
    gap = 1 if r.bit() else r.varint()
    if gap == 0 or prev["id"] + gap > 0xFFFFFFFF:
        raise DecodeError("bad agent id")
    a = {"id": prev["id"] + gap, "x": r.bits(xb), "y": r.bits(yb), "heading": r.bits(8)}
    if not r.bit():
        for shared in ("speed", "flags", "radius", "group", "team"):
            a[shared] = prev[shared]
        return a
    a["speed"] = r.bits(16) if r.bit() else prev["speed"]
    a["flags"] = r.bits(4) if r.bit() else prev["flags"]
    if r.bit():
        a["radius"] = r.bits(16)
        a["group"] = r.bits(8)
    else:
        a["radius"] = prev["radius"]
        a["group"] = prev["group"]
    a["team"] = r.bits(6) if r.bit() else prev["team"]
    return a


def _offset(base: int, z: int, bits: int) -> int:
    v = base + _unzigzag(z)
    if v < 0 or v > (1 << bits) - 1:
        raise DecodeError("position out of range")
    return v


def _predict(b: QuantAgent, lead: int, xb: int, yb: int, scale: int) -> Tuple[int, int]:
    # Where baseline agent b is predicted after `lead` (1/1024 s): its position plus speed x lead
    # x (cos, sin) of its heading / 2^n quanta, n = 28 - scale (22 at 1/64 unit), rounded half
    # up (>> floors, negative numbers too), within the world.
    if b["speed"] == 0 or lead == 0:
        return b["x"], b["y"]
    m = b["speed"] * lead
    n = 28 - scale
    dx = (m * _COS[b["heading"]] + (1 << (n - 1))) >> n
    dy = (m * _COS[(b["heading"] + 192) % 256] + (1 << (n - 1))) >> n
    return (
        min(max(b["x"] + dx, 0), (1 << xb) - 1),
        min(max(b["y"] + dy, 0), (1 << yb) - 1),
    )


def _read_change(
    r: _BitReader, b: QuantAgent, p: Tuple[int, int], xb: int, yb: int, k: int
) -> QuantAgent:
    # An agent of the baseline that changed otherwise than by moving as predicted (p). The
    # position is prefixed 0 (an offset from p of k bits a coordinate), 10 (of k + 4 bits) or 11
    # (absolute).
    a = dict(b)
    if not r.bit():
        zx, zy = r.bits(k), r.bits(k)
        a["x"] = _offset(p[0], zx, xb)
        a["y"] = _offset(p[1], zy, yb)
    elif not r.bit():
        zx, zy = r.bits(k + 4), r.bits(k + 4)
        a["x"] = _offset(p[0], zx, xb)
        a["y"] = _offset(p[1], zy, yb)
    else:
        a["x"] = r.bits(xb)
        a["y"] = r.bits(yb)
    if r.bit():
        a["heading"] = r.bits(8) if r.bit() else (b["heading"] + _unzigzag(r.bits(4))) % 256
    if r.bit():
        if r.bit():
            a["speed"] = r.bits(16)
        else:
            a["speed"] = b["speed"] + _unzigzag(r.bits(4))
            if not 0 <= a["speed"] <= 65535:
                raise DecodeError("speed out of range")
    if r.bit():
        a["flags"] = r.bits(4)
        if r.bit():
            a["radius"] = r.bits(16)
            a["group"] = r.bits(8)
            a["team"] = r.bits(6)
    return a


def decode_frame(data: bytes, baseline: Optional[List[QuantAgent]] = None) -> Frame:
    """Decodes a frame.

    ``baseline`` is the list of quantised agents held for ``header.baseline_tick`` (ignored for a
    keyframe). Returns the header and the agents, quantised and ordered by id. Raises
    :class:`herd.DecodeError` for a truncated or corrupt frame, or a baseline that does not match.
    """
    data = bytes(data)
    h = read_header(data)
    if not h.delta:
        baseline = []
    elif baseline is None or len(baseline) != h.baseline_count:
        raise _fail("the baseline does not match the frame")
    r = _BitReader(data, h.body_at)
    kept: List[QuantAgent] = []
    added: List[QuantAgent] = []
    try:
        k = r.bits(8)
        if not 1 <= k <= 16:
            raise DecodeError("bad position change width")
        xb, yb = h.x_bits, h.y_bits
        # Each agent of the baseline: '00' as predicted, '01' gone, '10' moved only (k-bit
        # offsets from the prediction), '11' changed.
        for b in baseline:
            changed, second = r.bit(), r.bit()
            if not changed and second:
                continue
            p = _predict(b, h.lead, xb, yb, h.scale)
            if not changed:
                kept.append(b if p == (b["x"], b["y"]) else {**b, "x": p[0], "y": p[1]})
            elif not second:
                zx, zy = r.bits(k), r.bits(k)
                kept.append({**b, "x": _offset(p[0], zx, xb), "y": _offset(p[1], zy, yb)})
            else:
                kept.append(_read_change(r, b, p, xb, yb, k))
        n = r.varint()
        if n > h.agent_count:
            raise DecodeError("bad count of new agents")
        prev: QuantAgent = {"id": 0, "speed": 0, "flags": 0, "radius": 0, "group": 0, "team": 0}
        for _ in range(n):
            prev = _read_full(r, prev, xb, yb)
            added.append(prev)
    except _Truncated:
        raise _fail("truncated agents") from None
    except DecodeError as err:
        raise _fail(str(err)) from None
    if len(kept) + len(added) != h.agent_count:
        raise _fail("agent count does not match")
    # The view: the baseline's agents that stay and the new ones, merged by id.
    agents: List[QuantAgent] = []
    i = j = 0
    while i < len(kept) or j < len(added):
        if j >= len(added) or (i < len(kept) and kept[i]["id"] < added[j]["id"]):
            agents.append(kept[i])
            i += 1
        else:
            agents.append(added[j])
            j += 1
        if len(agents) > 1 and agents[-2]["id"] >= agents[-1]["id"]:
            raise _fail("an agent id twice")
    return Frame(header=h, agents=agents)


def dequantise(a: QuantAgent, scale: int = MAX_SCALE) -> Dict[str, Any]:
    """A quantised agent, of a frame of ``scale`` (positions in 1 / 2^scale unit), as a JSON
    snapshot's agent object.

    Only what frames carry: ``id``, ``x``, ``y``, ``vx``, ``vy``, ``r``, ``group``, ``state``,
    and ``collided``, ``movement`` and ``team`` when set. ``behaviour``, ``phase``, targets, paths and the
    like are not carried (those of inspected agents come whole in the side section).
    """
    speed = a["speed"] / SPEED_SCALE
    angle = a["heading"] * 2 * math.pi / 256
    out: Dict[str, Any] = {
        "id": a["id"],
        "x": a["x"] / (1 << scale),
        "y": a["y"] / (1 << scale),
        "vx": speed * math.cos(angle),
        "vy": speed * math.sin(angle),
        "r": a["radius"] / RADIUS_SCALE,
        "group": a["group"],
        "state": _STATES[a["flags"] & 3],
    }
    if a["flags"] & 4:
        out["collided"] = True
    if a["flags"] & 8:
        out["movement"] = "kinematic"
    if a.get("team"):
        out["team"] = a["team"]
    return out


def to_snapshot(frame: Frame) -> Dict[str, Any]:
    """The JSON ``snapshot`` message a decoded frame stands for.

    The side section (obstacles, walls, collisions, formations, measurements, sources and exits,
    inspect traces, a map change, the density layer, and the inspected agents' whole objects) over
    the dequantised agents. ``obstacles``, ``walls``, ``measurements``, ``sources`` and ``exits``
    are present only when the frame carries them (absent: as last told), as in JSON snapshots.
    """
    h = frame.header
    side: Dict[str, Any] = {}
    if h.side:
        try:
            side = json.loads(h.side)
        except ValueError as err:
            raise _fail(f"side section is not JSON: {err}") from None
        if not isinstance(side, dict):
            raise _fail("side section is not a JSON object")
    details = {a.get("id"): a for a in side.get("agents") or [] if isinstance(a, dict)}
    snap: Dict[str, Any] = {
        "type": "snapshot",
        "tick": h.tick,
        "time": h.time,
        "avoidance": h.avoidance,
        "agents": [details.get(a["id"]) or dequantise(a, h.scale) for a in frame.agents],
        "collisions": side.get("collisions") or [],
        "formations": side.get("formations") or [],
    }
    if h.serial:
        snap["serial"] = h.serial
    if "obstacles" in side:
        snap["obstacles"] = side["obstacles"]
    for told in ("walls", "measurements", "sources", "exits"):
        if told in side:
            snap[told] = side[told]
    if "inspect" in side:
        snap["inspect"] = side["inspect"]
    if "map" in side:
        snap["map"] = side["map"]
    if "density" in side:
        snap["density"] = side["density"]
    return snap


class BinaryFeed:
    """The client's side of a binary feed.

    Keeps the decoded states a later delta may name as its baseline and says what to send back:
    an ``ack`` for each frame decoded, a ``keyframe`` request for one that cannot be. A delta's
    baseline is never older than an earlier delta's, so decoding a delta drops the older states;
    a keyframe drops none (an ack in flight may still make the server build on one), and a tick
    that went back (a new world) drops them all. A delta is built only on a frame of its own
    scale (a new quantum starts with a keyframe): one on a state of another scale is not decoded,
    and asks for a keyframe too.
    """

    def __init__(self) -> None:
        # tick -> (scale, quantised agents), oldest first
        self.states: Dict[int, Tuple[int, List[QuantAgent]]] = {}

    def reset(self) -> None:
        """Forgets every state (a new connection starts from a keyframe)."""
        self.states.clear()

    def receive(
        self, data: bytes
    ) -> Tuple[Optional[Dict[str, Any]], Dict[str, Any], Optional[DecodeError]]:
        """Decodes one frame.

        Returns ``(snapshot, reply, error)``: the snapshot message (``None`` when the frame could
        not be decoded), the message to send back (``{"type": "ack", "tick": T}`` or
        ``{"type": "keyframe"}``), and why the frame was dropped (or ``None``).
        """
        try:
            h = read_header(data)
        except DecodeError as err:
            return None, {"type": "keyframe"}, err
        held = self.states.get(h.baseline_tick) if h.delta else (h.scale, [])
        if held is None:
            why = _fail(f"no state of tick {h.baseline_tick} for this delta")
            return None, {"type": "keyframe"}, why
        if held[0] != h.scale:
            why = _fail(f"a delta of scale {h.scale} on tick {h.baseline_tick}, held at scale {held[0]}")
            return None, {"type": "keyframe"}, why
        try:
            frame = decode_frame(data, held[1])
            snapshot = to_snapshot(frame)
        except DecodeError as err:
            return None, {"type": "keyframe"}, err
        if self.states and max(self.states) >= h.tick:
            self.states.clear()
        if h.delta:
            for t in [t for t in self.states if t < h.baseline_tick]:
                del self.states[t]
        self.states[h.tick] = (h.scale, frame.agents)
        while len(self.states) > _KEPT_STATES:
            del self.states[next(iter(self.states))]
        return snapshot, {"type": "ack", "tick": h.tick}, None
