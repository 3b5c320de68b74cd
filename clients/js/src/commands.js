// @ts-check
// Every command of the protocol as a method (protocol/PROTOCOL.md, "command"; the viewer's
// catalogue clients/web/commands.json describes each field, and the tests hold COMMANDS to it).
// A method takes the command's fields in one object, named as on the wire, and sends them through
// `this.command`: the client resolves to the `ack`, or rejects with a CommandError carrying the
// server's `code`. Points may be {x, y} or [x, y]; selections 'all', an agent id or ids, group(g),
// rect(x0, y0, x1, y1) or the protocol's object. A field the command does not have is refused
// (a rejected TypeError) before anything is sent.

/** @import { Ack, Point } from './protocol.js' */

/** @typedef {Point | [number, number]} PointLike {x, y} or [x, y] */
/** @typedef {{x0: number, y0: number, x1: number, y1: number}} Rect */
/** @typedef {Rect | [number, number, number, number]} RectLike */
/**
 * Which agents: 'all', an agent id, ids (an array or any iterable), or the protocol's object
 * ({group}, {rect}, or both: group(g, rect) and rect(...) make them).
 * @typedef {'all' | number | Iterable<number> | {group?: number, rect?: RectLike}} Selection
 */
/** @typedef {{timeout?: number | null}} RequestOptions milliseconds to wait for the answer (null: for ever) */

/**
 * @typedef {object} SpawnedAgent
 * @property {number} x
 * @property {number} y
 * @property {number} [group]
 * @property {number} [radius]
 * @property {number} [max_speed]
 * @property {number} [max_force]
 * @property {number} [mass]
 * @property {PointLike} [target]
 * @property {string} [movement] 'inertial' or 'kinematic'
 * @property {number} [priority] avoidance priority, 0 (the most important) to 99; default 50
 * @property {number} [layer] avoidance layers, a uint32 bit set; default 1
 * @property {number} [mask] the layers it avoids, a uint32 bit set; default every bit
 */
/** @typedef {{x: number, y: number, blocked: boolean} | [number, number, boolean]} TileLike */

// Each command's fields. Enumerations are strings (their choices are in PROTOCOL.md and the
// catalogue: the server names the valid ones when it refuses another).
/** @typedef {{agents: Selection, target?: PointLike, target_tile?: PointLike, behaviour?: string, spread?: string, shape?: string, spacing?: number, queue?: boolean}} SetTargetFields */
/** @typedef {{agents: Selection, target?: PointLike, target_tile?: PointLike, spread?: string, queue?: boolean, radius?: number}} AttackMoveFields */
/** @typedef {{agents: Selection, target?: PointLike, target_tile?: PointLike, points?: PointLike[], spread?: string, queue?: boolean}} PatrolFields */
/** @typedef {{agents: Selection}} AgentsFields */
/** @typedef {{count?: number, agents?: SpawnedAgent[], group?: number, priority?: number, layer?: number, mask?: number}} SpawnFields */
/** @typedef {{agents: Selection, behaviour: string, target?: PointLike, target_tile?: PointLike, agent?: number, radius?: number, response?: string}} SetBehaviourFields */
/** @typedef {{agents: Selection, movement: string}} SetMovementFields */
/** @typedef {{x: number, y: number, radius: number}} AddObstacleFields */
/** @typedef {{line?: PointLike[], area?: {x: number, y: number, width: number, height: number}}} AddMeasurementFields */
/** @typedef {{x: number, y: number, width: number, height: number}} Area */
/** @typedef {{area: Area, rate: number, total: number, behaviour?: string, target?: PointLike, group?: number, radius?: number, max_speed?: number, max_force?: number, mass?: number, movement?: string, pathing?: string, neighbours?: number}} AddSourceFields */
/** @typedef {{area: Area}} AddExitFields */
/** @typedef {{id: number}} RemoveObstacleFields */
/** @typedef {{points: PointLike[], closed?: boolean}} AddWallFields */
/** @typedef {{wall: number}} RemoveWallFields */
/** @typedef {{mode?: string, personal_space?: number, cardioid_exponent?: number, preferred_side?: string, split_fix?: string, push_epsilon?: number, crossing?: boolean, crossing_activation?: number, lookahead?: number, max_neighbours?: number}} SetAvoidanceFields */
/** @typedef {{rows: string | string[], tile_size: number, width?: number, height?: number}} LoadMapFields rows: '#' blocked, '.' walkable, top row first (a string of lines, or an array); width and height default to the rows' */
/** @typedef {{tiles: TileLike[]}} SetTilesFields */
/** @typedef {{agents: Selection, pathing: string, neighbours?: number}} SetPathingFields */
/** @typedef {{agents: Selection, group: number}} SetGroupFields */
/** @typedef {{agents: Selection, shape: string, centre: PointLike, spacing?: number, facing?: number, radius?: number, orientation?: string, count?: number, columns?: number, regroup?: boolean, assignment?: string}} FormationFields */
/** @typedef {{agents: Selection, groups?: number}} OppositeFields */
/** @typedef {Record<string, never>} NoFields */
/** @typedef {{ticks?: number}} StepFields */
/** @typedef {{seed?: number}} ResetFields */
/** @typedef {{name: string, seed?: number}} LoadScenarioFields */
/** @typedef {{tick_rate?: number, snapshot_rate?: number}} SetParamFields */
/** @typedef {{session: number}} KickFields */

