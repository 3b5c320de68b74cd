// @ts-check
// What the right button orders, as in real-time strategy games: a move (set_target), or the order
// a key armed for the next right-click: A an attack-move (attack_move), Q a patrol (patrol). Shift
// queues: a Shift + right-click move or attack-move goes after the selection's current orders
// (queue), and keeps an armed attack-move armed for the next point; in patrol mode each Shift +
// right-click adds a point to the route instead, and the route is sent by the plain right-click
// that gives its last point, or when Shift is let go.
//
// A right-click on an agent outside the selection orders the selection onto it (agentOrder): an
// enemy is attacked, anyone else followed.
//
// Several agents keep their shape ("spread": "keep": each goes to the point plus its offset from
// the group's centre), as a squad does in those games; the page says so explicitly, whatever the
// server's default. Pure: no DOM (tests/web/orders.test.mjs runs it in Node).

/** @import { Agent, CommandFields, Point } from '../js/src/protocol.js' */

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

// The selected agents a right-click orders: a player's own team's only (the others it may select
// to read about, not command), everyone's elsewhere. selected: the selected agents as the snapshot
// has them; team: the player's team, null on a page that is no player.
/** @param {Agent[]} selected @param {number | null} team @returns {Agent[]} */
export function ownAgents(selected, team) {
  return team === null ? selected : selected.filter((a) => (a.team ?? 0) === team);
}

// Whether `target` is an enemy of the agents `own`: for a player (team not null) an agent of
// another team (nobody's, team 0, included); on a server without players an agent of a group none
// of them is in.
/** @param {Agent} target @param {Agent[]} own @param {number | null} team @returns {boolean} */
export function isEnemy(target, own, team) {
  if (team !== null) return (target.team ?? 0) !== team;
  return !own.some((a) => a.group === target.group);
}

// A right-click on agent `target` with `own` (ownAgents) ordering: the enemy is attacked, anyone
// else followed (set_behaviour naming the agent); null when nothing is to be done that way (no
// agent of one's own, or the target is one of them: the right button then moves to its spot).
// `what` says it in a few words for the page's message line.
/**
 * @param {Agent} target @param {Agent[]} own @param {number | null} team
 * @returns {{fields: CommandFields, what: string, attack: boolean} | null}
 */
export function agentOrder(target, own, team) {
  if (own.length === 0 || own.some((a) => a.id === target.id)) return null;
  const attack = isEnemy(target, own, team);
  const behaviour = attack ? 'attack' : 'follow';
  return {
    fields: { cmd: 'set_behaviour', agents: own.map((a) => a.id), behaviour, agent: target.id },
    what: `${behaviour} agent ${target.id}`,
    attack,
  };
}

// What an order of the right button that is no plain move did, for the page's message line (a
// plain move's ring on the ground says it): '' for a move; a queued move says it waits its turn.
/** @param {CommandFields} fields @returns {string} */
export function orderWords(fields) {
  const n = Array.isArray(fields.agents) ? fields.agents.length : 0;
  const who = `${n} agent${n === 1 ? '' : 's'}`;
  const at = (/** @type {Point} */ p) => `${Math.round(p.x)}, ${Math.round(p.y)}`;
  if (fields.cmd === 'attack_move') return `attack-move: ${who} to ${at(/** @type {Point} */ (fields.target))}`;
  if (fields.cmd === 'patrol') {
    const points = /** @type {Point[] | undefined} */ (fields.points);
    return points ? `patrol: ${who} through ${points.length} points` : `patrol: ${who} to ${at(/** @type {Point} */ (fields.target))} and back`;
  }
  if (fields.cmd === 'set_target' && fields.queue) return `queued: ${who} to ${at(/** @type {Point} */ (fields.target))} after their orders`;
  return '';
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
