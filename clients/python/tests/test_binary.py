"""The binary snapshot decoder against the shared fixtures (protocol/fixtures/binary), which the
server's C++ codec and the browser viewer's decoder are tested against too: the same bytes
decode to the same agents in all three. No server."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from herd import DecodeError
from herd.binary import BinaryFeed, decode_frame, dequantise, read_header, to_snapshot

FIXTURES = Path(__file__).resolve().parents[3] / "protocol" / "fixtures" / "binary"


def hex_bytes(name: str) -> bytes:
    return bytes.fromhex((FIXTURES / name).read_text())


EXPECTED = json.loads((FIXTURES / "expected.json").read_text())
KEYFRAME = hex_bytes("keyframe.hex")
DELTA = hex_bytes("delta.hex")


def test_keyframe_and_delta_decode_to_the_agents_the_cpp_codec_wrote() -> None:
    k = decode_frame(KEYFRAME)
    assert k.header.delta is False
    assert k.header.tick == EXPECTED["keyframe"]["tick"]
    assert k.agents == EXPECTED["keyframe"]["agents"]
    d = decode_frame(DELTA, k.agents)
    assert d.header.delta is True
    assert d.header.baseline_tick == EXPECTED["delta"]["baseline_tick"]
    assert d.header.tick == EXPECTED["delta"]["tick"]
    assert d.agents == EXPECTED["delta"]["agents"]


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


def test_the_avoidance_mode_byte_names_orca_and_nothing_past_it() -> None:
    orca = bytearray(KEYFRAME)
    orca[3] = 3
    assert to_snapshot(decode_frame(bytes(orca)))["avoidance"] == "orca"
    orca[3] = 4
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
