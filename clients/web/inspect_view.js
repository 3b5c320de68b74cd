// @ts-check
// "Why it moves": the avoidance write-ups' diagrams drawn live over the agents the inspector
// watches, from the `inspect` traces of the snapshot (protocol/PROTOCOL.md). Every vector starts at
// the agent's centre and is in world axes (y down, as on screen), so it is drawn as given, only
// scaled.
//
// The write-ups' colours: red the raw anti-gravity push of each obstacle, blue the same push turned
// to a side (the side fix), yellow the sum of the weighted raw pushes, green the split fix.
// Ours on top: white the behaviour's desire u (thin) and the direction finally taken (bold arrow),
// dashed the look-ahead segments of the crossing fix.

/** @import { Agent, Obstacle, InspectTrace, Point } from '../js/src/protocol.js' */
/** @import { View } from './view.js' */

export const INSPECT_COLORS = {
  raw: '#ff4040',
  adjusted: '#4070ff', // a deep blue, so it is not mistaken for group 0's cyan
  sumRaw: '#ffff33', // lemon, greener than group 2's amber
  splitFix: '#33ff66',
  desired: '#ffffff',
  final: '#ffffff',
  lookDesired: 'rgba(255, 255, 255, 0.5)',
  lookCurrent: '#9be7ff',
  crossing: '#ff9f1c', // another agent's look-ahead and where it crosses ours
};

// The pushes are unit-less (1 where an obstacle's anti-gravity equals the desire), so a length of
// 1 is drawn as a few agent radii: big enough to read next to the agent, small enough that the
// diagram stays around it. Zoomed far out (wide worlds) the floor keeps it readable. Longer
// vectors (an agent squeezed against an obstacle pushes with 10 or more) are cut at
// VECTOR_MAX_UNITS and end in a bar, so one huge push cannot cover the map.
export const VECTOR_UNIT_RADII = 6;
export const VECTOR_UNIT_MIN_PX = 36;
export const VECTOR_MAX_UNITS = 3;

// The sums are drawn wide and under the pushes, which are narrow: with one obstacle the yellow sum
// lies along its red push (it is the push times its weight), and would hide it if drawn alike.
// So a push over a sum reads as a red line with a yellow edge, and neither disappears.
export const PUSH_PX = 2.5;
export const SUM_PX = 6;
const FINAL_PX = 3.5;
const DESIRED_PX = 1.5;
const LOOK_DASH = [6, 5];
const IGNORED_ALPHA = 0.25; // a chased agent that cannot be caught: shown, but faint
const CROSS_ARM_PX = 4;

// CSS pixels for a vector of length 1 at agent `a`.
/** @param {View} view @param {{r: number}} a @returns {number} */
export function vectorUnitPx(view, a) {
  return Math.max(VECTOR_UNIT_RADII * a.r * view.scale, VECTOR_UNIT_MIN_PX);
}

// traces: the snapshot's inspect entries to draw; agents and obstacles: the snapshot's arrays,
// which are ordered by id.
/**
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {InspectTrace[]} traces
 * @param {Agent[]} agents
 * @param {Obstacle[]} obstacles
 */
export function drawTraces(ctx, view, traces, agents, obstacles) {
  ctx.save();
  ctx.lineCap = 'round';
  for (const t of traces) {
    const a = byId(agents, t.id);
    if (!a) continue; // the trace outlived the agent by a snapshot
    const p = view.worldToScreen(a.x, a.y);
    const unit = vectorUnitPx(view, a);
    drawLookAhead(ctx, view, p, t);
    drawCrossings(ctx, view, t, agents, obstacles);
    drawVector(ctx, p, t.sum_raw, unit, INSPECT_COLORS.sumRaw, SUM_PX);
    drawVector(ctx, p, t.split_fix, unit, INSPECT_COLORS.splitFix, SUM_PX);
    // Per push, red under blue: the blue is what the pipeline goes on with.
    for (const push of t.pushes) {
      const alpha = push.ignored ? IGNORED_ALPHA : 1;
      drawVector(ctx, p, push.raw, unit, INSPECT_COLORS.raw, PUSH_PX, alpha);
      drawVector(ctx, p, push.adjusted, unit, INSPECT_COLORS.adjusted, PUSH_PX, alpha);
    }
    // The bold final under the thin desire: where they part, both show; where nothing pushes,
    // they are one line.
    drawVector(ctx, p, t.final, unit, INSPECT_COLORS.final, FINAL_PX, 1, true);
    drawVector(ctx, p, t.desired, unit, INSPECT_COLORS.desired, DESIRED_PX);
  }
  ctx.restore();
}

// Screen end of vector v drawn from screen point p, and whether it was cut at the maximum; null
// for a zero vector, which draws nothing.
/**
 * @param {Point} p
 * @param {Point} v
 * @param {number} unit
 * @returns {{x: number, y: number, cut: boolean} | null}
 */
