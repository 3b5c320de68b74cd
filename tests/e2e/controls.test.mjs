// The viewer as a strategy game's view: smooth motion (snapshot interpolation), the status bar's
// stream figures, the camera, box selection and right-click orders, and the spawn / remove /
// obstacle keys; a second WebSocket client checks what the server did.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';
import { interpolatedFrames } from './lib/control_probes.mjs';
import { emptyPoint } from './lib/page_probes.mjs';
import { colorDistance, hexToRgb } from './lib/colors.mjs';

const TEST_TIMEOUT_MS = 60_000;

describe('smooth motion, camera and commands', { timeout: 6 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;
  let page;
  let canvasBox;
  let pageErrors;

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    ({ page, canvasBox, pageErrors } = await openViewer(browser.browser, server));
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('draws moving agents between two snapshots, at 60 fps from 20 Hz', { timeout: TEST_TIMEOUT_MS }, async () => {
    // A few fast agents crossing the top of the world, clear of the crowd in the middle.
    const world = await page.evaluate(() => window.herd.world);
    const runners = [0, 1, 2].map((i) => ({
      x: 0.05 * world.width,
      y: 0.06 * world.height + i * 0.05 * world.height,
      max_speed: 150,
      target: { x: 0.95 * world.width, y: 0.06 * world.height + i * 0.05 * world.height },
    }));
    await page.evaluate((agents) => window.herd.sendCommand({ cmd: 'spawn', agents }), runners);
    const it = await page.evaluate(() => window.herd.interpolation);
    // About two snapshot intervals of the server's rate.
    const rate = await page.evaluate(() => window.herd.snapshotRate);
    assert.ok(Math.abs(it.delayMs - 2000 / rate) < 1, `delay ${it.delayMs} ms at ${rate} snapshots/s`);

    const r = await page.evaluate(interpolatedFrames, { frames: 12, minMove: 2, tolerance: 8, timeoutMs: WAIT_MS });
    assert.ok(r.ok, `interpolation: ${r.why}; ${JSON.stringify(r.checks.filter((c) => !c.ok).slice(0, 3))}`);
    // Several distinct positions between the same pair of snapshots: motion, not steps.
    const perPair = new Map();
    for (const c of r.checks) perPair.set(`${c.from}-${c.to}`, (perPair.get(`${c.from}-${c.to}`) ?? new Set()).add(c.alpha));
    assert.ok(Math.max(...[...perPair.values()].map((s) => s.size)) >= 2, 'each snapshot pair was drawn only once');

    // The delay can be changed from the console; with none, frames run past the newest snapshot
    // and are extrapolated for at most one interval, then held.
    assert.equal(await page.evaluate(() => window.herd.setInterpolationDelay(0)), 0);
    const late = await page.evaluate(async () => {
      const seen = [];
      for (let i = 0; i < 30; i++) {
        await new Promise(requestAnimationFrame);
        seen.push(window.herd.interpolation);
      }
      return seen;
    });
    assert.ok(late.every((s) => s.mode === 'extrapolate' || s.mode === 'hold' || s.mode === 'interpolate'));
    assert.ok(late.some((s) => s.mode === 'extrapolate'), 'no frame extrapolated without a delay');
    assert.ok(late.every((s) => s.extrapolatedMs <= 1000 / rate + 1e-6), 'extrapolated for more than an interval');
    await page.evaluate(() => window.herd.setInterpolationDelay(null));
    assert.ok(Math.abs((await page.evaluate(() => window.herd.interpolation.delayMs)) - 2000 / rate) < 1);
  });

  it('the status bar shows the snapshot rate, bytes per second and dropped snapshots', { timeout: TEST_TIMEOUT_MS }, async () => {
    const rate = await page.evaluate(() => window.herd.snapshotRate);
    assert.equal(rate, 20);
    let last = '';
    const deadline = Date.now() + WAIT_MS;
    let ok = false;
    while (Date.now() < deadline && !ok) {
      last = await page.locator('#snaps').textContent();
      const n = Number(last.replace('/s', ''));
      ok = n >= 15 && n <= 25;
      if (!ok) await page.waitForTimeout(200);
    }
    assert.ok(ok, `status bar snapshot rate "${last}", want 15..25/s`);
    assert.match(await page.locator('#bytes').textContent(), /^\d+(\.\d)? (B|kB|MB)\/s$/);
    const dropped = await page.locator('#dropped').textContent();
    assert.match(dropped, /^\d+$/);
    assert.equal(Number(dropped), await page.evaluate(() => window.herd.stream.dropped));
  });

  const screenOf = (x, y) => page.evaluate(([a, b]) => window.herd.worldToScreen(a, b), [x, y]);
  const scaleNow = () => page.evaluate(() => window.herd.worldToScreen(1, 0).x - window.herd.worldToScreen(0, 0).x);
  const frame = () => page.evaluate(() => new Promise(requestAnimationFrame));

  it('camera: the wheel zooms at the cursor, arrows pan, F fits the world', { timeout: TEST_TIMEOUT_MS }, async () => {
    const world = await page.evaluate(() => window.herd.world);
    const fitTl = await screenOf(0, 0);
    const fitBr = await screenOf(world.width, world.height);
    const scale0 = await scaleNow();
    // A point off the centre, so zooming about the centre instead would move it.
    const sx = Math.round(canvasBox.width * 0.3);
    const sy = Math.round(canvasBox.height * 0.35);
    const w = await page.evaluate(([x, y]) => window.herd.screenToWorld(x, y), [sx, sy]);
    await page.mouse.move(canvasBox.x + sx, canvasBox.y + sy);
    await page.mouse.wheel(0, -400);
    await page.waitForFunction((s0) => window.herd.worldToScreen(1, 0).x - window.herd.worldToScreen(0, 0).x > s0 * 1.2, scale0, {
      timeout: WAIT_MS,
    });
    const after = await screenOf(w.x, w.y);
    assert.ok(Math.hypot(after.x - sx, after.y - sy) < 0.5, `the point under the cursor moved to ${JSON.stringify(after)} from ${sx},${sy}`);
    const zoomed = await scaleNow();
    assert.ok(zoomed > scale0 * 1.2, `zoom ${zoomed} vs ${scale0}`);
    // Zooming out again at another point keeps that one fixed too.
    const w2 = await page.evaluate(([x, y]) => window.herd.screenToWorld(x, y), [sx + 200, sy + 100]);
    await page.mouse.move(canvasBox.x + sx + 200, canvasBox.y + sy + 100);
    await page.mouse.wheel(0, 150);
    await page.waitForFunction((s) => window.herd.worldToScreen(1, 0).x - window.herd.worldToScreen(0, 0).x < s, zoomed, { timeout: WAIT_MS });
    const after2 = await screenOf(w2.x, w2.y);
    assert.ok(Math.hypot(after2.x - sx - 200, after2.y - sy - 100) < 0.5, `zoom-out moved the cursor's point to ${JSON.stringify(after2)}`);

    // An arrow key pans a tenth of the view; the world moves the other way.
    const before = await screenOf(w.x, w.y);
    await page.keyboard.press('ArrowRight');
    await frame();
    const panned = await screenOf(w.x, w.y);
    assert.ok(Math.abs(panned.x - (before.x - 0.1 * canvasBox.width)) < 1 && Math.abs(panned.y - before.y) < 0.01, `ArrowRight: ${JSON.stringify(panned)}`);
    // Middle drag pans with the pointer.
    await page.mouse.move(canvasBox.x + 400, canvasBox.y + 300);
    await page.mouse.down({ button: 'middle' });
    await page.mouse.move(canvasBox.x + 430, canvasBox.y + 280, { steps: 3 });
    await page.mouse.up({ button: 'middle' });
    const dragged = await screenOf(w.x, w.y);
    assert.ok(Math.abs(dragged.x - panned.x - 30) < 0.5 && Math.abs(dragged.y - panned.y + 20) < 0.5, `middle drag: ${JSON.stringify(dragged)}`);

    // F shows the whole world again, exactly as at the start.
    await page.keyboard.press('F');
    await frame();
    const tl = await screenOf(0, 0);
    const br = await screenOf(world.width, world.height);
    for (const [got, want] of [[tl, fitTl], [br, fitBr]]) {
      assert.ok(Math.abs(got.x - want.x) < 0.01 && Math.abs(got.y - want.y) < 0.01, `F: ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
    }
    // The button does the same.
    await page.mouse.move(canvasBox.x + sx, canvasBox.y + sy);
    await page.mouse.wheel(0, -300);
    await page.waitForFunction((s0) => window.herd.worldToScreen(1, 0).x - window.herd.worldToScreen(0, 0).x > s0 * 1.1, scale0, { timeout: WAIT_MS });
    await page.locator('#fit-btn').click();
    await page.waitForFunction((s0) => Math.abs(window.herd.worldToScreen(1, 0).x - window.herd.worldToScreen(0, 0).x - s0) < 1e-9, scale0, { timeout: WAIT_MS });
  });

  it('box select, then right-click sends the selection there', { timeout: TEST_TIMEOUT_MS }, async () => {
    const watcher = await ProtocolClient.connect(server.wsUrl, { role: 'viewer' });
    try {
      // Everyone stops, so the box's contents do not change under the drag.
      await page.evaluate(() => window.herd.sendCommand({ cmd: 'set_behaviour', agents: 'all', behaviour: 'idle' }));
      await page.waitForFunction(() => window.herd.agents.every((a) => Math.hypot(a.vx, a.vy) < 2), null, { timeout: WAIT_MS });
      const world = await page.evaluate(() => window.herd.world);
      // From the margin left of and above the world (empty ground) to the middle of the world.
      const a = await screenOf(0, 0);
      const b = await screenOf(world.width / 2, world.height);
      const box = { x0: a.x - 8, y0: a.y - 8, x1: b.x, y1: b.y + 4 };
      await page.mouse.move(canvasBox.x + box.x0, canvasBox.y + box.y0);
      await page.mouse.down();
      await page.mouse.move(canvasBox.x + box.x1, canvasBox.y + box.y1, { steps: 8 });
      await page.mouse.up();
      const { selected, expected } = await page.evaluate((bx) => {
        const h = window.herd;
        const p = h.screenToWorld(bx.x0, bx.y0);
        const q = h.screenToWorld(bx.x1, bx.y1);
        const inside = h.agents.filter((g) => g.x >= p.x && g.x <= q.x && g.y >= p.y && g.y <= q.y).map((g) => g.id);
        return { selected: h.selected.sort((m, n) => m - n), expected: inside.sort((m, n) => m - n) };
      }, box);
      assert.ok(expected.length >= 2, `too few agents in the box: ${expected.length}`);
      assert.deepEqual(selected, expected, 'the box did not select exactly the agents inside it');
      assert.equal(await page.evaluate(() => window.herd.lastCommand.cmd), 'set_behaviour', 'the drag sent an order');

      // Shift + drag adds: a box round the rest of the world selects everyone.
      const c = await screenOf(world.width / 2, 0);
      const d = await screenOf(world.width, world.height);
      await page.keyboard.down('Shift');
      await page.mouse.move(canvasBox.x + c.x, canvasBox.y + c.y - 8);
      await page.mouse.down();
      await page.mouse.move(canvasBox.x + d.x + 8, canvasBox.y + d.y + 8, { steps: 8 });
      await page.mouse.up();
      await page.keyboard.up('Shift');
      const all = await page.evaluate(() => ({ sel: window.herd.selected.length, n: window.herd.agents.length }));
      assert.equal(all.sel, all.n, 'Shift + drag did not add the rest');

      // Back to the first box only.
      await page.mouse.move(canvasBox.x + box.x0, canvasBox.y + box.y0);
      await page.mouse.down();
      await page.mouse.move(canvasBox.x + box.x1, canvasBox.y + box.y1, { steps: 8 });
      await page.mouse.up();
      await page.waitForFunction((n) => window.herd.selected.length === n, expected.length, { timeout: WAIT_MS });

      const target = await page.evaluate(emptyPoint, { awayFrom: null, minDist: 0 });
      assert.ok(target && target.clearance > 4, 'no empty ground to right-click');
      await page.mouse.click(canvasBox.x + target.sx, canvasBox.y + target.sy, { button: 'right' });
      const orders = await page.evaluate(() => window.herd.orders);
      assert.ok(orders.some((o) => Math.hypot(o.x - target.x, o.y - target.y) < 1), 'no marker where the order was given');
      // The order names exactly the boxed agents and keeps their shape: each gets its own goal
      // round the point (the group, wider than a packed clump of them, is drawn into one there).
      const move = await page.evaluate(() => window.herd.lastCommand);
      assert.deepEqual([move.cmd, move.spread, [...move.agents].sort((m, n) => m - n)], ['set_target', 'keep', expected]);
      const tol = 1 / target.scale + 0.01;
      assert.ok(Math.abs(move.target.x - target.x) <= tol && Math.abs(move.target.y - target.y) <= tol, `the order went to ${JSON.stringify(move.target)}`);
      // A packed clump of n agents of radius r, 3 r apart, reaches about 3 r sqrt(n sqrt(3) / 2 pi)
      // + 2 spacings from its centre; a clump that would cross the world's edge is moved inside
      // whole, by at most that much again.
      const reach = (n, r) => 2 * 3 * r * (Math.sqrt((n * Math.sqrt(3)) / (2 * Math.PI)) + 2);
      const snap = await watcher.next(
        (m) =>
          m.type === 'snapshot' &&
          expected.every((id) => {
            const g = m.agents.find((x) => x.id === id);
            return g && g.tx !== undefined && Math.hypot(g.tx - move.target.x, g.ty - move.target.y) <= reach(expected.length, g.r);
          }),
        WAIT_MS,
        `snapshot with agents ${expected} going round (${move.target.x}, ${move.target.y})`,
      );
      const goals = expected.map((id) => snap.agents.find((x) => x.id === id)).map((g) => `${g.tx},${g.ty}`);
      assert.equal(new Set(goals).size, expected.length, `the agents were not each given a goal of their own: ${goals}`);
      assert.equal(await page.evaluate(() => window.herd.lastCommand.behaviour), undefined); // arrive, the default
      await page.keyboard.press('Escape');
    } finally {
      watcher.close();
    }
  });

  it('S spawns 10 agents at the cursor, Delete removes the selection, O places an obstacle', { timeout: TEST_TIMEOUT_MS }, async () => {
    const watcher = await ProtocolClient.connect(server.wsUrl, { role: 'viewer' });
    try {
      const spot = await page.evaluate(emptyPoint, { awayFrom: null, minDist: 0 });
      const before = await watcher.next((m) => m.type === 'snapshot', WAIT_MS, 'a snapshot');
      const maxId = Math.max(...before.agents.map((g) => g.id));
      await page.mouse.move(canvasBox.x + spot.sx, canvasBox.y + spot.sy);
      await page.keyboard.press('S');
      const spawned = await watcher.next((m) => m.type === 'snapshot' && m.agents.some((g) => g.id > maxId), WAIT_MS, 'the spawned agents');
      const fresh = spawned.agents.filter((g) => g.id > maxId);
      assert.equal(fresh.length, 10);
      for (const g of fresh) assert.ok(Math.hypot(g.x - spot.x, g.y - spot.y) < 60, `agent ${g.id} spawned at ${g.x},${g.y}, far from ${spot.x},${spot.y}`);

      // Select them with a box round the spot, then Delete.
      // (Kept on the canvas: the spot may be near the world's edge.)
      const r = 70;
      const onCanvas = (p) => ({ x: Math.min(canvasBox.width - 2, Math.max(2, p.x)), y: Math.min(canvasBox.height - 2, Math.max(2, p.y)) });
      const a = onCanvas(await screenOf(spot.x - r, spot.y - r));
      const b = onCanvas(await screenOf(spot.x + r, spot.y + r));
      await page.waitForFunction((n) => window.herd.agents.some((g) => g.id > n), maxId, { timeout: WAIT_MS });
      await page.mouse.move(canvasBox.x + a.x, canvasBox.y + a.y);
      await page.mouse.down();
      await page.mouse.move(canvasBox.x + b.x, canvasBox.y + b.y, { steps: 8 });
      await page.mouse.up();
      const selected = await page.evaluate(() => window.herd.selected);
      assert.ok(selected.length >= 5, `box round the spawn selected ${selected.length}`);
      await page.keyboard.press('Delete');
      const gone = await watcher.next(
        (m) => m.type === 'snapshot' && selected.every((id) => !m.agents.some((g) => g.id === id)),
        WAIT_MS,
        `a snapshot without agents ${selected}`,
      );
      assert.equal(gone.agents.length, spawned.agents.length - selected.length);
      await page.waitForFunction(() => window.herd.selected.length === 0, null, { timeout: WAIT_MS });

      // O: an obstacle of radius 20 under the cursor.
      await page.mouse.move(canvasBox.x + spot.sx, canvasBox.y + spot.sy);
      await page.keyboard.press('O');
      const obs = await watcher.next(
        (m) => m.type === 'snapshot' && (m.obstacles ?? []).some((o) => Math.hypot(o.x - spot.x, o.y - spot.y) < 1 / spot.scale + 0.01 && o.r === 20),
        WAIT_MS,
        `an obstacle at ${spot.x},${spot.y}`,
      );
      assert.ok(obs);
    } finally {
      watcher.close();
    }
  });

  it('draws a wall (add_wall) as a line of stone on a darker rim, and no more once removed', { timeout: TEST_TIMEOUT_MS }, async () => {
    const theme = await page.evaluate(() => window.herd.theme);
    // Clear of the obstacle the test before placed at the emptiest spot.
    const obstacle = await page.evaluate(() => window.herd.obstacles[0] ?? null);
    const spot = await page.evaluate(emptyPoint, { awayFrom: obstacle, minDist: obstacle ? obstacle.r + 150 : 0 });
    const half = 40 / spot.scale; // 80 CSS pixels long, across the emptiest spot
    const world = await page.evaluate(() => window.herd.world);
    const a = { x: Math.max(1, spot.x - half), y: spot.y };
    const b = { x: Math.min(world.width - 1, spot.x + half), y: spot.y };
    await page.evaluate((points) => window.herd.sendCommand({ cmd: 'add_wall', points }), [a, b]);
    await page.waitForFunction(() => window.herd.walls.length === 1, null, { timeout: WAIT_MS });
    // Nine points along it: the pixel on it, one just beside the stone line (on the rim), and
    // one clear of both. An agent passing may cover a few.
    const sample = () =>
      page.evaluate(
        async ({ a, b }) => {
          await new Promise(requestAnimationFrame);
          const h = window.herd;
          const canvas = document.getElementById('world');
          const ctx = canvas.getContext('2d');
          const k = canvas.width / canvas.clientWidth;
          const px = (x, y) => Array.from(ctx.getImageData(Math.floor(x * k), Math.floor(y * k), 1, 1).data);
          const out = [];
          for (let i = 1; i <= 9; i++) {
            const s = h.worldToScreen(a.x + ((b.x - a.x) * i) / 10, a.y);
            out.push({ on: px(s.x, s.y), beside: px(s.x, s.y - (h.wallPx / 2 + 1)), clear: px(s.x, s.y - (h.wallPx / 2 + 6)) });
          }
          return out;
        },
        { a, b },
      );
    const shown = await sample();
    const stone = shown.filter((s) => colorDistance(s.on, hexToRgb(theme.obstacle)) <= 8).length;
    const rim = shown.filter((s) => colorDistance(s.beside, hexToRgb(theme.obstacleRim)) <= 10).length;
    const clear = shown.filter((s) => colorDistance(s.clear, hexToRgb(theme.obstacleRim)) > 10 && colorDistance(s.clear, hexToRgb(theme.obstacle)) > 8).length;
    assert.ok(stone >= 6, `stone on the wall at ${stone} of 9 points: ${JSON.stringify(shown.map((s) => s.on))}`);
    assert.ok(rim >= 6, `the rim beside it at ${rim} of 9 points: ${JSON.stringify(shown.map((s) => s.beside))}`);
    assert.ok(clear >= 6, `the wall is wider than its rim: ${JSON.stringify(shown.map((s) => s.clear))}`);

    const id = await page.evaluate(() => window.herd.walls[0].id);
    await page.evaluate((wall) => window.herd.sendCommand({ cmd: 'remove_wall', wall }), id);
    await page.waitForFunction(() => window.herd.walls.length === 0, null, { timeout: WAIT_MS });
    const gone = (await sample()).filter((s) => colorDistance(s.on, hexToRgb(theme.obstacle)) > 8).length;
    assert.ok(gone >= 6, `the removed wall is still drawn at ${9 - gone} of 9 points`);
  });

  it('the page threw no uncaught exception', () => {
    assert.deepEqual(pageErrors, []);
  });
});
