// @ts-check
// Snapshots as an async iterator (`for await (const snap of client.snapshots())`): those that
// arrive from the moment the stream is made. A reader slower than the snapshot rate gets the
// newest `queueSize` and `dropped` counts the others, so a slow reader never makes memory grow.

import { TimeoutError } from './errors.js';

/** @import { ConnectionClosed } from './errors.js' */
/** @import { Snapshot } from './protocol.js' */

/** @typedef {{resolve: (r: IteratorResult<Snapshot, undefined>) => void, reject: (err: Error) => void, timer?: ReturnType<typeof setTimeout>}} Waiter */

/** @implements {AsyncIterableIterator<Snapshot, undefined>} */
export class SnapshotStream {
  /**
   * @param {{timeout: number | null, queueSize: number, onClose: (stream: SnapshotStream) => void}} options
   *   timeout: milliseconds to wait for each snapshot (null: for ever); onClose: the stream is done
   */
  constructor({ timeout, queueSize, onClose }) {
    if (!Number.isInteger(queueSize) || queueSize < 1) throw new RangeError(`queueSize must be 1 or more, not ${queueSize}`);
    this.timeout = timeout;
    this.queueSize = queueSize;
    this.dropped = 0; // snapshots replaced by newer ones before they were read
    /** @type {Snapshot[]} */
    this.items = [];
    /** @type {Waiter[]} */
    this.waiters = [];
    /** @type {null | 'done' | ConnectionClosed} */
    this.end = null;
    this.onClose = onClose;
  }

  // The client's side: a snapshot arrived.
  /** @param {Snapshot} snapshot */
  put(snapshot) {
    if (this.end) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      clearTimeout(waiter.timer);
      waiter.resolve({ value: snapshot, done: false });
      return;
    }
    this.items.push(snapshot);
    if (this.items.length > this.queueSize) {
      this.items.shift();
      ++this.dropped;
    }
  }

  // The client's side: no more snapshots. 'done' ends the iteration (the stream or the client was
  // closed on purpose); a ConnectionClosed is thrown to the reader once the unread ones are read.
  /** @param {'done' | ConnectionClosed} end */
  finish(end) {
    if (this.end) return;
    this.end = end;
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      if (end === 'done') w.resolve({ value: undefined, done: true });
      else w.reject(end);
    }
  }

  /** @returns {Promise<IteratorResult<Snapshot, undefined>>} */
  next() {
    const snapshot = this.items.shift();
    if (snapshot) return Promise.resolve({ value: snapshot, done: false });
    if (this.end === 'done') return Promise.resolve({ value: undefined, done: true });
    if (this.end) return Promise.reject(this.end);
    return new Promise((resolve, reject) => {
      /** @type {Waiter} */
      const waiter = { resolve, reject };
      if (this.timeout !== null) {
        const ms = this.timeout;
        waiter.timer = setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          reject(new TimeoutError(`no snapshot within ${ms} ms`));
        }, ms);
      }
      this.waiters.push(waiter);
    });
  }

  // Stops receiving snapshots (a `for await` loop left by break or return calls it).
  /** @returns {Promise<IteratorResult<Snapshot, undefined>>} */
  return() {
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  close() {
    this.items.length = 0;
    this.finish('done');
    this.onClose(this);
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}
