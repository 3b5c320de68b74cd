// The heat map's arithmetic in Node (clients/web/density.js) and its switch (heat_map.js's HeatMap,
// on fakes of the page): the wire's layer expanded cell by cell from the fixture the C++ tests pin
// (protocol/fixtures/server/snapshot_density.json), the values, the legend's scale, the colours,
// D and Shift + D, what is sent and what is kept. tests/e2e/heat.test.mjs shows it in the page.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { expandDensity, fillHeat, heatValues, maxValue, niceMax, rampColor, scaleLabel, hexRgb, SPEED_STEPS } from '../../clients/web/density.js';
import { HeatLayer, HeatMap, rampGradient } from '../../clients/web/heat_map.js';
import { THEME } from '../../clients/web/theme.js';

const FIXTURE = JSON.parse(readFileSync(new URL('../../protocol/fixtures/server/snapshot_density.json', import.meta.url), 'utf8'));

describe('expandDensity', () => {
  it("puts each of the fixture's agents in the cell under it, with its cell's mean speed", () => {
    const g = expandDensity(FIXTURE.density);
    assert.ok(g);
    assert.equal(g.cols * g.rows, 64 * 48);
    assert.equal(g.agents, FIXTURE.agents.length);
    for (const a of FIXTURE.agents) {
      const i = Math.floor(a.y / g.cell) * g.cols + Math.floor(a.x / g.cell);
      assert.equal(g.count[i], 1, `agent ${a.id}`);
      // Within half a step of the agent's own speed (alone in its cell, so the cell's mean).
      const speed = Math.hypot(a.vx, a.vy);
      assert.ok(Math.abs(g.speed[i] - speed) <= FIXTURE.density.speed_max / SPEED_STEPS / 2 + 1e-6, `${g.speed[i]} vs ${speed}`);
    }
    assert.equal(g.count.reduce((s, n) => s + n, 0), FIXTURE.agents.length);
  });

  it("refuses a layer that does not add up: such a layer is not drawn", () => {
    const base = { cell: 1, cols: 2, rows: 2, count: [3, -2, 1], speed_max: 2, speed: [255, 0] };
    const g = expandDensity(base);
    assert.ok(g);
    assert.deepEqual([...g.count], [3, 0, 0, 1]);
    assert.deepEqual([...g.speed], [2, 0, 0, 0]);
    for (const bad of [
      { count: [3, -2] }, // three cells of four
      { count: [3, -4] }, // five
      { count: [3, 0, -2] }, // an empty cell is a run, never 0
      { count: [3, -2, 1], speed: [1] }, // a speed short
      { count: [3, -2, 1], speed: [1, 2, 3] }, // one too many
      { count: [1.5, -3], speed: [1] },
      { cols: 65 },
      { cell: 0 },
      { speed_max: -1 },
    ]) {
      assert.equal(expandDensity({ ...base, ...bad }), null, JSON.stringify(bad));
    }
  });
});

describe('heatValues', () => {
  const g = /** @type {import('../../clients/web/density.js').DensityGrid} */ (expandDensity({ cell: 2, cols: 2, rows: 1, count: [8, -1], speed_max: 3, speed: [255] }));
  it('gives agents per square unit (the count over the cell area) and mean speeds, NaN where empty', () => {
    const d = heatValues(g, 'density');
    assert.equal(d[0], 2); // 8 agents in 2 x 2 units
    assert.ok(Number.isNaN(d[1]));
    const s = heatValues(g, 'speed');
    assert.equal(s[0], 3);
    assert.ok(Number.isNaN(s[1]));
    assert.equal(maxValue(d), 2);
    assert.equal(maxValue(new Float32Array([NaN, NaN])), 0);
  });
});

