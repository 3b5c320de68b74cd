// @ts-check
// The density layer's arithmetic (PROTOCOL.md, a snapshot's `density`): the wire's compact grid
// expanded to a value per cell, the heat map's values (agents per square unit, or mean speed),
// the legend's scale, and the colour of each cell. No DOM here: heat_map.js draws and shows it,
// tests/web/density.test.mjs checks it in Node.

/** @typedef {import('../js/src/protocol.js').DensityMessage} DensityMessage the wire's layer (protocol.js) */

/**
 * The layer expanded: per cell, row by row from the top left.
 * @typedef {object} DensityGrid
 * @property {number} cell world units
 * @property {number} cols
 * @property {number} rows
 * @property {Uint32Array} count agents whose centre lies in the cell
 * @property {Float32Array} speed their mean speed, units/s (0 in an empty cell)
 * @property {number} agents every cell's agents
 */

/** @typedef {'density' | 'speed'} HeatKind what the heat map shows */

export const SPEED_STEPS = 255; // a mean speed is 0 to this many steps of speed_max
export const MAX_CELLS = 64; // the server's grid has at most this many cells a side

// The wire's layer as a value per cell, or null when it does not add up (its counts do not cover
// cols x rows cells exactly, a speed is missing): such a layer is not drawn.
/** @param {DensityMessage} d @returns {DensityGrid | null} */
export function expandDensity(d) {
  const whole = (/** @type {unknown} */ n, /** @type {number} */ hi) => Number.isInteger(n) && /** @type {number} */ (n) >= 1 && /** @type {number} */ (n) <= hi;
  if (!d || !whole(d.cols, MAX_CELLS) || !whole(d.rows, MAX_CELLS) || !(d.cell > 0)) return null;
  if (!Array.isArray(d.count) || !Array.isArray(d.speed) || !(d.speed_max >= 0)) return null;
  const cells = d.cols * d.rows;
  const count = new Uint32Array(cells);
  const speed = new Float32Array(cells);
  let at = 0;
  let agents = 0;
  let k = 0; // the next speed
  for (const n of d.count) {
    if (!Number.isInteger(n) || n === 0) return null;
    if (n < 0) {
      at += -n; // empty cells are 0 already
      if (at > cells) return null;
      continue;
    }
    if (at >= cells || k >= d.speed.length) return null;
    count[at] = n;
    speed[at] = (d.speed[k++] * d.speed_max) / SPEED_STEPS;
    agents += n;
    at++;
  }
  if (at !== cells || k !== d.speed.length) return null;
  return { cell: d.cell, cols: d.cols, rows: d.rows, count, speed, agents };
}

// The heat map's value of each cell: agents per square unit (the count over the cell's area), or
// their mean speed in units/s; NaN where the cell is empty (drawn as nothing, not as a low value).
/** @param {DensityGrid} grid @param {HeatKind} kind @returns {Float32Array} */
export function heatValues(grid, kind) {
  const out = new Float32Array(grid.count.length);
  const area = grid.cell * grid.cell;
  for (let i = 0; i < out.length; i++) {
    const n = grid.count[i];
    out[i] = n === 0 ? NaN : kind === 'density' ? n / area : grid.speed[i];
  }
  return out;
}

// The top of the legend's scale: the smallest 1, 2 or 5 times a power of ten at least `max`, so
// that its labels are round numbers and the colours do not shift with every small change of the
// largest value; 1 when there is nothing (or nothing moves).
/** @param {number} max @returns {number} */
export function niceMax(max) {
  if (!(max > 0) || !Number.isFinite(max)) return 1;
  const pow = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) {
    // A hair of slack: 0.3 / 0.1 is 2.9999999999999996 times a tenth.
    if (m * pow >= max * (1 - 1e-12)) return m * pow;
  }
  return 10 * pow;
}

// The largest value of a heat map (0 when every cell is empty).
/** @param {Float32Array} values @returns {number} */
export function maxValue(values) {
  let max = 0;
  for (const v of values) if (v > max) max = v;
  return max;
}

/** @param {string} hex '#rrggbb' @returns {[number, number, number]} */
export function hexRgb(hex) {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

// The colour of t in [0, 1] (clamped) on a ramp of evenly spaced stops, with an opacity from
// alpha[0] at t = 0 to alpha[1] at t = 1: [r, g, b, a], each 0 to 255.
/**
 * @param {number} t
 * @param {readonly string[]} stops '#rrggbb', at least one
 * @param {readonly [number, number]} alpha
 * @returns {[number, number, number, number]}
 */
export function rampColor(t, stops, alpha) {
  const u = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0));
  const x = u * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const a = hexRgb(stops[Math.max(0, i)]);
  const b = hexRgb(stops[Math.max(0, i + 1)] ?? stops[0]);
  const f = stops.length > 1 ? x - i : 0;
  const mix = (/** @type {number} */ p, /** @type {number} */ q) => Math.round(p + (q - p) * f);
  return [mix(a[0], b[0]), mix(a[1], b[1]), mix(a[2], b[2]), Math.round(255 * (alpha[0] + (alpha[1] - alpha[0]) * u))];
}

// Writes the heat map's pixels, one a cell (cols x rows, RGBA), into `out`: an empty cell (NaN)
// transparent, the others their value's colour on the ramp from 0 to `max`.
/**
 * @param {Uint8ClampedArray} out cols * rows * 4 bytes
 * @param {Float32Array} values
 * @param {number} max
 * @param {readonly string[]} stops
 * @param {readonly [number, number]} alpha
 */
export function fillHeat(out, values, max, stops, alpha) {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const c = Number.isNaN(v) ? [0, 0, 0, 0] : rampColor(v / max, stops, alpha);
    out.set(c, 4 * i);
  }
}

// What the legend's numbers are, for each kind.
/** @type {Readonly<Record<HeatKind, {title: string, unit: string}>>} */
export const HEAT_TEXT = {
  density: { title: 'density', unit: 'agents per square unit' },
  speed: { title: 'mean speed', unit: 'units/s' },
};

// A legend label: at most three significant digits, no exponent for the values a world has.
/** @param {number} v @returns {string} */
export function scaleLabel(v) {
  if (v === 0) return '0';
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
  return String(Number(v.toPrecision(3)));
}
