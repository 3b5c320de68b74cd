// The viewer's agent rasteriser (clients/web/agent_raster.js, its masks and pixel format in
// clients/web/raster_masks.js), run in Node: coverage adds up to the shape's area, centres land
// where asked to within the sub-pixel step, later shapes cover earlier ones, nothing is written
// off the image, and a frame's clear leaves no pixel behind.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { Raster } from '../../clients/web/agent_raster.js';
import { Masks, packColor, maskKey, maskHalf, buildMask, MASK_MAX_RADIUS, SUBPIXEL } from '../../clients/web/raster_masks.js';

const RED = packColor('#ff0000');
const BLUE = packColor('#0000ff');
const alphaOf = (p) => p >>> 24;
const rgbOf = (p) => [p & 255, (p >>> 8) & 255, (p >>> 16) & 255];

// Sum of alpha (in pixels of full coverage) and its centroid over the whole image.
function moments(r) {
  let sum = 0;
  let sx = 0;
  let sy = 0;
  for (let y = 0; y < r.height; y++) {
    for (let x = 0; x < r.width; x++) {
      const a = alphaOf(r.pixels[y * r.width + x]) / 255;
      sum += a;
      sx += a * (x + 0.5);
      sy += a * (y + 0.5);
    }
  }
  return { area: sum, cx: sx / sum, cy: sy / sum };
}

describe('packColor', () => {
  it('packs CSS colours as ImageData bytes: R, G, B, A', () => {
    const bytes = (c) => [...new Uint8Array(new Uint32Array([packColor(c)]).buffer)];
    assert.deepEqual(bytes('#4cc9f0'), [0x4c, 0xc9, 0xf0, 255]);
    assert.deepEqual(bytes('#abc'), [0xaa, 0xbb, 0xcc, 255]);
    assert.deepEqual(bytes('rgba(255, 255, 255, 0.8)'), [255, 255, 255, 204]);
    assert.deepEqual(bytes('rgb(1,2,3)'), [1, 2, 3, 255]);
    assert.equal(packColor('red'), null);
    assert.equal(packColor('#12345'), null);
  });
});

// A mask row's spans: the touched span holds every covered pixel, the full span is full, the
// hole is empty.
function assertSpans(m, y) {
  const stride = m.spans.length / m.size;
  const [xa, fa, fb, xb, ha, hb] = m.spans.subarray(stride * y, stride * (y + 1));
  for (let x = 0; x < m.size; x++) {
    const c = m.cov[y * m.size + x];
    if (c > 0) assert.ok(x >= xa && x <= xb, `row ${y}: ${x} outside [${xa}, ${xb}]`);
    if (x >= fa && x <= fb) assert.equal(c, 255, `row ${y}: ${x} in the full span`);
    if (x >= ha && x <= hb) assert.equal(c, 0, `row ${y}: ${x} in the hole`);
  }
}

describe('masks', () => {
  it('keys radii and ring widths by sixteenths of a pixel', () => {
    assert.equal(maskKey(10.24), maskKey(10.25));
    assert.notEqual(maskKey(10.24), maskKey(10.24 + 1 / 16));
    assert.notEqual(maskKey(10.24), maskKey(10.24, 1.5), 'a disc and a ring of one radius');
    assert.notEqual(maskKey(10.24, 1.5), maskKey(10.24, 1.5 + 1 / 16));
    assert.notEqual(maskKey(10, 2), maskKey(10 + 2 / 16, 0), 'radius and width do not mix');
    assert.equal(maskHalf(maskKey(6.3)), Math.ceil(6.3125 + 0.5) + 1);
    assert.equal(maskHalf(maskKey(6.3, 3)), Math.ceil(6.3125 + 1.5 + 0.5) + 1);
  });

  it('covers a disc fully inside r - 0.5, not at all past r + 0.5, and its area in all', () => {
    const r = 6.3125; // a whole number of sixteenths, as the key keeps it
    const m = buildMask(maskKey(r), 0.25, 0.75);
    assert.equal(m.size, 2 * maskHalf(maskKey(r)));
    let area = 0;
    for (let y = 0; y < m.size; y++) {
      for (let x = 0; x < m.size; x++) {
        const d = Math.hypot(x + 0.5 - (m.half + 0.25), y + 0.5 - (m.half + 0.75));
        const c = m.cov[y * m.size + x];
        if (d <= r - 0.5) assert.equal(c, 255, `(${x}, ${y}) at ${d}`);
        if (d >= r + 0.5) assert.equal(c, 0, `(${x}, ${y}) at ${d}`);
        area += c / 255;
      }
      assertSpans(m, y);
    }
    assert.ok(Math.abs(area - Math.PI * r * r) < 0.01 * Math.PI * r * r, `area ${area}`);
  });

  it("marks a ring's hole on each row that crosses it, and no full span there", () => {
    const m = buildMask(maskKey(6, 1.5), 0.5, 0);
    const stride = m.spans.length / m.size;
    let holes = 0;
    for (let y = 0; y < m.size; y++) {
      assertSpans(m, y);
      const [, fa, fb, , ha, hb] = m.spans.subarray(stride * y, stride * (y + 1));
      if (ha <= hb) {
        holes++;
        assert.ok(fa > fb, `row ${y}: a full span across a hole`);
      }
    }
    assert.ok(holes >= 8, `${holes} rows with a hole`);
  });

  it('keeps the shapes used most recently', () => {
    const masks = new Masks(2);
    masks.get(maskKey(3), 0, 0);
    masks.get(maskKey(4), 1, 2);
    masks.get(maskKey(3), 0, 0); // 3 is now the newest, 4 the oldest
    masks.get(maskKey(3, 1.5), 0, 0);
    assert.equal(masks.size, 2);
    assert.deepEqual([...masks.byKey.keys()], [maskKey(3), maskKey(3, 1.5)]);
  });
});

