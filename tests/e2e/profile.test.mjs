// The step profile panel (clients/web/profile_panel.js) against the real server: opened from its
// button, it shows every stage of the world's step with its mean milliseconds per step, read
// from the server's /metrics once a second, one request at a time; a pause says so and keeps the
// last figures, a step while paused shows its own; closed, or with the page hidden, it asks
// nothing. What /metrics may answer instead (403, a text without the series, no answer) is said
// in the panel's note, with no toast; a relay's page says it has no profile and asks nothing.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer } from './lib/server.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';

const TEST_TIMEOUT_MS = 60_000;
// The server's stages, in its order (herd_step_stage_seconds{stage=...}).
// The step's stages in the order it runs them, each sub-stage (timed within its stage) after it.
const STAGES = [
  'sources', 'assignments', 'grid', 'phases', 'phases.orders', 'desires', 'pathing', 'pace', 'pace.formations',
  'pace.orders', 'pace.flocks', 'pace.queues', 'avoidance', 'integrate', 'integrate.keep_off', 'collisions',
  'walls', 'walls.tiles', 'walls.segments', 'states', 'formations', 'combat', 'exits',
];

// Counts the page's GET /metrics: made in all, and the most ever in flight at once.
function trackMetrics(page) {
  const seen = { made: 0, inFlight: 0, maxInFlight: 0 };
  const mine = (r) => new URL(r.url()).pathname === '/metrics';
  page.on('request', (r) => {
    if (!mine(r)) return;
    seen.made++;
    seen.inFlight++;
    seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
  });
  for (const ev of ['requestfinished', 'requestfailed']) page.on(ev, (r) => mine(r) && seen.inFlight--);
  return seen;
}

// Waits until the world has run `n` more ticks: time passing, measured on the world (60 ticks a
// second in these scenarios), not a fixed sleep.
async function ticksPass(page, n) {
  const t0 = await page.evaluate(() => window.herd.tick);
  await page.waitForFunction((t) => window.herd.tick >= t, t0 + n, { timeout: WAIT_MS });
}

// Waits until the panel's note is `note` (a string) or matches it (a RegExp).
async function noteSays(page, note) {
  const source = note instanceof RegExp ? note.source : null;
  await page.waitForFunction(
    ({ text, source }) => {
      const t = document.getElementById('profile-note').textContent;
      return source !== null ? new RegExp(source).test(t) : t === text;
    },
    { text: typeof note === 'string' ? note : '', source },
    { timeout: WAIT_MS },
  );
}

// In the page: each stage row's name, the number it shows and its data-ms, and the step's.
function profileTable() {
  const rows = [...document.querySelectorAll('#profile-rows tr')].map((tr) => ({
    stage: tr.dataset.stage,
    text: tr.querySelector('.ms').textContent,
    ms: tr.querySelector('.ms').dataset.ms,
  }));
  const step = document.getElementById('profile-step-ms');
  return { rows, step: { text: step.textContent, ms: step.dataset.ms } };
}

// Every stage shown, in the server's order, each with a number >= 0 (as text and as data-ms).
function allStagesShown(stages) {
  const rows = [...document.querySelectorAll('#profile-rows tr')];
  if (rows.map((tr) => tr.dataset.stage).join() !== stages.join()) return false;
  const number = (s) => s !== '' && Number.isFinite(Number(s)) && Number(s) >= 0;
  const step = document.getElementById('profile-step-ms');
  return rows.every((tr) => number(tr.querySelector('.ms').textContent) && number(tr.querySelector('.ms').dataset.ms)) && number(step.textContent);
}

// The button's aria-pressed becomes `want`: the HUD sets it on the frame after the panel opens
// or closes.
async function pressedBecomes(page, want) {
  await page.waitForFunction((w) => document.getElementById('profile-btn').getAttribute('aria-pressed') === w, want, { timeout: WAIT_MS });
}

