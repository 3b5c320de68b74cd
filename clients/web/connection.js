// @ts-check
// The WebSocket session with the herd server (protocol/PROTOCOL.md, version 1): says hello,
// hands every decoded message to the caller, measures round-trip time with ping, and reconnects
// with exponential backoff when the socket closes.

import { BinaryFeed } from './snapshot_binary.js';

// The server's messages as this viewer reads them (protocol/PROTOCOL.md, "Server to client").

/** @typedef {{x: number, y: number}} Point */

/**
 * A snapshot's agent. A binary frame's agents carry no behaviour, phase, targets or subject
 * (dequantise in snapshot_binary.js), but for the inspected ones.
 * @typedef {object} Agent
 * @property {number} id
 * @property {number} x
 * @property {number} y
 * @property {number} vx
 * @property {number} vy
 * @property {number} r
 * @property {number} group
 * @property {string} state 'idle', 'moving', 'arrived' or 'unreachable'
 * @property {string} [behaviour]
 * @property {string} [phase]
 * @property {number} [tx]
 * @property {number} [ty]
 * @property {boolean} [collided]
 * @property {string} [movement] 'kinematic' (absent: inertial)
 * @property {string} [pathing] absent: 'direct'
 * @property {string} [path] 'pending' while its A* path is queued
 * @property {number[]} [history] a walker's tiles, oldest first: [x0, y0, x1, y1, ...]
 * @property {number} [subject] the other agent its behaviour names
 * @property {number[]} [waypoints] where it goes after (tx, ty), in order: [x0, y0, x1, y1, ...]
 *   (queued orders; a patrol's rest of the lap)
 */

/** @typedef {{id: number, x: number, y: number, r: number}} Obstacle */
/** @typedef {{a: number, b: number, x: number, y: number, impulse: number, obstacle?: boolean}} Collision */

/**
 * A formation place that cannot be reached: `to` is the point beside an obstacle taken instead.
 * @typedef {{agent: number, x: number, y: number, reason: string, to?: Point}} FormationPlace
 */

/**
 * @typedef {object} Formation
 * @property {number} id
 * @property {number} agents
 * @property {number} arrived
 * @property {boolean} complete
 * @property {FormationPlace[]} [unreachable]
 */

/**
 * Part 4 of seed 003: what an inspected agent made of a moving obstacle's path.
 * @typedef {object} Crossing
 * @property {boolean} yielded
 * @property {Point} [point]
 * @property {number} t_self
 * @property {number} t_other
 * @property {number} scale
 * @property {Point} [path_to]
 */

/**
 * @typedef {object} Push
 * @property {number} id
 * @property {boolean} [obstacle] a static obstacle's id, not an agent's
 * @property {Point} raw
 * @property {Point} adjusted
 * @property {number} weight
 * @property {boolean} [ignored]
 * @property {Crossing} [crossing]
 */

/**
 * A snapshot's `inspect` entry: the avoidance of one agent taken apart, vectors in world axes.
 * @typedef {object} InspectTrace
 * @property {number} id
 * @property {Point} desired
 * @property {Push[]} pushes
 * @property {Point} sum_raw
 * @property {Point} sum_adjusted
 * @property {Point} split_fix
 * @property {number} ig_factor
 * @property {Point} final
 * @property {Point} velocity
 * @property {Point} [desired_path_to]
 * @property {Point} [current_path_to]
 */

/** @typedef {{width: number, height: number, tile_size: number, rows: string[]}} MapMessage */

/**
 * @typedef {object} Welcome
 * @property {'welcome'} type
 * @property {number} protocol
 * @property {string} server
 * @property {number} session
 * @property {string} role
 * @property {number} tick_rate
 * @property {number} snapshot_rate
 * @property {number} dt
 * @property {number} tick
 * @property {{width: number, height: number}} world
 * @property {{max_message_bytes: number, max_agents: number}} limits
 * @property {MapMessage} [map]
 * @property {Obstacle[]} [obstacles] every obstacle, ordered by id
 * @property {string} [scenario]
 * @property {string} [description] what the running scenario shows
 * @property {string[]} [scenarios]
 * @property {Record<string, string>} [descriptions] what each of `scenarios` shows, by name
 * @property {boolean} [paused]
 * @property {string} [upstream] a relay's: 'connected' or 'reconnecting'
 */

/**
 * @typedef {object} Snapshot
 * @property {'snapshot'} type
 * @property {number} tick
 * @property {number} [serial]
 * @property {number} time
 * @property {string} avoidance
 * @property {Agent[]} agents ordered by id
 * @property {Obstacle[]} [obstacles] ordered by id; only when they changed (and every few seconds)
 * @property {Collision[]} collisions
 * @property {Formation[]} [formations]
 * @property {InspectTrace[]} [inspect]
 * @property {MapMessage | null} [map] only after the map changed; null: removed
 * @property {import('./density.js').DensityMessage} [density] the density layer, twice a second to
 *   a session that asked for it ({type: 'density', on: true}; heat_map.js)
 */

/**
 * @typedef {object} Ack
 * @property {'ack'} type
 * @property {number} seq
 * @property {number} tick
 * @property {number} [count]
 * @property {number[]} [agents]
 * @property {number} [obstacle]
 * @property {number} [formation]
 */

/** @typedef {{type: 'error', seq?: number, code: string, message: string}} ErrorMessage */
/** @typedef {{type: 'pong', id: number, tick: number}} Pong */
/** @typedef {Welcome | Snapshot | Ack | ErrorMessage | Pong} ServerMessage */

/** @typedef {'connecting' | 'connected' | 'disconnected'} ConnectionState */

/** @typedef {{cmd: string} & Record<string, unknown>} CommandFields a command's fields but type and seq */

