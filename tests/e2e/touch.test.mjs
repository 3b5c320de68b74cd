// A phone, 390 x 844 with a touch screen (demo32, paused so that nothing moves under a finger): a
// tap on an agent selected it, but no order could be given. Now a tap on the ground sends the
// selection there, a long press on the ground clears it, one finger dragged pans the view, two
// fingers pinch it about the point between them, and the demo's moves are buttons under the map.
// A phone had no attack-move, patrol or stop either: they are buttons too, each giving its order
// (attack-move and patrol at the next tap on the ground); and a long press on another agent opens
// the menu of what the selection can do to it, as Alt + right-click does with a mouse.
// The touches are the browser's own (the DevTools protocol's Input.dispatchTouchEvent, which the
// page sees as pointer events of type touch), several fingers at once where a pinch needs them.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startServer } from './lib/server.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';
import { screenshot } from './lib/scene.mjs';
import { isolatedAgent, emptyPoint } from './lib/page_probes.mjs';
import { cutTexts } from './lib/layout_probes.mjs';

const TEST_TIMEOUT_MS = 60_000;
const WIDTH = 390;
const HEIGHT = 844;
const outDir = process.env.HERD_E2E_OUT || mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-out-'));

// The view in the page: its scale (CSS pixels a unit) and the world point at the canvas's centre.
function camera() {
  const h = window.herd;
  const c = document.getElementById('world');
  const o = h.worldToScreen(0, 0);
  return { scale: h.worldToScreen(1, 0).x - o.x, centre: h.screenToWorld(c.clientWidth / 2, c.clientHeight / 2) };
}

