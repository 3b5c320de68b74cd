// @ts-check
// Draws the world on a canvas and maps between world units and CSS pixels.
// The world rectangle [0,width] x [0,height] (y down, as on screen) is scaled uniformly to fit
// the canvas and centred, so circles stay circles whatever the window's shape.

import { drawTraces } from './inspect_view.js';
import { THEME, groupColor } from './theme.js';
import { MapLayer, drawTrails, drawPaintPreview } from './map_view.js';
import { AgentLayer } from './agent_layer.js';
import { markOutline } from './roles.js';

export { THEME, groupColor };

/** @import { Agent, Obstacle, InspectTrace, Point } from './connection.js' */
/** @import { TileMap } from './tile_map.js' */
/** @import { PaintTile, Brush } from './paint.js' */
/** @import { SelectionBox } from './input.js' */

/** @typedef {{width: number, height: number}} WorldSize */
/** @typedef {{x: number, y: number, impulse: number, at: number}} Flash a collision shown since `at` (page ms) */
/** @typedef {{x: number, y: number, at: number}} Order a move order given at `at` (page ms) */

/**
 * What one frame draws (main.js gathers it).
 * @typedef {object} ViewFrame
 * @property {Agent[]} agents ordered by id
 * @property {Obstacle[]} obstacles
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
 */

