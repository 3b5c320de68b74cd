// The viewer's layout helpers, in Node: the hint shortened by whole parts, the agent panel's
// cells, the cursor's world point, the minimap's size and clicks, the dock's side and insets, and
// a pinch's middle. tests/e2e/layout.test.mjs and touch.test.mjs show them in the page.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { fitHint, HINTS } from '../../clients/web/hud.js';
import { agentCells } from '../../clients/web/panels.js';
import { cursorText } from '../../clients/web/cursor.js';
import { minimapSize, minimapToWorld } from '../../clients/web/minimap.js';
import { dockSide, dockInsets, dockWidth, DOCK_HEIGHT_PX } from '../../clients/web/dock.js';
import { pinchOf, isTouch } from '../../clients/web/touch.js';
import { TileMap } from '../../clients/web/tile_map.js';

describe('the hint', () => {
  const parts = ['H: keys', 'click/drag: select', 'wheel: zoom'];
  it('shows the most first parts that fit, whole', () => {
    const room = (/** @type {number} */ n) => (/** @type {string} */ t) => t.length <= n;
    assert.equal(fitHint(parts, room(100)), 'H: keys · click/drag: select · wheel: zoom');
    assert.equal(fitHint(parts, room(28)), 'H: keys · click/drag: select');
    assert.equal(fitHint(parts, room(27)), 'H: keys');
    assert.equal(fitHint(parts, room(3)), '');
    assert.equal(fitHint([], room(100)), '');
  });

  it("names no command on a viewer's page, and gestures on a touch screen", () => {
    for (const hint of [HINTS.viewer, HINTS.touchViewer]) assert.doesNotMatch(hint.join(' '), /right-click|pause|demo|move/);
    assert.ok(HINTS.touch.every((p) => !/click|wheel/.test(p)));
  });
});

describe('the agent panel', () => {
  const base = { id: 7, x: 100.4, y: 250.6, vx: 3, vy: 4, r: 8, group: 2, state: 'moving' };
  it('gives group, position, speed, target, and – for what is absent', () => {
    assert.deepEqual(agentCells({ ...base, behaviour: 'arrive', tx: 400, ty: 299.5 }, new Map()), [
      '7',
      '2',
      '100, 251',
      'arrive',
      '–',
      'moving',
      '5',
      '400, 300',
      'inertial',
      'direct',
      '–',
      '',
    ]);
    const idle = agentCells({ ...base, collided: true }, new Map([[7, 'prey']]));
    assert.equal(idle[3], '–');
    assert.equal(idle[7], '–', 'no target');
    assert.equal(idle[10], 'prey');
    assert.equal(idle[11], 'collided');
  });

  it('names the agent a behaviour follows', () => {
    assert.equal(agentCells({ ...base, subject: 3, tx: 10, ty: 20 }, new Map())[7], 'agent 3 (10, 20)');
    assert.equal(agentCells({ ...base, subject: 3 }, new Map())[7], 'agent 3');
  });
});

describe("the cursor's point", () => {
  const world = { width: 800, height: 600 };
  it('says x and y in whole units, or tenths when zoomed in, and nothing off the world', () => {
    assert.equal(cursorText({ x: 12.34, y: 560.5 }, world, 1.2, null), 'x 12  y 561');
    assert.equal(cursorText({ x: 12.34, y: 560.5 }, world, 10, null), 'x 12.3  y 560.5');
    assert.equal(cursorText({ x: 0, y: 600 }, world, 1, null), 'x 0  y 600');
    assert.equal(cursorText({ x: -0.1, y: 10 }, world, 1, null), '');
    assert.equal(cursorText({ x: 10, y: 600.5 }, world, 1, null), '');
    assert.equal(cursorText({ x: NaN, y: 10 }, world, 1, null), '');
  });

  it('names the tile on a tile map', () => {
    const map = new TileMap({ width: 20, height: 15, tile_size: 40, rows: [] });
    assert.equal(cursorText({ x: 95, y: 41 }, world, 1, map), 'x 95  y 41  tile 2, 1');
  });
});

describe('the minimap', () => {
  it("takes the world's shape within its room, in whole pixels", () => {
    assert.deepEqual(minimapSize({ width: 800, height: 600 }, 226, 200), { w: 226, h: 169 });
    assert.deepEqual(minimapSize({ width: 800, height: 600 }, 200, 100), { w: 133, h: 100 });
    assert.deepEqual(minimapSize({ width: 1e6, height: 1 }, 200, 100), { w: 200, h: 1 }, 'never 0 pixels');
  });

  it('turns a click into a world point, kept inside the world', () => {
    const world = { width: 800, height: 600 };
    assert.deepEqual(minimapToWorld(world, 200, 150, 50, 112.5), { x: 200, y: 450 });
    assert.deepEqual(minimapToWorld(world, 200, 150, -5, 400), { x: 0, y: 600 });
  });
});

describe('the dock', () => {
  it('is a column at the left of a wide stage and a row along the bottom of a tall one', () => {
    assert.equal(dockSide(1280, 700), 'left');
    assert.equal(dockSide(390, 560), 'bottom');
  });

  it('covers what it shows, and nothing when empty', () => {
    assert.deepEqual(dockInsets('left', 240, false), { left: 0, top: 0, right: 0, bottom: 0 });
    assert.deepEqual(dockInsets('left', 240, true), { left: 252, top: 0, right: 0, bottom: 0 });
    assert.deepEqual(dockInsets('bottom', 240, true), { left: 0, top: 0, right: 0, bottom: 12 + DOCK_HEIGHT_PX });
    assert.ok(dockWidth(800) < dockWidth(1280), 'narrower on a small stage');
  });
});

describe('touch', () => {
  it("finds a pinch's spread and middle", () => {
    assert.deepEqual(pinchOf({ x: 0, y: 0 }, { x: 6, y: 8 }), { dist: 10, mid: { x: 3, y: 4 } });
    assert.deepEqual(pinchOf({ x: 5, y: 5 }, { x: 5, y: 5 }), { dist: 0, mid: { x: 5, y: 5 } });
  });

  it('tells a touch from a mouse', () => {
    assert.equal(isTouch(/** @type {any} */ ({ pointerType: 'touch' })), true);
    assert.equal(isTouch(/** @type {any} */ ({ pointerType: 'mouse' })), false);
    assert.equal(isTouch(/** @type {any} */ ({ sourceCapabilities: { firesTouchEvents: true } })), true);
    assert.equal(isTouch(/** @type {any} */ ({})), false);
  });
});
