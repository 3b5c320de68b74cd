// @ts-check
// The minimap: the whole world small, in the dock (dock.js): the tile map's walls, the obstacles,
// the agents as dots in their groups' colours (the selected ones white) and the frame of what the
// view shows. A click or a drag on it moves the view there (at its zoom). Key N shows and hides it.
//
// Cheap at 10,000 agents: the dots are written into a pixel buffer a few times a second
// (MINIMAP_EVERY_MS), over a background with the walls drawn once per map; between those only the
// view's frame is drawn again, when the view moves. It shows the agents the page knows: binary
// snapshots limited to the view (session.js's viewport) carry only those near it, and the note
// under the minimap says so.

import { THEME } from './theme.js';
import { packColor } from './raster_masks.js';
import { DOCK_HEIGHT_PX } from './dock.js';

/** @import { Agent, Obstacle, Point, Wall } from '../js/src/protocol.js' */
/** @import { View, WorldSize } from './view.js' */
/** @import { TileMap } from './tile_map.js' */
/** @import { DockSide } from './dock.js' */

export const MINIMAP_EVERY_MS = 250; // the dots are drawn again this often
const BOX_PAD_PX = 6 + 1; // the box's padding and border (style.css's #minimap-box)
const MAX_HEIGHT_PX = 200; // in the column at the left
const MAX_WIDTH_PX = 200; // in the row at the bottom
const NOTE_PX = 34; // two lines of the note, kept free under the minimap in the row
export const LIMITED_NOTE = 'binary snapshots carry only the agents near the view';

/**
 * What the minimap draws, every frame (main.js).
 * @typedef {object} MinimapFrame
 * @property {number} now
 * @property {WorldSize | null} world
 * @property {Agent[]} agents the newest snapshot's
 * @property {Obstacle[]} obstacles
 * @property {Wall[]} [walls]
 * @property {TileMap | null} map
 * @property {Set<number>} selected
 * @property {boolean} limited the snapshots carry only the agents near the view
 * @property {boolean} [byTeam] the dots in their teams' colours, not their groups' (theme.js)
 * @property {DockSide} side
 * @property {number} dockWidth CSS pixels, at the left
 */

// The minimap's size in CSS pixels for a world, within maxW x maxH: the world's shape, whole pixels.
/** @param {WorldSize} world @param {number} maxW @param {number} maxH @returns {{w: number, h: number}} */
export function minimapSize(world, maxW, maxH) {
  const k = Math.min(maxW / world.width, maxH / world.height);
  const whole = (/** @type {number} */ v) => Math.max(1, Math.floor(v + 1e-6)); // 225.99999... is 226
  return { w: whole(world.width * k), h: whole(world.height * k) };
}

// The world point at (px, py) CSS pixels of a minimap w x h, kept inside the world.
/** @param {WorldSize} world @param {number} w @param {number} h @param {number} px @param {number} py @returns {Point} */
export function minimapToWorld(world, w, h, px, py) {
  const clamp = (/** @type {number} */ v, /** @type {number} */ hi) => Math.min(hi, Math.max(0, v));
  return { x: clamp((px / w) * world.width, world.width), y: clamp((py / h) * world.height, world.height) };
}

export class Minimap {
  /**
   * @param {object} p
   * @param {HTMLElement} p.box shown while the minimap is on
   * @param {HTMLCanvasElement} p.canvas
   * @param {HTMLElement} p.note
   * @param {View} p.view the view it shows and moves
   */
  constructor({ box, canvas, note, view }) {
    this.box = box;
    this.canvas = canvas;
    this.note = note;
    this.view = view;
    this.ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
    this.w = 0; // CSS pixels
    this.h = 0;
    this.dpr = 1;
    /** @type {WorldSize | null} */
    this.world = null;
    /** @type {ImageData | null} */
    this.image = null;
    /** @type {Uint32Array | null} */
    this.base = null; // the ground and the walls, at the backing store's pixels
    /** @type {TileMap | null} */
    this.baseMap = null;
    this.baseKey = '';
    this.composedAt = -Infinity;
    this.shownKey = '';
    this.composes = 0; // how often the dots were drawn (tests: not every frame)
    /** @type {Obstacle[]} */
    this.obstacles = [];
    /** @type {Wall[]} */
    this.walls = [];
    this.groupColors = THEME.groups.map((c) => /** @type {number} */ (packColor(c)));
    this.neutralColor = /** @type {number} */ (packColor(THEME.teamNeutral)); // team 0's
    this.selectedColor = /** @type {number} */ (packColor(THEME.selection));
    /** @type {number | null} */
    this.dragging = null; // the pointer moving the view
    canvas.addEventListener('pointerdown', (ev) => {
      if (ev.button !== 0 || !this.world) return;
      this.dragging = ev.pointerId;
      canvas.setPointerCapture(ev.pointerId);
      this.#moveView(ev);
      ev.preventDefault();
    });
    canvas.addEventListener('pointermove', (ev) => {
      if (ev.pointerId === this.dragging) this.#moveView(ev);
    });
    const end = (/** @type {PointerEvent} */ ev) => {
      if (ev.pointerId === this.dragging) this.dragging = null;
    };
    canvas.addEventListener('pointerup', end);
    canvas.addEventListener('pointercancel', end);
  }

