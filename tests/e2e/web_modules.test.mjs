// The viewer's pure modules, run in Node without a browser or a server: the tile map, the paint
// brush's batching (the protocol's limits), and the demo keys' choice of command. The end-to-end
// tests show them working; these pin the edge cases an end-to-end run cannot reach cheaply.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { TileMap, tileLine } from '../../clients/web/tile_map.js';
import { Painter, chunkTiles, MAX_TILES_PER_COMMAND, MAX_COMMAND_BYTES } from '../../clients/web/paint.js';
import { DemoKeys } from '../../clients/web/demo_keys.js';
import { layerTilePx } from '../../clients/web/map_view.js';
import { Interpolator, lerpAgents } from '../../clients/web/interp.js';

const FRAME_LIMIT = 65_536; // PROTOCOL.md: larger frames close the connection

const MAP = { width: 5, height: 3, tile_size: 40, rows: ['#####', '#...#', '#####'] };

describe('TileMap', () => {
  it('reads rows, treats off-map as blocked, finds tiles and centres', () => {
    const m = new TileMap(MAP);
    assert.equal(m.isBlocked(0, 0), true);
    assert.equal(m.isBlocked(2, 1), false);
    assert.equal(m.isBlocked(-1, 1), true);
    assert.equal(m.isBlocked(5, 1), true);
    assert.deepEqual(m.tileAt(99, 41), { x: 2, y: 1 });
    assert.equal(m.tileAt(200, 10), null);
    assert.deepEqual(m.centre(2, 1), { x: 100, y: 60 });
    assert.deepEqual(m.rows(), MAP.rows);
  });

  it('reads a short or missing row as walls', () => {
    const m = new TileMap({ width: 3, height: 2, tile_size: 1, rows: ['..'] });
    assert.deepEqual(m.rows(), ['..#', '###']);
  });
});

describe('tileLine', () => {
  it('joins two tiles with 4-neighbour steps, both ends included', () => {
    for (const [a, b] of [
      [{ x: 0, y: 0 }, { x: 3, y: 0 }],
      [{ x: 4, y: 4 }, { x: 4, y: 1 }],
      [{ x: 0, y: 0 }, { x: 5, y: 3 }],
      [{ x: 2, y: 1 }, { x: -3, y: 4 }],
      [{ x: 7, y: 7 }, { x: 7, y: 7 }],
    ]) {
      const line = tileLine(a, b);
      assert.deepEqual(line[0], a);
      assert.deepEqual(line.at(-1), b);
      assert.equal(line.length, Math.abs(b.x - a.x) + Math.abs(b.y - a.y) + 1);
      for (let i = 1; i < line.length; i++) {
        assert.equal(Math.abs(line[i].x - line[i - 1].x) + Math.abs(line[i].y - line[i - 1].y), 1, JSON.stringify(line));
      }
    }
  });
});

describe('paint batching', () => {
  it('keeps every set_tiles under 10,000 tiles and the 64 KiB frame', () => {
    const tiles = [];
    for (let y = 1000; y < 1024; y++) for (let x = 0; x < 1024; x++) tiles.push({ x, y, blocked: false });
    const chunks = chunkTiles(tiles);
    assert.ok(chunks.length > 1);
    assert.deepEqual(chunks.flat(), tiles);
    for (const c of chunks) {
      assert.ok(c.length <= MAX_TILES_PER_COMMAND);
      const frame = JSON.stringify({ type: 'command', seq: 4294967295, cmd: 'set_tiles', tiles: c });
      assert.ok(frame.length <= MAX_COMMAND_BYTES + 100 && frame.length < FRAME_LIMIT, `${frame.length} bytes`);
    }
  });

  it('coalesces a drag into one command of the tiles that change, kept as a preview until shown', () => {
    const sent = [];
    const painter = new Painter((tiles) => (sent.push(tiles), sent.length));
    const map = new TileMap(MAP);
    painter.setOn(true);
    // From the wall at (0, 1) across the floor to the wall at (4, 1), and back over (3, 1).
    painter.begin(map, { x: 20, y: 60 }, true);
    painter.extend(map, { x: 180, y: 60 });
    painter.extend(map, { x: 140, y: 60 });
    assert.deepEqual(sent, [], 'sent before the button came up');
    assert.deepEqual(painter.preview().map((t) => t.x), [1, 2, 3]);
    painter.end();
    assert.deepEqual(sent, [[1, 2, 3].map((x) => ({ x, y: 1, blocked: true }))]);

    // The preview stays until the first snapshot at or after the ack's tick.
    painter.acked(1, 50);
    painter.snapshot(49);
    assert.equal(painter.preview().length, 3);
    painter.snapshot(50);
    assert.equal(painter.preview().length, 0);

    // A refused command drops its preview at once; erasing a tile that is still floor sends nothing.
    painter.begin(map, { x: 60, y: 60 }, true);
    painter.end();
    painter.refused(2);
    assert.equal(painter.preview().length, 0);
    painter.begin(map, { x: 60, y: 60 }, false);
    painter.end();
    assert.equal(sent.length, 2);
  });
});

