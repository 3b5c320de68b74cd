// @ts-check
// The agents on the canvas: bodies coloured by group (by team on a server with teams: theme.js's
// agentColorBy), a thin red ring round those collided (their
// body keeps its group colour), heading lines and selection rings. Two ways to draw them, chosen by agentDrawing():
//
// - 'raster' where the browser rasterises canvases in software (no GPU, as in headless Chromium or
//   with a blocklisted driver): rasterised into a pixel buffer (agent_raster.js) and put on the
//   canvas with one blit of the rectangle they cover. 5,000 agents: about 4 ms, where Skia takes
//   about 23 ms for the same discs as arcs.
// - 'vector' where a GPU rasterises canvases: one canvas path per colour, one for the heading
//   lines, one for the rings. There the paths cost the main thread about 1.5 ms for 5,000 agents,
//   while the buffer grows with the screen's pixels (four times as many at a device pixel ratio of
//   2) and would have to be uploaded every frame.
//
// Both draw the same shapes in the same order: bodies, then the collision rings (over every body,
// so a ring shows on top of its crowd), then heading lines, then selection rings. Everything else
// the view draws (targets, the inspector, flashes...) is a few shapes, always canvas paths.

import { Raster } from './agent_raster.js';
import { packColor } from './raster_masks.js';
import { THEME, agentColorBy } from './theme.js';

/** @import { Agent } from '../js/src/protocol.js' */
/** @import { View } from './view.js' */

/** @typedef {(a: Agent) => string} ColorOf an agent's body colour (CSS) */

const BY_GROUP = agentColorBy(false);
const HEADING_WIDTH_PX = 1.5; // CSS pixels
const SELECTION_GAP_PX = 3; // the selection ring's radius past the body's, CSS pixels
const SELECTION_WIDTH_PX = 1.5;
// The ring round a collided agent, CSS pixels: it hugs the body from its rim outwards, inside the
// selection ring, so the whole body keeps its group colour. `collided` stays set until the agent
// reaches its goal or comes to rest, so the ring is thin: it marks, it does not shout.
export const COLLIDED_RING_WIDTH_PX = 2;

// The collision ring's radius on screen (the middle of its stroke) for a body of radius r pixels.
/** @param {number} r @returns {number} */
export function collidedRingRadius(r) {
  return r + COLLIDED_RING_WIDTH_PX / 2;
}

// 'raster' or 'vector' (see above): `requested` when it is one of them (the page's #agents=...),
// else 'raster' when canvases are drawn in software, as far as WebGL's renderer tells.
/** @param {string | null} requested @returns {'raster' | 'vector'} */
export function agentDrawing(requested) {
  if (requested === 'raster' || requested === 'vector') return requested;
  return softwareRendering() ? 'raster' : 'vector';
}

function softwareRendering() {
  try {
    const gl = document.createElement('canvas').getContext('webgl');
    if (!gl) return true; // no GPU at all (or WebGL blocked with it)
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    gl.getExtension('WEBGL_lose_context')?.loseContext();
    return /swiftshader|llvmpipe|softpipe|software|basic render/i.test(renderer);
  } catch {
    return true;
  }
}

// Agent a's heading line, from the rim outwards, in CSS pixels from its centre on screen: the unit
// direction (dx, dy), the body's radius r and the line's length, or null when it stands still. The
// length grows with speed up to a cap, so the line reads as "going this way, this fast".
/** @param {View} view @param {Agent} a @returns {{dx: number, dy: number, r: number, len: number} | null} */
function headingLine(view, a) {
  const speed = Math.hypot(a.vx, a.vy);
  if (!(speed >= 1e-3)) return null;
  const r = view.radiusPx(a);
  const len = Math.min(speed * view.scale * 0.15, r * 1.5 + 4);
  if (len < 1) return null;
  return { dx: a.vx / speed, dy: a.vy / speed, r, len };
}

export class AgentLayer {
  /** @param {'raster' | 'vector'} [mode] */
  constructor(mode = 'raster') {
    this.mode = mode; // 'raster' or 'vector'
    this.raster = new Raster();
    /** @type {OffscreenCanvas | HTMLCanvasElement | null} */
    this.canvas = null; // the buffer is put here, then drawn onto the view's canvas
    /** @type {OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D | null} */
    this.ctx = null;
    /** @type {ImageData | null} */
    this.image = null; // ImageData over the raster's own pixels (no copy)
    /** @type {Map<string, number>} */
    this.colors = new Map(); // CSS colour -> packed RGBA
  }

  // Draws `agents` onto the view's canvas (ctx, in CSS pixels) at the view's camera, with ctx's
  // globalAlpha, each body in colorOf's colour (default: its group's), and a ring round each one
  // whose id is in the Set `selected`.
  /**
   * @param {CanvasRenderingContext2D} ctx
   * @param {View} view
   * @param {Agent[]} agents
   * @param {Set<number>} selected
   * @param {ColorOf} [colorOf]
   */
  draw(ctx, view, agents, selected, colorOf = BY_GROUP) {
    if (this.mode === 'vector') this.#drawVector(ctx, view, agents, selected, colorOf);
    else this.#drawRaster(ctx, view, agents, selected, colorOf);
  }

