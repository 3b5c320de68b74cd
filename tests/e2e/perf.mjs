// Frame rate of the viewer with 5,000 agents: not part of `npm test` (it measures, it does not
// check). Starts the server with the `empty` scenario, has a second client spawn 5 x 1000 agents
// at random places, opens the viewer in headless Chromium and counts requestAnimationFrame
// callbacks over a few seconds.
//
// Run: node perf.mjs  (env as for the tests; HERD_PERF_MS: how long to count, default 5000;
// HERD_PERF_BATCHES: thousands of agents, default 5)

import { startServer } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser } from './lib/browser.mjs';
import { frameRate } from './lib/control_probes.mjs';

const BATCHES = process.env.HERD_PERF_BATCHES ?? 5;
const COUNT_MS = Number(process.env.HERD_PERF_MS || 5000);
const server = await startServer({ scenario: 'empty' });
const browser = await launchBrowser();
try {
  const cmd = await ProtocolClient.connect(server.wsUrl, { role: 'commander' });
  const { width, height } = cmd.welcome.world;
  for (let k = 0; k < Number(process.env.HERD_PERF_BATCHES ?? 5); k++) {
    cmd.send({ type: 'command', seq: k + 1, cmd: 'spawn', count: 1000 });
    const ans = await cmd.next((m) => (m.type === "ack" || m.type === "error") && m.seq === k + 1, 10_000, `spawn ${k + 1}`);
    if (ans.type !== "ack") throw new Error(JSON.stringify(ans));
  }
  // Spawned where the world's generator puts them (overlapping in an 800 x 600 world, so they push
  // apart and move). Sending all 5,000 to one point makes the server's crowd too slow to measure
  // the page: that is the server's limit, not the viewer's.
  void width, height;
  const page = await browser.browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(server.httpUrl);
  await page
    .waitForFunction((b) => window.herd?.connected && window.herd.agents.length >= b * 1000, Number(BATCHES), { timeout: 20_000 })
    .catch(async (e) => {
      console.log(server.output().slice(-1500));
      console.log(await page.evaluate(() => ({ c: window.herd?.status, n: window.herd?.agents.length, s: window.herd?.snapshotAgents.length, i: window.herd?.interpolation, t: window.herd?.tick, st: window.herd?.stream, e: window.herd?.lastError })));
      throw e;
    });
  await page.evaluate(() => new Promise((r) => setTimeout(r, 1000))); // settle
  const r = await page.evaluate(frameRate, { ms: COUNT_MS });
  const stream = await page.evaluate(() => window.herd.stream);
  const agents = await page.evaluate(() => window.herd.agents.length);
  const timing = await page.evaluate(() => window.herd.frameTiming);
  console.log(JSON.stringify({ agents, frames: r.frames, fps: +r.fps.toFixed(1), ms: COUNT_MS, stream, timing }));
  cmd.close();
} finally {
  await browser.close();
  await server.stop();
}
