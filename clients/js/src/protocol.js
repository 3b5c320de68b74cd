// @ts-check
// The protocol's version and its messages as JSDoc types (protocol/PROTOCOL.md is the contract):
// what the server sends ("Server to client") and what a client sends. Types only, but for the
// version and the hello a client opens with.

/** @typedef {{x: number, y: number}} Point */

/**
 * A snapshot's agent. A binary frame's agents carry no behaviour, phase, targets or subject
 * (dequantise in binary.js), but for the inspected ones.
 * @typedef {object} Agent
 * @property {number} id
 * @property {number} x
 * @property {number} y
 * @property {number} vx
 * @property {number} vy
 * @property {number} r
 * @property {number} group
 * @property {number} [team] its team (0 nobody's): on a server with players, always; elsewhere when not 0
 * @property {number} [sight] its sight radius, where it is not the world's default (200)
 * @property {string} state 'idle', 'moving', 'arrived' or 'unreachable'
 * @property {string} [behaviour]
 * @property {string} [phase]
 * @property {number} [tx]
 * @property {number} [ty]
 * @property {boolean} [collided]
 * @property {string} [movement] 'kinematic' (absent: inertial)
 * @property {string} [pathing] absent: 'direct'
 * @property {string} [path] 'pending' while its A* path is queued
 * @property {number[]} [history] a walker's tiles, oldest first: [x0, y0, x1, y1, ...]
 * @property {number} [subject] the other agent its behaviour names
 * @property {number[]} [waypoints] where it goes after (tx, ty), in order: [x0, y0, x1, y1, ...]
 *   (queued orders; a patrol's rest of the lap)
 * @property {string} [stall] while stalled (moving below a tenth of its speed for over 2 s): why,
 *   'blocked_by_standing', 'pinned', 'oscillating', 'queueing', 'unreachable' or 'blocked'
 * @property {number} [stall_for] with stall: seconds it has been slow
 * @property {number[]} [stall_by] with stall: the agents responsible, nearest first (at most 4)
 * @property {number} [hp] its hit points, while some agent of the world is armed or hurt (with max_hp)
 * @property {number} [max_hp] its hit points at most
 */

/**
 * A hit or a death since the previous snapshot (PROTOCOL.md, "Health and weapons").
 * @typedef {object} GameEvent
 * @property {'hit' | 'death'} type
 * @property {number} tick
 * @property {number} agent the one hit, or killed
 * @property {number} [by] the hitter (to a player: only one it may know)
 * @property {number} x
 * @property {number} y
 * @property {number} [damage] a hit's
 * @property {number} [hp] a hit's: the hit points left
 */

/**
 * An enemy a player's team lost sight of, where it was last seen at world time `time` (seconds).
 * @typedef {{id: number, x: number, y: number, r: number, group: number, team: number, time: number}} Ghost
 */

/**
 * A player's team's explored ground: `cols` x `rows` cells of `cell` units from the world's
 * origin, `bits` base64 of one bit a cell, row-major, the lowest bit of each byte first.
 * @typedef {{cell: number, cols: number, rows: number, bits: string}} Explored
 */

/** @typedef {{id: number, x: number, y: number, r: number}} Obstacle */
/** @typedef {{a: number, b: number, x: number, y: number, impulse: number, obstacle?: boolean}} Collision */

/**
 * A formation place that cannot be reached: `to` is the point beside an obstacle taken instead.
 * @typedef {{agent: number, x: number, y: number, reason: string, to?: Point}} FormationPlace
 */

/**
 * @typedef {object} Formation
 * @property {number} id
 * @property {number} agents
 * @property {number} arrived
 * @property {boolean} complete
 * @property {FormationPlace[]} [unreachable]
 */

/**
 * The crossing fix: what an inspected agent made of a moving obstacle's path.
 * @typedef {object} Crossing
 * @property {boolean} yielded
 * @property {Point} [point]
 * @property {number} t_self
 * @property {number} t_other
 * @property {number} scale
 * @property {Point} [path_to]
 */

/**
 * @typedef {object} Push
 * @property {number} id
 * @property {boolean} [obstacle] a static obstacle's id, not an agent's
 * @property {Point} raw
 * @property {Point} adjusted
 * @property {number} weight
 * @property {boolean} [ignored]
 * @property {Crossing} [crossing]
 */

/**
 * A snapshot's `inspect` entry: the avoidance of one agent taken apart, vectors in world axes.
 * @typedef {object} InspectTrace
 * @property {number} id
 * @property {Point} desired
 * @property {Push[]} pushes
 * @property {Point} sum_raw
 * @property {Point} sum_adjusted
 * @property {Point} split_fix
 * @property {number} ig_factor
 * @property {Point} final
 * @property {Point} velocity
 * @property {Point} [desired_path_to]
 * @property {Point} [current_path_to]
 */

