// The command palette and the Alt + right-click menu against the real server. Every command of the
// catalogue (clients/web/commands.json, which tests/protocol/command_catalogue_test.cpp holds to
// the server's codec) is found in the palette by typing its name and sent from its form, and the
// form shows the server's ack: every command is reachable. Where a command needs the world in a
// state first (step a paused world, set_tiles a map, exchange two groups of one size), a second
// client sets that up. The menu on an agent gives the selection a behaviour that names it (attack:
// the snapshots say so), or opens the palette's form for one that needs more (react's radius); the
// menu on an obstacle removes it; the ground keeps the right button's move. A page the server
// welcomed as viewer opens the palette, says why it cannot command, and sends nothing.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { startServer, REPO_ROOT } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';
import { emptyPoint } from './lib/page_probes.mjs';

const TEST_TIMEOUT_MS = 60_000;
const TOKEN = 'e2e-palette-t0ken-16';
const CATALOGUE = JSON.parse(readFileSync(path.join(REPO_ROOT, 'clients', 'web', 'commands.json'), 'utf8'));
const sorted = (ids) => [...ids].sort((a, b) => a - b);

// Every frame the page sent so far is in `sent` once a ping sent now is (the browser reports
// frames in the order the page sent them).
let markId = 5_000_000;
async function allSent(page, sent) {
  const id = ++markId;
  assert.equal(await page.evaluate((i) => window.herd.sendRaw(JSON.stringify({ type: 'ping', id: i })), id), true);
  await sent.find((m) => m.type === 'ping' && m.id === id, WAIT_MS, `ping ${id}`);
}

// The key opens the palette, with the keys in its filter.
async function openPalette(page) {
  await page.keyboard.press(':');
  await page.locator('#palette').waitFor({ state: 'visible', timeout: WAIT_MS });
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'palette-filter');
}

// Types the command's name into the filter and picks it from the list: its form opens.
async function findCommand(page, cmd) {
  await page.locator('#palette-filter').fill(cmd);
  const item = page.locator(`#palette-list li[data-cmd="${cmd}"]`);
  await item.waitFor({ timeout: WAIT_MS });
  await item.click();
  await page.locator('#palette-form').waitFor({ state: 'visible', timeout: WAIT_MS });
  assert.equal(await page.locator('#palette-form .pf-cmd').textContent(), cmd);
}

// Presses Send and waits for the form's answer: {kind: 'ack' | 'error' | 'invalid', text, seq}.
async function sendForm(page) {
  await page.locator('#palette-send').click();
  await page.waitForFunction(
    () => ['ack', 'error', 'invalid'].includes(document.getElementById('palette-answer')?.dataset.kind ?? ''),
    null,
    { timeout: WAIT_MS },
  );
  const answer = page.locator('#palette-answer');
  const seq = await answer.getAttribute('data-seq');
  return { kind: await answer.getAttribute('data-kind'), text: await answer.textContent(), seq: seq === null ? null : Number(seq) };
}

async function closePalette(page) {
  await page.keyboard.press('Escape');
  await page.locator('#palette').waitFor({ state: 'hidden', timeout: WAIT_MS });
}

// In the page: an agent that `accept(agent)` takes, with room round it, whose centre is on the
// canvas itself (no panel over it), at whole CSS pixels: {id, group, sx, sy}, or null.
async function agentToClick({ groups = null, exclude = [] }) {
  await new Promise(requestAnimationFrame);
  const h = window.herd;
  const canvas = document.getElementById('world');
  const box = canvas.getBoundingClientRect();
  let best = null;
  for (const a of h.agents) {
    if (exclude.includes(a.id) || (groups && !groups.includes(a.group))) continue;
    const p = h.worldToScreen(a.x, a.y);
    const sx = Math.round(p.x);
    const sy = Math.round(p.y);
    if (document.elementFromPoint(box.left + sx, box.top + sy) !== canvas) continue;
    let clearance = Infinity;
    for (const b of h.agents) {
      if (b === a) continue;
      const q = h.worldToScreen(b.x, b.y);
      clearance = Math.min(clearance, Math.hypot(q.x - sx, q.y - sy));
    }
    if (!best || clearance > best.clearance) best = { id: a.id, group: a.group, sx, sy, pageX: box.left + sx, pageY: box.top + sy, clearance };
  }
  return best;
}

