// The position quantum a client asks for: in hello (connect's `quantum`) and in its viewport
// messages (viewport's second argument), checked before anything is sent against the seven the
// protocol takes. No server: a WebSocket of the test's own records what the client sends and
// welcomes its hello.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { connect, makeHello, checkQuantum, QUANTA, DEFAULT_QUANTUM } from '../src/index.js';

const WELCOME = {
  type: 'welcome', protocol: 1, server: 'fake', session: 1, role: 'viewer', tick_rate: 60, snapshot_rate: 20,
  dt: 0.017, tick: 0, world: { width: 800, height: 600 }, obstacles: [], scenarios: [], paused: false,
};

// A socket that opens at once, welcomes the hello, and keeps every message sent after it.
class FakeSocket {
  static last = null;
  constructor(url) {
    this.url = url;
    this.sent = [];
    this.readyState = 0;
    FakeSocket.last = this;
    setTimeout(() => {
      this.readyState = 1;
      this.onopen?.();
    });
  }
  send(text) {
    const msg = JSON.parse(text);
    this.sent.push(msg);
    if (msg.type === 'hello') setTimeout(() => this.onmessage?.({ data: JSON.stringify(WELCOME) }));
  }
  close(code = 1000, reason = '') {
    if (this.readyState === 3) return;
    this.readyState = 3;
    setTimeout(() => this.onclose?.({ code, reason }));
  }
}

const open = (options = {}) => connect('ws://fake/ws', { WebSocket: /** @type {any} */ (FakeSocket), role: 'viewer', timeout: 2000, ...options });

describe('quantum', () => {
  it('the seven quanta, coarsest first, the finest (1/64) the default', () => {
    assert.deepEqual(QUANTA, [1, 1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64]);
    assert.equal(DEFAULT_QUANTUM, 1 / 64);
    for (const q of QUANTA) checkQuantum(q);
    for (const bad of [0, 2, 0.3, 1 / 128, -0.25, '0.25', null, NaN]) {
      assert.throws(() => checkQuantum(bad), /^RangeError: quantum must be one of 1, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625 \(world units\)/, String(bad));
    }
  });

  it("hello says the quantum given, and none when none is (the server's 1/64)", () => {
    assert.equal('quantum' in makeHello({ role: 'viewer', format: 'binary' }), false);
    assert.equal(makeHello({ role: 'viewer', format: 'binary', quantum: 0.25 }).quantum, 0.25);
    assert.throws(() => makeHello({ role: 'viewer', quantum: /** @type {any} */ (0.2) }), RangeError);
  });

  it('connect sends it in hello and keeps it as client.quantum; viewport changes it with or without a rectangle', async () => {
    const c = await open({ format: 'binary', quantum: 0.25 });
    const ws = FakeSocket.last;
    try {
      assert.deepEqual(ws.sent[0], { type: 'hello', protocol: 1, role: 'viewer', client: 'herd-js/1', format: 'binary', quantum: 0.25 });
      assert.equal(c.quantum, 0.25);
      c.viewport([0, 0, 100, 50], { quantum: 0.5 });
      c.viewport({ x0: 10, y0: 20, x1: 30, y1: 40 });
      c.viewport(null, { quantum: 1 });
      c.viewport(undefined, { quantum: 1 / 64 });
      c.viewport();
      assert.deepEqual(ws.sent.slice(1), [
        { type: 'viewport', x0: 0, y0: 0, x1: 100, y1: 50, quantum: 0.5 },
        { type: 'viewport', x0: 10, y0: 20, x1: 30, y1: 40 },
        { type: 'viewport', quantum: 1 },
        { type: 'viewport', quantum: 0.015625 },
        { type: 'viewport' },
      ]);
      assert.equal(c.quantum, 1 / 64, 'the last one asked for; a viewport without one leaves it');
    } finally {
      await c.close();
    }
  });

  it('refuses a quantum the protocol does not take before sending anything', async () => {
    const sockets = FakeSocket.last;
    await assert.rejects(open({ quantum: 0.2 }), /^RangeError: quantum must be one of/);
    assert.equal(FakeSocket.last, sockets, 'no socket was opened');
    const c = await open();
    const ws = FakeSocket.last;
    try {
      assert.equal('quantum' in ws.sent[0], false, 'none asked: none said');
      assert.equal(c.quantum, 1 / 64);
      assert.throws(() => c.viewport([0, 0, 10, 10], { quantum: /** @type {any} */ (1 / 128) }), RangeError);
      assert.throws(() => c.viewport(undefined, { quantum: /** @type {any} */ (2) }), RangeError);
      assert.equal(ws.sent.length, 1, 'only the hello');
      assert.equal(c.quantum, 1 / 64);
    } finally {
      await c.close();
    }
  });
});
