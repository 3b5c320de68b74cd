// Players, teams and fog of war in the viewer, against a server started with a players file: the
// page opened as a player (#role=player&token=...) says who it is, draws agents in their teams'
// colours, veils what its team cannot see and commands its own agents; opened as a spectator
// (#role=spectator) it shows the whole world late, and one team's view at a time, with exactly
// the agents that team's player receives. The world (the `empty` scenario) is set up by a second
// client as the operator: five still agents of teams 1, 2 and nobody's, placed so that each
// team sees some of the others and not all.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { REPO_ROOT, startServer } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, openViewer, WAIT_MS } from './lib/browser.mjs';
import { groundPixel } from './lib/fog_probes.mjs';
import { agentCentrePixels } from './lib/page_probes.mjs';
import { screenshot } from './lib/scene.mjs';
import { colorDistance, hexToRgb } from './lib/colors.mjs';

const TEST_TIMEOUT_MS = 60_000;
const OUT_DIR = process.env.HERD_E2E_OUT || mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-out-'));
const OPERATOR_TOKEN = 'e2e-operator-t0ken-0123';
const RED_TOKEN = 'red-token-0123456789';
const PLAYERS = {
  players: [
    { name: 'red', team: 1, token: RED_TOKEN },
    { name: 'blue', team: 2, token: 'blue-token-0123456789' },
  ],
};
// Every agent sees 200 units (the default). Red (team 1) sees its two and blue's first, 150 from
// its first; blue (team 2) sees its two and red's two; nobody's agent is out of everyone's sight.
const AGENTS = [
  { team: 1, x: 100, y: 100 },
  { team: 1, x: 140, y: 130 },
  { team: 2, x: 250, y: 100 },
  { team: 2, x: 700, y: 500 },
  { team: 0, x: 420, y: 460 },
];
// Ground in red's sight (80 units from its second agent, 100 from its first) and out of every
// team-1 agent's sight (380 and more from each).
const IN_SIGHT = { x: 100, y: 200 };
const OUT_OF_SIGHT = { x: 600, y: 300 };

// The ground in red's sight is the world's colour (the grid's lines are lighter: the probe takes
// the darkest pixel round the point); out of sight it is veiled: every channel well under it.
function assertFogged(world, inSight, outOfSight, what) {
  assert.equal(inSight.agentNear, false, 'the probe point in sight is on an agent');
  assert.equal(outOfSight.agentNear, false, 'the probe point out of sight is on an agent');
  assert.ok(colorDistance(inSight.pixel, world) <= 3, `${what}: the ground in sight ${inSight.pixel} is not the world's ${world}`);
  for (let c = 0; c < 3; c++) {
    assert.ok(outOfSight.pixel[c] <= world[c] * 0.6 + 2, `${what}: the ground out of sight ${outOfSight.pixel} is not darker than ${world}`);
  }
}

