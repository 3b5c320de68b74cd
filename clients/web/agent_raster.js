// @ts-check
// The agents' bodies, heading lines and selection rings, rasterised by hand into an RGBA pixel
// buffer that the view then puts on the canvas in one blit (agent_layer.js).
//
// Why by hand: where the browser rasterises canvas paths in software (no GPU, as in headless
// Chromium or on a blocklisted driver), 5,000 anti-aliased circles cost about 23 ms a frame as
// arcs and about 11 ms as drawImage sprites (some 2 µs of call overhead each), while these loops
// cost about 4 ms and the blit a fraction of one (tests/e2e/perf_trace.mjs shows where a frame
// goes); 5,000 selection rings stroked as one path cost 160 ms. Coverage is the estimate every
// anti-aliasing rasteriser starts from for a pixel whose centre is at distance d inside an edge:
// clamp(d + 0.5, 0, 1). Discs and rings are copied from masks cached per radius, ring width and
// quarter-pixel offset.
//
// Pure: no DOM. Pixels are ImageData's RGBA bytes seen as one Uint32 each, which is
// 0xAABBGGRR on a little-endian machine (every platform browsers run on); colours are
// unpremultiplied, as ImageData's are.

// Centres are placed to a quarter of a pixel (an error of at most an eighth of a pixel), each of
// the 4 x 4 offsets with its own coverage mask, so motion stays smooth below a pixel.
export const SUBPIXEL = 4;
// Radii and ring widths are told apart to a sixteenth of a pixel.
const STEPS = 16;
const WIDTH_KEYS = 1024; // ring widths below 64 px
// Up to this reach (radius plus half the ring's width, device pixels) a shape is copied from a
// mask; larger ones are computed row by row (few fit on a screen, and their masks would be big).
export const MASK_MAX_RADIUS = 32;
const MASKS_KEPT = 32; // shapes whose masks are kept (zooming makes a new radius each frame)
const LONG_SPAN = 24; // pixels in a row from which TypedArray.fill beats a loop (measured in V8)
const SPAN = 6; // numbers a mask keeps per row (buildMask)

/**
 * A round shape's coverage at one sub-pixel offset (buildMask).
 * @typedef {{size: number, half: number, cov: Uint8Array, spans: Int16Array}} Mask
 */

// The cache key of a round shape in device pixels: a disc of radius r (width 0), or a circle of
// radius r stroked `width` wide (a ring); both to a sixteenth of a pixel.
/** @param {number} radiusPx @param {number} [widthPx] @returns {number} */
export function maskKey(radiusPx, widthPx = 0) {
  return Math.round(radiusPx * STEPS) * WIDTH_KEYS + Math.min(WIDTH_KEYS - 1, Math.round(widthPx * STEPS));
}

// Pixels from a mask's corner to its centre: the mask of maskKey k is 2 maskHalf(k) pixels square.
/** @param {number} key @returns {number} */
export function maskHalf(key) {
  const r = Math.floor(key / WIDTH_KEYS) / STEPS;
  const width = (key % WIDTH_KEYS) / STEPS;
  return Math.ceil(r + width / 2 + 0.5) + 1;
}

// Coverage (0..1) of a pixel whose centre is at distance d from the centre of a disc of radius r
// (width 0) or of a ring (width > 0): the distance of the pixel centre inside the shape's edge
// plus half a pixel.
/** @param {number} d @param {number} r @param {number} width @returns {number} */
export function roundCoverage(d, r, width) {
  const c = width > 0 ? width / 2 + 0.5 - Math.abs(d - r) : r + 0.5 - d;
  return c <= 0 ? 0 : c >= 1 ? 1 : c;
}

