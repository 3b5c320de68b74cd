// @ts-check
// The step profile panel: while it is open and the page is visible, GET /metrics once a second
// (never two at once) and show how long each stage of the world's step took on average over the
// last second, and its share of the step (profile.js computes it). Through a relay, which steps no
// world, it says so and asks nothing. It never toasts: whatever goes wrong is its one note line.

import { StepProfile, formatMs } from './profile.js';

/** @import { MetricsResult, ProfileView } from './profile.js' */

export const METRICS_URL = '/metrics'; // the server's own, same origin as the page
export const POLL_MS = 1000;
const TIMEOUT_MS = 5000; // a /metrics that hangs is given up and asked again

/**
 * What the poller needs from the browser (Node's tests give it fakes).
 * @typedef {object} PollerHost
 * @property {(url: string, init: RequestInit) => Promise<Response>} fetch
 * @property {() => number} now  ms
 * @property {(fn: () => void, ms: number) => number} setTimeout
 * @property {(id: number) => void} clearTimeout
 */

// GET url every intervalMs while running: the next request is made intervalMs after the last one
// began (or at once if it took longer), and only when it has settled, so at most one is ever in
// flight. stop() aborts the one in flight; its result, and any of a stopped run, is dropped. A
// start() while an aborted request is still settling waits for it.
export class MetricsPoller {
  /**
   * @param {object} p
   * @param {(r: MetricsResult) => void} p.onResult
   * @param {PollerHost} p.host
   * @param {string} [p.url]
   * @param {number} [p.intervalMs]
   * @param {number} [p.timeoutMs]
   * @param {() => string} [p.token] the command token, sent as a bearer token: a server with one
   *   serves /metrics only to whoever presents it
   */
  constructor({ onResult, host, url = METRICS_URL, intervalMs = POLL_MS, timeoutMs = TIMEOUT_MS, token = () => '' }) {
    this.onResult = onResult;
    this.token = token;
    this.host = host;
    this.url = url;
    this.intervalMs = intervalMs;
    this.timeoutMs = timeoutMs;
    this.running = false;
    this.inFlight = false;
    this.run = 0; // which start() the request in flight belongs to
    /** @type {number | null} */
    this.timer = null;
    /** @type {AbortController | null} */
    this.abort = null;
    this.requests = 0; // made in all (the tests count them)
  }

  start() {
    if (this.running) return;
    this.running = true;
    this.run++;
    if (!this.inFlight) this.#request();
  }

  stop() {
    if (!this.running) return;
    this.running = false;
    this.run++;
    if (this.timer !== null) this.host.clearTimeout(this.timer);
    this.timer = null;
    this.abort?.abort();
  }

  /** @returns {Promise<void>} */
  async #request() {
    this.timer = null;
    this.inFlight = true;
    this.requests++;
    const run = this.run;
    const began = this.host.now();
    const abort = new AbortController();
    this.abort = abort;
    const timeout = this.host.setTimeout(() => abort.abort(), this.timeoutMs);
    /** @type {MetricsResult} */
    let result;
    try {
      const token = this.token();
      /** @type {Record<string, string>} */
      const headers = { Accept: 'text/plain' };
      if (token) headers.Authorization = `Bearer ${token}`;
      const res = await this.host.fetch(this.url, { cache: 'no-store', signal: abort.signal, headers });
      if (res.ok) result = { kind: 'text', text: await res.text(), at: this.host.now() };
      else result = { kind: 'http', status: res.status, statusText: res.statusText };
    } catch (err) {
      const timedOut = abort.signal.aborted && run === this.run;
      result = { kind: 'error', message: timedOut ? `no answer in ${this.timeoutMs / 1000} s` : errorText(err) };
    }
    this.host.clearTimeout(timeout);
    this.inFlight = false;
    this.abort = null;
    if (!this.running) return;
    if (run !== this.run) return this.#request(); // stopped and started again meanwhile: a new run
    this.onResult(result);
    const wait = Math.max(0, began + this.intervalMs - this.host.now());
    if (this.running && run === this.run && !this.inFlight) this.timer = this.host.setTimeout(() => this.#request(), wait);
  }
}

/** @param {unknown} err @returns {string} */
function errorText(err) {
  return err instanceof Error ? err.message : String(err);
}

// An element of index.html by id (the page has every one asked for here), of the type it is there.
/** @template {HTMLElement} [T=HTMLElement] @param {string} id @returns {T} */
const $ = (id) => /** @type {T} */ (document.getElementById(id));

