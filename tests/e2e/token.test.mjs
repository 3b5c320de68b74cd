// A server with a command token: the viewer opened without it (or with a wrong one) is welcomed
// as a viewer; it sends no command at all, shows no toast, and says why once, in the scenario
// bar's note. The one opened with #token= commands, and so does a page without a token on a
// server that takes commands from anyone (--open-commands): the welcome's role decides. What the
// page sent is read from its WebSocket's frames (lib/browser.mjs, SentFrames); a second
// WebSocket client checks that the world did not change.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';

const TEST_TIMEOUT_MS = 60_000;
const TOKEN = 'e2e-s3cret-t0ken-16';
const NO_TOKEN_NOTE = 'view only: to command, open the link with #token=… that herd-server printed';
const REFUSED_NOTE = /^view only: the token in the URL was refused; to command, open the link with #token=…/;
// What a viewer may send: the session's own messages, none a command or a server control.
const VIEWER_MESSAGES = new Set(['hello', 'ping', 'viewport', 'inspect', 'ack', 'keyframe']);
// Keys that command (keys.js's rows marked `commands`): the demo, spawn, obstacle, remove, paint
// and the scenario bar's.
const COMMAND_KEYS = ['r', 'b', 't', 'g', 'p', 's', 'o', 'Delete', 'Space', '.', 'x', 'l', '[', ']', '{', '}', 'm'];
const BAR_CONTROLS = ['#scenario-pick', '#pause-btn', '#step-btn', '#step-ticks', '#reset-btn', '#tick-rate', '#snapshot-rate'];

// Every frame the page sent so far is in `sent` once a ping sent now (window.herd.sendRaw) is:
// the browser reports frames in the order the page sent them.
let markId = 4_000_000;
async function allSent(page, sent) {
  const id = ++markId;
  assert.equal(await page.evaluate((i) => window.herd.sendRaw(JSON.stringify({ type: 'ping', id: i })), id), true);
  await sent.find((m) => m.type === 'ping' && m.id === id, WAIT_MS, `ping ${id}`);
}

// The elements whose own text says `re` and that are visible inside the window, by id.
function visibleMentions(page, re) {
  return page.evaluate((source) => {
    const pattern = new RegExp(source, 'i');
    const found = [];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const el = n.parentElement;
      if (!el || !pattern.test(n.textContent) || !el.checkVisibility()) continue;
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right <= innerWidth && r.bottom <= innerHeight) found.push(el.id || el.className || el.tagName);
    }
    return found;
  }, re.source);
}

// Selects every agent (a view feature), then presses every commanding key with the pointer on the
// canvas and right-clicks the ground: the first press flashes the note.
async function tryToCommand(page, canvasBox) {
  await page.keyboard.press('Control+A');
  const count = await page.evaluate(() => window.herd.agents.length);
  assert.equal(await page.evaluate(() => window.herd.selected.length), count, 'Ctrl+A selects everyone on a view-only page');
  const centre = { x: canvasBox.x + canvasBox.width / 2, y: canvasBox.y + canvasBox.height / 2 };
  await page.mouse.move(centre.x, centre.y);
  await page.keyboard.press(COMMAND_KEYS[0]);
  await page.locator('#bar-note.flash').waitFor({ timeout: WAIT_MS });
  for (const key of COMMAND_KEYS.slice(1)) await page.keyboard.press(key);
  await page.mouse.click(centre.x, centre.y, { button: 'right' });
}

// The page sent hello, and nothing a viewer may not send.
function assertSentNoCommand(sent) {
  assert.equal(sent.frames[0].type, 'hello');
  assert.equal(sent.frames[0].role, 'commander', 'the page says hello as commander: the server decides');
  const refused = sent.frames.filter((m) => !VIEWER_MESSAGES.has(m.type));
  assert.deepEqual(refused, [], 'a view-only page sent a command or a control');
}