describe("the legend's scale", () => {
  it('tops at the smallest 1, 2 or 5 times a power of ten that holds the largest value', () => {
    for (const [max, top] of [
      [0, 1],
      [NaN, 1],
      [0.0032, 0.005],
      [0.0064, 0.01],
      [0.2, 0.2],
      [0.3, 0.5],
      [1, 1],
      [3, 5],
      [12.5, 20],
      [20, 20],
      [64, 100],
    ]) {
      const got = niceMax(max);
      assert.ok(Math.abs(got - top) < 1e-12 * top, `${max}: ${got}, want ${top}`);
      if (max > 0) assert.ok(got >= max);
    }
  });

  it('writes its numbers short', () => {
    assert.equal(scaleLabel(0), '0');
    assert.equal(scaleLabel(0.005), '0.005');
    assert.equal(scaleLabel(0.0025), '0.0025');
    assert.equal(scaleLabel(12.5), '12.5');
    assert.equal(scaleLabel(1 / 3), '0.333');
    assert.equal(scaleLabel(20000), '20,000');
  });
});

describe('the colours', () => {
  const stops = ['#000000', '#ff0000', '#ffffff'];
  it('run along the ramp from its first stop to its last, more opaque the higher', () => {
    assert.deepEqual(rampColor(0, stops, [0.2, 0.6]), [0, 0, 0, 51]);
    assert.deepEqual(rampColor(0.5, stops, [0.2, 0.6]), [255, 0, 0, 102]);
    assert.deepEqual(rampColor(1, stops, [0.2, 0.6]), [255, 255, 255, 153]);
    assert.deepEqual(rampColor(0.25, stops, [0.2, 0.6]), [128, 0, 0, 77]);
    assert.deepEqual(rampColor(7, stops, [0.2, 0.6]), rampColor(1, stops, [0.2, 0.6]));
    assert.deepEqual(rampColor(-1, stops, [0.2, 0.6]), rampColor(0, stops, [0.2, 0.6]));
    assert.deepEqual(rampColor(NaN, stops, [0.2, 0.6]), rampColor(0, stops, [0.2, 0.6]));
    assert.deepEqual(rampColor(0.7, ['#123456'], [1, 1]), [0x12, 0x34, 0x56, 255]);
  });

  it('leave an empty cell transparent and paint the others on the scale', () => {
    const out = new Uint8ClampedArray(3 * 4);
    fillHeat(out, new Float32Array([NaN, 0.5, 2]), 1, stops, [0.2, 0.6]);
    assert.deepEqual([...out.subarray(0, 4)], [0, 0, 0, 0]);
    assert.deepEqual([...out.subarray(4, 8)], [255, 0, 0, 102]);
    assert.deepEqual([...out.subarray(8, 12)], [255, 255, 255, 153], 'over the top: the top colour');
  });

  it("come from the theme, darkest first, the bar's gradient through every stop", () => {
    const lum = (/** @type {string} */ c) => hexRgb(c).reduce((s, v) => s + v, 0);
    assert.ok(THEME.heatRamp.length >= 2);
    assert.ok(lum(THEME.heatRamp[0]) < lum(THEME.heatRamp.at(-1)));
    assert.ok(THEME.heatAlpha[0] > 0 && THEME.heatAlpha[0] < THEME.heatAlpha[1] && THEME.heatAlpha[1] <= 1);
    for (const c of THEME.heatRamp) assert.ok(rampGradient().includes(c), c);
  });
});

