// Probes of what the viewer draws besides agents: obstacles, collisions and the inspector's
// diagram. Functions run inside the page with page.evaluate (so each is self-contained).
//
// As in page_probes.mjs, each reads the canvas right after an animation frame: the viewer's draw
// callback was registered a frame earlier, so it has run first in this frame, with the same
// snapshot that window.herd shows now and with the same frame timestamp.

// The first obstacle: the canvas pixel at its centre, and the pixels along its radius to the left,
// from the centre to 3 px past its edge (where the rim must be).
export async function obstacleProbe() {
  await new Promise(requestAnimationFrame);
  const h = window.herd;
  const canvas = document.getElementById('world');
  const ctx = canvas.getContext('2d');
  const k = canvas.width / canvas.clientWidth;
  const px = (x, y) => Array.from(ctx.getImageData(Math.floor(x * k), Math.floor(y * k), 1, 1).data);
  const o = h.obstacles[0];
  if (!o) return null;
  const scale = h.worldToScreen(1, 0).x - h.worldToScreen(0, 0).x;
  const c = h.worldToScreen(o.x, o.y);
  const rPx = o.r * scale;
  const radius = [];
  for (let d = 0; d <= rPx + 3; d += 1) radius.push({ d, pixel: px(c.x - d, c.y) });
  return { id: o.id, sx: c.x, sy: c.y, rPx, centre: px(c.x, c.y), radius };
}

