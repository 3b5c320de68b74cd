// @ts-check
// What the right button orders, as in real-time strategy games: a move (set_target), or the order
// a key armed for the next right-click: A an attack-move (attack_move), Q a patrol (patrol). Shift
// queues: a Shift + right-click move or attack-move goes after the selection's current orders
// (queue), and keeps an armed attack-move armed for the next point; in patrol mode each Shift +
// right-click adds a point to the route instead, and the route is sent by the plain right-click
// that gives its last point, or when Shift is let go.
//
// Several agents keep their shape ("spread": "keep": each goes to the point plus its offset from
// the group's centre), as a squad does in those games; the page says so explicitly, whatever the
// server's default. Pure: no DOM (tests/web/orders.test.mjs runs it in Node).

/** @import { CommandFields, Point } from '../js/src/protocol.js' */

/** @typedef {'attack_move' | 'patrol'} ArmedKind */

/**
 * The order the next right-click gives, armed by its key: `route` the patrol's points given so far
 * with Shift; `used` once a Shift + right-click has sent an attack-move (letting go of Shift then
 * disarms it).
 * @typedef {{kind: ArmedKind, route: Point[], used: boolean}} Armed
 */

/**
 * What a right-click or Shift's release does: the command to send (or null) and the armed order
 * after it (null: none).
 * @typedef {{fields: CommandFields | null, armed: Armed | null}} OrderStep
 */

// The most points a patrol takes (the protocol's limit for `points`): the route is sent when it
// has them.
export const MAX_ROUTE_POINTS = 64;

// What each order is called in the hint line, the toasts and the cursor's title.
/** @type {Readonly<Record<ArmedKind, string>>} */
export const ARMED_NAMES = { attack_move: 'attack-move', patrol: 'patrol' };

/** @param {ArmedKind} kind @returns {Armed} */
export function arm(kind) {
  return { kind, route: [], used: false };
}

// A point to the wire's precision: sub-millimetre digits mean nothing to the world and make logs
// unreadable.
/** @param {Point} p @returns {Point} */
export function roundPoint(p) {
  return { x: Math.round(p.x * 1000) / 1000, y: Math.round(p.y * 1000) / 1000 };
}

// The move of the right button: `agents` to `p`, each keeping its offset; after their current
// orders when `queue`.
/** @param {number[]} agents @param {Point} p @param {boolean} [queue] @returns {CommandFields} */
export function moveFields(agents, p, queue = false) {
  return { cmd: 'set_target', agents, target: roundPoint(p), spread: 'keep', ...(queue ? { queue: true } : {}) };
}

/** @param {number[]} agents @param {Point} p @param {boolean} [queue] @returns {CommandFields} */
export function attackMoveFields(agents, p, queue = false) {
  return { cmd: 'attack_move', agents, target: roundPoint(p), spread: 'keep', ...(queue ? { queue: true } : {}) };
}

// A patrol from where each agent is through `points` (one or more) and back: one point is a
// target, more a route.
/** @param {number[]} agents @param {Point[]} points @returns {CommandFields} */
export function patrolFields(agents, points) {
  const where = points.length === 1 ? { target: roundPoint(points[0]) } : { points: points.map(roundPoint) };
  return { cmd: 'patrol', agents, ...where, spread: 'keep' };
}

// A right-click on the ground at `p` with `agents` selected (none: nothing is sent, and an armed
// order is dropped: it has no one to give it to), `armed` the order armed, `shift` held.
/** @param {Armed | null} armed @param {number[]} agents @param {Point} p @param {boolean} shift @returns {OrderStep} */
export function rightClick(armed, agents, p, shift) {
  if (agents.length === 0) return { fields: null, armed: null };
  if (!armed) return { fields: moveFields(agents, p, shift), armed: null };
  if (armed.kind === 'attack_move') {
    return { fields: attackMoveFields(agents, p, shift), armed: shift ? { ...armed, used: true } : null };
  }
  const route = [...armed.route, p];
  if (shift && route.length < MAX_ROUTE_POINTS) return { fields: null, armed: { ...armed, route } };
  return { fields: patrolFields(agents, route), armed: null };
}

// Shift let go: a patrol route given with Shift is sent, and an attack-move queued with Shift is
// done; an order armed but not yet used stays armed.
/** @param {Armed | null} armed @param {number[]} agents @returns {OrderStep} */
export function shiftReleased(armed, agents) {
  if (!armed) return { fields: null, armed: null };
  if (armed.kind === 'patrol' && armed.route.length > 0) {
    return { fields: agents.length > 0 ? patrolFields(agents, armed.route) : null, armed: null };
  }
  if (armed.kind === 'attack_move' && armed.used) return { fields: null, armed: null };
  return { fields: null, armed };
}

// The points an agent will go to, in order: its goal (tx, ty), then its `waypoints` (queued
// orders; a patrol's rest of the lap). [] without a goal.
/** @param {{tx?: number, ty?: number, waypoints?: number[]}} agent @returns {Point[]} */
export function queuedRoute(agent) {
  if (agent.tx === undefined || agent.ty === undefined) return [];
  const out = [{ x: agent.tx, y: agent.ty }];
  const w = agent.waypoints ?? [];
  for (let i = 0; i + 1 < w.length; i += 2) out.push({ x: w[i], y: w[i + 1] });
  return out;
}
