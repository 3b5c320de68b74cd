// The viewer's pure modules, run in Node without a browser or a server: the tile map, the paint
// brush's batching (the protocol's limits), the demo keys' choice of command, and what a page the
// server welcomed as viewer sends (nothing that commands). The end-to-end
// tests show them working; these pin the edge cases an end-to-end run cannot reach cheaply.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { TileMap, tileLine } from '../../clients/web/tile_map.js';
import { Painter, chunkTiles, MAX_TILES_PER_COMMAND, MAX_COMMAND_BYTES } from '../../clients/web/paint.js';
import { DemoKeys } from '../../clients/web/demo_keys.js';
import { layerTilePx, trailAlpha } from '../../clients/web/map_view.js';
import { Interpolator, lerpAgents } from '../../clients/web/interp.js';
import { StreamStats } from '../../clients/web/stats.js';
import { agentRoles, markOutline, MARK_GAP_PX } from '../../clients/web/roles.js';
import { Inspector, MAX_DRAWN } from '../../clients/web/inspector.js';
import { inspectNote } from '../../clients/web/panels.js';
import { nextRate, tickRateParams, TICK_RATES } from '../../clients/web/scenario_bar.js';
import { formationProgress } from '../../clients/web/hud.js';
import { commandNotice, isHelloRefusal, VIEW_ONLY_NO_TOKEN, VIEW_ONLY_TOKEN_REFUSED } from '../../clients/web/access.js';
import { Session } from '../../clients/web/session.js';
import { newViewerState } from '../../clients/web/viewer_state.js';

const FRAME_LIMIT = 65_536; // PROTOCOL.md: larger frames close the connection

const MAP = { width: 5, height: 3, tile_size: 40, rows: ['#####', '#...#', '#####'] };

describe('TileMap', () => {
  it('reads rows, treats off-map as blocked, finds tiles and centres', () => {
    const m = new TileMap(MAP);
    assert.equal(m.isBlocked(0, 0), true);
    assert.equal(m.isBlocked(2, 1), false);
    assert.equal(m.isBlocked(-1, 1), true);
    assert.equal(m.isBlocked(5, 1), true);
    assert.deepEqual(m.tileAt(99, 41), { x: 2, y: 1 });
    assert.equal(m.tileAt(200, 10), null);
    assert.deepEqual(m.centre(2, 1), { x: 100, y: 60 });
    assert.deepEqual(m.rows(), MAP.rows);
  });

  it('reads a short or missing row as walls', () => {
    const m = new TileMap({ width: 3, height: 2, tile_size: 1, rows: ['..'] });
    assert.deepEqual(m.rows(), ['..#', '###']);
  });
});

describe('tileLine', () => {
  it('joins two tiles with 4-neighbour steps, both ends included', () => {
    for (const [a, b] of [
      [{ x: 0, y: 0 }, { x: 3, y: 0 }],
      [{ x: 4, y: 4 }, { x: 4, y: 1 }],
      [{ x: 0, y: 0 }, { x: 5, y: 3 }],
      [{ x: 2, y: 1 }, { x: -3, y: 4 }],
      [{ x: 7, y: 7 }, { x: 7, y: 7 }],
    ]) {
      const line = tileLine(a, b);
      assert.deepEqual(line[0], a);
      assert.deepEqual(line.at(-1), b);
      assert.equal(line.length, Math.abs(b.x - a.x) + Math.abs(b.y - a.y) + 1);
      for (let i = 1; i < line.length; i++) {
        assert.equal(Math.abs(line[i].x - line[i - 1].x) + Math.abs(line[i].y - line[i - 1].y), 1, JSON.stringify(line));
      }
    }
  });
});

