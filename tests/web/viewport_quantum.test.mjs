// The position quantum the viewer asks for with its viewport (session.js): the coarsest power of
// two in [1/64, 1] world units no larger than one device pixel, so that binary positions stay
// pixel-exact at every zoom and pixel ratio; finer at once, coarser only 2 steps at a time (each
// change makes the server send a keyframe); and syncViewport sending it, with the rectangle or
// alone, on fakes of the page's connection and view.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { COARSEST_QUANTUM, FINEST_QUANTUM, Session, idealQuantum, nextQuantum } from '../../clients/web/session.js';
import { newViewerState } from '../../clients/web/viewer_state.js';

const WORLD = { width: 800, height: 600 };
const EVERY_MS = 250; // session.js's VIEWPORT_EVERY_MS

// A session whose view shows the world at `scale` CSS pixels a unit from `origin` on an 800 x 600
// canvas of `dpr` device pixels a CSS pixel; what it sends is in `sent`.
function fakeSession() {
  const sent = /** @type {object[]} */ ([]);
  const noop = () => {};
  const conn = { state: 'connected', generation: 1, hasToken: true, hello: { role: 'commander' }, snapshotFormat: 'binary', send: (/** @type {object} */ m) => (sent.push(m), true) };
  const view = {
    cssWidth: 800,
    cssHeight: 600,
    scale: 1,
    dpr: 1,
    originX: 0,
    originY: 0,
    insets: { left: 0, top: 0, right: 0, bottom: 0 }, // what docked panels cover (view.js)
    screenToWorld(/** @type {number} */ x, /** @type {number} */ y) {
      return { x: (x - this.originX) / this.scale, y: (y - this.originY) / this.scale };
    },
    freeRect() {
      const i = this.insets;
      return { x: i.left, y: i.top, w: this.cssWidth - i.left - i.right, h: this.cssHeight - i.top - i.bottom };
    },
    setWorld: noop,
    setMap: noop,
  };
  const session = new Session(
    /** @type {any} */ ({
      conn,
      state: newViewerState(),
      view,
      hud: { toast: noop },
      interp: { reset: noop },
      stats: { reset: noop, message: noop },
      inspector: { sessionStarted: noop },
      painter: { on: false, reset: noop, setOn: noop, refused: noop },
      bar: { update: noop, flashNote: noop },
      heat: { welcomed: noop, receive: noop },
    }),
  );
  const welcome = () =>
    session.handleMessage(/** @type {any} */ ({ type: 'welcome', role: 'commander', tick: 0, tick_rate: 60, snapshot_rate: 20, world: WORLD }));
  welcome();
  return { session, view, conn, sent, welcome };
}

describe('idealQuantum', () => {
  it('is the coarsest power of two in [1/64, 1] no larger than a device pixel in world units', () => {
    assert.deepEqual([FINEST_QUANTUM, COARSEST_QUANTUM], [1 / 64, 1]);
    const cases = [
      [4, 1], [1, 1], [0.99, 0.5], [0.5, 0.5], [0.3, 0.25], [0.25, 0.25], [0.2, 0.125],
      [1 / 32, 1 / 32], [0.03, 1 / 64], [1 / 64, 1 / 64], [0.001, 1 / 64], [Infinity, 1],
    ];
    for (const [unitsPerPx, q] of cases) assert.equal(idealQuantum(unitsPerPx), q, `${unitsPerPx} units a pixel`);
    for (const unknown of [0, -1, NaN]) assert.equal(idealQuantum(unknown), 1 / 64, String(unknown));
    // Pixel-exact, and no finer than that needs, wherever the zoom is.
    for (let pxPerUnit = 0.1; pxPerUnit < 200; pxPerUnit *= 1.07) {
      const q = idealQuantum(1 / pxPerUnit);
      assert.ok(q <= 1 / pxPerUnit || q === FINEST_QUANTUM, `${pxPerUnit} px a unit: ${q}`);
      assert.ok(2 * q > 1 / pxPerUnit || q === COARSEST_QUANTUM, `${pxPerUnit} px a unit: ${q} could be coarser`);
    }
  });
});