// '#rgb', '#rrggbb', 'rgb(r, g, b)' or 'rgba(r, g, b, a)' as one RGBA pixel (0xAABBGGRR);
// null for anything else.
/** @param {string} css @returns {number | null} */
export function packColor(css) {
  let r;
  let g;
  let b;
  let a = 255;
  const s = css.trim();
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(s);
  const fn = /^rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*([\d.]+)\s*)?\)$/i.exec(s);
  if (hex) {
    const h = hex[1].length === 3 ? [...hex[1]].map((c) => c + c).join('') : hex[1];
    const n = parseInt(h, 16);
    [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  } else if (fn) {
    [r, g, b] = [1, 2, 3].map((i) => Math.min(255, Math.round(Number(fn[i]))));
    if (fn[4] !== undefined) a = Math.round(Math.min(1, Number(fn[4])) * 255);
  } else {
    return null;
  }
  return ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

// The mask of shape `key` (maskKey) with its centre at (half + ox, half + oy) in a square of
// `size` pixels: cov[y * size + x] in 0..255, and per row (SPAN numbers from row * SPAN) the span
// [xa, xb] it touches, the span [fa, fb] it covers fully throughout, and the longest span [ha, hb]
// inside [xa, xb] that it does not touch at all (a ring's hole); fa > fb, ha > hb when none.
/** @param {number} key @param {number} ox @param {number} oy @returns {Mask} */
export function buildMask(key, ox, oy) {
  const r = Math.floor(key / WIDTH_KEYS) / STEPS;
  const width = (key % WIDTH_KEYS) / STEPS;
  const half = maskHalf(key);
  const size = 2 * half;
  const cx = half + ox;
  const cy = half + oy;
  const cov = new Uint8Array(size * size);
  const spans = new Int16Array(size * SPAN);
  for (let y = 0; y < size; y++) {
    let xa = size;
    let xb = -1;
    const dy = y + 0.5 - cy;
    for (let x = 0; x < size; x++) {
      const dx = x + 0.5 - cx;
      const c = Math.round(roundCoverage(Math.sqrt(dx * dx + dy * dy), r, width) * 255);
      cov[y * size + x] = c;
      if (c > 0) {
        xa = Math.min(xa, x);
        xb = x;
      }
    }
    // The full span: from the first full pixel to the last, if every pixel between is full.
    const row = cov.subarray(y * size, (y + 1) * size);
    let fa = row.indexOf(255);
    let fb = row.lastIndexOf(255);
    if (fa < 0 || row.subarray(fa, fb + 1).some((c) => c !== 255)) [fa, fb] = [size, -1];
    let [ha, hb] = [size, -1];
    for (let x = xa + 1, start = -1; x < xb; x++) {
      if (row[x] !== 0) start = -1;
      else if (start < 0) start = x;
      if (start >= 0 && row[x + 1] !== 0 && x - start > hb - ha) [ha, hb] = [start, x];
    }
    spans.set([xa, fa, fb, xb, ha, hb], SPAN * y);
  }
  return { size, half, cov, spans };
}

// Masks by shape and sub-pixel offset, built when first asked for; the shapes used least
// recently are let go past MASKS_KEPT.
export class Masks {
  /** @param {number} [kept] */
  constructor(kept = MASKS_KEPT) {
    this.kept = kept;
    /** @type {Map<number, (Mask | undefined)[]>} */
    this.byKey = new Map(); // maskKey -> array of SUBPIXEL^2 masks (undefined until built)
    /** @type {number | null} */
    this.newest = null; // the key asked for last (a crowd asks for one shape thousands of times)
  }

  get size() {
    return this.byKey.size;
  }

  // The mask of shape `key` with its centre qx/SUBPIXEL, qy/SUBPIXEL of a pixel right of and
  // below the mask's centre.
  /** @param {number} key @param {number} qx @param {number} qy @returns {Mask} */
  get(key, qx, qy) {
    let set = this.byKey.get(key);
    if (set) {
      if (key !== this.newest) {
        this.byKey.delete(key); // most recent last
        this.byKey.set(key, set);
      }
    } else {
      if (this.byKey.size >= this.kept) this.byKey.delete(/** @type {number} */ (this.byKey.keys().next().value));
      set = new Array(SUBPIXEL * SUBPIXEL);
      this.byKey.set(key, set);
    }
    this.newest = key;
    const i = qy * SUBPIXEL + qx;
    return (set[i] ??= buildMask(key, qx / SUBPIXEL, qy / SUBPIXEL));
  }
}

// Paints colour rgb (0xBBGGRR) over pixel o of buf with opacity a / 255 (1 <= a <= 255), source
// over, in unpremultiplied RGBA. (Colours travel as 24-bit rgb plus an alpha: small integers that
// V8 never has to box, unlike a 32-bit colour with its alpha on top.)
/** @param {Uint32Array} buf @param {number} o @param {number} rgb @param {number} a */
function blend(buf, o, rgb, a) {
  const dst = buf[o];
  const da = dst >>> 24;
  if (a === 255 || da === 0) {
    buf[o] = (a << 24) | rgb;
    return;
  }
  if (da === 255) {
    // Over an opaque pixel: a lerp of two channels at once (red and blue, then green), with the
    // weight a in 0..255 mapped to 0..256 so that 255 is exactly the source.
    const w = a + (a >> 7);
    const rb = (((rgb & 0xff00ff) * w + (dst & 0xff00ff) * (256 - w)) >>> 8) & 0xff00ff;
    const g = (((rgb & 0xff00) * w + (dst & 0xff00) * (256 - w)) >>> 8) & 0xff00;
    buf[o] = 0xff000000 | rb | g;
    return;
  }
  const k = (da * (255 - a)) / 255; // the destination's share
  const oa = a + k;
  const r = ((rgb & 255) * a + (dst & 255) * k) / oa;
  const g = (((rgb >> 8) & 255) * a + ((dst >>> 8) & 255) * k) / oa;
  const b = (((rgb >> 16) & 255) * a + ((dst >>> 16) & 255) * k) / oa;
  buf[o] = (((oa + 0.5) | 0) << 24) | (((b + 0.5) | 0) << 16) | (((g + 0.5) | 0) << 8) | ((r + 0.5) | 0);
}

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
