// The right button on an agent, as in real-time strategy games, against the real server: with
// agents selected, a right-click on an enemy attacks it (set_behaviour attack naming it) and one
// on another agent follows it (follow), each said on the line under the map; the menu of what can
// be done to an agent, which the right button used to open, is Alt + right-click's; over an agent
// the cursor says beforehand which of the two the right button will do. An enemy is
// another group's agent on a server without players (the `empty` scenario, agents spawned by a
// second client), and another team's for a player (a server with a players file), whatever its
// group. A player's and a spectator's page shows none of the operator's buttons (the demo's, the
// world's controls), which the operator's page shows.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { REPO_ROOT, startServer } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';

const TEST_TIMEOUT_MS = 60_000;
const sorted = (ids) => [...ids].sort((a, b) => a - b);

// The page point of agent `id` as the page draws it, at a whole CSS pixel, checked to be the
// canvas's (no panel over it).
async function agentPoint(page, id) {
  const p = await page.evaluate((i) => {
    const a = window.herd.agents.find((b) => b.id === i);
    if (!a) return null;
    const s = window.herd.worldToScreen(a.x, a.y);
    const box = document.getElementById('world').getBoundingClientRect();
    const px = box.left + Math.round(s.x);
    const py = box.top + Math.round(s.y);
    return { x: px, y: py, canvas: document.elementFromPoint(px, py)?.id === 'world' };
  }, id);
  assert.ok(p, `agent ${id} is not drawn`);
  assert.ok(p.canvas, `agent ${id} is under a panel`);
  return p;
}

// Selects exactly `ids` with clicks (Shift adds), and waits until the page has them.
async function select(page, ids) {
  for (const [i, id] of ids.entries()) {
    const p = await agentPoint(page, id);
    if (i > 0) await page.keyboard.down('Shift');
    await page.mouse.click(p.x, p.y);
    if (i > 0) await page.keyboard.up('Shift');
  }
  await page.waitForFunction((want) => JSON.stringify([...window.herd.selected].sort((a, b) => a - b)) === JSON.stringify(want), sorted(ids), {
    timeout: WAIT_MS,
  });
}

// Every frame the page sent so far is in `sent` once a ping sent now is.
let markId = 7_000_000;
async function allSent(page, sent) {
  const id = ++markId;
  await page.evaluate((i) => window.herd.sendRaw(JSON.stringify({ type: 'ping', id: i })), id);
  await sent.find((m) => m.type === 'ping' && m.id === id, WAIT_MS, `ping ${id}`);
}