describe('nextQuantum', () => {
  it('takes the ideal first, a finer one at once, a coarser one only 2 steps or more away', () => {
    assert.equal(nextQuantum(null, 0.3), 0.25, 'none yet: the ideal');
    assert.equal(nextQuantum(0.25, 0.2), 0.125, 'one step finer: at once');
    assert.equal(nextQuantum(0.25, 0.01), 1 / 64, 'several steps finer: at once');
    assert.equal(nextQuantum(0.25, 0.6), 0.25, 'one step coarser: kept (still pixel-exact)');
    assert.equal(nextQuantum(0.25, 1), 1, 'two steps coarser: taken');
    assert.equal(nextQuantum(1 / 64, 0.2), 0.125, 'three steps coarser: taken');
    assert.equal(nextQuantum(0.5, 0.5), 0.5);
    // Hovering across a boundary (0.25 / 0.5 units a pixel) changes nothing after the first.
    let q = nextQuantum(null, 0.49);
    for (const unitsPerPx of [0.51, 0.49, 0.52, 0.48, 0.55]) q = nextQuantum(q, unitsPerPx);
    assert.equal(q, 0.25);
  });
});

describe('syncViewport', () => {
  it("sends the quantum of the view's device pixel with the whole world, and with a rectangle", () => {
    const { session, view, sent } = fakeSession();
    session.syncViewport(1000);
    assert.deepEqual(sent, [{ type: 'viewport', quantum: 1 }], 'fitted: 1 CSS (and device) pixel a unit');
    // Zoomed in 8 times on the world's middle: a rectangle, at 1/8 unit.
    view.scale = 8;
    view.originX = -8 * 350;
    view.originY = -8 * 262.5;
    session.syncViewport(1000 + EVERY_MS);
    assert.deepEqual(sent.at(-1), { type: 'viewport', x0: 350, y0: 262.5, x1: 450, y1: 337.5, quantum: 0.125 });
    assert.equal(session.viewport.quantum, 0.125);
    assert.equal(sent.length, 2);
  });

  it('asks for what is drawn: the canvas less the docked panels, under which no world is drawn', () => {
    const { session, view, sent } = fakeSession();
    view.scale = 8;
    view.originX = -8 * 350;
    view.originY = -8 * 262.5;
    view.insets = { left: 80, top: 0, right: 0, bottom: 120 }; // a side dock and the tray
    session.syncViewport(1000);
    assert.deepEqual(sent.at(-1), { type: 'viewport', x0: 360, y0: 262.5, x1: 450, y1: 322.5, quantum: 0.125 });
  });

  it('sends a changed quantum though the rectangle did not move; not one step coarser; not sooner than due', () => {
    const { session, view, sent } = fakeSession();
    view.dpr = 4; // the whole world on a 4x screen: 1/4 unit a device pixel
    session.syncViewport(1000);
    assert.deepEqual(sent, [{ type: 'viewport', quantum: 0.25 }]);
    view.dpr = 8; // the window moved to a finer screen: 1/8 unit a device pixel
    session.syncViewport(1000 + 10);
    assert.equal(sent.length, 1, 'not sooner than VIEWPORT_EVERY_MS after the last');
    session.syncViewport(1000 + EVERY_MS);
    assert.deepEqual(sent.at(-1), { type: 'viewport', quantum: 0.125 }, 'finer: at once, the rectangle the same');
    session.syncViewport(1000 + 2 * EVERY_MS);
    assert.equal(sent.length, 2, 'nothing changed: nothing sent');
    view.dpr = 4; // one step coarser would do: kept
    session.syncViewport(1000 + 3 * EVERY_MS);
    assert.equal(sent.length, 2);
    view.dpr = 2; // two steps coarser: taken
    session.syncViewport(1000 + 4 * EVERY_MS);
    assert.deepEqual(sent.at(-1), { type: 'viewport', quantum: 0.5 });
    // Zoomed in 2 times, the quantum (1/4 ideal, 1/2 held) finer at once with the rectangle.
    view.scale = 2;
    session.syncViewport(1000 + 5 * EVERY_MS);
    assert.deepEqual(sent.at(-1), { type: 'viewport', x0: 0, y0: 0, x1: 400, y1: 300, quantum: 0.25 });
    assert.equal(sent.length, 4);
  });

  it('says its viewport and quantum again after a welcome, and nothing while snapshots come as JSON', () => {
    const { session, view, conn, sent, welcome } = fakeSession();
    view.dpr = 2;
    session.syncViewport(1000);
    assert.deepEqual(sent, [{ type: 'viewport', quantum: 0.5 }]);
    view.dpr = 1; // one step coarser: 0.5 kept, across the welcome too
    welcome();
    session.syncViewport(1000 + EVERY_MS);
    assert.deepEqual(sent.at(-1), { type: 'viewport', quantum: 0.5 }, 'a new session is told again');
    conn.snapshotFormat = 'json';
    view.scale = 16;
    session.syncViewport(1000 + 4 * EVERY_MS);
    assert.equal(sent.length, 2, 'JSON snapshots are neither limited nor quantised');
  });
});
