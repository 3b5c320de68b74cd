// @ts-check
// Every command of the protocol as a method (protocol/PROTOCOL.md, "command"). Which commands
// there are and which fields each takes come from the command catalogue (catalogue.js, generated
// from the server's command table, as is the viewer's clients/web/commands.json): COMMANDS is
// built from it, so that a field the catalogue gains is accepted and written with no edit here.
// A method takes the command's fields in one object, named as on the wire, and sends them through
// `this.command`: the client resolves to the `ack`, or rejects with a CommandError carrying the
// server's `code`. Points may be {x, y} or [x, y]; selections 'all', an agent id or ids, group(g),
// team(t), rect(x0, y0, x1, y1) or the protocol's object. A field the command does not have is
// refused (a rejected TypeError) before anything is sent.

import CATALOGUE from './catalogue.js';

export { CATALOGUE };

/** @import { Ack, Point } from './protocol.js' */

/**
 * A field as the catalogue describes it (its "kinds" and "presence" say what each means); only
 * what the client uses is typed here.
 * @typedef {object} CatalogueField
 * @property {string} name named as on the wire
 * @property {string} kind 'selection', 'point', 'tile', 'list', 'integer', 'enum', ...
 * @property {string} [presence] 'required', 'optional', 'exactly_one', ...
 * @property {CatalogueField[]} [item] a list's: the fields of each of its items
 */
/** @typedef {{cmd: string, fields?: CatalogueField[]}} CatalogueCommand */
/** @typedef {{commands: CatalogueCommand[]}} Catalogue the catalogue (catalogue.js's default export) */

/** @typedef {Point | [number, number]} PointLike {x, y} or [x, y] */
/** @typedef {{x0: number, y0: number, x1: number, y1: number}} Rect */
/** @typedef {Rect | [number, number, number, number]} RectLike */
/**
 * Which agents: 'all', an agent id, ids (an array or any iterable), or the protocol's object
 * ({group}, {team}, {rect}, or several of them, which all hold: group(g, rect), team(t, rect) and
 * rect(...) make them).
 * @typedef {'all' | number | Iterable<number> | {group?: number, team?: number, rect?: RectLike}} Selection
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
 * @property {number} [sight] its sight, units (fog of war)
 */
/** @typedef {{x: number, y: number, blocked: boolean} | [number, number, boolean]} TileLike */

// Each command's fields, for the methods' types: the catalogue's, by hand (JSDoc cannot be
// generated from it). A field the catalogue has and these lack is still sent (at run time the
// catalogue decides); only a type check would flag it. Enumerations are strings (their choices
// are in PROTOCOL.md and the catalogue: the server names the valid ones when it refuses another).
/** @typedef {{agents: Selection, target?: PointLike, target_tile?: PointLike, behaviour?: string, spread?: string, shape?: string, spacing?: number, queue?: boolean}} SetTargetFields */
/** @typedef {{agents: Selection, target?: PointLike, target_tile?: PointLike, spread?: string, queue?: boolean, radius?: number}} AttackMoveFields */
/** @typedef {{agents: Selection, target?: PointLike, target_tile?: PointLike, points?: PointLike[], spread?: string, queue?: boolean}} PatrolFields */
/** @typedef {{agents: Selection}} AgentsFields */
/**
 * count agents at random places (with group, priority, layer, mask and sight) or the agents
 * listed; team: the team of every agent it makes (0 to 63, 0 nobody's).
 * @typedef {{count?: number, agents?: SpawnedAgent[], group?: number, priority?: number, layer?: number, mask?: number, team?: number, sight?: number}} SpawnFields
 */
/** @typedef {{agents: Selection, behaviour: string, target?: PointLike, target_tile?: PointLike, agent?: number, radius?: number, response?: string, distance?: number, jitter?: number, separation?: number, alignment?: number, cohesion?: number, path?: PointLike[], loop?: boolean, offset?: PointLike}} SetBehaviourFields */
/** @typedef {{agents: Selection, movement: string}} SetMovementFields */
/** @typedef {{x: number, y: number, radius: number}} AddObstacleFields */
/** @typedef {{line?: PointLike[], area?: {x: number, y: number, width: number, height: number}}} AddMeasurementFields */
/** @typedef {{x: number, y: number, width: number, height: number}} Area */
/** @typedef {{area: Area, rate: number, total: number, behaviour?: string, target?: PointLike, group?: number, radius?: number, max_speed?: number, max_force?: number, mass?: number, movement?: string, pathing?: string, neighbours?: number, priority?: number, layer?: number, mask?: number}} AddSourceFields */
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
/** @typedef {Readonly<Record<string, Convert>>} FieldTable a command's (or a list item's) fields, and how each is written */
/** @typedef {Readonly<Record<string, FieldTable>>} CommandTable each command's fields */

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
 * The selection of team `t`'s agents (and, given `within`, only those inside it). With a group
 * too: `{ ...team(t), group: g }`.
 * @param {number} t
 * @param {RectLike} [within]
 * @returns {{team: number, rect?: Rect}}
 */
export function team(t, within) {
  return within === undefined ? { team: t } : { team: t, rect: rectOf(within, 'rect') };
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
 * @returns {'all' | number[] | {group?: number, team?: number, rect?: Rect}}
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
  throw new TypeError(`${name} must be 'all', agent ids, group(g), team(t) or rect(x0, y0, x1, y1), not ${JSON.stringify(v)}`);
}

/** @param {PointLike[]} v @param {string} name */
const points = (v, name) => [...v].map((p, i) => point(p, `${name}[${i}]`));

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

