"""The binary snapshot decoder against the shared fixtures (protocol/fixtures/binary), which the
server's C++ codec and the JavaScript decoder are tested against too: the same bytes decode to
the same agents in all three, at 1/64 unit (scale 6) and at 1/4 (scale 2). No server."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import List, Optional

import pytest

from herd import DecodeError
from herd.binary import MAX_SCALE, BinaryFeed, QuantAgent, decode_frame, dequantise, read_header, to_snapshot

FIXTURES = Path(__file__).resolve().parents[3] / "protocol" / "fixtures" / "binary"


def hex_bytes(name: str) -> bytes:
    return bytes.fromhex((FIXTURES / name).read_text())


EXPECTED = json.loads((FIXTURES / "expected.json").read_text())
KEYFRAME = hex_bytes("keyframe.hex")
DELTA = hex_bytes("delta.hex")
COARSE_KEYFRAME = hex_bytes("coarse_keyframe.hex")
COARSE_DELTA = hex_bytes("coarse_delta.hex")
# The byte of the keyframe fixture's scale: after magic, version, flags, avoidance (4), its
# one-byte tick, its time (8) and xb, yb.
KEYFRAME_SCALE_AT = 15


class BitWriter:
    """A frame as protocol/PROTOCOL.md lays it out, least significant bit first, for the cases
    the fixtures do not pin."""

    def __init__(self) -> None:
        self.value = 0
        self.pos = 0  # in bits

    def bits(self, v: int, n: int) -> "BitWriter":
        self.value |= (v & ((1 << n) - 1)) << self.pos
        self.pos += n
        return self

    def varint(self, v: int) -> "BitWriter":
        while True:
            low, v = v & 0x7F, v >> 7
            self.bits(low | (0x80 if v else 0), 8)
            if not v:
                return self

    def done(self) -> bytes:
        return self.value.to_bytes((self.pos + 7) // 8, "little")


def predicted_delta(scale: int, lead: int, count: int) -> bytes:
    """A delta at ``scale`` (tick 10 on tick 9, ``lead`` 1/1024 s, 16-bit positions) in which
    every one of ``count`` baseline agents moved as predicted ('00') and none is new."""
    w = BitWriter().bits(0x48, 8).bits(4, 8).bits(1, 8).bits(0, 8).varint(10).varint(1).varint(lead)
    w.bits(0, 64).bits(16, 8).bits(16, 8).bits(scale, 8).varint(count).varint(count)
    return w.bits(1, 8).bits(0, 2 * count).varint(0).done()


def agent(ident: int, x: int, y: int, heading: int, speed: int) -> QuantAgent:
    return {"id": ident, "x": x, "y": y, "heading": heading, "speed": speed, "flags": 1, "radius": 64, "group": 0, "team": 0}


@pytest.mark.parametrize(
    "key, data, baseline",
    [
        ("keyframe", KEYFRAME, None),
        ("delta", DELTA, "keyframe"),
        ("coarse_keyframe", COARSE_KEYFRAME, None),
        ("coarse_delta", COARSE_DELTA, "coarse_keyframe"),
    ],
)
def test_every_fixture_decodes_to_the_scale_and_agents_the_cpp_codec_wrote(
    key: str, data: bytes, baseline: Optional[str]
) -> None:
    want = EXPECTED[key]
    f = decode_frame(data, EXPECTED[baseline]["agents"] if baseline else None)
    assert f.header.delta is (baseline is not None)
    assert f.header.tick == want["tick"]
    assert f.header.scale == want["scale"]
    if baseline:
        assert f.header.baseline_tick == want["baseline_tick"]
    assert f.agents == want["agents"]


def test_the_fixtures_are_at_one_64th_and_one_quarter_and_deltas_decode_on_their_decoded_keyframes() -> None:
    assert (EXPECTED["keyframe"]["scale"], EXPECTED["coarse_keyframe"]["scale"]) == (MAX_SCALE, 2)
    assert decode_frame(DELTA, decode_frame(KEYFRAME).agents).agents == EXPECTED["delta"]["agents"]
    coarse = decode_frame(COARSE_DELTA, decode_frame(COARSE_KEYFRAME).agents)
    assert coarse.agents == EXPECTED["coarse_delta"]["agents"]


def test_positions_dequantise_in_the_frames_quanta_and_the_radius_in_64ths() -> None:
    # The same agent in both keyframes: (10, 20) units, at 1/64 and at 1/4.
    assert (EXPECTED["keyframe"]["agents"][0]["x"], EXPECTED["coarse_keyframe"]["agents"][0]["x"]) == (640, 40)
    for data in (KEYFRAME, COARSE_KEYFRAME):
        first = to_snapshot(decode_frame(data))["agents"][0]
        assert (first["x"], first["y"], first["r"]) == (10, 20, 1.5)
    q = agent(1, 3, 5, 0, 0)
    assert (dequantise(q, 0)["x"], dequantise(q, 0)["y"]) == (3, 5)
    assert (dequantise(q, 1)["x"], dequantise(q, 1)["y"]) == (1.5, 2.5)
    assert (dequantise(q)["x"], dequantise(q)["y"]) == (3 / 64, 5 / 64)  # the default: 1/64
    assert dequantise(q, 0)["r"] == 1
    # The coarse delta's agents are within half a quantum (plus 1/128) of the fine ones'.
    fine = to_snapshot(decode_frame(DELTA, EXPECTED["keyframe"]["agents"]))["agents"]
    coarse = to_snapshot(decode_frame(COARSE_DELTA, EXPECTED["coarse_keyframe"]["agents"]))["agents"]
    assert [a["id"] for a in coarse] == [a["id"] for a in fine]
    for c, f in zip(coarse, fine):
        assert abs(c["x"] - f["x"]) <= 1 / 8 + 1 / 128 and abs(c["y"] - f["y"]) <= 1 / 8 + 1 / 128, (c, f)


@pytest.mark.parametrize("scale", range(MAX_SCALE + 1))
def test_prediction_shifts_by_28_less_the_scale(scale: int) -> None:
    # 1 unit/s (speed 16) for 1 s (lead 1024) is 2^s quanta, along x at heading 0, along y at 64.
    f = decode_frame(predicted_delta(scale, 1024, 2), [agent(1, 100, 100, 0, 16), agent(2, 100, 100, 64, 16)])
    assert f.header.scale == scale
    assert [(a["x"], a["y"]) for a in f.agents] == [(100 + 2**scale, 100), (100, 100 + 2**scale)]


def test_prediction_rounds_half_a_quantum_up_either_way() -> None:
    # 1/8 unit/s for 1 s at 1/4 unit is +0.5 quantum (to +1) heading +x, -0.5 (to 0) heading -x;
    # 1/16 unit/s is 0.25 quantum (0) at 1/4; at 1/64 the three are 8, -8 and 4 quanta.
    slow: List[QuantAgent] = [agent(1, 100, 100, 0, 2), agent(2, 100, 100, 128, 2), agent(3, 100, 100, 0, 1)]
    assert [a["x"] for a in decode_frame(predicted_delta(2, 1024, 3), slow).agents] == [101, 100, 100]
    assert [a["x"] for a in decode_frame(predicted_delta(6, 1024, 3), slow).agents] == [108, 92, 104]


def test_a_scale_over_6_and_any_version_but_4_are_malformed() -> None:
    assert KEYFRAME[KEYFRAME_SCALE_AT] == 6  # the byte is the scale
    for scale in (0, 6):
        ok = bytearray(KEYFRAME)
        ok[KEYFRAME_SCALE_AT] = scale
        assert read_header(bytes(ok)).scale == scale
    for scale in (7, 255):
        bad = bytearray(KEYFRAME)
        bad[KEYFRAME_SCALE_AT] = scale
        with pytest.raises(DecodeError, match="^binary snapshot: bad position scale$"):
            decode_frame(bytes(bad))
    for version in (1, 2, 3, 5):
        old = bytearray(KEYFRAME)
        old[1] = version
        with pytest.raises(DecodeError, match="unknown format version"):
            read_header(bytes(old))
    with pytest.raises(DecodeError, match="truncated header"):
        read_header(KEYFRAME[:KEYFRAME_SCALE_AT])  # cut off at the scale byte


def test_a_new_agents_0_after_its_heading_repeats_all_the_previous_agents_other_fields() -> None:
    # Agents 6 and 7 of the keyframes: 7 (at 0, 0) repeats all of 6's but its position.
    for key in ("keyframe", "coarse_keyframe"):
        six, seven = EXPECTED[key]["agents"][4:]
        assert (six["id"], seven["id"]) == (6, 7)
        for f in ("speed", "flags", "radius", "group", "team"):
            assert seven[f] == six[f], (key, f)
    # Two new agents: the first '1' and its four parts, the second '0' (all as the first's).
    w = BitWriter().bits(0x48, 8).bits(4, 8).bits(0, 8).bits(0, 8).varint(5).bits(0, 64)
    w.bits(8, 8).bits(8, 8).bits(3, 8).varint(2).bits(1, 8).varint(2)
    w.bits(1, 1).bits(10, 8).bits(20, 8).bits(7, 8).bits(1, 1)  # id 1, x, y, heading, the parts follow
    w.bits(1, 1).bits(300, 16).bits(1, 1).bits(9, 4).bits(1, 1).bits(40, 16).bits(3, 8).bits(1, 1).bits(5, 6)
    w.bits(1, 1).bits(30, 8).bits(40, 8).bits(9, 8).bits(0, 1)  # id 2: all as id 1's
    f = decode_frame(w.done())
    assert f.header.scale == 3
    shared = {"speed": 300, "flags": 9, "radius": 40, "group": 3, "team": 5}
    assert f.agents == [{"id": 1, "x": 10, "y": 20, "heading": 7, **shared}, {"id": 2, "x": 30, "y": 40, "heading": 9, **shared}]
    second = to_snapshot(f)["agents"][1]
    assert (second["x"], second["y"]) == (30 / 8, 40 / 8)


def test_a_decoded_frame_is_a_snapshot_message() -> None:
    d = decode_frame(DELTA, decode_frame(KEYFRAME).agents)
    snap = to_snapshot(d)
    assert snap["type"] == "snapshot"
    assert snap["tick"] == 33
    assert snap["avoidance"] == "cardioid"
    assert snap["obstacles"] == [{"id": 1, "x": 40, "y": 20, "r": 5}]
    assert snap["collisions"] == [] and snap["formations"] == []
    assert "serial" not in snap  # the fixtures carry none
    assert [a["id"] for a in snap["agents"]] == [1, 2, 3, 5, 6, 9]
    # Agent 3 of the delta: arrived (flags 2) and collided (flags 4).
    three = snap["agents"][2]
    assert three["state"] == "arrived" and three["collided"] is True
    assert three["r"] == 4.0 and three["group"] == 2
    a = dequantise(EXPECTED["keyframe"]["agents"][0])
    assert (a["x"], a["y"]) == (10, 20)
    assert abs(a["vx"] - 5) < 0.1 and abs(a["vy"]) < 0.2
    assert a["state"] == "moving" and "collided" not in a and "movement" not in a


def test_dequantise_reads_every_flag_and_the_heading_downwards() -> None:
    q = {"id": 7, "x": 64, "y": 128, "heading": 64, "speed": 32, "flags": 3 | 4 | 8, "radius": 32, "group": 9}
    a = dequantise(q)
    assert a["state"] == "unreachable" and a["collided"] is True and a["movement"] == "kinematic"
    assert math.isclose(a["vy"], 2.0) and abs(a["vx"]) < 1e-9  # heading 64: +y, down the screen
    assert (a["x"], a["y"], a["r"], a["group"]) == (1.0, 2.0, 0.5, 9)


def test_the_serial_is_read_into_the_snapshot() -> None:
    # The keyframe fixture with serial 300 (varint ac 02) after its tick (byte 4).
    numbered = bytearray(KEYFRAME[:5] + bytes([0xAC, 0x02]) + KEYFRAME[5:])
    numbered[2] |= 8
    k = decode_frame(bytes(numbered))
    assert k.header.serial == 300
    assert k.agents == EXPECTED["keyframe"]["agents"]
    assert to_snapshot(k)["serial"] == 300
    zero = bytearray(KEYFRAME[:5] + b"\x00" + KEYFRAME[5:])
    zero[2] |= 8
    with pytest.raises(DecodeError, match="serial 0"):
        decode_frame(bytes(zero))
    bad = bytearray(KEYFRAME)
    bad[2] |= 16
    with pytest.raises(DecodeError, match="unknown flags"):
        decode_frame(bytes(bad))


def test_the_avoidance_mode_byte_names_orca_and_cfsm_and_nothing_past_them() -> None:
    orca = bytearray(KEYFRAME)
    orca[3] = 3
    assert to_snapshot(decode_frame(bytes(orca)))["avoidance"] == "orca"
    orca[3] = 4
    assert to_snapshot(decode_frame(bytes(orca)))["avoidance"] == "cfsm"
    orca[3] = 5
    with pytest.raises(DecodeError, match="bad avoidance mode"):
        decode_frame(bytes(orca))


def test_a_delta_on_the_wrong_baseline_is_refused() -> None:
    k = decode_frame(KEYFRAME)
    with pytest.raises(DecodeError, match="baseline"):
        decode_frame(DELTA, k.agents[1:])
    with pytest.raises(DecodeError, match="baseline"):
        decode_frame(DELTA)
    with pytest.raises(DecodeError, match="magic"):
        read_header(b'{"type":"snapshot"}')


def test_truncated_frames_raise_decode_errors_only() -> None:
    k = decode_frame(KEYFRAME)
    for n in range(len(DELTA)):
        with pytest.raises(DecodeError, match="^binary snapshot: "):
            decode_frame(DELTA[:n], k.agents)
    # Cut off inside the header's time field (the 8 bytes after the keyframe's one-byte tick).
    for n in range(5, 13):
        with pytest.raises(DecodeError, match="^binary snapshot: truncated header$"):
            read_header(KEYFRAME[:n])


def test_corrupted_frames_raise_decode_errors_or_decode_to_ordered_ids() -> None:
    k = decode_frame(KEYFRAME)
    rng = random.Random(1)
    decoded = refused = 0
    for _ in range(2000):
        bad = bytearray(DELTA)
        bad[rng.randrange(len(bad))] ^= 1 << rng.randrange(8)
        try:
            f = decode_frame(bytes(bad), k.agents)
            to_snapshot(f)
        except DecodeError:
            refused += 1
            continue
        decoded += 1
        ids = [a["id"] for a in f.agents]
        assert ids == sorted(set(ids))
    assert decoded > 0 and refused > 0  # both paths were taken


def test_feed_acks_what_it_decodes_and_asks_for_a_keyframe_without_the_baseline() -> None:
    feed = BinaryFeed()
    snap, reply, err = feed.receive(DELTA)
    assert snap is None and reply == {"type": "keyframe"} and isinstance(err, DecodeError)
    snap, reply, err = feed.receive(KEYFRAME)
    assert reply == {"type": "ack", "tick": 30} and err is None and snap is not None
    snap, reply, err = feed.receive(DELTA)
    assert reply == {"type": "ack", "tick": 33}
    assert snap is not None and len(snap["agents"]) == 6
    assert feed.receive(b"\x48\x01")[1] == {"type": "keyframe"}  # a broken frame


def test_feed_decodes_a_delta_on_a_state_of_its_own_scale_only() -> None:
    # A quantum changed: the coarse frames are on tick 30 too, which the feed holds at 1/64.
    feed = BinaryFeed()
    feed.receive(KEYFRAME)
    snap, reply, err = feed.receive(COARSE_DELTA)
    assert snap is None and reply == {"type": "keyframe"}
    assert err is not None and "a delta of scale 2 on tick 30, held at scale 6" in str(err)
    # The keyframe at the new scale; its deltas then decode, to positions in 1/4 unit.
    assert feed.receive(COARSE_KEYFRAME)[1] == {"type": "ack", "tick": 30}
    assert feed.states[30][0] == 2
    snap, reply, err = feed.receive(COARSE_DELTA)
    assert reply == {"type": "ack", "tick": 33} and err is None and snap is not None
    assert [(a["x"], a["y"]) for a in snap["agents"]] == [(a["x"] / 4, a["y"] / 4) for a in EXPECTED["coarse_delta"]["agents"]]
    assert feed.states[33] == (2, EXPECTED["coarse_delta"]["agents"])
    # And a delta at 1/64 on that state (tick 30 again) is refused in turn.
    assert feed.receive(DELTA)[1] == {"type": "keyframe"}


def test_feed_keeps_on_a_keyframe_the_states_an_ack_in_flight_may_name() -> None:
    feed = BinaryFeed()
    feed.receive(KEYFRAME)  # tick 30, acked
    later = bytearray(KEYFRAME)
    later[4] = 31  # the same keyframe as tick 31 (the tick is the first varint, byte 4)
    assert feed.receive(bytes(later))[1] == {"type": "ack", "tick": 31}
    assert feed.receive(DELTA)[1] == {"type": "ack", "tick": 33}  # built on 30
    assert sorted(feed.states) == [30, 31, 33]


def test_feed_drops_the_states_before_a_deltas_baseline() -> None:
    feed = BinaryFeed()
    earlier = bytearray(KEYFRAME)
    earlier[4] = 29
    feed.receive(bytes(earlier))
    feed.receive(KEYFRAME)
    assert sorted(feed.states) == [29, 30]
    feed.receive(DELTA)  # built on 30: no later delta can name 29
    assert sorted(feed.states) == [30, 33]


def test_feed_drops_every_state_when_the_tick_goes_back() -> None:
    feed = BinaryFeed()
    later = bytearray(KEYFRAME)
    later[4] = 40
    feed.receive(bytes(later))
    feed.receive(KEYFRAME)  # tick 30 after 40: a new world
    assert sorted(feed.states) == [30]
