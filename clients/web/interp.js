// @ts-check
// Snapshot interpolation: the server sends the world at its snapshot rate (20 Hz, say); the page
// draws it a little in the past, between the two snapshots around that moment, so motion is
// smooth at the display's rate. The delay is about two snapshot intervals, so one late snapshot
// is absorbed; when the buffer still runs dry, positions are extrapolated from the velocity for a
// short while and then held, and the next snapshot continues from there (no rubber band).
//
// Times: a snapshot's world time is tick / tick_rate; the page keeps the offset between its own
// clock and the world's (the earliest arrival seen, relaxing slowly upwards, reset after a pause).
// Only positions are interpolated; everything else (velocity, state, target...) is the newer
// snapshot's.

/** @import { Agent } from '../js/src/protocol.js' */

/**
 * What the last sample() did: the snapshots it drew between (ticks), how far from the older one,
 * and how: 'interpolate', 'extrapolate', 'hold' or 'empty'.
 * @typedef {object} InterpFrame
 * @property {number | null} fromTick
 * @property {number | null} toTick
 * @property {number} alpha
 * @property {string} mode
 * @property {number} renderMs
 * @property {number} extrapolatedMs
 */

export const DELAY_INTERVALS = 2; // the default delay, in snapshot intervals
const BUFFER_MAX = 32; // snapshots kept
const OFFSET_RELAX = 0.02; // how fast the clock offset follows later arrivals
const OFFSET_RESET_MS = 400; // an arrival this much later than expected resets the clock (pause, stall)
const MAX_EXTRAPOLATE_INTERVALS = 1; // past the newest snapshot, extrapolate at most this long, then hold

export class Interpolator {
  constructor() {
    this.tickRate = 60;
    this.snapshotRate = 20;
    /** @type {number | null} */
    this.delayOverrideMs = null; // set from the console (window.herd.setInterpolationDelay)
    /** @type {{tick: number, t: number, agents: Agent[]}[]} */
    this.buffer = []; // {tick, t (world ms), agents}, oldest first
    /** @type {number | null} */
    this.offset = null; // page ms minus world ms
    /** @type {InterpFrame} */
    this.last = { fromTick: null, toTick: null, alpha: 0, mode: 'empty', renderMs: 0, extrapolatedMs: 0 };
  }

  get intervalMs() {
    return 1000 / this.snapshotRate;
  }

  get delayMs() {
    return this.delayOverrideMs ?? DELAY_INTERVALS * this.intervalMs;
  }

  // A new world (welcome): rates, and a buffer that starts again.
  /** @param {number} tickRate @param {number} snapshotRate */
  reset(tickRate, snapshotRate) {
    this.tickRate = tickRate > 0 ? tickRate : 60;
    this.snapshotRate = snapshotRate > 0 ? snapshotRate : 20;
    this.buffer = [];
    this.offset = null;
  }

  /**
   * @param {number} tick
   * @param {Agent[]} agents ordered by id
   * @param {number} now page time, ms
   */
  push(tick, agents, now) {
    const t = (tick * 1000) / this.tickRate;
    const newest = this.buffer[this.buffer.length - 1];
    if (newest && tick <= newest.tick) {
      this.buffer = []; // ticks went back: another world
      this.offset = null;
    }
    this.buffer.push({ tick, t, agents });
    if (this.buffer.length > BUFFER_MAX) this.buffer.shift();
    const sample = now - t;
    if (this.offset === null || sample < this.offset || sample - this.offset > OFFSET_RESET_MS) this.offset = sample;
    else this.offset += (sample - this.offset) * OFFSET_RELAX;
  }

  // The snapshot of `tick` still in the buffer, or null.
  /** @param {number} tick */
  snapshot(tick) {
    return this.buffer.find((s) => s.tick === tick) ?? null;
  }

  // The agents to draw at page time `now`: the newer snapshot's objects with positions in between.
  /** @param {number} now @returns {Agent[]} */
  sample(now) {
    const buf = this.buffer;
    if (buf.length === 0) {
      this.last = { fromTick: null, toTick: null, alpha: 0, mode: 'empty', renderMs: 0, extrapolatedMs: 0 };
      return [];
    }
    const renderMs = now - /** @type {number} */ (this.offset) - this.delayMs; // set by the push that filled the buffer
    const newest = buf[buf.length - 1];
    if (renderMs >= newest.t) {
      // Late: carry on along the velocity briefly, then hold.
      const ahead = Math.min(renderMs - newest.t, MAX_EXTRAPOLATE_INTERVALS * this.intervalMs);
      this.last = { fromTick: newest.tick, toTick: newest.tick, alpha: 1, mode: ahead > 0 ? 'extrapolate' : 'hold', renderMs, extrapolatedMs: ahead };
      if (ahead <= 0) return newest.agents;
      const s = ahead / 1000;
      return newest.agents.map((a) => (a.vx === 0 && a.vy === 0 ? a : { ...a, x: a.x + a.vx * s, y: a.y + a.vy * s }));
    }
    if (renderMs <= buf[0].t || buf.length === 1) {
      this.last = { fromTick: buf[0].tick, toTick: buf[0].tick, alpha: 0, mode: 'hold', renderMs, extrapolatedMs: 0 };
      return buf[0].agents;
    }
    let i = buf.length - 1;
    while (i > 0 && buf[i - 1].t > renderMs) i--;
    const a = buf[i - 1];
    const b = buf[i];
    const alpha = (renderMs - a.t) / (b.t - a.t);
    this.last = { fromTick: a.tick, toTick: b.tick, alpha, mode: 'interpolate', renderMs, extrapolatedMs: 0 };
    return lerpAgents(a.agents, b.agents, alpha);
  }
}

// b's agents (both lists ordered by id), each placed between its position in a and in b. An
// agent new in b is drawn where b has it; one gone from b is not drawn. An agent that did not move
// is b's own object: a crowd standing still costs no allocation a frame.
/** @param {Agent[]} from @param {Agent[]} to @param {number} alpha @returns {Agent[]} */
export function lerpAgents(from, to, alpha) {
  const out = new Array(to.length);
  let j = 0;
  for (let i = 0; i < to.length; i++) {
    const b = to[i];
    while (j < from.length && from[j].id < b.id) j++;
    const a = j < from.length && from[j].id === b.id ? from[j] : null;
    out[i] = a && (a.x !== b.x || a.y !== b.y) ? { ...b, x: a.x + (b.x - a.x) * alpha, y: a.y + (b.y - a.y) * alpha } : b;
  }
  return out;
}
