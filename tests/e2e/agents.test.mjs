// Agents readable at any size and zoom: a 3,000-unit field in an 800 x 600 window drew them 4 px
// wide (a 2 px radius) with nothing to tell hunter from prey; now every agent is at least 8 px
// wide at any zoom, and roles have marks of their own shapes: a triangle for a hunter (pointing
// where it goes), a diamond for prey, a square for a guard, a star for a leader. Key E shows
// every agent's goal, not only the selection's.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startServer } from './lib/server.mjs';
import { launchBrowser, openViewer, viewerUrl, WAIT_MS } from './lib/browser.mjs';
import { screenshot } from './lib/scene.mjs';
import { waitForTargetCross } from './lib/page_probes.mjs';

const TEST_TIMEOUT_MS = 60_000;
const outDir = process.env.HERD_E2E_OUT || mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-out-'));

// In the page: agent `id`'s drawn body, measured on the canvas across its centre, up and down (its
// heading line and mark lie elsewhere): pixels within `tol` of its colour, in CSS pixels. A disc
// of radius 4 covers 8 pixels across, the outer two partly (anti-aliased): 7 or more are its colour.
async function drawnWidth({ id, tol }) {
  await new Promise(requestAnimationFrame);
  const h = window.herd;
  const canvas = document.getElementById('world');
  const k = canvas.width / canvas.clientWidth;
  const ctx = canvas.getContext('2d');
  const a = h.agents.find((b) => b.id === id);
  const hex = h.theme.groups[a.group % h.theme.groups.length];
  const n = parseInt(hex.slice(1), 16);
  const want = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  const p = h.worldToScreen(a.x, a.y);
  const x = Math.floor(p.x * k);
  const y0 = Math.floor(p.y * k);
  const like = (y) => {
    const d = ctx.getImageData(x, y, 1, 1).data;
    return want.every((c, i) => Math.abs(c - d[i]) <= tol);
  };
  if (!like(y0)) return { width: 0, why: 'the centre is not the agent colour' };
  let up = 0;
  while (like(y0 - up - 1) && up < 200) up++;
  let down = 0;
  while (like(y0 + down + 1) && down < 200) down++;
  return { width: (up + down + 1) / k, scale: h.worldToScreen(1, 0).x - h.worldToScreen(0, 0).x };
}

// In the page: for each agent with a role, the share of its mark's edges whose middle pixel (or a
// neighbour) is the mark's light colour.
async function markCoverage() {
  await new Promise(requestAnimationFrame);
  const h = window.herd;
  const canvas = document.getElementById('world');
  const k = canvas.width / canvas.clientWidth;
  const ctx = canvas.getContext('2d');
  const out = {};
  for (const [id, role] of Object.entries(h.roles)) {
    const pts = h.roleMark(Number(id));
    let lit = 0;
    for (let i = 0; i < pts.length; i++) {
      const [ax, ay] = pts[i];
      const [bx, by] = pts[(i + 1) % pts.length];
      const d = ctx.getImageData(Math.floor(((ax + bx) / 2) * k) - 1, Math.floor(((ay + by) / 2) * k) - 1, 3, 3).data;
      let best = 0;
      for (let j = 0; j < d.length; j += 4) best = Math.max(best, Math.min(d[j], d[j + 1], d[j + 2]));
      if (best >= 170) lit++;
    }
    out[id] = { role, corners: pts.length, lit: lit / Math.max(1, pts.length) };
  }
  return out;
}

// The role each agent's behaviour gives it (roles.js), from the newest snapshot.
function expectedRoles() {
  const agents = window.herd.snapshotAgents;
  const out = {};
  for (const a of agents) {
    if (a.behaviour === 'pursue' || (a.behaviour === 'attack' && a.phase !== 'done')) out[a.id] = 'hunter';
    else if (a.behaviour === 'react') out[a.id] = 'guard';
    else if (a.behaviour === 'flee' || a.behaviour === 'evade') out[a.id] = 'prey';
  }
  for (const a of agents) {
    if (a.subject === undefined || out[a.subject]) continue;
    if (out[a.id] === 'hunter' || out[a.id] === 'guard') out[a.subject] = 'prey';
    else if (a.behaviour === 'seek' || a.behaviour === 'arrive') out[a.subject] = 'leader';
  }
  return out;
}

