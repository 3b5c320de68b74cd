// The heat map (key D) in headless Chromium against the real server: D asks the server for the
// density layer, draws it under the agents (the canvas pixel in a crowded cell is the ground
// blended with the ramp's colour for its value) with its legend; Shift + D shows mean speed; D
// again hides both and tells the server to stop; the choice outlives a reload.
//
// Four still agents of the smallest radius stand at the corners of one cell in the empty top left
// of the `default` world (cells of 12.5 units: 64 x 48), so its middle shows the ground, or the
// heat map, with no agent over it.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startServer } from './lib/server.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';
import { hexToRgb, colorDistance } from './lib/colors.mjs';

const TEST_TIMEOUT_MS = 60_000;
const CELL = 12.5; // the default world's 800 x 600 over 64
const MIDDLE = { x: 2.5 * CELL, y: 2.5 * CELL }; // the middle of cell (2, 2)
const CORNERS = [
  [26, 26],
  [36, 26],
  [26, 36],
  [36, 36],
];

// In the page: the canvas pixel at world point (x, y) after the next frame, and the colour the
// heat map should give it there: the ground under the ramp's colour for the cell's value, at its
// opacity (the layer as it is drawn now; null while none is).
async function heatProbe({ x, y }) {
  await new Promise(requestAnimationFrame);
  const h = window.herd;
  const canvas = document.getElementById('world');
  const k = canvas.width / canvas.clientWidth;
  const p = h.worldToScreen(x, y);
  const pixel = Array.from(canvas.getContext('2d').getImageData(Math.floor(p.x * k), Math.floor(p.y * k), 1, 1).data);
  const heat = h.heat;
  const cell = h.heatCell(x, y);
  let expected = null;
  if (heat.grid && cell && cell.count > 0) {
    const { rampColor } = await import('/density.js');
    const value = heat.mode === 'speed' ? cell.speed : cell.count / (heat.grid.cell * heat.grid.cell);
    const [r, g, b, a] = rampColor(value / heat.max, h.theme.heatRamp, h.theme.heatAlpha);
    const n = parseInt(h.theme.world.slice(1), 16);
    const ground = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
    const t = a / 255;
    expected = [r, g, b].map((c, i) => Math.round(ground[i] * (1 - t) + c * t));
  }
  return { pixel, expected, heat, cell };
}

