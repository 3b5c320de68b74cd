// The page from 800 x 600 to 1920 x 1080: every control of the status bar and the scenario bar is
// inside the window, not covered by anything (the element at its centre is itself), and takes a
// click; the help panel stays inside the stage and scrolls when it is taller. At 1280 px the bar
// used to overflow and hide "fit" and "?"; at 800 x 600 the help was 1,062 px tall and could not
// scroll.
//
// No text is cut: every text shown in the bars, the line under the map and the open panels is
// measured against its boxes (lib/layout_probes.mjs cutTexts: its element's box, every clipping
// box round it, an ellipsis, the window). The hint used to end in "right-cl…" at 1280 px.
// And what the page shows beside the world does not cover it: with the view fitted (F), the world
// as drawn meets none of the toasts, the cursor's point, the line under the map, the inspector's
// legend and the minimap (they used to cover it: toasts at the bottom centre, the legend at the
// bottom left). The help is opened to be read, and floats; the agent panel and the profile dock
// beside the world too (the docked panels' own tests, below, zoom in as well).
// Screenshots of the three sizes go to HERD_E2E_OUT (layout_WxH.png, _panels.png, _help.png).

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startServer } from './lib/server.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';
import { cutTexts, coveringWorld, panelsAndWorld } from './lib/layout_probes.mjs';
import { isolatedAgent } from './lib/page_probes.mjs';

const TEST_TIMEOUT_MS = 60_000;
const SIZES = [
  [800, 600],
  [1280, 800],
  [1920, 1080],
];
// Every control of the two bars that a page on a world without a tile map shows.
const CONTROLS = [
  '#goals-btn',
  '#inspect-btn',
  '#fit-btn',
  '#minimap-btn',
  '#profile-btn',
  '#help-btn',
  '#scenario-pick',
  '#pause-btn',
  '#step-btn',
  '#step-ticks',
  '#reset-btn',
  '#tick-rate',
  '#snapshot-rate',
];
// And the fields they sit among.
const FIELDS = ['#conn', '#tick', '#count', '#selected', '#avoidance', '#rtt', '#snaps', '#bytes', '#dropped'];
// Where the page has text: the two bars, the line under the map, the open panels.
const TEXT_ROOTS = ['#status', '#scenario-bar', '#footbar', '#touchbar', '.panel:not([hidden])'];
// What must leave the fitted world uncovered.
const BESIDE_WORLD = ['#legend', '#minimap-box', '#toasts .toast', '#cursor-pos', '#footbar', '#touchbar'];

// Two animation frames: what the last input changed is laid out and drawn.
const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

async function pageScreenshot(page, outDir, name, t) {
  mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, name);
  await page.screenshot({ path: file });
  t.diagnostic(`screenshot: ${file}`);
}

// In the page: for each selector, its box, whether the box is wholly inside the window, and
// whether the element at the box's centre is the element or inside it (nothing covers it).
function visibility(selectors) {
  return selectors.map((sel) => {
    const el = document.querySelector(sel);
    if (!el) return { sel, found: false };
    const r = el.getBoundingClientRect();
    const inside = r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return {
      sel,
      found: true,
      box: [Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom)],
      inside,
      onTop: hit !== null && (hit === el || el.contains(hit)),
      hit: hit ? `${hit.tagName}#${hit.id}` : null,
    };
  });
}

