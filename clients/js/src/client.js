// @ts-check
// The promise client. connect() says hello and resolves to a Client once welcomed: its methods
// are the protocol's commands (commands.js), each resolving to the command's ack or rejecting
// with a CommandError that carries the server's `code`; snapshots come as an async iterator
// (snapshots()), as callbacks (onSnapshot) or through waitFor, JSON or binary (decoded into the
// same objects, each frame acknowledged as the protocol asks). One socket: the client does not
// reconnect (the viewer's Connection does).

import { parseUrl } from './address.js';
import { Commands } from './commands.js';
import { Connection } from './connection.js';
import { CommandError, ConnectError, ConnectionClosed, HelloError, ServerError, TimeoutError } from './errors.js';
import { DEFAULT_QUANTUM, FORMATS, ROLES, checkQuantum } from './protocol.js';
import { SnapshotStream } from './stream.js';

/**
 * @import { Ack, ErrorMessage, Format, MapMessage, Obstacle, Pong, Quantum, Role, ServerMessage, Sessions, Snapshot, Wall, Welcome } from './protocol.js'
 * @import { CloseInfo, WebSocketConstructor } from './connection.js'
 * @import { RectLike, RequestOptions } from './commands.js'
 */

/**
 * @typedef {object} ConnectOptions
 * @property {Role} [role] 'commander' (the default; also 'operator'), 'player' (with a player's token:
 *   its team's agents, fog of war), or 'spectator' or 'viewer', which only watch
 * @property {string} [token] the server's command token; default the URL's #token=, else none
 * @property {Format} [format] snapshots 'json' (the default), 'binary' or 'auto'
 * @property {Quantum} [quantum] binary snapshots' position quantum, world units: 1, 0.5, 0.25,
 *   0.125, 0.0625, 0.03125 or 0.015625 (the default, 1/64); a coarser one costs fewer bytes
 * @property {WebSocketConstructor} [WebSocket] default globalThis.WebSocket (Node 20 has none:
 *   pass the `ws` package's, or import from 'herd-client/node', which does)
 * @property {number | null} [timeout] milliseconds to wait for the welcome and, unless a call says
 *   otherwise, for each answer and snapshot (null: for ever); default 10000
 * @property {string} [client] the name the server's logs give this session; default 'herd-js/1'
 * @property {number} [queueSize] snapshots a stream keeps unread, the oldest dropped first; default 256
 */

/** @typedef {{resolve: (msg: ServerMessage) => void, reject: (err: Error) => void, timer?: ReturnType<typeof setTimeout>, what: string}} Pending */

/**
 * @typedef {object} ViewportOptions
 * @property {Quantum} [quantum] binary snapshots' position quantum from now on (the next frame is
 *   then a keyframe); absent: unchanged
 */


/**
 * Whether a welcome's role is the one asked for: the operator by either name, a player as a
 * player (a wrong token is welcomed as a spectator); watching roles always.
 * @param {string} asked
 * @param {string} granted
 */
