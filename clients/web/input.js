// @ts-check
// Mouse and keyboard, as in real-time strategy games: a left click selects (an agent; Shift adds
// or removes one) or clears (the ground), a double click selects the agent's group on screen, a
// drag on the ground selects the agents in its box (Shift adds), the right button commands (the
// selection arrives where it is pressed, each keeping its place; Shift queues it; on an enemy it
// attacks, on another agent it follows; A or Q arms an attack-move or a patrol for the next
// right-click: orders.js; Alt + right-click opens the menu of what can be done to an agent or an
// obstacle: context_menu.js); the wheel zooms at the cursor, the middle button pans;
// in paint mode a drag paints walls (Shift-drag or right-drag: floor). Which key does what is
// keys.js's table, which also draws the help and the README's list: a key is bound here by its
// row's action (keyHandlers), and a key, mouse gesture or action added here needs its row there.
// On a page the server welcomed as viewer (access.js) the keys and the right button that would
// command send nothing: they only draw the eye to the page's view-only note.
// A touch screen's gestures are touch.js's: it takes the touches before they reach these handlers.

import { MIN_AGENT_PX, THEME } from './view.js';
import { COMMAND_ACTIONS, keyAction, keysOf } from './keys.js';
import { ARMED_NAMES } from './orders.js';
import { stallText } from './stalls.js';

/** @import { Agent, Point } from '../js/src/protocol.js' */
/** @import { View, WorldSize } from './view.js' */
/** @import { TileMap } from './tile_map.js' */
/** @import { Painter } from './paint.js' */
/** @import { ScenarioBar } from './scenario_bar.js' */
/** @import { Armed, ArmedKind } from './orders.js' */

/**
 * A box selection being dragged, in CSS pixels; `active` once it is more than a click.
 * @typedef {{x0: number, y0: number, x1: number, y1: number, active: boolean, shift: boolean}} SelectionBox
 */

/**
 * What the mouse and keys act on (main.js's pieces).
 * @typedef {object} InputApp
 * @property {View} view
 * @property {() => Agent[]} agents
 * @property {Set<number>} selected
 * @property {(w: Point, shift: boolean) => void} orderAt a right-click on the ground at world point w
 *   with agents selected: the move, or the order armed (orders.js)
 * @property {(kind: ArmedKind) => void} armOrder A or Q: the next right-click gives that order
 * @property {() => Armed | null} armed the order armed, or null
 * @property {() => void} disarm
 * @property {() => void} shiftReleased Shift let go (a patrol's route given with Shift goes)
 * @property {() => void} stopSelected
 * @property {() => void} toggleInspector
 * @property {() => boolean} helpOpen
 * @property {(open: boolean) => void} setHelp
 * @property {() => TileMap | null} map
 * @property {Painter} painter
 * @property {() => void} togglePaint
 * @property {(key: string) => void} demoKey
 * @property {(x: number, y: number) => void} spawnAt
 * @property {() => void} removeSelected
 * @property {(x: number, y: number) => void} obstacleAt
 * @property {() => void} toggleGoals
 * @property {(other: boolean) => void} toggleHeat D: the heat map on/off; Shift + D (other): the other
 *   kind (density, mean speed), on
 * @property {() => void} toggleMinimap
 * @property {() => void} cycleTeamView a spectator's next team view (TeamView.cycle)
 * @property {ScenarioBar} bar
 * @property {() => boolean} viewOnly true while the server has this page as a viewer
 * @property {() => void} refuseViewOnly a command was asked for on a view-only page: show why
 * @property {(text: string) => void} say a message on the line under the map
 * @property {() => void} openPalette the command palette (command_palette.js)
 * @property {(target: Agent) => boolean} orderOnAgent a right-click on an agent: the selection
 *   attacks it (an enemy) or follows it (actions.js); false to leave it to the move
 * @property {(target: Agent) => {what: string, attack: boolean} | null} agentOrderOn what a
 *   right-click on the agent would order, or null (the move): the cursor says it
 * @property {(at: Point, agent: Agent | null, world: Point) => boolean} contextMenu an Alt +
 *   right-click (a long press on touch) at client point `at` on `agent` (or none) at `world`: true
 *   when a menu opened (context_menu.js), false to leave it to the move
 */

