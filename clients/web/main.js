// @ts-check
// herd web viewer: wires the connection, the view, the input and the HUD together. The session
// (session.js) applies what the server sends to the viewer's state (viewer_state.js) and sends
// the commands; the keys' and buttons' actions are actions.js's. Every frame draws the agents
// interpolated between buffered snapshots (interp.js), a little in the past.

// The protocol's connection is the JavaScript client package's (clients/js). On disk it is this
// directory's sibling (share/herd/js beside share/herd/web when installed), and the server serves
// it at /js/: the viewer is the site's root, where '..' stays at the root.
import { Connection } from '../js/src/connection.js';
import { FORMATS } from '../js/src/protocol.js';
import { View } from './view.js';
import { ORDER_MARKER_MS, FLASH_MS } from './view_marks.js';
import { attachInput } from './input.js';
import { Hud } from './hud.js';
import { Panels } from './panels.js';
import { ProfilePanel } from './profile_panel.js';
import { Inspector } from './inspector.js';
import { Painter } from './paint.js';
import { Interpolator } from './interp.js';
import { StreamStats } from './stats.js';
import { agentDrawing } from './agent_layer.js';
import { ScenarioBar } from './scenario_bar.js';
import { newViewerState, shownFormation } from './viewer_state.js';
import { Session } from './session.js';
import { makeActions } from './actions.js';
import { CommandPalette } from './command_palette.js';
import { ContextMenu, obstacleAt } from './context_menu.js';
import { Dock } from './dock.js';
import { Minimap } from './minimap.js';
import { CursorReadout } from './cursor.js';
import { attachTouch, buildDemoButtons, buildOrderButtons } from './touch.js';
import { HeatMap } from './heat_map.js';
import { pageRole } from './access.js';
import { TeamView } from './team_view.js';
import { coloursByTeam, knowsTeams } from './fog.js';
import { teamColor } from './theme.js';
import { whoLine } from './hud.js';
import { stalledCount } from './stalls.js';
import { delayLine, ghostAt, ghostLabel } from './game.js';

/** @import { Agent, CommandFields, Format } from '../js/src/protocol.js' */

// An element of index.html by id (the page has every one asked for here), of the type it is there.
/** @template {HTMLElement} [T=HTMLElement] @param {string} id @returns {T} */
const $ = (id) => /** @type {T} */ (document.getElementById(id));

/** @type {HTMLCanvasElement} */
const canvas = $('world');
const view = new View(canvas);
const hud = new Hud();
const panels = new Panels();
const profile = new ProfilePanel(() => token);
const state = newViewerState();
const dock = new Dock($('stage'), { dock: $('dock'), tray: $('tray'), column: $('column') });
const minimap = new Minimap({ box: $('minimap-box'), canvas: $('minimap'), note: $('minimap-note'), view });
const cursor = new CursorReadout(canvas, $('cursor-pos'));

// A server with a command token (HERD_COMMAND_TOKEN) lets this page command when it is opened as
// http://HOST:PORT/#token=TOKEN: the fragment never reaches the server's or a proxy's logs. On a
// server with players (--players), '#role=player&token=TOKEN' opens it as that player and
// '#role=spectator' as a spectator (access.js's pageRole).
const hashParams = new URLSearchParams(location.hash.slice(1));
const asked = pageRole(hashParams);
const token = asked.token;
// Snapshots: '#format=binary' or '#format=json' overrides the default, 'auto' (binary for worlds of
// more than 1,000 agents, where JSON would cost megabytes a second).
const askedFormat = /** @type {Format} */ (hashParams.get('format'));
const format = FORMATS.includes(askedFormat) ? askedFormat : 'auto';
// Agents: '#agents=raster' or '#agents=vector' overrides the choice by how the browser draws
// canvases (agent_layer.js: a pixel buffer in software, canvas paths on a GPU).
view.agentLayer.mode = agentDrawing(hashParams.get('agents'));

