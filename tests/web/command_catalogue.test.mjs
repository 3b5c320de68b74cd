// The command catalogue's reader (clients/web/command_catalogue.js), in Node: which fields a form
// shows for a variant or a group's choice, how its text becomes the command's fields (selections
// as herd-ctl writes them, ranges, choices), that every command's form starts ready to send, and
// the right-click menu's actions. The C++ tests hold commands.json to the codec; the browser
// tests send every command from the palette.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  COMMANDS,
  commandNamed,
  formCommand,
  matchCommands,
  menuActions,
  menuForm,
  newForm,
  parseField,
  parseSelection,
  rangeText,
  shownFields,
  switchVariant,
} from '../../clients/web/command_catalogue.js';

/** @type {import('../../clients/web/command_catalogue.js').FormContext} */
const CTX = {
  selected: [],
  world: { width: 800, height: 600 },
  map: { width: 20, height: 15 },
  obstacles: [{ id: 4, x: 10, y: 10, r: 5 }],
  lists: { scenarios: ['attack', 'default'] },
};
const cmd = (name) => /** @type {import('../../clients/web/command_catalogue.js').CatalogueCommand} */ (commandNamed(name));
const shown = (name, form) => shownFields(cmd(name), form).map((t) => t.field.name);

describe('the command catalogue', () => {
  it('reads selections as herd-ctl writes them, and refuses what is not one', () => {
    assert.equal(parseSelection('all'), 'all');
    assert.deepEqual(parseSelection('3, 1,2'), [3, 1, 2]);
    assert.deepEqual(parseSelection('group:2'), { group: 2 });
    assert.deepEqual(parseSelection('team:3'), { team: 3 });
    assert.equal(parseSelection('team:64'), undefined);
    assert.equal(parseSelection('team:'), undefined);
    assert.deepEqual(parseSelection('rect:0,0,100,50'), { rect: { x0: 0, y0: 0, x1: 100, y1: 50 } });
    assert.deepEqual(parseSelection('group:1@0,0,10,10'), { group: 1, rect: { x0: 0, y0: 0, x1: 10, y1: 10 } });
    for (const bad of ['', 'everyone', 'group:', 'group:256', 'group:1.5', 'rect:1,2,3', '1,-2', '1,x', '4294967296']) {
      assert.equal(parseSelection(bad), undefined, bad);
    }
  });

  it('reads each kind, within its range and choices', () => {
    const field = (c, f) => /** @type {any} */ (cmd(c).fields.find((x) => x.name === f));
    assert.deepEqual(parseField(field('step', 'ticks'), '5'), { value: 5 });
    assert.deepEqual(parseField(field('step', 'ticks'), '0'), { error: 'ticks: must be in [1, 1000]' });
    assert.ok('error' in parseField(field('step', 'ticks'), '1.5'));
    assert.ok('error' in parseField(field('set_param', 'tick_rate'), '0'), 'an exclusive minimum');
    assert.deepEqual(parseField(field('set_param', 'tick_rate'), '0.5'), { value: 0.5 });
    assert.equal(rangeText(field('set_param', 'tick_rate')), '(0, 1000]');
    assert.deepEqual(parseField(field('set_pathing', 'neighbours'), '4'), { value: 4 }, 'a number among the choices');
    assert.ok('error' in parseField(field('set_pathing', 'neighbours'), '5'));
    assert.deepEqual(parseField(field('set_target', 'target'), ' 12.5, 7 '), { value: { x: 12.5, y: 7 } });
    assert.ok('error' in parseField(field('set_target', 'target_tile'), '1.5, 2'));
    assert.deepEqual(parseField(field('load_map', 'rows'), '#.#\n...\n'), { value: ['#.#', '...'] });
    assert.deepEqual(parseField(field('spawn', 'agents'), '[{"x":1,"y":2}]'), { value: [{ x: 1, y: 2 }] });
    assert.ok('error' in parseField(field('spawn', 'agents'), '{"x":1}'));
    assert.ok('error' in parseField(field('load_scenario', 'name'), ''));
    assert.ok('error' in parseField(field('load_scenario', 'name'), 'x'.repeat(257)));
  });

  it("starts every command's form ready to send, but for the agent it names", () => {
    for (const command of COMMANDS) {
      const form = newForm(command, CTX);
      for (const t of shownFields(command, form)) if (t.field.kind === 'agent') form.texts[t.field.name] = '7';
      const built = formCommand(command, form);
      assert.ok('fields' in built, `${command.cmd}: ${JSON.stringify(built)}`);
      assert.equal(built.fields.cmd, command.cmd);
    }
    // What a form starts with: the selection (or all), the world's centre, optional fields left out.
    const target = formCommand(cmd('set_target'), newForm(cmd('set_target'), { ...CTX, selected: [9, 3] }));
    assert.deepEqual(target, { fields: { cmd: 'set_target', agents: [3, 9], target: { x: 400, y: 300 } } });
    assert.deepEqual(formCommand(cmd('remove_obstacle'), newForm(cmd('remove_obstacle'), CTX)), { fields: { cmd: 'remove_obstacle', id: 4 } });
  });

  it('shows one member of an exclusive group, and a field only with the one it goes with', () => {
    const form = newForm(cmd('spawn'), CTX);
    assert.deepEqual(shown('spawn', form), ['count', 'group', 'priority', 'layer', 'mask', 'sight', 'max_hp', 'hp', 'damage', 'range', 'cooldown', 'team']);
    form.chosen.exactly_one = 'agents';
    assert.deepEqual(shown('spawn', form), ['agents', 'team']);
    assert.deepEqual(formCommand(cmd('spawn'), form), { fields: { cmd: 'spawn', agents: [{ x: 400, y: 300 }] } });
  });

  it("sends a team's units from the spawn form: team and sight", () => {
    const form = newForm(cmd('spawn'), CTX);
    form.texts.count = '5';
    form.texts.team = '1';
    form.texts.sight = '150';
    assert.deepEqual(formCommand(cmd('spawn'), form), { fields: { cmd: 'spawn', count: 5, team: 1, sight: 150 } });
    form.texts.team = '64';
    assert.ok('error' in formCommand(cmd('spawn'), form), 'a team past 63 is refused before sending');
  });

  it("switches a variant's fields: a behaviour's, keeping what was typed", () => {
    const sb = cmd('set_behaviour');
    let form = newForm(sb, CTX);
    assert.deepEqual(shown('set_behaviour', form), ['agents', 'behaviour']);
    form = switchVariant(sb, form, 'flee', CTX);
    assert.deepEqual(shown('set_behaviour', form), ['agents', 'behaviour', 'target', 'radius']);
    form.chosen.exactly_one = 'agent';
    assert.deepEqual(shown('set_behaviour', form), ['agents', 'behaviour', 'agent', 'radius']);
    form.texts.agent = '12';
    form = switchVariant(sb, form, 'react', CTX, new Set(['agent']));
    assert.deepEqual(shown('set_behaviour', form), ['agents', 'behaviour', 'agent', 'radius', 'response']);
    assert.deepEqual(formCommand(sb, form), { fields: { cmd: 'set_behaviour', agents: 'all', behaviour: 'react', agent: 12, radius: 150 } });
    form = switchVariant(sb, form, 'pursue', CTX);
    assert.deepEqual(formCommand(sb, form), { error: 'agent is required' }, 'a field not typed in starts again');
    form = switchVariant(sb, form, 'hold', CTX);
    assert.deepEqual(shown('set_behaviour', form), ['agents', 'behaviour'], 'at most one: none to start with');
    assert.deepEqual(formCommand(sb, form), { fields: { cmd: 'set_behaviour', agents: 'all', behaviour: 'hold' } });
  });

  it('finds commands by words of their name or help, those named so first', () => {
    assert.deepEqual(matchCommands('obstacle').map((c) => c.cmd), ['add_obstacle', 'remove_obstacle']);
    assert.equal(matchCommands('remove')[0].cmd, 'remove_obstacle');
    assert.equal(matchCommands('set target')[0].cmd, 'set_target');
    assert.equal(matchCommands('').length, COMMANDS.length);
    assert.deepEqual(matchCommands('no such thing'), []);
  });

  it("offers on an agent set_behaviour's behaviours that name one, on an obstacle its removal", () => {
    assert.deepEqual(menuActions('agent').map((a) => a.label), ['seek', 'arrive', 'flee', 'pursue', 'evade', 'attack', 'react', 'follow']);
    assert.deepEqual(menuActions('obstacle').map((a) => a.label), ['remove obstacle']);
    const ctx = { ...CTX, selected: [5, 2] };
    const attack = /** @type {any} */ (menuActions('agent').find((a) => a.label === 'attack'));
    const { form, complete } = menuForm(attack, 11, ctx);
    assert.equal(complete, true);
    assert.deepEqual(formCommand(attack.command, form), { fields: { cmd: 'set_behaviour', agents: [2, 5], behaviour: 'attack', agent: 11 } });
    const seek = /** @type {any} */ (menuActions('agent').find((a) => a.label === 'seek'));
    assert.deepEqual(formCommand(seek.command, menuForm(seek, 11, ctx).form), { fields: { cmd: 'set_behaviour', agents: [2, 5], behaviour: 'seek', agent: 11 } });
    const react = /** @type {any} */ (menuActions('agent').find((a) => a.label === 'react'));
    assert.equal(menuForm(react, 11, ctx).complete, false, "react's radius is the user's to choose");
    const follow = /** @type {any} */ (menuActions('agent').find((a) => a.label === 'follow'));
    assert.deepEqual(formCommand(follow.command, menuForm(follow, 11, ctx).form), { fields: { cmd: 'set_behaviour', agents: [2, 5], behaviour: 'follow', agent: 11 } });
    const remove = menuActions('obstacle')[0];
    assert.deepEqual(formCommand(remove.command, menuForm(remove, 4, CTX).form), { fields: { cmd: 'remove_obstacle', id: 4 } });
  });
});
