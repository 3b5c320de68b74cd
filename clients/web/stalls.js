// @ts-check
// Stalled agents (PROTOCOL.md's `stall`): an agent moving below a tenth of its speed for over 2 s
// carries why, and the agents responsible. The badge's letter for each reason, the sentence the
// hover and the agent panel say, and the status bar's count.

/** @import { Agent } from '../js/src/protocol.js' */

// Each reason's badge letter (the wire's names: PROTOCOL.md, "The stall reasons").
/** @type {Readonly<Record<string, string>>} */
export const STALL_LETTERS = Object.freeze({
  blocked_by_standing: 'S', // standing agents in its way
  pinned: 'P', // pushed from opposite sides, or head on
  oscillating: '~', // back and forth at its goal
  queueing: 'Q', // waiting its turn behind others going its way
  unreachable: '!', // its pathing cannot get there (drawn as the unreachable badge)
  blocked: 'B', // a wall, an obstacle or the edge: no agent to blame
});

// What the reasons mean, in a few words, for the hover and the panel.
/** @type {Readonly<Record<string, string>>} */
const STALL_WORDS = Object.freeze({
  blocked_by_standing: 'blocked by standing agents',
  pinned: 'pinned between pushes',
  oscillating: 'oscillating at its goal',
  queueing: 'queueing behind others going its way',
  unreachable: 'its goal is unreachable',
  blocked: 'blocked (a wall, an obstacle or the edge)',
});

// "stalled 3.2 s: queueing behind others going its way (by 4, 7)", or '' when not stalled.
/** @param {Agent} a @returns {string} */
export function stallText(a) {
  if (!a.stall) return '';
  const words = STALL_WORDS[a.stall] ?? a.stall;
  const by = a.stall_by && a.stall_by.length > 0 ? ` (by ${a.stall_by.join(', ')})` : '';
  return `stalled ${(a.stall_for ?? 0).toFixed(1)} s: ${words}${by}`;
}

// How many of `agents` are stalled.
/** @param {readonly Agent[]} agents @returns {number} */
export function stalledCount(agents) {
  let n = 0;
  for (const a of agents) if (a.stall) n += 1;
  return n;
}
