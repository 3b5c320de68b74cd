// @ts-check
// The docks: panels kept beside the map rather than over it. The side dock holds the inspector's
// legend, the heat map's and the minimap: on a stage wider than tall a column at the left, the
// minimap at its foot as in strategy games; on a taller one (a phone held upright) a row along
// the bottom. The tray along the bottom holds the selection's panel (the agent table), as a
// strategy game's bottom bar does; its room is kept whether or not anything is selected, so that
// selecting an agent never moves or rescales the fitted world under the pointer (a double click's
// second click lands where the first did). The column at the right holds the step profile, above
// the tray. Their sizes are fixed here, so what they cover is known: the view's insets (view.js),
// which the fitted world and the view's centre leave free and outside which the world is not
// drawn. A panel that does not fit its dock scrolls.

/** @import { View } from './view.js' */

// The side dock's width at the left: narrower on a small stage, where the tray needs the room
// beside it.
/** @param {number} stageWidth CSS pixels @returns {number} */
export function dockWidth(stageWidth) {
  return stageWidth < 1000 ? 200 : 240;
}
export const DOCK_HEIGHT_PX = 150; // the side dock's height as a row at the bottom
export const TRAY_HEIGHT_PX = 112; // the tray's: the agent table's head and about five rows
const COLUMN_ROW_HEIGHT_PX = 200; // the right column's, as a row on a tall stage
const GAP_PX = 12; // between a dock and the stage's edge, and between docks

// The right column's width: the step profile's table.
/** @param {number} stageWidth CSS pixels @returns {number} */
export function columnWidth(stageWidth) {
  return stageWidth < 1000 ? 300 : 340;
}

/** @typedef {'left' | 'bottom'} DockSide */
/** @typedef {{left: number, top: number, right: number, bottom: number}} Insets */
/** @typedef {{left: number, top: number, width: number, height: number}} Box a rectangle of the stage, CSS pixels */

/**
 * Where the docks go on a stage, and what they cover of it (the view's insets).
 * @typedef {object} DockLayout
 * @property {DockSide} side the side dock's
 * @property {Box | null} dock the side dock, or null when it shows nothing
 * @property {Box} tray
 * @property {Box | null} column the right column, or null when it shows nothing
 * @property {Insets} insets
 */

// Which side the side dock takes on a stage of w x h CSS pixels.
/** @param {number} w @param {number} h @returns {DockSide} */
export function dockSide(w, h) {
  return w >= h ? 'left' : 'bottom';
}

// The docks of a stage of w x h CSS pixels, the side dock showing a panel or not (dockShown), the
// column too (columnShown). Wide: the side dock at the left from top to bottom, the tray along
// the bottom beside it, the column at the right above the tray. Tall: rows along the bottom, from
// the foot up: the side dock, the tray, the column. Each inset reaches the dock's inner edge.
/** @param {number} w @param {number} h @param {{dockShown: boolean, columnShown: boolean}} shown @returns {DockLayout} */
export function dockLayout(w, h, { dockShown, columnShown }) {
  const side = dockSide(w, h);
  if (side === 'left') {
    const dw = dockWidth(w);
    const cw = columnWidth(w);
    const trayLeft = dockShown ? GAP_PX + dw + GAP_PX : GAP_PX;
    const trayTop = h - GAP_PX - TRAY_HEIGHT_PX;
    return {
      side,
      dock: dockShown ? { left: GAP_PX, top: GAP_PX, width: dw, height: h - 2 * GAP_PX } : null,
      tray: { left: trayLeft, top: trayTop, width: w - trayLeft - GAP_PX, height: TRAY_HEIGHT_PX },
      column: columnShown ? { left: w - GAP_PX - cw, top: GAP_PX, width: cw, height: trayTop - 2 * GAP_PX } : null,
      insets: { left: dockShown ? GAP_PX + dw : 0, top: 0, right: columnShown ? GAP_PX + cw : 0, bottom: GAP_PX + TRAY_HEIGHT_PX },
    };
  }
  const width = w - 2 * GAP_PX;
  let top = h;
  /** @param {number} height @returns {Box} */
  const row = (height) => {
    top -= GAP_PX + height;
    return { left: GAP_PX, top, width, height };
  };
  const dock = dockShown ? row(DOCK_HEIGHT_PX) : null;
  const tray = row(TRAY_HEIGHT_PX);
  const column = columnShown ? row(COLUMN_ROW_HEIGHT_PX) : null;
  return { side, dock, tray, column, insets: { left: 0, top: 0, right: 0, bottom: h - top } };
}

/** @param {HTMLElement} el @param {Box | null} box */
function place(el, box) {
  el.hidden = box === null;
  if (!box) return;
  el.style.left = `${box.left}px`;
  el.style.top = `${box.top}px`;
  el.style.width = `${box.width}px`;
  el.style.height = `${box.height}px`;
}

export class Dock {
  /** @param {HTMLElement} stage @param {{dock: HTMLElement, tray: HTMLElement, column: HTMLElement}} docks */
  constructor(stage, { dock, tray, column }) {
    this.stage = stage;
    this.dock = dock;
    this.tray = tray;
    this.column = column;
    /** @type {DockSide} */
    this.side = 'left';
    this.width = 0; // the side dock's, CSS pixels, at the left
    this.key = '';
  }

  // Called every frame after the panels are updated: places the docks for the stage's size and
  // what they show, and gives the view its insets (a fitted view fits again).
  /** @param {View} view */
  update(view) {
    const shows = (/** @type {HTMLElement} */ d) => [...d.children].some((c) => c instanceof HTMLElement && !c.hidden);
    const dockShown = shows(this.dock);
    const columnShown = shows(this.column);
    const key = `${view.cssWidth}x${view.cssHeight}:${dockShown}:${columnShown}`;
    if (key === this.key) return;
    this.key = key;
    const layout = dockLayout(view.cssWidth, view.cssHeight, { dockShown, columnShown });
    this.side = layout.side;
    this.width = dockWidth(view.cssWidth);
    this.stage.dataset.dock = layout.side;
    this.stage.dataset.docked = String(dockShown);
    place(this.dock, layout.dock);
    place(this.tray, layout.tray);
    place(this.column, layout.column);
    view.setInsets(layout.insets);
  }
}
