// Sources and exits in headless Chromium against the real server: the viewer draws each as an
// outlined rectangle on the ground with its count (a source's "source 1: k/total", an exit's
// "exit 1: n out"), the counts follow the snapshots, and a removed one goes.
//
// The `empty` world (800 x 600; one still agent in its bottom left corner, so that the viewer has
// one to show) with a source in its top left whose agents walk into an exit on the right: the
// ground inside the exit, away from the grid's lines and the agents' way, is the world's colour
// under the exit's faint fill.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startServer } from './lib/server.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { hexToRgb, colorDistance } from './lib/colors.mjs';

const TEST_TIMEOUT_MS = 60_000;
const SOURCE = { x: 40, y: 40, width: 80, height: 80 };
const EXIT = { x: 600, y: 20, width: 160, height: 300 };
const PROBE = { x: 707.3, y: 263.7 }; // inside the exit, below the agents' way, off the grid

// In the page: the canvas pixel at world point (x, y) after the next frame.
async function pixelAt({ x, y }) {
  await new Promise(requestAnimationFrame);
  const canvas = document.getElementById('world');
  const k = canvas.width / canvas.clientWidth;
  const p = window.herd.worldToScreen(x, y);
  return Array.from(canvas.getContext('2d').getImageData(Math.floor(p.x * k), Math.floor(p.y * k), 1, 1).data);
}

describe('sources and exits', { timeout: 3 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;
  let page;
  let pageErrors;
  const outDir = process.env.HERD_E2E_OUT || mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-out-'));

  before(async () => {
    server = await startServer({ scenario: 'empty' });
    const commander = await ProtocolClient.connect(server.wsUrl, { role: 'commander' });
    commander.send({ type: 'command', seq: 1, cmd: 'spawn', agents: [{ x: 20, y: 580 }] });
    await commander.next((m) => m.type === 'ack' && m.seq === 1, WAIT_MS, 'the spawn acked');
    commander.ws.close();
    browser = await launchBrowser();
    ({ page, pageErrors } = await openViewer(browser.browser, server));
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('draws each with its count, which follows the snapshots', { timeout: TEST_TIMEOUT_MS }, async () => {
    const ground = hexToRgb(await page.evaluate(() => window.herd.theme.world));
    const before = await page.evaluate(pixelAt, PROBE);
    assert.ok(colorDistance(before.slice(0, 3), ground) < 3, `the bare ground first: ${before}`);
    await page.evaluate(
      ([source, exit]) => {
        window.herd.sendCommand({ cmd: 'add_source', area: source, rate: 10, total: 6, target: { x: 700, y: 80 }, group: 2 });
        window.herd.sendCommand({ cmd: 'add_exit', area: exit });
      },
      [SOURCE, EXIT],
    );
    // Every agent made, and every one out through the exit: the labels say so.
    await page.waitForFunction(
      () => {
        const labels = window.herd.areaLabels;
        return labels.some((l) => l.text === 'source 1: 6/6') && labels.some((l) => l.text === 'exit 1: 6 out');
      },
      null,
      { timeout: WAIT_MS },
    );
    const state = await page.evaluate(() => ({ sources: window.herd.sources, exits: window.herd.exits, labels: window.herd.areaLabels }));
    assert.deepEqual(state.sources, [{ id: 1, area: SOURCE, rate: 10, total: 6, spawned: 6, remaining: 0 }]);
    assert.deepEqual(state.exits, [{ id: 1, area: EXIT, removed: 6 }]);
    // Each label in its area's top left corner.
    for (const [kind, area] of [['source', SOURCE], ['exit', EXIT]]) {
      const label = state.labels.find((l) => l.kind === kind);
      const corner = await page.evaluate(({ x, y }) => window.herd.worldToScreen(x, y), area);
      assert.ok(Math.abs(label.x - corner.x - 3) < 0.01 && Math.abs(label.y - corner.y - 3) < 0.01, JSON.stringify({ label, corner }));
    }
    // Inside the exit: the ground under the exit's fill (10 % of its colour).
    const { exit } = await page.evaluate(() => ({ exit: window.herd.theme.exit }));
    const tint = hexToRgb(exit);
    const expected = ground.map((g, i) => g * 0.9 + tint[i] * 0.1);
    const inside = await page.evaluate(pixelAt, PROBE);
    assert.ok(colorDistance(inside.slice(0, 3), expected) < 4, `inside the exit ${inside}, expected about ${expected}`);
    assert.ok(colorDistance(inside.slice(0, 3), ground) >= 3, `the fill shows: ${inside} against ${ground}`);
    mkdirSync(outDir, { recursive: true });
    const shot = path.join(outDir, 'sources_exits.png');
    await page.screenshot({ path: shot });
    console.log(`screenshot: ${shot}`);
  });

  it('forgets a removed one, and the page threw nothing', { timeout: TEST_TIMEOUT_MS }, async () => {
    await page.evaluate(() => window.herd.sendCommand({ cmd: 'remove_exit', id: 1 }));
    await page.waitForFunction(() => window.herd.exits.length === 0 && window.herd.areaLabels.length === 1, null, { timeout: WAIT_MS });
    const labels = await page.evaluate(() => window.herd.areaLabels);
    assert.deepEqual(labels.map((l) => l.kind), ['source']);
    assert.deepEqual(pageErrors, []);
  });
});
