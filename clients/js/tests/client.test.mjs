// The client against the real herd-server (HERD_SERVER, else build/herd-server), started by the
// browser tests' helper on a free loopback port: hello and welcome, commands acked and refused
// with the server's codes, snapshots JSON and binary (deltas on acknowledged baselines), the
// server's closes, and the token found as herd-ctl finds it.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket, WebSocketServer } from 'ws';

import { startServer } from '../../../tests/e2e/lib/server.mjs';
import { connect, CommandError, ConnectError, ConnectionClosed, HelloError, HerdError, TimeoutError, group } from '../src/index.js';
import { connect as connectFromNode } from '../src/node.js';

const TOKEN = 'js-client-test-token-0123456789';
const TIMEOUT_MS = 10_000;

/** The package's connect with the `ws` package's WebSocket (Node 20 has none). */
const open = (url, options = {}) => connect(url, { WebSocket, timeout: TIMEOUT_MS, ...options });

// A binary snapshot, once the binary client has decoded `deltas` deltas, beside the JSON client's
// snapshot of the same tick; `each` sees every binary snapshot before. Bounded: 100 snapshots are
// 5 s at the default 20 a second.
async function deltaBesideJson(binary, json, deltas, each = () => {}) {
  const byTick = new Map();
  json.onSnapshot((s) => byTick.set(s.tick, s));
  let frames = 0;
  for await (const snap of binary.snapshots()) {
    if (++frames > 100) break;
    each(snap);
    await json.waitFor((s) => s.tick >= snap.tick);
    if (byTick.has(snap.tick) && binary.binaryFrames.deltas >= deltas) return [snap, byTick.get(snap.tick)];
  }
  assert.fail(`no delta at a tick the JSON client saw too: ${JSON.stringify(binary.binaryFrames)}`);
}

