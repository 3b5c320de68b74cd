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

// What the page sent on its WebSocket to the server, from its first frame (hello) on: each text
// frame parsed (the viewer sends JSON only), in order. The browser reports frames in the order the
// page sent them, so a frame sent last (a ping through window.herd.sendRaw) marks that every
// earlier one is here: nothing needs a sleep to be sure of what was not sent.
export class SentFrames {
  constructor() {
    this.frames = [];
    this.waiters = new Set(); // {predicate, resolve}
  }

  add(text) {
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      msg = { unparsed: text };
    }
    this.frames.push(msg);
    for (const w of [...this.waiters]) {
      if (w.predicate(msg)) {
        this.waiters.delete(w);
        w.resolve(msg);
      }
    }
  }

  // The first frame, sent already or to come, for which predicate(msg) is true; rejects after
  // timeoutMs with `what`.
  find(predicate, timeoutMs, what = 'a matching frame') {
    const sent = this.frames.find(predicate);
    if (sent) return Promise.resolve(sent);
    return new Promise((resolve, reject) => {
      const waiter = { predicate, resolve: null };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`the page sent no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      waiter.resolve = (msg) => {
        clearTimeout(timer);
        resolve(msg);
      };
      this.waiters.add(waiter);
    });
  }
}

// Every toast the page shows, kept by the page (window.herdE2eToasts: their texts and classes)
// from its start: a toast that faded before a test looks is still counted.
function recordToasts() {
  const shown = [];
  window.herdE2eToasts = shown;
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n instanceof HTMLElement && n.classList.contains('toast')) shown.push({ text: n.textContent, kind: n.className });
      }
    }
  }).observe(document, { childList: true, subtree: true });
}

// Opens the viewer of `server` in a new page and waits until it is connected and shows agents.
// Resolves to {page, canvasBox, pageErrors, sent, toastsShown()}: pageErrors collects uncaught
// exceptions, sent (SentFrames) what the page sent on its WebSocket, toastsShown() every toast
// shown so far ({text, kind}).
// hash: appended to the page's URL, e.g. '#token=x'; width, height: the window's CSS pixels;
// touch: a phone's page (a touch screen, mobile viewport; closing the page closes its context).
export async function openViewer(browser, server, { hash = '', width = 1280, height = 800, touch = false } = {}) {
  let page;
  if (touch) {
    const context = await browser.newContext({ viewport: { width, height }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
    page = await context.newPage();
    page.on('close', () => context.close().catch(() => {}));
  } else {
    page = await browser.newPage({ viewport: { width, height } });
  }
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  const sent = new SentFrames();
  page.on('websocket', (ws) => {
    if (!ws.url().endsWith('/ws')) return;
    ws.on('framesent', ({ payload }) => {
      if (typeof payload === 'string') sent.add(payload);
    });
  });
  await page.addInitScript(recordToasts);
  await page.goto(viewerUrl(server, hash));
  await page.waitForFunction(() => window.herd?.connected && window.herd.agents.length > 0, null, {
    timeout: WAIT_MS,
  });
  const canvasBox = await page.locator('#world').boundingBox();
  const toastsShown = () => page.evaluate(() => window.herdE2eToasts);
  return { page, canvasBox, pageErrors, sent, toastsShown };
}
