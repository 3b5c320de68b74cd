// @ts-check
// Touch screens, with Pointer Events: a tap on an agent selects it, a tap on the ground with a
// selection sends it there (set_target, as the right button does; or the order the attack-move or
// patrol button armed), a long press on an agent opens the menu of what the selection can do to
// it (as Alt + right-click does; with nothing else selected it adds the agent to the selection or
// takes it out), on an obstacle the menu too, and on the ground it clears the selection; one
// finger dragged pans the view and two fingers pinch it, zooming about the point between them.
// The orders a key arms or gives (attack-move, patrol, stop) and the demo's moves are buttons
// (#touchbar), shown on touch and narrow screens (style.css); the demo's are the operator's, and
// a player's or a spectator's page does not show them.
//
// The touches are taken on their way down to the canvas (capture listeners on its parent), so
// input.js's mouse gestures (boxes, clicks, the right button) never see them, nor the click, the
// double click or the context menu a browser makes of a tap or a long press. In paint mode the
// touches go through: one finger paints, as the left button does.

import { pick } from './input.js';
import { KEY_ROWS, inlineRuns } from './keys.js';

/** @import { Agent, Point } from '../js/src/protocol.js' */
/** @import { View, WorldSize } from './view.js' */
/** @import { ArmedKind } from './orders.js' */

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
 * @property {(w: Point, shift: boolean) => void} orderAt the selection's order at world point w: a
 *   move, or the order armed (actions.js)
 * @property {() => boolean} armed an order is armed: the next tap gives it wherever it lands
 * @property {(at: Point, agent: Agent | null, world: Point) => boolean} contextMenu a long press at
 *   client point `at` on `agent` (or none) at `world`: true when a menu opened (context_menu.js)
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

  // The world point under canvas point p, clamped into the world (as the right button's order is).
  /** @param {Point} p @returns {Point} */
  const worldAt = (p) => {
    const { width, height } = /** @type {WorldSize} */ (app.view.world);
    const w = app.view.screenToWorld(p.x, p.y);
    return { x: Math.min(width, Math.max(0, w.x)), y: Math.min(height, Math.max(0, w.y)) };
  };

  // An agent: it alone is selected. The ground: the selection goes there; nothing selected,
  // nothing happens. An armed order takes the tap wherever it lands, as it takes a right-click.
  /** @param {Point} p */
  function tap(p) {
    if (!app.view.world) return;
    const hit = app.armed() ? null : pick(app, p, TOUCH_SLACK_PX);
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
    app.orderAt(worldAt(p), false);
  }

  // An agent or an obstacle: the menu of what can be done to it, when it has something to offer;
  // else an agent goes into the selection or out of it, and the ground clears the selection.
  /** @param {Point} p */
  function longPress(p) {
    if (!app.view.world) return;
    const hit = pick(app, p, TOUCH_SLACK_PX);
    const r = canvas.getBoundingClientRect();
    if (app.contextMenu({ x: r.left + p.x, y: r.top + p.y }, hit, app.view.screenToWorld(p.x, p.y))) return;
    if (!hit) app.selected.clear();
    else if (app.selected.has(hit.id)) app.selected.delete(hit.id);
    else app.selected.add(hit.id);
  }
}

/** @param {string} word @param {string} title @param {() => void} click @returns {HTMLButtonElement} */
function touchButton(word, title, click) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = word;
  b.title = title;
  b.addEventListener('mousedown', (ev) => ev.preventDefault()); // no focus: the keys stay the page's
  b.addEventListener('click', click);
  return b;
}

// A row's words as the tooltip says them, with its key.
/** @param {import('./keys.js').KeyRow} row @returns {string} */
const rowTitle = (row) => `${inlineRuns(row.does).map((r) => r.text).join('')} (${(row.keys ?? []).join(' or ')})`;

/**
 * What the order buttons do (actions.js).
 * @typedef {object} OrderButtonActions
 * @property {(kind: ArmedKind) => void} armOrder
 * @property {() => void} disarm
 * @property {() => ArmedKind | null} armed the order armed, or null
 * @property {() => void} stopSelected
 */

// The orders a key arms or gives as buttons in `bar` (keys.js's rows of attackMove, patrol and
// stop, named by their `button` word): attack-move and patrol arm their order for the next tap
// (pressed while armed; pressed again, disarmed), stop stops the selection. Returns
// update(viewOnly): a viewer's buttons are disabled, and the armed one shows pressed.
/** @param {HTMLElement} bar @param {OrderButtonActions} act @returns {(viewOnly: boolean) => void} */
export function buildOrderButtons(bar, act) {
  /** @type {Record<string, ArmedKind>} */
  const ARMS = { attackMove: 'attack_move', patrol: 'patrol' };
  const rows = KEY_ROWS.filter((r) => r.button && (r.action === 'attackMove' || r.action === 'patrol' || r.action === 'stop'));
  const buttons = rows.map((row) => {
    const action = /** @type {string} */ (row.action);
    const kind = ARMS[action];
    const b = touchButton(/** @type {string} */ (row.button), rowTitle(row), () => {
      if (!kind) act.stopSelected();
      else if (act.armed() === kind) act.disarm();
      else act.armOrder(kind);
    });
    b.dataset.order = kind ?? 'stop';
    if (kind) b.setAttribute('aria-pressed', 'false');
    return b;
  });
  bar.replaceChildren(...buttons);
  let shown = '';
  return (viewOnly) => {
    const armed = act.armed();
    const key = `${viewOnly}:${armed}`;
    if (shown === key) return;
    shown = key;
    for (const b of buttons) {
      b.disabled = viewOnly;
      if (b.dataset.order !== 'stop') b.setAttribute('aria-pressed', String(b.dataset.order === armed));
    }
  };
}

// The demo's moves as buttons in `bar`, one per row of keys.js's demo section, named by its
// `button` word; demoKey(key) plays it. Returns update(viewOnly): a viewer's buttons are disabled.
/** @param {HTMLElement} bar @param {(key: string) => void} demoKey @returns {(viewOnly: boolean) => void} */
export function buildDemoButtons(bar, demoKey) {
  const buttons = KEY_ROWS.filter((r) => r.action === 'demo' && r.button).map((row) => {
    const key = /** @type {string[]} */ (row.keys)[0];
    const b = touchButton(/** @type {string} */ (row.button), rowTitle(row), () => demoKey(key));
    b.dataset.key = key;
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
