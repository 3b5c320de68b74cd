// End-to-end: the viewer on the scenario lab's worlds (server/scenarios), each on its own server.
// What the avoidance and collision write-ups show must show on the canvas: obstacles, agents marked
// after a collision (the collided mark; here a red ring round a body that keeps its group colour),
// the collision point, the avoidance mode, and the avoidance diagrams of why an agent moves (the
// inspector). Pixels are read back from the canvas; a second WebSocket client checks what the
// server did.
//
// Env as in viewer.test.mjs. Screenshots go to HERD_E2E_OUT (default a fresh temporary directory).

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startServer } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, WAIT_MS } from './lib/browser.mjs';
import * as scenes from './lib/scene.mjs';
import { hexToRgb, colorDistance } from './lib/colors.mjs';
import { obstacleProbe, waitForCollidedRing, waitForFlashRing, waitForInspectDiagram } from './lib/scene_probes.mjs';

const TEST_TIMEOUT_MS = 60_000;
// The scenarios start walking when the server starts; an agent there arrives within about 8 s of
// world time, which a loaded machine may stretch.
const ARRIVE_MS = 25_000;
// Pixels of an opaque overlay line match its colour to within a few units (antialiased edges do
// not); 24 keeps the match exact enough that no other colour on the map passes for it.
const LINE_TOLERANCE = 24;

