// @ts-check
// Roles, read from what the agents do (a snapshot's `behaviour`, `phase` and `subject`, the other
// agent a behaviour names), so that a hunter and its prey, a guard or a leader stand out at a
// glance whatever their group colour. Pure: no DOM (web_modules.test.mjs runs it in Node).
//
//   hunter  pursue, or attack until done (pursuit with intercept, the attack action)
//   guard   react: chases (or flees) an intruder near its post (switching on distance)
//   prey    flee or evade; or the subject of a hunter or guard
//   leader  the subject of others' seek or arrive: they follow it
//
// An agent's own behaviour decides first; being hunted or followed only marks an agent that has
// no role of its own. Binary snapshots carry no behaviours (PROTOCOL.md): there, nobody has one.

/** @import { Agent } from '../js/src/protocol.js' */

export const ROLES = ['hunter', 'prey', 'guard', 'leader'];

// The role an agent's own behaviour gives it, or undefined.
/** @param {Agent} a @returns {string | undefined} */
export function ownRole(a) {
  switch (a.behaviour) {
    case 'pursue':
      return 'hunter';
    case 'attack':
      return a.phase === 'done' ? undefined : 'hunter';
    case 'react':
      return 'guard';
    case 'flee':
    case 'evade':
      return 'prey';
    default:
      return undefined;
  }
}

// Map of agent id -> role for the agents that have one.
/** @param {Agent[]} agents @returns {Map<number, string>} */
export function agentRoles(agents) {
  /** @type {Map<number, string>} */
  const roles = new Map();
  /** @type {number[]} */
  const hunted = [];
  /** @type {number[]} */
  const followed = [];
  for (const a of agents) {
    const own = ownRole(a);
    if (own) roles.set(a.id, own);
    if (a.subject === undefined) continue;
    if (own === 'hunter' || own === 'guard') hunted.push(a.subject);
    else if (a.behaviour === 'seek' || a.behaviour === 'arrive') followed.push(a.subject);
  }
  for (const id of hunted) if (!roles.has(id)) roles.set(id, 'prey');
  for (const id of followed) if (!roles.has(id)) roles.set(id, 'leader');
  return roles;
}

// The outline of a role's mark round an agent drawn at screen point (x, y) with radius r (CSS
// pixels), heading `angle` (radians, y down), as a closed polygon [[x, y], ...]: a triangle pointing
// where a hunter goes, a diamond for prey, a square for a guard, a five-pointed star for a leader.
// Every outline keeps MARK_GAP_PX clear of the body (its nearest points are that far out), so the
// mark and its halo never cover the group colour.
export const MARK_GAP_PX = 3;
/**
 * @param {string} role
 * @param {number} x
 * @param {number} y
 * @param {number} r
 * @param {number} [angle]
 * @returns {[number, number][]}
 */
export function markOutline(role, x, y, r, angle = -Math.PI / 2) {
  const rho = r + MARK_GAP_PX; // the outline's inner reach
  /** @type {(rad: number, a: number) => [number, number]} */
  const at = (rad, a) => [x + rad * Math.cos(a), y + rad * Math.sin(a)];
  switch (role) {
    case 'hunter': // equilateral: its sides are rho from the centre, its corners 2 rho
      return [0, 1, 2].map((k) => at(2 * rho, angle + (k * 2 * Math.PI) / 3));
    case 'prey':
      return [0, 1, 2, 3].map((k) => at(rho * Math.SQRT2, (k * Math.PI) / 2));
    case 'guard':
      return [0, 1, 2, 3].map((k) => at(rho * Math.SQRT2, Math.PI / 4 + (k * Math.PI) / 2));
    case 'leader': {
      const out = [];
      for (let k = 0; k < 10; k++) out.push(at(k % 2 === 0 ? 2 * rho : rho, -Math.PI / 2 + (k * Math.PI) / 5));
      return out;
    }
    default:
      return [];
  }
}
