// Where a frame's time goes with 5,000 agents: the set-up of perf.mjs, then a Chromium trace of a
// few seconds (every process, through the DevTools protocol) summed per thread and per event.
// Not part of `npm test` (it measures, it does not check).
//
// Run: node perf_trace.mjs  (env as for perf.mjs, HERD_PERF_SELECT included; HERD_TRACE_OUT: also
// write the raw trace there, for chrome://tracing or Perfetto; HERD_TRACE_TOP: events listed per
// thread, default 12)

import { writeFileSync } from 'node:fs';
import { startServer } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, viewerUrl } from './lib/browser.mjs';

const BATCHES = Number(process.env.HERD_PERF_BATCHES ?? 5);
const TRACE_MS = Number(process.env.HERD_PERF_MS || 3000);
const TOP = Number(process.env.HERD_TRACE_TOP || 12);
const CATEGORIES = [
  'toplevel',
  'blink',
  'cc',
  'gpu',
  'viz',
  'skia',
  'v8.execute',
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-devtools.timeline.frame',
].join(',');

const server = await startServer({ scenario: 'empty' });
const browser = await launchBrowser();
try {
  const cmd = await ProtocolClient.connect(server.wsUrl, { role: 'commander' });
  for (let k = 0; k < BATCHES; k++) {
    cmd.send({ type: 'command', seq: k + 1, cmd: 'spawn', count: 1000 });
    const ans = await cmd.next((m) => (m.type === 'ack' || m.type === 'error') && m.seq === k + 1, 10_000, `spawn ${k + 1}`);
    if (ans.type !== 'ack') throw new Error(JSON.stringify(ans));
  }
  const page = await browser.browser.newPage({
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: Number(process.env.HERD_PERF_DPR || 1),
  });
  await page.goto(viewerUrl(server));
  await page.waitForFunction((b) => window.herd?.connected && window.herd.agents.length >= b * 1000, BATCHES, {
    timeout: 20_000,
  });
  if (process.env.HERD_PERF_SELECT === 'all') await selectAll(page, BATCHES * 1000);
  await page.evaluate(() => new Promise((r) => setTimeout(r, 1000))); // settle

  const cdp = await browser.browser.newBrowserCDPSession();
  const events = [];
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReportEvents' });
  const frames = await page.evaluate(countFrames, TRACE_MS);
  await cdp.send('Tracing.end');
  await done;
  if (process.env.HERD_TRACE_OUT) writeFileSync(process.env.HERD_TRACE_OUT, JSON.stringify({ traceEvents: events }));
  summarise(events, frames);

  // Then the page's JavaScript alone, sampled (the sampler slows the page: a separate run).
  const js = await page.context().newCDPSession(page);
  await js.send('Profiler.enable');
  await js.send('Profiler.setSamplingInterval', { interval: 200 });
  await js.send('Profiler.start');
  const jsFrames = await page.evaluate(countFrames, TRACE_MS);
  const { profile } = await js.send('Profiler.stop');
  summariseProfile(profile, jsFrames);
  cmd.close();
} finally {
  await browser.close();
  await server.stop();
}

// A box drag over the whole canvas: every agent selected.
async function selectAll(page, n) {
  const box = await page.locator('#world').boundingBox();
  await page.mouse.move(box.x + 2, box.y + 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width - 2, box.y + box.height - 2, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction((k) => window.herd.selected.length >= k, n);
}

// requestAnimationFrame callbacks over `ms` (run in the page).
function countFrames(ms) {
  return new Promise((resolve) => {
    let n = 0;
    const start = performance.now();
    const tick = (now) => {
      n++;
      if (now - start < ms) requestAnimationFrame(tick);
      else resolve(n);
    };
    requestAnimationFrame(tick);
  });
}

// Self time of the page's functions (ms per frame), by function and file:line.
function summariseProfile(profile, frames) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const n = nodes.get(profile.samples[i]);
    const f = n.callFrame;
    const where = f.url ? `${f.url.split('/').pop()}:${f.lineNumber + 1}` : '';
    const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = profile.endTime - profile.startTime;
  console.log(`\nJavaScript, sampled: ${frames} frames in ${(total / 1000).toFixed(0)} ms; self ms per frame:`);
  for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 2 * TOP)) {
    console.log(`  ${(us / 1000 / frames).toFixed(2).padStart(7)}  ${key}`);
  }
}

// Per thread: busy time (the union of its outermost events) in ms per frame, and the events with
// the most inclusive time (ms per frame), over the frames counted while tracing.
function summarise(events, frames) {
  const names = new Map(); // "pid:tid" -> thread name
  const procs = new Map(); // pid -> process name
  for (const e of events) {
    if (e.ph !== 'M') continue;
    if (e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name);
    if (e.name === 'process_name') procs.set(e.pid, e.args.name);
  }
  const threads = new Map();
  const open = new Map(); // B/E pairs
  const add = (key, name, ts, dur) => {
    let t = threads.get(key);
    if (!t) threads.set(key, (t = { spans: [], byName: new Map() }));
    t.spans.push([ts, ts + dur]);
    t.byName.set(name, (t.byName.get(name) ?? 0) + dur);
  };
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    if (e.ph === 'X' && e.dur !== undefined) add(key, e.name, e.ts, e.dur);
    else if (e.ph === 'B') {
      const stack = open.get(key) ?? [];
      stack.push(e);
      open.set(key, stack);
    } else if (e.ph === 'E') {
      const b = open.get(key)?.pop();
      if (b) add(key, b.name, b.ts, e.ts - b.ts);
    }
  }
  const rows = [];
  for (const [key, t] of threads) {
    t.spans.sort((a, b) => a[0] - b[0]);
    let busy = 0;
    let end = -Infinity;
    for (const [s, f] of t.spans) {
      if (f <= end) continue;
      busy += f - Math.max(s, end);
      end = f;
    }
    const pid = Number(key.split(':')[0]);
    rows.push({ thread: `${procs.get(pid) ?? pid} / ${names.get(key) ?? key}`, busy, byName: t.byName });
  }
  rows.sort((a, b) => b.busy - a.busy);
  const perFrame = (us) => (us / 1000 / frames).toFixed(2);
  console.log(`${frames} frames in ${TRACE_MS} ms (${((frames * 1000) / TRACE_MS).toFixed(1)} fps); ms per frame:`);
  for (const r of rows.slice(0, 8)) {
    console.log(`\n${r.thread}: busy ${perFrame(r.busy)}`);
    const top = [...r.byName].sort((a, b) => b[1] - a[1]).slice(0, TOP);
    for (const [name, us] of top) console.log(`  ${perFrame(us).padStart(7)}  ${name}`);
  }
}
