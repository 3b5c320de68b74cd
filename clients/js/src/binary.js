// @ts-check
// Binary snapshots (protocol/PROTOCOL.md "Binary snapshots"): decodes a frame against the agents
// the client holds for the frame's baseline tick. Mirrors protocol/snapshot_records.hpp; both are
// checked against protocol/fixtures/binary. No dependencies: the browser and Node alike.

import { DecodeError } from './errors.js';

/** @import { Agent, MapMessage, Obstacle, Collision, Formation, InspectTrace, Snapshot, DensityMessage, Measurement, Source, Exit, Wall, GameEvent, Ghost, Explored } from './protocol.js' */

/**
 * An agent as a frame carries it: integers in the format's units (positions in 1/2^scale unit,
 * the frame's scale: 1/POSITION_SCALE at the finest, speed in 1/SPEED_SCALE, radius in
 * 1/RADIUS_SCALE, heading in 1/256 of a turn, flags: state in bits 0-1, collided bit 2, kinematic
 * bit 3).
 * @typedef {object} QuantAgent
 * @property {number} id
 * @property {number} x
 * @property {number} y
 * @property {number} heading
 * @property {number} speed
 * @property {number} flags
 * @property {number} radius
 * @property {number} group
 * @property {number} team 0 nobody's, else 1-63
 */

/**
 * A frame's header (readHeader).
 * @typedef {object} BinaryHeader
 * @property {boolean} delta
 * @property {boolean} filtered
 * @property {string} avoidance
 * @property {number} tick
 * @property {number} baselineTick
 * @property {number} lead deltas: the time from the baseline, in 1/1024 s (0 for a keyframe)
 * @property {number} serial 0: none
 * @property {number} time
 * @property {number} xBits
 * @property {number} yBits
 * @property {number} scale positions are in quanta of 1 / 2^scale unit, scale in [0, MAX_SCALE]
 * @property {number} baselineCount
 * @property {number} agentCount
 * @property {string | null} side the side section's JSON text
 * @property {number} bodyAt the byte the agents start at
 */

/**
 * The side section's JSON: what a frame carries besides the quantised agents.
 * @typedef {object} SideSection
 * @property {Agent[]} [agents] the inspected agents' whole objects
 * @property {Obstacle[]} [obstacles]
 * @property {Wall[]} [walls]
 * @property {Collision[]} [collisions]
 * @property {Formation[]} [formations]
 * @property {InspectTrace[]} [inspect]
 * @property {MapMessage | null} [map]
 * @property {DensityMessage} [density] the density layer, to a session that asked for it
 * @property {Measurement[]} [measurements] every measurement line and area, when one changed or reported
 * @property {Source[]} [sources] every source, with `exits`, when one changed
 * @property {Exit[]} [exits]
 * @property {number[]} [health] the hurt agents' hit points, flat [id, hp, max_hp, ...]
 * @property {GameEvent[]} [events]
 * @property {Ghost[]} [ghosts] a player's
 * @property {Explored} [explored] a player's, when it grew (and every 5 s)
 */

/**
 * What a new agent's fields may repeat from the agent written before it (readFull).
 * @typedef {Pick<QuantAgent, 'id' | 'speed' | 'flags' | 'radius' | 'group' | 'team'>} QuantShared
 */

/** @typedef {{header: BinaryHeader, agents: QuantAgent[]}} BinaryFrame */
/** @typedef {{scale: number, agents: QuantAgent[]}} HeldState a decoded frame's agents, in quanta of 1 / 2^scale unit */
/** @typedef {{type: 'keyframe'} | {type: 'ack', tick: number}} FeedReply */
/**
 * What BinaryFeed.receive makes of a frame: the snapshot it stands for (null when it cannot be
 * decoded), the message to send back, and why it could not be decoded.
 * @typedef {{snapshot: Snapshot | null, reply: FeedReply, error: DecodeError | null}} FeedResult
 */

