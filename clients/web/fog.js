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
// The grid has at most this many cells an agent (plus a few): agents spread far apart with a
// small sight get larger cells rather than a grid of mostly empty cells.
const GRID_CELLS_PER_AGENT = 4;

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
// uniform grid over the agents' bounding box, each in every cell its disc of sight's bounding box
// meets (counted, then laid out in one array: no map, no list per cell); an agent is seen when it
// is the team's or within the sight of a watcher binned in its own cell. The cell is the
// watchers' largest sight (at least MIN_CELL; larger when the agents are so spread out that the
// grid would have more than GRID_CELLS_PER_AGENT cells an agent), so a watcher lands in at most 9
// cells: O(agents + watchers) for a crowd spread out, where testing every pair would be their
// product.
/** @param {readonly Agent[]} agents @param {number} team @returns {Set<number>} */
export function seenBy(agents, team) {
  /** @type {Set<number>} */
  const seen = new Set();
  let nw = 0;
  let maxSight = 0;
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const a of agents) {
    if (a.x < minX) minX = a.x;
    if (a.x > maxX) maxX = a.x;
    if (a.y < minY) minY = a.y;
    if (a.y > maxY) maxY = a.y;
    if (teamOf(a) !== team) continue;
    nw++;
    seen.add(a.id);
    maxSight = Math.max(maxSight, sightOf(a));
  }
  if (nw === 0 || nw === agents.length) return seen;
  const wx = new Float64Array(nw);
  const wy = new Float64Array(nw);
  const ws = new Float64Array(nw);
  for (let i = 0, j = 0; i < agents.length; i++) {
    const a = agents[i];
    if (teamOf(a) !== team) continue;
    wx[j] = a.x;
    wy[j] = a.y;
    ws[j] = sightOf(a);
    j++;
  }
  let cell = Math.max(MIN_CELL, maxSight);
  const maxCells = GRID_CELLS_PER_AGENT * agents.length + 64;
  while (((maxX - minX) / cell + 1) * ((maxY - minY) / cell + 1) > maxCells) cell *= 2;
  const cols = Math.floor((maxX - minX) / cell) + 1;
  const rows = Math.floor((maxY - minY) / cell) + 1;
  const cells = cols * rows;
  // Watcher i's cells: its disc's bounding box within the grid (outside it there is no agent).
  const box = new Int32Array(4);
  const span = (/** @type {number} */ i) => {
    box[0] = Math.max(0, Math.floor((wx[i] - ws[i] - minX) / cell));
    box[1] = Math.min(cols - 1, Math.floor((wx[i] + ws[i] - minX) / cell));
    box[2] = Math.max(0, Math.floor((wy[i] - ws[i] - minY) / cell));
    box[3] = Math.min(rows - 1, Math.floor((wy[i] + ws[i] - minY) / cell));
  };
  const start = new Int32Array(cells + 1); // watchers of cell c: items[start[c] .. start[c + 1])
  for (let i = 0; i < nw; i++) {
    span(i);
    for (let cy = box[2]; cy <= box[3]; cy++) for (let cx = box[0]; cx <= box[1]; cx++) start[cy * cols + cx + 1]++;
  }
  for (let c = 0; c < cells; c++) start[c + 1] += start[c];
  const next = start.slice(0, cells);
  const items = new Int32Array(start[cells]);
  for (let i = 0; i < nw; i++) {
    span(i);
    for (let cy = box[2]; cy <= box[3]; cy++) for (let cx = box[0]; cx <= box[1]; cx++) items[next[cy * cols + cx]++] = i;
  }
  for (const a of agents) {
    if (teamOf(a) === team) continue;
    const c = Math.floor((a.y - minY) / cell) * cols + Math.floor((a.x - minX) / cell);
    for (let k = start[c], end = start[c + 1]; k < end; k++) {
      const i = items[k];
      const dx = a.x - wx[i];
      const dy = a.y - wy[i];
      if (dx * dx + dy * dy <= ws[i] * ws[i]) {
        seen.add(a.id);
        break;
      }
    }
  }
  return seen;
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
