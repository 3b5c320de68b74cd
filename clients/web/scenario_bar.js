// @ts-check
// The scenario bar: the running scenario and a picker of every one the server offers (welcome's
// `scenario` and `scenarios`), pause and resume, step, reset, and the tick and snapshot rates, as
// buttons and as keys (input.js calls the actions). Each sends one of the protocol's server
// controls (PROTOCOL.md, "Server controls"); what they change comes back in the next welcome.
//
// Only a commander may send them: a page the server welcomed as viewer (access.js) sees every
// control disabled, and the bar's note says why, once: the page's one view-only notice. A key or
// a click that would command sends nothing and only flashes that note (no toast).

// Rates offered in the pickers; the server's own (any number in (0, 1000]) is added when it is not
// among them. [ and ] (or { and }) move to the next lower or higher one.
/** @import { Welcome, CommandFields } from '../js/src/protocol.js' */

export const TICK_RATES = [10, 15, 20, 30, 60, 120, 240, 480];
export const SNAPSHOT_RATES = [5, 10, 15, 20, 30, 60];
const MAX_STEP_TICKS = 1000; // PROTOCOL.md: step's ticks, [1, 1000]

// The view-only note's tooltip: what such a page still does.
const VIEW_ONLY_TITLE =
  'the server welcomed this page as a viewer: keys and clicks that would command the world send nothing; ' +
  'selecting, the camera, the inspector and the help still work';

// An element of index.html by id (the page has every one asked for here), of the type it is there.
/** @template {HTMLElement} [T=HTMLElement] @param {string} id @returns {T} */
const $ = (id) => /** @type {T} */ (document.getElementById(id));

// The rate below or above `current` in `list` (sorted), or null at either end.
/**
 * @param {number[]} list
 * @param {number} current
 * @param {number} direction -1 or 1
 * @returns {number | null}
 */
export function nextRate(list, current, direction) {
  if (direction < 0) {
    for (let i = list.length - 1; i >= 0; i--) if (list[i] < current - 1e-9) return list[i];
    return null;
  }
  for (const r of list) if (r > current + 1e-9) return r;
  return null;
}

// The set_param fields for a new tick rate: the snapshot rate comes down with it when it would
// otherwise exceed it (the server refuses a snapshot rate above the tick rate).
/**
 * @param {number} tickRate
 * @param {number} snapshotRate
 * @returns {{tick_rate: number, snapshot_rate?: number}}
 */
export function tickRateParams(tickRate, snapshotRate) {
  return snapshotRate > tickRate ? { tick_rate: tickRate, snapshot_rate: tickRate } : { tick_rate: tickRate };
}

