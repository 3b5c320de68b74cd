// @ts-check
// The small panels over the canvas: the selected agents' details, the inspector's legend (docked
// beside the map: dock.js), and the keyboard help (drawn from keys.js's table; on a view-only
// page its rows that command are dimmed, and a line says so). Like the HUD, each writes the DOM
// only when its text changes.

import {
  INSPECT_COLORS,
  VECTOR_UNIT_RADII,
  VECTOR_UNIT_MIN_PX,
  VECTOR_MAX_UNITS,
} from './inspect_view.js';
import { MAX_INSPECTED } from './inspector.js';
import { THEME } from './theme.js';
import { stallText } from './stalls.js';
import { KEY_ROWS, KEY_SECTIONS, inlineRuns, labelRuns } from './keys.js';

/** @import { Agent } from '../js/src/protocol.js' */
/** @import { Inspector } from './inspector.js' */
/** @import { Inline } from './keys.js' */

const MAX_ROWS = 8; // agents listed in the panel; more would cover the map
// An element of index.html by id (the page has every one asked for here), of the type it is there.
/** @template {HTMLElement} [T=HTMLElement] @param {string} id @returns {T} */
const $ = (id) => /** @type {T} */ (document.getElementById(id));

export class Panels {
  constructor() {
    this.agentPanel = $('agent-panel');
    this.agentRows = $('agent-rows');
    this.agentMore = $('agent-more');
    this.agentNote = $('agent-note');
    this.agentBinary = $('agent-binary');
    this.paintBanner = $('paint-banner');
    this.legend = $('legend');
    this.legendNote = $('legend-note');
    this.help = $('help');
    this.helpAccess = $('help-access');
    this.rowsKey = '';
    buildLegend($('legend-rows'));
    buildHelp(this.help);
    // The collision mark as the map draws it: a body in a group colour inside a red ring.
    for (const dot of /** @type {NodeListOf<HTMLElement>} */ (this.help.querySelectorAll('.swatch-collided'))) {
      dot.style.background = THEME.groups[0];
      dot.style.borderColor = THEME.collided;
    }
  }

  get helpOpen() {
    return !this.help.hidden;
  }

  /** @param {boolean} open */
  setHelp(open) {
    this.help.hidden = !open;
  }

  // selected: Set of ids; agents: the snapshot's array (ordered by id); inspector: Inspector;
  // drawnIds: the agents whose diagrams are drawn; roles: Map of id -> role.
  /**
   * @param {object} p
   * @param {Agent[]} p.agents
   * @param {Set<number>} p.selected
   * @param {Inspector} p.inspector
   * @param {boolean} p.painting
   * @param {number[]} [p.drawnIds]
   * @param {Map<number, string>} [p.roles]
   * @param {boolean} [p.viewOnly] the server has this page as a viewer
   * @param {string} [p.snapshotFormat] 'json' or 'binary': how the newest snapshot came
   */
  update({ agents, selected, inspector, painting, drawnIds = [], roles = new Map(), viewOnly = false, snapshotFormat = 'json' }) {
    this.#updateAgents(agents, selected, roles);
    if (!this.agentPanel.hidden) set(this.agentBinary, snapshotFormat === 'binary' ? BINARY_NOTE : '');
    if (this.helpAccess.hidden === viewOnly) {
      this.helpAccess.hidden = !viewOnly;
      this.help.classList.toggle('view-only', viewOnly);
    }
    this.paintBanner.hidden = !painting;
    this.legend.hidden = !inspector.on;
    if (inspector.on) set(this.legendNote, inspectNote(inspector.ids, drawnIds, selected.size));
    // A panel taller than the stage scrolls, and so must take the wheel.
    for (const panel of [this.agentPanel, this.legend, this.help]) {
      if (panel.hidden) continue;
      const scrolls = panel.scrollHeight > panel.clientHeight + 1;
      if (panel.classList.contains('scrolls') !== scrolls) panel.classList.toggle('scrolls', scrolls);
    }
  }

