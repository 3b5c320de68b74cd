// The WebSocket session with the herd server (protocol/PROTOCOL.md, version 1): says hello,
// hands every decoded message to the caller, measures round-trip time with ping, and reconnects
// with exponential backoff when the socket closes.

import { BinaryFeed } from './snapshot_binary.js';

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
  constructor(url, { onMessage, onState, token = '', format = 'auto' }) {
    this.url = url;
    this.hello = { type: 'hello', protocol: PROTOCOL_VERSION, role: 'commander', client: 'herd-web/1' };
    if (token) this.hello.token = token;
    if (format !== 'json') this.hello.format = format;
    this.feed = new BinaryFeed();
    this.snapshotFormat = null; // 'json' or 'binary': how the last snapshot came
    this.binaryFrames = 0;
    this.onMessage = onMessage;
    this.onState = onState;
    this.state = 'connecting';
    this.retryAt = 0; // performance.now() time of the next attempt, while disconnected
    this.rttMs = null;
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

  // Sends a message object; returns false when there is no greeted session to send it on.
  send(msg) {
    return this.sendRaw(JSON.stringify(msg));
  }

  sendRaw(text) {
    if (this.state !== 'connected' || !this.ws) return false;
    this.ws.send(text);
    return true;
  }

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
