// Teams and fog of war as the page works them out (clients/web/fog.js): which agents a team sees,
// by its uniform grid, against a count of every pair on random crowds; the distance's bound
// (<=); the discs the fog is cleared by, culled to the camera; the teams a spectator can pick
// and their cycle. tests/e2e/players.test.mjs shows them in the page against the real server.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  DEFAULT_SIGHT,
  coloursByTeam,
  fogDiscs,
  knowsTeams,
  markDiscs,
  nextTeamView,
  seenBy,
  sightOf,
  teamsPresent,
} from '../../clients/web/fog.js';

// A small seeded generator (mulberry32), so that a failure can be run again.
function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function agent(id, x, y, team, sight) {
  const a = { id, x, y, vx: 0, vy: 0, r: 8, group: 0, state: 'idle', team };
  if (sight !== undefined) a.sight = sight;
  return a;
}

// n agents in a world of w x h (some outside it), teams 0 to `teams`, a third of them with the
// default sight (no field), the rest a sight of their own from 0 to 400.
function crowd(seed, n, { w = 2000, h = 1500, teams = 4 } = {}) {
  const rnd = random(seed);
  const out = [];
  for (let i = 0; i < n; i++) {
    const x = rnd() * (w + 200) - 100;
    const y = rnd() * (h + 200) - 100;
    const team = Math.floor(rnd() * (teams + 1));
    const sight = rnd() < 1 / 3 ? undefined : Math.round(rnd() * 400 * 100) / 100;
    out.push(agent(i + 1, x, y, team, sight));
  }
  return out;
}

// What the server sends a player of `team`: its agents, and every agent within the sight of one
// of them, centre to centre: every pair tested.
function bruteSeen(agents, team) {
  const seen = new Set();
  for (const a of agents) {
    if ((a.team ?? 0) === team) {
      seen.add(a.id);
      continue;
    }
    for (const w of agents) {
      if ((w.team ?? 0) !== team) continue;
      const s = w.sight ?? DEFAULT_SIGHT;
      const dx = a.x - w.x;
      const dy = a.y - w.y;
      if (dx * dx + dy * dy <= s * s) {
        seen.add(a.id);
        break;
      }
    }
  }
  return seen;
}

const sorted = (set) => [...set].sort((p, q) => p - q);

describe('seenBy', () => {
  it('is what testing every pair gives, for every team of random crowds', () => {
    let compared = 0;
    let partial = 0; // views that see some others' agents and not all of them
    for (const [seed, n, opts] of [
      [1, 300, {}],
      [2, 500, { teams: 2 }],
      [3, 400, { w: 600, h: 400 }], // crowded: most agents seen by every team
      [4, 200, { w: 20000, h: 20000, teams: 6 }], // sparse: few seen
    ]) {
      const agents = crowd(seed, n, opts);
      for (let team = 0; team <= (opts.teams ?? 4) + 1; team++) {
        const want = bruteSeen(agents, team);
        const got = seenBy(agents, team);
        assert.deepEqual(sorted(got), sorted(want), `seed ${seed}, team ${team}`);
        compared++;
        const own = agents.filter((a) => a.team === team).length;
        if (want.size > own && want.size < agents.length) partial++;
      }
    }
    assert.ok(compared >= 20);
    assert.ok(partial >= 12, `only ${partial} views neither everything nor only their own`);
  });

  it('sees at exactly the sight, not past it, and uses each watcher its own sight', () => {
    const agents = [
      agent(1, 0, 0, 1, 5),
      agent(2, 3, 4, 2), // 5 away: seen
      agent(3, 3, 4.001, 2), // past 5: not seen by agent 1
      agent(4, 1000, 0, 1), // default sight 200
      agent(5, 1200, 0, 0), // 200 from agent 4: seen
      agent(6, 1200.01, 0, 0), // past it
      agent(7, -500, -500, 1, 0), // sight 0 sees only its own point
      agent(8, -500, -500, 3),
    ];
    assert.deepEqual(sorted(seenBy(agents, 1)), [1, 2, 4, 5, 7, 8]);
    // Team 2 (default sight) sees agent 1 at 5 units; team 3's agent at (-500, -500) sees agent 7.
    assert.deepEqual(sorted(seenBy(agents, 2)), [1, 2, 3]);
    assert.deepEqual(sorted(seenBy(agents, 3)), [7, 8]);
    assert.deepEqual(sorted(seenBy(agents, 9)), [], 'a team with no agents sees nothing');
  });

  it('takes an agent without a team as nobody\'s (team 0), and one without a sight as seeing 200', () => {
    const plain = [{ id: 1, x: 0, y: 0 }, { id: 2, x: 150, y: 0 }, { id: 3, x: 0, y: 190, team: 1 }];
    assert.deepEqual(sorted(seenBy(/** @type {any} */ (plain), 0)), [1, 2, 3]);
    assert.deepEqual(sorted(seenBy(/** @type {any} */ (plain), 1)), [1, 3]);
    assert.equal(sightOf({}), 200);
    assert.equal(sightOf({ sight: 0 }), 0);
  });
});

