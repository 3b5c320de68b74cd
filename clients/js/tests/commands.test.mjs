// Every command of the catalogue (src/catalogue.js, generated from the server's command table as
// clients/web/commands.json is, which the C++ tests hold to the server's codec) is a method of the
// client, taking exactly the command's fields and sending them under their names; a field the
// catalogue gains is accepted with no other edit. No server: a subclass of Commands catches what a
// method would send.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { CATALOGUE as PACKAGED, Client, Commands, COMMANDS, commandsFrom, group, rect, team } from '../src/index.js';

const CATALOGUE = PACKAGED.commands;
const BY_NAME = new Map(CATALOGUE.map((c) => [c.cmd, c]));
const VIEWERS = JSON.parse(readFileSync(new URL('../../web/commands.json', import.meta.url), 'utf8')).commands;

class Recorder extends Commands {
  async command(cmd, fields, options) {
    return { cmd, fields, options };
  }
}

// The methods of Commands: every own method of its prototype but the constructor and command.
const methods = Object.getOwnPropertyNames(Commands.prototype).filter((n) => n !== 'constructor' && n !== 'command');

// Fields from the catalogue's samples: every field that has one, the command's variant field's
// sample choosing the fields of its case.
function sampleFields(entry) {
  const fields = entry.fields ?? [];
  let allowed = null;
  if (entry.variants) {
    const sample = fields.find((f) => f.name === entry.variants.field).sample;
    const varying = new Set(entry.variants.cases.flatMap((c) => Object.keys(c.fields)));
    const chosen = entry.variants.cases.find((c) => c.value === sample).fields;
    allowed = (name) => !varying.has(name) || name in chosen;
  }
  return Object.fromEntries(fields.filter((f) => f.sample !== undefined && (!allowed || allowed(f.name))).map((f) => [f.name, f.sample]));
}