// Waits, frame by frame, for a frame where at least one agent is collided and every collided
// agent shows its group colour at its centre (within `tolerance` per channel) and the theme's
// collided red on its ring (window.herd.collidedRing) at no fewer than `minRingHits` of 8 angles:
// the reddest pixel of the 3 x 3 device pixels round the middle of the stroke (a heading line or
// a collision flash drawn over the ring may hide it at an angle or two). Resolves to
// {ok, agents: [{id, group, centre, ringHits, ring}]} (ok false at timeoutMs, with the last frame's
// observation).
export async function waitForCollidedRing({ tolerance, minRingHits, timeoutMs }) {
  const h = window.herd;
  const canvas = document.getElementById('world');
  const ctx = canvas.getContext('2d');
  const rgb = (hex) => {
    const n = parseInt(hex.slice(1), 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  };
  const red = rgb(h.theme.collided);
  const near = (px, want) => want.every((c, i) => Math.abs(c - px[i]) <= tolerance);
  const deadline = performance.now() + timeoutMs;
  let last = { ok: false, agents: [] };
  while (performance.now() < deadline) {
    await new Promise(requestAnimationFrame);
    const k = canvas.width / canvas.clientWidth;
    const hit = h.agents.filter((a) => a.collided);
    if (hit.length === 0) continue;
    const agents = hit.map((a) => {
      const ring = h.collidedRing(a.id);
      const body = rgb(h.theme.groups[a.group % h.theme.groups.length]);
      const centre = Array.from(ctx.getImageData(Math.floor(ring.x * k), Math.floor(ring.y * k), 1, 1).data);
      let ringHits = 0;
      for (let i = 0; i < 8; i++) {
        const th = (i * Math.PI) / 4;
        const x = Math.floor((ring.x + ring.r * Math.cos(th)) * k);
        const y = Math.floor((ring.y + ring.r * Math.sin(th)) * k);
        const d = ctx.getImageData(x - 1, y - 1, 3, 3).data;
        let seen = false;
        for (let j = 0; j < d.length && !seen; j += 4) seen = near([d[j], d[j + 1], d[j + 2]], red);
        if (seen) ringHits++;
      }
      return { id: a.id, group: a.group, centre, centreOk: near(centre, body), ringHits, ring };
    });
    const ok = agents.every((a) => a.centreOk && a.ringHits >= minRingHits);
    last = { ok, agents };
    if (ok) return last;
  }
  return last;
}

// Waits for a frame with a collision flash ring at least `minRadiusPx` wide and still at least
// half opaque, and reads the canvas straight above and below its centre at the ring's radius
// (the column through a collision point between two touching agents crosses neither). Resolves to
// {ok, ring, brightness, background} where brightness is the brightest of the pixels on the ring.
export async function waitForFlashRing({ minRadiusPx, minBrightnessOverBackground, timeoutMs }) {
  const h = window.herd;
  const canvas = document.getElementById('world');
  const ctx = canvas.getContext('2d');
  const n = parseInt(h.theme.world.slice(1), 16);
  const background = (((n >> 16) & 255) + ((n >> 8) & 255) + (n & 255)) / 3;
  const deadline = performance.now() + timeoutMs;
  let last = { ok: false, why: 'no flash seen' };
  while (performance.now() < deadline) {
    const now = await new Promise(requestAnimationFrame); // the timestamp the viewer drew with
    const k = canvas.width / canvas.clientWidth;
    for (const f of h.flashes) {
      const ring = h.flashRing(f, now);
      if (!ring || ring.r < minRadiusPx || ring.alpha < 0.5) continue;
      let brightness = 0;
      for (const dir of [-1, 1]) {
        for (const off of [-1, 0, 1]) {
          const y = ring.y + dir * ring.r + off;
          const d = ctx.getImageData(Math.floor(ring.x * k), Math.floor(y * k), 1, 1).data;
          brightness = Math.max(brightness, (d[0] + d[1] + d[2]) / 3);
        }
      }
      last = { ok: brightness >= background + minBrightnessOverBackground, ring, brightness, background };
      if (last.ok) return last;
    }
  }
  return last;
}

// Waits for a frame in which the inspector's diagram for agent `id` shows every colour of `kinds`
// (keys of window.herd.inspectColors: raw, adjusted, sumRaw, splitFix, final) where the trace
// says it should be. For each kind, the pixels of exactly that colour (within `tolerance` per
// channel) in the ring around the agent, from just past its body to the longest vector drawn,
// must number at least minPixels, and their centroid must lie within maxAngleDeg of where the
// trace's vectors put it (the length-weighted middle of their parts outside the body).
// Frames where some kind shows less than minVisiblePx of line past the body do not count.
// Resolves to {ok, tick, results}, or at timeoutMs to {ok: false, checked, last}: the last frame
// whose colours were checked (the likely reason), and the last frame seen.
export async function waitForInspectDiagram({ id, kinds, tolerance, minPixels, maxAngleDeg, minVisiblePx, timeoutMs }) {
  const h = window.herd;
  const canvas = document.getElementById('world');
  const ctx = canvas.getContext('2d');
  const rgb = (hex) => {
    const n = parseInt(hex.slice(1), 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  };
  const deadline = performance.now() + timeoutMs;
  let last = { why: 'no trace for the agent' };
  let checked = null;
  while (performance.now() < deadline) {
    await new Promise(requestAnimationFrame);
    const t = h.inspect.find((e) => e.id === id);
    const a = h.agents.find((b) => b.id === id);
    if (!t || !a) continue;
    const k = canvas.width / canvas.clientWidth;
    const scale = h.worldToScreen(1, 0).x - h.worldToScreen(0, 0).x;
    const p = h.worldToScreen(a.x, a.y);
    const unit = h.inspectUnitPx(id);
    const inner = Math.max(window.herd.minAgentPx, a.r * scale) + 5; // past the body and the selection ring
    const outer = h.inspectMaxUnits * unit + 6;
    const live = t.pushes.filter((q) => !q.ignored);
    const vectors = {
      raw: live.map((q) => q.raw),
      adjusted: live.map((q) => q.adjusted),
      sumRaw: [t.sum_raw],
      splitFix: [t.split_fix],
      final: [t.final],
    };

    const expected = {};
    for (const kind of kinds) {
      let sx = 0;
      let sy = 0;
      let sw = 0;
      for (const v of vectors[kind]) {
        const len = Math.hypot(v.x, v.y);
        if (!(len > 1e-6)) continue;
        const drawn = Math.min(len, h.inspectMaxUnits) * unit;
        if (drawn <= inner) continue;
        const w = drawn - inner;
        const mid = (drawn + inner) / 2;
        sx += w * (v.x / len) * mid;
        sy += w * (v.y / len) * mid;
        sw += w;
      }
      expected[kind] = sw >= minVisiblePx ? { x: sx / sw, y: sy / sw, visiblePx: Math.round(sw) } : null;
    }
    if (kinds.some((kind) => !expected[kind])) {
      last = { why: 'vectors too short to show past the body', tick: h.tick, expected };
      continue;
    }

    const x0 = Math.max(0, Math.floor((p.x - outer) * k));
    const y0 = Math.max(0, Math.floor((p.y - outer) * k));
    const x1 = Math.min(canvas.width, Math.ceil((p.x + outer) * k));
    const y1 = Math.min(canvas.height, Math.ceil((p.y + outer) * k));
    const img = ctx.getImageData(x0, y0, x1 - x0, y1 - y0);
    const colors = kinds.map((kind) => rgb(h.inspectColors[kind]));
    const acc = kinds.map(() => ({ n: 0, x: 0, y: 0 }));
    for (let j = 0; j < img.height; j++) {
      for (let i = 0; i < img.width; i++) {
        const cx = (x0 + i + 0.5) / k - p.x;
        const cy = (y0 + j + 0.5) / k - p.y;
        const d = Math.hypot(cx, cy);
        if (d < inner || d > outer) continue;
        const o = 4 * (j * img.width + i);
        colors.forEach((c, m) => {
          if (
            Math.abs(img.data[o] - c[0]) <= tolerance &&
            Math.abs(img.data[o + 1] - c[1]) <= tolerance &&
            Math.abs(img.data[o + 2] - c[2]) <= tolerance
          ) {
            acc[m].n++;
            acc[m].x += cx;
            acc[m].y += cy;
          }
        });
      }
    }
    const results = {};
    let ok = true;
    kinds.forEach((kind, m) => {
      const e = expected[kind];
      const { n } = acc[m];
      let angle = 180;
      if (n > 0) {
        const got = Math.atan2(acc[m].y / n, acc[m].x / n);
        const want = Math.atan2(e.y, e.x);
        angle = Math.abs(((got - want + 3 * Math.PI) % (2 * Math.PI)) - Math.PI) * (180 / Math.PI);
      }
      const pass = n >= minPixels && angle <= maxAngleDeg;
      results[kind] = { pixels: n, angleDeg: Math.round(angle), visiblePx: e.visiblePx, pass };
      ok &&= pass;
    });
    if (ok) return { ok, tick: h.tick, results };
    checked = last = { why: 'colours not where the trace says', tick: h.tick, results };
  }
  return { ok: false, checked, last };
}
