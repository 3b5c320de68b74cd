// @ts-check
// The viewer's state, read-only, and a few hooks, as window.herd: for the browser tests and for
// poking at the viewer from the console. main.js loads this module only when the page's URL asks
// for it (#debug, with any other hash parameters: #token=...&debug).
//
// `agents` are the agents as the last frame drew them (positions interpolated between two
// snapshots, every other field the newer snapshot's); `snapshotAgents`, `obstacles` and `inspect`
// are the newest snapshot's own arrays. Do not modify any of them.

import { THEME, MIN_AGENT_PX } from './view.js';
import { INSPECT_COLORS, VECTOR_MAX_UNITS, vectorUnitPx, byId } from './inspect_view.js';
import { trailAlpha } from './map_view.js';
import { COLLIDED_RING_WIDTH_PX, collidedRingRadius } from './agent_layer.js';
import { ROUTE_DOT_PX, WALL_PX } from './view_marks.js';

/** @import { CommandFields, Formation } from '../js/src/protocol.js' */
/** @import { Connection } from '../js/src/connection.js' */
/** @import { View } from './view.js' */
/** @import { Flash } from './view_marks.js' */
/** @import { ViewerState } from './viewer_state.js' */
/** @import { ViewportSent } from './session.js' */
/** @import { Interpolator } from './interp.js' */
/** @import { StreamStats } from './stats.js' */
/** @import { Inspector } from './inspector.js' */
/** @import { Painter } from './paint.js' */
/** @import { HeatMap } from './heat_map.js' */
/** @import { TeamView } from './team_view.js' */

/**
 * main.js's pieces.
 * @typedef {object} DebugPieces
 * @property {Connection} conn
 * @property {ViewerState} state
 * @property {View} view
 * @property {Interpolator} interp
 * @property {StreamStats} stats
 * @property {Inspector} inspector
 * @property {Painter} painter
 * @property {ViewportSent} viewport
 * @property {{sampleMs: number, drawMs: number}} timing
 * @property {() => Formation | null} shownFormation
 * @property {(fields: CommandFields) => number | null} sendCommand
 * @property {HeatMap} heat
 * @property {TeamView} teamView
 */

