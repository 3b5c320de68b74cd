// The operator's monitor (/monitor: clients/web/monitor.html and monitor.js) against the real
// server with a command token. Opened with #token=, it lists the sessions (another client's row
// among them, its own marked and without a kick button), and its kick button closes that client's
// WebSocket with the kick's code and reason while the page and the others go on; it shows every
// stage of the tick as /metrics names them, the world's counts as the snapshots give them, and an
// agent's whole state as JSON. Without the token, or with a wrong one, it says so plainly, shows
// nothing else and leaves no session open. Second WebSocket clients check from outside what the
// server did.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, WAIT_MS } from './lib/browser.mjs';
import { parsePrometheus, readStepProfile } from '../../clients/web/profile.js';
import { MONITOR_NO_TOKEN, MONITOR_TOKEN_REFUSED } from '../../clients/web/monitor_format.js';

const TEST_TIMEOUT_MS = 60_000;
const TOKEN = 'e2e-monitor-t0ken-16';

// Opens /monitor with `hash`; resolves to {page, pageErrors}.
async function openMonitor(browser, server, hash = '') {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  const response = await page.goto(`${server.httpUrl}monitor${hash}`);
  assert.equal(response.status(), 200);
  assert.match(response.headers()['content-type'], /^text\/html/);
  return { page, pageErrors };
}

// The server's sessions as a commander of the test's sees them (the `sessions` answer).
async function serverSessions(server) {
  const c = await ProtocolClient.connect(server.wsUrl, { role: 'commander', token: TOKEN });
  try {
    c.send({ type: 'sessions', seq: 1 });
    return await c.next((m) => m.type === 'sessions' && m.seq === 1, WAIT_MS, 'the sessions');
  } finally {
    c.close();
  }
}