/** @typedef {{width: number, height: number, tile_size: number, rows: string[]}} MapMessage */

/**
 * @typedef {object} Welcome
 * @property {'welcome'} type
 * @property {number} protocol
 * @property {string} server
 * @property {number} session
 * @property {string} role
 * @property {number} tick_rate
 * @property {number} snapshot_rate
 * @property {number} dt
 * @property {number} tick
 * @property {{width: number, height: number}} world
 * @property {{max_message_bytes: number, max_agents: number}} limits
 * @property {MapMessage} [map]
 * @property {Obstacle[]} [obstacles] every obstacle, ordered by id
 * @property {Wall[]} [walls] every wall, ordered by id (absent: none)
 * @property {string} [scenario]
 * @property {string} [description] what the running scenario shows
 * @property {string[]} [scenarios]
 * @property {Record<string, string>} [descriptions] what each of `scenarios` shows, by name
 * @property {boolean} [paused]
 * @property {string} [upstream] a relay's: 'connected' or 'reconnecting'
 * @property {string} [player] a player's name
 * @property {number} [team] a player's team
 * @property {{team: number, colour: string}[]} [teams] the teams' colours, when the players file gives them
 * @property {number} [delay] a late spectator's: seconds of world time its snapshots show the world before
 */

/**
 * @typedef {object} Snapshot
 * @property {'snapshot'} type
 * @property {number} tick
 * @property {number} [serial]
 * @property {number} time
 * @property {string} avoidance
 * @property {Agent[]} agents ordered by id
 * @property {Obstacle[]} [obstacles] ordered by id; only when they changed (and every few seconds)
 * @property {Wall[]} [walls] every wall, ordered by id; only when they changed (and every few
 *   seconds while there are any); absent: unchanged since told
 * @property {Collision[]} collisions
 * @property {Formation[]} [formations]
 * @property {InspectTrace[]} [inspect]
 * @property {MapMessage | null} [map] only after the map changed; null: removed
 * @property {DensityMessage} [density] the density layer, twice a second to a session that asked
 *   for it ({type: 'density', on: true})
 * @property {Measurement[]} [measurements] every measurement line and area (add_measurement),
 *   when one was added or removed or reported (once a second); absent: unchanged since told
 * @property {Source[]} [sources] every source (add_source), with `exits`, when one was added or
 *   removed or a count changed (and every few seconds while there are any); absent: unchanged
 * @property {Exit[]} [exits] every exit (add_exit), with `sources`
 * @property {GameEvent[]} [events] hits and deaths since the previous snapshot
 * @property {Ghost[]} [ghosts] a player's: its team's memory of enemies it lost sight of
 * @property {Explored} [explored] a player's: its team's explored ground; absent: as last told
 */

/**
 * A snapshot's `density` as the server writes it: square cells of side `cell` from the world's
 * corner, `count` row by row from the top left (a run of n empty cells written -n), and one mean
 * speed per cell with agents, in steps of speed_max / 255.
 * @typedef {object} DensityMessage
 * @property {number} cell
 * @property {number} cols
 * @property {number} rows
 * @property {number[]} count
 * @property {number} speed_max
 * @property {number[]} speed
 */

/**
 * A wall (add_wall): a segment, an open polyline through `points`, or (closed) a polygon.
 * @typedef {object} Wall
 * @property {number} id
 * @property {{x: number, y: number}[]} points
 * @property {boolean} closed the last point joins the first
 */

/**
 * A measurement line or area (add_measurement) with its last once-a-second report.
 * @typedef {object} Measurement
 * @property {number} id
 * @property {[{x: number, y: number}, {x: number, y: number}]} [line] a line's two points
 * @property {{x: number, y: number, width: number, height: number}} [area] an area
 * @property {number} [forward] a line's crossings to its right since it was added
 * @property {number} [backward] and to its left
 * @property {number} [tick] the last report's last tick (absent: none yet)
 * @property {number} [seconds] its window's length
 * @property {number} [flow_forward] a line's crossings per second in the window, each way
 * @property {number} [flow_backward]
 * @property {number} [mean_gap] a line's mean time between consecutive crossings, s
 * @property {number} [count] an area's agents inside
 * @property {number} [density] count / area
 * @property {number} [mean_speed] of those inside
 */

