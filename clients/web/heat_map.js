// @ts-check
// The heat map: the server's density layer drawn under the agents, and its legend in the dock.
// Key D shows and hides it, Shift + D switches between agents per square unit and mean speed
// (keys.js); the choice is kept in the browser (localStorage) and asked of the server again in
// every new session. The server computes the layer once for every session that asks and sends it
// about twice a second (PROTOCOL.md, `density`), so the map changes in steps, not every frame.
//
// HeatLayer draws: one pixel a cell into a small canvas, made again only when a layer arrives or
// the kind changes, then scaled over the world without smoothing (crisp cells) and clipped to it.
// HeatMap holds the choice, sends the request and fills the legend.

import { THEME } from './theme.js';
import { expandDensity, fillHeat, heatValues, maxValue, niceMax, scaleLabel, HEAT_TEXT } from './density.js';

/** @import { DensityGrid, DensityMessage, HeatKind } from './density.js' */
/** @import { View, WorldSize } from './view.js' */

/** @typedef {'off' | HeatKind} HeatMode */

const STORAGE_KEY = 'herd.heat';

// The heat map's pixels and how it is drawn over the world.
export class HeatLayer {
  constructor() {
    /** @type {DensityGrid | null} */
    this.grid = null;
    /** @type {HeatKind} */
    this.kind = 'density';
    this.max = 1; // the scale's top, in the kind's unit (niceMax of the largest value)
    this.largest = 0; // the largest value, before rounding the scale up
    /** @type {HTMLCanvasElement | null} */
    this.canvas = null; // a pixel a cell
    this.dirty = false;
    this.draws = 0; // frames it was drawn in (window.herd.heat)
  }

  /** @param {DensityGrid | null} grid @param {HeatKind} kind */
  set(grid, kind) {
    this.grid = grid;
    this.kind = kind;
    if (grid) {
      this.largest = maxValue(heatValues(grid, kind));
      this.max = niceMax(this.largest);
    }
    this.dirty = true;
  }

  // Under the agents and marks, over the ground and the tile map (view.js).
  /** @param {CanvasRenderingContext2D} ctx @param {View} view */
  draw(ctx, view) {
    const grid = this.grid;
    if (!grid || !view.world) return;
    if (this.dirty || !this.canvas) this.#render(grid);
    const { width, height } = /** @type {WorldSize} */ (view.world);
    const tl = view.worldToScreen(0, 0);
    ctx.save();
    ctx.beginPath();
    ctx.rect(tl.x, tl.y, width * view.scale, height * view.scale); // the last cells may overhang it
    ctx.clip();
    ctx.imageSmoothingEnabled = false;
    const side = grid.cell * view.scale;
    ctx.drawImage(/** @type {HTMLCanvasElement} */ (this.canvas), tl.x, tl.y, grid.cols * side, grid.rows * side);
    ctx.restore();
    this.draws++;
  }

  /** @param {DensityGrid} grid */
  #render(grid) {
    if (!this.canvas) this.canvas = document.createElement('canvas');
    const c = this.canvas;
    if (c.width !== grid.cols || c.height !== grid.rows) {
      c.width = grid.cols;
      c.height = grid.rows;
    }
    const cx = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
    const image = cx.createImageData(grid.cols, grid.rows);
    fillHeat(image.data, heatValues(grid, this.kind), this.max, THEME.heatRamp, THEME.heatAlpha);
    cx.putImageData(image, 0, 0);
    this.dirty = false;
  }
}

/**
 * The legend's elements (index.html's #heat-legend).
 * @typedef {object} HeatLegendElements
 * @property {HTMLElement} box shown while the heat map is on
 * @property {HTMLElement} title
 * @property {HTMLElement} ramp the colour bar
 * @property {HTMLElement} lo
 * @property {HTMLElement} mid
 * @property {HTMLElement} hi
 * @property {HTMLElement} unit
 * @property {HTMLElement} note
 */

