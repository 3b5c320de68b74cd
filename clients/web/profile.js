// @ts-check
// The step profile (the panel of profile_panel.js), without the DOM or the network: the server's
// /metrics text parsed (Prometheus' text format 0.0.4), the step's histograms read from it, and
// from two successive readings each stage's mean time per step over the interval between them.
//
// The server exports each stage of a world step (the sim's profile, as Box2D's b2Profile) as one
// histogram family, herd_step_stage_seconds{stage="..."}, and the whole step as
// herd_tick_duration_seconds. A histogram's _sum and _count only grow, so the mean of the steps
// between two readings is Δsum / Δcount, as Prometheus' rate(sum) / rate(count) computes it. The
// stages' names and order are the server's: this page lists them as /metrics gives them.

export const STAGE_FAMILY = 'herd_step_stage_seconds';
export const STEP_FAMILY = 'herd_tick_duration_seconds';
// Present only on a relay (server/net/observe.cpp): a relay steps no world of its own.
export const RELAY_SERIES = 'herd_relay_upstream_connected';

/**
 * One sample line of the text format: `name{label="value",...} value [timestamp]`.
 * @typedef {object} Sample
 * @property {string} name
 * @property {Record<string, string>} labels
 * @property {number} value  NaN, Infinity and -Infinity included
 */

/**
 * A histogram's running totals: seconds observed and observations (steps).
 * @typedef {{sum: number, count: number}} Totals
 */

/**
 * What one /metrics text says about the step.
 * @typedef {object} ProfileReading
 * @property {number} at          page time of the reading, ms
 * @property {Totals | null} step the whole step's totals, or null when absent
 * @property {{stage: string, totals: Totals}[]} stages in the server's order
 * @property {boolean} relay      the text is a relay's
 */

/**
 * One stage over an interval; ms and share are null when it has no steps there or a value was
 * not a finite number.
 * @typedef {object} StageFigure
 * @property {string} stage
 * @property {number | null} ms    mean milliseconds per step
 * @property {number | null} share of the step's mean (0..1, may pass 1 a little: separate clocks)
 * @property {number} steps        steps of the stage in the interval
 */

/**
 * The interval between two readings.
 * @typedef {object} ProfileDelta
 * @property {number} seconds        between the two readings
 * @property {number} steps          steps in the interval (the whole step's, else the most of any stage)
 * @property {number | null} stepMs  the whole step's mean milliseconds, null without its series
 * @property {StageFigure[]} stages
 * @property {boolean} restarted     a total went down: the server restarted and counts from zero
 */

// Prometheus' text format, line by line: comments (# HELP, # TYPE) and blank lines are skipped, and
// so is a line that does not parse (a newer server's syntax must not break the page). Label
// values may hold \\, \" and \n escapes; labels come in any order; a timestamp after the value is
// ignored.
/** @param {string} text @returns {Sample[]} */
export function parsePrometheus(text) {
  /** @type {Sample[]} */
  const samples = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const sample = parseLine(line);
    if (sample) samples.push(sample);
  }
  return samples;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

/** @param {string} line trimmed, not a comment @returns {Sample | null} */
function parseLine(line) {
  const name = NAME.exec(line)?.[0];
  if (!name) return null;
  let i = name.length;
  /** @type {Record<string, string>} */
  const labels = {};
  i = skipBlanks(line, i);
  if (line[i] === '{') {
    i = skipBlanks(line, i + 1);
    while (line[i] !== '}') {
      const label = LABEL_NAME.exec(line.slice(i))?.[0];
      if (!label) return null;
      i = skipBlanks(line, i + label.length);
      if (line[i] !== '=') return null;
      i = skipBlanks(line, i + 1);
      if (line[i] !== '"') return null;
      const value = readQuoted(line, i + 1);
      if (!value) return null;
      labels[label] = value.text;
      i = skipBlanks(line, value.end);
      if (line[i] === ',') i = skipBlanks(line, i + 1);
      else if (line[i] !== '}') return null;
    }
    i++;
  }
  const rest = line.slice(i).trim().split(/[ \t]+/);
  if (rest.length < 1 || rest.length > 2) return null;
  const value = parseValue(rest[0]);
  return value === null ? null : { name, labels, value };
}

/** @param {string} s @param {number} i @returns {number} */
function skipBlanks(s, i) {
  while (s[i] === ' ' || s[i] === '\t') i++;
  return i;
}

