// @ts-check
// The marks the view draws round the agents, in CSS pixels at the view's camera: sources and exits, obstacles, the
// paths to goals and the crosses on them, the routes of queued orders and patrols, role marks, the ring and badge of an agent that cannot
// reach its goal, collision flashes, move-order rings and the rubber band of a box selection.
// View.draw (view.js) calls them in its order; the geometry of a role mark, a badge and a flash
// is also View's to answer (window.herd asks it: debug_api.js).

import { THEME } from './theme.js';
import { markOutline } from './roles.js';
import { queuedRoute } from './orders.js';
import { STALL_LETTERS } from './stalls.js';

/** @import { Agent, Exit, Obstacle, Point, Source, Wall } from '../js/src/protocol.js' */
/** @import { SelectionBox } from './input.js' */
/** @import { View } from './view.js' */

/** @typedef {{x: number, y: number, impulse: number, at: number}} Flash a collision shown since `at` (page ms) */
/**
 * An order given at `at` (page ms): a move, or an attack-move (its ring in the attack colour).
 * @typedef {{x: number, y: number, at: number, kind?: 'move' | 'attack'}} Order
 */

const MIN_OBSTACLE_PX = 2;
export const ORDER_MARKER_MS = 600; // how long a move-order ring takes to fade
export const FLASH_MS = 500; // how long a collision's ring takes to grow and fade
const UNREACHABLE_RING_GAP_PX = 5; // the dashed ring, outside the selection ring (3 px)
const UNREACHABLE_BADGE_PX = 6; // radius of the "!" disc
export const ROUTE_DOT_PX = 2.5; // radius of the dot on each point of a queued route

// The outline of agent a's role mark on screen ([[x, y], ...]; roles.js), or [] without a role.
/** @param {View} view @param {Agent} agent @param {string} role @returns {[number, number][]} */
export function roleMark(view, agent, role) {
  const p = view.worldToScreen(agent.x, agent.y);
  const moving = Math.hypot(agent.vx, agent.vy) > 1e-3;
  return markOutline(role, p.x, p.y, view.radiusPx(agent), moving ? Math.atan2(agent.vy, agent.vx) : -Math.PI / 2);
}

