// Functions run in the page (page.evaluate) that measure the layout: text against its boxes, and
// the panels against the world drawn on the canvas.

// Every text of the elements `roots` select that shows (visible, not hidden) and is not whole in
// its box: [] when all are. A text is whole when
// - its element, unless inline, holds its content: scrollWidth <= clientWidth (1 px of rounding);
// - no element round it cuts it with an ellipsis (text-overflow) while its content is wider;
// - every line of it lies inside each ancestor that clips (overflow other than visible) across,
//   and up and down too unless that ancestor scrolls that way and takes the pointer (the user can
//   scroll to it: a long help panel);
// - and inside the window.
// Form controls' own text (select, option) is the browser's, not measured here.
export function cutTexts(roots) {
  const problems = [];
  const name = (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.classList.length ? `.${[...el.classList].join('.')}` : ''}`;
  const TOL = 1;
  for (const root of document.querySelectorAll(roots.join(','))) {
    if (!root.checkVisibility({ visibilityProperty: true })) continue;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent.trim();
      const el = node.parentElement;
      if (!text || el.closest('select, option, script, style')) continue;
      if (!el.checkVisibility({ visibilityProperty: true })) continue;
      const what = `${name(el)} "${text.slice(0, 50)}"`;
      const style = getComputedStyle(el);
      if (style.display !== 'inline' && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + TOL) {
        problems.push(`${what}: ${el.scrollWidth} px of content in a ${el.clientWidth} px box`);
      }
      const range = document.createRange();
      range.selectNodeContents(node);
      const lines = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
      // Inside a box that scrolls up and down, where a line is up or down is that box's business:
      // the boxes round it are measured across only.
      let scrolledY = false;
      for (let a = el; a && a !== document.documentElement; a = a.parentElement) {
        const cs = getComputedStyle(a);
        if (cs.textOverflow === 'ellipsis' && a.scrollWidth > a.clientWidth + TOL) {
          problems.push(`${what}: ${name(a)} ends it with an ellipsis (${a.scrollWidth} px in ${a.clientWidth})`);
        }
        const clipsX = cs.overflowX !== 'visible';
        const clipsY = cs.overflowY !== 'visible';
        if (!clipsX && !clipsY) continue;
        const box = a.getBoundingClientRect();
        const left = box.left + a.clientLeft;
        const top = box.top + a.clientTop;
        const right = left + a.clientWidth;
        const bottom = top + a.clientHeight;
        const scrollsY = (cs.overflowY === 'auto' || cs.overflowY === 'scroll') && cs.pointerEvents !== 'none';
        for (const r of lines) {
          if (clipsX && (r.left < left - TOL || r.right > right + TOL)) {
            problems.push(`${what}: cut across by ${name(a)} ([${Math.round(r.left)}, ${Math.round(r.right)}] in [${Math.round(left)}, ${Math.round(right)}])`);
          }
          if (clipsY && !scrollsY && !scrolledY && (r.top < top - TOL || r.bottom > bottom + TOL)) {
            problems.push(`${what}: cut up or down by ${name(a)} ([${Math.round(r.top)}, ${Math.round(r.bottom)}] in [${Math.round(top)}, ${Math.round(bottom)}])`);
          }
        }
        if (scrollsY) scrolledY = true;
      }
      for (const r of lines) {
        const outX = r.left < -TOL || r.right > innerWidth + TOL;
        const outY = r.top < -TOL || r.bottom > innerHeight + TOL;
        if (outX || (outY && !scrolledY)) problems.push(`${what}: outside the window at [${Math.round(r.left)}, ${Math.round(r.top)}, ${Math.round(r.right)}, ${Math.round(r.bottom)}]`);
      }
    }
  }
  return [...new Set(problems)];
}

// Which of the elements `selectors` select that show cover part of the world as drawn: [] when
// none does; each as {sel, box, world}.
export function coveringWorld(selectors) {
  const h = window.herd;
  const c = document.getElementById('world').getBoundingClientRect();
  const a = h.worldToScreen(0, 0);
  const b = h.worldToScreen(h.world.width, h.world.height);
  const world = [c.left + a.x, c.top + a.y, c.left + b.x, c.top + b.y].map(Math.round);
  const out = [];
  for (const sel of selectors) {
    for (const el of document.querySelectorAll(sel)) {
      if (!el.checkVisibility({ visibilityProperty: true })) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const box = [r.left, r.top, r.right, r.bottom].map(Math.round);
      const meets = box[0] < world[2] && box[2] > world[0] && box[1] < world[3] && box[3] > world[1];
      if (meets) out.push({ sel, box, world });
    }
  }
  return out;
}

// The docked panels that show (each {sel, box} in page CSS pixels), the rectangle where the world
// is drawn (window.herd.drawnRect, in page CSS pixels: [left, top, right, bottom], or null), which
// panels meet it, and, for each panel, the canvas pixels under it at a grid of points that are not
// the colour outside the world (the world drawn under the panel): [] when none is.
export function panelsAndWorld(selectors) {
  const h = window.herd;
  const canvas = document.getElementById('world');
  const c = canvas.getBoundingClientRect();
  const d = h.drawnRect();
  const world = d ? [c.left + d.x, c.top + d.y, c.left + d.x + d.w, c.top + d.y + d.h] : null;
  const ctx = canvas.getContext('2d');
  const k = canvas.width / canvas.clientWidth;
  const outside = [1, 3, 5].map((i) => parseInt(h.theme.outside.slice(i, i + 2), 16));
  const panels = [];
  for (const sel of selectors) {
    for (const el of document.querySelectorAll(sel)) {
      if (!el.checkVisibility({ visibilityProperty: true })) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const box = [r.left, r.top, r.right, r.bottom];
      const meets = world !== null && box[0] < world[2] && box[2] > world[0] && box[1] < world[3] && box[3] > world[1];
      const drawnUnder = [];
      for (let i = 1; i < 8; i++) {
        for (let j = 1; j < 8; j++) {
          const x = r.left + (r.width * i) / 8 - c.left;
          const y = r.top + (r.height * j) / 8 - c.top;
          if (x < 0 || y < 0 || x >= c.width || y >= c.height) continue; // not over the canvas
          const px = ctx.getImageData(Math.floor(x * k), Math.floor(y * k), 1, 1).data;
          if (Math.abs(px[0] - outside[0]) + Math.abs(px[1] - outside[1]) + Math.abs(px[2] - outside[2]) > 6) {
            drawnUnder.push([Math.round(x), Math.round(y), ...px.slice(0, 3)]);
          }
        }
      }
      panels.push({ sel, box: box.map(Math.round), meets, drawnUnder });
    }
  }
  return { world: world && world.map(Math.round), panels };
}