export class ProfilePanel {
  /** @param {() => string} [token] the command token from the page's URL, if any */
  constructor(token = () => '') {
    this.panel = $('profile');
    this.rows = $('profile-rows');
    this.stepMs = $('profile-step-ms');
    this.note = $('profile-note');
    this.model = new StepProfile();
    this.poller = new MetricsPoller({
      onResult: (r) => {
        this.model.take(r);
        this.#render();
      },
      host: {
        fetch: (url, init) => fetch(url, init),
        now: () => performance.now(),
        setTimeout: (fn, ms) => window.setTimeout(fn, ms),
        clearTimeout: (id) => window.clearTimeout(id),
      },
      token,
    });
    this.relay = false;
    this.epoch = -1;
    this.rowsKey = '';
    // A hidden page draws no frames (update() is not called): the page's visibility is followed
    // here, so that a tab in the background asks nothing.
    document.addEventListener('visibilitychange', () => this.#sync());
  }

  get open() {
    return !this.panel.hidden;
  }

  /** @param {boolean} open */
  setOpen(open) {
    if (open === this.open) return;
    this.panel.hidden = !open;
    this.#sync();
  }

  toggle() {
    this.setOpen(!this.open);
  }

  // Every frame. relay: the page's server is a relay (its welcome's `upstream`); epoch: the
  // connection's (a new one may be a restarted or another server: its figures start afresh).
  /** @param {{relay: boolean, epoch: number}} p */
  update({ relay, epoch }) {
    if (relay === this.relay && epoch === this.epoch) return;
    this.relay = relay;
    this.epoch = epoch;
    this.model.reset();
    this.#sync();
  }

  // Polls exactly while the panel is open, the page visible and its server not a relay; stopping
  // forgets the last reading, so that the next figures are of a fresh second.
  #sync() {
    const want = this.open && document.visibilityState === 'visible' && !this.relay;
    if (want && !this.poller.running) {
      this.model.reset();
      this.poller.start();
    } else if (!want && this.poller.running) {
      this.poller.stop();
      this.model.reset();
    }
    this.#render();
  }

  #render() {
    if (!this.open) return;
    const view = this.relay ? { note: 'no step profile here (relay)', delta: null, stale: false } : this.model.view();
    this.#renderView(view);
  }

  /** @param {ProfileView} v */
  #renderView({ note, delta, stale }) {
    set(this.note, note);
    this.panel.classList.toggle('stale', stale);
    const rows = (delta?.stages ?? []).map((s) => ({
      stage: s.stage,
      ms: s.ms,
      text: s.ms === null ? '–' : formatMs(s.ms),
      share: s.share,
      title: s.ms === null ? `no ${s.stage} stage in these steps` : `${(1000 * s.ms).toFixed(2)} µs a step, over ${s.steps} steps`,
    }));
    const key = JSON.stringify(rows);
    if (key !== this.rowsKey) {
      this.rowsKey = key;
      this.rows.replaceChildren(...rows.map(stageRow));
    }
    const stepMs = delta?.stepMs ?? null;
    set(this.stepMs, stepMs === null ? '–' : formatMs(stepMs));
    this.stepMs.dataset.ms = stepMs === null ? '' : String(stepMs);
  }
}

// A stage's row: its name, its mean ms (also as data-ms, unrounded) and its share as a bar and a
// percentage. A sub-stage ("pace.orders": timed within its stage, which the server lists just
// before it) is indented under its stage and named by its part.
/** @param {{stage: string, ms: number | null, text: string, share: number | null, title: string}} r */
function stageRow(r) {
  const tr = document.createElement('tr');
  tr.dataset.stage = r.stage;
  tr.title = r.title;
  const name = document.createElement('td');
  const dot = r.stage.indexOf('.');
  name.textContent = dot < 0 ? r.stage : r.stage.slice(dot + 1);
  if (dot >= 0) tr.classList.add('sub');
  const ms = document.createElement('td');
  ms.className = 'ms';
  ms.textContent = r.text;
  ms.dataset.ms = r.ms === null ? '' : String(r.ms);
  const share = document.createElement('td');
  share.className = 'share';
  const bar = document.createElement('span');
  bar.className = 'bar';
  bar.style.width = `${Math.round(100 * Math.min(1, Math.max(0, r.share ?? 0)) * 10) / 10}%`;
  const pct = document.createElement('span');
  pct.className = 'pct';
  pct.textContent = r.share === null ? '' : `${Math.round(100 * r.share)}%`;
  const track = document.createElement('span');
  track.className = 'track';
  track.append(bar);
  share.append(track, pct);
  tr.append(name, ms, share);
  return tr;
}

/** @param {HTMLElement} el @param {string} text */
function set(el, text) {
  if (el.textContent !== text) el.textContent = text;
}
