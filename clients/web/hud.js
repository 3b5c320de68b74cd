// @ts-check
// The status line, and the line under the map: its hint (as many of its parts as fit, never a cut
// one) and the toasts, which fade (panels.js has the panels over the canvas).

import { formatBytesPerSec } from './stats.js';

/** @import { Formation, FormationPlace } from '../js/src/protocol.js' */
/** @import { StreamReading } from './stats.js' */

/**
 * What the status line shows, every frame (main.js).
 * @typedef {object} HudState
 * @property {string} state the connection's
 * @property {number} retryInMs
 * @property {number | null} tick
 * @property {number | null} agentCount
 * @property {number} [stalledCount] agents drawn that are stalled (stalls.js)
 * @property {number} selectedCount
 * @property {number | null} rttMs
 * @property {StreamReading} stream
 * @property {string | null} avoidance
 * @property {boolean} inspecting
 * @property {boolean} goals
 * @property {boolean} [heat] the heat map is shown
 * @property {boolean} helpOpen
 * @property {boolean} profileOpen
 * @property {boolean} [minimap] the minimap is shown
 * @property {boolean} painting
 * @property {boolean} hasMap
 * @property {Formation | null} formation
 * @property {number} othersForming
 * @property {string | null} [upstream]
 * @property {boolean} [viewOnly] the server has this page as a viewer: the hint names no command
 * @property {{kind: 'attack_move' | 'patrol', points: number} | null} [armed] the order the next
 *   right-click gives (A, Q), and a patrol's route points given so far: the hint says how to give it
 * @property {string} [who] who this page is on a server with players (whoLine); '' hides it
 * @property {string | null} [whoColor] the colour of the team it plays or shows, beside it
 */

/**
 * What a welcome says of who the page is: a player's carries its name and team.
 * @typedef {{role: string, player?: string, team?: number}} WhoWelcome
 */

const TOAST_MS = 4000; // visible time before fading out
const TOAST_FADE_MS = 600; // matches the CSS transition on .toast
const MAX_TOASTS = 3; // a burst of errors keeps the newest few

// An element of index.html by id (the page has every one asked for here), of the type it is there.
/** @template {HTMLElement} [T=HTMLElement] @param {string} id @returns {T} */
const $ = (id) => /** @type {T} */ (document.getElementById(id));

export class Hud {
  constructor() {
    this.bar = $('status');
    this.fields = {
      conn: $('conn'),
      tick: $('tick'),
      count: $('count'),
      selected: $('selected'),
      stalled: $('stalled'),
      rtt: $('rtt'),
      snaps: $('snaps'),
      bytes: $('bytes'),
      dropped: $('dropped'),
      avoidance: $('avoidance'),
      formation: $('formation'),
      who: $('who'),
    };
    this.whoField = $('who-field');
    this.whoSwatch = $('who-swatch');
    this.formationField = $('formation-field');
    /** @type {HTMLButtonElement} */
    this.paintButton = $('paint-btn');
    this.paintTitle = this.paintButton.title;
    this.hint = $('hint');
    this.inspectButton = $('inspect-btn');
    this.goalsButton = $('goals-btn');
    this.heatButton = $('heat-btn');
    this.helpButton = $('help-btn');
    this.profileButton = $('profile-btn');
    this.minimapButton = $('minimap-btn');
    this.toasts = $('toasts');
    /** @type {readonly string[]} */
    this.hintParts = [];
    // The hint is fitted again whenever its room changes (the window, the toasts beside it).
    new ResizeObserver(() => this.#fitHint()).observe(this.hint);
    this.coarse = window.matchMedia('(pointer: coarse)');
  }

  // The hint's parts for the page's state: touch or mouse, commanding or watching, painting, an
  // order armed.
  /** @param {boolean} painting @param {boolean} viewOnly @param {HudState['armed']} armed */
  #hintFor(painting, viewOnly, armed) {
    if (painting) return HINTS.painting;
    if (armed) return this.coarse.matches ? touchArmedHint(armed.kind) : armedHint(armed.kind, armed.points);
    if (this.coarse.matches) return viewOnly ? HINTS.touchViewer : HINTS.touch;
    return viewOnly ? HINTS.viewer : HINTS.commander;
  }

