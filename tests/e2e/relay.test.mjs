// The viewer served by a relay (herd-server --relay): the same page, the server's world, and a
// status bar that says when the relay has lost its upstream and when it is back.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer } from './lib/server.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';

describe('the viewer through a relay', { timeout: 120_000 }, () => {
  let server;
  let relay;
  let browser;

  before(async () => {
    server = await startServer();
    relay = await startServer({ extraArgs: ['--relay', server.wsUrl] });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await relay?.stop();
    await server?.stop();
  });

  it("shows the server's world, says it comes through a relay, and rides out a server restart", { timeout: 90_000 }, async () => {
    const { page, pageErrors } = await openViewer(browser.browser, relay);
    const conn = page.locator('#conn');
    await page.waitForFunction(() => document.getElementById('conn').textContent === 'connected via relay', null, { timeout: WAIT_MS });
    const agents = await page.evaluate(() => window.herd.agents.length);
    assert.equal(agents, 48, 'the default scenario has 48 agents, seen through the relay');

    await server.stop();
    await page.waitForFunction(() => document.getElementById('conn').textContent === 'relay: reconnecting upstream', null, { timeout: WAIT_MS });
    assert.equal(await page.locator('#status').getAttribute('data-state'), 'upstream');
    assert.equal(await page.evaluate(() => window.herd.connected), true, 'the page keeps its connection to the relay');

    server = await startServer({ port: server.port });
    await page.waitForFunction(() => document.getElementById('conn').textContent === 'connected via relay', null, { timeout: 2 * WAIT_MS });
    const tickBefore = await page.evaluate(() => window.herd.tick);
    await page.waitForFunction((t) => window.herd.tick !== t, tickBefore, { timeout: WAIT_MS });
    assert.equal(await conn.textContent(), 'connected via relay');
    assert.deepEqual(pageErrors, []);
    await page.close();
  });
});