describe('layout from 800 x 600 to 1920 x 1080', { timeout: 4 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;
  const outDir = process.env.HERD_E2E_OUT || mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-out-'));

  before(async () => {
    server = await startServer({ scenario: 'demo32' });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const [width, height] of SIZES) {
    it(`${width} x ${height}: every control is on screen, uncovered and clickable`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
      const { page, pageErrors } = await openViewer(browser.browser, server, { width, height });
      try {
        const seen = await page.evaluate(visibility, [...CONTROLS, ...FIELDS]);
        for (const v of seen) {
          assert.ok(v.found, `${v.sel} is missing`);
          assert.ok(v.inside, `${v.sel} is not inside the ${width} x ${height} window: ${JSON.stringify(v.box)}`);
          assert.ok(v.onTop, `${v.sel} is covered by ${v.hit} at its centre`);
        }
        // The canvas keeps most of the window.
        const canvas = await page.locator('#world').boundingBox();
        assert.ok(canvas.height >= 0.6 * height, `the canvas has ${canvas.height} of ${height} px`);
        // Each control takes a click where a user would click it (a trial click: the browser's
        // own checks that it is visible, stable, enabled and receives the event), and the ones
        // that change nothing on the server are clicked for real.
        for (const sel of CONTROLS) {
          if (await page.locator(sel).isDisabled()) continue; // step, while the world runs
          await page.locator(sel).click({ trial: true, timeout: 2000 });
        }
        await page.locator('#fit-btn').click();
        await page.locator('#goals-btn').click();
        await page.waitForFunction(() => window.herd.allGoals === true, null, { timeout: WAIT_MS });
        await page.locator('#goals-btn').click();
        assert.deepEqual(await page.evaluate(cutTexts, TEXT_ROOTS), [], `text cut at ${width} x ${height}`);
        // The hint shows whole parts, as many as fit, and at least the first.
        const hint = await page.locator('#hint').textContent();
        assert.match(hint, /^H: keys( · [^·]+)*$/, `the hint: "${hint}"`);
        t.diagnostic(`hint: ${hint}`);
        await pageScreenshot(page, outDir, `layout_${width}x${height}.png`, t);

        // Everything open at once: the agent panel (everyone selected), the legend (I), the
        // minimap (N), a toast (an error from the server) and the cursor's point over the world.
        await page.keyboard.press('Control+a');
        await page.keyboard.press('i');
        await page.keyboard.press('n');
        await page.evaluate(() => window.herd.sendRaw('{'));
        await page.locator('.toast', { hasText: 'bad_json' }).waitFor({ state: 'visible', timeout: WAIT_MS });
        await page.keyboard.press('f');
        await page.locator('#legend').waitFor({ state: 'visible', timeout: WAIT_MS });
        await page.locator('#minimap-box').waitFor({ state: 'visible', timeout: WAIT_MS });
        await frames(page);
        const world = await page.evaluate(() => {
          const h = window.herd;
          return { a: h.worldToScreen(0, 0), b: h.worldToScreen(h.world.width, h.world.height) };
        });
        const canvas0 = await page.locator('#world').boundingBox();
        await page.mouse.move(canvas0.x + (world.a.x + world.b.x) / 2, canvas0.y + (world.a.y + world.b.y) / 2);
        await page.locator('#cursor-pos[data-over="true"]').waitFor({ timeout: WAIT_MS });
        await frames(page);
        assert.deepEqual(await page.evaluate(cutTexts, TEXT_ROOTS), [], `text cut at ${width} x ${height}, panels open`);
        assert.deepEqual(await page.evaluate(coveringWorld, BESIDE_WORLD), [], `covering the world at ${width} x ${height}`);
        await pageScreenshot(page, outDir, `layout_${width}x${height}_panels.png`, t);
        await page.locator('#profile-btn').click();
        await page.locator('#profile').waitFor({ state: 'visible', timeout: WAIT_MS });
        await frames(page);
        assert.deepEqual(await page.evaluate(cutTexts, ['#profile']), [], `the profile's text cut at ${width} x ${height}`);
        await page.locator('#profile-btn').click();
        await page.keyboard.press('Escape'); // the selection
        await page.keyboard.press('i');
        await page.keyboard.press('n');
        await page.locator('#dock').waitFor({ state: 'hidden', timeout: WAIT_MS });

        // The help: inside the stage, and when taller than it, it scrolls to its last line.
        await page.locator('#help-btn').click();
        await page.locator('#help').waitFor({ state: 'visible', timeout: WAIT_MS });
        const help = await page.evaluate(() => {
          const el = document.getElementById('help');
          const stage = document.getElementById('stage').getBoundingClientRect();
          const r = el.getBoundingClientRect();
          return {
            inside: r.top >= stage.top - 0.5 && r.bottom <= stage.bottom + 0.5 && r.left >= 0 && r.right <= innerWidth,
            box: [r.left, r.top, r.right, r.bottom],
            stage: [stage.left, stage.top, stage.right, stage.bottom],
            scrollHeight: el.scrollHeight,
            clientHeight: el.clientHeight,
          };
        });
        assert.ok(help.inside, `the help ${JSON.stringify(help.box)} leaves the stage ${JSON.stringify(help.stage)}`);
        if (help.scrollHeight > help.clientHeight + 1) {
          // The wheel over it scrolls it (it takes the pointer), down to its last entry.
          const box = await page.locator('#help').boundingBox();
          await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
          for (let i = 0; i < 40; i++) await page.mouse.wheel(0, 200);
          await page.waitForFunction(
            () => {
              const el = document.getElementById('help');
              return el.scrollTop + el.clientHeight >= el.scrollHeight - 1;
            },
            null,
            { timeout: WAIT_MS },
          );
          const last = await page.evaluate(visibility, ['#help section:last-of-type dl:last-of-type dd:last-of-type']);
          assert.ok(last[0].inside && last[0].onTop, `the help's last line is not reachable: ${JSON.stringify(last[0])}`);
          t.diagnostic(`help: ${help.scrollHeight} px of content in ${help.clientHeight} px, scrolled to the end`);
        }
        if (width === 800) assert.ok(help.scrollHeight > help.clientHeight, 'at 800 x 600 the help should need to scroll');
        assert.deepEqual(await page.evaluate(cutTexts, ['#help']), [], `the help's text cut at ${width} x ${height}`);
        await pageScreenshot(page, outDir, `layout_${width}x${height}_help.png`, t);
        await page.keyboard.press('Escape');
        await page.locator('#help').waitFor({ state: 'hidden', timeout: WAIT_MS });
        assert.deepEqual(pageErrors, []);
      } finally {
        await page.close();
      }
    });
  }
});

