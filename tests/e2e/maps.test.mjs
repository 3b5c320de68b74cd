// End-to-end: a tile map in the viewer (scenario `maze`: the no-backtracking walker's 20 x 15 map;
// agent 1 is the no-backtracking walker, agent 2 follows A*, agents 3-7 flow fields). The map is
// drawn under everything, the walker's trail through its history's tile centres, and painting walls
// with the mouse changes the server's map, which a second client sees.
//
// A second world carries a 1024 x 1024 map, the protocol's largest: drawn once, one pixel a tile.
//
// Env as in viewer.test.mjs. Screenshots go to HERD_E2E_OUT (default a fresh temporary directory).

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ProtocolClient } from './lib/ws_client.mjs';
import { launchBrowser, WAIT_MS } from './lib/browser.mjs';
import { hexToRgb, colorDistance } from './lib/colors.mjs';
import { openScene, screenshot, worldToPage, clickWorld } from './lib/scene.mjs';
import { tileCentres, waitForTrail, waitForTiles, waitForUnreachableBadge } from './lib/map_probes.mjs';

const TEST_TIMEOUT_MS = 60_000;
// Tile fills are flat colours; blitting the map's layer never blends them at a tile's centre.
const FILL_TOLERANCE = 6;
// The floor tiles the paint test blocks: the only way into tile (18, 1), the maze's top right
// corner, passes (18, 2).
const ROW = 2;
const PAINTED = [15, 16, 17, 18].map((x) => ({ x, y: ROW }));
const GOAL_TILE = { x: 18, y: 1 };

