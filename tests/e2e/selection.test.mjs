// Selection as in real-time strategy games (demo32, paused so that nothing moves under the mouse):
// Ctrl+A selects everyone, the number keys a group (Shift adds one), a double click the clicked
// agent's group on screen. And the inspector with many agents selected draws only the diagram of
// the agent under the cursor, or the first three, and says how many more there are (with 15 or
// more selected it used to draw them all over one another).

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer } from './lib/server.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';
import { emptyPoint } from './lib/page_probes.mjs';

const TEST_TIMEOUT_MS = 60_000;
const sorted = (ids) => [...ids].sort((a, b) => a - b);

describe('RTS selection and the inspector with many selected', { timeout: 4 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;
  let page;
  let canvasBox;
  let pageErrors;

  before(async () => {
    server = await startServer({ scenario: 'demo32' });
    browser = await launchBrowser();
    ({ page, canvasBox, pageErrors } = await openViewer(browser.browser, server));
    // Let the crowd spread a little, then freeze it.
    await page.waitForFunction(() => window.herd.tick > 60, null, { timeout: WAIT_MS });
    await page.keyboard.press('Space');
    await page.waitForFunction(() => window.herd.paused === true, null, { timeout: WAIT_MS });
    await page.waitForTimeout(300); // the last snapshots drawn: the view is still
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  const selected = () => page.evaluate(() => window.herd.selected);
  const groupIds = (g) => page.evaluate((grp) => window.herd.agents.filter((a) => a.group === grp).map((a) => a.id), g);

  it('Ctrl+A selects every agent; 1 selects group 1, Shift+2 adds group 2, Esc clears', { timeout: TEST_TIMEOUT_MS }, async () => {
    await page.keyboard.press('Control+a');
    const all = await page.evaluate(() => window.herd.agents.map((a) => a.id));
    assert.equal(all.length, 32);
    assert.deepEqual(sorted(await selected()), sorted(all));
    await page.locator('#selected', { hasText: /^32$/ }).waitFor({ timeout: WAIT_MS });
    // The page's text was not selected instead.
    assert.equal(await page.evaluate(() => String(window.getSelection())), '');

    const g1 = await groupIds(1);
    const g2 = await groupIds(2);
    assert.ok(g1.length > 0 && g2.length > 0, 'demo32 has groups 1 and 2');
    await page.keyboard.press('1');
    assert.deepEqual(sorted(await selected()), sorted(g1));
    await page.keyboard.press('Shift+2');
    assert.deepEqual(sorted(await selected()), sorted([...g1, ...g2]));
    await page.keyboard.press('Escape');
    assert.deepEqual(await selected(), []);
  });

  it('a double click selects the clicked agent\'s group, only the agents on screen', { timeout: TEST_TIMEOUT_MS }, async () => {
    // Zoom in on an agent until some of its group are off screen.
    const target = await page.evaluate(() => window.herd.agents[0]);
    let onScreen = null;
    let group = null;
    for (let zoom = 0; zoom < 8; zoom++) {
      const s = await page.evaluate(([x, y]) => window.herd.worldToScreen(x, y), [target.x, target.y]);
      await page.mouse.move(canvasBox.x + s.x, canvasBox.y + s.y);
      // The wheel event is dispatched without waiting for the page to handle it: wait until the
      // view has zoomed, so what is counted on screen is what the double click will see.
      const corner = await page.evaluate(() => JSON.stringify(window.herd.worldToScreen(0, 0)));
      await page.mouse.wheel(0, -400);
      await page
        .waitForFunction((before) => JSON.stringify(window.herd.worldToScreen(0, 0)) !== before, corner, { timeout: 2000 })
        .catch(() => {}); // at the zoom limit the view does not change: nothing to wait for
      await page.evaluate(() => new Promise(requestAnimationFrame));
      ({ onScreen, group } = await page.evaluate(
        ([id, w, h]) => {
          const me = window.herd.agents.find((a) => a.id === id);
          const ids = window.herd.agents
            .filter((a) => {
              const p = window.herd.worldToScreen(a.x, a.y);
              return a.group === me.group && p.x >= 0 && p.y >= 0 && p.x <= w && p.y <= h;
            })
            .map((a) => a.id);
          return { onScreen: ids, group: window.herd.agents.filter((a) => a.group === me.group).length };
        },
        [target.id, canvasBox.width, canvasBox.height],
      ));
      if (onScreen.length < group) break;
    }
    assert.ok(onScreen.length > 0 && onScreen.length < group, `zooming did not leave part of the group off screen (${onScreen.length} of ${group})`);
    const s = await page.evaluate(([x, y]) => window.herd.worldToScreen(x, y), [target.x, target.y]);
    await page.mouse.dblclick(canvasBox.x + s.x, canvasBox.y + s.y);
    await page.waitForFunction((n) => window.herd.selected.length === n, onScreen.length, { timeout: WAIT_MS });
    assert.deepEqual(sorted(await selected()), sorted(onScreen));
    await page.keyboard.press('Escape');
    await page.keyboard.press('f');
  });

  it('the inspector draws the agent under the cursor, else the first 3, and counts the rest', { timeout: TEST_TIMEOUT_MS }, async (t) => {
    await page.keyboard.press('Control+a');
    await page.keyboard.press('i');
    await page.waitForFunction(() => window.herd.inspected.length === 16, null, { timeout: WAIT_MS });
    // Paused: one tick by hand brings a snapshot with the 16 traces.
    await page.keyboard.press('.');
    await page.waitForFunction(() => window.herd.traced.length === 16, null, { timeout: WAIT_MS });
    const inspected = await page.evaluate(() => window.herd.inspected);
    // Off the agents: the first three.
    const ground = await page.evaluate(emptyPoint);
    await page.mouse.move(canvasBox.x + ground.sx, canvasBox.y + ground.sy);
    await page.waitForFunction(
      (first) => JSON.stringify(window.herd.inspect.map((t) => t.id)) === JSON.stringify(first),
      inspected.slice(0, 3),
      { timeout: WAIT_MS },
    );
    const note = await page.locator('#legend-note').textContent();
    t.diagnostic(`legend: ${note}`);
    assert.match(note, /\+29 more/);
    assert.match(note, /first 16 selected/);
    // Over the eleventh: its diagram alone.
    const pick = inspected[10];
    const a = await page.evaluate((id) => window.herd.agents.find((b) => b.id === id), pick);
    const s = await page.evaluate(([x, y]) => window.herd.worldToScreen(x, y), [a.x, a.y]);
    await page.mouse.move(canvasBox.x + s.x, canvasBox.y + s.y);
    await page.waitForFunction((id) => JSON.stringify(window.herd.inspect.map((t) => t.id)) === JSON.stringify([id]), pick, {
      timeout: WAIT_MS,
    });
    assert.match(await page.locator('#legend-note').textContent(), new RegExp(`^drawn: ${pick} · \\+31 more`));
    await page.keyboard.press('i');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Space'); // resume
    await page.waitForFunction(() => window.herd.paused === false, null, { timeout: WAIT_MS });
    assert.deepEqual(pageErrors, []);
  });
});
