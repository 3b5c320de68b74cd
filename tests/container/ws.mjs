// A small WebSocket client (RFC 6455) over node:net for the container tests, which install no
// packages (Node 20 has no WebSocket without a flag). It keeps every message it receives, in
// order, so that a test can look for one after a given point; answers pings; and says whether
// (and why) the connection closed.
import { connect } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export class WsClient {
  // Connects to ws://HOST:PORT/PATH and completes the opening handshake within `timeout` ms.
  static open(url, { timeout = 5000 } = {}) {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const key = randomBytes(16).toString('base64');
      const socket = connect({ host: u.hostname, port: Number(u.port) });
      let head = Buffer.alloc(0);
      const timer = setTimeout(() => { socket.destroy(); reject(new Error(`${url}: no handshake within ${timeout} ms`)); }, timeout);
      const fail = (e) => { clearTimeout(timer); reject(new Error(`${url}: ${e.message}`)); };
      socket.on('error', fail);
      socket.on('connect', () => {
        socket.write(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
      });
      const onData = (chunk) => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        socket.off('data', onData);
        socket.off('error', fail);
        clearTimeout(timer);
        const lines = head.subarray(0, end).toString('latin1').split('\r\n');
        const accept = createHash('sha1').update(key + GUID).digest('base64');
        const header = (name) => lines.find((l) => l.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim();
        if (!/^HTTP\/1\.1 101/.test(lines[0]) || header('sec-websocket-accept') !== accept) {
          socket.destroy();
          return reject(new Error(`${url}: the handshake was refused: ${lines[0]}`));
        }
        resolve(new WsClient(url, socket, head.subarray(end + 4)));
      };
      socket.on('data', onData);
    });
  }

  constructor(url, socket, rest) {
    this.url = url;
    this.socket = socket;
    this.messages = [];     // {text, json, at}: text frames (json parsed when it parses); binary as {binary}
    this.closed = null;     // why, once closed
    this.buffer = Buffer.alloc(0);
    this.fragments = null;  // {opcode, parts} of a message in pieces
    this.waiters = new Set();
    socket.on('data', (chunk) => this.#receive(chunk));
    socket.on('error', (e) => this.#close(`error: ${e.message}`));
    socket.on('close', () => this.#close('the connection closed'));
    if (rest.length) this.#receive(rest);
  }

  send(message) {
    this.#frame(1, Buffer.from(typeof message === 'string' ? message : JSON.stringify(message)));
  }

  close() {
    if (this.closed) return;
    this.#frame(8, Buffer.from([0x03, 0xe8]));  // 1000: normal closure
    this.socket.end();
    this.#close('closed by this client');
  }

  // The first message at index `from` or later for which `match(json, text)` is true: resolves
  // {index, json, text}; rejects after `timeout` ms, or when the connection closes first.
  waitFor(match, { from = 0, timeout = 10000, what = 'a message' } = {}) {
    const found = () => {
      for (let i = from; i < this.messages.length; ++i) {
        const m = this.messages[i];
        if (m.json && match(m.json, m.text)) return { index: i, json: m.json, text: m.text };
      }
      return null;
    };
    const now = found();
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const waiter = {};
      const done = (f) => { clearTimeout(waiter.timer); this.waiters.delete(waiter); f(); };
      waiter.check = () => {
        const m = found();
        if (m) done(() => resolve(m));
        else if (this.closed) done(() => reject(new Error(`${this.url}: ${what}: ${this.closed} first`)));
      };
      waiter.timer = setTimeout(() => done(() => reject(new Error(
        `${this.url}: ${what} did not come within ${timeout} ms (${this.messages.length} messages; last: ${this.#last()})`))), timeout);
      this.waiters.add(waiter);
      waiter.check();
    });
  }

  #last() {
    const m = this.messages.at(-1);
    return m ? (m.text ?? '<binary>').slice(0, 200) : 'none';
  }

  #frame(opcode, payload) {
    if (this.closed) return;
    const mask = randomBytes(4);
    const n = payload.length;
    const header = n < 126 ? Buffer.from([0x80 | opcode, 0x80 | n])
      : n < 65536 ? Buffer.from([0x80 | opcode, 0x80 | 126, n >> 8, n & 0xff])
        : Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(n)); return b; })()]);
    const body = Buffer.from(payload);
    for (let i = 0; i < n; ++i) body[i] ^= mask[i & 3];
    this.socket.write(Buffer.concat([header, mask, body]));
  }

  #receive(chunk) {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      const b = this.buffer;
      if (b.length < 2) return;
      const fin = (b[0] & 0x80) !== 0, opcode = b[0] & 0x0f, masked = (b[1] & 0x80) !== 0;
      let length = b[1] & 0x7f, at = 2;
      if (length === 126) {
        if (b.length < 4) return;
        length = b.readUInt16BE(2);
        at = 4;
      } else if (length === 127) {
        if (b.length < 10) return;
        length = Number(b.readBigUInt64BE(2));
        at = 10;
      }
      const key = masked ? b.subarray(at, at + 4) : null;
      if (masked) at += 4;
      if (b.length < at + length) return;
      const payload = Buffer.from(b.subarray(at, at + length));
      if (key) for (let i = 0; i < payload.length; ++i) payload[i] ^= key[i & 3];
      this.buffer = b.subarray(at + length);
      if (opcode === 8) {
        const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        this.#frame(8, payload.subarray(0, 2));
        this.socket.end();
        this.#close(`the server closed it (${code} ${payload.subarray(2).toString()})`);
        return;
      }
      if (opcode === 9) { this.#frame(10, payload); continue; }
      if (opcode === 10) continue;
      if (opcode !== 0) this.fragments = { opcode, parts: [] };
      if (!this.fragments) continue;  // a continuation of nothing: ignored
      this.fragments.parts.push(payload);
      if (!fin) continue;
      const whole = Buffer.concat(this.fragments.parts);
      const message = { at: Date.now() };
      if (this.fragments.opcode === 1) {
        message.text = whole.toString('utf8');
        try { message.json = JSON.parse(message.text); } catch { message.json = null; }
      } else {
        message.binary = whole;
      }
      this.fragments = null;
      this.messages.push(message);
      for (const w of [...this.waiters]) w.check();
    }
  }

  #close(why) {
    if (this.closed) return;
    this.closed = why;
    for (const w of [...this.waiters]) w.check();
  }
}