describe('the viewer on a tile map (maze)', { timeout: 5 * TEST_TIMEOUT_MS }, () => {
  let browser;
  let scene;
  let theme;
  const outDir = process.env.HERD_E2E_OUT || mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-out-'));

  before(async () => {
    browser = await launchBrowser();
    scene = await openScene(browser.browser, 'maze');
    theme = await scene.page.evaluate(() => window.herd.theme);
  });
  after(async () => {
    await scene?.close();
    await browser?.close();
  });

  // A second client that keeps the map as it knows it: the welcome's, then each snapshot's that
  // carries one (only the first snapshot after a change does).
  async function mapClient(role) {
    const client = await ProtocolClient.connect(scene.server.wsUrl, { role });
    client.map = client.welcome.map ?? null;
    client.ws.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      if (msg.type === 'snapshot' && 'map' in msg) client.map = msg.map;
    });
    return client;
  }

  // Resolves once the client's map satisfies cond: at once if it already does (the snapshot with
  // the change may have come before this is called), else with the next snapshot whose map does.
  async function mapWhere(client, cond, what) {
    if (client.map && cond(client.map)) return client.map;
    return (await nextOrExplain(client, (m) => m.type === 'snapshot' && 'map' in m && m.map && cond(m.map), what)).map;
  }

  // Presses the mouse at the centre of tile `from`, drags to the centre of tile `to` and releases.
  async function dragTiles(from, to, { button = 'left', shift = false } = {}) {
    const { page } = scene;
    const tile = (await page.evaluate(() => window.herd.map)).tile_size;
    const a = await worldToPage(scene, (from.x + 0.5) * tile, (from.y + 0.5) * tile);
    const b = await worldToPage(scene, (to.x + 0.5) * tile, (to.y + 0.5) * tile);
    await page.mouse.move(a.x, a.y);
    if (shift) await page.keyboard.down('Shift');
    await page.mouse.down({ button });
    await page.mouse.move(b.x, b.y, { steps: 8 });
    await page.mouse.up({ button });
    if (shift) await page.keyboard.up('Shift');
  }

  // client.next(...), failing with what the page sent and knows (the likely reason).
  async function nextOrExplain(client, predicate, what) {
    try {
      return await client.next(predicate, WAIT_MS, what);
    } catch (err) {
      const seen = await scene.page.evaluate((y) => ({
        sent: window.herd.lastCommand,
        ack: window.herd.lastAck,
        error: window.herd.lastError,
        row: window.herd.map?.rows[y],
        agents: window.herd.agents.map((a) => `${a.id}@${(a.x / 40).toFixed(1)},${(a.y / 40).toFixed(1)}`),
      }), ROW);
      throw new Error(`${err.message}; the page: ${JSON.stringify(seen)}`, { cause: err });
    }
  }

  const rowOf = (map, y) => map.rows[y];
  const painted = (map, xs, ch) => xs.every((x) => rowOf(map, ROW)[x] === ch);

  it('draws the map: walls in the wall colour, floor in the floor colour, the layer drawn once', async () => {
    const { page } = scene;
    const map = await page.evaluate(() => window.herd.map);
    assert.equal(map.width, 20);
    assert.equal(map.height, 15);
    const probe = await page.evaluate(tileCentres);
    const walls = probe.tiles.filter((t) => t.blocked);
    const floors = probe.tiles.filter((t) => !t.blocked);
    assert.ok(walls.length > 50 && floors.length > 40, `too few tiles clear of agents: ${walls.length} walls, ${floors.length} floors`);
    // Tiles are big enough on screen to tell apart at a glance.
    assert.ok(probe.tilePx >= 20, `tiles are ${probe.tilePx} px`);
    const wrongWalls = walls.filter((t) => colorDistance(t.pixel, hexToRgb(theme.wall)) > FILL_TOLERANCE);
    const wrongFloors = floors.filter((t) => colorDistance(t.pixel, hexToRgb(theme.floor)) > FILL_TOLERANCE);
    assert.deepEqual(wrongWalls, [], `wall tiles not drawn ${theme.wall}`);
    assert.deepEqual(wrongFloors, [], `floor tiles not drawn ${theme.floor}`);
    // Wall and floor are told apart, and neither passes for an agent.
    assert.ok(colorDistance(hexToRgb(theme.wall), hexToRgb(theme.floor)) > 24);
    for (const c of theme.groups) assert.ok(colorDistance(hexToRgb(theme.wall), hexToRgb(c)) > 60);

    // The map's layer is drawn once and blitted: many frames later it has not been drawn again.
    const renders = await page.evaluate(() => window.herd.mapRenders);
    assert.ok(renders >= 1);
    await page.evaluate(async () => {
      for (let i = 0; i < 30; i++) await new Promise(requestAnimationFrame);
    });
    assert.equal(await page.evaluate(() => window.herd.mapRenders), renders, 'the map layer is drawn again on every frame');
  });

  it("draws the walker's trail through its history's tile centres, fading with age", { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const { page } = scene;
    const walker = await page.evaluate(() => window.herd.agents.find((a) => a.id === 1));
    assert.equal(walker.pathing, 'no_backtrack');
    const trail = await page.evaluate(waitForTrail, { id: 1, minSegments: 3, tolerance: 10, timeoutMs: WAIT_MS });
    assert.ok(trail.ok, `the trail is not drawn between the history's tile centres: ${JSON.stringify(trail)}`);
    // It fades: the oldest segment is fainter than the newest.
    const n = trail.history.length / 2;
    const [oldest, newest] = await page.evaluate((k) => [window.herd.trailAlpha(1, k), window.herd.trailAlpha(k - 1, k)], n);
    assert.ok(oldest < 0.5 && newest === 1, `trail opacity from ${oldest} to ${newest}`);
    t.diagnostic(`trail segments checked: ${JSON.stringify(trail.checked.map((c) => c.segment))}`);
    await screenshot(scene, outDir, 'maze_trail.png', t);
  });

  it('paint mode: a drag blocks tiles, a second client sees them, the canvas shows walls; the cut-off agent is marked', { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const { page } = scene;
    const commander = await mapClient('commander');
    try {
      assert.ok(painted(commander.map, [15, 16, 17, 18], '.'), `tiles (15..18, ${ROW}) are not floor: ${rowOf(commander.map, ROW)}`);
      // A fresh A* agent in the top left corner heading for tile (18, 1): a long way, so it is still
      // on the way when the wall goes up.
      const tile = commander.map.tile_size;
      const spawnAck = commander.next((m) => m.seq === 1 && (m.type === 'ack' || m.type === 'error'), WAIT_MS, 'answer to spawn');
      commander.send({
        type: 'command',
        seq: 1,
        cmd: 'spawn',
        agents: [{ x: 1.5 * tile, y: 1.5 * tile, group: 4, target: { x: (GOAL_TILE.x + 0.5) * tile, y: (GOAL_TILE.y + 0.5) * tile } }],
      });
      const spawned = await spawnAck;
      assert.equal(spawned.type, 'ack', JSON.stringify(spawned));
      const id = spawned.agents[0];
      const pathAck = commander.next((m) => m.seq === 2 && (m.type === 'ack' || m.type === 'error'), WAIT_MS, 'answer to set_pathing');
      commander.send({ type: 'command', seq: 2, cmd: 'set_pathing', agents: [id], pathing: 'astar' });
      assert.equal((await pathAck).type, 'ack');

      await page.keyboard.press('M');
      await page.waitForFunction(() => window.herd.painting, null, { timeout: WAIT_MS });
      await page.locator('#paint-btn[aria-pressed="true"]').waitFor({ timeout: WAIT_MS });
      await page.locator('#paint-banner').waitFor({ state: 'visible', timeout: WAIT_MS });

      await dragTiles(PAINTED[0], PAINTED[3]);
      // The page sent set_tiles, and the server's map now has the walls.
      const sent = await page.evaluate(() => window.herd.lastCommand);
      assert.equal(sent.cmd, 'set_tiles');
      assert.ok(sent.tiles.every((u) => u.blocked === true && u.y === ROW), JSON.stringify(sent));
      await mapWhere(commander, (m) => painted(m, [15, 16, 17, 18], '#'), `snapshot with tiles (15..18, ${ROW}) blocked`);
      await page.waitForFunction(() => [15, 16, 17, 18].every((x) => window.herd.tileBlocked(x, 2)), null, { timeout: WAIT_MS });
      // Painting did not select or order anyone.
      assert.deepEqual(await page.evaluate(() => window.herd.selected), []);

      const walls = await page.evaluate(waitForTiles, { tiles: PAINTED, want: 'wall', tolerance: FILL_TOLERANCE, timeoutMs: WAIT_MS });
      assert.ok(walls.ok, `painted tiles are not drawn as walls: ${JSON.stringify(walls)}`);
      await page.waitForFunction(() => window.herd.paintPending === 0, null, { timeout: WAIT_MS });

      // Its goal walled off, the A* agent cannot get there: marked on the map.
      const badge = await page.evaluate(waitForUnreachableBadge, { id, tolerance: 10, timeoutMs: WAIT_MS });
      assert.ok(badge.ok, `no "!" badge on unreachable agent ${id}: ${JSON.stringify(badge)}`);
      // The map change restarted the walker's history: the picture waits for a few tiles of trail.
      await page.waitForFunction(() => (window.herd.agents.find((a) => a.id === 1)?.history?.length ?? 0) >= 10, null, { timeout: WAIT_MS });
      await screenshot(scene, outDir, 'maze_paint.png', t);

      // And the panel says so, once it is selected (out of paint mode: there the mouse paints).
      await page.keyboard.press('M');
      await page.waitForFunction(() => !window.herd.painting, null, { timeout: WAIT_MS });
      await page.locator('#paint-banner').waitFor({ state: 'hidden', timeout: WAIT_MS });
      const a = await page.evaluate((i) => window.herd.agents.find((b) => b.id === i), id);
      await clickWorld(scene, a.x, a.y);
      await page.waitForFunction((i) => JSON.stringify(window.herd.selected) === JSON.stringify([i]), id, { timeout: WAIT_MS });
      const row = page.locator(`#agent-rows tr.unreachable[data-id="${id}"]`);
      await row.waitFor({ timeout: WAIT_MS });
      const cells = await row.locator('td').allTextContents();
      assert.equal(cells[5], 'unreachable');
      assert.equal(cells[9], 'astar');
      await page.locator('#agent-note', { hasText: `agent ${id} cannot reach the goal` }).waitFor({ timeout: WAIT_MS });
      await screenshot(scene, outDir, 'maze_unreachable_panel.png', t);
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => window.herd.selected.length === 0, null, { timeout: WAIT_MS });
    } finally {
      commander.close();
    }
  });

  it('paint mode: Shift-drag and right-drag clear tiles again', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page } = scene;
    const watcher = await mapClient('viewer');
    try {
      await page.locator('#paint-btn').click(); // the button does what M does
      await page.waitForFunction(() => window.herd.painting, null, { timeout: WAIT_MS });

      await dragTiles(PAINTED[0], PAINTED[1], { shift: true });
      await mapWhere(watcher, (m) => painted(m, [15, 16], '.') && painted(m, [17, 18], '#'), 'snapshot with tiles 15, 16 cleared');
      await dragTiles(PAINTED[2], PAINTED[3], { button: 'right' });
      await mapWhere(watcher, (m) => painted(m, [15, 16, 17, 18], '.'), 'snapshot with tiles 15..18 cleared');
      const floors = await page.evaluate(waitForTiles, { tiles: PAINTED, want: 'floor', tolerance: FILL_TOLERANCE, timeoutMs: WAIT_MS });
      assert.ok(floors.ok, `cleared tiles are not drawn as floor: ${JSON.stringify(floors)}`);
      // The way is open again: nobody is unreachable any more.
      await page.waitForFunction(() => window.herd.agents.every((a) => a.state !== 'unreachable'), null, { timeout: WAIT_MS });

      await page.keyboard.press('Escape'); // leaves paint mode
      await page.waitForFunction(() => !window.herd.painting, null, { timeout: WAIT_MS });
    } finally {
      watcher.close();
    }
  });

  it('a snapshot with "map": null removes the map from the picture', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { page } = scene;
    const commander = await ProtocolClient.connect(scene.server.wsUrl, { role: 'commander' });
    try {
      const probe = await page.evaluate(tileCentres);
      const wall = probe.tiles.find((u) => u.blocked && u.x > 0 && u.y > 0 && u.x < 19 && u.y < 14);
      assert.ok(wall, 'no inner wall tile clear of agents');
      const answer = commander.next((m) => m.seq === 1 && (m.type === 'ack' || m.type === 'error'), WAIT_MS, 'answer to clear_map');
      commander.send({ type: 'command', seq: 1, cmd: 'clear_map' });
      assert.equal((await answer).type, 'ack');
      await page.waitForFunction(() => window.herd.map === null, null, { timeout: WAIT_MS });
      const ground = await page.evaluate(
        async ([x, y]) => {
          await new Promise(requestAnimationFrame);
          const h = window.herd;
          const canvas = document.getElementById('world');
          const k = canvas.width / canvas.clientWidth;
          const s = h.worldToScreen((x + 0.5) * 40, (y + 0.5) * 40);
          return Array.from(canvas.getContext('2d').getImageData(Math.floor(s.x * k), Math.floor(s.y * k), 1, 1).data);
        },
        [wall.x, wall.y],
      );
      // The world's ground (give or take a faint grid line), no wall.
      assert.ok(colorDistance(ground, hexToRgb(theme.world)) <= 12, `pixel where a wall was is ${ground}, want ${theme.world}`);
      // Without a map there is nothing to paint.
      await page.keyboard.press('M');
      await page.locator('.toast', { hasText: 'no tile map' }).waitFor({ state: 'visible', timeout: WAIT_MS });
      assert.equal(await page.evaluate(() => window.herd.painting), false);
    } finally {
      commander.close();
    }
  });

  it('the page threw no uncaught exception', () => {
    assert.deepEqual(scene.pageErrors, []);
  });
});