export const PROTOCOL_VERSION = 1;

// Backoff starts short so a server restart is barely noticed, and is capped so a long outage
// still reconnects within a few seconds of the server coming back.
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 5000;
const PING_INTERVAL_MS = 2000;
const UINT32_RANGE = 2 ** 32;

export class Connection {
  // onMessage(msg, chars): every JSON object from the server, welcome included, with the length
  // of its frame's text.
  // onState(): called when `state` changes ('connecting' | 'connected' | 'disconnected').
  // token: the server's command token ('' for none).
  // format: the snapshots asked for in hello: 'auto' (binary while the world has more than 1,000
  // agents), 'binary' or 'json'. Binary frames are decoded here (snapshot_binary.js), acknowledged,
  // and handed on as the JSON snapshot they stand for.
  /**
   * @param {string} url
   * @param {object} options
   * @param {(msg: ServerMessage, chars: number) => void} options.onMessage
   * @param {() => void} options.onState
   * @param {string} [options.token]
   * @param {string} [options.format]
   */
  constructor(url, { onMessage, onState, token = '', format = 'auto' }) {
    this.url = url;
    /** @type {{type: 'hello', protocol: number, role: string, client: string, token?: string, format?: string}} */
    // Always as commander: the server decides (access.js). An open server makes a page without a
    // token commander; one with a token answers `unauthorized` and welcomes it as viewer.
    this.hello = { type: 'hello', protocol: PROTOCOL_VERSION, role: 'commander', client: 'herd-web/1' };
    if (token) this.hello.token = token;
    if (format !== 'json') this.hello.format = format;
    this.feed = new BinaryFeed();
    /** @type {'json' | 'binary' | null} */
    this.snapshotFormat = null; // 'json' or 'binary': how the last snapshot came
    this.binaryFrames = 0;
    this.onMessage = onMessage;
    this.onState = onState;
    /** @type {ConnectionState} */
    this.state = 'connecting';
    this.retryAt = 0; // performance.now() time of the next attempt, while disconnected
    /** @type {number | null} */
    this.rttMs = null;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.generation = 0; // sockets opened so far: a welcome on another one is another session
    this.backoffMs = BACKOFF_MIN_MS;
    this.pingId = 0;
    this.pingSentAt = 0; // when ping `pingId` was sent; only the latest ping is timed
    setInterval(() => this.#ping(), PING_INTERVAL_MS);
  }

  start() {
    this.#open();
  }

  // Whether hello carries a command token (the page's #token=).
  get hasToken() {
    return this.hello.token !== undefined;
  }

  // Sends a message object; returns false when there is no greeted session to send it on.
  /** @param {object} msg @returns {boolean} */
  send(msg) {
    return this.sendRaw(JSON.stringify(msg));
  }

  /** @param {string} text @returns {boolean} */
  sendRaw(text) {
    if (this.state !== 'connected' || !this.ws) return false;
    this.ws.send(text);
    return true;
  }

  /** @param {ConnectionState} state */
  #setState(state) {
    this.state = state;
    this.onState();
  }

  #open() {
    this.#setState('connecting');
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (err) {
      console.warn('herd: cannot open', this.url, err);
      this.#scheduleRetry();
      return;
    }
    this.ws = ws;
    ++this.generation;
    ws.binaryType = 'arraybuffer';
    this.feed.reset(); // a new session starts from a keyframe
    ws.onopen = () => ws.send(JSON.stringify(this.hello));
    ws.onmessage = (ev) => this.#receive(ev.data);
    // 'error' is always followed by 'close', so only close drives the retry.
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      console.info(`herd: socket closed (code ${ev.code}${ev.reason ? ', ' + ev.reason : ''})`);
      this.ws = null;
      this.#scheduleRetry();
    };
  }

  /** @param {unknown} data a frame: a string, or an ArrayBuffer (binaryType) */
  #receive(data) {
    if (data instanceof ArrayBuffer) {
      // A binary snapshot: acknowledged once decoded (the server's next delta builds on it), or
      // answered with a keyframe request when its baseline is not here.
      const { snapshot, reply } = this.feed.receive(new Uint8Array(data));
      if (reply && this.ws) this.ws.send(JSON.stringify(reply));
      if (!snapshot) return;
      this.snapshotFormat = 'binary';
      ++this.binaryFrames;
      this.onMessage(snapshot, data.byteLength);
      return;
    }
    if (typeof data !== 'string') return;
    let msg;
    try {
      msg = JSON.parse(data);
    } catch (err) {
      console.warn('herd: server sent invalid JSON', err);
      return;
    }
    if (msg === null || typeof msg !== 'object') return;
    if (msg.type === 'welcome') {
      // Reset the backoff only once greeted: a server that accepts and then drops us at once
      // should still see us slow down.
      this.backoffMs = BACKOFF_MIN_MS;
      this.#setState('connected');
      this.#ping(); // an RTT now rather than one interval later
    } else if (msg.type === 'snapshot') {
      this.snapshotFormat = 'json';
    } else if (msg.type === 'pong') {
      if (msg.id === this.pingId) this.rttMs = performance.now() - this.pingSentAt;
    }
    this.onMessage(msg, data.length);
  }

  #scheduleRetry() {
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, BACKOFF_MAX_MS);
    this.retryAt = performance.now() + delay;
    this.rttMs = null;
    this.#setState('disconnected');
    setTimeout(() => this.#open(), delay);
  }

  #ping() {
    if (this.state !== 'connected') return;
    this.pingId = (this.pingId + 1) % UINT32_RANGE;
    this.pingSentAt = performance.now();
    this.send({ type: 'ping', id: this.pingId });
  }
}