// The panels beside the map never cover the world: the selection's table (it used to float over
// the top right of the map, units and order markers under it), the step profile (bottom right),
// the legends and the minimap sit in docks beside it, the fitted world shrinks to fit beside them,
// and zoomed in, nothing of the world is drawn under them (the canvas there is the colour outside
// the world). Measured with everything open at once at each size.
describe('the docked panels beside the world', { timeout: 4 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;
  const DOCKED = ['#agent-panel', '#profile', '#legend', '#heat-legend', '#minimap-box'];
  const outDir = process.env.HERD_E2E_OUT || mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-out-'));

  before(async () => {
    server = await startServer({ scenario: 'demo32' });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const [width, height] of SIZES) {
    it(`${width} x ${height}: no panel meets the world as drawn, fitted or zoomed in`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
      const { page, pageErrors } = await openViewer(browser.browser, server, { width, height });
      try {
        await page.keyboard.press('Control+a'); // the selection's table
        await page.keyboard.press('i'); // the inspector's legend
        await page.keyboard.press('n'); // the minimap
        await page.keyboard.press('d'); // the heat map's legend
        await page.locator('#profile-btn').click(); // the step profile
        for (const sel of DOCKED) await page.locator(sel).waitFor({ state: 'visible', timeout: WAIT_MS });
        await page.waitForFunction(() => document.querySelectorAll('#agent-rows tr').length > 0, null, { timeout: WAIT_MS });
        await page.keyboard.press('f');
        await frames(page);
        const fitted = await page.evaluate(panelsAndWorld, DOCKED);
        t.diagnostic(`fitted: world ${JSON.stringify(fitted.world)}, panels ${JSON.stringify(fitted.panels.map((p) => [p.sel, p.box]))}`);
        assert.ok(fitted.world, 'no world drawn');
        assert.equal(fitted.panels.length, DOCKED.length, `not every panel shows: ${JSON.stringify(fitted.panels.map((p) => p.sel))}`);
        // The whole world is in view, and it is not a sliver: at least a quarter of the window's height.
        const whole = await page.evaluate(() => {
          const h = window.herd;
          const c = document.getElementById('world').getBoundingClientRect();
          const a = h.worldToScreen(0, 0);
          const b = h.worldToScreen(h.world.width, h.world.height);
          return [c.left + a.x, c.top + a.y, c.left + b.x, c.top + b.y].map(Math.round);
        });
        assert.deepEqual(fitted.world, whole, 'the fitted world is not drawn whole');
        assert.ok(whole[3] - whole[1] >= height / 4, `the fitted world is ${whole[3] - whole[1]} px tall in a ${height} px window`);
        for (const p of fitted.panels) assert.equal(p.meets, false, `${p.sel} ${JSON.stringify(p.box)} covers the world ${JSON.stringify(fitted.world)}`);
        await pageScreenshot(page, outDir, `docked_${width}x${height}.png`, t);

        // Zoomed in at the middle: the world now reaches every edge of the free part of the canvas,
        // and none of it is drawn under a panel.
        const c = await page.locator('#world').boundingBox();
        const mid = await page.evaluate(() => {
          const d = window.herd.drawnRect();
          return { x: d.x + d.w / 2, y: d.y + d.h / 2 };
        });
        await page.mouse.move(c.x + mid.x, c.y + mid.y);
        for (let i = 0; i < 6; i++) await page.mouse.wheel(0, -300);
        await frames(page);
        const zoomed = await page.evaluate(panelsAndWorld, DOCKED);
        assert.ok(zoomed.world[2] - zoomed.world[0] > fitted.world[2] - fitted.world[0], 'the wheel did not zoom in');
        for (const p of zoomed.panels) {
          assert.equal(p.meets, false, `zoomed in: ${p.sel} ${JSON.stringify(p.box)} covers the world ${JSON.stringify(zoomed.world)}`);
          assert.deepEqual(p.drawnUnder, [], `zoomed in: the world is drawn under ${p.sel}`);
        }
        await pageScreenshot(page, outDir, `docked_${width}x${height}_zoomed.png`, t);
        assert.deepEqual(pageErrors, []);
      } finally {
        await page.close();
      }
    });
  }
});