// In the page: true once two animation frames in a row drew every agent in the same place.
function stillFrames() {
  return new Promise((resolve) => {
    let last = null;
    let same = 0;
    const tick = () => {
      const now = JSON.stringify(window.herd.agents.map((a) => [a.x, a.y]));
      same = now === last ? same + 1 : 0;
      last = now;
      if (same >= 2) resolve(true);
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

describe('command palette and right-click menu', { timeout: 8 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;
  let page;
  let canvasBox;
  let pageErrors;
  let sent;
  let commander;

  before(async () => {
    server = await startServer({ scenario: 'default' });
    browser = await launchBrowser();
    ({ page, canvasBox, pageErrors, sent } = await openViewer(browser.browser, server));
    commander = await ProtocolClient.connect(server.wsUrl, { role: 'commander' });
  });

  after(async () => {
    commander?.close();
    await browser?.close();
    await server?.stop();
  });

  // What the test sets up itself, through the second client: each acknowledged.
  const command = (fields) => commander.command(fields, WAIT_MS);

  // The world paused and the page drawing it still: agents stay where a click will look for them.
  async function freeze() {
    await command({ cmd: 'pause' });
    await page.waitForFunction(() => window.herd.paused === true, null, { timeout: WAIT_MS });
    await page.evaluate(stillFrames);
  }
  async function thaw() {
    await command({ cmd: 'resume' });
    await page.waitForFunction(() => window.herd.paused === false, null, { timeout: WAIT_MS });
  }

  it('lists every command of the catalogue, narrows the list as one types, and opens one with the keys', { timeout: TEST_TIMEOUT_MS }, async () => {
    await page.locator('#palette-btn').click();
    await page.locator('#palette').waitFor({ state: 'visible', timeout: WAIT_MS });
    const listed = await page.locator('#palette-list li[data-cmd]').evaluateAll((lis) => lis.map((li) => li.dataset.cmd));
    assert.deepEqual(listed, CATALOGUE.commands.map((c) => c.cmd));
    await page.keyboard.type('obstacle');
    const narrowed = await page.locator('#palette-list li[data-cmd]').evaluateAll((lis) => lis.map((li) => li.dataset.cmd));
    assert.deepEqual(narrowed, ['add_obstacle', 'remove_obstacle']);
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.locator('#palette-list li[aria-selected="true"]').getAttribute('data-cmd'), 'remove_obstacle');
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('#palette-form .pf-cmd').textContent(), 'remove_obstacle');
    assert.equal(await page.locator('#palette [data-pick="id"]').count(), 1, 'an obstacle id is picked in the world');
    // Keys pressed in the palette are not the page's: on its button, X would reset the world.
    await page.locator('#palette [data-pick="id"]').press('x');
    await page.locator('#palette-form .pf-back').click();
    await page.locator('#palette-filter').waitFor({ state: 'visible', timeout: WAIT_MS });
    await closePalette(page);
    await allSent(page, sent);
    assert.deepEqual(sent.frames.filter((m) => m.type === 'command'), [], 'the palette sent a command unasked');
  });

  it("says what is wrong with a value the form cannot send, and shows the server's refusal with its code", { timeout: TEST_TIMEOUT_MS }, async () => {
    await openPalette(page);
    await findCommand(page, 'step');
    await page.locator('#pf-ticks').fill('5000');
    const invalid = await sendForm(page);
    assert.equal(invalid.kind, 'invalid');
    assert.match(invalid.text, /ticks: must be in \[1, 1000\]/);
    await closePalette(page);
    await allSent(page, sent);
    assert.deepEqual(sent.frames.filter((m) => m.type === 'command'), [], 'a value the form refused was sent');

    await openPalette(page);
    await findCommand(page, 'remove_obstacle');
    await page.locator('#pf-id').fill('999');
    const refused = await sendForm(page);
    assert.equal(refused.kind, 'error');
    assert.match(refused.text, /^error unknown_obstacle: .*999/);
    const frame = await sent.find((m) => m.type === 'command' && m.seq === refused.seq, WAIT_MS, 'the refused command');
    assert.deepEqual(frame, { type: 'command', seq: refused.seq, cmd: 'remove_obstacle', id: 999 });
    await closePalette(page);
  });

  it('the menu on an agent: what the selection can do to it, from the catalogue; attack is sent and taken', { timeout: TEST_TIMEOUT_MS }, async () => {
    await freeze();
    const framesBefore = sent.frames.length;
    const errorBefore = await page.evaluate(() => window.herd.lastError);
    await page.keyboard.press('0');
    const group0 = sorted(await page.evaluate(() => window.herd.selected));
    assert.ok(group0.length > 1, 'group 0 selected');
    const victim = await page.evaluate(agentToClick, { groups: [1] });
    assert.ok(victim && victim.clearance > 12, 'no agent of group 1 to right-click');
    // The menu is Alt + right-click's (the plain right button attacks or follows: rts.test.mjs).
    const rightClick = async () => {
      await page.keyboard.down('Alt');
      await page.mouse.click(canvasBox.x + victim.sx, canvasBox.y + victim.sy, { button: 'right' });
      await page.keyboard.up('Alt');
    };

    // What the catalogue says the selection can do to another agent: set_behaviour's behaviours
    // that take an agent. Those that need nothing more are sent at once; the others say "…".
    const sb = CATALOGUE.commands.find((c) => c.cmd === 'set_behaviour');
    const expected = sb.variants.cases
      .filter((k) => ['required', 'exactly_one'].includes(k.fields.agent))
      .map((k) => (Object.entries(k.fields).some(([f, p]) => f !== 'agent' && p === 'required') ? `${k.value}…` : k.value));
    assert.deepEqual(expected, ['seek', 'arrive', 'flee', 'pursue', 'evade', 'attack', 'react…', 'follow']);
    await rightClick();
    const menu = page.locator('#context-menu');
    await menu.waitFor({ state: 'visible', timeout: WAIT_MS });
    assert.equal(await menu.getAttribute('data-target'), `agent:${victim.id}`);
    assert.deepEqual(await menu.locator('button[role="menuitem"]').allTextContents(), expected);
    // The keys: the first item has the focus, arrows move it, Esc closes the menu and only it.
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.action), 'seek');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.action), 'arrive');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden', timeout: WAIT_MS });
    assert.deepEqual(sorted(await page.evaluate(() => window.herd.selected)), group0, 'Esc cleared the selection too');
    // A click elsewhere (here the status bar) closes it too.
    await rightClick();
    await menu.waitFor({ state: 'visible', timeout: WAIT_MS });
    await page.locator('#status .brand').click();
    await menu.waitFor({ state: 'hidden', timeout: WAIT_MS });
    await allSent(page, sent);
    assert.deepEqual(sent.frames.slice(framesBefore).filter((m) => m.type === 'command'), [], 'the menu sent a command unasked');

    // react needs a radius: its item opens the palette's form with the rest filled in.
    await rightClick();
    await menu.locator('[data-action="react"]').click();
    await page.locator('#palette-form').waitFor({ state: 'visible', timeout: WAIT_MS });
    assert.equal(await page.locator('#palette-form .pf-cmd').textContent(), 'set_behaviour');
    assert.equal(await page.locator('#pf-behaviour').inputValue(), 'react');
    assert.equal(await page.locator('#pf-agent').inputValue(), String(victim.id));
    assert.equal(await page.locator('#pf-agents').inputValue(), group0.join(','));
    await page.locator('#pf-radius').fill('90');
    const reacted = await sendForm(page);
    assert.equal(reacted.kind, 'ack', reacted.text);
    const reactFrame = await sent.find((m) => m.type === 'command' && m.seq === reacted.seq, WAIT_MS, 'the react command');
    assert.deepEqual(reactFrame, { type: 'command', seq: reacted.seq, cmd: 'set_behaviour', agents: group0, behaviour: 'react', agent: victim.id, radius: 90 });
    await closePalette(page);

    // attack needs nothing more: its item sends it.
    await rightClick();
    await menu.locator('[data-action="attack"]').click();
    await menu.waitFor({ state: 'hidden', timeout: WAIT_MS });
    const attack = await sent.find((m) => m.type === 'command' && m.behaviour === 'attack', WAIT_MS, 'the attack command');
    assert.equal(sent.frames.filter((m) => m.type === 'command' && m.cmd === 'set_behaviour').length, 2, 'one command each: react, attack');
    assert.deepEqual(attack, { type: 'command', seq: attack.seq, cmd: 'set_behaviour', agents: group0, behaviour: 'attack', agent: victim.id });
    await thaw();
    await page.waitForFunction(
      ({ ids, victimId }) => {
        const agents = window.herd.snapshotAgents.filter((a) => ids.includes(a.id));
        return agents.length === ids.length && agents.every((a) => a.behaviour === 'attack' && a.subject === victimId);
      },
      { ids: group0, victimId: victim.id },
      { timeout: WAIT_MS },
    );
    assert.deepEqual(await page.evaluate(() => window.herd.lastError), errorBefore, 'a command was refused');
  });

  it('the menu on an obstacle removes it; on the ground the right button still moves the selection', { timeout: TEST_TIMEOUT_MS }, async () => {
    await freeze();
    await page.keyboard.press('Escape'); // nothing selected: the obstacle's menu needs no selection
    assert.deepEqual(await page.evaluate(() => window.herd.selected), []);
    const spot = await page.evaluate(emptyPoint, {});
    assert.ok(spot && spot.clearance > 30, 'no empty ground for an obstacle');
    const added = await command({ cmd: 'add_obstacle', x: spot.x, y: spot.y, radius: 12 });
    await command({ cmd: 'step' }); // a paused world sends a snapshot, with the obstacles, only when stepped
    await page.waitForFunction((id) => window.herd.obstacles.some((o) => o.id === id), added.obstacle, { timeout: WAIT_MS });
    await page.keyboard.down('Alt');
    await page.mouse.click(canvasBox.x + spot.sx, canvasBox.y + spot.sy, { button: 'right' });
    await page.keyboard.up('Alt');
    const menu = page.locator('#context-menu');
    await menu.waitFor({ state: 'visible', timeout: WAIT_MS });
    assert.equal(await menu.getAttribute('data-target'), `obstacle:${added.obstacle}`);
    assert.deepEqual(await menu.locator('button[role="menuitem"]').allTextContents(), ['remove obstacle']);
    await page.keyboard.press('Enter'); // the focused item
    await sent.find((m) => m.type === 'command' && m.cmd === 'remove_obstacle' && m.id === added.obstacle, WAIT_MS, 'remove_obstacle');
    await command({ cmd: 'step' });
    await page.waitForFunction((id) => !window.herd.obstacles.some((o) => o.id === id), added.obstacle, { timeout: WAIT_MS });

    await page.keyboard.press('1');
    const group1 = sorted(await page.evaluate(() => window.herd.selected));
    await page.mouse.click(canvasBox.x + spot.sx, canvasBox.y + spot.sy, { button: 'right' });
    const move = await sent.find((m) => m.type === 'command' && m.cmd === 'set_target', WAIT_MS, 'the move');
    assert.deepEqual(move.agents, group1);
    assert.equal(await menu.isHidden(), true, 'the ground opened a menu');
    await page.keyboard.press('Escape');
    await thaw();
  });

  it('every command of the catalogue is found in the palette, sent from its form, and acknowledged', { timeout: 4 * TEST_TIMEOUT_MS }, async (t) => {
    const agentIds = () => page.evaluate(() => window.herd.snapshotAgents.map((a) => a.id));
    const hasMap = () => page.evaluate(() => window.herd.map !== null);
    const ensureMap = async () => {
      if (!(await hasMap())) {
        await command({ cmd: 'load_map', width: 5, height: 5, tile_size: 40, rows: ['#####', '#...#', '#...#', '#...#', '#####'] });
        await page.waitForFunction(() => window.herd.map !== null, null, { timeout: WAIT_MS });
      }
    };
    const clearMap = async () => {
      if (await hasMap()) {
        await command({ cmd: 'clear_map' });
        await page.waitForFunction(() => window.herd.map === null, null, { timeout: WAIT_MS });
      }
    };
    let pair = [];
    let bystander = null; // a session of its own, for kick, and the code it is closed with
    let bystanderClosed = null;
    // Agents close together at the world's centre: moved across their own centre, they stay inside.
    let huddle = [];
    const spawnHuddle = async () => {
      const offsets = [[-20, -15], [20, -15], [-20, 15], [20, 15]];
      const ack = await command({ cmd: 'spawn', agents: offsets.map(([dx, dy]) => ({ x: 400 + dx, y: 300 + dy, group: 9 })) });
      huddle = ack.agents;
    };
    let obstacle = null;
    // What each command needs first, what the form is given beyond what it starts with, and what
    // the frame sent must hold. A command without a row is sent as its form starts.
    const plan = {
      set_target: { check: (m) => assert.deepEqual([m.agents, m.target], ['all', { x: 400, y: 300 }]) },
      spawn: { check: (m) => assert.equal(m.count, 10) },
      set_behaviour: {
        before: freeze,
        fill: async () => {
          await page.locator('#pf-agents').fill('group:0');
          await page.locator('#pf-behaviour').selectOption('pursue');
          await page.locator('#palette [data-pick="agent"]').click();
          // Where the agent is drawn now, with pick mode on: the page's layout as it will be clicked.
          const prey = await page.evaluate(agentToClick, { groups: [1, 2] });
          assert.ok(prey && prey.clearance > 12, 'no agent to pick');
          await page.mouse.click(prey.pageX, prey.pageY);
          await page
            .waitForFunction((id) => document.getElementById('pf-agent')?.value === String(id), prey.id, { timeout: WAIT_MS })
            .catch(async (e) => {
              const said = await page.evaluate(() => ({ value: document.getElementById('pf-agent')?.value, note: document.querySelector('#palette .note, #palette [role=status]')?.textContent }));
              throw new Error(`agent ${prey.id} was not picked at (${prey.pageX}, ${prey.pageY}): ${JSON.stringify(said)}: ${e.message}`);
            });
          return prey.id;
        },
        check: (m, prey) => assert.deepEqual(m, { type: 'command', seq: m.seq, cmd: 'set_behaviour', agents: { group: 0 }, behaviour: 'pursue', agent: prey }),
        after: thaw,
      },
      set_movement: { fill: () => page.locator('#pf-movement').selectOption('kinematic'), check: (m) => assert.equal(m.movement, 'kinematic') },
      add_obstacle: {
        fill: async () => {
          await page.locator('#pf-x').fill('120');
          await page.locator('#pf-y').fill('480');
        },
        check: (m) => assert.deepEqual([m.x, m.y, m.radius], [120, 480, 20]),
        answered: (text) => (obstacle = Number(/obstacle (\d+)/.exec(text)[1])),
      },
      remove_obstacle: {
        before: async () => {
          await page.waitForFunction((id) => window.herd.obstacles.some((o) => o.id === id), obstacle, { timeout: WAIT_MS });
        },
        fill: async () => {
          const at = await page.evaluate(() => window.herd.worldToScreen(120, 480));
          await page.locator('#pf-id').fill('');
          await page.locator('#palette [data-pick="id"]').click();
          await page.mouse.click(canvasBox.x + Math.round(at.x), canvasBox.y + Math.round(at.y));
          await page.waitForFunction((id) => document.getElementById('pf-id')?.value === String(id), obstacle, { timeout: WAIT_MS });
        },
        check: (m) => assert.equal(m.id, obstacle),
      },
      // A source in the top left corner; an exit in the top right, where no agent is (one over
      // the middle quarter, where the form starts, would take the crowd the next steps need).
      add_source: {
        fill: async () => {
          await page.locator('#pf-area').fill('20, 20, 60, 60');
          await page.locator('#pf-total').fill('3');
        },
        check: (m) => assert.deepEqual([m.area, m.rate, m.total], [{ x: 20, y: 20, width: 60, height: 60 }, 2, 3]),
      },
      add_exit: {
        fill: () => page.locator('#pf-area').fill('700, 20, 80, 60'),
        check: (m) => assert.deepEqual(m.area, { x: 700, y: 20, width: 80, height: 60 }),
      },
      set_avoidance: { fill: () => page.locator('#pf-mode').selectOption('circle'), check: (m) => assert.deepEqual(m.mode, 'circle') },
      // Each waits until the page has the map it made (or none): the next step reads the page's.
      load_map: {
        check: (m) => assert.equal(m.rows.length, 5),
        after: () => page.waitForFunction(() => window.herd.map !== null, null, { timeout: WAIT_MS }),
      },
      clear_map: { before: ensureMap, after: () => page.waitForFunction(() => window.herd.map === null, null, { timeout: WAIT_MS }) },
      set_tiles: { before: ensureMap, check: (m) => assert.deepEqual(m.tiles, [{ x: 1, y: 1, blocked: true }]), after: clearMap },
      set_pathing: { fill: () => page.locator('#pf-neighbours').selectOption('4'), check: (m) => assert.deepEqual([m.pathing, m.neighbours], ['direct', 4]) },
      set_group: { check: (m) => assert.equal(m.group, 3) },
      formation: {
        before: clearMap,
        fill: () => page.locator('#pf-shape').selectOption('block'),
        check: (m) => assert.deepEqual([m.shape, m.centre], ['block', { x: 400, y: 300 }]),
      },
      opposite: {
        before: spawnHuddle,
        fill: async () => {
          await page.locator('#pf-agents').fill(huddle.join(','));
          await page.locator('#pf-groups').fill('2');
        },
        check: (m) => assert.deepEqual([m.agents, m.groups], [huddle, 2]),
      },
      exchange: {
        // Two groups of the same size.
        before: async () => {
          pair = (await agentIds()).slice(0, 4);
          await command({ cmd: 'set_group', agents: pair.slice(0, 2), group: 7 });
          await command({ cmd: 'set_group', agents: pair.slice(2), group: 8 });
        },
        fill: () => page.locator('#pf-agents').fill(pair.join(',')),
        check: (m) => assert.deepEqual(m.agents, pair),
      },
      invert: {
        before: spawnHuddle,
        fill: () => page.locator('#pf-agents').fill(huddle.join(',')),
        check: (m) => assert.deepEqual(m.agents, huddle),
      },
      remove: {
        fill: async () => page.locator('#pf-agents').fill(String((await agentIds()).at(-1))),
        check: (m) => assert.equal(m.agents.length, 1),
      },
      pause: { after: () => page.waitForFunction(() => window.herd.paused === true, null, { timeout: WAIT_MS }) },
      resume: { after: () => page.waitForFunction(() => window.herd.paused === false, null, { timeout: WAIT_MS }) },
      step: { before: () => command({ cmd: 'pause' }), fill: () => page.locator('#pf-ticks').fill('5'), check: (m) => assert.equal(m.ticks, 5), after: thaw },
      reset: { fill: () => page.locator('#pf-seed').fill('7'), check: (m) => assert.equal(m.seed, 7) },
      load_scenario: {
        fill: () => page.locator('#pf-name').selectOption('demo32'),
        after: () => page.waitForFunction(() => window.herd.scenario === 'demo32', null, { timeout: WAIT_MS }),
      },
      kick: {
        before: async () => {
          bystander = await ProtocolClient.connect(server.wsUrl, { role: 'viewer' });
          bystanderClosed = new Promise((resolve) => bystander.ws.once('close', (code) => resolve(code)));
        },
        fill: () => page.locator('#pf-session').fill(String(bystander.welcome.session)),
        check: (m) => assert.equal(m.session, bystander.welcome.session),
        after: async () => {
          let timer;
          const late = new Promise((resolve) => (timer = setTimeout(() => resolve('not closed'), WAIT_MS)));
          assert.equal(await Promise.race([bystanderClosed, late]), 4000, 'the kicked session was not closed with 4000');
          clearTimeout(timer);
        },
      },
      set_param: {
        fill: () => page.locator('#pf-tick_rate').fill('30'),
        check: (m) => assert.deepEqual(m, { type: 'command', seq: m.seq, cmd: 'set_param', tick_rate: 30 }),
        after: () => page.waitForFunction(() => window.herd.tickRate === 30, null, { timeout: WAIT_MS }),
      },
    };
    assert.deepEqual(Object.keys(plan).filter((c) => !CATALOGUE.commands.some((k) => k.cmd === c)), [], 'the plan names a command the catalogue lacks');

    const acked = [];
    for (const { cmd } of CATALOGUE.commands) {
      const step = plan[cmd] ?? {};
      await step.before?.();
      await openPalette(page);
      await findCommand(page, cmd);
      const filled = await step.fill?.();
      const answer = await sendForm(page);
      assert.equal(answer.kind, 'ack', `${cmd}: ${answer.text}`);
      assert.match(answer.text, /^ack · tick \d+/);
      const frame = await sent.find((m) => m.type === 'command' && m.seq === answer.seq, WAIT_MS, `the ${cmd} command`);
      assert.equal(frame.cmd, cmd);
      step.check?.(frame, filled);
      step.answered?.(answer.text);
      t.diagnostic(`${cmd}: ${JSON.stringify(frame)} -> ${answer.text}`);
      await closePalette(page);
      await step.after?.();
      acked.push(cmd);
    }
    assert.deepEqual(acked, CATALOGUE.commands.map((c) => c.cmd));
    assert.deepEqual(pageErrors, []);
  });
});