describe('map layer resolution', () => {
  it('one pixel a tile for a 1024 x 1024 map; the tile size on screen for small maps, within limits', () => {
    assert.equal(layerTilePx(1.2, 1024, 1024), 1);
    assert.equal(layerTilePx(37.3, 20, 15), 38);
    assert.equal(layerTilePx(500, 20, 15), 64);
    const px = layerTilePx(20, 300, 300);
    assert.ok(px * px * 300 * 300 <= 8_000_000, `${px} px a tile`);
  });
});

describe('demo keys', () => {
  const centre = { x: 400, y: 300 };

  it('B is exchange after G, invert after P, swap_places otherwise', () => {
    const keys = new DemoKeys();
    const b = () => keys.command('B', 'all', centre).cmd;
    assert.equal(b(), 'swap_places');
    keys.command('R', 'all', centre);
    assert.equal(b(), 'swap_places');
    keys.command('G', 'all', centre);
    assert.equal(b(), 'exchange');
    assert.equal(b(), 'exchange', 'B again exchanges back');
    keys.command('P', 'all', centre);
    assert.equal(b(), 'invert');
    keys.command('T', 'all', centre);
    assert.equal(b(), 'swap_places');
  });

  it('sends the demo commands on the given selection', () => {
    const keys = new DemoKeys();
    assert.deepEqual(keys.command('t', [3, 4], centre), { cmd: 'opposite', agents: [3, 4], groups: 3 });
    assert.deepEqual(keys.command('G', [3, 4], centre), {
      cmd: 'formation',
      agents: [3, 4],
      shape: 'block',
      centre,
      count: 2,
      regroup: true,
    });
    assert.equal(keys.command('X', 'all', centre), null);
  });
});

describe('interpolation', () => {
  it('places each agent of the newer snapshot between its two positions; one that stood still is not copied', () => {
    const still = { id: 2, x: 5, y: 5, vx: 0, vy: 0, group: 1 };
    const from = [{ id: 1, x: 0, y: 0 }, { ...still }, { id: 3, x: 9, y: 9 }];
    const to = [{ id: 1, x: 10, y: -4, group: 0, collided: true }, still, { id: 4, x: 1, y: 1 }];
    const out = lerpAgents(from, to, 0.25);
    assert.deepEqual(out[0], { id: 1, x: 2.5, y: -1, group: 0, collided: true });
    assert.equal(out[1], still, 'a still agent is the snapshot\'s own object');
    assert.equal(out[2], to[2], 'a new agent is drawn where the newer snapshot has it');
    assert.equal(out.length, 3, 'an agent gone from the newer snapshot is not drawn');
  });

  it('extrapolates moving agents along their velocity when the buffer runs dry, and leaves still ones', () => {
    const interp = new Interpolator();
    interp.reset(60, 20);
    const still = { id: 1, x: 5, y: 5, vx: 0, vy: 0 };
    interp.push(60, [still, { id: 2, x: 0, y: 0, vx: 10, vy: 0 }], 1000);
    // Page time 1000 ms is world time 1000 ms; drawn 100 ms behind, then 20 ms past the newest.
    const out = interp.sample(1000 + interp.delayMs + 20);
    assert.equal(interp.last.mode, 'extrapolate');
    assert.equal(out[0], still);
    assert.ok(Math.abs(out[1].x - 0.2) < 1e-9, `x ${out[1].x}`);
  });
});