/** @typedef {((value: any, name: string) => unknown) | null} Convert how a field is written (null: as given) */

const isNumber = (/** @type {unknown} */ v) => typeof v === 'number';

/**
 * A point as the protocol writes it: {x, y} (a tile likewise).
 * @param {PointLike} v
 * @param {string} [name] the field, for the error
 * @returns {Point}
 */
export function point(v, name = 'point') {
  if (Array.isArray(v)) {
    if (v.length === 2 && v.every(isNumber)) return { x: v[0], y: v[1] };
  } else if (v !== null && typeof v === 'object') {
    return { ...v };
  }
  throw new TypeError(`${name} must be {x, y} or [x, y], not ${JSON.stringify(v)}`);
}

/** @param {RectLike} v @param {string} name @returns {Rect} */
function rectOf(v, name) {
  if (Array.isArray(v)) {
    if (v.length === 4 && v.every(isNumber)) return { x0: v[0], y0: v[1], x1: v[2], y1: v[3] };
  } else if (v !== null && typeof v === 'object') {
    return { ...v };
  }
  throw new TypeError(`${name} must be {x0, y0, x1, y1} or [x0, y0, x1, y1], not ${JSON.stringify(v)}`);
}

/**
 * The selection of group `g` (and, given `within`, only those inside it).
 * @param {number} g
 * @param {RectLike} [within]
 * @returns {{group: number, rect?: Rect}}
 */
export function group(g, within) {
  return within === undefined ? { group: g } : { group: g, rect: rectOf(within, 'rect') };
}

/**
 * The selection of the agents whose centre is inside the rectangle.
 * @param {number} x0 @param {number} y0 @param {number} x1 @param {number} y1
 * @returns {{rect: Rect}}
 */
export function rect(x0, y0, x1, y1) {
  return { rect: { x0, y0, x1, y1 } };
}

/**
 * Which agents, as the protocol writes them.
 * @param {Selection} v
 * @param {string} [name]
 * @returns {'all' | number[] | {group?: number, rect?: Rect}}
 */
export function selection(v, name = 'agents') {
  if (typeof v === 'string') {
    if (v !== 'all') throw new RangeError(`${name}: the only named selection is 'all', not '${v}'`);
    return v;
  }
  if (typeof v === 'number') return [v];
  if (v !== null && typeof v === 'object') {
    if (Symbol.iterator in v) {
      const ids = [...v];
      if (!ids.every(Number.isInteger)) throw new TypeError(`${name}: agent ids are integers, not ${JSON.stringify(ids)}`);
      return ids;
    }
    const { rect: r, ...rest } = v;
    return r === undefined ? rest : { ...rest, rect: rectOf(r, `${name}.rect`) };
  }
  throw new TypeError(`${name} must be 'all', agent ids, group(g) or rect(x0, y0, x1, y1), not ${JSON.stringify(v)}`);
}

/** @param {PointLike[]} v @param {string} name */
const points = (v, name) => [...v].map((p, i) => point(p, `${name}[${i}]`));

/** @param {SpawnedAgent[]} v @param {string} name */
const spawned = (v, name) =>
  [...v].map((a, i) => {
    if (a === null || typeof a !== 'object') throw new TypeError(`${name}[${i}] must be an object with x and y`);
    return a.target === undefined ? { ...a } : { ...a, target: point(a.target, `${name}[${i}].target`) };
  });

