// The viewer's layout helpers, in Node: the hint shortened by whole parts, the agent panel's
// cells, the cursor's world point, the minimap's size and clicks, the dock's side and insets, and
// a pinch's middle. tests/e2e/layout.test.mjs and touch.test.mjs show them in the page.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { fitHint, HINTS } from '../../clients/web/hud.js';
import { agentCells } from '../../clients/web/panels.js';
import { cursorText } from '../../clients/web/cursor.js';
import { minimapSize, minimapToWorld } from '../../clients/web/minimap.js';
import { columnWidth, dockLayout, dockSide, dockWidth, DOCK_HEIGHT_PX, TRAY_HEIGHT_PX } from '../../clients/web/dock.js';
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

  // No two boxes of a layout overlap, each lies inside the stage, and none reaches into the free
  // part the insets leave (where the world is drawn).
  const checkLayout = (w, h, layout) => {
    const boxes = [layout.dock, layout.tray, layout.column].filter(Boolean);
    const free = { left: layout.insets.left, top: layout.insets.top, right: w - layout.insets.right, bottom: h - layout.insets.bottom };
    for (const [i, b] of boxes.entries()) {
      assert.ok(b.left >= 0 && b.top >= 0 && b.left + b.width <= w && b.top + b.height <= h, `outside the stage: ${JSON.stringify(b)}`);
      const meetsFree = b.left < free.right && b.left + b.width > free.left && b.top < free.bottom && b.top + b.height > free.top;
      assert.ok(!meetsFree, `${JSON.stringify(b)} reaches into the free part ${JSON.stringify(free)}`);
      for (const c of boxes.slice(i + 1)) {
        const overlap = b.left < c.left + c.width && c.left < b.left + b.width && b.top < c.top + c.height && c.top < b.top + b.height;
        assert.ok(!overlap, `${JSON.stringify(b)} overlaps ${JSON.stringify(c)}`);
      }
    }
    assert.ok(free.right - free.left > 0 && free.bottom - free.top > 0, 'no room left for the world');
  };

  it('keeps the tray along the bottom always, the side dock and the column while they show something', () => {
    const bare = dockLayout(1280, 700, { dockShown: false, columnShown: false });
    assert.deepEqual(bare.insets, { left: 0, top: 0, right: 0, bottom: 12 + TRAY_HEIGHT_PX });
    assert.equal(bare.dock, null);
    assert.equal(bare.column, null);
    assert.deepEqual(bare.tray, { left: 12, top: 700 - 12 - TRAY_HEIGHT_PX, width: 1256, height: TRAY_HEIGHT_PX });
    const all = dockLayout(1280, 700, { dockShown: true, columnShown: true });
    assert.deepEqual(all.insets, { left: 12 + dockWidth(1280), top: 0, right: 12 + columnWidth(1280), bottom: 12 + TRAY_HEIGHT_PX });
    assert.equal(all.tray.left, 12 + dockWidth(1280) + 12, 'the tray is beside the side dock');
    assert.ok(all.column.top + all.column.height <= all.tray.top, 'the column is above the tray');
    for (const [w, h] of [[800, 470], [1280, 700], [1920, 980], [390, 620]]) {
      for (const dockShown of [false, true]) {
        for (const columnShown of [false, true]) checkLayout(w, h, dockLayout(w, h, { dockShown, columnShown }));
      }
    }
    const tall = dockLayout(390, 620, { dockShown: true, columnShown: false });
    assert.equal(tall.side, 'bottom');
    assert.deepEqual(tall.insets, { left: 0, top: 0, right: 0, bottom: 12 + DOCK_HEIGHT_PX + 12 + TRAY_HEIGHT_PX });
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
