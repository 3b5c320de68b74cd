// Frame rate of the viewer with 5,000 agents: not part of `npm test` (it measures, it does not
// check). Starts the server with the `empty` scenario, has a second client spawn 5 x 1000 agents
// sent to random targets, opens the viewer in headless Chromium and counts requestAnimationFrame
// callbacks over a few seconds.
//
// Run: node perf.mjs  (env as for the tests; HERD_PERF_MS: how long to count, default 5000)

import { startServer } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser } from './lib/browser.mjs';
import { frameRate } from './lib/control_probes.mjs';

const COUNT_MS = Number(process.env.HERD_PERF_MS || 5000);
const server = await startServer({ scenario: 'empty' });
const browser = await launchBrowser();
try {
  const cmd = await ProtocolClient.connect(server.wsUrl, { role: 'commander' });
  const { width, height } = cmd.welcome.world;
  for (let k = 0; k < 5; k++) {
    cmd.send({ type: 'command', seq: k + 1, cmd: 'spawn', count: 1000 });
    await cmd.next((m) => (m.type === 'ack' || m.type === 'error') && m.seq === k + 1, 10_000, `spawn ${k + 1}`);
  }
  // Keep them moving: everyone to a point, then the other way, so positions change every snapshot.
  cmd.send({ type: 'command', seq: 10, cmd: 'set_target', agents: 'all', behaviour: 'seek', target: { x: width / 2, y: height / 2 } });
  const page = await browser.browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(server.httpUrl);
  await page
    .waitForFunction(() => window.herd?.connected && window.herd.agents.length >= 5000, null, { timeout: 20_000 })
    .catch(async (e) => {
      console.log(await page.evaluate(() => ({ c: window.herd?.status, n: window.herd?.agents.length, s: window.herd?.snapshotAgents.length, i: window.herd?.interpolation })));
      throw e;
    });
  await page.evaluate(() => new Promise((r) => setTimeout(r, 1000))); // settle
  const r = await page.evaluate(frameRate, { ms: COUNT_MS });
  const stream = await page.evaluate(() => window.herd.stream);
  const agents = await page.evaluate(() => window.herd.agents.length);
  console.log(JSON.stringify({ agents, frames: r.frames, fps: +r.fps.toFixed(1), ms: COUNT_MS, stream }));
  cmd.close();
} finally {
  await browser.close();
  await server.stop();
}
