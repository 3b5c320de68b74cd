// @ts-check
// The page's conversation with the server: the messages it receives, applied to the viewer's
// state (viewer_state.js) and handed to the pieces that follow them (the view, the interpolator,
// the painter...); the commands it sends, numbered, so that an ack or an error can be matched to
// its command; and the viewport it tells the server while snapshots come binary, with the position
// quantum the view needs. A page the server welcomed as viewer sends no command at all (access.js).

import { TileMap } from './tile_map.js';
import { byId } from './inspect_view.js';
import { agentRoles } from './roles.js';
import { barNotice, commandNotice, isHelloRefusal } from './access.js';
import { QUANTA } from '../js/src/protocol.js';
import { addEventMarks, decodeExplored, teamColours } from './game.js';
import { setTeamColours } from './theme.js';

/**
 * @import { Collision, CommandFields, MapMessage, ServerMessage, Welcome } from '../js/src/protocol.js'
 * @import { Connection } from '../js/src/connection.js'
 */
/** @import { View } from './view.js' */
/** @import { Hud } from './hud.js' */
/** @import { Interpolator } from './interp.js' */
/** @import { StreamStats } from './stats.js' */
/** @import { Inspector } from './inspector.js' */
/** @import { Painter } from './paint.js' */
/** @import { ScenarioBar } from './scenario_bar.js' */
/** @import { ViewerState } from './viewer_state.js' */
/** @import { HeatMap } from './heat_map.js' */

/** @typedef {{x0: number, y0: number, x1: number, y1: number}} ViewportRect */
/**
 * The last viewport sent (null: none since the welcome), the position quantum last sent with one
 * (kept across welcomes: every viewport message says it again; null: none yet), and when.
 * @typedef {{sent: {rect: ViewportRect | null} | null, quantum: number | null, at: number}} ViewportSent
 */

/**
 * What the session reads and tells (main.js makes them).
 * @typedef {object} SessionPieces
 * @property {Connection} conn
 * @property {ViewerState} state
 * @property {View} view
 * @property {Hud} hud
 * @property {Interpolator} interp
 * @property {StreamStats} stats
 * @property {Inspector} inspector
 * @property {Painter} painter
 * @property {ScenarioBar} bar
 * @property {Pick<HeatMap, 'welcomed' | 'receive'>} heat
 */

const UINT32_RANGE = 2 ** 32;
// A crowd can report hundreds of collisions a snapshot; the rings are a hint, not a record.
const MAX_FLASHES = 256;
// The camera's rectangle of the world, sent as the viewport while snapshots come binary (the
// server then sends only the agents in it plus a margin), at most VIEWPORT_EVERY_MS apart and
// only when it moved by more than a tenth of its size; the whole world when it is all in view.
const VIEWPORT_EVERY_MS = 250;
// Binary frames' position quanta (PROTOCOL.md, hello's `quantum`): powers of two, world units.
export const FINEST_QUANTUM = QUANTA[QUANTA.length - 1]; // 1/64
export const COARSEST_QUANTUM = QUANTA[0]; // 1

/**
 * The coarsest quantum (a power of two in [1/64, 1] world units) no larger than `unitsPerPx`, one
 * device pixel in world units, so that positions in it are pixel-exact; 1/64 when the pixel is
 * finer than that, or unknown.
 * @param {number} unitsPerPx
 * @returns {number}
 */
export function idealQuantum(unitsPerPx) {
  if (!(unitsPerPx > 0)) return FINEST_QUANTUM;
  let q = COARSEST_QUANTUM;
  while (q > FINEST_QUANTUM && q > unitsPerPx) q /= 2;
  return q;
}

/**
 * The quantum to use after `current` (null: none yet) for a device pixel of `unitsPerPx` world
 * units: a finer ideal at once (zooming in must stay pixel-exact), a coarser one only when it is
 * at least 2 steps coarser (4 times the quantum), so that a zoom hovering at a boundary does not
 * change it back and forth, each change making the server send a keyframe.
 * @param {number | null} current
 * @param {number} unitsPerPx
 * @returns {number}
 */
