// The agents on the canvas: bodies coloured by group (red while collided), heading lines and
// selection rings, rasterised into a pixel buffer (agent_raster.js) and put on the canvas with one
// blit of the rectangle they cover. Everything else the view draws (targets, the inspector,
// flashes...) stays canvas paths: a few shapes, where the agents and a box selection of them are
// thousands.

import { Raster, packColor } from './agent_raster.js';
import { THEME, groupColor } from './theme.js';

const HEADING_WIDTH_PX = 1.5; // CSS pixels
const SELECTION_GAP_PX = 3; // the selection ring's radius past the body's, CSS pixels
const SELECTION_WIDTH_PX = 1.5;

export class AgentLayer {
  constructor() {
    this.raster = new Raster();
    this.canvas = null; // the buffer is put here, then drawn onto the view's canvas
    this.ctx = null;
    this.image = null; // ImageData over the raster's own pixels (no copy)
    this.colors = new Map(); // CSS colour -> packed RGBA
  }

  // Draws `agents` onto the view's canvas (ctx) at the view's camera, with ctx's globalAlpha, and a
  // ring round each one whose id is in the Set `selected`.
  draw(ctx, view, agents, selected) {
    const raster = this.raster;
    raster.reset(view.canvas.width, view.canvas.height);
    const k = view.dpr; // device pixels per CSS pixel
    const s = view.scale * k;
    const ox = view.originX * k;
    const oy = view.originY * k;
    // Collided agents last, so the red of a collision shows on top of the crowd it is in.
    for (let pass = 0; pass < 2; pass++) {
      const collided = pass === 1;
      for (const a of agents) {
        if (Boolean(a.collided) !== collided) continue;
        const color = this.#pack(collided ? THEME.collided : groupColor(a.group));
        raster.disc(ox + a.x * s, oy + a.y * s, view.radiusPx(a) * k, color);
      }
    }
    // The heading line starts at the rim, so the body keeps its colour throughout and the line
    // reads as "going this way"; its length grows with speed up to a cap.
    const heading = this.#pack(THEME.heading);
    for (const a of agents) {
      const speed = Math.hypot(a.vx, a.vy);
      if (!(speed >= 1e-3)) continue;
      const r = view.radiusPx(a);
      const len = Math.min(speed * view.scale * 0.15, r * 1.5 + 4);
      if (len < 1) continue;
      const dx = a.vx / speed;
      const dy = a.vy / speed;
      const x = ox + a.x * s;
      const y = oy + a.y * s;
      raster.segment(x + dx * r * k, y + dy * r * k, x + dx * (r + len) * k, y + dy * (r + len) * k, HEADING_WIDTH_PX * k, heading);
    }
    if (selected.size > 0) {
      const ring = this.#pack(THEME.selection);
      for (const a of agents) {
        if (!selected.has(a.id)) continue;
        raster.ring(ox + a.x * s, oy + a.y * s, (view.radiusPx(a) + SELECTION_GAP_PX) * k, SELECTION_WIDTH_PX * k, ring);
      }
    }
    this.#blit(ctx);
  }

  #pack(css) {
    let c = this.colors.get(css);
    if (c === undefined) {
      c = packColor(css) ?? 0xffff00ff; // magenta: a colour the theme got wrong
      this.colors.set(css, c);
    }
    return c;
  }

  // Puts the rectangle drawn this frame into the layer canvas and draws it 1:1 onto ctx.
  #blit(ctx) {
    const raster = this.raster;
    if (raster.empty) return;
    const { width, height } = raster;
    if (!this.image || this.image.data.buffer !== raster.pixels.buffer) {
      this.image = new ImageData(new Uint8ClampedArray(raster.pixels.buffer), width, height);
    }
    if (!this.canvas || this.canvas.width !== width || this.canvas.height !== height) {
      this.canvas = typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(width, height) : document.createElement('canvas');
      this.canvas.width = width;
      this.canvas.height = height;
      this.ctx = this.canvas.getContext('2d');
    }
    const x = raster.x0;
    const y = raster.y0;
    const w = raster.x1 - raster.x0;
    const h = raster.y1 - raster.y0;
    this.ctx.putImageData(this.image, 0, 0, x, y, w, h);
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0); // the buffer is in device pixels
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.canvas, x, y, w, h, x, y, w, h);
    ctx.restore();
  }
}