  // Shows the most of the hint's parts that fit its room, measured in its font.
  #fitHint() {
    const room = this.hint.clientWidth;
    const ctx = measuring();
    ctx.font = getComputedStyle(this.hint).font;
    set(this.hint, fitHint(this.hintParts, (text) => ctx.measureText(text).width <= room - 1));
  }

  // Called every frame; writes a field only when its text changes, so an idle HUD costs no
  // layout work.
  /** @param {HudState} hud */
  update({
    state,
    retryInMs,
    tick,
    agentCount,
    stalledCount = 0,
    selectedCount,
    rttMs,
    stream,
    avoidance,
    inspecting,
    goals,
    heat = false,
    helpOpen,
    profileOpen,
    minimap = false,
    painting,
    hasMap,
    formation,
    othersForming,
    upstream = null,
    viewOnly = false,
    armed = null,
    who = '',
    whoColor = null,
  }) {
    // Through a relay (welcome.upstream set), the world is live only while the relay's own link
    // upstream is: while it reconnects the page stays connected and says so.
    const waiting = state === 'connected' && upstream === 'reconnecting';
    const barState = waiting ? 'upstream' : state;
    if (this.bar.dataset.state !== barState) this.bar.dataset.state = barState;
    const conn =
      state === 'disconnected'
        ? `disconnected – retrying in ${(Math.max(0, retryInMs) / 1000).toFixed(1)} s`
        : waiting
          ? 'relay: reconnecting upstream'
          : state === 'connected' && upstream
            ? 'connected via relay'
            : state;
    set(this.fields.conn, conn);
    set(this.fields.tick, tick === null ? '–' : String(tick));
    set(this.fields.count, agentCount === null ? '–' : String(agentCount));
    set(this.fields.selected, String(selectedCount));
    set(this.fields.stalled, String(stalledCount));
    set(this.fields.rtt, rttMs === null ? '–' : `${Math.round(rttMs)} ms`);
    const live = state === 'connected';
    set(this.fields.snaps, live ? `${stream.snapshotsPerSec.toFixed(0)}/s` : '–');
    set(this.fields.bytes, live ? formatBytesPerSec(stream.bytesPerSec) : '–');
    set(this.fields.dropped, String(stream.dropped));
    set(this.fields.avoidance, avoidance ?? '–');
    if (this.whoField.hidden !== (who === '')) this.whoField.hidden = who === '';
    set(this.fields.who, who);
    if (this.whoSwatch.hidden !== !whoColor) this.whoSwatch.hidden = !whoColor;
    if (whoColor && this.whoSwatch.dataset.color !== whoColor) {
      this.whoSwatch.dataset.color = whoColor; // the style reads back as rgb(): compared by this
      this.whoSwatch.style.background = whoColor;
    }
    this.formationField.hidden = !formation;
    if (formation) {
      const more = othersForming > 0 ? ` · ${othersForming} more forming` : '';
      set(this.fields.formation, formationProgress(formation) + more);
      this.formationField.dataset.complete = String(formation.complete);
    }
    const parts = this.#hintFor(painting, viewOnly, armed);
    if (parts.join('\n') !== this.hintParts.join('\n')) {
      this.hintParts = parts;
      this.#fitHint();
    }
    // Only a world with a tile map has anything to paint, and only a commander may paint it.
    if (this.paintButton.hidden !== !hasMap) this.paintButton.hidden = !hasMap;
    if (this.paintButton.disabled !== viewOnly) {
      this.paintButton.disabled = viewOnly;
      this.paintButton.title = viewOnly ? 'painting walls commands the world: this page only watches' : this.paintTitle;
    }
    setPressed(this.paintButton, painting);
    setPressed(this.inspectButton, inspecting);
    setPressed(this.goalsButton, goals);
    setPressed(this.heatButton, heat);
    setPressed(this.helpButton, helpOpen);
    setPressed(this.profileButton, profileOpen);
    setPressed(this.minimapButton, minimap);
  }

  // kind: 'error' or 'info'. A message (info) replaces the one before it: the line says what the
  // last order did, and the line under the map does not grow and shrink the map with every order.
  /** @param {string} text @param {string} [kind] */
  toast(text, kind = 'error') {
    if (kind === 'info') for (const old of this.toasts.querySelectorAll('.toast.info')) old.remove();
    while (this.toasts.childElementCount >= MAX_TOASTS) {
      /** @type {Element} */ (this.toasts.firstElementChild).remove();
    }
    const el = document.createElement('div');
    el.className = `toast ${kind}`;
    el.textContent = text;
    this.toasts.append(el);
    setTimeout(() => el.classList.add('fading'), TOAST_MS);
    setTimeout(() => el.remove(), TOAST_MS + TOAST_FADE_MS);
  }
}

