// A second, independent WebSocket client (the `ws` package; Node 20 has no global WebSocket),
// used to check from outside the browser what the server really did.

import WebSocket from 'ws';

export class ProtocolClient {
  // Connects, says hello with `role` (and `token`, when given), and resolves once the welcome
  // arrives.
  static async connect(url, { role = 'viewer', token = '', timeoutMs = 5000 } = {}) {
    const client = new ProtocolClient(url);
    await client.#opened(timeoutMs);
    client.send({ type: 'hello', protocol: 1, role, client: 'herd-e2e/1', ...(token ? { token } : {}) });
    client.welcome = await client.next((m) => m.type === 'welcome' || m.type === 'error', timeoutMs);
    if (client.welcome.type !== 'welcome') {
      throw new Error(`hello refused: ${JSON.stringify(client.welcome)}`);
    }
    return client;
  }

  constructor(url) {
    this.ws = new WebSocket(url);
    this.waiters = new Set(); // {predicate, resolve}
    this.latestSnapshot = null;
    // Resolves to {code, reason} when the connection closes: the server's close code and reason.
    this.closed = new Promise((resolve) => this.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    this.ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const msg = JSON.parse(data.toString());
      if (msg.type === 'snapshot') this.latestSnapshot = msg;
      for (const w of [...this.waiters]) {
        if (w.predicate(msg)) {
          this.waiters.delete(w);
          w.resolve(msg);
        }
      }
    });
  }

  #opened(timeoutMs) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no WebSocket open within ${timeoutMs} ms`)), timeoutMs);
      this.ws.once('open', () => (clearTimeout(timer), resolve()));
      this.ws.once('error', (err) => (clearTimeout(timer), reject(err)));
    });
  }

  send(msg) {
    this.ws.send(JSON.stringify(msg));
  }

  // The next message (from now on) for which predicate(msg) is true; rejects after timeoutMs
  // with `what` and the last snapshot seen, so a failure says what the world looked like.
  next(predicate, timeoutMs, what = 'a matching message') {
    return new Promise((resolve, reject) => {
      const waiter = { predicate, resolve: null };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`no ${what} within ${timeoutMs} ms; last snapshot tick: ${this.latestSnapshot?.tick}`));
      }, timeoutMs);
      waiter.resolve = (msg) => {
        clearTimeout(timer);
        resolve(msg);
      };
      this.waiters.add(waiter);
    });
  }

  // Sends command `fields` under the next sequence number and resolves to its ack; rejects with
  // the error's text when the server refuses it, or when no answer comes within timeoutMs.
  async command(fields, timeoutMs) {
    this.seq = (this.seq ?? 0) + 1;
    const seq = this.seq;
    const answer = this.next((m) => (m.type === 'ack' || m.type === 'error') && m.seq === seq, timeoutMs, `the answer to ${fields.cmd}`);
    this.send({ type: 'command', seq, ...fields });
    const msg = await answer;
    if (msg.type !== 'ack') throw new Error(`${fields.cmd}: ${JSON.stringify(msg)}`);
    return msg;
  }

  close() {
    this.ws.close();
  }
}