  // One row per selected agent: what it is doing and how it moves.
  /** @param {Agent[]} agents @param {Set<number>} selected @param {Map<number, string>} roles */
  #updateAgents(agents, selected, roles) {
    this.agentPanel.hidden = selected.size === 0;
    if (selected.size === 0) return;
    const rows = [];
    const stuck = [];
    /** @type {string[]} */
    const stalled = []; // why the first few selected stalled agents are stalled
    for (const a of agents) {
      if (!selected.has(a.id)) continue;
      if (a.state === 'unreachable') stuck.push(a.id);
      else if (a.stall && stalled.length < MAX_STALL_NOTES) stalled.push(`agent ${a.id} ${stallText(a)}`);
      if (rows.length === MAX_ROWS) continue; // still counted among the stuck
      rows.push(agentCells(a, roles));
    }
    const key = JSON.stringify(rows);
    if (key !== this.rowsKey) {
      this.rowsKey = key;
      this.agentRows.replaceChildren(...rows.map(agentRow));
    }
    const more = selected.size - rows.length;
    set(this.agentMore, more > 0 ? `+${more} more selected` : '');
    set(this.agentNote, [unreachableNote(stuck), ...stalled].filter((s) => s !== '').join(' · '));
  }
}

// Stalled agents the panel's note explains, at most (the rest wear their badge).
const MAX_STALL_NOTES = 3;

// A binary snapshot's agents carry position, velocity, radius, group and state only (PROTOCOL.md,
// "Binary snapshots"), but for the inspected ones.
export const BINARY_NOTE = 'binary snapshots carry no behaviour, phase or target: inspect (I) to see them';

// An agent's row, in index.html's column order (units in its header): id, group, position,
// behaviour, phase, state, speed, target, movement, pathing, role; then 'collided' or ''.
/** @param {Agent} a @param {Map<number, string>} roles @returns {string[]} */
export function agentCells(a, roles) {
  const point = (/** @type {number} */ x, /** @type {number} */ y) => `${Math.round(x)}, ${Math.round(y)}`;
  let target = a.tx !== undefined && a.ty !== undefined ? point(a.tx, a.ty) : '–'; // absent: none
  if (a.subject !== undefined) target = `agent ${a.subject}` + (target === '–' ? '' : ` (${target})`);
  return [
    String(a.id),
    String(a.group),
    point(a.x, a.y),
    a.behaviour ?? '–',
    a.phase ?? '–',
    a.stall ? `${a.state} · stalled: ${a.stall}` : a.state, // why it stalled (stalls.js)
    `${Math.round(Math.hypot(a.vx, a.vy))}`,
    target,
    a.movement ?? 'inertial', // absent means inertial (PROTOCOL.md)
    (a.pathing ?? 'direct') + (a.path === 'pending' ? ' (pending)' : ''), // absent means direct; pending: its path is queued
    roles.get(a.id) ?? '–',
    a.collided ? 'collided' : '',
  ];
}

// What the legend says about whose diagrams are drawn: at most a few at once (inspector.js), the
// one under the cursor first; the others are counted, not drawn.
/** @param {number[]} ids @param {number[]} drawnIds @param {number} selectedCount @returns {string} */
export function inspectNote(ids, drawnIds, selectedCount) {
  if (ids.length === 0) return `select agents to inspect (up to ${MAX_INSPECTED})`;
  const shown = drawnIds.length > 0 ? drawnIds : ids.slice(0, 1);
  const more = selectedCount - shown.length;
  let note = `drawn: ${shown.join(', ')}`;
  if (more > 0) note += ` · +${more} more: point at one to draw its own`;
  if (selectedCount > ids.length) note += ` (the first ${MAX_INSPECTED} selected are traced)`;
  return note;
}

// The panel says plainly what the badge on the map means.
/** @param {number[]} ids @returns {string} */
function unreachableNote(ids) {
  if (ids.length === 0) return '';
  const who = ids.length === 1 ? `agent ${ids[0]} cannot` : `agents ${ids.join(', ')} cannot`;
  return `! ${who} reach the goal: the map blocks every way there`;
}

