// Probes of the viewer's smooth motion and camera, run inside the page with page.evaluate (each
// self-contained). As in page_probes.mjs, each reads the canvas right after an animation frame,
// so window.herd shows what the viewer's own frame has just drawn.

// Waits, frame by frame, for `frames` frames drawn between two snapshots (window.herd's
// interpolation mode 'interpolate', 0.05 < alpha < 0.95) and checks on each an isolated agent that
// moved at least `minMove` units between the two: its drawn position lies on the segment between
// its two snapshot positions, at the fraction alpha, and the canvas pixel there has its colour.
// Resolves to {ok, checks: [{id, alpha, t, off, pixel, color, ok}], why}.
export async function interpolatedFrames({ frames, minMove, tolerance, timeoutMs }) {
  const h = window.herd;
  const canvas = document.getElementById('world');
  const ctx = canvas.getContext('2d');
  const rgb = (hex) => {
    const n = parseInt(hex.slice(1), 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  };
  const deadline = performance.now() + timeoutMs;
  const checks = [];
  let why = 'no frame between two snapshots';
  while (performance.now() < deadline && checks.length < frames) {
    await new Promise(requestAnimationFrame);
    const it = h.interpolation;
    if (it.mode !== 'interpolate' || it.alpha < 0.05 || it.alpha > 0.95) continue;
    const from = h.bufferedAgents(it.fromTick);
    const to = h.bufferedAgents(it.toTick);
    if (!from || !to) continue;
    const k = canvas.width / canvas.clientWidth;
    const scale = h.worldToScreen(1, 0).x - h.worldToScreen(0, 0).x;
    const drawn = h.agents;
    let best = null;
    for (const d of drawn) {
      const a = from.find((x) => x.id === d.id);
      const b = to.find((x) => x.id === d.id);
      if (!a || !b || Math.hypot(b.x - a.x, b.y - a.y) < minMove) continue;
      if (d.collided) continue; // collision rings are drawn round collided agents
      let clear = Infinity;
      for (const f of h.flashes) clear = Math.min(clear, Math.hypot(f.x - d.x, f.y - d.y) - d.r - 30 / scale);
      for (const o of drawn) {
        if (o !== d) clear = Math.min(clear, Math.hypot(o.x - d.x, o.y - d.y) - 2.5 * o.r - d.r);
      }
      if (!best || clear > best.clear) best = { d, a, b, clear };
    }
    if (!best) {
      why = 'no agent moved between the two snapshots';
      continue;
    }
    if (best.clear * scale < 4) {
      why = 'no moving agent clear of the others';
      continue;
    }
    const { d, a, b } = best;
    const ex = b.x - a.x;
    const ey = b.y - a.y;
    const len2 = ex * ex + ey * ey;
    const t = ((d.x - a.x) * ex + (d.y - a.y) * ey) / len2;
    const off = Math.abs((d.x - a.x) * ey - (d.y - a.y) * ex) / Math.sqrt(len2); // units off the segment
    const p = h.worldToScreen(d.x, d.y);
    const pixel = Array.from(ctx.getImageData(Math.floor(p.x * k), Math.floor(p.y * k), 1, 1).data);
    const color = rgb(h.theme.groups[d.group % h.theme.groups.length]);
    const ok =
      t > 0 && t < 1 && Math.abs(t - it.alpha) < 0.01 && off < 0.01 && color.every((c, j) => Math.abs(c - pixel[j]) <= tolerance);
    checks.push({ id: d.id, from: it.fromTick, to: it.toTick, alpha: +it.alpha.toFixed(3), t: +t.toFixed(3), off, pixel, color, ok });
  }
  return { ok: checks.length >= frames && checks.every((c) => c.ok), checks, why };
}

// Counts animation frames over `ms` milliseconds: {frames, fps}.
export async function frameRate({ ms }) {
  let frames = 0;
  const start = await new Promise(requestAnimationFrame);
  let now = start;
  while (now - start < ms) {
    now = await new Promise(requestAnimationFrame);
    frames++;
  }
  return { frames, fps: (frames * 1000) / (now - start) };
}