describe('Raster', () => {
  it('draws a disc of the right area, centred where asked to within the sub-pixel step', () => {
    for (const r of [2, 7.7, MASK_MAX_RADIUS + 8]) {
      for (const [cx, cy] of [
        [50, 50],
        [50.3, 49.85],
        [51.6, 50.45],
        [50.2, 50.7],
      ]) {
        const ras = new Raster();
        ras.reset(101, 101);
        ras.disc(cx, cy, r, RED);
        const m = moments(ras);
        const tol = 0.5 / SUBPIXEL + 0.01;
        assert.ok(Math.abs(m.cx - cx) <= tol && Math.abs(m.cy - cy) <= tol, `r ${r}: centre ${m.cx}, ${m.cy} for ${cx}, ${cy}`);
        // Coverage by distance from the rim overstates a small disc's area by a fraction of a pixel.
        assert.ok(Math.abs(m.area - Math.PI * r * r) < 0.02 * Math.PI * r * r + 0.6, `r ${r}: area ${m.area}`);
        const centre = ras.pixels[Math.floor(cy) * 101 + Math.floor(cx)];
        assert.equal(alphaOf(centre), 255);
        assert.deepEqual(rgbOf(centre), [255, 0, 0]);
      }
    }
  });

  it('draws a ring of radius r and width w as about 2 pi r w of coverage, nothing in its hole', () => {
    for (const [r, w] of [
      [8, 1.5],
      [MASK_MAX_RADIUS + 10, 3],
    ]) {
      for (const [cx, cy] of [
        [60, 60],
        [60.3, 59.6],
      ]) {
        const ras = new Raster();
        ras.reset(121, 121);
        ras.ring(cx, cy, r, w, packColor('#ffffff'));
        const m = moments(ras);
        const want = 2 * Math.PI * r * w;
        assert.ok(Math.abs(m.area - want) < 0.03 * want, `r ${r} w ${w}: area ${m.area}, want ${want}`);
        assert.ok(Math.abs(m.cx - cx) < 0.15 && Math.abs(m.cy - cy) < 0.15, `centre ${m.cx}, ${m.cy}`);
        assert.equal(ras.pixels[Math.floor(cy) * 121 + Math.floor(cx)], 0, 'the hole');
        assert.equal(ras.pixels[Math.floor(cy) * 121 + Math.floor(cx + r - w / 2 - 1)], 0, 'inside the stroke');
        const onRing = ras.pixels[Math.floor(cy - r) * 121 + Math.floor(cx)];
        assert.ok(alphaOf(onRing) > 128, `on the ring: alpha ${alphaOf(onRing)}`);
      }
    }
    // Translucent: a ring at half opacity has half the coverage.
    const ras = new Raster();
    ras.reset(41, 41);
    ras.ring(20, 20, 8, 1.5, packColor('rgba(255, 255, 255, 0.5)'));
    const want = 0.5 * 2 * Math.PI * 8 * 1.5;
    assert.ok(Math.abs(moments(ras).area - want) < 0.03 * want);
  });

  it('draws a later disc over an earlier one, and blends its rim over it', () => {
    const ras = new Raster();
    ras.reset(40, 40);
    ras.disc(20, 20, 10, BLUE);
    ras.disc(26, 20, 5, RED);
    assert.deepEqual(rgbOf(ras.pixels[20 * 40 + 26]), [255, 0, 0]);
    assert.deepEqual(rgbOf(ras.pixels[20 * 40 + 15]), [0, 0, 255]);
    // A rim pixel of the red disc inside the blue one: opaque, some of each.
    const rim = ras.pixels[20 * 40 + 21];
    const [r, , b] = rgbOf(rim);
    assert.equal(alphaOf(rim), 255);
    assert.ok(r > 0 && b > 0 && r + b >= 253 && r + b <= 257, `rim ${rgbOf(rim)}`);
  });

  it('clips at the image edges and keeps the drawn box inside the image', () => {
    const ras = new Raster();
    ras.reset(30, 20);
    ras.disc(-3, 5, 6, RED);
    ras.disc(28, 19, 40, BLUE);
    ras.disc(500, 5, 6, RED); // wholly off the image
    ras.disc(NaN, 5, 6, RED);
    ras.segment(-10, -10, 100, 100, 1.5, RED);
    assert.ok(ras.x0 >= 0 && ras.y0 >= 0 && ras.x1 <= 30 && ras.y1 <= 20);
    assert.equal(ras.pixels.length, 30 * 20);
    assert.equal(alphaOf(ras.pixels[5 * 30 + 0]), 255);

    // Rings and discs across the right edge write nothing that wraps round to the next row.
    for (const draw of [(r) => r.ring(27.5, 10, 6, 1.5, RED), (r) => r.disc(28.3, 10, 6, RED)]) {
      for (const translucent of [false, true]) {
        const edge = new Raster();
        edge.reset(30, 20);
        if (translucent) edge.ring(27.5, 10, 6, 1.5, packColor('rgba(255, 0, 0, 0.5)'));
        else draw(edge);
        for (let y = 0; y < 20; y++) {
          for (let x = 0; x < 15; x++) assert.equal(edge.pixels[y * 30 + x], 0, `(${x}, ${y})`);
        }
      }
    }
  });

  it('draws a line of width w and length l as about w l of coverage, its colour at full width', () => {
    const white = packColor('rgba(255, 255, 255, 0.8)');
    for (const [x0, y0, x1, y1] of [
      [5, 10.5, 25, 10.5],
      [5, 5, 19, 19],
      [12.3, 3.1, 9.8, 27.4],
    ]) {
      const ras = new Raster();
      ras.reset(40, 40);
      ras.segment(x0, y0, x1, y1, 1.5, white);
      const m = moments(ras);
      const want = 0.8 * 1.5 * Math.hypot(x1 - x0, y1 - y0);
      assert.ok(Math.abs(m.area - want) < 0.06 * want, `area ${m.area}, want ${want}`);
      assert.ok(Math.abs(m.cx - (x0 + x1) / 2) < 0.1 && Math.abs(m.cy - (y0 + y1) / 2) < 0.1, `${m.cx}, ${m.cy}`);
    }
    // Horizontal, on a row's centre: that row at the colour's alpha, the rows beside it a quarter.
    const ras = new Raster();
    ras.reset(40, 40);
    ras.segment(5, 10.5, 25, 10.5, 1.5, white);
    assert.equal(alphaOf(ras.pixels[10 * 40 + 15]), 204);
    assert.equal(alphaOf(ras.pixels[9 * 40 + 15]), 51);
    assert.equal(alphaOf(ras.pixels[11 * 40 + 15]), 51);
    assert.equal(alphaOf(ras.pixels[12 * 40 + 15]), 0);
  });

  it('leaves every pixel clear after the next reset, and the box empty', () => {
    const ras = new Raster();
    ras.reset(64, 48);
    ras.disc(10, 10, 4, RED);
    ras.disc(60, 40, 9, BLUE);
    ras.segment(20, 30, 40, 35, 1.5, RED);
    assert.ok(!ras.empty);
    ras.reset(64, 48);
    assert.ok(ras.empty);
    assert.ok(ras.pixels.every((p) => p === 0));
  });
});