describe('players, teams and fog of war', { timeout: 6 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;
  let operator;
  let dir;
  let ids; // the agents' ids, in AGENTS' order

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-players-'));
    const file = path.join(dir, 'players.json');
    writeFileSync(file, JSON.stringify(PLAYERS));
    server = await startServer({
      scenario: 'empty',
      // The source tree's scenarios, wherever the binary is (HERD_SERVER may be outside a build).
      extraArgs: ['--scenario-dir', path.join(REPO_ROOT, 'server', 'scenarios'), '--players', file, '--command-token', OPERATOR_TOKEN, '--spectator-delay', '1'],
    });
    browser = await launchBrowser();
    operator = await ProtocolClient.connect(server.wsUrl, { role: 'operator', token: OPERATOR_TOKEN });
    ids = [];
    for (const a of AGENTS) {
      const ack = await operator.command({ cmd: 'spawn', team: a.team, agents: [{ x: a.x, y: a.y }] }, WAIT_MS);
      ids.push(...ack.agents);
    }
    assert.equal(ids.length, AGENTS.length);
  });

  after(async () => {
    operator?.close();
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a player: who it is, its team in its colour, the fog beyond its sight, and its own agents commanded', { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const { page, pageErrors, sent, toastsShown } = await openViewer(browser.browser, server, { hash: `#role=player&token=${RED_TOKEN}` });
    assert.deepEqual(
      { type: sent.frames[0].type, role: sent.frames[0].role, token: sent.frames[0].token },
      { type: 'hello', role: 'player', token: RED_TOKEN },
    );
    assert.equal(await page.evaluate(() => window.herd.role), 'player');
    assert.deepEqual(await page.evaluate(() => window.herd.player), { name: 'red', team: 1 });
    await page.waitForFunction(() => document.getElementById('who')?.textContent === 'player red · team 1', null, { timeout: WAIT_MS });
    assert.equal(await page.locator('#who-field').isVisible(), true);
    assert.equal(await page.locator('#team-view-field').isVisible(), false, 'a player has no team view to pick');
    // What red's team sees: its two and blue's first.
    const seen = [ids[0], ids[1], ids[2]];
    await page.waitForFunction((n) => window.herd.agents.length === n, seen.length, { timeout: WAIT_MS });
    assert.deepEqual((await page.evaluate(() => window.herd.agents.map((a) => a.id))).sort((a, b) => a - b), seen);
    assert.equal(await page.locator('#count').textContent(), '3');

    // Each agent in its team's colour: red's in team 1's (the groups' first), blue's in team 2's.
    const theme = await page.evaluate(() => window.herd.theme);
    const byId = new Map((await page.evaluate(agentCentrePixels)).map((p) => [p.id, p]));
    for (const [id, team] of [[ids[0], 1], [ids[1], 1], [ids[2], 2]]) {
      const p = byId.get(id);
      assert.equal(p.team, team);
      const want = hexToRgb(theme.groups[team - 1]);
      assert.ok(colorDistance(p.pixel, want) <= 12, `agent ${id} of team ${team} is ${p.pixel}, not ${want}`);
    }
    // Beside its name, a dot in its team's colour.
    const swatch = await page.locator('#who-swatch').evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.equal(swatch, `rgb(${hexToRgb(theme.groups[0]).join(', ')})`);

    // The fog: dark far from red's agents, clear near them; one disc for each of its agents.
    const world = hexToRgb(theme.world);
    assertFogged(world, await page.evaluate(groundPixel, IN_SIGHT), await page.evaluate(groundPixel, OUT_OF_SIGHT), 'player red');
    assert.equal((await page.evaluate(() => window.herd.fog)).discs, 2);
    await screenshot({ page }, OUT_DIR, 'player_fog.png', t);

    // A player commands: not view only. Its own agent, selected with a click, stops at C; another
    // team's agent is refused as not_yours. The world's controls are the operator's.
    assert.equal(await page.evaluate(() => window.herd.commandNotice), '');
    const own = await page.evaluate((id) => {
      const a = window.herd.agents.find((b) => b.id === id);
      return window.herd.worldToScreen(a.x, a.y);
    }, ids[0]);
    const box = await page.locator('#world').boundingBox();
    await page.mouse.click(box.x + own.x, box.y + own.y);
    await page.waitForFunction((id) => window.herd.selected.length === 1 && window.herd.selected[0] === id, ids[0], { timeout: WAIT_MS });
    await page.keyboard.press('c');
    const stop = await sent.find((m) => m.type === 'command' && m.cmd === 'stop', WAIT_MS, 'stop');
    assert.deepEqual(stop.agents, [ids[0]]);
    await page.waitForFunction((s) => window.herd.lastAck?.seq === s, stop.seq, { timeout: WAIT_MS });
    const refused = await page.evaluate((id) => window.herd.sendCommand({ cmd: 'stop', agents: [id] }), ids[2]);
    await page.waitForFunction((s) => window.herd.lastError?.seq === s, refused, { timeout: WAIT_MS });
    assert.equal(await page.evaluate(() => window.herd.lastError.code), 'not_yours');
    assert.ok((await toastsShown()).some((t) => /not_yours/.test(t.text)), 'the refusal is not shown');
    assert.equal(await page.locator('#pause-btn').isDisabled(), true, "the world's controls are the operator's");
    assert.match(await page.locator('#bar-note').textContent(), /operator's/);
    assert.deepEqual(pageErrors, []);
    await page.close();
  });

  it('a spectator: the whole world, then each team\'s view as its player receives it, with its fog', { timeout: TEST_TIMEOUT_MS }, async (t) => {
    // What red's player receives, from the server: the page's team 1 view must be exactly it.
    const red = await ProtocolClient.connect(server.wsUrl, { role: 'player', token: RED_TOKEN });
    const redSnapshot = await red.next((m) => m.type === 'snapshot', WAIT_MS, "red's snapshot");
    red.close();
    const redIds = redSnapshot.agents.map((a) => a.id).sort((a, b) => a - b);
    assert.deepEqual(redIds, [ids[0], ids[1], ids[2]]);

    const { page, pageErrors, sent } = await openViewer(browser.browser, server, { hash: '#role=spectator' });
    assert.equal(sent.frames[0].role, 'spectator');
    assert.equal('token' in sent.frames[0], false);
    assert.equal(await page.evaluate(() => window.herd.role), 'spectator');
    assert.match(await page.evaluate(() => window.herd.commandNotice), /^view only: a spectator/);
    await page.waitForFunction((n) => window.herd.agents.length === n, AGENTS.length, { timeout: WAIT_MS });
    await page.waitForFunction(() => document.getElementById('who')?.textContent === 'spectator · whole world', null, { timeout: WAIT_MS });
    const theme = await page.evaluate(() => window.herd.theme);
    const world = hexToRgb(theme.world);
    // The whole world: no fog anywhere.
    const clear = await page.evaluate(groundPixel, OUT_OF_SIGHT);
    assert.ok(colorDistance(clear.pixel, world) <= 3, `the whole world's view is veiled: ${clear.pixel}`);
    // Nobody's agent in neutral grey.
    const nobody = (await page.evaluate(agentCentrePixels)).find((p) => p.id === ids[4]);
    assert.ok(colorDistance(nobody.pixel, hexToRgb(theme.teamNeutral)) <= 12, `nobody's agent is ${nobody.pixel}`);

    // The select offers the teams present; team 1's view shows fewer agents: red's own.
    assert.deepEqual(await page.evaluate(() => window.herd.teamViews), [1, 2]);
    await page.selectOption('#team-view', '1');
    await page.waitForFunction(() => window.herd.teamView === 1, null, { timeout: WAIT_MS });
    await page.waitForFunction((n) => window.herd.agents.length === n, redIds.length, { timeout: WAIT_MS });
    assert.deepEqual((await page.evaluate(() => window.herd.agents.map((a) => a.id))).sort((a, b) => a - b), redIds);
    assert.equal(await page.locator('#who').textContent(), "spectator · team 1's view");
    assert.equal(await page.locator('#count').textContent(), String(redIds.length));
    assertFogged(world, await page.evaluate(groundPixel, IN_SIGHT), await page.evaluate(groundPixel, OUT_OF_SIGHT), "team 1's view");
    await screenshot({ page }, OUT_DIR, 'spectator_team_view.png', t);

    // Team 2's: its two and red's two.
    await page.selectOption('#team-view', '2');
    await page.waitForFunction((n) => window.herd.agents.length === n, 4, { timeout: WAIT_MS });
    assert.deepEqual((await page.evaluate(() => window.herd.agents.map((a) => a.id))).sort((a, b) => a - b), ids.slice(0, 4));
    assert.equal(await page.locator('#who').textContent(), "spectator · team 2's view");

    // And back to the whole world, unveiled.
    await page.selectOption('#team-view', '');
    await page.waitForFunction((n) => window.herd.teamView === null && window.herd.agents.length === n, AGENTS.length, { timeout: WAIT_MS });
    const again = await page.evaluate(groundPixel, OUT_OF_SIGHT);
    assert.ok(colorDistance(again.pixel, world) <= 3, `the whole world's view is veiled: ${again.pixel}`);
    // V walks the same views: team 1's, team 2's, the whole world again.
    await page.evaluate(() => /** @type {HTMLElement} */ (document.activeElement).blur());
    for (const [team, n] of [[1, redIds.length], [2, 4], [null, AGENTS.length]]) {
      await page.keyboard.press('v');
      await page.waitForFunction(([t, count]) => window.herd.teamView === t && window.herd.agents.length === count, [team, n], { timeout: WAIT_MS });
    }
    assert.deepEqual(pageErrors, []);
    await page.close();
  });

  it('an operator (#role=operator, or no role) says hello as commander with its token', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors, sent } = await openViewer(browser.browser, server, { hash: `#role=operator&token=${OPERATOR_TOKEN}` });
    assert.deepEqual({ role: sent.frames[0].role, token: sent.frames[0].token }, { role: 'commander', token: OPERATOR_TOKEN });
    assert.equal(await page.evaluate(() => window.herd.commandNotice), '');
    await page.waitForFunction((n) => window.herd.agents.length === n, AGENTS.length, { timeout: WAIT_MS });
    // No fog for the operator, and nothing to say of who it is; agents still in their teams' colours.
    assert.equal(await page.locator('#who-field').isVisible(), false);
    const draws = await page.evaluate(() => window.herd.fog.draws);
    assert.equal(draws, 0);
    assert.deepEqual(pageErrors, []);
    await page.close();
  });
});
