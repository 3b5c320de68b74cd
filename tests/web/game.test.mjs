// The game as the page works it out (clients/web/game.js): which agents are hurt and how full
// their bars are, the marks hits and deaths leave and how they fade, the explored bits decoded
// as PROTOCOL.md lays them out (row-major, lowest bit first), a ghost's label and pick, the
// welcome's team colours, and a late spectator's countdown. tests/e2e/game.test.mjs shows them
// in the page against the real server.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  DEATH_MS,
  HIT_MS,
  addEventMarks,
  decodeExplored,
  delayLine,
  exploredAt,
  ghostAt,
  ghostLabel,
  healthFraction,
  hitFlashes,
  isHurt,
  markAlpha,
  teamColours,
} from '../../clients/web/game.js';
import { setTeamColours, teamColor, THEME } from '../../clients/web/theme.js';

describe('hit points', () => {
  it('only an agent under its most is hurt, and its bar is its share of them', () => {
    assert.equal(isHurt({}), false);
    assert.equal(isHurt({ hp: 100, max_hp: 100 }), false);
    assert.equal(isHurt({ hp: 40, max_hp: 100 }), true);
    assert.equal(isHurt({ hp: 0, max_hp: 0 }), false);
    assert.equal(healthFraction({ hp: 25, max_hp: 100 }), 0.25);
    assert.equal(healthFraction({ hp: 100, max_hp: 100 }), 1);
  });
});

describe('event marks', () => {
  it('a death stays DEATH_MS fading, a hit HIT_MS; faded ones are dropped with the next events', () => {
    const events = [
      { type: 'hit', tick: 1, agent: 4, by: 2, x: 10, y: 20, damage: 12, hp: 88 },
      { type: 'death', tick: 1, agent: 5, x: 30, y: 40 },
    ];
    let marks = addEventMarks([], /** @type {any} */ (events), 1000);
    assert.deepEqual(
      marks.map((m) => [m.type, m.agent, m.x, m.y]),
      [
        ['hit', 4, 10, 20],
        ['death', 5, 30, 40],
      ],
    );
    const death = marks[1];
    assert.equal(markAlpha(death, 1000), 1);
    assert.ok(Math.abs(markAlpha(death, 1000 + DEATH_MS / 2) - 0.5) < 1e-9);
    assert.equal(markAlpha(death, 1000 + DEATH_MS), 0);
    assert.equal(hitFlashes(marks, 1000).get(4), 1);
    assert.equal(hitFlashes(marks, 1000 + HIT_MS).size, 0);
    marks = addEventMarks(marks, [], 1000 + HIT_MS);
    assert.deepEqual(
      marks.map((m) => m.type),
      ['death'],
    );
    marks = addEventMarks(marks, undefined, 1000 + DEATH_MS);
    assert.equal(marks.length, 0);
  });
});

describe('explored ground', () => {
  it('decodes base64 bits row-major, lowest bit of each byte first', () => {
    // 10 x 2 cells: row 0 cells 0 and 9 explored, row 1 cell 3 (bit 13).
    const bytes = new Uint8Array(3);
    const set = (/** @type {number} */ i) => (bytes[i >> 3] |= 1 << (i & 7));
    set(0);
    set(9);
    set(13);
    const bits = Buffer.from(bytes).toString('base64');
    const g = decodeExplored({ cell: 25, cols: 10, rows: 2, bits });
    assert.ok(g);
    assert.equal(exploredAt(g, 1, 1), true);
    assert.equal(exploredAt(g, 26, 1), false);
    assert.equal(exploredAt(g, 9 * 25 + 5, 24), true);
    assert.equal(exploredAt(g, 3 * 25 + 1, 30), true);
    assert.equal(exploredAt(g, 2 * 25 + 1, 30), false);
    assert.equal(exploredAt(g, -1, 0), false, 'off the grid: unexplored');
    assert.equal(exploredAt(g, 0, 60), false);
    assert.equal(decodeExplored({ cell: 0, cols: 1, rows: 1, bits: 'AA==' }), null);
    assert.equal(decodeExplored(null), null);
  });
});

describe('ghosts', () => {
  const ghost = { id: 44, x: 100, y: 100, r: 8, group: 0, team: 2, time: 20.05 };
  it('says how long ago it was last seen, in whole seconds', () => {
    assert.equal(ghostLabel(ghost, 32.2), 'last seen 12 s ago');
    assert.equal(ghostLabel(ghost, 19), 'last seen 0 s ago');
  });
  it('is picked within its disc and the slack', () => {
    assert.equal(ghostAt([ghost], 105, 100, 0), ghost);
    assert.equal(ghostAt([ghost], 110, 100, 0), null);
    assert.equal(ghostAt([ghost], 110, 100, 3), ghost);
  });
});

describe('team colours', () => {
  it("the welcome's colours take the palette's place for their teams only", () => {
    const given = teamColours([
      { team: 1, colour: '#d04040' },
      { team: 2, colour: 'blue' },
    ]);
    assert.deepEqual([...given], [[1, '#d04040']]);
    setTeamColours(given);
    try {
      assert.equal(teamColor(1), '#d04040');
      assert.equal(teamColor(2), THEME.groups[1]);
    } finally {
      setTeamColours(new Map());
    }
    assert.equal(teamColor(1), THEME.groups[0]);
  });
});

describe('a late spectator', () => {
  it('counts down to its first view', () => {
    assert.equal(delayLine(30, 2.5), 'the world as it was 30 s ago: first view in 28 s');
    assert.equal(delayLine(30, 0), 'the world as it was 30 s ago: first view in 30 s');
    assert.equal(delayLine(30, 31), 'the world as it was 30 s ago: first view in 0 s');
  });
});
