// @ts-check
// The game's marks on the canvas (game.js decides them): a player's ghosts, faint dashed outlines
// in the enemy team's colour where its team last saw them (over the fog, under the agents); over
// the agents, a white flash on each agent just hit, a hit-point bar above each hurt one, and a
// cross where an agent died, fading over DEATH_MS.

import { THEME, teamColor } from './theme.js';
import { healthFraction, isHurt, markAlpha, hitFlashes } from './game.js';

/** @import { Agent, Ghost } from '../js/src/protocol.js' */
/** @import { View } from './view.js' */
/** @import { EventMark } from './game.js' */

// A bar's height and its gap above the agent's body, CSS pixels; its width is the body's, at
// least MIN_BAR_PX.
const BAR_PX = 4;
const BAR_GAP_PX = 3;
const MIN_BAR_PX = 16;
const DEATH_ARM_PX = 7;

// Screen geometry of agent a's hit-point bar: {x, y, w, h} of the whole bar, and `full`, the width
// of its full part. The caller checks isHurt first.
/** @param {View} view @param {Agent} a @returns {{x: number, y: number, w: number, h: number, full: number}} */
export function healthBar(view, a) {
  const p = view.worldToScreen(a.x, a.y);
  const r = view.radiusPx(a);
  const w = Math.max(MIN_BAR_PX, 2 * r);
  const x = p.x - w / 2;
  const y = p.y - r - BAR_GAP_PX - BAR_PX;
  return { x, y, w, h: BAR_PX, full: w * healthFraction(a) };
}

// A fraction's colour along red (0) to green (1), through amber.
/** @param {number} f @returns {string} */
function barColour(f) {
  return f > 0.5 ? THEME.healthHigh : f > 0.25 ? '#ffcc00' : THEME.healthLow;
}

/** @param {CanvasRenderingContext2D} ctx @param {View} view @param {readonly Ghost[]} ghosts */
export function drawGhosts(ctx, view, ghosts) {
  if (ghosts.length === 0) return;
  ctx.save();
  ctx.globalAlpha *= 0.7;
  ctx.setLineDash([3, 3]);
  ctx.lineWidth = 1.5;
  for (const g of ghosts) {
    const p = view.worldToScreen(g.x, g.y);
    ctx.beginPath();
    ctx.arc(p.x, p.y, view.radiusPx(g), 0, 2 * Math.PI);
    ctx.strokeStyle = teamColor(g.team);
    ctx.stroke();
  }
  ctx.restore();
}

// Over the agents: hit flashes, health bars, death markers.
/** @param {CanvasRenderingContext2D} ctx @param {View} view @param {readonly Agent[]} agents @param {readonly EventMark[]} marks @param {number} now */
export function drawGameMarks(ctx, view, agents, marks, now) {
  const alpha = ctx.globalAlpha;
  const flashes = hitFlashes(marks, now);
  if (flashes.size > 0) {
    ctx.fillStyle = THEME.hitFlash;
    for (const a of agents) {
      const f = flashes.get(a.id);
      if (!f) continue;
      const p = view.worldToScreen(a.x, a.y);
      ctx.globalAlpha = alpha * f * 0.8;
      ctx.beginPath();
      ctx.arc(p.x, p.y, view.radiusPx(a), 0, 2 * Math.PI);
      ctx.fill();
    }
    ctx.globalAlpha = alpha;
  }
  for (const a of agents) {
    if (!isHurt(a)) continue;
    const b = healthBar(view, a);
    ctx.fillStyle = THEME.healthBack;
    ctx.fillRect(b.x - 1, b.y - 1, b.w + 2, b.h + 2);
    ctx.fillStyle = barColour(b.full / b.w);
    ctx.fillRect(b.x, b.y, b.full, b.h);
  }
  ctx.strokeStyle = THEME.death;
  ctx.lineWidth = 3;
  for (const m of marks) {
    if (m.type !== 'death') continue;
    const k = markAlpha(m, now);
    if (k <= 0) continue;
    const p = view.worldToScreen(m.x, m.y);
    ctx.globalAlpha = alpha * k;
    ctx.beginPath();
    ctx.moveTo(p.x - DEATH_ARM_PX, p.y - DEATH_ARM_PX);
    ctx.lineTo(p.x + DEATH_ARM_PX, p.y + DEATH_ARM_PX);
    ctx.moveTo(p.x + DEATH_ARM_PX, p.y - DEATH_ARM_PX);
    ctx.lineTo(p.x - DEATH_ARM_PX, p.y + DEATH_ARM_PX);
    ctx.stroke();
  }
  ctx.globalAlpha = alpha;
}