describe('commands', () => {
  it('the catalogue lists the protocol commands', () => {
    assert.ok(CATALOGUE.length >= 27);
    for (const cmd of ['spawn', 'set_target', 'step', 'kick']) assert.ok(BY_NAME.has(cmd), cmd);
  });

  it("the package's catalogue is the viewer's (clients/web/commands.json), or newer", () => {
    assert.deepEqual(
      CATALOGUE.map((c) => c.cmd),
      VIEWERS.map((c) => c.cmd),
    );
    for (const viewers of VIEWERS) {
      const names = (BY_NAME.get(viewers.cmd).fields ?? []).map((f) => f.name);
      for (const f of viewers.fields ?? []) assert.ok(names.includes(f.name), `${viewers.cmd}.${f.name}: src/catalogue.js is older than commands.json`);
    }
  });

  // Byte for byte it is herd-catalogue's (the C++ test catalogue.committed); here, that it is a
  // module of one JSON document, the viewer's catalogue (JS numbers cannot hold 2^64 - 1: compared
  // as parsed, on both sides alike).
  it('catalogue.js is the generated module: its first line, then the catalogue as JSON', () => {
    const text = readFileSync(new URL('../src/catalogue.js', import.meta.url), 'utf8');
    const header =
      '// Generated from protocol/command_table.cpp by herd-catalogue: do not edit (scripts/catalogue rewrites it).\nexport default ';
    assert.ok(text.startsWith(header) && text.endsWith(';\n'), 'the generated module\'s frame');
    const viewers = readFileSync(new URL('../../web/commands.json', import.meta.url), 'utf8');
    assert.deepEqual(JSON.parse(text.slice(header.length, -2)), JSON.parse(viewers));
  });

  it('every command is a method and every method a command', () => {
    assert.deepEqual([...methods].sort(), [...BY_NAME.keys()].sort(), 'commands.json and the methods differ');
    assert.deepEqual(Object.keys(COMMANDS).sort(), [...BY_NAME.keys()].sort(), 'commands.json and COMMANDS differ');
    for (const m of methods) assert.equal(typeof Client.prototype[m], 'function', `Client.${m}`);
  });

  it("each command takes exactly the catalogue's fields, in its order", () => {
    assert.deepEqual(Object.keys(COMMANDS), [...BY_NAME.keys()]);
    for (const [cmd, entry] of BY_NAME) {
      assert.deepEqual(
        Object.keys(COMMANDS[cmd]),
        (entry.fields ?? []).map((f) => f.name),
        cmd,
      );
    }
    assert.ok(Object.isFrozen(COMMANDS) && Object.isFrozen(COMMANDS.spawn));
  });

  it('spawn takes a team and a sight, for the agents it makes and each agent listed', async () => {
    const r = new Recorder();
    const sent = await r.spawn({ count: 5, team: 1, sight: 150 });
    assert.deepEqual(sent, { cmd: 'spawn', fields: { count: 5, team: 1, sight: 150 }, options: undefined });
    assert.deepEqual((await r.spawn({ agents: [{ x: 1, y: 2, sight: 80 }], team: 2 })).fields, { agents: [{ x: 1, y: 2, sight: 80 }], team: 2 });
  });

  it('selections of a team, alone or with a group and a rectangle', async () => {
    const r = new Recorder();
    const sent = async (fields) => (await r.stop(fields)).fields.agents;
    assert.deepEqual(team(3), { team: 3 });
    assert.deepEqual(await sent({ agents: team(3) }), { team: 3 });
    assert.deepEqual(await sent({ agents: team(3, [0, 0, 10, 20]) }), { team: 3, rect: { x0: 0, y0: 0, x1: 10, y1: 20 } });
    assert.deepEqual(await sent({ agents: { ...team(1), group: 2 } }), { team: 1, group: 2 });
    assert.deepEqual(await sent({ agents: { team: 1, group: 2, rect: [1, 2, 3, 4] } }), { team: 1, group: 2, rect: { x0: 1, y0: 2, x1: 3, y1: 4 } });
  });

  it('a field the catalogue gains is taken with no other edit, written by its kind', async () => {
    const catalogue = structuredClone(PACKAGED);
    const spawn = catalogue.commands.find((c) => c.cmd === 'spawn');
    spawn.fields.push({ name: 'colour', kind: 'enum', presence: 'optional', choices: ['red', 'blue'], sample: 'red', help: 'new' });
    spawn.fields.push({ name: 'rally', kind: 'point', presence: 'optional', sample: { x: 1, y: 2 }, help: 'new' });
    spawn.fields.find((f) => f.name === 'agents').item.push({ name: 'hat', kind: 'point', presence: 'optional', sample: { x: 1, y: 2 }, help: 'new' });
    const stop = catalogue.commands.find((c) => c.cmd === 'stop');
    stop.fields.push({ name: 'route', kind: 'list', presence: 'optional', item: [{ name: 'x', kind: 'number' }, { name: 'y', kind: 'number' }], help: 'new' });
    const table = commandsFrom(catalogue);
    assert.deepEqual(Object.keys(table.spawn), [...Object.keys(COMMANDS.spawn), 'colour', 'rally']);

    class Newer extends Recorder {
      static table = table;
    }
    const r = new Newer();
    assert.deepEqual((await r.spawn({ count: 1, colour: 'red', rally: [5, 6] })).fields, { count: 1, colour: 'red', rally: { x: 5, y: 6 } });
    assert.deepEqual((await r.spawn({ agents: [{ x: 1, y: 2, hat: [3, 4] }] })).fields, { agents: [{ x: 1, y: 2, hat: { x: 3, y: 4 } }] });
    assert.deepEqual((await r.stop({ agents: 'all', route: [[1, 2]] })).fields, { agents: 'all', route: [{ x: 1, y: 2 }] });
    // The package's catalogue has none of them.
    await assert.rejects(new Recorder().spawn({ count: 1, colour: 'red' }), /spawn has no field 'colour'/);
    await assert.rejects(new Recorder().spawn({ agents: [{ x: 1, y: 2, hat: [3, 4] }] }), /agents\[0\] has no field 'hat' \(its fields: x, y, group, /);
  });

  it('each method sends its fields under their names', async () => {
    const r = new Recorder();
    for (const [cmd, entry] of BY_NAME) {
      const fields = sampleFields(entry);
      const sent = await r[cmd](fields, { timeout: 5 });
      assert.equal(sent.cmd, cmd);
      assert.deepEqual(sent.fields, fields, cmd);
      assert.deepEqual(sent.options, { timeout: 5 }, cmd);
    }
  });

  it('points, selections, tiles and maps are written as the wire wants them', async () => {
    const r = new Recorder();
    const sent = async (cmd, fields) => (await r[cmd](fields)).fields;
    assert.deepEqual(await sent('set_target', { agents: group(2, [0, 0, 100, 50]), target: [400, 300.5], queue: undefined }), {
      agents: { group: 2, rect: { x0: 0, y0: 0, x1: 100, y1: 50 } },
      target: { x: 400, y: 300.5 },
    });
    assert.deepEqual(await sent('stop', { agents: new Set([1, 2, 3]) }), { agents: [1, 2, 3] });
    assert.deepEqual(await sent('remove', { agents: 7 }), { agents: [7] });
    assert.deepEqual(await sent('stop', { agents: rect(1, 2, 3, 4) }), { agents: { rect: { x0: 1, y0: 2, x1: 3, y1: 4 } } });
    assert.deepEqual(await sent('stop', { agents: { group: 1, rect: [1, 2, 3, 4] } }), { agents: { group: 1, rect: { x0: 1, y0: 2, x1: 3, y1: 4 } } });
    assert.deepEqual((await sent('patrol', { agents: 'all', points: [[1, 2], { x: 3, y: 4 }] })).points, [
      { x: 1, y: 2 },
      { x: 3, y: 4 },
    ]);
    assert.deepEqual(await sent('spawn', { agents: [{ x: 1, y: 2, target: [5, 6] }] }), { agents: [{ x: 1, y: 2, target: { x: 5, y: 6 } }] });
    assert.deepEqual(await sent('spawn', { count: 3, priority: 0, layer: 2, mask: 5 }), { count: 3, priority: 0, layer: 2, mask: 5 });
    assert.deepEqual(await sent('spawn', { agents: [{ x: 1, y: 2, priority: 99, layer: 4, mask: 0 }] }), {
      agents: [{ x: 1, y: 2, priority: 99, layer: 4, mask: 0 }],
    });
    assert.deepEqual(await sent('set_avoidance', { mode: 'orca' }), { mode: 'orca' });
    assert.deepEqual(await sent('set_tiles', { tiles: [[1, 2, true]] }), { tiles: [{ x: 1, y: 2, blocked: true }] });
    assert.deepEqual(await sent('load_map', { rows: '###\n#.#\n', tile_size: 10 }), { rows: ['###', '#.#'], tile_size: 10, width: 3, height: 2 });
    assert.deepEqual(await sent('formation', { agents: 'all', shape: 'line', centre: [5, 5] }), { agents: 'all', shape: 'line', centre: { x: 5, y: 5 } });
    assert.deepEqual(await sent('pause', undefined), {});
  });

  it('refuses what no command has before anything is sent, as a rejection', async () => {
    const sent = [];
    const r = new (class extends Commands {
      async command(cmd) {
        sent.push(cmd);
      }
    })();
    await assert.rejects(r.spawn({ count: 1, colour: 'red' }), /spawn has no field 'colour' \(its fields: count, agents, group, priority, layer, mask, sight, max_hp, hp, damage, range, cooldown, team\)/);
    await assert.rejects(r.spawn({ agents: [[1, 2]] }), /agents\[0\] must be an object with x and y/);
    await assert.rejects(r.pause({ ticks: 1 }), /pause has no field 'ticks' \(it takes none\)/);
    await assert.rejects(r.stop({ agents: 'everyone' }), /the only named selection is 'all'/);
    await assert.rejects(r.stop({ agents: [1, 'two'] }), /agent ids are integers/);
    await assert.rejects(r.set_target({ agents: 'all', target: [1, 2, 3] }), /target must be \{x, y\} or \[x, y\]/);
    await assert.rejects(r.set_tiles({ tiles: [[1, 2]] }), /tiles\[0\] must be/);
    await assert.rejects(r.stop([1, 2]), /the fields are an object/);
    assert.deepEqual(sent, []);
  });
});