describe('command token', { timeout: 5 * TEST_TIMEOUT_MS }, () => {
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

  it('without the token: no command is sent, no toast shown, and the page says once why', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors, canvasBox, sent, toastsShown } = await openViewer(browser.browser, server);
    assert.equal(await page.evaluate(() => window.herd.role), 'viewer');
    const note = page.locator('#bar-note');
    await note.waitFor({ state: 'visible', timeout: WAIT_MS });
    assert.equal(await note.textContent(), NO_TOKEN_NOTE);
    assert.deepEqual(await visibleMentions(page, /view only/), ['bar-note'], 'the notice is not on screen exactly once');
    assert.equal('token' in sent.frames[0], false, 'hello carried a token the URL does not have');
    for (const sel of BAR_CONTROLS) {
      assert.equal(await page.locator(sel).isDisabled(), true, `${sel} is enabled for a viewer`);
      assert.match(await page.locator(sel).getAttribute('title'), /view only/, `${sel} does not say why`);
    }
    assert.equal(await page.locator('#scenario-pick').inputValue(), 'default', 'the running scenario is still shown');

    const watcher = await ProtocolClient.connect(server.wsUrl);
    const first = await watcher.next((m) => m.type === 'snapshot', WAIT_MS, 'a snapshot');
    await tryToCommand(page, canvasBox);
    await page.keyboard.press('i'); // the inspector is a view: its inspect goes out
    await allSent(page, sent);
    assertSentNoCommand(sent);
    await sent.find((m) => m.type === 'inspect' && m.agents.length > 0, WAIT_MS, 'inspect of the selection');

    assert.deepEqual(await toastsShown(), [], 'the page showed toasts');
    assert.deepEqual(await visibleMentions(page, /view only/), ['bar-note'], 'the notice is not on screen exactly once');
    const herd = await page.evaluate(() => ({
      lastCommand: window.herd.lastCommand,
      lastError: window.herd.lastError?.code,
      orders: window.herd.orders.length,
      painting: window.herd.painting,
      paused: window.herd.paused,
    }));
    // The one error is the hello's unauthorized, which the note says; nothing was refused as forbidden.
    assert.deepEqual(herd, { lastCommand: null, lastError: 'unauthorized', orders: 0, painting: false, paused: false });

    // The world as it was: running, with its agents, no obstacle and no formation.
    const later = await watcher.next((m) => m.type === 'snapshot' && m.tick > first.tick, WAIT_MS, 'a later snapshot');
    assert.equal(later.agents.length, first.agents.length);
    assert.deepEqual(later.formations ?? [], []);
    watcher.close();
    // Every obstacle is in a welcome (snapshots carry them only when they change): none.
    const fresh = await ProtocolClient.connect(server.wsUrl);
    assert.deepEqual(fresh.welcome.obstacles, []);
    fresh.close();

    // The help dims what commands, and says so in a line of its own.
    await page.keyboard.press('h');
    await page.locator('#help-access').waitFor({ state: 'visible', timeout: WAIT_MS });
    const dimmed = await page.locator('#help.view-only dt.commands').allTextContents();
    for (const row of ['right-click the ground', 'right-click an enemy', 'Alt + right-click an agent or an obstacle']) {
      assert.ok(dimmed.includes(row), `the help does not dim ${row}: ${JSON.stringify(dimmed)}`);
    }
    assert.ok(!dimmed.some((t) => t.startsWith('click an agent')), 'the help dims selecting');
    // The status bar's hint names no command.
    assert.doesNotMatch(await page.locator('#hint').textContent(), /right-click|pause|demo/);
    assert.deepEqual(pageErrors, []);
    await page.close();
  });

  it('with a wrong token: the note says it was refused, and nothing is sent', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors, canvasBox, sent, toastsShown } = await openViewer(browser.browser, server, { hash: '#token=not-the-token' });
    assert.equal(await page.evaluate(() => window.herd.role), 'viewer');
    assert.equal(sent.frames[0].token, 'not-the-token');
    const note = page.locator('#bar-note');
    await note.waitFor({ state: 'visible', timeout: WAIT_MS });
    assert.match(await note.textContent(), REFUSED_NOTE);
    await tryToCommand(page, canvasBox);
    await allSent(page, sent);
    assertSentNoCommand(sent);
    assert.deepEqual(await toastsShown(), [], 'the page showed toasts');
    assert.deepEqual(await visibleMentions(page, /view only/), ['bar-note'], 'the notice is not on screen exactly once');
    assert.equal(await page.evaluate(() => window.herd.lastError?.code), 'unauthorized');
    assert.deepEqual(pageErrors, []);
    await page.close();
  });

  it('with #token= the viewer commands: keys and commands are acked', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors, canvasBox, sent, toastsShown } = await openViewer(browser.browser, server, { hash: `#token=${TOKEN}` });
    assert.equal(await page.evaluate(() => window.herd.role), 'commander');
    const before = await page.evaluate(() => window.herd.snapshotAgents.length);
    const seq = await page.evaluate(() => window.herd.sendCommand({ cmd: 'spawn', count: 5 }));
    await page.waitForFunction((s) => window.herd.lastAck?.seq === s, seq, { timeout: WAIT_MS });
    await page.waitForFunction((n) => window.herd.snapshotAgents.length === n, before + 5, { timeout: WAIT_MS });
    // A key: O places an obstacle under the pointer, and the server acks it.
    await page.mouse.move(canvasBox.x + canvasBox.width / 2, canvasBox.y + canvasBox.height / 2);
    await page.keyboard.press('o');
    const placed = await sent.find((m) => m.type === 'command' && m.cmd === 'add_obstacle', WAIT_MS, 'add_obstacle');
    await page.waitForFunction((s) => window.herd.lastAck?.seq === s && window.herd.lastAck.obstacle !== undefined, placed.seq, {
      timeout: WAIT_MS,
    });
    assert.equal(await page.locator('#pause-btn').isEnabled(), true, 'a commander has the scenario bar');
    assert.equal(await page.locator('#bar-note').textContent(), '');
    assert.deepEqual(await visibleMentions(page, /view only/), []);
    assert.deepEqual(await toastsShown(), [], 'the page showed toasts');
    assert.deepEqual(pageErrors, []);
    await page.close();
  });
});

