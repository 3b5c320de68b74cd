// @ts-check
// A WebSocket session with the herd server (protocol/PROTOCOL.md, version 1): says hello, hands
// on every message decoded (binary snapshots decoded here, acknowledged, and handed on as the
// JSON snapshot they stand for), measures the round trip with ping, and opens again with
// exponential backoff when the socket closes, until close(). The browser viewer's connection;
// the promise client (client.js) runs one that does not reconnect.

import { BinaryFeed } from './binary.js';
import { makeHello } from './protocol.js';

/** @import { Format, Hello, Quantum, Role, ServerMessage } from './protocol.js' */

/**
 * 'closed': for good, after close() (or the socket's close when it does not reconnect).
 * @typedef {'connecting' | 'connected' | 'disconnected' | 'closed'} ConnectionState
 */

/**
 * A WebSocket constructor: the browser's (globalThis.WebSocket, the default), Node 22's, or the
 * `ws` package's in Node 20.
 * @typedef {typeof globalThis.WebSocket} WebSocketConstructor
 */

/**
 * How a socket ended: its close code and reason, whether it had opened (a socket that never
 * did could not reach the server, or its upgrade was refused), and the error reported before the
 * close, when the WebSocket implementation says one (the `ws` package does; browsers do not).
 * @typedef {{code: number, reason: string, opened: boolean, error: string}} CloseInfo
 */

/**
 * @typedef {object} ConnectionOptions
 * @property {(msg: ServerMessage, size: number) => void} onMessage every message from the server,
 *   welcome included, with the size of its frame (characters of text, bytes of a binary frame)
 * @property {() => void} [onState] `state` changed
 * @property {(info: CloseInfo) => void} [onClose] a socket closed (before any retry is planned: close() here stops them)
 * @property {Role} [role] default 'commander'
 * @property {string} [token] the server's command token ('' for none)
 * @property {Format} [format] the snapshots asked for in hello; default 'json'
 * @property {Quantum} [quantum] binary frames' position quantum asked for in hello, world units;
 *   default none said (the server's 1/64)
 * @property {string} [client] the name the server logs; default 'herd-js/1'
 * @property {WebSocketConstructor} [WebSocket] default globalThis.WebSocket
 * @property {boolean} [reconnect] open again after a close; default true
 * @property {number} [pingEveryMs] measure the round trip this often once welcomed (0: never); default 2000
 */

export const CLIENT_NAME = 'herd-js/1';

// Backoff starts short so a server restart is barely noticed, and is capped so a long outage
// still reconnects within a few seconds of the server coming back.
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 5000;
const PING_INTERVAL_MS = 2000;
const UINT32_RANGE = 2 ** 32;

export class Connection {
  /**
   * @param {string} url
   * @param {ConnectionOptions} options
   */
  constructor(url, options) {
    const { onMessage, onState = () => {}, onClose = () => {}, role = 'commander', token = '', format = 'json', quantum } = options;
    const { client = CLIENT_NAME, WebSocket = globalThis.WebSocket, reconnect = true, pingEveryMs = PING_INTERVAL_MS } = options;
    if (typeof WebSocket !== 'function') {
      throw new TypeError("no WebSocket here: pass options.WebSocket (in Node 20, the 'ws' package's)");
    }
    this.url = url;
    /** @type {Hello} */
    this.hello = makeHello({ role, client, token, format, quantum });
    this.feed = new BinaryFeed();
    /** @type {'json' | 'binary' | null} */
    this.snapshotFormat = null; // how the last snapshot came
    this.binaryFrames = 0; // binary snapshots decoded
    this.decodeErrors = 0; // binary frames that could not be decoded (each answered with a keyframe request)
    this.onMessage = onMessage;
    this.onState = onState;
    this.onClose = onClose;
    this.WebSocket = WebSocket;
    this.reconnect = reconnect;
    this.pingEveryMs = pingEveryMs;
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
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.pingTimer = undefined;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.retryTimer = undefined;
  }