  get on() {
    return !this.box.hidden;
  }

  toggle() {
    this.box.hidden = !this.box.hidden;
    this.shownKey = ''; // draw at once when shown again
    this.composedAt = -Infinity;
  }

  /** @param {MinimapFrame} f */
  update(f) {
    if (!this.on || !f.world) return;
    setText(this.note, f.limited ? LIMITED_NOTE : '');
    this.#size(f.world, f.side, f.dockWidth, f.limited);
    if (this.baseMap !== f.map || this.base === null) this.#drawBase(f.map);
    let fresh = false;
    if (f.now - this.composedAt >= MINIMAP_EVERY_MS) {
      this.#compose(f.agents, f.selected, Boolean(f.byTeam));
      this.obstacles = f.obstacles;
      this.walls = f.walls ?? [];
      this.composedAt = f.now;
      fresh = true;
    }
    const v = this.view;
    const key = [v.originX, v.originY, v.scale, v.cssWidth, v.cssHeight, v.insets.left, v.insets.bottom].join();
    if (fresh || key !== this.shownKey) {
      this.shownKey = key;
      this.#present();
    }
  }

  // Sizes the canvas for the world and the dock's side; a new size draws everything again.
  /** @param {WorldSize} world @param {DockSide} side @param {number} dockWidth @param {boolean} noted */
  #size(world, side, dockWidth, noted) {
    const maxW = side === 'left' ? dockWidth - 2 * BOX_PAD_PX : MAX_WIDTH_PX;
    const maxH = side === 'left' ? MAX_HEIGHT_PX : DOCK_HEIGHT_PX - 2 * BOX_PAD_PX - (noted ? NOTE_PX : 0);
    const { w, h } = minimapSize(world, maxW, maxH);
    const dpr = window.devicePixelRatio || 1;
    const same = this.world && this.world.width === world.width && this.world.height === world.height;
    if (same && w === this.w && h === this.h && dpr === this.dpr) return;
    this.world = { ...world };
    this.w = w;
    this.h = h;
    this.dpr = dpr;
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(h * dpr);
    this.image = this.ctx.createImageData(this.canvas.width, this.canvas.height);
    this.base = null;
    this.composedAt = -Infinity;
    this.shownKey = '';
  }

  // The ground and the tile map's walls (off the map counts as wall, as the view draws it),
  // averaged down to the minimap's pixels.
  /** @param {TileMap | null} map */
  #drawBase(map) {
    const world = /** @type {WorldSize} */ (this.world); // #size came first
    const W = this.canvas.width;
    const H = this.canvas.height;
    const layer = document.createElement('canvas');
    layer.width = W;
    layer.height = H;
    const ctx = /** @type {CanvasRenderingContext2D} */ (layer.getContext('2d'));
    ctx.fillStyle = THEME.world;
    ctx.fillRect(0, 0, W, H);
    if (map) {
      ctx.fillStyle = THEME.wall;
      ctx.fillRect(0, 0, W, H);
      const tiles = document.createElement('canvas');
      tiles.width = map.width;
      tiles.height = map.height;
      const tctx = /** @type {CanvasRenderingContext2D} */ (tiles.getContext('2d'));
      const img = tctx.createImageData(map.width, map.height);
      const px = new Uint32Array(img.data.buffer);
      const wall = /** @type {number} */ (packColor(THEME.wall));
      const floor = /** @type {number} */ (packColor(THEME.floor));
      for (let i = 0; i < map.blocked.length; i++) px[i] = map.blocked[i] ? wall : floor;
      tctx.putImageData(img, 0, 0);
      ctx.imageSmoothingEnabled = true;
      const sx = W / world.width;
      const sy = H / world.height;
      ctx.drawImage(tiles, 0, 0, map.width * map.tileSize * sx, map.height * map.tileSize * sy);
    }
    this.base = new Uint32Array(ctx.getImageData(0, 0, W, H).data.buffer);
    this.baseMap = map;
    this.composedAt = -Infinity;
  }

  // The dots: a square of a few pixels per agent, in its group's colour (its team's when byTeam:
  // theme.js's teamColor); the selected ones white, over the others.
  /** @param {Agent[]} agents @param {Set<number>} selected @param {boolean} byTeam */
  #compose(agents, selected, byTeam) {
    const image = /** @type {ImageData} */ (this.image);
    const world = /** @type {WorldSize} */ (this.world);
    const px = new Uint32Array(image.data.buffer);
    px.set(/** @type {Uint32Array} */ (this.base));
    const W = image.width;
    const H = image.height;
    const kx = W / world.width;
    const ky = H / world.height;
    const d = Math.max(2, Math.round(1.5 * this.dpr)); // the dot's side, backing pixels
    const groups = this.groupColors;
    const dot = (/** @type {Agent} */ a, /** @type {number} */ color) => {
      const x0 = Math.min(W - d, Math.max(0, Math.floor(a.x * kx - d / 2)));
      const y0 = Math.min(H - d, Math.max(0, Math.floor(a.y * ky - d / 2)));
      for (let y = y0; y < y0 + d; y++) px.fill(color, y * W + x0, y * W + x0 + d);
    };
    if (byTeam) {
      for (const a of agents) dot(a, a.team ? groups[(a.team - 1) % groups.length] : this.neutralColor);
    } else {
      for (const a of agents) dot(a, groups[a.group % groups.length]);
    }
    if (selected.size > 0) {
      for (const a of agents) if (selected.has(a.id)) dot(a, this.selectedColor);
    }
    this.composes++;
  }

  // The dots, the obstacles and the view's frame (what the free part of the canvas shows).
  #present() {
    const ctx = this.ctx;
    const world = /** @type {WorldSize} */ (this.world);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.putImageData(/** @type {ImageData} */ (this.image), 0, 0);
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    const kx = this.w / world.width;
    const ky = this.h / world.height;
    ctx.fillStyle = THEME.obstacle;
    ctx.beginPath();
    for (const o of this.obstacles) {
      const r = Math.max(1.5, o.r * kx);
      ctx.moveTo(o.x * kx + r, o.y * ky);
      ctx.arc(o.x * kx, o.y * ky, r, 0, 2 * Math.PI);
    }
    ctx.fill();
    ctx.strokeStyle = THEME.obstacle;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    for (const w of this.walls) {
      w.points.forEach((p, i) => (i === 0 ? ctx.moveTo(p.x * kx, p.y * ky) : ctx.lineTo(p.x * kx, p.y * ky)));
      if (w.closed) ctx.closePath();
    }
    ctx.stroke();
    const v = this.view;
    const f = v.freeRect();
    const a = v.screenToWorld(f.x, f.y);
    const b = v.screenToWorld(f.x + f.w, f.y + f.h);
    const x0 = Math.max(0, a.x * kx);
    const y0 = Math.max(0, a.y * ky);
    const x1 = Math.min(this.w, b.x * kx);
    const y1 = Math.min(this.h, b.y * ky);
    if (x1 > x0 && y1 > y0) {
      ctx.strokeStyle = THEME.selection;
      ctx.lineWidth = 1;
      ctx.strokeRect(x0 + 0.5, y0 + 0.5, Math.max(1, x1 - x0 - 1), Math.max(1, y1 - y0 - 1));
    }
  }

  /** @param {PointerEvent} ev */
  #moveView(ev) {
    const r = this.canvas.getBoundingClientRect();
    const w = minimapToWorld(/** @type {WorldSize} */ (this.world), this.w, this.h, ev.clientX - r.left, ev.clientY - r.top);
    this.view.centreOn(w.x, w.y);
  }
}

/** @param {HTMLElement} el @param {string} text */
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}
