// @ts-check
// The game as the page shows it (PROTOCOL.md, "Health and weapons", "Players, teams and fog of
// war"): which agents are hurt and how full their bars are, the marks hits and deaths leave for a
// while, a player's team's explored ground decoded from its bits, what a ghost's label says, the
// teams' colours a welcome gives, and a late spectator's countdown to its first view. Pure: no DOM
// (tests/web/game.test.mjs runs it in Node).

/** @import { Explored, GameEvent, Ghost } from '../js/src/protocol.js' */

// How long a death's marker stays, fading (ms), and a hit's flash on the agent hit.
export const DEATH_MS = 2000;
export const HIT_MS = 300;

/** @typedef {{type: 'hit' | 'death', agent: number, x: number, y: number, at: number}} EventMark */

// Whether agent a is hurt: it carries hit points under its most. Unhurt agents get no bar.
/** @param {{hp?: number, max_hp?: number}} a @returns {boolean} */
export function isHurt(a) {
  return typeof a.hp === 'number' && typeof a.max_hp === 'number' && a.max_hp > 0 && a.hp < a.max_hp;
}

// The part of a hurt agent's bar that is full, 0 to 1.
/** @param {{hp?: number, max_hp?: number}} a @returns {number} */
export function healthFraction(a) {
  if (!isHurt(a)) return 1;
  return Math.max(0, Math.min(1, /** @type {number} */ (a.hp) / /** @type {number} */ (a.max_hp)));
}

// The marks a snapshot's events leave, stamped with the page's time `now` (ms), added to `marks`,
// less those that have faded by then.
/** @param {EventMark[]} marks @param {readonly GameEvent[] | undefined} events @param {number} now @returns {EventMark[]} */
export function addEventMarks(marks, events, now) {
  const kept = marks.filter((m) => now - m.at < (m.type === 'death' ? DEATH_MS : HIT_MS));
  for (const e of events ?? []) {
    if (e.type !== 'hit' && e.type !== 'death') continue;
    kept.push({ type: e.type, agent: e.agent, x: e.x, y: e.y, at: now });
  }
  return kept;
}

// How opaque a mark is at `now`: 1 when made, falling to 0 when it has faded; 0 after.
/** @param {EventMark} m @param {number} now @returns {number} */
export function markAlpha(m, now) {
  const life = m.type === 'death' ? DEATH_MS : HIT_MS;
  const age = now - m.at;
  if (age < 0) return 1;
  return age >= life ? 0 : 1 - age / life;
}

/** @typedef {{cell: number, cols: number, rows: number, bits: Uint8Array}} ExploredGrid */

// A snapshot's `explored`, its base64 bits decoded; null when it does not hold together.
/** @param {Explored | undefined | null} e @returns {ExploredGrid | null} */
export function decodeExplored(e) {
  if (!e || !(e.cell > 0) || !(e.cols > 0) || !(e.rows > 0) || typeof e.bits !== 'string') return null;
  let raw;
  try {
    raw = atob(e.bits);
  } catch {
    return null;
  }
  const bits = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bits[i] = raw.charCodeAt(i);
  return { cell: e.cell, cols: e.cols, rows: e.rows, bits };
}

// Whether world point (x, y) lies in a cell the team has explored.
/** @param {ExploredGrid} g @param {number} x @param {number} y @returns {boolean} */
export function exploredAt(g, x, y) {
  const c = Math.floor(x / g.cell);
  const r = Math.floor(y / g.cell);
  if (c < 0 || r < 0 || c >= g.cols || r >= g.rows) return false;
  const i = r * g.cols + c;
  return ((g.bits[i >> 3] ?? 0) >> (i & 7)) & 1 ? true : false;
}

// What a ghost's label says at world time `time` (seconds): 'last seen 12 s ago'.
/** @param {Ghost} g @param {number} time @returns {string} */
export function ghostLabel(g, time) {
  return `last seen ${Math.max(0, Math.round(time - g.time))} s ago`;
}

// The ghost under world point (x, y) (within its disc, or `slack` units of it), or null.
/** @param {readonly Ghost[]} ghosts @param {number} x @param {number} y @param {number} slack @returns {Ghost | null} */
export function ghostAt(ghosts, x, y, slack) {
  for (const g of ghosts) {
    const reach = g.r + slack;
    if ((g.x - x) ** 2 + (g.y - y) ** 2 <= reach * reach) return g;
  }
  return null;
}

// The teams' colours a welcome gives ({team, colour: '#rrggbb'}), by team; others are left out.
/** @param {readonly {team: number, colour: string}[] | undefined} teams @returns {Map<number, string>} */
export function teamColours(teams) {
  /** @type {Map<number, string>} */
  const out = new Map();
  for (const t of teams ?? []) {
    if (typeof t.team === 'number' && typeof t.colour === 'string' && /^#[0-9a-fA-F]{6}$/.test(t.colour)) out.set(t.team, t.colour);
  }
  return out;
}

// A late spectator's line until its first snapshot: the world it will show and when, counting
// down from the welcome's `delay` by the seconds `elapsed` since (never below 0).
/** @param {number} delay @param {number} elapsed @returns {string} */
export function delayLine(delay, elapsed) {
  const left = Math.max(0, Math.ceil(delay - elapsed));
  return `the world as it was ${Math.round(delay)} s ago: first view in ${left} s`;
}

// The agents hit within the last HIT_MS at `now`, by id: how white their flash is (0 to 1).
/** @param {readonly EventMark[]} marks @param {number} now @returns {Map<number, number>} */
export function hitFlashes(marks, now) {
  /** @type {Map<number, number>} */
  const out = new Map();
  for (const m of marks) {
    if (m.type !== 'hit') continue;
    const a = markAlpha(m, now);
    if (a > (out.get(m.agent) ?? 0)) out.set(m.agent, a);
  }
  return out;
}