// Extra CSS pixels around an agent that still count as a hit, so small agents are clickable.
const PICK_SLACK_PX = 3;
// A left press that moves further than this before it is released is a box, not a click.
const BOX_MIN_PX = 5;
const WHEEL_ZOOM = 0.0015; // zoom factor exp(-deltaY * this) per wheel event (pixel deltas)
const ARROW_PAN = 0.1; // an arrow key pans by this fraction of the view

// The cursor while an order is armed: a crosshair in a ring, red for attack-move, the order
// marks' white for a patrol, so the next right-click's meaning is in view where it will land.
/** @param {string} colour @returns {string} a CSS cursor */
const armedCursor = (colour) => {
  const svg = `<svg xmlns='http://www.w3.org/2000/svg' width='24' height='24'><g fill='none' stroke='#000' stroke-width='4'><circle cx='12' cy='12' r='7'/><path d='M12 1v6M12 17v6M1 12h6M17 12h6'/></g><g fill='none' stroke='${colour}' stroke-width='2'><circle cx='12' cy='12' r='7'/><path d='M12 1v6M12 17v6M1 12h6M17 12h6'/></g></svg>`;
  return `url("data:image/svg+xml,${encodeURIComponent(svg)}") 12 12, crosshair`;
};
/** @type {Readonly<Record<ArmedKind, string>>} */
const ARMED_CURSORS = { attack_move: armedCursor(THEME.attackOrder), patrol: armedCursor(THEME.target) };
// Over an enemy with agents selected: the right button attacks it, and the cursor is the
// attack-move's red crosshair.
const ATTACK_CURSOR = ARMED_CURSORS.attack_move;

// The selection is plain state: the next animation frame shows any change. Returns {box(),
// pointerAgent()}: the box being dragged (CSS pixels) or null, and the agent under the pointer
// now or null.
/**
 * @param {HTMLCanvasElement} canvas
 * @param {InputApp} app
 * @returns {{box: () => SelectionBox | null, pointerAgent: () => Agent | null, agentAt: (p: Point) => Agent | null}}
 */
