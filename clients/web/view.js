// @ts-check
// Draws the world on a canvas and maps between world units and CSS pixels.
// The world rectangle [0,width] x [0,height] (y down, as on screen) is scaled uniformly to fit
// the canvas and centred, so circles stay circles whatever the window's shape; the canvas less
// what docked panels cover (insets), so that the fitted world lies beside them, and nothing of the
// world is drawn under them at any zoom (the free part clips every frame). The marks round
// the agents (sources and exits, obstacles, goals, role marks, flashes, orders, the selection box) are drawn by
// view_marks.js; a team's fog of war by fog_layer.js.

import { drawTraces } from './inspect_view.js';
import { THEME, groupColor, agentColorBy } from './theme.js';
import { MapLayer, drawTrails, drawPaintPreview } from './map_view.js';
import { AgentLayer } from './agent_layer.js';
import { FogLayer } from './fog_layer.js';
import { HeatLayer } from './heat_map.js';
import * as marks from './view_marks.js';
import { drawGhosts, drawGameMarks, healthBar } from './game_layer.js';

export { THEME, groupColor };

/** @import { Agent, Exit, Obstacle, InspectTrace, Point, Source, Wall } from '../js/src/protocol.js' */
/** @import { TileMap } from './tile_map.js' */
/** @import { PaintTile, Brush } from './paint.js' */
/** @import { SelectionBox } from './input.js' */
/** @import { Flash, Order } from './view_marks.js' */
/** @import { EventMark, ExploredGrid } from './game.js' */
/** @import { Ghost } from '../js/src/protocol.js' */

/** @typedef {{width: number, height: number}} WorldSize */

/**
 * What one frame draws (main.js gathers it).
 * @typedef {object} ViewFrame
 * @property {Agent[]} agents ordered by id
 * @property {Obstacle[]} obstacles
 * @property {Source[]} [sources] outlined with their counts, on the ground
 * @property {Exit[]} [exits]
 * @property {Wall[]} [walls]
 * @property {Set<number>} selected
 * @property {Order[]} orders
 * @property {Flash[]} flashes
 * @property {InspectTrace[]} traces the inspect traces to draw
 * @property {boolean} live
 * @property {number} now
 * @property {{tiles: PaintTile[], brush: Brush | null}} [paint]
 * @property {Map<number, string>} [roles]
 * @property {boolean} [allGoals]
 * @property {SelectionBox | null} [box]
 * @property {Point[]} [routeDraft] a patrol's route being given (Shift + right-clicks after Q)
 * @property {boolean} [byTeam] bodies (and trails) in their teams' colours, not their groups'
 * @property {number | null} [fogTeam] the team whose fog of war veils the world (null: none)
 * @property {ExploredGrid | null} [explored] a player's team's explored ground (fogTeam's)
 * @property {Ghost[]} [ghosts] a player's team's memory of enemies out of sight
 * @property {EventMark[]} [events] hit flashes and death markers being shown
 */

const MARGIN_PX = 16; // space around the world so its edge is visible
// An agent is never drawn smaller than this radius (CSS pixels): a 3,000-unit field fitted into an
// 800-pixel window, or any world zoomed far out, still shows every agent as an 8-pixel dot.
export const MIN_AGENT_PX = 4;
const GRID_MIN_PX = 48; // grid spacing is the smallest 1-2-5 step at least this wide
const MIN_ZOOM = 0.25; // the camera's zoom range, relative to the whole world fitted
const MAX_ZOOM = 64;

export class View {
  /** @param {HTMLCanvasElement} canvas */
  constructor(canvas) {
    this.canvas = canvas;
    // Opaque: every frame paints every pixel, and the compositor need not blend the canvas.
    this.ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d', { alpha: false }));
    this.cssWidth = 0;
    this.cssHeight = 0;
    this.dpr = 1;
    /** @type {WorldSize | null} */
    this.world = null; // {width, height} from welcome
    this.scale = 1; // CSS pixels per world unit
    this.originX = 0; // CSS pixel of world x = 0
    this.originY = 0;
    this.fitted = true; // the camera shows the whole world (until panned or zoomed)
    // CSS pixels along each edge of the canvas that docked panels cover (the legend, the minimap:
    // dock.js): the fitted world and the view's centre are those of the rest.
    this.insets = { left: 0, top: 0, right: 0, bottom: 0 };
    this.mapLayer = new MapLayer();
    this.agentLayer = new AgentLayer();
    this.heatLayer = new HeatLayer(); // the density layer (heat_map.js): empty until one comes
    this.fogLayer = new FogLayer(); // a team's fog of war (fog_layer.js), when a frame has one
    /** @type {TileMap | null} */
    this.map = null; // TileMap or null
    /** @type {{id: number, points: Point[]}[]} */
    this.routes = []; // the queued routes the last frame drew (screen points from the goal on)
    /** @type {marks.AreaLabel[]} */
    this.areaLabels = []; // the sources' and exits' labels the last frame drew
  }

