// End-to-end: the real herd server, the web viewer in headless Chromium, and a second
// WebSocket client that checks what the server really did with the viewer's commands.
//
// Run: npm test (in tests/e2e). Env: HERD_SERVER (server binary, default <repo>/build/herd-server),
// CHROMIUM (default /usr/bin/chromium), HERD_E2E_OUT (where the screenshot goes, default a
// fresh temporary directory).

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startServer } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';
import { hexToRgb, colorDistance } from './lib/colors.mjs';
import { agentCentrePixels, isolatedAgent, emptyPoint, waitForTargetCross } from './lib/page_probes.mjs';

const TEST_TIMEOUT_MS = 60_000;

describe('web viewer against the real server', { timeout: 4 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;
  let page;
  let canvasBox;
  let theme;
  let pageErrors;
  const outDir = process.env.HERD_E2E_OUT || mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-out-'));

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    // 1280 x 920: the world at the scale its crowd's colours were judged at (with the selection's
    // tray kept along the bottom, 1280 x 800 draws it a fifth smaller, where more agents overlap).
    ({ page, canvasBox, pageErrors } = await openViewer(browser.browser, server, { width: 1280, height: 920 }));
    theme = await page.evaluate(() => window.herd.theme);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  // The status line is redrawn on the next animation frame after a change, hence a wait.
  async function statusShowsConnected() {
    await page.locator('#status[data-state="connected"] #conn', { hasText: /^connected$/ }).waitFor({ timeout: WAIT_MS });
  }

  // Clicks at CSS pixel (sx, sy) of the canvas, with Shift held if `shift`.
  const clickCanvas = async (sx, sy, { shift = false, button = 'left' } = {}) => {
    if (shift) await page.keyboard.down('Shift');
    await page.mouse.click(canvasBox.x + sx, canvasBox.y + sy, { button });
    if (shift) await page.keyboard.up('Shift');
  };

  // Clicks on the most isolated agent not in `exclude` until the selection equals
  // expected(agent.id) (it may move between the probe and the click); returns the agent.
  async function clickAgent({ exclude = [], shift = false, expected }) {
    for (let attempt = 0; attempt < 3; attempt++) {
      const agent = await page.evaluate(isolatedAgent, { exclude });
      await clickCanvas(agent.sx, agent.sy, { shift });
      const want = expected(agent.id);
      const ok = await page
        .waitForFunction((w) => JSON.stringify(window.herd.selected) === JSON.stringify(w), want, { timeout: 2000 })
        .then(() => true, () => false);
      if (ok) return agent;
    }
    assert.fail(`clicking on an agent did not make the selection ${JSON.stringify(expected('<id>'))}`);
  }

  it('without #debug the page connects and has no window.herd, and loads no debug_api.js', { timeout: TEST_TIMEOUT_MS }, async () => {
    const plain = await browser.browser.newPage({ viewport: { width: 800, height: 600 } });
    const scripts = [];
    plain.on('request', (r) => scripts.push(new URL(r.url()).pathname));
    try {
      await plain.goto(server.httpUrl);
      await plain.locator('#status[data-state="connected"] #conn', { hasText: /^connected$/ }).waitFor({ timeout: WAIT_MS });
      assert.equal(await plain.evaluate(() => typeof window.herd), 'undefined');
      assert.ok(scripts.includes('/main.js'), scripts.join(' '));
      assert.ok(!scripts.includes('/debug_api.js'), scripts.join(' '));
    } finally {
      await plain.close();
    }
  });

  it('connects, shows the status, and draws agents in their group colours', async () => {
    await statusShowsConnected();
    const count = await page.evaluate(() => window.herd.agents.length);
    assert.match(await page.locator('#count').textContent(), /^\d+$/);
    assert.ok(count > 0);

    // Most agents' centre pixels carry their group colour (collided ones too: they are ringed); not all need to,
    // as the default scenario sends them all through the middle of the world at once, where they
    // overlap.
    const centres = await page.evaluate(agentCentrePixels);
    const wrong = centres.filter((c) => colorDistance(c.pixel, hexToRgb(c.color)) > 8);
    assert.ok(centres.length > 0);
    assert.ok(
      wrong.length <= 0.2 * centres.length,
      `${wrong.length} of ${centres.length} agents are not drawn in their group colour, e.g. ` +
        wrong.slice(0, 3).map((c) => `agent ${c.id}: ${c.pixel}, want ${c.color}`).join('; '),
    );

    const ground = await page.evaluate(emptyPoint);
    assert.ok(ground.clearance > 4, 'no empty ground to probe');
    // The world's colour, give or take a faint grid line (about +9), and not the darker canvas
    // around the world.
    assert.ok(
      colorDistance(ground.pixel, hexToRgb(theme.world)) <= 12 &&
        colorDistance(ground.pixel, hexToRgb(theme.world)) < colorDistance(ground.pixel, hexToRgb(theme.outside)),
      `pixel on empty ground is ${ground.pixel}, want the world background ${theme.world}`,
    );
    for (const color of theme.groups) {
      assert.ok(colorDistance(ground.pixel, hexToRgb(color)) > 40, `empty ground looks like an agent (${color})`);
    }
  });

  it('click an agent, right-click the ground: the server sends it there', { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const watcher = await ProtocolClient.connect(server.wsUrl, { role: 'viewer' });
    try {
      const agent = await clickAgent({ expected: (id) => [id] });
      // The status line catches up on the next animation frame.
      await page.locator('#selected', { hasText: /^1$/ }).waitFor({ timeout: WAIT_MS });

      const world = await page.evaluate(() => window.herd.world);
      const target = await page.evaluate(emptyPoint, {
        awayFrom: { x: agent.x, y: agent.y },
        minDist: 0.25 * Math.min(world.width, world.height),
      });
      assert.ok(target && target.clearance > 4, 'no empty ground to click');
      await clickCanvas(target.sx, target.sy, { button: 'right' });

      // The page rounds to 3 decimals; allow that plus a pixel's worth of slack.
      const tol = 1 / target.scale + 0.01;
      const near = (a) => a.tx !== undefined && Math.abs(a.tx - target.x) <= tol && Math.abs(a.ty - target.y) <= tol;
      const find = (snap) => snap.agents.find((a) => a.id === agent.id);
      const first = await watcher.next(
        (m) => m.type === 'snapshot' && find(m) && near(find(m)),
        WAIT_MS,
        `snapshot with agent ${agent.id} targeting (${target.x}, ${target.y})`,
      );
      const a0 = find(first);
      const d0 = Math.hypot(a0.tx - a0.x, a0.ty - a0.y);

      // The page marks the selected agent's target with a cross; checked now, while the agent is
      // still far from it. The cross is opaque white; every group colour has a channel under 110,
      // and the faint dashed path that also ends at the target stays far below 180.
      const cross = await page.evaluate(waitForTargetCross, {
        id: agent.id,
        minChannel: 180,
        timeoutMs: WAIT_MS,
      });
      assert.ok(cross, `no target cross drawn at (${target.x}, ${target.y})`);

      const progress = Math.min(20, d0 / 2);
      const later = await watcher.next(
        (m) => {
          const a = m.type === 'snapshot' && m.tick > first.tick && find(m);
          return a && near(a) && Math.hypot(a.tx - a.x, a.ty - a.y) <= d0 - progress;
        },
        WAIT_MS,
        `snapshot with agent ${agent.id} ${progress} units closer to its target than ${d0.toFixed(1)}`,
      );
      assert.match(find(later).state, /^(moving|arrived)$/);
      assert.deepEqual(await page.evaluate(() => window.herd.selected), [agent.id], 'ordering changed the selection');

      mkdirSync(outDir, { recursive: true });
      const shot = path.join(outDir, 'viewer.png');
      await page.screenshot({ path: shot });
      t.diagnostic(`screenshot: ${shot}`);
      console.log(`herd e2e screenshot: ${shot}`);

      await page.keyboard.press('Escape');
      await page.waitForFunction(() => window.herd.selected.length === 0, null, { timeout: WAIT_MS });
    } finally {
      watcher.close();
    }
  });

  // RTS habit: the left button selects, the right one commands. A left click on the ground used
  // to send the selection there.
  it('a left click on the ground clears the selection and sends no order', { timeout: TEST_TIMEOUT_MS }, async () => {
    await clickAgent({ expected: (id) => [id] });
    const before = await page.evaluate(() => ({ command: window.herd.lastCommand, orders: window.herd.orders.length }));
    const ground = await page.evaluate(emptyPoint);
    assert.ok(ground && ground.clearance > 4, 'no empty ground to click');
    await clickCanvas(ground.sx, ground.sy);
    await page.waitForFunction(() => window.herd.selected.length === 0, null, { timeout: WAIT_MS });
    await page.locator('#selected', { hasText: /^0$/ }).waitFor({ timeout: WAIT_MS });
    const after = await page.evaluate(() => ({ command: window.herd.lastCommand, orders: window.herd.orders.length }));
    assert.deepEqual(after.command, before.command, 'a left click on the ground sent a command');
    assert.ok(after.orders <= before.orders, 'an order marker was drawn');
    // Shift + click on the ground keeps the selection.
    const a = await clickAgent({ expected: (id) => [id] });
    await clickCanvas(ground.sx, ground.sy, { shift: true });
    await page.waitForTimeout(100);
    assert.deepEqual(await page.evaluate(() => window.herd.selected), [a.id]);
    await page.keyboard.press('Escape');
  });

  it('shift-click adds to the selection, Escape clears it', { timeout: TEST_TIMEOUT_MS }, async () => {
    const a = await clickAgent({ expected: (id) => [id] });
    const b = await clickAgent({ exclude: [a.id], shift: true, expected: (id) => [a.id, id] });
    await page.locator('#selected', { hasText: /^2$/ }).waitFor({ timeout: WAIT_MS });
    assert.notEqual(a.id, b.id);
    // A plain click replaces the selection.
    await clickAgent({ expected: (id) => [id] });
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => window.herd.selected.length === 0, null, { timeout: WAIT_MS });
    await page.locator('#selected', { hasText: /^0$/ }).waitFor({ timeout: WAIT_MS });
  });

  it('server errors are shown on the page', { timeout: TEST_TIMEOUT_MS }, async () => {
    const seq = await page.evaluate(() => {
      const h = window.herd;
      return h.sendCommand({ cmd: 'set_target', agents: [h.agents[0].id], target: { x: -100, y: -100 } });
    });
    assert.ok(Number.isInteger(seq), 'the page did not send the command');
    const toast = page.locator('.toast', { hasText: 'out_of_bounds' });
    await toast.waitFor({ state: 'visible', timeout: WAIT_MS });
    assert.deepEqual(
      await page.evaluate(() => ({ code: window.herd.lastError.code, seq: window.herd.lastError.seq })),
      { code: 'out_of_bounds', seq },
    );

    assert.equal(await page.evaluate(() => window.herd.sendRaw('{"type":')), true);
    await page.locator('.toast', { hasText: 'bad_json' }).waitFor({ state: 'visible', timeout: WAIT_MS });

    // Toasts fade out by themselves, and the session survives both errors.
    await toast.waitFor({ state: 'detached', timeout: WAIT_MS });
    assert.equal(await page.evaluate(() => window.herd.connected), true);
  });

  it('reconnects after the server restarts', { timeout: TEST_TIMEOUT_MS }, async () => {
    const port = server.port;
    await server.stop();
    await page.waitForFunction(() => !window.herd.connected, null, { timeout: WAIT_MS });
    await page.locator('#conn', { hasText: /^disconnected – retrying in \d+(\.\d)? s$/ }).waitFor({ timeout: WAIT_MS });

    server = await startServer({ port });
    await page.waitForFunction(() => window.herd.connected && window.herd.agents.length > 0, null, {
      timeout: WAIT_MS,
    });
    await statusShowsConnected();
  });

  it('the page threw no uncaught exception', () => {
    assert.deepEqual(pageErrors, []);
  });
});
