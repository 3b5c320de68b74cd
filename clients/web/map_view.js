// @ts-check
// Tile maps on the canvas: the tile map under everything else, the walkers' trails over it, and the
// tiles being painted.
//
// The map is drawn once into an offscreen canvas (a layer) and blitted every frame: a 1024 x 1024
// map is a million tiles, far too many to draw 60 times a second. The layer is drawn again only
// when the map changes or when the size of a tile on screen asks for another resolution.

import { THEME, groupColor } from './theme.js';

/** @import { Agent } from '../js/src/protocol.js' */
/** @import { View } from './view.js' */
/** @import { TileMap } from './tile_map.js' */
/** @import { PaintTile, Brush } from './paint.js' */

// A layer of at most this many pixels (32 MB) and this many per side (browsers refuse larger
// canvases). A 1024 x 1024 map gets one pixel a tile.
const MAX_LAYER_PIXELS = 8_000_000;
const MAX_LAYER_SIDE = 8192;
const MAX_TILE_PX = 64; // finer than this is never seen: tiles that big are drawn scaled up
// Below this many pixels a tile, the relief (lit edges, shadows, seams) cannot be seen: the layer
// is then one pixel a tile, written straight into its pixels.
const RELIEF_MIN_PX = 4;

export class MapLayer {
  constructor() {
    /** @type {TileMap | null} */
    this.map = null; // TileMap or null
    /** @type {HTMLCanvasElement | null} */
    this.canvas = null;
    this.tilePx = 0; // layer pixels per tile side
    this.dirty = false;
    this.renders = 0; // how many times the layer was drawn (tests check it is not every frame)
  }

  /** @param {TileMap | null} map */
  setMap(map) {
    this.map = map;
    this.dirty = true;
    if (!map) this.canvas = null; // let a big layer go
  }

  // Blits the layer over the world rectangle, drawing it first if needed. Off the map (a map
  // smaller than the world) everything counts as blocked, so it is drawn as wall.
  /** @param {CanvasRenderingContext2D} ctx @param {View} view */
  draw(ctx, view) {
    const map = this.map;
    if (!map) return;
    const devicePx = map.tileSize * view.scale * view.dpr;
    const tilePx = layerTilePx(devicePx, map.width, map.height);
    if (this.dirty || tilePx !== this.tilePx || !this.canvas) this.#render(tilePx);

    const tl = view.worldToScreen(0, 0);
    const w = map.width * map.tileSize * view.scale;
    const h = map.height * map.tileSize * view.scale;
    const world = view.world;
    if (world && (map.width * map.tileSize < world.width || map.height * map.tileSize < world.height)) {
      ctx.fillStyle = THEME.wall;
      ctx.fillRect(tl.x, tl.y, world.width * view.scale, world.height * view.scale);
    }
    ctx.save();
    // Tiles are squares with hard edges: scaled up they stay crisp. A map with tiles smaller than a
    // pixel is averaged instead, so thin corridors fade rather than flicker in and out.
    ctx.imageSmoothingEnabled = devicePx < 1;
    ctx.drawImage(/** @type {HTMLCanvasElement} */ (this.canvas), tl.x, tl.y, w, h); // #render made it
    ctx.restore();
  }

  /** @param {number} tilePx */
  #render(tilePx) {
    const map = /** @type {TileMap} */ (this.map); // draw() has one
    const W = map.width * tilePx;
    const H = map.height * tilePx;
    if (!this.canvas) this.canvas = document.createElement('canvas');
    this.canvas.width = W;
    this.canvas.height = H;
    const ctx = /** @type {CanvasRenderingContext2D} */ (this.canvas.getContext('2d'));
    if (tilePx < RELIEF_MIN_PX) renderFlat(ctx, map);
    else renderRelief(ctx, map, tilePx);
    this.tilePx = tilePx;
    this.dirty = false;
    this.renders++;
  }
}