/**
 * A list of objects with the item's fields (spawn's agents): each item's fields checked and
 * written as a command's are (an item's target as a point, ...).
 * @param {CatalogueField[]} item
 * @returns {(v: Iterable<object>, name: string) => Record<string, unknown>[]}
 */
function spawned(item) {
  const table = fieldTable(item);
  const required = item.filter((f) => f.presence === 'required').map((f) => f.name);
  const what = required.length ? `an object with ${required.join(required.length === 2 ? ' and ' : ', ')}` : 'an object';
  return (v, name) =>
    [...v].map((a, i) => {
      if (a === null || typeof a !== 'object' || Array.isArray(a)) throw new TypeError(`${name}[${i}] must be ${what}`);
      return writeFields(table, a, `${name}[${i}]`, `${name}[${i}].`);
    });
}

/** @param {string[]} names @param {string[]} wanted whether names are wanted's, in any order */
const sameNames = (names, wanted) => names.length === wanted.length && wanted.every((n) => names.includes(n));

/**
 * How a field of the catalogue is written, from its kind and shape: a selection by selection(), a
 * point or tile by point(), a list of {x, y} by points, of {x, y, blocked} by tiles, of other
 * objects (spawn's agents) item by item; anything else (numbers, enums, areas, rows...) as given.
 * @param {CatalogueField} field
 * @returns {Convert}
 */
export function converter(field) {
  switch (field.kind) {
    case 'selection':
      return selection;
    case 'point':
    case 'tile':
      return point;
    case 'list': {
      const names = (field.item ?? []).map((f) => f.name);
      if (sameNames(names, ['x', 'y'])) return points;
      if (sameNames(names, ['x', 'y', 'blocked'])) return tiles;
      return spawned(field.item ?? []);
    }
    default:
      return null;
  }
}

/** @param {CatalogueField[]} fields @returns {FieldTable} */
function fieldTable(fields) {
  return Object.freeze(Object.fromEntries(fields.map((f) => [f.name, converter(f)])));
}

/**
 * Each command's fields and how each is written, from a catalogue (the package's is CATALOGUE;
 * give another to Commands through a subclass's `static table`).
 * @param {Catalogue} catalogue
 * @returns {CommandTable}
 */
export function commandsFrom(catalogue) {
  return Object.freeze(Object.fromEntries(catalogue.commands.map((c) => [c.cmd, fieldTable(c.fields ?? [])])));
}

// Each command's fields, and how each is written: the catalogue's. The methods below send
// through it, and the tests hold it to the catalogue.
/** @type {CommandTable} */
export const COMMANDS = commandsFrom(CATALOGUE);

/**
 * `given` written by `table`: the fields left undefined dropped, the others converted. Throws a
 * TypeError for a field the table does not have.
 * @param {FieldTable} table @param {object} given @param {string} owner who has the fields, for errors
 * @param {string} prefix before a field's name in a converter's errors
 * @returns {Record<string, unknown>}
 */
function writeFields(table, given, owner, prefix) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [name, value] of Object.entries(given)) {
    if (!Object.hasOwn(table, name)) {
      const known = Object.keys(table);
      throw new TypeError(`${owner} has no field '${name}' (${known.length ? 'its fields: ' + known.join(', ') : 'it takes none'})`);
    }
    if (value === undefined) continue;
    const convert = table[name];
    out[name] = convert ? convert(value, prefix + name) : value;
  }
  return out;
}

/**
 * A command's fields as the wire wants them: those left undefined dropped, points, selections
 * and lists written out. Throws a TypeError for a command the table lacks or a field the command
 * does not have.
 * @param {string} cmd one of the table's
 * @param {object} [given]
 * @param {CommandTable} [table] COMMANDS, or commandsFrom(another catalogue)
 * @returns {Record<string, unknown>}
 */
export function commandFields(cmd, given = {}, table = COMMANDS) {
  if (!Object.hasOwn(table, cmd)) throw new TypeError(`no command '${cmd}' in the catalogue`);
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    throw new TypeError(`${cmd}: the fields are an object, not ${JSON.stringify(given)}`);
  }
  return writeFields(table[cmd], given, cmd, '');
}

/** @param {LoadMapFields} fields */
function mapFields(fields) {
  const rows = typeof fields.rows === 'string' ? fields.rows.split('\n').filter((r) => r.trim() !== '') : fields.rows;
  return { ...fields, rows, width: fields.width ?? rows?.[0]?.length ?? 0, height: fields.height ?? rows?.length ?? 0 };
}

// The methods. A subclass provides command(cmd, fields, options): the client sends the command
// and resolves to its ack. Each method is written out below for its types and help; a command of
// the catalogue that has none here (one newer than this file) gets one all the same (untyped),
// made at the end of the class.
export class Commands {
  /**
   * The commands the methods send and the fields each takes: COMMANDS (the package's catalogue),
   * or in a subclass `static table = commandsFrom(catalogue)` for another catalogue's.
   * @type {CommandTable}
   */
  static table = COMMANDS;

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
    const { table } = /** @type {typeof Commands} */ (this.constructor);
    return this.command(cmd, commandFields(cmd, fields, table), options);
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

  // A method for each command of the catalogue that has none above, named after it.
  static {
    for (const cmd of Object.keys(COMMANDS)) {
      if (cmd in Commands.prototype) continue;
      const methods = {
        /** @this {Commands} @param {object} [fields] @param {RequestOptions} [options] @returns {Promise<Ack>} */
        [cmd](fields, options) {
          return this.#send(cmd, fields, options);
        },
      };
      Object.defineProperty(Commands.prototype, cmd, { value: methods[cmd], writable: true, configurable: true });
    }
  }
}
