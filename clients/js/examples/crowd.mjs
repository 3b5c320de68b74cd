#!/usr/bin/env node
// Spawns a crowd, sends it to a point and prints when every one of its agents has arrived.
//
//   node clients/js/examples/crowd.mjs [--url ws://localhost:8080/ws] [--count 30] [--group 5]
//       [--target X,Y] [--spread keep|point] [--timeout 60] [--format json|binary]
//
// On the server's machine the command token is found by itself (as herd-ctl finds it); elsewhere
// set HERD_COMMAND_TOKEN. Exit codes: 0 all arrived, 1 not within --timeout, 2 refused,
// unreachable or bad usage.

import { parseArgs } from 'node:util';

import { connect, HerdError, CommandError, TimeoutError } from 'herd-client/node';

/** @import { Client } from 'herd-client' */

const USAGE = 'usage: crowd.mjs [--url URL] [--count N] [--group G] [--target X,Y] [--spread keep|point] [--timeout S] [--format json|binary]';

/** @param {string} message @returns {never} */
function usage(message) {
  console.error(`crowd: ${message}\n${USAGE}`);
  process.exit(2);
}

/** @param {string} text @param {string} name */
function number(text, name) {
  const v = Number(text);
  if (text.trim() === '' || !Number.isFinite(v)) usage(`--${name} takes a number, not '${text}'`);
  return v;
}

/** @param {string} text @returns {[number, number]} */
function point(text) {
  const parts = text.split(',');
  if (parts.length !== 2) usage(`--target is X,Y, not '${text}'`);
  return [number(parts[0], 'target'), number(parts[1], 'target')];
}

/** @returns {{url: string, count: number, group: number, target: [number, number] | null, spread: string, timeout: number, format: 'json' | 'binary'}} */
function options() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        url: { type: 'string', default: process.env.HERD_URL ?? 'ws://localhost:8080/ws' },
        count: { type: 'string', default: '30' },
        group: { type: 'string', default: '5' },
        target: { type: 'string' },
        spread: { type: 'string', default: 'keep' },
        timeout: { type: 'string', default: '60' },
        format: { type: 'string', default: 'json' },
      },
    }));
  } catch (err) {
    usage(err instanceof Error ? err.message : String(err));
  }
  if (!['keep', 'point'].includes(values.spread)) usage(`--spread is keep or point, not '${values.spread}'`);
  if (values.format !== 'json' && values.format !== 'binary') usage(`--format is json or binary, not '${values.format}'`);
  return {
    url: values.url,
    count: number(values.count, 'count'),
    group: number(values.group, 'group'),
    target: values.target === undefined ? null : point(values.target),
    spread: values.spread,
    timeout: number(values.timeout, 'timeout'),
    format: values.format,
  };
}

/**
 * Prints how many of `mine` have arrived as it changes; true once all have, false when
 * `timeoutS` passed first.
 * @param {Client} c @param {Set<number>} mine @param {number} since the order's tick @param {number} timeoutS
 */
async function watch(c, mine, since, timeoutS) {
  const start = performance.now();
  const deadline = start + timeoutS * 1000;
  let shown = -1;
  for await (const snap of c.snapshots({ timeout: timeoutS * 1000 })) {
    if (snap.tick < since) continue; // from before the order
    const agents = snap.agents.filter((a) => mine.has(a.id));
    const arrived = agents.filter((a) => a.state === 'arrived').length;
    if (arrived !== shown) {
      console.log(`tick ${snap.tick}: ${arrived} of ${mine.size} arrived`);
      shown = arrived;
    }
    if (agents.length === mine.size && arrived === mine.size) {
      console.log(`all ${mine.size} arrived at tick ${snap.tick} (${((performance.now() - start) / 1000).toFixed(1)} s)`);
      return true;
    }
    if (performance.now() > deadline) return false;
  }
  return false;
}

async function main() {
  const args = options();
  let c;
  try {
    c = await connect(args.url, { format: args.format });
  } catch (err) {
    if (!(err instanceof HerdError || err instanceof TypeError)) throw err;
    console.error(`crowd: ${err.message}`);
    return 2;
  }
  try {
    const { width, height } = /** @type {NonNullable<Client['welcome']>} */ (c.welcome).world;
    const target = args.target ?? [(width * 7) / 8, height / 6];
    if (c.paused) console.error('crowd: the world is paused; it moves on `resume` or `step`');
    let ack, order;
    try {
      ack = await c.spawn({ count: args.count, group: args.group });
      order = await c.set_target({ agents: ack.agents ?? [], target, spread: args.spread });
    } catch (err) {
      if (!(err instanceof CommandError)) throw err;
      console.error(`crowd: refused: ${err.code}: ${err.serverMessage}`);
      return 2;
    }
    const mine = new Set(ack.agents);
    console.log(`spawned agents ${Math.min(...mine)}-${Math.max(...mine)} at tick ${ack.tick}, sent to (${target[0]}, ${target[1]})`);
    try {
      if (await watch(c, mine, order.tick, args.timeout)) return 0;
    } catch (err) {
      if (!(err instanceof TimeoutError)) {
        console.error(`crowd: ${err instanceof Error ? err.message : err}`);
        return 2;
      }
      // no snapshot came: a paused world
    }
    console.error(`crowd: not all arrived within ${args.timeout} s`);
    return 1;
  } finally {
    await c.close();
  }
}

process.exitCode = await main();