/** @param {TileLike[]} v @param {string} name */
const tiles = (v, name) =>
  [...v].map((t, i) => {
    if (Array.isArray(t)) {
      if (t.length === 3) return { x: t[0], y: t[1], blocked: t[2] };
    } else if (t !== null && typeof t === 'object') {
      return { ...t };
    }
    throw new TypeError(`${name}[${i}] must be {x, y, blocked} or [x, y, blocked]`);
  });

// Each command's fields, and how each is written. The methods below send through it, and the
// tests hold it to the catalogue: the same commands, each with the same fields.
/** @type {Readonly<Record<string, Readonly<Record<string, Convert>>>>} */
export const COMMANDS = Object.freeze({
  set_target: { agents: selection, target: point, target_tile: point, behaviour: null, spread: null, shape: null, spacing: null, queue: null },
  attack_move: { agents: selection, target: point, target_tile: point, spread: null, queue: null, radius: null },
  patrol: { agents: selection, target: point, target_tile: point, points, spread: null, queue: null },
  stop: { agents: selection },
  spawn: { count: null, agents: spawned, group: null, priority: null, layer: null, mask: null },
  remove: { agents: selection },
  set_behaviour: {
    agents: selection,
    behaviour: null,
    target: point,
    target_tile: point,
    agent: null,
    radius: null,
    response: null,
    distance: null,
    jitter: null,
    separation: null,
    alignment: null,
    cohesion: null,
    path: points,
    loop: null,
    offset: point,
  },
  set_movement: { agents: selection, movement: null },
  set_group: { agents: selection, group: null },
  add_obstacle: { x: null, y: null, radius: null },
  remove_obstacle: { id: null },
  add_wall: { points, closed: null },
  remove_wall: { wall: null },
  add_measurement: { line: points, area: null },
  remove_measurement: { id: null },
  add_source: {
    area: null,
    rate: null,
    total: null,
    behaviour: null,
    target: point,
    group: null,
    radius: null,
    max_speed: null,
    max_force: null,
    mass: null,
    movement: null,
    pathing: null,
    neighbours: null,
    priority: null,
    layer: null,
    mask: null,
  },
  remove_source: { id: null },
  add_exit: { area: null },
  remove_exit: { id: null },
  set_avoidance: {
    mode: null,
    personal_space: null,
    cardioid_exponent: null,
    preferred_side: null,
    split_fix: null,
    push_epsilon: null,
    crossing: null,
    crossing_activation: null,
    lookahead: null,
    max_neighbours: null,
  },
  load_map: { width: null, height: null, tile_size: null, rows: null },
  clear_map: {},
  set_tiles: { tiles },
  set_pathing: { agents: selection, pathing: null, neighbours: null },
  formation: {
    agents: selection,
    shape: null,
    centre: point,
    spacing: null,
    facing: null,
    radius: null,
    orientation: null,
    count: null,
    columns: null,
    regroup: null,
    assignment: null,
  },
  swap_places: { agents: selection },
  opposite: { agents: selection, groups: null },
  exchange: { agents: selection },
  invert: { agents: selection },
  pause: {},
  resume: {},
  step: { ticks: null },
  reset: { seed: null },
  load_scenario: { name: null, seed: null },
  set_param: { tick_rate: null, snapshot_rate: null },
  kick: { session: null },
});

/**
 * A command's fields as the wire wants them: those left undefined dropped, points, selections
 * and lists written out. Throws a TypeError for a field the command does not have.
 * @param {string} cmd one of COMMANDS
 * @param {object} [given]
 * @returns {Record<string, unknown>}
 */
export function commandFields(cmd, given = {}) {
  const table = COMMANDS[cmd];
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    throw new TypeError(`${cmd}: the fields are an object, not ${JSON.stringify(given)}`);
  }
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [name, value] of Object.entries(given)) {
    if (!Object.hasOwn(table, name)) {
      const known = Object.keys(table);
      throw new TypeError(`${cmd} has no field '${name}' (${known.length ? 'its fields: ' + known.join(', ') : 'it takes none'})`);
    }
    if (value === undefined) continue;
    const convert = table[name];
    out[name] = convert ? convert(value, name) : value;
  }
  return out;
}

