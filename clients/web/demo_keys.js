// @ts-check
// The keys of the formation demo ("Accidents Do Happen"), played on the current selection, or on
// every agent when nothing is selected, around the centre of the world:
//
//   R  organise them into a circle                     formation circle (optimal assignment)
//   B  have them randomly switch places                swap_places
//   T  split into 3 groups, each to the opposite side  opposite, 3 groups
//   G  split into two groups, in block formations      formation block, 2 blocks, regroup
//   B  have them exchange sides                        exchange (after G)
//   P  organise them into two vertical lines           formation lines, vertical, 2, regroup, keep order
//   B  invert the lines and switch sides               invert (after P)
//
// So B depends on the shape key pressed last: exchange after G, invert after P, else swap_places.

import { keysOf } from './keys.js';

/** @import { Point, CommandFields } from '../js/src/protocol.js' */

// The demo's keys, from keys.js's table (its rows say what each does, for the help and the README).
export const DEMO_KEYS = keysOf('demo');

export class DemoKeys {
  constructor() {
    /** @type {string | null} */
    this.lastShape = null; // the last of R, T, G, P pressed
  }

  // The command fields (without type and seq) for `key`, or null if it is not a demo key.
  // agents: a selection ("all" or ids); centre: {x, y}, the world's centre.
  /**
   * @param {string} key
   * @param {'all' | number[]} agents
   * @param {Point} centre
   * @returns {CommandFields | null}
   */
  command(key, agents, centre) {
    const k = key.toUpperCase();
    switch (k) {
      case 'R':
        this.lastShape = k;
        return { cmd: 'formation', agents, shape: 'circle', centre, assignment: 'optimal' };
      case 'T':
        this.lastShape = k;
        return { cmd: 'opposite', agents, groups: 3 };
      case 'G':
        this.lastShape = k;
        return { cmd: 'formation', agents, shape: 'block', centre, count: 2, regroup: true };
      case 'P':
        this.lastShape = k;
        return {
          cmd: 'formation',
          agents,
          shape: 'lines',
          centre,
          orientation: 'vertical',
          count: 2,
          regroup: true,
          assignment: 'keep_order',
        };
      case 'B':
        if (this.lastShape === 'G') return { cmd: 'exchange', agents };
        if (this.lastShape === 'P') return { cmd: 'invert', agents };
        return { cmd: 'swap_places', agents };
      default:
        return null;
    }
  }
}
