// @ts-check
// The inspector's session state: which agents this viewer asks the server to explain.
//
// The server keeps one list per session and puts its traces in every snapshot it sends that
// session (no other session's); a new session (after a reconnect) starts with no list, so the
// list is sent again after every welcome. A snapshot sent before a change of the list may still
// trace the old one, so the viewer draws only the ones it asked for.

/** @import { InspectTrace } from '../js/src/protocol.js' */

export const MAX_INSPECTED = 16; // the protocol's limit for one `inspect` message
// Diagrams drawn at once: more cross one another and the map until none can be read. The server
// still traces MAX_INSPECTED, so pointing at another inspected agent shows its diagram at once.
export const MAX_DRAWN = 3;

export class Inspector {
  // send(msg) -> bool: false when there is no session to send it on.
  /** @param {(msg: {type: 'inspect', agents: number[]}) => boolean} send */
  constructor(send) {
    this.send = send;
    this.on = false;
    /** @type {number[]} */
    this.ids = []; // the list the server has for this session
    /** @type {string | null} */
    this.sentKey = null; // ids.join(','), or null when the session's list is unknown
  }

  toggle() {
    this.on = !this.on;
  }

  // A new session has no list: forget what the old one had, so sync() sends ours again.
  /** @param {Set<number>} selected */
  sessionStarted(selected) {
    this.sentKey = null;
    this.ids = [];
    this.sync(selected);
  }

  // Sends an `inspect` message when the wanted list (the first 16 selected agents while on,
  // none while off) differs from the session's. Cheap enough to call every frame.
  /** @param {Set<number>} selected */
  sync(selected) {
    const ids = this.on ? firstIds(selected, MAX_INSPECTED) : [];
    const key = ids.join(',');
    if (key === this.sentKey) return;
    // A fresh session already inspects nothing: no need to say so.
    if (this.sentKey === null && ids.length === 0) {
      this.sentKey = key;
      return;
    }
    if (this.send({ type: 'inspect', agents: ids })) {
      this.sentKey = key;
      this.ids = ids;
    }
  }

  // Traces of the snapshot that this viewer asked for (none while off).
  /** @param {InspectTrace[] | null | undefined} traces @returns {InspectTrace[]} */
  wanted(traces) {
    if (!this.on || this.ids.length === 0 || !traces) return [];
    return traces.filter((t) => this.ids.includes(t.id));
  }

  // The traces to draw: the one of the inspected agent under the cursor (`hoverId`, or null) if
  // there is one, else those of the first MAX_DRAWN inspected agents.
  /**
   * @param {InspectTrace[] | null | undefined} traces
   * @param {number | null} hoverId
   * @returns {InspectTrace[]}
   */
  drawn(traces, hoverId) {
    const wanted = this.wanted(traces);
    if (hoverId !== null && this.ids.includes(hoverId)) {
      const t = wanted.find((w) => w.id === hoverId);
      if (t) return [t];
    }
    const first = this.ids.slice(0, MAX_DRAWN);
    return wanted.filter((t) => first.includes(t.id));
  }
}

// The first n values of a Set, in insertion order (the order the user selected them).
/** @param {Set<number>} set @param {number} n @returns {number[]} */
function firstIds(set, n) {
  /** @type {number[]} */
  const out = [];
  for (const id of set) {
    if (out.length === n) break;
    out.push(id);
  }
  return out;
}
