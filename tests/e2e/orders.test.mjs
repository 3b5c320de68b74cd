// Orders as in real-time strategy games, against the real server (the empty scenario, with a squad
// of four agents of group 1 in a square and a lone enemy of group 2 spawned by a second client):
// the right button sends the selection with "spread": "keep", and the server gives each agent its
// own goal, the point plus its offset in the squad; Shift + right-click queues, so the snapshots
// carry the squad's `waypoints` and the page draws each selected agent's route (window.herd.routes,
// and a dot on the canvas at its last point); A arms an attack-move (the cursor and the hint say
// so, Esc disarms) and the next right-click sends attack_move, which the squad carries out,
// engaging the enemy on its way; Q and Shift + right-clicks give a patrol through a route, sent
// when Shift is let go; C stops; and the help lists the keys.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startServer } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';
import { screenshot } from './lib/scene.mjs';

const TEST_TIMEOUT_MS = 60_000;
const sorted = (ids) => [...ids].sort((a, b) => a - b);
// The squad: four agents (radius 8) round (200, 300), close enough that "keep" keeps their offsets
// as they are (a packed clump of four reaches about 37 units from its centre).
const SQUAD = [
  [-20, -20],
  [20, -20],
  [-20, 20],
  [20, 20],
].map(([dx, dy]) => ({ x: 200 + dx, y: 300 + dy, group: 1 }));
const ENEMY = { x: 560, y: 420, group: 2 };
// Screenshots (orders_route.png: the squad's queued routes) go to HERD_E2E_OUT.
const outDir = process.env.HERD_E2E_OUT || mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-out-'));

