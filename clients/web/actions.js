// @ts-check
// What the page's keys and buttons do beyond the camera and the selection (input.js calls them,
// main.js wires the buttons): the commands they send (move, attack-move, patrol, stop, spawn,
// remove, obstacle, the formation demo's moves), the order armed for the next right-click and the
// toggles of paint mode and of everyone's goals. On a page the server welcomed as viewer the
// commands are not sent (session.js) and paint mode does not open.

import { DemoKeys } from './demo_keys.js';
import { ARMED_NAMES, agentOrder, arm, orderWords, ownAgents, rightClick, roundPoint, shiftReleased as shiftLetGo } from './orders.js';

/** @import { CommandFields } from '../js/src/protocol.js' */
/** @import { Connection } from '../js/src/connection.js' */
/** @import { Hud } from './hud.js' */
/** @import { Painter } from './paint.js' */
/** @import { ViewerState } from './viewer_state.js' */
/** @import { ArmedKind, OrderStep } from './orders.js' */
/** @import { Agent, Point } from '../js/src/protocol.js' */

/**
 * What the actions read and send through (main.js's pieces).
 * @typedef {object} ActionPieces
 * @property {Connection} conn
 * @property {ViewerState} state
 * @property {Hud} hud
 * @property {Painter} painter
 * @property {(fields: CommandFields) => number | null} sendCommand
 * @property {() => boolean} viewOnly
 * @property {() => void} refuseViewOnly
 */

/**
 * The actions, each a plain function (input.js's callbacks).
 * @typedef {object} Actions
 * @property {() => void} togglePaint
 * @property {(key: string) => void} demoKey
 * @property {(w: Point, shift: boolean) => void} orderAt
 * @property {(target: Agent) => boolean} orderOnAgent
 * @property {(target: Agent) => {what: string, attack: boolean} | null} agentOrderOn
 * @property {(kind: ArmedKind) => void} armOrder
 * @property {() => void} disarm
 * @property {() => void} shiftReleased
 * @property {() => void} stopSelected
 * @property {(x: number, y: number) => void} spawnAt
 * @property {() => void} removeSelected
 * @property {() => void} toggleGoals
 * @property {(x: number, y: number) => void} obstacleAt
 */

// Key S: ten agents in a small sunflower round the point, of the selection's group (its first
// agent's) or 0, kept inside the world.
const SPAWN_COUNT = 10;
const SPAWN_SPACING = 12; // world units between neighbours of the spawned group
const OBSTACLE_RADIUS = 20;

/** @param {ActionPieces} pieces @returns {Actions} */
export function makeActions({ conn, state, hud, painter, sendCommand, viewOnly, refuseViewOnly }) {
  const demoKeys = new DemoKeys();

  // Paint mode needs a map to paint on, and the commander's role: its strokes are commands.
  function togglePaint() {
    if (!painter.on && viewOnly()) {
      refuseViewOnly();
      return;
    }
    if (!painter.on && !state.map) {
      hud.toast('this world has no tile map: nothing to paint', 'info');
      return;
    }
    painter.setOn(!painter.on);
  }

  // The formation demo's moves: on the selection, or on everyone when nothing is selected.
  /** @param {string} key */
  function demoKey(key) {
    if (!state.welcome) return;
    const { width, height } = state.welcome.world;
    const agents = state.selected.size > 0 ? [...state.selected] : 'all';
    const fields = demoKeys.command(key, agents, { x: width / 2, y: height / 2 });
    if (fields) sendCommand(fields);
  }

  // The player's team on a server with players, else null (orders.js's enemies are then groups').
  function playerTeam() {
    const welcome = /** @type {{role?: string, team?: number} | null} */ (state.welcome);
    return welcome?.role === 'player' ? (welcome.team ?? 0) : null;
  }

  // What a right-click on agent `target` would order (orders.js's agentOrder), or null: the
  // cursor shows it before the click (input.js).
  /** @param {Agent} target */
  function agentOrderOn(target) {
    const team = playerTeam();
    const selected = state.agents.filter((a) => state.selected.has(a.id));
    return agentOrder(target, ownAgents(selected, team), team);
  }

  // A right-click on agent `target` (input.js): the selection attacks it when it is an enemy and
  // follows it otherwise, and the message line says which. False when that is not for it (nothing
  // of one's own selected, or the target is among them): the right button moves there instead.
  /** @param {Agent} target @returns {boolean} */
  function orderOnAgent(target) {
    const order = agentOrderOn(target);
    if (!order) return false;
    state.armed = null;
    if (sendCommand(order.fields) === null) return true;
    hud.toast(order.what, 'info');
    const p = roundPoint(target);
    state.orders.push({ x: p.x, y: p.y, at: performance.now(), kind: order.attack ? 'attack' : 'move' });
    return true;
  }

  // A right-click or a tap on the ground (input.js, touch.js): the move, or the order armed
  // (orders.js).
  /** @param {Point} w @param {boolean} shift */
  function orderAt(w, shift) {
    send(rightClick(state.armed, [...state.selected], w, shift), w);
  }

  // Applies an order step: the order armed after it, and its command sent, with a ring where it
  // was given (none for a patrol's route point: the route is drawn while it is given).
  /** @param {OrderStep} step @param {Point | null} at */
  function send(step, at) {
    state.armed = step.armed;
    if (!step.fields) return;
    const seq = sendCommand(step.fields);
    if (seq === null) return;
    // An order that is no plain move says what it was (a move's ring says where it went).
    const words = orderWords(step.fields);
    if (words) hud.toast(words, 'info');
    if (!at) return;
    const p = roundPoint(at);
    state.orders.push({ x: p.x, y: p.y, at: performance.now(), kind: step.fields.cmd === 'attack_move' ? 'attack' : 'move' });
  }

  // A or Q: the next right-click gives that order to the selection.
  /** @param {ArmedKind} kind */
  function armOrder(kind) {
    if (state.selected.size === 0) {
      hud.toast(`select agents first: ${ARMED_NAMES[kind]} gives the selection an order`, 'info');
      return;
    }
    if (painter.on) {
      hud.toast(`leave paint mode first (M): its right button clears walls`, 'info');
      return;
    }
    state.armed = arm(kind);
  }

  function disarm() {
    state.armed = null;
  }

  function shiftReleased() {
    send(shiftLetGo(state.armed, [...state.selected]), null);
  }

  // C: the selection stops and forgets its queued orders and patrol routes.
  function stopSelected() {
    state.armed = null;
    if (state.selected.size === 0) {
      hud.toast('nothing selected to stop', 'info');
      return;
    }
    sendCommand({ cmd: 'stop', agents: [...state.selected] });
  }

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

  /** @param {number} x @param {number} y */
  function obstacleAt(x, y) {
    x = Math.round(x * 1000) / 1000;
    y = Math.round(y * 1000) / 1000;
    sendCommand({ cmd: 'add_obstacle', x, y, radius: OBSTACLE_RADIUS });
  }

  return {
    togglePaint,
    demoKey,
    orderAt,
    orderOnAgent,
    agentOrderOn,
    armOrder,
    disarm,
    shiftReleased,
    stopSelected,
    spawnAt,
    removeSelected,
    toggleGoals,
    obstacleAt,
  };
}