// Positions are in quanta of 1 / 2^scale unit, the scale a frame's (its header's `scale`, which the
// session's `quantum` chooses): from 1 unit (scale 0) down to 1/64 (MAX_SCALE, the default).
export const MAX_SCALE = 6;
export const POSITION_SCALE = 2 ** MAX_SCALE; // quanta a unit at the finest scale: 1/64 unit
export const SPEED_SCALE = 16; // speed in 1/16 unit/s
export const RADIUS_SCALE = 64; // radius in 1/64 unit, whatever the frame's scale
const MAGIC = 0x48;
const VERSION = 4;
const MAX_AGENTS = 1 << 24;
const STATES = ['idle', 'moving', 'arrived', 'unreachable'];
const AVOIDANCE = ['none', 'circle', 'cardioid', 'orca', 'cfsm'];

class Truncated extends Error {}

// Least significant bit first, as BitReader in protocol/bit_stream.hpp.
class BitReader {
  /**
   * @param {Uint8Array} bytes
   * @param {number} at the byte to start at
   */
  constructor(bytes, at = 0) {
    this.bytes = bytes;
    this.pos = at * 8; // in bits
  }
  /**
   * @param {number} n 0 to 32
   * @returns {number}
   */
  bits(n) {
    let out = 0;
    for (let i = 0; i < n; ) {
      const byte = this.pos >>> 3;
      if (byte >= this.bytes.length) throw new Truncated('truncated');
      const shift = this.pos & 7;
      const take = Math.min(8 - shift, n - i);
      const v = (this.bytes[byte] >>> shift) & ((1 << take) - 1);
      out += v * 2 ** i; // n may be 32: no sign trouble with multiplication
      i += take;
      this.pos += take;
    }
    return out;
  }
  bit() {
    return this.bits(1) === 1;
  }
  varint() {
    let out = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      const g = this.bits(8);
      out += (g & 0x7f) * 2 ** shift;
      if ((g & 0x80) === 0) {
        if (out > Number.MAX_SAFE_INTEGER) throw new Error('varint too large');
        return out;
      }
    }
    throw new Error('varint too long');
  }
  f64() {
    // The bounds first: a DataView past the end of the buffer throws a RangeError of its own.
    if ((this.pos >>> 3) + 8 > this.bytes.length) throw new Truncated('truncated');
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + (this.pos >>> 3), 8);
    this.pos += 64;
    return view.getFloat64(0, true);
  }
}

const unzigzag = (/** @type {number} */ z) => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);

// The header: {delta, filtered, tick, baselineTick, lead, serial (0: none), time, avoidance, xBits,
// yBits, scale, baselineCount, agentCount, side (string or null), bodyAt}. Throws a DecodeError saying what
// is wrong.
/** @param {Uint8Array} bytes @returns {BinaryHeader} */
export function readHeader(bytes) {
  const r = new BitReader(bytes);
  try {
    if (r.bits(8) !== MAGIC) throw new Error('bad magic byte');
    if (r.bits(8) !== VERSION) throw new Error('unknown format version');
    const flags = r.bits(8);
    if (flags & ~15) throw new Error('unknown flags');
    const mode = r.bits(8);
    if (mode >= AVOIDANCE.length) throw new Error('bad avoidance mode');
    // The other fields follow as they are read.
    const h = /** @type {BinaryHeader} */ ({
      delta: (flags & 1) !== 0,
      filtered: (flags & 4) !== 0,
      avoidance: AVOIDANCE[mode],
    });
    h.tick = r.varint();
    const back = h.delta ? r.varint() : 0;
    if (back > h.tick) throw new Error('baseline before tick 0');
    h.baselineTick = h.tick - back;
    // The time from the baseline, in 1/1024 s: what positions are predicted over.
    h.lead = h.delta ? r.varint() : 0;
    if (h.lead > MAX_LEAD) throw new Error('lead over 64 s');
    // Flags bit 3: the snapshot's serial, the server's count of snapshots made.
    h.serial = flags & 8 ? r.varint() : 0;
    if (flags & 8 && h.serial === 0) throw new Error('serial 0');
    h.time = r.f64();
    h.xBits = r.bits(8);
    h.yBits = r.bits(8);
    if (h.xBits < 1 || h.xBits > 32 || h.yBits < 1 || h.yBits > 32) throw new Error('bad position widths');
    h.scale = r.bits(8);
    if (h.scale > MAX_SCALE) throw new Error('bad position scale');
    h.baselineCount = h.delta ? r.varint() : 0;
    h.agentCount = r.varint();
    if (h.agentCount > MAX_AGENTS || h.baselineCount > MAX_AGENTS) throw new Error('too many agents');
    h.side = null;
    if (flags & 2) {
      const n = r.varint();
      const at = r.pos >>> 3;
      if (n === 0 || at + n > bytes.length) throw new Error('truncated side section');
      h.side = new TextDecoder().decode(bytes.subarray(at, at + n));
      r.pos += n * 8;
    }
    h.bodyAt = r.pos >>> 3;
    return h;
  } catch (err) {
    if (err instanceof Truncated) throw new DecodeError('binary snapshot: truncated header', { cause: err });
    throw new DecodeError('binary snapshot: ' + /** @type {Error} */ (err).message, { cause: err });
  }
}