describe('the operator monitor', { timeout: 4 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;

  before(async () => {
    server = await startServer({ extraArgs: ['--command-token', TOKEN] });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('lists the sessions and kicks one; shows the stages, the counts and an agent', { timeout: TEST_TIMEOUT_MS }, async (t) => {
    // The server names the monitor just after its listening line, which is what startServer waits
    // for: a line or two later.
    const deadline = Date.now() + WAIT_MS;
    while (!/the operator's monitor/.test(server.output()) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50)); // paces the reading of its output
    assert.match(server.output(), /the operator's monitor/);
    const { page, pageErrors } = await openMonitor(browser.browser, server, `#token=${TOKEN}`);
    // Closed however the test ends: a page left open is a monitor session the next tests count.
    t.after(() => page.close());
    const target = await ProtocolClient.connect(server.wsUrl);
    const watcher = await ProtocolClient.connect(server.wsUrl);
    const targetId = target.welcome.session;

    // The other client's row, with what the server knows of it; the page's own row, marked.
    const row = page.locator(`#session-rows tr[data-session="${targetId}"]`);
    // Listed from its connection on; its role and client once its hello is read.
    await row.locator('td.role', { hasText: /^viewer$/ }).waitFor({ timeout: WAIT_MS });
    assert.equal(await row.locator('td.client').textContent(), 'herd-e2e/1');
    assert.match(await row.locator('td.address').textContent(), /^127\.0\.0\.1:\d+$/);
    const own = page.locator('#session-rows tr.you');
    assert.equal(await own.count(), 1);
    assert.equal(await own.getAttribute('data-session'), await page.locator('#self').textContent());
    assert.equal(await own.locator('button.kick').count(), 0, 'no kick button for the page itself');
    assert.equal(await own.locator('td.role').textContent(), 'commander');
    assert.equal(await own.locator('td.client').textContent(), 'herd-monitor/1');
    // Refreshed: the target's snapshots count grows on the page.
    await page.waitForFunction((id) => Number(document.querySelector(`#session-rows tr[data-session="${id}"] td.snapshots`)?.textContent) > 0, targetId, { timeout: WAIT_MS });

    // Kick: the target's socket closes with the kick's code and reason; its row goes; the
    // watcher and the page go on.
    await row.locator('button.kick').click();
    const closed = await Promise.race([target.closed, new Promise((resolve) => setTimeout(() => resolve(null), WAIT_MS))]);
    assert.deepEqual(closed, { code: 4000, reason: 'kicked by the operator' });
    await row.waitFor({ state: 'detached', timeout: WAIT_MS });
    assert.equal(await page.locator('#kick-note').textContent(), `session ${targetId} kicked`);
    const snap = await watcher.next((m) => m.type === 'snapshot', WAIT_MS, 'a snapshot after the kick');
    assert.ok(snap.agents.length > 0, 'the default scenario has agents');
    assert.equal(await page.locator('#conn').textContent(), 'connected');
    const listed = await serverSessions(server);
    assert.ok(!listed.sessions.some((s) => s.id === targetId), 'the server still lists the kicked session');
    assert.ok(listed.sessions.some((s) => s.id === watcher.welcome.session), 'the watcher was closed too');

    // The world's counts, as the snapshots say.
    assert.equal(await page.locator('#w-scenario').textContent(), 'default');
    await page.waitForFunction((n) => document.getElementById('w-agents').textContent === String(n), watcher.latestSnapshot.agents.length, { timeout: WAIT_MS });
    assert.ok(Number(await page.locator('#w-tick').textContent()) > 0);
    assert.equal(await page.locator('#w-obstacles').textContent(), String(watcher.welcome.obstacles.length));

    // Every stage the server's /metrics names, in its order, each with a number.
    const metrics = await fetch(`${server.httpUrl}metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    assert.equal(metrics.status, 200);
    const stages = readStepProfile(parsePrometheus(await metrics.text()), 0).stages.map((s) => s.stage);
    assert.ok(stages.length >= 3, stages.join());
    await page.waitForFunction(
      (names) => {
        const rows = [...document.querySelectorAll('#stage-rows tr')];
        const number = (s) => s !== '' && Number.isFinite(Number(s)) && Number(s) >= 0;
        return rows.map((tr) => tr.dataset.stage).join() === names.join() && rows.every((tr) => number(tr.querySelector('.ms').dataset.ms)) && number(document.getElementById('step-ms').textContent);
      },
      stages,
      { timeout: WAIT_MS },
    );

    // One agent's whole state: its record (behaviour, state...) and its avoidance trace.
    const id = watcher.latestSnapshot.agents[0].id;
    await page.locator('#agent-id').fill(String(id));
    await page.locator('#agent-id').press('Enter');
    await page.waitForFunction(
      (want) => {
        try {
          const s = JSON.parse(document.getElementById('agent-json').textContent);
          return s.agent?.id === want && typeof s.agent.behaviour === 'string' && s.avoidance?.id === want;
        } catch {
          return false;
        }
      },
      id,
      { timeout: WAIT_MS },
    );
    await page.locator('#agent-id').fill('4000000000');
    await page.locator('#agent-id').press('Enter');
    await page.locator('#agent-note', { hasText: /^no agent 4000000000 in the world at tick \d+$/ }).waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('#agent-json').textContent(), '');

    assert.equal(await page.locator('#notice').isVisible(), false);
    assert.deepEqual(pageErrors, []);
    watcher.close();
  });

  for (const { name, hash, notice } of [
    { name: 'without the token', hash: '', notice: MONITOR_NO_TOKEN },
    { name: 'with a wrong token', hash: '#token=not-the-token-at-all', notice: MONITOR_TOKEN_REFUSED },
  ]) {
    it(`${name}: the plain notice and nothing else, and no session left open`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
      const { page, pageErrors } = await openMonitor(browser.browser, server, hash);
      t.after(() => page.close());
      const noticeEl = page.locator('#notice');
      await noticeEl.waitFor({ state: 'visible', timeout: WAIT_MS });
      assert.equal(await noticeEl.textContent(), notice);
      assert.equal(await page.locator('#board').isVisible(), false);
      assert.equal(await page.locator('#session-rows tr').count(), 0);
      assert.equal(await page.locator('#stage-rows tr').count(), 0);
      // The page closed its session: the server lists none of the monitor's.
      const deadline = Date.now() + WAIT_MS;
      for (;;) {
        const { sessions } = await serverSessions(server);
        if (!sessions.some((s) => s.client === 'herd-monitor/1')) break;
        assert.ok(Date.now() < deadline, `a monitor session is still open: ${JSON.stringify(sessions)}`);
        await new Promise((resolve) => setTimeout(resolve, 100)); // paces the asking, not a wait on the world
      }
      assert.equal(await noticeEl.textContent(), notice, 'the page did not reconnect');
      assert.deepEqual(pageErrors, []);
    });
  }
});