// A label value from after its opening quote: its text unescaped and the index after its closing
// quote, or null when it does not close.
/** @param {string} s @param {number} i @returns {{text: string, end: number} | null} */
function readQuoted(s, i) {
  let text = '';
  for (; i < s.length; i++) {
    const c = s[i];
    if (c === '"') return { text, end: i + 1 };
    if (c === '\\') {
      const next = s[++i];
      if (next === undefined) return null;
      text += next === 'n' ? '\n' : next; // \\ and \" stand for themselves
    } else {
      text += c;
    }
  }
  return null;
}

// A sample's value as Go's ParseFloat reads it (what Prometheus writes): decimal or exponent
// notation, NaN, +Inf, -Inf; null when it is none of them.
/** @param {string} s @returns {number | null} */
export function parseValue(s) {
  const lower = s.toLowerCase();
  if (lower === 'nan') return NaN;
  if (lower === '+inf' || lower === 'inf') return Infinity;
  if (lower === '-inf') return -Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)) return null;
  return Number(s);
}

// The step's totals in a parsed text: the whole step's and each stage's (both _sum and _count
// present, the first of a repeated series kept), in the order the text gives the stages.
/** @param {Sample[]} samples @param {number} at page time, ms @returns {ProfileReading} */
export function readStepProfile(samples, at) {
  /** @type {Map<string, {sum?: number, count?: number}>} */
  const stages = new Map();
  /** @type {{sum?: number, count?: number}} */
  const step = {};
  let relay = false;
  for (const s of samples) {
    if (s.name === RELAY_SERIES) relay = true;
    const part = s.name.endsWith('_sum') ? 'sum' : s.name.endsWith('_count') ? 'count' : null;
    if (!part) continue;
    const family = s.name.slice(0, s.name.length - part.length - 1);
    if (family === STEP_FAMILY) {
      step[part] ??= s.value;
    } else if (family === STAGE_FAMILY && s.labels.stage !== undefined) {
      const t = stages.get(s.labels.stage) ?? {};
      t[part] ??= s.value;
      stages.set(s.labels.stage, t);
    }
  }
  return {
    at,
    step: totals(step),
    stages: [...stages].flatMap(([stage, t]) => {
      const both = totals(t);
      return both ? [{ stage, totals: both }] : [];
    }),
    relay,
  };
}

/** @param {{sum?: number, count?: number}} t @returns {Totals | null} */
function totals(t) {
  return t.sum === undefined || t.count === undefined ? null : { sum: t.sum, count: t.count };
}

// What grew between two readings of one histogram. A total that went down means the server
// restarted between them (its histograms start again at zero, as a Prometheus counter's reset):
// the new totals are then the interval's, counted from that fresh start. Null when a value is not
// a finite number.
/** @param {Totals | null | undefined} prev @param {Totals} cur @returns {{sum: number, count: number, reset: boolean} | null} */
export function totalsDelta(prev, cur) {
  if (!Number.isFinite(cur.sum) || !Number.isFinite(cur.count)) return null;
  if (!prev) return { sum: cur.sum, count: cur.count, reset: false }; // a series new since then
  if (!Number.isFinite(prev.sum) || !Number.isFinite(prev.count)) return null;
  if (cur.count < prev.count || cur.sum < prev.sum) return { sum: cur.sum, count: cur.count, reset: true };
  return { sum: cur.sum - prev.sum, count: cur.count - prev.count, reset: false };
}