describe('the client against the real server', () => {
  let server;
  before(async () => {
    server = await startServer({ scenario: 'default', extraArgs: ['--command-token', TOKEN] });
  });
  after(() => server?.stop());

  it('says hello and is welcomed as the role it asked for', async () => {
    const c = await open(server.wsUrl, { token: TOKEN });
    try {
      assert.equal(c.welcome.type, 'welcome');
      assert.equal(c.welcome.protocol, 1);
      assert.equal(c.role, 'commander');
      assert.ok(Number.isInteger(c.session) && c.session > 0);
      assert.equal(c.welcome.scenario, 'default');
      assert.deepEqual(c.welcome.world, { width: 800, height: 600 });
      const pong = await c.ping();
      assert.equal(pong.type, 'pong');
      assert.ok(pong.tick >= c.welcome.tick);
      const { sessions } = await c.sessions();
      const mine = sessions.find((s) => s.you);
      assert.equal(mine.id, c.session);
      assert.equal(mine.client, 'herd-js/1');
      assert.equal(mine.role, 'commander');
    } finally {
      await c.close();
    }
  });

  it('resolves a command to its ack, which the snapshots then show', async () => {
    const c = await open(server.wsUrl, { token: TOKEN });
    try {
      const ack = await c.spawn({ count: 5, group: 7 });
      assert.equal(ack.type, 'ack');
      assert.equal(ack.agents.length, 5);
      const moved = await c.set_target({ agents: group(7), target: [700, 100], spread: 'point' });
      assert.equal(moved.count, 5);
      const snap = await c.waitFor((s) => s.tick >= moved.tick);
      const mine = snap.agents.filter((a) => ack.agents.includes(a.id));
      assert.equal(mine.length, 5);
      for (const a of mine) {
        assert.equal(a.group, 7);
        assert.deepEqual([a.tx, a.ty], [700, 100]);
      }
      await c.remove({ agents: ack.agents });
    } finally {
      await c.close();
    }
  });

  it("rejects a refused command with the server's code, and the world is unchanged", async () => {
    const c = await open(server.wsUrl, { token: TOKEN });
    try {
      const before = (await c.waitFor(() => true)).agents.length;
      const err = await c.remove({ agents: [999999] }).then(
        () => assert.fail('removing an agent that does not exist was acked'),
        (e) => e,
      );
      assert.ok(err instanceof CommandError && err instanceof HerdError);
      assert.equal(err.code, 'unknown_agent');
      assert.equal(err.cmd, 'remove');
      assert.match(err.serverMessage, /999999/);
      assert.equal(typeof err.seq, 'number');
      await assert.rejects(c.set_target({ agents: 'all', target: [5000, 5000] }), { name: 'CommandError', code: 'out_of_bounds' });
      await assert.rejects(c.command('teleport', { agents: 'all' }), { code: 'unknown_command' });
      await assert.rejects(c.command('spawn', { count: 1, colour: 'red' }), { code: 'bad_field' });
      const ack = await c.ping();
      const after = await c.waitFor((s) => s.tick >= ack.tick);
      assert.equal(after.agents.length, before);
      // Caught before the wire: a field no command has, a number JSON cannot carry.
      await assert.rejects(c.spawn({ count: 1, colour: 'red' }), TypeError);
      await assert.rejects(c.add_obstacle({ x: NaN, y: 1, radius: 2 }), /add_obstacle\.x must be a finite number, not NaN/);
      assert.equal(c.errors.length, 0, 'every error answered a request');
    } finally {
      await c.close();
    }
  });

  it('adds a wall, acked with its id, which the snapshots and the client then hold, and removes it', async () => {
    const c = await open(server.wsUrl, { token: TOKEN });
    try {
      const points = [{ x: 100, y: 100 }, { x: 300, y: 120 }, { x: 200, y: 260 }];
      const ack = await c.add_wall({ points: points.map((p) => [p.x, p.y]), closed: true });
      assert.ok(Number.isInteger(ack.wall) && ack.wall > 0);
      const snap = await c.waitFor((s) => s.tick >= ack.tick && s.walls !== undefined);
      assert.deepEqual(snap.walls, [{ id: ack.wall, points, closed: true }]);
      assert.deepEqual(c.walls, snap.walls);
      await assert.rejects(c.add_wall({ points: [[10, 10], [5000, 10]] }), { code: 'out_of_bounds' });
      assert.equal((await c.remove_wall({ wall: ack.wall })).count, 1);
      await assert.rejects(c.remove_wall({ wall: ack.wall }), { code: 'unknown_wall' });
      await c.waitFor((s) => Array.isArray(s.walls) && s.walls.length === 0);
      assert.deepEqual(c.walls, []);
    } finally {
      await c.close();
    }
  });

  it('refuses to command without the token, and lets a viewer watch', async () => {
    await assert.rejects(open(server.wsUrl), (err) => {
      assert.ok(err instanceof HelloError);
      assert.equal(err.code, 'unauthorized');
      assert.match(err.message, /no token given/);
      return true;
    });
    await assert.rejects(open(server.wsUrl, { token: 'not-the-token-at-all' }), { name: 'HelloError', code: 'unauthorized' });
    const v = await open(server.wsUrl, { role: 'viewer' });
    try {
      assert.equal(v.role, 'viewer');
      await assert.rejects(v.pause(), { name: 'CommandError', code: 'forbidden' });
      await assert.rejects(v.sessions(), { name: 'ServerError', code: 'forbidden' });
    } finally {
      await v.close();
    }
  });

  it('streams JSON snapshots in tick order, and by callback', async () => {
    const c = await open(server.wsUrl, { role: 'viewer' });
    try {
      const seen = [];
      const stop = c.onSnapshot((s) => seen.push(s.tick));
      const ticks = [];
      for await (const snap of c.snapshots()) {
        assert.equal(snap.type, 'snapshot');
        assert.ok(snap.agents.length > 0);
        ticks.push(snap.tick);
        if (ticks.length === 5) break;
      }
      stop();
      const called = seen.length;
      assert.ok(called >= 5, `the callback saw ${called}`);
      for (let i = 1; i < ticks.length; ++i) assert.ok(ticks[i] > ticks[i - 1], ticks.join(' '));
      await c.waitFor((s) => s.tick > ticks.at(-1) + 5);
      assert.equal(seen.length, called, 'no call after stop()');
      assert.equal(c.binaryFrames.keyframes, 0, 'JSON asked, JSON sent');
    } finally {
      await c.close();
    }
  });

  it('decodes binary snapshots, acknowledging each so that deltas follow, to what JSON says', async () => {
    const json = await open(server.wsUrl, { role: 'viewer' });
    const binary = await open(server.wsUrl, { role: 'viewer', format: 'binary' });
    try {
      const [b, j] = await deltaBesideJson(binary, json, 3);
      assert.deepEqual(b.agents.map((a) => a.id), j.agents.map((a) => a.id));
      for (let i = 0; i < b.agents.length; ++i) {
        const [qa, ja] = [b.agents[i], j.agents[i]];
        assert.ok(Math.abs(qa.x - ja.x) <= 1 / 128 + 1e-3 && Math.abs(qa.y - ja.y) <= 1 / 128 + 1e-3, `agent ${ja.id}`);
        assert.equal(qa.state, ja.state);
        assert.equal(qa.group, ja.group);
      }
      const decoded = binary.binaryFrames;
      assert.equal(decoded.decodeErrors, 0);
      assert.ok(decoded.keyframes >= 1 && decoded.deltas >= 3, JSON.stringify(decoded));
      // A viewport: the frames then carry only the agents in it (plus a margin).
      const all = b.agents.length;
      binary.viewport([0, 0, 100, 100]);
      const limited = await binary.waitFor((s) => s.agents.length < all);
      assert.ok(limited.agents.every((a) => a.x <= 120 && a.y <= 120), 'only agents near the rectangle');
      binary.viewport();
      await binary.waitFor((s) => s.agents.length === all);
    } finally {
      await json.close();
      await binary.close();
    }
  });

  it('asks for a coarser quantum in hello and in its viewport: positions in its steps, a keyframe at each change', async () => {
    const json = await open(server.wsUrl, { role: 'viewer' });
    const binary = await open(server.wsUrl, { role: 'viewer', format: 'binary', quantum: 0.25 });
    try {
      const onGrid = (s, q) => s.agents.length > 0 && s.agents.every((a) => Number.isInteger(a.x / q) && Number.isInteger(a.y / q));
      const [b, j] = await deltaBesideJson(binary, json, 2, (snap) => {
        assert.ok(onGrid(snap, 0.25), `tick ${snap.tick}: positions in quarters`);
      });
      assert.deepEqual(b.agents.map((a) => a.id), j.agents.map((a) => a.id));
      // Half a quantum plus the 1/128 of the first rounding to 1/64, plus JSON's 3 decimals.
      for (let i = 0; i < b.agents.length; ++i) {
        const [qa, ja] = [b.agents[i], j.agents[i]];
        assert.ok(Math.abs(qa.x - ja.x) <= 1 / 8 + 1 / 128 + 1e-3 && Math.abs(qa.y - ja.y) <= 1 / 8 + 1 / 128 + 1e-3, `agent ${ja.id}`);
      }
      // A whole unit from now on, the rectangle unchanged (the whole world): a keyframe at it.
      const keyframes = binary.binaryFrames.keyframes;
      binary.viewport(null, { quantum: 1 });
      assert.equal(binary.quantum, 1);
      await binary.waitFor((s) => onGrid(s, 1));
      assert.ok(binary.binaryFrames.keyframes > keyframes, JSON.stringify(binary.binaryFrames));
      assert.equal(binary.binaryFrames.decodeErrors, 0);
    } finally {
      await json.close();
      await binary.close();
    }
  });

  it('adds a source and an exit, whose counts JSON and binary snapshots carry, and removes them', async () => {
    const c = await open(server.wsUrl, { token: TOKEN });
    const binary = await open(server.wsUrl, { role: 'viewer', format: 'binary' });
    try {
      const source = await c.add_source({ area: { x: 20, y: 20, width: 60, height: 60 }, rate: 20, total: 8, target: [770, 30], group: 9 });
      assert.ok(Number.isInteger(source.source) && source.source > 0);
      const exit = await c.add_exit({ area: { x: 740, y: 0, width: 60, height: 60 } });
      assert.ok(Number.isInteger(exit.exit) && exit.exit > 0);
      const mine = (s) => s.sources?.find((src) => src.id === source.source);
      const told = await c.waitFor((s) => (mine(s)?.spawned ?? 0) > 0 && s.exits.some((e) => e.id === exit.exit));
      assert.deepEqual(mine(told).area, { x: 20, y: 20, width: 60, height: 60 });
      assert.equal(mine(told).spawned + mine(told).remaining, 8);
      const side = await binary.waitFor((s) => mine(s) !== undefined);
      assert.ok(side.exits.some((e) => e.id === exit.exit), 'exits come with sources in the side section');
      const refused = await c.remove_exit({ id: 999999 }).then(
        () => assert.fail('an unknown exit was removed'),
        (e) => e,
      );
      assert.equal(refused.code, 'unknown_exit');
      assert.equal((await c.remove_source({ id: source.source })).count, 1);
      assert.equal((await c.remove_exit({ id: exit.exit })).count, 1);
      await c.remove({ agents: group(9) }).catch(() => {}); // those still on their way, if any
    } finally {
      await c.close();
      await binary.close();
    }
  });

  it("rejects what waits when the server closes the session, with its close code", async () => {
    const operator = await open(server.wsUrl, { token: TOKEN });
    const watcher = await open(server.wsUrl, { role: 'viewer' });
    try {
      const stream = watcher.snapshots();
      await stream.next();
      const pending = watcher.ping({ timeout: null }).catch((e) => e);
      await operator.kick({ session: watcher.session });
      await watcher.done;
      assert.equal(watcher.closed, true);
      assert.equal(watcher.closeInfo.code, 4000);
      // The stream gives what it holds, then throws.
      await assert.rejects(
        (async () => {
          for (;;) await stream.next();
        })(),
        (err) => err instanceof ConnectionClosed && err.code === 'connection_closed' && err.closeCode === 4000,
      );
      const answer = await pending;
      assert.ok(answer.type === 'pong' || answer instanceof ConnectionClosed, String(answer));
      await assert.rejects(watcher.ping(), { name: 'ConnectionClosed', closeCode: 4000 });
    } finally {
      await operator.close();
      await watcher.close();
    }
  });

  it('ends its streams when closed, and refuses to send after', async () => {
    const c = await open(server.wsUrl, { role: 'viewer' });
    const stream = c.snapshots({ timeout: null });
    const waiting = stream.next();
    await c.close();
    // What it held, then the end (not an error: closed on purpose).
    let r = await waiting;
    for (let held = 0; !r.done; ++held) {
      assert.ok(held < 256, 'the stream ends');
      r = await stream.next();
    }
    assert.deepEqual(await c.snapshots().next(), { value: undefined, done: true });
    await assert.rejects(c.ping(), ConnectionClosed);
    assert.throws(() => c.inspect([1]), ConnectionClosed);
  });

  it('says when nothing answers: a ConnectError, or a TimeoutError', async () => {
    // A paused world sends no snapshot, so a viewer that joins it waits for one in vain (on a
    // ticking world a snapshot may already be on its way when the wait starts).
    const gone = await startServer({ scenario: 'empty' });
    const url = gone.wsUrl;
    const commander = await open(url);
    await commander.command('pause');
    const c = await open(url, { role: 'viewer' });
    try {
      assert.equal(c.paused, true);
      await assert.rejects(c.snapshots({ timeout: 50 }).next(), TimeoutError);
    } finally {
      await c.close();
      await commander.close();
    }
    await gone.stop();
    await assert.rejects(open(url), (err) => err instanceof ConnectError && err.code === 'connect_failed' && /ECONNREFUSED/.test(err.message));
    await assert.rejects(connect(server.wsUrl), /no WebSocket here: pass options.WebSocket/);
    await assert.rejects(open(server.wsUrl, { format: 'xml' }), RangeError);
    await assert.rejects(open('ftp://localhost/ws'), TypeError);
  });
});