/** @param {string[]} cells @returns {HTMLTableRowElement} */
function agentRow(cells) {
  const tr = document.createElement('tr');
  tr.dataset.id = cells[0];
  tr.classList.toggle('collided', cells[11] !== '');
  tr.classList.toggle('unreachable', cells[5].startsWith('unreachable'));
  tr.classList.toggle('stalled', cells[5].includes('stalled'));
  for (const text of cells.slice(0, 11)) {
    const td = document.createElement('td');
    td.textContent = text;
    tr.append(td);
  }
  return tr;
}

// The legend is built from the colours the overlay draws with, so the two cannot disagree.
/** @param {HTMLElement} list */
function buildLegend(list) {
  const C = INSPECT_COLORS;
  /** @type {[HTMLSpanElement, string][]} */
  const items = [
    [line(C.raw), 'red: raw push, one per obstacle'],
    [line(C.adjusted), 'blue: push turned to a side'],
    [line(C.sumRaw, 5), 'yellow: sum of weighted raw pushes'],
    [line(C.splitFix, 5), 'green: split fix A'],
    [line(C.desired, 1.5), 'thin white: desire u'],
    [line(C.final, 4), 'bold arrow: direction taken'],
    [line(C.lookDesired, 2, 'dashed'), 'look-ahead of the desire'],
    [line(C.lookCurrent, 2, 'dashed'), 'look-ahead of the velocity'],
    [line(C.crossing, 2, 'dashed'), "other's look-ahead; × crossing, ringed: yields"],
    [line(C.raw, 3, 'solid', 0.3), 'faint: ignored (prey out of reach)'],
  ];
  list.replaceChildren(
    ...items.map(([swatch, text]) => {
      const li = document.createElement('li');
      const label = document.createElement('span');
      label.textContent = text;
      li.append(swatch, label);
      return li;
    }),
  );
  const scale = document.createElement('li');
  scale.className = 'scale';
  scale.textContent =
    `length 1 = ${VECTOR_UNIT_RADII} agent radii (≥ ${VECTOR_UNIT_MIN_PX} px); ` +
    `over ${VECTOR_MAX_UNITS}: cut, ends in a bar`;
  list.append(scale);
}

// The help's keys, from keys.js's table: each section's title, its list and its note go at the
// start of the element index.html marks with data-keys="<section id>" (which may hold more, such
// as the marks' key), or of a new section at the end for a section the page does not place.
/** @param {HTMLElement} help */
function buildHelp(help) {
  for (const s of KEY_SECTIONS) {
    let home = /** @type {HTMLElement | null} */ (help.querySelector(`[data-keys="${s.id}"]`));
    if (!home) {
      home = document.createElement('section');
      help.append(home);
    }
    const title = document.createElement('div');
    title.className = 'title';
    title.textContent = s.title;
    const dl = document.createElement('dl');
    for (const row of KEY_ROWS.filter((r) => r.section === s.id)) {
      const dt = document.createElement('dt');
      dt.append(...inlineNodes(labelRuns(row)));
      const dd = document.createElement('dd');
      dd.append(...inlineNodes(inlineRuns(row.does)));
      if (row.commands) {
        dt.className = 'commands';
        dd.className = 'commands';
      }
      dl.append(dt, dd);
    }
    const parts = [title, dl];
    if (s.note) {
      const note = document.createElement('div');
      note.className = 'muted';
      note.textContent = s.note;
      parts.push(note);
    }
    home.prepend(...parts);
  }
}

// keys.js's runs as text and <kbd> and <em> elements.
/** @param {Inline[]} runs @returns {(Node | string)[]} */
function inlineNodes(runs) {
  return runs.map((r) => {
    if (r.kind === 'text') return r.text;
    const el = document.createElement(r.kind);
    el.textContent = r.text;
    return el;
  });
}

/**
 * @param {string} color
 * @param {number} [width]
 * @param {string} [style]
 * @param {number} [opacity]
 * @returns {HTMLSpanElement}
 */
function line(color, width = 3, style = 'solid', opacity = 1) {
  const s = document.createElement('span');
  s.className = 'swatch';
  s.style.borderTop = `${width}px ${style} ${color}`;
  s.style.opacity = String(opacity);
  return s;
}

/** @param {HTMLElement} el @param {string} text */
function set(el, text) {
  if (el.textContent !== text) el.textContent = text;
}
