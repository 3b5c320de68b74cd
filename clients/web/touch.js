// @ts-check
// Touch screens, with Pointer Events: a tap on an agent selects it, a tap on the ground with a
// selection sends it there (set_target, as the right button does), a long press on an agent adds
// it to the selection or takes it out and on the ground clears the selection, one finger dragged
// pans the view and two fingers pinch it, zooming about the point between them. The demo's moves
// are buttons (#touchbar), shown on touch and narrow screens (style.css).
//
// The touches are taken on their way down to the canvas (capture listeners on its parent), so
// input.js's mouse gestures (boxes, clicks, the right button) never see them, nor the click, the
// double click or the context menu a browser makes of a tap or a long press. In paint mode the
// touches go through: one finger paints, as the left button does.

import { pick } from './input.js';
import { KEY_ROWS, inlineRuns } from './keys.js';

/** @import { Agent, Point } from '../js/src/protocol.js' */
/** @import { View, WorldSize } from './view.js' */

const TAP_SLOP_PX = 10; // a finger that moves less than this, CSS pixels, still taps
const LONG_PRESS_MS = 500; // held at least this long without moving: a long press
const TOUCH_SLACK_PX = 12; // a fingertip is wider than a cursor: agents this near count as hit
const COMPAT_MS = 1000; // the click or context menu a browser makes of a touch comes within this

/**
 * What the touches act on (main.js's pieces).
 * @typedef {object} TouchApp
 * @property {View} view
 * @property {() => Agent[]} agents
 * @property {Set<number>} selected
 * @property {(x: number, y: number) => void} moveSelectionTo
 * @property {() => boolean} painting paint mode is on: the touches are input.js's
 * @property {() => boolean} viewOnly
 * @property {() => void} refuseViewOnly
 */

/**
 * One finger down: a tap or a long press until it moves, then a pan; two: a pinch.
 * @typedef {{kind: 'press', x: number, y: number, at: number}
 *   | {kind: 'pan', id: number}
 *   | {kind: 'pinch', a: number, b: number}
 *   | {kind: 'done'}} Gesture
 */

// Whether a pointer or mouse event came from a touch screen.
/** @param {Event} ev @returns {boolean} */
export function isTouch(ev) {
  if ('pointerType' in ev && ev.pointerType === 'touch') return true;
  const caps = /** @type {{sourceCapabilities?: {firesTouchEvents?: boolean}}} */ (ev).sourceCapabilities;
  return Boolean(caps?.firesTouchEvents);
}

// The distance and the middle of two points.
/** @param {Point} p @param {Point} q @returns {{dist: number, mid: Point}} */
export function pinchOf(p, q) {
  return { dist: Math.hypot(q.x - p.x, q.y - p.y), mid: { x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 } };
}