describe('fogDiscs', () => {
  it("gives the team's discs of sight that meet the rectangle, and no other team's", () => {
    const agents = [
      agent(1, 100, 100, 1), // r 200: meets
      agent(2, 1000, 100, 1, 50), // far right of the rect
      agent(3, 560, 100, 1, 50), // just reaches x1 = 500... 560 - 50 = 510: no
      agent(4, 540, 100, 1, 50), // 540 - 50 = 490: yes
      agent(5, 200, 200, 2), // another team
      agent(6, 200, 200, 1, 0), // sees nothing: clears nothing
    ];
    const discs = fogDiscs(agents, 1, { x0: 0, y0: 0, x1: 500, y1: 400 });
    assert.deepEqual(discs, [
      { x: 100, y: 100, r: 200 },
      { x: 540, y: 100, r: 50 },
    ]);
    assert.deepEqual(fogDiscs(agents, 3, { x0: 0, y0: 0, x1: 500, y1: 400 }), []);
  });
});

describe('teams', () => {
  it('lists the teams present, colours by team only when one is not 0, and knows teams from any field', () => {
    const agents = [agent(1, 0, 0, 3), agent(2, 0, 0, 0), agent(3, 0, 0, 1), agent(4, 0, 0, 3)];
    assert.deepEqual(teamsPresent(agents), [1, 3]);
    assert.equal(coloursByTeam(agents), true);
    assert.equal(coloursByTeam([agent(1, 0, 0, 0)]), false, 'every agent nobody\'s: group colours');
    assert.equal(knowsTeams([agent(1, 0, 0, 0)]), true);
    assert.equal(knowsTeams([{ id: 1 }]), false, 'a binary frame without teams');
    assert.equal(coloursByTeam([{ id: 1 }]), false);
  });

  it('cycles the whole world, then each team, then the whole world', () => {
    const teams = [1, 2, 5];
    const views = [];
    let v = /** @type {number | null} */ (null);
    for (let i = 0; i < 5; i++) {
      v = nextTeamView(v, teams);
      views.push(v);
    }
    assert.deepEqual(views, [1, 2, 5, null, 1]);
    assert.equal(nextTeamView(3, teams), 5, 'a team gone goes on to the next');
    assert.equal(nextTeamView(null, []), null);
  });
});

describe('markDiscs', () => {
  it('marks exactly the pixels whose centres are within a disc, as testing every pixel and disc does', () => {
    const rnd = random(7);
    for (const [w, h, n, maxR] of [[64, 48, 30, 12], [97, 31, 200, 5], [40, 40, 3, 25]]) {
      const discs = [];
      for (let i = 0; i < n; i++) {
        // Some off the mask, some on pixel centres and whole radii (the bound itself), most anywhere.
        const exact = rnd() < 0.3;
        const x = exact ? Math.floor(rnd() * w) + 0.5 : rnd() * (w + 20) - 10;
        const y = exact ? Math.floor(rnd() * h) + 0.5 : rnd() * (h + 20) - 10;
        const r = exact ? Math.floor(rnd() * maxR) : rnd() * maxR;
        discs.push({ x, y, r });
      }
      const mask = new Uint8Array(w * h);
      markDiscs(mask, w, h, discs);
      let marked = 0;
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          const want = discs.some((d) => (x + 0.5 - d.x) ** 2 + (y + 0.5 - d.y) ** 2 <= d.r * d.r) ? 1 : 0;
          assert.equal(mask[y * w + x], want, `${w}x${h}: pixel ${x}, ${y}`);
          marked += want;
        }
      }
      assert.ok(marked > 0 && marked < w * h, `${w}x${h}: ${marked} marked`);
    }
  });

  it('touches nothing outside the mask, for discs past its edges', () => {
    const mask = new Uint8Array(10 * 10 + 10); // ten bytes past the mask's end, which must stay 0
    markDiscs(mask.subarray(0, 100), 10, 10, [{ x: 9, y: 9, r: 30 }, { x: -5, y: 5, r: 6 }]);
    assert.equal(mask.subarray(0, 100).every((v) => v === 1), true);
    assert.deepEqual([...mask.subarray(100)], new Array(10).fill(0));
  });
});