describe('paint batching', () => {
  it('keeps every set_tiles under 10,000 tiles and the 64 KiB frame', () => {
    const tiles = [];
    for (let y = 1000; y < 1024; y++) for (let x = 0; x < 1024; x++) tiles.push({ x, y, blocked: false });
    const chunks = chunkTiles(tiles);
    assert.ok(chunks.length > 1);
    assert.deepEqual(chunks.flat(), tiles);
    for (const c of chunks) {
      assert.ok(c.length <= MAX_TILES_PER_COMMAND);
      const frame = JSON.stringify({ type: 'command', seq: 4294967295, cmd: 'set_tiles', tiles: c });
      assert.ok(frame.length <= MAX_COMMAND_BYTES + 100 && frame.length < FRAME_LIMIT, `${frame.length} bytes`);
    }
  });

  it('coalesces a drag into one command of the tiles that change, kept as a preview until shown', () => {
    const sent = [];
    const painter = new Painter((tiles) => (sent.push(tiles), sent.length));
    const map = new TileMap(MAP);
    painter.setOn(true);
    // From the wall at (0, 1) across the floor to the wall at (4, 1), and back over (3, 1).
    painter.begin(map, { x: 20, y: 60 }, true);
    painter.extend(map, { x: 180, y: 60 });
    painter.extend(map, { x: 140, y: 60 });
    assert.deepEqual(sent, [], 'sent before the button came up');
    assert.deepEqual(painter.preview().map((t) => t.x), [1, 2, 3]);
    painter.end();
    assert.deepEqual(sent, [[1, 2, 3].map((x) => ({ x, y: 1, blocked: true }))]);

    // The preview stays until the first snapshot at or after the ack's tick.
    painter.acked(1, 50);
    painter.snapshot(49);
    assert.equal(painter.preview().length, 3);
    painter.snapshot(50);
    assert.equal(painter.preview().length, 0);

    // A refused command drops its preview at once; erasing a tile that is still floor sends nothing.
    painter.begin(map, { x: 60, y: 60 }, true);
    painter.end();
    painter.refused(2);
    assert.equal(painter.preview().length, 0);
    painter.begin(map, { x: 60, y: 60 }, false);
    painter.end();
    assert.equal(sent.length, 2);
  });
});

describe('map layer resolution', () => {
  it('one pixel a tile for a 1024 x 1024 map; the tile size on screen for small maps, within limits', () => {
    assert.equal(layerTilePx(1.2, 1024, 1024), 1);
    assert.equal(layerTilePx(37.3, 20, 15), 38);
    assert.equal(layerTilePx(500, 20, 15), 64);
    const px = layerTilePx(20, 300, 300);
    assert.ok(px * px * 300 * 300 <= 8_000_000, `${px} px a tile`);
  });
});

describe('demo keys', () => {
  const centre = { x: 400, y: 300 };

  it('B is exchange after G, invert after P, swap_places otherwise', () => {
    const keys = new DemoKeys();
    const b = () => keys.command('B', 'all', centre).cmd;
    assert.equal(b(), 'swap_places');
    keys.command('R', 'all', centre);
    assert.equal(b(), 'swap_places');
    keys.command('G', 'all', centre);
    assert.equal(b(), 'exchange');
    assert.equal(b(), 'exchange', 'B again exchanges back');
    keys.command('P', 'all', centre);
    assert.equal(b(), 'invert');
    keys.command('T', 'all', centre);
    assert.equal(b(), 'swap_places');
  });

  it('sends the demo commands on the given selection', () => {
    const keys = new DemoKeys();
    assert.deepEqual(keys.command('t', [3, 4], centre), { cmd: 'opposite', agents: [3, 4], groups: 3 });
    assert.deepEqual(keys.command('G', [3, 4], centre), {
      cmd: 'formation',
      agents: [3, 4],
      shape: 'block',
      centre,
      count: 2,
      regroup: true,
    });
    assert.equal(keys.command('X', 'all', centre), null);
  });
});

