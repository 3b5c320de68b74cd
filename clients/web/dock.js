// @ts-check
// The dock: panels kept beside the map rather than over it (the inspector's legend, the
// minimap). On a stage wider than tall it is a column at the left, the minimap at its foot as in
// strategy games; on a taller one (a phone held upright) a row along the bottom. Its size is
// fixed here, so what it covers is known: the view's insets (view.js), which the fitted world and
// the view's centre leave free. A panel that does not fit the dock's height scrolls. The agent
// panel (top right) is kept clear of it (style.css, by #stage's data-docked).

/** @import { View } from './view.js' */

// The column's width at the left: narrower on a small stage, where the agent panel needs the room
// beside it.
/** @param {number} stageWidth CSS pixels @returns {number} */
export function dockWidth(stageWidth) {
  return stageWidth < 1000 ? 200 : 240;
}
export const DOCK_HEIGHT_PX = 150; // the row's height, at the bottom
const DOCK_GAP_PX = 12; // between the dock and the stage's edge (style.css's #dock offsets)

/** @typedef {'left' | 'bottom'} DockSide */
/** @typedef {{left: number, top: number, right: number, bottom: number}} Insets */

// Which side the dock takes on a stage of w x h CSS pixels.
/** @param {number} w @param {number} h @returns {DockSide} */
export function dockSide(w, h) {
  return w >= h ? 'left' : 'bottom';
}

// What a dock on `side`, `width` wide at the left, covers of the canvas, as the view's insets;
// none when it shows nothing.
/** @param {DockSide} side @param {number} width @param {boolean} shown @returns {Insets} */
export function dockInsets(side, width, shown) {
  const none = { left: 0, top: 0, right: 0, bottom: 0 };
  if (!shown) return none;
  return side === 'left' ? { ...none, left: DOCK_GAP_PX + width } : { ...none, bottom: DOCK_GAP_PX + DOCK_HEIGHT_PX };
}

export class Dock {
  /** @param {HTMLElement} stage @param {HTMLElement} dock */
  constructor(stage, dock) {
    this.stage = stage;
    this.dock = dock;
    stage.style.setProperty('--dock-height', `${DOCK_HEIGHT_PX}px`);
    /** @type {DockSide} */
    this.side = 'left';
    this.width = 0; // CSS pixels, at the left
    this.key = '';
  }

  // Called every frame after the panels are updated: shows the dock while a panel in it is shown,
  // picks its side from the stage's shape, and gives the view its insets (a fitted view fits again).
  /** @param {View} view */
  update(view) {
    const shown = [...this.dock.children].some((c) => c instanceof HTMLElement && !c.hidden);
    const side = dockSide(view.cssWidth, view.cssHeight);
    const width = dockWidth(view.cssWidth);
    const key = `${side}:${width}:${shown}`;
    if (key === this.key) return;
    this.key = key;
    this.side = side;
    this.width = width;
    this.dock.hidden = !shown;
    this.stage.dataset.dock = side;
    this.stage.dataset.docked = String(shown);
    this.stage.style.setProperty('--dock-width', `${width}px`);
    view.setInsets(dockInsets(side, width, shown));
  }
}
