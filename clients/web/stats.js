// @ts-check
// What the status bar says about the stream: snapshots and bytes received per second (over the
// last second), and snapshots dropped: those the server made but skipped for this viewer (a slow
// reader's latest-wins lane, frames held for its acks), counted from the gaps in the snapshots'
// `serial`, the server's count of snapshots made. Gaps in the ticks would not do: a pause, a step
// of many ticks or a late wake of the server's tick loop leaves them with nothing lost.
// Counted while the world runs by the clock only: a step by hand makes its snapshots in a burst,
// faster than any screen, and the server keeps the newest of them for each viewer (latest wins),
// so that the step's end shows at once; those skipped are not news. A welcome (a pause, a resume,
// new rates, a new world) may overtake the snapshots sent before it, so serials are compared
// afresh from the first snapshot after it.

/** @typedef {{snapshotsPerSec: number, bytesPerSec: number, dropped: number}} StreamReading */

const WINDOW_MS = 1000;

export class StreamStats {
  constructor() {
    /** @type {{at: number, bytes: number, snapshot: boolean}[]} */
    this.arrivals = []; // {at, bytes}, the last WINDOW_MS
    this.dropped = 0;
    /** @type {number | null} */
    this.prevSerial = null; // the last snapshot's serial, or null: nothing to compare with
    this.paused = false; // the world is paused (the last welcome said so): gaps are not counted
  }

  // Every welcome: serials are compared from the next snapshot on. paused: the welcome's.
  reset(paused = false) {
    this.prevSerial = null;
    this.paused = paused;
  }

  // Any message (bytes: its length).
  /** @param {number} bytes @param {number} now */
  message(bytes, now) {
    this.arrivals.push({ at: now, bytes, snapshot: false });
    this.#trim(now);
  }

  // serial: the snapshot's, or undefined from a server that does not number them (nothing is
  // counted then: no guess from the ticks).
  /** @param {number | undefined} serial @param {number} now */
  snapshot(serial, now) {
    const last = this.arrivals[this.arrivals.length - 1];
    if (last) last.snapshot = true; // the message just counted
    if (serial !== undefined && Number.isInteger(serial) && serial > 0) {
      if (!this.paused && this.prevSerial !== null && serial > this.prevSerial + 1) this.dropped += serial - this.prevSerial - 1;
      this.prevSerial = serial;
    }
    this.#trim(now);
  }

  // {snapshotsPerSec, bytesPerSec, dropped} at page time `now`.
  /** @param {number} now @returns {StreamReading} */
  read(now) {
    this.#trim(now);
    let snaps = 0;
    let bytes = 0;
    for (const a of this.arrivals) {
      bytes += a.bytes;
      if (a.snapshot) snaps++;
    }
    const span = WINDOW_MS / 1000;
    return { snapshotsPerSec: snaps / span, bytesPerSec: bytes / span, dropped: this.dropped };
  }

  /** @param {number} now */
  #trim(now) {
    let i = 0;
    while (i < this.arrivals.length && now - this.arrivals[i].at > WINDOW_MS) i++;
    if (i > 0) this.arrivals.splice(0, i);
  }
}

// "12.3 kB/s", "1.2 MB/s", "850 B/s".
/** @param {number} b @returns {string} */
export function formatBytesPerSec(b) {
  if (b >= 1e6) return `${(b / 1e6).toFixed(1)} MB/s`;
  if (b >= 1e3) return `${(b / 1e3).toFixed(1)} kB/s`;
  return `${Math.round(b)} B/s`;
}
