// A scenario world (server/scenarios) on its own server with the viewer open on it, and the few
// things every scene test does with it: screenshots and clicks at world points.

import { mkdirSync } from 'node:fs';
import path from 'node:path';

import { startServer } from './server.mjs';
import { openViewer } from './browser.mjs';

// A server running `scenario` and the viewer open on it in `browser` (launchBrowser().browser),
// with openViewer's `options` (hash, width, height): {scenario, server, page, canvasBox,
// pageErrors, close()}.
export async function openScene(browser, scenario, options = {}) {
  const server = await startServer({ scenario });
  try {
    const viewer = await openViewer(browser, server, options);
    const scene = { scenario, server, ...viewer };
    scene.close = async () => {
      await scene.page.close();
      await scene.server.stop();
    };
    return scene;
  } catch (err) {
    await server.stop();
    throw err;
  }
}

// Saves a screenshot of the page as outDir/name and says where (t: the running test).
export async function screenshot(scene, outDir, name, t) {
  mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, name);
  await scene.page.screenshot({ path: file });
  t.diagnostic(`screenshot: ${file}`);
  console.log(`herd e2e screenshot: ${file}`);
}

// Page coordinates of world point (x, y), at a whole CSS pixel.
export async function worldToPage(scene, x, y) {
  const s = await scene.page.evaluate(([wx, wy]) => window.herd.worldToScreen(wx, wy), [x, y]);
  return { x: scene.canvasBox.x + Math.round(s.x), y: scene.canvasBox.y + Math.round(s.y) };
}

// Clicks the canvas at world point (x, y), at a whole CSS pixel; button 'right' gives orders.
export async function clickWorld(scene, x, y, { shift = false, button = 'left' } = {}) {
  const p = await worldToPage(scene, x, y);
  if (shift) await scene.page.keyboard.down('Shift');
  await scene.page.mouse.click(p.x, p.y, { button });
  if (shift) await scene.page.keyboard.up('Shift');
}
