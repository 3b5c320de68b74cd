// @ts-check
// The cursor's world point, in the line under the map (#cursor-pos), while a mouse or a pen is
// over the world; hidden when it is off the world or off the canvas (a touch has no cursor). The
// point is worked out every frame from where the pointer is on the canvas, so it follows the view
// as it zooms or pans under a still pointer.

/** @import { Point } from '../js/src/protocol.js' */
/** @import { View, WorldSize } from './view.js' */
/** @import { TileMap } from './tile_map.js' */

// What the line says for world point w: its x and y (one decimal where a unit is 10 pixels or
// more, else whole units) and, on a tile map, the tile; '' off the world.
/** @param {Point} w @param {WorldSize} world @param {number} scale CSS pixels a unit @param {TileMap | null} map @returns {string} */
export function cursorText(w, world, scale, map) {
  if (!(w.x >= 0 && w.y >= 0 && w.x <= world.width && w.y <= world.height)) return '';
  const digits = scale >= 10 ? 1 : 0;
  let text = `x ${w.x.toFixed(digits)}  y ${w.y.toFixed(digits)}`;
  const tile = map ? map.tileAt(w.x, w.y) : null;
  if (tile) text += `  tile ${tile.x}, ${tile.y}`;
  return text;
}

export class CursorReadout {
  /** @param {HTMLCanvasElement} canvas @param {HTMLElement} el */
  constructor(canvas, el) {
    this.el = el;
    /** @type {Point | null} */
    this.at = null; // CSS pixels of the canvas, or null off it
    const track = (/** @type {PointerEvent} */ ev) => {
      if (ev.pointerType === 'touch') return;
      const r = canvas.getBoundingClientRect();
      this.at = { x: ev.clientX - r.left, y: ev.clientY - r.top };
    };
    canvas.addEventListener('pointermove', track);
    canvas.addEventListener('pointerdown', track);
    canvas.addEventListener('pointerleave', () => {
      this.at = null;
    });
  }

  // Called every frame; writes the DOM only when the text changes.
  /** @param {View} view @param {TileMap | null} map */
  update(view, map) {
    const text = this.at && view.world ? cursorText(view.screenToWorld(this.at.x, this.at.y), view.world, view.scale, map) : '';
    const over = text !== '' ? 'true' : 'false';
    if (this.el.dataset.over !== over) this.el.dataset.over = over;
    if (text !== '' && this.el.textContent !== text) this.el.textContent = text;
  }
}
