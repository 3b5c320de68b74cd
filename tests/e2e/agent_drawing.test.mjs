// The two ways the viewer draws agents (clients/web/agent_layer.js): a pixel buffer where the
// browser rasterises in software, canvas paths where a GPU does. This Chromium rasterises in
// software, so the other tests see only the buffer; here both are forced (#agents=...) on one
// server and must draw the same things: bodies in their group colours, a white selection ring.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer } from './lib/server.mjs';
import { launchBrowser, openViewer } from './lib/browser.mjs';
import { hexToRgb, colorDistance } from './lib/colors.mjs';
import { agentCentrePixels, isolatedAgent } from './lib/page_probes.mjs';

const TEST_TIMEOUT_MS = 60_000;

// In the page, a frame after the click: the selected agent's ring sampled at 8 angles (the
// brightest of the 3 x 3 device pixels round each point, since the ring is 1.5 px wide).
async function selectionRingPixels() {
  await new Promise(requestAnimationFrame);
  const h = window.herd;
  const canvas = document.getElementById('world');
  const ctx = canvas.getContext('2d');
  const k = canvas.width / canvas.clientWidth;
  const a = h.agents.find((b) => b.id === h.selected[0]);
  if (!a) return null;
  const scale = h.worldToScreen(1, 0).x - h.worldToScreen(0, 0).x;
  const p = h.worldToScreen(a.x, a.y);
  const ring = Math.max(h.minAgentPx, a.r * scale) + 3;
  const out = [];
  for (let i = 0; i < 8; i++) {
    const th = (i * Math.PI) / 4;
    const x = Math.floor((p.x + ring * Math.cos(th)) * k);
    const y = Math.floor((p.y + ring * Math.sin(th)) * k);
    const d = ctx.getImageData(x - 1, y - 1, 3, 3).data;
    let best = 0;
    for (let j = 0; j < d.length; j += 4) best = Math.max(best, Math.min(d[j], d[j + 1], d[j + 2]));
    out.push(best);
  }
  return out;
}

describe('agents drawn as a pixel buffer and as canvas paths', { timeout: 4 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const mode of ['raster', 'vector']) {
    it(`#agents=${mode}: group colours at the agents' centres, a white ring round the one clicked`, { timeout: TEST_TIMEOUT_MS }, async () => {
      const { page, canvasBox, pageErrors } = await openViewer(browser.browser, server, { hash: `#agents=${mode}` });
      try {
        assert.equal(await page.evaluate(() => window.herd.agentDrawing), mode);

        // As in viewer.test.mjs: most centres carry their colour (the default scenario sends
        // everyone through the middle at once, where they overlap).
        const centres = await page.evaluate(agentCentrePixels);
        const wrong = centres.filter((c) => colorDistance(c.pixel, hexToRgb(c.color)) > 8);
        assert.ok(centres.length > 0 && wrong.length <= 0.2 * centres.length, `${wrong.length} of ${centres.length} wrong`);

        let ring = null;
        for (let attempt = 0; attempt < 3 && !ring; attempt++) {
          const agent = await page.evaluate(isolatedAgent);
          await page.mouse.click(canvasBox.x + agent.sx, canvasBox.y + agent.sy);
          const selected = await page
            .waitForFunction((id) => window.herd.selected.length === 1 && window.herd.selected[0] === id, agent.id, { timeout: 2000 })
            .then(() => true, () => false);
          if (selected) ring = await page.evaluate(selectionRingPixels);
        }
        assert.ok(ring, 'could not select an agent by clicking it');
        // White all round, give or take a point where a neighbour's flash or heading passes.
        const white = ring.filter((v) => v >= 180).length;
        assert.ok(white >= 7, `selection ring pixels (darkest channel): ${ring}`);
        assert.deepEqual(pageErrors, []);
      } finally {
        await page.close();
      }
    });
  }
});