export class ScenarioBar {
  // send(fields) -> seq or null: sends a command; toast(text, kind): tells the user.
  /**
   * @param {object} p
   * @param {(fields: CommandFields) => number | null} p.send
   * @param {(text: string, kind?: string) => void} p.toast
   */
  constructor({ send, toast }) {
    this.send = send;
    this.toast = toast;
    this.bar = $('scenario-bar');
    /** @type {HTMLSelectElement} */
    this.pick = $('scenario-pick');
    /** @type {HTMLButtonElement} */
    this.pause = $('pause-btn');
    this.pauseLabel = $('pause-label');
    /** @type {HTMLButtonElement} */
    this.step = $('step-btn');
    /** @type {HTMLInputElement} */
    this.stepTicks = $('step-ticks');
    /** @type {HTMLButtonElement} */
    this.reset = $('reset-btn');
    /** @type {HTMLSelectElement} */
    this.tickRate = $('tick-rate');
    /** @type {HTMLSelectElement} */
    this.snapshotRate = $('snapshot-rate');
    this.pausedBadge = $('paused-badge');
    // What the running scenario shows (welcome's `description`), one click away; not a command,
    // so a view-only page has it too.
    /** @type {HTMLButtonElement} */
    this.about = $('scenario-about');
    this.description = $('scenario-description');
    this.about.addEventListener('click', () => this.toggleAbout());
    this.note = $('bar-note');
    this.note.addEventListener('animationend', () => this.note.classList.remove('flash'));
    /** @type {Welcome | null} */
    this.welcome = null;
    this.connected = false;
    this.notice = ''; // why this page may not command (access.js), '' when it may
    this.optionsKey = '';
    // The controls a viewer cannot use, with what each says when it can (step's depends on the pause).
    this.controls = [this.pick, this.pause, this.reset, this.tickRate, this.snapshotRate, this.stepTicks];
    this.titles = new Map(this.controls.map((el) => [el, el.title]));
    this.pick.addEventListener('change', () => this.load(this.pick.value));
    this.pause.addEventListener('click', () => this.togglePause());
    this.step.addEventListener('click', () => this.stepOnce());
    this.stepTicks.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') this.stepOnce(); // type the ticks, Enter steps
    });
    this.reset.addEventListener('click', () => this.resetWorld());
    this.tickRate.addEventListener('change', () => this.setTickRate(Number(this.tickRate.value)));
    this.snapshotRate.addEventListener('change', () => this.setSnapshotRate(Number(this.snapshotRate.value)));
    this.#render();
  }

  get paused() {
    return Boolean(this.welcome?.paused);
  }

  // Why the controls cannot be used now, or '' when they can.
  get blocked() {
    if (!this.connected || !this.welcome) return 'not connected';
    return this.notice;
  }

  // Every welcome (a new session, a new world, new rates, a pause) and every change of the
  // connection's state. notice: why the welcome's role may not command, '' when it may.
  /**
   * @param {object} p
   * @param {Welcome | null} p.welcome
   * @param {boolean} p.connected
   * @param {string} p.notice
   */
  update({ welcome, connected, notice }) {
    if (welcome === this.welcome && connected === this.connected && notice === this.notice) return;
    this.welcome = welcome;
    this.connected = connected;
    this.notice = notice;
    this.#render();
  }

  // Draws the eye to the view-only note (a command was asked for): a short highlight, restarted
  // by every press. The note stays what it was; nothing is sent and no toast is added.
  flashNote() {
    if (!this.note.textContent) return;
    this.note.classList.remove('flash');
    void this.note.offsetWidth; // a reflow, so that the animation starts again
    this.note.classList.add('flash');
  }

  // Shows or hides the running scenario's description.
  toggleAbout() {
    const open = this.description.hidden && this.description.textContent !== '';
    this.description.hidden = !open;
    this.about.setAttribute('aria-expanded', String(open));
  }

  // ---- the actions (buttons and keys) -------------------------------------------------------

  togglePause() {
    if (this.#refused()) return;
    this.send({ cmd: this.paused ? 'resume' : 'pause' });
  }

  stepOnce() {
    if (this.#refused()) return;
    if (!this.paused) {
      this.toast('step runs the world by hand: pause first (Space)', 'info');
      return;
    }
    this.send({ cmd: 'step', ticks: this.ticksPerStep() });
  }

  // The ticks field, kept to what the server takes.
  ticksPerStep() {
    const n = Math.round(Number(this.stepTicks.value));
    const ticks = Number.isFinite(n) ? Math.min(MAX_STEP_TICKS, Math.max(1, n)) : 1;
    if (String(ticks) !== this.stepTicks.value) this.stepTicks.value = String(ticks);
    return ticks;
  }

  resetWorld() {
    if (this.#refused()) return;
    this.send({ cmd: 'reset' });
  }

  /** @param {string} name */
  load(name) {
    if (this.#refused()) {
      this.#render(); // the picker goes back to the running scenario
      return;
    }
    if (!name) return;
    this.send({ cmd: 'load_scenario', name });
  }

  // Key L: opens the picker (the change loads the scenario chosen).
  focusPicker() {
    if (this.#refused()) return;
    this.pick.focus();
    try {
      this.pick.showPicker?.();
    } catch {
      // Not allowed here (no user gesture): focused is enough, arrows and Enter still choose.
    }
  }

  /** @param {number} rate */
  setTickRate(rate) {
    if (this.#refused() || !(rate > 0)) {
      this.#render();
      return;
    }
    const w = /** @type {Welcome} */ (this.welcome); // #refused() said there is one
    this.send({ cmd: 'set_param', ...tickRateParams(rate, w.snapshot_rate) });
  }

  /** @param {number} rate */
  setSnapshotRate(rate) {
    if (this.#refused() || !(rate > 0)) {
      this.#render();
      return;
    }
    const w = /** @type {Welcome} */ (this.welcome); // #refused() said there is one
    if (rate > w.tick_rate) {
      this.toast(`at most ${w.tick_rate} snapshots/s: one a tick`, 'info');
      this.#render();
      return;
    }
    this.send({ cmd: 'set_param', snapshot_rate: rate });
  }

  // Keys [ ] and { }: the next rate down (direction -1) or up (+1).
  /** @param {number} direction */
  stepTickRate(direction) {
    if (this.#refused()) return;
    const w = /** @type {Welcome} */ (this.welcome); // #refused() said there is one
    const r = nextRate(TICK_RATES, w.tick_rate, direction);
    if (r === null) this.toast(`${w.tick_rate} ticks/s is the ${direction < 0 ? 'lowest' : 'highest'} offered`, 'info');
    else this.setTickRate(r);
  }

  /** @param {number} direction */
  stepSnapshotRate(direction) {
    if (this.#refused()) return;
    const w = /** @type {Welcome} */ (this.welcome); // #refused() said there is one
    const offered = SNAPSHOT_RATES.filter((r) => r <= w.tick_rate);
    const r = nextRate(offered, w.snapshot_rate, direction);
    if (r === null) this.toast(`${w.snapshot_rate} snapshots/s is the ${direction < 0 ? 'lowest' : 'highest'} offered`, 'info');
    else this.setSnapshotRate(r);
  }

  // ---- drawing --------------------------------------------------------------------------------

  // True when the controls cannot be used now: not connected (said in a toast) or view only
  // (the note, always shown, flashes).
  #refused() {
    const why = this.blocked;
    if (why === 'not connected') this.toast(why, 'info');
    else if (why) this.flashNote();
    return why !== '';
  }

  #render() {
    const w = this.welcome;
    const why = this.blocked;
    this.bar.dataset.role = w ? w.role : 'none';
    this.note.textContent = why === 'not connected' ? '' : why;
    this.note.title = this.notice.startsWith('view only') ? VIEW_ONLY_TITLE : ''; // not a player's note
    for (const el of this.controls) {
      el.disabled = why !== '';
      el.title = why || /** @type {string} */ (this.titles.get(el));
    }
    // Step needs a paused world too (else the server answers not_paused).
    this.step.disabled = why !== '' || !this.paused;
    this.step.title = why || (this.paused ? 'run the world this many ticks (.)' : 'step runs a paused world: pause first (Space)');
    this.pauseLabel.textContent = this.paused ? 'resume' : 'pause';
    this.pause.setAttribute('aria-pressed', String(this.paused));
    this.pausedBadge.hidden = !this.paused;
    if (!w) return;
    const scenarios = w.scenarios ?? [];
    const names = w.scenario && !scenarios.includes(w.scenario) ? [w.scenario, ...scenarios] : scenarios;
    const key = JSON.stringify([names, w.tick_rate, w.snapshot_rate]);
    if (key !== this.optionsKey) {
      this.optionsKey = key;
      fill(this.pick, names.map((n) => [n, n]));
      fill(this.tickRate, withCurrent(TICK_RATES, w.tick_rate).map((r) => [String(r), String(r)]));
      fill(
        this.snapshotRate,
        withCurrent(SNAPSHOT_RATES, w.snapshot_rate).map((r) => [String(r), String(r), r > w.tick_rate]),
      );
    }
    const descriptions = w.descriptions ?? {};
    for (const option of this.pick.options) option.title = descriptions[option.value] ?? '';
    this.pick.value = w.scenario ?? '';
    const about = w.description ?? (w.scenario ? descriptions[w.scenario] : undefined) ?? '';
    if (about !== this.description.textContent) {
      this.description.textContent = about;
      if (about === '') this.description.hidden = true;
      this.about.setAttribute('aria-expanded', String(!this.description.hidden));
    }
    this.about.hidden = about === '';
    this.tickRate.value = String(w.tick_rate);
    this.snapshotRate.value = String(w.snapshot_rate);
    document.title = w.scenario ? `herd · ${w.scenario}` : 'herd';
  }
}

// The list with `current` in its place (sorted), when it is not already there.
/** @param {number[]} list @param {number} current @returns {number[]} */
function withCurrent(list, current) {
  return list.includes(current) ? list : [...list, current].sort((a, b) => a - b);
}

// options: [value, label, disabled?]
/** @param {HTMLSelectElement} select @param {[string, string, boolean?][]} options */
function fill(select, options) {
  select.replaceChildren(
    ...options.map(([value, label, disabled]) => {
      const o = document.createElement('option');
      o.value = value;
      o.textContent = label;
      o.disabled = Boolean(disabled);
      return o;
    }),
  );
}