describe('command palette on a view-only page', { timeout: 2 * TEST_TIMEOUT_MS }, () => {
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

  it('opens, says commands are disabled and why, and sends nothing; nor does the menu', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, canvasBox, sent, pageErrors } = await openViewer(browser.browser, server);
    assert.equal(await page.evaluate(() => window.herd.role), 'viewer');
    await openPalette(page);
    const notice = await page.evaluate(() => window.herd.commandNotice);
    assert.equal(await page.locator('#palette-note').textContent(), `commands are disabled on this page: ${notice}`);
    await findCommand(page, 'pause');
    assert.equal(await page.locator('#palette-send').isDisabled(), true);
    // Even a submit that goes round the disabled button sends nothing.
    await page.locator('#palette-form').evaluate((f) => f.requestSubmit());
    await closePalette(page);

    // The menu does not open: the right button only points at the note, as before.
    await page.keyboard.press('0');
    const other = await page.evaluate(agentToClick, { groups: [1] });
    assert.ok(other, 'no agent of group 1');
    await page.mouse.click(canvasBox.x + other.sx, canvasBox.y + other.sy, { button: 'right' });
    await page.locator('#bar-note.flash').waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('#context-menu').isHidden(), true);

    await allSent(page, sent);
    assert.deepEqual(sent.frames.filter((m) => m.type === 'command'), [], 'a view-only page sent a command');
    assert.deepEqual(pageErrors, []);
    await page.close();
  });
});