describe('touch on a phone, 390 x 844', { timeout: 6 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;
  let scene;
  let cdp;
  let markId = 5_000_000;

  before(async () => {
    server = await startServer({ scenario: 'demo32' });
    browser = await launchBrowser();
    const viewer = await openViewer(browser.browser, server, { width: WIDTH, height: HEIGHT, touch: true });
    scene = { server, ...viewer };
    cdp = await scene.page.context().newCDPSession(scene.page);
    // Let the crowd spread a little, then freeze it.
    await scene.page.waitForFunction(() => window.herd.tick > 60, null, { timeout: WAIT_MS });
    await scene.page.keyboard.press('Space');
    await scene.page.waitForFunction(() => window.herd.paused === true, null, { timeout: WAIT_MS });
    await scene.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  // Fingers on the page: each step a list of points (page CSS pixels, one per finger, the same
  // fingers throughout) moved to in turn; the first step touches, the last lifts. `seconds`: the
  // time the gesture takes, carried by the events' timestamps (no waiting).
  async function gesture(steps, { seconds = 0.2 } = {}) {
    const t0 = Date.now() / 1000;
    const at = (i) => t0 + (seconds * i) / Math.max(1, steps.length - 1);
    const points = (pts) => pts.map((p, id) => ({ x: p.x, y: p.y, id, radiusX: 4, radiusY: 4, force: 1 }));
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: points(steps[0]), timestamp: at(0) });
    for (let i = 1; i < steps.length; i++) {
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: points(steps[i]), timestamp: at(i) });
    }
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [], timestamp: at(steps.length - 1) });
    await scene.page.evaluate(() => new Promise(requestAnimationFrame));
  }
  const page = () => scene.page;
  const onPage = (p) => ({ x: scene.canvasBox.x + p.sx, y: scene.canvasBox.y + p.sy });

  // Every frame the page sent so far is in `sent` once a ping sent now is.
  async function allSent() {
    const id = ++markId;
    await page().evaluate((i) => window.herd.sendRaw(JSON.stringify({ type: 'ping', id: i })), id);
    await scene.sent.find((m) => m.type === 'ping' && m.id === id, WAIT_MS, `ping ${id}`);
  }
  const orders = () => scene.sent.frames.filter((m) => m.cmd === 'set_target').length;

  it('the phone is a touch screen, and the demo buttons and the lines round the map fit it', { timeout: TEST_TIMEOUT_MS }, async (t) => {
    assert.equal(await page().evaluate(() => matchMedia('(pointer: coarse)').matches), true);
    const buttons = await page().locator('#touchbar button').allTextContents();
    assert.deepEqual(buttons, ['attack-move', 'patrol', 'stop', 'circle', 'switch', 'cross', 'blocks', 'lines']);
    for (const b of await page().locator('#touchbar button').all()) {
      const box = await b.boundingBox();
      assert.ok(box.x >= 0 && box.x + box.width <= WIDTH && box.y + box.height <= HEIGHT, `a touch bar button is off screen: ${JSON.stringify(box)}`);
    }
    assert.deepEqual(await page().evaluate(cutTexts, ['#touchbar', '#footbar']), []);
    // The hint names the gestures, not the mouse's buttons.
    assert.match(await page().locator('#hint').textContent(), /^tap: select/);
    await screenshot(scene, outDir, 'touch_390x844.png', t);
  });

  it('a tap on an agent selects it; a tap on the ground sends it there', { timeout: TEST_TIMEOUT_MS }, async () => {
    const agent = await page().evaluate(isolatedAgent);
    await page().touchscreen.tap(onPage(agent).x, onPage(agent).y);
    await page().waitForFunction((id) => JSON.stringify(window.herd.selected) === JSON.stringify([id]), agent.id, { timeout: WAIT_MS });
    // A tap does not clear or box-select through the mouse's path: still only that agent.
    await allSent();
    assert.equal(orders(), 0, 'selecting sent an order');

    const ground = await page().evaluate(emptyPoint, { awayFrom: agent, minDist: 100 });
    assert.ok(ground && ground.clearance > 10, `no free ground to tap: ${JSON.stringify(ground)}`);
    await page().touchscreen.tap(onPage(ground).x, onPage(ground).y);
    const order = await scene.sent.find((m) => m.cmd === 'set_target', WAIT_MS, 'set_target');
    assert.deepEqual(order.agents, [agent.id]);
    assert.ok(Math.abs(order.target.x - ground.x) < 0.01 && Math.abs(order.target.y - ground.y) < 0.01, JSON.stringify(order.target));
    assert.deepEqual(await page().evaluate(() => window.herd.selected), [agent.id], 'the order kept the selection');
    // Paused: one tick brings the snapshot that has the agent heading there.
    await page().keyboard.press('.');
    await page().waitForFunction(
      ({ id, x, y }) => {
        const a = window.herd.snapshotAgents.find((b) => b.id === id);
        return a && Math.abs(a.tx - x) < 0.01 && Math.abs(a.ty - y) < 0.01;
      },
      { id: agent.id, x: ground.x, y: ground.y },
      { timeout: WAIT_MS },
    );
  });

  it('a long press on the ground clears the selection, and sends nothing', { timeout: TEST_TIMEOUT_MS }, async () => {
    assert.ok((await page().evaluate(() => window.herd.selected)).length > 0);
    const before = orders();
    const ground = await page().evaluate(emptyPoint);
    await gesture([[onPage(ground)], [onPage(ground)]], { seconds: 0.8 });
    await page().waitForFunction(() => window.herd.selected.length === 0, null, { timeout: WAIT_MS });
    await allSent();
    assert.equal(orders(), before, 'a long press sent an order');
  });

  it('one finger dragged pans the view with it, and selects or sends nothing', { timeout: TEST_TIMEOUT_MS }, async () => {
    const agent = await page().evaluate(isolatedAgent);
    await page().touchscreen.tap(onPage(agent).x, onPage(agent).y);
    await page().waitForFunction((id) => window.herd.selected.includes(id), agent.id, { timeout: WAIT_MS });
    const before = await page().evaluate(camera);
    const beforeOrders = orders();
    const start = onPage(await page().evaluate(emptyPoint));
    const dx = 60;
    const dy = 90;
    const steps = [];
    for (let i = 0; i <= 6; i++) steps.push([{ x: start.x + (dx * i) / 6, y: start.y + (dy * i) / 6 }]);
    await gesture(steps);
    const after = await page().evaluate(camera);
    assert.ok(Math.abs(after.scale - before.scale) < 1e-9, 'a drag zoomed');
    // The world moves with the finger: the centre's world point moves the other way.
    assert.ok(Math.abs(after.centre.x - (before.centre.x - dx / before.scale)) < 0.5 / before.scale, `x: ${JSON.stringify({ before, after })}`);
    assert.ok(Math.abs(after.centre.y - (before.centre.y - dy / before.scale)) < 0.5 / before.scale, `y: ${JSON.stringify({ before, after })}`);
    assert.deepEqual(await page().evaluate(() => window.herd.selected), [agent.id], 'a drag changed the selection');
    await allSent();
    assert.equal(orders(), beforeOrders, 'a drag sent an order');
  });

  it('two fingers pinch the view about the point between them', { timeout: TEST_TIMEOUT_MS }, async () => {
    const before = await page().evaluate(camera);
    const box = scene.canvasBox;
    const mid = { x: Math.round(box.x + box.width * 0.4), y: Math.round(box.y + box.height * 0.55) };
    const midWorld = await page().evaluate(([x, y]) => window.herd.screenToWorld(x, y), [mid.x - box.x, mid.y - box.y]);
    const steps = [];
    for (let i = 0; i <= 8; i++) {
      const half = 40 + (40 * i) / 8; // the fingers 80 px apart, then 160: twice the scale
      steps.push([
        { x: mid.x - half, y: mid.y },
        { x: mid.x + half, y: mid.y },
      ]);
    }
    await gesture(steps);
    const after = await page().evaluate(camera);
    const ratio = after.scale / before.scale;
    assert.ok(Math.abs(ratio - 2) < 0.02, `the scale went ${before.scale} -> ${after.scale} (x${ratio.toFixed(3)})`);
    // The world point between the fingers stayed between them.
    const still = await page().evaluate(([x, y]) => window.herd.worldToScreen(x, y), [midWorld.x, midWorld.y]);
    assert.ok(Math.hypot(still.x - (mid.x - box.x), still.y - (mid.y - box.y)) < 1, `the pinch's centre moved: ${JSON.stringify(still)}`);
    await page().keyboard.press('f'); // fitted again for what follows
  });

  // A tap at the middle of the touch bar's button for `order` ('attack_move', 'patrol', 'stop').
  async function tapOrder(order) {
    const b = await page().locator(`#touch-orders button[data-order="${order}"]`).boundingBox();
    await page().touchscreen.tap(b.x + b.width / 2, b.y + b.height / 2);
  }
  // The button shows whether its order is armed (drawn at the next frame).
  const shownPressed = (order, on) => page().locator(`#touch-orders button[data-order="${order}"][aria-pressed="${on}"]`).waitFor({ timeout: WAIT_MS });

  it('the attack-move, patrol and stop buttons give their orders to the selection', { timeout: TEST_TIMEOUT_MS }, async () => {
    const agent = await page().evaluate(isolatedAgent);
    await page().touchscreen.tap(onPage(agent).x, onPage(agent).y);
    await page().waitForFunction((id) => JSON.stringify(window.herd.selected) === JSON.stringify([id]), agent.id, { timeout: WAIT_MS });
    const ground = await page().evaluate(emptyPoint, { awayFrom: agent, minDist: 100 });
    assert.ok(ground && ground.clearance > 10, `no free ground to tap: ${JSON.stringify(ground)}`);
    const near = (p, q) => Math.abs(p.x - q.x) < 0.01 && Math.abs(p.y - q.y) < 0.01;

    // Attack-move: the button arms it (pressed), the next tap on the ground gives it there.
    await tapOrder('attack_move');
    await page().waitForFunction(() => window.herd.armed?.kind === 'attack_move', null, { timeout: WAIT_MS });
    await shownPressed('attack_move', true);
    await page().touchscreen.tap(onPage(ground).x, onPage(ground).y);
    const am = await scene.sent.find((m) => m.cmd === 'attack_move', WAIT_MS, 'attack_move');
    assert.deepEqual(am.agents, [agent.id]);
    assert.ok(near(am.target, ground), JSON.stringify(am.target));
    await page().waitForFunction((seq) => window.herd.lastAck?.seq === seq, am.seq, { timeout: WAIT_MS });
    await shownPressed('attack_move', false);
    assert.ok((await scene.toastsShown()).some((t) => /^attack-move: 1 agent to /.test(t.text)), 'the attack-move was not said');

    // Patrol: the same, there and back. (The attack-move's message under the map left the map's
    // size, and so the ground's place, as they were.)
    await tapOrder('patrol');
    await page().waitForFunction(() => window.herd.armed?.kind === 'patrol', null, { timeout: WAIT_MS });
    await page().touchscreen.tap(onPage(ground).x, onPage(ground).y);
    const patrol = await scene.sent.find((m) => m.cmd === 'patrol', WAIT_MS, 'patrol');
    assert.deepEqual(patrol.agents, [agent.id]);
    assert.ok(near(patrol.target, ground), JSON.stringify(patrol.target));
    await page().waitForFunction((seq) => window.herd.lastAck?.seq === seq, patrol.seq, { timeout: WAIT_MS });

    // Stop: at once, on the selection.
    await tapOrder('stop');
    const stop = await scene.sent.find((m) => m.cmd === 'stop', WAIT_MS, 'stop');
    assert.deepEqual(stop.agents, [agent.id]);
    await page().waitForFunction((seq) => window.herd.lastAck?.seq === seq, stop.seq, { timeout: WAIT_MS });
    assert.deepEqual(await page().evaluate(() => window.herd.selected), [agent.id], 'the orders kept the selection');
  });

  it('a long press on another agent opens the menu of what the selection can do to it, which also adds it', { timeout: TEST_TIMEOUT_MS }, async () => {
    const [first] = await page().evaluate(() => window.herd.selected);
    assert.ok(first !== undefined, 'nothing selected');
    const other = await page().evaluate(isolatedAgent, { exclude: [first] });
    assert.ok(other && other.id !== first, 'no other agent to press');
    await gesture([[onPage(other)], [onPage(other)]], { seconds: 0.8 });
    const menu = page().locator('#context-menu');
    await menu.waitFor({ state: 'visible', timeout: WAIT_MS });
    assert.equal(await menu.getAttribute('data-target'), `agent:${other.id}`);
    const items = await menu.locator('button[role="menuitem"]').allTextContents();
    assert.equal(items[0], 'add to the selection');
    assert.ok(items.includes('attack') && items.includes('follow'), items.join(', '));
    await menu.locator('button[data-action="add to the selection"]').tap();
    await menu.waitFor({ state: 'hidden', timeout: WAIT_MS });
    await page().waitForFunction(
      (ids) => JSON.stringify([...window.herd.selected].sort((a, b) => a - b)) === JSON.stringify(ids),
      [first, other.id].sort((a, b) => a - b),
      { timeout: WAIT_MS },
    );
  });

  it('a demo button sends its move, on the selection', { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const selected = await page().evaluate(() => window.herd.selected);
    const circle = await page().locator('#touchbar button[data-key="R"]').boundingBox();
    await page().touchscreen.tap(circle.x + circle.width / 2, circle.y + circle.height / 2);
    const move = await scene.sent.find((m) => m.cmd === 'formation' && m.shape === 'circle', WAIT_MS, 'formation circle');
    assert.deepEqual(move.agents, selected.length > 0 ? selected : 'all');
    await page().waitForFunction((seq) => window.herd.lastAck?.seq === seq, move.seq, { timeout: WAIT_MS });
    await screenshot(scene, outDir, 'touch_390x844_circle.png', t);
    assert.deepEqual(scene.pageErrors, []);
  });
});
