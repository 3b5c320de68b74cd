// @ts-check
// A tile map as the server describes it (`welcome.map`, a snapshot's `map`,
// protocol/PROTOCOL.md "Tile maps and pathing"): a grid of blocked and walkable tiles whose corner
// is the world's (0, 0). Everything off the map counts as blocked.

/** @import { MapMessage } from '../js/src/protocol.js' */

/** @typedef {{x: number, y: number}} Tile a tile's column and row */

const BLOCKED = 35; // '#'

export class TileMap {
  // m: {width, height, tile_size, rows}: rows top first, '#' blocked, '.' walkable. A row that is
  // short or missing is read as walls, so a malformed message cannot open a hole in the picture.
  /** @param {MapMessage} m */
  constructor(m) {
    this.width = m.width;
    this.height = m.height;
    this.tileSize = m.tile_size;
    this.blocked = new Uint8Array(this.width * this.height).fill(1);
    /** @type {readonly string[] | null} */
    this.rowsCache = null;
    for (let y = 0; y < this.height; y++) {
      const row = m.rows?.[y];
      if (typeof row !== 'string') continue;
      const n = Math.min(row.length, this.width);
      for (let x = 0; x < n; x++) this.blocked[y * this.width + x] = row.charCodeAt(x) === BLOCKED ? 1 : 0;
    }
  }

  /** @param {number} x @param {number} y @returns {boolean} */
  onMap(x, y) {
    return x >= 0 && y >= 0 && x < this.width && y < this.height;
  }

  /** @param {number} x @param {number} y @returns {boolean} */
  isBlocked(x, y) {
    return !this.onMap(x, y) || this.blocked[y * this.width + x] === 1;
  }

  // The tile that world point (wx, wy) lies on, or null off the map.
  /** @param {number} wx @param {number} wy @returns {Tile | null} */
  tileAt(wx, wy) {
    const x = Math.floor(wx / this.tileSize);
    const y = Math.floor(wy / this.tileSize);
    return this.onMap(x, y) ? { x, y } : null;
  }

  // World point at the centre of tile (x, y).
  /** @param {number} x @param {number} y @returns {{x: number, y: number}} */
  centre(x, y) {
    return { x: (x + 0.5) * this.tileSize, y: (y + 0.5) * this.tileSize };
  }

  // The map as the protocol writes it (for tests and the console). A TileMap never changes (a new
  // map is a new TileMap), so the strings are built once.
  /** @returns {readonly string[]} */
  rows() {
    if (this.rowsCache) return this.rowsCache;
    const out = [];
    for (let y = 0; y < this.height; y++) {
      let row = '';
      for (let x = 0; x < this.width; x++) row += this.blocked[y * this.width + x] ? '#' : '.';
      out.push(row);
    }
    this.rowsCache = Object.freeze(out);
    return out;
  }
}

// The tiles on the straight line from tile a to tile b, both included, each a 4-neighbour of the
// one before (a drag that skips tiles between two pointer events still paints a closed wall:
// with 8-neighbour steps a diagonal stroke would leave gaps that agents walk through).
/** @param {Tile} a @param {Tile} b @returns {Tile[]} */
export function tileLine(a, b) {
  const out = [{ x: a.x, y: a.y }];
  let x = a.x;
  let y = a.y;
  const dx = Math.abs(b.x - a.x);
  const dy = Math.abs(b.y - a.y);
  const sx = b.x > a.x ? 1 : -1;
  const sy = b.y > a.y ? 1 : -1;
  // Walk the grid cells the segment between the tile centres crosses: step along x while the
  // next vertical cell boundary comes before the next horizontal one, (0.5 + ix) / dx against
  // (0.5 + iy) / dy, in integers.
  for (let ix = 0, iy = 0; ix < dx || iy < dy; ) {
    if ((1 + 2 * ix) * dy < (1 + 2 * iy) * dx) {
      x += sx;
      ix++;
    } else {
      y += sy;
      iy++;
    }
    out.push({ x, y });
  }
  return out;
}
