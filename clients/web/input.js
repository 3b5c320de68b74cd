// Mouse and keyboard: click an agent to select it, shift-click to add (or remove) one, click
// the ground to send the selection there; Escape closes the help or clears the selection, I
// toggles the inspector, H or ? the help. index.html's #help lists them all: keep it in step.

import { MIN_AGENT_PX } from './view.js';

// Extra CSS pixels around an agent that still count as a hit, so small agents are clickable.
const PICK_SLACK_PX = 3;

// app: {view, agents(): array, selected: Set of ids, moveSelectionTo(x, y), toggleInspector(),
//       helpOpen(): bool, setHelp(open)}.
// The selection is plain state: the next animation frame shows any change.
export function attachInput(canvas, app) {
  const local = (ev) => {
    const rect = canvas.getBoundingClientRect();
    return { x: ev.clientX - rect.left, y: ev.clientY - rect.top };
  };

  canvas.addEventListener('click', (ev) => {
    if (ev.button !== 0 || !app.view.world) return;
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

  // The cursor tells what a click would do.
  canvas.addEventListener('pointermove', (ev) => {
    const cursor = pick(app, local(ev)) ? 'pointer' : app.selected.size > 0 ? 'crosshair' : 'default';
    if (canvas.style.cursor !== cursor) canvas.style.cursor = cursor;
  });

  window.addEventListener('keydown', (ev) => {
    // Browser and system shortcuts (Ctrl+I, Alt+H...) stay theirs; a held key does not flicker.
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat) return;
    switch (ev.key) {
      case 'Escape':
        // One thing per press, the nearer first: the open help, then the selection.
        if (app.helpOpen()) app.setHelp(false);
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
      default:
        return;
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
