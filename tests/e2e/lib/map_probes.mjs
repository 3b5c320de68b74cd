// Probes of tile maps on the canvas: the map, the walkers' trails, painted tiles and the
// unreachable badge. Functions run inside the page with page.evaluate (so each is self-contained).
//
// As in page_probes.mjs, each reads the canvas right after an animation frame: the viewer's draw
// callback was registered a frame earlier, so it has run first in this frame, with the same
// snapshot that window.herd shows now.

// The centre pixel of every tile that nothing else is drawn over: no agent's body, heading line
// or rings near it, no walker's trail through it. Resolves to {tiles: [{x, y, blocked, pixel}],
// tilePx} (tilePx: CSS pixels a tile).
export async function tileCentres() {
  await new Promise(requestAnimationFrame);
  const h = window.herd;
  const m = h.map;
  if (!m) return null;
  const canvas = document.getElementById('world');
  const ctx = canvas.getContext('2d');
  const k = canvas.width / canvas.clientWidth;
  const scale = h.worldToScreen(1, 0).x - h.worldToScreen(0, 0).x;
  const trail = new Set();
  for (const a of h.agents) {
    const hist = a.history ?? [];
    for (let i = 0; i + 1 < hist.length; i += 2) trail.add(`${hist[i]},${hist[i + 1]}`);
  }
  const tiles = [];
  for (let y = 0; y < m.height; y++) {
    for (let x = 0; x < m.width; x++) {
      if (trail.has(`${x},${y}`)) continue;
      const s = h.worldToScreen((x + 0.5) * m.tile_size, (y + 0.5) * m.tile_size);
      // An agent's body, heading line (1.5 r + 4 past the rim) and unreachable ring and badge.
      const clear = h.agents.every((a) => {
        const p = h.worldToScreen(a.x, a.y);
        return Math.hypot(p.x - s.x, p.y - s.y) > Math.max(window.herd.minAgentPx, a.r * scale) * 2.5 + 24;
      });
      if (!clear) continue;
      const pixel = Array.from(ctx.getImageData(Math.floor(s.x * k), Math.floor(s.y * k), 1, 1).data);
      tiles.push({ x, y, blocked: m.rows[y][x] === '#', pixel });
    }
  }
  return { tiles, tilePx: m.tile_size * scale };
}