export function nextQuantum(current, unitsPerPx) {
  const ideal = idealQuantum(unitsPerPx);
  if (current === null || ideal < current || ideal >= 4 * current) return ideal;
  return current;
}

export class Session {
  /** @param {SessionPieces} pieces */
  constructor({ conn, state, view, hud, interp, stats, inspector, painter, bar, heat }) {
    this.conn = conn;
    this.state = state;
    this.view = view;
    this.hud = hud;
    this.interp = interp;
    this.stats = stats;
    this.inspector = inspector;
    this.painter = painter;
    this.bar = bar;
    this.heat = heat;
    /** @type {ViewportSent} */
    this.viewport = { sent: null, quantum: null, at: 0 };
    // Commands in flight, by seq, so an error can say which command it answers.
    this.nextSeq = 1;
    /** @type {Map<number, string>} */
    this.pending = new Map();
  }

  // The connection's state changed (Connection's onState).
  connectionChanged() {
    if (this.conn.state !== 'connected') {
      this.pending.clear(); // their answers will never come
      this.painter.reset();
    }
    this.#updateBar();
  }

  // True while the server has this page's session as a viewer: commands are not sent (the
  // server would refuse each with forbidden), and the scenario bar's note says why.
  get viewOnly() {
    return this.conn.state === 'connected' && this.state.commandNotice !== '';
  }

  // A command was asked for (a key, a click, a button) on a view-only page: the note says why,
  // once, where it always is; it is only drawn attention to, with no toast.
  refuseViewOnly() {
    this.bar.flashNote();
  }

