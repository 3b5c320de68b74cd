// Functions run inside the page with page.evaluate (so each must be self-contained).
//
// Each first awaits an animation frame: the viewer's draw loop registered its callback in the
// previous frame, so it has already drawn window.herd.agents when ours runs, and no WebSocket
// message can land between the two. The canvas pixels and the agent list then agree.

// The agent with the most free space around it on screen (others' bodies and heading lines
// included) and the least speed, with its screen position and the canvas pixel at its centre.
export async function isolatedAgent({ exclude = [] } = {}) {
  await new Promise(requestAnimationFrame);
  const h = window.herd;
  const canvas = document.getElementById('world');
  const k = canvas.width / canvas.clientWidth; // device pixels per CSS pixel
  const px = (x, y) =>
    Array.from(canvas.getContext('2d').getImageData(Math.floor(x * k), Math.floor(y * k), 1, 1).data);
  const scale = h.worldToScreen(1, 0).x - h.worldToScreen(0, 0).x;
  const agents = h.agents;
  let best = null;
  for (const a of agents) {
    if (exclude.includes(a.id)) continue;
    const p = h.worldToScreen(a.x, a.y);
    let clearance = Infinity;
    for (const b of agents) {
      if (b === a) continue;
      const q = h.worldToScreen(b.x, b.y);
      // b's body plus its longest heading line (1.5 r + 4 px past the rim) plus a margin
      const reach = Math.max(window.herd.minAgentPx, b.r * scale) * 2.5 + 6;
      clearance = Math.min(clearance, Math.hypot(p.x - q.x, p.y - q.y) - reach);
    }
    // Prefer slow agents too: a click lands a few frames after this probe, and the agent must
    // still be under it (what it covers in ~0.25 s counts against it).
    const speed = Math.hypot(a.vx, a.vy);
    const score = clearance - 0.25 * speed * scale;
    if (!best || score > best.score) {
      const rPx = Math.max(window.herd.minAgentPx, a.r * scale); // as drawn: never below the viewer's minimum
      best = { id: a.id, group: a.group, x: a.x, y: a.y, sx: p.x, sy: p.y, rPx, clearance, speed, score };
    }
  }
  if (!best) return null;
  best.pixel = px(best.sx, best.sy);
  // As view.js draws it: the group's colour (a collided agent is ringed, not filled, in red).
  best.color = h.theme.groups[best.group % h.theme.groups.length];
  return best;
}

// For every agent: its id, team and group, the colour it should be drawn in by group (its
// group's, collided or not; a world with teams draws teams' colours), the canvas pixel at its
// centre, and whether that centre is where the world is drawn (inView: not off the canvas or
// under a docked panel, where the page draws none of the world). Where agents crowd,
// a neighbour's body or heading line may cover a centre, so callers judge the whole set.
export async function agentCentrePixels() {
  await new Promise(requestAnimationFrame);
  const h = window.herd;
  const canvas = document.getElementById('world');
  const k = canvas.width / canvas.clientWidth;
  const ctx = canvas.getContext('2d');
  const scale = h.worldToScreen(1, 0).x - h.worldToScreen(0, 0).x;
  const screen = h.agents.map((a) => h.worldToScreen(a.x, a.y));
  const d = h.drawnRect();
  const inView = (p) => d !== null && p.x >= d.x && p.x < d.x + d.w && p.y >= d.y && p.y < d.y + d.h;
  return h.agents.map((a, i) => {
    const p = screen[i];
    // clear: no other agent's body, heading line or ring reaches this centre (as isolatedAgent
    // measures it), so its pixel is its own whatever the crowd does.
    const clear = h.agents.every((b, j) => j === i ||
      Math.hypot(p.x - screen[j].x, p.y - screen[j].y) > Math.max(h.minAgentPx, b.r * scale) * 2.5 + 6);
    return {
      id: a.id,
      team: a.team,
      group: a.group,
      clear,
      inView: inView(p),
      color: h.theme.groups[a.group % h.theme.groups.length],
      pixel: Array.from(ctx.getImageData(Math.floor(p.x * k), Math.floor(p.y * k), 1, 1).data),
    };
  });
}

// A point inside the world, at whole CSS pixels, as far as possible from every agent and at
// least minDist world units from `awayFrom`, with the canvas pixel there.
export async function emptyPoint({ awayFrom = null, minDist = 0 } = {}) {
  await new Promise(requestAnimationFrame);
  const h = window.herd;
  const canvas = document.getElementById('world');
  const k = canvas.width / canvas.clientWidth;
  const scale = h.worldToScreen(1, 0).x - h.worldToScreen(0, 0).x;
  const { width, height } = h.world;
  const steps = 48;
  let best = null;
  for (let i = 1; i < steps; i++) {
    for (let j = 1; j < steps; j++) {
      // Whole pixels, so the point the page computes from the click is exactly this one.
      const s = h.worldToScreen((width * i) / steps, (height * j) / steps);
      const sx = Math.round(s.x);
      const sy = Math.round(s.y);
      const w = h.screenToWorld(sx, sy);
      if (w.x <= 0 || w.y <= 0 || w.x >= width || w.y >= height) continue;
      if (awayFrom && Math.hypot(w.x - awayFrom.x, w.y - awayFrom.y) < minDist) continue;
      let clearance = Infinity;
      for (const a of h.agents) {
        const q = h.worldToScreen(a.x, a.y);
        clearance = Math.min(clearance, Math.hypot(sx - q.x, sy - q.y) - (Math.max(window.herd.minAgentPx, a.r * scale) * 2.5 + 6));
      }
      if (!best || clearance > best.clearance) best = { x: w.x, y: w.y, sx, sy, clearance };
    }
  }
  if (best) {
    best.pixel = Array.from(
      canvas.getContext('2d').getImageData(Math.floor(best.sx * k), Math.floor(best.sy * k), 1, 1).data,
    );
    best.scale = scale;
  }
  return best;
}

// Waits, frame by frame, until the canvas pixel under agent `id`'s target has every channel
// above `minChannel` (white, as the target cross is, and no group colour or background is);
// resolves to that pixel, or to null at timeoutMs. Frames where the agent is near its target
// do not count: its own white heading line and selection ring could pass over the point.
export async function waitForTargetCross({ id, minChannel, timeoutMs }) {
  const h = window.herd;
  const canvas = document.getElementById('world');
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    await new Promise(requestAnimationFrame);
    const a = h.agents.find((b) => b.id === id);
    if (!a || a.tx === undefined) continue;
    const k = canvas.width / canvas.clientWidth;
    const s = h.worldToScreen(a.tx, a.ty);
    const p = h.worldToScreen(a.x, a.y);
    const rPx = Math.max(window.herd.minAgentPx, a.r * (h.worldToScreen(1, 0).x - h.worldToScreen(0, 0).x));
    if (Math.hypot(s.x - p.x, s.y - p.y) < 2.5 * rPx + 10) continue;
    const px = canvas.getContext('2d').getImageData(Math.floor(s.x * k), Math.floor(s.y * k), 1, 1).data;
    if (px[0] > minChannel && px[1] > minChannel && px[2] > minChannel) return Array.from(px);
  }
  return null;
}
