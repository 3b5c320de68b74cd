// @ts-check
// The status line and the toasts (panels.js has the panels over the canvas).

import { formatBytesPerSec } from './stats.js';

/** @import { Formation, FormationPlace } from './connection.js' */
/** @import { StreamReading } from './stats.js' */

/**
 * What the status line shows, every frame (main.js).
 * @typedef {object} HudState
 * @property {string} state the connection's
 * @property {number} retryInMs
 * @property {number | null} tick
 * @property {number | null} agentCount
 * @property {number} selectedCount
 * @property {number | null} rttMs
 * @property {StreamReading} stream
 * @property {string | null} avoidance
 * @property {boolean} inspecting
 * @property {boolean} goals
 * @property {boolean} helpOpen
 * @property {boolean} profileOpen
 * @property {boolean} painting
 * @property {boolean} hasMap
 * @property {Formation | null} formation
 * @property {number} othersForming
 * @property {string | null} [upstream]
 * @property {boolean} [viewOnly] the server has this page as a viewer: the hint names no command
 */

const TOAST_MS = 4000; // visible time before fading out
const TOAST_FADE_MS = 600; // matches the CSS transition on .toast
const MAX_TOASTS = 4; // a burst of errors must not cover the view

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
      rtt: $('rtt'),
      snaps: $('snaps'),
      bytes: $('bytes'),
      dropped: $('dropped'),
      avoidance: $('avoidance'),
      formation: $('formation'),
    };
    this.formationField = $('formation-field');
    /** @type {HTMLButtonElement} */
    this.paintButton = $('paint-btn');
    this.paintTitle = this.paintButton.title;
    this.hint = $('hint');
    this.inspectButton = $('inspect-btn');
    this.goalsButton = $('goals-btn');
    this.helpButton = $('help-btn');
    this.profileButton = $('profile-btn');
    this.toasts = $('toasts');
  }

  // Called every frame; writes a field only when its text changes, so an idle HUD costs no
  // layout work.
  /** @param {HudState} hud */
  update({
    state,
    retryInMs,
    tick,
    agentCount,
    selectedCount,
    rttMs,
    stream,
    avoidance,
    inspecting,
    goals,
    helpOpen,
    profileOpen,
    painting,
    hasMap,
    formation,
    othersForming,
    upstream = null,
    viewOnly = false,
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
    set(this.fields.rtt, rttMs === null ? '–' : `${Math.round(rttMs)} ms`);
    const live = state === 'connected';
    set(this.fields.snaps, live ? `${stream.snapshotsPerSec.toFixed(0)}/s` : '–');
    set(this.fields.bytes, live ? formatBytesPerSec(stream.bytesPerSec) : '–');
    set(this.fields.dropped, String(stream.dropped));
    set(this.fields.avoidance, avoidance ?? '–');
    this.formationField.hidden = !formation;
    if (formation) {
      const more = othersForming > 0 ? ` · ${othersForming} more forming` : '';
      set(this.fields.formation, formationProgress(formation) + more);
      this.formationField.dataset.complete = String(formation.complete);
    }
    set(this.hint, painting ? PAINT_HINT : viewOnly ? VIEW_HINT : HINT);
    // Only a world with a tile map has anything to paint, and only a commander may paint it.
    if (this.paintButton.hidden !== !hasMap) this.paintButton.hidden = !hasMap;
    if (this.paintButton.disabled !== viewOnly) {
      this.paintButton.disabled = viewOnly;
      this.paintButton.title = viewOnly ? 'painting walls commands the world: this page only watches' : this.paintTitle;
    }
    setPressed(this.paintButton, painting);
    setPressed(this.inspectButton, inspecting);
    setPressed(this.goalsButton, goals);
    setPressed(this.helpButton, helpOpen);
    setPressed(this.profileButton, profileOpen);
  }

  // kind: 'error' or 'info'.
  /** @param {string} text @param {string} [kind] */
  toast(text, kind = 'error') {
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

const HINT = 'H: keys · click/drag: select · right-click: move · Space: pause · R B T G P: demo · wheel: zoom';
// A view-only page's hint: what it can do (the scenario bar's note says why no more).
const VIEW_HINT = 'H: keys · click/drag: select · I: inspect · E: goals · wheel: zoom · F: fit';
const PAINT_HINT = 'painting walls: drag = wall · Shift-drag or right-drag = floor · M or Esc: done';

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