describe('agents at any size, their roles and goals', { timeout: 4 * TEST_TIMEOUT_MS }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  for (const scenario of ['flee', 'guard']) {
    it(`${scenario} at 800 x 600: agents at least 8 px wide at any zoom, roles marked`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
      const server = await startServer({ scenario });
      const { page, canvasBox, pageErrors } = await openViewer(browser.browser, server, { width: 800, height: 600 });
      try {
        const ids = await page.evaluate(() => window.herd.agents.map((a) => a.id));
        for (const id of ids) {
          const m = await page.evaluate(drawnWidth, { id, tol: 40 });
          t.diagnostic(`fitted: agent ${id} drawn ${m.width} px wide at ${m.scale?.toFixed(3)} px a unit`);
          assert.ok(m.width >= 7, `agent ${id} is ${m.width} px wide (${m.why ?? ''})`);
        }
        // Zoomed out to about half (further, the two agents' marks meet).
        await page.mouse.move(canvasBox.x + canvasBox.width / 2, canvasBox.y + canvasBox.height / 2);
        await page.mouse.wheel(0, 400);
        for (const id of ids) {
          const m = await page.evaluate(drawnWidth, { id, tol: 40 });
          t.diagnostic(`zoomed out: agent ${id} drawn ${m.width} px wide at ${m.scale?.toFixed(3)} px a unit`);
          assert.ok(m.width >= 7, `zoomed out, agent ${id} is ${m.width} px wide (${m.why ?? ''})`);
        }
        await page.keyboard.press('f');

        const want = await page.evaluate(expectedRoles);
        assert.ok(Object.keys(want).length >= 2, `${scenario} has no roles to show: ${JSON.stringify(want)}`);
        await page.waitForFunction((w) => JSON.stringify(window.herd.roles) === JSON.stringify(w), want, { timeout: WAIT_MS });
        const marks = await page.evaluate(markCoverage);
        t.diagnostic(`marks: ${JSON.stringify(marks)}`);
        for (const [id, m] of Object.entries(marks)) {
          assert.ok(m.lit >= 0.66, `agent ${id}'s ${m.role} mark is not drawn (${m.lit} of its edges)`);
        }
        const shapes = new Set(Object.values(marks).map((m) => `${m.role}:${m.corners}`));
        assert.equal(shapes.size, new Set(Object.values(marks).map((m) => m.role)).size);
        await screenshot({ page }, outDir, `roles_${scenario}.png`, t);
        assert.deepEqual(pageErrors, []);
      } finally {
        await page.close();
        await server.stop();
      }
    });
  }

  it('E shows every agent\'s goal; a followed agent is marked leader', { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const server = await startServer({ scenario: 'empty' });
    const page = await browser.browser.newPage({ viewport: { width: 1280, height: 800 } });
    const pageErrors = [];
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    try {
      await page.goto(viewerUrl(server));
      await page.waitForFunction(() => window.herd?.connected, null, { timeout: WAIT_MS });
      const world = await page.evaluate(() => window.herd.world);
      const goal = { x: Math.round(world.width * 0.85), y: Math.round(world.height * 0.8) };
      const seq = await page.evaluate(
        (g) => window.herd.sendCommand({ cmd: 'spawn', agents: [{ x: 30, y: 30, target: g }, { x: 30, y: 120 }] }),
        goal,
      );
      await page.waitForFunction((s) => window.herd.lastAck?.seq === s, seq, { timeout: WAIT_MS });
      const [leader, follower] = await page.evaluate(() => window.herd.lastAck.agents);
      await page.evaluate(
        ([a, b]) => window.herd.sendCommand({ cmd: 'set_behaviour', agents: [b], behaviour: 'arrive', agent: a }),
        [leader, follower],
      );
      await page.waitForFunction((id) => window.herd.roles[id] === 'leader', leader, { timeout: WAIT_MS });
      assert.deepEqual(await page.evaluate(() => window.herd.roles), { [leader]: 'leader' });
      // The mark is drawn on the interpolated frame, two snapshot intervals behind the newest: the
      // agents spawned a moment ago may not be on it yet.
      await page.waitForFunction((id) => window.herd.roleMark(id).length > 0, leader, { timeout: WAIT_MS });
      const star = await page.evaluate((id) => window.herd.roleMark(id).length, leader);
      assert.equal(star, 10, 'a five-pointed star');
      // Nothing selected: no goal drawn until E.
      assert.deepEqual(await page.evaluate(() => window.herd.selected), []);
      const before = await page.evaluate(waitForTargetCross, { id: leader, minChannel: 180, timeoutMs: 1500 });
      assert.equal(before, null, 'a goal was drawn for an agent that is not selected');
      await page.keyboard.press('e');
      await page.locator('#goals-btn[aria-pressed="true"]').waitFor({ timeout: WAIT_MS });
      const cross = await page.evaluate(waitForTargetCross, { id: leader, minChannel: 180, timeoutMs: WAIT_MS });
      assert.ok(cross, `no cross at (${goal.x}, ${goal.y}) with every goal shown`);
      await screenshot({ page }, outDir, 'goals_leader.png', t);
      await page.keyboard.press('e');
      assert.equal(await page.evaluate(() => window.herd.allGoals), false);
      assert.deepEqual(pageErrors, []);
    } finally {
      await page.close();
      await server.stop();
    }
  });
});