// What the page says about the world under the pointer and the selection, and the minimap
// (demo32, paused so that nothing moves under the mouse).
describe("the agent panel, the cursor's point and the minimap", { timeout: 4 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;
  let page;
  let canvasBox;
  let pageErrors;

  before(async () => {
    server = await startServer({ scenario: 'demo32' });
    browser = await launchBrowser();
    ({ page, canvasBox, pageErrors } = await openViewer(browser.browser, server));
    await page.waitForFunction(() => window.herd.tick > 60, null, { timeout: WAIT_MS });
    await page.keyboard.press('Space');
    await page.waitForFunction(() => window.herd.paused === true, null, { timeout: WAIT_MS });
    await frames(page);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('the agent panel gives position, group, target and speed in units/s', { timeout: TEST_TIMEOUT_MS }, async () => {
    const agent = await page.evaluate(isolatedAgent);
    await page.mouse.click(canvasBox.x + agent.sx, canvasBox.y + agent.sy);
    await page.waitForFunction((id) => JSON.stringify(window.herd.selected) === JSON.stringify([id]), agent.id, { timeout: WAIT_MS });
    const heads = await page.locator('#agent-panel thead th').allTextContents();
    assert.deepEqual(heads, ['id', 'group', 'positionx, y', 'behaviour', 'phase', 'state', 'speedunits/s', 'targetx, y', 'movement', 'pathing', 'role']);
    const check = async () => {
      const a = await page.evaluate((id) => window.herd.snapshotAgents.find((b) => b.id === id), agent.id);
      const cells = await page.locator(`#agent-rows tr[data-id="${agent.id}"] td`).allTextContents();
      assert.equal(cells[1], String(a.group));
      assert.equal(cells[2], `${Math.round(a.x)}, ${Math.round(a.y)}`);
      assert.equal(cells[6], String(Math.round(Math.hypot(a.vx, a.vy))));
      assert.equal(cells[7], a.tx === undefined ? '–' : `${Math.round(a.tx)}, ${Math.round(a.ty)}`);
      return a;
    };
    await check();
    // Sent elsewhere (a world point of whole units): the next snapshot's target is in the row.
    await page.evaluate((id) => window.herd.sendCommand({ cmd: 'set_target', agents: [id], target: { x: 123, y: 456 } }), agent.id);
    await page.keyboard.press('.');
    await page.locator(`#agent-rows tr[data-id="${agent.id}"] td:nth-child(8)`, { hasText: /^123, 456$/ }).waitFor({ timeout: WAIT_MS });
    await check();
    await page.keyboard.press('Escape');
  });

  it("the cursor's world point shows while it is over the world, and not elsewhere", { timeout: TEST_TIMEOUT_MS }, async () => {
    const readout = page.locator('#cursor-pos');
    // Off the canvas (over the status bar): no point.
    await page.mouse.move(canvasBox.x + 10, 5);
    await page.locator('#cursor-pos[data-over="false"]').waitFor({ state: 'attached', timeout: WAIT_MS });
    const p = await page.evaluate(() => window.herd.worldToScreen(200, 150));
    const sx = Math.round(p.x);
    const sy = Math.round(p.y);
    await page.mouse.move(canvasBox.x + sx, canvasBox.y + sy);
    await page.locator('#cursor-pos[data-over="true"]').waitFor({ timeout: WAIT_MS });
    const want = await page.evaluate(([x, y]) => {
      const w = window.herd.screenToWorld(x, y);
      const scale = window.herd.worldToScreen(1, 0).x - window.herd.worldToScreen(0, 0).x;
      const d = scale >= 10 ? 1 : 0;
      return `x ${w.x.toFixed(d)}  y ${w.y.toFixed(d)}`;
    }, [sx, sy]);
    assert.equal(await readout.textContent(), want);
    assert.ok(await readout.evaluate((el) => el.checkVisibility({ visibilityProperty: true })));
    // The margin round the world (the view is fitted): off the world, no point.
    const corner = await page.evaluate(() => window.herd.worldToScreen(0, 0));
    assert.ok(corner.x > 4 && corner.y > 4, 'the fitted view leaves a margin');
    await page.mouse.move(canvasBox.x + corner.x - 4, canvasBox.y + corner.y - 4);
    await page.locator('#cursor-pos[data-over="false"]').waitFor({ state: 'attached', timeout: WAIT_MS });
    assert.equal(await readout.evaluate((el) => el.checkVisibility({ visibilityProperty: true })), false);
    // Zoomed in under a still pointer: the point under it stays, and the text with it.
    await page.mouse.move(canvasBox.x + sx, canvasBox.y + sy);
    await page.locator('#cursor-pos[data-over="true"]').waitFor({ timeout: WAIT_MS });
    const scale = () => page.evaluate(() => window.herd.worldToScreen(1, 0).x - window.herd.worldToScreen(0, 0).x);
    for (let i = 0; i < 8 && (await scale()) < 10; i++) {
      const before = await scale();
      await page.mouse.wheel(0, -600);
      await page.waitForFunction((s0) => window.herd.worldToScreen(1, 0).x - window.herd.worldToScreen(0, 0).x > s0, before, { timeout: WAIT_MS });
    }
    assert.ok((await scale()) >= 10, 'the wheel did not zoom in');
    await frames(page);
    const zoomed = await page.evaluate(([x, y]) => {
      const w = window.herd.screenToWorld(x, y);
      return `x ${w.x.toFixed(1)}  y ${w.y.toFixed(1)}`;
    }, [sx, sy]);
    assert.equal(await readout.textContent(), zoomed, 'one decimal once a unit is 10 px or more');
    await page.keyboard.press('f');
  });

  it('the minimap (N) shows the agents, and a click or a drag on it moves the view there', { timeout: TEST_TIMEOUT_MS }, async () => {
    await page.keyboard.press('n');
    await page.locator('#minimap-box').waitFor({ state: 'visible', timeout: WAIT_MS });
    await page.locator('#minimap-btn[aria-pressed="true"]').waitFor({ timeout: WAIT_MS });
    await frames(page);
    // Each agent's dot in its group's colour, where it is in the world.
    const dots = await page.evaluate(() => {
      const h = window.herd;
      const c = document.getElementById('minimap');
      const ctx = c.getContext('2d');
      return h.snapshotAgents.map((a) => {
        const px = ctx.getImageData(Math.floor((a.x / h.world.width) * c.width), Math.floor((a.y / h.world.height) * c.height), 1, 1).data;
        return { id: a.id, want: h.theme.groups[a.group % h.theme.groups.length], got: `#${[...px.slice(0, 3)].map((v) => v.toString(16).padStart(2, '0')).join('')}` };
      });
    });
    const right = dots.filter((d) => d.want === d.got).length;
    assert.ok(right >= 0.9 * dots.length, `${right} of ${dots.length} dots in their colours: ${JSON.stringify(dots.slice(0, 4))}`);

    const world = await page.evaluate(() => window.herd.world);
    const mini = await page.locator('#minimap').boundingBox();
    // The world point at the middle of what the side dock and the tray leave free of the canvas.
    const freeCentre = () =>
      page.evaluate(() => {
        const c = document.getElementById('world').getBoundingClientRect();
        const d = document.getElementById('dock').getBoundingClientRect();
        const t = document.getElementById('tray').getBoundingClientRect();
        return window.herd.screenToWorld((d.right + c.right) / 2 - c.left, (c.top + t.top) / 2 - c.top);
      });
    const unit = world.width / mini.width; // a minimap pixel, in world units
    for (const [fx, fy] of [
      [0.25, 0.75],
      [0.8, 0.2],
    ]) {
      const before = await freeCentre();
      await page.mouse.click(mini.x + fx * mini.width, mini.y + fy * mini.height);
      await frames(page);
      const c = await freeCentre();
      assert.ok(Math.hypot(c.x - before.x, c.y - before.y) > 10 * unit, 'the view did not move');
      assert.ok(Math.abs(c.x - fx * world.width) < 1.5 * unit && Math.abs(c.y - fy * world.height) < 1.5 * unit, `clicked (${fx}, ${fy}): the view is at ${JSON.stringify(c)}`);
    }
    // A drag: the view follows the pointer on the minimap.
    await page.mouse.move(mini.x + 0.3 * mini.width, mini.y + 0.3 * mini.height);
    await page.mouse.down();
    await page.mouse.move(mini.x + 0.6 * mini.width, mini.y + 0.5 * mini.height, { steps: 5 });
    await frames(page);
    const mid = await freeCentre();
    assert.ok(Math.abs(mid.x - 0.6 * world.width) < 1.5 * unit && Math.abs(mid.y - 0.5 * world.height) < 1.5 * unit, `dragged: ${JSON.stringify(mid)}`);
    await page.mouse.up();
    await page.keyboard.press('n');
    await page.locator('#minimap-box').waitFor({ state: 'hidden', timeout: WAIT_MS });
    await page.keyboard.press('f');
    assert.deepEqual(pageErrors, []);
  });
});
