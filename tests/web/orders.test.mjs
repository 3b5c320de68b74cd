// What the right button orders (clients/web/orders.js): a move that keeps the group's shape,
// queued with Shift; an attack-move armed by A; a patrol armed by Q, to one point or through a
// route given with Shift; and the route an agent's snapshot says it will take.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { MAX_ROUTE_POINTS, agentOrder, arm, isEnemy, orderWords, ownAgents, queuedRoute, rightClick, shiftReleased } from '../../clients/web/orders.js';

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

describe('the right button on an agent', () => {
  const agent = (id, group, team) => ({ id, group, team, x: 0, y: 0, vx: 0, vy: 0, r: 8 });
  const squad = [agent(1, 1, 1), agent(2, 1, 1)];

  it('attacks an agent of another group, and follows one of a selected agent\'s group', () => {
    assert.deepEqual(agentOrder(agent(9, 2, 0), squad, null), {
      fields: { cmd: 'set_behaviour', agents: [1, 2], behaviour: 'attack', agent: 9 },
      what: 'attack agent 9',
      attack: true,
    });
    const follow = agentOrder(agent(7, 1, 0), squad, null);
    assert.deepEqual([follow?.fields.behaviour, follow?.what, follow?.attack], ['follow', 'follow agent 7', false]);
    // A mixed selection: any of its groups is a friend's.
    assert.equal(isEnemy(agent(8, 3, 0), [agent(1, 1, 0), agent(4, 3, 0)], null), false);
  });

  it("for a player, attacks another team's agent whatever its group, nobody's too, and orders its own agents only", () => {
    assert.equal(isEnemy(agent(9, 1, 2), squad, 1), true, 'same group, other team');
    assert.equal(isEnemy(agent(9, 1, 0), squad, 1), true, "nobody's");
    assert.equal(isEnemy(agent(9, 5, 1), squad, 1), false, 'own team, other group');
    const selected = [agent(1, 1, 1), agent(3, 1, 2)];
    assert.deepEqual(ownAgents(selected, 1).map((a) => a.id), [1]);
    assert.deepEqual(ownAgents(selected, null).map((a) => a.id), [1, 3]);
    assert.deepEqual(agentOrder(agent(9, 1, 2), ownAgents(selected, 1), 1)?.fields.agents, [1]);
  });

  it('leaves the click to the move on a selected agent, or with nothing of its own selected', () => {
    assert.equal(agentOrder(squad[0], squad, null), null);
    assert.equal(agentOrder(agent(9, 2, 2), [], 1), null);
  });

  it('says what an order that is no plain move did', () => {
    assert.equal(orderWords(rightClick(arm('attack_move'), [1, 2], Q, false).fields ?? { cmd: '' }), 'attack-move: 2 agents to 300, 51');
    assert.equal(orderWords(rightClick(arm('patrol'), [1], Q, false).fields ?? { cmd: '' }), 'patrol: 1 agent to 300, 51 and back');
    assert.equal(orderWords({ cmd: 'patrol', agents: [1], points: [P, Q] }), 'patrol: 1 agent through 2 points');
    assert.equal(orderWords(rightClick(null, [1], Q, false).fields ?? { cmd: '' }), '');
    assert.equal(orderWords(rightClick(null, [1], Q, true).fields ?? { cmd: '' }), 'queued: 1 agent to 300, 51 after their orders');
  });
});