function grants(asked, granted) {
  if (asked === 'commander' || asked === 'operator') return granted === 'commander' || granted === 'operator';
  if (asked === 'player') return granted === 'player';
  return true;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_QUEUE = 256;
const UINT32_MAX = 0xffffffff;
const MAX_ERRORS = 64;

/**
 * Connects to a herd server, says hello, and resolves to the Client once welcomed. Rejects with a
 * ConnectError when the server cannot be reached, a HelloError when it refuses the hello (a
 * commander without its token: code 'unauthorized'), a TimeoutError when no welcome comes.
 * @param {string} url ws://HOST:PORT/ws, or the viewer's URL http://HOST:PORT/#token=...
 * @param {ConnectOptions} [options]
 * @returns {Promise<Client>}
 */
export async function connect(url, options = {}) {
  const { role = 'commander', format = 'json', timeout = DEFAULT_TIMEOUT_MS, queueSize = DEFAULT_QUEUE } = options;
  if (!ROLES.includes(role)) {
    throw new RangeError(`role must be 'operator' (or 'commander'), 'player', 'spectator' or 'viewer', not ${JSON.stringify(role)}`);
  }
  if (!FORMATS.includes(format)) throw new RangeError(`format must be 'json', 'binary' or 'auto', not ${JSON.stringify(format)}`);
  if (options.quantum !== undefined) checkQuantum(options.quantum);
  if (timeout !== null && !(timeout >= 0)) throw new RangeError(`timeout must be milliseconds or null, not ${timeout}`);
  if (!Number.isInteger(queueSize) || queueSize < 1) throw new RangeError(`queueSize must be 1 or more, not ${queueSize}`);
  const address = parseUrl(url);
  const client = new Client(address.url, { ...options, role, format, timeout, queueSize, token: options.token ?? address.token });
  await client.greeted;
  return client;
}

export class Client extends Commands {
  /** @type {Connection} */
  #conn;
  /** @type {Map<string, Pending>} */
  #pending = new Map();
  /** @type {Set<SnapshotStream>} */
  #streams = new Set();
  /** @type {Set<(snapshot: Snapshot) => unknown>} */
  #snapshotCallbacks = new Set();
  /** @type {Set<(msg: ServerMessage) => unknown>} */
  #messageCallbacks = new Set();
  #seq = 0;
  #pingId = 0;
  #role;
  /** @type {ErrorMessage | null} */
  #unauthorized = null; // the answer to a hello without the token, before the welcome as viewer
  #closing = false;
  /** @type {ConnectionClosed | null} */
  #ended = null;
  /** @type {(value: void) => void} */
  #greet = () => {};
  /** @type {(err: Error) => void} */
  #refuse = () => {};
  /** @type {(value: void) => void} */
  #done = () => {};

  // Made by connect(), which waits for `greeted`.
  /**
   * @param {string} url a ws:// or wss:// URL
   * @param {ConnectOptions & {role: Role, format: Format, timeout: number | null, queueSize: number}} options
   */
  constructor(url, options) {
    super();
    this.url = url;
    this.format = options.format;
    /** @type {Quantum} the position quantum of binary snapshots last asked for (hello, viewport), world units */
    this.quantum = options.quantum ?? DEFAULT_QUANTUM;
    this.timeout = options.timeout;
    this.queueSize = options.queueSize;
    this.#role = options.role;
    /** @type {Welcome | null} the latest welcome: the server sends another whenever it changes (a pause, a new world, new rates) */
    this.welcome = null;
    /** @type {Snapshot | null} the latest snapshot received */
    this.latest = null;
    /** @type {Obstacle[]} every static obstacle, as last told (the welcome, or a snapshot that carried them) */
    this.obstacles = [];
    /** @type {Wall[]} every wall, as last told (the welcome, or a snapshot that carried them) */
    this.walls = [];
    /** @type {MapMessage | null} the tile map, as last told */
    this.map = null;
    /** @type {ErrorMessage[]} errors the server sent that answer no request of this client's (the latest 64) */
    this.errors = [];
    /** @type {CloseInfo | null} how the connection ended */
    this.closeInfo = null;
    /** @type {Promise<void>} resolved once welcomed; rejected when the hello fails */
    this.greeted = new Promise((resolve, reject) => {
      this.#greet = resolve;
      this.#refuse = reject;
    });
    /** @type {Promise<void>} resolved when the connection has ended */
    this.done = new Promise((resolve) => (this.#done = resolve));
    this.#conn = new Connection(url, {
      onMessage: (msg) => this.#receive(msg),
      onClose: (info) => this.#closed(info),
      role: options.role,
      token: options.token,
      format: options.format,
      quantum: options.quantum,
      client: options.client,
      WebSocket: options.WebSocket,
      reconnect: false,
      pingEveryMs: 0, // ping() measures when asked
    });
    if (this.timeout !== null) {
      const ms = this.timeout;
      const timer = setTimeout(() => this.#failHello(new TimeoutError(`hello: no welcome from ${url} within ${ms} ms`)), ms);
      const stop = () => clearTimeout(timer);
      this.greeted.then(stop, stop);
    }
    this.#conn.start();
  }

  // The role the server granted: 'viewer' or 'commander'.
  get role() {
    return this.welcome?.role ?? '';
  }
  // This session's id (what sessions() lists and kick names).
  get session() {
    return this.welcome?.session ?? null;
  }
  // Whether the world is paused, as the latest welcome says.
  get paused() {
    return Boolean(this.welcome?.paused);
  }
  get closed() {
    return this.#ended !== null;
  }
  // Binary snapshots decoded whole and as deltas, and frames that could not be decoded (each
  // answered with a keyframe request).
  get binaryFrames() {
    const feed = this.#conn.feed;
    return { keyframes: feed.keyframes, deltas: feed.deltas, decodeErrors: this.#conn.decodeErrors };
  }

  // ---- receiving ----

  /** @param {ServerMessage} msg */
  #receive(msg) {
    const seq = 'seq' in msg ? msg.seq : undefined;
    if (msg.type === 'snapshot') this.#snapshot(msg);
    else if ((msg.type === 'ack' || msg.type === 'error' || msg.type === 'sessions') && this.#settle(`seq ${seq}`, msg)) {
      // answered a request
    } else if (msg.type === 'pong' && this.#settle(`ping ${msg.id}`, msg)) {
      // answered a ping
    } else if (msg.type === 'welcome') this.#welcomed(msg);
    else if (msg.type === 'error') this.#error(msg);
    for (const cb of this.#messageCallbacks) this.#call(cb, msg);
  }

  /** @param {string} key @param {ServerMessage} msg */
  #settle(key, msg) {
    const p = this.#pending.get(key);
    if (!p) return false;
    this.#pending.delete(key);
    clearTimeout(p.timer);
    p.resolve(msg);
    return true;
  }

  /** @param {Welcome} msg */
  #welcomed(msg) {
    // A welcome whose tick is below the latest snapshot's is a new world (a reset, another
    // scenario): what the client last saw is no longer there.
    if (this.latest && msg.tick < this.latest.tick) this.latest = null;
    const first = this.welcome === null;
    this.welcome = msg;
    this.obstacles = msg.obstacles ?? [];
    this.walls = msg.walls ?? [];
    this.map = msg.map ?? null;
    if (!first) return;
    if (!grants(this.#role, msg.role)) {
      // Welcomed as a viewer for want of the token: the caller asked to command.
      const reply = this.#unauthorized ?? { type: 'error', code: 'unauthorized', message: 'welcomed as a viewer' };
      const hint = this.#conn.hasToken ? '' : " (no token given: pass {token}, or {role: 'viewer'} to watch)";
      this.#failHello(new HelloError({ ...reply, message: reply.message + hint }, 'hello'));
      return;
    }
    this.#greet();
  }

  /** @param {ErrorMessage} msg */
  #error(msg) {
    if (this.welcome === null) {
      if (msg.code === 'unauthorized') this.#unauthorized = msg; // a welcome as viewer follows
      else this.#failHello(new HelloError(msg, 'hello'));
      return;
    }
    this.errors.push(msg);
    if (this.errors.length > MAX_ERRORS) this.errors.shift();
  }

  /** @param {Error} err */
  #failHello(err) {
    this.#refuse(err);
    this.#closing = true;
    this.#conn.close(1000, 'hello failed');
  }

  /** @param {Snapshot} snap */
  #snapshot(snap) {
    this.latest = snap;
    if (snap.obstacles) this.obstacles = snap.obstacles;
    if (snap.walls) this.walls = snap.walls;
    if (snap.map !== undefined) this.map = snap.map;
    for (const s of this.#streams) s.put(snap);
    for (const cb of this.#snapshotCallbacks) this.#call(cb, snap);
  }

  // A callback's failure is the caller's bug, not the session's: it is reported and the rest go on.
  /** @template T @param {(value: T) => unknown} cb @param {T} value */
  #call(cb, value) {
    try {
      const result = cb(value);
      if (result instanceof Promise) result.catch((err) => console.error('herd: a callback failed', err));
    } catch (err) {
      console.error('herd: a callback failed', err);
    }
  }

  /** @param {CloseInfo} info */
  #closed(info) {
    this.closeInfo = info;
    const ended = new ConnectionClosed(info.code, info.reason);
    this.#ended = ended;
    if (info.opened) this.#refuse(new ConnectionClosed(info.code, info.reason, 'hello'));
    else this.#refuse(new ConnectError(`cannot connect to ${this.url}${info.error ? ': ' + info.error : ''}`));
    for (const p of this.#pending.values()) {
      clearTimeout(p.timer);
      p.reject(new ConnectionClosed(info.code, info.reason, p.what));
    }
    this.#pending.clear();
    for (const s of this.#streams) s.finish(this.#closing ? 'done' : ended);
    this.#done();
  }

  // ---- snapshots ----

  /**
   * Snapshots from now on, for `for await`: each waited for at most `timeout` ms (default the
   * client's; null: for ever; a paused world sends none). The iteration ends when the client is
   * closed, and throws ConnectionClosed when the server closed the connection.
   * @param {{timeout?: number | null, queueSize?: number}} [options]
   * @returns {SnapshotStream}
   */
  snapshots({ timeout = this.timeout, queueSize = this.queueSize } = {}) {
    const stream = new SnapshotStream({ timeout, queueSize, onClose: (s) => this.#streams.delete(s) });
    if (this.#ended) stream.finish(this.#closing ? 'done' : this.#ended);
    else this.#streams.add(stream);
    return stream;
  }

  /**
   * Calls `callback(snapshot)` for every snapshot from now on; returns the function that stops it.
   * @param {(snapshot: Snapshot) => unknown} callback
   * @returns {() => void}
   */
  onSnapshot(callback) {
    if (typeof callback !== 'function') throw new TypeError('onSnapshot takes a function');
    this.#snapshotCallbacks.add(callback);
    return () => this.#snapshotCallbacks.delete(callback);
  }

  /**
   * Calls `callback(msg)` for every message from the server (welcomes, snapshots, answers, errors);
   * returns the function that stops it.
   * @param {(msg: ServerMessage) => unknown} callback
   * @returns {() => void}
   */
  onMessage(callback) {
    if (typeof callback !== 'function') throw new TypeError('onMessage takes a function');
    this.#messageCallbacks.add(callback);
    return () => this.#messageCallbacks.delete(callback);
  }

  /**
   * The first snapshot, the latest one received included, for which `predicate` holds; rejects
   * with a TimeoutError when none comes within `timeout` ms (default the client's).
   * @param {(snapshot: Snapshot) => boolean} predicate
   * @param {{timeout?: number | null}} [options]
   * @returns {Promise<Snapshot>}
   */
  async waitFor(predicate, { timeout = this.timeout } = {}) {
    if (this.latest && predicate(this.latest)) return this.latest;
    const stream = this.snapshots({ timeout: null });
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    /** @type {Promise<never>} */
    const expired = new Promise((_, reject) => {
      if (timeout === null) return;
      timer = setTimeout(() => {
        const tick = this.latest?.tick ?? 'none';
        reject(new TimeoutError(`no snapshot as wanted within ${timeout} ms (latest tick: ${tick})`));
      }, timeout);
    });
    try {
      for (;;) {
        const r = await Promise.race([stream.next(), expired]);
        if (r.done) throw new ConnectionClosed(null, '', 'waitFor');
        if (predicate(r.value)) return r.value;
      }
    } finally {
      clearTimeout(timer);
      stream.close();
    }
  }

  // ---- requests ----

  /**
   * Sends `msg` and resolves to the message answering `key`.
   * @param {string} key
   * @param {Record<string, unknown>} msg
   * @param {string} what the request, for errors
   * @param {number | null | undefined} timeout
   * @returns {Promise<ServerMessage>}
   */
  #request(key, msg, what, timeout) {
    const text = this.#encode(msg, what);
    return new Promise((resolve, reject) => {
      /** @type {Pending} */
      const p = { resolve, reject, what };
      const ms = timeout === undefined ? this.timeout : timeout;
      if (ms !== null) {
        p.timer = setTimeout(() => {
          this.#pending.delete(key);
          reject(new TimeoutError(`${what}: no answer within ${ms} ms`));
        }, ms);
      }
      this.#pending.set(key, p);
      if (!this.#conn.sendRaw(text)) {
        this.#pending.delete(key);
        clearTimeout(p.timer);
        reject(this.#notOpen(what));
      }
    });
  }

  /** @param {string} what */
  #notOpen(what) {
    const info = this.closeInfo;
    return new ConnectionClosed(info ? info.code : null, info ? info.reason : '', what);
  }

  /** @param {Record<string, unknown>} msg @param {string} what */
  #encode(msg, what) {
    checkFinite(msg, what);
    return JSON.stringify(msg);
  }

  /** @param {Record<string, unknown>} msg @param {string} what */
  #post(msg, what) {
    if (!this.#conn.sendRaw(this.#encode(msg, what))) throw this.#notOpen(what);
  }

  #nextSeq() {
    do this.#seq = this.#seq < UINT32_MAX ? this.#seq + 1 : 0;
    while (this.#pending.has(`seq ${this.#seq}`));
    return this.#seq;
  }

  /**
   * Sends command `cmd` with `fields` as given (the methods named after the commands write points
   * and selections first) and resolves to its ack; rejects with a CommandError (its `code`: the
   * server's) when the server refuses it, a TimeoutError when no answer comes within `timeout`.
   * @param {string} cmd
   * @param {Record<string, unknown>} [fields]
   * @param {RequestOptions} [options]
   * @returns {Promise<Ack>}
   */
  async command(cmd, fields = {}, { timeout } = {}) {
    if (typeof cmd !== 'string' || cmd === '') throw new TypeError(`a command's name is a non-empty string, not ${JSON.stringify(cmd)}`);
    for (const reserved of ['type', 'seq', 'cmd']) {
      if (Object.hasOwn(fields, reserved)) throw new TypeError(`${cmd}: '${reserved}' is the client's to set, not a field`);
    }
    const seq = this.#nextSeq();
    const reply = await this.#request(`seq ${seq}`, { type: 'command', seq, cmd, ...fields }, cmd, timeout);
    if (reply.type === 'ack') return reply;
    if (reply.type === 'error') throw new CommandError(reply, cmd, fields);
    throw new TypeError(`${cmd}: answered with a ${reply.type} message`);
  }

  /**
   * The server's sessions (commanders only): the `sessions` message, a row per session (`you`
   * marks this one's).
   * @param {RequestOptions} [options]
   * @returns {Promise<Sessions>}
   */
  async sessions({ timeout } = {}) {
    const seq = this.#nextSeq();
    const reply = await this.#request(`seq ${seq}`, { type: 'sessions', seq }, 'sessions', timeout);
    if (reply.type === 'sessions') return reply;
    if (reply.type === 'error') throw new ServerError(reply, 'sessions');
    throw new TypeError(`sessions: answered with a ${reply.type} message`);
  }

  /**
   * A round trip to the server: its pong, with the world's current tick.
   * @param {RequestOptions} [options]
   * @returns {Promise<Pong>}
   */
  async ping({ timeout } = {}) {
    this.#pingId = this.#pingId < UINT32_MAX ? this.#pingId + 1 : 0;
    const id = this.#pingId;
    return /** @type {Pong} */ (await this.#request(`ping ${id}`, { type: 'ping', id }, 'ping', timeout));
  }

  /**
   * Asks for the avoidance traces of up to 16 agents in every snapshot's `inspect` ([] stops it).
   * Nothing is answered.
   * @param {Iterable<number>} agents
   */
  inspect(agents) {
    this.#post({ type: 'inspect', agents: [...agents] }, 'inspect');
  }

  /**
   * Binary snapshots carry only the agents in this rectangle (plus a margin); none (undefined or
   * null): the whole world again. `quantum`: their position quantum from now on (the next frame
   * is a keyframe, so change it in steps, not every frame); absent: unchanged. Nothing is answered.
   * @param {RectLike | null} [rect]
   * @param {ViewportOptions} [options]
   */
  viewport(rect, { quantum } = {}) {
    if (quantum !== undefined) checkQuantum(quantum);
    /** @type {Record<string, unknown>} */
    const msg = { type: 'viewport' };
    if (rect !== undefined && rect !== null) {
      const r = Array.isArray(rect) ? { x0: rect[0], y0: rect[1], x1: rect[2], y1: rect[3] } : rect;
      Object.assign(msg, { x0: r.x0, y0: r.y0, x1: r.x1, y1: r.y1 });
    }
    if (quantum !== undefined) msg.quantum = quantum;
    this.#post(msg, 'viewport');
    if (quantum !== undefined) this.quantum = quantum;
  }

  // Asks for the next binary snapshot whole (the client does so by itself when a frame cannot be
  // decoded).
  requestKeyframe() {
    this.#post({ type: 'keyframe' }, 'keyframe');
  }

  // ---- closing ----

  /**
   * Closes the connection (normal closure): requests waiting for answers reject with
   * ConnectionClosed, snapshot streams end. Resolves once the socket has closed.
   * @returns {Promise<void>}
   */
  close() {
    this.#closing = true;
    this.#conn.close(1000);
    return this.done;
  }
}

/**
 * Throws a RangeError naming the field of a NaN or infinite number (the wire takes finite numbers
 * only; JSON.stringify would write null).
 * @param {unknown} value
 * @param {string} where
 */
function checkFinite(value, where) {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new RangeError(`${where} must be a finite number, not ${value}`);
  if (value === null || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value)) checkFinite(v, Array.isArray(value) ? `${where}[${k}]` : `${where}.${k}`);
}