// Without a token to ask for (an open server), a page without one is welcomed as commander and
// commands: the role in the welcome decides, not the URL.
describe('commands open to anyone', { timeout: 2 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;

  before(async () => {
    server = await startServer({ extraArgs: ['--open-commands'] });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('a page without a token commands: Space pauses and resumes the world', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors, sent, toastsShown } = await openViewer(browser.browser, server);
    assert.equal(await page.evaluate(() => window.herd.role), 'commander');
    assert.equal('token' in sent.frames[0], false);
    assert.equal(await page.locator('#bar-note').textContent(), '');
    const watcher = await ProtocolClient.connect(server.wsUrl);
    const pausing = watcher.next((m) => m.type === 'welcome' && m.paused === true, WAIT_MS, 'a welcome saying paused');
    await page.keyboard.press('Space');
    await pausing;
    // The recorded frames are the page's own: this pause is among them, as a viewer's would be.
    await sent.find((m) => m.type === 'command' && m.cmd === 'pause', WAIT_MS, 'pause');
    await page.waitForFunction(() => window.herd.paused === true, null, { timeout: WAIT_MS });
    const resuming = watcher.next((m) => m.type === 'welcome' && m.paused === false, WAIT_MS, 'a welcome saying running');
    await page.keyboard.press('Space');
    await resuming;
    watcher.close();
    assert.deepEqual(await toastsShown(), [], 'the page showed toasts');
    assert.deepEqual(pageErrors, []);
    await page.close();
  });
});

// As a user runs it: the server makes its token and prints the URL that commands (and the
// monitor's) only with it; the page opened at exactly that URL commands, and the monitor lists it.
describe('the URL the server prints', { timeout: 2 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;

  before(async () => {
    server = await startServer({ openCommands: false });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('opened as printed, the viewer commands and the monitor lists it', { timeout: TEST_TIMEOUT_MS }, async () => {
    const printed = new RegExp(`^herd: +(http://127\\.0\\.0\\.1:${server.port}/#token=(\\S+))$`, 'm').exec(server.output());
    assert.ok(printed, `no URL that commands in:\n${server.output()}`);
    const monitor = new RegExp(`^herd: +(http://127\\.0\\.0\\.1:${server.port}/monitor#token=(\\S+))$`, 'm').exec(server.output());
    assert.ok(monitor, `no monitor URL in:\n${server.output()}`);
    assert.equal(monitor[2], printed[2], 'the two URLs carry the same token');
    // (The "listening on" line and the listening event name the address for scripts, not for
    // people to open.)
    const plain = server.output().split('\n').filter((line) => !/\blistening\b/.test(line)).join('\n').match(new RegExp(`http://127\\.0\\.0\\.1:${server.port}/(?!#token=|monitor#token=)\\S*`, 'g')) ?? [];
    assert.deepEqual(plain, [], 'a URL without the token was printed for people to open');

    const page = await browser.browser.newPage({ viewport: { width: 1280, height: 800 } });
    const pageErrors = [];
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    // Exactly as printed: no #debug, so the page is watched through its DOM and a client of the test's.
    await page.goto(printed[1]);
    await page.waitForFunction(
      () => document.getElementById('conn')?.textContent === 'connected' && document.getElementById('scenario-bar')?.dataset.role === 'commander',
      null,
      { timeout: WAIT_MS },
    );
    const watcher = await ProtocolClient.connect(server.wsUrl);
    const pausing = watcher.next((m) => m.type === 'welcome' && m.paused === true, WAIT_MS, 'a welcome saying paused');
    await page.keyboard.press('Space');
    await pausing;
    await page.locator('#paused-badge').waitFor({ state: 'visible', timeout: WAIT_MS });
    watcher.close();

    const operator = await browser.browser.newPage({ viewport: { width: 1280, height: 800 } });
    operator.on('pageerror', (err) => pageErrors.push(String(err)));
    await operator.goto(monitor[1]);
    await operator.waitForFunction(() => document.querySelectorAll('#session-rows tr').length >= 2, null, { timeout: WAIT_MS });
    assert.deepEqual(pageErrors, []);
    await operator.close();
    await page.close();
  });
});