export function attachInput(canvas, app) {
  const local = (/** @type {MouseEvent} */ ev) => {
    const rect = canvas.getBoundingClientRect();
    return { x: ev.clientX - rect.left, y: ev.clientY - rect.top };
  };

  const world = (/** @type {MouseEvent} */ ev) => {
    const p = local(ev);
    return app.view.screenToWorld(p.x, p.y);
  };

  // Where the pointer is, in CSS pixels of the canvas (null: elsewhere): S and O act there.
  /** @type {Point | null} */
  let pointer = null;
  /** @type {SelectionBox | null} */
  let box = null; // a left press on the ground: {x0, y0, x1, y1, active, shift}
  /** @type {Point | null} */
  let panning = null; // a middle-button drag: {x, y} last seen
  let swallowClick = false; // the click that ends a box selection is not an order
  const handle = {
    box: () => (box && box.active ? box : null), // what the view draws
    pointerAgent: () => (pointer ? pick(app, pointer) : null), // whose diagram the inspector draws
    agentAt: (/** @type {Point} */ p) => pick(app, p), // the agent at canvas point p (CSS pixels)
  };

  const clampToWorld = (/** @type {Point} */ w) => {
    const { width, height } = /** @type {WorldSize} */ (app.view.world); // its callers have one
    return { x: clamp(w.x, 0, width), y: clamp(w.y, 0, height) };
  };

  canvas.addEventListener('click', (ev) => {
    // In paint mode the mouse paints; orders and selection wait until it is left.
    if (swallowClick) {
      swallowClick = false;
      return;
    }
    if (ev.button !== 0 || !app.view.world || app.painter.on) return;
    const p = local(ev);
    const hit = pick(app, p);
    if (hit) {
      if (!ev.shiftKey) app.selected.clear();
      // Shift-click on an agent already selected takes it out again, as in most strategy games.
      if (ev.shiftKey && app.selected.has(hit.id)) app.selected.delete(hit.id);
      else app.selected.add(hit.id);
      return;
    }
    // The ground: a plain click clears the selection (orders are the right button's); Shift keeps
    // it, as a missed Shift-click should not undo a careful selection. An armed order has no one
    // to give it to then.
    if (!ev.shiftKey) app.selected.clear();
    if (app.selected.size === 0 && app.armed()) app.disarm();
    showCursor(p);
  });

  // A double click on an agent: every agent of its group that is on screen (Shift adds them).
  canvas.addEventListener('dblclick', (ev) => {
    if (ev.button !== 0 || !app.view.world || app.painter.on) return;
    const hit = pick(app, local(ev));
    if (!hit) return;
    selectGroup(app, hit.group, { add: ev.shiftKey, onScreen: true });
  });

  // Paint mode: the left button paints walls, Shift + left or the right button floor. The
  // pointer is captured, so a stroke that leaves the canvas still ends when the button comes up.
  canvas.addEventListener('pointerdown', (ev) => {
    if (!app.view.world) return;
    if (ev.button === 1) {
      // Middle drag pans, in every mode.
      panning = local(ev);
      canvas.setPointerCapture(ev.pointerId);
      ev.preventDefault();
      return;
    }
    if (!app.painter.on && ev.button === 0) {
      const p = local(ev);
      swallowClick = false;
      // On an agent a press is a click; on the ground it may become a box.
      box = pick(app, p) ? null : { x0: p.x, y0: p.y, x1: p.x, y1: p.y, active: false, shift: ev.shiftKey };
      if (box) canvas.setPointerCapture(ev.pointerId);
      return;
    }
    if (!app.painter.on || !app.view.world || (ev.button !== 0 && ev.button !== 2)) return;
    const erase = ev.button === 2 || ev.shiftKey;
    canvas.setPointerCapture(ev.pointerId);
    app.painter.begin(app.map(), world(ev), !erase);
    ev.preventDefault();
  });
  const endStroke = () => app.painter.end();
  canvas.addEventListener('pointerup', (ev) => {
    endStroke();
    if (ev.button === 1) panning = null;
    if (ev.button === 0 && box) {
      if (box.active) {
        selectInBox(app, box);
        swallowClick = true;
      }
      box = null;
    }
  });
  canvas.addEventListener('pointercancel', () => {
    endStroke();
    panning = null;
    box = null;
  });
  canvas.addEventListener('lostpointercapture', endStroke);
  canvas.addEventListener('contextmenu', (ev) => {
    ev.preventDefault(); // painting: the right button erases; else it gives orders
    if (app.painter.on || !app.view.world) return;
    const at = local(ev);
    // Alt + right-click on an agent (with a selection) or an obstacle: a menu of what can be done
    // to it. An armed order takes the click wherever it lands (an attack-move onto an enemy's spot).
    if (ev.altKey && !app.armed() && app.contextMenu({ x: ev.clientX, y: ev.clientY }, pick(app, at), app.view.screenToWorld(at.x, at.y))) return;
    if (app.selected.size === 0) {
      // Nothing to order: said, so that the click is not lost in silence (a viewer orders nothing).
      if (!app.viewOnly()) app.say('nothing selected to order: click an agent or drag a box round some');
      return;
    }
    if (app.viewOnly()) {
      app.refuseViewOnly();
      return;
    }
    // On an agent, as in strategy games: an enemy is attacked, another agent followed.
    const hit = app.armed() ? null : pick(app, at);
    if (hit && app.orderOnAgent(hit)) {
      showCursor(at);
      return;
    }
    // A click in the margin around the world means "as far as you can go that way": clamp, so the
    // order is still valid instead of earning an out_of_bounds error.
    app.orderAt(clampToWorld(app.view.screenToWorld(at.x, at.y)), ev.shiftKey);
    showCursor(at);
  });
  canvas.addEventListener(
    'wheel',
    (ev) => {
      if (!app.view.world) return;
      ev.preventDefault();
      const dy = ev.deltaMode === 1 ? ev.deltaY * 16 : ev.deltaMode === 2 ? ev.deltaY * 400 : ev.deltaY;
      const p = local(ev);
      app.view.zoomAt(p.x, p.y, Math.exp(-dy * WHEEL_ZOOM));
    },
    { passive: false },
  );

  // The cursor tells what a click would do.
  canvas.addEventListener('pointermove', (ev) => {
    const here = local(ev);
    pointer = here;
    if (panning) {
      app.view.pan(here.x - panning.x, here.y - panning.y);
      panning = here;
      return;
    }
    if (box) {
      box.x1 = here.x;
      box.y1 = here.y;
      if (Math.hypot(box.x1 - box.x0, box.y1 - box.y0) >= BOX_MIN_PX) box.active = true;
      return;
    }
    if (app.painter.on) {
      if (app.painter.painting) app.painter.extend(app.map(), world(ev));
      else app.painter.hover(app.map(), world(ev), ev.shiftKey);
      if (canvas.style.cursor !== 'cell') canvas.style.cursor = 'cell';
      return;
    }
    showCursor(here);
  });
  // The cursor for CSS point p of the canvas: an armed order's, else over an agent what the right
  // button would do to it (a red crosshair for an attack, a hand otherwise), else a crosshair where
  // the right button would send the selection.
  // Over a stalled agent, the tooltip says why it is stalled (stalls.js); over an agent the right
  // button would order onto, the tooltip says the order too.
  const showCursor = (/** @type {Point} */ p) => {
    const armed = app.armed();
    const hit = armed ? null : pick(app, p);
    const commands = app.selected.size > 0 && !app.viewOnly();
    const onAgent = hit && commands ? app.agentOrderOn(hit) : null;
    const cursor = armed
      ? ARMED_CURSORS[armed.kind]
      : onAgent?.attack
        ? ATTACK_CURSOR
        : hit
          ? 'pointer'
          : commands
            ? 'crosshair'
            : 'default';
    if (canvas.style.cursor !== cursor) canvas.style.cursor = cursor;
    const says = [hit && hit.stall ? `agent ${hit.id} ${stallText(hit)}` : '', onAgent ? `right-click: ${onAgent.what}` : ''].filter(Boolean);
    const title = armed ? `${ARMED_NAMES[armed.kind]}: right-click a point (Esc: cancel)` : says.join('; ');
    const kind = armed ? armed.kind : '';
    if ((canvas.dataset.armed ?? '') !== kind) canvas.dataset.armed = kind;
    // What the right button would order onto the agent under the pointer: 'attack', 'follow' or ''.
    const order = onAgent ? (onAgent.attack ? 'attack' : 'follow') : '';
    if ((canvas.dataset.agentOrder ?? '') !== order) canvas.dataset.agentOrder = order;
    if (canvas.title !== title) canvas.title = title;
  };
  canvas.addEventListener('pointerleave', () => {
    if (!app.painter.painting) app.painter.brush = null;
    pointer = null;
  });

  // The world point under the pointer (inside the world), or null when it is off the canvas.
  const pointerWorld = () => (pointer && app.view.world ? clampToWorld(app.view.screenToWorld(pointer.x, pointer.y)) : null);

  const onKey = keyHandlers(app, pointerWorld);
  // Shift let go, or every key with the window's focus: a patrol's route given with Shift goes.
  const shiftUp = () => {
    app.shiftReleased();
    showCursor(pointer ?? { x: -1e9, y: -1e9 });
  };
  window.addEventListener('keyup', (ev) => {
    if (ev.key === 'Shift') shiftUp();
  });
  window.addEventListener('blur', shiftUp);
  window.addEventListener('keydown', (ev) => {
    // Typing in the bar's fields (the step's ticks, a picker) is theirs; Escape leaves the field.
    if (ev.target instanceof Element && ev.target.closest('input, select, textarea')) {
      if (ev.key === 'Escape') /** @type {HTMLElement} */ (ev.target).blur(); // a form field
      return;
    }
    // Ctrl+A (Cmd+A): everyone, instead of the page's text.
    if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && ev.key.toUpperCase() === SELECT_ALL_KEY) {
      onKey.selectAll(ev);
      ev.preventDefault();
      return;
    }
    // Other browser and system shortcuts (Ctrl+I, Alt+H...) stay theirs.
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    // The digits by the key's place, so that Shift + 1, which types '!', adds group 1.
    const action = groupDigit(ev) !== null ? 'selectGroup' : keyAction(ev.key);
    if (!action) return;
    if (ev.repeat && !REPEATS.has(action)) return; // a held key does not flicker or repeat orders
    // A button that has the keyboard's focus (Tab) takes Space and Enter itself.
    if ((ev.key === ' ' || ev.key === 'Enter') && ev.target instanceof Element && ev.target.closest('button')) return;
    // A viewer's commanding key is taken (no page scroll for Space) and sends nothing.
    if (COMMAND_ACTIONS.has(action) && app.viewOnly()) {
      app.refuseViewOnly();
      ev.preventDefault();
      return;
    }
    if (onKey[action](ev) === false) return;
    ev.preventDefault();
    showCursor(pointer ?? { x: -1e9, y: -1e9 }); // an order armed or disarmed shows at once
  });
  return handle;
}