export class HeatMap {
  /**
   * @param {object} p
   * @param {HeatLayer} p.layer the view's
   * @param {(msg: object) => boolean} p.send a message to the server (false: not connected)
   * @param {HeatLegendElements} p.legend
   * @param {Storage | null} [p.storage] where the choice is kept (null: nowhere)
   */
  constructor({ layer, send, legend, storage = null }) {
    this.layer = layer;
    this.send = send;
    this.legend = legend;
    this.storage = storage;
    /** @type {HeatMode} */
    this.mode = readMode(storage);
    /** @type {HeatKind} */
    this.kind = this.mode === 'off' ? 'density' : this.mode; // what D shows
    /** @type {DensityMessage | null} */
    this.message = null; // the newest layer as it came
    this.tick = /** @type {number | null} */ (null); // its snapshot's
    this.received = 0; // layers received since the page loaded
    legend.ramp.style.background = rampGradient();
    this.key = '';
  }

  get on() {
    return this.mode !== 'off';
  }

  // D: on and off. Shift + D: the other kind, on.
  /** @param {boolean} other */
  toggle(other) {
    if (other) this.kind = this.kind === 'density' ? 'speed' : 'density';
    const was = this.on;
    this.mode = other || !was ? this.kind : 'off';
    this.#keep();
    if (this.on !== was) this.send({ type: 'density', on: this.on });
    this.#apply();
  }

  // A welcome: the server's session is new or its world is (a new session takes no layer until
  // asked; a new world's old layer is no picture of it).
  /** @param {boolean} newWorld */
  welcomed(newWorld) {
    if (newWorld) {
      this.message = null;
      this.tick = null;
      this.#apply();
    }
    if (this.on) this.send({ type: 'density', on: true });
  }

  // A snapshot's layer (the snapshots between layers carry none: the last one stands).
  /** @param {DensityMessage} message @param {number} tick */
  receive(message, tick) {
    this.message = message;
    this.tick = tick;
    this.received++;
    this.#apply();
  }

  #apply() {
    const grid = this.on && this.message ? expandDensity(this.message) : null;
    this.layer.set(grid, this.kind);
    this.#updateLegend(grid);
  }

  /** @param {DensityGrid | null} grid */
  #updateLegend(grid) {
    const l = this.legend;
    l.box.hidden = !this.on;
    if (!this.on) return;
    const text = HEAT_TEXT[this.kind];
    const max = grid ? this.layer.max : null;
    const key = `${this.kind}:${max}:${grid?.cell}:${Boolean(this.message)}`;
    if (key === this.key) return;
    this.key = key;
    l.title.textContent = `heat: ${text.title}`;
    l.lo.textContent = '0';
    l.mid.textContent = max === null ? '' : scaleLabel(max / 2);
    l.hi.textContent = max === null ? '' : scaleLabel(max);
    l.unit.textContent = grid ? `${text.unit}, cells of ${scaleLabel(grid.cell)} units` : text.unit;
    l.note.textContent = grid ? '' : this.message ? 'the layer did not add up' : "waiting for the server's layer";
  }

  #keep() {
    try {
      this.storage?.setItem(STORAGE_KEY, this.mode);
    } catch {
      // Storage refused (a private window, a quota): the choice lasts for this page only.
    }
  }
}

/** @param {Storage | null} storage @returns {HeatMode} */
function readMode(storage) {
  try {
    const v = storage?.getItem(STORAGE_KEY);
    return v === 'density' || v === 'speed' ? v : 'off';
  } catch {
    return 'off'; // storage refused: as a page that never chose
  }
}

// The legend's colour bar: the ramp at full strength, left to right.
/** @returns {string} a CSS background */
export function rampGradient() {
  const stops = THEME.heatRamp;
  return `linear-gradient(to right, ${stops.map((c, i) => `${c} ${((100 * i) / (stops.length - 1)).toFixed(1)}%`).join(', ')})`;
}