// The largest map the protocol allows, from a scenario file (a frame could not carry it): blocks of
// 29 x 29 wall tiles in a checkerboard of 32 x 32, with floor channels between them.
describe('the viewer on a 1024 x 1024 map', { timeout: TEST_TIMEOUT_MS }, () => {
  const SIDE = 1024;
  const BLOCK = 32;
  const TILE = 10;
  let browser;
  let scene;
  let dir;
  const isWallBlock = (bx, by) => (bx + by) % 2 === 0;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'herd-e2e-bigmap-'));
    const rows = [];
    for (let y = 0; y < SIDE; y++) {
      let row = '';
      for (let x = 0; x < SIDE; x++) {
        const wall = isWallBlock(x >> 5, y >> 5) && x % BLOCK > 2 && y % BLOCK > 2;
        row += wall ? '#' : '.';
      }
      rows.push(row);
    }
    const file = path.join(dir, 'big_map.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'big_map',
        description: 'a 1024 x 1024 tile map',
        world: { width: SIDE * TILE, height: SIDE * TILE, seed: 1, tick_rate: 60, agent: { radius: 8, max_speed: 120, max_force: 400, slow_radius: 60 } },
        commands: [
          { cmd: 'load_map', width: SIDE, height: SIDE, tile_size: TILE, rows },
          { cmd: 'spawn', agents: [{ x: 15, y: 15 }] },
        ],
      }),
    );
    browser = await launchBrowser();
    scene = await openScene(browser.browser, file);
  });
  after(async () => {
    await scene?.close();
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('draws it once into a layer of one pixel a tile, and the blocks where they are', async () => {
    const { page } = scene;
    await page.waitForFunction(() => window.herd.map?.width === 1024, null, { timeout: WAIT_MS });
    // Block centres: the middle tile of each 29-tile wall block, and of the floor blocks between.
    const walls = [];
    const floors = [];
    for (let by = 1; by < SIDE / BLOCK; by += 5) {
      for (let bx = 1; bx < SIDE / BLOCK; bx += 3) {
        (isWallBlock(bx, by) ? walls : floors).push({ x: bx * BLOCK + 17, y: by * BLOCK + 17 });
      }
    }
    for (const [tiles, want] of [[walls, 'wall'], [floors, 'floor']]) {
      const seen = await page.evaluate(waitForTiles, { tiles, want, tolerance: FILL_TOLERANCE, timeoutMs: WAIT_MS });
      assert.ok(seen.ok && seen.seen >= tiles.length - 2, `${want} blocks are not drawn ${want}: ${JSON.stringify(seen).slice(0, 600)}`);
    }
    assert.equal(await page.evaluate(() => window.herd.mapLayerTilePx), 1);
    const renders = await page.evaluate(() => window.herd.mapRenders);
    await page.evaluate(async () => {
      for (let i = 0; i < 30; i++) await new Promise(requestAnimationFrame);
    });
    assert.equal(await page.evaluate(() => window.herd.mapRenders), renders, 'the big map is drawn again on every frame');
    assert.equal(renders, 1);
    assert.deepEqual(scene.pageErrors, []);
  });
});