/** @param {HTMLCanvasElement} canvas @param {TouchApp} app */
export function attachTouch(canvas, app) {
  const stage = /** @type {HTMLElement} */ (canvas.parentElement);
  /** @type {Map<number, Point>} */
  const fingers = new Map(); // pointer id -> where it is, CSS pixels of the canvas
  /** @type {Gesture | null} */
  let gesture = null;
  let lastTouchAt = -Infinity;

  const local = (/** @type {PointerEvent} */ ev) => {
    const r = canvas.getBoundingClientRect();
    return { x: ev.clientX - r.left, y: ev.clientY - r.top };
  };
  /** @type {(ev: PointerEvent) => boolean} */
  const ours = (ev) => ev.target === canvas && ev.pointerType === 'touch' && !app.painting();
  /** @param {string} type @param {(ev: PointerEvent) => void} handle */
  const on = (type, handle) =>
    stage.addEventListener(
      type,
      (ev) => {
        const pev = /** @type {PointerEvent} */ (ev);
        if (!ours(pev)) return;
        lastTouchAt = performance.now();
        ev.stopPropagation();
        handle(pev);
      },
      { capture: true },
    );

  on('pointerdown', (ev) => {
    const p = local(ev);
    fingers.set(ev.pointerId, p);
    if (fingers.size === 1) gesture = { kind: 'press', x: p.x, y: p.y, at: ev.timeStamp };
    else if (fingers.size === 2) {
      const [a, b] = [...fingers.keys()];
      gesture = { kind: 'pinch', a, b };
    }
    ev.preventDefault();
  });

  on('pointermove', (ev) => {
    const last = fingers.get(ev.pointerId);
    if (!last || !gesture) return;
    const p = local(ev);
    if (gesture.kind === 'press') {
      if (Math.hypot(p.x - gesture.x, p.y - gesture.y) < TAP_SLOP_PX) return;
      gesture = { kind: 'pan', id: ev.pointerId };
    }
    if (gesture.kind === 'pan' && gesture.id === ev.pointerId) {
      app.view.pan(p.x - last.x, p.y - last.y);
    } else if (gesture.kind === 'pinch' && (ev.pointerId === gesture.a || ev.pointerId === gesture.b)) {
      const other = /** @type {Point} */ (fingers.get(ev.pointerId === gesture.a ? gesture.b : gesture.a));
      const before = pinchOf(last, other);
      const after = pinchOf(p, other);
      // The world point between the fingers follows their middle, and the view scales about it.
      app.view.pan(after.mid.x - before.mid.x, after.mid.y - before.mid.y);
      if (before.dist > 0 && after.dist > 0) app.view.zoomAt(after.mid.x, after.mid.y, after.dist / before.dist);
    }
    fingers.set(ev.pointerId, p);
  });

  on('pointerup', (ev) => {
    const p = fingers.get(ev.pointerId);
    fingers.delete(ev.pointerId);
    if (gesture?.kind === 'press' && p) {
      if (ev.timeStamp - gesture.at < LONG_PRESS_MS) tap(p);
      else longPress(p);
    }
    endFinger(ev.pointerId);
  });

  on('pointercancel', (ev) => {
    fingers.delete(ev.pointerId);
    if (gesture?.kind === 'press') gesture = null;
    endFinger(ev.pointerId);
  });

  // A finger of a pinch lifted: the other pans on; the last finger lifted ends every gesture.
  /** @param {number} id */
  function endFinger(id) {
    if (fingers.size === 0) gesture = null;
    else if (gesture?.kind === 'pinch' && (id === gesture.a || id === gesture.b)) {
      gesture = { kind: 'pan', id: /** @type {number} */ (fingers.keys().next().value) };
    } else if (gesture?.kind === 'pan' && id === gesture.id) gesture = { kind: 'done' };
  }

  // The click, double click and context menu a browser makes of a tap or a long press: the tap
  // has been handled, and none of them is the mouse's.
  for (const type of ['click', 'dblclick', 'contextmenu']) {
    stage.addEventListener(
      type,
      (ev) => {
        if (ev.target !== canvas || app.painting()) return;
        if (!isTouch(ev) && performance.now() - lastTouchAt > COMPAT_MS) return;
        ev.stopPropagation();
        ev.preventDefault();
      },
      { capture: true },
    );
  }

  // An agent: it alone is selected. The ground: the selection goes there (clamped into the world,
  // as the right button's order is); nothing selected, nothing happens.
  /** @param {Point} p */
  function tap(p) {
    if (!app.view.world) return;
    const hit = pick(app, p, TOUCH_SLACK_PX);
    if (hit) {
      app.selected.clear();
      app.selected.add(hit.id);
      return;
    }
    if (app.selected.size === 0) return;
    if (app.viewOnly()) {
      app.refuseViewOnly();
      return;
    }
    const { width, height } = /** @type {WorldSize} */ (app.view.world);
    const w = app.view.screenToWorld(p.x, p.y);
    app.moveSelectionTo(Math.min(width, Math.max(0, w.x)), Math.min(height, Math.max(0, w.y)));
  }

  // An agent: into the selection, or out of it. The ground: the selection is cleared.
  /** @param {Point} p */
  function longPress(p) {
    if (!app.view.world) return;
    const hit = pick(app, p, TOUCH_SLACK_PX);
    if (!hit) app.selected.clear();
    else if (app.selected.has(hit.id)) app.selected.delete(hit.id);
    else app.selected.add(hit.id);
  }
}

// The demo's moves as buttons in `bar`, one per row of keys.js's demo section, named by its
// `button` word; demoKey(key) plays it. Returns update(viewOnly): a viewer's buttons are disabled.
/** @param {HTMLElement} bar @param {(key: string) => void} demoKey @returns {(viewOnly: boolean) => void} */
export function buildDemoButtons(bar, demoKey) {
  const buttons = KEY_ROWS.filter((r) => r.action === 'demo' && r.button).map((row) => {
    const key = /** @type {string[]} */ (row.keys)[0];
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.key = key;
    b.textContent = /** @type {string} */ (row.button);
    b.title = `${inlineRuns(row.does).map((r) => r.text).join('')} (${key})`;
    b.addEventListener('mousedown', (ev) => ev.preventDefault()); // no focus: the keys stay the page's
    b.addEventListener('click', () => demoKey(key));
    return b;
  });
  bar.replaceChildren(...buttons);
  let shown = /** @type {boolean | null} */ (null);
  return (viewOnly) => {
    if (shown === viewOnly) return;
    shown = viewOnly;
    for (const b of buttons) b.disabled = viewOnly;
  };
}