describe('the step profile panel', { timeout: 4 * TEST_TIMEOUT_MS }, () => {
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

  it("shows every stage's mean ms per step, follows a pause and a step, and asks nothing once closed", { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors } = await openViewer(browser.browser, server);
    const metrics = trackMetrics(page);
    const button = page.locator('#profile-btn');
    assert.equal(await page.locator('#profile').isHidden(), true);
    await button.click();
    await page.locator('#profile').waitFor({ state: 'visible', timeout: WAIT_MS });
    await pressedBecomes(page, 'true');

    await page.waitForFunction(allStagesShown, STAGES, { timeout: WAIT_MS });
    await noteSays(page, /^mean of \d+ steps? in the last \d+\.\d s$/);
    const table = await page.evaluate(profileTable);
    assert.deepEqual(table.rows.map((r) => r.stage), STAGES);
    const subs = STAGES.filter((s) => s.includes('.'));
    assert.deepEqual(await page.locator('#profile-rows tr.sub').evaluateAll((trs) => trs.map((tr) => tr.dataset.stage)), subs, 'sub-stages indented under their stage');
    assert.ok(Number(table.step.ms) > 0, `the step's mean: ${JSON.stringify(table.step)}`);

    // Paused: no steps, said plainly; the figures of the steps before stay, dimmed.
    await page.locator('#pause-btn').click();
    await noteSays(page, 'paused: no steps in the last second (figures of the steps before)');
    assert.equal(await page.locator('#profile.stale').count(), 1);
    assert.ok(await page.evaluate(allStagesShown, STAGES), 'the figures went with the pause');
    // A step while paused is measured: its figures, no longer dimmed.
    await page.locator('#step-ticks').fill('30');
    await page.locator('#step-btn').click();
    await noteSays(page, /^mean of \d+ steps? in the last/);
    assert.equal(await page.locator('#profile.stale').count(), 0);
    assert.ok(await page.evaluate(allStagesShown, STAGES));
    await page.locator('#pause-btn').click(); // resume
    await page.waitForFunction(() => window.herd.paused === false, null, { timeout: WAIT_MS });

    await button.click();
    await page.locator('#profile').waitFor({ state: 'hidden', timeout: WAIT_MS });
    await pressedBecomes(page, 'false');
    const made = metrics.made;
    await ticksPass(page, 150); // 2.5 s
    assert.equal(metrics.made, made, 'the closed panel asked /metrics');
    assert.ok(made >= 3, `${made} requests`);
    assert.equal(metrics.maxInFlight, 1, 'two requests of /metrics at once');
    assert.equal(await page.locator('.toast').count(), 0);
    assert.deepEqual(pageErrors, []);
    await page.close();
  });

  it('says what /metrics answered instead, with no toast, and asks nothing while the page is hidden', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors } = await openViewer(browser.browser, server);
    const metrics = trackMetrics(page);
    let answer = { status: 403, body: 'forbidden\n' };
    await page.route('**/metrics', (route) => route.fulfill({ status: answer.status, contentType: 'text/plain', body: answer.body }));
    await page.locator('#profile-btn').click();
    await noteSays(page, 'no step profile: /metrics answered 403 Forbidden');
    assert.equal(await page.locator('#profile-rows tr').count(), 0);

    answer = { status: 200, body: '# TYPE herd_tick_duration_seconds histogram\nherd_tick_duration_seconds_sum 1\nherd_tick_duration_seconds_count 60\n' };
    await noteSays(page, "no step profile: this server's /metrics has no herd_step_stage_seconds (an older server?)");

    await page.unroute('**/metrics');
    await page.route('**/metrics', (route) => route.abort('connectionrefused'));
    await noteSays(page, /^no step profile: \/metrics did not answer \(.+\)$/);
    await page.unroute('**/metrics');

    // Hidden (as a tab in the background): no request; visible again: it asks again.
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    const made = metrics.made;
    await ticksPass(page, 150);
    assert.equal(metrics.made, made, 'a hidden page asked /metrics');
    const asked = page.waitForRequest((r) => new URL(r.url()).pathname === '/metrics', { timeout: WAIT_MS });
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await asked;
    assert.equal(metrics.maxInFlight, 1, 'two requests of /metrics at once');
    assert.equal(await page.locator('.toast').count(), 0, 'the panel toasted');
    assert.deepEqual(pageErrors, []);
    await page.close();
  });

  it('through a relay, says there is no profile here and asks nothing', { timeout: TEST_TIMEOUT_MS }, async () => {
    const relay = await startServer({ extraArgs: ['--relay', server.wsUrl] });
    try {
      const { page, pageErrors } = await openViewer(browser.browser, relay);
      await page.waitForFunction(() => document.getElementById('conn').textContent === 'connected via relay', null, { timeout: WAIT_MS });
      const metrics = trackMetrics(page);
      await page.locator('#profile-btn').click();
      await noteSays(page, 'no step profile here (relay)');
      await ticksPass(page, 90);
      assert.equal(metrics.made, 0, "a relay's page asked /metrics");
      assert.equal(await page.locator('#profile-rows tr').count(), 0);
      assert.deepEqual(pageErrors, []);
      await page.close();
    } finally {
      await relay.stop();
    }
  });
});