  // The tile map to draw under everything (null: none). Drawn into its layer at the next frame.
  /** @param {TileMap | null} map */
  setMap(map) {
    this.map = map;
    this.mapLayer.setMap(map);
  }

  /** @param {WorldSize} world */
  setWorld(world) {
    const same = this.world && this.world.width === world.width && this.world.height === world.height;
    this.world = { width: world.width, height: world.height };
    // A welcome for the same world (a reconnect, new rates) keeps the user's camera.
    if (!same) this.fitted = true;
    if (this.fitted) this.#fit();
  }

  // Matches the backing store to the canvas's CSS size and the device pixel ratio, so drawing
  // is sharp; cheap enough to call every frame because it does nothing unless a size changed.
  syncSize() {
    const w = this.canvas.clientWidth;
    const h = this.canvas.clientHeight;
    const dpr = window.devicePixelRatio || 1;
    if (w === this.cssWidth && h === this.cssHeight && dpr === this.dpr) return;
    // A moved camera keeps the world point at the centre of the view where it is.
    const centre = this.cssWidth > 0 ? this.screenToWorld(this.cssWidth / 2, this.cssHeight / 2) : null;
    this.cssWidth = w;
    this.cssHeight = h;
    this.dpr = dpr;
    this.canvas.width = Math.max(1, Math.round(w * dpr));
    this.canvas.height = Math.max(1, Math.round(h * dpr));
    if (this.fitted || !centre) this.#fit();
    else {
      this.originX = w / 2 - centre.x * this.scale;
      this.originY = h / 2 - centre.y * this.scale;
    }
  }

  // The camera: the whole world, scaled uniformly and centred (key F).
  fitWorld() {
    this.fitted = true;
    this.#fit();
  }

  // The docked panels' edges (dock.js); a fitted view fits the rest again.
  /** @param {{left: number, top: number, right: number, bottom: number}} insets */
  setInsets(insets) {
    const i = this.insets;
    if (i.left === insets.left && i.top === insets.top && i.right === insets.right && i.bottom === insets.bottom) return;
    this.insets = { ...insets };
    if (this.fitted) this.#fit();
  }

  // The part of the canvas no docked panel covers, CSS pixels: {x, y, w, h}.
  /** @returns {{x: number, y: number, w: number, h: number}} */
  freeRect() {
    const i = this.insets;
    return {
      x: i.left,
      y: i.top,
      w: Math.max(1, this.cssWidth - i.left - i.right),
      h: Math.max(1, this.cssHeight - i.top - i.bottom),
    };
  }

  // Moves the view, at its scale, so that world point (x, y) is at the centre of the free part of
  // the canvas (the minimap's clicks).
  /** @param {number} x @param {number} y */
  centreOn(x, y) {
    const f = this.freeRect();
    this.originX = f.x + f.w / 2 - x * this.scale;
    this.originY = f.y + f.h / 2 - y * this.scale;
    this.fitted = false;
  }

  // Zooms by `factor` keeping the world point under CSS point (sx, sy) where it is on screen.
  /** @param {number} sx @param {number} sy @param {number} factor */
  zoomAt(sx, sy, factor) {
    if (!this.world) return;
    const fit = this.#fitScale();
    const scale = Math.min(fit * MAX_ZOOM, Math.max(fit * MIN_ZOOM, this.scale * factor));
    const w = this.screenToWorld(sx, sy);
    this.scale = scale;
    this.originX = sx - w.x * scale;
    this.originY = sy - w.y * scale;
    this.fitted = false;
  }

  // Moves the view by (dx, dy) CSS pixels: the world follows the pointer.
  /** @param {number} dx @param {number} dy */
  pan(dx, dy) {
    this.originX += dx;
    this.originY += dy;
    this.fitted = false;
  }

