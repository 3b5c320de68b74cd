// The binary snapshot decoder against the fixtures the C++ tests pin (protocol/fixtures/binary):
// the same bytes decode to the same agents in both, at 1/64 unit (scale 6) and at 1/4 (scale 2).
// No server.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { decodeBinary, readHeader, dequantise, toSnapshot, BinaryFeed, MAX_SCALE } from '../src/binary.js';
import { DecodeError, HerdError } from '../src/errors.js';

const dir = new URL('../../../protocol/fixtures/binary/', import.meta.url);
const hex = (name) =>
  Uint8Array.from(
    readFileSync(new URL(name, dir), 'utf8')
      .split(/\s+/)
      .filter(Boolean)
      .map((b) => parseInt(b, 16)),
  );
const expected = JSON.parse(readFileSync(new URL('expected.json', dir), 'utf8'));
const keyframe = hex('keyframe.hex');
const delta = hex('delta.hex');
const coarseKeyframe = hex('coarse_keyframe.hex');
const coarseDelta = hex('coarse_delta.hex');
// The byte of the keyframe fixture's scale: after magic, version, flags, avoidance (4), its
// one-byte tick, its time (8) and xb, yb.
const KEYFRAME_SCALE_AT = 15;

// A frame as protocol/PROTOCOL.md lays it out, least significant bit first, for the cases the
// fixtures do not pin.
class BitWriter {
  constructor() {
    this.bytes = [];
    this.pos = 0; // in bits
  }
  bits(v, n) {
    for (let i = 0; i < n; ++i, ++this.pos) {
      if ((this.pos & 7) === 0) this.bytes.push(0);
      if (Math.floor(v / 2 ** i) % 2) this.bytes[this.bytes.length - 1] |= 1 << (this.pos & 7);
    }
    return this;
  }
  varint(v) {
    do {
      const low = v % 128;
      v = Math.floor(v / 128);
      this.bits(low | (v > 0 ? 128 : 0), 8);
    } while (v > 0);
    return this;
  }
  done() {
    return Uint8Array.from(this.bytes);
  }
}

// A delta at `scale` (tick 10 on tick 9, `lead` 1/1024 s, 16-bit positions) in which every one of
// `count` baseline agents moved as predicted ('00') and none is new.
const predictedDelta = (scale, lead, count) => {
  const w = new BitWriter().bits(0x48, 8).bits(4, 8).bits(1, 8).bits(0, 8).varint(10).varint(1).varint(lead);
  w.bits(0, 32).bits(0, 32).bits(16, 8).bits(16, 8).bits(scale, 8).varint(count).varint(count);
  w.bits(1, 8).bits(0, 2 * count).varint(0);
  return w.done();
};

const agent = (id, x, y, heading, speed) => ({ id, x, y, heading, speed, flags: 1, radius: 64, group: 0, team: 0 });