// Layer pixels a tile: the tile's size in device pixels rounded up (so the blit never scales up
// by more than a pixel), within the layer's size limits; 1 when too small for relief.
/** @param {number} devicePx @param {number} width @param {number} height @returns {number} */
export function layerTilePx(devicePx, width, height) {
  const fitArea = Math.floor(Math.sqrt(MAX_LAYER_PIXELS / (width * height)));
  const fitSide = Math.floor(MAX_LAYER_SIDE / Math.max(width, height));
  const px = Math.min(Math.ceil(devicePx), fitArea, fitSide, MAX_TILE_PX);
  return px >= RELIEF_MIN_PX ? px : 1;
}

// One pixel a tile, written as image data: a million tiles in a few milliseconds.
/** @param {CanvasRenderingContext2D} ctx @param {TileMap} map */
function renderFlat(ctx, map) {
  const img = ctx.createImageData(map.width, map.height);
  const wall = rgb(THEME.wall);
  const floor = rgb(THEME.floor);
  const d = img.data;
  for (let i = 0; i < map.blocked.length; i++) {
    const c = map.blocked[i] ? wall : floor;
    d[4 * i] = c[0];
    d[4 * i + 1] = c[1];
    d[4 * i + 2] = c[2];
    d[4 * i + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
}

// Raised walls on a floor: a few paths of rectangles, each filled once, in this order: floor,
// seams, the shadows walls cast south, walls, their dark east/west/south edges, their lit north
// edges. An edge is drawn only where a wall meets floor, so a block of walls reads as one mass.
/**
 * @param {CanvasRenderingContext2D} ctx
 * @param {TileMap} map
 * @param {number} k layer pixels a tile
 */
function renderRelief(ctx, map, k) {
  const { width, height } = map;
  ctx.fillStyle = THEME.floor;
  ctx.fillRect(0, 0, width * k, height * k);

  if (k >= 8) {
    const seams = new Path2D();
    for (let x = 1; x < width; x++) seams.rect(x * k, 0, 1, height * k);
    for (let y = 1; y < height; y++) seams.rect(0, y * k, width * k, 1);
    ctx.fillStyle = THEME.floorSeam;
    ctx.fill(seams);
  }

  const edge = Math.max(1, Math.round(k * 0.1));
  const shadowDepth = Math.max(1, Math.round(k * 0.18));
  const walls = new Path2D();
  const shadows = new Path2D();
  const dark = new Path2D();
  const lit = new Path2D();
  const floorAt = (/** @type {number} */ x, /** @type {number} */ y) => !map.isBlocked(x, y);
  for (let y = 0; y < height; y++) {
    let runStart = -1;
    for (let x = 0; x <= width; x++) {
      const blocked = x < width && map.blocked[y * width + x] === 1;
      // Walls as horizontal runs: far fewer rectangles than tiles on a maze.
      if (blocked && runStart < 0) runStart = x;
      if (!blocked && runStart >= 0) {
        walls.rect(runStart * k, y * k, (x - runStart) * k, k);
        runStart = -1;
      }
      if (x === width) break;
      const px = x * k;
      const py = y * k;
      if (!blocked) {
        if (map.isBlocked(x, y - 1) && y > 0) shadows.rect(px, py, k, shadowDepth);
        continue;
      }
      if (floorAt(x, y - 1)) lit.rect(px, py, k, edge);
      if (floorAt(x, y + 1)) dark.rect(px, py + k - edge, k, edge);
      if (floorAt(x - 1, y)) dark.rect(px, py, edge, k);
      if (floorAt(x + 1, y)) dark.rect(px + k - edge, py, edge, k);
    }
  }
  ctx.fillStyle = THEME.floorShadow;
  ctx.fill(shadows);
  ctx.fillStyle = THEME.wall;
  ctx.fill(walls);
  ctx.fillStyle = THEME.wallDark;
  ctx.fill(dark);
  ctx.fillStyle = THEME.wallLit;
  ctx.fill(lit);
}

// Opacity of a walker's trail at history entry i of n (0 the oldest): the newest is opaque and
// the oldest faint, as a footprint fades. Segment i (from entry i - 1 to entry i) and the mark at
// entry i use it.
/** @param {number} i @param {number} n @returns {number} */
export function trailAlpha(i, n) {
  // Counted back from the newest, so that it is exactly opaque (0.15 + 0.85 * i / (n - 1) rounds
  // to 0.9999999999999999 for some n).
  return n <= 1 ? 1 : 1 - (0.85 * (n - 1 - i)) / (n - 1);
}

// The "No Backtracking" tutorial draws a walker's history as a small square at the centre of each
// tile it went through; here the squares are joined by a line through the tile centres, oldest
// first, in the walker's colour (its body's: colorOf, by default its group's), fading with age.
// Under the agents, over the map.
/**
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {Agent[]} agents
 * @param {TileMap | null} map
 * @param {(a: Agent) => string} [colorOf]
 */
export function drawTrails(ctx, view, agents, map, colorOf = (a) => groupColor(a.group)) {
  if (!map) return;
  const tilePx = map.tileSize * view.scale;
  const width = trailWidthPx(tilePx);
  const mark = Math.max(3, tilePx * 0.22); // the tutorial's 10 px square on a 40 px tile is 0.25
  ctx.save();
  ctx.lineCap = 'butt';
  ctx.lineWidth = width;
  const base = ctx.globalAlpha;
  for (const a of agents) {
    const h = a.history;
    if (!h || h.length < 2) continue;
    const n = h.length >> 1;
    const color = colorOf(a);
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    let prev = null;
    for (let i = 0; i < n; i++) {
      const c = map.centre(h[2 * i], h[2 * i + 1]);
      const p = view.worldToScreen(c.x, c.y);
      ctx.globalAlpha = base * trailAlpha(i, n);
      if (prev) {
        ctx.beginPath();
        ctx.moveTo(prev.x, prev.y);
        ctx.lineTo(p.x, p.y);
        ctx.stroke();
      }
      ctx.fillRect(p.x - mark / 2, p.y - mark / 2, mark, mark);
      prev = p;
    }
  }
  ctx.restore();
}

/** @param {number} tilePx @returns {number} */
export function trailWidthPx(tilePx) {
  return Math.max(2, tilePx * 0.1);
}

// Tiles painted but not yet in a snapshot ([{x, y, blocked}]), so the brush answers at once; and
// the outline of the tile under the brush.
/**
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {TileMap | null} map
 * @param {PaintTile[]} tiles
 * @param {Brush | null} brush
 */
export function drawPaintPreview(ctx, view, map, tiles, brush) {
  if (!map) return;
  const s = map.tileSize * view.scale;
  if (tiles.length > 0) {
    const walls = new Path2D();
    const floors = new Path2D();
    for (const t of tiles) {
      const p = view.worldToScreen(t.x * map.tileSize, t.y * map.tileSize);
      (t.blocked ? walls : floors).rect(p.x, p.y, s, s);
    }
    ctx.save();
    ctx.globalAlpha = THEME.paintPreviewAlpha;
    ctx.fillStyle = THEME.wall;
    ctx.fill(walls);
    ctx.fillStyle = THEME.floor;
    ctx.fill(floors);
    ctx.restore();
  }
  if (brush) {
    const p = view.worldToScreen(brush.x * map.tileSize, brush.y * map.tileSize);
    ctx.save();
    ctx.strokeStyle = THEME.brush;
    ctx.lineWidth = 1.5;
    ctx.setLineDash(brush.erase ? [3, 3] : []);
    ctx.strokeRect(p.x + 0.75, p.y + 0.75, Math.max(1, s - 1.5), Math.max(1, s - 1.5));
    ctx.restore();
  }
}

/** @param {string} hex @returns {[number, number, number]} */
function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}