// The callbacks below name the session, made from these pieces after them: none of them runs
// before this module has run to its end (events, and conn.start() last).
const conn = new Connection(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`, {
  // As commander unless the URL asks for a player or a spectator: the server decides (access.js).
  // An open server makes a page without a token commander; one with a token answers
  // `unauthorized` and welcomes it as viewer (a spectator, on a server with players).
  role: asked.role,
  client: 'herd-web/1',
  token,
  format,
  onMessage: (msg, chars) => {
    session.handleMessage(msg, chars);
    palette.answer(msg); // the palette's form shows the answer to what it sent
  },
  onState: () => session.connectionChanged(),
});
const inspector = new Inspector((msg) => conn.send(msg));
// The heat map (key D): the server's density layer under the agents, its legend in the dock.
const heat = new HeatMap({
  layer: view.heatLayer,
  send: (msg) => conn.send(msg),
  legend: {
    box: $('heat-legend'),
    title: $('heat-title'),
    ramp: $('heat-ramp'),
    lo: $('heat-lo'),
    mid: $('heat-mid'),
    hi: $('heat-hi'),
    unit: $('heat-unit'),
    note: $('heat-note'),
  },
  storage: browserStorage(),
});
const painter = new Painter((tiles) => sendCommand({ cmd: 'set_tiles', tiles }));
// A spectator's choice of the whole world or one team's view (the status bar's select).
const teamView = new TeamView({ field: $('team-view-field'), select: $('team-view') });
const interp = new Interpolator();
const stats = new StreamStats();
const bar = new ScenarioBar({ send: (fields) => sendCommand(fields), toast: (text, kind) => hud.toast(text, kind) });
const session = new Session({ conn, state, view, hud, interp, stats, inspector, painter, bar, heat });
const viewOnly = () => session.viewOnly;
const refuseViewOnly = () => session.refuseViewOnly();
const actions = makeActions({ conn, state, hud, painter, sendCommand, viewOnly, refuseViewOnly });
// The command palette and the right-click menu, both built from the command catalogue.
const OBSTACLE_PICK_SLACK_PX = 3; // as close to an obstacle's rim as a click on an agent's counts
/** @returns {import('./command_catalogue.js').FormContext} */
const formContext = () => ({
  selected: [...state.selected],
  world: state.welcome?.world ?? null,
  map: state.map ? { width: state.map.width, height: state.map.height } : null,
  obstacles: state.obstacles,
  lists: { scenarios: state.welcome?.scenarios ?? [] },
});
const palette = new CommandPalette({
  context: formContext,
  send: sendCommand,
  viewOnly,
  notice: () => state.commandNotice,
  canvas,
  locate: (x, y) => locate(x, y),
});
const menu = new ContextMenu({ context: formContext, send: sendCommand, openForm: (cmd, form) => palette.openCommand(cmd, form), viewOnly });

const input = attachInput(canvas, {
  view,
  agents: () => state.drawn, // what is under the cursor is what the page shows
  selected: state.selected,
  orderAt: actions.orderAt,
  orderOnAgent: actions.orderOnAgent,
  agentOrderOn: actions.agentOrderOn,
  armOrder: actions.armOrder,
  armed: () => state.armed,
  disarm: actions.disarm,
  shiftReleased: actions.shiftReleased,
  stopSelected: actions.stopSelected,
  toggleInspector: () => inspector.toggle(),
  helpOpen: () => panels.helpOpen,
  setHelp: (open) => panels.setHelp(open),
  map: () => state.map,
  painter,
  togglePaint: actions.togglePaint,
  demoKey: actions.demoKey,
  spawnAt: actions.spawnAt,
  removeSelected: actions.removeSelected,
  obstacleAt: actions.obstacleAt,
  toggleGoals: actions.toggleGoals,
  toggleHeat: (other) => heat.toggle(other),
  toggleMinimap: () => minimap.toggle(),
  cycleTeamView: () => teamView.cycle(),
  bar,
  viewOnly,
  refuseViewOnly,
  say: (text) => hud.toast(text, 'info'),
  openPalette: () => palette.open(),
  contextMenu: (at, agent, w) => menu.openAt(at, { agent, obstacle: obstacleAt(state.obstacles, w, OBSTACLE_PICK_SLACK_PX / view.scale) }),
});
attachTouch(canvas, {
  view,
  agents: () => state.drawn,
  selected: state.selected,
  orderAt: actions.orderAt,
  armed: () => state.armed !== null,
  // The long press's menu; on an agent it also offers what a long press does without one.
  contextMenu: (at, agent, w) =>
    menu.openAt(
      at,
      { agent, obstacle: obstacleAt(state.obstacles, w, OBSTACLE_PICK_SLACK_PX / view.scale) },
      agent ? [{ label: 'add to the selection', help: `select agent ${agent.id} too`, run: () => state.selected.add(agent.id) }] : [],
    ),
  painting: () => painter.on,
  viewOnly,
  refuseViewOnly,
});
const orderButtons = buildOrderButtons($('touch-orders'), {
  armOrder: actions.armOrder,
  disarm: actions.disarm,
  armed: () => state.armed?.kind ?? null,
  stopSelected: actions.stopSelected,
});
const demoButtons = buildDemoButtons($('touch-demo'), actions.demoKey);
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
$('goals-btn').addEventListener('click', () => actions.toggleGoals());
$('heat-btn').addEventListener('click', (ev) => heat.toggle(ev.shiftKey));
$('inspect-btn').addEventListener('click', () => inspector.toggle());
$('paint-btn').addEventListener('click', () => actions.togglePaint());
$('fit-btn').addEventListener('click', () => view.fitWorld());
$('help-btn').addEventListener('click', () => panels.setHelp(!panels.helpOpen));
$('profile-btn').addEventListener('click', () => profile.toggle());
$('palette-btn').addEventListener('click', () => palette.toggle());

// What is under client point (x, y): the world point (inside the world, to the wire's precision),
// the agent, the obstacle and the map's tile there. The palette's fields are picked with it.
/** @param {number} x @param {number} y @returns {import('./command_palette.js').PickedThing} */
function locate(x, y) {
  const rect = canvas.getBoundingClientRect();
  const p = { x: x - rect.left, y: y - rect.top };
  const world = state.welcome ? state.welcome.world : null;
  if (!world) return { world: null, agent: null, obstacle: null, tile: null };
  const w = view.screenToWorld(p.x, p.y);
  const clamp = (/** @type {number} */ v, /** @type {number} */ hi) => Math.round(Math.min(hi, Math.max(0, v)) * 1000) / 1000;
  return {
    world: { x: clamp(w.x, world.width), y: clamp(w.y, world.height) },
    agent: input.agentAt(p),
    obstacle: obstacleAt(state.obstacles, w, OBSTACLE_PICK_SLACK_PX / view.scale),
    tile: state.map ? state.map.tileAt(w.x, w.y) : null,
  };
}
$('minimap-btn').addEventListener('click', () => minimap.toggle());

// The page's local storage, or null where the browser refuses it (the heat map's choice is then
// kept for the page's life only).
/** @returns {Storage | null} */
function browserStorage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

// Sends {type: 'command', seq, ...fields}; returns the seq, or null when not connected.
/** @param {CommandFields} fields @returns {number | null} */
function sendCommand(fields) {
  return session.sendCommand(fields);
}

/**
 * What a frame shows of the world by team (fog.js): whether agents are coloured by team, the team
 * whose fog veils the world (a player's own; the team a spectator shows; else null), the agents
 * to draw of those interpolated, and how many the status line counts.
 * @typedef {object} TeamSight
 * @property {boolean} byTeam
 * @property {number | null} fogTeam
 * @property {Agent[]} drawn
 * @property {number} count
 * @property {boolean} teamView a spectator's team view: drawn is the team's sight of the world
 */

/** @param {Agent[]} sampled the agents interpolated for this frame @returns {TeamSight} */
function teamSight(sampled) {
  const welcome = /** @type {import('./hud.js').WhoWelcome | null} */ (state.welcome);
  const role = welcome?.role;
  teamView.update(role === 'spectator', state.agents);
  const byTeam = coloursByTeam(state.agents);
  if (role === 'player') {
    // A player receives only what its team sees: every agent is drawn. Its fog needs its own
    // agents told apart, which agents without a team (older binary frames) cannot: none then.
    const team = welcome?.team ?? 0;
    const fogTeam = state.agents.length === 0 || knowsTeams(state.agents) ? team : null;
    return { byTeam, fogTeam, drawn: sampled, count: state.agents.length, teamView: false };
  }
  if (role === 'spectator' && teamView.team !== null) {
    // The team's view of the snapshot being drawn (the newer of the two interpolated between).
    const drawnTick = interp.last.toTick;
    const snapshot = (drawnTick !== null ? interp.snapshot(drawnTick)?.agents : null) ?? state.agents;
    const seen = teamView.seen(snapshot);
    return { byTeam, fogTeam: teamView.team, drawn: teamView.filter(sampled, snapshot), count: seen ? seen.size : 0, teamView: true };
  }
  return { byTeam, fogTeam: null, drawn: sampled, count: state.agents.length, teamView: false };
}

const delayNote = $('delay-note');
const GHOST_PICK_SLACK_PX = 4;

// The page's notes on the game: a late spectator's countdown to its first view (over the empty
// world, until a snapshot comes), and what the ghost under the pointer is (the canvas's tooltip).
/** @param {number} now */
function gameNotes(now) {
  const delay = state.welcome?.delay;
  const waiting = conn.state === 'connected' && typeof delay === 'number' && delay > 0 && !state.viewed;
  const text = waiting ? delayLine(delay, (now - state.welcomedAt) / 1000) : '';
  if (delayNote.hidden !== !waiting) delayNote.hidden = !waiting;
  if (delayNote.textContent !== text) delayNote.textContent = text;
  let tip = '';
  if (cursor.at && state.ghosts.length > 0 && state.welcome?.role === 'player') {
    const w = view.screenToWorld(cursor.at.x, cursor.at.y);
    const g = ghostAt(state.ghosts, w.x, w.y, GHOST_PICK_SLACK_PX / view.scale);
    if (g) tip = `team ${g.team}'s agent ${g.id}: ${ghostLabel(g, state.time ?? g.time)}`;
  }
  // The tooltip is the pointer's too (input.js: what a right-click would order, a stall): a
  // ghost's name replaces it only while over a ghost, and is taken away only if it is still there.
  if (tip) {
    if (canvas.title !== tip) canvas.title = tip;
    canvas.dataset.ghostTip = tip;
  } else if (canvas.dataset.ghostTip !== undefined) {
    if (canvas.title === canvas.dataset.ghostTip) canvas.title = '';
    delete canvas.dataset.ghostTip;
  }
}

