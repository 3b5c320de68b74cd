// @ts-check
// herd web viewer: wires the connection, the view, the input and the HUD together, and keeps
// the latest state the server sent. Every frame draws the agents interpolated between buffered
// snapshots (interp.js), a little in the past.

import { Connection } from './connection.js';
import { View, ORDER_MARKER_MS, FLASH_MS } from './view.js';
import { attachInput } from './input.js';
import { Hud } from './hud.js';
import { Panels } from './panels.js';
import { Inspector } from './inspector.js';
import { byId } from './inspect_view.js';
import { TileMap } from './tile_map.js';
import { Painter } from './paint.js';
import { DemoKeys } from './demo_keys.js';
import { Interpolator } from './interp.js';
import { StreamStats } from './stats.js';
import { agentDrawing } from './agent_layer.js';
import { ScenarioBar } from './scenario_bar.js';
import { agentRoles } from './roles.js';

/**
 * @import { Ack, Agent, Collision, CommandFields, Formation, InspectTrace } from './connection.js'
 * @import { MapMessage, Obstacle, ServerMessage, Welcome } from './connection.js'
 */
/** @import { Flash, Order } from './view.js' */

/**
 * The newest state the server sent, and this page's own (window.herd reads it: debug_api.js).
 * @typedef {object} ViewerState
 * @property {Welcome | null} welcome
 * @property {number} welcomeGeneration
 * @property {number | null} tick
 * @property {Agent[]} agents
 * @property {Agent[]} drawn
 * @property {Obstacle[]} obstacles
 * @property {string | null} avoidance
 * @property {InspectTrace[]} traces
 * @property {Flash[]} flashes
 * @property {Set<number>} selected
 * @property {Order[]} orders
 * @property {{code: string, message: string, seq: number | undefined} | null} lastError
 * @property {Ack | null} lastAck
 * @property {CommandFields | null} lastCommand
 * @property {TileMap | null} map
 * @property {Formation[]} formations
 * @property {number | null} formationId
 * @property {Map<number, string>} roles
 * @property {boolean} allGoals
 * @property {InspectTrace[]} drawnTraces
 */

/** @typedef {{x0: number, y0: number, x1: number, y1: number}} ViewportRect */
/** @typedef {{sent: {rect: ViewportRect | null} | null, at: number}} ViewportSent the last viewport sent, and when */

const UINT32_RANGE = 2 ** 32;
// A crowd can report hundreds of collisions a snapshot; the rings are a hint, not a record.
const MAX_FLASHES = 256;

// An element of index.html by id (the page has every one asked for here), of the type it is there.
/** @template {HTMLElement} [T=HTMLElement] @param {string} id @returns {T} */
const $ = (id) => /** @type {T} */ (document.getElementById(id));

/** @type {HTMLCanvasElement} */
const canvas = $('world');
const view = new View(canvas);
const hud = new Hud();
const panels = new Panels();

/** @type {ViewerState} */
const state = {
  welcome: null, // the last welcome: world size, rates, role, scenario, pause
  welcomeGeneration: 0, // the connection's socket the last welcome came on (conn.generation)
  tick: null, // tick of the newest snapshot (or of the welcome before the first snapshot)
  agents: [], // the newest snapshot's agents, ordered by id
  drawn: [], // the agents as the last frame drew them: interpolated positions, ordered by id
  obstacles: [], // the newest snapshot's obstacles, ordered by id
  avoidance: null, // the world's avoidance mode, from the newest snapshot
  traces: [], // the newest snapshot's inspect entries (every session's)
  flashes: [], // collisions being shown: {x, y, impulse, at}
  selected: new Set(),
  orders: [], // recent move orders, drawn as fading rings: {x, y, at}
  lastError: null,
  lastAck: null,
  lastCommand: null, // the fields of the last command sent (without type and seq)
  map: null, // TileMap, or null when the world has none
  formations: [], // the newest snapshot's formations being formed
  formationId: null, // the formation of this page's last acked formation or demo move
  roles: new Map(), // id -> role (roles.js), from the newest snapshot
  allGoals: false, // key E: every agent's goal drawn, not only the selection's
  drawnTraces: [], // the inspect traces the last frame drew
};