  start() {
    if (this.pingEveryMs > 0) this.pingTimer = setInterval(() => this.#ping(), this.pingEveryMs);
    this.#open();
  }

  // Ends the session for good: the socket is closed (`code`, `reason` sent to the server), no
  // message is handed on and no retry follows; the state is 'closed' at once.
  /** @param {number} [code] @param {string} [reason] */
  close(code = 1000, reason = '') {
    clearInterval(this.pingTimer);
    clearTimeout(this.retryTimer);
    this.reconnect = false;
    if (this.state !== 'closed') this.#setState('closed');
    // The socket's close event still comes, and onClose hears it.
    this.ws?.close(code, reason);
  }

  // Whether hello carries a command token.
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
      ws = new this.WebSocket(this.url);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      this.#closed({ code: 1006, reason: '', opened: false, error });
      return;
    }
    this.ws = ws;
    ++this.generation;
    ws.binaryType = 'arraybuffer';
    this.feed.reset(); // a new session starts from a keyframe
    let opened = false;
    let error = '';
    ws.onopen = () => {
      opened = true;
      ws.send(JSON.stringify(this.hello));
    };
    ws.onmessage = (ev) => {
      if (this.ws === ws && this.state !== 'closed') this.#receive(ws, ev.data);
    };
    ws.onerror = (ev) => {
      const message = /** @type {{message?: unknown}} */ (ev).message;
      if (typeof message === 'string') error = message;
    };
    // 'error' is always followed by 'close', so only close drives what comes next.
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.#closed({ code: ev.code, reason: ev.reason, opened, error });
    };
  }

  /** @param {CloseInfo} info */
  #closed(info) {
    this.rttMs = null;
    this.onClose(info);
    if (this.state === 'closed') return; // closed by onClose
    if (!this.reconnect) {
      clearInterval(this.pingTimer);
      this.#setState('closed');
      return;
    }
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, BACKOFF_MAX_MS);
    this.retryAt = performance.now() + delay;
    this.#setState('disconnected');
    this.retryTimer = setTimeout(() => this.#open(), delay);
  }

  /**
   * @param {WebSocket} ws
   * @param {unknown} data a frame: a string, or an ArrayBuffer (binaryType)
   */
  #receive(ws, data) {
    if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
      // A binary snapshot: acknowledged once decoded (the server's next delta builds on it), or
      // answered with a keyframe request when its baseline is not here.
      const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      const { snapshot, reply, error } = this.feed.receive(bytes);
      ws.send(JSON.stringify(reply));
      if (error) {
        ++this.decodeErrors;
        console.warn('herd:', error.message);
      }
      if (!snapshot) return;
      this.snapshotFormat = 'binary';
      ++this.binaryFrames;
      this.onMessage(snapshot, bytes.byteLength);
      return;
    }
    if (typeof data !== 'string') return;
    let msg;
    try {
      msg = JSON.parse(data);
    } catch (err) {
      console.warn('herd: the server sent invalid JSON', err);
      return;
    }
    if (msg === null || typeof msg !== 'object') return;
    if (msg.type === 'welcome') {
      // Reset the backoff only once greeted: a server that accepts and then drops us at once
      // should still see us slow down.
      this.backoffMs = BACKOFF_MIN_MS;
      this.#setState('connected');
      this.#ping(); // a round trip now rather than one interval later
    } else if (msg.type === 'snapshot') {
      this.snapshotFormat = 'json';
    } else if (msg.type === 'pong') {
      if (msg.id === this.pingId) this.rttMs = performance.now() - this.pingSentAt;
    }
    this.onMessage(msg, data.length);
  }

  #ping() {
    if (this.state !== 'connected' || this.pingEveryMs <= 0) return;
    this.pingId = (this.pingId + 1) % UINT32_RANGE;
    this.pingSentAt = performance.now();
    this.send({ type: 'ping', id: this.pingId });
  }
}
