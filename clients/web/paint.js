// @ts-check
// "Paint walls": drag over the tile map to block tiles, Shift-drag or right-drag to clear them,
// sent to the server as `set_tiles` (protocol/PROTOCOL.md).
//
// A drag is coalesced: its tiles are collected and sent when the button is released, and, while a
// long drag goes on, every FLUSH_MS, so other viewers see it grow; tiles that already are what the
// brush makes are left out. One command holds at most MAX_TILES_PER_COMMAND tiles (the protocol's
// limit) and at most MAX_COMMAND_BYTES of JSON: a frame over 64 KiB closes the connection, and
// that comes first, at about 1,700 tiles, so a huge stroke is sent as a few commands.
//
// Until a snapshot shows them, painted tiles are kept as a preview that the view draws over the
// map, so the brush answers at once: a batch is dropped from the preview when its command is
// refused, or with the first snapshot at or after the tick its ack names (the one that reflects
// it). The server's map stays the only truth.

import { tileLine } from './tile_map.js';

/** @import { Point } from '../js/src/protocol.js' */
/** @import { TileMap, Tile } from './tile_map.js' */

/** @typedef {{x: number, y: number, blocked: boolean}} PaintTile a tile and what it is painted */
/** @typedef {{x: number, y: number, erase: boolean}} Brush */

/**
 * A drag being painted: its tiles not yet sent, by "x,y".
 * @typedef {{blocked: boolean, last: Tile | null, unsent: Map<string, PaintTile>, lastFlush: number}} Stroke
 */

export const MAX_TILES_PER_COMMAND = 10_000;
export const MAX_COMMAND_BYTES = 60_000; // of the 65,536 a frame may hold, with room for the envelope
const FLUSH_MS = 250;

export class Painter {
  // sendTiles(tiles) -> seq, or null when it could not be sent.
  /** @param {(tiles: PaintTile[]) => number | null} sendTiles */
  constructor(sendTiles) {
    this.sendTiles = sendTiles;
    this.on = false;
    /** @type {Stroke | null} */
    this.stroke = null; // {blocked, last: {x, y} | null, unsent: Map key -> tile, lastFlush}
    /** @type {Map<number, {tiles: Map<string, PaintTile>, ackTick: number | null}>} */
    this.batches = new Map(); // seq -> {tiles: Map key -> tile, ackTick: number | null}
    /** @type {Brush | null} */
    this.brush = null; // {x, y, erase}: the tile under the pointer while painting
  }

  /** @param {boolean} on */
  setOn(on) {
    if (!on) this.end();
    this.on = on;
    if (!on) this.brush = null;
  }

  // Starts a stroke at world point w: blocked true paints walls, false clears them.
  /** @param {TileMap | null} map @param {Point} w @param {boolean} blocked */
  begin(map, w, blocked) {
    this.end();
    this.stroke = { blocked, last: null, unsent: new Map(), lastFlush: performance.now() };
    this.extend(map, w);
  }

  // Continues the stroke to world point w, through every tile between the last one and w's.
  /** @param {TileMap | null} map @param {Point} w */
  extend(map, w) {
    const s = this.stroke;
    if (!s || !map) return;
    const t = map.tileAt(w.x, w.y);
    this.hover(map, w, !s.blocked);
    if (!t) return; // off the map: the stroke resumes where the pointer comes back
    for (const tile of s.last ? tileLine(s.last, t) : [t]) {
      if (!map.onMap(tile.x, tile.y)) continue;
      const key = `${tile.x},${tile.y}`;
      if (s.unsent.has(key) || this.#shows(map, tile.x, tile.y) === s.blocked) continue;
      s.unsent.set(key, { x: tile.x, y: tile.y, blocked: s.blocked });
    }
    s.last = t;
    if (s.unsent.size >= MAX_TILES_PER_COMMAND || performance.now() - s.lastFlush >= FLUSH_MS) this.#flush();
  }

  // Ends the stroke (button released, mode left): sends what is left of it.
  end() {
    if (!this.stroke) return;
    this.#flush();
    this.stroke = null;
  }

  get painting() {
    return this.stroke !== null;
  }

  /** @param {TileMap | null} map @param {Point | null} w @param {boolean} erase */
  hover(map, w, erase) {
    const t = map && w ? map.tileAt(w.x, w.y) : null;
    this.brush = t ? { ...t, erase } : null;
  }

  // The server's answers and snapshots, which retire preview batches.
  /** @param {number} seq @param {number} tick */
  acked(seq, tick) {
    const b = this.batches.get(seq);
    if (b) b.ackTick = tick;
  }

  /** @param {number} seq */
  refused(seq) {
    this.batches.delete(seq);
  }

  /** @param {number} tick */
  snapshot(tick) {
    for (const [seq, b] of this.batches) if (b.ackTick !== null && tick >= b.ackTick) this.batches.delete(seq);
  }

  // A new session (or none): answers to old commands will never come.
  reset() {
    this.batches.clear();
    if (this.stroke) this.stroke.unsent.clear();
  }

  // Tiles to draw over the map until a snapshot shows them, the newest last.
  /** @returns {PaintTile[]} */
  preview() {
    /** @type {PaintTile[]} */
    const out = [];
    for (const b of this.batches.values()) out.push(...b.tiles.values());
    if (this.stroke) out.push(...this.stroke.unsent.values());
    return out;
  }

  get pendingCommands() {
    return this.batches.size;
  }

  // What tile (x, y) will be once everything painted so far is applied.
  /** @param {TileMap} map @param {number} x @param {number} y @returns {boolean} */
  #shows(map, x, y) {
    const key = `${x},${y}`;
    const u = this.stroke?.unsent.get(key);
    if (u) return u.blocked;
    let blocked = map.isBlocked(x, y);
    for (const b of this.batches.values()) blocked = b.tiles.get(key)?.blocked ?? blocked; // oldest first
    return blocked;
  }

  #flush() {
    const s = this.stroke;
    if (!s) return;
    s.lastFlush = performance.now();
    if (s.unsent.size === 0) return;
    for (const tiles of chunkTiles([...s.unsent.values()])) {
      const seq = this.sendTiles(tiles);
      if (seq !== null) this.batches.set(seq, { tiles: new Map(tiles.map((t) => [`${t.x},${t.y}`, t])), ackTick: null });
    }
    s.unsent.clear();
  }
}

// Splits tiles into commands of at most MAX_TILES_PER_COMMAND tiles and MAX_COMMAND_BYTES of JSON.
/** @param {PaintTile[]} tiles @returns {PaintTile[][]} */
export function chunkTiles(tiles) {
  /** @type {PaintTile[][]} */
  const chunks = [];
  /** @type {PaintTile[]} */
  let cur = [];
  let bytes = 0;
  for (const t of tiles) {
    const size = JSON.stringify(t).length + 1; // and its comma
    if (cur.length > 0 && (cur.length === MAX_TILES_PER_COMMAND || bytes + size > MAX_COMMAND_BYTES)) {
      chunks.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(t);
    bytes += size;
  }
  if (cur.length > 0) chunks.push(cur);
  return chunks;
}
