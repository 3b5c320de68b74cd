// @ts-check
// The agents' bodies, heading lines and selection rings, rasterised by hand into an RGBA pixel
// buffer that the view then puts on the canvas in one blit (agent_layer.js).
//
// Why by hand: where the browser rasterises canvas paths in software (no GPU, as in headless
// Chromium or on a blocklisted driver), 5,000 anti-aliased circles cost about 23 ms a frame as
// arcs and about 11 ms as drawImage sprites (some 2 µs of call overhead each), while these loops
// cost about 4 ms and the blit a fraction of one (tests/e2e/perf_trace.mjs shows where a frame
// goes); 5,000 selection rings stroked as one path cost 160 ms. Discs and rings are copied from
// coverage masks (raster_masks.js, with the coverage estimate and the pixel format).
//
// Pure: no DOM. `pixels` are ImageData's RGBA bytes seen as one Uint32 each (0xAABBGGRR, colours
// unpremultiplied: raster_masks.js).

import { SUBPIXEL, MASK_MAX_RADIUS, SPAN, Masks, maskKey, maskHalf, roundCoverage, blend } from './raster_masks.js';

const LONG_SPAN = 24; // pixels in a row from which TypedArray.fill beats a loop (measured in V8)

// A transparent RGBA image the size of the canvas, cleared between frames only where the last
// frame drew (the bounding box of what was drawn is kept).
export class Raster {
  /** @param {Masks} [masks] */
  constructor(masks = new Masks()) {
    this.masks = masks;
    this.width = 0;
    this.height = 0;
    this.pixels = new Uint32Array(0);
    this.x0 = 0; // the box drawn since clear(), [x0, x1) x [y0, y1); empty when x1 <= x0
    this.y0 = 0;
    this.x1 = 0;
    this.y1 = 0;
  }

  // Resizes (cleared) or clears what the last frame drew.
  /** @param {number} width @param {number} height */
  reset(width, height) {
    if (width !== this.width || height !== this.height) {
      this.width = width;
      this.height = height;
      this.pixels = new Uint32Array(width * height);
    } else if (this.x1 > this.x0 && this.y1 > this.y0) {
      const w = this.width;
      if (this.x0 === 0 && this.x1 === w) this.pixels.fill(0, this.y0 * w, this.y1 * w);
      else for (let y = this.y0; y < this.y1; y++) this.pixels.fill(0, y * w + this.x0, y * w + this.x1);
    }
    this.x0 = this.y0 = this.x1 = this.y1 = 0;
  }

  get empty() {
    return this.x1 <= this.x0 || this.y1 <= this.y0;
  }