describe('binary snapshots', () => {
  it('decode every fixture, at 1/64 unit and at 1/4, to the scale and the agents the C++ codec wrote', () => {
    for (const [key, bytes, baseline] of [
      ['keyframe', keyframe, null],
      ['delta', delta, 'keyframe'],
      ['coarse_keyframe', coarseKeyframe, null],
      ['coarse_delta', coarseDelta, 'coarse_keyframe'],
    ]) {
      const want = expected[key];
      const f = decodeBinary(bytes, baseline ? expected[baseline].agents : undefined);
      assert.equal(f.header.delta, baseline !== null, key);
      assert.equal(f.header.tick, want.tick, key);
      assert.equal(f.header.scale, want.scale, key);
      if (baseline) assert.equal(f.header.baselineTick, want.baseline_tick, key);
      assert.deepEqual(f.agents, want.agents, key);
    }
    assert.equal(expected.keyframe.scale, MAX_SCALE);
    assert.equal(expected.coarse_keyframe.scale, 2);
    // Each decoded from the bytes of its baseline, not only from expected.json's agents.
    const d = decodeBinary(delta, decodeBinary(keyframe).agents);
    assert.deepEqual(d.agents, expected.delta.agents);
    assert.deepEqual(decodeBinary(coarseDelta, decodeBinary(coarseKeyframe).agents).agents, expected.coarse_delta.agents);
    const snap = toSnapshot(d);
    assert.equal(snap.tick, 33);
    assert.deepEqual(snap.obstacles, [{ id: 1, x: 40, y: 20, r: 5 }]);
    assert.equal(snap.agents.length, 6);
    const a = dequantise(expected.keyframe.agents[0]);
    assert.equal(a.x, 10);
    assert.equal(a.y, 20);
    assert.ok(Math.abs(a.vx - 5) < 0.1 && Math.abs(a.vy) < 0.2);
  });

  it("dequantise positions in the frame's quanta (1 / 2^scale unit), the radius always in 1/64", () => {
    // The same agent in both keyframes: (10, 20) units, at 1/64 and at 1/4.
    assert.deepEqual([expected.keyframe.agents[0].x, expected.coarse_keyframe.agents[0].x], [640, 40]);
    for (const [bytes, scale] of [[keyframe, 6], [coarseKeyframe, 2]]) {
      const first = toSnapshot(decodeBinary(bytes)).agents[0];
      assert.deepEqual([first.x, first.y, first.r], [10, 20, 1.5], `scale ${scale}`);
    }
    const q = agent(1, 3, 5, 0, 0);
    assert.deepEqual([dequantise(q, 0).x, dequantise(q, 0).y], [3, 5], '1 unit');
    assert.deepEqual([dequantise(q, 1).x, dequantise(q, 1).y], [1.5, 2.5], '1/2 unit');
    assert.deepEqual([dequantise(q).x, dequantise(q).y], [3 / 64, 5 / 64], 'the default: 1/64 unit');
    assert.equal(dequantise(q, 0).r, 1);
    // The coarse delta's agents, dequantised, are within half a quantum (plus 1/128) of the fine ones'.
    const fine = toSnapshot(decodeBinary(delta, expected.keyframe.agents)).agents;
    const coarse = toSnapshot(decodeBinary(coarseDelta, expected.coarse_keyframe.agents)).agents;
    assert.deepEqual(coarse.map((c) => c.id), fine.map((c) => c.id));
    for (let i = 0; i < fine.length; ++i) {
      assert.ok(Math.abs(coarse[i].x - fine[i].x) <= 1 / 8 + 1 / 128 && Math.abs(coarse[i].y - fine[i].y) <= 1 / 8 + 1 / 128, `agent ${fine[i].id}`);
    }
  });

  it('predict with the shift of the scale: v x lead x C[h] / 2^(28 - s), rounded half up', () => {
    // 1 unit/s (speed 16) for 1 s (lead 1024) is 2^s quanta, along x at heading 0, along y at 64.
    for (let s = 0; s <= MAX_SCALE; ++s) {
      const f = decodeBinary(predictedDelta(s, 1024, 2), [agent(1, 100, 100, 0, 16), agent(2, 100, 100, 64, 16)]);
      assert.equal(f.header.scale, s);
      assert.deepEqual(f.agents.map((a) => [a.x, a.y]), [[100 + 2 ** s, 100], [100, 100 + 2 ** s]], `scale ${s}`);
    }
    // Half a quantum rounds up, either way: 1/8 unit/s for 1 s at 1/4 unit is +0.5 quantum (to
    // +1) heading +x, -0.5 (to 0) heading -x; 1/16 unit/s is 0.25 quantum (0) at 1/4, 4 at 1/64.
    const slow = [agent(1, 100, 100, 0, 2), agent(2, 100, 100, 128, 2), agent(3, 100, 100, 0, 1)];
    assert.deepEqual(decodeBinary(predictedDelta(2, 1024, 3), slow).agents.map((a) => a.x), [101, 100, 100]);
    assert.deepEqual(decodeBinary(predictedDelta(6, 1024, 3), slow).agents.map((a) => a.x), [108, 92, 104]);
  });

  it('refuse a scale over 6 and any version but 4 as malformed', () => {
    assert.equal(keyframe[KEYFRAME_SCALE_AT], 6, 'the byte is the scale');
    for (const [scale, ok] of [[0, true], [6, true], [7, false], [255, false]]) {
      const bytes = Uint8Array.from(keyframe);
      bytes[KEYFRAME_SCALE_AT] = scale;
      if (ok) assert.equal(readHeader(bytes).scale, scale);
      else assert.throws(() => decodeBinary(bytes), /^DecodeError: binary snapshot: bad position scale$/, `scale ${scale}`);
    }
    for (const version of [1, 2, 3, 5]) {
      const bytes = Uint8Array.from(keyframe);
      bytes[1] = version;
      assert.throws(() => readHeader(bytes), /unknown format version/, `version ${version}`);
    }
    // Cut off at the scale byte: the header is truncated.
    assert.throws(() => readHeader(keyframe.slice(0, KEYFRAME_SCALE_AT)), /truncated header/);
  });

  it("read a new agent's '0' after its heading as speed, flags, radius, group and team all the previous agent's", () => {
    // Agents 6 and 7 of the keyframes: 7 (at 0, 0) repeats all of 6's but its position.
    for (const key of ['keyframe', 'coarse_keyframe']) {
      const [six, seven] = expected[key].agents.slice(4);
      assert.deepEqual([six.id, seven.id], [6, 7]);
      for (const f of ['speed', 'flags', 'radius', 'group', 'team']) assert.equal(seven[f], six[f], `${key}: ${f}`);
    }
    // Two new agents: the first '1' and its four parts, the second '0' (all as the first's).
    const w = new BitWriter().bits(0x48, 8).bits(4, 8).bits(0, 8).bits(0, 8).varint(5).bits(0, 64);
    w.bits(8, 8).bits(8, 8).bits(3, 8).varint(2).bits(1, 8).varint(2);
    w.bits(1, 1).bits(10, 8).bits(20, 8).bits(7, 8).bits(1, 1); // id 1, x, y, heading, the parts follow
    w.bits(1, 1).bits(300, 16).bits(1, 1).bits(9, 4).bits(1, 1).bits(40, 16).bits(3, 8).bits(1, 1).bits(5, 6);
    w.bits(1, 1).bits(30, 8).bits(40, 8).bits(9, 8).bits(0, 1); // id 2: all as id 1's
    const f = decodeBinary(w.done());
    assert.equal(f.header.scale, 3);
    const shared = { speed: 300, flags: 9, radius: 40, group: 3, team: 5 };
    assert.deepEqual(f.agents, [{ id: 1, x: 10, y: 20, heading: 7, ...shared }, { id: 2, x: 30, y: 40, heading: 9, ...shared }]);
    assert.deepEqual([toSnapshot(f).agents[1].x, toSnapshot(f).agents[1].y], [30 / 8, 40 / 8]);
  });

  it('read the serial (flags bit 3, a varint after the tick) into the snapshot', () => {
    // The keyframe fixture with serial 300 (varint ac 02) after its tick (byte 4).
    const numbered = Uint8Array.from([...keyframe.subarray(0, 5), 0xac, 0x02, ...keyframe.subarray(5)]);
    numbered[2] |= 8;
    const k = decodeBinary(numbered);
    assert.equal(k.header.serial, 300);
    assert.deepEqual(k.agents, expected.keyframe.agents);
    assert.equal(toSnapshot(k).serial, 300);
    assert.equal(decodeBinary(keyframe).header.serial, 0, 'the fixtures have none');
    assert.equal(toSnapshot(decodeBinary(keyframe)).serial, undefined);
    const zero = Uint8Array.from([...keyframe.subarray(0, 5), 0x00, ...keyframe.subarray(5)]);
    zero[2] |= 8;
    assert.throws(() => decodeBinary(zero), /serial 0/);
    const bad = Uint8Array.from(keyframe);
    bad[2] |= 16;
    assert.throws(() => decodeBinary(bad), /unknown flags/);
  });

  it('name the avoidance mode of byte 3, orca (3) and cfsm (4) included, and refuse one past it', () => {
    const orca = Uint8Array.from(keyframe);
    orca[3] = 3;
    assert.equal(decodeBinary(orca).header.avoidance, 'orca');
    assert.equal(toSnapshot(decodeBinary(orca)).avoidance, 'orca');
    orca[3] = 4;
    assert.equal(toSnapshot(decodeBinary(orca)).avoidance, 'cfsm');
    orca[3] = 5;
    assert.throws(() => decodeBinary(orca), /bad avoidance mode/);
  });

  it('refuse a delta on the wrong baseline, and truncated or corrupted frames, without crashing', () => {
    const k = decodeBinary(keyframe);
    assert.throws(() => decodeBinary(delta, k.agents.slice(1)), /baseline/);
    for (let n = 0; n < delta.length; ++n) {
      try {
        decodeBinary(delta.subarray(0, n), k.agents);
      } catch (err) {
        assert.ok(err instanceof DecodeError && err instanceof HerdError);
        assert.equal(err.code, 'decode_error');
        assert.match(err.message, /^binary snapshot/);
      }
    }
    let seed = 1;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 2000; ++i) {
      const bad = Uint8Array.from(delta);
      bad[Math.floor(rand() * bad.length)] ^= 1 << Math.floor(rand() * 8);
      try {
        const f = decodeBinary(bad, k.agents);
        for (let j = 1; j < f.agents.length; ++j) assert.ok(f.agents[j - 1].id < f.agents[j].id);
      } catch (err) {
        assert.ok(err instanceof DecodeError, String(err));
      }
    }
    assert.throws(() => readHeader(Uint8Array.from([0x7b, 0x22])), /magic/);
  });

  it('refuse a frame cut off inside the time field of its header as truncated', () => {
    // The keyframe's time is the 8 bytes after its one-byte tick (byte 4): no baseline, no serial.
    const h = readHeader(keyframe);
    assert.equal(h.tick, 30);
    assert.equal(h.delta || h.serial !== 0, false);
    // slice, not subarray: a copy whose buffer ends where the frame does, as a WebSocket message's
    // does (a subarray's buffer runs on past its end).
    for (let n = 5; n < 13; ++n) {
      assert.throws(() => readHeader(keyframe.slice(0, n)), /^DecodeError: binary snapshot: truncated header$/, `${n} bytes`);
      assert.throws(() => decodeBinary(keyframe.slice(0, n)), /^DecodeError: binary snapshot: truncated header$/, `${n} bytes`);
    }
  });

  it('feed: acks what it decodes, asks for a keyframe when it lacks the baseline', () => {
    const feed = new BinaryFeed();
    const orphan = feed.receive(delta);
    assert.deepEqual(orphan.reply, { type: 'keyframe' });
    assert.equal(orphan.snapshot, null);
    assert.match(orphan.error.message, /a delta on tick 30, which is not held/);
    const first = feed.receive(keyframe);
    assert.deepEqual(first.reply, { type: 'ack', tick: 30 });
    assert.equal(first.error, null);
    const second = feed.receive(delta);
    assert.deepEqual(second.reply, { type: 'ack', tick: 33 });
    assert.equal(second.snapshot.agents.length, 6);
  });

  it("feed: decodes a delta on a state of its own scale only, and asks for a keyframe otherwise", () => {
    // A quantum changed: the coarse frames are on tick 30 too, which the feed holds at 1/64.
    const feed = new BinaryFeed();
    feed.receive(keyframe);
    const mixed = feed.receive(coarseDelta);
    assert.equal(mixed.snapshot, null);
    assert.deepEqual(mixed.reply, { type: 'keyframe' });
    assert.match(mixed.error.message, /a delta of scale 2 on tick 30, held at scale 6/);
    // The keyframe at the new scale; its deltas then decode, to positions in 1/4 unit.
    assert.deepEqual(feed.receive(coarseKeyframe).reply, { type: 'ack', tick: 30 });
    assert.equal(feed.states.get(30).scale, 2);
    const coarse = feed.receive(coarseDelta);
    assert.deepEqual(coarse.reply, { type: 'ack', tick: 33 });
    assert.deepEqual(coarse.snapshot.agents.map((a) => [a.x, a.y]), expected.coarse_delta.agents.map((a) => [a.x / 4, a.y / 4]));
    assert.deepEqual(feed.states.get(33), { scale: 2, agents: expected.coarse_delta.agents });
    // And a delta at 1/64 on that state (tick 30 again) is refused in turn.
    assert.deepEqual(feed.receive(delta).reply, { type: 'keyframe' });
  });

  it('feed: a keyframe keeps the states an ack in flight may still name', () => {
    const feed = new BinaryFeed();
    feed.receive(keyframe); // tick 30, acked
    // The same keyframe as tick 31 (the tick is the first varint, byte 4).
    const later = Uint8Array.from(keyframe);
    later[4] = 31;
    assert.deepEqual(feed.receive(later).reply, { type: 'ack', tick: 31 });
    assert.deepEqual(feed.receive(delta).reply, { type: 'ack', tick: 33 }); // built on 30
  });

  it("the side section's game members: health onto its hurt agents, events, ghosts and explored as JSON has them", () => {
    const at = readHeader(keyframe).bodyAt;
    const ids = decodeBinary(keyframe).agents.map((a) => a.id);
    const game = {
      health: [ids[0], 40, 100, 999999, 1, 2],
      events: [{ type: 'death', tick: 3, agent: 7, x: 1, y: 2 }],
      ghosts: [{ id: 8, x: 5, y: 6, r: 4, group: 0, team: 2, time: 1.5 }],
      explored: { cell: 25, cols: 2, rows: 1, bits: 'Aw==' },
    };
    const side = new TextEncoder().encode(JSON.stringify(game));
    const length = [];
    for (let n = side.length; ; n >>= 7) {
      if (n < 128) {
        length.push(n);
        break;
      }
      length.push((n & 127) | 128); // a varint, 7 bits a byte, the lowest first
    }
    const bytes = Uint8Array.from([...keyframe.subarray(0, at), ...length, ...side, ...keyframe.subarray(at)]);
    bytes[2] |= 2;
    const snap = toSnapshot(decodeBinary(bytes));
    assert.deepEqual([snap.agents[0].hp, snap.agents[0].max_hp], [40, 100]);
    for (const a of snap.agents.slice(1)) assert.equal(a.hp, undefined, `agent ${a.id} is unhurt`);
    assert.deepEqual(snap.events, game.events);
    assert.deepEqual(snap.ghosts, game.ghosts);
    assert.deepEqual(snap.explored, game.explored);
  });

  it('feed: a side section that is not a JSON object is a decode error, not a crash', () => {
    // The keyframe with a side section (flags bit 1) of `text` where its header ends.
    const at = readHeader(keyframe).bodyAt;
    const withSide = (text) => {
      const side = new TextEncoder().encode(text);
      const bytes = Uint8Array.from([...keyframe.subarray(0, at), side.length, ...side, ...keyframe.subarray(at)]);
      bytes[2] |= 2;
      return bytes;
    };
    assert.equal(toSnapshot(decodeBinary(withSide('{"obstacles":[]}'))).obstacles.length, 0, 'the splice makes a valid frame');
    for (const text of ['{"agents":', 'null', '[1]', '{"agents":7}']) {
      const feed = new BinaryFeed();
      const r = feed.receive(withSide(text));
      assert.equal(r.snapshot, null, text);
      assert.deepEqual(r.reply, { type: 'keyframe' }, text);
      assert.ok(r.error instanceof DecodeError, text);
      assert.equal(feed.states.size, 0, `${text}: nothing kept`);
    }
  });
});