// The key actions of keys.js's table, by name: each takes the key's event and returns false when it
// did nothing (S or O with the pointer off the canvas, an arrow before the world is known), which
// leaves the event to the browser. pointerWorld: the world point under the pointer, or null.
/**
 * @param {InputApp} app
 * @param {() => Point | null} pointerWorld
 * @returns {Record<string, (ev: KeyboardEvent) => boolean | void>}
 */
export function keyHandlers(app, pointerWorld) {
  return {
    selectAll: () => selectAll(app),
    // A held digit selects once, and its repeats are swallowed.
    selectGroup: (ev) => {
      if (!ev.repeat) selectGroup(app, /** @type {number} */ (groupDigit(ev)), { add: ev.shiftKey, onScreen: false });
    },
    // Held arrows keep panning; the view moves the other way, as a camera does.
    pan: (ev) => {
      const pan = ARROW_KEYS[ev.key];
      if (!pan || !app.view.world) return false;
      app.view.pan(-pan[0] * ARROW_PAN * app.view.cssWidth, -pan[1] * ARROW_PAN * app.view.cssHeight);
    },
    pause: () => app.bar.togglePause(),
    step: () => app.bar.stepOnce(),
    reset: () => app.bar.resetWorld(),
    pickScenario: () => app.bar.focusPicker(),
    tickRate: (ev) => app.bar.stepTickRate(ev.key === '[' ? -1 : 1),
    snapshotRate: (ev) => app.bar.stepSnapshotRate(ev.key === '{' ? -1 : 1),
    goals: () => app.toggleGoals(),
    heat: (ev) => app.toggleHeat(ev.shiftKey),
    fit: () => app.view.fitWorld(),
    minimap: () => app.toggleMinimap(),
    teamView: () => app.cycleTeamView(),
    spawn: () => {
      const w = pointerWorld();
      if (!w) return false;
      app.spawnAt(w.x, w.y);
    },
    obstacle: () => {
      const w = pointerWorld();
      if (!w) return false;
      app.obstacleAt(w.x, w.y);
    },
    remove: () => app.removeSelected(),
    attackMove: () => app.armOrder('attack_move'),
    patrol: () => app.armOrder('patrol'),
    stop: () => app.stopSelected(),
    // One thing per press, the nearer first: the open help, an armed order, paint mode, then the
    // selection.
    escape: () => {
      if (app.helpOpen()) app.setHelp(false);
      else if (app.armed()) app.disarm();
      else if (app.painter.on) app.togglePaint();
      else app.selected.clear();
    },
    inspector: () => app.toggleInspector(),
    palette: () => app.openPalette(),
    help: () => app.setHelp(!app.helpOpen()),
    paint: () => app.togglePaint(),
    demo: (ev) => app.demoKey(ev.key.toUpperCase()),
  };
}