describe('interpolation', () => {
  it('places each agent of the newer snapshot between its two positions; one that stood still is not copied', () => {
    const still = { id: 2, x: 5, y: 5, vx: 0, vy: 0, group: 1 };
    const from = [{ id: 1, x: 0, y: 0 }, { ...still }, { id: 3, x: 9, y: 9 }];
    const to = [{ id: 1, x: 10, y: -4, group: 0, collided: true }, still, { id: 4, x: 1, y: 1 }];
    const out = lerpAgents(from, to, 0.25);
    assert.deepEqual(out[0], { id: 1, x: 2.5, y: -1, group: 0, collided: true });
    assert.equal(out[1], still, 'a still agent is the snapshot\'s own object');
    assert.equal(out[2], to[2], 'a new agent is drawn where the newer snapshot has it');
    assert.equal(out.length, 3, 'an agent gone from the newer snapshot is not drawn');
  });

  it('extrapolates moving agents along their velocity when the buffer runs dry, and leaves still ones', () => {
    const interp = new Interpolator();
    interp.reset(60, 20);
    const still = { id: 1, x: 5, y: 5, vx: 0, vy: 0 };
    interp.push(60, [still, { id: 2, x: 0, y: 0, vx: 10, vy: 0 }], 1000);
    // Page time 1000 ms is world time 1000 ms; drawn 100 ms behind, then 20 ms past the newest.
    const out = interp.sample(1000 + interp.delayMs + 20);
    assert.equal(interp.last.mode, 'extrapolate');
    assert.equal(out[0], still);
    assert.ok(Math.abs(out[1].x - 0.2) < 1e-9, `x ${out[1].x}`);
  });
});

describe('dropped snapshots', () => {
  it('counts gaps in the serials while the world runs, none while paused, and compares afresh after a welcome', () => {
    const s = new StreamStats();
    s.reset(false);
    for (const n of [10, 11, 12, 15, 16]) s.snapshot(n, 0); // 13 and 14 skipped
    assert.equal(s.read(0).dropped, 2);
    s.reset(true); // paused: a step's burst, thinned by the server, is not news
    for (const n of [17, 25, 40]) s.snapshot(n, 0);
    assert.equal(s.read(0).dropped, 2);
    s.reset(false); // resumed: the welcome may overtake the step's last snapshot
    for (const n of [41, 42, 43]) s.snapshot(n, 0);
    assert.equal(s.read(0).dropped, 2);
    s.snapshot(undefined, 0); // a server that does not number them: nothing guessed from ticks
    s.snapshot(45, 0);
    assert.equal(s.read(0).dropped, 3);
  });
});

