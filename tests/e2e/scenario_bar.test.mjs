// The scenario bar against the real server: the running scenario and every one the server
// offers, pause and resume, step, reset, a scenario picked, the tick and snapshot rates, each from
// its control and from its key, with a second client checking what the server did. And the
// honest dropped counter: a pause, a step of 50 ticks and a resume lose no snapshot, so it stays 0
// (it used to count the ticks the pause and the step skipped: 16 for a step of 50 at 60/20).

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { startServer, REPO_ROOT } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';

const TEST_TIMEOUT_MS = 60_000;

describe('scenario bar', { timeout: 5 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;
  let page;
  let pageErrors;
  let watcher;

  before(async () => {
    server = await startServer({ scenario: 'default' });
    browser = await launchBrowser();
    ({ page, pageErrors } = await openViewer(browser.browser, server));
    watcher = await ProtocolClient.connect(server.wsUrl, { role: 'viewer' });
  });

  after(async () => {
    watcher?.close();
    await browser?.close();
    await server?.stop();
  });

  // Waiters are set before the action, so that an answer that comes at once is not missed.
  const welcome = (pred, what) => watcher.next((m) => m.type === 'welcome' && pred(m), WAIT_MS, what);
  const snapshotOf = (tick) => watcher.next((m) => m.type === 'snapshot' && m.tick === tick, WAIT_MS, `snapshot of tick ${tick}`);

  it('names the running scenario and offers every scenario of the server', { timeout: TEST_TIMEOUT_MS }, async () => {
    const onDisk = readdirSync(path.join(REPO_ROOT, 'server', 'scenarios'))
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -5))
      .sort();
    assert.deepEqual(watcher.welcome.scenarios, onDisk, "welcome's scenarios are the directory's");
    assert.equal(watcher.welcome.scenario, 'default');
    assert.equal(await page.locator('#scenario-pick').inputValue(), 'default');
    const options = await page.locator('#scenario-pick option').evaluateAll((os) => os.map((o) => o.value));
    assert.deepEqual(options, onDisk);
    assert.equal(await page.title(), 'herd · default');
    // What each shows: the welcome's descriptions, the files' own; the running one's a click away.
    const described = Object.fromEntries(
      onDisk.map((n) => [n, JSON.parse(readFileSync(path.join(REPO_ROOT, 'server', 'scenarios', `${n}.json`), 'utf8')).description]),
    );
    assert.deepEqual(watcher.welcome.descriptions, described);
    assert.equal(watcher.welcome.description, described.default);
    const titles = await page.locator('#scenario-pick option').evaluateAll((os) => os.map((o) => o.title));
    assert.deepEqual(titles, onDisk.map((n) => described[n]));
    assert.equal(await page.locator('#scenario-description').isVisible(), false);
    await page.locator('#scenario-about').click();
    await page.locator('#scenario-description', { hasText: described.default }).waitFor({ timeout: WAIT_MS });
    await page.locator('#scenario-about').click();
    await page.locator('#scenario-description').waitFor({ state: 'hidden', timeout: WAIT_MS });
    // Commanders get the controls enabled (step waits for a pause), and no note.
    for (const sel of ['#scenario-pick', '#pause-btn', '#reset-btn', '#tick-rate', '#snapshot-rate', '#step-ticks']) {
      assert.equal(await page.locator(sel).isEnabled(), true, `${sel} is disabled`);
    }
    assert.equal(await page.locator('#step-btn').isDisabled(), true, 'step is for a paused world');
    assert.equal(await page.locator('#bar-note').textContent(), '');
    // The help lists the bar's keys.
    const help = await page.locator('#help').textContent();
    for (const key of ['Space', 'pause or resume', 'reset', 'choose a scenario', 'ticks per second', 'snapshots per second']) {
      assert.ok(help.includes(key), `the help does not mention "${key}"`);
    }
  });

  it('Space pauses, step runs 50 ticks, "." runs them again, Space resumes: no snapshot dropped', { timeout: TEST_TIMEOUT_MS }, async (t) => {
    // Settle: a few seconds of stream first. A snapshot the server really skipped for the page
    // while it was still loading (a busy machine) is an honest drop, not this test's subject: what
    // is asserted is that the pause, the steps and the resume add none to the count.
    await page.waitForFunction(() => window.herd.stream.snapshotsPerSec >= 15, null, { timeout: WAIT_MS });
    const droppedBefore = await page.evaluate(() => window.herd.stream.dropped);
    t.diagnostic(`dropped before the pause: ${droppedBefore}`);

    const pausing = welcome((m) => m.paused === true, 'a welcome saying paused');
    await page.keyboard.press('Space');
    const paused = await pausing;
    await page.waitForFunction(() => window.herd.paused === true, null, { timeout: WAIT_MS });
    await page.locator('#paused-badge').waitFor({ state: 'visible', timeout: WAIT_MS });
    assert.equal(await page.locator('#pause-label').textContent(), 'resume');
    await page.locator('#step-btn:enabled').waitFor({ timeout: WAIT_MS });
    // The world stands still, and stays on screen.
    await page.waitForTimeout(400);
    const still = await page.evaluate(() => ({ tick: window.herd.tick, agents: window.herd.agents.length }));
    await page.waitForTimeout(400);
    assert.equal(await page.evaluate(() => window.herd.tick), still.tick, 'ticks went on while paused');
    assert.ok(still.agents > 0, 'the paused world vanished from the page');
    assert.ok(still.tick <= paused.tick);

    await page.locator('#step-ticks').fill('50');
    const first = snapshotOf(paused.tick + 50);
    await page.locator('#step-btn').click();
    const stepped = await first;
    await page.waitForFunction((tick) => window.herd.tick === tick, stepped.tick, { timeout: WAIT_MS });
    const second = snapshotOf(paused.tick + 100);
    await page.keyboard.press('.');
    await second;
    await page.waitForFunction((tick) => window.herd.tick === tick, paused.tick + 100, { timeout: WAIT_MS });

    const resuming = welcome((m) => m.paused === false, 'a welcome saying running');
    await page.keyboard.press('Space');
    await resuming;
    await page.waitForFunction((tick) => window.herd.paused === false && window.herd.tick > tick + 30, paused.tick + 100, {
      timeout: WAIT_MS,
    });
    await page.waitForTimeout(1000);
    const stream = await page.evaluate(() => window.herd.stream);
    t.diagnostic(`after pause, step 50, step 50, resume: ${JSON.stringify(stream)}`);
    assert.equal(stream.dropped, droppedBefore, 'snapshots counted as dropped though none was skipped');
    assert.equal(await page.locator('#dropped').textContent(), String(droppedBefore));
    assert.equal(await page.locator('#paused-badge').isHidden(), true);
  });

  it('reset (X) rebuilds the scenario; the picker (and L) loads another', { timeout: TEST_TIMEOUT_MS }, async () => {
    const before = await page.evaluate(() => window.herd.tick);
    const resetting = welcome((m) => m.tick < before, 'the reset world');
    await page.keyboard.press('x');
    const reset = await resetting;
    assert.equal(reset.scenario, 'default');
    await page.waitForFunction((t0) => window.herd.tick < t0, before, { timeout: WAIT_MS });

    await page.keyboard.press('l');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'scenario-pick', 'L does not open the picker');
    await page.keyboard.press('Escape'); // closes the picker's list, or leaves the field
    const loading = welcome((m) => m.scenario === 'demo32', 'the demo32 world');
    await page.locator('#scenario-pick').selectOption('demo32');
    const loaded = await loading;
    assert.equal(loaded.tick, 0);
    await page.waitForFunction(() => window.herd.scenario === 'demo32' && window.herd.snapshotAgents.length === 32, null, {
      timeout: WAIT_MS,
    });
    assert.equal(await page.title(), 'herd · demo32');
    assert.equal(await page.locator('#scenario-pick').inputValue(), 'demo32');
    // Keys go to the page again once the picker is left.
    await page.locator('#world').click({ position: { x: 5, y: 5 } });
    assert.notEqual(await page.evaluate(() => document.activeElement?.id), 'scenario-pick');
  });

  it('] and the picker set the tick rate, { the snapshot rate', { timeout: TEST_TIMEOUT_MS }, async () => {
    const speeding = welcome((m) => m.tick_rate === 120, 'a welcome with 120 ticks/s');
    await page.keyboard.press(']');
    const faster = await speeding;
    assert.equal(faster.snapshot_rate, 20);
    await page.waitForFunction(() => window.herd.tickRate === 120, null, { timeout: WAIT_MS });
    assert.equal(await page.locator('#tick-rate').inputValue(), '120');

    const slowing = welcome((m) => m.tick_rate === 15, 'a welcome with 15 ticks/s');
    await page.locator('#tick-rate').selectOption('15');
    const slow = await slowing;
    assert.equal(slow.snapshot_rate, 15, 'the snapshot rate comes down with the tick rate');
    await page.locator('#world').click({ position: { x: 5, y: 5 } }); // leave the picker
    const thinning = welcome((m) => m.snapshot_rate === 10, 'a welcome with 10 snapshots/s');
    await page.keyboard.press('{');
    const fewer = await thinning;
    assert.equal(fewer.tick_rate, 15);
    await page.waitForFunction(() => window.herd.snapshotRate === 10, null, { timeout: WAIT_MS });

    const back = welcome((m) => m.tick_rate === 60, 'back to 60 ticks/s');
    await page.locator('#tick-rate').selectOption('60');
    await back;
    const again = welcome((m) => m.snapshot_rate === 20, 'back to 20 snapshots/s');
    await page.locator('#snapshot-rate').selectOption('20');
    await again;
    assert.deepEqual(pageErrors, []);
  });
});