describe('orders: move keeping the shape, queue, attack-move, patrol, stop', { timeout: 8 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;
  let page;
  let pageErrors;
  let sent;
  let commander;
  let watcher;
  let squad; // the squad's ids
  let enemy;

  before(async () => {
    server = await startServer({ scenario: 'empty' });
    commander = await ProtocolClient.connect(server.wsUrl, { role: 'commander' });
    watcher = await ProtocolClient.connect(server.wsUrl, { role: 'viewer' });
    squad = (await command({ cmd: 'spawn', agents: SQUAD })).agents;
    [enemy] = (await command({ cmd: 'spawn', agents: [ENEMY] })).agents;
    browser = await launchBrowser();
    ({ page, pageErrors, sent } = await openViewer(browser.browser, server));
  });

  after(async () => {
    commander?.close();
    watcher?.close();
    await browser?.close();
    await server?.stop();
  });

  // What the test sets up itself, through the second client: each acknowledged.
  const command = (fields) => commander.command(fields, WAIT_MS);

  // The page point of world point (x, y), at a whole CSS pixel, checked to be the canvas's (no
  // panel over it).
  async function ground(x, y) {
    const p = await page.evaluate(
      ([wx, wy]) => {
        const s = window.herd.worldToScreen(wx, wy);
        const box = document.getElementById('world').getBoundingClientRect();
        const px = box.left + Math.round(s.x);
        const py = box.top + Math.round(s.y);
        return { x: px, y: py, canvas: document.elementFromPoint(px, py)?.id === 'world' };
      },
      [x, y],
    );
    assert.ok(p.canvas, `world point (${x}, ${y}) is under a panel`);
    return p;
  }

  async function rightClick(x, y, { shift = false } = {}) {
    const p = await ground(x, y);
    if (shift) await page.keyboard.down('Shift');
    await page.mouse.click(p.x, p.y, { button: 'right' });
    if (shift) await page.keyboard.up('Shift');
  }

  // The next command frame the page sends with this cmd, after those already seen.
  let seen = 0;
  async function nextSent(cmd) {
    const frame = await sent.find((m) => m.type === 'command' && m.cmd === cmd && m.seq > seen, WAIT_MS, `a ${cmd} command`);
    seen = frame.seq;
    return frame;
  }

  const snapshotWith = (what, test) => watcher.next((m) => m.type === 'snapshot' && test(m), WAIT_MS, what);
  const squadOf = (snap) => squad.map((id) => snap.agents.find((a) => a.id === id));

  async function selectSquad() {
    await page.keyboard.press('1');
    assert.deepEqual(sorted(await page.evaluate(() => window.herd.selected)), sorted(squad));
  }

  it('right-click sends the squad with spread keep: each agent its own goal, the point plus its offset', { timeout: TEST_TIMEOUT_MS }, async () => {
    const before = await snapshotWith('a snapshot of the squad', (m) => squadOf(m).every(Boolean));
    const at = squadOf(before).map((a) => ({ x: a.x, y: a.y }));
    const centre = { x: at.reduce((s, p) => s + p.x, 0) / at.length, y: at.reduce((s, p) => s + p.y, 0) / at.length };
    await selectSquad();
    await rightClick(420, 150);
    const move = await nextSent('set_target');
    assert.equal(move.spread, 'keep');
    assert.equal(move.queue, undefined);
    assert.deepEqual(sorted(move.agents), sorted(squad));
    const goalsOf = (snap) => squadOf(snap).map((a) => ({ x: a.tx, y: a.ty }));
    const snap = await snapshotWith('the squad going to its goals', (m) => squadOf(m).every((a) => a.tx !== undefined && Math.hypot(a.tx - move.target.x, a.ty - move.target.y) < 60));
    const goals = goalsOf(snap);
    // Four goals, one per agent, each the point plus where the agent stood from the squad's centre.
    assert.equal(new Set(goals.map((g) => `${g.x},${g.y}`)).size, 4, `goals not each its own: ${JSON.stringify(goals)}`);
    goals.forEach((g, i) => {
      const want = { x: move.target.x + at[i].x - centre.x, y: move.target.y + at[i].y - centre.y };
      assert.ok(Math.hypot(g.x - want.x, g.y - want.y) < 0.5, `agent ${squad[i]}: goal ${JSON.stringify(g)}, not ${JSON.stringify(want)}`);
    });
  });

  it('Shift + right-click queues: the snapshots carry waypoints and the page draws the route', { timeout: TEST_TIMEOUT_MS }, async (t) => {
    await rightClick(420, 480, { shift: true });
    const first = await nextSent('set_target');
    await rightClick(650, 480, { shift: true });
    const second = await nextSent('set_target');
    assert.deepEqual([first.queue, first.spread, second.queue, second.spread], [true, 'keep', true, 'keep']);
    // While the squad still heads for its first goal, two points queued after it.
    const snap = await snapshotWith('the squad with two waypoints', (m) => squadOf(m).every((a) => a.waypoints?.length === 4));
    const lasts = squadOf(snap).map((a) => ({ x: a.waypoints[2], y: a.waypoints[3] }));
    const centre = { x: lasts.reduce((s, p) => s + p.x, 0) / 4, y: lasts.reduce((s, p) => s + p.y, 0) / 4 };
    assert.ok(Math.hypot(centre.x - second.target.x, centre.y - second.target.y) < 0.5, `the last waypoints centre on ${JSON.stringify(centre)}`);
    assert.equal(snap.agents.find((a) => a.id === enemy).waypoints, undefined, 'the enemy got waypoints');

    // The page draws each selected agent's route: goal, then the two points, a dot on each.
    const id = squad[0];
    await page.waitForFunction((i) => window.herd.routes.some((r) => r.id === i && r.points.length === 3), id, { timeout: WAIT_MS });
    const drawn = await page.evaluate(async (i) => {
      await new Promise(requestAnimationFrame);
      const h = window.herd;
      const route = h.routes.find((r) => r.id === i);
      const agent = h.agents.find((a) => a.id === i);
      const canvas = document.getElementById('world');
      const k = canvas.width / canvas.clientWidth;
      const last = route.points.at(-1);
      const pixel = Array.from(canvas.getContext('2d').getImageData(Math.floor(last.x * k), Math.floor(last.y * k), 1, 1).data);
      const want = [agent.waypoints[2], agent.waypoints[3]].map((v, j) => (j === 0 ? h.worldToScreen(v, 0).x : h.worldToScreen(0, v).y));
      return { ids: h.routes.map((r) => r.id), last, want, pixel };
    }, id);
    assert.ok(Math.hypot(drawn.last.x - drawn.want[0], drawn.last.y - drawn.want[1]) < 0.01, `the route ends at ${JSON.stringify(drawn.last)}`);
    assert.deepEqual(sorted(drawn.ids), sorted(squad), 'routes are drawn for the selection only');
    // The dot is the targets' white: every channel high (the ground and the group colours are not).
    assert.ok(drawn.pixel.slice(0, 3).every((c) => c > 180), `no dot at the route's last point: ${drawn.pixel}`);
    await screenshot({ page }, outDir, 'orders_route.png', t);
  });

  it('A arms an attack-move (cursor and hint), Esc disarms, and A then right-click sends attack_move', { timeout: TEST_TIMEOUT_MS }, async () => {
    const armed = () => page.evaluate(() => ({ armed: window.herd.armed, mark: document.getElementById('world').dataset.armed ?? '' }));
    await page.keyboard.press('a');
    let now = await armed();
    assert.equal(now.armed?.kind, 'attack_move');
    assert.equal(now.mark, 'attack_move');
    // The hint follows at the next frame.
    await page.locator('#hint', { hasText: /^attack-move: right-click a point/ }).waitFor({ timeout: WAIT_MS });
    assert.match(await page.locator('#world').evaluate((c) => c.style.cursor), /^url\("data:image\/svg\+xml/);
    await page.keyboard.press('Escape');
    now = await armed();
    assert.deepEqual([now.armed, now.mark], [null, '']);
    assert.deepEqual(sorted(await page.evaluate(() => window.herd.selected)), sorted(squad), 'Esc cleared the selection instead');

    // Beyond the enemy, so that the way there passes it.
    await page.keyboard.press('a');
    await rightClick(700, 420);
    const order = await nextSent('attack_move');
    assert.deepEqual(sorted(order.agents), sorted(squad));
    assert.equal(order.spread, 'keep');
    assert.equal((await armed()).armed, null, 'the order stayed armed after its click');
    await snapshotWith('the squad attack-moving', (m) => squadOf(m).every((a) => a.behaviour === 'attack_move' && ['advance', 'engage'].includes(a.phase)));
    await snapshotWith(`an agent of the squad engaging enemy ${enemy}`, (m) => squadOf(m).some((a) => a.phase === 'engage' && a.subject === enemy));
  });

  it('Q and Shift + right-clicks give a patrol route, sent when Shift is let go; C stops it', { timeout: TEST_TIMEOUT_MS }, async () => {
    await page.keyboard.press('q');
    assert.equal(await page.evaluate(() => window.herd.armed?.kind), 'patrol');
    const a = await ground(150, 120);
    const b = await ground(650, 120);
    await page.keyboard.down('Shift');
    await page.mouse.click(a.x, a.y, { button: 'right' });
    await page.mouse.click(b.x, b.y, { button: 'right' });
    assert.equal(await page.evaluate(() => window.herd.armed?.route.length), 2);
    await page.locator('#hint', { hasText: /^patrol route: 2 points/ }).waitFor({ timeout: WAIT_MS });
    await page.keyboard.up('Shift');
    const patrol = await nextSent('patrol');
    assert.equal(patrol.points.length, 2);
    assert.equal(patrol.spread, 'keep');
    assert.equal(await page.evaluate(() => window.herd.armed), null);
    await snapshotWith('the squad patrolling', (m) => squadOf(m).every((a) => a.behaviour === 'patrol' && a.waypoints?.length >= 2));

    await page.keyboard.press('c');
    const stop = await nextSent('stop');
    assert.deepEqual(sorted(stop.agents), sorted(squad));
    await snapshotWith('the squad stopped, its route forgotten', (m) => squadOf(m).every((a) => a.behaviour === 'idle' && a.waypoints === undefined));
  });

  it('the help lists the orders: Shift + right-click, A, Q and C', { timeout: TEST_TIMEOUT_MS }, async () => {
    await page.keyboard.press('h');
    const help = page.locator('#help');
    await help.waitFor({ state: 'visible', timeout: WAIT_MS });
    const rows = await help.locator('dt').evaluateAll((dts) => dts.map((dt) => ({ term: dt.textContent, does: dt.nextElementSibling?.textContent ?? '' })));
    const row = (term) => rows.find((r) => r.term === term);
    assert.match(row('Shift + right-click the ground')?.does ?? '', /queue/);
    assert.match(row('A')?.does ?? '', /^attack-move/);
    assert.match(row('Q')?.does ?? '', /^patrol/);
    assert.match(row('C')?.does ?? '', /^stop/);
    await page.keyboard.press('h');
    await help.waitFor({ state: 'hidden', timeout: WAIT_MS });
  });

  it('the page threw no uncaught exception', () => {
    assert.deepEqual(pageErrors, []);
  });
});