  #updateBar() {
    const connected = this.conn.state === 'connected';
    const notice = barNotice(this.state.welcome?.role, this.state.commandNotice);
    this.bar.update({ welcome: this.state.welcome, connected, notice });
  }

  // The map arrives whole (welcome, or the first snapshot after it changed); null removes it.
  /** @param {MapMessage | null | undefined} m */
  setMap(m) {
    const state = this.state;
    state.map = m ? new TileMap(m) : null;
    this.view.setMap(state.map);
    if (!state.map && this.painter.on) {
      this.painter.setOn(false);
      this.hud.toast('the tile map was removed: paint mode is off', 'info');
    }
  }

  /**
   * @param {ServerMessage} msg
   * @param {number} [chars] the length of its frame
   */
  handleMessage(msg, chars = 0) {
    const { state, painter } = this;
    const now = performance.now();
    this.stats.message(chars, now);
    switch (msg.type) {
      case 'welcome':
        this.#welcomed(msg);
        break;
      case 'snapshot':
        state.tick = msg.tick;
        state.agents = msg.agents;
        state.roles = agentRoles(msg.agents);
        this.interp.push(msg.tick, msg.agents, now);
        this.stats.snapshot(msg.serial, now);
        if (msg.obstacles) state.obstacles = msg.obstacles; // absent: unchanged since told
        if (msg.sources) state.sources = msg.sources; // with exits; absent: unchanged since told
        if (msg.exits) state.exits = msg.exits;
        if (msg.walls) state.walls = msg.walls; // absent: unchanged since told
        state.avoidance = msg.avoidance ?? null;
        state.time = msg.time;
        state.viewed = true;
        // The game: hits and deaths leave marks a while; a player's ghosts come every snapshot,
        // its explored ground when it grew (absent: as last told).
        state.events = addEventMarks(state.events, msg.events, now);
        state.ghosts = msg.ghosts ?? [];
        if (msg.explored) state.explored = decodeExplored(msg.explored);
        state.traces = msg.inspect ?? [];
        state.formations = msg.formations ?? [];
        if ('map' in msg) this.setMap(msg.map);
        if (msg.density) this.heat.receive(msg.density, msg.tick); // absent: the last one stands
        painter.snapshot(msg.tick);
        this.#addFlashes(msg.collisions);
        this.#pruneSelection();
        break;
      case 'ack':
        this.pending.delete(msg.seq);
        state.lastAck = msg;
        painter.acked(msg.seq, msg.tick);
        if (msg.formation !== undefined) state.formationId = msg.formation;
        break;
      case 'error': {
        if (isHelloRefusal(msg)) {
          // The answer to hello without the server's token (or with a wrong one): the welcome
          // that follows makes this page a viewer, and its note says why. Not a toast.
          state.lastError = { code: msg.code, message: msg.message, seq: undefined };
          console.info('herd: the server welcomes this page as a viewer:', msg.message);
          break;
        }
        const cmd = msg.seq !== undefined ? this.pending.get(msg.seq) : undefined;
        if (msg.seq !== undefined) {
          this.pending.delete(msg.seq);
          painter.refused(msg.seq);
        }
        state.lastError = { code: msg.code, message: msg.message, seq: msg.seq };
        this.hud.toast(`${cmd ? cmd + ' refused' : 'server error'}: ${msg.code} – ${msg.message}`);
        console.warn('herd: server error', msg);
        break;
      }
      case 'pong':
        break; // Connection measures the round trip
      default:
        // A type this page does not know (every known one has its case above).
        console.warn('herd: unexpected message type', /** @type {{type: unknown}} */ (msg).type);
    }
  }

  // A welcome starts a session, or tells one of a change: a new world (reset, load_scenario: its
  // ticks start again), new rates, a pause or a resume. The same world keeps what is drawn: a
  // paused world sends no snapshot to draw instead.
  /** @param {Welcome} msg */
  #welcomed(msg) {
    const { state, conn } = this;
    const prev = state.welcome;
    const sameSession = prev !== null && state.welcomeGeneration === conn.generation;
    const sameWorld =
      sameSession &&
      msg.tick >= (state.tick ?? 0) &&
      msg.world.width === prev.world.width &&
      msg.world.height === prev.world.height;
    const sameRates = sameWorld && msg.tick_rate === prev.tick_rate && msg.snapshot_rate === prev.snapshot_rate;
    state.welcome = msg;
    state.welcomeGeneration = conn.generation;
    setTeamColours(teamColours(msg.teams)); // the players file's colours, else the palette's
    if (!sameSession) {
      // A late spectator counts down to its first snapshot from here (main.js, game.js).
      state.welcomedAt = performance.now();
      state.viewed = false;
    }
    state.obstacles = msg.obstacles ?? []; // every obstacle now; snapshots tell changes
    state.walls = msg.walls ?? []; // every wall now (absent: none); snapshots tell changes
    if (!sameWorld) state.tick = msg.tick;
    this.view.setWorld(msg.world);
    if (!sameRates) this.interp.reset(msg.tick_rate, msg.snapshot_rate); // times are ticks over the tick rate
    this.stats.reset(Boolean(msg.paused)); // a welcome may overtake snapshots sent before it
    if (!sameWorld) {
      this.setMap(msg.map ?? null); // a restarted server may have another map, or none
      state.formations = [];
      state.formationId = null;
      state.sources = []; // a new world's first snapshot tells its own
      state.exits = [];
      state.events = [];
      state.ghosts = [];
      state.explored = null; // a new world's team has explored nothing yet
    }
    this.inspector.sessionStarted(state.selected); // a new session (or world) must be told again
    this.heat.welcomed(!sameWorld); // and asked for the density layer again
    this.viewport.sent = null; // and its viewport
    // The role is the session's, told in every welcome; a token the server did not take is said so.
    state.commandNotice = commandNotice(msg.role, conn.hasToken, conn.hello?.role); // hello: what the page asked for
    if (state.commandNotice !== '' && this.painter.on) this.painter.setOn(false); // its strokes would be refused
    this.#updateBar();
  }

  // Agents can vanish (a scenario change, a restarted server); a selection of ids that no longer
  // exist would make every later order fail with unknown_agent.
  // (A binary search each: no Set of every id built 20 times a second for a box of thousands.)
  #pruneSelection() {
    const state = this.state;
    for (const id of state.selected) if (!byId(state.agents, id)) state.selected.delete(id);
  }

  // Collisions are events: each is shown once, for FLASH_MS (view_marks.js) from when it arrived.
  /** @param {Collision[] | undefined} collisions */
  #addFlashes(collisions) {
    if (!collisions || collisions.length === 0) return;
    const state = this.state;
    const at = performance.now();
    for (const c of collisions) state.flashes.push({ x: c.x, y: c.y, impulse: c.impulse, at });
    if (state.flashes.length > MAX_FLASHES) state.flashes.splice(0, state.flashes.length - MAX_FLASHES);
  }

  // Sends {type: 'command', seq, ...fields}; returns the seq, or null when not connected or view only.
  /** @param {CommandFields} fields @returns {number | null} */
  sendCommand(fields) {
    if (this.viewOnly) {
      this.refuseViewOnly();
      return null;
    }
    const seq = this.nextSeq;
    this.nextSeq = (this.nextSeq + 1) % UINT32_RANGE;
    if (!this.conn.send({ type: 'command', seq, ...fields })) {
      this.hud.toast('not connected: command not sent');
      return null;
    }
    this.pending.set(seq, fields.cmd);
    this.state.lastCommand = fields;
    return seq;
  }

  // Tells the server the camera's rectangle when it is due (VIEWPORT_EVERY_MS above), with the
  // position quantum of one device pixel (nextQuantum): sent when the rectangle moved, or the
  // quantum changed though it did not.
  /** @param {number} now */
  syncViewport(now) {
    const { conn, state, view, viewport } = this;
    if (conn.state !== 'connected' || conn.snapshotFormat !== 'binary' || !state.welcome) return;
    if (now - viewport.at < VIEWPORT_EVERY_MS || view.cssWidth <= 0 || view.cssHeight <= 0) return;
    // What is drawn: the canvas less the docked panels' edges (view.js draws no world under them).
    const f = view.freeRect();
    const a = view.screenToWorld(f.x, f.y);
    const b = view.screenToWorld(f.x + f.w, f.y + f.h);
    const { width, height } = state.welcome.world;
    const whole = a.x <= 0 && a.y <= 0 && b.x >= width && b.y >= height;
    const clamp = (/** @type {number} */ v) => Math.max(-1e7, Math.min(1e7, v));
    const rect = whole ? null : { x0: clamp(a.x), y0: clamp(a.y), x1: clamp(b.x), y1: clamp(b.y) };
    // view.scale: CSS pixels per world unit; dpr: device pixels per CSS pixel.
    const quantum = nextQuantum(viewport.quantum, 1 / (view.scale * (view.dpr || 1)));
    const last = viewport.sent;
    if (last !== null && quantum === viewport.quantum) {
      if (rect === null && last.rect === null) return;
      if (rect !== null && last.rect !== null) {
        const tol = 0.1 * Math.max(rect.x1 - rect.x0, rect.y1 - rect.y0);
        const lastRect = last.rect;
        const moved = /** @type {const} */ (['x0', 'y0', 'x1', 'y1']).some((k) => Math.abs(rect[k] - lastRect[k]) > tol);
        if (!moved) return;
      }
    }
    if (rect !== null && !(rect.x1 > rect.x0 && rect.y1 > rect.y0)) return;
    if (conn.send({ type: 'viewport', ...(rect ?? {}), quantum })) {
      viewport.sent = { rect };
      viewport.quantum = quantum;
    }
    viewport.at = now;
  }
}