describe('the viewer on scenario worlds', { timeout: 6 * TEST_TIMEOUT_MS }, () => {
  let browser;
  const outDir = process.env.HERD_E2E_OUT || mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-out-'));

  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  const openScene = (scenario, options) => scenes.openScene(browser.browser, scenario, options);
  const screenshot = (scene, name, t) => scenes.screenshot(scene, outDir, name, t);
  const clickWorld = scenes.clickWorld;

  // Waits until agent `id` has stopped on its target, then clicks it until it is the selection.
  async function selectArrivedAgent(scene, id) {
    await scene.page.waitForFunction((i) => window.herd.agents.find((a) => a.id === i)?.state === 'arrived', id, {
      timeout: ARRIVE_MS,
    });
    for (let attempt = 0; attempt < 3; attempt++) {
      const a = await scene.page.evaluate((i) => window.herd.agents.find((b) => b.id === i), id);
      await clickWorld(scene, a.x, a.y);
      const ok = await scene.page
        .waitForFunction((i) => JSON.stringify(window.herd.selected) === JSON.stringify([i]), id, { timeout: 2000 })
        .then(() => true, () => false);
      if (ok) return a;
    }
    assert.fail(`clicking on agent ${id} did not select it`);
  }

  async function inspectorShows(page, id) {
    await page.waitForFunction(
      (i) =>
        window.herd.inspecting &&
        JSON.stringify(window.herd.inspected) === JSON.stringify([i]) &&
        window.herd.inspect.some((t) => t.id === i),
      id,
      { timeout: WAIT_MS },
    );
  }

  describe('dead_ahead: an obstacle on the path', () => {
    let scene;
    before(async () => {
      // 1280 x 920: the world drawn at the scale the inspector's diagram was measured at (about 1.1
      // px a unit) with the selection's tray kept along the bottom, so that its lines clear the body.
      scene = await openScene('dead_ahead', { width: 1280, height: 920 });
    });
    after(async () => {
      await scene?.close();
    });

    it('draws the obstacle as a stone disc with a darker rim', async () => {
      const theme = await scene.page.evaluate(() => window.herd.theme);
      const o = await scene.page.evaluate(obstacleProbe);
      assert.ok(o, 'the page has no obstacle');
      assert.ok(
        colorDistance(o.centre, hexToRgb(theme.obstacle)) <= 8,
        `pixel at the obstacle's centre is ${o.centre}, want ${theme.obstacle}`,
      );
      // Stone is not a unit: the fill is none of the group colours, nor collided red.
      for (const c of [...theme.groups, theme.collided]) {
        assert.ok(colorDistance(o.centre, hexToRgb(c)) > 40, `the obstacle looks like an agent (${c})`);
      }
      const rim = o.radius.filter((s) => colorDistance(s.pixel, hexToRgb(theme.obstacleRim)) <= 10);
      assert.ok(rim.length > 0, `no rim-coloured pixel along the radius: ${JSON.stringify(o.radius.map((s) => s.pixel))}`);
      assert.ok(
        rim.every((s) => s.d > 0.75 * o.rPx && s.d <= o.rPx + 1),
        `the rim is not at the obstacle's edge (${o.rPx.toFixed(1)} px): at ${rim.map((s) => s.d)}`,
      );
    });

    it('the help panel lists every key; H opens it, Esc closes it', async () => {
      const { page } = scene;
      const help = page.locator('#help');
      assert.equal(await help.isVisible(), false);
      await page.keyboard.press('H');
      await help.waitFor({ state: 'visible', timeout: WAIT_MS });
      const keys = await help.locator('kbd').allTextContents();
      for (const key of ['Esc', 'I', 'H', '?', 'M', 'R', 'B', 'T', 'G', 'P']) assert.ok(keys.includes(key), `help does not list ${key}: ${keys}`);
      // The help is drawn from the viewer's key table (keys.js): every key and gesture of it is there.
      const table = await page.evaluate(async () => {
        const { KEY_ROWS, keyLabel } = await import('/keys.js');
        return {
          keys: KEY_ROWS.flatMap((r) => (r.join === '…' ? [r.keys[0], r.keys.at(-1)] : (r.keys ?? []))).map(keyLabel),
          mouse: KEY_ROWS.flatMap((r) => (r.mouse ? [r.mouse] : [])),
        };
      });
      for (const key of table.keys) assert.ok(keys.includes(key), `help does not list ${key}: ${keys}`);
      const terms = await help.locator('dt').allTextContents();
      for (const m of table.mouse) assert.ok(terms.some((t) => t.startsWith(m)), `help does not list "${m}": ${terms}`);
      await page.keyboard.press('Escape');
      await help.waitFor({ state: 'hidden', timeout: WAIT_MS });
      await page.locator('#help-btn').click(); // the visible button does the same
      await help.waitFor({ state: 'visible', timeout: WAIT_MS });
      await page.locator('#help-btn').click();
      await help.waitFor({ state: 'hidden', timeout: WAIT_MS });
    });

    it('I shows why the selected agent moves: the anti-gravity pushes, their sum and the final direction', { timeout: TEST_TIMEOUT_MS }, async (t) => {
      const { page } = scene;
      const watcher = await ProtocolClient.connect(scene.server.wsUrl, { role: 'viewer' });
      try {
        await selectArrivedAgent(scene, 1);
        // The panel says what it is doing and how it moves.
        const row = page.locator('#agent-rows tr[data-id="1"]');
        await row.waitFor({ timeout: WAIT_MS });
        // Its position and target as the snapshot gives them (it stands still: it has arrived).
        const snap = await page.evaluate(() => window.herd.snapshotAgents.find((b) => b.id === 1));
        const xy = (x, y) => `${Math.round(x)}, ${Math.round(y)}`;
        assert.deepEqual(await row.locator('td').allTextContents(), [
          '1',
          String(snap.group),
          xy(snap.x, snap.y),
          'arrive',
          '–',
          'arrived',
          '0',
          xy(snap.tx, snap.ty),
          'inertial',
          'direct',
          '–',
        ]);

        await page.keyboard.press('I');
        await inspectorShows(page, 1);
        await page.locator('#inspect-btn[aria-pressed="true"]').waitFor({ timeout: WAIT_MS });
        await page.locator('#legend').waitFor({ state: 'visible', timeout: WAIT_MS });
        // The server keeps the list: the page's snapshots carry the trace, another session's none.
        await page.waitForFunction(() => window.herd.tracesReceived.includes(1), null, { timeout: WAIT_MS });
        const other = await watcher.next((m) => m.type === 'snapshot', WAIT_MS, 'a snapshot of another session');
        assert.equal('inspect' in other, false, "another session is sent none of the page's traces");

        // Back the way it came: the obstacle is dead ahead again.
        await clickWorld(scene, 100, 300, { button: 'right' });
        await watcher.next(
          (m) => m.type === 'snapshot' && m.agents.some((a) => a.id === 1 && Math.abs(a.tx - 100) < 1 && Math.abs(a.ty - 300) < 1),
          WAIT_MS,
          'snapshot with agent 1 sent to (100, 300)',
        );
        const diagram = await page.evaluate(waitForInspectDiagram, {
          id: 1,
          kinds: ['raw', 'adjusted', 'sumRaw', 'final'],
          tolerance: LINE_TOLERANCE,
          minPixels: 6,
          minVisiblePx: 16, // close enough to the obstacle for every line to be well clear of the body
          maxAngleDeg: 25,
          timeoutMs: 15_000,
        });
        assert.ok(diagram.ok, `the diagram is not drawn as the trace says: ${JSON.stringify(diagram)}`);
        t.diagnostic(`diagram at tick ${diagram.tick}: ${JSON.stringify(diagram.results)}`);
        await screenshot(scene, 'inspector_dead_ahead.png', t);
      } finally {
        watcher.close();
      }
    });

    it('the inspector survives a server restart, and I turns it off', { timeout: TEST_TIMEOUT_MS }, async () => {
      const { page } = scene;
      const port = scene.server.port;
      await scene.server.stop();
      await page.waitForFunction(() => !window.herd.connected, null, { timeout: WAIT_MS });
      scene.server = await startServer({ port, scenario: 'dead_ahead' });
      const watcher = await ProtocolClient.connect(scene.server.wsUrl, { role: 'viewer' });
      try {
        // A new session has no list: only the page's re-sent inspect brings the traces back.
        await inspectorShows(page, 1);
        await page.waitForFunction(() => window.herd.tracesReceived.includes(1), null, { timeout: WAIT_MS });
        assert.equal('inspect' in (await watcher.next((m) => m.type === 'snapshot', WAIT_MS, 'a snapshot')), false);

        await page.keyboard.press('I');
        await page.waitForFunction(() => !window.herd.inspecting && window.herd.inspected.length === 0, null, { timeout: WAIT_MS });
        // `[]` was sent: the page's snapshots carry no traces any more.
        await page.waitForFunction(() => window.herd.tracesReceived.length === 0, null, { timeout: WAIT_MS });
        await page.locator('#legend').waitFor({ state: 'hidden', timeout: WAIT_MS });
        await page.locator('#inspect-btn[aria-pressed="false"]').waitFor({ timeout: WAIT_MS });
      } finally {
        watcher.close();
      }
    });

    it('the page threw no uncaught exception', () => {
      assert.deepEqual(scene.pageErrors, []);
    });
  });

  describe('chicken with avoidance off: collisions', () => {
    let scene;
    let commander;
    before(async () => {
      scene = await openScene('chicken');
      commander = await ProtocolClient.connect(scene.server.wsUrl, { role: 'commander' });
    });
    after(async () => {
      commander?.close();
      await scene?.close();
    });

    it('the status bar shows the avoidance mode and follows set_avoidance', async () => {
      const mode = scene.page.locator('#avoidance');
      await scene.page.locator('#avoidance', { hasText: /^cardioid$/ }).waitFor({ timeout: WAIT_MS });
      const answer = commander.next((m) => (m.type === 'ack' || m.type === 'error') && m.seq === 1, WAIT_MS, 'answer to seq 1');
      commander.send({ type: 'command', seq: 1, cmd: 'set_avoidance', mode: 'none' });
      assert.equal((await answer).type, 'ack');
      await scene.page.locator('#avoidance', { hasText: /^none$/ }).waitFor({ timeout: WAIT_MS });
      assert.equal(await mode.textContent(), 'none');
    });

    it('a collision leaves the group colour visible: collided agents are ringed in red, and each collision flashes at its point', { timeout: TEST_TIMEOUT_MS }, async (t) => {
      const snap = await commander.next(
        (m) => m.type === 'snapshot' && m.agents.some((a) => a.collided),
        WAIT_MS,
        'snapshot with a collided agent',
      );
      assert.ok(snap.collisions.length > 0 || snap.agents.every((a) => a.collided));
      const theme = await scene.page.evaluate(() => window.herd.theme);
      const ringed = await scene.page.evaluate(waitForCollidedRing, { tolerance: 12, minRingHits: 6, timeoutMs: WAIT_MS });
      assert.ok(
        ringed.ok,
        `collided agents are not drawn in their group colour inside a ${theme.collided} ring: ${JSON.stringify(ringed)}`,
      );
      // Agent 1 (group 0) collided head-on with agent 2 (group 1): its centre is its group's colour,
      // which is not the ring's red.
      assert.ok(ringed.agents.some((a) => a.id === 1), `agent 1 is not among the ringed ones: ${JSON.stringify(ringed)}`);
      for (const c of theme.groups.slice(0, 2)) assert.ok(colorDistance(hexToRgb(c), hexToRgb(theme.collided)) > 100, c);

      const flash = await scene.page.evaluate(waitForFlashRing, {
        minRadiusPx: 6,
        minBrightnessOverBackground: 60,
        timeoutMs: WAIT_MS,
      });
      assert.ok(flash.ok, `no collision ring drawn: ${JSON.stringify(flash)}`);
      await screenshot(scene, 'chicken_collisions.png', t);
    });

    it('the page threw no uncaught exception', () => {
      assert.deepEqual(scene.pageErrors, []);
    });
  });

  // This Chromium draws agents into a pixel buffer (agent_layer.js); where a GPU draws them as
  // canvas paths, the collision ring must look the same.
  describe('chicken with avoidance off, agents as canvas paths (#agents=vector)', () => {
    let scene;
    before(async () => {
      scene = await openScene('chicken', { hash: '#agents=vector' });
    });
    after(async () => {
      await scene?.close();
    });

    it('collided agents keep their group colour inside a red ring', { timeout: TEST_TIMEOUT_MS }, async (t) => {
      const { page } = scene;
      assert.equal(await page.evaluate(() => window.herd.agentDrawing), 'vector');
      await page.evaluate(() => window.herd.sendCommand({ cmd: 'set_avoidance', mode: 'none' }));
      const ringed = await page.evaluate(waitForCollidedRing, { tolerance: 12, minRingHits: 6, timeoutMs: ARRIVE_MS });
      assert.ok(ringed.ok, `collided agents are not drawn in their group colour inside a red ring: ${JSON.stringify(ringed)}`);
      await screenshot(scene, 'chicken_collisions_vector.png', t);
    });

    it('the page threw no uncaught exception', () => {
      assert.deepEqual(scene.pageErrors, []);
    });
  });

  describe('symmetric_pair: the split fix', () => {
    let scene;
    before(async () => {
      scene = await openScene('symmetric_pair');
    });
    after(async () => {
      await scene?.close();
    });

    // One obstacle never needs the split fix (a turned push is as long as the raw one), so the
    // green vector is checked where the split fix needs it: between two obstacles, dead ahead.
    // Once an agent moves it keeps the side it chose, and the pushes no longer cancel: the fix
    // is there on the tick an agent at rest in front of the pair sets off. So the world is paused
    // and stepped by hand: an idle agent is put there, selected and inspected, given its goal, and
    // the one tick that needs the fix is drawn and stays on screen.
    it('the inspector draws the green split fix between two obstacles', { timeout: TEST_TIMEOUT_MS }, async (t) => {
      const { page } = scene;
      const send = (command) => page.evaluate((text) => window.herd.sendRaw(text), JSON.stringify({ type: 'command', ...command }));
      const stepOnce = async () => {
        const tick = await page.evaluate(() => window.herd.tick);
        await send({ seq: 9100 + tick, cmd: 'step', ticks: 1 });
        await page.waitForFunction((t0) => window.herd.tick > t0, tick, { timeout: WAIT_MS });
      };
      await send({ seq: 9001, cmd: 'pause' });
      await page.waitForFunction(() => window.herd.paused === true, null, { timeout: WAIT_MS });
      await send({ seq: 9002, cmd: 'spawn', agents: [{ x: 372, y: 300 }] }); // agent 2, idle
      await stepOnce();
      await page.waitForFunction(() => window.herd.agents.some((a) => a.id === 2), null, { timeout: WAIT_MS });
      // Zoomed in at the agent, so the vectors reach well past its body.
      const at = await scenes.worldToPage(scene, 372, 300);
      const scale = () => page.evaluate(() => window.herd.worldToScreen(1, 0).x - window.herd.worldToScreen(0, 0).x);
      const scale0 = await scale();
      await page.mouse.move(at.x, at.y);
      await page.mouse.wheel(0, -400);
      await page.waitForFunction((s0) => window.herd.worldToScreen(1, 0).x - window.herd.worldToScreen(0, 0).x > s0 * 1.5, scale0, {
        timeout: WAIT_MS,
      });
      await clickWorld(scene, 372, 300);
      await page.waitForFunction(() => JSON.stringify(window.herd.selected) === '[2]', null, { timeout: WAIT_MS });
      await page.locator('#inspect-btn').click(); // the button does what I does
      // The page sends `inspect` from its next frame; once sent, the step after it on the same
      // socket is the tick whose snapshot carries the trace.
      await page.waitForFunction(() => JSON.stringify(window.herd.inspected) === '[2]', null, { timeout: WAIT_MS });
      await stepOnce();
      await inspectorShows(page, 2);
      await send({ seq: 9003, cmd: 'set_target', agents: [2], target: { x: 700, y: 300 } });
      await stepOnce();
      const diagram = await page.evaluate(waitForInspectDiagram, {
        id: 2,
        kinds: ['splitFix'],
        tolerance: LINE_TOLERANCE,
        minPixels: 4,
        minVisiblePx: 10,
        maxAngleDeg: 25,
        timeoutMs: 15_000,
      });
      assert.ok(diagram.ok, `the split fix is not drawn as the trace says: ${JSON.stringify(diagram)}`);
      await screenshot(scene, 'inspector_symmetric_pair.png', t);
    });

    it('the page threw no uncaught exception', () => {
      assert.deepEqual(scene.pageErrors, []);
    });
  });
});
