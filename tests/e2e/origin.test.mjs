// Another web page cannot use the visitor's browser against herd: a page served from another
// origin (here a second HTTP server on another loopback port, the way any site the user visits
// could reach a loopback port) opens a WebSocket to herd and sends `remove all`. Even with
// commands open to anyone (--open-commands), the upgrade is refused (HTTP 403: the page sees the
// socket fail) and the world keeps its agents. The viewer herd serves itself still connects.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';

import { startServer } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';

const TEST_TIMEOUT_MS = 60_000;

// A page that tries to command herd at `wsUrl` and records what happened in window.outcome.
function attackPage(wsUrl) {
  return `<!doctype html><title>elsewhere</title><script>
    window.outcome = 'pending';
    const ws = new WebSocket(${JSON.stringify(wsUrl)});
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: 'hello', protocol: 1, role: 'commander', client: 'evil' }));
      ws.send(JSON.stringify({ type: 'command', seq: 1, cmd: 'remove', agents: 'all' }));
      window.outcome = 'open';
    };
    ws.onerror = () => { window.outcome = 'refused'; };
  </script>`;
}

describe('origin', { timeout: 3 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;
  let elsewhere;
  let elsewhereUrl;

  before(async () => {
    server = await startServer({ extraArgs: ['--open-commands'] });
    browser = await launchBrowser();
    elsewhere = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(attackPage(server.wsUrl));
    });
    await new Promise((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    elsewhereUrl = `http://127.0.0.1:${elsewhere.address().port}/`;
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((resolve) => (elsewhere ? elsewhere.close(resolve) : resolve()));
  });

  it("a page from another origin cannot open herd's WebSocket, and the world keeps its agents", { timeout: TEST_TIMEOUT_MS }, async () => {
    const watcher = await ProtocolClient.connect(server.wsUrl);
    const before = (await watcher.next((m) => m.type === 'snapshot', WAIT_MS)).agents.length;
    assert.ok(before > 0);

    const page = await browser.browser.newPage();
    await page.goto(elsewhereUrl);
    await page.waitForFunction(() => window.outcome !== 'pending', null, { timeout: WAIT_MS });
    assert.equal(await page.evaluate(() => window.outcome), 'refused');
    await page.close();

    // Snapshots after the attempt still carry every agent.
    const after = await watcher.next((m) => m.type === 'snapshot', WAIT_MS);
    const later = await watcher.next((m) => m.type === 'snapshot' && m.tick > after.tick, WAIT_MS);
    assert.equal(later.agents.length, before);
    watcher.close();

    const metrics = await (await fetch(`${server.httpUrl}metrics`)).text();
    assert.match(metrics, /herd_refusals_total\{reason="origin"\} 1\b/);
  });

  it('the viewer herd serves itself still connects and commands', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors } = await openViewer(browser.browser, server);
    assert.equal(await page.evaluate(() => window.herd.role), 'commander');
    assert.deepEqual(pageErrors, []);
    await page.close();
  });
});
