// The game in the viewer, against a server started with a players file that gives the teams
// colours: a player's page draws agents in those colours, a bar over each hurt agent (JSON's
// hp/max_hp, and binary frames' side section `health`), its team's ghosts where enemies were
// last seen (with a tooltip saying when), its fog darker over ground never explored than over
// ground explored, a cross where an agent died that fades; and a late spectator's page counts
// down to its first view. The operator (a second client) sets the world up in the `empty`
// scenario: red's shooter and a hurt blue agent it sees, and a red scout watching a blue agent
// far away, which the operator removes so that blue agent becomes a ghost.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { REPO_ROOT, startServer } from './lib/server.mjs';
import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, openViewer, viewerUrl, WAIT_MS } from './lib/browser.mjs';
import { groundPixel } from './lib/fog_probes.mjs';
import { agentCentrePixels } from './lib/page_probes.mjs';
import { colorDistance, hexToRgb } from './lib/colors.mjs';

const TEST_TIMEOUT_MS = 60_000;
const OPERATOR_TOKEN = 'e2e-operator-t0ken-0123';
const RED_TOKEN = 'red-token-0123456789';
const RED = '#d04040';
const YELLOW = '#e0c020';
const SPECTATOR_DELAY = 3;
const PLAYERS = {
  players: [
    { name: 'red', team: 1, token: RED_TOKEN },
    { name: 'blue', team: 2, token: 'blue-token-0123456789' },
  ],
  teams: [
    { team: 1, colour: RED },
    { team: 2, colour: YELLOW },
  ],
};
// Red's shooter and the hurt blue agent 140 units from it: in its sight (200), out of its reach.
// Its hits take 25 of the 40: the first leaves 15 (a flash on the agent), the second kills.
const SHOOTER = { x: 100, y: 100, damage: 25, range: 30, cooldown: 0.5 };
const HURT = { x: 240, y: 100, hp: 40 };
// Red's scout and the blue agent it watches, far from the others.
const SCOUT = { x: 600, y: 450 };
const WATCHED = { x: 700, y: 450 };
// Ground: in the shooter's sight; in the scout's (explored) and out of every red agent's sight
// once the scout is gone; out of every red agent's sight ever (never explored).
const IN_SIGHT = { x: 100, y: 200 };
const EXPLORED = { x: 560, y: 420 };
const UNEXPLORED = { x: 400, y: 560 };

// The canvas pixel at CSS point (x, y) of the page's canvas.
async function pixelAt(page, x, y) {
  return page.evaluate(
    async ({ x, y }) => {
      await new Promise(requestAnimationFrame);
      const canvas = document.getElementById('world');
      const k = canvas.width / canvas.clientWidth;
      return Array.from(canvas.getContext('2d').getImageData(Math.floor(x * k), Math.floor(y * k), 1, 1).data);
    },
    { x, y },
  );
}

// The bar over agent `id` (window.herd.healthBar), waited for, with the pixels of its full part
// and of its empty part.
async function barOf(page, id) {
  await page.waitForFunction((id) => window.herd.healthBar(id) !== null, id, { timeout: WAIT_MS });
  const bar = await page.evaluate((id) => window.herd.healthBar(id), id);
  const y = bar.y + bar.h / 2;
  return { bar, full: await pixelAt(page, bar.x + bar.full / 2, y), empty: await pixelAt(page, bar.x + (bar.full + bar.w) / 2, y) };
}

function assertBar({ bar, full, empty }, what) {
  assert.ok(Math.abs(bar.full / bar.w - 0.4) < 0.01, `${what}: the bar is ${bar.full / bar.w} full, not 40/100`);
  // 40 of 100 hit points: amber (#ffcc00), over a dark back.
  assert.ok(colorDistance(full, [255, 204, 0]) <= 30, `${what}: the bar's full part is ${full}`);
  assert.ok(empty[0] + empty[1] + empty[2] < 150, `${what}: the bar's empty part is ${empty}, not dark`);
}