// A new agent, written whole but for what it shares with the one before it (prev; the first agent's
// prev has id 0 and zeros): after its heading, '0' when its speed, flags, radius, group and team
// are all the previous agent's, else '1' and each of the four parts with a bit of its own.
/**
 * @param {BitReader} r
 * @param {QuantShared} prev
 * @param {number} xb
 * @param {number} yb
 * @returns {QuantAgent}
 */
function readFull(r, prev, xb, yb) {
  const gap = r.bit() ? 1 : r.varint();
  if (gap === 0 || prev.id + gap > 0xffffffff) throw new Error('bad agent id');
  // The other fields follow as they are read.
  const a = /** @type {QuantAgent} */ ({ id: prev.id + gap, x: r.bits(xb), y: r.bits(yb), heading: r.bits(8) });
  if (!r.bit()) return { ...a, speed: prev.speed, flags: prev.flags, radius: prev.radius, group: prev.group, team: prev.team };
  a.speed = r.bit() ? r.bits(16) : prev.speed;
  a.flags = r.bit() ? r.bits(4) : prev.flags;
  if (r.bit()) {
    a.radius = r.bits(16);
    a.group = r.bits(8);
  } else {
    a.radius = prev.radius;
    a.group = prev.group;
  }
  a.team = r.bit() ? r.bits(6) : prev.team;
  return a;
}

/**
 * @param {number} base
 * @param {number} z the zigzag-coded change
 * @param {number} bits the coordinate's width
 * @returns {number}
 */
function offset(base, z, bits) {
  const v = base + unzigzag(z);
  if (v < 0 || v > 2 ** bits - 1) throw new Error('position out of range');
  return v;
}

// Dead reckoning: round(16384 cos(2 pi h / 256)) for each heading step h (no entry is near a tie).
const COS = Array.from({ length: 256 }, (_, h) => Math.round(16384 * Math.cos((2 * Math.PI * h) / 256)));
const MAX_LEAD = 65535;

// Where baseline agent b is predicted after `lead` (1/1024 s): its position plus speed x lead x
// (cos, sin) of its heading / 2^n quanta, n = 28 - scale (22 at 1/64 unit), rounded half up,
// within the world. Every product is below 2^53 and the divisor a power of two, so the doubles
// are exact, as protocol/snapshot_records.hpp's integers.
/**
 * @param {QuantAgent} b
 * @param {number} lead
 * @param {number} xb
 * @param {number} yb
 * @param {number} scale
 * @returns {[number, number]}
 */
