// What the right button orders (clients/web/orders.js): a move that keeps the group's shape,
// queued with Shift; an attack-move armed by A; a patrol armed by Q, to one point or through a
// route given with Shift; and the route an agent's snapshot says it will take.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { MAX_ROUTE_POINTS, arm, queuedRoute, rightClick, shiftReleased } from '../../clients/web/orders.js';

const P = { x: 100.12345, y: 200 };
const Q = { x: 300, y: 50.5 };

describe('the right button', () => {
  it('moves the selection keeping its shape, and queues with Shift', () => {
    assert.deepEqual(rightClick(null, [3, 1], P, false), {
      fields: { cmd: 'set_target', agents: [3, 1], target: { x: 100.123, y: 200 }, spread: 'keep' },
      armed: null,
    });
    assert.deepEqual(rightClick(null, [3], P, true).fields, { cmd: 'set_target', agents: [3], target: { x: 100.123, y: 200 }, spread: 'keep', queue: true });
  });

  it('sends nothing without a selection, and drops an armed order', () => {
    assert.deepEqual(rightClick(null, [], P, false), { fields: null, armed: null });
    assert.deepEqual(rightClick(arm('patrol'), [], P, true), { fields: null, armed: null });
  });

  it('attack-moves once armed: a plain click disarms, Shift queues and keeps it armed until Shift is let go', () => {
    const once = rightClick(arm('attack_move'), [7], P, false);
    assert.deepEqual(once, { fields: { cmd: 'attack_move', agents: [7], target: { x: 100.123, y: 200 }, spread: 'keep' }, armed: null });
    const queued = rightClick(arm('attack_move'), [7], Q, true);
    assert.deepEqual(queued.fields, { cmd: 'attack_move', agents: [7], target: Q, spread: 'keep', queue: true });
    assert.equal(queued.armed?.kind, 'attack_move');
    assert.deepEqual(shiftReleased(queued.armed, [7]), { fields: null, armed: null });
    // Armed and not yet used: letting go of Shift (pressed for something else) keeps it.
    assert.deepEqual(shiftReleased(arm('attack_move'), [7]).armed, arm('attack_move'));
  });

  it('patrols to one point, or through the points given with Shift, sent by the last plain click or by letting go', () => {
    assert.deepEqual(rightClick(arm('patrol'), [2], Q, false), { fields: { cmd: 'patrol', agents: [2], target: Q, spread: 'keep' }, armed: null });
    let step = rightClick(arm('patrol'), [2], P, true);
    assert.equal(step.fields, null);
    step = rightClick(step.armed, [2], Q, true);
    assert.deepEqual(step.armed?.route, [P, Q]);
    const last = rightClick(step.armed, [2], { x: 1, y: 2 }, false);
    assert.deepEqual(last, {
      fields: { cmd: 'patrol', agents: [2], points: [{ x: 100.123, y: 200 }, Q, { x: 1, y: 2 }], spread: 'keep' },
      armed: null,
    });
    assert.deepEqual(shiftReleased(step.armed, [2]), { fields: { cmd: 'patrol', agents: [2], points: [{ x: 100.123, y: 200 }, Q], spread: 'keep' }, armed: null });
    // One point given with Shift: a patrol to it.
    const one = rightClick(arm('patrol'), [2], Q, true);
    assert.deepEqual(shiftReleased(one.armed, [2]).fields, { cmd: 'patrol', agents: [2], target: Q, spread: 'keep' });
    // Nothing given yet: Q stays armed.
    assert.deepEqual(shiftReleased(arm('patrol'), [2]).armed, arm('patrol'));
  });

  it("sends a route at the protocol's limit of points", () => {
    let armed = arm('patrol');
    for (let i = 0; i < MAX_ROUTE_POINTS - 1; i++) {
      const step = rightClick(armed, [1], { x: i, y: i }, true);
      assert.equal(step.fields, null);
      armed = /** @type {import('../../clients/web/orders.js').Armed} */ (step.armed);
    }
    const full = rightClick(armed, [1], { x: 99, y: 99 }, true);
    assert.equal(full.armed, null);
    assert.equal(/** @type {unknown[]} */ (full.fields?.points ?? []).length, MAX_ROUTE_POINTS);
  });
});

describe("an agent's queued route", () => {
  it('is its goal, then its waypoints in order; nothing without a goal', () => {
    assert.deepEqual(queuedRoute({ tx: 1, ty: 2, waypoints: [3, 4, 5, 6] }), [
      { x: 1, y: 2 },
      { x: 3, y: 4 },
      { x: 5, y: 6 },
    ]);
    assert.deepEqual(queuedRoute({ tx: 1, ty: 2 }), [{ x: 1, y: 2 }]);
    assert.deepEqual(queuedRoute({ waypoints: [3, 4] }), []);
  });
});
