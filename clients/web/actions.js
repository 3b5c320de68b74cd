// @ts-check
// What the page's keys and buttons do beyond the camera and the selection (input.js calls them,
// main.js wires the buttons): the commands they send (move, spawn, remove, obstacle, seed 003's
// demo moves) and the toggles of paint mode and of everyone's goals. On a page the server welcomed
// as viewer the commands are not sent (session.js) and paint mode does not open.

import { DemoKeys } from './demo_keys.js';

/** @import { CommandFields, Connection } from './connection.js' */
/** @import { Hud } from './hud.js' */
/** @import { Painter } from './paint.js' */
/** @import { ViewerState } from './viewer_state.js' */

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
 * @property {(x: number, y: number) => void} moveSelectionTo
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

  // Seed 003's demo moves: on the selection, or on everyone when nothing is selected.
  /** @param {string} key */
  function demoKey(key) {
    if (!state.welcome) return;
    const { width, height } = state.welcome.world;
    const agents = state.selected.size > 0 ? [...state.selected] : 'all';
    const fields = demoKeys.command(key, agents, { x: width / 2, y: height / 2 });
    if (fields) sendCommand(fields);
  }

  /** @param {number} x @param {number} y */
  function moveSelectionTo(x, y) {
    // Sub-millimetre precision means nothing to the world and makes logs unreadable.
    x = Math.round(x * 1000) / 1000;
    y = Math.round(y * 1000) / 1000;
    const seq = sendCommand({ cmd: 'set_target', agents: [...state.selected], target: { x, y } });
    if (seq !== null) state.orders.push({ x, y, at: performance.now() });
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

  return { togglePaint, demoKey, moveSelectionTo, spawnAt, removeSelected, toggleGoals, obstacleAt };
}