function predict(b, lead, xb, yb, scale) {
  if (b.speed === 0 || lead === 0) return [b.x, b.y];
  const m = b.speed * lead;
  const div = 2 ** (28 - scale);
  const dx = Math.floor((m * COS[b.heading] + div / 2) / div);
  const dy = Math.floor((m * COS[(b.heading + 192) % 256] + div / 2) / div);
  return [Math.min(Math.max(b.x + dx, 0), 2 ** xb - 1), Math.min(Math.max(b.y + dy, 0), 2 ** yb - 1)];
}

// An agent of the baseline (b) that changed otherwise than by moving as predicted (p). The position
// is prefixed 0 (an offset from p of k bits a coordinate), 10 (of k + 4 bits) or 11 (absolute),
// as serialize_change in protocol/snapshot_records.hpp.
/**
 * @param {BitReader} r
 * @param {QuantAgent} b
 * @param {[number, number]} p
 * @param {number} xb
 * @param {number} yb
 * @param {number} k
 * @returns {QuantAgent}
 */
function readChange(r, b, p, xb, yb, k) {
  const a = { ...b };
  if (!r.bit()) {
    const zx = r.bits(k), zy = r.bits(k);
    a.x = offset(p[0], zx, xb);
    a.y = offset(p[1], zy, yb);
  } else {
    if (!r.bit()) {
      const zx = r.bits(k + 4), zy = r.bits(k + 4);
      a.x = offset(p[0], zx, xb);
      a.y = offset(p[1], zy, yb);
    } else {
      a.x = r.bits(xb);
      a.y = r.bits(yb);
    }
  }
  if (r.bit()) a.heading = r.bit() ? r.bits(8) : (b.heading + unzigzag(r.bits(4)) + 256) % 256;
  if (r.bit()) {
    if (r.bit()) a.speed = r.bits(16);
    else {
      a.speed = b.speed + unzigzag(r.bits(4));
      if (a.speed < 0 || a.speed > 65535) throw new Error('speed out of range');
    }
  }
  if (r.bit()) {
    a.flags = r.bits(4);
    if (r.bit()) {
      a.radius = r.bits(16);
      a.group = r.bits(8);
      a.team = r.bits(6);
    }
  }
  return a;
}

// Decodes a frame. `baseline` is the array of quantised agents held for header.baselineTick
// (ignored for a keyframe). Returns {header, agents} with agents quantised and ordered by id;
// throws a DecodeError for hostile or truncated input, or a baseline that does not match.
/** @param {Uint8Array} bytes @param {QuantAgent[]} [baseline] @returns {BinaryFrame} */
export function decodeBinary(bytes, baseline = []) {
  const h = readHeader(bytes);
  if (!h.delta) baseline = [];
  else if (baseline.length !== h.baselineCount) throw new DecodeError('binary snapshot: the baseline does not match the frame');
  const r = new BitReader(bytes, h.bodyAt);
  /** @type {QuantAgent[]} */
  const kept = [];
  /** @type {QuantAgent[]} */
  const added = [];
  try {
    const k = r.bits(8);
    if (k < 1 || k > 16) throw new Error('bad position change width');
    // Each agent of the baseline: 00 as predicted, 01 gone, 10 moved only (k-bit offsets from the
    // prediction), 11 changed.
    for (const b of baseline) {
      const changed = r.bit(), second = r.bit();
      if (!changed && second) continue;
      const p = predict(b, h.lead, h.xBits, h.yBits, h.scale);
      if (!changed) kept.push(p[0] === b.x && p[1] === b.y ? b : { ...b, x: p[0], y: p[1] });
      else if (!second) {
        const zx = r.bits(k), zy = r.bits(k);
        kept.push({ ...b, x: offset(p[0], zx, h.xBits), y: offset(p[1], zy, h.yBits) });
      } else kept.push(readChange(r, b, p, h.xBits, h.yBits, k));
    }
    const n = r.varint();
    if (n > h.agentCount) throw new Error('bad count of new agents');
    /** @type {QuantShared} */
    let prev = { id: 0, speed: 0, flags: 0, radius: 0, group: 0, team: 0 };
    for (let k = 0; k < n; ++k) {
      const a = readFull(r, prev, h.xBits, h.yBits);
      added.push(a);
      prev = a;
    }
  } catch (err) {
    const what = err instanceof Truncated ? 'truncated agents' : /** @type {Error} */ (err).message;
    throw new DecodeError('binary snapshot: ' + what, { cause: err });
  }
  if (kept.length + added.length !== h.agentCount) throw new DecodeError('binary snapshot: agent count does not match');
  /** @type {QuantAgent[]} */
  const agents = new Array(h.agentCount);
  let i = 0, j = 0, k = 0;
  while (i < kept.length || j < added.length) {
    agents[k++] = j >= added.length || (i < kept.length && kept[i].id < added[j].id) ? kept[i++] : added[j++];
    if (k > 1 && agents[k - 2].id >= agents[k - 1].id) throw new DecodeError('binary snapshot: an agent id twice');
  }
  return { header: h, agents };
}