// Smoothed milliseconds a frame spends interpolating and drawing (window.herd.frameTiming).
const timing = { sampleMs: 0, drawMs: 0 };

/** @param {number} now */
function frame(now) {
  view.syncSize();
  state.orders = state.orders.filter((o) => now - o.at < ORDER_MARKER_MS);
  state.flashes = state.flashes.filter((f) => now - f.at < FLASH_MS);
  // An armed order has no one to give it to once the selection is empty (a click on the ground,
  // the agents removed): it is dropped.
  if (state.armed && state.selected.size === 0) state.armed = null;
  // Selection and toggle changes land here, whatever caused them.
  if (conn.state === 'connected') inspector.sync(state.selected);
  session.syncViewport(now);
  const t0 = performance.now();
  const sight = teamSight(interp.sample(now));
  state.drawn = sight.drawn;
  const t1 = performance.now();
  // The inspector draws the diagram of the inspected agent under the cursor, else the first few.
  const hover = inspector.on ? input.pointerAgent() : null;
  state.drawnTraces = inspector.drawn(state.traces, hover ? hover.id : null);
  view.draw({
    agents: state.drawn,
    obstacles: state.obstacles,
    sources: state.sources,
    exits: state.exits,
    walls: state.walls,
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
    routeDraft: state.armed?.route,
    byTeam: sight.byTeam,
    fogTeam: sight.fogTeam,
    // A player's team's memory: its explored ground shades its fog, its ghosts lie in it.
    explored: state.welcome?.role === 'player' ? state.explored : null,
    ghosts: state.welcome?.role === 'player' ? state.ghosts : [],
    events: state.events,
  });
  gameNotes(now);
  const t2 = performance.now();
  timing.sampleMs += (t1 - t0 - timing.sampleMs) * 0.1; // smoothed
  timing.drawMs += (t2 - t1 - timing.drawMs) * 0.1;
  const shown = shownFormation(state);
  hud.update({
    state: conn.state,
    retryInMs: conn.retryAt - now,
    tick: state.tick,
    agentCount: state.welcome ? sight.count : null,
    stalledCount: stalledCount(state.drawn),
    selectedCount: state.selected.size,
    rttMs: conn.rttMs,
    stream: stats.read(now),
    avoidance: state.avoidance,
    inspecting: inspector.on,
    goals: state.allGoals,
    heat: heat.on,
    helpOpen: panels.helpOpen,
    profileOpen: profile.open,
    minimap: minimap.on,
    painting: painter.on,
    hasMap: state.map !== null,
    formation: shown,
    // Complete formations can linger in the list (a member that keeps its slot keeps one alive):
    // only the others still forming are worth a mention.
    othersForming: state.formations.filter((f) => f !== shown && !f.complete).length,
    upstream: state.welcome?.upstream ?? null,
    viewOnly: session.viewOnly,
    armed: state.armed ? { kind: state.armed.kind, points: state.armed.route.length } : null,
    who: whoLine(state.welcome, teamView.team),
    whoColor: sight.fogTeam === null ? null : teamColor(sight.fogTeam),
  });
  panels.update({
    agents: state.agents,
    selected: state.selected,
    inspector,
    painting: painter.on,
    drawnIds: state.drawnTraces.map((t) => t.id),
    roles: state.roles,
    viewOnly: session.viewOnly,
    snapshotFormat: conn.snapshotFormat ?? 'json',
  });
  dock.update(view); // after the panels: the legend in it may have come or gone
  minimap.update({
    now,
    world: view.world,
    agents: sight.teamView ? state.drawn : state.agents, // a spectator's team view: what it shows
    obstacles: state.obstacles,
    walls: state.walls,
    map: state.map,
    selected: state.selected,
    byTeam: sight.byTeam,
    limited: conn.snapshotFormat === 'binary' && Boolean(session.viewport.sent?.rect),
    side: dock.side,
    dockWidth: dock.width,
  });
  cursor.update(view, state.map);
  // The welcome's role, for what the page shows only to the operator (style.css's .operator-only).
  const role = state.welcome?.role ?? 'none';
  if (document.body.dataset.role !== role) document.body.dataset.role = role;
  orderButtons(session.viewOnly);
  demoButtons(session.viewOnly);
  // A relay steps no world: its page has no profile to show. A new connection starts it afresh.
  profile.update({ relay: Boolean(state.welcome?.upstream), epoch: state.welcomeGeneration });
  requestAnimationFrame(frame);
}

// window.herd (debug_api.js), for the browser tests and the console, only when the URL asks: #debug.
if (hashParams.has('debug')) {
  import('./debug_api.js').then(({ installDebugApi }) =>
    installDebugApi({
      conn,
      state,
      view,
      interp,
      stats,
      inspector,
      painter,
      viewport: session.viewport,
      timing,
      shownFormation: () => shownFormation(state),
      sendCommand,
      heat,
      teamView,
    }),
  );
}

conn.start();
requestAnimationFrame(frame);
