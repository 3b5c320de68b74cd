// @ts-check
// The viewer's state: the newest the server sent (session.js writes it) and this page's own (the
// selection, the orders given, what the last frame drew). main.js makes it and draws from it;
// window.herd reads it (debug_api.js).

/**
 * @import { Ack, Agent, CommandFields, Exit, Formation, InspectTrace, Obstacle, Source, Wall, Welcome } from '../js/src/protocol.js'
 */
/** @import { Flash, Order } from './view_marks.js' */
/** @import { TileMap } from './tile_map.js' */
/** @import { Armed } from './orders.js' */
/** @import { EventMark, ExploredGrid } from './game.js' */
/** @import { Ghost } from '../js/src/protocol.js' */

/**
 * The newest state the server sent, and this page's own (window.herd reads it: debug_api.js).
 * @typedef {object} ViewerState
 * @property {Welcome | null} welcome
 * @property {string} commandNotice
 * @property {number} welcomeGeneration
 * @property {number | null} tick
 * @property {Agent[]} agents
 * @property {Agent[]} drawn
 * @property {Obstacle[]} obstacles
 * @property {Source[]} sources
 * @property {Exit[]} exits
 * @property {Wall[]} walls
 * @property {string | null} avoidance
 * @property {InspectTrace[]} traces
 * @property {Flash[]} flashes
 * @property {Set<number>} selected
 * @property {Order[]} orders
 * @property {Armed | null} armed
 * @property {{code: string, message: string, seq: number | undefined} | null} lastError
 * @property {Ack | null} lastAck
 * @property {CommandFields | null} lastCommand
 * @property {TileMap | null} map
 * @property {Formation[]} formations
 * @property {number | null} formationId
 * @property {Map<number, string>} roles
 * @property {boolean} allGoals
 * @property {InspectTrace[]} drawnTraces
 * @property {number | null} time
 * @property {EventMark[]} events
 * @property {Ghost[]} ghosts
 * @property {ExploredGrid | null} explored
 * @property {number} welcomedAt
 * @property {boolean} viewed
 */

// The state of a page that has heard nothing from the server yet.
/** @returns {ViewerState} */
export function newViewerState() {
  return {
    welcome: null, // the last welcome: world size, rates, role, scenario, pause
    commandNotice: '', // '' while the last welcome's role may command, else why not (access.js)
    welcomeGeneration: 0, // the connection's socket the last welcome came on (conn.generation)
    tick: null, // tick of the newest snapshot (or of the welcome before the first snapshot)
    agents: [], // the newest snapshot's agents, ordered by id
    drawn: [], // the agents as the last frame drew them: interpolated positions, ordered by id
    obstacles: [], // the newest snapshot's obstacles, ordered by id
    sources: [], // the sources (add_source) with their counts, as last told, ordered by id
    exits: [], // the exits (add_exit) with their counts, as last told, ordered by id
    walls: [], // every wall as last told (welcome or snapshot), ordered by id
    avoidance: null, // the world's avoidance mode, from the newest snapshot
    traces: [], // the newest snapshot's inspect entries (this session's own)
    flashes: [], // collisions being shown: {x, y, impulse, at}
    selected: new Set(),
    orders: [], // recent move orders, drawn as fading rings: {x, y, at, kind}
    armed: null, // the order the next right-click gives (A, Q: orders.js), or null: a move
    lastError: null,
    lastAck: null,
    lastCommand: null, // the fields of the last command sent (without type and seq)
    map: null, // TileMap, or null when the world has none
    formations: [], // the newest snapshot's formations being formed
    formationId: null, // the formation of this page's last acked formation or demo move
    roles: new Map(), // id -> role (roles.js), from the newest snapshot
    allGoals: false, // key E: every agent's goal drawn, not only the selection's
    drawnTraces: [], // the inspect traces the last frame drew
    time: null, // world seconds of the newest snapshot
    events: [], // marks of recent hits and deaths (game.js): {type, agent, x, y, at}
    ghosts: [], // a player's: its team's memory of enemies out of sight, from the newest snapshot
    explored: null, // a player's: its team's explored ground as last told, decoded; null: unknown
    welcomedAt: 0, // when this connection's first welcome came (performance.now())
    viewed: false, // a snapshot came since this connection's first welcome
  };
}

// The formation the status bar follows: this page's own while the snapshots list it, else the
// newest one still forming (another client's, say), else the newest listed.
/** @param {ViewerState} state @returns {Formation | null} */
export function shownFormation(state) {
  const list = state.formations;
  if (list.length === 0) return null;
  const own = list.find((f) => f.id === state.formationId);
  if (own) return own;
  /** @type {(fs: Formation[]) => Formation} */
  const newest = (fs) => fs.reduce((a, b) => (b.id > a.id ? b : a));
  const forming = list.filter((f) => !f.complete);
  return newest(forming.length > 0 ? forming : list);
}
