// Functions run inside the page with page.evaluate (so each must be self-contained), for the fog
// of war and the team colours (tests/e2e/players.test.mjs). Each first awaits an animation frame,
// so that the canvas and window.herd agree (page_probes.mjs says why).

// The darkest canvas pixel (least R + G + B) of the 5 x 5 CSS pixels round world point (x, y):
// the ground there with neither the grid's faint lines, which are lighter, nor an agent. Also
// whether a drawn agent's body is within 20 CSS pixels (the caller picks ground clear of them).
export async function groundPixel({ x, y }) {
  await new Promise(requestAnimationFrame);
  const h = window.herd;
  const canvas = document.getElementById('world');
  const k = canvas.width / canvas.clientWidth;
  const ctx = canvas.getContext('2d');
  const s = h.worldToScreen(x, y);
  let best = null;
  for (let dy = -2; dy <= 2; dy++) {
    for (let dx = -2; dx <= 2; dx++) {
      const px = Array.from(ctx.getImageData(Math.floor((s.x + dx) * k), Math.floor((s.y + dy) * k), 1, 1).data);
      if (!best || px[0] + px[1] + px[2] < best[0] + best[1] + best[2]) best = px;
    }
  }
  const near = h.agents.some((a) => {
    const q = h.worldToScreen(a.x, a.y);
    return Math.hypot(q.x - s.x, q.y - s.y) < 20;
  });
  return { pixel: best, agentNear: near };
}