// Waits, frame by frame, for a frame where walker `id`'s trail is drawn between the centres of
// at least `minSegments` pairs of consecutive history tiles: at a point a quarter of the way from
// one centre to the next (clear of the trail's square marks at the centres and of the tile seams),
// the pixel is the walker's group colour blended over the floor with the opacity the viewer gives
// that segment (window.herd.trailAlpha), within `tolerance`; and a point as far to the side of
// the line is plain floor. Segments near an agent, or whose tile pair the history holds twice
// (the line is drawn over itself there), are skipped. Resolves to {ok, checked, history} (ok false
// at timeoutMs, with the last frame's observations).
export async function waitForTrail({ id, minSegments, tolerance, timeoutMs }) {
  const h = window.herd;
  const canvas = document.getElementById('world');
  const ctx = canvas.getContext('2d');
  const rgb = (hex) => {
    const n = parseInt(hex.slice(1), 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  };
  const floor = rgb(h.theme.floor);
  const deadline = performance.now() + timeoutMs;
  let last = { ok: false, why: 'no history yet' };
  while (performance.now() < deadline) {
    await new Promise(requestAnimationFrame);
    const a = h.agents.find((b) => b.id === id);
    const m = h.map;
    if (!a || !m || !a.history || a.history.length < 2 * (minSegments + 1)) continue;
    const k = canvas.width / canvas.clientWidth;
    const scale = h.worldToScreen(1, 0).x - h.worldToScreen(0, 0).x;
    const color = rgb(h.theme.groups[a.group % h.theme.groups.length]);
    const hist = a.history;
    const n = hist.length / 2;
    const pairs = new Map();
    for (let i = 1; i < n; i++) {
      const key = [`${hist[2 * i - 2]},${hist[2 * i - 1]}`, `${hist[2 * i]},${hist[2 * i + 1]}`].sort().join('|');
      pairs.set(key, (pairs.get(key) ?? 0) + 1);
    }
    const px = (x, y) => Array.from(ctx.getImageData(Math.floor(x * k), Math.floor(y * k), 1, 1).data);
    const near = (p) =>
      h.agents.some((b) => {
        const q = h.worldToScreen(b.x, b.y);
        return Math.hypot(p.x - q.x, p.y - q.y) < Math.max(window.herd.minAgentPx, b.r * scale) * 2.5 + 12;
      });
    const checked = [];
    for (let i = n - 1; i >= 1; i--) {
      const key = [`${hist[2 * i - 2]},${hist[2 * i - 1]}`, `${hist[2 * i]},${hist[2 * i + 1]}`].sort().join('|');
      if (pairs.get(key) !== 1) continue;
      const c0 = h.worldToScreen((hist[2 * i - 2] + 0.5) * m.tile_size, (hist[2 * i - 1] + 0.5) * m.tile_size);
      const c1 = h.worldToScreen((hist[2 * i] + 0.5) * m.tile_size, (hist[2 * i + 1] + 0.5) * m.tile_size);
      const on = { x: c0.x + (c1.x - c0.x) / 4, y: c0.y + (c1.y - c0.y) / 4 };
      // A quarter tile to the side, perpendicular to the segment.
      const off = { x: on.x + (c1.y - c0.y) / 4, y: on.y - (c1.x - c0.x) / 4 };
      if (near(on) || near(off)) continue;
      const alpha = h.trailAlpha(i, n);
      const want = color.map((c, j) => Math.round(alpha * c + (1 - alpha) * floor[j]));
      const got = px(on.x, on.y);
      const side = px(off.x, off.y);
      const ok =
        want.every((c, j) => Math.abs(c - got[j]) <= tolerance) && floor.every((c, j) => Math.abs(c - side[j]) <= tolerance);
      checked.push({ segment: i, alpha: +alpha.toFixed(3), want, got, side, ok });
    }
    last = { ok: checked.filter((c) => c.ok).length >= minSegments && checked.every((c) => c.ok), checked, history: hist };
    if (last.ok) return last;
  }
  return last;
}

// Waits, frame by frame, until each of `tiles` ([{x, y}]) shows `want` ('wall' or 'floor': the
// theme's colour, within `tolerance`) at its centre, tiles with an agent over them excepted.
// Resolves to {ok, pixels}.
export async function waitForTiles({ tiles, want, tolerance, timeoutMs }) {
  const h = window.herd;
  const canvas = document.getElementById('world');
  const ctx = canvas.getContext('2d');
  const n = parseInt(h.theme[want].slice(1), 16);
  const color = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  const deadline = performance.now() + timeoutMs;
  let last = { ok: false };
  while (performance.now() < deadline) {
    await new Promise(requestAnimationFrame);
    const m = h.map;
    if (!m) continue;
    const k = canvas.width / canvas.clientWidth;
    const scale = h.worldToScreen(1, 0).x - h.worldToScreen(0, 0).x;
    const pixels = [];
    for (const t of tiles) {
      const s = h.worldToScreen((t.x + 0.5) * m.tile_size, (t.y + 0.5) * m.tile_size);
      const covered = h.agents.some((a) => {
        const p = h.worldToScreen(a.x, a.y);
        return Math.hypot(p.x - s.x, p.y - s.y) < Math.max(window.herd.minAgentPx, a.r * scale) * 2.5 + 24;
      });
      if (covered) continue;
      pixels.push({ ...t, pixel: Array.from(ctx.getImageData(Math.floor(s.x * k), Math.floor(s.y * k), 1, 1).data) });
    }
    const ok = pixels.length > 0 && pixels.every((p) => color.every((c, j) => Math.abs(c - p.pixel[j]) <= tolerance));
    last = { ok, seen: pixels.length, pixels };
    if (ok) return last;
  }
  return last;
}

// Waits, frame by frame, until agent `id` is `unreachable` and its "!" badge is drawn: the pixel
// on the badge disc left of the "!" is the theme's warning colour. Resolves to {ok, badge, pixel}.
export async function waitForUnreachableBadge({ id, tolerance, timeoutMs }) {
  const h = window.herd;
  const canvas = document.getElementById('world');
  const ctx = canvas.getContext('2d');
  const n = parseInt(h.theme.unreachable.slice(1), 16);
  const color = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  const deadline = performance.now() + timeoutMs;
  let last = { ok: false, why: 'not unreachable' };
  while (performance.now() < deadline) {
    await new Promise(requestAnimationFrame);
    const a = h.agents.find((b) => b.id === id);
    if (!a || a.state !== 'unreachable') continue;
    const k = canvas.width / canvas.clientWidth;
    const b = h.unreachableBadge(id);
    const x = b.x - 0.6 * b.r;
    const pixel = Array.from(ctx.getImageData(Math.floor(x * k), Math.floor(b.y * k), 1, 1).data);
    last = { ok: color.every((c, j) => Math.abs(c - pixel[j]) <= tolerance), badge: b, pixel, state: a.state };
    if (last.ok) return last;
  }
  return last;
}
