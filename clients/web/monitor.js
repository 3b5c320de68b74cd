// @ts-check
// The operator's monitor (/monitor, monitor.html): a commander session of its own, opened with the
// token of the page's link (#token=..., as the viewer's), which shows the server's sessions (its
// `sessions` answer, asked once a second) with a kick button each, the tick's time per stage (from
// /metrics, as the viewer's profile panel reads it), the world's counts (from the welcome and the
// snapshots) and one agent's whole state (its snapshot record and its `inspect` trace). A page
// the server does not welcome as commander says why and shows nothing else, and closes its
// session for good, as it does when kicked; otherwise it reconnects as the viewer does.

import { Connection } from '../js/src/connection.js';
import { StepProfile, formatMs } from './profile.js';
import { MetricsPoller } from './profile_panel.js';
import { MONITOR_KICKED, SESSION_COLUMNS, monitorNotice, sessionCells } from './monitor_format.js';

/** @import { Snapshot, Welcome, Agent, InspectTrace, ServerMessage } from '../js/src/protocol.js' */
/** @import { CloseInfo } from '../js/src/connection.js' */
/** @import { SessionRow } from './monitor_format.js' */

const SESSIONS_EVERY_MS = 1000;
const SESSIONS_RETRY_MS = 5000; // a request unanswered this long is asked again
const KICKED_CLOSE = 4000; // PROTOCOL.md: the close code of a kicked session

/** @template {HTMLElement} [T=HTMLElement] @param {string} id @returns {T} */
const $ = (id) => /** @type {T} */ (document.getElementById(id));

const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;

const ui = {
  status: $('status'),
  conn: $('conn'),
  serverField: $('server-field'),
  server: $('server'),
  selfField: $('self-field'),
  self: $('self'),
  notice: $('notice'),
  board: $('board'),
  sessionHead: $('session-head'),
  sessionRows: $('session-rows'),
  sessionsCount: $('sessions-count'),
  kickNote: $('kick-note'),
  stageRows: $('stage-rows'),
  stepMs: $('step-ms'),
  stagesNote: $('stages-note'),
  /** @type {HTMLFormElement} */
  agentForm: $('agent-form'),
  /** @type {HTMLInputElement} */
  agentId: $('agent-id'),
  agentNote: $('agent-note'),
  agentJson: $('agent-json'),
};

