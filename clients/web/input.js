// Mouse and keyboard: click an agent to select it, shift-click to add (or remove) one, click
// the ground to send the selection there; Escape closes the help, leaves paint mode or clears the
// selection, I toggles the inspector, H or ? the help, M paint mode (drag: walls, Shift-drag or
// right-drag: floor), R B T G P seed 003's demo moves. index.html's #help lists them all: keep it
// in step.

import { MIN_AGENT_PX } from './view.js';
import { DEMO_KEYS } from './demo_keys.js';

// Extra CSS pixels around an agent that still count as a hit, so small agents are clickable.
const PICK_SLACK_PX = 3;

// app: {view, agents(): array, selected: Set of ids, moveSelectionTo(x, y), toggleInspector(),
//       helpOpen(): bool, setHelp(open), map(): TileMap or null, painter: Painter,
//       togglePaint(), demoKey(key)}.
// The selection is plain state: the next animation frame shows any change.
export function attachInput(canvas, app) {
  const local = (ev) => {
    const rect = canvas.getBoundingClientRect();
    return { x: ev.clientX - rect.left, y: ev.clientY - rect.top };
  };

  const world = (ev) => {
    const p = local(ev);
    return app.view.screenToWorld(p.x, p.y);
  };

  canvas.addEventListener('click', (ev) => {
    // In paint mode the mouse paints; orders and selection wait until it is left.
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
    if (app.selected.size === 0) return; // nothing to command
    // A click in the margin around the world means "as far as you can go that way": clamp, so the
    // order is still valid instead of earning an out_of_bounds error.
    const w = app.view.screenToWorld(p.x, p.y);
    const { width, height } = app.view.world;
    app.moveSelectionTo(clamp(w.x, 0, width), clamp(w.y, 0, height));
  });

  // Paint mode: the left button paints walls, Shift + left or the right button floor. The
  // pointer is captured, so a stroke that leaves the canvas still ends when the button comes up.
  canvas.addEventListener('pointerdown', (ev) => {
    if (!app.painter.on || !app.view.world || (ev.button !== 0 && ev.button !== 2)) return;
    const erase = ev.button === 2 || ev.shiftKey;
    canvas.setPointerCapture(ev.pointerId);
    app.painter.begin(app.map(), world(ev), !erase);
    ev.preventDefault();
  });
  const endStroke = () => app.painter.end();
  canvas.addEventListener('pointerup', endStroke);
  canvas.addEventListener('pointercancel', endStroke);
  canvas.addEventListener('lostpointercapture', endStroke);
  canvas.addEventListener('contextmenu', (ev) => {
    if (app.painter.on) ev.preventDefault(); // the right button erases
  });

  // The cursor tells what a click would do.
  canvas.addEventListener('pointermove', (ev) => {
    if (app.painter.on) {
      if (app.painter.painting) app.painter.extend(app.map(), world(ev));
      else app.painter.hover(app.map(), world(ev), ev.shiftKey);
      if (canvas.style.cursor !== 'cell') canvas.style.cursor = 'cell';
      return;
    }
    const cursor = pick(app, local(ev)) ? 'pointer' : app.selected.size > 0 ? 'crosshair' : 'default';
    if (canvas.style.cursor !== cursor) canvas.style.cursor = cursor;
  });
  canvas.addEventListener('pointerleave', () => {
    if (!app.painter.painting) app.painter.brush = null;
  });

  window.addEventListener('keydown', (ev) => {
    // Browser and system shortcuts (Ctrl+I, Alt+H...) stay theirs; a held key does not flicker.
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat) return;
    switch (ev.key) {
      case 'Escape':
        // One thing per press, the nearer first: the open help, paint mode, then the selection.
        if (app.helpOpen()) app.setHelp(false);
        else if (app.painter.on) app.togglePaint();
        else app.selected.clear();
        break;
      case 'i':
      case 'I':
        app.toggleInspector();
        break;
      case 'h':
      case 'H':
      case '?':
        app.setHelp(!app.helpOpen());
        break;
      case 'm':
      case 'M':
        app.togglePaint();
        break;
      default:
        if (!DEMO_KEYS.includes(ev.key.toUpperCase())) return;
        app.demoKey(ev.key.toUpperCase());
    }
    ev.preventDefault();
  });
}

// The agent under CSS point p, the nearest one if several overlap there, or null.
function pick(app, p) {
  const view = app.view;
  if (!view.world) return null;
  const w = view.screenToWorld(p.x, p.y);
  const slack = PICK_SLACK_PX / view.scale;
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

function clamp(v, lo, hi) {
  return Math.min(hi, Math.max(lo, v));
}