// Commands in flight, by seq, so an error can say which command it answers.
let nextSeq = 1;
/** @type {Map<number, string>} */
const pending = new Map();

// A server with a command token (HERD_COMMAND_TOKEN) lets this page command when it is opened as
// http://HOST:PORT/#token=TOKEN: the fragment never reaches the server's or a proxy's logs.
const hashParams = new URLSearchParams(location.hash.slice(1));
const token = hashParams.get('token') ?? '';
// Snapshots: '#format=binary' or '#format=json' overrides the default, 'auto' (binary for worlds of
// more than 1,000 agents, where JSON would cost megabytes a second).
const askedFormat = hashParams.get('format');
const format = askedFormat !== null && ['auto', 'binary', 'json'].includes(askedFormat) ? askedFormat : 'auto';
// Agents: '#agents=raster' or '#agents=vector' overrides the choice by how the browser draws
// canvases (agent_layer.js: a pixel buffer in software, canvas paths on a GPU).
view.agentLayer.mode = agentDrawing(hashParams.get('agents'));

const conn = new Connection(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`, {
  token,
  format,
  onMessage: handleMessage,
  onState: () => {
    if (conn.state !== 'connected') {
      pending.clear(); // their answers will never come
      painter.reset();
    }
    bar.update({ welcome: state.welcome, connected: conn.state === 'connected' });
  },
});
const inspector = new Inspector((msg) => conn.send(msg));
const painter = new Painter((tiles) => sendCommand({ cmd: 'set_tiles', tiles }));
const demoKeys = new DemoKeys();
const interp = new Interpolator();
const stats = new StreamStats();
const bar = new ScenarioBar({ send: (fields) => sendCommand(fields), toast: (text, kind) => hud.toast(text, kind) });

// The map arrives whole (welcome, or the first snapshot after it changed); null removes it.
/** @param {MapMessage | null | undefined} m */
function setMap(m) {
  state.map = m ? new TileMap(m) : null;
  view.setMap(state.map);
  if (!state.map && painter.on) {
    painter.setOn(false);
    hud.toast('the tile map was removed: paint mode is off', 'info');
  }
}

/**
 * @param {ServerMessage} msg
 * @param {number} [chars] the length of its frame
 */
function handleMessage(msg, chars = 0) {
  const now = performance.now();
  stats.message(chars, now);
  switch (msg.type) {
    case 'welcome':
      welcomed(msg);
      break;
    case 'snapshot':
      state.tick = msg.tick;
      state.agents = msg.agents;
      state.roles = agentRoles(msg.agents);
      interp.push(msg.tick, msg.agents, now);
      stats.snapshot(msg.serial, now);
      state.obstacles = msg.obstacles ?? [];
      state.avoidance = msg.avoidance ?? null;
      state.traces = msg.inspect ?? [];
      state.formations = msg.formations ?? [];
      if ('map' in msg) setMap(msg.map);
      painter.snapshot(msg.tick);
      addFlashes(msg.collisions);
      pruneSelection();
      break;
    case 'ack':
      pending.delete(msg.seq);
      state.lastAck = msg;
      painter.acked(msg.seq, msg.tick);
      if (msg.formation !== undefined) state.formationId = msg.formation;
      break;
    case 'error': {
      const cmd = msg.seq !== undefined ? pending.get(msg.seq) : undefined;
      if (msg.seq !== undefined) {
        pending.delete(msg.seq);
        painter.refused(msg.seq);
      }
      state.lastError = { code: msg.code, message: msg.message, seq: msg.seq };
      hud.toast(`${cmd ? cmd + ' refused' : 'server error'}: ${msg.code} – ${msg.message}`);
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
function welcomed(msg) {
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
  if (!sameWorld) state.tick = msg.tick;
  view.setWorld(msg.world);
  if (!sameRates) interp.reset(msg.tick_rate, msg.snapshot_rate); // times are ticks over the tick rate
  stats.reset(Boolean(msg.paused)); // a welcome may overtake snapshots sent before it
  if (!sameWorld) {
    setMap(msg.map ?? null); // a restarted server may have another map, or none
    state.formations = [];
    state.formationId = null;
  }
  inspector.sessionStarted(state.selected); // a new session (or world) must be told again
  viewport.sent = null; // and its viewport
  if (!sameSession && msg.role !== 'commander') hud.toast(`server granted role "${msg.role}": view only`, 'info');
  bar.update({ welcome: msg, connected: conn.state === 'connected' });
}

// Agents can vanish (a scenario change, a restarted server); a selection of ids that no longer
// exist would make every later order fail with unknown_agent.
// (A binary search each: no Set of every id built 20 times a second for a box of thousands.)
function pruneSelection() {
  for (const id of state.selected) if (!byId(state.agents, id)) state.selected.delete(id);
}

// Collisions are events: each is shown once, for FLASH_MS from when it arrived.
/** @param {Collision[] | undefined} collisions */
function addFlashes(collisions) {
  if (!collisions || collisions.length === 0) return;
  const at = performance.now();
  for (const c of collisions) state.flashes.push({ x: c.x, y: c.y, impulse: c.impulse, at });
  if (state.flashes.length > MAX_FLASHES) state.flashes.splice(0, state.flashes.length - MAX_FLASHES);
}

// Sends {type: 'command', seq, ...fields}; returns the seq, or null when not connected.
/** @param {CommandFields} fields @returns {number | null} */
function sendCommand(fields) {
  const seq = nextSeq;
  nextSeq = (nextSeq + 1) % UINT32_RANGE;
  if (!conn.send({ type: 'command', seq, ...fields })) {
    hud.toast('not connected: command not sent');
    return null;
  }
  pending.set(seq, fields.cmd);
  state.lastCommand = fields;
  return seq;
}

// Paint mode needs a map to paint on.
function togglePaint() {
  if (!painter.on && !state.map) {
    hud.toast('this world has no tile map: nothing to paint', 'info');
    return;
  }
  painter.setOn(!painter.on);
}

// Seed 003's demo moves: on the selection, or on everyone when nothing is selected.
/** @param {string} key */
function demoKey(key) {
  if (!state.welcome) return;
  const { width, height } = state.welcome.world;
  const agents = state.selected.size > 0 ? [...state.selected] : 'all';
  const fields = demoKeys.command(key, agents, { x: width / 2, y: height / 2 });
  if (fields) sendCommand(fields);
}

// The formation the status bar follows: this page's own while the snapshots list it, else the
// newest one still forming (another client's, say), else the newest listed.
/** @returns {Formation | null} */
function shownFormation() {
  const list = state.formations;
  if (list.length === 0) return null;
  const own = list.find((f) => f.id === state.formationId);
  if (own) return own;
  /** @type {(fs: Formation[]) => Formation} */
  const newest = (fs) => fs.reduce((a, b) => (b.id > a.id ? b : a));
  const forming = list.filter((f) => !f.complete);
  return newest(forming.length > 0 ? forming : list);
}

/** @param {number} x @param {number} y */
function moveSelectionTo(x, y) {
  // Sub-millimetre precision means nothing to the world and makes logs unreadable.
  x = Math.round(x * 1000) / 1000;
  y = Math.round(y * 1000) / 1000;
  const seq = sendCommand({ cmd: 'set_target', agents: [...state.selected], target: { x, y } });
  if (seq !== null) state.orders.push({ x, y, at: performance.now() });
}

// Key S: ten agents in a small sunflower round the point, of the selection's group (its first
// agent's) or 0, kept inside the world.
const SPAWN_COUNT = 10;
const SPAWN_SPACING = 12; // world units between neighbours of the spawned group
/** @param {number} x @param {number} y */
function spawnAt(x, y) {
  if (!state.welcome) return;
  const { width, height } = state.welcome.world;
  const first = state.drawn.find((a) => state.selected.has(a.id));
  const group = first ? first.group : 0;
  const agents = [];
  for (let i = 0; i < SPAWN_COUNT; i++) {
    const r = SPAWN_SPACING * Math.sqrt(i + 0.5);
    const th = i * 2.399963; // the golden angle
    const px = Math.round(Math.min(width, Math.max(0, x + r * Math.cos(th))) * 1000) / 1000;
    const py = Math.round(Math.min(height, Math.max(0, y + r * Math.sin(th))) * 1000) / 1000;
    agents.push({ x: px, y: py, group });
  }
  sendCommand({ cmd: 'spawn', agents });
}

// Delete / Backspace: the selection leaves the world.
function removeSelected() {
  if (state.selected.size === 0) {
    hud.toast('nothing selected to remove', 'info');
    return;
  }
  sendCommand({ cmd: 'remove', agents: [...state.selected] });
}

// Key E: every agent's goal, or only the selection's. Binary snapshots carry no goals.
function toggleGoals() {
  state.allGoals = !state.allGoals;
  if (state.allGoals && conn.snapshotFormat === 'binary') {
    hud.toast("binary snapshots carry no goals: open the page with #format=json to see everyone's", 'info');
  }
}

const OBSTACLE_RADIUS = 20;
/** @param {number} x @param {number} y */
function obstacleAt(x, y) {
  x = Math.round(x * 1000) / 1000;
  y = Math.round(y * 1000) / 1000;
  sendCommand({ cmd: 'add_obstacle', x, y, radius: OBSTACLE_RADIUS });
}

const input = attachInput(canvas, {
  view,
  agents: () => state.drawn, // what is under the cursor is what the page shows
  selected: state.selected,
  moveSelectionTo,
  toggleInspector: () => inspector.toggle(),
  helpOpen: () => panels.helpOpen,
  setHelp: (open) => panels.setHelp(open),
  map: () => state.map,
  painter,
  togglePaint,
  demoKey,
  spawnAt,
  removeSelected,
  obstacleAt,
  toggleGoals,
  bar,
});
// Buttons clicked with the mouse take no keyboard focus, and leave a field that had it, so that
// Space (pause) and the other keys reach the page again; Tab still focuses them.
for (const b of document.querySelectorAll('#status button, #scenario-bar button')) {
  b.addEventListener('mousedown', (ev) => {
    ev.preventDefault();
    if (document.activeElement instanceof HTMLElement && document.activeElement.closest('input, select')) {
      document.activeElement.blur();
    }
  });
}
$('goals-btn').addEventListener('click', () => toggleGoals());
$('inspect-btn').addEventListener('click', () => inspector.toggle());
$('paint-btn').addEventListener('click', () => togglePaint());
$('fit-btn').addEventListener('click', () => view.fitWorld());
$('help-btn').addEventListener('click', () => panels.setHelp(!panels.helpOpen));

// The camera's rectangle of the world, sent as the viewport while snapshots come binary (the
// server then sends only the agents in it plus a margin), at most VIEWPORT_EVERY_MS apart and
// only when it moved by more than a tenth of its size; the whole world when it is all in view.
const VIEWPORT_EVERY_MS = 250;
/** @type {ViewportSent} */
const viewport = { sent: null, at: 0 };

/** @param {number} now */
function syncViewport(now) {
  if (conn.state !== 'connected' || conn.snapshotFormat !== 'binary' || !state.welcome) return;
  if (now - viewport.at < VIEWPORT_EVERY_MS || view.cssWidth <= 0 || view.cssHeight <= 0) return;
  const a = view.screenToWorld(0, 0);
  const b = view.screenToWorld(view.cssWidth, view.cssHeight);
  const { width, height } = state.welcome.world;
  const whole = a.x <= 0 && a.y <= 0 && b.x >= width && b.y >= height;
  const clamp = (/** @type {number} */ v) => Math.max(-1e7, Math.min(1e7, v));
  const rect = whole ? null : { x0: clamp(a.x), y0: clamp(a.y), x1: clamp(b.x), y1: clamp(b.y) };
  const last = viewport.sent;
  if (last !== null) {
    if (rect === null && last.rect === null) return;
    if (rect !== null && last.rect !== null) {
      const tol = 0.1 * Math.max(rect.x1 - rect.x0, rect.y1 - rect.y0);
      const lastRect = last.rect;
      const moved = /** @type {const} */ (['x0', 'y0', 'x1', 'y1']).some((k) => Math.abs(rect[k] - lastRect[k]) > tol);
      if (!moved) return;
    }
  }
  if (rect !== null && !(rect.x1 > rect.x0 && rect.y1 > rect.y0)) return;
  if (conn.send({ type: 'viewport', ...(rect ?? {}) })) viewport.sent = { rect };
  viewport.at = now;
}

// Smoothed milliseconds a frame spends interpolating and drawing (window.herd.frameTiming).
const timing = { sampleMs: 0, drawMs: 0 };

/** @param {number} now */
function frame(now) {
  view.syncSize();
  state.orders = state.orders.filter((o) => now - o.at < ORDER_MARKER_MS);
  state.flashes = state.flashes.filter((f) => now - f.at < FLASH_MS);
  // Selection and toggle changes land here, whatever caused them.
  if (conn.state === 'connected') inspector.sync(state.selected);
  syncViewport(now);
  const t0 = performance.now();
  state.drawn = interp.sample(now);
  const t1 = performance.now();
  // The inspector draws the diagram of the inspected agent under the cursor, else the first few.
  const hover = inspector.on ? input.pointerAgent() : null;
  state.drawnTraces = inspector.drawn(state.traces, hover ? hover.id : null);
  view.draw({
    agents: state.drawn,
    obstacles: state.obstacles,
    selected: state.selected,
    orders: state.orders,
    flashes: state.flashes,
    roles: state.roles,
    allGoals: state.allGoals,
    traces: state.drawnTraces,
    live: conn.state === 'connected',
    now,
    paint: { tiles: painter.preview(), brush: painter.on ? painter.brush : null },
    box: input.box(),
  });
  const t2 = performance.now();
  timing.sampleMs += (t1 - t0 - timing.sampleMs) * 0.1; // smoothed
  timing.drawMs += (t2 - t1 - timing.drawMs) * 0.1;
  const shown = shownFormation();
  hud.update({
    state: conn.state,
    retryInMs: conn.retryAt - now,
    tick: state.tick,
    agentCount: state.welcome ? state.agents.length : null,
    selectedCount: state.selected.size,
    rttMs: conn.rttMs,
    stream: stats.read(now),
    avoidance: state.avoidance,
    inspecting: inspector.on,
    goals: state.allGoals,
    helpOpen: panels.helpOpen,
    painting: painter.on,
    hasMap: state.map !== null,
    formation: shown,
    // Complete formations can linger in the list (a member that keeps its slot keeps one alive):
    // only the others still forming are worth a mention.
    othersForming: state.formations.filter((f) => f !== shown && !f.complete).length,
    upstream: state.welcome?.upstream ?? null,
  });
  panels.update({
    agents: state.agents,
    selected: state.selected,
    inspector,
    painting: painter.on,
    drawnIds: state.drawnTraces.map((t) => t.id),
    roles: state.roles,
  });
  requestAnimationFrame(frame);
}

// window.herd (debug_api.js), for the browser tests and the console, only when the URL asks: #debug.
if (hashParams.has('debug')) {
  import('./debug_api.js').then(({ installDebugApi }) =>
    installDebugApi({ conn, state, view, interp, stats, inspector, painter, viewport, timing, shownFormation, sendCommand }),
  );
}

conn.start();
requestAnimationFrame(frame);