const MARGIN_PX = 16; // space around the world so its edge is visible
// An agent is never drawn smaller than this radius (CSS pixels): a 3,000-unit field fitted into an
// 800-pixel window, or any world zoomed far out, still shows every agent as an 8-pixel dot.
export const MIN_AGENT_PX = 4;
const MIN_OBSTACLE_PX = 2;
const GRID_MIN_PX = 48; // grid spacing is the smallest 1-2-5 step at least this wide
export const ORDER_MARKER_MS = 600; // how long a move-order ring takes to fade
export const FLASH_MS = 500; // how long a collision's ring takes to grow and fade
const UNREACHABLE_RING_GAP_PX = 5; // the dashed ring, outside the selection ring (3 px)
const UNREACHABLE_BADGE_PX = 6; // radius of the "!" disc
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
    this.mapLayer = new MapLayer();
    this.agentLayer = new AgentLayer();
    /** @type {TileMap | null} */
    this.map = null; // TileMap or null
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
    const sx = (this.cssWidth - 2 * MARGIN_PX) / width;
    const sy = (this.cssHeight - 2 * MARGIN_PX) / height;
    return Math.max(1e-6, Math.min(sx, sy));
  }

  #fit() {
    if (!this.world || this.cssWidth === 0) return;
    const { width, height } = this.world;
    this.scale = this.#fitScale();
    this.originX = (this.cssWidth - width * this.scale) / 2;
    this.originY = (this.cssHeight - height * this.scale) / 2;
  }

  /** @param {number} x @param {number} y @returns {Point} */
  worldToScreen(x, y) {
    return { x: this.originX + x * this.scale, y: this.originY + y * this.scale };
  }

  /** @param {number} x @param {number} y @returns {Point} */
  screenToWorld(x, y) {
    return { x: (x - this.originX) / this.scale, y: (y - this.originY) / this.scale };
  }

  // frame: {agents, obstacles, selected: Set of ids, orders: [{x, y, at}],
  //         flashes: [{x, y, impulse, at}], traces: inspect entries to draw, live: bool, now: ms,
  //         paint: {tiles: [{x, y, blocked}] not yet in a snapshot, brush: {x, y, erase} or null},
  //         roles: Map of id -> role (roles.js), allGoals: every agent's goal, not only the selection's}
  /** @param {ViewFrame} frame */
  draw(frame) {
    const ctx = this.ctx;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.fillStyle = THEME.outside;
    ctx.fillRect(0, 0, this.cssWidth, this.cssHeight);
    if (!this.world) return;

    this.#drawWorld();
    // A stale picture (socket down) is kept but dimmed, so it is never mistaken for live state.
    ctx.globalAlpha = frame.live ? 1 : 0.35;
    if (this.map) {
      drawPaintPreview(ctx, this, this.map, frame.paint?.tiles ?? [], null);
      drawTrails(ctx, this, frame.agents, this.map);
    }
    this.#drawObstacles(frame.obstacles);
    const goalsOf = frame.allGoals ? null : frame.selected; // null: everyone's
    this.#drawTargetPaths(frame.agents, goalsOf);
    this.agentLayer.draw(ctx, this, frame.agents, frame.selected); // bodies, headings, selection
    if (frame.roles && frame.roles.size > 0) this.#drawRoleMarks(frame.agents, frame.roles);
    this.#drawUnreachable(frame.agents);
    this.#drawTargetCrosses(frame.agents, goalsOf);
    // The inspector is a diagnostic layer: over the units it explains, under the transient marks.
    if (frame.traces.length > 0) drawTraces(ctx, this, frame.traces, frame.agents, frame.obstacles);
    this.#drawFlashes(frame.flashes, frame.now);
    ctx.globalAlpha = 1;
    this.#drawOrders(frame.orders, frame.now);
    if (frame.box) this.#drawBox(frame.box);
    if (this.map && frame.paint?.brush) drawPaintPreview(ctx, this, this.map, [], frame.paint.brush);
  }

  // The outline of agent a's role mark on screen ([[x, y], ...]; roles.js), or [] without a role.
  /** @param {Agent} agent @param {string} role @returns {[number, number][]} */
  roleMark(agent, role) {
    const p = this.worldToScreen(agent.x, agent.y);
    const moving = Math.hypot(agent.vx, agent.vy) > 1e-3;
    return markOutline(role, p.x, p.y, this.radiusPx(agent), moving ? Math.atan2(agent.vy, agent.vx) : -Math.PI / 2);
  }

  // Role marks: one path, stroked twice (a dark halo, then the light line) so that it reads over
  // any group colour and over the ground.
  /** @param {Agent[]} agents @param {Map<number, string>} roles */
  #drawRoleMarks(agents, roles) {
    const path = new Path2D();
    for (const a of agents) {
      const role = roles.get(a.id);
      if (!role) continue;
      const pts = this.roleMark(a, role);
      if (pts.length === 0) continue;
      path.moveTo(pts[0][0], pts[0][1]);
      for (let i = 1; i < pts.length; i++) path.lineTo(pts[i][0], pts[i][1]);
      path.closePath();
    }
    const ctx = this.ctx;
    ctx.save();
    ctx.lineJoin = 'round';
    ctx.strokeStyle = THEME.roleHalo;
    ctx.lineWidth = 3.5;
    ctx.stroke(path);
    ctx.strokeStyle = THEME.roleMark;
    ctx.lineWidth = 1.5;
    ctx.stroke(path);
    ctx.restore();
  }

  // Screen geometry of the "!" badge of an agent whose pathing cannot reach its goal: a disc
  // {x, y, r} on its upper right, clear of its body and of the dashed ring around it.
  /** @param {Agent} agent @returns {{x: number, y: number, r: number}} */
  unreachableBadge(agent) {
    const p = this.worldToScreen(agent.x, agent.y);
    const ring = this.radiusPx(agent) + UNREACHABLE_RING_GAP_PX;
    const d = ring + UNREACHABLE_BADGE_PX * 0.6;
    return { x: p.x + d * Math.SQRT1_2, y: p.y - d * Math.SQRT1_2, r: UNREACHABLE_BADGE_PX };
  }

  // A dashed ring round the agent and a "!" badge: "I cannot get there" (state `unreachable`), as
  // a strategy game marks a unit whose order it cannot carry out.
  /** @param {Agent[]} agents */
  #drawUnreachable(agents) {
    const stuck = agents.filter((a) => a.state === 'unreachable');
    if (stuck.length === 0) return;
    const ctx = this.ctx;
    ctx.save();
    const rings = new Path2D();
    for (const a of stuck) {
      const p = this.worldToScreen(a.x, a.y);
      const r = this.radiusPx(a) + UNREACHABLE_RING_GAP_PX;
      rings.moveTo(p.x + r, p.y);
      rings.arc(p.x, p.y, r, 0, 2 * Math.PI);
    }
    ctx.strokeStyle = THEME.unreachable;
    ctx.lineWidth = 1.5;
    ctx.setLineDash([3, 3]);
    ctx.stroke(rings);
    ctx.setLineDash([]);
    ctx.font = `bold ${Math.round(UNREACHABLE_BADGE_PX * 1.5)}px ui-sans-serif, "DejaVu Sans", sans-serif`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (const a of stuck) {
      const b = this.unreachableBadge(a);
      ctx.beginPath();
      ctx.arc(b.x, b.y, b.r, 0, 2 * Math.PI);
      ctx.fillStyle = THEME.unreachable;
      ctx.fill();
      ctx.fillStyle = THEME.unreachableInk;
      ctx.fillText('!', b.x, b.y + 0.5);
    }
    ctx.restore();
  }

  // Screen geometry of a collision flash at time `now`, or null once it has faded: a ring that
  // grows from a dot to a size that says, a little, how hard the hit was.
  /** @param {Flash} f @param {number} now @returns {{x: number, y: number, r: number, alpha: number} | null} */
  flashRing(f, now) {
    const age = (now - f.at) / FLASH_MS;
    if (age < 0 || age >= 1) return null;
    const p = this.worldToScreen(f.x, f.y);
    // log2 so a hit ten times harder is only a few pixels larger: size hints, it does not measure.
    const full = Math.min(28, 7 + 4 * Math.log2(1 + Math.max(0, f.impulse) / 40));
    return { x: p.x, y: p.y, r: 2 + (full - 2) * Math.sqrt(age), alpha: 1 - age };
  }

  // The rim is stroked inside the disc, so the obstacle's outer edge is exactly its radius.
  /** @param {Obstacle[]} obstacles */
  #drawObstacles(obstacles) {
    if (obstacles.length === 0) return;
    const ctx = this.ctx;
    const discs = new Path2D();
    const rims = [];
    for (const o of obstacles) {
      const p = this.worldToScreen(o.x, o.y);
      const r = Math.max(MIN_OBSTACLE_PX, o.r * this.scale);
      discs.moveTo(p.x + r, p.y);
      discs.arc(p.x, p.y, r, 0, 2 * Math.PI);
      rims.push({ p, r });
    }
    ctx.fillStyle = THEME.obstacle;
    ctx.fill(discs);
    ctx.strokeStyle = THEME.obstacleRim;
    for (const { p, r } of rims) {
      const w = obstacleRimPx(r);
      if (r <= w) continue; // too small for a rim: the disc alone
      ctx.beginPath();
      ctx.arc(p.x, p.y, r - w / 2, 0, 2 * Math.PI);
      ctx.lineWidth = w;
      ctx.stroke();
    }
  }

  /** @param {Flash[]} flashes @param {number} now */
  #drawFlashes(flashes, now) {
    const ctx = this.ctx;
    const alpha = ctx.globalAlpha;
    for (const f of flashes) {
      const ring = this.flashRing(f, now);
      if (!ring) continue;
      ctx.globalAlpha = alpha * ring.alpha;
      ctx.beginPath();
      ctx.arc(ring.x, ring.y, ring.r, 0, 2 * Math.PI);
      ctx.strokeStyle = THEME.flash;
      ctx.lineWidth = 2;
      ctx.stroke();
      // Seed 003 marks the collision point itself with a dot.
      ctx.fillStyle = THEME.flash;
      ctx.fillRect(ring.x - 1.5, ring.y - 1.5, 3, 3);
    }
    ctx.globalAlpha = alpha;
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

  // For selected agents with a target (every agent's when `selected` is null: key E): a faint
  // dashed path to it, under the agents, and a small cross on it, over them, so an agent standing
  // on its target does not hide the mark.
  /** @param {Agent[]} agents @param {Set<number> | null} selected */
  #drawTargetPaths(agents, selected) {
    const ctx = this.ctx;
    const paths = new Path2D();
    this.#forEachTarget(agents, selected, (p, t) => {
      paths.moveTo(p.x, p.y);
      paths.lineTo(t.x, t.y);
    });
    ctx.save();
    ctx.strokeStyle = THEME.target;
    ctx.globalAlpha *= 0.25;
    ctx.setLineDash([4, 4]);
    ctx.lineWidth = 1;
    ctx.stroke(paths);
    ctx.restore();
  }

  /** @param {Agent[]} agents @param {Set<number> | null} selected */
  #drawTargetCrosses(agents, selected) {
    const crosses = new Path2D();
    const arm = 5;
    this.#forEachTarget(agents, selected, (p, t) => {
      crosses.moveTo(t.x - arm, t.y - arm);
      crosses.lineTo(t.x + arm, t.y + arm);
      crosses.moveTo(t.x + arm, t.y - arm);
      crosses.lineTo(t.x - arm, t.y + arm);
    });
    this.ctx.strokeStyle = THEME.target;
    this.ctx.lineWidth = 1.5;
    this.ctx.stroke(crosses);
  }

  // fn(agentScreenPoint, targetScreenPoint) for each selected agent (each agent when `selected`
  // is null) that has a target.
  /** @param {Agent[]} agents @param {Set<number> | null} selected @param {(p: Point, t: Point) => void} fn */
  #forEachTarget(agents, selected, fn) {
    if (selected && selected.size === 0) return;
    for (const a of agents) {
      if ((selected && !selected.has(a.id)) || a.tx === undefined || a.ty === undefined) continue;
      fn(this.worldToScreen(a.x, a.y), this.worldToScreen(a.tx, a.ty));
    }
  }

  // The rubber band of a box selection, in CSS pixels.
  /** @param {SelectionBox} b */
  #drawBox(b) {
    const ctx = this.ctx;
    const x = Math.min(b.x0, b.x1);
    const y = Math.min(b.y0, b.y1);
    const w = Math.abs(b.x1 - b.x0);
    const h = Math.abs(b.y1 - b.y0);
    ctx.save();
    ctx.globalAlpha = 0.12;
    ctx.fillStyle = THEME.selection;
    ctx.fillRect(x, y, w, h);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = THEME.selection;
    ctx.lineWidth = 1;
    ctx.strokeRect(x + 0.5, y + 0.5, w, h);
    ctx.restore();
  }

  // A ring that grows and fades where a move order was given: immediate feedback for the click,
  // before the server's next snapshot shows the agents turning.
  /** @param {Order[]} orders @param {number} now */
  #drawOrders(orders, now) {
    const ctx = this.ctx;
    for (const o of orders) {
      const age = (now - o.at) / ORDER_MARKER_MS;
      if (age < 0 || age >= 1) continue;
      const p = this.worldToScreen(o.x, o.y);
      ctx.beginPath();
      ctx.arc(p.x, p.y, 4 + 10 * age, 0, 2 * Math.PI);
      ctx.strokeStyle = THEME.order;
      ctx.globalAlpha = 1 - age;
      ctx.lineWidth = 1.5;
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
  }
}

// Rim width in CSS pixels for an obstacle of radius r pixels: in proportion, within [1.5, 4].
/** @param {number} r @returns {number} */
function obstacleRimPx(r) {
  return Math.min(4, Math.max(1.5, r * 0.12));
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
