// What the status bar says about the stream: snapshots and bytes received per second (over the
// last second), and snapshots dropped: gaps in the snapshot ticks against the expected cadence
// (tick_rate / snapshot_rate ticks apart; the server replaces a snapshot a slow reader has not
// taken yet, and that shows as a gap).

const WINDOW_MS = 1000;

export class StreamStats {
  constructor() {
    this.arrivals = []; // {at, bytes}, the last WINDOW_MS
    this.dropped = 0;
    this.prevTick = null;
    this.ticksPerSnapshot = 3;
  }

  // A new world or new rates (welcome): the cadence to expect, and no previous tick to compare.
  reset(tickRate, snapshotRate) {
    this.ticksPerSnapshot = tickRate > 0 && snapshotRate > 0 ? tickRate / snapshotRate : 1;
    this.prevTick = null;
  }

  // Any message (bytes: its length).
  message(bytes, now) {
    this.arrivals.push({ at: now, bytes, snapshot: false });
    this.#trim(now);
  }

  snapshot(tick, now) {
    const last = this.arrivals[this.arrivals.length - 1];
    if (last) last.snapshot = true; // the message just counted
    if (this.prevTick !== null && tick > this.prevTick) {
      const missed = Math.round((tick - this.prevTick) / this.ticksPerSnapshot) - 1;
      if (missed > 0) this.dropped += missed;
    }
    this.prevTick = tick;
    this.#trim(now);
  }

  // {snapshotsPerSec, bytesPerSec, dropped} at page time `now`.
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

  #trim(now) {
    let i = 0;
    while (i < this.arrivals.length && now - this.arrivals[i].at > WINDOW_MS) i++;
    if (i > 0) this.arrivals.splice(0, i);
  }
}

// "12.3 kB/s", "1.2 MB/s", "850 B/s".
export function formatBytesPerSec(b) {
  if (b >= 1e6) return `${(b / 1e6).toFixed(1)} MB/s`;
  if (b >= 1e3) return `${(b / 1e3).toFixed(1)} kB/s`;
  return `${Math.round(b)} B/s`;
}
