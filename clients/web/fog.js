// @ts-check
// Teams and fog of war, as the page works them out (PROTOCOL.md, "Players, teams and fog of
// war"): which agents a team sees, the discs of sight its fog is cleared by, and the teams a
// snapshot holds. A team sees its own agents and every agent within the sight of one of them,
// centre to centre, distance <= sight (an agent's `sight`, else the world's default of 200), as
// the server decides what a player receives: a spectator's page shows a team's view from the
// whole world's snapshot with it. Pure: no DOM (tests/web/fog.test.mjs runs it in Node against a
// count of every pair).

/** @import { Agent } from '../js/src/protocol.js' */

/** @typedef {{x: number, y: number, r: number}} Disc a circle in world units */
/** @typedef {{x0: number, y0: number, x1: number, y1: number}} Rect world units, x0 <= x1, y0 <= y1 */

// An agent's sight when its snapshot gives none (JSON leaves the world's default out; binary
// frames carry no sight at all).
export const DEFAULT_SIGHT = 200;

// Cells of the grid the watchers are binned in are never smaller than this (world units): agents
// of sight 0 would otherwise make one cell per agent.
const MIN_CELL = 16;
// Cell coordinates packed into one number, exactly (within 2^26 cells either way of 0).
const CELL_SPAN = 2 ** 26;

/** @param {{sight?: number}} a @returns {number} */
export function sightOf(a) {
  return a.sight ?? DEFAULT_SIGHT;
}

// An agent's team: 0 (nobody's) where the snapshot gives none.
/** @param {{team?: number}} a @returns {number} */
export function teamOf(a) {
  return a.team ?? 0;
}

// Whether the agents are drawn by team rather than by group: some agent belongs to a team. (A
// server with players gives every agent its `team`, 0 too; a world where every team is 0 keeps
// its group colours.)
/** @param {readonly {team?: number}[]} agents @returns {boolean} */
export function coloursByTeam(agents) {
  for (const a of agents) if (a.team) return true;
  return false;
}

// Whether the agents say which team each is in: some agent has a `team` (a JSON snapshot on a
// server with players: all of them; a binary frame's only when not 0). Without it a player's own
// agents cannot be told from the others, and its fog is not drawn rather than drawn wrong.
/** @param {readonly {team?: number}[]} agents @returns {boolean} */
export function knowsTeams(agents) {
  for (const a of agents) if (a.team !== undefined) return true;
  return false;
}

// The teams (1 and up) of the agents, in increasing order: the team views a spectator can pick.
/** @param {readonly {team?: number}[]} agents @returns {number[]} */
export function teamsPresent(agents) {
  const seen = new Set();
  for (const a of agents) if (a.team) seen.add(a.team);
  return [...seen].sort((p, q) => p - q);
}

// The ids of the agents team `team` sees. The team's agents (the watchers) are binned in a
// uniform grid, each in every cell its disc of sight's bounding box meets; an agent is seen when
// it is the team's or within the sight of a watcher binned in its own cell. The cell is the
// watchers' largest sight (at least MIN_CELL), so a watcher lands in at most 9 cells:
// O(agents + watchers) for a crowd spread out, where testing every pair would be their product.
/** @param {readonly Agent[]} agents @param {number} team @returns {Set<number>} */
export function seenBy(agents, team) {
  /** @type {Set<number>} */
  const seen = new Set();
  /** @type {Agent[]} */
  const watchers = [];
  let maxSight = 0;
  for (const a of agents) {
    if (teamOf(a) !== team) continue;
    watchers.push(a);
    seen.add(a.id);
    maxSight = Math.max(maxSight, sightOf(a));
  }
  if (watchers.length === 0) return seen;
  const cell = Math.max(MIN_CELL, maxSight);
  /** @type {Map<number, Agent[]>} */
  const grid = new Map();
  for (const w of watchers) {
    const s = sightOf(w);
    const cx0 = Math.floor((w.x - s) / cell);
    const cx1 = Math.floor((w.x + s) / cell);
    const cy0 = Math.floor((w.y - s) / cell);
    const cy1 = Math.floor((w.y + s) / cell);
    for (let cy = cy0; cy <= cy1; cy++) {
      for (let cx = cx0; cx <= cx1; cx++) {
        const key = cellKey(cx, cy);
        const list = grid.get(key);
        if (list) list.push(w);
        else grid.set(key, [w]);
      }
    }
  }
  for (const a of agents) {
    if (seen.has(a.id)) continue;
    const list = grid.get(cellKey(Math.floor(a.x / cell), Math.floor(a.y / cell)));
    if (!list) continue;
    for (const w of list) {
      const dx = a.x - w.x;
      const dy = a.y - w.y;
      const s = sightOf(w);
      if (dx * dx + dy * dy <= s * s) {
        seen.add(a.id);
        break;
      }
    }
  }
  return seen;
}

