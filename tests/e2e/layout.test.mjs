// The page from 800 x 600 to 1920 x 1080: every control of the status bar and the scenario bar is
// inside the window, not covered by anything (the element at its centre is itself), and takes a
// click; the help panel stays inside the stage and scrolls when it is taller. At 1280 px the bar
// used to overflow and hide "fit" and "?"; at 800 x 600 the help was 1,062 px tall and could not
// scroll. Screenshots of the three sizes go to HERD_E2E_OUT (layout_WxH.png).

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startServer } from './lib/server.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';

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
        await pageScreenshot(page, outDir, `layout_${width}x${height}.png`, t);

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