/**
 * A source (add_source) and its counts.
 * @typedef {object} Source
 * @property {number} id
 * @property {{x: number, y: number, width: number, height: number}} area where its agents appear
 * @property {number} rate agents a second
 * @property {number} total
 * @property {number} spawned agents it has made
 * @property {number} remaining total - spawned
 */

/**
 * An exit (add_exit) and its count.
 * @typedef {object} Exit
 * @property {number} id
 * @property {{x: number, y: number, width: number, height: number}} area
 * @property {number} removed agents whose centre reached it, removed
 */

/**
 * @typedef {object} Ack
 * @property {'ack'} type
 * @property {number} seq
 * @property {number} tick
 * @property {number} [count]
 * @property {number[]} [agents]
 * @property {number} [obstacle]
 * @property {number} [formation]
 * @property {number} [measurement] add_measurement: the new id
 * @property {number} [source] add_source: the new id
 * @property {number} [exit] add_exit: the new id
 * @property {number} [wall] add_wall: the new id
 */

/** @typedef {{type: 'error', seq?: number, code: string, message: string}} ErrorMessage */
/** @typedef {{type: 'pong', id: number, tick: number}} Pong */
/** @typedef {Welcome | Snapshot | Ack | ErrorMessage | Pong | Sessions} ServerMessage */

/** @typedef {{cmd: string} & Record<string, unknown>} CommandFields a command's fields but type and seq */

/**
 * A row of the `sessions` answer: one WebSocket session of the server.
 * @typedef {object} SessionRow
 * @property {number} id
 * @property {string} [role] absent until it said hello
 * @property {string} [format]
 * @property {string} [client]
 * @property {string} address
 * @property {number} connected_s
 * @property {number} bytes_sent
 * @property {number} snapshots_sent
 * @property {number} dropped
 * @property {number} [rtt_ms]
 * @property {true} [you] the asker's own row
 */

/** @typedef {{type: 'sessions', seq: number, sessions: SessionRow[], omitted: number}} Sessions */

/** @typedef {'viewer' | 'commander' | 'operator' | 'player' | 'spectator'} Role */

/**
 * How snapshots are sent: JSON text, binary frames, or binary while the world holds more than
 * 1,000 agents.
 * @typedef {'json' | 'binary' | 'auto'} Format
 */

/**
 * A binary frame's position quantum, world units: a power of two from 1 down to 1/64 (the
 * default). A coarser one costs fewer bytes; a viewer that draws a unit on fewer than 4 pixels
 * needs no finer than 1/4.
 * @typedef {1 | 0.5 | 0.25 | 0.125 | 0.0625 | 0.03125 | 0.015625} Quantum
 */

/**
 * @typedef {object} Hello
 * @property {'hello'} type
 * @property {number} protocol
 * @property {Role} role
 * @property {string} [client] a name for the server's logs, at most 64 bytes
 * @property {string} [token] the server's command token
 * @property {Format} [format] absent: 'json'
 * @property {Quantum} [quantum] binary frames' position quantum; absent: 1/64 unit
 */

export const PROTOCOL_VERSION = 1;

export const ROLES = /** @type {const} */ (['viewer', 'commander', 'operator', 'player', 'spectator']);
export const FORMATS = /** @type {const} */ (['json', 'binary', 'auto']);
// The position quanta a session may ask for (hello's and viewport's `quantum`), coarsest first.
export const QUANTA = /** @type {const} */ ([1, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625]);
export const DEFAULT_QUANTUM = 0.015625; // 1/64 unit: the server's when hello says none

/**
 * Throws a RangeError unless `quantum` is one of QUANTA (the server would refuse it: bad_field).
 * @param {unknown} quantum
 * @returns {asserts quantum is Quantum}
 */
export function checkQuantum(quantum) {
  if (!QUANTA.includes(/** @type {Quantum} */ (quantum))) {
    throw new RangeError(`quantum must be one of ${QUANTA.join(', ')} (world units), not ${typeof quantum === 'number' ? quantum : JSON.stringify(quantum)}`);
  }
}

/**
 * The hello a session opens with; `quantum` only when one is given.
 * @param {{role: Role, client?: string, token?: string, format?: Format, quantum?: Quantum}} options
 * @returns {Hello}
 */
export function makeHello({ role, client = '', token = '', format = 'json', quantum }) {
  /** @type {Hello} */
  const hello = { type: 'hello', protocol: PROTOCOL_VERSION, role };
  if (client) hello.client = client;
  if (token) hello.token = token;
  if (format !== 'json') hello.format = format;
  if (quantum !== undefined) {
    checkQuantum(quantum);
    hello.quantum = quantum;
  }
  return hello;
}