/** @param {number} cx @param {number} cy @returns {number} */
function cellKey(cx, cy) {
  return (cx + CELL_SPAN) * 2 * CELL_SPAN + (cy + CELL_SPAN);
}

// The discs of sight of team `team`'s agents that meet `rect` (the camera's part of the world):
// the fog is cleared inside them, and a disc off screen costs nothing to draw.
/** @param {readonly Agent[]} agents @param {number} team @param {Rect} rect @returns {Disc[]} */
export function fogDiscs(agents, team, rect) {
  /** @type {Disc[]} */
  const discs = [];
  for (const a of agents) {
    if (teamOf(a) !== team) continue;
    const r = sightOf(a);
    if (!(r > 0)) continue;
    if (a.x + r < rect.x0 || a.x - r > rect.x1 || a.y + r < rect.y0 || a.y - r > rect.y1) continue;
    discs.push({ x: a.x, y: a.y, r });
  }
  return discs;
}

// Marks the pixels of a w x h mask (row by row, 1 byte a pixel) whose centres (x + 0.5, y + 0.5)
// lie within one of `discs` (in the mask's pixels; distance <= r) with 1, row span by row span:
// the cost is the discs' area, however many overlap, and no pixel outside them is touched.
/** @param {Uint8Array} mask @param {number} w @param {number} h @param {readonly Disc[]} discs */
export function markDiscs(mask, w, h, discs) {
  for (const d of discs) {
    const cx = d.x - 0.5; // pixel x's centre is within the disc when (x - cx)^2 + dy^2 <= r^2
    const rr = d.r * d.r;
    const ya = Math.max(0, Math.ceil(d.y - d.r - 0.5) - 1); // a row either way for rounding
    const yb = Math.min(h - 1, Math.floor(d.y + d.r - 0.5) + 1);
    for (let y = ya; y <= yb; y++) {
      const dy = y + 0.5 - d.y;
      const room = rr - dy * dy;
      if (room < 0) continue;
      const half = Math.sqrt(room);
      let xa = Math.ceil(cx - half);
      let xb = Math.floor(cx + half);
      // The square root's rounding settled by the distance itself, as every pair is tested.
      if ((xa - cx) * (xa - cx) > room) xa++;
      else if ((xa - 1 - cx) * (xa - 1 - cx) <= room) xa--;
      if ((xb - cx) * (xb - cx) > room) xb--;
      else if ((xb + 1 - cx) * (xb + 1 - cx) <= room) xb++;
      if (xa < 0) xa = 0;
      if (xb > w - 1) xb = w - 1;
      // A plain loop: most spans are a few dozen bytes, shorter than a call to fill() is worth.
      for (let i = y * w + xa, end = y * w + xb; i <= end; i++) mask[i] = 1;
    }
  }
}

// The next team view after `current` (null: the whole world) in the cycle whole world, then each
// team of `teams` in order, then the whole world again. A team no longer present goes on to the
// next one present after it.
/** @param {number | null} current @param {readonly number[]} teams @returns {number | null} */
export function nextTeamView(current, teams) {
  if (current === null) return teams.length > 0 ? teams[0] : null;
  const after = teams.find((t) => t > current);
  return after ?? null;
}