export function vectorEnd(p, v, unit) {
  const len = Math.hypot(v.x, v.y);
  if (!(len > 1e-6)) return null;
  const shown = Math.min(len, VECTOR_MAX_UNITS);
  const k = (shown * unit) / len;
  return { x: p.x + v.x * k, y: p.y + v.y * k, cut: len > VECTOR_MAX_UNITS };
}

/**
 * @param {CanvasRenderingContext2D} ctx
 * @param {Point} p
 * @param {Point} v
 * @param {number} unit
 * @param {string} color
 * @param {number} width
 * @param {number} [alpha]
 * @param {boolean} [head]
 */
function drawVector(ctx, p, v, unit, color, width, alpha = 1, head = false) {
  const e = vectorEnd(p, v, unit);
  if (!e) return;
  const base = ctx.globalAlpha;
  ctx.globalAlpha = base * alpha;
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.beginPath();
  ctx.moveTo(p.x, p.y);
  ctx.lineTo(e.x, e.y);
  const dx = e.x - p.x;
  const dy = e.y - p.y;
  const len = Math.hypot(dx, dy);
  if (e.cut) {
    // A bar across the end: "this goes on".
    const nx = (-dy / len) * 5;
    const ny = (dx / len) * 5;
    ctx.moveTo(e.x - nx, e.y - ny);
    ctx.lineTo(e.x + nx, e.y + ny);
  }
  ctx.stroke();
  if (head && len > 4) {
    const s = Math.min(9, len / 2); // arrowhead size, px
    const ux = dx / len;
    const uy = dy / len;
    ctx.fillStyle = color;
    ctx.beginPath();
    ctx.moveTo(e.x + ux * 2, e.y + uy * 2);
    ctx.lineTo(e.x - ux * s - uy * s * 0.55, e.y - uy * s + ux * s * 0.55);
    ctx.lineTo(e.x - ux * s + uy * s * 0.55, e.y - uy * s - ux * s * 0.55);
    ctx.closePath();
    ctx.fill();
  }
  ctx.globalAlpha = base;
}

// The agent's own look-ahead (the crossing fix): where its desire and its velocity would take it.
/** @param {CanvasRenderingContext2D} ctx @param {View} view @param {Point} p @param {InspectTrace} t */
function drawLookAhead(ctx, view, p, t) {
  ctx.setLineDash(LOOK_DASH);
  ctx.lineWidth = 1.5;
  for (const [to, color] of /** @type {[Point | undefined, string][]} */ ([
    [t.desired_path_to, INSPECT_COLORS.lookDesired],
    [t.current_path_to, INSPECT_COLORS.lookCurrent],
  ])) {
    if (!to) continue;
    const q = view.worldToScreen(to.x, to.y);
    ctx.strokeStyle = color;
    ctx.beginPath();
    ctx.moveTo(p.x, p.y);
    ctx.lineTo(q.x, q.y);
    ctx.stroke();
  }
  ctx.setLineDash([]);
}

// The crossing fix's view of each moving obstacle it looked at: the other's look-ahead segment,
// from where that one is, and the point where the two paths cross (ringed when this agent yields
// there).
/**
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {InspectTrace} t
 * @param {Agent[]} agents
 * @param {Obstacle[]} obstacles
 */
function drawCrossings(ctx, view, t, agents, obstacles) {
  ctx.strokeStyle = INSPECT_COLORS.crossing;
  for (const push of t.pushes) {
    const c = push.crossing;
    if (!c) continue;
    const o = byId(push.obstacle ? obstacles : agents, push.id);
    if (o && c.path_to) {
      const from = view.worldToScreen(o.x, o.y);
      const to = view.worldToScreen(c.path_to.x, c.path_to.y);
      ctx.setLineDash(LOOK_DASH);
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.moveTo(from.x, from.y);
      ctx.lineTo(to.x, to.y);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    if (c.point) {
      const q = view.worldToScreen(c.point.x, c.point.y);
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(q.x - CROSS_ARM_PX, q.y - CROSS_ARM_PX);
      ctx.lineTo(q.x + CROSS_ARM_PX, q.y + CROSS_ARM_PX);
      ctx.moveTo(q.x + CROSS_ARM_PX, q.y - CROSS_ARM_PX);
      ctx.lineTo(q.x - CROSS_ARM_PX, q.y + CROSS_ARM_PX);
      if (c.yielded) {
        ctx.moveTo(q.x + CROSS_ARM_PX + 4, q.y);
        ctx.arc(q.x, q.y, CROSS_ARM_PX + 4, 0, 2 * Math.PI);
      }
      ctx.stroke();
    }
  }
}

// Binary search: snapshots list agents and obstacles ordered by id, and there may be thousands.
/**
 * @template {{id: number}} T
 * @param {T[]} list ordered by id
 * @param {number} id
 * @returns {T | null}
 */
export function byId(list, id) {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = list[mid].id;
    if (v === id) return list[mid];
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return null;
}
