// Headless Chromium (Debian's, driven by playwright-core, which downloads no browser) with the
// viewer open on a running server.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const WAIT_MS = 10_000; // every wait on the world is bounded by this

// Resolves to {browser, close()}; close() also removes the browser's throwaway home.
export async function launchBrowser() {
  const home = mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-home-'));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
    env: { ...process.env, HOME: home },
  });
  const close = async () => {
    await browser.close();
    rmSync(home, { recursive: true, force: true });
  };
  return { browser, close };
}

// The viewer's URL on `server` with window.herd (clients/web/debug_api.js) asked for: `#debug`,
// after the test's own hash parameters if it has any ('#token=x' -> '#token=x&debug').
export function viewerUrl(server, hash = '') {
  return server.httpUrl + (hash ? `${hash}&debug` : '#debug');
}

// Opens the viewer of `server` in a new page and waits until it is connected and shows agents.
// Resolves to {page, canvasBox, pageErrors}: pageErrors collects uncaught exceptions.
// hash: appended to the page's URL, e.g. '#token=x'; width, height: the window's CSS pixels.
export async function openViewer(browser, server, { hash = '', width = 1280, height = 800 } = {}) {
  const page = await browser.newPage({ viewport: { width, height } });
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  await page.goto(viewerUrl(server, hash));
  await page.waitForFunction(() => window.herd?.connected && window.herd.agents.length > 0, null, {
    timeout: WAIT_MS,
  });
  const canvasBox = await page.locator('#world').boundingBox();
  return { page, canvasBox, pageErrors };
}