describe('the game in the viewer', { timeout: 6 * TEST_TIMEOUT_MS }, () => {
  let server;
  let browser;
  let operator;
  let dir;
  const id = {};

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-game-'));
    const file = path.join(dir, 'players.json');
    writeFileSync(file, JSON.stringify(PLAYERS));
    server = await startServer({
      scenario: 'empty',
      extraArgs: ['--scenario-dir', path.join(REPO_ROOT, 'server', 'scenarios'), '--players', file, '--command-token', OPERATOR_TOKEN, '--spectator-delay', String(SPECTATOR_DELAY)],
    });
    browser = await launchBrowser();
    operator = await ProtocolClient.connect(server.wsUrl, { role: 'operator', token: OPERATOR_TOKEN });
    for (const [name, team, a] of [
      ['shooter', 1, SHOOTER],
      ['hurt', 2, HURT],
      ['scout', 1, SCOUT],
      ['watched', 2, WATCHED],
    ]) {
      const ack = await operator.command({ cmd: 'spawn', team, agents: [a] }, WAIT_MS);
      id[name] = ack.agents[0];
    }
  });

  after(async () => {
    operator?.close();
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("a player's page: the teams' colours, the hurt agent's bar, ghosts and explored ground", { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors } = await openViewer(browser.browser, server, { hash: `#role=player&token=${RED_TOKEN}&format=json` });
    await page.waitForFunction((n) => window.herd.agents.length === n, 4, { timeout: WAIT_MS });

    // Each agent in its team's colour as the welcome gives it, not the palette's.
    const byId = new Map((await page.evaluate(agentCentrePixels)).map((p) => [p.id, p]));
    for (const [name, colour] of [
      ['shooter', RED],
      ['scout', RED],
      ['watched', YELLOW],
    ]) {
      const p = byId.get(id[name]);
      assert.ok(colorDistance(p.pixel, hexToRgb(colour)) <= 12, `${name} is ${p.pixel}, not ${colour}`);
    }
    const swatch = await page.locator('#who-swatch').evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.equal(swatch, `rgb(${hexToRgb(RED).join(', ')})`);

    // The hurt agent's bar, 40 of 100; the others are unhurt and have none.
    assertBar(await barOf(page, id.hurt), 'JSON');
    assert.equal(await page.evaluate((id) => window.herd.healthBar(id), id.shooter), null);

    // The scout gone, the agent it watched is a ghost: a dashed ring in blue's colour where it
    // was last seen, and the tooltip over it says how long ago.
    await page.waitForFunction(() => window.herd.game.explored !== null, null, { timeout: WAIT_MS });
    await operator.command({ cmd: 'remove', agents: [id.scout] }, WAIT_MS);
    await page.waitForFunction((g) => window.herd.game.ghosts.some((h) => h.id === g), id.watched, { timeout: WAIT_MS });
    const ghost = (await page.evaluate(() => window.herd.game.ghosts)).find((g) => g.id === id.watched);
    assert.deepEqual([ghost.x, ghost.y, ghost.team], [WATCHED.x, WATCHED.y, 2]);
    const ring = await page.evaluate(async (g) => {
      await new Promise(requestAnimationFrame);
      const h = window.herd;
      const canvas = document.getElementById('world');
      const k = canvas.width / canvas.clientWidth;
      const ctx = canvas.getContext('2d');
      const c = h.worldToScreen(g.x, g.y);
      const r = h.worldToScreen(g.x + g.r, g.y).x - c.x;
      const rr = Math.max(h.minAgentPx, r);
      const out = [];
      for (let i = 0; i < 64; i++) {
        const t = (i / 64) * 2 * Math.PI;
        out.push(Array.from(ctx.getImageData(Math.floor((c.x + rr * Math.cos(t)) * k), Math.floor((c.y + rr * Math.sin(t)) * k), 1, 1).data));
      }
      return out;
    }, ghost);
    // Yellow is red and green well over blue; the veiled ground is grey-dark.
    const yellowish = ring.filter((p) => p[0] > p[2] + 40 && p[1] > p[2] + 30);
    assert.ok(yellowish.length >= 8, `the ghost's ring shows in blue's colour at ${yellowish.length} of 64 points: ${JSON.stringify(ring.slice(0, 8))}`);
    const at = await page.evaluate((g) => window.herd.worldToScreen(g.x, g.y), ghost);
    const box = await page.locator('#world').boundingBox();
    await page.mouse.move(box.x + at.x, box.y + at.y);
    await page.waitForFunction(() => /last seen \d+ s ago/.test(document.getElementById('world').title), null, { timeout: WAIT_MS });
    await page.mouse.move(box.x + 5, box.y + 5);
    await page.waitForFunction(() => document.getElementById('world').title === '', null, { timeout: WAIT_MS });

    // Ground in sight is clear; ground explored but out of sight veiled; ground never explored
    // darker still.
    const world = hexToRgb(await page.evaluate(() => window.herd.theme.world));
    const seen = await page.evaluate(groundPixel, IN_SIGHT);
    const explored = await page.evaluate(groundPixel, EXPLORED);
    const unexplored = await page.evaluate(groundPixel, UNEXPLORED);
    const sum = (p) => p[0] + p[1] + p[2];
    assert.ok(colorDistance(seen.pixel, world) <= 3, `the ground in sight ${seen.pixel} is not the world's ${world}`);
    assert.ok(sum(explored.pixel) < sum(world) * 0.6, `the explored ground out of sight ${explored.pixel} is not veiled`);
    assert.ok(sum(explored.pixel) >= sum(world) * 0.25, `the explored ground out of sight ${explored.pixel} is hidden`);
    assert.ok(sum(unexplored.pixel) < sum(explored.pixel) * 0.6, `the unexplored ground ${unexplored.pixel} is not darker than the explored ${explored.pixel}`);
    assert.deepEqual(pageErrors, []);
    await page.close();
  });

  it("a player's page over binary frames: the hurt agent's bar from the side section", { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors } = await openViewer(browser.browser, server, { hash: `#role=player&token=${RED_TOKEN}&format=binary` });
    await page.waitForFunction(() => window.herd.snapshotFormat === 'binary', null, { timeout: WAIT_MS });
    assertBar(await barOf(page, id.hurt), 'binary');
    assert.equal(await page.evaluate((id) => window.herd.healthBar(id), id.shooter), null);
    assert.deepEqual(pageErrors, []);
    await page.close();
  });

  it('a hit flashes the agent; a death leaves a cross where the agent died, which fades', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page, pageErrors } = await openViewer(browser.browser, server, { hash: `#role=player&token=${RED_TOKEN}` });
    await operator.command({ cmd: 'set_behaviour', agents: [id.shooter], behaviour: 'attack', agent: id.hurt }, WAIT_MS);
    // The first hit flashes the agent white: its yellow body's blue channel (0x20) goes bright,
    // for HIT_MS; looked at in every frame.
    await page.waitForFunction(
      (a) => {
        const h = window.herd;
        const agent = h.agents.find((b) => b.id === a);
        if (!agent) return false;
        const canvas = document.getElementById('world');
        const k = canvas.width / canvas.clientWidth;
        const s = h.worldToScreen(agent.x, agent.y);
        return canvas.getContext('2d').getImageData(Math.floor(s.x * k), Math.floor(s.y * k), 1, 1).data[2] > 150;
      },
      id.hurt,
      { timeout: WAIT_MS, polling: 'raf' },
    );
    await page.waitForFunction((a) => window.herd.game.events.some((e) => e.type === 'death' && e.agent === a), id.hurt, { timeout: WAIT_MS });
    const marks = await page.evaluate(() => window.herd.game.events);
    assert.ok(marks.some((e) => e.type === 'hit' && e.agent === id.hurt), 'the killing hit is marked');
    const death = marks.find((e) => e.type === 'death');
    const at = await page.evaluate((d) => window.herd.worldToScreen(d.x, d.y), death);
    // The cross's arms run through its centre: red there, over the ground (it fades over 2 s).
    const isRed = (p) => p[0] > 120 && p[0] > p[1] + 60 && p[0] > p[2] + 60;
    const first = await pixelAt(page, at.x, at.y);
    assert.ok(isRed(first), `no death cross at the place of the death: ${first}`);
    await page.waitForFunction(
      async ({ x, y }) => {
        await new Promise(requestAnimationFrame);
        const canvas = document.getElementById('world');
        const k = canvas.width / canvas.clientWidth;
        const p = canvas.getContext('2d').getImageData(Math.floor(x * k), Math.floor(y * k), 1, 1).data;
        return !(p[0] > 120 && p[0] > p[1] + 60 && p[0] > p[2] + 60);
      },
      at,
      { timeout: WAIT_MS },
    );
    assert.deepEqual(pageErrors, []);
    await page.close();
  });

  it("a late spectator's page counts down to its first view", { timeout: TEST_TIMEOUT_MS }, async () => {
    const page = await browser.browser.newPage({ viewport: { width: 1280, height: 800 } });
    const pageErrors = [];
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    await page.goto(viewerUrl(server, '#role=spectator'));
    await page.waitForFunction(() => window.herd?.role === 'spectator', null, { timeout: WAIT_MS });
    const note = page.locator('#delay-note');
    await note.waitFor({ state: 'visible', timeout: WAIT_MS });
    const text = await note.textContent();
    const m = /^the world as it was (\d+) s ago: first view in (\d+) s$/.exec(text);
    assert.ok(m, `the note says ${JSON.stringify(text)}`);
    assert.equal(Number(m[1]), SPECTATOR_DELAY);
    assert.ok(Number(m[2]) <= SPECTATOR_DELAY, `counts down from the delay: ${text}`);
    assert.equal(await page.evaluate(() => window.herd.agents.length), 0);
    // The first snapshot ends it: the world shows, the note goes.
    await page.waitForFunction(() => window.herd.agents.length > 0, null, { timeout: WAIT_MS });
    await note.waitFor({ state: 'hidden', timeout: WAIT_MS });
    assert.deepEqual(pageErrors, []);
    await page.close();
  });
});