  /**
   * @param {CanvasRenderingContext2D} ctx
   * @param {View} view
   * @param {Agent[]} agents
   * @param {Set<number>} selected
   * @param {ColorOf} colorOf
   */
  #drawRaster(ctx, view, agents, selected, colorOf) {
    const raster = this.raster;
    raster.reset(view.canvas.width, view.canvas.height);
    const k = view.dpr; // device pixels per CSS pixel
    const s = view.scale * k;
    const ox = view.originX * k;
    const oy = view.originY * k;
    for (const a of agents) raster.disc(ox + a.x * s, oy + a.y * s, view.radiusPx(a) * k, this.#pack(colorOf(a)));
    const red = this.#pack(THEME.collided);
    for (const a of agents) {
      if (!a.collided) continue;
      raster.ring(ox + a.x * s, oy + a.y * s, collidedRingRadius(view.radiusPx(a)) * k, COLLIDED_RING_WIDTH_PX * k, red);
    }
    const heading = this.#pack(THEME.heading);
    for (const a of agents) {
      const h = headingLine(view, a);
      if (!h) continue;
      const x = ox + a.x * s;
      const y = oy + a.y * s;
      const r0 = h.r * k;
      const r1 = (h.r + h.len) * k;
      raster.segment(x + h.dx * r0, y + h.dy * r0, x + h.dx * r1, y + h.dy * r1, HEADING_WIDTH_PX * k, heading);
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

  // One path per colour, one for the collision rings, one for the heading lines, one for the
  // selection rings: a handful of fill and stroke calls a frame.
  /**
   * @param {CanvasRenderingContext2D} ctx
   * @param {View} view
   * @param {Agent[]} agents
   * @param {Set<number>} selected
   * @param {ColorOf} colorOf
   */
  #drawVector(ctx, view, agents, selected, colorOf) {
    const byColor = new Map();
    for (const a of agents) {
      const color = colorOf(a);
      let list = byColor.get(color);
      if (!list) byColor.set(color, (list = []));
      list.push(a);
    }
    for (const [color, list] of byColor) {
      ctx.beginPath();
      for (const a of list) {
        const p = view.worldToScreen(a.x, a.y);
        const r = view.radiusPx(a);
        ctx.moveTo(p.x + r, p.y);
        ctx.arc(p.x, p.y, r, 0, 2 * Math.PI);
      }
      ctx.fillStyle = color;
      ctx.fill();
    }
    if (agents.some((a) => a.collided)) {
      ctx.beginPath();
      for (const a of agents) {
        if (!a.collided) continue;
        const p = view.worldToScreen(a.x, a.y);
        const r = collidedRingRadius(view.radiusPx(a));
        ctx.moveTo(p.x + r, p.y);
        ctx.arc(p.x, p.y, r, 0, 2 * Math.PI);
      }
      ctx.strokeStyle = THEME.collided;
      ctx.lineWidth = COLLIDED_RING_WIDTH_PX;
      ctx.stroke();
    }
    ctx.beginPath();
    for (const a of agents) {
      const h = headingLine(view, a);
      if (!h) continue;
      const p = view.worldToScreen(a.x, a.y);
      ctx.moveTo(p.x + h.dx * h.r, p.y + h.dy * h.r);
      ctx.lineTo(p.x + h.dx * (h.r + h.len), p.y + h.dy * (h.r + h.len));
    }
    ctx.strokeStyle = THEME.heading;
    ctx.lineWidth = HEADING_WIDTH_PX;
    ctx.stroke();
    if (selected.size === 0) return;
    ctx.beginPath();
    for (const a of agents) {
      if (!selected.has(a.id)) continue;
      const p = view.worldToScreen(a.x, a.y);
      const r = view.radiusPx(a) + SELECTION_GAP_PX;
      ctx.moveTo(p.x + r, p.y);
      ctx.arc(p.x, p.y, r, 0, 2 * Math.PI);
    }
    ctx.strokeStyle = THEME.selection;
    ctx.lineWidth = SELECTION_WIDTH_PX;
    ctx.stroke();
  }

  /** @param {string} css @returns {number} */
  #pack(css) {
    let c = this.colors.get(css);
    if (c === undefined) {
      c = packColor(css) ?? 0xffff00ff; // magenta: a colour the theme got wrong
      this.colors.set(css, c);
    }
    return c;
  }

  // Puts the rectangle drawn this frame into the layer canvas and draws it 1:1 onto ctx.
  /** @param {CanvasRenderingContext2D} ctx */
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
    // this.ctx was made with the canvas above.
    const layer = /** @type {OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D} */ (this.ctx);
    layer.putImageData(this.image, 0, 0, x, y, w, h);
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0); // the buffer is in device pixels
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.canvas, x, y, w, h, x, y, w, h);
    ctx.restore();
  }
}