// The actions a held key repeats (the others act once per press).
const REPEATS = new Set(['pan', 'selectGroup']);
// Ctrl+A's letter, the chord's last key.
const SELECT_ALL_KEY = /** @type {string} */ (keysOf('selectAll').at(-1));

// The group of a digit key of keys.js's range (main row or keypad, by the key's place), or null.
/** @param {KeyboardEvent} ev @returns {number | null} */
function groupDigit(ev) {
  const digit = /^(?:Digit|Numpad)(\d)$/.exec(ev.code);
  return digit && keysOf('selectGroup').includes(digit[1]) ? Number(digit[1]) : null;
}

/** @type {Record<string, [number, number]>} */
const ARROW_KEYS = {
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
  ArrowUp: [0, -1],
  ArrowDown: [0, 1],
};

// Ctrl+A: every agent.
/** @param {InputApp} app */
function selectAll(app) {
  for (const a of app.agents()) app.selected.add(a.id);
}

// Keys 0 to 9 and double clicks: the agents of group g, of the whole world or of those whose
// centres are on screen; `add` keeps the selection, else it is replaced.
/** @param {InputApp} app @param {number} g @param {{add: boolean, onScreen: boolean}} options */
function selectGroup(app, g, { add, onScreen }) {
  const view = app.view;
  const a = view.screenToWorld(0, 0);
  const b = view.screenToWorld(view.cssWidth, view.cssHeight);
  if (!add) app.selected.clear();
  for (const ag of app.agents()) {
    if (ag.group !== g) continue;
    if (onScreen && !(ag.x >= a.x && ag.x <= b.x && ag.y >= a.y && ag.y <= b.y)) continue;
    app.selected.add(ag.id);
  }
}