  // Grows the drawn box by [x0, x1) x [y0, y1), already clipped to the image.
  /** @param {number} x0 @param {number} y0 @param {number} x1 @param {number} y1 */
  #touch(x0, y0, x1, y1) {
    if (x1 <= x0 || y1 <= y0) return;
    if (this.empty) {
      this.x0 = x0;
      this.y0 = y0;
      this.x1 = x1;
      this.y1 = y1;
      return;
    }
    if (x0 < this.x0) this.x0 = x0;
    if (y0 < this.y0) this.y0 = y0;
    if (x1 > this.x1) this.x1 = x1;
    if (y1 > this.y1) this.y1 = y1;
  }

  // An opaque disc of colour rgba (its alpha is ignored) centred at (cx, cy), radius r > 0,
  // in pixels.
  /** @param {number} cx @param {number} cy @param {number} r @param {number} rgba */
  disc(cx, cy, r, rgba) {
    this.#round(cx, cy, r, 0, rgba & 0xffffff, 255);
  }

  // A circle of radius r stroked `width` wide (width > 0), in colour rgba with its alpha.
  /** @param {number} cx @param {number} cy @param {number} r @param {number} width @param {number} rgba */
  ring(cx, cy, r, width, rgba) {
    if (width > 0) this.#round(cx, cy, r, width, rgba & 0xffffff, rgba >>> 24);
  }

  /**
   * @param {number} cx
   * @param {number} cy
   * @param {number} r
   * @param {number} width
   * @param {number} rgb
   * @param {number} alpha
   */
  #round(cx, cy, r, width, rgb, alpha) {
    const reach = r + width / 2 + 1;
    const W = this.width;
    const H = this.height;
    if (!(cx + reach > 0 && cy + reach > 0 && cx - reach < W && cy - reach < H)) return; // off the image, or NaN
    if (alpha === 0) return;
    if (reach <= MASK_MAX_RADIUS + 1) this.#maskRound(cx, cy, maskKey(r, width), rgb, alpha);
    else this.#bigRound(cx, cy, r, width, rgb, alpha);
  }

  /** @param {number} cx @param {number} cy @param {number} key @param {number} rgb @param {number} alpha */
  #maskRound(cx, cy, key, rgb, alpha) {
    const opaque = alpha === 255;
    const col = (alpha << 24) | rgb; // the full pixel, as an int32
    const W = this.width;
    const H = this.height;
    const buf = this.pixels;
    // The mask's corner pixel and the sub-pixel offset of the centre from the mask's centre.
    const half = maskHalf(key);
    const qxAll = Math.round((cx - half) * SUBPIXEL);
    const qyAll = Math.round((cy - half) * SUBPIXEL);
    const bx = Math.floor(qxAll / SUBPIXEL);
    const by = Math.floor(qyAll / SUBPIXEL);
    const { size, cov, spans } = this.masks.get(key, qxAll - bx * SUBPIXEL, qyAll - by * SUBPIXEL);
    const y0 = Math.max(0, -by);
    const y1 = Math.min(size, H - by);
    for (let y = y0; y < y1; y++) {
      const i = SPAN * y;
      let xa = spans[i];
      let fa = spans[i + 1];
      let fb = spans[i + 2];
      let xb = spans[i + 3];
      const ha = spans[i + 4];
      const hb = spans[i + 5];
      if (xb < xa) continue;
      const row = (by + y) * W + bx;
      const mrow = y * size;
      if (bx + xa < 0 || bx + xb >= W || !opaque) {
        // Across the image's edge, or translucent: pixel by pixel.
        xa = Math.max(xa, -bx);
        xb = Math.min(xb, W - 1 - bx);
        for (let x = xa; x <= xb; x++) {
          if (x === ha) {
            x = hb + 1; // over the hole
            if (x > xb) break;
          }
          const c = cov[mrow + x];
          if (c === 0) continue;
          const a = opaque ? c : ((c * alpha + 127) / 255) | 0;
          if (a !== 0) blend(buf, row + x, rgb, a);
        }
        continue;
      }
      if (ha <= hb) {
        // Round a hole: the two sides.
        for (let x = xa; x < ha; x++) {
          const c = cov[mrow + x];
          if (c !== 0) blend(buf, row + x, rgb, c);
        }
        for (let x = hb + 1; x <= xb; x++) {
          const c = cov[mrow + x];
          if (c !== 0) blend(buf, row + x, rgb, c);
        }
        continue;
      }
      if (fb < fa) {
        fa = xb + 1; // no full span: all of [xa, xb] is edge
        fb = xb;
      }
      for (let x = xa; x < fa; x++) {
        const c = cov[mrow + x];
        if (c !== 0) blend(buf, row + x, rgb, c);
      }
      // The full span: a loop for short ones, fill (a memset) for long ones.
      if (fb - fa > LONG_SPAN) buf.fill(col, row + fa, row + fb + 1);
      else for (let x = fa; x <= fb; x++) buf[row + x] = col;
      for (let x = Math.max(fa, fb + 1); x <= xb; x++) {
        const c = cov[mrow + x];
        if (c !== 0) blend(buf, row + x, rgb, c);
      }
    }
    this.#touch(Math.max(0, bx), Math.max(0, by + y0), Math.min(W, bx + size), Math.min(H, by + y1));
  }

  // Row by row: pixels closer to the centre than `hole` are left (a ring's inside), those in the
  // full span are filled, the others get their coverage.
  /**
   * @param {number} cx
   * @param {number} cy
   * @param {number} r
   * @param {number} width
   * @param {number} rgb
   * @param {number} alpha
   */
  #bigRound(cx, cy, r, width, rgb, alpha) {
    const opaque = alpha === 255;
    const col = (alpha << 24) | rgb;
    const W = this.width;
    const H = this.height;
    const buf = this.pixels;
    const ring = width > 0;
    const outer = ring ? r + width / 2 + 0.5 : r + 0.5;
    const hole = ring ? r - width / 2 - 0.5 : 0;
    const full = ring ? -1 : r - 0.5; // a ring is mostly edge: no full span
    const y0 = Math.max(0, Math.floor(cy - outer));
    const y1 = Math.min(H, Math.ceil(cy + outer));
    let xmin = W;
    let xmax = 0;
    // [lo, hi]: the pixels whose centres are within distance `reach` of the centre on this row.
    /** @type {(reach: number, dy2: number) => [number, number]} */
    const span = (reach, dy2) => {
      const w = Math.sqrt(reach * reach - dy2);
      return [Math.ceil(cx - w - 0.5), Math.floor(cx + w - 0.5)];
    };
    for (let y = y0; y < y1; y++) {
      const dy = y + 0.5 - cy;
      const dy2 = dy * dy;
      if (dy2 >= outer * outer) continue;
      let [xa, xb] = span(outer, dy2);
      xa = Math.max(0, xa);
      xb = Math.min(W - 1, xb);
      if (xb < xa) continue;
      const [ha, hb] = hole > 0 && dy2 < hole * hole ? span(hole, dy2) : [xb + 1, xb];
      const [fa, fb] = full > 0 && dy2 < full * full ? span(full, dy2) : [xb + 1, xb];
      const row = y * W;
      for (let x = xa; x <= xb; x++) {
        if (x >= ha && x <= hb) {
          x = hb;
          continue;
        }
        if (opaque && x >= fa && x <= fb) {
          const end = Math.min(fb, xb);
          buf.fill(col, row + x, row + end + 1);
          x = end;
          continue;
        }
        const dx = x + 0.5 - cx;
        const c = roundCoverage(Math.sqrt(dx * dx + dy2), r, width);
        const a = Math.round(c * alpha);
        if (a > 0) blend(buf, row + x, rgb, a);
      }
      if (xa < xmin) xmin = xa;
      if (xb + 1 > xmax) xmax = xb + 1;
    }
    this.#touch(xmin, y0, xmax, y1);
  }

  // A straight line from (x0, y0) to (x1, y1) of `width` pixels with butt ends (the canvas's
  // default cap), in colour rgba with its alpha. A pixel is covered by the product of its
  // coverage across the line and along it.
  /**
   * @param {number} x0
   * @param {number} y0
   * @param {number} x1
   * @param {number} y1
   * @param {number} width
   * @param {number} rgba
   */
  segment(x0, y0, x1, y1, width, rgba) {
    const W = this.width;
    const H = this.height;
    const buf = this.pixels;
    const len = Math.hypot(x1 - x0, y1 - y0);
    if (!(len > 0 && len < Infinity) || !(width > 0)) return; // nothing, or NaN
    const ux = (x1 - x0) / len;
    const uy = (y1 - y0) / len;
    const nx = -uy;
    const ny = ux;
    const hw = width / 2 + 0.5; // pixels whose centre is this far across are not covered
    const alpha = rgba >>> 24;
    const rgb = rgba & 0xffffff;
    // The rectangle the line covers, grown by half a pixel all round.
    const pad = hw + 0.5;
    const ya = Math.max(0, Math.floor(Math.min(y0, y1) - pad));
    const yb = Math.min(H, Math.ceil(Math.max(y0, y1) + pad));
    let xmin = W;
    let xmax = 0;
    let ymin = H;
    let ymax = 0;
    // Along a row, the offset dx of a pixel centre from x0 gives s = dx nx + dy ny (across) and
    // t = dx ux + dy uy (along), both linear in dx: |s| < hw and -0.5 < t < len + 0.5 each bound
    // dx to an interval (or to all or nothing when the slope is 0).
    const inx = nx !== 0 ? 1 / nx : 0;
    const iux = ux !== 0 ? 1 / ux : 0;
    for (let y = ya; y < yb; y++) {
      const dy = y + 0.5 - y0;
      const s0 = dy * ny;
      const t0 = dy * uy;
      let lo;
      let hi;
      if (nx !== 0) {
        const a = (-hw - s0) * inx;
        const b = (hw - s0) * inx;
        lo = a < b ? a : b;
        hi = a < b ? b : a;
      } else if (s0 > -hw && s0 < hw) {
        lo = -Infinity;
        hi = Infinity;
      } else continue;
      if (ux !== 0) {
        const a = (-0.5 - t0) * iux;
        const b = (len + 0.5 - t0) * iux;
        if ((a < b ? a : b) > lo) lo = a < b ? a : b;
        if ((a < b ? b : a) < hi) hi = a < b ? b : a;
      } else if (!(t0 > -0.5 && t0 < len + 0.5)) continue;
      const xa = Math.max(0, Math.ceil(x0 + lo - 0.5));
      const xb = Math.min(W - 1, Math.floor(x0 + hi - 0.5));
      if (xb < xa) continue;
      const row = y * W;
      for (let x = xa; x <= xb; x++) {
        const dx = x + 0.5 - x0;
        const t = dx * ux + t0;
        const s = dx * nx + s0;
        let c = hw - (s < 0 ? -s : s); // across
        if (c > 1) c = 1;
        if (t < 0.5) c *= t + 0.5; // along, at the ends
        if (t > len - 0.5) c *= len + 0.5 - t;
        const a = (alpha * c + 0.5) | 0;
        if (a > 0) blend(buf, row + x, rgb, a);
      }
      if (xa < xmin) xmin = xa;
      if (xb + 1 > xmax) xmax = xb + 1;
      if (y < ymin) ymin = y;
      ymax = y + 1;
    }
    this.#touch(xmin, ymin, xmax, ymax);
  }
}