/** @param {HTMLElement} el @param {string} text */
function set(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

// ---- the session ---------------------------------------------------------------------------------

const conn = new Connection(wsUrl, {
  role: 'commander',
  client: 'herd-monitor/1',
  token,
  format: 'auto',
  pingEveryMs: 0,
  onMessage: receive,
  onState: stateChanged,
  onClose: closed,
});
let greeted = false; // welcomed as commander on the socket open now
let seq = 0;
/** @type {Map<number, number>} kick's seq -> the session it names */
const kicks = new Map();
let sessionsAsked = { seq: -1, at: 0 }; // the request in flight (seq -1: none)

/** @param {string} state @param {string} text */
function setConnection(state, text) {
  ui.status.dataset.state = state;
  set(ui.conn, text);
}

function stateChanged() {
  if (conn.state === 'connecting') setConnection('connecting', 'connecting');
  else if (conn.state === 'disconnected') {
    setConnection('disconnected', `disconnected: retrying in ${((conn.retryAt - performance.now()) / 1000).toFixed(1)} s`);
  }
}

/** @param {CloseInfo} info */
function closed(info) {
  greeted = false;
  stopPolling();
  clearSessions(); // none of them may be kicked from here until the server answers again
  if (info.code === KICKED_CLOSE) {
    conn.close(); // for good
    setConnection('disconnected', 'kicked');
    showNotice(MONITOR_KICKED);
  }
}

/** @param {object} msg */
function send(msg) {
  return conn.send(msg);
}

/** @param {ServerMessage} msg */
function receive(msg) {
  switch (msg.type) {
    case 'welcome':
      return onWelcome(msg);
    case 'snapshot':
      return onSnapshot(msg);
    case 'sessions':
      return onSessions(msg);
    case 'ack':
      return onAnswer(msg.seq, null);
    case 'error':
      return onAnswer(msg.seq, msg);
  }
}

/** @param {Welcome} w */
function onWelcome(w) {
  const notice = monitorNotice(w.role, token !== '');
  if (notice) {
    // Not the operator: nothing but why, and no session left open watching.
    conn.close(1000, 'not a commander');
    setConnection('disconnected', 'not connected');
    showNotice(notice);
    return;
  }
  greeted = true;
  setConnection('connected', 'connected');
  set(ui.server, w.server + (w.upstream !== undefined ? ` (relay, upstream ${w.upstream})` : ''));
  ui.serverField.hidden = false;
  set(ui.self, String(w.session));
  ui.selfField.hidden = false;
  ui.notice.hidden = true;
  ui.board.hidden = false;
  world.welcome(w);
  stages.relay = w.upstream !== undefined;
  startPolling();
  askSessions();
  inspectAgent(); // a new session inspects nothing yet
}

/** @param {string} text */
function showNotice(text) {
  ui.board.hidden = true;
  ui.serverField.hidden = true;
  ui.selfField.hidden = true;
  set(ui.notice, text);
  ui.notice.hidden = false;
}

// ---- the world's counts --------------------------------------------------------------------------

const world = {
  /** @type {Welcome | null} */
  last: null,
  obstacles: 0,
  /** @param {Welcome} w */
  welcome(w) {
    this.last = w;
    this.obstacles = (w.obstacles ?? []).length;
    set($('w-scenario'), w.scenario ?? '–');
    set($('w-tick'), String(w.tick));
    set($('w-obstacles'), String(this.obstacles));
    set($('w-size'), `${w.world.width} x ${w.world.height}`);
    set($('w-rates'), `${w.tick_rate} ticks/s, ${w.snapshot_rate} snapshots/s`);
    set($('w-state'), w.paused ? 'paused' : 'running');
  },
  /** @param {Snapshot} s */
  snapshot(s) {
    if (s.obstacles) this.obstacles = s.obstacles.length;
    set($('w-tick'), String(s.tick));
    set($('w-agents'), String(s.agents.length));
    set($('w-obstacles'), String(this.obstacles));
    set($('w-formations'), String((s.formations ?? []).length));
  },
};

/** @param {Snapshot} s */
function onSnapshot(s) {
  if (!greeted) return;
  world.snapshot(s);
  agent.show(s);
}

// ---- sessions --------------------------------------------------------------------------------------

function askSessions() {
  if (!greeted) return;
  const now = performance.now();
  if (sessionsAsked.seq >= 0 && now - sessionsAsked.at < SESSIONS_RETRY_MS) return;
  const s = ++seq;
  if (send({ type: 'sessions', seq: s })) sessionsAsked = { seq: s, at: now };
}

ui.sessionHead.replaceChildren(
  ...SESSION_COLUMNS.map(([key, heading]) => {
    const th = document.createElement('th');
    th.textContent = heading;
    th.className = key;
    return th;
  }),
  document.createElement('th'),
);

/** @type {Map<number, HTMLTableRowElement>} the table's rows by session id, updated in place */
const rowsById = new Map();

/** @param {{seq: number, sessions: SessionRow[], omitted: number}} m */
function onSessions(m) {
  if (m.seq === sessionsAsked.seq) sessionsAsked = { seq: -1, at: 0 };
  const seen = new Set();
  let before = /** @type {Element | null} */ (ui.sessionRows.firstElementChild);
  for (const s of m.sessions) {
    seen.add(s.id);
    let tr = rowsById.get(s.id);
    if (!tr) {
      tr = sessionRow(s);
      rowsById.set(s.id, tr);
    }
    // In the answer's order (by id), moving nothing that is already in place: a button under the
    // pointer stays where it is.
    if (tr !== before) ui.sessionRows.insertBefore(tr, before);
    else before = before?.nextElementSibling ?? null;
    fillRow(tr, s);
  }
  for (const [id, tr] of rowsById) {
    if (seen.has(id)) continue;
    tr.remove();
    rowsById.delete(id);
  }
  const n = m.sessions.length;
  set(ui.sessionsCount, `${n}${m.omitted > 0 ? ` listed, ${m.omitted} more` : ''}`);
}

function clearSessions() {
  rowsById.clear();
  ui.sessionRows.replaceChildren();
  set(ui.sessionsCount, '');
  kicks.clear();
}

/** @param {SessionRow} s @returns {HTMLTableRowElement} */
function sessionRow(s) {
  const tr = document.createElement('tr');
  tr.dataset.session = String(s.id);
  for (const [key] of SESSION_COLUMNS) {
    const td = document.createElement('td');
    td.className = key;
    tr.append(td);
  }
  const action = document.createElement('td');
  action.className = 'action';
  if (s.you) {
    action.textContent = 'this page';
    tr.classList.add('you');
  } else {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'kick';
    button.textContent = 'kick';
    button.title = `close session ${s.id} (a client that reconnects by itself comes back as a new session)`;
    button.addEventListener('click', () => kick(s.id, button));
    action.append(button);
  }
  tr.append(action);
  return tr;
}

/** @param {HTMLTableRowElement} tr @param {SessionRow} s */
function fillRow(tr, s) {
  const cells = sessionCells(s);
  SESSION_COLUMNS.forEach(([key], i) => set(/** @type {HTMLElement} */ (tr.children[i]), cells[key]));
}

/** @param {number} id @param {HTMLButtonElement} button */
function kick(id, button) {
  const s = ++seq;
  if (!send({ type: 'command', seq: s, cmd: 'kick', session: id })) return;
  kicks.set(s, id);
  button.disabled = true;
  set(ui.kickNote, `kicking session ${id}…`);
}

// An ack or error: a kick's answer says so; anything else is none of this page's.
/** @param {number | undefined} s @param {{code: string, message: string} | null} error */
function onAnswer(s, error) {
  if (s === undefined) {
    if (error) set(ui.kickNote, `${error.code}: ${error.message}`);
    return;
  }
  if (s === sessionsAsked.seq && error) {
    sessionsAsked = { seq: -1, at: 0 };
    set(ui.kickNote, `sessions: ${error.code}: ${error.message}`);
    return;
  }
  const id = kicks.get(s);
  if (id === undefined) return;
  kicks.delete(s);
  set(ui.kickNote, error ? `session ${id} was not kicked: ${error.code}: ${error.message}` : `session ${id} kicked`);
  if (error) {
    const button = rowsById.get(id)?.querySelector('button.kick');
    if (button instanceof HTMLButtonElement) button.disabled = false;
  }
}

// ---- the tick's stages (GET /metrics, as the viewer's profile panel) -------------------------

const stages = {
  relay: false,
  model: new StepProfile(),
  rowsKey: '',
};
const poller = new MetricsPoller({
  onResult: (r) => {
    stages.model.take(r);
    renderStages();
  },
  host: {
    fetch: (url, init) => fetch(url, init),
    now: () => performance.now(),
    setTimeout: (fn, ms) => window.setTimeout(fn, ms),
    clearTimeout: (id) => window.clearTimeout(id),
  },
  token: () => token,
});
const sessionsTimer = { id: /** @type {number | null} */ (null) };

function startPolling() {
  if (sessionsTimer.id === null) sessionsTimer.id = window.setInterval(askSessions, SESSIONS_EVERY_MS);
  stages.model.reset();
  if (stages.relay) {
    poller.stop();
    set(ui.stagesNote, 'no step profile here: a relay steps no world (its upstream server does)');
    ui.stageRows.replaceChildren();
    return;
  }
  poller.start();
  renderStages();
}

function stopPolling() {
  if (sessionsTimer.id !== null) window.clearInterval(sessionsTimer.id);
  sessionsTimer.id = null;
  sessionsAsked = { seq: -1, at: 0 };
  poller.stop();
}

function renderStages() {
  const { note, delta, stale } = stages.model.view();
  set(ui.stagesNote, note);
  ui.stageRows.classList.toggle('stale', stale);
  const rows = (delta?.stages ?? []).map((s) => ({ stage: s.stage, ms: s.ms, share: s.share }));
  const key = JSON.stringify(rows);
  if (key !== stages.rowsKey) {
    stages.rowsKey = key;
    ui.stageRows.replaceChildren(...rows.map(stageRow));
  }
  const stepMs = delta?.stepMs ?? null;
  set(ui.stepMs, stepMs === null ? '–' : formatMs(stepMs));
}

/** @param {{stage: string, ms: number | null, share: number | null}} r */
function stageRow(r) {
  const tr = document.createElement('tr');
  tr.dataset.stage = r.stage;
  const name = document.createElement('td');
  name.textContent = r.stage;
  const ms = document.createElement('td');
  ms.className = 'ms';
  ms.textContent = r.ms === null ? '–' : formatMs(r.ms);
  ms.dataset.ms = r.ms === null ? '' : String(r.ms);
  const share = document.createElement('td');
  share.className = 'share';
  const track = document.createElement('span');
  track.className = 'track';
  const bar = document.createElement('span');
  bar.className = 'bar';
  bar.style.width = `${Math.round(1000 * Math.min(1, Math.max(0, r.share ?? 0))) / 10}%`;
  track.append(bar);
  const pct = document.createElement('span');
  pct.textContent = r.share === null ? '' : `${Math.round(100 * r.share)}%`;
  share.append(track, pct);
  tr.append(name, ms, share);
  return tr;
}

// ---- one agent's state (its snapshot record and its avoidance trace, `inspect`) ---------------

const agent = {
  /** @type {number | null} */
  id: null,
  /** @param {Snapshot} s */
  show(s) {
    if (this.id === null) return;
    const id = this.id;
    /** @type {Agent | undefined} */
    const record = s.agents.find((a) => a.id === id);
    if (!record) {
      set(ui.agentNote, `no agent ${id} in the world at tick ${s.tick}`);
      set(ui.agentJson, '');
      return;
    }
    /** @type {InspectTrace | undefined} */
    const trace = (s.inspect ?? []).find((t) => t.id === id);
    set(ui.agentNote, `agent ${id} at tick ${s.tick}`);
    /** @type {Record<string, unknown>} */
    const state = { tick: s.tick, agent: record };
    if (trace) state.avoidance = trace;
    set(ui.agentJson, JSON.stringify(state, null, 2));
  },
};

// Asks the server for the chosen agent's trace (or for none): the session's inspect list.
function inspectAgent() {
  send({ type: 'inspect', agents: agent.id === null ? [] : [agent.id] });
}

ui.agentForm.addEventListener('submit', (ev) => {
  ev.preventDefault();
  const text = ui.agentId.value.trim();
  const id = Number(text);
  if (text === '') {
    agent.id = null;
    set(ui.agentNote, '');
    set(ui.agentJson, '');
  } else if (!Number.isInteger(id) || id < 0 || id > 4294967295) {
    set(ui.agentNote, 'an agent id is a whole number from 0');
    return;
  } else {
    agent.id = id;
    set(ui.agentNote, `waiting for agent ${id} in the next snapshot…`);
    set(ui.agentJson, '');
  }
  inspectAgent();
});

conn.start();