describe('the right button on agents: attack an enemy, follow a friend, Alt for the menu', { timeout: 5 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;
  let commander;
  let watcher;
  let page;
  let pageErrors;
  let sent;
  let toastsShown;
  let squad; // group 1, selected
  let friend; // group 1, not selected
  let enemy; // group 2

  before(async () => {
    server = await startServer({ scenario: 'empty' });
    commander = await ProtocolClient.connect(server.wsUrl, { role: 'commander' });
    watcher = await ProtocolClient.connect(server.wsUrl, { role: 'viewer' });
    squad = (await commander.command({ cmd: 'spawn', agents: [{ x: 200, y: 300, group: 1 }, { x: 240, y: 300, group: 1 }] }, WAIT_MS)).agents;
    [friend] = (await commander.command({ cmd: 'spawn', agents: [{ x: 220, y: 480, group: 1 }] }, WAIT_MS)).agents;
    [enemy] = (await commander.command({ cmd: 'spawn', agents: [{ x: 560, y: 420, group: 2 }] }, WAIT_MS)).agents;
    browser = await launchBrowser();
    ({ page, pageErrors, sent, toastsShown } = await openViewer(browser.browser, server));
    await page.waitForFunction((n) => window.herd.agents.length === n, 4, { timeout: WAIT_MS });
  });

  after(async () => {
    commander?.close();
    watcher?.close();
    await browser?.close();
    await server?.stop();
  });

  const behaviourFrames = () => sent.frames.filter((m) => m.type === 'command' && m.cmd === 'set_behaviour');

  it('Alt + right-click on an enemy opens the menu of what the selection can do to it, and sends nothing', { timeout: TEST_TIMEOUT_MS }, async () => {
    // With nothing selected a right-click orders nothing, and says so.
    const box = await page.locator('#world').boundingBox();
    const empty = await page.evaluate(() => window.herd.worldToScreen(400, 100));
    await page.mouse.click(box.x + Math.round(empty.x), box.y + Math.round(empty.y), { button: 'right' });
    await page.waitForFunction(() => window.herdE2eToasts.some((t) => t.text.startsWith('nothing selected to order')), null, { timeout: WAIT_MS });

    await select(page, squad);
    const p = await agentPoint(page, enemy);
    await page.keyboard.down('Alt');
    await page.mouse.click(p.x, p.y, { button: 'right' });
    await page.keyboard.up('Alt');
    const menu = page.locator('#context-menu');
    await menu.waitFor({ state: 'visible', timeout: WAIT_MS });
    assert.equal(await menu.getAttribute('data-target'), `agent:${enemy}`);
    assert.ok(await menu.locator('button[data-action="attack"]').isVisible(), 'the menu offers attack');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden', timeout: WAIT_MS });
    await allSent(page, sent);
    assert.deepEqual(behaviourFrames(), [], 'the menu alone sent a behaviour');
    assert.deepEqual(sorted(await page.evaluate(() => window.herd.selected)), sorted(squad), 'Esc closed the menu and kept the selection');
  });

  it('a right-click on an enemy attacks it, says so, and the server has the squad attack it', { timeout: TEST_TIMEOUT_MS }, async () => {
    const p = await agentPoint(page, enemy);
    // Before the click, the cursor over it says what the right button will do.
    await page.mouse.move(p.x, p.y);
    await page.locator('#world[data-agent-order="attack"]').waitFor({ timeout: WAIT_MS });
    assert.match(await page.locator('#world').getAttribute('title'), new RegExp(`right-click: attack agent ${enemy}$`));
    const canvasBefore = await page.locator('#world').boundingBox();
    await page.mouse.click(p.x, p.y, { button: 'right' });
    const frame = await sent.find((m) => m.type === 'command' && m.cmd === 'set_behaviour', WAIT_MS, 'set_behaviour');
    assert.equal(frame.behaviour, 'attack');
    assert.equal(frame.agent, enemy);
    assert.deepEqual(sorted(frame.agents), sorted(squad));
    assert.equal(await page.locator('#context-menu').isHidden(), true, 'the right button opened the menu');
    // Said on the line under the map.
    await page.waitForFunction((id) => window.herdE2eToasts.some((t) => t.text === `attack agent ${id}`), enemy, { timeout: WAIT_MS });
    const toast = (await toastsShown()).find((t) => t.text === `attack agent ${enemy}`);
    assert.match(toast.kind, /\binfo\b/, 'a message, not an error');
    assert.ok(await page.locator('#footbar .toast', { hasText: `attack agent ${enemy}` }).isVisible(), 'the message is not on the line under the map');
    // The message does not make the line taller: the map keeps its size (and the fitted world its place).
    assert.deepEqual(await page.locator('#world').boundingBox(), canvasBefore, 'the message resized the map');
    await page.waitForFunction((s) => window.herd.lastAck?.seq === s, frame.seq, { timeout: WAIT_MS });
    const snap = await watcher.next(
      (m) => m.type === 'snapshot' && squad.every((id) => m.agents.find((a) => a.id === id)?.behaviour === 'attack'),
      WAIT_MS,
      'the squad attacking',
    );
    for (const id of squad) assert.equal(snap.agents.find((a) => a.id === id).subject, enemy, `agent ${id} attacks another`);
  });

  it('a right-click on an agent of the selection\'s own group follows it and says so; A then right-click says its attack-move', { timeout: TEST_TIMEOUT_MS }, async () => {
    const before = behaviourFrames().length;
    const p = await agentPoint(page, friend);
    await page.mouse.move(p.x, p.y);
    await page.locator('#world[data-agent-order="follow"]').waitFor({ timeout: WAIT_MS });
    await page.mouse.click(p.x, p.y, { button: 'right' });
    const frame = await sent.find((m) => m.type === 'command' && m.cmd === 'set_behaviour' && m.behaviour === 'follow', WAIT_MS, 'set_behaviour follow');
    assert.equal(behaviourFrames().length, before + 1, 'one order for one click');
    assert.equal(frame.agent, friend);
    assert.deepEqual(sorted(frame.agents), sorted(squad));
    await page.waitForFunction((id) => window.herdE2eToasts.some((t) => t.text === `follow agent ${id}`), friend, { timeout: WAIT_MS });
    // The newest message replaces the one before: the line says what the last order did.
    assert.deepEqual(await page.locator('#footbar .toast.info').allTextContents(), [`follow agent ${friend}`]);
    await page.waitForFunction((s) => window.herd.lastAck?.seq === s, frame.seq, { timeout: WAIT_MS });
    await watcher.next((m) => m.type === 'snapshot' && squad.every((id) => m.agents.find((a) => a.id === id)?.behaviour === 'follow'), WAIT_MS, 'the squad following');

    // An armed attack-move is no plain move either: it says where it sent the squad.
    await page.keyboard.press('a');
    const box = await page.locator('#world').boundingBox();
    const at = await page.evaluate(() => window.herd.worldToScreen(400, 150));
    await page.mouse.click(box.x + Math.round(at.x), box.y + Math.round(at.y), { button: 'right' });
    const am = await sent.find((m) => m.type === 'command' && m.cmd === 'attack_move', WAIT_MS, 'attack_move');
    const words = `attack-move: 2 agents to ${Math.round(am.target.x)}, ${Math.round(am.target.y)}`;
    await page.waitForFunction((w) => window.herdE2eToasts.some((t) => t.text === w), words, { timeout: WAIT_MS });
    assert.deepEqual(pageErrors, []);
  });
});