// A listener another local user could plant at `host`:`port`: the first message each client
// sends it, kept; it answers nothing (the client waits for a welcome that never comes).
async function plant(host, port) {
  const wss = new WebSocketServer({ host, port });
  await new Promise((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', reject);
  });
  const received = [];
  let heard;
  const first = new Promise((resolve) => (heard = resolve));
  wss.on('connection', (ws, request) => {
    received.push(JSON.stringify(request.headers));
    ws.on('message', (data) => {
      received.push(String(data));
      heard();
    });
  });
  return { received, first, close: () => new Promise((resolve) => { for (const c of wss.clients) c.terminate(); wss.close(resolve); }) };
}

describe('herd-client/node', () => {
  it("sends the runtime file's token only to the address the file names, while its server runs", async () => {
    const token = 'chosen-by-the-operator-for-js-1';
    const server = await startServer({ scenario: 'empty', openCommands: false, extraArgs: ['--command-token', token] });
    const saved = { ...process.env };
    try {
      delete process.env.HERD_COMMAND_TOKEN;
      process.env.HERD_RUNTIME_DIR = server.runtimeDir;
      // Another user's listener on [::1] at the port of the server on 127.0.0.1: a hello, no token.
      let planted = await plant('::1', server.port);
      try {
        await assert.rejects(connectFromNode(`ws://[::1]:${server.port}/ws`, { timeout: 1000 }), TimeoutError);
        await planted.first;
        assert.match(planted.received.join('\n'), /"type":"hello"/);
        assert.ok(!planted.received.join('\n').includes(token), planted.received.join('\n'));
      } finally {
        await planted.close();
      }
      // localhost goes to the address the file names: the server's.
      const c = await connectFromNode(`ws://localhost:${server.port}/ws`, { timeout: TIMEOUT_MS });
      try {
        assert.equal(c.role, 'commander');
      } finally {
        await c.close();
      }
      // Killed, its file left behind: the port is anyone's, and the file is not used.
      await server.kill('SIGKILL');
      planted = await plant('127.0.0.1', server.port);
      try {
        await assert.rejects(connectFromNode(server.wsUrl, { timeout: 1000 }), TimeoutError);
        await planted.first;
        assert.match(planted.received.join('\n'), /"type":"hello"/);
        assert.ok(!planted.received.join('\n').includes(token), planted.received.join('\n'));
      } finally {
        await planted.close();
      }
    } finally {
      process.env = saved;
      await server.stop();
    }
  });

  it("finds the token a server made in its runtime file, as herd-ctl does, and the ws package's WebSocket", async () => {
    const server = await startServer({ scenario: 'empty', openCommands: false });
    const saved = { ...process.env };
    try {
      delete process.env.HERD_COMMAND_TOKEN;
      process.env.HERD_RUNTIME_DIR = server.runtimeDir;
      const c = await connectFromNode(`ws://localhost:${server.port}/ws`, { timeout: TIMEOUT_MS });
      try {
        assert.equal(c.role, 'commander');
        assert.equal((await c.spawn({ count: 2 })).agents.length, 2);
      } finally {
        await c.close();
      }
      process.env.HERD_RUNTIME_DIR = `${server.runtimeDir}/nowhere`;
      await assert.rejects(connectFromNode(`ws://localhost:${server.port}/ws`, { timeout: TIMEOUT_MS }), { code: 'unauthorized' });
    } finally {
      process.env = saved;
      await server.stop();
    }
  });
});