// v: main.js's pieces: {conn, state, view, interp, stats, inspector, painter, viewport, timing,
// shownFormation, sendCommand, heat, teamView}.
/** @param {DebugPieces} v */
export function installDebugApi(v) {
  /** @type {Window & {herd?: object}} */ (window).herd = Object.freeze({
    get connected() {
      return v.conn.state === 'connected';
    },
    get status() {
      return v.conn.state;
    },
    get tick() {
      return v.state.tick;
    },
    // 'json' or 'binary': how the newest snapshot came; binaryFrames counts the binary ones decoded.
    get snapshotFormat() {
      return v.conn.snapshotFormat;
    },
    get binaryFrames() {
      return v.conn.binaryFrames;
    },
    // The viewport last sent ({x0, y0, x1, y1}, or null for the whole world), or undefined.
    get viewport() {
      return v.viewport.sent ? v.viewport.sent.rect : undefined;
    },
    // The position quantum last sent with a viewport (world units), or null before the first.
    get quantum() {
      return v.viewport.quantum;
    },
    get snapshotRate() {
      return v.state.welcome ? v.state.welcome.snapshot_rate : null;
    },
    get world() {
      return v.state.welcome ? { ...v.state.welcome.world } : null;
    },
    get role() {
      return v.state.welcome ? v.state.welcome.role : null; // 'viewer' when the server wants a token
    },
    // On a server with players: the player's name and team, from its welcome (else null).
    get player() {
      const w = /** @type {{player?: string, team?: number} | null} */ (v.state.welcome);
      return w?.player !== undefined ? { name: w.player, team: w.team ?? 0 } : null;
    },
    // A spectator's view: null for the whole world, else the team shown (team_view.js), and the
    // teams it can pick.
    get teamView() {
      return v.teamView.team;
    },
    get teamViews() {
      return [...v.teamView.teams];
    },
    // The fog (fog_layer.js): {draws: frames it was drawn in, discs: discs of sight cleared in the
    // last, the ones on screen; px: CSS pixels a fog pixel covered in it}.
    get fog() {
      return { draws: v.view.fogLayer.draws, discs: v.view.fogLayer.discs, px: v.view.fogLayer.px };
    },
    // The game (game.js): the hit and death marks being shown, a player's ghosts and whether its
    // explored ground is known, and the late spectator's countdown while it shows.
    get game() {
      const ex = v.state.explored;
      return {
        events: v.state.events.map((m) => ({ type: m.type, agent: m.agent, x: m.x, y: m.y })),
        ghosts: v.state.ghosts,
        explored: ex ? { cell: ex.cell, cols: ex.cols, rows: ex.rows } : null,
        time: v.state.time,
      };
    },
    // A hurt agent's hit-point bar on screen, CSS pixels (game_layer.js), or null when unhurt or not drawn.
    healthBar(/** @type {number} */ id) {
      const a = v.state.drawn.find((d) => d.id === id);
      return a && a.hp !== undefined && a.max_hp !== undefined && a.hp < a.max_hp ? v.view.healthBar(a) : null;
    },
    // Why this page may not command ('' when it may): the scenario bar's note (access.js).
    get commandNotice() {
      return v.state.commandNotice;
    },
    get agents() {
      return v.state.drawn;
    },
    get frameTiming() {
      return { ...v.timing };
    },
    // How agents are drawn: 'raster' (a pixel buffer) or 'vector' (canvas paths); see agent_layer.js.
    get agentDrawing() {
      return v.view.agentLayer.mode;
    },
    get orders() {
      return v.state.orders.map((o) => ({ ...o })); // the fading markers of recent move orders
    },
    get snapshotAgents() {
      return v.state.agents;
    },
    // {fromTick, toTick, alpha, mode: 'interpolate' | 'extrapolate' | 'hold' | 'empty', renderMs,
    //  extrapolatedMs, delayMs} of the last frame drawn.
    get interpolation() {
      return { ...v.interp.last, delayMs: v.interp.delayMs };
    },
    // The agents of buffered snapshot `tick` (as the server sent them), or null.
    bufferedAgents: (/** @type {number} */ tick) => v.interp.snapshot(tick)?.agents ?? null,
    // Interpolation delay in ms (about two snapshot intervals by default); null restores the default.
    setInterpolationDelay: (/** @type {number | null} */ ms) => {
      v.interp.delayOverrideMs = ms === null ? null : Math.max(0, Number(ms));
      return v.interp.delayMs;
    },
    // {snapshotsPerSec, bytesPerSec, dropped}: what the status bar shows.
    get stream() {
      return v.stats.read(performance.now());
    },
    get selected() {
      return [...v.state.selected];
    },
    // The order the next right-click gives, {kind: 'attack_move' | 'patrol', route: [{x, y}...]}
    // (A, Q; route: a patrol's points given so far with Shift), or null: a move.
    get armed() {
      const a = v.state.armed;
      return a ? { kind: a.kind, route: a.route.map((p) => ({ ...p })) } : null;
    },
    // The queued routes the last frame drew, [{id, points: [{x, y}...]}]: screen points (CSS
    // pixels of the canvas) from the agent's goal on, a dot of radius routeDotPx on each but the first.
    get routes() {
      return v.view.routes.map((r) => ({ id: r.id, points: r.points.map((p) => ({ ...p })) }));
    },
    routeDotPx: ROUTE_DOT_PX,
    wallPx: WALL_PX, // a wall's stone line, CSS pixels wide (its darker rim beyond it)
    get obstacles() {
      return v.state.obstacles;
    },
    // The sources and exits as last told, and the labels the last frame drew for them
    // ({kind, id, text, x, y}: screen points, CSS pixels).
    get sources() {
      return v.state.sources;
    },
    get exits() {
      return v.state.exits;
    },
    get areaLabels() {
      return v.view.areaLabels.map((l) => ({ ...l }));
    },
    get walls() {
      return v.state.walls;
    },
    get avoidance() {
      return v.state.avoidance;
    },
    get inspecting() {
      return v.inspector.on;
    },
    get inspected() {
      return [...v.inspector.ids]; // the list this session's server side has
    },
    get inspect() {
      return v.state.drawnTraces; // the traces drawn now (at most inspector.js's MAX_DRAWN)
    },
    get traced() {
      return v.inspector.wanted(v.state.traces); // every trace this page asked for
    },
    get tracesReceived() {
      return v.state.traces.map((t) => t.id); // the ids the newest snapshot traced (only this session's)
    },
    // The scenario bar's state: the welcome's scenario, scenarios and paused.
    get scenario() {
      return v.state.welcome ? (v.state.welcome.scenario ?? null) : null;
    },
    get scenarios() {
      return v.state.welcome ? [...(v.state.welcome.scenarios ?? [])] : [];
    },
    get paused() {
      return v.state.welcome ? Boolean(v.state.welcome.paused) : null;
    },
    get tickRate() {
      return v.state.welcome ? v.state.welcome.tick_rate : null;
    },
    // id -> role ('hunter', 'prey', 'guard', 'leader') of the agents that have one.
    get roles() {
      return Object.fromEntries(v.state.roles);
    },
    // Screen outline [[x, y], ...] of agent `id`'s role mark, or [] without one.
    roleMark: (/** @type {number} */ id) => {
      const a = byId(v.state.drawn, id);
      const role = v.state.roles.get(id);
      return a && role ? v.view.roleMark(a, role) : [];
    },
    get allGoals() {
      return v.state.allGoals;
    },
    minAgentPx: MIN_AGENT_PX, // CSS pixels: the smallest radius an agent is drawn with
    // Screen ring {x, y, r, width} drawn round agent `id` while it is collided (the middle of the
    // stroke, CSS pixels), or null when no agent `id` was drawn.
    collidedRing: (/** @type {number} */ id) => {
      const a = byId(v.state.drawn, id);
      if (!a) return null;
      const p = v.view.worldToScreen(a.x, a.y);
      return { x: p.x, y: p.y, r: collidedRingRadius(v.view.radiusPx(a)), width: COLLIDED_RING_WIDTH_PX };
    },
    get flashes() {
      return v.state.flashes.map((f) => ({ ...f }));
    },
    get lastError() {
      return v.state.lastError;
    },
    get lastAck() {
      return v.state.lastAck;
    },
    get lastCommand() {
      return v.state.lastCommand;
    },
    // {width, height, tile_size, rows} as the protocol writes it, or null.
    get map() {
      const m = v.state.map;
      return m ? { width: m.width, height: m.height, tile_size: m.tileSize, rows: m.rows() } : null;
    },
    tileBlocked: (/** @type {number} */ x, /** @type {number} */ y) =>
      v.state.map ? v.state.map.isBlocked(x, y) : null,
    get mapRenders() {
      return v.view.mapLayer.renders; // how often the map's layer was drawn
    },
    get mapLayerTilePx() {
      return v.view.mapLayer.tilePx; // the layer's pixels a tile side (1 for big maps)
    },
    get painting() {
      return v.painter.on;
    },
    get paintPending() {
      return v.painter.pendingCommands; // set_tiles sent and not yet shown by a snapshot
    },
    get formations() {
      return v.state.formations;
    },
    // The heat map (key D): {mode: 'off' | 'density' | 'speed', received: layers since the page
    // loaded, tick: the newest layer's snapshot, grid: {cell, cols, rows, agents} of what is drawn
    // (null: nothing), max: the legend's top, draws: frames it was drawn in}.
    get heat() {
      const layer = v.view.heatLayer;
      const g = layer.grid;
      return {
        mode: v.heat.mode,
        received: v.heat.received,
        tick: v.heat.tick,
        grid: g ? { cell: g.cell, cols: g.cols, rows: g.rows, agents: g.agents } : null,
        max: layer.max,
        draws: layer.draws,
      };
    },
    // The density layer's count and mean speed of the cell at world point (x, y), or null.
    heatCell: (/** @type {number} */ x, /** @type {number} */ y) => {
      const g = v.view.heatLayer.grid;
      if (!g) return null;
      const col = Math.min(g.cols - 1, Math.max(0, Math.floor(x / g.cell)));
      const row = Math.min(g.rows - 1, Math.max(0, Math.floor(y / g.cell)));
      return { col, row, count: g.count[row * g.cols + col], speed: g.speed[row * g.cols + col] };
    },
    get formation() {
      return v.shownFormation(); // the one the status bar shows
    },
    trailAlpha, // (i, n): opacity of a walker's trail at history entry i of n, 0 the oldest
    // Screen disc {x, y, r} of agent `id`'s "!" badge (drawn while it is unreachable), or null.
    unreachableBadge: (/** @type {number} */ id) => {
      const a = byId(v.state.drawn, id);
      return a ? v.view.unreachableBadge(a) : null;
    },
    theme: THEME,
    inspectColors: INSPECT_COLORS,
    inspectMaxUnits: VECTOR_MAX_UNITS,
    // CSS pixels the overlay draws a vector of length 1 with, at agent `id`.
    inspectUnitPx: (/** @type {number} */ id) => {
      const a = byId(v.state.drawn, id);
      return a ? vectorUnitPx(v.view, a) : null;
    },
    // Screen ring of a flash at animation-frame time `now`: {x, y, r, alpha}, or null once faded.
    flashRing: (/** @type {Flash} */ f, /** @type {number} */ now) => v.view.flashRing(f, now),
    // CSS pixels relative to the canvas's top-left corner.
    worldToScreen: (/** @type {number} */ x, /** @type {number} */ y) => v.view.worldToScreen(x, y),
    // Where the world is drawn on the canvas (CSS pixels of the canvas: {x, y, w, h}; null: none).
    drawnRect: () => v.view.drawnRect(),
    screenToWorld: (/** @type {number} */ x, /** @type {number} */ y) => v.view.screenToWorld(x, y),
    sendCommand: v.sendCommand, // {cmd, ...}: adds type and seq, returns the seq
    sendRaw: (/** @type {string} */ text) => v.conn.sendRaw(text), // any text, for testing the server's error paths
  });
}