describe('the heat map', { timeout: 4 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;
  let page;
  let sent;
  let pageErrors;
  const outDir = process.env.HERD_E2E_OUT || mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-out-'));

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    ({ page, sent, pageErrors } = await openViewer(browser.browser, server));
    const agents = CORNERS.map(([x, y]) => ({ x, y, radius: 0.5, group: 3 }));
    await page.evaluate((a) => window.herd.sendCommand({ cmd: 'spawn', agents: a }), agents);
    await page.waitForFunction((n) => window.herd.snapshotAgents.length >= n, 48 + CORNERS.length, { timeout: WAIT_MS });
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  const ground = async () => hexToRgb(await page.evaluate(() => window.herd.theme.world));
  // heatProbe until `ok(probe)` holds, for at most WAIT_MS: showing or hiding the legend can
  // reflow the page, and the canvas is refitted a frame or two later. Resolves to the last probe.
  const probeUntil = async (ok) => {
    const end = Date.now() + WAIT_MS;
    for (;;) {
      const probe = await page.evaluate(heatProbe, MIDDLE);
      if ((await ok(probe)) || Date.now() > end) return probe;
    }
  };
  const legendShown = () => page.locator('#heat-legend').isVisible();

  it('is off at first: the ground in the crowded cell, no legend, nothing asked', { timeout: TEST_TIMEOUT_MS }, async () => {
    assert.equal((await page.evaluate(() => window.herd.heat)).mode, 'off');
    assert.equal(await legendShown(), false);
    const { pixel } = await page.evaluate(heatProbe, MIDDLE);
    assert.ok(colorDistance(pixel, await ground()) < 12, `the cell's middle is ${pixel}, not the ground`);
    assert.equal(sent.frames.filter((f) => f.type === 'density').length, 0);
  });

  it('D shows the layer under the agents and its legend; D again hides both', { timeout: TEST_TIMEOUT_MS }, async (t) => {
    await page.keyboard.press('d');
    await sent.find((f) => f.type === 'density' && f.on === true, WAIT_MS, 'density request');
    await page.waitForFunction(
      (p) => window.herd.heat.grid !== null && window.herd.heatCell(p.x, p.y)?.count === 4,
      MIDDLE,
      { timeout: WAIT_MS },
    );
    const on = await probeUntil((p) => p.expected && colorDistance(p.pixel, p.expected) < 10);
    assert.equal(on.heat.mode, 'density');
    assert.deepEqual({ cell: on.heat.grid.cell, cols: on.heat.grid.cols, rows: on.heat.grid.rows }, { cell: CELL, cols: 64, rows: 48 });
    assert.equal(on.heat.grid.agents, 48 + CORNERS.length, 'every agent in some cell');
    assert.ok(on.expected, 'a colour to expect');
    assert.ok(colorDistance(on.pixel, on.expected) < 10, `the cell's middle is ${on.pixel}, want ${on.expected}`);
    assert.ok(colorDistance(on.pixel, await ground()) > 40, 'the heat map is not drawn over the ground');
    // The legend: its kind, its scale up to the layer's top, its unit and cell.
    assert.equal(await legendShown(), true);
    assert.equal(await page.locator('#heat-title').textContent(), 'heat: density');
    assert.equal(await page.locator('#heat-lo').textContent(), '0');
    assert.equal(Number(await page.locator('#heat-hi').textContent()), on.heat.max);
    assert.match(await page.locator('#heat-unit').textContent(), /agents per square unit, cells of 12\.5 units/);
    assert.equal(await page.locator('#heat-btn').getAttribute('aria-pressed'), 'true');
    // The layer keeps coming, about twice a second, while the heat map is on.
    const received = on.heat.received;
    await page.waitForFunction((n) => window.herd.heat.received >= n + 2, received, { timeout: WAIT_MS });

    mkdirSync(outDir, { recursive: true });
    const shot = path.join(outDir, 'heat.png');
    await page.screenshot({ path: shot });
    t.diagnostic(`screenshot: ${shot}`);

    await page.keyboard.press('d');
    await sent.find((f) => f.type === 'density' && f.on === false, WAIT_MS, 'density off');
    assert.equal(await legendShown(), false);
    const off = await probeUntil(async (p) => colorDistance(p.pixel, await ground()) < 12);
    assert.equal(off.heat.mode, 'off');
    assert.equal(off.heat.grid, null);
    assert.ok(colorDistance(off.pixel, await ground()) < 12, `after D the cell's middle is ${off.pixel}, not the ground`);
    assert.equal(await page.locator('#heat-btn').getAttribute('aria-pressed'), 'false');
  });

  it('Shift + D shows mean speed; the choice outlives a reload', { timeout: TEST_TIMEOUT_MS }, async () => {
    await page.keyboard.press('Shift+D');
    await page.waitForFunction(() => window.herd.heat.mode === 'speed' && window.herd.heat.grid !== null, null, { timeout: WAIT_MS });
    assert.equal(await page.locator('#heat-title').textContent(), 'heat: mean speed');
    assert.match(await page.locator('#heat-unit').textContent(), /^units\/s/);
    const speed = await probeUntil((p) => p.expected && colorDistance(p.pixel, p.expected) < 10);
    assert.ok(speed.expected && colorDistance(speed.pixel, speed.expected) < 10, `${speed.pixel} vs ${speed.expected}`);

    const before = sent.frames.length;
    await page.reload();
    await page.waitForFunction(() => window.herd?.connected && window.herd.heat.grid !== null, null, { timeout: WAIT_MS });
    assert.equal(await page.evaluate(() => window.herd.heat.mode), 'speed');
    assert.equal(await legendShown(), true);
    assert.ok(sent.frames.slice(before).some((f) => f.type === 'density' && f.on === true), 'the new session asked for it');
    // Off again, for whoever opens this browser's page next.
    await page.keyboard.press('d');
    await page.waitForFunction(() => window.herd.heat.mode === 'off', null, { timeout: WAIT_MS });
    assert.deepEqual(pageErrors, []);
  });
});