// A quantised agent as the JSON snapshot's agent object (behaviour and targets are not carried);
// `scale`: its frame's, positions in 1 / 2^scale unit.
/** @param {QuantAgent} a @param {number} [scale] @returns {Agent} */
export function dequantise(a, scale = MAX_SCALE) {
  const quantum = 2 ** -scale;
  const speed = a.speed / SPEED_SCALE;
  const angle = (a.heading * 2 * Math.PI) / 256;
  /** @type {Agent} */
  const out = {
    id: a.id,
    x: a.x * quantum,
    y: a.y * quantum,
    vx: speed * Math.cos(angle),
    vy: speed * Math.sin(angle),
    r: a.radius / RADIUS_SCALE,
    group: a.group,
    state: STATES[a.flags & 3],
    behaviour: 'idle',
  };
  if (a.flags & 4) out.collided = true;
  if (a.flags & 8) out.movement = 'kinematic';
  if (a.team) out.team = a.team;
  return out;
}

// The side section's JSON, which must be an object (a hostile frame's may be anything).
/** @param {string} text @returns {SideSection} */
function readSide(text) {
  let side;
  try {
    side = JSON.parse(text);
  } catch (err) {
    throw new DecodeError('binary snapshot: the side section is not JSON', { cause: err });
  }
  if (side === null || typeof side !== 'object' || Array.isArray(side)) {
    throw new DecodeError('binary snapshot: the side section is not a JSON object');
  }
  return side;
}

// The JSON snapshot message a decoded frame stands for: the side section (obstacles, walls,
// collisions, formations, measurements, sources and exits, inspect, map, and the inspected agents'
// whole objects) over the dequantised agents.
/** @param {BinaryFrame} frame @returns {Snapshot} */
export function toSnapshot(frame) {
  const h = frame.header;
  const side = h.side ? readSide(h.side) : {};
  const details = new Map((side.agents ?? []).map((a) => [a.id, a]));
  /** @type {Snapshot} */
  const snap = {
    type: 'snapshot',
    tick: h.tick,
    time: h.time,
    avoidance: h.avoidance,
    agents: frame.agents.map((a) => details.get(a.id) ?? dequantise(a, h.scale)),
    collisions: side.collisions ?? [],
    formations: side.formations ?? [],
  };
  if (side.obstacles) snap.obstacles = side.obstacles; // absent: unchanged since told
  if (side.walls) snap.walls = side.walls; // absent: unchanged since told
  if (h.serial) snap.serial = h.serial;
  if (side.inspect) snap.inspect = side.inspect;
  if ('map' in side) snap.map = side.map;
  if (side.density) snap.density = side.density;
  if (side.measurements) snap.measurements = side.measurements; // absent: unchanged since told
  if (side.sources) snap.sources = side.sources; // with exits; absent: unchanged since told
  if (side.exits) snap.exits = side.exits;
  if (side.events) snap.events = side.events;
  if (side.ghosts) snap.ghosts = side.ghosts;
  if (side.explored) snap.explored = side.explored;
  if (side.health) applyHealth(snap.agents, side.health);
  return snap;
}

