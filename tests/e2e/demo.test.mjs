// End-to-end: the formation demo's keys ("Accidents Do Happen": R B T G B P B) in the viewer, on
// the scenario `demo32` (the demo's 32 entities on a ring). Each key sends one formation or demo
// move on the selection, or on everyone when nothing is selected, around the centre of the world; a
// second client checks what the agents then do, and the status bar follows the formation.
//
// Env as in viewer.test.mjs. Screenshots go to HERD_E2E_OUT (default a fresh temporary directory).

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, WAIT_MS } from './lib/browser.mjs';
import { openScene, screenshot, clickWorld } from './lib/scene.mjs';

const TEST_TIMEOUT_MS = 60_000;
// 32 agents cross the world at 120 units/s and settle; a loaded machine may stretch that.
const FORM_MS = 20_000;

describe("the formation demo's keys (demo32)", { timeout: 4 * TEST_TIMEOUT_MS }, () => {
  let browser;
  let scene;
  let watcher;
  let centre;
  const outDir = process.env.HERD_E2E_OUT || mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-out-'));

  before(async () => {
    browser = await launchBrowser();
    scene = await openScene(browser.browser, 'demo32');
    watcher = await ProtocolClient.connect(scene.server.wsUrl, { role: 'viewer' });
    const { width, height } = watcher.welcome.world;
    centre = { x: width / 2, y: height / 2 };
  });
  after(async () => {
    watcher?.close();
    await scene?.close();
    await browser?.close();
  });

  // Presses `key` and waits for the page's command to be acked; resolves to {sent, ack}.
  async function pressDemoKey(key) {
    const { page } = scene;
    const before = await page.evaluate(() => window.herd.lastAck?.seq ?? null);
    await page.keyboard.press(key);
    await page.waitForFunction((s) => (window.herd.lastAck?.seq ?? null) !== s || window.herd.lastError?.seq > s, before, { timeout: WAIT_MS });
    const { sent, ack, error } = await page.evaluate(() => ({
      sent: window.herd.lastCommand,
      ack: window.herd.lastAck,
      error: window.herd.lastError,
    }));
    assert.ok(ack && ack.seq !== before, `${key}: no ack; error ${JSON.stringify(error)}`);
    assert.equal(typeof ack.formation, 'number', `${key}: the ack carries no formation: ${JSON.stringify(ack)}`);
    return { sent, ack };
  }

  // The next snapshot (second client) in which formation `id` is complete and `check(snapshot)`.
  const formed = (id, what, check = () => true) =>
    watcher.next((m) => m.type === 'snapshot' && m.formations?.some((f) => f.id === id && f.complete) && check(m), FORM_MS, what);

  const meanX = (snap, group) => {
    const list = snap.agents.filter((a) => a.group === group);
    return list.reduce((s, a) => s + a.x, 0) / list.length;
  };

  // Waits until the status bar's formation field is visible and its text matches `pattern` (a
  // RegExp source); fails with the text it last had.
  async function statusSays(pattern, timeout = FORM_MS) {
    const ok = await scene.page
      .waitForFunction(
        (p) => {
          const field = document.getElementById('formation-field');
          return !field.hidden && new RegExp(`^${p}$`).test(document.getElementById('formation').textContent);
        },
        pattern,
        { timeout },
      )
      .then(() => true, () => false);
    if (!ok) {
      const now = await scene.page.evaluate(() => ({
        hidden: document.getElementById('formation-field').hidden,
        text: document.getElementById('formation').textContent,
        formations: window.herd.formations,
        lastAck: window.herd.lastAck,
      }));
      assert.fail(`the status bar does not say /${pattern}/: ${JSON.stringify(now)}`);
    }
  }

  it('R: everyone forms a circle round the centre of the world', { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const { sent, ack } = await pressDemoKey('R');
    assert.deepEqual(sent, { cmd: 'formation', agents: 'all', shape: 'circle', centre, assignment: 'optimal' });
    assert.equal(ack.count, 32);
    // The second client sees the formation, then the agents on one circle: every distance to the
    // centre within a few units of the others.
    await watcher.next((m) => m.type === 'snapshot' && m.formations?.some((f) => f.id === ack.formation), WAIT_MS, `formation ${ack.formation} in a snapshot`);
    const snap = await formed(ack.formation, `formation ${ack.formation} complete`);
    const radii = snap.agents.map((a) => Math.hypot(a.x - centre.x, a.y - centre.y));
    const mean = radii.reduce((s, r) => s + r, 0) / radii.length;
    assert.ok(mean > 50, `the circle has radius ${mean.toFixed(1)}`);
    assert.ok(
      radii.every((r) => Math.abs(r - mean) <= 3),
      `agents are not on one circle of radius ${mean.toFixed(1)}: ${radii.map((r) => r.toFixed(1)).join(' ')}`,
    );
    await statusSays(`formation ${ack.formation}: complete`);
    await screenshot(scene, outDir, 'demo32_circle.png', t);
  });

  it('B after R: the agents switch places at random', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { sent, ack } = await pressDemoKey('B');
    assert.deepEqual(sent, { cmd: 'swap_places', agents: 'all' });
    assert.equal(ack.count, 32);
    // The status bar follows the new formation while it forms.
    await statusSays(`formation ${ack.formation}: (\\d+/32 arrived|complete)`, WAIT_MS);
  });

  it('G, then B: two blocks, which exchange sides', { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const g = await pressDemoKey('G');
    assert.deepEqual(g.sent, { cmd: 'formation', agents: 'all', shape: 'block', centre, count: 2, regroup: true });
    // All but at most two arrived (a straggler may jostle round its slot for a long time).
    const blocks = await watcher.next(
      (m) => m.type === 'snapshot' && m.formations?.some((f) => f.id === g.ack.formation && f.arrived >= 30),
      FORM_MS,
      `30 of 32 in blocks (formation ${g.ack.formation})`,
    );
    // regroup: two groups of 16, one block each, on either side of the centre.
    assert.deepEqual([0, 1].map((gr) => blocks.agents.filter((a) => a.group === gr).length), [16, 16]);
    const left0 = meanX(blocks, 0) - centre.x;
    const left1 = meanX(blocks, 1) - centre.x;
    assert.ok(Math.abs(left0) > 50 && Math.sign(left0) === -Math.sign(left1), `blocks at x ${meanX(blocks, 0)}, ${meanX(blocks, 1)}`);
    await statusSays(`formation ${g.ack.formation}: (3[0-2]/32 arrived|complete)`, WAIT_MS);
    await screenshot(scene, outDir, 'demo32_blocks.png', t);

    const b = await pressDemoKey('B');
    assert.deepEqual(b.sent, { cmd: 'exchange', agents: 'all' });
    // Each group ends where the other was: group 0's mean x mirrored through the centre. Not
    // waiting for `complete`: in a 32-agent crossing one agent can jostle round its slot for many
    // seconds after the groups have traded sides.
    const swapped = await watcher.next(
      (m) => m.type === 'snapshot' && Math.abs(meanX(m, 0) - (centre.x - left0)) < 10 && Math.abs(meanX(m, 1) - (centre.x - left1)) < 10,
      FORM_MS,
      `group 0 at x ${(centre.x - left0).toFixed(1)} and group 1 at x ${(centre.x - left1).toFixed(1)}, each on the other's side`,
    );
    assert.ok(swapped.formations.some((f) => f.id === b.ack.formation), 'the exchange is not reported as a formation');
    await statusSays(`formation ${b.ack.formation}: (\\d+/32 arrived|complete)`, WAIT_MS);
  });

  it('P, then B: two vertical lines, then invert; on the selection when there is one', { timeout: TEST_TIMEOUT_MS }, async () => {
    const p = await pressDemoKey('P');
    assert.deepEqual(p.sent, {
      cmd: 'formation',
      agents: 'all',
      shape: 'lines',
      centre,
      orientation: 'vertical',
      count: 2,
      regroup: true,
      assignment: 'keep_order',
    });
    // Two vertical lines: at least 14 of each group's 16 at one x (one may still jostle round its
    // slot long after the rest have arrived).
    const lineXs = (m) =>
      [0, 1].map((gr) => {
        const xs = m.agents.filter((a) => a.group === gr).map((a) => a.x).sort((u, v) => u - v);
        const median = xs[xs.length >> 1];
        return xs.filter((x) => Math.abs(x - median) < 3).length >= 14 ? median : null;
      });
    const lines = await watcher.next(
      (m) => m.type === 'snapshot' && m.formations?.some((f) => f.id === p.ack.formation) && lineXs(m).every((x) => x !== null),
      FORM_MS,
      `two vertical lines (formation ${p.ack.formation})`,
    );
    const [x0, x1] = lineXs(lines);
    assert.ok(Math.abs(x0 - x1) > 20, `the two lines are at x ${x0}, ${x1}`);

    // Two agents selected: B (after P: invert) goes to them alone.
    const [a, b] = lines.agents.filter((x) => x.group === 0 && x.state === 'arrived').slice(0, 2);
    await clickWorld(scene, a.x, a.y);
    await clickWorld(scene, b.x, b.y, { shift: true });
    await scene.page.waitForFunction(([i, j]) => JSON.stringify(window.herd.selected) === JSON.stringify([i, j]), [a.id, b.id], { timeout: WAIT_MS });
    const inv = await pressDemoKey('B');
    assert.deepEqual(inv.sent, { cmd: 'invert', agents: [a.id, b.id] });
    assert.equal(inv.ack.count, 2);
    await scene.page.keyboard.press('Escape');
  });

  it('the page threw no uncaught exception', () => {
    assert.deepEqual(scene.pageErrors, []);
  });
});