// Selects the agents whose centres are inside the box (CSS pixels); Shift at the press adds them.
/** @param {InputApp} app @param {SelectionBox} box */
function selectInBox(app, box) {
  const a = app.view.screenToWorld(Math.min(box.x0, box.x1), Math.min(box.y0, box.y1));
  const b = app.view.screenToWorld(Math.max(box.x0, box.x1), Math.max(box.y0, box.y1));
  if (!box.shift) app.selected.clear();
  for (const ag of app.agents()) {
    if (ag.x >= a.x && ag.x <= b.x && ag.y >= a.y && ag.y <= b.y) app.selected.add(ag.id);
  }
}

// The agent under CSS point p, the nearest one if several overlap there, or null; slackPx: CSS
// pixels round an agent that still count (touch.js gives a fingertip's).
/**
 * @param {{view: View, agents: () => Agent[]}} app
 * @param {Point} p
 * @param {number} [slackPx]
 * @returns {Agent | null}
 */
export function pick(app, p, slackPx = PICK_SLACK_PX) {
  const view = app.view;
  if (!view.world) return null;
  // Under a docked panel's edge nothing of the world is drawn: no agent to hit there.
  const free = view.freeRect();
  if (p.x < free.x || p.y < free.y || p.x > free.x + free.w || p.y > free.y + free.h) return null;
  const w = view.screenToWorld(p.x, p.y);
  const slack = slackPx / view.scale;
  /** @type {Agent | null} */
  let best = null;
  let bestD2 = Infinity;
  for (const a of app.agents()) {
    const dx = a.x - w.x;
    const dy = a.y - w.y;
    const d2 = dx * dx + dy * dy;
    const reach = Math.max(a.r, MIN_AGENT_PX / view.scale) + slack;
    if (d2 <= reach * reach && d2 < bestD2) {
      best = a;
      bestD2 = d2;
    }
  }
  return best;
}

/** @param {number} v @param {number} lo @param {number} hi @returns {number} */
function clamp(v, lo, hi) {
  return Math.min(hi, Math.max(lo, v));
}
