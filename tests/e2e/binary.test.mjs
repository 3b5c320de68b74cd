// Binary snapshots in the browser: the viewer asks for 'auto', gets binary frames once
// the world holds more than 1,000 agents, draws them, acknowledges them, and sends its viewport
// as the camera moves; '#format=binary' forces binary on a small world. A second WebSocket
// client (JSON) checks the world from outside.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';
import { agentCentrePixels } from './lib/page_probes.mjs';
import { colorDistance, hexToRgb } from './lib/colors.mjs';

const TEST_TIMEOUT_MS = 60_000;

// Agents drawn where they are: most centres of agents clear of the others have their colour (in
// the default scenario the whole ring crosses the centre at once, where they cover one another).
async function assertDrawn(page) {
  // Agents in the viewport's margin are off the canvas or under a docked panel: not drawn.
  const all = (await page.evaluate(agentCentrePixels)).filter((p) => p.inView);
  const pixels = all.filter((p) => p.clear).length >= 5 ? all.filter((p) => p.clear) : all;
  assert.ok(pixels.length > 0);
  const bad = pixels.filter((p) => colorDistance(p.pixel, hexToRgb(p.color)) > 8);
  const good = pixels.length - bad.length;
  assert.ok(
    good >= 0.8 * pixels.length,
    `${good} of ${pixels.length} agents drawn in their colour, e.g. ` +
      bad.slice(0, 4).map((p) => `agent ${p.id}: ${p.pixel}, want ${p.color}`).join('; '),
  );
}

describe('binary snapshots in the viewer', { timeout: 3 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;

  before(async () => {
    server = await startServer({ scenario: 'default' });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('#format=binary on a small world: binary frames, acknowledged, drawn', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors } = await openViewer(browser.browser, server, { hash: '#format=binary' });
    await page.waitForFunction(() => window.herd.binaryFrames > 20, null, { timeout: WAIT_MS });
    assert.equal(await page.evaluate(() => window.herd.snapshotFormat), 'binary');
    const watcher = await ProtocolClient.connect(server.wsUrl);
    const snap = await watcher.next((m) => m.type === 'snapshot', WAIT_MS);
    watcher.close();
    assert.equal(await page.evaluate(() => window.herd.snapshotAgents.length), snap.agents.length);
    await assertDrawn(page);
    assert.deepEqual(pageErrors, []);
    await page.close();
  });

  it('auto: JSON for a small world, binary past 1,000 agents, and the viewport follows the camera', { timeout: TEST_TIMEOUT_MS }, async () => {
    // 1280 x 920: the whole world at the scale its crowd of 1,048 was judged at (with the
    // selection's tray kept along the bottom, 1280 x 800 draws it a fifth smaller and crowds it).
    const { page, pageErrors } = await openViewer(browser.browser, server, { width: 1280, height: 920 });
    assert.equal(await page.evaluate(() => window.herd.snapshotFormat), 'json');
    const commander = await ProtocolClient.connect(server.wsUrl, { role: 'commander' });
    commander.send({ type: 'command', seq: 1, cmd: 'spawn', count: 1000, group: 2 });
    await commander.next((m) => m.type === 'ack' && m.seq === 1, WAIT_MS, 'the spawn ack');
    const world = await commander.next((m) => m.type === 'snapshot', WAIT_MS);
    commander.close();
    const total = world.agents.length;
    assert.ok(total > 1000);
    await page.waitForFunction(() => window.herd.snapshotFormat === 'binary', null, { timeout: WAIT_MS });
    await page.waitForFunction((n) => window.herd.snapshotAgents.length === n, total, { timeout: WAIT_MS });
    assert.equal(await page.evaluate(() => window.herd.viewport), null, 'the whole world is in view');
    await assertDrawn(page);
    // The whole world on the page's canvas: a quantum no finer than a pixel needs, sent with the
    // viewport, and the positions come in it.
    await page.waitForFunction(() => window.herd.quantum > 1 / 64, null, { timeout: WAIT_MS });
    const wholeQuantum = await page.evaluate(() => window.herd.quantum);
    await page.waitForFunction(
      (q) => window.herd.snapshotAgents.length > 0 && window.herd.snapshotAgents.every((a) => Number.isInteger(a.x / q) && Number.isInteger(a.y / q)),
      wholeQuantum,
      { timeout: WAIT_MS },
    );

    // Zoom in on the centre: the viewer sends its viewport, and receives only what is near it.
    const box = await page.locator('#world').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let i = 0; i < 4; ++i) await page.mouse.wheel(0, -300);
    await page.waitForFunction(() => window.herd.viewport && window.herd.viewport.x1 - window.herd.viewport.x0 < 400, null, {
      timeout: WAIT_MS,
    });
    await page.waitForFunction(
      (n) => window.herd.snapshotAgents.length < n && window.herd.snapshotAgents.length > 0,
      total,
      { timeout: WAIT_MS },
    );
    // Every agent received is in the viewport plus its margin (PROTOCOL.md: an eighth of the
    // larger side plus 4 units; half the viewer's quantum and 1/128 unit of quantisation).
    await page.waitForFunction(() => {
      const v = window.herd.viewport;
      const m = Math.max(v.x1 - v.x0, v.y1 - v.y0) / 8 + 4 + window.herd.quantum / 2 + 1 / 128;
      return window.herd.snapshotAgents.every((a) => a.x >= v.x0 - m && a.x <= v.x1 + m && a.y >= v.y0 - m && a.y <= v.y1 + m);
    }, null, { timeout: WAIT_MS });
    // Zoomed in, the viewer asked for a finer quantum than for the whole world, and the server's
    // positions come in it.
    const zoomedQuantum = await page.evaluate(() => window.herd.quantum);
    assert.ok(zoomedQuantum < wholeQuantum, `quantum ${zoomedQuantum} zoomed in, ${wholeQuantum} on the whole world`);
    await page.waitForFunction(
      (q) => window.herd.snapshotAgents.every((a) => Number.isInteger(a.x / q) && Number.isInteger(a.y / q)),
      zoomedQuantum,
      { timeout: WAIT_MS },
    );
    await assertDrawn(page);
    assert.deepEqual(pageErrors, []);
    await page.close();
  });
});