describe('HeatMap', () => {
  const make = (/** @type {string | null} */ kept = null, { full = false } = {}) => {
    const sent = /** @type {object[]} */ ([]);
    const store = new Map(kept === null ? [] : [['herd.heat', kept]]);
    const storage = /** @type {Storage} */ (
      /** @type {unknown} */ ({
        getItem: (/** @type {string} */ k) => store.get(k) ?? null,
        setItem: (/** @type {string} */ k, /** @type {string} */ v) => {
          if (full) throw new Error('QuotaExceededError');
          store.set(k, v);
        },
      })
    );
    const el = () => /** @type {HTMLElement} */ (/** @type {unknown} */ ({ hidden: true, textContent: '', style: { background: '' } }));
    const legend = { box: el(), title: el(), ramp: el(), lo: el(), mid: el(), hi: el(), unit: el(), note: el() };
    const layer = new HeatLayer();
    const heat = new HeatMap({ layer, send: (m) => (sent.push(m), true), legend, storage });
    return { heat, layer, legend, sent, store };
  };

  it('D shows it and asks the server, D again hides it and tells the server to stop', () => {
    const { heat, legend, sent, store } = make();
    assert.equal(heat.mode, 'off');
    assert.equal(legend.box.hidden, true);
    heat.toggle(false);
    assert.equal(heat.mode, 'density');
    assert.deepEqual(sent, [{ type: 'density', on: true }]);
    assert.equal(legend.box.hidden, false);
    assert.equal(legend.title.textContent, 'heat: density');
    assert.match(legend.note.textContent, /waiting/);
    assert.equal(store.get('herd.heat'), 'density');
    heat.toggle(false);
    assert.equal(heat.mode, 'off');
    assert.deepEqual(sent.at(-1), { type: 'density', on: false });
    assert.equal(legend.box.hidden, true);
    assert.equal(store.get('herd.heat'), 'off');
  });

  it('Shift + D switches to mean speed (and shows it), without asking again while on', () => {
    const { heat, legend, sent, layer } = make();
    heat.toggle(true);
    assert.equal(heat.mode, 'speed');
    assert.deepEqual(sent, [{ type: 'density', on: true }]);
    heat.receive(FIXTURE.density, FIXTURE.tick);
    assert.equal(layer.kind, 'speed');
    assert.equal(layer.max, niceMax(12.5));
    assert.equal(legend.title.textContent, 'heat: mean speed');
    assert.equal(legend.hi.textContent, '20');
    assert.equal(legend.mid.textContent, '10');
    assert.match(legend.unit.textContent, /^units\/s, cells of 12\.5 units$/);
    heat.toggle(true);
    assert.equal(heat.mode, 'density');
    assert.equal(sent.length, 1, 'already on: nothing to ask');
    assert.equal(layer.kind, 'density');
    // Three agents alone in cells of 12.5 x 12.5: 1 / 156.25 agents per square unit at most.
    assert.equal(layer.max, niceMax(1 / 156.25));
    assert.match(legend.unit.textContent, /^agents per square unit, cells of 12\.5 units$/);
    heat.toggle(false);
    heat.toggle(false);
    assert.equal(heat.mode, 'density', 'D shows the kind last shown');
  });

  it('keeps the choice for the next page, asks again in every new session, and forgets an old world', () => {
    const { heat, sent, layer } = make('speed');
    assert.equal(heat.mode, 'speed');
    assert.deepEqual(sent, [], 'nothing is sent before a welcome');
    heat.welcomed(true);
    assert.deepEqual(sent, [{ type: 'density', on: true }]);
    heat.receive(FIXTURE.density, 7);
    assert.ok(layer.grid);
    assert.equal(heat.received, 1);
    heat.welcomed(false); // the same world: the layer stays
    assert.ok(layer.grid);
    heat.welcomed(true); // another world: none until its own comes
    assert.equal(layer.grid, null);
    assert.equal(sent.length, 3);
    assert.equal(make('nonsense').heat.mode, 'off');
    const off = make('off');
    off.heat.welcomed(true);
    assert.deepEqual(off.sent, [], 'off: nothing asked');
  });

  it('works on when the browser keeps nothing', () => {
    const { heat, sent } = make(null, { full: true });
    heat.toggle(false);
    assert.equal(heat.mode, 'density');
    assert.equal(sent.length, 1);
  });

  it('draws nothing of a layer that does not add up, and says so', () => {
    const { heat, layer, legend } = make('density');
    heat.receive({ ...FIXTURE.density, count: [1] }, 3);
    assert.equal(layer.grid, null);
    assert.match(legend.note.textContent, /did not add up/);
  });
});