describe('players: the enemy is another team, and no operator buttons for players or spectators', { timeout: 5 * TEST_TIMEOUT_MS }, () => {
  const OPERATOR_TOKEN = 'e2e-operator-t0ken-4567';
  const RED_TOKEN = 'red-token-0123456789';
  let server;
  let browser;
  let operator;
  let dir;
  let red1;
  let red2;
  let blue; // in red's sight, and of red's group: an enemy by its team only

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-rts-players-'));
    const file = path.join(dir, 'players.json');
    writeFileSync(
      file,
      JSON.stringify({
        players: [
          { name: 'red', team: 1, token: RED_TOKEN },
          { name: 'blue', team: 2, token: 'blue-token-0123456789' },
        ],
      }),
    );
    server = await startServer({
      scenario: 'empty',
      extraArgs: ['--scenario-dir', path.join(REPO_ROOT, 'server', 'scenarios'), '--players', file, '--command-token', OPERATOR_TOKEN, '--spectator-delay', '1'],
    });
    browser = await launchBrowser();
    operator = await ProtocolClient.connect(server.wsUrl, { role: 'operator', token: OPERATOR_TOKEN });
    const spawn = async (team, x, y) => (await operator.command({ cmd: 'spawn', team, agents: [{ x, y, group: 0 }] }, WAIT_MS)).agents[0];
    red1 = await spawn(1, 200, 300);
    red2 = await spawn(1, 200, 420);
    blue = await spawn(2, 330, 300);
  });

  after(async () => {
    operator?.close();
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a player right-clicks another team\'s agent of its own group: attack; its own team\'s: follow', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors, sent } = await openViewer(browser.browser, server, { hash: `#role=player&token=${RED_TOKEN}` });
    await page.waitForFunction((n) => window.herd.agents.length === n, 3, { timeout: WAIT_MS });
    await select(page, [red1]);
    const onBlue = await agentPoint(page, blue);
    await page.mouse.click(onBlue.x, onBlue.y, { button: 'right' });
    const attack = await sent.find((m) => m.type === 'command' && m.cmd === 'set_behaviour', WAIT_MS, 'set_behaviour');
    assert.deepEqual([attack.behaviour, attack.agent, attack.agents], ['attack', blue, [red1]]);
    await page.waitForFunction((s) => window.herd.lastAck?.seq === s, attack.seq, { timeout: WAIT_MS });
    await page.waitForFunction((id) => window.herdE2eToasts.some((t) => t.text === `attack agent ${id}`), blue, { timeout: WAIT_MS });

    const onRed2 = await agentPoint(page, red2);
    await page.mouse.click(onRed2.x, onRed2.y, { button: 'right' });
    const follow = await sent.find((m) => m.type === 'command' && m.cmd === 'set_behaviour' && m.seq > attack.seq, WAIT_MS, 'a second set_behaviour');
    assert.deepEqual([follow.behaviour, follow.agent, follow.agents], ['follow', red2, [red1]]);
    await page.waitForFunction((s) => window.herd.lastAck?.seq === s, follow.seq, { timeout: WAIT_MS });
    assert.deepEqual(pageErrors, []);
    await page.close();
  });

  // The operator's buttons: the demo's (on a narrow window, where the touch bar shows) and the
  // world's controls in the scenario bar.
  const OPERATOR_BUTTONS = ['#touch-demo button[data-key="R"]', '#touch-demo button[data-key="P"]', '#pause-btn', '#step-btn', '#reset-btn', '#tick-rate', '#snapshot-rate'];
  const shownOf = (page) =>
    page.evaluate((sels) => sels.filter((s) => document.querySelector(s)?.checkVisibility({ visibilityProperty: true })), OPERATOR_BUTTONS);

  for (const [who, hash] of [
    ['a player', `#role=player&token=${RED_TOKEN}`],
    ['a spectator', '#role=spectator'],
  ]) {
    it(`${who} sees none of the operator's buttons; the orders' buttons stay for a player`, { timeout: TEST_TIMEOUT_MS }, async () => {
      const { page, pageErrors } = await openViewer(browser.browser, server, { hash, width: 600, height: 800 });
      await page.waitForFunction(() => document.body.dataset.role === window.herd.role, null, { timeout: WAIT_MS });
      assert.deepEqual(await shownOf(page), [], `${who} sees operator buttons`);
      // The touch bar is there (this window is narrow), with the orders a player may give.
      assert.ok(await page.locator('#touch-orders button[data-order="stop"]').isVisible(), 'the touch bar is not shown');
      if (who === 'a player') assert.equal(await page.locator('#touch-orders button[data-order="stop"]').isDisabled(), false);
      assert.ok(await page.locator('#bar-note').isVisible(), 'the note saying why is gone');
      assert.deepEqual(pageErrors, []);
      await page.close();
    });
  }

  it("the operator's page shows them", { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors } = await openViewer(browser.browser, server, { hash: `#token=${OPERATOR_TOKEN}`, width: 600, height: 800 });
    await page.waitForFunction(() => window.herd.role === 'commander', null, { timeout: WAIT_MS });
    assert.deepEqual(await shownOf(page), OPERATOR_BUTTONS);
    assert.deepEqual(pageErrors, []);
    await page.close();
  });
});