// Who the page is, as the status line says it on a server with players: 'player red · team 1';
// a spectator's with the view it shows, 'spectator · whole world' or 'spectator · team 2's view'
// (teamView: null for the whole world); '' for the operator and a viewer. A late spectator's
// delay (the welcome's `delay`) is counted down over the world until its first view (main.js).
/** @param {WhoWelcome | null} welcome @param {number | null} teamView @returns {string} */
export function whoLine(welcome, teamView) {
  if (!welcome) return '';
  if (welcome.role === 'player') return `player ${welcome.player ?? '?'} · team ${welcome.team ?? 0}`;
  if (welcome.role === 'spectator') return teamView === null ? 'spectator · whole world' : `spectator · team ${teamView}'s view`;
  return '';
}

// The hint's parts, the most useful first. A view-only page's names no command (the scenario bar's
// note says why no more); a touch screen's names its gestures.
export const HINTS = {
  commander: [
    'H: keys',
    'click/drag: select',
    'right-click: move (Shift: queue)',
    'right-click an agent: attack or follow',
    'wheel: zoom',
    'A: attack-move',
    'Q: patrol',
    'Space: pause',
    'R B T G P: demo',
    'N: minimap',
  ],
  viewer: ['H: keys', 'click/drag: select', 'wheel: zoom', 'I: inspect', 'E: goals', 'D: heat map', 'F: fit', 'N: minimap'],
  painting: ['painting walls: drag = wall', 'Shift-drag or right-drag = floor', 'M or Esc: done'],
  touch: ['tap: select', 'tap the ground: move there', 'drag: pan', 'pinch: zoom', 'long press: menu, add or clear', '?: help'],
  touchViewer: ['tap: select', 'drag: pan', 'pinch: zoom', 'long press: add or clear', '?: help'],
};
const HINT_SEPARATOR = ' · ';

// The hint while an order is armed on a touch screen (its button armed it): the next tap gives it.
/** @param {'attack_move' | 'patrol'} kind @returns {string[]} */
export function touchArmedHint(kind) {
  const what = kind === 'attack_move' ? 'attack-move' : 'patrol';
  return [`${what}: tap a point`, `${what} again: cancel`];
}

// The hint while an order is armed: how to give it, and how not to.
/** @param {'attack_move' | 'patrol'} kind @param {number} points a patrol's route points so far @returns {string[]} */
export function armedHint(kind, points) {
  if (kind === 'attack_move') return ['attack-move: right-click a point', 'Shift + right-click: queue it', 'Esc: cancel'];
  if (points === 0) return ['patrol: right-click a point, to go there and back', 'Shift + right-click: a route point', 'Esc: cancel'];
  return [`patrol route: ${points} ${points === 1 ? 'point' : 'points'}`, 'right-click: the last, go', 'let go of Shift: go', 'Esc: cancel'];
}

// The longest run of the first parts, joined, for which fits(text) holds ('' when not even the
// first fits): a hint is shortened by whole parts, never cut in one.
/** @param {readonly string[]} parts @param {(text: string) => boolean} fits @returns {string} */
export function fitHint(parts, fits) {
  let shown = '';
  for (let i = 1; i <= parts.length; i++) {
    const text = parts.slice(0, i).join(HINT_SEPARATOR);
    if (!fits(text)) break;
    shown = text;
  }
  return shown;
}

/** @type {CanvasRenderingContext2D | null} */
let measureCtx = null;
// A canvas context to measure text with (no layout).
function measuring() {
  measureCtx ??= /** @type {CanvasRenderingContext2D} */ (document.createElement('canvas').getContext('2d'));
  return measureCtx;
}

// A formation's progress as the status bar says it: "formation 3: 28/32 arrived", then
// "formation 3: complete", and its places that cannot be reached: "· 1 place moved beside an
// obstacle (agent 5)", "· 2 places unreachable (agents 7, 9)".
/** @param {Formation} f @returns {string} */
export function formationProgress(f) {
  const base = f.complete ? `formation ${f.id}: complete` : `formation ${f.id}: ${f.arrived}/${f.agents} arrived`;
  const places = f.unreachable ?? [];
  /** @type {(list: FormationPlace[], what: string) => string} */
  const say = (list, what) => {
    if (list.length === 0) return '';
    const ids = list.slice(0, 3).map((u) => u.agent).join(', ') + (list.length > 3 ? ', …' : '');
    return ` · ${list.length} ${list.length === 1 ? 'place' : 'places'} ${what} (${list.length === 1 ? 'agent' : 'agents'} ${ids})`;
  };
  return base + say(places.filter((u) => u.to), 'moved beside an obstacle') + say(places.filter((u) => !u.to), 'unreachable');
}

/** @param {HTMLElement} el @param {string} text */
function set(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/** @param {HTMLElement} button @param {boolean} on */
function setPressed(button, on) {
  const v = on ? 'true' : 'false';
  if (button.getAttribute('aria-pressed') !== v) button.setAttribute('aria-pressed', v);
}