  #fitScale() {
    const { width, height } = /** @type {WorldSize} */ (this.world); // its callers have one
    const free = this.freeRect();
    const sx = (free.w - 2 * MARGIN_PX) / width;
    const sy = (free.h - 2 * MARGIN_PX) / height;
    return Math.max(1e-6, Math.min(sx, sy));
  }

  #fit() {
    if (!this.world || this.cssWidth === 0) return;
    const { width, height } = this.world;
    const free = this.freeRect();
    this.scale = this.#fitScale();
    this.originX = free.x + (free.w - width * this.scale) / 2;
    this.originY = free.y + (free.h - height * this.scale) / 2;
  }

  /** @param {number} x @param {number} y @returns {Point} */
  worldToScreen(x, y) {
    return { x: this.originX + x * this.scale, y: this.originY + y * this.scale };
  }

  /** @param {number} x @param {number} y @returns {Point} */
  screenToWorld(x, y) {
    return { x: (x - this.originX) / this.scale, y: (y - this.originY) / this.scale };
  }

  // frame: {agents, obstacles, walls, selected: Set of ids, orders: [{x, y, at}],
  //         flashes: [{x, y, impulse, at}], traces: inspect entries to draw, live: bool, now: ms,
  //         paint: {tiles: [{x, y, blocked}] not yet in a snapshot, brush: {x, y, erase} or null},
  //         roles: Map of id -> role (roles.js), allGoals: every agent's goal, not only the selection's,
  //         routeDraft: a patrol's route being given}
  /** @param {ViewFrame} frame */
  draw(frame) {
    const ctx = this.ctx;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.fillStyle = THEME.outside;
    ctx.fillRect(0, 0, this.cssWidth, this.cssHeight);
    if (!this.world) return;

    // Nothing of the world is drawn under a docked panel (dock.js), at any zoom: only in the free
    // part of the canvas.
    const free = this.freeRect();
    ctx.save();
    ctx.beginPath();
    ctx.rect(free.x, free.y, free.w, free.h);
    ctx.clip();
    this.#drawWorld();
    // A stale picture (socket down) is kept but dimmed, so it is never mistaken for live state.
    ctx.globalAlpha = frame.live ? 1 : 0.35;
    const colorOf = agentColorBy(Boolean(frame.byTeam));
    this.heatLayer.draw(ctx, this); // on the ground, under everything that stands on it
    if (this.map) {
      drawPaintPreview(ctx, this, this.map, frame.paint?.tiles ?? [], null);
      drawTrails(ctx, this, frame.agents, this.map, colorOf);
    }
    this.areaLabels = marks.drawSourcesAndExits(ctx, this, frame.sources ?? [], frame.exits ?? []);
    marks.drawWalls(ctx, this, frame.walls ?? []);
    marks.drawObstacles(ctx, this, frame.obstacles);
    // The fog veils the ground and what stands on it, under the agents: every agent drawn is one
    // the team sees, and one seen at the rim of a disc stays bright.
    if (typeof frame.fogTeam === 'number') this.fogLayer.draw(ctx, this, frame.agents, frame.fogTeam, frame.explored ?? null);
    // A player's ghosts: where its team last saw enemies, over the fog they are lost in.
    if (frame.ghosts) drawGhosts(ctx, this, frame.ghosts);
    const goalsOf = frame.allGoals ? null : frame.selected; // null: everyone's
    marks.drawTargetPaths(ctx, this, frame.agents, goalsOf);
    this.routes = marks.drawQueuedRoutes(ctx, this, frame.agents, goalsOf);
    this.agentLayer.draw(ctx, this, frame.agents, frame.selected, colorOf); // bodies, headings, selection
    if (frame.roles && frame.roles.size > 0) marks.drawRoleMarks(ctx, this, frame.agents, frame.roles);
    marks.drawUnreachable(ctx, this, frame.agents);
    marks.drawStalls(ctx, this, frame.agents);
    marks.drawTargetCrosses(ctx, this, frame.agents, goalsOf);
    // The inspector is a diagnostic layer: over the units it explains, under the transient marks.
    if (frame.traces.length > 0) drawTraces(ctx, this, frame.traces, frame.agents, frame.obstacles);
    marks.drawFlashes(ctx, this, frame.flashes, frame.now);
    drawGameMarks(ctx, this, frame.agents, frame.events ?? [], frame.now); // hits, hit points, deaths
    ctx.globalAlpha = 1;
    marks.drawOrders(ctx, this, frame.orders, frame.now);
    if (frame.routeDraft) marks.drawRouteDraft(ctx, this, frame.routeDraft);
    if (frame.box) marks.drawBox(ctx, frame.box);
    if (this.map && frame.paint?.brush) drawPaintPreview(ctx, this, this.map, [], frame.paint.brush);
    ctx.restore();
  }

  // The part of the canvas where the world is drawn, CSS pixels: the world's rectangle on screen
  // within the free part of the canvas; null when none of it is in view.
  /** @returns {{x: number, y: number, w: number, h: number} | null} */
  drawnRect() {
    if (!this.world) return null;
    const f = this.freeRect();
    const a = this.worldToScreen(0, 0);
    const b = this.worldToScreen(this.world.width, this.world.height);
    const x0 = Math.max(f.x, a.x);
    const y0 = Math.max(f.y, a.y);
    const x1 = Math.min(f.x + f.w, b.x);
    const y1 = Math.min(f.y + f.h, b.y);
    return x1 > x0 && y1 > y0 ? { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } : null;
  }

  // The outline of agent a's role mark on screen ([[x, y], ...]; roles.js), or [] without a role.
  /** @param {Agent} agent @param {string} role @returns {[number, number][]} */
  roleMark(agent, role) {
    return marks.roleMark(this, agent, role);
  }

  // Screen geometry of the "!" badge of an agent whose pathing cannot reach its goal: a disc
  // {x, y, r} on its upper right, clear of its body and of the dashed ring around it.
  /** @param {Agent} agent @returns {{x: number, y: number, r: number}} */
  unreachableBadge(agent) {
    return marks.unreachableBadge(this, agent);
  }

  // Screen geometry of a stalled agent's badge (view_marks.js's stallBadge).
  /** @param {Agent} agent @returns {{x: number, y: number, r: number}} */
  stallBadge(agent) {
    return marks.stallBadge(this, agent);
  }

  // Screen geometry of a hurt agent's hit-point bar (game_layer.js's healthBar).
  /** @param {Agent} agent @returns {{x: number, y: number, w: number, h: number, full: number}} */
  healthBar(agent) {
    return healthBar(this, agent);
  }

  // Screen geometry of a collision flash at time `now`, or null once it has faded.
  /** @param {Flash} f @param {number} now @returns {{x: number, y: number, r: number, alpha: number} | null} */
  flashRing(f, now) {
    return marks.flashRing(this, f, now);
  }

  #drawWorld() {
    const ctx = this.ctx;
    const { width, height } = /** @type {WorldSize} */ (this.world); // draw() has one
    const tl = this.worldToScreen(0, 0);
    const w = width * this.scale;
    const h = height * this.scale;
    ctx.fillStyle = THEME.world;
    ctx.fillRect(tl.x, tl.y, w, h);
    if (this.map) {
      // The map has its own tile seams: no distance grid over it.
      this.mapLayer.draw(ctx, this);
      ctx.strokeStyle = THEME.worldEdge;
      ctx.lineWidth = 1;
      ctx.strokeRect(tl.x - 0.5, tl.y - 0.5, w + 1, h + 1);
      return;
    }

    const step = gridStep(GRID_MIN_PX / this.scale);
    ctx.beginPath();
    for (let x = step; x < width; x += step) {
      const sx = Math.round(tl.x + x * this.scale) + 0.5; // half-pixel: crisp 1px lines
      ctx.moveTo(sx, tl.y);
      ctx.lineTo(sx, tl.y + h);
    }
    for (let y = step; y < height; y += step) {
      const sy = Math.round(tl.y + y * this.scale) + 0.5;
      ctx.moveTo(tl.x, sy);
      ctx.lineTo(tl.x + w, sy);
    }
    ctx.strokeStyle = THEME.grid;
    ctx.lineWidth = 1;
    ctx.stroke();

    ctx.strokeStyle = THEME.worldEdge;
    ctx.strokeRect(tl.x - 0.5, tl.y - 0.5, w + 1, h + 1);
  }

  // An agent's radius on screen, CSS pixels: never below MIN_AGENT_PX.
  /** @param {{r: number}} agent @returns {number} */
  radiusPx(agent) {
    return Math.max(MIN_AGENT_PX, agent.r * this.scale);
  }
}

// The smallest of 1, 2, 5 x 10^k that is at least `min` (world units).
/** @param {number} min @returns {number} */
function gridStep(min) {
  const pow = 10 ** Math.floor(Math.log10(min));
  for (const m of [1, 2, 5, 10]) {
    if (m * pow >= min) return m * pow;
  }
  return 10 * pow;
}
