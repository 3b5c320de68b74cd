// Frame rate of the viewer with 5,000 agents: not part of `npm test` (it measures, it does not
// check). Starts the server with the `empty` scenario, has a second client spawn 5 x 1000 agents
// at random places, opens the viewer in headless Chromium and counts requestAnimationFrame
// callbacks over a few seconds.
//
// Run: node perf.mjs  (env as for the tests; HERD_PERF_MS: how long to count, default 5000;
// HERD_PERF_BATCHES: thousands of agents, default 5; HERD_PERF_MOTION=swap: each thousand its own
// group, then everyone switches places at random (the demo's B), so that agents move, show their
// heading lines and collide while the page is measured; HERD_PERF_SELECT=all: a box drag selects
// every agent first (a selection ring each); HERD_PERF_DPR: the device pixel ratio, default 1;
// HERD_PERF_AGENTS=raster|vector: how the page draws agents, instead of its own choice)

import { startServer } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, viewerUrl } from './lib/browser.mjs';
import { frameRate } from './lib/control_probes.mjs';

const BATCHES = process.env.HERD_PERF_BATCHES ?? 5;
const COUNT_MS = Number(process.env.HERD_PERF_MS || 5000);
const server = await startServer({ scenario: 'empty' });
const browser = await launchBrowser();
try {
  const cmd = await ProtocolClient.connect(server.wsUrl, { role: 'commander' });
  const { width, height } = cmd.welcome.world;
  const motion = process.env.HERD_PERF_MOTION === 'swap';
  for (let k = 0; k < Number(process.env.HERD_PERF_BATCHES ?? 5); k++) {
    cmd.send({ type: 'command', seq: k + 1, cmd: 'spawn', count: 1000, ...(motion ? { group: k } : {}) });
    const ans = await cmd.next((m) => (m.type === "ack" || m.type === "error") && m.seq === k + 1, 10_000, `spawn ${k + 1}`);
    if (ans.type !== "ack") throw new Error(JSON.stringify(ans));
  }
  // Spawned where the world's generator puts them: overlapping in an 800 x 600 world, idle, still.
  // Sending all 5,000 to one point makes the server's crowd too slow to measure the page: that is
  // the server's limit, not the viewer's.
  void width, height;
  if (motion) {
    cmd.send({ type: 'command', seq: 100, cmd: 'swap_places', agents: 'all' });
    const ans = await cmd.next((m) => (m.type === 'ack' || m.type === 'error') && m.seq === 100, 10_000, 'swap_places');
    if (ans.type !== 'ack') throw new Error(JSON.stringify(ans));
  }
  const page = await browser.browser.newPage({
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: Number(process.env.HERD_PERF_DPR || 1),
  });
  await page.goto(viewerUrl(server, process.env.HERD_PERF_AGENTS ? `#agents=${process.env.HERD_PERF_AGENTS}` : ''));
  await page
    .waitForFunction((b) => window.herd?.connected && window.herd.agents.length >= b * 1000, Number(BATCHES), { timeout: 20_000 })
    .catch(async (e) => {
      console.log(server.output().slice(-1500));
      console.log(await page.evaluate(() => ({ c: window.herd?.status, n: window.herd?.agents.length, s: window.herd?.snapshotAgents.length, i: window.herd?.interpolation, t: window.herd?.tick, st: window.herd?.stream, e: window.herd?.lastError })));
      throw e;
    });
  if (process.env.HERD_PERF_SELECT === 'all') {
    const box = await page.locator('#world').boundingBox();
    await page.mouse.move(box.x + 2, box.y + 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width - 2, box.y + box.height - 2, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction((n) => window.herd.selected.length >= n, Number(BATCHES) * 1000);
  }
  await page.evaluate(() => new Promise((r) => setTimeout(r, 1000))); // settle
  const r = await page.evaluate(frameRate, { ms: COUNT_MS });
  const stream = await page.evaluate(() => window.herd.stream);
  const agents = await page.evaluate(() => window.herd.agents.length);
  const timing = await page.evaluate(() => window.herd.frameTiming);
  // What was on screen at the end: agents moving (heading lines drawn) and collided (red rings).
  const shown = await page.evaluate(() => ({
    moving: window.herd.agents.filter((a) => Math.hypot(a.vx, a.vy) >= 1e-3).length,
    collided: window.herd.agents.filter((a) => a.collided).length,
    flashes: window.herd.flashes.length,
    selected: window.herd.selected.length,
    drawing: window.herd.agentDrawing,
  }));
  console.log(JSON.stringify({ agents, ...shown, frames: r.frames, fps: +r.fps.toFixed(1), ms: COUNT_MS, stream, timing }));
  cmd.close();
} finally {
  await browser.close();
  await server.stop();
}