describe('roles', () => {
  it('hunters, guards and prey from behaviours and subjects; leaders are followed', () => {
    const roles = agentRoles([
      { id: 1, behaviour: 'pursue', subject: 2 },
      { id: 2, behaviour: 'arrive' },
      { id: 3, behaviour: 'react', subject: 4 },
      { id: 4, behaviour: 'seek' },
      { id: 5, behaviour: 'flee', subject: 1 },
      { id: 6, behaviour: 'arrive', subject: 7 },
      { id: 7, behaviour: 'idle' },
      { id: 8, behaviour: 'attack', phase: 'done', subject: 9 },
      { id: 9, behaviour: 'idle' },
      { id: 10, behaviour: 'seek', subject: 1 }, // follows a hunter: it stays a hunter
    ]);
    assert.deepEqual(Object.fromEntries(roles), { 1: 'hunter', 2: 'prey', 3: 'guard', 4: 'prey', 5: 'prey', 7: 'leader' });
  });

  it('marks keep clear of the body and have shapes of their own', () => {
    const corners = {};
    for (const role of ['hunter', 'prey', 'guard', 'leader']) {
      const pts = markOutline(role, 100, 50, 4, 0.3);
      corners[role] = pts.length;
      // The distance from the centre to each edge: never inside the body plus the gap.
      for (let i = 0; i < pts.length; i++) {
        const [ax, ay] = pts[i];
        const [bx, by] = pts[(i + 1) % pts.length];
        const t = Math.max(0, Math.min(1, ((100 - ax) * (bx - ax) + (50 - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)));
        const d = Math.hypot(ax + t * (bx - ax) - 100, ay + t * (by - ay) - 50);
        assert.ok(d >= 4 + MARK_GAP_PX - 1e-9, `${role}: an edge ${d.toFixed(2)} px from the centre`);
      }
    }
    assert.deepEqual(corners, { hunter: 3, prey: 4, guard: 4, leader: 10 });
    // The hunter points where it goes; the diamond and the square differ by 45 degrees.
    const [tip] = markOutline('hunter', 0, 0, 4, 0);
    assert.ok(tip[0] > 0 && Math.abs(tip[1]) < 1e-9);
    assert.ok(Math.abs(markOutline('prey', 0, 0, 4)[0][1]) < 1e-9);
    assert.ok(Math.abs(markOutline('guard', 0, 0, 4)[0][1]) > 1);
  });
});

describe('inspector with many selected', () => {
  it(`draws the agent under the cursor, else the first ${MAX_DRAWN}, and says how many more`, () => {
    const ins = new Inspector(() => true);
    ins.toggle();
    ins.sync(new Set(Array.from({ length: 20 }, (_, i) => i + 1)));
    assert.equal(ins.ids.length, 16);
    const traces = ins.ids.map((id) => ({ id }));
    assert.deepEqual(ins.drawn(traces, null).map((t) => t.id), [1, 2, 3]);
    assert.deepEqual(ins.drawn(traces, 9).map((t) => t.id), [9]);
    assert.deepEqual(ins.drawn(traces, 19).map((t) => t.id), [1, 2, 3], 'not traced: the first three');
    assert.equal(inspectNote(ins.ids, [1, 2, 3], 20), 'drawn: 1, 2, 3 · +17 more: point at one to draw its own (the first 16 selected are traced)');
    assert.equal(inspectNote([4], [4], 1), 'drawn: 4');
  });
});

describe('scenario bar rates', () => {
  it('steps through the offered rates, and brings the snapshot rate down with the tick rate', () => {
    assert.equal(nextRate(TICK_RATES, 60, 1), 120);
    assert.equal(nextRate(TICK_RATES, 60, -1), 30);
    assert.equal(nextRate(TICK_RATES, 50, 1), 60, 'a rate between two offered');
    assert.equal(nextRate(TICK_RATES, TICK_RATES.at(-1), 1), null);
    assert.deepEqual(tickRateParams(15, 20), { tick_rate: 15, snapshot_rate: 15 });
    assert.deepEqual(tickRateParams(120, 20), { tick_rate: 120 });
  });
});

describe('formation progress', () => {
  it('says how many arrived, then complete, and names the places that cannot be reached', () => {
    assert.equal(formationProgress({ id: 3, agents: 32, arrived: 28, complete: false }), 'formation 3: 28/32 arrived');
    assert.equal(formationProgress({ id: 3, agents: 32, arrived: 32, complete: true }), 'formation 3: complete');
    const moved = { agent: 5, x: 400, y: 300, reason: 'obstacle', to: { x: 428.5, y: 300 } };
    assert.equal(formationProgress({ id: 4, agents: 9, arrived: 9, complete: true, unreachable: [moved] }),
      'formation 4: complete · 1 place moved beside an obstacle (agent 5)');
    const lost = [7, 9, 11, 12].map((agent) => ({ agent, x: 0, y: 0, reason: 'no_path' }));
    assert.equal(formationProgress({ id: 5, agents: 5, arrived: 2, complete: false, unreachable: lost }),
      'formation 5: 2/5 arrived · 4 places unreachable (agents 7, 9, 11, …)');
  });
});

describe('trail opacity', () => {
  it('fades from 0.15 for the oldest entry to exactly 1 for the newest, for every history length', () => {
    for (let n = 2; n <= 200; n++) {
      assert.equal(trailAlpha(n - 1, n), 1, `newest of ${n}`);
      assert.ok(Math.abs(trailAlpha(0, n) - 0.15) < 1e-12, `oldest of ${n}`);
    }
    assert.equal(trailAlpha(0, 1), 1);
  });
});

describe('command access', () => {
  it("follows the welcome's role; a token the server did not take is said to be refused", () => {
    assert.equal(commandNotice('commander', false), '', 'an open server makes a page without a token commander');
    assert.equal(commandNotice('commander', true), '');
    assert.equal(commandNotice('viewer', false), VIEW_ONLY_NO_TOKEN);
    assert.equal(commandNotice('viewer', true), VIEW_ONLY_TOKEN_REFUSED);
    assert.match(VIEW_ONLY_NO_TOKEN, /^view only: .*#token=/);
    assert.match(VIEW_ONLY_TOKEN_REFUSED, /the token in the URL was refused/);
    assert.equal(isHelloRefusal({ code: 'unauthorized' }), true);
    assert.equal(isHelloRefusal({ code: 'unauthorized', seq: 3 }), false);
    assert.equal(isHelloRefusal({ code: 'forbidden', seq: 3 }), false);
  });

  // A session on fakes of the page's pieces, connected; `role` its welcome's.
  const sessionAs = (/** @type {string} */ role, { token = false } = {}) => {
    const log = { sent: /** @type {object[]} */ ([]), toasts: /** @type {string[]} */ ([]), flashes: 0, notes: /** @type {string[]} */ ([]) };
    const conn = { state: 'connected', generation: 1, hasToken: token, snapshotFormat: 'json', send: (/** @type {object} */ m) => (log.sent.push(m), true) };
    const noop = () => {};
    const session = new Session(
      /** @type {any} */ ({
        conn,
        state: newViewerState(),
        view: { setWorld: noop, setMap: noop },
        hud: { toast: (/** @type {string} */ t) => log.toasts.push(t) },
        interp: { reset: noop },
        stats: { reset: noop, message: noop },
        inspector: { sessionStarted: noop },
        painter: { on: false, reset: noop, setOn: noop, refused: noop },
        bar: { update: (/** @type {{notice: string}} */ u) => log.notes.push(u.notice), flashNote: () => ++log.flashes },
        heat: { welcomed: noop, receive: noop },
      }),
    );
    if (role !== 'commander') {
      session.handleMessage({ type: 'error', code: 'unauthorized', message: 'this server needs a command token to command; welcomed as a viewer' });
    }
    session.handleMessage(
      /** @type {any} */ ({ type: 'welcome', role, tick: 0, tick_rate: 60, snapshot_rate: 20, world: { width: 800, height: 600 } }),
    );
    return { session, log };
  };

  it('a viewer sends no command: the note is flashed, with no toast', () => {
    const { session, log } = sessionAs('viewer');
    assert.equal(session.viewOnly, true);
    assert.equal(log.notes.at(-1), VIEW_ONLY_NO_TOKEN);
    assert.equal(session.sendCommand({ cmd: 'pause' }), null);
    assert.equal(session.sendCommand({ cmd: 'spawn', count: 5 }), null);
    assert.deepEqual(log.sent, []);
    assert.equal(log.flashes, 2);
    assert.deepEqual(log.toasts, [], "the hello's unauthorized and the welcome are said by the note alone");
  });

  it('a wrong token is said refused; a commander, with or without a token, sends', () => {
    assert.equal(sessionAs('viewer', { token: true }).log.notes.at(-1), VIEW_ONLY_TOKEN_REFUSED);
    for (const token of [false, true]) {
      const { session, log } = sessionAs('commander', { token });
      assert.equal(session.viewOnly, false);
      assert.equal(log.notes.at(-1), '');
      const seq = session.sendCommand({ cmd: 'pause' });
      assert.deepEqual(log.sent, [{ type: 'command', seq, cmd: 'pause' }]);
      assert.deepEqual(log.toasts, []);
    }
  });
});
