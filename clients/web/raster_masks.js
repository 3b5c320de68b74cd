// @ts-check
// The agent rasteriser's pure pieces (agent_raster.js draws with them): the pixel format, the
// coverage of a round shape's pixels, and the coverage masks its discs and rings are copied from.
//
// Coverage is the estimate every anti-aliasing rasteriser starts from for a pixel whose centre is
// at distance d inside an edge: clamp(d + 0.5, 0, 1). Masks are cached per radius, ring width and
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
export const SPAN = 6; // numbers a mask keeps per row (buildMask)

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
export function blend(buf, o, rgb, a) {
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
