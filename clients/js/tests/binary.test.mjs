// The binary snapshot decoder against the fixtures the C++ tests pin (protocol/fixtures/binary):
// the same bytes decode to the same agents in both. No server.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { decodeBinary, readHeader, dequantise, toSnapshot, BinaryFeed } from '../src/binary.js';
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

describe('binary snapshots', () => {
  it('decode the keyframe and the delta fixtures to the agents the C++ codec wrote', () => {
    const k = decodeBinary(keyframe);
    assert.equal(k.header.delta, false);
    assert.equal(k.header.tick, expected.keyframe.tick);
    assert.deepEqual(k.agents, expected.keyframe.agents);
    const d = decodeBinary(delta, k.agents);
    assert.equal(d.header.delta, true);
    assert.equal(d.header.baselineTick, expected.delta.baseline_tick);
    assert.deepEqual(d.agents, expected.delta.agents);
    const snap = toSnapshot(d);
    assert.equal(snap.tick, 33);
    assert.deepEqual(snap.obstacles, [{ id: 1, x: 40, y: 20, r: 5 }]);
    assert.equal(snap.agents.length, 6);
    const a = dequantise(expected.keyframe.agents[0]);
    assert.equal(a.x, 10);
    assert.equal(a.y, 20);
    assert.ok(Math.abs(a.vx - 5) < 0.1 && Math.abs(a.vy) < 0.2);
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

  it('name the avoidance mode of byte 3, orca (3) included, and refuse one past it', () => {
    const orca = Uint8Array.from(keyframe);
    orca[3] = 3;
    assert.equal(decodeBinary(orca).header.avoidance, 'orca');
    assert.equal(toSnapshot(decodeBinary(orca)).avoidance, 'orca');
    orca[3] = 4;
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

  it('feed: a keyframe keeps the states an ack in flight may still name', () => {
    const feed = new BinaryFeed();
    feed.receive(keyframe); // tick 30, acked
    // The same keyframe as tick 31 (the tick is the first varint, byte 4).
    const later = Uint8Array.from(keyframe);
    later[4] = 31;
    assert.deepEqual(feed.receive(later).reply, { type: 'ack', tick: 31 });
    assert.deepEqual(feed.receive(delta).reply, { type: 'ack', tick: 33 }); // built on 30
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