// Role marks: one path, stroked twice (a dark halo, then the light line) so that it reads over
// any group colour and over the ground.
/** @param {CanvasRenderingContext2D} ctx @param {View} view @param {Agent[]} agents @param {Map<number, string>} roles */
export function drawRoleMarks(ctx, view, agents, roles) {
  const path = new Path2D();
  for (const a of agents) {
    const role = roles.get(a.id);
    if (!role) continue;
    const pts = roleMark(view, a, role);
    if (pts.length === 0) continue;
    path.moveTo(pts[0][0], pts[0][1]);
    for (let i = 1; i < pts.length; i++) path.lineTo(pts[i][0], pts[i][1]);
    path.closePath();
  }
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
/** @param {View} view @param {Agent} agent @returns {{x: number, y: number, r: number}} */
export function unreachableBadge(view, agent) {
  const p = view.worldToScreen(agent.x, agent.y);
  const ring = view.radiusPx(agent) + UNREACHABLE_RING_GAP_PX;
  const d = ring + UNREACHABLE_BADGE_PX * 0.6;
  return { x: p.x + d * Math.SQRT1_2, y: p.y - d * Math.SQRT1_2, r: UNREACHABLE_BADGE_PX };
}

// A dashed ring round the agent and a "!" badge: "I cannot get there" (state `unreachable`), as
// a strategy game marks a unit whose order it cannot carry out.
/** @param {CanvasRenderingContext2D} ctx @param {View} view @param {Agent[]} agents */
export function drawUnreachable(ctx, view, agents) {
  const stuck = agents.filter((a) => a.state === 'unreachable');
  if (stuck.length === 0) return;
  ctx.save();
  const rings = new Path2D();
  for (const a of stuck) {
    const p = view.worldToScreen(a.x, a.y);
    const r = view.radiusPx(a) + UNREACHABLE_RING_GAP_PX;
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
    const b = unreachableBadge(view, a);
    ctx.beginPath();
    ctx.arc(b.x, b.y, b.r, 0, 2 * Math.PI);
    ctx.fillStyle = THEME.unreachable;
    ctx.fill();
    ctx.fillStyle = THEME.unreachableInk;
    ctx.fillText('!', b.x, b.y + 0.5);
  }
  ctx.restore();
}

// Screen geometry of the badge of a stalled agent (stalls.js): a disc {x, y, r} on its upper
// left, clear of its body (the unreachable badge takes the upper right).
/** @param {View} view @param {Agent} agent @returns {{x: number, y: number, r: number}} */
export function stallBadge(view, agent) {
  const p = view.worldToScreen(agent.x, agent.y);
  const d = view.radiusPx(agent) + UNREACHABLE_RING_GAP_PX + UNREACHABLE_BADGE_PX * 0.6;
  return { x: p.x - d * Math.SQRT1_2, y: p.y - d * Math.SQRT1_2, r: UNREACHABLE_BADGE_PX };
}

// A badge on every stalled agent with its reason's letter (stalls.js); an unreachable one has the
// "!" badge already. Hovering over the agent says the reason in words (input.js).
/** @param {CanvasRenderingContext2D} ctx @param {View} view @param {Agent[]} agents */
export function drawStalls(ctx, view, agents) {
  const stalled = agents.filter((a) => a.stall && a.stall !== 'unreachable');
  if (stalled.length === 0) return;
  ctx.save();
  ctx.font = `bold ${Math.round(UNREACHABLE_BADGE_PX * 1.3)}px ui-sans-serif, "DejaVu Sans", sans-serif`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  for (const a of stalled) {
    const b = stallBadge(view, a);
    ctx.beginPath();
    ctx.arc(b.x, b.y, b.r, 0, 2 * Math.PI);
    ctx.fillStyle = THEME.stalled;
    ctx.fill();
    ctx.fillStyle = THEME.stalledInk;
    ctx.fillText(STALL_LETTERS[a.stall ?? ''] ?? '?', b.x, b.y + 0.5);
  }
  ctx.restore();
}

// Screen geometry of a collision flash at time `now`, or null once it has faded: a ring that
// grows from a dot to a size that says, a little, how hard the hit was.
/** @param {View} view @param {Flash} f @param {number} now @returns {{x: number, y: number, r: number, alpha: number} | null} */
export function flashRing(view, f, now) {
  const age = (now - f.at) / FLASH_MS;
  if (age < 0 || age >= 1) return null;
  const p = view.worldToScreen(f.x, f.y);
  // log2 so a hit ten times harder is only a few pixels larger: size hints, it does not measure.
  const full = Math.min(28, 7 + 4 * Math.log2(1 + Math.max(0, f.impulse) / 40));
  return { x: p.x, y: p.y, r: 2 + (full - 2) * Math.sqrt(age), alpha: 1 - age };
}

/**
 * A source's or exit's label as drawn: its text at (x, y), the top left of its area on screen
 * (CSS pixels).
 * @typedef {{kind: 'source' | 'exit', id: number, text: string, x: number, y: number}} AreaLabel
 */

const AREA_LABEL_PX = 11; // the labels' font size
const AREA_DASH_PX = [6, 4]; // a source's dashed outline

// A source's label: its id and what it has made of its total ("source 1: 40/100"); an exit's,
// what it has removed ("exit 2: 31 out").
/** @param {Source} s @returns {string} */
export const sourceLabel = (s) => `source ${s.id}: ${s.spawned}/${s.total}`;
/** @param {Exit} e @returns {string} */
export const exitLabel = (e) => `exit ${e.id}: ${e.removed} out`;

// Sources and exits: each area faintly filled and outlined (a source dashed, an exit solid), its
// label inside its top left corner. On the ground, under the obstacles and the agents. Returns
// the labels drawn.
/** @param {CanvasRenderingContext2D} ctx @param {View} view @param {Source[]} sources @param {Exit[]} exits @returns {AreaLabel[]} */
export function drawSourcesAndExits(ctx, view, sources, exits) {
  /** @type {AreaLabel[]} */
  const labels = [];
  if (sources.length === 0 && exits.length === 0) return labels;
  /** @type {{kind: 'source' | 'exit', id: number, area: {x: number, y: number, width: number, height: number}, text: string}[]} */
  const all = [
    ...sources.map((s) => ({ kind: /** @type {const} */ ('source'), id: s.id, area: s.area, text: sourceLabel(s) })),
    ...exits.map((e) => ({ kind: /** @type {const} */ ('exit'), id: e.id, area: e.area, text: exitLabel(e) })),
  ];
  ctx.save();
  ctx.lineWidth = 1.5;
  ctx.font = `${AREA_LABEL_PX}px system-ui, sans-serif`;
  ctx.textBaseline = 'top';
  for (const a of all) {
    const tl = view.worldToScreen(a.area.x, a.area.y);
    const w = a.area.width * view.scale;
    const h = a.area.height * view.scale;
    const source = a.kind === 'source';
    ctx.fillStyle = source ? THEME.sourceFill : THEME.exitFill;
    ctx.fillRect(tl.x, tl.y, w, h);
    ctx.setLineDash(source ? AREA_DASH_PX : []);
    ctx.strokeStyle = source ? THEME.source : THEME.exit;
    ctx.strokeRect(tl.x, tl.y, w, h);
    const at = { x: tl.x + 3, y: tl.y + 3 };
    ctx.fillStyle = ctx.strokeStyle;
    ctx.fillText(a.text, at.x, at.y);
    labels.push({ kind: a.kind, id: a.id, text: a.text, ...at });
  }
  ctx.restore();
  return labels;
}

// Walls (add_wall) have no thickness; each is drawn as a line of the obstacles' stone this many
// CSS pixels wide on a rim of their darker edge, whatever the zoom, so a thin wall is never lost.
export const WALL_PX = 3;
const WALL_RIM_PX = 2; // more on each side

/** @param {CanvasRenderingContext2D} ctx @param {View} view @param {Wall[]} walls */
export function drawWalls(ctx, view, walls) {
  if (walls.length === 0) return;
  const lines = new Path2D();
  for (const w of walls) {
    if (w.points.length < 2) continue;
    const first = view.worldToScreen(w.points[0].x, w.points[0].y);
    lines.moveTo(first.x, first.y);
    for (const q of w.points.slice(1)) {
      const p = view.worldToScreen(q.x, q.y);
      lines.lineTo(p.x, p.y);
    }
    if (w.closed) lines.closePath();
  }
  ctx.save();
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  ctx.strokeStyle = THEME.obstacleRim;
  ctx.lineWidth = WALL_PX + 2 * WALL_RIM_PX;
  ctx.stroke(lines);
  ctx.strokeStyle = THEME.obstacle;
  ctx.lineWidth = WALL_PX;
  ctx.stroke(lines);
  ctx.restore();
}

// The rim is stroked inside the disc, so the obstacle's outer edge is exactly its radius.
/** @param {CanvasRenderingContext2D} ctx @param {View} view @param {Obstacle[]} obstacles */
export function drawObstacles(ctx, view, obstacles) {
  if (obstacles.length === 0) return;
  const discs = new Path2D();
  const rims = [];
  for (const o of obstacles) {
    const p = view.worldToScreen(o.x, o.y);
    const r = Math.max(MIN_OBSTACLE_PX, o.r * view.scale);
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

/** @param {CanvasRenderingContext2D} ctx @param {View} view @param {Flash[]} flashes @param {number} now */
export function drawFlashes(ctx, view, flashes, now) {
  const alpha = ctx.globalAlpha;
  for (const f of flashes) {
    const ring = flashRing(view, f, now);
    if (!ring) continue;
    ctx.globalAlpha = alpha * ring.alpha;
    ctx.beginPath();
    ctx.arc(ring.x, ring.y, ring.r, 0, 2 * Math.PI);
    ctx.strokeStyle = THEME.flash;
    ctx.lineWidth = 2;
    ctx.stroke();
    // "Accidents Do Happen" marks the collision point itself with a dot.
    ctx.fillStyle = THEME.flash;
    ctx.fillRect(ring.x - 1.5, ring.y - 1.5, 3, 3);
  }
  ctx.globalAlpha = alpha;
}

// For selected agents with a target (every agent's when `selected` is null: key E): a faint
// dashed path to it, under the agents, and a small cross on it, over them, so an agent standing
// on its target does not hide the mark.
/** @param {CanvasRenderingContext2D} ctx @param {View} view @param {Agent[]} agents @param {Set<number> | null} selected */
export function drawTargetPaths(ctx, view, agents, selected) {
  const paths = new Path2D();
  forEachTarget(view, agents, selected, (p, t) => {
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

/** @param {CanvasRenderingContext2D} ctx @param {View} view @param {Agent[]} agents @param {Set<number> | null} selected */
export function drawTargetCrosses(ctx, view, agents, selected) {
  const crosses = new Path2D();
  const arm = 5;
  forEachTarget(view, agents, selected, (p, t) => {
    crosses.moveTo(t.x - arm, t.y - arm);
    crosses.lineTo(t.x + arm, t.y + arm);
    crosses.moveTo(t.x + arm, t.y - arm);
    crosses.lineTo(t.x - arm, t.y + arm);
  });
  ctx.strokeStyle = THEME.target;
  ctx.lineWidth = 1.5;
  ctx.stroke(crosses);
}

// The routes of agents that will go on after their goal (queued orders, a patrol's lap: their
// `waypoints`), for the selected ones (everyone's when `selected` is null: key E): a thin line
// from the goal through each point, with a small dot on each, under the agents. Returns each route
// drawn, in screen points from the goal on (window.herd.routes reads them).
/**
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {Agent[]} agents
 * @param {Set<number> | null} selected
 * @returns {{id: number, points: Point[]}[]}
 */
export function drawQueuedRoutes(ctx, view, agents, selected) {
  /** @type {{id: number, points: Point[]}[]} */
  const drawn = [];
  if (selected && selected.size === 0) return drawn;
  const lines = new Path2D();
  const dots = new Path2D();
  for (const a of agents) {
    if (!a.waypoints || a.waypoints.length < 2 || (selected && !selected.has(a.id))) continue;
    const points = queuedRoute(a).map((p) => view.worldToScreen(p.x, p.y));
    lines.moveTo(points[0].x, points[0].y);
    for (let i = 1; i < points.length; i++) {
      const p = points[i];
      lines.lineTo(p.x, p.y);
      dots.moveTo(p.x + ROUTE_DOT_PX, p.y);
      dots.arc(p.x, p.y, ROUTE_DOT_PX, 0, 2 * Math.PI);
    }
    drawn.push({ id: a.id, points });
  }
  if (drawn.length === 0) return drawn;
  ctx.save();
  ctx.strokeStyle = THEME.target;
  ctx.globalAlpha *= 0.4; // fainter than the dots and the goal's cross, above the goal's dashes
  ctx.lineWidth = 1;
  ctx.stroke(lines);
  ctx.restore();
  ctx.fillStyle = THEME.target;
  ctx.fill(dots);
  return drawn;
}

// A patrol's route while it is given (Shift + right-clicks after Q): its points joined in order,
// dashed, in the order rings' white, with a ring on each.
/** @param {CanvasRenderingContext2D} ctx @param {View} view @param {Point[]} route */
export function drawRouteDraft(ctx, view, route) {
  if (route.length === 0) return;
  const points = route.map((p) => view.worldToScreen(p.x, p.y));
  ctx.save();
  ctx.strokeStyle = THEME.order;
  ctx.lineWidth = 1.5;
  ctx.setLineDash([6, 4]);
  ctx.beginPath();
  points.forEach((p, i) => (i === 0 ? ctx.moveTo(p.x, p.y) : ctx.lineTo(p.x, p.y)));
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.beginPath();
  for (const p of points) {
    ctx.moveTo(p.x + 5, p.y);
    ctx.arc(p.x, p.y, 5, 0, 2 * Math.PI);
  }
  ctx.stroke();
  ctx.restore();
}

// fn(agentScreenPoint, targetScreenPoint) for each selected agent (each agent when `selected`
// is null) that has a target.
/**
 * @param {View} view
 * @param {Agent[]} agents
 * @param {Set<number> | null} selected
 * @param {(p: Point, t: Point) => void} fn
 */
function forEachTarget(view, agents, selected, fn) {
  if (selected && selected.size === 0) return;
  for (const a of agents) {
    if ((selected && !selected.has(a.id)) || a.tx === undefined || a.ty === undefined) continue;
    fn(view.worldToScreen(a.x, a.y), view.worldToScreen(a.tx, a.ty));
  }
}

// The rubber band of a box selection, in CSS pixels.
/** @param {CanvasRenderingContext2D} ctx @param {SelectionBox} b */
export function drawBox(ctx, b) {
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

// A ring that grows and fades where a move order was given (an attack-move's in the attack
// colour): immediate feedback for the click, before the server's next snapshot shows the agents
// turning.
/** @param {CanvasRenderingContext2D} ctx @param {View} view @param {Order[]} orders @param {number} now */
export function drawOrders(ctx, view, orders, now) {
  for (const o of orders) {
    const age = (now - o.at) / ORDER_MARKER_MS;
    if (age < 0 || age >= 1) continue;
    const p = view.worldToScreen(o.x, o.y);
    ctx.beginPath();
    ctx.arc(p.x, p.y, 4 + 10 * age, 0, 2 * Math.PI);
    ctx.strokeStyle = o.kind === 'attack' ? THEME.attackOrder : THEME.order;
    ctx.globalAlpha = 1 - age;
    ctx.lineWidth = 1.5;
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
}

// Rim width in CSS pixels for an obstacle of radius r pixels: in proportion, within [1.5, 4].
/** @param {number} r @returns {number} */
function obstacleRimPx(r) {
  return Math.min(4, Math.max(1.5, r * 0.12));
}