/** @param {LoadMapFields} fields */
function mapFields(fields) {
  const rows = typeof fields.rows === 'string' ? fields.rows.split('\n').filter((r) => r.trim() !== '') : fields.rows;
  return { ...fields, rows, width: fields.width ?? rows?.[0]?.length ?? 0, height: fields.height ?? rows?.length ?? 0 };
}

// The methods. A subclass provides command(cmd, fields, options): the client sends the command
// and resolves to its ack.
export class Commands {
  /**
   * @param {string} cmd
   * @param {Record<string, unknown>} [fields]
   * @param {RequestOptions} [options]
   * @returns {Promise<Ack>}
   */
  // eslint-disable-next-line no-unused-vars
  command(cmd, fields, options) {
    return Promise.reject(new Error('Commands.command is for a subclass to provide'));
  }

  // A field the command lacks rejects as the server's refusals do, rather than throwing.
  /** @param {string} cmd @param {object | undefined} fields @param {RequestOptions} [options] */
  async #send(cmd, fields, options) {
    return this.command(cmd, commandFields(cmd, fields), options);
  }

  // ---- orders to a point ----

  /**
   * Sends agents towards a point (`target`, or the centre of `target_tile`): `behaviour` 'arrive'
   * stops there, 'seek' circles it; `spread` 'keep' (each keeps its place in the group), 'point'
   * or 'formation' (then `shape`); `queue`: after their current orders. The ack's `count`: how
   * many received it.
   * @param {SetTargetFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  set_target(fields, options) {
    return this.#send('set_target', fields, options);
  }
  /**
   * To a point, engaging agents of other groups that come within `radius` (default 200) on the way.
   * @param {AttackMoveFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  attack_move(fields, options) {
    return this.#send('attack_move', fields, options);
  }
  /**
   * Through the point (or the route `points`) and back, round and round.
   * @param {PatrolFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  patrol(fields, options) {
    return this.#send('patrol', fields, options);
  }
  /**
   * Brake to a stop and forget queued orders and routes.
   * @param {AgentsFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  stop(fields, options) {
    return this.#send('stop', fields, options);
  }

  // ---- agents ----

  /**
   * Adds `count` agents at random places (in `group`, with avoidance `priority`, `layer` and
   * `mask`), or `agents`, each {x, y, ...} (with its own). The ack's `agents`: the new ids.
   * @param {SpawnFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  spawn(fields, options) {
    return this.#send('spawn', fields, options);
  }
  /**
   * Removes agents (their ids are never given out again).
   * @param {AgentsFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  remove(fields, options) {
    return this.#send('remove', fields, options);
  }
  /**
   * Gives agents a behaviour (idle, hold, seek, arrive, flee, pursue, evade, attack, react, patrol,
   * attack_move), with a point or another `agent` as PROTOCOL.md's table says.
   * @param {SetBehaviourFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  set_behaviour(fields, options) {
    return this.#send('set_behaviour', fields, options);
  }
  /**
   * 'inertial' (a force on momentum) or 'kinematic' (the heading follows at once).
   * @param {SetMovementFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  set_movement(fields, options) {
    return this.#send('set_movement', fields, options);
  }
  /**
   * Puts agents in another group (0 to 255).
   * @param {SetGroupFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  set_group(fields, options) {
    return this.#send('set_group', fields, options);
  }

  // ---- obstacles and avoidance ----

  /**
   * A static circular obstacle. The ack's `obstacle`: its id.
   * @param {AddObstacleFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  add_obstacle(fields, options) {
    return this.#send('add_obstacle', fields, options);
  }
  /** @param {RemoveObstacleFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>} */
  remove_obstacle(fields, options) {
    return this.#send('remove_obstacle', fields, options);
  }
  /**
   * A static wall through `points` (2 to 256): a segment, an open polyline, or with `closed` a
   * polygon (3 or more; the last point joins the first). No agent's centre ever crosses it. The
   * ack's `wall`: its id.
   * @param {AddWallFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  add_wall(fields, options) {
    return this.#send('add_wall', fields, options);
  }
  /** @param {RemoveWallFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>} */
  remove_wall(fields, options) {
    return this.#send('remove_wall', fields, options);
  }
  /**
   * A measurement line (two points: agents crossing each way, flow, time gaps) or area ({x, y,
   * width, height}: count, density, mean speed), reported once a second in snapshots'
   * `measurements`. The ack's `measurement`: its id.
   * @param {AddMeasurementFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  add_measurement(fields, options) {
    return this.#send('add_measurement', fields, options);
  }
  /** @param {RemoveObstacleFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>} */
  remove_measurement(fields, options) {
    return this.#send('remove_measurement', fields, options);
  }
  // ---- sources and exits ----

  /**
   * A source: `area` ({x, y, width, height}) spawns `rate` agents a second, `total` in all, each
   * with the spawn fields given and `behaviour` towards `target` (arrive when only a target is
   * given, idle without). Counts in snapshots' `sources`. The ack's `source`: its id.
   * @param {AddSourceFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  add_source(fields, options) {
    return this.#send('add_source', fields, options);
  }
  /** @param {RemoveObstacleFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>} */
  remove_source(fields, options) {
    return this.#send('remove_source', fields, options);
  }
  /**
   * An exit: `area` removes the agents whose centre reaches it and counts them (snapshots'
   * `exits`). The ack's `exit`: its id.
   * @param {AddExitFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  add_exit(fields, options) {
    return this.#send('add_exit', fields, options);
  }
  /** @param {RemoveObstacleFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>} */
  remove_exit(fields, options) {
    return this.#send('remove_exit', fields, options);
  }

  /**
   * The world's avoidance settings; those not given keep their values.
   * @param {SetAvoidanceFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  set_avoidance(fields, options) {
    return this.#send('set_avoidance', fields, options);
  }

  // ---- tile maps ----

  /**
   * Replaces the tile map.
   * @param {LoadMapFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  load_map(fields, options) {
    return this.#send('load_map', mapFields(fields), options);
  }
  /** @param {NoFields} [fields] @param {RequestOptions} [options] @returns {Promise<Ack>} */
  clear_map(fields, options) {
    return this.#send('clear_map', fields, options);
  }
  /**
   * Blocks or clears tiles. The ack's `count`: how many changed.
   * @param {SetTilesFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  set_tiles(fields, options) {
    return this.#send('set_tiles', fields, options);
  }
  /**
   * 'direct', 'no_backtrack', 'astar' or 'flow'.
   * @param {SetPathingFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  set_pathing(fields, options) {
    return this.#send('set_pathing', fields, options);
  }

  // ---- formations and the demo's moves ----

  /**
   * Places in a `shape` around `centre`. The ack's `formation`: its id.
   * @param {FormationFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  formation(fields, options) {
    return this.#send('formation', fields, options);
  }
  /** @param {AgentsFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>} */
  swap_places(fields, options) {
    return this.#send('swap_places', fields, options);
  }
  /** @param {OppositeFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>} */
  opposite(fields, options) {
    return this.#send('opposite', fields, options);
  }
  /** @param {AgentsFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>} */
  exchange(fields, options) {
    return this.#send('exchange', fields, options);
  }
  /** @param {AgentsFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>} */
  invert(fields, options) {
    return this.#send('invert', fields, options);
  }

  // ---- server controls ----

  /** @param {NoFields} [fields] @param {RequestOptions} [options] @returns {Promise<Ack>} */
  pause(fields, options) {
    return this.#send('pause', fields, options);
  }
  /** @param {NoFields} [fields] @param {RequestOptions} [options] @returns {Promise<Ack>} */
  resume(fields, options) {
    return this.#send('resume', fields, options);
  }
  /**
   * While paused: runs `ticks` ticks (default 1) and sends a snapshot.
   * @param {StepFields} [fields] @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  step(fields, options) {
    return this.#send('step', fields, options);
  }
  /** @param {ResetFields} [fields] @param {RequestOptions} [options] @returns {Promise<Ack>} */
  reset(fields, options) {
    return this.#send('reset', fields, options);
  }
  /**
   * Another of the server's scenarios (the welcome's `scenarios` names them).
   * @param {LoadScenarioFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  load_scenario(fields, options) {
    return this.#send('load_scenario', fields, options);
  }
  /**
   * Ticks and snapshots per second of wall time.
   * @param {SetParamFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  set_param(fields, options) {
    return this.#send('set_param', fields, options);
  }
  /**
   * Closes a session (close code 4000); sessions() lists them.
   * @param {KickFields} fields @param {RequestOptions} [options] @returns {Promise<Ack>}
   */
  kick(fields, options) {
    return this.#send('kick', fields, options);
  }
}