// Each stage's mean milliseconds per step between two readings (Δsum / Δcount), its share of the
// whole step's mean, and the step's. Stages are cur's (a stage the server no longer exports is
// gone); a stage with no steps in the interval (a paused world) has null figures.
/** @param {ProfileReading} prev @param {ProfileReading} cur @returns {ProfileDelta} */
export function stepProfileDelta(prev, cur) {
  const stepDelta = cur.step ? totalsDelta(prev.step, cur.step) : null;
  let restarted = stepDelta?.reset ?? false;
  const stepMs = stepDelta && stepDelta.count > 0 ? (1000 * stepDelta.sum) / stepDelta.count : null;
  const before = new Map(prev.stages.map((s) => [s.stage, s.totals]));
  let mostSteps = 0;
  const stages = cur.stages.map(({ stage, totals: t }) => {
    const d = totalsDelta(before.get(stage), t);
    if (d?.reset) restarted = true;
    const steps = d ? d.count : 0;
    mostSteps = Math.max(mostSteps, steps);
    const ms = d && d.count > 0 ? (1000 * d.sum) / d.count : null;
    return { stage, ms, share: null, steps };
  });
  // Without the whole step's series, the stages' sum stands for it.
  const whole = stepMs ?? (stages.some((s) => s.ms !== null) ? stages.reduce((a, s) => a + (s.ms ?? 0), 0) : null);
  /** @type {StageFigure[]} */
  const figures = stages.map((s) => ({ ...s, share: s.ms !== null && whole !== null && whole > 0 ? s.ms / whole : null }));
  return {
    seconds: Math.max(0, (cur.at - prev.at) / 1000),
    steps: stepDelta ? stepDelta.count : mostSteps,
    stepMs,
    stages: figures,
    restarted,
  };
}

// Milliseconds with about three significant digits, down to a tenth of a microsecond: "12.3",
// "1.23", "0.123", "0.0123", "0.0001".
/** @param {number} ms @returns {string} */
export function formatMs(ms) {
  if (!Number.isFinite(ms)) return '–';
  const a = Math.abs(ms);
  if (a >= 100) return ms.toFixed(0);
  if (a >= 10) return ms.toFixed(1);
  if (a >= 1) return ms.toFixed(2);
  if (a >= 0.1) return ms.toFixed(3);
  return ms.toFixed(4);
}

/**
 * The outcome of one GET /metrics (profile_panel.js's poller).
 * @typedef {{kind: 'text', text: string, at: number}
 *   | {kind: 'http', status: number, statusText: string}
 *   | {kind: 'error', message: string}} MetricsResult
 */

/**
 * What the panel shows: a one-line note and, once two readings exist, the figures of the last
 * interval that had steps (stale when the newest had none: a paused world).
 * @typedef {object} ProfileView
 * @property {string} note
 * @property {ProfileDelta | null} delta
 * @property {boolean} stale  the figures are from before the newest interval
 */

const READING = 'reading /metrics…';

// The panel's state: the last reading and the last figures, from the poller's results in turn.
// reset() forgets them (the panel closed, the page hidden, a new connection): the next interval
// is measured afresh.
export class StepProfile {
  constructor() {
    /** @type {ProfileReading | null} */
    this.last = null;
    /** @type {ProfileDelta | null} */
    this.figures = null; // the last interval with steps
    this.stale = false; // the figures are from before the newest interval
    this.note = READING;
  }

  reset() {
    this.last = null;
    this.figures = null;
    this.stale = false;
    this.note = READING;
  }

  /** @param {MetricsResult} r */
  take(r) {
    if (r.kind === 'http') return this.#fail(`no step profile: /metrics answered ${r.status}${r.statusText ? ` ${r.statusText}` : ''}`);
    if (r.kind === 'error') return this.#fail(`no step profile: /metrics did not answer (${r.message})`);
    const reading = readStepProfile(parsePrometheus(r.text), r.at);
    if (reading.stages.length === 0) {
      return this.#fail(
        reading.relay
          ? 'no step profile here (relay)'
          : `no step profile: this server's /metrics has no ${STAGE_FAMILY} (an older server?)`,
      );
    }
    const prev = this.last;
    this.last = reading;
    if (!prev || prev.stages.length === 0) {
      this.note = 'measuring: the first figures in a second';
      return;
    }
    const d = stepProfileDelta(prev, reading);
    if (d.steps === 0) {
      this.stale = this.figures !== null;
      this.note = 'paused: no steps in the last second' + (this.stale ? ' (figures of the steps before)' : '');
      return;
    }
    this.figures = d;
    this.stale = false;
    this.note =
      `mean of ${d.steps} ${d.steps === 1 ? 'step' : 'steps'} in the last ${d.seconds.toFixed(1)} s` +
      (d.restarted ? ' (the server restarted: counted from its start)' : '');
  }

  // A failure forgets the figures: what they measured is no longer being measured.
  /** @param {string} note */
  #fail(note) {
    this.last = null;
    this.figures = null;
    this.stale = false;
    this.note = note;
  }

  /** @returns {ProfileView} */
  view() {
    return { note: this.note, delta: this.figures, stale: this.stale };
  }
}