// The side section's `health`, flat [id, hp, max_hp, ...] of the hurt agents, onto the agents
// (ordered by id) as JSON gives them: `hp` and `max_hp` on the hurt ones (an inspected agent's
// whole object has its own already). The others are unhurt, and carry none.
/** @param {Agent[]} agents @param {unknown} health */
function applyHealth(agents, health) {
  if (!Array.isArray(health)) return;
  /** @type {Map<number, number>} */
  const at = new Map();
  for (let i = 0; i < agents.length; i++) at.set(agents[i].id, i);
  for (let k = 0; k + 2 < health.length; k += 3) {
    const i = at.get(health[k]);
    const hp = health[k + 1];
    const max = health[k + 2];
    if (i === undefined || typeof hp !== 'number' || typeof max !== 'number') continue;
    agents[i] = { ...agents[i], hp, max_hp: max };
  }
}

// What went wrong in decoding, as a DecodeError (a hostile side section may also make a TypeError).
/** @param {unknown} err @returns {DecodeError} */
function asDecodeError(err) {
  if (err instanceof DecodeError) return err;
  return new DecodeError(`binary snapshot: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}

// The client's side of the feed: keeps the decoded states a later delta may name as its baseline
// (only those at or after the newest delta's baseline, since the server's baselines never go
// back; a keyframe keeps them, as acks in flight may still be used),
// and says what to send back: an ack for each frame decoded, a keyframe request when one cannot be.
// A delta is built only on a frame of its own scale (a new quantum starts with a keyframe): one on
// a state of another scale cannot be decoded, and asks for a keyframe too.
export class BinaryFeed {
  constructor() {
    /** @type {Map<number, HeldState>} */
    this.states = new Map(); // tick -> quantised agents and their scale
    this.keyframes = 0; // frames decoded whole
    this.deltas = 0; // frames decoded against an acknowledged baseline
  }
  reset() {
    this.states.clear();
  }
  // The snapshot a frame stands for and the message to send back: an ack once it is decoded (the
  // server's next delta builds on it), or a keyframe request when it cannot be (its baseline is
  // not held, or it does not decode: `error` says why).
  /** @param {Uint8Array} bytes @returns {FeedResult} */
  receive(bytes) {
    let h;
    try {
      h = readHeader(bytes);
    } catch (err) {
      return { snapshot: null, reply: { type: 'keyframe' }, error: asDecodeError(err) };
    }
    const held = h.delta ? this.states.get(h.baselineTick) : { scale: h.scale, agents: [] };
    if (!held) {
      const error = new DecodeError(`binary snapshot: a delta on tick ${h.baselineTick}, which is not held`);
      return { snapshot: null, reply: { type: 'keyframe' }, error };
    }
    if (held.scale !== h.scale) {
      const error = new DecodeError(`binary snapshot: a delta of scale ${h.scale} on tick ${h.baselineTick}, held at scale ${held.scale}`);
      return { snapshot: null, reply: { type: 'keyframe' }, error };
    }
    let frame, snapshot;
    try {
      frame = decodeBinary(bytes, held.agents);
      snapshot = toSnapshot(frame);
    } catch (err) {
      return { snapshot: null, reply: { type: 'keyframe' }, error: asDecodeError(err) };
    }
    // A keyframe keeps the states held (acks in flight may still make the server build on one);
    // a delta's baseline ends the older ones; a tick that went back (a new world) ends them all.
    const newest = Math.max(-1, ...this.states.keys());
    if (newest >= h.tick) this.states.clear();
    if (h.delta) for (const t of this.states.keys()) if (t < h.baselineTick) this.states.delete(t);
    this.states.set(h.tick, { scale: h.scale, agents: frame.agents });
    if (h.delta) ++this.deltas;
    else ++this.keyframes;
    while (this.states.size > 32) this.states.delete(/** @type {number} */ (this.states.keys().next().value));
    return { snapshot, reply: { type: 'ack', tick: h.tick }, error: null };
  }
}
