// Stalled agents as the page shows them (clients/web/stalls.js, PROTOCOL.md's `stall`): every
// reason the protocol names has a badge letter, the hover's sentence says the reason, how long and
// who, the status bar counts them, and the agent panel's state cell names the reason.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { STALL_LETTERS, stallText, stalledCount } from '../../clients/web/stalls.js';
import { agentCells } from '../../clients/web/panels.js';

const base = { id: 7, x: 10, y: 20, vx: 0, vy: 0, r: 8, group: 1, state: 'moving' };

describe('stalls', () => {
  it('has a badge letter for every reason PROTOCOL.md names', () => {
    const doc = readFileSync(new URL('../../protocol/PROTOCOL.md', import.meta.url), 'utf8');
    const from = doc.indexOf('| reason | meaning | `stall_by` |');
    const table = doc.slice(from, doc.indexOf('\n\n', from));
    const reasons = [...table.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
    assert.deepEqual(reasons.sort(), Object.keys(STALL_LETTERS).sort());
  });

  it('says why, for how long and who', () => {
    assert.equal(stallText(base), '');
    const stuck = { ...base, stall: 'queueing', stall_for: 3.25, stall_by: [4, 9] };
    assert.equal(stallText(stuck), 'stalled 3.3 s: queueing behind others going its way (by 4, 9)');
    assert.equal(stallText({ ...base, stall: 'blocked', stall_for: 2.5 }), 'stalled 2.5 s: blocked (a wall, an obstacle or the edge)');
  });

  it('counts the stalled and names the reason in the panel', () => {
    const stuck = { ...base, stall: 'pinned', stall_for: 2.5 };
    assert.equal(stalledCount([base, stuck, { ...stuck, id: 8 }]), 2);
    assert.equal(agentCells(stuck, new Map())[5], 'moving · stalled: pinned');
    assert.equal(agentCells(base, new Map())[5], 'moving');
  });
});
