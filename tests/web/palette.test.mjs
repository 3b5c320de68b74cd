// The viewers' one palette, clients/web/palette.json: the browser's theme carries it unchanged, it
// holds only what herd-view's build turns into C++ (cmake/palette_header.cmake; herd-view's side is
// tests/native/render_test.cpp), and its colours stay apart for every kind of colour vision.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { THEME, groupColor } from '../../clients/web/theme.js';

// Read as a file, not imported: the check does not go through the import it checks.
const PALETTE = JSON.parse(readFileSync(new URL('../../clients/web/palette.json', import.meta.url), 'utf8'));
const HEX = /^#[0-9a-f]{6}$/i;

describe('palette.json', () => {
  it('is in the browser\'s theme entry for entry', () => {
    for (const [name, value] of Object.entries(PALETTE)) assert.deepEqual(THEME[name], value, name);
    PALETTE.groups.forEach((c, g) => {
      assert.equal(groupColor(g), c);
      assert.equal(groupColor(g + PALETTE.groups.length), c);
    });
  });

  it('holds camelCase names of #rrggbb colours or non-empty lists of them, as herd-view\'s build needs', () => {
    assert.ok(Object.keys(PALETTE).length > 0);
    for (const [name, value] of Object.entries(PALETTE)) {
      assert.match(name, /^[a-z][A-Za-z0-9]*$/);
      const list = Array.isArray(value) ? value : [value];
      assert.ok(list.length > 0, name);
      for (const c of list) assert.match(c, HEX, name);
    }
    for (const name of ['outside', 'world', 'worldEdge', 'obstacle', 'obstacleRim', 'wall', 'collided', 'groups']) {
      assert.ok(name in PALETTE, `${name} is drawn by both viewers`);
    }
  });
});

// CIELAB of an sRGB colour as seen with normal vision or, simulated with Machado, Oliveira and
// Fernandes's matrices (2009, severity 1), by a protanope or a deuteranope.
const CVD = {
  normal: [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
  protan: [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
  deutan: [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.01182, 0.04294, 0.968881]],
};
function lab(hex, vision) {
  const n = parseInt(hex.slice(1), 16);
  const lin = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((c) => {
    const v = c / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  const c = CVD[vision].map((r) => Math.min(1, Math.max(0, r[0] * lin[0] + r[1] * lin[1] + r[2] * lin[2])));
  const X = (0.4124 * c[0] + 0.3576 * c[1] + 0.1805 * c[2]) / 0.95047;
  const Y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  const Z = (0.0193 * c[0] + 0.1192 * c[1] + 0.9505 * c[2]) / 1.08883;
  const f = (t) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(Y) - 16, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))];
}
const deltaE = (a, b, vision) => {
  const p = lab(a, vision);
  const q = lab(b, vision);
  return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
};

describe('the palette\'s colours apart', () => {
  // The old palette failed each of these: salmon (#ff6b6b) 37 from the collided red (#ff1f1f) to
  // everyone, its orange 19 from it to a deuteranope, two of its greens 9 apart to a deuteranope.
  // herd-view drew with it until both viewers read palette.json.
  for (const vision of ['normal', 'protan', 'deutan']) {
    it(`${vision} vision: every group is far from the collided red, from the others and from the ground`, () => {
      const groups = THEME.groups;
      for (const g of groups) {
        const d = deltaE(g, THEME.collided, vision);
        assert.ok(d >= 30, `group colour ${g} is ${d.toFixed(1)} from the collided red ${THEME.collided}`);
        assert.ok(deltaE(g, THEME.world, vision) >= 40, `group colour ${g} is too near the ground`);
      }
      for (let i = 0; i < groups.length; i++) {
        for (let j = i + 1; j < groups.length; j++) {
          const d = deltaE(groups[i], groups[j], vision);
          assert.ok(d >= 15, `groups ${i} and ${j} (${groups[i]}, ${groups[j]}) are ${d.toFixed(1)} apart`);
        }
      }
    });
  }
});

