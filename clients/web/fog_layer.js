// @ts-check
// Fog of war on the canvas: the part of the world a team's agents cannot see, under a dark
// translucent veil (THEME.fog), with a clear disc of each of its agents' sight. Drawn into one
// offscreen canvas coarser than the screen (a fog pixel is `px` CSS pixels each way, 2 at
// least): the discs on screen are marked in a byte mask, row span by row span (fog.js's
// markDiscs), every pixel of the world's rectangle left unmarked is the veil, and the canvas is
// drawn over the view's, scaled up smoothly, so the edges of sight come out soft. The cost is
// the discs' area at that resolution and the world's pixels on screen, however many discs
// overlap: 3,000 large overlapping discs as one canvas path filled with 'destination-out' took
// Skia about 30 ms a frame in software (headless Chromium). Where the discs' area would pass
// FOG_AREA_BUDGET fog pixels (a crowd of thousands, zoomed in), the fog pixel grows instead, so
// the cost stays about a millisecond or two. fog.js decides which discs there are. A player's
// team's explored ground (game.js's ExploredGrid), when known, shades the veil: cells it has
// explored under THEME.fog, the others under the darker THEME.fogUnexplored.

import { fogDiscs, markDiscs } from './fog.js';
import { packColor } from './raster_masks.js';
import { exploredAt } from './game.js';
import { THEME } from './theme.js';

/** @import { Agent } from '../js/src/protocol.js' */
/** @import { View } from './view.js' */
/** @import { ExploredGrid } from './game.js' */

// CSS pixels a pixel of the fog's canvas covers, each way: at least MIN_FOG_PX, more when the
// discs' area at that size passes FOG_AREA_BUDGET (fog pixels), at most MAX_FOG_PX.
export const MIN_FOG_PX = 2;
const MAX_FOG_PX = 8;
const FOG_AREA_BUDGET = 250_000;

export class FogLayer {
  constructor() {
    /** @type {OffscreenCanvas | HTMLCanvasElement | null} */
    this.canvas = null;
    /** @type {OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D | null} */
    this.ctx = null;
    /** @type {ImageData | null} */
    this.image = null;
    this.pixels = new Uint32Array(0); // the image's pixels, 0xAABBGGRR
    this.mask = new Uint8Array(0); // 1: in sight
    this.veil = packColor(THEME.fog) ?? 0x99000000;
    this.dark = packColor(THEME.fogUnexplored) ?? 0xe0000000; // ground never explored
    this.discs = 0; // discs cleared in the last frame drawn (the tests, window.herd.fog)
    this.px = MIN_FOG_PX; // CSS pixels a fog pixel covered in it
    this.draws = 0;
  }

  // Veils the world on the view's canvas (ctx, in CSS pixels) but inside the sight of team
  // `team`'s agents among `agents`; darker where `explored` (when known) says it is unexplored.
  /**
   * @param {CanvasRenderingContext2D} ctx @param {View} view @param {readonly Agent[]} agents @param {number} team
   * @param {ExploredGrid | null} [explored]
   */
  draw(ctx, view, agents, team, explored = null) {
    if (!view.world) return;
    // The world's rectangle on screen, within the canvas: nothing else is veiled.
    const tl = view.worldToScreen(0, 0);
    const br = view.worldToScreen(view.world.width, view.world.height);
    const sx0 = Math.max(0, tl.x);
    const sy0 = Math.max(0, tl.y);
    const sx1 = Math.min(view.cssWidth, br.x);
    const sy1 = Math.min(view.cssHeight, br.y);
    if (!(sx1 > sx0 && sy1 > sy0)) return;
    // The discs that meet the camera's part of the world, and the fog pixel their area allows.
    const a = view.screenToWorld(sx0, sy0);
    const b = view.screenToWorld(sx1, sy1);
    const world = fogDiscs(agents, team, { x0: a.x, y0: a.y, x1: b.x, y1: b.y });
    let area = 0; // CSS pixels, each disc's at most the screen's
    const screen = view.cssWidth * view.cssHeight;
    for (const d of world) area += Math.min(screen, Math.PI * (d.r * view.scale) ** 2);
    const px = Math.min(MAX_FOG_PX, Math.max(MIN_FOG_PX, Math.ceil(Math.sqrt(area / FOG_AREA_BUDGET))));
    const w = Math.max(1, Math.ceil(view.cssWidth / px));
    const h = Math.max(1, Math.ceil(view.cssHeight / px));
    const x0 = Math.round(sx0 / px);
    const y0 = Math.round(sy0 / px);
    const x1 = Math.min(w, Math.round(sx1 / px));
    const y1 = Math.min(h, Math.round(sy1 / px));
    this.#size(w, h);
    const k = view.scale / px;
    const ox = view.originX / px;
    const oy = view.originY / px;
    const discs = world.map((d) => ({ x: ox + d.x * k, y: oy + d.y * k, r: d.r * k }));
    this.discs = discs.length;
    this.px = px;
    this.draws++;
    const mask = this.mask;
    const pixels = this.pixels;
    mask.fill(0);
    markDiscs(mask, w, h, discs);
    pixels.fill(0);
    const veil = this.veil;
    if (explored) {
      // Each fog pixel's centre in the world, its cell looked up in the explored bits.
      const dark = this.dark;
      for (let y = y0; y < y1; y++) {
        const wy = ((y + 0.5) * px - view.originY) / view.scale;
        for (let x = x0; x < x1; x++) {
          const i = y * w + x;
          if (mask[i] !== 0) continue;
          pixels[i] = exploredAt(explored, ((x + 0.5) * px - view.originX) / view.scale, wy) ? veil : dark;
        }
      }
    } else {
      for (let y = y0; y < y1; y++) {
        for (let i = y * w + x0, end = y * w + x1; i < end; i++) if (mask[i] === 0) pixels[i] = veil;
      }
    }
    const layer = /** @type {OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D} */ (this.ctx);
    layer.putImageData(/** @type {ImageData} */ (this.image), 0, 0);
    ctx.save();
    ctx.imageSmoothingEnabled = true;
    ctx.drawImage(/** @type {OffscreenCanvas | HTMLCanvasElement} */ (this.canvas), 0, 0, w, h, 0, 0, w * px, h * px);
    ctx.restore();
  }

  /** @param {number} w @param {number} h */
  #size(w, h) {
    if (this.canvas && this.canvas.width === w && this.canvas.height === h) return;
    this.canvas = typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(w, h) : document.createElement('canvas');
    this.canvas.width = w;
    this.canvas.height = h;
    this.ctx = /** @type {OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D} */ (this.canvas.getContext('2d'));
    this.image = new ImageData(w, h);
    this.pixels = new Uint32Array(this.image.data.buffer);
    this.mask = new Uint8Array(w * h);
  }
}
