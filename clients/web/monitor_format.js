// @ts-check
// The operator's monitor (monitor.html) without the DOM or the network: what it says when it may
// not be shown, and a `sessions` row (PROTOCOL.md, "sessions") as the table's cells. Pure: Node's
// tests run it.

import { formatMs } from './profile.js';

export const MONITOR_NO_TOKEN =
  "this page is the operator's: open the monitor link herd-server printed, /monitor#token=…";
export const MONITOR_TOKEN_REFUSED =
  "the token in this page's link was refused: open the monitor link herd-server printed, /monitor#token=…";
export const MONITOR_KICKED = 'this monitor was kicked by the operator; reload the page to connect again';

// What the page says instead of the monitor for a welcome's role: '' when it may show it (a
// commander), else why not. tokenGiven: the page said hello with its link's token.
/** @param {string} role @param {boolean} tokenGiven @returns {string} */
export function monitorNotice(role, tokenGiven) {
  if (role === 'commander') return '';
  return tokenGiven ? MONITOR_TOKEN_REFUSED : MONITOR_NO_TOKEN;
}

// Bytes in powers of 1,000: "812 B", "1.2 kB", "2.9 MB".
/** @param {number} n @returns {string} */
export function formatBytes(n) {
  if (!Number.isFinite(n) || n < 0) return '–';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let u = 0;
  while (n >= 1000 && u < units.length - 1) {
    n /= 1000;
    u++;
  }
  return u === 0 ? `${Math.round(n)} B` : `${n.toFixed(1)} ${units[u]}`;
}

// A session's age: "42 s", "3 min 05 s", "2 h 04 min".
/** @param {number} s @returns {string} */
export function formatAge(s) {
  if (!Number.isFinite(s) || s < 0) return '–';
  const whole = Math.floor(s);
  if (whole < 60) return `${whole} s`;
  const pad = (/** @type {number} */ v) => String(v).padStart(2, '0');
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${pad(whole % 60)} s`;
  return `${Math.floor(whole / 3600)} h ${pad(Math.floor(whole / 60) % 60)} min`;
}

/**
 * A row of the server's `sessions` answer.
 * @typedef {object} SessionRow
 * @property {number} id
 * @property {string} [role]    absent until its hello is answered
 * @property {string} [format]
 * @property {string} [client]
 * @property {string} [player]  a player's name (the players file's)
 * @property {number} [team]    a player's team
 * @property {string} address
 * @property {number} connected_s
 * @property {number} bytes_sent
 * @property {number} snapshots_sent
 * @property {number} dropped
 * @property {number} [rtt_ms]  absent until a ping came back
 * @property {boolean} [you]
 */

// The table's columns, in order: a key of the cells below and its heading.
export const SESSION_COLUMNS = /** @type {const} */ ([
  ['id', 'id'],
  ['role', 'role'],
  ['player', 'player'],
  ['client', 'client'],
  ['address', 'address'],
  ['format', 'format'],
  ['connected', 'connected'],
  ['sent', 'sent'],
  ['snapshots', 'snapshots'],
  ['dropped', 'dropped'],
  ['rtt', 'rtt'],
]);

// A row's cells as the table shows them; '–' for what is not known yet.
/** @param {SessionRow} s @returns {Record<(typeof SESSION_COLUMNS)[number][0], string>} */
export function sessionCells(s) {
  return {
    id: String(s.id),
    role: s.role ?? '–',
    player: s.player ? `${s.player} (team ${s.team ?? '?'})` : '–',
    client: s.client || '–',
    address: s.address || '–',
    format: s.format ?? '–',
    connected: formatAge(s.connected_s),
    sent: formatBytes(s.bytes_sent),
    snapshots: String(s.snapshots_sent),
    dropped: String(s.dropped),
    rtt: s.rtt_ms === undefined ? '–' : `${formatMs(s.rtt_ms)} ms`,
  };
}
