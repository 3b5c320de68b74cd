// A server with a command token: the viewer opened without it watches and says why; the
// one opened with #token= commands. A second WebSocket client checks that nothing changed.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';

const TEST_TIMEOUT_MS = 60_000;
const TOKEN = 'e2e-s3cret';

describe('command token', { timeout: 4 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;

  before(async () => {
    server = await startServer({ extraArgs: ['--command-token', TOKEN] });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('without the token the viewer watches, says so, and its commands change nothing', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors } = await openViewer(browser.browser, server);
    await page.locator('.toast', { hasText: 'unauthorized' }).waitFor({ state: 'visible', timeout: WAIT_MS });
    assert.equal(await page.evaluate(() => window.herd.role), 'viewer');
    const before = await page.evaluate(() => window.herd.snapshotAgents.length);
    const seq = await page.evaluate(() => window.herd.sendCommand({ cmd: 'spawn', count: 5 }));
    await page.locator('.toast', { hasText: 'forbidden' }).waitFor({ state: 'visible', timeout: WAIT_MS });
    assert.deepEqual(await page.evaluate(() => ({ code: window.herd.lastError.code, seq: window.herd.lastError.seq })), {
      code: 'forbidden',
      seq,
    });
    // A watcher of its own sees the world as it was.
    const watcher = await ProtocolClient.connect(server.wsUrl);
    const snap = await watcher.next((m) => m.type === 'snapshot', WAIT_MS);
    assert.equal(snap.agents.length, before);
    watcher.close();
    assert.deepEqual(pageErrors, []);
    await page.close();
  });

  // The scenario bar's controls are the server's: a viewer sees them disabled and why, and its
  // keys say so instead of sending what the server would refuse with forbidden.
  it('without the token the scenario bar is disabled and says why; its keys send nothing', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors } = await openViewer(browser.browser, server);
    await page.locator('#scenario-bar[data-role="viewer"]').waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('#scenario-pick').inputValue(), 'default', 'the running scenario is still shown');
    for (const sel of ['#scenario-pick', '#pause-btn', '#step-btn', '#step-ticks', '#reset-btn', '#tick-rate', '#snapshot-rate']) {
      assert.equal(await page.locator(sel).isDisabled(), true, `${sel} is enabled for a viewer`);
      assert.match(await page.locator(sel).getAttribute('title'), /view only/, `${sel} does not say why`);
    }
    const note = page.locator('#bar-note');
    assert.match(await note.textContent(), /^view only: .*#token=/);
    const visible = await note.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.right <= innerWidth && r.bottom <= innerHeight;
    });
    assert.ok(visible, 'the reason is not on screen');
    const watcher = await ProtocolClient.connect(server.wsUrl);
    for (const key of ['Space', 'x', ']']) {
      await page.keyboard.press(key);
      await page.locator('.toast', { hasText: 'view only' }).first().waitFor({ state: 'visible', timeout: WAIT_MS });
    }
    await page.waitForTimeout(300);
    assert.equal(await page.evaluate(() => window.herd.lastCommand), null, 'a key sent a command');
    // The one error is the hello's unauthorized: nothing was refused as forbidden.
    assert.equal(await page.evaluate(() => window.herd.lastError?.code), 'unauthorized', 'the server had to refuse something');
    assert.equal(await page.evaluate(() => window.herd.paused), false);
    assert.equal(watcher.welcome.paused, false);
    watcher.close();
    assert.deepEqual(pageErrors, []);
    await page.close();
  });

  it('with #token= the viewer commands', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors } = await openViewer(browser.browser, server, { hash: `#token=${TOKEN}` });
    assert.equal(await page.evaluate(() => window.herd.role), 'commander');
    const before = await page.evaluate(() => window.herd.snapshotAgents.length);
    const seq = await page.evaluate(() => window.herd.sendCommand({ cmd: 'spawn', count: 5 }));
    await page.waitForFunction((s) => window.herd.lastAck?.seq === s, seq, { timeout: WAIT_MS });
    await page.waitForFunction((n) => window.herd.snapshotAgents.length === n, before + 5, { timeout: WAIT_MS });
    assert.equal(await page.locator('.toast', { hasText: 'unauthorized' }).count(), 0);
    assert.equal(await page.locator('#pause-btn').isEnabled(), true, 'a commander has the scenario bar');
    assert.equal(await page.locator('#bar-note').textContent(), '');
    assert.deepEqual(pageErrors, []);
    await page.close();
  });
});
